/* common.h: Shared definitions of the oracle's C source: limits, token and position-flag encodings, growable
 * arrays and stamped hash tables.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
#ifndef MACHIAVELLI_DP_COMMON_H
#define MACHIAVELLI_DP_COMMON_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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
static int g_gjc = 1;  /* the relaxation charges group cards their least joker share (query.c gcost) */
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

#endif
