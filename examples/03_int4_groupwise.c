/* 03_int4_groupwise.c - a groupwise (blockwise) int4 linear whose scale is a transposed view.

   Quantizers often keep scales as [groups][out] and hand the exporter scale.t(): a view with
   strides (1, out). XNNPACK wants them row-major [out][groups] in bf16. Reading the storage in
   order writes them transposed (the seed saw errors of about 4e4). tensorpack copies the view
   element by element, converts to bf16 (round to nearest even) and packs the int8 weights two
   per byte.

   Build: cc -std=c99 -I. examples/03_int4_groupwise.c -lm    Run: ./a.out [out.xnn] */
#include <stdio.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

enum { OUT = 4, IN = 64, BLOCK = 32, GROUPS = IN / BLOCK };

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "int4_groupwise.xnn";
  static int8_t w[OUT][IN];           /* int4 values in [-8, 7], one per byte */
  static float scale_gt[GROUPS][OUT]; /* stored [groups][out] */
  int64_t wsz[2] = {OUT, IN}, ssz[2] = {GROUPS, OUT};
  size_t dims[2] = {OUT, IN};
  tp_storage ws, ss;
  tp_tensor wv, sv, scale;
  tp_xnn_graph *g;
  uint64_t size = 0;
  int o, i;

  for (o = 0; o < OUT; o++)
    for (i = 0; i < IN; i++) w[o][i] = (int8_t)((o * 5 + i) % 16 - 8);
  for (i = 0; i < GROUPS; i++)
    for (o = 0; o < OUT; o++) scale_gt[i][o] = 0.01f * (float)(1 + o + OUT * i);

  ws.data = w;
  ws.nbytes = sizeof w;
  ss.data = scale_gt;
  ss.nbytes = sizeof scale_gt;
  tp_view(ws, TP_I8, 2, wsz, NULL, 0, &wv, NULL);
  tp_view(ss, TP_F32, 2, ssz, NULL, 0, &sv, NULL);
  tp_transpose(&sv, 0, 1, &scale, NULL); /* scale.t(): [out][groups], strides (1, out) */

  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &scale, 2, 0 /* channel dim */,
                                                 BLOCK, dims, &wv, TP_XNN_INVALID_ID, 0, NULL);
  if (tp_xnn_save(g, path, &size) != TP_OK) { /* prints the sentence of a failure */
    tp_xnn_graph_destroy(g);
    return 1;
  }
  /* constant 1: 8 bf16 scales in [out][groups] order; constant 2: 128 bytes of packed weights */
  printf("wrote %s: %llu bytes; scale[0][1] = %g (bf16 0x%04x), from scale_gt[1][0]\n", path,
         (unsigned long long)size, (double)scale_gt[1][0], tp_f32_to_bf16(scale_gt[1][0]));
  tp_xnn_graph_destroy(g);
  return 0;
}
