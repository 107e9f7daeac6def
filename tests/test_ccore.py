"""The engine core in plain C (``kamisado/engine/core``), built without Python.

The core's files are compiled alone with a small C host
(``tests/ccore/driver.c``) by ``cc -std=c11 -O2 -Wall -Wextra -Werror``, no
Python headers on the include path; the driver's perft counts must be the
golden counts of ``tests/data/perft.json``, and its solve, search and KPN
errors those of the extension ``kamisado.engine._ckamisado`` (the same core behind
the Python binding) where that is built.  No file of the core names Python's
C API.  Skipped where there is no C compiler.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "kamisado" / "engine" / "core"
DRIVER = Path(__file__).resolve().parent / "ccore" / "driver.c"
PERFT: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "perft.json").read_text(encoding="utf-8")
)
#: perft counts checked, per entry: those up to this many leaves
LEAVES = 10_000_000
START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
WIN_IN_11 = "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"


def core_files() -> list[Path]:
    return sorted(CORE.glob("*.c")) + sorted(CORE.glob("*.h"))


def compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = compiler()
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path_factory.mktemp("ccore") / "driver"
    cmd = [cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{CORE}"]
    cmd += [str(f) for f in sorted(CORE.glob("*.c"))] + [str(DRIVER), "-o", str(exe)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return exe


def run(driver: Path, *args: str) -> list[str]:
    res = subprocess.run([str(driver), *args], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, (args, res.stdout, res.stderr)
    return res.stdout.splitlines()


def extension() -> Any:
    """The compiled extension, or a skip where it is not built."""
    return pytest.importorskip("kamisado.engine._ckamisado")


def test_the_core_has_no_python() -> None:
    files = core_files()
    assert {f.name for f in files} >= {"kamisado.h", "board.c", "solve.c", "search.c"}
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert "Python.h" not in text, f
        assert "PyObject" not in text, f
        assert not re.search(r"\b_?Py[A-Z_]\w*", text), f


def test_the_binding_includes_the_core_header_only() -> None:
    binding = ROOT / "kamisado" / "engine"
    header = (binding / "_ckamisado.h").read_text(encoding="utf-8")
    assert re.findall(r'#include "([^"]+)"', header) == ["kamisado.h"]
    files = sorted(binding.glob("_ckamisado*.c"))
    assert len(files) >= 3, files
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert re.findall(r'#include "([^"]+)"', text) == ["_ckamisado.h"], f


@pytest.mark.parametrize("entry", PERFT, ids=[e["name"] for e in PERFT])
def test_perft_golden(driver: Path, entry: dict[str, Any]) -> None:
    counts = [n for n in entry["perft"] if n <= LEAVES]
    depth = len(counts)
    assert depth >= 3 and counts == entry["perft"][:depth]
    got = run(driver, "perft", entry["kpn"], str(depth), *entry["moves"])
    assert [int(n) for n in got] == counts


def test_perft_after_loading_the_position(driver: Path) -> None:
    entry = next(e for e in PERFT if e["name"] == "random-midround")
    got = run(driver, "perft", entry["position"], "5")
    assert [int(n) for n in got] == entry["perft"][:5]


@pytest.mark.parametrize("exact", [True, False])
def test_solve(driver: Path, exact: bool) -> None:
    head, pv = run(driver, "solve", WIN_IN_11, "1" if exact else "0")
    result, distance, best, depth, nodes, pv_nodes = (int(x) for x in head.split())
    assert result == 1 and best
    assert distance == (11 if exact else -1)
    assert len(pv.split()) == (11 if exact else 0)
    c = extension()
    r = c.Searcher().solve(c.Position(WIN_IN_11), exact=exact)
    assert (r["result"], r["distance"], r["best_move"], r["depth"]) == (
        result,
        distance,
        best,
        depth,
    )
    assert (r["nodes"], r["pv_nodes"]) == (nodes, pv_nodes)
    assert r["pv"] == [int(m) for m in pv.split()]


def test_search(driver: Path) -> None:
    head, pv = run(driver, "search", START, "8")
    depth, score, nodes, seldepth = (int(x) for x in head.split())
    assert depth == 8 and len(pv.split()) == 8
    c = extension()
    r = c.Searcher().search(c.Position(START), depth=8)
    assert (r["depth"], r["score"], r["nodes"], r["seldepth"]) == (
        depth,
        score,
        nodes,
        seldepth,
    )
    assert r["pv"] == [int(m) for m in pv.split()]


@pytest.mark.parametrize(
    "kpn",
    [
        START,
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO x - 1 0 0",
        "obupyrgn/8/8/8/8/8/8 b - 1 0 0",
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b",
        "obupyrgn/8/8/8/8/8/8/NGRYPU+BO b - 3 0 0",
        "8/8/8/OoNYyBur/pUPgGnRb/8/8/8 g u 3 0 0",
    ],
)
def test_kpn_as_the_extension(driver: Path, kpn: str) -> None:
    res = subprocess.run([str(driver), "kpn", kpn], capture_output=True, text=True)
    out = res.stdout.strip()
    c = extension()
    try:
        want = c.Position(kpn).kpn()
    except ValueError as e:
        assert res.returncode == 2 and out == f"error: {e}"
    else:
        assert res.returncode == 0 and out == want
