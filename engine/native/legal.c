/* The legal moves of a position, compiled (engine._legal).
 *
 * The same generation as Rules.interpreted_moves in engine/rules.py, which stays
 * the readable reference, but for the stock's move (Rules.legal_moves adds that):
 * the same tables (KEY, WANTS, OPENS_EMPTY), the same three ways a run may move
 * (units), the same foundation rules, and the same order of moves, so that a view,
 * a hint or a replay cannot tell the two apart; a test plays
 * every variant at random and compares them position by position. It runs for every
 * view the server sends, where the interpreted loops were the largest single cost
 * of a move (docs/performance.md).
 *
 * A spec (a capsule made once per variant by spec()) holds the tables and the Move
 * objects to hand out, so generation allocates nothing but the result list.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#define NCARD 52
#define MAXCOL 10
#define MAXFND 8
#define MAXKEY 64
#define MAXWANTS 4
#define MAXRUN 104 /* COLUMN_MOVES holds sizes up to 104 */

/* How a run on top of a column may move together (Rules.unit_length). */
enum { UNIT_ALTERNATING, UNIT_SUITED_RUN, UNIT_FACE_UP };
/* Which foundation a card may go to (Rules.foundation_slot). */
enum { HOME_NONE, HOME_BY_SUIT, HOME_FIRST_FREE };

/* Position fields, in engine.position.Position order. */
enum {
    POS_TABLEAU = 0,
    POS_DOWN = 1,
    POS_STOCK = 2,
    POS_WASTE = 3,
    POS_FOUNDATIONS = 5,
    POS_REDEALS = 6
};

static const char *SPEC_NAME = "engine._legal.spec";

typedef struct {
    unsigned char key[NCARD], opens_empty[NCARD], rank[NCARD], suit[NCARD], red[NCARD];
    unsigned char nwants[NCARD], wants[NCARD][MAXWANTS];
    int unit, home, give_back;
    /* Move tables, owned: COLUMN_MOVES[i][j][size], TO_FOUNDATION[i], WASTE_MOVES[j],
     * the waste-to-foundation move, FROM_FOUNDATION[s][j]. */
    PyObject *column_moves, *to_foundation, *waste_moves, *waste_home, *from_foundation;
} Spec;

/* Let go of a spec's move tables and its memory. */
static void spec_release(Spec *spec) {
    Py_XDECREF(spec->column_moves);
    Py_XDECREF(spec->to_foundation);
    Py_XDECREF(spec->waste_moves);
    Py_XDECREF(spec->waste_home);
    Py_XDECREF(spec->from_foundation);
    free(spec);
}

static void spec_free(PyObject *capsule) {
    Spec *spec = PyCapsule_GetPointer(capsule, SPEC_NAME);
    if (spec != NULL) spec_release(spec);
}

/* Read a tuple of NCARD small ints (or bools) below `limit` into `out`. */
static int read_table(PyObject *table, unsigned char *out, long limit, const char *name) {
    if (!PyTuple_Check(table) || PyTuple_GET_SIZE(table) != NCARD) {
        PyErr_Format(PyExc_ValueError, "%s must be a tuple of %d entries", name, NCARD);
        return -1;
    }
    for (Py_ssize_t c = 0; c < NCARD; c++) {
        long value = PyLong_AsLong(PyTuple_GET_ITEM(table, c));
        if (value == -1 && PyErr_Occurred()) return -1;
        if (value < 0 || value >= limit) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %ld is out of range", name, c, value);
            return -1;
        }
        out[c] = (unsigned char)value;
    }
    return 0;
}

/* Read WANTS: for each card, the few keys a column topped by it accepts. */
static int read_wants(PyObject *wants, Spec *spec) {
    if (!PyTuple_Check(wants) || PyTuple_GET_SIZE(wants) != NCARD) {
        PyErr_SetString(PyExc_ValueError, "wants must be a tuple of 52 tuples");
        return -1;
    }
    for (Py_ssize_t c = 0; c < NCARD; c++) {
        PyObject *keys = PyTuple_GET_ITEM(wants, c);
        if (!PyTuple_Check(keys) || PyTuple_GET_SIZE(keys) > MAXWANTS) {
            PyErr_SetString(PyExc_ValueError, "each wants entry must be a tuple of few keys");
            return -1;
        }
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(keys); k++) {
            long value = PyLong_AsLong(PyTuple_GET_ITEM(keys, k));
            if (value == -1 && PyErr_Occurred()) return -1;
            if (value < 0 || value >= MAXKEY) {
                PyErr_SetString(PyExc_ValueError, "a wanted key is out of range");
                return -1;
            }
            spec->wants[c][k] = (unsigned char)value;
        }
        spec->nwants[c] = (unsigned char)PyTuple_GET_SIZE(keys);
    }
    return 0;
}

/* Whether the move tables have an entry for every index generation may use: the
 * tables are read without bounds checks afterwards. */
static int tables_fit(PyObject *column_moves, PyObject *to_foundation, PyObject *waste_moves,
                      PyObject *from_foundation) {
    if (PyTuple_GET_SIZE(column_moves) < MAXCOL || PyTuple_GET_SIZE(to_foundation) < MAXCOL ||
        PyTuple_GET_SIZE(waste_moves) < MAXCOL || PyTuple_GET_SIZE(from_foundation) < MAXFND)
        return 0;
    for (Py_ssize_t i = 0; i < MAXCOL; i++) {
        PyObject *from_here = PyTuple_GET_ITEM(column_moves, i);
        if (!PyTuple_Check(from_here) || PyTuple_GET_SIZE(from_here) < MAXCOL) return 0;
        for (Py_ssize_t j = 0; j < MAXCOL; j++) {
            PyObject *sizes = PyTuple_GET_ITEM(from_here, j);
            if (!PyTuple_Check(sizes) || PyTuple_GET_SIZE(sizes) <= MAXRUN) return 0;
        }
    }
    for (Py_ssize_t s = 0; s < MAXFND; s++) {
        PyObject *targets = PyTuple_GET_ITEM(from_foundation, s);
        if (!PyTuple_Check(targets) || PyTuple_GET_SIZE(targets) < MAXCOL) return 0;
    }
    return 1;
}

static PyObject *legal_spec(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *names[] = {"key",           "wants",       "opens_empty", "rank",
                            "suit",          "red",         "unit",        "home",
                            "give_back",     "column_moves", "to_foundation", "waste_moves",
                            "waste_home",    "from_foundation", NULL};
    PyObject *key, *wants, *opens_empty, *rank, *suit, *red;
    PyObject *column_moves, *to_foundation, *waste_moves, *waste_home, *from_foundation;
    int unit, home, give_back;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOiipO!O!O!OO!", names, &key, &wants,
                                     &opens_empty, &rank, &suit, &red, &unit, &home,
                                     &give_back, &PyTuple_Type, &column_moves, &PyTuple_Type,
                                     &to_foundation, &PyTuple_Type, &waste_moves, &waste_home,
                                     &PyTuple_Type, &from_foundation))
        return NULL;
    if (unit < UNIT_ALTERNATING || unit > UNIT_FACE_UP || home < HOME_NONE ||
        home > HOME_FIRST_FREE) {
        PyErr_SetString(PyExc_ValueError, "unknown unit or home rule");
        return NULL;
    }
    if (!tables_fit(column_moves, to_foundation, waste_moves, from_foundation)) {
        PyErr_SetString(PyExc_ValueError, "a move table is too small for every column and size");
        return NULL;
    }
    /* Every table is read and checked before anything is owned, so a refusal frees nothing. */
    Spec tables;
    memset(&tables, 0, sizeof tables);
    if (read_table(key, tables.key, MAXKEY, "key") < 0 ||
        read_table(opens_empty, tables.opens_empty, 2, "opens_empty") < 0 ||
        read_table(rank, tables.rank, 14, "rank") < 0 ||
        read_table(suit, tables.suit, MAXFND, "suit") < 0 ||
        read_table(red, tables.red, 2, "red") < 0 || read_wants(wants, &tables) < 0)
        return NULL;
    tables.unit = unit;
    tables.home = home;
    tables.give_back = give_back;
    Spec *spec = malloc(sizeof(Spec));
    if (spec == NULL) return PyErr_NoMemory();
    *spec = tables;
    Py_INCREF(column_moves);
    Py_INCREF(to_foundation);
    Py_INCREF(waste_moves);
    Py_INCREF(waste_home);
    Py_INCREF(from_foundation);
    spec->column_moves = column_moves;
    spec->to_foundation = to_foundation;
    spec->waste_moves = waste_moves;
    spec->waste_home = waste_home;
    spec->from_foundation = from_foundation;
    PyObject *capsule = PyCapsule_New(spec, SPEC_NAME, spec_free);
    if (capsule == NULL) spec_release(spec);
    return capsule;
}

typedef struct {
    int ncol, nfnd, ncard[MAXCOL], down[MAXCOL];
    unsigned char cards[MAXCOL][MAXRUN];
    int fnd_size[MAXFND], fnd_top[MAXFND];
    int waste_top; /* -1: no waste */
} Table;

static int card_of(PyObject *item, const char *where) {
    long card = PyLong_AsLong(item);
    if (card == -1 && PyErr_Occurred()) return -1;
    if (card < 0 || card >= NCARD) {
        PyErr_Format(PyExc_ValueError, "card %ld in %s is not a card", card, where);
        return -1;
    }
    return (int)card;
}

static PyObject *tuple_field(PyObject *pos, Py_ssize_t index, const char *name) {
    PyObject *field = PyTuple_GET_ITEM(pos, index);
    if (!PyTuple_Check(field)) {
        PyErr_Format(PyExc_TypeError, "the position's %s must be a tuple", name);
        return NULL;
    }
    return field;
}

static int read_position(PyObject *pos, Table *t) {
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) <= POS_FOUNDATIONS) {
        PyErr_SetString(PyExc_TypeError, "expected an engine Position");
        return -1;
    }
    PyObject *tableau = tuple_field(pos, POS_TABLEAU, "tableau");
    PyObject *down = tableau ? tuple_field(pos, POS_DOWN, "down") : NULL;
    PyObject *waste = down ? tuple_field(pos, POS_WASTE, "waste") : NULL;
    PyObject *fnd = waste ? tuple_field(pos, POS_FOUNDATIONS, "foundations") : NULL;
    if (fnd == NULL) return -1;
    t->ncol = (int)PyTuple_GET_SIZE(tableau);
    t->nfnd = (int)PyTuple_GET_SIZE(fnd);
    if (t->ncol > MAXCOL || PyTuple_GET_SIZE(down) != t->ncol || t->nfnd > MAXFND) {
        PyErr_SetString(PyExc_ValueError, "too many columns or foundations");
        return -1;
    }
    for (int j = 0; j < t->ncol; j++) {
        PyObject *col = PyTuple_GET_ITEM(tableau, j);
        if (!PyTuple_Check(col) || PyTuple_GET_SIZE(col) > MAXRUN) {
            PyErr_SetString(PyExc_ValueError, "a column must be a tuple of at most 104 cards");
            return -1;
        }
        t->ncard[j] = (int)PyTuple_GET_SIZE(col);
        long d = PyLong_AsLong(PyTuple_GET_ITEM(down, j));
        if (d == -1 && PyErr_Occurred()) return -1;
        if (d < 0 || d > t->ncard[j]) {
            PyErr_SetString(PyExc_ValueError, "a column has more face-down cards than cards");
            return -1;
        }
        t->down[j] = (int)d;
        /* Only the face-up cards (and the top, always) take part in a move: the
         * face-down ones below are left unread. */
        int first = d < t->ncard[j] ? (int)d : t->ncard[j] - 1;
        for (int k = first < 0 ? 0 : first; k < t->ncard[j]; k++) {
            int card = card_of(PyTuple_GET_ITEM(col, k), "a column");
            if (card < 0) return -1;
            t->cards[j][k] = (unsigned char)card;
        }
    }
    for (int s = 0; s < t->nfnd; s++) {
        PyObject *pile = PyTuple_GET_ITEM(fnd, s);
        if (!PyTuple_Check(pile)) {
            PyErr_SetString(PyExc_TypeError, "a foundation must be a tuple");
            return -1;
        }
        t->fnd_size[s] = (int)PyTuple_GET_SIZE(pile);
        t->fnd_top[s] = -1;
        if (t->fnd_size[s]) {
            t->fnd_top[s] = card_of(PyTuple_GET_ITEM(pile, t->fnd_size[s] - 1), "a foundation");
            if (t->fnd_top[s] < 0) return -1;
        }
    }
    t->waste_top = -1;
    if (PyTuple_GET_SIZE(waste)) {
        t->waste_top = card_of(PyTuple_GET_ITEM(waste, PyTuple_GET_SIZE(waste) - 1), "the waste");
        if (t->waste_top < 0) return -1;
    }
    return 0;
}

/* Rules.unit_length: how many cards on top of column j move together at most. */
static int unit_length(const Spec *spec, const Table *t, int j) {
    int n = t->ncard[j], k = n - 1, down = t->down[j];
    const unsigned char *col = t->cards[j];
    switch (spec->unit) {
    case UNIT_FACE_UP:
        return n - down;
    case UNIT_SUITED_RUN:
        while (k > down && col[k - 1] == col[k] + 1 && spec->rank[col[k - 1]] > 1) k--;
        return n - k;
    default:
        while (k > down && spec->rank[col[k - 1]] == spec->rank[col[k]] + 1 &&
               spec->red[col[k - 1]] != spec->red[col[k]])
            k--;
        return n - k;
    }
}

/* Rules.foundation_slot(...) is not None: whether `card` may go to a foundation now. */
static int goes_home(const Spec *spec, const Table *t, int card) {
    switch (spec->home) {
    case HOME_BY_SUIT: {
        int suit = spec->suit[card];
        return suit < t->nfnd && t->fnd_size[suit] == spec->rank[card] - 1;
    }
    case HOME_FIRST_FREE:
        for (int s = 0; s < t->nfnd; s++) {
            if (spec->rank[card] == 1 ? t->fnd_size[s] == 0 : t->fnd_top[s] == card - 1)
                return 1;
        }
        return 0;
    default:
        return 0;
    }
}

static int append(PyObject *moves, PyObject *move) { return PyList_Append(moves, move); }

#define ITEM(table, i) PyTuple_GET_ITEM((table), (i))

static PyObject *legal_moves(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *pos;
    if (!PyArg_ParseTuple(args, "OO", &capsule, &pos)) return NULL;
    Spec *spec = PyCapsule_GetPointer(capsule, SPEC_NAME);
    if (spec == NULL) return NULL;
    Table t;
    if (read_position(pos, &t) < 0) return NULL;

    /* Rules._targets: columns by the key their top card accepts, and the empty ones. */
    unsigned char by_key[MAXKEY][MAXCOL * MAXWANTS], nby_key[MAXKEY];
    int empties[MAXCOL], nempty = 0;
    memset(nby_key, 0, sizeof nby_key);
    for (int j = 0; j < t.ncol; j++) {
        if (t.ncard[j] == 0) {
            empties[nempty++] = j;
            continue;
        }
        int top = t.cards[j][t.ncard[j] - 1];
        for (int w = 0; w < spec->nwants[top]; w++) {
            int key = spec->wants[top][w];
            by_key[key][nby_key[key]++] = (unsigned char)j;
        }
    }

    PyObject *moves = PyList_New(0);
    if (moves == NULL) return NULL;
    /* To the foundations: column tops, then the waste top. */
    for (int i = 0; i < t.ncol; i++) {
        if (t.ncard[i] && goes_home(spec, &t, t.cards[i][t.ncard[i] - 1]) &&
            append(moves, ITEM(spec->to_foundation, i)) < 0)
            goto fail;
    }
    if (t.waste_top >= 0 && goes_home(spec, &t, t.waste_top) &&
        append(moves, spec->waste_home) < 0)
        goto fail;
    /* From the waste onto the columns. */
    if (t.waste_top >= 0) {
        int card = t.waste_top, key = spec->key[card];
        for (int n = 0; n < nby_key[key]; n++) {
            if (append(moves, ITEM(spec->waste_moves, by_key[key][n])) < 0) goto fail;
        }
        if (nempty && spec->opens_empty[card]) {
            for (int n = 0; n < nempty; n++) {
                if (append(moves, ITEM(spec->waste_moves, empties[n])) < 0) goto fail;
            }
        }
    }
    /* Between columns: every part of each column's unit, smallest first. */
    for (int i = 0; i < t.ncol; i++) {
        if (t.ncard[i] == 0) continue;
        PyObject *from_here = ITEM(spec->column_moves, i);
        int unit = unit_length(spec, &t, i);
        for (int count = 1; count <= unit; count++) {
            int card = t.cards[i][t.ncard[i] - count], key = spec->key[card];
            for (int n = 0; n < nby_key[key]; n++) {
                int j = by_key[key][n];
                if (j != i && append(moves, ITEM(ITEM(from_here, j), count)) < 0) goto fail;
            }
            if (nempty && spec->opens_empty[card]) {
                for (int n = 0; n < nempty; n++) {
                    if (append(moves, ITEM(ITEM(from_here, empties[n]), count)) < 0) goto fail;
                }
            }
        }
    }
    /* Back from the foundations, where the variant allows it. */
    if (spec->give_back) {
        for (int s = 0; s < t.nfnd; s++) {
            if (t.fnd_size[s] == 0) continue;
            int card = t.fnd_top[s], key = spec->key[card];
            PyObject *from_pile = ITEM(spec->from_foundation, s);
            for (int n = 0; n < nby_key[key]; n++) {
                if (append(moves, ITEM(from_pile, by_key[key][n])) < 0) goto fail;
            }
            if (nempty && spec->opens_empty[card]) {
                for (int n = 0; n < nempty; n++) {
                    if (append(moves, ITEM(from_pile, empties[n])) < 0) goto fail;
                }
            }
        }
    }
    return moves;
fail:
    Py_DECREF(moves);
    return NULL;
}

/* Klondike's "no more moves" looks through the stock (Klondike._reachable_stock): each
 * card that becomes the waste top while the stock is cycled untouched, as far as the
 * pass limit allows. Whether one of them fits anywhere now (Klondike._playable_anywhere:
 * its foundation, a column whose top accepts it, or an empty column) is what
 * Klondike.interpreted_stock_playable answers in Python. */
static PyObject *legal_stock_playable(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *pos;
    int draw, passes;
    if (!PyArg_ParseTuple(args, "OOii", &capsule, &pos, &draw, &passes)) return NULL;
    Spec *spec = PyCapsule_GetPointer(capsule, SPEC_NAME);
    if (spec == NULL) return NULL;
    if (draw < 1 || passes < 0) {
        PyErr_SetString(PyExc_ValueError, "draw must be positive and passes not negative");
        return NULL;
    }
    Table t;
    if (read_position(pos, &t) < 0) return NULL;
    if (PyTuple_GET_SIZE(pos) <= POS_REDEALS) {
        PyErr_SetString(PyExc_TypeError, "expected an engine Position");
        return NULL;
    }
    PyObject *stock_cards = tuple_field(pos, POS_STOCK, "stock");
    PyObject *waste_cards = stock_cards ? tuple_field(pos, POS_WASTE, "waste") : NULL;
    if (waste_cards == NULL) return NULL;
    long redeals = PyLong_AsLong(PyTuple_GET_ITEM(pos, POS_REDEALS));
    if (redeals == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t ns = PyTuple_GET_SIZE(stock_cards), nw = PyTuple_GET_SIZE(waste_cards);
    if (ns + nw > NCARD) {
        PyErr_SetString(PyExc_ValueError, "stock and waste hold more than 52 cards");
        return NULL;
    }
    /* The stock and the waste as arrays, top card last, as the position keeps them. */
    int stock[NCARD], waste[NCARD];
    for (Py_ssize_t i = 0; i < ns; i++) {
        if ((stock[i] = card_of(PyTuple_GET_ITEM(stock_cards, i), "the stock")) < 0) return NULL;
    }
    for (Py_ssize_t i = 0; i < nw; i++) {
        if ((waste[i] = card_of(PyTuple_GET_ITEM(waste_cards, i), "the waste")) < 0) return NULL;
    }
    /* What the columns take now: the keys their tops accept, and whether one is empty. */
    unsigned char wanted[MAXKEY];
    int empty = 0;
    memset(wanted, 0, sizeof wanted);
    for (int j = 0; j < t.ncol; j++) {
        if (t.ncard[j] == 0) {
            empty = 1;
            continue;
        }
        int top = t.cards[j][t.ncard[j] - 1];
        for (int w = 0; w < spec->nwants[top]; w++) wanted[spec->wants[top][w]] = 1;
    }
    for (Py_ssize_t step = 0; step < 2 * (ns + nw) + 2; step++) {
        if (ns) {
            for (int k = 0; k < draw && ns; k++) waste[nw++] = stock[--ns];
            int card = waste[nw - 1];
            if (goes_home(spec, &t, card) || wanted[spec->key[card]] ||
                (empty && spec->opens_empty[card]))
                Py_RETURN_TRUE;
        } else if (nw && (passes == 0 || redeals < passes - 1)) {
            for (Py_ssize_t i = 0; i < nw; i++) stock[i] = waste[nw - 1 - i];
            ns = nw;
            nw = 0;
            redeals++;
        } else {
            break;
        }
    }
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"spec", (PyCFunction)(void (*)(void))legal_spec, METH_VARARGS | METH_KEYWORDS,
     "spec(key, wants, opens_empty, rank, suit, red, unit, home, give_back, column_moves,\n"
     "     to_foundation, waste_moves, waste_home, from_foundation) -> a variant's spec"},
    {"moves", legal_moves, METH_VARARGS,
     "moves(spec, position) -> the legal moves but the stock's, in the engine's order"},
    {"stock_playable", legal_stock_playable, METH_VARARGS,
     "stock_playable(spec, position, draw, passes) -> whether cycling the stock brings\n"
     "a card to the waste top that fits somewhere now (Klondike's no-more-moves check)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_legal", "The legal moves of a position, compiled.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__legal(void) { return PyModule_Create(&module); }
