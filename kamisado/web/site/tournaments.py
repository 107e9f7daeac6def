"""The tournaments' HTTP API (docs/web-tournaments.md): making, listing,
reading, joining and withdrawing; the events themselves run in
:mod:`kamisado.web.community.tournaments`.

``POST /api/tournaments`` (an account) makes an event; ``GET
/api/tournaments`` lists those upcoming and running, then the last
finished; ``GET /api/tournaments/{id}`` gives one with its standings and
games; ``POST /api/tournaments/{id}/join`` and ``/withdraw`` (a player;
a rated event needs an account).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kamisado.web.accounts.players import (
    Player,
    answer_refusals,
    json_body,
    player_in_thread,
)
from kamisado.web.basics import clocks
from kamisado.web.basics.messages import error_body
from kamisado.web.community.tournaments import (
    TournamentError,
    Tournaments,
    event_view,
    new_event,
    summary,
)
from kamisado.web.store.storage import Store

__all__ = ["MAX_OPEN", "ROUTES"]

#: How many of one account's events may be upcoming or running at once.
MAX_OPEN = 5


def _refusing(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """A route whose :class:`TournamentError` is its JSON error answer (and
    the accounts' refusals and the store's errors, as theirs)."""
    @answer_refusals
    async def run(request: Request) -> Response:
        try:
            return await fn(request)
        except TournamentError as exc:
            return JSONResponse(error_body(str(exc), exc.status, exc.code), status_code=exc.status)

    run.__doc__ = fn.__doc__
    return run


def _events(request: Request) -> Tournaments:
    events: Tournaments = request.app.state.lobby.tournaments
    return events


async def _player(request: Request, account: bool, what: str) -> Player:
    player = await player_in_thread(request)
    if player is None:
        raise TournamentError(f"{what}: open the page first (a tournament needs a player)", "no_player", 403)
    if account and player.account is None:
        raise TournamentError(f"{what}: this needs an account; sign up or sign in", "account_needed", 403)
    return player


@_refusing
async def create_tournament(request: Request) -> Response:
    """``POST /api/tournaments``: a new event (201), made by an account."""
    body = await json_body(request)
    player = await _player(request, True, "tournament")
    events = _events(request)
    row = new_event(body, player.id, events.clock())
    store = request.app.state.hub.store
    if not await store.call(store.add_tournament, row, MAX_OPEN):
        raise TournamentError(f"tournament: at most {MAX_OPEN} of your tournaments may be upcoming or running",
                              "too_many_tournaments", 409)
    return JSONResponse(event_view(row, [], []), status_code=201)


@_refusing
async def list_tournaments(request: Request) -> Response:
    """``GET /api/tournaments``: the events upcoming and running (the
    soonest first), then the last finished; ``?player=ID``: the events that
    player took part in, the latest first, with their ``score`` and ``games``."""
    store: Store = request.app.state.hub.store
    player = request.query_params.get("player")
    if player is not None:
        if not 0 < len(player) <= 40:
            raise TournamentError("player: expected a player's id")
        return JSONResponse(await store.call(store.player_tournaments, player))
    rows = await store.call(store.tournament_list, clocks.now_ms())
    return JSONResponse([summary(r) for r in rows])


async def _event(request: Request) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The event the path names, its players and games; ``404`` when there is none."""
    store: Store = request.app.state.hub.store
    got = await store.call(store.tournament_of, request.path_params["tournament"])
    if got is None:
        raise TournamentError("no such tournament", "no_tournament", 404)
    return got


@_refusing
async def get_tournament(request: Request) -> Response:
    """``GET /api/tournaments/{id}``: the event, its standings and its games."""
    return JSONResponse(event_view(*await _event(request)))


@_refusing
async def join_tournament(request: Request) -> Response:
    """``POST /api/tournaments/{id}/join``: join the event (or come back
    after a pause); paired from the next pass on while a page is open."""
    event, _, _ = await _event(request)
    player = await _player(request, bool(event["rated"]), "join")
    if event["status"] == "finished":
        raise TournamentError("join: the tournament is over", "finished", 409)
    if getattr(player, "bot", False) and not event["bots"]:  # (bot accounts: issue 42)
        raise TournamentError("join: this tournament is for people only", "no_bots", 403)
    events = _events(request)
    rating = await events.rating_of(player.id, event)
    row = {"player": player.id, "name": player.name[:80], "rating": rating,
           "registered": player.account is not None, "joined": events.clock()}
    store = request.app.state.hub.store
    if await store.call(store.join_tournament, event["id"], row) is None:
        raise TournamentError("join: the tournament is over", "finished", 409)
    request.app.state.hub.spawn(events.pass_now_quietly())
    return JSONResponse({"tournament": event["id"], "player": player.id, "active": True})


@_refusing
async def withdraw_tournament(request: Request) -> Response:
    """``POST /api/tournaments/{id}/withdraw``: stop being paired (a game
    running goes on and counts; joining again comes back)."""
    event, _, _ = await _event(request)
    player = await _player(request, False, "withdraw")
    store = request.app.state.hub.store
    if not await store.call(store.withdraw_tournament, event["id"], player.id):
        raise TournamentError("withdraw: you are not in this tournament", "not_joined", 404)
    return JSONResponse({"tournament": event["id"], "player": player.id, "active": False})


ROUTES = [
    Route("/api/tournaments", list_tournaments),
    Route("/api/tournaments", create_tournament, methods=["POST"]),
    Route("/api/tournaments/{tournament}", get_tournament),
    Route("/api/tournaments/{tournament}/join", join_tournament, methods=["POST"]),
    Route("/api/tournaments/{tournament}/withdraw", withdraw_tournament, methods=["POST"]),
]
