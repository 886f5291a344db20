/* xnnrt_torch_layouts.c - PyTorch weights given as they lie (OIHW, [C*m,1,kh,kw], ConvTranspose2d
   [I,O/g,kh,kw], transformers' Conv1D [in,out], nn.Linear [out,in]) to the _torch define calls,
   written, loaded onto the real XNNPACK and run, against a plain C reference that computes in
   PyTorch's own layout (NCHW input, the weight as given). The first case is the coincident
   shape (nn.Conv2d(3, 16, 3): OIHW and OHWI are both [16, 3, 3, 3]): the raw OIHW weight given
   to tp_xnn_define_convolution_2d is accepted and wrong; through tp_xnn_define_conv2d_torch it
   is right. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

enum { MAXN = 4096 };
static float g_w[MAXN], g_b[64], g_x[MAXN], g_xnhwc[MAXN], g_y[MAXN], g_ref[MAXN];

static void fill(float *p, size_t n, double k) {
  size_t i;
  for (i = 0; i < n; i++) p[i] = (float)(sin(k * (double)(i + 1)) * 0.8);
}

static tp_tensor view4(const float *p, size_t cap, int64_t a, int64_t b, int64_t c, int64_t d) {
  tp_storage s;
  tp_tensor t;
  int64_t sz[4];
  sz[0] = a; sz[1] = b; sz[2] = c; sz[3] = d;
  s.data = p;
  s.nbytes = cap * sizeof(float);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, 4, sz, NULL, 0, &t, NULL), TP_OK);
  return t;
}
static tp_tensor view_n(const float *p, int ndim, const int64_t *sz) {
  tp_storage s;
  tp_tensor t;
  int64_t n = 1;
  int i;
  for (i = 0; i < ndim; i++) n *= sz[i];
  s.data = p;
  s.nbytes = (size_t)n * sizeof(float);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sz, NULL, 0, &t, NULL), TP_OK);
  return t;
}

/* NCHW [1, C, H, W] -> NHWC */
static void to_nhwc(const float *x, int c, int h, int w, float *out) {
  int ci, y, xx;
  for (ci = 0; ci < c; ci++)
    for (y = 0; y < h; y++)
      for (xx = 0; xx < w; xx++) out[(y * w + xx) * c + ci] = x[(ci * h + y) * w + xx];
}

/* PyTorch's conv2d, N = 1: x [IC, H, W], w [OC, IC/g, kh, kw], y [OC, OH, OW] */
static void ref_conv(const float *x, int ic, int h, int w, const float *wt, const float *b,
                     int oc, int kh, int kw, int s, int p, int d, int g, float lo, float hi,
                     float *y, int *oh_out, int *ow_out) {
  int oh = (h + 2 * p - d * (kh - 1) - 1) / s + 1, ow = (w + 2 * p - d * (kw - 1) - 1) / s + 1;
  int gic = ic / g, goc = oc / g, o, i, oy, ox, ky, kx;
  for (o = 0; o < oc; o++)
    for (oy = 0; oy < oh; oy++)
      for (ox = 0; ox < ow; ox++) {
        double acc = b ? b[o] : 0.0;
        int grp = o / goc;
        for (i = 0; i < gic; i++)
          for (ky = 0; ky < kh; ky++)
            for (kx = 0; kx < kw; kx++) {
              int iy = oy * s - p + ky * d, ix = ox * s - p + kx * d;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              acc += (double)x[((grp * gic + i) * h + iy) * w + ix] *
                     (double)wt[((o * gic + i) * kh + ky) * kw + kx];
            }
        if (acc < lo) acc = lo;
        if (acc > hi) acc = hi;
        y[(o * oh + oy) * ow + ox] = (float)acc;
      }
  *oh_out = oh;
  *ow_out = ow;
}

/* PyTorch's conv_transpose2d, N = 1: x [IC, H, W], w [IC, OC/g, kh, kw], y [OC, OH, OW] */
static void ref_deconv(const float *x, int ic, int h, int w, const float *wt, const float *b,
                       int oc, int kh, int kw, int s, int p, int op, int g, float *y,
                       int *oh_out, int *ow_out) {
  int oh = (h - 1) * s - 2 * p + (kh - 1) + op + 1, ow = (w - 1) * s - 2 * p + (kw - 1) + op + 1;
  int gic = ic / g, goc = oc / g, i, o, iy, ix, ky, kx, k;
  double *acc = (double *)calloc((size_t)(oc * oh * ow), sizeof(double));
  if (!acc) return;
  for (i = 0; i < ic; i++) {
    int grp = i / gic;
    for (o = 0; o < goc; o++)
      for (iy = 0; iy < h; iy++)
        for (ix = 0; ix < w; ix++)
          for (ky = 0; ky < kh; ky++)
            for (kx = 0; kx < kw; kx++) {
              int oy = iy * s - p + ky, ox = ix * s - p + kx;
              if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
              acc[((grp * goc + o) * oh + oy) * ow + ox] +=
                  (double)x[(i * h + iy) * w + ix] * (double)wt[((i * goc + o) * kh + ky) * kw + kx];
            }
  }
  for (k = 0; k < oc * oh * ow; k++) y[k] = (float)(acc[k] + (b ? b[k / (oh * ow)] : 0.0));
  free(acc);
  *oh_out = oh;
  *ow_out = ow;
}

/* A graph: input NHWC (ext 0) and output NHWC (ext 1); returns ids through a / y. */
static tp_xnn_graph *graph(const size_t *din, const size_t *dout, size_t nd, uint32_t *a,
                           uint32_t *y) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_XNNPACK;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  if (!g) return NULL;
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, nd, din, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, a), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, nd, dout, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, y), TP_OK);
  return g;
}

/* writes g, loads it, runs input -> g_y; destroys g */
static tp_status run(tp_xnn_graph *g, float *input) {
  tp_membuf m;
  tp_sink s;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_status st;
  memset(&m, 0, sizeof m);
  s = tp_sink_membuf(&m);
  st = tp_xnn_write(g, &s);
  if (st != TP_OK) printf("  write: %s\n", tp_xnn_graph_error(g));
  tp_xnn_graph_destroy(g);
  if (st != TP_OK) {
    tp_membuf_free(&m);
    return st;
  }
  st = tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e);
  tp_membuf_free(&m);
  if (st != TP_OK) {
    printf("  load: %s\n", e.msg);
    return st;
  }
  tp_xnn_runtime_bind(rt, 0, input);
  tp_xnn_runtime_bind(rt, 1, g_y);
  st = tp_xnn_runtime_invoke(rt);
  if (st != TP_OK) printf("  invoke: %s\n", tp_xnn_runtime_error(rt));
  tp_xnn_runtime_destroy(rt);
  return st;
}

/* max |y_nhwc - ref_nchw| */
static double worst_nhwc(int c, int h, int w) {
  double m = 0;
  int ci, y, x;
  for (ci = 0; ci < c; ci++)
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        double d = fabs((double)g_y[(y * w + x) * c + ci] - (double)g_ref[(ci * h + y) * w + x]);
        if (!(d <= m)) m = d;
      }
  return m;
}

/* Conv2d(ic, oc, k, stride, padding, groups) with bias and an optional clamp, through
   tp_xnn_define_conv2d_torch; returns the worst error against the reference. */
static double conv_case(int ic, int oc, int k, int s, int p, int groups, float lo, float hi,
                        int *node_kind) {
  int h = 7, w = 6, oh, ow;
  tp_tensor wt, bias;
  tp_xnn_conv2d_args a;
  tp_xnn_graph *g;
  size_t din[4], dout[4];
  uint32_t x, y, fid, bid;
  tp_xnn_value_info vi;
  int64_t bsz[1];
  fill(g_w, (size_t)(oc * (ic / groups) * k * k), 0.37);
  fill(g_b, (size_t)oc, 1.3);
  fill(g_x, (size_t)(ic * h * w), 0.71);
  to_nhwc(g_x, ic, h, w, g_xnhwc);
  ref_conv(g_x, ic, h, w, g_w, g_b, oc, k, k, s, p, 1, groups, lo, hi, g_ref, &oh, &ow);
  wt = view4(g_w, MAXN, oc, ic / groups, k, k);
  bsz[0] = oc;
  bias = view_n(g_b, 1, bsz);
  din[0] = 1; din[1] = (size_t)h; din[2] = (size_t)w; din[3] = (size_t)ic;
  dout[0] = 1; dout[1] = (size_t)oh; dout[2] = (size_t)ow; dout[3] = (size_t)oc;
  g = graph(din, dout, 4, &x, &y);
  if (!g) return 1e9;
  memset(&a, 0, sizeof a);
  a.stride[0] = a.stride[1] = (uint32_t)s;
  a.padding[0] = a.padding[1] = (uint32_t)p;
  a.groups = (uint32_t)groups;
  a.output_min = lo == -INFINITY ? 0.0f : lo;
  a.output_max = hi == INFINITY ? 0.0f : hi;
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, &a, x, &wt, &bias, y, &fid, &bid), TP_OK);
  /* the filter defined tells the node: depthwise [1, kh, kw, O], else OHWI [O, kh, kw, I/g] */
  memset(&vi, 0, sizeof vi);
  TPT_STATUS(tp_xnn_graph_value(g, fid, &vi), TP_OK);
  TPT_EQ_INT(vi.is_constant, 1);
  TPT_EQ_INT((int)vi.num_dims, 4);
  if (vi.dims[0] == 1 && vi.dims[3] == (size_t)oc && oc > 1) *node_kind = TP_XNN_NODE_DEPTHWISE_CONV2D;
  else if (vi.dims[0] == (size_t)oc && vi.dims[3] == (size_t)(ic / groups)) *node_kind = TP_XNN_NODE_CONV2D;
  else *node_kind = -1;
  TPT_CHECK(bid != TP_XNN_INVALID_ID);
  if (run(g, g_xnhwc) != TP_OK) return 1e9;
  return worst_nhwc(oc, oh, ow);
}

static void test_coincident_shape(void) {
  /* nn.Conv2d(3, 16, 3, padding=1): OIHW [16, 3, 3, 3] == OHWI [16, 3, 3, 3] */
  int h = 7, w = 6, oh, ow, kind;
  tp_tensor wt;
  tp_xnn_graph *g;
  size_t din[4] = {1, 7, 6, 3}, dout[4];
  uint32_t x, y, f;
  double right, wrong;
  right = conv_case(3, 16, 3, 1, 1, 1, -INFINITY, INFINITY, &kind);
  TPT_CHECK(right < 1e-4);
  TPT_EQ_INT(kind, TP_XNN_NODE_CONV2D);
  printf("  Conv2d(3, 16, 3) through tp_xnn_define_conv2d_torch: max error %.2g\n", right);
  /* the same weight given raw to the OHWI call: accepted, and wrong */
  ref_conv(g_x, 3, h, w, g_w, NULL, 16, 3, 3, 1, 1, 1, 1, -INFINITY, INFINITY, g_ref, &oh, &ow);
  dout[0] = 1; dout[1] = (size_t)oh; dout[2] = (size_t)ow; dout[3] = 16;
  g = graph(din, dout, 4, &x, &y);
  if (!g) return;
  wt = view4(g_w, MAXN, 16, 3, 3, 3);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, NULL, &wt, TP_XNN_INVALID_ID, 0, &f),
             TP_OK);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 3, 16, -INFINITY,
                                          INFINITY, x, f, TP_XNN_INVALID_ID, y, 0), TP_OK);
  TPT_STATUS(run(g, g_xnhwc), TP_OK);
  wrong = worst_nhwc(16, oh, ow);
  printf("  the raw OIHW weight given as OHWI: accepted, max error %.2g\n", wrong);
  TPT_CHECK(wrong > 0.01);
}

static void test_grouped_depthwise_clamp(void) {
  int kind;
  double e;
  e = conv_case(4, 6, 3, 1, 1, 2, -INFINITY, INFINITY, &kind); /* groups 2: grouped conv */
  printf("  Conv2d(4, 6, 3, groups=2): max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
  TPT_EQ_INT(kind, TP_XNN_NODE_CONV2D);
  e = conv_case(4, 8, 3, 2, 1, 4, -INFINITY, INFINITY, &kind); /* depthwise, multiplier 2 */
  printf("  Conv2d(4, 8, 3, stride=2, groups=4) (depthwise x2): max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
  TPT_EQ_INT(kind, TP_XNN_NODE_DEPTHWISE_CONV2D);
  e = conv_case(5, 5, 3, 1, 1, 5, 0.0f, 0.25f, &kind); /* depthwise + a relu6-like clamp */
  printf("  Conv2d(5, 5, 3, groups=5) + clamp(0, 0.25): max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
  e = conv_case(2, 3, 1, 1, 0, 1, 0.0f, 6.0f, &kind); /* pointwise, relu6 */
  printf("  Conv2d(2, 3, 1) + F.relu6: max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
}

static double deconv_case(int ic, int oc, int k, int s, int p, int op, int groups) {
  int h = 4, w = 5, oh, ow;
  tp_tensor wt, bias;
  tp_xnn_conv2d_args a;
  tp_xnn_graph *g;
  size_t din[4], dout[4];
  uint32_t x, y;
  int64_t bsz[1];
  fill(g_w, (size_t)(ic * (oc / groups) * k * k), 0.53);
  fill(g_b, (size_t)oc, 0.9);
  fill(g_x, (size_t)(ic * h * w), 0.29);
  to_nhwc(g_x, ic, h, w, g_xnhwc);
  ref_deconv(g_x, ic, h, w, g_w, g_b, oc, k, k, s, p, op, groups, g_ref, &oh, &ow);
  wt = view4(g_w, MAXN, ic, oc / groups, k, k);
  bsz[0] = oc;
  bias = view_n(g_b, 1, bsz);
  din[0] = 1; din[1] = (size_t)h; din[2] = (size_t)w; din[3] = (size_t)ic;
  dout[0] = 1; dout[1] = (size_t)oh; dout[2] = (size_t)ow; dout[3] = (size_t)oc;
  g = graph(din, dout, 4, &x, &y);
  if (!g) return 1e9;
  memset(&a, 0, sizeof a);
  a.stride[0] = a.stride[1] = (uint32_t)s;
  a.padding[0] = a.padding[1] = (uint32_t)p;
  a.output_padding[0] = a.output_padding[1] = (uint32_t)op;
  a.groups = (uint32_t)groups;
  TPT_STATUS(tp_xnn_define_conv_transpose2d_torch(g, &a, x, &wt, &bias, y, NULL, NULL), TP_OK);
  if (run(g, g_xnhwc) != TP_OK) return 1e9;
  return worst_nhwc(oc, oh, ow);
}

static void test_conv_transpose(void) {
  double e = deconv_case(3, 4, 3, 2, 1, 1, 1);
  printf("  ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1): max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
  e = deconv_case(4, 6, 3, 2, 0, 0, 2);
  printf("  ConvTranspose2d(4, 6, 3, stride=2, groups=2): max error %.2g\n", e);
  TPT_CHECK(e < 1e-4);
}

/* y = x W^T + b with W [out, in] (nn.Linear) or x W + b with W [in, out] (Conv1D) */
static void test_linear_conv1d(void) {
  enum { B = 3, IN = 5, OUT = 4 };
  int conv1d, r, o, i;
  for (conv1d = 0; conv1d < 2; conv1d++) {
    int64_t wsz[2], bsz[1] = {OUT};
    size_t din[2] = {B, IN}, dout[2] = {B, OUT};
    tp_tensor wt, bias;
    tp_xnn_graph *g;
    uint32_t x, y;
    double m = 0;
    fill(g_w, IN * OUT, 0.41);
    fill(g_b, OUT, 0.2);
    fill(g_x, B * IN, 0.77);
    wsz[0] = conv1d ? IN : OUT;
    wsz[1] = conv1d ? OUT : IN;
    wt = view_n(g_w, 2, wsz);
    bias = view_n(g_b, 1, bsz);
    for (r = 0; r < B; r++)
      for (o = 0; o < OUT; o++) {
        double acc = g_b[o];
        for (i = 0; i < IN; i++)
          acc += (double)g_x[r * IN + i] * (double)(conv1d ? g_w[i * OUT + o] : g_w[o * IN + i]);
        g_ref[r * OUT + o] = (float)acc;
      }
    g = graph(din, dout, 2, &x, &y);
    if (!g) return;
    TPT_STATUS(tp_xnn_define_linear_torch(g, -INFINITY, INFINITY, x, &wt, conv1d, &bias, y, NULL,
                                          NULL), TP_OK);
    TPT_STATUS(run(g, g_x), TP_OK);
    for (i = 0; i < B * OUT; i++) {
      double d = fabs((double)g_y[i] - (double)g_ref[i]);
      if (!(d <= m)) m = d;
    }
    printf("  %s: max error %.2g\n", conv1d ? "Conv1D [in, out]" : "nn.Linear [out, in]", m);
    TPT_CHECK(m < 1e-5);
  }
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_coincident_shape);
  TPT_RUN(test_grouped_depthwise_clamp);
  TPT_RUN(test_conv_transpose);
  TPT_RUN(test_linear_conv1d);
  return tpt_finish("xnnrt_torch_layouts");
}
