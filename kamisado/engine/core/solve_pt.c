/*
 * solve_pt.c: who wins within a horizon (pt_search, wl_root) and a round's
 * value in points (pt_root): the solver's threshold games (see solve.c).
 */

#include "solve.h"

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
int wl_root(Solver *s, int max_depth, int cut, int *next, u64 *spent, int *bestmove,
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
int pt_root(Solver *s, int max_depth, int *bestmove, int *depth_done, int *lo, int *hi)
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
