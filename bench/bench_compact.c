/* bench_compact: tp_compact_into into a preallocated buffer against copies of the same bytes in
   the same pieces (glibc memcpy, and a plain 64-byte block loop; the limit is the faster),
   single thread, interleaved rounds, thread CPU time. Targets (issue 16): <= 1.5x on transposes
   and permutes, <= 1.15x on slices. Rows go to the table of bench_table.h. */
#define _POSIX_C_SOURCE 200112L
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "bench_table.h"
/* The view calls take a last tp_error * since 0.3; `make bench-ab` builds this driver against
   older headers too (the 2026-11-30 one), whose calls have none. */
#if defined(TP_VERSION_MINOR) && (TP_VERSION_MAJOR > 0 || TP_VERSION_MINOR >= 3)
#define TPB_VIEW(call, ...) call(__VA_ARGS__, NULL)
#else
#define TPB_VIEW(call, ...) call(__VA_ARGS__)
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS_MAX 64
static int g_runs = 15; /* timed rounds per row (--runs N, at most RUNS_MAX) */
static int g_min;       /* --min: each side's fastest run stands for all its runs (a loaded machine) */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: robust on a busy machine */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char *g_src, *g_dst;
static size_t g_cap;

static unsigned char *alloc_touch(size_t n) {
  void *p = NULL;
  size_t i;
  if (posix_memalign(&p, 64, n) != 0 || !p) {
    fprintf(stderr, "out of memory (%lu bytes)\n", (unsigned long)n);
    exit(1);
  }
  for (i = 0; i < n; i += 4096) ((unsigned char *)p)[i] = (unsigned char)i;
  return (unsigned char *)p;
}

/* The plain block loop: 64 bytes a step (the compiler's ordinary vector moves), then the tail. */
static void block_copy(unsigned char *d, const unsigned char *s, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) memcpy(d + i, s + i, 64);
  for (; i < n; i++) d[i] = s[i];
}

/* Out of cache: every timed copy starts after 64 MiB of other writes (more than the last-level
   cache), so none inherits the previous one's lines; the three sides take turns run by run.
   In cache: each side runs once untimed, then all its timed runs back to back (as bench_peers.py
   runs torch's and numpy's): taking turns, the other sides' copies (of other source bytes) came
   between one side's untimed and timed runs and left its source partly out of the cache - the
   columns of 4096x4096 took 1.7-2x as long so, and torch's copy_ as much (bench/README.md). */
static unsigned char *g_junk;
#define JUNK_BYTES ((size_t)64 << 20)
static void evict(void) {
  static unsigned char v = 0;
  memset(g_junk, ++v, JUNK_BYTES);
}

/* Runs `count` compact_into calls (views[i] -> dst + i * each) against memcpy / the block loop
   of the same pieces (each from where its view starts), interleaved. */
static void run_tp(const char *name, const tp_tensor *views, int count, size_t each) {
  int i;
  for (i = 0; i < count; i++)
    if (tp_compact_into(&views[i], TP_ORDER_ROW_MAJOR, g_dst + (size_t)i * each, each) != TP_OK) {
      fprintf(stderr, "%s: tp_compact_into failed\n", name);
      exit(1);
    }
}
static void run_mc(int count, size_t each, const size_t *begin) {
  int i;
  for (i = 0; i < count; i++) memcpy(g_dst + (size_t)i * each, g_src + begin[i], each);
}
static void run_lp(int count, size_t each, const size_t *begin) {
  int i;
  for (i = 0; i < count; i++) block_copy(g_dst + (size_t)i * each, g_src + begin[i], each);
}
static const char *g_only; /* --only SUBSTR: run only the rows whose name contains it */

/* torch / numpy on the same case (bench_peers.py, run per row through the command in the
   environment variable BENCH_PEERS, which make bench sets): two table cells, each tensorpack's
   median over the peer's ("0.50x" = tensorpack in half the time) and the peer's median. */
static const char *g_peers;
static char g_cells[160];
static void peer_cell(char *out, size_t cap, double tp, const char *word) {
  double t = strtod(word, NULL);
  char a[32];
  if (word[0] == '-' || t <= 0) {
    snprintf(out, cap, " - |");
    return;
  }
  bt_fmt_time(a, sizeof a, t);
  snprintf(out, cap, " %.2fx %s (%s) |", tp / t, tp < t ? "\xE2\x9C\x93" : "\xE2\x9C\x97", a);
}
static void run_peers(const char *name, double tp) {
  char cmd[512], line[256], tw[64], nw[64], c1[64], c2[64];
  FILE *f;
  bt_extra = NULL;
  if (!g_peers) return;
  snprintf(cmd, sizeof cmd, "%s --case '%s' --runs %d", g_peers, name, g_runs);
  f = popen(cmd, "r");
  if (!f || !fgets(line, sizeof line, f)) line[0] = 0;
  if (f) pclose(f);
  if (sscanf(line, "torch %63s numpy %63s", tw, nw) != 2) {
    line[strcspn(line, "\n")] = 0;
    printf("| torch copy_ / numpy copyto: not measured (%s) | | | | | | | | |\n",
           line[0] ? line : "bench_peers.py printed nothing");
    g_peers = NULL; /* said once */
    return;
  }
  peer_cell(c1, sizeof c1, tp, tw);
  peer_cell(c2, sizeof c2, tp, nw);
  snprintf(g_cells, sizeof g_cells, "%s%s", c1, c2);
  bt_extra = g_cells;
}
/* One run of a side (run r < 0: untimed) into t[r], after evicting the caches when cold. */
static void timed_tp(const char *name, const tp_tensor *views, int count, size_t each, int r,
                     double *t, int cold) {
  double t0;
  if (cold) evict();
  t0 = now();
  run_tp(name, views, count, each);
  if (r >= 0) t[r] = now() - t0;
}
static void timed_copy(void (*run)(int, size_t, const size_t *), int count, size_t each,
                       const size_t *begin, int r, double *t, int cold) {
  double t0;
  if (cold) evict();
  t0 = now();
  run(count, each, begin);
  if (r >= 0) t[r] = now() - t0;
}
static void bench(const char *name, const tp_tensor *views, int count, double target, int warm) {
  double t_tp[RUNS_MAX], t_mc[RUNS_MAX], t_lp[RUNS_MAX];
  size_t each = tp_nbytes(&views[0]), total = each * (size_t)count, begin[1000];
  int r, i;
  volatile unsigned char sink = 0;
  if (g_only && !strstr(name, g_only)) return;
  for (i = 0; i < count; i++) {
    size_t b = 0, e = 0;
    tp_span(&views[i], &b, &e);
    begin[i] = b + each <= g_cap ? b : 0;
  }
  if (warm) { /* in cache: one untimed run, then the side's timed runs in a row */
    for (r = -1; r < g_runs; r++) timed_tp(name, views, count, each, r, t_tp, 0);
    for (r = -1; r < g_runs; r++) timed_copy(run_mc, count, each, begin, r, t_mc, 0);
    for (r = -1; r < g_runs; r++) timed_copy(run_lp, count, each, begin, r, t_lp, 0);
  } else {
    for (r = -1; r < g_runs; r++) { /* the sides in turn, each run after an eviction */
      timed_tp(name, views, count, each, r, t_tp, 1);
      timed_copy(run_mc, count, each, begin, r, t_mc, 1);
      timed_copy(run_lp, count, each, begin, r, t_lp, 1);
    }
  }
  sink ^= g_dst[total - 1] ^ g_dst[total / 2];
  if (g_min) { /* the least disturbed run of each side: interference only ever adds time */
    double m[3];
    m[0] = t_tp[0];
    m[1] = t_mc[0];
    m[2] = t_lp[0];
    for (r = 1; r < g_runs; r++) {
      if (t_tp[r] < m[0]) m[0] = t_tp[r];
      if (t_mc[r] < m[1]) m[1] = t_mc[r];
      if (t_lp[r] < m[2]) m[2] = t_lp[r];
    }
    for (r = 0; r < g_runs; r++) {
      t_tp[r] = m[0];
      t_mc[r] = m[1];
      t_lp[r] = m[2];
    }
  }
  run_peers(name, bt_median(t_tp, g_runs));
  bt_row(name, "memcpy", t_tp, t_mc, t_lp, g_runs, target);
  (void)sink;
}

static tp_tensor view(tp_dtype dt, int nd, const int64_t *sz, const int64_t *st, int64_t off) {
  tp_tensor t;
  tp_storage s;
  s.data = g_src;
  s.nbytes = g_cap;
  if (TPB_VIEW(tp_view, s, dt, nd, sz, st, off, &t) != TP_OK) {
    fprintf(stderr, "bad bench view\n");
    exit(1);
  }
  return t;
}

int main(int argc, char **argv) {
  static tp_tensor many[1000];
  tp_tensor t, v;
  int i;
  char what[96];
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--header") == 0) bt_header();
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) g_only = argv[++i];
    else if (strcmp(argv[i], "--min") == 0) g_min = 1;
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      g_runs = atoi(argv[++i]);
      if (g_runs < 1) g_runs = 1;
      if (g_runs > RUNS_MAX) g_runs = RUNS_MAX;
    }
  }
  g_peers = getenv("BENCH_PEERS");
  if (g_peers && !g_peers[0]) g_peers = NULL;
  if (!g_peers)
    printf("| torch copy_ / numpy copyto: not measured (BENCH_PEERS empty: make bench sets it when a python3 imports numpy or torch) | | | | | | | | |\n");
  g_cap = (size_t)64 * 256 * 56 * 56 * 4 + 4096;
  g_src = alloc_touch(g_cap);
  g_dst = alloc_touch(g_cap);
  g_junk = alloc_touch(JUNK_BYTES);
  for (i = 0; i < (int)(g_cap / 4096); i++) g_src[(size_t)i * 4096 + 7] = (unsigned char)i;
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
    snprintf(what, sizeof what, "%.3f us (%s)", zc * 1e6, b.owned ? "COPIED" : "zero-copy");
    bt_note("64 MiB slice at an offset, tp_compact", what);
    tp_buffer_release(&b);
    bench("same, forced copy (tp_compact_into)", &t, 1, 1.15, 0);
  }
  {
    int64_t sz[2] = {4096, 4096};
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("f32 transpose 4096x4096 (64 MiB)", &v, 1, 1.5, 0);
    sz[0] = sz[1] = 1024;
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("f32 transpose 1024x1024 (4 MiB, in cache)", &v, 1, 1.5, 1);
    sz[0] = 1000; sz[1] = 1000;
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("f32 transpose 1000x1000 (in cache, no aliasing)", &v, 1, 1.5, 1);
    sz[0] = sz[1] = 4096;
    t = view(TP_BF16, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("bf16 transpose 4096x4096 (32 MiB)", &v, 1, 1.5, 0);
    sz[0] = sz[1] = 2048;
    t = view(TP_BF16, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("bf16 transpose 2048x2048 (8 MiB, in cache)", &v, 1, 1.5, 1);
    sz[0] = sz[1] = 4096;
    t = view(TP_U8, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("u8 transpose 4096x4096 (16 MiB)", &v, 1, 1.5, 0);
    sz[0] = sz[1] = 2048;
    t = view(TP_I64, 2, sz, NULL, 0);
    TPB_VIEW(tp_transpose, &t, 0, 1, &v);
    bench("i64 transpose 2048x2048 (32 MiB)", &v, 1, 1.5, 0);
  }
  {
    int64_t sz[4] = {64, 256, 56, 56};
    int p[4] = {0, 2, 3, 1};
    t = view(TP_F32, 4, sz, NULL, 0);
    TPB_VIEW(tp_permute, &t, p, &v);
    bench("f32 NCHW->NHWC 64x256x56x56 (196 MiB)", &v, 1, 1.5, 0);
  }
  {
    int64_t sz[2] = {8192, 1024};
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_slice, &t, 0, 0, INT64_MAX, 2, &v);
    bench("f32 every other row of 8192x1024", &v, 1, 1.15, 0);
    sz[0] = 32768; /* a 64 MiB output: beyond a 32 MiB LLC, the streaming row copies */
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_slice, &t, 0, 0, INT64_MAX, 2, &v);
    bench("f32 every other row of 32768x1024 (beyond the LLC)", &v, 1, 1.15, 0);
    sz[0] = sz[1] = 4096;
    t = view(TP_F32, 2, sz, NULL, 0);
    TPB_VIEW(tp_slice, &t, 1, 100, 612, 1, &v);
    bench("f32 columns [:, 100:612] of 4096x4096", &v, 1, 1.15, 0);
    bench("same columns, in cache", &v, 1, 1.15, 1);
  }
  {
    int64_t sz[4] = {32, 64, 56, 56}, st[4] = {64 * 56 * 56, 1, 56 * 64, 64};
    t = view(TP_F32, 4, sz, st, 0);
    TPB_VIEW(tp_slice, &t, 2, 1, -1, 1, &v);
    TPB_VIEW(tp_slice, &v, 3, 1, -1, 1, &v);
    bench("f32 channels_last [:, :, 1:-1, 1:-1] -> NCHW", &v, 1, 1.5, 0);
  }
  {
    int64_t sz[2] = {64, 64};
    for (i = 0; i < 1000; i++) {
      t = view(TP_F32, 2, sz, NULL, (int64_t)i * 4096);
      TPB_VIEW(tp_transpose, &t, 0, 1, &many[i]);
    }
    bench("1000 separate f32 64x64 transposes", many, 1000, 1.5, 0);
  }
  free(g_src);
  free(g_dst);
  free(g_junk);
  return 0;
}
