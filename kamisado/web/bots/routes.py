"""The bots' HTTP routes (docs/web-bots.md): bot accounts
(``POST /api/bot/upgrade``, ``GET /api/bots``), challenges over HTTP
(``POST /api/challenge/...``) and the event stream (``GET /api/stream/event``).

:func:`start` makes the services they use when the server starts
(:class:`~kamisado.web.bots.events.Events`,
:class:`~kamisado.web.bots.challenges.ApiChallenges`).

>>> sorted({r.path for r in ROUTES})[:3]
['/api/bot/upgrade', '/api/bots', '/api/challenge/{id}/accept']
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kamisado.web.accounts.players import (
    Player,
    PlayerError,
    answer_refusals,
    json_body,
    player_in_thread,
    session_key,
    sockets_of,
)
from kamisado.web.accounts.sessions import BEARER, TOKEN_SOCKET, Bearer
from kamisado.web.basics.clocks import now_ms
from kamisado.web.basics.messages import AcceptMsg, CancelMsg, DeclineMsg, ProtocolError
from kamisado.web.bots.challenges import ApiChallenges, parse_body
from kamisado.web.bots.events import Events
from kamisado.web.bots.ndjson import stream
from kamisado.web.community.lobby import CHALLENGE_TTL_MS, Lobby
from kamisado.web.play.state import GameError
from kamisado.web.store.schema import games, players, presence, ratings
from kamisado.web.store.sharing import ONLINE_PREFIX

__all__ = ["ROUTES", "start", "upgrade_to_bot"]

#: The HTTP status of each lobby refusal (any other is 400).
STATUS = {"no_challenge": 404, "not_allowed": 403, "account_needed": 403, "offline": 409,
          "busy": 429, "storage": 503, "no_player": 403}


def start(app: Starlette, clock: Callable[[], float] = time.time) -> None:
    """Make the bots' services of a server that starts (its hub and lobby made)."""
    app.state.events = Events(app.state.hub, app.state.lobby)
    app.state.api_challenges = ApiChallenges(app.state.hub, app.state.lobby, clock)


async def stop(app: Starlette) -> None:
    """End the streams and the expiry of the challenges (the server stops)."""
    app.state.events.close()
    await app.state.api_challenges.close()


def upgrade_to_bot(engine: sa.Engine, player: str) -> None:
    """Make ``player`` a bot, once, if it holds no seat of any game; else
    :class:`PlayerError` (``already_bot``, ``bot_has_games``)."""
    with engine.begin() as conn:
        row = conn.execute(sa.select(players.c.bot).where(players.c.id == player)).first()
        if row is None:
            raise PlayerError("no such player", 404, "no_player")
        if row.bot:
            raise PlayerError("this account is a bot already", 400, "already_bot")
        played = conn.execute(sa.select(games.c.id).where(
            sa.or_(games.c.black_player == player, games.c.gold_player == player)).limit(1)).first()
        if played is not None:
            raise PlayerError("only an account that has played no game can become a bot", 400, "bot_has_games")
        conn.execute(players.update().where(players.c.id == player).values(bot=True))


def _online_bots(engine: sa.Engine, here: list[str], since_ms: int) -> list[dict[str, Any]]:
    """The bots with an event stream open: on this process (``here``) or,
    through ``presence``, on another since ``since_ms``; with their ratings."""
    with engine.connect() as conn:
        elsewhere = sa.select(sa.func.substr(presence.c.game_id, len(ONLINE_PREFIX) + 1)).where(
            presence.c.game_id.like(ONLINE_PREFIX + "%"), presence.c.seen >= since_ms)
        rows = conn.execute(sa.select(players.c.id, players.c.name).where(
            players.c.bot.is_(True), players.c.closed.is_(None),
            sa.or_(players.c.id.in_(here), players.c.id.in_(elsewhere))).order_by(players.c.name)).all()
        ids = [r.id for r in rows]
        rated: dict[str, dict[str, int]] = {}
        for r in conn.execute(sa.select(ratings.c.player, ratings.c.speed, ratings.c.rating)
                              .where(ratings.c.player.in_(ids))).all():
            rated.setdefault(r.player, {})[r.speed] = round(r.rating)
    return [{"id": r.id, "name": r.name, "ratings": rated.get(r.id, {})} for r in rows]


async def _account(request: Request) -> Player:
    """The request's account (a token's, or a signed-in page's)."""
    player = await player_in_thread(request)
    if player is None or player.account is None:
        raise PlayerError("sign in, or use a personal token: this needs an account", 403, "account_needed")
    return player


def _refused(exc: GameError | ProtocolError) -> Response:
    code = exc.code if isinstance(exc, GameError) else "bad_request"
    status = STATUS.get(code, 400)
    return JSONResponse({"error": str(exc), "code": code, "args": {}}, status_code=status)


@answer_refusals
async def upgrade(request: Request) -> Response:
    """``POST /api/bot/upgrade``: the token's account becomes a bot."""
    if BEARER not in request.scope:
        raise PlayerError("a bot is made with a personal token with the bot scope, not from the page",
                          403, "token_needed")
    player = await _account(request)
    store = request.app.state.hub.store
    await store.call(upgrade_to_bot, store.engine, player.id)
    return JSONResponse({"id": player.id, "name": player.name, "bot": True})


@answer_refusals
async def bots_online(request: Request) -> Response:
    """``GET /api/bots``: the bots online, with their ratings per speed."""
    store = request.app.state.hub.store
    lobby: Lobby = request.app.state.lobby
    found = await store.call(_online_bots, store.engine, sorted(lobby.players), now_ms() - CHALLENGE_TTL_MS)
    return JSONResponse(found)


@answer_refusals
async def make_challenge(request: Request) -> Response:
    """``POST /api/challenge/{player}``: challenge ``player``; answers CHALLENGE."""
    body = await json_body(request)
    player = await _account(request)
    to = request.path_params["player"]
    app = request.app
    api: ApiChallenges = app.state.api_challenges
    events: Events = app.state.events
    try:
        msg = parse_body(body, to)
        challenge = await api.post(api.conn(player.id, player.name, player.bot), msg)
    except (GameError, ProtocolError) as exc:
        return _refused(exc)
    return JSONResponse(await events.challenge(challenge.view(challenge.conn), "created"))


def _answer(kind: str) -> Callable[[Request], Any]:
    """The route that accepts, declines or cancels a challenge."""

    @answer_refusals
    async def answer(request: Request) -> Response:
        player = await _account(request)
        app = request.app
        api: ApiChallenges = app.state.api_challenges
        lobby: Lobby = app.state.lobby
        conn = api.conn(player.id, player.name, player.bot)
        challenge_id = request.path_params["id"]
        try:
            if kind == "accept":
                game = await lobby.accept(app.state.hub, conn, AcceptMsg(challenge_id))
                return JSONResponse({"ok": True, "game": game})
            if kind == "decline":
                await lobby.decline(app.state.hub, conn, DeclineMsg(challenge_id))
            else:
                await lobby.cancel(conn, CancelMsg(challenge_id))
        except GameError as exc:
            return _refused(exc)
        return JSONResponse({"ok": True})

    answer.__name__ = answer.__qualname__ = f"{kind}_challenge"
    answer.__doc__ = f"``POST /api/challenge/{{id}}/{kind}``: {kind} a challenge."
    return answer


@answer_refusals
async def event_stream(request: Request) -> Response:
    """``GET /api/stream/event``: the account's events as NDJSON."""
    player = await _account(request)
    events: Events = request.app.state.events
    listening = await events.listen(player.id, player.name, player.bot)
    # it ends when its token is revoked or its session ends, as a websocket closes
    bearer = request.scope.get(BEARER)
    key = TOKEN_SOCKET + bearer.token if isinstance(bearer, Bearer) else session_key(request)
    if key is not None:
        sockets = sockets_of(request)

        async def ended() -> None:
            listening.end()

        sockets.add(key, ended)
        listening.on_close = lambda: sockets.discard(key, ended)
    return stream(listening)


ROUTES = [
    Route("/api/bot/upgrade", upgrade, methods=["POST"]),
    Route("/api/bots", bots_online),
    Route("/api/challenge/{id}/accept", _answer("accept"), methods=["POST"]),
    Route("/api/challenge/{id}/decline", _answer("decline"), methods=["POST"]),
    Route("/api/challenge/{id}/cancel", _answer("cancel"), methods=["POST"]),
    Route("/api/challenge/{player}", make_challenge, methods=["POST"]),
    Route("/api/stream/event", event_stream),
]
