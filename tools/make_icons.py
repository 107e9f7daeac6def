"""Make the web app's icons (the manifest's, kamisado/web/static/icons/): the board at the start, drawn by the pictures code.

- ``icon-192.png`` and ``icon-512.png`` (purpose ``any``): the starting
  position (``kamisado.pictures.svg.board``, painted by
  ``kamisado.pictures.gif.paint``) on the page's dark colour;
- ``maskable-512.png`` (purpose ``maskable``): the same board smaller, inside
  the safe zone (the middle circle of 80 % of the width) a phone's mask keeps.

Deterministic: the same files each run.  Checks by default (CI: the suite's
tests/test_tools.py), ``--write`` writes them::

    python3 tools/make_icons.py            # are they current?
    python3 tools/make_icons.py --write    # remake them
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's kamisado, whatever is installed
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402
from PIL import Image  # noqa: E402

from kamisado.pictures import svg  # noqa: E402
from kamisado.pictures.gif import paint  # noqa: E402
from kamisado.rules.position import Position  # noqa: E402

OUT = ROOT / "kamisado" / "web" / "static" / "icons"
#: The page's dark colour (style.css ``--dark``): the icons' background and the manifest's theme.
DARK = (0x1D, 0x1B, 0x19)
#: The board's share of the icon's width: most of an ``any`` icon; a maskable
#: one's board fits inside the safe circle (its diagonal under 80 %).
SHARE = {"any": 0.86, "maskable": 0.54}


def icon(size: int, purpose: str) -> bytes:
    """One icon, ``size`` pixels square, as PNG bytes."""
    side = round(size * SHARE[purpose])
    drawn = paint(svg.board(Position(), size=side * 2, coordinates=False, must=False, title="Kamisado"))
    drawn = drawn.resize((side, side), Image.Resampling.LANCZOS)
    im = Image.new("RGB", (size, size), DARK)
    im.paste(drawn, ((size - side) // 2, (size - side) // 2))
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def make() -> dict[Path, bytes]:
    """The icons, by path."""
    return {OUT / "icon-192.png": icon(192, "any"), OUT / "icon-512.png": icon(512, "any"),
            OUT / "maskable-512.png": icon(512, "maskable")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_icons.py", description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "the icons in kamisado/web/static/icons/")
    args = ap.parse_args(argv)
    return generated.settle(make(), write=args.write, script="make_icons.py", same=generated.same_pictures())


if __name__ == "__main__":
    sys.exit(main())
