/*
 * wasm_api.c: the exports of the WebAssembly build of the core (the page's
 * engine, kamisado/web/static/js/engine-worker.js).  Built only by
 * tools/build_wasm.py, never into the Python extension.
 *
 * One position and one Engine live in the module.  Text goes both ways
 * through one buffer (ks_buf): the host writes a KPN there and calls
 * ks_load; the answers of ks_search and ks_solve are written there as JSON
 * (their length returned).  Moves are codes ``from | to << 6`` as
 * everywhere in the core.  A search reports each finished depth to the
 * host's import kamisado.report(ptr, len) (JSON), so the page can show a
 * search as it deepens.
 *
 * Nothing here is thread-safe: a host runs one call at a time (a Web
 * Worker); to stop a running call, it ends the worker (engine.js).
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kamisado.h"

#define EXPORT(name) __attribute__((export_name(name), visibility("default")))

__attribute__((import_module("kamisado"), import_name("report"))) extern void
host_report(const char *json, int len);

/* The text buffer: KPNs in, JSON out (a MultiPV search of every move of a
 * position with its lines fits). */
#define BUF_SIZE (1 << 20)
static char buf[BUF_SIZE];
static int blen;

static Pos pos;
static Engine eng;
static int ready;
static uint16_t moves[MAXMOVES];
static int weights[NWEIGHTS];
static RootLines lines;

/* Append to buf (silently cut at its end: it never is with MAXPLY-long lines). */
static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    if (blen >= BUF_SIZE - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + blen, (size_t)(BUF_SIZE - blen), fmt, ap);
    va_end(ap);
    if (n > 0)
        blen = blen + n < BUF_SIZE - 1 ? blen + n : BUF_SIZE - 1;
}

static void put_codes(const uint16_t *mv, int n)
{
    put("[");
    for (int i = 0; i < n; i++)
        put(i ? ",%d" : "%d", mv[i]);
    put("]");
}

/* Set up the tables and the Engine (once); 0. */
EXPORT("ks_init") int ks_init(void)
{
    if (!ready) {
        init_tables();
        engine_init(&eng);
        pos_init(&pos);
        memcpy(weights, DEFAULT_WEIGHTS, sizeof weights);
        ready = 1;
    }
    return 0;
}

/* The text buffer and its size. */
EXPORT("ks_buf") char *ks_buf(void) { return buf; }
EXPORT("ks_buf_size") int ks_buf_size(void) { return BUF_SIZE; }
/* The legal moves written by ks_moves. */
EXPORT("ks_moves_ptr") uint16_t *ks_moves_ptr(void) { return moves; }
/* The evaluation weights of the next search (NWEIGHTS ints, reset by ks_load). */
EXPORT("ks_weights") int *ks_weights(void) { return weights; }
EXPORT("ks_nweights") int ks_nweights(void) { return NWEIGHTS; }
/* The evaluation's default weights (NWEIGHTS ints, read only). */
EXPORT("ks_default_weights") const int *ks_default_weights(void) { return DEFAULT_WEIGHTS; }

/* Load the KPN in buf (NUL-terminated): 0, or -1 with the message in buf. */
EXPORT("ks_load") int ks_load(void)
{
    char err[KPN_ERR_SIZE];
    char kpn[KPN_MAX + 2];
    const char *end = memchr(buf, 0, KPN_MAX + 1);
    if (!end) {
        snprintf(buf, BUF_SIZE, "a KPN has at most %d characters", KPN_MAX);
        return -1;
    }
    memcpy(kpn, buf, (size_t)(end - buf) + 1);
    memcpy(weights, DEFAULT_WEIGHTS, sizeof weights);
    if (pos_load(&pos, kpn, err) < 0) {
        pos_init(&pos);
        snprintf(buf, BUF_SIZE, "%s", err);
        return -1;
    }
    return ensure_stack(&pos) < 0 ? -1 : 0;
}

/* The KPN of the position into buf (with the match fields when ``match``): its length. */
EXPORT("ks_kpn") int ks_kpn(int match)
{
    return pos_kpn(&pos, buf, match);
}

/* The legal moves into ks_moves_ptr(): their number (0 when the round is over). */
EXPORT("ks_moves") int ks_moves(void) { return gen_moves(&pos, moves); }

/* Play a move: 0, or -1 when it is not legal (the position is unchanged). */
EXPORT("ks_play") int ks_play(int code)
{
    if (code < 0 || code > 4095 || !pos_is_legal(&pos, code) || ensure_stack(&pos) < 0)
        return -1;
    make_move(&pos, code);
    return 0;
}

/* Take back the last move played: its code, or -1 when there is none. */
EXPORT("ks_unplay") int ks_unplay(void) { return pos.ply ? unmake_move(&pos) : -1; }

/* The side to move, the colour that must move (-1: any). */
EXPORT("ks_turn") int ks_turn(void) { return pos.turn; }
EXPORT("ks_must") int ks_must(void) { return pos.must; }

/* The outcome: -1 while the round is on, else winner | colour << 2 |
 * reason << 5 | rings << 6 (reason 0 goal, 1 deadlock). */
EXPORT("ks_outcome") int ks_outcome(void)
{
    if (pos.owinner < 0)
        return -1;
    return pos.owinner | pos.ocolour << 2 | pos.oreason << 5 | pos.orings << 6;
}

/* Perft of the position (counts below 2**53 are exact in a double); -1 out of memory. */
EXPORT("ks_perft") double ks_perft(int depth)
{
    if (depth < 0 || depth > MAX_DEPTH)
        return -1;
    Pos tmp;
    if (pos_clone_state(&tmp, &pos, depth + 8) < 0)
        return -1;
    u64 r = perft(&tmp, depth);
    pos_free(&tmp);
    return (double)r;
}

static void put_lines(const RootLines *L)
{
    put("[");
    for (int i = 0; i < L->n; i++) {
        put(i ? ",[%d," : "[%d,", L->score[i]);
        put_codes(L->pv[i], L->len[i]);
        put("]");
    }
    put("]");
}

static int report(void *ctx, int depth, int score, u64 nodes, double seconds, int seldepth,
                  const uint16_t *pv, int npv, const RootLines *L)
{
    (void)ctx;
    blen = 0;
    put("{\"depth\":%d,\"score\":%d,\"nodes\":%llu,\"seconds\":%.6f,\"seldepth\":%d,\"pv\":",
        depth, score, (unsigned long long)nodes, seconds, seldepth);
    put_codes(pv, npv);
    if (L) {
        put(",\"lines\":");
        put_lines(L);
    }
    put("}");
    host_report(buf, blen);
    return 0;
}

/*
 * Search the position (as kamisado.engine.search with a fresh generation
 * of a table of 2**tt_log2 entries): depth (0: none), time in ms (0: none),
 * nodes (0: none), the seed in two halves, multipv (0: a plain search),
 * ``progress`` to report each depth.  The answer as JSON in buf (its
 * length), or a negative KS_ code.
 */
EXPORT("ks_search")
int ks_search(int depth, double time_ms, double nodes, unsigned seed_lo, unsigned seed_hi,
              int multipv, int tt_log2, int progress)
{
    if (pos.owinner >= 0)
        return KS_OVER;
    if (engine_se_table(&eng, tt_log2, 0) < 0)
        return KS_NOMEM;
    SearchParams prm;
    memset(&prm, 0, sizeof prm);
    prm.depth = depth;
    prm.time_ms = time_ms;
    prm.node_limit = (u64)nodes;
    memcpy(prm.weights, weights, sizeof prm.weights);
    prm.seed = (u64)seed_lo | (u64)seed_hi << 32;
    prm.on_iteration = progress ? report : NULL;
    prm.multipv = multipv;
    lines.n = 0;
    prm.lines = multipv ? &lines : NULL;
    SearchResult res;
    int rc = search_run(&eng, &pos, &prm, &res);
    if (rc != KS_OK)
        return rc;
    blen = 0;
    put("{\"depth\":%d,\"score\":%d,\"nodes\":%llu,\"seconds\":%.6f,\"seldepth\":%d,\"pv\":",
        res.depth, res.score, (unsigned long long)res.nodes, res.seconds, res.seldepth);
    put_codes(res.pv, res.npv);
    put(",\"iterations\":[");
    for (int i = 0; i < res.niter; i++)
        put(i ? ",[%d,%d,%llu]" : "[%d,%d,%llu]", i + 1, res.it_score[i],
            (unsigned long long)res.it_nodes[i]);
    put("]");
    if (multipv) {
        put(",\"lines\":");
        put_lines(&lines);
    }
    put("}");
    return blen;
}

/*
 * Solve the position with the Engine's solver table (kept between calls,
 * 2**22 entries): ``exact`` the distance too, ``points`` the round's value
 * in points, ``want_pv`` the line; limits as ks_search.  JSON in buf (its
 * length), or a negative KS_ code.
 */
EXPORT("ks_solve")
int ks_solve(int exact, int points, int want_pv, double time_ms, double nodes, int max_depth)
{
    if (pos.owinner >= 0)
        return KS_OVER;
    if (engine_sv_table(&eng, 0) < 0)
        return KS_NOMEM;
    SolveParams prm;
    memset(&prm, 0, sizeof prm);
    prm.node_limit = (u64)nodes;
    prm.time_ms = time_ms;
    prm.max_depth = max_depth;
    prm.pv = want_pv;
    prm.exact = exact;
    prm.points = points;
    static SolveResult res;
    int rc = solve_run(&eng, &pos, &prm, &res);
    if (rc != KS_OK)
        return rc;
    blen = 0;
    put("{\"result\":%d,\"distance\":%d,\"best_move\":%d,\"depth\":%d,\"stopped\":%s,"
        "\"nodes\":%llu,\"pv_nodes\":%llu,\"seconds\":%.6f,\"points\":%d,\"points_lo\":%d,"
        "\"points_hi\":%d,\"pv\":",
        res.result, res.distance, res.best_move, res.depth, res.stopped ? "true" : "false",
        (unsigned long long)res.nodes, (unsigned long long)res.pv_nodes, res.seconds,
        res.points, res.points_lo, res.points_hi);
    put_codes(res.pv, res.npv);
    put("}");
    return blen;
}

/* Empty the search's and the solver's tables. */
EXPORT("ks_clear") void ks_clear(void)
{
    engine_clear_sv(&eng);
    engine_clear_se(&eng);
}
