"""Moderation over HTTP (docs/web-moderation.md): blocks and reports for
every signed-in player, the moderators' reports, actions and audit log.

The rules are :mod:`kamisado.web.accounts.moderation`'s; every database
call runs in the store's threads.  A moderator's route answers 403 to
anyone else; every POST and DELETE is same-origin (the guard's Origin
rule, :mod:`kamisado.web.edge.guard`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kamisado.web.accounts.moderation import Actor, Moderation, ModerationError
from kamisado.web.accounts.players import (
    Player,
    PlayerError,
    Players,
    json_body,
    player_in_thread,
    sessions_ended,
)
from kamisado.web.basics.messages import error_body
from kamisado.web.basics.text import unstorable_char
from kamisado.web.store.database import StoreErrors

__all__ = ["ROUTES", "blocked_for"]

log = logging.getLogger("kamisado.web")

Handler = Callable[[Request], Awaitable[Response]]


def _answer(fn: Handler) -> Handler:
    async def run(request: Request) -> Response:
        try:
            return await fn(request)
        except (ModerationError, PlayerError) as exc:
            return JSONResponse(error_body(str(exc), exc.status, exc.code, exc.details), status_code=exc.status)
        except StoreErrors:
            log.exception("moderation: the store failed")
            return JSONResponse(error_body("the store cannot be read; try again", 503), status_code=503)

    run.__doc__ = fn.__doc__
    return run


def _moderation(request: Request) -> Moderation:
    book: Players = request.app.state.players
    return Moderation(request.app.state.hub.store, book.sessions.clock)


async def _call(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    return await request.app.state.hub.store.call(fn, *args)


async def _signed_in(request: Request, what: str) -> Player:
    player = await player_in_thread(request)
    if player is None or player.account is None:
        raise ModerationError(f"{what}: sign in first", 403, "account_needed")
    return player


async def _moderator(request: Request) -> Actor:
    player = await player_in_thread(request)
    if player is None or player.account is None or not player.moderator:
        raise ModerationError("moderators only", 403, "moderators_only")
    return Actor(player.account, player.id)


def _target(request: Request) -> str:
    who: str = request.path_params["player"]
    if unstorable_char(who) is not None:
        raise ModerationError(f"no player {who!r}", 404, "no_player")
    return who


async def blocked_for(request: Request, player: str) -> bool:
    """Whether the browser's player blocks ``player`` (``False`` for a
    browser that is no player yet)."""
    viewer = await player_in_thread(request)
    if viewer is None:
        return False
    store = request.app.state.hub.store
    return bool(await store.call(store.blocking, [(viewer.id, player)]))


# -- every signed-in player ----------------------------------------------------------


@_answer
async def block(request: Request) -> Response:
    """``POST /api/players/{id}/block``: block a player (its direct
    challenges and chat never reach you; quick pairing never pairs you)."""
    me = await _signed_in(request, "block")
    target = _target(request)
    new = await _call(request, _moderation(request).block, me.id, target)
    return JSONResponse({"player": target, "blocked": True, "new": new})


@_answer
async def unblock(request: Request) -> Response:
    """``DELETE /api/players/{id}/block``: the block goes."""
    me = await _signed_in(request, "unblock")
    target = _target(request)
    was = await _call(request, _moderation(request).unblock, me.id, target)
    return JSONResponse({"player": target, "blocked": False, "was": was})


@_answer
async def my_blocks(request: Request) -> Response:
    """``GET /api/me/blocks``: the players you block, the latest first
    (``[]`` for a browser not signed in)."""
    me = await player_in_thread(request)
    if me is None or me.account is None:
        return JSONResponse([])
    store = request.app.state.hub.store
    return JSONResponse(await store.call(store.blocks_of, me.id))


@_answer
async def report(request: Request) -> Response:
    """``POST /api/players/{id}/report`` ``{"reason", "text", "game"?}``:
    report a player to the moderators."""
    body = await json_body(request)
    me = await _signed_in(request, "report")
    target = _target(request)
    done = await _call(request, _moderation(request).report, me.id, target, body)
    return JSONResponse(done)


# -- moderators ----------------------------------------------------------------------------


@_answer
async def mod_reports(request: Request) -> Response:
    """``GET /api/mod/reports``: the open reports, the oldest first, each
    with the reported player's last chat lines and games."""
    await _moderator(request)
    return JSONResponse(await _call(request, _moderation(request).open_reports))


@_answer
async def mod_resolve(request: Request) -> Response:
    """``POST /api/mod/reports/{id}/resolve`` ``{"note"?}``."""
    body = await json_body(request)
    actor = await _moderator(request)
    raw = request.path_params["report"]
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise ModerationError(f"no report {raw!r}", 404, "no_report")
    await _call(request, _moderation(request).resolve, actor, int(raw), body.get("note"))
    return JSONResponse({"id": int(raw), "state": "resolved"})


@_answer
async def mod_action(request: Request) -> Response:
    """``POST /api/mod/players/{id}/{action}`` (``mute`` ``{"hours",
    "reason"?}``, ``unmute``, ``close``, ``reopen`` ``{"reason"?}``)."""
    body = await json_body(request)
    actor = await _moderator(request)
    target = _target(request)
    action = request.path_params["action"]
    mod = _moderation(request)
    answer: dict[str, Any] = {"player": target, "action": action}
    if action == "mute":
        answer["muted_until"] = await _call(request, mod.mute, actor, target, body.get("hours"),
                                            body.get("reason"))
    elif action == "unmute":
        await _call(request, mod.unmute, actor, target, body.get("reason"))
    elif action == "close":
        answer["sessions_ended"] = await _call(request, mod.close, actor, target, body.get("reason"))
        # the websockets of those sessions close now, on every process
        await sessions_ended(request)
    elif action == "reopen":
        await _call(request, mod.reopen, actor, target, body.get("reason"))
    else:
        raise ModerationError(f"expected mute, unmute, close or reopen, found {action!r}", 404)
    return JSONResponse(answer)


@_answer
async def mod_audit(request: Request) -> Response:
    """``GET /api/mod/audit``: the audit log's last 100 rows, the newest first."""
    await _moderator(request)
    store = request.app.state.hub.store
    return JSONResponse(await store.call(store.audit_log, 100))


ROUTES = [
    Route("/api/players/{player}/block", block, methods=["POST"]),
    Route("/api/players/{player}/block", unblock, methods=["DELETE"]),
    Route("/api/players/{player}/report", report, methods=["POST"]),
    Route("/api/me/blocks", my_blocks),
    Route("/api/mod/reports", mod_reports),
    Route("/api/mod/reports/{report}/resolve", mod_resolve, methods=["POST"]),
    Route("/api/mod/players/{player}/{action}", mod_action, methods=["POST"]),
    Route("/api/mod/audit", mod_audit),
]
