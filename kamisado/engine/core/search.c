/*
 * search.c: the heuristic search.
 *
 * Iterative deepening negamax with PVS, a Zobrist transposition table
 * (generations: see Engine in kamisado.h), TT move / immediate wins /
 * killers / history ordering and the evaluation of eval.c.
 */

#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

#define F_LOWER 1
#define F_UPPER 2
#define F_EXACT 3

static inline int tier_of(const Pos *p, int side, int rings)
{
    int gained = RING_POINTS[rings];
    if (p->points[side] + gained >= p->target)
        return 15;
    return gained;
}

static inline int win_score(int ply, int tier)
{
    if (ply > 255)
        ply = 255;
    return WIN_BASE + 256 * tier - ply;
}

/* The tier of an immediate win of the side to move (the best tower). */
static int immediate_tier(const Pos *p)
{
    int best = -1;
    for (int c = 0; c < 8; c++) {
        if (p->must >= 0 && c != p->must)
            continue;
        int t = p->turn * 8 + c;
        if (tower_can_win(p, t, p->occ)) {
            int tr = tier_of(p, p->turn, p->rings[t]);
            if (tr > best)
                best = tr;
        }
    }
    return best;
}

static inline int to_tt(int v, int ply)
{
    if (v >= WIN_MIN)
        return v + ply;
    if (v <= -WIN_MIN)
        return v - ply;
    return v;
}

static inline int from_tt(int v, int ply)
{
    if (v >= WIN_MIN)
        return v - ply;
    if (v <= -WIN_MIN)
        return v + ply;
    return v;
}

static int se_search(Search *S, int depth, int alpha, int beta, int ply, int pvnode)
{
    Pos *p = &S->p;
    S->pvlen[ply] = 0;
    S->L.nodes++;
    if (ply > S->seldepth)
        S->seldepth = ply;
    if (limits_hit(&S->L))
        return 0;
    if (ply > 0) {
        /* the root searches its moves, so that the PV has the winning move */
        int it = immediate_tier(p);
        if (it >= 0)
            return win_score(ply + 1, it);
    }
    if (depth <= 0 || ply >= MAXPLY - 1)
        return evaluate(S);
    u64 key = p->hash;
    SeEntry *e = &S->tt[key & S->mask];
    int ttmove = 0;
    if (e->key == key && e->gen == S->gen) {
        ttmove = e->move;
        if (!pvnode && e->depth >= depth) {
            int v = from_tt(e->score, ply);
            if (e->flag == F_EXACT || (e->flag == F_LOWER && v >= beta) ||
                (e->flag == F_UPPER && v <= alpha))
                return v;
        }
    }
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int score[MAXMOVES];
    int side = p->turn;
    for (int i = 0; i < n; i++) {
        int m = mv[i];
        int sc;
        if (m == ttmove)
            sc = 1 << 30;
        else if (m == S->killers[ply][0])
            sc = 1 << 28;
        else if (m == S->killers[ply][1])
            sc = (1 << 28) - 1;
        else {
            int h = S->history[p->board[m & 63] & 15][m >> 6];
            if (h > 0xFFFFF)
                h = 0xFFFFF;
            make_move(p, m);
            if (p->owinner >= 0) {
                sc = p->owinner == side ? (1 << 29) : -(1 << 29);
            } else if (p->turn != side) {
                PREFETCH(&S->tt[p->hash & S->mask]);
                int sr = safe_replies(p, side);
                sc = sr == 64 ? -(1 << 28) + h : ((64 - sr) << 20) + h;
            } else {
                sc = (32 << 20) + h;
            }
            unmake_move(p);
        }
        score[i] = sc;
    }
    int alpha0 = alpha;
    int best = -S_INF, bestmove = 0;
    for (int i = 0; i < n; i++) {
        pick_next(mv, score, i, n);
        int m = mv[i];
        int mover_tower = p->board[m & 63];
        make_move(p, m);
        int v;
        if (p->owinner >= 0) {
            int ws = win_score(ply + 1, tier_of(p, p->owinner, p->orings));
            v = p->owinner == side ? ws : -ws;
            S->pvlen[ply + 1] = 0; /* the round ended: nothing follows in the PV */
        } else {
            int same = p->turn == side;
            if (i == 0) {
                v = same ? se_search(S, depth - 1, alpha, beta, ply + 1, pvnode)
                         : -se_search(S, depth - 1, -beta, -alpha, ply + 1, pvnode);
            } else {
                v = same ? se_search(S, depth - 1, alpha, alpha + 1, ply + 1, 0)
                         : -se_search(S, depth - 1, -alpha - 1, -alpha, ply + 1, 0);
                if (v > alpha && v < beta && !S->L.stop)
                    v = same ? se_search(S, depth - 1, alpha, beta, ply + 1, pvnode)
                             : -se_search(S, depth - 1, -beta, -alpha, ply + 1, pvnode);
            }
        }
        unmake_move(p);
        if (S->L.stop)
            return 0;
        if (v > best) {
            best = v;
            bestmove = m;
            if (v > alpha) {
                alpha = v;
                S->pv[ply][0] = (uint16_t)m;
                memcpy(&S->pv[ply][1], &S->pv[ply + 1][0],
                       sizeof(uint16_t) * (size_t)S->pvlen[ply + 1]);
                S->pvlen[ply] = S->pvlen[ply + 1] + 1;
                if (v >= beta) {
                    if (m != S->killers[ply][0]) {
                        S->killers[ply][1] = S->killers[ply][0];
                        S->killers[ply][0] = (uint16_t)m;
                    }
                    int32_t *h = &S->history[mover_tower & 15][m >> 6];
                    *h += depth * depth;
                    if (*h > (1 << 26)) {
                        for (int a = 0; a < 16; a++)
                            for (int b = 0; b < 64; b++)
                                S->history[a][b] >>= 1;
                    }
                    break;
                }
            }
        }
    }
    if (n == 0)
        return evaluate(S); /* not reached: a round in progress has moves */
    int flag = best >= beta ? F_LOWER : best > alpha0 ? F_EXACT : F_UPPER;
    int same = e->key == key && e->gen == S->gen;
    if (!same || depth >= e->depth || flag == F_EXACT) {
        int keep = same ? e->move : 0;
        e->key = key;
        e->gen = S->gen;
        e->score = (int16_t)to_tt(best, ply);
        e->depth = (int8_t)(depth > 127 ? 127 : depth);
        e->flag = (uint8_t)flag;
        e->move = (uint16_t)(flag == F_UPPER ? keep : bestmove);
    }
    return best;
}

/* A root move of a MultiPV search: its score at the last depth searched
 * (exact, or an upper bound when it failed low) and its line. */
typedef struct {
    uint16_t move;
    int score;
    int exact;
    int len;
    uint16_t pv[MAXPLY];
} RootMove;

/* One depth of a MultiPV search over the nr root moves rm (in the order to
 * search them): the first k get exact scores, each later one a null window
 * at alpha = the k-th best exact score so far and, when it fails high, an
 * exact score in (alpha, S_INF).  So the k best moves of the depth end with
 * exact scores and lines, the others with upper bounds at most the k-th
 * best, in one search sharing its table, killers and history.  rm is then
 * sorted best first (exact before bound on a tie; stable).  0 when the
 * depth finished, 1 when a limit or the stop flag cut it short (the moves
 * searched are then sorted first, the others after them with no score). */
static int se_root(Search *S, int depth, RootMove *rm, int nr, int k)
{
    Pos *p = &S->p;
    S->pvlen[0] = 0;
    S->L.nodes++;
    if (limits_hit(&S->L))
        return 1;
    int side = p->turn;
    int top[MAXMOVES]; /* the best exact scores so far, best first */
    int ntop = 0, cut = 0;
    for (int i = 0; i < nr; i++) {
        int m = rm[i].move;
        int full = ntop < k;
        int alpha = full ? -S_INF : top[k - 1];
        make_move(p, m);
        int v;
        if (p->owinner >= 0) {
            int ws = win_score(1, tier_of(p, p->owinner, p->orings));
            v = p->owinner == side ? ws : -ws;
            S->pvlen[1] = 0;
        } else {
            int same = p->turn == side;
            if (full) {
                v = same ? se_search(S, depth - 1, -S_INF, S_INF, 1, 1)
                         : -se_search(S, depth - 1, -S_INF, S_INF, 1, 1);
            } else {
                v = same ? se_search(S, depth - 1, alpha, alpha + 1, 1, 0)
                         : -se_search(S, depth - 1, -alpha - 1, -alpha, 1, 0);
                if (v > alpha && !S->L.stop)
                    v = same ? se_search(S, depth - 1, alpha, S_INF, 1, 1)
                             : -se_search(S, depth - 1, -S_INF, -alpha, 1, 1);
            }
        }
        unmake_move(p);
        if (S->L.stop) {
            /* the moves not searched rank last, with no score */
            for (int j = i; j < nr; j++) {
                rm[j].score = -S_INF - 1;
                rm[j].exact = 0;
                rm[j].pv[0] = rm[j].move;
                rm[j].len = 1;
            }
            cut = 1;
            break;
        }
        RootMove *r = &rm[i];
        r->score = v;
        r->exact = full || v > alpha;
        if (r->exact) {
            r->pv[0] = (uint16_t)m;
            memcpy(&r->pv[1], S->pv[1], sizeof(uint16_t) * (size_t)S->pvlen[1]);
            r->len = S->pvlen[1] + 1;
            int j = ntop < k ? ntop++ : k - 1;
            while (j > 0 && top[j - 1] < v) {
                top[j] = top[j - 1];
                j--;
            }
            top[j] = v;
        } else {
            r->pv[0] = (uint16_t)m;
            r->len = 1;
        }
    }
    /* insertion sort: stable, best first, exact before bound on a tie */
    for (int i = 1; i < nr; i++) {
        RootMove t = rm[i];
        int j = i;
        while (j > 0 && (rm[j - 1].score < t.score ||
                         (rm[j - 1].score == t.score && !rm[j - 1].exact && t.exact))) {
            rm[j] = rm[j - 1];
            j--;
        }
        rm[j] = t;
    }
    return cut;
}

/* Whether a proven score at depth d settles the search (see search_run). */
static int settled(int v, int d)
{
    if (v > WIN_BASE || v < -WIN_BASE) {
        int over = (v > 0 ? v : -v) - WIN_BASE;
        int tier = (over + 255) / 256;
        int dist = 256 * tier - over;
        return dist <= d && tier == 15;
    }
    return 0;
}

int search_run(Engine *e, const Pos *src, const SearchParams *prm, SearchResult *out)
{
    if (!e->se)
        return KS_NOTABLE;
    if (src->owinner >= 0)
        return KS_OVER;
    int max_depth = prm->depth > 0 ? prm->depth : MAX_DEPTH;
    u64 seed = prm->seed;
    Search *S = (Search *)calloc(1, sizeof(Search));
    if (!S)
        return KS_NOMEM;
    memcpy(S->w, prm->weights, sizeof S->w);
    if (pos_clone_state(&S->p, src, MAXPLY + 8) < 0) {
        free(S);
        return KS_NOMEM;
    }
    S->tt = e->se;
    S->mask = e->se_mask;
    S->gen = e->gen;
    S->L.node_limit = prm->node_limit;
    S->L.interrupt = prm->interrupt;
    S->L.interrupt_ctx = prm->interrupt_ctx;
    S->seed = seed;
    double t0 = now_ms();
    S->L.deadline = prm->time_ms > 0 ? t0 + prm->time_ms : 0;
    int done_depth = 0, done_score = 0, done_len = 0, done_sel = 0;
    /* the finished iterations: (depth, score, nodes, seconds) */
    int nit = 0;
    uint16_t rootmv[MAXMOVES];
    int nroot = gen_moves(&S->p, rootmv);
    u64 rs = seed;
    if (seed) {
        for (int i = nroot - 1; i > 0; i--) {
            int j = (int)(splitmix(&rs) % (u64)(i + 1));
            uint16_t tm = rootmv[i];
            rootmv[i] = rootmv[j];
            rootmv[j] = tm;
        }
        for (int i = 0; i < nroot; i++)
            S->history[S->p.board[rootmv[i] & 63] & 15][rootmv[i] >> 6] = nroot - i;
    }
    /* MultiPV or root moves: the root's moves, searched by se_root */
    int lines_mode = prm->multipv > 0 || prm->nroot_moves > 0;
    out->lead_depth = 0;
    out->lead_len = 0;
    RootMove *rm = NULL;
    int nr = 0, k = prm->multipv > 0 ? prm->multipv : 1;
    if (lines_mode) {
        rm = (RootMove *)calloc(MAXMOVES, sizeof(RootMove));
        if (!rm) {
            pos_free(&S->p);
            free(S);
            return KS_NOMEM;
        }
        for (int i = 0; i < nroot; i++) {
            int keep = prm->nroot_moves == 0;
            for (int j = 0; j < prm->nroot_moves && !keep; j++)
                keep = prm->root_moves[j] == rootmv[i];
            if (keep)
                rm[nr++].move = rootmv[i];
        }
        if (k > nr)
            k = nr;
        prm->lines->n = 0;
    }
    int err = 0;
    for (int d = 1; d <= max_depth; d++) {
        int v;
        S->seldepth = 0;
        /* the first depth always finishes (a move to answer); the stop flag
         * ends the deeper ones */
        S->L.flag = d == 1 ? NULL : &e->stop;
        if (d > 1 && atomic_load_explicit(&e->stop, memory_order_relaxed))
            break;
        if (lines_mode) {
            /* a depth cut short leaves rm half sorted: keep the last one's */
            RootMove *keep = (RootMove *)malloc(sizeof(RootMove) * (size_t)nr);
            if (!keep) {
                err = 2;
                break;
            }
            memcpy(keep, rm, sizeof(RootMove) * (size_t)nr);
            int cut = se_root(S, d, rm, nr, k);
            if (cut && d > 1) {
                /* the lead: the depth's best searched move (exact first on
                 * a tie: a bound is at most the k-th exact score) when it
                 * beats the last depth's best */
                if (rm[0].exact && rm[0].score > keep[0].score) {
                    out->lead_depth = d;
                    out->lead_score = rm[0].score;
                    out->lead_len = rm[0].len;
                    memcpy(out->lead_pv, rm[0].pv, sizeof(uint16_t) * (size_t)rm[0].len);
                }
                memcpy(rm, keep, sizeof(RootMove) * (size_t)nr);
            }
            free(keep);
            if (S->L.interrupted || (cut && d > 1))
                break;
            /* (the first depth, cut short by a limit: the moves it searched) */
            v = rm[0].exact ? rm[0].score : 0;
            S->pvlen[0] = rm[0].exact ? rm[0].len : 0;
            memcpy(S->pv[0], rm[0].pv, sizeof(uint16_t) * (size_t)S->pvlen[0]);
            RootLines *L = prm->lines;
            L->n = 0;
            for (int i = 0; i < k && rm[i].exact; i++) {
                L->n = i + 1;
                L->score[i] = rm[i].score;
                L->len[i] = rm[i].len;
                memcpy(L->pv[i], rm[i].pv, sizeof(uint16_t) * (size_t)rm[i].len);
            }
        } else {
            v = se_search(S, d, -S_INF, S_INF, 0, 1);
        }
        if (S->L.interrupted || (S->L.stop && d > 1))
            break;
        done_depth = d;
        done_score = v;
        done_len = S->pvlen[0];
        done_sel = S->seldepth;
        memcpy(out->pv, S->pv[0], sizeof(uint16_t) * (size_t)done_len);
        out->it_score[nit] = v;
        out->it_nodes[nit] = S->L.nodes;
        out->it_secs[nit] = (now_ms() - t0) / 1000.0;
        nit++;
        if (prm->on_iteration) {
            int r = prm->on_iteration(prm->iteration_ctx, d, v, S->L.nodes,
                                      (now_ms() - t0) / 1000.0, done_sel, out->pv, done_len,
                                      lines_mode ? prm->lines : NULL);
            if (r < 0) {
                err = 1;
                break;
            }
            if (r)
                break;
        }
        if (S->L.stop)
            break;
        /* A proven result within the horizon needs no deeper search, unless
         * a more valuable round (match points) might lie beyond it; with
         * several lines, once each of them is so proven. */
        int all = settled(v, d);
        for (int i = 1; lines_mode && all && i < k; i++)
            all = settled(rm[i].score, d);
        if (all)
            break;
    }
    double secs = (now_ms() - t0) / 1000.0;
    u64 nodes = S->L.nodes;
    if (S->L.interrupted)
        err = 1;
    pos_free(&S->p);
    free(S);
    free(rm);
    if (err == 2)
        return KS_NOMEM;
    if (err)
        return KS_HOST;
    out->depth = done_depth;
    out->score = done_score;
    out->seldepth = done_sel;
    out->npv = done_len;
    out->nodes = nodes;
    out->seconds = secs;
    out->niter = nit;
    return KS_OK;
}
