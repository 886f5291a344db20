/* tp_store and the .ptd writer: keys, orders, dedup, collisions, alignment, exact header bytes,
   streaming sinks and errors. Files are read back with tp_ptd_open (the official verifier and
   decoder run on the same cases in tests/verify_ptd.cpp). */
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>

/* ---- helpers ---------------------------------------------------------------------------- */

/* Reference compaction, element by element: dims visited in `order` (outermost first), each
   element read at offset + sum(index * stride). Independent of the library's copy code. */
static size_t ref_compact(const tp_tensor *t, const uint8_t *order, unsigned char *out) {
  size_t es = tp_dtype_size(t->dtype), n = 0;
  int64_t idx[TP_MAX_DIMS];
  int d, k;
  const unsigned char *base = (const unsigned char *)t->storage.data;
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] == 0) return 0;
    idx[d] = 0;
  }
  for (;;) {
    int64_t off = t->offset;
    for (d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    tpt_to_le(out + n, base + (size_t)off * es, 1, es); /* the bytes as written */
    n += es;
    for (k = t->ndim - 1; k >= 0; k--) {
      int dd = order[k];
      if (++idx[dd] < t->sizes[dd]) break;
      idx[dd] = 0;
    }
    if (k < 0) break;
  }
  return n;
}

static const uint8_t ROWMAJ[TP_MAX_DIMS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static float g_x[2 * 3 * 5 * 6];   /* NCHW 2x3x5x6 stored channels_last */
static float g_m[3 * 8 * 8];

static void fill(void) {
  size_t i;
  for (i = 0; i < sizeof g_x / sizeof g_x[0]; i++) g_x[i] = (float)i + 0.5f;
  for (i = 0; i < sizeof g_m / sizeof g_m[0]; i++) g_m[i] = (float)i * 0.25f - 7.0f;
}

/* x: sizes (2,3,5,6), channels_last strides (90,1,18,3); slice [:, :, 1:-1, 1:-1]. */
static tp_tensor cl_slice(void) {
  tp_storage st;
  tp_tensor x, y;
  int64_t sizes[4] = {2, 3, 5, 6}, strides[4] = {90, 1, 18, 3};
  st.data = g_x;
  st.nbytes = sizeof g_x;
  TPT_STATUS(tp_view(st, TP_F32, 4, sizes, strides, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_slice(&x, 2, 1, -1, 1, &y, NULL), TP_OK);
  TPT_STATUS(tp_slice(&y, 3, 1, -1, 1, &y, NULL), TP_OK);
  TPT_EQ_INT(y.offset, 21);
  TPT_EQ_INT(y.sizes[2], 3);
  TPT_EQ_INT(y.sizes[3], 4);
  return y;
}

static tp_tensor mat(int64_t rows, int64_t cols, int64_t offset) {
  tp_storage st;
  tp_tensor t;
  int64_t sizes[2];
  sizes[0] = rows;
  sizes[1] = cols;
  st.data = g_m;
  st.nbytes = sizeof g_m;
  TPT_STATUS(tp_view(st, TP_F32, 2, sizes, NULL, offset, &t, NULL), TP_OK);
  return t;
}

/* Writes s into m (freshly), checks the size against tp_store_ptd_size and opens it. */
static int write_open(tp_store *s, tp_membuf *m, tp_ptd *p) {
  tp_sink sink;
  uint64_t size = 0;
  memset(m, 0, sizeof *m);
  sink = tp_sink_membuf(m);
  TPT_STATUS(tp_store_ptd_size(s, &size), TP_OK);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  TPT_EQ_U64(m->size, size);
  TPT_STATUS(tp_ptd_open(p, m->data, m->size), TP_OK);
  return p->err.status == TP_OK;
}

/* One entry checked against a view: key, layout, bytes, absolute alignment. */
static void check_entry(tp_ptd *p, const char *key, const tp_tensor *t, const uint8_t *order,
                        size_t align) {
  tp_ptd_entry e;
  unsigned char *want = (unsigned char *)malloc(tp_nbytes(t) + 1);
  size_t n = ref_compact(t, order, want), off;
  int d;
  TPT_STATUS(tp_ptd_find(p, key, &e), TP_OK);
  TPT_EQ_STR(e.key, key);
  TPT_EQ_U64(e.nbytes, n);
  TPT_MEMEQ(e.data, want, n);
  TPT_EQ_INT(e.has_layout, 1);
  TPT_EQ_INT(e.dtype, t->dtype);
  TPT_EQ_INT(e.ndim, t->ndim);
  for (d = 0; d < t->ndim; d++) {
    TPT_EQ_INT(e.sizes[d], t->sizes[d]);
    TPT_EQ_INT(e.dim_order[d], order[d]);
  }
  off = (size_t)((const unsigned char *)e.data - p->data);
  TPT_EQ_U64(off % align, 0);
  free(want);
}

static void sha_hex_of(const tp_tensor *t, const uint8_t *order, char hex[65]) {
  unsigned char *b = (unsigned char *)malloc(tp_nbytes(t) + 1);
  size_t n = ref_compact(t, order, b);
  TPT_STATUS(tp_sha256_hex(b, n, hex), TP_OK);
  free(b);
}

/* ---- cases ------------------------------------------------------------------------------ */

static void test_channels_last_slice_preserve(void) {
  tp_store *s;
  tp_tensor y = cl_slice();
  uint8_t cl[4] = {0, 2, 3, 1};
  const char *key = NULL;
  char hex[65];
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, &key), TP_OK);
  sha_hex_of(&y, cl, hex);
  TPT_EQ_STR(key, hex);
  TPT_EQ_INT(tp_store_count(s), 1);
  if (write_open(s, &m, &p)) {
    TPT_EQ_INT(p.count, 1);
    check_entry(&p, hex, &y, cl, 16);
    /* 2*3*3*4 floats, nothing of the parent's other 108 elements */
    TPT_EQ_U64(p.segment_data_size, 72 * 4);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

/* The whole channels_last tensor in PRESERVE: its bytes are the storage, as is. */
static void test_channels_last_dense_preserve(void) {
  tp_store *s;
  tp_storage st;
  tp_tensor x;
  int64_t sizes[4] = {2, 3, 5, 6}, strides[4] = {90, 1, 18, 3};
  uint8_t cl[4] = {0, 2, 3, 1};
  tp_membuf m;
  tp_ptd p;
  st.data = g_x;
  st.nbytes = sizeof g_x;
  TPT_STATUS(tp_view(st, TP_F32, 4, sizes, strides, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "x", &x, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    check_entry(&p, "x", &x, cl, 16);
    TPT_STATUS(tp_ptd_find(&p, "x", &e), TP_OK);
    TPT_EQ_U64(e.nbytes, sizeof g_x);
    TPT_MEMEQ_LE(e.data, g_x, sizeof g_x, 4);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_channels_last_slice_row_major(void) {
  tp_store *s;
  tp_tensor y = cl_slice();
  const char *key = NULL;
  char hex[65];
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "w.cl", &y, TP_ORDER_ROW_MAJOR, 0, &key), TP_OK);
  TPT_EQ_STR(key, "w.cl");
  /* the same view again in PRESERVE order under its sha key: different bytes, second entry */
  TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, &key), TP_OK);
  {
    uint8_t cl[4] = {0, 2, 3, 1};
    sha_hex_of(&y, cl, hex);
    TPT_EQ_STR(key, hex);
  }
  if (write_open(s, &m, &p)) {
    uint8_t cl[4] = {0, 2, 3, 1};
    TPT_EQ_INT(p.count, 2);
    check_entry(&p, "w.cl", &y, ROWMAJ, 16);
    check_entry(&p, hex, &y, cl, 16);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_transposed_2d(void) {
  tp_store *s;
  tp_tensor a = mat(3, 5, 0), t;
  uint8_t tr[2] = {1, 0};
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_transpose(&a, 0, 1, &t, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "t.rm", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "t.keep", &t, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    check_entry(&p, "t.rm", &t, ROWMAJ, 16);
    check_entry(&p, "t.keep", &t, tr, 16);
    /* PRESERVE of a dense transpose is the storage's own order */
    TPT_STATUS(tp_ptd_find(&p, "t.keep", &e), TP_OK);
    TPT_MEMEQ_LE(e.data, g_m, 15 * 4, 4);
    /* row-major: element [1][0] of the transpose is a[0][1] */
    TPT_STATUS(tp_ptd_find(&p, "t.rm", &e), TP_OK);
    TPT_MEMEQ_LE((const float *)e.data + 3, &g_m[1], 4, 4);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_offset_view(void) {
  tp_store *s;
  tp_storage st;
  tp_tensor x, x1;
  int64_t sizes[3] = {3, 8, 8};
  tp_membuf m;
  tp_ptd p;
  st.data = g_m;
  st.nbytes = sizeof g_m;
  TPT_STATUS(tp_view(st, TP_F32, 3, sizes, NULL, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_select(&x, 0, 1, &x1, NULL), TP_OK);
  TPT_EQ_INT(x1.offset, 64);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "x1", &x1, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_STATUS(tp_ptd_find(&p, "x1", &e), TP_OK);
    TPT_EQ_U64(e.nbytes, 64 * 4);
    TPT_MEMEQ_LE(e.data, &g_m[64], 64 * 4, 4); /* the view's bytes, not the storage's first */
    TPT_EQ_U64(p.segment_data_size, 64 * 4);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_empty_tensor(void) {
  tp_store *s;
  tp_tensor z = mat(0, 4, 0);
  const char *key = NULL;
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &z, TP_ORDER_ROW_MAJOR, 0, &key), TP_OK);
  TPT_EQ_STR(key, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_STATUS(tp_ptd_find(&p, key, &e), TP_OK);
    TPT_EQ_U64(e.nbytes, 0);
    TPT_EQ_INT(e.ndim, 2);
    TPT_EQ_INT(e.sizes[0], 0);
    TPT_EQ_INT(e.sizes[1], 4);
    TPT_EQ_U64(p.segment_data_size, 0);
    TPT_EQ_U64(m.size, p.segment_base);   /* the file ends at the base */
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_scalar_0d(void) {
  tp_store *s;
  tp_storage st;
  tp_tensor t;
  tp_membuf m;
  tp_ptd p;
  st.data = &g_m[5];
  st.nbytes = 4;
  TPT_STATUS(tp_view(st, TP_F32, 0, NULL, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "s", &t, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_STATUS(tp_ptd_find(&p, "s", &e), TP_OK);
    TPT_EQ_INT(e.ndim, 0);
    TPT_EQ_INT(e.has_layout, 1);
    TPT_EQ_U64(e.nbytes, 4);
    TPT_MEMEQ_LE(e.data, &g_m[5], 4, 4);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_dedup(void) {
  tp_store *s;
  tp_tensor a = mat(2, 8, 8), b;
  static float copy[16];
  unsigned char le[64]; /* a's bytes as written (little-endian floats) */
  tp_storage st;
  const char *k1 = NULL, *k2 = NULL;
  int64_t sizes[2] = {2, 8};
  tp_membuf m;
  tp_ptd p;
  memcpy(copy, &g_m[8], sizeof copy);
  st.data = copy;
  st.nbytes = sizeof copy;
  TPT_STATUS(tp_view(st, TP_F32, 2, sizes, NULL, 0, &b, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &a, TP_ORDER_ROW_MAJOR, 0, &k1), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &b, TP_ORDER_ROW_MAJOR, 0, &k2), TP_OK);
  TPT_CHECK(k1 == k2);                        /* same key, stored once: same pointer */
  TPT_EQ_INT(tp_store_count(s), 1);
  TPT_STATUS(tp_store_add(s, "alias", &b, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "alias", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  tpt_to_le(le, &g_m[8], 16, 4);
  TPT_STATUS(tp_store_add_bytes(s, "raw", le, 64, 0, 0, NULL), TP_OK);
  TPT_EQ_INT(tp_store_count(s), 3);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e0, e1, e2;
    TPT_EQ_INT(p.count, 3);
    TPT_STATUS(tp_ptd_entry_at(&p, 0, &e0), TP_OK);
    TPT_STATUS(tp_ptd_entry_at(&p, 1, &e1), TP_OK);
    TPT_STATUS(tp_ptd_entry_at(&p, 2, &e2), TP_OK);
    TPT_EQ_STR(e0.key, k1);
    TPT_EQ_STR(e1.key, "alias");
    TPT_EQ_STR(e2.key, "raw");
    /* one segment shared by all three (equal bytes) */
    TPT_EQ_INT(e0.segment_index, 0);
    TPT_EQ_INT(e1.segment_index, 0);
    TPT_EQ_INT(e2.segment_index, 0);
    TPT_CHECK(e0.data == e1.data && e1.data == e2.data);
    TPT_EQ_INT(e2.has_layout, 0);
    TPT_EQ_U64(p.segment_data_size, 64);
    TPT_STATUS(tp_ptd_entry_at(&p, 3, &e0), TP_ERR_INVALID);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_key_collision(void) {
  tp_store *s;
  tp_tensor a = mat(2, 4, 0), b = mat(2, 4, 8);
  tp_membuf m;
  tp_sink sink;
  uint64_t size = 7;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_EQ_STR(tp_store_error(s), "");
  TPT_STATUS(tp_store_add(s, "w", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "w", &b, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "key \"w\"");
  TPT_CONTAINS(tp_store_error(s), "different bytes");
  /* sticky: everything later returns the first failure */
  TPT_STATUS(tp_store_add(s, "v", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_store_ptd_size(s, &size), TP_ERR_INVALID);
  TPT_EQ_U64(size, 0);
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_ERR_INVALID);
  TPT_EQ_U64(m.size, 0);
  TPT_EQ_INT(tp_store_count(s), 1);
  tp_membuf_free(&m);
  tp_store_destroy(s);

  /* same bytes, different shape under one key: stored once, first layout kept */
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  {
    tp_tensor c = mat(4, 2, 0);
    TPT_STATUS(tp_store_add(s, "w", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
    TPT_STATUS(tp_store_add(s, "w", &c, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
    TPT_STATUS(tp_store_add_bytes(s, "w", g_m, 7, 0, 1, NULL), TP_ERR_INVALID);
    TPT_CONTAINS(tp_store_error(s), "(7 bytes");
    TPT_CONTAINS(tp_store_error(s), "; 32 bytes");
  }
  tp_store_destroy(s);
}

static void test_alignment(void) {
  tp_store *s;
  tp_tensor a = mat(1, 3, 0), b = mat(1, 5, 3), c = mat(1, 1, 9);
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "a", &a, TP_ORDER_ROW_MAJOR, 3, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "alignment 3 is not a power of two up to 16777216");
  tp_store_destroy(s);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add_bytes(s, "a", "x", 1, (size_t)1 << 25, 0, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "alignment 33554432");
  tp_store_destroy(s);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add_bytes(s, "a", "x", 1, (size_t)1 << 24, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_ptd_size(s, NULL), TP_ERR_INVALID); /* a bad argument (ERRORS) */
  TPT_EQ_STR(tp_store_error(s), "tp_store_ptd_size: size_out is NULL");
  tp_store_destroy(s);

  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "a", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "b", &b, TP_ORDER_ROW_MAJOR, 64, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "c", &c, TP_ORDER_ROW_MAJOR, 1, NULL), TP_OK);
  /* "a" again, same bytes, stricter alignment: its segment moves to 32 */
  TPT_STATUS(tp_store_add(s, "a", &a, TP_ORDER_ROW_MAJOR, 32, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_EQ_U64(p.segment_base % 128, 0);
    TPT_STATUS(tp_ptd_find(&p, "a", &e), TP_OK);
    TPT_EQ_U64((size_t)((const unsigned char *)e.data - m.data), p.segment_base);
    TPT_STATUS(tp_ptd_find(&p, "b", &e), TP_OK);
    /* a: 12 bytes at 0; b: 64-aligned -> 64 */
    TPT_EQ_U64((size_t)((const unsigned char *)e.data - m.data), p.segment_base + 64);
    TPT_STATUS(tp_ptd_find(&p, "c", &e), TP_OK);
    /* c: alignment 1 right after b's 20 bytes */
    TPT_EQ_U64((size_t)((const unsigned char *)e.data - m.data), p.segment_base + 84);
    TPT_EQ_U64(p.segment_data_size, 88);
    TPT_EQ_U64(m.size, p.segment_base + 88);
  }
  tp_membuf_free(&m);
  /* an alignment above 128 moves the base too */
  TPT_STATUS(tp_store_add(s, "d", &a, TP_ORDER_PRESERVE, 4096, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_EQ_U64(p.segment_base % 4096, 0);
    TPT_STATUS(tp_ptd_find(&p, "d", &e), TP_OK);
    TPT_EQ_U64((size_t)((const unsigned char *)e.data - m.data) % 4096, 0);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

/* Exact bytes of the head of a file: prefix, FH01 header, padding; and the region layout. */
static void test_header_bytes(void) {
  tp_store *s;
  tp_tensor a = mat(2, 2, 0);
  tp_membuf m;
  tp_ptd p;
  static const unsigned char fh[] = {'F', 'H', '0', '1', 40, 0, 0, 0, 48, 0, 0, 0, 0, 0, 0, 0};
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "a", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  if (write_open(s, &m, &p)) {
    uint64_t fbsize = tp__get_le64(m.data + 24), base = tp__get_le64(m.data + 32);
    size_t i;
    uint32_t root = tp__get_le32(m.data);
    TPT_MEMEQ(m.data + 4, "FT01", 4);
    TPT_MEMEQ(m.data + 8, fh, sizeof fh);
    TPT_EQ_U64(p.flatbuffer_offset, 48);
    TPT_EQ_U64(p.flatbuffer_size, fbsize);
    TPT_EQ_U64(fbsize % 8, 0);
    /* segment base: flatbuffer end rounded up to 128 */
    TPT_EQ_U64(base, (48 + fbsize + 127) / 128 * 128);
    TPT_EQ_U64(tp__get_le64(m.data + 40), 16);
    TPT_EQ_U64(m.size, base + 16);
    for (i = 48; i < 56; i++) TPT_EQ_INT(m.data[i], 0);
    for (i = (size_t)(48 + fbsize); i < base; i++) TPT_EQ_INT(m.data[i], 0);
    /* the root table lies inside the flatbuffer, after the header */
    TPT_CHECK(root >= 56 && root < 48 + fbsize && root % 4 == 0);
    TPT_MEMEQ_LE(m.data + base, g_m, 16, 4);
    /* the same store written twice gives the same bytes */
    {
      tp_membuf m2;
      tp_sink sink;
      memset(&m2, 0, sizeof m2);
      sink = tp_sink_membuf(&m2);
      TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
      TPT_EQ_U64(m2.size, m.size);
      TPT_MEMEQ(m2.data, m.data, m.size);
      tp_membuf_free(&m2);
    }
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);

  /* an empty store: no entries, both vectors present, file = base bytes (>= 128) */
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  if (write_open(s, &m, &p)) {
    TPT_EQ_INT(p.count, 0);
    TPT_EQ_U64(m.size, 128);
    TPT_EQ_U64(p.segment_base, 128);
    TPT_EQ_U64(p.segment_data_size, 0);
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

static void test_bytes_copy_and_borrow(void) {
  tp_store *s;
  unsigned char src[5] = {1, 2, 3, 4, 5}, src2[3] = {9, 8, 7};
  const char *key = NULL;
  char hex[65];
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add_bytes(s, NULL, src, 5, 0, 1, &key), TP_OK);
  TPT_STATUS(tp_sha256_hex(src, 5, hex), TP_OK);
  TPT_EQ_STR(key, hex);
  TPT_STATUS(tp_store_add_bytes(s, "b", src2, 3, 8, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add_bytes(s, "empty", NULL, 0, 0, 1, NULL), TP_OK);
  src[0] = 77;   /* the copy is unaffected */
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    static const unsigned char want[5] = {1, 2, 3, 4, 5};
    TPT_STATUS(tp_ptd_find(&p, hex, &e), TP_OK);
    TPT_MEMEQ(e.data, want, 5);
    TPT_EQ_INT(e.has_layout, 0);
    TPT_STATUS(tp_ptd_find(&p, "b", &e), TP_OK);
    TPT_MEMEQ(e.data, src2, 3);
    TPT_STATUS(tp_ptd_find(&p, "empty", &e), TP_OK);
    TPT_EQ_U64(e.nbytes, 0);
    TPT_STATUS(tp_ptd_find(&p, "nope", &e), TP_ERR_INVALID);
    TPT_CONTAINS(p.last_lookup.msg, "\"nope\"");
    TPT_EQ_INT(p.err.status, TP_OK);   /* a miss does not stick */
    TPT_STATUS(tp_ptd_find(&p, "b", &e), TP_OK);
  }
  tp_membuf_free(&m);
  TPT_STATUS(tp_store_add_bytes(s, "null", NULL, 4, 0, 1, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "NULL data");
  tp_store_destroy(s);
}

static void test_bad_views(void) {
  tp_store *s;
  tp_tensor t = mat(2, 2, 0);
  tp_storage one;
  int64_t big = (int64_t)1 << 31, zero = 0;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  t.offset = 100000;   /* hand-broken view */
  TPT_STATUS(tp_store_add(s, "bad", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_BOUNDS);
  TPT_CONTAINS(tp_store_error(s), "key \"bad\"");
  TPT_STATUS(tp_store_add(s, "ok", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_BOUNDS);
  tp_store_destroy(s);

  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "n", NULL, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_INVALID);
  tp_store_destroy(s);

  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  t = mat(2, 2, 0);
  TPT_STATUS(tp_store_add(s, "o", &t, (tp_order)7, 0, NULL), TP_ERR_INVALID);
  tp_store_destroy(s);

  /* a size that does not fit the layout's int32 (a broadcast view, 1 element of storage) */
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  one.data = g_m;
  one.nbytes = 4;
  TPT_STATUS(tp_view(one, TP_F32, 1, &big, &zero, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "huge", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(tp_store_error(s), "2147483648");
  tp_store_destroy(s);
}

/* A sink that fails after `left` bytes. */
typedef struct fail_sink {
  size_t left;
} fail_sink;
static tp_status fail_write(void *ctx, const void *p, size_t n) {
  fail_sink *f = (fail_sink *)ctx;
  (void)p;
  if (n > f->left) return TP_ERR_IO;
  f->left -= n;
  return TP_OK;
}

static void test_sink_failure(void) {
  tp_tensor a = mat(8, 8, 0);
  uint64_t size = 0;
  size_t cut;
  for (cut = 0; cut < 400; cut += 37) {
    tp_store *s;
    fail_sink f;
    tp_sink sink;
    TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
    TPT_STATUS(tp_store_add(s, "a", &a, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
    TPT_STATUS(tp_store_ptd_size(s, &size), TP_OK);
    f.left = cut;
    sink.write = fail_write;
    sink.ctx = &f;
    TPT_STATUS(tp_store_write_ptd(s, &sink), cut < size ? TP_ERR_IO : TP_OK);
    if (cut < size) TPT_CONTAINS(tp_store_error(s), "i/o error");
    tp_store_destroy(s);
  }
  TPT_CHECK(size > 370);   /* so the loop cut inside every region */
  {
    tp_store *s;
    TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
    TPT_STATUS(tp_store_write_ptd(s, NULL), TP_ERR_INVALID);
    TPT_EQ_STR(tp_store_error(s), "tp_store_write_ptd: the sink or its write callback is NULL");
    tp_store_destroy(s);
    TPT_STATUS(tp_store_create(NULL, NULL), TP_ERR_INVALID);
    tp_store_destroy(NULL);
  }
}

static void test_file_atomic(void) {
  tp_store *s;
  tp_tensor y = cl_slice();
  const char *path = "/tmp/tp_test_store.ptd";
  const char *bad = "/tmp/tp_no_such_dir_for_store/x.ptd";
  tp_membuf m;
  tp_ptd p;
  FILE *f;
  remove(path);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_write_ptd_file(s, path), TP_OK);
  if (write_open(s, &m, &p)) {
    unsigned char *buf = (unsigned char *)malloc(m.size + 16);
    size_t n;
    f = fopen(path, "rb");
    TPT_CHECK(f != NULL);
    if (f) {
      n = fread(buf, 1, m.size + 16, f);
      fclose(f);
      TPT_EQ_U64(n, m.size);
      TPT_MEMEQ(buf, m.data, m.size);
    }
    free(buf);
  }
  tp_membuf_free(&m);
  remove(path);
  tp_store_destroy(s);

  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_write_ptd_file(s, bad), TP_ERR_IO);
  TPT_CONTAINS(tp_store_error(s), "tp_no_such_dir_for_store");
  f = fopen(bad, "rb");
  TPT_CHECK(f == NULL);
  if (f) fclose(f);
  tp_store_destroy(s);
}

/* 100k keys: the hash tables keep adds linear; a few lookups through the reader. */
static void test_many_entries(void) {
  enum { N = 100000 };
  tp_store *s;
  uint32_t *vals = (uint32_t *)malloc(N * sizeof(uint32_t));
  char key[32];
  size_t i;
  tp_membuf m;
  tp_ptd p;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  for (i = 0; i < N; i++) {
    vals[i] = (uint32_t)(i % 50000);   /* half the contents repeat */
    tpt_to_le(&vals[i], &vals[i], 1, 4); /* raw bytes: stored as given */
    snprintf(key, sizeof key, "k%lu", (unsigned long)i);
    if (tp_store_add_bytes(s, key, &vals[i], 4, 4, 0, NULL) != TP_OK) break;
  }
  TPT_EQ_U64(i, N);
  TPT_EQ_U64(tp_store_count(s), N);
  if (write_open(s, &m, &p)) {
    tp_ptd_entry e;
    TPT_EQ_U64(p.count, N);
    TPT_EQ_U64(p.segment_data_size, 50000 * 4);   /* dedup: 50000 distinct segments */
    TPT_STATUS(tp_ptd_find(&p, "k99999", &e), TP_OK);
    TPT_EQ_INT(e.segment_index, 49999);
    TPT_EQ_U64(tp__get_le32((const unsigned char *)e.data), 49999);
    TPT_STATUS(tp_ptd_find(&p, "k0", &e), TP_OK);
    TPT_EQ_INT(e.segment_index, 0);
    /* many full scans: the FlatBuffers reader's table budget is per call, not per file */
    for (i = 0; i < 12; i++) TPT_STATUS(tp_ptd_find(&p, "k99998", &e), TP_OK);
    TPT_EQ_INT(e.segment_index, 49998);
    TPT_STATUS(tp_ptd_entry_at(&p, N - 1, &e), TP_OK);
    TPT_EQ_INT(p.err.status, TP_OK);
    /* with an index every key is found (a linear scan each would be 5e9 compares) */
    {
      size_t need = tp_ptd_index_slots(&p), bad = 0;
      uint32_t *slots = (uint32_t *)malloc(need * sizeof(uint32_t));
      TPT_EQ_U64(need, 262144);   /* power of two >= 2 * 100000 */
      TPT_STATUS(tp_ptd_index(&p, slots, need - 1), TP_ERR_INVALID);
      TPT_CONTAINS(p.last_lookup.msg, "needs 262144 slots, 262143 given");
      TPT_STATUS(tp_ptd_index(&p, slots, need), TP_OK);
      for (i = 0; i < N; i++) {
        snprintf(key, sizeof key, "k%lu", (unsigned long)i);
        if (tp_ptd_find(&p, key, &e) != TP_OK || e.segment_index != i % 50000 ||
            strcmp(e.key, key) != 0)
          bad++;
      }
      TPT_EQ_U64(bad, 0);
      TPT_STATUS(tp_ptd_find(&p, "k100000", &e), TP_ERR_INVALID);
      TPT_STATUS(tp_ptd_find(&p, "", &e), TP_ERR_INVALID);
      free(slots);
    }
  }
  tp_membuf_free(&m);
  tp_store_destroy(s);
  free(vals);
}

int main(void) {
  (void)tpt_range;   /* harness helpers this suite does not use */
  fill();
  TPT_RUN(test_channels_last_slice_preserve);
  TPT_RUN(test_channels_last_dense_preserve);
  TPT_RUN(test_channels_last_slice_row_major);
  TPT_RUN(test_transposed_2d);
  TPT_RUN(test_offset_view);
  TPT_RUN(test_empty_tensor);
  TPT_RUN(test_scalar_0d);
  TPT_RUN(test_dedup);
  TPT_RUN(test_key_collision);
  TPT_RUN(test_alignment);
  TPT_RUN(test_header_bytes);
  TPT_RUN(test_bytes_copy_and_borrow);
  TPT_RUN(test_bad_views);
  TPT_RUN(test_sink_failure);
  TPT_RUN(test_file_atomic);
  TPT_RUN(test_many_entries);
  return tpt_finish("store");
}
