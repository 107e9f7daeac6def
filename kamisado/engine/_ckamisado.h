/*
 * _ckamisado.h: what the binding's files share (_ckamisado.c: the module
 * and the checks of the arguments; _ckamisado_position.c: the Position type;
 * _ckamisado_searcher.c: the Searcher type): the Python objects, the
 * checks, and the core's API (kamisado.h, the only header of the core the
 * binding includes).
 */

#ifndef KAMISADO_CKAMISADO_H
#define KAMISADO_CKAMISADO_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

typedef struct {
    PyObject_HEAD Pos pos;
} PositionObject;

typedef struct {
    PyObject_HEAD Engine eng;
    /* read and written with the GIL: a table in use, and by which thread */
    int se_busy, sv_busy;
    unsigned long se_owner, sv_owner;
} SearcherObject;

extern PyTypeObject PositionType;
extern PyTypeObject SearcherType;
/* The module functions' Searcher (made by the module's init). */
extern SearcherObject *default_searcher;
/* The thread that runs Python's signal handlers. */
extern unsigned long main_thread_ident;

/* -- the checks of the arguments (_ckamisado.c) ----------------------------- */

#define STR(x) #x
#define XSTR(x) STR(x)
#define NODE_LIMIT_RANGE "an integer in 0..2**63-1 (0: no limit)"
#define TT_RANGE "an integer in " XSTR(TT_LOG2_MIN) ".." XSTR(TT_LOG2_MAX) \
    " (a table of 2**tt_log2 16-byte entries, 4 GiB at most)"

PyObject *found_text(PyObject *o);
int arg_error(PyObject *exc, const char *name, const char *expected, PyObject *found);
int type_error(const char *name, const char *expected, PyObject *found);
int get_int(PyObject *o, const char *name, long long lo, u64 hi, const char *expected,
            u64 *out);
int get_bool(PyObject *o, const char *name, int *out);
int get_time_ms(PyObject *o, double *out);
int get_tt_log2(PyObject *o, int allow_zero, int *out);
int get_weights(PyObject *o, int *w);

/* -- what the module functions call (_ckamisado_searcher.c) ---------------- */

PyObject *Searcher_solve(SearcherObject *self, PyObject *args, PyObject *kwds);
PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds);

#endif
