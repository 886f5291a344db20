/* The delegate-blob core (tensorpack.h, >>delegate): the frame both backends write and parse,
   segment placement, and the one routine that sends a named constant to the store. */
#include "tensorpack.h"
#include "tp_test.h"

static unsigned char blob[256];

/* A frame made, written, parsed back: the same fields, the header bytes as documented. */
static void test_frame_round_trip(void) {
  tp__delegate_frame f, g;
  tp_membuf m = {NULL, 0, 0};
  tp_sink s = tp_sink_membuf(&m);
  unsigned char fb[20];
  uint64_t total = 0;
  tp_error e;
  size_t i;
  for (i = 0; i < sizeof fb; i++) fb[i] = (unsigned char)(i + 1);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_frame_make("XH00", sizeof fb, 64, 100, &f, &total, &e), TP_OK);
  TPT_EQ_INT(f.header_size, 30);
  TPT_EQ_INT(f.flatbuffer_offset, 32);
  TPT_EQ_INT(f.flatbuffer_size, 20);
  TPT_EQ_INT(f.segment_offset, 64); /* 32 + 20 aligned to 64 */
  TPT_EQ_U64(total, 164);
  TPT_STATUS(tp__delegate_write_head(&s, "XH00", &f, fb), TP_OK);
  TPT_EQ_U64(m.size, 64);
  TPT_MEMEQ(m.data + 4, "XH00", 4);
  TPT_EQ_INT(tp__get_le16(m.data + 8), 30);
  TPT_EQ_INT(tp__get_le32(m.data + 18), 64);
  TPT_EQ_U64(tp__get_le64(m.data + 22), 100);
  TPT_MEMEQ(m.data + 32, fb, sizeof fb);
  for (i = 52; i < 64; i++) TPT_EQ_INT(m.data[i], 0);
  memset(blob, 0, sizeof blob);
  memcpy(blob, m.data, m.size);
  TPT_STATUS(tp__delegate_parse(blob, 164, "XH00", "constant data", &g, &e), TP_OK);
  TPT_CHECK(memcmp(&f, &g, sizeof f) == 0);
  TPT_EQ_STR(e.msg, "");
  tp_membuf_free(&m);
  /* alignment 16 (Vulkan): 32 + 20 -> 64 too; 32 + 16 -> 48 */
  TPT_STATUS(tp__delegate_frame_make("VH00", 16, 16, 0, &f, &total, NULL), TP_OK);
  TPT_EQ_INT(f.segment_offset, 48);
  TPT_EQ_U64(total, 48);
}

static void expect_parse(size_t size, const char *want) {
  tp__delegate_frame f;
  tp_error e;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_parse(blob, size, "VH00", "bytes", &f, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, want);
}

static void set_frame(uint16_t len, uint32_t fo, uint32_t fs, uint32_t so, uint64_t ss) {
  memset(blob, 0, sizeof blob);
  memcpy(blob + 4, "VH00", 4);
  tp__put_le16(blob + 8, len);
  tp__put_le32(blob + 10, fo);
  tp__put_le32(blob + 14, fs);
  tp__put_le32(blob + 18, so);
  tp__put_le64(blob + 22, ss);
}

/* Every refusal, with its sentence and numbers. */
static void test_parse_errors(void) {
  tp__delegate_frame f;
  tp_error e;
  set_frame(30, 32, 16, 48, 8);
  expect_parse(29, "VH00 header: file is 29 bytes, the header needs 30");
  memcpy(blob + 4, "XH00", 4);
  expect_parse(64, "VH00 header: magic is not VH00");
  set_frame(29, 32, 16, 48, 8);
  expect_parse(64, "VH00 header: length 29 < 30");
  set_frame(40, 32, 16, 48, 8);
  expect_parse(64, "VH00 header: flatbuffer offset 32 is inside the 40-byte header");
  set_frame(30, 32, 11, 48, 8);
  expect_parse(64, "VH00 header: flatbuffer size 11 < 12 (root offset, identifier, one table)");
  set_frame(30, 32, 40, 72, 0);
  expect_parse(64, "VH00 header: flatbuffer [32, 72) ends past the 64-byte file");
  set_frame(30, 32, 16, 48, 17);
  expect_parse(64, "VH00 header: bytes at 48 of 17 bytes ends past the 64-byte file");
  set_frame(30, 32, 16, 40, 8);
  expect_parse(64, "VH00 header: bytes offset 40 overlaps the flatbuffer [32, 48)");
  set_frame(30, 32, 16, 0xFFFFFFFFu, UINT64_MAX);
  expect_parse(64, "VH00 header: bytes at 4294967295 of 18446744073709551615 bytes ends past "
                   "the 64-byte file");
  /* an old error in err does not stay */
  memset(&e, 0, sizeof e);
  tp__error_set(&e, TP_ERR_IO, "old");
  set_frame(30, 32, 16, 40, 8);
  TPT_STATUS(tp__delegate_parse(blob, 64, "VH00", "bytes", &f, &e), TP_ERR_FORMAT);
  TPT_EQ_INT(e.status, TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "VH00 header: bytes offset 40 overlaps the flatbuffer [32, 48)");
  TPT_EQ_U64(f.segment_offset, 40); /* the fields are filled even when refused */
  set_frame(30, 32, 16, 48, 16);
  TPT_STATUS(tp__delegate_parse(blob, 64, "VH00", "bytes", &f, &e), TP_OK);
  TPT_EQ_INT(e.status, TP_OK);
  TPT_STATUS(tp__delegate_parse(blob, 64, "VH00", "bytes", &f, NULL), TP_OK);
  TPT_EQ_U64(f.segment_size, 16);
  TPT_STATUS(tp__delegate_parse(NULL, 0, "VH00", "bytes", &f, NULL), TP_ERR_FORMAT);
  TPT_STATUS(tp__delegate_parse(blob, 64, "VH00", "bytes", NULL, NULL), TP_ERR_INVALID);
}

static void test_frame_make_errors(void) {
  tp__delegate_frame f;
  tp_error e;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_frame_make("XH00", (uint64_t)1 << 32, 16, 0, &f, NULL, &e),
             TP_ERR_OVERFLOW);
  TPT_EQ_STR(e.msg, "XH00 header: a flatbuffer of 4294967296 bytes does not fit its 32-bit offsets");
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_frame_make("XH00", 0xFFFFFFF0u, 16, 0, &f, NULL, &e), TP_ERR_OVERFLOW);
  TPT_CONTAINS(e.msg, "a flatbuffer of 4294967280 bytes");
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_frame_make("VH00", 16, 16, UINT64_MAX, &f, NULL, &e), TP_ERR_OVERFLOW);
  TPT_EQ_STR(e.msg, "VH00 blob: a segment of 18446744073709551615 bytes overflows");
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__delegate_frame_make("VH00", 16, 24, 0, &f, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "VH00 blob: alignment 24 is not a power of two >= 16");
}

static void test_place(void) {
  uint64_t pos = 0, off = 7;
  TPT_EQ_INT(tp__delegate_place(&pos, 5, 16, &off), 0);
  TPT_EQ_U64(off, 0);
  TPT_EQ_U64(pos, 16);
  TPT_EQ_INT(tp__delegate_place(&pos, 16, 16, &off), 0);
  TPT_EQ_U64(off, 16);
  TPT_EQ_U64(pos, 32);
  TPT_EQ_INT(tp__delegate_place(&pos, 0, 64, &off), 0);
  TPT_EQ_U64(off, 32);
  TPT_EQ_U64(pos, 64);
  TPT_EQ_INT(tp__delegate_place(&pos, UINT64_MAX - 10, 16, &off), 1);
  TPT_EQ_U64(pos, 64); /* unchanged */
  TPT_EQ_U64(off, 32);
}

static tp_status twice_bytes(const void *ctx, tp_sink *sink) {
  const unsigned char *p = (const unsigned char *)ctx;
  unsigned char b[8];
  int i;
  for (i = 0; i < 8; i++) b[i] = (unsigned char)(p[i] * 2);
  return tp_sink_write(sink, b, 8);
}

/* The view as it is (key = sha256 of its bytes, borrowed), produced bytes (a copy), a prefix. */
static void test_store_constant(void) {
  static unsigned char data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, doubled[8];
  int64_t n = 8;
  tp_storage st;
  tp_tensor v;
  tp_store *s = NULL;
  const char *k1 = NULL, *k2 = NULL, *k3 = NULL;
  char want[80];
  int i;
  st.data = data;
  st.nbytes = 8;
  for (i = 0; i < 8; i++) doubled[i] = (unsigned char)(data[i] * 2);
  TPT_STATUS(tp_view(st, TP_U8, 1, &n, NULL, 0, &v, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp__delegate_store_constant(s, &v, NULL, NULL, 8, NULL, 16, &k1), TP_OK);
  TPT_STATUS(tp_sha256_hex(data, 8, want), TP_OK);
  TPT_EQ_STR(k1, want);
  TPT_STATUS(tp__delegate_store_constant(s, &v, twice_bytes, data, 8, NULL, 64, &k2), TP_OK);
  TPT_STATUS(tp_sha256_hex(doubled, 8, want), TP_OK);
  TPT_EQ_STR(k2, want);
  TPT_STATUS(tp__delegate_store_constant(s, &v, NULL, NULL, 8, "scale_", 16, &k3), TP_OK);
  memcpy(want, "scale_", 6);
  TPT_STATUS(tp_sha256_hex(data, 8, want + 6), TP_OK);
  TPT_EQ_STR(k3, want);
  TPT_EQ_INT(tp_store_count(s), 3);
  /* produced bytes of the wrong length */
  TPT_STATUS(tp__delegate_store_constant(s, &v, twice_bytes, data, 9, NULL, 16, &k1),
             TP_ERR_INVALID);
  TPT_CHECK(k1 == NULL);
  tp_store_destroy(s);
}

int main(void) {
  TPT_RUN(test_frame_round_trip);
  TPT_RUN(test_parse_errors);
  TPT_RUN(test_frame_make_errors);
  TPT_RUN(test_place);
  TPT_RUN(test_store_constant);
  return tpt_finish("delegate");
}
