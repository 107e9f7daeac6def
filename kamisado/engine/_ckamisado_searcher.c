/*
 * _ckamisado_searcher.c: the binding's Searcher type, a core Engine: its
 * search and solve, their result dicts, the core's hooks (see _ckamisado.c).
 */

#include "_ckamisado.h"

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

PyObject *Searcher_solve(SearcherObject *self, PyObject *args, PyObject *kwds)
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

PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds)
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

PyTypeObject SearcherType = {
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

