"""The rate limits' token buckets that every process on one PostgreSQL
database shares (docs/web-limits.md, "Rate limits"): a limit per address
or per player is counted once for all of them, so N processes do not
give a client N times the limit.

One take is one round trip: a single ``INSERT ... ON CONFLICT DO UPDATE``
on ``rate_buckets`` (:data:`kamisado.web.store.schema.rate_buckets`) for
every key of the request at once (its address and its player), which
refills each bucket in SQL from the time since its last take, takes a
token where there is one, and returns what is left.  The row is locked by
the statement itself, so two processes taking at once take one token each,
never the same one.  A key's first take makes its row (full, less one).

Time is the limiter's wall clock (``clock``, seconds: ``time.time`` unless
injected), the same on every process of one machine (and, kept by NTP, on
every machine); it is passed in, so tests need no sleeps.  Rows idle for
:data:`IDLE_S` (every limit is full again long before) are deleted, at
most once every :data:`SWEEP_S` by each process, on the way of a take.

A take that cannot reach the database (a connection refused or broken, or
no answer within ``timeout_s``) returns ``None``: the caller
(:meth:`kamisado.web.edge.guard.RateLimiter.take_all_async`) then counts it
in the process's own buckets, so a store outage neither refuses everyone
nor lets anyone through unlimited, and is never a 500.  Any other error
(a programming error) is raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import sqlalchemy as sa

if TYPE_CHECKING:
    from kamisado.web.store.storage import Store

__all__ = ["IDLE_S", "SWEEP_S", "SharedBuckets"]

log = logging.getLogger("kamisado.web")

#: A bucket not taken from for this long (s) is deleted: every limit is full
#: again within burst / rate (30 minutes at most: ``complaint``, 5 reports
#: at 10 an hour; the rest within 2 minutes).
IDLE_S = 3600.0
#: How often (s) each process deletes the idle buckets, at most.
SWEEP_S = 60.0

_LEVEL = "LEAST(CAST(:burst AS float8), b.tokens + GREATEST(0.0, :now - b.stamp) * :rate)"
#: One take from the buckets of ``keys`` (a text array) of limit ``name``.
_TAKE = sa.text(
    "INSERT INTO rate_buckets AS b (name, key, tokens, stamp, taken)"
    " SELECT :name, k, CAST(:burst AS float8) - 1.0, :now, true FROM unnest(CAST(:keys AS text[])) AS k"
    " ON CONFLICT (name, key) DO UPDATE SET"
    f" tokens = CASE WHEN {_LEVEL} >= 1.0 THEN {_LEVEL} - 1.0 ELSE {_LEVEL} END,"
    f" taken = {_LEVEL} >= 1.0,"
    " stamp = GREATEST(b.stamp, :now)"
    " RETURNING b.key, b.tokens, b.taken"
)
_SWEEP = sa.text("DELETE FROM rate_buckets WHERE stamp < :before")


class SharedBuckets:
    """The shared buckets of one PostgreSQL store (see the module).

    ``take`` is what :class:`kamisado.web.edge.guard.RateLimiter` calls for
    a limit it shares: 0.0 when every key had a token (each took one), else
    the seconds until the emptiest has one; ``None`` when the database
    cannot be reached (then the process's own buckets count)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time, timeout_s: float = 2.0) -> None:
        if store._pg is None:
            raise ValueError("shared rate limits need PostgreSQL (SQLite is one process's)")
        self.db = store._pg
        self.driver = store._pg.driver
        self.clock = clock
        self.timeout_s = timeout_s
        self._swept = -SWEEP_S  # (by the clock) the idle buckets were last deleted
        self._warned = -SWEEP_S  # (by the clock) an outage was last logged
        self.db.keep(_TAKE)
        self.db.keep(_SWEEP)

    async def take(self, name: str, rate: float, burst: int, keys: Sequence[str]) -> float | None:
        """Take one token from each of ``keys``' buckets of limit ``name``."""
        now = self.clock()
        try:
            if now - self._swept >= SWEEP_S:
                self._swept = now
                await asyncio.wait_for(self.db.rows_async(_SWEEP, {"before": now - IDLE_S}), self.timeout_s)
            rows = await asyncio.wait_for(
                self.db.rows_async(
                    _TAKE, {"name": name, "rate": rate, "burst": burst, "now": now, "keys": list(keys)}),
                self.timeout_s)
        except (self.driver.OperationalError, OSError, TimeoutError) as exc:
            if now - self._warned < SWEEP_S:  # once a minute
                return None
            self._warned = now
            log.warning("the shared rate limits cannot be read (%s: %s); this process counts %s alone",
                        type(exc).__name__, exc, name)
            return None
        wait = 0.0
        for _key, tokens, taken in rows:
            if not taken:
                wait = max(wait, (1.0 - float(tokens)) / rate)
        return wait
