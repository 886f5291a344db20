/* 02_xnnpack_linear.c - an XNNPACK linear whose weight is a view into a bigger storage.

   PyTorch: storage = torch.randn(3, 8, 8); W = storage[1]  (64 floats, starting 64 floats in).
   An exporter that writes "the storage from its first byte" gives XNNPACK storage[0] instead:
   wrong numbers, no error. tensorpack writes exactly the view's 64 floats.

   Build: cc -std=c99 -I. examples/02_xnnpack_linear.c -lm    Run: ./a.out [out.xnn] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "linear.xnn";
  static float storage[3 * 8 * 8];
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor parent, w;
  tp_xnn_graph *g;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y;
  uint64_t size = 0;
  int i;

  for (i = 0; i < 3 * 8 * 8; i++) storage[i] = (float)i / 64.0f; /* any values */
  s.data = storage;
  s.nbytes = sizeof storage;
  if (tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL) != TP_OK) return 1;
  if (tp_select(&parent, 0, 1, &w, NULL) != TP_OK) return 1; /* W = storage[1]: offset 64 */

  if (tp_xnn_graph_create(NULL, &g) != TP_OK) return 1; /* NULL options: constants inline */
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);

  /* errors stick in the graph: one check at the end is enough (tp_xnn_save prints the
     sentence of a failure) */
  if (tp_xnn_save(g, path, &size) != TP_OK) {
    tp_xnn_graph_destroy(g);
    return 1;
  }
  printf("wrote %s: %llu bytes; the weight constant is storage[64..128), not storage[0..64)\n",
         path, (unsigned long long)size);
  tp_xnn_graph_destroy(g);
  return 0;
}
