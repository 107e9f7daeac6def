"""Elo ratings with 95% error bars, and cross tables, from game results.

A result is ``(player_a, player_b, score_of_a)`` with the score 1 (a won),
0 (a lost) or 0.5 (a draw; Kamisado has none, but other games and
adjudications may).  :func:`elo_table` fits the Bradley-Terry (Elo) model
``P(a beats b) = 1 / (1 + 10 ** ((elo_b - elo_a) / 400))`` by maximum
likelihood, with a weak prior of ``prior_draws`` virtual draws of every
player against an average opponent, so that a player who won (or lost)
every game still gets a finite rating.  The error is the half-width of a
95% confidence interval (1.96 standard deviations, from the curvature of
the likelihood), relative to the anchor: by default the ratings are shifted
so that their mean is 0; with ``anchor="name"`` that player is fixed at
``anchor_elo`` (and has error 0).

>>> results = [("club", "novice", 1.0)] * 7 + [("club", "novice", 0.0)] * 3
>>> table = elo_table(results, prior_draws=0.0001)
>>> [(r.name, round(r.elo), r.games, r.score) for r in table]
[('club', 74, 10, 7.0), ('novice', -74, 10, 3.0)]
>>> round(table[0].elo - table[1].elo) == round(elo_difference(0.7))
True
>>> table = elo_table(results, anchor="novice", prior_draws=0.0001)
>>> [(r.name, round(r.elo), round(r.error)) for r in table]
[('club', 147, 235), ('novice', 0, 0)]
>>> print(format_table(results, prior_draws=0.0001))
  # player   elo    +/-  games  score     %    club  novice
  1 club     +74    117     10    7.0  70.0       .  7.0/10
  2 novice   -74    117     10    3.0  30.0  3.0/10       .
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Rating",
    "cross_table",
    "elo_difference",
    "elo_table",
    "format_table",
]

#: Elo points per natural-log unit of odds: ``400 / ln 10``.
ELO_SCALE = 400.0 / math.log(10.0)
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054

Result = tuple[str, str, float]


@dataclass(frozen=True)
class Rating:
    """One player's line of :func:`elo_table`.

    ``elo`` relative to the anchor, ``error`` the 95% half-width (so the
    rating lies in ``elo +- error``), ``games`` played, ``score`` the points
    won (1 a win, 0.5 a draw).
    """

    name: str
    elo: float
    error: float
    games: int
    score: float

    @property
    def percent(self) -> float:
        """The score as a percentage of the games (0 with no games)."""
        return 100.0 * self.score / self.games if self.games else 0.0


def elo_difference(fraction: float) -> float:
    """The Elo difference that predicts a score ``fraction`` (0 < fraction < 1).

    >>> round(elo_difference(0.75))
    191
    >>> elo_difference(0.5)
    0.0
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(
            f"expected a score fraction strictly between 0 and 1, found {fraction}"
        )
    return -400.0 * math.log10(1.0 / fraction - 1.0) + 0.0


def _check(results: Iterable[Result]) -> list[Result]:
    out: list[Result] = []
    for i, item in enumerate(results):
        try:
            a, b, s = item
        except (TypeError, ValueError):
            raise ValueError(
                f"result {i}: expected (player_a, player_b, score_of_a), found {item!r}"
            ) from None
        if not isinstance(a, str) or not isinstance(b, str) or not a or not b:
            raise ValueError(
                f"result {i}: player names must be non-empty strings, found {item!r}"
            )
        if a == b:
            raise ValueError(f"result {i}: a player cannot play itself ({a!r})")
        if s not in (0, 0.5, 1):
            raise ValueError(f"result {i}: a score is 0, 0.5 or 1, found {s!r}")
        out.append((a, b, float(s)))
    return out


def _players(results: Sequence[Result], names: Iterable[str] = ()) -> list[str]:
    order: dict[str, None] = dict.fromkeys(names)
    for a, b, _ in results:
        order.setdefault(a)
        order.setdefault(b)
    return list(order)


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse of a small symmetric positive definite matrix."""
    n = len(matrix)
    a = [
        row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)
    ]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ArithmeticError("singular information matrix")
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def _fit(
    results: Sequence[Result], players: list[str], prior_draws: float
) -> tuple[list[float], list[list[float]]]:
    """Maximum a posteriori strengths (natural units) and their covariance."""
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    pairs = [(index[a], index[b], s) for a, b, s in results]
    x = [0.0] * n
    cov: list[list[float]] = [[0.0] * n for _ in range(n)]
    for _ in range(100):
        grad = [0.0] * n
        info = [[0.0] * n for _ in range(n)]
        for i in range(n):
            # the prior: prior_draws draws against an opponent of strength 0
            p = 1.0 / (1.0 + math.exp(-x[i]))
            grad[i] += prior_draws * (0.5 - p)
            info[i][i] += prior_draws * p * (1.0 - p)
        for i, j, s in pairs:
            p = 1.0 / (1.0 + math.exp(x[j] - x[i]))
            w = p * (1.0 - p)
            grad[i] += s - p
            grad[j] -= s - p
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
        cov = _invert(info)
        step = [sum(cov[i][k] * grad[k] for k in range(n)) for i in range(n)]
        # damp huge steps (players with near-perfect scores)
        biggest = max((abs(v) for v in step), default=0.0)
        if biggest > 2.0:
            step = [v * 2.0 / biggest for v in step]
        x = [xi + si for xi, si in zip(x, step, strict=True)]
        if biggest < 1e-10:
            break
    return x, cov


def elo_table(
    results: Iterable[Result],
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    prior_draws: float = 1.0,
    players: Iterable[str] = (),
) -> list[Rating]:
    """Ratings of every player in ``results``, best first.

    ``results`` are ``(player_a, player_b, score_of_a)`` tuples (scores 0,
    0.5, 1).  ``anchor=None`` centres the ratings on a mean of 0;
    ``anchor="name"`` fixes that player at ``anchor_elo``.  ``prior_draws``
    (> 0) is the weight of the prior that keeps perfect scores finite;
    make it small for pure maximum likelihood.  ``players`` lists names to
    include even without games (they rate 0 +- a wide error).  Ties in
    rating keep first-seen order.

    >>> [r.name for r in elo_table([("a", "b", 1), ("b", "c", 1), ("a", "c", 1)])]
    ['a', 'b', 'c']
    >>> elo_table([("a", "a", 1)])
    Traceback (most recent call last):
    ...
    ValueError: result 0: a player cannot play itself ('a')
    """
    if not prior_draws > 0:
        raise ValueError(f"prior_draws must be positive, found {prior_draws}")
    checked = _check(results)
    names = _players(checked, players)
    if anchor is not None and anchor not in names:
        raise ValueError(
            f"the anchor {anchor!r} is not one of the players ({', '.join(names)})"
        )
    if not names:
        return []
    x, cov = _fit(checked, names, prior_draws)
    n = len(names)
    games = dict.fromkeys(names, 0)
    score = dict.fromkeys(names, 0.0)
    for a, b, s in checked:
        games[a] += 1
        games[b] += 1
        score[a] += s
        score[b] += 1.0 - s
    if anchor is None:
        centre = sum(x) / n
        col_mean = [sum(cov[i][j] for j in range(n)) / n for i in range(n)]
        all_mean = sum(col_mean) / n
        var = [cov[i][i] - 2.0 * col_mean[i] + all_mean for i in range(n)]
        shift = -centre * ELO_SCALE
    else:
        k = names.index(anchor)
        var = [cov[i][i] + cov[k][k] - 2.0 * cov[i][k] for i in range(n)]
        shift = anchor_elo - x[k] * ELO_SCALE
    ratings = [
        Rating(
            name=names[i],
            elo=x[i] * ELO_SCALE + shift,
            error=Z95 * math.sqrt(max(var[i], 0.0)) * ELO_SCALE,
            games=games[names[i]],
            score=score[names[i]],
        )
        for i in range(n)
    ]
    order = sorted(range(n), key=lambda i: (-round(ratings[i].elo, 9), i))
    return [ratings[i] for i in order]


def cross_table(
    results: Iterable[Result], players: Sequence[str] | None = None
) -> dict[str, dict[str, tuple[float, int]]]:
    """Score and games of every player against every opponent.

    ``table[a][b] == (points a scored against b, games between them)``;
    pairs that never met are absent.

    >>> cross_table([("a", "b", 1), ("b", "a", 0.5)])
    {'a': {'b': (1.5, 2)}, 'b': {'a': (0.5, 2)}}
    """
    checked = _check(results)
    names = list(players) if players is not None else _players(checked)
    table: dict[str, dict[str, tuple[float, int]]] = {p: {} for p in names}
    for a, b, s in checked:
        for me, other, mine in ((a, b, s), (b, a, 1.0 - s)):
            if me in table:
                pts, n = table[me].get(other, (0.0, 0))
                table[me][other] = (pts + mine, n + 1)
    return table


def format_table(
    results: Iterable[Result],
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    prior_draws: float = 1.0,
    players: Iterable[str] = (),
) -> str:
    """A text table: rank, player, Elo, 95% error, games, score, % and the cross table.

    Players are in rating order, rows and columns alike; a cell is
    ``points/games`` of the row's player against the column's.
    """
    checked = _check(results)
    ratings = elo_table(checked, anchor, anchor_elo, prior_draws, players)
    names = [r.name for r in ratings]
    cross = cross_table(checked, names)
    width = max([6, *(len(n) for n in names)])

    def cell(a: str, b: str) -> str:
        if a == b:
            return "."
        if b not in cross[a]:
            return "-"
        pts, n = cross[a][b]
        return f"{pts:g}/{n}" if pts != int(pts) else f"{pts:.1f}/{n}"

    cells = [[cell(a, b) for b in names] for a in names]
    col_w = [
        max(len(names[j]), *(len(cells[i][j]) for i in range(len(names))))
        for j in range(len(names))
    ]
    head = f"{'#':>3} {'player':<{width}} {'elo':>5} {'+/-':>6} {'games':>6} {'score':>6} {'%':>5}"
    head += "".join(f"  {names[j]:>{col_w[j]}}" for j in range(len(names)))
    lines = [head.rstrip()]
    for i, r in enumerate(ratings):
        line = (
            f"{i + 1:>3} {r.name:<{width}} {round(r.elo):>+5d} {r.error:>6.0f} {r.games:>6}"
            f" {r.score:>6.1f} {r.percent:>5.1f}"
        )
        line += "".join(f"  {cells[i][j]:>{col_w[j]}}" for j in range(len(names)))
        lines.append(line.rstrip())
    return "\n".join(lines)
