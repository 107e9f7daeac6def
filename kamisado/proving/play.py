"""Playing from the match proof: what the store's proofs say about a position.

:class:`ProofOracle` answers the engine's :class:`~kamisado.engine.levels.MatchOracle`
from a :class:`~kamisado.proving.store.ProofStore`: the plans of the proven
round starts of a match (``{position KPN: entry}``, read once per target)
say, for every position they reach, who wins the match from there and what
the winner plays.  ``perfect`` given one (``player("perfect", proof=...)``)

* as the proof's winner plays the plan's move and the plan's fill: the
  match won as the proof wins it (at a ``points`` leaf, the points
  solver's move where it finds one within the proof's node limit, else
  ``perfect``'s own solver play, which keeps a proven round's points);
* as the proof's loser plays the reply that keeps the match going longest
  by what the store holds: a reply the store does not prove lost first
  (the proof cannot cover it: the winner may go wrong there), else the one
  whose longest line through the proof (the winner following its plan, the
  loser every reply) plays the most rounds, then the most moves of this
  round; a tie goes to the first move in square form, but where every
  reply lasts as long ``perfect`` plays as without the store (the fewest
  points conceded, then the longest resistance, by the solver).  The same
  for the loser's fill.

>>> from kamisado.proving.rounds import prove_start
>>> from kamisado.rules.position import Position
>>> s = ProofStore(":memory:")
>>> start = "ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"
>>> s.put(prove_start(start, {}), 3)
True
>>> o = ProofOracle(s)
>>> o.winner(Position(start)), o.winner(Position())
(1, None)
>>> print(o.move(Position()))  # not covered: perfect plays as without the store
None
"""

from __future__ import annotations

from dataclasses import dataclass

from kamisado import engine
from kamisado.proving.rounds import SOLVER_NODES, Entry, after_round, decides
from kamisado.proving.store import ProofStore
from kamisado.rules.board import Move
from kamisado.rules.match import FILLS
from kamisado.rules.position import Position

__all__ = ["MatchVerdict", "ProofOracle", "judge", "open_oracle"]


@dataclass(frozen=True)
class _Hit:
    """A position a proven start's plan reaches: the match's winner there and its entry."""

    winner: int
    entry: Entry


#: How long the match lasts from a position along the proof's longest line:
#: (escapes, rounds, moves).  ``escapes`` is 1 where the store does not
#: prove the position lost for the loser (it leaves the proof).
Span = tuple[int, int, int]


class ProofOracle:
    """The proofs of ``store`` as a :class:`~kamisado.engine.levels.MatchOracle`.

    The plans of a match's target are read at its first question and kept
    (about the store's text size in memory); starts proven later are not
    seen (a new oracle sees them)."""

    def __init__(self, store: ProofStore) -> None:
        self.store = store
        self._index: dict[int, dict[str, _Hit]] = {}
        self._starts: dict[int, dict[str, int]] = {}
        self._spans: dict[tuple[str, int], Span] = {}

    def _load(self, target: int) -> dict[str, _Hit]:
        if target not in self._index:
            index: dict[str, _Hit] = {}
            starts: dict[str, int] = {}
            for proven in self.store.proofs(target):
                starts[Position(proven.start).kpn()] = proven.winner
                for key, entry in proven.plan.items():
                    index.setdefault(key, _Hit(proven.winner, entry))
            self._index[target], self._starts[target] = index, starts
        return self._index[target]

    def _hit(self, pos: Position) -> _Hit | None:
        return self._load(pos.target).get(pos.kpn())

    def start_winner(self, kpn: str) -> int | None:
        """The proven winner of the round start ``kpn``, or ``None``."""
        p = Position(kpn)
        self._load(p.target)
        return self._starts[p.target].get(p.kpn())

    def winner(self, pos: Position) -> int | None:
        """Who wins the match from ``pos`` by the store, or ``None`` (not covered)."""
        if pos.outcome is not None:
            over, w, nxt = after_round(pos)
            if over is not None:
                return over
            values = [self.start_winner(s) for s in nxt.values()]
            if w in values:
                return w
            return w ^ 1 if all(v == w ^ 1 for v in values) else None
        hit = self._hit(pos)
        if hit is not None:
            return hit.winner
        return self.start_winner(pos.kpn())

    def move(self, pos: Position) -> Move | None:
        """The proof's move for its winner; the longest-lasting reply for its loser."""
        if pos.outcome is not None:
            return None
        hit = self._hit(pos)
        if hit is None:
            return None
        if pos.turn != hit.winner:
            if "points" in hit.entry:
                return None  # the solver's leaf: perfect's own play concedes least
            spans = [(self._span_after(pos, mv, pos.turn), str(mv), mv) for mv in pos.legal_moves]
            best = max(s for s, _, _ in spans)
            if len(spans) > 1 and all(s == best for s, _, _ in spans):
                return None  # the store tells them apart nowhere: perfect's own play
            return min((text, mv) for s, text, mv in spans if s == best)[1]
        if "move" in hit.entry:
            return pos.parse_move(str(hit.entry["move"]))
        if "points" in hit.entry:
            r = engine.solve_points(pos, node_limit=SOLVER_NODES)
            if decides(pos, r.low, r.high) == hit.winner and r.best_move is not None:
                return r.best_move
        return None

    def fill(self, end: Position) -> str | None:
        """The proof's fill for the match's winner; the longest-lasting for its loser."""
        if end.outcome is None:
            return None
        over, w, nxt = after_round(end)
        if over is not None:
            return None
        hit = self._hit(end)
        if hit is not None and hit.winner == w and "fill" in hit.entry:
            return str(hit.entry["fill"])
        values = {d: self.start_winner(s) for d, s in nxt.items()}
        won = [d for d in FILLS if values[d] == w]
        if won:
            return won[0]
        unknown = [d for d in FILLS if values[d] is None]
        if unknown:  # one not proven lost: the hope; two: perfect's own choice
            return unknown[0] if len(unknown) == 1 else None
        return max(FILLS, key=lambda d: (self._start_rounds(nxt[d]), -FILLS.index(d)))

    def _span_after(self, pos: Position, mv: Move, loser: int) -> Span:
        q = pos.copy(stack=False)
        q.push(mv)
        return self._span(q, loser)

    def _span(self, q: Position, loser: int) -> Span:
        """How long the match lasts from ``q`` for ``loser`` along the proof."""
        key = (q.kpn(), loser)
        if key in self._spans:
            return self._spans[key]
        span: Span
        if q.outcome is not None:
            span = self._end_span(q, loser)
        else:
            hit = self._hit(q)
            if hit is None or hit.winner == loser:
                span = (1, 0, 0)
            elif "points" in hit.entry:
                span = (0, 0, 0)  # the solver settles the match in this round
            elif "move" in hit.entry:
                _, r, n = self._span_after(q, q.parse_move(str(hit.entry["move"])), loser)
                span = (0, r, n + 1)
            else:
                e, r, n = max(self._span_after(q, mv, loser) for mv in q.legal_moves)
                span = (e, r, n + 1)
        self._spans[key] = span
        return span

    def _end_span(self, end: Position, loser: int) -> Span:
        """The span at a round's end: 1 + the rounds of the next start."""
        over, w, nxt = after_round(end)
        if over is not None:
            return (1 if over == loser else 0, 0, 0)
        if w != loser:  # the match's winner fills, as :meth:`fill` does
            fill = self.fill(end)
            if fill is None or self.start_winner(nxt[fill]) != w:
                return (1, 0, 0)
            return (0, 1 + self._start_rounds(nxt[fill]), 0)
        if any(self.start_winner(s) != w ^ 1 for s in nxt.values()):
            return (1, 0, 0)
        return (0, 1 + max(self._start_rounds(s) for s in nxt.values()), 0)

    def _start_rounds(self, start: str) -> int:
        """The most rounds after this one the proof of ``start`` lets its loser play."""
        w = self.start_winner(start)
        return 0 if w is None else self._span(Position(start), w ^ 1)[1]


@dataclass(frozen=True)
class MatchVerdict:
    """What the match proof says about one move of a game: the side that
    wins the match before it and after it (``None``: not proven), and
    whether the mover threw away a proven match win."""

    before: int | None
    after: int | None
    mover: int

    @property
    def thrown(self) -> bool:
        """The mover's match was proven won before the move and lost after it."""
        return self.before == self.mover and self.after == self.mover ^ 1


def judge(oracle: ProofOracle, before: str, move: str, nodes: int = SOLVER_NODES) -> MatchVerdict | None:
    """The match proof's word on ``move`` played in the position ``before``
    (KPN), or ``None`` where the store covers neither side of it.  After a
    proven win the position after the move is also put to the points
    solver (``nodes`` nodes): a move off the plan leaves the store, and the
    solver may still prove the match lost there.

    >>> from kamisado.rules.position import Position
    >>> print(judge(ProofOracle(ProofStore(":memory:")), Position().kpn(), "a1-a2"))
    None
    """
    p = Position(before)
    q = p.copy(stack=False)
    q.push_move(move)
    was, now = oracle.winner(p), oracle.winner(q)
    if was is None and now is None:
        return None
    if was is not None and now is None and q.outcome is None:
        r = engine.solve_points(q, node_limit=nodes)
        now = decides(q, r.low, r.high)
    return MatchVerdict(was, now, p.turn)


def open_oracle(where: str) -> ProofOracle:
    """The oracle of the match proof store at ``where`` (a SQLite file or a
    ``postgresql://`` URL), which must be there: a missing file or table,
    or a database that cannot be reached, raises ``ValueError`` and nothing
    is made.

    >>> open_oracle("/nowhere/proof.sqlite")
    Traceback (most recent call last):
    ...
    ValueError: no match proof store at /nowhere/proof.sqlite: no such file
    """
    return ProofOracle(ProofStore(where, create=False))
