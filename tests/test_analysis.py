"""``kamisado analyse``, ``solve`` and ``best`` (kamisado.engine.analysis)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kamisado.engine import BACKEND
from kamisado.rules.position import Position

AFTER_A5 = "obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0"
FIG3 = "o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kamisado.cli", *args], capture_output=True, text=True,
        timeout=120,
    )


def test_solve_prints_one_line() -> None:
    r = run("solve", AFTER_A5)
    assert (r.returncode, r.stdout, r.stderr) == (0, "b wins in 16\n", "")
    r = run("solve", FIG3)
    assert r.stdout == "b wins in 1\n"
    # a Standard Match start is not solved in a tenth of a second
    r = run("solve", "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", "--time", "0.1")
    assert r.stdout == "unknown\n"


def test_solve_winner_proves_who_wins_with_a_winning_move() -> None:
    r = run("solve", AFTER_A5, "--winner")
    assert (r.returncode, r.stdout, r.stderr) == (0, "b wins\n", "")  # Gold to move loses
    if BACKEND == "python":
        return  # the exact check below takes over a minute on the pure-Python core
    start = Position()
    r = run("solve", start.kpn(), "--winner")
    words = r.stdout.split()
    assert words[:3] == ["b", "wins", "with"] and r.returncode == 0, r.stdout
    move = next(m for m in start.legal_moves if str(m) == words[3])
    start.push(move)  # and the exact solver agrees that it wins
    assert run("solve", start.kpn(), "--time", "30").stdout.startswith("b wins in ")


@pytest.mark.skipif(
    BACKEND == "python",
    reason="the pure-Python engine core needs many seconds for the depth that proves the loss",
)
def test_analyse_prints_depths_pv_and_the_proof() -> None:
    # the depth, not the clock, decides: depth 15 proves the loss however
    # loaded the machine (235,000 nodes; the time is only a cap)
    r = run("analyse", AFTER_A5, "--depth", "15", "--time", "600000")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    depths = [int(line.split()[1]) for line in lines if line.startswith("depth ")]
    assert depths == list(range(1, len(depths) + 1))
    assert any("score loss in 16" in line for line in lines)
    pv = next(line for line in lines if line.startswith("pv ")).split()[1:]
    pos = Position(AFTER_A5)
    for m in pv:
        pos.push_move(m)
    assert pos.outcome is not None and pos.outcome.winner == 0  # the PV ends the round
    assert lines[-1] == "b wins in 16"
    assert next(line for line in lines if line.startswith("best ")) == f"best {pv[0]}"


def test_best_by_level_and_by_time() -> None:
    r = run("best", FIG3, "--level", "beginner", "--seed", "3")
    assert r.stdout == "b5-b8\n"
    r = run("best", "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", "--time", "50")
    assert r.returncode == 0
    assert Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0").is_legal(
        Position().parse_move(r.stdout.strip())
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (("solve", "obupyrgn/8/8/8 b - 1 0 0"), "rank"),
        (("best", AFTER_A5, "--level", "wizard"), "invalid choice"),
        (("analyse", AFTER_A5, "--time", "-5"), "positive"),
        (("solve", "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0", "extra"),
         "unexpected"),
        (("analyse", AFTER_A5, "--time", "nan"), "--time: expected a positive duration: milliseconds"),
        (("analyse", AFTER_A5, "--time", "inf"), "found 'inf'"),
        (("best", AFTER_A5, "--time=-inf"), "found '-inf'"),
        (("solve", AFTER_A5, "--time", "nan"), "positive duration: seconds"),
        (("analyse", AFTER_A5, "--depth", "0"), "--depth: expected a whole number 1..120"),
        (("analyse", AFTER_A5, "--depth", "-3"), "found '-3'"),
        (("analyse", AFTER_A5, "--depth", "100000"), "found '100000'"),
        (("analyse", AFTER_A5, "--depth", "two"), "found 'two'"),
        (("best", AFTER_A5, "--level", "club", "--seed", "-1"), "--seed: expected a whole"),
        (("analyse", AFTER_A5, "--seed", str(2**64)), "--seed"),
        (("best", AFTER_A5), "one of the arguments --level --time is required"),
    ],
)
def test_errors_exit_2_with_nothing_on_stdout(args: tuple[str, ...], message: str) -> None:
    r = run(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert message in r.stderr
    # one line, no usage text
    assert r.stderr.count("\n") == 1 and "usage" not in r.stderr
    assert r.stderr.startswith("kamisado")


def test_a_finished_round_has_nothing_to_search() -> None:
    pos = Position("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    pos.push_move("f6-a1")
    r = run("best", pos.kpn(), "--time", "10")
    assert r.returncode == 2 and "over" in r.stderr and r.stdout == ""
