/* The big-endian code path, run on this (little-endian) host by forcing TP__BIG_ENDIAN: every
   multi-byte element comes out byte-swapped (on a real big-endian host that swap turns native
   elements into little-endian ones), multi-byte views are never zero-copy, bytes are. */
#define TP__BIG_ENDIAN 1
#define TP_SCRATCH_BYTES 64u
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"

static unsigned char g_mem[4096];

/* element k of a compact output, with its bytes reversed */
static void check_swapped(const unsigned char *out, const tp_tensor *t, const int *perm) {
  int64_t idx[TP_MAX_DIMS] = {0}, n = tp_numel(t), k;
  size_t es = tp_dtype_size(t->dtype), b;
  int d, bad = 0;
  for (k = 0; k < n; k++) {
    int64_t e = t->offset;
    for (d = 0; d < t->ndim; d++) e += idx[d] * t->strides[d];
    for (b = 0; b < es; b++) bad += out[(size_t)k * es + b] != g_mem[(size_t)e * es + es - 1 - b];
    for (d = t->ndim - 1; d >= 0; d--) {
      if (++idx[perm[d]] < t->sizes[perm[d]]) break;
      idx[perm[d]] = 0;
    }
  }
  TPT_EQ_INT(bad, 0);
}

static void test_swapped(void) {
  static const tp_dtype types[4] = {TP_U8, TP_I16, TP_F32, TP_F64};
  int k, it;
  for (k = 0; k < 4096; k++) g_mem[k] = (unsigned char)tpt_range(0, 255);
  for (k = 0; k < 4; k++)
    for (it = 0; it < 3; it++) {
      size_t es = tp_dtype_size(types[k]);
      int64_t sz[2] = {5, 7};
      int rm[2] = {0, 1};
      tp_storage s;
      tp_tensor t;
      tp_buffer b;
      tp_membuf m = {0};
      tp_sink sink = tp_sink_membuf(&m);
      s.data = g_mem;
      s.nbytes = sizeof g_mem;
      TPT_STATUS(tp_view(s, types[k], 2, sz, NULL, 3, &t), TP_OK);
      if (it == 1) TPT_STATUS(tp_transpose(&t, 0, 1, &t), TP_OK);
      if (it == 2) TPT_STATUS(tp_flip(&t, 1, &t), TP_OK);
      TPT_STATUS(tp_compact(&t, TP_ORDER_ROW_MAJOR, &b), TP_OK);
      TPT_EQ_U64(b.nbytes, 35 * es);
      if (it == 0) TPT_EQ_INT(b.owned == NULL, es == 1); /* zero-copy only for bytes */
      check_swapped((const unsigned char *)b.data, &t, rm);
      tp_buffer_release(&b);
      TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, &sink), TP_OK); /* 64-byte scratch */
      TPT_EQ_U64(m.size, 35 * es);
      check_swapped(m.data, &t, rm);
      tp_membuf_free(&m);
    }
}

int main(void) {
  TPT_RUN(test_swapped);
  return tpt_finish("bigendian_sim");
}
