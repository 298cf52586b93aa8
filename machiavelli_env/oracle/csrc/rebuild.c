/* rebuild.c: Reconstruction: a path of transitions replayed into melds, in the compact encoding the bindings
 * turn into lists of cards.
 * Compiled as part of ../_dp.c (one translation unit, so static functions inline across files). */
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
