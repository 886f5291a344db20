/* xnnrt_nodes.c - every node kind Debian's XNNPACK has, written by tensorpack, loaded by
   tp_xnn_load and run on the real library, against a C reference. Proves the define calls'
   argument order, the schema fields and the loader's mapping back to xnnpack.h agree. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

/* Input: NHWC [1, H, W, C]. */
enum { H = 4, W = 4, C = 2, NIN = H * W * C };
static float in_a[NIN + 4], in_b[NIN + 4], out[256], ref[256];
static size_t dims_in[4] = {1, H, W, C};

static tp_tensor view_f32(const float *p, size_t n, int ndim, const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = p;
  s.nbytes = n * sizeof(float);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sizes, NULL, 0, &t, NULL), TP_OK);
  return t;
}

/* Writes g, loads it, binds in_a (ext 0), in_b (ext 2 if present) and out (ext 1), runs. */
static tp_status run(tp_xnn_graph *g, int two_inputs) {
  tp_membuf m;
  tp_sink s;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_status st;
  memset(&m, 0, sizeof m);
  memset(&e, 0, sizeof e);
  s = tp_sink_membuf(&m);
  st = tp_xnn_write(g, &s);
  if (st != TP_OK) {
    printf("  write: %s\n", tp_xnn_graph_error(g));
    tp_membuf_free(&m);
    return st;
  }
  st = tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e);
  tp_membuf_free(&m);
  if (st != TP_OK) {
    printf("  load: %s\n", e.msg);
    return st;
  }
  tp_xnn_runtime_bind(rt, 0, in_a);
  tp_xnn_runtime_bind(rt, 1, out);
  if (two_inputs) tp_xnn_runtime_bind(rt, 2, in_b);
  st = tp_xnn_runtime_invoke(rt);
  if (st != TP_OK) printf("  invoke: %s\n", tp_xnn_runtime_error(rt));
  tp_xnn_runtime_destroy(rt);
  return st;
}

static double worst(size_t n) {
  double w = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    double d = fabs((double)out[i] - (double)ref[i]);
    if (!(d <= w)) w = d; /* NaN counts */
  }
  return w;
}

/* A graph with input [1,H,W,C] (ext 0), optional second input (ext 2), output (ext 1). */
/* Target: the linked (Debian) XNNPACK, not ExecuTorch's pin: its global average pooling
   drops the pooled dims without TP_XNN_FLAG_KEEP_DIMS the old way. */
static tp_xnn_graph *graph_io(size_t ndo, const size_t *dout, int two, uint32_t *a, uint32_t *b,
                              uint32_t *y) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_XNNPACK;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dims_in, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, a), TP_OK);
  if (two)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dims_in, NULL, 2,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, b), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, ndo, dout, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, y), TP_OK);
  return g;
}

static float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

static void test_unary(void) {
  int k, i;
  for (k = 0; k < 11; k++) {
    uint32_t a, y;
    tp_xnn_graph *g = graph_io(4, dims_in, 0, &a, NULL, &y);
    const char *name = "";
    tp_status st = TP_OK;
    double tol = 1e-6;
    for (i = 0; i < NIN; i++) {
      float x = in_a[i];
      switch (k) {
        case 0: name = "abs"; ref[i] = fabsf(x); break;
        case 1: name = "negate"; ref[i] = -x; break;
        case 2: name = "square"; ref[i] = x * x; break;
        case 3: name = "square_root"; ref[i] = sqrtf(fabsf(x)); break;
        case 4: name = "floor"; ref[i] = floorf(x); break;
        case 5: name = "ceiling"; ref[i] = ceilf(x); break;
        case 6: name = "sigmoid"; ref[i] = sigm(x); tol = 1e-5; break;
        case 7: name = "hardswish"; ref[i] = x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f; tol = 1e-5; break;
        case 8: name = "elu"; ref[i] = x > 0 ? x : 0.7f * (expf(x) - 1.0f); tol = 1e-5; break;
        case 9: name = "leaky_relu"; ref[i] = x > 0 ? x : 0.125f * x; break;
        default: name = "clamp"; ref[i] = fminf(fmaxf(x, -0.5f), 1.25f); break;
      }
    }
    if (k == 3) /* square root of |x|: feed |x| */
      for (i = 0; i < NIN; i++) in_a[i] = fabsf(in_a[i]);
    switch (k) {
      case 0: st = tp_xnn_define_abs(g, a, y, 0); break;
      case 1: st = tp_xnn_define_negate(g, a, y, 0); break;
      case 2: st = tp_xnn_define_square(g, a, y, 0); break;
      case 3: st = tp_xnn_define_square_root(g, a, y, 0); break;
      case 4: st = tp_xnn_define_floor(g, a, y, 0); break;
      case 5: st = tp_xnn_define_ceiling(g, a, y, 0); break;
      case 6: st = tp_xnn_define_sigmoid(g, a, y, 0); break;
      case 7: st = tp_xnn_define_hardswish(g, a, y, 0); break;
      case 8: st = tp_xnn_define_elu(g, 0.7f, a, y, 0); break;
      case 9: st = tp_xnn_define_leaky_relu(g, 0.125f, a, y, 0); break;
      default: st = tp_xnn_define_clamp(g, -0.5f, 1.25f, a, y, 0); break;
    }
    TPT_STATUS(st, TP_OK);
    TPT_STATUS(run(g, 0), TP_OK);
    if (worst(NIN) > tol) printf("  %s: max |err| %.3g\n", name, worst(NIN));
    TPT_CHECK(worst(NIN) <= tol);
    if (k == 3)
      for (i = 0; i < NIN; i++) in_a[i] = (float)((i * 37) % 23) * 0.25f - 2.6f;
    tp_xnn_graph_destroy(g);
  }
}

static void test_binary(void) {
  int k, i;
  for (k = 0; k < 6; k++) {
    uint32_t a, b, y;
    tp_xnn_graph *g = graph_io(4, dims_in, 1, &a, &b, &y);
    tp_status st = TP_OK;
    for (i = 0; i < NIN; i++) {
      float x = in_a[i], z = in_b[i];
      ref[i] = k == 0 ? x + z : k == 1 ? x - z : k == 2 ? x * z : k == 3 ? x / z
               : k == 4 ? fmaxf(x, z) : fminf(x, z);
      if (k < 4) ref[i] = fminf(fmaxf(ref[i], -3.0f), 3.0f); /* output_min_max */
    }
    switch (k) {
      case 0: st = tp_xnn_define_add2(g, -3.0f, 3.0f, a, b, y, 0); break;
      case 1: st = tp_xnn_define_subtract(g, -3.0f, 3.0f, a, b, y, 0); break;
      case 2: st = tp_xnn_define_multiply2(g, -3.0f, 3.0f, a, b, y, 0); break;
      case 3: st = tp_xnn_define_divide(g, -3.0f, 3.0f, a, b, y, 0); break;
      case 4: st = tp_xnn_define_maximum2(g, a, b, y, 0); break;
      default: st = tp_xnn_define_minimum2(g, a, b, y, 0); break;
    }
    TPT_STATUS(st, TP_OK);
    TPT_STATUS(run(g, 1), TP_OK);
    if (worst(NIN) > 1e-6) printf("  binary %d: max |err| %.3g\n", k, worst(NIN));
    TPT_CHECK(worst(NIN) <= 1e-6);
    tp_xnn_graph_destroy(g);
  }
}

/* PReLU with a per-channel slope that is an offset view into a bigger storage. */
static void test_prelu_softmax_reshape(void) {
  static float slopes[6] = {9, 9, 9, 0.25f, -0.5f, 9};
  int64_t s2[1] = {2}, s6[1] = {6};
  tp_tensor all = view_f32(slopes, 6, 1, s6), sl;
  uint32_t a, s, y;
  size_t dflat[1] = {NIN};
  tp_xnn_graph *g;
  int i, r, c;
  (void)s2;
  TPT_STATUS(tp_narrow(&all, 0, 3, 2, &sl, NULL), TP_OK);
  g = graph_io(4, dims_in, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &sl, TP_XNN_INVALID_ID, 0, &s),
             TP_OK);
  TPT_STATUS(tp_xnn_define_prelu(g, a, s, y, 0), TP_OK);
  for (i = 0; i < NIN; i++) ref[i] = in_a[i] >= 0 ? in_a[i] : in_a[i] * slopes[3 + i % C];
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(NIN) <= 1e-6);
  tp_xnn_graph_destroy(g);

  g = graph_io(4, dims_in, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_softmax(g, a, y, 0), TP_OK);
  for (r = 0; r < NIN / C; r++) {
    float m = -INFINITY, sum = 0;
    for (c = 0; c < C; c++) m = fmaxf(m, in_a[r * C + c]);
    for (c = 0; c < C; c++) sum += expf(in_a[r * C + c] - m);
    for (c = 0; c < C; c++) ref[r * C + c] = expf(in_a[r * C + c] - m) / sum;
  }
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(NIN) <= 1e-5);
  tp_xnn_graph_destroy(g);

  g = graph_io(1, dflat, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_static_reshape(g, 1, dflat, a, y, 0), TP_OK);
  for (i = 0; i < NIN; i++) ref[i] = in_a[i];
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(NIN) == 0);
  tp_xnn_graph_destroy(g);
}

static void test_pad_and_pools(void) {
  size_t pre[4] = {0, 1, 0, 0}, post[4] = {0, 0, 2, 0};
  size_t dpad[4] = {1, H + 1, W + 2, C}, dg[4] = {1, 1, 1, C}, dp[4] = {1, H / 2, W / 2, C};
  uint32_t a, y;
  tp_xnn_graph *g;
  int h, w, c, i, j;
  g = graph_io(4, dpad, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_static_constant_pad(g, pre, post, 0.5f, a, y, 0), TP_OK);
  for (h = 0; h < H + 1; h++)
    for (w = 0; w < W + 2; w++)
      for (c = 0; c < C; c++)
        ref[(h * (W + 2) + w) * C + c] =
            (h >= 1 && w < W) ? in_a[((h - 1) * W + w) * C + c] : 0.5f;
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst((H + 1) * (W + 2) * C) == 0);
  tp_xnn_graph_destroy(g);

  g = graph_io(4, dg, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_global_average_pooling_2d(g, -INFINITY, INFINITY, a, y, 0), TP_OK);
  for (c = 0; c < C; c++) {
    float s = 0;
    for (i = 0; i < H * W; i++) s += in_a[i * C + c];
    ref[c] = s / (float)(H * W);
  }
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(C) <= 1e-5);
  tp_xnn_graph_destroy(g);

  for (j = 0; j < 2; j++) {
    g = graph_io(4, dp, 0, &a, NULL, &y);
    if (j == 0)
      TPT_STATUS(tp_xnn_define_average_pooling_2d(g, 0, 0, 0, 0, 2, 2, 2, 2, -INFINITY,
                                                  INFINITY, a, y, 0), TP_OK);
    else
      TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, -INFINITY,
                                              INFINITY, a, y, 0), TP_OK);
    for (h = 0; h < H / 2; h++)
      for (w = 0; w < W / 2; w++)
        for (c = 0; c < C; c++) {
          float v00 = in_a[((2 * h) * W + 2 * w) * C + c], v01 = in_a[((2 * h) * W + 2 * w + 1) * C + c];
          float v10 = in_a[((2 * h + 1) * W + 2 * w) * C + c], v11 = in_a[((2 * h + 1) * W + 2 * w + 1) * C + c];
          ref[(h * (W / 2) + w) * C + c] = j == 0 ? (v00 + v01 + v10 + v11) / 4.0f
                                                  : fmaxf(fmaxf(v00, v01), fmaxf(v10, v11));
        }
    TPT_STATUS(run(g, 0), TP_OK);
    TPT_CHECK(worst(H * W * C / 4) <= 1e-5);
    tp_xnn_graph_destroy(g);
  }
}

/* Depthwise 3x3 (pad 1) and a 1x1 fp32 convolution whose filter is a transposed view. */
static void test_convolutions(void) {
  static float dw[3 * 3 * C], bias[C] = {0.5f, -0.25f}, wt_store[C * 3]; /* [C_in][C_out=3] */
  int64_t sdw[4] = {1, 3, 3, C}, sb[1] = {C}, swt[2] = {C, 3};
  tp_tensor tdw, tb, twt, tfilt;
  size_t dout3[4] = {1, H, W, 3};
  uint32_t a, y, f, b;
  tp_xnn_graph *g;
  int h, w, c, kh, kw, o, i;
  for (i = 0; i < 9 * C; i++) dw[i] = (float)(i % 7) * 0.125f - 0.3f;
  for (i = 0; i < C * 3; i++) wt_store[i] = (float)i * 0.5f - 1.0f;
  tdw = view_f32(dw, 9 * C, 4, sdw);
  tb = view_f32(bias, C, 1, sb);
  g = graph_io(4, dims_in, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, NULL, &tdw, TP_XNN_INVALID_ID, 0, &f),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &tb, TP_XNN_INVALID_ID, 0, &b),
             TP_OK);
  TPT_STATUS(tp_xnn_define_depthwise_convolution_2d(g, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, C,
                                                    -INFINITY, INFINITY, a, f, b, y, 0), TP_OK);
  for (h = 0; h < H; h++)
    for (w = 0; w < W; w++)
      for (c = 0; c < C; c++) {
        float s = bias[c];
        for (kh = 0; kh < 3; kh++)
          for (kw = 0; kw < 3; kw++) {
            int ih = h + kh - 1, iw = w + kw - 1;
            if (ih < 0 || iw < 0 || ih >= H || iw >= W) continue;
            s += in_a[(ih * W + iw) * C + c] * dw[(kh * 3 + kw) * C + c];
          }
        ref[(h * W + w) * C + c] = s;
      }
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(NIN) <= 1e-5);
  tp_xnn_graph_destroy(g);

  /* filter OHWI [3,1,1,C] = transpose of a [C][3] storage: the transposed view is copied */
  twt = view_f32(wt_store, C * 3, 2, swt);
  TPT_STATUS(tp_transpose(&twt, 0, 1, &tfilt, NULL), TP_OK); /* [3][C] */
  {
    int64_t s4[4] = {3, 1, 1, C}, st4[4];
    tp_tensor f4;
    st4[0] = tfilt.strides[0];
    st4[1] = st4[2] = 0;
    st4[3] = tfilt.strides[1];
    TPT_STATUS(tp_view(tfilt.storage, TP_F32, 4, s4, st4, 0, &f4, NULL), TP_OK);
    g = graph_io(4, dout3, 0, &a, NULL, &y);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, NULL, &f4, TP_XNN_INVALID_ID, 0, &f),
               TP_OK);
    TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, C, 3, -INFINITY,
                                            INFINITY, a, f, TP_XNN_INVALID_ID, y, 0), TP_OK);
  }
  for (i = 0; i < H * W; i++)
    for (o = 0; o < 3; o++) {
      float s = 0;
      for (c = 0; c < C; c++) s += in_a[i * C + c] * wt_store[c * 3 + o];
      ref[i * 3 + o] = s;
    }
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(H * W * 3) <= 1e-5);
  tp_xnn_graph_destroy(g);
}

/* Resize to the same size (identity), argmax pooling, convert (quantize), 1x1 deconvolution. */
static void test_resize_argmax_convert_deconv(void) {
  static float wd[3 * C];
  static int8_t q[NIN + 16];
  static uint32_t idx[64];
  int64_t swd[4] = {3, 1, 1, C};
  tp_tensor twd;
  size_t dp[4] = {1, H / 2, W / 2, C}, dout3[4] = {1, H, W, 3};
  uint32_t a, y, yi, f;
  tp_xnn_graph *g;
  tp_membuf m;
  tp_sink s;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  int h, w, c, i, o;

  g = graph_io(4, dims_in, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_static_resize_bilinear_2d(g, H, W, a, y, 0), TP_OK);
  for (i = 0; i < NIN; i++) ref[i] = in_a[i];
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(NIN) <= 1e-6);
  tp_xnn_graph_destroy(g);

  /* argmax pooling: two outputs, values (ext 1) and uint32 indices (ext 2; ids are dense) */
  g = graph_io(4, dp, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dp, NULL, 2,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi), TP_OK);
  TPT_STATUS(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, a, y, yi, 0), TP_OK);
  memset(&m, 0, sizeof m);
  memset(&e, 0, sizeof e);
  s = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) {
    tp_xnn_runtime_bind(rt, 0, in_a);
    tp_xnn_runtime_bind(rt, 1, out);
    tp_xnn_runtime_bind(rt, 2, idx);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    tp_xnn_runtime_destroy(rt);
    for (h = 0; h < H / 2; h++)
      for (w = 0; w < W / 2; w++)
        for (c = 0; c < C; c++) {
          float best = -INFINITY;
          uint32_t bi = 0, k;
          for (k = 0; k < 4; k++) {
            float v = in_a[((2 * h + (int)(k / 2)) * W + 2 * w + (int)(k % 2)) * C + c];
            if (v > best) {
              best = v;
              bi = (k % 2) * 2 + k / 2; /* XNNPACK numbers the window column by column */
            }
          }
          ref[(h * (W / 2) + w) * C + c] = best;
          TPT_EQ_INT(idx[(h * (W / 2) + w) * C + c], bi);
        }
    TPT_CHECK(worst(H * W * C / 4) == 0);
  } else {
    printf("  load: %s\n", e.msg);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);

  /* convert fp32 -> qint8 (scale 0.05, zero point -3) */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dims_in, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &a), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -3, 0.05f, 4, dims_in, NULL,
                                                  1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_convert(g, a, y, 0), TP_OK);
  memset(&m, 0, sizeof m);
  memset(&e, 0, sizeof e);
  s = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) {
    int bad = 0;
    tp_xnn_runtime_bind(rt, 0, in_a);
    tp_xnn_runtime_bind(rt, 1, q);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    tp_xnn_runtime_destroy(rt);
    for (i = 0; i < NIN; i++) {
      long r = lrintf(in_a[i] / 0.05f) - 3;
      if (r < -128) r = -128;
      if (r > 127) r = 127;
      if (labs(r - q[i]) > 1) bad++;
    }
    TPT_EQ_INT(bad, 0);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);

  /* 1x1 deconvolution, stride 1: y = x W^T per pixel */
  for (i = 0; i < 3 * C; i++) wd[i] = 0.25f * (float)i - 0.5f;
  twd = view_f32(wd, 3 * C, 4, swd);
  g = graph_io(4, dout3, 0, &a, NULL, &y);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, NULL, &twd, TP_XNN_INVALID_ID, 0, &f),
             TP_OK);
  TPT_STATUS(tp_xnn_define_deconvolution_2d(g, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, C, 3,
                                            -INFINITY, INFINITY, a, f, TP_XNN_INVALID_ID, y, 0),
             TP_OK);
  for (i = 0; i < H * W; i++)
    for (o = 0; o < 3; o++) {
      float acc = 0;
      for (c = 0; c < C; c++) acc += in_a[i * C + c] * wd[o * C + c];
      ref[i * 3 + o] = acc;
    }
  TPT_STATUS(run(g, 0), TP_OK);
  TPT_CHECK(worst(H * W * 3) <= 1e-5);
  tp_xnn_graph_destroy(g);
}

int main(void) {
  int i;
  (void)tpt_range;
  for (i = 0; i < NIN; i++) {
    in_a[i] = (float)((i * 37) % 23) * 0.25f - 2.6f;
    in_b[i] = (float)((i * 11) % 9) * 0.5f + 0.25f;
  }
  TPT_RUN(test_unary);
  TPT_RUN(test_binary);
  TPT_RUN(test_prelu_softmax_reshape);
  TPT_RUN(test_pad_and_pools);
  TPT_RUN(test_convolutions);
  TPT_RUN(test_resize_argmax_convert_deconv);
  return tpt_finish("xnnrt_nodes");
}
