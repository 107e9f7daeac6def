"""The search's calls: :func:`search` (iterative deepening PVS with a
heuristic evaluation), :func:`evaluate` (that evaluation) and :func:`perft`.

>>> from kamisado.rules.position import Position
>>> perft(Position(), 2)
1150
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kamisado.engine._backend import impl as _c
from kamisado.engine._calls import (
    HASH_MIB_DEFAULT,
    MAX_DEPTH,
    MULTIPV_MAX,
    NODE_LIMIT_MAX,
    SEED_MAX,
    PositionLike,
    _core,
    _duration,
    _integer,
    _limit,
    _move,
    _position,
    _unpack,
    hash_entries,
    to_cposition,
)
from kamisado.engine.limits import Limit, Score
from kamisado.engine.results import (
    Iteration,
    Line,
    SearchResult,
    Weights,
    _weights,
    decode_score,
)
from kamisado.rules.board import Move
from kamisado.rules.position import Position


def _checked_pv(
    pos: Position, moves: list[Move], complete: bool
) -> tuple[tuple[Move, ...], Position]:
    """The legal prefix of ``moves`` from ``pos`` and the position it reaches.

    With ``complete`` (a proven result), a PV that stops one move short of
    the end of the round (the search scores an immediate win without
    playing it) gets that winning move, the one worth most.
    """
    q = pos.copy(stack=False)
    out: list[Move] = []
    for m in moves:
        if q.outcome is not None or not q.is_legal(m):
            break
        q.push(m)
        out.append(m)
    if complete and q.outcome is None:
        best: tuple[int, str] | None = None
        win: Move | None = None
        for m in list(q.legal_moves):
            mover = q.turn
            q.push(m)
            o = q.outcome
            if o is not None and o.winner == mover:
                key = (o.points, str(m))
                if best is None or key[0] > best[0]:
                    best, win = key, m
            q.pop()
        if win is not None:
            q.push(win)
            out.append(win)
    return tuple(out), q


def search(
    pos: PositionLike,
    depth: int | None = None,
    time_ms: float | None = None,
    nodes: int | None = None,
    seed: int = 0,
    weights: Weights | None = None,
    *,
    limit: Limit | None = None,
    on_iteration: Callable[[Iteration], object] | None = None,
    hash_mib: int = HASH_MIB_DEFAULT,
    multipv: int | None = None,
    root_moves: Iterable[Move | str] | None = None,
) -> SearchResult:
    """Iterative deepening PVS from ``pos``, limited by depth, time and nodes.

    ``depth`` lies in 1..``MAX_DEPTH``, ``time_ms`` is a finite number of
    milliseconds > 0, ``nodes`` lies in 1..``NODE_LIMIT_MAX``; ``None`` means
    no limit of that kind, and at least one limit is needed.  ``seed``
    (0..``SEED_MAX``) shuffles the root moves (and seeds the ``noise``
    weight); the result is the last completed iteration.  A wrong type
    raises ``TypeError``, a value out of range ``ValueError``.

    ``limit`` says the same as a :class:`Limit` instead of the three
    keywords (``time`` in seconds; ``infinite`` alone searches to
    ``MAX_DEPTH``).  ``on_iteration`` is called with each finished
    :class:`Iteration` (its ``seldepth`` and ``pv`` included): a true answer
    ends the search there, an exception ends it and propagates.  A search
    stops by itself once it proves a result that ends the match within its
    depth.  ``hash_mib`` (1..``HASH_MIB_MAX``, default 16) sizes the
    search's transposition table (rounded down to a power of two:
    :func:`hash_entries`); KEI's ``Hash`` option sets it.

    ``multipv`` (1..``MULTIPV_MAX``) asks for that many best lines, in one
    search: at the root the first moves get exact scores, each later one a
    null window at the current k-th best score (and an exact score when it
    beats it), so the k best moves of each depth end with exact scores,
    sharing the search's table, killers and history (``bench/multipv.py``
    compares it with a search per root move).  ``root_moves`` (moves or
    their text, legal in ``pos``) restricts the root's moves.  Either way
    the answer's ``lines`` (and each :class:`Iteration`'s) hold the depth's
    best lines (fewer when there are fewer moves); ``pv`` and ``score`` are
    the first's.  ``multipv=1`` without ``root_moves`` is the plain search.

    >>> r = search(Position(), depth=4)
    >>> r.depth, len(r.pv) >= 1, r.proven_win_in
    (4, True, None)
    """
    if limit is not None:
        seconds, nodes, depth = _unpack(limit, "depth, time_ms, nodes", (depth, time_ms, nodes))
        time_ms = None if seconds is None else seconds * 1000.0
        if limit.infinite and depth is None:
            depth = MAX_DEPTH
    if on_iteration is not None and not callable(on_iteration):
        raise TypeError(
            f"on_iteration must be a callable or None, got {type(on_iteration).__name__}"
        )
    depth = _limit("depth", depth, MAX_DEPTH)
    time_ms = _duration("time_ms", time_ms, "milliseconds")
    nodes = _limit("nodes", nodes, NODE_LIMIT_MAX)
    seed = _integer("seed", seed, 0, SEED_MAX)
    tt_log2 = hash_entries(hash_mib).bit_length() - 1
    k = 0 if multipv is None else _integer("multipv", multipv, 1, MULTIPV_MAX, " (None: one line)")
    w = _weights(weights)
    p = _position(pos)
    if p.outcome is not None:
        raise ValueError("the round is over")
    roots = None if root_moves is None else _root_codes(p, root_moves)
    lines_mode = k > 1 or roots is not None
    if depth is None and time_ms is None and nodes is None:
        raise ValueError("give a depth, a time or a node limit")
    cp = _c.Position(p.kpn())
    report = None
    if on_iteration is not None:
        callback = on_iteration

        def report(
            d: int, s: int, n: int, t: float, sel: int, line: list[int], *rest: Any
        ) -> object:
            got = _lines(p, rest[0]) if rest else ()
            return callback(Iteration(d, s, n, t, sel, tuple(_move(c) for c in line), got))

    extra: dict[str, Any] = {}
    if lines_mode:
        extra = {"multipv": max(k, 1), "root_moves": roots}
    r = _core().search(
        cp,
        depth=depth or 0,
        time_ms=time_ms or 0.0,
        node_limit=nodes or 0,
        weights=w,
        seed=seed,
        tt_log2=tt_log2,
        on_iteration=report,
        **extra,
    )
    score = int(r["score"])
    kind, dist, tier = decode_score(score)
    pv, q = _checked_pv(p, [_move(c) for c in r["pv"]], complete=tier is not None)
    points: int | None = None
    match_won: bool | None = None
    if tier is not None:
        match_won = tier == 15
        points = None if tier == 15 else tier
        # the PV of a proven result ends the round: read the points there
        if q.outcome is not None:
            points = q.outcome.points
    its = tuple(
        Iteration(int(d), int(s), int(n), float(t)) for d, s, n, t in r["iterations"]
    )
    return SearchResult(
        depth=int(r["depth"]),
        score=score,
        pv=pv,
        best_move=pv[0] if pv else None,
        proven_win_in=dist if kind == "win" else None,
        proven_loss_in=dist if kind == "loss" else None,
        round_points=points,
        match_won=match_won,
        nodes=int(r["nodes"]),
        seconds=float(r["seconds"]),
        seldepth=int(r["seldepth"]),
        iterations=its,
        lines=_lines(p, r["lines"]) if lines_mode else (),
        lead=_lines(p, [r["lead"][1:]])[0] if lines_mode and r["lead"] else None,
        lead_depth=int(r["lead"][0]) if lines_mode and r["lead"] else None,
    )


def _root_codes(p: Position, root_moves: Iterable[Move | str]) -> list[int]:
    """The codes of ``root_moves`` (moves or their text), each legal in ``p``."""
    if isinstance(root_moves, str | bytes):
        raise TypeError("root_moves must be moves or their text (a list), not one string")
    codes: list[int] = []
    for m in root_moves:
        move = Move.from_str(m) if isinstance(m, str) else m
        if not isinstance(move, Move):
            raise TypeError(f"root_moves: expected moves or their text, got {type(m).__name__}")
        p.check_move(move)
        codes.append(move.from_square | move.to_square << 6)
    if not codes:
        raise ValueError("root_moves: expected at least one move (None: every move)")
    return codes


def _lines(p: Position, raw: list[tuple[int, list[int]]]) -> tuple[Line, ...]:
    """The core's ``(score, pv)`` lines as :class:`Line` (each pv checked, as ``pv``)."""
    out = []
    for score, codes in raw:
        proven = Score.from_raw(int(score)).is_proven
        line, _ = _checked_pv(p, [_move(c) for c in codes], complete=proven)
        out.append(Line(int(score), line))
    return tuple(out)


def evaluate(pos: PositionLike, weights: Weights | None = None) -> int:
    """The static evaluation of a position in progress, for the side to move.

    >>> from kamisado.engine.results import DEFAULT_WEIGHTS
    >>> evaluate(Position()) == evaluate(Position(), DEFAULT_WEIGHTS)
    True
    """
    w = _weights(weights)
    cp = to_cposition(pos)
    return int(_c.evaluate(cp, w))


def perft(pos: PositionLike, depth: int) -> int:
    """Perft with the compiled move generator (equal to ``Position.perft``).

    ``depth`` lies in 0..``MAX_DEPTH``: ``ValueError`` beyond, ``TypeError``
    for a non-integer.

    >>> perft(Position(), 4)
    107068
    """
    depth = _integer("depth", depth, 0, MAX_DEPTH)
    p = _position(pos)
    if p.outcome is not None:
        return 1 if depth == 0 else 0
    return int(_c.Position(p.kpn()).perft(depth))
