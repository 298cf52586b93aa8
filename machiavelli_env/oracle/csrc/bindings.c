/* bindings.c: Python bindings: reading count vectors, building results, the rules registry and the direct
 * entry points best_play() and repack() of the Python API call first.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
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
    q->rise = 0;
    q->cap_anywhere = 0;
    q->usig_gen = 0;
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
    q->feas = 1;
    for (int c = 0; c < NT; c++) q->feas &= w[c] == 0;
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
    const char *fmt = nextra >= 2 ? "OOOiiiiiiii" : nextra ? "OOOiiiiiii" : "OOOiiiiii";
    if (!PyArg_ParseTuple(args, fmt, &olo, &ohi, &ow, &ace, &mjpm, &need_group, &min_open, &decks, &jokers, &ex[0],
                          &ex[1]))
        return -1;
    for (int i = 0; i < nextra; i++) extra[i] = ex[i];
    long long lo[NT], hi[NT], w[NT];
    if (read_vec(olo, lo, "lo") < 0 || read_vec(ohi, hi, "hi") < 0 || read_vec(ow, w, "weights") < 0) return -1;
    return setup_query(q, lo, hi, w, ace, mjpm, need_group, min_open, decks, jokers);
}

/* the type result_tuple builds: NULL for a tuple; api.Play while py_best_play runs */
static PyTypeObject *g_result_type = NULL;

/* (value, counts, melds): counts = x - lo as 53 native int64 in a bytearray (writable for numpy);
 * melds (stolen) the encoded arrangement or None. A Play when best_play asked for one (see
 * g_result_type), else a plain tuple. */
static PyObject *answer_object(long value, const uint8_t *x, const uint8_t *lo, PyObject *melds) {
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, NT * sizeof(int64_t));
    PyObject *v = PyLong_FromLong(value);
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

/* the answer (answer_object) of the path of q */
static PyObject *result_tuple(const Query *q, long value, const int32_t *path, int J, int want_melds,
                              const uint8_t *lo, int mirrored) {
    uint8_t x[NT];
    PyObject *melds = NULL;
    if (replay(q, path, J, x, want_melds ? &melds : NULL, mirrored) < 0) return NULL;
    if (!want_melds) { melds = Py_None; Py_INCREF(melds); }
    return answer_object(value, x, lo, melds);
}

/* the counts (x - lo) of a result_tuple */
static inline const int64_t *tuple_counts(PyObject *t) {
    return (const int64_t *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(t, 1));
}

static Query g_query, g_mirror, g_rest; /* g_rest: a repack asked on the way (lp.c, arranged_play) */
static int lp_narrow(Query *q), lp_best_bound(Query *q), lp_narrow_applies(const Query *q), lp_objective_cap(Query *q),
    lp_cap_applies(const Query *q); /* lp.c */
static PyObject *py_melds(PyObject *self, PyObject *arg);

/* ------------------------------------------------------------------ tables known to be arrangeable
 * Count vectors that an answer proved to partition into melds (its x = lo + counts), per rules
 * arguments, in a small direct-mapped table. best_play(..., arrange=False) reads it when nothing
 * can be played (lp_narrow took every hand type out), so that a table arranged before need not be
 * arranged again to know that it can be: it skips a search whose answer is known, never changes one. */
#define ARR_SLOTS 256
typedef struct { uint8_t x[NT], rules[4], used; } Arranged;
static Arranged arr_cache[ARR_SLOTS];

static Arranged *arr_slot(const Query *q, const uint8_t *x) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)(q->ace * 64 + q->mjpm * 16 + q->decks * 8 + q->jokers);
    for (int c = 0; c < NT; c++) h = (h ^ x[c]) * 1099511628211ULL;
    return &arr_cache[(h ^ (h >> 29)) % ARR_SLOTS];
}
static int arr_same(const Arranged *a, const Query *q, const uint8_t *x) {
    return a->used && a->rules[0] == q->ace && a->rules[1] == q->mjpm && a->rules[2] == q->decks &&
           a->rules[3] == q->jokers && memcmp(a->x, x, NT) == 0;
}
static int arr_known(const Query *q, const uint8_t *x) { return arr_same(arr_slot(q, x), q, x); }
static void arr_note(const Query *q, const uint8_t *x) {
    Arranged *a = arr_slot(q, x);
    memcpy(a->x, x, NT);
    a->rules[0] = (uint8_t)q->ace;
    a->rules[1] = (uint8_t)q->mjpm;
    a->rules[2] = (uint8_t)q->decks;
    a->rules[3] = (uint8_t)q->jokers;
    a->used = 1;
}
/* note the x of an answer (value, counts over lo, melds) of q */
static void arr_note_answer(const Query *q, PyObject *res) {
    const int64_t *cnt = (const int64_t *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(res, 1));
    uint8_t x[NT];
    for (int c = 0; c < NT; c++) x[c] = (uint8_t)(q->lo[c] + cnt[c]);
    arr_note(q, x);
}

static PyObject *run_solve_melds(Query *q, int rc, int want_melds);
static PyObject *run_solve(Query *q, int rc) { return run_solve_melds(q, rc, 1); }

/* solve_query for a question set up in q, the last search's sizes counted afresh; *mirrored as there
 * (g_mirror then holds the query that answered) */
static int solve_counted(Query *q, int *mirrored, int32_t *value, int32_t *path, int *J) {
    last_states = last_pruned = last_nodes = 0;
    probe_exp = 0;
    int r = solve_query(q, &g_mirror, mirrored, value, path, J);
    if (r > 0) last_mirrored = *mirrored;
    return r;
}

static PyObject *run_solve_melds(Query *q, int rc, int want_melds) {
    PyObject *res = NULL;
    if (rc < 0) goto done;
    if (rc == 4) { res = Py_None; Py_INCREF(res); goto done; }
    if (rc > 0) { res = PyLong_FromLong(rc); goto done; }
    int32_t value, path[MAXST];
    int J;
    int mirrored;
    int r = solve_counted(q, &mirrored, &value, path, &J);
    if (r == -6) { res = PyLong_FromLong(5); goto done; } /* over the work cap */
    if (r < 0) { set_err(r); goto done; }
    if (r == 0) { res = Py_None; Py_INCREF(res); goto done; }
    res = result_tuple(mirrored ? &g_mirror : q, (long)value - q->base, path, J, want_melds, q->lo, mirrored);
done:
    return res;
}

/* solve(lo, hi, w, ace, mjpm, need_group, min_open, decks, jokers[, cap[, melds]]): cap > 0 gives up
 * after that much work (forward entries and expansions), answering 5; melds 0: no arrangement (None) */
static PyObject *py_solve(PyObject *self, PyObject *args) {
    const Py_ssize_t n = PyTuple_Check(args) ? PyTuple_GET_SIZE(args) : 0;
    int extra[2] = {0, 1};
    int rc = parse_query(args, &g_query, extra, n >= 11 ? 2 : n == 10);
    const int cap = extra[0];
    if (cap < 0) { PyErr_SetString(PyExc_ValueError, "_dp.solve: cap must be >= 0"); return NULL; }
    g_cap_at = rc == 0 && cap > 0 ? g_work + (unsigned long long)cap : 0;
    g_charge_relax = g_cap_at != 0 && g_charge_mode;
    PyObject *res = run_solve_melds(&g_query, rc, extra[1] != 0);
    g_cap_at = 0;
    g_charge_relax = 0;
    return res;
}

/* best(table, hand, w, ace, mjpm, decks, jokers): lo = table, hi = table + hand */
static PyObject *best_answer(Query *q, int arrange);

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
    int rc = setup_query(&g_query, lo, hi, w, ace, mjpm, 0, 0, decks, jokers);
    if (rc != 0) return run_solve(&g_query, rc);
    g_query.rise = g_rise;
    return best_answer(&g_query, 1);
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

/* an answer of q without an arrangement: (value, x - lo, None) with x = lo (nothing played) or
 * x = hi (everything) */
static PyObject *bare_play(const Query *q, int everything) {
    long value = 0;
    for (int c = 0; c < NT && everything; c++) value += (long)q->w[c] * (q->hi[c] - q->lo[c]);
    Py_INCREF(Py_None);
    return answer_object(value, everything ? q->hi : q->lo, q->lo, Py_None);
}

/* the play x = q->hi that lp_best_bound proved, with the arrangement of a repack of x (counts over
 * q->lo); NULL with an error set when that fails */
static PyObject *arranged_play(const Query *q) {
    long long x[NT], none[NT];
    uint8_t lo[NT];
    long value = 0;
    for (int c = 0; c < NT; c++) {
        x[c] = q->hi[c];
        none[c] = 0;
        lo[c] = q->lo[c];
        value += (long)q->w[c] * (q->hi[c] - q->lo[c]);
    }
    int rc = setup_query(&g_rest, x, x, none, q->ace, q->mjpm, 0, 0, q->decks, q->jokers);
    if (rc != 0) { if (rc > 0) PyErr_SetString(PyExc_RuntimeError, "_dp: a proven play out of range"); return NULL; }
    int32_t v, path[MAXST];
    int J, mirrored;
    int r = solve_query(&g_rest, &g_mirror, &mirrored, &v, path, &J);
    if (r < 0) { set_err(r); return NULL; }
    if (r == 0) { PyErr_SetString(PyExc_RuntimeError, "_dp: a proven play has no arrangement"); return NULL; }
    return result_tuple(mirrored ? &g_mirror : &g_rest, value, path, J, 1, lo, mirrored);
}

/* best_play's answer to q (set up, rise set): where the narrowing applies, the narrowing and the
 * relaxation's plays and bound (lp.c), then the search (rising, or asking for its bound first:
 * g_lp_rise). g_lp_race > 0 lets the search alone try first, for that many expansions. With 0
 * (2026-12-05 to 12-06) greedy self-play on the joker presets ran about 6% faster than with 300,
 * but every joker question on a table of 25 cards or more paid for the narrowing: on the shared
 * cases' 2-deck ace-low positions the median best_play went from 15-18 to 242 us warm (30 cases,
 * benchmarks/oracle.py --quick: 20x rummikub-solver instead of 147x). arrange false: no melds
 * (None), and a table known to be arrangeable (arr_known) with nothing left to play needs no
 * search. */
static long g_lp_race = 300;
static int g_lp_rise = 1;
/* units the search alone may spend on a question lp_cap_applies to before the relaxation's bound
 * is asked (0: asked at once). On the shared cases' best_play questions over tables of 40 cards or
 * more (252 of 513) the search needs at most 170 units for half of them and more than 2,000 for 38 */
static long g_lp_cap_race = 2000;
/* The search alone on q for at most `units` work (or up to a caller's lower cap, best_play's sixth
 * argument): 1 with its answer in *out (an error: NULL) when it settles q within them, which then
 * keeps the search's own answer; 0 with q as it was when it runs out of the count. */
static int search_first(Query *q, long units, int arrange, PyObject **out) {
    const Query saved = *q;
    const unsigned long long cap0 = g_cap_at;
    g_cap_at = g_work + (unsigned long long)units;
    if (cap0 && cap0 < g_cap_at) g_cap_at = cap0;
    PyObject *res = run_solve_melds(q, 0, arrange);
    g_cap_at = cap0;
    if (!res || !PyLong_Check(res)) {
        if (res && res != Py_None) arr_note_answer(q, res);
        *out = res;
        return 1;
    }
    Py_DECREF(res); /* 5: over the count */
    *q = saved;
    return 0;
}

static PyObject *best_answer(Query *q, int arrange) {
    PyObject *res;
    /* the search alone first, for at most g_lp_race expansions: what it settles so quickly keeps
     * the search's own answer, and no LP is asked */
    if (g_lp_race > 0 && lp_narrow_applies(q) && search_first(q, g_lp_race, arrange, &res)) return res;
    lp_narrow(q); /* it cannot fail on a query already set up */
    if (!arrange && is_repack(q) && arr_known(q, q->lo)) return bare_play(q, 0);
    if (lp_best_bound(q) == 1) {
        arr_note(q, q->hi);
        return arrange ? arranged_play(q) : bare_play(q, 1);
    }
    /* what the relaxation left open: the search rises from the value of playing nothing, or with
     * g_lp_rise 0 asks for its bound first (the narrowed box's, or lp_best_bound's cap). On
     * recorded greedy games of the joker presets neither was faster in time; asking for the bound
     * first did 7% more work and made the slowest question three times slower (a bound three
     * cards above the optimum, each refuted in turn) */
    if (!g_lp_rise && lp_narrow_applies(q)) q->rise = 0;
    if (lp_cap_applies(q)) {
        /* the relaxation's bound on the optimum (lp_objective_cap) for the questions the search
         * alone has not settled within g_lp_cap_race units: on the shared cases' tables of 40 or
         * more cards, asking it of every question tripled the median (20 to 52 µs) */
        if (g_lp_cap_race > 0 && search_first(q, g_lp_cap_race, arrange, &res)) return res;
        if (lp_objective_cap(q) < 0) { PyErr_NoMemory(); return NULL; }
    }
    res = run_solve_melds(q, 0, arrange);
    if (res && res != Py_None && PyTuple_Check(res)) arr_note_answer(q, res);
    return res;
}

/* ------------------------------------------------------------------ best_play's last answers
 * Incremental solving across the turns of a game: best_play's last BEST_RECS answers, each its box
 * [lo, hi], weight row and value (the optimum, w . (x - lo)). A later box [lo', hi'] inside a
 * recorded one holds only plays of that box, so its optimum is at most value - w . (lo' - lo). When
 * that is 0 or less and every card that may be added has a positive weight, no card can be played:
 * the only play of value 0 is playing nothing, so the answer (or None, when lo' cannot be arranged)
 * is the search's own, found without it. The usual case: a player's play was the answer to their
 * last question, and the others drew since; the table is then lo + that play, the hand what is
 * left, and a search would have to prove afresh that nothing more fits (on a crowded joker table
 * that can take half a second). Read only from best_play's questions; any other answer would be
 * the same, so what was asked before changes no answer, only how soon it comes. */
#define BEST_RECS 8
typedef struct {
    uint8_t lo[NT], hi[NT], rules[4];
    int wid, used;
    long value;
} BestRec;
static BestRec best_recs[BEST_RECS];
static int best_rec_next = 0;
static unsigned long long best_recalled = 0; /* questions best_recall settled */
static int g_best_recall = 1; /* 0: never (set_params(recall=0)) */

static int best_rules_same(const BestRec *r, const Query *q) {
    return r->rules[0] == q->ace && r->rules[1] == q->mjpm && r->rules[2] == q->decks && r->rules[3] == q->jokers;
}
/* 1 when a recorded answer proves that no card of q's box can be played (see above) */
static int best_recall(const Query *q, int wid) {
    if (!g_best_recall) return 0;
    for (int c = 0; c < NT; c++)
        if (q->hi[c] > q->lo[c] && q->w[c] <= 0) return 0;
    for (int i = 0; i < BEST_RECS; i++) {
        const BestRec *r = &best_recs[i];
        if (!r->used || r->wid != wid || !best_rules_same(r, q)) continue;
        long gain = 0;
        int inside = 1;
        for (int c = 0; c < NT && inside; c++) {
            inside = r->lo[c] <= q->lo[c] && q->hi[c] <= r->hi[c];
            gain += (long)q->w[c] * (q->lo[c] - r->lo[c]);
        }
        if (inside && gain >= r->value) return 1;
    }
    return 0;
}
static void best_record(const uint8_t *lo, const uint8_t *hi, const Query *q, int wid, PyObject *res) {
    if (!res || !PyTuple_Check(res)) return;
    long value = PyLong_AsLong(PyTuple_GET_ITEM(res, 0));
    if (value == -1 && PyErr_Occurred()) { PyErr_Clear(); return; }
    BestRec *r = &best_recs[best_rec_next];
    best_rec_next = (best_rec_next + 1) % BEST_RECS;
    memcpy(r->lo, lo, NT);
    memcpy(r->hi, hi, NT);
    r->rules[0] = (uint8_t)q->ace;
    r->rules[1] = (uint8_t)q->mjpm;
    r->rules[2] = (uint8_t)q->decks;
    r->rules[3] = (uint8_t)q->jokers;
    r->wid = wid;
    r->value = value;
    r->used = 1;
}
/* q's answer when best_recall holds: nothing played, on the table lo (None: lo cannot be arranged) */
static PyObject *nothing_played(Query *q, int arrange) {
    best_recalled++;
    if (!arrange && arr_known(q, q->lo)) return bare_play(q, 0);
    long long lo[NT], w[NT];
    for (int c = 0; c < NT; c++) { lo[c] = q->lo[c]; w[c] = q->w[c]; }
    const int rise = q->rise;
    int rc = setup_query(q, lo, lo, w, q->ace, q->mjpm, 0, 0, q->decks, q->jokers);
    q->rise = rise;
    PyObject *res = run_solve_melds(q, rc, arrange);
    if (res && res != Py_None && PyTuple_Check(res)) arr_note_answer(q, res);
    return res;
}

/* best_play(table, hand, rules, objective[, arrange[, cap]]) -> Play | None | NotImplemented (best_answer);
 * cap > 0: the whole schedule gives up after that much work (work(), with the per-suit relaxation
 * charged after charge_relaxation(1)), answering 5 */
static PyObject *py_best_play(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 4 || nargs > 6) Py_RETURN_NOTIMPLEMENTED;
    int oc = objective_code(args[3]);
    int arrange = nargs == 4 ? 1 : PyObject_IsTrue(args[4]);
    if (arrange < 0) return fast_or_general(NULL);
    long long cap = 0;
    if (nargs == 6) {
        cap = PyLong_AsLongLong(args[5]);
        if (cap == -1 && PyErr_Occurred()) return fast_or_general(NULL);
        if (cap < 0) Py_RETURN_NOTIMPLEMENTED;
    }
    RulesEntry ea, *e = &ea;
    long long lo[NT], hi[NT];
    if (oc < 0 || direct_args(args[0], args[1], args[2], "hand", e, lo, hi)) Py_RETURN_NOTIMPLEMENTED;
    Query *q = &g_query;
    int rc = setup_query(q, lo, hi, wv_tab[e->wid[oc]], e->ace, e->mjpm, 0, 0, e->decks, e->jokers);
    if (rc != 0) return fast_or_general(NULL);
    q->rise = g_rise;
    g_result_type = (PyTypeObject *)g_play_type;
    if (cap > 0) {
        g_cap_at = g_work + (unsigned long long)cap;
        g_charge_relax = g_charge_mode;
    }
    uint8_t lo0[NT], hi0[NT];
    memcpy(lo0, q->lo, NT);
    memcpy(hi0, q->hi, NT);
    const int wid = e->wid[oc];
    PyObject *res = best_recall(q, wid) ? nothing_played(q, arrange) : best_answer(q, arrange);
    best_record(lo0, hi0, q, wid, res);
    g_cap_at = 0;
    g_charge_relax = 0;
    g_result_type = NULL;
    return fast_or_general(res);
}

/* repack(table, play, rules) -> list of melds | None (no arrangement) | NotImplemented */
/* the units repack's direct call searches before it leaves the question to the general path
 * (pipeline.answer's exact box schedule: the same race, then the LP refuter and the stages before HiGHS), so
 * that both paths answer alike (lp.RACE_WORK, which lp.set_race_work sets here too; 0: no limit) */
static long g_repack_race = 300;
static PyObject *py_repack(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) Py_RETURN_NOTIMPLEMENTED;
    RulesEntry ea, *e = &ea;
    long long lo[NT], all[NT];
    if (direct_args(args[0], args[1], args[2], "play", e, lo, all)) Py_RETURN_NOTIMPLEMENTED;
    int rc = setup_query(&g_query, all, all, wv_tab[e->wid[0]], e->ace, e->mjpm, 0, 0, e->decks, e->jokers);
    if (rc != 0) return fast_or_general(NULL);
    const unsigned long long cap0 = g_cap_at;
    if (g_repack_race > 0) g_cap_at = g_work + (unsigned long long)g_repack_race;
    PyObject *res = run_solve(&g_query, 0);
    g_cap_at = cap0;
    if (res && PyLong_Check(res)) { Py_DECREF(res); Py_RETURN_NOTIMPLEMENTED; } /* 5: over the count */
    if (!res || res == Py_None) return fast_or_general(res);
    if (PyTuple_Check(res)) arr_note(&g_query, g_query.lo);
    PyObject *melds = py_melds(NULL, PyTuple_GET_ITEM(res, 2));
    Py_DECREF(res);
    return fast_or_general(melds);
}
