"""Challenges over HTTP (docs/web-bots.md, "Challenges"): a first-class
challenge of the lobby (:mod:`kamisado.web.community.lobby`), made,
accepted, declined and withdrawn by a program instead of a page.

An account's API challenges are held by one lobby connection of this
process that never closes (:meth:`ApiChallenges.conn`); each lives
:data:`API_CHALLENGE_S` unless answered (:meth:`ApiChallenges.expire`, on
the injected clock), and every rule of the lobby applies: blocks, the cap
of direct challenges waiting for one player, the open challenges one
player may hold.

>>> parse_body({"target": 3, "clock": {"initial": 180, "increment": 2}, "color": "black"}, "p2").color
'b'
>>> parse_body({"color": "purple"}, "p2")
Traceback (most recent call last):
...
kamisado.web.basics.messages.ProtocolError: challenge: expected color 'black', 'gold' or 'random', found 'purple'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from kamisado.web.basics.messages import ChallengeMsg, ProtocolError, parse_challenge
from kamisado.web.community.lobby import Challenge, Lobby
from kamisado.web.play.game import Conn
from kamisado.web.play.games import Hub

__all__ = ["API_CHALLENGE_S", "EXPIRE_EVERY_S", "ApiChallenges", "parse_body"]

log = logging.getLogger("kamisado.web")

#: How long a challenge made through the API waits for an answer (seconds).
API_CHALLENGE_S = 600.0
#: How often the challenges whose time ran out are withdrawn (seconds).
EXPIRE_EVERY_S = 5.0

_COLORS = {"black": "b", "gold": "g", "random": "random"}


def parse_body(body: dict[str, Any], to: str) -> ChallengeMsg:
    """A challenge's body (docs/web-bots.md) as the lobby's message to
    ``to``, or :class:`ProtocolError`."""
    color = body.get("color", "random")
    if color not in _COLORS:
        raise ProtocolError(f"challenge: expected color 'black', 'gold' or 'random', found {color!r}")
    return parse_challenge({**body, "color": _COLORS[color], "to": to})


async def _nothing(_frame: str) -> None:
    """An API challenge's connection is sent nothing: the event stream says what happens."""


class ApiChallenges:
    """This process's lobby connections of accounts that challenge over HTTP."""

    def __init__(self, hub: Hub, lobby: Lobby, clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.lobby = lobby
        self.clock = clock
        self.conns: dict[str, Conn] = {}
        self._task: asyncio.Task[None] | None = None

    def conn(self, player: str, name: str, bot: bool) -> Conn:
        """The connection that holds ``player``'s API challenges (its name
        and mark as now)."""
        conn = self.conns.get(player)
        if conn is None:
            conn = self.conns[player] = Conn(_nothing, player=player, registered=True)
        conn.name, conn.bot = name, bot
        return conn

    async def post(self, conn: Conn, msg: ChallengeMsg) -> Challenge:
        """Post ``msg`` for ``conn``'s player, withdrawn after :data:`API_CHALLENGE_S`."""
        challenge = await self.lobby.post(self.hub, conn, msg)
        challenge.expires = self.clock() + API_CHALLENGE_S
        self._watch()
        return challenge

    async def expire(self) -> list[str]:
        """Withdraw the API challenges whose time ran out; their ids."""
        return await self.lobby.expire(self.clock())

    def _watch(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._expiring())

    async def _expiring(self) -> None:
        """Withdraw the challenges whose time ran out, every :data:`EXPIRE_EVERY_S`,
        while there are any."""
        while any(c.expires is not None for c in self.lobby.challenges.values()):
            await asyncio.sleep(EXPIRE_EVERY_S)
            try:
                await self.expire()
            except Exception:
                log.exception("could not withdraw the challenges whose time ran out")

    async def close(self) -> None:
        """Stop withdrawing (the server stops)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
