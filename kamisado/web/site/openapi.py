"""The HTTP API described: ``GET /api/openapi.json`` (OpenAPI 3.1) and its
reference, ``GET /api/docs`` (Swagger UI, served from ``static/apidocs``).

The description is kept here, beside the routes, as one table
(:data:`OPERATIONS`: path, method, what it takes and answers), built into
the OpenAPI document by :func:`description`.  ``tests/test_openapi.py``
checks that it names every route of the app with the same methods (and no
other), that it is valid OpenAPI 3.1, and runs Schemathesis against it on a
live server; docs/web-api.md says how a client is checked against it.

>>> doc = description()
>>> doc["openapi"], doc["paths"]["/api/levels"]["get"]["operationId"]
('3.1.0', 'levels')
>>> sorted(doc["components"]["securitySchemes"])
['bearerAuth', 'cookieAuth']
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

__all__ = ["OPERATIONS", "PAGE_PATHS", "ROUTES", "Operation", "description"]

Schema = dict[str, Any]

#: Routes of the app that are the page and its files, not the API: left out
#: of the description (the test checks each is a route of the app).
PAGE_PATHS = frozenset({"/", "/game/{game}", "/sw.js", "/manifest.webmanifest", "/static/engine/data/{name}",
                        "/api/docs"})

OBJ: Schema = {"type": "object"}
LIST: Schema = {"type": "array", "items": OBJ}


def obj(*required: str, **props: Schema) -> Schema:
    """An object schema with these keys required (any type unless given in ``props``).

    >>> obj("id", id={"type": "string"})
    {'type': 'object', 'required': ['id'], 'properties': {'id': {'type': 'string'}}}
    """
    out: Schema = {"type": "object", "required": list(required)}
    if props:
        out["properties"] = props
    return out


STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
PLAYER_VIEW = obj("id", "name", id=STR, name=STR)


@dataclass(frozen=True)
class Param:
    """A query or path parameter (a path's ``{name}`` is a path parameter
    of type string unless listed)."""

    name: str
    schema: Schema = field(default_factory=lambda: dict(STR))
    where: str = "query"
    required: bool = False
    about: str = ""


@dataclass(frozen=True)
class Operation:
    """One method on one path: ``ok`` is the 200 answer's schema in
    ``media`` (``None``: a body of that type, not JSON), ``errors`` the
    error statuses it gives (each a JSON ``Error``), ``body`` the JSON
    request body's schema, ``signed_in`` whether it needs a player's
    session (the cookie, or a personal token: docs/web-tokens.md)."""

    path: str
    method: str
    id: str
    summary: str
    tag: str
    ok: Schema | None = None
    media: str = "application/json"
    errors: tuple[int, ...] = ()
    params: tuple[Param, ...] = ()
    body: Schema | None = None
    body_media: str = "application/json"
    signed_in: bool = False


KPN = Param("kpn", required=True, about="a position in KPN (docs/notation.md)")
LANG = Param("lang", {"type": "string", "enum": ["en", "de", "hu"]}, about="the page's language (default en)")
SPEED = Param("speed", {"type": "string", "enum": ["realtime", "correspondence"]})
SIZE = Param("size", INT, about="the picture's size in px")
GAME_OUT = obj("id", "tokens", "you", id=STR, tokens=OBJ, you={"type": "array", "items": STR})
REASON = obj(reason=STR)
CREDENTIALS = obj("account", "password", account=STR, password=STR, name=STR)
PUZZLE_ANSWER = OBJ
BOT_OK = obj("ok", ok=BOOL)
SEQ = Param("seq", INT, about="the action count the bot saw: refused as stale (409) once the game moved on")

API_PLAYER = obj("id", "name", "rating", "bot", id=STR, name=STR, rating={"type": ["integer", "null"]}, bot=BOOL)
CHALLENGE = obj("id", "challenger", "destUser", "rated", "clock", "target", "series", "color", "status",
                id=STR, challenger=API_PLAYER, rated=BOOL, target=INT, series=BOOL,
                color={"type": "string", "enum": ["black", "gold", "random"]},
                status={"type": "string", "enum": ["created", "canceled", "declined", "accepted"]})
OK = obj("ok", ok=BOOL)
TOURNAMENT = obj("id", "kind", "name", "status", "standings", "games", id=STR, kind=STR, name=STR, status=STR,
                 standings=LIST, games=LIST)

#: Every operation of the HTTP API.
OPERATIONS: tuple[Operation, ...] = (
    # the game
    Operation("/api/board", "get", "board", "The board's colours, row by row", "game", obj("rows")),
    Operation("/api/levels", "get", "levels", "The computer's levels", "game",
              {"type": "array", "items": obj("name", "description", "elo", "rating")}),
    Operation("/api/engine", "get", "engine", "The server's version and engine core", "game",
              obj("version", "backend", version=STR, backend=STR)),
    Operation("/api/position", "get", "position", "A position (and the one after a move) as the page draws it",
              "game", obj("push"), errors=(400,), params=(KPN, Param("move", about="a move, c1-c5"))),
    Operation("/api/analyse", "get", "analyse", "The engine's analysis of a position", "game", OBJ,
              errors=(400, 503), params=(KPN, Param("ms", {"type": "number"}, about="thinking time, 50..3000"),
                                         Param("lines", INT, about="best lines, 0..5"))),
    Operation("/api/reply", "get", "reply", "The solver's reply in a position", "game", obj("move"),
              errors=(400, 503), params=(KPN,)),
    Operation("/api/lessons", "get", "lessons", "The lessons", "game", LIST, params=(LANG,)),
    Operation("/api/offline/positions", "get", "offline_positions", "The lessons' positions, for offline use",
              "game", OBJ),
    # games
    Operation("/api/games", "post", "create_game", "Start a game (as the create frame)", "games", GAME_OUT,
              errors=(400, 403, 413, 503), body=OBJ),
    Operation("/api/games", "get", "my_games", "This player's games (none without a session)", "games", LIST,
              errors=(503,)),
    Operation("/api/games/live", "get", "live_games", "Games in play anyone may watch", "games", LIST,
              errors=(503,)),
    Operation("/api/lobby", "get", "lobby", "Players online and games in play", "games", OBJ, errors=(503,)),
    Operation("/api/records", "post", "upload_record", "Make a game of a record (text, or JSON of an offline game)",
              "games", GAME_OUT, errors=(400, 413, 429, 503), body={"type": "string"},
              body_media="text/plain"),
    Operation("/api/games/{game}/record", "get", "game_record", "The game's record", "games", None,
              media="text/plain", errors=(404,)),
    Operation("/api/games/{game}/steps", "get", "game_steps", "Every step of the game", "games", obj("game"),
              errors=(404,)),
    Operation("/api/games/{game}/board.svg", "get", "board_svg", "The board as SVG", "games", None,
              media="image/svg+xml", errors=(400, 404), params=(SIZE, Param("step", INT))),
    Operation("/api/games/{game}/board.png", "get", "board_png", "The board as PNG", "games", None,
              media="image/png", errors=(400, 404), params=(SIZE, Param("step", INT))),
    Operation("/api/games/{game}/match.gif", "get", "match_gif", "The match as an animated GIF", "games", None,
              media="image/gif", errors=(400, 404), params=(SIZE,)),
    Operation("/api/games/{game}/evaluations.svg", "get", "evaluations_svg", "The evaluation chart", "games",
              None, media="image/svg+xml", errors=(400, 404, 503),
              params=(LANG, Param("width", INT))),
    Operation("/api/games/{game}/review", "get", "game_review", "The engine's review marks", "games",
              obj("game"), errors=(404, 503)),
    Operation("/api/games/{game}/report", "get", "game_report", "The game's report (if made)", "games", OBJ,
              errors=(404, 503)),
    Operation("/api/games/{game}/report", "post", "ask_report", "Ask for the game's report", "games", OBJ,
              errors=(404, 409, 503)),
    # players
    Operation("/api/players/{player}", "get", "player", "A player's page", "players", OBJ,
              errors=(404, 503)),
    Operation("/api/players/{player}/rating.svg", "get", "player_rating_svg", "A player's rating history",
              "players", None, media="image/svg+xml", errors=(400, 404, 503),
              params=(SPEED, LANG, Param("width", INT))),
    Operation("/api/leaderboard", "get", "leaderboard", "The best active players at a speed", "players",
              obj("speed", "active_days", "players", "provisional"), errors=(400, 503), params=(SPEED,)),
    # account
    Operation("/api/me", "get", "me", "This browser's player (made on first use)", "account", PLAYER_VIEW,
              errors=(503,)),
    Operation("/api/me", "post", "set_me", "Rename this player", "account", PLAYER_VIEW, errors=(400, 403, 503),
              body=obj("name", name=STR)),
    Operation("/api/signup", "post", "sign_up", "Make this player an account", "account", PLAYER_VIEW,
              errors=(400, 403, 409, 503), body=CREDENTIALS),
    Operation("/api/signin", "post", "sign_in", "Sign in", "account", PLAYER_VIEW, errors=(400, 401, 403, 429, 503),
              body=obj("account", "password", account=STR, password=STR)),
    Operation("/api/signout", "post", "sign_out", "Sign out (here, or everywhere)", "account", PLAYER_VIEW,
              errors=(400, 503), body=obj(everywhere=BOOL)),
    Operation("/api/password", "post", "change_password", "Change the password", "account", PLAYER_VIEW,
              errors=(400, 401, 403, 503), body=obj("current", "password", current=STR, password=STR),
              signed_in=True),
    Operation("/api/sessions", "get", "sessions", "This account's signed-in sessions", "account", LIST,
              errors=(503,)),
    Operation("/api/tokens", "get", "tokens", "This account's personal tokens (never the tokens themselves)",
              "account", LIST, errors=(401, 403, 503), signed_in=True),
    Operation("/api/tokens", "post", "make_token", "Make a personal token (answered once)", "account",
              obj("id", "name", "scopes", "created", "token", id=STR, name=STR,
                  scopes={"type": "array", "items": STR}, created={"type": "number"}, token=STR),
              errors=(400, 401, 403, 409, 503), signed_in=True,
              body=obj("name", "scopes", name=STR, scopes={"type": "array", "items": STR})),
    Operation("/api/tokens/{token}", "delete", "revoke_token", "Revoke a personal token", "account",
              obj("revoked", revoked=STR), errors=(401, 403, 404, 503), signed_in=True),
    Operation("/api/me/blocks", "get", "my_blocks", "The players this one blocked", "account", LIST,
              errors=(503,)),
    Operation("/api/players/{player}/block", "post", "block", "Block a player", "account",
              obj("player", "blocked"), errors=(400, 401, 403, 404, 503), signed_in=True),
    Operation("/api/players/{player}/block", "delete", "unblock", "Unblock a player", "account",
              obj("player", "blocked"), errors=(400, 401, 403, 404, 503), signed_in=True),
    Operation("/api/players/{player}/report", "post", "report_player", "Report a player to the moderators",
              "account", OBJ, errors=(400, 401, 403, 404, 409, 429, 503), signed_in=True,
              body=obj("reason", reason=STR, note=STR, game=STR)),
    # moderation
    Operation("/api/mod/reports", "get", "mod_reports", "Open reports", "moderation", LIST,
              errors=(401, 403, 503), signed_in=True),
    Operation("/api/mod/reports/{report}/resolve", "post", "mod_resolve", "Resolve a report", "moderation",
              obj("id", "state"), errors=(400, 401, 403, 404, 409, 503), signed_in=True, body=obj(note=STR)),
    Operation("/api/mod/players/{player}/{action}", "post", "mod_action", "Mute, unmute, close or reopen",
              "moderation", OBJ, errors=(400, 401, 403, 404, 409, 503), signed_in=True,
              params=(Param("action", {"type": "string", "enum": ["mute", "unmute", "close", "reopen"]},
                            "path", True),),
              body=obj(hours={"type": "number"}, reason=STR)),
    Operation("/api/mod/audit", "get", "mod_audit", "The moderators' log", "moderation", LIST,
              errors=(401, 403, 503), signed_in=True),
    # tournaments
    Operation("/api/tournaments", "get", "tournaments", "The events upcoming, running and finished lately",
              "tournaments", LIST, errors=(400, 503),
              params=(Param("player", about="the events this player took part in"),)),
    Operation("/api/tournaments", "post", "make_tournament", "Make an Arena or a Swiss event", "tournaments",
              TOURNAMENT, errors=(400, 401, 403, 409, 413, 503), signed_in=True,
              body=obj("kind", "name", "clock", kind={"type": "string", "enum": ["arena", "swiss"]}, name=STR,
                       clock=OBJ, target=INT, minutes=INT, rounds=INT, starts_in=INT, rated=BOOL, bots=BOOL)),
    Operation("/api/tournaments/{tournament}", "get", "tournament", "An event, its standings and its games",
              "tournaments", TOURNAMENT, errors=(404, 503)),
    Operation("/api/tournaments/{tournament}/join", "post", "join_tournament", "Join an event, or come back",
              "tournaments", obj("tournament", "player", "active"), errors=(403, 404, 409, 503)),
    Operation("/api/tournaments/{tournament}/withdraw", "post", "withdraw_tournament",
              "Withdraw from an event (or pause)", "tournaments", obj("tournament", "player", "active"),
              errors=(403, 404, 503)),
    # puzzles
    Operation("/api/puzzles", "get", "puzzles", "The puzzles, a page at a time", "puzzles",
              obj("total", "puzzles"), errors=(400, 503),
              params=(Param("kind"), Param("theme"), Param("offset", INT), Param("limit", INT))),
    Operation("/api/offline/puzzles", "get", "offline_puzzles", "Puzzles for offline use", "puzzles",
              obj("puzzles"), errors=(503,), params=(LANG,)),
    Operation("/api/puzzles/next", "get", "next_puzzle", "A puzzle near a rating", "puzzles", obj("puzzle"),
              errors=(400, 503), params=(Param("rating", INT), Param("kind"), Param("theme"), LANG)),
    Operation("/api/puzzles/{puzzle}", "get", "puzzle", "One puzzle", "puzzles", OBJ, errors=(404, 503),
              params=(LANG,)),
    Operation("/api/puzzles/{puzzle}/board.svg", "get", "puzzle_board", "A puzzle's board", "puzzles", None,
              media="image/svg+xml", errors=(400, 404, 503), params=(SIZE,)),
    Operation("/api/puzzles/{puzzle}/attempts", "post", "start_attempt", "Start an attempt at a puzzle",
              "puzzles", PUZZLE_ANSWER, errors=(400, 404, 503)),
    Operation("/api/puzzles/attempts/{attempt}", "post", "attempt_move", "A move (or a fill) in an attempt",
              "puzzles", PUZZLE_ANSWER, errors=(400, 404, 409, 503), body=obj("move", move=STR)),
    Operation("/api/puzzles/attempts/{attempt}/solution", "post", "attempt_solution",
              "Give up an attempt: its solution", "puzzles", PUZZLE_ANSWER, errors=(400, 404, 409, 503)),
    Operation("/api/puzzles/streak", "post", "start_streak", "Start a puzzle streak", "puzzles", OBJ,
              errors=(400, 404, 503)),
    Operation("/api/puzzles/streak/{streak}/next", "post", "streak_next", "The streak's next puzzle", "puzzles",
              OBJ, errors=(400, 404, 409, 503)),
    Operation("/api/me/puzzles", "get", "my_puzzles", "This player's puzzle progress", "puzzles",
              obj("signed_in"), errors=(503,)),
    Operation("/api/players/{player}/puzzles", "get", "player_puzzles", "A player's puzzle progress", "puzzles",
              obj("player"), errors=(404, 503)),
    # bots: accounts, challenges, events
    Operation("/api/bot/upgrade", "post", "bot_upgrade", "Make the token's account a bot (no game played yet)",
              "bots", obj("id", "name", "bot", id=STR, name=STR, bot=BOOL), errors=(400, 401, 403, 404, 503),
              signed_in=True),
    Operation("/api/bots", "get", "bots_online", "The bots online, with their ratings per speed", "bots",
              {"type": "array", "items": obj("id", "name", "ratings", id=STR, name=STR, ratings=OBJ)},
              errors=(401, 403, 503)),
    Operation("/api/challenge/{player}", "post", "challenge", "Challenge a player (a person or a bot)", "bots",
              CHALLENGE, errors=(400, 401, 403, 404, 409, 413, 429, 503), signed_in=True,
              body=obj(target=INT, clock={"type": ["object", "null"]}, rated=BOOL,
                       color={"type": "string", "enum": ["black", "gold", "random"]}, series=BOOL)),
    Operation("/api/challenge/{id}/accept", "post", "challenge_accept", "Accept a challenge to this account",
              "bots", obj("ok", "game", ok=BOOL, game=STR), errors=(400, 401, 403, 404, 429, 503), signed_in=True),
    Operation("/api/challenge/{id}/decline", "post", "challenge_decline", "Decline a challenge to this account",
              "bots", OK, errors=(400, 401, 403, 404, 429, 503), signed_in=True),
    Operation("/api/challenge/{id}/cancel", "post", "challenge_cancel", "Withdraw this account's challenge",
              "bots", OK, errors=(400, 401, 403, 404, 429, 503), signed_in=True),
    Operation("/api/stream/event", "get", "stream_event",
              "This account's events, as NDJSON: its games in progress and open challenges, then each change",
              "bots", {"type": "string"}, media="application/x-ndjson", errors=(401, 403, 503), signed_in=True),
    # bots: games
    Operation("/api/bot/game/stream/{game}", "get", "bot_game_stream",
              "A game as newline-delimited JSON: gameFull, then a gameState after each change (docs/web-bots.md)",
              "bots", None, media="application/x-ndjson", errors=(401, 404, 503), signed_in=True),
    Operation("/api/bot/game/{game}/move/{move}", "post", "bot_move", "Play a move (square form, c1-c5)", "bots",
              BOT_OK, errors=(400, 401, 403, 404, 409, 503), signed_in=True, params=(SEQ,)),
    Operation("/api/bot/game/{game}/fill/{direction}", "post", "bot_fill", "Fill left or right after winning a round",
              "bots", BOT_OK, errors=(400, 401, 403, 404, 409, 503), signed_in=True,
              params=(Param("direction", {"type": "string", "enum": ["left", "right"]}, where="path"), SEQ)),
    Operation("/api/bot/game/{game}/resign", "post", "bot_resign", "Resign the match", "bots", BOT_OK,
              errors=(400, 401, 403, 404, 409, 503), signed_in=True, params=(SEQ,)),
    Operation("/api/bot/game/{game}/abort", "post", "bot_abort", "Abort the game (before both sides moved)", "bots",
              BOT_OK, errors=(400, 401, 403, 404, 409, 503), signed_in=True, params=(SEQ,)),
    # operations
    Operation("/healthz", "get", "healthz", "Alive: ok", "ops", None, media="text/plain"),
    Operation("/readyz", "get", "readyz", "Ready to serve (the store, the engine)", "ops", obj("ready"),
              errors=(503,)),
    Operation("/metrics", "get", "metrics", "Prometheus metrics (local addresses only)", "ops", None,
              media="text/plain", errors=(403,)),
    Operation("/api/openapi.json", "get", "openapi", "This description", "ops", obj("openapi", "paths")),
)

ERROR = obj("error", error={"type": "string", "description": "in English"},
            code={"type": "string", "description": "a stable name the page says in its language "
                                                   "(docs/web-page.md)"},
            args={"type": "object", "description": "the refusal's numbers and names"})
ERROR_WHY = {
    400: "Bad input (nothing changed)", 401: "Not signed in, or the wrong password",
    403: "Refused: not allowed, or a request from another site (the Origin rule)", 404: "No such thing",
    408: "The request body came too slowly", 409: "Not now: the state does not allow it",
    413: "The request body is too large", 429: "Too many requests: wait Retry-After seconds",
    503: "Unavailable for now (the store, the engine, the server stopping): try again",
}


def _parameters(op: Operation) -> list[Schema]:
    named = {p.name for p in op.params}
    out = [{"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
           for name in _path_names(op.path) if name not in named]
    for p in op.params:
        item: Schema = {"name": p.name, "in": p.where, "required": p.required or p.where == "path",
                        "schema": p.schema}
        if p.about:
            item["description"] = p.about
        out.append(item)
    return out


def _path_names(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


def _operation(op: Operation) -> Schema:
    ok: Schema = {"description": "OK", "content": {op.media: {"schema": op.ok if op.ok is not None else STR}}}
    responses: Schema = {"200": ok}
    for status in sorted({*op.errors, 429, *((403, 408, 413) if op.method != "get" else ())}):
        responses[str(status)] = {"$ref": f"#/components/responses/E{status}"}
    out: Schema = {"operationId": op.id, "summary": op.summary, "tags": [op.tag], "responses": responses}
    if params := _parameters(op):
        out["parameters"] = params
    if op.body is not None:
        out["requestBody"] = {"required": op.body_media != "application/json" or bool(op.body.get("required")),
                              "content": {op.body_media: {"schema": op.body}}}
    if op.signed_in:
        # the cookie, or a personal token (Authorization: Bearer)
        out["security"] = [{"cookieAuth": []}, {"bearerAuth": []}]
    return out


@functools.cache
def _built() -> Schema:
    paths: dict[str, Schema] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "kamisado web",
            "version": _version(),
            "description": "The HTTP API of `kamisado web` (docs/web-api.md). Errors are JSON "
                           "`{\"error\", \"code\"?, \"args\"?}`. A request that changes something and "
                           "carries an `Origin` must come from the site itself. Live games are played "
                           "over the websocket `/ws` (docs/web.md), not described here.",
        },
        "paths": paths,
        "components": {
            "schemas": {"Error": ERROR},
            "responses": {f"E{s}": {"description": why, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Error"}}}} for s, why in ERROR_WHY.items()},
            "securitySchemes": {
                "cookieAuth": {"type": "apiKey", "in": "cookie", "name": "kamisado_player",
                               "description": "The player's session cookie, set by the site on first use"},
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "A personal token (made on the account page or with POST /api/tokens; docs/web-tokens.md)"},
            },
        },
    }


def _version() -> str:
    from kamisado import __version__

    return __version__


def description() -> Schema:
    """The OpenAPI 3.1 document (a fresh copy: the caller may change it)."""
    return copy.deepcopy(_built())


async def openapi_json(request: Request) -> Response:
    """``GET /api/openapi.json``."""
    return JSONResponse(_built(), headers={"Cache-Control": "no-cache"})


DOCS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kamisado web: the HTTP API</title>
<link rel="icon" href="/static/icons/icon-192.png">
<link rel="stylesheet" href="/static/apidocs/swagger-ui.css">
</head><body><div id="api"></div>
<script src="/static/apidocs/swagger-ui-bundle.js"></script>
<script src="/static/apidocs/start.js"></script>
</body></html>
"""


async def api_docs(request: Request) -> Response:
    """``GET /api/docs``: the description read by Swagger UI (its files in
    ``static/apidocs``, nothing from another site)."""
    return HTMLResponse(DOCS_HTML, headers={"Cache-Control": "no-cache"})


ROUTES = [Route("/api/openapi.json", openapi_json), Route("/api/docs", api_docs)]
