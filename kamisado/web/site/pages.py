"""The page and the JSON API: the site's page, its share pages, and the games, players, records and positions over HTTP.

The routes themselves are listed in :mod:`kamisado.web.site.server`; the board
pictures are :mod:`kamisado.web.site.images`, the engine's analysis
:mod:`kamisado.web.site.analysis`, the websocket :mod:`kamisado.web.site.websocket`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.websockets import WebSocket

from kamisado.rules import record as records
from kamisado.rules.board import SIDE_LETTERS, KamisadoError
from kamisado.rules.match import OVER, Match
from kamisado.rules.position import Position
from kamisado.web.accounts.players import Player, Players, player_in_thread
from kamisado.web.basics.messages import (
    LEVEL_NAMES,
    ProtocolError,
    error_body,
    parse_create,
)
from kamisado.web.basics.ratings import SPEEDS, computer_rating, speed_of
from kamisado.web.basics.text import UnstorableText, check_storable, unstorable_char
from kamisado.web.basics.views import entry_view, move_view, position_view, rounds_view
from kamisado.web.community.lobby import Lobby
from kamisado.web.edge.guard import client_keys
from kamisado.web.edge.public import PublicSite
from kamisado.web.play.game import Game
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameError
from kamisado.web.play.uploads import ParseBudget, read_upload
from kamisado.web.site.moderation import blocked_for
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.storage import GameRow

__all__ = ["MAX_JSON_BODY", "MAX_RECORD_BODY", "STATIC", "bad", "game_or_404", "hub_of", "read_body"]

log = logging.getLogger("kamisado.web")

#: The page's files (shipped as package data).
STATIC = Path(str(files("kamisado.web") / "static"))
LANGUAGES = ("en", "de", "hu")
#: The largest request bodies, in bytes: a record upload (a long series of
#: rounds is some tens of kilobytes) and a JSON body (a game's settings).
#: Checked while the body arrives: 413 as soon as it is known to be larger.
MAX_RECORD_BODY = 1 << 20
MAX_JSON_BODY = 64 << 10


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


def bad(message: str, status: int = 400, code: str | None = None,
        args: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    """An error answer with ``status``: ``{"error": message, "code": code,
    "args": args}`` (:func:`error_body`)."""
    return JSONResponse(error_body(message, status, code, args), status_code=status, headers=headers)


def _too_large(limit: int) -> JSONResponse:
    # the rest of the body is not read: the connection is closed after this
    return bad(f"request body too large (at most {limit} bytes)", 413, "too_large", {"n": limit},
               headers={"Connection": "close"})


async def read_body(request: Request, limit: int) -> bytes | Response:
    """The request's body, or an error response: 413 as soon as the body is
    known to pass ``limit`` bytes (from ``Content-Length`` before reading
    anything, or counted as a chunked body arrives), so nothing larger is
    ever held in memory."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            return bad(f"expected a Content-Length in bytes, found {length!r}")
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
    from kamisado.rules.board import COLOUR_NAMES, SQUARE_COLOUR

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


def hub_of(conn: Request | WebSocket) -> Hub:
    """The app's :class:`Hub` (set by :func:`lifespan`)."""
    hub: Hub = conn.app.state.hub
    return hub


# -- the page ---------------------------------------------------------------------


#: The page's link preview (Open Graph, Twitter), written into ``<!--og-->``.
OG_TITLE = "Kamisado"
OG_DESCRIPTION = "Play Kamisado, the game of coloured towers: against the computer, a friend here or online."


def og_tags(request: Request, *, path: str, title: str, description: str, image: str, alt: str) -> str:
    """The page's Open Graph and Twitter card tags; ``path`` (the page) and
    ``image`` are paths on this site.  Links are built from the public URL (``--public-url``),
    never from the request's ``Host`` (anyone may send any): without one
    they are paths on this site, and ``og:url`` is left out."""
    from html import escape

    site: PublicSite = request.app.state.site
    tags = [("property", "og:type", "website"), ("property", "og:title", title),
            ("property", "og:description", description), ("property", "og:image", site.absolute(image)),
            ("property", "og:image:alt", alt), ("name", "twitter:card", "summary_large_image")]
    if site.url is not None:
        tags.append(("property", "og:url", site.absolute(path)))
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
    og = og_tags(request, path="/", title=OG_TITLE, description=OG_DESCRIPTION, image="/static/og.png",
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
    og = og_tags(request, path=f"/game/{game.row.id}", title=title, description=description,
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
        check_storable(body, "create")
        msg = parse_create(body)
    except ProtocolError as exc:
        return bad(str(exc), 400, exc.code)
    except UnstorableText as exc:
        return bad(str(exc), 400, "malformed")
    except (ValueError, RecursionError):
        return bad("create: expected a JSON object", 400, "malformed")
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
        return bad(str(exc), {"storage": 503, "account_needed": 403}.get(exc.code, 400), exc.code)
    except StoreErrors:
        log.exception("could not read the player")
        return bad("the store cannot be read; try again", 503)
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
    except StoreErrors:
        log.exception("could not list games")
        return bad("the store cannot be read; try again", 503)


async def live_games(request: Request) -> Response:
    # ongoing games anyone may watch: no tokens, no players
    try:
        return JSONResponse(await hub_of(request).live_games())
    except StoreErrors:
        log.exception("could not list live games")
        return bad("the store cannot be read; try again", 503)


async def _player_or_404(request: Request) -> Player | Response:
    player_id = request.path_params["player"]
    if unstorable_char(player_id) is not None:  # no player has such an id
        return bad(f"no player {player_id!r}", 404, "no_player")
    book: Players = request.app.state.players
    try:
        player = await hub_of(request).store.call(book.get, player_id)
    except StoreErrors:
        log.exception("could not read player %s", player_id)
        return bad("the store cannot be read; try again", 503)
    if player is None:
        return bad(f"no player {player_id!r}", 404, "no_player")
    return player


async def player_page(request: Request) -> Response:
    """``GET /api/players/{id}``: a player as others see it: name, ratings
    per speed, rating history, online games (no token, no account name),
    and whether the viewer blocks it (``blocked``)."""
    player = await _player_or_404(request)
    if isinstance(player, Response):
        return player
    hub = hub_of(request)
    try:
        store = hub.store
        ratings = await store.call(store.player_ratings, player.id)
        history = await store.call(store.rating_history, player.id)
        rows = await store.call(store.games_public, player.id)
        results = await store.call(store.results, player.id)
        recent = await recent_games(hub, player.id, rows)
    except GameError:
        return bad("the store cannot be read; try again", 503)
    except StoreErrors:
        log.exception("could not read player %s", player.id)
        return bad("the store cannot be read; try again", 503)
    games = []
    for row in rows:
        item = hub.summary(row)
        item["you"] = [SIDE_LETTERS[s] for s, owner in enumerate(row.owners) if owner == player.id]
        games.append(item)
    lobby: Lobby = request.app.state.lobby
    try:
        blocked = await blocked_for(request, player.id)
    except StoreErrors:
        log.exception("could not read a block")
        return bad("the store cannot be read; try again", 503)
    return JSONResponse({
        "online": await lobby.online(hub, player.id),
        "blocked": blocked,
        "results": {speed: results.get(speed, {"won": 0, "lost": 0}) for speed in SPEEDS},
        "recent": recent,
        "id": player.id,
        "name": player.name,
        "registered": player.account is not None,
        "bot": player.bot,
        "ratings": {speed: (ratings[speed].view() if speed in ratings else None) for speed in SPEEDS},
        "history": [{**h, "rating": round(h["rating"]), "rd": round(h["rd"]),
                     "change": round(h["change"])} for h in history],
        "games": games,
    })


#: How many finished games a player page lists under "Recent games".
RECENT_GAMES = 10


async def recent_games(hub: Hub, player: str, rows: list[GameRow]) -> list[dict[str, Any]]:
    """A player's last :data:`RECENT_GAMES` finished games against another
    person (of ``rows``, its online games, newest first): the opponent, the
    opponent's rating now at the game's speed (``None``: untimed, or not
    rated there yet), the clock and the result (``won``, ``lost``, or
    ``aborted``), each game replayed by the rules for its winner."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if len(out) >= RECENT_GAMES:
            break
        if row.state != OVER or player not in row.owners or None in row.owners:
            continue
        side = row.owners.index(player)
        if row.owners[1 - side] == player:
            continue  # both seats its own
        game = await hub.load(row.id)
        if game is None:
            continue
        winner = game.winner()
        opponent = row.owners[1 - side]
        assert opponent is not None
        days = row.clock_days or None
        speed = speed_of(days, None if days else row.clock_initial)
        rating: dict[str, Any] | None = None
        if speed is not None:
            got = await hub.store.call(hub.store.ratings_of, [opponent], speed)
            if opponent in got:
                rating = {"rating": round(got[opponent].rating), "provisional": got[opponent].provisional}
        clock = None if speed is None else (
            {"days": days} if days else {"initial": row.clock_initial, "increment": row.clock_increment or 0})
        out.append({
            "id": row.id,
            "at": row.updated,
            "opponent": {"player": opponent,
                         "name": (row.black_name, row.gold_name)[1 - side],
                         "rating": rating},
            "you": SIDE_LETTERS[side],
            "clock": clock,
            "speed": speed,
            "rated": row.rated,
            "target": row.target,
            "series": row.series,
            "points": [row.black_points, row.gold_points],
            "ended": row.ended,
            "result": "aborted" if winner is None else ("won" if winner == side else "lost"),
        })
    return out


#: A player counts on the leaderboard while it played a rated game at the
#: speed within this many days.
ACTIVE_DAYS = 30
#: How many players the leaderboard shows per speed.
LEADERBOARD_SIZE = 50


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard?speed=realtime``: the best 50 active players
    at a speed (a rated game there in the last 30 days; a provisional rating
    is left out), highest rating first; ``provisional``: the best 50 active
    players whose rating is still provisional, listed apart (the page shows
    them below, marked ``?``)."""
    speed = request.query_params.get("speed", "realtime")
    if speed not in SPEEDS:
        return bad(f"expected speed {' or '.join(SPEEDS)}, found {speed!r}")
    store = hub_of(request).store
    since = time.time() - ACTIVE_DAYS * 86400
    try:
        rows = await store.call(store.leaderboard, speed, since, LEADERBOARD_SIZE)
        unsure = await store.call(store.leaderboard, speed, since, LEADERBOARD_SIZE, True)
    except StoreErrors:
        log.exception("could not read the leaderboard")
        return bad("the store cannot be read; try again", 503)

    def listed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"rank": i + 1, "player": r["player"], "name": r["name"], "rating": round(r["rating"]),
                 "rd": round(r["rd"]), "games": r["games"], "bot": bool(r["bot"])} for i, r in enumerate(rows)]

    return JSONResponse({"speed": speed, "active_days": ACTIVE_DAYS, "players": listed(rows),
                         "provisional": listed(unsure)})


async def lobby_counts(request: Request) -> Response:
    """``GET /api/lobby``: the lobby's counts, as the ``lobby_counts`` frame
    gives them (players online and games in play over every process, and
    a top game in play to watch)."""
    try:
        counts = await request.app.state.lobby.counts()
    except StoreErrors:
        log.exception("could not count the lobby")
        return bad("the store cannot be read; try again", 503)
    return JSONResponse({k: v for k, v in counts.items() if k != "type"})


async def player_rating_svg(request: Request) -> Response:
    """``GET /api/players/{id}/rating.svg?speed=realtime``: the rating
    history as a chart (:func:`rating_chart`)."""
    speed = request.query_params.get("speed", "realtime")
    if speed not in SPEEDS:
        return bad(f"expected speed {' or '.join(SPEEDS)}, found {speed!r}")
    width = width_arg(request, 640)
    if isinstance(width, Response):
        return width
    player = await _player_or_404(request)
    if isinstance(player, Response):
        return player
    try:
        store = hub_of(request).store
        history = [h for h in await store.call(store.rating_history, player.id) if h["speed"] == speed]
    except StoreErrors:
        log.exception("could not read player %s", player.id)
        return bad("the store cannot be read; try again", 503)
    svg = rating_chart(history, player.name, speed, width, lang_arg(request))
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})


def rating_chart(history: list[dict[str, Any]], name: str, speed: str, width: int, lang: str) -> str:
    """A player's rating chart for ``speed`` as the player page shows it:
    titled "name: speed" in ``lang``, ``width`` px wide.

    >>> "Ann: Echtzeit" in rating_chart([], "Ann", "realtime", 360, "de")
    True
    """
    from kamisado.pictures.graph import rating_svg

    words = page_words(lang)
    title = words["player.chart_title"].replace("{name}", name or words["player.anonymous"]).replace(
        "{speed}", words[f"speed.{speed}"])
    height = max(220, min(300, round(width * 0.47)))
    return rating_svg(history, title=title, width=width, height=height, words=chart_words(lang))


async def game_or_404(request: Request) -> Game | Response:
    """The game named in the path (read from the store when not in memory,
    and not kept there), or the error answer."""
    game_id = request.path_params["game"]
    if unstorable_char(game_id) is not None:  # no game has such an id
        return bad(f"no game {game_id!r}", 404, "no_game")
    try:
        game = await hub_of(request).load(game_id)
    except GameError as exc:
        return bad(str(exc), 503)
    if game is None:
        return bad(f"no game {request.path_params['game']!r}", 404, "no_game")
    return game


#: A game with more actions than this has its record and its steps worked
#: out in a thread (``GET /api/games/{id}/record``, ``.../steps``): their CPU
#: grows with the game (about 0.1 ms an action for the steps).
INLINE_ACTIONS = 60


async def beside_loop(game: Game, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``: on the event loop for a short game, in a thread for a
    long one (more than :data:`INLINE_ACTIONS` actions).  ``args`` must be
    what the game holds now (an action meanwhile replaces its match, never
    changes it in place)."""
    if len(game.tokens) <= INLINE_ACTIONS:
        return fn(*args)
    return await asyncio.to_thread(fn, *args)


async def game_record(request: Request) -> Response:
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    text = await beside_loop(game, records.write, game.record())
    return PlainTextResponse(
        text,
        headers={"Content-Disposition": f'attachment; filename="kamisado-{game.row.id}.txt"'},
    )


def steps_view(match: Match, comments: dict[tuple[int, int], records.Comment]) -> list[dict[str, Any]]:
    """Every step of a match, for ``/api/games/{id}/steps``: its entries as
    the move list shows them, and for a step with a move the tower that
    moved and the towers it pushed back, worked out on the step before (the
    same fields as a live frame's ``last``), its comment and its position.

    >>> m = Match(1); m.apply("a1-a4")
    >>> [(s["ply"], s["move"], s["mover"] and s["mover"]["colour"]) for s in steps_view(m, {})]
    [(0, None, None), (1, 'a1-a4', 'brown')]
    """
    steps: list[dict[str, Any]] = []
    before: Position | None = None
    for s in records.replay(match):
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
                "comment": comment_view(comments.get((s.round, s.ply)) if s.ply else None),
                **position_view(s.position),
            }
        )
        before = s.position
    return steps


async def game_steps(request: Request) -> Response:
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    # an uploaded record's comments, on the moves still in effect
    steps = await beside_loop(game, steps_view, game.match, game.comments())
    black, gold = game.seat_names()
    match = game.match
    return JSONResponse(
        {
            "game": game.row.id,
            "name": match.name,
            "target": match.target,
            "series": match.series,
            "points": list(match.points),
            "over": game.state == OVER,
            "seats": {"b": black, "g": gold},
            "rounds": rounds_view(match),
            "steps": steps,
        }
    )


def comment_view(comment: records.Comment | None) -> dict[str, str] | None:
    """A move's comment in the steps: as the record writes it and in words.

    >>> comment_view(records.Comment(("cp", 35), 12, 1234))
    {'text': '+0.35/12 1.234s', 'words': 'score +0.35 at depth 12, 1.234 s used'}
    >>> comment_view(None) is None
    True
    """
    if comment is None:
        return None
    return {"text": comment.text(), "words": comment.describe()}


#: What a refused upload answers (:class:`kamisado.web.play.uploads.ParseBudget`):
#: status, message, seconds to wait (``Retry-After``).
PARSE_REFUSALS = {
    "busy_key": (429, "one record at a time from one address or player: try again once the last"
                      " one is answered", 2),
    "busy_all": (503, "the server is reading too many records at once; try again in a few seconds", 5),
}


async def off_loop(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` away from the event loop, for work whose CPU grows with
    its input: in the computer's process pool once an analysis slot is free
    (so a computer move always has a worker), or, where this process runs
    no pool, one at a time (:meth:`ParseBudget.run_alone`): in a process of
    its own when a job queue's workers think, in a thread when no engine
    runs.  ``fn``, its arguments and its answer must pickle."""
    computer = hub_of(request).computer
    if computer.pool is not None and computer.jobs is None:
        async with request.app.state.analysis.semaphore:
            return await computer.run_in_pool(fn, *args, queue="analysis")
    budget: ParseBudget = request.app.state.parses
    return await budget.run_alone(fn, *args)


async def upload_record(request: Request) -> Response:
    """``POST /api/records``: a text record, or a game played offline in the
    page as JSON (``Content-Type: application/json``), made a game.  The
    parse and the replays run away from the event loop (:func:`off_loop`),
    one at a time per client key and at most ``PARSES_MOST`` at once."""
    raw = await read_body(request, MAX_RECORD_BODY)
    if isinstance(raw, Response):
        return raw
    is_json = request.headers.get("content-type", "").split(";")[0].strip() == "application/json"
    budget: ParseBudget = request.app.state.parses
    keys = client_keys(request.scope)
    refused = budget.enter(keys)
    if refused is not None:
        status, message, wait = PARSE_REFUSALS[refused]
        return bad(message, status, headers={"Retry-After": str(wait)})
    try:
        try:
            player = await player_in_thread(request)
        except StoreErrors:
            log.exception("could not read the player")
            return bad("the store cannot be read; try again", 503)
        try:
            built = await off_loop(request, read_upload, raw, is_json, None if player is None else player.id)
        except (BrokenExecutor, GameError) as exc:  # the pool broke twice, or is gone (stopping)
            log.warning("could not read an uploaded record: %s", exc)
            return bad("the record could not be read now; try again", 503, headers={"Retry-After": "5"})
    finally:
        budget.leave(keys)
    if isinstance(built, str):  # the rules' words (line, column, what was expected) stay English
        return bad(built, 400, "record_unreadable", {"detail": built})
    return await _created(request, lambda hub, _player: hub.create_built(built))


def kpn_arg(request: Request) -> Position | Response:
    """The position in the ``kpn`` query parameter, or the error answer."""
    kpn = request.query_params.get("kpn", "")
    try:
        return Position(kpn)
    except KamisadoError as exc:
        return bad(str(exc))


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
        return bad(str(exc))
    return JSONResponse({**position_view(pos), "push": last["push"], "last": last})


def lang_arg(request: Request) -> str:
    """The ``lang`` query parameter, English unless it is a page language."""
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGUAGES else "en"


def page_words(lang: str) -> dict[str, str]:
    """The page's translations in ``lang`` (``static/i18n/<lang>.json``),
    read once a language: what the server draws in the page's words.

    >>> page_words("hu")["side.b"]
    'Fekete'
    """
    if lang not in _PAGE_WORDS:
        text = (files("kamisado.web") / "static" / "i18n" / f"{lang}.json").read_text(encoding="utf-8")
        _PAGE_WORDS[lang] = json.loads(text)
    return _PAGE_WORDS[lang]


_PAGE_WORDS: dict[str, dict[str, str]] = {}


def chart_words(lang: str) -> dict[str, str]:
    """The charts' words (:data:`kamisado.pictures.graph.WORDS`) in ``lang``,
    from the page's keys ``graph.*`` and the side names.

    >>> chart_words("de")["gold"], chart_words("en")["wins_in"]
    ('Gold', '{side} wins in {n}')
    """
    words = page_words(lang)
    out = {k[len("graph."):]: v for k, v in words.items() if k.startswith("graph.")}
    out["black"], out["gold"] = words["side.b"], words["side.g"]
    return out


#: The widths a chart may be drawn at (CSS px): it is drawn at the width it
#: is shown at, so that its 11 px text stays 11 px on a phone.
CHART_WIDTHS = (280, 1200)


def width_arg(request: Request, default: int) -> int | Response:
    """The ``width`` query parameter (CSS px, within :data:`CHART_WIDTHS`), or a 400."""
    raw = request.query_params.get("width")
    if raw is None:
        return default
    lo, hi = CHART_WIDTHS
    if not (raw.isascii() and raw.isdigit()) or not lo <= int(raw) <= hi:
        return bad(f"expected width a whole number from {lo} to {hi}, found {raw[:20]!r}")
    return int(raw)


async def lessons(request: Request) -> Response:
    return JSONResponse(_lessons("lessons", lang_arg(request)))

