"""``kamisado tournament``, stopping: Ctrl-C and SIGTERM at any moment, then
``--resume``; wrapper scripts, a deadline, a second signal, the first instant."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kamisado.protocol import tournament
from kamisado.protocol.tournament_cli import main
from kamisado.protocol.tournament_config import (
    Config,
    parse_player,
)
from kamisado.rules import record
from tests.tournament_kit import (
    ENGINES,
    alive,
    cmdline,
    descendants,
    engine_processes_during,
    finished,
    results,
    start_tournament,
    wrapper_player,
)
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


def stop_after(
    proc: subprocess.Popen[str], out: Path, games: int, how: Callable[[], None]
) -> str:
    """Wait until ``games`` games are finished, then stop the tournament with ``how``.

    Afterwards no engine the tournament started may be left running.
    """
    engines: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            engines |= descendants(proc.pid)
            if (out / "state.json").exists() and len(finished(out)) >= games:
                break
            time.sleep(0.05)
        engines |= descendants(proc.pid)
        assert engines, "the tournament started no engine processes"
        how()
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    until(lambda: not [pid for pid in engines if alive(pid)], "the engines end", timeout=10)
    return stdout


def assert_no_forfeits(out: Path) -> None:
    for name in os.listdir(out):
        if name.endswith(".txt"):
            end = record.load(out / name).end
            assert end is not None and not end.early, (name, end)


def test_stop_with_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = start_tournament(  # a wide margin: about stopping, not time (see below)
        out, "level:beginner", "level:novice", "--games", "20", "--movetime", "20",
        "--margin", "5000",
    )
    stdout = stop_after(proc, out, 1, lambda: proc.send_signal(signal.SIGTERM))
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    assert 1 <= len(finished(out)) < 20
    assert_no_forfeits(out)


def test_stop_with_ctrl_c_then_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    # a wide margin: this test is about stopping and resuming, not about time
    # (a loaded machine may answer 15 ms moves late)
    argv = ["level:beginner", "level:novice", "--games", "6", "--movetime", "15",
            "--margin", "5000"]
    proc = start_tournament(out, *argv, "--seed", "5")
    # Ctrl-C in a terminal sends SIGINT to the whole foreground process group
    stdout = stop_after(proc, out, 2, lambda: os.killpg(proc.pid, signal.SIGINT))
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    done = finished(out)
    assert 2 <= len(done) < 6
    assert_no_forfeits(out)
    kept = {n: (out / f"game-{int(n):04d}.txt").read_bytes() for n in done}
    stamps = {n: os.stat(out / f"game-{int(n):04d}.txt").st_mtime_ns for n in done}
    # a finished game whose record went missing is played again
    lost = sorted(done, key=int)[0]
    (out / f"game-{int(lost):04d}.txt").unlink()
    assert main(["--resume", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"resuming with {len(done) - 1} finished" in text
    assert f"game {lost}/6:" in text
    assert len(finished(out)) == 6
    for n, data in kept.items():
        if n != lost:
            path = out / f"game-{int(n):04d}.txt"
            assert path.read_bytes() == data and os.stat(path).st_mtime_ns == stamps[n]
            assert f"game {n}/6:" not in text  # read back, not replayed
    rows = [line.split() for line in text[text.index("  # player") :].splitlines()[1:]]
    assert sorted(int(r[4]) for r in rows) == [6, 6]
    # results.tsv: one line per game, in order, the replayed one included once
    tsv = results(out)
    assert [r["game"] for r in tsv] == ["1", "2", "3", "4", "5", "6"]
    assert all(r["reason"] in ("goal", "deadlock") for r in tsv)
    kept_seconds = {r["game"]: r["seconds"] for r in tsv}
    # a finished tournament resumes to nothing new; starting again over it is refused
    assert main(["--resume", "--out", str(out)]) == 0
    assert "game(s) played" not in capsys.readouterr().out
    assert {r["game"]: r["seconds"] for r in results(out)} == kept_seconds
    assert main(["level:beginner", "level:novice", "--out", str(out)]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(["--resume", "--games", "9", "level:club", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "saved players and settings" in err and "(found: level:club --games)" in err


def test_ctrl_c_kills_an_engine_behind_a_wrapper_script(tmp_path: Path) -> None:
    out = tmp_path / "t"
    wrapped = f"hang=cmd:{ENGINES / 'wrapper.sh'} {sys.executable} {ENGINES / 'hanging.py'}"
    proc = start_tournament(out, "level:beginner", wrapped, "--games", "1", "--timeout", "60", "--debug")
    engines: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            engines |= descendants(proc.pid)
            if any("hanging.py" in cmdline(pid) for pid in engines):
                break
            time.sleep(0.05)
        assert any("hanging.py" in cmdline(pid) for pid in engines)
        # it is waiting for the move now (the debug log shows the go sent to it)
        until(lambda: (out / "debug.log").exists()
              and any(" hang > go" in ln for ln in (out / "debug.log").read_text().splitlines()),
              "the wrapped engine was asked for a move")
        engines |= descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    until(lambda: not [pid for pid in engines if alive(pid)], "the engines end", timeout=10)


# -- stopping at any moment ----------------------------------------------------------------


def catches_signal(pid: int, number: int) -> bool:
    """Whether process ``pid`` has a handler for signal ``number`` (its SigCgt mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M)[1], 16)  # type: ignore[index]
    return bool(mask >> (number - 1) & 1)


@pytest.mark.any_core  # stopping and resuming is the tournament's: runs once, on either core
@pytest.mark.slow  # started first (tests/conftest.py)
def test_stop_at_20_random_moments_then_resume(tmp_path: Path) -> None:
    # Ctrl-C or SIGTERM at 20 moments drawn from a seeded generator, each
    # run resuming the last: between games, mid-move, while engines start,
    # while the command reads its state or prints.  Each run ends (well within
    # STOP_WITHIN, the bound documented, times a wide factor for a loaded
    # machine), leaves no engine process, and plays only the games still
    # missing; the last --resume finishes the tournament.
    import random

    rng = random.Random(28)
    out = tmp_path / "t"
    total = 150
    first = ["level:beginner", "level:novice", "--games", str(total), "--movetime", "10",
             "--margin", "5000", "--seed", "8"]
    played: list[str] = []
    for _ in range(20):
        before = set(finished(out)) if (out / "state.json").exists() else set()
        argv = ["--resume"] if (out / "state.json").exists() else first
        proc = start_tournament(out, *argv)
        engines: set[int] = set()
        moment = rng.uniform(0.0, 2.0)
        how = rng.choice(["SIGINT", "SIGTERM"])
        try:
            # from the moment the command handles SIGTERM (before that,
            # Python is still starting and the signal's default acts)
            while proc.poll() is None and not catches_signal(proc.pid, signal.SIGTERM):
                time.sleep(0.005)
            t = time.monotonic()
            while time.monotonic() - t < moment and proc.poll() is None:
                engines |= descendants(proc.pid)
                time.sleep(0.01)
            engines |= descendants(proc.pid)
            at_signal = set(finished(out)) if (out / "state.json").exists() else set()
            if proc.poll() is not None:  # it finished first
                pass
            elif how == "SIGINT":  # Ctrl-C: the whole foreground process group
                os.killpg(proc.pid, signal.SIGINT)
            else:
                proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            stdout, stderr = proc.communicate(timeout=60)
            took = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        until(lambda started=engines: not [pid for pid in started if alive(pid)],
              f"the engines end ({moment}, {how})", timeout=10)
        assert took < 5 * tournament.STOP_WITHIN, (moment, how, took)
        after = set(finished(out))
        assert before <= at_signal <= after
        # no game starts after the signal: at most the one in progress ends
        assert len(after - at_signal) <= 1, (moment, how)
        new = re.findall(rf"^game (\d+)/{total}:", stdout, re.M)
        assert sorted(new) == sorted(after - before), (moment, how)
        played += new
        if proc.returncode == 130:
            assert "go on with: kamisado tournament --resume --out" in stdout
        else:  # it had finished (and printed the table) before the signal came
            assert len(after) == total and "  # player" in stdout, (proc.returncode, stderr)
    proc = start_tournament(out, "--resume")
    stdout, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0
    played += re.findall(rf"^game (\d+)/{total}:", stdout, re.M)
    assert sorted(played, key=int) == [str(n) for n in range(1, total + 1)]
    assert len(finished(out)) == total
    assert_no_forfeits(out)


def test_a_stop_between_games_starts_no_other_game(tmp_path: Path) -> None:
    # a stop asked while a game's result is logged (between games): no game
    # starts after it, even though no cancel reaches a waiting read then
    # (the flag is checked before every game), and no engine is left
    import asyncio

    config = Config(
        [parse_player("level:beginner"), parse_player("level:novice")],
        games=6, depth=1, seed=2,
    )
    lines: list[str] = []
    t: tournament.Tournament

    def log(line: str) -> None:
        lines.append(line)
        t.request_stop()

    t = tournament.Tournament(config, tmp_path / "t", log=log)

    async def go() -> set[object]:
        await t.run()
        return set(t.engines.running)

    running, seen = engine_processes_during(lambda: asyncio.run(go()))
    assert t.stopped and len(t.results) == 1 and len(lines) == 1
    assert running == set()
    assert seen
    until(lambda: not [pid for pid in seen if alive(pid)], "the engines end", timeout=10)


# -- a stop always stops: wrapper scripts, a deadline, a second signal, the first instant --


def gone(pids: set[int], seconds: float = 30) -> list[int]:
    """The processes of ``pids`` still alive, polled until none is or ``seconds`` passed."""
    deadline = time.monotonic() + seconds
    while True:
        left = [pid for pid in pids if alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def signal_pending(pid: int, number: int) -> bool:
    """Whether signal ``number`` is still pending for process ``pid`` (not yet taken)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    masks = re.findall(r"^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)", status, re.M)
    return any(int(mask, 16) >> (number - 1) & 1 for mask in masks)


def stopped_output(proc: subprocess.Popen[str], stop: Callable[[], None]) -> tuple[str, str]:
    """``stop()`` (signals to ``proc``), then what ``proc`` printed once it ended; it
    is killed should the test fail first."""
    try:
        stop()
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def start_waiting_on(out: Path, engine: str, stop_within: float | None = None,
                     ) -> tuple[subprocess.Popen[str], set[int]]:
    """A tournament of ``level:beginner`` against ``engine`` (wrapping hanging.py),
    once hanging.py has been asked for a move; with the processes below it then."""
    proc = start_tournament(out, "level:beginner", engine, "--games", "2", "--timeout", "600",
                            "--debug", "--seed", "3", stop_within=stop_within)
    deadline = time.monotonic() + 60
    engines: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        engines |= descendants(proc.pid)
        log = out / "debug.log"
        asked = log.exists() and re.search(r" hang > go ", log.read_text())
        if asked and any("hanging.py" in cmdline(pid) for pid in engines):
            break
        time.sleep(0.02)
    engines |= descendants(proc.pid)
    assert any("hanging.py" in cmdline(pid) for pid in engines), "hanging.py never asked"
    return proc, engines


def kill_escaped(pids: set[int]) -> set[int]:
    """Kill (here: no one else can) the processes of ``pids`` that made a session
    of their own (``setsid``), out of the reach of their group's kill; returns them."""
    escaped = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            if alive(pid) and os.getsid(pid) == pid:
                escaped.add(pid)
                os.kill(pid, signal.SIGKILL)
    assert escaped, "no engine left its group"
    return escaped


def test_sigterm_ends_a_run_of_wrapper_script_engines_with_130_and_no_engine_left(
    tmp_path: Path,
) -> None:
    out = tmp_path / "t"
    proc, engines = start_waiting_on(out, wrapper_player(tmp_path, ""))
    stdout, stderr = stopped_output(proc, lambda: proc.send_signal(signal.SIGTERM))
    assert proc.returncode == 130, stderr
    assert "go on with: kamisado tournament --resume --out" in stdout
    assert "Unknown child process" not in stderr
    assert not gone(engines)


def test_a_stop_does_not_wait_for_pipes_an_engine_outside_its_group_holds(
    tmp_path: Path,
) -> None:
    # the engine under the shell leaves the group (setsid): killing the group
    # kills the shell only, and the engine keeps the pipes open; the stop's
    # deadline then stops waiting for them (the engine, reading no more
    # questions, ends by itself)
    out = tmp_path / "t"
    proc, engines = start_waiting_on(out, wrapper_player(tmp_path, "setsid"))
    sent = time.monotonic()
    stdout, stderr = stopped_output(proc, lambda: proc.send_signal(signal.SIGTERM))
    took = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert "go on with: kamisado tournament --resume --out" in stdout
    # the deadline, not the engine's --timeout of 600 s, ended the wait
    assert took < 600 / 10
    assert not gone(engines - kill_escaped(engines))


@pytest.mark.parametrize("first", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_ends_the_run_at_once(tmp_path: Path, first: int) -> None:
    # the first stop waits (up to its deadline) for an engine outside its
    # group; a second signal ends the command at once, the engines killed.
    # Ctrl-C then SIGTERM arrive together (sent while the command is
    # stopped): deterministic.  SIGTERM twice cannot be sent together (the
    # two would merge), so the second follows once the first is taken: the
    # first stop's deadline is made long (not 2 s), else a loaded machine
    # could let the run end before the second came (it did, once: -15).
    out = tmp_path / "t"
    proc, engines = start_waiting_on(out, wrapper_player(tmp_path, "setsid"), stop_within=600.0)

    def twice() -> None:
        if first == signal.SIGINT:
            proc.send_signal(signal.SIGSTOP)
            proc.send_signal(signal.SIGINT)
            proc.send_signal(signal.SIGTERM)
            proc.send_signal(signal.SIGCONT)
        else:
            proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 30
            while signal_pending(proc.pid, signal.SIGTERM):  # taken: not merged with the next
                assert time.monotonic() < deadline
                time.sleep(0.001)
            proc.send_signal(signal.SIGTERM)

    stdout, stderr = stopped_output(proc, twice)
    assert proc.returncode == 130, stderr
    assert "stopped at once (a second signal)" in stderr
    assert finished(out) == {}  # state.json whole: read back
    assert not gone(engines - kill_escaped(engines))


def test_sigterm_as_soon_as_the_command_takes_it_gives_130(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = start_tournament(out, "level:beginner", "level:novice", "--games", "4", "--movetime", "10")

    def when_taken() -> None:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not catches_signal(proc.pid, signal.SIGTERM):
            assert time.monotonic() < deadline
            time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)

    stdout, stderr = stopped_output(proc, when_taken)
    assert proc.returncode == 130, stderr
    assert "stopped after 0 of 4 games" in stdout


def test_the_kamisado_entry_point_notes_a_stop_before_loading_the_tournament() -> None:
    # the handler is in place before the tournament's modules (most of the
    # start's time on a busy machine) are imported
    code = (
        "import signal, sys; sys.argv = ['kamisado', 'tournament'];"
        " import kamisado.cli;"
        " print(signal.getsignal(signal.SIGTERM).__module__,"
        " signal.getsignal(signal.SIGINT).__module__,"
        " 'kamisado.protocol.tournament_cli' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split()
    assert shown == ["kamisado.args", "kamisado.args", "False"]
    # other commands keep the default handling
    code = code.replace("'tournament'", "'moves'")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split()
    assert shown[0] != "kamisado.args"


def test_a_stop_noted_while_the_command_started_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kamisado import args

    monkeypatch.setattr(args, "_NOTED", [signal.SIGTERM])
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "4", "--depth", "1"]
    assert main([*argv, "--out", str(out)]) == 130
    assert "stopped after 0 of 4 games" in capsys.readouterr().out
    assert finished(out) == {}
    assert args._NOTED == []
