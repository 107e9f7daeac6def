"""``kamisado tournament``, its games: schedules, games through KEI, records,
forfeits, clocks, options, seeds, openings, the debug log."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from kamisado.engine.levels import SEED_MAX
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
from kamisado.protocol.tournament_results import result_of_record
from kamisado.rules import record
from kamisado.rules.match import Match
from tests.tournament_kit import (
    finished,
    mock,
    played,
    results,
)

pytestmark = pytest.mark.timeout(120)


def clocked(*args: str) -> str:
    return mock("clocked", *args)


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


# -- clocks, options, seeds, openings, the debug log ---------------------------------


def go_lines(log: Path) -> list[str]:
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
    lines = go_lines(fast_log) + go_lines(slow_log)
    assert lines and all(
        re.fullmatch(r"go btime \d+ gtime \d+ binc 100 ginc 100", line) for line in lines
    ), lines
    assert go_lines(fast_log)[0] == "go btime 1000 gtime 1000 binc 100 ginc 100"
    # Black's clock after its first (instant) move: its time plus the increment
    btime = int(go_lines(fast_log)[1].split()[2])
    assert 1000 < btime <= 1100
    [row] = results(out)
    assert (row["winner"], row["score"], row["reason"]) == ("fast", "1-0", "time")


@pytest.mark.any_core  # the tournament's clocks (mostly waiting): runs once, on either core
@pytest.mark.slow  # started first (tests/conftest.py)
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
    assert set(go_lines(ok_log)) == {"go movetime 1000"}
    # periods: MOVES/BASE+INC sends movestogo, and the base comes back each period
    out2 = tmp_path / "p"
    log = tmp_path / "p.log"
    # (a hundredth of its clock a move: the long match's hundreds of moves
    # take seconds, not half a minute)
    argv = [clocked("--log", str(log), "--share", "0.01"), "level:beginner", "--tc", "3/2+0",
            "--match", "long"]
    assert main([*argv, "--games", "1", "--seed", "2", "--out", str(out2)]) == 0
    lines = go_lines(log)
    assert len(lines) >= 4, lines
    togo = [int(line.split()[-1]) for line in lines]
    assert togo[:4] == [3, 2, 1, 3]
    assert all(line.split()[-2] == "movestogo" for line in lines)
    before, after = (int(lines[i].split()[2]) for i in (2, 3))
    # a new period: two seconds more, less the hundredth of the clock the third
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
