"""Typed websocket messages both ways, and the wire's one vocabulary.

Every frame the page sends is a JSON object with a ``type``; :func:`parse`
turns it into one of the message classes below or raises
:class:`ProtocolError` with a clear reason (the server answers with an
``error`` frame and keeps the connection).  Every frame the server sends is
one of the frame classes (:class:`StateFrame`, :class:`CreatedFrame`,
:class:`ErrorFrame`, :class:`PongFrame`), turned into text by its
``to_json``.  Everywhere on the wire a square is its name (``c1``), a side
its letter (``b``/``g``) and a colour its name (``brown``): see
:func:`position_view`.  The protocol is documented in ``docs/web.md``.

>>> parse('{"type": "move", "move": "c1-c5", "seq": 0}')
MoveMsg(move='c1-c5', seq=0)
>>> parse('{"type": "fill", "direction": "up"}')
Traceback (most recent call last):
...
kamisado.web.messages.ProtocolError: fill: expected direction 'left' or 'right', found 'up'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypedDict

import orjson

from kamisado.engine.levels import LEVELS
from kamisado.rules.board import (
    COLOUR_NAMES,
    FORWARD,
    RAYS,
    SIDE_LETTERS,
    SQUARE_NAMES,
    TARGETS,
    Move,
    Outcome,
)
from kamisado.rules.match import FILL, FILLS, Match, Round
from kamisado.rules.notation import Entry, move_entries
from kamisado.rules.position import Position
from kamisado.rules.record import match_entries, start_entries
from kamisado.web.clocks import TimeControl, parse_control

__all__ = [
    "OFFER_ACTIONS",
    "AbortMsg",
    "AcceptMsg",
    "CancelMsg",
    "ChallengeMsg",
    "ClaimMsg",
    "LobbyFrame",
    "LobbyMsg",
    "OfferView",
    "RematchMsg",
    "StartedFrame",
    "TakebackMsg",
    "parse_challenge",
    "ClockView",
    "CreateMsg",
    "CreatedFrame",
    "EndedView",
    "EntryView",
    "ErrorFrame",
    "FillMsg",
    "FillView",
    "Frame",
    "JoinMsg",
    "LastView",
    "MoveList",
    "Message",
    "MoveMsg",
    "MoveView",
    "OutcomeView",
    "PassView",
    "PingMsg",
    "PongFrame",
    "PositionView",
    "ProtocolError",
    "PushedView",
    "ResignMsg",
    "RoundView",
    "SeatView",
    "StateFrame",
    "TowerView",
    "entry_view",
    "frame_position",
    "move_view",
    "outcome_view",
    "parse",
    "parse_create",
    "passes_view",
    "position_view",
    "towers",
]

#: Computer levels a seat may be played by, weakest first.
LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
#: What a seat may be: a person or a computer level.
SEAT_KINDS = ("human", *LEVEL_NAMES)

_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,40}")
_MOVE_RE = re.compile(r"[a-h][1-8]-[a-h][1-8]")
MAX_FRAME = 16_384
#: ``you`` of a state frame, written once
_YOU = {(): "[]", ("b",): '["b"]', ("g",): '["g"]', ("b", "g"): '["b","g"]'}


class ProtocolError(ValueError):
    """A frame that is not a valid message; ``code`` is a stable short name."""

    def __init__(self, message: str, code: str = "malformed") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class JoinMsg:
    """Watch a game, or play it when ``token`` is a seat's secret token."""

    game: str
    token: str | None = None


@dataclass(frozen=True)
class MoveMsg:
    """Play a move in square form; ``seq`` (optional) is the action count the
    sender saw, so a move sent against a stale position is refused."""

    move: str
    seq: int | None = None


@dataclass(frozen=True)
class FillMsg:
    """The round's winner fills ``left`` or ``right``."""

    direction: str
    seq: int | None = None


@dataclass(frozen=True)
class PingMsg:
    """Keep-alive; answered with ``pong``."""


@dataclass(frozen=True)
class CreateMsg:
    """Create a game (also ``POST /api/games``).

    ``black``/``gold`` are ``human`` or a computer level; ``online`` gives
    each human seat its own token (otherwise one token holds both seats,
    as in a hotseat game); ``delay`` is the pause in seconds before a
    computer move (for watching computer against computer).
    """

    black: str = "human"
    gold: str = "human"
    target: int = 1
    series: bool = False
    online: bool = False
    black_name: str = ""
    gold_name: str = ""
    delay: float = 0.0
    clock: TimeControl | None = None
    #: in an online game, the creator's seat (``b``/``g``): it is bound to the
    #: creating player at once, the other one waits for the invite's claim
    seat: str | None = None
    #: rated (Glicko-2): online, two people, a clock, a creator with an account
    rated: bool = False


@dataclass(frozen=True)
class ResignMsg:
    """The sender's side gives up the match (in a hotseat game, holding
    both seats: the side to act)."""

    seq: int | None = None


@dataclass(frozen=True)
class AbortMsg:
    """Call the game off before both sides have moved; never rated."""

    seq: int | None = None


#: What an offer message may do: make one, accept or decline the other side's
#: (``decline`` also withdraws one's own).
OFFER_ACTIONS = ("offer", "accept", "decline")


@dataclass(frozen=True)
class TakebackMsg:
    """Take back the sender's last move: at once in a hotseat game or
    against the computer, else an offer the opponent answers."""

    action: str = "offer"


@dataclass(frozen=True)
class RematchMsg:
    """Once the match is over: the same game again, colours swapped."""

    action: str = "offer"


@dataclass(frozen=True)
class ClaimMsg:
    """Claim the win: a real-time opponent has been away long enough."""


@dataclass(frozen=True)
class LobbyMsg:
    """Follow the lobby's open challenges (``watch``), or stop."""

    watch: bool = True


@dataclass(frozen=True)
class ChallengeMsg:
    """Post an open challenge to the lobby."""

    target: int = 1
    series: bool = False
    clock: TimeControl | None = None
    rated: bool = False
    color: str = "random"


@dataclass(frozen=True)
class CancelMsg:
    """Withdraw one's own challenge."""

    challenge: str


@dataclass(frozen=True)
class AcceptMsg:
    """Accept another player's challenge."""

    challenge: str


Message = (
    JoinMsg | MoveMsg | FillMsg | PingMsg | CreateMsg | ResignMsg | AbortMsg
    | TakebackMsg | RematchMsg | ClaimMsg | LobbyMsg | ChallengeMsg | CancelMsg | AcceptMsg
)


def _get(obj: dict[str, Any], key: str, kind: type, what: str, default: Any = ...) -> Any:
    if key not in obj:
        if default is ...:
            raise ProtocolError(f"{what}: missing field {key!r}")
        return default
    value = obj[key]
    if kind is int and isinstance(value, bool):
        raise ProtocolError(f"{what}: expected {key} to be an integer, found {value!r}")
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind):
        raise ProtocolError(
            f"{what}: expected {key} to be {kind.__name__}, found {type(value).__name__}"
        )
    return value


def _seq(obj: dict[str, Any], what: str) -> int | None:
    seq = _get(obj, "seq", int, what, None) if obj.get("seq") is not None else None
    if seq is not None and seq < 0:
        raise ProtocolError(f"{what}: expected seq >= 0, found {seq}")
    return seq


def parse_create(obj: dict[str, Any]) -> CreateMsg:
    """Read the fields of a game-creation request (a JSON object).

    >>> parse_create({"black": "human", "gold": "club", "target": 3})
    CreateMsg(black='human', gold='club', target=3, series=False, online=False, black_name='', gold_name='', delay=0.0, clock=None, seat=None, rated=False)
    """
    what = "create"
    black = _get(obj, "black", str, what, "human")
    gold = _get(obj, "gold", str, what, "human")
    for seat, kind in (("black", black), ("gold", gold)):
        if kind not in SEAT_KINDS:
            raise ProtocolError(
                f"{what}: expected {seat} to be one of {', '.join(SEAT_KINDS)}, found {kind!r}"
            )
    target = _get(obj, "target", int, what, 1)
    series = _get(obj, "series", bool, what, False)
    if series:
        if not 1 <= target <= 99:
            raise ProtocolError(f"{what}: expected a series of 1 to 99 rounds, found {target}")
    elif target not in TARGETS:
        raise ProtocolError(f"{what}: expected target 1, 3, 7 or 15, found {target}")
    online = _get(obj, "online", bool, what, False)
    if online and "human" not in (black, gold):
        raise ProtocolError(f"{what}: an online game needs at least one human seat")
    names = []
    for key in ("black_name", "gold_name"):
        name = _get(obj, key, str, what, "").strip()
        if len(name) > 40 or any(c in name for c in "\r\n"):
            raise ProtocolError(f"{what}: expected {key} of at most 40 characters on one line")
        names.append(name)
    delay = _get(obj, "delay", float, what, 0.0)
    if not 0.0 <= delay <= 10.0:
        raise ProtocolError(f"{what}: expected delay between 0 and 10 seconds, found {delay}")
    try:
        clock = parse_control(obj.get("clock"))
    except ValueError as exc:
        raise ProtocolError(f"{what}: {exc}") from None
    rated = _get(obj, "rated", bool, what, False)
    if rated and not (online and black == gold == "human"):
        raise ProtocolError(f"{what}: a rated game is an online game between two people")
    if rated and clock is None:
        raise ProtocolError(f"{what}: a rated game needs a clock")
    mine: str | None = _get(obj, "seat", str, what, None) if obj.get("seat") is not None else None
    if mine is not None:
        if mine not in SIDE_LETTERS:
            raise ProtocolError(f"{what}: expected seat 'b' or 'g', found {mine!r}")
        if (black, gold)[SIDE_LETTERS.index(mine)] != "human":
            raise ProtocolError(f"{what}: the seat {mine!r} is the computer's")
    return CreateMsg(black, gold, target, series, online, names[0], names[1], delay, clock, mine, rated)


def parse_challenge(obj: dict[str, Any]) -> ChallengeMsg:
    """Read a lobby challenge (a JSON object).

    >>> parse_challenge({"target": 3, "clock": {"initial": 300, "increment": 3}, "color": "b"})
    ChallengeMsg(target=3, series=False, clock=TimeControl(initial=300.0, increment=3.0, days=0), rated=False, color='b')
    >>> parse_challenge({"rated": True})
    Traceback (most recent call last):
    ...
    kamisado.web.messages.ProtocolError: challenge: a rated game needs a clock
    """
    what = "challenge"
    target = _get(obj, "target", int, what, 1)
    series = _get(obj, "series", bool, what, False)
    if series:
        if not 1 <= target <= 99:
            raise ProtocolError(f"{what}: expected a series of 1 to 99 rounds, found {target}")
    elif target not in TARGETS:
        raise ProtocolError(f"{what}: expected target 1, 3, 7 or 15, found {target}")
    try:
        clock = parse_control(obj.get("clock"))
    except ValueError as exc:
        raise ProtocolError(f"{what}: {exc}") from None
    rated = _get(obj, "rated", bool, what, False)
    if rated and clock is None:
        raise ProtocolError(f"{what}: a rated game needs a clock")
    color = _get(obj, "color", str, what, "random")
    if color not in ("b", "g", "random"):
        raise ProtocolError(f"{what}: expected color 'b', 'g' or 'random', found {color!r}")
    return ChallengeMsg(target, series, clock, rated, color)


def parse(frame: str | bytes) -> Message:
    """Read one frame into a typed message, or raise :class:`ProtocolError`.

    >>> parse('{"type": "join", "game": "abc123"}')
    JoinMsg(game='abc123', token=None)
    >>> parse('{"type": "dance"}')
    Traceback (most recent call last):
    ...
    kamisado.web.messages.ProtocolError: unknown message type 'dance'
    """
    if len(frame) > MAX_FRAME:
        raise ProtocolError(f"frame too long ({len(frame)} bytes, at most {MAX_FRAME})")
    try:
        obj = json.loads(frame)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"expected a JSON object, found invalid JSON ({exc})") from None
    except RecursionError:  # arrays or objects nested thousands deep
        raise ProtocolError("expected a JSON object, found JSON nested too deep") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"expected a JSON object, found {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("expected a string field 'type'")
    if kind == "join":
        game = _get(obj, "game", str, kind)
        if not _ID_RE.fullmatch(game):
            raise ProtocolError(f"join: expected a game id, found {game!r}")
        token = _get(obj, "token", str, kind, None) if obj.get("token") is not None else None
        return JoinMsg(game, token or None)
    if kind == "move":
        move = _get(obj, "move", str, kind)
        if not _MOVE_RE.fullmatch(move):
            raise ProtocolError(f"move: expected a move in square form like 'c1-c5', found {move!r}")
        return MoveMsg(move, _seq(obj, kind))
    if kind == "fill":
        direction = _get(obj, "direction", str, kind)
        if direction not in FILLS:
            raise ProtocolError(f"fill: expected direction 'left' or 'right', found {direction!r}")
        return FillMsg(direction, _seq(obj, kind))
    if kind == "ping":
        return PingMsg()
    if kind == "resign":
        return ResignMsg(_seq(obj, kind))
    if kind == "abort":
        return AbortMsg(_seq(obj, kind))
    if kind == "create":
        return parse_create(obj)
    if kind in ("takeback", "rematch"):
        action = _get(obj, "action", str, kind, "offer")
        if action not in OFFER_ACTIONS:
            raise ProtocolError(f"{kind}: expected action 'offer', 'accept' or 'decline', found {action!r}")
        return TakebackMsg(action) if kind == "takeback" else RematchMsg(action)
    if kind == "claim":
        return ClaimMsg()
    if kind == "lobby":
        return LobbyMsg(_get(obj, "watch", bool, kind, True))
    if kind == "challenge":
        return parse_challenge(obj)
    if kind in ("cancel", "accept"):
        challenge = _get(obj, "challenge", str, kind)
        if not _ID_RE.fullmatch(challenge):
            raise ProtocolError(f"{kind}: expected a challenge id, found {challenge!r}")
        return CancelMsg(challenge) if kind == "cancel" else AcceptMsg(challenge)
    raise ProtocolError(f"unknown message type {kind!r}", "unknown")


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
    long not: ``away_ms``), its player (public id) and rating."""

    kind: str
    name: str
    online: bool
    away_ms: int | None
    player: str | None
    rating: int | None
    rating_change: int | None


class OfferView(TypedDict):
    """An offer pending in a game: ``takeback`` or ``rematch``, by a side."""

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


# -- frames the server sends: one type each, one ``to_json`` each ----------------


@dataclass(frozen=True)
class ErrorFrame:
    """A refused frame or action; ``code`` is a stable short name.

    >>> ErrorFrame("illegal", "a1-a2: not your turn").to_json()
    '{"type": "error", "code": "illegal", "message": "a1-a2: not your turn"}'
    """

    code: str
    message: str

    def to_json(self) -> str:
        return json.dumps({"type": "error", "code": self.code, "message": self.message})


@dataclass(frozen=True)
class PongFrame:
    """The answer to ``ping``.

    >>> PongFrame().to_json()
    '{"type":"pong"}'
    """

    def to_json(self) -> str:
        return '{"type":"pong"}'


@dataclass(frozen=True)
class CreatedFrame:
    """A game made by a ``create`` message: its id and the seats' tokens.

    >>> CreatedFrame("abc", {"b": "t1"}).to_json()
    '{"type": "created", "game": "abc", "tokens": {"b": "t1"}}'
    """

    game: str
    tokens: dict[str, str]

    def to_json(self) -> str:
        return json.dumps({"type": "created", "game": self.game, "tokens": self.tokens})


@dataclass(frozen=True)
class StateFrame:
    """A game's whole state, as every connection on it is sent it after each
    action; only ``you`` (the seats the connection holds) differs between
    connections, so the rest is written once (:meth:`to_json`)."""

    game: str
    seq: int
    name: str
    target: int
    series: bool
    online_game: bool
    points: list[int]
    state: str
    winner: str | None
    round: int
    to_act: str | None
    seats: dict[str, SeatView]
    thinking: bool
    last: LastView | None
    rounds: list[RoundView]
    fill: FillView | None
    position: PositionView
    clock: ClockView | None = None
    ended: EndedView | None = None
    rated: bool = False
    offer: OfferView | None = None
    rematch: str | None = None
    claim_after_ms: int | None = None
    #: per side letter, the moves a takeback by that side would take back
    #: now (0: none; :meth:`kamisado.web.games.Game.takeback_count`)
    takeback: dict[str, int] = field(default_factory=dict)

    def fields(self) -> dict[str, Any]:
        """The frame as a JSON object, without ``you``."""
        return {
            "type": "state",
            "game": self.game,
            "seq": self.seq,
            "name": self.name,
            "target": self.target,
            "series": self.series,
            "online_game": self.online_game,
            "points": self.points,
            "state": self.state,
            "winner": self.winner,
            "round": self.round,
            "to_act": self.to_act,
            "seats": self.seats,
            "thinking": self.thinking,
            "last": self.last,
            "rounds": self.rounds,
            "fill": self.fill,
            "clock": self.clock,
            "ended": self.ended,
            "rated": self.rated,
            "offer": self.offer,
            "rematch": self.rematch,
            "claim_after_ms": self.claim_after_ms,
            "takeback": self.takeback,
            **self.position,
        }

    @cached_property
    def _head(self) -> str:
        return orjson.dumps(self.fields()).decode()[:-1]

    def to_json(self, you: Sequence[str] = ()) -> str:
        """The frame for a connection holding the seats ``you`` (``b``, ``g``)."""
        return f'{self._head},"you":{_YOU.get(tuple(you)) or orjson.dumps(list(you)).decode()}}}'


@dataclass(frozen=True)
class StartedFrame:
    """A game made for this connection by the lobby or a rematch: the page
    opens it (``tokens``: the seats of a connection that is no player).

    >>> StartedFrame("abc").to_json()
    '{"type": "started", "game": "abc", "tokens": {}}'
    """

    game: str
    tokens: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"type": "started", "game": self.game, "tokens": self.tokens})


@dataclass(frozen=True)
class LobbyFrame:
    """The lobby's open challenges, as one connection sees them (``mine``).

    >>> LobbyFrame([]).to_json()
    '{"type": "lobby", "challenges": []}'
    """

    challenges: list[dict[str, Any]]

    def to_json(self) -> str:
        return json.dumps({"type": "lobby", "challenges": self.challenges})


Frame = StateFrame | CreatedFrame | ErrorFrame | PongFrame | StartedFrame | LobbyFrame
