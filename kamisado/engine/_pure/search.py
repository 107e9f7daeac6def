"""The search of the pure-Python engine: a port of ``se_search`` in ``_ckamisado.c``.

Iterative deepening negamax with PVS, the same evaluation, transposition
table (a dictionary by slot, ``key & mask``, with C's replacement rule),
move ordering (TT move, killers, immediate results, the opponent's safe
replies, history), so that a position, depth, weights and seed give the same
score, line and node count as the compiled search.  Moves are made with
:meth:`kamisado.rules.position.Position.push_code`; the key and the occupancy travel
down the recursion as arguments.

>>> from kamisado.rules.position import Position
>>> from kamisado.engine._pure.board import DEFAULT_WEIGHTS, full_hash, occupancy
>>> p = Position()
>>> r = run(p, full_hash(p), occupancy(p.board), 3, 0.0, 0, DEFAULT_WEIGHTS, 0, 20, False, None, Table())
>>> r["depth"], [d for d, *_ in r["iterations"]], p.kpn() == Position().kpn()
(3, [1, 2, 3], True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from kamisado.engine._pure.board import (
    BIT,
    COLOUR_SQ,
    EVAL_MAX,
    FIRST_STEP,
    FORWARD,
    M64,
    MAXPLY,
    REACH_MASKS,
    SMK,
    WIN_BASE,
    WIN_MIN,
    WIN_PATHS,
    ZR,
    ZT,
    Limits,
    StopFlag,
    make,
    push_length,
    safe_replies_fn,
    splitmix,
)
from kamisado.rules import position as _core
from kamisado.rules.board import GOAL_RANK, RING_POINTS, SQUARE_COLOUR

_S_INF = 30000
_F_LOWER, _F_UPPER, _F_EXACT = 1, 2, 3

class Table:
    """The search table of a Searcher, by slot: ``(key, score, move, depth, flag)``."""

    __slots__ = ("tt", "log2", "generation", "allocations")

    def __init__(self) -> None:
        self.tt: dict[int, tuple[int, int, int, int, int]] = {}
        self.log2 = 0
        self.generation = 0
        """Bumped by each search that does not keep the table, 1 for a new size (as in C)."""
        self.allocations = 0
        """Tables made so far: the first search's, each new size's (as in C)."""

    def clear(self) -> None:
        """Empty the table."""
        self.tt.clear()


def round_tiers(p: _core.Position) -> tuple[tuple[int, ...], ...]:
    """``tiers[side][rings]``: the tier of a round won by a tower with ``rings``."""
    return tuple(
        tuple(
            15 if p.points[side] + RING_POINTS[r] >= p.target else RING_POINTS[r]
            for r in range(4)
        )
        for side in (0, 1)
    )


_FILE_A = 0x0101010101010101
_FILE_H = _FILE_A << 7
_NOT_A = M64 ^ _FILE_A
_NOT_H = M64 ^ _FILE_H


def _plain_mobility(bb: int, empty: int, gold: int) -> int:
    """Steps of the towers ``bb`` of one side, all with the full range (7):
    the rays of one direction never overlap, so flood fills count them."""
    n = 0
    if gold:
        g = bb
        while g:
            g = (g >> 8) & empty
            n += g.bit_count()
        g = bb
        while g:
            g = (g >> 7) & _NOT_A & empty
            n += g.bit_count()
        g = bb
        while g:
            g = (g >> 9) & _NOT_H & empty
            n += g.bit_count()
    else:
        g = bb
        while g:
            g = (g << 8) & empty
            n += g.bit_count()
        g = bb
        while g:
            g = (g << 7) & _NOT_H & empty
            n += g.bit_count()
        g = bb
        while g:
            g = (g << 9) & _NOT_A & empty
            n += g.bit_count()
    return n


def evaluator(p: _core.Position, w: Sequence[int], seed: int) -> Callable[[int, int], int]:
    """``evaluate(occ, hash)`` of the position ``p`` as it stands (C's ``evaluate``)."""
    tsq = p.tower_square
    rings = p.rings
    board = p.board
    w_threat, w_safe, w_nosafe, w_mob, w_adv, w_tempo, w_noise = w
    paths = [WIN_PATHS[t >> 3][rings[t]] for t in range(16)]
    reach_masks = [REACH_MASKS[t >> 3][rings[t]] for t in range(16)]
    plain = ([t for t in range(8) if not rings[t]], [t for t in range(8, 16) if not rings[t]])
    ringed = [t for t in range(16) if rings[t]]
    colour_sq = COLOUR_SQ
    bit = BIT
    noise_mod = (2 * w_noise + 1) & M64

    def evaluate(occ: int, h: int) -> int:
        us = p.turn
        them = us ^ 1
        # towers with a free path to the goal row, and their colours
        threats = [0, 0]
        colours = [0, 0]
        adv = 0  # Black's ranks minus Gold's (7 - rank) each
        for side in (0, 1):
            n = 0
            cs = 0
            t = side * 8
            for c in range(8):
                sq = tsq[t]
                adv += sq >> 3
                for m in paths[t][sq]:
                    if not occ & m:
                        n += 1
                        cs |= 1 << c
                        break
                t += 1
            threats[side] = n
            colours[side] = cs
        adv -= 56
        sc = w_tempo + w_threat * (threats[us] - threats[them])
        sc += w_adv * (adv if us == 0 else -adv)
        if w_mob:
            empty = M64 ^ occ
            mob = [0, 0]
            for side in (0, 1):
                bb = 0
                for t in plain[side]:
                    bb |= bit[tsq[t]]
                mob[side] = _plain_mobility(bb, empty, side)
            for t in ringed:
                sq = tsq[t]
                n = 0
                if t & 8:
                    for m, ln in reach_masks[t][sq]:
                        blk = occ & m
                        n += (sq >> 3) - ((blk.bit_length() - 1) >> 3) - 1 if blk else ln
                else:
                    for m, ln in reach_masks[t][sq]:
                        blk = occ & m
                        n += ((blk & -blk).bit_length() - 1 >> 3) - (sq >> 3) - 1 if blk else ln
                mob[t >> 3] += n
            sc += w_mob * (mob[us] - mob[them])
        must = p.must_move
        if must >= 0 and (w_safe or w_nosafe):
            # safe moves of the tower to move: a step onto a square of the
            # colour of a tower of theirs with a free path is safe only if
            # the step blocks each path that is free once our tower has left
            t = us * 8 + must
            sq = tsq[t]
            reach = 0
            if t & 8:
                for m, _ in reach_masks[t][sq]:
                    blk = occ & m
                    reach |= m & ~((1 << blk.bit_length()) - 1) if blk else m
            else:
                for m, _ in reach_masks[t][sq]:
                    blk = occ & m
                    reach |= m & ((blk & -blk) - 1) if blk else m
            safe_sq = M64
            threat = colours[them]
            if threat:
                occ0 = occ ^ bit[sq]
                tbase = them * 8
                for c in range(8):
                    if threat >> c & 1:
                        tt = tbase + c
                        need = -1
                        for m in paths[tt][tsq[tt]]:
                            if not occ0 & m:
                                need &= m
                        safe_sq ^= colour_sq[c] & ~need
            safe = (reach & safe_sq).bit_count()
            if rings[t] and push_length(board, rings, tsq, t):
                safe += 1
            sc += w_safe * safe
            if not safe:
                sc -= w_nosafe
        if w_noise:
            z = h ^ seed
            z = ((z ^ (z >> 31)) * 0x94D049BB133111EB) & M64
            z ^= z >> 29
            r = (z % noise_mod) & 0xFFFFFFFF  # C's (int) of a u64
            sc += (r - (1 << 32) if r >> 31 else r) - w_noise
        if sc > EVAL_MAX:
            return EVAL_MAX
        if sc < -EVAL_MAX:
            return -EVAL_MAX
        return sc

    return evaluate



#: ``on_iteration(depth, score, nodes, seconds, seldepth, pv[, lines])``: true to stop
#: (``lines``, the ``(score, pv)`` of each line, only with ``multipv`` or ``root_moves``).
OnIteration = Callable[..., object]


def _root(
    tree: Tree,
    cp: _core.Position,
    lim: Limits,
    depth: int,
    rm: list[list[Any]],
    k: int,
    h: int,
    occ: int,
) -> bool:
    """One depth of a MultiPV search over the root moves ``rm`` (entries
    ``[move, score, exact, pv]``): C's ``se_root``.  Whether it was cut short."""
    tree.pvs[0] = ()
    lim.nodes += 1
    if lim.nodes >= lim.next_check and lim.check() or lim.stop:
        return True
    side = cp.turn
    tiers = round_tiers(cp)
    top: list[int] = []  # the best exact scores so far, best first
    cut = False
    for i, r in enumerate(rm):
        m = r[0]
        full = len(top) < k
        alpha = -_S_INF if full else top[k - 1]
        h2, occ2 = make(cp, m, h, occ)
        o = cp.outcome
        if o is not None:
            ws = WIN_BASE + 256 * tiers[o.winner][o.rings] - 1
            v = ws if o.winner == side else -ws
            tree.pvs[1] = ()
        else:
            same = cp.turn == side
            se = tree.search
            if full:
                v = se(depth - 1, -_S_INF, _S_INF, 1, 1, h2, occ2)
                v = v if same else -v
            else:
                if same:
                    v = se(depth - 1, alpha, alpha + 1, 1, 0, h2, occ2)
                else:
                    v = -se(depth - 1, -alpha - 1, -alpha, 1, 0, h2, occ2)
                if v > alpha and not lim.stop:
                    v = (
                        se(depth - 1, alpha, _S_INF, 1, 1, h2, occ2)
                        if same
                        else -se(depth - 1, -_S_INF, -alpha, 1, 1, h2, occ2)
                    )
        cp.pop_code()
        if lim.stop:
            for rest in rm[i:]:  # the moves not searched rank last, with no score
                rest[1:] = [-_S_INF - 1, False, (rest[0],)]
            cut = True
            break
        exact = full or v > alpha
        r[1:] = [v, exact, (m, *tree.pvs[1]) if exact else (m,)]
        if exact:
            top.append(v)
            top.sort(reverse=True)
            del top[k:]
    rm.sort(key=lambda r: (-r[1], not r[2]))
    return cut

def run(
    cp: _core.Position,
    h: int,
    occ: int,
    max_depth: int,
    time_ms: float,
    node_limit: int,
    w: Sequence[int],
    seed: int,
    tt_log2: int,
    keep_tt: bool,
    on_iteration: OnIteration | None,
    table: Table,
    flag: StopFlag | None = None,
    multipv: int = 0,
    root_moves: Sequence[int] = (),
) -> dict[str, Any]:
    """Iterative deepening from ``cp`` (a copy the search may use; key ``h``,
    occupancy ``occ``) with checked arguments, with ``table``, stopped by
    ``flag`` after the first depth: ``Searcher_search`` in C.  ``multipv``
    (or ``root_moves``, legal codes) searches the root's moves for that many
    lines (:func:`_root`), answered in ``lines``."""
    if table.log2 != tt_log2:
        table.tt = {}
        table.log2 = tt_log2
        table.generation = 1
        table.allocations += 1
    elif not keep_tt or not table.generation:
        table.tt.clear()
        table.generation += 1
    t0 = time.monotonic()
    lim = Limits(int(node_limit), float(time_ms))
    tree = Tree(cp, w, seed, lim, table.tt, (1 << tt_log2) - 1)

    root = cp.move_codes()
    if seed:
        rs = seed
        for i in range(len(root) - 1, 0, -1):
            rs, z = splitmix(rs)
            j = z % (i + 1)
            root[i], root[j] = root[j], root[i]
        for i, m in enumerate(root):
            tree.history[(cp.board[m & 63] & 15) << 6 | m >> 6] = len(root) - i

    lines_mode = multipv > 0 or bool(root_moves)
    rm: list[list[Any]] = [[m, 0, False, ()] for m in root if not root_moves or m in root_moves]
    k = min(multipv or 1, len(rm))
    lines: list[tuple[int, list[int]]] = []
    lead: tuple[int, int, list[int]] | None = None
    done_depth = done_score = done_sel = 0
    done_pv: tuple[int, ...] = ()
    iterations: list[tuple[int, int, int, float]] = []
    for d in range(1, max_depth + 1):
        tree.seldepth = 0
        # the first depth always finishes (a move to answer); the flag ends the deeper ones
        lim.flag = None if d == 1 else flag
        if d > 1 and flag is not None and flag.stopped:
            break
        if lines_mode:
            keep = [r[:] for r in rm]
            cut = _root(tree, cp, lim, d, rm, k, h, occ)
            if cut and d > 1:
                # the lead: the depth's best searched move, when it beats the last depth's
                if rm[0][2] and rm[0][1] > keep[0][1]:
                    lead = (d, rm[0][1], list(rm[0][3]))
                rm = keep
                break
            # (the first depth, cut short by a limit: the moves it searched)
            v = rm[0][1] if rm[0][2] else 0
            tree.pvs[0] = rm[0][3] if rm[0][2] else ()
            lines = []
            for r in rm[:k]:
                if not r[2]:
                    break
                lines.append((r[1], list(r[3])))
        else:
            v = tree.search(d, -_S_INF, _S_INF, 0, 1, h, occ)
        if lim.stop and d > 1:
            break
        done_depth, done_score = d, v
        done_pv = tree.pvs[0]
        done_sel = tree.seldepth
        iterations.append((d, v, lim.nodes, time.monotonic() - t0))
        if on_iteration is not None:
            extra: tuple[Any, ...] = ([(s, list(pv)) for s, pv in lines],) if lines_mode else ()
            if on_iteration(
                d, v, lim.nodes, time.monotonic() - t0, done_sel, list(done_pv), *extra
            ):
                break
        if lim.stop:
            break
        # a proven result within the horizon needs no deeper search, unless
        # a more valuable round (match points) might lie beyond it; with
        # several lines, once each of them is so proven
        if _settled(v, d) and all(_settled(r[1], d) for r in rm[1:k]):
            break
    if lines_mode:
        return {**_answer(done_depth, done_score, done_pv, lim, t0, done_sel, iterations),
                "lines": lines, "lead": lead}
    return _answer(done_depth, done_score, done_pv, lim, t0, done_sel, iterations)


def _settled(v: int, d: int) -> bool:
    """Whether a proven score at depth ``d`` needs no deeper search (C's ``settled``)."""
    if v > WIN_BASE or v < -WIN_BASE:
        over = abs(v) - WIN_BASE
        tier = (over + 255) // 256
        return 256 * tier - over <= d and tier == 15
    return False


def _answer(
    done_depth: int,
    done_score: int,
    done_pv: tuple[int, ...],
    lim: Limits,
    t0: float,
    done_sel: int,
    iterations: list[tuple[int, int, int, float]],
) -> dict[str, Any]:
    """The answer of :func:`run`, as C's ``Searcher_search`` builds it."""
    return {
        "depth": done_depth,
        "score": done_score,
        "pv": list(done_pv),
        "nodes": lim.nodes,
        "seconds": time.monotonic() - t0,
        "seldepth": done_sel,
        "iterations": iterations,
    }


class Tree:
    """The state of one search: C's ``Searcher`` and ``se_search``."""

    def __init__(
        self,
        cp: _core.Position,
        w: Sequence[int],
        seed: int,
        lim: Limits,
        tt: dict[int, tuple[int, int, int, int, int]],
        mask: int,
    ) -> None:
        self.history = [0] * 1024
        self.pvs: list[tuple[int, ...]] = [()] * (MAXPLY + 1)
        self.seldepth = 0
        self.search = self._build(cp, w, seed, lim, tt, mask)

    def _build(
        self,
        cp: _core.Position,
        w: Sequence[int],
        seed: int,
        lim: Limits,
        tt: dict[int, tuple[int, int, int, int, int]],
        mask: int,
    ) -> Callable[[int, int, int, int, int, int, int], int]:
        board = cp.board
        tsq = cp.tower_square
        rings = cp.rings
        push = cp.push_code
        pop = cp.pop_code
        gen = cp.move_codes
        history = self.history
        pvs = self.pvs
        killers = [[0, 0] for _ in range(MAXPLY)]
        tiers = round_tiers(cp)
        paths = [WIN_PATHS[t >> 3][rings[t]] for t in range(16)]
        evaluate = evaluator(cp, w, seed)
        safe_replies = safe_replies_fn(cp)
        ring_key = 0
        for t in range(16):
            ring_key ^= ZR[t << 2 | rings[t]]
        zt = ZT
        smk = SMK
        bit = BIT
        forward = FORWARD
        maxply = MAXPLY - 1
        goal_rank = GOAL_RANK
        colour = SQUARE_COLOUR
        first_steps = FIRST_STEP
        tree = self

        def full_hash() -> int:
            h = ring_key ^ smk[cp.turn * 9 + cp.must_move + 1]
            for t in range(16):
                h ^= zt[t << 6 | tsq[t]]
            return h

        def win_score(ply: int, tier: int) -> int:
            return WIN_BASE + 256 * tier - (ply if ply < 255 else 255)

        def se(depth: int, alpha: int, beta: int, ply: int, pvnode: int, h: int, occ: int) -> int:
            pvs[ply] = ()
            lim.nodes += 1
            if ply > tree.seldepth:
                tree.seldepth = ply
            if lim.nodes >= lim.next_check and lim.check() or lim.stop:
                return 0
            side = cp.turn
            must = cp.must_move
            if ply > 0:
                # the root searches its moves, so that the PV has the winning move
                best_tier = -1
                base = side * 8
                for c in range(8) if must < 0 else (must,):
                    t = base + c
                    for m in paths[t][tsq[t]]:
                        if not occ & m:
                            tr = tiers[side][rings[t]]
                            if tr > best_tier:
                                best_tier = tr
                            break
                if best_tier >= 0:
                    return win_score(ply + 1, best_tier)
            if depth <= 0 or ply >= maxply:
                return evaluate(occ, h)
            e = tt.get(h & mask)
            ttmove = 0
            if e is not None and e[0] == h:
                ttmove = e[2]
                if not pvnode and e[3] >= depth:
                    v = e[1]
                    if v >= WIN_MIN:
                        v -= ply
                    elif v <= -WIN_MIN:
                        v += ply
                    flag = e[4]
                    if (
                        flag == _F_EXACT
                        or (flag == _F_LOWER and v >= beta)
                        or (flag == _F_UPPER and v <= alpha)
                    ):
                        return v
            mv = gen()
            n = len(mv)
            score = [0] * n
            k0, k1 = killers[ply]
            goal = goal_rank[side]
            obase = 8 - side * 8
            first_step = first_steps[side ^ 1]
            for i in range(n):
                m = mv[i]
                if m == ttmove:
                    score[i] = 1 << 30
                elif m == k0:
                    score[i] = 1 << 28
                elif m == k1:
                    score[i] = (1 << 28) - 1
                else:
                    frm = m & 63
                    to = m >> 6
                    mover = board[frm]
                    hs = history[(mover & 15) << 6 | to]
                    if hs > 0xFFFFF:
                        hs = 0xFFFFF
                    if board[to] < 0:
                        if to >> 3 == goal:
                            score[i] = 1 << 29
                            continue
                        occ2 = occ ^ bit[frm] ^ bit[to]
                        t2 = obase + colour[to]
                        if first_step[tsq[t2]] & ~occ2:
                            # the opponent's tower can move: no passes, no
                            # outcome; look at the child without making it
                            board[frm] = -1
                            board[to] = mover
                            tsq[mover] = to
                            sr = safe_replies(side, t2, occ2)
                            board[to] = -1
                            board[frm] = mover
                            tsq[mover] = frm
                            score[i] = -(1 << 28) + hs if sr == 64 else ((64 - sr) << 20) + hs
                            continue
                    else:
                        ray = forward[side][frm]
                        k = 1
                        while board[ray[k]] >= 0:
                            k += 1
                        occ2 = occ ^ bit[frm] ^ bit[ray[k]]
                    push(m)
                    o = cp.outcome
                    if o is not None:
                        score[i] = (1 << 29) if o.winner == side else -(1 << 29)
                    elif cp.turn != side:
                        sr = safe_replies(side, cp.turn * 8 + cp.must_move, occ2)
                        score[i] = -(1 << 28) + hs if sr == 64 else ((64 - sr) << 20) + hs
                    else:
                        score[i] = (32 << 20) + hs
                    pop()
            alpha0 = alpha
            best = -_S_INF
            bestmove = 0
            hb = h ^ smk[side * 9 + must + 1]
            for i in range(n):
                if i + 1 < n:
                    bi = max(range(i, n), key=score.__getitem__)
                    if bi != i:
                        mv[i], mv[bi] = mv[bi], mv[i]
                        score[i], score[bi] = score[bi], score[i]
                m = mv[i]
                frm = m & 63
                to = m >> 6
                mover = board[frm]
                if board[to] < 0:
                    occ2 = occ ^ bit[frm] ^ bit[to]
                    push(m)
                    h2 = (
                        hb
                        ^ zt[mover << 6 | frm]
                        ^ zt[mover << 6 | to]
                        ^ smk[cp.turn * 9 + cp.must_move + 1]
                    )
                else:
                    ray = forward[side][frm]
                    k = 1
                    while board[ray[k]] >= 0:
                        k += 1
                    occ2 = occ ^ bit[frm] ^ bit[ray[k]]
                    push(m)
                    h2 = full_hash()
                o = cp.outcome
                if o is not None:
                    ws = win_score(ply + 1, tiers[o.winner][o.rings])
                    v = ws if o.winner == side else -ws
                    pvs[ply + 1] = ()  # the round ended: nothing follows in the PV
                elif cp.turn == side:
                    if i == 0:
                        v = se(depth - 1, alpha, beta, ply + 1, pvnode, h2, occ2)
                    else:
                        v = se(depth - 1, alpha, alpha + 1, ply + 1, 0, h2, occ2)
                        if alpha < v < beta and not lim.stop:
                            v = se(depth - 1, alpha, beta, ply + 1, pvnode, h2, occ2)
                elif i == 0:
                    v = -se(depth - 1, -beta, -alpha, ply + 1, pvnode, h2, occ2)
                else:
                    v = -se(depth - 1, -alpha - 1, -alpha, ply + 1, 0, h2, occ2)
                    if alpha < v < beta and not lim.stop:
                        v = -se(depth - 1, -beta, -alpha, ply + 1, pvnode, h2, occ2)
                pop()
                if lim.stop:
                    return 0
                if v > best:
                    best = v
                    bestmove = m
                    if v > alpha:
                        alpha = v
                        pvs[ply] = (m, *pvs[ply + 1])
                        if v >= beta:
                            kl = killers[ply]
                            if m != kl[0]:
                                kl[1] = kl[0]
                                kl[0] = m
                            hi = (mover & 15) << 6 | to
                            history[hi] += depth * depth
                            if history[hi] > 1 << 26:
                                for a in range(1024):
                                    history[a] >>= 1
                            break
            if n == 0:
                return evaluate(occ, h)  # not reached: a round in progress has moves
            flag = _F_LOWER if best >= beta else _F_EXACT if best > alpha0 else _F_UPPER
            slot = h & mask
            e = tt.get(slot)
            if e is None or e[0] != h:
                keep = 0
            elif depth >= e[3] or flag == _F_EXACT:
                keep = e[2]
            else:
                return best
            stored = best + ply if best >= WIN_MIN else best - ply if best <= -WIN_MIN else best
            tt[slot] = (h, stored, keep if flag == _F_UPPER else bestmove, depth, flag)
            return best

        return se
