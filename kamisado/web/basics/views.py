"""The wire's one vocabulary: what a state frame shows of a position, a move,
the move list, the clocks, the seats (``docs/web.md``).

Everywhere on the wire a square is its name (``c1``), a side its letter
(``b``/``g``) and a colour its name (``brown``).  The move list is kept up as
a match goes on (:class:`MoveList`), not rebuilt for every action.

>>> from kamisado.rules.position import Position
>>> position_view(Position())["turn"]
'b'
"""

from __future__ import annotations

from typing import Any, TypedDict

from kamisado.rules.board import (
    COLOUR_NAMES,
    FORWARD,
    RAYS,
    SIDE_LETTERS,
    SQUARE_NAMES,
    Move,
    Outcome,
)
from kamisado.rules.match import FILL, Match, Round
from kamisado.rules.notation import Entry, move_entries
from kamisado.rules.position import Position
from kamisado.rules.record import match_entries, start_entries

__all__ = [
    "OfferView",
    "ClockView",
    "EndedView",
    "EntryView",
    "FillView",
    "LastView",
    "MoveList",
    "MoveView",
    "OutcomeView",
    "PassView",
    "PositionView",
    "PushedView",
    "RoundView",
    "SeatView",
    "TowerView",
    "entry_view",
    "frame_position",
    "move_view",
    "outcome_view",
    "passes_view",
    "position_view",
    "towers",
]


# -- the wire's vocabulary: a square by name, a side by letter, a colour by name --


class OutcomeView(TypedDict):
    """How a round ended: ``winner`` a side, ``colour`` the winning tower's."""

    winner: str
    colour: str
    reason: str
    rings: int
    points: int


class PassView(TypedDict):
    """A pass the rules applied: the side, its blocked tower's colour, its square."""

    side: str
    colour: str
    square: str


class PositionView(TypedDict):
    """A position as the page draws it."""

    kpn: str
    towers: list[list[str | int]]
    turn: str
    must: str | None
    legal: dict[str, list[str]]
    outcome: OutcomeView | None
    passes: list[PassView]


class EntryView(TypedDict):
    """One entry of the move list, in the rulebook's notation."""

    side: str
    long: str
    short: str
    kind: str
    move: str | None


class RoundView(TypedDict):
    """One round of the move list."""

    number: int
    start: str
    fill: str | None
    entries: list[EntryView]
    result: OutcomeView | None


class TowerView(TypedDict):
    """A tower: its side, its colour and its rings (0 ordinary, 1 Sumo, ...)."""

    side: str
    colour: str
    rings: int


PushedView = TypedDict(
    "PushedView",
    {"side": str, "colour": str, "rings": int, "from": str, "to": str},
)
"""A tower pushed back by a Sumo: the tower, the square it stood on and the
square it was pushed to."""


class MoveView(TypedDict):
    """A move as the page shows it, worked out on the position before it: the
    square form, the tower that moves, the towers it pushes back (nearest
    first) and the move-list entries it writes."""

    move: str
    mover: TowerView
    push: bool
    pushed: list[PushedView]
    entries: list[EntryView]


class LastView(TypedDict, total=False):
    """The last action: a move (``move``, ``push``, ``passes``, ``outcome``
    and the :class:`MoveView` fields ``mover``, ``pushed``, ``entries``), a
    fill (``fill``), an early end (kind ``end``: ``reason`` resignation,
    time, abandonment or abort, ``side`` the side that resigned, ran out of
    time or left), or a takeback (kind ``takeback``: ``side`` who took back,
    ``count`` how many moves)."""

    kind: str
    side: str
    move: str
    push: bool
    mover: TowerView
    pushed: list[PushedView]
    entries: list[EntryView]
    passes: list[PassView]
    outcome: OutcomeView | None
    fill: str
    reason: str
    count: int


class ClockView(TypedDict):
    """A timed game's clocks: each side's ms left when the frame was made,
    whose clock runs, and the control (``{"initial", "increment"}`` or
    ``{"days"}``)."""

    b: int
    g: int
    running: str | None
    control: dict[str, Any]


class EndedView(TypedDict):
    """How a match stopped before its points decided it: ``reason``
    (``resignation``, ``time``, ``abort``) and the winner (none for an abort)."""

    reason: str
    winner: str | None


class SeatView(TypedDict):
    """Who plays a seat, whether someone holding it is connected (and for how
    long not: ``away_ms``), its player (public id) and rating (with its change
    by this game once rated, and whether it is provisional)."""

    kind: str
    name: str
    online: bool
    away_ms: int | None
    player: str | None
    rating: int | None
    rating_change: int | None
    provisional: bool
    #: the seat's player is a bot account (shown BOT)
    bot: bool


class OfferView(TypedDict):
    """An offer in a game, pending or declined: ``takeback`` or ``rematch``,
    by the side that made it."""

    kind: str
    by: str


class FillView(TypedDict):
    """In state ``fill``: who chooses, and both line-ups the choice gives."""

    chooser: str
    left: PositionView
    right: PositionView


def towers(pos: Position) -> list[list[str | int]]:
    """Every tower as ``[square, side, colour, rings]``, Black's first, each
    in colour order.

    >>> towers(Position())[0]
    ['a1', 'b', 'brown', 0]
    """
    return [
        [SQUARE_NAMES[pos.tower_square[t]], SIDE_LETTERS[t >> 3], COLOUR_NAMES[t & 7], pos.rings[t]]
        for t in range(16)
    ]


def outcome_view(o: Outcome | None) -> OutcomeView | None:
    """How a round ended (``None`` while it goes on)."""
    if o is None:
        return None
    return {
        "winner": SIDE_LETTERS[o.winner],
        "colour": COLOUR_NAMES[o.colour],
        "reason": o.reason,
        "rings": o.rings,
        "points": o.points,
    }


def _legal(pos: Position) -> dict[str, list[str]]:
    legal: dict[str, list[str]] = {}
    if pos.outcome is None:
        for code in pos.move_codes():  # the order of pos.legal_moves
            legal.setdefault(SQUARE_NAMES[code & 63], []).append(SQUARE_NAMES[code >> 6])
    return legal


def passes_view(pos: Position) -> list[PassView]:
    """The passes the rules applied after the last move."""
    return [
        {"side": SIDE_LETTERS[p.side], "colour": COLOUR_NAMES[p.colour], "square": SQUARE_NAMES[p.square]}
        for p in pos.passes()
    ]


def position_view(pos: Position) -> PositionView:
    """A position as the page draws it: KPN, towers, side to move, the tower
    that must move, legal destinations by square, the outcome if over.

    >>> v = position_view(Position())
    >>> v["turn"], v["must"], v["legal"]["c1"][:2]
    ('b', None, ['c2', 'c3'])
    """
    return {
        "kpn": pos.kpn(),
        "towers": towers(pos),
        "turn": SIDE_LETTERS[pos.turn],
        "must": None if pos.must_move < 0 else COLOUR_NAMES[pos.must_move],
        "legal": _legal(pos),
        "outcome": outcome_view(pos.outcome),
        "passes": passes_view(pos),
    }


def entry_view(e: Entry, move: Move | None = None) -> EntryView:
    """A move-list entry; ``move`` (square form) only for a move's own entry."""
    return {
        "side": SIDE_LETTERS[e.side],
        "long": e.long(),
        "short": e.short(),
        "kind": "pass" if e.is_pass else "back" if e.is_back else "move",
        "move": str(move) if move is not None and not (e.is_pass or e.is_back) else None,
    }


def move_view(pos: Position, move: Move) -> MoveView:
    """A legal ``move`` in ``pos`` as the page shows it, worked out on the
    position before the move (``pos`` is left as it was): the tower that
    moves (its rings before the move), whether it pushes, each tower it
    pushes back (nearest first, ``from`` the square it stood on, ``to`` the
    square it went to) and every entry the move writes in the move list
    (:func:`kamisado.rules.notation.move_entries`; the move's own entry carries
    ``move``).  An illegal move raises ``IllegalMoveError``.

    >>> v = move_view(Position(), Move.from_str("c1-c5"))
    >>> v["mover"], v["push"], v["pushed"], [e["long"] for e in v["entries"]]
    ({'side': 'b', 'colour': 'red', 'rings': 0}, False, [], ['Red Forward 4 Blue'])
    >>> fig9 = Position("1ng1r+o+1u/8/3y+4/3b2P+1/3G++4/7p/8/N+RY1UB1O b g 7 5 3")
    >>> v = move_view(fig9, Move.from_str("d4-d5"))
    >>> v["mover"], v["push"]
    ({'side': 'b', 'colour': 'green', 'rings': 2}, True)
    >>> [(p["colour"], p["rings"], p["from"], p["to"]) for p in v["pushed"]]
    [('blue', 0, 'd5', 'd6'), ('yellow', 1, 'd6', 'd7')]
    >>> [(e["short"], e["kind"], e["move"]) for e in v["entries"]]
    [('gF1', 'move', 'd4-d5'), ('yB1', 'back', None)]
    """
    pos.check_move(move)
    frm, to = move
    t = pos.board[frm]
    side = t >> 3
    pushed: list[PushedView] = []
    if pos.board[to] >= 0:
        # the run of towers from the destination straight on, each one square back
        ray = RAYS[side][FORWARD][frm]
        k = 0
        while pos.board[ray[k]] >= 0:
            p = pos.board[ray[k]]
            pushed.append(
                {
                    "side": SIDE_LETTERS[p >> 3],
                    "colour": COLOUR_NAMES[p & 7],
                    "rings": pos.rings[p],
                    "from": SQUARE_NAMES[ray[k]],
                    "to": SQUARE_NAMES[ray[k + 1]],
                }
            )
            k += 1
    return {
        "move": str(move),
        "mover": {"side": SIDE_LETTERS[side], "colour": COLOUR_NAMES[t & 7], "rings": pos.rings[t]},
        "push": bool(pushed),
        "pushed": pushed,
        "entries": [entry_view(e, move) for e in move_entries(pos, move)],
    }


def rounds_view(match: Match) -> list[RoundView]:
    """The move list of a match, round by round, as the page shows it: walked
    with :func:`kamisado.rules.record.match_entries`, as the record writer does.

    >>> m = Match(3)
    >>> _ = m.push_move("c1-c5")
    >>> [(r["number"], [e["long"] for e in r["entries"]]) for r in rounds_view(m)]
    [(1, ['Red Forward 4 Blue'])]
    """
    return [
        {
            "number": rnd.number,
            "start": rnd.round.start.kpn(),
            "fill": rnd.round.fill,
            "entries": [entry_view(e, ply.move) for ply in rnd.plies for e in ply.entries],
            "result": outcome_view(rnd.round.outcome),
        }
        for rnd in match_entries(match)
    ]


class _RoundCache:
    """One round of a :class:`MoveList`: the round it was built from (its
    start, by identity, and fill), the moves covered so far, the position
    after them and the entries they wrote."""

    __slots__ = ("start", "fill", "moves", "pos", "kpn", "entries", "outcome", "result", "view")

    def __init__(self, rnd: Round) -> None:
        self.start = rnd.start
        self.fill = rnd.fill
        self.moves: list[Move] = []
        self.pos: Position | None = rnd.start.copy(stack=False)
        self.kpn = rnd.start.kpn()
        self.entries: list[EntryView] = [entry_view(e) for e in start_entries(rnd)]
        self.outcome: Outcome | None = None
        self.result: OutcomeView | None = None
        #: the finished round's view (it never changes again)
        self.view: RoundView | None = None

    def fits(self, rnd: Round) -> bool:
        """Whether this is (a beginning of) ``rnd``."""
        if self.view is not None and rnd.outcome is not self.outcome:
            return False  # a finished round that is no longer this one
        n = len(self.moves)
        return (self.start is rnd.start and self.fill == rnd.fill and len(rnd.moves) >= n
                and (not n or (rnd.moves[n - 1] == self.moves[-1] and rnd.moves[:n] == self.moves)))


class MoveList:
    """The move list of a match (:func:`rounds_view`), kept up to date as the
    match goes on: each call works out only the moves made since the last
    one, and a finished round's view is kept as it is.  Anything else (a
    takeback, a match rebuilt) starts the rounds it changed again.

    >>> m = Match(3)
    >>> moves = MoveList()
    >>> _ = m.push_move("c1-c5")
    >>> moves.view(m) == rounds_view(m)
    True
    >>> _ = m.push_move("b8-b3")
    >>> [e["short"] for e in moves.view(m)[0]["entries"]]
    ['rF4', 'bF5']
    """

    __slots__ = ("_rounds",)

    def __init__(self) -> None:
        self._rounds: list[_RoundCache] = []

    def view(self, match: Match) -> list[RoundView]:
        """The move list of ``match``, as :func:`rounds_view` gives it."""
        cache = self._rounds
        out: list[RoundView] = []
        for i, rnd in enumerate(match.rounds):
            c = cache[i] if i < len(cache) else None
            if c is None or not c.fits(rnd):
                c = _RoundCache(rnd)
                del cache[i:]
                cache.append(c)
            if c.view is not None and c.outcome is rnd.outcome:
                out.append(c.view)
                continue
            if len(rnd.moves) > len(c.moves):
                pos = c.pos
                assert pos is not None
                for move in rnd.moves[len(c.moves):]:
                    c.entries.extend(entry_view(e, move) for e in move_entries(pos, move))
                    pos.push(move)
                    c.moves.append(move)
            if c.outcome is not rnd.outcome:
                c.outcome, c.result = rnd.outcome, outcome_view(rnd.outcome)
            view: RoundView = {"number": i + 1, "start": c.kpn, "fill": rnd.fill,
                               "entries": c.entries[:], "result": c.result}
            if rnd.outcome is not None:  # finished: kept as it is, without its position
                c.view, c.pos = view, None
            out.append(view)
        del cache[len(match.rounds):]
        return out


def frame_position(match: Match, ended: bool) -> tuple[PositionView, FillView | None]:
    """A match's position as a state frame shows it (no legal moves when
    the round or the match is over: ``ended``, an early end) and, while the
    round's winner chooses a fill, the choice.

    >>> position, fill = frame_position(Match(1), False)
    >>> position["turn"], len(position["legal"]), fill
    ('b', 8, None)
    """
    position = position_view(match.position)
    fill: FillView | None = None
    if match.state == FILL or ended:
        position["legal"] = {}
    if match.state == FILL and not ended:
        fill = {
            "chooser": SIDE_LETTERS[match.current_winner()],
            "left": position_view(match.next_round_start("left")),
            "right": position_view(match.next_round_start("right")),
        }
    return position, fill
