"""Shared fixtures: the real browser and the real PostgreSQL server; random
positions for the engine tests.

Outside CI a missing Chromium, PostgreSQL or Redis skips the tests that need
them; ``.ci/run`` sets ``KAMISADO_REQUIRE_BROWSER``, ``KAMISADO_REQUIRE_PG``
and ``KAMISADO_REQUIRE_REDIS`` so that in CI a missing one is a failure, not
a skip.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

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


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis of its own for the tests (Debian's ``redis-server`` on a free
    port, nothing saved): its URL, ``redis://127.0.0.1:PORT/0``."""
    path = shutil.which("redis-server")
    if path is None:
        _missing("Redis (redis-server)", "KAMISADO_REQUIRE_REDIS")
    assert path is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="kamisado-redis-") as folder:
        proc = subprocess.Popen(
            [path, "--save", "", "--appendonly", "no", "--port", str(port), "--bind", "127.0.0.1",
             "--dir", folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                        conn.sendall(b"PING\r\n")
                        if conn.recv(16).startswith(b"+PONG"):
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(timeout=10)
