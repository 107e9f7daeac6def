"""Elo ratings: maximum likelihood, error bars, anchors, perfect scores, cross tables."""

from __future__ import annotations

import math
import random

import pytest

from kamisado.protocol.elo import (
    SPRT,
    Rating,
    cross_table,
    elo_difference,
    elo_table,
    format_table,
    sprt_llr,
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


# -- the likelihood of superiority and the SPRT ---------------------------------------


def test_los_of_two_players_is_the_normal_tail_of_the_logit() -> None:
    # with a vanishing prior the fit is the binomial one: d = ln(W/L) with
    # variance 1/W + 1/L; 7-3: ln(7/3) / sqrt(1/7 + 1/3) = 1.22785, Phi = 0.89025
    table = elo_table(_games("x", "y", 7, 3), prior_draws=1e-9)
    assert table[0].name == "x" and table[0].los == pytest.approx(0.89025, abs=1e-5)
    assert table[1].los is None
    # even scores: no one is likelier the better
    even = elo_table(_games("x", "y", 5, 5), prior_draws=1e-9)
    assert even[0].los == pytest.approx(0.5, abs=1e-9)
    # more games with the same share make it surer
    assert elo_table(_games("x", "y", 70, 30))[0].los > 0.9999 > table[0].los


def test_los_column_in_the_table() -> None:
    results = _games("a", "b", 6, 4) + _games("b", "c", 9, 1) + _games("a", "c", 8, 2)
    lines = format_table(results).splitlines()
    assert lines[0].split()[:8] == ["#", "player", "elo", "+/-", "games", "score", "%", "los%"]
    ratings = elo_table(results)
    for line, r in zip(lines[1:], ratings, strict=True):
        shown = line.split()[7]
        assert shown == ("-" if r.los is None else f"{100 * r.los:.1f}")
    assert [r.los is None for r in ratings] == [False, False, True]
    assert all(0.5 < r.los < 1.0 for r in ratings if r.los is not None)


def test_sprt_llr_of_wins_and_losses_is_the_binomial_ratio() -> None:
    # by hand: s0 = 1/(1 + 10^0) = 0.5, s1 = 1/(1 + 10^(-10/400)) = 0.5143872;
    # 30 wins, 20 losses: 30 ln(s1/s0) + 20 ln((1-s1)/(1-s0))
    #   = 30 * 0.0283682 + 20 * (-0.0291965) = 0.2671155
    assert sprt_llr(0, 10, (20, 0, 30)) == pytest.approx(0.2671155, abs=1e-6)
    # 12 wins, no loss, elo1 = 100: s1 = 0.6400649, 12 ln(1.2801298) = 2.963540
    # (the unseen loss weighs 0.001: a hair less)
    assert sprt_llr(0, 100, (0, 0, 12)) == pytest.approx(2.96354, abs=1e-3)
    assert sprt_llr(0, 100, (0, 0, 12)) < 2.96354
    # as many losses: the mirror image
    assert sprt_llr(0, 100, (12, 0, 0)) == pytest.approx(
        12 * math.log((1 - 0.6400649) / 0.5), abs=1e-3
    )
    assert sprt_llr(0, 10, (0, 0, 0)) == 0.0


def _constrained_mle_llr(elo0: float, elo1: float, losses: int, draws: int, wins: int) -> float:
    """The same ratio the long way: maximize the likelihood on a fine grid."""

    def best(s: float) -> float:
        # p_win = s - p_draw / 2, p_loss = 1 - s - p_draw / 2; scan p_draw
        top = -math.inf
        steps = 200_000
        hi = 2 * min(s, 1 - s)
        for k in range(1, steps):
            d = hi * k / steps
            w, l_ = s - d / 2, 1 - s - d / 2
            top = max(top, wins * math.log(w) + draws * math.log(d) + losses * math.log(l_))
        return top

    return best(1 / (1 + 10 ** (-elo1 / 400))) - best(1 / (1 + 10 ** (-elo0 / 400)))


def test_sprt_llr_with_draws_is_the_constrained_maximum_likelihood() -> None:
    # fishtest's LLR_logistic (server/fishtest/stats/LLRcalc.py, scipy's brentq)
    # gives these for counts without a zero, trinomial and pentanomial
    assert sprt_llr(0, 10, (100, 200, 120)) == pytest.approx(0.7675305, abs=1e-6)
    assert sprt_llr(-5, 5, (10, 30, 50, 40, 20)) == pytest.approx(1.3666221, abs=1e-6)
    for elo0, elo1, (l_, d, w) in [(0, 10, (100, 200, 120)), (-5, 5, (40, 10, 30))]:
        assert sprt_llr(elo0, elo1, (l_, d, w)) == pytest.approx(
            _constrained_mle_llr(elo0, elo1, l_, d, w), abs=1e-4
        )


def test_sprt_llr_pentanomial_counts_pairs() -> None:
    # pairs scoring only 0 or 1 (LL or WW) are a binomial of pairs
    s1 = 1 / (1 + 10 ** (-20 / 400))
    assert sprt_llr(0, 20, (5, 0, 0, 0, 9)) == pytest.approx(
        9 * math.log(s1 / 0.5) + 5 * math.log((1 - s1) / 0.5), abs=1e-9
    )
    # split pairs (LW, WL) carry no evidence either way between 0 and +elo symmetric tests
    assert sprt_llr(-10, 10, (0, 0, 7, 0, 0)) == pytest.approx(0.0, abs=1e-6)


def test_sprt_bounds_verdicts_and_bad_input() -> None:
    t = SPRT.parse("elo0=0 elo1=5 alpha=0.05 beta=0.1")
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    assert (t.verdict(t.upper), t.verdict(t.lower), t.verdict(0.0)) == ("H1", "H0", None)
    assert t.line(t.upper + 0.01).endswith(" - H1 was accepted")
    assert str(t) == "elo0=0 elo1=5 alpha=0.05 beta=0.1"
    for text, message in [
        ("elo0=5 elo1=0", "expected elo0 < elo1"),
        ("elo0=0", "elo1 missing"),
        ("elo0=0 elo1=5 alpha=1", "alpha must lie strictly between 0 and 1"),
        ("elo0=0 elo1=5 alpha=0.6 beta=0.5", r"alpha \+ beta must be less than 1"),
        ("elo0=0 elo1=x", "elo1 must be a number"),
        ("elo0=0 elo1=5 elo1=6", "expected elo0=E0 elo1=E1"),
        ("elo0=nan elo1=5", "elo0 must be a finite number"),
    ]:
        with pytest.raises(ValueError, match=message):
            SPRT.parse(text)
    with pytest.raises(ValueError, match="expected 3 counts"):
        sprt_llr(0, 5, (1, 2))
    with pytest.raises(ValueError, match="negative"):
        sprt_llr(0, 5, (1, -2, 3))
