/*
 * _ckamisado: the Python binding of the compiled Kamisado core.
 *
 * Plain CPython C API over the core in kamisado/engine/core (plain C, no
 * Python: kamisado.h says what each of its files holds).  These files hold
 * what touches Python: the types ``Position`` (a core position,
 * _ckamisado_position.c) and
 * ``Searcher`` (a core Engine: the tables of a search and a solver, which
 * run without the GIL and stop on a flag another thread sets;
 * _ckamisado_searcher.c), the module
 * functions (a default Searcher), the checks of the arguments, the
 * exceptions, the result dicts, and the core's hooks: the signal check
 * (Ctrl-C) of a running search or solve and the on_iteration callback.
 * This file: the module (its functions, its init) and the checks of the
 * arguments; _ckamisado.h what the files share.
 */

#include "_ckamisado.h"

SearcherObject *default_searcher = NULL;
unsigned long main_thread_ident = 0;

/* -- argument checks ---------------------------------------------------------
 *
 * Every entry point reads its arguments through these: a wrong type raises
 * TypeError, a value out of range ValueError saying what was expected and
 * what was found.  Integers are ints or objects with __index__ (never bool);
 * a number is an int or a float (never bool); flags are bools.
 */

/* The value found, for a message: its repr, or the size of a huge integer. */
PyObject *found_text(PyObject *o)
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
int arg_error(PyObject *exc, const char *name, const char *expected, PyObject *found)
{
    PyObject *text = found_text(found);
    if (text) {
        PyErr_Format(exc, "%s must be %s, got %U", name, expected, text);
        Py_DECREF(text);
    }
    return -1;
}

int type_error(const char *name, const char *expected, PyObject *found)
{
    PyErr_Format(PyExc_TypeError, "%s must be %s, got %.200s", name, expected,
                 Py_TYPE(found)->tp_name);
    return -1;
}

/* An integer in lo..hi into *out (two's complement when negative).
 * ``expected`` names the range for the message, e.g. "an integer in 0..120". */
int get_int(PyObject *o, const char *name, long long lo, u64 hi, const char *expected,
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

int get_bool(PyObject *o, const char *name, int *out)
{
    if (!PyBool_Check(o))
        return type_error(name, "a bool", o);
    *out = o == Py_True;
    return 0;
}

/* A time limit in milliseconds: a finite number >= 0, 0 for none. */
int get_time_ms(PyObject *o, double *out)
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

/* A table size: TT_LOG2_MIN..TT_LOG2_MAX, or 0 (keep the table) if allowed. */
int get_tt_log2(PyObject *o, int allow_zero, int *out)
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
int get_weights(PyObject *o, int *w)
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
