"""The lobby: open challenges, live (docs/web.md, "The lobby").

A player posts a challenge (match type, clock, rated or casual, colour) over
its websocket; every connection following the lobby is sent the list again
each time it changes, each with its own ``mine`` marks.  A challenge lives
as long as the connection that posted it: when that connection stops
following the lobby or closes, its challenges are withdrawn.  Accepting one
makes an online game with both seats bound to the two players (the
creator's by :meth:`Hub.create`, the acceptor's by the store's one-time
claim), and both connections are sent ``started``.

A challenge lives in the memory of the process holding its poster's
connection.  When several processes share a database (PostgreSQL), every
challenge is also a row of ``challenges``, renewed while its process lives,
and every change is announced on :data:`kamisado.web.storage.LOBBY_CHANNEL`:
each process lists every process's challenges, a challenge is taken once
(``DELETE ... RETURNING``) whichever process accepts it, and the process
holding the poster sends it ``started``.

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

from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import Match
from kamisado.web.clocks import TimeControl, now_ms, parse_control
from kamisado.web.game import Conn
from kamisado.web.games import Hub
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
from kamisado.web.state import GameError
from kamisado.web.storage import new_id

__all__ = ["MAX_CHALLENGES", "Challenge", "Lobby"]

log = logging.getLogger("kamisado.web")

#: Open challenges one player may have at once.
MAX_CHALLENGES = 3


def _row_clock(row: dict[str, Any]) -> TimeControl | None:
    """A stored challenge's time control."""
    if row.get("clock_days"):
        return TimeControl(days=int(row["clock_days"]))
    if row.get("clock_initial") is None:
        return None
    return parse_control({"initial": row["clock_initial"], "increment": row["clock_increment"] or 0})


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
    provisional: bool = False
    created: float = field(default_factory=time.time)

    def view(self, viewer: Conn) -> dict[str, Any]:
        """The challenge as the ``lobby`` frame shows it to ``viewer``."""
        msg = self.msg
        return {
            "id": self.id,
            "by": {"player": self.player, "name": self.name, "rating": self.rating,
                   "provisional": self.provisional},
            "target": msg.target,
            "series": msg.series,
            "name": Match(msg.target, series=msg.series).name,
            "clock": control_view(msg.clock),
            "rated": msg.rated,
            "color": msg.color,
            "mine": viewer.player is not None and viewer.player == self.player,
        }


#: A challenge whose process has not renewed it for this long (ms) is not
#: listed (the process died); processes renew every ``PRESENCE_RENEW_S``.
CHALLENGE_TTL_MS = 30_000


class Lobby:
    """The open challenges and the connections following them.

    ``hub``: the server's hub (its store, when shared by several processes,
    holds every process's challenges); bound when given or at first use."""

    def __init__(self, hub: Hub | None = None) -> None:
        self.challenges: dict[str, Challenge] = {}
        self.watchers: set[Conn] = set()
        self.hub: Hub | None = None
        #: every process's challenges, as last read (several processes)
        self._rows: list[dict[str, Any]] = []
        if hub is not None:
            self.bind(hub)

    def bind(self, hub: Hub) -> None:
        """Serve the lobby of ``hub``'s server (and hear other processes')."""
        if self.hub is hub:
            return
        self.hub = hub
        hub.on_lobby = self._heard

    @property
    def shared(self) -> bool:
        return self.hub is not None and self.hub.store.shared

    async def _heard(self, origin: str, what: str) -> None:
        """Another process changed the lobby (or accepted a challenge of ours)."""
        kind, _, rest = what.partition(" ")
        if kind == "tick" and not self.watchers:
            return
        if kind == "started":
            challenge_id, _, game_id = rest.partition(" ")
            mine = self.challenges.pop(challenge_id, None)
            if mine is not None:
                await self._raw(mine.conn, StartedFrame(game_id).to_json())
        await self.broadcast()

    def _listed(self, viewer: Conn) -> list[dict[str, Any]]:
        """The challenges as ``viewer`` sees them."""
        if not self.shared:
            items = sorted(self.challenges.values(), key=lambda c: c.created)
            return [c.view(viewer) for c in items]
        assert self.hub is not None
        return [self._row_view(r, viewer) for r in self._rows]

    async def _refresh_rows(self) -> None:
        if self.shared:
            assert self.hub is not None
            store = self.hub.store
            try:
                self._rows = await store.call(store.open_challenges, now_ms() - CHALLENGE_TTL_MS)
            except Exception as exc:
                self.hub.repeats.failed("could not read the lobby's challenges", None, exc)

    @staticmethod
    def _row_view(row: dict[str, Any], viewer: Conn) -> dict[str, Any]:
        clock = _row_clock(row)
        return {
            "id": row["id"],
            "by": {"player": row["player"], "name": row["name"], "rating": row["rating"],
                   "provisional": bool(row.get("provisional"))},
            "target": row["target"],
            "series": row["series"],
            "name": Match(row["target"], series=row["series"]).name,
            "clock": control_view(clock),
            "rated": row["rated"],
            "color": row["color"],
            "mine": viewer.player is not None and viewer.player == row["player"],
        }

    async def watch(self, conn: Conn, msg: LobbyMsg) -> None:
        """Follow the lobby (sent the list now and after every change), or
        stop (withdrawing the connection's challenges)."""
        if msg.watch:
            conn.lobby = True
            self.watchers.add(conn)
            await self._refresh_rows()
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
            if self.shared:
                assert self.hub is not None
                try:
                    await self.hub.store.call(self.hub.store.remove_challenges, gone)
                except Exception:
                    log.exception("could not withdraw challenges")
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
        provisional = False
        speed = speed_of(msg.clock.days if msg.clock else None,
                         None if msg.clock is None or msg.clock.days else msg.clock.initial)
        if speed is not None:
            try:
                got = await hub.store.call(hub.store.ratings_of, [conn.player], speed)
            except Exception:
                log.exception("could not read a rating for the lobby")
                got = {}
            mine = got.get(conn.player, Rating())
            rating, provisional = round(mine.rating), mine.provisional
        challenge = Challenge(new_id(), conn, conn.player, conn.name, rating, msg, provisional)
        if hub.store.shared:
            self.bind(hub)
            clock = msg.clock
            try:
                await hub.store.call(hub.store.add_challenge, {
                    "id": challenge.id, "player": conn.player, "name": conn.name, "rating": rating,
                    "provisional": provisional,
                    "target": msg.target, "series": msg.series,
                    "clock_initial": None if clock is None or clock.days else clock.initial,
                    "clock_increment": None if clock is None or clock.days else clock.increment,
                    "clock_days": clock.days if clock is not None and clock.days else None,
                    "rated": msg.rated, "color": msg.color, "created": challenge.created,
                    "seen": now_ms(),
                })
            except Exception:
                log.exception("could not store a challenge")
                raise GameError("storage", "challenge: it could not be saved; try again") from None
        self.challenges[challenge.id] = challenge
        conn.lobby = True
        self.watchers.add(conn)
        await self.broadcast()
        return challenge

    async def cancel(self, conn: Conn, msg: CancelMsg) -> None:
        """Withdraw one of the connection's player's challenges (held by
        this process: a challenge lives with its poster's connection)."""
        challenge = self.challenges.get(msg.challenge)
        if challenge is None or challenge.player != conn.player:
            raise GameError("no_challenge", f"cancel: no challenge {msg.challenge!r} of yours")
        del self.challenges[msg.challenge]
        if self.shared:
            assert self.hub is not None
            try:
                await self.hub.store.call(self.hub.store.remove_challenges, [msg.challenge])
            except Exception:
                log.exception("could not withdraw a challenge")
        await self.broadcast()

    async def accept(self, hub: Hub, conn: Conn, msg: AcceptMsg) -> str:
        """Accept a challenge: the game is made between the two players and
        both connections are sent ``started``; returns the game's id."""
        if hub.store.shared:
            self.bind(hub)
            return await self._accept_shared(hub, conn, msg)
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
            game, _ = await hub.create(create, challenge.player, registered=challenge.conn.registered)
            other = 1 - SIDE_LETTERS.index(seat)
            holder = await hub.store.call(hub.store.claim, game.row.id, other, conn.player, conn.name)
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

    async def _accept_shared(self, hub: Hub, conn: Conn, msg: AcceptMsg) -> str:
        """:meth:`accept` over several processes: the challenge is taken out
        of the database once, whichever process holds its poster."""
        if conn.player is None:
            raise GameError("no_player", "accept: open the page first (the lobby needs a player)")
        listed = next((r for r in self._rows if r["id"] == msg.challenge), None)
        if listed is not None and listed["player"] == conn.player:
            raise GameError("not_allowed", "accept: this is your own challenge")
        if listed is not None and listed["rated"] and not conn.registered:
            raise GameError("account_needed", "accept: a rated game needs an account; sign up or sign in")
        try:
            row = await hub.store.call(hub.store.take_challenge, msg.challenge)
        except Exception:
            log.exception("could not take a challenge")
            raise GameError("storage", "accept: the lobby could not be read; try again") from None
        if row is None:
            raise GameError("no_challenge", f"accept: the challenge {msg.challenge!r} is gone")
        if row["player"] == conn.player or (row["rated"] and not conn.registered):
            put_back = {k: v for k, v in row.items() if k != "origin"}
            await hub.store.call(hub.store.add_challenge, put_back)
            raise GameError("not_allowed" if row["player"] == conn.player else "account_needed",
                            "accept: this is your own challenge" if row["player"] == conn.player
                            else "accept: a rated game needs an account; sign up or sign in")
        local = self.challenges.pop(row["id"], None)
        seat = row["color"] if row["color"] in SIDE_LETTERS else hub.rng.choice(SIDE_LETTERS)
        names = [row["name"], conn.name] if seat == "b" else [conn.name, row["name"]]
        create = CreateMsg(
            black="human", gold="human", target=row["target"], series=row["series"], online=True,
            black_name=names[0], gold_name=names[1], clock=_row_clock(row), seat=seat, rated=row["rated"],
        )
        try:
            game, _ = await hub.create(create, row["player"], registered=bool(row["rated"]))
            await hub.store.call(hub.store.claim, game.row.id, 1 - SIDE_LETTERS.index(seat), conn.player, conn.name)
        except GameError:
            raise
        except Exception:
            log.exception("could not make the game of a challenge")
            raise GameError("storage", "accept: the game could not be saved; try again") from None
        frame = StartedFrame(game.row.id).to_json()
        sends = [self._raw(conn, frame)]
        if local is not None:
            sends.append(self._raw(local.conn, frame))
        else:  # the poster is connected to another process: it tells them
            with contextlib.suppress(Exception):
                await hub.store.call(hub.store.started, row["id"], game.row.id)
        await asyncio.gather(*sends)
        await self.broadcast()
        return game.row.id

    async def broadcast(self) -> None:
        """Send every follower the list (each with its own ``mine``)."""
        await self._refresh_rows()
        await asyncio.gather(*(self._send(c) for c in list(self.watchers)))

    async def _send(self, conn: Conn) -> None:
        await self._raw(conn, LobbyFrame(self._listed(conn)).to_json())

    @staticmethod
    async def _raw(conn: Conn, frame: str) -> None:
        with contextlib.suppress(Exception):
            await conn.send_text(frame)
