"""The board's symmetries, which map round starts to round starts of the
same value, and proofs to proofs.

The board's colours are the same after a half turn (the square at file f,
rank r has the colour of the square at 7-f, 7-r), and after a left-right
mirror with the colours renamed by :data:`SIGMA` (brown-orange,
green-blue, red-purple, yellow-pink: the mirror of the home row's colour
order).  The rules speak of each player's own forward, left and right,
of colours only as "the tower of the square's colour", and place a fill
from the player's brown square (left) or orange square (right), so:

* ``turn`` (the half turn, Black and Gold swapped, with their points):
  the other side wins the image of a start; fills keep their names;
* ``mirror`` (files reversed, colours renamed): the same side wins;
  a left fill becomes a right fill;
* ``both``.

A proof maps with its start: each position of its plan, each move's
squares, each fill.  :func:`twins` gives a start's images, and
:func:`image` a proven start's image, which ``kamisado verify-match``
checks as it checks any proof.

>>> twins("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0")  # the match's start: Gold to open
[('obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 3 0 0', 'turn'), ('obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0', 'mirror'), ('obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 3 0 0', 'both')]
"""

from __future__ import annotations

from kamisado.proving.rounds import Entry, StartResult
from kamisado.rules.board import COLOUR_LETTERS

__all__ = ["SIGMA", "SYMMETRIES", "canonical", "image", "map_kpn", "twins"]

#: The colour renaming of the mirror, by colour letter.
SIGMA = {a: b for a, b in zip(COLOUR_LETTERS, reversed(COLOUR_LETTERS), strict=True)}
#: The symmetries other than the identity: (name, sides swapped, fills swapped).
SYMMETRIES = (("turn", True, False), ("mirror", False, True), ("both", True, True))


def _grid(placement: str) -> list[list[str]]:
    rows = []
    for text in placement.split("/"):
        row: list[str] = []
        for ch in text:
            if ch.isdigit():
                row.extend([""] * int(ch))
            elif ch == "+":
                row[-1] += "+"
            else:
                row.append(ch)
        rows.append(row)
    return rows


def _placement(rows: list[list[str]]) -> str:
    out = []
    for row in rows:
        text, empty = "", 0
        for cell in row:
            if cell:
                text += (str(empty) if empty else "") + cell
                empty = 0
            else:
                empty += 1
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


def _tower(cell: str, turn: bool, mirror: bool) -> str:
    if not cell:
        return cell
    c, rings = cell[0], cell[1:]
    if mirror:
        c = SIGMA[c.lower()].upper() if c.isupper() else SIGMA[c]
    if turn:
        c = c.swapcase()
    return c + rings


def map_kpn(kpn: str, name: str) -> str:
    """The KPN of ``kpn``'s image under the symmetry ``name``.

    >>> map_kpn("r+buyn+gpo/8/8/8/8/8/8/GR+YNBPUO b - 3 1 2", "turn")
    'oupbnyr+g/8/8/8/8/8/8/OPGN+YUBR+ g - 3 2 1'
    >>> map_kpn("r+buyn+gpo/8/8/8/8/8/8/GR+YNBPUO b u 3 1 2", "mirror")
    'nybo+prgu+/8/8/8/8/8/8/NRYGOPU+B b r 3 1 2'
    """
    turn = name in ("turn", "both")
    mirror = name in ("mirror", "both")
    fields = kpn.split()
    rows = _grid(fields[0])
    if turn:
        rows = rows[::-1]
    if turn != mirror:  # the half turn reverses the files, and so does the mirror
        rows = [r[::-1] for r in rows]
    rows = [[_tower(c, turn, mirror) for c in r] for r in rows]
    fields[0] = _placement(rows)
    if turn:
        fields[1] = "g" if fields[1] == "b" else "b"
        if len(fields) == 6:
            fields[4], fields[5] = fields[5], fields[4]
    if mirror and fields[2] != "-":
        fields[2] = SIGMA[fields[2]]
    return " ".join(fields)


def _square(name: str, turn: bool, mirror: bool) -> str:
    f, r = ord(name[0]) - ord("a"), int(name[1])
    if turn != mirror:
        f = 7 - f
    if turn:
        r = 9 - r
    return f"{chr(ord('a') + f)}{r}"


def _entry(e: Entry, turn: bool, mirror: bool) -> Entry:
    if "move" in e:
        a, b = str(e["move"]).split("-")
        return {"move": f"{_square(a, turn, mirror)}-{_square(b, turn, mirror)}"}
    if "fill" in e and mirror:
        return {"fill": "right" if e["fill"] == "left" else "left"}
    return dict(e)


def twins(kpn: str) -> list[tuple[str, str]]:
    """The images of ``kpn`` under the three symmetries: ``(kpn, name)``."""
    return [(map_kpn(kpn, name), name) for name, _, _ in SYMMETRIES]


def canonical(kpn: str) -> str:
    """One KPN for ``kpn`` and its images (the least).

    >>> canonical("r+buyn+gpo/8/8/8/8/8/8/GR+YNBPUO b - 3 1 2") == canonical("oupbnyr+g/8/8/8/8/8/8/OPGN+YUBR+ g - 3 2 1")
    True
    """
    return min([kpn] + [t for t, _ in twins(kpn)])


def image(r: StartResult, name: str) -> StartResult:
    """The proven start ``r`` under the symmetry ``name``: its start, winner,
    plan (every position, move and fill mapped) and needs."""
    turn = name in ("turn", "both")
    mirror = name in ("mirror", "both")
    if r.winner is None:
        raise ValueError(f"not proven: {r.start}")
    return StartResult(
        start=map_kpn(r.start, name),
        winner=r.winner ^ 1 if turn else r.winner,
        plan={map_kpn(k, name): _entry(e, turn, mirror) for k, e in r.plan.items()},
        needs=[map_kpn(s, name) for s in r.needs],
        positions=0,
        nodes=0,
        seconds=0.0,
    )
