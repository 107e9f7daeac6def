/*
 * solve.h: what the solver's files share (solve.c, solve_pn.c, solve_pt.c;
 * not part of the core's API, kamisado.h): the Solver, its table of bounds
 * on exact values, the arithmetic of values "resolved within d moves", the
 * move ordering, the keys and ends of the threshold games, and the roots
 * that one file calls in another.  Helpers used in the hot loops of more
 * than one file are defined here (static), so that each file's compiler
 * sees them as it did when the solver was one file.
 */

#ifndef KAMISADO_SOLVE_H
#define KAMISADO_SOLVE_H

#include "kamisado.h"

/* A helper of this header that some of the files including it do not call. */
#define SV_SHARED static __attribute__((unused))

/*
 * Exact game values, from the side to move: a win in n moves is MATE - n,
 * a loss in n moves is -(MATE - n) (moves of both sides, the winning move
 * included, passes not counted; a push is a move).  Kamisado has no draws
 * and no repetitions (towers only move forwards, and a tower is only pushed
 * back by a stronger one), so every position has such a value.
 *
 * DL_d(v), the value "resolved within d moves", is v when |v| >= MATE - d and
 * 0 otherwise.  ``sv_search(d, alpha, beta)`` is alpha-beta on DL_d (fail
 * soft).  Minimax of DL_{d-1} over the children is DL_d (the winner picks
 * the shortest win, the loser the longest resistance), so iterative
 * deepening on d gives the exact value at the first d where it is not 0.
 *
 * The transposition table holds bounds lo <= v <= hi on the exact value,
 * valid for every depth: a search result r at depth d that is a lower bound
 * on DL_d gives lo = r when r > 0 and lo = min(r, -(MATE-d-1)) otherwise;
 * an upper bound gives hi = r when r < 0 and hi = max(r, MATE-d-1).
 */

#define LOSE2 (-(1 << 28))
#define WIN3 ((1 << 29) - 1)

#define SV_INF 32000
#define SV_BUCKET 4

typedef struct {
    Pos p;
    Limits L;
    SvEntry *tt;
    size_t mask;
    DfEntry *df;
    size_t df_mask;
    uint32_t history[16][64];
} Solver;

static inline SvEntry *sv_bucket(const Solver *s, u64 key)
{
    return &s->tt[(key & s->mask) & ~(size_t)(SV_BUCKET - 1)];
}

static inline SvEntry *sv_probe(const Solver *s, u64 key)
{
    SvEntry *b = sv_bucket(s, key);
    for (int i = 0; i < SV_BUCKET; i++)
        if (b[i].key == key)
            return &b[i];
    return NULL;
}

static inline void sv_store(Solver *s, u64 key, int lo, int hi, int move, int work)
{
    SvEntry *b = sv_bucket(s, key);
    SvEntry *e = NULL;
    for (int i = 0; i < SV_BUCKET; i++)
        if (b[i].key == key) {
            e = &b[i];
            break;
        }
    if (e) {
        if (lo > e->lo)
            e->lo = (int16_t)lo;
        if (hi < e->hi)
            e->hi = (int16_t)hi;
        if (move)
            e->move = (uint16_t)move;
        if (work > e->work)
            e->work = (uint16_t)work;
        return;
    }
    /* an empty entry (key 0) first, else the one with the least work (a
     * stored entry of work 0 is never lost while the bucket has room: the
     * Python twin's table, a dictionary, keeps every entry) */
    e = &b[0];
    for (int i = 1; i < SV_BUCKET && e->key; i++)
        if (!b[i].key || b[i].work < e->work)
            e = &b[i];
    e->key = key;
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
    e->move = (uint16_t)move;
    e->work = (uint16_t)work;
}

static inline int dl(int v, int d)
{
    /* DL_d of an exact value v */
    if (v >= MATE - d || v <= -(MATE - d))
        return v;
    return 0;
}

/* Value of the parent from the value of a child (the mover's view).  A win
 * or a loss is one move further away. */
static inline int up_value(int c, int same)
{
    int v = same ? c : -c;
    return v > 0 ? v - 1 : v < 0 ? v + 1 : 0;
}

/* Window bound for the child from a bound of the parent (same side). */
static inline int down_bound(int v)
{
    return v > 0 ? v + 1 : v < 0 ? v - 1 : 0;
}

static inline int ilog2(u64 x)
{
    int r = 0;
    while (x > 1) {
        x >>= 1;
        r++;
    }
    return r;
}

/* Bounds on the exact value from a result r of a search on DL_d with the
 * window (alpha, beta) (fail soft). */
static inline void true_bounds(int r, int d, int alpha, int beta, int *lo, int *hi)
{
    int cut = MATE - d - 1; /* |v| <= cut: not resolved within d */
    *lo = -MATE;
    *hi = MATE;
    if (r >= beta) {
        *lo = r > 0 ? r : (r < -cut ? r : -cut);
    } else if (r <= alpha) {
        *hi = r < 0 ? r : (r > cut ? r : cut);
    } else if (r != 0) {
        *lo = *hi = r;
    } else {
        *lo = -cut;
        *hi = cut;
    }
}

/* Tower t's first steps from sq: 1 when one of them is empty in occ (then
 * t can move without a push). */
static inline int can_step(int t, int sq, u64 occ)
{
    int side = t >> 3;
    for (int d = 0; d < 3; d++)
        if (RAYLEN[side][d][sq] && !(occ & (1ULL << RAY[side][d][sq][0])))
            return 1;
    return 0;
}

/* Ordering scores of the moves mv[0..n): the TT move first, then moves
 * that win at once, then by the opponent's safe replies (fewest first; none
 * scores WIN3, one that wins at once for the opponent LOSE2), then history;
 * a move that loses at once last.  Shared by the exact and the winner-only
 * solver. */
SV_SHARED void sv_order(Solver *s, const uint16_t *mv, int n, int ttmove, int *score)
{
    Pos *p = &s->p;
    int side = p->turn;
    for (int i = 0; i < n; i++) {
        int m = mv[i];
        int sc;
        int frm = m & 63, to = m >> 6, t2 = (side ^ 1) * 8 + SQ_COLOUR[to];
        if (m == ttmove) {
            sc = 1 << 30;
        } else if (p->board[to] < 0 && (to >> 3) != GOAL_RANK[side] &&
                   can_step(t2, p->sq[t2], p->occ ^ (1ULL << frm) ^ (1ULL << to))) {
            /* a step after which the opponent's tower can step (no pass, no
             * end of the round): scored as after make_move, without it */
            int mover = p->board[frm];
            u64 occ = p->occ, child = p->hash ^ side_must_key(p) ^ Z_TOWER[mover][frm] ^
                                      Z_TOWER[mover][to] ^ (side ? 0 : Z_TURN) ^
                                      Z_MUST[SQ_COLOUR[to] + 1];
            PREFETCH(sv_bucket(s, child));
            int must = p->must;
            p->board[frm] = -1;
            p->board[to] = (int8_t)mover;
            p->sq[mover] = (uint8_t)to;
            p->occ = occ ^ (1ULL << frm) ^ (1ULL << to);
            p->turn = (int8_t)(side ^ 1);
            p->must = (int8_t)SQ_COLOUR[to];
            int sr = safe_replies(p, side);
            p->board[to] = -1;
            p->board[frm] = (int8_t)mover;
            p->sq[mover] = (uint8_t)frm;
            p->occ = occ;
            p->turn = (int8_t)side;
            p->must = (int8_t)must;
            if (sr == 64)
                sc = LOSE2;
            else if (sr == 0)
                sc = WIN3;
            else {
                uint32_t h = s->history[mover & 15][to] >> 4;
                sc = ((64 - sr) << 20) + (int)(h < 0xFFFFF ? h : 0xFFFFF);
            }
        } else {
            make_move(p, m);
            if (p->owinner >= 0) {
                sc = p->owinner == side ? (1 << 29) : -(1 << 29);
            } else if (p->turn != side) {
                /* the child's TT bucket is needed soon: fetch it now */
                PREFETCH(sv_bucket(s, p->hash));
                int sr = safe_replies(p, side);
                if (sr == 64)
                    sc = LOSE2;
                else if (sr == 0)
                    sc = WIN3;
                else {
                    uint32_t h = s->history[p->board[m >> 6] & 15][m >> 6] >> 4;
                    sc = ((64 - sr) << 20) + (int)(h < 0xFFFFF ? h : 0xFFFFF);
                }
            } else {
                sc = (32 << 20);
            }
            unmake_move(p);
        }
        score[i] = sc;
    }
}

/* The keys and the ends of the threshold games of points (see solve_pt.c). */

/* splitmix64 from 0x706F696E7473 ("points"), the 4th set to 0 (as _pure/solve) */
static const u64 PT_CUT_KEY[7] = {
    0x9c5cb4002ea3b053ULL, 0x7af84b5b255a4c68ULL, 0x7b37b773663f055cULL, 0,
    0xe49b8132f7f2e7c1ULL, 0xd60173d2f1b4b8a7ULL, 0x11749709bdf21866ULL,
};

static inline u64 pt_key(u64 h, int cut)
{
    return h ^ PT_CUT_KEY[cut / 2 + 3];
}

/* 1 when the round's end (p->owinner >= 0) wins the game of cut for side. */
static inline int pt_end(const Pos *p, int side, int cut)
{
    int sc = 2 * p->orings + 1;
    return (p->owinner == side ? sc : -sc) > cut ? 1 : -1;
}

/* The side to move wins the game of cut at once (a tower with the rings
 * reaches its goal row). */
static inline int pt_win_now(const Pos *p, int cut)
{
    int base = p->turn * 8;
    int first = p->must >= 0 ? p->must : 0, last = p->must >= 0 ? p->must : 7;
    for (int c = first; c <= last; c++)
        if (2 * p->rings[base + c] + 1 > cut && tower_can_win(p, base + c, p->occ))
            return 1;
    return 0;
}

/* The roots one file calls in another: the proof-number search's
 * (solve_pn.c), who wins and the points (solve_pt.c). */
int df_root(Solver *s, int cut, int *bestmove);
int wl_root(Solver *s, int max_depth, int cut, int *next, u64 *spent, int *bestmove,
            int *depth_done);
int pt_root(Solver *s, int max_depth, int *bestmove, int *depth_done, int *lo, int *hi);

#endif
