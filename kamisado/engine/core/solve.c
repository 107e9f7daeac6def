/*
 * solve.c: the solver's exact values and its entry point, solve_run.
 *
 * Depth-limited win/loss/unknown alpha-beta on exact game values with
 * iterative deepening (sv_root within a horizon; without one ex_root: who
 * wins first, then one-sided tests of the winner's distance), a
 * who-wins-only search (wl_root: a depth-first proof-number search, df_mid,
 * or alpha-beta within a horizon, pt_search), and a transposition table of
 * bounds on the exact value (independent of depth).  A root equal to its
 * mirror image searches one of each pair of mirrored moves.  The who-wins
 * searches are in solve_pn.c (df-pn) and solve_pt.c (within a horizon, and
 * the points); what the files share in solve.h.
 */

#include <stdlib.h>
#include <string.h>

#include "solve.h"

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
