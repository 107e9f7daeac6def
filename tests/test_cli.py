"""The command-line contract: moves, apply, perft, show, replay."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kamisado.cli import main
from kamisado.rules.board import START_KPN
from kamisado.rules.position import Position

FIG7 = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_sorted_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", START_KPN)
    assert code == 0 and err == ""
    words = out.split()
    assert out.endswith("\n") and out.count("\n") == 1
    assert words == sorted(words) and len(words) == 102
    assert words == sorted(str(m) for m in Position().legal_moves)


def test_moves_accepts_kpn_as_separate_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "moves", *START_KPN.split())[1] == run(capsys, "moves", START_KPN)[1]


def test_moves_empty_line_when_round_over(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", "obupyRgn/8/8/8/8/8/5r2/NG1YPUBO g -")
    assert code == 0 and out == "\n"


def test_moves_from_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{START_KPN}\n{FIG7}\n"))
    code, out, _ = run(capsys, "moves", "-")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert "f6-a1" in lines[1].split() and len(lines[0].split()) == 102


def test_apply_prints_kpn_round_and_match(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "apply", START_KPN, "c1-c5", "b8-b3")
    assert code == 0 and out == "o1upyrgn/8/8/2R5/8/1b6/8/NG1YPUBO b y 1 0 0\n"
    assert run(capsys, "apply", FIG7, "f6-a1")[1] == "round g purple goal\n"
    out = run(capsys, "apply", FIG7, "f6-a1", "left")[1]
    assert out == "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1\n"
    out = run(capsys, "apply", FIG7, "f6-a1", "right")[1]
    assert out == "bnoprygu+/8/8/8/8/8/8/UBNOPGRY b - 3 0 1\n"
    # a single round won: the match is over (figure 3's line)
    fig3 = "o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0"
    assert run(capsys, "apply", fig3, "a1-a3", "h5-h4", "b5-b8")[1] == "match b 1 0\n"


def test_apply_round_end_by_deadlock(capsys: pytest.CaptureFixture[str]) -> None:
    kpn = "2u3g1/b1Ryo3/1pY5/2G2r2/4PnU1/8/8/N5BO g b 3 0 0"
    assert run(capsys, "apply", kpn, "a7-a6", "c5-d6")[1] == "round g red deadlock\n"


def test_apply_match_over(capsys: pytest.CaptureFixture[str]) -> None:
    fig9 = "1n+o1u1g1/7p/3y+4/3br+2P+/3G++4/8/8/N+1RY1UBO g p 7 5 3"
    code, out, _ = run(capsys, "apply", fig9, "h7-f5", "d4-d5", "d5-a8")
    assert code == 0 and out == "match b 9 3\n"


@pytest.mark.parametrize(
    ("tokens", "reason"),
    [
        (["c1-c5", "a8-a7"], "the blue tower must move"),
        (["c1-c9"], "expected a square"),
        (["Red Forward 4"], "square form"),
        (["left"], "only after a round"),
        (["c1-c5", "xx"], "'xx'"),
    ],
)
def test_apply_errors(capsys: pytest.CaptureFixture[str], tokens: list[str], reason: str) -> None:
    code, out, err = run(capsys, "apply", START_KPN, *tokens)
    assert code == 2 and out == "" and reason in err
    assert repr(tokens[-1]) in err


def test_apply_fill_before_moves_after_round_end(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", FIG7, "f6-a1", "c1-c2")
    assert code == 2 and out == "" and "fill left or right" in err


def test_malformed_kpn_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", "obupyrgn/8/8 b -")
    assert code == 2 and out == "" and "ranks" in err


def test_perft(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "perft", START_KPN, "2")[1] == "1150\n"
    assert run(capsys, "perft", *START_KPN.split(), "2")[1] == "1150\n"
    assert run(capsys, "perft", "obupyrgn/8/8/8/8/8/8/NGRYPUBO", "b", "-", "1")[1] == "102\n"
    assert run(capsys, "perft", START_KPN, "0")[1] == "1\n"
    assert run(capsys, "perft", START_KPN, "x")[0] == 2


def test_show_colour_and_plain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", START_KPN)
    assert code == 0 and "\x1b[48;2;" in out
    code, out, _ = run(capsys, "show", "--plain", START_KPN)
    assert "\x1b" not in out and out.splitlines()[1].startswith("8  o:o")


def test_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "moves", START_KPN],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0 and len(done.stdout.split()) == 102


def test_replay_prints_every_position(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from kamisado.rules import record
    from kamisado.rules.match import Match

    match = Match(3, start=FIG7)
    match.push_move("f6-a1")
    match.choose_fill("left")
    match.push_move("c1-c5")
    path = tmp_path / "game.txt"
    record.save(record.Record.new(match, black="David", gold="Alain"), path)
    code, out, _ = run(capsys, "replay", "--plain", str(path))
    assert code == 0
    kpns = [line for line in out.splitlines() if line.count("/") == 7]
    assert kpns == [
        FIG7,
        "2b3n1/4U3/7B/3o4/1pN2Or1/4y1P1/g7/uG1R3Y b n 3 0 0",
        "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1",
        "u+gyprobn/8/8/2Y5/8/8/8/GR1PNOBU g b 3 0 1",
    ]
    assert "Purple Right 5 Brown" in out and out.rstrip().endswith("Result: unfinished")
    path.write_text("Kamisado match record\nMatch: Huge\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == "" and "line 2" in err


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kamisado.cli", *args],
        capture_output=True, text=True, timeout=120,
    )


def test_plain_kamisado_lists_every_command() -> None:
    from kamisado.cli import COMMANDS, PLUGINS

    r = _cli()
    assert r.returncode == 0 and r.stderr == ""
    listed = [line.split()[0] for line in r.stdout.splitlines()[2:]]
    assert sorted(listed) == sorted([*COMMANDS, *PLUGINS])
    assert listed[0] == "web"  # the main program first
    assert all(len(line.split()) > 1 for line in r.stdout.splitlines()[2:])


def test_version_names_the_engine_backend() -> None:
    from kamisado import __version__
    from kamisado.engine import BACKEND

    r = _cli("--version")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith(f"kamisado {__version__} (")
    word = "compiled C core" if BACKEND == "compiled" else "pure-Python engine"
    assert word in r.stdout and r.stdout.count("\n") == 1


@pytest.mark.parametrize(
    "args,message",
    [
        (("bogus",), "kamisado: COMMAND: invalid choice: 'bogus'"),
        (("moves",), "kamisado moves: the following arguments are required: KPN"),
        (("show", START_KPN, "--plain", "--colour"), "not allowed with argument"),
        (("perft", START_KPN, "99"), "expected a depth of at most 10"),
        (("perft", START_KPN, "11"), "found 11"),
        (("engine", "--seed", "-1"), "kamisado engine: --seed: expected a whole number"),
        (("play", "--seed", "x"), "kamisado play: --seed: expected a whole number"),
        (("play", "--delay", "nan"), "kamisado play: --delay: expected a duration of 0 or more: seconds"),
        (("tournament", "--out", "/nonexistent/t", "--timeout", "inf", "level:beginner",
          "level:novice"), "kamisado tournament: --timeout: expected a positive duration"),
        (("tournament", "--seed", "-2", "--out", "x"), "kamisado tournament: --seed"),
    ],
)
def test_bad_options_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    r = _cli(*args)
    assert (r.returncode, r.stdout) == (2, "")
    assert message in r.stderr
    assert r.stderr.count("\n") == 1 and "usage" not in r.stderr


def test_perft_counts_on_the_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kamisado import engine

    calls: list[int] = []
    real = engine.perft

    def spy(pos: Position | str, depth: int) -> int:
        calls.append(depth)
        return real(pos, depth)

    monkeypatch.setattr(engine, "perft", spy)
    code, out, _ = run(capsys, "perft", START_KPN, "5")
    assert (code, out, calls) == (0, "928716\n", [5])


def test_replay_of_a_file_that_is_not_utf8(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "latin1.kmr"
    path.write_bytes("Kamisado match record\nBlack: Jos\xe9\n".encode("latin-1"))
    code, out, err = run(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err == f"kamisado: {path}: line 2, column 11: expected UTF-8 text, found the byte 0xe9\n"


FIG6 = "u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY b g 3 0 0"


def test_replay_shows_a_deadlock_rounds_score_after_its_point(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from kamisado.rules import record
    from kamisado.rules.match import Match

    match = Match(3, start=FIG6)
    match.push_move("d2-e3")  # Figure 6: both towers blocked, Gold wins by deadlock
    path = tmp_path / "fig6.kmr"
    record.save(record.Record.new(match, black="Ralf", gold="Wolfgang"), path)
    code, out, _ = run(capsys, "replay", "--plain", str(path))
    assert code == 0
    over = [line for line in out.splitlines() if line.startswith("Round over")]
    assert over == [
        "Round over: Gold's red tower won by deadlock (+1). Standard Match, Black 0, Gold 1."
    ]
    # the KPN stays the position's own (points before the round's)
    assert "u5pg/3b4/8/8/2rRyo2/1PnUG3/8/N4OBY g r 3 0 0" in out.splitlines()
    assert out.rstrip().endswith("Result: unfinished")


def test_replay_prints_how_the_game_ended(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from kamisado.rules import record
    from kamisado.rules.match import Match

    match = Match(1, start=FIG6.replace(" 3 0 0", " 1 0 0"))
    match.push_move("d2-e3")
    path = tmp_path / "over.kmr"
    record.save(record.Record.new(match), path)
    code, out, _ = run(capsys, "replay", "--plain", str(path))
    assert code == 0 and out.rstrip().endswith("Result: Black 0, Gold 1 (deadlock)")
    assert "Single Round, Black 0, Gold 1." in out
    end = record.GameEnd(0, "no answer", "Gold's engine did not answer in time")
    record.save(record.Record.new(Match(3), end=end), path)
    code, out, _ = run(capsys, "replay", "--plain", str(path))
    assert code == 0 and out.rstrip().endswith(
        "Result: Black wins, Black 0, Gold 0 (no answer: Gold's engine did not answer in time)"
    )


def test_replay_shows_each_moves_comment(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from kamisado.rules import record

    path = tmp_path / "commented.kmr"
    path.write_text(
        "Kamisado match record\nMatch: Standard\nResult: unfinished\n\nRound 1\n"
        "  1. Red Forward 4 Blue {+0.35/12 1.234s b=1:58.766 g=2:00.000}  Blue Forward 5 Yellow\n"
        "  2. Yellow Right 3 Purple {W3/7}\n"
    )
    code, out, err = run(capsys, "replay", "--plain", str(path))
    assert code == 0 and err == ""
    titles = [line for line in out.splitlines() if line.startswith(("Round", "Comment"))]
    assert titles == [
        "Round 1: start",
        "Round 1, move 1: c1-c5  [Red Forward 4 Blue]",
        "Comment: score +0.35 at depth 12, 1.234 s used, clocks Black 1:58.766 Gold 2:00.000"
        "  {+0.35/12 1.234s b=1:58.766 g=2:00.000}",
        "Round 1, move 2: b8-b3  [Blue Forward 5 Yellow]",
        "Round 1, move 3: d1-g4  [Yellow Right 3 Purple]",
        "Comment: win in 3 moves at depth 7  {W3/7}",
    ]
    assert record.load(path).comments[(1, 3)] == record.Comment(("win", 3), 7)
    # a malformed comment: the record is refused with its line and column
    path.write_text(path.read_text().replace("{W3/7}", "{W3/x}"))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == "" and "line 7, column 29: a move's comment" in err
