/* bench_named: 1M named constants (issue 14, finding 10). An XNNPACK graph in named mode
   (options.store set) gets 1M small constants - 1M distinct 16-byte float views of one
   storage, so 1M sha256 keys and 1M store entries - defined with tp_xnn_define_tensor_value,
   then the blob is written (tp_xnn_write into memory) and the .ptd (tp_store_write_ptd into
   memory). The peer is the same 1M constants defined inline (no store) and the blob written,
   in the same rounds. Before the hashed key lookup every named define scanned every earlier
   constant (100k constants took 19 s); now the row is linear: the time per constant is in the
   case name.

   Rounds: ROUNDS interleaved (named, then inline), medians and ranges as bench_table.h; fewer
   than the usual 11 because one named round of 1M constants takes about a second. Target: the
   named path within 8x of the inline one (it adds a SHA-256 and a store entry per constant,
   a 64-character key in the blob, and the .ptd's entries and segments). */
#define _XOPEN_SOURCE 700
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "bench_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCONST 1000000u
#define ELEMS 4
#define ROUNDS 3

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *g_data;

static int fail(const char *what, tp_status st, const char *msg) {
  fprintf(stderr, "bench_named: %s: %s (%s)\n", what, tp_status_str(st), msg);
  return 1;
}

/* One round: defines NCONST constants (named when named != 0), writes the blob (and the .ptd);
   *bytes = blob + .ptd bytes. */
static int run(int named, double *secs, uint64_t *bytes) {
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_membuf blob, ptd;
  tp_sink sink;
  tp_storage s;
  tp_status rc;
  uint32_t i, id = 0;
  size_t dims = ELEMS;
  int64_t sz = ELEMS;
  double t0 = now();
  memset(&o, 0, sizeof o);
  memset(&blob, 0, sizeof blob);
  memset(&ptd, 0, sizeof ptd);
  if (named && tp_store_create(NULL, &st) != TP_OK) return fail("store", TP_ERR_NOMEM, "");
  o.store = st;
  /* constants only, no nodes: the graph rules (an unread constant) are not what is timed */
  o.target = TP_XNN_TARGET_UNCHECKED;
  rc = tp_xnn_graph_create(&o, &g);
  if (rc != TP_OK) return fail("graph", rc, "");
  s.data = g_data;
  s.nbytes = sizeof(float) * (size_t)NCONST * ELEMS;
  for (i = 0; i < NCONST; i++) {
    tp_tensor t;
    rc = tp_view(s, TP_F32, 1, &sz, NULL, (int64_t)i * ELEMS, &t, NULL);
    if (rc == TP_OK)
      rc = tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &dims, &t, TP_XNN_INVALID_ID, 0, &id);
    if (rc != TP_OK) return fail("define", rc, tp_xnn_graph_error(g));
  }
  sink = tp_sink_membuf(&blob);
  rc = tp_xnn_write(g, &sink);
  if (rc != TP_OK) return fail("blob", rc, tp_xnn_graph_error(g));
  if (named) {
    sink = tp_sink_membuf(&ptd);
    rc = tp_store_write_ptd(st, &sink);
    if (rc != TP_OK) return fail(".ptd", rc, tp_store_error(st));
  }
  *secs = now() - t0;
  *bytes = (uint64_t)blob.size + ptd.size;
  tp_xnn_graph_destroy(g);
  if (st) tp_store_destroy(st);
  tp_membuf_free(&blob);
  tp_membuf_free(&ptd);
  return 0;
}

int main(void) {
  double t_named[ROUNDS], t_inline[ROUNDS];
  uint64_t b_named = 0, b_inline = 0;
  size_t i, n = (size_t)NCONST * ELEMS;
  char name[200];
  int r;
  g_data = (float *)malloc(sizeof(float) * n);
  if (!g_data) return 1;
  for (i = 0; i < n; i++) g_data[i] = (float)i; /* every 4-float constant distinct */
  for (r = 0; r < ROUNDS; r++) {
    if (run(1, &t_named[r], &b_named) || run(0, &t_inline[r], &b_inline)) return 1;
  }
  snprintf(name, sizeof name,
           "1M named constants defined, blob + .ptd written (%.2f us/constant; %.0f MB; "
           "inline %.2f us/constant)",
           bt_median(t_named, ROUNDS) * 1e6 / NCONST, (double)b_named / 1e6,
           bt_median(t_inline, ROUNDS) * 1e6 / NCONST);
  bt_row(name, "1M inline", t_named, t_inline, NULL, ROUNDS, 8.0);
  free(g_data);
  return 0;
}
