"""The rules core: a position of a round, its moves pushed and popped, KPN.

This module imports nothing outside the standard library and knows nothing
of user interfaces.  Everything else in the package is built around it.

The board's vocabulary (sides, colours, squares, :class:`Move`, the errors)
is in :mod:`kamisado.rules.board`.

>>> pos = Position()
>>> pos.kpn()
'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0'
>>> pos.push_move("c1-c5")
Move.from_str('c1-c5')
>>> COLOUR_NAMES[pos.must_move]
'blue'
>>> sorted(str(m) for m in pos.legal_moves)[:3]
['b8-a7', 'b8-b2', 'b8-b3']
"""


from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from kamisado.rules.board import (
    _DR,
    _REACH,
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    DEADLOCK,
    FORWARD,
    GOAL,
    GOAL_RANK,
    GOLD,
    RANGE,
    RAYS,
    SIDE_LETTERS,
    SIDE_NAMES,
    SQUARE_COLOUR,
    SQUARE_NAMES,
    START_KPN,
    TARGETS,
    IllegalMoveError,
    MalformedError,
    Move,
    Outcome,
    Pass,
    ring_total,
)

__all__ = ["LegalMoves", "Position", "Undo"]

# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------

# One undo record, kept as a plain tuple on the stack (the hot path of the
# pure-Python search); :meth:`Position.peek` names its fields (:class:`Undo`).
_Undo = tuple[int, int, int, int, "Outcome | None", int, int, tuple[Pass, ...]]


class Undo(NamedTuple):
    """What :meth:`Position.pop` needs to take the last move back.

    >>> pos = Position()
    >>> _ = pos.push_move("c1-c5")
    >>> u = pos.peek()
    >>> str(u.move), u.pushed, u.turn, u.must_move, u.passes
    ('c1-c5', 0, 0, -1, ())
    """

    code: int
    """The move as ``from | to << 6``."""
    pushed: int
    """How many towers the move pushed (0 for a plain move)."""
    turn: int
    """The side to move before the move."""
    must_move: int
    """The tower that had to move before the move (-1: any)."""
    outcome: Outcome | None
    """The outcome before the move (always ``None``: a finished round has no moves)."""
    last_mover: int
    """The last side to make a real move, before the move."""
    last_colour: int
    """The colour of the square it moved to."""
    passes: tuple[Pass, ...]
    """The passes the rules applied after the move."""

    @property
    def move(self) -> Move:
        """The move taken back by ``pop``."""
        return Move(self.code & 63, self.code >> 6)


class LegalMoves:
    """The legal moves of a position: a live view, generated when read.

    Iterating generates the moves lazily; ``len``, ``bool`` and ``in`` answer
    without building :class:`Move` objects (``in`` checks one move's legality
    through :meth:`Position.is_legal`).  The view follows the position: read
    it after a push and it shows the new moves.

    >>> pos = Position()
    >>> moves = pos.legal_moves
    >>> len(moves), bool(moves), Move.from_str("c1-c5") in moves
    (102, True, True)
    >>> Move.from_str("a1-a2") in Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO g n").legal_moves
    False
    >>> moves.count(), next(iter(moves))
    (102, Move.from_str('a1-a2'))
    """

    __slots__ = ("_pos",)

    def __init__(self, pos: Position) -> None:
        self._pos = pos

    def __iter__(self) -> Iterator[Move]:
        for code in self._pos.move_codes():
            yield Move(code & 63, code >> 6)

    def __len__(self) -> int:
        return len(self._pos.move_codes())

    def __bool__(self) -> bool:
        return self._pos.outcome is None  # a round in progress always has a move

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._pos.is_legal(move)

    def count(self) -> int:
        """The number of legal moves (``len(moves)``)."""
        return len(self)

    def __repr__(self) -> str:
        moves = ", ".join(str(m) for m in self)
        return f"<LegalMoves at {self._pos.kpn()!r} ({moves})>"


def _read_kpn(kpn: str) -> tuple[list[int], list[int], list[int], int, int, int, list[int]]:
    """The fields of a KPN, checked: board, tower squares, rings, side to move,
    tower to move, target and points (:class:`Position` reads a KPN with it).

    >>> board, squares, rings, turn, must, target, points = _read_kpn(START_KPN)
    >>> squares[0], rings[0], turn, must, target, points
    (0, 0, 0, -1, 1, [0, 0])
    """
    if not kpn.isascii():
        at = next(i for i, ch in enumerate(kpn) if not ch.isascii())
        raise MalformedError(
            f"a KPN is ASCII text; found {kpn[at]!r} at index {at} in {kpn!r}"
        )
    fields = kpn.split()
    if len(fields) not in (3, 6):
        raise MalformedError(
            "a KPN has 3 fields (placement, side to move, tower to move) or 6"
            f" (plus target, Black's points, Gold's points); found {len(fields)}"
            f" in {kpn!r}"
        )
    board = [-1] * 64
    rings = [0] * 16
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise MalformedError(
            f"placement field: expected 8 ranks separated by '/', found {len(ranks)}"
        )
    for i, text in enumerate(ranks):
        rank = 7 - i
        file = 0
        j = 0
        while j < len(text):
            ch = text[j]
            if ch in "12345678":
                file += int(ch)
                j += 1
                continue
            if ch.lower() not in COLOUR_LETTERS:
                raise MalformedError(
                    f"placement field, rank {rank + 1}: expected a digit 1-8 or a"
                    f" tower letter ({COLOUR_LETTERS}, upper case for Black),"
                    f" found {ch!r}"
                )
            side = BLACK if ch.isupper() else GOLD
            tower = side * 8 + COLOUR_LETTERS.index(ch.lower())
            j += 1
            n = 0
            while j < len(text) and text[j] == "+":
                n += 1
                j += 1
            if n > 3:
                raise MalformedError(
                    f"placement field, rank {rank + 1}: a tower has at most 3 rings"
                    f" ('+++'), found {n} on {ch}"
                )
            if file >= 8:
                raise MalformedError(
                    f"placement field, rank {rank + 1}: describes more than 8 squares"
                )
            if rings[tower] or tower in board:
                raise MalformedError(
                    f"placement field: {SIDE_NAMES[side]}'s"
                    f" {COLOUR_NAMES[tower & 7]} tower appears twice"
                )
            board[rank * 8 + file] = tower
            rings[tower] = n
            file += 1
        if file != 8:
            raise MalformedError(
                f"placement field, rank {rank + 1}: describes {file} squares,"
                " expected 8"
            )
    tower_square = [-1] * 16
    for sq, tower in enumerate(board):
        if tower >= 0:
            tower_square[tower] = sq
    for tower, sq in enumerate(tower_square):
        if sq < 0:
            raise MalformedError(
                f"placement field: {SIDE_NAMES[tower >> 3]}'s"
                f" {COLOUR_NAMES[tower & 7]} tower is missing"
            )
    if fields[1] not in SIDE_LETTERS:
        raise MalformedError(
            f"side-to-move field: expected 'b' or 'g', found {fields[1]!r}"
        )
    turn = SIDE_LETTERS.index(fields[1])
    if fields[2] == "-":
        must = -1
    elif len(fields[2]) == 1 and fields[2] in COLOUR_LETTERS:
        must = COLOUR_LETTERS.index(fields[2])
    else:
        raise MalformedError(
            "tower-to-move field: expected '-' or a lower-case colour letter"
            f" ({COLOUR_LETTERS}), found {fields[2]!r}"
        )
    if len(fields) == 6:
        names = ("target", "Black's points", "Gold's points")
        nums = []
        for name, text in zip(names, fields[3:], strict=True):
            if not text.isdigit():
                raise MalformedError(
                    f"{name} field: expected a whole number, found {text!r}"
                )
            nums.append(int(text))
        target, bpts, gpts = nums
    else:
        target, bpts, gpts = 1, 0, 0
    if target not in TARGETS:
        raise MalformedError(
            f"target field: expected 1, 3, 7 or 15, found {target}"
        )
    pts = [bpts, gpts]
    for side in (BLACK, GOLD):
        earned = sum(ring_total(rings[side * 8 + c]) for c in range(8))
        if pts[side] != earned:
            raise MalformedError(
                f"{SIDE_NAMES[side]}'s points field: the rings of"
                f" {SIDE_NAMES[side]}'s towers are worth {earned}, found {pts[side]}"
            )
        if pts[side] >= target:
            raise MalformedError(
                f"{SIDE_NAMES[side]}'s points field: {pts[side]} reaches the"
                f" target {target}, so the match would be over"
            )
    return board, tower_square, rings, turn, must, target, pts


def _placement(board: list[int], rings: list[int]) -> list[str]:
    """The ranks of a KPN's placement field, rank 8 first.

    >>> _placement(Position().board, Position().rings)[0]
    'obupyrgn'
    """
    rows = []
    for rank in range(7, -1, -1):
        row = []
        empty = 0
        for file in range(8):
            t = board[rank * 8 + file]
            if t < 0:
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            letter = COLOUR_LETTERS[t & 7]
            row.append((letter.upper() if t < 8 else letter) + "+" * rings[t])
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return rows


class Position:
    """A position of a round, with match context, that moves can be pushed on.

    ``Position()`` is the start of a single round; ``Position(kpn)`` reads
    any position in KPN.  ``push``/``pop`` are fast and unchecked, for
    search; ``parse_move`` and ``push_move`` check everything, for people.

    >>> pos = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0")
    >>> pos
    Position('obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0')
    >>> pos.target, pos.points
    (3, [0, 0])
    """

    __slots__ = (
        "board",
        "tower_square",
        "rings",
        "turn",
        "must_move",
        "target",
        "points",
        "outcome",
        "last_mover",
        "last_colour",
        "initial_passes",
        "_stack",
    )

    board: list[int]
    """``board[square]``: tower id (``side * 8 + colour``) or -1."""
    tower_square: list[int]
    """``tower_square[tower id]``: the square of each of the 16 towers."""
    rings: list[int]
    """``rings[tower id]``: 0 ordinary, 1 Sumo, 2 Double, 3 Triple."""
    turn: int
    """Side to move: ``BLACK`` (0) or ``GOLD`` (1)."""
    must_move: int
    """Colour of the tower that must move, or -1 when any may (rule T1)."""
    outcome: Outcome | None
    """How the round ended, or ``None`` while it is in progress."""

    def __init__(self, kpn: str = START_KPN) -> None:
        self._stack: list[_Undo] = []
        self._load(kpn)

    # -- KPN ---------------------------------------------------------------

    def _load(self, kpn: str) -> None:
        board, tower_square, rings, turn, must, target, pts = _read_kpn(kpn)
        self.board = board
        self.tower_square = tower_square
        self.rings = rings
        self.turn = turn
        self.must_move = must
        self.target = target
        self.points = pts
        self.outcome = None
        self.initial_passes: tuple[Pass, ...] = ()
        # For a KPN, the side not to move counts as the last real mover and
        # the square it finished on has the colour of the tower to move.
        self.last_mover = turn ^ 1
        self.last_colour = must
        # A tower already on the opponent's home row means the round is over.
        winners = [
            t
            for t in range(16)
            if (tower_square[t] >> 3) == GOAL_RANK[t >> 3]
        ]
        if len(winners) > 1:
            raise MalformedError(
                "placement field: more than one tower stands on its opponent's"
                " home row"
            )
        if winners:
            t = winners[0]
            if t >> 3 == turn:
                raise MalformedError(
                    f"side-to-move field: {SIDE_NAMES[t >> 3]} has already reached"
                    f" {SIDE_NAMES[turn ^ 1]}'s home row, so {SIDE_NAMES[turn]}"
                    " cannot be to move"
                )
            self.outcome = Outcome(t >> 3, t & 7, GOAL, rings[t])
            return
        if must < 0:
            if not any(self._can_move(turn * 8 + c) for c in range(8)):
                raise MalformedError(
                    f"tower-to-move field: '-' lets {SIDE_NAMES[turn]} choose any"
                    " tower, but none of them can move"
                )
            return
        self.initial_passes = self._resolve()

    def kpn(self, match: bool = True) -> str:
        """The position as KPN (with the three match fields unless ``match=False``).

        A finished round is written so that it reads back finished the same
        way: after a goal, the loser to move; after a deadlock, the winner
        asked for its tower of the ring's colour.  KPN has no field for a
        finished round, so one case cannot be written: a deadlock caused by
        a Sumo push in which the winner's tower of the ring's colour can
        still move reads back as a round in progress.

        >>> Position().kpn(match=False)
        'obupyrgn/8/8/8/8/8/8/NGRYPUBO b -'
        """
        rows = _placement(self.board, self.rings)
        turn, must_move = self.turn, self.must_move
        o = self.outcome
        if o is not None and o.reason == GOAL:
            # the loser would move next, with the tower of the goal square's colour
            turn = o.winner ^ 1
            must_move = SQUARE_COLOUR[self.tower_square[o.winner * 8 + o.colour]]
        elif o is not None:
            # deadlock: the winner is asked for the blocked tower of the ring's
            # colour, so reading this back finds the same deadlock
            turn, must_move = o.winner, o.colour
        must = "-" if must_move < 0 else COLOUR_LETTERS[must_move]
        text = f"{'/'.join(rows)} {SIDE_LETTERS[turn]} {must}"
        if match:
            text += f" {self.target} {self.points[0]} {self.points[1]}"
        return text

    def __repr__(self) -> str:
        return f"Position({self.kpn()!r})"

    def __str__(self) -> str:
        return self.ascii()

    def _repr_svg_(self) -> str:
        """The position as a picture, with its last move (Jupyter shows it)."""
        from kamisado.pictures import svg  # only when asked: the rules need no pictures

        return svg.board(self, **svg.marks(self))

    def ascii(self) -> str:
        """A plain-text diagram: towers as KPN letters, empty squares as '.'.

        >>> print(Position().ascii().splitlines()[0])
        8 o b u p y r g n
        """
        lines = []
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                t = self.board[rank * 8 + file]
                if t < 0:
                    cells.append(".")
                else:
                    letter = COLOUR_LETTERS[t & 7]
                    cells.append(
                        (letter.upper() if t < 8 else letter) + "+" * self.rings[t]
                    )
            lines.append(f"{rank + 1} " + " ".join(cells))
        lines.append("  a b c d e f g h")
        return "\n".join(lines)

    def copy(self, stack: bool = True) -> Position:
        """An independent copy (with the move stack unless ``stack=False``)."""
        new = Position.__new__(Position)
        new.board = self.board[:]
        new.tower_square = self.tower_square[:]
        new.rings = self.rings[:]
        new.turn = self.turn
        new.must_move = self.must_move
        new.target = self.target
        new.points = self.points[:]
        new.outcome = self.outcome
        new.last_mover = self.last_mover
        new.last_colour = self.last_colour
        new.initial_passes = self.initial_passes if stack else self.passes()
        new._stack = self._stack[:] if stack else []
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.key() == other.key() and self.outcome == other.outcome

    def __hash__(self) -> int:
        return hash(self.key())

    def key(self) -> tuple[object, ...]:
        """A hashable key of everything that decides the future of the round."""
        return (
            tuple(self.board),
            tuple(self.rings),
            self.turn,
            self.must_move,
            self.target,
            tuple(self.points),
            self.outcome,
        )

    # -- queries -------------------------------------------------------------

    def is_over(self) -> bool:
        """True when the round has ended (goal or deadlock)."""
        return self.outcome is not None

    def tower_at(self, square: int) -> tuple[int, int, int] | None:
        """``(side, colour, rings)`` of the tower on ``square``, or ``None``."""
        t = self.board[square]
        if t < 0:
            return None
        return (t >> 3, t & 7, self.rings[t])

    def mover(self) -> int:
        """Tower id that must move, or -1 when any may move or the round is over."""
        if self.outcome is not None or self.must_move < 0:
            return -1
        return self.turn * 8 + self.must_move

    def passes(self) -> tuple[Pass, ...]:
        """Passes the rules applied after the last move (or after loading)."""
        if self._stack:
            return self._stack[-1][7]
        return self.initial_passes

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed on this position, oldest first."""
        return [Move(c & 63, c >> 6) for c, *_ in self._stack]

    def _can_move(self, t: int) -> bool:
        side = t >> 3
        sq = self.tower_square[t]
        board = self.board
        reach = _REACH[side][self.rings[t]]
        for d in (0, 1, 2):
            ray = reach[d][sq]
            if ray and board[ray[0]] < 0:
                return True
        return self._push_length(t) > 0

    def _push_length(self, t: int) -> int:
        """Length of the run of towers the tower ``t`` can push, or 0."""
        n = self.rings[t]
        if not n:
            return 0
        side = t >> 3
        board = self.board
        rings = self.rings
        k = 0
        for s in RAYS[side][FORWARD][self.tower_square[t]]:
            c = board[s]
            if c < 0:
                return k
            if c >> 3 == side or rings[c] >= n or k == n:
                return 0
            k += 1
        return 0  # the run reaches the edge: it cannot be pushed off the board

    def _tower_codes(self, t: int, out: list[int]) -> None:
        side = t >> 3
        sq = self.tower_square[t]
        board = self.board
        for ray in _REACH[side][self.rings[t]]:
            for s in ray[sq]:
                if board[s] >= 0:
                    break
                out.append(sq | s << 6)
        if self.rings[t] and self._push_length(t):
            out.append(sq | RAYS[side][FORWARD][sq][0] << 6)

    def move_codes(self) -> list[int]:
        """Legal moves as ints ``from | to << 6`` (the fast path for search)."""
        out: list[int] = []
        if self.outcome is not None:
            return out
        if self.must_move >= 0:
            self._tower_codes(self.turn * 8 + self.must_move, out)
        else:
            base = self.turn * 8
            for c in range(8):
                self._tower_codes(base + c, out)
        return out

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves: a :class:`LegalMoves` view, generated lazily when
        iterated (none when the round is over).

        >>> len(list(Position().legal_moves))
        102
        """
        return LegalMoves(self)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return (move.from_square | move.to_square << 6) in self.move_codes()

    def is_push(self, move: Move) -> bool:
        """Whether a legal ``move`` is a Sumo push (its target square is occupied)."""
        return self.board[move.to_square] >= 0

    # -- making moves -----------------------------------------------------------

    def push(self, move: Move) -> None:
        """Make a legal move, unchecked (for search); see ``push_move``."""
        self.push_code(move.from_square | move.to_square << 6)

    def push_code(self, code: int) -> None:
        """Make a legal move given as ``from | to << 6``, unchecked."""
        board = self.board
        tsq = self.tower_square
        frm = code & 63
        to = code >> 6
        t = board[frm]
        side = t >> 3
        k = 0
        undo_turn = self.turn
        undo_must = self.must_move
        undo_outcome = self.outcome
        undo_mover = self.last_mover
        undo_colour = self.last_colour
        if board[to] >= 0:
            # Sumo push: shift the run one square back, furthest first.
            ray = RAYS[side][FORWARD][frm]
            k = 1
            while board[ray[k]] >= 0:
                k += 1
            for i in range(k, 0, -1):
                p = board[ray[i - 1]]
                board[ray[i]] = p
                tsq[p] = ray[i]
            beyond = ray[k]
        board[frm] = -1
        board[to] = t
        tsq[t] = to
        self.last_mover = side
        self.last_colour = SQUARE_COLOUR[to]
        if (to >> 3) == GOAL_RANK[side]:
            self.outcome = Outcome(side, t & 7, GOAL, self.rings[t])
            self._stack.append(
                (code, k, undo_turn, undo_must, undo_outcome, undo_mover, undo_colour, ())
            )
            return
        if k:
            self.turn = side
            self.must_move = SQUARE_COLOUR[beyond]
        else:
            self.turn = side ^ 1
            self.must_move = SQUARE_COLOUR[to]
        passes = self._resolve() if not self._can_move(
            self.turn * 8 + self.must_move
        ) else ()
        self._stack.append(
            (code, k, undo_turn, undo_must, undo_outcome, undo_mover, undo_colour, passes)
        )

    def _resolve(self) -> tuple[Pass, ...]:
        """Apply passes (M6) for blocked towers, detecting deadlock (M8)."""
        passes: list[Pass] = []
        seen = 0
        while True:
            t = self.turn * 8 + self.must_move
            if self._can_move(t):
                return tuple(passes)
            if seen >> t & 1:
                loser = self.last_mover
                winner = loser ^ 1
                colour = self.last_colour
                self.outcome = Outcome(
                    winner, colour, DEADLOCK, self.rings[winner * 8 + colour]
                )
                return tuple(passes)
            seen |= 1 << t
            sq = self.tower_square[t]
            passes.append(Pass(self.turn, t & 7, sq))
            self.turn ^= 1
            self.must_move = SQUARE_COLOUR[sq]

    def peek(self) -> Undo:
        """The undo record of the last move pushed (``IndexError`` when none)."""
        if not self._stack:
            raise IndexError("peek at a position with no moves pushed")
        return Undo._make(self._stack[-1])

    def pop(self) -> Move:
        """Take back the last move and return it."""
        code = self.pop_code()
        return Move(code & 63, code >> 6)

    def pop_code(self) -> int:
        """Take back the last move and return it as ``from | to << 6``."""
        code, k, turn, must, outcome, mover, colour, _ = self._stack.pop()
        board = self.board
        tsq = self.tower_square
        frm = code & 63
        to = code >> 6
        t = board[to]
        board[frm] = t
        tsq[t] = frm
        board[to] = -1
        if k:
            ray = RAYS[t >> 3][FORWARD][frm]
            for i in range(1, k + 1):
                p = board[ray[i]]
                board[ray[i - 1]] = p
                tsq[p] = ray[i - 1]
            board[ray[k]] = -1
        self.turn = turn
        self.must_move = must
        self.outcome = outcome
        self.last_mover = mover
        self.last_colour = colour
        return code

    # -- checked entry points -----------------------------------------------------

    def _must_reason(self) -> str:
        colour = COLOUR_NAMES[self.must_move]
        a = "an" if colour[0] in "aeiou" else "a"
        side = SIDE_NAMES[self.turn]
        other = SIDE_NAMES[self.turn ^ 1]
        passes = self.passes()
        if passes:
            p = passes[-1]
            return (
                f"{SIDE_NAMES[p.side]}'s {COLOUR_NAMES[p.colour]} tower is blocked on"
                f" {a} {colour} square"
            )
        if self._stack and self._stack[-1][1]:
            return f"{side} pushed a tower onto {a} {colour} square"
        return f"{other} finished on {a} {colour} square"

    def check_move(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` saying why ``move`` is illegal, if it is."""
        if self.outcome is not None:
            o = self.outcome
            raise IllegalMoveError(
                f"{move}: the round is over ({SIDE_NAMES[o.winner]} won by {o.reason})"
            )
        frm, to = move
        t = self.board[frm]
        name = SQUARE_NAMES[frm]
        if t < 0:
            raise IllegalMoveError(f"{move}: there is no tower on {name}")
        side, colour = t >> 3, t & 7
        if side != self.turn:
            raise IllegalMoveError(
                f"{move}: the tower on {name} is {SIDE_NAMES[side]}'s, but"
                f" {SIDE_NAMES[self.turn]} is to move"
            )
        if self.must_move >= 0 and colour != self.must_move:
            raise IllegalMoveError(
                f"{move}: the {COLOUR_NAMES[self.must_move]} tower must move:"
                f" {self._must_reason()}"
            )
        if self.is_legal(move):
            return
        dr = (to >> 3) - (frm >> 3)
        df = (to & 7) - (frm & 7)
        fwd = _DR[side]
        dist = abs(dr)
        if dr * fwd <= 0 or (df != 0 and abs(df) != dist):
            raise IllegalMoveError(
                f"{move}: a tower moves only straight or diagonally forward"
                f" ({SIDE_NAMES[side]} moves towards rank {'8' if side == 0 else '1'})"
            )
        rings = self.rings[t]
        if self.board[to] >= 0 and df == 0 and dist == 1:
            if not rings:
                raise IllegalMoveError(
                    f"{move}: {SQUARE_NAMES[to]} is occupied and an ordinary tower"
                    " cannot push"
                )
            raise IllegalMoveError(
                f"{move}: this {('Sumo', 'Double Sumo', 'Triple Sumo')[rings - 1]}"
                f" cannot push here (it pushes 1 to {rings} of the opponent's towers"
                f" with fewer rings, straight ahead, into an empty square)"
            )
        if dist > RANGE[rings]:
            kind = ("an ordinary tower", "a Sumo", "a Double Sumo", "a Triple Sumo")
            raise IllegalMoveError(
                f"{move}: {kind[rings]} moves at most {RANGE[rings]} squares,"
                f" found {dist}"
            )
        step = fwd * 8 + (df // dist if df else 0)
        s = frm
        for _ in range(dist):
            s += step
            if self.board[s] >= 0:
                raise IllegalMoveError(
                    f"{move}: the way is blocked by the tower on {SQUARE_NAMES[s]}"
                )
        raise IllegalMoveError(f"{move}: not a legal move here")  # pragma: no cover

    def parse_move(self, text: str) -> Move:
        """Read a move in any written form and check that it is legal.

        Accepts the square form (``c1-c5``), the rulebook's long form
        (``Red Forward 4 Blue``) and the short form (``Rc5``, or ``c5`` when
        only one tower can go there); see :mod:`kamisado.rules.notation`.

        >>> Position().parse_move("Red Forward 4 Blue")
        Move.from_str('c1-c5')
        """
        from kamisado.rules.notation import parse_move

        return parse_move(self, text)

    def push_move(self, move: Move | str) -> Move:
        """Check a move (a ``Move`` or text in any form), make it and return it.

        An illegal or malformed move raises and changes nothing.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        else:
            self.check_move(move)
        self.push(move)
        return move

    # -- perft ------------------------------------------------------------------------

    def perft(self, depth: int) -> int:
        """Number of legal move sequences of exactly ``depth`` moves.

        Passes are applied by the rules and are not moves; a finished round
        has no moves.

        >>> Position().perft(1), Position().perft(2)
        (102, 1150)
        """
        if depth == 0:
            return 1
        codes = self.move_codes()
        if depth == 1:
            return len(codes)
        total = 0
        push = self.push_code
        pop = self.pop_code
        for code in codes:
            push(code)
            total += self.perft(depth - 1)
            pop()
        return total
