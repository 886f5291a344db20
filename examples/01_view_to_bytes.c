/* 01_view_to_bytes: a tensor view -> exactly its bytes.

   w = randn(3, 8, 8)[1] is a view 64 floats into a 192-float storage. A writer that copies
   "the storage" gets the wrong 256 bytes (or all 768 of them). tp_compact returns exactly the
   view's bytes: zero-copy when the view already is compact, a copy (in logical order) when it is
   not, e.g. after a transpose. Constants are named by the SHA-256 of those bytes. */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"

int main(void) {
  float storage[3 * 8 * 8];
  int64_t sizes[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor x, w, wt;
  tp_buffer b;
  char key[65];
  int i;

  for (i = 0; i < 3 * 8 * 8; i++) storage[i] = (float)i;
  s.data = storage;
  s.nbytes = sizeof storage;

  /* x = the whole [3, 8, 8] tensor; w = x[1] */
  if (tp_view(s, TP_F32, 3, sizes, NULL, 0, &x, NULL) != TP_OK) return 1;
  if (tp_select(&x, 0, 1, &w, NULL) != TP_OK) return 1;

  /* contiguous at an offset: zero-copy, pointing at the view's first byte */
  if (tp_compact(&w, TP_ORDER_ROW_MAJOR, &b) != TP_OK) return 1;
  tp_sha256_hex(b.data, b.nbytes, key);
  printf("w = x[1]:   offset %lld elements, %zu bytes, %s, first value %g\n  key %s\n",
         (long long)w.offset, b.nbytes, b.owned ? "copied" : "zero-copy",
         (double)((const float *)b.data)[0], key);
  if (b.data != (const void *)(storage + 64) || b.nbytes != 256) return 1;
  tp_buffer_release(&b);

  /* w.t(): the same elements in another order, so row-major bytes need a copy */
  if (tp_transpose(&w, 0, 1, &wt, NULL) != TP_OK) return 1;
  if (tp_compact(&wt, TP_ORDER_ROW_MAJOR, &b) != TP_OK) return 1;
  tp_sha256_hex(b.data, b.nbytes, key);
  printf("w.t():      %zu bytes, %s, values %g %g ...\n  key %s\n", b.nbytes,
         b.owned ? "copied" : "zero-copy", (double)((const float *)b.data)[0],
         (double)((const float *)b.data)[1], key);
  if (!b.owned || ((const float *)b.data)[1] != 72.0f) return 1;
  tp_buffer_release(&b);

  /* what a "whole storage" reader would have named it */
  tp_sha256_hex(storage, sizeof storage, key);
  printf("storage:    %zu bytes (what a whole-storage reader emits)\n  key %s\n",
         sizeof storage, key);
  return 0;
}
