/* The piles of the player's view, compiled (engine._view).
 *
 * engine/view.py builds the view a player sees after every move: the columns (face-down
 * count and face-up card codes), the foundations, the waste's visible cards and the
 * legal moves grouped by source. Built in the interpreter, these loops over every pile
 * were most of the view's cost, and the view is built for every move the server
 * acknowledges (docs/performance.md). This module builds exactly what the interpreted
 * reference in engine/view.py builds (a test compares the two along random play of
 * every variant), and never reads a face-down card's identity: a column's face-down
 * cards only count, and the stock is not read at all.
 *
 * board(position, legal, notations, named, codes, suit_codes, fixed)
 *     -> (tableau, foundations, legal_moves, visible)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Position fields, in engine.position.Position order. */
enum { POS_TABLEAU = 0, POS_DOWN = 1, POS_WASTE = 3, POS_FAN = 4, POS_FOUNDATIONS = 5, POS_SIZE = 9 };

/* The keys of a column's and a foundation's entry, made once. */
static PyObject *KEY_DOWN, *KEY_UP, *KEY_SUIT, *KEY_CARDS, *KEY_TOP;

/* The code of card `card` (a small int below the size of `codes`), borrowed. */
static PyObject *code_of(PyObject *codes, PyObject *card) {
    Py_ssize_t number = PyLong_AsSsize_t(card);
    if (number == -1 && PyErr_Occurred()) return NULL;
    if (number < 0 || number >= PyTuple_GET_SIZE(codes)) {
        PyErr_Format(PyExc_ValueError, "card %zd is not a card", number);
        return NULL;
    }
    return PyTuple_GET_ITEM(codes, number);
}

/* The codes of pile[start:], as a new list. */
static PyObject *codes_from(PyObject *codes, PyObject *pile, Py_ssize_t start) {
    Py_ssize_t size = PyTuple_GET_SIZE(pile);
    PyObject *list = PyList_New(size - start);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = start; i < size; i++) {
        PyObject *code = code_of(codes, PyTuple_GET_ITEM(pile, i));
        if (code == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        Py_INCREF(code);
        PyList_SET_ITEM(list, i - start, code);
    }
    return list;
}

/* A dict of two or three items, in the given order (the view's JSON keeps it). */
static PyObject *entry(PyObject *k1, PyObject *v1, PyObject *k2, PyObject *v2, PyObject *k3,
                       PyObject *v3) {
    PyObject *dict = PyDict_New();
    if (dict == NULL) return NULL;
    if (PyDict_SetItem(dict, k1, v1) < 0 || PyDict_SetItem(dict, k2, v2) < 0 ||
        (k3 != NULL && PyDict_SetItem(dict, k3, v3) < 0)) {
        Py_DECREF(dict);
        return NULL;
    }
    return dict;
}

/* Whether `piles` is a tuple of tuples; -1 with an error naming `what` if not. */
static int check_piles(PyObject *piles, const char *what) {
    if (!PyTuple_Check(piles)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(piles); i++) {
        if (!PyTuple_Check(PyTuple_GET_ITEM(piles, i))) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be a tuple", what, i);
            return -1;
        }
    }
    return 0;
}

/* Each column: {"down": n, "up": [codes of the face-up cards]}. */
static PyObject *tableau_entries(PyObject *codes, PyObject *tableau, PyObject *down) {
    Py_ssize_t count = PyTuple_GET_SIZE(tableau);
    if (!PyTuple_Check(down) || PyTuple_GET_SIZE(down) != count) {
        PyErr_SetString(PyExc_ValueError, "down must be a tuple with one count per column");
        return NULL;
    }
    PyObject *columns = PyList_New(count);
    if (columns == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *column = PyTuple_GET_ITEM(tableau, i), *hidden = PyTuple_GET_ITEM(down, i);
        Py_ssize_t n = PyLong_AsSsize_t(hidden);
        if (n == -1 && PyErr_Occurred()) goto fail;
        if (n < 0 || n > PyTuple_GET_SIZE(column)) {
            PyErr_Format(PyExc_ValueError, "column %zd has %zd cards, not %zd face down", i,
                         PyTuple_GET_SIZE(column), n);
            goto fail;
        }
        PyObject *up = codes_from(codes, column, n);
        if (up == NULL) goto fail;
        PyObject *item = entry(KEY_DOWN, hidden, KEY_UP, up, NULL, NULL);
        Py_DECREF(up);
        if (item == NULL) goto fail;
        PyList_SET_ITEM(columns, i, item);
    }
    return columns;
fail:
    Py_DECREF(columns);
    return NULL;
}

/* Each foundation: {"suit": letter or None, "cards": n, "top": code or None}. A pile's
 * suit is its Ace's; an empty pile shows fixed[i] (Klondike's ♣ ♦ ♥ ♠) or None. */
static PyObject *foundation_entries(PyObject *codes, PyObject *suit_codes,
                                    PyObject *foundations, PyObject *fixed) {
    Py_ssize_t count = PyTuple_GET_SIZE(foundations);
    if (PyTuple_GET_SIZE(suit_codes) != PyTuple_GET_SIZE(codes)) {
        PyErr_SetString(PyExc_ValueError, "suit_codes must name one suit per card code");
        return NULL;
    }
    PyObject *piles = PyList_New(count);
    if (piles == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pile = PyTuple_GET_ITEM(foundations, i);
        Py_ssize_t size = PyTuple_GET_SIZE(pile);
        PyObject *suit = Py_None, *top = Py_None;
        if (size) {
            if (code_of(codes, PyTuple_GET_ITEM(pile, 0)) == NULL ||
                (top = code_of(codes, PyTuple_GET_ITEM(pile, size - 1))) == NULL)
                goto fail;
            suit = PyTuple_GET_ITEM(suit_codes, PyLong_AsSsize_t(PyTuple_GET_ITEM(pile, 0)));
        } else if (fixed != Py_None && i < PyTuple_GET_SIZE(fixed)) {
            suit = PyTuple_GET_ITEM(fixed, i);
        }
        PyObject *cards = PyLong_FromSsize_t(size);
        if (cards == NULL) goto fail;
        PyObject *item = entry(KEY_SUIT, suit, KEY_CARDS, cards, KEY_TOP, top);
        Py_DECREF(cards);
        if (item == NULL) goto fail;
        PyList_SET_ITEM(piles, i, item);
    }
    return piles;
fail:
    Py_DECREF(piles);
    return NULL;
}

/* The legal moves by source: {source: [canonical texts]}, sources in order of their
 * first move. Each move's names come from `notations` (a dict of every move the engine
 * can make), or from calling `named` for one that is not there. */
static PyObject *legal_groups(PyObject *legal, PyObject *notations, PyObject *named) {
    PyObject *groups = PyDict_New();
    if (groups == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(legal); i++) {
        PyObject *move = PyList_GET_ITEM(legal, i);
        PyObject *names = PyDict_GetItemWithError(notations, move);
        if (names != NULL) {
            Py_INCREF(names);
        } else if (PyErr_Occurred() || (names = PyObject_CallOneArg(named, move)) == NULL) {
            goto fail;
        }
        if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 2) {
            Py_DECREF(names);
            PyErr_SetString(PyExc_TypeError, "a move's names must be (source, text)");
            goto fail;
        }
        PyObject *source = PyTuple_GET_ITEM(names, 0), *text = PyTuple_GET_ITEM(names, 1);
        PyObject *group = PyDict_GetItemWithError(groups, source);
        int failed;
        if (group != NULL) {
            failed = PyList_Append(group, text);
        } else if (PyErr_Occurred()) {
            failed = -1;
        } else {
            group = PyList_New(1);
            failed = group == NULL;
            if (!failed) {
                Py_INCREF(text);
                PyList_SET_ITEM(group, 0, text);
                failed = PyDict_SetItem(groups, source, group);
                Py_DECREF(group);
            }
        }
        Py_DECREF(names);
        if (failed) goto fail;
    }
    return groups;
fail:
    Py_DECREF(groups);
    return NULL;
}

/* The waste cards a player sees: the cards of the last draw still lying there, at least
 * the top one (engine/view.py). */
static PyObject *visible_waste(PyObject *codes, PyObject *waste, PyObject *fan) {
    Py_ssize_t size = PyTuple_GET_SIZE(waste), shown = PyLong_AsSsize_t(fan);
    if (shown == -1 && PyErr_Occurred()) return NULL;
    if (shown < 1) shown = 1;
    if (shown > size) shown = size;
    return codes_from(codes, waste, size - shown);
}

static PyObject *view_board(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *pos, *legal, *notations, *named, *codes, *suit_codes, *fixed;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!O!O:board", &PyTuple_Type, &pos, &PyList_Type,
                          &legal, &PyDict_Type, &notations, &named, &PyTuple_Type, &codes,
                          &PyTuple_Type, &suit_codes, &fixed))
        return NULL;
    if (PyTuple_GET_SIZE(pos) != POS_SIZE) {
        PyErr_Format(PyExc_ValueError, "a position has %d fields", POS_SIZE);
        return NULL;
    }
    if (fixed != Py_None && !PyTuple_Check(fixed)) {
        PyErr_SetString(PyExc_TypeError, "fixed must be a tuple or None");
        return NULL;
    }
    PyObject *tableau = PyTuple_GET_ITEM(pos, POS_TABLEAU);
    PyObject *foundations = PyTuple_GET_ITEM(pos, POS_FOUNDATIONS);
    PyObject *waste = PyTuple_GET_ITEM(pos, POS_WASTE);
    if (check_piles(tableau, "tableau") < 0 || check_piles(foundations, "foundations") < 0)
        return NULL;
    if (!PyTuple_Check(waste)) {
        PyErr_SetString(PyExc_TypeError, "waste must be a tuple");
        return NULL;
    }
    PyObject *columns = tableau_entries(codes, tableau, PyTuple_GET_ITEM(pos, POS_DOWN));
    if (columns == NULL) return NULL;
    PyObject *piles = foundation_entries(codes, suit_codes, foundations, fixed);
    PyObject *groups = piles ? legal_groups(legal, notations, named) : NULL;
    PyObject *visible = groups ? visible_waste(codes, waste, PyTuple_GET_ITEM(pos, POS_FAN)) : NULL;
    if (visible == NULL) {
        Py_DECREF(columns);
        Py_XDECREF(piles);
        Py_XDECREF(groups);
        return NULL;
    }
    return Py_BuildValue("(NNNN)", columns, piles, groups, visible);
}

static PyMethodDef methods[] = {
    {"board", view_board, METH_VARARGS,
     "board(position, legal, notations, named, codes, suit_codes, fixed)\n"
     "    -> (tableau, foundations, legal_moves, visible waste cards)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_view", "The piles of the player's view, compiled.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__view(void) {
    if ((KEY_DOWN = PyUnicode_InternFromString("down")) == NULL ||
        (KEY_UP = PyUnicode_InternFromString("up")) == NULL ||
        (KEY_SUIT = PyUnicode_InternFromString("suit")) == NULL ||
        (KEY_CARDS = PyUnicode_InternFromString("cards")) == NULL ||
        (KEY_TOP = PyUnicode_InternFromString("top")) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
