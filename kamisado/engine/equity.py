"""Match equity: the chance to win a match from the start of a round.

A match is won by points, not rounds, so the value of a round's end is the
chance to win the match from there.  :func:`match_equity` gives Black's
chance at the start of a round from the score, the target, the rings on
each side's towers and who opens the round; :func:`equity_of` reads those
from a :class:`~kamisado.rules.match.Match` between rounds.

The chance comes from a small model of one round, measured from self-play
(``tools/make_equity.py`` writes ``kamisado/data/equity.json``):

* the chance that the opener wins the round, by the difference between the
  opener's rings and the other side's (a Sumo tower reaches less far, but
  pushes: rings change who wins), measured on the rounds after the first
  (the regrouped starts, where the winner chose the fill against the opener);
* the rings the winning tower had (so the points the win brings: 1, 2, 4 or
  8), by the winner's total rings.

An exact dynamic programme over the rounds to come then gives the chance to
reach the target first: the winner of a round gains the points, its tower a
ring (up to a Triple), and the loser opens the next round.  Last, that chance
is tempered (its logit scaled by ``temper``, fitted to who won the matches),
which keeps it symmetric and monotone.

>>> round(match_equity((0, 0), 3, (0, 0), 0) + match_equity((0, 0), 3, (0, 0), 1), 6)
1.0
>>> match_equity((3, 1), 3, (2, 1), 1), match_equity((0, 7), 7, (0, 4), 0)
(1.0, 0.0)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from kamisado.rules.board import BLACK, GOLD, RING_POINTS
from kamisado.rules.match import FILL, OVER, Match

__all__ = [
    "EquityModel",
    "equity_of",
    "load_model",
    "match_equity",
    "rings_of",
    "temper",
]

#: Ring differences beyond this are treated as this (few rounds are played there).
MAX_RING_DIFF = 4
#: Total rings of a side beyond this are treated as this for the points a win brings.
MAX_RINGS = 10


@dataclass(frozen=True)
class EquityModel:
    """The model of one round behind :func:`match_equity`.

    ``opener_win[d + MAX_RING_DIFF]`` is the chance that the side that opens
    a round wins it when it has ``d`` rings more than the other side;
    ``win_rings[r][k]`` is the chance that a round won by a side with ``r``
    rings in all (``r`` up to ``MAX_RINGS``) is won by a tower with ``k``
    rings (worth ``RING_POINTS[k]`` points).

    >>> m = EquityModel.provisional()
    >>> len(m.opener_win), len(m.win_rings), m.win_rings[0]
    (9, 11, (1.0, 0.0, 0.0, 0.0))
    """

    opener_win: tuple[float, ...]
    win_rings: tuple[tuple[float, float, float, float], ...]
    source: str = "provisional"
    temper: float = 1.0
    """The chance the rounds' model gives is tempered on the logit scale by
    this factor (below 1: less sure), fitted to the matches' results."""

    @staticmethod
    def provisional() -> EquityModel:
        """A model written by hand: a small edge for the opener and for rings;
        a Sumo wins more rounds the more of them a side has."""
        opener = tuple(
            1 / (1 + math.exp(-(0.1 + 0.25 * d)))
            for d in range(-MAX_RING_DIFF, MAX_RING_DIFF + 1)
        )
        rows: list[tuple[float, float, float, float]] = []
        for r in range(MAX_RINGS + 1):
            ringed = r / (r + 3)  # chance the winning tower carries rings
            double = ringed * 0.25 if r >= 3 else 0.0
            rows.append((1 - ringed, ringed - double, double, 0.0))
        return EquityModel(opener, tuple(rows))

    def opener_wins(self, opener_rings: int, other_rings: int) -> float:
        """The chance that the opener wins the round."""
        d = max(-MAX_RING_DIFF, min(MAX_RING_DIFF, opener_rings - other_rings))
        return self.opener_win[d + MAX_RING_DIFF]

    def ring_chances(self, rings: int) -> tuple[float, float, float, float]:
        """Chances that a win by a side with ``rings`` rings is by a tower with 0-3 rings."""
        return self.win_rings[max(0, min(MAX_RINGS, rings))]


def _validate(data: dict[str, object]) -> EquityModel:
    opener = data["opener_win"]
    rows = data["win_rings"]
    assert isinstance(opener, list) and len(opener) == 2 * MAX_RING_DIFF + 1
    assert isinstance(rows, list) and len(rows) == MAX_RINGS + 1
    win_rings = []
    for row in rows:
        assert isinstance(row, list) and len(row) == 4
        total = sum(float(x) for x in row)
        win_rings.append(
            (float(row[0]) / total, float(row[1]) / total,
             float(row[2]) / total, float(row[3]) / total)
        )
    temper = data.get("temper", 1.0)
    assert isinstance(temper, int | float) and temper > 0
    return EquityModel(
        tuple(float(x) for x in opener), tuple(win_rings), str(data.get("source", "measured")),
        float(temper),
    )


@lru_cache(maxsize=1)
def load_model() -> EquityModel:
    """The measured model from ``kamisado/data/equity.json`` (the provisional
    one when the file is missing).

    >>> len(load_model().opener_win)
    9
    """
    try:
        text = resources.files("kamisado").joinpath("data/equity.json").read_text("utf-8")
    except (FileNotFoundError, OSError):
        return EquityModel.provisional()
    return _validate(json.loads(text))


@lru_cache(maxsize=16)
def _solver(model: EquityModel, target: int) -> _Equity:
    return _Equity(model, target)


class _Equity:
    """The dynamic programme for one model and target (memoised)."""

    def __init__(self, model: EquityModel, target: int) -> None:
        self.model = model
        self.target = target
        self.memo: dict[tuple[int, int, int, int, int], float] = {}

    def value(self, pb: int, pg: int, rb: int, rg: int, opener: int) -> float:
        """Black's chance to win the match from the start of a round."""
        if pb >= self.target:
            return 1.0
        if pg >= self.target:
            return 0.0
        key = (pb, pg, rb, rg, opener)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        rings = (rb, rg)
        p_open = self.model.opener_wins(rings[opener], rings[opener ^ 1])
        total = 0.0
        for winner, chance in ((opener, p_open), (opener ^ 1, 1.0 - p_open)):
            if chance <= 0.0:
                continue
            for k, pk in enumerate(self.model.ring_chances(rings[winner])):
                if pk <= 0.0:
                    continue
                pts = [pb, pg]
                pts[winner] += RING_POINTS[k]
                rr = [rb, rg]
                if k < 3:
                    rr[winner] += 1
                total += chance * pk * self.value(pts[0], pts[1], rr[0], rr[1], winner ^ 1)
        self.memo[key] = total
        return total


def match_equity(
    points: tuple[int, int],
    target: int,
    rings: tuple[int, int],
    opener: int,
    model: EquityModel | None = None,
) -> float:
    """Black's chance (0 to 1) to win the match at the start of a round.

    ``points`` are (Black's, Gold's), ``rings`` the total rings on each side's
    towers (a plain tower 0, Sumo 1, Double 2, Triple 3), ``opener`` the
    side that moves first in the round (0 Black, 1 Gold).  Once a side has
    ``target`` points the match is over: 1.0 or 0.0.  ``model`` defaults to
    the measured one (:func:`load_model`).

    >>> match_equity((2, 0), 3, (1, 0), 1) > match_equity((1, 0), 3, (1, 0), 1)
    True
    >>> a = match_equity((1, 4), 7, (1, 3), 0)
    >>> b = match_equity((4, 1), 7, (3, 1), 1)
    >>> abs(a + b - 1) < 1e-9
    True
    """
    if target < 1:
        raise ValueError(f"expected a positive target, found {target}")
    if opener not in (BLACK, GOLD):
        raise ValueError(f"expected an opener 0 (Black) or 1 (Gold), found {opener}")
    pb, pg = points
    rb, rg = rings
    if pb >= target:
        return 1.0
    if pg >= target:
        return 0.0
    model = model or load_model()
    p = _solver(model, target).value(pb, pg, max(0, rb), max(0, rg), opener)
    return temper(p, model.temper)


def temper(p: float, factor: float) -> float:
    """``p`` with its logit multiplied by ``factor`` (0 and 1 stay as they are).

    >>> temper(0.5, 0.8), round(temper(0.9, 1.0), 9), temper(1.0, 0.8)
    (0.5, 0.9, 1.0)
    >>> round(temper(0.9, 0.5), 4)
    0.75
    """
    if p <= 0.0 or p >= 1.0 or factor == 1.0:
        return p
    z = factor * math.log(p / (1.0 - p))
    return 1.0 / (1.0 + math.exp(-z))


def rings_of(rings: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """Total rings of Black's towers and of Gold's, from ``Position.rings``.

    >>> rings_of([1, 0, 2, 0, 0, 0, 0, 0] + [0] * 7 + [3])
    (3, 3)
    """
    return sum(rings[:8]), sum(rings[8:16])


def equity_of(match: Match, side: int) -> float:
    """``side``'s chance to win ``match`` (0 Black, 1 Gold).

    Between rounds (state ``'fill'``) it is the chance at the start of the
    next round, with the ring the round's winner gains and the loser to
    open; while a round is played, the chance at the start of that round
    (its moves are not weighed); once the match is over, 1.0 or 0.0.

    >>> m = Match(3)
    >>> round(equity_of(m, 0) + equity_of(m, 1), 9)
    1.0
    """
    if match.state == OVER:
        return 1.0 if match.winner == side else 0.0
    pts = (match.points[0], match.points[1])
    if match.state == FILL:
        end = match.position
        outcome = end.outcome
        assert outcome is not None
        rings = end.rings[:]
        ringed = outcome.winner * 8 + outcome.colour
        rings[ringed] = min(3, rings[ringed] + 1)
        opener = outcome.winner ^ 1
    else:
        start = match.current.start
        rings = start.rings[:]
        opener = start.turn
    if match.series:
        # a series: one point a round, rings play no part (the first move
        # alternates there; taking the loser as the opener is near enough)
        model = load_model()
        flat = EquityModel(model.opener_win, ((1.0, 0.0, 0.0, 0.0),) * (MAX_RINGS + 1),
                           model.source, model.temper)
        black = match_equity(pts, match.target, (0, 0), opener, flat)
    else:
        black = match_equity(pts, match.target, rings_of(rings), opener)
    return black if side == BLACK else 1.0 - black
