"""The lobby: open challenges, live (docs/web.md, "The lobby").

A player posts a challenge (match type, clock, rated or casual, colour) over
its websocket; every connection following the lobby is sent the list again
each time it changes, each with its own ``mine`` marks.  A challenge lives
as long as the connection that posted it: when that connection stops
following the lobby or closes, its challenges are withdrawn.  Accepting one
makes an online game with both seats bound to the two players (the
creator's by :meth:`Hub.create`, the acceptor's by the store's one-time
claim), and both connections are sent ``started``.

The lobby is in the server's memory, like the connections it belongs to.

>>> lobby = Lobby()
>>> lobby.challenges
{}
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from kamisado.core import SIDE_LETTERS
from kamisado.match import Match
from kamisado.web.clocks import TimeControl
from kamisado.web.games import Conn, GameError, Hub
from kamisado.web.messages import (
    AcceptMsg,
    CancelMsg,
    ChallengeMsg,
    CreateMsg,
    LobbyFrame,
    LobbyMsg,
    StartedFrame,
)
from kamisado.web.ratings import Rating, speed_of
from kamisado.web.storage import new_id

__all__ = ["MAX_CHALLENGES", "Challenge", "Lobby"]

log = logging.getLogger("kamisado.web")

#: Open challenges one player may have at once.
MAX_CHALLENGES = 3


def control_view(clock: TimeControl | None) -> dict[str, Any] | None:
    """A time control as ``create`` takes it (``None``: untimed)."""
    if clock is None:
        return None
    if clock.days:
        return {"days": clock.days}
    return {"initial": clock.initial, "increment": clock.increment}


@dataclass(eq=False)
class Challenge:
    """An open challenge and the connection that posted it."""

    id: str
    conn: Conn
    player: str
    name: str
    rating: int | None
    msg: ChallengeMsg
    created: float = field(default_factory=time.time)

    def view(self, viewer: Conn) -> dict[str, Any]:
        """The challenge as the ``lobby`` frame shows it to ``viewer``."""
        msg = self.msg
        return {
            "id": self.id,
            "by": {"player": self.player, "name": self.name, "rating": self.rating},
            "target": msg.target,
            "series": msg.series,
            "name": Match(msg.target, series=msg.series).name,
            "clock": control_view(msg.clock),
            "rated": msg.rated,
            "color": msg.color,
            "mine": viewer.player is not None and viewer.player == self.player,
        }


class Lobby:
    """The open challenges and the connections following them."""

    def __init__(self) -> None:
        self.challenges: dict[str, Challenge] = {}
        self.watchers: set[Conn] = set()

    async def watch(self, conn: Conn, msg: LobbyMsg) -> None:
        """Follow the lobby (sent the list now and after every change), or
        stop (withdrawing the connection's challenges)."""
        if msg.watch:
            conn.lobby = True
            self.watchers.add(conn)
            await self._send(conn)
        else:
            await self.leave(conn)

    async def leave(self, conn: Conn) -> None:
        """A connection stops following the lobby, or closed: its challenges go."""
        conn.lobby = False
        self.watchers.discard(conn)
        gone = [cid for cid, c in self.challenges.items() if c.conn is conn]
        for cid in gone:
            del self.challenges[cid]
        if gone:
            await self.broadcast()

    async def post(self, hub: Hub, conn: Conn, msg: ChallengeMsg) -> Challenge:
        """Post a challenge for the connection's player (which then follows
        the lobby)."""
        if conn.player is None:
            raise GameError("no_player", "challenge: open the page first (the lobby needs a player)")
        if msg.rated and not conn.registered:
            raise GameError("account_needed", "challenge: a rated challenge needs an account; sign up or sign in")
        if sum(c.player == conn.player for c in self.challenges.values()) >= MAX_CHALLENGES:
            raise GameError("not_allowed", f"challenge: at most {MAX_CHALLENGES} open challenges at once")
        rating: int | None = None
        speed = speed_of(msg.clock.days if msg.clock else None,
                         None if msg.clock is None or msg.clock.days else msg.clock.initial)
        if speed is not None:
            try:
                got = hub.store.ratings_of([conn.player], speed)
            except Exception:
                log.exception("could not read a rating for the lobby")
                got = {}
            rating = round(got.get(conn.player, Rating()).rating)
        challenge = Challenge(new_id(), conn, conn.player, conn.name, rating, msg)
        self.challenges[challenge.id] = challenge
        conn.lobby = True
        self.watchers.add(conn)
        await self.broadcast()
        return challenge

    async def cancel(self, conn: Conn, msg: CancelMsg) -> None:
        """Withdraw one of the connection's player's challenges."""
        challenge = self.challenges.get(msg.challenge)
        if challenge is None or challenge.player != conn.player:
            raise GameError("no_challenge", f"cancel: no challenge {msg.challenge!r} of yours")
        del self.challenges[msg.challenge]
        await self.broadcast()

    async def accept(self, hub: Hub, conn: Conn, msg: AcceptMsg) -> str:
        """Accept a challenge: the game is made between the two players and
        both connections are sent ``started``; returns the game's id."""
        challenge = self.challenges.get(msg.challenge)
        if challenge is None:
            raise GameError("no_challenge", f"accept: the challenge {msg.challenge!r} is gone")
        if conn.player is None:
            raise GameError("no_player", "accept: open the page first (the lobby needs a player)")
        if conn.player == challenge.player:
            raise GameError("not_allowed", "accept: this is your own challenge")
        c = challenge.msg
        if c.rated and not conn.registered:
            raise GameError("account_needed", "accept: a rated game needs an account; sign up or sign in")
        del self.challenges[challenge.id]  # taken: nobody else can accept it now
        seat = c.color if c.color in SIDE_LETTERS else hub.rng.choice(SIDE_LETTERS)
        names = [challenge.name, conn.name] if seat == "b" else [conn.name, challenge.name]
        create = CreateMsg(
            black="human", gold="human", target=c.target, series=c.series, online=True,
            black_name=names[0], gold_name=names[1], clock=c.clock, seat=seat, rated=c.rated,
        )
        try:
            game, _ = hub.create(create, challenge.player, registered=challenge.conn.registered)
            other = 1 - SIDE_LETTERS.index(seat)
            holder = hub.store.claim(game.row.id, other, conn.player, conn.name)
        except GameError:
            self.challenges[challenge.id] = challenge
            raise
        except Exception:
            self.challenges[challenge.id] = challenge
            log.exception("could not make the game of a challenge")
            raise GameError("storage", "accept: the game could not be saved; try again") from None
        if holder != conn.player:  # cannot happen: the seat was made empty just now
            raise GameError("storage", "accept: the seat could not be claimed")
        frame = StartedFrame(game.row.id).to_json()
        await asyncio.gather(self._raw(challenge.conn, frame), self._raw(conn, frame))
        await self.broadcast()
        return game.row.id

    async def broadcast(self) -> None:
        """Send every follower the list (each with its own ``mine``)."""
        await asyncio.gather(*(self._send(c) for c in list(self.watchers)))

    async def _send(self, conn: Conn) -> None:
        items = sorted(self.challenges.values(), key=lambda c: c.created)
        await self._raw(conn, LobbyFrame([c.view(conn) for c in items]).to_json())

    @staticmethod
    async def _raw(conn: Conn, frame: str) -> None:
        with contextlib.suppress(Exception):
            await conn.send_text(frame)
