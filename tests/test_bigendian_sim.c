/* The big-endian code path, run on this (little-endian) host by forcing TP__BIG_ENDIAN: every
   multi-byte element comes out byte-swapped (on a real big-endian host that swap turns native
   elements into little-endian ones), multi-byte views are never zero-copy, bytes are. The
   FlatBuffers builder and the .ptd writer take the same switch (their shift paths run here)
   and must give the plain build's bytes. */
#define TP__BIG_ENDIAN 1
#define TP_SCRATCH_BYTES 64u
/* its own implementation: TP__BIG_ENDIAN and TP_SCRATCH_BYTES change the core */
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
      TPT_STATUS(tp_view(s, types[k], 2, sz, NULL, 3, &t, NULL), TP_OK);
      if (it == 1) TPT_STATUS(tp_transpose(&t, 0, 1, &t, NULL), TP_OK);
      if (it == 2) TPT_STATUS(tp_flip(&t, 1, &t, NULL), TP_OK);
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

/* The FlatBuffers builder and the .ptd writer on the big-endian path: their bytes come from
   shifts (tp__put_le*), so they must equal the little-endian build's bytes exactly; the
   digests below are those of the plain build of this same function (tests/golden covers the
   plain build itself). */
static void fb_and_ptd_bytes(char fb_hex[65], char ptd_hex[65]) {
  tp_fb_builder *b;
  tp_fb_ref v2, v4, v8, s, r, tab;
  const unsigned char *d;
  size_t n;
  uint16_t e2[3] = {0x0102, 0x0304, 0xFFFE};
  uint32_t e4[3] = {0x01020304u, 0xA0B0C0D0u, 7u};
  uint64_t e8[2] = {0x0102030405060708ull, 0xF0E0D0C0B0A09080ull};
  tp_store *st;
  tp_membuf m;
  tp_sink sink;
  static const unsigned char raw[5] = {1, 2, 3, 4, 5};
  fb_hex[0] = ptd_hex[0] = 0;
  if (tp_fb_builder_create(&b) != TP_OK) return;
  v2 = tp_fb_create_vector(b, e2, 3, 2);
  v4 = tp_fb_create_vector(b, e4, 3, 4);
  v8 = tp_fb_create_vector(b, e8, 2, 8);
  s = tp_fb_create_string(b, "big endian", 10);
  tp_fb_start_table(b);
  tp_fb_add_f64(b, 9, -2.5, 0);
  tp_fb_add_u64(b, 8, 0x1122334455667788ull, 0);
  tp_fb_add_f32(b, 7, 1.25f, 0);
  tp_fb_add_i32(b, 6, -7, 0);
  tp_fb_add_ref(b, 5, v8);
  tp_fb_add_ref(b, 4, v4);
  tp_fb_add_ref(b, 3, v2);
  tp_fb_add_ref(b, 2, s);
  tp_fb_add_u16(b, 1, 0xBEEF, 0);
  tp_fb_add_u8(b, 0, 9, 0);
  tab = tp_fb_end_table(b);
  tp_fb_start_table(b); /* the same vtable again: dedup through tp__fb_ld16 */
  tp_fb_add_f64(b, 9, 1.0, 0);
  tp_fb_add_u64(b, 8, 1, 0);
  tp_fb_add_f32(b, 7, 1.0f, 0);
  tp_fb_add_i32(b, 6, 1, 0);
  tp_fb_add_ref(b, 5, v8);
  tp_fb_add_ref(b, 4, v4);
  tp_fb_add_ref(b, 3, v2);
  tp_fb_add_ref(b, 2, s);
  tp_fb_add_u16(b, 1, 1, 0);
  tp_fb_add_u8(b, 0, 1, 0);
  r = tp_fb_end_table(b);
  {
    tp_fb_ref both[2];
    tp_fb_ref vec;
    both[0] = tab;
    both[1] = r;
    vec = tp_fb_create_vector_refs(b, both, 2);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, vec);
    r = tp_fb_end_table(b);
  }
  if (tp_fb_finish(b, r, "BEND") == TP_OK) {
    d = tp_fb_data(b, &n);
    tp_sha256_hex(d, n, fb_hex);
  }
  tp_fb_builder_destroy(b);
  if (tp_store_create(NULL, &st) != TP_OK) return;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  if (tp_store_add_bytes(st, "raw", raw, 5, 0, 0, NULL) == TP_OK &&
      tp_store_add_bytes(st, NULL, raw, 3, 64, 1, NULL) == TP_OK &&
      tp_store_write_ptd(st, &sink) == TP_OK)
    tp_sha256_hex(m.data, m.size, ptd_hex);
  tp_membuf_free(&m);
  tp_store_destroy(st);
}

static void test_flatbuffers_and_ptd(void) {
  char fb[65], ptd[65];
  fb_and_ptd_bytes(fb, ptd);
  TPT_EQ_STR(fb, "e3bf1c19e0a000c21d065df61c5cefb732b40d71fd7c15a83d87aba64102b566");
  TPT_EQ_STR(ptd, "63fb6558a53dcd8ccd21f1fad0635f1c648599cd5c100bd5914acefb431c8737");
}

int main(void) {
  TPT_RUN(test_swapped);
  TPT_RUN(test_flatbuffers_and_ptd);
  return tpt_finish("bigendian_sim");
}
