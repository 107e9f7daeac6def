"""Player ratings for the web server: Glicko-2, one rating per speed.

A rating is Glicko-2's three numbers (Glickman, "Example of the Glicko-2
system", 2012; the PyPI package ``glicko2`` does the arithmetic): the
``rating`` itself (1500 for a new player), its deviation ``rd`` (how unsure
the rating is: 350 for a new player, smaller with every game) and the
volatility ``vol`` (how erratic the player's results are, 0.06 at the start),
plus the number of rated ``games``.  Each finished rated game is its own
rating period: :func:`rate_game` updates the winner against the loser's rating
and deviation from before the game, and the loser against the winner's.  A
player whose rating is unsure moves far (a new player's first games settle it
quickly), a settled one only a little; an upset moves both players more than
an expected result.

A player has one rating per speed (:data:`SPEEDS`): real-time games (a clock
per move or per game) and correspondence games (days per move) are rated
apart, because playing well in each takes different things.  An untimed game
has no speed and is never rated (:func:`speed_of`).

A rating is *provisional* while its deviation is above
:data:`PROVISIONAL_RD` (about the first dozen games): shown with a ``?`` and
not yet trusted for leaderboards.

The computer levels have fixed ratings, never updated:
:data:`COMPUTER_RATINGS`, each level's measured Elo
(:data:`kamisado.engine.levels.LEVELS`, Beginner = 0) plus :data:`COMPUTER_OFFSET`,
so the Beginner sits at 800 and the Expert near 2100.

>>> winner, loser = rate_game(Rating(), Rating())
>>> winner.view(), loser.view()
({'rating': 1662, 'rd': 290, 'games': 1, 'provisional': True}, \
{'rating': 1338, 'rd': 290, 'games': 1, 'provisional': True})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import glicko2  # type: ignore[import-untyped]

from kamisado.engine.levels import LEVELS

__all__ = [
    "COMPUTER_OFFSET",
    "COMPUTER_RATINGS",
    "PROVISIONAL_RD",
    "SPEEDS",
    "Rating",
    "computer_rating",
    "rate_game",
    "rate_puzzle",
    "speed_of",
]

#: The rated speeds, each with its own rating: clocked games and days-per-move games.
SPEEDS: tuple[str, ...] = ("realtime", "correspondence")
#: A rating whose deviation is above this is provisional.
PROVISIONAL_RD = 110.0
#: A computer level's fixed rating is its measured Elo (Beginner = 0) plus this.
COMPUTER_OFFSET = 800


@dataclass(frozen=True)
class Rating:
    """One player's Glicko-2 rating at one speed (a new player's by default).

    >>> r = Rating()
    >>> r.provisional
    True
    >>> Rating(1712.4, 64.6, 0.06, 40).view()
    {'rating': 1712, 'rd': 65, 'games': 40, 'provisional': False}
    """

    rating: float = 1500.0
    """The rating, 1500 for a new player."""
    rd: float = 350.0
    """The rating deviation: how unsure the rating is (350 for a new player)."""
    vol: float = 0.06
    """The volatility: how erratic the player's results are."""
    games: int = 0
    """How many rated games made this rating."""

    @property
    def provisional(self) -> bool:
        """Whether the rating is still unsure: its deviation above :data:`PROVISIONAL_RD`."""
        return self.rd > PROVISIONAL_RD

    def view(self) -> dict[str, Any]:
        """The rating as shown: rating and deviation rounded, games, provisional."""
        return {"rating": round(self.rating), "rd": round(self.rd), "games": self.games,
                "provisional": self.provisional}


def speed_of(days: int | None, initial: float | None) -> str | None:
    """The speed a game is rated at from its time control, ``None`` when untimed.

    ``days`` is a correspondence game's days per move, ``initial`` a
    real-time clock's starting time (seconds); a game with neither is
    untimed and never rated.

    >>> speed_of(3, None), speed_of(None, 300.0), speed_of(None, 0.0), speed_of(None, None)
    ('correspondence', 'realtime', 'realtime', None)
    """
    if days:
        return "correspondence"
    if initial is not None:
        return "realtime"
    return None


def _updated(player: Rating, opponent: Rating, score: float) -> Rating:
    """``player`` after one game (one rating period) against ``opponent``."""
    g = glicko2.Player(rating=player.rating, rd=player.rd, vol=player.vol)
    g.update_player([opponent.rating], [opponent.rd], [score])
    return Rating(float(g.rating), float(g.rd), float(g.vol), player.games + 1)


def rate_game(winner: Rating, loser: Rating) -> tuple[Rating, Rating]:
    """The winner's and the loser's new ratings after one game between them.

    Each is updated by Glicko-2 as one game (one rating period) against the
    other's rating and deviation from before the game; each counts one more
    game.  The same ratings always give the same result.

    >>> w, lo = rate_game(Rating(1400.0, 80.0), Rating(1600.0, 80.0))
    >>> round(w.rating - 1400), round(lo.rating - 1600), w.games, lo.games
    (26, -26, 1, 1)
    """
    return _updated(winner, loser, 1.0), _updated(loser, winner, 0.0)


def rate_puzzle(player: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """A player's and a puzzle's new ratings after one rated attempt.

    As lichess rates puzzles: the attempt is a game between the player and
    the puzzle, which the player wins by solving it and the puzzle wins
    otherwise; each is one Glicko-2 rating period (:func:`rate_game`).

    >>> p, z = rate_puzzle(Rating(), Rating(1500.0, 350.0), True)
    >>> round(p.rating), round(z.rating), p.games, z.games
    (1662, 1338, 1, 1)
    >>> p, z = rate_puzzle(Rating(1500.0, 60.0), Rating(1200.0, 60.0), False)
    >>> p.rating < 1500 < z.rating + 300
    True
    """
    if solved:
        return rate_game(player, puzzle)
    new_puzzle, new_player = rate_game(puzzle, player)
    return new_player, new_puzzle


def computer_rating(level: str) -> int:
    """A computer level's fixed rating: its measured Elo plus :data:`COMPUTER_OFFSET`.

    >>> computer_rating("beginner"), computer_rating("club")
    (800, 1702)
    >>> computer_rating("grandmaster")
    Traceback (most recent call last):
    ...
    ValueError: expected a computer level (beginner, novice, casual, club, strong, expert, perfect), found 'grandmaster'
    """
    if level not in LEVELS:
        raise ValueError(f"expected a computer level ({', '.join(LEVELS)}), found {level!r}")
    return LEVELS[level].elo + COMPUTER_OFFSET


#: Every computer level's fixed rating, by level name (in :data:`kamisado.engine.levels.LEVELS`' order).
COMPUTER_RATINGS: dict[str, int] = {level: computer_rating(level) for level in LEVELS}
