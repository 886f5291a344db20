/* Progress callbacks: tp_sink_progress (reports at the start, about every 1%, and at the end;
   a non-zero return cancels with TP_ERR_CANCELLED) and the store's writer wired to it through
   tp_store_options.progress: the same bytes with or without it, and a cancel at any report
   leaves no file and a sentence. */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
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
  if (tp_store_create_ex(&o, &s) != TP_OK) return NULL;
  for (k = 0; k < 3; k++) {
    tp_storage st;
    tp_tensor t;
    int64_t n = 1024;
    char key[16];
    st.data = g_w[k];
    st.nbytes = sizeof g_w[k];
    snprintf(key, sizeof key, "w%d", k);
    if (tp_view(st, TP_F32, 1, &n, NULL, 0, &t) != TP_OK ||
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
  uint64_t total = 0, last_off = 0;
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
  {
    tp_ptd p;
    tp_ptd_entry e;
    if (tp_ptd_open(&p, b.data, b.size) == TP_OK && tp_ptd_find(&p, "w2", &e) == TP_OK)
      last_off = (uint64_t)((const unsigned char *)e.data - b.data);
  }
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
    TPT_CONTAINS(tp_store_error(s), ": cancelled by the progress callback");
    if (k == 0)
      TPT_EQ_STR(tp_store_error(s), "writing the .ptd header and flatbuffer: cancelled by the "
                                    "progress callback");
    if (k == calls - 1) {
      char want[160];
      snprintf(want, sizeof want, "writing segment 2 of the .ptd (file offset %llu): cancelled "
               "by the progress callback", (unsigned long long)last_off);
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

int main(void) {
  int i, k;
  (void)tpt_range;
  for (k = 0; k < 3; k++)
    for (i = 0; i < 1024; i++) g_w[k][i] = (float)(k * 1024 + i);
  TPT_RUN(test_sink_progress);
  TPT_RUN(test_store_progress_and_cancel);
  return tpt_finish("progress");
}
