"""Typed websocket messages both ways: the frames the page sends, and those it gets.

Every frame the page sends is a JSON object with a ``type``; :func:`parse`
turns it into one of the message classes below or raises
:class:`ProtocolError` with a clear reason (the server answers with an
``error`` frame and keeps the connection).  Every frame the server sends is
one of the frame classes (:class:`StateFrame`, :class:`CreatedFrame`,
:class:`ErrorFrame`, :class:`PongFrame`, :class:`RestartingFrame`, ...), turned into text by its
``to_json``.  Everywhere on the wire a square is its name (``c1``), a side
its letter (``b``/``g``) and a colour its name (``brown``): the views the
frames carry are in :mod:`kamisado.web.basics.views`.  The protocol is documented in ``docs/web.md``.

>>> parse('{"type": "move", "move": "c1-c5", "seq": 0}')
MoveMsg(move='c1-c5', seq=0)
>>> parse('{"type": "fill", "direction": "up"}')
Traceback (most recent call last):
...
kamisado.web.basics.messages.ProtocolError: fill: expected direction 'left' or 'right', found 'up'
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson

from kamisado.engine.levels import LEVELS
from kamisado.rules.board import (
    SIDE_LETTERS,
    TARGETS,
)
from kamisado.rules.match import FILLS
from kamisado.web.basics.clocks import QUICK_SPEEDS, TimeControl, parse_control
from kamisado.web.basics.text import (
    UnstorableText,
    check_storable,
    unseeable,
    unstorable_char,
)
from kamisado.web.basics.views import (
    ClockView,
    EndedView,
    FillView,
    LastView,
    OfferView,
    PositionView,
    RoundView,
    SeatView,
)

__all__ = [
    "STATUS_CODES",
    "Refusal",
    "error_body",
    "OFFER_ACTIONS",
    "AbortMsg",
    "AcceptMsg",
    "CANNED",
    "CHAT_MAX",
    "CancelMsg",
    "ChallengeMsg",
    "ChatFrame",
    "ChatMsg",
    "ClaimMsg",
    "DeclineMsg",
    "LobbyFrame",
    "LobbyMsg",
    "NoticesMsg",
    "RematchMsg",
    "SeekMsg",
    "StartedFrame",
    "TakebackMsg",
    "UnseekMsg",
    "parse_challenge",
    "CreateMsg",
    "CreatedFrame",
    "ErrorFrame",
    "FillMsg",
    "Frame",
    "JoinMsg",
    "Message",
    "MoveMsg",
    "PingMsg",
    "PongFrame",
    "ProtocolError",
    "ResignMsg",
    "RestartingFrame",
    "StateFrame",
    "parse",
    "parse_chat",
    "parse_create",
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
    """Watch a game, or play it when ``token`` is a seat's secret token.
    ``thinks``: the page runs the engine itself (WebAssembly) and sends the
    computer's moves of a game against the computer whose person's seat it
    holds (:class:`ComputerMoveMsg`); the server thinks only when no such
    move comes in time."""

    game: str
    token: str | None = None
    thinks: bool = False


@dataclass(frozen=True)
class MoveMsg:
    """Play a move in square form; ``seq`` (optional) is the action count the
    sender saw, so a move sent against a stale position is refused."""

    move: str
    seq: int | None = None


@dataclass(frozen=True)
class ComputerMoveMsg:
    """The computer's action found by the page's engine, for the computer's
    seat of a game against the computer whose person's seat the sender holds:
    a move in square form or a fill (``left``/``right``), at action ``seq``
    (required: the page thought about that position)."""

    action: str
    seq: int


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
    #: a direct challenge: the one player it is for (not listed in the lobby)
    to: str | None = None


@dataclass(frozen=True)
class SeekMsg:
    """Quick pairing: seek a game at one of the lobby's speeds
    (:data:`kamisado.web.basics.clocks.QUICK_SPEEDS`), rated or casual."""

    speed: str
    rated: bool = False


@dataclass(frozen=True)
class UnseekMsg:
    """Cancel the connection's seek."""


@dataclass(frozen=True)
class NoticesMsg:
    """Follow the notices of the connection's player: the direct challenges
    to it (answered with ``notices``, then ``challenged`` and ``withdrawn``
    as they come)."""


@dataclass(frozen=True)
class DeclineMsg:
    """Decline a direct challenge made to one's player."""

    challenge: str


@dataclass(frozen=True)
class CancelMsg:
    """Withdraw one's own challenge."""

    challenge: str


@dataclass(frozen=True)
class AcceptMsg:
    """Accept another player's challenge."""

    challenge: str


#: The longest chat message, in characters (code points).
CHAT_MAX = 140
#: The canned chat messages' codes: each reader's page says them in its own language.
CANNED = ("hello", "good_luck", "good_game", "thanks")


@dataclass(frozen=True)
class ChatMsg:
    """Say something in the game's chat: ``text`` (one line, 1 to
    :data:`CHAT_MAX` characters) or ``canned``, a code of :data:`CANNED`.
    The room is the sender's: a seat holder's goes to the players' room,
    a spectator's to the spectators' room (:mod:`kamisado.web.play.chat`)."""

    text: str | None = None
    canned: str | None = None


Message = (
    JoinMsg | MoveMsg | FillMsg | ComputerMoveMsg | PingMsg | CreateMsg | ResignMsg | AbortMsg
    | TakebackMsg | RematchMsg | ClaimMsg | LobbyMsg | ChallengeMsg | CancelMsg | AcceptMsg
    | ChatMsg
    | NoticesMsg | DeclineMsg | SeekMsg | UnseekMsg
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
        problem = unseeable(name, "a name") if name else None
        if problem is not None:
            raise ProtocolError(f"{what}: {key}: {problem}")
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
    ChallengeMsg(target=3, series=False, clock=TimeControl(initial=300.0, increment=3.0, days=0), rated=False, color='b', to=None)
    >>> parse_challenge({"rated": True})
    Traceback (most recent call last):
    ...
    kamisado.web.basics.messages.ProtocolError: challenge: a rated game needs a clock
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
    to: str | None = None
    if obj.get("to") is not None:
        to = _get(obj, "to", str, what)
        if not _ID_RE.fullmatch(to):
            raise ProtocolError(f"{what}: expected a player id in 'to', found {to!r}")
    return ChallengeMsg(target, series, clock, rated, color, to)


def parse_chat(obj: dict[str, Any]) -> ChatMsg:
    """Read a chat message (a JSON object): text or a canned code, not both.

    >>> parse_chat({"text": "  good luck! "})
    ChatMsg(text='good luck!', canned=None)
    >>> parse_chat({"canned": "good_game"})
    ChatMsg(text=None, canned='good_game')
    >>> parse_chat({"text": "x" * 141})
    Traceback (most recent call last):
    ...
    kamisado.web.basics.messages.ProtocolError: chat: expected at most 140 characters, found 141
    >>> parse_chat({"text": "\\u200b"})
    Traceback (most recent call last):
    ...
    kamisado.web.basics.messages.ProtocolError: chat: a chat line needs a visible character
    """
    what = "chat"
    text = _get(obj, "text", str, what, None) if obj.get("text") is not None else None
    canned = _get(obj, "canned", str, what, None) if obj.get("canned") is not None else None
    if (text is None) == (canned is None):
        raise ProtocolError(f"{what}: expected either text or canned")
    if canned is not None:
        if canned not in CANNED:
            raise ProtocolError(f"{what}: expected canned to be one of {', '.join(CANNED)}, found {canned!r}")
        return ChatMsg(canned=canned)
    assert text is not None
    text = text.strip()
    if not text:
        raise ProtocolError(f"{what}: the message is empty")
    if len(text) > CHAT_MAX:
        raise ProtocolError(f"{what}: expected at most {CHAT_MAX} characters, found {len(text)}")
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text):
        raise ProtocolError(f"{what}: expected one line of text, without control characters")
    problem = unseeable(text, "a chat line")
    if problem is not None:
        raise ProtocolError(f"{what}: {problem}")
    return ChatMsg(text=text)


def parse_computer_move(obj: dict[str, Any]) -> ComputerMoveMsg:
    """Read a ``computer_move`` frame: exactly one of ``move`` (square form)
    and ``direction`` (a fill), and ``seq``."""
    what = "computer_move"
    if ("move" in obj) == ("direction" in obj):
        raise ProtocolError(f"{what}: expected one of the fields 'move' (a move) and 'direction' (a fill)")
    if "move" in obj:
        action = _get(obj, "move", str, what)
        if not _MOVE_RE.fullmatch(action):
            raise ProtocolError(f"{what}: expected a move in square form like 'c1-c5', found {action!r}")
    else:
        action = _get(obj, "direction", str, what)
        if action not in FILLS:
            raise ProtocolError(f"{what}: expected direction 'left' or 'right', found {action!r}")
    seq = _seq(obj, what)
    if seq is None:
        raise ProtocolError(f"{what}: missing field 'seq' (the action the page thought about)")
    return ComputerMoveMsg(action, seq)


def parse(frame: str | bytes) -> Message:
    """Read one frame into a typed message, or raise :class:`ProtocolError`.

    >>> parse('{"type": "join", "game": "abc123"}')
    JoinMsg(game='abc123', token=None, thinks=False)
    >>> parse('{"type": "computer_move", "move": "a1-a4", "seq": 0}')
    ComputerMoveMsg(action='a1-a4', seq=0)
    >>> parse('{"type": "dance"}')
    Traceback (most recent call last):
    ...
    kamisado.web.basics.messages.ProtocolError: unknown message type 'dance'
    >>> parse('{"type": "create", "black_name": "\\ud800"}')
    Traceback (most recent call last):
    ...
    kamisado.web.basics.messages.ProtocolError: create: black_name holds a lone surrogate (\\ud800), which is not text
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
    try:  # text no store can hold (NUL, a lone surrogate) is refused here, its field named
        check_storable(obj, kind if isinstance(kind, str) and unstorable_char(kind) is None else "frame")
    except UnstorableText as exc:
        raise ProtocolError(str(exc)) from None
    if not isinstance(kind, str):
        raise ProtocolError("expected a string field 'type'")
    if kind == "join":
        game = _get(obj, "game", str, kind)
        if not _ID_RE.fullmatch(game):
            raise ProtocolError(f"join: expected a game id, found {game!r}")
        token = _get(obj, "token", str, kind, None) if obj.get("token") is not None else None
        return JoinMsg(game, token or None, _get(obj, "thinks", bool, kind, False))
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
    if kind == "computer_move":
        return parse_computer_move(obj)
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
    if kind == "notices":
        return NoticesMsg()
    if kind == "seek":
        speed = _get(obj, "speed", str, kind)
        if speed not in QUICK_SPEEDS:
            raise ProtocolError(f"seek: expected speed to be one of {', '.join(QUICK_SPEEDS)}, found {speed!r}")
        return SeekMsg(speed, _get(obj, "rated", bool, kind, False))
    if kind == "unseek":
        return UnseekMsg()
    if kind in ("cancel", "accept", "decline"):
        challenge = _get(obj, "challenge", str, kind)
        if not _ID_RE.fullmatch(challenge):
            raise ProtocolError(f"{kind}: expected a challenge id, found {challenge!r}")
        if kind == "decline":
            return DeclineMsg(challenge)
        return CancelMsg(challenge) if kind == "cancel" else AcceptMsg(challenge)
    if kind == "chat":
        return parse_chat(obj)
    raise ProtocolError(f"unknown message type {kind!r}", "unknown")


# -- frames the server sends: one type each, one ``to_json`` each ----------------


#: The code of an error answer that names none, by its status: the page
#: says one generic line for each (``docs/web-page.md``, Words).
STATUS_CODES = {429: "rate_limited", 503: "unavailable"}


def error_body(message: str, status: int = 400, code: str | None = None,
               args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON of an error answer: the English ``error`` as before, and a
    stable ``code`` (with its ``args``: numbers, names, details) the page
    says in its own language.

    >>> error_body("wrong account name or password", 401, "wrong_password")
    {'error': 'wrong account name or password', 'code': 'wrong_password'}
    >>> error_body("busy", 503)
    {'error': 'busy', 'code': 'unavailable'}
    >>> error_body("no player 'x'", 404, "no_player", {"player": "x"})
    {'error': "no player 'x'", 'code': 'no_player', 'args': {'player': 'x'}}
    """
    body: dict[str, Any] = {"error": message}
    code = code or STATUS_CODES.get(status)
    if code:
        body["code"] = code
    if args:
        body["args"] = args
    return body


class Refusal(ValueError):
    """A request refused: ``status`` is the HTTP status, ``code`` and
    ``details`` what the page says in its language (the answer's ``code``
    and ``args``, :func:`error_body`).  The accounts' and the moderators'
    refusals are its kinds.

    >>> exc = Refusal("no such token", 404, "no_token")
    >>> error_body(str(exc), exc.status, exc.code, exc.details)
    {'error': 'no such token', 'code': 'no_token'}
    """

    def __init__(self, message: str, status: int = 400, code: str | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.details = details


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
class RestartingFrame:
    """Sent to every websocket when the server stops (SIGTERM): it stores
    nothing more and closes the connection once what it was storing is
    stored; the page says so and reconnects (to another process behind a
    proxy, or to this server once it is back).

    >>> RestartingFrame().to_json()
    '{"type":"restarting"}'
    """

    def to_json(self) -> str:
        return '{"type":"restarting"}'


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
    #: the offer the opponent declined last (kept until the next action, so
    #: the asker is told also after a reload; :meth:`GameState.declined`)
    declined: OfferView | None = None
    rematch: str | None = None
    claim_after_ms: int | None = None
    #: per side letter, the moves a takeback by that side would take back
    #: now (0: none; :meth:`kamisado.web.play.state.GameState.takeback_count`)
    takeback: dict[str, int] = field(default_factory=dict)
    #: while the game waits for a computer's action, the seed the server's
    #: player of that level is given for it (the game's seed plus ``seq``):
    #: a page that thinks for it (``computer_move``) finds the server's very move
    seed: int | None = None

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
            "declined": self.declined,
            "rematch": self.rematch,
            "claim_after_ms": self.claim_after_ms,
            "takeback": self.takeback,
            "seed": self.seed,
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


@dataclass(frozen=True)
class ChatFrame:
    """A game's chat messages of one room, as the connection may read them:
    every message kept (``replace``: on joining) or those new.  Each
    message: ``id``, ``at`` (seconds since the epoch), ``name``, ``side``
    (the writer's seat in the players' room, else ``null``), and ``text``
    or ``canned`` (the other ``null``).

    >>> ChatFrame("abc", "players", [], True).to_json()
    '{"type": "chat", "game": "abc", "room": "players", "messages": [], "replace": true}'
    """

    game: str
    room: str
    messages: list[dict[str, Any]]
    replace: bool = False

    def to_json(self) -> str:
        return json.dumps({"type": "chat", "game": self.game, "room": self.room,
                           "messages": self.messages, "replace": self.replace})


Frame = ChatFrame | StateFrame | CreatedFrame | ErrorFrame | PongFrame | StartedFrame | LobbyFrame | RestartingFrame
