"""``kamisado tournament``, its engines (kamisado.protocol.tournament_engines):
starting them, a player that cannot start, wrapper scripts killed whole,
engines kept between games (``--restart``)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from kamisado.protocol import tournament_engines
from kamisado.protocol.tournament_cli import main
from kamisado.rules import record
from tests.tournament_kit import (
    ENGINES,
    alive,
    engine_processes_during,
    engine_starts,
    finished,
    mock,
    played,
    results,
)
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


def test_a_hanging_engine_behind_a_wrapper_script_is_killed_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``#!/bin/sh`` then ``python3 hanging.py`` without exec: the shell is the
    # client's child, the engine its grandchild, holding the pipes
    out = tmp_path / "t"
    wrapped = f"hang=cmd:{ENGINES / 'wrapper.sh'} {sys.executable} {ENGINES / 'hanging.py'}"
    argv = ["level:beginner", wrapped, "--games", "1", "--tc", "1+0", "--seed", "1"]
    t = time.monotonic()
    status, seen = engine_processes_during(lambda: main([*argv, "--out", str(out)]))
    assert status == 0
    assert time.monotonic() - t < 30
    rec = record.load(out / "game-0001.txt")
    assert rec.headers["Gold"] == "hang"
    assert rec.end is not None and rec.end.reason == "time" and rec.end.winner == 0
    hanging = [pid for pid, cmd in seen.items() if "hanging.py" in cmd]
    assert hanging, "the wrapped engine never started"
    until(lambda: not [pid for pid in seen if alive(pid)], "the engines end", timeout=10)


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
    monkeypatch.setattr(tournament_engines, "HANDSHAKE_TIMEOUT", 1.0)
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
    assert engine_starts(out) == {"good": good_starts, "cheat": cheat_starts, "crash": crash_starts}
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
    assert engine_starts(tmp_path / "on") == {"beginner": 4, "novice": 4}
    assert engine_starts(tmp_path / "auto") == {"beginner": 1, "novice": 1}
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
    assert engine_starts(out) == {"beginner": 1, "old": 1}
    log = (out / "debug.log").read_text()
    assert log.count("old < info string error: unknown command 'newgame'") == 3
    assert [r["reason"] for r in results(out)] == ["goal"] * 3 or all(
        r["reason"] in ("goal", "deadlock") for r in results(out)
    )
