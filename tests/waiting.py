"""Waiting on a condition in tests: poll it, with a deadline, instead of
sleeping for a guessed time (a guess that a loaded machine outlasts)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: How long a condition may take to come true before the test fails: long,
#: since on a loaded machine a server or an engine may wait its turn; a
#: test that passes never waits it out.
DEADLINE_S = 60.0


def until(check: Callable[[], T], what: str, timeout: float = DEADLINE_S, every: float = 0.02) -> T:
    """Poll ``check()`` every ``every`` seconds until it returns something
    true, and return that; ``AssertionError`` naming ``what`` when it has
    not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(every)


async def until_async(check: Callable[[], T], what: str, timeout: float = DEADLINE_S,
                      every: float = 0.01) -> T:
    """:func:`until` on an event loop: ``check()`` between ``asyncio.sleep`` calls,
    so the loop's other tasks run meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(every)
