"""Elo ratings with 95% error bars, likelihoods of superiority, cross tables and the SPRT.

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
``anchor_elo`` (and has error 0).  Each rating's ``los`` is its
likelihood of superiority over the next one, from the same fit.
:class:`SPRT` is the sequential probability ratio test of
``kamisado tournament --sprt`` (:func:`sprt_llr`: fishtest's generalized
log-likelihood ratio).

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
  # player   elo    +/-  games  score     %  los%    club  novice
  1 club     +74    117     10    7.0  70.0  89.0       .  7.0/10
  2 novice   -74    117     10    3.0  30.0     -  3.0/10       .
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

__all__ = [
    "SPRT",
    "Rating",
    "cross_table",
    "elo_difference",
    "elo_table",
    "expected_score",
    "format_table",
    "sprt_llr",
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
    los: float | None = None
    """The likelihood of superiority over the next player in the table (0..1;
    ``None`` for the last): ``Phi(d / sd(d))``, ``d`` the two ratings'
    difference and ``sd(d)`` its standard deviation from the same fit as the
    error bars."""

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
    out = []
    for at, i in enumerate(order):
        r = ratings[i]
        if at + 1 < len(order):
            j = order[at + 1]
            d = x[i] - x[j]
            var_d = cov[i][i] + cov[j][j] - 2.0 * cov[i][j]
            r = replace(r, los=_phi(d / math.sqrt(var_d)) if var_d > 0 else 0.5)
        out.append(r)
    return out


def _phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


# -- the sequential probability ratio test ---------------------------------------


#: Counts never seen are given this weight when a hypothesis needs them (fishtest's 1e-3).
SPRT_EPSILON = 1e-3


def expected_score(elo: float) -> float:
    """The score a player ``elo`` points stronger expects (logistic Elo).

    >>> expected_score(0.0), round(expected_score(100.0), 4)
    (0.5, 0.6401)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _constrained(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The distribution on ``pdf``'s scores with mean ``s`` closest (in likelihood) to ``pdf``.

    The maximum likelihood estimate under the constraint is
    ``p_i / (1 + x (a_i - s))`` with ``x`` the root of the secular equation
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (Van den Bergh,
    "support_MLE_multinomial", proposition 1.1), found by bisection: the
    left side falls from +inf to -inf on the interval where every
    denominator is positive.
    """
    lo = -1.0 / (max(a for a, _ in pdf) - s)
    hi = 1.0 / (s - min(a for a, _ in pdf))

    def f(x: float) -> float:
        return sum(p * (a - s) / (1.0 + x * (a - s)) for a, p in pdf)

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    return [p / (1.0 + x * (a - s)) for a, p in pdf]


def sprt_llr(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """The generalized log-likelihood ratio of ``elo1`` against ``elo0`` (logistic Elo).

    ``counts`` are trinomial, ``(losses, draws, wins)`` of games (scores 0,
    1/2, 1), or pentanomial, the five sums of game pairs with colours
    swapped (pair scores 0, 1/4, 1/2, 3/4, 1: LL, LD+DL, LW+DD+WL, DW+WD,
    WW), as fishtest's ``LLR_logistic``: the empirical distribution ``p``
    over the scores, the distributions ``p0`` and ``p1`` nearest to it whose
    means are ``expected_score(elo0)`` and ``expected_score(elo1)``, and
    ``LLR = N * sum p_i * ln(p1_i / p0_i)`` over the ``N`` games (or pairs).
    An outcome never seen is left out, except that the worst or best one
    gets the weight :data:`SPRT_EPSILON` when no seen outcome lies on that
    side of a hypothesis' mean (fishtest weights every unseen outcome so;
    Kamisado has no draws, which would then count as seen).  With wins and
    losses only this is the binomial ratio
    ``W ln(s1/s0) + L ln((1 - s1)/(1 - s0))``:

    >>> s0, s1 = expected_score(0), expected_score(50)
    >>> w, l = 30, 20
    >>> round(sprt_llr(0, 50, (l, 0, w)), 9) == round(
    ...     w * math.log(s1 / s0) + l * math.log((1 - s1) / (1 - s0)), 9)
    True
    >>> round(sprt_llr(0, 10, (100, 200, 120)), 4)
    0.7675
    """
    if len(counts) not in (3, 5):
        raise ValueError(
            f"expected 3 counts (losses, draws, wins) or 5 (game pairs), found {len(counts)}"
        )
    if any(c < 0 for c in counts):
        raise ValueError(f"counts cannot be negative, found {tuple(counts)}")
    if not elo0 < elo1:
        raise ValueError(f"expected elo0 < elo1, found elo0={elo0:g}, elo1={elo1:g}")
    n = sum(counts)
    if n == 0:
        return 0.0
    k = len(counts) - 1
    weights = {i / k: float(c) for i, c in enumerate(counts) if c > 0}
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if min(weights) >= min(s0, s1):
        weights[0.0] = SPRT_EPSILON
    if max(weights) <= max(s0, s1):
        weights[1.0] = SPRT_EPSILON
    total = sum(weights.values())
    pdf = sorted((a, w / total) for a, w in weights.items())
    p0, p1 = _constrained(pdf, s0), _constrained(pdf, s1)
    return float(
        total
        * sum(
            p * (math.log(q1) - math.log(q0))
            for (_, p), q0, q1 in zip(pdf, p0, p1, strict=True)
        )
    )


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test: H0 ``elo <= elo0`` against H1 ``elo >= elo1``.

    ``alpha`` and ``beta`` are the error rates (a false H1, a false H0): the
    test accepts H1 when the LLR (:func:`sprt_llr`) reaches
    ``ln((1 - beta) / alpha)`` and H0 when it falls to ``ln(beta / (1 - alpha))``.

    >>> t = SPRT.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05")
    >>> round(t.lower, 2), round(t.upper, 2)
    (-2.94, 2.94)
    >>> t.verdict(3.0), t.verdict(-3.0), t.verdict(0.0)
    ('H1', 'H0', None)
    >>> t.line(1.47)
    'SPRT: llr 1.47 (49.9%), lbound -2.94, ubound 2.94'
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not math.isfinite(value):
                raise ValueError(f"--sprt: {name} must be a finite number, found {value}")
        if not self.elo0 < self.elo1:
            raise ValueError(
                f"--sprt: expected elo0 < elo1, found elo0={self.elo0:g}, elo1={self.elo1:g}"
            )
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"--sprt: {name} must lie strictly between 0 and 1, found {value:g}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(
                f"--sprt: alpha + beta must be less than 1, found {self.alpha + self.beta:g}"
            )

    @classmethod
    def parse(cls, text: str) -> SPRT:
        """Read ``elo0=E0 elo1=E1 [alpha=A] [beta=B]`` (cutechess-cli's ``-sprt``).

        >>> SPRT.parse("elo0=-5 elo1=5")
        SPRT(elo0=-5.0, elo1=5.0, alpha=0.05, beta=0.05)
        >>> SPRT.parse("elo0=0 elo2=5")
        Traceback (most recent call last):
        ...
        ValueError: --sprt: expected elo0=E0 elo1=E1 [alpha=A] [beta=B], found 'elo2=5'
        """
        values: dict[str, float] = {}
        for word in text.split():
            key, sep, value = word.partition("=")
            if not sep or key not in ("elo0", "elo1", "alpha", "beta") or key in values:
                raise ValueError(
                    f"--sprt: expected elo0=E0 elo1=E1 [alpha=A] [beta=B], found {word!r}"
                )
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"--sprt: {key} must be a number, found {value!r}") from None
        missing = [k for k in ("elo0", "elo1") if k not in values]
        if missing:
            raise ValueError(f"--sprt: {' and '.join(missing)} missing (elo0=E0 elo1=E1)")
        return cls(**values)

    def __str__(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"

    @property
    def lower(self) -> float:
        """The bound at or under which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The bound at or over which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """:func:`sprt_llr` for this test's hypotheses."""
        return sprt_llr(self.elo0, self.elo1, counts)

    def verdict(self, llr: float) -> str | None:
        """``'H1'`` or ``'H0'`` once accepted, else ``None`` (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def line(self, llr: float) -> str:
        """The status line, as cutechess-cli prints it (the LLR as a share of its bound)."""
        share = 100.0 * llr / (self.upper if llr >= 0 else -self.lower)
        text = f"SPRT: llr {llr:.2f} ({share:.1f}%), lbound {self.lower:.2f}, ubound {self.upper:.2f}"
        verdict = self.verdict(llr)
        if verdict is not None:
            text += f" - {verdict} was accepted"
        return text


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
    """A text table: rank, player, Elo, 95% error, games, score, %, LOS and the cross table.

    Players are in rating order, rows and columns alike; ``los%`` is the
    likelihood of superiority over the next row (:attr:`Rating.los`); a
    cell is ``points/games`` of the row's player against the column's.
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
    head = (
        f"{'#':>3} {'player':<{width}} {'elo':>5} {'+/-':>6} {'games':>6} {'score':>6}"
        f" {'%':>5} {'los%':>5}"
    )
    head += "".join(f"  {names[j]:>{col_w[j]}}" for j in range(len(names)))
    lines = [head.rstrip()]
    for i, r in enumerate(ratings):
        line = (
            f"{i + 1:>3} {r.name:<{width}} {round(r.elo):>+5d} {r.error:>6.0f} {r.games:>6}"
            f" {r.score:>6.1f} {r.percent:>5.1f}"
            f" {'-' if r.los is None else f'{100 * r.los:.1f}':>5}"
        )
        line += "".join(f"  {cells[i][j]:>{col_w[j]}}" for j in range(len(names)))
        lines.append(line.rstrip())
    return "\n".join(lines)
