/* Concurrent writers and readers under ThreadSanitizer (mk/platforms.mk builds this with
   -fsanitize=thread; the suite fails on any report, as TSan exits non-zero).
   THREADS threads start at once (cold SHA-256 cpuid cache: the first hashes race for it) and
   each, ROUNDS times, over the same borrowed (read-only) storage:
     - builds an XNNPACK graph inline and one in named mode with its own store, writes both
       blobs and the .ptd, checks the blob with tpdump's reader and the .ptd with tp_ptd_open;
     - builds a Vulkan graph inline and one in named mode, writes them, reads them back with
       tp_vk_read_blob (the named one through its .ptd);
     - writes the .ptd to its own file and to one file shared by every thread (tp_atomic_write:
       exclusive temp files, rename over; the Vulkan store, the same in every thread), and
       reads the shared file back: always whole.
   The harness's counters are not thread-safe: threads record what they saw, main checks it
   after joining. Every thread's bytes must equal the ones main writes alone afterwards. */
#define _POSIX_C_SOURCE 200809L
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#define TPDUMP_NO_MAIN
#include "../tools/tpdump.c"
#include "tp_test.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { THREADS = 6, ROUNDS = 40, NOUT = 4 };

static float g_w[3 * 64 * 64]; /* shared, read-only while threads run */
static char g_shared[256];      /* the .ptd every thread writes */
static char g_dir[128];

/* What one round produces: blobs, a .ptd; the outputs compared against main's. */
typedef struct outputs {
  tp_membuf blob[NOUT]; /* xnn inline, xnn named, vk inline, vk named */
  tp_membuf ptd[2];     /* the xnn and the vk store */
} outputs;

typedef struct worker {
  int id;
  int errors;       /* failed calls / checks */
  char first[300];  /* the first one */
  long shared_reads, shared_whole;
  outputs out;      /* the last round's bytes */
} worker;

static void fail(worker *w, const char *what, const char *detail) {
  if (w->errors++ == 0) snprintf(w->first, sizeof w->first, "%s: %s", what, detail);
}
#define CHECK_OK(w, expr, obj_err)                                                     \
  do {                                                                                 \
    tp_status s_ = (expr);                                                             \
    if (s_ != TP_OK) fail(w, #expr, obj_err);                                          \
  } while (0)

static tp_tensor view_of(int64_t offset, int transpose) {
  tp_storage st;
  tp_tensor t, u;
  int64_t sz[3] = {3, 64, 64};
  st.data = g_w;
  st.nbytes = sizeof g_w;
  tp_view(st, TP_F32, 3, sz, NULL, 0, &t, NULL);
  tp_select(&t, 0, offset, &u, NULL);
  if (transpose) tp_transpose(&u, 0, 1, &u, NULL);
  return u;
}

/* y = x W^T + b with W a 64x64 slice of g_w (transposed or not), b a row of another slice. */
static tp_status xnn_write(tp_store *store, int transpose, tp_membuf *out) {
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  tp_tensor w = view_of(1, transpose), b = view_of(2, 0);
  size_t xd[2] = {2, 64}, wd[2] = {64, 64}, bd[1] = {64}, yd[2] = {2, 64};
  uint32_t x, wt, bt, y;
  tp_sink sink;
  tp_status s;
  memset(&o, 0, sizeof o);
  o.store = store;
  tp_select(&b, 0, 5, &b, NULL);
  if ((s = tp_xnn_graph_create(&o, &g)) != TP_OK) return s;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, wd, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, bd, &b, TP_XNN_INVALID_ID, 0, &bt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, bt, y, 0);
  sink = tp_sink_membuf(out);
  s = tp_xnn_write(g, &sink);
  tp_xnn_graph_destroy(g);
  return s;
}

static tp_status vk_write(tp_store *store, tp_membuf *out) {
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_tensor w = view_of(0, 1);
  size_t xd[2] = {1, 64}, yd[2] = {1, 64};
  uint32_t x, wid, bias, y, args[4];
  tp_sink sink;
  tp_status s;
  memset(&o, 0, sizeof o);
  o.store = store;
  if ((s = tp_vk_graph_create(&o, &g)) != TP_OK) return s;
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &x);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &wid);
  tp_vk_add_null(g, &bias);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &y);
  args[0] = x; args[1] = wid; args[2] = bias; args[3] = y;
  tp_vk_add_op(g, 1, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &x, 1, &y, 1);
  sink = tp_sink_membuf(out);
  s = tp_vk_write(g, &sink);
  tp_vk_graph_destroy(g);
  return s;
}

static void outputs_free(outputs *o) {
  int k;
  for (k = 0; k < NOUT; k++) tp_membuf_free(&o->blob[k]);
  for (k = 0; k < 2; k++) tp_membuf_free(&o->ptd[k]);
}

/* One round: everything written into o (freed first), read back; errors into w. */
static void round_trip(worker *w, outputs *o) {
  tp_store *xs = NULL, *vs = NULL;
  tp_sink sink;
  tp_error err;
  tp_ptd p;
  tp_ptd_entry e;
  tp_vk_blob rb;
  char hex[65], path[300];
  outputs_free(o);
  memset(o, 0, sizeof *o);
  memset(&err, 0, sizeof err);
  CHECK_OK(w, tp_store_create(NULL, &xs), "");
  CHECK_OK(w, tp_store_create(NULL, &vs), "");
  if (!xs || !vs) goto done;
  CHECK_OK(w, xnn_write(NULL, w->id % 2, &o->blob[0]), "xnn inline");
  CHECK_OK(w, xnn_write(xs, w->id % 2, &o->blob[1]), "xnn named");
  CHECK_OK(w, vk_write(NULL, &o->blob[2]), "vk inline");
  CHECK_OK(w, vk_write(vs, &o->blob[3]), "vk named");
  sink = tp_sink_membuf(&o->ptd[0]);
  CHECK_OK(w, tp_store_write_ptd(xs, &sink), tp_store_error(xs));
  sink = tp_sink_membuf(&o->ptd[1]);
  CHECK_OK(w, tp_store_write_ptd(vs, &sink), tp_store_error(vs));
  /* read back: tpdump's XNNPACK reader (named constants resolved in the .ptd) */
  if (tpdump_inspect(o->blob[0].data, o->blob[0].size, NULL, &err) != 0) fail(w, "tpdump xnn inline", err.msg);
  if (tpdump_inspect_with(o->blob[1].data, o->blob[1].size, o->ptd[0].data, o->ptd[0].size,
                          NULL, &err) != 0)
    fail(w, "tpdump xnn named", err.msg);
  if (tp_ptd_open(&p, o->ptd[0].data, o->ptd[0].size) != TP_OK || p.count != 2)
    fail(w, "tp_ptd_open", p.err.msg);
  /* the bias row's key is the SHA-256 of its bytes (little-endian floats) */
  {
    unsigned char le[256];
    tpt_to_le(le, g_w + 2 * 4096 + 5 * 64, 64, 4);
    tp_sha256_hex(le, sizeof le, hex);
    if (tp_ptd_find(&p, hex, &e) != TP_OK || e.nbytes != 256 || memcmp(e.data, le, 256) != 0)
      fail(w, "tp_ptd_find bias", hex);
  }
  /* Vulkan readers */
  if (tp_vk_read_blob(o->blob[2].data, o->blob[2].size, NULL, &rb, &err) != TP_OK ||
      rb.num_values != 4 || !rb.values[1].is_constant || rb.values[1].nbytes != 64 * 64 * 4)
    fail(w, "tp_vk_read_blob inline", err.msg);
  tp_vk_blob_free(&rb);
  if (tp_ptd_open(&p, o->ptd[1].data, o->ptd[1].size) != TP_OK) fail(w, "tp_ptd_open vk", p.err.msg);
  if (tp_vk_read_blob(o->blob[3].data, o->blob[3].size, &p, &rb, &err) != TP_OK ||
      rb.num_values != 4 || !rb.values[1].key)
    fail(w, "tp_vk_read_blob named", err.msg);
  tp_vk_blob_free(&rb);
  /* files: its own, then the shared one (every thread writes the same bytes there) */
  snprintf(path, sizeof path, "%s/own-%d.ptd", g_dir, w->id);
  CHECK_OK(w, tp_store_write_ptd_file(xs, path), tp_store_error(xs));
  remove(path);
  CHECK_OK(w, tp_store_write_ptd_file(vs, g_shared), tp_store_error(vs));
done:
  tp_store_destroy(xs);
  tp_store_destroy(vs);
}

/* Reads the shared file: it is absent (before the first commit) or whole, never partial. */
static void read_shared(worker *w, const tp_membuf *want) {
  static const size_t cap = 1 << 20;
  unsigned char *buf = (unsigned char *)malloc(cap);
  FILE *f = fopen(g_shared, "rb");
  size_t n;
  w->shared_reads++;
  if (!f || !buf) {
    free(buf);
    if (f) fclose(f);
    return;
  }
  n = fread(buf, 1, cap, f);
  fclose(f);
  if (n == want->size && memcmp(buf, want->data, n) == 0) w->shared_whole++;
  else fail(w, "shared .ptd", "read a file that is not the whole .ptd");
  free(buf);
}

static void *work(void *arg) {
  worker *w = (worker *)arg;
  int r;
  char hex[65];
  /* first thing: hash (the cpuid cache is cold; every thread races to fill it) */
  tp_sha256_hex(g_w, sizeof g_w, hex);
  for (r = 0; r < ROUNDS; r++) {
    round_trip(w, &w->out);
    if (w->out.ptd[1].size) read_shared(w, &w->out.ptd[1]);
  }
  return NULL;
}

static void test_threads(void) {
  pthread_t th[THREADS];
  static worker w[THREADS];
  worker ref;
  int i, k, started = 0;
  for (i = 0; i < THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].id = i;
    if (pthread_create(&th[i], NULL, work, &w[i]) == 0) started++;
    else break;
  }
  TPT_EQ_INT(started, THREADS);
  for (i = 0; i < started; i++) pthread_join(th[i], NULL);
  /* main alone, with the same calls: the reference bytes (thread ids 0 and 1 differ in W) */
  for (k = 0; k < 2; k++) {
    memset(&ref, 0, sizeof ref);
    ref.id = k;
    round_trip(&ref, &ref.out);
    TPT_EQ_INT(ref.errors, 0);
    for (i = k; i < started; i += 2) {
      int j;
      if (w[i].errors) printf("  thread %d: %d errors, first: %s\n", i, w[i].errors, w[i].first);
      TPT_EQ_INT(w[i].errors, 0);
      TPT_EQ_INT(w[i].shared_reads, ROUNDS);
      TPT_CHECK(w[i].shared_whole > 0);
      for (j = 0; j < NOUT; j++) {
        TPT_EQ_U64(w[i].out.blob[j].size, ref.out.blob[j].size);
        TPT_MEMEQ(w[i].out.blob[j].data, ref.out.blob[j].data, ref.out.blob[j].size);
      }
      for (j = 0; j < 2; j++) {
        TPT_EQ_U64(w[i].out.ptd[j].size, ref.out.ptd[j].size);
        TPT_MEMEQ(w[i].out.ptd[j].data, ref.out.ptd[j].data, ref.out.ptd[j].size);
      }
    }
    outputs_free(&ref.out);
  }
  {
    long whole = 0;
    for (i = 0; i < started; i++) whole += w[i].shared_whole;
    printf("  %d threads x %d rounds; %lu-byte XNNPACK blob, %lu-byte .ptd; the shared file read "
           "whole %ld times\n", started, ROUNDS, (unsigned long)w[0].out.blob[0].size,
           (unsigned long)w[0].out.ptd[0].size, whole);
  }
  /* the two W orders give different blobs: the comparison above can fail */
  for (i = 0; i < started; i++) outputs_free(&w[i].out);
  {
    tp_membuf a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    TPT_STATUS(xnn_write(NULL, 0, &a), TP_OK);
    TPT_STATUS(xnn_write(NULL, 1, &b), TP_OK);
    TPT_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) != 0);
    tp_membuf_free(&a);
    tp_membuf_free(&b);
  }
  /* no temp file left beside the shared one */
  {
    char tmp[300];
    FILE *f;
    for (k = 0; k < 64; k++) {
      snprintf(tmp, sizeof tmp, "%s.tmp.%d", g_shared, k);
      f = fopen(tmp, "rb");
      TPT_CHECK(f == NULL);
      if (f) fclose(f);
    }
  }
  remove(g_shared);
}

int main(void) {
  size_t i;
  for (i = 0; i < sizeof g_w / sizeof g_w[0]; i++) g_w[i] = (float)(int)(tpt_rand() % 2001) / 1000.0f - 1.0f;
  snprintf(g_dir, sizeof g_dir, "/tmp/tp_tsan_XXXXXX");
  if (!mkdtemp(g_dir)) {
    printf("cannot create a directory under /tmp\n");
    return 1;
  }
  snprintf(g_shared, sizeof g_shared, "%s/shared.ptd", g_dir);
  (void)tpt_range;
  (void)tpdump_inspect_json;
  TPT_RUN(test_threads);
  rmdir(g_dir);
  return tpt_finish("tsan_concurrency");
}
