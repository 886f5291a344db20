/* 08_parallel_export: a named export whose SHA-256 keys are computed on every core, through a
   parallel-for hook the caller supplies (tensorpack starts no threads of its own).

   The hook below is plain pthreads: each call starts nthreads - 1 workers, the calling thread
   works too, and tasks are handed out one at a time under a mutex; it returns when all are
   done, as tp_parallel_for requires. 48 strided views (column blocks of one float matrix,
   every one a different slice) go into a store through tp_store_add_all, once with the hook and
   once without: the two .ptd files are byte for byte the same, and the keys are equal. */
#define _POSIX_C_SOURCE 200112L
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool_job {
  pthread_mutex_t lock;
  size_t next, n;
  tp_parallel_task fn;
  void *fn_ctx;
} pool_job;

static void *worker(void *arg) {
  pool_job *j = (pool_job *)arg;
  for (;;) {
    size_t i;
    pthread_mutex_lock(&j->lock);
    i = j->next < j->n ? j->next++ : j->n;
    pthread_mutex_unlock(&j->lock);
    if (i == j->n) return NULL;
    j->fn(j->fn_ctx, i);
  }
}

/* The hook: hook_ctx points to the number of threads to use. */
static void pthreads_for(void *hook_ctx, size_t n, tp_parallel_task fn, void *fn_ctx) {
  int want = *(const int *)hook_ctx, t, started = 0;
  pthread_t th[16];
  pool_job j;
  pthread_mutex_init(&j.lock, NULL);
  j.next = 0;
  j.n = n;
  j.fn = fn;
  j.fn_ctx = fn_ctx;
  for (t = 1; t < want && t < 16; t++)
    if (pthread_create(&th[started], NULL, worker, &j) == 0) started++;
  worker(&j); /* the calling thread works too (and alone if no thread could start) */
  for (t = 0; t < started; t++) pthread_join(th[t], NULL);
  pthread_mutex_destroy(&j.lock);
}

#define ROWS 256
#define COLS 1024
#define NV 48

/* Builds the store (with or without the hook) and writes its .ptd into out. */
static int export_ptd(tp_storage st, const tp_store_options *o, tp_membuf *out, char keys[NV][65]) {
  const int64_t sizes[2] = {ROWS, COLS};
  tp_tensor all, views[NV];
  tp_store_item items[NV];
  tp_store *s;
  tp_sink sink = tp_sink_membuf(out);
  int i;
  if (tp_view(st, TP_F32, 2, sizes, NULL, 0, &all, NULL)) return 1;
  for (i = 0; i < NV; i++) {
    /* columns [7i, 7i + 512) of rows [i, i + 200): strided, and no two alike */
    tp_tensor rows;
    if (tp_narrow(&all, 0, i, 200, &rows, NULL) ||
        tp_narrow(&rows, 1, 7 * i, 512, &views[i], NULL))
      return 1;
    memset(&items[i], 0, sizeof items[i]);
    items[i].view = &views[i]; /* key NULL: the sha256 of the bytes */
    items[i].order = TP_ORDER_ROW_MAJOR;
  }
  if (tp_store_create(o, &s)) return 1;
  if (tp_store_add_all(s, items, NV) || tp_store_write_ptd(s, &sink)) {
    printf("error: %s\n", tp_store_error(s));
    tp_store_destroy(s);
    return 1;
  }
  for (i = 0; i < NV; i++) memcpy(keys[i], items[i].key_out, 65);
  tp_store_destroy(s);
  return 0;
}

int main(void) {
  static float data[ROWS * COLS];
  static char keys_a[NV][65], keys_b[NV][65];
  tp_storage st;
  tp_store_options with_hook, serial;
  tp_membuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
  int threads = 2, i, same;

  for (i = 0; i < ROWS * COLS; i++) data[i] = (float)(i % 1009) * 0.5f;
  st.data = data;
  st.nbytes = sizeof data;
  memset(&with_hook, 0, sizeof with_hook);
  with_hook.parallel_for = pthreads_for;
  with_hook.parallel_ctx = &threads;
  memset(&serial, 0, sizeof serial);

  if (export_ptd(st, &with_hook, &a, keys_a) || export_ptd(st, &serial, &b, keys_b)) return 1;
  same = a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
  for (i = 0; i < NV; i++) same &= strcmp(keys_a[i], keys_b[i]) == 0;
  printf("%d views hashed on %d threads: %lu-byte .ptd, first key %.16s...\n", NV, threads,
         (unsigned long)a.size, keys_a[0]);
  printf("same bytes and keys as the serial export: %s\n", same ? "yes" : "NO");
  tp_membuf_free(&a);
  tp_membuf_free(&b);
  return same ? 0 : 1;
}
