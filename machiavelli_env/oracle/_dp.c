/*
 * Exact table-repacking oracle for Machiavelli: a dynamic programme over rank positions.
 *
 * Question: choose per card type lo[c] <= x[c] <= hi[c] maximising sum w[c]*(x[c]-lo[c]) such
 * that the multiset x partitions into valid melds (groups and runs), optionally with at least
 * one group and with at least N opening points.
 *
 * Method (van Rijn, Takes & Vis 2015, staged as in design/ORACLE.md): sweep rank positions.
 * At a position boundary only the open runs of each suit matter: a multiset of small "tokens"
 * (length capped at 3, jokers held, has-a-real-card, and a flag). Suits are coupled only by the
 * groups of the current rank, so the four suits of a position are processed one after another,
 * carrying (sum of cards sent to groups, max per suit) and the group condition is checked when
 * the rank is complete. Per-suit transitions are enumerated once and cached across queries.
 *
 * Aces: low (A..K) and high (2..K, A) are plain sweeps. wrap is cyclic: a run crossing K-A is
 * split into a "head" starting at A and a "tail" ending at K; a closed head leaves a "demand"
 * that a tail must consume when it starts (later), which keeps the joined run at most 13 long.
 * low_or_high and both_ends sweep A, 2..K, A: each ace copy is used at one end, and the number
 * used low is carried per suit (runs started at A low are flagged: under low_or_high they may
 * not reach A high).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NT 53
#define JOKER 52
#define MAXTOK 14

enum { K_NORMAL = 0, K_HEAD = 1, K_DEMAND = 2, K_TAIL = 3 };
enum { ACE_LOW = 0, ACE_HIGH = 1, ACE_LOW_OR_HIGH = 2, ACE_BOTH = 3, ACE_WRAP = 4 };
/* position flags */
#define F_HEADS 1        /* wrap: crossing-run heads may start here (first position) */
#define F_TAILS 2        /* wrap: crossing-run tails may start here, consuming a demand */
#define F_SET_ACELOW 4   /* remember x (ace copies used low) in the suit state */
#define F_NEWFLAGL 8     /* new runs are flagged as started at A low (low_or_high) */
#define F_NOEXT_FLAGL 16 /* flagged runs may not take A high (low_or_high) */
#define F_CLEAR_ACELOW 32 /* second ace position: bounds reduced by the aces used low */
#define F_NOGROUP 64     /* no groups here (aces were grouped at the first position) */

/* token: kind 0-1, len 2-3 (1..3), jokers 4-6, real 7, flag 8 */
#define TK(kind, len, j, real, flag) \
    ((uint16_t)((kind) | ((len) << 2) | ((j) << 4) | ((real) << 7) | ((flag) << 8)))
#define T_KIND(t) ((t) & 3)
#define T_LEN(t) (((t) >> 2) & 3)
#define T_J(t) (((t) >> 4) & 7)
#define T_REAL(t) (((t) >> 7) & 1)
#define T_FLAG(t) (((t) >> 8) & 1)

static int g_mjpm = 1;  /* max jokers per meld */
static int g_ace = -1;

/* ------------------------------------------------------------------ growable arrays */
#define GROW(ptr, cap, need)                                               \
    do {                                                                   \
        if ((need) > (cap)) {                                              \
            size_t nc = (cap) ? (cap) : 64;                                \
            while (nc < (size_t)(need)) nc *= 2;                           \
            void *np_ = realloc((ptr), nc * sizeof(*(ptr)));               \
            if (!np_) return -1;                                           \
            (ptr) = np_;                                                   \
            (cap) = nc;                                                    \
        }                                                                  \
    } while (0)

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

/* ------------------------------------------------------------------ suit-state interning */
typedef struct {
    uint8_t ntok, acelow, final_ok;
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
    return a->ntok == b->ntok && a->acelow == b->acelow && memcmp(a->tok, b->tok, a->ntok * sizeof(uint16_t)) == 0;
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
/* tokens must be sorted; returns id or -1 on memory error */
static int32_t ss_intern(const SuitState *s) {
    if (ss_tabcap == 0 || (ss_n + 1) * 2 > ss_tabcap) {
        if (ss_rehash(ss_tabcap ? ss_tabcap * 2 : 1024) < 0) return -1;
    }
    size_t h = ss_hash(s) & (ss_tabcap - 1);
    while (ss_tab[h] >= 0) {
        if (ss_eq(&ss_arr[ss_tab[h]], s)) return ss_tab[h];
        h = (h + 1) & (ss_tabcap - 1);
    }
    if (ss_n >= 65535) return -1;
    GROW(ss_arr, ss_cap, ss_n + 1);
    SuitState *d = &ss_arr[ss_n];
    *d = *s;
    d->final_ok = 1;
    for (int i = 0; i < s->ntok; i++)
        if (!tok_final_ok(s->tok[i])) d->final_ok = 0;
    ss_tab[h] = (int32_t)ss_n;
    return (int32_t)ss_n++;
}

/* ------------------------------------------------------------------ per-suit transitions */
enum { OP_EXT_REAL, OP_EXT_JOKER, OP_CLOSE, OP_START_REAL, OP_START_JOKER, OP_HEAD_REAL, OP_HEAD_JOKER,
       OP_TAIL_REAL, OP_TAIL_JOKER, OP_DEMAND };
typedef struct { uint16_t tok; uint8_t op, cnt; } Op; /* tok: old token, or consumed demand for tails */
typedef struct {
    int32_t new_id;
    int8_t x, g, jr, nops;
    int32_t op_start;
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
    return TK(T_KIND(t), len, T_J(t) + (joker ? 1 : 0), T_REAL(t) | (joker ? 0 : 1), T_FLAG(t));
}

static int cmp_u16(const void *a, const void *b) {
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
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
    qsort(s.tok, s.ntok, sizeof(uint16_t), cmp_u16);
    for (int g = 0; E->real_used + g <= E->hi; g++) {
        int x = E->real_used + g;
        if (g > 0 && (E->flags & F_NOGROUP)) break;
        if (x < E->lo) continue;
        if (E->flags & F_SET_ACELOW) s.acelow = (uint8_t)x;
        else if (E->flags & F_CLEAR_ACELOW) s.acelow = 0;
        else s.acelow = (uint8_t)E->acelow;
        int32_t id = ss_intern(&s);
        if (id < 0) { E->err = 1; return -1; }
        /* dedupe identical outcomes */
        int dup = 0;
        for (size_t k = (size_t)E->list_start; k < tr_n; k++) {
            Trans *o = &tr_arr[k];
            if (o->new_id == id && o->x == x && o->g == g && o->jr == E->jok_used) { dup = 1; break; }
        }
        if (dup) continue;
        GROW(tr_arr, tr_cap, tr_n + 1);
        GROW(op_arr, op_cap, op_n + (size_t)E->nops);
        Trans *t = &tr_arr[tr_n++];
        t->new_id = id; t->x = (int8_t)x; t->g = (int8_t)g; t->jr = (int8_t)E->jok_used;
        t->nops = (int8_t)E->nops; t->op_start = (int32_t)op_n;
        memcpy(&op_arr[op_n], E->ops, E->nops * sizeof(Op));
        op_n += (size_t)E->nops;
    }
    return 0;
}

#define PUSH_OP(E, t, o, c) do { (E)->ops[(E)->nops].tok = (t); (E)->ops[(E)->nops].op = (o); \
    (E)->ops[(E)->nops].cnt = (uint8_t)(c); (E)->nops++; } while (0)

/* new runs: normal real/joker starts, wrap heads (position A) or tails (consuming demands) */
static int enum_starts(Enum *E, int closed_normal) {
    int real_left = E->hi - E->real_used;
    int jok_left = E->jav - E->jok_used;
    int saved_nnew = E->nnew, saved_nops = E->nops, saved_ru = E->real_used, saved_ju = E->jok_used;
    /* normal starts (a real start beside a closing normal run is dominated by extending it) */
    int max_nr = closed_normal ? 0 : real_left;
    int max_nj = jok_left;
    if (E->flags & F_HEADS) max_nr = max_nj = 0; /* a head can do all a normal run can */
    for (int nr = 0; nr <= max_nr; nr++) {
        for (int nj = 0; nj <= max_nj; nj++) {
            if (E->nnew + nr + nj > MAXTOK) break;
            E->nnew = saved_nnew; E->nops = saved_nops; E->real_used = saved_ru + nr; E->jok_used = saved_ju + nj;
            int fl = (E->flags & F_NEWFLAGL) ? 1 : 0;
            for (int i = 0; i < nr; i++) E->newtok[E->nnew++] = TK(K_NORMAL, 1, 0, 1, fl);
            for (int i = 0; i < nj; i++) E->newtok[E->nnew++] = TK(K_NORMAL, 1, 1, 0, fl);
            if (nr) PUSH_OP(E, 0, OP_START_REAL, nr);
            if (nj) PUSH_OP(E, 0, OP_START_JOKER, nj);
            int rl = real_left - nr, jl = jok_left - nj;
            int base_nnew = E->nnew, base_nops = E->nops, base_ru = E->real_used, base_ju = E->jok_used;
            if (E->flags & F_HEADS) {
                for (int hr = 0; hr <= rl; hr++)
                    for (int hj = 0; hj <= jl; hj++) {
                        if (base_nnew + hr + hj > MAXTOK) break;
                        E->nnew = base_nnew; E->nops = base_nops;
                        E->real_used = base_ru + hr; E->jok_used = base_ju + hj;
                        for (int i = 0; i < hr; i++) E->newtok[E->nnew++] = TK(K_HEAD, 1, 0, 1, 0);
                        for (int i = 0; i < hj; i++) E->newtok[E->nnew++] = TK(K_HEAD, 1, 1, 0, 0);
                        if (hr) PUSH_OP(E, 0, OP_HEAD_REAL, hr);
                        if (hj) PUSH_OP(E, 0, OP_HEAD_JOKER, hj);
                        if (emit(E) < 0) return -1;
                    }
            } else if (E->flags & F_TAILS) {
                /* demands sit among newtok (they passed through); pick some to consume */
                int didx[MAXTOK * 2], nd = 0;
                for (int i = 0; i < base_nnew; i++)
                    if (T_KIND(E->newtok[i]) == K_DEMAND) didx[nd++] = i;
                if (nd == 0) {
                    if (emit(E) < 0) return -1;
                } else {
                    /* each demand: untouched (0), real tail (1), joker tail (2) */
                    int choice[MAXTOK * 2];
                    uint16_t keep[MAXTOK * 2];
                    memcpy(keep, E->newtok, base_nnew * sizeof(uint16_t));
                    int total = 1;
                    for (int i = 0; i < nd; i++) total *= 3;
                    for (int code = 0; code < total; code++) {
                        int c = code, r = 0, j = 0, ok = 1;
                        for (int i = 0; i < nd; i++) { choice[i] = c % 3; c /= 3; }
                        /* canonical: equal demand tokens take non-increasing choices */
                        for (int i = 1; i < nd && ok; i++)
                            if (keep[didx[i]] == keep[didx[i - 1]] && choice[i] > choice[i - 1]) ok = 0;
                        for (int i = 0; i < nd; i++) { r += choice[i] == 1; j += choice[i] == 2; }
                        if (!ok || r > rl || j > jl) continue;
                        memcpy(E->newtok, keep, base_nnew * sizeof(uint16_t));
                        E->nnew = base_nnew; E->nops = base_nops;
                        E->real_used = base_ru + r; E->jok_used = base_ju + j;
                        for (int i = 0; i < nd && ok; i++) {
                            if (!choice[i]) continue;
                            uint16_t d = keep[didx[i]];
                            int joker = choice[i] == 2;
                            int jj = T_J(d) + joker;
                            if (jj > g_mjpm) { ok = 0; break; }
                            E->newtok[didx[i]] = TK(K_TAIL, 1, jj, T_REAL(d) | !joker, T_FLAG(d));
                            PUSH_OP(E, d, joker ? OP_TAIL_JOKER : OP_TAIL_REAL, 1);
                        }
                        if (ok && emit(E) < 0) return -1;
                    }
                    memcpy(E->newtok, keep, base_nnew * sizeof(uint16_t));
                }
            } else {
                if (emit(E) < 0) return -1;
            }
        }
    }
    E->nnew = saved_nnew; E->nops = saved_nops; E->real_used = saved_ru; E->jok_used = saved_ju;
    return 0;
}

static int enum_types(Enum *E, int i, int closed_normal);

/* m tokens of type i: extend with a real card, with a joker, or close */
static int enum_plain(Enum *E, int i, int m, int closed_normal) {
    uint16_t t = E->type[i];
    int kind = T_KIND(t);
    int saved_nnew = E->nnew, saved_nops = E->nops, saved_ru = E->real_used, saved_ju = E->jok_used;
    if (kind == K_DEMAND) { /* waits for a tail; passes through */
        for (int k = 0; k < m; k++) E->newtok[E->nnew++] = t;
        if (enum_types(E, i + 1, closed_normal) < 0) return -1;
        E->nnew = saved_nnew;
        return 0;
    }
    int can_close = (kind == K_NORMAL || kind == K_HEAD) && T_LEN(t) >= 3 && T_REAL(t);
    int can_demand = kind == K_HEAD;
    int can_joker = T_J(t) < g_mjpm;
    int can_real = !(kind == K_NORMAL && T_FLAG(t) && (E->flags & F_NOEXT_FLAGL));
    uint16_t er = tok_ext(t, 0), ej = tok_ext(t, 1);
    uint16_t dem = TK(K_DEMAND, 0, T_J(t), T_REAL(t), T_LEN(t) == 1);
    for (int a = 0; a <= m; a++) {
        if (saved_ru + a > E->hi || (a && !can_real)) break;
        for (int b = 0; a + b <= m; b++) {
            if (b && (!can_joker || !can_real)) break;
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
                /* closing a run and starting a new one beside it is dominated by extending it
                   (not for a run started at A low, which may not reach A high) */
                if (enum_types(E, i + 1, closed_normal || (c && !T_FLAG(t))) < 0) return -1;
            }
        }
    }
    E->nnew = saved_nnew; E->nops = saved_nops; E->real_used = saved_ru; E->jok_used = saved_ju;
    return 0;
}

/* token types one by one */
static int enum_types(Enum *E, int i, int closed_normal) {
    if (i == E->ntypes) return enum_starts(E, closed_normal);
    return enum_plain(E, i, E->mult[i], closed_normal);
}

/* cached list of transitions of suit state sid under (lo, hi, jav, flags) */
static int get_trans(int32_t sid, int lo, int hi, int jav, int flags, int32_t *start, int32_t *count) {
    uint64_t key = (uint64_t)sid | ((uint64_t)lo << 16) | ((uint64_t)hi << 20) | ((uint64_t)jav << 24) |
                   ((uint64_t)flags << 28);
    if (tc_cap == 0 || (tc_n + 1) * 2 > tc_cap)
        if (tc_rehash(tc_cap ? tc_cap * 2 : 4096) < 0) return -1;
    size_t h = mix64(key) & (tc_cap - 1);
    while (tc_tab[h].start >= 0) {
        if (tc_tab[h].key == key) { *start = tc_tab[h].start; *count = tc_tab[h].count; return 0; }
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
    if (enum_types(&E, 0, 0) < 0 || E.err) return -1;
    /* ss_intern may have grown the table; h is still valid for tc (separate table) */
    tc_tab[h].key = key;
    tc_tab[h].start = E.list_start;
    tc_tab[h].count = (int32_t)(tr_n - (size_t)E.list_start);
    tc_n++;
    *start = tc_tab[h].start;
    *count = tc_tab[h].count;
    return 0;
}

/* ------------------------------------------------------------------ groups */
/* can S real cards (at most M of one suit) plus jg jokers form groups of one rank? */
static int group_feasible(int S, int M, int jg) {
    if (S == 0) return jg == 0;
    for (int G = 1; G <= S; G++) {
        if (M > G) continue;
        int q = S / G, rm = S % G;
        int maxload = rm ? q + 1 : q;
        if (maxload > 4 || q < 1 || q < 3 - g_mjpm) continue;
        int need = rm * (3 - (q + 1) > 0 ? 3 - (q + 1) : 0) + (G - rm) * (3 - q > 0 ? 3 - q : 0);
        int capq1 = 4 - (q + 1) < g_mjpm ? 4 - (q + 1) : g_mjpm;
        int capq = 4 - q < g_mjpm ? 4 - q : g_mjpm;
        int cap = rm * capq1 + (G - rm) * capq;
        if (need <= jg && jg <= cap) return G;
    }
    return 0;
}

/* ------------------------------------------------------------------ the main DP */
typedef struct {
    uint64_t k0, k1;
    int32_t val, prev, tr, dead;
} Entry;

static Entry *en = NULL;
static size_t en_n = 0, en_cap = 0;
static int32_t *htab = NULL;
static uint32_t *hstamp = NULL;
static size_t hcap = 0;
static uint32_t curstamp = 0;
static long last_states = 0, last_pruned = 0;
static int g_prune = 1;

/* k1 layout: J 0-2, gflag 3, open points 4-10, S 11-14, M 15-16 */
#define K1(J, gf, op, S, M) \
    ((uint64_t)(J) | ((uint64_t)(gf) << 3) | ((uint64_t)(op) << 4) | ((uint64_t)(S) << 11) | ((uint64_t)(M) << 15))
#define K1_J(k) ((int)((k) & 7))
#define K1_GF(k) ((int)(((k) >> 3) & 1))
#define K1_OP(k) ((int)(((k) >> 4) & 127))
#define K1_S(k) ((int)(((k) >> 11) & 15))
#define K1_M(k) ((int)(((k) >> 15) & 3))

static int stage_begin(size_t expected) {
    size_t need = 16;
    while (need < expected * 2) need *= 2;
    if (need > hcap) {
        free(htab); free(hstamp);
        htab = malloc(need * sizeof(int32_t));
        hstamp = calloc(need, sizeof(uint32_t));
        if (!htab || !hstamp) return -1;
        hcap = need;
        curstamp = 0;
    }
    curstamp++;
    if (curstamp == 0) { memset(hstamp, 0, hcap * sizeof(uint32_t)); curstamp = 1; }
    return 0;
}

/* insert or improve; returns 0, or -1 on memory error */
static int stage_put(size_t stage_start, uint64_t k0, uint64_t k1, int32_t val, int32_t prev, int32_t tr) {
    size_t used = en_n - stage_start;
    if ((used + 1) * 2 > hcap) {
        /* grow table and reinsert this stage's entries */
        size_t nc = hcap * 2;
        free(htab); free(hstamp);
        htab = malloc(nc * sizeof(int32_t));
        hstamp = calloc(nc, sizeof(uint32_t));
        if (!htab || !hstamp) return -1;
        hcap = nc;
        curstamp = 1;
        for (size_t i = stage_start; i < en_n; i++) {
            size_t h = mix64(en[i].k0 ^ mix64(en[i].k1)) & (hcap - 1);
            while (hstamp[h] == curstamp) h = (h + 1) & (hcap - 1);
            hstamp[h] = curstamp;
            htab[h] = (int32_t)i;
        }
    }
    size_t h = mix64(k0 ^ mix64(k1)) & (hcap - 1);
    while (hstamp[h] == curstamp) {
        Entry *e = &en[htab[h]];
        if (e->k0 == k0 && e->k1 == k1) {
            if (val > e->val) { e->val = val; e->prev = prev; e->tr = tr; }
            return 0;
        }
        h = (h + 1) & (hcap - 1);
    }
    GROW(en, en_cap, en_n + 1);
    Entry *e = &en[en_n];
    e->k0 = k0; e->k1 = k1; e->val = val; e->prev = prev; e->tr = tr; e->dead = 0;
    hstamp[h] = curstamp;
    htab[h] = (int32_t)en_n;
    en_n++;
    return 0;
}

/* ------------------------------------------------------------------ dominance */
/* Token a can do all that token b can: same kind (or a head for a normal run), at least as
 * long, no more jokers, no worse flags. Demands (obligations) only match themselves. */
static int tok_dom(uint16_t a, uint16_t b) {
    int ka = T_KIND(a), kb = T_KIND(b);
    if (ka == K_DEMAND || kb == K_DEMAND) return a == b;
    if (ka != kb && !(ka == K_HEAD && kb == K_NORMAL)) return 0;
    return T_LEN(a) >= T_LEN(b) && T_J(a) <= T_J(b) && T_REAL(a) >= T_REAL(b) && T_FLAG(a) <= T_FLAG(b);
}
/* a run that may be closed at once: having it open costs nothing */
static int tok_optional(uint16_t t) {
    return (T_KIND(t) == K_NORMAL || T_KIND(t) == K_HEAD) && T_LEN(t) >= 3 && T_REAL(t);
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

static uint32_t *dom_keys = NULL;
static int8_t *dom_vals = NULL;
static size_t dom_cap = 0, dom_n = 0;

/* does suit state a dominate suit state b (every future of b is open to a, same cards)? */
static int suit_dom(int32_t a, int32_t b) {
    if (a == b) return 1;
    const SuitState *A = &ss_arr[a], *B = &ss_arr[b];
    if (A->acelow != B->acelow || A->ntok < B->ntok) return 0;
    uint32_t key = ((uint32_t)a << 16) | (uint32_t)b;
    if (dom_cap == 0 || (dom_n + 1) * 2 > dom_cap) {
        size_t nc = dom_cap ? dom_cap * 2 : 4096;
        uint32_t *nk = malloc(nc * sizeof(uint32_t));
        int8_t *nv = malloc(nc);
        if (!nk || !nv) { free(nk); free(nv); return 0; }
        for (size_t i = 0; i < nc; i++) nk[i] = 0xffffffffu;
        for (size_t i = 0; i < dom_cap; i++) {
            if (dom_keys[i] == 0xffffffffu) continue;
            size_t h = mix64(dom_keys[i]) & (nc - 1);
            while (nk[h] != 0xffffffffu) h = (h + 1) & (nc - 1);
            nk[h] = dom_keys[i]; nv[h] = dom_vals[i];
        }
        free(dom_keys); free(dom_vals);
        dom_keys = nk; dom_vals = nv; dom_cap = nc;
    }
    size_t h = mix64(key) & (dom_cap - 1);
    while (dom_keys[h] != 0xffffffffu) {
        if (dom_keys[h] == key) return dom_vals[h];
        h = (h + 1) & (dom_cap - 1);
    }
    int r = match_tokens(A, B, 0, 0);
    dom_keys[h] = key; dom_vals[h] = (int8_t)r; dom_n++;
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
        uint64_t mask = ~(0xffffULL << (16 * s));
        for (size_t i = 0; i < cap; i++) pr_head[i] = -1;
        for (size_t i = a; i < b; i++) {
            if (en[i].dead) continue;
            uint64_t mk = en[i].k0 & mask;
            size_t h = mix64(mk ^ mix64(en[i].k1)) & (cap - 1);
            while (pr_head[h] >= 0) {
                Entry *f = &en[a + (size_t)pr_head[h]];
                if ((f->k0 & mask) == mk && f->k1 == en[i].k1) break;
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
                int32_t sx = (int32_t)((ex->k0 >> (16 * s)) & 0xffff);
                for (int32_t y = first; y >= 0; y = pr_next[y]) {
                    Entry *ey = &en[a + (size_t)y];
                    if (y == x || ey->dead || ex->val < ey->val) continue;
                    if (suit_dom(sx, (int32_t)((ey->k0 >> (16 * s)) & 0xffff))) { ey->dead = 1; dropped++; }
                }
            }
        }
    }
    return dropped;
}

typedef struct { int rank; int flags; } Pos;

static int positions(int ace, Pos *P) {
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
        default: /* wrap */
            P[n++] = (Pos){0, F_HEADS};
            for (int r = 1; r < 13; r++) P[n++] = (Pos){r, F_TAILS};
            break;
    }
    return n;
}

static int rank_open_points(int r) { return r >= 9 ? 10 : r + 1; }

static void reset_caches(void) {
    ss_n = 0;
    if (ss_tab) for (size_t i = 0; i < ss_tabcap; i++) ss_tab[i] = -1;
    tr_n = 0; op_n = 0;
    if (tc_tab) for (size_t i = 0; i < tc_cap; i++) tc_tab[i].start = -1;
    tc_n = 0;
    if (dom_keys) for (size_t i = 0; i < dom_cap; i++) dom_keys[i] = 0xffffffffu;
    dom_n = 0;
}

/* ------------------------------------------------------------------ reconstruction */
typedef struct {
    uint16_t code;
    int8_t n, touched, alive, kind;
    int16_t head; /* tails: index of the head's pending cards */
    int8_t cards[28];
} Run;

typedef struct {
    PyObject *melds;
    Run runs[4][MAXTOK * 2];
    int nruns[4];
    Run pend[4][MAXTOK * 2]; /* closed heads waiting for a tail */
    int npend[4];
    int err;
} Builder;

static void add_meld(Builder *B, const int8_t *a, int na, const int8_t *b, int nb) {
    PyObject *m = PyList_New(na + nb);
    if (!m) { B->err = 1; return; }
    for (int i = 0; i < na; i++) PyList_SET_ITEM(m, i, PyLong_FromLong(a[i]));
    for (int i = 0; i < nb; i++) PyList_SET_ITEM(m, na + i, PyLong_FromLong(b[i]));
    if (PyList_Append(B->melds, m) < 0) B->err = 1;
    Py_DECREF(m);
}

static Run *find_run(Builder *B, int s, uint16_t code) {
    for (int i = 0; i < B->nruns[s]; i++) {
        Run *r = &B->runs[s][i];
        if (r->alive && !r->touched && r->code == code) return r;
    }
    return NULL;
}

static Run *new_run(Builder *B, int s) {
    for (int i = 0; i < B->nruns[s]; i++)
        if (!B->runs[s][i].alive) { memset(&B->runs[s][i], 0, sizeof(Run)); B->runs[s][i].alive = 1; return &B->runs[s][i]; }
    if (B->nruns[s] >= MAXTOK * 2) { B->err = 1; return &B->runs[s][0]; }
    Run *r = &B->runs[s][B->nruns[s]++];
    memset(r, 0, sizeof(Run));
    r->alive = 1;
    return r;
}

static void apply_suit(Builder *B, int s, int card, const Trans *t, int newflag, int *group_cards) {
    int real_in_runs = 0;
    for (int i = 0; i < B->nruns[s]; i++) B->runs[s][i].touched = 0;
    for (int k = 0; k < t->nops; k++) {
        const Op *o = &op_arr[t->op_start + k];
        for (int c = 0; c < o->cnt; c++) {
            Run *r;
            switch (o->op) {
                case OP_EXT_REAL:
                case OP_EXT_JOKER: {
                    int joker = o->op == OP_EXT_JOKER;
                    r = find_run(B, s, o->tok);
                    if (!r) { B->err = 1; return; }
                    r->cards[r->n++] = (int8_t)(joker ? JOKER : card);
                    r->code = tok_ext(r->code, joker);
                    r->touched = 1;
                    real_in_runs += !joker;
                    break;
                }
                case OP_CLOSE:
                case OP_DEMAND:
                    r = find_run(B, s, o->tok);
                    if (!r) { B->err = 1; return; }
                    if (o->op == OP_DEMAND) {
                        Run *p = &B->pend[s][B->npend[s]++];
                        *p = *r;
                        p->code = TK(K_DEMAND, 0, T_J(r->code), T_REAL(r->code), T_LEN(r->code) == 1);
                        p->touched = 0;
                    } else {
                        add_meld(B, r->cards, r->n, NULL, 0);
                    }
                    r->alive = 0;
                    break;
                case OP_START_REAL:
                case OP_START_JOKER:
                case OP_HEAD_REAL:
                case OP_HEAD_JOKER: {
                    int joker = o->op == OP_START_JOKER || o->op == OP_HEAD_JOKER;
                    int head = o->op == OP_HEAD_REAL || o->op == OP_HEAD_JOKER;
                    r = new_run(B, s);
                    r->cards[r->n++] = (int8_t)(joker ? JOKER : card);
                    r->code = TK(head ? K_HEAD : K_NORMAL, 1, joker, !joker, head ? 0 : newflag);
                    r->kind = 0;
                    r->head = -1;
                    r->touched = 1;
                    real_in_runs += !joker;
                    break;
                }
                case OP_TAIL_REAL:
                case OP_TAIL_JOKER: {
                    int joker = o->op == OP_TAIL_JOKER;
                    int pi = -1;
                    for (int i = 0; i < B->npend[s]; i++)
                        if (!B->pend[s][i].touched && B->pend[s][i].code == o->tok) { pi = i; break; }
                    if (pi < 0) { B->err = 1; return; }
                    B->pend[s][pi].touched = 1; /* consumed */
                    uint16_t d = o->tok;
                    r = new_run(B, s);
                    r->cards[r->n++] = (int8_t)(joker ? JOKER : card);
                    r->code = TK(K_TAIL, 1, T_J(d) + joker, T_REAL(d) | !joker, T_FLAG(d));
                    r->head = (int16_t)pi;
                    r->touched = 1;
                    real_in_runs += !joker;
                    break;
                }
            }
        }
    }
    *group_cards = t->x - real_in_runs;
}

static void build_groups(Builder *B, int rank, const int *gs, int jg) {
    int S = 0, M = 0;
    for (int s = 0; s < 4; s++) { S += gs[s]; if (gs[s] > M) M = gs[s]; }
    if (S == 0) return;
    int G = group_feasible(S, M, jg);
    if (!G) { B->err = 1; return; }
    int8_t grp[16][6];
    int nreal[16], nj[16];
    memset(nreal, 0, sizeof nreal); memset(nj, 0, sizeof nj);
    /* deal suits in order of decreasing count, round-robin: no group gets a suit twice */
    int order[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        for (int k = i + 1; k < 4; k++)
            if (gs[order[k]] > gs[order[i]]) { int t = order[i]; order[i] = order[k]; order[k] = t; }
    int slot = 0;
    for (int i = 0; i < 4; i++) {
        int s = order[i];
        for (int c = 0; c < gs[s]; c++) {
            int gi = slot++ % G;
            grp[gi][nreal[gi]++] = (int8_t)(s * 13 + rank);
        }
    }
    int left = jg;
    for (int gi = 0; gi < G && left; gi++)
        while (nreal[gi] + nj[gi] < 3 && left) { nj[gi]++; left--; }
    for (int gi = 0; gi < G && left; gi++)
        while (nreal[gi] + nj[gi] < 4 && nj[gi] < g_mjpm && left) { nj[gi]++; left--; }
    if (left) { B->err = 1; return; }
    for (int gi = 0; gi < G; gi++) {
        for (int k = 0; k < nj[gi]; k++) grp[gi][nreal[gi] + k] = JOKER;
        add_meld(B, grp[gi], nreal[gi] + nj[gi], NULL, 0);
    }
}

static void finish_runs(Builder *B) {
    for (int s = 0; s < 4; s++) {
        for (int i = 0; i < B->nruns[s]; i++) {
            Run *r = &B->runs[s][i];
            if (!r->alive) continue;
            if (T_KIND(r->code) == K_TAIL && r->head >= 0) {
                Run *h = &B->pend[s][r->head];
                add_meld(B, r->cards, r->n, h->cards, h->n);
            } else {
                add_meld(B, r->cards, r->n, NULL, 0);
            }
        }
    }
}

/* ------------------------------------------------------------------ entry point */
/* keep the `beam` best entries of [a, b) (by value), marking the others dead */
static int32_t *beam_buf = NULL;
static size_t beam_cap = 0;
static int cmp_desc_i32(const void *x, const void *y) {
    int32_t u = *(const int32_t *)x, v = *(const int32_t *)y;
    return (u < v) - (u > v);
}
static void beam_cut(size_t a, size_t b, int beam) {
    size_t n = 0;
    if (b - a <= (size_t)beam) return;
    if (b - a > beam_cap) {
        free(beam_buf);
        beam_buf = malloc((b - a) * sizeof(int32_t));
        beam_cap = beam_buf ? b - a : 0;
        if (!beam_buf) return;
    }
    for (size_t i = a; i < b; i++) if (!en[i].dead) beam_buf[n++] = en[i].val;
    if (n <= (size_t)beam) return;
    qsort(beam_buf, n, sizeof(int32_t), cmp_desc_i32);
    int32_t thr = beam_buf[beam - 1];
    int keep_eq = 0;
    for (int k = 0; k < beam; k++) keep_eq += beam_buf[k] == thr;
    for (size_t i = a; i < b; i++) {
        if (en[i].dead) continue;
        if (en[i].val > thr) continue;
        if (en[i].val == thr && keep_eq > 0) { keep_eq--; continue; }
        en[i].dead = 1;
    }
}

typedef struct {
    const uint8_t *lo, *hi;
    const int32_t *w;
    int need_group, min_open, loJ, hiJ, np;
    Pos P[14];
    long base;          /* sum of w * lo over real cards */
    long rem[14 * 5 + 2]; /* upper bound on the value still to come after each stage */
    size_t stage_start[14 * 5 + 2];
    int ns;
} Query;

/* Forward DP. budget > 0: give up (return 1) past that many entries. beam > 0: keep only the
 * best `beam` entries per stage (a heuristic, used only to find a bound). has_bound: drop entries
 * that cannot beat `bound`. Sets *best (-1 if no accepting state) and *bestval. */
static int run_dp(Query *q, long budget, int beam, int has_bound, long bound, int32_t *best, long *bestval) {
    const uint8_t *lo = q->lo, *hi = q->hi;
    const int32_t *w = q->w;
    int hiJ = q->hiJ;
    SuitState empty;
    memset(&empty, 0, sizeof empty);
    int32_t e0 = ss_intern(&empty);
    if (e0 < 0) return -1;
    en_n = 0;
    int ns = 0;
    if (stage_begin(64) < 0) return -1;
    q->stage_start[ns++] = 0;
    uint64_t k0init = (uint64_t)e0 | ((uint64_t)e0 << 16) | ((uint64_t)e0 << 32) | ((uint64_t)e0 << 48);
    if (stage_put(0, k0init, K1(0, 0, 0, 0, 0), 0, -1, -1) < 0) return -1;
    int capop = q->min_open;
    long jbonus = (long)w[JOKER] * (hiJ - q->loJ);
    for (int p = 0; p < q->np; p++) {
        int rank = q->P[p].rank, flags = q->P[p].flags;
        int rv = rank_open_points(rank);
        for (int s = 0; s < 4; s++) {
            int card = s * 13 + rank;
            size_t a = q->stage_start[ns - 1], b = en_n;
            if (stage_begin(b - a + 16) < 0) return -1;
            long limit = q->rem[ns]; /* the most value still to come after this stage */
            q->stage_start[ns++] = b;
            for (size_t i = a; i < b; i++) {
                Entry e = en[i];
                if (e.dead) continue;
                int32_t sid = (int32_t)((e.k0 >> (16 * s)) & 0xffff);
                int l = (flags & F_SET_ACELOW) ? 0 : lo[card], h = hi[card], al_used = 0;
                if (flags & F_CLEAR_ACELOW) {
                    int al = ss_arr[sid].acelow;
                    al_used = al;
                    l = l - al > 0 ? l - al : 0;
                    h = h - al;
                    if (h < 0) continue;
                }
                int J = K1_J(e.k1);
                int jav = hiJ - J;
                if (jav > 4) jav = 4;
                int32_t ts, tcnt;
                if (get_trans(sid, l, h, jav, flags, &ts, &tcnt) < 0) return -1;
                int S = K1_S(e.k1), M = K1_M(e.k1), op = K1_OP(e.k1), gf = K1_GF(e.k1);
                for (int32_t k = 0; k < tcnt; k++) {
                    const Trans *t = &tr_arr[ts + k];
                    int nS = S + t->g, nM = M > t->g ? M : t->g;
                    if (nS > 15) continue;
                    /* split aces are valued at the second ace position, so bounds stay tight */
                    int32_t nval = e.val + ((flags & F_SET_ACELOW) ? 0 : w[card] * (t->x + al_used));
                    if (has_bound && (long)nval + limit - q->base + jbonus <= bound) continue;
                    int nop = op + (t->x + t->jr) * rv;
                    if (nop > capop) nop = capop;
                    uint64_t k0 = (e.k0 & ~(0xffffULL << (16 * s))) | ((uint64_t)t->new_id << (16 * s));
                    uint64_t k1 = K1(J + t->jr, gf, nop, nS, nM);
                    if (stage_put(b, k0, k1, nval, (int32_t)i, ts + k) < 0) return -1;
                }
            }
            if (beam) beam_cut(b, en_n, beam);
            if (budget && (long)en_n > budget) return 1;
        }
        /* groups of this rank */
        size_t a = q->stage_start[ns - 1], b = en_n;
        if (stage_begin(b - a + 16) < 0) return -1;
        q->stage_start[ns++] = b;
        for (size_t i = a; i < b; i++) {
            Entry e = en[i];
            if (e.dead) continue;
            int J = K1_J(e.k1), S = K1_S(e.k1), M = K1_M(e.k1), op = K1_OP(e.k1), gf = K1_GF(e.k1);
            int jmax = S ? hiJ - J : 0;
            for (int jg = 0; jg <= jmax; jg++) {
                if (!group_feasible(S, M, jg)) continue;
                int nop = op + jg * rv;
                if (nop > capop) nop = capop;
                uint64_t k1 = K1(J + jg, gf | (S > 0), nop, 0, 0);
                if (stage_put(b, e.k0, k1, e.val, (int32_t)i, jg) < 0) return -1;
            }
        }
        if (g_prune) last_pruned += prune_dominated(b, en_n);
        if (beam) beam_cut(b, en_n, beam);
    }
    q->stage_start[ns] = en_n;
    q->ns = ns;
    last_states += (long)en_n;
    *best = -1;
    *bestval = 0;
    for (size_t i = q->stage_start[ns - 1]; i < en_n; i++) {
        Entry *e = &en[i];
        if (e->dead) continue;
        int J = K1_J(e->k1);
        if (J < q->loJ || J > hiJ) continue;
        if (q->need_group && !K1_GF(e->k1)) continue;
        if (K1_OP(e->k1) < q->min_open) continue;
        int ok = 1;
        for (int s = 0; s < 4 && ok; s++) ok = ss_arr[(e->k0 >> (16 * s)) & 0xffff].final_ok;
        if (!ok) continue;
        long v = (long)e->val - q->base + (long)w[JOKER] * (J - q->loJ);
        if (has_bound && v <= bound) continue;
        if (*best < 0 || v > *bestval) { *best = (int32_t)i; *bestval = v; }
    }
    return 0;
}

/* (value, x bytes, melds) of the accepting entry `best` of the last run */
static PyObject *reconstruct(Query *q, int32_t best, long bestval) {
    int32_t chain[14 * 5 + 2];
    int ns = q->ns;
    int32_t cur = best;
    for (int st = ns - 1; st >= 1; st--) { chain[st] = cur; cur = en[cur].prev; }
    chain[0] = cur;
    Builder *B = calloc(1, sizeof(Builder));
    if (!B) return PyErr_NoMemory();
    B->melds = PyList_New(0);
    uint8_t x[NT];
    memset(x, 0, sizeof x);
    int st = 1;
    for (int p = 0; p < q->np && !B->err && B->melds; p++) {
        int rank = q->P[p].rank;
        int gs[4];
        for (int s = 0; s < 4; s++, st++) {
            const Trans *t = &tr_arr[en[chain[st]].tr];
            apply_suit(B, s, s * 13 + rank, t, (q->P[p].flags & F_NEWFLAGL) ? 1 : 0, &gs[s]);
            x[s * 13 + rank] += (uint8_t)t->x;
        }
        int jg = en[chain[st]].tr;
        st++;
        build_groups(B, rank, gs, jg);
    }
    if (B->melds && !B->err) finish_runs(B);
    x[JOKER] = (uint8_t)K1_J(en[best].k1);
    if (B->err || !B->melds) {
        Py_XDECREF(B->melds);
        free(B);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "_dp.solve: arrangement reconstruction failed");
        return NULL;
    }
    PyObject *res = Py_BuildValue("(ly#N)", bestval, (const char *)x, (Py_ssize_t)NT, B->melds);
    free(B);
    return res;
}

static long g_budget = 20000; /* entries before switching to bound-and-prune */
static int g_beam = 128;
static long last_beam_value;

static PyObject *py_solve(PyObject *self, PyObject *args) {
    Py_buffer blo, bhi, bw;
    int ace, mjpm, need_group, min_open;
    if (!PyArg_ParseTuple(args, "y*y*y*iiii", &blo, &bhi, &bw, &ace, &mjpm, &need_group, &min_open)) return NULL;
    PyObject *result = NULL, *first = NULL;
    Query *q = NULL;
    if (blo.len != NT || bhi.len != NT || bw.len != NT * 4 || ace < 0 || ace > 4 || mjpm < 0 || mjpm > 4 ||
        min_open < 0 || min_open > 127) {
        PyErr_SetString(PyExc_ValueError, "_dp.solve: bad argument sizes or ranges");
        goto done;
    }
    const uint8_t *lo = blo.buf, *hi = bhi.buf;
    const int32_t *w = bw.buf;
    if (ace != g_ace || mjpm != g_mjpm) {
        g_ace = ace; g_mjpm = mjpm;
        reset_caches();
    }
    if (ss_n > 60000 || tr_n > (size_t)50e6) reset_caches();
    q = calloc(1, sizeof(Query));
    if (!q) { PyErr_NoMemory(); goto done; }
    q->lo = lo; q->hi = hi; q->w = w; q->need_group = need_group; q->min_open = min_open;
    q->loJ = lo[JOKER]; q->hiJ = hi[JOKER] > 7 ? 7 : hi[JOKER];
    if (q->loJ > q->hiJ) { Py_INCREF(Py_None); result = Py_None; goto done; }
    for (int c = 0; c < 52; c++) {
        if (lo[c] > hi[c]) { Py_INCREF(Py_None); result = Py_None; goto done; }
        if (hi[c] > 3) { PyErr_SetString(PyExc_ValueError, "_dp.solve: at most 3 copies of a card"); goto done; }
        if (w[c] < 0) { PyErr_SetString(PyExc_ValueError, "_dp.solve: negative weight"); goto done; }
        q->base += (long)w[c] * lo[c];
    }
    q->np = positions(ace, q->P);
    {   /* rem[st]: the most value (w * hi) of the placements after stage st */
        int nst = q->np * 5 + 1;
        long acc = 0;
        q->rem[nst] = 0;
        for (int p = q->np - 1; p >= 0; p--) {
            int st = 1 + p * 5 + 4; /* group stage of p */
            q->rem[st] = acc;
            for (int s = 3; s >= 0; s--) {
                q->rem[1 + p * 5 + s] = acc;
                int c = s * 13 + q->P[p].rank;
                if (!(q->P[p].flags & F_SET_ACELOW)) acc += (long)w[c] * hi[c];
            }
        }
    }
    last_states = 0;
    last_pruned = 0;
    int32_t best;
    long bestval;
    int r = run_dp(q, g_budget, 0, 0, 0, &best, &bestval);
    if (r < 0) { PyErr_NoMemory(); goto done; }
    if (r == 1) {
        /* large: find a good solution with a beam, then search exactly for anything better */
        int has_bound = 0;
        long bound = 0;
        if (run_dp(q, 0, g_beam, 0, 0, &best, &bestval) < 0) { PyErr_NoMemory(); goto done; }
        last_beam_value = best >= 0 ? bestval : -1;
        if (best >= 0) {
            first = reconstruct(q, best, bestval);
            if (!first) goto done;
            has_bound = 1;
            bound = bestval;
        }
        if (run_dp(q, 0, 0, has_bound, bound, &best, &bestval) < 0) { PyErr_NoMemory(); goto done; }
        if (best < 0) {
            if (first) { result = first; first = NULL; }
            else { Py_INCREF(Py_None); result = Py_None; }
            goto done;
        }
    }
    if (best < 0) { Py_INCREF(Py_None); result = Py_None; goto done; }
    result = reconstruct(q, best, bestval);
done:
    Py_XDECREF(first);
    free(q);
    PyBuffer_Release(&blo);
    PyBuffer_Release(&bhi);
    PyBuffer_Release(&bw);
    return result;
}

static PyObject *py_stats(PyObject *self, PyObject *args) {
    return Py_BuildValue("{s:l,s:l,s:l,s:n,s:n,s:n}", "last_states", last_states, "last_pruned", last_pruned,
                         "last_beam_value", last_beam_value,
                         "suit_states", (Py_ssize_t)ss_n,
                         "cached_lists", (Py_ssize_t)tc_n, "transitions", (Py_ssize_t)tr_n);
}

static PyObject *py_set_params(PyObject *self, PyObject *args) {
    int on, beam;
    long budget;
    if (!PyArg_ParseTuple(args, "pli", &on, &budget, &beam)) return NULL;
    g_prune = on;
    g_budget = budget;
    g_beam = beam;
    Py_RETURN_NONE;
}

static PyObject *py_clear(PyObject *self, PyObject *args) {
    reset_caches();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(lo, hi, weights_int32, ace, max_jokers_per_meld, need_group, min_open_points) -> "
     "None | (value, x_bytes, melds)"},
    {"stats", py_stats, METH_NOARGS, "Sizes of the DP and its caches."},
    {"clear_caches", py_clear, METH_NOARGS, "Drop the cached per-suit transitions."},
    {"set_params", py_set_params, METH_VARARGS,
     "set_params(dominance_pruning, budget, beam): tuning and testing knobs."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_dp", "Exact DP oracle (C).", -1, methods};

PyMODINIT_FUNC PyInit__dp(void) { return PyModule_Create(&moddef); }
