"""Ratings (kamisado.web.basics.ratings): Glicko-2 per game, speeds, the computer levels' fixed ratings."""

from __future__ import annotations

import pytest

from kamisado.engine.levels import LEVELS
from kamisado.web.basics.ratings import (
    COMPUTER_OFFSET,
    COMPUTER_RATINGS,
    PROVISIONAL_RD,
    SPEEDS,
    Rating,
    computer_rating,
    rate_game,
    speed_of,
)


def test_a_new_rating_and_its_view() -> None:
    r = Rating()
    assert (r.rating, r.rd, r.vol, r.games) == (1500.0, 350.0, 0.06, 0)
    assert r.provisional
    assert r.view() == {"rating": 1500, "rd": 350, "games": 0, "provisional": True}
    assert not Rating(1800.4, PROVISIONAL_RD).provisional  # the edge is not provisional
    assert Rating(1800.4, PROVISIONAL_RD + 0.01).provisional
    assert Rating(1800.6, 60.4, games=30).view() == {
        "rating": 1801, "rd": 60, "games": 30, "provisional": False}
    with pytest.raises(AttributeError):
        r.rating = 1600.0  # type: ignore[misc]


def test_the_winner_gains_and_the_loser_loses() -> None:
    for w_old, l_old in [(Rating(), Rating()), (Rating(1700.0, 120.0), Rating(1400.0, 90.0)),
                         (Rating(1300.0, 60.0), Rating(1900.0, 300.0))]:
        w, lo = rate_game(w_old, l_old)
        assert w.rating > w_old.rating
        assert lo.rating < l_old.rating
        assert (w.games, lo.games) == (w_old.games + 1, l_old.games + 1)


def test_an_upset_moves_more_than_an_expected_win() -> None:
    low, high = Rating(1400.0, 100.0, games=20), Rating(1700.0, 100.0, games=20)
    upset_w, upset_l = rate_game(low, high)
    expected_w, expected_l = rate_game(high, low)
    assert upset_w.rating - low.rating > 2 * (expected_w.rating - high.rating)
    assert high.rating - upset_l.rating > 2 * (low.rating - expected_l.rating)
    # the expected result still moves both, a little
    assert expected_w.rating > high.rating and expected_l.rating < low.rating


def test_the_deviation_shrinks_after_a_game() -> None:
    for rd in (350.0, 200.0, 110.0):
        w, lo = rate_game(Rating(1500.0, rd), Rating(1550.0, rd))
        assert w.rd < rd and lo.rd < rd
    # a new player's first game settles much of the uncertainty
    w, lo = rate_game(Rating(), Rating())
    assert w.rd < 300 and lo.rd < 300


def test_equal_ratings_change_symmetrically() -> None:
    for rd in (350.0, 150.0, 50.0):
        w, lo = rate_game(Rating(1500.0, rd), Rating(1500.0, rd))
        gain, loss = w.rating - 1500.0, lo.rating - 1500.0
        assert gain > 0
        assert gain == pytest.approx(-loss, abs=1e-9)
        assert w.rd == pytest.approx(lo.rd) and w.vol == pytest.approx(lo.vol)


def test_a_provisional_player_moves_far_more_than_an_established_one() -> None:
    opponent = Rating(1500.0, 80.0, games=50)
    new_w, _ = rate_game(Rating(1500.0, 350.0), opponent)
    old_w, _ = rate_game(Rating(1500.0, 50.0, games=200), opponent)
    assert new_w.rating - 1500.0 > 5 * (old_w.rating - 1500.0)
    _, new_l = rate_game(opponent, Rating(1500.0, 350.0))
    _, old_l = rate_game(opponent, Rating(1500.0, 50.0, games=200))
    assert 1500.0 - new_l.rating > 5 * (1500.0 - old_l.rating)
    # and beating a provisional opponent says little: it moves an established player less
    vs_new, _ = rate_game(Rating(1500.0, 80.0), Rating(1500.0, 350.0))
    vs_old, _ = rate_game(Rating(1500.0, 80.0), Rating(1500.0, 50.0))
    assert vs_new.rating - 1500.0 < vs_old.rating - 1500.0


def test_known_numbers_for_one_game() -> None:
    # two new players: Glicko-2 with one game as the rating period
    w, lo = rate_game(Rating(), Rating())
    assert w.rating == pytest.approx(1662.31, abs=0.01)
    assert lo.rating == pytest.approx(1337.69, abs=0.01)
    assert w.rd == pytest.approx(290.32, abs=0.01)
    assert w.vol == pytest.approx(0.06, abs=1e-4)


def test_rating_is_deterministic_and_does_not_touch_its_inputs() -> None:
    a, b = Rating(1623.5, 87.2, 0.059, 14), Rating(1488.1, 143.9, 0.061, 6)
    first = rate_game(a, b)
    assert all(rate_game(a, b) == first for _ in range(5))
    assert a == Rating(1623.5, 87.2, 0.059, 14) and b == Rating(1488.1, 143.9, 0.061, 6)


def test_a_series_of_wins_settles_and_climbs() -> None:
    player, opponent = Rating(), Rating(1500.0, 60.0, games=100)
    ratings = []
    for _ in range(12):
        player, _ = rate_game(player, opponent)
        ratings.append(player.rating)
    assert ratings == sorted(ratings)
    assert player.games == 12
    assert player.rd < 200


def test_speed_of() -> None:
    assert SPEEDS == ("realtime", "correspondence")
    assert speed_of(3, None) == "correspondence"
    assert speed_of(1, 300.0) == "correspondence"  # days decide
    assert speed_of(None, 300.0) == "realtime"
    assert speed_of(None, 0.0) == "realtime"  # a clock of increments only is still timed
    assert speed_of(None, None) is None
    assert speed_of(0, None) is None
    for speed in (speed_of(2, None), speed_of(None, 60.0)):
        assert speed in SPEEDS


def test_computer_ratings() -> None:
    assert COMPUTER_OFFSET == 800
    assert list(COMPUTER_RATINGS) == list(LEVELS)
    for level, info in LEVELS.items():
        assert computer_rating(level) == info.elo + 800 == COMPUTER_RATINGS[level]
        assert isinstance(COMPUTER_RATINGS[level], int)
    assert COMPUTER_RATINGS["beginner"] == 800
    # stronger levels rate higher (perfect and expert measured within noise of each other)
    order = ["beginner", "novice", "casual", "club", "strong", "expert"]
    values = [COMPUTER_RATINGS[level] for level in order]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert COMPUTER_RATINGS["perfect"] > COMPUTER_RATINGS["strong"]


def test_an_unknown_level_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="expected a computer level .*beginner.*'grandmaster'"):
        computer_rating("grandmaster")
    with pytest.raises(ValueError):
        computer_rating("")


def test_the_readme_levels_table_publishes_the_fixed_ratings() -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "docs" / "engine.md").read_text(encoding="utf-8")
    published = {
        m.group(1): int(m.group(2))  # the rating column, before the time per move
        for m in re.finditer(r"^\| `(\w+)` \|.*\| (\d+) \| [^|]* \|$", readme, re.M)
        if m.group(1) in COMPUTER_RATINGS
    }
    assert published == COMPUTER_RATINGS
