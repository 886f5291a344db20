/* Patching one field of a written XNNPACK blob, for the suites that prove what a reader or the
   loader does with a value the writer never puts there (tests/test_xnn_read.c,
   tests/xnnrt_checks.c). Include after tensorpack_xnnpack.h. */
#ifndef TP_XNN_PATCH_H
#define TP_XNN_PATCH_H
#include <string.h>

/* Sets node 0's field `field` (TP_XNN_FIELD) of the one-node blob to `id`: finds the stored
   TP_XNN_INVALID_ID word that reads back as that field (each candidate written, the blob read
   again with tp_xnn_read_blob) and leaves it patched. Returns 1 when patched, 0 when no such
   word exists (the blob as it was). */
static int tpt_xnn_patch_slot(unsigned char *blob, size_t size, uint32_t field, uint32_t id) {
  static const unsigned char none[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  unsigned char w[4];
  size_t at;
  w[0] = (unsigned char)id;
  w[1] = (unsigned char)(id >> 8);
  w[2] = (unsigned char)(id >> 16);
  w[3] = (unsigned char)(id >> 24);
  for (at = 0; at + 4 <= size; at++) {
    tp_xnn_blob b;
    int hit;
    if (memcmp(blob + at, none, 4) != 0) continue;
    memcpy(blob + at, w, 4);
    hit = tp_xnn_read_blob(blob, size, &b, NULL) == TP_OK && b.num_nodes == 1 &&
          b.nodes[0].f[field] == id;
    tp_xnn_blob_free(&b);
    if (hit) return 1;
    memcpy(blob + at, none, 4);
  }
  return 0;
}
#endif
