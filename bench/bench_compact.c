/* bench_compact: tp_compact_into into a preallocated buffer vs memcpy of the same byte count,
   single thread, median of 11 interleaved runs (thread CPU time). Targets: <= 1.5x memcpy on transposes and
   permutes, <= 1.15x on slices. */
#define _POSIX_C_SOURCE 199309L
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 11

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: robust on a busy machine */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v) {
  qsort(v, RUNS, sizeof *v, cmp_d);
  return v[RUNS / 2];
}

static unsigned char *g_src, *g_dst;
static size_t g_cap;

static void *alloc_touch(size_t n) {
  unsigned char *p = (unsigned char *)malloc(n);
  size_t i;
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(1);
  }
  for (i = 0; i < n; i += 4096) p[i] = (unsigned char)i;
  return p;
}

/* Runs `count` compact_into calls (views[i] -> dst + i * bytes_each) against one memcpy of the
   same total, interleaved. */
static void bench(const char *name, const tp_tensor *views, int count, double target) {
  double t_tp[RUNS], t_mc[RUNS], a, b;
  size_t each = tp_nbytes(&views[0]), total = each * (size_t)count;
  int r, i;
  size_t begin = 0, end = 0;
  volatile unsigned char sink = 0;
  tp_span(&views[0], &begin, &end);
  if (begin + total > g_cap) begin = 0;
  for (r = -1; r < RUNS; r++) {
    double t0 = now();
    for (i = 0; i < count; i++)
      if (tp_compact_into(&views[i], TP_ORDER_ROW_MAJOR, g_dst + (size_t)i * each, each) != TP_OK) {
        fprintf(stderr, "%s: tp_compact_into failed\n", name);
        exit(1);
      }
    a = now() - t0;
    sink ^= g_dst[total - 1];
    t0 = now();
    memcpy(g_dst, g_src + begin, total); /* the same byte count, from where the view starts */
    b = now() - t0;
    sink ^= g_dst[total / 2];
    if (r >= 0) {
      t_tp[r] = a;
      t_mc[r] = b;
    }
  }
  a = median(t_tp);
  b = median(t_mc);
  printf("%-44s %9.1f MiB %9.3f ms %9.3f ms %7.2fx  (target %.2fx)%s\n", name,
         (double)total / 1048576.0, a * 1e3, b * 1e3, a / b, target, a / b > target ? "  MISS" : "");
  (void)sink;
}

static tp_tensor view(tp_dtype dt, int nd, const int64_t *sz, const int64_t *st, int64_t off) {
  tp_tensor t;
  tp_storage s;
  s.data = g_src;
  s.nbytes = g_cap;
  if (tp_view(s, dt, nd, sz, st, off, &t) != TP_OK) {
    fprintf(stderr, "bad bench view\n");
    exit(1);
  }
  return t;
}

int main(void) {
  static tp_tensor many[1000];
  tp_tensor t, v;
  int i;
  g_cap = (size_t)64 * 256 * 56 * 56 * 4 + 4096;
  g_src = (unsigned char *)alloc_touch(g_cap);
  g_dst = (unsigned char *)alloc_touch(g_cap);
  for (i = 0; i < (int)(g_cap / 4096); i++) g_src[(size_t)i * 4096 + 7] = (unsigned char)i;
  printf("%-44s %13s %12s %12s %8s\n", "case (single thread)", "bytes", "tp_compact", "memcpy", "ratio");
  {
    int64_t sz[1] = {16 << 20}; /* 64 MiB of f32 at an offset */
    tp_buffer b;
    double t0, zc;
    t = view(TP_F32, 1, sz, NULL, 1000);
    t0 = now();
    for (i = 0; i < 1000; i++) {
      tp_compact(&t, TP_ORDER_ROW_MAJOR, &b);
      tp_buffer_release(&b);
    }
    zc = (now() - t0) / 1000;
    tp_compact(&t, TP_ORDER_ROW_MAJOR, &b);
    printf("%-44s %9.1f MiB %9.6f ms %12s %8s  (%s)\n", "64 MiB slice at an offset, tp_compact", 64.0,
           zc * 1e3, "-", "-", b.owned ? "COPIED" : "zero-copy");
    tp_buffer_release(&b);
    bench("64 MiB slice at an offset, forced copy", &t, 1, 1.15);
  }
  {
    int64_t sz[2] = {4096, 4096};
    t = view(TP_F32, 2, sz, NULL, 0);
    tp_transpose(&t, 0, 1, &v);
    bench("f32 transpose 4096x4096", &v, 1, 1.5);
    sz[0] = sz[1] = 1024;
    t = view(TP_F32, 2, sz, NULL, 0);
    tp_transpose(&t, 0, 1, &v);
    bench("f32 transpose 1024x1024", &v, 1, 1.5);
    sz[0] = sz[1] = 4096;
    t = view(TP_BF16, 2, sz, NULL, 0);
    tp_transpose(&t, 0, 1, &v);
    bench("bf16 transpose 4096x4096", &v, 1, 1.5);
  }
  {
    int64_t sz[4] = {64, 256, 56, 56};
    int p[4] = {0, 2, 3, 1};
    t = view(TP_F32, 4, sz, NULL, 0);
    tp_permute(&t, p, &v);
    bench("f32 NCHW->NHWC 64x256x56x56", &v, 1, 1.5);
  }
  {
    int64_t sz[2] = {8192, 1024};
    t = view(TP_F32, 2, sz, NULL, 0);
    tp_slice(&t, 0, 0, INT64_MAX, 2, &v);
    bench("f32 every other row of 8192x1024", &v, 1, 1.15);
    sz[0] = sz[1] = 4096;
    t = view(TP_F32, 2, sz, NULL, 0);
    tp_slice(&t, 1, 100, 612, 1, &v);
    bench("f32 columns [:, 100:612] of 4096x4096", &v, 1, 1.15);
  }
  {
    int64_t sz[4] = {32, 64, 56, 56}, st[4] = {64 * 56 * 56, 1, 56 * 64, 64};
    t = view(TP_F32, 4, sz, st, 0);
    tp_slice(&t, 2, 1, -1, 1, &v);
    tp_slice(&v, 3, 1, -1, 1, &v);
    bench("f32 channels_last [:, :, 1:-1, 1:-1] -> NCHW", &v, 1, 1.5);
  }
  {
    int64_t sz[2] = {64, 64};
    for (i = 0; i < 1000; i++) {
      t = view(TP_F32, 2, sz, NULL, (int64_t)i * 4096);
      tp_transpose(&t, 0, 1, &many[i]);
    }
    bench("1000 separate f32 64x64 transposes", many, 1000, 1.5);
  }
  free(g_src);
  free(g_dst);
  return 0;
}
