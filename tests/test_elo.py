"""Elo ratings: maximum likelihood, error bars, anchors, perfect scores, cross tables."""

from __future__ import annotations

import math
import random

import pytest

from kamisado.protocol.elo import (
    Rating,
    cross_table,
    elo_difference,
    elo_table,
    format_table,
)


def _games(
    a: str, b: str, wins: int, losses: int, draws: int = 0
) -> list[tuple[str, str, float]]:
    return [(a, b, 1.0)] * wins + [(a, b, 0.0)] * losses + [(a, b, 0.5)] * draws


def test_two_players_match_the_logistic_formula() -> None:
    table = elo_table(_games("x", "y", 30, 10), anchor="y", prior_draws=1e-6)
    by = {r.name: r for r in table}
    assert by["x"].elo == pytest.approx(elo_difference(0.75), abs=0.01)
    assert by["y"].elo == 0.0 and by["y"].error == 0.0
    # the binomial standard error of the logit: 1 / sqrt(n p (1 - p))
    sd = 1 / math.sqrt(40 * 0.75 * 0.25) * 400 / math.log(10)
    assert by["x"].error == pytest.approx(1.959964 * sd, rel=1e-3)
    assert (by["x"].games, by["x"].score, by["y"].score) == (40, 30.0, 10.0)


def test_mean_anchor_and_named_anchor_agree_on_differences() -> None:
    results = _games("a", "b", 6, 4) + _games("b", "c", 7, 3) + _games("a", "c", 8, 2)
    centred = {r.name: r.elo for r in elo_table(results)}
    fixed = {r.name: r.elo for r in elo_table(results, anchor="c", anchor_elo=1500)}
    assert sum(centred.values()) == pytest.approx(0.0, abs=1e-6)
    assert fixed["c"] == 1500
    for p in "ab":
        assert fixed[p] - fixed["c"] == pytest.approx(centred[p] - centred["c"], abs=1e-6)
    assert [r.name for r in elo_table(results)] == ["a", "b", "c"]


def test_more_games_shrink_the_error() -> None:
    few = elo_table(_games("a", "b", 3, 2))[0].error
    many = elo_table(_games("a", "b", 300, 200))[0].error
    assert many < few / 5


def test_perfect_scores_stay_finite_and_ordered() -> None:
    results = _games("strong", "weak", 10, 0) + _games("strong", "mid", 10, 0)
    results += _games("mid", "weak", 5, 5)
    table = elo_table(results)
    assert [r.name for r in table][0] == "strong"
    assert all(math.isfinite(r.elo) and math.isfinite(r.error) for r in table)
    # a smaller prior lets the perfect scorer climb further
    loose = elo_table(results, prior_draws=0.01)
    assert loose[0].elo - loose[-1].elo > table[0].elo - table[-1].elo


def test_recovers_simulated_strengths() -> None:
    rng = random.Random(5)
    truth = {"a": 200.0, "b": 0.0, "c": -150.0}
    results = []
    names = list(truth)
    for _ in range(3000):
        x, y = rng.sample(names, 2)
        p = 1 / (1 + 10 ** ((truth[y] - truth[x]) / 400))
        results.append((x, y, 1.0 if rng.random() < p else 0.0))
    table = {r.name: r for r in elo_table(results, anchor="b")}
    for name, elo in truth.items():
        # within the 95% error bar (with room for an unlucky draw), and close
        assert abs(table[name].elo - elo) <= 1.5 * table[name].error < 40


def test_draws_count_half() -> None:
    table = elo_table(_games("a", "b", 0, 0, draws=4))
    assert all(r.elo == pytest.approx(0.0, abs=1e-9) and r.score == 2.0 for r in table)


def test_players_without_games_are_listed() -> None:
    table = elo_table(_games("a", "b", 1, 1), players=["z"])
    z = next(r for r in table if r.name == "z")
    assert (z.games, z.score) == (0, 0.0) and z.error > 500


@pytest.mark.parametrize(
    "bad, message",
    [
        ([("a", "b", 0.3)], "a score is 0, 0.5 or 1"),
        ([("a", "a", 1)], "cannot play itself"),
        ([("a", "", 1)], "non-empty strings"),
        ([("a", "b")], "expected (player_a, player_b, score_of_a)"),
    ],
)
def test_bad_results_are_refused(bad: list[object], message: str) -> None:
    with pytest.raises(ValueError) as err:
        elo_table(bad)  # type: ignore[arg-type]
    assert message in str(err.value)


def test_bad_anchor_and_prior() -> None:
    with pytest.raises(ValueError, match="anchor 'q' is not one of the players"):
        elo_table(_games("a", "b", 1, 1), anchor="q")
    with pytest.raises(ValueError, match="prior_draws must be positive"):
        elo_table(_games("a", "b", 1, 1), prior_draws=0)
    with pytest.raises(ValueError):
        elo_difference(1.0)


def test_empty() -> None:
    assert elo_table([]) == []
    assert format_table([]).startswith("  #")


def test_cross_table_and_text() -> None:
    results = _games("a", "b", 2, 1) + _games("c", "a", 1, 0, draws=1)
    cross = cross_table(results)
    assert cross["a"]["b"] == (2.0, 3) and cross["b"]["a"] == (1.0, 3)
    assert cross["a"]["c"] == (0.5, 2) and cross["c"]["a"] == (1.5, 2)
    assert "c" not in cross["b"]
    text = format_table(results).splitlines()
    assert len(text) == 4
    order = [r.name for r in elo_table(results)]
    assert text[0].split()[-3:] == order
    rows = {line.split()[1]: line.split()[-3:] for line in text[1:]}
    expected_b = {"a": "1.0/3", "b": ".", "c": "-"}
    assert rows["b"] == [expected_b[n] for n in order]
    assert rows["c"][order.index("a")] == "1.5/2"
    assert isinstance(elo_table(results)[0], Rating)
