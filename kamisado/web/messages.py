"""Typed websocket messages and the one function that reads them.

Every frame the page sends is a JSON object with a ``type``; :func:`parse`
turns it into one of the message classes below or raises
:class:`ProtocolError` with a clear reason (the server answers with an
``error`` frame and keeps the connection).  Frames the server sends are
built by the ``*_frame`` helpers.  The protocol is documented in
``docs/web.md``.

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
from dataclasses import dataclass
from typing import Any

from kamisado.players import LEVELS

__all__ = [
    "CreateMsg",
    "FillMsg",
    "JoinMsg",
    "Message",
    "MoveMsg",
    "PingMsg",
    "ProtocolError",
    "error_frame",
    "parse",
    "parse_create",
]

#: Computer levels a seat may be played by, weakest first.
LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
#: What a seat may be: a person or a computer level.
SEAT_KINDS = ("human", *LEVEL_NAMES)

_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,40}")
_MOVE_RE = re.compile(r"[a-h][1-8]-[a-h][1-8]")
MAX_FRAME = 16_384


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


Message = JoinMsg | MoveMsg | FillMsg | PingMsg | CreateMsg


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
    CreateMsg(black='human', gold='club', target=3, series=False, online=False, black_name='', gold_name='', delay=0.0)
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
    elif target not in (1, 3, 7, 15):
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
    return CreateMsg(black, gold, target, series, online, names[0], names[1], delay)


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
        if direction not in ("left", "right"):
            raise ProtocolError(f"fill: expected direction 'left' or 'right', found {direction!r}")
        return FillMsg(direction, _seq(obj, kind))
    if kind == "ping":
        return PingMsg()
    if kind == "create":
        return parse_create(obj)
    raise ProtocolError(f"unknown message type {kind!r}", "unknown")


def error_frame(code: str, message: str) -> dict[str, Any]:
    """An ``error`` frame.

    >>> error_frame("illegal", "a1-a2: not your turn")
    {'type': 'error', 'code': 'illegal', 'message': 'a1-a2: not your turn'}
    """
    return {"type": "error", "code": code, "message": message}
