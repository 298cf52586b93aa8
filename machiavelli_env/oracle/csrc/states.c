/* states.c: Suit states and their transitions: interning a suit's open runs (tokens) as a state id, the cached
 * per-suit transitions of one rank position, and the group condition that couples the suits.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
/* ------------------------------------------------------------------ suit-state interning */
typedef struct {
    uint8_t ntok, acelow, final_ok;
    uint8_t need1;   /* tokens that must take a card at the next position */
    uint8_t len1;    /* ordinary runs of one card: need the next two positions */
    uint8_t needall; /* tokens that must take a card at every remaining position */
    uint16_t tok[MAXTOK];
} SuitState;

static SuitState *ss_arr = NULL;
static size_t ss_n = 0, ss_cap = 0;
static int32_t *ss_tab = NULL; /* open addressing: index or -1 */
static size_t ss_tabcap = 0;

static uint64_t ss_hash(const SuitState *s) {
    uint64_t h = 1469598103934665603ULL ^ s->acelow ^ ((uint64_t)s->ntok << 8);
    for (int i = 0; i < s->ntok; i++) h = (h ^ s->tok[i]) * 1099511628211ULL;
    return mix64(h);
}
static int ss_eq(const SuitState *a, const SuitState *b) {
    return a->ntok == b->ntok && a->acelow == b->acelow &&
           memcmp(a->tok, b->tok, a->ntok * sizeof(uint16_t)) == 0;
}
static int tok_final_ok(uint16_t t) {
    switch (T_KIND(t)) {
        case K_NORMAL: return T_LEN(t) >= 3 && T_REAL(t);
        case K_HEAD: return T_REAL(t); /* open at the end: A..K, 13 cards */
        case K_TAIL: return T_REAL(t) && (!T_FLAG(t) || T_LEN(t) >= 2);
        default: return 0; /* an unconsumed demand */
    }
}
static int ss_rehash(size_t newcap) {
    int32_t *t = malloc(newcap * sizeof(int32_t));
    if (!t) return -1;
    for (size_t i = 0; i < newcap; i++) t[i] = -1;
    for (size_t k = 0; k < ss_n; k++) {
        size_t h = ss_hash(&ss_arr[k]) & (newcap - 1);
        while (t[h] >= 0) h = (h + 1) & (newcap - 1);
        t[h] = (int32_t)k;
    }
    free(ss_tab);
    ss_tab = t;
    ss_tabcap = newcap;
    return 0;
}
/* tokens must be sorted; returns id, -1 on memory error, -2 when the id space is full */
static int32_t ss_intern(const SuitState *s) {
    if (ss_tabcap == 0 || (ss_n + 1) * 2 > ss_tabcap) {
        if (ss_rehash(ss_tabcap ? ss_tabcap * 2 : 1024) < 0) return -1;
    }
    size_t h = ss_hash(s) & (ss_tabcap - 1);
    while (ss_tab[h] >= 0) {
        if (ss_eq(&ss_arr[ss_tab[h]], s)) return ss_tab[h];
        h = (h + 1) & (ss_tabcap - 1);
    }
    if (ss_n >= SIDMAX) return -2;
    GROW(ss_arr, ss_cap, ss_n + 1);
    SuitState *d = &ss_arr[ss_n];
    *d = *s;
    d->final_ok = 1;
    d->need1 = d->len1 = d->needall = 0;
    for (int i = 0; i < s->ntok; i++) {
        uint16_t t = s->tok[i];
        if (!tok_final_ok(t)) d->final_ok = 0;
        if (T_KIND(t) == K_TAIL) {
            d->need1++;
            d->needall++;
        } else if (T_KIND(t) == K_NORMAL) {
            if (T_MRE(t)) {
                d->need1++;
                d->needall++;
            } else if (T_LEN(t) < 3 || !T_REAL(t)) {
                d->need1++;
            }
            if (T_LEN(t) == 1 && !T_MRE(t)) d->len1++;
        }
    }
    ss_tab[h] = (int32_t)ss_n;
    return (int32_t)ss_n++;
}

/* ------------------------------------------------------------------ per-suit transitions */
enum {
    OP_EXT_REAL, OP_EXT_JOKER, OP_CLOSE, OP_START_REAL, OP_START_JOKER, OP_HEAD_REAL, OP_HEAD_JOKER,
    OP_TAIL_REAL, OP_TAIL_JOKER, OP_DEMAND
};
typedef struct { uint16_t tok; uint8_t op, cnt; } Op; /* tok: old token, or consumed demand for tails */
typedef struct {
    int32_t new_id;
    int8_t x, g, jr, nops;
    int32_t op_start;
    /* the new state's look-ahead fields (SuitState's), copied so that the searches' inner loops
     * need not visit ss_arr for every candidate */
    uint8_t final_ok, need1, len1, needall;
} Trans;

static Trans *tr_arr = NULL;
static size_t tr_n = 0, tr_cap = 0;
static Op *op_arr = NULL;
static size_t op_n = 0, op_cap = 0;

typedef struct { uint64_t key; int32_t start, count; } TCache;
static TCache *tc_tab = NULL;
static size_t tc_cap = 0, tc_n = 0;

static int tc_rehash(size_t newcap) {
    TCache *t = malloc(newcap * sizeof(TCache));
    if (!t) return -1;
    for (size_t i = 0; i < newcap; i++) t[i].start = -1;
    for (size_t i = 0; i < tc_cap; i++) {
        if (tc_tab[i].start < 0) continue;
        size_t h = mix64(tc_tab[i].key) & (newcap - 1);
        while (t[h].start >= 0) h = (h + 1) & (newcap - 1);
        t[h] = tc_tab[i];
    }
    free(tc_tab);
    tc_tab = t;
    tc_cap = newcap;
    return 0;
}

static uint16_t tok_ext(uint16_t t, int joker) {
    int len = T_LEN(t) + 1;
    int cap = T_KIND(t) == K_TAIL ? 2 : 3;
    if (len > cap) len = cap;
    return TK(T_KIND(t), len, T_J(t) + (joker ? 1 : 0), T_REAL(t) | (joker ? 0 : 1), T_FLAG(t), T_MRE(t));
}


/* enumeration context */
typedef struct {
    int lo, hi, jav, flags, acelow;
    int ntypes;
    uint16_t type[MAXTOK];
    int mult[MAXTOK];
    uint16_t newtok[MAXTOK * 2];
    int nnew;
    Op ops[MAXTOK * 3];
    int nops;
    int real_used, jok_used;
    int32_t list_start;
    int err;
} Enum;

static int emit(Enum *E) {
    if (E->nnew > MAXTOK) return 0;
    SuitState s;
    memset(&s, 0, sizeof s);
    s.ntok = (uint8_t)E->nnew;
    memcpy(s.tok, E->newtok, E->nnew * sizeof(uint16_t));
    for (int i = 1; i < s.ntok; i++) { /* sort the tokens (insertion: at most MAXTOK) */
        uint16_t t = s.tok[i];
        int j = i;
        while (j > 0 && s.tok[j - 1] > t) { s.tok[j] = s.tok[j - 1]; j--; }
        s.tok[j] = t;
    }
    for (int g = 0; E->real_used + g <= E->hi; g++) {
        int x = E->real_used + g;
        if (g > 0 && (E->flags & F_NOGROUP)) break;
        if (x < E->lo) continue;
        if (E->flags & F_SET_ACELOW) s.acelow = (uint8_t)x;
        else if (E->flags & F_CLEAR_ACELOW) s.acelow = 0;
        else s.acelow = (uint8_t)E->acelow;
        int32_t id = ss_intern(&s);
        if (id < 0) { E->err = id; return -1; }
        int dup = 0; /* dedupe identical outcomes */
        for (size_t k = (size_t)E->list_start; k < tr_n; k++) {
            Trans *o = &tr_arr[k];
            if (o->new_id == id && o->x == x && o->g == g && o->jr == E->jok_used) { dup = 1; break; }
        }
        if (dup) continue;
        if (tr_n + 1 > tr_cap || op_n + (size_t)E->nops > op_cap) {
            size_t nc = tr_cap ? tr_cap * 2 : 4096;
            if (tr_n + 1 > tr_cap) {
                Trans *nt = realloc(tr_arr, nc * sizeof(Trans));
                if (!nt) { E->err = -1; return -1; }
                tr_arr = nt; tr_cap = nc;
            }
            if (op_n + (size_t)E->nops > op_cap) {
                size_t no = op_cap ? op_cap * 2 : 8192;
                while (no < op_n + (size_t)E->nops) no *= 2;
                Op *np = realloc(op_arr, no * sizeof(Op));
                if (!np) { E->err = -1; return -1; }
                op_arr = np; op_cap = no;
            }
        }
        Trans *t = &tr_arr[tr_n++];
        t->new_id = id;
        t->x = (int8_t)x;
        t->g = (int8_t)g;
        t->jr = (int8_t)E->jok_used;
        t->nops = (int8_t)E->nops;
        t->op_start = (int32_t)op_n;
        t->final_ok = ss_arr[id].final_ok;
        t->need1 = ss_arr[id].need1;
        t->len1 = ss_arr[id].len1;
        t->needall = ss_arr[id].needall;
        if (E->nops) memcpy(&op_arr[op_n], E->ops, E->nops * sizeof(Op)); /* op_arr may still be NULL */
        op_n += (size_t)E->nops;
    }
    return 0;
}

#define PUSH_OP(E, t, o, c)                                                                          \
    do {                                                                                             \
        (E)->ops[(E)->nops].tok = (t);                                                               \
        (E)->ops[(E)->nops].op = (o);                                                                \
        (E)->ops[(E)->nops].cnt = (uint8_t)(c);                                                      \
        (E)->nops++;                                                                                 \
    } while (0)

/* tails consuming the demands of this suit (wrap), then emit */
static int enum_tails(Enum *E, int rl, int jl) {
    int didx[MAXTOK * 2], nd = 0;
    for (int i = 0; i < E->nnew; i++)
        if (T_KIND(E->newtok[i]) == K_DEMAND) didx[nd++] = i;
    if (nd == 0) return emit(E);
    int base_nnew = E->nnew, base_nops = E->nops, base_ru = E->real_used, base_ju = E->jok_used;
    int allow_joker = !(E->flags & F_NORM); /* a tail is the start of its run */
    uint16_t keep[MAXTOK * 2];
    memcpy(keep, E->newtok, base_nnew * sizeof(uint16_t));
    int choice[MAXTOK * 2];
    long total = 1;
    int per = allow_joker ? 3 : 2;
    for (int i = 0; i < nd; i++) total *= per;
    for (long code = 0; code < total; code++) {
        long c = code;
        int r = 0, j = 0, ok = 1;
        for (int i = 0; i < nd; i++) { choice[i] = (int)(c % per); c /= per; }
        /* canonical: equal demand tokens take non-increasing choices */
        for (int i = 1; i < nd && ok; i++)
            if (keep[didx[i]] == keep[didx[i - 1]] && choice[i] > choice[i - 1]) ok = 0;
        for (int i = 0; i < nd; i++) { r += choice[i] == 1; j += choice[i] == 2; }
        if (!ok || r > rl || j > jl) continue;
        memcpy(E->newtok, keep, base_nnew * sizeof(uint16_t));
        E->nnew = base_nnew;
        E->nops = base_nops;
        E->real_used = base_ru + r;
        E->jok_used = base_ju + j;
        for (int i = 0; i < nd && ok; i++) {
            if (!choice[i]) continue;
            uint16_t d = keep[didx[i]];
            int joker = choice[i] == 2;
            int jj = T_J(d) + joker;
            if (jj > g_mjpm) { ok = 0; break; }
            E->newtok[didx[i]] = TK(K_TAIL, 1, jj, T_REAL(d) | !joker, T_FLAG(d), 0);
            PUSH_OP(E, d, joker ? OP_TAIL_JOKER : OP_TAIL_REAL, 1);
        }
        if (ok && emit(E) < 0) return -1;
    }
    memcpy(E->newtok, keep, base_nnew * sizeof(uint16_t));
    E->nnew = base_nnew;
    E->nops = base_nops;
    E->real_used = base_ru;
    E->jok_used = base_ju;
    return 0;
}

/* new runs: ordinary real/joker starts, wrap heads (position A) or tails (consuming demands) */
static int enum_starts(Enum *E, int closed_plain) {
    int real_left = E->hi - E->real_used;
    int jok_left = E->jav - E->jok_used;
    int saved_nnew = E->nnew, saved_nops = E->nops, saved_ru = E->real_used, saved_ju = E->jok_used;
    int norm = (E->flags & F_NORM) ? 1 : 0;
    if (E->flags & F_HEADS) {
        /* wrap, first position: every new run is a head (a head can do all an ordinary run can) */
        for (int hr = 0; hr <= real_left; hr++)
            for (int hj = 0; hj <= jok_left; hj++) {
                if (saved_nnew + hr + hj > MAXTOK) break;
                E->nnew = saved_nnew; E->nops = saved_nops;
                E->real_used = saved_ru + hr; E->jok_used = saved_ju + hj;
                for (int i = 0; i < hr; i++) E->newtok[E->nnew++] = TK(K_HEAD, 1, 0, 1, 0, 0);
                for (int i = 0; i < hj; i++) E->newtok[E->nnew++] = TK(K_HEAD, 1, 1, 0, 0, norm);
                if (hr) PUSH_OP(E, 0, OP_HEAD_REAL, hr);
                if (hj) PUSH_OP(E, 0, OP_HEAD_JOKER, hj);
                if (emit(E) < 0) return -1;
            }
    } else {
        int fl = (E->flags & F_NEWFLAGL) ? 1 : 0;
        /* a real start beside a closing plain run is dominated by extending that run */
        int max_nr = closed_plain ? 0 : real_left;
        /* normalised: a joker-started run must reach the end; one started at A low cannot, and
         * under wrap its joker can always move past its end (making it a crossing run) */
        int max_nj = (norm && (fl || (E->flags & F_TAILS))) ? 0 : jok_left;
        for (int nr = 0; nr <= max_nr; nr++) {
            for (int nj = 0; nj <= max_nj && nr + nj + saved_nnew <= MAXTOK; nj++) {
                if (saved_ju + nj > E->jav) break;
                E->nnew = saved_nnew; E->nops = saved_nops;
                E->real_used = saved_ru + nr; E->jok_used = saved_ju + nj;
                for (int i = 0; i < nr; i++) E->newtok[E->nnew++] = TK(K_NORMAL, 1, 0, 1, fl, 0);
                for (int i = 0; i < nj; i++) E->newtok[E->nnew++] = TK(K_NORMAL, 1, 1, 0, fl, norm);
                if (nr) PUSH_OP(E, 0, OP_START_REAL, nr);
                if (nj) PUSH_OP(E, 0, OP_START_JOKER, nj);
                if (E->flags & F_TAILS) {
                    if (enum_tails(E, real_left - nr, jok_left - nj) < 0) return -1;
                } else if (emit(E) < 0) {
                    return -1;
                }
            }
        }
    }
    E->nnew = saved_nnew; E->nops = saved_nops; E->real_used = saved_ru; E->jok_used = saved_ju;
    return 0;
}

static int enum_types(Enum *E, int i, int closed_plain);

/* m tokens of type i: extend with a real card, with a joker, close, or (heads) leave a demand */
static int enum_plain(Enum *E, int i, int m, int closed_plain) {
    uint16_t t = E->type[i];
    int kind = T_KIND(t);
    int saved_nnew = E->nnew, saved_nops = E->nops, saved_ru = E->real_used, saved_ju = E->jok_used;
    if (kind == K_DEMAND) { /* waits for a tail; passes through */
        for (int k = 0; k < m; k++) E->newtok[E->nnew++] = t;
        if (enum_types(E, i + 1, closed_plain) < 0) return -1;
        E->nnew = saved_nnew;
        return 0;
    }
    int can_close = (kind == K_NORMAL || kind == K_HEAD) && T_LEN(t) >= 3 && T_REAL(t) && !T_MRE(t);
    int can_demand = kind == K_HEAD;
    int blocked = kind == K_NORMAL && T_FLAG(t) && (E->flags & F_NOEXT_FLAGL);
    int can_joker = T_J(t) < g_mjpm && !blocked;
    int can_real = !blocked;
    /* closing this token and starting a real run here is dominated by extending it */
    int plain = T_J(t) == 0 && !T_FLAG(t) && !T_MRE(t);
    uint16_t er = tok_ext(t, 0), ej = tok_ext(t, 1);
    uint16_t dem = TK(K_DEMAND, 0, T_J(t), T_REAL(t), T_LEN(t) == 1, 0);
    for (int a = 0; a <= m; a++) {
        if (saved_ru + a > E->hi || (a && !can_real)) break;
        for (int b = 0; a + b <= m; b++) {
            if (b && !can_joker) break;
            if (saved_ju + b > E->jav) break;
            for (int d = 0; a + b + d <= m; d++) {
                if (d && !can_demand) break;
                int c = m - a - b - d;
                if (c && !can_close) continue;
                E->nnew = saved_nnew; E->nops = saved_nops;
                E->real_used = saved_ru + a; E->jok_used = saved_ju + b;
                for (int k = 0; k < a; k++) E->newtok[E->nnew++] = er;
                for (int k = 0; k < b; k++) E->newtok[E->nnew++] = ej;
                for (int k = 0; k < d; k++) E->newtok[E->nnew++] = dem;
                if (a) PUSH_OP(E, t, OP_EXT_REAL, a);
                if (b) PUSH_OP(E, t, OP_EXT_JOKER, b);
                if (c) PUSH_OP(E, t, OP_CLOSE, c);
                if (d) PUSH_OP(E, t, OP_DEMAND, d);
                if (enum_types(E, i + 1, closed_plain || (c && plain)) < 0) return -1;
            }
        }
    }
    E->nnew = saved_nnew; E->nops = saved_nops; E->real_used = saved_ru; E->jok_used = saved_ju;
    return 0;
}

static int enum_types(Enum *E, int i, int closed_plain) {
    if (i == E->ntypes) return enum_starts(E, closed_plain);
    return enum_plain(E, i, E->mult[i], closed_plain);
}

/* cached list of transitions of suit state sid under (lo, hi, jav, flags); 0, or -1 memory, -2 ids */
static uint64_t tc_last_key = ~0ULL;
static int32_t tc_last_start, tc_last_count;

static int get_trans(int32_t sid, int lo, int hi, int jav, int flags, int32_t *start, int32_t *count) {
    uint64_t key = (uint64_t)sid | ((uint64_t)lo << 21) | ((uint64_t)hi << 25) | ((uint64_t)jav << 29) |
                   ((uint64_t)flags << 33) | ((uint64_t)g_mjpm << 41);
    if (key == tc_last_key) { *start = tc_last_start; *count = tc_last_count; return 0; }
    if (tc_cap == 0 || (tc_n + 1) * 2 > tc_cap)
        if (tc_rehash(tc_cap ? tc_cap * 2 : 4096) < 0) return -1;
    size_t h = mix64(key) & (tc_cap - 1);
    while (tc_tab[h].start >= 0) {
        if (tc_tab[h].key == key) {
            *start = tc_last_start = tc_tab[h].start;
            *count = tc_last_count = tc_tab[h].count;
            tc_last_key = key;
            return 0;
        }
        h = (h + 1) & (tc_cap - 1);
    }
    Enum E;
    memset(&E, 0, sizeof E);
    E.lo = lo; E.hi = hi; E.jav = jav; E.flags = flags;
    SuitState s = ss_arr[sid];
    E.acelow = s.acelow;
    for (int k = 0; k < s.ntok; k++) {
        if (E.ntypes && E.type[E.ntypes - 1] == s.tok[k]) E.mult[E.ntypes - 1]++;
        else { E.type[E.ntypes] = s.tok[k]; E.mult[E.ntypes++] = 1; }
    }
    E.list_start = (int32_t)tr_n;
    if (enum_types(&E, 0, 0) < 0 || E.err) return E.err ? E.err : -1;
    tc_tab[h].key = key; /* h is still valid: the cache table did not change */
    tc_tab[h].start = E.list_start;
    tc_tab[h].count = (int32_t)(tr_n - (size_t)E.list_start);
    tc_n++;
    *start = tc_last_start = tc_tab[h].start;
    *count = tc_last_count = tc_tab[h].count;
    tc_last_key = key;
    return 0;
}

/* ------------------------------------------------------------------ groups */
/* can S real cards (at most M of one suit) plus jg jokers form groups of one rank? G or 0 */
static int group_feasible_calc(int S, int M, int jg) {
    if (S == 0) return jg == 0 ? -1 : 0;
    for (int G = M > 1 ? M : 1; G <= S; G++) {
        int q = S / G, rm = S % G;
        int maxload = rm ? q + 1 : q;
        if (maxload > 4) continue;
        if (3 - q > g_mjpm) continue; /* the lightest group cannot reach 3 cards */
        int need = rm * (3 - (q + 1) > 0 ? 3 - (q + 1) : 0) + (G - rm) * (3 - q > 0 ? 3 - q : 0);
        int capq1 = 4 - (q + 1) < g_mjpm ? 4 - (q + 1) : g_mjpm;
        int capq = 4 - q < g_mjpm ? 4 - q : g_mjpm;
        int cap = rm * capq1 + (G - rm) * capq;
        if (need <= jg && jg <= cap) return G;
    }
    return 0;
}

/* group_feasible_calc tabulated per max_jokers_per_meld: S <= 15, M <= 3, jg <= 7 */
static int8_t gf_tab[5][16][4][8];
static int gf_ready[5];
static inline int group_feasible(int S, int M, int jg) {
    if (S > 15 || M > 3 || jg > 7 || jg < 0) return group_feasible_calc(S, M, jg);
    if (!gf_ready[g_mjpm]) {
        for (int a = 0; a < 16; a++)
            for (int b = 0; b < 4; b++)
                for (int c = 0; c < 8; c++) gf_tab[g_mjpm][a][b][c] = (int8_t)group_feasible_calc(a, b, c);
        gf_ready[g_mjpm] = 1;
    }
    return gf_tab[g_mjpm][S][M][jg];
}
