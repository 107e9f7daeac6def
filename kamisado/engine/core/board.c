/*
 * board.c: the tables and the position.
 *
 * Tables: square colours (kamisado.h), rays, goal paths, Zobrist keys.  The
 * position: load KPN, write KPN, make, unmake (kamisado.h: static inline),
 * passes and deadlock (resolve), perft.
 */

#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

uint8_t RAY[2][3][64][8];
uint8_t RAYLEN[2][3][64];
u64 WINMASK[2][64][3];
uint8_t STEPS[2][64];
u64 Z_TOWER[16][64];
u64 Z_RINGS[16][4];
u64 Z_TURN;
u64 Z_MUST[9];

void init_tables(void)
{
    for (int side = 0; side < 2; side++) {
        int dr = side == BLACK ? 1 : -1;
        int left = side == BLACK ? -1 : 1;
        int dfs[3] = {0, left, -left};
        for (int d = 0; d < 3; d++) {
            for (int sq = 0; sq < 64; sq++) {
                int r = sq >> 3, f = sq & 7, n = 0;
                for (;;) {
                    r += dr;
                    f += dfs[d];
                    if (r < 0 || r > 7 || f < 0 || f > 7)
                        break;
                    RAY[side][d][sq][n++] = (uint8_t)(r * 8 + f);
                }
                RAYLEN[side][d][sq] = (uint8_t)n;
            }
        }
        for (int sq = 0; sq < 64; sq++) {
            int steps = side == BLACK ? 7 - (sq >> 3) : (sq >> 3);
            STEPS[side][sq] = (uint8_t)steps;
            for (int d = 0; d < 3; d++) {
                u64 m = 0;
                if (steps > 0 && RAYLEN[side][d][sq] >= steps) {
                    for (int i = 0; i < steps; i++)
                        m |= 1ULL << RAY[side][d][sq][i];
                } else {
                    m = 1ULL << sq;
                }
                WINMASK[side][sq][d] = m;
            }
        }
    }
    u64 s = 0x4B414D495341444FULL; /* "KAMISADO" */
    for (int t = 0; t < 16; t++) {
        for (int sq = 0; sq < 64; sq++)
            Z_TOWER[t][sq] = splitmix(&s);
        for (int r = 0; r < 4; r++)
            Z_RINGS[t][r] = splitmix(&s);
    }
    Z_TURN = splitmix(&s);
    for (int i = 0; i < 9; i++)
        Z_MUST[i] = splitmix(&s);
}

/* ------------------------------------------------------------------------ */
/* The position                                                              */
/* ------------------------------------------------------------------------ */

u64 compute_hash(const Pos *p)
{
    u64 h = 0;
    for (int t = 0; t < 16; t++)
        h ^= Z_TOWER[t][p->sq[t]] ^ Z_RINGS[t][p->rings[t]];
    return h ^ side_must_key(p);
}

int gen_moves(const Pos *p, uint16_t *out)
{
    if (p->owinner >= 0)
        return 0;
    if (p->must >= 0)
        return gen_tower(p, p->turn * 8 + p->must, out, 0);
    int n = 0;
    for (int c = 0; c < 8; c++)
        n = gen_tower(p, p->turn * 8 + c, out, n);
    return n;
}

int ensure_stack(Pos *p)
{
    if (p->ply < p->cap)
        return 0;
    int cap = p->cap ? p->cap * 2 : 64;
    Undo *s = (Undo *)realloc(p->stack, sizeof(Undo) * (size_t)cap);
    if (!s)
        return -1;
    p->stack = s;
    p->cap = cap;
    return 0;
}

static int log_pass(Pos *p, int side, int colour, int sq)
{
    if (p->plog_len >= p->plog_cap) {
        uint32_t cap = p->plog_cap ? p->plog_cap * 2 : 64;
        void *n = realloc(p->plog, sizeof(*p->plog) * cap);
        if (!n)
            return -1;
        p->plog = (uint8_t (*)[3])n;
        p->plog_cap = cap;
    }
    p->plog[p->plog_len][0] = (uint8_t)side;
    p->plog[p->plog_len][1] = (uint8_t)colour;
    p->plog[p->plog_len][2] = (uint8_t)sq;
    p->plog_len++;
    return 0;
}

/* Passes (M6) for blocked towers, with deadlock detection (M8).  Returns
 * the number of passes.  When ``log`` is set, they are written to the pass
 * log (or, when ``init`` is set, to the initial passes). */
int resolve(Pos *p, int log, int init)
{
    unsigned seen = 0;
    int np = 0;
    for (;;) {
        int t = p->turn * 8 + p->must;
        if (can_move(p, t))
            return np;
        if (seen >> t & 1) {
            int winner = p->last_mover ^ 1;
            int colour = p->last_colour;
            p->owinner = (int8_t)winner;
            p->ocolour = (int8_t)colour;
            p->oreason = REASON_DEADLOCK;
            p->orings = (int8_t)p->rings[winner * 8 + colour];
            return np;
        }
        seen |= 1u << t;
        int sq = p->sq[t];
        if (log) {
            if (init) {
                p->init_passes[np][0] = (uint8_t)p->turn;
                p->init_passes[np][1] = (uint8_t)(t & 7);
                p->init_passes[np][2] = (uint8_t)sq;
            } else {
                log_pass(p, p->turn, t & 7, sq);
            }
        }
        np++;
        p->turn ^= 1;
        p->must = (int8_t)SQ_COLOUR[sq];
    }
}

void pos_init(Pos *p)
{
    memset(p, 0, sizeof(Pos));
    p->owinner = -1;
}

/* Copy the state of a position (not its stack) into a search position with
 * its own stack of ``cap`` entries. */
int pos_clone_state(Pos *dst, const Pos *src, int cap)
{
    memcpy(dst, src, sizeof(Pos));
    dst->stack = (Undo *)malloc(sizeof(Undo) * (size_t)cap);
    if (!dst->stack)
        return -1;
    dst->cap = cap;
    dst->ply = 0;
    dst->plog = NULL;
    dst->plog_len = dst->plog_cap = 0;
    dst->log_passes = 0;
    return 0;
}

void pos_free(Pos *p)
{
    free(p->stack);
    free(p->plog);
    p->stack = NULL;
    p->plog = NULL;
    p->cap = p->ply = 0;
    p->plog_len = p->plog_cap = 0;
}

int pos_copy(Pos *dst, const Pos *src)
{
    memcpy(dst, src, sizeof(Pos));
    dst->stack = NULL;
    dst->plog = NULL;
    dst->cap = 0;
    dst->plog_cap = 0;
    int cap = src->cap > 0 ? src->cap : 64;
    dst->stack = (Undo *)malloc(sizeof(Undo) * (size_t)cap);
    if (!dst->stack)
        return -1;
    dst->cap = cap;
    memcpy(dst->stack, src->stack, sizeof(Undo) * (size_t)src->ply);
    if (src->plog_cap) {
        dst->plog = malloc(sizeof(*src->plog) * src->plog_cap);
        if (!dst->plog)
            return -1;
        dst->plog_cap = src->plog_cap;
        memcpy(dst->plog, src->plog, sizeof(*src->plog) * src->plog_len);
    }
    return 0;
}

int pos_check(const Pos *p)
{
    /* consistency check used by the tests: incremental state == recomputed */
    u64 occ = 0;
    for (int sq = 0; sq < 64; sq++) {
        int t = p->board[sq];
        if (t >= 0) {
            occ |= 1ULL << sq;
            if (p->sq[t] != sq)
                return 0;
        }
    }
    if (occ != p->occ)
        return 0;
    if (compute_hash(p) != p->hash)
        return 0;
    return 1;
}

int pos_is_legal(const Pos *p, int code)
{
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    for (int i = 0; i < n; i++)
        if (mv[i] == code)
            return 1;
    return 0;
}

int pos_passes(const Pos *p, const uint8_t (**out)[3])
{
    if (p->ply) {
        const Undo *u = &p->stack[p->ply - 1];
        *out = (const uint8_t (*)[3])(p->plog + u->passes);
        return u->npasses;
    }
    *out = (const uint8_t (*)[3])p->init_passes;
    return p->init_npasses;
}

/* -- KPN ------------------------------------------------------------------ */

static int colour_index(char ch)
{
    const char *c = strchr(COLOUR_LETTERS, ch);
    if (!c || !ch)
        return -1;
    return (int)(c - COLOUR_LETTERS);
}

/* Write a KPN error message into err; answers -1. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int kpn_error(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, KPN_ERR_SIZE, fmt, ap);
    va_end(ap);
    return -1;
}

/* Load a KPN; on error write the message into err and return -1. */
int pos_load(Pos *p, const char *kpn, char *err)
{
    p->plog_len = 0;
    p->ply = 0;
    char buf[KPN_MAX + 1];
    size_t len = strlen(kpn);
    if (len >= sizeof buf)
        return kpn_error(err, "KPN too long");
    memcpy(buf, kpn, len + 1);
    char *fields[8];
    int nf = 0;
    char *save = NULL;
    /* the ASCII whitespace of Python's str.split(), as core.py reads KPN */
    static const char sep[] = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
    for (char *tok = strtok_r(buf, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
        if (nf == 8) {
            nf++;
            break;
        }
        fields[nf++] = tok;
    }
    if (nf != 3 && nf != 6)
        return kpn_error(err, "a KPN has 3 or 6 fields, found %d in '%s'", nf, kpn);
    int8_t board[64];
    uint8_t rings[16];
    memset(board, -1, sizeof board);
    memset(rings, 0, sizeof rings);
    int seen = 0;
    int rank = 7, file = 0;
    const char *s = fields[0];
    for (;; s++) {
        char ch = *s;
        if (ch == '/' || ch == 0) {
            if (file != 8)
                return kpn_error(err,
                                 "placement field, rank %d: describes %d squares, expected 8",
                                 rank + 1, file);
            if (ch == 0)
                break;
            rank--;
            file = 0;
            if (rank < 0)
                return kpn_error(err, "placement field: more than 8 ranks");
            continue;
        }
        if (ch >= '1' && ch <= '8') {
            file += ch - '0';
            if (file > 8)
                return kpn_error(err, "placement field, rank %d: describes more than 8 squares",
                                 rank + 1);
            continue;
        }
        int lower = ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
        int c = colour_index((char)lower);
        if (c < 0)
            return kpn_error(err, "placement field, rank %d: unexpected %c", rank + 1, ch);
        int side = (ch >= 'A' && ch <= 'Z') ? BLACK : GOLD;
        int t = side * 8 + c;
        int n = 0;
        while (s[1] == '+') {
            n++;
            s++;
        }
        if (n > 3)
            return kpn_error(err, "placement field: a tower has at most 3 rings");
        if (file >= 8)
            return kpn_error(err, "placement field, rank %d: describes more than 8 squares",
                             rank + 1);
        if (seen >> t & 1)
            return kpn_error(err, "placement field: a tower appears twice");
        seen |= 1 << t;
        board[rank * 8 + file] = (int8_t)t;
        rings[t] = (uint8_t)n;
        file++;
    }
    if (rank != 0)
        return kpn_error(err, "placement field: expected 8 ranks");
    if (seen != 0xFFFF)
        return kpn_error(err, "placement field: a tower is missing");
    int turn;
    if (!strcmp(fields[1], "b"))
        turn = BLACK;
    else if (!strcmp(fields[1], "g"))
        turn = GOLD;
    else
        return kpn_error(err, "side-to-move field: expected 'b' or 'g'");
    int must;
    if (!strcmp(fields[2], "-"))
        must = -1;
    else if (strlen(fields[2]) == 1 && colour_index(fields[2][0]) >= 0)
        must = colour_index(fields[2][0]);
    else
        return kpn_error(err, "tower-to-move field: expected '-' or a lower-case colour letter");
    int target = 1, pts[2] = {0, 0};
    if (nf == 6) {
        int nums[3];
        for (int i = 0; i < 3; i++) {
            const char *f = fields[3 + i];
            if (!*f || strlen(f) > 6)
                return kpn_error(err, "match fields: expected whole numbers");
            int v = 0;
            for (const char *q = f; *q; q++) {
                if (*q < '0' || *q > '9')
                    return kpn_error(err, "match fields: expected whole numbers");
                v = v * 10 + (*q - '0');
            }
            nums[i] = v;
        }
        target = nums[0];
        pts[0] = nums[1];
        pts[1] = nums[2];
    }
    if (target != 1 && target != 3 && target != 7 && target != 15)
        return kpn_error(err, "target field: expected 1, 3, 7 or 15");
    for (int side = 0; side < 2; side++) {
        int earned = 0;
        for (int c = 0; c < 8; c++)
            earned += RING_TOTAL[rings[side * 8 + c]];
        if (earned != pts[side])
            return kpn_error(err, "points field: does not match the rings of the towers");
        if (pts[side] >= target)
            return kpn_error(err, "points field: reaches the target, so the match would be over");
    }
    Undo *stack = p->stack;
    int cap = p->cap;
    uint8_t (*plog)[3] = p->plog;
    uint32_t plog_cap = p->plog_cap;
    memset(p, 0, sizeof(Pos));
    p->stack = stack;
    p->cap = cap;
    p->plog = plog;
    p->plog_cap = plog_cap;
    p->log_passes = 1;
    memcpy(p->board, board, 64);
    memcpy(p->rings, rings, 16);
    for (int sq = 0; sq < 64; sq++)
        if (board[sq] >= 0) {
            p->sq[board[sq]] = (uint8_t)sq;
            p->occ |= 1ULL << sq;
        }
    p->turn = (int8_t)turn;
    p->must = (int8_t)must;
    p->target = target;
    p->points[0] = pts[0];
    p->points[1] = pts[1];
    p->owinner = -1;
    p->ocolour = p->oreason = p->orings = 0;
    p->last_mover = (int8_t)(turn ^ 1);
    p->last_colour = (int8_t)must;
    int winners = 0, wt = -1;
    for (int t = 0; t < 16; t++)
        if ((p->sq[t] >> 3) == GOAL_RANK[t >> 3]) {
            winners++;
            wt = t;
        }
    if (winners > 1)
        return kpn_error(
            err, "placement field: more than one tower stands on its opponent's home row");
    if (winners) {
        if ((wt >> 3) == turn)
            return kpn_error(err, "side-to-move field: the side to move has already reached the "
                                  "opponent's home row");
        p->owinner = (int8_t)(wt >> 3);
        p->ocolour = (int8_t)(wt & 7);
        p->oreason = REASON_GOAL;
        p->orings = (int8_t)rings[wt];
        p->hash = compute_hash(p);
        return 0;
    }
    if (must < 0) {
        int any = 0;
        for (int c = 0; c < 8; c++)
            any |= can_move(p, turn * 8 + c);
        if (!any)
            return kpn_error(err, "tower-to-move field: '-' but none of the towers can move");
    } else {
        p->init_npasses = (uint8_t)resolve(p, 1, 1);
    }
    p->hash = compute_hash(p);
    return 0;
}

int pos_kpn(const Pos *p, char *out, int match)
{
    char *o = out;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int t = p->board[rank * 8 + file];
            if (t < 0) {
                empty++;
                continue;
            }
            if (empty) {
                *o++ = (char)('0' + empty);
                empty = 0;
            }
            char letter = COLOUR_LETTERS[t & 7];
            *o++ = t < 8 ? (char)(letter - 32) : letter;
            for (int r = 0; r < p->rings[t]; r++)
                *o++ = '+';
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (rank)
            *o++ = '/';
    }
    /* A finished round is written so that it reads back finished the same
     * way (as core.py): after a goal, the loser to move with the tower of
     * the goal square's colour; after a deadlock, the winner asked for its
     * blocked tower of the ring's colour. */
    int turn = p->turn, must = p->must;
    if (p->owinner >= 0 && p->oreason == REASON_GOAL) {
        turn = p->owinner ^ 1;
        must = SQ_COLOUR[p->sq[p->owinner * 8 + p->ocolour]];
    } else if (p->owinner >= 0) {
        turn = p->owinner;
        must = p->ocolour;
    }
    *o++ = ' ';
    *o++ = turn ? 'g' : 'b';
    *o++ = ' ';
    *o++ = must < 0 ? '-' : COLOUR_LETTERS[must];
    *o = 0;
    if (match)
        o += sprintf(o, " %d %d %d", p->target, p->points[0], p->points[1]);
    return (int)(o - out);
}
