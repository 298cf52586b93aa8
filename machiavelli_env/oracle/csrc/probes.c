/* probes.c: The probes that need no bound: the whole-hand probe (play every addable card, if that can be
 * arranged) and the repack probe (place exactly these cards).
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ whole-hand probe */
/* When every card that may be added has a positive weight, playing all of them (x = hi) is optimal
 * if it is feasible at all. full_probe looks for such an arrangement with a depth-first search that
 * computes no bounds: children in the depth-first search's tie order (most cards to groups first,
 * fewest runs left needing a card), states proven dead remembered, at most g_full expansions. A
 * found arrangement is optimal without any bound; otherwise solve() runs as before. solve() asks
 * for it when jokers are among the cards or the table is crowded. The dead states are kept in the depth-first memo (as
 * entries with no completion), which solve() clears before and after the probe. */
static long g_full = 300; /* expansions of the whole-hand probe; 0 turns it off */
static long probe_exp = 0;  /* expansions of the last probe */
static long probe_limit = 0; /* expansions allowed to the probe running (run_probe) */

/* 1 found (path filled from st on), 0 dead, -5 over the budget, other <0 error */
static int full_dfs(const Query *q, int st, uint64_t k0, uint64_t k1, int32_t *path, int *J) {
    int32_t tr;
    while (st < q->nst && identity_step(q, st, k0, k1, &tr)) path[st++] = tr;
    if (st == q->nst) {
        if (!accept(q, k0, k1)) return 0;
        *J = K1_J(k1);
        return 1;
    }
    size_t slot;
    if (me_n) { /* the probe keeps dead states only: none yet, nothing to look up */
        if (memo_reserve() < 0) return -1;
        if (memo_find(st, k0, k1, &slot) >= 0) return 0;
    }
    if (++probe_exp > probe_limit) return -5;
    g_work++;
    if (OVER_CAP()) return -6;
    size_t base = succ_n;
    int r = successors(q, st, k0, k1);
    if (r < 0) { succ_n = base; return r; }
    size_t end = succ_n;
    for (size_t k = base; k < end; k++) succ_buf[k].bound = 0;
    sort_succ(succ_buf + base, end - base);
    for (size_t kk = base; kk < end; kk++) {
        Succ c = succ_buf[kk]; /* copied: the recursion may grow succ_buf */
        int rr = full_dfs(q, st + 1, c.k0, c.k1, path, J);
        if (rr == 1) { path[st] = c.tr; succ_n = base; return 1; }
        if (rr < 0) { succ_n = base; return rr; }
    }
    succ_n = base;
    /* dead: remember it (the recursion may have grown the table: find the slot again) */
    if (memo_reserve() < 0) return -1;
    if (memo_find(st, k0, k1, &slot) < 0 && memo_add(st, k0, k1, NEG, 1, slot) < 0) return -1;
    return 0;
}

/* a necessary condition for card c to be in any meld made from the cards hi: a group of its rank
 * (two other suits present, jokers filling in), or three consecutive positions through it in its
 * suit, the missing ones filled by jokers (at most max_jokers_per_meld and the jokers there are) */
static int card_can_meld(const Query *q, int c) {
    int s = c / 13, r = c % 13;
    int jk = q->hiJ < g_mjpm ? q->hiJ : g_mjpm;
    int others = 0;
    for (int u = 0; u < 4; u++)
        if (u != s && q->hi[u * 13 + r] > 0) others++;
    if (others + jk >= 2) return 1;
    int n = q->np, cyc = (q->P[0].flags & F_HEADS) != 0; /* wrap: positions form a cycle */
    for (int i = 0; i < n; i++) {
        if (q->P[i].rank != r) continue;
        for (int a = i - 2; a <= i; a++) {
            int gaps = 0, ok = 1;
            for (int j = a; j < a + 3 && ok; j++) {
                int jj = cyc ? ((j % n) + n) % n : j;
                if (jj < 0 || jj >= n) ok = 0;
                else if (jj != i && q->hi[s * 13 + q->P[jj].rank] == 0) gaps++;
            }
            if (ok && gaps <= jk) return 1;
        }
    }
    return 0;
}

/* full_dfs from the start, at most `limit` expansions, from a fresh memo: 1 found, 0 none,
 * -5 over the limit, <0 error */
static int run_probe(const Query *q, long limit, int32_t *path, int *J) {
    memo_reset();
    probe_exp = 0;
    probe_limit = limit;
    size_t keep = succ_n;
    int r = full_dfs(q, 0, k0_init(q->e0), k1_init(q->e0), path, J);
    succ_n = keep;
    return r;
}

#define PROBE_NONE 7   /* full_probe: a repack proven impossible */
#define PROBE_BUDGET 8 /* full_probe: the whole-hand probe ran out of expansions (nothing proven) */
static long g_repack_full = 3000; /* expansions of the probe for a repack; 0 turns it off */

/* A repack (lo = hi: every card must be placed, nothing to choose) is the probe's question itself:
 * the depth-first search without bounds answers it exactly when it finishes within its budget,
 * and a card that fits no meld at all rules it out at once. 1 found, PROBE_NONE impossible, 0 not
 * settled (over budget or switched off). */
static int repack_probe(const Query *q, int32_t *value, int32_t *path, int *J) {
    if (g_repack_full <= 0) return 0;
    int32_t v = q->wJ * q->hiJ;
    last_method = 4;
    for (int c = 0; c < JOKER; c++) {
        if (q->hi[c] && !card_can_meld(q, c)) return PROBE_NONE;
        v += q->w[c] * q->hi[c];
    }
    int r = run_probe(q, g_repack_full, path, J);
    if (r == 1) { *value = v; return 1; }
    if (r == 0) return PROBE_NONE;
    return r == -5 ? 0 : r;
}

/* the whole-hand probe of q (see g_full): 1 found (value, path, J filled), 0 not found (proven, or
 * not tried; also when some hand card fits no meld at all: then the whole hand cannot be played),
 * PROBE_BUDGET out of expansions (nothing proven), <0 error; for a repack, see repack_probe */
static int full_probe(Query *q, int32_t *value, int32_t *path, int *J) {
    if (g_full <= 0 || q->min_open > 0 || q->need_group) return 0;
    int32_t v = 0;
    int any = 0;
    for (int c = 0; c < JOKER; c++) {
        if (q->hi[c] > q->lo[c]) {
            if (q->w[c] <= 0 || !card_can_meld(q, c)) return 0;
            any = 1;
        }
        v += q->w[c] * q->hi[c];
    }
    if (q->hiJ > q->loJ) {
        if (q->wJ <= 0) return 0;
        any = 1;
    }
    if (!any) return repack_probe(q, value, path, J);
    v += q->wJ * q->hiJ;
    if (q->cap >= 0 && v > q->cap) return 0;
    /* the query with lo = hi, in place (a copy of the whole Query is 30 cache lines) */
    uint8_t lo[NT];
    int loJ = q->loJ;
    memcpy(lo, q->lo, sizeof lo);
    memcpy(q->lo, q->hi, sizeof lo);
    q->loJ = q->hiJ;
    uint32_t gen = q->usig_gen;
    q->usig_gen = 0; /* signatures of other bounds: not to be used or kept */
    int r = run_probe(q, g_full, path, J);
    memcpy(q->lo, lo, sizeof lo);
    q->loJ = loJ;
    q->usig_gen = q->usig_gen ? 0 : gen; /* computed for lo = hi: computed again when needed */
    if (r == 1) { *value = v; last_method = 3; return 1; }
    return r == -5 ? PROBE_BUDGET : r;
}

/* The search schedule of one sweep direction: a forward pass of at most bb entries (skipped on the
 * first level of a crowded table), then a depth-first probe of at most dl expansions; each level
 * that runs out multiplies both budgets by ten. From budget2 on the forward pass is not tried
 * again and the depth-first search runs to the end. */
