/* bycard.c: The best play containing each card: the forward graph's backward pass, or one search per card
 * when the graph is over budget; results go into a Python dict.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
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

static int g_bycard_lp = 1; /* set_params(bycard_lp=): the per-card searches ask the refuters first (0: never) */
static unsigned long long bycard_refuted = 0; /* per-card searches a refuter spared */

/* Does no x in q's box partition into melds (shown without the search)? The count of melds each
 * card needs (box_support_refutes), the certificates of the pass's earlier refutations (every
 * per-card box has the same upper bounds, so each holds), then the LP relaxation. 1 refuted, 0
 * not shown, -1 out of memory. */
static int by_card_refuted(const Query *q, LpCerts *K) {
    int l[NT], h[NT];
    for (int c = 0; c < NT; c++) {
        l[c] = q->lo[c];
        h[c] = q->hi[c];
    }
    if (box_support_refutes(l, h) || lp_certs_refute(K, l, h)) return 1;
    LpSlot *L = lp_slot(q->ace, q->mjpm, q->jokers);
    if (!L) return -1;
    const int r = lp_run(L, l, h, NULL, NULL, NULL);
    if (r < 0) return -1;
    if (r == 1) lp_certs_keep(K, h);
    return r == 1;
}

/* large positions: one exact search for the best play, then one per card that no play found so
 * far holds at the overall optimum. No play holding a card can beat the overall optimum, so each
 * per-card search first asks for that value (Query.cap), and a play reaching it is the answer for
 * every card it holds. A card whose box the refuters show holds no partition is in no play: its
 * search, which would find none, is not run (the answers are the same). */
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
    LpCerts certs;
    certs.n = certs.next = 0;
    for (int c = 0; c < NT && rc == 1; c++) {
        if (q->hi[c] <= q->lo[c]) continue;
        PyObject *t = at[c];
        if (t) {
            Py_INCREF(t);
        } else {
            Query q2 = *q;
            q2.lo[c]++;
            q2.usig_gen = 0; /* its bounds differ: the relaxation's signatures too */
            if (c == JOKER) { q2.loJ++; q2.base += q->wJ; }
            else q2.base += q->w[c];
            q2.cap = value;
            if (g_bycard_lp && !g_cap_at) {
                const int gone = by_card_refuted(&q2, &certs);
                if (gone < 0) { rc = -4; PyErr_NoMemory(); break; }
                if (gone) {
                    bycard_refuted++;
                    continue;
                }
            }
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

/* by_card(lo, hi, w, ace, mjpm, need_group, min_open, decks, jokers, melds[, cap]): cap > 0 gives
 * up after that much work (forward entries and expansions), answering 5 */
static PyObject *by_card_answer(Query *q, int rc, int want_melds, int cap);
static PyObject *py_by_card(PyObject *self, PyObject *args) {
    Query *q = &g_query;
    int extra[2] = {1, 0};
    int rc = parse_query(args, q, extra, PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 11 ? 2 : 1);
    if (rc < 0) return NULL;
    return by_card_answer(q, rc, extra[0], extra[1]);
}

/* py_by_card's answer to the query q that setup_query gave rc */
static PyObject *by_card_answer(Query *q, int rc, int want_melds, int cap) {
    PyObject *res = NULL, *out = NULL;
    if (cap < 0) { PyErr_SetString(PyExc_ValueError, "_dp.by_card: cap must be >= 0"); goto done; }
    g_cap_at = rc == 0 && cap > 0 ? g_work + (unsigned long long)cap : 0;
    g_charge_relax = g_cap_at != 0 && g_charge_mode;
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
    if (r == -6) { res = PyLong_FromLong(5); goto done; } /* over the work cap */
    if (r == -4) goto done;
    if (r < 0) { set_err(r); goto done; }
    res = out;
    out = NULL;
done:
    g_cap_at = 0;
    g_charge_relax = 0;
    Py_XDECREF(out);
    return res;
}

/* melds(encoded) -> list of melds (lists of card types), from the compact form of add_meld */
