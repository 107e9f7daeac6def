"""A deliberately simple reference implementation of the Kamisado rules.

Written from ``RULES.md`` and the rulebook alone, to cross-check
``kamisado.rules.position``.  It shares no code with the package and uses a different
representation: squares are names (``'c5'``), colours are words
(``'blue'``), sides are ``'b'``/``'g'`` and the board is a dict
``square name -> (side, colour, rings)``.  Speed does not matter here; every
move builds a new position, so there is no undo to get wrong.

>>> p = RefPosition("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0")
>>> len(p.moves())
102
>>> q = p.play(("c1", "c5"))
>>> q.side, q.must
('g', 'blue')
>>> q.kpn()
'obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0'
"""

from __future__ import annotations

from dataclasses import dataclass, field

FILES = "abcdefgh"
COLOURS = ("brown", "green", "red", "yellow", "pink", "purple", "blue", "orange")
LETTER_OF = {
    "orange": "o",
    "blue": "b",
    "purple": "u",
    "pink": "p",
    "yellow": "y",
    "red": "r",
    "green": "g",
    "brown": "n",
}
COLOUR_OF_LETTER = {letter: colour for colour, letter in LETTER_OF.items()}

# The board exactly as drawn in RULES.md, rank 8 first.
_BOARD_PICTURE = """
8  orange blue   purple pink   yellow red    green  brown
7  red    orange pink   green  blue   yellow brown  purple
6  green  pink   orange red    purple brown  yellow blue
5  pink   purple blue   orange brown  green  red    yellow
4  yellow red    green  brown  orange blue   purple pink
3  blue   yellow brown  purple red    orange pink   green
2  purple brown  yellow blue   green  pink   orange red
1  brown  green  red    yellow pink   purple blue   orange
"""

SQUARE_COLOUR: dict[str, str] = {}
for _line in _BOARD_PICTURE.strip().splitlines():
    _rank, *_names = _line.split()
    for _file, _name in zip(FILES, _names, strict=True):
        SQUARE_COLOUR[_file + _rank] = _name

# Black moves up the board (towards rank 8), Gold down (towards rank 1).
FORWARD = {"b": 1, "g": -1}
HOME_RANK = {"b": 1, "g": 8}
GOAL_RANK = {"b": 8, "g": 1}
OTHER = {"b": "g", "g": "b"}
# Each player's own left, as a step in file letters: Black's left is file a,
# Gold sits on the other side of the board so Gold's left is file h.
LEFT_STEP = {"b": -1, "g": 1}
MAX_DISTANCE = {0: 7, 1: 5, 2: 3, 3: 1}
RING_TOTAL = {0: 0, 1: 1, 2: 3, 3: 7}


def shift(square: str, ranks: int, files: int) -> str | None:
    """The square ``ranks`` up and ``files`` right of ``square``, or None."""
    f = FILES.index(square[0]) + files
    r = int(square[1]) + ranks
    if 0 <= f < 8 and 1 <= r <= 8:
        return FILES[f] + str(r)
    return None


def rank_of(square: str) -> int:
    return int(square[1])


class RefError(ValueError):
    """The reference refuses a KPN."""


@dataclass
class RefPosition:
    """One position of a round, built from KPN or by :meth:`play`."""

    kpn_text: str = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
    towers: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    side: str = "b"
    must: str | None = None
    target: int = 1
    points: dict[str, int] = field(default_factory=dict)
    #: None, or (winner side, colour of the ringed tower, 'goal'|'deadlock', its rings)
    outcome: tuple[str, str, str, int] | None = None
    #: the passes applied after the last move (or load): (side, colour, square)
    passes: list[tuple[str, str, str]] = field(default_factory=list)
    last_mover: str = "g"
    last_colour: str | None = None
    #: whether the last real move was a Sumo push
    last_pushed: bool = False

    def __post_init__(self) -> None:
        if not self.towers:
            self._read_kpn(self.kpn_text)

    # -- KPN ------------------------------------------------------------------

    def _read_kpn(self, text: str) -> None:
        fields = text.split()
        if len(fields) == 3:
            fields += ["1", "0", "0"]
        if len(fields) != 6:
            raise RefError(f"bad field count in {text!r}")
        placement, side, must, target, bpts, gpts = fields
        rows = placement.split("/")
        if len(rows) != 8:
            raise RefError("need 8 ranks")
        towers: dict[str, tuple[str, str, int]] = {}
        for i, row in enumerate(rows):
            rank = 8 - i
            file = 0
            chars = list(row)
            while chars:
                ch = chars.pop(0)
                if ch.isdigit():
                    file += int(ch)
                    continue
                if ch.lower() not in COLOUR_OF_LETTER:
                    raise RefError(f"bad letter {ch!r}")
                rings = 0
                while chars and chars[0] == "+":
                    chars.pop(0)
                    rings += 1
                if rings > 3 or file > 7:
                    raise RefError("bad rank")
                who = "b" if ch.isupper() else "g"
                towers[FILES[file] + str(rank)] = (who, COLOUR_OF_LETTER[ch.lower()], rings)
                file += 1
            if file != 8:
                raise RefError(f"rank {rank} has {file} squares")
        kinds = sorted((s, c) for s, c, _ in towers.values())
        if kinds != sorted((s, c) for s in "bg" for c in COLOURS):
            raise RefError("need each of the 16 towers exactly once")
        if side not in ("b", "g"):
            raise RefError("bad side")
        if must != "-" and must not in COLOUR_OF_LETTER:
            raise RefError("bad tower to move")
        self.towers = towers
        self.side = side
        self.must = None if must == "-" else COLOUR_OF_LETTER[must]
        self.target = int(target)
        self.points = {"b": int(bpts), "g": int(gpts)}
        for who in "bg":
            worth = sum(RING_TOTAL[r] for s, _, r in towers.values() if s == who)
            if worth != self.points[who] or worth >= self.target:
                raise RefError("points do not match the rings")
        # A KPN has no history: the side not to move counts as the last real
        # mover, and it finished on a square of the colour of the tower to move.
        self.last_mover = OTHER[side]
        self.last_colour = self.must
        for square, (who, colour, rings) in towers.items():
            if rank_of(square) == GOAL_RANK[who]:
                self.outcome = (who, colour, "goal", rings)
                return
        if self.must is not None:
            self._apply_passes()

    def kpn(self) -> str:
        """The position as KPN, always with the three match fields.  A round won
        by a goal is written with the loser to move the tower of the goal
        square's colour (rule T2)."""
        rows = []
        for rank in range(8, 0, -1):
            text = ""
            gap = 0
            for file in FILES:
                tower = self.towers.get(file + str(rank))
                if tower is None:
                    gap += 1
                    continue
                if gap:
                    text += str(gap)
                    gap = 0
                who, colour, rings = tower
                letter = LETTER_OF[colour]
                text += (letter.upper() if who == "b" else letter) + "+" * rings
            if gap:
                text += str(gap)
            rows.append(text)
        must = "-" if self.must is None else LETTER_OF[self.must]
        return (
            f"{'/'.join(rows)} {self.side} {must} {self.target}"
            f" {self.points['b']} {self.points['g']}"
        )

    # -- moves ----------------------------------------------------------------

    def square_of(self, side: str, colour: str) -> str:
        for square, (who, c, _) in self.towers.items():
            if who == side and c == colour:
                return square
        raise AssertionError("every tower is on the board")

    def push_run(self, square: str) -> list[str]:
        """Squares of the towers the tower on ``square`` can Sumo-push, or []."""
        who, _, rings = self.towers[square]
        run: list[str] = []
        ahead = shift(square, FORWARD[who], 0)
        while ahead is not None and ahead in self.towers:
            other_side, _, other_rings = self.towers[ahead]
            if other_side == who or other_rings >= rings:
                return []
            run.append(ahead)
            ahead = shift(ahead, FORWARD[who], 0)
        if ahead is None or not run or len(run) > rings:
            return []
        return run

    def tower_moves(self, square: str) -> list[tuple[str, str]]:
        """Every legal move of the tower on ``square``, as (from, to) names."""
        who, _, rings = self.towers[square]
        out = []
        for step in (-1, 0, 1):
            for distance in range(1, MAX_DISTANCE[rings] + 1):
                to = shift(square, FORWARD[who] * distance, step * distance)
                if to is None or to in self.towers:
                    break
                out.append((square, to))
        if self.push_run(square):
            out.append((square, shift(square, FORWARD[who], 0)))
        return out

    def moves(self) -> list[tuple[str, str]]:
        if self.outcome is not None:
            return []
        out = []
        for square, (who, colour, _) in sorted(self.towers.items()):
            if who == self.side and self.must in (None, colour):
                out.extend(self.tower_moves(square))
        return out

    def copy(self) -> RefPosition:
        return RefPosition(
            kpn_text="",
            towers=dict(self.towers),
            side=self.side,
            must=self.must,
            target=self.target,
            points=dict(self.points),
            outcome=self.outcome,
            passes=[],
            last_mover=self.last_mover,
            last_colour=self.last_colour,
        )

    def play(self, move: tuple[str, str], check: bool = True) -> RefPosition:
        """The position after a legal ``move`` (this one is left unchanged)."""
        if check:
            assert move in self.moves(), (move, self.kpn())
        frm, to = move
        new = self.copy()
        who, colour, rings = new.towers.pop(frm)
        if to in new.towers:
            # Sumo push: the run goes back one square (furthest first), the
            # pusher steps forward, and moves again with the tower of the
            # colour of the square the furthest pushed tower landed on.
            run = self.push_run(frm)
            for pushed in reversed(run):
                new.towers[shift(pushed, FORWARD[who], 0)] = new.towers.pop(pushed)
            new.towers[to] = (who, colour, rings)
            landed = shift(run[-1], FORWARD[who], 0)
            new.side = who
            new.must = SQUARE_COLOUR[landed]
        else:
            new.towers[to] = (who, colour, rings)
            new.side = OTHER[who]
            new.must = SQUARE_COLOUR[to]
        new.last_mover = who
        new.last_colour = SQUARE_COLOUR[to]
        new.last_pushed = to in self.towers
        if rank_of(to) == GOAL_RANK[who]:
            new.outcome = (who, colour, "goal", rings)
            return new
        new._apply_passes()
        return new

    def _apply_passes(self) -> None:
        """M6 passes for blocked towers, and M8 deadlock when they repeat."""
        asked: set[tuple[str, str]] = set()
        while True:
            assert self.must is not None
            square = self.square_of(self.side, self.must)
            if self.tower_moves(square):
                return
            if (self.side, self.must) in asked:
                winner = OTHER[self.last_mover]
                assert self.last_colour is not None
                ringed = self.towers[self.square_of(winner, self.last_colour)]
                self.outcome = (winner, self.last_colour, "deadlock", ringed[2])
                # Written as kamisado.rules.position documents a finished deadlock: the
                # winner asked for its tower of the ring's colour.
                self.side, self.must = winner, self.last_colour
                return
            asked.add((self.side, self.must))
            self.passes.append((self.side, self.must, square))
            self.side = OTHER[self.side]
            self.must = SQUARE_COLOUR[square]

    # -- notation -------------------------------------------------------------

    def long_form(self, move: tuple[str, str]) -> str:
        """The rulebook's ``Tower Direction Distance Square`` of a legal move."""
        frm, to = move
        who, colour, _ = self.towers[frm]
        distance = abs(rank_of(to) - rank_of(frm))
        step = FILES.index(to[0]) - FILES.index(frm[0])
        if step == 0:
            direction = "Forward"
        elif (step > 0) == (LEFT_STEP[who] > 0):
            direction = "Left"
        else:
            direction = "Right"
        return f"{colour.title()} {direction} {distance} {SQUARE_COLOUR[to].title()}"

    # -- perft ----------------------------------------------------------------

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        moves = self.moves()
        if depth == 1:
            return len(moves)
        return sum(self.play(m, check=False).perft(depth - 1) for m in moves)
