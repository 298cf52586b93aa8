/* Observation encoding in C: fills the float32 observation vector of one player from the engine
 * state's arrays, exactly as documented in machiavelli_env/observation.py (same layout, same
 * float32 values: every product and quotient is taken in double, then rounded to float32, as
 * numpy does for int64 with float32 or a Python float).
 *
 * encode(out, hands, known, last_play, table, help, pack, norm, template, opened, last_action,
 *        scores, player, match_target, stock, pack_size, passes, turn, max_turns, draw_allowed)
 *
 *   out          float32 (869,), written in full
 *   hands, known, last_play   int64 (n, 53), n = 2..6 players
 *   table, help, pack         int64 (53,)
 *   norm         float32 (53,): 1 / copies of each card type in the pack
 *   template     float32 (74,): the scalars that do not change within a game (seat present,
 *                rules features), copied first
 *   opened       bool (n,); last_action int8 (n,); scores int64 (n,)
 *   player, match_target, stock (cards in the stock), passes, turn, max_turns: integers;
 *   pack_size: float; draw_allowed: bool
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NT 53
#define NUM_PLANES 15
#define PLANES_SIZE (NUM_PLANES * NT)
#define NUM_SCALARS 74
#define OBS_SIZE (PLANES_SIZE + NUM_SCALARS)
#define MAX_PLAYERS 6

/* a C-contiguous buffer of `count` items of one kind ('q' int64, 'f' float32, '?' bool, 'b' int8) */
static int get_buf(PyObject *obj, Py_buffer *b, char kind, Py_ssize_t count, int writable, const char *name) {
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *f = b->format ? b->format : "B";
    size_t fl = strlen(f);
    char code = fl ? f[fl - 1] : 'B';
    Py_ssize_t want = kind == 'q' ? 8 : kind == 'f' ? 4 : 1;
    int ok = b->itemsize == want && b->len == count * want;
    if (kind == 'q') ok = ok && (code == 'q' || code == 'l');
    else if (kind == 'f') ok = ok && code == 'f';
    else if (kind == '?') ok = ok && code == '?';
    else ok = ok && code == 'b';
    if (!ok) {
        PyBuffer_Release(b);
        PyErr_Format(PyExc_ValueError, "_obs.encode: %s must be %zd %s", name, count,
                     kind == 'q' ? "int64" : kind == 'f' ? "float32" : kind == '?' ? "bool" : "int8");
        return -1;
    }
    return 0;
}

static PyObject *py_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 20) {
        PyErr_Format(PyExc_TypeError, "_obs.encode takes 20 arguments, got %zd", nargs);
        return NULL;
    }
    long ints[6]; /* player, match_target, stock, passes, turn, max_turns */
    static const int int_pos[6] = {12, 13, 14, 16, 17, 18};
    for (int i = 0; i < 6; i++) {
        ints[i] = PyLong_AsLong(args[int_pos[i]]);
        if (ints[i] == -1 && PyErr_Occurred()) return NULL;
    }
    double pack_size = PyFloat_AsDouble(args[15]);
    if (pack_size == -1.0 && PyErr_Occurred()) return NULL;
    int draw_allowed = PyObject_IsTrue(args[19]);
    if (draw_allowed < 0) return NULL;
    long player = ints[0], match_target = ints[1], stock = ints[2], passes = ints[3], turn = ints[4],
         max_turns = ints[5];

    Py_ssize_t n = PyObject_Length(args[9]); /* players: the length of `opened` (every size is checked below) */
    if (n < 0) return NULL;
    if (n < 2 || n > MAX_PLAYERS || player < 0 || player >= n || max_turns <= 0 || pack_size <= 0) {
        PyErr_SetString(PyExc_ValueError, "_obs.encode: bad player count, player, max_turns or pack_size");
        return NULL;
    }

    static const char *names[12] = {"out", "hands", "known", "last_play", "table", "help", "pack", "norm",
                                    "template", "opened", "last_action", "scores"};
    const char kinds[12] = {'f', 'q', 'q', 'q', 'q', 'q', 'q', 'f', 'f', '?', 'b', 'q'};
    const Py_ssize_t counts[12] = {OBS_SIZE, n * NT, n * NT, n * NT, NT, NT, NT, NT, NUM_SCALARS, n, n, n};
    Py_buffer b[12];
    int got = 0;
    for (; got < 12; got++)
        if (get_buf(args[got], &b[got], kinds[got], counts[got], got == 0, names[got]) < 0) break;
    if (got < 12) {
        for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
        return NULL;
    }
    float *out = b[0].buf;
    const int64_t *hands = b[1].buf, *known = b[2].buf, *last = b[3].buf, *table = b[4].buf, *help = b[5].buf,
                  *pack = b[6].buf, *scores = b[11].buf;
    const float *norm = b[7].buf, *tmpl = b[8].buf;
    const uint8_t *opened = b[9].buf;
    const int8_t *last_action = b[10].buf;

    int seats[MAX_PLAYERS]; /* the observer, then the opponents in turn order */
    for (int k = 0; k < n; k++) seats[k] = (int)((player + k) % n);

    /* card planes: count * norm, in double, rounded to float32 */
    const int64_t *plane[NUM_PLANES];
    memset(plane, 0, sizeof plane);
    plane[0] = hands + seats[0] * NT;
    plane[1] = table;
    plane[2] = help;
    plane[4] = last + seats[0] * NT;
    for (int k = 1; k < n; k++) {
        plane[4 + k] = known + seats[k] * NT;
        plane[9 + k] = last + seats[k] * NT;
    }
    for (int i = 0; i < NUM_PLANES; i++) {
        float *o = out + i * NT;
        if (i == 3) { /* unseen: the pack minus own hand, table, help pile and the opponents' known cards */
            for (int c = 0; c < NT; c++) {
                int64_t u = pack[c] - plane[0][c] - table[c] - help[c];
                for (int k = 1; k < n; k++) u -= plane[4 + k][c];
                o[c] = (float)((double)u * (double)norm[c]);
            }
        } else if (plane[i]) {
            for (int c = 0; c < NT; c++) o[c] = (float)((double)plane[i][c] * (double)norm[c]);
        } else {
            memset(o, 0, NT * sizeof(float));
        }
    }

    /* scalars */
    float *sc = out + PLANES_SIZE;
    memcpy(sc, tmpl, NUM_SCALARS * sizeof(float));
    for (int k = 0; k < n; k++) {
        const int64_t *h = hands + seats[k] * NT;
        int64_t size = 0;
        for (int c = 0; c < NT; c++) size += h[c];
        sc[k] = (float)((double)size / pack_size);
        sc[12 + k] = opened[seats[k]] ? 1.0f : 0.0f;
        int code = last_action[seats[k]];
        if (code > 0 && code <= 4) sc[18 + 4 * k + code - 1] = 1.0f;
        if (match_target > 0) {
            double m = (double)scores[seats[k]] / (double)match_target;
            sc[42 + k] = (float)(m < 1.0 ? m : 1.0);
        }
    }
    sc[48] = (float)((double)stock / pack_size);
    double pa = (double)passes / (double)n, tu = (double)turn / (double)max_turns;
    sc[49] = (float)(pa < 1.0 ? pa : 1.0);
    sc[50] = (float)(tu < 1.0 ? tu : 1.0);
    sc[51] = draw_allowed ? 1.0f : 0.0f;

    for (int i = 0; i < 12; i++) PyBuffer_Release(&b[i]);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))py_encode, METH_FASTCALL,
     "encode(out, hands, known, last_play, table, help, pack, norm, template, opened, last_action, scores, "
     "player, match_target, stock, pack_size, passes, turn, max_turns, draw_allowed): fill the float32 "
     "observation vector `out` (layout: machiavelli_env.observation)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_obs", "Observation encoding (C).", -1, methods};

PyMODINIT_FUNC PyInit__obs(void) { return PyModule_Create(&moddef); }
