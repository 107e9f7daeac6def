/*
 * tables.c: the transposition tables, the Engine that owns them, the clock
 * and the limits of a search or a solve.
 */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define _DEFAULT_SOURCE         /* madvise(MADV_HUGEPAGE) */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "kamisado.h"

/* -- the tables: one allocator for the solver's and the search's ----------- */

/* A table of 2**log2 entries of size bytes, zeroed; freed by free().  On
 * Linux a table of 2 MiB or more is aligned to 2 MiB and asks for huge
 * pages (transparent huge pages, madvise): a probe anywhere in a table of
 * tens of MiB then costs no TLB miss, which made the solver 15-25% faster. */
void *tt_alloc(int log2, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t bytes = ((size_t)1 << log2) * size;
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        void *t = NULL;
        if (posix_memalign(&t, huge, bytes) != 0)
            return NULL;
        madvise(t, bytes, MADV_HUGEPAGE);
        memset(t, 0, bytes);
        return t;
    }
#endif
    return calloc((size_t)1 << log2, size);
}

void sv_tt_reset(SvEntry *tt, size_t mask)
{
    for (size_t i = 0; i <= mask; i++) {
        tt[i].key = 0;
        tt[i].lo = -MATE;
        tt[i].hi = MATE;
        tt[i].move = 0;
        tt[i].work = 0;
    }
}

/* -- the Engine ------------------------------------------------------------- */

void engine_init(Engine *e)
{
    e->se = NULL;
    e->se_mask = 0;
    e->se_log2 = 0;
    e->gen = 0;
    e->sv = NULL;
    e->sv_mask = 0;
    e->sv_log2 = 0;
    e->df = NULL;
    e->df_mask = 0;
    e->allocs = 0;
    atomic_init(&e->stop, 0);
}

void engine_free(Engine *e)
{
    free(e->se);
    free(e->sv);
    free(e->df);
    e->se = NULL;
    e->sv = NULL;
    e->df = NULL;
}

int engine_sv_table(Engine *e, int log2)
{
    if (e->sv && (log2 == 0 || log2 == e->sv_log2))
        return 0;
    if (log2 == 0)
        log2 = SV_TT_DEFAULT_LOG2;
    SvEntry *t = (SvEntry *)tt_alloc(log2, sizeof(SvEntry));
    if (!t)
        return -1;
    int dlog2 = log2 - DF_LOG2_LESS < TT_LOG2_MIN ? TT_LOG2_MIN : log2 - DF_LOG2_LESS;
    DfEntry *d = (DfEntry *)tt_alloc(dlog2, sizeof(DfEntry));
    if (!d) {
        free(t);
        return -1;
    }
    free(e->sv);
    free(e->df);
    e->sv = t;
    e->df = d;
    e->df_mask = ((size_t)1 << dlog2) - 1;
    e->sv_mask = ((size_t)1 << log2) - 1;
    e->sv_log2 = log2;
    sv_tt_reset(t, e->sv_mask);
    e->allocs += 2;
    return 0;
}

int engine_se_table(Engine *e, int log2, int keep)
{
    if (!e->se || log2 != e->se_log2) {
        SeEntry *t = (SeEntry *)tt_alloc(log2, sizeof(SeEntry));
        if (!t)
            return -1;
        free(e->se);
        e->se = t;
        e->se_mask = ((size_t)1 << log2) - 1;
        e->se_log2 = log2;
        e->gen = 0;
        keep = 0;
        e->allocs++;
    }
    if (!keep || !e->gen) {
        if (++e->gen == 0) {
            memset(e->se, 0, sizeof(SeEntry) * (e->se_mask + 1));
            e->gen = 1;
        }
    }
    return 0;
}

void engine_clear_sv(Engine *e)
{
    if (e->sv)
        sv_tt_reset(e->sv, e->sv_mask);
    if (e->df)
        memset(e->df, 0, sizeof(DfEntry) * (e->df_mask + 1));
}

void engine_clear_se(Engine *e)
{
    if (e->se)
        memset(e->se, 0, sizeof(SeEntry) * (e->se_mask + 1));
}

void engine_set_stop(Engine *e, int stop)
{
    atomic_store(&e->stop, stop);
}

int engine_stopped(Engine *e)
{
    return atomic_load(&e->stop);
}

/* -- the clock and the limits ------------------------------------------------ */

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

int limits_check(Limits *L)
{
    L->next_check = L->nodes + 1024;
    if (L->node_limit && L->nodes >= L->node_limit)
        L->stop = 1;
    else if (L->flag && atomic_load_explicit(L->flag, memory_order_relaxed))
        L->stop = 1;
    else if (L->deadline > 0 && now_ms() >= L->deadline)
        L->stop = 1;
    else if ((++L->checks & 63) == 0 && L->interrupt) {
        if (L->interrupt(L->interrupt_ctx))
            L->stop = L->interrupted = 1; /* e.g. Ctrl-C: the host's error is set */
    }
    return L->stop;
}
