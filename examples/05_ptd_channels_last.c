/* 05_ptd_channels_last: a channels_last slice stored in a .ptd file as its own compact
   channels_last bytes (TP_ORDER_PRESERVE), then read back.

   x is an NCHW tensor of sizes (1, 2, 4, 4) held channels_last (strides (32, 1, 8, 2)); the
   slice x[:, :, 1:-1, 1:-1] touches 8 of its 32 floats, scattered through the storage.
   Upstream's _tensor_to_bytes would write the whole storage; tensorpack writes exactly the 8
   floats, in channels_last order, with dim_order (0, 2, 3, 1). */
#include <string.h>
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"

int main(void) {
  float data[32];
  const int64_t sizes[4] = {1, 2, 4, 4}, strides[4] = {32, 1, 8, 2};
  tp_storage st = {data, sizeof data};
  tp_tensor x, y;
  tp_store *store;
  const char *key;
  tp_membuf file = {NULL, 0, 0};
  tp_sink sink = tp_sink_membuf(&file);
  tp_ptd ptd;
  tp_ptd_entry e;
  int i;

  for (i = 0; i < 32; i++) data[i] = (float)i;
  if (tp_view(st, TP_F32, 4, sizes, strides, 0, &x, NULL) || tp_slice(&x, 2, 1, -1, 1, &y, NULL) ||
      tp_slice(&y, 3, 1, -1, 1, &y, NULL))
    return 1;

  if (tp_store_create(NULL, &store)) return 1;
  if (tp_store_add(store, NULL, &y, TP_ORDER_PRESERVE, 0, &key) ||
      tp_store_write_ptd(store, &sink)) {
    printf("error: %s\n", tp_store_error(store));
    return 1;
  }
  printf("wrote %lu bytes, key %s\n", (unsigned long)file.size, key);

  if (tp_ptd_open(&ptd, file.data, file.size) || tp_ptd_find(&ptd, key, &e)) return 1;
  printf("sizes (%lld, %lld, %lld, %lld), dim_order (%d, %d, %d, %d), %lu bytes:",
         (long long)e.sizes[0], (long long)e.sizes[1], (long long)e.sizes[2],
         (long long)e.sizes[3], e.dim_order[0], e.dim_order[1], e.dim_order[2], e.dim_order[3],
         (unsigned long)e.nbytes);
  for (i = 0; i < (int)(e.nbytes / 4); i++) {
    float v;
    memcpy(&v, (const unsigned char *)e.data + 4 * i, 4);
    printf(" %g", v);
  }
  printf("\n");   /* 10 11 12 13 18 19 20 21: (h, w, c) order, channels innermost */

  tp_store_destroy(store);
  tp_membuf_free(&file);
  return e.nbytes == 32 && e.dim_order[3] == 1 ? 0 : 1;
}
