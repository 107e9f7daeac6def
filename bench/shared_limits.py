"""What one take from the shared rate limits costs on PostgreSQL
(:class:`kamisado.web.store.buckets.SharedBuckets`, docs/web-limits.md,
"Rate limits"): ``--takes`` takes of ``create`` for an address and a player
(one UPSERT, one round trip each), one after another on the event loop,
against the in-memory take; prints the mean and the p50/p99 per take.

    python bench/shared_limits.py --db postgresql://postgres@127.0.0.1:54329/NAME
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from kamisado.web.edge.guard import Limit, RateLimiter
from kamisado.web.store.buckets import SharedBuckets
from kamisado.web.store.storage import Store


async def timed(limiter: RateLimiter, takes: int) -> list[float]:
    out = []
    for i in range(takes):
        keys = [f"addr:bench-{i % 500}", f"player:bench-{i % 500}"]
        start = time.perf_counter()
        await limiter.take_all_async("create", keys)
        out.append(time.perf_counter() - start)
    return out


def report(what: str, took: list[float]) -> None:
    took = sorted(took)
    p = lambda q: took[min(len(took) - 1, int(q * len(took)))] * 1e3  # noqa: E731
    print(f"{what}: {len(took)} takes, mean {statistics.mean(took) * 1e3:.3f} ms,"
          f" p50 {p(0.5):.3f} ms, p99 {p(0.99):.3f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a PostgreSQL URL")
    ap.add_argument("--takes", type=int, default=5000)
    args = ap.parse_args()
    limits = {"create": Limit("create", 1e6, 10**9, "games created")}  # never refused: the cost alone
    store = Store(args.db)
    try:
        shared = RateLimiter(limits, shared=SharedBuckets(store))
        asyncio.run(timed(shared, 200))  # warm: connections, the statement prepared
        report("shared (PostgreSQL)", asyncio.run(timed(shared, args.takes)))
        report("this process's own", asyncio.run(timed(RateLimiter(limits), args.takes)))
    finally:
        store.close()


if __name__ == "__main__":
    main()
