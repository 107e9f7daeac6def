"""Shared fixtures: the real browser and the real PostgreSQL server; random
positions for the engine tests.

Outside CI a missing Chromium, PostgreSQL or Redis skips the tests that need
them; ``.ci/run`` sets ``KAMISADO_REQUIRE_BROWSER``, ``KAMISADO_REQUIRE_PG``
and ``KAMISADO_REQUIRE_REDIS`` so that in CI a missing one is a failure, not
a skip.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from kamisado.rules.match import FILL, FILLS, OVER, Match
from kamisado.rules.position import Position
from kamisado.web.accounts import players as _players

#: The servers' password hasher (argon2-cffi's defaults: 64 MiB and tens of
#: milliseconds a hash, on purpose), kept for the test that checks it
#: (tests/test_web_players.py).  In this process a cheap one takes its place:
#: every server a test starts hashes a dummy password once, and the tests of
#: accounts sign in many times; the hashes' cost is not what they test (the
#: servers the tests start as processes keep the real one).
PRODUCTION_HASHER = _players.default_hasher


def _cheap_hasher() -> _players.PasswordHasher:
    return _players.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


_players.default_hasher = _cheap_hasher

# no example database in the working folder (the clone): each run draws afresh
# from its own seeds (tests that need fixed examples say so themselves)
with contextlib.suppress(ImportError):
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("kamisado", database=None)
    _hypothesis_settings.load_profile("kamisado")


#: How many test processes pytest-xdist runs when the command line names no
#: number (``-n N``): many tests wait on servers, browsers and engines
#: rather than compute, so three suit a 2-core machine.  ``-n 0`` or
#: ``-p no:xdist`` run the tests in this one process.
WORKERS = 3


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n WORKERS --dist loadgroup`` unless the command line says otherwise
    (or pytest-xdist is not installed, or ``--pdb`` asks for one process)."""
    if (
        not config.pluginmanager.hasplugin("xdist")
        or hasattr(config, "workerinput")
        or os.environ.get("PYTEST_XDIST_WORKER")
    ):
        return
    if config.option.numprocesses is None and not config.getoption("usepdb", False):
        config.option.numprocesses = WORKERS
    if config.option.dist == "no" and not config.option.distload:
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    """Tell each xdist worker the ``--dist`` mode this process chose.

    A worker reads only the command line as typed (not what
    :func:`pytest_cmdline_main` set): without this, a worker of a plain
    ``pytest`` run would not name its tests' ``xdist_group`` to the
    scheduler, and a module's module-scoped server, browser or computed
    positions would be set up on every worker its tests reach."""
    node.workerinput["kamisado_dist"] = node.config.option.dist  # type: ignore[attr-defined]


def _order_seed(config: pytest.Config) -> int | None:
    """The seed pytest-randomly shuffled the tests with (``None``: not shuffled,
    ``-p no:randomly`` or the plugin missing)."""
    if not config.pluginmanager.hasplugin("randomly"):
        return None
    seed = config.getoption("randomly_seed", None)
    return seed if isinstance(seed, int) else None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Print the order's seed first, also under ``-q`` (which hides the header
    where pytest-randomly prints it); the workers of xdist take the main
    process's seed, so they agree on the order."""
    seed = _order_seed(session.config)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if seed is not None and reporter is not None and not hasattr(session.config, "workerinput"):
        reporter.write_line(f"tests in random order: --randomly-seed={seed} repeats it, -p no:randomly keeps the file's")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The order's seed again at the end, beside the failures."""
    seed = _order_seed(config)
    if seed is not None:
        terminalreporter.write_line(f"tests ran in random order: --randomly-seed={seed}")


#: The test modules of the engine core and what plays through it: their
#: answers depend on which core runs (compiled or pure Python), so CI runs
#: them on both (``-m core`` with ``KAMISADO_PURE_PYTHON=1``, see .ci/run);
#: everything else does not depend on the core and runs once, as does a
#: test of these modules marked ``any_core`` (what it tests is not the core's).
CORE_TESTS = {
    "test_analysis.py", "test_book.py", "test_ckamisado.py", "test_engine.py",
    "test_lessons.py", "test_levels.py", "test_kei.py", "test_tournament_games.py",
    "test_tournament_engines.py", "test_tournament_stop.py",
    "test_search_multipv.py", "test_kei_options.py",
}
#: The modules whose doctests run the engine core (and their submodules: the
#: whole engine room, its levels and analysis included).
CORE_DOCTESTS = ("kamisado.engine",)
#: This folder: the test modules.
TESTS = Path(__file__).resolve().parent


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m core`` alone (CI's run on the pure-Python core, .ci/run),
    a test module that holds no core test is not imported at all: one not in
    :data:`CORE_TESTS` whose text never says ``mark.core`` (the marker
    written on a test, a class or ``pytestmark``).  Every test of such a
    module would be deselected anyway; importing them (the browser, the web
    server, the terminal game) cost each worker about half its collection."""
    if config.option.markexpr != "core" or collection_path.suffix != ".py":
        return None
    if collection_path.parent != TESTS or not collection_path.name.startswith("test_"):
        return None
    if collection_path.name in CORE_TESTS or "mark.core" in collection_path.read_text(encoding="utf-8"):
        return None
    return True


def _is_core(item: pytest.Item) -> bool:
    if item.get_closest_marker("any_core") is not None:
        return False
    if isinstance(item, pytest.DoctestItem):  # named kamisado.engine, kamisado.engine.search...
        return any(item.name == m or item.name.startswith(m + ".") for m in CORE_DOCTESTS)
    return item.path.name in CORE_TESTS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks ``core`` on the tests of :data:`CORE_TESTS` and :data:`CORE_DOCTESTS`.

    Under pytest-xdist (``--dist loadgroup``), the tests of a module that
    share a module-scoped fixture (a live server, a browser) run on one
    worker, which starts that fixture once; the other tests go to whichever
    worker is free.  Tests marked ``slow`` (each alone over about 8 s in a
    loaded run) go first, in the random order among themselves: xdist hands
    out the groups of several tests first, then single tests in this order,
    and one of them left to the end kept a worker busy after the others had
    finished (the suite took 7:21 to 8:42 by the seed)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("kamisado_dist") == "loadgroup":
        config.option.loadgroup = True  # read by xdist's worker after this hook
    for item in items:
        if _is_core(item):
            item.add_marker(pytest.mark.core)
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        scopes = {d.scope for defs in info.name2fixturedefs.values() for d in defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the rest as shuffled


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


def worker_database(url: str, worker: str | None) -> str:
    """The URL of xdist worker ``worker``'s own database on the server of
    ``url``: ``<database>_<worker>`` (``kamisado_test_gw0``), created when
    missing; ``url`` itself outside xdist (``worker`` None or ``master``).

    Tests on PostgreSQL drop and make tables, so workers running at once
    must not share a database."""
    if not worker or worker == "master":
        return url
    import psycopg
    from psycopg import errors, sql

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'postgres'}_{worker}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=30) as conn:
                if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                    break
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                break
        except errors.DuplicateDatabase:
            break  # made meanwhile (another session's worker of the same name)
        except errors.ObjectInUse:
            # CREATE DATABASE copies template1: not while another session copies it
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def pg_database() -> str:
    """A PostgreSQL URL for tests (``KAMISADO_TEST_PG``, started by ``.ci/pg-start``);
    under pytest-xdist each worker's own database on that server
    (:func:`worker_database`).  :func:`pg_url` is the same, for one test."""
    url = os.environ.get("KAMISADO_TEST_PG")
    if not url:
        _missing("PostgreSQL (KAMISADO_TEST_PG)", "KAMISADO_REQUIRE_PG")
    assert url is not None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return url  # the tests say psycopg is missing themselves
    return worker_database(url, os.environ.get("PYTEST_XDIST_WORKER"))


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """:func:`pg_database`, with none of the rate limits' shared buckets
    taken: they are kept in the database for every process, so they would
    outlive the servers of earlier tests (a fresh server's buckets in memory
    start full)."""
    try:
        import psycopg
    except ImportError:
        return pg_database  # the tests say psycopg is missing themselves
    with psycopg.connect(pg_database, autocommit=True, connect_timeout=30) as conn:
        if conn.execute("SELECT to_regclass('rate_buckets')").fetchone() != (None,):
            conn.execute("DELETE FROM rate_buckets")
    return pg_database


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


def cpu_seconds(pid: int | None = None) -> float:
    """The CPU time (user and system, in seconds) process ``pid`` has used so
    far; this process's (all its threads) when ``pid`` is None.

    For tests of "it stops at once", "it keeps to its budget": the CPU
    time a search takes does not grow when the machine is loaded, the
    wall-clock time it takes does (a starved process waits its turn).
    Where ``/proc`` is missing, the wall clock stands in for another
    process's."""
    if pid is None:
        return time.process_time()
    if not os.path.exists("/proc/self/stat"):
        return time.monotonic()
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_process(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """End a child process the polite way: SIGTERM, then SIGKILL when it has
    not exited within 10 s (a test's servers and workers)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """A throwaway PostgreSQL cluster of a test's own in a temporary folder,
    on a free port (made as ``.ci/pg-start`` makes one): never the shared
    test server, which other tests use; a test may stop and start it."""

    def __init__(self, bindir: str) -> None:
        self.bin = bindir
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.base = tempfile.mkdtemp(prefix="kamisado-pg-own-")
        if self.run_as:
            shutil.chown(self.base, "postgres")
        self.data = os.path.join(self.base, "data")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/kamisado"

    def pg(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.run_as, os.path.join(self.bin, tool), *args],
            check=True, capture_output=True, timeout=60,
        )

    def start(self) -> None:
        self.pg(
            "pg_ctl", "-D", self.data, "-l", os.path.join(self.base, "log"), "-w",
            "-o", f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1", "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self.pg("pg_ctl", "-D", self.data, "-w", "-m", mode, "stop")

    def create(self) -> None:
        self.pg("initdb", "-D", self.data, "-A", "trust", "-U", "postgres")
        self.start()
        self.pg("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "kamisado")

    def remove(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture
def own_pg() -> Iterator[Cluster]:
    """A PostgreSQL cluster of the test's own (:class:`Cluster`), removed after it."""
    if not os.environ.get("KAMISADO_TEST_PG"):
        _missing("PostgreSQL (KAMISADO_TEST_PG)", "KAMISADO_REQUIRE_PG")
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    if not found:
        _missing("the PostgreSQL server programs", "KAMISADO_REQUIRE_PG")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _missing("psycopg", "KAMISADO_REQUIRE_PG")
    cluster = Cluster(found[-1])
    try:
        cluster.create()
    except (subprocess.SubprocessError, OSError, LookupError) as exc:
        cluster.remove()
        _missing(f"a PostgreSQL cluster of the test's own ({exc})", "KAMISADO_REQUIRE_PG")
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(autouse=True)
def uvicorn_logs_reach_caplog() -> Iterator[None]:
    """uvicorn's records (its "Exception in ASGI application" with the
    traceback) pass on to the root logger, where ``caplog`` hears them,
    whatever an earlier test in this process did: ``kamisado web``'s text
    logs apply uvicorn's ``LOGGING_CONFIG``, whose ``uvicorn`` logger stops
    them (``propagate: False``); a test after it in the same worker then saw
    no traceback (test_web_store_faults failed so, in one order).  Not
    through ``monkeypatch``: an autouse fixture holding it would keep a
    test's own patches in place until after its other fixtures' teardown."""
    logger = logging.getLogger("uvicorn")
    before, logger.propagate = logger.propagate, True
    yield
    logger.propagate = before


@pytest.fixture(autouse=True)
def console_clean(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a browser test whose pages logged a console error or warning
    (tests/browser_kit.py collects them), but for the lines its
    ``console_allows`` marks name (regular expressions)."""
    kit = sys.modules.get("tests.browser_kit")
    if kit is not None:
        kit.OPENED.clear()
    yield
    kit = sys.modules.get("tests.browser_kit")
    if kit is None or not kit.OPENED:
        return
    allowed = [re.compile(p) for m in request.node.iter_markers("console_allows") for p in m.args]
    found = [line for pg in kit.OPENED for line in pg.console
             if not any(a.search(line) for a in allowed)]
    kit.OPENED.clear()
    if found:
        pytest.fail("the page logged console errors or warnings:\n" + "\n".join(found[:20]))
