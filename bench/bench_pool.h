/* bench_pool.h: the benchmarks' parallel_for hook (tp_store_options) on pthreads. Each call
   starts nthreads - 1 threads (hook_ctx points to nthreads); thread t, the caller being 0,
   runs the tasks t, t + nthreads, t + 2 * nthreads, ... (equal-sized views: an even split). */
#ifndef BENCH_POOL_H
#define BENCH_POOL_H
#include <pthread.h>
#include "tensorpack.h"

typedef struct bench_pool_part {
  size_t first, step, n;
  tp_parallel_task fn;
  void *fn_ctx;
} bench_pool_part;

static void *bench_pool_run(void *arg) {
  bench_pool_part *p = (bench_pool_part *)arg;
  size_t i;
  for (i = p->first; i < p->n; i += p->step) p->fn(p->fn_ctx, i);
  return NULL;
}

static void bench_pool_for(void *hook_ctx, size_t n, tp_parallel_task fn, void *fn_ctx) {
  int nt = *(const int *)hook_ctx, t;
  pthread_t th[8];
  bench_pool_part part[8];
  int ok[8];
  if (nt < 1) nt = 1;
  if (nt > 8) nt = 8;
  for (t = 0; t < nt; t++) {
    part[t].first = (size_t)t;
    part[t].step = (size_t)nt;
    part[t].n = n;
    part[t].fn = fn;
    part[t].fn_ctx = fn_ctx;
  }
  for (t = 1; t < nt; t++) ok[t] = pthread_create(&th[t], NULL, bench_pool_run, &part[t]) == 0;
  bench_pool_run(&part[0]);
  for (t = 1; t < nt; t++) {
    if (ok[t]) pthread_join(th[t], NULL);
    else bench_pool_run(&part[t]); /* no thread: run its share here */
  }
}
#endif
