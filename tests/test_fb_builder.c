/* FlatBuffers builder: golden bytes for small hand-checked buffers, defaults, vtable sharing,
   determinism, and every error path with its exact status. The byte layouts below were
   worked out by hand from the encoding rules (notes/flatbuffers-format.md); verify_fb checks
   the same builder against the official implementation. */
#include "tensorpack.h"
#include "tp_test.h"

static void expect_error(tp_fb_builder *b, tp_status want, const char *needle) {
  TPT_STATUS(tp_fb_status(b), want);
  TPT_CONTAINS(tp_fb_error(b), needle);
  TPT_CHECK(tp_fb_data(b, NULL) == NULL);
}

static tp_fb_builder *fresh(void) {
  tp_fb_builder *b = NULL;
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  return b;
}

static void expect_bytes(tp_fb_builder *b, const unsigned char *want, size_t n) {
  size_t size = 0;
  const unsigned char *d = tp_fb_data(b, &size);
  TPT_STATUS(tp_fb_status(b), TP_OK);
  TPT_CHECK(d != NULL);
  TPT_EQ_U64(size, n);
  if (d && size == n) TPT_MEMEQ(d, want, n);
  TPT_EQ_U64(tp_fb_size(b), n);
}

static void test_one_u8(void) {
  static const unsigned char want[24] = {
      0x10, 0, 0, 0, 'T', 'E', 'S', 'T', /* root at 16, identifier */
      0, 0,                               /* padding */
      6, 0, 8, 0, 7, 0,                   /* vtable: 6 bytes, table 8 bytes, id 0 at +7 */
      6, 0, 0, 0,                         /* table: vtable is 6 bytes before */
      0, 0, 0, 7};                        /* padding, the u8 */
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 7, 0);
  t = tp_fb_end_table(b);
  TPT_EQ_U64(t, 8);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

/* u8, u64, u8 by id, added as flatc's generated code adds them (largest first, then by
   descending id): the u64 at the end of the table, 8-aligned from the buffer start. */
static void test_u64_between_u8s(void) {
  static const unsigned char want[40] = {
      0x18, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 0, 0, 0, 0, /* 6 bytes pad: size % 8 == 0 */
      10, 0, 16, 0, 6, 0, 8, 0, 7, 0,                      /* vtable: ids 0, 1, 2 */
      10, 0, 0, 0,                                         /* table at 24 */
      0, 0, 1, 2,                                          /* pad, id 0, id 2 */
      8, 7, 6, 5, 4, 3, 2, 1};                             /* id 1 at 32 */
  /* Added in id order instead: fields are written as added (first = highest address), each
     aligned to its size, so this layout pays 7 + 3 bytes of padding. */
  static const unsigned char want_id_order[48] = {
      0x18, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 0, 0, 0, 0,
      10, 0, 24, 0, 23, 0, 8, 0, 7, 0,                     /* id 0 at +23, 1 at +8, 2 at +7 */
      10, 0, 0, 0,                                         /* table at 24 */
      0, 0, 0, 2,                                          /* pad, id 2 at 31 */
      8, 7, 6, 5, 4, 3, 2, 1,                              /* id 1 at 32 */
      0, 0, 0, 0, 0, 0, 0, 1};                             /* pad, id 0 at 47 */
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  tp_fb_start_table(b);
  tp_fb_add_u64(b, 1, 0x0102030405060708ull, 0);
  tp_fb_add_u8(b, 2, 2, 0);
  tp_fb_add_u8(b, 0, 1, 0);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 1, 0);
  tp_fb_add_u64(b, 1, 0x0102030405060708ull, 0);
  tp_fb_add_u8(b, 2, 2, 0);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want_id_order, sizeof want_id_order);
  tp_fb_builder_destroy(b);
}

/* A lone u64: the table starts at 4 mod 8, so the u64 sits at table + 4. */
static void test_u64_at_table_plus_4(void) {
  static const unsigned char want[32] = {
      0x14, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 0, 0, 0, 0, /* root at 20 */
      6, 0, 12, 0, 4, 0,                                   /* vtable: id 0 at +4 */
      6, 0, 0, 0,                                          /* table at 20 */
      0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01};     /* u64 at 24 */
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  tp_fb_start_table(b);
  tp_fb_add_u64(b, 0, 0x0123456789ABCDEFull, 0);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

static void test_string_and_u64(void) {
  static const unsigned char want[40] = {
      0x10, 0, 0, 0, 'T', 'E', 'S', 'T',
      8, 0, 16, 0, 4, 0, 8, 0,                 /* vtable: id 0 (string) +4, id 1 (u64) +8 */
      8, 0, 0, 0,                              /* table at 16 */
      12, 0, 0, 0,                             /* string at 20 + 12 = 32 */
      0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
      2, 0, 0, 0, 'a', 'b', 0, 0};             /* length 2, bytes, NUL, pad */
  tp_fb_builder *b = fresh();
  tp_fb_ref s, t;
  s = tp_fb_create_string(b, "ab", 2);
  TPT_EQ_U64(s, 8);
  tp_fb_start_table(b);
  tp_fb_add_u64(b, 1, 0x1122334455667788ull, 0);
  tp_fb_add_ref(b, 0, s);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

static void test_empty_vector(void) {
  /* An empty vector is only its count; like the official builder, no element alignment. */
  static const unsigned char want[28] = {
      0x10, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0,
      6, 0, 8, 0, 4, 0,
      6, 0, 0, 0,   /* table at 16 */
      4, 0, 0, 0,   /* vector at 24 */
      0, 0, 0, 0};  /* count 0 */
  tp_fb_builder *b = fresh();
  tp_fb_ref v, t;
  v = tp_fb_create_vector(b, NULL, 0, 8);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, v);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

static void test_u64_vector(void) {
  static const unsigned char want[48] = {
      0x14, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 0, 0, 0, 0,
      6, 0, 8, 0, 4, 0,
      6, 0, 0, 0,
      4, 0, 0, 0,
      2, 0, 0, 0,                /* count at 28 = 8 * 3 + 4 */
      1, 0, 0, 0, 0, 0, 0, 0,    /* elements 8-aligned */
      0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  int64_t e[2];
  tp_fb_builder *b = fresh();
  tp_fb_ref v, t;
  e[0] = 1;
  e[1] = -2;
  v = tp_fb_create_vector(b, e, 2, 8);
  TPT_EQ_U64(v, 20);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, v);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

static void test_union(void) {
  static const unsigned char want[44] = {
      0x10, 0, 0, 0, 'T', 'E', 'S', 'T',
      8, 0, 14, 0, 7, 0, 8, 0,  /* vtable of the outer table: tag (id 0) +7, value (id 1) +8 */
      8, 0, 0, 0,               /* outer table at 16 */
      0, 0, 0, 3,               /* pad, tag 3 at 23 */
      12, 0, 0, 0,              /* value: table at 24 + 12 = 36 */
      0, 0,                     /* pad */
      6, 0, 8, 0, 7, 0,         /* vtable of the member table */
      6, 0, 0, 0,               /* member table at 36 */
      0, 0, 0, 5};              /* its u8 */
  tp_fb_builder *b = fresh();
  tp_fb_ref m, t;
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 5, 0);
  m = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 3, m);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

/* Two tables with the same layout share one vtable (the second points forward to it). */
static void test_vtable_shared(void) {
  static const unsigned char want[68] = {
      0x10, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0,
      6, 0, 8, 0, 4, 0,          /* root's vtable */
      6, 0, 0, 0,                /* root table at 16 */
      4, 0, 0, 0,                /* -> vector at 24 */
      2, 0, 0, 0,
      28, 0, 0, 0,               /* element 0 at 28 -> 56 */
      4, 0, 0, 0,                /* element 1 at 32 -> 36 */
      0xF4, 0xFF, 0xFF, 0xFF,    /* table at 36: soffset -12, vtable at 48 (shared) */
      3, 0, 0, 0, 4, 0, 0, 0,
      8, 0, 12, 0, 4, 0, 8, 0,   /* the one vtable */
      8, 0, 0, 0,                /* table at 56 */
      1, 0, 0, 0, 2, 0, 0, 0};
  tp_fb_builder *b = fresh();
  tp_fb_ref t[2], v, r;
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 1, 2, 0);
  tp_fb_add_u32(b, 0, 1, 0);
  t[0] = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 1, 4, 0);
  tp_fb_add_u32(b, 0, 3, 0);
  t[1] = tp_fb_end_table(b);
  v = tp_fb_create_vector_refs(b, t, 2);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, v);
  r = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, r, "TEST"), TP_OK);
  expect_bytes(b, want, sizeof want);
  tp_fb_builder_destroy(b);
}

static void test_no_identifier(void) {
  static const unsigned char want[12] = {
      8, 0, 0, 0,      /* root at 8 */
      4, 0, 4, 0,      /* vtable with no fields */
      4, 0, 0, 0};     /* empty table: its vtable is 4 bytes before */
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  size_t n = 0;
  const unsigned char *d;
  tp_fb_start_table(b);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, NULL), TP_OK);
  d = tp_fb_data(b, &n);
  /* 4 (root) + 4 (vtable) + 4 (table) = 12 bytes, a multiple of minalign 4: no padding. */
  TPT_EQ_U64(n, 12);
  if (d && n == 12) TPT_MEMEQ(d, want, 12);
  tp_fb_builder_destroy(b);
}

static void test_defaults(void) {
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  size_t n = 0;
  const unsigned char *d;
  /* every scalar equal to its default: nothing written, 4-byte vtable */
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 0, 0);
  tp_fb_add_i8(b, 1, -1, -1);
  tp_fb_add_u16(b, 2, 7, 7);
  tp_fb_add_i16(b, 3, 0, 0);
  tp_fb_add_u32(b, 4, 255, 255);
  tp_fb_add_i32(b, 5, -5, -5);
  tp_fb_add_u64(b, 6, 0, 0);
  tp_fb_add_i64(b, 7, 0, 0);
  tp_fb_add_f32(b, 8, 1.5f, 1.5f);
  tp_fb_add_f64(b, 9, 0.0, 0.0);
  tp_fb_add_union(b, 11, 0, 0);
  tp_fb_add_ref(b, 12, 0);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, NULL), TP_OK);
  d = tp_fb_data(b, &n);
  TPT_EQ_U64(n, 12);
  if (d && n == 12) {
    TPT_EQ_INT(tp__get_le16(d + 4), 4); /* vtable size */
    TPT_EQ_INT(tp__get_le16(d + 6), 4); /* table size */
  }
  /* a value of 0 against a default of 255 is written; -0.0 against 0.0 too (bits differ) */
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 0, 255);
  tp_fb_add_f32(b, 1, -0.0f, 0.0f);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, NULL), TP_OK);
  {
    tp_fb_reader r;
    tp_fb_table root;
    memset(&r, 0, sizeof r);
    d = tp_fb_data(b, &n);
    TPT_STATUS(tp_fb_reader_init(&r, d, n, NULL, &root), TP_OK);
    TPT_CHECK(tp_fb_present(&root, 0));
    TPT_CHECK(tp_fb_present(&root, 1));
    TPT_EQ_INT(tp_fb_u8(&root, 0, 255), 0);
    TPT_EQ_U64(tp_fb_table_field(&root, 99).pos, 0); /* absent */
    {
      float f = tp_fb_f32(&root, 1, 1.0f);
      uint32_t bits;
      memcpy(&bits, &f, 4);
      TPT_EQ_U64(bits, 0x80000000u);
    }
    TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  }
  /* forced defaults are written */
  tp_fb_builder_reset(b);
  tp_fb_force_defaults(b, 1);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 0, 0);
  tp_fb_add_u8(b, 1, 255, 255);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, NULL), TP_OK);
  {
    tp_fb_reader r;
    tp_fb_table root;
    memset(&r, 0, sizeof r);
    d = tp_fb_data(b, &n);
    TPT_STATUS(tp_fb_reader_init(&r, d, n, NULL, &root), TP_OK);
    TPT_CHECK(tp_fb_present(&root, 0));
    TPT_CHECK(tp_fb_present(&root, 1));
    TPT_EQ_INT(tp_fb_u8(&root, 1, 0), 255);
  }
  tp_fb_builder_destroy(b);
}

/* Every scalar width round-trips through the reader, at the alignment the verifier wants. */
static void test_all_widths_roundtrip(void) {
  tp_fb_builder *b = fresh();
  tp_fb_ref t, s, v8, v16, v32, v64, vs, vt, sub;
  tp_fb_ref strs[3], subs[2];
  uint8_t e8[3] = {1, 2, 255};
  uint16_t e16[3] = {1, 0xFFFF, 3};
  uint32_t e32[2] = {0xDEADBEEFu, 7};
  uint64_t e64[3] = {1, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull};
  size_t n, len, i;
  const unsigned char *d;
  tp_fb_reader r;
  tp_fb_table root, st;
  tp_fb_vector vec;
  uint8_t tag;
  s = tp_fb_create_string(b, "hello", 5);
  v8 = tp_fb_create_vector(b, e8, 3, 1);
  v16 = tp_fb_create_vector(b, e16, 3, 2);
  v32 = tp_fb_create_vector(b, e32, 2, 4);
  v64 = tp_fb_create_vector(b, e64, 3, 8);
  strs[0] = tp_fb_create_string(b, "", 0);
  strs[1] = tp_fb_create_string(b, "x", 1);
  strs[2] = tp_fb_create_string(b, "abcd", 4);
  vs = tp_fb_create_vector_refs(b, strs, 3);
  for (i = 0; i < 2; i++) {
    tp_fb_start_table(b);
    tp_fb_add_i32(b, 0, (int32_t)i - 1, 0);
    subs[i] = tp_fb_end_table(b);
  }
  vt = tp_fb_create_vector_refs(b, subs, 2);
  tp_fb_start_table(b);
  tp_fb_add_f64(b, 0, 2.5, 0);
  sub = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 200, 0);
  tp_fb_add_i8(b, 1, -100, 0);
  tp_fb_add_u16(b, 2, 60000, 0);
  tp_fb_add_i16(b, 3, -30000, 0);
  tp_fb_add_u32(b, 4, 4000000000u, 0);
  tp_fb_add_i32(b, 5, -2000000000, 0);
  tp_fb_add_u64(b, 6, 0xFEDCBA9876543210ull, 0);
  tp_fb_add_i64(b, 7, INT64_MIN, 0);
  tp_fb_add_f32(b, 8, 3.25f, 0);
  tp_fb_add_f64(b, 9, -1e300, 0);
  tp_fb_add_ref(b, 10, s);
  tp_fb_add_ref(b, 11, v8);
  tp_fb_add_ref(b, 12, v16);
  tp_fb_add_ref(b, 13, v32);
  tp_fb_add_ref(b, 14, v64);
  tp_fb_add_ref(b, 15, vs);
  tp_fb_add_ref(b, 16, vt);
  tp_fb_add_union(b, 18, 9, sub);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "ABCD"), TP_OK);
  d = tp_fb_data(b, &n);
  TPT_EQ_U64(n % 8, 0);
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, d, n, "ABCD", &root), TP_OK);
  TPT_EQ_INT(tp_fb_u8(&root, 0, 0), 200);
  TPT_EQ_INT(tp_fb_i8(&root, 1, 0), -100);
  TPT_EQ_INT(tp_fb_u16(&root, 2, 0), 60000);
  TPT_EQ_INT(tp_fb_i16(&root, 3, 0), -30000);
  TPT_EQ_U64(tp_fb_u32(&root, 4, 0), 4000000000u);
  TPT_EQ_INT(tp_fb_i32(&root, 5, 0), -2000000000);
  TPT_EQ_U64(tp_fb_u64(&root, 6, 0), 0xFEDCBA9876543210ull);
  TPT_CHECK(tp_fb_i64(&root, 7, 0) == INT64_MIN);
  TPT_CHECK(tp_fb_f32(&root, 8, 0) == 3.25f);
  TPT_CHECK(tp_fb_f64(&root, 9, 0) == -1e300);
  /* alignment relative to the buffer start */
  TPT_EQ_U64((root.pos + tp__get_le16(d + root.vtable + 4 + 2 * 6)) % 8, 0);
  TPT_EQ_U64((root.pos + tp__get_le16(d + root.vtable + 4 + 2 * 9)) % 8, 0);
  TPT_EQ_U64((root.pos + tp__get_le16(d + root.vtable + 4 + 2 * 2)) % 2, 0);
  TPT_EQ_STR(tp_fb_string(&root, 10, &len), "hello");
  TPT_EQ_U64(len, 5);
  vec = tp_fb_vector_field(&root, 11, 1);
  TPT_EQ_U64(vec.count, 3);
  TPT_EQ_U64(tp_fb_vector_scalar(&vec, 2), 255);
  vec = tp_fb_vector_field(&root, 12, 2);
  TPT_EQ_U64(vec.count, 3);
  TPT_EQ_U64(tp_fb_vector_scalar(&vec, 1), 0xFFFF);
  vec = tp_fb_vector_field(&root, 13, 4);
  TPT_EQ_U64(tp_fb_vector_scalar(&vec, 0), 0xDEADBEEFu);
  vec = tp_fb_vector_field(&root, 14, 8);
  TPT_EQ_U64(vec.count, 3);
  TPT_EQ_U64(vec.pos % 8, 0);
  TPT_EQ_U64(tp_fb_vector_scalar(&vec, 1), 0xFFFFFFFFFFFFFFFFull);
  TPT_EQ_U64(tp_fb_vector_scalar(&vec, 2), 0x8000000000000000ull);
  vec = tp_fb_vector_field(&root, 15, 4);
  TPT_EQ_U64(vec.count, 3);
  TPT_EQ_STR(tp_fb_vector_string(&vec, 0, &len), "");
  TPT_EQ_U64(len, 0);
  TPT_EQ_STR(tp_fb_vector_string(&vec, 2, &len), "abcd");
  vec = tp_fb_vector_field(&root, 16, 4);
  TPT_EQ_U64(vec.count, 2);
  st = tp_fb_vector_table(&vec, 0);
  TPT_EQ_INT(tp_fb_i32(&st, 0, 99), -1);
  st = tp_fb_vector_table(&vec, 1);
  TPT_EQ_INT(tp_fb_i32(&st, 0, 99), 99); /* omitted (was the default 0): reads as the default given */
  TPT_CHECK(!tp_fb_present(&st, 0));
  st = tp_fb_union_field(&root, 18, &tag);
  TPT_EQ_INT(tag, 9);
  TPT_CHECK(tp_fb_f64(&st, 0, 0) == 2.5);
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  tp_fb_builder_destroy(b);
}

static tp_fb_ref build_sample(tp_fb_builder *b, int salt) {
  tp_fb_ref s, v, t;
  int32_t e[4];
  int i;
  for (i = 0; i < 4; i++) e[i] = i * salt;
  s = tp_fb_create_string(b, "sample", 6);
  v = tp_fb_create_vector(b, e, 4, 4);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, s);
  tp_fb_add_ref(b, 1, v);
  tp_fb_add_i64(b, 2, salt, 0);
  t = tp_fb_end_table(b);
  tp_fb_finish(b, t, "SMPL");
  return t;
}

/* Ids past 63 take the slow path (growing per-id arrays, stamped duplicate check). */
static void test_large_ids(void) {
  tp_fb_builder *b = fresh();
  tp_fb_ref t;
  size_t n;
  const unsigned char *d;
  tp_fb_reader r;
  tp_fb_table root;
  int k;
  for (k = 0; k < 2; k++) { /* the same ids again in a second table are fine */
    tp_fb_start_table(b);
    tp_fb_add_u32(b, 1000, 77, 0);
    tp_fb_add_u16(b, 100, 5, 0);
    tp_fb_add_u8(b, 64, 9, 0);
    tp_fb_add_u8(b, 3, 1, 0);
    t = tp_fb_end_table(b);
  }
  TPT_STATUS(tp_fb_finish(b, t, "BIGI"), TP_OK);
  d = tp_fb_data(b, &n);
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, d, n, "BIGI", &root), TP_OK);
  TPT_EQ_INT(root.vtable_size, 4 + 2 * 1001);
  TPT_EQ_U64(tp_fb_u32(&root, 1000, 0), 77);
  TPT_EQ_INT(tp_fb_u16(&root, 100, 0), 5);
  TPT_EQ_INT(tp_fb_u8(&root, 64, 0), 9);
  TPT_EQ_INT(tp_fb_u8(&root, 3, 0), 1);
  TPT_CHECK(!tp_fb_present(&root, 999));
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 1000, 1, 0);
  tp_fb_add_u32(b, 999, 0, 0); /* a default: not written, still counted */
  tp_fb_add_u64(b, 999, 2, 0);
  expect_error(b, TP_ERR_INVALID, "field id 999 added twice in one table");
  tp_fb_builder_destroy(b);
}

static void test_deterministic(void) {
  tp_fb_builder *a = fresh(), *b = fresh();
  size_t na, nb;
  const unsigned char *da, *db;
  build_sample(a, 3);
  build_sample(b, 3);
  da = tp_fb_data(a, &na);
  db = tp_fb_data(b, &nb);
  TPT_EQ_U64(na, nb);
  if (da && db && na == nb) TPT_MEMEQ(da, db, na);
  /* reset and rebuild gives the same bytes again, with the memory kept */
  tp_fb_builder_reset(a);
  TPT_CHECK(tp_fb_data(a, &na) == NULL);
  TPT_EQ_U64(na, 0);
  build_sample(a, 3);
  da = tp_fb_data(a, &na);
  TPT_EQ_U64(na, nb);
  if (da && db && na == nb) TPT_MEMEQ(da, db, na);
  tp_fb_builder_destroy(a);
  tp_fb_builder_destroy(b);
}

/* A buffer big enough to make the builder grow several times keeps its contents. */
static void test_growth(void) {
  tp_fb_builder *b = fresh();
  tp_fb_ref refs[3000], v, t;
  size_t i, n;
  char name[32];
  const unsigned char *d;
  tp_fb_reader r;
  tp_fb_table root, e;
  tp_fb_vector vec;
  for (i = 0; i < 3000; i++) {
    tp_fb_ref s;
    int len = snprintf(name, sizeof name, "entry-%u", (unsigned)i);
    s = tp_fb_create_string(b, name, (size_t)len);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, s);
    tp_fb_add_u64(b, 1, (uint64_t)i * 0x100000001ull, 0);
    tp_fb_add_u8(b, 2, (uint8_t)i, 0);
    refs[i] = tp_fb_end_table(b);
  }
  v = tp_fb_create_vector_refs(b, refs, 3000);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, v);
  t = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, t, "GROW"), TP_OK);
  d = tp_fb_data(b, &n);
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, d, n, "GROW", &root), TP_OK);
  vec = tp_fb_vector_field(&root, 0, 4);
  TPT_EQ_U64(vec.count, 3000);
  for (i = 0; i < 3000; i += 7) {
    int len = snprintf(name, sizeof name, "entry-%u", (unsigned)i);
    e = tp_fb_vector_table(&vec, i);
    TPT_EQ_STR(tp_fb_string(&e, 0, NULL), name);
    TPT_EQ_U64(tp_fb_u64(&e, 1, 0), (uint64_t)i * 0x100000001ull);
    TPT_EQ_INT(tp_fb_u8(&e, 2, 0), (uint8_t)i);
    (void)len;
  }
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  /* 3000 tables with 3 fields share two vtables: those with a u8 of 0 omit the field */
  TPT_CHECK(n < 3000 * 56);
  tp_fb_builder_destroy(b);
}

/* ---- errors ---------------------------------------------------------------------------- */


static void test_err_nested_table(void) {
  tp_fb_builder *b = fresh();
  tp_fb_start_table(b);
  tp_fb_start_table(b);
  expect_error(b, TP_ERR_INVALID, "tables do not nest");
  /* later calls are no-ops returning 0; finish reports the first failure */
  TPT_EQ_U64(tp_fb_end_table(b), 0);
  TPT_EQ_U64(tp_fb_create_string(b, "x", 1), 0);
  TPT_STATUS(tp_fb_finish(b, 4, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_fb_error(b), "tables do not nest");
  /* reset clears the error */
  tp_fb_builder_reset(b);
  TPT_STATUS(tp_fb_status(b), TP_OK);
  TPT_EQ_STR(tp_fb_error(b), "");
  tp_fb_builder_destroy(b);
}

static void test_err_create_inside_table(void) {
  tp_fb_builder *b = fresh();
  uint32_t e = 1;
  tp_fb_ref r;
  tp_fb_start_table(b);
  TPT_EQ_U64(tp_fb_create_string(b, "x", 1), 0);
  expect_error(b, TP_ERR_INVALID,
               "tp_fb_create_string inside an open table (build children before tp_fb_start_table)");
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  TPT_EQ_U64(tp_fb_create_vector(b, &e, 1, 4), 0);
  expect_error(b, TP_ERR_INVALID, "tp_fb_create_vector inside an open table");
  tp_fb_builder_reset(b);
  r = tp_fb_create_string(b, "x", 1);
  tp_fb_start_table(b);
  TPT_EQ_U64(tp_fb_create_vector_refs(b, &r, 1), 0);
  expect_error(b, TP_ERR_INVALID, "tp_fb_create_vector_refs inside an open table");
  tp_fb_builder_destroy(b);
}

static void test_err_end_without_start(void) {
  tp_fb_builder *b = fresh();
  TPT_EQ_U64(tp_fb_end_table(b), 0);
  expect_error(b, TP_ERR_INVALID, "tp_fb_end_table without tp_fb_start_table");
  tp_fb_builder_destroy(b);
}

static void test_err_duplicate_id(void) {
  tp_fb_builder *b = fresh();
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 3, 1, 0);
  tp_fb_add_u32(b, 3, 2, 0);
  expect_error(b, TP_ERR_INVALID, "field id 3 added twice");
  tp_fb_builder_reset(b);
  /* also when the first one was a default (not written) and the types differ */
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 5, 0, 0);
  tp_fb_add_u64(b, 5, 1, 0);
  expect_error(b, TP_ERR_INVALID, "field id 5 added twice");
  tp_fb_builder_reset(b);
  /* a union takes its id and id - 1 */
  tp_fb_start_table(b);
  tp_fb_add_u8(b, 0, 1, 0);
  tp_fb_add_union(b, 1, 0, 0);
  expect_error(b, TP_ERR_INVALID, "field id 0 added twice");
  tp_fb_builder_reset(b);
  /* the same id in two different tables is fine */
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 3, 1, 0);
  tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 3, 1, 0);
  TPT_CHECK(tp_fb_end_table(b) != 0);
  TPT_STATUS(tp_fb_status(b), TP_OK);
  tp_fb_builder_destroy(b);
}

static void test_err_misuse(void) {
  tp_fb_builder *b = fresh();
  tp_fb_ref s;
  tp_fb_add_u32(b, 0, 1, 0);
  expect_error(b, TP_ERR_INVALID, "field id 0 added outside a table");
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 40000, 1, 0);
  expect_error(b, TP_ERR_INVALID, "field id 40000 is over the largest id 32764");
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, 12);
  expect_error(b, TP_ERR_INVALID, "ref 12 does not name an object (0 bytes built so far)");
  tp_fb_builder_reset(b);
  s = tp_fb_create_string(b, "a", 1);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 0, s);
  expect_error(b, TP_ERR_INVALID, "union at field id 1: type 0 with a value");
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 2, 0);
  expect_error(b, TP_ERR_INVALID, "union at field id 1: type 2 with no value");
  tp_fb_builder_reset(b);
  s = tp_fb_create_string(b, "a", 1);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 0, 1, s);
  expect_error(b, TP_ERR_INVALID, "union at field id 0");
  tp_fb_builder_reset(b);
  tp_fb_start_table(b);
  TPT_STATUS(tp_fb_finish(b, 4, NULL), TP_ERR_INVALID);
  expect_error(b, TP_ERR_INVALID, "tp_fb_finish inside an open table");
  tp_fb_builder_reset(b);
  TPT_STATUS(tp_fb_finish(b, 0, NULL), TP_ERR_INVALID);
  expect_error(b, TP_ERR_INVALID, "tp_fb_finish: ref 0 does not name an object");
  tp_fb_builder_reset(b);
  s = tp_fb_create_string(b, "a", 1);
  TPT_STATUS(tp_fb_finish(b, s, "TOOLONG"), TP_ERR_INVALID);
  expect_error(b, TP_ERR_INVALID, "file identifier \"TOOLONG\" is not 4 characters long");
  tp_fb_builder_reset(b);
  s = tp_fb_create_string(b, "a", 1);
  TPT_EQ_U64(tp_fb_create_vector_refs(b, &s, 0), 12); /* empty vector of refs: just its count */
  {
    tp_fb_ref bad[2];
    bad[0] = s;
    bad[1] = 0;
    TPT_EQ_U64(tp_fb_create_vector_refs(b, bad, 2), 0);
    expect_error(b, TP_ERR_INVALID, "element 1: ref 0 does not name an object");
  }
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_vector(b, "abc", 1, 3), 0);
  expect_error(b, TP_ERR_INVALID, "element size 3 is not 1, 2, 4 or 8");
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_vector(b, NULL, 2, 4), 0);
  expect_error(b, TP_ERR_INVALID, "NULL elements, count 2");
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_string(b, NULL, 2), 0);
  expect_error(b, TP_ERR_INVALID, "NULL string of length 2");
  tp_fb_builder_reset(b);
  /* building after finish is refused until reset */
  s = tp_fb_create_string(b, "a", 1);
  TPT_STATUS(tp_fb_finish(b, s, NULL), TP_OK);
  TPT_EQ_U64(tp_fb_create_string(b, "b", 1), 0);
  expect_error(b, TP_ERR_INVALID, "tp_fb_create_string after tp_fb_finish");
  TPT_STATUS(tp_fb_finish(b, s, NULL), TP_ERR_INVALID);
  tp_fb_builder_destroy(b);
}

static void test_err_overflow(void) {
  tp_fb_builder *b = fresh();
  static const char big[200] = {0};
  tp_fb_ref s;
  /* sizes past 2 GiB are refused before anything is read */
  TPT_EQ_U64(tp_fb_create_vector(b, big, (size_t)1 << 28, 8), 0);
  expect_error(b, TP_ERR_OVERFLOW, "over the FlatBuffers limit");
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_vector(b, big, ((size_t)-1) / 4, 8), 0);
  expect_error(b, TP_ERR_OVERFLOW, "over the FlatBuffers limit");
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_vector_refs(b, (const tp_fb_ref *)(const void *)big, (size_t)1 << 30), 0);
  expect_error(b, TP_ERR_OVERFLOW, "offsets is over the FlatBuffers limit");
  tp_fb_builder_reset(b);
  TPT_EQ_U64(tp_fb_create_string(b, big, (size_t)0x80000000u), 0);
  expect_error(b, TP_ERR_OVERFLOW, "string of 2147483648 bytes");
  tp_fb_builder_reset(b);
  /* a lowered limit: the growth that crosses it fails, with the numbers */
  tp_fb_set_max_size(b, 64);
  s = tp_fb_create_string(b, big, 40); /* 4 + 40 + 1 + 3 = 48 bytes */
  TPT_EQ_U64(s, 48);
  TPT_EQ_U64(tp_fb_create_string(b, big, 20), 0);
  expect_error(b, TP_ERR_OVERFLOW, "buffer would grow from 48 by 28 bytes, over the FlatBuffers limit of 64");
  tp_fb_builder_reset(b);
  /* finish's padding, identifier and root offset count too */
  s = tp_fb_create_string(b, big, 53); /* 60 bytes, + 8 would be 68 */
  TPT_STATUS(tp_fb_finish(b, s, "ABCD"), TP_ERR_OVERFLOW);
  tp_fb_builder_reset(b);
  s = tp_fb_create_string(b, big, 48); /* 56 bytes, + 8 = 64: fits exactly */
  TPT_STATUS(tp_fb_finish(b, s, "ABCD"), TP_OK);
  TPT_EQ_U64(tp_fb_size(b), 64);
  tp_fb_builder_reset(b);
  /* a limit lowered below what is already built: the next byte fails */
  s = tp_fb_create_string(b, big, 40);
  TPT_EQ_U64(s, 48);
  tp_fb_set_max_size(b, 16);
  TPT_EQ_U64(tp_fb_create_string(b, "", 0), 0);
  expect_error(b, TP_ERR_OVERFLOW, "buffer would grow from 48 by 8 bytes, over the FlatBuffers limit of 16");
  tp_fb_builder_reset(b); /* keeps the limit of 16 for the fields' fast path too */
  tp_fb_start_table(b);
  tp_fb_add_u64(b, 0, 1, 0);
  tp_fb_add_u64(b, 1, 1, 0); /* 16 bytes: exactly the limit */
  TPT_STATUS(tp_fb_status(b), TP_OK);
  tp_fb_add_u64(b, 2, 1, 0);
  TPT_STATUS(tp_fb_status(b), TP_ERR_OVERFLOW);
  TPT_CONTAINS(tp_fb_error(b), "buffer would grow from 16 by 8 bytes, over the FlatBuffers limit of 16");
  tp_fb_builder_reset(b);
  /* a table whose inline part would pass 64 KiB */
  tp_fb_set_max_size(b, 0);
  {
    unsigned id;
    tp_fb_start_table(b);
    for (id = 0; id < 9000; id++) tp_fb_add_u64(b, (uint16_t)id, id + 1, 0);
    TPT_EQ_U64(tp_fb_end_table(b), 0);
    expect_error(b, TP_ERR_OVERFLOW, "table of 72004 inline bytes is over the 65535-byte limit");
  }
  tp_fb_builder_destroy(b);
}

static void test_err_create_null(void) {
  TPT_STATUS(tp_fb_builder_create(NULL), TP_ERR_INVALID);
}

int main(void) {
  (void)tpt_range; /* the harness's random helpers are unused here */
  TPT_RUN(test_one_u8);
  TPT_RUN(test_u64_between_u8s);
  TPT_RUN(test_u64_at_table_plus_4);
  TPT_RUN(test_string_and_u64);
  TPT_RUN(test_empty_vector);
  TPT_RUN(test_u64_vector);
  TPT_RUN(test_union);
  TPT_RUN(test_vtable_shared);
  TPT_RUN(test_no_identifier);
  TPT_RUN(test_defaults);
  TPT_RUN(test_all_widths_roundtrip);
  TPT_RUN(test_large_ids);
  TPT_RUN(test_deterministic);
  TPT_RUN(test_growth);
  TPT_RUN(test_err_nested_table);
  TPT_RUN(test_err_create_inside_table);
  TPT_RUN(test_err_end_without_start);
  TPT_RUN(test_err_duplicate_id);
  TPT_RUN(test_err_misuse);
  TPT_RUN(test_err_overflow);
  TPT_RUN(test_err_create_null);
  return tpt_finish("fb_builder");
}
