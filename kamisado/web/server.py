"""The Starlette application: its routes, its lifespan and its middleware.

The routes' handlers are in modules by job: :mod:`kamisado.web.pages`
(the page, its share pages and the JSON API), :mod:`kamisado.web.images`
(a game's pictures), :mod:`kamisado.web.analysis` (the engine's analysis),
:mod:`kamisado.web.players` (sign-up, sign-in) and
:mod:`kamisado.web.websocket` (the live games).  The lifespan opens the
store, the :class:`kamisado.web.games.Hub` and the computer's pool (or job
queue), and closes them when the server stops.

>>> from starlette.testclient import TestClient
>>> with TestClient(create_app("sqlite://", workers=0)) as client:
...     client.get("/api/levels").json()[0]["name"]
'beginner'
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from kamisado.web import worker
from kamisado.web.analysis import (
    AnalysisSlots,
    analyse,
    evaluations_svg,
    game_review,
    reply,
)
from kamisado.web.games import Hub
from kamisado.web.guard import (
    SOCKET_LIMITS,
    Guard,
    Limit,
    RateLimiter,
    SocketLimits,
    limits_from_env,
)
from kamisado.web.images import board_png, board_svg, match_gif
from kamisado.web.lobby import Lobby
from kamisado.web.pages import (
    STATIC,
    board,
    create_game,
    engine_info,
    game_record,
    game_steps,
    index,
    lessons,
    levels,
    list_games,
    live_games,
    player_page,
    player_rating_svg,
    position,
    puzzles,
    share_page,
    upload_record,
)
from kamisado.web.players import ROUTES as PLAYER_ROUTES
from kamisado.web.players import Players, PlayerSession, SessionKeys, session_secret
from kamisado.web.storage import Store
from kamisado.web.websocket import ws_endpoint

__all__ = ["ROUTES", "create_app"]

GC_FREEZE_S = 5.0
GC_FULL_S = 600.0
#: The collector's thresholds while the server runs (Python's are 700, 10,
#: 10): a young collection every 700 allocations ran a few hundred times a
#: second under load, each walking the objects of the actions in flight,
#: and promoted them to the older generations for no gain (they die young).
GC_THRESHOLDS = (20_000, 20, 10)


async def tame_gc() -> None:
    """Keep full garbage collections from pausing the server.

    A full collection walks every tracked object; with thousands of open
    websockets that is a pause of a few hundred milliseconds, often enough
    to spoil the move round trip.  Objects that have lived a few seconds
    are moved out of the collector's sight (``gc.freeze``), and put back
    for one full collection every ten minutes, so cyclic garbage is still
    freed, only later."""
    tick = 0
    while True:
        await asyncio.sleep(GC_FREEZE_S)
        tick += 1
        if tick * GC_FREEZE_S >= GC_FULL_S:
            tick = 0
            gc.unfreeze()
            gc.collect()
        gc.freeze()


def lifespan(
    db: str | Store, workers: int | None, queue: str | None = None
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: opens the store and the process pool (or, given
    ``queue``, the job queue: :mod:`kamisado.web.jobs`), puts the
    :class:`Hub` in ``app.state.hub``, and closes them all when it stops."""

    @contextlib.asynccontextmanager
    async def run(app: Starlette) -> AsyncIterator[None]:
        store = db if isinstance(db, Store) else Store(db)
        factory: Callable[[], Executor] | None = None
        n = 0 if workers == 0 else workers or max(1, os.cpu_count() or 1)
        from kamisado.web.jobs import QueueRunner

        runner: QueueRunner | None = None
        if queue is not None:  # the workers of the queue think; this process has no pool
            runner = QueueRunner(queue)
            try:
                await runner.open()
            except BaseException:
                store.close()
                raise
            n = max(2, n)  # the analysis jobs at once from this process: n - 1
        elif n:

            def factory() -> Executor:
                # the workers end when the server does, even on kill -9 (issue 10)
                return ProcessPoolExecutor(
                    n,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=worker.start_worker,
                    initargs=(os.getpid(),),
                )

        hub = app.state.hub = Hub(store, factory, jobs=runner)
        app.state.lobby = Lobby(hub)  # over every process, when several share the database
        # analysis never takes the last worker: computer moves always have one
        app.state.analysis = AnalysisSlots(max(1, n - 1))
        gc_before = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        gc.collect()
        gc.freeze()  # what start-up made lives as long as the server: out of the collector's sight
        gc_task = asyncio.get_running_loop().create_task(tame_gc())
        # the players: the cookie's key (given, or kept in the database) and the accounts
        app.state.players = Players(store.engine)
        keys: SessionKeys = app.state.session_keys
        keys.set(session_secret(keys.given, store))
        hub.start()  # the flags: games whose time ran out end, with or without anyone there
        try:
            yield
        finally:
            gc_task.cancel()
            gc.unfreeze()
            gc.set_threshold(*gc_before)
            await hub.close()  # and the process pool with it
            if runner is not None:
                await runner.close()
            store.close()

    return run


ROUTES = [
    Route("/", index),
    Route("/api/board", board),
    Route("/api/levels", levels),
    Route("/api/engine", engine_info),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games", list_games),
    Route("/api/games/live", live_games),
    Route("/api/players/{player}", player_page),
    Route("/api/players/{player}/rating.svg", player_rating_svg),
    Route("/api/games/{game}/record", game_record),
    Route("/api/games/{game}/steps", game_steps),
    Route("/api/games/{game}/board.svg", board_svg),
    Route("/api/games/{game}/board.png", board_png),
    Route("/api/games/{game}/match.gif", match_gif),
    Route("/api/games/{game}/evaluations.svg", evaluations_svg),
    Route("/api/games/{game}/review", game_review),
    Route("/game/{game}", share_page),
    Route("/api/records", upload_record, methods=["POST"]),
    Route("/api/position", position),
    Route("/api/analyse", analyse),
    Route("/api/reply", reply),
    Route("/api/lessons", lessons),
    Route("/api/puzzles", puzzles),
    *PLAYER_ROUTES,
    WebSocketRoute("/ws", ws_endpoint),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(
    db: str | Store,
    workers: int | None = None,
    *,
    limits: dict[str, Limit] | RateLimiter | None = None,
    allow_origins: tuple[str, ...] = (),
    secret: str | None = None,
    queue: str | None = None,
    sockets: SocketLimits | None = None,
) -> Starlette:
    """The whole web app over the database ``db`` (a URL or an SQLite path,
    or a :class:`Store` to use, closed when the app stops).

    ``workers`` is the size of the process pool for computer moves and
    analysis (default: the number of CPUs; 0: no computer at all, for tests
    of the protocol alone).  The hub is in ``app.state.hub`` while it runs.

    ``limits``: the rate limits (default :data:`kamisado.web.guard.LIMITS`,
    none when ``KAMISADO_WEB_LIMITS=off``), or a :class:`RateLimiter` to
    use (tests give one with their own clock, and its caps on websockets);
    ``sockets``: the caps on websockets and the keep-out after a flood
    (default :data:`kamisado.web.guard.SOCKET_LIMITS`; none when the rate
    limits are off, ``limits={}``); ``allow_origins``: origins besides the
    site's own that may post and open the websocket.

    ``secret`` signs the players' cookies (default: ``KAMISADO_SECRET``,
    else a key generated once and kept in the database;
    :func:`kamisado.web.players.session_secret`).

    ``queue``: the Redis URL of a job queue (``redis://HOST:PORT/DB``):
    computer moves and analysis go to the ``kamisado worker`` processes
    that serve it, and this process runs no pool (:mod:`kamisado.web.jobs`).
    """
    keys = SessionKeys(secret)
    if isinstance(limits, RateLimiter):
        limiter = limits
    else:
        table = limits_from_env() if limits is None else limits
        caps = (sockets or SOCKET_LIMITS) if table else None  # limits off: no caps either
        limiter = RateLimiter(table, sockets=caps)
    app = Starlette(
        routes=ROUTES,
        lifespan=lifespan(db, workers, queue),
        middleware=[
            Middleware(PlayerSession, keys=keys),  # the player cookie, read first:
            Middleware(Guard, limiter=limiter, allow_origins=allow_origins),  # limits per player too
        ],
    )
    app.state.limiter = limiter
    app.state.session_keys = keys
    return app
