"""The Starlette application: its routes, its lifespan and its middleware.

The routes' handlers are in modules by job: :mod:`kamisado.web.site.pages`
(the page, its share pages and the JSON API), :mod:`kamisado.web.site.images`
(a game's pictures), :mod:`kamisado.web.site.analysis` (the engine's analysis),
:mod:`kamisado.web.accounts.players` (sign-up, sign-in),
:mod:`kamisado.web.site.ops` (health, readiness, metrics) and
:mod:`kamisado.web.site.websocket` (the live games).  The lifespan opens the
store, the :class:`kamisado.web.play.games.Hub` and the computer's pool (or job
queue), and closes them when the server stops.

>>> from starlette.testclient import TestClient
>>> with TestClient(create_app("sqlite://", workers=0)) as client:
...     client.get("/api/levels").json()[0]["name"]
'beginner'
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from kamisado.web.accounts.players import ROUTES as PLAYER_ROUTES
from kamisado.web.accounts.players import (
    Players,
    PlayerSession,
    SessionKeys,
    session_secret,
)
from kamisado.web.accounts.sessions import SESSION_IDLE_S, SessionSockets
from kamisado.web.accounts.tokens import ROUTES as TOKEN_ROUTES
from kamisado.web.accounts.tokens import BearerAuth, Tokens
from kamisado.web.bots import routes as bots
from kamisado.web.bots.games import ROUTES as BOT_GAME_ROUTES
from kamisado.web.community.lobby import Lobby
from kamisado.web.community.schedule import Recurring, event_rows
from kamisado.web.edge.edge import BODY_TIMEOUT_S, Edge
from kamisado.web.edge.guard import (
    SOCKET_LIMITS,
    Guard,
    Limit,
    RateLimiter,
    SocketLimits,
    limits_from_env,
)
from kamisado.web.edge.public import PublicSite, forwarded_hosts
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameError
from kamisado.web.play.uploads import ParseBudget
from kamisado.web.site.analysis import (
    AnalysisSlots,
    analyse,
    ask_report,
    evaluations_svg,
    game_report,
    game_review,
    reply,
)
from kamisado.web.site.engine_data import ROUTES as ENGINE_DATA_ROUTES
from kamisado.web.site.images import board_png, board_svg, match_gif
from kamisado.web.site.moderation import ROUTES as MODERATION_ROUTES
from kamisado.web.site.offline import ROUTES as OFFLINE_ROUTES
from kamisado.web.site.openapi import ROUTES as OPENAPI_ROUTES
from kamisado.web.site.ops import LOCALHOST, Network
from kamisado.web.site.ops import ROUTES as OPS_ROUTES
from kamisado.web.site.pages import (
    STATIC,
    board,
    create_game,
    engine_info,
    game_record,
    game_steps,
    index,
    leaderboard,
    lessons,
    levels,
    list_games,
    live_games,
    lobby_counts,
    player_page,
    player_rating_svg,
    position,
    share_page,
    upload_record,
)
from kamisado.web.site.puzzles import ROUTES as PUZZLE_ROUTES
from kamisado.web.site.tournaments import ROUTES as TOURNAMENT_ROUTES
from kamisado.web.site.websocket import ws_endpoint
from kamisado.web.store.buckets import SharedBuckets
from kamisado.web.store.storage import Store
from kamisado.web.work import worker

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
    db: str | Store,
    workers: int | None,
    queue: str | None = None,
    session_idle: float = SESSION_IDLE_S,
    clock: Callable[[], float] = time.time,
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: opens the store and the process pool (or, given
    ``queue``, the job queue: :mod:`kamisado.web.work.jobs`), puts the
    :class:`Hub` in ``app.state.hub``, and closes them all when it stops."""

    @contextlib.asynccontextmanager
    async def run(app: Starlette) -> AsyncIterator[None]:
        store = db if isinstance(db, Store) else Store(db)
        factory: Callable[[], Executor] | None = None
        n = 0 if workers == 0 else workers or max(1, os.cpu_count() or 1)
        from kamisado.web.work.jobs import QueueRunner

        runner: QueueRunner | None = None
        if queue is not None:  # the workers of the queue think; this process has no pool
            runner = QueueRunner(queue)
            try:
                await runner.open()
            except BaseException:
                store.close()
                raise
            n = max(2, n)  # the analysis jobs at once from this process: n - 1
            # uploaded records are read in a process of their own, away from the loop
            app.state.parses.pool_factory = functools.partial(
                ProcessPoolExecutor, 1, mp_context=multiprocessing.get_context("spawn"),
                initializer=worker.start_worker, initargs=(os.getpid(),))
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
        # PostgreSQL: the limits per address and per player count once for every process
        limiter: RateLimiter = app.state.limiter
        shares = store.shared and limiter.shared is None
        if shares:
            # on the wall clock (the same on every process), or the clock a test gave the limiter
            limiter.shared = SharedBuckets(store, time.time if limiter.clock is time.monotonic else limiter.clock)
        app.state.lobby = Lobby(hub)  # over every process, when several share the database
        bots.start(app, clock)  # the event streams, challenges over HTTP
        events = app.state.lobby.tournaments  # the tournaments' passes, and the recurring events
        if app.state.tournament_schedule:
            events.due = functools.partial(event_rows, app.state.tournament_schedule)
        # analysis never takes the last worker: computer moves always have one
        app.state.analysis = AnalysisSlots(max(1, n - 1))
        hub.reporter.slots = app.state.analysis  # a report's slices take analysis slots too
        gc_before = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        # the young generations only: what start-up made is young, and the
        # imports' garbage is old, freed at tame_gc's first full collection
        # (a full one here walked every object of the process, up to 0.2 s in
        # a test process that had started hundreds of apps)
        gc.collect(1)
        gc.freeze()  # what start-up made lives as long as the server: out of the collector's sight
        gc_task = asyncio.get_running_loop().create_task(tame_gc())
        # the players: the cookie's key (given, or kept in the database) and the accounts
        book = app.state.players = Players(store.engine, clock=clock, session_idle=session_idle)
        app.state.tokens = Tokens(store.engine, clock=clock)  # personal API tokens
        keys: SessionKeys = app.state.session_keys
        keys.set(session_secret(keys.given, store))
        # websockets whose session ended through another process are closed
        sockets: SessionSockets = app.state.session_sockets
        watch_task = asyncio.get_running_loop().create_task(sockets.watch(store, book.sessions))
        # ... and at once when that process says so on the lobby's channel
        app.state.lobby.on_sessions = lambda: sockets.check(store, book.sessions)
        # the time no server could take a move (this one was stopped) is given back
        with contextlib.suppress(GameError):  # (the store fails: given back once it is there)
            await hub.flags.beat()
        hub.start()  # the flags: games whose time ran out end, with or without anyone there
        # the metrics: read when scraped, the event loop's lag, the collector's pauses
        hub.metrics.watch(
            lambda: sum(not c.stream for c in hub.open_conns), lambda: len(hub.games),
            {"game": lambda: sum(c.stream for c in hub.open_conns),
             "event": lambda: sum(len(queues) for queues in app.state.events.streams.values())},
        )
        hub.spawn(hub.metrics.monitor())
        hub.spawn(events.run())
        try:
            yield
        finally:
            watch_task.cancel()
            hub.metrics.unwatch()
            gc_task.cancel()
            gc.unfreeze()
            gc.set_threshold(*gc_before)
            if shares:
                limiter.shared = None
            await bots.stop(app)
            await hub.close()  # and the process pool with it
            if runner is not None:
                await runner.close()
            app.state.parses.close()
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
    Route("/api/leaderboard", leaderboard),
    Route("/api/lobby", lobby_counts),
    Route("/api/players/{player}/rating.svg", player_rating_svg),
    Route("/api/games/{game}/record", game_record),
    Route("/api/games/{game}/steps", game_steps),
    Route("/api/games/{game}/board.svg", board_svg),
    Route("/api/games/{game}/board.png", board_png),
    Route("/api/games/{game}/match.gif", match_gif),
    Route("/api/games/{game}/evaluations.svg", evaluations_svg),
    Route("/api/games/{game}/review", game_review),
    Route("/api/games/{game}/report", game_report),
    Route("/api/games/{game}/report", ask_report, methods=["POST"]),
    Route("/game/{game}", share_page),
    Route("/api/records", upload_record, methods=["POST"]),
    Route("/api/position", position),
    Route("/api/analyse", analyse),
    Route("/api/reply", reply),
    Route("/api/lessons", lessons),
    *PUZZLE_ROUTES,
    *TOURNAMENT_ROUTES,
    *PLAYER_ROUTES,
    *TOKEN_ROUTES,
    *MODERATION_ROUTES,
    *OPS_ROUTES,
    *OFFLINE_ROUTES,
    *OPENAPI_ROUTES,
    *bots.ROUTES,
    *BOT_GAME_ROUTES,
    WebSocketRoute("/ws", ws_endpoint),
    *ENGINE_DATA_ROUTES,
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
    session_idle: float = SESSION_IDLE_S,
    clock: Callable[[], float] = time.time,
    metrics_allow: tuple[Network, ...] = LOCALHOST,
    public_url: str | None = None,
    forwarded_allow_ips: str | None = None,
    body_timeout_s: float = BODY_TIMEOUT_S,
    sockets: SocketLimits | None = None,
    tournaments: list[Recurring] | None = None,
) -> Starlette:
    """The whole web app over the database ``db`` (a URL or an SQLite path,
    or a :class:`Store` to use, closed when the app stops).

    ``workers`` is the size of the process pool for computer moves and
    analysis (default: the number of CPUs; 0: no computer at all, for tests
    of the protocol alone).  The hub is in ``app.state.hub`` while it runs.

    ``limits``: the rate limits (default :data:`kamisado.web.edge.guard.LIMITS`,
    none when ``KAMISADO_WEB_LIMITS=off``), or a :class:`RateLimiter` to
    use (tests give one with their own clock, and its caps on websockets);
    ``sockets``: the caps on websockets and the keep-out after a flood
    (default :data:`kamisado.web.edge.guard.SOCKET_LIMITS`; none when the rate
    limits are off, ``limits={}``); ``allow_origins``: origins besides the
    site's own that may post and open the websocket.

    ``secret`` signs the players' cookies (default: ``KAMISADO_SECRET``,
    else a key generated once and kept in the database;
    :func:`kamisado.web.accounts.players.session_secret`).

    ``queue``: the Redis URL of a job queue (``redis://HOST:PORT/DB``):
    computer moves and analysis go to the ``kamisado worker`` processes
    that serve it, and this process runs no pool (:mod:`kamisado.web.work.jobs`).

    ``session_idle``: seconds after which a signed-in session nobody used
    is over (default 30 days; ``kamisado web --session-days``); ``clock``:
    the wall clock of the sessions and of the sign-in lockout (tests give
    their own).  See :mod:`kamisado.web.accounts.sessions`.

    ``metrics_allow``: the networks ``GET /metrics`` answers
    (:func:`kamisado.web.site.ops.parse_allow`; the loopback addresses by
    default); any other address gets 403.

    Behind a reverse proxy (:mod:`kamisado.web.edge.public`): ``public_url``
    (``https://kamisado.example``) is the address the share page's links
    are built from (never the ``Host`` header; without it they are paths),
    and when it is https the cookie is ``Secure`` and every answer carries
    ``Strict-Transport-Security``; ``forwarded_allow_ips`` (``"10.0.0.2,
    10.0.1.0/24"``, or ``"*"``) the proxies whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed (by default none, not even
    localhost's): the rate limits then key on the address the proxy saw.
    ``ValueError`` for a bad one.

    ``body_timeout_s``: a request body must arrive within this many
    seconds, or the request is refused (408; :mod:`kamisado.web.edge.edge`).

    ``tournaments``: the recurring events to make (``kamisado web
    --tournaments``: :mod:`kamisado.web.community.schedule`).
    """
    if not session_idle > 0:
        raise ValueError(f"expected a session lifetime above 0 s, found {session_idle}")
    site = PublicSite.from_url(public_url)
    trusted = None if forwarded_allow_ips is None else forwarded_hosts(forwarded_allow_ips)
    keys = SessionKeys(secret)
    if isinstance(limits, RateLimiter):
        limiter = limits
    else:
        table = limits_from_env() if limits is None else limits
        caps = (sockets or SOCKET_LIMITS) if table else None  # limits off: no caps either
        limiter = RateLimiter(table, sockets=caps)
    origins = (*allow_origins, site.origin) if site.origin else allow_origins
    middleware = [
        # the client's address (and scheme) as the proxy saw them, before anything reads them
        *([Middleware(ProxyHeadersMiddleware, trusted_hosts=trusted)] if trusted else []),
        Middleware(Edge, body_timeout_s=body_timeout_s),  # slow bodies, clients that leave
        Middleware(PlayerSession, keys=keys, https_only=site.https),  # the player cookie, read first:
        Middleware(Guard, limiter=limiter, allow_origins=origins, headers=site.headers),  # limits per player too
        Middleware(BearerAuth),  # Authorization: Bearer (personal tokens), checked in the database
    ]
    app = Starlette(routes=ROUTES, lifespan=lifespan(db, workers, queue, session_idle, clock), middleware=middleware)
    app.state.site = site
    app.state.limiter = limiter
    app.state.metrics_allow = metrics_allow
    app.state.session_keys = keys
    app.state.session_sockets = SessionSockets()
    app.state.parses = ParseBudget()  # uploaded records being read (POST /api/records)
    app.state.tournament_schedule = tournaments or []
    return app
