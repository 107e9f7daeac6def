"""The test set-up of tests/conftest.py itself: a plain ``pytest`` run keeps a
module's tests that share a module-scoped fixture on one xdist worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# the project's hooks, in a throwaway project of their own
CONFTEST = """\
from tests.conftest import (  # noqa: F401
    pytest_cmdline_main, pytest_collection_modifyitems, pytest_configure_node,
)
"""

# four tests on a module-scoped fixture (each writes down its worker and how
# many times the fixture was set up in that worker), four tests on none
SHARED = """\
import os
import pytest

STARTS = []


@pytest.fixture(scope="module")
def shared():
    STARTS.append(1)
    return len(STARTS)


@pytest.mark.parametrize("n", range(4))
def test_shared(shared, n, tmp_path_factory):
    out = tmp_path_factory.getbasetemp().parent.parent / f"shared-{n}"
    out.write_text(f"{os.environ['PYTEST_XDIST_WORKER']} {shared}")


@pytest.mark.parametrize("n", range(4))
def test_alone(n):
    assert n < 4
"""


def test_a_plain_run_keeps_a_modules_shared_fixture_on_one_worker(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    project = tmp_path / "project"
    project.mkdir()
    (project / "conftest.py").write_text(CONFTEST)
    (project / "test_shared.py").write_text(SHARED)
    base = tmp_path / "runs" / "base"
    base.parent.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTEST_XDIST_WORKER", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # xdist alone: the other plugins cost only time here
    # no --dist on the command line: the conftest's default (--dist loadgroup)
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "xdist", "-n", "2", "-p", "no:cacheprovider",
         "--basetemp", str(base), "test_shared.py"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "8 passed" in res.stdout, res.stdout
    seen = [(tmp_path / "runs" / f"shared-{n}").read_text().split() for n in range(4)]
    workers = {worker for worker, _ in seen}
    assert len(workers) == 1 and workers <= {"gw0", "gw1"}, seen
    assert {starts for _, starts in seen} == {"1"}, seen  # the fixture set up once
