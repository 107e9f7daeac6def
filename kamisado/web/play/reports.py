"""Game reports: asked for, made in slices behind the computer's moves, stored.

A finished game's report (:mod:`kamisado.engine.report`: blunders, mistakes,
inaccuracies and accuracy per side) is asked for with one click
(``POST /api/games/{id}/report``, :func:`kamisado.web.site.analysis.ask_report`)
or, for a rated game, when it ends (:meth:`Reporter.auto`).  Asking stores a
row of ``reports`` (``queued``) at most once per game; every process with
an engine runs a :class:`Reporter` that takes queued reports from the
database (a click's before a rated game's, oldest first) under a lease, so
one process makes each report, and one that died is taken over when its
lease runs out, from where it stopped (the looks so far are stored).

A report is made in slices of :data:`SLICE` positions, each slice one job
(:func:`kamisado.web.work.worker.report_looks`) in the process pool or on the
job queue's ``analysis`` queue.  Low priority: before each slice the
reporter waits until no computer move is waiting or being thought about
(in this process's pool; on the job queue, on the ``moves`` queue) and an
analysis slot is free, so a computer move waits behind at most one slice.
After each slice the progress is stored (``done`` of ``total``): the page
reads it with ``GET /api/games/{id}/report``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from typing import TYPE_CHECKING, Any, Protocol

from kamisado.engine.report import (
    REPORT_NODES,
    REPORT_SOLVE_NODES,
    Look,
    build_report,
    match_positions,
)
from kamisado.rules.board import Move
from kamisado.rules.match import Match
from kamisado.web.basics import clocks
from kamisado.web.basics.views import move_view
from kamisado.web.play.game import Game, HubFace
from kamisado.web.store.storage import new_id
from kamisado.web.work import worker

if TYPE_CHECKING:
    from kamisado.web.play.computer import Computer


class ReportsHub(HubFace, Protocol):
    """What reports use of the hub: :class:`~kamisado.web.play.game.HubFace`
    and the computer (reports are made behind its moves)."""

    @property
    def computer(self) -> Computer: ...


__all__ = ["LEASE_MS", "LOOK_S", "SLICE", "Reporter", "has_moves", "report_view"]

log = logging.getLogger("kamisado.web")

#: Positions a slice (one job) looks at.
SLICE = 4
#: A process's lease on the report it makes, renewed after every slice (ms).
LEASE_MS = 30_000
#: How often a reporter looks for reports to make when nothing woke it (s).
LOOK_S = 2.0
#: How often a reporter looks again whether the computer's moves left a worker free (s).
FREE_POLL_S = 0.05


def game_match(game: Game) -> Match:
    """The match of a game as its moves in effect make it (no takebacks, no endings)."""
    row = game.row
    return worker.replay_match(row.target, row.series, row.start_kpn, list(game.played))


def has_moves(game: Game) -> bool:
    """Whether a game has a move to report on (an aborted game may have none)."""
    return any(r.moves for r in game.match.rounds)


def report_view(game_id: str, row: dict[str, Any] | None, empty: bool = False) -> dict[str, Any]:
    """The report as ``GET /api/games/{id}/report`` answers it: ``state``
    ``none`` (never asked), ``queued``, ``running``, ``done`` or ``failed``;
    ``empty`` for a game without moves (``empty``: nothing to report, never made).

    >>> report_view("g1", None)["state"], report_view("g1", None, empty=True)["state"]
    ('none', 'empty')
    """
    if row is None:
        return {"game": game_id, "state": "empty" if empty else "none", "done": 0, "total": 0,
                "auto": False, "report": None, "error": None}
    report = json.loads(row["report"]) if row["report"] else None
    return {"game": game_id, "state": row["state"], "done": row["done"], "total": row["total"],
            "auto": bool(row["auto"]), "report": report, "error": row["error"]}


def worded(data: dict[str, Any], match: Match) -> None:
    """Give each marked entry of a report the move-list entries its move
    writes (:func:`kamisado.web.basics.views.move_view`), so the page words it as
    the move list does."""
    positions = match_positions(match)
    for entry in data["entries"]:
        if entry["kind"]:
            before = positions[entry["step"] - 1]
            entry["entries"] = move_view(before, Move.from_str(entry["move"]))["entries"]


class Reporter:
    """This process's maker of game reports (:meth:`run`, a task of the hub's)."""

    def __init__(self, hub: ReportsHub) -> None:
        self.hub = hub
        #: this process, as a report's owner
        self.owner = new_id(9)
        #: set when a report was asked for here: look at once
        self.wake = asyncio.Event()
        #: each position's budgets (the solver's, then the search's), in nodes
        self.nodes = REPORT_NODES
        self.solve_nodes = REPORT_SOLVE_NODES
        #: the analysis slots a slice takes one of (set by the server's lifespan)
        self.slots: Any = None
        #: reports this process made, and the slices it ran
        self.made = 0
        self.slices = 0

    async def ask(self, game: Game, auto: bool) -> bool:
        """Queue the report of ``game`` (finished), at most once; whether one was queued."""
        store = self.hub.store
        total = len(match_positions(game_match(game)))
        queued = await store.call(store.ask_report, game.row.id, total, auto, time.time())
        if queued:
            self.wake.set()
        return queued

    def auto(self, game: Game) -> None:
        """Queue the report of a rated game that just ended (never raises);
        none for a game without moves."""
        if not self.hub.computer.can_think or not has_moves(game):
            return

        async def ask() -> None:
            try:
                await self.ask(game, auto=True)
            except Exception as exc:
                self.hub.repeats.failed("could not queue a rated game's report", game.row.id, exc)

        self.hub.spawn(ask())

    async def run(self) -> None:
        """Make the reports asked for, one at a time, for as long as the server runs."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), LOOK_S)
            self.wake.clear()
            try:
                while await self.make_one():
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.hub.repeats.failed("could not make a game report", None, exc,
                                        level=logging.WARNING)

    async def _free(self) -> None:
        """Return once no computer move waits for a worker or is being thought about."""
        computer = self.hub.computer
        while True:
            if computer.jobs is None:
                busy = computer.in_pool.get("moves", 0) > 0 or any(
                    g.thinking for g in self.hub.games.values())
            else:
                waiting = (await computer.depths()).get("moves", 0.0)
                busy = not math.isnan(waiting) and waiting > 0
            if not busy:
                return
            await asyncio.sleep(FREE_POLL_S)

    async def _slice(self, kpns: list[str]) -> list[list[Any]]:
        await self._free()
        computer = self.hub.computer
        if self.slots is None:
            found: list[list[Any]] = await computer.run_in_pool(
                worker.report_looks, kpns, self.nodes, self.solve_nodes, queue="analysis")
            return found
        async with self.slots.semaphore:
            found = await computer.run_in_pool(
                worker.report_looks, kpns, self.nodes, self.solve_nodes, queue="analysis")
            return found

    async def make_one(self) -> bool:
        """Take one report from the database and make it; whether there was one."""
        store = self.hub.store
        now = clocks.now_ms()
        row = await store.call(store.take_report, self.owner, now + LEASE_MS, now)
        if row is None:
            return False
        game_id = row["game_id"]
        try:
            game = await self.hub.load(game_id)
            if game is None:
                raise ValueError(f"no game {game_id!r}")
            match = game_match(game)
            kpns = [p.kpn() for p in match_positions(match)]
            looks: list[list[Any]] = json.loads(row["looks"]) if row["looks"] else []
            log.info("game %s: a report of %d positions (%d looked at already)",
                     game_id, len(kpns), len(looks))
            while len(looks) < len(kpns):
                looks.extend(await self._slice(kpns[len(looks):len(looks) + SLICE]))
                self.slices += 1
                kept = await store.call(store.report_progress, game_id, self.owner, len(looks),
                                        json.dumps(looks), clocks.now_ms() + LEASE_MS)
                if not kept:  # another process took it over (this one was too slow)
                    return True
            data = build_report(match, [Look.from_json(x) for x in looks]).to_json()
            data["nodes"] = {"solve": self.solve_nodes, "search": self.nodes}
            worded(data, match)
            report: str | None = json.dumps(data)
            error: str | None = None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken pool, an unreachable queue, a game gone
            self.hub.repeats.failed("a game report failed", game_id, exc, level=logging.WARNING)
            report, error = None, " ".join((str(exc) or type(exc).__name__).split())
        stored = await store.call(store.finish_report, game_id, self.owner, report, error, time.time())
        if stored and error is None:
            self.made += 1
        return True
