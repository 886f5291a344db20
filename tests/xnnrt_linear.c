/* xnnrt_linear.c - tensorpack's XNNPACK blobs run on the real XNNPACK (Debian's libxnnpack):
   the seed's linear with an offset weight view, q/k/v chunks of one in_proj_weight, per-channel
   int8 weights with a transposed scale view as a 1x1 convolution, named mode (blob + .ptd),
   and the loader's refusals (what the linked XNNPACK lacks, malformed blobs). */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

/* The loader's refusals are tested on blobs the writer's rules would refuse: written with
   TP_XNN_TARGET_UNCHECKED (the valid graphs here pass the rules either way). */
static tp_xnn_options g_unchecked; /* .target = TP_XNN_TARGET_UNCHECKED, set in main */

static tp_tensor view_f32(const float *p, size_t n, int ndim, const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = p;
  s.nbytes = n * sizeof(float);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sizes, NULL, 0, &t, NULL), TP_OK);
  return t;
}

static float frand(void) { return (float)((double)(tpt_rand() >> 11) / 9007199254740992.0 * 2.0 - 1.0); }

static int write_blob(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink s;
  memset(m, 0, sizeof *m);
  s = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  if (g && tp_xnn_graph_status(g) != TP_OK) printf("  graph: %s\n", tp_xnn_graph_error(g));
  return m->size > 0;
}

/* Loads a blob, binds x (external 0) and ys (externals 1..n_out), runs it. */
static tp_status run_blob(const tp_membuf *blob, const tp_membuf *ptd, float *x, float **ys,
                          int n_out) {
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_status st;
  int i;
  memset(&e, 0, sizeof e);
  st = tp_xnn_load(blob->data, blob->size, ptd ? ptd->data : NULL, ptd ? ptd->size : 0, 0, &rt,
                   &e);
  if (st != TP_OK) {
    printf("  load: %s\n", e.msg);
    return st;
  }
  TPT_EQ_U64(tp_xnn_runtime_num_externs(rt), (uint64_t)n_out + 1);
  TPT_STATUS(tp_xnn_runtime_bind(rt, 0, x), TP_OK);
  for (i = 0; i < n_out; i++) TPT_STATUS(tp_xnn_runtime_bind(rt, (uint32_t)i + 1, ys[i]), TP_OK);
  st = tp_xnn_runtime_invoke(rt);
  if (st != TP_OK) printf("  invoke: %s\n", tp_xnn_runtime_error(rt));
  tp_xnn_runtime_destroy(rt);
  return st;
}

/* max |y - x W^T| against a double reference; W row-major [out][in] given by pointer. */
static double max_err(const float *x, const float *w, const float *y, int batch, int in, int out) {
  double worst = 0;
  int b, o, i;
  for (b = 0; b < batch; b++)
    for (o = 0; o < out; o++) {
      double acc = 0;
      for (i = 0; i < in; i++) acc += (double)x[b * in + i] * (double)w[o * in + i];
      if (fabs(acc - (double)y[b * out + o]) > worst) worst = fabs(acc - (double)y[b * out + o]);
    }
  return worst;
}

/* One linear y = x W^T, x external 0, y external 1. */
static void linear_graph(tp_xnn_graph *g, const tp_tensor *w, size_t batch) {
  size_t xd[2], yd[2];
  uint32_t x, wt, y;
  xd[0] = batch;
  xd[1] = (size_t)w->sizes[1];
  yd[0] = batch;
  yd[1] = (size_t)w->sizes[0];
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, w, TP_XNN_INVALID_ID, 0, &wt),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y,
                                           0), TP_OK);
}

static float seed_storage[3 * 8 * 8];
static float seed_x[2 * 8 + 4]; /* + XNN_EXTRA_BYTES of slack */

/* The seed: F.linear(x, weight), weight = randn(3, 8, 8)[1]. */
static void test_seed_offset_view(void) {
  int64_t sz[3] = {3, 8, 8}, s2[2] = {8, 8};
  tp_tensor parent = view_f32(seed_storage, 192, 3, sz), w, whole;
  tp_xnn_graph *g;
  tp_membuf blob;
  float y[2 * 8], ywrong[2 * 8], *ys[1];
  double err, err_whole;
  TPT_STATUS(tp_select(&parent, 0, 1, &w, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  linear_graph(g, &w, 2);
  if (write_blob(g, &blob)) {
    ys[0] = y;
    TPT_STATUS(run_blob(&blob, NULL, seed_x, ys, 1), TP_OK);
    err = max_err(seed_x, seed_storage + 64, y, 2, 8, 8);
    printf("  seed linear: max |err| vs double reference = %.3g\n", err);
    TPT_CHECK(err < 1e-5);
  }
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
  /* What a whole-storage writer produces: the storage's first 64 floats as the weight. */
  whole = view_f32(seed_storage, 64, 2, s2);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  linear_graph(g, &whole, 2);
  if (write_blob(g, &blob)) {
    ys[0] = ywrong;
    TPT_STATUS(run_blob(&blob, NULL, seed_x, ys, 1), TP_OK);
    err_whole = max_err(seed_x, seed_storage + 64, ywrong, 2, 8, 8);
    printf("  a whole-storage writer (first 64 floats) would be off by %.3g\n", err_whole);
    TPT_CHECK(err_whole > 1.0);
  }
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Cross-attention projections: q, k, v = chunks of one packed in_proj_weight [3E, E]. */
static void test_qkv_in_proj(void) {
  enum { E = 16, B = 3 };
  static float in_proj[3 * E * E], x[B * E + 4], y[3][B * E];
  int64_t sz[2] = {3 * E, E};
  tp_tensor w = view_f32(in_proj, 3 * E * E, 2, sz), part;
  tp_xnn_graph *g;
  tp_membuf blob;
  size_t xd[2] = {B, E}, yd[2] = {B, E};
  uint32_t xid, wid, yid;
  float *ys[3];
  int i;
  for (i = 0; i < 3 * E * E; i++) in_proj[i] = frand();
  for (i = 0; i < B * E; i++) x[i] = frand();
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &xid), TP_OK);
  for (i = 0; i < 3; i++) {
    TPT_STATUS(tp_chunk(&w, 3, 0, i, &part, NULL), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &part, TP_XNN_INVALID_ID, 0,
                                          &wid), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, (uint32_t)i + 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &yid), TP_OK);
    TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, xid, wid,
                                             TP_XNN_INVALID_ID, yid, 0), TP_OK);
    ys[i] = y[i];
  }
  if (write_blob(g, &blob)) {
    TPT_STATUS(run_blob(&blob, NULL, x, ys, 3), TP_OK);
    for (i = 0; i < 3; i++) {
      double err = max_err(x, in_proj + i * E * E, y[i], B, E, E);
      double wrong = max_err(x, in_proj, y[i], B, E, E); /* vs the q rows */
      printf("  %c projection: max |err| = %.3g%s\n", "qkv"[i], err,
             i ? "" : " (each chunk checked against its own third)");
      TPT_CHECK(err < 1e-5);
      if (i > 0) TPT_CHECK(wrong > 1e-2);
    }
  }
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Per-channel int8 weights whose scale is a transposed (strided) view, as a 1x1 convolution
   (Debian's XNNPACK has no per-channel fully connected). */
static void test_per_channel_conv1x1_transposed_scale(void) {
  enum { N = 2, IC = 8, OC = 4 };
  static int8_t wq[OC * IC], xq[N * IC + 16], yq[N * OC];
  static float scale_store[OC * 2]; /* [OC][2]: column 1 holds this layer's scales */
  static int32_t bias[OC];
  static float bias_scale[OC], sw[OC];
  const float sx = 0.05f, sy = 0.1f;
  const int32_t zx = 3, zy = -2;
  int64_t ss[2] = {OC, 2}, wsz[4] = {OC, 1, 1, IC}, bsz[1] = {OC};
  tp_tensor st, stt, scale, w, b, bsc;
  tp_storage s;
  tp_xnn_graph *g;
  tp_membuf blob;
  size_t xd[4] = {N, 1, 1, IC}, yd[4] = {N, 1, 1, OC};
  uint32_t x, wid, bid, y;
  int i, o, n, worst = 0;
  for (o = 0; o < OC; o++) {
    scale_store[o * 2 + 0] = 99.0f; /* someone else's scale */
    scale_store[o * 2 + 1] = 0.01f * (float)(o + 1);
    sw[o] = scale_store[o * 2 + 1];
    bias_scale[o] = sx * sw[o];
    bias[o] = (o - 1) * 37;
  }
  for (i = 0; i < OC * IC; i++) wq[i] = (int8_t)((i * 29) % 255 - 127);
  for (i = 0; i < N * IC; i++) xq[i] = (int8_t)((i * 13) % 200 - 100);
  st = view_f32(scale_store, OC * 2, 2, ss);
  TPT_STATUS(tp_transpose(&st, 0, 1, &stt, NULL), TP_OK); /* [2][OC] */
  TPT_STATUS(tp_select(&stt, 0, 1, &scale, NULL), TP_OK); /* stride 2, offset 1 */
  TPT_CHECK(!tp_is_contiguous(&scale));
  s.data = wq;
  s.nbytes = sizeof wq;
  TPT_STATUS(tp_view(s, TP_I8, 4, wsz, NULL, 0, &w, NULL), TP_OK);
  s.data = bias;
  s.nbytes = sizeof bias;
  TPT_STATUS(tp_view(s, TP_I32, 1, bsz, NULL, 0, &b, NULL), TP_OK);
  bsc = view_f32(bias_scale, OC, 1, bsz);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zx, sx, 4, xd, NULL, 0,
                                                  TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &scale, 4, 0,
                                                              NULL, &w, TP_XNN_INVALID_ID, 0,
                                                              &wid), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &bsc, 1, 0,
                                                              NULL, &b, TP_XNN_INVALID_ID, 0,
                                                              &bid), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zy, sy, 4, yd, NULL, 1,
                                                  TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, IC, OC, -INFINITY,
                                          INFINITY, x, wid, bid, y, 0), TP_OK);
  if (write_blob(g, &blob)) {
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    memset(&e, 0, sizeof e);
    TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_OK);
    if (rt) {
      TPT_STATUS(tp_xnn_runtime_bind(rt, 0, xq), TP_OK);
      TPT_STATUS(tp_xnn_runtime_bind(rt, 1, yq), TP_OK);
      TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
      tp_xnn_runtime_destroy(rt);
      for (n = 0; n < N; n++)
        for (o = 0; o < OC; o++) {
          long acc = bias[o], q;
          int d;
          for (i = 0; i < IC; i++) acc += (long)(xq[n * IC + i] - zx) * wq[o * IC + i];
          q = lrint((double)acc * (double)sx * (double)sw[o] / (double)sy) + zy;
          if (q < -128) q = -128;
          if (q > 127) q = 127;
          d = abs((int)q - (int)yq[n * OC + o]);
          if (d > worst) worst = d;
        }
      printf("  per-channel 1x1 conv (transposed scale view): max |diff| = %d (int8 units)\n",
             worst);
      TPT_CHECK(worst <= 1);
    } else {
      printf("  load: %s\n", e.msg);
    }
  }
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Named mode: constants in a .ptd from the store; the same numbers as inline. */
static void test_named_mode_same_numbers(void) {
  int64_t sz[3] = {3, 8, 8};
  tp_tensor parent = view_f32(seed_storage, 192, 3, sz), w;
  tp_store *store = NULL;
  tp_xnn_options o;
  tp_xnn_graph *g;
  tp_membuf blob, ptd, blob_inline;
  tp_sink ps;
  float y1[16], y2[16], *ys[1];
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  TPT_STATUS(tp_select(&parent, 0, 2, &w, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  linear_graph(g, &w, 2);
  write_blob(g, &blob);
  tp_xnn_graph_destroy(g);
  memset(&ptd, 0, sizeof ptd);
  ps = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(store, &ps), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  linear_graph(g, &w, 2);
  write_blob(g, &blob_inline);
  tp_xnn_graph_destroy(g);
  ys[0] = y1;
  TPT_STATUS(run_blob(&blob, &ptd, seed_x, ys, 1), TP_OK);
  ys[0] = y2;
  TPT_STATUS(run_blob(&blob_inline, NULL, seed_x, ys, 1), TP_OK);
  TPT_MEMEQ(y1, y2, sizeof y1);
  TPT_CHECK(max_err(seed_x, seed_storage + 128, y1, 2, 8, 8) < 1e-5);
  TPT_CHECK(blob.size < blob_inline.size); /* the weights are in the .ptd */
  /* the named blob without its .ptd is refused, naming the key */
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "is named but no .ptd was given");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&blob);
  tp_membuf_free(&blob_inline);
  tp_membuf_free(&ptd);
  tp_store_destroy(store);
}

/* What Debian's 2022 XNNPACK lacks is TP_ERR_UNSUPPORTED, naming it. */
static void test_unsupported(void) {
  static int8_t wq[2 * 64];
  static float sc[2 * 2];
  int64_t s264[2] = {2, 64}, s22[2] = {2, 2};
  tp_storage s;
  tp_tensor w, scale = view_f32(sc, 4, 2, s22);
  size_t d264[2] = {2, 64}, d4[1] = {4};
  tp_xnn_graph *g;
  tp_membuf blob;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  s.data = wq;
  s.nbytes = sizeof wq;
  sc[0] = sc[1] = sc[2] = sc[3] = 1.0f;
  TPT_STATUS(tp_view(s, TP_I8, 2, s264, NULL, 0, &w, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &scale, 2, 0, 32,
                                                            d264, &w, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  write_blob(g, &blob);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(e.msg, "value 0: datatype qbint4 (10) is not in the linked XNNPACK");
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);

  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_tanh(g, 0, 1, 0), TP_OK);
  write_blob(g, &blob);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(e.msg, "node 1: tanh is not in the linked XNNPACK");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Datatypes are mapped by name, not number (the schema's qbint4 = 10 is XNNPACK's qpint8, its
   int32 = 12 XNNPACK's qbint4): with the linked library's names detected at compile time, each
   schema datatype either loads as itself or is refused naming it, never cast to another. */
static void test_datatype_mapping(void) {
  int dt;
  for (dt = TP_XNN_FP32; dt <= TP_XNN_BF16; dt++) {
    tp_xnn_graph *g;
    tp_membuf blob;
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    size_t d[2] = {2, 64};
    tp_status st;
    char want[128];
    TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
    if (dt == TP_XNN_QINT8 || dt == TP_XNN_QUINT8 || dt == TP_XNN_QINT32)
      st = tp_xnn_define_quantized_tensor_value(g, (tp_xnn_datatype)dt, 0, 0.5f, 2, d, NULL, 0,
                                                TP_XNN_FLAG_EXTERNAL_INPUT, NULL);
    else if (dt == TP_XNN_QDINT8 || dt == TP_XNN_QPINT8)
      st = tp_xnn_define_dynamically_quantized_tensor_value(g, (tp_xnn_datatype)dt, 2, 1, d, 0,
                                                            TP_XNN_FLAG_EXTERNAL_INPUT, NULL);
    else if (dt == TP_XNN_QCINT8 || dt == TP_XNN_QCINT32 || dt == TP_XNN_QCINT4 ||
             dt == TP_XNN_QBINT4)
      st = TP_ERR_INVALID; /* constants only: covered by test_unsupported and the conv tests */
    else
      st = tp_xnn_define_tensor_value(g, (tp_xnn_datatype)dt, 2, d, NULL, 0,
                                      TP_XNN_FLAG_EXTERNAL_INPUT, NULL);
    if (st != TP_OK) {
      tp_xnn_graph_destroy(g);
      continue;
    }
    write_blob(g, &blob);
    memset(&e, 0, sizeof e);
    st = tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e);
#if TP_XNN_RUNTIME_ALL_DATATYPES
    TPT_STATUS(st, TP_OK);
#else
    if (dt <= TP_XNN_QCINT32) {
      TPT_STATUS(st, TP_OK);
    } else {
      TPT_STATUS(st, TP_ERR_UNSUPPORTED);
      snprintf(want, sizeof want, "value 0: datatype %s (%d) is not in the linked XNNPACK",
               tp_xnn_datatype_name(dt), dt);
      TPT_EQ_STR(e.msg, want);
    }
#endif
    (void)want;
    tp_xnn_runtime_destroy(rt);
    rt = NULL;
    tp_membuf_free(&blob);
    tp_xnn_graph_destroy(g);
  }
}

/* Two nodes writing one value, or a node writing a constant: XNNPACK 2022 would abort in
   xnn_create_runtime, so the loader refuses the blob (TP_ERR_FORMAT) first. */
static void test_one_producer_per_value(void) {
  size_t d4[1] = {4};
  float c[4] = {1, 2, 3, 4};
  int64_t s4[1] = {4};
  tp_storage s;
  tp_tensor cv;
  tp_xnn_graph *g;
  tp_membuf blob;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t k;
  memset(&blob, 0, sizeof blob);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_negate(g, 0, 1, 0), TP_OK);
  write_blob(g, &blob);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "node 1 (negate): output_id (value 1) is already the output of another node");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);

  s.data = c;
  s.nbytes = sizeof c;
  TPT_STATUS(tp_view(s, TP_F32, 1, s4, NULL, 0, &cv, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &cv, TP_XNN_INVALID_ID, 0, &k),
             TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, k, 0), TP_OK);
  write_blob(g, &blob);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "node 0 (abs): output_id (value 1) is a constant");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Two values with one external id (the writer never makes that; a damaged or foreign blob
   can): XNNPACK would give both one storage and abort, so the loader refuses it. */
static void test_external_id_used_twice(void) {
  size_t d4[1] = {4};
  tp_xnn_graph *g;
  tp_membuf blob;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_fb_reader r;
  tp_fb_table root, xv, tv;
  tp_fb_vector values;
  uint8_t type = 0;
  uint16_t off;
  uint32_t fb_off;
  memset(&blob, 0, sizeof blob);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  write_blob(g, &blob);
  /* xvalues[1].external_id (XNNTensorValue field 4): 1 -> 0 */
  memset(&r, 0, sizeof r); /* tp_fb_reader_init wants a zeroed reader */
  fb_off = tp__get_le32(blob.data + 10);
  TPT_STATUS(tp_fb_reader_init(&r, blob.data + fb_off, tp__get_le32(blob.data + 14), "XN01",
                               &root), TP_OK);
  values = tp_fb_vector_field(&root, 2, 4);
  xv = tp_fb_vector_table(&values, 1);
  tv = tp_fb_union_field(&xv, 1, &type);
  TPT_EQ_INT(type, 1);
  TPT_EQ_INT(tp_fb_u32(&tv, 4, 0), 1);
  off = tp__get_le16(r.buf + tv.vtable + 4 + 2 * 4);
  TPT_CHECK(off != 0);
  tp__put_le32(blob.data + fb_off + tv.pos + off, 0);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "value 1: external id 0 is used twice");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* A malformed blob is refused, never a crash: truncations and single-byte corruptions. */
static void test_malformed(void) {
  int64_t sz[3] = {3, 8, 8};
  tp_tensor parent = view_f32(seed_storage, 192, 3, sz), w;
  tp_xnn_graph *g;
  tp_membuf blob;
  unsigned char *copy;
  size_t cut, i;
  int refused = 0, loaded = 0;
  tp_error e;
  tp_xnn_runtime *rt = NULL;
  TPT_STATUS(tp_select(&parent, 0, 1, &w, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  linear_graph(g, &w, 2);
  write_blob(g, &blob);
  tp_xnn_graph_destroy(g);
  copy = (unsigned char *)malloc(blob.size);
  /* truncated: every length below the full size is refused */
  for (cut = 0; cut < blob.size; cut += 7) {
    memcpy(copy, blob.data, blob.size);
    memset(&e, 0, sizeof e);
    if (tp_xnn_load(copy, cut, NULL, 0, 0, &rt, &e) == TP_OK) {
      loaded++;
      tp_xnn_runtime_destroy(rt);
    } else {
      refused++;
    }
  }
  TPT_EQ_INT(loaded, 0);
  /* corrupted header and flatbuffer bytes: refused or loaded, never a crash (ASan watches) */
  for (i = 0; i < 32u + tp__get_le32(blob.data + 14); i++) {
    memcpy(copy, blob.data, blob.size);
    copy[i] ^= 0x5a;
    memset(&e, 0, sizeof e);
    if (tp_xnn_load(copy, blob.size, NULL, 0, 0, &rt, &e) == TP_OK)
      tp_xnn_runtime_destroy(rt);
    else
      refused++;
  }
  printf("  malformed blobs refused: %d\n", refused);
  memcpy(copy, blob.data, blob.size);
  memcpy(copy + 32 + 4, "XN99", 4);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(copy, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "identifier is not XN00 or XN01");
  memcpy(copy, blob.data, blob.size);
  tp__put_le64(copy + 22, 1u << 20);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(copy, blob.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "XH00 header:");
  free(copy);
  tp_membuf_free(&blob);
}

/* A bare flatbuffer (no XH00 header, no constants) loads too, as upstream's loader allows. */
static void test_headerless_flatbuffer(void) {
  tp_xnn_graph *g;
  tp_membuf blob;
  size_t d4[1] = {4};
  static float x[4 + 4] = {-1.5f, 2.0f, -0.0f, 3.25f}, y[4];
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  if (write_blob(g, &blob)) {
    uint32_t fb_size = tp__get_le32(blob.data + 14);
    memset(&e, 0, sizeof e);
    TPT_STATUS(tp_xnn_load(blob.data + 32, fb_size, NULL, 0, 0, &rt, &e), TP_OK);
    if (rt) {
      TPT_STATUS(tp_xnn_runtime_bind(rt, 0, x), TP_OK);
      TPT_STATUS(tp_xnn_runtime_bind(rt, 1, y), TP_OK);
      TPT_STATUS(tp_xnn_runtime_bind(rt, 2, y), TP_ERR_INVALID);
      tp_xnn_runtime_destroy(rt);
      rt = NULL;
    }
  }
  /* ... and a fresh runtime computes |x| */
  if (blob.size) {
    TPT_STATUS(tp_xnn_load(blob.data, blob.size, NULL, 0, 0, &rt, &e), TP_OK);
    if (rt) {
      tp_xnn_runtime_bind(rt, 0, x);
      tp_xnn_runtime_bind(rt, 1, y);
      TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
      TPT_CHECK(y[0] == 1.5f && y[1] == 2.0f && y[2] == 0.0f && y[3] == 3.25f);
      tp_xnn_runtime_destroy(rt);
    }
  }
  tp_membuf_free(&blob);
  tp_xnn_graph_destroy(g);
}

/* Random damage (1-4 bytes anywhere, including the constant segment and the .ptd) to an inline
   per-channel blob and to a named blob + .ptd: refused or loaded, never a crash or a read
   outside the buffers (ASan watches every run). */
static void test_random_damage(void) {
  static float sc[4] = {0.5f, 0.25f, 2.0f, 1.0f};
  static int8_t wq[4 * 8];
  int64_t s4[1] = {4}, w48[4] = {4, 1, 1, 8}, s3[3] = {3, 8, 8};
  size_t xd[4] = {1, 1, 1, 8}, yd[4] = {1, 1, 1, 4};
  tp_storage ws;
  tp_tensor scale = view_f32(sc, 4, 1, s4), w, parent = view_f32(seed_storage, 192, 3, s3), fw;
  tp_xnn_graph *g;
  tp_store *store = NULL;
  tp_xnn_options o;
  tp_membuf blobs[2], ptd;
  tp_sink ps;
  uint32_t x, f, y;
  int k, iter, loaded = 0, refused = 0;
  for (k = 0; k < 32; k++) wq[k] = (int8_t)(k * 7 % 31 - 15);
  ws.data = wq;
  ws.nbytes = sizeof wq;
  TPT_STATUS(tp_view(ws, TP_I8, 4, w48, NULL, 0, &w, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 1, 0.1f, 4, xd, NULL, 0,
                                                  TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &scale, 4, 0,
                                                              NULL, &w, TP_XNN_INVALID_ID, 0,
                                                              &f), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 0.2f, 4, yd, NULL, 1,
                                                  TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 8, 4, -INFINITY,
                                          INFINITY, x, f, TP_XNN_INVALID_ID, y, 0), TP_OK);
  write_blob(g, &blobs[0]);
  tp_xnn_graph_destroy(g);
  TPT_STATUS(tp_select(&parent, 0, 1, &fw, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  linear_graph(g, &fw, 2);
  write_blob(g, &blobs[1]);
  tp_xnn_graph_destroy(g);
  memset(&ptd, 0, sizeof ptd);
  ps = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(store, &ps), TP_OK);
  for (iter = 0; iter < 4000; iter++) {
    int which = iter % 2, damage_ptd = which && (iter % 4 == 1), n = 1 + (int)(tpt_rand() % 4), j;
    const tp_membuf *src = damage_ptd ? &ptd : &blobs[which];
    unsigned char *b = (unsigned char *)malloc(src->size), *p2 = NULL;
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    memcpy(b, src->data, src->size);
    for (j = 0; j < n; j++) b[tpt_rand() % src->size] ^= (unsigned char)(1 + tpt_rand() % 255);
    memset(&e, 0, sizeof e);
    if (which) {
      p2 = damage_ptd ? b : ptd.data;
      if (tp_xnn_load(damage_ptd ? blobs[1].data : b, blobs[1].size, p2, ptd.size, 0, &rt, &e) ==
          TP_OK)
        loaded++;
      else
        refused++;
    } else {
      if (tp_xnn_load(b, src->size, NULL, 0, 0, &rt, &e) == TP_OK)
        loaded++;
      else
        refused++;
    }
    if (rt) tp_xnn_runtime_destroy(rt);
    free(b);
  }
  printf("  random damage: %d loaded, %d refused, no crash\n", loaded, refused);
  TPT_EQ_INT(loaded + refused, 4000);
  TPT_CHECK(refused > 0);
  tp_membuf_free(&blobs[0]);
  tp_membuf_free(&blobs[1]);
  tp_membuf_free(&ptd);
  tp_store_destroy(store);
}

/* Nodes whose parameters disagree with their values' dims are refused before XNNPACK sees them
   (it would read past the filter or write past the output). */
static void test_inconsistent_shapes_refused(void) {
  static float wf[4 * 8];
  int64_t w48[4] = {4, 1, 1, 8}, w2[2] = {4, 8};
  tp_tensor w4 = view_f32(wf, 32, 4, w48), wfc = view_f32(wf, 32, 2, w2);
  size_t xd[4] = {1, 3, 3, 8}, yd[4] = {1, 3, 3, 4}, fx[2] = {2, 8}, fy[2] = {3, 4};
  int k;
  for (k = 0; k < 3; k++) {
    tp_xnn_graph *g;
    tp_membuf m;
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    uint32_t x, f, y;
    TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
    if (k < 2) {
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, xd, NULL, 0,
                                            TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, NULL, &w4, TP_XNN_INVALID_ID, 0,
                                            &f), TP_OK);
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, yd, NULL, 1,
                                            TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
      /* k 0: a 3x3 kernel over a 1x1 filter; k 1: output 3x3 where padding 1 gives 5x5 */
      TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, k, 0, k, k ? 1 : 3, k ? 1 : 3, 1, 1, 1, 1, 1,
                                              8, 4, -INFINITY, INFINITY, x, f, TP_XNN_INVALID_ID,
                                              y, 0), TP_OK);
    } else {
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, fx, NULL, 0,
                                            TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &wfc, TP_XNN_INVALID_ID, 0,
                                            &f), TP_OK);
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, fy, NULL, 1,
                                            TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
      TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, f, TP_XNN_INVALID_ID,
                                               y, 0), TP_OK);
    }
    write_blob(g, &m);
    memset(&e, 0, sizeof e);
    TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
    /* the writer's define-time rules, applied by the loader (tests/test_xnn_checks.c) */
    TPT_CONTAINS(e.msg, k == 0 ? "convolution_2d #0: filter 1 is [4, 1, 1, 8], the node needs "
                                 "[4, 3, 3, 8]"
                        : k == 1 ? "convolution_2d #0: output 2 is [1, 3, 3, 4], the input "
                                   "[1, 3, 3, 8] and the window give height 3 and width 5"
                                 : "fully_connected #0: output 2 is [3, 4], input [2, 8] and "
                                   "filter [4, 8] give 2 rows of 4 output channels");
    TPT_CHECK(rt == NULL);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
  }
}

int main(void) {
  int i;
  g_unchecked.target = TP_XNN_TARGET_UNCHECKED;
  (void)tpt_range;
  for (i = 0; i < 192; i++) seed_storage[i] = frand() * 3.0f; /* randn-like spread */
  for (i = 0; i < 16; i++) seed_x[i] = frand();
  TPT_RUN(test_seed_offset_view);
  TPT_RUN(test_qkv_in_proj);
  TPT_RUN(test_per_channel_conv1x1_transposed_scale);
  TPT_RUN(test_named_mode_same_numbers);
  TPT_RUN(test_unsupported);
  TPT_RUN(test_datatype_mapping);
  TPT_RUN(test_one_producer_per_value);
  TPT_RUN(test_external_id_used_twice);
  TPT_RUN(test_malformed);
  TPT_RUN(test_headerless_flatbuffer);
  TPT_RUN(test_random_damage);
  TPT_RUN(test_inconsistent_shapes_refused);
  return tpt_finish("xnnrt_linear");
}
