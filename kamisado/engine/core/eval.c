/*
 * eval.c: the evaluation of the heuristic search, from the side to move,
 * with weights a host gives (DEFAULT_WEIGHTS when it gives none).
 */

#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

const int DEFAULT_WEIGHTS[NWEIGHTS] = {39, 6, 1000, 7, 19, 47, 0};

static inline int count_moves(const Pos *p, int t)
{
    int side = t >> 3, sq = p->sq[t], r = p->rings[t];
    int range = RANGE[r], n = 0;
    for (int d = 0; d < 3; d++) {
        const uint8_t *ray = RAY[side][d][sq];
        int len = RAYLEN[side][d][sq];
        if (len > range)
            len = range;
        for (int i = 0; i < len; i++) {
            if (p->board[ray[i]] >= 0)
                break;
            n++;
        }
    }
    return n;
}

int evaluate(Search *S)
{
    const Pos *p = &S->p;
    const int *w = S->w;
    int us = p->turn, them = us ^ 1;
    int sc = w[W_TEMPO];
    int threats[2] = {0, 0};
    unsigned them_threat = 0; /* colours of their towers with a goal path */
    int mob[2] = {0, 0}, adv[2] = {0, 0};
    for (int t = 0; t < 16; t++) {
        int side = t >> 3;
        if (tower_can_win(p, t, p->occ)) {
            threats[side]++;
            if (side == them)
                them_threat |= 1u << (t & 7);
        }
        if (w[W_MOBILITY])
            mob[side] += count_moves(p, t);
        int rank = p->sq[t] >> 3;
        adv[side] += side == BLACK ? rank : 7 - rank;
    }
    sc += w[W_THREAT] * (threats[us] - threats[them]);
    sc += w[W_MOBILITY] * (mob[us] - mob[them]);
    sc += w[W_ADVANCE] * (adv[us] - adv[them]);
    /* safe moves of the tower to move */
    if (p->must >= 0 && (w[W_SAFE] || w[W_NOSAFE])) {
        int t = us * 8 + p->must;
        int sq = p->sq[t], r = p->rings[t];
        int range = RANGE[r], safe = 0;
        u64 occ0 = p->occ ^ (1ULL << sq);
        for (int d = 0; d < 3; d++) {
            const uint8_t *ray = RAY[us][d][sq];
            int len = RAYLEN[us][d][sq];
            if (len > range)
                len = range;
            for (int i = 0; i < len; i++) {
                int s = ray[i];
                if (p->board[s] >= 0)
                    break;
                int c = SQ_COLOUR[s];
                if (!(them_threat >> c & 1)) {
                    safe++;
                    continue;
                }
                /* our move may block their path */
                if (!tower_can_win(p, them * 8 + c, occ0 | (1ULL << s)))
                    safe++;
            }
        }
        if (r && push_length(p, t))
            safe++;
        sc += w[W_SAFE] * safe;
        if (!safe)
            sc -= w[W_NOSAFE];
    }
    if (w[W_NOISE]) {
        u64 z = p->hash ^ S->seed;
        z = (z ^ (z >> 31)) * 0x94D049BB133111EBULL;
        z ^= z >> 29;
        sc += (int)(z % (u64)(2 * w[W_NOISE] + 1)) - w[W_NOISE];
    }
    if (sc > EVAL_MAX)
        sc = EVAL_MAX;
    if (sc < -EVAL_MAX)
        sc = -EVAL_MAX;
    return sc;
}

int pos_evaluate(const Pos *p, const int *w, int *out)
{
    Search *S = (Search *)calloc(1, sizeof(Search));
    if (!S)
        return KS_NOMEM;
    memcpy(S->w, w, sizeof S->w);
    memcpy(&S->p, p, sizeof(Pos));
    *out = evaluate(S);
    free(S);
    return KS_OK;
}
