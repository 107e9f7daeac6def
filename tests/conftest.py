"""Shared fixtures: the real browser and the real PostgreSQL server; random
positions for the engine tests.

Outside CI a missing Chromium or PostgreSQL skips the tests that need them;
``.ci/run`` sets ``KAMISADO_REQUIRE_BROWSER`` and ``KAMISADO_REQUIRE_PG`` so
that in CI a missing one is a failure, not a skip.
"""

from __future__ import annotations

import os
import random
import shutil

import pytest

from kamisado.core import Position
from kamisado.match import FILL, FILLS, OVER, Match


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions in progress from random play of random matches of every type
    (the same ``seed`` gives the same positions)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        m = Match(rng.choice([1, 3, 7, 15]))
        while m.state != OVER and len(out) < count:
            if m.state == FILL:
                m.choose_fill(rng.choice(FILLS))
                continue
            pos = m.position
            out.append(pos.copy(stack=False))
            m.push_move(rng.choice(list(pos.legal_moves)))
    return out


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _missing(what: str, env: str) -> None:
    if os.environ.get(env):
        pytest.fail(f"{what} is required here ({env} is set) but is not available")
    pytest.skip(f"{what} is not available")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The path of Debian's Chromium (``apt-get install -y chromium``)."""
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        _missing("Chromium", "KAMISADO_REQUIRE_BROWSER")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def pg_url() -> str:
    """A PostgreSQL URL for tests (``KAMISADO_TEST_PG``, started by ``.ci/pg-start``)."""
    url = os.environ.get("KAMISADO_TEST_PG")
    if not url:
        _missing("PostgreSQL (KAMISADO_TEST_PG)", "KAMISADO_REQUIRE_PG")
    assert url is not None
    return url
