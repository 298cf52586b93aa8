/* lp.c: The linear-programming refuter: a proof that no multiset x with lo <= x <= hi partitions into
 * valid melds, from the LP relaxation of the meld programme (one column per meld, as in ../ilp.py).
 * Independent of the dynamic programme; the Python side races it against the search by a count of
 * expansions (dp.py). Compiled as part of ../_dp.c (one translation unit).
 *
 * The relaxation: y_m >= 0 per meld m, lo_c <= sum_m a_cm y_m <= hi_c per card type c (melds that
 * need more copies of a card than hi allows are fixed at 0: an integer solution cannot use them).
 * The melds are generated here (lp_build), per ace mode and joker limit, as ../ilp.py lists them:
 * groups of 1-4 suits of a rank plus jokers (3-4 cards), runs over every window the ace mode allows
 * with jokers anywhere (at most the limit, at least one real card), distinct multisets, without the
 * runs that cut into two runs of at least 3 with a real card each (their union is the same column
 * sum, so the relaxation is unchanged).
 * A primal simplex (phase 1, bounded slacks, dense 53 x 53 basis inverse, warm-started from the
 * previous question's basis of the same meld list) looks for a point. When there is none, its
 * multipliers u give Farkas' certificate: u . a_m >= 0 for every usable meld and
 *     sum_{u_c > 0} u_c hi_c + sum_{u_c < 0} u_c lo_c < 0,
 * which no x can meet (sum_c u_c x_c = sum_m (u . a_m) y_m >= 0 for any partition of x, yet it is at
 * most that negative sum). The certificate is scaled to small integers and checked in exact integer
 * arithmetic, so a refutation never rests on floating point: when rounding or the simplex fails, the
 * answer is "not refuted" and the exact search decides.
 *
 * The same relaxation narrows best_play's questions (lp_narrow, at the end): hand card types it
 * proves to be in no play are taken out before the search, and what is left may be proven a
 * partition off its point, or else bound the optimum (lp_best_bound).
 *
 * Deterministic: the simplex counts iterations, never time. */
#define LP_ROWS NT          /* one row per card type, jokers included */
#define LP_W 56             /* stored length of a column of the inverse (LP_ROWS rounded up: whole vector steps) */
#define LP_SLOTS 25         /* meld lists: ace mode * 5 + joker limit (0 without jokers) */
#define LP_MAXIT 400        /* simplex iterations per question */
#define LP_REFACTOR 150     /* basis updates between fresh inverses */
#define LP_TOL 1e-9
#define LP_PIV 1e-7
#define LP_NEED 4           /* copies per card type that the usable test reads from bit masks */

typedef struct {
    int n;               /* melds */
    int32_t *start;      /* n + 1: column m is entries start[m] .. start[m + 1] - 1 */
    uint8_t *card, *cnt; /* its card types and copies */
    double *cntd;        /* the copies as doubles (pricing) */
    double *inorm;       /* n: 1 / the length of each column (pricing compares d_j / |a_j|) */
    uint8_t *usable;     /* n, per question: the column fits in hi */
    uint64_t *need;      /* n * LP_NEED: bit c of need[m * LP_NEED + k] set when meld m holds more than k copies of c */
    uint8_t *deep;       /* n: the meld holds more than LP_NEED copies of some card (the exact test decides) */
    int32_t *ulist;      /* n, per question: the usable columns, in order */
    double *dv;          /* n, per iteration: the usable columns' normalised reduced costs (pricing) */
    double *xv;          /* n + LP_ROWS, per question: values of the nonbasic slacks */
    int head[LP_ROWS];   /* the variable basic in each row: 0..n-1 a meld, n + c the slack of card c */
    int8_t *upper;       /* n + LP_ROWS: a nonbasic slack at its upper bound (1) or lower (0) */
    int32_t *pos;        /* n + LP_ROWS: row of a basic variable, -1 nonbasic */
    double bt[LP_ROWS][LP_W]; /* the basis inverse by columns: bt[c][i] = (B^-1)[i][c]; entries past LP_ROWS 0 */
    int updates;         /* since the last fresh inverse */
    int ones;            /* every entry holds one copy (pricing skips the multiplication by 1) */
    int maxlen;          /* the most card types a meld holds */
    int32_t lenfirst[LP_ROWS + 2]; /* [len]: the first column holding len card types or more (columns are sorted so) */
    int uhi[LP_ROWS];    /* the hi that usable, ulist, unu and useg were last computed for (uvalid) */
    int unu, uvalid;
    int useg[LP_ROWS + 2]; /* [len]: the first position of ulist whose column holds len card types or more */
    int ready;
} LpSlot;
static LpSlot lp_slots[LP_SLOTS];
/* columns left out of the relaxation by lp_branch_refutes (a branch y_m = 0): consulted, while
 * lp_excl_on, when the usable columns are listed, so a change to it clears the slot's list (uvalid).
 * Sized for the slot being branched on only (other slots have more columns) */
static uint8_t *lp_excl = NULL;
static int lp_excl_on = 0;
static unsigned long long lp_iters = 0; /* simplex iterations since the module loaded */
static unsigned long long lp_calls = 0, lp_refuted = 0, lp_points = 0;
static unsigned long long lp_capped = 0; /* optima bounded by phase 2 (lp_simplex with an objective) */
static unsigned long long lp_narrowed = 0; /* hand card types lp_narrow took out of best_play's box */

static void lp_slack_basis(LpSlot *L) {
    for (int j = 0; j < L->n + LP_ROWS; j++) { L->pos[j] = -1; L->upper[j] = 0; }
    memset(L->bt, 0, sizeof L->bt);
    for (int c = 0; c < LP_ROWS; c++) {
        L->head[c] = L->n + c;
        L->pos[L->n + c] = c;
        L->bt[c][c] = -1.0; /* the slack's column is -e_c */
    }
    L->updates = 0;
}

/* load a meld list: matrix of n rows of 53 small counts (row-major uint8). 0 ok, -1 out of memory */
static int lp_load(LpSlot *L, const uint8_t *matrix, int n) {
    int nnz = 0;
    for (int m = 0; m < n; m++)
        for (int c = 0; c < LP_ROWS; c++) nnz += matrix[(size_t)m * LP_ROWS + c] != 0;
    L->start = malloc((size_t)(n + 1) * sizeof(int32_t));
    L->card = malloc((size_t)nnz + 1);
    L->cnt = malloc((size_t)nnz + 1);
    L->cntd = malloc(((size_t)nnz + 1) * sizeof(double));
    L->inorm = malloc(((size_t)n + 1) * sizeof(double));
    L->usable = malloc((size_t)n + 1);
    L->ulist = malloc(((size_t)n + 1) * sizeof(int32_t));
    L->dv = malloc(((size_t)n + 1) * sizeof(double));
    L->xv = malloc(((size_t)n + LP_ROWS) * sizeof(double));
    L->upper = malloc((size_t)(n + LP_ROWS));
    L->pos = malloc((size_t)(n + LP_ROWS) * sizeof(int32_t));
    L->need = calloc((size_t)n * LP_NEED + 1, sizeof(uint64_t));
    L->deep = calloc((size_t)n + 1, 1);
    if (!L->start || !L->card || !L->cnt || !L->cntd || !L->inorm || !L->usable || !L->ulist || !L->dv || !L->xv ||
        !L->upper || !L->pos || !L->need || !L->deep) {
        free(L->start); free(L->card); free(L->cnt); free(L->cntd); free(L->inorm); free(L->usable); free(L->ulist);
        free(L->dv);
        free(L->xv); free(L->upper); free(L->pos); free(L->need); free(L->deep);
        memset(L, 0, sizeof *L);
        return -1;
    }
    /* columns stored by their number of card types, fewest first (then in list order): the
     * pricing loop over a column's entries then runs the same length many times in a row */
    int k = 0, m = 0;
    for (int len = 1; len <= LP_ROWS && m < n; len++)
        for (int i = 0; i < n; i++) {
            const uint8_t *row = matrix + (size_t)i * LP_ROWS;
            int types = 0;
            for (int c = 0; c < LP_ROWS; c++) types += row[c] != 0;
            if (types != len) continue;
            L->start[m++] = k;
            for (int c = 0; c < LP_ROWS; c++)
                if (row[c]) { L->card[k] = (uint8_t)c; L->cnt[k] = row[c]; L->cntd[k] = row[c]; k++; }
        }
    L->start[n] = k;
    for (int j = 0; j < n; j++)
        for (int e = L->start[j]; e < L->start[j + 1]; e++) {
            const int copies = L->cnt[e];
            for (int t = 0; t < copies && t < LP_NEED; t++) L->need[(size_t)j * LP_NEED + t] |= 1ULL << L->card[e];
            if (copies > LP_NEED) L->deep[j] = 1;
        }
    L->ones = 1;
    for (int e = 0; e < k; e++) L->ones &= L->cnt[e] == 1;
    L->maxlen = 0;
    for (int j = 0; j < n; j++)
        if (L->start[j + 1] - L->start[j] > L->maxlen) L->maxlen = L->start[j + 1] - L->start[j];
    for (int len = 0, j = 0; len <= L->maxlen + 1; len++) {
        while (j < n && L->start[j + 1] - L->start[j] < len) j++;
        L->lenfirst[len] = j;
    }
    for (int j = 0; j < n; j++) {
        double sq = 0;
        for (int e = L->start[j]; e < L->start[j + 1]; e++) sq += L->cntd[e] * L->cntd[e];
        L->inorm[j] = 1.0 / sqrt(sq);
    }
    L->n = n;
    lp_slack_basis(L);
    L->ready = 1;
    return 0;
}

/* a fresh inverse of the current basis (Gauss-Jordan with partial pivoting); 0 ok, -1 singular */
static int lp_refactor(LpSlot *L) {
    static double a[LP_ROWS][2 * LP_ROWS];
    memset(a, 0, sizeof a);
    for (int i = 0; i < LP_ROWS; i++) {
        int j = L->head[i];
        if (j >= L->n) a[j - L->n][i] = -1.0;
        else
            for (int k = L->start[j]; k < L->start[j + 1]; k++) a[L->card[k]][i] = L->cnt[k];
        a[i][LP_ROWS + i] = 1.0;
    }
    for (int col = 0; col < LP_ROWS; col++) {
        int piv = col;
        for (int r = col + 1; r < LP_ROWS; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
        if (fabs(a[piv][col]) < 1e-9) return -1;
        if (piv != col)
            for (int k = 0; k < 2 * LP_ROWS; k++) { double t = a[col][k]; a[col][k] = a[piv][k]; a[piv][k] = t; }
        double d = a[col][col];
        for (int k = 0; k < 2 * LP_ROWS; k++) a[col][k] /= d;
        for (int r = 0; r < LP_ROWS; r++) {
            if (r == col || a[r][col] == 0.0) continue;
            double f = a[r][col];
            for (int k = 0; k < 2 * LP_ROWS; k++) a[r][k] -= f * a[col][k];
        }
    }
    /* rows of a now hold B^-1 with B's columns in head order: row i of the inverse */
    for (int i = 0; i < LP_ROWS; i++)
        for (int k = 0; k < LP_ROWS; k++) L->bt[k][i] = a[i][LP_ROWS + k];
    L->updates = 0;
    return 0;
}

/* the integer certificate of the last refutation lp_certify checked (lp_narrow reuses it) */
static long long lp_cert[LP_ROWS];

/* sum_{u_c > 0} u_c hi_c + sum_{u_c < 0} u_c lo_c: the most u . x can be over the box [lo, hi]; a
 * certificate refutes a box where this is negative */
static inline long long lp_cert_sum(const long long *u, const int *lo, const int *hi) {
    long long f = 0;
    for (int c = 0; c < LP_ROWS; c++) f += u[c] > 0 ? u[c] * hi[c] : u[c] * lo[c];
    return f;
}

/* Is u (53 values) a certificate, once scaled to small integers? Checked exactly; a certificate
 * found is left in lp_cert. */
static int lp_certify(const LpSlot *L, const double *u, const int *lo, const int *hi, const uint8_t *usable) {
    double mx = 0;
    for (int c = 0; c < LP_ROWS; c++) if (fabs(u[c]) > mx) mx = fabs(u[c]);
    if (mx < 1e-12) return 0;
    double mn = mx;
    for (int c = 0; c < LP_ROWS; c++) if (fabs(u[c]) > 1e-9 * mx && fabs(u[c]) < mn) mn = fabs(u[c]);
    static const int mult[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 24, 60};
    for (size_t t = 0; t < sizeof mult / sizeof mult[0]; t++) {
        long long ui[LP_ROWS];
        int ok = 1;
        for (int c = 0; c < LP_ROWS && ok; c++) {
            double w = fabs(u[c]) > 1e-9 * mx ? u[c] / mn * mult[t] : 0.0;
            if (fabs(w) > 1e12) { ok = 0; break; }
            double r = floor(w + 0.5);
            if (fabs(w - r) > 1e-6 * (fabs(w) > 1 ? fabs(w) : 1)) ok = 0;
            ui[c] = (long long)r;
        }
        if (!ok) continue;
        if (lp_cert_sum(ui, lo, hi) >= 0) continue;
        for (int m = 0; m < L->n && ok; m++) {
            if (!usable[m]) continue;
            long long s = 0;
            for (int k = L->start[m]; k < L->start[m + 1]; k++) s += ui[L->card[k]] * L->cnt[k];
            if (s < 0) ok = 0;
        }
        if (ok) {
            memcpy(lp_cert, ui, sizeof lp_cert);
            return 1;
        }
    }
    return 0;
}

/* A necessary condition for some x in [lo, hi] to partition into melds, checked in integers: every
 * copy of a card lies in a meld of its own (a meld holds one copy of a card type at most), so a
 * card type needs lo[c] melds that could hold it. At most hi[JOKER] of them hold a joker; one
 * without holds, if a run, one of the windows (c-2, c-1), (c-1, c+1), (c+1, c+2) of its suit whole
 * and c-1 or c+1, and if a group, two other suits of its rank. Ranks are taken circularly (K-A-2
 * included), which only adds windows, and aces are never refuted (both_ends runs hold two of
 * them), so the count is an upper bound under every ace rule. 1: no partition in the box; 0:
 * nothing shown */
static int box_support_refutes(const int *lo, const int *hi) {
    const int jokers = hi[JOKER];
    for (int c = 0; c < JOKER; c++) {
        const int r = c % 13;
        if (!lo[c] || r == 0) continue;
        const int *suit = hi + (c - r);
        const int m2 = suit[(r + 11) % 13], m1 = suit[(r + 12) % 13], p1 = suit[(r + 1) % 13], p2 = suit[(r + 2) % 13];
        int runs = (m2 < m1 ? m2 : m1) + (m1 < p1 ? m1 : p1) + (p1 < p2 ? p1 : p2);
        if (runs > m1 + p1) runs = m1 + p1;
        int v[3];
        int n = 0;
        for (int s = 0; s < 4; s++)
            if (s * 13 + r != c) v[n++] = hi[s * 13 + r];
        int lo2 = v[0], mid = v[1], top = v[2], t; /* sorted: lo2 <= mid <= top */
        if (lo2 > mid) { t = lo2; lo2 = mid; mid = t; }
        if (mid > top) { t = mid; mid = top; top = t; }
        if (lo2 > mid) { t = lo2; lo2 = mid; mid = t; }
        int groups = (lo2 + mid + top) / 2;
        if (groups > lo2 + mid) groups = lo2 + mid;
        if (lo[c] > runs + groups + jokers) return 1;
    }
    return 0;
}

/* Farkas certificates kept from one question to the next (a legal-play list's branch questions). A
 * certificate u that lp_certify checked for the box [lo, hi] (u . a_m >= 0 for every meld fitting in
 * hi) holds for every box [lo', hi'] with hi' <= hi (fewer melds fit), and refutes it when
 * sum_{u > 0} u hi' + sum_{u < 0} u lo' < 0: checked in integers, no simplex run. A box so refuted
 * holds no partition, which is what the LP's own refutation would have said. (Checking a certificate
 * on a box with more melds, meld by meld, refuted a few more but cost as much as it saved.) */
#define LP_KEPT_CERTS 16
typedef struct {
    long long u[LP_KEPT_CERTS][LP_ROWS];
    int hi[LP_KEPT_CERTS][LP_ROWS]; /* the box's hi the certificate was checked on */
    int n, next;
} LpCerts;
static unsigned long long lp_kept_refuted = 0; /* boxes refuted by a kept certificate */
static int g_kept_certs = 1; /* set_params(kept_certs=): lists keep and try certificates (0: never) */

/* 1 when a kept certificate refutes [lo, hi], else 0 */
static int lp_certs_refute(const LpCerts *K, const int *lo, const int *hi) {
    for (int k = 0; k < (g_kept_certs ? K->n : 0); k++) {
        const int *h = K->hi[k];
        int within = 1;
        for (int c = 0; c < LP_ROWS; c++) within &= hi[c] <= h[c];
        if (within && lp_cert_sum(K->u[k], lo, hi) < 0) {
            lp_kept_refuted++;
            return 1;
        }
    }
    return 0;
}

/* keep lp_cert, the certificate of the refutation of a box [., hi] just checked (the oldest goes) */
static void lp_certs_keep(LpCerts *K, const int *hi) {
    int k = K->next;
    K->next = (k + 1) % LP_KEPT_CERTS;
    if (K->n < LP_KEPT_CERTS) K->n++;
    memcpy(K->u[k], lp_cert, sizeof lp_cert);
    memcpy(K->hi[k], hi, sizeof K->hi[k]);
}

/* the basic solution xb read as cards: the rounded activity x = A y, kept in [lo, hi] (point), and
 * the cards of its whole melds, A floor(y) (whole); 2 when whole <= point (then point = whole plus
 * a rest the caller may try to arrange, none when y is integral), else 0 */
static int lp_point(const LpSlot *L, const double *xb, const int *lo, const int *hi, const uint8_t *usable,
                    int *point, int *whole) {
    double ax[LP_ROWS] = {0};
    int wh[LP_ROWS] = {0};
    for (int i = 0; i < LP_ROWS; i++) {
        int j = L->head[i];
        if (j >= L->n || xb[i] <= 1e-9) continue;
        if (!usable[j] || xb[i] > 255) return 0;
        double f = floor(xb[i] + 1e-7);
        for (int k = L->start[j]; k < L->start[j + 1]; k++) {
            ax[L->card[k]] += xb[i] * L->cnt[k];
            wh[L->card[k]] += (int)f * L->cnt[k];
        }
    }
    for (int c = 0; c < LP_ROWS; c++) {
        int x = (int)floor(ax[c] + 0.5);
        x = x < lo[c] ? lo[c] : x > hi[c] ? hi[c] : x;
        if (wh[c] > x) return 0;
        point[c] = x;
        whole[c] = wh[c];
    }
    return 2;
}

/* wider vector code where the processor has it (x86-64 Linux: a copy of the function for AVX2, chosen
 * when the module loads). Only element-wise products and differences, never a sum reordered and
 * never a fused multiply-add (-ffp-contract=off), so every value is the same bit for bit. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define LP_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LP_VECTOR_CLONES
#endif

/* the inverse after column alpha (= B^-1 a_q, LP_W long, clobbered) enters the basis in row r: row r
 * divided by alpha_r, then taken alpha_i times from every other row i */
LP_VECTOR_CLONES static void lp_update(LpSlot *L, double *restrict alpha, int r) {
    const double ar = alpha[r];
    alpha[r] = 0.0;
    for (int k = 0; k < LP_ROWS; k++) {
        double *restrict col = L->bt[k];
        const double f = col[r] / ar;
        if (f == 0.0) continue;
        for (int i = 0; i < LP_W; i++) col[i] -= f * alpha[i];
        col[r] = f;
    }
}

/* A crash start for the box [x, x] from the slack basis: melds that fit in x, those without a
 * joker first, then those with one, each group the shortest first, each meld taking the place of
 * the basic slack of one of the cards it covers while what the melds before left uncovered holds
 * it (a basis near a point, found without pricing). On recorded greedy games of the joker presets
 * this order leaves fewer cards uncovered than the longest first, and the simplex from it takes
 * about a fifth fewer iterations (26 against 33 per table). */
static void lp_crash(LpSlot *L, const int *x) {
    int left[LP_ROWS];
    for (int c = 0; c < LP_ROWS; c++) left[c] = x[c];
    for (int pass = 0; pass < 2; pass++)
    for (int m = 0; m < L->n; m++) {
        if ((int)((L->need[(size_t)m * LP_NEED] >> JOKER) & 1) != pass) continue; /* holds a joker? */
        int fits = 1;
        for (int k = L->start[m]; k < L->start[m + 1] && fits; k++) fits = L->cnt[k] <= left[L->card[k]];
        if (!fits) continue;
        double alpha[LP_W] = {0};
        for (int k = L->start[m]; k < L->start[m + 1]; k++) {
            const double a = L->cntd[k], *restrict col = L->bt[L->card[k]];
            for (int i = 0; i < LP_W; i++) alpha[i] += a * col[i];
        }
        int r = -1;
        for (int k = L->start[m]; k < L->start[m + 1]; k++) {
            int i = L->pos[L->n + L->card[k]]; /* the row of the card's slack, if basic */
            if (i >= 0 && fabs(alpha[i]) > 1e-6 && (r < 0 || fabs(alpha[i]) > fabs(alpha[r]))) r = i;
        }
        if (r < 0) continue;
        const int leave = L->head[r];
        L->pos[leave] = -1;
        L->upper[leave] = 0;
        L->head[r] = m;
        L->pos[m] = r;
        lp_update(L, alpha, r);
        L->updates++;
        for (int k = L->start[m]; k < L->start[m + 1]; k++) left[L->card[k]] -= L->cnt[k];
    }
    if (L->updates >= LP_REFACTOR && lp_refactor(L) < 0) lp_slack_basis(L);
}

/* the reduced cost of meld m against multipliers pi, over its length: -(pi . a_m) / |a_m| (a sum in
 * entry order; with one copy per entry pi_c * 1 is pi_c, the same sum bit for bit) */
static inline double lp_price(const LpSlot *L, const double *pi, int m) {
    double d = 0.0;
    if (L->ones)
        for (int k = L->start[m], e = L->start[m + 1]; k < e; k++) d -= pi[L->card[k]];
    else
        for (int k = L->start[m], e = L->start[m + 1]; k < e; k++) d -= pi[L->card[k]] * L->cntd[k];
    return d * L->inorm[m];
}

/* lp_price of the usable columns ul[0..cnt-1], all holding len card types of one copy each, into
 * dv: the same sums in the same order (so the same values bit for bit), with the length known, so
 * that several columns' sums are in flight at once */
static void lp_price_ones(const LpSlot *L, const double *restrict pi, const int32_t *restrict ul, int cnt, int len,
                          double *restrict dv) {
    const uint8_t *restrict card = L->card;
    const int32_t *restrict start = L->start;
    const double *restrict inorm = L->inorm;
    switch (len) {
        case 3:
            for (int t = 0; t < cnt; t++) {
                const int m = ul[t];
                const uint8_t *a = card + start[m];
                dv[t] = (((0.0 - pi[a[0]]) - pi[a[1]]) - pi[a[2]]) * inorm[m];
            }
            break;
        case 4:
            for (int t = 0; t < cnt; t++) {
                const int m = ul[t];
                const uint8_t *a = card + start[m];
                dv[t] = ((((0.0 - pi[a[0]]) - pi[a[1]]) - pi[a[2]]) - pi[a[3]]) * inorm[m];
            }
            break;
        case 5:
            for (int t = 0; t < cnt; t++) {
                const int m = ul[t];
                const uint8_t *a = card + start[m];
                dv[t] = (((((0.0 - pi[a[0]]) - pi[a[1]]) - pi[a[2]]) - pi[a[3]]) - pi[a[4]]) * inorm[m];
            }
            break;
        default:
            for (int t = 0; t < cnt; t++) {
                const int m = ul[t];
                const uint8_t *a = card + start[m];
                double d = 0.0;
                for (int i = 0; i < len; i++) d -= pi[a[i]];
                dv[t] = d * inorm[m];
            }
    }
}

/* The simplex on slot L for the box [lo, hi]. Phase 1 alone (obj NULL): 1 refuted (no point,
 * certificate checked), 2 a point found and, when `point` is given, read as cards (lp_point: point
 * and whole), 0 neither, -1 out of memory. `act`, when given, receives the activity A y of a point
 * found (per card type, the value of its slack).
 * With obj (a weight per card type), phase 2 goes on from the point to maximise obj . x over the
 * relaxation: 3 with *cap a proven upper bound on obj . x over every partition x in the box
 * (lp_bound_certify), 1 refuted, 0 neither. */
#define LP_PRICE_BLOCK 64 /* columns priced at a time (partial pricing, slots with one copy per entry) */
static double lp_last_xb[LP_ROWS]; /* the basic values at the last point lp_run found (lp_dive) */
static int lp_last_found = 0;      /* the last lp_run found a point (lp_last_xb is its values) */
static int lp_bound_certify(const LpSlot *L, const double *pi, const int *lo, const int *hi, const int *obj,
                            const uint8_t *usable, long *cap);
static int lp_simplex(LpSlot *L, const int *lo, const int *hi, int *point, int *whole, double *act, const int *obj,
                      long *cap) {
    const int n = L->n;
    lp_calls++;
    lp_last_found = 0;
    uint8_t *usable = L->usable;
    int32_t *ulist = L->ulist;
    double *xv = L->xv;
    int nu = 0;
    int *useg = L->useg;
    if (L->uvalid && !memcmp(L->uhi, hi, sizeof L->uhi)) { /* the same hi and exclusions as the last run */
        nu = L->unu;
        goto usable_known;
    }
    /* a meld fits in hi when every card it holds k + 1 or more copies of has hi >= k + 1: per k one
     * mask test (the same answer as comparing each entry's copies with hi; melds with more copies
     * of a card than the masks hold are compared entry by entry) */
    uint64_t lack[LP_NEED] = {0};
    for (int c = 0; c < LP_ROWS; c++)
        for (int t = 0; t < LP_NEED; t++)
            if (hi[c] <= t) lack[t] |= 1ULL << c;
    const uint64_t *need = L->need;
    for (int m = 0; m < n; m++, need += LP_NEED) {
        int ok = !((need[0] & lack[0]) | (need[1] & lack[1]) | (need[2] & lack[2]) | (need[3] & lack[3]));
        if (ok && L->deep[m])
            for (int k = L->start[m]; k < L->start[m + 1]; k++) ok &= L->cnt[k] <= hi[L->card[k]];
        if (ok && lp_excl_on && lp_excl[m]) ok = 0;
        usable[m] = (uint8_t)ok;
        if (ok) ulist[nu++] = m;
    }
    for (int len = 0, t = 0; len <= L->maxlen + 1; len++) {
        while (t < nu && ulist[t] < L->lenfirst[len]) t++;
        useg[len] = t;
    }
    memcpy(L->uhi, hi, sizeof L->uhi);
    L->unu = nu;
    L->uvalid = 1;
usable_known:;
    int result = 0;
    if (L->updates >= LP_REFACTOR && lp_refactor(L) < 0) lp_slack_basis(L);
    double xb[LP_ROWS], lb[LP_ROWS], ub[LP_ROWS];
    int deg = 0, block = 0; /* block: where partial pricing starts, in ulist */
    for (int it = 0;; it++) {
        if (it == 0 || L->updates == 0) {
            /* values from scratch: nonbasic y at 0, nonbasic slacks at a bound; x_B = B^-1 (sum e_c s_c) */
            for (int c = 0; c < LP_ROWS; c++) {
                int j = n + c;
                if (L->pos[j] < 0) xv[j] = L->upper[j] ? hi[c] : lo[c];
            }
            double acc[LP_W] = {0};
            for (int c = 0; c < LP_ROWS; c++) {
                if (L->pos[n + c] >= 0 || xv[n + c] == 0.0) continue;
                const double f = xv[n + c], *restrict col = L->bt[c];
                for (int i = 0; i < LP_W; i++) acc[i] += f * col[i];
            }
            for (int i = 0; i < LP_ROWS; i++) xb[i] = acc[i];
            for (int i = 0; i < LP_ROWS; i++) {
                int j = L->head[i];
                if (j >= n) { lb[i] = lo[j - n]; ub[i] = hi[j - n]; }
                else { lb[i] = 0; ub[i] = usable[j] ? HUGE_VAL : 0; }
            }
        }
        double cb[LP_ROWS];
        int infeasible = 0;
        for (int i = 0; i < LP_ROWS; i++) {
            cb[i] = xb[i] < lb[i] - LP_TOL ? -1.0 : xb[i] > ub[i] + LP_TOL ? 1.0 : 0.0;
            infeasible |= cb[i] != 0.0;
        }
        /* phase 2: minimise -obj . x, the cost of the slack of card c being -obj[c] */
        const int phase2 = obj && !infeasible;
        if (phase2)
            for (int i = 0; i < LP_ROWS; i++) cb[i] = L->head[i] >= n ? -(double)obj[L->head[i] - n] : 0.0;
        if (!infeasible && !obj) { /* a point of the relaxation: not refuted */
            memcpy(lp_last_xb, xb, sizeof lp_last_xb);
            lp_last_found = 1;
            if (act)
                for (int c = 0; c < LP_ROWS; c++) act[c] = L->pos[n + c] >= 0 ? xb[L->pos[n + c]] : xv[n + c];
            if (point) result = lp_point(L, xb, lo, hi, usable, point, whole);
            break;
        }
        double pi[LP_ROWS]; /* cb B^-1: per column of the inverse, over the rows out of their bounds */
        int rows[LP_ROWS], nr = 0;
        for (int i = 0; i < LP_ROWS; i++) if (cb[i] != 0.0) rows[nr++] = i;
        for (int c = 0; c < LP_ROWS; c++) {
            const double *restrict col = L->bt[c];
            double v = 0;
            for (int t = 0; t < nr; t++) v += cb[rows[t]] * col[rows[t]];
            pi[c] = v;
        }
        /* pricing: d_j = c_j - pi . a_j (a meld at 0 enters rising if d < 0); slack c: d = pi_c */
        int q = -1, qdir = 0;
        double best = 0;
        const int bland = deg > 50;
        if (!bland) {
            /* per block of usable columns: every column's reduced cost first, with no dependence
             * from one column to the next (their sums overlap in the processor), then the choice
             * in list order among the nonbasic ones. With one copy per entry, partial pricing: the
             * blocks of LP_PRICE_BLOCK columns in turn from where the last choice was made, the
             * first block holding an improving column deciding (its best); else every column at
             * once. On recorded greedy games of the joker presets partial pricing takes about a
             * third more iterations, each a good deal cheaper. */
            double *restrict dv = L->dv;
            const int32_t *restrict pos = L->pos;
            const int bsize = L->ones ? LP_PRICE_BLOCK : nu;
            for (int scanned = 0; scanned < nu && q < 0;) {
                const int b0 = block, b1 = b0 + bsize < nu ? b0 + bsize : nu; /* block < nu here */
                if (L->ones)
                    for (int len = 1; len <= L->maxlen; len++) {
                        const int t0 = useg[len] > b0 ? useg[len] : b0, t1 = useg[len + 1] < b1 ? useg[len + 1] : b1;
                        if (t1 > t0) lp_price_ones(L, pi, ulist + t0, t1 - t0, len, dv + t0);
                    }
                else
                    for (int t = b0; t < b1; t++) dv[t] = lp_price(L, pi, ulist[t]);
                for (int t = b0; t < b1; t++) {
                    const double d = dv[t];
                    if (-d > best && d < -LP_TOL && pos[ulist[t]] < 0) { best = -d; q = ulist[t]; qdir = 1; }
                }
                scanned += b1 - b0;
                block = b1 < nu ? b1 : 0;
            }
        } else { /* Bland's rule: the first improving column */
            for (int t = 0; t < nu && q < 0; t++) {
                const int m = ulist[t];
                if (L->pos[m] >= 0) continue;
                const double d = lp_price(L, pi, m);
                if (d < -LP_TOL && -d > best) { best = -d; q = m; qdir = 1; }
            }
        }
        for (int c = 0; c < LP_ROWS && !(bland && q >= 0); c++) {
            int j = n + c;
            if (L->pos[j] >= 0 || hi[c] <= lo[c]) continue;
            double d = phase2 ? pi[c] - obj[c] : pi[c];
            if (!L->upper[j] && d < -LP_TOL && -d > best) { best = -d; q = j; qdir = 1; }
            if (L->upper[j] && d > LP_TOL && d > best) { best = d; q = j; qdir = -1; }
        }
        if (q < 0 && phase2) { /* optimal: pi . a_m <= 0 for every usable meld, the bound's multipliers */
            result = lp_bound_certify(L, pi, lo, hi, obj, usable, cap) ? 3 : 0;
            break;
        }
        if (q < 0) {
            double u[LP_ROWS];
            for (int c = 0; c < LP_ROWS; c++) u[c] = -pi[c];
            /* phase 1 optimal with infeasibility left: certificate -pi */
            result = lp_certify(L, u, lo, hi, usable);
            if (!result) { for (int c = 0; c < LP_ROWS; c++) u[c] = pi[c]; result = lp_certify(L, u, lo, hi, usable); }
            break;
        }
        if (it >= LP_MAXIT) { lp_slack_basis(L); break; }
        lp_iters++;
        /* direction: alpha = B^-1 a_q; basic i moves at rate -qdir * alpha_i */
        double alpha[LP_W] = {0};
        if (q < n) {
            for (int k = L->start[q]; k < L->start[q + 1]; k++) {
                const double a = L->cnt[k], *restrict col = L->bt[L->card[k]];
                for (int i = 0; i < LP_W; i++) alpha[i] += a * col[i];
            }
        } else {
            for (int i = 0; i < LP_ROWS; i++) alpha[i] = -L->bt[q - n][i];
        }
        double tmax = q >= n ? (double)(hi[q - n] - lo[q - n]) : HUGE_VAL;
        int r = -1, rup = 0;
        double tr = HUGE_VAL, rabs = 0;
        for (int i = 0; i < LP_ROWS; i++) {
            double dl = -qdir * alpha[i];
            if (fabs(dl) < LP_PIV) continue;
            double v = xb[i], t;
            int up;
            if (dl < 0) {
                if (v > ub[i] + LP_TOL) { t = (v - ub[i]) / -dl; up = 1; }
                else if (v >= lb[i] - LP_TOL) { t = (v - lb[i]) / -dl; up = 0; }
                else continue;
            } else {
                if (v < lb[i] - LP_TOL) { t = (lb[i] - v) / dl; up = 0; }
                else if (v <= ub[i] + LP_TOL && ub[i] < HUGE_VAL) { t = (ub[i] - v) / dl; up = 1; }
                else continue;
            }
            if (t < 0) t = 0;
            if (t < tr - 1e-12 || (t <= tr + 1e-12 && fabs(dl) > rabs)) { tr = t; r = i; rup = up; rabs = fabs(dl); }
        }
        if (tmax <= tr) { /* the entering slack goes to its other bound: no pivot */
            if (tmax == HUGE_VAL) { lp_slack_basis(L); break; }
            for (int i = 0; i < LP_ROWS; i++) xb[i] -= qdir * tmax * alpha[i];
            L->upper[q] = !L->upper[q];
            xv[q] = L->upper[q] ? hi[q - n] : lo[q - n];
            deg = 0;
            continue;
        }
        deg = tr < 1e-12 ? deg + 1 : 0;
        for (int i = 0; i < LP_ROWS; i++) xb[i] -= qdir * tr * alpha[i];
        double enter = (q >= n ? xv[q] : 0.0) + qdir * tr;
        /* pivot on row r */
        int leave = L->head[r];
        L->pos[leave] = -1;
        L->upper[leave] = (int8_t)(leave >= n && rup);
        if (leave >= n) xv[leave] = rup ? hi[leave - n] : lo[leave - n];
        L->head[r] = q;
        L->pos[q] = r;
        xb[r] = enter;
        if (q >= n) { lb[r] = lo[q - n]; ub[r] = hi[q - n]; }
        else { lb[r] = 0; ub[r] = HUGE_VAL; }
        lp_update(L, alpha, r);
        if (++L->updates >= LP_REFACTOR) {
            if (lp_refactor(L) < 0) { lp_slack_basis(L); break; }
        }
    }
    lp_refuted += result == 1;
    lp_points += result == 2;
    lp_capped += result == 3;
    return result;
}

/* phase 1 alone (lp_simplex without an objective) */
static inline int lp_run(LpSlot *L, const int *lo, const int *hi, int *point, int *whole, double *act) {
    return lp_simplex(L, lo, hi, point, whole, act, NULL, NULL);
}

/* Is pi (phase 2's multipliers at its optimum) the proof of a bound, once rounded? u = floor(K pi)
 * for K = 2^20 (rounding down keeps u . a_m <= 0, every entry of a meld being positive), checked
 * in exact integers: u . a_m <= 0 for every usable meld m. Then for every partition x of the box,
 * with x = A y, y >= 0: u . x = sum_m (u . a_m) y_m <= 0, so
 *     K obj . x <= (K obj - u) . x <= sum_c max((K obj_c - u_c) hi_c, (K obj_c - u_c) lo_c),
 * and *cap is that sum divided by K, rounded down. 1 with *cap, 0 not proven. */
#define LP_BOUND_SCALE (1LL << 20)
static int lp_bound_certify(const LpSlot *L, const double *pi, const int *lo, const int *hi, const int *obj,
                            const uint8_t *usable, long *cap) {
    long long u[LP_ROWS];
    for (int c = 0; c < LP_ROWS; c++) {
        if (!(fabs(pi[c]) < 1e6)) return 0;
        u[c] = (long long)floor(pi[c] * (double)LP_BOUND_SCALE);
    }
    for (int m = 0; m < L->n; m++) {
        if (!usable[m]) continue;
        long long s = 0;
        for (int k = L->start[m]; k < L->start[m + 1]; k++) s += u[L->card[k]] * L->cnt[k];
        if (s > 0) return 0;
    }
    long long total = 0;
    for (int c = 0; c < LP_ROWS; c++) {
        const long long d = LP_BOUND_SCALE * obj[c] - u[c];
        total += d > 0 ? d * hi[c] : d * lo[c];
    }
    if (total < 0) return 0; /* below every partition's value: rounding went wrong somewhere */
    *cap = (long)(total / LP_BOUND_SCALE);
    return 1;
}

/* ------------------------------------------------------------------ the meld lists */
static int lp_splits(unsigned jmask, int n) {
    for (int k = 3; k <= n - 3; k++) {
        int before = __builtin_popcount(jmask & ((1u << k) - 1)), after = __builtin_popcount(jmask >> k);
        if (before < k && after < n - k) return 1;
    }
    return 0;
}

typedef struct { uint8_t *rows; int n, cap; uint64_t *hash; int hcap; } MeldSet;

static uint64_t meld_hash(const uint8_t *row) {
    uint64_t h = 1469598103934665603ULL;
    for (int c = 0; c < LP_ROWS; c++) h = (h ^ row[c]) * 1099511628211ULL;
    return h | 1;
}

/* the slot of this meld (53 counts, hash h): its own, or the free one where it would go. Slots hold
 * (hash high bits << 32 | row index + 1), 0 free; equal hashes are compared in full */
static size_t meldset_slot(const MeldSet *M, const uint8_t *row, uint64_t h) {
    size_t k = (size_t)(h >> 32) & (size_t)(M->hcap - 1);
    while (M->hash[k]) {
        uint32_t idx = (uint32_t)(M->hash[k] & 0xffffffffu) - 1;
        if ((M->hash[k] >> 32) == (h >> 32) && !memcmp(M->rows + (size_t)idx * LP_ROWS, row, LP_ROWS)) break;
        k = (k + 1) & (size_t)(M->hcap - 1);
    }
    return k;
}

/* is this meld in the set? */
static int meldset_has(const MeldSet *M, const uint8_t *row) {
    return M->hcap && M->hash[meldset_slot(M, row, meld_hash(row))] != 0;
}

/* add one meld (53 counts) unless present; 0 ok, -1 out of memory */
static int meldset_add(MeldSet *M, const uint8_t *row) {
    uint64_t h = meld_hash(row);
    if ((M->n + 1) * 2 > M->hcap) {
        int nc = M->hcap ? M->hcap * 2 : 4096;
        uint64_t *t = calloc((size_t)nc, sizeof(uint64_t));
        if (!t) return -1;
        for (int i = 0; i < M->hcap; i++) {
            if (!M->hash[i]) continue;
            size_t k = (size_t)(M->hash[i] >> 32) & (size_t)(nc - 1);
            while (t[k]) k = (k + 1) & (size_t)(nc - 1);
            t[k] = M->hash[i];
        }
        free(M->hash);
        M->hash = t;
        M->hcap = nc;
    }
    size_t k = meldset_slot(M, row, h);
    if (M->hash[k]) return 0;
    if (M->n + 1 > M->cap) {
        int nc = M->cap ? M->cap * 2 : 1024;
        uint8_t *t = realloc(M->rows, (size_t)nc * LP_ROWS);
        if (!t) return -1;
        M->rows = t;
        M->cap = nc;
    }
    memcpy(M->rows + (size_t)M->n * LP_ROWS, row, LP_ROWS);
    M->hash[k] = (h & 0xffffffff00000000ULL) | (uint64_t)(M->n + 1);
    M->n++;
    return 0;
}

/* The runs of (ace, mjpm) into M: with skip NULL the multisets that some placement (window and
 * joker positions) cuts into two runs of at least 3 with a real card each, otherwise those of
 * the other placements that are not in skip. A run that can be cut is the sum of two shorter
 * melds (each in the list or cut again), so leaving it out changes no relaxation. Windows: rank
 * positions 1 = A low .. 13 = K, 14 = A high; under wrap any cyclic window of 3-13 ranks. */
static int lp_runs(MeldSet *M, const MeldSet *skip, int ace, int mjpm) {
    uint8_t row[LP_ROWS];
    int rc = 0;
    int first = ace == ACE_HIGH ? 2 : 1, last = ace == ACE_LOW ? 13 : 14;
    for (int start = 0; start < (ace == ACE_WRAP ? 13 : last) && !rc; start++)
        for (int end = 0; end <= 14 && !rc; end++) {
            int ranks[14], n = 0;
            if (ace == ACE_WRAP) {
                if (end < 3 || end > 13) continue; /* `end` is the length */
                for (int t = 0; t < end; t++) ranks[n++] = (start + t) % 13;
            } else {
                if (start < first || end < start + 2 || end > last) continue;
                if (ace == ACE_LOW_OR_HIGH && start == 1 && end == 14) continue;
                for (int p = start; p <= end; p++) ranks[n++] = (p - 1) % 13;
            }
            int jm = mjpm < n - 1 ? mjpm : n - 1;
            for (unsigned jmask = 0; jmask < (1u << n) && !rc; jmask++) {
                int j = __builtin_popcount(jmask);
                if (j > jm || lp_splits(jmask, n) != !skip) continue;
                for (int s = 0; s < 4 && !rc; s++) {
                    memset(row, 0, sizeof row);
                    for (int t = 0; t < n; t++) {
                        if (jmask >> t & 1) row[JOKER]++;
                        else row[s * 13 + ranks[t]]++;
                    }
                    if (!skip || !meldset_has(skip, row)) rc = meldset_add(M, row);
                }
            }
        }
    return rc;
}

/* the meld list of (ace, mjpm) into L; 0 ok, -1 out of memory */
static int lp_build(LpSlot *L, int ace, int mjpm) {
    MeldSet M = {0};
    uint8_t row[LP_ROWS];
    int rc = 0;
    for (int r = 0; r < 13 && !rc; r++)
        for (int mask = 1; mask < 16 && !rc; mask++)
            for (int j = 0; j <= mjpm && !rc; j++) {
                int k = __builtin_popcount((unsigned)mask);
                if (k + j < 3 || k + j > 4) continue;
                memset(row, 0, sizeof row);
                for (int s = 0; s < 4; s++) if (mask >> s & 1) row[s * 13 + r]++;
                row[JOKER] = (uint8_t)j;
                rc = meldset_add(&M, row);
            }
    /* runs: first every multiset that some placement cuts into two runs (split), then the others */
    MeldSet split = {0};
    if (!rc) rc = lp_runs(&split, NULL, ace, mjpm);
    if (!rc) rc = lp_runs(&M, &split, ace, mjpm);
    free(split.rows);
    free(split.hash);
    if (!rc) rc = lp_load(L, M.rows, M.n);
    free(M.rows);
    free(M.hash);
    return rc;
}

/* the slot of (ace, mjpm, jokers), its melds built on first use; NULL out of memory */
static LpSlot *lp_slot(int ace, int mjpm, int jokers) {
    int jm = jokers > 0 ? mjpm : 0;
    LpSlot *L = &lp_slots[ace * 5 + jm];
    if (!L->ready && lp_build(L, ace, jm) < 0) return NULL;
    return L;
}

/* The relaxation for the box [lo, hi] on slot L, and when it has a point, the point read as a
 * partition: its rounded cards x (into point), as its whole melds (floor(y)) plus a repack, of at
 * most LP_REST_WORK expansions, of the cards they leave. 1 refuted (no point), 3 x arranged so,
 * 0 neither, <0 error (setup_query's, a Python error set). */
#define LP_REST_WORK 3000 /* lp.REST_WORK */
static int lp_partition(LpSlot *L, const int *lo, const int *hi, int ace, int mjpm, int decks, int jokers, int *point) {
    int whole[NT];
    int r = lp_run(L, lo, hi, point, whole, NULL);
    if (r != 2) return r == 1 ? 1 : r < 0 ? r : 0;
    long long rest[NT], none[NT];
    int any = 0;
    for (int c = 0; c < NT; c++) {
        rest[c] = point[c] - whole[c];
        none[c] = 0;
        any |= rest[c] != 0;
    }
    if (!any) return 3;
    int rc = setup_query(&g_rest, rest, rest, none, ace, mjpm, 0, 0, decks, jokers);
    if (rc != 0) return rc < 0 ? rc : 0;
    const unsigned long long cap0 = g_cap_at;
    g_cap_at = g_work + LP_REST_WORK;
    int32_t value, path[MAXST];
    int J, mirrored;
    int found = solve_query(&g_rest, &g_mirror, &mirrored, &value, path, &J);
    g_cap_at = cap0;
    return found == 1 ? 3 : 0; /* not arranged, over the count, or over the memo: the search decides */
}

/* the box and rules arguments of the lp_* calls, checked: 0 with l, h filled, -1 with a ValueError set
 * (its message starting with who) */
static int lp_read_box(const char *who, PyObject *olo, PyObject *ohi, int ace, int mjpm, int jokers, int *l, int *h) {
    if (ace < 0 || ace > 4 || mjpm < 1 || mjpm > 4 || jokers < 0) {
        PyErr_Format(PyExc_ValueError, "%s: bad rules arguments", who);
        return -1;
    }
    long long lo[NT], hi[NT];
    if (read_vec(olo, lo, "lo") < 0 || read_vec(ohi, hi, "hi") < 0) return -1;
    for (int c = 0; c < NT; c++) {
        if (lo[c] < 0 || hi[c] < lo[c] || hi[c] > 255) {
            PyErr_Format(PyExc_ValueError, "%s: need 0 <= lo <= hi <= 255", who);
            return -1;
        }
        l[c] = (int)lo[c];
        h[c] = (int)hi[c];
    }
    return 0;
}

/* lp_refute(lo, hi, ace, mjpm, jokers[, want_point, decks]) -> True refuted | False | (want_point)
 * the counts x - lo (53 int64 in a bytearray) of a partition read off the relaxation's point
 * (lp_partition) */
static PyObject *py_lp_refute(PyObject *self, PyObject *args) {
    PyObject *olo, *ohi;
    int ace, mjpm, jokers;
    int want_point = 0, decks = 0;
    if (!PyArg_ParseTuple(args, "OOiii|pi", &olo, &ohi, &ace, &mjpm, &jokers, &want_point, &decks)) return NULL;
    if (want_point && (decks < 1 || decks > 3)) {
        PyErr_SetString(PyExc_ValueError, "_dp.lp_refute: want_point needs decks (1-3)");
        return NULL;
    }
    int l[NT], h[NT];
    if (lp_read_box("_dp.lp_refute", olo, ohi, ace, mjpm, jokers, l, h) < 0) return NULL;
    LpSlot *L = lp_slot(ace, mjpm, jokers);
    if (!L) return PyErr_NoMemory();
    int x[NT];
    int r = want_point ? lp_partition(L, l, h, ace, mjpm, decks, jokers, x) : lp_run(L, l, h, NULL, NULL, NULL);
    if (r < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    if (r == 3) {
        PyObject *a = PyByteArray_FromStringAndSize(NULL, NT * sizeof(int64_t));
        if (!a) return NULL;
        int64_t *ca = (int64_t *)PyByteArray_AS_STRING(a);
        for (int c = 0; c < NT; c++) ca[c] = (int64_t)x[c] - l[c];
        return a;
    }
    return PyBool_FromLong(r == 1);
}

/* support_refutes(lo, hi) -> bool: box_support_refutes (for the tests) */
static PyObject *py_support_refutes(PyObject *self, PyObject *args) {
    PyObject *olo, *ohi;
    if (!PyArg_ParseTuple(args, "OO", &olo, &ohi)) return NULL;
    int l[NT], h[NT];
    if (lp_read_box("_dp.support_refutes", olo, ohi, 0, 1, 0, l, h) < 0) return NULL;
    return PyBool_FromLong(box_support_refutes(l, h));
}

/* lp_melds(ace, mjpm, jokers) -> bytes: the slot's melds, 53 counts each (for the tests) */
static PyObject *py_lp_melds(PyObject *self, PyObject *args) {
    int ace, mjpm, jokers;
    if (!PyArg_ParseTuple(args, "iii", &ace, &mjpm, &jokers)) return NULL;
    if (ace < 0 || ace > 4 || mjpm < 1 || mjpm > 4 || jokers < 0) {
        PyErr_SetString(PyExc_ValueError, "_dp.lp: bad rules arguments");
        return NULL;
    }
    LpSlot *L = lp_slot(ace, mjpm, jokers);
    if (!L) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)L->n * LP_ROWS);
    if (!out) return NULL;
    uint8_t *b = (uint8_t *)PyBytes_AS_STRING(out);
    memset(b, 0, (size_t)L->n * LP_ROWS);
    for (int m = 0; m < L->n; m++)
        for (int k = L->start[m]; k < L->start[m + 1]; k++) b[(size_t)m * LP_ROWS + L->card[k]] = L->cnt[k];
    return out;
}

/* ------------------------------------------------------------------ narrowing best_play's box
 * A hand card type c whose box [lo + e_c, hi] the relaxation refutes lies in no play: hi_c = lo_c
 * asks the same question (the same plays, so the same optimum) with fewer branches to search, and
 * when every type goes, the answer is the table's own arrangement. Asked of best_play's questions
 * with a joker among their cards on tables of at least g_lp_narrow cards (0: never), always from
 * the slack basis, so that which types go, and so which of several equally good plays the search
 * returns, depends on the question alone, never on the questions asked before. */
static long g_lp_narrow = 25;
#define LP_NARROW_CERTS 16 /* refutation certificates a narrowing keeps to try on the types after */
static unsigned long long lp_cert_reused = 0; /* types lp_narrow cut by an earlier type's certificate */

/* The basis each narrowing starts from: the simplex's last basis for the table's own box [lo, lo],
 * from the slack basis, a function of the table alone. Kept for the LP_TABLES tables asked last
 * (a table stays for several turns while the players draw), so a table seen before costs a copy. */
#define LP_TABLES 8
typedef struct {
    const LpSlot *slot; /* NULL: free */
    uint8_t lo[NT];
    unsigned long long used; /* lp_table_clock when last read */
    int head[LP_ROWS], updates;
    int8_t *upper;           /* n + LP_ROWS each, as in the slot */
    int32_t *pos;
    double bt[LP_ROWS][LP_W];
} LpTableBasis;
static LpTableBasis lp_tables[LP_TABLES];
static unsigned long long lp_table_clock = 0;

/* one basis copied to another: the basic variable of each row, bounds and rows of the nonbasic and
 * basic variables (nv each), the inverse and its count of updates */
static void lp_basis_copy(int *head, int8_t *upper, int32_t *pos, double (*bt)[LP_W], int *updates, const int *head0,
                          const int8_t *upper0, const int32_t *pos0, const double (*bt0)[LP_W], int updates0, size_t nv) {
    memcpy(head, head0, LP_ROWS * sizeof(int));
    memcpy(upper, upper0, nv);
    memcpy(pos, pos0, nv * sizeof(int32_t));
    memcpy(bt, bt0, LP_ROWS * sizeof *bt);
    *updates = updates0;
}

/* L set to the basis of table lo's own box (found, or computed and kept); 0 ok, -1 out of memory */
static int lp_table_basis(LpSlot *L, const uint8_t *lo) {
    const size_t nv = (size_t)L->n + LP_ROWS;
    LpTableBasis *T = NULL, *old = &lp_tables[0];
    for (int i = 0; i < LP_TABLES; i++) {
        LpTableBasis *t = &lp_tables[i];
        if (t->slot == L && !memcmp(t->lo, lo, NT)) { T = t; break; }
        if (t->used < old->used) old = t;
    }
    if (T) {
        lp_basis_copy(L->head, L->upper, L->pos, L->bt, &L->updates, T->head, T->upper, T->pos,
                      (const double (*)[LP_W])T->bt, T->updates, nv);
        T->used = ++lp_table_clock;
        return 0;
    }
    lp_slack_basis(L);
    int box[NT];
    for (int c = 0; c < NT; c++) box[c] = lo[c];
    lp_crash(L, box);
    if (lp_run(L, box, box, NULL, NULL, NULL) < 0) return -1;
    T = old;
    if (T->slot != L) { /* arrays sized for another meld list */
        free(T->upper);
        free(T->pos);
        T->slot = NULL;
        T->upper = malloc(nv);
        T->pos = malloc(nv * sizeof(int32_t));
        if (!T->upper || !T->pos) { free(T->upper); free(T->pos); T->upper = NULL; T->pos = NULL; return 0; }
    }
    T->slot = L;
    memcpy(T->lo, lo, NT);
    lp_basis_copy(T->head, T->upper, T->pos, T->bt, &T->updates, L->head, L->upper, L->pos,
                  (const double (*)[LP_W])L->bt, L->updates, nv);
    T->used = ++lp_table_clock;
    return 0;
}

#define LP_DIVE_STACK 256 /* melds a path may hold (lp_whole, lp_arrange) */

/* the melds the point lp_run found last takes whole (floor(y) copies of each basic meld), pushed
 * onto st[*sn..]: 0, or -1 with st as it was when they do not fit in LP_DIVE_STACK */
static int lp_push_whole(const LpSlot *L, int32_t *st, int *sn) {
    const int sn0 = *sn;
    for (int i = 0; i < LP_ROWS; i++) {
        const int j = L->head[i];
        if (j >= L->n) continue;
        for (int t = (int)floor(lp_last_xb[i] + 1e-7); t > 0; t--) {
            if (*sn >= LP_DIVE_STACK) { *sn = sn0; return -1; }
            st[(*sn)++] = j;
        }
    }
    return 0;
}

/* lp_whole's and lp_arrange's x, checked (the box [x, x]), and its slot set to the basis of x's
 * own box (lp_table_basis: a function of x alone). 0, or -1 with a Python error set */
static int lp_x_basis(const char *who, PyObject *ox, int ace, int mjpm, int jokers, int *x, LpSlot **L) {
    int h[NT];
    if (lp_read_box(who, ox, ox, ace, mjpm, jokers, x, h) < 0) return -1;
    uint8_t x8[NT];
    for (int c = 0; c < NT; c++) x8[c] = (uint8_t)x[c];
    *L = lp_slot(ace, mjpm, jokers);
    if (!*L || lp_table_basis(*L, x8) < 0) { PyErr_NoMemory(); return -1; }
    return 0;
}

/* meld indices st[0..n-1] as a list */
static PyObject *lp_index_list(const int32_t *st, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *m = PyLong_FromLong(st[i]);
        if (!m) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, m);
    }
    return out;
}

/* lp_whole(x, ace, mjpm, jokers) -> [m, ...] | None: the melds (indices into lp_melds' list, each as
 * often as floor(y_m)) that the relaxation's point for the box [x, x] takes whole, from the basis
 * of x's own box; None when the relaxation has no point (or none read as whole melds within x) */
static PyObject *py_lp_whole(PyObject *self, PyObject *args) {
    PyObject *ox;
    int ace, mjpm, jokers, x[NT];
    LpSlot *L;
    if (!PyArg_ParseTuple(args, "Oiii", &ox, &ace, &mjpm, &jokers)) return NULL;
    if (lp_x_basis("_dp.lp_whole", ox, ace, mjpm, jokers, x, &L) < 0) return NULL;
    int point[NT], whole[NT];
    const int r = lp_run(L, x, x, point, whole, NULL);
    if (r < 0) return PyErr_NoMemory();
    int32_t st[LP_DIVE_STACK];
    int sn = 0;
    if (r != 2 || lp_push_whole(L, st, &sn) < 0) Py_RETURN_NONE;
    return lp_index_list(st, sn);
}

/* lp_arrange(x, ace, mjpm, jokers, relaxations) -> [m, ...] | None: an arrangement of x found by a
 * dive (lp_dive_from: the point's whole melds, then a fractional one taken, and the relaxation asked
 * again of what is left) of at most `relaxations` relaxations, from the basis of x's own box: its
 * melds as indices into lp_melds' list. None: not found (which proves nothing) */
static int lp_dive_from(LpSlot *L, const int *x0, long *budget, int32_t *st, int *sn);
static PyObject *py_lp_arrange(PyObject *self, PyObject *args) {
    PyObject *ox;
    int ace, mjpm, jokers, x[NT];
    long relaxations;
    LpSlot *L;
    if (!PyArg_ParseTuple(args, "Oiiil", &ox, &ace, &mjpm, &jokers, &relaxations)) return NULL;
    if (lp_x_basis("_dp.lp_arrange", ox, ace, mjpm, jokers, x, &L) < 0) return NULL;
    int32_t st[LP_DIVE_STACK];
    int sn = 0;
    long budget = relaxations;
    const int r = lp_dive_from(L, x, &budget, st, &sn);
    if (r < 0) return PyErr_NoMemory();
    if (r != 1) Py_RETURN_NONE;
    return lp_index_list(st, sn);
}

/* is q a question lp_narrow asks (a joker among its cards, a table of g_lp_narrow cards or more,
 * something to play, no opening condition)? */
static int lp_narrow_applies(const Query *q) {
    if (g_lp_narrow <= 0 || q->hiJ == 0 || q->min_open || q->need_group || is_repack(q)) return 0;
    return table_cards(q) >= g_lp_narrow;
}

/* group branching (lp_branch_refutes, below): relaxations per refutation, and per question */
static long g_lp_branch = 31;
/* the relaxations all branching refutations of one best_play question may ask together, in units of
 * g_lp_branch (a big hand has many types to narrow, most of them playable, where branching finds
 * nothing; on the 442 slowest recorded greedy questions 2 refutes as much as no limit, 1 less) */
#define LP_BRANCH_QUESTION_TIMES 2
/* tables it branches on: on recorded greedy games of the joker presets it refuted nothing on tables
 * of 20-29 cards (1 of 1,243 attempts) and was never asked on 80 or more, where it costs the shared
 * cases' near-full two-deck tables (89-97 cards) about 1 ms each and refutes nothing there. So from
 * 30 cards to fewer than LP_BRANCH_PER_DECK a deck: up to 79 with two decks, 119 with three, where
 * greedy self-play on three decks and four jokers meets 94-102-card tables with a hand of two or
 * three cards that the search took 0.3-0.5 million units (120-360 ms) to settle and branching
 * settles in 0.6-2 ms */
#define LP_BRANCH_MIN_TABLE 30
#define LP_BRANCH_PER_DECK 40
static long lp_branch_left = 0; /* of this question's; set by lp_narrow */
static unsigned long long lp_branch_calls = 0, lp_branch_refuted = 0;
static int lp_branch_refutes(LpSlot *L, const int *lo, const int *hi);

/* q narrowed in place (set up again when a type goes). 0, or setup_query's code */
static int lp_narrow(Query *q) {
    if (!lp_narrow_applies(q)) return 0;
    const int table = table_cards(q);
    lp_branch_left = table >= LP_BRANCH_MIN_TABLE && table < LP_BRANCH_PER_DECK * q->decks ? LP_BRANCH_QUESTION_TIMES * g_lp_branch : 0;
    int l[NT], h[NT];
    for (int c = 0; c < NT; c++) {
        l[c] = q->lo[c];
        h[c] = q->hi[c];
    }
    LpSlot *L = lp_slot(q->ace, q->mjpm, q->jokers);
    if (!L || lp_table_basis(L, q->lo) < 0) return 0; /* out of memory: the search alone */
    int cut = 0;
    uint8_t kept[NT] = {0}; /* a point found holds another copy of the type: its box has one too */
    double act[NT];
    /* The certificates of this question's refutations. One that refuted [l + e_c, h] holds for
     * every later box [l + e_d, h'] with h' <= h (fewer melds fit, so u . a_m >= 0 still holds on
     * all of them) whose sum over the box, sum_{u > 0} u h' + sum_{u < 0} u (l + e_d), is negative:
     * checked exactly, it refutes d without a simplex run. */
    static long long certs[LP_NARROW_CERTS][LP_ROWS];
    int ncert = 0;
    for (int c = 0; c < NT; c++) {
        if (h[c] <= l[c] || kept[c]) continue;
        int refuted = 0;
        for (int k = 0; k < ncert && !refuted; k++) {
            const long long *u = certs[k];
            refuted = lp_cert_sum(u, l, h) + (u[c] < 0 ? u[c] : 0) < 0; /* the box [l + e_c, h] */
        }
        if (refuted) { h[c] = l[c]; cut++; lp_cert_reused++; continue; }
        l[c]++;
        for (int d = 0; d < NT; d++) act[d] = 0.0;
        int r = lp_run(L, l, h, NULL, NULL, act), branched = 0;
        if (r != 1 && r >= 0 && lp_branch_refutes(L, l, h) == 1) r = branched = 1;
        l[c]--;
        if (r == 1) {
            h[c] = l[c];
            cut++;
            /* a branching refutation has no single certificate to reuse */
            if (!branched) memcpy(certs[ncert < LP_NARROW_CERTS ? ncert++ : LP_NARROW_CERTS - 1], lp_cert, sizeof lp_cert);
        } else {
            for (int d = c + 1; d < NT; d++) kept[d] |= act[d] >= l[d] + 1 - 1e-9;
        }
    }
    lp_narrowed += cut;
    if (!cut) return 0;
    long long lo[NT], hi[NT], w[NT];
    for (int c = 0; c < NT; c++) { lo[c] = l[c]; hi[c] = h[c]; w[c] = q->w[c]; }
    const int rise = q->rise, ace = q->ace, mjpm = q->mjpm, decks = q->decks, jokers = q->jokers;
    int rc = setup_query(q, lo, hi, w, ace, mjpm, 0, 0, decks, jokers);
    q->rise = rise;
    return rc;
}

/* The relaxation's optimum as a bound (lp_simplex's phase 2), for best_play's questions (best_answer
 * alone calls it) on tables of at least g_lp_cap cards (0: never), with or without jokers: q->cap
 * lowered to it (cap_anywhere), so the search stops at the first play worth it, rising or not.
 * Crowded tables are where the search spends its work proving that no larger play exists, and
 * there the relaxation's optimum is most often the optimum itself. From the table's own basis (lp_table_basis), so a function of the question alone.
 * 1 a cap set, 0 none, <0 out of memory. best_answer asks it only of questions the search alone
 * has not settled within g_lp_cap_race units. */
static long g_lp_cap = 40;
static int lp_cap_applies(const Query *q) {
    return g_lp_cap > 0 && !q->min_open && !q->need_group && !is_repack(q) && table_cards(q) >= g_lp_cap;
}
static int lp_objective_cap(Query *q) { /* q: a question lp_cap_applies to */
    int l[NT], h[NT], obj[NT], any = 0;
    for (int c = 0; c < NT; c++) {
        l[c] = q->lo[c];
        h[c] = q->hi[c];
        obj[c] = c == JOKER ? q->wJ : q->w[c];
        if (obj[c] < 0) return 0;
        any |= h[c] > l[c] && obj[c] > 0;
    }
    if (!any) return 0;
    LpSlot *L = lp_slot(q->ace, q->mjpm, q->jokers);
    if (!L) return 0;
    if (lp_table_basis(L, q->lo) < 0) return -1;
    long cap;
    const int r = lp_simplex(L, l, h, NULL, NULL, NULL, obj, &cap);
    if (r < 0) return r;
    if (r != 3 || (q->cap >= 0 && cap >= q->cap)) return 0;
    q->cap = cap;
    q->cap_anywhere = 1;
    return 1;
}

/* After lp_narrow, with every type left of a positive weight: what the relaxation says of the
 * multisets x that play the most of what is left, each asked as its own box [x, x] (the simplex
 * going on from the narrowing's basis, so a function of the question alone).
 * - Everything (x = hi) first. A point: its whole melds (floor(y)) and a repack of at most
 *   LP_REST_WORK expansions of the cards they leave, else a dive (lp_dive); when either arranges
 *   x, playing everything is the only play of the largest value, the answer: 1, x in q->hi.
 * - Refuted: with equal weights (the cards objective), the multisets of one card fewer, then two,
 *   ... (while a size has at most LP_CAP_BOXES of them): while every one is refuted, the next
 *   size. Of the first size not all refuted, the first multiset (types in card order, fewer
 *   copies left out first) arranged off its point or by a dive as above is the answer (no play
 *   is larger): 1, x in q->hi. Else a bound on the optimum for the search, Query.cap (the largest size not
 *   refuted; with other weights, everything less the smallest weight), which then stops the
 *   search at the first play reaching it, in every level.
 * 0: the search decides (with the bound, if any); <0 error. */
#define LP_CAP_BOXES 16

/* is x (box) arranged off the relaxation's point? 1 yes, 0 no (*refuted set when the relaxation
 * has no point), <0 error */
static int lp_arranges(LpSlot *L, const Query *q, const int *box, int *refuted) {
    int point[NT];
    int r = lp_partition(L, box, box, q->ace, q->mjpm, q->decks, q->jokers, point);
    *refuted = r == 1;
    return r == 3 ? 1 : r < 0 ? r : 0;
}

/* A dive for an arrangement of x (the box [x, x]) when the relaxation's point did not give one:
 * the point's whole melds are taken, then one of the melds it holds a fraction of (of those that
 * fit in what is left, the largest fraction first, at most LP_DIVE_WIDTH of them in turn), and the
 * relaxation asked again of what is left, depth first, for at most g_lp_dive relaxations in all (a
 * count, never time). 1 when what is left comes to nothing (x is then a union of melds of the
 * list, an arrangement), 0 not found, <0 error. Each relaxation goes on from the basis the one
 * before left, so the dive is a function of the question like the rest of lp_best_bound. */
#define LP_DIVE_WIDTH 2
static long g_lp_dive = 15;
static unsigned long long lp_dives = 0, lp_dives_found = 0;

static int lp_dive_from(LpSlot *L, const int *x0, long *budget, int32_t *st, int *sn) {
    if (--*budget < 0) return 0;
    int x[NT], point[NT], whole[NT];
    memcpy(x, x0, sizeof x);
    int r = lp_run(L, x, x, point, whole, NULL);
    if (r != 2) return r < 0 ? r : 0;
    const int sn0 = sn ? *sn : 0;
    if (sn && lp_push_whole(L, st, sn) < 0) return 0; /* the path: the point's whole melds */
    const int sn1 = sn ? *sn : 0;
    int left = 0;
    for (int c = 0; c < NT; c++) {
        x[c] -= whole[c];
        left += x[c];
    }
    if (!left) return 1;
    int cand[LP_ROWS], nc = 0; /* basic melds held in part that fit in x, by fraction, then index */
    double frac[LP_ROWS];
    for (int i = 0; i < LP_ROWS; i++) {
        const int j = L->head[i];
        if (j >= L->n) continue;
        const double f = lp_last_xb[i] - floor(lp_last_xb[i] + 1e-7);
        if (f <= 1e-7) continue;
        int fits = 1;
        for (int k = L->start[j]; k < L->start[j + 1] && fits; k++) fits = L->cnt[k] <= x[L->card[k]];
        if (!fits) continue;
        int p = nc++;
        while (p > 0 && (frac[p - 1] < f || (frac[p - 1] == f && cand[p - 1] > j))) {
            frac[p] = frac[p - 1];
            cand[p] = cand[p - 1];
            p--;
        }
        frac[p] = f;
        cand[p] = j;
    }
    for (int t = 0; t < nc && t < LP_DIVE_WIDTH; t++) {
        const int j = cand[t];
        int y[NT], rest = 0;
        memcpy(y, x, sizeof y);
        for (int k = L->start[j]; k < L->start[j + 1]; k++) y[L->card[k]] -= L->cnt[k];
        for (int c = 0; c < NT; c++) rest += y[c];
        if (sn) {
            if (*sn >= LP_DIVE_STACK) break;
            st[(*sn)++] = j;
        }
        if (!rest) return 1;
        r = lp_dive_from(L, y, budget, st, sn);
        if (r != 0) return r;
        if (sn) *sn = sn1;
        if (*budget < 0) break;
    }
    if (sn) *sn = sn0;
    return 0;
}

static int lp_dive(LpSlot *L, const int *x) {
    if (g_lp_dive <= 0) return 0;
    long budget = g_lp_dive;
    lp_dives++;
    int r = lp_dive_from(L, x, &budget, NULL, NULL);
    lp_dives_found += r == 1;
    return r;
}

/* Group branching: a refutation of the box [lo, hi] that the relaxation alone does not give. On crowded
 * joker tables the relaxation's slack is in its fractional groups (of 40 recorded repacks with no
 * arrangement but a relaxed point, HiGHS refutes all 40 with only the groups kept whole). So: take a
 * group the point holds a fraction of (the most fractional, then the lowest index) and refute both
 * cases, y_m = 0 (the column left out, lp_excl) and y_m >= 1 (one copy of m taken out of the box:
 * [lo - a_m, hi - a_m], lo floored at 0), depth first, each case by the relaxation again or by
 * branching further. Every leaf is a relaxation refuted with its own certificate, checked in integer
 * arithmetic over the columns usable there, and the two cases cover every integer y, so 1 is a proof.
 * At most g_lp_branch relaxations in all (a count, never time); 0 when a leaf's point holds no
 * fractional group (the relaxation with whole groups has a point there) or the count runs out;
 * <0 error. Each relaxation goes on from the basis the one before left: a function of the question. */
static size_t lp_excl_cap = 0;

static int lp_is_group(const LpSlot *L, int m) {
    int rank = -1, suits = 0, real = 0;
    for (int k = L->start[m]; k < L->start[m + 1]; k++) {
        const int c = L->card[k];
        if (c == JOKER) continue;
        if (rank < 0) rank = c % 13;
        else if (c % 13 != rank) return 0;
        suits |= 1 << (c / 13);
        real++;
    }
    return real >= 2 && __builtin_popcount((unsigned)suits) == real;
}

static int lp_branch_from(LpSlot *L, int *lo, int *hi, long *budget) {
    if (--*budget < 0) return 0;
    const int r = lp_run(L, lo, hi, NULL, NULL, NULL);
    if (r != 0) return r; /* 1 refuted, <0 error */
    if (!lp_last_found) return 0; /* the simplex gave up: not refuted */
    int j = -1;
    double best = 1e-6, fj = 0;
    for (int i = 0; i < LP_ROWS; i++) {
        const int m = L->head[i];
        if (m >= L->n || !lp_is_group(L, m)) continue;
        const double f = lp_last_xb[i] - floor(lp_last_xb[i]), d = f < 1 - f ? f : 1 - f;
        if (d > best || (d == best && j >= 0 && m < j)) { best = d; j = m; fj = f; }
    }
    if (j < 0) return 0;
    /* the case nearer the point first: where the box holds a partition, a leaf without a fractional
     * group (the attempt's end) is likelier there; a refutation needs both cases either way */
    int res = 0;
    for (int pass = 0, take = fj >= 0.5; pass < 2; pass++, take = !take) {
        if (take) {
            int lo0[LP_ROWS];
            memcpy(lo0, lo, sizeof lo0);
            for (int k = L->start[j]; k < L->start[j + 1]; k++) {
                const int c = L->card[k];
                hi[c] -= L->cnt[k];
                lo[c] = lo[c] > L->cnt[k] ? lo[c] - L->cnt[k] : 0;
            }
            res = lp_branch_from(L, lo, hi, budget);
            for (int k = L->start[j]; k < L->start[j + 1]; k++) hi[L->card[k]] += L->cnt[k];
            memcpy(lo, lo0, sizeof lo0);
        } else {
            lp_excl[j] = 1;
            L->uvalid = 0;
            res = lp_branch_from(L, lo, hi, budget);
            lp_excl[j] = 0;
            L->uvalid = 0;
        }
        if (res != 1) return res;
    }
    return res;
}

/* 1 when group branching refutes [lo, hi] (see above), 0 not refuted, <0 error. The relaxations
 * it asks leave the slot's basis where the last one ended; what the caller asks next goes on from
 * there (putting the basis back after an attempt that refutes nothing was tried: on the 442 slowest
 * recorded greedy questions the search then needed 38% more work, though a few questions less) */
static int lp_branch_refutes(LpSlot *L, const int *lo, const int *hi) {
    if (g_lp_branch <= 0 || lp_branch_left <= 0) return 0;
    if ((size_t)L->n > lp_excl_cap) {
        uint8_t *e = calloc((size_t)L->n, 1);
        if (!e) return 0;
        free(lp_excl);
        lp_excl = e;
        lp_excl_cap = (size_t)L->n;
    }
    int l[LP_ROWS], h[LP_ROWS];
    memcpy(l, lo, sizeof l);
    memcpy(h, hi, sizeof h);
    const long granted = g_lp_branch < lp_branch_left ? g_lp_branch : lp_branch_left;
    long budget = granted;
    lp_branch_calls++;
    lp_excl_on = 1;
    const int r = lp_branch_from(L, l, h, &budget);
    lp_excl_on = 0;
    lp_branch_left -= granted - (budget > 0 ? budget : 0);
    L->uvalid = 0;
    lp_branch_refuted += r == 1;
    return r;
}

/* lp_branch_refute(lo, hi, ace, mjpm, jokers, relaxations) -> True when group branching refutes the box
 * within that many relaxations (lp_branch_refutes, whatever g_lp_branch and best_play's own count),
 * starting from the basis of lo's own box; False otherwise. For a repack question that the search
 * and the relaxation left open (dp.py asks it before the integer programme). */
static PyObject *py_lp_branch_refute(PyObject *self, PyObject *args) {
    PyObject *olo, *ohi;
    int ace, mjpm, jokers;
    long relaxations;
    if (!PyArg_ParseTuple(args, "OOiiil", &olo, &ohi, &ace, &mjpm, &jokers, &relaxations)) return NULL;
    if (relaxations < 0) {
        PyErr_SetString(PyExc_ValueError, "_dp.lp_branch_refute: relaxations must be at least 0");
        return NULL;
    }
    int l[NT], h[NT];
    if (lp_read_box("_dp.lp_branch_refute", olo, ohi, ace, mjpm, jokers, l, h) < 0) return NULL;
    LpSlot *L = lp_slot(ace, mjpm, jokers);
    uint8_t lo8[NT];
    for (int c = 0; c < NT; c++) lo8[c] = (uint8_t)l[c];
    /* from lo's own basis, not the last question's: whether it refutes is a function of the question */
    if (!L || lp_table_basis(L, lo8) < 0) return PyErr_NoMemory();
    const long saved_branch = g_lp_branch, saved_left = lp_branch_left;
    g_lp_branch = lp_branch_left = relaxations;
    const int r = relaxations > 0 ? lp_branch_refutes(L, l, h) : 0;
    g_lp_branch = saved_branch;
    lp_branch_left = saved_left;
    if (r < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    return PyBool_FromLong(r == 1);
}

/* The multisets d <= left (types t[0..nt-1]) of `size` cards, each as the box hi - d (box, restored
 * on return). how 0: their count (stops past LP_CAP_BOXES). how 1: asked in turn until one is
 * arranged (lp_arranges; copied into found): 1 found, 0 not; *all_refuted cleared when one is not
 * refuted. <0 error. */
static int lp_sizes(LpSlot *L, const Query *q, const int *t, const int *left, int nt, int size, int *box, int how,
                    int *found, int *all_refuted) {
    if (size == 0) {
        if (!how) return 1;
        int refuted, r = lp_arranges(L, q, box, &refuted);
        if (r == 0 && !refuted) r = lp_dive(L, box);
        if (r == 0 && !refuted) {
            r = lp_branch_refutes(L, box, box);
            refuted = r == 1;
            if (r == 1) r = 0;
        }
        if (!refuted) *all_refuted = 0;
        if (r == 1) memcpy(found, box, NT * sizeof(int));
        return r;
    }
    if (nt == 0) return 0;
    int total = 0;
    for (int k = 0; k <= left[0] && k <= size; k++) {
        box[t[0]] -= k;
        int r = lp_sizes(L, q, t + 1, left + 1, nt - 1, size - k, box, how, found, all_refuted);
        box[t[0]] += k;
        if (r < 0 || (how && r == 1)) return r;
        total += r;
        if (!how && total > LP_CAP_BOXES) return total;
    }
    return how ? 0 : total;
}

static int lp_best_bound(Query *q) {
    if (!q->rise || !lp_narrow_applies(q)) return 0;
    int box[NT], found[NT], t[NT], left[NT], nt = 0;
    long total = 0, wmin = -1, wmax = 0;
    for (int c = 0; c < NT; c++) {
        box[c] = q->hi[c];
        int d = q->hi[c] - q->lo[c];
        if (d <= 0) continue;
        t[nt] = c;
        left[nt++] = d;
        total += (long)q->w[c] * d;
        if (wmin < 0 || q->w[c] < wmin) wmin = q->w[c];
        if (q->w[c] > wmax) wmax = q->w[c];
    }
    if (wmin <= 0) return 0;
    LpSlot *L = lp_slot(q->ace, q->mjpm, q->jokers);
    if (!L) return 0;
    const int cards = wmin == wmax ? (int)(total / wmin) : 1; /* sizes asked: equal weights only */
    long cap = -1;
    for (int removed = 0; removed < cards; removed++) {
        if (lp_sizes(L, q, t, left, nt, removed, box, 0, found, NULL) > LP_CAP_BOXES) break;
        int all_refuted = 1;
        int r = lp_sizes(L, q, t, left, nt, removed, box, 1, found, &all_refuted);
        if (r < 0) return r;
        if (r == 1) {
            for (int c = 0; c < NT; c++) q->hi[c] = (uint8_t)found[c];
            q->hiJ = q->hi[JOKER];
            return 1;
        }
        if (!all_refuted) break;
        cap = wmin == wmax ? (long)(cards - removed - 1) * wmin : total - wmin;
    }
    if (cap >= 0) {
        q->cap = q->base + cap;
        q->cap_anywhere = 1;
    }
    return 0;
}
