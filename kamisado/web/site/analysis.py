"""The engine's analysis over HTTP: positions, puzzle replies, a game's evaluations, review and report.

``/api/analyse``, ``/api/reply``, ``/api/games/{id}/evaluations.svg`` and
``/api/games/{id}/review`` run the engine in the computer's pool (or on
the job queue's ``analysis`` queue: :class:`kamisado.web.play.computer.Computer`),
at most :class:`AnalysisSlots` jobs at once, so a computer opponent's move
never waits behind them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from kamisado.rules.board import Move
from kamisado.rules.match import OVER
from kamisado.web.basics.views import move_view
from kamisado.web.play.reports import has_moves, report_view
from kamisado.web.site.images import picture_headers
from kamisado.web.site.pages import (
    bad,
    chart_words,
    game_or_404,
    hub_of,
    kpn_arg,
    lang_arg,
    width_arg,
)
from kamisado.web.store.database import StoreErrors
from kamisado.web.work import worker
from kamisado.web.work.jobs import JobError

__all__ = [
    "ANALYSIS_QUEUE",
    "AnalysisSlots",
    "analyse",
    "ask_report",
    "evaluations_svg",
    "game_report",
    "game_review",
    "reply",
]

log = logging.getLogger("kamisado.web")
#: Analysis jobs waiting for a slot, per slot, before /api/analyse and
#: /api/reply answer 503 (busy) instead of queueing more.
ANALYSIS_QUEUE = 4
#: the evaluation graph's search budget: nodes for the whole game (about a
#: second of the compiled engine), shared by its positions within these bounds
GRAPH_NODES = 1_500_000
GRAPH_NODES_EACH = (500, 20_000)


#: /api/analyse's ``?lines=``: the most best moves (MultiPV) it gives
ANALYSE_LINES_MAX = 5
#: the review marks' solver budget: nodes for the whole game, shared by its
#: positions within these bounds (a few seconds of the compiled engine at most)
REVIEW_NODES = 8_000_000
REVIEW_NODES_EACH = (20_000, 200_000)


async def analyse(request: Request) -> Response:
    pos = kpn_arg(request)
    if isinstance(pos, Response):
        return pos
    hub = hub_of(request)
    if not hub.computer.can_think:
        return bad("no engine in this server", 503, "no_engine")
    try:
        ms = min(3000.0, max(50.0, float(request.query_params.get("ms", "400"))))
    except ValueError:
        return bad("expected ms to be a number")
    lines = request.query_params.get("lines", "0")
    if not (lines.isascii() and lines.isdigit()) or int(lines) > ANALYSE_LINES_MAX:
        return bad(f"expected lines to be a whole number 0..{ANALYSE_LINES_MAX}")
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
        return bad("the round is over")
    hub = hub_of(request)
    if not hub.computer.can_think:
        return bad("no engine in this server", 503, "no_engine")
    move = await in_analysis_slot(request, worker.solver_reply, pos.kpn())
    if isinstance(move, Response):
        return move
    return JSONResponse({"move": move})


async def _analyse_game(
    request: Request, fn: Callable[..., Any], total: int, each: tuple[int, int], *more: Any
) -> tuple[Any, Any]:
    """``fn(target, series, start, moves, nodes, *more)`` for the requested game in an
    analysis slot, ``nodes`` being ``total`` shared by the game's positions
    within the bounds ``each``: ``(game, result)``, or ``(None, response)``
    for a missing game, a server with no engine, or a busy pool."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return None, game
    if not hub_of(request).computer.can_think:
        return None, bad("no engine in this server", 503, "no_engine")
    row = game.row
    positions = sum(len(r.moves) + 1 for r in game.match.rounds)
    low, high = each
    nodes = min(high, max(low, total // max(positions, 1)))
    result = await in_analysis_slot(request, fn, row.target, row.series,
                                    row.start_kpn, list(game.played), nodes, *more)
    if isinstance(result, Response):
        return None, result
    return game, result


async def evaluations_svg(request: Request) -> Response:
    """``GET /api/games/{id}/evaluations.svg[?width=W&lang=L]``: the evaluation
    graph, drawn ``W`` CSS px wide (720 unless asked) in the page language ``L``."""
    width = width_arg(request, 720)
    if isinstance(width, Response):
        return width
    game, result = await _analyse_game(
        request, worker.evaluation_svg, GRAPH_NODES, GRAPH_NODES_EACH,
        width, chart_words(lang_arg(request)))
    if game is None:
        return result  # type: ignore[no-any-return]
    return Response(result, media_type="image/svg+xml", headers=picture_headers(game))


async def game_review(request: Request) -> Response:
    """The marks of a game's moves (:func:`kamisado.web.work.worker.review`): ``??``
    where the solver proves the mover threw away a won round."""
    game, result = await _analyse_game(
        request, worker.review, REVIEW_NODES, REVIEW_NODES_EACH)
    if game is None:
        return result  # type: ignore[no-any-return]
    return JSONResponse({"game": game.row.id, **result})


async def game_report(request: Request) -> Response:
    """``GET /api/games/{id}/report``: the game's report, its progress, or
    ``state: none`` when it was never asked for, ``empty`` for a game without
    moves (nothing to report) (:func:`kamisado.web.play.reports.report_view`).
    A rated game over whose report is not queued yet is queued now, as its
    end does (:meth:`kamisado.web.play.reports.Reporter.auto`)."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    if game.state == OVER and not has_moves(game):
        return JSONResponse(report_view(game.row.id, None, empty=True))
    hub = hub_of(request)
    store = hub.store
    try:
        row = await store.call(store.report_of, game.row.id)
        if row is None and game.state == OVER and game.row.rated and hub.computer.can_think:
            # a rated game's report is made unasked: queued here if the page asks
            # before the end of the game queued it, so every player's page follows it
            await hub.reporter.ask(game, auto=True)
            row = await store.call(store.report_of, game.row.id)
    except StoreErrors as exc:
        log.warning("could not read the report of game %s: %s", game.row.id, exc)
        return bad("the games' database is unavailable; try again later", 503)
    return JSONResponse(report_view(game.row.id, row))


async def ask_report(request: Request) -> Response:
    """``POST /api/games/{id}/report``: queue a finished game's report, at most
    once (202 when queued now, 200 when it was queued, running or done
    already); 409 for a game not over, 503 without an engine."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    hub = hub_of(request)
    if game.state != OVER:
        return bad("the game is not over: a report is made of a finished game", 409, "not_over")
    if not has_moves(game):
        return bad("the game has no moves: there is nothing to report", 409, "no_moves")
    if not hub.computer.can_think:
        return bad("no engine in this server", 503, "no_engine")
    store = hub.store
    try:
        queued = await hub.reporter.ask(game, auto=False)
        row = await store.call(store.report_of, game.row.id)
    except StoreErrors as exc:
        log.warning("could not ask for the report of game %s: %s", game.row.id, exc)
        return bad("the games' database is unavailable; try again later", 503)
    return JSONResponse({**report_view(game.row.id, row), "queued": queued},
                        status_code=202 if queued else 200)


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
        return bad("the engine is busy with analysis; try again in a few seconds", 503, headers={"Retry-After": "5"})
    slots.waiting += 1
    try:
        await slots.semaphore.acquire()
    finally:
        slots.waiting -= 1
    try:
        return await hub_of(request).computer.run_in_pool(fn, *args, queue="analysis")
    except JobError as exc:  # the job queue is unreachable, or no worker answered
        log.warning("analysis job failed: %s", exc)
        return bad(f"the engine is unavailable: {exc}; try again later", 503, headers={"Retry-After": "5"})
    finally:
        slots.semaphore.release()
