/*
 * solve.c: the solver.
 *
 * Depth-limited win/loss/unknown alpha-beta on exact game values with
 * iterative deepening (sv_root within a horizon; without one ex_root: who
 * wins first, then one-sided tests of the winner's distance), a
 * who-wins-only search (wl_root: a depth-first proof-number search, df_mid,
 * or alpha-beta within a horizon, pt_search), and a transposition table of
 * bounds on the exact value (independent of depth).  A root equal to its
 * mirror image searches one of each pair of mirrored moves.
 */

#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

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
static void sv_order(Solver *s, const uint16_t *mv, int n, int ttmove, int *score)
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

/* After side's tower ``mover`` stepped to ``to`` (not made; occupancy occ2),
 * the opponent's tower t2 to move: 1 when one of t2's steps leaves side a
 * tower that can step, so that the opponent does not lose at once (a
 * deadlock needs a pass).  0 means: make the move to know. */
static int some_reply_survives(const Pos *p, int side, int mover, int to, int t2, u64 occ2)
{
    int sq2 = p->sq[t2], range = RANGE[p->rings[t2]];
    for (int d = 0; d < 3; d++) {
        const uint8_t *ray = RAY[side ^ 1][d][sq2];
        int len = RAYLEN[side ^ 1][d][sq2];
        if (len > range)
            len = range;
        for (int i = 0; i < len; i++) {
            int s2 = ray[i];
            if (occ2 & (1ULL << s2))
                break;
            int t3 = side * 8 + SQ_COLOUR[s2];
            int sq3 = t3 == mover ? to : p->sq[t3];
            if (can_step(t3, sq3, occ2 ^ (1ULL << sq2) ^ (1ULL << s2)))
                return 1;
        }
    }
    return 0;
}

/* Every move of the side to move ends the round against it (a deadlock it
 * causes).  A step after which the opponent's tower can step is no such
 * move, known without making it. */
static int loses_at_once(Solver *s)
{
    Pos *p = &s->p;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int side = p->turn;
    for (int i = 0; i < n; i++) {
        int frm = mv[i] & 63, to = mv[i] >> 6;
        if (p->board[to] < 0) {
            if ((to >> 3) == GOAL_RANK[side])
                return 0;
            int t2 = (side ^ 1) * 8 + SQ_COLOUR[to];
            if (can_step(t2, p->sq[t2], p->occ ^ (1ULL << frm) ^ (1ULL << to)))
                return 0;
        }
        make_move(p, mv[i]);
        int lost = p->owinner >= 0 && p->owinner != side;
        unmake_move(p);
        if (!lost)
            return 0;
    }
    return 1;
}

/* DL_1 of a position in progress, for its side to move: a win at once, or
 * a loss when every move ends the round against the mover (a deadlock it
 * causes), or 0. */
static int sv_dl1(Solver *s)
{
    Pos *p = &s->p;
    s->L.nodes++;
    if (can_win_now(p))
        return MATE - 1;
    return loses_at_once(s) ? -(MATE - 1) : 0;
}

/* DL_2 (fail soft above beta) of a position without a win at once. */
static int sv_dl2(Solver *s, int beta)
{
    Pos *p = &s->p;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int side = p->turn;
    int best = -SV_INF;
    for (int i = 0; i < n; i++) {
        int frm = mv[i] & 63, to = mv[i] >> 6, v = 0, known = 0;
        if (p->board[to] < 0 && (to >> 3) != GOAL_RANK[side]) {
            /* a step: the child's node (sv_dl1) decided without making it
             * where the opponent's tower can step */
            u64 occ2 = p->occ ^ (1ULL << frm) ^ (1ULL << to);
            int t2 = (side ^ 1) * 8 + SQ_COLOUR[to];
            if (can_step(t2, p->sq[t2], occ2)) {
                if (tower_can_win(p, t2, occ2))
                    known = 1, v = -(MATE - 2); /* the opponent wins at once */
                else if (some_reply_survives(p, side, p->board[frm], to, t2, occ2))
                    known = 1, v = 0;
                if (known)
                    s->L.nodes++;
            }
        }
        if (!known) {
            make_move(p, mv[i]);
            if (p->owinner >= 0)
                v = p->owinner == side ? MATE - 1 : -(MATE - 1);
            else
                v = up_value(sv_dl1(s), p->turn == side);
            unmake_move(p);
        }
        if (v > best) {
            best = v;
            if (best >= beta)
                break;
        }
    }
    return best;
}

static int sv_search(Solver *s, int d, int alpha, int beta)
{
    Pos *p = &s->p;
    if (d <= 0)
        return 0;
    s->L.nodes++;
    if (limits_hit(&s->L))
        return 0;
    if (can_win_now(p))
        return MATE - 1;
    if (alpha >= MATE - 1)
        return MATE - 1; /* an upper bound: nothing beats a win at once */
    if (beta <= -(MATE - 1))
        return -(MATE - 1);
    /* Only values outside the window matter: shorten the horizon.  The
     * result is then converted back to DL_d0 through bounds on the exact
     * value. */
    int d0 = d;
    if (alpha > 0 && MATE - alpha - 1 < d)
        d = MATE - alpha - 1;
    if (beta < 0 && MATE + beta - 1 < d)
        d = MATE + beta - 1;
    int best = -SV_INF, bestmove = 0;
    int lo, hi;
    u64 key = p->hash;
    if (d <= 2) {
        if (d <= 1) {
            /* No win within 1 (checked); a loss within 1 needs every move to
             * end the round against us (a deadlock we cause). */
            best = loses_at_once(s) ? -(MATE - 1) : 0;
        } else {
            best = sv_dl2(s, beta);
        }
        if (d == d0)
            return best;
        true_bounds(best, d, alpha, beta, &lo, &hi);
        return best >= beta ? dl(lo, d0) : best <= alpha ? dl(hi, d0) : best;
    }
    SvEntry *e = sv_probe(s, key);
    int ttmove = 0;
    if (e) {
        int tlo = dl(e->lo, d), thi = dl(e->hi, d);
        if (tlo >= beta || thi <= alpha || tlo == thi) {
            int r = tlo >= beta ? tlo : thi <= alpha ? thi : tlo;
            if (d == d0)
                return r;
            true_bounds(r, d, alpha, beta, &lo, &hi);
            return r >= beta ? dl(lo, d0) : r <= alpha ? dl(hi, d0) : r;
        }
        if (tlo > alpha)
            alpha = tlo;
        if (thi < beta)
            beta = thi;
        ttmove = e->move;
    }
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int alpha0 = alpha;
    u64 nodes0 = s->L.nodes;
    /* Order: the TT move first, then by the opponent's safe replies (fewest
     * first), then history. */
    /* The TT move is searched before the other moves are scored (it would
     * score highest): when it cuts off, their scoring is saved. */
    int score[MAXMOVES];
    int scored = 0; /* the moves before this one are scored; -1: all are */
    for (int j = 0; ttmove && j < n; j++)
        if (mv[j] == ttmove) {
            mv[j] = mv[0];
            mv[0] = (uint16_t)ttmove;
            score[0] = 1 << 30;
            scored = 1;
            break;
        }
    for (int i = 0; i < n; i++) {
        if (i == scored) {
            sv_order(s, mv + i, n - i, i ? 0 : ttmove, score + i);
            scored = -1;
        }
        if (scored < 0)
            pick_next(mv, score, i, n);
        int m = mv[i];
        int v;
        if (score[i] == LOSE2) {
            /* the opponent wins at once after this move */
            v = -(MATE - 2);
        } else if (score[i] == WIN3 && d >= 3) {
            /* every reply lets us win at once */
            v = MATE - 3;
        } else {
            make_move(p, m);
            if (p->owinner >= 0) {
                v = p->owinner == side ? MATE - 1 : -(MATE - 1);
            } else if (p->turn == side) {
                int c = sv_search(s, d - 1, down_bound(alpha), down_bound(beta));
                v = up_value(c, 1);
            } else {
                int c = sv_search(s, d - 1, -down_bound(beta), -down_bound(alpha));
                v = up_value(c, 0);
            }
            unmake_move(p);
        }
        if (s->L.stop)
            return 0;
        if (v > best) {
            best = v;
            bestmove = m;
            if (v > alpha) {
                alpha = v;
                if (v >= beta) {
                    uint32_t *h = &s->history[p->board[m & 63] & 15][m >> 6];
                    *h += (uint32_t)(d * d);
                    if (*h > (1u << 30))
                        for (int a = 0; a < 16; a++)
                            for (int b = 0; b < 64; b++)
                                s->history[a][b] >>= 1;
                    break;
                }
            }
        }
    }
    true_bounds(best, d, alpha0, beta, &lo, &hi);
    sv_store(s, key, lo, hi, best > alpha0 ? bestmove : ttmove, ilog2(s->L.nodes - nodes0 + 1));
    if (d == d0)
        return best;
    return best >= beta ? dl(lo, d0) : best <= alpha0 ? dl(hi, d0) : best;
}

/* A budget of ``nodes`` more nodes within the limits: budget_begin sets it
 * and answers the node limit to restore; budget_end restores it and
 * answers 1 when the budget alone stopped the work (the stop is then
 * cleared), 0 otherwise (no stop, or a real limit, the flag or Ctrl-C). */
static u64 budget_begin(Limits *L, u64 nodes)
{
    u64 saved = L->node_limit, lim = L->nodes + nodes;
    if (!saved || lim < saved)
        L->node_limit = lim;
    L->next_check = L->nodes; /* look at the new limit at once */
    return saved;
}

static int budget_end(Limits *L, u64 saved)
{
    L->node_limit = saved;
    if (L->stop && !L->interrupted && (!saved || L->nodes < saved) &&
        !(L->flag && atomic_load_explicit(L->flag, memory_order_relaxed)) &&
        !(L->deadline > 0 && now_ms() >= L->deadline)) {
        L->stop = 0;
        return 1;
    }
    return 0;
}

/* -- a round's value in points ---------------------------------------------
 *
 * A round won with a tower of r rings is worth 2**r points (1, 2, 4, 8).
 * From the side to move, score an end of the round 2r+1 when it wins, and
 * -(2r+1) when it loses: the odd numbers -7..7, in the order of the points.
 * The threshold game of an even ``cut`` (-6..6) is won by the side to move
 * when the round ends with a score above cut, else by the other side; for
 * the other side it is the game of -cut (no score equals a cut).  Cut 0 is
 * who wins; cut 2k: "wins with a tower of at least k rings"; cut -2k: "does
 * not lose to a tower of k rings or more".  Rings do not change within a
 * round, so a cut is tried at the root only when a tower of the side that
 * needs it has the rings (pt_root).
 *
 * Within a horizon, pt_search(d) proves who wins the game of a cut: 1 when
 * the side to move wins, -1 when it loses, 0 when it cannot tell (or a
 * limit stopped it: L.stop).  It is the sign of DL_d, found cheaply: the
 * first winning move ends a node (the exact search must go on to find the
 * shortest win), and a win or loss proven at any distance (in the table,
 * or by the move-ordering tests) counts, so 1 and -1 hold at every distance
 * while 0 means: neither side wins within d.  Iterative deepening on d
 * (wl_root) ends at the first d where the root is decided, at most its
 * exact distance.  Cut 0 is the who-wins search of the exact solver's
 * table: a win is stored as lo = 1 (a win at some distance), a loss as
 * hi = -1, "neither within d" as the bounds -(MATE-d-1)..MATE-d-1; all are
 * bounds on the exact value, valid for both solvers.  The entries of other
 * cuts are keyed by the position's key XOR PT_CUT_KEY[cut / 2 + 3] (0 for
 * cut 0), with the same bounds.  The move-ordering proofs hold where the
 * cut allows: every reply letting us win at once wins a game of cut <= 0, a
 * reply that wins at once for the opponent loses a game of cut >= 0.
 */

/* splitmix64 from 0x706F696E7473 ("points"), the 4th set to 0 (as _pysolve) */
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

static int pt_search(Solver *s, int d, int alpha, int beta, int cut)
{
    Pos *p = &s->p;
    s->L.nodes++;
    if (limits_hit(&s->L))
        return 0;
    if (pt_win_now(p, cut))
        return 1;
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    if (d <= 1) {
        /* within 1: a move that ends the round for us, or all against us */
        int r = -1;
        for (int i = 0; i < n; i++) {
            make_move(p, mv[i]);
            int v = p->owinner >= 0 ? pt_end(p, side, cut) : 0;
            unmake_move(p);
            if (v > 0)
                return 1;
            if (!v)
                r = 0;
        }
        return r;
    }
    u64 key = pt_key(p->hash, cut);
    SvEntry *e = sv_probe(s, key);
    int ttmove = 0;
    if (e) {
        if (e->lo > 0)
            return 1;
        if (e->hi < 0)
            return -1;
        int tlo = e->lo > -(MATE - d) ? 0 : -1;
        int thi = e->hi < MATE - d ? 0 : 1;
        if (tlo >= beta || thi <= alpha || tlo == thi)
            return 0;
        ttmove = e->move;
    }
    u64 nodes0 = s->L.nodes;
    int score[MAXMOVES];
    sv_order(s, mv, n, ttmove, score);
    int alpha0 = alpha, best = -2, bestmove = 0;
    for (int i = 0; i < n; i++) {
        pick_next(mv, score, i, n);
        int m = mv[i];
        if (score[i] <= LOSE2 && cut >= 0) {
            if (best < -1)
                best = -1;
            break;
        }
        int v;
        if (score[i] == WIN3 && cut <= 0) {
            v = 1;
        } else {
            make_move(p, m);
            if (p->owinner >= 0)
                v = pt_end(p, side, cut);
            else if (p->turn == side)
                v = pt_search(s, d - 1, alpha, beta, cut);
            else
                v = -pt_search(s, d - 1, -beta, -alpha, -cut);
            unmake_move(p);
        }
        if (s->L.stop)
            return 0;
        if (v > 0) {
            uint32_t *h = &s->history[p->board[m & 63] & 15][m >> 6];
            *h += (uint32_t)(d * d);
            if (*h > (1u << 30))
                for (int a = 0; a < 16; a++)
                    for (int b = 0; b < 64; b++)
                        s->history[a][b] >>= 1;
            sv_store(s, key, 1, MATE, m, ilog2(s->L.nodes - nodes0 + 1));
            return 1;
        }
        if (v > best) {
            best = v;
            bestmove = m;
            if (v > alpha) {
                alpha = v;
                if (v >= beta)
                    break;
            }
        }
    }
    int work = ilog2(s->L.nodes - nodes0 + 1);
    int lim = MATE - d - 1;
    if (best < 0)
        sv_store(s, key, -MATE, -1, ttmove, work);
    else if (best >= beta)
        sv_store(s, key, -lim, MATE, bestmove, work);
    else if (best <= alpha0)
        sv_store(s, key, -MATE, lim, ttmove, work);
    else
        sv_store(s, key, -lim, lim, bestmove, work);
    return best < 0 ? -1 : 0;
}

/* A winning move of a position whose game of cut is proven won
 * (pt_search answered 1): the table's move, else the first move whose
 * position is proven won for us (the proofs are in the table, so this costs
 * little).  0 if none is found (a limit stopped the search). */
static int pt_winning_move(Solver *s, int d, int cut)
{
    Pos *p = &s->p;
    SvEntry *e = sv_probe(s, pt_key(p->hash, cut));
    if (e && e->move)
        return e->move;
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    for (int i = 0; i < n; i++) { /* a win at once first */
        make_move(p, mv[i]);
        int won = p->owinner >= 0 && pt_end(p, side, cut) > 0;
        unmake_move(p);
        if (won)
            return mv[i];
    }
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        int v;
        if (p->owinner >= 0)
            v = pt_end(p, side, cut);
        else if (p->turn == side)
            v = pt_search(s, d, -2, 2, cut);
        else
            v = -pt_search(s, d, -2, 2, -cut);
        unmake_move(p);
        if (v > 0)
            return mv[i];
        if (s->L.stop)
            break;
    }
    return 0;
}

/* -- who wins by proof numbers ----------------------------------------------
 *
 * df_mid is a depth-first proof-number search (df-pn, Nagai 2002) on the
 * game of a cut (0: who wins; see pt_search): no horizon, it proves or
 * disproves "the side to move wins".  A position's proof number pn is a
 * cost estimate of proving that its side to move wins, the disproof number
 * dn of proving that it does not; proven: pn = 0 (dn = PN_INF), disproven:
 * dn = 0 (pn = PN_INF).  From the parent's view, a move whose child has the
 * other side to move has the child's numbers swapped (p = the child's dn,
 * d = its pn), one after a pass keeps them; the parent's pn is the least p
 * of its moves, its dn the sum of their d.  df_mid expands the most-proving
 * move (least p; the first of equals) as long as the node's numbers stay
 * below the thresholds it was given, passing the child the thresholds under
 * which it stays the most-proving one: p below min(thpn, p2 + p2/4 + 1) (p2:
 * the second least p; the "1 + epsilon" trick of Pawlewicz and Lew, 2007,
 * which re-enters the same child less often) and d below thdn - dn + d.
 *
 * A move's numbers before its child is searched: a round won or lost by the
 * move, or a proof of the move-ordering tests (every reply lets us win at
 * once: p = 0 where the cut allows; a reply wins at once for the opponent:
 * d = 0 where the cut allows); else the table's, else p = the opponent's
 * safe replies (replies after which we cannot win at once; at least 1) and
 * d = 1, or 1 and 1 after a pass.  Kamisado has no repetitions, so the
 * graph has no cycles and the search ends.  The table (DfEntry, keyed as
 * the solver's table: the position's key XOR the cut's) keeps the numbers
 * between calls; a proof or disproof of the root is also stored in the
 * solver's table (lo = 1 or hi = -1, with the winning move).
 */

#define PN_INF ((1u << 27) - 1)
#define PN_MAX (PN_INF - 1) /* sums stop here: PN_INF is a proof only */
#define DF_BUCKET 4

static inline DfEntry *df_bucket(const Solver *s, u64 key)
{
    return &s->df[(key & s->df_mask) & ~(size_t)(DF_BUCKET - 1)];
}

static inline const DfEntry *df_probe(const Solver *s, u64 key)
{
    const DfEntry *b = df_bucket(s, key);
    for (int i = 0; i < DF_BUCKET; i++)
        if (b[i].key == key)
            return &b[i];
    return NULL;
}

/* Store pn and dn of key: its own entry, else the one of the bucket with
 * the least work below it. */
static inline void df_store(Solver *s, u64 key, uint32_t pn, uint32_t dn, u64 nodes)
{
    DfEntry *b = df_bucket(s, key);
    DfEntry *e = NULL;
    for (int i = 0; i < DF_BUCKET; i++)
        if (b[i].key == key) {
            e = &b[i];
            break;
        }
    if (!e) {
        e = &b[0];
        for (int i = 1; i < DF_BUCKET; i++)
            if ((b[i].pnw >> 27) < (e->pnw >> 27))
                e = &b[i];
    }
    int work = ilog2(nodes + 1);
    e->key = key;
    e->pnw = pn | (uint32_t)(work > 31 ? 31 : work) << 27;
    e->dn = dn;
}

static inline uint32_t pn_add(uint32_t a, uint32_t b)
{
    uint32_t c = a + b; /* both at most PN_INF: no overflow */
    return c > PN_MAX ? PN_MAX : c;
}

/* Search the position in the game of cut until its pn reaches thpn or its
 * dn reaches thdn (or it is proven or disproven, or a limit stops it:
 * L.stop); answers its numbers in *opn, *odn.  At the root (bestmove not
 * NULL) *bestmove gets a winning move when proven. */
static void df_mid(Solver *s, int cut, uint32_t thpn, uint32_t thdn, uint32_t *opn,
                   uint32_t *odn, int *bestmove)
{
    Pos *p = &s->p;
    s->L.nodes++;
    u64 nodes0 = s->L.nodes;
    *opn = 1;
    *odn = 1;
    if (limits_hit(&s->L))
        return;
    u64 key = pt_key(p->hash, cut);
    if (cut ? pt_win_now(p, cut) : can_win_now(p)) {
        *opn = 0;
        *odn = PN_INF;
        df_store(s, key, 0, PN_INF, 1);
        return;
    }
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    uint32_t cp[MAXMOVES], cd[MAXMOVES];
    uint8_t same[MAXMOVES];
    int n = gen_moves(p, mv);
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        same[i] = p->turn == side;
        int v = 0; /* 1: the move wins the game of cut, -1: it loses it */
        if (p->owinner >= 0) {
            v = cut ? pt_end(p, side, cut) : p->owinner == side ? 1 : -1;
        } else {
            const DfEntry *e = df_probe(s, pt_key(p->hash, same[i] ? cut : -cut));
            if (e) {
                uint32_t epn = e->pnw & PN_INF;
                cp[i] = same[i] ? epn : e->dn;
                cd[i] = same[i] ? e->dn : epn;
            } else if (same[i]) {
                cp[i] = 1;
                cd[i] = 1;
            } else {
                int sr = safe_replies(p, side);
                if (sr == 64 && cut >= 0)
                    v = -1; /* the opponent wins at once */
                else if (sr == 0 && cut <= 0)
                    v = 1; /* every reply lets us win at once */
                cp[i] = sr == 0 || sr == 64 ? 1 : (uint32_t)sr;
                cd[i] = 1;
            }
        }
        unmake_move(p);
        if (v > 0) {
            cp[i] = 0;
            cd[i] = PN_INF;
        } else if (v < 0) {
            cp[i] = PN_INF;
            cd[i] = 0;
        }
        if (!cp[i]) {
            if (bestmove)
                *bestmove = mv[i];
            *opn = 0;
            *odn = PN_INF;
            df_store(s, key, 0, PN_INF, s->L.nodes - nodes0 + 1);
            return;
        }
    }
    uint32_t pn, dn;
    for (;;) {
        int best = 0;
        uint32_t p2 = PN_INF;
        pn = PN_INF;
        dn = 0;
        for (int i = 0; i < n; i++) {
            dn = pn_add(dn, cd[i]);
            if (cp[i] < pn) {
                p2 = pn;
                pn = cp[i];
                best = i;
            } else if (cp[i] < p2) {
                p2 = cp[i];
            }
        }
        if (!pn) {
            dn = PN_INF;
            if (bestmove)
                *bestmove = mv[best];
        }
        if (pn >= thpn || dn >= thdn)
            break;
        uint32_t cthp = p2 >= PN_MAX ? PN_INF : p2 + (p2 >> 2) + 1;
        if (cthp > thpn)
            cthp = thpn;
        uint32_t cthd = thdn - dn + cd[best];
        if (cthd > PN_INF)
            cthd = PN_INF;
        uint32_t rp, rd;
        make_move(p, mv[best]);
        if (same[best]) {
            df_mid(s, cut, cthp, cthd, &rp, &rd, NULL);
            cp[best] = rp;
            cd[best] = rd;
        } else {
            df_mid(s, -cut, cthd, cthp, &rp, &rd, NULL);
            cp[best] = rd;
            cd[best] = rp;
        }
        unmake_move(p);
        if (s->L.stop)
            return;
    }
    *opn = pn;
    *odn = dn;
    df_store(s, key, pn, dn, s->L.nodes - nodes0 + 1);
}

/* Who wins the game of cut by df_mid: 1, -1, or 0 when a limit stopped it;
 * *bestmove a winning move (0 for a loss). */
static int df_root(Solver *s, int cut, int *bestmove)
{
    uint32_t pn, dn;
    int bm = 0;
    *bestmove = 0;
    df_mid(s, cut, PN_INF, PN_INF, &pn, &dn, &bm);
    if (s->L.stop)
        return 0;
    Pos *p = &s->p;
    u64 key = pt_key(p->hash, cut);
    if (!pn && !bm) {
        /* the root wins at once: df_mid looked at no move */
        uint16_t mv[MAXMOVES];
        int n = gen_moves(p, mv), side = p->turn;
        for (int i = 0; i < n && !bm; i++) {
            make_move(p, mv[i]);
            if (p->owinner >= 0 && (cut ? pt_end(p, side, cut) > 0 : p->owinner == side))
                bm = mv[i];
            unmake_move(p);
        }
    }
    if (!pn) {
        *bestmove = bm;
        sv_store(s, key, 1, MATE, bm, 60);
        return 1;
    }
    if (!dn) {
        sv_store(s, key, -MATE, -1, 0, 60);
        return -1;
    }
    return 0; /* not reached: the root's thresholds end only at a proof */
}

/* Who wins (1: the side to move, -1: the other, 0: a limit stopped it, or
 * nothing within max_depth when it is not 0).  Without a horizon
 * (max_depth 0): the proof-number search, df_root (*depth_done stays 0).
 * Within one: iterative deepening of pt_search on the horizon d = 1, 2, 3,
 * ...  After each horizon from 4 on, a
 * probe searches twice as deep for as many nodes as the iterations took so
 * far: a long forced win is often found at once far beyond the horizon the
 * deepening has reached (from the start of a single round: about 0.1M nodes
 * instead of 2M).  A probe cut short by its own budget leaves only proofs
 * and bounds in the table.  ``*next`` and ``*spent`` (1 and 0 to begin)
 * would carry the deepening on from a call that a budget stopped.  Fills
 * *bestmove (a winning move, 0 for a loss) and *depth_done (the horizon
 * that decided it).  A cut other than 0 proves the game of that cut. */
static int wl_root(Solver *s, int max_depth, int cut, int *next, u64 *spent, int *bestmove,
                   int *depth_done)
{
    *bestmove = 0;
    *depth_done = 0;
    if (!max_depth)
        return df_root(s, cut, bestmove);
    for (int d = *next; !max_depth || d <= max_depth; d++) {
        u64 n0 = s->L.nodes;
        int r = pt_search(s, d, -2, 2, cut);
        *spent += s->L.nodes - n0;
        if (s->L.stop)
            return 0;
        *next = d + 1;
        int done = d;
        if (!r && d >= 4 && (!max_depth || d < max_depth)) {
            int pd = 2 * d;
            if (max_depth && pd > max_depth)
                pd = max_depth;
            if (pd > SOLVE_MAX_DEPTH)
                pd = SOLVE_MAX_DEPTH;
            u64 saved = budget_begin(&s->L, *spent);
            r = pt_search(s, pd, -2, 2, cut);
            if (budget_end(&s->L, saved))
                r = 0; /* only the probe's budget ran out */
            if (s->L.stop)
                return 0;
            if (r)
                done = pd;
        }
        if (r) {
            *depth_done = done;
            if (r > 0) {
                *bestmove = pt_winning_move(s, done, cut);
                if (!*bestmove)
                    return 0;
            }
            return r;
        }
        *depth_done = d;
        if (d >= SOLVE_MAX_DEPTH)
            break;
    }
    return 0;
}

/* The round's value in points for the side to move: 1, 2, 4 or 8 when it
 * wins (the most it can force), -1, -2, -4 or -8 when it loses (the fewest
 * it must concede), 0 when a limit stopped it.  Who wins first (wl_root, cut
 * 0), then the threshold games of more rings one by one, as far as the
 * towers' rings allow: won, cut 2k ("a win with k rings or more") for
 * k = 1, 2, 3 until one fails; lost, cut -2k ("no loss to k rings or more")
 * until one holds.  *lo and *hi bound the value (in points) even when a
 * limit stops it; *bestmove is a move of the last threshold game won (a
 * move that keeps the value), 0 when every move concedes as much. */
static int pt_root(Solver *s, int max_depth, int *bestmove, int *depth_done, int *lo, int *hi)
{
    Pos *p = &s->p;
    int side = p->turn, maxr[2] = {0, 0};
    for (int t = 0; t < 16; t++)
        if (p->rings[t] > maxr[t >> 3])
            maxr[t >> 3] = p->rings[t];
    *lo = -(1 << maxr[side ^ 1]);
    *hi = 1 << maxr[side];
    int next = 1, bm = 0, dd = 0;
    u64 spent = 0;
    int r = wl_root(s, max_depth, 0, &next, &spent, &bm, &dd);
    *bestmove = bm;
    *depth_done = dd;
    if (!r)
        return 0;
    int won = r > 0, top = maxr[won ? side : side ^ 1];
    if (won)
        *lo = 1;
    else
        *hi = -1;
    for (int k = 1; k <= top; k++) {
        next = 1;
        spent = 0;
        int rk = wl_root(s, max_depth, won ? 2 * k : -2 * k, &next, &spent, &bm, &dd);
        if (!rk)
            return 0;
        *depth_done = dd;
        if (won && rk > 0) {
            *lo = 1 << k;
            *bestmove = bm;
        } else if (won) {
            *hi = 1 << (k - 1);
            break;
        } else if (rk > 0) {
            *lo = -(1 << (k - 1));
            *bestmove = bm;
            break;
        } else {
            *hi = -(1 << k);
        }
    }
    if (won)
        *hi = *lo;
    else
        *lo = *hi;
    return *lo;
}


/* The board's colours are symmetric under the mirror a <-> h that maps
 * colour c to 7 - c (SQ_COLOUR), and so are the rules: in a position equal
 * to its mirror image (the start of a single round), a move and its mirror
 * image have the same value, and the root searches one of each pair. */
static int pos_mirror_symmetric(const Pos *p)
{
    if (p->must >= 0)
        return 0;
    for (int sq = 0; sq < 64; sq++) {
        int t = p->board[sq], t2 = p->board[sq ^ 7];
        if (t < 0 ? t2 >= 0 : t2 != ((t & 8) | (7 - (t & 7))) || p->rings[t] != p->rings[t2])
            return 0;
    }
    return 1;
}

/* 1 when the mirror image of mv[i] comes before it in mv. */
static int mirror_seen(const uint16_t *mv, int i)
{
    int mm = ((mv[i] & 63) ^ 7) | (((mv[i] >> 6) ^ 7) << 6);
    for (int j = 0; j < i; j++)
        if (mv[j] == mm)
            return 1;
    return 0;
}

/* A move of the root that wins at once, 0 when none does. */
static int root_win_now(Solver *s, const uint16_t *mv, int n)
{
    Pos *p = &s->p;
    int side = p->turn;
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        int won = p->owinner == side;
        unmake_move(p);
        if (won)
            return mv[i];
    }
    return 0;
}

/* The root's moves with the table's move first. */
static void root_tt_first(Solver *s, uint16_t *mv, int n)
{
    SvEntry *e = sv_probe(s, s->p.hash);
    int ttmove = e ? e->move : 0;
    for (int i = 1; i < n; i++)
        if (mv[i] == ttmove) {
            int tm = mv[0];
            mv[0] = mv[i];
            mv[i] = (uint16_t)tm;
        }
}

/* The value of the root's move m from the root's side: sv_search of the
 * child on DL_(d-1), with the root's window (alpha, beta) turned to it. */
static int root_child(Solver *s, int m, int d, int alpha, int beta)
{
    Pos *p = &s->p;
    int side = p->turn, v;
    make_move(p, m);
    if (p->owinner >= 0)
        v = p->owinner == side ? MATE - 1 : -(MATE - 1);
    else if (p->turn == side)
        v = up_value(sv_search(s, d - 1, down_bound(alpha), down_bound(beta)), 1);
    else
        v = up_value(sv_search(s, d - 1, -down_bound(beta), -down_bound(alpha)), 0);
    unmake_move(p);
    return v;
}

/* Solve the position: the exact value, or 0 when a limit stops it.  Fills
 * *bestmove and *depth_done. */
static int sv_root(Solver *s, int start_depth, int max_depth, int *bestmove, int *depth_done)
{
    Pos *p = &s->p;
    *bestmove = 0;
    *depth_done = 0;
    if (p->owinner >= 0)
        return p->owinner == p->turn ? MATE : -MATE; /* not reached from solve_run */
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    if ((*bestmove = root_win_now(s, mv, n))) {
        *depth_done = 1;
        return MATE - 1;
    }
    int sym = pos_mirror_symmetric(p);
    for (int d = start_depth > 1 ? start_depth : 1; !max_depth || d <= max_depth; d++) {
        int best = -SV_INF, bm = 0;
        int alpha = -SV_INF, beta = SV_INF;
        root_tt_first(s, mv, n);
        for (int i = 0; i < n; i++) {
            int m = mv[i];
            if (sym && mirror_seen(mv, i))
                continue;
            int v = root_child(s, m, d, alpha, beta);
            if (s->L.stop)
                return 0;
            if (v > best) {
                best = v;
                bm = m;
                if (v > alpha)
                    alpha = v;
            }
        }
        *depth_done = d;
        if (best != 0) {
            *bestmove = bm;
            sv_store(s, p->hash, best, best, bm, 60);
            return best;
        }
        int cut = MATE - d - 1;
        sv_store(s, p->hash, -cut, cut, 0, 0);
        if (d >= SOLVE_MAX_DEPTH)
            break;
    }
    return 0;
}


/* The exact value without a horizon: who wins first (df_root), then
 * iterative deepening of one-sided tests "the winner wins within d" (null
 * windows on DL_d) for d = 1, 2, ... until one holds: the first that holds
 * is the distance (the one before failed).  Proving the loser cannot win
 * within d, which the full window of sv_root also proves at every depth,
 * is saved (12% of the nodes from the start of a single round).  The
 * loser's best move is the one that survived the last failed test (the
 * longest resistance).  0 when a limit stops it. */
static int ex_root(Solver *s, int *bestmove, int *depth_done)
{
    Pos *p = &s->p;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    *depth_done = 0;
    if ((*bestmove = root_win_now(s, mv, n))) {
        *depth_done = 1;
        return MATE - 1;
    }
    int bm = 0;
    int w = df_root(s, 0, &bm);
    if (!w)
        return 0;
    int sym = pos_mirror_symmetric(p);
    int survivor = 0;
    for (int d = 1; d <= SOLVE_MAX_DEPTH; d++) {
        /* w > 0: value >= MATE - d?  w < 0: value <= -(MATE - d)? */
        int alpha = w > 0 ? MATE - d - 1 : -(MATE - d), beta = alpha + 1;
        root_tt_first(s, mv, n);
        int held = w < 0, found = 0;
        for (int i = 0; i < n; i++) {
            int m = mv[i];
            if (sym && mirror_seen(mv, i))
                continue;
            int v = root_child(s, m, d, alpha, beta);
            if (s->L.stop)
                return 0;
            if (w > 0 && v >= beta) {
                held = 1;
                found = m;
                break;
            }
            if (w < 0 && v > alpha) {
                held = 0;
                found = m;
                break;
            }
        }
        *depth_done = d;
        if (held) {
            int value = w > 0 ? MATE - d : -(MATE - d);
            *bestmove = w > 0 ? found : survivor ? survivor : mv[0];
            sv_store(s, p->hash, value, value, *bestmove, 60);
            return value;
        }
        survivor = found;
        sv_store(s, p->hash, w > 0 ? -MATE : -(MATE - d - 1), w > 0 ? MATE - d - 1 : MATE,
                 found, 0);
    }
    return 0;
}

/* Principal variation of a solved position: the winner's shortest win, the
 * loser's longest resistance.  ``value`` is the exact value of the root. */
static int sv_pv(Solver *s, int value, uint16_t *pv, int maxlen)
{
    Pos *p = &s->p;
    int n = 0;
    int v = value;
    u64 saved_limit = s->L.node_limit;
    double saved_deadline = s->L.deadline;
    while (n < maxlen && v != 0 && p->owinner < 0) {
        int dist = MATE - (v > 0 ? v : -v);
        int bm = 0, dd = 0;
        int r = sv_root(s, dist, dist, &bm, &dd);
        if (s->L.stop || r != v || !bm)
            break;
        pv[n++] = (uint16_t)bm;
        int side = p->turn;
        make_move(p, bm);
        if (p->owinner >= 0)
            break;
        v = p->turn == side ? (v > 0 ? v + 1 : v - 1) : (v > 0 ? -(v + 1) : -(v - 1));
    }
    while (p->ply)
        unmake_move(p);
    s->L.node_limit = saved_limit;
    s->L.deadline = saved_deadline;
    return n;
}

int solve_run(Engine *e, const Pos *src, const SolveParams *prm, SolveResult *out)
{
    if (!e->sv)
        return KS_NOTABLE;
    if (src->owinner >= 0)
        return KS_OVER;
    Solver *s = (Solver *)calloc(1, sizeof(Solver));
    if (!s)
        return KS_NOMEM;
    if (pos_clone_state(&s->p, src, SOLVE_MAX_DEPTH + 200) < 0) {
        free(s);
        return KS_NOMEM;
    }
    s->tt = e->sv;
    s->mask = e->sv_mask;
    s->df = e->df;
    s->df_mask = e->df_mask;
    s->L.node_limit = prm->node_limit;
    s->L.flag = &e->stop;
    s->L.interrupt = prm->interrupt;
    s->L.interrupt_ctx = prm->interrupt_ctx;
    double t0 = now_ms();
    s->L.deadline = prm->time_ms > 0 ? t0 + prm->time_ms : 0;
    int bm = 0, dd = 0, value;
    int want_pv = prm->pv, exact = prm->exact;
    int npv = 0;
    u64 pv_nodes = 0;
    int plo = 0, phi = 0;
    if (prm->points) {
        value = pt_root(s, prm->max_depth, &bm, &dd, &plo, &phi);
        exact = 0;
        want_pv = 0;
    } else if (exact && !prm->max_depth) {
        value = ex_root(s, &bm, &dd);
    } else if (exact) {
        value = sv_root(s, 1, prm->max_depth, &bm, &dd);
    } else {
        int next = 1;
        u64 spent = 0;
        value = wl_root(s, prm->max_depth, 0, &next, &spent, &bm, &dd);
        want_pv = 0;
    }
    int stopped = s->L.stop;
    if (value && want_pv && !stopped) {
        /* the line of a proven value: no limit (it is quick), no stop */
        u64 before = s->L.nodes;
        s->L.node_limit = 0;
        s->L.deadline = 0;
        s->L.flag = NULL;
        npv = sv_pv(s, value, out->pv, SOLVE_PV_MAX);
        pv_nodes = s->L.nodes - before;
    }
    double secs = (now_ms() - t0) / 1000.0;
    int interrupted = s->L.interrupted;
    u64 nodes = s->L.nodes;
    pos_free(&s->p);
    free(s);
    if (interrupted)
        return KS_HOST;
    out->points = prm->points ? value : 0;
    out->points_lo = plo;
    out->points_hi = phi;
    if (prm->points)
        value = plo > 0 ? 1 : phi < 0 ? -1 : 0; /* who wins may be proven alone */
    out->result = value > 0 ? 1 : value < 0 ? -1 : 0;
    out->distance = !exact ? -1 : value ? MATE - (value > 0 ? value : -value) : 0;
    out->best_move = bm;
    out->depth = dd;
    out->stopped = stopped;
    out->npv = npv;
    out->nodes = nodes - pv_nodes;
    out->pv_nodes = pv_nodes;
    out->seconds = secs;
    return KS_OK;
}
