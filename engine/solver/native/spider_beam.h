/* The heuristic phase of the Spider search (included by spider.c).
 *
 * Beam searches of growing width: each layer holds the best `width` positions one
 * move deeper than the last, ranked by `evaluate`; positions seen in any earlier
 * layer of the same beam are dropped, by a 64-bit hash of their canonical key. A
 * hash that collides, a beam that drops positions: both only lose wins, never
 * invent one, so this phase answers "won" or nothing. Each layer keeps its
 * (parent, move) pairs, so a win is read back to the root.
 */

/* The share of the budget the beams get: nearly every decided deal is a win. */
#ifndef BEAM_SHARE
#define BEAM_SHARE 0.75
#endif
#define BEAM_FIRST 64 /* the first beam's width; each next one is four times wider */
#define BEAM_GROWTH 4
/* Moves in a row that beat nothing, with cards in the stock and without. */
#ifndef BEAM_LATERAL
#define BEAM_LATERAL 4
#endif
#ifndef BEAM_LATERAL_END
#define BEAM_LATERAL_END 10
#endif
/* A stalled beam's probes: how many, and the positions each may search. */
#ifndef PROBES
#define PROBES 4
#endif
#ifndef PROBE_NODES
#define PROBE_NODES(width) (20000 + 50 * (uint64_t)(width))
#endif

/* ---- a set of hashes ---------------------------------------------------------------- */

typedef struct {
    uint64_t *slot;
    size_t cap, used;
} HashSet;

static int hs_has(const HashSet *h, uint64_t v) {
    size_t mask = h->cap - 1, i = (size_t)v & mask;
    while (h->slot[i]) {
        if (h->slot[i] == v) return 1;
        i = (i + 1) & mask;
    }
    return 0;
}

static void hs_put_raw(uint64_t *slot, size_t cap, uint64_t v) {
    size_t mask = cap - 1, i = (size_t)v & mask;
    while (slot[i]) {
        if (slot[i] == v) return;
        i = (i + 1) & mask;
    }
    slot[i] = v;
}

/* Adds v; 1 if it was new, 0 if present, -1 when memory ran out. */
static int hs_add(Ctx *x, HashSet *h, uint64_t v) {
    if (hs_has(h, v)) return 0;
    if ((h->used + 1) * 2 > h->cap) {
        size_t cap = h->cap * 2;
        if (x->mem + cap * sizeof(uint64_t) > MEM_CAP) {
            x->stop = 2;
            return -1;
        }
        uint64_t *slot = calloc(cap, sizeof(uint64_t));
        if (!slot) {
            x->stop = 2;
            return -1;
        }
        for (size_t i = 0; i < h->cap; i++)
            if (h->slot[i]) hs_put_raw(slot, cap, h->slot[i]);
        free(h->slot);
        x->mem = x->mem + cap * sizeof(uint64_t) - h->cap * sizeof(uint64_t);
        h->slot = slot;
        h->cap = cap;
    }
    hs_put_raw(h->slot, h->cap, v);
    h->used++;
    return 1;
}

/* ---- the evaluation ------------------------------------------------------------------- */

/* Higher is closer to a win (weights measured on the first deals, docs/solver.md):
 * a run lifted counts more than the twelve suited links it takes away; then each
 * face-down card left (and each pile still holding some), each suited link (a card
 * on the next higher one of its suit: they move as one), each empty pile. Any other
 * face-up pair costs a little, and more where it lies over face-down cards: it is
 * disorder that must be moved away before they turn up. With several suits in play
 * a link in rank only is worth nothing (it cannot move as one) and a card left in
 * the stock nothing either, so the beam deals only when nothing else improves;
 * with one suit the disorder over face-down cards is weighed like any other and a
 * card left in the stock costs x->stock_card, so deals come early. No single weight
 * suits every 1-suit deal: 20 a card wins most deals soonest, but deals everything
 * in the first twenty moves and then often walks into a corner; 5, 10 or 2 keep
 * the stock longer and win many of those. So each width runs one beam per weight of
 * STOCK_ONE_WEIGHTS, in order (beam_phase). Every weight may be overridden with -D
 * for tuning. */
#ifndef W_EMPTY
#define W_EMPTY 60
#endif
#ifndef W_DOWN
#define W_DOWN 25
#endif
#ifndef W_PILE_DOWN
#define W_PILE_DOWN 10
#endif
#ifndef W_SUITED
#define W_SUITED 20
#endif
#ifndef W_BREAK
#define W_BREAK 4
#endif
#ifndef W_RANK /* several suits */
#define W_RANK 0
#endif
#ifndef W_BLOCK
#define W_BLOCK 10
#endif
#ifndef STOCK_CARD
#define STOCK_CARD 0
#endif
#ifndef W_BLOCK_ONE /* one suit */
#define W_BLOCK_ONE 0
#endif
#ifndef STOCK_ONE_WEIGHTS
#define STOCK_ONE_WEIGHTS 20, 5, 10, 2
#endif
static const int stock_one[] = {STOCK_ONE_WEIGHTS};

static int evaluate(const Ctx *x, const State *st) {
    const int w_rank = x->many_suits ? W_RANK : 0; /* one suit: every rank link is suited */
    const int w_block = x->many_suits ? W_BLOCK : W_BLOCK_ONE;
    int score = st->lifted * (12 * W_SUITED + 160) -
                x->stock_card * st->stock;
    for (int i = 0; i < NCOL; i++) {
        int n = st->len[i], d = st->down[i];
        if (!n) {
            score += W_EMPTY;
            continue;
        }
        score -= W_DOWN * d + (d ? W_PILE_DOWN : 0);
        const uint8_t *c = st->c[i];
        for (int k = d + 1; k < n; k++) {
            if (LINKED(c[k - 1], c[k]))
                score += W_SUITED;
            else if (RANK(c[k - 1]) == RANK(c[k]) + 1)
                score += w_rank - (d ? w_block : 0);
            else
                score -= W_BREAK + (d ? w_block : 0);
        }
    }
    return score;
}

/* ---- one beam --------------------------------------------------------------------------- */

typedef struct {
    int32_t score, best;
    uint32_t parent, seq;
    Move m;
    uint8_t stale;
} Cand;

/* worse(a, b): a ranks below b (lower score; equal scores: generated later). */
static int worse(const Cand *a, const Cand *b) {
    return a->score < b->score || (a->score == b->score && a->seq > b->seq);
}

static void heap_down(Cand *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && worse(&h[l], &h[w])) w = l;
        if (r < n && worse(&h[r], &h[w])) w = r;
        if (w == i) return;
        Cand t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void heap_up(Cand *h, size_t i) {
    while (i) {
        size_t p = (i - 1) / 2;
        if (!worse(&h[i], &h[p])) return;
        Cand t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int by_parent(const void *a, const void *b) {
    const Cand *p = a, *q = b;
    if (p->parent != q->parent) return p->parent < q->parent ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

typedef struct {
    uint8_t *bytes; /* the layer's positions, pack_raw form */
    size_t nbytes, bcap;
    size_t *off;
    size_t n, ocap;
} Layer;

typedef struct {
    uint32_t *parent; /* every layer's (parent index, move), layer after layer */
    Move *move;
    size_t n, pcap, mcap;
    size_t *start; /* where each layer begins */
    size_t depth, scap;
} History;

/* Each entry: the best score on the way here since the last deal (4 bytes), the
 * moves since that best, then the position in pack_raw form. */
static int layer_add(Ctx *x, Layer *l, const State *st, int32_t best, uint8_t stale) {
    uint8_t buf[KEYMAX + 5];
    memcpy(buf, &best, 4);
    buf[4] = stale;
    int k = 5 + pack_raw(st, buf + 5);
    uint8_t *b = grow(x, l->bytes, &l->bcap, l->nbytes + (size_t)k, 1);
    if (!b) return 0;
    l->bytes = b;
    size_t *o = grow(x, l->off, &l->ocap, l->n + 1, sizeof(size_t));
    if (!o) return 0;
    l->off = o;
    memcpy(l->bytes + l->nbytes, buf, (size_t)k);
    l->off[l->n++] = l->nbytes;
    l->nbytes += (size_t)k;
    return 1;
}

static int hist_add(Ctx *x, History *h, uint32_t parent, Move m) {
    uint32_t *p = grow(x, h->parent, &h->pcap, h->n + 1, sizeof(uint32_t));
    if (!p) return 0;
    h->parent = p;
    Move *q = grow(x, h->move, &h->mcap, h->n + 1, sizeof(Move));
    if (!q) return 0;
    h->move = q;
    h->parent[h->n] = parent;
    h->move[h->n++] = m;
    return 1;
}

static int hist_layer(Ctx *x, History *h) {
    size_t *s = grow(x, h->start, &h->scap, h->depth + 1, sizeof(size_t));
    if (!s) return 0;
    h->start = s;
    h->start[h->depth++] = h->n;
    return 1;
}

/* The moves from the root to position `index` of the layer `depth` layers down,
 * then `last`. */
static int read_back(Ctx *x, const History *h, size_t depth, uint32_t index, Path *path) {
    Move *q = grow(x, path->m, &path->cap, depth, sizeof(Move));
    if (!q) return 0;
    path->m = q;
    path->n = depth;
    for (size_t d = depth; d > 0; d--) {
        size_t e = h->start[d - 1] + index;
        path->m[d - 1] = h->move[e];
        index = h->parent[e];
    }
    return 1;
}

typedef enum { BEAM_WON, BEAM_FAILED, BEAM_EXHAUSTED, BEAM_STOPPED } BeamEnd;

/* A beam dies where every way on needs more moves that improve nothing than it
 * allows: typically with the stock gone, piles to rearrange through the empty
 * ones. Its best last positions then get a bounded depth-first search each (the
 * complete phase's search, here only a probe: what it fails to find proves
 * nothing about the deal). */
static BeamEnd probe(Ctx *x, const History *hist, const Layer *layer, size_t width,
                     Path *path) {
    int best[PROBES], nb = 0;
    int32_t score[PROBES];
    State st;
    for (size_t p = 0; p < layer->n; p++) {
        unpack_raw(x, layer->bytes + layer->off[p] + 5, &st);
        int32_t s = evaluate(x, &st);
        int k = nb < PROBES ? nb++ : PROBES;
        while (k > 0 && score[k - 1] < s) {
            if (k < PROBES) {
                score[k] = score[k - 1];
                best[k] = best[k - 1];
            }
            k--;
        }
        if (k < PROBES) {
            score[k] = s;
            best[k] = (int)p;
        }
    }
    for (int i = 0; i < nb; i++) {
        unpack_raw(x, layer->bytes + layer->off[best[i]] + 5, &st);
        if (!read_back(x, hist, hist->depth, (uint32_t)best[i], path)) return BEAM_STOPPED;
        int v = dfs_search(x, &st, PROBE_NODES(width), path);
        if (v == WON) return BEAM_WON;
        if (x->stop) return BEAM_STOPPED;
    }
    path->n = 0;
    return BEAM_FAILED;
}

/* One beam of the given width. BEAM_EXHAUSTED: it ended without ever dropping a
 * position for want of room, so a wider beam would search the same. */
static BeamEnd beam(Ctx *x, size_t width, Path *path) {
    BeamEnd end = BEAM_STOPPED;
    HashSet seen = {0}, twins = {0};
    Layer cur = {0}, next = {0};
    History hist = {0};
    Cand *heap = NULL;
    size_t hcap = 0, hn = 0;
    int dropped = 0;
    State st;
    Move moves[MAXMOVES];
    uint8_t key[KEYMAX];
    seen.slot = calloc(1024, sizeof(uint64_t));
    twins.slot = calloc(1024, sizeof(uint64_t));
    if (!seen.slot || !twins.slot) {
        x->stop = 2;
        goto out;
    }
    seen.cap = twins.cap = 1024;
    x->mem += (seen.cap + twins.cap) * sizeof(uint64_t);
    heap = grow(x, heap, &hcap, width, sizeof(Cand));
    if (!heap) goto out;
    if (hs_add(x, &seen, hash_bytes(key, pack_key(&x->root, key))) < 0) goto out;
    if (!layer_add(x, &cur, &x->root, evaluate(x, &x->root), 0)) goto out;
    for (;;) {
        hn = 0;
        uint32_t seq = 0;
        memset(twins.slot, 0, twins.cap * sizeof(uint64_t));
        twins.used = 0;
        for (size_t p = 0; p < cur.n; p++) {
            const uint8_t *entry = cur.bytes + cur.off[p];
            int32_t was;
            memcpy(&was, entry, 4);
            int stale = entry[4];
            unpack_raw(x, entry + 5, &st);
            int nm = gen_moves(&st, moves);
            for (int k = 0; k < nm; k++) {
                Undo u;
                apply_move(x, &st, moves[k], &u);
                uint64_t h = hash_bytes(key, pack_key(&st, key));
                /* A position already among this layer's candidates is not
                 * taken twice (Spider transposes a lot: two moves in either
                 * order), so `width` places hold `width` positions. */
                if (!hs_has(&seen, h) && !hs_has(&twins, h)) {
                    if (is_won(&st)) {
                        end = read_back(x, &hist, hist.depth, (uint32_t)p, path) &&
                                      path_push(x, path, moves[k])
                                  ? BEAM_WON
                                  : BEAM_STOPPED;
                        goto out;
                    }
                    if (count_node(x)) goto out;
                    int32_t score = evaluate(x, &st);
                    /* Moves that do not beat the best score since the last deal
                     * are allowed a few times in a row (to make room), then only
                     * progress or a deal: else the beam circles on a plateau. */
                    int progress = moves[k].s == DEAL || score > was;
                    int lag = progress ? 0 : stale + 1;
                    /* Filling an empty pile is never barred while a deal waits for it. */
                    int fills = moves[k].s != DEAL && st.stock && st.len[moves[k].s] &&
                                st.len[moves[k].t] == moves[k].n;
                    if (lag > (st.stock ? BEAM_LATERAL : BEAM_LATERAL_END) && !fills) {
                        undo_move(&st, moves[k], &u);
                        continue;
                    }
                    Cand c = {score, progress ? score : was, (uint32_t)p, seq++, moves[k],
                              (uint8_t)lag};
                    if (hn < width) {
                        heap[hn] = c;
                        heap_up(heap, hn++);
                        if (hs_add(x, &twins, h) < 0) goto out;
                    } else {
                        dropped = 1;
                        if (worse(&heap[0], &c)) {
                            heap[0] = c;
                            heap_down(heap, hn, 0);
                            if (hs_add(x, &twins, h) < 0) goto out;
                        }
                    }
                }
                undo_move(&st, moves[k], &u);
            }
        }
        if (hn == 0) {
            end = dropped ? BEAM_FAILED : BEAM_EXHAUSTED;
            if (dropped) end = probe(x, &hist, &cur, width, path);
            goto out;
        }
        /* The next layer, parent by parent so each parent is unpacked once. */
        qsort(heap, hn, sizeof(Cand), by_parent);
        if (!hist_layer(x, &hist)) goto out;
        next.n = 0;
        next.nbytes = 0;
        uint32_t have = UINT32_MAX;
        for (size_t i = 0; i < hn; i++) {
            if (heap[i].parent != have) {
                have = heap[i].parent;
                unpack_raw(x, cur.bytes + cur.off[have] + 5, &st);
            }
            Undo u;
            apply_move(x, &st, heap[i].m, &u);
            int added = hs_add(x, &seen, hash_bytes(key, pack_key(&st, key)));
            if (added < 0) goto out;
            if (added && (!layer_add(x, &next, &st, heap[i].best, heap[i].stale) ||
                          !hist_add(x, &hist, have, heap[i].m)))
                goto out;
            undo_move(&st, heap[i].m, &u);
        }
        Layer t = cur;
        cur = next;
        next = t;
    }
out:
    x->mem -= (seen.cap + twins.cap) * sizeof(uint64_t) + hcap * sizeof(Cand) + cur.bcap +
              next.bcap + (cur.ocap + next.ocap + hist.scap) * sizeof(size_t) +
              hist.pcap * sizeof(uint32_t) + hist.mcap * sizeof(Move);
    free(seen.slot);
    free(twins.slot);
    free(heap);
    free(cur.bytes);
    free(cur.off);
    free(next.bytes);
    free(next.off);
    free(hist.parent);
    free(hist.move);
    free(hist.start);
    return end;
}

/* Beams of width 64, 256, 1024, ... (with one suit one per weight of a stock card
 * at each width) until a win, the phase's budget, or a beam that dropped nothing.
 * True for a win (then `path` holds it). */
static int beam_phase(Ctx *x, Path *path) {
    const int weights = x->many_suits ? 1 : (int)(sizeof stock_one / sizeof stock_one[0]);
    for (size_t width = BEAM_FIRST;; width *= BEAM_GROWTH) {
        BeamEnd end = BEAM_FAILED;
        for (int w = 0; w < weights && end == BEAM_FAILED; w++) {
            x->stock_card = x->many_suits ? STOCK_CARD : stock_one[w];
            end = beam(x, width, path);
        }
        if (end == BEAM_WON) return 1;
        if (end != BEAM_FAILED) return 0;
    }
}
