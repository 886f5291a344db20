/* The one error rule (ERRORS at the top of tensorpack.h), on every core object: a failed write
   leaves a sentence naming the value or path and does not kill the object; a retry after
   fixing the cause succeeds (with the same bytes); a caller's tp_error is reset on entry;
   NULL sinks and sink callbacks are TP_ERR_INVALID everywhere. */
#include <math.h>
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
  TPT_STATUS(tp_store_create(&s), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t), TP_OK);
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
  TPT_EQ_STR(tp_store_error(s), "writing the .ptd header and flatbuffer: i/o error");
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
           "cannot create a temporary file beside \"%s\": No such file or directory (does its "
           "directory exist and is it writable?)", path);
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
  TPT_STATUS(tp_atomic_write_ex(bad, produce_abc, NULL, &e), TP_ERR_IO);
  TPT_EQ_INT(e.status, TP_ERR_IO);
  snprintf(want, sizeof want,
           "cannot create a temporary file beside \"%s\": No such file or directory (does its "
           "directory exist and is it writable?)", bad);
  TPT_EQ_STR(e.msg, want);
  TPT_STATUS(tp_atomic_write_ex(ok, produce_fail, NULL, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "writing \"/tmp/tp_test_errors_y.bin\" failed (malformed input); no file was left");
  TPT_CHECK(stat(ok, &sb) != 0);
  TPT_STATUS(tp_atomic_write_ex(ok, produce_abc, NULL, &e), TP_OK); /* reset on entry */
  TPT_EQ_INT(e.status, TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_CHECK(stat(ok, &sb) == 0 && sb.st_size == 3);
  TPT_STATUS(tp_atomic_write_ex(ok, NULL, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "atomic write: produce is NULL");
  TPT_STATUS(tp_atomic_write_ex("", produce_abc, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "atomic write: the path is NULL or empty");
  TPT_STATUS(tp_atomic_write(bad, produce_abc, NULL), TP_ERR_IO); /* NULL err is fine */
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
  tp_tally tl;
  tp_sink tally;
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t), TP_OK);
  memset(g_data, 0, sizeof g_data);
  TPT_STATUS(tp_view(st, TP_I8, 1, sz, NULL, 0, &i8), TP_OK);
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
  tally = tp_sink_tally(&tl, NULL);
  TPT_STATUS(tp_sink_write(&tally, "x", 1), TP_ERR_INVALID);
  tally = tp_sink_tally(&tl, &nul);
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
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t), TP_OK);
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

/* ---- every object's _write_file: one helper (tp__write_file), the same sentences ---------- */

/* Cancels once more than half the bytes went out: the temp file has bytes by then. */
static int cancel_after_start(void *ctx, uint64_t done, uint64_t total) {
  (void)ctx;
  return done * 2 > total;
}

enum { OBJ_STORE, OBJ_PTE, OBJ_XNN, OBJ_VK, OBJ_COUNT };
static const char *const obj_fn[OBJ_COUNT] = {"tp_store_write_ptd_file", "tp_pte_write_file",
                                              "tp_xnn_write_file", "tp_vk_write_file"};

typedef struct wf_obj {
  int kind;
  tp_store *store;
  tp_pte *pte;
  tp_xnn_graph *xg;
  tp_vk_graph *vg;
} wf_obj;

/* One object of each kind with a 256-byte constant; progress cancels when `cancel`. */
static void wf_make(wf_obj *o, int kind, int cancel) {
  tp_tensor t;
  int64_t sz[1] = {64};
  size_t d1[1] = {64};
  tp_storage st;
  uint32_t id;
  memset(o, 0, sizeof *o);
  o->kind = kind;
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t), TP_OK);
  if (kind == OBJ_STORE) {
    tp_store_options so;
    memset(&so, 0, sizeof so);
    so.progress = cancel ? cancel_after_start : NULL;
    TPT_STATUS(tp_store_create_ex(&so, &o->store), TP_OK);
    TPT_STATUS(tp_store_add(o->store, "w", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  } else if (kind == OBJ_XNN || kind == OBJ_PTE) {
    tp_xnn_options xo;
    uint32_t x, y;
    memset(&xo, 0, sizeof xo);
    xo.progress = cancel && kind == OBJ_XNN ? cancel_after_start : NULL;
    TPT_STATUS(tp_xnn_graph_create(&xo, &o->xg), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(o->xg, TP_XNN_FP32, 1, d1, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(o->xg, TP_XNN_FP32, 1, NULL, &t, TP_XNN_INVALID_ID, 0,
                                          &id), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(o->xg, TP_XNN_FP32, 1, d1, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    TPT_STATUS(tp_xnn_define_add2(o->xg, -INFINITY, INFINITY, x, id, y, 0), TP_OK);
    if (kind == OBJ_PTE) {
      tp_pte_options po;
      memset(&po, 0, sizeof po);
      po.progress = cancel ? cancel_after_start : NULL;
      TPT_STATUS(tp_pte_create(&po, &o->pte), TP_OK);
      TPT_STATUS(tp_xnn_add_pte_method(o->pte, "forward", o->xg), TP_OK);
    }
  } else {
    tp_vk_options vo;
    memset(&vo, 0, sizeof vo);
    vo.progress = cancel ? cancel_after_start : NULL;
    TPT_STATUS(tp_vk_graph_create(&vo, &o->vg), TP_OK);
    TPT_STATUS(tp_vk_add_tensor(o->vg, TP_VK_FLOAT32, 1, NULL, &t, -1, -1, -1, TP_VK_UNSET, &id),
               TP_OK);
  }
}

static tp_status wf_write(wf_obj *o, const char *path) {
  switch (o->kind) {
    case OBJ_STORE: return tp_store_write_ptd_file(o->store, path);
    case OBJ_PTE: return tp_pte_write_file(o->pte, path);
    case OBJ_XNN: return tp_xnn_write_file(o->xg, path);
    default: return tp_vk_write_file(o->vg, path);
  }
}

static const char *wf_error(const wf_obj *o) {
  switch (o->kind) {
    case OBJ_STORE: return tp_store_error(o->store);
    case OBJ_PTE: return tp_pte_error(o->pte);
    case OBJ_XNN: return tp_xnn_graph_error(o->xg);
    default: return tp_vk_graph_error(o->vg);
  }
}

static void wf_free(wf_obj *o) {
  tp_pte_destroy(o->pte);
  tp_xnn_graph_destroy(o->xg);
  tp_vk_graph_destroy(o->vg);
  tp_store_destroy(o->store);
}

static int file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* No file at path and no temporary file beside it. */
static int nothing_left(const char *path) {
  char tmp[200];
  unsigned n;
  if (file_exists(path)) return 0;
  for (n = 0; n < 4; n++) {
    snprintf(tmp, sizeof tmp, "%s.tmp.%u", path, n);
    if (file_exists(tmp)) return 0;
  }
  return 1;
}

static const char *const cancel_text[OBJ_COUNT] = {
    "writing segment 0 of the .ptd (file offset 256): cancelled by the progress callback",
    "method \"forward\": writing its blob (segment 1, file offset 640) failed: cancelled by the "
    "progress callback",
    "write: the sink failed (cancelled by the progress callback) after 32 of the blob's 720 bytes",
    "cancelled by the progress callback"};

static void test_write_file_everywhere(void) {
  char dir[64], path[96], want[300];
  int k;
  snprintf(dir, sizeof dir, "/tmp/tp_test_errors_wf_%ld", (long)getpid());
  rmdir(dir);
  for (k = 0; k < OBJ_COUNT; k++) {
    wf_obj o;
    static const char *const ext[OBJ_COUNT] = {"ptd", "pte", "xnn", "vkblob"};
    snprintf(path, sizeof path, "%s/x.%s", dir, ext[k]);
    wf_make(&o, k, 0);
    /* a missing directory: the same sentence from every object, naming the path */
    TPT_STATUS(wf_write(&o, path), TP_ERR_IO);
    snprintf(want, sizeof want,
             "cannot create a temporary file beside \"%s\": No such file or directory (does its "
             "directory exist and is it writable?)", path);
    TPT_EQ_STR(wf_error(&o), want);
    TPT_CHECK(nothing_left(path));
    /* NULL and empty paths: TP_ERR_INVALID, "<fn>: the path is NULL or empty" */
    snprintf(want, sizeof want, "%s: the path is NULL or empty", obj_fn[k]);
    TPT_STATUS(wf_write(&o, NULL), TP_ERR_INVALID);
    TPT_EQ_STR(wf_error(&o), want);
    TPT_STATUS(wf_write(&o, ""), TP_ERR_INVALID);
    TPT_EQ_STR(wf_error(&o), want);
    /* fix the cause: the object was not killed, the retry writes and clears the sentence */
    TPT_CHECK(tpt_mkdir(dir) == 0);
    TPT_STATUS(wf_write(&o, path), TP_OK);
    TPT_EQ_STR(wf_error(&o), "");
    TPT_CHECK(file_exists(path));
    remove(path);
    wf_free(&o);
    /* a write stopped after its first bytes (progress cancels): no file, no temporary file */
    wf_make(&o, k, 1);
    TPT_STATUS(wf_write(&o, path), TP_ERR_CANCELLED);
    TPT_CHECK(nothing_left(path));
    /* the object's own sentence behind the path, or (Vulkan's write leaves none) the file's */
    snprintf(want, sizeof want, k == OBJ_VK ? "writing \"%s\" failed (%s); no file was left"
                                            : "writing \"%s\": %s", path, cancel_text[k]);
    TPT_EQ_STR(wf_error(&o), want);
    wf_free(&o);
    rmdir(dir);
  }
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
  TPT_RUN(test_write_file_everywhere);
  return tpt_finish("errors");
}
