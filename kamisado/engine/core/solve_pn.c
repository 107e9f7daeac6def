/*
 * solve_pn.c: who wins by a depth-first proof-number search (df_mid), the
 * solver's way without a horizon (see solve.c).
 */

#include "solve.h"

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
int df_root(Solver *s, int cut, int *bestmove)
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
