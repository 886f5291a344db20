/* Sinks and small helpers: membuf, counter, FILE*, zeros, atomic file (success, produce failure,
   missing directory, failing rename, concurrent temps), error recording, status strings,
   little-endian helpers, checked arithmetic, array growth. */
#define _POSIX_C_SOURCE 200809L
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>
#ifdef _WIN32 /* the Windows suite (mk/platforms.mk): the POSIX calls this file uses */
#include <direct.h>
#include <io.h>
#include <sys/stat.h>
#define mkdir(path, mode) _mkdir(path)
#define rmdir _rmdir
static char *mkdtemp(char *tmpl) { return _mktemp(tmpl) && _mkdir(tmpl) == 0 ? tmpl : NULL; }
#else
#include <unistd.h>
#include <sys/stat.h>
#endif

static char g_dir[64];

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}
static size_t read_file(const char *p, unsigned char *buf, size_t cap) {
  FILE *f = fopen(p, "rb");
  size_t n;
  if (!f) return (size_t)-1;
  n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}
static void path_of(char *out, const char *name) { snprintf(out, 256, "%s/%s", g_dir, name); }

static void test_membuf(void) {
  tp_membuf m = {0};
  tp_sink s = tp_sink_membuf(&m);
  unsigned char chunk[777];
  size_t i;
  int k;
  for (i = 0; i < sizeof chunk; i++) chunk[i] = (unsigned char)tpt_range(0, 255);
  for (k = 0; k < 100; k++) TPT_STATUS(tp_sink_write(&s, chunk, (size_t)k * 7), TP_OK);
  TPT_EQ_U64(m.size, 7u * 99u * 100u / 2u);
  TPT_CHECK(m.cap >= m.size);
  TPT_MEMEQ(m.data + 7 * 99 * 98 / 2, chunk, 7 * 99); /* the last chunk at its place */
  TPT_STATUS(tp_sink_write(&s, NULL, 0), TP_OK);
  TPT_STATUS(tp_sink_write(&s, NULL, 1), TP_ERR_INVALID);
  TPT_STATUS(tp_sink_zeros(&s, 1000), TP_OK);
  TPT_EQ_U64(m.size, 7u * 99u * 100u / 2u + 1000u);
  TPT_EQ_INT(m.data[m.size - 1], 0);
  TPT_EQ_INT(m.data[m.size - 1000], 0);
  tp_membuf_free(&m);
  TPT_CHECK(m.data == NULL && m.size == 0 && m.cap == 0);
  tp_membuf_free(NULL);
}

static void test_counter(void) {
  uint64_t n = 0;
  tp_sink s = tp_sink_counter(&n);
  TPT_STATUS(tp_sink_write(&s, "abc", 3), TP_OK);
  TPT_STATUS(tp_sink_zeros(&s, 1000), TP_OK);
  TPT_EQ_U64(n, 1003);
  n = UINT64_MAX - 2;
  TPT_STATUS(tp_sink_write(&s, "abc", 3), TP_ERR_OVERFLOW);
  TPT_EQ_U64(n, UINT64_MAX - 2);
}

static tp_status fail_after_8(void *ctx, const void *data, size_t n) {
  size_t *seen = (size_t *)ctx;
  (void)data;
  if (*seen + n > 8) return TP_ERR_IO;
  *seen += n;
  return TP_OK;
}

/* tp__sink_tally forwards every write and counts only what the inner sink accepted. */
static void test_tally(void) {
  tp_membuf m;
  tp_sink inner, t;
  tp__tally tally;
  size_t seen = 0;
  memset(&m, 0, sizeof m);
  inner = tp_sink_membuf(&m);
  t = tp__sink_tally(&tally, &inner);
  TPT_CHECK(tally.inner == &inner);
  TPT_STATUS(tp_sink_write(&t, "abc", 3), TP_OK);
  TPT_STATUS(tp_sink_zeros(&t, 5), TP_OK);
  TPT_EQ_U64(tally.n, 8);
  TPT_EQ_U64(m.size, 8);
  TPT_MEMEQ(m.data, "abc\0\0\0\0\0", 8);
  tp_membuf_free(&m);

  inner.write = fail_after_8;
  inner.ctx = &seen;
  t = tp__sink_tally(&tally, &inner);
  TPT_STATUS(tp_sink_write(&t, "0123456", 7), TP_OK);
  TPT_STATUS(tp_sink_write(&t, "89", 2), TP_ERR_IO); /* the inner status passes through */
  TPT_EQ_U64(tally.n, 7);                             /* the refused bytes are not counted */
}

static void test_file_sink(void) {
  char p[256];
  unsigned char back[16];
  FILE *f;
  tp_sink s;
  path_of(p, "plain.bin");
  f = fopen(p, "wb");
  TPT_CHECK(f != NULL);
  if (!f) return;
  s = tp_sink_file(f);
  TPT_STATUS(tp_sink_write(&s, "hello", 5), TP_OK);
  TPT_STATUS(tp_sink_zeros(&s, 3), TP_OK);
  fclose(f);
  TPT_EQ_U64(read_file(p, back, sizeof back), 8);
  TPT_MEMEQ(back, "hello\0\0\0", 8);
  /* a stream that cannot be written: short write -> TP_ERR_IO */
  f = fopen(p, "rb");
  TPT_CHECK(f != NULL);
  if (!f) return;
  s = tp_sink_file(f);
  TPT_STATUS(tp_sink_write(&s, "x", 1), TP_ERR_IO);
  fclose(f);
  remove(p);
}

typedef struct produce_ctx {
  const char *text;
  tp_status result;
} produce_ctx;
static tp_status produce(void *ctx, tp_sink *sink) {
  produce_ctx *c = (produce_ctx *)ctx;
  tp_status s = tp_sink_write(sink, c->text, strlen(c->text));
  if (s != TP_OK) return s;
  return c->result;
}

static void test_atomic(void) {
  char p[256], tmp0[300], missing[256], dirpath[256];
  unsigned char back[64];
  produce_ctx ok = {"first version", TP_OK}, bad = {"half written", TP_ERR_FORMAT};
  produce_ctx ok2 = {"second", TP_OK};
  path_of(p, "out.bin");
  snprintf(tmp0, sizeof tmp0, "%s.tmp.0", p);
  TPT_STATUS(tp_atomic_write(p, produce, &ok, NULL), TP_OK);
  TPT_EQ_U64(read_file(p, back, sizeof back), 13);
  TPT_MEMEQ(back, "first version", 13);
  TPT_CHECK(!file_exists(tmp0));
  /* a failing producer: its status, the old file untouched, no temp left */
  TPT_STATUS(tp_atomic_write(p, produce, &bad, NULL), TP_ERR_FORMAT);
  TPT_EQ_U64(read_file(p, back, sizeof back), 13);
  TPT_MEMEQ(back, "first version", 13);
  TPT_CHECK(!file_exists(tmp0));
  /* replace */
  TPT_STATUS(tp_atomic_write(p, produce, &ok2, NULL), TP_OK);
  TPT_EQ_U64(read_file(p, back, sizeof back), 6);
  /* a failing producer on a new path leaves no file at all */
  path_of(missing, "never.bin");
  TPT_STATUS(tp_atomic_write(missing, produce, &bad, NULL), TP_ERR_FORMAT);
  TPT_CHECK(!file_exists(missing));
  /* a missing directory: TP_ERR_IO, nothing created */
  path_of(missing, "no/such/dir/out.bin");
  TPT_STATUS(tp_atomic_write(missing, produce, &ok, NULL), TP_ERR_IO);
  TPT_CHECK(!file_exists(missing));
  /* the rename fails (target is a non-empty directory): TP_ERR_IO, temp removed */
  path_of(dirpath, "adir");
  TPT_EQ_INT(mkdir(dirpath, 0700), 0);
  {
    char inner[300], t0[300];
    FILE *f;
    snprintf(inner, sizeof inner, "%s/x", dirpath);
    f = fopen(inner, "wb");
    if (f) fclose(f);
    snprintf(t0, sizeof t0, "%s.tmp.0", dirpath);
    TPT_STATUS(tp_atomic_write(dirpath, produce, &ok, NULL), TP_ERR_IO);
    TPT_CHECK(!file_exists(t0));
    remove(inner);
  }
  rmdir(dirpath);
  /* two writers at once get different temp files; the last commit wins */
  {
    tp_atomic_file a, b;
    tp_sink sa, sb;
    TPT_STATUS(tp_atomic_open(&a, p, &sa), TP_OK);
    TPT_STATUS(tp_atomic_open(&b, p, &sb), TP_OK);
    TPT_CHECK(strcmp(a.tmp_path, b.tmp_path) != 0);
    TPT_STATUS(tp_sink_write(&sa, "AAAA", 4), TP_OK);
    TPT_STATUS(tp_sink_write(&sb, "BB", 2), TP_OK);
    TPT_STATUS(tp_atomic_commit(&a), TP_OK);
    TPT_STATUS(tp_atomic_commit(&b), TP_OK);
    TPT_EQ_U64(read_file(p, back, sizeof back), 2);
    TPT_STATUS(tp_atomic_commit(&b), TP_ERR_INVALID); /* already committed */
    /* abort removes the temp */
    TPT_STATUS(tp_atomic_open(&a, p, &sa), TP_OK);
    snprintf(tmp0, sizeof tmp0, "%s", a.tmp_path);
    TPT_CHECK(file_exists(tmp0));
    tp_atomic_abort(&a);
    TPT_CHECK(!file_exists(tmp0));
    TPT_EQ_U64(read_file(p, back, sizeof back), 2);
  }
  TPT_STATUS(tp_atomic_write(NULL, produce, &ok, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_atomic_write(p, NULL, &ok, NULL), TP_ERR_INVALID);
  remove(p);
}

static void test_errors_and_status(void) {
  tp_error e;
  int i;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__error_set(&e, TP_OK, "nothing"), TP_OK);
  TPT_EQ_INT(e.status, TP_OK);
  TPT_STATUS(tp__error_set(&e, TP_ERR_BOUNDS, "value %u: view reaches byte %llu of a %d-byte storage",
                          3u, 4160ull, 4096), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "value 3: view reaches byte 4160 of a 4096-byte storage");
  /* the first failure sticks */
  TPT_STATUS(tp__error_set(&e, TP_ERR_IO, "later"), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "value 3: view reaches byte 4160 of a 4096-byte storage");
  TPT_STATUS(tp__error_set(NULL, TP_ERR_IO, "x"), TP_ERR_IO);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__error_set(&e, TP_ERR_NOMEM, NULL), TP_ERR_NOMEM);
  TPT_EQ_STR(e.msg, "out of memory");
  { /* a long message is cut, NUL-terminated */
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memset(&e, 0, sizeof e);
    tp__error_set(&e, TP_ERR_INVALID, "%s", big);
    TPT_EQ_U64(strlen(e.msg), TP_ERROR_MAX - 1);
  }
  TPT_EQ_STR(tp_status_str(TP_OK), "ok");
  TPT_EQ_STR(tp_status_str(TP_ERR_BOUNDS), "out of bounds");
  TPT_EQ_STR(tp_status_str(TP_ERR_FORMAT), "malformed input");
  TPT_EQ_STR(tp_status_str((tp_status)99), "unknown status");
  for (i = 0; i < TP_STATUS_COUNT__; i++) TPT_CHECK(strlen(tp_status_str((tp_status)i)) > 1);
  TPT_EQ_INT(TP_ERR_INVALID, 1);
  TPT_EQ_INT(TP_ERR_FORMAT, 7);
}

static void test_helpers(void) {
  unsigned char b[8];
  uint64_t r = 77;
  void *arr = NULL;
  size_t cap = 0;
  tp__put_le16(b, 0x1234);
  TPT_MEMEQ(b, "\x34\x12", 2);
  tp__put_le32(b, 0x89ABCDEFu);
  TPT_MEMEQ(b, "\xEF\xCD\xAB\x89", 4);
  tp__put_le64(b, 0x0102030405060708ull);
  TPT_MEMEQ(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
  TPT_EQ_U64(tp__get_le64(b), 0x0102030405060708ull);
  TPT_EQ_U64(tp__get_le32(b), 0x05060708u);
  TPT_EQ_U64(tp__get_le16(b), 0x0708u);
  TPT_EQ_INT(tp__add_u64(UINT64_MAX, 1, &r), 1);
  TPT_EQ_U64(r, 77);
  TPT_EQ_INT(tp__add_u64(UINT64_MAX - 1, 1, &r), 0);
  TPT_EQ_U64(r, UINT64_MAX);
  TPT_EQ_INT(tp__mul_u64(1ull << 32, 1ull << 32, &r), 1);
  TPT_EQ_INT(tp__mul_u64(1ull << 31, 1ull << 32, &r), 0);
  TPT_EQ_U64(r, 1ull << 63);
  TPT_EQ_INT(tp__mul_u64(0, UINT64_MAX, &r), 0);
  TPT_EQ_U64(r, 0);
  TPT_EQ_INT(tp__align_u64(17, 16, &r), 0);
  TPT_EQ_U64(r, 32);
  TPT_EQ_INT(tp__align_u64(32, 16, &r), 0);
  TPT_EQ_U64(r, 32);
  TPT_EQ_INT(tp__align_u64(UINT64_MAX - 3, 16, &r), 1);
  TPT_EQ_INT(tp__align_u64(5, 12, &r), 1); /* not a power of two */
  TPT_EQ_INT(tp__align_u64(5, 0, &r), 1);
  TPT_STATUS(tp__array_reserve(&arr, &cap, 10, 4), TP_OK);
  TPT_CHECK(cap >= 10 && arr != NULL);
  memset(arr, 1, 40);
  TPT_STATUS(tp__array_reserve(&arr, &cap, 1000, 4), TP_OK);
  TPT_CHECK(cap >= 1000);
  TPT_EQ_INT(((unsigned char *)arr)[39], 1);
  TPT_STATUS(tp__array_reserve(&arr, &cap, SIZE_MAX / 2, 8), TP_ERR_OVERFLOW);
  TPT_CHECK(cap >= 1000);
  TPT_STATUS(tp__array_reserve(&arr, &cap, 2000, 0), TP_ERR_INVALID);
  free(arr);
  TPT_EQ_U64(tp_dtype_size(TP_BF16), 2);
  TPT_EQ_U64(tp_dtype_size(TP_F64), 8);
  TPT_EQ_U64(tp_dtype_size(TP_BOOL), 1);
  TPT_EQ_U64(tp_dtype_size((tp_dtype)8), 0);
  TPT_EQ_STR(tp_dtype_name(TP_BF16), "bf16");
  TPT_EQ_STR(tp_dtype_name((tp_dtype)-1), "?");
  TPT_EQ_INT(TP_BF16, 15);
  TPT_EQ_INT(TP_BOOL, 11);
}

int main(void) {
  int rc;
  snprintf(g_dir, sizeof g_dir, "/tmp/tp_sinks_XXXXXX");
  if (!mkdtemp(g_dir)) {
    printf("cannot make a temp dir\n");
    return 1;
  }
  TPT_RUN(test_membuf);
  TPT_RUN(test_counter);
  TPT_RUN(test_tally);
  TPT_RUN(test_file_sink);
  TPT_RUN(test_atomic);
  TPT_RUN(test_errors_and_status);
  TPT_RUN(test_helpers);
  rc = tpt_finish("sinks");
  rmdir(g_dir);
  return rc;
}
