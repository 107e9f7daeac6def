"""The computer's moves: the engine's work in a process pool or on a job queue, and its leases.

:class:`Computer` starts the computer's move in every game that waits for
one (:meth:`Computer.kick`) and plays it once found, as any other action
(:meth:`kamisado.web.play.game.Game.play`).  The engine runs in a process pool
of this process (renewed when a worker dies) or, given a
:class:`JobRunner`, on a job queue's workers (:mod:`kamisado.web.work.jobs`);
the analysis of the HTTP API runs there too (:meth:`Computer.run_in_pool`).
With several processes on one database, the process that thinks about a
move is the one holding its lease (:meth:`kamisado.web.store.storage.Store.take_turn`,
:data:`THINK_LEASE_MS`), renewed every :data:`THINK_RENEW_S` while it
thinks (:meth:`Computer.tend_leases`): a process that died thinking falls
silent, and another process holding the game takes the move over once the
lease has run out, a few seconds later.  A process that stops gracefully
lets go of its leases at once (:meth:`kamisado.web.store.storage.Store.close`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor
from typing import TYPE_CHECKING, Any, Protocol

from kamisado.rules.match import OVER
from kamisado.web.basics import clocks
from kamisado.web.play import flags
from kamisado.web.play.game import Game, HubFace
from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors
from kamisado.web.work import worker

if TYPE_CHECKING:
    from kamisado.web.basics.metrics import Metrics


class ComputerHub(HubFace, Protocol):
    """What the computer uses of the hub: :class:`~kamisado.web.play.game.HubFace`,
    the metrics, and holding a game in memory while it thinks."""

    metrics: Metrics

    async def hold(self, game_id: str) -> Game | None: ...


__all__ = ["PAGE_THINK_S", "RETRY_MAX_S", "RETRY_S", "THINK_LEASE_MS", "THINK_RENEW_S", "Computer", "JobRunner"]

log = logging.getLogger("kamisado.web")

#: A computer move that could not be stored (or found: a broken pool, an
#: unreachable queue) is tried again after this pause (seconds), doubled at
#: each failure up to :data:`RETRY_MAX_S`.
RETRY_S = 1.0
RETRY_MAX_S = 30.0
#: The lease on a computer move lasts ``THINK_LEASE_MS`` from its last
#: renewal (several processes on one database: a process that died thinking
#: is taken over after it); its holder renews it every ``THINK_RENEW_S``
#: while it thinks, and every other process holding the game looks as
#: often whether it ran out.  A move is so taken over at most
#: ``THINK_LEASE_MS`` + ``THINK_RENEW_S`` (4 s) after its thinker died.
THINK_LEASE_MS = 3_000
THINK_RENEW_S = 1.0
#: How long the server waits for the computer's move from a page that runs
#: the engine itself (its join said ``thinks``) before it thinks itself: a
#: page whose engine failed, or that went, is not waited for longer.
PAGE_THINK_S = 20.0


class JobRunner(Protocol):
    """Runs the engine's work somewhere else than this process's pool (a
    job queue: :mod:`kamisado.web.work.jobs`): ``queue`` is ``moves`` (computer
    moves) or ``analysis``, kept apart so analysis never starves the
    computer opponents."""

    async def run(self, queue: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, run by a worker; its result."""
        ...

    async def close(self) -> None:
        """Let go of the queue."""
        ...

    async def depths(self) -> dict[str, float]:
        """The jobs waiting or running on each queue."""
        ...

    async def ping(self) -> None:
        """Return once the queue answers; raise when it does not."""
        ...


class Computer:
    """The hub's computer: the pool (or the job queue) and the moves it thinks about."""

    def __init__(
        self, hub: ComputerHub, pool_factory: Callable[[], Executor] | None, jobs: JobRunner | None = None
    ) -> None:
        self.hub = hub
        self.pool_factory = pool_factory
        self.pool: Executor | None = pool_factory() if pool_factory and jobs is None else None
        self.jobs = jobs
        #: the pool's jobs handed over and not answered yet, by queue (``moves``, ``analysis``)
        self.in_pool = {"moves": 0, "analysis": 0}
        #: seconds a page that thinks is given for the computer's move (:data:`PAGE_THINK_S`)
        self.page_think_s = PAGE_THINK_S

    async def depths(self) -> dict[str, float]:
        """The engine's jobs waiting or running, by queue: on the job queue,
        every process's (NaN when it cannot be read); in the pool, this
        process's."""
        if self.jobs is not None:
            return await self.jobs.depths()
        return {queue: float(n) for queue, n in self.in_pool.items()}

    @property
    def can_think(self) -> bool:
        """Whether this server runs the engine (a pool or a job queue)."""
        return self.pool is not None or self.jobs is not None

    def renew_pool(self, broken: Executor | None) -> None:
        """Replace a broken process pool (a worker died) with a fresh one."""
        if self.pool is broken and self.pool_factory is not None:
            log.warning("the computer's process pool broke: starting a new one")
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            self.pool = self.pool_factory()

    async def run_in_pool(self, fn: Callable[..., Any], *args: Any, queue: str = "moves") -> Any:
        """Run ``fn(*args)`` in the process pool (renewed once if it broke),
        or on the job queue's ``queue`` when there is one."""
        if self.jobs is not None:
            return await self.jobs.run(queue, fn, *args)
        self.in_pool[queue] = self.in_pool.get(queue, 0) + 1
        try:
            return await self._in_pool(fn, *args)
        finally:
            self.in_pool[queue] -= 1

    async def _in_pool(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self.pool
            if pool is None:
                raise GameError("no_engine", "this server runs without the computer")
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenExecutor:
                self.renew_pool(pool)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop every computer that is thinking, and the pool."""
        for game in self.hub.games.values():
            if game.task is not None and not game.task.done():
                game.task.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    # -- the computer's moves -----------------------------------------------------

    def kick(self, game: Game, *, page: bool = True) -> None:
        """Start the computer's move if the game waits for one.  A
        computer-against-computer game thinks only while someone watches: it
        pauses after the move it is thinking about and goes on when someone
        joins (a join kicks).  A computer facing a person answers even when
        the person has left (its clock may be running).

        When the person's page runs the engine (:meth:`Game.page_thinker`),
        the page finds the move and sends it (``computer_move``): the server
        waits for it ``page_think_s``, then thinks itself (``page=False``)."""
        side = game.to_act()
        if side is None or game.kinds()[side] == "human" or game.thinking:
            return
        if page and game.page_thinker() is not None:
            game.thinking = True
            if not self.hub.store.shared:
                game.leased_seq = game.seq
            game.task = asyncio.get_running_loop().create_task(self._wait_for_page(game, game.seq))
            return
        if not self.can_think:
            return
        if not game.conns and "human" not in game.kinds():
            game.spawn_locked(lambda: flags.pause_clock(game))
            return
        game.thinking = True
        if not self.hub.store.shared:  # nobody else thinks about it: shown thinking at once
            game.leased_seq = game.seq
        game.task = asyncio.get_running_loop().create_task(self._think(game, side))

    async def _wait_for_page(self, game: Game, seq: int) -> None:
        """Give the page ``page_think_s`` for the computer's move at action
        ``seq``; when none came (:meth:`Game.computer_act` cancels this), the
        server thinks."""
        await asyncio.sleep(self.page_think_s)
        if game.seq != seq or game.task is not asyncio.current_task():
            return
        log.info("game %s: no computer move from the page for action %d; the server thinks", game.row.id, seq)
        game.thinking = False
        game.task = None
        self.kick(game, page=False)
        self.hub.evict(game)  # kept while it waited; let go of when nobody is on it and nobody thinks

    async def _take_turn(self, game: Game) -> bool:
        """Whether this process is to think about the game's computer move:
        with other processes on the database, the one holding the lease."""
        store = self.hub.store
        if not store.shared:
            return True
        now = clocks.now_ms()
        try:
            return await store.call(store.take_turn, game.row.id, game.seq, now + THINK_LEASE_MS, now)
        except Exception as exc:
            self.hub.repeats.failed("could not take the computer's turn", game.row.id, exc)
            return False

    async def run(self) -> None:
        """Tend the computer's leases every ``THINK_RENEW_S`` (a task of the
        hub's while other processes share the database)."""
        while True:
            await asyncio.sleep(THINK_RENEW_S)
            try:
                await self.tend_leases()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.hub.repeats.failed("could not renew or read the computer's leases", None, exc,
                                        level=logging.WARNING, traceback=not isinstance(exc, StoreErrors))

    async def tend_leases(self) -> None:
        """Renew the leases of the moves this process thinks about (one
        statement), and look at the leases of the games held here whose
        computer another process thinks about (one more): one that ran out
        (its thinker died) is taken over at once.  A move whose lease
        another process took (this one was silent too long) is no longer
        thought about here."""
        hub, store = self.hub, self.hub.store
        if not store.shared:
            return
        now = clocks.now_ms()
        mine = {g.row.id: (g, g.seq, g.task) for g in hub.games.values()
                if g.thinking and g.leased_seq == g.seq and g.task is not None and not g.task.done()}
        if mine:
            kept = await store.renew_turns_async(list(mine), now + THINK_LEASE_MS)
            for game_id, (game, seq, task) in mine.items():
                if game_id not in kept and game.seq == seq and game.task is task and not task.done():
                    log.warning("game %s: another process took over the computer's move %d", game_id, seq)
                    game.stop_thinking()
                    hub.evict(game)
        waiting = [g for g in hub.games.values() if not g.thinking and g.state != OVER
                   and (act := g.to_act()) is not None and g.kinds()[act] != "human"]
        if not waiting:
            return
        leases = await store.leases_async([g.row.id for g in waiting])
        now = clocks.now_ms()
        for game in waiting:
            lease = leases.get(game.row.id)
            if lease is None or lease[0] != game.seq or hub.games.get(game.row.id) is not game:
                continue  # moved on meanwhile: the news of it brings the game up to date
            before = game.thinking_elsewhere()
            game.row.thinker, game.row.think_until = lease[1], lease[2]
            if lease[1] is None or (lease[2] or 0) < now:  # nobody thinks about it: this process does
                self.kick(game)
            elif game.thinking_elsewhere() != before:
                await game.broadcast()

    async def _think(self, game: Game, side: int) -> None:
        hub = self.hub
        seq = game.seq
        try:
            if hub.store.shared:
                if not await self._take_turn(game):  # another process thinks about it
                    game.thinking = False
                    hub.evict(game)
                    return
                if game.seq == seq:
                    game.leased_seq = seq
                    await game.broadcast()  # this process's connections see it thinking
            async with game.lock:
                if game.seq == seq:
                    await flags.resume_clock(game)
            log.info("game %s: the computer thinks about action %d", game.row.id, seq)
            if game.failures:  # the store refused the last write: give it time
                await asyncio.sleep(min(RETRY_MAX_S, RETRY_S * 2 ** (game.failures - 1)))
            if game.row.delay:
                await asyncio.sleep(game.row.delay)
            start = time.perf_counter()
            token = await self.run_in_pool(
                worker.computer_action,
                game.row.target,
                game.row.series,
                game.row.start_kpn,
                list(game.played),  # the moves in effect (no takebacks, no endings)
                game.kinds()[side],
                game.row.seed + seq,
            )
            hub.metrics.thought(time.perf_counter() - start)
        except asyncio.CancelledError:
            game.thinking = False
            raise
        except Exception as exc:
            hub.repeats.failed("a computer move failed", game.row.id, exc)
            game.thinking = False
            game.failures += 1  # a broken pool or an unreachable queue: think again, after a pause
            if game.conns and hub.games.get(game.row.id) is game:
                self.kick(game)
            hub.evict(game)
            return
        async with game.lock:
            game.thinking = False
            if game.seq != seq or hub.games.get(game.row.id) is not game:
                hub.evict(game)
                return
            try:
                try:
                    await game.ready()  # the clocks as the store has them, after an outage
                except GameError:
                    game.failures += 1  # think again after a pause
                    raise
                if game.seq != seq:  # the store had moved on
                    hub.evict(game)
                    return
                await game.play(token)
            except GameError as exc:
                hub.repeats.failed("a computer action was refused", f"{game.row.id} {token}", exc,
                                   level=logging.WARNING, traceback=False)
                if exc.code == "storage" and game.conns and hub.games.get(game.row.id) is game:
                    self.kick(game)  # think again, after a pause (game.failures)
                hub.evict(game)
                return
            await game.broadcast()
        hub.evict(game)

    async def answer_waiting(self) -> None:
        """Start the computer in every game where a person waits for its
        move (it was thinking when the server stopped)."""
        hub, store = self.hub, self.hub.store
        try:
            waiting = await store.call(store.computer_to_act)
        except Exception as exc:
            hub.repeats.failed("could not look for games waiting for the computer", None, exc)
            waiting = []
        for gid in waiting:
            with contextlib.suppress(Exception):
                game = await hub.hold(gid)
                if game is not None:
                    game.joining -= 1
                    self.kick(game)
                    hub.evict(game)  # kept while it thinks
