"""Copy Swagger UI (npm's ``swagger-ui-dist``, pinned in package.json) into
kamisado/web/static/apidocs/, where the site serves ``/api/docs`` from:
its one bundle, its stylesheet and its licence, the source-map comments
left out (the maps are not shipped).  ``--check`` (CI, after ``npm ci``)
fails when the committed files differ from the pinned package's.

Usage: ``npm ci && python3 tools/vendor_apidocs.py [--check]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "node_modules" / "swagger-ui-dist"
TARGET = ROOT / "kamisado" / "web" / "static" / "apidocs"
FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE")
_MAP = re.compile(rb"\n?(//# sourceMappingURL=[^\n]*|/\*# sourceMappingURL=[^\n]*\*/)\s*$")


def vendored(name: str) -> bytes:
    """The file ``name`` of the npm package as the site serves it.

    >>> _MAP.sub(b"", b"a();\\n//# sourceMappingURL=a.js.map")
    b'a();'
    """
    return _MAP.sub(b"", (SOURCE / name).read_bytes())


def main(argv: list[str] | None = None) -> int:
    """Copy (or with ``--check`` compare) the files; 1 when they differ."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not copy")
    args = parser.parse_args(argv)
    if not SOURCE.is_dir():
        print(f"no {SOURCE}: run npm ci first", file=sys.stderr)
        return 1
    differ = []
    for name in FILES:
        data = vendored(name)
        if args.check:
            if not (TARGET / name).is_file() or (TARGET / name).read_bytes() != data:
                differ.append(name)
        else:
            TARGET.mkdir(parents=True, exist_ok=True)
            (TARGET / name).write_bytes(data)
    if differ:
        print(f"kamisado/web/static/apidocs differs from npm's swagger-ui-dist: {', '.join(differ)}; "
              "run python3 tools/vendor_apidocs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
