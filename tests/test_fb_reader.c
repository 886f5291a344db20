/* FlatBuffers reader: every rule with a hand-broken buffer and its exact status and message,
   limits (depth, table count), sticky errors, and a corruption sweep (every truncation, every
   byte changed several ways) over a buffer using every field kind, walked completely each
   time under ASan/UBSan: each result is either a clean read or TP_ERR_FORMAT. verify_fb runs
   the same sweep against the official verifier on XNNGraph/VkGraph/FlatTensor buffers. */
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

/* The golden buffers of test_fb_builder. */
static const unsigned char one_u8[24] = {0x10, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 6, 0, 8, 0,
                                         7, 0, 6, 0, 0, 0, 0, 0, 0, 7};
static const unsigned char str_u64[40] = {
    0x10, 0, 0, 0, 'T', 'E', 'S', 'T', 8, 0, 16, 0, 4, 0, 8, 0, 8, 0, 0, 0, 12, 0, 0, 0,
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 2, 0, 0, 0, 'a', 'b', 0, 0};
static const unsigned char u64_vec[48] = {
    0x14, 0, 0, 0, 'T', 'E', 'S', 'T', 0, 0, 0, 0, 0, 0, 6, 0, 8, 0, 4, 0, 6, 0, 0, 0,
    4, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
static const unsigned char uni[44] = {
    0x10, 0, 0, 0, 'T', 'E', 'S', 'T', 8, 0, 14, 0, 7, 0, 8, 0, 8, 0, 0, 0, 0, 0, 0, 3,
    12, 0, 0, 0, 0, 0, 6, 0, 8, 0, 7, 0, 6, 0, 0, 0, 0, 0, 0, 5};

static unsigned char work[64];

/* A copy of g with byte `at` set to v (at < 0: unchanged). */
static const unsigned char *poke(const unsigned char *g, size_t n, int at, unsigned char v) {
  memcpy(work, g, n);
  if (at >= 0) work[at] = v;
  return work;
}

static void poke32(int at, uint32_t v) { tp__put_le32(work + at, v); }

static tp_status open_buf(tp_fb_reader *r, const void *p, size_t n, tp_fb_table *root) {
  memset(r, 0, sizeof *r);
  return tp_fb_reader_init(r, p, n, "TEST", root);
}

static void test_reads_goldens(void) {
  tp_fb_reader r;
  tp_fb_table root, m;
  tp_fb_vector v;
  size_t len;
  uint8_t tag;
  TPT_STATUS(open_buf(&r, one_u8, sizeof one_u8, &root), TP_OK);
  TPT_EQ_INT(root.pos, 16);
  TPT_EQ_INT(root.vtable, 10);
  TPT_EQ_INT(root.vtable_size, 6);
  TPT_EQ_INT(tp_fb_u8(&root, 0, 0), 7);
  TPT_EQ_INT(tp_fb_u8(&root, 1, 9), 9); /* past the vtable: absent */
  TPT_CHECK(!tp_fb_present(&root, 1));
  TPT_EQ_INT(r.tables, 1);
  TPT_STATUS(open_buf(&r, str_u64, sizeof str_u64, &root), TP_OK);
  TPT_EQ_STR(tp_fb_string(&root, 0, &len), "ab");
  TPT_EQ_U64(len, 2);
  TPT_EQ_U64(tp_fb_u64(&root, 1, 0), 0x1122334455667788ull);
  TPT_EQ_INT(tp_fb_i64(&root, 1, 0), 0x1122334455667788ll);
  TPT_STATUS(open_buf(&r, u64_vec, sizeof u64_vec, &root), TP_OK);
  v = tp_fb_vector_field(&root, 0, 8);
  TPT_EQ_INT(v.count, 2);
  TPT_EQ_INT(v.pos, 32);
  TPT_EQ_U64(tp_fb_vector_scalar(&v, 0), 1);
  TPT_EQ_INT((int64_t)tp_fb_vector_scalar(&v, 1), -2);
  TPT_STATUS(open_buf(&r, uni, sizeof uni, &root), TP_OK);
  m = tp_fb_union_field(&root, 1, &tag);
  TPT_EQ_INT(tag, 3);
  TPT_EQ_INT(m.pos, 36);
  TPT_EQ_INT(m.depth, 2);
  TPT_EQ_INT(tp_fb_u8(&m, 0, 0), 5);
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  /* no identifier wanted: any 4 bytes are fine */
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, poke(one_u8, 24, 4, 'X'), 24, NULL, &root), TP_OK);
  TPT_EQ_INT(tp_fb_u8(&root, 0, 0), 7);
}

static void expect_init(const unsigned char *p, size_t n, tp_status want, const char *needle) {
  tp_fb_reader r;
  tp_fb_table root;
  TPT_STATUS(open_buf(&r, p, n, &root), want);
  TPT_CONTAINS(r.err.msg, needle);
  TPT_EQ_INT(root.pos, 0);
  TPT_EQ_INT(tp_fb_u8(&root, 0, 42), 42);
}

static void test_header_errors(void) {
  tp_fb_reader r;
  tp_fb_table root;
  expect_init(one_u8, 11, TP_ERR_FORMAT, "buffer of 11 bytes is shorter than the 12-byte minimum");
  expect_init(poke(one_u8, 24, 4, 'Q'), 24, TP_ERR_FORMAT,
              "file identifier is \"QEST\", expected \"TEST\"");
  expect_init(poke(one_u8, 24, 0, 0), 24, TP_ERR_FORMAT,
              "root offset 0 is not inside the 24-byte buffer");
  expect_init(poke(one_u8, 24, 0, 24), 24, TP_ERR_FORMAT,
              "root offset 24 is not inside the 24-byte buffer");
  expect_init(poke(one_u8, 24, 3, 0x80), 24, TP_ERR_FORMAT, "root offset 2147483664");
  expect_init(poke(one_u8, 24, 0, 18), 24, TP_ERR_FORMAT, "table at byte 18 is not 4-aligned");
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, NULL, 24, NULL, &root), TP_ERR_INVALID);
  TPT_CONTAINS(r.err.msg, "NULL buffer of 24 bytes");
  /* a size over the 2 GiB limit is refused before anything past byte 0 is read */
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, one_u8, (size_t)0x80000000u, NULL, &root), TP_ERR_FORMAT);
  TPT_CONTAINS(r.err.msg, "buffer of 2147483648 bytes is over the FlatBuffers limit of 2147483647");
}

static void test_table_errors(void) {
  /* table at 20: its soffset (bytes 20..23 = 0x07000000) puts the vtable before byte 0 */
  expect_init(poke(one_u8, 24, 0, 20), 24, TP_ERR_FORMAT,
              "table at byte 20: its vtable at byte -117440492 is outside the buffer");
  expect_init(poke(one_u8, 24, 16, 7), 24, TP_ERR_FORMAT,
              "table at byte 16: its vtable at byte 9 is not 2-aligned");
  poke(one_u8, 24, -1, 0);
  poke32(16, (uint32_t)-8); /* vtable at 24: the 2-byte size word is past the end */
  expect_init(work, 24, TP_ERR_FORMAT, "table at byte 16: its vtable at byte 24 is outside the buffer");
  expect_init(poke(one_u8, 24, 10, 7), 24, TP_ERR_FORMAT,
              "table at byte 16: vtable at byte 10 has size 7 (odd");
  expect_init(poke(one_u8, 24, 10, 30), 24, TP_ERR_FORMAT,
              "table at byte 16: vtable at byte 10 has size 30 (past the end");
  /* vtable sizes 0 and 2 are legal (the verifier accepts them): every field is absent */
  {
    tp_fb_reader r;
    tp_fb_table root;
    TPT_STATUS(open_buf(&r, poke(one_u8, 24, 10, 2), 24, &root), TP_OK);
    TPT_EQ_INT(tp_fb_u8(&root, 0, 99), 99);
    TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  }
}

/* Opens p (which must init fine), reads with fn, expects status and message. */
#define EXPECT_READ(p, n, stmt, want, needle)                                 \
  do {                                                                        \
    tp_fb_reader r_;                                                          \
    tp_fb_table root;                                                         \
    TPT_STATUS(open_buf(&r_, p, n, &root), TP_OK);                            \
    stmt;                                                                     \
    TPT_STATUS(tp_fb_reader_status(&r_), want);                               \
    TPT_CONTAINS(r_.err.msg, needle);                                         \
  } while (0)

static void test_field_errors(void) {
  /* the u8's offset points past the end */
  EXPECT_READ(poke(one_u8, 24, 14, 9), 24, TPT_EQ_INT(tp_fb_u8(&root, 0, 42), 42), TP_ERR_FORMAT,
              "table at byte 16, field id 0: 1-byte value at byte 25 is outside the buffer");
  /* the u64 moved to table + 4 = byte 20: 4-aligned only */
  EXPECT_READ(poke(str_u64, 40, 14, 4), 40, TPT_EQ_U64(tp_fb_u64(&root, 1, 42), 42), TP_ERR_FORMAT,
              "table at byte 16, field id 1: 8-byte value at byte 20 is misaligned");
  /* the string offset field read as a 2-byte value at an odd place */
  EXPECT_READ(poke(str_u64, 40, 12, 5), 40, TPT_EQ_INT(tp_fb_u16(&root, 0, 42), 42), TP_ERR_FORMAT,
              "field id 0: 2-byte value at byte 21 is misaligned");
  /* an offset field that is not 4-aligned */
  EXPECT_READ(poke(str_u64, 40, 12, 6), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)), TP_ERR_FORMAT,
              "4-byte value at byte 22 is misaligned");
}

static void test_offset_errors(void) {
  EXPECT_READ(poke(str_u64, 40, 20, 0), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)), TP_ERR_FORMAT,
              "string field: offset 0 at byte 20 leads nowhere (buffer of 40 bytes)");
  EXPECT_READ(poke(str_u64, 40, 20, 20), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)), TP_ERR_FORMAT,
              "string field: offset 20 at byte 20 leads outside the buffer");
  EXPECT_READ(poke(str_u64, 40, 23, 0x80), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)),
              TP_ERR_FORMAT, "offset 2147483660 at byte 20 leads outside the buffer");
  /* the same offset read as a table: the target passes, its soffset does not */
  EXPECT_READ(str_u64, 40, TPT_EQ_INT(tp_fb_table_field(&root, 0).pos, 0), TP_ERR_FORMAT,
              "table at byte 32: vtable at byte 30 has size 4386 (past the end; buffer of 40 bytes)");
}

static void test_string_errors(void) {
  size_t len = 99;
  /* length 3 takes in the NUL at 38 and ends on the pad byte at 39, which is 0: legal */
  EXPECT_READ(poke(str_u64, 40, 32, 3), 40, TPT_CHECK(tp_fb_string(&root, 0, &len) != NULL),
              TP_OK, "");
  TPT_EQ_U64(len, 3);
  EXPECT_READ(poke(str_u64, 40, 38, 'c'), 40, TPT_CHECK(!tp_fb_string(&root, 0, &len)),
              TP_ERR_FORMAT, "string at byte 32 (2 bytes) is not NUL-terminated");
  TPT_EQ_U64(len, 0);
  EXPECT_READ(poke(str_u64, 40, 32, 4), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)),
              TP_ERR_FORMAT, "string at byte 32 (4 bytes) is not NUL-terminated");
  EXPECT_READ(poke(str_u64, 40, 32, 5), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)),
              TP_ERR_FORMAT, "string at byte 32: 5 elements of 1 bytes run past the end");
  poke(str_u64, 40, -1, 0);
  poke32(32, 0xFFFFFFFFu);
  EXPECT_READ(work, 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)), TP_ERR_FORMAT,
              "4294967295 elements of 1 bytes run past the end of the 40-byte buffer");
  /* the string offset moved to the pad byte: length word misaligned */
  EXPECT_READ(poke(str_u64, 40, 20, 14), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)),
              TP_ERR_FORMAT, "string at byte 34: length word not 4-aligned");
  EXPECT_READ(poke(str_u64, 40, 20, 16), 40, TPT_CHECK(!tp_fb_string(&root, 0, NULL)),
              TP_ERR_FORMAT, "string at byte 36: 25185 elements of 1 bytes run past the end");
}

static void test_vector_errors(void) {
  tp_fb_vector v;
  EXPECT_READ(poke(u64_vec, 48, 28, 3), 48, v = tp_fb_vector_field(&root, 0, 8); TPT_EQ_INT(v.count, 0),
              TP_ERR_FORMAT, "vector at byte 28: 3 elements of 8 bytes run past the end");
  /* read as 4-byte elements, 3 fit */
  EXPECT_READ(poke(u64_vec, 48, 28, 3), 48, v = tp_fb_vector_field(&root, 0, 4); TPT_EQ_INT(v.count, 3),
              TP_OK, "");
  /* moved by 4: the count is 1 and the element lands at 36, misaligned for 8 bytes */
  EXPECT_READ(poke(u64_vec, 48, 24, 8), 48, v = tp_fb_vector_field(&root, 0, 8); TPT_EQ_INT(v.pos, 0),
              TP_ERR_FORMAT, "vector at byte 32: its 8-byte elements start at byte 36, misaligned");
  EXPECT_READ(poke(u64_vec, 48, 24, 6), 48, v = tp_fb_vector_field(&root, 0, 8),
              TP_ERR_FORMAT, "vector at byte 30: length word not 4-aligned");
  /* caller mistakes: index past the count, element sizes */
  EXPECT_READ(u64_vec, 48, v = tp_fb_vector_field(&root, 0, 8); TPT_EQ_U64(tp_fb_vector_scalar(&v, 2), 0),
              TP_ERR_BOUNDS, "vector element 2 of 2");
  EXPECT_READ(u64_vec, 48, v = tp_fb_vector_field(&root, 0, 3), TP_ERR_INVALID,
              "vector element size 3 is not 1, 2, 4 or 8");
  EXPECT_READ(u64_vec, 48, v = tp_fb_vector_field(&root, 0, 8); TPT_EQ_INT(tp_fb_vector_table(&v, 0).pos, 0),
              TP_ERR_INVALID, "vector of 8-byte elements read as offsets (needs 4)");
  /* an absent vector has no elements */
  EXPECT_READ(u64_vec, 48, v = tp_fb_vector_field(&root, 5, 4); TPT_EQ_INT(v.count, 0);
              TPT_EQ_INT(v.pos, 0), TP_OK, "");
  /* an empty vector of 8-byte elements needs no alignment (the official builder writes
     them 4-aligned) */
  poke(u64_vec, 48, 24, 8);
  poke32(32, 0);
  EXPECT_READ(work, 48, v = tp_fb_vector_field(&root, 0, 8); TPT_EQ_INT(v.count, 0), TP_OK, "");
}

static void test_union_errors(void) {
  uint8_t tag = 77;
  tp_fb_table m;
  EXPECT_READ(poke(uni, 44, 23, 0), 44, m = tp_fb_union_field(&root, 1, &tag); TPT_EQ_INT(m.pos, 0),
              TP_ERR_FORMAT, "table at byte 16, union at field id 1: type 0 with a value");
  TPT_EQ_INT(tag, 0);
  EXPECT_READ(poke(uni, 44, 14, 0), 44, m = tp_fb_union_field(&root, 1, &tag); TPT_EQ_INT(m.pos, 0),
              TP_ERR_FORMAT, "union at field id 1: type 3 with no value");
  EXPECT_READ(uni, 44, m = tp_fb_union_field(&root, 0, &tag), TP_ERR_INVALID,
              "union at field id 0");
  /* both absent: no error, tag 0 */
  EXPECT_READ(uni, 44, m = tp_fb_union_field(&root, 5, &tag); TPT_EQ_INT(m.pos, 0); TPT_EQ_INT(tag, 0),
              TP_OK, "");
}

/* A chain of n tables, each holding the next at field 0; the innermost has u32 field 1 = n. */
static const unsigned char *chain(tp_fb_builder *b, int n, size_t *size) {
  tp_fb_ref t = 0;
  int i;
  tp_fb_builder_reset(b);
  for (i = 0; i < n; i++) {
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, t);
    if (i == 0) tp_fb_add_u32(b, 1, (uint32_t)n, 0);
    t = tp_fb_end_table(b);
  }
  tp_fb_finish(b, t, "TEST");
  return tp_fb_data(b, size);
}

static int walk_chain(tp_fb_reader *r, const unsigned char *p, size_t n, uint32_t *inner) {
  tp_fb_table t;
  int depth = 0;
  if (tp_fb_reader_init(r, p, n, "TEST", &t) != TP_OK) return 0;
  while (t.pos) {
    depth++;
    *inner = tp_fb_u32(&t, 1, *inner);
    t = tp_fb_table_field(&t, 0);
  }
  return depth;
}

static void test_limits(void) {
  tp_fb_builder *b = NULL;
  tp_fb_reader r;
  size_t n;
  const unsigned char *p;
  uint32_t inner = 0;
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  p = chain(b, 64, &n);
  memset(&r, 0, sizeof r);
  TPT_EQ_INT(walk_chain(&r, p, n, &inner), 64); /* the default depth limit is 64 */
  TPT_EQ_INT(inner, 64);
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  p = chain(b, 65, &n);
  memset(&r, 0, sizeof r);
  TPT_EQ_INT(walk_chain(&r, p, n, &inner), 64);
  TPT_STATUS(tp_fb_reader_status(&r), TP_ERR_FORMAT);
  TPT_CONTAINS(r.err.msg, "is nested 65 deep, over the limit 64");
  p = chain(b, 5, &n);
  memset(&r, 0xAB, sizeof r); /* init needs no zeroed reader */
  {
    tp_fb_table t;
    int depth = 0;
    TPT_STATUS(tp_fb_reader_init_ex(&r, p, n, "TEST", &t, 3, 0), TP_OK);
    while (t.pos) {
      depth++;
      t = tp_fb_table_field(&t, 0);
    }
    TPT_EQ_INT(depth, 3);
  }
  TPT_EQ_STR(tp_fb_reader_error(&r), "table at byte 48 is nested 4 deep, over the limit 3");
  TPT_EQ_INT(r.max_depth, 3); /* init_ex sets the limits */
  memset(&r, 0xAB, sizeof r);
  TPT_EQ_INT(walk_chain(&r, p, n, &inner), 5); /* init: the default limits, whatever was there */
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  TPT_EQ_STR(tp_fb_reader_error(&r), "");
  /* table count: a vector of 10 tables under a root, limit 5 */
  {
    char want[128];
    tp_fb_ref t[10], v, root;
    tp_fb_table rt, e;
    tp_fb_vector vec;
    size_t i;
    tp_fb_builder_reset(b);
    for (i = 0; i < 10; i++) {
      tp_fb_start_table(b);
      tp_fb_add_u32(b, 0, (uint32_t)i + 1, 0);
      t[i] = tp_fb_end_table(b);
    }
    v = tp_fb_create_vector_refs(b, t, 10);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, v);
    root = tp_fb_end_table(b);
    tp_fb_finish(b, root, "TEST");
    p = tp_fb_data(b, &n);
    TPT_STATUS(tp_fb_reader_init_ex(&r, p, n, "TEST", &rt, 0, 5), TP_OK);
    vec = tp_fb_vector_field(&rt, 0, 4);
    for (i = 0; i < 4; i++) {
      e = tp_fb_vector_table(&vec, i);
      TPT_EQ_U64(tp_fb_u32(&e, 0, 0), i + 1);
    }
    TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
    { /* the sentence names the table it stopped at: element 4's target */
      size_t at = vec.pos + 16;
      snprintf(want, sizeof want, "table budget 5 exceeded at byte %lu (%lu-byte buffer)",
               (unsigned long)(at + tp__get_le32(p + at)), (unsigned long)n);
    }
    e = tp_fb_vector_table(&vec, 4);
    TPT_EQ_INT(e.pos, 0);
    TPT_STATUS(tp_fb_reader_status(&r), TP_ERR_FORMAT);
    TPT_EQ_STR(r.err.msg, want);
    /* sticky: later reads return defaults, the first error stays */
    e = tp_fb_vector_table(&vec, 0);
    TPT_EQ_INT(e.pos, 0);
    TPT_EQ_U64(tp_fb_u32(&rt, 0, 7), 7);
    TPT_EQ_U64(tp_fb_vector_scalar(&vec, 0), 0);
    TPT_CHECK(!tp_fb_present(&rt, 0));
    TPT_EQ_STR(r.err.msg, want);
    /* re-init clears the error and the count */
    TPT_STATUS(tp_fb_reader_init_ex(&r, p, n, "TEST", &rt, 0, 5), TP_OK);
    TPT_EQ_INT(r.tables, 1);
  }
  tp_fb_builder_destroy(b);
}

static void test_absent_table(void) {
  tp_fb_table none;
  tp_fb_vector nv;
  uint8_t tag = 9;
  memset(&none, 0, sizeof none);
  TPT_EQ_INT(tp_fb_u32(&none, 0, 5), 5);
  TPT_CHECK(tp_fb_f64(&none, 0, 1.5) == 1.5);
  TPT_CHECK(!tp_fb_present(&none, 0));
  TPT_CHECK(tp_fb_string(&none, 0, NULL) == NULL);
  TPT_EQ_INT(tp_fb_table_field(&none, 0).pos, 0);
  TPT_EQ_INT(tp_fb_union_field(&none, 1, &tag).pos, 0);
  TPT_EQ_INT(tag, 0);
  nv = tp_fb_vector_field(&none, 0, 4);
  TPT_EQ_INT(nv.count, 0);
  TPT_EQ_U64(tp_fb_vector_scalar(&nv, 0), 0);
}

/* ---- corruption sweep ------------------------------------------------------------------ */

/* Every field kind: scalars 0-9, string 10, scalar vectors 11-14, vector of strings 15,
   vector of tables 16, union 17/18, sub-table 19. */
static void build_everything(tp_fb_builder *b) {
  tp_fb_ref s, v8, v16, v32, v64, vs, vt, un, sub, t;
  tp_fb_ref strs[3], subs[3];
  uint8_t e8[3] = {1, 2, 255};
  uint16_t e16[3] = {1, 0xFFFF, 3};
  uint32_t e32[2] = {0xDEADBEEFu, 7};
  uint64_t e64[2] = {1, 0x8000000000000000ull};
  size_t i;
  s = tp_fb_create_string(b, "hello", 5);
  v8 = tp_fb_create_vector(b, e8, 3, 1);
  v16 = tp_fb_create_vector(b, e16, 3, 2);
  v32 = tp_fb_create_vector(b, e32, 2, 4);
  v64 = tp_fb_create_vector(b, e64, 2, 8);
  strs[0] = tp_fb_create_string(b, "", 0);
  strs[1] = tp_fb_create_string(b, "xy", 2);
  strs[2] = tp_fb_create_string(b, "abcdefg", 7);
  vs = tp_fb_create_vector_refs(b, strs, 3);
  for (i = 0; i < 3; i++) {
    tp_fb_start_table(b);
    tp_fb_add_i32(b, 0, (int32_t)i - 1, 0);
    tp_fb_add_u8(b, 1, (uint8_t)i, 0);
    subs[i] = tp_fb_end_table(b);
  }
  vt = tp_fb_create_vector_refs(b, subs, 3);
  tp_fb_start_table(b);
  tp_fb_add_f64(b, 0, 2.5, 0);
  un = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_u16(b, 0, 77, 0);
  tp_fb_add_ref(b, 1, s);
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
  tp_fb_add_union(b, 18, 4, un);
  tp_fb_add_ref(b, 19, sub);
  t = tp_fb_end_table(b);
  tp_fb_finish(b, t, "EVRY");
}

/* Reads every field; returns a checksum of what it read (so nothing is optimised away). */
static uint64_t walk_everything(tp_fb_reader *r, const unsigned char *p, size_t n) {
  tp_fb_table root, e;
  tp_fb_vector v;
  uint64_t sum = 0;
  size_t i, len;
  uint16_t id;
  uint8_t tag;
  const char *s;
  if (tp_fb_reader_init(r, p, n, "EVRY", &root) != TP_OK) return 0;
  for (id = 0; id < 2; id++) sum += tp_fb_u8(&root, id, 0);
  for (id = 2; id < 4; id++) sum += tp_fb_u16(&root, id, 0);
  for (id = 4; id < 6; id++) sum += tp_fb_u32(&root, id, 0);
  for (id = 6; id < 8; id++) sum += tp_fb_u64(&root, id, 0);
  sum += (uint64_t)tp_fb_f32(&root, 8, 0);
  sum += (uint64_t)(int64_t)tp_fb_f64(&root, 9, 0);
  s = tp_fb_string(&root, 10, &len);
  if (s) sum += len + (unsigned char)s[len]; /* the NUL is readable */
  for (id = 11; id < 15; id++) {
    v = tp_fb_vector_field(&root, id, (size_t)1 << (id - 11));
    for (i = 0; i < v.count && tp_fb_reader_status(r) == TP_OK; i++) sum += tp_fb_vector_scalar(&v, i);
  }
  v = tp_fb_vector_field(&root, 15, 4);
  for (i = 0; i < v.count && tp_fb_reader_status(r) == TP_OK; i++) {
    s = tp_fb_vector_string(&v, i, &len);
    if (s) sum += len + (unsigned char)s[len];
  }
  v = tp_fb_vector_field(&root, 16, 4);
  for (i = 0; i < v.count && tp_fb_reader_status(r) == TP_OK; i++) {
    e = tp_fb_vector_table(&v, i);
    sum += (uint64_t)tp_fb_i32(&e, 0, 0) + tp_fb_u8(&e, 1, 0);
  }
  e = tp_fb_union_field(&root, 18, &tag);
  sum += tag + (uint64_t)tp_fb_f64(&e, 0, 0);
  e = tp_fb_table_field(&root, 19);
  sum += tp_fb_u16(&e, 0, 0);
  s = tp_fb_string(&e, 1, &len);
  if (s) sum += len + (unsigned char)s[len];
  return sum;
}

static long sweep_ok, sweep_format;

static void sweep_one(const unsigned char *src, size_t n) {
  tp_fb_reader r;
  unsigned char *p = (unsigned char *)malloc(n ? n : 1); /* exact size: ASan sees overreads */
  tp_status st;
  if (!p) return;
  if (n) memcpy(p, src, n);
  memset(&r, 0, sizeof r);
  walk_everything(&r, p, n);
  st = tp_fb_reader_status(&r);
  if (st == TP_OK) sweep_ok++;
  else if (st == TP_ERR_FORMAT) sweep_format++;
  else {
    printf("  status %d (%s): %s\n", (int)st, tp_status_str(st), r.err.msg);
    TPT_CHECK(st == TP_OK || st == TP_ERR_FORMAT);
  }
  if (st == TP_ERR_FORMAT) TPT_CHECK(r.err.msg[0] != 0);
  free(p);
}

static void test_corruption_sweep(void) {
  tp_fb_builder *b = NULL;
  const unsigned char *d;
  unsigned char *buf;
  size_t n, k, j;
  tp_fb_reader r;
  static const unsigned char flips[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF};
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  build_everything(b);
  d = tp_fb_data(b, &n);
  TPT_CHECK(d != NULL);
  if (!d) return;
  memset(&r, 0, sizeof r);
  TPT_EQ_U64(walk_everything(&r, d, n) != 0, 1);
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  buf = (unsigned char *)malloc(n);
  if (!buf) return;
  memcpy(buf, d, n);
  sweep_ok = sweep_format = 0;
  for (k = 0; k < n; k++) sweep_one(buf, k);
  /* Only cutting the 2 pad bytes after the first string's NUL (the buffer's last bytes) leaves
     everything readable. */
  TPT_EQ_INT(sweep_ok, 2);
  TPT_EQ_INT(buf[n - 1], 0);
  TPT_EQ_INT(buf[n - 2], 0);
  TPT_EQ_INT(buf[n - 3], 0);
  TPT_EQ_INT(buf[n - 4], 'o');
  for (k = 0; k < n; k++) {
    unsigned char orig = buf[k];
    for (j = 0; j < sizeof flips; j++) {
      buf[k] = (unsigned char)(orig ^ flips[j]);
      sweep_one(buf, n);
    }
    buf[k] = 0;
    if (orig) sweep_one(buf, n);
    buf[k] = orig;
  }
  printf("  %lu-byte buffer: %ld truncated or changed copies read cleanly, %ld refused with "
         "TP_ERR_FORMAT\n", (unsigned long)n, sweep_ok, sweep_format);
  TPT_CHECK(sweep_ok > 0 && sweep_format > 0);
  free(buf);
  tp_fb_builder_destroy(b);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_reads_goldens);
  TPT_RUN(test_header_errors);
  TPT_RUN(test_table_errors);
  TPT_RUN(test_field_errors);
  TPT_RUN(test_offset_errors);
  TPT_RUN(test_string_errors);
  TPT_RUN(test_vector_errors);
  TPT_RUN(test_union_errors);
  TPT_RUN(test_limits);
  TPT_RUN(test_absent_table);
  TPT_RUN(test_corruption_sweep);
  return tpt_finish("fb_reader");
}
