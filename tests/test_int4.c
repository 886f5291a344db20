/* int4 packing: exact nibbles (v + 8, low nibble = even index), odd last dim padded with
   nibble 8, any view, out-of-range values rejected before anything is written. */
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

static tp_tensor view_i8(const signed char *p, size_t n, int ndim, const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = p;
  s.nbytes = n;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_I8, ndim, sizes, NULL, 0, &t, NULL), TP_OK);
  return t;
}

static void test_exact_bytes(void) {
  const signed char odd[6] = {-8, 7, 0, 1, -1, 3};
  const signed char even[4] = {-8, -7, 6, 7};
  const signed char one = 3;
  const unsigned char want_odd[4] = {0xF0, 0x88, 0x79, 0x8B};
  const unsigned char want_even[2] = {0x10, 0xFE};
  int64_t s23[2] = {2, 3}, s14[2] = {1, 4};
  tp_tensor t;
  tp_buffer b;
  t = view_i8(odd, 6, 2, s23);
  TPT_EQ_U64(tp_pack_int4_size(&t), 4);
  TPT_STATUS(tp_pack_int4(&t, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, 4);
  TPT_MEMEQ(b.data, want_odd, 4);
  TPT_CHECK(b.owned != NULL);
  tp_buffer_release(&b);
  t = view_i8(even, 4, 2, s14);
  TPT_STATUS(tp_pack_int4(&t, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, 2);
  TPT_MEMEQ(b.data, want_even, 2);
  tp_buffer_release(&b);
  t = view_i8(&one, 1, 0, NULL); /* 0-d: one byte, padded */
  TPT_EQ_U64(tp_pack_int4_size(&t), 1);
  TPT_STATUS(tp_pack_int4(&t, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, 1);
  TPT_EQ_INT(((const unsigned char *)b.data)[0], 0x8B);
  tp_buffer_release(&b);
  { /* a transposed view packs its logical rows: [[-8, 1], [7, -1], [0, 3]] */
    tp_tensor tt;
    const unsigned char want_t[3] = {0x90, 0x7F, 0xB8};
    t = view_i8(odd, 6, 2, s23);
    TPT_STATUS(tp_transpose(&t, 0, 1, &tt, NULL), TP_OK);
    TPT_EQ_U64(tp_pack_int4_size(&tt), 3);
    TPT_STATUS(tp_pack_int4(&tt, &b), TP_OK);
    TPT_EQ_U64(b.nbytes, 3);
    TPT_MEMEQ(b.data, want_t, 3);
    tp_buffer_release(&b);
  }
  { /* empty */
    int64_t z[2] = {0, 5};
    t = view_i8(odd, 0, 2, z);
    TPT_EQ_U64(tp_pack_int4_size(&t), 0);
    TPT_STATUS(tp_pack_int4(&t, &b), TP_OK);
    TPT_CHECK(b.data != NULL && b.nbytes == 0 && b.owned == NULL);
  }
}

static void test_rejects(void) {
  const signed char bad_hi[6] = {0, 1, 2, 3, 8, 0};
  const signed char bad_lo[6] = {0, -9, 2, 3, 7, 0};
  int64_t s23[2] = {2, 3};
  tp_tensor t;
  tp_buffer b;
  tp_error e;
  tp_membuf m = {0};
  tp_sink sink = tp_sink_membuf(&m);
  t = view_i8(bad_hi, 6, 2, s23);
  TPT_STATUS(tp_pack_int4(&t, &b), TP_ERR_INVALID);
  TPT_CHECK(b.data == NULL && b.owned == NULL);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_pack_int4_check(&t, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "int4 value at index 4 is 8, outside [-8, 7]");
  TPT_STATUS(tp_pack_int4_write(&t, &sink), TP_ERR_INVALID);
  TPT_EQ_U64(m.size, 0); /* nothing written */
  t = view_i8(bad_lo, 6, 2, s23);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_pack_int4_check(&t, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "int4 value at index 1 is -9, outside [-8, 7]");
  TPT_STATUS(tp_pack_int4_write(&t, &sink), TP_ERR_INVALID);
  TPT_EQ_U64(m.size, 0);
  /* not an int8 view */
  t.dtype = TP_U8;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_pack_int4(&t, &b), TP_ERR_INVALID);
  TPT_STATUS(tp_pack_int4_check(&t, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "i8 view");
  TPT_STATUS(tp_pack_int4(&t, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_pack_int4_write(&t, NULL), TP_ERR_INVALID);
  TPT_EQ_U64(tp_pack_int4_size(NULL), 0);
  tp_membuf_free(&m);
}

/* Random shapes and views vs a reference; rows longer than the streaming scratch too. */
static void test_random_vs_reference(void) {
  static signed char src[700000];
  static unsigned char ref[400000];
  int it;
  size_t i;
  for (i = 0; i < sizeof src; i++) src[i] = (signed char)tpt_range(-8, 7);
  for (it = 0; it < 60; it++) {
    int64_t rows = tpt_range(0, 9), cols = tpt_range(1, 41), sz[2], k, j;
    tp_tensor t, v;
    tp_buffer b;
    size_t w = 0;
    if (it == 0) { rows = 2; cols = 300001; } /* one row > 256 KiB of scratch */
    sz[0] = rows;
    sz[1] = cols;
    t = view_i8(src, sizeof src, 2, sz);
    v = t;
    if (it % 3 == 1) TPT_STATUS(tp_flip(&t, 1, &v, NULL), TP_OK);
    for (k = 0; k < rows; k++)
      for (j = 0; j < cols; j += 2) {
        int64_t a = v.offset + k * v.strides[0] + j * v.strides[1];
        unsigned lo = (unsigned)(src[a] + 8), hi = j + 1 < cols ? (unsigned)(src[a + v.strides[1]] + 8) : 8u;
        ref[w++] = (unsigned char)(lo | hi << 4);
      }
    TPT_EQ_U64(tp_pack_int4_size(&v), w);
    TPT_STATUS(tp_pack_int4(&v, &b), TP_OK);
    TPT_EQ_U64(b.nbytes, w);
    TPT_MEMEQ(b.data, ref, w);
    tp_buffer_release(&b);
  }
}

int main(void) {
  TPT_RUN(test_exact_bytes);
  TPT_RUN(test_rejects);
  TPT_RUN(test_random_vs_reference);
  return tpt_finish("int4");
}
