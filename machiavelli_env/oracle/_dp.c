/*
 * Exact table-repacking oracle for Machiavelli: a dynamic programme over rank positions.
 *
 * Question: choose per card type lo[c] <= x[c] <= hi[c] maximising sum w[c]*(x[c]-lo[c]) such
 * that the multiset x partitions into valid melds (groups and runs), optionally with at least
 * one group and with at least N opening points.
 *
 * Method (van Rijn, Takes & Vis 2015, staged as in design/ORACLE.md). Sweep rank positions. At a
 * position boundary only the open runs of each suit matter: a multiset of small "tokens" (length
 * capped at 3, jokers held, has-a-real-card, and flags), interned as a per-suit state id. Suits
 * are coupled only by the groups of the current rank, so the four suits of a position are
 * processed one after another, carrying (cards sent to groups, most from one suit), and the group
 * condition is checked when the rank is complete. Per-suit transitions are enumerated once and
 * cached across queries.
 *
 * Aces: low (A..K) and high (2..K, A) are plain sweeps. wrap is cyclic, cut before the rank
 * holding the fewest cards: a run crossing the cut is split into a "head" starting at the first
 * position and a "tail" ending at the last; a head that closes leaves a "demand" that a tail must
 * consume when it starts (later), which keeps the joined run at most 13 long. low_or_high and
 * both_ends sweep A, 2..K, A: each ace copy is used at one end, and the number used low is carried
 * per suit (runs started at A low are flagged: under low_or_high they may not reach A high).
 *
 * Jokers are placed at positions (a joker in a run stands at a rank position). Exact symmetry
 * reduction ("normalisation", off when opening points are asked for, since it moves what a joker
 * stands for): a run never starts with a joker unless it reaches the last position, because the
 * leading joker can move to the position after the run's end. So joker-started runs carry a
 * "must reach the end" flag (none under wrap, where the joker can always move), tails (the first
 * part of a crossing run) never start with a joker, and a joker-started head may not close as an
 * ordinary run.
 *
 * Group capacity: a rank whose cards (and jokers, at most max_jokers_per_meld a group) can make at
 * most g groups lets each suit send at most g cards to them (one per group). Every search and the
 * relaxation skip transitions over that cap; without it a card that fits nowhere (say a second KD
 * with no QD and kings for one group only) is found out only at its rank, after everything below.
 *
 * Searches (all exact):
 *  - forward: breadth-first over the stages with a hash table per stage; stages that change
 *    nothing are skipped, states whose open short runs cannot be continued are never created,
 *    and at position boundaries states dominated by one differing in a single suit are dropped;
 *  - backward: with the forward graph kept (no dominance pruning), the best completion of every
 *    state, giving in one pass the best play containing each card (by_card);
 *  - depth-first branch and bound with a memo of exact values and upper bounds (fail-soft,
 *    asking for the bound, then for each smaller bound proven), bounded by a per-suit relaxation
 *    (each suit alone with the jokers still free, groups allowed wherever the rank could form one)
 *    and by whether the rank's groups can still be completed; children with the most cards sent
 *    to groups go first, which on crowded tables finds a play matching the bound at once.
 *  - whole-hand probe: when every card that may be added has a positive weight, playing all of
 *    them is optimal whenever it is feasible, so no bound is needed to prove it. With jokers among
 *    the cards (where the bounds, not the nodes, cost most) or a crowded table, a depth-first
 *    search without bounds (children in the order above, dead states remembered, at most 300
 *    expansions) looks for such an arrangement first; it is skipped at once when some hand card
 *    has neither a group partner nor run neighbours (card_can_meld). When it finds one, the
 *    bounded search is not needed; otherwise the searches run as before, so every answer that is
 *    not the whole hand is unchanged.
 *    (On small tables without jokers the forward pass is cheap, and in play a failed probe, the
 *    usual outcome, would cost more than it saves.)
 *  - repack probe: a repack (lo = hi) is the probe's question itself, so on the same tables the
 *    depth-first search without bounds runs first (at most 3000 expansions) and its answer is
 *    final when it finishes, found or not; a card that fits no meld at all (card_can_meld) rules
 *    the repack out before any search. Only a probe over budget leaves the question to the
 *    bounded searches, whose bounds cannot help a question with nothing to choose.
 * solve() runs the whole-hand probe when there are jokers or a crowded table (40 cards or more),
 * then alternates a forward pass and a depth-first probe with budgets growing tenfold (crowded
 * tables start with the depth-first probe, with jokers as without: on smaller joker tables the
 * budgeted forward pass was about 4x faster at the median; the memo is kept between probes)
 * until one finishes; set_params() exposes the budgets and switches for tests.
 * The sweep runs from the ace up, so a conflict among the top ranks is found only after every
 * combination below them was tried. When the first level of that schedule runs out (and the query
 * has no opening points), the rank-reversed query (2 <-> K, 3 <-> Q, ..., which maps melds to
 * melds) takes turns with the original, level by level, each from a fresh memo; the first to
 * finish answers, mapped back (set_params(race=0) turns this off). On crowded classic tables this
 * turned searches of 100-350 ms into 3-5 ms; queries answered within the first level are searched
 * exactly as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NT 53
#define JOKER 52
#define MAXTOK 16
#define MAXPOS 14
#define MAXST (MAXPOS * 5)
#define NEG (-(1 << 28))
#define UB_UNKNOWN INT32_MIN /* a bound not computed yet (below every NEG) */
#define SIDBITS 21
#define SIDMAX ((1 << SIDBITS) - 1) /* suit-state ids: 3 in k0, the 4th in the top of k1 */
#define SIDMASK ((uint64_t)SIDMAX)
#define S3SHIFT 42
#define OPMAX 4095
/* the card of the rank-reversed position (2 <-> K, 3 <-> Q, ...; aces and the joker stay) */
#define MIRROR_CARD(c) ((c) == JOKER || (c) % 13 == 0 ? (c) : (c) - (c) % 13 + 13 - (c) % 13)

enum { K_NORMAL = 0, K_HEAD = 1, K_DEMAND = 2, K_TAIL = 3 };
enum { ACE_LOW = 0, ACE_HIGH = 1, ACE_LOW_OR_HIGH = 2, ACE_BOTH = 3, ACE_WRAP = 4 };
/* position flags (also part of the transition cache key) */
#define F_HEADS 1         /* wrap: crossing-run heads start here (first position) */
#define F_TAILS 2         /* wrap: crossing-run tails may start here, consuming a demand */
#define F_SET_ACELOW 4    /* remember x (ace copies used low) in the suit state */
#define F_NEWFLAGL 8      /* new runs are flagged as started at A low (low_or_high) */
#define F_NOEXT_FLAGL 16  /* flagged runs may not take A high (low_or_high) */
#define F_CLEAR_ACELOW 32 /* second ace position: bounds reduced by the aces used low */
#define F_NOGROUP 64      /* no groups here */
#define F_NORM 128        /* joker normalisation on */

/* token: kind 0-1, len 2-3 (0..3), jokers 4-6, real 7, flag 8, mre 9 */
#define TK(kind, len, j, real, flag, mre)                                                            \
    ((uint16_t)((kind) | ((len) << 2) | ((j) << 4) | ((real) << 7) | ((flag) << 8) | ((mre) << 9)))
#define T_KIND(t) ((t) & 3)
#define T_LEN(t) (((t) >> 2) & 3)
#define T_J(t) (((t) >> 4) & 7)
#define T_REAL(t) (((t) >> 7) & 1)
#define T_FLAG(t) (((t) >> 8) & 1)
#define T_MRE(t) (((t) >> 9) & 1)

static int g_mjpm = 1; /* max jokers per meld */
static int g_ace = -1;

/* ------------------------------------------------------------------ growable arrays */
#define GROW(ptr, cap, need)                                                                         \
    do {                                                                                             \
        if ((size_t)(need) > (cap)) {                                                                \
            size_t nc = (cap) ? (cap) : 64;                                                          \
            while (nc < (size_t)(need)) nc *= 2;                                                     \
            void *np_ = realloc((ptr), nc * sizeof(*(ptr)));                                         \
            if (!np_) return -1;                                                                     \
            (ptr) = np_;                                                                             \
            (cap) = nc;                                                                              \
        }                                                                                            \
    } while (0)

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Tables of stamped slots (a slot is in use when its stamp equals the table's current stamp; 0 is
 * never current): make at least `need` slots available and start a new generation with every slot
 * free, by bumping the stamp instead of clearing. The memo, the relaxation cache and the forward
 * pass's layer tables use it. Returns the table, or NULL (out of memory; the old one is kept). */
static void *stamped_fresh(void *tab, size_t *cap, uint32_t *cur, size_t need, size_t size) {
    if (need > *cap) {
        void *t = calloc(need, size);
        if (!t) return NULL;
        free(tab);
        *cap = need;
        *cur = 1;
        return t;
    }
    if (++*cur == 0) { /* the stamps wrapped: clear them once */
        memset(tab, 0, *cap * size);
        *cur = 1;
    }
    return tab;
}

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

/* ------------------------------------------------------------------ query */
typedef struct { uint8_t rank, flags; } Pos;
typedef struct { int8_t p, s; } Stage; /* s = 4: the group stage of position p */

typedef struct {
    uint8_t lo[NT], hi[NT];
    int32_t w[NT];
    int need_group, min_open, loJ, hiJ, np, nst, norm, wJ;
    Pos P[MAXPOS];
    Stage S[MAXST];
    int8_t bnd[MAXST + 1][4];   /* boundary (position index, -1 = start) of each suit before stage st */
    /* look-ahead counts (int8: a query set-up writes them all, and a smaller Query is fewer cache
     * lines for a call that starts cold) */
    int8_t hn1[MAXPOS][4], hn2[MAXPOS][4], hnall[MAXPOS][4], has2[MAXPOS];
    int8_t rest_hi[MAXPOS][4];  /* real cards of rank P[p] in the suits after s */
    long base;                  /* sum of w * lo over real cards, plus wJ * loJ */
    long cap;                   /* a known upper bound on the optimum (absolute, like base), or -1 */
    int8_t gmax[MAXPOS];        /* most groups position p can hold: a suit sends at most that many cards to them */
    int32_t e0;                 /* id of the empty suit state */
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
static int last_method = 0; /* 1 forward, 2 depth-first */
static int g_prune = 1;
/* search schedule: a forward pass of at most g_budget entries; else a depth-first probe of at most
 * g_probe expansions; else a forward pass of at most g_budget2 entries; else depth-first to the
 * end (its memo kept from the probe), with at most g_memo_limit memo entries (else MemoryError) */
static long g_budget = 5000;
static long g_probe = 10000;
static long g_budget2 = 2000000;
static long g_memo_limit = 4000000;
static int g_force = 0; /* testing: 1 forward only, 2 depth-first only */
static long g_crowd = 40; /* tables this large start with the depth-first probe; -1: never (nor the whole-hand probe) */
static long g_jcrowd = 40; /* the same threshold when there are jokers */
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
        }
        mask = nmask;
        anyS = nanyS;
        int boundary = s == 4 || (s == 3 && (q->P[p].flags & F_NOGROUP));
        if (boundary && g_prune && !edges && en_n - b >= 24) last_pruned += prune_dominated(b, en_n);
        if (budget && (long)(en_n + ed_n) > budget) return 1;
    }
    ed_layer[q->nst] = ed_n;
    layer_start[q->nst + 1] = en_n;
    last_states += (long)en_n;
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
static int32_t us_get(const Query *q, int s, int p, int32_t sid, int jav) {
    if (p == q->np - 1) return ss_arr[sid].final_ok ? 0 : NEG;
    if (!g_usj) jav = q->hiJ;
    uint64_t key = (uint64_t)sid | ((uint64_t)s << 21) | ((uint64_t)(p + 1) << 23) | ((uint64_t)jav << 27);
    if (us_reserve() < 0) { us_err = -1; return NEG; }
    int32_t cached;
    if (us_find(key, &cached)) return cached;
    int pp = p + 1, al = ss_arr[sid].acelow, l, hh;
    pos_bounds(q, pp, s, al, &l, &hh);
    int32_t best = NEG;
    if (hh >= 0) {
        int32_t ts, tcnt;
        int r = get_trans(sid, l, hh, jav, q->P[pp].flags, &ts, &tcnt);
        if (r < 0) { us_err = r; return NEG; }
        const CardValue cv = card_value_at(q, s * 13 + q->P[pp].rank, q->P[pp].flags, al);
        for (int32_t k = 0; k < tcnt; k++) {
            Trans t = tr_arr[ts + k]; /* copied: the recursion may grow tr_arr */
            if (t.g > q->gmax[pp]) continue;
            int32_t v = us_get(q, s, pp, t.new_id, jav - t.jr);
            if (v <= NEG) continue;
            v += trans_value(cv, &t) - cv.wJ * t.jr;
            if (v > best) best = v;
        }
    }
    if (us_put(key, best) < 0) { us_err = -1; return NEG; } /* the recursion may have grown the table */
    return best;
}

static void us_reset(void) {
    us_n = 0;
    us_act = us_cap < US_START ? us_cap : US_START;
    if (ut) ut = stamped_fresh(ut, &us_cap, &us_cur, 0, sizeof(USlot)); /* a new stamp: never fails */
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
        for (int32_t k = 0; k < tcnt; k++) {
            Trans t = tr_arr[ts + k];
            if (mask & (1 << t.g) || t.g > q->gmax[p]) continue;
            if (!look_ok(look, &t, jav - t.jr)) continue;
            if (us_get(q, s, p, t.new_id, jav - t.jr) <= NEG) continue;
            mask |= 1 << t.g;
        }
    }
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

/* upper bound on what state (k0, k1) before stage st can still add (NEG: no completion) */
static int32_t node_bound(const Query *q, int st, uint64_t k0, uint64_t k1) {
    int jav = q->hiJ - K1_J(k1);
    int32_t u = q->wJ * jav;
    for (int s = 0; s < 4; s++) {
        int32_t v = us_get(q, s, q->bnd[st][s], SID(k0, k1, s), jav);
        if (v <= NEG) return NEG;
        u += v;
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
    if (!cb->have[jav]) {
        int32_t u = q->wJ * jav;
        for (int v = 0; v < 4 && u > NEG; v++) {
            if (v == s) continue;
            int32_t x = us_get(q, v, q->bnd[st1][v], SID(k0, k1, v), jav);
            u = x <= NEG ? NEG : u + x;
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
    int32_t x = us_get(q, s, q->bnd[st1][s], SID(k0, k1, s), jav);
    if (x <= NEG) return NEG;
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
 * the caller has it (else UB_UNKNOWN). */
static int32_t dfs(const Query *q, int st, uint64_t k0, uint64_t k1, int32_t need, int32_t known) {
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
        int32_t rr = dfs(q, st + 1, c.k0, c.k1, thr - c.w, c.ub);
        if (dfs_err) { succ_n = base; return NEG; }
        if (rr <= NEG) continue;
        int32_t v = c.w + rr;
        if (rr >= thr - c.w) { best = v; bestk = c.tr; }
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

/* ------------------------------------------------------------------ reconstruction */
typedef struct {
    uint16_t code;
    int8_t n, touched, alive;
    int16_t head; /* tails: index of the head's pending cards */
    int8_t cards[28];
} Run;

typedef struct {
    int want_melds; /* write the melds (add_meld) */
    Run runs[4][MAXTOK * 2];
    int nruns[4];
    Run pend[4][MAXTOK * 2]; /* closed heads waiting for a tail */
    int npend[4];
    int err;
} Builder;

/* melds are written compactly (a length byte, then the cards) and become lists only when asked for
 * (py_melds): callers that want the play's value or cards skip building Python objects */
static uint8_t *mb_buf = NULL;
static size_t mb_n = 0, mb_cap = 0;

static void add_meld(Builder *B, const int8_t *a, int na, const int8_t *b, int nb) {
    if (!B->want_melds) return;
    size_t need = mb_n + 1 + (size_t)na + (size_t)nb;
    if (need > mb_cap) {
        size_t nc = mb_cap ? mb_cap * 2 : 1024;
        while (nc < need) nc *= 2;
        uint8_t *t = realloc(mb_buf, nc);
        if (!t) { B->err = 1; PyErr_NoMemory(); return; }
        mb_buf = t;
        mb_cap = nc;
    }
    mb_buf[mb_n++] = (uint8_t)(na + nb);
    for (int i = 0; i < na; i++) mb_buf[mb_n++] = (uint8_t)a[i];
    for (int i = 0; i < nb; i++) mb_buf[mb_n++] = (uint8_t)b[i];
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
        if (!B->runs[s][i].alive) {
            memset(&B->runs[s][i], 0, sizeof(Run));
            B->runs[s][i].alive = 1;
            return &B->runs[s][i];
        }
    if (B->nruns[s] >= MAXTOK * 2) { B->err = 1; return &B->runs[s][0]; }
    Run *r = &B->runs[s][B->nruns[s]++];
    memset(r, 0, sizeof(Run));
    r->alive = 1;
    return r;
}

static void apply_suit(Builder *B, int s, int card, const Trans *t, int newflag, int norm, int *group_cards) {
    int real_in_runs = 0;
    for (int i = 0; i < B->nruns[s]; i++) B->runs[s][i].touched = 0;
    for (int k = 0; k < t->nops && !B->err; k++) {
        const Op *o = &op_arr[t->op_start + k];
        for (int c = 0; c < o->cnt && !B->err; c++) {
            Run *r;
            switch (o->op) {
                case OP_EXT_REAL:
                case OP_EXT_JOKER: {
                    int joker = o->op == OP_EXT_JOKER;
                    r = find_run(B, s, o->tok);
                    if (!r || r->n >= 28) { B->err = 1; return; }
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
                        p->code = TK(K_DEMAND, 0, T_J(r->code), T_REAL(r->code), T_LEN(r->code) == 1, 0);
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
                    if (B->err) return;
                    r->cards[r->n++] = (int8_t)(joker ? JOKER : card);
                    r->code = TK(head ? K_HEAD : K_NORMAL, 1, joker, !joker, head ? 0 : newflag, joker ? norm : 0);
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
                    if (B->err) return;
                    r->cards[r->n++] = (int8_t)(joker ? JOKER : card);
                    r->code = TK(K_TAIL, 1, T_J(d) + joker, T_REAL(d) | !joker, T_FLAG(d), 0);
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
    if (S == 0) { if (jg) B->err = 1; return; }
    int G = group_feasible(S, M, jg);
    if (G <= 0) { B->err = 1; return; }
    int8_t grp[16][6];
    int nreal[16], nj[16];
    memset(nreal, 0, sizeof nreal);
    memset(nj, 0, sizeof nj);
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
        if (nreal[gi] + nj[gi] < 3 || nj[gi] > g_mjpm) { B->err = 1; return; }
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

/* Replay a path (one transition per stage: a transition index, or the jokers put in groups) into
 * the cards x and, when melds_out is given, the arrangement. Returns 0 or -1 (error set). */
static Builder g_builder;

/* the counts x and (melds_out not NULL) the encoded arrangement of a path; mirrored: q is the
 * mirrored query, x and the melds are mapped back to the original cards */
static int replay(const Query *q, const int32_t *path, int J, uint8_t *x, PyObject **melds_out, int mirrored) {
    Builder *B = &g_builder;
    memset(B->nruns, 0, sizeof B->nruns);
    memset(B->npend, 0, sizeof B->npend);
    B->err = 0;
    B->want_melds = melds_out != NULL;
    mb_n = 0;
    memset(x, 0, NT);
    int gs[4] = {0, 0, 0, 0};
    for (int st = 0; st < q->nst && !B->err; st++) {
        int p = q->S[st].p, s = q->S[st].s, rank = q->P[p].rank;
        if (s == 4) {
            build_groups(B, rank, gs, path[st]);
            memset(gs, 0, sizeof gs);
            continue;
        }
        if (s == 0) memset(gs, 0, sizeof gs);
        const Trans *t = &tr_arr[path[st]];
        apply_suit(B, s, s * 13 + rank, t, (q->P[p].flags & F_NEWFLAGL) ? 1 : 0, q->norm, &gs[s]);
        x[s * 13 + rank] += (uint8_t)t->x;
        if (gs[s] && (q->P[p].flags & F_NOGROUP)) B->err = 1;
    }
    if (!B->err) finish_runs(B);
    x[JOKER] = (uint8_t)J;
    if (B->err) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "_dp: arrangement reconstruction failed");
        return -1;
    }
    if (mirrored) {
        uint8_t y[NT];
        for (int c = 0; c < NT; c++) y[MIRROR_CARD(c)] = x[c];
        memcpy(x, y, NT);
        for (size_t i = 0; i < mb_n; i += 1 + mb_buf[i]) { /* each meld reversed, its cards mapped */
            uint8_t *m = mb_buf + i + 1;
            for (int a = 0, b = mb_buf[i] - 1; a <= b; a++, b--) {
                uint8_t t = (uint8_t)MIRROR_CARD(m[a]);
                m[a] = (uint8_t)MIRROR_CARD(m[b]);
                m[b] = t;
            }
        }
    }
    if (melds_out) {
        *melds_out = PyBytes_FromStringAndSize((const char *)mb_buf, (Py_ssize_t)mb_n);
        if (!*melds_out) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ drivers */
static void reset_caches(void) {
    ident_reset();
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

static const char *err_text(int code) {
    if (code == -2) return "_dp: too many distinct run states";
    if (code == -3) return "_dp: position too large for the exact search (memo limit)";
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
    int r = run_probe(q, g_full, path, J);
    memcpy(q->lo, lo, sizeof lo);
    q->loJ = loJ;
    if (r == 1) { *value = v; last_method = 3; return 1; }
    return r == -5 ? PROBE_BUDGET : r;
}

/* The search schedule of one sweep direction: a forward pass of at most bb entries (skipped on the
 * first level of a crowded table), then a depth-first probe of at most dl expansions; each level
 * that runs out multiplies both budgets by ten. From budget2 on the forward pass is not tried
 * again and the depth-first search runs to the end. */
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
    sc->dl = g_probe;
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
    /* ask for the bound itself, then for each smaller bound proven (the memo is kept) */
    size_t slot;
    if (memo_reserve() < 0) return -1;
    int32_t ri = memo_find(0, k0, k1r, &slot);
    int32_t need = ri >= 0 ? me[ri].ub : node_bound(q, 0, k0, k1r);
    if (us_err) return us_err;
    if (need <= NEG) return 0;
    if (q->cap >= 0 && need > q->cap) need = (int32_t)q->cap; /* a tighter valid bound: ask for it first */
    int32_t v;
    for (;;) {
        v = dfs(q, 0, k0, k1r, need, UB_UNKNOWN);
        if (dfs_err) break;
        if (v <= NEG) return 0;
        if (v >= need) break;
        need = v;
    }
    dfs_limit = 0;
    if (dfs_err == -5) {
        sc->bb *= 10;
        sc->dl *= 10;
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
static int last_mirrored = 0; /* the last solve's answer came from the mirrored sweep */

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
    static const int mirror_ace[5] = {ACE_HIGH, ACE_LOW, ACE_LOW_OR_HIGH, ACE_BOTH, ACE_WRAP};
    int r = setup_query(m, lo, hi, w, mirror_ace[q->ace], q->mjpm, q->need_group, 0, q->decks, q->jokers);
    m->cap = q->cap;
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
 * whose values the mirror would change), the two directions take turns, level by level, each from
 * a fresh memo; *mirror is filled and *mirrored set when the answer comes from the mirrored one.
 * Before that, a whole-hand probe that runs out of expansions is followed at once by the mirrored
 * position's probe (g_mirror_probe), which can only find the whole hand, the best play whenever
 * it exists. Queries answered in the first level are otherwise searched exactly as without the
 * race. */
static int solve_query(Query *q, Query *mirror, int *mirrored, int32_t *value, int32_t *path, int *J) {
    *mirrored = 0;
    int r = search_begin(q);
    if (r < 0) return r;
    int lo_cards = table_cards(q);
    r = opening_probe(q, lo_cards, value, path, J);
    if (r == PROBE_NONE) return 0;
    int race = g_race && !g_force && q->min_open == 0, mirror_ready = 0, mirror_set = 0;
    if (r == PROBE_BUDGET && race && g_mirror_probe) {
        /* the whole hand may go down through a conflict among the top ranks that this sweep
         * direction meets last: the mirrored probe meets it first */
        r = mirror_begin(q, mirror, lo_cards, value, path, J);
        if (r == 1 || r < 0) { *mirrored = r == 1; return r; }
        mirror_set = 1;
        if ((r = search_begin(q)) < 0) return r;
    }
    if (r == PROBE_BUDGET) r = 0;
    if (r != 0) return r;
    if (g_force == 1) return forward_best(q, 0, value, path, J);
    memo_reset(); /* the probe's dead states */
    Sched a, b;
    sched_init(&a, q, lo_cards);
    for (;;) {
        r = solve_level(q, &a, value, path, J);
        if (r != 2 || !race) {
            if (r != 2) return r;
            continue;
        }
        if (!mirror_ready) {
            r = mirror_set ? 0 : mirror_begin(q, mirror, lo_cards, value, path, J);
            if (r == PROBE_NONE) return 0;
            if (r == 1 || r < 0) { *mirrored = r == 1; return r; }
            sched_init(&b, mirror, lo_cards);
            b.bb = a.bb / 10; /* the level the original sweep has just run out of */
            b.dl = a.dl / 10;
            mirror_ready = 1;
        }
        if ((r = search_begin(mirror)) < 0) return r;
        r = solve_level(mirror, &b, value, path, J);
        if (r != 2) { *mirrored = r == 1; return r; }
        if ((r = search_begin(q)) < 0) return r;
    }
}

/* read a (53,) integer vector from any buffer; -1 on a bad shape (error set) */
static int read_vec(PyObject *obj, long long *out, const char *name) {
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_STRIDED_RO | PyBUF_FORMAT) < 0) return -1;
    int ok = v.ndim == 1 && v.shape[0] == NT;
    char f = v.format ? v.format[strlen(v.format) - 1] : 'B';
    if (v.format && strlen(v.format) > 1) { /* a byte-order prefix: only this machine's order */
        const uint16_t one = 1;
        int little = *(const uint8_t *)&one == 1;
        char b = v.format[0];
        if (strlen(v.format) > 2 || !(b == '@' || b == '=' || (b == '<' && little) || ((b == '>' || b == '!') && !little)))
            ok = 0;
    }
    if (ok && v.itemsize == 8 && (f == 'q' || f == 'l') && v.strides[0] == 8) {
        memcpy(out, v.buf, NT * 8); /* the common case: a contiguous int64 array */
        PyBuffer_Release(&v);
        return 0;
    }
    if (ok) {
        const char *b = v.buf;
        for (int i = 0; i < NT; i++) {
            const char *pp = b + i * v.strides[0];
            switch (f) {
                case 'q': case 'l': case 'Q': case 'L':
                    if (v.itemsize == 8) { int64_t t; memcpy(&t, pp, 8); out[i] = t; }
                    else { int32_t t; memcpy(&t, pp, 4); out[i] = t; }
                    break;
                case 'i': case 'I': { int32_t t; memcpy(&t, pp, 4); out[i] = t; break; }
                case 'h': case 'H': { int16_t t; memcpy(&t, pp, 2); out[i] = t; break; }
                case 'b': out[i] = *(const int8_t *)pp; break;
                case 'B': case 'c': case '?': out[i] = *(const uint8_t *)pp; break;
                default: ok = 0;
            }
            if (f == 'H') out[i] = (uint16_t)out[i];
            if ((f == 'I' || (f == 'L' && v.itemsize == 4)) ) out[i] = (uint32_t)out[i];
        }
    }
    PyBuffer_Release(&v);
    if (!ok) { PyErr_Format(PyExc_ValueError, "_dp: %s must be 53 integers", name); return -1; }
    return 0;
}

/* Fill q from validated-shape vectors. Returns 0 ok, -1 Python error, 1 lo > hi somewhere,
 * 2 more copies than the pack, 3 negative, 4 infeasible (opening points out of reach) */
static int setup_query(Query *q, const long long *lo, const long long *hi, const long long *w, int ace, int mjpm,
                       int need_group, int min_open, int decks, int jokers) {
    if (ace < 0 || ace > 4 || mjpm < 1 || mjpm > 4 || decks < 1 || decks > 3 || jokers < 0 || jokers > 7) {
        PyErr_SetString(PyExc_ValueError, "_dp: bad rules arguments");
        return -1;
    }
    int rc = 0;
    long maxopen = 0;
    for (int c = 0; c < NT; c++) {
        if (lo[c] < 0 || hi[c] < 0 || w[c] < 0) return 3;
        if (lo[c] > hi[c]) rc = rc ? rc : 1;
        if (hi[c] > (c == JOKER ? jokers : decks)) rc = 2;
        if (w[c] > 1000000) { PyErr_SetString(PyExc_ValueError, "_dp: weights too large"); return -1; }
    }
    if (rc) return rc;
    g_ace = ace;
    g_mjpm = mjpm; /* part of the transition cache key */
    if (!ident_ready || ss_n > SIDMAX / 2 || tr_n > (size_t)6e6) reset_caches();
    q->cap = -1;
    for (int c = 0; c < NT; c++) {
        q->lo[c] = (uint8_t)lo[c];
        q->hi[c] = (uint8_t)hi[c];
        q->w[c] = (int32_t)w[c];
    }
    long base = 0; /* sums in locals, not through q (whose uint8 stores may alias them) */
    for (int s = 0; s < 4; s++)
        for (int r = 0; r < 13; r++) {
            base += (long)w[s * 13 + r] * lo[s * 13 + r];
            maxopen += hi[s * 13 + r] * rank_open_points(r);
        }
    maxopen += hi[JOKER] * 10;
    q->base = base;
    q->loJ = q->lo[JOKER];
    q->hiJ = q->hi[JOKER];
    q->wJ = q->w[JOKER];
    q->base += (long)q->wJ * q->loJ;
    q->need_group = need_group;
    q->min_open = min_open < 0 ? 0 : min_open;
    if (q->min_open > maxopen || q->min_open > OPMAX) return 4;
    q->norm = q->min_open == 0 && g_norm;
    q->ace = ace;
    q->mjpm = mjpm;
    q->decks = decks;
    q->jokers = jokers;
    query_setup(q, ace);
    return 0;
}

/* (lo, hi, w, ace, mjpm, need_group, min_open, decks, jokers[, extra]) */
static int parse_query(PyObject *args, Query *q, int *extra, int nextra) {
    PyObject *olo, *ohi, *ow;
    int ace, mjpm, need_group, min_open, decks, jokers, ex[2] = {0, 0};
    if (!PyArg_ParseTuple(args, nextra ? "OOOiiiiiii" : "OOOiiiiii", &olo, &ohi, &ow, &ace, &mjpm, &need_group,
                          &min_open, &decks, &jokers, &ex[0]))
        return -1;
    for (int i = 0; i < nextra; i++) extra[i] = ex[i];
    long long lo[NT], hi[NT], w[NT];
    if (read_vec(olo, lo, "lo") < 0 || read_vec(ohi, hi, "hi") < 0 || read_vec(ow, w, "weights") < 0) return -1;
    return setup_query(q, lo, hi, w, ace, mjpm, need_group, min_open, decks, jokers);
}

/* the type result_tuple builds: NULL for a tuple; api.Play while py_best_play runs */
static PyTypeObject *g_result_type = NULL;

/* (value, counts, melds): counts = x - lo as 53 native int64 in a bytearray (writable for numpy) */
static PyObject *result_tuple(const Query *q, long value, const int32_t *path, int J, int want_melds,
                              const uint8_t *lo, int mirrored) {
    uint8_t x[NT];
    PyObject *melds = NULL;
    if (replay(q, path, J, x, want_melds ? &melds : NULL, mirrored) < 0) return NULL;
    if (!want_melds) { melds = Py_None; Py_INCREF(melds); }
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, NT * sizeof(int64_t));
    PyObject *v = PyLong_FromLong(value);
    /* a Play when best_play asked for one (see g_result_type), else a plain tuple */
    PyObject *out = g_result_type ? g_result_type->tp_alloc(g_result_type, 3) : PyTuple_New(3);
    if (!ba || !v || !out) {
        Py_XDECREF(ba);
        Py_XDECREF(v);
        Py_XDECREF(out);
        Py_DECREF(melds);
        return NULL;
    }
    int64_t *cnt = (int64_t *)PyByteArray_AS_STRING(ba);
    for (int c = 0; c < NT; c++) cnt[c] = (int64_t)x[c] - lo[c];
    PyTuple_SET_ITEM(out, 0, v);
    PyTuple_SET_ITEM(out, 1, ba);
    PyTuple_SET_ITEM(out, 2, melds);
    return out;
}

/* the counts (x - lo) of a result_tuple */
static inline const int64_t *tuple_counts(PyObject *t) {
    return (const int64_t *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(t, 1));
}

static Query g_query, g_mirror;
static PyObject *py_melds(PyObject *self, PyObject *arg);

static PyObject *run_solve(Query *q, int rc) {
    PyObject *res = NULL;
    if (rc < 0) goto done;
    if (rc == 4) { res = Py_None; Py_INCREF(res); goto done; }
    if (rc > 0) { res = PyLong_FromLong(rc); goto done; }
    last_states = last_pruned = last_nodes = 0;
    probe_exp = 0;
    int32_t value, path[MAXST];
    int J;
    int mirrored;
    int r = solve_query(q, &g_mirror, &mirrored, &value, path, &J);
    if (r < 0) { set_err(r); goto done; }
    if (r == 0) { res = Py_None; Py_INCREF(res); goto done; }
    last_mirrored = mirrored;
    res = result_tuple(mirrored ? &g_mirror : q, (long)value - q->base, path, J, 1, q->lo, mirrored);
done:
    return res;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    return run_solve(&g_query, parse_query(args, &g_query, NULL, 0));
}

/* best(table, hand, w, ace, mjpm, decks, jokers): lo = table, hi = table + hand */
static PyObject *py_best(PyObject *self, PyObject *args) {
    PyObject *ot, *oh, *ow;
    int ace, mjpm, decks, jokers;
    if (!PyArg_ParseTuple(args, "OOOiiii", &ot, &oh, &ow, &ace, &mjpm, &decks, &jokers)) return NULL;
    long long lo[NT], hi[NT], w[NT];
    if (read_vec(ot, lo, "table") < 0 || read_vec(oh, hi, "hand") < 0 || read_vec(ow, w, "weights") < 0) return NULL;
    for (int c = 0; c < NT; c++) {
        if (hi[c] < 0) return PyLong_FromLong(3);
        hi[c] += lo[c];
    }
    return run_solve(&g_query, setup_query(&g_query, lo, hi, w, ace, mjpm, 0, 0, decks, jokers));
}

/* ------------------------------------------------------------------ entry points keyed by rules objects
 * best_play() and repack() of the Python API call these first: one C call with the caller's own
 * arguments, the rules' extension arguments found by the object's identity in a 512-slot table
 * (registered from Python, or here from the values of a rules object registered before), and the
 * answer built as the API's Play. Anything else (a rules object not registered
 * yet, arrays that are not 53 integers, a bad count, a search out of memory) returns
 * NotImplemented, with no error set, and the caller takes the general path, which gives the
 * errors and the fallbacks. */
/* direct-mapped by the object's address; a colliding registration evicts the older one */
#define RC_BITS 9
typedef struct {
    PyObject *rules; /* strong reference: the address cannot be reused while it is cached */
    int8_t ace, mjpm, decks, jokers;
    int16_t wid[2]; /* weights of "cards" and "points": rows of wv_tab */
} RulesEntry;
static RulesEntry rc_tab[1 << RC_BITS];
#define WV_MAX 64
static long long wv_tab[WV_MAX][NT]; /* the distinct weight vectors registered */
static int wv_n = 0;
static PyObject *g_play_type = NULL; /* api.Play (a tuple subclass), set by set_play_type */
static PyTypeObject *g_array_type = NULL; /* numpy.ndarray, set by set_array_type: the direct
                                            * entry points read only arrays (and subclasses) */
static PyObject *s_cards = NULL, *s_points = NULL;

static inline RulesEntry *rc_slot(PyObject *rules) {
    return &rc_tab[((uint64_t)(uintptr_t)rules * 0x9E3779B97F4A7C15ULL) >> (64 - RC_BITS)];
}
static inline RulesEntry *rc_find(PyObject *rules) {
    RulesEntry *e = rc_slot(rules);
    return e->rules == rules ? e : NULL;
}
static inline int is_array(PyObject *o) { return g_array_type && PyObject_TypeCheck(o, g_array_type); }

/* 0 cards, 1 points, -1 anything else (no error set) */
static int objective_code(PyObject *o) {
    if (o == s_cards) return 0;
    if (o == s_points) return 1;
    if (!PyUnicode_Check(o)) return -1;
    if (PyUnicode_Compare(o, s_cards) == 0) return 0;
    if (PyUnicode_Compare(o, s_points) == 0) return 1;
    PyErr_Clear();
    return -1;
}

/* weight_row(weights) -> the row of wv_tab holding this vector (added if new) */
static PyObject *py_weight_row(PyObject *self, PyObject *arg) {
    long long w[NT];
    if (read_vec(arg, w, "weights") < 0) return NULL;
    for (int c = 0; c < NT; c++)
        if (w[c] < 0 || w[c] > 1000000) {
            PyErr_SetString(PyExc_ValueError, "_dp: weights must be in 0..1000000");
            return NULL;
        }
    for (int i = 0; i < wv_n; i++)
        if (!memcmp(wv_tab[i], w, sizeof w)) return PyLong_FromLong(i);
    if (wv_n == WV_MAX) {
        PyErr_SetString(PyExc_ValueError, "_dp: too many distinct weight vectors");
        return NULL;
    }
    memcpy(wv_tab[wv_n], w, sizeof w);
    return PyLong_FromLong(wv_n++);
}

/* register_rules(rules, cards_row, points_row, ace, mjpm, decks, jokers): rows from weight_row */
/* The values registered (a rules object's fields that the oracle reads, and its arguments), so
 * that another rules object with the same values is registered here, without a call back into
 * Python: most callers make one rules object per position from the same few rule sets. */
#define RV_N 32
typedef struct {
    PyObject *ace, *points; /* the field values (strings), strong references */
    long mjpm, decks, jokers;
    RulesEntry args; /* .rules unused */
} RulesValue;
static RulesValue rv_tab[RV_N];
static int rv_n = 0, rv_next = 0;
static PyTypeObject *g_rules_type = NULL; /* machiavelli_env.rules.Rules, set by set_rules_type */
static PyObject *s_ace, *s_mjpm, *s_decks, *s_jokers, *s_pts;

static int rv_match(const RulesValue *v, PyObject *ace, long mjpm, long decks, long jokers, PyObject *points) {
    if (v->mjpm != mjpm || v->decks != decks || v->jokers != jokers) return 0;
    if (v->ace != ace && PyUnicode_Compare(v->ace, ace) != 0) return 0;
    if (v->points != points && PyUnicode_Compare(v->points, points) != 0) return 0;
    return 1;
}

/* a Rules object not registered by identity: its slot filled from a registered value, or NULL
 * (no error set) */
static RulesEntry *rc_by_value(PyObject *rules) {
    if (!g_rules_type || Py_TYPE(rules) != g_rules_type || !rv_n) return NULL;
    PyObject *ace = PyObject_GetAttr(rules, s_ace), *points = PyObject_GetAttr(rules, s_pts);
    PyObject *o[3] = {PyObject_GetAttr(rules, s_mjpm), PyObject_GetAttr(rules, s_decks),
                      PyObject_GetAttr(rules, s_jokers)};
    RulesEntry *e = NULL;
    long n[3];
    int ok = ace && points && o[0] && o[1] && o[2] && PyUnicode_Check(ace) && PyUnicode_Check(points);
    for (int i = 0; ok && i < 3; i++) {
        n[i] = PyLong_Check(o[i]) ? PyLong_AsLong(o[i]) : -1;
        ok = n[i] >= 0;
    }
    for (int i = 0; ok && i < rv_n; i++) {
        if (!rv_match(&rv_tab[i], ace, n[0], n[1], n[2], points)) continue;
        e = rc_slot(rules);
        Py_INCREF(rules);
        Py_XSETREF(e->rules, rules);
        RulesEntry a = rv_tab[i].args;
        *e = (RulesEntry){e->rules, a.ace, a.mjpm, a.decks, a.jokers, {a.wid[0], a.wid[1]}};
        break;
    }
    Py_XDECREF(ace);
    Py_XDECREF(points);
    for (int i = 0; i < 3; i++) Py_XDECREF(o[i]);
    PyErr_Clear();
    return e;
}

/* register_rules(rules, cards_row, points_row, ace, mjpm, decks, jokers): rows from weight_row;
 * a Rules object's field values are remembered too (rc_by_value) */
static PyObject *py_register_rules(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "_dp: register_rules takes 7 arguments");
        return NULL;
    }
    long v[6];
    for (int i = 0; i < 6; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred()) return NULL;
    }
    if (v[0] < 0 || v[0] >= wv_n || v[1] < 0 || v[1] >= wv_n || v[2] < 0 || v[2] > 4 || v[3] < 1 || v[3] > 4 ||
        v[4] < 1 || v[4] > 3 || v[5] < 0 || v[5] > 7) {
        PyErr_SetString(PyExc_ValueError, "_dp: bad register_rules arguments");
        return NULL;
    }
    PyObject *rules = args[0];
    RulesEntry *e = rc_slot(rules);
    if (e->rules != rules) {
        Py_INCREF(rules);
        Py_XSETREF(e->rules, rules);
    }
    *e = (RulesEntry){e->rules, (int8_t)v[2], (int8_t)v[3], (int8_t)v[4], (int8_t)v[5], {(int16_t)v[0], (int16_t)v[1]}};
    if (g_rules_type && Py_TYPE(rules) == g_rules_type) {
        PyObject *ace = PyObject_GetAttr(rules, s_ace), *points = PyObject_GetAttr(rules, s_pts);
        if (!ace || !points || !PyUnicode_Check(ace) || !PyUnicode_Check(points)) {
            Py_XDECREF(ace);
            Py_XDECREF(points);
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        int i = 0;
        while (i < rv_n && !rv_match(&rv_tab[i], ace, v[3], v[4], v[5], points)) i++;
        if (i == rv_n) {
            if (rv_n < RV_N) i = rv_n++;
            else { i = rv_next; rv_next = (rv_next + 1) % RV_N; }
            Py_XDECREF(rv_tab[i].ace);
            Py_XDECREF(rv_tab[i].points);
            Py_INCREF(ace);
            Py_INCREF(points);
            rv_tab[i].ace = ace;
            rv_tab[i].points = points;
            rv_tab[i].mjpm = v[3];
            rv_tab[i].decks = v[4];
            rv_tab[i].jokers = v[5];
        }
        rv_tab[i].args = *e;
        rv_tab[i].args.rules = NULL;
        Py_DECREF(ace);
        Py_DECREF(points);
    }
    Py_RETURN_NONE;
}

/* *slot = type (a new reference kept), or TypeError when arg is not a type */
static PyObject *set_type(PyTypeObject **slot, PyObject *arg, const char *name) {
    if (!PyType_Check(arg)) return PyErr_Format(PyExc_TypeError, "_dp: %s takes a type", name);
    Py_INCREF(arg);
    Py_XSETREF(*slot, (PyTypeObject *)arg);
    Py_RETURN_NONE;
}
static PyObject *py_set_array_type(PyObject *self, PyObject *arg) {
    return set_type(&g_array_type, arg, "set_array_type");
}
static PyObject *py_set_rules_type(PyObject *self, PyObject *arg) {
    return set_type(&g_rules_type, arg, "set_rules_type");
}

static PyObject *py_registered(PyObject *self, PyObject *rules) { return PyBool_FromLong(rc_find(rules) != NULL); }

static PyObject *py_set_play_type(PyObject *self, PyObject *arg) {
    if (!PyType_Check(arg) || !PyType_IsSubtype((PyTypeObject *)arg, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "_dp: the play type must be a tuple subclass");
        return NULL;
    }
    Py_INCREF(arg);
    Py_XSETREF(g_play_type, arg);
    Py_RETURN_NONE;
}

/* the answer of a fast entry point: NotImplemented (and no error) for anything the general path
 * should handle */
static PyObject *fast_or_general(PyObject *res) {
    if (res) return res;
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
}

/* best_play(table, hand, rules, objective) -> Play | None (the table cannot be arranged) |
 * NotImplemented */
/* The direct entry points' common part: the rules' entry (copied: reading a buffer may run
 * Python code that re-registers the slot) and lo = a, sum = a + b, read from two numpy arrays.
 * 0, or 1 when the general path should answer (no error set). */
static int direct_args(PyObject *a, PyObject *b, PyObject *rules, const char *bname, RulesEntry *entry, long long *lo,
                       long long *sum) {
    RulesEntry *e = rc_find(rules);
    if (!e) e = rc_by_value(rules);
    if (!e || !is_array(a) || !is_array(b)) return 1;
    *entry = *e;
    if (read_vec(a, lo, "table") < 0 || read_vec(b, sum, bname) < 0) {
        PyErr_Clear();
        return 1;
    }
    for (int c = 0; c < NT; c++) {
        if ((lo[c] | sum[c]) < 0) return 1; /* either negative */
        sum[c] += lo[c];
    }
    return 0;
}

static PyObject *py_best_play(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) Py_RETURN_NOTIMPLEMENTED;
    int oc = objective_code(args[3]);
    RulesEntry ea, *e = &ea;
    long long lo[NT], hi[NT];
    if (oc < 0 || direct_args(args[0], args[1], args[2], "hand", e, lo, hi)) Py_RETURN_NOTIMPLEMENTED;
    int rc = setup_query(&g_query, lo, hi, wv_tab[e->wid[oc]], e->ace, e->mjpm, 0, 0, e->decks, e->jokers);
    if (rc != 0) return fast_or_general(NULL);
    g_result_type = (PyTypeObject *)g_play_type;
    PyObject *res = run_solve(&g_query, 0);
    g_result_type = NULL;
    return fast_or_general(res);
}

/* repack(table, play, rules) -> list of melds | None (no arrangement) | NotImplemented */
static PyObject *py_repack(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) Py_RETURN_NOTIMPLEMENTED;
    RulesEntry ea, *e = &ea;
    long long lo[NT], all[NT];
    if (direct_args(args[0], args[1], args[2], "play", e, lo, all)) Py_RETURN_NOTIMPLEMENTED;
    int rc = setup_query(&g_query, all, all, wv_tab[e->wid[0]], e->ace, e->mjpm, 0, 0, e->decks, e->jokers);
    if (rc != 0) return fast_or_general(NULL);
    PyObject *res = run_solve(&g_query, 0);
    if (!res || res == Py_None) return fast_or_general(res);
    PyObject *melds = py_melds(NULL, PyTuple_GET_ITEM(res, 2));
    Py_DECREF(res);
    return fast_or_general(melds);
}

/* ------------------------------------------------------------------ best play containing each card */

static int by_card_forward(Query *q, PyObject *out, int want_melds) {
    /* forward pass with edges, then backward values; returns 1 done, 2 infeasible, 0 over budget,
     * <0 error */
    SuitState empty;
    memset(&empty, 0, sizeof empty);
    q->e0 = ss_intern(&empty);
    if (q->e0 < 0) return q->e0;
    us_reset();
    us_err = 0;
    /* large positions go to one exact search per card outside the best play instead */
    int r0 = run_forward(q, g_force == 1 ? 0 : 4 * g_budget, 1);
    if (r0 < 0) return r0;
    if (r0 == 1) return 0;
    last_method = 1;
    int32_t *bwd = malloc(en_n * sizeof(int32_t)), *bsucc = malloc(en_n * sizeof(int32_t));
    if (!bwd || !bsucc) { free(bwd); free(bsucc); return -1; }
    for (size_t i = 0; i < en_n; i++) { bwd[i] = NEG; bsucc[i] = -1; }
    for (size_t i = layer_start[q->nst]; i < en_n; i++)
        if (accept(q, en[i].k0, en[i].k1)) bwd[i] = 0;
    for (size_t e = ed_n; e-- > 0;) {
        Edge *E = &ed[e];
        if (bwd[E->to] <= NEG) continue;
        int32_t v = E->w + bwd[E->to];
        if (v > bwd[E->from]) { bwd[E->from] = v; bsucc[E->from] = (int32_t)e; }
    }
    int rc = bwd[0] > NEG ? 1 : 2; /* 2: nothing is feasible */
    if (rc == 1) {
        int32_t bestv[NT];
        int32_t beste[NT]; /* edge index, or -(final entry)-2 for the joker */
        for (int c = 0; c < NT; c++) { bestv[c] = NEG; beste[c] = -1; }
        for (int st = 0; st < q->nst; st++) {
            int p = q->S[st].p, s = q->S[st].s;
            if (s == 4) continue;
            int fl = q->P[p].flags, c = s * 13 + q->P[p].rank;
            if (fl & F_SET_ACELOW) continue;
            for (size_t e = ed_layer[st]; e < ed_layer[st + 1]; e++) {
                Edge *E = &ed[e];
                if (bwd[E->to] <= NEG) continue;
                int used = tr_arr[E->tr].x;
                if (fl & F_CLEAR_ACELOW) used += ss_arr[SID(en[E->from].k0, en[E->from].k1, s)].acelow;
                if (used <= q->lo[c]) continue;
                int32_t v = en[E->from].val + E->w + bwd[E->to];
                if (v > bestv[c]) { bestv[c] = v; beste[c] = (int32_t)e; }
            }
        }
        for (size_t i = layer_start[q->nst]; i < en_n; i++) {
            if (bwd[i] != 0 || K1_J(en[i].k1) <= q->loJ) continue;
            if (en[i].val > bestv[JOKER]) { bestv[JOKER] = en[i].val; beste[JOKER] = -(int32_t)i - 2; }
        }
        int32_t path[MAXST];
        for (int c = 0; c < NT && rc == 1; c++) {
            if (beste[c] == -1) continue;
            int32_t fin;
            if (beste[c] <= -2) {
                fin = -beste[c] - 2;
                path_back(q->nst, fin, path);
            } else {
                Edge *E = &ed[beste[c]];
                int st0 = 0;
                while (!(ed_layer[st0] <= (size_t)beste[c] && (size_t)beste[c] < ed_layer[st0 + 1])) st0++;
                path_back(st0, E->from, path);
                path[st0] = E->tr;
                int32_t cur = E->to;
                for (int st = st0 + 1; st < q->nst; st++) {
                    if (skipped[st]) { path[st] = ident[st]; continue; }
                    Edge *F = &ed[bsucc[cur]];
                    path[st] = F->tr;
                    cur = F->to;
                }
                fin = cur;
            }
            PyObject *t = result_tuple(q, (long)bestv[c] - q->base, path, K1_J(en[fin].k1), want_melds, q->lo, 0);
            if (!t) { rc = -4; break; }
            PyObject *key = PyLong_FromLong(c);
            if (!key || PyDict_SetItem(out, key, t) < 0) rc = -4;
            Py_XDECREF(key);
            Py_DECREF(t);
        }
    }
    free(bwd);
    free(bsucc);
    return rc;
}

/* large positions: one exact search for the best play, then one per card that no play found so
 * far holds at the overall optimum. No play holding a card can beat the overall optimum, so each
 * per-card search first asks for that value (Query.cap), and a play reaching it is the answer for
 * every card it holds. */
static int by_card_search(Query *q, PyObject *out, int want_melds) {
    int32_t value, path[MAXST];
    int J;
    int mirrored;
    int r = solve_query(q, &g_mirror, &mirrored, &value, path, &J);
    if (r <= 0) return r;
    PyObject *best = result_tuple(mirrored ? &g_mirror : q, (long)value - q->base, path, J, want_melds, q->lo,
                                  mirrored);
    if (!best) return -4;
    PyObject *at[NT]; /* a play at the overall optimum holding the card (borrowed from keep), or NULL */
    PyObject *keep = PyList_New(0);
    if (!keep || PyList_Append(keep, best) < 0) { Py_XDECREF(keep); Py_DECREF(best); return -4; }
    const int64_t *held = tuple_counts(best);
    for (int c = 0; c < NT; c++) at[c] = held[c] > 0 ? best : NULL;
    Py_DECREF(best); /* kept alive by keep */
    int rc = 1;
    for (int c = 0; c < NT && rc == 1; c++) {
        if (q->hi[c] <= q->lo[c]) continue;
        PyObject *t = at[c];
        if (t) {
            Py_INCREF(t);
        } else {
            Query q2 = *q;
            q2.lo[c]++;
            if (c == JOKER) { q2.loJ++; q2.base += q->wJ; }
            else q2.base += q->w[c];
            q2.cap = value;
            int32_t v2, path2[MAXST];
            int J2;
            int r2 = solve_query(&q2, &g_mirror, &mirrored, &v2, path2, &J2);
            if (r2 < 0) { rc = r2; break; }
            if (r2 == 0) continue;
            /* value and counts relative to the original lower bounds */
            t = result_tuple(mirrored ? &g_mirror : &q2, (long)v2 - q->base, path2, J2, want_melds, q->lo, mirrored);
            if (!t) { rc = -4; break; }
            if (v2 == value) {
                if (PyList_Append(keep, t) < 0) { Py_DECREF(t); rc = -4; break; }
                const int64_t *held2 = tuple_counts(t);
                for (int d = c + 1; d < NT; d++)
                    if (!at[d] && held2[d] > 0) at[d] = t;
            }
        }
        PyObject *key = PyLong_FromLong(c);
        int bad = !key || PyDict_SetItem(out, key, t) < 0;
        Py_XDECREF(key);
        Py_DECREF(t);
        if (bad) rc = -4;
    }
    Py_DECREF(keep);
    return rc;
}

static PyObject *py_by_card(PyObject *self, PyObject *args) {
    Query *q = &g_query;
    int want_melds = 1;
    int rc = parse_query(args, q, &want_melds, 1);
    PyObject *res = NULL, *out = NULL;
    if (rc < 0) goto done;
    if (rc == 4) { res = Py_None; Py_INCREF(res); goto done; }
    if (rc > 0) { res = PyLong_FromLong(rc); goto done; }
    last_states = last_pruned = last_nodes = 0;
    out = PyDict_New();
    if (!out) goto done;
    int r = g_force == 2 ? 0 : by_card_forward(q, out, want_melds);
    if (r == 0) {
        PyDict_Clear(out);
        r = by_card_search(q, out, want_melds);
        if (r == 0) r = 2;
    }
    if (r == 2) { res = Py_None; Py_INCREF(res); goto done; }
    if (r == -4) goto done;
    if (r < 0) { set_err(r); goto done; }
    res = out;
    out = NULL;
done:
    Py_XDECREF(out);
    return res;
}

/* melds(encoded) -> list of melds (lists of card types), from the compact form of add_meld */
static PyObject *py_melds(PyObject *self, PyObject *arg) {
    char *buf;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(arg, &buf, &n) < 0) return NULL;
    const uint8_t *b = (const uint8_t *)buf;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n; i += 1 + b[i]) count++;
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    Py_ssize_t i = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        int len = b[i++];
        if (i + len > n) { Py_DECREF(out); PyErr_SetString(PyExc_ValueError, "_dp: malformed melds"); return NULL; }
        PyObject *m = PyList_New(len);
        if (!m) { Py_DECREF(out); return NULL; }
        for (int j = 0; j < len; j++) PyList_SET_ITEM(m, j, PyLong_FromLong(b[i + j]));
        PyList_SET_ITEM(out, k, m);
        i += len;
    }
    return out;
}

static PyObject *py_stats(PyObject *self, PyObject *args) {
    return Py_BuildValue("{s:l,s:l,s:l,s:l,s:i,s:i,s:n,s:n,s:n,s:n,s:n}", "last_probe", probe_exp, "last_states",
                         last_states, "last_pruned", last_pruned, "last_nodes", last_nodes, "last_method", last_method,
                         "last_mirrored", last_mirrored, "last_memo_entries", (Py_ssize_t)me_n,
                         "last_relaxation_entries", (Py_ssize_t)us_n, "suit_states", (Py_ssize_t)ss_n,
                         "cached_lists", (Py_ssize_t)tc_n, "transitions", (Py_ssize_t)tr_n);
}

static PyObject *py_set_params(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"prune", "budget", "force", "memo_limit", "tie", "probe", "budget2", "norm", "alive",
                            "usj", "crowd", "full", "jcrowd", "race", "repack_full", "mirror_probe", NULL};
    int on = g_prune, force = g_force, tie = g_tie, norm = g_norm, usj = g_usj, race = g_race,
        mirror_probe = g_mirror_probe;
    long budget = g_budget, memo = g_memo_limit, probe = g_probe, budget2 = g_budget2, alive = g_alive,
         crowd = g_crowd, full = g_full, jcrowd = g_jcrowd, repack_full = g_repack_full;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|plilillplplllplp", names, &on, &budget, &force, &memo, &tie, &probe,
                                     &budget2, &norm, &alive, &usj, &crowd, &full, &jcrowd, &race, &repack_full,
                                     &mirror_probe))
        return NULL;
    g_prune = on;
    g_budget = budget;
    g_force = force;
    g_memo_limit = memo;
    g_tie = tie;
    g_probe = probe;
    g_budget2 = budget2;
    g_norm = norm;
    g_alive = alive;
    g_usj = usj;
    g_crowd = crowd;
    g_full = full;
    g_jcrowd = jcrowd;
    g_race = race;
    g_repack_full = repack_full;
    g_mirror_probe = mirror_probe;
    return Py_BuildValue("{s:i,s:l,s:i,s:l,s:i,s:l,s:l,s:i,s:l,s:i,s:l,s:l,s:l,s:i,s:l,s:i}", "prune", g_prune, "budget", g_budget,
                         "force", g_force, "memo_limit", g_memo_limit, "tie", g_tie, "probe", g_probe, "budget2",
                         g_budget2, "norm", g_norm, "alive", g_alive, "usj", g_usj, "crowd", g_crowd, "full", g_full,
                         "jcrowd", g_jcrowd, "race", g_race, "repack_full", g_repack_full,
                         "mirror_probe", g_mirror_probe);
}

static PyObject *py_clear(PyObject *self, PyObject *args) {
    reset_caches();
    memo_reset();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(lo, hi, weights, ace, max_jokers_per_meld, need_group, min_open_points, decks, jokers) -> "
     "None | (value, counts, melds) | error code (1 lo > hi, 2 over the pack, 3 negative); counts: x - lo as "
     "53 int64 in a bytearray; melds: encoded, see melds()"},
    {"best", py_best, METH_VARARGS,
     "best(table, hand, weights, ace, max_jokers_per_meld, decks, jokers): solve with lo = table, "
     "hi = table + hand"},
    {"by_card", py_by_card, METH_VARARGS,
     "by_card(lo, hi, weights, ace, max_jokers_per_meld, need_group, min_open_points, decks, jokers, "
     "want_melds) -> None | {card: (value, counts, melds | None)} | error code"},
    {"melds", py_melds, METH_O,
     "melds(encoded) -> list of melds: the arrangement of an answer (bytes: per meld, its length, then "
     "its card types) as lists of card types"},
    {"best_play", (PyCFunction)(void (*)(void))py_best_play, METH_FASTCALL,
     "best_play(table, hand, rules, objective) -> Play | None | NotImplemented: best() for a rules object "
     "registered with register_rules; NotImplemented for anything the general path should handle"},
    {"repack", (PyCFunction)(void (*)(void))py_repack, METH_FASTCALL,
     "repack(table, play, rules) -> list of melds | None | NotImplemented: the arrangement of table + play "
     "for a registered rules object"},
    {"weight_row", py_weight_row, METH_O,
     "weight_row(weights) -> the row of the extension's table of weight vectors holding these 53 weights"},
    {"register_rules", (PyCFunction)(void (*)(void))py_register_rules, METH_FASTCALL,
     "register_rules(rules, cards_row, points_row, ace, max_jokers_per_meld, decks, jokers): remember a rules "
     "object's extension arguments (rows from weight_row), by identity, one per slot of a 512-slot table"},
    {"set_array_type", py_set_array_type, METH_O,
     "set_array_type(numpy.ndarray): the only arguments (and subclasses) best_play and repack read directly"},
    {"set_rules_type", py_set_rules_type, METH_O,
     "set_rules_type(Rules): the rules class whose objects best_play and repack also recognise by their "
     "values (ace, max_jokers_per_meld, decks, jokers, points) once a rules object with those values is "
     "registered"},
    {"registered", py_registered, METH_O, "registered(rules) -> whether register_rules holds this object"},
    {"set_play_type", py_set_play_type, METH_O, "set_play_type(Play): the tuple subclass best_play answers with"},
    {"stats", py_stats, METH_NOARGS,
     "Sizes of the last search and of the caches (last_method: 1 forward, 2 depth-first, 3 whole-hand probe, "
     "4 repack probe; "
     "last_probe: its expansions)."},
    {"clear_caches", py_clear, METH_NOARGS, "Drop the cached per-suit transitions."},
    {"set_params", (PyCFunction)(void (*)(void))py_set_params, METH_VARARGS | METH_KEYWORDS,
     "set_params(prune, budget, force, memo_limit, tie, probe, budget2) -> current settings. Testing and "
     "tuning knobs, every one optional: dominance pruning on/off; forward entries before the depth-first "
     "probe; force 0 automatic, 1 forward only, 2 depth-first only; depth-first memo limit; child order "
     "(4: most cards to groups first); probe expansions; second forward budget; and norm, alive, usj, crowd, "
     "full (expansions of the whole-hand probe, 0: off; force != 0 also skips it), jcrowd (the crowd threshold "
     "with jokers), race, repack_full (expansions of the repack probe, 0: off), mirror_probe (a whole-hand probe "
     "out of expansions tries the mirrored position next)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_dp", "Exact DP oracle (C).", -1, methods};

PyMODINIT_FUNC PyInit__dp(void) {
    s_cards = PyUnicode_InternFromString("cards");
    s_points = PyUnicode_InternFromString("points");
    s_ace = PyUnicode_InternFromString("ace");
    s_mjpm = PyUnicode_InternFromString("max_jokers_per_meld");
    s_decks = PyUnicode_InternFromString("decks");
    s_jokers = PyUnicode_InternFromString("jokers");
    s_pts = s_points;
    if (!s_cards || !s_points || !s_ace || !s_mjpm || !s_decks || !s_jokers) return NULL;
    return PyModule_Create(&moddef);
}
