/* The one error rule (ERRORS at the top of tensorpack.h), on every core object: a failed write
   leaves a sentence naming the value or path and does not kill the object; a retry after
   fixing the cause succeeds (with the same bytes); a caller's tp_error is reset on entry;
   NULL sinks and sink callbacks are TP_ERR_INVALID everywhere. */
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <process.h>
#define tpt_mkdir(d) _mkdir(d)
#define getpid _getpid
#else
#include <unistd.h>
#define tpt_mkdir(d) mkdir(d, 0700)
#endif
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

static float g_data[64];

static tp_status fail_write(void *ctx, const void *p, size_t n) {
  (void)ctx;
  (void)p;
  (void)n;
  return TP_ERR_IO;
}

static tp_store *small_store(void) {
  tp_store *s = NULL;
  tp_tensor t;
  int64_t sz[2] = {8, 8};
  tp_storage st;
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "w", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  return s;
}

static void test_store_write_retry(void) {
  tp_store *s = small_store();
  tp_membuf clean, again;
  tp_sink sink, bad;
  memset(&clean, 0, sizeof clean);
  memset(&again, 0, sizeof again);
  sink = tp_sink_membuf(&clean);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  /* a failing sink: the sentence, then the store still writes the same bytes */
  bad.write = fail_write;
  bad.ctx = NULL;
  TPT_STATUS(tp_store_write_ptd(s, &bad), TP_ERR_IO);
  TPT_STATUS(tp_store_status(s), TP_ERR_IO);
  TPT_EQ_STR(tp_store_error(s), "tp_store_write_ptd: the sink failed (i/o error) at byte 0 of 512");
  sink = tp_sink_membuf(&again);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  TPT_STATUS(tp_store_status(s), TP_OK);
  TPT_EQ_STR(tp_store_error(s), "");
  TPT_EQ_U64(again.size, clean.size);
  if (again.size == clean.size) TPT_MEMEQ(again.data, clean.data, clean.size);
  /* NULL sink and NULL callback: a bad argument, not an assert */
  TPT_STATUS(tp_store_write_ptd(s, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(s), "tp_store_write_ptd: the sink or its write callback is NULL");
  bad.write = NULL;
  TPT_STATUS(tp_store_write_ptd(s, &bad), TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(s), "tp_store_write_ptd: the sink or its write callback is NULL");
  /* adds still work after failed writes */
  TPT_STATUS(tp_store_add_bytes(s, "more", "abc", 3, 0, 1, NULL), TP_OK);
  TPT_EQ_U64(tp_store_count(s), 2);
  /* a failed add latches: the write is refused with that sentence */
  TPT_STATUS(tp_store_add_bytes(s, "more", "abd", 3, 0, 1, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "key \"more\"");
  sink = tp_sink_membuf(&again);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_ERR_INVALID);
  TPT_CONTAINS(tp_store_error(s), "key \"more\"");
  tp_membuf_free(&clean);
  tp_membuf_free(&again);
  tp_store_destroy(s);
}

static void test_store_file_retry(void) {
  char dir[64], path[96], want[300];
  tp_store *s = small_store();
  struct stat sb;
  snprintf(dir, sizeof dir, "/tmp/tp_test_errors_%ld", (long)getpid());
  snprintf(path, sizeof path, "%s/x.ptd", dir);
  rmdir(dir);
  TPT_STATUS(tp_store_write_ptd_file(s, path), TP_ERR_IO);
  TPT_STATUS(tp_store_status(s), TP_ERR_IO);
  snprintf(want, sizeof want,
           "tp_store_write_ptd_file: cannot create a temporary file beside \"%s\": No such file "
           "or directory (does its directory exist and is it writable?)", path);
  TPT_EQ_STR(tp_store_error(s), want);
  TPT_CHECK(stat(path, &sb) != 0); /* no file */
  /* fix the cause, retry: the store was not killed */
  TPT_CHECK(tpt_mkdir(dir) == 0);
  TPT_STATUS(tp_store_write_ptd_file(s, path), TP_OK);
  TPT_STATUS(tp_store_status(s), TP_OK);
  TPT_EQ_STR(tp_store_error(s), "");
  TPT_CHECK(stat(path, &sb) == 0 && sb.st_size > 256);
  TPT_STATUS(tp_store_write_ptd_file(s, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(s), "tp_store_write_ptd_file: the path is NULL or empty");
  remove(path);
  rmdir(dir);
  tp_store_destroy(s);
}

static tp_status produce_abc(void *ctx, tp_sink *sink) {
  (void)ctx;
  return tp_sink_write(sink, "abc", 3);
}
static tp_status produce_fail(void *ctx, tp_sink *sink) {
  (void)ctx;
  (void)sink;
  return TP_ERR_FORMAT;
}

static void test_atomic_write_sentences(void) {
  tp_error e;
  char want[300];
  const char *bad = "/tmp/tp_no_such_dir_for_errors/y.bin", *ok = "/tmp/tp_test_errors_y.bin";
  struct stat sb;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_atomic_write(bad, produce_abc, NULL, &e), TP_ERR_IO);
  TPT_EQ_INT(e.status, TP_ERR_IO);
  snprintf(want, sizeof want,
           "cannot create a temporary file beside \"%s\": No such file or directory (does its "
           "directory exist and is it writable?)", bad);
  TPT_EQ_STR(e.msg, want);
  TPT_STATUS(tp_atomic_write(ok, produce_fail, NULL, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "writing \"/tmp/tp_test_errors_y.bin\" failed (malformed input); no file was left");
  TPT_CHECK(stat(ok, &sb) != 0);
  TPT_STATUS(tp_atomic_write(ok, produce_abc, NULL, &e), TP_OK); /* reset on entry */
  TPT_EQ_INT(e.status, TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_CHECK(stat(ok, &sb) == 0 && sb.st_size == 3);
  TPT_STATUS(tp_atomic_write(ok, NULL, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "atomic write: produce is NULL");
  TPT_STATUS(tp_atomic_write("", produce_abc, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "atomic write: the path is NULL or empty");
  TPT_STATUS(tp_atomic_write(bad, produce_abc, NULL, NULL), TP_ERR_IO); /* NULL err is fine */
  remove(ok);
}

/* The builder's finish is its write: a failure (here the size limit) latches with a sentence;
   reset and build again (the retry) gives the bytes. */
static void test_builder_retry(void) {
  tp_fb_builder *b;
  tp_fb_ref r;
  size_t n1 = 0, n2 = 0;
  const unsigned char *d;
  unsigned char first[64];
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 7, 0);
  r = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, r, "TEST"), TP_OK);
  d = tp_fb_data(b, &n1);
  TPT_CHECK(n1 <= sizeof first);
  memcpy(first, d, n1);
  tp_fb_builder_reset(b);
  tp_fb_set_max_size(b, 8);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 7, 0);
  r = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, r, "TEST"), TP_ERR_OVERFLOW);
  TPT_STATUS(tp_fb_status(b), TP_ERR_OVERFLOW);
  TPT_CONTAINS(tp_fb_error(b), "limit of 8");
  tp_fb_builder_reset(b);
  tp_fb_set_max_size(b, 0);
  TPT_STATUS(tp_fb_status(b), TP_OK);
  TPT_EQ_STR(tp_fb_error(b), "");
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 7, 0);
  r = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, r, "TEST"), TP_OK);
  d = tp_fb_data(b, &n2);
  TPT_EQ_U64(n2, n1);
  if (n2 == n1) TPT_MEMEQ(d, first, n1);
  tp_fb_builder_destroy(b);
}

/* Readers: accessors, no zeroed struct needed, re-open after a failure works. */
static void test_readers(void) {
  tp_store *s = small_store();
  tp_membuf m;
  tp_sink sink;
  tp_ptd p;
  tp_ptd_entry e;
  tp_fb_reader r;
  tp_fb_table root;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  memset(&p, 0x5A, sizeof p);
  TPT_STATUS(tp_ptd_open(&p, m.data, 40), TP_ERR_FORMAT);
  TPT_STATUS(tp_ptd_status(&p), TP_ERR_FORMAT);
  TPT_CONTAINS(tp_ptd_error(&p), "40");
  TPT_STATUS(tp_ptd_open(&p, m.data, m.size), TP_OK); /* the same struct, re-opened */
  TPT_STATUS(tp_ptd_status(&p), TP_OK);
  TPT_EQ_STR(tp_ptd_error(&p), "");
  TPT_STATUS(tp_ptd_find(&p, "nope", &e), TP_ERR_INVALID);
  TPT_EQ_STR(tp_ptd_lookup_error(&p), "key \"nope\" is not in the .ptd");
  TPT_STATUS(tp_ptd_find(&p, "w", &e), TP_OK);
  TPT_EQ_STR(tp_ptd_lookup_error(&p), "");
  memset(&r, 0x5A, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, m.data, 8, NULL, &root), TP_ERR_FORMAT);
  TPT_EQ_STR(tp_fb_reader_error(&r), "buffer of 8 bytes is shorter than the 12-byte minimum");
  tp_membuf_free(&m);
  tp_store_destroy(s);
}

/* Issue 14 item 14: NULL sink callbacks are TP_ERR_INVALID in every core call taking a sink. */
static void test_null_sinks(void) {
  tp_sink nul;
  tp_tensor t, i8;
  tp_storage st;
  int64_t sz[1] = {16};
  tp__tally tl;
  tp_sink tally;
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t, NULL), TP_OK);
  memset(g_data, 0, sizeof g_data);
  TPT_STATUS(tp_view(st, TP_I8, 1, sz, NULL, 0, &i8, NULL), TP_OK);
  nul.write = NULL;
  nul.ctx = NULL;
  TPT_STATUS(tp_sink_write(&nul, "x", 1), TP_ERR_INVALID);
  TPT_STATUS(tp_sink_write(NULL, "x", 1), TP_ERR_INVALID);
  TPT_STATUS(tp_sink_zeros(&nul, 4), TP_ERR_INVALID);
  TPT_STATUS(tp_sink_zeros(NULL, 4), TP_ERR_INVALID);
  TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, &nul), TP_ERR_INVALID);
  TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_convert_write(&t, TP_F16, 0, &nul), TP_ERR_INVALID);
  TPT_STATUS(tp_pack_int4_write(&i8, &nul), TP_ERR_INVALID);
  tally = tp__sink_tally(&tl, NULL);
  TPT_STATUS(tp_sink_write(&tally, "x", 1), TP_ERR_INVALID);
  tally = tp__sink_tally(&tl, &nul);
  TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, &tally), TP_ERR_INVALID);
  TPT_EQ_U64(tl.n, 0);
}

/* A caller's tp_error is reset on entry: a stale failure never survives a success. */
static void test_reset_on_entry(void) {
  tp_error e;
  tp_tensor t;
  tp_storage st;
  int64_t sz[1] = {16};
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t, NULL), TP_OK);
  e.status = TP_ERR_FORMAT;
  strcpy(e.msg, "malformed input (an old failure)");
  TPT_STATUS(tp_tensor_check(&t, &e), TP_OK);
  TPT_EQ_INT(e.status, TP_OK);
  TPT_EQ_STR(e.msg, "");
  e.status = TP_ERR_FORMAT;
  t.offset = 1000;
  TPT_STATUS(tp_tensor_check(&t, &e), TP_ERR_BOUNDS); /* the new status, not the old FORMAT */
  TPT_EQ_INT(e.status, TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "view reaches byte 4064 of a 256-byte storage");
  t.offset = 0;
  memset(g_data, 0x7f, sizeof g_data);
  t.dtype = TP_I8;
  TPT_STATUS(tp_pack_int4_check(&t, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "127");
  memset(g_data, 0, sizeof g_data);
  TPT_STATUS(tp_pack_int4_check(&t, &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_store_write_retry);
  TPT_RUN(test_store_file_retry);
  TPT_RUN(test_atomic_write_sentences);
  TPT_RUN(test_builder_retry);
  TPT_RUN(test_readers);
  TPT_RUN(test_null_sinks);
  TPT_RUN(test_reset_on_entry);
  return tpt_finish("errors");
}
