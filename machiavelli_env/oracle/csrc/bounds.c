/* bounds.c: Upper bounds (the per-suit relaxation) and the depth-first branch and bound with its memo of
 * exact values and proven bounds.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ per-suit relaxation */
/* us(s, p, sid): the most value suit s alone can add after position p (p = -1: from the start)
 * from open runs sid, with groups allowed wherever the rank could form one and every joker
 * available; NEG if its runs cannot be completed. An upper bound for the depth-first search. */
typedef struct { uint64_t key; int32_t val; uint32_t stamp; } USlot; /* in use when stamp == us_cur */
#define US_START ((size_t)1 << 14)
static USlot *ut = NULL, *ut_tmp = NULL;
static size_t us_cap = 0, us_n = 0; /* allocated slots, entries of this query */
static size_t us_act = 0;            /* active slots (as for the memo): a power of two, at most us_cap */
static uint32_t us_cur = 1;

static int us_grow(void);
static inline int us_reserve(void) {
    if (us_act && (us_n + 1) * 2 <= us_act) return 0;
    return us_grow();
}
/* doubles the active part of the table (allocating more when needed) */
static int us_grow(void) {
    size_t nc = us_act ? us_act * 2 : US_START, n = 0;
    USlot *tmp = realloc(ut_tmp, (us_n + 1) * sizeof(USlot)); /* this query's entries, moved aside */
    if (!tmp) return -1;
    ut_tmp = tmp;
    for (size_t i = 0; i < us_act; i++)
        if (ut[i].stamp == us_cur) tmp[n++] = ut[i];
    USlot *t = stamped_fresh(ut, &us_cap, &us_cur, nc, sizeof(USlot));
    if (!t) return -1;
    ut = t;
    us_act = nc;
    for (size_t i = 0; i < n; i++) {
        size_t h = mix64(tmp[i].key) & (nc - 1);
        while (ut[h].stamp == us_cur) h = (h + 1) & (nc - 1);
        ut[h] = tmp[i];
        ut[h].stamp = us_cur;
    }
    return 0;
}

/* the slot of key: the one holding it, or the free one where it goes */
static inline size_t us_slot(uint64_t key) {
    size_t h = mix64(key) & (us_act - 1);
    while (ut[h].stamp == us_cur && ut[h].key != key) h = (h + 1) & (us_act - 1);
    return h;
}
/* 1 and *val when key is cached */
static inline int us_find(uint64_t key, int32_t *val) {
    size_t h = us_slot(key);
    if (ut[h].stamp != us_cur) return 0;
    *val = ut[h].val;
    return 1;
}
/* insert a key known to be absent (the table may have grown since us_find: look afresh) */
static int us_put(uint64_t key, int32_t val) {
    if (us_reserve() < 0) return -1;
    ut[us_slot(key)] = (USlot){key, val, us_cur};
    us_n++;
    return 0;
}

/* us_err: declared above run_forward */
static int g_usj = 1; /* the relaxation counts the jokers still available (else: all of them) */
/* The relaxation of one suit state is kept for all joker budgets up to the largest asked for: a
 * vector of values by budget (0 .. junit * hiJ <= 14) and that largest budget, one cache lookup
 * where the joker split asks for every budget. */
#define UV_LEN 16
#define UV_HB 15             /* the slot of a vector holding the largest budget it is valid for */
static int32_t *uv = NULL; /* the vectors of this query, UV_LEN values each */
static size_t uv_n = 0, uv_cap = 0;
#define UV_DONE (-2) /* the vector of a state whose runs may all end at the last position: all 0 */
#define UV_DEAD (-3) /* ... whose runs may not: all NEG */
static int32_t uv_done[UV_LEN], uv_dead[UV_LEN];
/* the vectors kept from query to query (see us_vec): indices from KV_BASE on */
#define KV_BASE ((int32_t)1 << 30)
static int32_t *kv = NULL;
static size_t kv_n = 0, kv_cap = 0;
static inline int32_t *uv_w(int32_t i) {
    return i >= KV_BASE ? kv + (size_t)(i - KV_BASE) * UV_LEN : uv + (size_t)i * UV_LEN;
}
static inline const int32_t *uv_at(int32_t i) {
    return i >= 0 ? uv_w(i) : i == UV_DONE ? uv_done : uv_dead;
}

/* a new vector's index in the store (arr, n, cap) (its values unset), or -1 (out of memory) */
static int32_t vec_new(int32_t **arr, size_t *n, size_t *cap) {
    if (*n + 1 > *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        int32_t *t = realloc(*arr, nc * UV_LEN * sizeof(int32_t));
        if (!t) return -1;
        *arr = t;
        *cap = nc;
    }
    return (int32_t)(*n)++;
}

/* A feasibility question's relaxation vectors (every weight 0: legal_plays' branch questions, whose
 * enumeration asks many near-identical ones) are kept from query to query. us(s, p, sid, .) reads only what suit s
 * holds at the positions after p (bounds, weights, flags, group limits), the joker weight and unit
 * and the rules, so its key is the suit state with an interned signature of exactly those: a
 * question that differs from an earlier one in a few cards (the next branch of an enumeration, the
 * next turn of a game) finds the vectors of every suit and position its changes do not reach. A
 * signature is an exact record (its parent's id and one position's fields), never a hash, so equal
 * keys mean equal vectors. At most UP_MAX vectors (64 bytes each) are kept: past that, the next
 * search starts from an empty table (one search adds what it needs). Answers never depend on it.
 * Other questions keep their vectors for one search only, in a table that starts small: on the
 * greedy bots' best_play questions a kept table was slower (its size costs more cache misses than
 * the vectors it finds save; on the joker presets' questions too, measured again). */
typedef struct {
    uint32_t parent; /* the signature of the positions after this one; SIG_END for the base record */
    int32_t w;
    uint8_t rank, flags, lo, hi;
    int8_t gcost, gmax;
    uint8_t a, b;
} SigRec;
#define SIG_END UINT32_MAX
#define UP_MAX ((size_t)1 << 18)
#define SIG_MAX ((size_t)1 << 20)
static SigRec *sig_arr = NULL;
static size_t sig_n = 0, sig_cap = 0;
static int32_t *sig_tab = NULL; /* open addressing: index or -1 */
static size_t sig_tabcap = 0;
static uint32_t sig_gen = 1; /* bumped when the signatures are dropped (Query.usig_gen) */
typedef struct { uint64_t key; int32_t idx; } PSlot; /* idx -1: free */
static PSlot *pt = NULL;
static size_t pt_cap = 0, up_n = 0;

static inline uint64_t sig_hash(const SigRec *r) {
    uint64_t a, b;
    memcpy(&a, r, 8);
    memcpy(&b, (const char *)r + 8, 8);
    return mix64(a ^ mix64(b));
}
static int sig_rehash(size_t nc) {
    int32_t *t = malloc(nc * sizeof(int32_t));
    if (!t) return -1;
    for (size_t i = 0; i < nc; i++) t[i] = -1;
    for (size_t k = 0; k < sig_n; k++) {
        size_t h = sig_hash(&sig_arr[k]) & (nc - 1);
        while (t[h] >= 0) h = (h + 1) & (nc - 1);
        t[h] = (int32_t)k;
    }
    free(sig_tab);
    sig_tab = t;
    sig_tabcap = nc;
    return 0;
}
/* the id of record r (interned), or SIG_END on memory error */
static uint32_t sig_intern(const SigRec *r) {
    if (sig_tabcap == 0 || (sig_n + 1) * 2 > sig_tabcap)
        if (sig_rehash(sig_tabcap ? sig_tabcap * 2 : 1024) < 0) return SIG_END;
    size_t h = sig_hash(r) & (sig_tabcap - 1);
    while (sig_tab[h] >= 0) {
        if (memcmp(&sig_arr[sig_tab[h]], r, sizeof *r) == 0) return (uint32_t)sig_tab[h];
        h = (h + 1) & (sig_tabcap - 1);
    }
    if (sig_n + 1 > sig_cap) {
        size_t nc = sig_cap ? sig_cap * 2 : 1024;
        SigRec *a = realloc(sig_arr, nc * sizeof(SigRec));
        if (!a) return SIG_END;
        sig_arr = a;
        sig_cap = nc;
    }
    sig_arr[sig_n] = *r;
    sig_tab[h] = (int32_t)sig_n;
    return (uint32_t)sig_n++;
}
/* q's signatures: per suit, from the last position down (each record names the one after it) */
static int usig_compute(Query *q) {
    for (int s = 0; s < 4; s++) {
        SigRec r;
        memset(&r, 0, sizeof r);
        r.parent = SIG_END;
        r.w = q->wJ;
        r.rank = 0xff;
        r.flags = (uint8_t)q->junit;
        r.lo = (uint8_t)g_mjpm;
        r.hi = (uint8_t)q->ace;
        r.gcost = (int8_t)g_gjc;
        uint32_t id = sig_intern(&r);
        for (int i = q->np - 1; i >= 0 && id != SIG_END; i--) {
            int c = s * 13 + q->P[i].rank;
            memset(&r, 0, sizeof r);
            r.parent = id;
            r.w = q->w[c];
            r.rank = q->P[i].rank;
            r.flags = q->P[i].flags;
            r.lo = q->lo[c];
            r.hi = q->hi[c];
            r.gcost = q->gcost[i];
            r.gmax = q->gmax[i];
            id = sig_intern(&r);
            q->usig[s][i] = id;
        }
        if (id == SIG_END) return -1;
    }
    q->usig_gen = sig_gen;
    return 0;
}
/* drop the kept vectors (and, with sigs, the signatures) */
static void up_clear(int sigs) {
    if (pt) for (size_t i = 0; i < pt_cap; i++) pt[i].idx = -1;
    up_n = 0;
    kv_n = 0;
    if (sigs) {
        sig_n = 0;
        if (sig_tab) for (size_t i = 0; i < sig_tabcap; i++) sig_tab[i] = -1;
        if (++sig_gen == 0) sig_gen = 1;
    }
}
static int up_rehash(size_t nc) {
    PSlot *t = malloc(nc * sizeof(PSlot));
    if (!t) return -1;
    for (size_t i = 0; i < nc; i++) t[i].idx = -1;
    for (size_t k = 0; k < pt_cap; k++) {
        if (pt[k].idx < 0) continue;
        size_t h = mix64(pt[k].key) & (nc - 1);
        while (t[h].idx >= 0) h = (h + 1) & (nc - 1);
        t[h] = pt[k];
    }
    free(pt);
    pt = t;
    pt_cap = nc;
    return 0;
}
static inline int up_reserve(void) {
    if (pt_cap && (up_n + 1) * 2 <= pt_cap) return 0;
    return up_rehash(pt_cap ? pt_cap * 2 : 4096);
}
static inline size_t up_slot(uint64_t key) {
    size_t h = mix64(key) & (pt_cap - 1);
    while (pt[h].idx >= 0 && pt[h].key != key) h = (h + 1) & (pt_cap - 1);
    return h;
}

/* us(s, p, sid, .): the index of a vector of the most value suit s alone can add after position p
 * for each joker budget b <= need (in units of 1 / q->junit joker; valid up to its [UV_HB] >= need),
 * NEG where its runs cannot be completed; -1 on error (us_err set). Non-decreasing in b. Only the
 * transitions affordable with `need` are followed, as a question about that budget alone would. */
static int32_t us_vec(const Query *q, int s, int p, int32_t sid, int need) {
    if (p == q->np - 1) return ss_arr[sid].final_ok ? UV_DONE : UV_DEAD;
    const int kept = q->feas;
    uint64_t key;
    int32_t idx = -1;
    if (kept) {
        if (q->usig_gen != sig_gen && usig_compute((Query *)q) < 0) { us_err = -1; return -1; }
        key = (uint64_t)sid | ((uint64_t)q->usig[s][p + 1] << SIDBITS);
        if (up_reserve() < 0) { us_err = -1; return -1; }
        idx = pt[up_slot(key)].idx;
    } else {
        key = (uint64_t)sid | ((uint64_t)s << 21) | ((uint64_t)(p + 1) << 23);
        if (us_reserve() < 0) { us_err = -1; return -1; }
        if (!us_find(key, &idx)) idx = -1;
    }
    if (idx >= 0 && uv_at(idx)[UV_HB] >= need) return idx;
    int pp = p + 1, al = ss_arr[sid].acelow, l, hh;
    pos_bounds(q, pp, s, al, &l, &hh);
    const int B = need;
    int32_t best[UV_LEN];
    for (int b = 0; b <= B; b++) best[b] = NEG;
    if (hh >= 0) {
        int32_t ts, tcnt;
        int r = get_trans(sid, l, hh, B / q->junit, q->P[pp].flags, &ts, &tcnt);
        if (r < 0) { us_err = r; return -1; }
        const CardValue cv = card_value_at(q, s * 13 + q->P[pp].rank, q->P[pp].flags, al);
        const int ju = q->junit, gc = q->gcost[pp];
        for (int32_t k = 0; k < tcnt; k++) {
            Trans t = tr_arr[ts + k]; /* copied: the recursion may grow tr_arr */
            if (t.g > q->gmax[pp]) continue;
            int cost = ju * t.jr + gc * t.g;
            if (cost > B) continue;
            int32_t ci = us_vec(q, s, pp, t.new_id, B - cost);
            if (ci == -1) return -1;
            const int32_t *c = uv_at(ci), add = trans_value(cv, &t) - cv.wJ * t.jr;
            for (int b = cost; b <= B; b++) {
                int32_t v = c[b - cost];
                if (v > NEG && v + add > best[b]) best[b] = v + add;
            }
        }
        if (g_charge_relax) g_work += (unsigned long long)tcnt;
    }
    if (g_charge_relax && (++g_work, OVER_CAP())) { us_err = -6; return -1; }
    if (idx < 0 && kept) { /* else a larger budget than before: the same values below it, more above */
        if ((idx = vec_new(&kv, &kv_n, &kv_cap)) < 0 || up_reserve() < 0) { us_err = -1; return -1; }
        idx += KV_BASE;
        pt[up_slot(key)] = (PSlot){key, idx}; /* (the recursion may have grown the table) */
        up_n++;
    } else if (idx < 0) {
        if ((idx = vec_new(&uv, &uv_n, &uv_cap)) < 0 || us_put(key, idx) < 0) { us_err = -1; return -1; }
    }
    int32_t *out = uv_w(idx);
    memcpy(out, best, (size_t)(B + 1) * sizeof(int32_t));
    out[UV_HB] = B;
    return idx;
}

/* the values of us(s, p, sid, b) for b <= need (valid until the next us_vec call), or NULL (us_err set) */
static inline const int32_t *us_values(const Query *q, int s, int p, int32_t sid, int need) {
    int32_t i = us_vec(q, s, p, sid, need);
    return i == -1 ? NULL : uv_at(i);
}

/* us(s, p, sid, bud): the most value suit s alone can add after position p (p = -1: from the start)
 * from open runs sid, with groups allowed wherever the rank could form one and a joker budget of bud
 * units; NEG if its runs cannot be completed. An upper bound for the depth-first search. */
static inline int32_t us_get(const Query *q, int s, int p, int32_t sid, int bud) {
    if (!g_usj) bud = q->junit * q->hiJ;
    const int32_t *v = us_values(q, s, p, sid, bud);
    return v ? v[bud] : NEG;
}

static void us_reset(void) {
    us_n = 0;
    us_act = us_cap < US_START ? us_cap : US_START;
    if (ut) ut = stamped_fresh(ut, &us_cap, &us_cur, 0, sizeof(USlot)); /* a new stamp: never fails */
    uv_n = 0;
    if (up_n > UP_MAX || sig_n > SIG_MAX) up_clear(sig_n > SIG_MAX); /* between searches only */
    if (uv_dead[0] != NEG) { /* once: the constant vectors */
        for (int b = 0; b < UV_LEN; b++) uv_dead[b] = NEG;
        uv_done[UV_HB] = uv_dead[UV_HB] = UV_LEN;
    }
}

/* gmask(s, p, sid, jav): bitmask of the numbers of cards suit s (open runs sid, before position
 * p) can send to groups at p while its runs can still be completed. Cached beside us_get. */
static int gmask_get(const Query *q, int s, int p, int32_t sid, int jav) {
    if (!g_usj) jav = q->hiJ;
    uint64_t key = (uint64_t)sid | ((uint64_t)s << 21) | ((uint64_t)p << 23) | ((uint64_t)jav << 27) | (1ULL << 31);
    if (us_reserve() < 0) { us_err = -1; return 0; }
    int32_t cached;
    if (us_find(key, &cached)) return cached;
    int al = ss_arr[sid].acelow, l, hh, mask = 0;
    pos_bounds(q, p, s, al, &l, &hh);
    if (hh >= 0) {
        int32_t ts, tcnt;
        int r = get_trans(sid, l, hh, jav, q->P[p].flags, &ts, &tcnt);
        if (r < 0) { us_err = r; return 0; }
        const Look look = look_at(q, p, s);
        const int ju = q->junit, gc = q->gcost[p], bud = ju * jav;
        for (int32_t k = 0; k < tcnt; k++) {
            Trans t = tr_arr[ts + k];
            if (mask & (1 << t.g) || t.g > q->gmax[p]) continue;
            if (!look_ok(look, &t, jav - t.jr)) continue;
            int cost = ju * t.jr + gc * t.g;
            if (cost > bud || us_get(q, s, p, t.new_id, bud - cost) <= NEG) continue;
            mask |= 1 << t.g;
        }
        if (g_charge_relax) g_work += (unsigned long long)tcnt;
    }
    if (g_charge_relax && (++g_work, OVER_CAP())) { us_err = -6; return 0; }
    if (us_put(key, mask) < 0) { us_err = -1; return 0; }
    return mask;
}

/* can partial group cards (S, M) plus g_s from the masks of suits s0.. form groups with at most
 * jav jokers? The reachable (S, M) pairs, S <= 15 and M <= 3, are the 64 bits S * 4 + M of a word:
 * a suit sending g cards to the groups moves bit (S, M) to (S + g, max(M, g)), and pairs beyond
 * S = 15 fall off the top (no group holds them); gr_final[mjpm][jav] marks the pairs that
 * group_feasible completes with at most jav jokers. */
#define GR_M0 0x1111111111111111ULL
static uint64_t gr_final[5][8];
static int gr_final_ready[5];

static inline uint64_t gr_step(uint64_t x, int g) {
    switch (g) {
        case 0: return x;
        case 1: return ((x & ~GR_M0) | ((x & GR_M0) << 1)) << 4;
        case 2: return ((x & (GR_M0 << 2 | GR_M0 << 3)) | ((x & GR_M0) << 2) | ((x & GR_M0 << 1) << 1)) << 8;
        default: return ((x & GR_M0 << 3) | ((x & GR_M0) << 3) | ((x & GR_M0 << 1) << 2) | ((x & GR_M0 << 2) << 1)) << 12;
    }
}

static int group_reach(int S, int M, const int *mask, int s0, int jav) {
    if (!gr_final_ready[g_mjpm]) {
        for (int j = 0; j < 8; j++) {
            uint64_t f = 0;
            for (int a = 0; a < 16; a++)
                for (int b = 0; b < 4; b++)
                    for (int jg = 0; jg <= j; jg++)
                        if (group_feasible(a, b, jg)) { f |= 1ULL << (a * 4 + b); break; }
            gr_final[g_mjpm][j] = f;
        }
        gr_final_ready[g_mjpm] = 1;
    }
    if (S > 15 || M > 3) return 0;
    uint64_t x = 1ULL << (S * 4 + M);
    for (int s = s0; s < 4 && x; s++) {
        uint64_t y = 0;
        for (int g = 0; g < 4; g++)
            if (mask[s] & (1 << g)) y |= gr_step(x, g);
        x = y;
    }
    return (x & gr_final[g_mjpm][jav > 7 ? 7 : jav]) != 0;
}

/* Joker split: the suits' relaxations share the jokers left. us_get(.., b) is the most a suit can add
 * with a joker budget of b units (non-decreasing in b), so the best split of the budget among the
 * suits is a small knapsack, g[j] = max over b <= j of g_prev[j - b] + us(s, b). Without it each
 * suit could count on every joker. set_params(jsplit=0) turns it off. */
static int g_jsplit = 1;

/* g[0..B] := the knapsack over suits 0..3 but `skip` (-1: none) at stage st, B units of joker
 * budget (us_get); 0 ok, NEG dead */
static int32_t joker_knapsack(const Query *q, int st, uint64_t k0, uint64_t k1, int B, int skip, int32_t *g) {
    for (int j = 0; j <= B; j++) g[j] = 0;
    for (int s = 0; s < 4; s++) {
        if (s == skip) continue;
        int32_t ng[16];
        const int32_t *f = us_values(q, s, q->bnd[st][s], SID(k0, k1, s), B); /* g_usj: see node_bound */
        if (!f || f[B] <= NEG) return NEG;
        /* without branches: a sum with a dead term (NEG) stays below NEG / 2, where no sum of
         * live values reaches (they are far above it), so the largest sum is the largest live one */
        for (int j = 0; j <= B; j++) {
            int32_t best = g[j] + f[0];
            for (int b = 1; b <= j; b++) {
                int32_t v = g[j - b] + f[b];
                best = v > best ? v : best;
            }
            ng[j] = best < NEG / 2 ? NEG : best;
        }
        for (int j = 0; j <= B; j++) g[j] = ng[j];
        if (g[B] <= NEG) return NEG;
    }
    return 0;
}

/* upper bound on what state (k0, k1) before stage st can still add (NEG: no completion) */
static int32_t node_bound(const Query *q, int st, uint64_t k0, uint64_t k1) {
    int jav = q->hiJ - K1_J(k1);
    int32_t u = q->wJ * jav;
    const int B = q->junit * jav;
    if (jav > 0 && g_jsplit && g_usj) {
        int32_t g[16];
        if (joker_knapsack(q, st, k0, k1, B, -1, g) <= NEG) return NEG;
        u += g[B];
    } else {
        for (int s = 0; s < 4; s++) {
            int32_t v = us_get(q, s, q->bnd[st][s], SID(k0, k1, s), B);
            if (v <= NEG) return NEG;
            u += v;
        }
    }
    /* the groups of the current rank: the suits still to come must be able to complete them */
    if (st < q->nst) {
        int p = q->S[st].p, s0 = q->S[st].s;
        if (!(q->P[p].flags & F_NOGROUP)) {
            int mask[4] = {1, 1, 1, 1};
            for (int s = s0; s < 4; s++) {
                mask[s] = gmask_get(q, s, p, SID(k0, k1, s), jav);
                if (!mask[s]) return NEG;
            }
            if (!group_reach(K1_S(k1), K1_M(k1), mask, s0, jav)) return NEG;
        }
    }
    return u;
}

/* Bounds of the children of one suit-stage node whose child stage is at the same position (the next
 * suit or the group stage; see child_bounds_apply), computed incrementally: a child differs from its
 * parent only in suit s's state and in the counters of k1, so for each number of jokers left the
 * other suits' relaxation terms and the group masks of the suits after s are shared by all
 * children. The values are those of node_bound(q, st + 1, child) exactly. */
typedef struct {
    int st, s, p1, s01, groups; /* parent stage and suit; the child stage's position and suit (> s); groups */
    int8_t have[8];              /* per jokers left: shared terms computed */
    int32_t other[8];            /* wJ * jav + the relaxation of the suits other than s (NEG: dead) */
    int32_t split[8][16];        /* with the joker split: [jav][b] the other suits' knapsack with b units */
    int mask[8][4];              /* group masks of the suits after s at the child stage */
    int gr_jav;                  /* group_reach answers for jokers left gr_jav: per (S, M), -1 unknown */
    int8_t gr[16][4];
} ChildBounds;

/* does node stage st qualify? a suit stage whose next stage is the next suit or the group stage of
 * the same position (at the next position's first suit, suit s's own mask would be needed) */
static int child_bounds_apply(const Query *q, int st) {
    return q->S[st].s < 4 && st + 1 < q->nst && q->S[st + 1].s > q->S[st].s;
}

static void child_bounds_init(const Query *q, int st, ChildBounds *cb) {
    cb->st = st;
    cb->s = q->S[st].s;
    cb->p1 = q->S[st + 1].p;
    cb->s01 = q->S[st + 1].s;
    cb->groups = !(q->P[cb->p1].flags & F_NOGROUP);
    memset(cb->have, 0, sizeof cb->have);
    cb->gr_jav = -1;
}

static int32_t child_bound(const Query *q, ChildBounds *cb, uint64_t k0, uint64_t k1) {
    int st1 = cb->st + 1, s = cb->s;
    int jav = q->hiJ - K1_J(k1);
    int split = jav > 0 && g_jsplit && g_usj;
    const int B = q->junit * jav;
    if (!cb->have[jav]) {
        int32_t u = q->wJ * jav;
        if (split) {
            if (joker_knapsack(q, st1, k0, k1, B, s, cb->split[jav]) <= NEG) u = NEG;
        } else {
            for (int v = 0; v < 4 && u > NEG; v++) {
                if (v == s) continue;
                int32_t x = us_get(q, v, q->bnd[st1][v], SID(k0, k1, v), B);
                u = x <= NEG ? NEG : u + x;
            }
        }
        if (cb->groups && u > NEG)
            for (int v = cb->s01; v < 4; v++) {
                cb->mask[jav][v] = gmask_get(q, v, cb->p1, SID(k0, k1, v), jav);
                if (!cb->mask[jav][v]) { u = NEG; break; }
            }
        cb->other[jav] = u;
        cb->have[jav] = 1;
        if (us_err) return NEG;
    }
    if (cb->other[jav] <= NEG) return NEG;
    const int Bx = g_usj ? B : q->junit * q->hiJ;
    const int32_t *fv = us_values(q, s, q->bnd[st1][s], SID(k0, k1, s), Bx);
    if (!fv) return NEG;
    int32_t x = fv[Bx];
    if (x <= NEG) return NEG;
    if (split) {
        int32_t best = NEG;
        for (int b = 0; b <= B; b++) {
            int32_t o = cb->split[jav][B - b];
            if (o <= NEG) continue;
            int32_t f = fv[b];
            if (f > NEG && o + f > best) best = o + f;
        }
        if (best <= NEG) return NEG;
        x = best;
    }
    if (cb->groups) { /* the child stage's suits all come after s: their masks are shared */
        if (cb->gr_jav != jav) { memset(cb->gr, -1, sizeof cb->gr); cb->gr_jav = jav; }
        int S = K1_S(k1), M = K1_M(k1);
        if (cb->gr[S][M] < 0) {
            int mask[4] = {1, 1, 1, 1};
            for (int v = cb->s01; v < 4; v++) mask[v] = cb->mask[jav][v];
            cb->gr[S][M] = (int8_t)group_reach(S, M, mask, cb->s01, jav);
        }
        if (!cb->gr[S][M]) return NEG;
    }
    return cb->other[jav] + x;
}

/* ------------------------------------------------------------------ depth-first branch and bound */
typedef struct { uint64_t k0, k1; int32_t ub, best; int16_t st; int8_t exact, pad; } MEntry;
static MEntry *me = NULL;
static size_t me_n = 0, me_cap = 0;
/* memo hash table: slot h is in use when mt[h].stamp == mt_cur, so that a new query clears the
 * table by bumping mt_cur instead of rewriting it (it may hold a million slots). Each query starts
 * on the first MT_START slots and doubles that active part as its entries grow: a small search
 * touches a few cache lines and pages however large an earlier query made the allocation */
typedef struct { int32_t idx; uint32_t stamp; } MSlot;
#define MT_START ((size_t)1 << 12)
static MSlot *mt = NULL;
static uint32_t mt_cur = 1;
static size_t mt_cap = 0; /* allocated slots */
static size_t mt_act = 0; /* slots in use by this query: a power of two, at most mt_cap */
static int dfs_err = 0;

static inline size_t stage_hash(int st, uint64_t k0, uint64_t k1) {
    return (size_t)mix64(k0 ^ mix64(k1 ^ ((uint64_t)st << 24)));
}

static int memo_reserve(void) {
    if (mt_act && (me_n + 1) * 2 <= mt_act) return 0;
    size_t nc = mt_act ? mt_act * 2 : MT_START;
    MSlot *t = stamped_fresh(mt, &mt_cap, &mt_cur, nc, sizeof(MSlot));
    if (!t) return -1;
    mt = t;
    mt_act = nc;
    for (size_t i = 0; i < me_n; i++) { /* the entries again, in the larger active part */
        size_t h = stage_hash(me[i].st, me[i].k0, me[i].k1) & (nc - 1);
        while (mt[h].stamp == mt_cur) h = (h + 1) & (nc - 1);
        mt[h] = (MSlot){(int32_t)i, mt_cur};
    }
    return 0;
}
/* index of the memo entry of (st, k0, k1), or -1 */
static int32_t memo_find(int st, uint64_t k0, uint64_t k1, size_t *slot) {
    size_t h = stage_hash(st, k0, k1) & (mt_act - 1);
    while (mt[h].stamp == mt_cur) {
        MEntry *m = &me[mt[h].idx];
        if (m->k0 == k0 && m->k1 == k1 && m->st == st) return mt[h].idx;
        h = (h + 1) & (mt_act - 1);
    }
    *slot = h;
    return -1;
}

/* a new memo entry in the free slot memo_find gave; its index, or -1 (out of memory) */
static int32_t memo_add(int st, uint64_t k0, uint64_t k1, int32_t ub, int exact, size_t slot) {
    if (me_n + 1 > me_cap) {
        size_t nc = me_cap ? me_cap * 2 : 4096;
        MEntry *nm = realloc(me, nc * sizeof(MEntry));
        if (!nm) return -1;
        me = nm; me_cap = nc;
    }
    int32_t idx = (int32_t)me_n++;
    me[idx] = (MEntry){k0, k1, ub, -1, (int16_t)st, (int8_t)exact, 0};
    mt[slot] = (MSlot){idx, mt_cur};
    return idx;
}

/* does stage st leave this state unchanged (no cards, no choice)? */
static int identity_step(const Query *q, int st, uint64_t k0, uint64_t k1, int32_t *tr) {
    int s = q->S[st].s;
    if (s == 4) { *tr = 0; return K1_S(k1) == 0; }
    int p = q->S[st].p;
    int32_t sid = SID(k0, k1, s);
    if (sid != q->e0 || q->hiJ > K1_J(k1)) return 0;
    int l, h;
    pos_bounds(q, p, s, 0, &l, &h);
    if (h != 0 || (q->P[p].flags & (F_SET_ACELOW | F_CLEAR_ACELOW))) return 0;
    int32_t ts, tcnt;
    if (get_trans(sid, 0, 0, 0, q->P[p].flags, &ts, &tcnt) < 0 || tcnt != 1) return 0;
    *tr = ts;
    return 1;
}

/* children order: best bound first, then the tie key h (larger first), then the transition index
 * (unique among siblings, so the order is total) */
static inline int succ_before(const Succ *x, const Succ *y) {
    if (x->bound != y->bound) return x->bound > y->bound;
    if (x->h != y->h) return x->h > y->h;
    return x->tr < y->tr;
}
static int cmp_bound_desc(const void *a, const void *b) {
    return succ_before(a, b) ? -1 : succ_before(b, a) ? 1 : 0;
}
/* sort siblings in that order: insertion sort for the usual handful, qsort beyond */
static void sort_succ(Succ *a, size_t n) {
    if (n > 48) { qsort(a, n, sizeof(Succ), cmp_bound_desc); return; }
    for (size_t i = 1; i < n; i++) {
        Succ x = a[i];
        size_t j = i;
        while (j > 0 && succ_before(&x, &a[j - 1])) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* Fail-soft search: the exact best completion value of (st, k0, k1) if it is >= need, else an
 * upper bound on it that is < need (NEG: no completion). `known` is node_bound(q, st, k0, k1) when
 * the caller has it (else UB_UNKNOWN). `acc`: the value of the path from the root. With a known
 * bound q->cap on the optimum, a solution whose total reaches it ends the search: it is optimal,
 * every node on its path holds its exact value, and the search would have kept it anyway (only a
 * strictly better one replaces a solution found). Only in a level without an expansion budget
 * (unless q->cap_anywhere): there the answer is the same, found sooner, while a budgeted level
 * that would have run out might finish instead and return another of several equally good plays. */
static int32_t dfs(const Query *q, int st, uint64_t k0, uint64_t k1, int32_t need, int32_t known, int32_t acc) {
    int32_t tr;
    int st0 = st;
    while (st < q->nst && identity_step(q, st, k0, k1, &tr)) st++;
    if (st != st0) known = UB_UNKNOWN; /* that bound was for the stage skipped */
    if (st == q->nst) return accept(q, k0, k1) ? 0 : NEG;
    if (memo_reserve() < 0) { dfs_err = -1; return NEG; }
    size_t slot;
    int32_t idx = memo_find(st, k0, k1, &slot);
    if (idx < 0) {
        if ((long)me_n >= g_memo_limit) { dfs_err = -3; return NEG; }
        int32_t ub = known != UB_UNKNOWN ? known : node_bound(q, st, k0, k1);
        if (us_err) { dfs_err = us_err; return NEG; }
        idx = memo_add(st, k0, k1, ub, 0, slot);
        if (idx < 0) { dfs_err = -1; return NEG; }
        last_nodes++;
    }
    if (me[idx].exact || me[idx].ub < need || me[idx].ub <= NEG) return me[idx].ub;
    if (dfs_limit && ++dfs_expansions > dfs_limit) { dfs_err = -5; return NEG; }
    g_work++;
    if (OVER_CAP()) { dfs_err = -6; return NEG; }
    /* children, each with a bound on what it can reach, best bound first */
    size_t base = succ_n;
    int r = successors(q, st, k0, k1);
    if (r < 0) { dfs_err = r; return NEG; }
    size_t end = succ_n;
    ChildBounds cb;
    int incremental = child_bounds_apply(q, st);
    if (incremental) child_bounds_init(q, st, &cb);
    for (size_t k = base; k < end; k++) {
        Succ *c = &succ_buf[k];
        int32_t ub;
        size_t sl;
        if (memo_reserve() < 0) { dfs_err = -1; return NEG; }
        int32_t ci = memo_find(st + 1, c->k0, c->k1, &sl);
        if (ci >= 0) ub = me[ci].ub;
        else if (st + 1 == q->nst) ub = accept(q, c->k0, c->k1) ? 0 : NEG;
        else ub = incremental ? child_bound(q, &cb, c->k0, c->k1) : node_bound(q, st + 1, c->k0, c->k1);
        if (us_err) { dfs_err = us_err; return NEG; }
        c->bound = ub <= NEG ? NEG : c->w + ub;
        c->ub = ub;
    }
    sort_succ(succ_buf + base, end - base);
    int32_t best = NEG, bestk = -1, ubrest = NEG;
    for (size_t kk = base; kk < end; kk++) {
        Succ c = succ_buf[kk];
        int32_t thr = bestk >= 0 ? (best + 1 > need ? best + 1 : need) : need;
        if (c.bound <= NEG) break;
        if (c.bound < thr) { if (c.bound > ubrest) ubrest = c.bound; break; }
        int32_t rr = dfs(q, st + 1, c.k0, c.k1, thr - c.w, c.ub, acc + c.w);
        if (dfs_err) { succ_n = base; return NEG; }
        if (rr <= NEG) continue;
        int32_t v = c.w + rr;
        if (rr >= thr - c.w) {
            best = v;
            bestk = c.tr;
            if (q->cap >= 0 && (!dfs_limit || q->cap_anywhere) && (long)acc + best >= q->cap) break;
        }
        else if (v > ubrest) ubrest = v;
    }
    succ_n = base;
    MEntry *m = &me[idx];
    if (bestk >= 0) {
        m->exact = 1;
        m->ub = best;
        m->best = bestk;
    } else {
        m->ub = ubrest;
    }
    return m->ub;
}


/* The search's memory (memo and per-suit relaxation of one query), two of them: the race of
 * solve.c gives each sweep direction its own, so that each resumes its search where its last level
 * stopped instead of starting afresh. mem_swap exchanges the one in use with the other. */
typedef struct {
    MEntry *me;
    size_t me_n, me_cap;
    MSlot *mt;
    uint32_t mt_cur;
    size_t mt_cap, mt_act;
    USlot *ut, *ut_tmp;
    size_t us_cap, us_n, us_act;
    uint32_t us_cur;
    int32_t *uv;
    size_t uv_n, uv_cap;
    long expansions;
} SearchMem;
static SearchMem mem_other = {.mt_cur = 1, .us_cur = 1};
static void mem_swap(void) {
    const SearchMem cur = {me, me_n, me_cap, mt, mt_cur, mt_cap, mt_act, ut, ut_tmp, us_cap, us_n, us_act, us_cur,
                           uv, uv_n, uv_cap, dfs_expansions};
    const SearchMem *o = &mem_other;
    me = o->me; me_n = o->me_n; me_cap = o->me_cap;
    mt = o->mt; mt_cur = o->mt_cur; mt_cap = o->mt_cap; mt_act = o->mt_act;
    ut = o->ut; ut_tmp = o->ut_tmp; us_cap = o->us_cap; us_n = o->us_n; us_act = o->us_act; us_cur = o->us_cur;
    uv = o->uv; uv_n = o->uv_n; uv_cap = o->uv_cap;
    dfs_expansions = o->expansions;
    mem_other = cur;
}

static void memo_reset(void) {
    me_n = 0;
    if (mt) {
        mt_act = mt_cap < MT_START ? mt_cap : MT_START;
        if (mt_cap > (1 << 20)) {
            free(mt); mt = NULL; mt_cap = mt_act = 0;
            free(me); me = NULL; me_cap = 0;
        } else {
            mt = stamped_fresh(mt, &mt_cap, &mt_cur, 0, sizeof(MSlot)); /* a new stamp: never fails */
        }
    }
}
