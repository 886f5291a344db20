/* test_xnn_checks.c - the define-time node rules, the constant rules and the graph-level rules
   at write (tensorpack_xnnpack.h, section >>xnn-check): each refusal's exact status and the
   numbers in its sentence; the same graphs accepted where they are right. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensorpack_xnnpack.h"
#include "tp_test.h"

static float g_f[1024];
static int32_t g_i32[256];
static int8_t g_i8[256];
static uint16_t g_bf[256];

static tp_tensor view(const void *data, size_t nbytes, tp_dtype dt, int ndim, const int64_t *sz) {
  tp_storage s;
  tp_tensor t;
  s.data = data;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, dt, ndim, sz, NULL, 0, &t, NULL), TP_OK);
  return t;
}

static tp_xnn_graph *mk(int target) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  memset(&o, 0, sizeof o);
  o.target = target;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  return g;
}

static uint32_t val(tp_xnn_graph *g, int dt, size_t nd, const size_t *d, uint32_t ext,
                    uint32_t flags) {
  uint32_t id = 0;
  TPT_STATUS(tp_xnn_define_tensor_value(g, (tp_xnn_datatype)dt, nd, d, NULL, ext, flags, &id),
             TP_OK);
  return id;
}

static uint32_t cst(tp_xnn_graph *g, int ndim, const int64_t *sz) {
  uint32_t id = 0;
  tp_tensor t = view(g_f, sizeof g_f, TP_F32, ndim, sz);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, (size_t)ndim, NULL, &t,
                                        TP_XNN_INVALID_ID, 0, &id), TP_OK);
  return id;
}

#define IN TP_XNN_FLAG_EXTERNAL_INPUT
#define OUT TP_XNN_FLAG_EXTERNAL_OUTPUT
#define NONE TP_XNN_INVALID_ID
#define EXPECT(call, st, text)                   \
  do {                                           \
    TPT_STATUS(call, st);                        \
    TPT_CONTAINS(tp_xnn_graph_error(g), text);   \
  } while (0)

static void test_flag_names(void) {
  TPT_EQ_INT(TP_XNN_FLAG_TRANSPOSE_WEIGHTS, 1);
  TPT_EQ_INT(TP_XNN_FLAG_TRANSPOSE_B, 1);
  TPT_EQ_INT(TP_XNN_FLAG_TENSORFLOW_SAME_PADDING, 4);
  TPT_EQ_INT(TP_XNN_FLAG_ALIGN_CORNERS, 8);
  TPT_EQ_INT(TP_XNN_FLAG_KEEP_DIMS, 0x40);
  TPT_EQ_INT(TP_XNN_EXTRA_BYTES, 16);
  {
    tp_xnn_options o;
    tp_xnn_graph *g = NULL;
    memset(&o, 0, sizeof o);
    o.target = 3;
    TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_ERR_INVALID);
    TPT_CHECK(g == NULL);
  }
}

/* The case: a GPT-2 Conv1D weight [6, 18] against an input [2, 6]. */
static void test_fully_connected(void) {
  size_t xd[2] = {2, 6}, yd[2] = {2, 18}, y3[2] = {2, 3};
  int64_t w618[2] = {6, 18}, b5[1] = {5}, w36[2] = {3, 6};
  tp_xnn_graph *g = mk(0);
  uint32_t x = val(g, TP_XNN_FP32, 2, xd, 0, IN), y = val(g, TP_XNN_FP32, 2, yd, 1, OUT);
  uint32_t w = cst(g, 2, w618), b = cst(g, 1, b5);
  EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0), TP_ERR_INVALID,
         "fully_connected #0: filter 2 is [6, 18], input 0 has 6 channels: the filter's last dim "
         "must be 6 (pass a transposed view, or TP_XNN_FLAG_TRANSPOSE_WEIGHTS)");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 2, yd, 1, OUT);
  w = cst(g, 2, w618);
  b = cst(g, 1, b5);
  EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, b, y,
                                       TP_XNN_FLAG_TRANSPOSE_WEIGHTS),
         TP_ERR_INVALID,
         "fully_connected #0: bias 3 is [5], the filter [6, 18] gives 18 output channels: the "
         "bias must be [18]");
  tp_xnn_graph_destroy(g);
  /* with the flag and no bias: accepted and written */
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 2, yd, 1, OUT);
  w = cst(g, 2, w618);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y,
                                           TP_XNN_FLAG_TRANSPOSE_WEIGHTS), TP_OK);
  {
    uint64_t n = 0;
    TPT_STATUS(tp_xnn_blob_size(g, &n), TP_OK);
  }
  tp_xnn_graph_destroy(g);
  /* wrong output rows */
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 2, y3, 1, OUT);
  w = cst(g, 2, w36);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
}

static void test_constants(void) {
  int64_t s66[2] = {6, 12}, s126[2] = {12, 6}, s4[1] = {4};
  size_t d612[2] = {6, 12}, d4[1] = {4};
  tp_tensor v = view(g_f, sizeof g_f, TP_F32, 2, s126);
  tp_tensor i32 = view(g_i32, sizeof g_i32, TP_I32, 1, s4);
  tp_tensor bf = view(g_bf, sizeof g_bf, TP_BF16, 1, s4);
  tp_xnn_graph *g = mk(0);
  (void)s66;
  EXPECT(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d612, &v, NONE, 0, NULL), TP_ERR_INVALID,
         "value 0: dims [6, 12] but the data view's dim 0 is 12: reshape the view");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  EXPECT(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, &i32, NONE, 0, NULL), TP_ERR_INVALID,
         "value 0: fp32 data must be a f32 view, not i32 (bytes are never reinterpreted)");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  EXPECT(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, &bf, NONE, 0, NULL), TP_ERR_INVALID,
         "value 0: fp32 data must be a f32 view, not bf16 (convert it: tp_convert_write(view, "
         "TP_F32, 0, sink) into a buffer, or define the value with the view's datatype)");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  EXPECT(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d4, &v, 0, IN, NULL), TP_ERR_INVALID,
         "value 0: a constant cannot be external (external id 0, flags 0x1)");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_BF16, 1, d4, &bf, NONE, 0, NULL), TP_OK);
  tp_xnn_graph_destroy(g);
}

static void test_executorch_refusals(void) {
  size_t xd[4] = {1, 4, 4, 3}, y4[4] = {1, 1, 1, 3}, y2[2] = {1, 3}, qd[2] = {2, 41};
  size_t od[2] = {2, 4}, wd[2] = {4, 41}, bd[1] = {4}, sd[2] = {2, 4};
  int64_t s4[1] = {4};
  tp_tensor sc = view(g_f, 16, TP_F32, 1, s4);
  uint32_t x, y, w, b, k;
  tp_xnn_graph *g = mk(0);
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 4, y4, 1, OUT);
  EXPECT(tp_xnn_define_global_average_pooling_2d(g, -INFINITY, INFINITY, x, y, 0),
         TP_ERR_UNSUPPORTED,
         "global_average_pooling_2d #0: output 1 is [1, 1, 1, 3] but flags 0x0 lack "
         "TP_XNN_FLAG_KEEP_DIMS");
  tp_xnn_graph_destroy(g);
  for (k = 0; k < 3; k++) { /* KEEP_DIMS, another target, and the 2-D output: accepted */
    g = mk(k == 1 ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
    y = val(g, TP_XNN_FP32, k == 2 ? 2 : 4, k == 2 ? y2 : y4, 1, OUT);
    TPT_STATUS(tp_xnn_define_global_average_pooling_2d(g, -INFINITY, INFINITY, x, y,
                                                       k == 0 ? TP_XNN_FLAG_KEEP_DIMS : 0),
               TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, sd, 0, IN);
  y = val(g, TP_XNN_FP32, 2, sd, 1, OUT);
  EXPECT(tp_xnn_define_scaled_dot_product_attention(g, x, x, x, x, x, y, 0), TP_ERR_UNSUPPORTED,
         "scaled_dot_product_attention #0: ExecuTorch's runtime has no scaled-dot-product "
         "attention");
  tp_xnn_graph_destroy(g);
  /* qd8 x qc4w with 41 input channels; then a qd8 fc (42 channels) with an fp16 bias */
  for (k = 0; k < 3; k++) {
    g = mk(k == 2 ? TP_XNN_TARGET_XNNPACK : 0);
    qd[1] = wd[1] = k == 1 ? 42 : 41;
    TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, qd, 0,
                                                                IN, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(
                   g, TP_XNN_QCINT4, &sc, 2, 0, wd, NULL, NONE, 0, &w), TP_OK);
    b = k == 1 ? val(g, TP_XNN_FP16, 1, bd, NONE, 0) : NONE;
    y = val(g, TP_XNN_FP32, 2, od, 1, OUT);
    if (k == 0) {
      EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, b, y, 0),
             TP_ERR_UNSUPPORTED,
             "fully_connected #0: qdint8 input x qcint4 filter 1 with 41 (odd) input channels "
             "and 2 rows: the XNNPACK ExecuTorch pins computes every row after the first");
      TPT_CONTAINS(tp_xnn_graph_error(g), "wrong; pad the input channels to 42");
    } else if (k == 1) {
      EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, b, y, 0),
             TP_ERR_UNSUPPORTED,
             "fully_connected #0: input1 qdint8, filter qcint4, bias fp16, output fp32: no "
             "operator in ExecuTorch's XNNPACK; with a qdint8 input it has ");
      TPT_CONTAINS(tp_xnn_graph_error(g), "it has filter qcint8|qcint4, bias none|fp32, output "
                   "fp32|fp16..."); /* the next row does not fit TP_ERROR_MAX */
    }
    else
      TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, b, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
}

static void test_loader_classes(void) {
  size_t xd[4] = {1, 2, 2, 3}, zd[4] = {1, 0, 0, 3}, od[4] = {1, 1, 1, 3}, bad[4] = {1, 3, 1, 1};
  size_t cd[1] = {3};
  uint32_t x, y, s, yi;
  tp_xnn_graph *g = mk(TP_XNN_TARGET_XNNPACK); /* ExecuTorch's XNNPACK takes any slope value */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  s = val(g, TP_XNN_FP32, 1, cd, NONE, 0);
  y = val(g, TP_XNN_FP32, 4, xd, 1, OUT);
  EXPECT(tp_xnn_define_prelu(g, x, s, y, 0), TP_ERR_INVALID,
         "prelu #0: slope 1 is not a constant: XNNPACK needs the slope's data at definition");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* a 3x3 window over a 2x2 input: empty output */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 4, zd, 1, OUT);
  EXPECT(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 3, 3, 1, 1, 1, 1, -INFINITY, INFINITY, x, y,
                                      0),
         TP_ERR_INVALID,
         "max_pooling_2d #0: input is [1, 2, 2, 3], padded by 0/0 (top/bottom) and 0/0 "
         "(left/right), the window 3 x 3 (dilation 1 x 1) gives an empty 0 x 0 output");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* argmax: index output with the right count, wrong shape */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 4, od, 1, OUT);
  yi = val(g, TP_XNN_FP32, 4, bad, 2, OUT);
  EXPECT(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, x, y, yi, 0), TP_ERR_INVALID,
         "argmax_pooling_2d #0: index output 2 is [1, 3, 1, 1]: it must be [1, 1, 1, 3]");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* requantization scale 1e-6 x 1e-6 / 1 below 2^-32 */
  {
    size_t q4[4] = {1, 1, 1, 4}, w4[4] = {4, 1, 1, 4};
    uint32_t w;
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1e-6f, 4, q4, NULL, 0, IN,
                                                    &x), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1e-6f, 4, w4, NULL, NONE,
                                                    0, &w), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1.0f, 4, q4, NULL, 1, OUT,
                                                    &y), TP_OK);
    EXPECT(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 4, 4, -INFINITY,
                                        INFINITY, x, w, NONE, y, 0),
           TP_ERR_INVALID,
           "convolution_2d #0: requantization scale 1e-06 x 1e-06 / 1 = 1e-12 is outside "
           "[2^-32, 256)");
  }
  tp_xnn_graph_destroy(g);
}

/* Finding 5 for per-channel filters: input_scale x every channel's scale / output_scale must
   lie in [2^-32, 256); the sentence names the channel (the smallest or largest scale). */
static tp_tensor scales4(float a, float b, float c, float d) {
  static float sc[4];
  int64_t n[1] = {4};
  sc[0] = a;
  sc[1] = b;
  sc[2] = c;
  sc[3] = d;
  return view(sc, sizeof sc, TP_F32, 1, n);
}

static tp_status pc_conv(tp_xnn_graph *g, float in_scale, tp_tensor sc, int dt) {
  size_t q4[4] = {1, 1, 1, 4}, w4[4] = {4, 1, 1, 4};
  uint32_t x, w, y;
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, in_scale, 4, q4, NULL, 0,
                                                  IN, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, (tp_xnn_datatype)dt, &sc, 4, 0,
                                                              w4, NULL, NONE, 0, &w), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1.0f, 4, q4, NULL, 1, OUT,
                                                  &y), TP_OK);
  return tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 4, 4, -INFINITY,
                                      INFINITY, x, w, NONE, y, 0);
}

static void test_requant_per_channel(void) {
  tp_xnn_graph *g = mk(0);
  EXPECT(pc_conv(g, 1e-6f, scales4(0.5f, 1e-6f, 2.0f, 1.0f), TP_XNN_QCINT8), TP_ERR_INVALID,
         "convolution_2d #0: requantization scale 1e-06 x 1e-06 (filter channel 1) / 1 = 1e-12 "
         "is outside [2^-32, 256)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* the largest channel: 1 x 300 / 1 >= 256 */
  EXPECT(pc_conv(g, 1.0f, scales4(0.5f, 1.0f, 2.0f, 300.0f), TP_XNN_QCINT8), TP_ERR_INVALID,
         "convolution_2d #0: requantization scale 1 x 300 (filter channel 3) / 1 = 300 is outside "
         "[2^-32, 256)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* qcint4 filters follow the same rule */
  EXPECT(pc_conv(g, 1e-3f, scales4(1.0f, 1.0f, 1e-8f, 1.0f), TP_XNN_QCINT4), TP_ERR_INVALID,
         "(filter channel 2) / 1 = 1e-11 is outside [2^-32, 256)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* a zero channel scale: 0 < 2^-32 */
  EXPECT(pc_conv(g, 1.0f, scales4(1.0f, 1.0f, 1.0f, 0.0f), TP_XNN_QCINT8), TP_ERR_INVALID,
         "requantization scale 1 x 0 (filter channel 3) / 1 = 0 is outside [2^-32, 256)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* every channel inside: accepted, the graph writes */
  TPT_STATUS(pc_conv(g, 1e-3f, scales4(0.5f, 1e-3f, 2.0f, 255.0f), TP_XNN_QCINT8), TP_OK);
  TPT_EQ_STR(tp_xnn_graph_error(g), "");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* fully connected with a per-channel qcint8 filter: channel 0 is too small */
  {
    size_t xd[2] = {1, 4}, wd[2] = {4, 4};
    tp_tensor sc = scales4(1e-7f, 1.0f, 1.0f, 1.0f);
    uint32_t x, w, y;
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1e-4f, 2, xd, NULL, 0, IN,
                                                    &x), TP_OK);
    TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc, 2, 0, wd,
                                                                NULL, NONE, 0, &w), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1.0f, 2, xd, NULL, 1, OUT,
                                                    &y), TP_OK);
    EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0),
           TP_ERR_INVALID,
           "fully_connected #0: requantization scale 0.0001 x 1e-07 (filter channel 0) / 1 = "
           "1e-11 is outside [2^-32, 256)");
  }
  tp_xnn_graph_destroy(g);
  g = mk(0); /* a strided scale view: the channels in row-major order of the view */
  {
    static float two[8] = {1, 9, 1, 9, 1e-11f, 9, 1, 9};
    int64_t n[1] = {4}, st[1] = {2};
    tp_storage s;
    tp_tensor sc;
    s.data = two;
    s.nbytes = sizeof two;
    TPT_STATUS(tp_view(s, TP_F32, 1, n, st, 0, &sc, NULL), TP_OK);
    EXPECT(pc_conv(g, 1.0f, sc, TP_XNN_QCINT8), TP_ERR_INVALID,
           "requantization scale 1 x 1e-11 (filter channel 2) / 1 = 1e-11 is outside");
  }
  tp_xnn_graph_destroy(g);
}

static void test_shapes(void) {
  size_t a23[2] = {2, 3}, a43[2] = {4, 3}, a24[2] = {2, 4}, a32[2] = {3, 2}, a6[1] = {6};
  size_t a26[2] = {2, 6}, a7[1] = {7};
  size_t perm[2] = {0, 0}, shp[1] = {7}, off[2] = {1, 0}, sz[2] = {2, 3}, pre[2] = {0, 1},
         post[2] = {1, 0};
  uint32_t a, b, y;
  tp_xnn_graph *g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  b = val(g, TP_XNN_FP32, 2, a43, 1, IN);
  y = val(g, TP_XNN_FP32, 2, a23, 2, OUT);
  EXPECT(tp_xnn_define_add2(g, -INFINITY, INFINITY, a, b, y, 0), TP_ERR_INVALID,
         "add2 #0: inputs 0 [2, 3] and 1 [4, 3] do not broadcast (dim -2: 2 vs 4)");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  b = val(g, TP_XNN_FP16, 2, a23, 1, IN);
  y = val(g, TP_XNN_FP32, 2, a23, 2, OUT);
  EXPECT(tp_xnn_define_multiply2(g, -INFINITY, INFINITY, a, b, y, 0), TP_ERR_INVALID,
         "multiply2 #0: input2_id 1 is fp16 but output_id 2 is fp32: they must agree");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  b = val(g, TP_XNN_FP32, 2, a24, 1, IN);
  y = val(g, TP_XNN_FP32, 2, a24, 2, OUT);
  EXPECT(tp_xnn_define_batch_matrix_multiply(g, a, b, y, 0), TP_ERR_INVALID,
         "batch_matrix_multiply #0: input1 0 is [2, 3], input2 1 is [2, 4]: inner dims 3 and 2 "
         "differ");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 2, a23, 1, OUT);
  EXPECT(tp_xnn_define_static_transpose(g, 2, perm, a, y, 0), TP_ERR_INVALID,
         "static_transpose #0: perm entry 1 is 0: not a permutation of 0..1");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  perm[1] = 1;
  perm[0] = 1;
  perm[1] = 0;
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 2, a32, 1, OUT);
  TPT_STATUS(tp_xnn_define_static_transpose(g, 2, perm, a, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 1, a7, 1, OUT);
  EXPECT(tp_xnn_define_static_reshape(g, 1, shp, a, y, 0), TP_ERR_INVALID,
         "static_reshape #0: input 0 is [2, 3] (6 elements), new shape has 1 dims and 7 "
         "elements, output 1 is [7]");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 2, a23, 1, OUT);
  EXPECT(tp_xnn_define_static_slice(g, 2, off, sz, a, y, 0), TP_ERR_INVALID,
         "static_slice #0: dim 0: offset 1 + size 2 in an input dim of 2, output dim 2");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 2, a23, 1, OUT);
  EXPECT(tp_xnn_define_static_constant_pad(g, pre, post, 0.0f, a, y, 0), TP_ERR_INVALID,
         "static_constant_pad #0: output 1 is [2, 3]: dim 0 must be 0 + 2 + 1");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  b = val(g, TP_XNN_FP32, 2, a23, 1, IN);
  y = val(g, TP_XNN_FP32, 2, a26, 2, OUT);
  EXPECT(tp_xnn_define_concatenate2(g, 0, a, b, y, 0), TP_ERR_INVALID,
         "concatenate2 #0: input 1 (value 0) is [2, 3], output [2, 6]: dims other than axis 0 "
         "must agree");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  b = val(g, TP_XNN_FP32, 2, a23, 1, IN);
  y = val(g, TP_XNN_FP32, 2, a26, 2, OUT);
  TPT_STATUS(tp_xnn_define_concatenate2(g, 1, a, b, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0);
  a = val(g, TP_XNN_FP32, 2, a23, 0, IN);
  y = val(g, TP_XNN_FP32, 1, a6, 1, OUT);
  EXPECT(tp_xnn_define_tanh(g, a, y, 0), TP_ERR_INVALID,
         "tanh #0: output 1 is [6], input 0 is [2, 3]: they must agree");
  tp_xnn_graph_destroy(g);
}

/* The output rules of numpy broadcasting (binary nodes, batch matrix multiply's batch dims)
   and of prelu, for the ExecuTorch target and for a plain XNNPACK (0 in cases[].target: 0). */
static void test_broadcast_outputs(void) {
  static const struct {
    int kind, plain; /* kind 0: add2, 1: batch_matrix_multiply, 2: prelu; plain: XNNPACK */
    size_t na, a[4], nb, b[3], ny, y[4];
    const char *want;
  } cases[] = {
      {0, 0, 2, {2, 3}, 1, {3}, 2, {2, 4},
       "add2 #0: output 2 is [2, 4], inputs [2, 3] and [3] broadcast to rank 2 with other dims"},
      {0, 0, 2, {2, 3}, 2, {1, 3}, 1, {3}, /* the rank */
       "add2 #0: output 2 is [3], inputs [2, 3] and [1, 3] broadcast to rank 2 with other dims"},
      {1, 0, 3, {2, 2, 3}, 2, {3, 4}, 3, {2, 2, 5},
       "batch_matrix_multiply #0: output 2 is [2, 2, 5], inputs [2, 2, 3] and [3, 4] give "
       "[.., 2, 4] of rank 3"},
      {1, 0, 3, {2, 2, 3}, 3, {3, 3, 4}, 3, {2, 2, 4}, /* batch dims 2 and 3 */
       "batch_matrix_multiply #0: output 2 is [2, 2, 4], inputs [2, 2, 3] and [3, 3, 4] give "
       "[.., 2, 4] of rank 3"},
      {2, 0, 4, {1, 2, 2, 4}, 1, {4}, 4, {1, 2, 2, 3},
       "prelu #0: output 2 is [1, 2, 2, 3], the input is [1, 2, 2, 4]"},
      {2, 1, 4, {1, 2, 2, 4}, 1, {3}, 4, {1, 2, 2, 4}, /* a constant slope there */
       "prelu #0: slope 1 is [3], input 0 is [1, 2, 2, 4]: one slope per channel (4)"},
      {2, 1, 4, {1, 2, 2, 4}, 1, {4}, 4, {1, 2, 2, 3},
       "prelu #0: output 2 is [1, 2, 2, 3], the input is [1, 2, 2, 4]"},
  };
  size_t c;
  for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    tp_xnn_graph *g = mk(cases[c].plain ? TP_XNN_TARGET_XNNPACK : 0);
    int64_t nb = (int64_t)cases[c].b[0];
    uint32_t a = val(g, TP_XNN_FP32, cases[c].na, cases[c].a, 0, IN), b;
    b = cases[c].plain ? cst(g, 1, &nb) : val(g, TP_XNN_FP32, cases[c].nb, cases[c].b, 1, IN);
    {
      uint32_t y = val(g, TP_XNN_FP32, cases[c].ny, cases[c].y, cases[c].plain ? 1 : 2, OUT);
      EXPECT(cases[c].kind == 0   ? tp_xnn_define_add2(g, -INFINITY, INFINITY, a, b, y, 0)
             : cases[c].kind == 1 ? tp_xnn_define_batch_matrix_multiply(g, a, b, y, 0)
                                  : tp_xnn_define_prelu(g, a, b, y, 0),
             TP_ERR_INVALID, cases[c].want);
    }
    tp_xnn_graph_destroy(g);
  }
}

static void test_convolutions(void) {
  size_t xd[4] = {1, 5, 5, 2}, y3[4] = {1, 3, 3, 4}, y2[4] = {1, 2, 2, 4}, yd[4] = {1, 5, 5, 6};
  int64_t w[4] = {4, 3, 3, 2}, dw[4] = {1, 3, 3, 6}, dwbad[4] = {6, 3, 3, 1};
  uint32_t x, f, y;
  tp_xnn_graph *g = mk(0); /* SAME padding, stride 2: ceil(5 / 2) = 3 */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  f = cst(g, 4, w);
  y = val(g, TP_XNN_FP32, 4, y2, 1, OUT);
  EXPECT(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 3, 3, 2, 2, 1, 1, 1, 2, 4, -INFINITY,
                                      INFINITY, x, f, NONE, y,
                                      TP_XNN_FLAG_TENSORFLOW_SAME_PADDING),
         TP_ERR_INVALID,
         "convolution_2d #0: output 2 is [1, 2, 2, 4], SAME padding with stride 2 x 2 gives "
         "height 3 and width 3");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* explicit padding: (5 + 0 - 3) / 2 + 1 = 2 */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  f = cst(g, 4, w);
  y = val(g, TP_XNN_FP32, 4, y3, 1, OUT);
  EXPECT(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 3, 3, 2, 2, 1, 1, 1, 2, 4, -INFINITY,
                                      INFINITY, x, f, NONE, y, 0),
         TP_ERR_INVALID,
         "convolution_2d #0: output 2 is [1, 3, 3, 4], the input [1, 5, 5, 2] and the window "
         "give height 2 and width 2");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* depthwise, multiplier 3: filter [1, 3, 3, 6]; padding 1 keeps 5 x 5 */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  f = cst(g, 4, dwbad);
  y = val(g, TP_XNN_FP32, 4, yd, 1, OUT);
  EXPECT(tp_xnn_define_depthwise_convolution_2d(g, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 3, 2,
                                                -INFINITY, INFINITY, x, f, NONE, y, 0),
         TP_ERR_INVALID,
         "depthwise_convolution_2d #0: filter 1 is [6, 3, 3, 1], the node needs [1, 3, 3, 6]");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  f = cst(g, 4, dw);
  y = val(g, TP_XNN_FP32, 4, yd, 1, OUT);
  TPT_STATUS(tp_xnn_define_depthwise_convolution_2d(g, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 3, 2,
                                                    -INFINITY, INFINITY, x, f, NONE, y, 0),
             TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0); /* deconvolution: 2 x (5 - 1) + 3 - 6 - 6 < 1: empty */
  x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
  f = cst(g, 4, w);
  y = val(g, TP_XNN_FP32, 4, y3, 1, OUT);
  EXPECT(tp_xnn_define_deconvolution_2d(g, 6, 6, 6, 6, 0, 0, 3, 3, 2, 2, 1, 1, 1, 2, 4,
                                        -INFINITY, INFINITY, x, f, NONE, y, 0),
         TP_ERR_INVALID, "gives an empty 0 x 0 output");
  tp_xnn_graph_destroy(g);
}

/* Graph-level rules at write: not latched, a fixed graph writes. */
static void test_graph_rules(void) {
  size_t d[1] = {4};
  uint32_t x, y, t, u;
  uint64_t n = 0;
  tp_xnn_graph *g = mk(0);
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 2, OUT); /* gap at 1 */
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID,
         "external ids must be dense 0..2: no value has external id 1");
  /* the size call's failure, reported until the next size/write call (the one error rule); not
     latched: a fixed graph writes (below) */
  TPT_STATUS(tp_xnn_graph_status(g), TP_ERR_INVALID);
  tp_xnn_graph_destroy(g);

  g = mk(0); /* a forgotten EXTERNAL_INPUT flag */
  x = val(g, TP_XNN_FP32, 1, d, NONE, 0);
  y = val(g, TP_XNN_FP32, 1, d, 0, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID,
         "abs #0: input_id 0 is read before any node produces it (not a constant, not "
         "TP_XNN_FLAG_EXTERNAL_INPUT)");
  tp_xnn_graph_destroy(g);

  g = mk(0); /* an output nothing consumes, then fixed */
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 1, OUT);
  t = val(g, TP_XNN_FP32, 1, d, NONE, 0);
  u = val(g, TP_XNN_FP32, 1, d, NONE, 0);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, x, t, 0), TP_OK);
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID,
         "value 2: a node writes it but no later node reads it and it is not "
         "TP_XNN_FLAG_EXTERNAL_OUTPUT");
  TPT_STATUS(tp_xnn_define_negate(g, t, u, 0), TP_OK);
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID, "value 3: a node writes it");
  tp_xnn_graph_destroy(g);

  g = mk(0); /* an external output no node writes; an external input no node reads */
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 1, OUT);
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID,
         "value 0: external input (external id 0) is read by no node");
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  TPT_STATUS(tp_xnn_blob_size(g, &n), TP_OK); /* the retry after the fix */
  TPT_CHECK(strcmp(tp_xnn_graph_error(g), "") == 0);
  EXPECT(tp_xnn_define_abs(g, x, y, 0), TP_OK, "");
  EXPECT(tp_xnn_blob_size(g, &n), TP_ERR_INVALID,
         "abs #1: output_id 1 is already the output of an earlier node");
  tp_xnn_graph_destroy(g);

  g = mk(TP_XNN_TARGET_UNCHECKED); /* the opt-out writes it anyway */
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 2, OUT);
  TPT_STATUS(tp_xnn_blob_size(g, &n), TP_OK);
  tp_xnn_graph_destroy(g);
  (void)g_i8;
}

/* tp_xnn_check_blob: the same rules and sentences on a written blob (tpdump --check). */
static void write_mem(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink s;
  memset(m, 0, sizeof *m);
  s = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
}

static void test_check_blob(void) {
  size_t xd[2] = {2, 6}, yd[2] = {2, 18}, gx[4] = {1, 4, 4, 3}, gy[4] = {1, 1, 1, 3}, d[1] = {4};
  int64_t w618[2] = {6, 18};
  tp_membuf m;
  tp_error e;
  uint32_t x, w, y;
  tp_xnn_graph *g = mk(TP_XNN_TARGET_UNCHECKED);
  x = val(g, TP_XNN_FP32, 2, xd, 0, IN);
  y = val(g, TP_XNN_FP32, 2, yd, 1, OUT);
  w = cst(g, 2, w618);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0), TP_OK);
  write_mem(g, &m);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "fully_connected #0: filter 2 is [6, 18], input 0 has 6 channels: the "
                      "filter's last dim must be 6 (pass a transposed view, or "
                      "TP_XNN_FLAG_TRANSPOSE_WEIGHTS)");
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_UNCHECKED, &e), TP_OK);
  TPT_STATUS(tp_xnn_check_blob(m.data, 40, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_FORMAT);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, 7, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "check: unknown target 7");
  TPT_STATUS(tp_xnn_check_blob(NULL, 0, 0, NULL), TP_ERR_INVALID);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);

  g = mk(TP_XNN_TARGET_UNCHECKED); /* ExecuTorch-only: refused for target 0 only */
  x = val(g, TP_XNN_FP32, 4, gx, 0, IN);
  y = val(g, TP_XNN_FP32, 4, gy, 1, OUT);
  TPT_STATUS(tp_xnn_define_global_average_pooling_2d(g, -INFINITY, INFINITY, x, y, 0), TP_OK);
  write_mem(g, &m);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(e.msg, "lack TP_XNN_FLAG_KEEP_DIMS");
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &e), TP_OK);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);

  g = mk(TP_XNN_TARGET_UNCHECKED); /* graph rules: a gap */
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 2, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_mem(g, &m);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "external ids must be dense 0..2: no value has external id 1");
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);

  g = mk(0); /* a good graph passes, framed and as a bare flatbuffer */
  x = val(g, TP_XNN_FP32, 1, d, 0, IN);
  y = val(g, TP_XNN_FP32, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_mem(g, &m);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_OK);
  TPT_STATUS(tp_xnn_check_blob(m.data + 32, tp__get_le32(m.data + 14), 0, &e), TP_OK);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Hostile bytes: every truncation and single-byte change of a few blobs gets a status from the
   documented set and a sentence when it fails (ASan watches the reads). */
static void test_check_blob_hostile(void) {
  static const unsigned char xs[3] = {0xff, 0x01, 0x80};
  size_t xd[4] = {1, 4, 4, 2}, yd[4] = {1, 2, 2, 4}, d4[1] = {4};
  int64_t w[4] = {4, 3, 3, 2}, b4[1] = {4};
  tp_membuf m;
  tp_error e;
  size_t i, k, bad = 0, n = 0;
  unsigned char *c;
  int which;
  for (which = 0; which < 2; which++) {
    tp_xnn_graph *g = mk(0);
    uint32_t x, f, b, y;
    if (which == 0) {
      x = val(g, TP_XNN_FP32, 4, xd, 0, IN);
      f = cst(g, 4, w);
      b = cst(g, 1, b4);
      y = val(g, TP_XNN_FP32, 4, yd, 1, OUT);
      TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 3, 3, 1, 1, 1, 1, 1, 2, 4,
                                              -INFINITY, INFINITY, x, f, b, y, 0), TP_OK);
    } else {
      x = val(g, TP_XNN_FP32, 1, d4, 0, IN);
      y = val(g, TP_XNN_FP32, 1, d4, 1, OUT);
      b = val(g, TP_XNN_FP32, 1, d4, NONE, 0);
      TPT_STATUS(tp_xnn_define_abs(g, x, b, 0), TP_OK);
      TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, b, x, y, 0), TP_OK);
    }
    write_mem(g, &m);
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, 0, &e), TP_OK);
    c = (unsigned char *)malloc(m.size);
    for (i = 0; c && i <= m.size; i++) { /* a copy of exactly i bytes */
      unsigned char *t = (unsigned char *)malloc(i ? i : 1);
      tp_status st;
      memcpy(t, m.data, i);
      st = tp_xnn_check_blob(t, i, 0, &e);
      if (i < 32u + tp__get_le32(m.data + 14) && st == TP_OK) bad++; /* the flatbuffer is cut */
      if (st != TP_OK && e.msg[0] == 0) bad++;
      free(t);
      n++;
    }
    for (i = 0; c && i < m.size; i++)
      for (k = 0; k < 3; k++) {
        tp_status st;
        memcpy(c, m.data, m.size);
        c[i] = (unsigned char)(c[i] ^ xs[k]);
        st = tp_xnn_check_blob(c, m.size, 0, &e);
        if (st != TP_OK && st != TP_ERR_INVALID && st != TP_ERR_UNSUPPORTED &&
            st != TP_ERR_FORMAT && st != TP_ERR_NOMEM)
          bad++;
        if (st != TP_OK && e.msg[0] == 0) bad++;
        n++;
      }
    free(c);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
  }
  TPT_EQ_U64(bad, 0);
  printf("  %lu damaged blobs checked\n", (unsigned long)n);
}

int main(void) {
  TPT_RUN(test_flag_names);
  TPT_RUN(test_fully_connected);
  TPT_RUN(test_constants);
  TPT_RUN(test_executorch_refusals);
  TPT_RUN(test_loader_classes);
  TPT_RUN(test_requant_per_channel);
  TPT_RUN(test_shapes);
  TPT_RUN(test_broadcast_outputs);
  TPT_RUN(test_convolutions);
  TPT_RUN(test_graph_rules);
  TPT_RUN(test_check_blob);
  TPT_RUN(test_check_blob_hostile);
  return tpt_finish("xnn_checks");
}
