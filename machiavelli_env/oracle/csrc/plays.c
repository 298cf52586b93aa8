/* plays.c: the depth-first enumeration of a legal-play list (legal.py's _legal_plays), run here so
 * that its branch questions pay no Python call each; with help cards, the search for groups that
 * hold the help copies (legal.py's _help_cover) too.
 * It follows the Python enumeration step for step: the same branches in the same order.
 *  - A bounded list (a ListBudget) asks each branch's feasibility question as api.feasible_within
 *    asks it (swept from the king down, capped by the question's work and what is left of the
 *    list's), so the plays, the work and where the list gives up are the same.
 *  - An exact list (exact = 1) asks each exactly: the LP refuter first (its point read as a
 *    partition when the question has no group or opening condition), then the search swept from the
 *    king down for at most `race` expansions, and only what neither settles goes back to Python
 *    (`feasible`: the rest of the oracle's exact schedule). Whether a box holds a play never
 *    depends on which step answers, so the plays listed are those of the Python enumeration.
 * Compiled as part of ../_dp.c (one translation unit). */

typedef struct {
    long long base[NT], avail[NT], x[NT], rest[NT];
    long long hand[NT]; /* with help cards (help = 1): the hand, so that x - hand is what the help pile gives */
    int help;
    int types[NT], n_types;
    int ace, mjpm, need_group, min_open, decks, jokers;
    long long question_work, left;
    int max_nodes, nodes, limit, fresh, gave_up, asked;
    int64_t (*g)[NT]; /* the guaranteed entries (asked for and found), g_n of them */
    int g_n, g_cap, extra;
    int64_t (*found)[NT]; /* the plays emitted, found_n of them */
    int found_n, found_cap;
    PyObject *points; /* points(left, fresh) -> (counts | None, left, fresh): the max-points entry, asked once */
    int exact, race; /* exact lists: no caps; the search's expansions after the LP refuter (dp.LIST_RACE_WORK) */
    PyObject *feasible; /* exact lists: feasible(lo, hi) -> counts over lo | None, for what the race and LP leave */
    struct KeySet *failed; /* the boxes (lo, hi, need) the help cover found no arrangement of */
    LpCerts certs; /* exact lists: the certificates of this list's LP refutations, tried before the LP */
    int points_box; /* exact_list: points(hi) -> counts | None, hi = base + avail (not the (left, fresh) protocol) */
    int64_t pts[NT]; /* the max-points entry, when has_pts */
    int has_pts;
} PlayList;

/* a set of (lo, hi, need) boxes, by a 64-bit hash and the bytes */
typedef struct KeySet {
    uint64_t *hash;
    uint8_t (*key)[3 * NT];
    int n, cap;
} KeySet;

static uint64_t box_key(const long long *lo, const long long *hi, const long long *need, uint8_t *key) {
    uint64_t h = 1469598103934665603ULL;
    for (int c = 0; c < NT; c++) {
        key[c] = (uint8_t)lo[c];
        key[NT + c] = (uint8_t)hi[c];
        key[2 * NT + c] = (uint8_t)need[c];
    }
    for (int i = 0; i < 3 * NT; i++) h = (h ^ key[i]) * 1099511628211ULL;
    return h;
}

static int keyset_has(const KeySet *s, uint64_t h, const uint8_t *key) {
    for (int i = 0; i < s->n; i++)
        if (s->hash[i] == h && memcmp(s->key[i], key, 3 * NT) == 0) return 1;
    return 0;
}

static int keyset_add(KeySet *s, uint64_t h, const uint8_t *key) {
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 64;
        uint64_t *nh = PyMem_Realloc(s->hash, sizeof(uint64_t) * (size_t)nc);
        if (!nh) { PyErr_NoMemory(); return -1; }
        s->hash = nh;
        void *nk = PyMem_Realloc(s->key, (size_t)(3 * NT) * (size_t)nc);
        if (!nk) { PyErr_NoMemory(); return -1; }
        s->key = nk;
        s->cap = nc;
    }
    s->hash[s->n] = h;
    memcpy(s->key[s->n++], key, 3 * NT);
    return 0;
}

static void keyset_free(KeySet *s) {
    PyMem_Free(s->hash);
    PyMem_Free(s->key);
    memset(s, 0, sizeof *s);
}

/* one branch question: some x in [lo, hi] partitioning into melds, within `cap` work.
 * 1 found (its counts over lo in sol), 0 none, 2 gave up (over the cap or the memo), -1 error */
static int enum_question(PlayList *e, const long long *lo, const long long *hi, long long cap, long long *sol) {
    const int charged = !e->exact; /* an exact list's race is the plain search's, as api.feasible runs it */
    static const long long zero[NT];
    const int mirror = !e->min_open;
    long long mlo[NT], mhi[NT];
    if (mirror)
        for (int c = 0; c < NT; c++) {
            mlo[MIRROR_CARD(c)] = lo[c];
            mhi[MIRROR_CARD(c)] = hi[c];
        }
    g_charge_mode = charged;
    if (charged && e->fresh) {
        up_clear(sig_n > SIG_MAX / 2);
        e->fresh = 0;
    }
    Query *q = &g_query;
    int rc = setup_query(q, mirror ? mlo : lo, mirror ? mhi : hi, zero, mirror ? mirror_ace[e->ace] : e->ace, e->mjpm,
                         e->need_group, mirror ? 0 : e->min_open, e->decks, e->jokers);
    int out;
    if (rc < 0) out = -1;
    else if (rc == 4) out = 0;
    else if (rc > 0) {
        PyErr_Format(PyExc_ValueError, "_dp.enumerate_plays: a branch box is not a valid question (code %d)", rc);
        out = -1;
    } else {
        g_cap_at = g_work + (unsigned long long)cap;
        g_charge_relax = charged;
        int32_t value, path[MAXST];
        int J, mirrored;
        int r = solve_counted(q, &mirrored, &value, path, &J);
        if (r < 0) out = 2; /* over the cap (-6), or a full memo: a MemoryError that a capped question gives up on */
        else if (r == 0) out = 0;
        else {
            uint8_t x[NT];
            if (replay(mirrored ? &g_mirror : q, path, J, x, NULL, mirrored) < 0) out = -1;
            else {
                for (int c = 0; c < NT; c++) {
                    int m = mirror ? MIRROR_CARD(c) : c;
                    sol[c] = (long long)x[m] - q->lo[m];
                }
                out = 1;
            }
        }
    }
    g_cap_at = 0;
    g_charge_relax = 0;
    g_charge_mode = 0;
    return out;
}

/* exact lists' questions since the module loaded: all of them, settled by the LP, left to Python,
 * refuted by the count of melds a card could lie in (box_support_refutes) */
static unsigned long long enum_questions = 0, enum_by_lp = 0, enum_to_python = 0, enum_by_support = 0;
static int g_support = 1; /* set_params(support=): exact lists try box_support_refutes first (0: never) */

/* an exact list's question: the LP refuter first (its point read as a partition when the question
 * has no group or opening condition), then the search swept from the king down for at most `race`
 * expansions, then Python (the rest of api.feasible's schedule). race < 0: neither step (the LP
 * refuter is off). 1 found (counts over lo in sol), 0 none, -1 error */
static int enum_exact(PlayList *e, const long long *lo, const long long *hi, long long *sol) {
    enum_questions++;
    if (e->race >= 0) {
        LpSlot *L = lp_slot(e->ace, e->mjpm, e->jokers);
        if (!L) { PyErr_NoMemory(); return -1; }
        int l[NT], h[NT], x[NT];
        for (int c = 0; c < NT; c++) {
            l[c] = (int)lo[c];
            h[c] = (int)hi[c];
        }
        if (g_support && box_support_refutes(l, h)) {
            enum_by_support++;
            return 0;
        }
        if (lp_certs_refute(&e->certs, l, h)) {
            enum_by_lp++;
            return 0;
        }
        const int want_point = !e->need_group && !e->min_open;
        int r = want_point ? lp_partition(L, l, h, e->ace, e->mjpm, e->decks, e->jokers, x)
                           : lp_run(L, l, h, NULL, NULL, NULL);
        if (r < 0) {
            if (!PyErr_Occurred()) PyErr_NoMemory();
            return -1;
        }
        if (r == 1 || r == 3) {
            enum_by_lp++;
            if (r == 1) {
                lp_certs_keep(&e->certs, h);
                return 0;
            }
            for (int c = 0; c < NT; c++) sol[c] = x[c] - lo[c];
            return 1;
        }
        if (e->race > 0) {
            r = enum_question(e, lo, hi, e->race, sol);
            if (r != 2) return r;
        }
    }
    enum_to_python++;
    int64_t a[NT], b[NT];
    for (int c = 0; c < NT; c++) {
        a[c] = lo[c];
        b[c] = hi[c];
    }
    PyObject *res = PyObject_CallFunction(e->feasible, "y#y#", (const char *)a, (Py_ssize_t)sizeof a, (const char *)b,
                                          (Py_ssize_t)sizeof b);
    if (!res) return -1;
    int out = 0;
    if (res != Py_None) out = read_vec(res, sol, "feasible answer") < 0 ? -1 : 1;
    Py_DECREF(res);
    return out;
}

/* _Questions._capped around enum_question: the cap is the question's work or what is left, if less */
static int enum_feasible(PlayList *e, const long long *lo, const long long *hi, long long *sol) {
    if (e->exact) return enum_exact(e, lo, hi, sol);
    long long cap = e->question_work < e->left ? e->question_work : e->left;
    if (cap < 1) {
        e->gave_up = 1;
        return 0;
    }
    unsigned long long before = g_work;
    int r = enum_question(e, lo, hi, cap, sol);
    e->left -= (long long)(g_work - before);
    if (r == 2) {
        e->gave_up = 1;
        return 0;
    }
    return r;
}

/* legal.py's _help_cover with the list's capped question: some x in [lo, hi] partitioning into melds
 * with the `need` copies (help cards) in groups. Every group holding the first needed copy is tried
 * (more other suits first, in suit order, then fewer jokers first), its cards taken out, the rest
 * recursively; boxes without an answer go into `failed`. 1 found (x), 0 none, -1 error */
static int help_cover(PlayList *e, const long long *lo, const long long *hi, const long long *need, KeySet *failed,
                      long long *x) {
    int first = -1;
    for (int c = 0; c < NT && first < 0; c++)
        if (need[c]) first = c;
    if (first < 0) {
        long long sol[NT];
        int r = enum_feasible(e, lo, hi, sol);
        if (r == 1)
            for (int c = 0; c < NT; c++) x[c] = lo[c] + sol[c];
        return r;
    }
    uint8_t key[3 * NT];
    const uint64_t h = box_key(lo, hi, need, key);
    if (keyset_has(failed, h, key)) return 0;
    const int rank = first % 13, s0 = first / 13;
    int others[3], no = 0;
    for (int s = 0; s < 4; s++)
        if (s != s0 && hi[s * 13 + rank] > 0) others[no++] = s * 13 + rank;
    int jmax = e->jokers ? e->mjpm : 0;
    if (hi[JOKER] < jmax) jmax = (int)hi[JOKER];
    for (int k = no; k >= 0; k--) {
        int idx[3] = {0, 1, 2}; /* the combinations of k of the others, in itertools' order */
        for (;;) {
            for (int j = 0; j <= jmax; j++) {
                const int size = 1 + k + j;
                if (size < 3 || size > 4) continue;
                long long g[NT] = {0}, n2[NT], lo2[NT], hi2[NT];
                memcpy(n2, need, sizeof n2);
                g[first]++;
                if (n2[first] > 0) n2[first]--;
                for (int i = 0; i < k; i++) {
                    g[others[idx[i]]]++;
                    if (n2[others[idx[i]]] > 0) n2[others[idx[i]]]--;
                }
                g[JOKER] += j;
                for (int c = 0; c < NT; c++) {
                    lo2[c] = lo[c] > g[c] ? lo[c] - g[c] : 0;
                    hi2[c] = hi[c] - g[c];
                }
                int r = help_cover(e, lo2, hi2, n2, failed, x);
                if (r < 0) return -1;
                if (r) {
                    for (int c = 0; c < NT; c++) x[c] += g[c];
                    return 1;
                }
            }
            int i = k - 1; /* the next combination */
            while (i >= 0 && idx[i] == no - k + i) i--;
            if (i < 0) break;
            idx[i]++;
            for (int t = i + 1; t < k; t++) idx[t] = idx[t - 1] + 1;
        }
    }
    return keyset_add(failed, h, key) < 0 ? -1 : 0;
}

static int vec_in(int64_t (*set)[NT], int n, const int64_t *v) {
    for (int i = 0; i < n; i++)
        if (memcmp(set[i], v, sizeof(int64_t) * NT) == 0) return 1;
    return 0;
}

static int vec_push(int64_t (**set)[NT], int *n, int *cap, const int64_t *v) {
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        void *p = PyMem_Realloc(*set, sizeof(int64_t) * NT * (size_t)nc);
        if (!p) { PyErr_NoMemory(); return -1; }
        *set = p;
        *cap = nc;
    }
    memcpy((*set)[(*n)++], v, sizeof(int64_t) * NT);
    return 0;
}

/* the max-points entry, through the Python callback: asked once, when the list may be long enough */
static int enum_ask_points(PlayList *e) {
    e->asked = 1;
    PyObject *res, *counts;
    if (e->points_box) {
        int64_t hi[NT];
        for (int c = 0; c < NT; c++) hi[c] = e->base[c] + e->avail[c];
        res = PyObject_CallFunction(e->points, "y#", (const char *)hi, (Py_ssize_t)sizeof hi);
        if (!res) return -1;
        counts = res;
    } else {
        res = PyObject_CallFunction(e->points, "Li", e->left, e->fresh);
        if (!res) return -1;
        long long left;
        int fresh;
        if (!PyArg_ParseTuple(res, "OLp", &counts, &left, &fresh)) { Py_DECREF(res); return -1; }
        e->left = left;
        e->fresh = fresh;
    }
    int rc = 0;
    if (counts != Py_None) {
        long long v[NT];
        int64_t w[NT];
        if (read_vec(counts, v, "points play") < 0) rc = -1;
        else {
            for (int c = 0; c < NT; c++) w[c] = v[c];
            memcpy(e->pts, w, sizeof w);
            e->has_pts = 1;
            if (!vec_in(e->g, e->g_n, w)) {
                if (vec_push(&e->g, &e->g_n, &e->g_cap, w) < 0) rc = -1;
                else e->extra -= vec_in(e->found, e->found_n, w);
            }
        }
    }
    Py_DECREF(res);
    return rc;
}

/* legal.py's enough(): 1 when `limit` distinct plays are known, 0 not yet, -1 error */
static int enum_enough(PlayList *e) {
    if (!e->asked && e->g_n + e->extra >= e->limit - 1 && enum_ask_points(e) < 0) return -1;
    return e->asked && e->g_n + e->extra >= e->limit;
}

/* legal.py's emit with help cards: whether the leaf x is a legal play (1), not (0), or -1 on error. The
 * play must take a card from the hand, and the copies beyond the hand (from the help pile) must lie
 * in groups of an arrangement of the table and the play (a cover of its own, not the list's boxes) */
static int help_leaf(PlayList *e) {
    long long need[NT], whole[NT], x[NT];
    int from_hand = 0, from_help = 0;
    for (int c = 0; c < NT; c++) {
        long long h = e->x[c] < e->hand[c] ? e->x[c] : e->hand[c];
        from_hand |= h != 0;
        need[c] = e->x[c] - h;
        from_help |= need[c] != 0;
        whole[c] = e->base[c] + e->x[c];
    }
    if (!from_hand) return 0;
    if (!from_help) return 1;
    KeySet own = {0};
    int r = help_cover(e, whole, whole, need, &own, x);
    keyset_free(&own);
    return r;
}

/* legal.py's branch(lo, hi): some play of the box, as counts over base in child; 1 found, 0 none, -1 error */
static int enum_branch(PlayList *e, const long long *lo, const long long *hi, long long *child) {
    long long sol[NT], need[NT];
    int any = 0;
    if (e->help)
        for (int c = 0; c < NT; c++) {
            need[c] = e->x[c] > e->hand[c] ? e->x[c] - e->hand[c] : 0;
            any |= need[c] != 0;
        }
    if (any) {
        int r = help_cover(e, lo, hi, need, e->failed, sol);
        if (r == 1)
            for (int c = 0; c < NT; c++) child[c] = sol[c] - e->base[c];
        return r;
    }
    int r = enum_feasible(e, lo, hi, sol);
    if (r == 1)
        for (int c = 0; c < NT; c++) child[c] = e->x[c] + sol[c];
    return r;
}

/* legal.py's dfs(i, witness): 1 stop, 0 go on, -1 error */
static int enum_dfs(PlayList *e, int i, const long long *witness) {
    if (i == e->n_types) {
        int any = 0;
        for (int c = 0; c < NT && !any; c++) any = e->x[c] != 0;
        if (any) {
            int64_t v[NT];
            for (int c = 0; c < NT; c++) v[c] = e->x[c];
            if (!vec_in(e->found, e->found_n, v)) {
                int r = e->help ? help_leaf(e) : 1;
                if (r < 0) return -1;
                if (r) {
                    if (vec_push(&e->found, &e->found_n, &e->found_cap, v) < 0) return -1;
                    e->extra += !vec_in(e->g, e->g_n, v);
                }
            }
        }
        return enum_enough(e);
    }
    const int c = e->types[i];
    e->rest[c] = 0;
    int stop = 0;
    long long child[NT], lo[NT], hi[NT];
    for (long long k = e->avail[c]; k >= 0; k--) {
        if (!e->exact && (e->nodes >= e->max_nodes || e->left < 1)) {
            stop = e->gave_up = 1;
            break;
        }
        e->nodes++;
        e->x[c] = k;
        const long long *next = witness;
        if (k != witness[c]) {
            for (int t = 0; t < NT; t++) {
                lo[t] = e->base[t] + e->x[t];
                hi[t] = lo[t] + e->rest[t];
            }
            int r = enum_branch(e, lo, hi, child);
            if (r < 0) return -1;
            if (r == 0) continue;
            next = child;
        }
        int r = enum_dfs(e, i + 1, next);
        if (r < 0) return -1;
        if (r) {
            stop = 1;
            break;
        }
    }
    e->x[c] = 0;
    e->rest[c] = e->avail[c];
    return stop;
}

/* enumerate_plays(base, avail, hand, types, witness, ace, mjpm, need_group, min_open, decks, jokers,
 *                 max_nodes, question_work, left, fresh, limit, asked, guaranteed, points[, race, feasible])
 * -> (found, stopped, gave_up, left, fresh); with feasible (callable), an exact list: max_nodes,
 * question_work, left and fresh are not read */
static PyObject *py_enumerate_plays(PyObject *self, PyObject *args) {
    PyObject *obase, *oavail, *ohand, *otypes, *owit, *oguar, *points;
    PlayList e;
    memset(&e, 0, sizeof e);
    KeySet failed = {0};
    e.failed = &failed;
    long long wit[NT];
    PyObject *feasible = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOiiiiiiiLLpipOO|iO", &obase, &oavail, &ohand, &otypes, &owit, &e.ace, &e.mjpm,
                          &e.need_group, &e.min_open, &e.decks, &e.jokers, &e.max_nodes, &e.question_work, &e.left,
                          &e.fresh, &e.limit, &e.asked, &oguar, &points, &e.race, &feasible))
        return NULL;
    if (feasible != Py_None) {
        if (!PyCallable_Check(feasible)) {
            PyErr_SetString(PyExc_TypeError, "_dp.enumerate_plays: feasible must be callable");
            return NULL;
        }
        e.exact = 1;
        e.feasible = feasible;
        e.left = 1;
    }
    if (read_vec(obase, e.base, "base") < 0 || read_vec(oavail, e.avail, "avail") < 0 ||
        read_vec(owit, wit, "witness") < 0)
        return NULL;
    e.help = ohand != Py_None;
    if (e.help && read_vec(ohand, e.hand, "hand") < 0) return NULL;
    if (!PyCallable_Check(points)) { PyErr_SetString(PyExc_TypeError, "_dp.enumerate_plays: points must be callable"); return NULL; }
    if (!e.exact && e.max_nodes < 1) { PyErr_SetString(PyExc_ValueError, "_dp.enumerate_plays: max_nodes must be >= 1"); return NULL; }
    PyObject *seq = PySequence_Fast(otypes, "_dp.enumerate_plays: types must be a sequence");
    if (!seq) return NULL;
    e.n_types = (int)PySequence_Fast_GET_SIZE(seq);
    int bad = e.n_types > NT;
    for (int i = 0; i < e.n_types && !bad; i++) {
        long t = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        bad = t < 0 || t >= NT;
        if (!bad) e.types[i] = (int)t;
    }
    Py_DECREF(seq);
    if (bad) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_dp.enumerate_plays: types must be card indices");
        return NULL;
    }
    for (int i = 0; i < e.n_types; i++) e.rest[e.types[i]] = e.avail[e.types[i]];
    e.points = points;
    PyObject *res = NULL, *found = NULL;
    seq = PySequence_Fast(oguar, "_dp.enumerate_plays: guaranteed must be a sequence");
    if (!seq) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long long v[NT];
        int64_t w[NT];
        if (read_vec(PySequence_Fast_GET_ITEM(seq, i), v, "guaranteed play") < 0) goto done;
        for (int c = 0; c < NT; c++) w[c] = v[c];
        if (!vec_in(e.g, e.g_n, w) && vec_push(&e.g, &e.g_n, &e.g_cap, w) < 0) goto done;
    }
    int stopped = enum_dfs(&e, 0, wit);
    if (stopped < 0) goto done;
    found = PyList_New(e.found_n);
    if (!found) goto done;
    for (int i = 0; i < e.found_n; i++) {
        PyObject *b = PyByteArray_FromStringAndSize((const char *)e.found[i], sizeof(int64_t) * NT);
        if (!b) goto done;
        PyList_SET_ITEM(found, i, b);
    }
    res = Py_BuildValue("OiiLi", found, stopped, e.gave_up, e.left, e.fresh);
done:
    Py_DECREF(seq);
    Py_XDECREF(found);
    PyMem_Free(e.g);
    PyMem_Free(e.found);
    keyset_free(&failed);
    return res;
}

/* ------------------------------------------------------------------ a list's order */
typedef struct {
    long long cards, points;
    long long x[NT];
    Py_ssize_t i;
} PlayKey;

/* most cards first, then most points, then more copies of lower card types first; equal plays keep
 * their order (as a stable sort would) */
static int play_key_cmp(const void *a, const void *b) {
    const PlayKey *u = a, *v = b;
    if (u->cards != v->cards) return u->cards > v->cards ? -1 : 1;
    if (u->points != v->points) return u->points > v->points ? -1 : 1;
    for (int c = 0; c < NT; c++)
        if (u->x[c] != v->x[c]) return u->x[c] > v->x[c] ? -1 : 1;
    return u->i < v->i ? -1 : (u->i > v->i);
}

/* keys[0..n-1], their plays (x) filled in, put in the list's order: their sizes and points (pts . x)
 * counted, each numbered by its place before */
static void play_keys_order(PlayKey *keys, Py_ssize_t n, const long long *pts) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PlayKey *k = &keys[i];
        k->cards = k->points = 0;
        for (int c = 0; c < NT; c++) {
            k->cards += k->x[c];
            k->points += pts[c] * k->x[c];
        }
        k->i = i;
    }
    qsort(keys, (size_t)n, sizeof(PlayKey), play_key_cmp);
}

/* order_plays(plays, points) -> list: the same objects (53-count vectors) in legal_plays' order */
static PyObject *py_order_plays(PyObject *self, PyObject *args) {
    PyObject *oplays, *opoints;
    if (!PyArg_ParseTuple(args, "OO", &oplays, &opoints)) return NULL;
    long long pts[NT];
    if (read_vec(opoints, pts, "points") < 0) return NULL;
    PyObject *seq = PySequence_Fast(oplays, "_dp.order_plays: plays must be a sequence");
    if (!seq) return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = NULL;
    PlayKey *keys = PyMem_Malloc(sizeof(PlayKey) * (size_t)(n ? n : 1));
    if (!keys) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (read_vec(PySequence_Fast_GET_ITEM(seq, i), keys[i].x, "play") < 0) goto done;
    play_keys_order(keys, n, pts);
    out = PyList_New(n);
    if (!out) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, keys[i].i);
        Py_INCREF(o);
        PyList_SET_ITEM(out, i, o);
    }
done:
    PyMem_Free(keys);
    Py_DECREF(seq);
    return out;
}


/* ------------------------------------------------------------------ an exact list, whole */
/* the plays in the list's order (play_key_cmp), as a new list of bytearrays (53 native int64 each) */
static PyObject *plays_ordered(int64_t (*plays)[NT], int n, const long long *pts) {
    PlayKey *keys = PyMem_Malloc(sizeof(PlayKey) * (size_t)(n ? n : 1));
    if (!keys) return PyErr_NoMemory();
    for (int i = 0; i < n; i++)
        for (int c = 0; c < NT; c++) keys[i].x[c] = plays[i][c];
    play_keys_order(keys, n, pts);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *b = PyByteArray_FromStringAndSize((const char *)plays[keys[i].i], sizeof(int64_t) * NT);
        if (!b) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, b);
    }
    PyMem_Free(keys);
    return out;
}

/* a PlayList for an exact pass of exact_list */
static void exact_pass_init(PlayList *e, const long long *base, const long long *avail, int ace, int mjpm, int decks,
                            int jokers, int limit, int race, PyObject *feasible, PyObject *points, KeySet *failed) {
    memset(e, 0, sizeof *e);
    memcpy(e->base, base, sizeof e->base);
    memcpy(e->avail, avail, sizeof e->avail);
    for (int c = 0; c < NT; c++)
        if (avail[c] > 0) {
            e->types[e->n_types++] = c;
            e->rest[c] = avail[c];
        }
    e->ace = ace;
    e->mjpm = mjpm;
    e->decks = decks;
    e->jokers = jokers;
    e->limit = limit;
    e->exact = 1;
    e->race = race;
    e->left = 1;
    e->feasible = feasible;
    e->points = points;
    e->points_box = 1;
    e->failed = failed;
}

/* the per-card pass's answer {card: counts over the table} as counts in by[c] (has[c] set): the
 * extension's pass (what the oracle's schedule asks first), else by_card() (the whole schedule) */
static int exact_list_by_card(const long long *t, const long long *h, int ace, int mjpm, int decks, int jokers,
                              PyObject *by_card, int64_t (*by)[NT], int *has) {
    long long hi[NT], w[NT];
    for (int c = 0; c < NT; c++) {
        hi[c] = t[c] + h[c];
        w[c] = 1;
    }
    int rc = setup_query(&g_query, t, hi, w, ace, mjpm, 0, 0, decks, jokers);
    if (rc < 0) return -1;
    PyObject *res = by_card_answer(&g_query, rc, 0, 0);
    if (!res || !PyDict_Check(res)) { /* the pass could not answer (a full memo, ...): the whole schedule */
        if (!res && !PyErr_ExceptionMatches(PyExc_MemoryError)) return -1;
        PyErr_Clear();
        Py_XDECREF(res);
        res = PyObject_CallNoArgs(by_card);
        if (!res) return -1;
        if (!PyDict_Check(res)) {
            Py_DECREF(res);
            PyErr_SetString(PyExc_TypeError, "_dp.exact_list: by_card() must return a dict");
            return -1;
        }
    }
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    rc = 0;
    while (rc == 0 && PyDict_Next(res, &pos, &key, &val)) {
        long card = PyLong_AsLong(key);
        if (card < 0 || card >= NT) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_dp.exact_list: a by-card key is not a card");
            rc = -1;
            break;
        }
        if (PyTuple_Check(val)) { /* the pass's (value, counts, melds) */
            memcpy(by[card], tuple_counts(val), sizeof by[card]);
        } else { /* by_card()'s counts */
            long long v[NT];
            if (read_vec(val, v, "by-card play") < 0) { rc = -1; break; }
            for (int c = 0; c < NT; c++) by[card][c] = v[c];
        }
        has[card] = 1;
    }
    Py_DECREF(res);
    return rc;
}

/* exact_list(table, hand, points, ace, mjpm, decks, jokers, limit, short_types, race, by_card, best_points,
 *            feasible) -> list of bytearrays: legal.py's exact list of an opened player without help cards
 * (_legal_plays with no budget), in its order. by_card() -> {card: counts} (the oracle's whole per-card
 * schedule, asked when the extension's pass does not answer); best_points(hi) -> counts | None (the
 * max-points play over [table, hi], None when it plays nothing); feasible(lo, hi) as for enumerate_plays */
static PyObject *py_exact_list(PyObject *self, PyObject *args) {
    PyObject *ot, *oh, *opts, *by_card, *best_points, *feasible;
    int ace, mjpm, decks, jokers, limit, short_types, race;
    if (!PyArg_ParseTuple(args, "OOOiiiiiiiOOO", &ot, &oh, &opts, &ace, &mjpm, &decks, &jokers, &limit, &short_types,
                          &race, &by_card, &best_points, &feasible))
        return NULL;
    if (!PyCallable_Check(by_card) || !PyCallable_Check(best_points) || !PyCallable_Check(feasible)) {
        PyErr_SetString(PyExc_TypeError, "_dp.exact_list: by_card, best_points and feasible must be callable");
        return NULL;
    }
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "_dp.exact_list: limit must be at least 1");
        return NULL;
    }
    long long t[NT], h[NT], pts[NT];
    if (read_vec(ot, t, "table") < 0 || read_vec(oh, h, "hand") < 0 || read_vec(opts, pts, "points") < 0) return NULL;
    int held = 0;
    for (int c = 0; c < NT; c++) {
        if (t[c] < 0 || h[c] < 0) {
            PyErr_SetString(PyExc_ValueError, "_dp.exact_list: negative counts");
            return NULL;
        }
        held += h[c] > 0;
    }
    if (!held) return PyList_New(0);
    PyObject *out = NULL;
    KeySet failed = {0};
    PlayList e;
    memset(&e, 0, sizeof e);
    int64_t (*plays)[NT] = NULL;
    int np_ = 0, npcap = 0;
    int64_t (*by)[NT] = NULL;
    if (held <= short_types) { /* every legal play, when there are at most `limit` of them */
        exact_pass_init(&e, t, h, ace, mjpm, decks, jokers, limit + 1, race, feasible, best_points, &failed);
        e.asked = 1;
        static const long long zero[NT];
        int stopped = enum_dfs(&e, 0, zero);
        if (stopped < 0) goto done;
        if (!stopped) {
            out = plays_ordered(e.found, e.found_n, pts);
            goto done;
        }
        PyMem_Free(e.found);
        PyMem_Free(e.g);
        e.found = NULL;
        e.g = NULL;
    }
    /* the per-card pass: for each playable type a max-cards play holding it; the first of the most
     * cards, in card order, is the max-cards play */
    by = PyMem_Calloc(NT, sizeof *by);
    if (!by) { PyErr_NoMemory(); goto done; }
    int has[NT] = {0};
    if (exact_list_by_card(t, h, ace, mjpm, decks, jokers, by_card, by, has) < 0) goto done;
    long long avail[NT] = {0};
    int root = -1;
    long long root_n = -1;
    for (int c = 0; c < NT; c++) {
        if (!has[c]) continue;
        avail[c] = h[c];
        long long n = 0;
        for (int d = 0; d < NT; d++) n += by[c][d];
        if (n > root_n) { root_n = n; root = c; }
    }
    if (root < 0) { out = PyList_New(0); goto done; }
    LpCerts kept = e.certs; /* the short pass's certificates, if it ran, hold here too (no larger boxes) */
    exact_pass_init(&e, t, avail, ace, mjpm, decks, jokers, limit, race, feasible, best_points, &failed);
    e.certs = kept;
    if (vec_push(&e.g, &e.g_n, &e.g_cap, by[root]) < 0) goto done;
    for (int c = 0; c < NT; c++)
        if (has[c] && !vec_in(e.g, e.g_n, by[c]) && vec_push(&e.g, &e.g_n, &e.g_cap, by[c]) < 0) goto done;
    long long wit[NT];
    for (int c = 0; c < NT; c++) wit[c] = by[root][c];
    int stopped = enum_enough(&e);
    if (stopped < 0) goto done;
    if (!stopped) stopped = enum_dfs(&e, 0, wit);
    if (stopped < 0) goto done;
    if (!stopped) { /* every legal play */
        out = plays_ordered(e.found, e.found_n, pts);
        goto done;
    }
    if (!e.asked && enum_ask_points(&e) < 0) goto done;
    /* the first `limit` distinct of: the max-cards play, the max-points play, the per-card plays in
     * card order, the pass's plays in the order found */
    if (vec_push(&plays, &np_, &npcap, e.g[0]) < 0) goto done;
    if (e.has_pts && np_ < limit && !vec_in(plays, np_, e.pts) && vec_push(&plays, &np_, &npcap, e.pts) < 0) goto done;
    for (int i = 1; i < e.g_n && np_ < limit; i++)
        if (!vec_in(plays, np_, e.g[i]) && vec_push(&plays, &np_, &npcap, e.g[i]) < 0) goto done;
    for (int i = 0; i < e.found_n && np_ < limit; i++)
        if (!vec_in(plays, np_, e.found[i]) && vec_push(&plays, &np_, &npcap, e.found[i]) < 0) goto done;
    out = plays_ordered(plays, np_, pts);
done:
    PyMem_Free(e.found);
    PyMem_Free(e.g);
    PyMem_Free(plays);
    PyMem_Free(by);
    keyset_free(&failed);
    return out;
}
