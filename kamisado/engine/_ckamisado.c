/*
 * _ckamisado: the Python binding of the compiled Kamisado core.
 *
 * Plain CPython C API over the core in kamisado/engine/core (plain C, no
 * Python: kamisado.h says what each of its files holds).  This file holds
 * what touches Python: the types ``Position`` (a core position) and
 * ``Searcher`` (a core Engine: the tables of a search and a solver, which
 * run without the GIL and stop on a flag another thread sets), the module
 * functions (a default Searcher), the checks of the arguments, the
 * exceptions, the result dicts, and the core's hooks: the signal check
 * (Ctrl-C) of a running search or solve and the on_iteration callback.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "kamisado.h"

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
    char err[KPN_ERR_SIZE];
    int rc = pos_load(p, kpn, err);
    Py_XDECREF(text);
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
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
    pos_init(&self->pos);
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

static PyObject *Position_push(PositionObject *self, PyObject *arg)
{
    if (PyBool_Check(arg) || !PyIndex_Check(arg)) {
        type_error("code", "an integer", arg);
        return NULL;
    }
    Pos *p = &self->pos;
    u64 code;
    if (get_int(arg, "code", 0, 4095, "a legal move code", &code) < 0 ||
        !pos_is_legal(p, (int)code)) {
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
    char buf[KPN_BUF];
    pos_kpn(&self->pos, buf, match);
    return PyUnicode_FromString(buf);
}

static PyObject *Position_passes(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    const uint8_t(*src)[3];
    int n = pos_passes(&self->pos, &src);
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
    if (pos_copy(&n->pos, &self->pos) < 0) {
        Py_DECREF(n); /* frees what the copy holds */
        return PyErr_NoMemory();
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
    return PyBool_FromLong(pos_check(&self->pos));
}

static PyObject *Position_can_win_now(PositionObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->pos.owinner >= 0)
        Py_RETURN_FALSE;
    return PyBool_FromLong(can_win_now(&self->pos));
}

static PyObject *Position_repr(PositionObject *self)
{
    char buf[KPN_BUF];
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

/* -- the Searcher ---------------------------------------------------------------
 *
 * A Searcher wraps a core Engine: a search table and a solver table, as a
 * chess engine's thread has: searches of different Searchers run side by
 * side in threads of one process, each without the GIL.  Its stop flag is
 * the Engine's atomic int: stop() sets it from any thread, the search sees
 * it within 1024 nodes and answers as at a limit; it stays set (every later
 * search and solve of the Searcher stops at once, after a search's first
 * depth) until resume().  (The generations of the search table: see Engine
 * in kamisado.h.)
 *
 * The module functions search(), solve() and clear_tt() use a default
 * Searcher (a fresh one when the default is busy in another thread).
 */

typedef struct {
    PyObject_HEAD Engine eng;
    /* read and written with the GIL: a table in use, and by which thread */
    int se_busy, sv_busy;
    unsigned long se_owner, sv_owner;
} SearcherObject;

static PyTypeObject SearcherType;
static SearcherObject *default_searcher = NULL;
static unsigned long main_thread_ident = 0;

/* The host's side of a running search or solve: the thread state saved
 * while it runs without the GIL, and the on_iteration callback. */
typedef struct {
    PyThreadState *ts;
    PyObject *cb;
} Host;

/* The core's interrupt hook: take the GIL back for a moment to run the
 * signal handlers (a Ctrl-C answers 1 and leaves its exception set).  Only
 * on the main thread, where Python runs handlers. */
static int host_check_signals(void *ctx)
{
    Host *h = (Host *)ctx;
    PyEval_RestoreThread(h->ts);
    int r = PyErr_CheckSignals();
    h->ts = PyEval_SaveThread();
    return r < 0;
}

static InterruptHook signal_hook(void)
{
    return PyThread_get_thread_ident() == main_thread_ident ? host_check_signals : NULL;
}

static PyObject *Searcher_solve(SearcherObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "node_limit", "time_ms", "max_depth", "pv", "tt_log2",
                             "exact", "points", NULL};
    PyObject *pobj, *nobj = NULL, *tobj = NULL, *dobj = NULL, *pvobj = NULL, *ttobj = NULL,
             *exobj = NULL, *ptobj = NULL;
    u64 node_limit = 0, max_depth = 0;
    double time_ms = 0;
    int want_pv = 1, tt_log2 = 0, exact = 1, points = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOOOOOO", kwlist, &PositionType, &pobj,
                                     &nobj, &tobj, &dobj, &pvobj, &ttobj, &exobj, &ptobj))
        return NULL;
    if ((exobj && get_bool(exobj, "exact", &exact) < 0) ||
        (ptobj && get_bool(ptobj, "points", &points) < 0))
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
    if (engine_sv_table(&self->eng, tt_log2) < 0)
        return PyErr_NoMemory();
    SolveParams prm = {node_limit, time_ms, (int)max_depth, want_pv, exact, signal_hook(), NULL,
                       points};
    Host host = {NULL, NULL};
    prm.interrupt_ctx = &host;
    SolveResult res;
    /* the state of the position as it is now, read by the core without the
     * GIL (its stacks are not read) */
    Pos snap = *src;
    self->sv_busy = 1;
    self->sv_owner = PyThread_get_thread_ident();
    host.ts = PyEval_SaveThread();
    int rc = solve_run(&self->eng, &snap, &prm, &res);
    PyEval_RestoreThread(host.ts);
    self->sv_busy = 0;
    if (rc == KS_NOMEM)
        return PyErr_NoMemory();
    if (rc != KS_OK)
        return NULL; /* Ctrl-C: the exception is set */
    PyObject *pvl = moves_to_list(res.pv, res.npv);
    if (!pvl)
        return NULL;
    return Py_BuildValue("{s:i,s:i,s:i,s:N,s:K,s:K,s:d,s:i,s:O,s:i,s:i,s:i}", "result",
                         res.result, "distance", res.distance, "best_move", res.best_move, "pv",
                         pvl, "nodes", (unsigned long long)res.nodes, "pv_nodes",
                         (unsigned long long)res.pv_nodes, "seconds", res.seconds, "depth",
                         res.depth, "stopped", res.stopped ? Py_True : Py_False, "points",
                         res.points, "points_lo", res.points_lo, "points_hi", res.points_hi);
}

/* Report a finished iteration to on_iteration(depth, score, nodes, seconds,
 * seldepth, pv): 1 to stop (the callback answered a true value), 0 to go on,
 * -1 when it raised (the exception is set).  Called with the GIL. */
/* The lines of a MultiPV search as a list of (score, pv) tuples. */
static PyObject *lines_to_list(const RootLines *L)
{
    PyObject *list = PyList_New(L->n);
    if (!list)
        return NULL;
    for (int i = 0; i < L->n; i++) {
        PyObject *pvl = moves_to_list(L->pv[i], L->len[i]);
        PyObject *t = pvl ? Py_BuildValue("(iN)", L->score[i], pvl) : NULL;
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

static int se_report(PyObject *cb, int d, int v, u64 nodes, double secs, int sel,
                     const uint16_t *pv, int npv, const RootLines *lines)
{
    PyObject *pvl = moves_to_list(pv, npv);
    if (!pvl)
        return -1;
    PyObject *r;
    if (lines) {
        PyObject *ll = lines_to_list(lines);
        if (!ll) {
            Py_DECREF(pvl);
            return -1;
        }
        r = PyObject_CallFunction(cb, "iiKdiNN", d, v, (unsigned long long)nodes, secs, sel,
                                  pvl, ll);
    } else {
        r = PyObject_CallFunction(cb, "iiKdiN", d, v, (unsigned long long)nodes, secs, sel,
                                  pvl);
    }
    if (!r)
        return -1;
    int stop = PyObject_IsTrue(r);
    Py_DECREF(r);
    return stop;
}

/* The core's iteration hook: se_report with the GIL. */
static int host_iteration(void *ctx, int d, int v, u64 nodes, double secs, int sel,
                          const uint16_t *pv, int npv, const RootLines *lines)
{
    Host *h = (Host *)ctx;
    PyEval_RestoreThread(h->ts);
    int r = se_report(h->cb, d, v, nodes, secs, sel, pv, npv, lines);
    h->ts = PyEval_SaveThread();
    return r;
}

static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "depth", "time_ms", "node_limit", "weights", "seed",
                             "tt_log2", "keep_tt", "on_iteration", "multipv", "root_moves",
                             NULL};
    PyObject *pobj, *wobj = Py_None, *dobj = NULL, *tobj = NULL, *nobj = NULL, *sobj = NULL,
                    *ttobj = NULL, *kobj = NULL, *cb = Py_None, *mobj = NULL, *robj = Py_None;
    int tt_log2 = 20, keep_tt = 0;
    double time_ms = 0;
    u64 depth = 0, node_limit = 0, seed = 0, multipv = 0;
    uint16_t roots[MAXMOVES];
    int nroots = 0;
    SearchParams prm;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOOOOOOOOO", kwlist, &PositionType, &pobj,
                                     &dobj, &tobj, &nobj, &wobj, &sobj, &ttobj, &kobj, &cb,
                                     &mobj, &robj))
        return NULL;
    if (mobj && get_int(mobj, "multipv", 0, MAXMOVES,
                        "an integer in 0.." XSTR(MAXMOVES) " (0: a plain search)", &multipv) < 0)
        return NULL;
    if (robj != Py_None) {
        Pos *rp = &((PositionObject *)pobj)->pos;
        PyObject *seq = PySequence_Fast(robj, "root_moves must be a list of move codes or None");
        if (!seq)
            return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < n; i++) {
            u64 code;
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            if (get_int(item, "root_moves[i]", 0, 4095, "a legal move code", &code) < 0) {
                Py_DECREF(seq);
                return NULL;
            }
            if (rp->owinner >= 0 || !pos_is_legal(rp, (int)code)) {
                PyErr_Format(PyExc_ValueError, "root_moves: illegal move code %d", (int)code);
                Py_DECREF(seq);
                return NULL;
            }
            int seen = 0;
            for (int j = 0; j < nroots; j++)
                seen |= roots[j] == code;
            if (!seen)
                roots[nroots++] = (uint16_t)code;
        }
        Py_DECREF(seq);
        if (nroots == 0) {
            PyErr_SetString(PyExc_ValueError, "root_moves: expected at least one move");
            return NULL;
        }
    }
    if ((dobj && get_int(dobj, "depth", 0, MAX_DEPTH,
                         "an integer in 0.." XSTR(MAX_DEPTH) " (0: no limit)", &depth) < 0) ||
        (tobj && get_time_ms(tobj, &time_ms) < 0) ||
        (nobj && get_int(nobj, "node_limit", 0, NODE_LIMIT_MAX, NODE_LIMIT_RANGE,
                         &node_limit) < 0) ||
        get_weights(wobj, prm.weights) < 0 ||
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
    Pos *src = &((PositionObject *)pobj)->pos;
    if (src->owinner >= 0) {
        PyErr_SetString(PyExc_ValueError, "the round is over");
        return NULL;
    }
    if (depth == 0 && time_ms <= 0 && !node_limit) {
        PyErr_SetString(PyExc_ValueError, "give a depth, a time or a node limit");
        return NULL;
    }
    if (engine_se_table(&self->eng, tt_log2, keep_tt) < 0)
        return PyErr_NoMemory();
    Host host = {NULL, cb};
    prm.depth = (int)depth;
    prm.time_ms = time_ms;
    prm.node_limit = node_limit;
    prm.seed = seed;
    prm.interrupt = signal_hook();
    prm.interrupt_ctx = &host;
    prm.on_iteration = cb != Py_None ? host_iteration : NULL;
    prm.iteration_ctx = &host;
    prm.multipv = (int)multipv;
    prm.root_moves = roots;
    prm.nroot_moves = nroots;
    int lines_mode = multipv > 0 || nroots > 0;
    prm.lines = NULL;
    if (lines_mode) {
        prm.lines = (RootLines *)PyMem_RawMalloc(sizeof(RootLines));
        if (!prm.lines)
            return PyErr_NoMemory();
        prm.lines->n = 0;
    }
    SearchResult res;
    /* the state of the position as it is now, read by the core without the
     * GIL (its stacks are not read) */
    Pos snap = *src;
    self->se_busy = 1;
    self->se_owner = PyThread_get_thread_ident();
    host.ts = PyEval_SaveThread();
    int rc = search_run(&self->eng, &snap, &prm, &res);
    PyEval_RestoreThread(host.ts);
    self->se_busy = 0;
    PyObject *lines = NULL;
    if (rc == KS_OK && lines_mode)
        lines = lines_to_list(prm.lines);
    PyMem_RawFree(prm.lines);
    if (rc == KS_NOMEM)
        return PyErr_NoMemory();
    if (rc != KS_OK)
        return NULL; /* the callback's exception or Ctrl-C is set */
    if (lines_mode && !lines)
        return NULL;
    PyObject *iters = PyList_New(res.niter);
    if (!iters)
        return NULL;
    for (int i = 0; i < res.niter; i++) {
        PyObject *it = Py_BuildValue("(iiKd)", i + 1, res.it_score[i],
                                     (unsigned long long)res.it_nodes[i], res.it_secs[i]);
        if (!it) {
            Py_DECREF(iters);
            return NULL;
        }
        PyList_SET_ITEM(iters, i, it);
    }
    PyObject *pvl = moves_to_list(res.pv, res.npv);
    if (!pvl) {
        Py_DECREF(iters);
        Py_XDECREF(lines);
        return NULL;
    }
    PyObject *d = Py_BuildValue("{s:i,s:i,s:N,s:K,s:d,s:i,s:N}", "depth", res.depth, "score",
                                res.score, "pv", pvl, "nodes", (unsigned long long)res.nodes,
                                "seconds", res.seconds, "seldepth", res.seldepth, "iterations",
                                iters);
    if (d && lines && PyDict_SetItemString(d, "lines", lines) < 0)
        Py_CLEAR(d);
    Py_XDECREF(lines);
    if (d && lines_mode) {
        PyObject *lead = Py_None;
        Py_INCREF(lead);
        if (res.lead_depth) {
            Py_DECREF(lead);
            PyObject *lpv = moves_to_list(res.lead_pv, res.lead_len);
            lead = lpv ? Py_BuildValue("(iiN)", res.lead_depth, res.lead_score, lpv) : NULL;
        }
        if (!lead || PyDict_SetItemString(d, "lead", lead) < 0)
            Py_CLEAR(d);
        Py_XDECREF(lead);
    }
    return d;
}

static PyObject *Searcher_stop(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    engine_set_stop(&self->eng, 1);
    Py_RETURN_NONE;
}

static PyObject *Searcher_resume(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    engine_set_stop(&self->eng, 0);
    Py_RETURN_NONE;
}

static PyObject *Searcher_get_stopped(SearcherObject *self, void *closure)
{
    return PyBool_FromLong(engine_stopped(&self->eng));
}

static PyObject *Searcher_get_generation(SearcherObject *self, void *closure)
{
    return PyLong_FromLong(self->eng.gen);
}

static PyObject *Searcher_get_allocations(SearcherObject *self, void *closure)
{
    return PyLong_FromUnsignedLong(self->eng.allocs);
}

static PyObject *Searcher_clear_tt(SearcherObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->se_busy || self->sv_busy) {
        PyErr_SetString(PyExc_RuntimeError, "clear_tt: the Searcher is running");
        return NULL;
    }
    engine_clear_sv(&self->eng);
    engine_clear_se(&self->eng);
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
    engine_init(&self->eng);
    self->se_busy = self->sv_busy = 0;
    return (PyObject *)self;
}

static void Searcher_dealloc(SearcherObject *self)
{
    engine_free(&self->eng);
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
    if (!d->sv_busy)
        engine_clear_sv(&d->eng);
    if (!d->se_busy)
        engine_clear_se(&d->eng);
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
    int v;
    if (pos_evaluate(src, w, &v) < 0)
        return PyErr_NoMemory();
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
     " keep_tt=False, on_iteration=None, multipv=0, root_moves=None) -> dict: as the\n"
     "module's search(), with this\n"
     "Searcher's table, without the GIL"},
    {"solve", (PyCFunction)(void (*)(void))Searcher_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(pos, node_limit=0, time_ms=0, max_depth=0, pv=True, tt_log2=0, exact=True,\n"
     "points=False) -> dict: as the\n"
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
    {"allocations", (getter)Searcher_get_allocations, NULL,
     "the tables allocated and zeroed so far (a search's first one, a new size, the solver's"
     " two)", NULL},
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
     "solve(pos, node_limit=0, time_ms=0, max_depth=0, pv=True, tt_log2=0, exact=True,\n"
     "points=False) -> dict\n\n"
     "node_limit in 0..NODE_LIMIT_MAX, time_ms finite >= 0, max_depth in\n"
     "0..SOLVE_MAX_DEPTH (0: no limit of that kind); tt_log2 0 (keep the table,\n"
     "2**22 entries at first) or TT_LOG2_MIN..TT_LOG2_MAX.  TypeError for a wrong\n"
     "type, ValueError for a value out of range."},
    {"search", (PyCFunction)(void (*)(void))mod_search, METH_VARARGS | METH_KEYWORDS,
     "search(pos, depth=0, time_ms=0, node_limit=0, weights=None, seed=0, tt_log2=20,"
     " keep_tt=False, on_iteration=None, multipv=0, root_moves=None) -> dict\n\n"
     "depth in 0..MAX_DEPTH, time_ms finite >= 0, node_limit in 0..NODE_LIMIT_MAX\n"
     "(0: no limit of that kind, but one is needed); weights None or NWEIGHTS ints\n"
     "in -WEIGHT_MAX..WEIGHT_MAX; seed in 0..SEED_MAX; tt_log2 in\n"
     "TT_LOG2_MIN..TT_LOG2_MAX.  TypeError for a wrong type, ValueError for a\n"
     "value out of range.  on_iteration (None or a callable) is called after each\n"
     "finished iteration with (depth, score, nodes, seconds, seldepth, pv): a true\n"
     "answer ends the search there, an exception ends it and propagates; a\n"
     "search started from the callback raises RuntimeError.  multipv in 1..256 or\n"
     "root_moves (legal codes) searches the root for the k best moves with exact\n"
     "scores, in one search: the answer's lines ((score, pv), best first) and lead\n"
     "(None or (depth, score, pv)), and on_iteration's seventh argument, the\n"
     "depth's lines.  Runs without the GIL,\n"
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
