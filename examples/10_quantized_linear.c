/* 10_quantized_linear.c - one linear layer quantized "8da4w", the way ExecuTorch runs LLMs:
   int8 dynamic activations x int4 groupwise weights.

   PyTorch (torchao):  Int8DynActInt4WeightQuantizer(groupsize=32).quantize(model)
   then the XNNPACK delegate runs each linear as qd8 x qb4w. The weights are quantized once,
   offline: for each output row and each group of 32 inputs, scale = max|w| / 7.5 and
   q = round_half_even(w / scale) clamped to [-8, 7] (tp_quantize_symmetric does it bit for
   bit as torchao does). At run time each input row is quantized to int8 with its own scale
   and zero point, the products are summed as integers and scaled back.

   The layer here has weights whose size differs between regions of the input (each block of
   32 input channels is twice as large as the one before, as LLM weights differ between
   feature ranges). One scale per row is set by the largest block, so the small blocks get
   only a level or two of the 16; a scale per group of 32 gives every block all 16. The program
   measures it - output error against the float layer for 8-bit per channel, 4-bit per channel
   and 4-bit groupwise (8da4w) - and writes the 8da4w layer as an XNNPACK blob in one call.

   Build: cc -std=c99 -I. examples/10_quantized_linear.c -lm    Run: ./a.out [out.xnn] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

enum { M = 8, K = 256, N = 64, GROUP = 32 };

static float w_kn[K][N];  /* stored [in, out], as a GPT-2 Conv1D weight lies */
static float x[M][K], bias[N], y_float[M][N];

static unsigned long long rng = 42;
static float gauss(void) { /* Box-Muller on a small LCG: the same numbers everywhere */
  double u1, u2;
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  u1 = ((double)(rng >> 11) + 1.0) / 9007199254740993.0;
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  u2 = (double)(rng >> 11) / 9007199254740992.0;
  return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/* y = x W^T + b with W given by int values and scales [N][groups], the activations quantized
   per row to int8 (asymmetric, as XNNPACK's qd8 does) and the sums taken over integers.
   Returns the largest |y - y_float| relative to the largest |y_float|. */
static double run_quantized(const int8_t *wq, const float *scales, int groups) {
  double worst = 0.0, ymax = 0.0;
  int m, n, k, g, gs = K / groups;
  for (m = 0; m < M; m++) {
    float lo = 0.0f, hi = 0.0f, sx;
    long zx;
    int xq[K];
    for (k = 0; k < K; k++) {
      if (x[m][k] < lo) lo = x[m][k];
      if (x[m][k] > hi) hi = x[m][k];
    }
    sx = (hi - lo) / 255.0f;
    zx = lrintf(-128.0f - lo / sx);
    for (k = 0; k < K; k++) {
      long q = lrintf(x[m][k] / sx) + zx;
      xq[k] = (int)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
    for (n = 0; n < N; n++) {
      double acc = 0.0, y;
      for (g = 0; g < groups; g++) {
        long isum = 0;
        for (k = g * gs; k < (g + 1) * gs; k++) isum += (long)(xq[k] - zx) * wq[n * K + k];
        acc += (double)isum * (double)scales[n * groups + g];
      }
      y = acc * (double)sx + (double)bias[n];
      if (fabs(y - (double)y_float[m][n]) > worst) worst = fabs(y - (double)y_float[m][n]);
      if (fabs((double)y_float[m][n]) > ymax) ymax = fabs((double)y_float[m][n]);
    }
  }
  return worst / ymax;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "linear_8da4w.xnn";
  int64_t sz[2] = {K, N}, bsz[1] = {N};
  size_t xd[2] = {M, K}, yd[2] = {M, N};
  tp_storage s;
  tp_tensor stored, w, b;
  tp_buffer v8, s8, v4, s4, vg, sg;
  tp_error err;
  tp_xnn_graph *g;
  tp_xnn_qlinear q;
  uint32_t xi, yi;
  uint64_t blob = 0;
  double e8, e4, eg;
  int m, n, k;

  for (k = 0; k < K; k++)
    for (n = 0; n < N; n++) w_kn[k][n] = 0.05f * gauss() * (float)ldexp(1.0, k / GROUP - 7);
  for (m = 0; m < M; m++)
    for (k = 0; k < K; k++) x[m][k] = gauss();
  for (n = 0; n < N; n++) bias[n] = 0.01f * (float)n;
  for (m = 0; m < M; m++)
    for (n = 0; n < N; n++) {
      double acc = bias[n];
      for (k = 0; k < K; k++) acc += (double)x[m][k] * (double)w_kn[k][n];
      y_float[m][n] = (float)acc;
    }

  s.data = w_kn;
  s.nbytes = sizeof w_kn;
  if (tp_view(s, TP_F32, 2, sz, NULL, 0, &stored, NULL) != TP_OK) return 1;
  if (tp_transpose(&stored, 0, 1, &w, NULL) != TP_OK) return 1; /* W = stored.t(): [out, in] */

  /* the three quantizers; values int8 [N][K], scales f32 [N][groups] */
  if (tp_quantize_symmetric(&w, 8, 0, TP_F32, &v8, &s8, &err) != TP_OK ||
      tp_quantize_symmetric(&w, 4, 0, TP_F32, &v4, &s4, &err) != TP_OK ||
      tp_quantize_symmetric(&w, 4, GROUP, TP_F32, &vg, &sg, &err) != TP_OK) {
    fprintf(stderr, "error: %s\n", err.msg);
    return 1;
  }
  e8 = run_quantized((const int8_t *)v8.data, (const float *)s8.data, 1);
  e4 = run_quantized((const int8_t *)v4.data, (const float *)s4.data, 1);
  eg = run_quantized((const int8_t *)vg.data, (const float *)sg.data, K / GROUP);
  printf("max |y - y_float| / max |y_float| over a [%d, %d] x [%d, %d]^T layer:\n", M, K, N, K);
  printf("  8da8w  (int8 per channel, XNNPACKQuantizer)    %.4f\n", e8);
  printf("  8da4w  per channel (int4, one scale per row)   %.4f\n", e4);
  printf("  8da4w  groupwise (int4, a scale per %d inputs)  %.4f\n", GROUP, eg);
  tp_buffer_release(&v8);
  tp_buffer_release(&s8);
  tp_buffer_release(&v4);
  tp_buffer_release(&s4);
  tp_buffer_release(&vg);
  tp_buffer_release(&sg);

  /* the 8da4w layer for ExecuTorch's XNNPACK delegate: one call quantizes and defines
     convert(x -> qd8) + fully_connected(qd8, qb4w weights, bf16 [out, groups] scales, bias) */
  s.data = bias;
  s.nbytes = sizeof bias;
  if (tp_view(s, TP_F32, 1, bsz, NULL, 0, &b, NULL) != TP_OK) return 1;
  if (tp_xnn_graph_create(NULL, &g) != TP_OK) return 1;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xi);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi);
  tp_xnn_define_quantized_linear(g, TP_XNN_QBINT4, GROUP, TP_F32, &w, &b, -INFINITY, INFINITY,
                                 xi, yi, &q);
  /* q owns the quantized weights: keep it until the blob is written */
  if (tp_xnn_save(g, path, &blob) != TP_OK) { /* prints the sentence of a failure */
    tp_xnn_graph_destroy(g);
    tp_xnn_qlinear_release(&q);
    return 1;
  }
  printf("wrote %s: %llu bytes (the float weights alone are %u bytes)\n", path,
         (unsigned long long)blob, (unsigned)sizeof w_kn);
  tp_xnn_graph_destroy(g);
  tp_xnn_qlinear_release(&q);

  /* what this example teaches, checked: */
  if (!(e8 < e4)) return fprintf(stderr, "8-bit should beat 4-bit\n"), 1;
  if (!(eg < 0.5 * e4)) return fprintf(stderr, "groups should halve the 4-bit error\n"), 1;
  if (!(eg < 0.1)) return fprintf(stderr, "8da4w should stay within 10%%\n"), 1;
  if (!(blob < sizeof w_kn / 4)) return fprintf(stderr, "the blob should be < 1/4\n"), 1;
  return 0;
}
