/* The seed's cases (ExecuTorch PR 24208), each with exact bytes: a view 64 floats into its
   storage, a view at byte 0 of a larger storage, q/k/v chunks of a packed in_proj_weight, a
   transposed per-channel scale, and a channels_last slice kept channels_last by PRESERVE. */
#include "tensorpack.h"
#include "tp_test.h"

static float g_x[3 * 8 * 8];

static tp_storage storage_of(const void *p, size_t n) {
  tp_storage s;
  s.data = p;
  s.nbytes = n;
  return s;
}

/* randn(3, 8, 8)[1]: 64 floats in; its bytes are exactly floats 64..127. */
static void test_select_of_randn(void) {
  int64_t sz[3] = {3, 8, 8};
  tp_tensor x, w;
  tp_buffer b;
  char h_view[65], h_want[65], h_whole[65];
  unsigned char le[256], le_whole[256]; /* the floats as written: little-endian */
  int be = tpt_big_endian();             /* a big-endian host copies (swaps) every f32 view */
  TPT_STATUS(tp_view(storage_of(g_x, sizeof g_x), TP_F32, 3, sz, NULL, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_select(&x, 0, 1, &w, NULL), TP_OK);
  TPT_EQ_INT(w.offset, 64);
  TPT_EQ_U64(tp_nbytes(&w), 256);
  TPT_STATUS(tp_compact(&w, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.data == (const void *)(g_x + 64) || be); /* zero-copy, at the view's first byte */
  TPT_EQ_U64(b.nbytes, 256);
  TPT_CHECK(b.owned == NULL || be);
  TPT_MEMEQ_LE(b.data, g_x + 64, 256, 4);
  tpt_to_le(le, g_x + 64, 64, 4);
  tpt_to_le(le_whole, g_x, 64, 4);
  TPT_STATUS(tp_sha256_hex(b.data, b.nbytes, h_view), TP_OK);
  TPT_STATUS(tp_sha256_hex(le, 256, h_want), TP_OK);
  TPT_STATUS(tp_sha256_hex(le_whole, 256, h_whole), TP_OK); /* what "from the storage start" reads */
  TPT_EQ_STR(h_view, h_want);
  TPT_CHECK(strcmp(h_view, h_whole) != 0);
  tp_buffer_release(&b);
}

/* big[:4] of a [10, 8] storage starts at byte 0 but is only 128 of its 320 bytes. */
static void test_view_at_byte_zero(void) {
  int64_t sz[2] = {10, 8};
  tp_tensor big, w;
  tp_membuf m = {0};
  tp_sink sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_view(storage_of(g_x, 320), TP_F32, 2, sz, NULL, 0, &big, NULL), TP_OK);
  TPT_STATUS(tp_narrow(&big, 0, 0, 4, &w, NULL), TP_OK);
  TPT_STATUS(tp_compact_write(&w, TP_ORDER_PRESERVE, &sink), TP_OK);
  TPT_EQ_U64(m.size, 128);
  TPT_MEMEQ_LE(m.data, g_x, 128, 4);
  tp_membuf_free(&m);
}

/* q, k, v = in_proj_weight.chunk(3) of a [3E, E] weight, and the bias the same way. */
static void test_qkv_chunks(void) {
  enum { E = 8 };
  int64_t sz[2] = {3 * E, E}, bsz = 3 * E;
  tp_tensor wt, bias, part;
  int i;
  TPT_STATUS(tp_view(storage_of(g_x, 3 * E * E * 4), TP_F32, 2, sz, NULL, 0, &wt, NULL), TP_OK);
  TPT_STATUS(tp_view(storage_of(g_x + 100, 3 * E * 4), TP_F32, 1, &bsz, NULL, 0, &bias, NULL),
             TP_OK);
  for (i = 0; i < 3; i++) {
    tp_buffer b;
    unsigned char out[E * E * 4];
    TPT_STATUS(tp_chunk(&wt, 3, 0, i, &part, NULL), TP_OK);
    TPT_EQ_INT(part.sizes[0], E);
    TPT_EQ_INT(part.offset, i * E * E);
    TPT_STATUS(tp_compact(&part, TP_ORDER_ROW_MAJOR, &b), TP_OK);
    TPT_EQ_U64(b.nbytes, E * E * 4);
    TPT_CHECK(b.data == (const void *)(g_x + i * E * E) || tpt_big_endian());
    tp_buffer_release(&b);
    TPT_STATUS(tp_compact_into(&part, TP_ORDER_ROW_MAJOR, out, sizeof out), TP_OK);
    TPT_MEMEQ_LE(out, g_x + i * E * E, sizeof out, 4);
    TPT_STATUS(tp_chunk(&bias, 3, 0, i, &part, NULL), TP_OK);
    TPT_STATUS(tp_compact(&part, TP_ORDER_ROW_MAJOR, &b), TP_OK);
    TPT_EQ_U64(b.nbytes, E * 4);
    TPT_MEMEQ_LE(b.data, g_x + 100 + i * E, E * 4, 4);
    tp_buffer_release(&b);
  }
  /* q of the transposed weight (a column block): a copy, in logical order */
  {
    tp_tensor tw;
    tp_buffer b;
    const float *f;
    int r, c, bad = 0;
    TPT_STATUS(tp_transpose(&wt, 0, 1, &tw, NULL), TP_OK); /* [E, 3E] */
    TPT_STATUS(tp_chunk(&tw, 3, 1, 1, &part, NULL), TP_OK); /* k^T */
    TPT_STATUS(tp_compact(&part, TP_ORDER_ROW_MAJOR, &b), TP_OK);
    TPT_CHECK(b.owned != NULL);
    f = (const float *)b.data;
    for (r = 0; r < E; r++)
      for (c = 0; c < E; c++) bad += tpt_f32_le(f + r * E + c) != g_x[(E + c) * E + r];
    TPT_EQ_INT(bad, 0);
    tp_buffer_release(&b);
  }
}

/* A per-channel scale made as s.t(): 12 values in storage order 0..11 as [4, 3], viewed [3, 4].
   Row-major bytes are the logical order; PRESERVE keeps the storage order (zero-copy). */
static void test_transposed_scale(void) {
  float s[12];
  const float want_rm[12] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
  int64_t sz[2] = {4, 3};
  tp_tensor st, tt;
  tp_buffer b;
  uint8_t o[2];
  int i;
  for (i = 0; i < 12; i++) s[i] = (float)i;
  TPT_STATUS(tp_view(storage_of(s, sizeof s), TP_F32, 2, sz, NULL, 0, &st, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&st, 0, 1, &tt, NULL), TP_OK);
  TPT_STATUS(tp_compact(&tt, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, 48);
  TPT_MEMEQ_LE(b.data, want_rm, 48, 4);
  tp_buffer_release(&b);
  TPT_STATUS(tp_dim_order(&tt, o), TP_OK);
  TPT_EQ_INT(o[0], 1);
  TPT_EQ_INT(o[1], 0);
  TPT_STATUS(tp_compact(&tt, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_CHECK((b.data == (const void *)s && b.owned == NULL) || tpt_big_endian());
  TPT_EQ_U64(b.nbytes, 48);
  TPT_MEMEQ_LE(b.data, s, 48, 4);
  tp_buffer_release(&b);
  { /* bf16 conversion of the same scale, row-major, as the XNNPACK groupwise path writes it */
    tp_membuf m = {0};
    tp_sink sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_convert_write(&tt, TP_BF16, 0, &sink), TP_OK);
    TPT_EQ_U64(m.size, 24);
    for (i = 0; i < 12; i++) TPT_EQ_INT(tp__get_le16(m.data + 2 * i), tp_f32_to_bf16(want_rm[i]));
    tp_membuf_free(&m);
  }
}

/* x: N=2, C=3, H=5, W=5 in channels_last memory; value = n*1000 + c*100 + h*10 + w.
   x[:, :, 1:-1, 1:-1] in PRESERVE -> dim order (0, 2, 3, 1) and compact NHWC bytes. */
static void test_channels_last_slice(void) {
  float x[2 * 3 * 5 * 5], want_cl[2 * 3 * 3 * 3], want_rm[2 * 3 * 3 * 3];
  int64_t sz[4] = {2, 3, 5, 5}, st[4] = {75, 1, 15, 3};
  tp_tensor t, v;
  tp_buffer b;
  uint8_t o[4];
  int n, c, h, w, k;
  for (n = 0; n < 2; n++)
    for (c = 0; c < 3; c++)
      for (h = 0; h < 5; h++)
        for (w = 0; w < 5; w++) x[n * 75 + h * 15 + w * 3 + c] = (float)(n * 1000 + c * 100 + h * 10 + w);
  k = 0;
  for (n = 0; n < 2; n++)
    for (h = 1; h < 4; h++)
      for (w = 1; w < 4; w++)
        for (c = 0; c < 3; c++) want_cl[k++] = (float)(n * 1000 + c * 100 + h * 10 + w);
  k = 0;
  for (n = 0; n < 2; n++)
    for (c = 0; c < 3; c++)
      for (h = 1; h < 4; h++)
        for (w = 1; w < 4; w++) want_rm[k++] = (float)(n * 1000 + c * 100 + h * 10 + w);
  TPT_STATUS(tp_view(storage_of(x, sizeof x), TP_F32, 4, sz, st, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 2, 1, -1, 1, &v, NULL), TP_OK);
  TPT_STATUS(tp_slice(&v, 3, 1, -1, 1, &v, NULL), TP_OK);
  TPT_EQ_INT(v.offset, 18);
  TPT_EQ_INT(v.sizes[2], 3);
  TPT_CHECK(!tp_is_dense(&v));
  TPT_STATUS(tp_dim_order(&v, o), TP_OK);
  TPT_EQ_INT(o[0], 0);
  TPT_EQ_INT(o[1], 2);
  TPT_EQ_INT(o[2], 3);
  TPT_EQ_INT(o[3], 1);
  TPT_STATUS(tp_compact(&v, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, sizeof want_cl);
  TPT_MEMEQ_LE(b.data, want_cl, sizeof want_cl, 4);
  tp_buffer_release(&b);
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_EQ_U64(b.nbytes, sizeof want_rm);
  TPT_MEMEQ_LE(b.data, want_rm, sizeof want_rm, 4);
  tp_buffer_release(&b);
  /* the whole channels_last tensor in PRESERVE is zero-copy */
  TPT_STATUS(tp_compact(&t, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_CHECK((b.data == (const void *)x && b.owned == NULL) || tpt_big_endian());
  TPT_EQ_U64(b.nbytes, sizeof x);
  TPT_MEMEQ_LE(b.data, x, sizeof x, 4);
  tp_buffer_release(&b);
}

int main(void) {
  size_t i;
  for (i = 0; i < sizeof g_x / sizeof g_x[0]; i++) /* deterministic "randn" */
    g_x[i] = (float)((double)(int64_t)(tpt_rand() >> 11) / (double)(1ull << 52) - 1.0);
  (void)tpt_range;
  TPT_RUN(test_select_of_randn);
  TPT_RUN(test_view_at_byte_zero);
  TPT_RUN(test_qkv_chunks);
  TPT_RUN(test_transposed_scale);
  TPT_RUN(test_channels_last_slice);
  return tpt_finish("seed_cases");
}
