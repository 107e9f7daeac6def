"""Quick pairing: one click on a speed seeks a game (docs/web.md, "Quick pairing").

A player seeks a game at one of :data:`SPEEDS` (``1+0`` ... ``15+10`` in
real time, ``1d`` and ``3d`` by correspondence), rated or casual, over the
lobby's websocket (``seek``; ``unseek`` cancels).  Every seek is a row of
``seeks`` (:data:`kamisado.web.store.schema.seeks`) on SQLite and on PostgreSQL
alike, so several processes pair each other's seeks: after each seek, and
every :data:`PASS_EVERY_S` while this process holds any, a *pairing pass*
(:meth:`kamisado.web.store.sharing.SharedCalls.pair_seeks`) reads every live seek
and takes two compatible ones out in one transaction (PostgreSQL: ``FOR
UPDATE SKIP LOCKED`` under an advisory lock; SQLite: ``BEGIN IMMEDIATE``),
so a seek is paired once whichever process looks.  The process that took a
pair makes the game (one round, colours drawn, both seats bound) and sends
``started`` to the connections it holds; the other process hears
``paired SEEK GAME`` on the lobby channel and sends it to its own.

A pairing is never lost: the pass that stores the game writes it into both
seeks' rows (``seeks.game``) in the same commit, and a paired row stays
until its player has been sent ``started`` (then it goes).  When the
process that paired a seek dies before it told anyone, the player learns
of the game from the row: the process holding the seek's connection, at
its next pass (:data:`PASS_EVERY_S`), or, the connection gone with the
process, whichever process the player's next lobby connection reaches
(:meth:`Seeks.catch_up`, on ``lobby`` ``watch``).  A player may so be told
twice (a process that died after telling, before the row went), never
not at all; a row nobody came back for goes after :data:`PAIRED_KEEP_MS`.

Two seeks are compatible (:func:`compatible`) when they are at the same
speed, both rated or both casual, of two different players, and, rated,
their ratings are within the wider of their two ranges: a seek's range is
:func:`rating_range` of how long it has waited, ±100 at first, 50 wider
every 5 s, at most ±500.  The pass's time comes from an injectable clock
(:attr:`Seeks.clock`, ms), so tests drive the widening by hand.

A seek lives as long as its connection: closing it, or leaving the lobby,
withdraws it; a seek whose process stopped renewing it (it died) for
:data:`SEEK_TTL_MS` is deleted by the next pass.

>>> rating_range(0), rating_range(4_999), rating_range(5_000), rating_range(600_000)
(100, 100, 150, 500)
>>> a = {"id": "a", "player": "p1", "speed": "3+2", "rated": True, "rating": 1500, "created": 0}
>>> b = {"id": "b", "player": "p2", "speed": "3+2", "rated": True, "rating": 1680, "created": 0}
>>> compatible(a, b, now_ms=0), compatible(a, b, now_ms=20_000)
(False, True)
>>> [(x["id"], y["id"]) for x, y in pair_up([a, b], 20_000)]
[('a', 'b')]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kamisado.rules.board import SIDE_LETTERS
from kamisado.web.basics import clocks
from kamisado.web.basics.clocks import QUICK_SPEEDS, TimeControl
from kamisado.web.basics.messages import CreateMsg, StartedFrame
from kamisado.web.basics.ratings import Rating, speed_of
from kamisado.web.play.game import Conn
from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.schema import GameRow
from kamisado.web.store.storage import new_id

if TYPE_CHECKING:
    from kamisado.web.play.games import Hub

__all__ = [
    "PAIRED_KEEP_MS",
    "PASS_EVERY_S",
    "RANGE_MAX",
    "RANGE_START",
    "RANGE_STEP",
    "RANGE_STEP_MS",
    "SEEK_TTL_MS",
    "SPEEDS",
    "Seeks",
    "compatible",
    "pair_up",
    "rating_range",
]

log = logging.getLogger("kamisado.web")

#: The speeds of the quick-pairing grid and their clocks, in the grid's order.
SPEEDS: dict[str, TimeControl] = {
    speed: TimeControl(days=int(speed[:-1])) if speed.endswith("d")
    else TimeControl(int(speed.split("+")[0]) * 60, int(speed.split("+")[1]))
    for speed in QUICK_SPEEDS
}
#: A rated seek's rating range: ±``RANGE_START`` at first, ``RANGE_STEP``
#: wider every ``RANGE_STEP_MS`` it waits, at most ±``RANGE_MAX``.
RANGE_START = 100
RANGE_STEP = 50
RANGE_STEP_MS = 5_000
RANGE_MAX = 500
#: How often a process holding seeks runs a pairing pass (the ranges widen,
#: and a pair two processes made at the same moment is found).
PASS_EVERY_S = 1.0
#: A seek whose process has not renewed it for this long (ms) is deleted
#: (its process died); a process renews its seeks at each of its passes.
SEEK_TTL_MS = 30_000
#: A paired seek whose player was never told (its pairing process died
#: and the player did not come back) is kept this long (ms), then deleted.
PAIRED_KEEP_MS = 86_400_000
#: Quick-pairing games are one round.
TARGET = 1


def rating_range(waited_ms: int) -> int:
    """How far (rating points, either way) a rated seek that has waited
    ``waited_ms`` reaches."""
    steps = max(0, waited_ms) // RANGE_STEP_MS
    return min(RANGE_MAX, RANGE_START + RANGE_STEP * steps)


def compatible(a: dict[str, Any], b: dict[str, Any], now_ms: int,
               apart: Collection[tuple[str, str]] = ()) -> bool:
    """Whether two seeks (rows of ``seeks``) may be paired at ``now_ms``:
    the same speed, both rated or both casual, two players, neither
    blocking the other (``apart``: the ``(blocker, blocked)`` pairs), and
    (rated) the ratings within the wider of the two seeks' ranges."""
    if a["speed"] != b["speed"] or bool(a["rated"]) != bool(b["rated"]) or a["player"] == b["player"]:
        return False
    if (a["player"], b["player"]) in apart or (b["player"], a["player"]) in apart:
        return False
    if not a["rated"]:
        return True
    reach = max(rating_range(now_ms - int(a["created"])), rating_range(now_ms - int(b["created"])))
    return abs(int(a["rating"] or 1500) - int(b["rating"] or 1500)) <= reach


def pair_up(rows: list[dict[str, Any]], now_ms: int,
            apart: Collection[tuple[str, str]] = ()) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The pairs of a pass: the seeks oldest first, each paired with the
    compatible seek nearest in rating (the older first on a tie); a player
    is paired once (their other seeks go); two players one of whom blocks
    the other (``apart``: ``(blocker, blocked)`` pairs) never are."""
    order = sorted(rows, key=lambda r: (int(r["created"]), r["id"]))
    busy: set[str] = set()
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for i, a in enumerate(order):
        if a["player"] in busy:
            continue
        best: dict[str, Any] | None = None
        for b in order[i + 1:]:
            if b["player"] in busy or not compatible(a, b, now_ms, apart):
                continue
            if best is None or abs(int(b["rating"] or 1500) - int(a["rating"] or 1500)) < abs(
                    int(best["rating"] or 1500) - int(a["rating"] or 1500)):
                best = b
        if best is not None:
            busy.update((a["player"], best["player"]))
            pairs.append((a, best))
    return pairs


@dataclass(eq=False)
class Seek:
    """A seek of a connection this process holds."""

    id: str
    conn: Conn
    speed: str
    rated: bool

    def view(self) -> dict[str, Any]:
        """The seek as the ``seeking`` frame shows it."""
        return {"id": self.id, "speed": self.speed, "rated": self.rated}


class Seeks:
    """This process's seeks and its pairing passes (one per lobby)."""

    def __init__(self, clock: Callable[[], int] | None = None) -> None:
        #: the time of the passes and of the seeks (ms); tests put their own
        self.clock: Callable[[], int] = clock or clocks.now_ms
        self.hub: Hub | None = None
        #: this process's seeks, by id, and each connection's
        self.mine: dict[str, Seek] = {}
        self.of_conn: dict[Conn, Seek] = {}
        #: seeks made and not stored yet: stored by the next pass, each with
        #: the future its ``seek`` frame waits on
        self._new: list[tuple[Seek, dict[str, Any], asyncio.Future[None]]] = []
        self._lock: asyncio.Lock | None = None
        self._looping = False
        self._ticking_on = False
        #: the seats' colours and the games' seeds (drawn in the store's thread)
        self._rng = random.Random()
        #: the games made by pairing, over this process's life
        self.paired = 0
        #: paired seeks whose players were told, their rows to delete
        #: (by a task of the hub's, in batches)
        self._told: list[str] = []
        self._telling = False
        #: those not deleted yet (queued or being deleted): never told again from here
        self._told_ids: set[str] = set()

    async def seek(self, hub: Hub, conn: Conn, speed: str, rated: bool) -> None:
        """Seek a game at ``speed`` for the connection's player (its seek
        before, if any, is withdrawn first); answered ``seeking`` once
        stored, then ``started`` once paired."""
        if conn.player is None:
            raise GameError("no_player", "seek: open the page first (quick pairing needs a player)")
        if rated and not conn.registered:
            raise GameError("account_needed", "seek: a rated game needs an account; sign up or sign in")
        if conn.bot:
            raise GameError("bot_seek", "seek: a bot is never paired by quick pairing;"
                            " it plays the challenges it accepts")
        self.hub = hub
        old = self.of_conn.get(conn)
        if old is not None:
            await self._withdraw(old)
        rating: int | None = None
        control = SPEEDS[speed]
        kind = speed_of(control.days or None, None if control.days else control.initial)
        if rated and kind is not None:
            try:
                got = await hub.store.call(hub.store.ratings_of, [conn.player], kind)
            except StoreErrors:
                log.exception("could not read a rating for a seek")
                raise GameError("storage", "seek: your rating could not be read; try again") from None
            rating = round(got.get(conn.player, Rating()).rating)
        mine = Seek(new_id(), conn, speed, rated)
        now = self.clock()
        row = {"id": mine.id, "player": conn.player, "name": conn.name, "registered": conn.registered,
               "rating": rating, "speed": speed, "rated": rated, "created": now, "seen": now}
        stored: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.mine[mine.id] = mine
        self.of_conn[conn] = mine
        self._new.append((mine, row, stored))
        self._kick()
        try:
            await stored
        except StoreErrors:
            raise GameError("storage", "seek: it could not be saved; try again") from None
        self._tick()

    async def unseek(self, conn: Conn) -> None:
        """Cancel the connection's seek (answered ``seeking`` with ``null``;
        a seek paired meanwhile still gets its ``started``)."""
        mine = self.of_conn.get(conn)
        if mine is not None:
            await self._withdraw(mine)
        await _send(conn, {"type": "seeking", "seek": None})

    async def gone(self, conn: Conn) -> None:
        """The connection closed or left the lobby: its seek goes (a task
        of the hub's, so that it is withdrawn even when the connection's own
        task is cancelled as it closes)."""
        mine = self.of_conn.get(conn)
        if mine is None or self.hub is None:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def withdraw(mine: Seek) -> None:
            try:
                await self._withdraw(mine)
            finally:
                if not done.done():
                    done.set_result(None)

        self.hub.spawn(withdraw(mine))
        await asyncio.shield(done)

    def _forget(self, mine: Seek) -> None:
        self.mine.pop(mine.id, None)
        if self.of_conn.get(mine.conn) is mine:
            del self.of_conn[mine.conn]

    async def _withdraw(self, mine: Seek) -> None:
        for entry in [e for e in self._new if e[0] is mine]:  # not stored yet: it never will be
            self._new.remove(entry)
            if not entry[2].done():
                entry[2].set_result(None)
        assert self.hub is not None
        async with self._passing():  # not while a pass may be pairing it
            if self.mine.get(mine.id) is not mine:
                return  # paired meanwhile: its "started" was sent
            self._forget(mine)
            try:
                await self.hub.store.call(self.hub.store.remove_seeks, [mine.id])
            except Exception as exc:  # it ages out: this process stops renewing it
                self.hub.repeats.failed("could not withdraw a seek", None, exc)

    def _passing(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def _kick(self) -> None:
        """Run passes (a task of the hub's) until no seek waits to be stored."""
        if not self._looping and self.hub is not None:
            self._looping = True
            self.hub.spawn(self._loop())

    async def _loop(self) -> None:
        try:
            while self._new:
                await self.match()
        finally:
            self._looping = False

    def _tick(self) -> None:
        """Run a pass every :data:`PASS_EVERY_S` while this process holds seeks."""
        if not self._ticking_on and self.hub is not None:
            self._ticking_on = True
            self.hub.spawn(self._ticking())

    async def _ticking(self) -> None:
        """The passes of a process holding seeks (a task of the hub's)."""
        try:
            while self.mine:
                await asyncio.sleep(PASS_EVERY_S)
                try:
                    await self.match()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("a pairing pass failed")
        finally:
            self._ticking_on = False

    async def match(self) -> int:
        """A pairing pass now (after the one running, if any): the seeks
        made since the last are stored with it; returns the games it made."""
        async with self._passing():
            return await self._pass()

    def _games_of(self, pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[GameRow]:
        """Each pair's game: one round at the pair's speed, colours drawn,
        both seats bound to their players (run inside the pass's transaction)."""
        assert self.hub is not None
        made = []
        for a, b in pairs:
            seat = self._rng.choice(SIDE_LETTERS)  # ``a``'s colour
            names = [a["name"], b["name"]] if seat == "b" else [b["name"], a["name"]]
            create = CreateMsg(
                black="human", gold="human", target=TARGET, series=False, online=True,
                black_name=names[0], gold_name=names[1], clock=SPEEDS[a["speed"]], seat=seat,
                rated=bool(a["rated"]),
            )
            row, _ = self.hub.new_row(create, a["player"], bool(a["registered"]), rng=self._rng)
            if seat == "b":
                row.gold_player = b["player"]
            else:
                row.black_player = b["player"]
            made.append(row)
        return made

    async def _pass(self) -> int:
        hub = self.hub
        if hub is None:
            return 0
        new, self._new = self._new, []
        now = self.clock()
        by_player = {mine.conn.player: mine for mine in self.mine.values() if mine.conn.player is not None}
        try:
            pairs, dropped, made, waiting = await hub.store.call(
                hub.store.pair_seeks, now, now - SEEK_TTL_MS, [row for _, row, _ in new], pair_up, self._games_of,
                sorted(by_player), now - PAIRED_KEEP_MS)
        except Exception as exc:
            hub.repeats.failed("a pairing pass failed", None, exc)
            for mine, _, stored in new:
                self._forget(mine)
                if not stored.done():
                    stored.set_exception(exc)
            return 0
        for mine, _, stored in new:  # stored: said before any "started"
            if not stored.done():
                stored.set_result(None)
            if self.mine.get(mine.id) is mine:
                await _send(mine.conn, {"type": "seeking", "seek": mine.view()})
        notes: list[str] = []
        for row in dropped:  # another seek of the player was paired
            local = self.mine.get(row["id"])
            if local is not None:
                self._forget(local)
                await _send(local.conn, {"type": "seeking", "seek": None})
            else:
                notes.append(f"unseeked {row['id']}")
        sends: list[tuple[str, Conn, str]] = []  # (seek, connection, frame)
        for row in waiting:  # paired before, its player never told (the pairing process died)
            if row["id"] in self._told_ids:
                continue  # told from here; its row goes
            local = self.mine.get(row["id"])
            if local is not None:
                self._forget(local)
            else:  # another seek of the player's, still here (not the row's: told meanwhile)
                local = by_player.get(row["player"])
                if local is not None and (local.id == row["id"] or self.mine.get(local.id) is not local):
                    local = None
            if local is not None:
                sends.append((row["id"], local.conn, StartedFrame(row["game"]).to_json()))
        for (a, b), game in zip(pairs, made, strict=True):
            frame = StartedFrame(game.id).to_json()
            for row in (a, b):
                local = self.mine.get(row["id"])
                if local is not None:
                    self._forget(local)
                    sends.append((row["id"], local.conn, frame))
                else:
                    notes.append(f"paired {row['id']} {game.id}")
        sent = await asyncio.gather(*(_raw(conn, frame) for _, conn, frame in sends))
        self.paired += len(made)
        if notes:
            try:
                await hub.store.call(hub.store.seek_news, notes)
            except Exception as exc:
                hub.repeats.failed("could not announce paired seeks", None, exc)
        self._told_later([seek_id for (seek_id, _, _), ok in zip(sends, sent, strict=True) if ok])
        return len(made)

    def _told_later(self, ids: list[str]) -> None:
        """These paired seeks' players were told: their rows go (a task of
        the hub's deletes them, many at once under a burst)."""
        if self.hub is None:
            return
        self._told.extend(ids)
        self._told_ids.update(ids)
        if self._told and not self._telling:
            self._telling = True
            self.hub.spawn(self._forget_told())

    async def _forget_told(self) -> None:
        hub = self.hub
        assert hub is not None
        try:
            while self._told:
                ids, self._told = self._told, []
                try:
                    await hub.store.call(hub.store.told_seeks, ids)
                except Exception as exc:  # tried again with the next ones told
                    hub.repeats.failed("could not forget told seeks", None, exc)
                    self._told[:0] = ids
                    return
                self._told_ids.difference_update(ids)
        finally:
            self._telling = False

    async def catch_up(self, hub: Hub, conn: Conn) -> None:
        """Tell a connection's player of every game a seek of theirs was
        paired into and they were not told of (``started`` each, oldest
        first): the process that paired it died first.  The lobby calls it
        when a connection starts following it (a page reconnecting)."""
        self.hub = hub
        if conn.player is None:
            return
        try:
            rows = await hub.store.call(hub.store.paired_seeks, conn.player)
        except Exception as exc:
            hub.repeats.failed("could not read paired seeks", None, exc)
            return
        told = []
        for row in rows:
            if row["id"] in self._told_ids:
                continue  # told from here; its row goes
            local = self.mine.get(row["id"])
            if local is not None:
                self._forget(local)
            if await _raw(conn, StartedFrame(row["game"]).to_json()):
                told.append(row["id"])
        self._told_later(told)

    async def heard(self, kind: str, rest: str) -> bool:
        """Another process paired (``paired SEEK GAME``) or dropped
        (``unseeked SEEK``) a seek: the connection here is told.  Returns
        whether the note was quick pairing's."""
        if kind == "paired":
            seek_id, _, game_id = rest.partition(" ")
            local = self.mine.get(seek_id)
            if local is not None:
                self._forget(local)
                if await _raw(local.conn, StartedFrame(game_id).to_json()):
                    self._told_later([seek_id])
            return True
        if kind == "unseeked":
            local = self.mine.get(rest)
            if local is not None:
                self._forget(local)
                await _send(local.conn, {"type": "seeking", "seek": None})
            return True
        return False


async def _raw(conn: Conn, frame: str) -> bool:
    """Send a frame; whether it went (a connection gone meanwhile is let be)."""
    try:
        await conn.send_text(frame)
    except Exception:
        return False
    return True


async def _send(conn: Conn, frame: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await conn.send_text(json.dumps(frame))
