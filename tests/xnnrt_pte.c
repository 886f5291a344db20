/* xnnrt_pte.c - the XNNPACK delegate blobs inside tensorpack's programs run on the real XNNPACK.
   Each program is written and read back with tp_pte_read. Its delegate's blob, taken from its
   segment (and its named data from the program itself, as a .ptd made of the embedded
   entries), is loaded with tp_xnn_load, bound by the method's argument order (= external ids)
   and run: the blob in the segment is intact and the arguments are in the order the runtime
   indexes them. tp_xnn_load_pte runs the method with its named data embedded in the program,
   in a .ptd beside it, or both; tp_xnn_pte_missing_keys names what a program needs from a
   .ptd, and a program loaded without the .ptd it needs is refused with those keys
   (ExecuTorch's runtime crashes there). q/k/v linears from chunks of one in_proj_weight,
   checked against a double-precision reference. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

enum { E = 16, B = 3 };
static float g_w[3 * E * E], g_x[B * E + 8], g_y[3][B * E];

/* q/k/v: output i (external 1 + i) = x chunk(i)^T */
static tp_xnn_graph *qkv_graph(tp_store *store, tp_tensor *qkv) {
  int64_t sz[2] = {3 * E, E};
  tp_storage s;
  tp_tensor packed;
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  size_t xd[2] = {B, E}, yd[2] = {B, E};
  uint32_t x, w, y;
  int i;
  s.data = g_w;
  s.nbytes = sizeof g_w;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &packed), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  for (i = 0; i < 3; i++) {
    tp_chunk(&packed, 3, 0, i, &qkv[i]);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &qkv[i], TP_XNN_INVALID_ID, 0, &w);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, (uint32_t)(1 + i),
                               TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
    tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, TP_XNN_INVALID_ID, y, 0);
  }
  TPT_STATUS(tp_xnn_graph_status(g), TP_OK);
  return g;
}

/* the largest |y - x W^T| over the three outputs in g_y (a NaN counts as infinite) */
static double worst_error(const tp_tensor *qkv) {
  double worst = 0;
  int i, b, r, k;
  for (i = 0; i < 3; i++)
    for (b = 0; b < B; b++)
      for (r = 0; r < E; r++) {
        const float *wd = (const float *)qkv[i].storage.data;
        double acc = 0;
        for (k = 0; k < E; k++)
          acc += (double)g_x[b * E + k] * (double)wd[qkv[i].offset + r * qkv[i].strides[0] + k];
        if (!(fabs(acc - g_y[i][b * E + r]) <= worst)) worst = fabs(acc - g_y[i][b * E + r]);
      }
  return worst;
}

/* binds x and the three outputs, runs, returns the worst error (1e9 when it did not run) */
static double run(tp_xnn_runtime *rt, const tp_tensor *qkv) {
  int i;
  if (!rt) return 1e9;
  TPT_STATUS(tp_xnn_runtime_bind(rt, 0, g_x), TP_OK);
  for (i = 0; i < 3; i++) TPT_STATUS(tp_xnn_runtime_bind(rt, (uint32_t)(1 + i), g_y[i]), TP_OK);
  if (tp_xnn_runtime_invoke(rt) != TP_OK) return 1e9;
  return worst_error(qkv);
}

/* writes a program of method "forward" (embed: the store inside it) and, when store, the .ptd */
static void make(int named, int embed, tp_membuf *pte, tp_membuf *ptd, tp_tensor *qkv,
                 tp_xnn_graph **g_out, tp_store **st_out) {
  tp_store *st = NULL;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_sink sk;
  if (named) TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  *g_out = qkv_graph(st, qkv);
  memset(&o, 0, sizeof o);
  o.embed = embed ? st : NULL;
  TPT_STATUS(tp_pte_create(&o, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", *g_out), TP_OK);
  memset(pte, 0, sizeof *pte);
  memset(ptd, 0, sizeof *ptd);
  sk = tp_sink_membuf(pte);
  TPT_STATUS(tp_pte_write(p, &sk), TP_OK);
  if (st) {
    sk = tp_sink_membuf(ptd);
    TPT_STATUS(tp_store_write_ptd(st, &sk), TP_OK);
  }
  tp_pte_destroy(p);
  *st_out = st;
}

static void init(void) {
  size_t i;
  for (i = 0; i < 3 * E * E; i++) g_w[i] = (float)sin(0.3 * (double)i);
  for (i = 0; i < B * E; i++) g_x[i] = (float)cos(0.7 * (double)i);
}

/* A .ptd holding the program's named data (so tp_xnn_load can resolve the blob's keys). */
static void ptd_from_program(tp_pte_file *f, tp_membuf *ptd) {
  tp_store *st = NULL;
  tp_sink s;
  size_t i;
  tp_store_create(NULL, &st);
  for (i = 0; i < f->n_named; i++) {
    const char *key;
    uint32_t si;
    const void *data;
    uint64_t n;
    TPT_STATUS(tp_pte_named_at(f, i, &key, &si, &data, &n), TP_OK);
    TPT_STATUS(tp_store_add_bytes(st, key, data, (size_t)n, 16, 0, NULL), TP_OK);
  }
  memset(ptd, 0, sizeof *ptd);
  s = tp_sink_membuf(ptd);
  TPT_STATUS(tp_store_write_ptd(st, &s), TP_OK);
  tp_store_destroy(st);
}

static void run_program(int named) {
  tp_store *st;
  tp_tensor qkv[3];
  tp_xnn_graph *g;
  tp_membuf mb, ptd, own;
  tp_pte_file f;
  tp_pte_delegate_info di;
  tp_pte_method_info mi;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  size_t v, i;
  double worst;

  for (i = 0; i < 3 * E * E; i++) g_w[i] = (float)((double)(tpt_rand() >> 11) / 9.0e15 - 0.5);
  for (i = 0; i < B * E; i++) g_x[i] = (float)((double)(tpt_rand() >> 11) / 9.0e15 - 0.5);
  make(named, 1, &mb, &own, qkv, &g, &st);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_INT(mi.n_values, 4);
  TPT_EQ_INT(f.n_named, named ? 3 : 0);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  memset(&ptd, 0, sizeof ptd);
  if (named) ptd_from_program(&f, &ptd);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(di.data, (size_t)di.nbytes, ptd.data, ptd.size, 0, &rt, &e), TP_OK);
  if (rt) {
    /* argument v of the delegate call is external id v (the method's values in call order) */
    TPT_EQ_U64(tp_xnn_runtime_num_externs(rt), mi.n_values);
    for (v = 0; v < mi.n_values; v++) {
      tp_pte_value_info vi;
      TPT_STATUS(tp_pte_value_at(&f, 0, v, &vi), TP_OK);
      TPT_EQ_U64(vi.nbytes, B * E * 4);
      TPT_STATUS(tp_xnn_runtime_bind(rt, (uint32_t)v, v == 0 ? (void *)g_x : (void *)g_y[v - 1]),
                 TP_OK);
    }
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    worst = worst_error(qkv);
    TPT_CHECK(worst < 1e-5);
    printf("  %s: q/k/v from the program's segment%s: max error %.2g\n",
           named ? "named" : "inline", named ? " and its named data" : "", worst);
  } else {
    printf("  load: %s\n", e.msg);
  }
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&mb);
  tp_membuf_free(&ptd);
  tp_membuf_free(&own);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

static void test_inline_program(void) { run_program(0); }
static void test_named_program(void) { run_program(1); }

static void test_embedded_and_inline(void) {
  init();
  int named;
  for (named = 0; named < 2; named++) {
    tp_membuf pte, ptd;
    tp_tensor qkv[3];
    tp_xnn_graph *g;
    tp_store *st;
    tp_xnn_runtime *rt = NULL;
    tp_pte_file f;
    tp_error e;
    size_t n = 99;
    double w;
    make(named, 1, &pte, &ptd, qkv, &g, &st);
    TPT_STATUS(tp_pte_read(&f, pte.data, pte.size), TP_OK);
    TPT_EQ_U64(f.n_named, named ? 3 : 0);
    TPT_STATUS(tp_xnn_pte_missing_keys(&f, (size_t)-1, NULL, NULL, 0, &n, &e), TP_OK);
    TPT_EQ_U64(n, 0); /* all embedded (or inline) */
    TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e), TP_OK);
    w = run(rt, qkv);
    printf("  %s program, no .ptd: max error %.2g\n", named ? "embedded named data" : "inline",
           w);
    TPT_CHECK(w < 1e-5);
    tp_xnn_runtime_destroy(rt);
    /* the same .ptd beside it too: the same bytes under the same keys, accepted */
    if (named) {
      rt = NULL;
      TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", ptd.data, ptd.size, 0, &rt, &e),
                 TP_OK);
      TPT_CHECK(run(rt, qkv) < 1e-5);
      tp_xnn_runtime_destroy(rt);
    }
    tp_membuf_free(&pte);
    tp_membuf_free(&ptd);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(st);
  }
}

static void test_external_ptd(void) {
  tp_membuf pte, ptd;
  tp_tensor qkv[3];
  tp_xnn_graph *g;
  tp_store *st;
  tp_xnn_runtime *rt = NULL;
  tp_pte_file f;
  tp_ptd p;
  tp_error e;
  const char *keys[2];
  size_t n = 0;
  double w;
  make(1, 0, &pte, &ptd, qkv, &g, &st);
  TPT_STATUS(tp_pte_read(&f, pte.data, pte.size), TP_OK);
  TPT_EQ_U64(f.n_named, 0);
  /* what the program needs from a .ptd: the three weights' keys (cap 2: two listed) */
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 0, NULL, keys, 2, &n, &e), TP_OK);
  TPT_EQ_U64(n, 3);
  if (n >= 2) {
    TPT_EQ_INT((int)strlen(keys[0]), 64);
    TPT_CHECK(strcmp(keys[0], keys[1]) != 0);
  }
  TPT_STATUS(tp_ptd_open(&p, ptd.data, ptd.size), TP_OK);
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 0, &p, keys, 2, &n, &e), TP_OK);
  TPT_EQ_U64(n, 0);
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 1, NULL, keys, 2, &n, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "method 1 of a program with 1");
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 0, NULL, keys, 2, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_pte_missing_keys: count is NULL");
  /* without the .ptd: refused, naming the keys */
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e), TP_ERR_INVALID);
  TPT_CHECK(rt == NULL);
  TPT_CONTAINS(e.msg, "method \"forward\" needs a .ptd with these keys (3, not in the "
                      "program's named data; no .ptd given): \"");
  TPT_CONTAINS(e.msg, "\", ...");
  /* with it: runs */
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", ptd.data, ptd.size, 0, &rt, &e),
             TP_OK);
  w = run(rt, qkv);
  printf("  program + external .ptd: max error %.2g\n", w);
  TPT_CHECK(w < 1e-5);
  tp_xnn_runtime_destroy(rt);
  /* other refusals */
  rt = NULL;
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "fwd", ptd.data, ptd.size, 0, &rt, &e),
             TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "the program has no method \"fwd\" (it has 1: \"forward\")");
  TPT_STATUS(tp_xnn_load_pte(pte.data, 40, "forward", NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, ".pte: ");
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", pte.data, pte.size, 0, &rt, &e),
             TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, ".ptd: ");
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, NULL, NULL, 0, 0, &rt, &e), TP_ERR_INVALID);
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, NULL, &e), TP_ERR_INVALID);
  tp_membuf_free(&pte);
  tp_membuf_free(&ptd);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_inline_program);
  TPT_RUN(test_named_program);
  TPT_RUN(test_embedded_and_inline); /* these two on init()'s weights and input */
  TPT_RUN(test_external_ptd);
  return tpt_finish("xnnrt_pte");
}
