/*
 * driver.c: a small host of the engine core in plain C, for
 * tests/test_ccore.py (it builds the core's files with this file alone,
 * without Python).
 *
 *   driver perft KPN DEPTH [MOVE ...]   counts of depth 1..DEPTH, one a line,
 *                                       after the moves ("c1-c5")
 *   driver solve KPN EXACT              result distance best_move depth nodes
 *                                       pv_nodes, then the PV
 *   driver search KPN DEPTH             depth score nodes seldepth, then the PV
 *   driver kpn KPN                      the KPN written back, or the error
 *
 * Exits 2 on a KPN error (the message on stdout), 1 on a bad command line.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

static int load(Pos *p, const char *kpn)
{
    char err[KPN_ERR_SIZE];
    pos_init(p);
    if (pos_load(p, kpn, err) < 0) {
        printf("error: %s\n", err);
        return -1;
    }
    if (ensure_stack(p) < 0) {
        printf("error: out of memory\n");
        return -1;
    }
    return 0;
}

/* A move "c1-c5" as a code from | to << 6, or -1. */
static int parse_move(const char *s)
{
    if (strlen(s) != 5 || s[2] != '-')
        return -1;
    int sq[2];
    for (int i = 0; i < 2; i++) {
        int f = s[3 * i] - 'a', r = s[3 * i + 1] - '1';
        if (f < 0 || f > 7 || r < 0 || r > 7)
            return -1;
        sq[i] = r * 8 + f;
    }
    return sq[0] | sq[1] << 6;
}

static void print_pv(const uint16_t *pv, int n)
{
    for (int i = 0; i < n; i++)
        printf(i ? " %d" : "%d", pv[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 1;
    init_tables();
    Pos p;
    if (load(&p, argv[2]) < 0)
        return 2;
    int rc = 0;
    if (!strcmp(argv[1], "kpn")) {
        char buf[KPN_BUF];
        pos_kpn(&p, buf, 1);
        printf("%s\n", buf);
    } else if (!strcmp(argv[1], "perft") && argc >= 4) {
        for (int i = 4; i < argc; i++) {
            int code = parse_move(argv[i]);
            if (code < 0 || !pos_is_legal(&p, code) || ensure_stack(&p) < 0) {
                printf("error: illegal move %s\n", argv[i]);
                pos_free(&p);
                return 1;
            }
            make_move(&p, code);
        }
        int depth = atoi(argv[3]);
        Pos tmp;
        for (int d = 1; d <= depth; d++) {
            if (pos_clone_state(&tmp, &p, d + 8) < 0)
                return 1;
            printf("%llu\n", (unsigned long long)perft(&tmp, d));
            pos_free(&tmp);
        }
    } else if (!strcmp(argv[1], "solve") && argc >= 4) {
        Engine e;
        engine_init(&e);
        SolveParams prm = {0, 0, 0, 1, atoi(argv[3]), NULL, NULL, 0};
        SolveResult res;
        if (engine_sv_table(&e, 0) < 0 || solve_run(&e, &p, &prm, &res) != KS_OK) {
            rc = 1;
        } else {
            printf("%d %d %d %d %llu %llu\n", res.result, res.distance, res.best_move, res.depth,
                   (unsigned long long)res.nodes, (unsigned long long)res.pv_nodes);
            print_pv(res.pv, res.npv);
        }
        engine_free(&e);
    } else if (!strcmp(argv[1], "search") && argc >= 4) {
        Engine e;
        engine_init(&e);
        SearchParams prm;
        memset(&prm, 0, sizeof prm);
        prm.depth = atoi(argv[3]);
        memcpy(prm.weights, DEFAULT_WEIGHTS, sizeof prm.weights);
        SearchResult *res = (SearchResult *)malloc(sizeof(SearchResult));
        if (!res || engine_se_table(&e, 20, 0) < 0 || search_run(&e, &p, &prm, res) != KS_OK) {
            rc = 1;
        } else {
            printf("%d %d %llu %d\n", res->depth, res->score, (unsigned long long)res->nodes,
                   res->seldepth);
            print_pv(res->pv, res->npv);
        }
        free(res);
        engine_free(&e);
    } else {
        rc = 1;
    }
    pos_free(&p);
    return rc;
}
