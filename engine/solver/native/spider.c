/* The compiled Spider search (1, 2 and 4 suits), module engine.solver._spider.
 *
 * solve(tableau, down, stock, lifted, max_nodes, max_seconds)
 *     -> (verdict, [(source, target, size), ...], nodes)
 *
 * Two phases over one packed position (docs/solver.md, "Spider, compiled"):
 *
 * 1. Beam searches of growing width on an evaluation of the position (suited
 *    links built, face-down cards left, empty piles, runs lifted), deduplicated
 *    by a 64-bit hash of the canonical key. A beam drops positions, so this phase
 *    may only ever answer "won"; its wins are replayed by the engine anyway.
 * 2. A complete depth-first search with an exact transposition table (the whole
 *    canonical key is stored and compared), under the pruning rules the
 *    interpreted solver proves safe: once the stock is empty only the first empty
 *    pile is a target and a whole pile never moves to an empty one (rule 3), and
 *    the exact reverse of a move that turned nothing up and lifted nothing is not
 *    tried (rule 4). Only when this search runs out of positions is the answer
 *    "unwinnable"; a budget or memory that runs out answers "unknown".
 *
 * Moves and their effects mirror engine/spider.py exactly: a unit is the gapless
 * same-suit run on top and may be split anywhere; its bottom card goes onto a card
 * one rank higher (any suit) or onto an empty pile; a pile left with only face-down
 * cards turns its top one up; a complete King-to-Ace run on top of the target pile
 * (of every pile dealt to, after a deal) is lifted at once, as part of the move.
 * A deal needs every pile filled and puts stock[-1 - i] on pile i.
 *
 * All memory is allocated per call (at most MEM_CAP bytes) and freed before the
 * call returns; the search runs without the GIL and keeps no global state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 10
#define MAXC 112 /* a pile holds at most 104 cards */
#define MAXSTOCK 104
#define RUN 13
#define DEAL 255 /* Move.s of the deal */
#define MAXMOVES 1200
#define MEM_CAP ((size_t)1 << 30)
#define CLOCK_EVERY 1024
#define KEYMAX 192

typedef struct {
    uint8_t s, t, n;
} Move;

typedef struct {
    uint8_t len[NCOL];
    uint8_t down[NCOL];
    uint8_t stock;  /* cards left in the stock: stock_cards[0..stock) */
    uint8_t lifted; /* runs lifted off */
    uint8_t c[NCOL][MAXC];
} State;

/* What undoing a move needs: the card it turned up at the source and the runs it
 * lifted (pile, suit, whether the lift turned a card up). */
typedef struct {
    uint8_t turned, nl, dealt;
    uint8_t lcol[NCOL], lsuit[NCOL], lturn[NCOL];
} Undo;

typedef struct {
    uint8_t stock_cards[MAXSTOCK];
    State root;
    uint64_t nodes, max_nodes, phase_nodes;
    double deadline, phase_deadline;
    size_t mem;
    int stop;        /* 1 budget, 2 memory */
    int many_suits;  /* the cards left hold more than one suit */
    int stock_card;  /* the beam's weight of a card left in the stock */
} Ctx;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- memory, counted against MEM_CAP ---------------------------------------- */

static void *grow(Ctx *x, void *p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    if (x->mem - *cap * elem + n * elem > MEM_CAP) {
        x->stop = 2;
        return NULL;
    }
    void *q = realloc(p, n * elem);
    if (!q) {
        x->stop = 2;
        return NULL;
    }
    x->mem = x->mem - *cap * elem + n * elem;
    *cap = n;
    return q;
}

/* ---- cards and moves ------------------------------------------------------------ */

#define RANK(c) ((c) % 13) /* 0 Ace .. 12 King */
#define SUIT(c) ((c) / 13)
/* upper lies on lower and continues its suit (engine: column[k-1] == column[k] + 1
 * and the lower card is not an Ace, so no link crosses suits). */
#define LINKED(lower, upper) ((lower) == (upper) + 1 && RANK(lower) != 0)

static int unit_length(const State *st, int i) {
    int n = st->len[i], d = st->down[i];
    int k = n - 1;
    while (k > d && LINKED(st->c[i][k - 1], st->c[i][k])) k--;
    return n - k;
}

static void lift(State *st, int i, Undo *u) {
    int n = st->len[i], d = st->down[i];
    if (n - d < RUN) return;
    const uint8_t *col = st->c[i];
    uint8_t top = col[n - 1];
    if (RANK(top) != 0) return;
    for (int k = 1; k < RUN; k++)
        if (col[n - 1 - k] != top + k) return;
    st->len[i] = (uint8_t)(n - RUN);
    uint8_t turned = 0;
    if (st->len[i] > 0 && st->len[i] == d) {
        st->down[i] = (uint8_t)(d - 1);
        turned = 1;
    }
    u->lcol[u->nl] = (uint8_t)i;
    u->lsuit[u->nl] = (uint8_t)SUIT(top);
    u->lturn[u->nl] = turned;
    u->nl++;
    st->lifted++;
}

static void apply_move(const Ctx *x, State *st, Move m, Undo *u) {
    u->nl = 0;
    u->turned = 0;
    u->dealt = 0;
    if (m.s == DEAL) {
        int n = st->stock < NCOL ? st->stock : NCOL;
        for (int i = 0; i < n; i++) st->c[i][st->len[i]++] = x->stock_cards[st->stock - 1 - i];
        st->stock = (uint8_t)(st->stock - n);
        u->dealt = (uint8_t)n;
        for (int i = 0; i < n; i++) lift(st, i, u);
        return;
    }
    int s = m.s, t = m.t, n = m.n;
    memcpy(&st->c[t][st->len[t]], &st->c[s][st->len[s] - n], (size_t)n);
    st->len[t] = (uint8_t)(st->len[t] + n);
    st->len[s] = (uint8_t)(st->len[s] - n);
    if (st->len[s] > 0 && st->len[s] == st->down[s]) {
        st->down[s]--;
        u->turned = 1;
    }
    lift(st, t, u);
}

static void undo_move(State *st, Move m, const Undo *u) {
    for (int k = u->nl - 1; k >= 0; k--) {
        int i = u->lcol[k];
        if (u->lturn[k]) st->down[i]++;
        for (int r = RUN - 1; r >= 0; r--) st->c[i][st->len[i]++] = (uint8_t)(u->lsuit[k] * 13 + r);
        st->lifted--;
    }
    if (m.s == DEAL) {
        for (int i = 0; i < u->dealt; i++) st->len[i]--;
        st->stock = (uint8_t)(st->stock + u->dealt);
        return;
    }
    int s = m.s, t = m.t, n = m.n;
    if (u->turned) st->down[s]++;
    memcpy(&st->c[s][st->len[s]], &st->c[t][st->len[t] - n], (size_t)n);
    st->len[s] = (uint8_t)(st->len[s] + n);
    st->len[t] = (uint8_t)(st->len[t] - n);
}

static int is_won(const State *st) {
    if (st->stock) return 0;
    for (int i = 0; i < NCOL; i++)
        if (st->len[i]) return 0;
    return 1;
}

/* Priorities for the depth-first search's move order (higher first; order never
 * prunes): turn a card up, empty a pile, join a unit to its own suit, build, split
 * a suited run, lay a unit in an empty pile, deal. */
static int move_priority(const State *st, Move m) {
    if (m.s == DEAL) return -300;
    int s = m.s, t = m.t, n = m.n;
    int rest = st->len[s] - n;
    uint8_t u = st->c[s][rest];
    int p;
    if (rest == st->down[s])
        p = rest ? 400 + 10 * rest : 250;
    else if (LINKED(st->c[s][rest - 1], u))
        p = 20;
    else if (RANK(st->c[s][rest - 1]) == RANK(u) + 1)
        p = 60; /* lies on a card it follows off-suit */
    else
        p = 100;
    if (st->len[t] == 0)
        p -= 150;
    else if (SUIT(st->c[t][st->len[t] - 1]) == SUIT(u))
        p += 200 + n;
    return p;
}

/* Every move the search considers. Left out, only once the stock is empty (rule 3
 * of docs/solver.md: piles are then interchangeable, so these only rename piles):
 * a move to any empty pile but the first, and a whole pile into an empty one. */
static int gen_moves(const State *st, Move *out) {
    int k = 0;
    int first_empty = -1, can_deal = st->stock > 0;
    for (int j = 0; j < NCOL; j++)
        if (!st->len[j]) {
            can_deal = 0;
            if (first_empty < 0) first_empty = j;
        }
    for (int i = 0; i < NCOL; i++) {
        int n = st->len[i];
        if (!n) continue;
        int ul = unit_length(st, i);
        for (int cnt = 1; cnt <= ul; cnt++) {
            uint8_t u = st->c[i][n - cnt];
            int want = RANK(u) + 1;
            if (want <= 12)
                for (int j = 0; j < NCOL; j++)
                    if (j != i && st->len[j] && RANK(st->c[j][st->len[j] - 1]) == want)
                        out[k++] = (Move){(uint8_t)i, (uint8_t)j, (uint8_t)cnt};
            if (first_empty >= 0) {
                if (st->stock) {
                    for (int j = 0; j < NCOL; j++)
                        if (!st->len[j]) out[k++] = (Move){(uint8_t)i, (uint8_t)j, (uint8_t)cnt};
                } else if (cnt < n) {
                    out[k++] = (Move){(uint8_t)i, (uint8_t)first_empty, (uint8_t)cnt};
                }
            }
        }
    }
    if (can_deal) out[k++] = (Move){DEAL, DEAL, 1};
    return k;
}

/* ---- keys -------------------------------------------------------------------------- */

/* The canonical key: equal keys mean the same future. While cards are left in the
 * stock the piles keep their order (a deal reaches them by number): each pile is
 * (face-down count, face-up count, face-up cards), then the stock's count. With the
 * stock empty the piles are sorted, and a pile with face-down cards names the pile
 * it started as, whose bottom cards those are (cards only ever leave a pile's
 * face-down part by turning up, so they are the root's). Lifted runs are left out:
 * they hold exactly the cards found nowhere else. */
static int pack_key(const State *st, uint8_t *key) {
    if (st->stock) {
        int k = 0;
        for (int i = 0; i < NCOL; i++) {
            int d = st->down[i], up = st->len[i] - d;
            key[k++] = (uint8_t)d;
            key[k++] = (uint8_t)up;
            memcpy(key + k, st->c[i] + d, (size_t)up);
            k += up;
        }
        key[k++] = st->stock;
        return k;
    }
    uint8_t seg[NCOL][MAXC + 3];
    int sl[NCOL], order[NCOL];
    for (int i = 0; i < NCOL; i++) {
        int d = st->down[i], up = st->len[i] - d, k = 0;
        seg[i][k++] = (uint8_t)d;
        if (d) seg[i][k++] = (uint8_t)i;
        seg[i][k++] = (uint8_t)up;
        memcpy(seg[i] + k, st->c[i] + d, (size_t)up);
        sl[i] = k + up;
        order[i] = i;
    }
    for (int a = 1; a < NCOL; a++) {
        int v = order[a], b = a - 1;
        while (b >= 0) {
            int w = order[b];
            int m = sl[v] < sl[w] ? sl[v] : sl[w];
            int c = memcmp(seg[v], seg[w], (size_t)m);
            if (c > 0 || (c == 0 && sl[v] >= sl[w])) break;
            order[b + 1] = w;
            b--;
        }
        order[b + 1] = v;
    }
    int k = 0;
    for (int a = 0; a < NCOL; a++) {
        memcpy(key + k, seg[order[a]], (size_t)sl[order[a]]);
        k += sl[order[a]];
    }
    key[k++] = 0;
    return k;
}

static uint64_t hash_bytes(const uint8_t *p, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ (v * 0xBF58476D1CE4E5B9ull)) * 0x94D049BB133111EBull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t v = 0;
    memcpy(&v, p, (size_t)n);
    h = (h ^ (v * 0xBF58476D1CE4E5B9ull)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h ? h : 1;
}

/* The position in pile order, for the beam's layers: stock, lifted, then each
 * pile's face-down count, face-up count and face-up cards (the face-down ones are
 * the root's). */
static int pack_raw(const State *st, uint8_t *out) {
    int k = 0;
    out[k++] = st->stock;
    out[k++] = st->lifted;
    for (int i = 0; i < NCOL; i++) {
        int d = st->down[i], up = st->len[i] - d;
        out[k++] = (uint8_t)d;
        out[k++] = (uint8_t)up;
        memcpy(out + k, st->c[i] + d, (size_t)up);
        k += up;
    }
    return k;
}

static int unpack_raw(const Ctx *x, const uint8_t *in, State *st) {
    int k = 0;
    st->stock = in[k++];
    st->lifted = in[k++];
    for (int i = 0; i < NCOL; i++) {
        int d = in[k++], up = in[k++];
        memcpy(st->c[i], x->root.c[i], (size_t)d);
        memcpy(st->c[i] + d, in + k, (size_t)up);
        k += up;
        st->down[i] = (uint8_t)d;
        st->len[i] = (uint8_t)(d + up);
    }
    return k;
}

/* ---- budget -------------------------------------------------------------------------- */

/* Counts a position; true when the phase's or the call's budget is spent. */
static int count_node(Ctx *x) {
    x->nodes++;
    if (x->nodes >= x->max_nodes || x->nodes >= x->phase_nodes) {
        x->stop = x->stop ? x->stop : 1;
        return 1;
    }
    if ((x->nodes & (CLOCK_EVERY - 1)) == 0) {
        double t = now();
        if (t > x->deadline || t > x->phase_deadline) {
            x->stop = x->stop ? x->stop : 1;
            return 1;
        }
    }
    return 0;
}

/* ---- the answer ----------------------------------------------------------------------- */

typedef struct {
    Move *m;
    size_t n, cap;
} Path;

static int path_push(Ctx *x, Path *p, Move m) {
    Move *q = grow(x, p->m, &p->cap, p->n + 1, sizeof(Move));
    if (!q) return 0;
    p->m = q;
    p->m[p->n++] = m;
    return 1;
}

enum { UNKNOWN, WON, UNWINNABLE };

#include "spider_dfs.h"
#include "spider_beam.h"

/* ---- Python ------------------------------------------------------------------------- */

static int read_cards(PyObject *seq, uint8_t *out, int maxn, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > maxn) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many cards", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v > 51) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: %ld is not a card", what, v);
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *tableau, *down, *stock;
    int lifted;
    unsigned long long max_nodes;
    double max_seconds;
    if (!PyArg_ParseTuple(args, "OOOiKd", &tableau, &down, &stock, &lifted, &max_nodes,
                          &max_seconds))
        return NULL;
    Ctx *x = calloc(1, sizeof(Ctx));
    if (!x) return PyErr_NoMemory();
    State *st = &x->root;
    PyObject *cols = PySequence_Fast(tableau, "tableau");
    PyObject *downs = cols ? PySequence_Fast(down, "down") : NULL;
    if (!cols || !downs || PySequence_Fast_GET_SIZE(cols) != NCOL ||
        PySequence_Fast_GET_SIZE(downs) != NCOL) {
        Py_XDECREF(cols);
        Py_XDECREF(downs);
        free(x);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Spider has ten piles");
        return NULL;
    }
    int total = 0, bad = 0;
    for (int i = 0; i < NCOL && !bad; i++) {
        int n = read_cards(PySequence_Fast_GET_ITEM(cols, i), st->c[i], 104, "pile");
        long d = n < 0 ? -1 : PyLong_AsLong(PySequence_Fast_GET_ITEM(downs, i));
        if (n < 0 || (d == -1 && PyErr_Occurred())) {
            bad = 1;
            break;
        }
        if (d < 0 || (n > 0 && d >= n) || (n == 0 && d != 0)) {
            PyErr_SetString(PyExc_ValueError, "a pile's top card must be face up");
            bad = 1;
            break;
        }
        st->len[i] = (uint8_t)n;
        st->down[i] = (uint8_t)d;
        total += n;
    }
    Py_DECREF(cols);
    Py_DECREF(downs);
    int ns = bad ? -1 : read_cards(stock, x->stock_cards, MAXSTOCK, "stock");
    if (!bad && ns >= 0 && (total + ns > 104 || lifted < 0 || lifted > 8)) {
        PyErr_SetString(PyExc_ValueError, "more than 104 cards");
        ns = -1;
    }
    if (bad || ns < 0) {
        free(x);
        return NULL;
    }
    st->stock = (uint8_t)ns;
    st->lifted = (uint8_t)lifted;
    /* The beam weighs positions by how many suits are left in play (spider_beam.h). */
    int suit = -1;
    for (int i = 0; i < NCOL; i++)
        for (int k = 0; k < st->len[i]; k++) {
            if (suit >= 0 && SUIT(st->c[i][k]) != suit) x->many_suits = 1;
            suit = SUIT(st->c[i][k]);
        }
    for (int k = 0; k < ns; k++) {
        if (suit >= 0 && SUIT(x->stock_cards[k]) != suit) x->many_suits = 1;
        suit = SUIT(x->stock_cards[k]);
    }
    x->max_nodes = max_nodes ? max_nodes : 1;

    int verdict = UNKNOWN;
    Path path = {0};
    Py_BEGIN_ALLOW_THREADS;
    double began = now();
    x->deadline = began + max_seconds;
    x->nodes = 1;
    if (is_won(st)) {
        verdict = WON;
    } else if (x->nodes < x->max_nodes) {
        /* The beam gets most of the budget: nearly every decided deal is a win. */
        x->phase_nodes = (uint64_t)((double)x->max_nodes * BEAM_SHARE);
        x->phase_deadline = began + max_seconds * BEAM_SHARE;
        if (beam_phase(x, &path)) {
            verdict = WON;
        } else if (x->nodes < x->max_nodes && now() <= x->deadline) {
            x->stop = 0;
            path.n = 0;
            x->phase_nodes = x->max_nodes;
            x->phase_deadline = x->deadline;
            verdict = dfs_search(x, &x->root, x->max_nodes, &path);
        }
    }
    Py_END_ALLOW_THREADS;

    uint64_t nodes = x->nodes;
    PyObject *moves = PyList_New(0);
    for (size_t i = 0; moves && verdict == WON && i < path.n; i++) {
        Move m = path.m[i];
        PyObject *t = m.s == DEAL ? Py_BuildValue("(iii)", -3, -3, 1)
                                  : Py_BuildValue("(iii)", m.s, m.t, m.n);
        if (!t || PyList_Append(moves, t) < 0) {
            Py_XDECREF(t);
            Py_CLEAR(moves);
            break;
        }
        Py_DECREF(t);
    }
    free(path.m);
    free(x);
    if (!moves) return NULL;
    static const char *const words[] = {"unknown", "won", "unwinnable"};
    PyObject *answer = Py_BuildValue("(sOK)", words[verdict], moves, (unsigned long long)nodes);
    Py_DECREF(moves);
    return answer;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(tableau, down, stock, lifted, max_nodes, max_seconds) -> (verdict, moves, nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_spider", "The compiled Spider search (docs/solver.md).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__spider(void) { return PyModule_Create(&module); }
