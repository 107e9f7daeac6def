"""What the tests of ``kamisado tournament`` share: the mock engines of
tests/engines, reading an output directory, and running the command as a
process (as in a terminal) to stop it and watch its engines' processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kamisado.protocol.tournament_results import RESULTS_COLUMNS
from kamisado.rules import record

ENGINES = Path(__file__).parent / "engines"


def mock(name: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ENGINES / name}.py {' '.join(args)}".rstrip()


def finished(out: Path) -> dict[str, dict[str, object]]:
    state = json.loads((out / "state.json").read_text())
    result: dict[str, dict[str, object]] = state["finished"]
    return result


def results(out: Path) -> list[dict[str, str]]:
    """``results.tsv`` as rows by column name (its header checked)."""
    lines = (out / "results.tsv").read_text().splitlines()
    assert lines[0].split("\t") == list(RESULTS_COLUMNS)
    rows = [dict(zip(RESULTS_COLUMNS, line.split("\t"), strict=True)) for line in lines[1:]]
    return rows


def played(path: Path) -> str:
    """A record's text less what the clock decides: each move's comment keeps
    the engine's score and depth, without the time used and the clocks."""
    rec = record.load(path)
    rec.comments = {key: record.Comment(c.score, c.depth)
                    for key, c in rec.comments.items() if c.score is not None}
    return record.write(rec)


def engine_processes_during(
    run: Callable[[], object],
) -> tuple[object, dict[int, str]]:
    """Run ``run``; the processes started below this one meanwhile, with their command lines."""
    before = descendants(os.getpid())
    seen: dict[int, str] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid in descendants(os.getpid()) - before:
                seen[pid] = seen.get(pid) or cmdline(pid)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = run()
    finally:
        done.set()
        watcher.join()
    return result, seen


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def as_in_a_terminal() -> None:
    # a terminal's foreground job gets Ctrl-C; a suite started with ``&`` from a
    # script (or under nohup) ignores SIGINT, and children inherit that
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_tournament(out: Path, *argv: str, stop_within: float | None = None) -> subprocess.Popen[str]:
    """``kamisado tournament ARGV --out OUT`` in a process group of its own;
    ``stop_within`` injects the first stop's deadline (seconds,
    :data:`kamisado.protocol.tournament.STOP_WITHIN`) for a test that must
    not depend on reaching the command within it."""
    command = [sys.executable, "-m", "kamisado.cli"]
    if stop_within is not None:
        command = [sys.executable, "-c",
                   "import sys, kamisado.protocol.tournament_cli as c; from kamisado.cli import main; "
                   f"c.STOP_WITHIN = {stop_within!r}; sys.exit(main())"]
    return subprocess.Popen(
        [*command, "tournament", *argv, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a job in a terminal
        preexec_fn=as_in_a_terminal,
    )


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def engine_starts(out: Path) -> dict[str, int]:
    """How many times each player's engine was started (its ``kei`` lines in the debug log)."""
    counts: dict[str, int] = {}
    for line in (out / "debug.log").read_text().splitlines():
        if line.endswith(" > kei"):
            name = line.split(" > ")[0].split()[-1]
            counts[name] = counts.get(name, 0) + 1
    return counts


def wrapper_player(tmp_path: Path, how: str) -> str:
    """A ``#!/bin/sh`` engine that runs hanging.py without exec (``how`` before it)."""
    script = tmp_path / f"engine-{how or 'plain'}.sh"
    script.write_text(f'#!/bin/sh\n{how} "{sys.executable}" "{ENGINES / "hanging.py"}"\n'
                      "exit $?\n")
    script.chmod(0o755)
    return f"hang=cmd:{script}"

