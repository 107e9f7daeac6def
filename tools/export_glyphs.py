"""Copy the Chinese character outlines of the web board into kamisado/data/glyphs.json.

The web page keeps the outlines in ``kamisado/web/static/js/glyphs.js`` (keyed
by character) and the colour of each character in ``i18n.js`` (``CHARS``);
:mod:`kamisado.pictures.svg` reads the JSON this script writes, keyed by colour name.
Checks by default (CI runs it): exits 1 when the JSON is stale; ``--write``
writes it, when the outlines change::

    python3 tools/export_glyphs.py            # is it current?
    python3 tools/export_glyphs.py --write    # remake it
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "kamisado" / "web" / "static" / "js"
OUT = ROOT / "kamisado" / "data" / "glyphs.json"


def make() -> dict[Path, bytes]:
    """The JSON, by path."""
    glyphs_js = (JS / "glyphs.js").read_text(encoding="utf-8")
    about = re.search(r"/\*(.*?)\*/", glyphs_js, re.S)
    body = glyphs_js[glyphs_js.index("export const GLYPHS =") :]
    outlines: dict[str, str] = json.loads(body[body.index("{") : body.rindex("}") + 1])
    i18n = (JS / "i18n.js").read_text(encoding="utf-8")
    chars_src = re.search(r"export const CHARS = .*?\(\{(.*?)\}\)", i18n, re.S)
    if chars_src is None or about is None:
        raise SystemExit("glyphs.js or i18n.js changed shape: update this script")
    chars = dict(re.findall(r'(\w+): "(.)"', chars_src.group(1)))
    data = {
        "_about": " ".join(about.group(1).split()),
        "colours": {
            colour: {"char": ch, "path": outlines[ch]} for colour, ch in chars.items()
        },
    }
    return {OUT: (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/export_glyphs.py",
                                 description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "kamisado/data/glyphs.json")
    args = ap.parse_args(argv)
    return generated.settle(make(), write=args.write, script="export_glyphs.py")


if __name__ == "__main__":
    sys.exit(main())
