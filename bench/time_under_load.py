"""Does the built-in engine keep its time on a busy machine?

Starts two CPU burners (``python3 -c 'while True: pass'``, twice; killed
when the script ends, on an error too, and by the kernel should the script
itself be killed), then:

1. plays ``kamisado tournament level:club level:casual --movetime 100
   --games N --seed 7 --restart on`` (``--games``, default 20; the target is
   0 games lost on time in 100) and counts the games lost on time, the
   same with a clock (``--tc``, default ``2+0.05``, where the first move of
   each game is asked with the whole clock), and
2. starts a fresh ``kamisado engine`` ``--starts`` times, and after its
   ``readyok`` times its first ``go movetime 500`` from writing the command
   to reading ``bestmove`` (the target is 530 ms), printing each, the worst
   overrun and the load average.

::

    python bench/time_under_load.py                    # 20 games, 10 starts
    python bench/time_under_load.py --games 100 --starts 20
    python bench/time_under_load.py --burners 0        # the same, quiet

The figures depend on the machine and on what else runs on it: the load
average (1 minute) is printed with each.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from kamisado.args import duration, duration_help

#: The burner's program: one CPU kept busy.
BURNER = "while True: pass"
#: prctl's option: a signal sent to the child when its parent dies.
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """In the child before exec: SIGKILL it when this script dies (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def burners(n: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``n`` CPU burners for the block; killed at its end whatever happens."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen(
                ["python3", "-c", BURNER], preexec_fn=_die_with_parent,
                stdin=subprocess.DEVNULL,
            ))
        yield procs
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                p.kill()
        for p in procs:
            p.wait()


def load() -> str:
    """The load averages (1, 5 and 15 minutes) as text."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def tournament(games: int, timing: list[str], seed: int) -> tuple[int, int, list[str]]:
    """Play the tournament; (games played, games lost on time, their details)."""
    with tempfile.TemporaryDirectory(prefix="time_under_load") as out:
        cmd = [
            sys.executable, "-m", "kamisado.cli", "tournament", "level:club", "level:casual",
            *timing, "--games", str(games), "--seed", str(seed), "--restart", "on",
            "--out", out,
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        with open(Path(out) / "results.tsv", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    lost = [f"game {r['game']} move {r['moves']}: {r['detail']}" for r in rows
            if r["reason"] == "time"]
    return len(rows), len(lost), lost


def _expect(proc: subprocess.Popen[str], word: str) -> None:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine ended before {word!r}")
        if line.split()[:1] == [word]:
            return


def first_go(movetime: int) -> float:
    """A fresh engine: ``kei``, ``isready``, then the seconds its first
    ``go movetime`` takes from writing it to reading ``bestmove``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "engine"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, bufsize=1,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write("kei\n")
        _expect(proc, "keiok")
        proc.stdin.write("isready\n")
        _expect(proc, "readyok")
        proc.stdin.write("position startpos\n")
        start = time.monotonic()
        proc.stdin.write(f"go movetime {movetime}\n")
        _expect(proc, "bestmove")
        took = time.monotonic() - start
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(10)
        return took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    """Run the checks and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="tournament games (default 20)")
    ap.add_argument("--tc", default="2+0.05", help="the clock games' --tc ('' for none)")
    ap.add_argument("--tc-games", type=int, default=10, help="games with the clock (default 10)")
    ap.add_argument("--starts", type=int, default=10, help="fresh engine starts (default 10)")
    ap.add_argument("--movetime", type=duration("ms", 1, whole=True), default=500,
                    help=f"the first go's movetime, in {duration_help('ms')} (default 500 ms)")
    ap.add_argument("--burners", type=int, default=2, help="CPU burners (default 2)")
    ap.add_argument("--seed", type=int, default=7, help="the tournament's seed (default 7)")
    args = ap.parse_args(argv)
    with burners(args.burners):
        print(f"{args.burners} burner(s); {load()}", flush=True)
        if args.games:
            played, lost, why = tournament(
                args.games, ["--movetime", "100"], args.seed)
            print(f"movetime 100: {lost} of {played} games lost on time; {load()}", flush=True)
            for line in why:
                print(f"  {line}")
        if args.tc and args.tc_games:
            played, lost, why = tournament(args.tc_games, ["--tc", args.tc], args.seed)
            print(f"tc {args.tc}: {lost} of {played} games lost on time; {load()}", flush=True)
            for line in why:
                print(f"  {line}")
        worst = 0.0
        for i in range(args.starts):
            took = first_go(args.movetime) * 1000
            worst = max(worst, took - args.movetime)
            print(f"start {i + 1}: first go movetime {args.movetime} answered in"
                  f" {took:.0f} ms; {load()}", flush=True)
        if args.starts:
            print(f"worst overrun of the first go: {worst:+.0f} ms"
                  f" (target: answered within {args.movetime + 30} ms); {load()}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
