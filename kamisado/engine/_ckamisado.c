/*
 * _ckamisado: the compiled Kamisado core, solver and search.
 *
 * Plain CPython C API.  The rules are those of kamisado/rules/position.py, reproduced
 * move for move: moves as ints ``from | to << 6``, Sumo pushes, passes after
 * a move (M6), deadlock (M8) with the winner / ring colour rules of core.py,
 * KPN in and out, match fields.
 *
 * Squares: ``square = rank * 8 + file``, rank 0 = Black's home row.
 * Towers: ``side * 8 + colour`` (Black 0..7, Gold 8..15).
 *
 * Contents:
 *   1. tables (square colours, rays, goal paths, Zobrist keys)
 *   2. the position: load KPN, write KPN, generate, make, unmake, resolve
 *   3. the solver: depth-limited win/loss/unknown alpha-beta on exact game
 *      values with iterative deepening; a transposition table of bounds on
 *      the exact value (independent of depth)
 *   4. the heuristic search: iterative deepening negamax with PVS, a Zobrist
 *      transposition table, TT move / immediate wins / killers / history
 *      ordering and an evaluation whose weights come from Python
 *   5. the Python types ``Position`` and ``Searcher`` (the tables of a search
 *      and a solver, which run without the GIL and stop on a flag another
 *      thread sets) and the module functions (a default Searcher)
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;

/* ------------------------------------------------------------------------ */
/* 1. Tables                                                                 */
/* ------------------------------------------------------------------------ */

#define BLACK 0
#define GOLD 1
#define NONE (-1)
#define REASON_GOAL 0
#define REASON_DEADLOCK 1

static const char COLOUR_LETTERS[] = "ngrypubo";
static const int RANGE[4] = {7, 5, 3, 1};
static const int RING_POINTS[4] = {1, 2, 4, 8};
static const int RING_TOTAL[4] = {0, 1, 3, 7};

/* Colour of every square, rank 1 first (kamisado.rules.position.SQUARE_COLOUR). */
static const uint8_t SQ_COLOUR[64] = {
    0, 1, 2, 3, 4, 5, 6, 7, /* rank 1 */
    5, 0, 3, 6, 1, 4, 7, 2, /* rank 2 */
    6, 3, 0, 5, 2, 7, 4, 1, /* rank 3 */
    3, 2, 1, 0, 7, 6, 5, 4, /* rank 4 */
    4, 5, 6, 7, 0, 1, 2, 3, /* rank 5 */
    1, 4, 7, 2, 5, 0, 3, 6, /* rank 6 */
    2, 7, 4, 1, 6, 3, 0, 5, /* rank 7 */
    7, 6, 5, 4, 3, 2, 1, 0, /* rank 8 */
};

static const int GOAL_RANK[2] = {7, 0};

/* RAY[side][dir][sq][i]: squares along a ray, nearest first; dir 0 forward,
 * 1 the side's own left, 2 its own right (the order of core.py). */
static uint8_t RAY[2][3][64][8];
static uint8_t RAYLEN[2][3][64];
/* Goal path masks: WINMASK[side][sq][dir] is the set of squares from sq
 * (exclusive) to the goal row (inclusive) along dir, or the bit of sq itself
 * when the ray does not reach the goal row (sq is always occupied by the
 * tower, so ``occ & mask`` is then never 0). */
static u64 WINMASK[2][64][3];
static uint8_t STEPS[2][64]; /* ranks to the goal row */
/* Squares a tower of a side attacks the goal from: nothing precomputed. */

static u64 Z_TOWER[16][64];
static u64 Z_RINGS[16][4];
static u64 Z_TURN;
static u64 Z_MUST[9];

static u64 splitmix(u64 *s)
{
    u64 z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_tables(void)
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
/* 2. The position                                                           */
/* ------------------------------------------------------------------------ */

typedef struct {
    uint16_t code;
    uint8_t k; /* length of the pushed run, 0 for a step */
    int8_t turn, must;
    int8_t owinner, ocolour, oreason, orings; /* outcome before the move */
    int8_t last_mover, last_colour;
    uint8_t npasses;   /* passes applied after the move */
    uint32_t passes;   /* index into the pass log */
    u64 hash;
} Undo;

typedef struct {
    int8_t board[64]; /* tower id or -1 */
    uint8_t sq[16];
    uint8_t rings[16];
    u64 occ;
    int8_t turn;
    int8_t must;      /* colour, or -1 when any tower may move */
    int8_t owinner;   /* -1 while the round is in progress */
    int8_t ocolour, oreason, orings;
    int8_t last_mover, last_colour;
    int target;
    int points[2];
    u64 hash;
    /* passes applied after the last move (or after loading) */
    uint8_t init_npasses;
    uint8_t init_passes[16][3];
    /* the move stack */
    Undo *stack;
    int ply, cap;
    /* pass log: (side, colour, square) per pass, only when logging */
    uint8_t (*plog)[3];
    uint32_t plog_len, plog_cap;
    int log_passes;
} Pos;

static inline u64 side_must_key(const Pos *p)
{
    return (p->turn ? Z_TURN : 0) ^ Z_MUST[p->must + 1];
}

static u64 compute_hash(const Pos *p)
{
    u64 h = 0;
    for (int t = 0; t < 16; t++)
        h ^= Z_TOWER[t][p->sq[t]] ^ Z_RINGS[t][p->rings[t]];
    return h ^ side_must_key(p);
}

static inline int push_length(const Pos *p, int t)
{
    int n = p->rings[t];
    if (!n)
        return 0;
    int side = t >> 3;
    int sq = p->sq[t];
    const uint8_t *ray = RAY[side][0][sq];
    int len = RAYLEN[side][0][sq];
    int k = 0;
    for (int i = 0; i < len; i++) {
        int c = p->board[ray[i]];
        if (c < 0)
            return k;
        if ((c >> 3) == side || p->rings[c] >= n || k == n)
            return 0;
        k++;
    }
    return 0;
}

static inline int can_move(const Pos *p, int t)
{
    int side = t >> 3, sq = p->sq[t];
    for (int d = 0; d < 3; d++)
        if (RAYLEN[side][d][sq] && p->board[RAY[side][d][sq][0]] < 0)
            return 1;
    return push_length(p, t) > 0;
}

/* Whether tower t has a free path to its goal row within its range. */
static inline int tower_can_win(const Pos *p, int t, u64 occ)
{
    int side = t >> 3, sq = p->sq[t];
    if (STEPS[side][sq] > RANGE[p->rings[t]])
        return 0;
    const u64 *m = WINMASK[side][sq];
    return !(occ & m[0]) || !(occ & m[1]) || !(occ & m[2]);
}

/* The side to move wins at once (round not over). */
static inline int can_win_now(const Pos *p)
{
    if (p->must >= 0)
        return tower_can_win(p, p->turn * 8 + p->must, p->occ);
    for (int c = 0; c < 8; c++)
        if (tower_can_win(p, p->turn * 8 + c, p->occ))
            return 1;
    return 0;
}

static inline int gen_tower(const Pos *p, int t, uint16_t *out, int n)
{
    int side = t >> 3, sq = p->sq[t], r = p->rings[t];
    int range = RANGE[r];
    for (int d = 0; d < 3; d++) {
        const uint8_t *ray = RAY[side][d][sq];
        int len = RAYLEN[side][d][sq];
        if (len > range)
            len = range;
        for (int i = 0; i < len; i++) {
            int s = ray[i];
            if (p->board[s] >= 0)
                break;
            out[n++] = (uint16_t)(sq | s << 6);
        }
    }
    if (r && push_length(p, t))
        out[n++] = (uint16_t)(sq | RAY[side][0][sq][0] << 6);
    return n;
}

#define MAXMOVES 256

static int gen_moves(const Pos *p, uint16_t *out)
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

static int ensure_stack(Pos *p)
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
        p->plog = (uint8_t(*)[3])n;
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
static int resolve(Pos *p, int log, int init)
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

/* Make a legal move (unchecked).  The undo record goes to p->stack[p->ply]
 * which must exist (ensure_stack). */
static inline void make_move(Pos *p, int code)
{
    int frm = code & 63, to = code >> 6;
    int t = p->board[frm];
    int side = t >> 3;
    Undo *u = &p->stack[p->ply++];
    u->code = (uint16_t)code;
    u->turn = p->turn;
    u->must = p->must;
    u->owinner = p->owinner;
    u->ocolour = p->ocolour;
    u->oreason = p->oreason;
    u->orings = p->orings;
    u->last_mover = p->last_mover;
    u->last_colour = p->last_colour;
    u->hash = p->hash;
    u->npasses = 0;
    u->passes = p->plog_len;
    u64 h = p->hash ^ side_must_key(p);
    int k = 0, beyond = 0;
    if (p->board[to] >= 0) {
        const uint8_t *ray = RAY[side][0][frm];
        k = 1;
        while (p->board[ray[k]] >= 0)
            k++;
        for (int i = k; i > 0; i--) {
            int q = p->board[ray[i - 1]];
            p->board[ray[i]] = (int8_t)q;
            p->sq[q] = ray[i];
            h ^= Z_TOWER[q][ray[i - 1]] ^ Z_TOWER[q][ray[i]];
        }
        beyond = ray[k];
        p->occ ^= (1ULL << frm) | (1ULL << beyond);
    } else {
        p->occ ^= (1ULL << frm) | (1ULL << to);
    }
    u->k = (uint8_t)k;
    p->board[frm] = -1;
    p->board[to] = (int8_t)t;
    p->sq[t] = (uint8_t)to;
    h ^= Z_TOWER[t][frm] ^ Z_TOWER[t][to];
    p->last_mover = (int8_t)side;
    p->last_colour = (int8_t)SQ_COLOUR[to];
    if ((to >> 3) == GOAL_RANK[side]) {
        p->owinner = (int8_t)side;
        p->ocolour = (int8_t)(t & 7);
        p->oreason = REASON_GOAL;
        p->orings = (int8_t)p->rings[t];
        p->hash = h ^ side_must_key(p);
        return;
    }
    if (k) {
        p->turn = (int8_t)side;
        p->must = (int8_t)SQ_COLOUR[beyond];
    } else {
        p->turn = (int8_t)(side ^ 1);
        p->must = (int8_t)SQ_COLOUR[to];
    }
    if (!can_move(p, p->turn * 8 + p->must))
        u->npasses = (uint8_t)resolve(p, p->log_passes, 0);
    p->hash = h ^ side_must_key(p);
}

static inline int unmake_move(Pos *p)
{
    Undo *u = &p->stack[--p->ply];
    int code = u->code;
    int frm = code & 63, to = code >> 6;
    int t = p->board[to];
    p->board[frm] = (int8_t)t;
    p->sq[t] = (uint8_t)frm;
    p->board[to] = -1;
    int k = u->k;
    if (k) {
        const uint8_t *ray = RAY[t >> 3][0][frm];
        for (int i = 1; i <= k; i++) {
            int q = p->board[ray[i]];
            p->board[ray[i - 1]] = (int8_t)q;
            p->sq[q] = ray[i - 1];
        }
        p->board[ray[k]] = -1;
        p->occ ^= (1ULL << frm) | (1ULL << ray[k]);
    } else {
        p->occ ^= (1ULL << frm) | (1ULL << to);
    }
    p->turn = u->turn;
    p->must = u->must;
    p->owinner = u->owinner;
    p->ocolour = u->ocolour;
    p->oreason = u->oreason;
    p->orings = u->orings;
    p->last_mover = u->last_mover;
    p->last_colour = u->last_colour;
    p->hash = u->hash;
    if (p->log_passes)
        p->plog_len = u->passes;
    return code;
}

static u64 perft(Pos *p, int depth)
{
    if (depth == 0)
        return 1;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    if (depth == 1)
        return (u64)n;
    u64 total = 0;
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        total += perft(p, depth - 1);
        unmake_move(p);
    }
    return total;
}

/* Copy the state of a position (not its stack) into a search position with
 * its own stack of ``cap`` entries. */
static int pos_clone_state(Pos *dst, const Pos *src, int cap)
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

static void pos_free(Pos *p)
{
    free(p->stack);
    free(p->plog);
    p->stack = NULL;
    p->plog = NULL;
    p->cap = p->ply = 0;
    p->plog_len = p->plog_cap = 0;
}

/* -- KPN ------------------------------------------------------------------ */

static int colour_index(char ch)
{
    const char *c = strchr(COLOUR_LETTERS, ch);
    if (!c || !ch)
        return -1;
    return (int)(c - COLOUR_LETTERS);
}

/* Load a KPN; on error set a Python ValueError and return -1. */
static int pos_load(Pos *p, const char *kpn)
{
    char buf[512];
    size_t len = strlen(kpn);
    if (len >= sizeof buf) {
        PyErr_SetString(PyExc_ValueError, "KPN too long");
        return -1;
    }
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
    if (nf != 3 && nf != 6) {
        PyErr_Format(PyExc_ValueError, "a KPN has 3 or 6 fields, found %d in '%s'", nf, kpn);
        return -1;
    }
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
            if (file != 8) {
                PyErr_Format(PyExc_ValueError,
                             "placement field, rank %d: describes %d squares, expected 8",
                             rank + 1, file);
                return -1;
            }
            if (ch == 0)
                break;
            rank--;
            file = 0;
            if (rank < 0) {
                PyErr_SetString(PyExc_ValueError, "placement field: more than 8 ranks");
                return -1;
            }
            continue;
        }
        if (ch >= '1' && ch <= '8') {
            file += ch - '0';
            if (file > 8) {
                PyErr_Format(PyExc_ValueError,
                             "placement field, rank %d: describes more than 8 squares", rank + 1);
                return -1;
            }
            continue;
        }
        int lower = ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
        int c = colour_index((char)lower);
        if (c < 0) {
            PyErr_Format(PyExc_ValueError, "placement field, rank %d: unexpected %c", rank + 1,
                         ch);
            return -1;
        }
        int side = (ch >= 'A' && ch <= 'Z') ? BLACK : GOLD;
        int t = side * 8 + c;
        int n = 0;
        while (s[1] == '+') {
            n++;
            s++;
        }
        if (n > 3) {
            PyErr_SetString(PyExc_ValueError, "placement field: a tower has at most 3 rings");
            return -1;
        }
        if (file >= 8) {
            PyErr_Format(PyExc_ValueError,
                         "placement field, rank %d: describes more than 8 squares", rank + 1);
            return -1;
        }
        if (seen >> t & 1) {
            PyErr_SetString(PyExc_ValueError, "placement field: a tower appears twice");
            return -1;
        }
        seen |= 1 << t;
        board[rank * 8 + file] = (int8_t)t;
        rings[t] = (uint8_t)n;
        file++;
    }
    if (rank != 0) {
        PyErr_SetString(PyExc_ValueError, "placement field: expected 8 ranks");
        return -1;
    }
    if (seen != 0xFFFF) {
        PyErr_SetString(PyExc_ValueError, "placement field: a tower is missing");
        return -1;
    }
    int turn;
    if (!strcmp(fields[1], "b"))
        turn = BLACK;
    else if (!strcmp(fields[1], "g"))
        turn = GOLD;
    else {
        PyErr_SetString(PyExc_ValueError, "side-to-move field: expected 'b' or 'g'");
        return -1;
    }
    int must;
    if (!strcmp(fields[2], "-"))
        must = -1;
    else if (strlen(fields[2]) == 1 && colour_index(fields[2][0]) >= 0)
        must = colour_index(fields[2][0]);
    else {
        PyErr_SetString(PyExc_ValueError,
                        "tower-to-move field: expected '-' or a lower-case colour letter");
        return -1;
    }
    int target = 1, pts[2] = {0, 0};
    if (nf == 6) {
        int nums[3];
        for (int i = 0; i < 3; i++) {
            const char *f = fields[3 + i];
            if (!*f || strlen(f) > 6) {
                PyErr_SetString(PyExc_ValueError, "match fields: expected whole numbers");
                return -1;
            }
            int v = 0;
            for (const char *q = f; *q; q++) {
                if (*q < '0' || *q > '9') {
                    PyErr_SetString(PyExc_ValueError, "match fields: expected whole numbers");
                    return -1;
                }
                v = v * 10 + (*q - '0');
            }
            nums[i] = v;
        }
        target = nums[0];
        pts[0] = nums[1];
        pts[1] = nums[2];
    }
    if (target != 1 && target != 3 && target != 7 && target != 15) {
        PyErr_SetString(PyExc_ValueError, "target field: expected 1, 3, 7 or 15");
        return -1;
    }
    for (int side = 0; side < 2; side++) {
        int earned = 0;
        for (int c = 0; c < 8; c++)
            earned += RING_TOTAL[rings[side * 8 + c]];
        if (earned != pts[side]) {
            PyErr_SetString(PyExc_ValueError,
                            "points field: does not match the rings of the towers");
            return -1;
        }
        if (pts[side] >= target) {
            PyErr_SetString(PyExc_ValueError,
                            "points field: reaches the target, so the match would be over");
            return -1;
        }
    }
    Undo *stack = p->stack;
    int cap = p->cap;
    uint8_t(*plog)[3] = p->plog;
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
    if (winners > 1) {
        PyErr_SetString(PyExc_ValueError,
                        "placement field: more than one tower stands on its opponent's home row");
        return -1;
    }
    if (winners) {
        if ((wt >> 3) == turn) {
            PyErr_SetString(PyExc_ValueError,
                            "side-to-move field: the side to move has already reached the "
                            "opponent's home row");
            return -1;
        }
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
        if (!any) {
            PyErr_SetString(PyExc_ValueError,
                            "tower-to-move field: '-' but none of the towers can move");
            return -1;
        }
    } else {
        p->init_npasses = (uint8_t)resolve(p, 1, 1);
    }
    p->hash = compute_hash(p);
    return 0;
}

static int pos_kpn(const Pos *p, char *out, int match)
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

/* ------------------------------------------------------------------------ */
/* Clock                                                                     */
/* ------------------------------------------------------------------------ */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------------ */
/* 3. The solver                                                             */
/* ------------------------------------------------------------------------ */

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

#define MATE 30000
#define SV_INF 32000
/* The deepest horizon the solver tries (its stack holds SOLVE_MAX_DEPTH + 200
 * moves); solve(max_depth=) lies in 0..SOLVE_MAX_DEPTH. */
#define SOLVE_MAX_DEPTH 4000
/* Both transposition tables hold 2**log2 entries of 16 bytes, log2 in
 * TT_LOG2_MIN..TT_LOG2_MAX (16 KiB to 4 GiB); a bucket needs 4 entries. */
#define TT_LOG2_MIN 10
#define TT_LOG2_MAX 28
#define SV_TT_DEFAULT_LOG2 22

typedef struct {
    u64 key;
    int16_t lo, hi;
    uint16_t move;
    uint16_t work; /* log2 of the nodes below, for replacement */
} SvEntry;

/* -- the tables: one allocator for the solver's and the search's ----------- */

/* A transposition table of 2**log2 entries of ``size`` bytes, zeroed; NULL
 * when out of memory. */
static void *tt_alloc(int log2, size_t size)
{
    return calloc((size_t)1 << log2, size);
}

/* An empty solver table: every entry the bounds -MATE..MATE. */
static void sv_tt_reset(SvEntry *tt, size_t mask)
{
    for (size_t i = 0; i <= mask; i++) {
        tt[i].key = 0;
        tt[i].lo = -MATE;
        tt[i].hi = MATE;
        tt[i].move = 0;
        tt[i].work = 0;
    }
}

#define SV_BUCKET 4

/* -- limits: one check for the solver and the search ------------------------
 *
 * A search runs without the GIL.  Every 1024 nodes it looks at its node
 * limit, at the stop flag of its Searcher (an atomic int another thread sets
 * without the GIL), and at its deadline; on the main thread, every 64 such
 * checks, it takes the GIL back for a moment to run the signal handlers (a
 * Ctrl-C sets ``interrupted`` and leaves its exception set).
 */
typedef struct {
    u64 nodes;
    u64 node_limit;
    double deadline; /* ms, 0 none */
    int stop, interrupted;
    u64 next_check, checks;
    atomic_int *flag;  /* the Searcher's stop flag, or NULL */
    PyThreadState **ts; /* where the main thread's state is saved, or NULL */
} Limits;

static int limits_check(Limits *L)
{
    L->next_check = L->nodes + 1024;
    if (L->node_limit && L->nodes >= L->node_limit)
        L->stop = 1;
    else if (L->flag && atomic_load_explicit(L->flag, memory_order_relaxed))
        L->stop = 1;
    else if (L->deadline > 0 && now_ms() >= L->deadline)
        L->stop = 1;
    else if ((++L->checks & 63) == 0 && L->ts) {
        PyEval_RestoreThread(*L->ts);
        int r = PyErr_CheckSignals();
        *L->ts = PyEval_SaveThread();
        if (r < 0)
            L->stop = L->interrupted = 1; /* Ctrl-C: the exception is set */
    }
    return L->stop;
}

/* Whether to stop: the limits are looked at every 1024 nodes. */
static inline int limits_hit(Limits *L)
{
    if (L->nodes >= L->next_check)
        return limits_check(L);
    return L->stop;
}

typedef struct {
    Pos p;
    Limits L;
    SvEntry *tt;
    size_t mask;
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
    e = &b[0];
    for (int i = 1; i < SV_BUCKET; i++)
        if (b[i].work < e->work)
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

/* Number of replies of the opponent's tower to move that do not let the
 * side ``us`` win at once (steps only, on the current occupancy).  The
 * position is after our move, with the opponent to move. */
static int safe_replies(const Pos *p, int us)
{
    int t = p->turn * 8 + p->must;
    int side = t >> 3, sq = p->sq[t], r = p->rings[t];
    int range = RANGE[r];
    int n = 0;
    u64 occ0 = p->occ ^ (1ULL << sq);
    for (int d = 0; d < 3; d++) {
        const uint8_t *ray = RAY[side][d][sq];
        int len = RAYLEN[side][d][sq];
        if (len > range)
            len = range;
        for (int i = 0; i < len; i++) {
            int s = ray[i];
            if (p->board[s] >= 0)
                break;
            if ((s >> 3) == GOAL_RANK[side])
                return 64; /* the opponent wins at once */
            int ours = us * 8 + SQ_COLOUR[s];
            if (!tower_can_win(p, ours, occ0 | (1ULL << s)))
                n++;
        }
    }
    if (r && push_length(p, t))
        n++;
    return n;
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
        if (m == ttmove) {
            sc = 1 << 30;
        } else {
            make_move(p, m);
            if (p->owinner >= 0) {
                sc = p->owinner == side ? (1 << 29) : -(1 << 29);
            } else if (p->turn != side) {
                /* the child's TT bucket is needed soon: fetch it now */
                __builtin_prefetch(sv_bucket(s, p->hash));
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

/* DL_1 of a position in progress, for its side to move: a win at once, or
 * a loss when every move ends the round against the mover (a deadlock it
 * causes), or 0. */
static int sv_dl1(Solver *s)
{
    Pos *p = &s->p;
    s->L.nodes++;
    if (can_win_now(p))
        return MATE - 1;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int side = p->turn;
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        int lost = p->owinner >= 0 && p->owinner != side;
        unmake_move(p);
        if (!lost)
            return 0;
    }
    return -(MATE - 1);
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
        make_move(p, mv[i]);
        int v;
        if (p->owinner >= 0)
            v = p->owinner == side ? MATE - 1 : -(MATE - 1);
        else
            v = up_value(sv_dl1(s), p->turn == side);
        unmake_move(p);
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
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int best = -SV_INF, bestmove = 0;
    int lo, hi;
    u64 key = p->hash;
    if (d <= 2) {
        if (d <= 1) {
            /* No win within 1 (checked); a loss within 1 needs every move to
             * end the round against us (a deadlock we cause). */
            best = -(MATE - 1);
            for (int i = 0; i < n; i++) {
                make_move(p, mv[i]);
                int lost = p->owinner >= 0 && p->owinner != side;
                unmake_move(p);
                if (!lost) {
                    best = 0;
                    break;
                }
            }
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
    int alpha0 = alpha;
    u64 nodes0 = s->L.nodes;
    /* Order: the TT move first, then by the opponent's safe replies (fewest
     * first), then history. */
    int score[MAXMOVES];
    sv_order(s, mv, n, ttmove, score);
    for (int i = 0; i < n; i++) {
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (score[j] > score[bi])
                bi = j;
        if (bi != i) {
            int tm = mv[i];
            mv[i] = mv[bi];
            mv[bi] = (uint16_t)tm;
            int ts = score[i];
            score[i] = score[bi];
            score[bi] = ts;
        }
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

/* -- who wins, without the distance ---------------------------------------
 *
 * wl_search(d) proves only who wins: 1 when the side to move wins, -1 when
 * it loses, 0 when it cannot tell (or a limit stopped it: L.stop).  It is
 * the sign of DL_d, found cheaply: the first winning move ends a node (the
 * exact search must go on to find the shortest win), and a win or loss
 * proven at any distance (in the table, or by the move-ordering tests)
 * counts, so 1 and -1 hold at every distance while 0 means: neither side
 * wins within d.  Iterative deepening on d (wl_root) ends at the first d
 * where the root is decided, at most its exact distance.
 *
 * The table is the exact solver's: a win is stored as lo = 1 (a win at some
 * distance), a loss as hi = -1, "neither within d" as the bounds
 * -(MATE-d-1)..MATE-d-1; all are bounds on the exact value, valid for both
 * solvers.
 */
static int wl_search(Solver *s, int d, int alpha, int beta)
{
    Pos *p = &s->p;
    s->L.nodes++;
    if (limits_hit(&s->L))
        return 0;
    if (can_win_now(p))
        return 1;
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    if (d <= 1) {
        /* a loss within 1: every move ends the round against us */
        for (int i = 0; i < n; i++) {
            make_move(p, mv[i]);
            int lost = p->owinner >= 0 && p->owinner != side;
            unmake_move(p);
            if (!lost)
                return 0;
        }
        return -1;
    }
    u64 key = p->hash;
    SvEntry *e = sv_probe(s, key);
    int ttmove = 0;
    if (e) {
        if (e->lo > 0)
            return 1;
        if (e->hi < 0)
            return -1;
        int tlo = e->lo > -(MATE - d) ? 0 : -1; /* not lost within d */
        int thi = e->hi < MATE - d ? 0 : 1;     /* no win within d */
        if (tlo >= beta || thi <= alpha || tlo == thi)
            return 0;
        ttmove = e->move;
    }
    u64 nodes0 = s->L.nodes;
    int score[MAXMOVES];
    sv_order(s, mv, n, ttmove, score);
    int alpha0 = alpha, best = -2, bestmove = 0;
    for (int i = 0; i < n; i++) {
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (score[j] > score[bi])
                bi = j;
        if (bi != i) {
            int tm = mv[i];
            mv[i] = mv[bi];
            mv[bi] = (uint16_t)tm;
            int ts = score[i];
            score[i] = score[bi];
            score[bi] = ts;
        }
        int m = mv[i];
        /* sorted: from the first move that lets the opponent win at once,
         * every move loses */
        if (score[i] <= LOSE2) {
            if (best < -1)
                best = -1;
            break;
        }
        int v;
        if (score[i] == WIN3) {
            v = 1; /* every reply lets us win at once */
        } else {
            make_move(p, m);
            if (p->owinner >= 0)
                v = p->owinner == side ? 1 : -1;
            else if (p->turn == side)
                v = wl_search(s, d - 1, alpha, beta);
            else
                v = -wl_search(s, d - 1, -beta, -alpha);
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
    int cut = MATE - d - 1;
    if (best < 0) /* every move loses: -1 answers are proofs */
        sv_store(s, key, -MATE, -1, ttmove, work);
    else if (best >= beta) /* not lost within d */
        sv_store(s, key, -cut, MATE, bestmove, work);
    else if (best <= alpha0) /* no win within d */
        sv_store(s, key, -MATE, cut, ttmove, work);
    else
        sv_store(s, key, -cut, cut, bestmove, work);
    return best < 0 ? -1 : 0;
}

/* A winning move of a position proven won (wl_search answered 1): the
 * table's move, else the first move whose position is proven won for us
 * (the proofs are in the table, so this costs little).  0 if none is found
 * (a limit stopped the search). */
static int wl_winning_move(Solver *s, int d)
{
    Pos *p = &s->p;
    SvEntry *e = sv_probe(s, p->hash);
    if (e && e->move)
        return e->move;
    int side = p->turn;
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    for (int i = 0; i < n; i++) { /* a win at once first */
        make_move(p, mv[i]);
        int won = p->owinner == side;
        unmake_move(p);
        if (won)
            return mv[i];
    }
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        int v;
        if (p->owinner >= 0)
            v = p->owinner == side ? 1 : -1;
        else if (p->turn == side)
            v = wl_search(s, d, -2, 2);
        else
            v = -wl_search(s, d, -2, 2);
        unmake_move(p);
        if (v > 0)
            return mv[i];
        if (s->L.stop)
            break;
    }
    return 0;
}

/* Who wins (1: the side to move, -1: the other, 0: a limit stopped it, or
 * nothing within max_depth when it is not 0): iterative deepening of
 * wl_search on the horizon d = 1, 2, 3, ...  After each horizon from 4 on, a
 * probe searches twice as deep for as many nodes as the iterations took so
 * far: a long forced win is often found at once far beyond the horizon the
 * deepening has reached (from the start of a single round: about 0.1M nodes
 * instead of 2M).  A probe cut short by its own budget leaves only proofs
 * and bounds in the table.  ``*next`` and ``*spent`` (1 and 0 to begin)
 * would carry the deepening on from a call that a budget stopped.  Fills
 * *bestmove (a winning move, 0 for a loss) and *depth_done (the horizon
 * that decided it). */
static int wl_root(Solver *s, int max_depth, int *next, u64 *spent, int *bestmove,
                   int *depth_done)
{
    *bestmove = 0;
    *depth_done = 0;
    for (int d = *next; !max_depth || d <= max_depth; d++) {
        u64 n0 = s->L.nodes;
        int r = wl_search(s, d, -2, 2);
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
            r = wl_search(s, pd, -2, 2);
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
                *bestmove = wl_winning_move(s, done);
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

/* Solve the position: the exact value, or 0 when a limit stops it.  Fills
 * *bestmove and *depth_done. */
static int sv_root(Solver *s, int start_depth, int max_depth, int *bestmove, int *depth_done)
{
    Pos *p = &s->p;
    *bestmove = 0;
    *depth_done = 0;
    if (p->owinner >= 0)
        return p->owinner == p->turn ? MATE : -MATE; /* not reached from Python */
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    int side = p->turn;
    /* An immediate win. */
    for (int i = 0; i < n; i++) {
        make_move(p, mv[i]);
        int won = p->owinner == side;
        unmake_move(p);
        if (won) {
            *bestmove = mv[i];
            *depth_done = 1;
            return MATE - 1;
        }
    }
    for (int d = start_depth > 1 ? start_depth : 1; !max_depth || d <= max_depth; d++) {
        int best = -SV_INF, bm = 0;
        int alpha = -SV_INF, beta = SV_INF;
        SvEntry *e = sv_probe(s, p->hash);
        int ttmove = e ? e->move : 0;
        /* TT move first */
        for (int i = 0; i < n; i++)
            if (mv[i] == ttmove && i) {
                int tm = mv[0];
                mv[0] = mv[i];
                mv[i] = (uint16_t)tm;
            }
        for (int i = 0; i < n; i++) {
            int m = mv[i];
            make_move(p, m);
            int v;
            if (p->owinner >= 0)
                v = p->owinner == side ? MATE - 1 : -(MATE - 1);
            else if (p->turn == side)
                v = up_value(sv_search(s, d - 1, down_bound(alpha), down_bound(beta)), 1);
            else
                v = up_value(sv_search(s, d - 1, -down_bound(beta), -down_bound(alpha)), 0);
            unmake_move(p);
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

/* ------------------------------------------------------------------------ */
/* 4. The heuristic search                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Scores from the side to move.  A won round at ply p (moves from the root)
 * scores WIN_BASE + 256 * tier - p where tier is 15 when the round wins the
 * match and otherwise the points it carries (1, 2, 4 or 8): a more valuable
 * round first, then the shortest win.  A lost round scores the negation.
 * Evaluations stay within +-EVAL_MAX.
 */
#define WIN_BASE 20000
#define WIN_MIN (WIN_BASE - 256)
#define S_INF 30000
#define EVAL_MAX 10000
#define MAXPLY 128
/* The deepest search(depth=) and perft(depth): the search's stacks hold
 * MAXPLY plies, 8 of them kept for the extensions below the horizon. */
#define MAX_DEPTH 120
_Static_assert(MAX_DEPTH == MAXPLY - 8, "MAX_DEPTH leaves 8 plies of MAXPLY");
/* search() and solve() count nodes in a u64; the limit stays a signed 64-bit. */
#define NODE_LIMIT_MAX ((u64)INT64_MAX)
#define SEED_MAX UINT64_MAX
#define WEIGHT_MAX 1000

enum {
    W_THREAT,    /* each of our towers with a free path to the goal row */
    W_SAFE,      /* each move of the tower to move that does not lose at once */
    W_NOSAFE,    /* penalty when the tower to move has no such move */
    W_MOBILITY,  /* each move of each tower */
    W_ADVANCE,   /* each rank a tower has advanced */
    W_TEMPO,     /* bonus for the side to move */
    W_NOISE,     /* random noise amplitude (seeded) */
    NWEIGHTS
};

static const int DEFAULT_WEIGHTS[NWEIGHTS] = {39, 6, 1000, 7, 19, 47, 0};

typedef struct {
    u64 key;
    int16_t score;
    uint16_t move;
    int8_t depth;
    uint8_t flag; /* 1 lower, 2 upper, 3 exact */
    uint16_t gen; /* the search that wrote it: others read as empty */
} SeEntry;

#define F_LOWER 1
#define F_UPPER 2
#define F_EXACT 3

typedef struct {
    Pos p;
    int w[NWEIGHTS];
    Limits L;
    SeEntry *tt;
    size_t mask;
    uint16_t gen;
    u64 seed;
    uint16_t killers[MAXPLY][2];
    int32_t history[16][64];
    uint16_t pv[MAXPLY][MAXPLY];
    int pvlen[MAXPLY];
    int seldepth;
} Search;

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

static int evaluate(Search *S)
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
                __builtin_prefetch(&S->tt[p->hash & S->mask]);
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
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (score[j] > score[bi])
                bi = j;
        if (bi != i) {
            int tm = mv[i];
            mv[i] = mv[bi];
            mv[bi] = (uint16_t)tm;
            int ts = score[i];
            score[i] = score[bi];
            score[bi] = ts;
        }
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

/* ------------------------------------------------------------------------ */
/* 5. Python                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD Pos pos;
} PositionObject;

static PyTypeObject PositionType;

static const char *REASON_NAMES[2] = {"goal", "deadlock"};

/* -- argument checks ---------------------------------------------------------
 *
 * Every entry point reads its arguments through these: a wrong type raises
 * TypeError, a value out of range ValueError saying what was expected and
 * what was found.  Integers are ints or objects with __index__ (never bool);
 * a number is an int or a float (never bool); flags are bools.
 */

/* The value found, for a message: its repr, or the size of a huge integer. */
static PyObject *found_text(PyObject *o)
{
    if (PyLong_Check(o)) {
        PyObject *bl = PyObject_CallMethod(o, "bit_length", NULL);
        if (!bl)
            return NULL;
        long bits = PyLong_AsLong(bl);
        Py_DECREF(bl);
        if (bits > 256)
            return PyUnicode_FromFormat("an integer of %ld bits", bits);
    }
    return PyObject_Repr(o);
}

/* Raise ``<name> must be <expected>, got <found>``; returns -1. */
static int arg_error(PyObject *exc, const char *name, const char *expected, PyObject *found)
{
    PyObject *text = found_text(found);
    if (text) {
        PyErr_Format(exc, "%s must be %s, got %U", name, expected, text);
        Py_DECREF(text);
    }
    return -1;
}

static int type_error(const char *name, const char *expected, PyObject *found)
{
    PyErr_Format(PyExc_TypeError, "%s must be %s, got %.200s", name, expected,
                 Py_TYPE(found)->tp_name);
    return -1;
}

/* An integer in lo..hi into *out (two's complement when negative).
 * ``expected`` names the range for the message, e.g. "an integer in 0..120". */
static int get_int(PyObject *o, const char *name, long long lo, u64 hi, const char *expected,
                   u64 *out)
{
    if (PyBool_Check(o) || !PyIndex_Check(o))
        return type_error(name, "an integer", o);
    PyObject *n = PyNumber_Index(o);
    if (!n)
        return -1;
    int overflow = 0, ok = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    u64 u = 0;
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(n);
        return -1;
    }
    if (!overflow) {
        ok = v >= lo && (v < 0 || (u64)v <= hi);
        u = (u64)v;
    } else if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(n);
        if (u == (u64)-1 && PyErr_Occurred())
            PyErr_Clear(); /* beyond 64 bits: out of every range */
        else
            ok = u <= hi;
    }
    if (!ok) {
        arg_error(PyExc_ValueError, name, expected, n);
        Py_DECREF(n);
        return -1;
    }
    Py_DECREF(n);
    *out = u;
    return 0;
}

static int get_bool(PyObject *o, const char *name, int *out)
{
    if (!PyBool_Check(o))
        return type_error(name, "a bool", o);
    *out = o == Py_True;
    return 0;
}

/* A time limit in milliseconds: a finite number >= 0, 0 for none. */
static int get_time_ms(PyObject *o, double *out)
{
    static const char expected[] = "a finite number of milliseconds >= 0 (0: no limit)";
    if (PyBool_Check(o) || !(PyFloat_Check(o) || PyIndex_Check(o)))
        return type_error("time_ms", "a number", o);
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        return arg_error(PyExc_ValueError, "time_ms", expected, o);
    }
    if (!isfinite(d) || d < 0)
        return arg_error(PyExc_ValueError, "time_ms", expected, o);
    *out = d;
    return 0;
}

#define STR(x) #x
#define XSTR(x) STR(x)
#define NODE_LIMIT_RANGE "an integer in 0..2**63-1 (0: no limit)"
#define TT_RANGE "an integer in " XSTR(TT_LOG2_MIN) ".." XSTR(TT_LOG2_MAX) \
    " (a table of 2**tt_log2 16-byte entries, 4 GiB at most)"

/* A table size: TT_LOG2_MIN..TT_LOG2_MAX, or 0 (keep the table) if allowed. */
static int get_tt_log2(PyObject *o, int allow_zero, int *out)
{
    const char *expected = allow_zero ? "0 (the table as it is) or " TT_RANGE : TT_RANGE;
    u64 v;
    if (get_int(o, "tt_log2", 0, TT_LOG2_MAX, expected, &v) < 0)
        return -1;
    if (v < TT_LOG2_MIN && !(allow_zero && v == 0))
        return arg_error(PyExc_ValueError, "tt_log2", expected, o);
    *out = (int)v;
    return 0;
}

/* Evaluation weights: None (the defaults) or a tuple or list of NWEIGHTS
 * integers in -WEIGHT_MAX..WEIGHT_MAX. */
static int get_weights(PyObject *o, int *w)
{
    memcpy(w, DEFAULT_WEIGHTS, sizeof(int) * NWEIGHTS);
    if (o == Py_None)
        return 0;
    if (!PyTuple_Check(o) && !PyList_Check(o))
        return type_error("weights", "None, a tuple or a list of integers", o);
    PyObject *seq = PySequence_Fast(o, "weights");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != NWEIGHTS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "weights must hold %d integers, got %zd", NWEIGHTS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "weights[%d]", (int)i);
        u64 v;
        if (get_int(PySequence_Fast_GET_ITEM(seq, i), name, -WEIGHT_MAX, WEIGHT_MAX,
                    "an integer in -" XSTR(WEIGHT_MAX) ".." XSTR(WEIGHT_MAX), &v) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        w[i] = (int)(long long)v;
    }
    Py_DECREF(seq);
    return 0;
}

static int Position_init(PositionObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"kpn", NULL};
    PyObject *arg = NULL;
    const char *kpn = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &arg))
        return -1;
    PyObject *text = NULL; /* a core Position (anything with .kpn()) */
    if (arg && PyUnicode_Check(arg)) {
        Py_INCREF(arg);
        text = arg;
    } else if (arg) {
        if (!PyObject_HasAttrString(arg, "kpn"))
            return type_error("kpn", "a KPN string or an object with a kpn() method", arg);
        text = PyObject_CallMethod(arg, "kpn", NULL);
        if (!text)
            return -1;
        if (!PyUnicode_Check(text)) {
            type_error("kpn() of the object given", "a str", text);
            Py_DECREF(text);
            return -1;
        }
    }
    if (text) {
        /* Only ASCII can be KPN; the parser reads bytes and stops at a NUL. */
        Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        for (Py_ssize_t i = 0; i < len; i++) {
            Py_UCS4 ch = PyUnicode_READ_CHAR(text, i);
            if (ch == 0 || ch > 127) {
                PyObject *bad = PyUnicode_Substring(text, i, i + 1);
                if (bad) {
                    PyErr_Format(PyExc_ValueError,
                                 "a KPN is ASCII text without NUL, found %R at index %zd",
                                 bad, i);
                    Py_DECREF(bad);
                }
                Py_DECREF(text);
                return -1;
            }
        }
        kpn = PyUnicode_AsUTF8(text);
        if (!kpn) {
            Py_DECREF(text);
            return -1;
        }
    }
    Pos *p = &self->pos;
    p->plog_len = 0;
    p->ply = 0;
    int rc = pos_load(p, kpn);
    Py_XDECREF(text);
    if (rc < 0)
        return -1;
    if (ensure_stack(p) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *Position_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PositionObject *self = (PositionObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    memset(&self->pos, 0, sizeof(Pos));
    self->pos.owinner = -1;
    return (PyObject *)self;
}

static void Position_dealloc(PositionObject *self)
{
    pos_free(&self->pos);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Position_moves(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    uint16_t mv[MAXMOVES];
    int n = gen_moves(&self->pos, mv);
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(mv[i]));
    return list;
}

static int is_legal(const Pos *p, int code)
{
    uint16_t mv[MAXMOVES];
    int n = gen_moves(p, mv);
    for (int i = 0; i < n; i++)
        if (mv[i] == code)
            return 1;
    return 0;
}

static PyObject *Position_push(PositionObject *self, PyObject *arg)
{
    if (PyBool_Check(arg) || !PyIndex_Check(arg)) {
        type_error("code", "an integer", arg);
        return NULL;
    }
    Pos *p = &self->pos;
    u64 code;
    if (get_int(arg, "code", 0, 4095, "a legal move code", &code) < 0 ||
        !is_legal(p, (int)code)) {
        /* one message for codes out of range and illegal ones */
        PyErr_Clear();
        PyObject *text = found_text(arg);
        if (text) {
            PyErr_Format(PyExc_ValueError, "illegal move code %U%s", text,
                         p->owinner >= 0 ? ": the round is over" : "");
            Py_DECREF(text);
        }
        return NULL;
    }
    if (ensure_stack(p) < 0)
        return PyErr_NoMemory();
    make_move(p, (int)code);
    Py_RETURN_NONE;
}

static PyObject *Position_pop(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    Pos *p = &self->pos;
    if (p->ply == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from a position with no moves");
        return NULL;
    }
    return PyLong_FromLong(unmake_move(p));
}

static PyObject *Position_kpn(PositionObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"match", NULL};
    PyObject *mobj = Py_True;
    int match;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &mobj) ||
        get_bool(mobj, "match", &match) < 0)
        return NULL;
    char buf[256];
    pos_kpn(&self->pos, buf, match);
    return PyUnicode_FromString(buf);
}

static PyObject *Position_passes(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    Pos *p = &self->pos;
    int n;
    const uint8_t(*src)[3];
    if (p->ply) {
        Undo *u = &p->stack[p->ply - 1];
        n = u->npasses;
        src = (const uint8_t(*)[3])(p->plog + u->passes);
    } else {
        n = p->init_npasses;
        src = (const uint8_t(*)[3])p->init_passes;
    }
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue("(iii)", src[i][0], src[i][1], src[i][2]);
        if (!item) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, item);
    }
    return t;
}

static PyObject *Position_perft(PositionObject *self, PyObject *arg)
{
    u64 depth;
    if (get_int(arg, "depth", 0, MAX_DEPTH, "an integer in 0.." XSTR(MAX_DEPTH), &depth) < 0)
        return NULL;
    Pos tmp;
    if (pos_clone_state(&tmp, &self->pos, (int)depth + 8) < 0)
        return PyErr_NoMemory();
    u64 r;
    Py_BEGIN_ALLOW_THREADS r = perft(&tmp, (int)depth);
    Py_END_ALLOW_THREADS pos_free(&tmp);
    return PyLong_FromUnsignedLongLong(r);
}

static PyObject *Position_copy(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    PositionObject *n = (PositionObject *)Position_new(&PositionType, NULL, NULL);
    if (!n)
        return NULL;
    Pos *src = &self->pos;
    Pos *dst = &n->pos;
    memcpy(dst, src, sizeof(Pos));
    dst->stack = NULL;
    dst->plog = NULL;
    dst->cap = 0;
    dst->plog_cap = 0;
    int cap = src->cap > 0 ? src->cap : 64;
    dst->stack = (Undo *)malloc(sizeof(Undo) * (size_t)cap);
    if (!dst->stack) {
        Py_DECREF(n);
        return PyErr_NoMemory();
    }
    dst->cap = cap;
    memcpy(dst->stack, src->stack, sizeof(Undo) * (size_t)src->ply);
    if (src->plog_cap) {
        dst->plog = malloc(sizeof(*src->plog) * src->plog_cap);
        if (!dst->plog) {
            Py_DECREF(n);
            return PyErr_NoMemory();
        }
        dst->plog_cap = src->plog_cap;
        memcpy(dst->plog, src->plog, sizeof(*src->plog) * src->plog_len);
    }
    return (PyObject *)n;
}

static PyObject *Position_get_outcome(PositionObject *self, void *closure)
{
    Pos *p = &self->pos;
    if (p->owinner < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(iisi)", p->owinner, p->ocolour, REASON_NAMES[(int)p->oreason],
                         p->orings);
}

static PyObject *Position_get_turn(PositionObject *self, void *closure)
{
    return PyLong_FromLong(self->pos.turn);
}

static PyObject *Position_get_must(PositionObject *self, void *closure)
{
    return PyLong_FromLong(self->pos.must);
}

static PyObject *Position_get_hash(PositionObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->pos.hash);
}

static PyObject *Position_get_ply(PositionObject *self, void *closure)
{
    return PyLong_FromLong(self->pos.ply);
}

static PyObject *Position_get_target(PositionObject *self, void *closure)
{
    return PyLong_FromLong(self->pos.target);
}

static PyObject *Position_get_points(PositionObject *self, void *closure)
{
    return Py_BuildValue("(ii)", self->pos.points[0], self->pos.points[1]);
}

static PyObject *Position_get_board(PositionObject *self, void *closure)
{
    PyObject *t = PyTuple_New(64);
    if (!t)
        return NULL;
    for (int i = 0; i < 64; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(self->pos.board[i]));
    return t;
}

static PyObject *Position_get_rings(PositionObject *self, void *closure)
{
    PyObject *t = PyTuple_New(16);
    if (!t)
        return NULL;
    for (int i = 0; i < 16; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(self->pos.rings[i]));
    return t;
}

static PyObject *Position_check_hash(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    /* consistency check used by the tests: incremental state == recomputed */
    Pos *p = &self->pos;
    u64 occ = 0;
    for (int sq = 0; sq < 64; sq++) {
        int t = p->board[sq];
        if (t >= 0) {
            occ |= 1ULL << sq;
            if (p->sq[t] != sq)
                Py_RETURN_FALSE;
        }
    }
    if (occ != p->occ)
        Py_RETURN_FALSE;
    if (compute_hash(p) != p->hash)
        Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

static PyObject *Position_can_win_now(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->pos.owinner >= 0)
        Py_RETURN_FALSE;
    return PyBool_FromLong(can_win_now(&self->pos));
}

static PyObject *Position_repr(PositionObject *self)
{
    char buf[256];
    pos_kpn(&self->pos, buf, 1);
    return PyUnicode_FromFormat("_ckamisado.Position('%s')", buf);
}

/* -- solve ------------------------------------------------------------------ */

static PyObject *moves_to_list(const uint16_t *mv, int n)
{
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(mv[i]));
    return list;
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

/* -- the Searcher ---------------------------------------------------------------
 *
 * A Searcher owns a search table and a solver table, as a chess engine's
 * thread does: searches of different Searchers run side by side in threads
 * of one process, each without the GIL.  Its stop flag is an atomic int:
 * stop() sets it from any thread, the search sees it within 1024 nodes and
 * answers as at a limit; it stays set (every later search and solve of the
 * Searcher stops at once, after a search's first depth) until resume().
 *
 * The search table is not zeroed on each search: each search that does not
 * keep the table takes a new generation, and entries of other generations
 * read as empty (the whole table is zeroed once every 65535 generations).
 * The solver's table holds bounds on exact values, valid for ever: it is
 * kept between calls.
 *
 * The module functions search(), solve() and clear_tt() use a default
 * Searcher (a fresh one when the default is busy in another thread).
 */

typedef struct {
    PyObject_HEAD
    SeEntry *se; /* the search's table, NULL until the first search */
    size_t se_mask;
    int se_log2;
    uint16_t gen; /* the generation of the last search (0: none) */
    SvEntry *sv; /* the solver's table, NULL until the first solve */
    size_t sv_mask;
    int sv_log2;
    atomic_int stop;
    /* read and written with the GIL: a table in use, and by which thread */
    int se_busy, sv_busy;
    unsigned long se_owner, sv_owner;
} SearcherObject;

static PyTypeObject SearcherType;
static SearcherObject *default_searcher = NULL;
static unsigned long main_thread_ident = 0;

/* Where a running search saves the thread state so that the limit check can
 * look at signals: only on the main thread, where Python runs handlers. */
static PyThreadState **signal_slot(PyThreadState **ts)
{
    return PyThread_get_thread_ident() == main_thread_ident ? ts : NULL;
}

static int searcher_sv_table(SearcherObject *self, int log2)
{
    if (self->sv && (log2 == 0 || log2 == self->sv_log2))
        return 0;
    if (log2 == 0)
        log2 = SV_TT_DEFAULT_LOG2;
    SvEntry *t = (SvEntry *)tt_alloc(log2, sizeof(SvEntry));
    if (!t) {
        PyErr_NoMemory();
        return -1;
    }
    free(self->sv);
    self->sv = t;
    self->sv_mask = ((size_t)1 << log2) - 1;
    self->sv_log2 = log2;
    sv_tt_reset(t, self->sv_mask);
    return 0;
}

/* The search table of 2**log2 entries for a new search: a new generation
 * unless ``keep`` (and the table is the same size). */
static int searcher_se_table(SearcherObject *self, int log2, int keep)
{
    if (!self->se || log2 != self->se_log2) {
        SeEntry *t = (SeEntry *)tt_alloc(log2, sizeof(SeEntry));
        if (!t) {
            PyErr_NoMemory();
            return -1;
        }
        free(self->se);
        self->se = t;
        self->se_mask = ((size_t)1 << log2) - 1;
        self->se_log2 = log2;
        self->gen = 0;
        keep = 0;
    }
    if (!keep || !self->gen) {
        if (++self->gen == 0) {
            memset(self->se, 0, sizeof(SeEntry) * (self->se_mask + 1));
            self->gen = 1;
        }
    }
    return 0;
}

static PyObject *Searcher_solve(SearcherObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "node_limit", "time_ms", "max_depth", "pv", "tt_log2",
                             "exact", NULL};
    PyObject *pobj, *nobj = NULL, *tobj = NULL, *dobj = NULL, *pvobj = NULL, *ttobj = NULL,
             *exobj = NULL;
    u64 node_limit = 0, max_depth = 0;
    double time_ms = 0;
    int want_pv = 1, tt_log2 = 0, exact = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOOOOO", kwlist, &PositionType, &pobj,
                                     &nobj, &tobj, &dobj, &pvobj, &ttobj, &exobj))
        return NULL;
    if (exobj && get_bool(exobj, "exact", &exact) < 0)
        return NULL;
    if ((nobj && get_int(nobj, "node_limit", 0, NODE_LIMIT_MAX, NODE_LIMIT_RANGE,
                         &node_limit) < 0) ||
        (tobj && get_time_ms(tobj, &time_ms) < 0) ||
        (dobj && get_int(dobj, "max_depth", 0, SOLVE_MAX_DEPTH,
                         "an integer in 0.." XSTR(SOLVE_MAX_DEPTH) " (0: no limit)",
                         &max_depth) < 0) ||
        (pvobj && get_bool(pvobj, "pv", &want_pv) < 0) ||
        (ttobj && get_tt_log2(ttobj, 1, &tt_log2) < 0))
        return NULL;
    Pos *src = &((PositionObject *)pobj)->pos;
    if (src->owinner >= 0) {
        PyErr_SetString(PyExc_ValueError, "the round is over");
        return NULL;
    }
    if (self->sv_busy) {
        PyErr_SetString(PyExc_RuntimeError, "solve: this Searcher is solving in another thread");
        return NULL;
    }
    if (searcher_sv_table(self, tt_log2) < 0)
        return NULL;
    Solver *s = (Solver *)calloc(1, sizeof(Solver));
    if (!s)
        return PyErr_NoMemory();
    if (pos_clone_state(&s->p, src, SOLVE_MAX_DEPTH + 200) < 0) {
        free(s);
        return PyErr_NoMemory();
    }
    s->tt = self->sv;
    s->mask = self->sv_mask;
    s->L.node_limit = node_limit;
    s->L.flag = &self->stop;
    double t0 = now_ms();
    s->L.deadline = time_ms > 0 ? t0 + time_ms : 0;
    int bm = 0, dd = 0, value;
    uint16_t pv[512];
    int npv = 0;
    u64 pv_nodes = 0;
    self->sv_busy = 1;
    self->sv_owner = PyThread_get_thread_ident();
    PyThreadState *ts = PyEval_SaveThread();
    s->L.ts = signal_slot(&ts);
    if (exact) {
        value = sv_root(s, 1, (int)max_depth, &bm, &dd);
    } else {
        int next = 1;
        u64 spent = 0;
        value = wl_root(s, (int)max_depth, &next, &spent, &bm, &dd);
        want_pv = 0;
    }
    int stopped = s->L.stop;
    if (value && want_pv && !stopped) {
        /* the line of a proven value: no limit (it is quick), no stop */
        u64 before = s->L.nodes;
        s->L.node_limit = 0;
        s->L.deadline = 0;
        s->L.flag = NULL;
        npv = sv_pv(s, value, pv, 512);
        pv_nodes = s->L.nodes - before;
    }
    double secs = (now_ms() - t0) / 1000.0;
    PyEval_RestoreThread(ts);
    self->sv_busy = 0;
    int interrupted = s->L.interrupted;
    u64 nodes = s->L.nodes;
    pos_free(&s->p);
    free(s);
    if (interrupted)
        return NULL;
    int dist = !exact ? -1 : value ? MATE - (value > 0 ? value : -value) : 0;
    int sign = value > 0 ? 1 : value < 0 ? -1 : 0;
    PyObject *pvl = moves_to_list(pv, npv);
    if (!pvl)
        return NULL;
    return Py_BuildValue("{s:i,s:i,s:i,s:N,s:K,s:K,s:d,s:i,s:O}", "result", sign, "distance",
                         dist, "best_move", bm, "pv", pvl, "nodes",
                         (unsigned long long)(nodes - pv_nodes), "pv_nodes",
                         (unsigned long long)pv_nodes, "seconds", secs, "depth", dd, "stopped",
                         stopped ? Py_True : Py_False);
}

/* Report a finished iteration to on_iteration(depth, score, nodes, seconds,
 * seldepth, pv): 1 to stop (the callback answered a true value), 0 to go on,
 * -1 when it raised (the exception is set).  Called with the GIL. */
static int se_report(PyObject *cb, int d, int v, u64 nodes, double secs, int sel,
                     const uint16_t *pv, int npv)
{
    PyObject *pvl = moves_to_list(pv, npv);
    if (!pvl)
        return -1;
    PyObject *r = PyObject_CallFunction(cb, "iiKdiN", d, v, (unsigned long long)nodes, secs,
                                        sel, pvl);
    if (!r)
        return -1;
    int stop = PyObject_IsTrue(r);
    Py_DECREF(r);
    return stop;
}

static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "depth", "time_ms", "node_limit", "weights", "seed",
                             "tt_log2", "keep_tt", "on_iteration", NULL};
    PyObject *pobj, *wobj = Py_None, *dobj = NULL, *tobj = NULL, *nobj = NULL, *sobj = NULL,
                    *ttobj = NULL, *kobj = NULL, *cb = Py_None;
    int tt_log2 = 20, keep_tt = 0;
    double time_ms = 0;
    u64 depth = 0, node_limit = 0, seed = 0;
    int w[NWEIGHTS];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOOOOOOO", kwlist, &PositionType, &pobj,
                                     &dobj, &tobj, &nobj, &wobj, &sobj, &ttobj, &kobj, &cb))
        return NULL;
    if ((dobj && get_int(dobj, "depth", 0, MAX_DEPTH,
                         "an integer in 0.." XSTR(MAX_DEPTH) " (0: no limit)", &depth) < 0) ||
        (tobj && get_time_ms(tobj, &time_ms) < 0) ||
        (nobj && get_int(nobj, "node_limit", 0, NODE_LIMIT_MAX, NODE_LIMIT_RANGE,
                         &node_limit) < 0) ||
        get_weights(wobj, w) < 0 ||
        (sobj && get_int(sobj, "seed", 0, SEED_MAX, "an integer in 0..2**64-1", &seed) < 0) ||
        (ttobj && get_tt_log2(ttobj, 0, &tt_log2) < 0) ||
        (kobj && get_bool(kobj, "keep_tt", &keep_tt) < 0))
        return NULL;
    if (cb != Py_None && !PyCallable_Check(cb)) {
        type_error("on_iteration", "a callable or None", cb);
        return NULL;
    }
    if (self->se_busy) {
        if (self->se_owner == PyThread_get_thread_ident())
            PyErr_SetString(PyExc_RuntimeError, "search: a search is running (called from its"
                                                " on_iteration callback)");
        else
            PyErr_SetString(PyExc_RuntimeError,
                            "search: this Searcher is searching in another thread");
        return NULL;
    }
    int max_depth = (int)depth;
    Pos *src = &((PositionObject *)pobj)->pos;
    if (src->owinner >= 0) {
        PyErr_SetString(PyExc_ValueError, "the round is over");
        return NULL;
    }
    if (max_depth <= 0 && time_ms <= 0 && !node_limit) {
        PyErr_SetString(PyExc_ValueError, "give a depth, a time or a node limit");
        return NULL;
    }
    if (max_depth == 0)
        max_depth = MAX_DEPTH;
    if (searcher_se_table(self, tt_log2, keep_tt) < 0)
        return NULL;
    Search *S = (Search *)calloc(1, sizeof(Search));
    if (!S)
        return PyErr_NoMemory();
    memcpy(S->w, w, sizeof S->w);
    if (pos_clone_state(&S->p, src, MAXPLY + 8) < 0) {
        free(S);
        return PyErr_NoMemory();
    }
    S->tt = self->se;
    S->mask = self->se_mask;
    S->gen = self->gen;
    S->L.node_limit = node_limit;
    S->seed = seed;
    double t0 = now_ms();
    S->L.deadline = time_ms > 0 ? t0 + time_ms : 0;
    int done_depth = 0, done_score = 0, done_len = 0, done_sel = 0;
    uint16_t done_pv[MAXPLY];
    /* the finished iterations: (depth, score, nodes, seconds) */
    int nit = 0;
    int it_score[MAX_DEPTH + 1];
    u64 it_nodes[MAX_DEPTH + 1];
    double it_secs[MAX_DEPTH + 1];
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
    int err = 0;
    self->se_busy = 1;
    self->se_owner = PyThread_get_thread_ident();
    PyThreadState *ts = PyEval_SaveThread();
    S->L.ts = signal_slot(&ts);
    for (int d = 1; d <= max_depth; d++) {
        int v;
        S->seldepth = 0;
        /* the first depth always finishes (a move to answer); stop() ends
         * the deeper ones */
        S->L.flag = d == 1 ? NULL : &self->stop;
        if (d > 1 && atomic_load_explicit(&self->stop, memory_order_relaxed))
            break;
        v = se_search(S, d, -S_INF, S_INF, 0, 1);
        if (S->L.interrupted || (S->L.stop && d > 1))
            break;
        done_depth = d;
        done_score = v;
        done_len = S->pvlen[0];
        done_sel = S->seldepth;
        memcpy(done_pv, S->pv[0], sizeof(uint16_t) * (size_t)done_len);
        it_score[nit] = v;
        it_nodes[nit] = S->L.nodes;
        it_secs[nit] = (now_ms() - t0) / 1000.0;
        nit++;
        if (cb != Py_None) {
            PyEval_RestoreThread(ts);
            int r = se_report(cb, d, v, S->L.nodes, (now_ms() - t0) / 1000.0, done_sel,
                              done_pv, done_len);
            ts = PyEval_SaveThread();
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
         * a more valuable round (match points) might lie beyond it. */
        if (v > WIN_BASE || v < -WIN_BASE) {
            int over = (v > 0 ? v : -v) - WIN_BASE;
            int tier = (over + 255) / 256;
            int dist = 256 * tier - over;
            if (dist <= d && tier == 15)
                break;
        }
    }
    double secs = (now_ms() - t0) / 1000.0;
    PyEval_RestoreThread(ts);
    self->se_busy = 0;
    u64 nodes = S->L.nodes;
    if (S->L.interrupted)
        err = 1;
    pos_free(&S->p);
    free(S);
    if (err)
        return NULL;
    PyObject *iters = PyList_New(nit);
    if (!iters)
        return NULL;
    for (int i = 0; i < nit; i++) {
        PyObject *it = Py_BuildValue("(iiKd)", i + 1, it_score[i],
                                     (unsigned long long)it_nodes[i], it_secs[i]);
        if (!it) {
            Py_DECREF(iters);
            return NULL;
        }
        PyList_SET_ITEM(iters, i, it);
    }
    PyObject *pvl = moves_to_list(done_pv, done_len);
    if (!pvl) {
        Py_DECREF(iters);
        return NULL;
    }
    return Py_BuildValue("{s:i,s:i,s:N,s:K,s:d,s:i,s:N}", "depth", done_depth, "score",
                         done_score, "pv", pvl, "nodes", (unsigned long long)nodes, "seconds",
                         secs, "seldepth", done_sel, "iterations", iters);
}

static PyObject *Searcher_stop(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    atomic_store(&self->stop, 1);
    Py_RETURN_NONE;
}

static PyObject *Searcher_resume(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    atomic_store(&self->stop, 0);
    Py_RETURN_NONE;
}

static PyObject *Searcher_get_stopped(SearcherObject *self, void *closure)
{
    return PyBool_FromLong(atomic_load(&self->stop));
}

static PyObject *Searcher_get_generation(SearcherObject *self, void *closure)
{
    return PyLong_FromLong(self->gen);
}

static PyObject *Searcher_clear_tt(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->se_busy || self->sv_busy) {
        PyErr_SetString(PyExc_RuntimeError, "clear_tt: the Searcher is running");
        return NULL;
    }
    if (self->sv)
        sv_tt_reset(self->sv, self->sv_mask);
    if (self->se)
        memset(self->se, 0, sizeof(SeEntry) * (self->se_mask + 1));
    Py_RETURN_NONE;
}

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":Searcher", kwlist))
        return NULL;
    SearcherObject *self = (SearcherObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->se = NULL;
    self->sv = NULL;
    self->gen = 0;
    self->se_busy = self->sv_busy = 0;
    atomic_init(&self->stop, 0);
    return (PyObject *)self;
}

static void Searcher_dealloc(SearcherObject *self)
{
    free(self->se);
    free(self->sv);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The Searcher of a module function: the default one, or a fresh one when
 * the default is busy in another thread (new reference). */
static SearcherObject *module_searcher(int solver)
{
    SearcherObject *d = default_searcher;
    int busy = solver ? d->sv_busy : d->se_busy;
    unsigned long owner = solver ? d->sv_owner : d->se_owner;
    if (!busy || owner == PyThread_get_thread_ident()) {
        Py_INCREF(d);
        return d;
    }
    return (SearcherObject *)PyObject_CallNoArgs((PyObject *)&SearcherType);
}

static PyObject *mod_solve(PyObject *module, PyObject *args, PyObject *kwds)
{
    SearcherObject *s = module_searcher(1);
    if (!s)
        return NULL;
    PyObject *r = Searcher_solve(s, args, kwds);
    Py_DECREF(s);
    return r;
}

static PyObject *mod_search(PyObject *module, PyObject *args, PyObject *kwds)
{
    SearcherObject *s = module_searcher(0);
    if (!s)
        return NULL;
    PyObject *r = Searcher_search(s, args, kwds);
    Py_DECREF(s);
    return r;
}

/* The default Searcher's tables, those not in use in another thread (a
 * search or solve of this thread's callback cannot be running here). */
static PyObject *mod_clear_tt(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    SearcherObject *d = default_searcher;
    if (d->sv && !d->sv_busy)
        sv_tt_reset(d->sv, d->sv_mask);
    if (d->se && !d->se_busy)
        memset(d->se, 0, sizeof(SeEntry) * (d->se_mask + 1));
    Py_RETURN_NONE;
}

static PyObject *mod_square_colours(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    PyObject *t = PyTuple_New(64);
    if (!t)
        return NULL;
    for (int i = 0; i < 64; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(SQ_COLOUR[i]));
    return t;
}

static PyObject *mod_evaluate(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "weights", NULL};
    PyObject *pobj, *wobj = Py_None;
    int w[NWEIGHTS];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|O", kwlist, &PositionType, &pobj, &wobj) ||
        get_weights(wobj, w) < 0)
        return NULL;
    Pos *src = &((PositionObject *)pobj)->pos;
    if (src->owinner >= 0) {
        PyErr_SetString(PyExc_ValueError, "the round is over");
        return NULL;
    }
    Search *S = (Search *)calloc(1, sizeof(Search));
    if (!S)
        return PyErr_NoMemory();
    memcpy(S->w, w, sizeof S->w);
    memcpy(&S->p, src, sizeof(Pos));
    int v = evaluate(S);
    free(S);
    return PyLong_FromLong(v);
}

static PyMethodDef Position_methods[] = {
    {"moves", (PyCFunction)Position_moves, METH_NOARGS,
     "moves() -> list[int]: legal moves as from | to << 6, in core.py's order"},
    {"push", (PyCFunction)Position_push, METH_O,
     "push(code): make a legal move; ValueError (and no change) if the int is not one"},
    {"pop", (PyCFunction)Position_pop, METH_NOARGS,
     "pop() -> int: take back the last move; IndexError if none was pushed"},
    {"kpn", (PyCFunction)(void (*)(void))Position_kpn, METH_VARARGS | METH_KEYWORDS,
     "kpn(match=True) -> str: match (a bool) writes the three match fields"},
    {"passes", (PyCFunction)Position_passes, METH_NOARGS,
     "passes() -> tuple of (side, colour, square) applied after the last move"},
    {"perft", (PyCFunction)Position_perft, METH_O,
     "perft(depth) -> int: move sequences of depth moves, depth in 0..MAX_DEPTH"},
    {"copy", (PyCFunction)Position_copy, METH_NOARGS, "copy() -> Position"},
    {"check", (PyCFunction)Position_check_hash, METH_NOARGS,
     "check() -> bool: the incremental state agrees with a recomputation"},
    {"can_win_now", (PyCFunction)Position_can_win_now, METH_NOARGS,
     "can_win_now() -> bool: the side to move can reach the goal row at once"},
    {NULL}};

static PyGetSetDef Position_getset[] = {
    {"outcome", (getter)Position_get_outcome, NULL,
     "None, or (winner, colour, reason, rings) as core.Outcome", NULL},
    {"turn", (getter)Position_get_turn, NULL, "side to move", NULL},
    {"must_move", (getter)Position_get_must, NULL, "colour that must move or -1", NULL},
    {"hash", (getter)Position_get_hash, NULL, "Zobrist key", NULL},
    {"ply", (getter)Position_get_ply, NULL, "moves pushed", NULL},
    {"target", (getter)Position_get_target, NULL, "points needed to win", NULL},
    {"points", (getter)Position_get_points, NULL, "(Black's points, Gold's points)", NULL},
    {"board", (getter)Position_get_board, NULL, "tower id per square or -1", NULL},
    {"rings", (getter)Position_get_rings, NULL, "rings per tower id", NULL},
    {NULL}};

static PyTypeObject PositionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kamisado.engine._ckamisado.Position",
    .tp_doc = PyDoc_STR("Position(kpn=START): a compiled Kamisado position, from KPN text "
                        "(ASCII) or an object with a kpn() method; ValueError if malformed"),
    .tp_basicsize = sizeof(PositionObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Position_new,
    .tp_init = (initproc)Position_init,
    .tp_dealloc = (destructor)Position_dealloc,
    .tp_methods = Position_methods,
    .tp_getset = Position_getset,
    .tp_repr = (reprfunc)Position_repr,
};

static PyMethodDef Searcher_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_VARARGS | METH_KEYWORDS,
     "search(pos, depth=0, time_ms=0, node_limit=0, weights=None, seed=0, tt_log2=20,"
     " keep_tt=False, on_iteration=None) -> dict: as the module's search(), with this\n"
     "Searcher's table, without the GIL"},
    {"solve", (PyCFunction)(void (*)(void))Searcher_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(pos, node_limit=0, time_ms=0, max_depth=0, pv=True, tt_log2=0) -> dict: as the\n"
     "module's solve(), with this Searcher's table, without the GIL"},
    {"stop", (PyCFunction)Searcher_stop, METH_NOARGS,
     "stop(): from any thread, end the running search or solve as at a limit (a search\n"
     "answers its last finished depth); later ones stop at once until resume()"},
    {"resume", (PyCFunction)Searcher_resume, METH_NOARGS, "resume(): clear the stop flag"},
    {"clear_tt", (PyCFunction)Searcher_clear_tt, METH_NOARGS,
     "clear_tt(): empty this Searcher's tables (RuntimeError while it runs)"},
    {NULL}};

static PyGetSetDef Searcher_getset[] = {
    {"stopped", (getter)Searcher_get_stopped, NULL, "whether stop() was called (and no resume())",
     NULL},
    {"generation", (getter)Searcher_get_generation, NULL,
     "the generation of the search table (a new one per search that does not keep it)", NULL},
    {NULL}};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kamisado.engine._ckamisado.Searcher",
    .tp_doc = PyDoc_STR("Searcher(): a search and a solver with tables of their own; they run "
                        "without the GIL, and stop() ends them from another thread"),
    .tp_basicsize = sizeof(SearcherObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Searcher_new,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
    .tp_getset = Searcher_getset,
};

static PyMethodDef module_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))mod_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(pos, node_limit=0, time_ms=0, max_depth=0, pv=True, tt_log2=0) -> dict\n\n"
     "node_limit in 0..NODE_LIMIT_MAX, time_ms finite >= 0, max_depth in\n"
     "0..SOLVE_MAX_DEPTH (0: no limit of that kind); tt_log2 0 (keep the table,\n"
     "2**22 entries at first) or TT_LOG2_MIN..TT_LOG2_MAX.  TypeError for a wrong\n"
     "type, ValueError for a value out of range."},
    {"search", (PyCFunction)(void (*)(void))mod_search, METH_VARARGS | METH_KEYWORDS,
     "search(pos, depth=0, time_ms=0, node_limit=0, weights=None, seed=0, tt_log2=20,"
     " keep_tt=False, on_iteration=None) -> dict\n\n"
     "depth in 0..MAX_DEPTH, time_ms finite >= 0, node_limit in 0..NODE_LIMIT_MAX\n"
     "(0: no limit of that kind, but one is needed); weights None or NWEIGHTS ints\n"
     "in -WEIGHT_MAX..WEIGHT_MAX; seed in 0..SEED_MAX; tt_log2 in\n"
     "TT_LOG2_MIN..TT_LOG2_MAX.  TypeError for a wrong type, ValueError for a\n"
     "value out of range.  on_iteration (None or a callable) is called after each\n"
     "finished iteration with (depth, score, nodes, seconds, seldepth, pv): a true\n"
     "answer ends the search there, an exception ends it and propagates; a\n"
     "search started from the callback raises RuntimeError.  Runs without the GIL,\n"
     "with a default Searcher (a fresh one while that one searches in another thread)."},
    {"evaluate", (PyCFunction)(void (*)(void))mod_evaluate, METH_VARARGS | METH_KEYWORDS,
     "evaluate(pos, weights=None) -> int: the static evaluation (side to move);\n"
     "weights as for search()"},
    {"clear_tt", (PyCFunction)mod_clear_tt, METH_NOARGS,
     "clear the default Searcher's transposition tables (those not in use in another thread)"},
    {"square_colours", (PyCFunction)mod_square_colours, METH_NOARGS,
     "square_colours() -> tuple of 64 colours"},
    {NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_ckamisado",
                                       "Compiled Kamisado core, solver and search.", -1,
                                       module_methods};

PyMODINIT_FUNC PyInit__ckamisado(void)
{
    init_tables();
    if (PyType_Ready(&PositionType) < 0 || PyType_Ready(&SearcherType) < 0)
        return NULL;
    main_thread_ident = PyThread_get_thread_ident();
    PyObject *threading = PyImport_ImportModule("threading");
    if (threading) {
        PyObject *mt = PyObject_CallMethod(threading, "main_thread", NULL);
        PyObject *ident = mt ? PyObject_GetAttrString(mt, "ident") : NULL;
        if (ident && PyLong_Check(ident))
            main_thread_ident = PyLong_AsUnsignedLong(ident);
        Py_XDECREF(ident);
        Py_XDECREF(mt);
        Py_DECREF(threading);
    }
    PyErr_Clear();
    if (!default_searcher) {
        default_searcher = (SearcherObject *)PyObject_CallNoArgs((PyObject *)&SearcherType);
        if (!default_searcher)
            return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    Py_INCREF(&PositionType);
    if (PyModule_AddObject(m, "Position", (PyObject *)&PositionType) < 0) {
        Py_DECREF(&PositionType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MATE", MATE);
    PyModule_AddIntConstant(m, "WIN_BASE", WIN_BASE);
    PyModule_AddIntConstant(m, "WIN_MIN", WIN_MIN);
    PyModule_AddIntConstant(m, "EVAL_MAX", EVAL_MAX);
    PyModule_AddIntConstant(m, "NWEIGHTS", NWEIGHTS);
    PyModule_AddIntConstant(m, "MAX_DEPTH", MAX_DEPTH);
    PyModule_AddIntConstant(m, "SOLVE_MAX_DEPTH", SOLVE_MAX_DEPTH);
    PyModule_AddIntConstant(m, "TT_LOG2_MIN", TT_LOG2_MIN);
    PyModule_AddIntConstant(m, "TT_LOG2_MAX", TT_LOG2_MAX);
    PyModule_AddIntConstant(m, "WEIGHT_MAX", WEIGHT_MAX);
    PyModule_AddObject(m, "NODE_LIMIT_MAX", PyLong_FromUnsignedLongLong(NODE_LIMIT_MAX));
    PyModule_AddObject(m, "SEED_MAX", PyLong_FromUnsignedLongLong(SEED_MAX));
    PyObject *dw = PyTuple_New(NWEIGHTS);
    for (int i = 0; i < NWEIGHTS; i++)
        PyTuple_SET_ITEM(dw, i, PyLong_FromLong(DEFAULT_WEIGHTS[i]));
    PyModule_AddObject(m, "DEFAULT_WEIGHTS", dw);
    return m;
}
