/* xnnrt_pte.c - the XNNPACK delegate blobs inside tensorpack's programs run on the real XNNPACK:
   each program is written, read back with tp_pte_read, its delegate's blob taken from its
   segment (and its named data from the program itself, as a .ptd made of the embedded
   entries), loaded with tp_xnn_load, bound by the method's argument order (= external ids) and
   run; the numbers are checked against a double-precision reference. Proves the blob in the
   segment is intact and the arguments are in the order the runtime indexes them. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

enum { E = 16, B = 3 };
static float g_in_proj[3 * E * E];
static float g_x[B * E + 8];

/* q/k/v linears from chunks of one in_proj_weight; output i has external id 1 + i. */
static tp_xnn_graph *qkv_graph(tp_store *store, tp_tensor *qkv) {
  int64_t sz[2] = {3 * E, E};
  tp_storage s;
  tp_tensor packed;
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  size_t xd[2] = {B, E}, yd[2] = {B, E};
  uint32_t x, w, y;
  int i;
  s.data = g_in_proj;
  s.nbytes = sizeof g_in_proj;
  tp_view(s, TP_F32, 2, sz, NULL, 0, &packed);
  memset(&o, 0, sizeof o);
  o.store = store;
  tp_xnn_graph_create(&o, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  for (i = 0; i < 3; i++) {
    tp_chunk(&packed, 3, 0, i, &qkv[i]);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &qkv[i], TP_XNN_INVALID_ID, 0, &w);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, (uint32_t)(1 + i),
                               TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
    tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, TP_XNN_INVALID_ID, y, 0);
  }
  return g;
}

/* A .ptd holding the program's named data (so tp_xnn_load can resolve the blob's keys). */
static void ptd_from_program(tp_pte_file *f, tp_membuf *ptd) {
  tp_store *st = NULL;
  tp_sink s;
  size_t i;
  tp_store_create(&st);
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
  tp_store *st = NULL;
  tp_tensor qkv[3];
  tp_xnn_graph *g;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_membuf mb, ptd;
  tp_sink sk;
  tp_pte_file f;
  tp_pte_delegate_info di;
  tp_pte_method_info mi;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  static float y[3][B * E];
  size_t v, i;
  int b, r, k;
  double worst = 0;

  for (i = 0; i < 3 * E * E; i++) g_in_proj[i] = (float)((double)(tpt_rand() >> 11) / 9.0e15 - 0.5);
  for (i = 0; i < B * E; i++) g_x[i] = (float)((double)(tpt_rand() >> 11) / 9.0e15 - 0.5);
  if (named) tp_store_create(&st);
  g = qkv_graph(st, qkv);
  memset(&o, 0, sizeof o);
  o.embed = st;
  tp_pte_create(&o, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  memset(&mb, 0, sizeof mb);
  sk = tp_sink_membuf(&mb);
  TPT_STATUS(tp_pte_write(p, &sk), TP_OK);
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
      TPT_STATUS(tp_xnn_runtime_bind(rt, (uint32_t)v, v == 0 ? (void *)g_x : (void *)y[v - 1]),
                 TP_OK);
    }
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    for (i = 0; i < 3; i++)
      for (b = 0; b < B; b++)
        for (r = 0; r < E; r++) {
          const tp_tensor *w = &qkv[i];
          const float *wd = (const float *)w->storage.data;
          double acc = 0;
          for (k = 0; k < E; k++)
            acc += (double)g_x[b * E + k] * (double)wd[w->offset + r * w->strides[0] + k];
          if (fabs(acc - y[i][b * E + r]) > worst) worst = fabs(acc - y[i][b * E + r]);
        }
    TPT_CHECK(worst < 1e-5);
    printf("  %s: q/k/v from the program's segment%s: max error %.2g\n",
           named ? "named" : "inline", named ? " and its named data" : "", worst);
  } else {
    printf("  load: %s\n", e.msg);
  }
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&mb);
  tp_membuf_free(&ptd);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

static void test_inline_program(void) { run_program(0); }
static void test_named_program(void) { run_program(1); }

int main(void) {
  TPT_RUN(test_inline_program);
  TPT_RUN(test_named_program);
  return tpt_finish("xnnrt_pte");
}
