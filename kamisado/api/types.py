"""The lines of the site's streams and the objects of its answers, as
docs/web-bots.md describes them (``TypedDict``: plain dicts, typed).

>>> line: Event = {"type": "gameStart", "game": {"id": "g1", "seat": "b"}}  # type: ignore[typeddict-item]
>>> line["game"]["seat"]
'b'
"""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = [
    "Challenge",
    "ChallengeClock",
    "Event",
    "Game",
    "GameEvent",
    "GameState",
    "Player",
]


class Player(TypedDict):
    """A player as every stream names one."""

    id: str
    name: str
    rating: int | None
    bot: bool


class ChallengeClock(TypedDict, total=False):
    """``{"initial": s, "increment": s}`` for a game on the clock,
    ``{"days": n}`` for a correspondence game."""

    initial: int
    increment: int
    days: int


class Challenge(TypedDict):
    """A challenge (``color`` is the challenger's side)."""

    id: str
    challenger: Player
    destUser: Player
    rated: bool
    clock: ChallengeClock | None
    target: int
    series: bool
    color: Literal["black", "gold", "random"]
    status: Literal["created", "canceled", "declined", "accepted"]


class Game(TypedDict, total=False):
    """A game on the event stream (``winner`` and ``reason`` in ``gameFinish``)."""

    id: str
    seat: Literal["b", "g"]
    opponent: Player
    rated: bool
    target: int
    clock: ChallengeClock | None
    winner: Literal["b", "g"] | None
    reason: str | None


class Event(TypedDict, total=False):
    """A line of ``GET /api/stream/event``: ``type`` says which key it carries
    (``challenge``, ``challengeCanceled``, ``challengeDeclined``: ``challenge``;
    ``gameStart``, ``gameFinish``: ``game``)."""

    type: str
    challenge: Challenge
    game: Game


class GameState(TypedDict, total=False):
    """A game's state: the position, whose turn it is at what, the clocks
    (milliseconds, ``None`` untimed) and how it ended."""

    seq: int
    round: int
    points: list[int]
    kpn: str
    start: str
    moves: list[str]
    to_act: Literal["b", "g"] | None
    awaiting: Literal["move", "fill"] | None
    legal: list[str]
    btime: int | None
    gtime: int | None
    binc: int | None
    ginc: int | None
    status: Literal["started", "finished"]
    winner: Literal["b", "g"] | None
    reason: str | None
    offer: dict[str, str] | None


class GameEvent(GameState, total=False):
    """A line of ``GET /api/bot/game/stream/{id}``: ``gameFull`` (the game,
    its players and ``state``) first, then ``gameState`` lines (a
    :class:`GameState` with ``type``)."""

    type: str
    id: str
    rated: bool
    target: int
    series: bool
    clock: ChallengeClock | None
    black: Player
    gold: Player
    seat: Literal["b", "g"] | None
    state: GameState
