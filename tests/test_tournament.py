"""``kamisado tournament``: schedules, games through KEI, records, forfeits, stop and resume."""

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

import pytest

from kamisado import record
from kamisado.tournament import (
    Config,
    PlayerSpec,
    main,
    parse_match_type,
    parse_player,
    schedule,
)

pytestmark = pytest.mark.timeout(120)

ENGINES = Path(__file__).parent / "engines"


def mock(name: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ENGINES / name}.py {' '.join(args)}".rstrip()


def finished(out: Path) -> dict[str, dict[str, object]]:
    state = json.loads((out / "state.json").read_text())
    result: dict[str, dict[str, object]] = state["finished"]
    return result


# -- pure parts --------------------------------------------------------------------


def test_players_and_match_types() -> None:
    assert parse_player("level:novice") == PlayerSpec("novice", "level:novice")
    assert parse_player("B = level:club") == PlayerSpec("B", "level:club")
    p = parse_player("cmd:python3 -u engines/my_bot.py --fast")
    assert p.name == "my_bot" and p.command() == [
        "python3",
        "-u",
        "engines/my_bot.py",
        "--fast",
    ]
    assert parse_player("level:club").command()[-3:] == [
        "kamisado.protocol",
        "--level",
        "club",
    ]
    for bad, message in [
        ("club", "expected 'level:LEVEL' or 'cmd:COMMAND'"),
        ("cmd:", "expected a command after 'cmd:'"),
        ("=level:club", "the name before '=' is empty"),
        ("cmd:python 'open", "No closing quotation"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_player(bad)
    assert [parse_match_type(t) for t in ("single", "long", "marathon", "series:5")] == [
        (1, False),
        (7, False),
        (15, False),
        (5, True),
    ]
    for bad in ("series:0", "series:x", "blitz"):
        with pytest.raises(ValueError, match="expected a match type"):
            parse_match_type(bad)


def test_schedules() -> None:
    players = [parse_player(f"level:{lv}") for lv in ("beginner", "novice", "casual")]
    rr = schedule(Config(players, games=2, seed=1))
    assert [(g.black, g.gold) for g in rr] == [
        ("beginner", "novice"),
        ("beginner", "casual"),
        ("novice", "casual"),
        ("novice", "beginner"),
        ("casual", "beginner"),
        ("casual", "novice"),
    ]
    assert [g.number for g in rr] == [1, 2, 3, 4, 5, 6]
    assert schedule(Config(players, games=2, seed=1)) == rr  # seeds come from the base seed
    assert [g.seed for g in schedule(Config(players, games=2, seed=2))] != [
        g.seed for g in rr
    ]
    gauntlet = schedule(Config(players, format="gauntlet", games=3, seed=1))
    assert [(g.black, g.gold) for g in gauntlet] == [
        ("beginner", "novice"),
        ("beginner", "casual"),
        ("novice", "beginner"),
        ("casual", "beginner"),
        ("beginner", "novice"),
        ("beginner", "casual"),
    ]


def test_bad_configurations_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "t")
    cases = [
        (["level:club", "level:club", "--out", out], "club appears twice"),
        (["level:club", "--out", out], "at least two players"),
        (["level:club", "level:nobody", "--out", out], "expected a level"),
        (["level:club", "level:novice", "--match", "blitz", "--out", out], "match type"),
        (["level:club", "level:novice", "--games", "0", "--out", out], "--games"),
        (["level:club", "level:novice", "--movetime", "0", "--out", out], "--movetime"),
        (["level:club", "level:novice", "-j", "0", "--out", out], "--concurrency"),
        (["level:club", "level:novice", "--anchor", "x", "--out", out], "--anchor 'x'"),
        (["--resume", "--out", out], "nothing to resume"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("kamisado tournament: ") and message in err, (argv, err)
    assert not (tmp_path / "t").exists()


# -- tournaments -----------------------------------------------------------------------


def test_a_small_tournament_runs_and_its_records_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "4", "--seed", "11", "-j", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    games = schedule(
        Config(
            [parse_player("level:beginner"), parse_player("level:novice")], games=4, seed=11
        )
    )
    state = finished(out)
    assert sorted(state) == ["1", "2", "3", "4"]
    scores = {"beginner": 0.0, "novice": 0.0}
    for g in games:
        rec = record.load(out / g.filename)
        assert (rec.headers["Black"], rec.headers["Gold"]) == (g.black, g.gold)
        assert rec.headers["Seed"] == str(g.seed) and rec.headers["Game"] == str(g.number)
        m = rec.match
        assert m.state == "over" and m.target == 1 and m.winner is not None
        # replaying from the text alone gives the same record back
        again = record.read(record.write(rec))
        assert again == rec
        black_score = 1.0 if m.winner == 0 else 0.0
        assert state[str(g.number)]["black_score"] == black_score
        scores[g.black] += black_score
        scores[g.gold] += 1 - black_score
        assert f"game {g.number}/4: {g.black} (Black) - {g.gold} (Gold)" in text
    table = text[text.index("  # player") :].splitlines()
    rows = {line.split()[1]: line.split() for line in table[1:]}
    assert {name: float(rows[name][5]) for name in rows} == scores
    assert all(rows[name][4] == "4" for name in rows)
    # the same seed plays the same games
    out2 = tmp_path / "again"
    assert main([*argv, "--out", str(out2)]) == 0
    for g in games:
        assert (out2 / g.filename).read_text() == (out / g.filename).read_text()


def test_a_match_type_with_fills_and_an_external_engine(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [mock("conforming"), "level:beginner", "--match", "standard", "--games", "2"]
    assert main([*argv, "--seed", "3", "--out", str(out)]) == 0
    recs = [record.load(out / f"game-000{n}.txt") for n in (1, 2)]
    assert [r.headers["Black"] for r in recs] == ["conforming", "beginner"]
    for r in recs:
        assert r.match.state == "over" and max(r.match.points) >= 3
        assert r.headers["Black engine"].startswith(("cmd:", "level:"))
    out = tmp_path / "series"
    argv = ["level:beginner", "level:novice", "--match", "series:2", "--games", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    m = record.load(out / "game-0001.txt").match
    assert m.series and m.state == "over" and max(m.points) == 2


def test_crashing_hanging_and_cheating_engines_forfeit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    players = [
        "level:beginner",
        mock("crashing", "--after", "1"),
        mock("hanging"),
        "cheat=" + mock("cheating"),
    ]
    argv = [*players, "--gauntlet", "--games", "1", "--timeout", "2", "-j", "3"]
    t = time.monotonic()
    assert main([*argv, "--seed", "1", "--out", str(out)]) == 0
    assert time.monotonic() - t < 30
    text = capsys.readouterr().out
    reasons = {}
    for n in (1, 2, 3):
        rec = record.load(out / f"game-000{n}.txt")
        assert rec.headers["Black"] == "beginner"
        assert rec.match.state != "over"
        side, _, reason = rec.headers["Forfeit"].partition(": ")
        assert side == "Gold"
        reasons[rec.headers["Gold"]] = reason
        assert finished(out)[str(n)]["black_score"] == 1.0
    assert "terminated (exit status 3)" in reasons["crashing"]
    assert "did not answer 'bestmove' in time" in reasons["hanging"]
    assert "sent an illegal move" in reasons["cheat"]
    assert "forfeit (Gold: engine 'Mock' terminated" in text
    rows = [line.split() for line in text[text.index("  # player") :].splitlines()[1:]]
    assert rows[0][1] == "beginner" and rows[0][5] == "3.0"


def _engine_processes_during(
    run: Callable[[], object],
) -> tuple[object, dict[int, str]]:
    """Run ``run``; the processes started below this one meanwhile, with their command lines."""
    before = _descendants(os.getpid())
    seen: dict[int, str] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid in _descendants(os.getpid()) - before:
                seen[pid] = seen.get(pid) or _cmdline(pid)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = run()
    finally:
        done.set()
        watcher.join()
    return result, seen


def test_a_hanging_engine_behind_a_wrapper_script_is_killed_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``#!/bin/sh`` then ``python3 hanging.py`` without exec: the shell is the
    # client's child, the engine its grandchild, holding the pipes
    out = tmp_path / "t"
    wrapped = f"hang=cmd:{ENGINES / 'wrapper.sh'} {sys.executable} {ENGINES / 'hanging.py'}"
    argv = ["level:beginner", wrapped, "--games", "1", "--timeout", "1", "--seed", "1"]
    t = time.monotonic()
    status, seen = _engine_processes_during(lambda: main([*argv, "--out", str(out)]))
    assert status == 0
    assert time.monotonic() - t < 30
    rec = record.load(out / "game-0001.txt")
    assert rec.headers["Gold"] == "hang"
    assert "did not answer 'bestmove' in time" in rec.headers["Forfeit"]
    hanging = [pid for pid, cmd in seen.items() if "hanging.py" in cmd]
    assert hanging, "the wrapped engine never started"
    time.sleep(0.2)
    assert not [pid for pid in seen if _alive(pid)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def _as_in_a_terminal() -> None:
    # a terminal's foreground job gets Ctrl-C; a suite started with ``&`` from a
    # script (or under nohup) ignores SIGINT, and children inherit that
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(out: Path, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "tournament", *argv, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a job in a terminal
        preexec_fn=_as_in_a_terminal,
    )


def _descendants(pid: int) -> set[int]:
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


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _stop_after(
    proc: subprocess.Popen[str], out: Path, games: int, how: Callable[[], None]
) -> str:
    """Wait until ``games`` games are finished, then stop the tournament with ``how``.

    Afterwards no engine the tournament started may be left running.
    """
    engines: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            engines |= _descendants(proc.pid)
            if (out / "state.json").exists() and len(finished(out)) >= games:
                break
            time.sleep(0.05)
        engines |= _descendants(proc.pid)
        assert engines, "the tournament started no engine processes"
        how()
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.2)
    assert not [pid for pid in engines if _alive(pid)]
    return stdout


def _no_forfeits(out: Path) -> None:
    for name in os.listdir(out):
        if name.endswith(".txt"):
            assert "Forfeit" not in record.load(out / name).headers, name


def test_stop_with_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = _start(
        out, "level:beginner", "level:novice", "--games", "20", "--movetime", "20"
    )
    stdout = _stop_after(proc, out, 1, lambda: proc.send_signal(signal.SIGTERM))
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    assert 1 <= len(finished(out)) < 20
    _no_forfeits(out)


def test_stop_with_ctrl_c_then_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "6", "--movetime", "15"]
    proc = _start(out, *argv, "--seed", "5")
    # Ctrl-C in a terminal sends SIGINT to the whole foreground process group
    stdout = _stop_after(proc, out, 2, lambda: os.killpg(proc.pid, signal.SIGINT))
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    done = finished(out)
    assert 2 <= len(done) < 6
    _no_forfeits(out)
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
    # a finished tournament resumes to nothing new; starting again over it is refused
    assert main(["--resume", "--out", str(out)]) == 0
    assert "game(s) played" not in capsys.readouterr().out
    assert main(["level:beginner", "level:novice", "--out", str(out)]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(["--resume", "--games", "9", "level:club", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "saved players and settings" in err and "(found: level:club --games)" in err


def test_ctrl_c_kills_an_engine_behind_a_wrapper_script(tmp_path: Path) -> None:
    out = tmp_path / "t"
    wrapped = f"hang=cmd:{ENGINES / 'wrapper.sh'} {sys.executable} {ENGINES / 'hanging.py'}"
    proc = _start(out, "level:beginner", wrapped, "--games", "1", "--timeout", "60")
    engines: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            engines |= _descendants(proc.pid)
            if any("hanging.py" in _cmdline(pid) for pid in engines):
                break
            time.sleep(0.05)
        assert any("hanging.py" in _cmdline(pid) for pid in engines)
        time.sleep(0.5)  # it is waiting for the move now
        engines |= _descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    time.sleep(0.2)
    assert not [pid for pid in engines if _alive(pid)]


def test_built_in_engines_start_from_a_folder_holding_a_kamisado_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the home folder after cloning the project there: ``kamisado/`` is not the package
    (tmp_path / "kamisado").mkdir()
    (tmp_path / "kamisado" / "__init__.py").write_text(
        "raise ImportError('the folder shadowed the installed package')\n"
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "1", "--seed", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    rec = record.load(out / "game-0001.txt")
    assert "Forfeit" not in rec.headers
    assert rec.match.state == "over"


def test_a_player_that_cannot_start_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    missing = f"ghost=cmd:{tmp_path / 'no-such-engine'}"
    argv = ["level:beginner", missing, "level:novice", "--games", "1", "--seed", "3"]
    assert main([*argv, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "player 'ghost' could not start" in captured.err
    assert "--forfeit-broken" in captured.err
    assert not [r for r in finished(out).values() if "ghost" in (r["black"], r["gold"])]
    # a handshake that never ends stops it too
    out2 = tmp_path / "t2"
    mute = "mute=" + mock("scripted", "--hang-at", "handshake")
    assert main(["level:beginner", mute, "--timeout", "1", "--out", str(out2)]) == 1
    assert "player 'mute' could not start" in capsys.readouterr().err
    assert finished(out2) == {}


def test_forfeit_broken_goes_on_without_rating_the_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    missing = f"ghost=cmd:{tmp_path / 'no-such-engine'}"
    argv = ["level:beginner", missing, "level:novice", "--games", "1", "--seed", "3"]
    assert main([*argv, "--forfeit-broken", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    games = finished(out)
    assert len(games) == 3
    ghost = [r for r in games.values() if "ghost" in (r["black"], r["gold"])]
    assert len(ghost) == 2 and all("could not start" in str(r["forfeit"]) for r in ghost)
    assert "not rated (could not start): ghost" in text
    rows = [line.split() for line in text[text.index("  # player") :].splitlines()[1:]]
    assert sorted(r[1] for r in rows) == ["beginner", "novice"]
    assert all(r[4] == "1" for r in rows)
