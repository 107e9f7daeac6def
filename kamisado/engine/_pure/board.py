"""Tables and state helpers of the pure-Python engine (:mod:`kamisado.engine._pure.engine`).

The constants and tables of ``init_tables()`` in ``_ckamisado.c`` (the same
Zobrist keys, from the same splitmix64 sequence), bitmasks over the 64
squares, and what the search and the solver share: a position's key and
occupancy next to a :class:`kamisado.rules.position.Position`, making a move on both,
and the limits on nodes and time.

>>> from kamisado.rules.position import Position
>>> p = Position()
>>> h, occ = full_hash(p), occupancy(p.board)
>>> h2, occ2 = make(p, 2 | 34 << 6, h, occ)
>>> (h2, occ2) == (full_hash(p), occupancy(p.board)), bin(occ2).count("1")
(True, 16)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from kamisado.rules import position as _core
from kamisado.rules.board import RANGE, RAYS, SQUARE_COLOUR

#: Exact values of the solver: a win in n moves is ``MATE - n``.
MATE = 30000
#: A won round scores ``WIN_BASE + 256 * tier - ply`` in the search.
WIN_BASE = 20000
#: The lowest score of a won round.
WIN_MIN = WIN_BASE - 256
#: Evaluations stay within +-EVAL_MAX.
EVAL_MAX = 10000
#: threat, safe, no_safe, mobility, advance, tempo, noise.
DEFAULT_WEIGHTS: tuple[int, ...] = (39, 6, 1000, 7, 19, 47, 0)
NWEIGHTS = len(DEFAULT_WEIGHTS)
#: The search's stacks hold MAXPLY plies; MAX_DEPTH leaves 8 below the horizon.
MAXPLY = 128
MAX_DEPTH = MAXPLY - 8
SOLVE_MAX_DEPTH = 4000
TT_LOG2_MIN = 10
TT_LOG2_MAX = 28
NODE_LIMIT_MAX = 2**63 - 1
SEED_MAX = 2**64 - 1
WEIGHT_MAX = 1000
M64 = (1 << 64) - 1
#: Limits are looked at every CHECK_EVERY nodes, as in C.
CHECK_EVERY = 1024

BIT: tuple[int, ...] = tuple(1 << s for s in range(64))
STEPS: tuple[tuple[int, ...], ...] = (
    tuple(7 - (s >> 3) for s in range(64)),
    tuple(s >> 3 for s in range(64)),
)


def splitmix(state: int) -> tuple[int, int]:
    """One step of splitmix64: ``(new state, output)``."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def _zobrist() -> tuple[list[int], list[int], int, list[int]]:
    s = 0x4B414D495341444F  # "KAMISADO"
    towers: list[int] = []
    ring_keys: list[int] = []
    for _ in range(16):
        for _ in range(64):
            s, z = splitmix(s)
            towers.append(z)
        for _ in range(4):
            s, z = splitmix(s)
            ring_keys.append(z)
    s, turn = splitmix(s)
    must: list[int] = []
    for _ in range(9):
        s, z = splitmix(s)
        must.append(z)
    return towers, ring_keys, turn, must


_ZT_LIST, _ZR_LIST, _Z_TURN, _Z_MUST = _zobrist()
#: ``ZT[tower << 6 | square]``: the key of a tower on a square.
ZT: tuple[int, ...] = tuple(_ZT_LIST)
#: ``ZR[tower << 2 | rings]``.
ZR: tuple[int, ...] = tuple(_ZR_LIST)
#: ``SMK[turn * 9 + must + 1]``: the key of the side and the tower to move.
SMK: tuple[int, ...] = tuple(
    (_Z_TURN if turn else 0) ^ _Z_MUST[must + 1] for turn in (0, 1) for must in range(-1, 8)
)

Masks = tuple[int, ...]


def _win_paths(side: int, rings: int, sq: int) -> Masks:
    """Masks of the free paths a tower needs to reach its goal row at once."""
    steps = STEPS[side][sq]
    if steps == 0 or steps > RANGE[rings]:
        return ()
    out = []
    for d in range(3):
        ray = RAYS[side][d][sq]
        if len(ray) >= steps:
            m = 0
            for s in ray[:steps]:
                m |= 1 << s
            out.append(m)
    return tuple(out)


#: ``WIN_PATHS[side][rings][square]``.
WIN_PATHS: tuple[tuple[tuple[Masks, ...], ...], ...] = tuple(
    tuple(tuple(_win_paths(side, r, sq) for sq in range(64)) for r in range(4))
    for side in (0, 1)
)
Rays = tuple[tuple[int, ...], ...]
#: ``REACH[side][rings][square]``: the three rays cut to the tower's range.
REACH: tuple[tuple[tuple[Rays, ...], ...], ...] = tuple(
    tuple(
        tuple(tuple(RAYS[side][d][sq][: RANGE[r]] for d in range(3)) for sq in range(64))
        for r in range(4)
    )
    for side in (0, 1)
)
#: ``REACH_MASKS[side][rings][square]``: ``(mask, length)`` of each ray in reach.
REACH_MASKS: tuple[tuple[tuple[tuple[tuple[int, int], ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple((sum(1 << s for s in ray), len(ray)) for ray in REACH[side][r][sq] if ray)
            for sq in range(64)
        )
        for r in range(4)
    )
    for side in (0, 1)
)
#: ``FORWARD[side][square]``: the forward ray (the one a Sumo pushes along).
FORWARD: tuple[tuple[tuple[int, ...], ...], ...] = RAYS[0][0], RAYS[1][0]
#: ``FIRST_STEP[side][square]``: the squares of a tower's first steps (if one
#: is empty the tower can move).
FIRST_STEP: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << RAYS[side][d][sq][0] for d in range(3) if RAYS[side][d][sq]) for sq in range(64))
    for side in (0, 1)
)
#: ``GOAL_MASK[side]``: the squares of a side's goal row.
GOAL_MASK: tuple[int, int] = (0xFF << 56, 0xFF)
#: ``COLOUR_SQ[colour]``: the squares of a colour.
COLOUR_SQ: tuple[int, ...] = tuple(
    sum(1 << s for s in range(64) if SQUARE_COLOUR[s] == c) for c in range(8)
)


def full_hash(p: _core.Position) -> int:
    """The Zobrist key of a position (``compute_hash`` in C)."""
    h = SMK[p.turn * 9 + p.must_move + 1]
    tsq = p.tower_square
    rings = p.rings
    for t in range(16):
        h ^= ZT[t << 6 | tsq[t]] ^ ZR[t << 2 | rings[t]]
    return h


def occupancy(board: list[int]) -> int:
    occ = 0
    for s in range(64):
        if board[s] >= 0:
            occ |= 1 << s
    return occ


def push_length(board: list[int], rings: list[int], tsq: list[int], t: int) -> int:
    """Length of the run of towers that tower ``t`` can push, or 0."""
    n = rings[t]
    if not n:
        return 0
    side = t >> 3
    k = 0
    for s in FORWARD[side][tsq[t]]:
        c = board[s]
        if c < 0:
            return k
        if c >> 3 == side or rings[c] >= n or k == n:
            return 0
        k += 1
    return 0


def make(p: _core.Position, code: int, h: int, occ: int) -> tuple[int, int]:
    """Push ``code`` on ``p``; the key and the occupancy after it."""
    board = p.board
    frm = code & 63
    to = code >> 6
    if board[to] < 0:
        t = board[frm]
        h ^= SMK[p.turn * 9 + p.must_move + 1] ^ ZT[t << 6 | frm] ^ ZT[t << 6 | to]
        p.push_code(code)
        return h ^ SMK[p.turn * 9 + p.must_move + 1], occ ^ BIT[frm] ^ BIT[to]
    ray = FORWARD[board[frm] >> 3][frm]
    k = 1
    while board[ray[k]] >= 0:
        k += 1
    p.push_code(code)
    return full_hash(p), occ ^ BIT[frm] ^ BIT[ray[k]]


def can_win(p: _core.Position, t: int, occ: int) -> bool:
    """Whether tower ``t`` has a free path to its goal row within its range."""
    return any(not occ & m for m in WIN_PATHS[t >> 3][p.rings[t]][p.tower_square[t]])


def can_win_now(p: _core.Position, occ: int) -> bool:
    base = p.turn * 8
    if p.must_move >= 0:
        return can_win(p, base + p.must_move, occ)
    return any(can_win(p, base + c, occ) for c in range(8))


class StopFlag(Protocol):
    """What :class:`Limits` looks at for a stop from another thread."""

    @property
    def stopped(self) -> bool: ...


class Limits:
    """Node and time limits and a stop flag, checked every 1024 nodes as in C
    (one check for the search and the solver)."""

    __slots__ = ("nodes", "node_limit", "deadline", "next_check", "stop", "flag")

    def __init__(self, node_limit: int, time_ms: float, flag: StopFlag | None = None) -> None:
        self.nodes = 0
        self.node_limit = node_limit
        self.deadline = time.monotonic() + time_ms / 1000.0 if time_ms > 0 else 0.0
        self.next_check = 0
        self.stop = False
        self.flag = flag

    def check(self) -> bool:
        """Called when ``nodes >= next_check``: whether to stop."""
        self.next_check = self.nodes + CHECK_EVERY
        if (
            (self.node_limit and self.nodes >= self.node_limit)
            or (self.flag is not None and self.flag.stopped)
            or (self.deadline > 0 and time.monotonic() >= self.deadline)
        ):
            self.stop = True
        return self.stop

    def only_nodes(self, node_limit: int) -> bool:
        """Whether a stop came from a node budget tighter than ``node_limit``
        (0: none) alone: not the flag, the deadline or ``node_limit`` itself."""
        return not (
            (node_limit and self.nodes >= node_limit)
            or (self.flag is not None and self.flag.stopped)
            or (self.deadline > 0 and time.monotonic() >= self.deadline)
        )


def safe_replies_fn(
    p: _core.Position,
) -> Callable[[int, int, int], int]:
    """``safe_replies(us, t, occ)``: the replies of the opponent's tower ``t``
    (to move) that do not let ``us`` win at once, 64 when one wins for the
    opponent; ``occ`` is the occupancy (C's ``safe_replies``, with bitmasks).

    A reply to ``s`` lets our tower of the colour of ``s`` win unless each of
    its paths that are free once ``t`` has left passes through ``s``: with
    ``need`` the squares common to those paths, the safe replies are the
    reachable squares in ``need`` of their colour.
    """
    board = p.board
    tsq = p.tower_square
    rings = p.rings
    reach_masks = [REACH_MASKS[t >> 3][rings[t]] for t in range(16)]
    paths = [WIN_PATHS[t >> 3][rings[t]] for t in range(16)]
    goal_mask = GOAL_MASK
    bit = BIT
    side_paths = [
        [(t, paths[t], COLOUR_SQ[t & 7]) for t in range(side * 8, side * 8 + 8)]
        for side in (0, 1)
    ]

    def safe_replies(us: int, t: int, occ: int) -> int:
        sq = tsq[t]
        reach = 0
        if t & 8:  # Gold moves down the board: the nearest blocker is the highest bit
            for m, _ in reach_masks[t][sq]:
                blk = occ & m
                reach |= m & ~((1 << blk.bit_length()) - 1) if blk else m
        else:
            for m, _ in reach_masks[t][sq]:
                blk = occ & m
                reach |= m & ((blk & -blk) - 1) if blk else m
        n = 0
        if reach:
            if reach & goal_mask[t >> 3]:
                return 64
            occ0 = occ ^ bit[sq]
            safe = 0
            for ours, tower_paths, cs in side_paths[us]:
                ps = tower_paths[tsq[ours]]
                if ps:
                    need = -1
                    for m in ps:
                        if not occ0 & m:
                            need &= m
                    safe |= cs & need
                else:
                    safe |= cs
            n = (reach & safe).bit_count()
        if rings[t] and push_length(board, rings, tsq, t):
            n += 1
        return n

    return safe_replies
