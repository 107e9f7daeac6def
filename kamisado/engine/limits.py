"""One :class:`Limit` and one :class:`Score` for every engine interface.

The engine API (:func:`kamisado.engine.search`, :func:`kamisado.engine.solve`),
KEI on both sides (:mod:`kamisado.protocol.kei`, :mod:`kamisado.protocol.client`), the
tournament, the command line and the web worker all say how long to think
with a :class:`Limit` and read a result with a :class:`Score`, as
python-chess does with ``chess.engine.Limit`` and ``Score``.  This module
needs neither the engine core nor a running engine.

>>> Limit(time=0.2, depth=6).go_command()
'go movetime 200 depth 6'
>>> s = Score.from_raw(WIN_BASE + 256 * 15 - 7)
>>> s, str(s), s.describe(), s.moves, s.match_won
(Score(kind='win', value=7), 'win 7', 'win in 7', 7, True)
>>> str(Score.from_raw(-25)), Score.from_raw(-25).describe()
('cp -25', '-25')
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MATCH_TIER", "SCORE_KINDS", "WIN_BASE", "Limit", "Score"]

#: Search scores above ``WIN_BASE`` (below ``-WIN_BASE``) are proven results:
#: a won round scores ``WIN_BASE + 256 * tier - ply`` (the compiled core's
#: ``WIN_BASE``; a test checks that they agree).
WIN_BASE = 20000
#: The tier of a proven round that wins the match (below it: the round's points).
MATCH_TIER = 15
#: The kinds of a :class:`Score`, as KEI writes them: an evaluation, a proven result.
SCORE_KINDS = ("cp", "win", "loss")


@dataclass(frozen=True)
class Limit:
    """How long an engine may think: ``time`` (seconds per move), ``depth``, ``nodes``.

    With no limit at all a KEI engine plays at its own level (plain ``go``).
    ``infinite`` searches until stopped (for :meth:`kamisado.protocol.client.KeiEngine.play`
    with ``stop_after``, ``go infinite``, or a search stopped by its
    ``on_iteration`` callback).  ``depth`` is the search depth, or for the
    solver the horizon in moves.  ``win`` asks for a win of the side to move
    within that many moves (moves of both sides, as ``score win N`` counts
    them): KEI's ``go win N``, UCI's ``go mate`` and python-chess's
    ``Limit(mate=)``.  Each backend checks its own ranges (the engine's
    ``MAX_DEPTH``, KEI's ``go``).

    >>> Limit().go_command(), Limit(infinite=True).any, Limit().any
    ('go', True, False)
    >>> Limit(win=5, time=1).go_command()
    'go movetime 1000 win 5'
    >>> Limit(time=0.009).movetime
    9
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    win: int | None = None

    def __post_init__(self) -> None:
        if self.time is not None and not self.time > 0:
            raise ValueError(f"Limit.time must be positive, found {self.time}")
        for name in ("depth", "nodes", "win"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(
                    f"Limit.{name} must be a whole number from 1, found {value!r}"
                )

    @property
    def any(self) -> bool:
        """Whether any limit (or ``infinite``) was given."""
        return self.infinite or any(
            v is not None for v in (self.time, self.depth, self.nodes, self.win)
        )

    @property
    def movetime(self) -> int | None:
        """``time`` in whole milliseconds (at least 1), as KEI's ``go movetime``."""
        return None if self.time is None else max(1, round(self.time * 1000))

    def go_command(self) -> str:
        """The KEI ``go`` line for these limits."""
        words = ["go"]
        if self.time is not None:
            words += ["movetime", str(self.movetime)]
        if self.depth is not None:
            words += ["depth", str(self.depth)]
        if self.nodes is not None:
            words += ["nodes", str(self.nodes)]
        if self.win is not None:
            words += ["win", str(self.win)]
        if self.infinite:
            words.append("infinite")
        return " ".join(words)


@dataclass(frozen=True)
class Score:
    """A score for the side to move: ``cp`` (an evaluation), ``win``/``loss`` in N moves.

    ``value`` is the evaluation for ``cp``, else the moves to the end of the
    round.  ``tier`` is known to the engine only (KEI does not carry it): for
    a proven result, :data:`MATCH_TIER` when the round wins the match, else
    the points the round carries; it takes no part in equality.
    :meth:`from_raw` reads the engine's integer scores; ``str()`` is the KEI
    form (``info ... score cp 14``), :meth:`describe` the form people read.

    >>> Score("win", 3).is_proven, str(Score("cp", -40)), Score("cp", 35).describe()
    (True, 'cp -40', '+35')
    """

    kind: str
    value: int
    tier: int | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: int) -> Score:
        """The score of an integer search score (:attr:`kamisado.engine.SearchResult.score`).

        >>> Score.from_raw(WIN_BASE + 256 * 2 - 5).tier, Score.from_raw(-WIN_BASE - 250)
        (2, Score(kind='loss', value=6))
        """
        a = abs(raw)
        if a <= WIN_BASE:
            return cls("cp", raw)
        over = a - WIN_BASE
        tier = (over + 255) // 256
        return cls("win" if raw > 0 else "loss", 256 * tier - over, tier)

    @property
    def is_proven(self) -> bool:
        """Whether the engine proved the round's result."""
        return self.kind in ("win", "loss")

    @property
    def moves(self) -> int | None:
        """The moves to the end of the round of a proven result, else ``None``."""
        return self.value if self.is_proven else None

    @property
    def match_won(self) -> bool | None:
        """Whether the proven round ends the match (``None``: not known)."""
        return None if self.tier is None else self.tier == MATCH_TIER

    def describe(self) -> str:
        """The score as people read it: ``+35``, ``win in 7`` or ``loss in 4``."""
        if self.is_proven:
            return f"{self.kind} in {self.value}"
        return f"{self.value:+d}"

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"
