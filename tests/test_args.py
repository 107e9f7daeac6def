"""One unit rule for every duration on the command line (kamisado.args.duration).

A bare number keeps each option's own unit; ``500ms``, ``2s``, ``1.5m``,
``1h``, ``2d`` say theirs.  The parser is tested alone, then each option that
takes a time through its real command line: the value with a unit reaches the
command exactly as the bare number in the option's unit does.
"""

from __future__ import annotations

import argparse
import math
import socket
from pathlib import Path
from typing import Any

import pytest

from kamisado import engine
from kamisado.args import DURATION_UNITS, Parser, duration, duration_help, read_duration
from kamisado.cli import main
from kamisado.engine.limits import Limit
from kamisado.protocol import tournament_cli
from kamisado.protocol.tournament_config import Config, parse_tc
from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.tui import parse_args as play_args

AFTER_A5 = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


# -- the parser ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,unit,value",
    [
        ("500", "ms", 500.0),
        ("500ms", "ms", 500.0),
        ("2s", "ms", 2000.0),
        ("1.5s", "ms", 1500.0),
        ("1.1s", "ms", 1100.0),  # exact in decimal, not 1100.0000000000002
        (".5m", "ms", 30_000.0),
        ("1h", "s", 3600.0),
        ("2d", "s", 172_800.0),
        ("250ms", "s", 0.25),
        ("0.4", "s", 0.4),
        ("12h", "d", 0.5),
        (" 2 s ", "ms", 2000.0),
        ("1e3", "ms", 1000.0),  # a bare number reads as float() read it
        ("+5", "s", 5.0),
        ("-5", "s", -5.0),  # the sign is duration()'s to check
    ],
)
def test_read_duration(text: str, unit: str, value: float) -> None:
    assert read_duration(text, unit) == value


@pytest.mark.parametrize("text", ["5x", "2S", "s", "", "nan", "inf", "1/2", "1_000", "2 ms s",
                                  "1e400", "5 sec", "1m30s"])
def test_read_duration_refuses_what_is_no_duration(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected a duration") as e:
        read_duration(text, "ms")
    assert repr(text) in str(e.value)


def test_every_unit_is_named_in_the_help() -> None:
    assert set(DURATION_UNITS) == {"ms", "s", "m", "h", "d"}
    assert duration_help("s") == "seconds, or with a unit: 500ms, 2s, 1m"
    assert duration_help("ms").startswith("milliseconds, ")


@pytest.mark.parametrize(
    "kind,text,message",
    [
        (duration("ms"), "0", "expected a positive duration: milliseconds, or with a unit:"
                              " 500ms, 2s, 1m; found '0'"),
        (duration("ms"), "-1s", "expected a positive duration"),
        (duration("s"), "5x", "expected a positive duration: seconds, or with a unit: 500ms,"
                              " 2s, 1m; found '5x'"),
        (duration("s", 0), "-0.5", "expected a duration of 0 or more: seconds"),
        (duration("ms", 20, 60000, whole=True), "10ms", "expected a duration of 20ms..1m"),
        (duration("ms", 20, 60000, whole=True), "61s", "found '61s'"),
        (duration("ms", 0, whole=True), "0.5", "expected whole milliseconds, found '0.5'"),
        (duration("ms", 0, whole=True), "0.0005s", "expected whole milliseconds"),
        (duration("ms", 1, whole=True), "0.5", "expected a duration of 1ms or more"),
        (duration("d", None, 36500), "101y", "expected a positive duration of at most 36500d"),
        (duration("ms", -math.inf), "soon", "expected a duration: milliseconds"),
    ],
)
def test_bad_durations_say_what_was_expected_and_found(
    kind: Any, text: str, message: str
) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as e:
        kind(text)
    assert message in str(e.value)


def test_whole_durations_are_ints_and_bounds_are_kept() -> None:
    read = duration("ms", 20, 60000, whole=True)
    assert [read(t) for t in ("20", "20ms", "0.5s", "1m")] == [20, 20, 500, 60000]
    assert all(type(read(t)) is int for t in ("20", "1m"))
    assert duration("s", 0)("0") == 0.0 and duration("ms", -math.inf)("-3") == -3.0


def test_a_bad_duration_on_a_parser_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    p = Parser(prog="kamisado demo")
    p.add_argument("--time", type=duration("ms"))
    assert p.parse_args(["--time", "1.5s"]).time == 1500.0
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--time", "5x"])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        "kamisado demo: --time: expected a positive duration: milliseconds, or with a unit:"
        " 500ms, 2s, 1m; found '5x'\n"
    )


# -- every option through its command --------------------------------------------


class _Seen(Exception):
    pass


def _limits(monkeypatch: pytest.MonkeyPatch, name: str, argv: list[str]) -> list[Limit]:
    """The limit the command gives ``engine.<name>`` (which then stops it)."""
    seen: list[Limit] = []

    def spy(*args: object, limit: Limit, **kwargs: object) -> None:
        seen.append(limit)
        raise ValueError("seen")

    monkeypatch.setattr(engine, name, spy)
    assert main(argv) == 2
    return seen


@pytest.mark.parametrize(
    "command,name,bare,with_unit,expected",
    [
        ("best", "search", "1000", "1s", 1.0),
        ("best", "search", "250", "250ms", 0.25),
        ("analyse", "search", "1500", "1.5s", 1.5),
        ("solve", "solve", "60", "1m", 60.0),
        ("solve", "solve", "0.5", "500ms", 0.5),
    ],
)
def test_time_of_analyse_best_and_solve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    command: str, name: str, bare: str, with_unit: str, expected: float,
) -> None:
    a = _limits(monkeypatch, name, [command, AFTER_A5, "--time", bare])
    b = _limits(monkeypatch, name, [command, AFTER_A5, "--time", with_unit])
    assert a == b and len(a) == 1 and a[0].time == expected
    capsys.readouterr()


def test_time_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["best", AFTER_A5, "--time", "5x"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == ("kamisado best: --time: expected a positive duration: milliseconds, or with"
                   " a unit: 500ms, 2s, 1m; found '5x'\n")


def test_help_names_the_bare_numbers_unit(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, unit in ((["best", "--help"], "milliseconds"), (["solve", "--help"], "seconds"),
                       (["analyse", "--help"], "milliseconds"), (["gif", "--help"], "milliseconds"),
                       (["play", "--help"], "seconds"), (["tournament", "--help"], "seconds")):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert f"{unit}, or with a unit: 500ms, 2s, 1m" in text, argv


def test_gif_delay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = pytest.importorskip("PIL.Image")
    sequence = pytest.importorskip("PIL.ImageSequence")
    match = Match(1)
    for move in ("c1-c5", "b8-b3"):
        match.push_move(move)
    path = tmp_path / "m.kmr"
    record.save(record.Record.new(match, "A", "B", "2026-01-01"), path)
    durations = []
    for delay in ("250", "0.25s", "250ms"):
        out = tmp_path / f"{delay}.gif"
        assert main(["gif", str(path), str(out), "--size", "120", "--delay", delay]) == 0
        with image.open(out) as im:
            durations.append([f.info["duration"] for f in sequence.Iterator(im)])
    assert durations[0] == durations[1] == durations[2] and durations[0][0] == 250
    with pytest.raises(SystemExit):
        main(["gif", str(path), str(tmp_path / "x.gif"), "--delay", "2m"])
    assert "--delay: expected a duration of 20ms..1m" in capsys.readouterr().err


def test_play_delay(capsys: pytest.CaptureFixture[str]) -> None:
    assert play_args(["--delay", "400ms"]).delay == play_args(["--delay", "0.4"]).delay == 0.4
    assert play_args(["--delay", "0"]).delay == 0.0
    with pytest.raises(SystemExit):
        play_args(["--delay=-1s"])
    assert "kamisado play: --delay: expected a duration of 0 or more" in capsys.readouterr().err


def _config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *options: str) -> Config:
    """The tournament's configuration from its command line (stopped at its check)."""
    seen: list[Config] = []

    def check(self: Config) -> None:
        seen.append(self)
        raise ValueError("seen")

    monkeypatch.setattr(tournament_cli.Config, "check", check)
    argv = ["level:beginner", "level:novice", "--out", str(tmp_path / "t"), *options]
    assert tournament_cli.main(argv) == 2
    return seen[0]


def test_tournament_times(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = _config(monkeypatch, tmp_path, "--movetime", "2000", "--margin", "150",
                   "--timeout", "120", "--adjudicate-proven", "1500")
    units = _config(monkeypatch, tmp_path, "--movetime", "2s", "--margin", "0.15s",
                    "--timeout", "2m", "--adjudicate-proven", "1.5s")
    assert (units.movetime, units.margin, units.timeout, units.adjudicate_proven) == (
        bare.movetime, bare.margin, bare.timeout, bare.adjudicate_proven) == (2000, 150, 120.0, 1500)
    tc = _config(monkeypatch, tmp_path, "--tc", "40/1m+100ms").time_control()
    assert tc == _config(monkeypatch, tmp_path, "--tc", "40/60+0.1").time_control()
    assert tc is not None and (tc.moves, tc.base, tc.inc) == (40, 60_000, 100)
    capsys.readouterr()
    with pytest.raises(SystemExit):
        tournament_cli.main(["level:beginner", "level:novice", "--out", str(tmp_path / "t"),
                             "--adjudicate-proven", "11s"])
    assert "--adjudicate-proven: expected a duration of 1ms..10s" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text,base,inc,moves",
    [("10+0.1", 10_000, 100, None), ("1m+100ms", 60_000, 100, None), ("90s", 90_000, 0, None),
     ("40/1.5m+0.5s", 90_000, 500, 40), ("2 m + 1 s", None, None, None), ("1h+1", 3_600_000, 1000, None)],
)
def test_time_controls_take_units(text: str, base: int | None, inc: int | None,
                                  moves: int | None) -> None:
    if base is None:
        with pytest.raises(ValueError, match="or with a unit"):
            parse_tc(text)
        return
    tc = parse_tc(text)
    assert (tc.base, tc.inc, tc.moves) == (base, inc, moves)


def test_web_durations(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import kamisado.web as web

    seen: list[argparse.Namespace] = []

    def serve(args: argparse.Namespace, db: str, sock: socket.socket) -> int:
        sock.close()
        seen.append(args)
        return 0

    monkeypatch.setattr(web, "_serve", serve)
    db = str(tmp_path / "g.db")
    for days, keep_out in (("1.5", "120"), ("36h", "2m")):
        argv = ["--port", "0", "--db", db, "--no-browser", "--session-days", days,
                "--ws-keep-out", keep_out]
        assert web.main(argv) == 0
    assert [(a.session_days, a.ws_keep_out) for a in seen] == [(1.5, 120.0)] * 2
