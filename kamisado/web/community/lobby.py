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
and every change is announced on :data:`kamisado.web.store.storage.LOBBY_CHANNEL`:
each process lists every process's challenges, a challenge is taken once
(``DELETE ... RETURNING``) whichever process accepts it, and the process
holding the poster sends it ``started``.

A direct challenge from a player its addressee blocks (docs/web-moderation.md)
is answered as any other (``challenging``) but never reaches them: it is
kept in its poster's process alone (``hidden``), never stored, listed or
announced, and nobody can accept or decline it.

>>> lobby = Lobby()
>>> lobby.challenges
{}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import Match
from kamisado.web.basics.clocks import TimeControl, now_ms, parse_control
from kamisado.web.basics.messages import (
    AcceptMsg,
    CancelMsg,
    ChallengeMsg,
    CreateMsg,
    DeclineMsg,
    LobbyFrame,
    LobbyMsg,
    SeekMsg,
    StartedFrame,
)
from kamisado.web.basics.ratings import Rating, speed_of
from kamisado.web.community.seeks import Seeks
from kamisado.web.community.tournaments import Tournaments
from kamisado.web.play.game import Conn
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.storage import new_id

__all__ = ["MAX_CHALLENGES", "MAX_WAITING", "Challenge", "Lobby"]

log = logging.getLogger("kamisado.web")

#: Open challenges one player may have at once.
MAX_CHALLENGES = 3
#: Direct challenges that may wait for one player at once (from everyone,
#: over every process): the next is refused with ``busy``.
MAX_WAITING = 20


def _busy() -> GameError:
    return GameError("busy", f"challenge: that player has {MAX_WAITING} challenges waiting already;"
                             " try again later")


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
    #: a direct challenge its addressee blocks the poster of: never shown to them
    hidden: bool = False
    #: when it is withdrawn unless answered (seconds; a challenge made
    #: through the API, :mod:`kamisado.web.bots`; ``None``: while its poster's page is open)
    expires: float | None = None

    def view(self, viewer: Conn) -> dict[str, Any]:
        """The challenge as the ``lobby`` frame shows it to ``viewer``."""
        msg = self.msg
        return {
            "id": self.id,
            "by": {"player": self.player, "name": self.name, "rating": self.rating,
                   "provisional": self.provisional, "bot": self.conn.bot},
            "target": msg.target,
            "series": msg.series,
            "name": Match(msg.target, series=msg.series).name,
            "clock": control_view(msg.clock),
            "rated": msg.rated,
            "color": msg.color,
            "to": msg.to,
            "mine": viewer.player is not None and viewer.player == self.player,
        }


def _frame(frame: dict[str, Any]) -> str:
    """A frame of the notices (``notices``, ``challenged``, ``challenging``,
    ``withdrawn``, ``declined``) as sent."""
    return json.dumps(frame)


#: A challenge whose process has not renewed it for this long (ms) is not
#: listed (the process died); processes renew every ``PRESENCE_RENEW_S``.
CHALLENGE_TTL_MS = 30_000
#: How often the lobby's followers are sent the site's counts again (s).
COUNTS_EVERY_S = 5.0
#: A game between people counts as in play while its last move is this
#: recent (s), or its correspondence clock runs.
IN_PLAY_S = 3600.0


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
        #: this process's websockets of each player (who is online)
        self.players: dict[str, set[Conn]] = {}
        #: the connections following their player's notices (direct challenges)
        self.noticed: set[Conn] = set()
        #: told when another process ended sessions (signed out everywhere, a
        #: new password, an account closed): the server closes this process's
        #: websockets of those sessions at once (set by the site's server)
        self.on_sessions: Callable[[], Awaitable[Any]] | None = None
        #: quick pairing (:mod:`kamisado.web.community.seeks`)
        self.seeks = Seeks()
        #: told of each change of a direct challenge, ``(kind, data)``: kind
        #: ``challenge``, ``challengeCanceled``, ``challengeDeclined`` with the
        #: challenge's view, ``gameStart`` with ``{"game", "challenge",
        #: "black", "gold"}`` (set by :mod:`kamisado.web.bots`: the event streams)
        self.on_event: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None
        #: told of a ``event ...`` word another process said on the lobby's channel
        self.on_heard: Callable[[str], Awaitable[None]] | None = None
        #: the tournaments' passes and the players they tell (:mod:`kamisado.web.community.tournaments`)
        self.tournaments = Tournaments(self.players)
        self._counting_on = False
        if hub is not None:
            self.bind(hub)

    def bind(self, hub: Hub) -> None:
        """Serve the lobby of ``hub``'s server (and hear other processes')."""
        if self.hub is hub:
            return
        self.hub = hub
        hub.on_lobby = self._heard
        self.tournaments.bind(hub)

    @property
    def shared(self) -> bool:
        return self.hub is not None and self.hub.store.shared

    async def _heard(self, origin: str, what: str) -> None:
        """Another process changed the lobby (or accepted a challenge of ours)."""
        kind, _, rest = what.partition(" ")
        if await self.seeks.heard(kind, rest) or await self.tournaments.heard(kind, rest):
            return
        if kind == "tick" and not self.watchers:
            return
        if kind == "started":
            challenge_id, _, game_id = rest.partition(" ")
            mine = self.challenges.pop(challenge_id, None)
            if mine is not None:
                await self._raw(mine.conn, StartedFrame(game_id).to_json())
        elif kind == "direct":
            await self._deliver_row(rest)
            return
        elif kind == "sessions":
            if self.on_sessions is not None:
                await self.on_sessions()
            return
        elif kind == "event":
            if self.on_heard is not None:
                await self.on_heard(rest)
            return
        elif kind == "withdrawn":
            challenge_id, _, player = rest.partition(" ")
            await self._tell(player, {"type": "withdrawn", "challenge": challenge_id})
            return
        elif kind == "canceled":  # withdrawn through another process: no longer ours to hold
            self.challenges.pop(rest, None)
            return
        elif kind == "declined":
            mine = self.challenges.pop(rest, None)
            if mine is not None:
                await self._raw(mine.conn, _frame({"type": "declined", "challenge": rest}))
            return
        await self.broadcast()

    def _listed(self, viewer: Conn) -> list[dict[str, Any]]:
        """The challenges as ``viewer`` sees them."""
        if not self.shared:
            items = sorted((c for c in self.challenges.values() if c.msg.to is None), key=lambda c: c.created)
            return [c.view(viewer) for c in items]
        assert self.hub is not None
        return [self.row_view(r, viewer) for r in self._rows if r.get("to_player") is None]

    async def _refresh_rows(self) -> None:
        if self.shared:
            assert self.hub is not None
            store = self.hub.store
            try:
                self._rows = await store.call(store.open_challenges, now_ms() - CHALLENGE_TTL_MS)
            except Exception as exc:
                self.hub.repeats.failed("could not read the lobby's challenges", None, exc)

    @staticmethod
    def row_view(row: dict[str, Any], viewer: Conn) -> dict[str, Any]:
        """A stored challenge (a row of ``challenges``) as ``viewer`` sees it."""
        clock = _row_clock(row)
        return {
            "id": row["id"],
            "by": {"player": row["player"], "name": row["name"], "rating": row["rating"],
                   "provisional": bool(row.get("provisional")), "bot": bool(row.get("bot"))},
            "target": row["target"],
            "series": row["series"],
            "name": Match(row["target"], series=row["series"]).name,
            "clock": control_view(clock),
            "rated": row["rated"],
            "color": row["color"],
            "to": row.get("to_player"),
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
            await self.send_counts([conn])
            if self.hub is not None:  # a game quick pairing made and nobody told the player of
                await self.seeks.catch_up(self.hub, conn)
            if not self._counting_on and self.hub is not None:
                self._counting_on = True
                self.hub.spawn(self._counting())
        else:
            await self.leave(conn)

    async def seek(self, hub: Hub, conn: Conn, msg: SeekMsg) -> None:
        """Quick pairing: seek a game (the connection then follows the lobby)."""
        self.bind(hub)
        if not conn.lobby:
            conn.lobby = True
            self.watchers.add(conn)
        await self.seeks.seek(hub, conn, msg.speed, msg.rated)

    async def counts(self) -> dict[str, Any]:
        """The site's counts as the ``lobby_counts`` frame gives them:
        players online and games in play over every process, and one of
        the highest-rated games in play (``top``)."""
        assert self.hub is not None
        store = self.hub.store
        now = now_ms()
        got = await store.call(store.lobby_counts, now, now - CHALLENGE_TTL_MS, IN_PLAY_S)
        if got["online"] is None:  # one process: its own websockets
            got["online"] = len(self.players)
        return {"type": "lobby_counts", **got}

    async def send_counts(self, conns: list[Conn] | None = None) -> None:
        """Send the counts to ``conns`` (every follower when not given)."""
        if self.hub is None:
            return
        try:
            frame = _frame(await self.counts())
        except Exception as exc:
            self.hub.repeats.failed("could not count the lobby", None, exc)
            return
        await asyncio.gather(*(self._raw(c, frame) for c in (conns if conns is not None else list(self.watchers))))

    async def _counting(self) -> None:
        """Send the followers the counts every ``COUNTS_EVERY_S`` while there are any."""
        try:
            while self.watchers:
                await asyncio.sleep(COUNTS_EVERY_S)
                await self.send_counts()
        finally:
            self._counting_on = False

    async def leave(self, conn: Conn) -> None:
        """A connection stops following the lobby, or closed: its challenges go."""
        conn.lobby = False
        self.watchers.discard(conn)
        await self.seeks.gone(conn)
        gone = [cid for cid, c in self.challenges.items() if c.conn is conn]
        direct = [self.challenges[cid] for cid in gone
                  if self.challenges[cid].msg.to is not None and not self.challenges[cid].hidden]
        for cid in gone:
            del self.challenges[cid]
        for challenge in direct:
            await self._withdrawn(challenge.id, challenge.msg.to)
            await self._event("challengeCanceled", challenge.view(challenge.conn))
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
        if msg.to is not None:
            if msg.to == conn.player:
                raise GameError("not_allowed", "challenge: you cannot challenge yourself")
            if not await self.online(hub, msg.to):
                raise GameError("offline", "challenge: that player is not online now;"
                                " challenge them when they are")
            if await _blocks(hub, msg.to, conn.player):  # answered alike, shown to nobody
                hidden = Challenge(new_id(), conn, conn.player, conn.name, None, msg, hidden=True)
                self.challenges[hidden.id] = hidden
                await self._raw(conn, _frame({"type": "challenging", "challenge": hidden.view(conn)}))
                return hidden
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
                stored = await hub.store.call(hub.store.add_challenge, {
                    "id": challenge.id, "player": conn.player, "name": conn.name, "rating": rating,
                    "provisional": provisional,
                    "target": msg.target, "series": msg.series,
                    "clock_initial": None if clock is None or clock.days else clock.initial,
                    "clock_increment": None if clock is None or clock.days else clock.increment,
                    "clock_days": clock.days if clock is not None and clock.days else None,
                    "rated": msg.rated, "color": msg.color, "created": challenge.created,
                    "seen": now_ms(), "to_player": msg.to, "bot": conn.bot,
                }, MAX_WAITING, now_ms() - CHALLENGE_TTL_MS)
            except StoreErrors:
                log.exception("could not store a challenge")
                raise GameError("storage", "challenge: it could not be saved; try again") from None
            if not stored:
                raise _busy()
        elif msg.to is not None and sum(
                c.msg.to == msg.to and not c.hidden for c in self.challenges.values()) >= MAX_WAITING:
            raise _busy()  # (one process: counted with no await since, so no other can slip in)
        self.challenges[challenge.id] = challenge
        if msg.to is not None:  # shown to its player alone, wherever they are on the site
            await self._raw(conn, _frame({"type": "challenging", "challenge": challenge.view(conn)}))
            await self._tell(msg.to, {"type": "challenged", "challenge": challenge.view(conn)})
            if hub.store.shared:
                with contextlib.suppress(Exception):
                    await hub.store.call(hub.store.tell_lobby, f"direct {challenge.id}")
            await self._event("challenge", challenge.view(conn))
            return challenge
        conn.lobby = True
        self.watchers.add(conn)
        await self.broadcast()
        return challenge

    async def cancel(self, conn: Conn, msg: CancelMsg) -> None:
        """Withdraw one of the connection's player's challenges (held by
        this process: a challenge lives with its poster's connection; with
        several processes, a direct one held by another process is taken
        out of the database, and that process told to let it go)."""
        challenge = self.challenges.get(msg.challenge)
        if challenge is None and self.shared and conn.player is not None:
            await self._cancel_elsewhere(conn.player, msg.challenge)
            return
        if challenge is None or challenge.player != conn.player:
            raise GameError("no_challenge", f"cancel: no challenge {msg.challenge!r} of yours")
        del self.challenges[msg.challenge]
        if self.shared:
            assert self.hub is not None
            try:
                await self.hub.store.call(self.hub.store.remove_challenges, [msg.challenge])
            except Exception:
                log.exception("could not withdraw a challenge")
        if challenge.msg.to is not None and not challenge.hidden:  # its player's pages take it down
            await self._withdrawn(challenge.id, challenge.msg.to)
            await self._event("challengeCanceled", challenge.view(challenge.conn))
        await self.broadcast()

    async def _cancel_elsewhere(self, player: str, challenge_id: str) -> None:
        """:meth:`cancel` of ``player``'s direct challenge held by another process."""
        assert self.hub is not None
        hub = self.hub
        try:
            row = await hub.store.call(hub.store.challenge_row, challenge_id)
        except StoreErrors:
            log.exception("could not read a challenge")
            raise GameError("storage", "cancel: the lobby could not be read; try again") from None
        if row is None or row["player"] != player or row.get("to_player") is None:
            raise GameError("no_challenge", f"cancel: no challenge {challenge_id!r} of yours")
        taken = await _take(hub, challenge_id, "cancel")
        with contextlib.suppress(Exception):
            await hub.store.call(hub.store.tell_lobby, f"canceled {challenge_id}")
        await self._withdrawn(challenge_id, taken["to_player"])
        await self._event("challengeCanceled", self.row_view(taken, Conn(_no_send, player=player)))

    async def expire(self, now: float) -> list[str]:
        """Withdraw this process's challenges whose time ran out by ``now``
        (seconds; challenges made through the API), as their poster would;
        returns their ids."""
        over = [c for c in self.challenges.values() if c.expires is not None and c.expires <= now]
        for challenge in over:
            with contextlib.suppress(GameError):
                await self.cancel(challenge.conn, CancelMsg(challenge.id))
        return [c.id for c in over]

    async def accept(self, hub: Hub, conn: Conn, msg: AcceptMsg) -> str:
        """Accept a challenge: the game is made between the two players and
        both connections are sent ``started``; returns the game's id."""
        if hub.store.shared:
            self.bind(hub)
            return await self._accept_shared(hub, conn, msg)
        challenge = self.challenges.get(msg.challenge)
        if challenge is None or challenge.hidden:
            raise GameError("no_challenge", f"accept: the challenge {msg.challenge!r} is gone")
        if conn.player is None:
            raise GameError("no_player", "accept: open the page first (the lobby needs a player)")
        if conn.player == challenge.player:
            raise GameError("not_allowed", "accept: this is your own challenge")
        c = challenge.msg
        if c.to is not None and c.to != conn.player:
            raise GameError("not_allowed", "accept: this challenge is for another player")
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
        except StoreErrors:
            self.challenges[challenge.id] = challenge
            log.exception("could not make the game of a challenge")
            raise GameError("storage", "accept: the game could not be saved; try again") from None
        if holder != conn.player:  # cannot happen: the seat was made empty just now
            raise GameError("storage", "accept: the seat could not be claimed")
        frame = StartedFrame(game.row.id).to_json()
        await asyncio.gather(self._raw(challenge.conn, frame), self._raw(conn, frame))
        black, gold = (challenge.player, conn.player) if seat == "b" else (conn.player, challenge.player)
        await self._event("gameStart", {"game": game.row.id, "challenge": challenge.view(challenge.conn),
                                        "black": black, "gold": gold})
        if c.to is not None:  # the player's other pages take the notice down
            await self._withdrawn(challenge.id, c.to)
            return game.row.id
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
        row = await _take(hub, msg.challenge, "accept")
        elsewhere = row.get("to_player") not in (None, conn.player)
        if row["player"] == conn.player or elsewhere or (row["rated"] and not conn.registered):
            put_back = {k: v for k, v in row.items() if k != "origin"}
            await hub.store.call(hub.store.add_challenge, put_back)
            if elsewhere:
                raise GameError("not_allowed", "accept: this challenge is for another player")
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
        except StoreErrors:
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
        black, gold = (row["player"], conn.player) if seat == "b" else (conn.player, row["player"])
        await self._event("gameStart", {"game": game.row.id, "challenge": self.row_view(row, conn),
                                        "black": black, "gold": gold})
        if row.get("to_player") is not None:
            await self._withdrawn(row["id"], row["to_player"])
            return game.row.id
        await self.broadcast()
        return game.row.id

    # -- who is online, and direct challenges -----------------------------------

    async def arrive(self, hub: Hub, conn: Conn) -> None:
        """A websocket of a player opened: the player is online (shared with
        the other processes through ``presence``)."""
        if conn.player is None:
            return
        self.bind(hub)
        conns = self.players.setdefault(conn.player, set())
        first = not conns
        conns.add(conn)
        await self.tournaments.catch_up(conn)  # a game of an event it was not told of
        if first and hub.store.shared:
            try:
                await hub.store.call(hub.store.set_online, conn.player, True, now_ms())
            except Exception as exc:
                hub.repeats.failed("could not store who is online", None, exc)

    async def gone(self, conn: Conn) -> None:
        """A websocket closed: its challenges go, and its player is offline
        once its last websocket here closed."""
        self.noticed.discard(conn)
        await self.leave(conn)
        if conn.player is None:
            return
        conns = self.players.get(conn.player)
        if conns is None:
            return
        conns.discard(conn)
        if not conns:
            del self.players[conn.player]
            if self.shared:
                assert self.hub is not None
                store = self.hub.store
                try:
                    await store.call(store.set_online, conn.player, False, now_ms())
                except Exception as exc:
                    self.hub.repeats.failed("could not store who is online", None, exc)

    async def online(self, hub: Hub, player: str) -> bool:
        """Whether ``player`` has a websocket open, through any process."""
        if self.players.get(player):
            return True
        if not hub.store.shared:
            return False
        try:
            return await hub.store.call(hub.store.online_elsewhere, player, now_ms() - CHALLENGE_TTL_MS)
        except Exception as exc:
            hub.repeats.failed("could not read who is online", None, exc)
            return False

    async def notices(self, hub: Hub, conn: Conn) -> None:
        """Follow the connection's player's notices: sent the direct
        challenges to it now (``notices``) and as they come."""
        if conn.player is None:
            raise GameError("no_player", "notices: open the page first (notices need a player)")
        self.bind(hub)
        self.noticed.add(conn)
        if hub.store.shared:
            await self._refresh_rows()
            pending = [self.row_view(r, conn) for r in self._rows if r.get("to_player") == conn.player]
        else:
            pending = [c.view(conn) for c in sorted(self.challenges.values(), key=lambda c: c.created)
                       if c.msg.to == conn.player and not c.hidden]
        try:  # a challenge of a player blocked after it was made
            blocked = await hub.store.call(hub.store.blocking, [(conn.player, c["by"]["player"]) for c in pending])
        except StoreErrors as exc:
            hub.repeats.failed("could not read the blocks", None, exc)
            blocked = set()
        pending = [c for c in pending if (conn.player, c["by"]["player"]) not in blocked]
        await self._raw(conn, _frame({"type": "notices", "challenges": pending}))

    async def decline(self, hub: Hub, conn: Conn, msg: DeclineMsg) -> None:
        """Decline a direct challenge to the connection's player: it goes,
        and its poster is sent ``declined``."""
        local = self.challenges.get(msg.challenge)
        if hub.store.shared:
            try:
                row = await hub.store.call(hub.store.challenge_row, msg.challenge)
            except StoreErrors:
                log.exception("could not read a challenge")
                raise GameError("storage", "decline: the lobby could not be read; try again") from None
            to = None if row is None else row.get("to_player")
        else:
            to = None if local is None or local.hidden else local.msg.to
        if to is None or conn.player is None or to != conn.player:
            raise GameError("no_challenge", f"decline: no challenge {msg.challenge!r} to you")
        view = local.view(local.conn) if local is not None else None
        if hub.store.shared:
            taken = await _take(hub, msg.challenge, "decline")
            view = self.row_view(taken, conn)
        self.challenges.pop(msg.challenge, None)
        if view is not None:
            await self._event("challengeDeclined", view)
        if local is not None:
            await self._raw(local.conn, _frame({"type": "declined", "challenge": msg.challenge}))
        elif hub.store.shared:
            with contextlib.suppress(Exception):
                await hub.store.call(hub.store.tell_lobby, f"declined {msg.challenge}")
        await self._withdrawn(msg.challenge, to)

    async def _event(self, kind: str, data: dict[str, Any]) -> None:
        """Tell the event streams of a change (:attr:`on_event`); a failure is logged, never raised."""
        if self.on_event is None:
            return
        try:
            await self.on_event(kind, data)
        except Exception:
            log.exception("could not tell the event streams of a %s", kind)

    async def _tell(self, player: str, frame: dict[str, Any]) -> None:
        """Send a frame to this process's connections following ``player``'s notices."""
        text = _frame(frame)
        await asyncio.gather(*(self._raw(c, text) for c in list(self.noticed) if c.player == player))

    async def _withdrawn(self, challenge_id: str, player: str | None) -> None:
        """A direct challenge to ``player`` is gone: every page of theirs takes it down."""
        if player is None:
            return
        await self._tell(player, {"type": "withdrawn", "challenge": challenge_id})
        if self.shared:
            assert self.hub is not None
            with contextlib.suppress(Exception):
                await self.hub.store.call(self.hub.store.tell_lobby, f"withdrawn {challenge_id} {player}")

    async def _deliver_row(self, challenge_id: str) -> None:
        """Another process made a direct challenge: show it to its player's
        connections here."""
        assert self.hub is not None
        store = self.hub.store
        try:
            row = await store.call(store.challenge_row, challenge_id)
        except Exception as exc:
            self.hub.repeats.failed("could not read a challenge", None, exc)
            return
        if row is None or row.get("to_player") is None:
            return
        for conn in [c for c in self.noticed if c.player == row["to_player"]]:
            await self._raw(conn, _frame({"type": "challenged", "challenge": self.row_view(row, conn)}))

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


async def _no_send(_frame: str) -> None:
    """The viewer of a view that is sent to nobody."""


async def _blocks(hub: Hub, blocker: str, blocked: str) -> bool:
    """Whether ``blocker`` blocks ``blocked`` (the store's truth, shared by
    every process)."""
    try:
        return bool(await hub.store.call(hub.store.blocking, [(blocker, blocked)]))
    except Exception:
        log.exception("could not read a block")
        raise GameError("storage", "challenge: it could not be saved; try again") from None


async def _take(hub: Hub, challenge_id: str, what: str) -> dict[str, Any]:
    """Take a challenge out of the database (several processes: once,
    whichever takes it), or say why not (``what``: the action, for the error)."""
    try:
        row = await hub.store.call(hub.store.take_challenge, challenge_id)
    except StoreErrors:
        log.exception("could not take a challenge")
        raise GameError("storage", f"{what}: the lobby could not be read; try again") from None
    if row is None:
        raise GameError("no_challenge", f"{what}: the challenge {challenge_id!r} is gone")
    return row
