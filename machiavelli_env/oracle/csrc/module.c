/* module.c: The module's remaining functions (melds decoding, statistics, parameters, cache clearing), its
 * method table and initialisation.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
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
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:l,s:l,s:l,s:l,s:i,s:i,s:n,s:n,s:n,s:n,s:n,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "lp_calls", lp_calls, "lp_iterations",
                         lp_iters, "lp_refuted", lp_refuted, "lp_points", lp_points, "lp_narrowed", lp_narrowed, "last_probe", probe_exp, "last_states",
                         last_states, "last_pruned", last_pruned, "last_nodes", last_nodes, "last_method", last_method,
                         "last_mirrored", last_mirrored, "last_memo_entries", (Py_ssize_t)me_n,
                         "last_relaxation_entries", (Py_ssize_t)(us_n + up_n), "suit_states", (Py_ssize_t)ss_n,
                         "cached_lists", (Py_ssize_t)tc_n, "transitions", (Py_ssize_t)tr_n, "lp_cert_reused", lp_cert_reused, "best_recalled", best_recalled, "lp_dives", lp_dives, "lp_dives_found", lp_dives_found, "lp_branch_calls", lp_branch_calls, "lp_branch_refuted", lp_branch_refuted, "lp_capped", lp_capped, "list_questions", enum_questions, "list_by_lp", enum_by_lp, "list_to_python", enum_to_python, "lp_kept_refuted", lp_kept_refuted, "list_by_support", enum_by_support, "by_card_refuted", bycard_refuted);
}

static PyObject *py_work(PyObject *self, PyObject *args) {
    return PyLong_FromUnsignedLongLong(g_work);
}

static PyObject *py_set_params(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"prune", "budget", "force", "memo_limit", "tie", "probe", "budget2", "norm", "alive",
                            "usj", "crowd", "full", "jcrowd", "race", "repack_full", "mirror_probe", "jsplit", "gjc", "fprobe", "fjokers", "rise", "rise_probe", "keep_dead", "rise_max", "lp_narrow", "lp_race", "lp_rise", "recall", "grow", "lp_dive", "lp_branch", "lp_cap", "lp_cap_race", "repack_race", "kept_certs", "support", "bycard_lp", NULL};
    int on = g_prune, force = g_force, tie = g_tie, norm = g_norm, usj = g_usj, race = g_race,
        mirror_probe = g_mirror_probe, jsplit = g_jsplit, gjc = g_gjc, rise = g_rise, keep_dead = g_keep_dead,
        lp_rise = g_lp_rise, recall = g_best_recall;
    long budget = g_budget, memo = g_memo_limit, probe = g_probe, budget2 = g_budget2, alive = g_alive,
         crowd = g_crowd, full = g_full, jcrowd = g_jcrowd, repack_full = g_repack_full, fprobe = g_fprobe;
    int fjokers = g_fjokers;
    long rise_probe = g_rise_probe, rise_max = g_rise_max;
    long lp_narrow = g_lp_narrow, lp_race = g_lp_race, grow = g_grow, lp_dive = g_lp_dive, lp_branch = g_lp_branch, lp_cap = g_lp_cap, lp_cap_race = g_lp_cap_race, repack_race = g_repack_race;
    int kept_certs = g_kept_certs, support = g_support, bycard_lp = g_bycard_lp;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|plilillplplllplpppliplplllppll" "llllppp", names, &on, &budget, &force, &memo, &tie, &probe,
                                     &budget2, &norm, &alive, &usj, &crowd, &full, &jcrowd, &race, &repack_full,
                                     &mirror_probe, &jsplit, &gjc, &fprobe, &fjokers, &rise, &rise_probe, &keep_dead, &rise_max, &lp_narrow, &lp_race, &lp_rise, &recall, &grow, &lp_dive, &lp_branch, &lp_cap, &lp_cap_race, &repack_race, &kept_certs, &support, &bycard_lp))
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
    g_jsplit = jsplit;
    g_gjc = gjc;
    g_fprobe = fprobe;
    g_fjokers = fjokers;
    g_rise = rise;
    g_rise_probe = rise_probe;
    g_keep_dead = keep_dead;
    g_rise_max = rise_max;
    g_lp_narrow = lp_narrow;
    g_lp_race = lp_race;
    g_lp_rise = lp_rise;
    g_best_recall = recall;
    g_grow = grow < 2 ? 2 : grow;
    g_lp_dive = lp_dive;
    g_lp_branch = lp_branch;
    g_lp_cap = lp_cap;
    g_lp_cap_race = lp_cap_race;
    g_repack_race = repack_race < 0 ? 0 : repack_race;
    g_kept_certs = kept_certs;
    g_support = support;
    g_bycard_lp = bycard_lp;
    up_clear(1); /* vectors kept under the old settings */
    return Py_BuildValue("{s:i,s:l,s:i,s:l,s:i,s:l,s:l,s:i,s:l,s:i,s:l,s:l,s:l,s:i,s:l,s:i,s:i,s:i,s:l,s:i,s:i,s:l,s:i,s:l,s:l,s:l,s:i,s:i,s:l,s:l,s:l,s:l,s:l,s:l,s:i,s:i,s:i}", "prune", g_prune, "budget", g_budget,
                         "force", g_force, "memo_limit", g_memo_limit, "tie", g_tie, "probe", g_probe, "budget2",
                         g_budget2, "norm", g_norm, "alive", g_alive, "usj", g_usj, "crowd", g_crowd, "full", g_full,
                         "jcrowd", g_jcrowd, "race", g_race, "repack_full", g_repack_full,
                         "mirror_probe", g_mirror_probe, "jsplit", g_jsplit, "gjc", g_gjc, "fprobe", g_fprobe, "fjokers", g_fjokers,
                         "rise", g_rise, "rise_probe", g_rise_probe, "keep_dead", g_keep_dead, "rise_max", g_rise_max, "lp_narrow", g_lp_narrow, "lp_race", g_lp_race, "lp_rise", g_lp_rise, "recall", g_best_recall, "grow", g_grow, "lp_dive", g_lp_dive, "lp_branch", g_lp_branch, "lp_cap", g_lp_cap, "lp_cap_race", g_lp_cap_race, "repack_race", g_repack_race, "kept_certs", g_kept_certs, "support", g_support, "bycard_lp", g_bycard_lp);
}

static PyObject *py_clear(PyObject *self, PyObject *args) {
    reset_caches();
    memo_reset();
    memset(best_recs, 0, sizeof best_recs); /* best_play's last answers */
    Py_RETURN_NONE;
}

/* charge_relaxation(on[, fresh]): whether the capped questions that follow count the per-suit
 * relaxation in their work (see g_charge_mode); fresh drops the relaxation vectors kept from earlier
 * questions first (the signatures too when over half their limit, so that a sequence of capped
 * questions begun here never sees them dropped midway) */
static PyObject *py_charge_relaxation(PyObject *self, PyObject *args) {
    int on, fresh = 0;
    if (!PyArg_ParseTuple(args, "p|p", &on, &fresh)) return NULL;
    g_charge_mode = on;
    if (fresh) up_clear(sig_n > SIG_MAX / 2);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(lo, hi, weights, ace, max_jokers_per_meld, need_group, min_open_points, decks, jokers[, cap[, melds]]) "
     "-> None | (value, counts, melds) | error code (1 lo > hi, 2 over the pack, 3 negative, 5 over the work cap "
     "cap > 0); counts: x - lo as "
     "53 int64 in a bytearray; melds: encoded, see melds(), or None when melds is 0"},
    {"best", py_best, METH_VARARGS,
     "best(table, hand, weights, ace, max_jokers_per_meld, decks, jokers): solve with lo = table, "
     "hi = table + hand"},
    {"by_card", py_by_card, METH_VARARGS,
     "by_card(lo, hi, weights, ace, max_jokers_per_meld, need_group, min_open_points, decks, jokers, "
     "want_melds[, cap]) -> None | {card: (value, counts, melds | None)} | error code (5 over the work cap "
     "cap > 0)"},
    {"order_plays", py_order_plays, METH_VARARGS,
     "order_plays(plays, points) -> list: the plays (53-count vectors) most cards first, then most points "
     "(points . x), then more copies of lower card types first; equal ones keep their order"},
    {"exact_list", py_exact_list, METH_VARARGS,
     "exact_list(table, hand, points, ace, mjpm, decks, jokers, limit, short_types, race, by_card, best_points, "
     "feasible) -> list of bytearrays: an exact legal-play list (no help cards, no opening) in its order"},
    {"enumerate_plays", py_enumerate_plays, METH_VARARGS,
     "enumerate_plays(base, avail, hand, types, witness, ace, max_jokers_per_meld, need_group, min_open_points, "
     "decks, jokers, max_nodes, question_work, left, fresh, limit, asked, guaranteed, points) -> (found, stopped, "
     "gave_up, left, fresh): the depth-first pass of a bounded legal-play list (legal.py), its branch questions "
     "capped as feasible_within caps them; hand: None, or the hand when avail holds help cards (their copies must "
     "lie in groups); points(left, fresh) -> (counts | None, left, fresh) asks the max-points entry"},
    {"lp_refute", py_lp_refute, METH_VARARGS,
     "lp_refute(lo, hi, ace, max_jokers_per_meld, jokers[, want_point, decks]) -> True when the LP relaxation "
     "of the meld programme has no point with lo <= x <= hi (a Farkas certificate checked in integers), else "
     "False, or with want_point the counts x - lo (53 int64 in a bytearray) of a partition read off its point: "
     "its whole melds (floor(y)) and a repack of at most LP_REST_WORK expansions of the cards they leave"},

    {"lp_branch_refute", py_lp_branch_refute, METH_VARARGS,
     "lp_branch_refute(lo, hi, ace, max_jokers_per_meld, jokers, relaxations) -> True when group branching on the "
     "LP relaxation refutes the box [lo, hi] within that many relaxations (a proof, checked in integers)"},
    {"lp_whole", py_lp_whole, METH_VARARGS,
     "lp_whole(x, ace, max_jokers_per_meld, jokers) -> the melds (indices into lp_melds' list, each as often as "
     "floor(y)) that the LP relaxation's point for the box [x, x] takes whole, from the basis of x's own box; "
     "None when it has no point"},
    {"lp_arrange", py_lp_arrange, METH_VARARGS,
     "lp_arrange(x, ace, max_jokers_per_meld, jokers, relaxations) -> an arrangement of x (indices into lp_melds' "
     "list) found by diving on the LP relaxation within that many relaxations, from the basis of x's own box; "
     "None when not found"},
    {"support_refutes", py_support_refutes, METH_VARARGS,
     "support_refutes(lo, hi) -> True when some card type of lo needs more melds than the box [lo, hi] could "
     "give it (no x in the box partitions into melds); False proves nothing"},
    {"lp_melds", py_lp_melds, METH_VARARGS,
     "lp_melds(ace, max_jokers_per_meld, jokers) -> bytes: the LP refuter's melds, 53 counts each"},
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
    {"work", py_work, METH_NOARGS,
     "work() -> the searches' work since the module loaded (forward entries, depth-first and probe expansions, "
     "and in capped questions the per-suit relaxation's vectors and transitions): a count for budgets that must "
     "not depend on timing"},
    {"clear_caches", py_clear, METH_NOARGS, "Drop the cached per-suit transitions."},
    {"charge_relaxation", py_charge_relaxation, METH_VARARGS,
     "charge_relaxation(on[, fresh]): whether the capped questions that follow count the per-suit relaxation's "
     "vectors and transitions in their work; fresh drops the relaxation vectors kept from earlier questions "
     "first, so that the work of the capped questions that follow depends on those questions alone."},
    {"set_params", (PyCFunction)(void (*)(void))py_set_params, METH_VARARGS | METH_KEYWORDS,
     "set_params(prune, budget, force, memo_limit, tie, probe, budget2) -> current settings. Testing and "
     "tuning knobs, every one optional: dominance pruning on/off; forward entries before the depth-first "
     "probe; force 0 automatic, 1 forward only, 2 depth-first only; depth-first memo limit; child order "
     "(4: most cards to groups first); probe expansions; second forward budget; and norm, alive, usj, crowd, "
     "full (expansions of the whole-hand probe, 0: off; force != 0 also skips it), jcrowd (the crowd threshold "
     "with jokers), race, repack_full (expansions of the repack probe, 0: off), mirror_probe (a whole-hand probe "
     "out of expansions tries the mirrored position next), jsplit, gjc, fprobe (the first level's depth-first "
     "expansions on a question with every weight 0 and at least fjokers jokers that may be added; 0: probe), "
     "fjokers, lp_dive (the relaxations a dive of lp_best_bound may ask; 0: no dive), lp_branch (the relaxations a group-branching refutation may ask; 0: none), lp_cap (the table size from which best_play bounds its optimum by the relaxation's; 0: never) lp_cap_race (the search's units before that bound is asked) and repack_race (the units repack's direct call searches before the general path answers; lp.set_race_work sets it)."},
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
    PyObject *m = PyModule_Create(&moddef);
    if (m && PyModule_AddIntConstant(m, "LP_REST_WORK", LP_REST_WORK) < 0) Py_CLEAR(m);
    return m;
}
