/* The complete phase of the Spider search (included by spider.c).
 *
 * Depth-first over every move gen_moves yields (all legal moves but the renamings
 * of rule 3), with an exact transposition table: each position's canonical key is
 * stored whole and compared byte for byte, so two positions share an entry only if
 * they have the same future. A position found in the table ends its branch. When
 * the stack empties, the positions visited are closed under the moves tried and
 * none is won: that proves "unwinnable" (docs/solver.md, "The search"). The table
 * never forgets: when it would outgrow MEM_CAP the answer is "unknown".
 */

/* ---- the exact table --------------------------------------------------------------- */

typedef struct {
    uint64_t hash;
    uint64_t ref; /* offset in the arena << 8 | key length */
} Entry;

typedef struct {
    Entry *slot;
    size_t cap, used;
    uint8_t *arena;
    size_t alen, acap;
} Table;

static int tt_init(Ctx *x, Table *t) {
    t->cap = 1 << 16;
    if (x->mem + t->cap * sizeof(Entry) > MEM_CAP) return 0;
    t->slot = calloc(t->cap, sizeof(Entry));
    if (!t->slot) return 0;
    x->mem += t->cap * sizeof(Entry);
    return 1;
}

static void tt_free(Ctx *x, Table *t) {
    x->mem -= t->cap * sizeof(Entry) + t->acap;
    free(t->slot);
    free(t->arena);
}

/* Adds the key; 1 if new, 0 if present, -1 when memory ran out. */
static int tt_add(Ctx *x, Table *t, const uint8_t *key, int len) {
    uint64_t h = hash_bytes(key, len);
    size_t mask = t->cap - 1, i = (size_t)h & mask;
    while (t->slot[i].hash) {
        if (t->slot[i].hash == h && (int)(t->slot[i].ref & 0xFF) == len &&
            memcmp(t->arena + (t->slot[i].ref >> 8), key, (size_t)len) == 0)
            return 0;
        i = (i + 1) & mask;
    }
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap * 2;
        if (x->mem + cap * sizeof(Entry) > MEM_CAP) {
            x->stop = 2;
            return -1;
        }
        Entry *slot = calloc(cap, sizeof(Entry));
        if (!slot) {
            x->stop = 2;
            return -1;
        }
        for (size_t k = 0; k < t->cap; k++) {
            if (!t->slot[k].hash) continue;
            size_t j = (size_t)t->slot[k].hash & (cap - 1);
            while (slot[j].hash) j = (j + 1) & (cap - 1);
            slot[j] = t->slot[k];
        }
        free(t->slot);
        x->mem = x->mem + cap * sizeof(Entry) - t->cap * sizeof(Entry);
        t->slot = slot;
        t->cap = cap;
        mask = cap - 1;
        i = (size_t)h & mask;
        while (t->slot[i].hash) i = (i + 1) & mask;
    }
    uint8_t *a = grow(x, t->arena, &t->acap, t->alen + (size_t)len, 1);
    if (!a) return -1;
    t->arena = a;
    memcpy(t->arena + t->alen, key, (size_t)len);
    t->slot[i].hash = h;
    t->slot[i].ref = (uint64_t)t->alen << 8 | (uint64_t)len;
    t->alen += (size_t)len;
    t->used++;
    return 1;
}

/* ---- the search ------------------------------------------------------------------------ */

typedef struct {
    Move m;         /* the move that led here */
    Undo u;         /* how to take it back */
    Move banned;    /* its reverse, when that only leads back (rule 4) */
    uint8_t ban;    /* whether banned is set */
    size_t off;     /* this node's moves in the move stack */
    uint16_t n, at; /* how many, and the next to try */
} Frame;

/* Sorts a node's moves by priority, highest first, ties in generated order. */
static void order_moves(const State *st, Move *m, int n) {
    int pr[MAXMOVES];
    for (int i = 0; i < n; i++) pr[i] = move_priority(st, m[i]);
    for (int i = 1; i < n; i++) {
        Move v = m[i];
        int p = pr[i], j = i - 1;
        while (j >= 0 && pr[j] < p) {
            m[j + 1] = m[j];
            pr[j + 1] = pr[j];
            j--;
        }
        m[j + 1] = v;
        pr[j + 1] = p;
    }
}

/* Depth-first from `start` until a win (its moves appended to `path`), exhaustion
 * (UNWINNABLE: no win from `start`), the budget, or `limit` more positions. */
static int dfs_search(Ctx *x, const State *start, uint64_t limit, Path *path) {
    int verdict = UNKNOWN;
    uint64_t end_at = x->nodes + limit;
    Table tt = {0};
    Frame *fr = NULL;
    size_t fcap = 0, sp = 0;
    Move *ms = NULL;
    size_t mcap = 0, mtop = 0;
    State st = *start;
    uint8_t key[KEYMAX];
    if (!tt_init(x, &tt)) goto out;
    if (tt_add(x, &tt, key, pack_key(&st, key)) < 0) goto out;
    if (!(fr = grow(x, fr, &fcap, 1, sizeof(Frame)))) goto out;
    if (!(ms = grow(x, ms, &mcap, MAXMOVES, sizeof(Move)))) goto out;
    memset(&fr[0], 0, sizeof(Frame));
    fr[0].n = (uint16_t)gen_moves(&st, ms);
    order_moves(&st, ms, fr[0].n);
    mtop = fr[0].n;
    sp = 1;
    for (uint64_t steps = 1; sp; steps++) {
        /* Positions are counted only when new; a long retreat through positions
         * whose moves all lead to known ones must look at the clock too. */
        if ((steps & 0xFFFF) == 0 && now() > x->deadline) {
            x->stop = 1;
            goto out;
        }
        Frame *f = &fr[sp - 1];
        if (f->at == f->n) {
            if (sp > 1) undo_move(&st, f->m, &f->u);
            mtop = f->off;
            sp--;
            continue;
        }
        Move m = ms[f->off + f->at++];
        if (f->ban && m.s == f->banned.s && m.t == f->banned.t && m.n == f->banned.n) continue;
        Undo u;
        apply_move(x, &st, m, &u);
        int added = tt_add(x, &tt, key, pack_key(&st, key));
        if (added < 0) goto out;
        if (!added) {
            undo_move(&st, m, &u);
            continue;
        }
        if (is_won(&st)) {
            for (size_t i = 1; i < sp; i++)
                if (!path_push(x, path, fr[i].m)) goto out;
            if (path_push(x, path, m)) verdict = WON;
            goto out;
        }
        if (count_node(x) || x->nodes >= end_at) goto out;
        Frame *g = grow(x, fr, &fcap, sp + 1, sizeof(Frame));
        if (!g) goto out;
        fr = g;
        Move *q = grow(x, ms, &mcap, mtop + MAXMOVES, sizeof(Move));
        if (!q) goto out;
        ms = q;
        f = &fr[sp];
        f->m = m;
        f->u = u;
        /* Rule 4: after a move that turned nothing up and lifted nothing, its
         * reverse leads back to the position it came from, already in the table. */
        f->ban = m.s != DEAL && !u.turned && u.nl == 0;
        f->banned = (Move){m.t, m.s, m.n};
        f->off = mtop;
        f->at = 0;
        f->n = (uint16_t)gen_moves(&st, ms + mtop);
        order_moves(&st, ms + mtop, f->n);
        mtop += f->n;
        sp++;
    }
    verdict = UNWINNABLE;
out:
    tt_free(x, &tt);
    x->mem -= fcap * sizeof(Frame) + mcap * sizeof(Move);
    free(fr);
    free(ms);
    return verdict;
}
