"""The Starlette application: the page, the JSON API and the websocket.

>>> from starlette.testclient import TestClient
>>> with TestClient(create_app("sqlite://", workers=0)) as client:
...     client.get("/api/levels").json()[0]["name"]
'beginner'
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import multiprocessing
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from kamisado.pictures import svg
from kamisado.rules import record as records
from kamisado.rules.match import OVER
from kamisado.rules.position import SIDE_LETTERS, KamisadoError, Move, Position
from kamisado.web import worker
from kamisado.web.games import Conn, Game, GameError, Hub
from kamisado.web.guard import (
    Guard,
    Limit,
    RateLimiter,
    client_key,
    client_keys,
    limits_from_env,
    refusal,
)
from kamisado.web.jobs import JobError
from kamisado.web.lobby import Lobby
from kamisado.web.messages import (
    LEVEL_NAMES,
    AbortMsg,
    AcceptMsg,
    CancelMsg,
    ChallengeMsg,
    ClaimMsg,
    CreatedFrame,
    CreateMsg,
    FillMsg,
    JoinMsg,
    LobbyMsg,
    MoveMsg,
    PingMsg,
    PongFrame,
    ProtocolError,
    RematchMsg,
    ResignMsg,
    TakebackMsg,
    entry_view,
    move_view,
    parse,
    parse_create,
    position_view,
    rounds_view,
)
from kamisado.web.players import ROUTES as PLAYER_ROUTES
from kamisado.web.players import (
    Player,
    Players,
    PlayerSession,
    SessionKeys,
    player_in_thread,
    session_secret,
)
from kamisado.web.ratings import SPEEDS, computer_rating
from kamisado.web.storage import Store

__all__ = ["STATIC", "create_app"]

log = logging.getLogger("kamisado.web")

#: The page's files (shipped as package data).
STATIC = Path(str(files("kamisado.web") / "static"))
LANGUAGES = ("en", "de", "hu")
#: The largest request bodies, in bytes: a record upload (a long series of
#: rounds is some tens of kilobytes) and a JSON body (a game's settings).
#: Checked while the body arrives: 413 as soon as it is known to be larger.
MAX_RECORD_BODY = 1 << 20
MAX_JSON_BODY = 64 << 10
GC_FREEZE_S = 5.0
#: Analysis jobs waiting for a slot, per slot, before /api/analyse and
#: /api/reply answer 503 (busy) instead of queueing more.
ANALYSIS_QUEUE = 4
GC_FULL_S = 600.0
#: The collector's thresholds while the server runs (Python's are 700, 10,
#: 10): a young collection every 700 allocations ran a few hundred times a
#: second under load, each walking the objects of the actions in flight,
#: and promoted them to the older generations for no gain (they die young).
GC_THRESHOLDS = (20_000, 20, 10)


def _lessons(kind: str, lang: str) -> list[dict[str, Any]]:
    """Lessons or puzzles from ``kamisado.lessons`` ([] while it is missing)."""
    try:
        from kamisado import lessons  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return []
    fn = getattr(lessons, f"{kind}_json", None)
    if fn is None:
        return []
    result: list[dict[str, Any]] = fn(lang)
    return result


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _too_large(limit: int) -> JSONResponse:
    # the rest of the body is not read: the connection is closed after this
    return JSONResponse(
        {"error": f"request body too large (at most {limit} bytes)"},
        status_code=413,
        headers={"Connection": "close"},
    )


async def read_body(request: Request, limit: int) -> bytes | Response:
    """The request's body, or an error response: 413 as soon as the body is
    known to pass ``limit`` bytes (from ``Content-Length`` before reading
    anything, or counted as a chunked body arrives), so nothing larger is
    ever held in memory."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            return _bad(f"expected a Content-Length in bytes, found {length!r}")
        if int(length) > limit:
            return _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def board_rows() -> list[list[str]]:
    """The colour of every square, rank 1 first, files a to h (from the rules core)."""
    from kamisado.rules.position import COLOUR_NAMES, SQUARE_COLOUR

    return [[COLOUR_NAMES[SQUARE_COLOUR[r * 8 + f]] for f in range(8)] for r in range(8)]


def engine_footer() -> str:
    """The page footer's line: the version and which engine core runs.

    >>> "engine.compiled" in engine_footer() or "engine.python" in engine_footer()
    True
    """
    from kamisado import __version__
    from kamisado.engine import BACKEND

    return (
        f'kamisado {__version__} · <span id="engine-backend" data-backend="{BACKEND}"'
        f' data-i18n="engine.{BACKEND}"></span>'
    )


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
            await hub.close()
            if hub.pool is not None:
                hub.pool.shutdown(wait=False, cancel_futures=True)
            if runner is not None:
                await runner.close()
            store.close()

    return run


def hub_of(conn: Request | WebSocket) -> Hub:
    """The app's :class:`Hub` (set by :func:`lifespan`)."""
    hub: Hub = conn.app.state.hub
    return hub


# -- the page and the JSON API ---------------------------------------------------


#: The page's link preview (Open Graph, Twitter), written into ``<!--og-->``.
OG_TITLE = "Kamisado"
OG_DESCRIPTION = "Play Kamisado, the game of coloured towers: against the computer, a friend here or online."


def og_tags(request: Request, *, title: str, description: str, image: str, alt: str) -> str:
    """The page's Open Graph and Twitter card tags; ``image`` is a path on this site."""
    from html import escape

    base = str(request.base_url).rstrip("/")
    tags = [("property", "og:type", "website"), ("property", "og:title", title),
            ("property", "og:description", description), ("property", "og:image", base + image),
            ("property", "og:image:alt", alt), ("name", "twitter:card", "summary_large_image")]
    return "\n".join(f'<meta {kind}="{name}" content="{escape(value)}">' for kind, name, value in tags)


def page_html(og: str) -> str:
    # the board's colours come from the rules core, written into the page
    # for the page (static/js/board.js) to read before it draws: the page keeps no copy of them
    return (STATIC / "index.html").read_text("utf-8").replace(
        "<!--board-->",
        '<script id="board-data" type="application/json">'
        + json.dumps({"rows": board_rows()}) + "</script>",
    ).replace("<!--engine-->", engine_footer()).replace("<!--og-->", og)


async def _visit(request: Request) -> None:
    # the first visit: the browser is given a player (the cookie)
    try:
        await player_in_thread(request, create=True)
    except Exception:
        log.exception("could not read or make the player of a page visit")


async def index(request: Request) -> Response:
    await _visit(request)
    og = og_tags(request, title=OG_TITLE, description=OG_DESCRIPTION, image="/static/og.png",
                 alt="A Kamisado board at the start of a game")
    return HTMLResponse(page_html(og), headers={"Cache-Control": "no-cache"})


async def share_page(request: Request) -> Response:
    """``/game/<id>``, a game's share link: the page (main.js opens the game
    from the path) with the game's board as its link preview."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    await _visit(request)
    black, gold = game.seat_names()
    match = game.match
    title = f"Kamisado: {black} – {gold}"
    state = "finished" if game.state == OVER else "in play"
    description = f"{match.name}, {state}: {black} {match.points[0]}, {gold} {match.points[1]}."
    og = og_tags(request, title=title, description=description,
                 image=f"/api/games/{game.row.id}/board.png",
                 alt=f"The board of the game {black} – {gold}, {state}")
    return HTMLResponse(page_html(og), headers={"Cache-Control": "no-cache"})


async def board(request: Request) -> Response:
    return JSONResponse({"rows": board_rows()}, headers={"Cache-Control": "max-age=3600"})


async def levels(request: Request) -> Response:
    from kamisado.engine.levels import LEVELS

    # elo: the measured strength, beginner = 0 (the README's levels table);
    # rating: the level's fixed rating beside its name (elo + 800)
    return JSONResponse(
        [
            {"name": n, "description": LEVELS[n].description, "elo": LEVELS[n].elo,
             "rating": computer_rating(n)}
            for n in LEVEL_NAMES
        ]
    )


async def engine_info(request: Request) -> Response:
    # which engine core runs: "compiled" (the C extension) or "python"
    from kamisado import __version__
    from kamisado.engine import BACKEND

    return JSONResponse({"version": __version__, "backend": BACKEND})


async def create_game(request: Request) -> Response:
    raw = await read_body(request, MAX_JSON_BODY)
    if isinstance(raw, Response):
        return raw
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ProtocolError("create: expected a JSON object")
        msg = parse_create(body)
    except ProtocolError as exc:
        return _bad(str(exc))
    except (ValueError, RecursionError):
        return _bad("create: expected a JSON object")
    return await _created(request, lambda hub, player: hub.create(
        msg, None if player is None else player.id, player is not None and player.account is not None,
        "" if player is None else player.name))


async def _created(
    request: Request, make: Callable[[Hub, Player | None], Awaitable[tuple[Game, dict[str, str]]]]
) -> Response:
    """Make a game for the requesting player (``make(hub, player)``) and
    answer with its id, the seats' tokens and the seats the player holds."""
    try:
        player = await player_in_thread(request)
        game, tokens = await make(hub_of(request), player)
    except GameError as exc:
        return _bad(str(exc), {"storage": 503, "account_needed": 403}.get(exc.code, 400))
    except Exception:
        log.exception("could not read the player")
        return _bad("the store cannot be read; try again", 503)
    return JSONResponse({"id": game.row.id, "tokens": tokens, "you": you_of(game, player)})


def you_of(game: Game, player: Any) -> list[str]:
    """The seats of a game a player holds (``[]`` for a request without one)."""
    return [] if player is None else [
        "bg"[s] for s, owner in enumerate(game.row.owners) if owner == player.id]


async def list_games(request: Request) -> Response:
    # a player's own games (their turn first, then ongoing, then finished,
    # with their invite links); a client without the cookie (a script, an
    # old client) is no player and holds no game: an empty list (the games
    # anyone may watch are /api/games/live)
    try:
        player = await player_in_thread(request)
        return JSONResponse([] if player is None else await hub_of(request).my_games(player.id))
    except Exception:
        log.exception("could not list games")
        return _bad("the store cannot be read; try again", 503)


async def live_games(request: Request) -> Response:
    # ongoing games anyone may watch: no tokens, no players
    try:
        return JSONResponse(await hub_of(request).live_games())
    except Exception:
        log.exception("could not list live games")
        return _bad("the store cannot be read; try again", 503)


async def _player_or_404(request: Request) -> Player | Response:
    player_id = request.path_params["player"]
    book: Players = request.app.state.players
    try:
        player = await hub_of(request).store.call(book.get, player_id)
    except Exception:
        log.exception("could not read player %s", player_id)
        return _bad("the store cannot be read; try again", 503)
    if player is None:
        return _bad(f"no player {player_id!r}", 404)
    return player


async def player_page(request: Request) -> Response:
    """``GET /api/players/{id}``: a player as others see it: name, ratings
    per speed, rating history, online games (no token, no account name)."""
    player = await _player_or_404(request)
    if isinstance(player, Response):
        return player
    hub = hub_of(request)
    try:
        store = hub.store
        ratings = await store.call(store.player_ratings, player.id)
        history = await store.call(store.rating_history, player.id)
        rows = await store.call(store.games_public, player.id)
    except Exception:
        log.exception("could not read player %s", player.id)
        return _bad("the store cannot be read; try again", 503)
    games = []
    for row in rows:
        item = hub.summary(row)
        item["you"] = [SIDE_LETTERS[s] for s, owner in enumerate(row.owners) if owner == player.id]
        games.append(item)
    return JSONResponse({
        "id": player.id,
        "name": player.name,
        "registered": player.account is not None,
        "ratings": {speed: (ratings[speed].view() if speed in ratings else None) for speed in SPEEDS},
        "history": [{**h, "rating": round(h["rating"]), "rd": round(h["rd"]),
                     "change": round(h["change"])} for h in history],
        "games": games,
    })


async def player_rating_svg(request: Request) -> Response:
    """``GET /api/players/{id}/rating.svg?speed=realtime``: the rating
    history as a chart (:func:`kamisado.pictures.graph.rating_svg`)."""
    from kamisado.pictures.graph import rating_svg

    speed = request.query_params.get("speed", "realtime")
    if speed not in SPEEDS:
        return _bad(f"expected speed {' or '.join(SPEEDS)}, found {speed!r}")
    player = await _player_or_404(request)
    if isinstance(player, Response):
        return player
    try:
        store = hub_of(request).store
        history = [h for h in await store.call(store.rating_history, player.id) if h["speed"] == speed]
    except Exception:
        log.exception("could not read player %s", player.id)
        return _bad("the store cannot be read; try again", 503)
    title = f"{player.name or 'Player'}: {speed} rating"
    return Response(rating_svg(history, title=title), media_type="image/svg+xml",
                    headers={"Cache-Control": "no-cache"})


async def game_or_404(request: Request) -> Game | Response:
    """The game named in the path (read from the store when not in memory,
    and not kept there), or the error answer."""
    try:
        game = await hub_of(request).load(request.path_params["game"])
    except GameError as exc:
        return _bad(str(exc), 503)
    if game is None:
        return _bad(f"no game {request.path_params['game']!r}", 404)
    return game


async def game_record(request: Request) -> Response:
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    text = records.write(game.record())
    return PlainTextResponse(
        text,
        headers={"Content-Disposition": f'attachment; filename="kamisado-{game.row.id}.txt"'},
    )


async def game_steps(request: Request) -> Response:
    # every step: its entries as the move list shows them, and for a step
    # with a move the tower that moved and the towers it pushed back, worked
    # out on the step before (the same fields as a live frame's ``last``)
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    steps: list[dict[str, Any]] = []
    before: Position | None = None
    for s in records.replay(game.match):
        moved: dict[str, Any] = {"mover": None, "push": False, "pushed": []}
        if s.move is not None and before is not None and s.ply > 0:
            view = move_view(before, s.move)
            moved = {"mover": view["mover"], "push": view["push"], "pushed": view["pushed"]}
        steps.append(
            {
                "round": s.round,
                "ply": s.ply,
                "move": None if s.move is None else str(s.move),
                "entries": [entry_view(e, s.move) for e in s.entries],
                **moved,
                "fill": s.fill,
                **position_view(s.position),
            }
        )
        before = s.position
    black, gold = game.seat_names()
    match = game.match
    return JSONResponse(
        {
            "game": game.row.id,
            "name": match.name,
            "target": match.target,
            "series": match.series,
            "points": list(match.points),
            "seats": {"b": black, "g": gold},
            "rounds": rounds_view(match),
            "steps": steps,
        }
    )


async def upload_record(request: Request) -> Response:
    raw = await read_body(request, MAX_RECORD_BODY)
    if isinstance(raw, Response):
        return raw
    try:
        text = raw.decode("utf-8")
        rec = records.read(text)
    except UnicodeDecodeError:
        return _bad("expected a UTF-8 text record")
    except KamisadoError as exc:
        return _bad(str(exc))
    return await _created(
        request, lambda hub, player: hub.create_from_record(rec, None if player is None else player.id))


def kpn_arg(request: Request) -> Position | Response:
    """The position in the ``kpn`` query parameter, or the error answer."""
    kpn = request.query_params.get("kpn", "")
    try:
        return Position(kpn)
    except KamisadoError as exc:
        return _bad(str(exc))


async def position(request: Request) -> Response:
    pos = kpn_arg(request)
    if isinstance(pos, Response):
        return pos
    # with ``move``: the position after it, the real push flag and the
    # move's view (``last``: mover, pushed towers, entries) for the lesson page
    text = request.query_params.get("move")
    if not text:
        return JSONResponse({**position_view(pos), "push": False})
    try:
        move = pos.parse_move(text)
        last = move_view(pos, move)
        pos.push_move(move)
    except KamisadoError as exc:
        return _bad(str(exc))
    return JSONResponse({**position_view(pos), "push": last["push"], "last": last})


async def analyse(request: Request) -> Response:
    pos = kpn_arg(request)
    if isinstance(pos, Response):
        return pos
    hub = hub_of(request)
    if not hub.can_think:
        return _bad("no engine in this server", 503)
    try:
        ms = min(3000.0, max(50.0, float(request.query_params.get("ms", "400"))))
    except ValueError:
        return _bad("expected ms to be a number")
    lines = request.query_params.get("lines", "0")
    if not lines.isdigit() or int(lines) > ANALYSE_LINES_MAX:
        return _bad(f"expected lines to be a whole number 0..{ANALYSE_LINES_MAX}")
    args = (pos.kpn(), ms, int(lines)) if int(lines) else (pos.kpn(), ms)
    result = await in_analysis_slot(request, worker.analyse, *args)
    if isinstance(result, Response):
        return result
    if result.get("best"):
        # the best move's move-list entries, as the page words them
        result["best_entries"] = move_view(pos, Move.from_str(result["best"]))["entries"]
    for line in result.get("lines", []):
        line["entries"] = move_view(pos, Move.from_str(line["move"]))["entries"]
    return JSONResponse(result)


async def reply(request: Request) -> Response:
    pos = kpn_arg(request)
    if isinstance(pos, Response):
        return pos
    if pos.outcome is not None:
        return _bad("the round is over")
    hub = hub_of(request)
    if not hub.can_think:
        return _bad("no engine in this server", 503)
    move = await in_analysis_slot(request, worker.solver_reply, pos.kpn())
    if isinstance(move, Response):
        return move
    return JSONResponse({"move": move})


# -- pictures: the board, the evaluation graph, the match as a GIF ---------------

#: ``?size=`` of the board pictures: default and bounds (pixels)
PICTURE_SIZE = (400, 120, 1200)
#: ``?size=`` of the GIF: default and bounds; a GIF of more frames is refused
GIF_SIZE = (320, 120, 480)
GIF_MAX_FRAMES = 1000
GIF_DELAY_MS = 700
#: the evaluation graph's search budget: nodes for the whole game (about a
#: second of the compiled engine), shared by its positions within these bounds
GRAPH_NODES = 1_500_000
GRAPH_NODES_EACH = (500, 20_000)
#: how long browsers and proxies may keep a picture of a game (seconds)
PICTURE_CACHE_S = 10


def size_arg(request: Request, bounds: tuple[int, int, int]) -> int | Response:
    default, low, high = bounds
    raw = request.query_params.get("size")
    if raw is None:
        return default
    try:
        size = int(raw)
    except ValueError:
        return _bad("expected size to be a whole number")
    if not low <= size <= high:
        return _bad(f"size must be {low} to {high}")
    return size


def _game_position(game: Game) -> Position:
    """The position a game's pictures show: the last one reached (a round's
    end while the winner chooses the next round's fill), with its own last
    move, so :func:`kamisado.pictures.svg.marks` finds the marks (no replay needed)."""
    return game.match.position


def _picture_headers(game: Game) -> dict[str, str]:
    return {"Cache-Control": f"public, max-age={PICTURE_CACHE_S}",
            "ETag": f'"{game.row.id}-{game.seq}"'}


async def _picture_of(request: Request) -> tuple[Game, int] | Response:
    """The game a picture request names and the size asked for, or the error answer."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    size = size_arg(request, PICTURE_SIZE)
    if isinstance(size, Response):
        return size
    return game, size


async def board_svg(request: Request) -> Response:
    asked = await _picture_of(request)
    if isinstance(asked, Response):
        return asked
    game, size = asked
    pos = _game_position(game)
    text = svg.board(pos, size=size, title=f"Kamisado: {game.match.name}", **svg.marks(pos))
    return Response(text, media_type="image/svg+xml", headers=_picture_headers(game))


def _board_png(pos: Position, size: int) -> bytes:
    from kamisado.pictures import gif

    return gif.png(pos, size=size, **svg.marks(pos))


async def board_png(request: Request) -> Response:
    asked = await _picture_of(request)
    if isinstance(asked, Response):
        return asked
    game, size = asked
    data = await asyncio.to_thread(_board_png, _game_position(game), size)
    return Response(data, media_type="image/png", headers=_picture_headers(game))


def _match_gif(match: Any, size: int) -> bytes:
    import io

    from kamisado.pictures import gif

    pictures, durations = [], []
    for frame, ends in gif.frames(match, size=size):
        pictures.append(frame)
        durations.append(GIF_DELAY_MS * gif.END_HOLD if ends else GIF_DELAY_MS)
    buf = io.BytesIO()
    pictures[0].save(buf, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=durations, loop=0, optimize=True, disposal=1)
    return buf.getvalue()


async def match_gif(request: Request) -> Response:
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    size = size_arg(request, GIF_SIZE)
    if isinstance(size, Response):
        return size
    frames = sum(len(r.moves) + 1 for r in game.match.rounds)
    if frames > GIF_MAX_FRAMES:
        return _bad(f"the game is too long for a GIF (at most {GIF_MAX_FRAMES} positions)")
    data = await asyncio.to_thread(_match_gif, game.match, size)
    return Response(data, media_type="image/gif", headers={
        **_picture_headers(game),
        "Content-Disposition": f'attachment; filename="kamisado-{game.row.id}.gif"',
    })


async def _analyse_game(
    request: Request, fn: Callable[..., Any], total: int, each: tuple[int, int]
) -> tuple[Any, Any]:
    """``fn(target, series, start, moves, nodes)`` for the requested game in an
    analysis slot, ``nodes`` being ``total`` shared by the game's positions
    within the bounds ``each``: ``(game, result)``, or ``(None, response)``
    for a missing game, a server with no engine, or a busy pool."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return None, game
    if not hub_of(request).can_think:
        return None, _bad("no engine in this server", 503)
    row = game.row
    positions = sum(len(r.moves) + 1 for r in game.match.rounds)
    low, high = each
    nodes = min(high, max(low, total // max(positions, 1)))
    result = await in_analysis_slot(request, fn, row.target, row.series,
                                    row.start_kpn, list(game.played), nodes)
    if isinstance(result, Response):
        return None, result
    return game, result


async def evaluations_svg(request: Request) -> Response:
    game, result = await _analyse_game(
        request, worker.evaluation_svg, GRAPH_NODES, GRAPH_NODES_EACH)
    if game is None:
        return result  # type: ignore[no-any-return]
    return Response(result, media_type="image/svg+xml", headers=_picture_headers(game))


#: /api/analyse's ``?lines=``: the most best moves (MultiPV) it gives
ANALYSE_LINES_MAX = 5
#: the review marks' solver budget: nodes for the whole game, shared by its
#: positions within these bounds (a few seconds of the compiled engine at most)
REVIEW_NODES = 8_000_000
REVIEW_NODES_EACH = (20_000, 200_000)


async def game_review(request: Request) -> Response:
    """The marks of a game's moves (:func:`kamisado.web.worker.review`): ``??``
    where the solver proves the mover threw away a won round."""
    game, result = await _analyse_game(
        request, worker.review, REVIEW_NODES, REVIEW_NODES_EACH)
    if game is None:
        return result  # type: ignore[no-any-return]
    return JSONResponse({"game": game.row.id, **result})


class AnalysisSlots:
    """At most ``slots`` analysis jobs (/api/analyse, /api/reply) in the
    process pool at once, one fewer than its workers, so a computer
    opponent's move never waits behind them; at most ``ANALYSIS_QUEUE``
    jobs a slot wait, more are refused (busy)."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.semaphore = asyncio.Semaphore(slots)
        self.waiting = 0

    def busy(self) -> bool:
        return self.semaphore.locked() and self.waiting >= ANALYSIS_QUEUE * self.slots


async def in_analysis_slot(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in the pool once an analysis slot is free, or 503 when too many wait."""
    slots: AnalysisSlots = request.app.state.analysis
    if slots.busy():
        return JSONResponse(
            {"error": "the engine is busy with analysis; try again in a few seconds"},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    slots.waiting += 1
    try:
        await slots.semaphore.acquire()
    finally:
        slots.waiting -= 1
    try:
        return await hub_of(request).run_in_pool(fn, *args, queue="analysis")
    except JobError as exc:  # the job queue is unreachable, or no worker answered
        log.warning("analysis job failed: %s", exc)
        return JSONResponse({"error": f"the engine is unavailable: {exc}; try again later"},
                            status_code=503, headers={"Retry-After": "5"})
    finally:
        slots.semaphore.release()


def lang_arg(request: Request) -> str:
    """The ``lang`` query parameter, English unless it is a page language."""
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGUAGES else "en"


async def lessons(request: Request) -> Response:
    return JSONResponse(_lessons("lessons", lang_arg(request)))


async def puzzles(request: Request) -> Response:
    return JSONResponse(_lessons("puzzles", lang_arg(request)))


# -- the websocket ---------------------------------------------------------------


#: The close code for a connection that floods far past its frame limit.
POLICY_VIOLATION = 1008


async def ws_endpoint(ws: WebSocket) -> None:
    """One page's websocket: each frame read by :func:`parse` and handed to
    the hub; a refused frame gets an error frame and the connection stays.

    Frames are limited per connection (``frame``): one over the limit gets
    a ``rate_limited`` error and is dropped; a connection that sends ten
    times as many (``flood``) is closed (1008).  A create frame also takes
    from the address's ``create`` limit, as POST /api/games does."""
    await ws.accept()
    hub = hub_of(ws)
    limiter: RateLimiter = ws.app.state.limiter
    frames, flood = limiter.bucket("frame"), limiter.bucket("flood")
    conn = Conn(ws.send_text, ws.close)
    try:  # the player its browser is (its cookie), or none
        player = await player_in_thread(ws)
    except Exception:
        log.exception("could not read the player of a websocket")
        await hub.error(conn, "storage", "the store cannot be read; try again")
        await ws.close(1013, "try again later")
        return
    if player is not None:
        conn.player, conn.name = player.id, player.name
        conn.registered = player.account is not None
    lobby: Lobby = ws.app.state.lobby
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            now = limiter.clock()
            if flood is not None and flood.take(now):
                log.warning("closing a websocket from %s: frame flood", client_key(ws.scope))
                await hub.error(conn, "rate_limited", "too many websocket frames: the connection is closed")
                await ws.close(POLICY_VIOLATION, "too many frames")
                break
            wait = 0.0 if frames is None else frames.take(now)
            if frames is not None and wait:
                await hub.error(conn, "rate_limited", refusal(frames.limit, wait)[0] + "; the frame was dropped")
                continue
            frame = message.get("text")
            if frame is None:
                frame = message.get("bytes") or b""
            try:
                msg = parse(frame)
                if isinstance(msg, JoinMsg):
                    await hub.join(conn, msg)
                elif isinstance(msg, MoveMsg | FillMsg):
                    await hub.act(conn, msg)
                elif isinstance(msg, ResignMsg | AbortMsg):
                    await hub.end(conn, msg)
                elif isinstance(msg, TakebackMsg):
                    await hub.takeback(conn, msg)
                elif isinstance(msg, RematchMsg):
                    await hub.rematch(conn, msg)
                elif isinstance(msg, ClaimMsg):
                    await hub.claim(conn, msg)
                elif isinstance(msg, LobbyMsg):
                    await lobby.watch(conn, msg)
                elif isinstance(msg, ChallengeMsg):
                    wait = limiter.take_all("create", client_keys(ws.scope))
                    if wait:
                        await hub.error(conn, "rate_limited", refusal(limiter.limits["create"], wait)[0])
                        continue
                    await lobby.post(hub, conn, msg)
                elif isinstance(msg, CancelMsg):
                    await lobby.cancel(conn, msg)
                elif isinstance(msg, AcceptMsg):
                    await lobby.accept(hub, conn, msg)
                elif isinstance(msg, PingMsg):
                    await ws.send_text(PongFrame().to_json())
                elif isinstance(msg, CreateMsg):
                    wait = limiter.take_all("create", client_keys(ws.scope))
                    if wait:
                        await hub.error(conn, "rate_limited", refusal(limiter.limits["create"], wait)[0])
                        continue
                    game, tokens = await hub.create(msg, conn.player, conn.registered, conn.name)
                    await ws.send_text(CreatedFrame(game.row.id, tokens).to_json())
            except (ProtocolError, GameError) as exc:
                await hub.error(conn, exc.code, str(exc))
            except Exception:
                log.exception("error handling a frame")
                await hub.error(conn, "server", "the server failed on this message")
    except WebSocketDisconnect:
        pass
    finally:
        hub.leave(conn)
        if conn.lobby:
            await lobby.leave(conn)  # its challenges go with it


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
) -> Starlette:
    """The whole web app over the database ``db`` (a URL or an SQLite path,
    or a :class:`Store` to use, closed when the app stops).

    ``workers`` is the size of the process pool for computer moves and
    analysis (default: the number of CPUs; 0: no computer at all, for tests
    of the protocol alone).  The hub is in ``app.state.hub`` while it runs.

    ``limits``: the rate limits (default :data:`kamisado.web.guard.LIMITS`,
    none when ``KAMISADO_WEB_LIMITS=off``), or a :class:`RateLimiter` to
    use (tests give one with their own clock); ``allow_origins``: origins
    besides the site's own that may post and open the websocket.

    ``secret`` signs the players' cookies (default: ``KAMISADO_SECRET``,
    else a key generated once and kept in the database;
    :func:`kamisado.web.players.session_secret`).

    ``queue``: the Redis URL of a job queue (``redis://HOST:PORT/DB``):
    computer moves and analysis go to the ``kamisado worker`` processes
    that serve it, and this process runs no pool (:mod:`kamisado.web.jobs`).
    """
    keys = SessionKeys(secret)
    limiter = limits if isinstance(limits, RateLimiter) else RateLimiter(
        limits_from_env() if limits is None else limits
    )
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
