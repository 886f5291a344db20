/* The .ptd reader: every check of tp_ptd_open on hand-built malformed files (exact status and
   sentence), truncation at every byte and single-byte corruption of written files (read
   correctly or TP_ERR_FORMAT, never a read outside the bytes: each file is opened from a heap
   copy of exactly its size, under ASan). */
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>

/* ---- building FlatTensor flatbuffers by hand -------------------------------------------- */

typedef struct nd_spec {
  const char *key;     /* NULL: no key field */
  uint32_t seg;
  int layout;          /* 0: no tensor_layout */
  int8_t stype;
  int nsizes;          /* -1: no sizes vector */
  int32_t sizes[20];
  int norder;          /* -1: no dim_order vector */
  uint8_t order[20];
} nd_spec;

typedef struct ft_spec {
  uint32_t version;
  int nsegs;           /* -1: no segments vector */
  uint64_t seg_off[4], seg_size[4];
  int nnd;             /* -1: no named_data vector */
  nd_spec nd[4];
} ft_spec;

static void build_ft(const ft_spec *f, tp_membuf *out) {
  tp_fb_builder *b;
  tp_fb_ref refs[4], segs = 0, named = 0, root;
  const unsigned char *d;
  size_t n;
  int i;
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  for (i = 0; i < f->nsegs; i++) {
    tp_fb_start_table(b);
    tp_fb_add_u64(b, 0, f->seg_off[i], 0);
    tp_fb_add_u64(b, 1, f->seg_size[i], 0);
    refs[i] = tp_fb_end_table(b);
  }
  if (f->nsegs >= 0) segs = tp_fb_create_vector_refs(b, refs, (size_t)f->nsegs);
  for (i = 0; i < f->nnd; i++) {
    const nd_spec *s = &f->nd[i];
    tp_fb_ref key = s->key ? tp_fb_create_string(b, s->key, strlen(s->key)) : 0, lay = 0;
    if (s->layout) {
      tp_fb_ref sz = s->nsizes >= 0 ? tp_fb_create_vector(b, s->sizes, (size_t)s->nsizes, 4) : 0;
      tp_fb_ref od = s->norder >= 0 ? tp_fb_create_vector(b, s->order, (size_t)s->norder, 1) : 0;
      tp_fb_start_table(b);
      tp_fb_add_i8(b, 0, s->stype, 0);
      tp_fb_add_ref(b, 1, sz);
      tp_fb_add_ref(b, 2, od);
      lay = tp_fb_end_table(b);
    }
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, key);
    tp_fb_add_u32(b, 1, s->seg, 0);
    tp_fb_add_ref(b, 2, lay);
    refs[i] = tp_fb_end_table(b);
  }
  if (f->nnd >= 0) named = tp_fb_create_vector_refs(b, refs, (size_t)f->nnd);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, f->version, 0);
  tp_fb_add_ref(b, 1, segs);
  tp_fb_add_ref(b, 2, named);
  root = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, root, "FT01"), TP_OK);
  d = tp_fb_data(b, &n);
  memset(out, 0, sizeof *out);
  {
    tp_sink sink = tp_sink_membuf(out);
    TPT_STATUS(tp_sink_write(&sink, d, n), TP_OK);
  }
  tp_fb_builder_destroy(b);
}

/* Inserts the FH01 header as upstream does and appends `data` at a 128-aligned base. */
static void wrap_ptd(const tp_membuf *fb, const void *data, size_t n, tp_membuf *out) {
  unsigned char head[56];
  uint64_t base = (48 + fb->size + 127) / 128 * 128;
  tp_sink sink;
  memset(out, 0, sizeof *out);
  sink = tp_sink_membuf(out);
  memset(head, 0, sizeof head);
  tp__put_le32(head, tp__get_le32(fb->data) + 48);
  memcpy(head + 4, fb->data + 4, 4);
  memcpy(head + 8, "FH01", 4);
  tp__put_le32(head + 12, 40);
  tp__put_le64(head + 16, 48);
  tp__put_le64(head + 24, fb->size);
  tp__put_le64(head + 32, base);
  tp__put_le64(head + 40, n);
  TPT_STATUS(tp_sink_write(&sink, head, sizeof head), TP_OK);
  TPT_STATUS(tp_sink_write(&sink, fb->data + 8, fb->size - 8), TP_OK);
  TPT_STATUS(tp_sink_zeros(&sink, (size_t)(base - 48 - fb->size)), TP_OK);
  TPT_STATUS(tp_sink_write(&sink, data, n), TP_OK);
}

/* Opens a heap copy of exactly n bytes (ASan sees any read past the end). */
static tp_status open_copy(const unsigned char *bytes, size_t n, tp_ptd *p, char *msg,
                           size_t msgcap) {
  unsigned char *c = (unsigned char *)malloc(n ? n : 1);
  tp_status st;
  if (n) memcpy(c, bytes, n);
  st = tp_ptd_open(p, c, n);
  if (st == TP_OK) {
    /* everything the reader hands out lies inside the bytes */
    size_t i;
    for (i = 0; i < p->count; i++) {
      tp_ptd_entry e;
      tp_status s2 = tp_ptd_entry_at(p, i, &e);
      TPT_STATUS(s2, TP_OK);
      if (s2 != TP_OK) break;
      TPT_CHECK((const unsigned char *)e.data >= c &&
                (const unsigned char *)e.data + e.nbytes <= c + n);
      TPT_CHECK(e.key >= (const char *)c && e.key < (const char *)c + n);
      if (e.nbytes > 0) {
        volatile unsigned char sum = 0;
        size_t k;
        const unsigned char *q = (const unsigned char *)e.data;
        for (k = 0; k < e.nbytes; k++) sum = (unsigned char)(sum + q[k]);
        (void)sum;
      }
      {
        tp_ptd_entry f;
        TPT_STATUS(tp_ptd_find(p, e.key, &f), TP_OK);
      }
    }
  }
  if (st == TP_OK && p->count > 0) {
    /* the same lookups through the index */
    size_t need = tp_ptd_index_slots(p), i;
    uint32_t *slots = (uint32_t *)malloc(need * sizeof(uint32_t));
    TPT_STATUS(tp_ptd_index(p, slots, need), TP_OK);
    for (i = 0; i < p->count; i++) {
      tp_ptd_entry e, f;
      TPT_STATUS(tp_ptd_entry_at(p, i, &e), TP_OK);
      TPT_STATUS(tp_ptd_find(p, e.key, &f), TP_OK);
    }
    free(slots);
  }
  if (msg) snprintf(msg, msgcap, "%s", p->err.status != TP_OK ? p->err.msg : "");
  free(c);
  return st;
}

static float g_w[64];

static ft_spec good_spec(void) {
  ft_spec f;
  memset(&f, 0, sizeof f);
  f.nsegs = 2;
  f.seg_off[0] = 0;
  f.seg_size[0] = 24;
  f.seg_off[1] = 32;
  f.seg_size[1] = 5;
  f.nnd = 2;
  f.nd[0].key = "w";
  f.nd[0].seg = 0;
  f.nd[0].layout = 1;
  f.nd[0].stype = TP_F32;
  f.nd[0].nsizes = 2;
  f.nd[0].sizes[0] = 2;
  f.nd[0].sizes[1] = 3;
  f.nd[0].norder = 2;
  f.nd[0].order[0] = 1;
  f.nd[0].order[1] = 0;
  f.nd[1].key = "raw";
  f.nd[1].seg = 1;
  return f;
}

/* Expects tp_ptd_open of the wrapped spec to give `want` and a message containing `needle`. */
static void expect_ft(const ft_spec *f, size_t datalen, tp_status want, const char *needle) {
  tp_membuf fb, file;
  tp_ptd p;
  char msg[TP_ERROR_MAX];
  build_ft(f, &fb);
  wrap_ptd(&fb, g_w, datalen, &file);
  TPT_STATUS(open_copy(file.data, file.size, &p, msg, sizeof msg), want);
  if (needle) TPT_CONTAINS(msg, needle);
  tp_membuf_free(&fb);
  tp_membuf_free(&file);
}

/* ---- cases ------------------------------------------------------------------------------ */

static void test_hand_built_good(void) {
  ft_spec f = good_spec();
  tp_membuf fb, file;
  tp_ptd p;
  tp_ptd_entry e;
  build_ft(&f, &fb);
  wrap_ptd(&fb, g_w, 37, &file);
  TPT_STATUS(tp_ptd_open(&p, file.data, file.size), TP_OK);
  TPT_EQ_INT(p.count, 2);
  TPT_EQ_U64(p.flatbuffer_offset, 48);
  TPT_EQ_U64(p.flatbuffer_size, fb.size);
  TPT_EQ_U64(p.segment_data_size, 37);
  TPT_EQ_INT(p.version, 0);
  TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_OK);
  TPT_EQ_INT(e.has_layout, 1);
  TPT_EQ_INT(e.dtype, TP_F32);
  TPT_EQ_INT(e.ndim, 2);
  TPT_EQ_INT(e.sizes[0], 2);
  TPT_EQ_INT(e.sizes[1], 3);
  TPT_EQ_INT(e.dim_order[0], 1);
  TPT_EQ_INT(e.dim_order[1], 0);
  TPT_EQ_U64(e.nbytes, 24);
  TPT_CHECK(e.data == file.data + p.segment_base);
  TPT_STATUS(tp_ptd_find(&p, "raw", &e), TP_OK);
  TPT_EQ_INT(e.has_layout, 0);
  TPT_EQ_U64(e.nbytes, 5);
  TPT_CHECK(e.data == file.data + p.segment_base + 32);
  TPT_EQ_U64(e.segment_index, 1);
  TPT_STATUS(tp_ptd_find(&p, "ra", &e), TP_ERR_INVALID);
  TPT_STATUS(tp_ptd_find(&p, "raww", &e), TP_ERR_INVALID);
  TPT_STATUS(tp_ptd_find(&p, NULL, &e), TP_ERR_INVALID);
  TPT_STATUS(tp_ptd_entry_at(&p, 2, &e), TP_ERR_INVALID);
  TPT_CONTAINS(p.last_lookup.msg, "entry 2 of 2");
  /* any alignment of the bytes in memory: byte loads only (UBSan would see a misaligned load) */
  {
    unsigned char *odd = (unsigned char *)malloc(file.size + 3);
    tp_ptd q;
    memcpy(odd + 3, file.data, file.size);
    TPT_STATUS(tp_ptd_open(&q, odd + 3, file.size), TP_OK);
    TPT_STATUS(tp_ptd_find(&q, "w", &e), TP_OK);
    TPT_EQ_INT(e.sizes[1], 3);
    TPT_CHECK(e.data == odd + 3 + q.segment_base);
    free(odd);
  }
  /* a struct copy keeps working (the reader re-points itself) */
  {
    tp_ptd q = p;
    TPT_STATUS(tp_ptd_find(&q, "w", &e), TP_OK);
  }
  tp_membuf_free(&fb);
  tp_membuf_free(&file);
}

/* Duplicate keys in a file (tp_store never writes them): the first wins, scanned or indexed. */
static void test_duplicate_keys_and_index(void) {
  ft_spec f = good_spec();
  tp_membuf fb, file;
  tp_ptd p;
  tp_ptd_entry e;
  uint32_t slots[8];
  f.nd[1].key = "w";
  build_ft(&f, &fb);
  wrap_ptd(&fb, g_w, 37, &file);
  TPT_STATUS(tp_ptd_open(&p, file.data, file.size), TP_OK);
  TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_OK);
  TPT_EQ_INT(e.segment_index, 0);
  TPT_EQ_U64(tp_ptd_index_slots(&p), 4);
  TPT_STATUS(tp_ptd_index(&p, NULL, 4), TP_ERR_INVALID);
  TPT_STATUS(tp_ptd_index(&p, slots, 8), TP_OK);
  TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_OK);
  TPT_EQ_INT(e.segment_index, 0);
  TPT_STATUS(tp_ptd_find(&p, "raw", &e), TP_ERR_INVALID);
  TPT_CONTAINS(p.last_lookup.msg, "\"raw\" is not in the .ptd");
  /* a failed index says why, not the miss before it */
  TPT_STATUS(tp_ptd_index(&p, slots, 3), TP_ERR_INVALID);
  TPT_EQ_STR(tp_ptd_lookup_error(&p), "the index needs 4 slots, 3 given");
  /* a failed open: no index, its error */
  TPT_STATUS(tp_ptd_open(&p, file.data, 10), TP_ERR_FORMAT);
  TPT_EQ_U64(tp_ptd_index_slots(&p), 0);
  TPT_STATUS(tp_ptd_index(&p, slots, 8), TP_ERR_FORMAT);
  /* no entries: nothing needed, lookups miss */
  f.nsegs = 0;
  f.nnd = 0;
  tp_membuf_free(&fb);
  tp_membuf_free(&file);
  build_ft(&f, &fb);
  wrap_ptd(&fb, g_w, 0, &file);
  TPT_STATUS(tp_ptd_open(&p, file.data, file.size), TP_OK);
  TPT_EQ_U64(tp_ptd_index_slots(&p), 0);
  TPT_STATUS(tp_ptd_index(&p, NULL, 0), TP_OK);
  TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_ERR_INVALID);
  tp_membuf_free(&fb);
  tp_membuf_free(&file);
}

static void test_entry_checks(void) {
  ft_spec f;
  f = good_spec(); f.nd[1].seg = 5;
  expect_ft(&f, 37, TP_ERR_FORMAT, "segment_index 5, but there are 2 segments");
  f = good_spec(); f.seg_size[1] = 6;
  expect_ft(&f, 37, TP_ERR_FORMAT, "offset 32 + size 6 exceeds the segment data size 37");
  f = good_spec(); f.seg_off[1] = UINT64_MAX - 2;
  expect_ft(&f, 37, TP_ERR_FORMAT, "exceeds the segment data size");
  f = good_spec(); f.nd[0].order[1] = 1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "dim_order is not a permutation of 0..1 (entry 1 is 1)");
  f = good_spec(); f.nd[0].order[1] = 2;
  expect_ft(&f, 37, TP_ERR_FORMAT, "not a permutation");
  f = good_spec(); f.nd[0].norder = 1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "2 sizes and 1 dim_order entries");
  f = good_spec(); f.nd[0].sizes[1] = 4;
  expect_ft(&f, 37, TP_ERR_FORMAT, "layout needs 32 bytes, segment 0 has 24");
  f = good_spec(); f.nd[0].sizes[0] = 0x40000000; f.nd[0].sizes[1] = 0x40000000;
  expect_ft(&f, 37, TP_ERR_FORMAT, "layout needs");
  f = good_spec(); f.nd[0].stype = 9;
  expect_ft(&f, 37, TP_ERR_FORMAT, "scalar type 9 is not one tensorpack knows");
  f = good_spec(); f.nd[0].stype = -3;
  expect_ft(&f, 37, TP_ERR_FORMAT, "scalar type -3");
  f = good_spec(); f.nd[0].sizes[0] = -2; f.nd[0].sizes[1] = -3;
  expect_ft(&f, 37, TP_ERR_FORMAT, "size -2 at dim 0");
  f = good_spec(); f.version = 1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "version 1, expected 0");
  f = good_spec(); f.nsegs = -1; f.nd[0].seg = 0; f.nnd = 0;
  expect_ft(&f, 37, TP_ERR_FORMAT, "without segments");
  f = good_spec(); f.nnd = -1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "without named_data");
  f = good_spec(); f.nd[1].key = NULL;
  expect_ft(&f, 37, TP_ERR_FORMAT, "named_data[1]: no key");
  f = good_spec(); f.nd[0].nsizes = -1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "layout without sizes");
  f = good_spec(); f.nd[0].norder = -1;
  expect_ft(&f, 37, TP_ERR_FORMAT, "layout without dim_order");
  {
    int d;
    f = good_spec();
    f.nd[0].nsizes = f.nd[0].norder = TP_MAX_DIMS + 1;
    for (d = 0; d <= TP_MAX_DIMS; d++) {
      f.nd[0].sizes[d] = 1;
      f.nd[0].order[d] = (uint8_t)d;
    }
    expect_ft(&f, 37, TP_ERR_FORMAT, "(at most 16, equal)");
  }
  /* accepted corner cases: a 0-d layout, an empty vectors-only file */
  f = good_spec(); f.nd[0].nsizes = f.nd[0].norder = 0; f.seg_size[0] = 4;
  expect_ft(&f, 37, TP_OK, NULL);
  f = good_spec(); f.nsegs = 0; f.nnd = 0;
  expect_ft(&f, 0, TP_OK, NULL);
}

static void test_header_checks(void) {
  ft_spec f = good_spec();
  tp_membuf fb, file;
  tp_ptd p;
  char msg[TP_ERROR_MAX];
  unsigned char *c;
  build_ft(&f, &fb);
  wrap_ptd(&fb, g_w, 37, &file);
  c = (unsigned char *)malloc(file.size);

#define MUTATE(stmt, want, needle)                                                       \
  do {                                                                                    \
    memcpy(c, file.data, file.size);                                                      \
    stmt;                                                                                 \
    TPT_STATUS(open_copy(c, file.size, &p, msg, sizeof msg), want);                       \
    TPT_CONTAINS(msg, needle);                                                            \
  } while (0)

  MUTATE(c[7] = '2', TP_ERR_FORMAT, "file identifier is not FT01");
  MUTATE(c[8] = 'X', TP_ERR_FORMAT, "no FH01 header at byte 8");
  MUTATE(tp__put_le32(c + 12, 39), TP_ERR_FORMAT, "FH01 header length 39 < 40");
  MUTATE(tp__put_le64(c + 24, file.size), TP_ERR_FORMAT, "flatbuffer offset 48 + size");
  MUTATE(tp__put_le64(c + 16, UINT64_MAX), TP_ERR_FORMAT, "exceeds the file's");
  MUTATE(tp__put_le64(c + 40, 38), TP_ERR_FORMAT, "+ data size 38 exceeds");
  MUTATE(tp__put_le64(c + 40, UINT64_MAX), TP_ERR_FORMAT, "exceeds the file's");
  MUTATE(tp__put_le64(c + 32, 64), TP_ERR_FORMAT, "segment base 64 lies inside the flatbuffer");
  MUTATE(tp__put_le32(c, 0x7FFFFFF0u), TP_ERR_FORMAT, "FlatTensor flatbuffer");
  MUTATE(tp__put_le32(c, 2), TP_ERR_FORMAT, "FlatTensor flatbuffer");
  /* a longer header is fine (upstream ignores fields it does not know) */
  memcpy(c, file.data, file.size);
  tp__put_le32(c + 12, 48);
  TPT_STATUS(open_copy(c, file.size, &p, msg, sizeof msg), TP_OK);

  TPT_STATUS(open_copy(file.data, 63, &p, msg, sizeof msg), TP_ERR_FORMAT);
  TPT_CONTAINS(msg, "63 bytes: shorter than the 64-byte head");
  TPT_STATUS(tp_ptd_open(&p, NULL, 0), TP_ERR_FORMAT);
  TPT_STATUS(tp_ptd_open(&p, NULL, 100), TP_ERR_INVALID);
  /* sticky: a failed open refuses lookups */
  {
    tp_ptd_entry e;
    TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_ERR_INVALID);
    TPT_STATUS(tp_ptd_entry_at(&p, 0, &e), TP_ERR_INVALID);
  }
#undef MUTATE
  free(c);
  tp_membuf_free(&fb);
  tp_membuf_free(&file);
}

/* Files written by tp_store for the robustness passes. */
static void store_file(int which, tp_membuf *out) {
  static float x[2 * 3 * 5 * 6];
  tp_store *s;
  tp_storage st;
  tp_tensor t, y;
  int64_t sizes[4] = {2, 3, 5, 6}, strides[4] = {90, 1, 18, 3};
  tp_sink sink;
  size_t i;
  for (i = 0; i < sizeof x / sizeof x[0]; i++) x[i] = (float)i;
  st.data = x;
  st.nbytes = sizeof x;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 4, sizes, strides, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 2, 1, -1, 1, &y, NULL), TP_OK);
  TPT_STATUS(tp_slice(&y, 3, 1, -1, 1, &y, NULL), TP_OK);
  if (which == 0) {
    TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  } else if (which == 1) {
    TPT_STATUS(tp_store_add(s, "cl", &y, TP_ORDER_ROW_MAJOR, 64, NULL), TP_OK);
    TPT_STATUS(tp_store_add(s, "same", &y, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
    TPT_STATUS(tp_store_add_bytes(s, "raw", "hello", 5, 1, 1, NULL), TP_OK);
    TPT_STATUS(tp_transpose(&t, 0, 3, &y, NULL), TP_OK);
    TPT_STATUS(tp_store_add(s, NULL, &y, TP_ORDER_PRESERVE, 0, NULL), TP_OK);
  } else {
    tp_tensor z;
    int64_t zs[3] = {0, 2, 2};
    TPT_STATUS(tp_view(st, TP_I32, 3, zs, NULL, 0, &z, NULL), TP_OK);
    TPT_STATUS(tp_store_add(s, "", &z, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  }
  memset(out, 0, sizeof *out);
  sink = tp_sink_membuf(out);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  tp_store_destroy(s);
}

static void test_truncation_every_byte(void) {
  int which;
  for (which = 0; which < 3; which++) {
    tp_membuf m;
    tp_ptd p;
    size_t n, bad = 0;
    store_file(which, &m);
    TPT_STATUS(open_copy(m.data, m.size, &p, NULL, 0), TP_OK);
    for (n = 0; n < m.size; n++) {
      tp_status st = open_copy(m.data, n, &p, NULL, 0);
      if (st != TP_ERR_FORMAT) bad++;
    }
    TPT_EQ_U64(bad, 0);   /* the file ends at base + data size: any cut is detected */
    tp_membuf_free(&m);
  }
}

static void test_corruption_every_byte(void) {
  static const unsigned char flips[] = {0x01, 0x02, 0x10, 0x80, 0xFF};
  int which;
  for (which = 0; which < 3; which++) {
    tp_membuf m;
    tp_ptd p;
    unsigned char *c;
    size_t i, k, ok = 0, rejected = 0, other = 0;
    store_file(which, &m);
    c = (unsigned char *)malloc(m.size);
    for (i = 0; i < m.size; i++) {
      for (k = 0; k < sizeof flips; k++) {
        tp_status st;
        memcpy(c, m.data, m.size);
        c[i] ^= flips[k];
        st = open_copy(c, m.size, &p, NULL, 0);
        if (st == TP_OK) ok++;
        else if (st == TP_ERR_FORMAT) rejected++;
        else other++;
      }
    }
    TPT_EQ_U64(other, 0);
    TPT_CHECK(rejected > 0 && ok > 0);   /* padding and data bytes are free to change */
    printf("  file %d (%lu bytes): %lu corruptions read, %lu rejected\n", which,
           (unsigned long)m.size, (unsigned long)ok, (unsigned long)rejected);
    free(c);
    tp_membuf_free(&m);
  }
}

/* Random multi-byte damage inside the flatbuffer region. */
static void test_random_damage(void) {
  tp_membuf m;
  unsigned char *c;
  int round;
  size_t other = 0;
  store_file(1, &m);
  c = (unsigned char *)malloc(m.size);
  for (round = 0; round < 3000; round++) {
    int j, hits = (int)tpt_range(1, 6);
    tp_ptd p;
    tp_status st;
    memcpy(c, m.data, m.size);
    for (j = 0; j < hits; j++) {
      size_t at = (size_t)tpt_range(0, (int64_t)(48 + tp__get_le64(m.data + 24)) - 1);
      c[at] = (unsigned char)tpt_rand();
    }
    st = open_copy(c, m.size, &p, NULL, 0);
    if (st != TP_OK && st != TP_ERR_FORMAT) other++;
  }
  TPT_EQ_U64(other, 0);
  free(c);
  tp_membuf_free(&m);
}

int main(void) {
  size_t i;
  for (i = 0; i < 64; i++) g_w[i] = (float)i;
  TPT_RUN(test_hand_built_good);
  TPT_RUN(test_duplicate_keys_and_index);
  TPT_RUN(test_entry_checks);
  TPT_RUN(test_header_checks);
  TPT_RUN(test_truncation_every_byte);
  TPT_RUN(test_corruption_every_byte);
  TPT_RUN(test_random_damage);
  return tpt_finish("ptd");
}
