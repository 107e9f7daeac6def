"""The server's Prometheus metrics (prometheus-client), one registry per app.

What ``GET /metrics`` shows (:mod:`kamisado.web.site.ops` serves it):

- ``kamisado_websockets_open``, ``kamisado_games_held``: read when scraped;
- ``kamisado_actions_total{kind}``: the actions this process stored, by
  kind (``move``, ``fill``, ``takeback``, ``resign``, ``abort``, ``flag``,
  ``abandon``); ``kamisado_flags_fallen_total`` the flags among them;
- ``kamisado_move_seconds``: a move's round trip in the server, from the
  move frame read to its state frame sent to every connection on the game;
- ``kamisado_store_call_seconds{call}``: the store's calls, by the
  store's method (``append``, ``load``, ``create``, ...);
- ``kamisado_think_seconds``: the computer's thinking (a job in the pool
  or on the queue, from handed over to answered);
- ``kamisado_queue_depth{queue}``: the engine's jobs waiting or running
  (``moves``, ``analysis``): on the Redis queue, all of them; with a
  process pool, this process's;
- ``kamisado_event_loop_lag_seconds``: how late the event loop wakes a
  task that sleeps :data:`LAG_INTERVAL_S`;
- ``kamisado_gc_pause_seconds{generation}``: the garbage collector's pauses;
- prometheus-client's own process, platform and collector metrics.

The hot path stays cheap: a move costs one counter increment (a child
looked up once, at start) and two appends to a list.  The timings are
kept in :attr:`Metrics.pending` and put into their histograms off the
hot path (:meth:`Metrics.flush`: every :data:`LAG_INTERVAL_S`, and before
every scrape); a collection of the garbage collector is noted the same
way, since its callback may run while a histogram holds its lock.

>>> m = Metrics()
>>> m.acted("c1-c5"); m.acted("left"); m.acted("time-b")
>>> m.moved(0.004); m.flush()
>>> text = m.exposition().decode()
>>> 'kamisado_actions_total{kind="move"} 1.0' in text, 'kamisado_flags_fallen_total 1.0' in text
(True, True)
>>> "kamisado_move_seconds_count 1.0" in text
True
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

__all__ = ["ACTION_KINDS", "LAG_INTERVAL_S", "Metrics", "action_kind"]

log = logging.getLogger("kamisado.web")

# no "_created" series beside each counter and histogram (the time it was made): noise here
disable_created_metrics()  # type: ignore[no-untyped-call]

#: How often the event loop's lag is measured and the timings are put in
#: their histograms (seconds).
LAG_INTERVAL_S = 0.5

#: An action's kind by its token's first word (a move, ``c1-c5``, has none of these).
_KINDS = {
    "left": "fill", "right": "fill", "undo": "takeback", "resign": "resign",
    "abort": "abort", "time": "flag", "abandon": "abandon",
}
#: Every kind of action ``kamisado_actions_total`` counts.
ACTION_KINDS = ("move", "fill", "takeback", "resign", "abort", "flag", "abandon")

_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_THINK = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
_LAG = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_GC = (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


def action_kind(token: str) -> str:
    """The kind of a stored action's token.

    >>> [action_kind(t) for t in ("c1-c5", "right", "undo-b-2", "time-g", "abort")]
    ['move', 'fill', 'takeback', 'flag', 'abort']
    """
    return _KINDS.get(token.partition("-")[0], "move")


class Metrics:
    """One server's metrics, in a registry of its own (several apps in one
    process, as in the tests, do not share one)."""

    def __init__(self) -> None:
        reg = self.registry = CollectorRegistry()
        ProcessCollector(registry=reg)
        PlatformCollector(registry=reg)
        GCCollector(registry=reg)
        self.websockets = Gauge("kamisado_websockets_open", "Websockets open on this process", registry=reg)
        streams = Gauge("kamisado_streams_open", "Streams of the bot API open on this process, by kind"
                        " (game: GET /api/bot/game/stream/{id}; event: GET /api/stream/event)", ["kind"],
                        registry=reg)
        self.streams = {kind: streams.labels(kind) for kind in ("game", "event")}
        self.games = Gauge("kamisado_games_held", "Games held in this process's memory", registry=reg)
        actions = Counter("kamisado_actions", "Actions stored by this process, by kind", ["kind"],
                          registry=reg)
        #: each kind's child, looked up once: the hot path does no label lookup
        self.actions = {kind: actions.labels(kind) for kind in ACTION_KINDS}
        self.flags = Counter("kamisado_flags_fallen", "Flags that fell (games lost on time) stored by"
                             " this process", registry=reg)
        self.move = Histogram(
            "kamisado_move_seconds",
            "A move's round trip in the server: from its frame read to its state sent to the game",
            buckets=_FAST, registry=reg)
        self.store = Histogram("kamisado_store_call_seconds", "The store's calls, by method", ["call"],
                               buckets=_FAST, registry=reg)
        self._store_children: dict[str, Any] = {}
        self.think = Histogram("kamisado_think_seconds", "The computer's thinking about a move (pool or"
                               " queue)", buckets=_THINK, registry=reg)
        self.queue_depth = Gauge("kamisado_queue_depth", "The engine's jobs waiting or running, by queue",
                                 ["queue"], registry=reg)
        self.loop_lag = Histogram("kamisado_event_loop_lag_seconds", "How late the event loop wakes a"
                                  " sleeping task", buckets=_LAG, registry=reg)
        gc_pause = Histogram("kamisado_gc_pause_seconds", "The garbage collector's pauses, by generation",
                             ["generation"], buckets=_GC, registry=reg)
        self._gc = [gc_pause.labels(str(g)) for g in range(3)]
        self._gc_started = 0.0
        #: timings noted, not yet in their histograms: (histogram, seconds)
        self.pending: list[tuple[Any, float]] = []
        #: the store's calls noted: (method, seconds)
        self.store_pending: list[tuple[str, float]] = []

    # -- noted on the way (cheap) ---------------------------------------------------

    def acted(self, token: str) -> None:
        """An action was stored."""
        kind = _KINDS.get(token.partition("-")[0], "move")
        self.actions[kind].inc()
        if kind == "flag":
            self.flags.inc()

    def moved(self, seconds: float) -> None:
        """A move's round trip in the server."""
        self.pending.append((self.move, seconds))

    def stored(self, call: str, seconds: float) -> None:
        """A store call took ``seconds`` (the store's hook: :attr:`kamisado.web.store.storage.Store.on_call`)."""
        self.store_pending.append((call, seconds))

    def thought(self, seconds: float) -> None:
        """The computer thought ``seconds`` about a move."""
        self.pending.append((self.think, seconds))

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.pending.append((self._gc[info["generation"]], time.perf_counter() - self._gc_started))

    # -- off the hot path ------------------------------------------------------------

    def flush(self) -> None:
        """Put the timings noted into their histograms."""
        pending, self.pending = self.pending, []
        for histogram, seconds in pending:
            histogram.observe(seconds)
        calls, self.store_pending = self.store_pending, []
        for call, seconds in calls:
            child = self._store_children.get(call)
            if child is None:
                child = self._store_children[call] = self.store.labels(call)
            child.observe(seconds)

    def watch(self, websockets: Callable[[], int], games: Callable[[], int],
              streams: dict[str, Callable[[], int]] | None = None) -> None:
        """Read the websockets open, the games held and the bot API's streams
        open (by kind: ``game``, ``event``) from these functions when scraped,
        and time the garbage collector's pauses (until :meth:`unwatch`)."""
        self.websockets.set_function(websockets)
        self.games.set_function(games)
        for kind, count in (streams or {}).items():
            self.streams[kind].set_function(count)
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def unwatch(self) -> None:
        """Stop timing the garbage collector."""
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def set_depths(self, depths: dict[str, float]) -> None:
        """The engine's jobs waiting or running, by queue (NaN: not known)."""
        for queue, depth in depths.items():
            self.queue_depth.labels(queue).set(depth)

    async def monitor(self, interval: float = LAG_INTERVAL_S) -> None:
        """Measure the event loop's lag and flush the timings every ``interval``
        (a task of the hub's while the server runs)."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(interval)
            self.pending.append((self.loop_lag, max(0.0, loop.time() - start - interval)))
            try:
                self.flush()
            except Exception:  # the timings of one interval lost, never the task
                log.exception("could not put the timings in the metrics")

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format (the timings flushed first)."""
        self.flush()
        return generate_latest(self.registry)
