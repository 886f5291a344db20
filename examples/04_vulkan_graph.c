/* 04_vulkan_graph.c - a Vulkan delegate graph: y = linear(x, W) with W a transposed view.

   PyTorch: Wt = torch.randn(8, 4); W = Wt.t()  (a [4, 8] view with strides (1, 4)).
   An exporter that copies "the storage from its first byte" would hand the Vulkan backend Wt's
   bytes, i.e. the wrong matrix. tensorpack writes W's own row-major bytes.

   Build: cc -std=c99 -I. examples/04_vulkan_graph.c -lm    Run: ./a.out [out.vkblob] */
#include <stdio.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_vulkan.h"

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "linear.vkblob";
  float wt[8 * 4]; /* W^T, stored [in = 8][out = 4] */
  tp_storage st;
  int64_t sz[2] = {8, 4};
  tp_tensor wt_view, w;
  tp_vk_graph *g;
  tp_vk_tensor_desc d;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4};
  uint32_t x, wid, bias, y, args[4];
  uint64_t size = 0;
  tp_membuf blob = {NULL, 0, 0};
  tp_sink sink = tp_sink_membuf(&blob);
  tp_vk_header h;
  int i, ok = 1;

  for (i = 0; i < 32; i++) wt[i] = (float)i; /* any values */
  st.data = wt;
  st.nbytes = sizeof wt;
  if (tp_view(st, TP_F32, 2, sz, NULL, 0, &wt_view, NULL) != TP_OK) return 1;
  if (tp_transpose(&wt_view, 0, 1, &w, NULL) != TP_OK) return 1; /* W: [4][8], strides (1, 4) */

  if (tp_vk_graph_create(NULL, &g) != TP_OK) return 1; /* NULL options: constants inline */
  /* a zeroed desc means defaults (own memory, default storage and layout); only the datatype
     is required */
  memset(&d, 0, sizeof d);
  d.datatype = TP_VK_FLOAT32;
  d.ndim = 2;
  d.dims = xd;
  tp_vk_add_tensor_desc(g, &d, &x);
  d.dims = NULL; /* the weight: its dims are the constant's */
  d.ndim = 0;
  d.constant = &w;
  tp_vk_add_tensor_desc(g, &d, &wid);
  tp_vk_add_null(g, &bias);
  d.constant = NULL;
  d.ndim = 2;
  d.dims = yd;
  tp_vk_add_tensor_desc(g, &d, &y);
  /* linear(input [.., K], weight [N, K], bias or None, out): ExecuTorch's Vulkan backend
     conventions; tp_vk_add_op checks the call against its op table (TP_VK_OPS) */
  args[0] = x;
  args[1] = wid;
  args[2] = bias;
  args[3] = y;
  tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &x, 1, &y, 1);

  /* errors stick in the graph: one check at the end is enough (tp_vk_save prints the
     sentence of a failure); then the same bytes into memory, to look at below */
  if (tp_vk_save(g, path, &size) != TP_OK) {
    tp_vk_graph_destroy(g);
    return 1;
  }
  if (tp_vk_write(g, &sink) != TP_OK) {
    fprintf(stderr, "error: %s\n", tp_vk_graph_error(g));
    tp_vk_graph_destroy(g);
    return 1;
  }
  tp_vk_graph_destroy(g);
  printf("wrote %s: %llu bytes\n", path, (unsigned long long)size);

  /* The raw bytes hold W row-major: W[r][c] = Wt[c][r]. */
  if (tp_vk_parse_header(blob.data, blob.size, &h) != TP_OK) return 1;
  printf("flatbuffer %u bytes at %u, raw bytes %llu at %u; W row 0:", h.flatbuffer_size,
         h.flatbuffer_offset, (unsigned long long)h.bytes_size, h.bytes_offset);
  for (i = 0; i < 32; i++) {
    float v;
    memcpy(&v, blob.data + h.bytes_offset + 4 * i, 4);
    if (i < 8) printf(" %g", v);
    if (v != wt[(i % 8) * 4 + i / 8]) ok = 0;
  }
  printf("\n"); /* 0 4 8 12 16 20 24 28 */
  tp_membuf_free(&blob);
  return ok && size > 0 ? 0 : 1;
}
