/*
 * kamisado.h: the Kamisado engine core in plain C11 (no Python).
 *
 * The rules are those of kamisado/core.py, reproduced move for move: moves
 * as ints ``from | to << 6``, Sumo pushes, passes after a move (M6),
 * deadlock (M8) with the winner / ring colour rules of core.py, KPN in and
 * out, match fields.  The same core is built into the Python extension
 * kamisado._ckamisado (kamisado/_ckamisado.c, the binding) and can be built
 * alone for another host (docs/engine-core.md).
 *
 * Squares: ``square = rank * 8 + file``, rank 0 = Black's home row.
 * Towers: ``side * 8 + colour`` (Black 0..7, Gold 8..15).
 *
 * The files of the core:
 *   board.c   tables (square colours, rays, goal paths, Zobrist keys), the
 *             position: load KPN, write KPN, make, unmake, resolve, perft
 *   tables.c  the transposition tables and the Engine that owns them, the
 *             clock and the limits of a search or a solve
 *   solve.c   the solver: exact game values and who-wins proofs
 *   eval.c    the evaluation of the heuristic search
 *   search.c  the heuristic search: iterative deepening negamax with PVS
 *
 * This header holds the types, the constants, the hot helpers of move
 * generation and perft (static inline, so that every file inlines them as
 * one file did) and the functions of the files.  Call init_tables() once
 * first.  In a shared library, build with -fvisibility=hidden: the tables
 * and functions are then reached directly, as within one file.
 *
 * Nothing here takes a lock or talks to a host: a host (the Python binding)
 * gives a search or a solve its hooks (an interrupt check, an iteration
 * report) and a stop flag (Engine.stop) that another thread may set.
 */

#ifndef KAMISADO_H
#define KAMISADO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;

/* Prefetch of a table entry that is needed soon (a hint only). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)(addr))
#endif

/* ------------------------------------------------------------------------ */
/* Tables (board.c)                                                          */
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

/* Colour of every square, rank 1 first (kamisado.core.SQUARE_COLOUR). */
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

/* Filled by init_tables(). */
/* RAY[side][dir][sq][i]: squares along a ray, nearest first; dir 0 forward,
 * 1 the side's own left, 2 its own right (the order of core.py). */
extern uint8_t RAY[2][3][64][8];
extern uint8_t RAYLEN[2][3][64];
/* Goal path masks: WINMASK[side][sq][dir] is the set of squares from sq
 * (exclusive) to the goal row (inclusive) along dir, or the bit of sq itself
 * when the ray does not reach the goal row (sq is always occupied by the
 * tower, so ``occ & mask`` is then never 0). */
extern u64 WINMASK[2][64][3];
extern uint8_t STEPS[2][64]; /* ranks to the goal row */
/* Squares a tower of a side attacks the goal from: nothing precomputed. */

extern u64 Z_TOWER[16][64];
extern u64 Z_RINGS[16][4];
extern u64 Z_TURN;
extern u64 Z_MUST[9];

static inline u64 splitmix(u64 *s)
{
    u64 z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Fill the tables above: once, before anything else. */
void init_tables(void);

/* ------------------------------------------------------------------------ */
/* The position (board.c)                                                    */
/* ------------------------------------------------------------------------ */

typedef struct {
    uint16_t code;
    uint8_t k; /* length of the pushed run, 0 for a step */
    int8_t turn, must;
    int8_t owinner, ocolour, oreason, orings; /* outcome before the move */
    int8_t last_mover, last_colour;
    uint8_t npasses; /* passes applied after the move */
    uint32_t passes; /* index into the pass log */
    u64 hash;
} Undo;

typedef struct {
    int8_t board[64]; /* tower id or -1 */
    uint8_t sq[16];
    uint8_t rings[16];
    u64 occ;
    int8_t turn;
    int8_t must;    /* colour, or -1 when any tower may move */
    int8_t owinner; /* -1 while the round is in progress */
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

/* The legal moves of p into out (MAXMOVES entries): their number, 0 when
 * the round is over. */
int gen_moves(const Pos *p, uint16_t *out);

/* The move stack holds an entry for the next move (-1: out of memory). */
int ensure_stack(Pos *p);

/* Passes (M6) for blocked towers, with deadlock detection (M8).  Returns
 * the number of passes.  When ``log`` is set, they are written to the pass
 * log (or, when ``init`` is set, to the initial passes). */
int resolve(Pos *p, int log, int init);

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

/* Move sequences of ``depth`` moves from p (p is left as it was; its stack
 * holds depth more entries).  Here, not in board.c: as a static function of
 * its caller's file, gcc unrolls its recursion (10% faster). */
static inline u64 perft(Pos *p, int depth)
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

/* An empty position (no towers, no moves): what pos_load fills. */
void pos_init(Pos *p);

/* The longest KPN pos_load reads, and the room a KPN error message needs. */
#define KPN_MAX 511
#define KPN_ERR_SIZE 640
/* The room pos_kpn writes in (with the match fields and the NUL). */
#define KPN_BUF 256

/* Load a KPN (ASCII): 0, or -1 with the message in err (KPN_ERR_SIZE bytes)
 * and the position not to be used.  The move stack is emptied; its memory
 * is kept. */
int pos_load(Pos *p, const char *kpn, char *err);

/* Write the KPN of p into out (KPN_BUF bytes), the three match fields when
 * ``match`` is set; answers its length. */
int pos_kpn(const Pos *p, char *out, int match);

/* Copy the state of a position (not its stack) into a search position with
 * its own stack of ``cap`` entries (-1: out of memory). */
int pos_clone_state(Pos *dst, const Pos *src, int cap);

/* A copy with the moves and passes of src (-1: out of memory, dst is then
 * left for pos_free). */
int pos_copy(Pos *dst, const Pos *src);

/* Free the stacks of a position (it may be loaded again). */
void pos_free(Pos *p);

/* The Zobrist key of p, recomputed. */
u64 compute_hash(const Pos *p);

/* Whether the incremental state (squares, occupancy, key) agrees with a
 * recomputation. */
int pos_check(const Pos *p);

/* Whether ``code`` is a legal move of p. */
int pos_is_legal(const Pos *p, int code);

/* The passes (side, colour, square) applied after the last move, or after
 * loading when no move was made: their number, *out pointing at them. */
int pos_passes(const Pos *p, const uint8_t (**out)[3]);

/* ------------------------------------------------------------------------ */
/* Transposition tables, limits and the clock (tables.c)                     */
/* ------------------------------------------------------------------------ */

/* Exact game values (solve.c): a win in n moves is MATE - n. */
#define MATE 30000
/* The deepest horizon the solver tries (its stack holds SOLVE_MAX_DEPTH + 200
 * moves); solve(max_depth=) lies in 0..SOLVE_MAX_DEPTH. */
#define SOLVE_MAX_DEPTH 4000
/* Both transposition tables hold 2**log2 entries of 16 bytes, log2 in
 * TT_LOG2_MIN..TT_LOG2_MAX (16 KiB to 4 GiB); a bucket needs 4 entries. */
#define TT_LOG2_MIN 10
#define TT_LOG2_MAX 28
#define SV_TT_DEFAULT_LOG2 22

/* An entry of the solver's table: bounds on the exact value. */
typedef struct {
    u64 key;
    int16_t lo, hi;
    uint16_t move;
    uint16_t work; /* log2 of the nodes below, for replacement */
} SvEntry;

/* An entry of the proof-number search's table (solve.c, df_mid): the proof
 * and disproof numbers of a position (keyed as the solver's table, per
 * threshold game), PN_INF for a proof (dn) or a disproof (pn).  The top 5
 * bits of pnw hold log2 of the nodes below, for replacement. */
typedef struct {
    u64 key;
    uint32_t pnw; /* pn | work << 27 */
    uint32_t dn;
} DfEntry;

/* The proof-number table has 2**(sv log2 - DF_LOG2_LESS) entries. */
#define DF_LOG2_LESS 2

/* An entry of the search's table. */
typedef struct {
    u64 key;
    int16_t score;
    uint16_t move;
    int8_t depth;
    uint8_t flag; /* 1 lower, 2 upper, 3 exact */
    uint16_t gen; /* the search that wrote it: others read as empty */
} SeEntry;

/* A transposition table of 2**log2 entries of ``size`` bytes, zeroed; NULL
 * when out of memory. */
void *tt_alloc(int log2, size_t size);

/* An empty solver table: every entry the bounds -MATE..MATE. */
void sv_tt_reset(SvEntry *tt, size_t mask);

/*
 * The Engine: a search table and a solver table, as a chess engine's thread
 * has, and a stop flag.  Searches of different Engines may run side by side
 * in threads; one Engine runs one search and one solve at a time (the host
 * sees to it).  The stop flag is an atomic int: any thread may set it
 * (engine_set_stop), the search sees it within 1024 nodes and answers as at
 * a limit; it stays set (every later search and solve stops at once, after
 * a search's first depth) until it is cleared.
 *
 * The search table is not zeroed on each search: each search that does not
 * keep the table takes a new generation, and entries of other generations
 * read as empty (the whole table is zeroed once every 65535 generations).
 * The solver's table holds bounds on exact values, valid for ever: it is
 * kept between calls.
 */
typedef struct {
    SeEntry *se; /* the search's table, NULL until engine_se_table */
    size_t se_mask;
    int se_log2;
    uint16_t gen; /* the generation of the last search (0: none) */
    SvEntry *sv;  /* the solver's table, NULL until engine_sv_table */
    size_t sv_mask;
    int sv_log2;
    DfEntry *df; /* the proof-number search's table, made with sv */
    size_t df_mask;
    unsigned long allocs; /* tables allocated (and zeroed) so far: a set-up's count */
    atomic_int stop;
} Engine;

void engine_init(Engine *e);
void engine_free(Engine *e);
/* The solver table of 2**log2 entries (0: the table as it is, 2**22 entries
 * at first) and the proof-number table of 2**(log2 - DF_LOG2_LESS) (at
 * least 2**TT_LOG2_MIN); -1 when out of memory (the old tables are kept). */
int engine_sv_table(Engine *e, int log2);
/* The search table of 2**log2 entries for a new search: a new generation
 * unless ``keep`` (and the table is the same size); -1 when out of memory. */
int engine_se_table(Engine *e, int log2, int keep);
/* Empty the tables (those allocated). */
void engine_clear_sv(Engine *e);
void engine_clear_se(Engine *e);
void engine_set_stop(Engine *e, int stop);
int engine_stopped(Engine *e);

/* Milliseconds of a monotonic clock. */
double now_ms(void);

/* -- limits: one check for the solver and the search ------------------------
 *
 * A search runs on its own, without a host lock.  Every 1024 nodes it looks
 * at its node limit, at the stop flag of its Engine (an atomic int another
 * thread sets), and at its deadline; every 64 such checks it calls the
 * host's interrupt hook, if any (the Python binding runs the signal handlers
 * there: a non-zero answer, as after a Ctrl-C, sets ``interrupted`` and
 * stops the work).
 */
typedef int (*InterruptHook)(void *ctx);

typedef struct {
    u64 nodes;
    u64 node_limit;
    double deadline; /* ms, 0 none */
    int stop, interrupted;
    u64 next_check, checks;
    atomic_int *flag;        /* the Engine's stop flag, or NULL */
    InterruptHook interrupt; /* the host's check, or NULL */
    void *interrupt_ctx;
} Limits;

int limits_check(Limits *L);

/* Whether to stop: the limits are looked at every 1024 nodes. */
static inline int limits_hit(Limits *L)
{
    if (L->nodes >= L->next_check)
        return limits_check(L);
    return L->stop;
}

/* Shared by the solver's and the search's move ordering. */
/* Number of replies of the opponent's tower to move that do not let the
 * side ``us`` win at once (steps only, on the current occupancy).  The
 * position is after our move, with the opponent to move. */
static inline int safe_replies(const Pos *p, int us)
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

/* The move loop's selection step: bring the best-scored of mv[i..n) to i
 * (the first of equals), swapping its score along.  Moves are tried in the
 * order of their scores without sorting them all first: a cutoff after the
 * first few saves the rest of the sort. */
static inline void pick_next(uint16_t *mv, int *score, int i, int n)
{
    int bi = i;
    for (int j = i + 1; j < n; j++)
        if (score[j] > score[bi])
            bi = j;
    if (bi != i) {
        uint16_t tm = mv[i];
        mv[i] = mv[bi];
        mv[bi] = tm;
        int ts = score[i];
        score[i] = score[bi];
        score[bi] = ts;
    }
}

/* What the core's runs answer: KS_OK, out of memory, a host hook ended the
 * work (the interrupt, or an error in on_iteration), the Engine's table was
 * not made first, the round is over. */
#define KS_OK 0
#define KS_NOMEM (-1)
#define KS_HOST (-2)
#define KS_NOTABLE (-3)
#define KS_OVER (-4)

/* ------------------------------------------------------------------------ */
/* The solver (solve.c)                                                      */
/* ------------------------------------------------------------------------ */

/* The longest principal variation solve_run writes. */
#define SOLVE_PV_MAX 512

typedef struct {
    u64 node_limit; /* 0: none */
    double time_ms; /* 0: none */
    int max_depth;  /* 0..SOLVE_MAX_DEPTH, 0: none */
    int pv;         /* the line of a proven value (exact only) */
    int exact;      /* 1: the exact value, 0: who wins only */
    InterruptHook interrupt;
    void *interrupt_ctx;
    int points; /* 1: the round's value in points (who wins first; exact and pv ignored) */
} SolveParams;

typedef struct {
    int result;    /* 1 the side to move wins, -1 it loses, 0 unknown */
    int distance;  /* moves to the end (0 unknown, -1 when not exact) */
    int best_move; /* 0: none */
    int depth;     /* the horizon that decided it */
    int stopped;   /* a limit or the stop flag ended it */
    int npv;
    uint16_t pv[SOLVE_PV_MAX];
    u64 nodes;    /* of the solve */
    u64 pv_nodes; /* of the line */
    double seconds;
    int points;    /* with points: 1, 2, 4, 8 won, -1 .. -8 lost, 0 unknown */
    int points_lo; /* with points: bounds on the value in points, */
    int points_hi; /* narrowed as far as the solve got */
} SolveResult;

/* Solve a position in progress with the Engine's solver table (made first
 * by engine_sv_table) and its stop flag.  src is only read at the start (a
 * host copies the state of a shared position first).  KS_OK, KS_NOMEM,
 * KS_NOTABLE, KS_OVER or KS_HOST (the interrupt hook answered non-zero). */
int solve_run(Engine *e, const Pos *src, const SolveParams *prm, SolveResult *out);

/* ------------------------------------------------------------------------ */
/* The evaluation (eval.c) and the heuristic search (search.c)               */
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
    W_THREAT,   /* each of our towers with a free path to the goal row */
    W_SAFE,     /* each move of the tower to move that does not lose at once */
    W_NOSAFE,   /* penalty when the tower to move has no such move */
    W_MOBILITY, /* each move of each tower */
    W_ADVANCE,  /* each rank a tower has advanced */
    W_TEMPO,    /* bonus for the side to move */
    W_NOISE,    /* random noise amplitude (seeded) */
    NWEIGHTS
};

extern const int DEFAULT_WEIGHTS[NWEIGHTS];

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

/* The static evaluation of S->p (a round in progress), with S->w and
 * S->seed. */
int evaluate(Search *S);

/* The static evaluation of a position in progress with weights w: KS_OK
 * with *out, or KS_NOMEM. */
int pos_evaluate(const Pos *p, const int *w, int *out);

/* The lines of a MultiPV search (or one restricted to some root moves): the
 * best root moves of a finished depth, best first, each with its exact
 * score and its line (the root move first). */
typedef struct {
    int n;
    int score[MAXMOVES];
    int len[MAXMOVES];
    uint16_t pv[MAXMOVES][MAXPLY];
} RootLines;

/* Called after each finished iteration with (depth, score, nodes, seconds,
 * seldepth, pv, lines): lines is NULL in a plain search, else the depth's
 * lines (pv is the first's).  1 ends the search there, 0 goes on, -1 ends
 * it with an error (KS_HOST). */
typedef int (*IterationHook)(void *ctx, int depth, int score, u64 nodes, double seconds,
                             int seldepth, const uint16_t *pv, int npv,
                             const RootLines *lines);

typedef struct {
    int depth;      /* 0..MAX_DEPTH, 0: MAX_DEPTH (give a limit then) */
    double time_ms; /* 0: none */
    u64 node_limit; /* 0: none */
    int weights[NWEIGHTS];
    u64 seed; /* 0: no noise in the order of the root moves */
    InterruptHook interrupt;
    void *interrupt_ctx;
    IterationHook on_iteration; /* or NULL */
    void *iteration_ctx;
    /* MultiPV: 0 a plain search; k >= 1 one search whose root gives the k
     * best moves exact scores (alpha is the k-th best score so far), their
     * lines in *lines.  root_moves (nroot_moves codes, legal in the
     * position; 0: every move) restricts the root, as with multipv 1. */
    int multipv;
    const uint16_t *root_moves;
    int nroot_moves;
    RootLines *lines; /* the last finished depth's lines; needed when multipv or root_moves */
} SearchParams;

typedef struct {
    int depth; /* the last finished depth */
    int score;
    int seldepth;
    int npv;
    uint16_t pv[MAXPLY];
    u64 nodes;
    double seconds;
    /* the finished iterations: depth i + 1, score, nodes, seconds */
    int niter;
    int it_score[MAX_DEPTH + 1];
    u64 it_nodes[MAX_DEPTH + 1];
    double it_secs[MAX_DEPTH + 1];
    /* MultiPV: a depth cut short whose best searched move has an exact score
     * above the last finished depth's best (the true best of that depth is
     * at least it): that depth (0: none), score and line */
    int lead_depth;
    int lead_score;
    int lead_len;
    uint16_t lead_pv[MAXPLY];
} SearchResult;

/* Search a position in progress with the Engine's search table (made for
 * this search first by engine_se_table) and its stop flag.  src is only read
 * at the start.  KS_OK, KS_NOMEM, KS_NOTABLE, KS_OVER or KS_HOST (a hook ended it). */
int search_run(Engine *e, const Pos *src, const SearchParams *prm, SearchResult *out);

#endif /* KAMISADO_H */
