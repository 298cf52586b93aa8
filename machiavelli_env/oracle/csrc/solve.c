/* solve.c: The solver's schedule: cache resets and error codes, the budgeted forward pass, the probes and
 * the alternation of forward and depth-first levels, and the race with the rank-reversed query.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ drivers */
/* best_play's questions (the greedy bots' every move) search rising (Query.rise, solve_level),
 * with g_rise_probe depth-first expansions on their first level instead of g_probe, on tables of
 * fewer than g_rise_max cards (0: any): on the fullest tables, where few cards are left to add,
 * asking for the bound first costs less (greedy classic games: 70-89 cards, 40% less time) */
static int g_rise = 1;
static long g_grow = 4; /* each level of the schedule: the budgets of the level before times this */
static long g_rise_probe = 30000;
static long g_rise_max = 70;
/* A repack's probe (lo = hi) asks the search's own question, so the states it proved dead are
 * exact entries of the depth-first memo (no completion): the search keeps them. After a
 * whole-hand probe, which asks another question, it starts from a fresh memo. 0: always fresh. */
static int g_keep_dead = 1;
static int is_repack(const Query *q) {
    if (q->hiJ != q->loJ) return 0;
    for (int c = 0; c < JOKER; c++)
        if (q->hi[c] != q->lo[c]) return 0;
    return 1;
}
static void reset_caches(void) {
    ident_reset();
    up_clear(1); /* the relaxation's keys name suit states */
    ss_n = 0;
    if (ss_tab) for (size_t i = 0; i < ss_tabcap; i++) ss_tab[i] = -1;
    tr_n = 0;
    op_n = 0;
    if (tc_tab) for (size_t i = 0; i < tc_cap; i++) tc_tab[i].start = -1;
    tc_n = 0;
    tc_last_key = ~0ULL;
    if (dom_keys) for (size_t i = 0; i < dom_cap; i++) dom_keys[i] = DOM_EMPTY;
    dom_n = 0;
}
#define MEMO_FULL (-3) /* a search's memo reached g_memo_limit entries */
static const char *err_text(int code) {
    if (code == -2) return "_dp: too many distinct run states";
    if (code == MEMO_FULL) return "_dp: position too large for the exact search (memo limit)";
    return NULL;
}
static void set_err(int code) {
    const char *t = err_text(code);
    if (t) PyErr_SetString(PyExc_MemoryError, t);
    else PyErr_NoMemory();
}

static int forward_best(Query *q, long budget, int32_t *value, int32_t *path, int *J) {
    int r = run_forward(q, budget, 0);
    if (r != 0) return r < 0 ? r : 2;
    last_method = 1;
    int32_t best = -1;
    for (size_t i = layer_start[q->nst]; i < en_n; i++) {
        Entry *e = &en[i];
        if (e->dead || !accept(q, e->k0, e->k1)) continue;
        if (best < 0 || e->val > en[best].val) best = (int32_t)i;
    }
    if (best < 0) return 0;
    *value = en[best].val;
    *J = K1_J(en[best].k1);
    path_back(q->nst, best, path);
    return 1;
}

typedef struct { long bb, dl; int bfs_done, skip_first; } Sched;

static int table_cards(const Query *q) {
    int n = 0;
    for (int c = 0; c < NT; c++) n += q->lo[c];
    return n;
}

/* lo_cards: table_cards(q), counted once per solve (the mirrored query has as many) */
static void sched_init(Sched *sc, const Query *q, int lo_cards) {
    sc->skip_first = g_crowd >= 0 && (lo_cards >= g_crowd || (q->hiJ > 0 && lo_cards >= g_jcrowd));
    sc->bb = g_budget;
    sc->dl = q->feas && g_fprobe > 0 && q->hiJ - q->loJ >= g_fjokers ? g_fprobe : q->rise ? g_rise_probe : g_probe;
    sc->bfs_done = g_force == 2;
}

/* a fresh search of q: the empty suit state interned, the relaxation cache and the memo cleared */
static int search_begin(Query *q) {
    SuitState empty;
    memset(&empty, 0, sizeof empty);
    q->e0 = ss_intern(&empty);
    if (q->e0 < 0) return q->e0;
    us_reset();
    us_err = 0;
    memo_reset();
    dfs_expansions = 0;
    return 0;
}

/* the whole-hand probe where it pays (jokers or a crowded table; on small tables without jokers
 * the forward pass is cheap and a failed probe, the usual outcome in play, would cost more than it
 * saves): full_probe's answer (1 found, 0 not found or not tried, PROBE_BUDGET, PROBE_NONE for a
 * repack proven impossible, <0 error) */
static int opening_probe(Query *q, int lo_cards, int32_t *value, int32_t *path, int *J) {
    if (g_force || g_crowd < 0 || !(q->hiJ > 0 || lo_cards >= g_crowd)) return 0;
    return full_probe(q, value, path, J);
}

/* One level of the schedule (the memo is kept from the levels before). Returns 1 found (value and
 * path filled), 0 none, 2 over this level's budgets, <0 error. */
static int solve_level(Query *q, Sched *sc, int32_t *value, int32_t *path, int *J) {
    uint64_t k0 = k0_init(q->e0), k1r = k1_init(q->e0);
    if (sc->skip_first) sc->skip_first = 0;
    else if (!sc->bfs_done) {
        long b = sc->bb >= g_budget2 ? g_budget2 : sc->bb;
        int r = forward_best(q, b, value, path, J);
        if (r != 2) return r;
        if (b >= g_budget2) sc->bfs_done = 1;
    }
    last_method = 2;
    dfs_err = 0;
    dfs_limit = sc->bfs_done ? 0 : sc->dl;
    succ_n = 0;
    /* ask for the bound itself, then for each smaller bound proven (the memo is kept). A rising
     * search asks instead for anything at least the value of playing nothing: one branch and bound
     * whose threshold rises with the best play found, where each smaller bound asked in turn would
     * mean another refutation of the whole position (recorded greedy games on classic_jokers: half
     * the expansions). The value is the same; of several equally good plays it may find another. */
    size_t slot;
    if (memo_reserve() < 0) return -1;
    int32_t ri = memo_find(0, k0, k1r, &slot);
    int32_t need = ri >= 0 ? me[ri].ub : node_bound(q, 0, k0, k1r);
    if (us_err) return us_err;
    if (need <= NEG) return 0;
    if (q->cap >= 0 && need > q->cap) need = (int32_t)q->cap; /* a tighter valid bound: ask for it first */
    if (q->rise && need > q->base && !(ri >= 0 && me[ri].exact)) need = (int32_t)q->base;
    int32_t v;
    for (;;) {
        v = dfs(q, 0, k0, k1r, need, UB_UNKNOWN, 0);
        if (dfs_err) break;
        if (v <= NEG) return 0;
        if (v >= need) break;
        need = v;
    }
    dfs_limit = 0;
    if (dfs_err == -5) {
        sc->bb *= g_grow;
        sc->dl *= g_grow;
        return 2;
    }
    if (dfs_err) return dfs_err;
    *value = v;
    /* follow the exact entries from the root */
    uint64_t k1 = k1r;
    int st = 0;
    while (st < q->nst) {
        int32_t tr;
        if (identity_step(q, st, k0, k1, &tr)) { path[st++] = tr; continue; }
        if (memo_reserve() < 0) return -1;
        int32_t idx = memo_find(st, k0, k1, &slot);
        if (idx < 0 || !me[idx].exact) return -1;
        int32_t want = me[idx].best;
        succ_n = 0;
        int r = successors(q, st, k0, k1);
        if (r < 0) return r;
        size_t k;
        for (k = 0; k < succ_n; k++) if (succ_buf[k].tr == want) break;
        if (k == succ_n) return -1;
        path[st] = want;
        k0 = succ_buf[k].k0;
        k1 = succ_buf[k].k1;
        st++;
    }
    succ_n = 0;
    *J = K1_J(k1);
    return 1;
}

static int setup_query(Query *q, const long long *lo, const long long *hi, const long long *w, int ace, int mjpm,
                       int need_group, int min_open, int decks, int jokers);

static int g_race = 1; /* race the mirrored sweep from the second level on, and let a whole-hand
                        * probe out of expansions try the mirrored one next (0: neither) */
static int g_mirror_probe = 1; /* a whole-hand probe out of expansions: the mirrored one next */
static int mem_in_use = 0;     /* the search's memory in use: 0 the original sweep's, 1 the mirrored sweep's */
/* the memory of sweep d (0 original, 1 mirrored) in use (bounds.c's mem_swap) */
static void mem_use(int d) {
    if (mem_in_use != d) { mem_swap(); mem_in_use = d; }
}
static int last_mirrored = 0; /* the last solve's answer came from the mirrored sweep */

/* the ace mode of the rank-reversed position: aces low <-> high, the others stay */
static const int mirror_ace[5] = {ACE_HIGH, ACE_LOW, ACE_LOW_OR_HIGH, ACE_BOTH, ACE_WRAP};

/* the rank-reversed query of q (2 <-> K, 3 <-> Q, ...; the ace stays; aces low <-> high): every
 * valid meld maps to a valid meld, so it has the same optimum. Returns setup_query's code. */
static int mirror_query(const Query *q, Query *m) {
    long long lo[NT], hi[NT], w[NT];
    for (int c = 0; c < NT; c++) {
        int mc = MIRROR_CARD(c);
        lo[mc] = q->lo[c];
        hi[mc] = q->hi[c];
        w[mc] = q->w[c];
    }
    int r = setup_query(m, lo, hi, w, mirror_ace[q->ace], q->mjpm, q->need_group, 0, q->decks, q->jokers);
    m->cap = q->cap;
    m->rise = q->rise;
    m->cap_anywhere = q->cap_anywhere;
    return r;
}

/* the mirrored query of q set up in *mirror, a fresh search of it begun and its whole-hand probe
 * run: opening_probe's answer, or <0 */
static int mirror_begin(const Query *q, Query *mirror, int lo_cards, int32_t *value, int32_t *path, int *J) {
    int r = mirror_query(q, mirror);
    if (r != 0) return r < 0 ? r : -1;
    if ((r = search_begin(mirror)) < 0) return r;
    return opening_probe(mirror, lo_cards, value, path, J);
}

/* Best solution of the query. Returns 1 found (value and path filled), 0 none, <0 error. The sweep
 * goes from the ace up; a conflict among the top ranks is then found only after every combination
 * below it was tried, while the mirrored sweep (mirror_query) meets it at once, and the other way
 * round. So when the first level of the schedule runs out (and the query has no opening points,
 * whose values the mirror would change), the two directions take turns, level by level, each in
 * its own memory (its memo and relaxation kept from its level before: bounds.c's mem_swap), the
 * budgets of each level g_grow times those of the level before; *mirror is filled and *mirrored
 * set when the answer comes from the mirrored one.
 * Before that, a whole-hand probe that runs out of expansions is followed at once by the mirrored
 * position's probe (g_mirror_probe), which can only find the whole hand, the best play whenever
 * it exists. Queries answered in the first level are otherwise searched exactly as without the
 * race. */
static int solve_race(Query *q, Query *mirror, int *mirrored, int32_t *value, int32_t *path, int *J);
static int solve_query(Query *q, Query *mirror, int *mirrored, int32_t *value, int32_t *path, int *J) {
    int r = solve_race(q, mirror, mirrored, value, path, J);
    if (mem_in_use) { mem_swap(); mem_in_use = 0; } /* the original sweep's memory in use again */
    return r;
}
static int solve_race(Query *q, Query *mirror, int *mirrored, int32_t *value, int32_t *path, int *J) {
    *mirrored = 0;
    int r = search_begin(q);
    if (r < 0) return r;
    int lo_cards = table_cards(q);
    if (g_rise_max > 0 && lo_cards >= g_rise_max) q->rise = 0;
    r = opening_probe(q, lo_cards, value, path, J);
    if (r == PROBE_NONE) return 0;
    int race = g_race && !g_force && q->min_open == 0, mirror_ready = 0, mirror_set = 0;
    if (r == PROBE_BUDGET && race && g_mirror_probe) {
        /* the whole hand may go down through a conflict among the top ranks that this sweep
         * direction meets last: the mirrored probe meets it first (in the mirrored sweep's memory) */
        mem_use(1);
        r = mirror_begin(q, mirror, lo_cards, value, path, J);
        if (r == 1 || r < 0) { *mirrored = r == 1; return r; }
        mirror_set = 1;
        mem_use(0);
    }
    if (r == PROBE_BUDGET) r = 0;
    if (r != 0) return r;
    if (g_force == 1) return forward_best(q, 0, value, path, J);
    const int repack = g_keep_dead && is_repack(q);
    if (!repack) memo_reset(); /* the probe's dead states */
    Sched a, b;
    sched_init(&a, q, lo_cards);
    /* The two directions take turns, level by level, each in its own memory (mem_use), so each
     * level goes on from the memo its direction's last level left. A direction whose memo fills
     * (MEMO_FULL) gives up and the other goes on alone; when both fill, the error goes to the
     * caller (dp.py's fallbacks). */
    int a_full = 0, b_full = 0;
    for (;;) {
        if (!a_full) {
            mem_use(0);
            r = solve_level(q, &a, value, path, J);
            if (r == MEMO_FULL && race && !b_full) { a_full = 1; r = 2; }
            if (r != 2 || !race) {
                if (r != 2) return r;
                continue;
            }
            if (b_full) continue; /* the mirrored sweep gave up: this one goes on alone */
        }
        mem_use(1);
        if (!mirror_ready) {
            r = mirror_set ? 0 : mirror_begin(q, mirror, lo_cards, value, path, J);
            if (r == PROBE_NONE) return 0;
            if (r == 1 || r < 0) { *mirrored = r == 1; return r; }
            sched_init(&b, mirror, lo_cards);
            b.bb = a.bb / g_grow; /* the level the original sweep has just run out of */
            b.dl = a.dl / g_grow;
            mirror_ready = 1;
            if (!repack) memo_reset(); /* the probe's dead states (a repack keeps its probe's) */
        }
        r = solve_level(mirror, &b, value, path, J);
        if (r == MEMO_FULL && !a_full) {
            b_full = 1;
            r = 2;
        }
        if (r != 2) { *mirrored = r == 1; return r; }
    }
}
