/* The writer-object core (tensorpack.h, section 4, "writer objects"): the named-data store,
   the program, the XNNPACK graph and the Vulkan graph driven through one table of failures.
   Every row runs on a fresh object of each kind and asserts the same status and the same
   sentence for all four (with each object's own function names), that nothing latches but a
   building call, and that a retry after the failure writes exactly the bytes of a clean
   write. The rows: a NULL object (TP_ASSERT, checked in a child process where there is fork),
   a NULL sink or write callback, a NULL size_out, a NULL or empty path, a missing directory,
   a sink failing at byte 0 and midway, a progress callback cancelling at 0% and midway (into
   a sink and into a file), a building call from the object's own progress callback, and a
   failed write followed by tp_*_add_pte_method of the same healthy graph. */
#include <math.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <process.h>
#define tpt_mkdir(d) _mkdir(d)
#define getpid _getpid
#else
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#define tpt_mkdir(d) mkdir(d, 0700)
#endif
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

enum { W_STORE, W_PTE, W_XNN, W_VK, W_KINDS };
static const char *const fn_size[W_KINDS] = {"tp_store_ptd_size", "tp_pte_size",
                                             "tp_xnn_blob_size", "tp_vk_blob_size"};
static const char *const fn_write[W_KINDS] = {"tp_store_write_ptd", "tp_pte_write",
                                              "tp_xnn_write", "tp_vk_write"};
static const char *const fn_file[W_KINDS] = {"tp_store_write_ptd_file", "tp_pte_write_file",
                                             "tp_xnn_write_file", "tp_vk_write_file"};
/* The building call each object's progress callback tries, as its sentence names it. */
static const char *const busy_call[W_KINDS] = {
    "a tp_store_add* call", "a tp_pte_add_method call", "a tp_xnn_define_* or tp_xnn_set_* call",
    "a tp_vk_add_* call"};
static const char *const busy_object[W_KINDS] = {"store", "program", "graph", "graph"};

/* What the progress callback does. */
enum { P_NONE, P_CANCEL_START, P_CANCEL_MIDWAY, P_MUTATE };

typedef struct wobj {
  int kind;
  tp_store *store;
  tp_pte *pte;
  tp_xnn_graph *xg; /* the XNNPACK graph, or the program's method */
  tp_vk_graph *vg;
  int mode;            /* P_* */
  int calls;           /* progress reports */
  tp_status mutated;   /* what the building call from the callback returned */
} wobj;

static float g_data[64];

static tp_status w_mutate(wobj *o);

static int on_progress(void *ctx, uint64_t done, uint64_t total) {
  wobj *o = (wobj *)ctx;
  o->calls++;
  if (o->mode == P_CANCEL_START) return 1;
  if (o->mode == P_CANCEL_MIDWAY) return done * 2 > total;
  if (o->mode == P_MUTATE && done > 0 && o->mutated == TP_OK) o->mutated = w_mutate(o);
  return 0;
}

/* x -> add(x, 256-byte constant) -> y: the XNNPACK graph (progress: the object's own). Written
   for XNNPACK itself (target TP_XNN_TARGET_XNNPACK): ExecuTorch frees the blob after init and
   add reads its constant at execute, so target 0 refuses an inline constant there; these tests
   are about the writer objects, not that rule (test_xnn_support has it). */
static tp_xnn_graph *xnn_graph(const tp_tensor *t, wobj *progress_of) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options xo;
  size_t d1[1] = {64};
  uint32_t x, y, c;
  memset(&xo, 0, sizeof xo);
  xo.target = TP_XNN_TARGET_XNNPACK;
  if (progress_of) {
    xo.progress = on_progress;
    xo.progress_ctx = progress_of;
  }
  TPT_STATUS(tp_xnn_graph_create(&xo, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d1, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, t, TP_XNN_INVALID_ID, 0, &c),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d1, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_OK);
  return g;
}

/* One object of `kind` holding a 256-byte constant, its progress callback on_progress(o). */
static void w_make(wobj *o, int kind) {
  tp_tensor t;
  int64_t sz[1] = {64};
  tp_storage st;
  int i;
  memset(o, 0, sizeof *o);
  o->kind = kind;
  for (i = 0; i < 64; i++) g_data[i] = (float)i * 0.5f;
  st.data = g_data;
  st.nbytes = sizeof g_data;
  TPT_STATUS(tp_view(st, TP_F32, 1, sz, NULL, 0, &t, NULL), TP_OK);
  if (kind == W_STORE) {
    tp_store_options so;
    memset(&so, 0, sizeof so);
    so.progress = on_progress;
    so.progress_ctx = o;
    TPT_STATUS(tp_store_create(&so, &o->store), TP_OK);
    TPT_STATUS(tp_store_add(o->store, "w", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  } else if (kind == W_PTE) {
    tp_pte_options po;
    memset(&po, 0, sizeof po);
    po.progress = on_progress;
    po.progress_ctx = o;
    o->xg = xnn_graph(&t, NULL);
    TPT_STATUS(tp_pte_create(&po, &o->pte), TP_OK);
    TPT_STATUS(tp_xnn_add_pte_method(o->pte, "forward", o->xg), TP_OK);
  } else if (kind == W_XNN) {
    o->xg = xnn_graph(&t, o);
  } else {
    tp_vk_options vo;
    uint32_t id;
    memset(&vo, 0, sizeof vo);
    vo.progress = on_progress;
    vo.progress_ctx = o;
    TPT_STATUS(tp_vk_graph_create(&vo, &o->vg), TP_OK);
    TPT_STATUS(tpt_vk_tensor(o->vg, TP_VK_FLOAT32, 1, NULL, &t, &id), TP_OK);
  }
}

static void w_free(wobj *o) {
  tp_pte_destroy(o->pte);
  tp_xnn_graph_destroy(o->xg);
  tp_vk_graph_destroy(o->vg);
  tp_store_destroy(o->store);
}

static tp_status w_size(wobj *o, uint64_t *out) {
  switch (o->kind) {
    case W_STORE: return tp_store_ptd_size(o->store, out);
    case W_PTE: return tp_pte_size(o->pte, out);
    case W_XNN: return tp_xnn_blob_size(o->xg, out);
    default: return tp_vk_blob_size(o->vg, out);
  }
}
static tp_status w_write(wobj *o, tp_sink *sink) {
  switch (o->kind) {
    case W_STORE: return tp_store_write_ptd(o->store, sink);
    case W_PTE: return tp_pte_write(o->pte, sink);
    case W_XNN: return tp_xnn_write(o->xg, sink);
    default: return tp_vk_write(o->vg, sink);
  }
}
static tp_status w_file(wobj *o, const char *path) {
  switch (o->kind) {
    case W_STORE: return tp_store_write_ptd_file(o->store, path);
    case W_PTE: return tp_pte_write_file(o->pte, path);
    case W_XNN: return tp_xnn_write_file(o->xg, path);
    default: return tp_vk_write_file(o->vg, path);
  }
}
static tp_status w_status(const wobj *o) {
  switch (o->kind) {
    case W_STORE: return tp_store_status(o->store);
    case W_PTE: return tp_pte_status(o->pte);
    case W_XNN: return tp_xnn_graph_status(o->xg);
    default: return tp_vk_graph_status(o->vg);
  }
}
static const char *w_error(const wobj *o) {
  switch (o->kind) {
    case W_STORE: return tp_store_error(o->store);
    case W_PTE: return tp_pte_error(o->pte);
    case W_XNN: return tp_xnn_graph_error(o->xg);
    default: return tp_vk_graph_error(o->vg);
  }
}
/* A building call of the object (what a callback must not do during the write). */
static tp_status w_mutate(wobj *o) {
  size_t d1[1] = {4};
  uint32_t id;
  tp_pte_method m;
  switch (o->kind) {
    case W_STORE: return tp_store_add_bytes(o->store, "late", "abc", 3, 0, 1, NULL);
    case W_PTE:
      memset(&m, 0, sizeof m);
      m.name = "late";
      return tp_pte_add_method(o->pte, &m);
    case W_XNN:
      return tp_xnn_define_tensor_value(o->xg, TP_XNN_FP32, 1, d1, NULL, TP_XNN_INVALID_ID, 0,
                                        &id);
    default: return tp_vk_add_int(o->vg, 1, NULL);
  }
}

/* A sink taking `budget` bytes into a membuf, then failing every write with TP_ERR_IO. */
typedef struct budget_sink {
  tp_membuf mb;
  uint64_t budget;
} budget_sink;
static tp_status budget_write(void *ctx, const void *data, size_t n) {
  budget_sink *b = (budget_sink *)ctx;
  tp_sink inner = tp_sink_membuf(&b->mb);
  if ((uint64_t)n > b->budget) return TP_ERR_IO;
  b->budget -= (uint64_t)n;
  return tp_sink_write(&inner, data, n);
}

/* The clean bytes of a fresh object of `kind` (and its size). */
static tp_membuf g_clean[W_KINDS];

static void clean_bytes(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    tp_sink s;
    uint64_t n = 0;
    w_make(&o, k);
    memset(&g_clean[k], 0, sizeof g_clean[k]);
    s = tp_sink_membuf(&g_clean[k]);
    TPT_STATUS(w_write(&o, &s), TP_OK);
    TPT_STATUS(w_size(&o, &n), TP_OK);
    TPT_EQ_U64(n, g_clean[k].size);
    TPT_CHECK(o.calls >= 2); /* the progress option is wired: 0% and 100% at least */
    w_free(&o);
  }
}

/* After a transient failure: the status and sentence stay until the next size / write call,
   which succeeds with the clean bytes and clears them. */
static void retry_is_clean(wobj *o, tp_status failed, const char *sentence) {
  tp_membuf m;
  tp_sink s;
  uint64_t n = 0;
  TPT_STATUS(w_status(o), failed);
  TPT_EQ_STR(w_error(o), sentence);
  memset(&m, 0, sizeof m);
  s = tp_sink_membuf(&m);
  o->mode = P_NONE;
  TPT_STATUS(w_write(o, &s), TP_OK);
  TPT_STATUS(w_status(o), TP_OK);
  TPT_EQ_STR(w_error(o), "");
  TPT_EQ_U64(m.size, g_clean[o->kind].size);
  if (m.size == g_clean[o->kind].size) TPT_MEMEQ(m.data, g_clean[o->kind].data, m.size);
  TPT_STATUS(w_size(o, &n), TP_OK);
  TPT_EQ_U64(n, g_clean[o->kind].size);
  tp_membuf_free(&m);
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

/* The file's bytes are the clean write's. */
static int file_is_clean(const char *path, int kind) {
  unsigned char buf[4096];
  size_t n;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return n == g_clean[kind].size && memcmp(buf, g_clean[kind].data, n) == 0;
}

static char g_dir[64];

/* ---- the rows ----------------------------------------------------------------------------- */

static void test_null_sink(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    tp_sink nowrite;
    char want[200];
    w_make(&o, k);
    snprintf(want, sizeof want, "%s: the sink or its write callback is NULL", fn_write[k]);
    TPT_STATUS(w_write(&o, NULL), TP_ERR_INVALID);
    TPT_EQ_INT(o.calls, 0); /* refused before any report */
    retry_is_clean(&o, TP_ERR_INVALID, want);
    nowrite.write = NULL;
    nowrite.ctx = NULL;
    TPT_STATUS(w_write(&o, &nowrite), TP_ERR_INVALID);
    retry_is_clean(&o, TP_ERR_INVALID, want);
    w_free(&o);
  }
}

static void test_null_size_out(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    char want[200];
    w_make(&o, k);
    snprintf(want, sizeof want, "%s: size_out is NULL", fn_size[k]);
    TPT_STATUS(w_size(&o, NULL), TP_ERR_INVALID);
    retry_is_clean(&o, TP_ERR_INVALID, want);
    w_free(&o);
  }
}

static void test_null_and_empty_path(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    char want[200];
    w_make(&o, k);
    snprintf(want, sizeof want, "%s: the path is NULL or empty", fn_file[k]);
    TPT_STATUS(w_file(&o, NULL), TP_ERR_INVALID);
    TPT_STATUS(w_status(&o), TP_ERR_INVALID);
    TPT_EQ_STR(w_error(&o), want);
    TPT_STATUS(w_file(&o, ""), TP_ERR_INVALID);
    retry_is_clean(&o, TP_ERR_INVALID, want);
    w_free(&o);
  }
}

static void test_missing_directory(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    char path[128], want[400];
    rmdir(g_dir);
    snprintf(path, sizeof path, "%s/x.bin", g_dir);
    w_make(&o, k);
    TPT_STATUS(w_file(&o, path), TP_ERR_IO);
    snprintf(want, sizeof want,
             "%s: cannot create a temporary file beside \"%s\": No such file or directory (does "
             "its directory exist and is it writable?)", fn_file[k], path);
    TPT_EQ_STR(w_error(&o), want);
    TPT_CHECK(nothing_left(path));
    TPT_EQ_INT(o.calls, 0); /* no byte went anywhere */
    /* fix the cause: the same object writes the file, with the clean bytes */
    TPT_CHECK(tpt_mkdir(g_dir) == 0);
    TPT_STATUS(w_file(&o, path), TP_OK);
    TPT_EQ_STR(w_error(&o), "");
    TPT_CHECK(file_is_clean(path, k));
    remove(path);
    retry_is_clean(&o, TP_OK, "");
    rmdir(g_dir);
    w_free(&o);
  }
}

static void test_sink_fails(void) {
  int k, where;
  for (k = 0; k < W_KINDS; k++)
    for (where = 0; where < 2; where++) { /* at byte 0; midway */
      wobj o;
      budget_sink b;
      tp_sink s;
      char want[200];
      uint64_t total = g_clean[k].size;
      w_make(&o, k);
      memset(&b, 0, sizeof b);
      b.budget = where == 0 ? 0 : total / 2;
      s.write = budget_write;
      s.ctx = &b;
      TPT_STATUS(w_write(&o, &s), TP_ERR_IO);
      if (where == 0) TPT_EQ_U64(b.mb.size, 0);
      else TPT_CHECK(b.mb.size > 0 && b.mb.size <= total / 2);
      TPT_MEMEQ(b.mb.data, g_clean[k].data, b.mb.size); /* what went out was right */
      snprintf(want, sizeof want, "%s: the sink failed (i/o error) at byte %llu of %llu",
               fn_write[k], (unsigned long long)b.mb.size, (unsigned long long)total);
      retry_is_clean(&o, TP_ERR_IO, want);
      tp_membuf_free(&b.mb);
      w_free(&o);
    }
}

static void test_progress_cancels(void) {
  int k, mode, to_file;
  for (k = 0; k < W_KINDS; k++)
    for (mode = P_CANCEL_START; mode <= P_CANCEL_MIDWAY; mode++)
      for (to_file = 0; to_file < 2; to_file++) {
        wobj o;
        tp_membuf m;
        tp_sink s;
        char want[400], path[128];
        uint64_t total = g_clean[k].size, at = 0;
        w_make(&o, k);
        o.mode = mode;
        memset(&m, 0, sizeof m);
        if (to_file) {
          TPT_CHECK(tpt_mkdir(g_dir) == 0);
          snprintf(path, sizeof path, "%s/x.bin", g_dir);
          TPT_STATUS(w_file(&o, path), TP_ERR_CANCELLED);
          TPT_CHECK(nothing_left(path));
          rmdir(g_dir);
          /* where it stopped: the sentence's number (the bytes the file took) */
          {
            const char *e = strstr(w_error(&o), " at byte ");
            if (e) at = strtoull(e + 9, NULL, 10);
          }
          snprintf(want, sizeof want, "%s: writing \"%s\" was cancelled by the progress "
                   "callback at byte %llu of %llu; no file was left", fn_file[k], path,
                   (unsigned long long)at, (unsigned long long)total);
        } else {
          s = tp_sink_membuf(&m);
          TPT_STATUS(w_write(&o, &s), TP_ERR_CANCELLED);
          at = m.size;
          TPT_MEMEQ(m.data, g_clean[k].data, m.size);
          snprintf(want, sizeof want, "%s: cancelled by the progress callback at byte %llu of "
                   "%llu", fn_write[k], (unsigned long long)at, (unsigned long long)total);
        }
        if (mode == P_CANCEL_START) {
          TPT_EQ_U64(at, 0);
          TPT_EQ_INT(o.calls, 1);
        } else {
          TPT_CHECK(at * 2 > total && at <= total);
        }
        retry_is_clean(&o, TP_ERR_CANCELLED, want);
        tp_membuf_free(&m);
        w_free(&o);
      }
}

/* A building call from the object's own progress callback is refused and latched (building
   calls latch); the write it interrupted goes on and writes the clean bytes. */
static void test_mutation_from_progress(void) {
  int k;
  for (k = 0; k < W_KINDS; k++) {
    wobj o;
    tp_membuf m;
    tp_sink s;
    char want[300];
    uint64_t n = 1;
    w_make(&o, k);
    o.mode = P_MUTATE;
    memset(&m, 0, sizeof m);
    s = tp_sink_membuf(&m);
    TPT_STATUS(w_write(&o, &s), TP_OK);
    TPT_STATUS(o.mutated, TP_ERR_INVALID);
    TPT_EQ_U64(m.size, g_clean[k].size);
    if (m.size == g_clean[k].size) TPT_MEMEQ(m.data, g_clean[k].data, m.size);
    snprintf(want, sizeof want, "%s during its own write (from the progress callback): the %s "
             "cannot change while it is written", busy_call[k], busy_object[k]);
    TPT_STATUS(w_status(&o), TP_ERR_INVALID);
    TPT_EQ_STR(w_error(&o), want);
    /* latched: every later size / write returns it and writes nothing */
    tp_membuf_free(&m);
    s = tp_sink_membuf(&m);
    o.mode = P_NONE;
    TPT_STATUS(w_write(&o, &s), TP_ERR_INVALID);
    TPT_EQ_U64(m.size, 0);
    TPT_STATUS(w_size(&o, &n), TP_ERR_INVALID);
    TPT_EQ_U64(n, 0);
    TPT_STATUS(w_file(&o, NULL), TP_ERR_INVALID);
    TPT_EQ_STR(w_error(&o), want);
    tp_membuf_free(&m);
    w_free(&o);
  }
}

/* A failed write of a graph is no reason for a program to refuse it: the graph is healthy. */
static void test_failed_write_keeps_graph_usable(void) {
  int k;
  for (k = W_XNN; k <= W_VK; k++) {
    wobj o;
    tp_pte *p = NULL;
    char path[128];
    uint64_t n = 0;
    snprintf(path, sizeof path, "%s/x.bin", g_dir);
    rmdir(g_dir);
    w_make(&o, k);
    TPT_STATUS(w_file(&o, path), TP_ERR_IO);
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(k == W_XNN ? tp_xnn_add_pte_method(p, "forward", o.xg)
                          : tp_vk_add_pte_method(p, "forward", o.vg, NULL), TP_OK);
    TPT_STATUS(tp_pte_size(p, &n), TP_OK);
    /* and the program's own failed write is no reason either */
    TPT_STATUS(tp_pte_write_file(p, path), TP_ERR_IO);
    TPT_STATUS(k == W_XNN ? tp_xnn_add_pte_method(p, "again", o.xg)
                          : tp_vk_add_pte_method(p, "again", o.vg, NULL), TP_OK);
    TPT_EQ_U64(tp_pte_method_count(p), 2);
    tp_pte_destroy(p);
    w_free(&o);
  }
}

#ifndef _WIN32
static const char *const k_name[W_KINDS] = {"store", "program", "XNNPACK graph", "Vulkan graph"};

/* A NULL object is misuse: TP_ASSERT stops the program (in a child process here). */
static int stops_on_null(int kind, int call) {
  pid_t pid;
  int st = 0;
  fflush(stdout);
  fflush(stderr);
  pid = fork();
  if (pid == 0) {
    wobj o;
    tp_membuf m;
    tp_sink s;
    uint64_t n;
    memset(&o, 0, sizeof o);
    memset(&m, 0, sizeof m);
    o.kind = kind;
    s = tp_sink_membuf(&m);
    if (!freopen("/dev/null", "w", stderr)) _exit(3);
    if (call == 0) (void)w_size(&o, &n);
    else if (call == 1) (void)w_write(&o, &s);
    else (void)w_file(&o, "x.bin");
    _exit(0);
  }
  if (pid < 0) return 0;
  if (waitpid(pid, &st, 0) != pid) return 0;
  return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}
#endif

static void test_null_object(void) {
#ifndef _WIN32
  int k, call;
  for (k = 0; k < W_KINDS; k++)
    for (call = 0; call < 3; call++) {
      if (!stops_on_null(k, call)) {
        char what[160];
        snprintf(what, sizeof what, "the %s's %s call with a NULL object did not stop in "
                 "TP_ASSERT", k_name[k], call == 0 ? "size" : call == 1 ? "write" : "write_file");
        tpt_fail_at(__FILE__, __LINE__, what);
      }
    }
#endif
}

int main(void) {
  int k;
  (void)tpt_range;
  snprintf(g_dir, sizeof g_dir, "tp_test_writers_%ld", (long)getpid());
  TPT_RUN(clean_bytes);
  TPT_RUN(test_null_object);
  TPT_RUN(test_null_sink);
  TPT_RUN(test_null_size_out);
  TPT_RUN(test_null_and_empty_path);
  TPT_RUN(test_missing_directory);
  TPT_RUN(test_sink_fails);
  TPT_RUN(test_progress_cancels);
  TPT_RUN(test_mutation_from_progress);
  TPT_RUN(test_failed_write_keeps_graph_usable);
  for (k = 0; k < W_KINDS; k++) tp_membuf_free(&g_clean[k]);
  return tpt_finish("writers");
}
