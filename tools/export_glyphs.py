"""Copy the Chinese character outlines of the web board into kamisado/data/glyphs.json.

The web page keeps the outlines in ``kamisado/web/static/js/glyphs.js`` (keyed
by character) and the colour of each character in ``i18n.js`` (``CHARS``);
:mod:`kamisado.pictures.svg` reads the JSON this script writes, keyed by colour name.
Run it again when the outlines change::

    python3 tools/export_glyphs.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "kamisado" / "web" / "static" / "js"
OUT = ROOT / "kamisado" / "data" / "glyphs.json"


def main() -> None:
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
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {', '.join(chars)}")


if __name__ == "__main__":
    main()
