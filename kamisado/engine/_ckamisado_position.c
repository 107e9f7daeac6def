/*
 * _ckamisado_position.c: the binding's Position type, a core position (see
 * _ckamisado.c).
 */

#include "_ckamisado.h"

static const char *REASON_NAMES[2] = {"goal", "deadlock"};

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

PyTypeObject PositionType = {
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

