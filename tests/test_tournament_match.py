"""``kamisado tournament`` for testing engines: SPRT, rating interval, LOS,
adjudication, the resign rule, opening order/start/plies and Swiss pairings."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from kamisado.engine import solve
from kamisado.engine.limits import Score
from kamisado.protocol import tournament_config
from kamisado.protocol.elo import SPRT, sprt_llr
from kamisado.protocol.tournament import Tournament
from kamisado.protocol.tournament_cli import main
from kamisado.protocol.tournament_config import (
    Config,
    Standing,
    cut_opening,
    game_openings,
    parse_player,
    parse_players,
    schedule,
    standings,
    swiss_pairs,
    swiss_round,
)
from kamisado.rules import record
from kamisado.rules.match import Match

pytestmark = pytest.mark.timeout(180)

ENGINES = Path(__file__).parent / "engines"
START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def mock(name: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ENGINES / name}.py {' '.join(args)}".rstrip()


def rows(out: Path) -> list[dict[str, str]]:
    lines = (out / "results.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:]]


def first_player_counts(out: Path, first: str, upto: int | None = None) -> tuple[int, int, int]:
    """(losses, draws, wins) of ``first`` from results.tsv (the first ``upto`` games)."""
    wins = losses = 0
    for r in rows(out)[:upto]:
        if r["winner"] == first:
            wins += 1
        else:
            losses += 1
    return losses, 0, wins


# -- SPRT ----------------------------------------------------------------------------


def test_sprt_accepts_h1_for_a_stronger_engine_and_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    test = "elo0=0 elo1=100 alpha=0.05 beta=0.05"
    argv = ["Strong=level:club", "option.LimitStrength=false", f"Weak={mock('conforming')}",
            "--games", "60", "--depth", "2", "--seed", "4", "--sprt", test]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    played = rows(out)
    n = len(played)
    assert 0 < n < 60  # stopped early
    sprt = SPRT.parse(test)
    # the LLR printed after each game is the one of the games finished so far,
    # and the run stopped at the first game where it reached the upper bound
    lines = [line for line in text.splitlines() if line.startswith("SPRT: llr")]
    assert len(lines) == n + 1  # one a game, and the last one after the table
    for k in range(1, n + 1):
        llr = sprt.llr(first_player_counts(out, "Strong", k))
        assert lines[k - 1].startswith(f"SPRT: llr {llr:.2f} ")
        assert (sprt.verdict(llr) == "H1") == (k == n)
    lost, _, won = first_player_counts(out, "Strong")
    assert lines[-1].endswith(f"(Strong vs Weak: {won} won, 0 drawn, {lost} lost)")
    assert " - H1 was accepted" in lines[-1]
    assert f"{n} game(s) played" in text
    state = json.loads((out / "state.json").read_text())
    assert len(state["finished"]) == n
    assert sorted(p.name for p in out.glob("game-*.txt")) == [r["file"] for r in played]
    # resuming a decided test plays nothing and says the verdict again
    assert main(["--resume", "--out", str(out)]) == 0
    again = capsys.readouterr().out
    assert "game(s) played" not in again and " - H1 was accepted" in again
    assert len(rows(out)) == n


def test_sprt_accepts_h0_for_equal_engines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # at a fixed depth both levels run the same search: equal strength
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "200", "--depth", "2", "--seed", "2",
            "--sprt", "elo0=0 elo1=200", "-j", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    n = len(rows(out))
    assert 0 < n < 200
    llr = sprt_llr(0, 200, first_player_counts(out, "beginner"))
    assert llr <= SPRT(0, 200).lower
    lost, _, won = first_player_counts(out, "beginner")
    assert text.rstrip().endswith(
        f" - H0 was accepted (beginner vs novice: {won} won, 0 drawn, {lost} lost)"
    )


def test_rating_interval_prints_the_table_every_n_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--games", "5", "--depth", "1",
            "--rating-interval", "2", "--seed", "3", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert re.findall(r"after (\d+) of 5 games:", text) == ["2", "4"]
    assert text.count("  # player") == 3  # twice as it goes, once at the end
    heads = [line for line in text.splitlines() if line.startswith("  # player")]
    assert all(line.split()[7] == "los%" for line in heads)
    # the table after 2 games sits after the second summary line, before the third
    assert text.index("game 2/5:") < text.index("after 2 of 5 games:") < text.index("game 3/5:")


def test_bad_match_settings_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "t")
    openings = tmp_path / "openings.txt"
    openings.write_text(f"{START} moves c1-c5 b8-b3\n{START} moves d1-d4\n")
    two = ["level:club", "level:novice"]
    cases = [
        ([*two, "level:casual", "--sprt", "elo0=0 elo1=5"], "expected two players"),
        ([*two, "--sprt", "elo0=5 elo1=0"], "expected elo0 < elo1"),
        ([*two, "--sprt", "elo0=0 elo1=5 alpha=2"], "alpha must lie strictly"),
        ([*two, "--sprt", "elo0=0"], "elo1 missing"),
        ([*two, "--resign-score", "300"], "--resign-score and --resign-moves go together"),
        ([*two, "--resign-moves", "3", "--resign-score", "0"], "--resign-score"),
        ([*two, "--adjudicate-proven", "0"], "--adjudicate-proven"),
        ([*two, "--adjudicate-proven", "20000"], "--adjudicate-proven"),
        ([*two, "--openings-plies", "2"], "need --openings"),
        ([*two, "--openings", str(openings), "--openings-start", "3"], "--openings-start"),
        ([*two, "--openings", str(openings), "--openings-plies", "-1"], "--openings-plies"),
        ([*two, "--openings", str(openings), "--openings-order", "reverse"], "--openings-order"),
        ([*two, "--swiss"], "at least three players"),
        ([*two, "--rounds", "3"], "--rounds is for a Swiss tournament"),
        ([*two, "level:casual", "--swiss", "--rounds", "0"], "--rounds"),
        ([*two, "level:casual", "--swiss", "--gauntlet"], "not allowed with"),
    ]
    for argv, message in cases:
        try:
            status = main([*argv, "--out", out])
        except SystemExit as e:  # refused by the argument parser
            status = int(e.code or 0)
        assert status == 2, argv
        err = capsys.readouterr().err
        assert message in err, (argv, err)
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    ("words", "before"),
    [
        (["--sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"], True),  # cutechess-cli's
        (["--sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"], False),
        (["--sprt", "elo0=0 elo1=5 alpha=0.05 beta=0.05"], True),  # quoted
        (["--sprt=elo0=0 elo1=5 alpha=0.05 beta=0.05"], False),
        (["--sprt", "elo0=0 elo1=5", "alpha=0.05", "beta=0.05"], False),
    ],
)
def test_sprt_settings_as_separate_words_or_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], words: list[str], before: bool
) -> None:
    # the settings before the players or after them: the players stay players
    players = ["Strong=level:novice", "level:beginner", "option.Seed=3"]
    rest = ["--games", "1", "--depth", "1", "--seed", "2", "--out", str(tmp_path / "t")]
    argv = [*words, *players, *rest] if before else [*players, *words, *rest]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "tournament: Strong, beginner;" in out
    assert "sprt elo0=0 elo1=5 alpha=0.05 beta=0.05" in out
    assert "SPRT: llr" in out.split("  # player")[-1]


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--sprt", "elo0=0", "elo2=5"], "--sprt: expected elo0=E0 elo1=E1 [alpha=A] [beta=B],"
                                          " found 'elo2=5'"),
        (["--sprt", "elo0=0", "elo1=five"], "--sprt: elo1 must be a number, found 'five'"),
        (["--sprt", "elo1=5"], "--sprt: elo0 missing"),
        (["--sprt", "elo0=0", "elo1=5", "elo1=6"], "found 'elo1=6'"),
        (["--sprt"], "--sprt: expected one argument"),
    ],
)
def test_a_malformed_sprt_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], words: list[str], message: str
) -> None:
    argv = ["level:novice", "level:beginner", "--out", str(tmp_path / "t"), *words]
    try:
        status = main(argv)
    except SystemExit as e:  # refused by the argument parser
        status = int(e.code or 0)
    assert status == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


# -- adjudication --------------------------------------------------------------------


def test_proven_rounds_are_adjudicated_and_marked_in_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = ["level:club", "level:casual", "--games", "4", "--tc", "2+0.05", "--seed", "1",
            "--adjudicate-proven", "200", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "adjudicate proven 200 ms" in text.splitlines()[0]
    adjudicated = 0
    for r in rows(out):
        rec = record.load(out / r["file"])
        assert rec.end is not None
        if rec.end.reason != "adjudication":
            continue
        adjudicated += 1
        assert r["reason"] == "adjudication" and rec.match.state != "over"
        assert rec.end.detail.startswith("proven: ")
        result_line = next(
            line for line in (out / r["file"]).read_text().splitlines()
            if line.startswith("Result: ")
        )
        assert result_line.startswith(
            f"Result: {('Black', 'Gold')[rec.end.winner]} wins, Black 0, Gold 0"
            " (adjudication: proven: "
        )
        # the proof holds: the solver, without a limit, finds the same winner
        assert solve(rec.match.position, exact=False).winner == rec.end.winner
        assert r["winner"] == (r["black"] if rec.end.winner == 0 else r["gold"])
    # 200 ms proves a round of Kamisado before its end (at the latest when a
    # tower stands next to its goal): every game is adjudicated
    assert adjudicated == 4


def test_only_a_round_that_decides_the_match_is_adjudicated(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = ["level:club", "level:casual", "--match", "standard", "--games", "2",
            "--tc", "5+0.05", "--seed", "5", "--adjudicate-proven", "200", "--out", str(out)]
    assert main(argv) == 0
    for r in rows(out):
        rec = record.load(out / r["file"])
        assert rec.end is not None
        if rec.end.reason == "adjudication":
            # the winner of the proven round reaches 3 points with any win
            assert rec.match.points[rec.end.winner] + 1 >= 3
            assert len(rec.match.rounds) >= 2


def _tournament(tmp_path: Path, score: int, moves: int, match: str = "single") -> Tournament:
    config = Config(parse_players(["A=level:club", "B=level:casual"]), match=match,
                    resign_score=score, resign_moves=moves)
    return Tournament(config, tmp_path / "t")


def test_the_resign_rule_needs_both_engines_for_m_moves_each(tmp_path: Path) -> None:
    t = _tournament(tmp_path, 300, 2)
    names = ("A", "B")
    streaks = [[0, 0], [0, 0]]
    match = Match(1)
    cp = [Score("cp", v) for v in (-350, 400, -300, 0)]
    # Black low, Gold high, Black low: Gold has only one high move so far
    assert t._resign(match, streaks, 0, cp[0], names) is None
    assert t._resign(match, streaks, 1, cp[1], names) is None
    assert t._resign(match, streaks, 0, cp[2], names) is None
    # Gold's second high score: both agree for two moves each
    end = t._resign(match, streaks, 1, Score("win", 5), names)
    assert end is not None and (end.winner, end.reason) == (1, "adjudication")
    assert end.detail == (
        "resigned: A scored -300 or lower and B +300 or higher for 2 move(s) each"
    )
    # a score in between, or none, breaks the streak
    streaks = [[0, 0], [0, 0]]
    assert t._resign(match, streaks, 0, cp[0], names) is None
    assert t._resign(match, streaks, 1, cp[1], names) is None
    assert t._resign(match, streaks, 0, None, names) is None
    assert t._resign(match, streaks, 1, cp[1], names) is None
    assert t._resign(match, streaks, 0, Score("loss", 3), names) is None  # one again
    assert t._resign(match, streaks, 1, cp[1], names) is None
    end = t._resign(match, streaks, 0, cp[0], names)  # Black's second in a row
    assert end is not None and end.winner == 1
    # one engine alone never ends a game
    streaks = [[0, 0], [0, 0]]
    for _ in range(5):
        assert t._resign(match, streaks, 0, cp[0], names) is None
        assert t._resign(match, streaks, 1, cp[3], names) is None


def test_the_resign_rule_waits_for_a_round_that_decides_the_match(tmp_path: Path) -> None:
    t = _tournament(tmp_path, 300, 1, match="standard")
    names = ("A", "B")
    streaks = [[0, 0], [0, 0]]
    match = Match(3)
    assert t._resign(match, streaks, 0, Score("cp", -500), names) is None
    assert t._resign(match, streaks, 1, Score("cp", 500), names) is None  # 0-0 of 3
    match.points = [0, 2]
    assert t._resign(match, streaks, 0, Score("cp", -500), names) is not None


def test_resign_rule_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    # at full strength the built-in engine sends its scores
    argv = ["level:club", "option.LimitStrength=false", "level:casual",
            "option.LimitStrength=false", "--games", "2", "--depth", "4", "--seed", "1",
            "--resign-score", "200", "--resign-moves", "2", "--debug", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    log = (out / "debug.log").read_text().splitlines()
    for r in rows(out):
        rec = record.load(out / r["file"])
        assert rec.end is not None
        if rec.end.reason != "adjudication":
            continue
        assert rec.end.detail.startswith("resigned: ")
        # the last two scores each engine sent agree with the rule
        game = [line for line in log if f" game {r['game']} " in line]
        scores: dict[str, list[int]] = {"Black": [], "Gold": []}
        for line in game:
            if " < bestmove " in line:
                side = line.split()[3]
                infos = [x for x in game[: game.index(line)] if f" {side} " in x
                         and " < info " in x and " score " in x]
                if infos:
                    words = infos[-1].split()
                    kind, value = words[words.index("score") + 1: words.index("score") + 3]
                    v = int(value) if kind == "cp" else (10**6 if kind == "win" else -10**6)
                    scores[side].append(v)
        loser = ("Black", "Gold")[1 - rec.end.winner]
        winner = ("Black", "Gold")[rec.end.winner]
        assert all(v <= -200 for v in scores[loser][-2:])
        assert all(v >= 200 for v in scores[winner][-2:])


# -- openings ------------------------------------------------------------------------


def test_openings_order_start_and_plies() -> None:
    openings = [f"{START} moves {m}" for m in ("c1-c5 b8-b3", "d1-d4", "e1-e5 h8-h2", "a1-a2")]
    players = [parse_player("level:beginner"), parse_player("level:novice")]
    plain = Config(players, games=8, openings=openings, seed=9)
    assert game_openings(plain) == openings
    assert [g.opening for g in schedule(plain)] == [o for o in openings for _ in (0, 1)]
    started = Config(players, games=8, openings=openings, seed=9, openings_start=3)
    assert game_openings(started) == openings[2:] + openings[:2]
    cut = Config(players, games=8, openings=openings, seed=9, openings_plies=1)
    assert game_openings(cut) == [f"{START} moves c1-c5", f"{START} moves d1-d4",
                                  f"{START} moves e1-e5", f"{START} moves a1-a2"]
    assert cut_opening(openings[0], 0) == START and cut_opening(openings[0], None) == openings[0]
    shuffled = [Config(players, games=8, openings=openings, seed=s, openings_order="random")
                for s in range(6)]
    orders = [game_openings(c) for c in shuffled]
    assert all(sorted(o) == sorted(openings) for o in orders)
    assert len({tuple(o) for o in orders}) > 1  # the seed decides
    assert orders[0] == game_openings(shuffled[0])  # and the same seed, the same order
    # the game seeds do not move with the openings' order
    same_seed = Config(players, games=8, openings=openings, seed=0)
    assert [g.seed for g in schedule(shuffled[0])] == [g.seed for g in schedule(same_seed)]


def test_openings_options_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "openings.txt"
    openings = [f"{START} moves c1-c5 b8-b3", f"{START} moves e1-e5 h8-h2", f"{START} moves d1-d4"]
    path.write_text("\n".join(openings) + "\n")
    out = tmp_path / "t"
    argv = ["level:beginner", "level:novice", "--depth", "1", "--openings", str(path),
            "--openings-start", "2", "--openings-plies", "1", "--games", "4", "--seed", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "(sequential order, from opening 2, 1 plies at most)" in capsys.readouterr().out
    heads = [record.load(out / f"game-000{n}.txt").headers["Opening"] for n in (1, 2, 3, 4)]
    assert heads == [f"{START} moves e1-e5"] * 2 + [f"{START} moves d1-d4"] * 2
    for n in (1, 2):
        rec = record.load(out / f"game-000{n}.txt")
        assert str(rec.match.rounds[0].moves[0]) == "e1-e5"


# -- Swiss ---------------------------------------------------------------------------


def test_swiss_pairs_like_scores_without_rematches() -> None:
    names = ["a", "b", "c", "d", "e", "f"]
    config = Config([parse_player(f"{n}=level:beginner") for n in names], format="swiss",
                    games=2, seed=1)
    first = swiss_round(config, 1, [])
    # round 1: the list's order, top half against... every player once, two games each
    assert [(g.black, g.gold) for g in first] == [
        ("a", "b"), ("c", "d"), ("e", "f"), ("b", "a"), ("d", "c"), ("f", "e")]
    assert [g.number for g in first] == [1, 2, 3, 4, 5, 6]
    # a, c and e won both games: they meet each other, the losers each other
    results = [(g.black, g.gold, 1.0 if g.black in "ace" else 0.0) for g in first]
    table = standings(config, results)
    assert [s.name for s in table] == ["a", "c", "e", "b", "d", "f"]
    assert [s.points for s in table] == [2, 2, 2, 0, 0, 0]
    second = swiss_round(config, 2, results)
    pairs = {frozenset((g.black, g.gold)) for g in second}
    assert pairs == {frozenset("ac"), frozenset("eb"), frozenset("df")}
    assert [g.number for g in second] == [7, 8, 9, 10, 11, 12]
    # never a rematch while one can be avoided
    met = {frozenset((g.black, g.gold)) for g in first}
    assert not pairs & met
    # the same results pair and seed the same round
    assert swiss_round(config, 2, results) == second


def test_swiss_byes_go_to_the_lowest_placed_without_one() -> None:
    t = [Standing("a", 3), Standing("b", 2), Standing("c", 1, byes=1), Standing("d", 1),
         Standing("e", 0, byes=1)]
    pairs, bye = swiss_pairs(t)
    assert bye == "d" and sorted(x for p in pairs for x in p) == ["a", "b", "c", "e"]
    # a bye counts as the pairing's games won
    config = Config(parse_players(["a=level:beginner", "b=level:novice", "c=level:casual"]),
                    format="swiss", games=2)
    assert [(s.name, s.points, s.byes) for s in standings(config, [], ["c"])] == [
        ("c", 2.0, 1), ("a", 0.0, 0), ("b", 0.0, 0)]


def test_a_swiss_tournament_end_to_end_and_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    players = ["A=level:beginner", "B=level:novice", "C=level:casual", "D=level:club",
               "E=level:strong"]
    argv = [*players, "--swiss", "--rounds", "3", "--games", "2", "--depth", "1", "--seed", "7"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("tournament: A, B, C, D, E; swiss, 3 rounds,"
                                           " 2 game(s) a pairing, 12 games,")
    played = rows(out)
    assert [int(r["game"]) for r in played] == list(range(1, 13))
    rounds = [played[k : k + 4] for k in (0, 4, 8)]
    sitting_out = []
    for games in rounds:
        seen = [p for r in games for p in (r["black"], r["gold"])]
        assert len(set(seen)) == 4  # two pairings, one player out
        sitting_out += sorted(set("ABCDE") - set(seen))
    assert len(set(sitting_out)) == 3  # a different bye every round
    pairs = [frozenset((r["black"], r["gold"])) for r in played]
    assert all(pairs.count(p) == 2 for p in pairs)  # no pairing twice (two games each)
    # resume after losing the last round: it is paired and played the same again
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    state = json.loads((copy / "state.json").read_text())
    for n in ("9", "10", "11", "12"):
        del state["finished"][n]
        (copy / f"game-00{int(n):02d}.txt").unlink()
    (copy / "state.json").write_text(json.dumps(state))
    assert main(["--resume", "--out", str(copy)]) == 0
    assert "4 game(s) played" in capsys.readouterr().out
    again = rows(copy)
    assert [(r["black"], r["gold"], r["seed"]) for r in again] == [
        (r["black"], r["gold"], r["seed"]) for r in played]
    for r in played:  # the same games (the comments' times aside)
        a, b = record.load(copy / r["file"]), record.load(out / r["file"])
        assert [str(m) for x in a.match.rounds for m in x.moves] == [
            str(m) for x in b.match.rounds for m in x.moves]
        assert (a.end, a.headers) == (b.end, b.headers)


def test_swiss_allows_a_rematch_only_when_none_can_be_avoided() -> None:
    # four players who all met each other: a rematch is unavoidable
    names = "abcd"
    everyone = [Standing(n, 0, set(names) - {n}) for n in names]
    pairs, bye = swiss_pairs(everyone)
    assert bye is None and sorted(x for p in pairs for x in p) == list(names)
    # forty-two players in two groups of twenty-one, each player having met
    # the other group and none of its own: no pairing without a rematch
    # exists (the groups are odd), but the search would try each of the
    # 20!! (3.7e9) ways to pair a group first; it gives up after its steps
    # and allows rematches
    many = [f"p{k:02d}" for k in range(42)]
    group = {n: int(n[1:]) < 21 for n in many}
    table = [Standing(n, 0, {m for m in many if group[m] != group[n]}) for n in many]
    steps = [tournament_config.SWISS_PAIRING_STEPS]
    assert tournament_config._pair(table, rematch=False, steps=steps) is None
    assert steps[0] < 0  # it ran out, not through
    pairs, bye = swiss_pairs(table)
    assert bye is None and sorted(x for p in pairs for x in p) == many
