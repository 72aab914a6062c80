/* The compiled search for Yukon, Russian Solitaire and Alaska (engine.solver._yukon).
 *
 * The same search as engine/solver/yukon.py, with the same pruning rules, whose
 * proofs are in docs/solver.md ("Pruning rules and why each keeps the search
 * sound"): safe moves home (rule 1), never a safe card or an Ace back from a
 * foundation (rule 2), only the first empty column as a target and never a whole
 * column into an empty one (rule 3). Rule 4 (skip the reverse of the last move) is
 * left to the table: the reverse leads back to the parent, whose key is stored.
 * One rule is new, "Locked cards" (its proof is in docs/solver.md too): a position
 * where some card can never move again is lost, and is not searched further.
 *
 * Depth-first over positions with an exact-key transposition table: a key is the
 * packed canonical position, compared in full, never a hash alone. Bounded memory:
 * when the table, the key arena and the path together would pass max_bytes, the
 * answer is "unknown", never a guess. The GIL is released during the search; all
 * state lives in one Search struct freed before the call returns.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 7
#define NFND 4
#define NCARD 52
#define TARGET_HOME 7 /* internal move target: the card's foundation */
#define FROM_HOME 8   /* internal move source 8 + suit: that suit's foundation top */
#define CLOCK_EVERY 4096

enum { YUKON, RUSSIAN, ALASKA };
enum { WON, UNWINNABLE, UNKNOWN };

/* Move priorities, higher first, as in engine/solver/tableau.py. Ordering never prunes. */
enum { P_GIVE_BACK = 0, P_SWAP = 5, P_BUILD = 10, P_EMPTY = 20, P_TURN_UP = 40, P_HOME = 60 };

static inline int rank_of(int c) { return c % 13 + 1; } /* 1 Ace .. 13 King */
static inline int suit_of(int c) { return c / 13; }     /* clubs, diamonds, hearts, spades */
static inline int red_of(int c) { return suit_of(c) == 1 || suit_of(c) == 2; }

typedef struct {
    uint8_t len[NCOL];
    uint8_t down[NCOL];
    uint8_t home[4];     /* cards home per suit */
    int8_t suit_slot[4]; /* the foundation a suit's Ace took, -1: none yet */
    uint8_t cards[NCOL][NCARD];
} Board;

typedef struct { /* a candidate, internal codes */
    uint8_t src, dst, n, prio;
} Cand;

typedef struct { /* an engine move: Move(source, target, size) */
    int8_t src, dst;
    uint8_t n;
} EMove;

typedef struct {
    Board b;
    uint32_t mfirst, mcount, mnext; /* candidates in Search.cands */
    uint32_t efirst, ecount;        /* engine moves that led here, in Search.emoves */
} Frame;

typedef struct {
    int variant;
    int use_locked, use_probes;
    uint64_t rng; /* a probe's random tie-breaking in the move order; 0: none */
    uint8_t parents[NCARD][2], nparents[NCARD];   /* the cards a card may be put on */
    uint8_t children[NCARD][2], nchildren[NCARD]; /* the cards that may be put on one */
    uint8_t fits[NCARD][NCARD]; /* fits[top][card]: card may be put on top */
    /* transposition table: entry = tag(24) | words-1 (3) | arena offset + 1 (37) */
    uint64_t *table;
    size_t cap, count;
    uint64_t *arena;
    size_t arena_len, arena_cap;
    Frame *frames;
    size_t depth, frames_cap;
    Cand *cands;
    size_t ncands, cands_cap;
    EMove *emoves;
    size_t nemoves, emoves_cap;
    size_t bytes, max_bytes;
    int full; /* memory bound reached */
} Search;

/* ---- rules ------------------------------------------------------------------ */

static void fill_fits(Search *s) {
    for (int t = 0; t < NCARD; t++)
        for (int c = 0; c < NCARD; c++) {
            int ok;
            if (s->variant == YUKON)
                ok = rank_of(t) == rank_of(c) + 1 && red_of(t) != red_of(c);
            else if (s->variant == RUSSIAN)
                ok = suit_of(t) == suit_of(c) && rank_of(t) == rank_of(c) + 1;
            else
                ok = suit_of(t) == suit_of(c) &&
                     (rank_of(t) == rank_of(c) + 1 || rank_of(t) + 1 == rank_of(c));
            s->fits[t][c] = (uint8_t)ok;
            if (ok) {
                s->parents[c][s->nparents[c]++] = (uint8_t)t;
                s->children[t][s->nchildren[t]++] = (uint8_t)c;
            }
        }
}

/* Columns are finished when ordered as they are built, descending (engine's
 * Yukon.in_order, the same for Russian and Alaska: down in suit). */
static inline int in_order(int variant, int lower, int upper) {
    if (variant == YUKON)
        return rank_of(lower) == rank_of(upper) + 1 && red_of(lower) != red_of(upper);
    return lower == upper + 1 && suit_of(lower) == suit_of(upper);
}

/* Rule 1 of docs/solver.md: may `c`, next on its foundation, go home unasked? */
static int safe_home(int variant, const uint8_t *home, int c) {
    static const int partner[4] = {3, 2, 1, 0};
    static const int opposite[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};
    if (variant == RUSSIAN) return 1;
    if (variant == ALASKA) return rank_of(c) == 13;
    int need = rank_of(c) - 1, su = suit_of(c);
    return home[opposite[su][0]] >= need && home[opposite[su][1]] >= need &&
           home[partner[su]] >= need - 1;
}

static inline int can_go_home(const Board *b, int c) { return b->home[suit_of(c)] == rank_of(c) - 1; }

/* ---- memory ------------------------------------------------------------------ */

/* Double the array at *buf (*cap items of `item` bytes; `first` items when empty)
 * within max_bytes. 0, and the search marked full (it answers unknown), when the cap
 * or malloc says no; the array is then left as it was. */
static int grow(Search *s, void **buf, size_t *cap, size_t item, size_t first) {
    size_t fresh = *cap ? *cap * 2 : first;
    size_t more = (fresh - *cap) * item;
    if (s->bytes + more > s->max_bytes) return s->full = 1, 0;
    void *p = realloc(*buf, fresh * item);
    if (!p) return s->full = 1, 0;
    *buf = p;
    *cap = fresh;
    s->bytes += more;
    return 1;
}

/* ---- playing ---------------------------------------------------------------- */

static int push_emove(Search *s, int src, int dst, int n) {
    if (s->nemoves == s->emoves_cap) {
        void *buf = s->emoves;
        if (!grow(s, &buf, &s->emoves_cap, sizeof *s->emoves, 1024)) return 0;
        s->emoves = buf;
    }
    s->emoves[s->nemoves++] = (EMove){(int8_t)src, (int8_t)dst, (uint8_t)n};
    return 1;
}

/* Turn up the card a column leaves face down: part of the same move (rules.md). */
static inline void turn_up(Board *b, int i) {
    if (b->len[i] && b->len[i] == b->down[i]) b->down[i]--;
}

static void send_home(Board *b, int c) {
    int su = suit_of(c);
    if (rank_of(c) == 1) { /* an Ace takes the first free foundation */
        int taken[NFND] = {0};
        for (int k = 0; k < 4; k++)
            if (b->suit_slot[k] >= 0) taken[b->suit_slot[k]] = 1;
        for (int f = 0; f < NFND; f++)
            if (!taken[f]) {
                b->suit_slot[su] = (int8_t)f;
                break;
            }
    }
    b->home[su]++;
}

/* Play a candidate, recording it as an engine move. */
static int play(Search *s, Board *b, Cand m) {
    if (m.src >= FROM_HOME) {
        int su = m.src - FROM_HOME;
        int c = su * 13 + b->home[su] - 1;
        b->home[su]--;
        b->cards[m.dst][b->len[m.dst]++] = (uint8_t)c;
        return push_emove(s, -10 - b->suit_slot[su], m.dst, 1);
    }
    int i = m.src;
    if (m.dst == TARGET_HOME) {
        int c = b->cards[i][--b->len[i]];
        send_home(b, c);
        turn_up(b, i);
        return push_emove(s, i, -2, 1);
    }
    b->len[i] -= m.n;
    memcpy(&b->cards[m.dst][b->len[m.dst]], &b->cards[i][b->len[i]], m.n);
    b->len[m.dst] += m.n;
    turn_up(b, i);
    return push_emove(s, i, m.dst, m.n);
}

/* Send column tops home while one is safe (rule 1). */
static int settle(Search *s, Board *b) {
    for (;;) {
        int moved = 0;
        for (int i = 0; i < NCOL; i++) {
            if (!b->len[i]) continue;
            int c = b->cards[i][b->len[i] - 1];
            if (can_go_home(b, c) && safe_home(s->variant, b->home, c)) {
                if (!play(s, b, (Cand){(uint8_t)i, TARGET_HOME, 1, 0})) return 0;
                moved = 1;
                break;
            }
        }
        if (!moved) return 1;
    }
}

/* The engine's can_finish (or a win): nothing face down, every column ordered. */
static int finished(int variant, const Board *b) {
    for (int i = 0; i < NCOL; i++) {
        if (b->down[i]) return 0;
        for (int k = 1; k < b->len[i]; k++)
            if (!in_order(variant, b->cards[i][k - 1], b->cards[i][k])) return 0;
    }
    return 1;
}

/* The engine's finishing_moves: the lowest card left is always on top and next
 * on its foundation when every column is ordered downwards. */
static int finish_moves(Search *s, Board *b) {
    for (;;) {
        int best = -1, best_rank = 99;
        for (int i = 0; i < NCOL; i++)
            if (b->len[i]) {
                int c = b->cards[i][b->len[i] - 1];
                if (can_go_home(b, c) && rank_of(c) < best_rank) best = i, best_rank = rank_of(c);
            }
        if (best < 0) return 1;
        if (!play(s, b, (Cand){(uint8_t)best, TARGET_HOME, 1, 0})) return 0;
    }
}

/* ---- locked cards ----------------------------------------------------------- */

/* Whether some card on the tableau can never be lifted, i.e. never be the bottom
 * card of a move: then it never goes home and the position is lost. Proof in
 * docs/solver.md, "Locked cards". T, the cards never lifted, starts as every card
 * on the tableau and shrinks to its greatest fixed point: a card leaves T once it
 * has an exit that T does not block. A card's cover is the card right on it now;
 * a card is only ever uncovered by lifting its cover. */
static int locked(const Search *s, const Board *b) {
    int8_t cover[NCARD];
    uint8_t on_tableau[NCARD] = {0}, in_t[NCARD] = {0}, face_down[NCARD], at_bottom[NCARD];
    int left = 0, empty_now = 0;
    for (int i = 0; i < NCOL; i++) {
        empty_now |= !b->len[i];
        for (int p = 0; p < b->len[i]; p++) {
            int c = b->cards[i][p];
            in_t[c] = on_tableau[c] = 1;
            cover[c] = (int8_t)(p + 1 < b->len[i] ? b->cards[i][p + 1] : -1);
            face_down[c] = p < b->down[i];
            at_bottom[c] = p == 0;
            left++;
        }
    }
    for (int changed = 1; changed && left;) {
        changed = 0;
        /* an empty column, now or once some column's bottom card is lifted */
        int empty_col = empty_now;
        for (int i = 0; i < NCOL && !empty_col; i++) empty_col = b->len[i] && !in_t[b->cards[i][0]];
        for (int i = 0; i < NCOL; i++)
            for (int p = b->len[i] - 1; p >= 0; p--) { /* top down: covers go first */
                int d = b->cards[i][p], r = rank_of(d), out = 0;
                if (!in_t[d]) continue;
                int uncovered = cover[d] < 0 || !in_t[cover[d]];
                if (face_down[d] && !uncovered) continue; /* it turns up only then */
                /* onto a card P it fits: P home (it may come back), P a top now, or
                 * P's cover can be lifted */
                for (int q = 0; !out && q < s->nparents[d]; q++) {
                    int P = s->parents[d][q];
                    out = !on_tableau[P] || cover[P] < 0 || !in_t[cover[P]];
                }
                /* a King into an empty column; at the bottom already it would only
                 * rename its column */
                if (!out && r == 13 && !at_bottom[d]) out = empty_col;
                /* home: d on top, and every card of its suit below it home first,
                 * which a card never lifted, or never uncovered, never is... */
                if (!out && uncovered) {
                    out = 1;
                    for (int c = d - r + 1 + b->home[suit_of(d)]; out && c < d; c++)
                        out = !in_t[c] && (cover[c] < 0 || !in_t[cover[c]]);
                    /* ... nor while it lies beneath d with only cards of T between:
                     * nothing lifts d off it before d itself goes */
                    for (int q = p - 1; out && q >= 0; q--) {
                        int x = b->cards[i][q];
                        if (suit_of(x) == suit_of(d) && x < d) out = 0;
                        else if (!in_t[x]) break;
                    }
                }
                if (out) {
                    in_t[d] = 0;
                    left--;
                    changed = 1;
                }
            }
    }
    return left > 0;
}

/* ---- candidates ------------------------------------------------------------- */

static int push_cand(Search *s, int src, int dst, int n, int prio) {
    if (s->ncands == s->cands_cap) {
        void *buf = s->cands;
        if (!grow(s, &buf, &s->cands_cap, sizeof *s->cands, 4096)) return 0;
        s->cands = buf;
    }
    if (s->rng) {
        s->rng ^= s->rng << 13, s->rng ^= s->rng >> 7, s->rng ^= s->rng << 17;
        prio = prio * 3 + (int)(s->rng % 16); /* mixes neighbouring priorities */
    }
    s->cands[s->ncands++] = (Cand){(uint8_t)src, (uint8_t)dst, (uint8_t)n, (uint8_t)prio};
    return 1;
}

/* Every move worth trying from a settled board, appended to s->cands, then sorted
 * by priority (stable). Left out, by docs/solver.md: safe moves home (played
 * already, rule 1), Aces and safe cards back from a foundation (rule 2), every empty
 * column but the first and a whole column into an empty one (rule 3). */
static int gen_moves(Search *s, const Board *b) {
    size_t first = s->ncands;
    int variant = s->variant;
    int empty = -1;
    uint8_t takers[NCARD] = {0}; /* per card: the columns whose top it may go on */
    for (int j = NCOL - 1; j >= 0; j--) {
        if (!b->len[j]) {
            empty = j;
            continue;
        }
        int t = b->cards[j][b->len[j] - 1];
        for (int q = 0; q < s->nchildren[t]; q++) takers[s->children[t][q]] |= (uint8_t)(1u << j);
    }
    for (int i = 0; i < NCOL; i++) { /* unsafe moves home */
        if (!b->len[i]) continue;
        int c = b->cards[i][b->len[i] - 1];
        if (can_go_home(b, c) && !safe_home(variant, b->home, c))
            if (!push_cand(s, i, TARGET_HOME, 1, P_HOME)) return 0;
    }
    for (int i = 0; i < NCOL; i++) { /* stacks onto columns */
        int len = b->len[i], d = b->down[i];
        for (int n = 1; n <= len - d; n++) {
            int rest = len - n;
            int c = b->cards[i][rest];
            int prio;
            if (rest == d) prio = d ? P_TURN_UP + (d < 9 ? d : 9) : P_EMPTY;
            else if (in_order(variant, b->cards[i][rest - 1], c)) prio = P_SWAP;
            else prio = P_BUILD;
            for (int j = 0; takers[c] && j < NCOL; j++)
                if (j != i && takers[c] >> j & 1)
                    if (!push_cand(s, i, j, n, prio)) return 0;
            if (empty >= 0 && rest && rank_of(c) == 13)
                if (!push_cand(s, i, empty, n, prio)) return 0;
        }
    }
    int by_slot[NFND] = {-1, -1, -1, -1}; /* foundations in the engine's order */
    for (int su = 0; su < 4; su++)
        if (b->suit_slot[su] >= 0) by_slot[b->suit_slot[su]] = su;
    for (int f = 0; f < NFND; f++) { /* foundation tops back: never an Ace or a safe card */
        int su = by_slot[f];
        if (su < 0 || b->home[su] < 2) continue;
        int c = su * 13 + b->home[su] - 1;
        if (safe_home(variant, b->home, c)) continue; /* no safe rule reads c's own suit */
        for (int j = 0; j < NCOL; j++)
            if (takers[c] >> j & 1)
                if (!push_cand(s, FROM_HOME + su, j, 1, P_GIVE_BACK)) return 0;
        if (empty >= 0 && rank_of(c) == 13)
            if (!push_cand(s, FROM_HOME + su, empty, 1, P_GIVE_BACK)) return 0;
    }
    /* stable insertion sort, highest priority first */
    Cand *a = s->cands + first;
    size_t n = s->ncands - first;
    for (size_t k = 1; k < n; k++) {
        Cand x = a[k];
        size_t j = k;
        while (j > 0 && a[j - 1].prio < x.prio) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
    return 1;
}

/* ---- keys ------------------------------------------------------------------- */

/* The canonical key, one byte a symbol. A column with cards face down never
 * changes place (its face-down cards are the bottom `down` cards it started with,
 * which never move), so it is written at its own index by its face-down count and
 * its face-up cards. Columns with nothing face down are interchangeable
 * (docs/solver.md, "Keys"), so they follow as a sorted set, empty ones left out.
 * Foundations are left out: they hold exactly the cards found nowhere else, and
 * which foundation a suit took does not change the future. Bytes: 0x80 + count for
 * each column's face-down count, then its face-up cards (0..51) if it has any face
 * down; then 0xFF before each other column's cards. Every byte has one reading, and
 * keys are compared in full, length included. */
#define KEY_WORDS 9 /* at most 7 + 52 + 7 bytes */
typedef struct {
    uint64_t w[KEY_WORDS];
    int len; /* bytes */
} KeyBuf;

static int col_less(const Board *b, int x, int y) {
    int lx = b->len[x], ly = b->len[y];
    int n = lx < ly ? lx : ly;
    int r = memcmp(b->cards[x], b->cards[y], (size_t)n);
    return r < 0 || (r == 0 && lx < ly);
}

static void make_key(const Board *b, KeyBuf *k) {
    uint8_t *out = (uint8_t *)k->w;
    int n = 0, loose[NCOL], nl = 0;
    memset(k->w, 0, sizeof k->w);
    for (int i = 0; i < NCOL; i++) {
        int d = b->down[i];
        out[n++] = (uint8_t)(0x80 + d);
        if (d) {
            memcpy(out + n, b->cards[i] + d, (size_t)(b->len[i] - d));
            n += b->len[i] - d;
        } else if (b->len[i]) {
            int j = nl++;
            while (j > 0 && col_less(b, i, loose[j - 1])) {
                loose[j] = loose[j - 1];
                j--;
            }
            loose[j] = i;
        }
    }
    for (int q = 0; q < nl; q++) {
        int i = loose[q];
        out[n++] = 0xFF;
        memcpy(out + n, b->cards[i], b->len[i]);
        n += b->len[i];
    }
    k->len = n;
}

static inline int key_words(int len) { return (len + 7) / 8; }

static uint64_t hash_words(const uint64_t *w, int len) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
    for (int i = 0; i < key_words(len); i++) {
        h ^= w[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return h;
}

/* A table entry: tag (20 bits of the hash) | key length in bytes (7) | the key's
 * word offset in the arena + 1 (37); 0 is a free slot. Keys are stored padded
 * with zeros to whole words. */
#define TAG_SHIFT 44
#define LEN_SHIFT 37
#define OFF_MASK ((1ull << LEN_SHIFT) - 1)
#define ENTRY_LEN(e) ((int)(((e) >> LEN_SHIFT) & 127))

static int grow_table(Search *s) {
    size_t cap = s->cap ? s->cap * 2 : (1u << 16);
    size_t more = (cap - s->cap) * sizeof(uint64_t);
    if (s->bytes + more > s->max_bytes) return s->full = 1, 0;
    uint64_t *t = calloc(cap, sizeof *t);
    if (!t) return s->full = 1, 0;
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t e = s->table[i];
        if (!e) continue;
        size_t h = (size_t)hash_words(&s->arena[(e & OFF_MASK) - 1], ENTRY_LEN(e)) & (cap - 1);
        while (t[h]) h = (h + 1) & (cap - 1);
        t[h] = e;
    }
    free(s->table);
    s->table = t;
    s->bytes += more;
    s->cap = cap;
    return 1;
}

/* Insert the key; 1 if new, 0 if seen before (or memory is full: s->full). */
static int insert_key(Search *s, const KeyBuf *k) {
    if ((s->count + 1) * 10 > s->cap * 7 && !grow_table(s)) return 0;
    uint64_t h = hash_words(k->w, k->len);
    uint64_t tag = h >> TAG_SHIFT;
    size_t mask = s->cap - 1, i = (size_t)h & mask;
    int nw = key_words(k->len);
    for (;; i = (i + 1) & mask) {
        uint64_t e = s->table[i];
        if (!e) break;
        if ((e >> TAG_SHIFT) == tag && ENTRY_LEN(e) == k->len) {
            const uint64_t *stored = &s->arena[(e & OFF_MASK) - 1];
            int same = 1;
            for (int q = 0; q < nw && same; q++) same = stored[q] == k->w[q];
            if (same) return 0;
        }
    }
    if (s->arena_len + (size_t)nw > s->arena_cap) {
        void *buf = s->arena;
        if (!grow(s, &buf, &s->arena_cap, sizeof *s->arena, (size_t)1 << 18)) return 0;
        s->arena = buf;
    }
    memcpy(&s->arena[s->arena_len], k->w, (size_t)nw * 8);
    s->table[i] = (tag << TAG_SHIFT) | ((uint64_t)k->len << LEN_SHIFT) | (s->arena_len + 1);
    s->arena_len += (size_t)nw;
    s->count++;
    return 1;
}

/* ---- the search ------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static Frame *push_frame(Search *s) {
    if (s->depth == s->frames_cap) {
        void *buf = s->frames;
        if (!grow(s, &buf, &s->frames_cap, sizeof *s->frames, 256)) return NULL;
        s->frames = buf;
    }
    return &s->frames[s->depth++];
}

/* Push `b` (reached by the engine moves from `efirst` on) with its candidates. */
static int enter(Search *s, const Board *b, size_t efirst) {
    Frame *f = push_frame(s);
    if (!f) return 0;
    f->b = *b;
    f->efirst = (uint32_t)efirst;
    f->ecount = (uint32_t)(s->nemoves - efirst);
    f->mfirst = (uint32_t)s->ncands;
    if (!gen_moves(s, &s->frames[s->depth - 1].b)) return 0;
    f = &s->frames[s->depth - 1];
    f->mcount = (uint32_t)(s->ncands - f->mfirst);
    f->mnext = 0;
    return 1;
}

/* Runs without the GIL. On a win, s->emoves[0..nemoves) is the whole solution. */
/* Forget every position: the next search starts afresh (the memory is kept). */
static void reset(Search *s) {
    if (s->table) memset(s->table, 0, s->cap * sizeof *s->table);
    s->count = s->arena_len = s->depth = s->ncands = s->nemoves = 0;
}

/* One depth-first search from `start`, at most max_nodes positions (counted into
 * *nodes), until `deadline`. On a win s->emoves[0..nemoves) is the whole solution. */
static int search_once(Search *s, const Board *start, long long max_nodes, double deadline,
                       long long *nodes_out) {
    long long nodes = 1;
    Board b = *start;
    int verdict = UNKNOWN;
    KeyBuf k;
    reset(s);
    *nodes_out = 1;
    if (!settle(s, &b)) return UNKNOWN;
    if (finished(s->variant, &b)) return finish_moves(s, &b) ? WON : UNKNOWN;
    if (s->use_locked && locked(s, &b)) return UNWINNABLE;
    make_key(&b, &k);
    if (!insert_key(s, &k) || !enter(s, &b, 0)) return UNKNOWN;
    while (s->depth) {
        Frame *f = &s->frames[s->depth - 1];
        if (f->mnext == f->mcount) {
            s->ncands = f->mfirst;
            s->nemoves = f->efirst;
            s->depth--;
            continue;
        }
        Cand m = s->cands[f->mfirst + f->mnext++];
        size_t efirst = s->nemoves;
        b = f->b;
        if (!play(s, &b, m) || !settle(s, &b)) break;
        make_key(&b, &k);
        if (!insert_key(s, &k)) {
            if (s->full) break;
            s->nemoves = efirst;
            continue;
        }
        nodes++;
        if (finished(s->variant, &b)) {
            verdict = finish_moves(s, &b) ? WON : UNKNOWN;
            break;
        }
        if (nodes >= max_nodes || (nodes % CLOCK_EVERY == 0 && now() > deadline)) break;
        if (s->use_locked && locked(s, &b)) { /* lost: no need to look further */
            s->nemoves = efirst;
            continue;
        }
        if (!enter(s, &b, efirst)) break;
    }
    /* Exhausted: every position reachable under the proven rules was seen. */
    if (!s->depth && !s->full && verdict == UNKNOWN) verdict = UNWINNABLE;
    *nodes_out = nodes;
    return verdict;
}

/* The search. A deal's search time is heavy-tailed: an early choice that leads
 * nowhere can hold the depth-first search for millions of positions while another
 * order of the same moves wins in a few hundred. So short probes come first (3,000
 * positions, then 20% more each), each a complete search under its own node budget
 * with the move order shuffled among neighbouring priorities (seeded, so a node
 * budget always gives the same answer), up to half of the nodes and of the time;
 * then one search in the plain order takes the rest.
 * Every probe is a whole search: its win is a win, and a probe that runs out of
 * positions before its budget has proven the deal lost, whatever the order. */
static int run(Search *s, const Board *start, long long max_nodes, double max_seconds,
               long long *nodes_out) {
    double began = now(), deadline = began + max_seconds;
    long long total = 0, n = 0, probe = 3000;
    int verdict;
    for (uint64_t k = 0; s->use_probes; k++, probe += probe / 5) {
        if (total + probe > max_nodes / 2 || now() - began > max_seconds / 2) break;
        s->rng = k ? 0x9E3779B97F4A7C15ull * k : 0;
        verdict = search_once(s, start, probe, deadline, &n);
        total += n;
        if (verdict != UNKNOWN || s->full) {
            *nodes_out = total;
            return verdict;
        }
    }
    s->rng = 0;
    verdict = search_once(s, start, max_nodes - total, deadline, &n);
    *nodes_out = total + n;
    return verdict;
}

static void free_search(Search *s) {
    free(s->table);
    free(s->arena);
    free(s->frames);
    free(s->cands);
    free(s->emoves);
}

/* ---- Python ----------------------------------------------------------------- */

static int read_cards(PyObject *seq, uint8_t *out, int most, int *n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return 0;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > most) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many cards", what);
        return 0;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return 0;
        }
        if (c < 0 || c >= NCARD) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: %ld is not a card", what, c);
            return 0;
        }
        out[i] = (uint8_t)c;
    }
    *n = (int)len;
    Py_DECREF(fast);
    return 1;
}

static int read_board(PyObject *tableau, PyObject *down, PyObject *foundations, Board *b) {
    uint8_t seen[NCARD] = {0};
    memset(b, 0, sizeof *b);
    if (PySequence_Size(tableau) != NCOL || PySequence_Size(down) != NCOL ||
        PySequence_Size(foundations) != NFND) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "7 columns and 4 foundations");
        return 0;
    }
    for (int i = 0; i < NCOL; i++) {
        PyObject *col = PySequence_GetItem(tableau, i);
        PyObject *d = PySequence_GetItem(down, i);
        int n = 0, ok = col && d && read_cards(col, b->cards[i], NCARD, &n, "column");
        long dn = ok ? PyLong_AsLong(d) : -1;
        Py_XDECREF(col);
        Py_XDECREF(d);
        if (!ok || (dn == -1 && PyErr_Occurred())) return 0;
        if (dn < 0 || dn > n || (n && dn == n)) {
            PyErr_SetString(PyExc_ValueError, "a column's top card lies face up");
            return 0;
        }
        b->len[i] = (uint8_t)n;
        b->down[i] = (uint8_t)dn;
        for (int p = 0; p < n; p++) seen[b->cards[i][p]]++;
    }
    for (int su = 0; su < 4; su++) b->suit_slot[su] = -1;
    for (int f = 0; f < NFND; f++) {
        uint8_t pile[NCARD];
        int n = 0;
        PyObject *p = PySequence_GetItem(foundations, f);
        int ok = p && read_cards(p, pile, 13, &n, "foundation");
        Py_XDECREF(p);
        if (!ok) return 0;
        if (!n) continue;
        int su = suit_of(pile[0]);
        for (int r = 0; r < n; r++)
            if (pile[r] != su * 13 + r || b->suit_slot[su] >= 0) {
                PyErr_SetString(PyExc_ValueError, "a foundation is not Ace upwards in one suit");
                return 0;
            }
        b->suit_slot[su] = (int8_t)f;
        b->home[su] = (uint8_t)n;
        for (int r = 0; r < n; r++) seen[pile[r]]++;
    }
    for (int c = 0; c < NCARD; c++)
        if (seen[c] != 1) {
            PyErr_SetString(PyExc_ValueError, "the position does not hold each card once");
            return 0;
        }
    return 1;
}

static PyObject *yukon_solve(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"variant",     "tableau",   "down",  "foundations", "max_nodes",
                             "max_seconds", "max_bytes", "locked", "probes", NULL};
    int variant;
    PyObject *tableau, *down, *foundations;
    long long max_nodes, max_bytes = 1ll << 30;
    int use_locked = 1, use_probes = 1;
    double max_seconds;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iOOOLd|Lpp", kwlist, &variant, &tableau,
                                     &down, &foundations, &max_nodes, &max_seconds, &max_bytes,
                                     &use_locked, &use_probes))
        return NULL;
    if (variant < YUKON || variant > ALASKA) {
        PyErr_SetString(PyExc_ValueError, "variant: 0 yukon, 1 russian, 2 alaska");
        return NULL;
    }
    Search *s = calloc(1, sizeof *s);
    if (!s) return PyErr_NoMemory();
    Board start;
    if (!read_board(tableau, down, foundations, &start)) {
        free(s);
        return NULL;
    }
    s->variant = variant;
    s->use_locked = use_locked;
    s->use_probes = use_probes;
    s->max_bytes = max_bytes > 0 ? (size_t)max_bytes : 0;
    s->bytes = sizeof *s;
    fill_fits(s);
    long long nodes = 0;
    int verdict;
    Py_BEGIN_ALLOW_THREADS
    verdict = run(s, &start, max_nodes, max_seconds, &nodes);
    Py_END_ALLOW_THREADS
    static const char *words[] = {"won", "unwinnable", "unknown"};
    PyObject *moves = PyList_New(0);
    if (moves && verdict == WON)
        for (size_t i = 0; i < s->nemoves; i++) {
            EMove e = s->emoves[i];
            PyObject *t = Py_BuildValue("(iii)", e.src, e.dst, e.n);
            if (!t || PyList_Append(moves, t) < 0) {
                Py_XDECREF(t);
                Py_CLEAR(moves);
                break;
            }
            Py_DECREF(t);
        }
    free_search(s);
    free(s);
    if (!moves) return NULL;
    return Py_BuildValue("(sNL)", words[verdict], moves, nodes);
}

static PyMethodDef methods[] = {
    {"solve", (PyCFunction)(void (*)(void))yukon_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(variant, tableau, down, foundations, max_nodes, max_seconds, max_bytes=1 GiB)\n"
     "-> (verdict, [(source, target, size), ...], nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_yukon", "The compiled search for Yukon, Russian and Alaska.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__yukon(void) { return PyModule_Create(&module); }
