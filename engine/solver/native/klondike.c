/* The compiled Klondike search (draw 1 and 3, any pass limit): engine.solver._klondike.
 *
 * The same search as the interpreted one (engine/solver/klondike.py and search.py):
 * depth-first over settled positions with an exact-key transposition table, the
 * stock as macro moves over the talon and its pointer, and the pruning rules of
 * docs/solver.md ("Pruning rules and why each keeps the search sound"), each one
 * cited where it is applied. Only the representation differs: a position is a
 * small struct copied per node, a key is a packed byte string compared in full.
 * New here, each proven where it is applied and in docs/solver.md ("The compiled
 * Klondike search"): safe talon cards home in draw 1 without a pass limit, positions
 * with a card that can never be lifted again left unexpanded as lost (rule 9), and a
 * greedy first phase whose only possible answer is a win; the greedy phase alone
 * postpones moves (rules 5 to 7), the full search does not.
 *
 * Everything a call uses lives in one Ctx on its stack and in memory it frees
 * before returning, so nothing is shared between calls; the search runs without
 * the GIL. The answer is (verdict, moves, nodes), the moves in the engine's codes
 * (engine/moves.py), which engine/solver/native.py replays through the engine.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 7
#define NCARD 52
#define NONE 0xFF
#define TALON_OK 0xFE /* as a focus's g: any talon move respects it (rule 6) */
#define WASTE (-1)
#define FOUNDATION (-2)
#define STOCK (-3)
#define FROM_FOUNDATION(k) (-10 - (k))
#define CLOCK_EVERY 4096 /* nodes between two looks at the clock */
#define MEMORY_CAP ((size_t)1 << 30) /* table, keys and stacks together */
#define MAX_KEY 128
#define CHUNK_BITS 24
#define CHUNK ((size_t)1 << CHUNK_BITS)

/* Priorities (x100 of engine/solver/tableau.py's): higher is tried first. */
#define P_HOME 600
#define P_TURN_UP 400
#define P_FROM_WASTE 300
#define P_EMPTY 200
#define P_BUILD 100
#define P_SWAP 50
#define P_GIVE_BACK 0

/* A card is suit * 13 + rank - 1 (engine/cards.py); suits clubs, diamonds, hearts,
 * spades. Looked up, not divided: these run for every candidate. */
#define RANKS 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
#define SUITS(k) k, k, k, k, k, k, k, k, k, k, k, k, k
static const uint8_t RANK[NCARD] = {RANKS, RANKS, RANKS, RANKS};
static const uint8_t SUIT[NCARD] = {SUITS(0), SUITS(1), SUITS(2), SUITS(3)};
static const uint8_t RED[NCARD] = {SUITS(0), SUITS(1), SUITS(1), SUITS(0)};
static inline int rank_of(int c) { return RANK[c]; }
static inline int suit_of(int c) { return SUIT[c]; }
static inline int red_of(int c) { return RED[c]; }
/* Whether `card` may lie on `top`: one rank lower, the other colour. */
static inline int fits(int card, int top) {
    return rank_of(top) == rank_of(card) + 1 && red_of(top) != red_of(card);
}

typedef struct {
    uint8_t col[NCOL][NCARD]; /* bottom card first */
    uint8_t len[NCOL];
    uint8_t down[NCOL];
    uint8_t talon[NCARD]; /* waste bottom to top, then stock top to bottom */
    uint8_t tlen, ptr, redeals;
    uint8_t home[4]; /* cards home per suit; foundation k holds suit k */
    uint64_t tbits;  /* which cards of the first talon are still in it */
} State;

/* A step of the search: a move with, for talon cards, the pointer it is played at. */
typedef struct {
    int8_t src, dst;
    uint8_t count, ptr, redeals, pad;
    uint16_t draws;
    int16_t prio;
} Cand;

typedef struct {
    State st;
    uint8_t focus[3]; /* z, t, g of docs/solver.md rules 5 and 6; z == NONE: none */
    uint8_t nlift;          /* rule 9: the order its cards left T, a child's first try */
    uint8_t lift[NCARD];
    uint32_t next, end; /* this frame's candidates in Ctx.cands */
} Frame;

typedef struct {
    int16_t *v;
    size_t n, cap;
} Moves;

typedef struct {
    int draw, passes, free_talon, talon_bytes;
    int use_locked; /* rule 9 (a test switches it off to compare) */
    int greedy; /* the first phase: progress moves only, may only ever answer won */
    uint8_t rootpos[NCARD]; /* each first-talon card's place in it */
    uint64_t *slots; /* open addressing: the hash's top 33 bits, then key offset + 1 */
    size_t mask, used;
    int shift; /* a key's first slot: its hash's top bits, 64 - shift of them */
    /* Keys, each a length byte and the bytes, in chunks that never move: an offset
     * is chunk * CHUNK + place. Chunks waste less than one doubling buffer. */
    uint8_t *chunks[MEMORY_CAP / CHUNK];
    size_t nchunks, alen; /* alen: bytes used in the last chunk */
    Frame *frames;
    size_t depth, fcap;
    Cand *cands;
    size_t ncand, ccap;
    size_t memory;
    long long nodes, max_nodes;
    double deadline;
    int out_of_memory;
} Ctx;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Grow a buffer within the memory cap; 0 when the cap or malloc says no. */
static int grow(Ctx *cx, void **buf, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 1;
    size_t fresh = *cap ? *cap : 1024;
    while (fresh < need) fresh *= 2;
    size_t extra = (fresh - *cap) * item;
    if (cx->memory + extra > MEMORY_CAP) return 0;
    void *p = realloc(*buf, fresh * item);
    if (!p) return 0;
    *buf = p;
    *cap = fresh;
    cx->memory += extra;
    return 1;
}

static int record(Ctx *cx, Moves *out, int src, int dst, int count) {
    if (!out) return 1;
    if (!grow(cx, (void **)&out->v, &out->cap, out->n + 3, sizeof(int16_t))) return 0;
    out->v[out->n++] = (int16_t)src;
    out->v[out->n++] = (int16_t)dst;
    out->v[out->n++] = (int16_t)count;
    return 1;
}

/* -- rules ---------------------------------------------------------------------- */

static const int PARTNER[4] = {3, 2, 1, 0};
static const int OPPOSITE[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};

/* docs/solver.md rule 1 (alternating colours): both foundations of the other colour
 * hold at least rank - 1 cards and the other one of its colour rank - 2. */
static int safe_home(const State *s, int c) {
    int need = rank_of(c) - 1, suit = suit_of(c);
    return s->home[OPPOSITE[suit][0]] >= need && s->home[OPPOSITE[suit][1]] >= need &&
           s->home[PARTNER[suit]] >= need - 1;
}

static int can_go_home(const State *s, int c) { return s->home[suit_of(c)] == rank_of(c) - 1; }

/* The run on top of column i: how many cards may move together. */
static int unit_length(const State *s, int i) {
    int n = s->len[i], k = n - 1;
    while (k > s->down[i] && fits(s->col[i][k], s->col[i][k - 1])) k--;
    return n - k;
}

static void take_from_column(State *s, int i, int count) {
    s->len[i] = (uint8_t)(s->len[i] - count);
    /* The card left face down turns up at once (rules.md). */
    if (s->len[i] && s->len[i] == s->down[i]) s->down[i]--;
}

static int take_talon_top(Ctx *cx, State *s) {
    int p = s->ptr - 1, c = s->talon[p];
    memmove(s->talon + p, s->talon + p + 1, (size_t)(s->tlen - p - 1));
    s->tlen--;
    s->ptr--;
    s->tbits &= ~((uint64_t)1 << cx->rootpos[c]);
    return c;
}

static int redeal_left(const Ctx *cx, int redeals) {
    return cx->passes == 0 || redeals < cx->passes - 1;
}

/* -- automatic moves ------------------------------------------------------------- */

/* Draw 1 without a pass limit: draw until talon card k is the waste top, on from the
 * pointer or round through a redeal; the draws are spelled out. */
static int bring_up(Ctx *cx, State *s, int k, Moves *out) {
    int draws = k >= s->ptr - 1 ? k + 1 - s->ptr : s->tlen - s->ptr + 1 + k + 1;
    for (int d = 0; d < draws; d++)
        if (!record(cx, out, STOCK, STOCK, 1)) return 0;
    s->ptr = (uint8_t)(k + 1);
    return 1;
}

/* Rule 1: safe column tops home, and in draw 1 without a pass limit any safe talon
 * card too: drawing brings it up at any time and changes nothing else, so the talon
 * without it still reaches every other card at any time, which is all the proof of
 * rule 1 asks of the talon (the interpreted search takes only the waste top). The
 * draws are spelled out. Returns the moves played, or -1 when recording ran out of
 * memory. */
static int settle(Ctx *cx, State *s, Moves *out) {
    int played = 0;
    for (;;) {
        int moved = 0;
        for (int i = 0; i < NCOL; i++) {
            if (!s->len[i]) continue;
            int c = s->col[i][s->len[i] - 1];
            if (can_go_home(s, c) && safe_home(s, c)) {
                take_from_column(s, i, 1);
                s->home[suit_of(c)]++;
                if (!record(cx, out, i, FOUNDATION, 1)) return -1;
                played++;
                moved = 1;
                break;
            }
        }
        if (moved) continue;
        if (!cx->free_talon) return played;
        int k = 0;
        while (k < s->tlen && !(can_go_home(s, s->talon[k]) && safe_home(s, s->talon[k]))) k++;
        if (k == s->tlen) return played;
        if (!bring_up(cx, s, k, out)) return -1;
        int c = take_talon_top(cx, s);
        s->home[suit_of(c)]++;
        if (!record(cx, out, WASTE, FOUNDATION, 1)) return -1;
        played++;
    }
}

/* Nothing face down, every column in order, and no talon (or, in draw 1 without a
 * pass limit, a talon that reaches any card at any time): the rest goes home by
 * itself, lowest rank first. The lowest card not home has its predecessor home;
 * in a column only lower cards can lie on it, so it is a column top, or it is in a
 * talon that brings it up. */
static int finished(const Ctx *cx, const State *s) {
    if (s->tlen && !cx->free_talon) return 0;
    for (int i = 0; i < NCOL; i++)
        if (s->down[i] || (s->len[i] && unit_length(s, i) != s->len[i])) return 0;
    return 1;
}

static int finish_moves(Ctx *cx, State *s, Moves *out) {
    for (int guard = 0; guard < NCARD; guard++) {
        int best = -1, best_rank = 14, from_talon = 0;
        for (int i = 0; i < NCOL; i++) {
            if (!s->len[i]) continue;
            int c = s->col[i][s->len[i] - 1];
            if (can_go_home(s, c) && rank_of(c) < best_rank) best = i, best_rank = rank_of(c);
        }
        for (int k = 0; k < s->tlen; k++) {
            int c = s->talon[k];
            if (can_go_home(s, c) && rank_of(c) < best_rank)
                best = k, best_rank = rank_of(c), from_talon = 1;
        }
        if (best < 0) return 1;
        int c;
        if (from_talon) {
            if (!bring_up(cx, s, best, out)) return 0;
            c = take_talon_top(cx, s);
        } else {
            c = s->col[best][s->len[best] - 1];
            take_from_column(s, best, 1);
        }
        s->home[suit_of(c)]++;
        if (!record(cx, out, from_talon ? WASTE : best, FOUNDATION, 1)) return 0;
    }
    return 1;
}

/* -- locked cards ------------------------------------------------------------------- */

/* Rule 9 (docs/solver.md, "Locked cards"): whether some card on the tableau can never
 * be lifted again (be the bottom card of a move: the card taken, with the run on it),
 * so never go home. T, the cards never lifted, starts as every card on the tableau
 * and shrinks to its greatest fixed point: a card leaves T once it has an exit that T
 * does not block. A card's cover is the card right on it; only lifting the cover
 * uncovers a card. Talon and foundation cards are never in T and count as free.
 * Sets of cards are bit masks over the card numbers. */
#define BIT(c) ((uint64_t)1 << (c))
#define SUIT_BITS(k) (((uint64_t)0x1FFF) << (13 * (k)))

typedef struct {
    int8_t cover[NCARD], below[NCARD]; /* the card right on it, right beneath it; -1 */
    uint64_t t;      /* T */
    uint64_t on;     /* on the tableau */
    uint64_t up;     /* uncovered: no cover, or its cover is out of T; off the tableau */
    uint64_t down;   /* face down */
    uint64_t free;   /* out of T and uncovered (off the tableau: always) */
    int left, empty_col;
    uint8_t queue[64], queued[NCARD];
    unsigned head, tail;
    uint8_t *order; /* the cards in the order they left T */
    int norder;
} Lock;

/* Whether a card of rank r and of the other colour than suit s, in the talon or on
 * a foundation, can come to the tableau: a King once a column can empty, another
 * card onto a card it fits (rank r + 1, the colour of s) that is uncovered, or that
 * is off the tableau and can come itself. Each step is one rank up, so it ends. */
static int comes(const Lock *L, int r, int s) {
    for (;; r++, s = OPPOSITE[s][0]) {
        if (r == 13) return L->empty_col;
        uint64_t q = BIT(s * 13 + r) | BIT(PARTNER[s] * 13 + r); /* rank r + 1 */
        if (L->up & q & L->on) return 1;
        if (!(q & ~L->on)) return 0;
    }
}

/* Whether card d of T has an exit that the current T does not block. Exits only open
 * as T shrinks, so taking d out of T whenever this holds, in any order, ends at the
 * same fixed point once no card of T has one. */
static inline __attribute__((always_inline)) int exit_open(const Lock *L, int d) {
    int r = rank_of(d);
    int uncovered = (L->up & BIT(d)) != 0;
    if ((L->down & BIT(d)) && !uncovered) return 0; /* it turns up only then */
    /* onto a card P it fits: P a top now, or P's cover can be lifted (both
     * "uncovered"); or P in the talon or on a foundation that can come to the
     * tableau (comes) */
    if (r < 13) {
        int s = suit_of(d);
        const int *opp = OPPOSITE[s];
        uint64_t parents = BIT(opp[0] * 13 + r) | BIT(opp[1] * 13 + r);
        if (L->up & parents & L->on) return 1;
        if ((parents & ~L->on) && comes(L, r + 1, s)) return 1;
    } else if (L->below[d] >= 0 && L->empty_col) {
        /* a King into an empty column; at the bottom already it would only rename
         * its column */
        return 1;
    }
    /* home: d on top, and every card of its suit below it home first, which a card
     * never lifted, or never uncovered, never is (cards home count as free)... */
    if (!uncovered) return 0;
    uint64_t lower = (BIT(d) - 1) & SUIT_BITS(suit_of(d));
    if (lower & ~L->free) return 0;
    /* ... nor while it lies beneath d with only cards of T between: nothing lifts d
     * off it before d itself goes */
    for (int x = L->below[d]; x >= 0; x = L->below[x]) {
        if (suit_of(x) == suit_of(d) && x < d) return 0;
        if (!(L->t & BIT(x))) break;
    }
    return 1;
}

static void lock_push(Lock *L, int c) {
    if ((L->t & BIT(c)) && !L->queued[c]) {
        L->queued[c] = 1;
        L->queue[L->tail++ & 63] = (uint8_t)c;
    }
}

/* x just became free: the only card of its suit whose way home may have opened is
 * the lowest one not free. */
static void lock_freed(Lock *L, int x) {
    L->free |= BIT(x);
    uint64_t rest = SUIT_BITS(suit_of(x)) & ~L->free;
    if (rest) lock_push(L, __builtin_ctzll(rest));
}

/* Take d out of T, and queue the cards whose exits that may open. */
static void lock_take(Lock *L, int d) {
    L->t &= ~BIT(d);
    L->left--;
    L->order[L->norder++] = (uint8_t)d;
    if (L->up & BIT(d)) lock_freed(L, d);
    int b = L->below[d];
    if (b >= 0) {
        L->up |= BIT(b); /* its cover is out of T now */
        lock_push(L, b);
        if (rank_of(b) > 1) { /* the cards that fit on b */
            const int *opp = OPPOSITE[suit_of(b)];
            lock_push(L, opp[0] * 13 + rank_of(b) - 2);
            lock_push(L, opp[1] * 13 + rank_of(b) - 2);
        }
        if (!(L->t & BIT(b))) lock_freed(L, b);
    } else if (!L->empty_col) { /* a bottom card: its column can empty */
        L->empty_col = 1;
        for (int k = 0; k < 4; k++) lock_push(L, k * 13 + 12);
    }
    /* the cards above d whose way down to a lower card of their suit passed d */
    for (int x = L->cover[d]; x >= 0 && (L->t & BIT(x)); x = L->cover[x]) lock_push(L, x);
}

/* `hint` (may be NULL): an order the cards left T in a position one move back. Tried
 * first, without the work list: most cards leave in the same order again. Any card
 * it cannot take yet is left to the work list and the passes. The order the cards
 * left T here is written to `order` (at most NCARD), its length to *norder. */
/* lock_take without queueing anything (a replayed order and the passes after it). */
static inline __attribute__((always_inline)) void lock_take_quiet(Lock *L, int d) {
    L->t &= ~BIT(d);
    L->left--;
    L->order[L->norder++] = (uint8_t)d;
    if (L->up & BIT(d)) L->free |= BIT(d);
    int b = L->below[d];
    if (b >= 0) {
        L->up |= BIT(b);
        if (!(L->t & BIT(b))) L->free |= BIT(b);
    } else {
        L->empty_col = 1;
    }
}

static int locked(const State *s, const uint8_t *hint, int nhint, uint8_t *order,
                  uint8_t *norder) {
    Lock L;
    L.order = order;
    L.norder = 0;
    memset(L.below, -1, sizeof L.below);
    L.on = L.down = 0;
    L.left = L.empty_col = 0;
    for (int i = 0; i < NCOL; i++) {
        L.empty_col |= !s->len[i];
        for (int p = 0; p < s->len[i]; p++) {
            int c = s->col[i][p];
            L.on |= BIT(c);
            L.below[c] = (int8_t)(p ? s->col[i][p - 1] : -1);
            if (p < s->down[i]) L.down |= BIT(c);
        }
        L.left += s->len[i];
    }
    /* uncovered: off the tableau, or a column's top */
    L.t = L.on;
    L.up = L.free = ~L.t;
    for (int i = 0; i < NCOL; i++)
        if (s->len[i]) L.up |= BIT(s->col[i][s->len[i] - 1]);
    if (hint) {
        /* The order of a position one move back, then plain passes over the columns
         * top down, again until a round takes nothing: then no card of T has an
         * open exit, which is the fixed point. */
        for (int changed = 1; changed && L.left;) {
            changed = 0;
            for (int k = 0; k < nhint && L.left; k++) {
                int d = hint[k];
                if ((L.t & BIT(d)) && exit_open(&L, d)) lock_take_quiet(&L, d), changed = 1;
            }
            for (int i = 0; i < NCOL && L.left; i++)
                for (int p = s->len[i] - 1; p >= 0; p--) {
                    int d = s->col[i][p];
                    if ((L.t & BIT(d)) && exit_open(&L, d)) lock_take_quiet(&L, d), changed = 1;
                }
        }
        *norder = (uint8_t)L.norder;
        return L.left > 0;
    }
    /* Without an order to follow: a work list of the cards whose exits may have
     * opened, tops first; then plain passes over every card of T, until one changes
     * nothing: a card the work list missed is taken then (every card taken had an
     * open exit). */
    memset(L.cover, -1, sizeof L.cover);
    memset(L.queued, 0, sizeof L.queued);
    L.head = L.tail = 0;
    for (int i = 0; i < NCOL; i++)
        for (int p = 0; p + 1 < s->len[i]; p++) L.cover[s->col[i][p]] = (int8_t)s->col[i][p + 1];
    for (int i = 0; i < NCOL; i++)
        for (int p = s->len[i] - 1; p >= 0; p--) lock_push(&L, s->col[i][p]);
    for (int changed = 1; changed && L.left;) {
        while (L.head != L.tail && L.left) {
            int d = L.queue[L.head++ & 63];
            L.queued[d] = 0;
            if ((L.t & BIT(d)) && exit_open(&L, d)) lock_take(&L, d);
        }
        changed = 0;
        for (int i = 0; i < NCOL && L.left; i++)
            for (int p = s->len[i] - 1; p >= 0; p--) {
                int d = s->col[i][p];
                if ((L.t & BIT(d)) && exit_open(&L, d)) {
                    lock_take(&L, d);
                    changed = 1;
                }
            }
    }
    *norder = (uint8_t)L.norder;
    return L.left > 0;
}

/* -- keys --------------------------------------------------------------------------- */

/* docs/solver.md "Keys": the talon (as the first talon's cards still in it) and a
 * canonical pointer, the columns as a set, no foundations, and the focus. Face-down
 * cards never move, so a column with some is named by its index and its count; the
 * columns without any are sorted, as renaming them changes nothing. */
static size_t make_key(const Ctx *cx, const State *s, const uint8_t focus[3], uint8_t *out) {
    uint8_t *p = out;
    int ptr = s->ptr;
    if (!cx->passes && (cx->free_talon || ptr % cx->draw == 0 || ptr == s->tlen)) ptr = NONE;
    *p++ = (uint8_t)ptr;
    *p++ = cx->passes ? s->redeals : 0;
    *p++ = focus[0];
    *p++ = focus[1];
    *p++ = focus[2];
    for (int b = 0; b < cx->talon_bytes; b++) *p++ = (uint8_t)(s->tbits >> (8 * b));
    int open[NCOL], nopen = 0;
    for (int i = 0; i < NCOL; i++) {
        if (!s->down[i]) {
            open[nopen++] = i;
            continue;
        }
        int up = s->len[i] - s->down[i];
        *p++ = (uint8_t)(i + 1);
        *p++ = s->down[i];
        *p++ = (uint8_t)up;
        memcpy(p, s->col[i] + s->down[i], (size_t)up);
        p += up;
    }
    for (int a = 1; a < nopen; a++) { /* insertion sort by (length, cards) */
        int x = open[a], b = a - 1;
        while (b >= 0) {
            int y = open[b];
            int cmp = s->len[y] != s->len[x] ? s->len[y] - s->len[x]
                                             : memcmp(s->col[y], s->col[x], s->len[x]);
            if (cmp <= 0) break;
            open[b + 1] = y;
            b--;
        }
        open[b + 1] = x;
    }
    for (int a = 0; a < nopen; a++) {
        int i = open[a];
        *p++ = 0;
        *p++ = s->len[i];
        memcpy(p, s->col[i], s->len[i]);
        p += s->len[i];
    }
    return (size_t)(p - out);
}

static uint64_t hash_key(const uint8_t *k, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, k, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
        k += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, k, n);
    h = (h ^ w) * 0x94D049BB133111EBULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 32);
}

/* Offsets stay below the memory cap (1 GiB), so 31 bits hold them; the slot keeps the
 * top 33 bits of the hash, and since a key's first slot is read from the top bits,
 * growing the table never has to hash a key again. */
#define OFFSET_BITS 31
#define OFFSET_MASK (((uint64_t)1 << OFFSET_BITS) - 1)
_Static_assert(MEMORY_CAP < ((size_t)1 << OFFSET_BITS), "a key offset + 1 fits in its bits");

static const uint8_t *key_at(const Ctx *cx, uint64_t e) {
    uint64_t off = (e & OFFSET_MASK) - 1;
    return cx->chunks[off >> CHUNK_BITS] + (off & (CHUNK - 1));
}

static int table_grow(Ctx *cx) {
    size_t size = cx->mask + 1, fresh = size * 2;
    if (cx->memory + fresh * sizeof(uint64_t) > MEMORY_CAP) return 0;
    uint64_t *slots = calloc(fresh, sizeof(uint64_t));
    if (!slots) return 0;
    cx->memory += fresh * sizeof(uint64_t);
    int shift = cx->shift - 1;
    for (size_t i = 0; i < size; i++) {
        uint64_t e = cx->slots[i];
        if (!e) continue;
        size_t j = (size_t)(e >> shift); /* the hash's top bits, kept in the slot */
        while (slots[j]) j = (j + 1) & (fresh - 1);
        slots[j] = e;
    }
    free(cx->slots);
    cx->memory -= size * sizeof(uint64_t);
    cx->slots = slots;
    cx->mask = fresh - 1;
    cx->shift = shift;
    return 1;
}

static int table_has(const Ctx *cx, const uint8_t *key, size_t n) {
    uint64_t h = hash_key(key, n), tag = h >> OFFSET_BITS;
    for (size_t j = (size_t)(h >> cx->shift);; j = (j + 1) & cx->mask) {
        uint64_t e = cx->slots[j];
        if (!e) return 0;
        if ((e >> OFFSET_BITS) == tag) {
            const uint8_t *k = key_at(cx, e);
            if (k[0] == n && memcmp(k + 1, key, n) == 0) return 1;
        }
    }
}

/* Store the key: 1 if it is new, 0 if it was there (compared in full), -1 when the
 * memory cap is reached (the search then answers unknown: nothing is evicted). */
static int table_add(Ctx *cx, const uint8_t *key, size_t n) {
    uint64_t h = hash_key(key, n), tag = h >> OFFSET_BITS;
    size_t j = (size_t)(h >> cx->shift);
    for (;;) {
        uint64_t e = cx->slots[j];
        if (!e) break;
        if ((e >> OFFSET_BITS) == tag) {
            const uint8_t *k = key_at(cx, e);
            if (k[0] == n && memcmp(k + 1, key, n) == 0) return 0;
        }
        j = (j + 1) & cx->mask;
    }
    if (!cx->nchunks || cx->alen + n + 1 > CHUNK) {
        if (cx->nchunks == MEMORY_CAP / CHUNK || cx->memory + CHUNK > MEMORY_CAP) return -1;
        uint8_t *chunk = malloc(CHUNK);
        if (!chunk) return -1;
        cx->chunks[cx->nchunks++] = chunk;
        cx->memory += CHUNK;
        cx->alen = 0;
    }
    uint8_t *at = cx->chunks[cx->nchunks - 1] + cx->alen;
    size_t off = (cx->nchunks - 1) * CHUNK + cx->alen;
    at[0] = (uint8_t)n;
    memcpy(at + 1, key, n);
    cx->alen += n + 1;
    cx->slots[j] = tag << OFFSET_BITS | (uint64_t)(off + 1);
    cx->used++;
    if (cx->used * 2 > cx->mask && !table_grow(cx)) return -1;
    return 1;
}

/* -- steps ------------------------------------------------------------------------- */

/* The safe moves home after a step; a step followed by any leaves no focus (they
 * can only have used the card it uncovered). Only the greedy phase keeps a focus at
 * all: rules 5 and 6 are its heuristics there, and the full search, whose "lost"
 * must rest on proven rules alone, searches every move (docs/solver.md, rule 5).
 * 0 when recording ran out of memory. */
static int settle_and_clear(Ctx *cx, State *s, uint8_t focus[3], Moves *out) {
    int played = settle(cx, s, out);
    if (played > 0 || !cx->greedy) focus[0] = focus[1] = focus[2] = NONE;
    return played >= 0;
}

/* Play a step on s (draws spelled out, then the move, then the safe moves home) and
 * set the focus it leaves (docs/solver.md rule 5). 0 when recording ran out of memory. */
static int play(Ctx *cx, State *s, const Cand *m, uint8_t focus[3], Moves *out) {
    focus[0] = focus[1] = focus[2] = NONE;
    int dst = m->dst, card;
    uint8_t t = dst >= 0 && s->len[dst] ? s->col[dst][s->len[dst] - 1] : NONE;
    if (m->src == WASTE) {
        for (int d = 0; d < m->draws; d++)
            if (!record(cx, out, STOCK, STOCK, 1)) return 0;
        s->ptr = m->ptr;
        s->redeals = m->redeals;
        card = take_talon_top(cx, s);
        /* Draw 1 without a pass limit: the card could have waited in the talon
         * (rule 5). Otherwise it could have waited while no other talon card is
         * played, so the next move uses it or plays from the talon (rule 6). */
        if (dst >= 0) {
            focus[0] = (uint8_t)card;
            if (!cx->free_talon) focus[2] = TALON_OK;
        }
    } else if (m->src >= 0) {
        int i = m->src, rest = s->len[i] - m->count;
        if (dst >= 0 && rest > s->down[i]) {
            focus[0] = s->col[i][rest - 1];
            focus[1] = t;
        }
        if (dst >= 0) {
            memcpy(s->col[dst] + s->len[dst], s->col[i] + rest, m->count);
            s->len[dst] = (uint8_t)(s->len[dst] + m->count);
            take_from_column(s, i, m->count);
            return record(cx, out, m->src, dst, m->count) && settle_and_clear(cx, s, focus, out);
        }
        card = s->col[i][rest];
        take_from_column(s, i, 1);
    } else {
        int k = FROM_FOUNDATION(0) - m->src;
        s->home[k]--;
        card = k * 13 + s->home[k];
        focus[0] = (uint8_t)card;
        focus[1] = t;
        focus[2] = s->home[k] ? (uint8_t)(card - 1) : NONE;
    }
    if (dst == FOUNDATION) {
        s->home[suit_of(card)]++;
    } else {
        s->col[dst][s->len[dst]++] = (uint8_t)card;
    }
    if (!record(cx, out, m->src, dst, m->count)) return 0;
    return settle_and_clear(cx, s, focus, out);
}

/* -- candidates ---------------------------------------------------------------------- */

/* Rule 5: whether a move uses the focus (z, t, g): it puts a card on z, moves a stack
 * holding z or t, or brings g back from its foundation. */
static int respects(const State *s, int src, int dst, int count, const uint8_t f[3]) {
    if (dst >= 0 && s->len[dst] && s->col[dst][s->len[dst] - 1] == f[0]) return 1;
    if (src >= 0) {
        for (int k = s->len[src] - count; k < s->len[src]; k++)
            if (s->col[src][k] == f[0] || s->col[src][k] == f[1]) return 1;
        return 0;
    }
    if (src <= FROM_FOUNDATION(0)) {
        int k = FROM_FOUNDATION(0) - src;
        return s->home[k] && k * 13 + s->home[k] - 1 == f[2];
    }
    return 0;
}

/* Room for one position's candidates, made before generating them: at most 7 tops
 * home, 7 columns x 13 run lengths x 3 targets, 4 x 3 cards back, 52 talon places x 4. */
#define MAX_CANDS 512

static int add(Ctx *cx, int src, int dst, int count, int prio, int ptr, int redeals, int draws) {
    Cand *c = &cx->cands[cx->ncand++];
    c->src = (int8_t)src;
    c->dst = (int8_t)dst;
    c->count = (uint8_t)count;
    c->ptr = (uint8_t)ptr;
    c->redeals = (uint8_t)redeals;
    c->pad = 0;
    c->draws = (uint16_t)draws;
    c->prio = (int16_t)prio;
    return 1;
}

#define ADD(src, dst, count, prio)                                                      \
    do {                                                                                \
        if ((!focused || respects(s, src, dst, count, fo)) &&                          \
            !add(cx, src, dst, count, prio, 0, 0, 0))                                   \
            return 0;                                                                   \
    } while (0)

/* The columns (at most two, in order) whose top card `card` fits on; on[c] is the
 * column whose top card is c, or -1. */
static int targets(const int8_t *on, int card, int to[2]) {
    int r = rank_of(card), n = 0;
    if (r == 13) return 0;
    const int *opp = OPPOSITE[suit_of(card)];
    int a = on[opp[0] * 13 + r], b = on[opp[1] * 13 + r];
    if (a >= 0 && b >= 0 && b < a) {
        int x = a;
        a = b;
        b = x;
    }
    if (a >= 0) to[n++] = a;
    if (b >= 0) to[n++] = b;
    return n;
}

/* One talon card the stock can bring up: each place it can go (a macro move). */
static int talon_places(Ctx *cx, const State *s, const int8_t *on, const uint8_t fo[3],
                        int empty, int ptr, int draws, int redeals) {
    int card = s->talon[ptr - 1], focused = fo[0] != NONE && fo[2] != TALON_OK;
    /* Under a focus only a card put on z uses it. */
    if (!focused && can_go_home(s, card) &&
        !add(cx, WASTE, FOUNDATION, 1, P_HOME - draws, ptr, redeals, draws))
        return 0;
    int to[2], n = targets(on, card, to);
    for (int a = 0; a < n; a++)
        if ((!focused || s->col[to[a]][s->len[to[a]] - 1] == fo[0]) &&
            !add(cx, WASTE, to[a], 1, P_FROM_WASTE - draws, ptr, redeals, draws))
            return 0;
    if (!focused && empty >= 0 && rank_of(card) == 13 &&
        !add(cx, WASTE, empty, 1, P_FROM_WASTE - draws, ptr, redeals, draws))
        return 0;
    return 1;
}

/* The steps worth trying from a frame's settled position, most promising first.
 * Never generated: a safe card back from its foundation or an Ace (rule 2), a move to
 * an empty column but the first (rule 3), a whole column to an empty one (rule 3),
 * moves that do not use the focus (rule 5). Ordering never prunes. */
static int generate(Ctx *cx, Frame *f) {
    const State *s = &f->st;
    const uint8_t *fo = f->focus;
    int focused = fo[0] != NONE, empty = -1;
    size_t begin = cx->ncand;
    if (!grow(cx, (void **)&cx->cands, &cx->ccap, begin + MAX_CANDS, sizeof(Cand))) return 0;
    int8_t on[NCARD];
    memset(on, -1, sizeof on);
    for (int i = NCOL - 1; i >= 0; i--) {
        if (s->len[i])
            on[s->col[i][s->len[i] - 1]] = (int8_t)i;
        else
            empty = i;
    }
    for (int i = 0; i < NCOL; i++) { /* tops home that are not safe enough to go alone */
        if (!s->len[i]) continue;
        int c = s->col[i][s->len[i] - 1];
        if (can_go_home(s, c) && !safe_home(s, c)) ADD(i, FOUNDATION, 1, P_HOME);
    }
    for (int i = 0; i < NCOL; i++) {
        int n = s->len[i], d = s->down[i];
        if (!n) continue;
        int units = unit_length(s, i);
        for (int count = 1; count <= units; count++) {
            int card = s->col[i][n - count], rest = n - count, prio;
            /* The greedy phase moves a run only to turn a card up, empty a column
             * or free the card beneath for its foundation. */
            if (cx->greedy && rest != d && !can_go_home(s, s->col[i][rest - 1])) continue;
            if (rest == d)
                prio = d ? P_TURN_UP + 10 * d : P_EMPTY;
            else if (fits(card, s->col[i][rest - 1]))
                prio = P_SWAP;
            else
                prio = P_BUILD;
            int to[2], nto = targets(on, card, to);
            for (int a = 0; a < nto; a++) ADD(i, to[a], count, prio);
            if (empty >= 0 && rest && rank_of(card) == 13) ADD(i, empty, count, prio);
        }
    }
    for (int k = 0; k < 4; k++) {
        if (s->home[k] < 2) continue; /* nothing, or an Ace: nothing builds on it */
        int card = k * 13 + s->home[k] - 1;
        /* No safe rule reads the card's own suit: judged the same home or back. */
        if (safe_home(s, card)) continue;
        int to[2], nto = targets(on, card, to);
        for (int a = 0; a < nto; a++) ADD(FROM_FOUNDATION(k), to[a], 1, P_GIVE_BACK);
        if (empty >= 0 && rank_of(card) == 13) ADD(FROM_FOUNDATION(k), empty, 1, P_GIVE_BACK);
    }
    /* Each pointer the stock can bring the talon to, first time only: the same pointer
     * again, with no fewer redeals used, shows nothing new. */
    int size = s->tlen, ptr = s->ptr, redeals = s->redeals, draws = 0;
    uint8_t seen[NCARD + 1] = {0};
    seen[ptr] = 1;
    if (ptr && !talon_places(cx, s, on, fo, empty, ptr, 0, redeals)) return 0;
    for (;;) {
        if (ptr < size) {
            ptr += size - ptr < cx->draw ? size - ptr : cx->draw;
        } else if (ptr && redeal_left(cx, redeals)) {
            ptr = 0;
            if (cx->passes) redeals++;
        } else {
            break;
        }
        draws++;
        if (seen[ptr]) break;
        seen[ptr] = 1;
        if (ptr && !talon_places(cx, s, on, fo, empty, ptr, draws, redeals)) return 0;
    }
    Cand *c = cx->cands;
    for (size_t a = begin + 1; a < cx->ncand; a++) { /* stable, best first */
        Cand x = c[a];
        size_t b = a;
        while (b > begin && c[b - 1].prio < x.prio) {
            c[b] = c[b - 1];
            b--;
        }
        c[b] = x;
    }
    f->next = (uint32_t)begin;
    f->end = (uint32_t)cx->ncand;
    return 1;
}

/* -- the search ------------------------------------------------------------------------ */

static int push(Ctx *cx, const State *s, const uint8_t focus[3]) {
    if (!grow(cx, (void **)&cx->frames, &cx->fcap, cx->depth + 1, sizeof(Frame))) return 0;
    Frame *f = &cx->frames[cx->depth++];
    f->st = *s;
    memcpy(f->focus, focus, 3);
    return generate(cx, f);
}

/* The engine moves of the line on the stack, replayed from the start. */
static int spell_out(Ctx *cx, const State *start, Moves *out) {
    State s = *start;
    uint8_t focus[3];
    if (settle(cx, &s, out) < 0) return 0;
    for (size_t d = 0; d < cx->depth; d++)
        if (!play(cx, &s, &cx->cands[cx->frames[d].next - 1], focus, out)) return 0;
    return finish_moves(cx, &s, out);
}

typedef enum { WON, UNWINNABLE, UNKNOWN } Verdict;

/* Depth-first from the start until a win, exhaustion (unwinnable: every rule used is
 * proven safe) or the budget's end (unknown). */
static Verdict search(Ctx *cx, const State *start, Moves *out) {
    static const uint8_t no_focus[3] = {NONE, NONE, NONE};
    uint8_t key[MAX_KEY];
    State root = *start;
    settle(cx, &root, NULL);
    cx->nodes = 1;
    if (finished(cx, &root)) return spell_out(cx, start, out) ? WON : UNKNOWN;
    uint8_t lift[NCARD], nlift = 0;
    if (cx->use_locked && locked(&root, NULL, 0, lift, &nlift)) return UNWINNABLE;
    if (table_add(cx, key, make_key(cx, &root, no_focus, key)) < 0) return UNKNOWN;
    if (!push(cx, &root, no_focus)) return UNKNOWN;
    cx->frames[0].nlift = nlift;
    memcpy(cx->frames[0].lift, lift, nlift);
    while (cx->depth) {
        Frame *f = &cx->frames[cx->depth - 1];
        if (f->next == f->end) {
            /* A child's candidates follow its parent's. */
            cx->depth--;
            if (cx->depth) cx->ncand = cx->frames[cx->depth - 1].end;
            continue;
        }
        /* The child is played straight into the next frame: kept if it is new. */
        if (!grow(cx, (void **)&cx->frames, &cx->fcap, cx->depth + 1, sizeof(Frame)))
            return UNKNOWN;
        f = &cx->frames[cx->depth - 1];
        Frame *c = &cx->frames[cx->depth];
        c->st = f->st;
        play(cx, &c->st, &cx->cands[f->next++], c->focus, NULL);
        size_t klen = make_key(cx, &c->st, c->focus, key);
        if (c->focus[0] != NONE) {
            /* Rule 7: the same position without a focus allows every move this one
             * does, and each leads to the same child (a child's focus depends only
             * on the position and the move): if it is in the table already, this
             * one adds nothing. */
            key[2] = key[3] = key[4] = NONE;
            int known = table_has(cx, key, klen);
            memcpy(key + 2, c->focus, 3);
            if (known) continue;
        }
        int fresh = table_add(cx, key, klen);
        if (fresh < 0) return UNKNOWN;
        if (!fresh) continue;
        cx->nodes++;
        if (finished(cx, &c->st)) return spell_out(cx, start, out) ? WON : UNKNOWN;
        cx->depth++;
        if (cx->nodes >= cx->max_nodes) return UNKNOWN;
        if (cx->nodes % CLOCK_EVERY == 0 && now() > cx->deadline) return UNKNOWN;
        if (cx->use_locked && locked(&c->st, f->lift, f->nlift, c->lift, &c->nlift)) {
            cx->depth--; /* rule 9: lost, not expanded */
            continue;
        }
        if (!generate(cx, c)) return UNKNOWN;
    }
    return UNWINNABLE;
}

/* A fresh table and stacks for one phase of the search. */
static int begin(Ctx *cx) {
    cx->mask = ((size_t)1 << 16) - 1;
    cx->shift = 64 - 16;
    cx->slots = calloc(cx->mask + 1, sizeof(uint64_t));
    cx->memory = cx->slots ? (cx->mask + 1) * sizeof(uint64_t) : 0;
    cx->used = cx->alen = cx->depth = cx->ncand = 0;
    cx->nodes = 0;
    return cx->slots != NULL;
}

static void release(Ctx *cx) {
    free(cx->slots);
    for (size_t k = 0; k < cx->nchunks; k++) free(cx->chunks[k]);
    cx->nchunks = 0;
    free(cx->frames);
    free(cx->cands);
    cx->slots = NULL;
    cx->frames = NULL;
    cx->cands = NULL;
    cx->fcap = cx->ccap = 0;
    cx->memory = 0;
}

/* -- Python ------------------------------------------------------------------------------ */

/* The layout: per column its length, face-down count and cards (bottom first); the
 * talon's length, cards (waste bottom to top, then stock top to bottom) and pointer;
 * the four foundation heights (foundation k holds suit k). */
static int unpack(const uint8_t *b, Py_ssize_t n, State *s) {
    Py_ssize_t at = 0;
    uint8_t where[NCARD] = {0};
    memset(s, 0, sizeof *s);
#define NEXT() (at < n ? b[at++] : 0xFF)
    for (int i = 0; i < NCOL; i++) {
        int len = NEXT(), down = NEXT();
        if (len > NCARD || down >= (len ? len : 1)) return 0;
        s->len[i] = (uint8_t)len;
        s->down[i] = (uint8_t)down;
        for (int k = 0; k < len; k++) {
            int c = NEXT();
            if (c >= NCARD || where[c]++) return 0;
            s->col[i][k] = (uint8_t)c;
        }
    }
    int tlen = NEXT();
    if (tlen > NCARD) return 0;
    s->tlen = (uint8_t)tlen;
    for (int k = 0; k < tlen; k++) {
        int c = NEXT();
        if (c >= NCARD || where[c]++) return 0;
        s->talon[k] = (uint8_t)c;
    }
    int ptr = NEXT();
    if (ptr > tlen) return 0;
    s->ptr = (uint8_t)ptr;
    for (int k = 0; k < 4; k++) {
        int h = NEXT();
        if (h > 13) return 0;
        s->home[k] = (uint8_t)h;
        for (int r = 0; r < h; r++)
            if (where[k * 13 + r]++) return 0;
    }
#undef NEXT
    if (at != n) return 0;
    for (int c = 0; c < NCARD; c++)
        if (where[c] != 1) return 0;
    return 1;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    (void)self;
    const uint8_t *layout;
    Py_ssize_t n;
    int draw, passes, redeals, use_locked = 1;
    long long max_nodes;
    double max_seconds;
    if (!PyArg_ParseTuple(args, "y#iiiLd|p", &layout, &n, &draw, &passes, &redeals, &max_nodes,
                          &max_seconds, &use_locked))
        return NULL;
    State start;
    if (!unpack(layout, n, &start) || draw < 1 || draw > NCARD || passes < 0 || passes > 255 ||
        redeals < 0 || redeals > 255) {
        PyErr_SetString(PyExc_ValueError, "not a Klondike position the search can read");
        return NULL;
    }
    Ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.draw = draw;
    cx.passes = passes;
    cx.free_talon = draw == 1 && passes == 0;
    cx.use_locked = use_locked;
    start.redeals = (uint8_t)(passes ? redeals : 0);
    for (int k = 0; k < start.tlen; k++) cx.rootpos[start.talon[k]] = (uint8_t)k;
    start.tbits = ((uint64_t)1 << start.tlen) - 1; /* tlen <= 52 */
    cx.talon_bytes = (start.tlen + 7) / 8;
    Moves out = {NULL, 0, 0};
    Verdict verdict = UNKNOWN;
    long long searched = 0;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    double began = now();
    /* First a greedy search with three quarters of the budget: almost every won deal
     * falls to it, and on lost deals it runs out of moves early.
     * Running out of moves there proves nothing, so only its win counts; the full
     * search takes the rest of the budget (as the interpreted Spider search does). */
    if (max_nodes >= 4) {
        cx.greedy = 1;
        cx.max_nodes = max_nodes / 4 * 3;
        cx.deadline = began + max_seconds * 0.75;
        ok = begin(&cx);
        if (ok) verdict = search(&cx, &start, &out);
        if (verdict != WON) verdict = UNKNOWN;
        searched += cx.nodes;
        release(&cx);
    }
    if (ok && verdict != WON && max_nodes - searched >= 2) {
        cx.greedy = 0;
        cx.max_nodes = max_nodes - searched;
        cx.deadline = began + max_seconds;
        ok = begin(&cx);
        if (ok) verdict = search(&cx, &start, &out);
        searched += cx.nodes;
        release(&cx);
    }
    Py_END_ALLOW_THREADS
    if (!ok) {
        free(out.v);
        return PyErr_NoMemory();
    }
    static const char *const words[] = {"won", "unwinnable", "unknown"};
    PyObject *moves = PyList_New(0);
    if (moves && verdict == WON) {
        for (size_t k = 0; k + 3 <= out.n; k += 3) {
            PyObject *m = Py_BuildValue("(iii)", out.v[k], out.v[k + 1], out.v[k + 2]);
            if (!m || PyList_Append(moves, m) < 0) {
                Py_XDECREF(m);
                Py_CLEAR(moves);
                break;
            }
            Py_DECREF(m);
        }
    }
    free(out.v);
    if (!moves) return NULL;
    return Py_BuildValue("(sNL)", words[verdict], moves, searched);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(layout, draw, passes, redeals, max_nodes, max_seconds, locked=True) -> (verdict, "
     "moves, nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_klondike", "The compiled Klondike search (docs/solver.md).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__klondike(void) { return PyModule_Create(&module); }
