"""``kamisado tournament``: schedules, games through KEI, records, forfeits, stop and resume."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kamisado.engine.levels import SEED_MAX
from kamisado.protocol import tournament
from kamisado.protocol.tournament_cli import _Progress, main
from kamisado.protocol.tournament_config import (
    Config,
    Game,
    PlayerSpec,
    TimeControl,
    parse_match_type,
    parse_player,
    parse_players,
    parse_tc,
    schedule,
)
from kamisado.protocol.tournament_results import RESULTS_COLUMNS, result_of_record
from kamisado.rules import record
from kamisado.rules.match import Match
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)

ENGINES = Path(__file__).parent / "engines"


def mock(name: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ENGINES / name}.py {' '.join(args)}".rstrip()


def clocked(*args: str) -> str:
    return mock("clocked", *args)


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
        "kamisado.protocol.kei",
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
    # options follow their player
    ps = parse_players(["A=cmd:./a", "option.Hash=64", "option.Style=wild", "level:club"])
    assert ps[0].options == (("Hash", "64"), ("Style", "wild")) and ps[1].options == ()
    assert ps[0].option_words() == ["option.Hash=64", "option.Style=wild"]
    for bad_words, message in [
        (["option.Hash=64"], "an option follows the player it is for"),
        (["level:club", "option.Hash"], "expected option.NAME=VALUE"),
        (["level:club", "option.=3"], "expected option.NAME=VALUE"),
        (["level:club", "option.Seed=1", "option.seed=2"], "given twice"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_players(bad_words)
    # time controls
    assert parse_tc("10+0.1") == TimeControl(10000, 100)
    assert parse_tc("40/60+0.5") == TimeControl(60000, 500, 40)
    assert parse_tc("5") == TimeControl(5000, 0) and str(parse_tc("2+0.05")) == "2+0.05"
    assert [parse_tc("3/1").movestogo(n) for n in range(5)] == [3, 2, 1, 3, 2]
    for bad in ("", "10+", "+1", "1x", "10+0.1+2", "a/10", "-1+0", "nan", "0/10+1", "0+0"):
        with pytest.raises(ValueError, match="--tc"):
            parse_tc(bad)


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
        (["level:club", "level:novice", "--tc", "10+x", "--out", out], "--tc: expected BASE+INC"),
        (["level:club", "level:novice", "--tc", "1+0", "--movetime", "5", "--out", out],
         "--tc and --movetime"),
        (["level:club", "level:novice", "--margin", "-1", "--out", out], "--margin"),
        (["option.Hash=1", "level:club", "level:novice", "--out", out], "option follows"),
        (["level:club", "level:novice", "--openings", str(tmp_path / "none"), "--out", out],
         "--openings"),
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
    assert "tc 60+1 (the default), margin 100 ms" in text
    assert "\r" not in text  # no live progress line when not on a terminal
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
        assert rec.end is not None and rec.end.reason in ("goal", "deadlock")
        assert rec.headers["Time control"] == "tc 60+1 (the default), margin 100 ms"
        scores[g.black] += black_score
        scores[g.gold] += 1 - black_score
        assert f"game {g.number}/4: {g.black} (Black) - {g.gold} (Gold)" in text
    table = text[text.index("  # player") :].splitlines()
    rows = {line.split()[1]: line.split() for line in table[1:]}
    assert {name: float(rows[name][5]) for name in rows} == scores
    assert all(rows[name][4] == "4" for name in rows)
    tsv = results(out)
    assert [r["game"] for r in tsv] == ["1", "2", "3", "4"]
    for r, g in zip(tsv, games, strict=True):
        rec = record.load(out / r["file"])
        assert (r["black"], r["gold"], r["seed"]) == (g.black, g.gold, str(g.seed))
        assert rec.end is not None and r["reason"] == rec.end.reason and r["detail"] == ""
        assert r["winner"] == (g.black if rec.end.winner == 0 else g.gold)
        assert r["score"] == ("1-0" if rec.end.winner == 0 else "0-1")
        assert int(r["moves"]) == sum(len(x.moves) for x in rec.match.rounds) > 0
        assert r["points"] == "{}-{}".format(*rec.match.points) and r["opening"] == ""
    # the same seed plays the same games
    out2 = tmp_path / "again"
    assert main([*argv, "--out", str(out2)]) == 0
    for g in games:
        assert played(out2 / g.filename) == played(out / g.filename)


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
    argv = [*players, "--gauntlet", "--games", "1", "--tc", "1+0.1", "-j", "3"]
    t = time.monotonic()
    assert main([*argv, "--seed", "1", "--out", str(out)]) == 0
    assert time.monotonic() - t < 30
    text = capsys.readouterr().out
    ends = {}
    for n in (1, 2, 3):
        rec = record.load(out / f"game-000{n}.txt")
        assert rec.headers["Black"] == "beginner"
        assert rec.match.state != "over"
        assert rec.end is not None and rec.end.early and rec.end.winner == 0
        ends[rec.headers["Gold"]] = rec.end
        assert finished(out)[str(n)]["black_score"] == 1.0
        # the reason survives writing and reading the record
        assert record.read(record.write(rec)).end == rec.end
    assert ends["crashing"].reason == "crash"
    assert "terminated (exit status 3)" in ends["crashing"].detail
    assert ends["hanging"].reason == "time"
    assert "did not answer within 1000 ms on its clock + margin 100 ms" in ends["hanging"].detail
    assert ends["cheat"].reason == "illegal move"
    assert "sent an illegal move" in ends["cheat"].detail
    assert "Gold loses by crash (engine 'Mock' terminated" in text
    assert {r["gold"]: r["reason"] for r in results(out)} == {
        "crashing": "crash", "hanging": "time", "cheat": "illegal move"
    }
    rows = [line.split() for line in text[text.index("  # player") :].splitlines()[1:]]
    assert rows[0][1] == "beginner" and rows[0][5] == "3.0"


def test_no_answer_without_a_clock_and_old_forfeit_records(tmp_path: Path) -> None:
    # without a clock or movetime (depth only) --timeout decides: no answer
    out = tmp_path / "t"
    argv = ["level:beginner", mock("hanging"), "--depth", "1", "--timeout", "1"]
    assert main([*argv, "--games", "1", "--seed", "1", "--out", str(out)]) == 0
    rec = record.load(out / "game-0001.txt")
    assert rec.end is not None and (rec.end.reason, rec.end.winner) == ("no answer", 0)
    assert "did not answer 'bestmove' in time" in rec.end.detail
    # a record from before reasons, with its Forfeit header, reads back as an early end
    old = record.write(rec).replace(
        "Result: Black wins, Black 0, Gold 0 (no answer: " + rec.end.detail + ")",
        "Result: unfinished",
    ).replace("Date:", "Forfeit: Gold: engine 'Mock' did not answer in time\nDate:")
    assert "Forfeit:" in old and "unfinished" in old
    game = Game(1, "beginner", "hanging", 0)
    result = result_of_record(game, record.read(old))
    assert result.black_score == 1.0 and result.end.early and result.end.winner == 0


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
    argv = ["level:beginner", wrapped, "--games", "1", "--tc", "1+0", "--seed", "1"]
    t = time.monotonic()
    status, seen = _engine_processes_during(lambda: main([*argv, "--out", str(out)]))
    assert status == 0
    assert time.monotonic() - t < 30
    rec = record.load(out / "game-0001.txt")
    assert rec.headers["Gold"] == "hang"
    assert rec.end is not None and rec.end.reason == "time" and rec.end.winner == 0
    hanging = [pid for pid, cmd in seen.items() if "hanging.py" in cmd]
    assert hanging, "the wrapped engine never started"
    until(lambda: not [pid for pid in seen if _alive(pid)], "the engines end", timeout=10)


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
    until(lambda: not [pid for pid in engines if _alive(pid)], "the engines end", timeout=10)
    return stdout


def _no_forfeits(out: Path) -> None:
    for name in os.listdir(out):
        if name.endswith(".txt"):
            end = record.load(out / name).end
            assert end is not None and not end.early, (name, end)


def test_stop_with_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = _start(  # a wide margin: about stopping, not time (see below)
        out, "level:beginner", "level:novice", "--games", "20", "--movetime", "20",
        "--margin", "5000",
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
    # a wide margin: this test is about stopping and resuming, not about time
    # (a loaded machine may answer 15 ms moves late)
    argv = ["level:beginner", "level:novice", "--games", "6", "--movetime", "15",
            "--margin", "5000"]
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
    proc = _start(out, "level:beginner", wrapped, "--games", "1", "--timeout", "60", "--debug")
    engines: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            engines |= _descendants(proc.pid)
            if any("hanging.py" in _cmdline(pid) for pid in engines):
                break
            time.sleep(0.05)
        assert any("hanging.py" in _cmdline(pid) for pid in engines)
        # it is waiting for the move now (the debug log shows the go sent to it)
        until(lambda: (out / "debug.log").exists()
              and any(" hang > go" in ln for ln in (out / "debug.log").read_text().splitlines()),
              "the wrapped engine was asked for a move")
        engines |= _descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "go on with: kamisado tournament --resume --out" in stdout
    until(lambda: not [pid for pid in engines if _alive(pid)], "the engines end", timeout=10)


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
    assert rec.end is not None and not rec.end.early
    assert rec.match.state == "over"


def test_a_player_that_cannot_start_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "t"
    missing = f"ghost=cmd:{tmp_path / 'no-such-engine'}"
    argv = ["level:beginner", missing, "level:novice", "--games", "1", "--seed", "3"]
    assert main([*argv, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "player 'ghost' could not start" in captured.err
    assert "--forfeit-broken" in captured.err
    # nothing could run (game 1 needs ghost): no header, no empty Elo table
    assert captured.out == ""
    assert not [r for r in finished(out).values() if "ghost" in (r["black"], r["gold"])]
    # a handshake that never ends stops it too: the handshake's 20 s made 1 s, so
    # that the hanging engines are given up soon; both players hang, so no engine
    # that should answer is held to that second (a built-in engine's start took
    # 1.1-1.4 s at load 20)
    monkeypatch.setattr(tournament, "HANDSHAKE_TIMEOUT", 1.0)
    out2 = tmp_path / "t2"
    hangs = mock("scripted", "--hang-at", "handshake")
    assert main([f"mute={hangs}", f"still={hangs}", "--timeout", "1", "--out", str(out2)]) == 1
    captured = capsys.readouterr()
    assert re.search(r"player '(mute|still)' could not start", captured.err), captured.err
    assert captured.out == ""
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


# -- clocks, options, seeds, openings, the debug log ---------------------------------


def _go_lines(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.split()[:1] == ["go"]]


def test_clocks_are_sent_and_a_slow_engine_loses_on_time(tmp_path: Path) -> None:
    out = tmp_path / "t"
    fast_log, slow_log = tmp_path / "fast.log", tmp_path / "slow.log"
    players = [
        "fast=" + clocked("--delay", "0", "--log", str(fast_log)),
        "slow=" + clocked("--delay", "1500", "--after", "2", "--log", str(slow_log)),
    ]
    argv = [*players, "--tc", "1+0.1", "--games", "1", "--seed", "4"]
    t = time.monotonic()
    assert main([*argv, "--out", str(out)]) == 0
    assert time.monotonic() - t < 20
    rec = record.load(out / "game-0001.txt")
    assert rec.end is not None and (rec.end.winner, rec.end.reason) == (0, "time")
    assert re.fullmatch(
        r"slow did not answer within 1[01]\d\d ms on its clock \+ margin 100 ms;"
        r" it was killed",
        rec.end.detail,
    ), rec.end.detail
    assert rec.headers["Time control"] == "tc 1+0.1, margin 100 ms"
    assert sum(len(r.moves) for r in rec.match.rounds) == 5  # three moves and two, then the flag
    # every go carries both clocks and increments, never a bare go
    lines = _go_lines(fast_log) + _go_lines(slow_log)
    assert lines and all(
        re.fullmatch(r"go btime \d+ gtime \d+ binc 100 ginc 100", line) for line in lines
    ), lines
    assert _go_lines(fast_log)[0] == "go btime 1000 gtime 1000 binc 100 ginc 100"
    # Black's clock after its first (instant) move: its time plus the increment
    btime = int(_go_lines(fast_log)[1].split()[2])
    assert 1000 < btime <= 1100
    [row] = results(out)
    assert (row["winner"], row["score"], row["reason"]) == ("fast", "1-0", "time")


@pytest.mark.any_core  # the tournament's clocks (mostly waiting): runs once, on either core
def test_movetime_is_enforced_and_periods_send_movestogo(tmp_path: Path) -> None:
    out = tmp_path / "t"
    # the times are long enough for a loaded machine: the well-behaved engine
    # answers in a tenth of its movetime and has the margin besides
    slow = "slow=" + clocked("--delay", "3000", "--after", "1")
    ok_log = tmp_path / "ok.log"
    argv = ["ok=" + clocked("--log", str(ok_log), "--share", "0.1"), slow,
            "--movetime", "1000", "--margin", "1000"]
    assert main([*argv, "--games", "1", "--seed", "2", "--out", str(out)]) == 0
    rec = record.load(out / "game-0001.txt")
    assert rec.end is not None and (rec.end.winner, rec.end.reason) == (0, "time")
    assert "within 1000 ms of movetime + margin 1000 ms" in rec.end.detail
    assert set(_go_lines(ok_log)) == {"go movetime 1000"}
    # periods: MOVES/BASE+INC sends movestogo, and the base comes back each period
    out2 = tmp_path / "p"
    log = tmp_path / "p.log"
    argv = [clocked("--log", str(log), "--share", "0.1"), "level:beginner", "--tc", "3/2+0",
            "--match", "long"]
    assert main([*argv, "--games", "1", "--seed", "2", "--out", str(out2)]) == 0
    lines = _go_lines(log)
    assert len(lines) >= 4, lines
    togo = [int(line.split()[-1]) for line in lines]
    assert togo[:4] == [3, 2, 1, 3]
    assert all(line.split()[-2] == "movestogo" for line in lines)
    before, after = (int(lines[i].split()[2]) for i in (2, 3))
    # a new period: two seconds more, less the tenth of the clock the third
    # move took and the time the answer took to come (however loaded the machine)
    assert after > before + 1000


def test_a_well_behaved_engine_finishes_under_a_clock(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [clocked("--share", "0.5"), "level:beginner", "--tc", "1+0.1", "--games", "2"]
    assert main([*argv, "--seed", "6", "--out", str(out)]) == 0
    for row in results(out):
        assert row["reason"] in ("goal", "deadlock"), row


def test_options_and_seeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    argv = [
        "A=" + clocked("--delay", "0", "--log", str(log_a)), "option.Hash=64", "option.style=wild",
        "B=" + clocked("--delay", "0", "--log", str(log_b)), "option.Seed=77",
        "--tc", "5+0", "--games", "2", "--seed", "9",
    ]
    out = tmp_path / "t"
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    games = schedule(Config(parse_players(argv[:5]), games=2, seed=9))
    a_lines = log_a.read_text().splitlines()
    a_sets = [line for line in a_lines if line.startswith("setoption")]
    # kept between games (--restart auto): the options given once, then each
    # game's seed and newgame (A is Black in game 1, Gold in 2)
    assert a_sets == [
        "setoption name Hash value 64",
        "setoption name Style value wild",
        f"setoption name Seed value {2 * games[0].seed % (SEED_MAX + 1)}",
        f"setoption name Seed value {(2 * games[1].seed + 1) % (SEED_MAX + 1)}",
    ]
    assert a_lines.count("kei") == 1 and a_lines.count("newgame") == 2
    b_lines = log_b.read_text().splitlines()
    b_sets = [line for line in b_lines if line.startswith("setoption")]
    assert b_sets == ["setoption name Seed value 77"]  # a Seed given is kept
    assert b_lines.count("kei") == 1 and b_lines.count("newgame") == 2
    # --restart on: a fresh engine for every game, all its options again (the
    # first start only checks the options)
    log_a.unlink()
    assert main([*argv, "--restart", "on", "--out", str(tmp_path / "on")]) == 0
    a_lines = log_a.read_text().splitlines()
    assert [line for line in a_lines if line.startswith("setoption")] == [
        *a_sets[:3], *a_sets[:2], a_sets[3]
    ]
    assert a_lines.count("kei") == 3 and a_lines.count("newgame") == 2
    assert played(tmp_path / "on" / "game-0002.txt") == played(out / "game-0002.txt")
    rec = record.load(out / "game-0001.txt")
    assert rec.headers["Black options"] == "option.Hash=64 option.style=wild"
    # the same --seed sends the same seeds again
    log_a.unlink()
    assert main([*argv, "--out", str(tmp_path / "again")]) == 0
    again = [line for line in log_a.read_text().splitlines() if line.startswith("setoption")]
    assert again == a_sets
    capsys.readouterr()
    # an option the engine did not declare, or a bad value: refused before anything runs
    for extra, message in [
        ("option.Nope=1", "player 'A': its engine has no option 'Nope' (it has: Seed, Hash, Style)"),
        ("option.Hash=5000", "player 'A': option Hash: expected 1..1024, found 5000"),
    ]:
        bad = tmp_path / f"bad-{extra}"
        assert main([argv[0], extra, *argv[3:], "--out", str(bad)]) == 2
        captured = capsys.readouterr()
        assert message in captured.err
        assert captured.out == ""  # nothing ran: no header, no table
        assert not (bad / "state.json").exists()


def test_openings_each_with_both_colours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
    book = tmp_path / "book.txt"
    book.write_text(f"# two openings\n{start} moves c1-c5 b8-b3\n\n{start} moves d1-d4\n")
    log = tmp_path / "e.log"
    out = tmp_path / "t"
    argv = [clocked("--delay", "0", "--log", str(log)), "level:beginner", "--openings", str(book)]
    assert main([*argv, "--match", "standard", "--tc", "5+0", "--seed", "1", "--out", str(out)]) == 0
    rows = results(out)
    assert len(rows) == 4  # two openings, each with both colours (the default --games)
    assert [r["opening"] for r in rows] == [
        f"{start} moves c1-c5 b8-b3", f"{start} moves c1-c5 b8-b3",
        f"{start} moves d1-d4", f"{start} moves d1-d4",
    ]
    assert [r["black"] for r in rows] == ["clocked", "beginner", "clocked", "beginner"]
    for r in rows:
        rec = record.load(out / r["file"])
        first = rec.match.rounds[0]
        assert first.start.kpn() == start.replace(" 1 0 0", " 3 0 0")  # the match's target
        opening_moves = r["opening"].split(" moves ")[1].split()
        assert [str(m) for m in first.moves[: len(opening_moves)]] == opening_moves
        assert rec.headers["Opening"] == r["opening"]
    positions = [x for x in log.read_text().splitlines() if x.startswith("position")]
    assert positions[0].startswith(f"position kpn {start.replace(' 1 0 0', ' 3 0 0')} moves c1-c5 b8-b3")
    # a record (its first round so far) and a folder of records are openings too
    rec = record.load(out / "game-0001.txt")
    folder = tmp_path / "records"
    folder.mkdir()
    for n, moves in enumerate(["c1-c5", "c1-c5 b8-b3 d1-d4"]):
        m = Match(1)
        for mv in moves.split():
            m.push_move(mv)
        record.save(record.Record.new(m, "x", "y", "2026-01-01"), folder / f"o{n}.txt")
    out2 = tmp_path / "t2"
    argv2 = ["level:beginner", "level:novice", "--openings", str(folder), "--tc", "5+0"]
    assert main([*argv2, "--seed", "1", "--out", str(out2)]) == 0
    assert [r["opening"] for r in results(out2)] == [
        f"{start} moves c1-c5", f"{start} moves c1-c5",
        f"{start} moves c1-c5 b8-b3 d1-d4", f"{start} moves c1-c5 b8-b3 d1-d4",
    ]
    out3 = tmp_path / "t3"
    argv3 = ["level:beginner", "level:novice", "--openings", str(folder / "o0.txt")]
    assert main([*argv3, "--tc", "5+0", "--games", "2", "--out", str(out3)]) == 0
    assert len(results(out3)) == 2
    # a finished game's record is no opening; odd --games cannot give both colours
    over = tmp_path / "over.txt"
    over.write_text(record.write(rec))
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{start} moves c1-c9\n")
    for opening, extra, message in [
        (over, [], "must stop during its first round"),
        (bad, [], "opening 'obupyrgn"),
        (book, ["--games", "3"], "expected an even number"),
    ]:
        args = ["level:beginner", "level:novice", "--openings", str(opening), *extra]
        assert main([*args, "--out", str(tmp_path / "never")]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


def test_debug_log_and_progress_line(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [clocked("--delay", "0"), "level:beginner", "--tc", "5+0", "--games", "1", "--debug"]
    assert main([*argv, "--seed", "3", "--out", str(out)]) == 0
    lines = (out / "debug.log").read_text().splitlines()
    pattern = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} game 1 (Black|Gold) (clocked|beginner) [<>] .*"
    assert all(re.fullmatch(pattern, line) for line in lines), lines[:3]
    assert any(line.endswith("game 1 Black clocked > kei") for line in lines)
    assert any(line.endswith("game 1 Gold beginner < keiok") for line in lines)
    assert any(" > go btime 5000 gtime 5000 binc 0 ginc 0" in line for line in lines)
    assert any(" < bestmove " in line for line in lines)
    # the live line: redrawn in place, at most ten times a second, cleared at the end

    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, s: str) -> None:
            self.text += s

        def flush(self) -> None:
            pass

        def fileno(self) -> int:
            raise OSError

    term = Terminal()
    p = _Progress(term)  # type: ignore[arg-type]
    p.update(1, "game 1: 3 moves, 0-0, 0:04.1 0:04.9")
    p.update(1, "game 1: 4 moves, 0-0, 0:04.0 0:04.9")  # too soon: not drawn
    assert term.text.count("game 1: 3 moves") == 1 and "4 moves" not in term.text
    p.update(1, None)  # a game that ends is taken off at once
    assert term.text.endswith("\r" + " " * 35 + "\r") and p.shown == 0
    p.clear()  # nothing left to clear
    assert term.text.endswith("\r" + " " * 35 + "\r")


def test_the_elo_chart_is_written_at_the_end_and_on_resume(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "2", "--nodes", "200", "--seed", "5"]
    assert main([*argv, "--out", str(out)]) == 0
    chart = out / "elo.svg"
    root = ET.fromstring(chart.read_text())
    rows = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "player"]
    assert sorted(g.get("data-player") or "" for g in rows) == ["beginner", "novice"]
    elos = [float(g.get("data-elo") or 0) for g in rows]
    assert elos == sorted(elos, reverse=True)
    chart.unlink()
    assert main(["--resume", "--out", str(out)]) == 0  # nothing left to play: drawn again
    assert ET.fromstring(chart.read_text()).get("class") == "elo-chart"


# -- engines kept between games (--restart) -------------------------------------------


def _starts(out: Path) -> dict[str, int]:
    """How many times each player's engine was started (its ``kei`` lines in the debug log)."""
    counts: dict[str, int] = {}
    for line in (out / "debug.log").read_text().splitlines():
        if line.endswith(" > kei"):
            name = line.split(" > ")[0].split()[-1]
            counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.parametrize(
    ("restart", "cheat_starts", "crash_starts", "good_starts"),
    [("auto", 3, 3, 1), ("on", 3, 3, 6), ("off", 1, 3, 1)],
)
def test_restart_policies(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    restart: str,
    cheat_starts: int,
    crash_starts: int,
    good_starts: int,
) -> None:
    # auto: a new engine only after a crash, a timeout or a protocol error;
    # on: before every game; off: only when the old one is dead
    out = tmp_path / restart
    players = [
        "good=" + mock("scripted"),
        "cheat=" + mock("scripted", "--cheat", "illegal"),
        "crash=" + mock("scripted", "--crash-at", "go"),
    ]
    argv = [*players, "--gauntlet", "--games", "3", "--depth", "1", "--debug"]
    assert main([*argv, "--restart", restart, "--out", str(out)]) == 0
    capsys.readouterr()
    assert _starts(out) == {"good": good_starts, "cheat": cheat_starts, "crash": crash_starts}
    ends = {r["gold"] if r["winner"] == r["black"] else r["black"]: r["reason"]
            for r in results(out)}
    assert ends == {"cheat": "illegal move", "crash": "crash"}
    assert all(r["winner"] == "good" for r in results(out))


def test_kept_engines_play_the_games_fresh_ones_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # each game's seed and newgame make a kept engine play as a new one would
    argv = ["level:beginner", "level:novice", "--games", "4", "--depth", "2", "--seed", "4"]
    assert main([*argv, "--restart", "on", "--debug", "--out", str(tmp_path / "on")]) == 0
    assert main([*argv, "--debug", "--out", str(tmp_path / "auto")]) == 0
    capsys.readouterr()
    assert _starts(tmp_path / "on") == {"beginner": 4, "novice": 4}
    assert _starts(tmp_path / "auto") == {"beginner": 1, "novice": 1}
    for n in range(1, 5):
        name = f"game-000{n}.txt"
        assert played(tmp_path / "on" / name) == played(tmp_path / "auto" / name)


def test_an_engine_that_does_not_know_newgame_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = ["level:beginner", "old=" + mock("scripted", "--no-newgame"), "--games", "3"]
    assert main([*argv, "--depth", "1", "--debug", "--out", str(out)]) == 0
    capsys.readouterr()
    assert _starts(out) == {"beginner": 1, "old": 1}
    log = (out / "debug.log").read_text()
    assert log.count("old < info string error: unknown command 'newgame'") == 3
    assert [r["reason"] for r in results(out)] == ["goal"] * 3 or all(
        r["reason"] in ("goal", "deadlock") for r in results(out)
    )


# -- stopping at any moment ----------------------------------------------------------------


def _catches(pid: int, number: int) -> bool:
    """Whether process ``pid`` has a handler for signal ``number`` (its SigCgt mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M)[1], 16)  # type: ignore[index]
    return bool(mask >> (number - 1) & 1)


@pytest.mark.any_core  # stopping and resuming is the tournament's: runs once, on either core
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
        proc = _start(out, *argv)
        engines: set[int] = set()
        moment = rng.uniform(0.0, 2.0)
        how = rng.choice(["SIGINT", "SIGTERM"])
        try:
            # from the moment the command handles SIGTERM (before that,
            # Python is still starting and the signal's default acts)
            while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM):
                time.sleep(0.005)
            t = time.monotonic()
            while time.monotonic() - t < moment and proc.poll() is None:
                engines |= _descendants(proc.pid)
                time.sleep(0.01)
            engines |= _descendants(proc.pid)
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
        until(lambda started=engines: not [pid for pid in started if _alive(pid)],
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
    proc = _start(out, "--resume")
    stdout, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0
    played += re.findall(rf"^game (\d+)/{total}:", stdout, re.M)
    assert sorted(played, key=int) == [str(n) for n in range(1, total + 1)]
    assert len(finished(out)) == total
    _no_forfeits(out)


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
        return set(t._running)

    running, seen = _engine_processes_during(lambda: asyncio.run(go()))
    assert t.stopped and len(t.results) == 1 and len(lines) == 1
    assert running == set()
    assert seen
    until(lambda: not [pid for pid in seen if _alive(pid)], "the engines end", timeout=10)


def test_records_carry_each_moves_score_depth_time_and_clocks(tmp_path: Path) -> None:
    out = tmp_path / "t"
    searcher = f"searcher=cmd:{sys.executable} -m kamisado.cli engine"
    argv = [searcher, "level:beginner", "--tc", "30+0.25", "--depth", "3", "--games", "2",
            "--seed", "5", "--match", "standard"]
    assert main([*argv, "--out", str(out)]) == 0
    for r in results(out):
        rec = record.load(out / r["file"])
        assert record.read(record.write(rec)) == rec  # the comments survive the text
        moves = [(rnd.number, ply, p.move) for rnd in record.match_entries(rec.match)
                 for ply, p in enumerate(rnd.plies) if p.move is not None]
        assert sorted(rec.comments) == [(n, ply) for n, ply, _ in moves] and moves
        clocks = (30_000, 30_000)
        searcher_side = 0 if r["black"] == "searcher" else 1
        before = None
        for step in record.replay(rec):
            if step.move is None:
                before = step.position
                continue
            assert before is not None
            c, side = rec.comments[(step.round, step.ply)], before.turn
            before = step.position
            assert c.used_ms is not None and c.clocks_ms is not None
            # the mover's clock: less the time the move took, plus the increment
            # (each figure rounded to the millisecond); the other's is unchanged
            want = [clocks[0], clocks[1]]
            want[side] += 250 - c.used_ms
            filled = step.ply == 1 and step.fill is not None
            for s in (0, 1):
                got = c.clocks_ms[s]
                if filled and s == rec.match.rounds[step.round - 2].outcome.winner:  # type: ignore[union-attr]
                    # the round's filler spent time choosing the fill
                    assert want[s] - 5000 < got <= want[s] + 2, (step.round, c, clocks)
                elif s == side:
                    assert abs(got - want[s]) <= 2, (step.round, step.ply, c, clocks)
                else:
                    assert got == want[s], (step.round, step.ply, c, clocks)
            clocks = c.clocks_ms
            if side == searcher_side:
                assert c.score is not None and c.score[0] in record.SCORE_KINDS
                assert c.depth is not None and 1 <= c.depth <= 3
            else:  # a built-in level at its strength may report no score, and no depth then
                assert c.score is not None or c.depth is None
    # without a clock the comments hold the engine's figures and the time used only
    out2 = tmp_path / "m"
    argv = [searcher, "level:beginner", "--movetime", "2000", "--depth", "2", "--games", "1"]
    assert main([*argv, "--seed", "5", "--out", str(out2)]) == 0
    rec = record.load(out2 / "game-0001.txt")
    assert rec.comments and all(c.clocks_ms is None and c.used_ms is not None
                                for c in rec.comments.values())


# -- a stop always stops: wrapper scripts, a deadline, a second signal, the first instant --


def _gone(pids: set[int], seconds: float = 30) -> list[int]:
    """The processes of ``pids`` still alive, polled until none is or ``seconds`` passed."""
    deadline = time.monotonic() + seconds
    while True:
        left = [pid for pid in pids if _alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def _pending(pid: int, number: int) -> bool:
    """Whether signal ``number`` is still pending for process ``pid`` (not yet taken)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    masks = re.findall(r"^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)", status, re.M)
    return any(int(mask, 16) >> (number - 1) & 1 for mask in masks)


def _stopped(proc: subprocess.Popen[str], stop: Callable[[], None]) -> tuple[str, str]:
    """``stop()`` (signals to ``proc``), then what ``proc`` printed once it ended; it
    is killed should the test fail first."""
    try:
        stop()
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _start_waiting_on(out: Path, engine: str) -> tuple[subprocess.Popen[str], set[int]]:
    """A tournament of ``level:beginner`` against ``engine`` (wrapping hanging.py),
    once hanging.py has been asked for a move; with the processes below it then."""
    proc = _start(out, "level:beginner", engine, "--games", "2", "--timeout", "600",
                  "--debug", "--seed", "3")
    deadline = time.monotonic() + 60
    engines: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        engines |= _descendants(proc.pid)
        log = out / "debug.log"
        asked = log.exists() and re.search(r" hang > go ", log.read_text())
        if asked and any("hanging.py" in _cmdline(pid) for pid in engines):
            break
        time.sleep(0.02)
    engines |= _descendants(proc.pid)
    assert any("hanging.py" in _cmdline(pid) for pid in engines), "hanging.py never asked"
    return proc, engines


def _kill_escaped(pids: set[int]) -> set[int]:
    """Kill (here: no one else can) the processes of ``pids`` that made a session
    of their own (``setsid``), out of the reach of their group's kill; returns them."""
    escaped = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            if _alive(pid) and os.getsid(pid) == pid:
                escaped.add(pid)
                os.kill(pid, signal.SIGKILL)
    assert escaped, "no engine left its group"
    return escaped


def _wrapped(tmp_path: Path, how: str) -> str:
    """A ``#!/bin/sh`` engine that runs hanging.py without exec (``how`` before it)."""
    script = tmp_path / f"engine-{how or 'plain'}.sh"
    script.write_text(f'#!/bin/sh\n{how} "{sys.executable}" "{ENGINES / "hanging.py"}"\n'
                      "exit $?\n")
    script.chmod(0o755)
    return f"hang=cmd:{script}"


def test_sigterm_ends_a_run_of_wrapper_script_engines_with_130_and_no_engine_left(
    tmp_path: Path,
) -> None:
    out = tmp_path / "t"
    proc, engines = _start_waiting_on(out, _wrapped(tmp_path, ""))
    stdout, stderr = _stopped(proc, lambda: proc.send_signal(signal.SIGTERM))
    assert proc.returncode == 130, stderr
    assert "go on with: kamisado tournament --resume --out" in stdout
    assert "Unknown child process" not in stderr
    assert not _gone(engines)


def test_a_stop_does_not_wait_for_pipes_an_engine_outside_its_group_holds(
    tmp_path: Path,
) -> None:
    # the engine under the shell leaves the group (setsid): killing the group
    # kills the shell only, and the engine keeps the pipes open; the stop's
    # deadline then stops waiting for them (the engine, reading no more
    # questions, ends by itself)
    out = tmp_path / "t"
    proc, engines = _start_waiting_on(out, _wrapped(tmp_path, "setsid"))
    sent = time.monotonic()
    stdout, stderr = _stopped(proc, lambda: proc.send_signal(signal.SIGTERM))
    took = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert "go on with: kamisado tournament --resume --out" in stdout
    # the deadline, not the engine's --timeout of 600 s, ended the wait
    assert took < 600 / 10
    assert not _gone(engines - _kill_escaped(engines))


@pytest.mark.parametrize("first", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_ends_the_run_at_once(tmp_path: Path, first: int) -> None:
    # the first stop waits (up to its deadline) for an engine outside its
    # group; a second signal ends the command at once, the engines killed.
    # Ctrl-C then SIGTERM arrive together (sent while the command is
    # stopped): deterministic.  SIGTERM twice cannot be sent together (the
    # two would merge), so the second follows once the first is taken.
    out = tmp_path / "t"
    proc, engines = _start_waiting_on(out, _wrapped(tmp_path, "setsid"))

    def twice() -> None:
        if first == signal.SIGINT:
            proc.send_signal(signal.SIGSTOP)
            proc.send_signal(signal.SIGINT)
            proc.send_signal(signal.SIGTERM)
            proc.send_signal(signal.SIGCONT)
        else:
            proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 30
            while _pending(proc.pid, signal.SIGTERM):  # taken: not merged with the next
                assert time.monotonic() < deadline
                time.sleep(0.001)
            proc.send_signal(signal.SIGTERM)

    stdout, stderr = _stopped(proc, twice)
    assert proc.returncode == 130, stderr
    assert "stopped at once (a second signal)" in stderr
    assert finished(out) == {}  # state.json whole: read back
    assert not _gone(engines - _kill_escaped(engines))


def test_sigterm_as_soon_as_the_command_takes_it_gives_130(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = _start(out, "level:beginner", "level:novice", "--games", "4", "--movetime", "10")

    def when_taken() -> None:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM):
            assert time.monotonic() < deadline
            time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)

    stdout, stderr = _stopped(proc, when_taken)
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
