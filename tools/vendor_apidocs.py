"""Copy Swagger UI (npm's ``swagger-ui-dist``, pinned in package.json) into kamisado/web/static/apidocs/.

The site serves ``/api/docs`` from there (docs/web-api.md): the package's
one bundle, its stylesheet and its licence, their source-map comments left
out (the maps are not shipped).  By default (``--check``: CI, after
``npm ci``) the committed files are compared with the pinned package's;
``--write`` copies them after a new version in package.json.

Usage: ``npm ci && python3 tools/vendor_apidocs.py [--write]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

SOURCE = ROOT / "node_modules" / "swagger-ui-dist"
OUT = ROOT / "kamisado" / "web" / "static" / "apidocs"
FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE")
_MAP = re.compile(rb"\n?(//# sourceMappingURL=[^\n]*|/\*# sourceMappingURL=[^\n]*\*/)\s*$")


def served(data: bytes) -> bytes:
    """A file of the package as the site serves it: no source-map comment.

    >>> served(b"a();\\n//# sourceMappingURL=a.js.map")
    b'a();'
    >>> served(b"p{}\\n/*# sourceMappingURL=a.css.map*/")
    b'p{}'
    """
    return _MAP.sub(b"", data)


def make() -> dict[Path, bytes]:
    """The vendored files, by path (from ``node_modules``)."""
    return {OUT / name: served((SOURCE / name).read_bytes()) for name in FILES}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/vendor_apidocs.py", description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "Swagger UI's files in kamisado/web/static/apidocs/")
    args = ap.parse_args(argv)
    if not SOURCE.is_dir():
        print(f"no {generated.shown(SOURCE)}: run npm ci first", file=sys.stderr)
        return 1
    return generated.settle(make(), write=args.write, script="vendor_apidocs.py")


if __name__ == "__main__":
    sys.exit(main())
