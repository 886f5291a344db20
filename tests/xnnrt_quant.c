/* xnnrt_quant.c - quantized weights from tp_quantize_symmetric on the real XNNPACK.

   1. The one-call qd8 linears (qc8w, qc4w, qb4w) load where the linked XNNPACK has their
      datatypes and then give the simulated integer math's numbers; Debian's 2022 XNNPACK has no
      qdint8, and the loader refuses each blob naming that datatype.
   2. What Debian's XNNPACK does run: the 8-bit per-channel values and scales of a float weight
      (a transposed view) as a qs8 x qc8w 1x1 convolution (its per-channel operator), against
      an integer simulation (within one int8 step) and against the float linear. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

enum { M = 4, K = 64, N = 16, BS = 32 };
static float g_wt[K * N], g_x[M * K], g_bias[N], g_yf[M * N];

static float frand(void) {
  return (float)((double)(tpt_rand() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void setup(void) {
  int i, m, n, k;
  for (i = 0; i < K * N; i++) g_wt[i] = frand() * 0.5f;
  for (i = 0; i < M * K; i++) g_x[i] = frand();
  for (n = 0; n < N; n++) g_bias[n] = 0.05f * (float)(n - 8);
  for (m = 0; m < M; m++)
    for (n = 0; n < N; n++) {
      double acc = g_bias[n];
      for (k = 0; k < K; k++) acc += (double)g_x[m * K + k] * (double)g_wt[k * N + n];
      g_yf[m * N + n] = (float)acc;
    }
}

/* w = wt.t(): [N, K] with strides (1, N) */
static tp_tensor weight_view(void) {
  int64_t sz[2] = {K, N};
  tp_storage s;
  tp_tensor kn, w;
  s.data = g_wt;
  s.nbytes = sizeof g_wt;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &kn, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&kn, 0, 1, &w, NULL), TP_OK);
  return w;
}

/* qd8 x (qc8w | qc4w | qb4w) through tp_xnn_define_quantized_linear. */
static void test_qd8_linears(void) {
  static const tp_xnn_datatype dts[3] = {TP_XNN_QCINT8, TP_XNN_QCINT4, TP_XNN_QBINT4};
  int j;
  for (j = 0; j < 3; j++) {
    tp_tensor w = weight_view(), b;
    int64_t bsz[1] = {N};
    size_t xd[2] = {M, K}, yd[2] = {M, N};
    tp_storage s;
    tp_xnn_graph *g;
    tp_xnn_qlinear q;
    tp_membuf m;
    tp_sink sink;
    tp_xnn_runtime *rt = NULL;
    tp_error e;
    tp_status st;
    uint32_t xi, yi;
    s.data = g_bias;
    s.nbytes = sizeof g_bias;
    TPT_STATUS(tp_view(s, TP_F32, 1, bsz, NULL, 0, &b, NULL), TP_OK);
    memset(&m, 0, sizeof m);
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &xi), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_linear(g, dts[j], dts[j] == TP_XNN_QBINT4 ? BS : 0,
                                              TP_F32, &w, &b, -INFINITY, INFINITY, xi, yi, &q),
               TP_OK);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
    memset(&e, 0, sizeof e);
    st = tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e);
#if TP_XNN_RUNTIME_ALL_DATATYPES
    TPT_STATUS(st, TP_OK);
    if (rt) {
      static float y[M * N];
      double worst = 0.0, ymax = 0.0;
      int i;
      TPT_STATUS(tp_xnn_runtime_bind(rt, 0, g_x), TP_OK);
      TPT_STATUS(tp_xnn_runtime_bind(rt, 1, y), TP_OK);
      TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
      for (i = 0; i < M * N; i++) {
        double d = fabs((double)y[i] - (double)g_yf[i]);
        if (d > worst) worst = d;
        if (fabs((double)g_yf[i]) > ymax) ymax = fabs((double)g_yf[i]);
      }
      printf("  qd8 x %s on XNNPACK: max |y - float| %.4g of max |y| %.4g\n",
             tp_xnn_datatype_name((int)dts[j]), worst, ymax);
      TPT_CHECK(worst < (dts[j] == TP_XNN_QCINT8 ? 0.02 : 0.2) * ymax);
    }
#else
    /* values: 0 input, 1 output, 2 the qd8 input: the first one this XNNPACK lacks */
    TPT_STATUS(st, TP_ERR_UNSUPPORTED);
    TPT_CONTAINS(e.msg, "value 2: datatype qdint8 (9) is not in the linked XNNPACK");
    TPT_CHECK(rt == NULL);
#endif
    tp_xnn_runtime_destroy(rt);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
    tp_xnn_qlinear_release(&q);
  }
}

/* The 8-bit values and f32 scales as XNNPACK's qc8w weights of a qs8 1x1 convolution. */
static void test_qc8w_values_run(void) {
  static int8_t xq[M * K], yq[M * N];
  static int32_t bq[N];
  static float bsc[N], ws[N];
  const float sx = 1.0f / 127.0f; /* |x| <= 1 */
  float sy = 0.0f; /* the float output's range over 120 steps */
  const int32_t zx = 0, zy = 3;
  tp_tensor w = weight_view(), wv, sv, bv, bsv;
  tp_buffer v, s;
  tp_storage st;
  int64_t wsz[4] = {N, 1, 1, K}, nsz[1] = {N};
  size_t xd[4] = {M, 1, 1, K}, yd[4] = {M, 1, 1, N};
  tp_xnn_graph *g;
  tp_xnn_options o;
  tp_membuf m;
  tp_sink sink;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t xi, wi, bi, yi;
  int i, n, k, mm, worst = 0;
  double fworst = 0.0;
  for (i = 0; i < M * N; i++)
    if (fabsf(g_yf[i]) / 120.0f > sy) sy = fabsf(g_yf[i]) / 120.0f;
  TPT_STATUS(tp_quantize_symmetric(&w, 8, 0, TP_F32, &v, &s, NULL), TP_OK);
  memcpy(ws, s.data, sizeof ws);
  for (n = 0; n < N; n++) {
    bsc[n] = sx * ws[n];
    bq[n] = (int32_t)lrintf(g_bias[n] / bsc[n]);
  }
  for (i = 0; i < M * K; i++) xq[i] = (int8_t)lrintf(g_x[i] / sx);
  st.data = v.data;
  st.nbytes = v.nbytes;
  TPT_STATUS(tp_view(st, TP_I8, 4, wsz, NULL, 0, &wv, NULL), TP_OK);
  st.data = s.data;
  st.nbytes = s.nbytes;
  TPT_STATUS(tp_view(st, TP_F32, 1, nsz, NULL, 0, &sv, NULL), TP_OK);
  st.data = bq;
  st.nbytes = sizeof bq;
  TPT_STATUS(tp_view(st, TP_I32, 1, nsz, NULL, 0, &bv, NULL), TP_OK);
  st.data = bsc;
  st.nbytes = sizeof bsc;
  TPT_STATUS(tp_view(st, TP_F32, 1, nsz, NULL, 0, &bsv, NULL), TP_OK);
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_XNNPACK;
  memset(&m, 0, sizeof m);
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zx, sx, 4, xd, NULL, 0,
                                                  TP_XNN_FLAG_EXTERNAL_INPUT, &xi), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sv, 4, 0, NULL,
                                                              &wv, TP_XNN_INVALID_ID, 0, &wi),
             TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &bsv, 1, 0,
                                                              NULL, &bv, TP_XNN_INVALID_ID, 0,
                                                              &bi), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zy, sy, 4, yd, NULL, 1,
                                                  TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi), TP_OK);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, K, N, -INFINITY,
                                          INFINITY, xi, wi, bi, yi, 0), TP_OK);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (!rt) printf("  load: %s\n", e.msg);
  if (rt) {
    TPT_STATUS(tp_xnn_runtime_bind(rt, 0, xq), TP_OK);
    TPT_STATUS(tp_xnn_runtime_bind(rt, 1, yq), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    for (mm = 0; mm < M; mm++)
      for (n = 0; n < N; n++) {
        long acc = bq[n], r;
        int d;
        double yd8;
        for (k = 0; k < K; k++)
          acc += (long)(xq[mm * K + k] - zx) * ((const int8_t *)v.data)[n * K + k];
        r = lrint((double)acc * (double)sx * (double)ws[n] / (double)sy) + zy;
        if (r < -128) r = -128;
        if (r > 127) r = 127;
        d = abs((int)r - (int)yq[mm * N + n]);
        if (d > worst) worst = d;
        yd8 = ((double)yq[mm * N + n] - zy) * sy;
        if (fabs(yd8 - (double)g_yf[mm * N + n]) > fworst)
          fworst = fabs(yd8 - (double)g_yf[mm * N + n]);
      }
    printf("  qs8 x qc8w conv on XNNPACK: max |diff| to the simulation %d step(s); dequantized "
           "output vs float %.4g (output step %.3g)\n", worst, fworst, (double)sy);
    TPT_CHECK(worst <= 1);
    TPT_CHECK(fworst < 4.0 * sy);
    tp_xnn_runtime_destroy(rt);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
}

int main(void) {
  setup();
  TPT_RUN(test_qd8_linears);
  TPT_RUN(test_qc8w_values_run);
  return tpt_finish("xnnrt_quant");
}
