"""A match proof as a file, and its checker.

:func:`export` writes the proof that the store holds for a round start:
JSON with the match's target, the root start, the winner, and for each
round start the proof uses its plan (``{position KPN: entry}``): the
winner's move at each of its positions, ``all`` at the loser's (every
reply is followed), ``points`` where the single-round points solver
settles the match, and the winner's fill at each round end it wins.

:func:`verify` re-checks such a file with the plain rules
(:mod:`kamisado.rules`) and the single-round points solver only, on
cleared tables: every start is walked from its own KPN, every move is
checked legal, every reply of the loser followed, every round end scored
and filled by the rules, every solver leaf solved again to the end.  A
reader can trust the result without trusting the search.

>>> import json, tempfile, os
>>> from kamisado.proving.rounds import prove_start
>>> from kamisado.proving.store import ProofStore
>>> s = ProofStore(":memory:")
>>> root = "ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"
>>> s.put(prove_start(root, {}), 3)
True
>>> path = os.path.join(tempfile.mkdtemp(), "proof.json")
>>> export(s, root, path)
1
>>> verify(path).line()
'verified: Gold wins the Standard match from ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2 (1 round starts, 1 positions, 1 solver checks)'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kamisado import engine
from kamisado.proving.rounds import Entry, after_round, decides
from kamisado.proving.store import ProofStore
from kamisado.rules.board import SIDE_NAMES, KamisadoError
from kamisado.rules.match import FILLS, MATCH_NAMES
from kamisado.rules.position import Position

__all__ = ["FORMAT", "ProofError", "Verified", "export", "verify"]

#: The first field of a proof file.
FORMAT = "kamisado-match-proof 1"


class ProofError(ValueError):
    """The proof does not hold, or the file is not a proof; says where and why."""


@dataclass
class Verified:
    """What :func:`verify` checked."""

    target: int
    root: str
    winner: int
    starts: int
    positions: int
    solver_checks: int

    def line(self) -> str:
        """One line for people."""
        return (
            f"verified: {SIDE_NAMES[self.winner]} wins the {MATCH_NAMES[self.target]} match"
            f" from {self.root} ({self.starts} round starts, {self.positions} positions,"
            f" {self.solver_checks} solver checks)"
        )


def export(store: ProofStore, root: str, path: str | Path) -> int:
    """Write the proof of ``root`` from ``store`` to ``path``; returns the
    number of round starts in it.  Raises :class:`ProofError` when the
    store has not proven ``root`` (or lacks a start its proof needs)."""
    first = store.get(root)
    if first is None:
        raise ProofError(f"the store has not proven {root}")
    out: dict[str, dict[str, Entry]] = {}
    todo = [root]
    while todo:
        s = todo.pop()
        if s in out:
            continue
        got = store.get(s)
        if got is None or got.winner != first.winner:
            raise ProofError(f"the store's proof of {root} needs {s}, which it does not hold")
        out[s] = got.plan
        todo.extend(got.needs)
    doc = {
        "format": FORMAT,
        "target": Position(root).target,
        "root": root,
        "winner": first.winner,
        "starts": out,
    }
    Path(path).write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    return len(out)


class _Checker:
    def __init__(self, starts: dict[str, dict[str, Entry]], winner: int) -> None:
        self.starts = starts
        self.winner = winner
        self.done: set[str] = set()
        self.positions = 0
        self.solver_checks = 0

    def start(self, s: str) -> None:
        if s in self.done:
            return
        plan = self.starts.get(s)
        if not isinstance(plan, dict):
            raise ProofError(f"the proof needs the round start {s}, which it does not hold")
        try:
            pos = Position(s)
        except KamisadoError as err:
            raise ProofError(f"round start {s}: {err}") from None
        if pos.outcome is not None:
            raise ProofError(f"the round is over at the start {s}")
        seen: set[str] = set()
        stack = [pos]
        children: list[str] = []
        while stack:
            p = stack.pop()
            key = p.kpn()
            if key in seen:
                continue
            seen.add(key)
            self.positions += 1
            if p.outcome is not None:
                children += self.end(s, plan, p, key)
                continue
            e = plan.get(key)
            where = f"round start {s}, position {key}"
            if not isinstance(e, dict):
                raise ProofError(f"{where}: the proof says nothing")
            if e.get("points") is True:
                self.solver_checks += 1
                r = engine.solve_points(p)
                if r.points is None or decides(p, r.points, r.points) != self.winner:
                    raise ProofError(
                        f"{where}: the solver makes the round worth {r.points} to"
                        f" {SIDE_NAMES[p.turn]}, which does not win the match for"
                        f" {SIDE_NAMES[self.winner]}"
                    )
            elif "move" in e:
                if p.turn != self.winner:
                    raise ProofError(f"{where}: a move is given for the loser")
                q = p.copy(stack=False)
                try:
                    q.push_move(str(e["move"]))
                except KamisadoError as err:
                    raise ProofError(f"{where}: {err}") from None
                stack.append(q)
            elif e.get("all") is True:
                for mv in p.legal_moves:
                    q = p.copy(stack=False)
                    q.push(mv)
                    stack.append(q)
            else:
                raise ProofError(f"{where}: an entry that is no proof: {e!r}")
        self.done.add(s)
        for c in children:
            self.start(c)

    def end(self, s: str, plan: dict[str, Entry], p: Position, key: str) -> list[str]:
        over, w, nxt = after_round(p)
        where = f"round start {s}, round end {key}"
        if over is not None:
            if over != self.winner:
                raise ProofError(f"{where}: {SIDE_NAMES[over]} wins the match there")
            return []
        if w != self.winner:
            return list(nxt.values())
        e = plan.get(key)
        fill = e.get("fill") if isinstance(e, dict) else None
        if fill not in FILLS:
            raise ProofError(f"{where}: no fill is given for {SIDE_NAMES[w]}")
        return [nxt[str(fill)]]


def verify(path: str | Path) -> Verified:
    """Check the proof file at ``path``; raises :class:`ProofError` saying
    where it fails."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ProofError(f"{path}: cannot be read as a proof: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ProofError(f"{path}: not a match proof (no '{FORMAT}' format field)")
    root, winner, starts = doc.get("root"), doc.get("winner"), doc.get("starts")
    if not isinstance(root, str) or winner not in (0, 1) or not isinstance(starts, dict):
        raise ProofError(f"{path}: a proof needs a root, a winner (0 or 1) and its starts")
    try:
        target = Position(root).target
    except KamisadoError as e:
        raise ProofError(f"{path}: the root: {e}") from None
    if doc.get("target") != target:
        raise ProofError(f"{path}: the target {doc.get('target')!r} is not the root's ({target})")
    engine.clear_tables()
    c = _Checker(starts, int(winner))
    c.start(root)
    return Verified(target, root, int(winner), len(c.done), c.positions, c.solver_checks)
