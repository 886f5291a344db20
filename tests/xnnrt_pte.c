/* xnnrt_pte.c - the XNNPACK delegate blobs inside tensorpack's programs run on the real XNNPACK.
   Each program is written and read back with tp_pte_read. Its delegate's blob, taken from its
   segment (and its named data from the program itself, as a .ptd made of the embedded
   entries), is loaded with tp_xnn_load, bound by the method's argument order (= external ids)
   and run: the blob in the segment is intact and the arguments are in the order the runtime
   indexes them. tp_xnn_load_pte runs the method with its named data embedded in the program,
   in a .ptd beside it, or both; tp_xnn_pte_missing_keys names what a program needs from a
   .ptd, and a program loaded without the .ptd it needs is refused with those keys
   (ExecuTorch's runtime crashes there). q/k/v linears from chunks of one in_proj_weight,
   checked against a double-precision reference. A method built with the graph API (two
   XNNPACK delegate calls wired by value index, a constant from the constant segment, the
   intermediate in the memory plan) runs as one runtime bound by value index; a kernel call,
   another backend, a call that does not fit its blob and a plan above the loader's limit are
   refused with their sentences. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tp_count_alloc.h"
#include "tensorpack_xnnpack.h"
#include "tp_test.h"
#include "pte_build.h"

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
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &packed, NULL), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  for (i = 0; i < 3; i++) {
    tp_chunk(&packed, 3, 0, i, &qkv[i], NULL);
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

/* The graph's method finished and written into pte (p destroyed). */
static void finish_to_mem(tp_pte *p, tp_pte_graph *g, tp_membuf *pte) {
  tp_sink sk;
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  memset(pte, 0, sizeof *pte);
  sk = tp_sink_membuf(pte);
  TPT_STATUS(tp_pte_write(p, &sk), TP_OK);
  tp_pte_destroy(p);
}

/* XNNPACK graph h = x W^T: x [B, E] external 0, h [B, E] external 1, W the view wv inline. */
static tp_xnn_graph *linear_graph(const tp_tensor *wv) {
  tp_xnn_graph *ga = NULL;
  size_t d2[2] = {B, E};
  uint32_t xa, wa, ha;
  TPT_STATUS(tp_xnn_graph_create(NULL, &ga), TP_OK);
  tp_xnn_define_tensor_value(ga, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xa);
  tp_xnn_define_tensor_value(ga, TP_XNN_FP32, 2, NULL, wv, TP_XNN_INVALID_ID, 0, &wa);
  tp_xnn_define_tensor_value(ga, TP_XNN_FP32, 2, d2, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &ha);
  tp_xnn_define_fully_connected(ga, -INFINITY, INFINITY, xa, wa, TP_XNN_INVALID_ID, ha, 0);
  TPT_STATUS(tp_xnn_graph_status(ga), TP_OK);
  return ga;
}

/* linear_graph's blob, W = g_w's first [E, E], written into blob. */
static void linear_blob(tp_membuf *blob) {
  int64_t wsz[2] = {E, E};
  tp_storage ws;
  tp_tensor wv;
  tp_xnn_graph *ga;
  tp_sink sk;
  ws.data = g_w, ws.nbytes = sizeof(float) * E * E;
  TPT_STATUS(tp_view(ws, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
  ga = linear_graph(&wv);
  memset(blob, 0, sizeof *blob);
  sk = tp_sink_membuf(blob);
  TPT_STATUS(tp_xnn_write(ga, &sk), TP_OK);
  tp_xnn_graph_destroy(ga);
}

/* The values of graph_method_program's method, in the order they are defined (not the order
   of the calls). */
enum { VX = 0, VY = 1, VH = 2, VC = 3 };
static float g_c[B * E];

/* A method built with the graph API into pte: y = (x W^T) + c in two XNNPACK delegate calls
   (a linear, then an add of the program constant c), the intermediate h in the memory plan,
   the values x, y, h, c defined in that order. */
static void graph_method_program(tp_membuf *pte) {
  int64_t wsz[2] = {E, E}, csz[2] = {B, E};
  tp_storage ws, cs;
  tp_tensor wv, cv;
  tp_xnn_graph *ga = NULL, *gb = NULL;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_tensor tx, ty, th;
  size_t d2[2] = {B, E}, i;
  uint32_t hb, cb, yb, x, yv, h, c, a[3];
  for (i = 0; i < E * E; i++) g_w[i] = (float)sin(0.37 * (double)i);
  for (i = 0; i < B * E; i++) g_x[i] = (float)cos(0.21 * (double)i), g_c[i] = (float)i * 0.01f;
  ws.data = g_w, ws.nbytes = sizeof(float) * E * E;
  cs.data = g_c, cs.nbytes = sizeof g_c;
  TPT_STATUS(tp_view(ws, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
  TPT_STATUS(tp_view(cs, TP_F32, 2, csz, NULL, 0, &cv, NULL), TP_OK);
  ga = linear_graph(&wv);
  TPT_STATUS(tp_xnn_graph_create(NULL, &gb), TP_OK);
  tp_xnn_define_tensor_value(gb, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &hb);
  tp_xnn_define_tensor_value(gb, TP_XNN_FP32, 2, d2, NULL, 1, TP_XNN_FLAG_EXTERNAL_INPUT, &cb);
  tp_xnn_define_tensor_value(gb, TP_XNN_FP32, 2, d2, NULL, 2, TP_XNN_FLAG_EXTERNAL_OUTPUT, &yb);
  tp_xnn_define_add2(gb, -INFINITY, INFINITY, hb, cb, yb, 0);
  TPT_STATUS(tp_xnn_graph_status(gb), TP_OK);
  memset(&tx, 0, sizeof tx);
  tx.dtype = TP_F32, tx.ndim = 2, tx.sizes[0] = B, tx.sizes[1] = E;
  ty = th = tx;
  tx.role = TP_PTE_INPUT, ty.role = TP_PTE_OUTPUT;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ty, &yv), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &th, &h), TP_OK);
  TPT_STATUS(tp_pte_define_constant(g, &cv, &c), TP_OK);
  TPT_CHECK(x == VX && yv == VY && h == VH && c == VC);
  a[0] = x, a[1] = h;
  TPT_STATUS(tp_xnn_pte_call(g, ga, a, 2), TP_OK);
  a[0] = h, a[1] = c, a[2] = yv;
  TPT_STATUS(tp_xnn_pte_call(g, gb, a, 3), TP_OK);
  finish_to_mem(p, g, pte);
  tp_xnn_graph_destroy(ga);
  tp_xnn_graph_destroy(gb);
}

/* graph_method_program's method loaded by tp_xnn_load_pte as one runtime whose externals are
   the method's values, run twice; a value the plan holds refused by bind, an unbound output by
   invoke; a method with a kernel call refused naming it. */
static void test_graph_method(void) {
  static float y[B * E];
  int64_t wsz[2] = {E, E};
  tp_storage ws;
  tp_tensor wv;
  tp_xnn_graph *ga = NULL;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  size_t sz = 0;
  uint32_t x, yv, h;
  tp_membuf pte;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  int run;
  graph_method_program(&pte);
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) {
    TPT_EQ_U64(tp_xnn_runtime_num_externs(rt), 4);
    TPT_STATUS(tp_xnn_runtime_extern_size(rt, VY, &sz, NULL), TP_OK);
    TPT_EQ_U64(sz, sizeof y);
    TPT_STATUS(tp_xnn_runtime_extern_size(rt, VH, &sz, NULL), TP_ERR_INVALID);
    TPT_STATUS(tp_xnn_runtime_bind(rt, VH, y), TP_ERR_INVALID);
    TPT_EQ_STR(tp_xnn_runtime_error(rt), "bind: value 2 is not an input or output of the method "
                                         "(the method's memory plan holds it)");
    TPT_STATUS(tp_xnn_runtime_bind(rt, VX, g_x), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_ERR_INVALID);
    TPT_EQ_STR(tp_xnn_runtime_error(rt), "invoke: the method's output value 1 is not bound: "
                                         "tp_xnn_runtime_bind it first");
    TPT_STATUS(tp_xnn_runtime_bind(rt, VY, y), TP_OK);
    for (run = 0; run < 2; run++) {
      double worst = 0;
      int b, r, k;
      memset(y, 0, sizeof y);
      TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
      for (b = 0; b < B; b++)
        for (r = 0; r < E; r++) {
          double acc = (double)g_c[b * E + r];
          for (k = 0; k < E; k++) acc += (double)g_x[b * E + k] * (double)g_w[r * E + k];
          if (!(fabs(acc - y[b * E + r]) <= worst)) worst = fabs(acc - y[b * E + r]);
        }
      TPT_CHECK(worst < 1e-5);
      printf("  graph method, two delegate calls + a constant, run %d: max error %.2g\n", run + 1,
             worst);
    }
  } else {
    printf("  load: %s\n", e.msg);
  }
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&pte);

  /* a kernel call: refused, naming the instruction and the operator */
  {
    uint32_t one, args[5];
    tp_pte_tensor t4;
    ws.data = g_w, ws.nbytes = sizeof(float) * E * E;
    TPT_STATUS(tp_view(ws, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
    ga = linear_graph(&wv);
    memset(&t4, 0, sizeof t4);
    t4.dtype = TP_F32, t4.ndim = 2, t4.sizes[0] = B, t4.sizes[1] = E;
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    t4.role = TP_PTE_INPUT;
    TPT_STATUS(tp_pte_define_tensor(g, &t4, &x), TP_OK);
    t4.role = 0;
    TPT_STATUS(tp_pte_define_tensor(g, &t4, &h), TP_OK);
    t4.role = TP_PTE_OUTPUT;
    TPT_STATUS(tp_pte_define_tensor(g, &t4, &yv), TP_OK);
    TPT_STATUS(tp_pte_define_int(g, 1, &one), TP_OK);
    args[0] = x, args[1] = h;
    TPT_STATUS(tp_xnn_pte_call(g, ga, args, 2), TP_OK);
    args[0] = h, args[1] = h, args[2] = one, args[3] = yv, args[4] = yv;
    TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", args, 5), TP_OK);
    finish_to_mem(p, g, &pte);
    rt = NULL;
    TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e),
               TP_ERR_UNSUPPORTED);
    TPT_CHECK(rt == NULL);
    TPT_EQ_STR(e.msg, "method \"forward\": instruction 1 calls aten::add.out, a portable "
                      "kernel; the XNNPACK loader runs delegate calls only");
    tp_membuf_free(&pte);
  }
  tp_xnn_graph_destroy(ga);
}

/* Every allocation of tp_xnn_load_pte on graph_method_program's method failing in turn (the
   counted ones: tensorpack's, not XNNPACK's own): TP_ERR_NOMEM with no leak, or TP_OK. */
static void test_graph_method_alloc_failures(void) {
  tp_membuf pte;
  long k;
  int done = 0, failed = 0;
  graph_method_program(&pte);
  for (k = 0; k < 2000 && !done; k++) {
    size_t live = g_live;
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    tp_status st;
    g_fail_at = k;
    st = tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e);
    done = g_fail_at >= 0; /* the failure was never reached */
    g_fail_at = -1;
    TPT_CHECK(st == TP_OK || st == TP_ERR_NOMEM);
    if (st != TP_OK && st != TP_ERR_NOMEM) printf("  allocation %ld: %s\n", k, e.msg);
    failed += st == TP_ERR_NOMEM;
    tp_xnn_runtime_destroy(rt);
    TPT_EQ_U64(g_live, live);
  }
  TPT_CHECK(done);
  printf("  %d allocations failed in turn: TP_ERR_NOMEM, nothing leaked\n", failed);
  tp_membuf_free(&pte);
}

/* A producer streaming the membuf ctx. */
static tp_status produce_mem(void *ctx, tp_sink *sink) {
  const tp_membuf *b = (const tp_membuf *)ctx;
  return tp_sink_write(sink, b->data, b->size);
}

/* A one-method program whose method calls delegate `backend` (blob: the bytes of blob) once
   with the tensors t[0 .. n) defined in that order, the last npass of them passed in reverse
   (so value k is not external k: the loader's method path); tp_xnn_load_pte's status and
   sentence checked. */
static void refused_call(const char *backend, tp_membuf *blob, const tp_pte_tensor *t, size_t n,
                         size_t npass, tp_status want, const char *sentence) {
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_delegate d;
  uint32_t ids[4], args[4];
  tp_membuf pte;
    tp_xnn_runtime *rt = NULL;
  tp_error e;
  size_t k;
  memset(&d, 0, sizeof d);
  d.backend_id = backend;
  d.blob_size = blob->size;
  d.produce = produce_mem;
  d.ctx = blob;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  for (k = 0; k < n; k++) TPT_STATUS(tp_pte_define_tensor(g, &t[k], &ids[k]), TP_OK);
  for (k = 0; k < npass; k++) args[k] = ids[n - 1 - k];
  TPT_STATUS(tp_pte_call_delegate(g, &d, args, npass), TP_OK);
  finish_to_mem(p, g, &pte);
  TPT_STATUS(tp_xnn_load_pte(pte.data, pte.size, "forward", NULL, 0, 0, &rt, &e), want);
  TPT_CHECK(rt == NULL);
  TPT_EQ_STR(e.msg, sentence);
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&pte);
}

/* The loader's refusals of a graph method: another backend's delegate, a call whose values do
   not match its blob's externals (count, bytes), planned buffers above the loader's limit. */
static void test_graph_method_refusals(void) {
  tp_membuf blob;
  tp_pte_tensor t[2];
  linear_blob(&blob);
  memset(t, 0, sizeof t);
  t[0].role = TP_PTE_OUTPUT, t[0].dtype = TP_F32, t[0].ndim = 2, t[0].sizes[0] = B;
  t[0].sizes[1] = E;
  t[1] = t[0];
  t[1].role = TP_PTE_INPUT;
  refused_call("VulkanBackend", &blob, t, 2, 2, TP_ERR_UNSUPPORTED,
               "method \"forward\": instruction 0 calls delegate 0, a VulkanBackend; the XNNPACK "
               "loader runs XnnpackBackend delegates only");
  refused_call("XnnpackBackend", &blob, t, 2, 1, TP_ERR_FORMAT,
               "method \"forward\" instruction 0 passes 1 values; its blob has 2 externals");
  t[0].sizes[1] = 2 * E; /* the output twice too big */
  refused_call("XnnpackBackend", &blob, t, 2, 2, TP_ERR_FORMAT,
               "method \"forward\" instruction 0: argument 1 is value 0 of 384 bytes; external 1 "
               "of its blob has 192");
  t[0].sizes[0] = t[1].sizes[0] = (int64_t)1 << 15; /* 2 GiB and 1 GiB planned */
  t[0].sizes[1] = t[1].sizes[1] = (int64_t)1 << 14;
  refused_call("XnnpackBackend", &blob, t, 2, 2, TP_ERR_FORMAT,
               "method \"forward\": planned buffers of 4294967296 bytes and more, above the "
               "loader's limit (TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES, 1073741824)");
  tp_membuf_free(&blob);
}

/* graph_method_program's bytes with 1 to 4 random bytes changed, 3000 times: tp_xnn_load_pte
   refuses or loads (never reads out of bounds: ASan), and a loaded runtime runs with every
   plan input and output bound to a buffer of the padded size it states. */
static void test_graph_method_mutations(void) {
  tp_membuf pte;
  unsigned char *m;
  int round, loaded = 0, ran = 0;
  graph_method_program(&pte);
  m = (unsigned char *)malloc(pte.size);
  TPT_CHECK(m != NULL);
  for (round = 0; m && round < 3000; round++) {
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    int k, flips = (int)tpt_range(1, 4);
    memcpy(m, pte.data, pte.size);
    for (k = 0; k < flips; k++)
      m[tpt_range(0, (int64_t)pte.size - 1)] = (unsigned char)tpt_range(0, 255);
    if (tp_xnn_load_pte(m, pte.size, "forward", NULL, 0, 0, &rt, &e) == TP_OK) {
      void *bufs[8];
      uint32_t v, n = tp_xnn_runtime_num_externs(rt), nb = 0;
      int all = 1;
      loaded++;
      for (v = 0; v < n && all; v++) {
        size_t padded = 0;
        if (tp_xnn_runtime_extern_size(rt, v, NULL, &padded) != TP_OK) continue;
        if (nb == 8 || padded > ((size_t)1 << 24)) {
          all = 0;
          break;
        }
        bufs[nb] = calloc(1, padded);
        if (!bufs[nb] || tp_xnn_runtime_bind(rt, v, bufs[nb]) != TP_OK) all = 0;
        nb++;
      }
      if (all && tp_xnn_runtime_invoke(rt) == TP_OK) ran++;
      while (nb > 0) free(bufs[--nb]);
    }
    tp_xnn_runtime_destroy(rt);
  }
  printf("  3000 mutated programs: %d loaded, %d of them ran; the rest refused\n", loaded, ran);
  TPT_CHECK(loaded > 0);
  free(m);
  tp_membuf_free(&pte);
}

/* A hand-built program (tp_fb builder): method "forward" with nchains copies of one chain
   whose one instruction is a MoveCall (value 0 -> 1), a JumpFalseCall (on value 2, to
   instruction 0), a FreeCall (of 0), a DelegateCall of delegate 0 (XnnpackBackend, `blob`
   inline) with values 0 and 1, or none (instr 0). Values:
   two Float [B, E] tensors that are neither planned nor constant (instr DelegateCall: the plan
   has no inputs and outputs either), else two Ints; and an Int. Malloc'd, NULL on failure. */
static unsigned char *hand_pte(int nchains, int instr, const tp_membuf *blob, size_t *size) {
  tp_fb_builder *b = NULL;
  tp_fb_ref refs[3], v, t, ival, vals, ins, instrs, chain, chains, none, ncbs, name, plan, dels,
      bdd;
  unsigned char order[2] = {0, 1};
  int32_t sizes[2] = {B, E}, args[2] = {0, 1};
  uint64_t zero64 = 0;
  int dc = instr == TP_PTE_I_DelegateCall;
  if (tp_fb_builder_create(&b) != TP_OK) return NULL;
  tp_fb_start_table(b);
  tp_fb_add_i64(b, TP_PTE_F_Int_int_val, 0, 1);
  v = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_PTE_F_EValue_val, TP_PTE_V_Int, v);
  ival = tp_fb_end_table(b);
  v = tp_fb_create_vector(b, sizes, 2, 4);
  t = tp_fb_create_vector(b, order, 2, 1);
  tp_fb_start_table(b);
  tp_fb_add_i8(b, TP_PTE_F_Tensor_scalar_type, TP_F32, 0);
  tp_fb_add_ref(b, TP_PTE_F_Tensor_sizes, v);
  tp_fb_add_ref(b, TP_PTE_F_Tensor_dim_order, t);
  v = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_PTE_F_EValue_val, TP_PTE_V_Tensor, v);
  t = tp_fb_end_table(b);
  refs[0] = refs[1] = dc ? t : ival;
  refs[2] = ival;
  vals = tp_fb_create_vector_refs(b, refs, 3);
  if (!instr) {
    instrs = tp_fb_create_vector_refs(b, NULL, 0);
  } else {
    if (dc) v = tp_fb_create_vector(b, args, 2, 4);
    tp_fb_start_table(b);
    if (dc) {
      tp_fb_add_i32(b, TP_PTE_F_DelegateCall_delegate_index, 0, -1);
      tp_fb_add_ref(b, TP_PTE_F_DelegateCall_args, v);
    } else if (instr == TP_PTE_I_MoveCall) {
      tp_fb_add_i32(b, TP_PTE_F_MoveCall_move_from, 0, -1);
      tp_fb_add_i32(b, TP_PTE_F_MoveCall_move_to, 1, -1);
    } else if (instr == TP_PTE_I_JumpFalseCall) {
      tp_fb_add_i32(b, TP_PTE_F_JumpFalseCall_cond_value_index, 2, -1);
      tp_fb_add_i32(b, TP_PTE_F_JumpFalseCall_destination_instruction, 0, -1);
    } else {
      tp_fb_add_i32(b, TP_PTE_F_FreeCall_value_index, 0, -1);
    }
    v = tp_fb_end_table(b);
    tp_fb_start_table(b);
    tp_fb_add_union(b, TP_PTE_F_Instruction_instr_args, (uint8_t)instr, v);
    ins = tp_fb_end_table(b);
    instrs = tp_fb_create_vector_refs(b, &ins, 1);
  }
  none = tp_fb_create_vector(b, NULL, 0, 4);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_Chain_inputs, none);
  tp_fb_add_ref(b, TP_PTE_F_Chain_outputs, none);
  tp_fb_add_ref(b, TP_PTE_F_Chain_instructions, instrs);
  chain = tp_fb_end_table(b);
  refs[0] = refs[1] = chain;
  chains = tp_fb_create_vector_refs(b, refs, (size_t)nchains);
  ncbs = tp_fb_create_vector(b, &zero64, 1, 8);
  name = tp_fb_create_string(b, "forward", 7);
  v = tp_fb_create_vector_refs(b, NULL, 0);
  dels = v;
  bdd = v;
  if (dc) {
    tp_fb_ref id = tp_fb_create_string(b, "XnnpackBackend", 14), ref, data, del;
    tp_fb_start_table(b);
    tp_fb_add_u32(b, TP_PTE_F_BackendDelegateDataReference_index, 0, 1);
    ref = tp_fb_end_table(b);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_id, id);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_processed, ref);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_compile_specs, v);
    del = tp_fb_end_table(b);
    dels = tp_fb_create_vector_refs(b, &del, 1);
    data = tp_fb_create_vector(b, blob->data, blob->size, 1);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegateInlineData_data, data);
    data = tp_fb_end_table(b);
    bdd = tp_fb_create_vector_refs(b, &data, 1);
  }
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_name, name);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_values, vals);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_inputs, none);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_outputs, none);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_chains, chains);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_operators, v);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_delegates, dels);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, ncbs);
  plan = tp_fb_end_table(b);
  return tpt_pte_finish(b, plan, bdd, size);
}

/* The loader's refusals of a chain it cannot run, on hand-built programs: two chains, a
   MoveCall, a JumpFalseCall, a FreeCall (TP_ERR_UNSUPPORTED, naming them); a delegate call
   whose argument is neither planned, constant, input nor output (TP_ERR_FORMAT). */
static void test_chain_refusals(void) {
  static const struct {
    int nchains, instr;
    tp_status st;
    const char *sentence;
  } c[] = {
      {2, 0, TP_ERR_UNSUPPORTED, "method \"forward\" has 2 chains; the XNNPACK loader runs one"},
      {1, TP_PTE_I_MoveCall, TP_ERR_UNSUPPORTED,
       "method \"forward\": instruction 0 is a MoveCall; the XNNPACK loader runs delegate calls "
       "only"},
      {1, TP_PTE_I_JumpFalseCall, TP_ERR_UNSUPPORTED,
       "method \"forward\": instruction 0 is a JumpFalseCall; the XNNPACK loader runs delegate "
       "calls only"},
      {1, TP_PTE_I_FreeCall, TP_ERR_UNSUPPORTED,
       "method \"forward\": instruction 0 is a FreeCall; the XNNPACK loader runs delegate calls "
       "only"},
      {1, TP_PTE_I_DelegateCall, TP_ERR_FORMAT,
       "method \"forward\" instruction 0: argument 0 is value 0, neither memory-planned nor a "
       "constant nor an input or output"},
  };
  tp_membuf blob;
  size_t k;
  linear_blob(&blob);
  for (k = 0; k < sizeof c / sizeof c[0]; k++) {
    size_t n = 0;
    unsigned char *pte = hand_pte(c[k].nchains, c[k].instr, &blob, &n);
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    tp_pte_file f;
    TPT_CHECK(pte != NULL);
    if (!pte) continue;
    TPT_STATUS(tp_pte_read(&f, pte, n), TP_OK); /* the program itself is well formed */
    if (f.err.status) printf("  case %lu: %s\n", (unsigned long)k, f.err.msg);
    TPT_STATUS(tp_xnn_load_pte(pte, n, "forward", NULL, 0, 0, &rt, &e), c[k].st);
    TPT_CHECK(rt == NULL);
    TPT_EQ_STR(e.msg, c[k].sentence);
    free(pte);
  }
  tp_membuf_free(&blob);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_inline_program);
  TPT_RUN(test_named_program);
  TPT_RUN(test_embedded_and_inline); /* these two on init()'s weights and input */
  TPT_RUN(test_external_ptd);
  TPT_RUN(test_graph_method);
  TPT_RUN(test_graph_method_refusals);
  TPT_RUN(test_chain_refusals);
  TPT_RUN(test_graph_method_alloc_failures);
  TPT_RUN(test_graph_method_mutations);
  return tpt_finish("xnnrt_pte");
}
