"""One node of the match proof: a round start, and the search through its round.

A round start is a :class:`~kamisado.rules.position.Position` at the start
of a round of a match: the board after the winner's fill, the score, the
towers' rings and who opens, all written in its KPN, which is the node's
canonical text.  Its value is the side that wins the match from it.

:func:`prove_start` searches the round from a start as an AND/OR tree over
the round's positions whose leaves are

* positions that the single-round points solver settles for the match
  (:func:`engine.solve_points <kamisado.engine.solve_points>`: the side to
  move forces a round worth at least the points it still needs, or the
  opponent does); most rounds need only this, at their start;
* the round's ends: the match is over, or the round's winner fills
  (``left``/``right``) and the next round starts, a child node whose value
  comes from ``known`` (the proven starts) or is open.

It answers the start's value with its proof (a plan: the move at each of
the winner's positions, "every reply" at the loser's, the solver leaves,
the winner's fills) and the child starts the proof uses, or, when it cannot
settle the start, the open child starts of one candidate proof for the side
the openers' pattern favours (:func:`predicted`).

>>> from kamisado.rules.position import Position
>>> r = prove_start("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2", {})
>>> r.winner, r.needs, r.plan["ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"]
(1, [], {'points': True})
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from kamisado import engine
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position

__all__ = [
    "POSITIONS",
    "SOLVER_NODES",
    "Entry",
    "StartResult",
    "after_round",
    "decides",
    "need",
    "predicted",
    "prove_start",
]

#: Round positions one task expands by default before it reports what is open.
POSITIONS = 2000
#: The points solver's node limit at each expanded position.
SOLVER_NODES = 200_000
#: The round solver's (df-pn) node limit for the prover's winning move.
WIN_NODES = 50_000

#: One entry of a plan: ``{"points": True}`` (the solver settles it),
#: ``{"move": "a1-a5"}`` (the winner's move), ``{"all": True}`` (every
#: reply of the loser), ``{"fill": "left"}`` (the round's end, the
#: winner's fill).
Entry = dict[str, object]


@dataclass
class StartResult:
    """What a task found out about one round start.

    ``winner`` is the side that wins the match from ``start`` (0 Black,
    1 Gold) or ``None``; with a winner, ``plan`` is its proof (entries keyed
    by the KPN of each round position the proof reaches) and ``needs`` the
    child starts it relies on, all won by ``winner``; without, ``open`` lists
    the child starts of the candidate proof for ``side`` (the side the
    search set out to prove: the openers' pattern's winner, :func:`predicted`)
    whose values would close it.  ``positions``, ``nodes`` and
    ``seconds`` (CPU time of the task's thread) say what it cost.
    """

    start: str
    winner: int | None
    plan: dict[str, Entry] = field(default_factory=dict)
    needs: list[str] = field(default_factory=list)
    open: list[str] = field(default_factory=list)
    positions: int = 0
    nodes: int = 0
    seconds: float = 0.0
    exhausted: bool = False
    side: int | None = None
    settled: dict[str, int] = field(default_factory=dict)


def need(pos: Position, side: int) -> int:
    """Points ``side`` still needs to win the match.

    >>> need(Position("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"), 0)
    1
    """
    return pos.target - pos.points[side]


def decides(pos: Position, low: int, high: int) -> int | None:
    """The side that wins the match inside this round, by the points solver's
    bounds ``low``..``high`` on the round's value to the side to move, or
    ``None``.

    >>> decides(Position("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"), 1, 1)
    1
    >>> print(decides(Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0"), 1, 1))
    None
    """
    mover = pos.turn
    if low > 0 and low >= need(pos, mover):
        return mover
    if high < 0 and -high >= need(pos, mover ^ 1):
        return mover ^ 1
    return None


def predicted(pos: Position, low: int, high: int) -> int:
    """The side the openers' pattern says wins the match from the round
    start ``pos``: the round goes to its likely winner by the points
    solver's bounds ``low``..``high`` (to the opener), by the points they
    prove (at least one), and every later round to its opener (the round's
    loser) by one point, as every Standard and Long start measured goes.

    >>> predicted(Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0"), 1, 1)
    0
    >>> predicted(Position("r+buyn+gpo/8/8/8/8/8/8/GR+YNBPUO b - 3 1 2"), 1, 1)
    1
    >>> predicted(Position("r+buyn+gpo/8/8/8/8/8/8/GR+YNBPUO b - 3 1 2"), 2, 2)
    0
    """
    points = list(pos.points)
    w = pos.turn if low > 0 or high >= 0 else pos.turn ^ 1
    gain = max(1, low if w == pos.turn else -high)
    while True:
        points[w] += gain
        if points[w] >= pos.target:
            return w
        w, gain = w ^ 1, 1


def after_round(end: Position) -> tuple[int | None, int, dict[str, str]]:
    """For a finished round: the match's winner when the round ends the
    match (else ``None``), the round's winner, and the next round's start
    (KPN) after each fill (empty when the match is over).

    >>> p = Position("2u5/8/2Y1y3/1b4Un/6g1/N1p2rB1/6O1/1GRoP3 b y 3 0 0")
    >>> over, winner, nxt = after_round(p)
    >>> over, winner, nxt["left"]
    (None, 1, 'o+prgbnyu/8/8/8/8/8/8/GRPONBUY b - 3 0 1')
    """
    o = end.outcome
    if o is None:
        raise ValueError(f"the round is not over: {end.kpn()}")
    if end.points[o.winner] + o.points >= end.target:
        return o.winner, o.winner, {}
    m = Match(end.target, start=end)
    return None, o.winner, {d: m.next_round_start(d).kpn() for d in FILLS}


#: What a search below a position found: proven (``True``), refuted
#: (``False``) or open (``None``), and the open child starts of its
#: candidate proof (empty unless open).
Found = tuple[bool | None, tuple[str, ...]]


class _Search:
    """The AND/OR search through one round for "``side`` wins the match"
    (see :func:`prove_start`): ``True`` proven, ``False`` refuted (the other
    side wins), ``None`` open.  An open position comes with the open child
    starts of one *candidate* proof: at ``side``'s positions those of the
    first move that is not refuted (the solver's best first; the moves
    after it are not searched), at the other side's those of every reply
    that is not proven.  Proving them all proves the position; so their
    number is its proof number, and a start whose candidate fails (one of
    them is won by the other side) is searched again and offers the next
    move's."""

    def __init__(self, known: Mapping[str, int], positions: int, solver_nodes: int) -> None:
        self.known = known
        self.budget = positions
        self.solver_nodes = solver_nodes
        self.memo: dict[str, Found] = {}
        self.entries: dict[str, Entry] = {}
        self.oracle: dict[str, tuple[int, int, object]] = {}
        self.expanded = 0
        self.nodes = 0
        self.exhausted = False
        self.side = 0
        self.settled: dict[str, int] = {}
        self.wins: dict[str, object] = {}
        self.checked: set[str] = set()

    def child(self, s: str) -> int | None:
        """The winner of the child start ``s``: proven before, or settled at
        its first position by the points solver (kept in ``settled``)."""
        v = self.known.get(s)
        if v is None and s not in self.checked:
            self.checked.add(s)
            c = Position(s)
            if need(c, c.turn) > 1:
                return None  # its opener wins the round by one: it does not settle the match
            v = self.quick(c, s)
            if v is None:
                low, high, _ = self.solved(c, s)
                v = decides(c, low, high)
            if v is not None:
                self.settled[s] = v
        return self.settled.get(s) if v is None else v

    def quick(self, p: Position, key: str) -> int | None:
        """The side that wins the match inside this round by winning it at
        all, when it needs one point: df-pn proves who wins a round far more
        cheaply than the points solver proves what it is worth (``None``
        when no side needs one point, or the round's winner needs more)."""
        if min(need(p, 0), need(p, 1)) > 1:
            return None
        r = engine.solve(p, node_limit=self.solver_nodes, exact=False)
        self.nodes += r.nodes
        if r.winner is None:
            return None
        self.wins[key] = r.best_move if r.winner == p.turn else None
        return r.winner if need(p, r.winner) == 1 else None

    def end(self, q: Position) -> Found:
        over, w, nxt = after_round(q)
        if over is not None:
            return over == self.side, ()
        values = [self.child(s) for s in nxt.values()]
        unknown = tuple(s for s, v in zip(nxt.values(), values, strict=True) if v is None)
        if w == self.side:
            for d, s in nxt.items():
                if self.child(s) == w:
                    self.entries[q.kpn()] = {"fill": d}
                    return True, ()
            if all(v == w ^ 1 for v in values):
                return False, ()
            return None, unknown[:1]  # one fill will do: the first open one
        if all(v == self.side for v in values):
            return True, ()
        if any(v == w for v in values):
            return False, ()
        return None, unknown

    def solved(self, p: Position, key: str) -> tuple[int, int, object]:
        if key not in self.oracle:
            r = engine.solve_points(p, node_limit=self.solver_nodes)
            self.nodes += r.nodes
            self.oracle[key] = (r.low, r.high, r.best_move)
        return self.oracle[key]

    def winning(self, p: Position, key: str) -> object:
        """A move that wins the round for the side to move, the one df-pn
        finds cheapest to prove (its proof tree, and so the candidate's
        child starts, is the smallest found), or ``None``."""
        if key not in self.wins:
            r = engine.solve(p, node_limit=WIN_NODES, exact=False)
            self.nodes += r.nodes
            self.wins[key] = r.best_move if r.winner == p.turn else None
        return self.wins[key]

    def value(self, p: Position) -> Found:
        key = p.kpn()
        if key in self.memo:
            return self.memo[key]
        if self.expanded >= self.budget:
            self.exhausted = True
            return None, ()
        self.expanded += 1
        best = None
        settled = self.quick(p, key)
        if settled is None:
            low, high, best = self.solved(p, key)
            settled = decides(p, low, high)
        if settled is not None:
            if settled == self.side:
                self.entries[key] = {"points": True}
            self.memo[key] = (settled == self.side, ())
            return self.memo[key]
        mine = p.turn == self.side
        if mine:
            win = self.winning(p, key)
            best = best if win is None else win
        moves = list(p.legal_moves)
        if best is not None and best in moves:
            moves.remove(best)
            moves.insert(0, best)
        unknown = False
        opens: dict[str, None] = {}
        for mv in moves:
            q = p.copy(stack=False)
            q.push(mv)
            v, below = self.end(q) if q.outcome is not None else self.value(q)
            if mine and v:
                self.entries[key] = {"move": str(mv)}
                self.memo[key] = (True, ())
                return True, ()
            if not mine and v is False:
                self.memo[key] = (False, ())
                return False, ()
            if v is None:
                opens.update(dict.fromkeys(below))
                unknown = True
                if self.exhausted or mine:
                    break  # at the prover's positions the first open move is the candidate
        if unknown:
            found: Found = (None, tuple(opens))
            if not self.exhausted:
                self.memo[key] = found
            return found
        if not mine:
            self.entries[key] = {"all": True}
        self.memo[key] = (not mine, ())
        return self.memo[key]

    def prove(self, p: Position, side: int) -> Found:
        """One pass: does ``side`` win the match from ``p``?"""
        self.side = side
        self.memo = {}
        self.entries = {}
        return self.value(p)

    def extract(self, start: Position) -> tuple[dict[str, Entry], list[str]]:
        """The entries the proof from ``start`` reaches, and its child starts."""
        plan: dict[str, Entry] = {}
        needs: dict[str, None] = {}
        stack = [start]
        while stack:
            p = stack.pop()
            key = p.kpn()
            if key in plan:
                continue
            if p.outcome is not None:
                over, w, nxt = after_round(p)
                if over is not None:
                    continue
                e = self.entries.get(key)
                if e is not None and w == self.side:
                    plan[key] = e
                    needs[nxt[str(e["fill"])]] = None
                else:
                    needs.update(dict.fromkeys(nxt.values()))
                continue
            e = self.entries[key]
            plan[key] = e
            if "move" in e:
                q = p.copy(stack=False)
                q.push_move(str(e["move"]))
                stack.append(q)
            elif "all" in e:
                for mv in p.legal_moves:
                    q = p.copy(stack=False)
                    q.push(mv)
                    stack.append(q)
        return plan, list(needs)


def prove_start(
    start: str,
    known: Mapping[str, int],
    positions: int = POSITIONS,
    solver_nodes: int = SOLVER_NODES,
) -> StartResult:
    """Search the round from the round start ``start`` (KPN; any position
    of a round in progress will do) for the match's winner, given ``known`` (``{start KPN: winner}`` of proven child starts).

    Expands at most ``positions`` round positions, each first put to the
    points solver with ``solver_nodes`` nodes.  A task of ``kamisado
    solve-match``; it runs anywhere the package is installed.

    >>> r = prove_start("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", {}, positions=30)
    >>> r.winner is None, len(r.open) > 0, r.positions
    (True, True, 30)
    """
    t0 = time.thread_time()
    pos = Position(start)
    if pos.outcome is not None:
        raise ValueError(f"the round is over: {start}")
    s = _Search(known, positions, solver_nodes)
    low, high, _ = s.solved(pos, pos.kpn())
    side = predicted(pos, low, high)
    winner: int | None = None
    v, opens = s.prove(pos, side)
    if v:
        winner = side
    elif v is False:  # the other side wins: find its plan
        s.budget = s.expanded + positions
        v, opens = s.prove(pos, side ^ 1)
        if v:
            winner = side ^ 1
    plan: dict[str, Entry] = {}
    needs: list[str] = []
    if winner is not None:
        plan, needs = s.extract(pos)
    return StartResult(
        start=start,
        winner=winner,
        plan=plan,
        needs=needs,
        open=[] if winner is not None else list(opens),
        positions=s.expanded,
        nodes=s.nodes,
        seconds=time.thread_time() - t0,
        exhausted=s.exhausted,
        side=s.side,
        settled=dict(s.settled),
    )
