/* query.c: One query (bounds, weights, rules, the sweep's stages and look-ahead) and one step of the sweep:
 * the successors of a state through a stage, shared by every search.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ query */
typedef struct { uint8_t rank, flags; } Pos;
typedef struct { int8_t p, s; } Stage; /* s = 4: the group stage of position p */

typedef struct {
    uint8_t lo[NT], hi[NT];
    int32_t w[NT];
    int need_group, min_open, loJ, hiJ, np, nst, norm, wJ;
    int feas;                   /* every weight 0: a feasibility question */
    Pos P[MAXPOS];
    Stage S[MAXST];
    int8_t bnd[MAXST + 1][4];   /* boundary (position index, -1 = start) of each suit before stage st */
    /* look-ahead counts (int8: a query set-up writes them all, and a smaller Query is fewer cache
     * lines for a call that starts cold) */
    int8_t hn1[MAXPOS][4], hn2[MAXPOS][4], hnall[MAXPOS][4], has2[MAXPOS];
    int8_t rest_hi[MAXPOS][4];  /* real cards of rank P[p] in the suits after s */
    long base;                  /* sum of w * lo over real cards, plus wJ * loJ */
    long cap;                   /* a known upper bound on the optimum (absolute, like base), or -1: asked for
                                 * first, and the depth-first search stops at a solution reaching it (see dfs) */
    int rise;                   /* search rising from the value of playing nothing (solve_level) */
    int cap_anywhere;           /* cap stops the search in budgeted levels too (best_play's LP bound) */
    int8_t gmax[MAXPOS];        /* most groups position p can hold: a suit sends at most that many cards to them */
    /* the relaxation's joker budget (bounds.c) counts in units of 1/junit joker; a card sent to a
     * group at p costs gcost[p] units: a group whose rank has real cards in only n suits holds at
     * most n real cards and so at least 3 - n jokers, (3 - n) / n a card */
    int8_t gcost[MAXPOS];
    int junit;
    int32_t e0;                 /* id of the empty suit state */
    /* the relaxation's key (bounds.c): usig[s][i] is the interned signature of what suit s's
     * relaxation reads at positions i.. np - 1; valid while usig_gen == sig_gen (0: not computed) */
    uint32_t usig[4][MAXPOS];
    uint32_t usig_gen;
    int ace, mjpm, decks, jokers; /* the rules arguments it was set up with */
} Query;

static int rank_open_points(int r) { return r >= 9 ? 10 : r + 1; }

static int positions(int ace, Pos *P, int r0) {
    int n = 0;
    switch (ace) {
        case ACE_LOW:
            for (int r = 0; r < 13; r++) P[n++] = (Pos){r, 0};
            break;
        case ACE_HIGH:
            for (int r = 1; r < 13; r++) P[n++] = (Pos){r, 0};
            P[n++] = (Pos){0, 0};
            break;
        case ACE_LOW_OR_HIGH:
            P[n++] = (Pos){0, F_SET_ACELOW | F_NEWFLAGL};
            for (int r = 1; r < 13; r++) P[n++] = (Pos){r, 0};
            P[n++] = (Pos){0, F_NOEXT_FLAGL | F_CLEAR_ACELOW | F_NOGROUP};
            break;
        case ACE_BOTH:
            P[n++] = (Pos){0, F_SET_ACELOW};
            for (int r = 1; r < 13; r++) P[n++] = (Pos){r, 0};
            P[n++] = (Pos){0, F_CLEAR_ACELOW | F_NOGROUP};
            break;
        default: /* wrap: the cycle cut before rank r0 */
            P[n++] = (Pos){r0, F_HEADS};
            for (int r = 1; r < 13; r++) P[n++] = (Pos){(r0 + r) % 13, F_TAILS};
            break;
    }
    return n;
}

/* effective bounds of suit s at position p for a suit state with `acelow` aces used low */
static inline void pos_bounds(const Query *q, int p, int s, int acelow, int *l, int *h) {
    int c = s * 13 + q->P[p].rank, fl = q->P[p].flags;
    if (fl & F_SET_ACELOW) { *l = 0; *h = q->hi[c]; }
    else if (fl & F_CLEAR_ACELOW) {
        *l = q->lo[c] - acelow > 0 ? q->lo[c] - acelow : 0;
        *h = q->hi[c] - acelow;
    } else { *l = q->lo[c]; *h = q->hi[c]; }
}
/* What a transition of card c is worth (fl: the flags of its position), read from q once per
 * transition list: the loops over a list store into buffers that may alias q, so q's fields would
 * be read again after every store. wJ per joker, wx per real card, x + xo of them (aces split
 * over two positions are valued at the second, with the xo = acelow copies used low). */
typedef struct { int32_t wJ, wx, xo; } CardValue;
static inline CardValue card_value_at(const Query *q, int c, int fl, int acelow) {
    if (fl & F_SET_ACELOW) return (CardValue){q->wJ, 0, 0};
    return (CardValue){q->wJ, q->w[c], (fl & F_CLEAR_ACELOW) ? acelow : 0};
}
static inline int32_t trans_value(CardValue v, const Trans *t) { return v.wJ * t->jr + v.wx * (t->x + v.xo); }
/* The look-ahead counts of suit s after position p, read once per transition list like
 * CardValue; look_ok: can the open runs of a transition's new state still be continued? */
typedef struct { int last, hn1, hn2, hnall, has2; } Look;
static inline Look look_at(const Query *q, int p, int s) {
    return (Look){p == q->np - 1, q->hn1[p][s], q->hn2[p][s], q->hnall[p][s], q->has2[p]};
}
static inline int look_ok(Look L, const Trans *t, int javl) {
    if (L.last) return t->final_ok;
    if (t->need1 > L.hn1 + javl) return 0;
    if (t->len1 && (!L.has2 || t->len1 > L.hn2 + javl)) return 0;
    if (t->needall > L.hnall + javl) return 0;
    return 1;
}

static void query_setup(Query *q, int ace) {
    /* wrap: cut the cycle where the fewest cards are (runs crossing the cut cost state) */
    int r0 = 0, least = 1 << 20;
    if (ace == ACE_WRAP)
        for (int r = 0; r < 13; r++) {
            int n = 0;
            for (int s = 0; s < 4; s++) n += q->hi[s * 13 + r];
            if (n < least) { least = n; r0 = r; }
        }
    int np = positions(ace, q->P, r0);
    q->np = np;
    /* the counts read once into locals: the int8 stores below may alias q->hi, and the compiler
     * would read it again after each of them */
    int cnt[13][4], rk[MAXPOS];
    for (int r = 0; r < 13; r++)
        for (int s = 0; s < 4; s++) cnt[r][s] = q->hi[s * 13 + r];
    for (int p = 0; p < np; p++) rk[p] = q->P[p].rank;
    int hiJ = q->hiJ, norm = q->norm;
    q->junit = g_gjc && hiJ > 0 && hiJ <= 7 ? 2 : 1;
    for (int p = 0; p < np; p++) {
        const int *v = cnt[rk[p]];
        int n = (v[0] > 0) + (v[1] > 0) + (v[2] > 0) + (v[3] > 0);
        /* g groups need 3g cards, at most g from each suit (one per group) and from the jokers at
         * most max_jokers_per_meld per group: a necessary condition, so gmax bounds every
         * arrangement; a rank with no real card or no room for one group gets none */
        int g = 0;
        while (n > 0) {
            int k = g + 1;
            int have = hiJ < g_mjpm * k ? hiJ : g_mjpm * k;
            for (int s = 0; s < 4; s++) have += v[s] < k ? v[s] : k;
            if (have < 3 * k) break;
            g++;
        }
        q->gmax[p] = (int8_t)g;
        q->gcost[p] = (int8_t)(!g_gjc || hiJ == 0 || hiJ > 7 ? 0 : n == 1 ? 4 : n == 2 ? 1 : 0);
        int fl = q->P[p].flags;
        if (g == 0) fl |= F_NOGROUP;
        if (norm) fl |= F_NORM;
        q->P[p].flags = (uint8_t)fl;
        static const int none[4] = {0, 0, 0, 0};
        const int *v1 = p + 1 < np ? cnt[rk[p + 1]] : none, *v2 = p + 2 < np ? cnt[rk[p + 2]] : none;
        int rest = 0;
        for (int s = 3; s >= 0; s--) {
            q->rest_hi[p][s] = (int8_t)rest;
            rest += v[s];
            q->hn1[p][s] = (int8_t)v1[s];
            q->hn2[p][s] = (int8_t)v2[s];
        }
        q->has2[p] = p + 2 < np;
    }
    for (int s = 0; s < 4; s++) {
        int m = 99;
        for (int p = np - 1; p >= 0; p--) {
            q->hnall[p][s] = (int8_t)m;
            int v = cnt[rk[p]][s];
            if (v < m) m = v;
        }
    }
    /* stage (p, s) sees suits u < s already past position p; the group stage sees all of them */
    int nst = 0;
    for (int p = 0; p < np; p++) {
        int8_t row[8]; /* p four times, then p - 1 four times: stage s's boundaries start at 4 - s */
        memset(row, p, 4);
        memset(row + 4, p - 1, 4);
        for (int s = 0; s < 4; s++) {
            memcpy(q->bnd[nst], row + 4 - s, 4);
            q->S[nst++] = (Stage){(int8_t)p, (int8_t)s};
        }
        if (!(q->P[p].flags & F_NOGROUP)) {
            memcpy(q->bnd[nst], row, 4);
            q->S[nst++] = (Stage){(int8_t)p, 4};
        }
    }
    memset(q->bnd[nst], np - 1, 4);
    q->nst = nst;
}

/* k1 layout: J 0-2, gflag 3, open points 4-15, S 16-19, M 20-21 */
#define K1(J, gf, op, S, M)                                                                          \
    ((uint64_t)(J) | ((uint64_t)(gf) << 3) | ((uint64_t)(op) << 4) | ((uint64_t)(S) << 16) |         \
     ((uint64_t)(M) << 20))
#define K1_J(k) ((int)((k) & 7))
#define K1_GF(k) ((int)(((k) >> 3) & 1))
#define K1_OP(k) ((int)(((k) >> 4) & 4095))
#define K1_S(k) ((int)(((k) >> 16) & 15))
#define K1_M(k) ((int)(((k) >> 20) & 3))
#define SID(k0, k1, s) ((int32_t)((s) < 3 ? ((k0) >> (SIDBITS * (s))) & SIDMASK : ((k1) >> S3SHIFT) & SIDMASK))
#define K1_IDS(k1) ((k1) & (SIDMASK << S3SHIFT))
static inline uint64_t k0_init(int32_t e0) {
    uint64_t e = (uint64_t)e0;
    return e | (e << SIDBITS) | (e << (2 * SIDBITS));
}
static inline uint64_t k1_init(int32_t e0) { return (uint64_t)e0 << S3SHIFT; }
/* the keys with suit s's state id replaced */
static inline void set_sid(uint64_t *k0, uint64_t *k1, int s, int32_t id) {
    if (s < 3) *k0 = (*k0 & ~(SIDMASK << (SIDBITS * s))) | ((uint64_t)id << (SIDBITS * s));
    else *k1 = (*k1 & ~(SIDMASK << S3SHIFT)) | ((uint64_t)id << S3SHIFT);
}

static inline int accept(const Query *q, uint64_t k0, uint64_t k1) {
    if (K1_J(k1) < q->loJ) return 0;
    if (q->need_group && !K1_GF(k1)) return 0;
    if (K1_OP(k1) < q->min_open) return 0;
    for (int s = 0; s < 4; s++)
        if (!ss_arr[SID(k0, k1, s)].final_ok) return 0;
    return 1;
}

/* One step of the sweep from state (k0, k1) through stage st: calls `fn` for every successor.
 * Suit stages use the cached transitions; group stages choose the jokers put in groups. */
typedef struct { uint64_t k0, k1; int32_t w, tr, bound, h, ub; } Succ; /* ub: the child's own bound */
static int g_tie = 4;
static Succ *succ_buf = NULL;
static size_t succ_cap = 0, succ_n = 0;

static inline int push_succ(uint64_t k0, uint64_t k1, int32_t w, int32_t tr, int32_t h) {
    GROW(succ_buf, succ_cap, succ_n + 1);
    succ_buf[succ_n++] = (Succ){k0, k1, w, tr, 0, h, UB_UNKNOWN};
    return 0;
}

/* successors appended to succ_buf; returns 0, or <0 on error */
static int successors(const Query *q, int st, uint64_t k0, uint64_t k1) {
    int p = q->S[st].p, s = q->S[st].s;
    int rank = q->P[p].rank, flags = q->P[p].flags;
    int rv = rank_open_points(rank);
    int J = K1_J(k1), S = K1_S(k1), M = K1_M(k1), op = K1_OP(k1), gf = K1_GF(k1);
    if (s == 4) {
        int jmax = S ? q->hiJ - J : 0;
        for (int jg = 0; jg <= jmax; jg++) {
            if (!group_feasible(S, M, jg)) continue;
            int nop = op + jg * rv;
            if (nop > q->min_open) nop = q->min_open;
            if (push_succ(k0, K1(J + jg, gf | (S > 0), nop, 0, 0) | K1_IDS(k1), q->wJ * jg, jg, -jg) < 0) return -1;
        }
        return 0;
    }
    int32_t sid = SID(k0, k1, s);
    int al = ss_arr[sid].acelow, l, h;
    pos_bounds(q, p, s, al, &l, &h);
    if (h < 0) return 0;
    int jav = q->hiJ - J;
    int32_t ts, tcnt;
    int r = get_trans(sid, l, h, jav, flags, &ts, &tcnt);
    if (r < 0) return r;
    if (tcnt == 0) return 0;
    GROW(succ_buf, succ_cap, succ_n + (size_t)tcnt);
    /* the loop's invariants in locals: its stores into succ_buf may alias q's fields (char-sized
     * reads alias anything), so the compiler would read each of them again per candidate */
    const int hiJ = q->hiJ, gmax = q->gmax[p], rest = q->rest_hi[p][s], min_open = q->min_open, tie = g_tie;
    const int s3_nogroup = s == 3 && (flags & F_NOGROUP);
    const Look look = look_at(q, p, s);
    const CardValue cv = card_value_at(q, s * 13 + rank, flags, al);
    const uint64_t ids1 = K1_IDS(k1);
    Succ *out = succ_buf + succ_n;
    size_t n = 0;
    for (int32_t k = 0; k < tcnt; k++) {
        const Trans *t = &tr_arr[ts + k];
        if (t->g > gmax) continue;
        int nJ = J + t->jr, javl = hiJ - nJ;
        if (!look_ok(look, t, javl)) continue;
        int nS = S + t->g, nM = M > t->g ? M : t->g;
        if (nS > 15) continue;
        int settle = 0; /* the last suit settles the groups when no joker can join them */
        if (nS && s < 3) {
            int most = nS + rest + javl;
            if (most < 3 || most < 3 * nM) continue;
        } else if (s3_nogroup) {
            if (nS) continue;
            settle = 1;
        } else if (s == 3 && javl == 0) {
            if (nS && !group_feasible(nS, nM, 0)) continue;
            settle = 1;
        }
        int nop = op + (t->x + t->jr) * rv;
        if (nop > min_open) nop = min_open;
        uint64_t nk0 = k0, nk1 = K1(nJ, gf, nop, nS, nM) | ids1;
        /* then the group stage has nothing left to do (jokers in groups: 0) */
        if (settle) nk1 = K1(nJ, gf | (nS > 0), nop, 0, 0) | ids1;
        set_sid(&nk0, &nk1, s, t->new_id);
        int hk = 0; /* the tie order's key: the transition's own need1 is the new state's */
        if (tie == 3) hk = -(t->g * 16 + t->need1);
        else if (tie == 4) hk = t->g * 16 - t->need1;
        else if (tie == 5) hk = -(t->need1 * 16 + t->g);
        else if (tie == 6) hk = -(t->need1 * 16 + t->g * 4 + t->jr);
        else if (tie == 1) hk = nJ;
        else if (tie == 2) hk = -nJ;
        out[n++] = (Succ){nk0, nk1, trans_value(cv, t), ts + k, 0, hk, UB_UNKNOWN};
    }
    succ_n += n;
    return 0;
}
