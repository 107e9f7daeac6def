"""The solver's calls: :func:`solve` (who wins and in how many moves),
:func:`solve_moves` (every move's value) and :func:`solve_points` (what the
round is worth).

>>> from kamisado.rules.position import Position
>>> solve(Position(), exact=False).winner
0
"""

from __future__ import annotations

from kamisado.engine._backend import impl as _c
from kamisado.engine._calls import (
    NODE_LIMIT_MAX,
    SOLVE_MAX_DEPTH,
    PositionLike,
    _core,
    _duration,
    _flag,
    _limit,
    _move,
    _position,
    _unpack,
)
from kamisado.engine.limits import Limit
from kamisado.engine.results import MoveValue, PointsResult, SolveResult


def solve(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    max_depth: int | None = None,
    pv: bool = True,
    *,
    limit: Limit | None = None,
    exact: bool = True,
) -> SolveResult:
    """Prove who wins the round from ``pos`` with best play.

    ``time_limit`` (seconds, finite, > 0) and ``node_limit`` (1 to
    ``NODE_LIMIT_MAX``) stop the solver, which then answers ``winner=None``;
    ``max_depth`` (1 to ``SOLVE_MAX_DEPTH``) looks only for results within
    that many moves.  ``None`` means no limit of that kind.  A wrong type
    raises ``TypeError``, a value out of range ``ValueError``.  For a match
    position the answer is who wins the round.  ``limit`` says the same
    as a :class:`Limit` (``time``, ``nodes``, ``depth``), instead of the three.

    ``exact=False`` proves only who wins, not in how many moves: the answer
    has ``distance=None``, no ``pv``, and ``best_move`` a winning move when
    the side to move wins (``None`` when it loses).  It is much cheaper: a
    depth-first proof-number search (df-pn) with no horizon, which expands
    the move that looks cheapest to prove and stops at the first proof,
    where the exact solver must deepen until it finds the shortest win; the
    single round from the start in about 18,000 nodes instead of 5M
    (``bench/proven.py``).  With ``max_depth`` it is an alpha-beta search
    within that horizon instead.  Its proof numbers have a table of their
    own in the Searcher; a proof of the root goes into the solver's table,
    which both share.

    >>> from kamisado.rules.position import Position
    >>> r = solve("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
    >>> r.winner is not None
    True
    >>> from kamisado.engine import clear_tables
    >>> clear_tables()  # a proof of the start left in the shared tables would answer at once
    >>> solve(Position(), node_limit=1000).winner is None
    True
    >>> r = solve(Position(), exact=False)
    >>> r.winner, r.distance, r.best_move in Position().legal_moves
    (0, None, True)
    """
    if limit is not None:
        time_limit, node_limit, max_depth = _unpack(
            limit, "time_limit, node_limit, max_depth", (time_limit, node_limit, max_depth)
        )
    seconds = _duration("time_limit", time_limit, "seconds")
    nodes = _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    depth = _limit("max_depth", max_depth, SOLVE_MAX_DEPTH)
    _flag("pv", pv)
    _flag("exact", exact)
    p = _position(pos)
    if p.outcome is not None:
        return SolveResult(p.outcome.winner, 0, None, (), 0, 0.0, p.turn, 0)
    cp = _c.Position(p.kpn())
    r = _core().solve(
        cp,
        node_limit=nodes or 0,
        time_ms=0.0 if seconds is None else min(seconds * 1000.0, 1e300),
        max_depth=depth or 0,
        pv=pv,
        exact=exact,
    )
    result = int(r["result"])
    if result == 0:
        return SolveResult(
            None,
            None,
            None,
            (),
            int(r["nodes"]),
            float(r["seconds"]),
            p.turn,
            int(r["depth"]),
        )
    winner = p.turn if result > 0 else p.turn ^ 1
    return SolveResult(
        winner=winner,
        distance=int(r["distance"]) if exact else None,
        best_move=_move(int(r["best_move"])) if int(r["best_move"]) else None,
        pv=tuple(_move(c) for c in r["pv"]),
        nodes=int(r["nodes"]) + int(r["pv_nodes"]),
        seconds=float(r["seconds"]),
        side_to_move=p.turn,
        depth=int(r["depth"]),
    )


def solve_moves(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    *,
    limit: Limit | None = None,
) -> list[MoveValue]:
    """Solve every legal move of ``pos``: who wins after it, and when.

    Limits apply to each move (as for :func:`solve`; ``limit`` takes no
    ``depth`` here).  Best moves first:
    proven wins for the side to move (shortest first), unknown, then losses
    (longest first).

    >>> vals = solve_moves("obupyrgn/8/8/N7/8/8/8/1GRYPUBO g p 1 0 0")
    >>> all(v.winner == 0 for v in vals)
    True
    """
    if limit is not None:
        time_limit, node_limit, depth = _unpack(
            limit, "time_limit, node_limit", (time_limit, node_limit)
        )
        if depth is not None:
            raise ValueError("solve_moves: a Limit without depth (it solves every move)")
    _duration("time_limit", time_limit, "seconds")
    _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    p = _position(pos)
    side = p.turn
    out: list[MoveValue] = []
    for move in list(p.legal_moves):
        q = p.copy(stack=False)
        q.push(move)
        if q.outcome is not None:
            out.append(MoveValue(move, q.outcome.winner, 1))
            continue
        r = solve(q, time_limit=time_limit, node_limit=node_limit, pv=False)
        dist = None if r.distance is None else r.distance + 1
        out.append(MoveValue(move, r.winner, dist))

    def order(v: MoveValue) -> tuple[int, int]:
        if v.winner is None:
            return (1, 0)
        d = v.distance or 0
        return (0, d) if v.winner == side else (2, -d)

    out.sort(key=order)
    return out


def solve_points(
    pos: PositionLike,
    time_limit: float | None = None,
    node_limit: int | None = None,
    max_depth: int | None = None,
    *,
    limit: Limit | None = None,
) -> PointsResult:
    """Prove what the round from ``pos`` is worth to the side to move, in points.

    Won: the most points it can force, 1, 2, 4 or 8 by the rings of the
    tower that wins (:attr:`kamisado.rules.board.Outcome.points`); lost: the
    fewest it must concede, as a negative number.  It proves who wins first
    (:func:`solve` with ``exact=False``), then threshold games on the same
    solver: "wins with a tower of at least k rings" for k = 1, 2, 3 until
    one fails (lost: "does not lose to a tower of k rings or more" until one
    holds), only as far as the towers' rings allow, so a round without Sumo
    towers costs no more than who wins.  The proofs share the Searcher's
    table (entries of each threshold under keys of their own).  Limits as
    :func:`solve` (they bound the whole solve); a limit gives
    ``points=None`` with the bounds proven so far.

    >>> from kamisado.rules.position import Position
    >>> r = solve_points("1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0")
    >>> r.points, r.winner == r.side_to_move
    (1, True)
    >>> r = solve_points("2o++5/3u+1p2/3g4/7G+/1U1B2b+1/4N+++2Y++/O+y+R1r++1n1/5P+2 b g 15 13 9")
    >>> r.points, str(r.best_move)
    (2, 'h5-h8')
    >>> print(solve_points("3rn1py/3bP+3/1G6/o+2B4/1u6/6g1/6R+1/O+1Y+1U+1N1 g p 15 5 1").points)
    -2
    >>> from kamisado.engine import Searcher
    >>> Searcher().solve_points(Position(), node_limit=1000).points is None
    True
    """
    if limit is not None:
        time_limit, node_limit, max_depth = _unpack(
            limit, "time_limit, node_limit, max_depth", (time_limit, node_limit, max_depth)
        )
    seconds = _duration("time_limit", time_limit, "seconds")
    nodes = _limit("node_limit", node_limit, NODE_LIMIT_MAX)
    depth = _limit("max_depth", max_depth, SOLVE_MAX_DEPTH)
    p = _position(pos)
    if p.outcome is not None:
        o = p.outcome
        v = o.points if o.winner == p.turn else -o.points
        return PointsResult(v, v, v, o.winner, None, 0, 0.0, p.turn, 0)
    r = _core().solve(
        _c.Position(p.kpn()),
        node_limit=nodes or 0,
        time_ms=0.0 if seconds is None else min(seconds * 1000.0, 1e300),
        max_depth=depth or 0,
        pv=False,
        points=True,
    )
    result = int(r["result"])
    value = int(r["points"])
    best = int(r["best_move"])
    return PointsResult(
        points=value or None,
        low=int(r["points_lo"]),
        high=int(r["points_hi"]),
        winner=None if not result else p.turn if result > 0 else p.turn ^ 1,
        best_move=_move(best) if best and value else None,
        nodes=int(r["nodes"]),
        seconds=float(r["seconds"]),
        side_to_move=p.turn,
        depth=int(r["depth"]),
    )
