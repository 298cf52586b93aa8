/* forward.c: The breadth-first forward search over the stages (a hash table per stage) and the dominance
 * pruning at position boundaries.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ forward (breadth-first) */
typedef struct {
    uint64_t k0, k1;
    int32_t val, prev, tr;
    int32_t dead;
} Entry;

static Entry *en = NULL;
static size_t en_n = 0, en_cap = 0;
/* the forward pass's hash table of the layer being built: slot h in use when ht[h].stamp == curstamp;
 * a stage uses the first hact slots (a power of two about twice the entries it expects) */
typedef struct { int32_t idx; uint32_t stamp; } HSlot;
static HSlot *ht = NULL;
static size_t hcap = 0, hact = 0;
static uint32_t curstamp = 0;
static long last_states = 0, last_pruned = 0, last_nodes = 0;
/* every search's work since the module loaded: forward entries, depth-first and probe expansions (a
 * count, never a time, so a caller's budget in it replays identically on any machine; work()) */
static unsigned long long g_work = 0;
/* the question running gives up (error -6) once g_work passes this count (0: never): solve()'s
 * optional work cap, so that a caller can race another method by a count, never by time */
static unsigned long long g_cap_at = 0;
#define OVER_CAP() (g_cap_at && g_work > g_cap_at)
/* set while a capped question of solve() / by_card() runs after charge_relaxation(1) (the pipeline's
 * capped stages, search_within and by_card_within): its work also counts the per-suit relaxation
 * (each vector us_vec computes and the transitions it reads, the same for gmask_get), which on
 * joker tables can cost far more time
 * than the search it bounds. Vectors found in the table kept from earlier questions cost nothing, so
 * a caller that wants the count to depend on its questions alone starts them with a fresh table
 * (charge_relaxation(1, 1)). The values, and so every answer, do not depend on it. Otherwise (every
 * other question, capped ones included), work() counts the search alone. */
static int g_charge_mode = 0; /* charge_relaxation(): the capped questions that follow charge it */
static int g_charge_relax = 0;
static int last_method = 0; /* 1 forward, 2 depth-first */
static int g_prune = 1;
/* search schedule: a forward pass of at most g_budget entries; else a depth-first probe of at most
 * g_probe expansions; else a forward pass of at most g_budget2 entries; else depth-first to the
 * end (its memo kept from the probe), with at most g_memo_limit memo entries (else MemoryError,
 * and the Python side asks the mirrored position, then the integer programme: on the positions
 * that need more, mostly 3 decks with jokers, HiGHS answers in a fraction of the time the memo
 * would take to fill: 3-deck 4-joker bot games, worst move 31.6 s with 4,000,000 entries, 1.6 s
 * with 200,000; below about 200,000, big-hand positions whose integer programme is slow would
 * reach it too) */
static long g_budget = 5000;
static long g_probe = 10000;
/* the depth-first probe's expansions on the first level of a feasibility question (every weight 0:
 * any arrangement answers it, as for legal_plays' branches) with at least g_fjokers jokers that
 * may be added. With two or more such jokers most of those questions are refutations found at
 * once in one of the two sweep directions and only after a long search in the other, so the race
 * (solve.c) gets its turn sooner; with fewer the forward sweep usually finishes within g_probe and
 * an early race costs more than it saves. 0: g_probe */
static long g_fprobe = 300;
static int g_fjokers = 2;
static long g_budget2 = 2000000;
static long g_memo_limit = 200000;
static int g_force = 0; /* testing: 1 forward only, 2 depth-first only */
static long g_crowd = 40; /* tables this large start with the depth-first probe; -1: never (nor the whole-hand probe) */
static long g_jcrowd = 0; /* the same threshold when there are jokers: any table (40, the forward pass first
                             * on smaller ones: a lower median on small positions, twice the expansions
                             * over the greedy bots' questions in joker games) */
static int g_norm = 1;  /* testing: 0 turns the joker normalisation off */
static long dfs_expansions = 0, dfs_limit = 0;

typedef struct { int32_t from, to, tr, w; } Edge;
static Edge *ed = NULL;
static size_t ed_n = 0, ed_cap = 0;

static inline uint64_t key_hash(uint64_t k0, uint64_t k1) {
    uint64_t h = k0 * 0x9E3779B97F4A7C15ULL ^ (k1 + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return h ^ (h >> 29) ^ (h >> 47);
}

/* a fresh table of at least `need` slots (a power of two) for the current layer */
static int stage_table(size_t need) {
    HSlot *t = stamped_fresh(ht, &hcap, &curstamp, need, sizeof(HSlot));
    if (!t) return -1;
    ht = t;
    hact = need;
    return 0;
}

static int stage_begin(size_t expected) {
    size_t need = 16;
    while (need < expected * 2) need *= 2;
    return stage_table(need);
}

/* insert or improve; returns the entry index, or -1 on memory error */
static int32_t stage_put(size_t stage_start, uint64_t k0, uint64_t k1, int32_t val, int32_t prev, int32_t tr) {
    size_t used = en_n - stage_start;
    if ((used + 1) * 2 > hact) { /* twice the slots, this layer's entries again */
        if (stage_table(hact * 2) < 0) return -1;
        for (size_t i = stage_start; i < en_n; i++) {
            size_t h = key_hash(en[i].k0, en[i].k1) & (hact - 1);
            while (ht[h].stamp == curstamp) h = (h + 1) & (hact - 1);
            ht[h] = (HSlot){(int32_t)i, curstamp};
        }
    }
    size_t h = key_hash(k0, k1) & (hact - 1);
    while (ht[h].stamp == curstamp) {
        Entry *e = &en[ht[h].idx];
        if (e->k0 == k0 && e->k1 == k1) {
            if (val > e->val) { e->val = val; e->prev = prev; e->tr = tr; }
            return ht[h].idx;
        }
        h = (h + 1) & (hact - 1);
    }
    GROW(en, en_cap, en_n + 1);
    Entry *e = &en[en_n];
    e->k0 = k0; e->k1 = k1; e->val = val; e->prev = prev; e->tr = tr; e->dead = 0;
    ht[h] = (HSlot){(int32_t)en_n, curstamp};
    return (int32_t)en_n++;
}

/* ------------------------------------------------------------------ dominance */
/* Token a can do all that token b can: same kind (or a head for an ordinary run), at least as
 * long, no more jokers, no worse flags. Demands (obligations) only match themselves. */
static int tok_dom(uint16_t a, uint16_t b) {
    int ka = T_KIND(a), kb = T_KIND(b);
    if (ka == K_DEMAND || kb == K_DEMAND) return a == b;
    if (ka != kb && !(ka == K_HEAD && kb == K_NORMAL)) return 0;
    return T_LEN(a) >= T_LEN(b) && T_J(a) <= T_J(b) && T_REAL(a) >= T_REAL(b) && T_FLAG(a) <= T_FLAG(b) &&
           T_MRE(a) <= T_MRE(b);
}
/* a run that may be closed at once: having it open costs nothing */
static int tok_optional(uint16_t t) {
    return (T_KIND(t) == K_NORMAL || T_KIND(t) == K_HEAD) && T_LEN(t) >= 3 && T_REAL(t) && !T_MRE(t);
}
static int match_tokens(const SuitState *A, const SuitState *B, int bi, unsigned used) {
    if (bi == B->ntok) {
        for (int i = 0; i < A->ntok; i++)
            if (!((used >> i) & 1) && !tok_optional(A->tok[i])) return 0;
        return 1;
    }
    for (int i = 0; i < A->ntok; i++) {
        if ((used >> i) & 1) continue;
        if (i > 0 && A->tok[i] == A->tok[i - 1] && !((used >> (i - 1)) & 1)) continue; /* symmetric */
        if (tok_dom(A->tok[i], B->tok[bi]) && match_tokens(A, B, bi + 1, used | (1u << i))) return 1;
    }
    return 0;
}

#define DOM_EMPTY (~0ULL)
static uint64_t *dom_keys = NULL;
static int8_t *dom_vals = NULL;
static size_t dom_cap = 0, dom_n = 0;

/* does suit state a dominate suit state b (every future of b is open to a, same cards)? */
static int suit_dom(int32_t a, int32_t b) {
    if (a == b) return 1;
    const SuitState *A = &ss_arr[a], *B = &ss_arr[b];
    if (A->acelow != B->acelow || A->ntok < B->ntok) return 0;
    uint64_t key = ((uint64_t)a << 32) | (uint32_t)b;
    if (dom_cap == 0 || (dom_n + 1) * 2 > dom_cap) {
        size_t nc = dom_cap ? dom_cap * 2 : 4096;
        uint64_t *nk = malloc(nc * sizeof(uint64_t));
        int8_t *nv = malloc(nc);
        if (!nk || !nv) { free(nk); free(nv); return 0; }
        for (size_t i = 0; i < nc; i++) nk[i] = DOM_EMPTY;
        for (size_t i = 0; i < dom_cap; i++) {
            if (dom_keys[i] == DOM_EMPTY) continue;
            size_t h = mix64(dom_keys[i]) & (nc - 1);
            while (nk[h] != DOM_EMPTY) h = (h + 1) & (nc - 1);
            nk[h] = dom_keys[i];
            nv[h] = dom_vals[i];
        }
        free(dom_keys); free(dom_vals);
        dom_keys = nk; dom_vals = nv; dom_cap = nc;
    }
    size_t h = mix64(key) & (dom_cap - 1);
    while (dom_keys[h] != DOM_EMPTY) {
        if (dom_keys[h] == key) return dom_vals[h];
        h = (h + 1) & (dom_cap - 1);
    }
    int r = match_tokens(A, B, 0, 0);
    dom_keys[h] = key;
    dom_vals[h] = (int8_t)r;
    dom_n++;
    return r;
}

static int32_t *pr_head = NULL, *pr_next = NULL;
static size_t pr_cap = 0, pr_ncap = 0;

/* Among entries [a, b) that agree on everything but one suit's state, drop those whose value
 * and state are both matched by another entry. Returns the number dropped. */
static long prune_dominated(size_t a, size_t b) {
    size_t n = b - a;
    long dropped = 0;
    if (n < 2) return 0;
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > pr_cap) { free(pr_head); pr_head = malloc(cap * sizeof(int32_t)); pr_cap = pr_head ? cap : 0; }
    if (n > pr_ncap) { free(pr_next); pr_next = malloc(n * sizeof(int32_t)); pr_ncap = pr_next ? n : 0; }
    if (!pr_head || !pr_next) return 0;
    for (int s = 0; s < 4; s++) {
        uint64_t m0 = ~0ULL, m1 = ~0ULL; /* everything but suit s's state id */
        set_sid(&m0, &m1, s, 0);
        for (size_t i = 0; i < cap; i++) pr_head[i] = -1;
        for (size_t i = a; i < b; i++) {
            if (en[i].dead) continue;
            uint64_t mk = en[i].k0 & m0, mk1 = en[i].k1 & m1;
            size_t h = mix64(mk ^ mix64(mk1)) & (cap - 1);
            while (pr_head[h] >= 0) {
                Entry *f = &en[a + (size_t)pr_head[h]];
                if ((f->k0 & m0) == mk && (f->k1 & m1) == mk1) break;
                h = (h + 1) & (cap - 1);
            }
            pr_next[i - a] = pr_head[h];
            pr_head[h] = (int32_t)(i - a);
        }
        for (size_t hh = 0; hh < cap; hh++) {
            int32_t first = pr_head[hh];
            if (first < 0 || pr_next[first] < 0) continue;
            for (int32_t x = first; x >= 0; x = pr_next[x]) {
                Entry *ex = &en[a + (size_t)x];
                if (ex->dead) continue;
                int32_t sx = SID(ex->k0, ex->k1, s);
                for (int32_t y = first; y >= 0; y = pr_next[y]) {
                    Entry *ey = &en[a + (size_t)y];
                    if (y == x || ey->dead || ex->val < ey->val) continue;
                    if (suit_dom(sx, SID(ey->k0, ey->k1, s))) { ey->dead = 1; dropped++; }
                }
            }
        }
    }
    return dropped;
}

/* Forward pass. Returns 0 done, 1 over budget, <0 error. layer_start[L] = first entry of layer L
 * (the states before stage L); layer nst holds the final states. A stage that changes nothing
 * (no cards, no open runs in its suit, no jokers; or no group cards) is skipped: its layer is the
 * previous one and skipped[st] is set, ident[st] its transition. With edges, every
 * (from, to, transition, value) is recorded (ed_layer[st] = first edge of stage st) and dominance
 * pruning is off. */
static size_t layer_start[MAXST + 2];
static size_t ed_layer[MAXST + 2];
static int8_t skipped[MAXST];
static int32_t ident[MAXST];
static int32_t ident_cache[5][256]; /* identity transition of the empty suit state per (mjpm, flags) */
static int ident_ready = 0;
static void ident_reset(void) {
    for (int m = 0; m < 5; m++)
        for (int f = 0; f < 256; f++) ident_cache[m][f] = -1;
    ident_ready = 1;
}

static int32_t node_bound(const Query *q, int st, uint64_t k0, uint64_t k1);
static void us_reset(void);
static int us_err = 0;
static long g_alive = -1; /* layers larger than this drop entries the per-suit relaxation proves dead */

static int run_forward(Query *q, long budget, int edges) {
    en_n = 0;
    ed_n = 0;
    if (stage_begin(16) < 0) return -1;
    layer_start[0] = 0;
    uint64_t e0 = (uint64_t)q->e0;
    if (stage_put(0, k0_init((int32_t)e0), k1_init((int32_t)e0), 0, -1, -1) < 0) return -1;
    int mask = 0, anyS = 0; /* suits with open runs somewhere in the layer; group cards pending */
    for (int st = 0; st < q->nst; st++) {
        size_t a = layer_start[st], b = en_n;
        int s = q->S[st].s, p = q->S[st].p;
        ed_layer[st] = ed_n;
        /* identity stages */
        int skip = 0;
        if (s == 4) {
            if (!anyS) { skip = 1; ident[st] = 0; }
        } else if (!((mask >> s) & 1) && q->hiJ == 0) {
            int l, h;
            pos_bounds(q, p, s, 0, &l, &h);
            if (h == 0) {
                int fl = q->P[p].flags & 255;
                int32_t ts = ident_cache[g_mjpm][fl], tcnt;
                if (ts == -1) {
                    int r = get_trans(q->e0, 0, 0, 0, fl, &ts, &tcnt);
                    if (r < 0) return r;
                    if (!(tcnt == 1 && tr_arr[ts].new_id == q->e0)) ts = -2;
                    ident_cache[g_mjpm][fl] = ts;
                }
                if (ts >= 0) { skip = 1; ident[st] = ts; }
            }
        }
        skipped[st] = (int8_t)skip;
        if (skip) { layer_start[st + 1] = a; continue; }
        if (stage_begin(b - a + 16) < 0) return -1;
        layer_start[st + 1] = b;
        int nmask = 0, nanyS = 0;
        int check = g_alive >= 0 && (long)(b - a) > g_alive && s != 4;
        for (size_t i = a; i < b; i++) {
            if (en[i].dead) continue;
            uint64_t k0 = en[i].k0, k1 = en[i].k1;
            int32_t val = en[i].val;
            succ_n = 0;
            int r = successors(q, st, k0, k1);
            if (r < 0) return r;
            for (size_t k = 0; k < succ_n; k++) {
                Succ *sc = &succ_buf[k];
                if (check) {
                    int32_t ub = node_bound(q, st + 1, sc->k0, sc->k1);
                    if (us_err) return us_err;
                    if (ub <= NEG) continue;
                }
                size_t before = en_n;
                int32_t to = stage_put(b, sc->k0, sc->k1, val + sc->w, (int32_t)i, sc->tr);
                if (to < 0) return -1;
                if (en_n != before) {
                    for (int u = 0; u < 4; u++) nmask |= (SID(sc->k0, sc->k1, u) != q->e0) << u;
                    nanyS |= K1_S(sc->k1) > 0;
                }
                if (edges) {
                    GROW(ed, ed_cap, ed_n + 1);
                    ed[ed_n++] = (Edge){(int32_t)i, to, sc->tr, sc->w};
                }
            }
            /* a capped question gives up as soon as its entries pass the cap, not at the stage's end:
             * one stage of a big hand over a joker table can hold tens of thousands of entries */
            if (g_cap_at && g_work + en_n > g_cap_at) { g_work += en_n; return -6; }
        }
        mask = nmask;
        anyS = nanyS;
        int boundary = s == 4 || (s == 3 && (q->P[p].flags & F_NOGROUP));
        if (boundary && g_prune && !edges && en_n - b >= 24) last_pruned += prune_dominated(b, en_n);
        if (budget && (long)(en_n + ed_n) > budget) { g_work += en_n; return 1; }
    }
    ed_layer[q->nst] = ed_n;
    layer_start[q->nst + 1] = en_n;
    last_states += (long)en_n;
    g_work += en_n;
    return 0;
}

/* the path (one transition per stage) of forward entry `cur` at layer `layer` */
static int32_t path_back(int layer, int32_t cur, int32_t *path) {
    for (int st = layer - 1; st >= 0; st--) {
        if (skipped[st]) { path[st] = ident[st]; continue; }
        path[st] = en[cur].tr;
        cur = en[cur].prev;
    }
    return cur;
}
