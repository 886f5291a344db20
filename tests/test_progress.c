/* Progress callbacks: tp_sink_progress (reports at the start, about every 1%, and at the end;
   a non-zero return cancels with TP_ERR_CANCELLED) and the writers wired to it through their
   options (tp_store_options, tp_xnn_options, tp_vk_options .progress): the same bytes with or
   without it, and a cancel at any report leaves no file and a sentence / status. */
#include <math.h>
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>

typedef struct rec {
  uint64_t done[512], total;
  int n, cancel_at;   /* cancel_at < 0: never */
} rec;

static int on_progress(void *ctx, uint64_t done, uint64_t total) {
  rec *r = (rec *)ctx;
  if (r->n < 512) r->done[r->n] = done;
  r->total = total;
  return r->n++ == r->cancel_at;
}

static void test_sink_progress(void) {
  tp_membuf m = {NULL, 0, 0};
  tp_sink inner = tp_sink_membuf(&m), s;
  tp_progress p;
  rec r;
  unsigned char buf[10] = {0};
  int i, bad = 0;
  memset(&r, 0, sizeof r);
  r.cancel_at = -1;
  s = tp_sink_progress(&p, &inner, 1000, on_progress, &r);
  for (i = 0; i < 100; i++) TPT_STATUS(tp_sink_write(&s, buf, 10), TP_OK);
  TPT_EQ_U64(m.size, 1000);
  TPT_EQ_INT(r.n, 101);            /* the start, then every 10 bytes (1% of 1000) */
  TPT_EQ_U64(r.done[0], 0);
  TPT_EQ_U64(r.done[100], 1000);
  TPT_EQ_U64(r.total, 1000);
  for (i = 1; i < r.n && i < 512; i++) bad += r.done[i] <= r.done[i - 1];
  TPT_EQ_INT(bad, 0);
  /* small writes are not reported one by one */
  memset(&r, 0, sizeof r);
  r.cancel_at = -1;
  s = tp_sink_progress(&p, &inner, 100000, on_progress, &r);
  for (i = 0; i < 10000; i++) TPT_STATUS(tp_sink_write(&s, buf, 10), TP_OK);
  TPT_EQ_INT(r.n, 101);
  TPT_EQ_U64(r.done[r.n - 1], 100000);
  /* cancel at the start: nothing reaches inner; every later write is refused too */
  m.size = 0;
  memset(&r, 0, sizeof r);
  r.cancel_at = 0;
  s = tp_sink_progress(&p, &inner, 20, on_progress, &r);
  TPT_STATUS(tp_sink_write(&s, buf, 10), TP_ERR_CANCELLED);
  TPT_EQ_U64(m.size, 0);
  TPT_EQ_INT(p.cancelled, 1);
  TPT_STATUS(tp_sink_write(&s, buf, 10), TP_ERR_CANCELLED);
  TPT_EQ_INT(r.n, 1);
  TPT_EQ_STR(tp_status_str(TP_ERR_CANCELLED), "cancelled by the progress callback");
  /* no callback: a plain pass-through */
  s = tp_sink_progress(&p, &inner, 0, NULL, NULL);
  TPT_STATUS(tp_sink_write(&s, buf, 10), TP_OK);
  TPT_EQ_U64(m.size, 10);
  tp_membuf_free(&m);
}

static float g_w[3][1024];

static tp_store *make_store(rec *r) {
  tp_store_options o;
  tp_store *s = NULL;
  int k;
  memset(&o, 0, sizeof o);
  if (r) {
    o.progress = on_progress;
    o.progress_ctx = r;
  }
  if (tp_store_create(&o, &s) != TP_OK) return NULL;
  for (k = 0; k < 3; k++) {
    tp_storage st;
    tp_tensor t;
    int64_t n = 1024;
    char key[16];
    st.data = g_w[k];
    st.nbytes = sizeof g_w[k];
    snprintf(key, sizeof key, "w%d", k);
    if (tp_view(st, TP_F32, 1, &n, NULL, 0, &t, NULL) != TP_OK ||
        tp_store_add(s, key, &t, TP_ORDER_ROW_MAJOR, 0, NULL) != TP_OK) {
      tp_store_destroy(s);
      return NULL;
    }
  }
  return s;
}

static int dir_has_prefix(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  if (!d) return 0;
  while ((e = readdir(d)) != NULL)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) found = 1;
  closedir(d);
  return found;
}

static void test_store_progress_and_cancel(void) {
  tp_store *plain = make_store(NULL), *s;
  tp_membuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
  tp_sink sa = tp_sink_membuf(&a), sb = tp_sink_membuf(&b);
  rec r;
  uint64_t total = 0;
  int calls, k;
  const char *dir = ".", *path = "tp_test_progress.ptd";   /* the current directory: any OS */
  TPT_CHECK(plain != NULL);
  if (!plain) return;
  memset(&r, 0, sizeof r);
  r.cancel_at = -1;
  s = make_store(&r);
  TPT_STATUS(tp_store_write_ptd(plain, &sa), TP_OK);
  TPT_STATUS(tp_store_write_ptd(s, &sb), TP_OK);
  TPT_STATUS(tp_store_ptd_size(s, &total), TP_OK);
  TPT_EQ_U64(a.size, b.size);
  if (a.size == b.size) TPT_MEMEQ(a.data, b.data, a.size);   /* progress changes no byte */
  TPT_EQ_U64(r.total, total);
  TPT_EQ_U64(r.done[0], 0);
  TPT_EQ_U64(r.done[r.n - 1], total);
  calls = r.n;
  TPT_CHECK(calls >= 4);   /* start, the header part, each of the 3 segments */
  tp_store_destroy(s);
  remove(path);
  for (k = 0; k < calls; k++) {
    FILE *f;
    memset(&r, 0, sizeof r);
    r.cancel_at = k;
    s = make_store(&r);
    if (!s) break;
    TPT_STATUS(tp_store_write_ptd_file(s, path), TP_ERR_CANCELLED);
    f = fopen(path, "rb");
    TPT_CHECK(f == NULL);   /* no file */
    if (f) fclose(f);
    TPT_CHECK(!dir_has_prefix(dir, "tp_test_progress.ptd"));   /* and no temporary beside it */
    TPT_CONTAINS(tp_store_error(s), " was cancelled by the progress callback at byte ");
    if (k == 0 || k == calls - 1) { /* before the first byte; after the last (the writer core) */
      char want[200];
      snprintf(want, sizeof want, "tp_store_write_ptd_file: writing \"tp_test_progress.ptd\" was "
               "cancelled by the progress callback at byte %llu of %llu; no file was left",
               (unsigned long long)(k == 0 ? 0 : total), (unsigned long long)total);
      TPT_EQ_STR(tp_store_error(s), want);
    }
    TPT_EQ_INT(r.n, k + 1);   /* no report after the cancel */
    tp_store_destroy(s);
  }
  /* and without a cancel the file is written */
  memset(&r, 0, sizeof r);
  r.cancel_at = -1;
  s = make_store(&r);
  TPT_STATUS(tp_store_write_ptd_file(s, path), TP_OK);
  TPT_EQ_INT(r.n, calls);
  tp_store_destroy(s);
  remove(path);
  tp_store_destroy(plain);
  tp_membuf_free(&a);
  tp_membuf_free(&b);
}

/* A graph with a 3 x 1024-float weight, for either backend; r == NULL: no progress. */
static tp_xnn_graph *xnn_graph(rec *r) {
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  tp_storage st;
  tp_tensor w;
  int64_t sz[2] = {96, 32};
  size_t xd[2] = {1, 32}, yd[2] = {1, 96};
  uint32_t x, wt, y;
  memset(&o, 0, sizeof o);
  if (r) {
    o.progress = on_progress;
    o.progress_ctx = r;
  }
  st.data = g_w;
  st.nbytes = sizeof g_w;
  if (tp_view(st, TP_F32, 2, sz, NULL, 0, &w, NULL) != TP_OK ||
      tp_xnn_graph_create(&o, &g) != TP_OK)
    return NULL;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
  return g;
}

static tp_vk_graph *vk_graph(rec *r) {
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_storage st;
  tp_tensor w;
  int64_t sz[2] = {96, 32};
  size_t xd[2] = {1, 32}, yd[2] = {1, 96};
  uint32_t args[4];
  memset(&o, 0, sizeof o);
  if (r) {
    o.progress = on_progress;
    o.progress_ctx = r;
  }
  st.data = g_w;
  st.nbytes = sizeof g_w;
  if (tp_view(st, TP_F32, 2, sz, NULL, 0, &w, NULL) != TP_OK || tp_vk_graph_create(&o, &g) != TP_OK)
    return NULL;
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &args[0]);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &args[1]);
  tp_vk_add_null(g, &args[2]);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &args[3]);
  tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &args[0], 1, &args[3], 1);
  return g;
}

/* A program (.pte) whose method calls the XNNPACK graph; r == NULL: no progress. */
typedef struct pte_case {
  tp_xnn_graph *g;
  tp_pte *p;
} pte_case;
static int pte_make(pte_case *c, rec *r) {
  tp_pte_options o;
  memset(&o, 0, sizeof o);
  if (r) {
    o.progress = on_progress;
    o.progress_ctx = r;
  }
  c->p = NULL;
  c->g = xnn_graph(NULL);
  if (!c->g || tp_pte_create(&o, &c->p) != TP_OK ||
      tp_xnn_add_pte_method(c->p, "forward", c->g) != TP_OK)
    return 0;
  return 1;
}
static void pte_free(pte_case *c) {
  tp_pte_destroy(c->p);
  tp_xnn_graph_destroy(c->g);
}

/* backend 0: XNNPACK, 1: Vulkan, 2: a program. Same bytes with progress; a cancel at every report: status,
   no file. */
static void backend_case(int backend) {
  const char *path = backend == 2 ? "tp_test_progress.pte"
                     : backend   ? "tp_test_progress.vkb"
                                 : "tp_test_progress.xnn";
  tp_membuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
  tp_sink sa = tp_sink_membuf(&a), sb = tp_sink_membuf(&b);
  rec r;
  uint64_t size = 0;
  int calls, k;
  memset(&r, 0, sizeof r);
  r.cancel_at = -1;
  if (backend == 2) {
    pte_case p, g;
    int okp = pte_make(&p, NULL), okg = pte_make(&g, &r);
    TPT_CHECK(okp && okg);
    if (okp && okg) {
      TPT_STATUS(tp_pte_write(p.p, &sa), TP_OK);
      TPT_STATUS(tp_pte_write(g.p, &sb), TP_OK);
      TPT_STATUS(tp_pte_size(g.p, &size), TP_OK);
    }
    pte_free(&p);
    pte_free(&g);
    if (!okp || !okg) return;
  } else if (backend) {
    tp_vk_graph *p = vk_graph(NULL), *g = vk_graph(&r);
    TPT_CHECK(p && g);
    if (!p || !g) return;
    TPT_STATUS(tp_vk_write(p, &sa), TP_OK);
    TPT_STATUS(tp_vk_write(g, &sb), TP_OK);
    TPT_STATUS(tp_vk_blob_size(g, &size), TP_OK);
    tp_vk_graph_destroy(p);
    tp_vk_graph_destroy(g);
  } else {
    tp_xnn_graph *p = xnn_graph(NULL), *g = xnn_graph(&r);
    TPT_CHECK(p && g);
    if (!p || !g) return;
    TPT_STATUS(tp_xnn_write(p, &sa), TP_OK);
    TPT_STATUS(tp_xnn_write(g, &sb), TP_OK);
    TPT_STATUS(tp_xnn_blob_size(g, &size), TP_OK);
    tp_xnn_graph_destroy(p);
    tp_xnn_graph_destroy(g);
  }
  TPT_EQ_U64(a.size, b.size);
  if (a.size == b.size) TPT_MEMEQ(a.data, b.data, a.size);
  TPT_EQ_U64(r.total, size);
  TPT_EQ_U64(r.done[0], 0);
  TPT_EQ_U64(r.done[r.n - 1], size);
  calls = r.n;
  TPT_CHECK(calls >= 3);
  remove(path);
  for (k = 0; k < calls; k++) {
    FILE *f;
    tp_status s;
    memset(&r, 0, sizeof r);
    r.cancel_at = k;
    if (backend == 2) {
      pte_case c;
      s = pte_make(&c, &r) ? tp_pte_write_file(c.p, path) : TP_ERR_NOMEM;
      if (c.p && k == 0)
        TPT_CONTAINS(tp_pte_error(c.p), "cancelled by the progress callback");
      pte_free(&c);
    } else if (backend) {
      tp_vk_graph *g = vk_graph(&r);
      s = g ? tp_vk_write_file(g, path) : TP_ERR_NOMEM;
      tp_vk_graph_destroy(g);
    } else {
      tp_xnn_graph *g = xnn_graph(&r);
      s = g ? tp_xnn_write_file(g, path) : TP_ERR_NOMEM;
      tp_xnn_graph_destroy(g);
    }
    TPT_STATUS(s, TP_ERR_CANCELLED);
    TPT_EQ_INT(r.n, k + 1);
    f = fopen(path, "rb");
    TPT_CHECK(f == NULL);
    if (f) fclose(f);
    TPT_CHECK(!dir_has_prefix(".", path));
  }
  tp_membuf_free(&a);
  tp_membuf_free(&b);
}

static void test_xnn_progress(void) { backend_case(0); }
static void test_vk_progress(void) { backend_case(1); }
static void test_pte_progress(void) { backend_case(2); }

int main(void) {
  int i, k;
  (void)tpt_range;
  for (k = 0; k < 3; k++)
    for (i = 0; i < 1024; i++) g_w[k][i] = (float)(k * 1024 + i);
  TPT_RUN(test_sink_progress);
  TPT_RUN(test_store_progress_and_cancel);
  TPT_RUN(test_xnn_progress);
  TPT_RUN(test_vk_progress);
  TPT_RUN(test_pte_progress);
  return tpt_finish("progress");
}
