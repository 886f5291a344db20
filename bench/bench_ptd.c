/* bench_ptd: 1 GiB of strided view data written as a .ptd file, against plain fwrite of the same
   bytes, in the same run, to the same directory.

   256 views of one 10 MiB float storage [1280, 2048]: view i = rows [i, i + 1024), columns
   [c_i, c_i + 1024), 4 MiB each, row stride 8 KiB (so every view is strided and no two are
   equal). The .ptd path adds them under sha256 keys (hashing timed separately), then
   tp_store_write_ptd_file streams them with tp_compact_write. The baseline compacts every view
   into one 1 GiB buffer first (not timed), then times fopen + 256 fwrite calls of 4 MiB +
   fclose. A second, stricter baseline compacts each view into one 4 MiB buffer (still hot in
   cache, not timed) just before its fwrite and counts only fopen/fwrite/fclose.
   No side calls fsync: all measure the write path into the page cache; sync() runs (untimed)
   before each timed write so that none starts behind another's dirty pages. Best of 5 rounds.
   Peak RSS growth of the .ptd write: VmHWM after the write minus VmRSS before it, with VmHWM
   reset through /proc/self/clear_refs (Linux).

   Targets (issue 6): .ptd write >= 0.8x fwrite throughput, RSS growth < 64 MiB. */
#define _XOPEN_SOURCE 700
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROWS 1280
#define COLS 2048
#define VIEWS 256
#define VR 1024
#define VC 1024

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* kB value of a /proc/self/status field, or -1. */
static long status_kb(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(field);
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static int reset_hwm(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  int ok;
  if (!f) return 0;
  ok = fputs("5", f) >= 0;
  ok &= fclose(f) == 0;
  return ok;
}

static tp_status make_view(const tp_storage *st, int i, tp_tensor *out) {
  static const int64_t sizes[2] = {ROWS, COLS};
  tp_tensor all, rows;
  tp_status s = tp_view(*st, TP_F32, 2, sizes, NULL, 0, &all);
  if (s == TP_OK) s = tp_narrow(&all, 0, i, VR, &rows);
  if (s == TP_OK) s = tp_narrow(&rows, 1, (i * 37) % (COLS - VC + 1), VC, out);
  return s;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char ptd_path[512], raw_path[512];
  float *data;
  unsigned char *flat;
  tp_storage st;
  tp_tensor views[VIEWS];
  size_t i, view_bytes = (size_t)VR * VC * sizeof(float);
  double best_ptd = 1e30, best_raw = 1e30, best_add = 1e30, best_hot = 1e30;
  long rss_growth_kb = -1;
  uint64_t ptd_size = 0;
  int round, hwm_ok = 1;

  snprintf(ptd_path, sizeof ptd_path, "%s/tp_bench_ptd.ptd", dir);
  snprintf(raw_path, sizeof raw_path, "%s/tp_bench_ptd.raw", dir);
  data = (float *)malloc((size_t)ROWS * COLS * sizeof(float));
  flat = (unsigned char *)malloc(view_bytes * VIEWS);
  if (!data || !flat) {
    fprintf(stderr, "bench_ptd: out of memory\n");
    return 1;
  }
  for (i = 0; i < (size_t)ROWS * COLS; i++) data[i] = (float)(i * 2654435761u % 1000003u);
  st.data = data;
  st.nbytes = (size_t)ROWS * COLS * sizeof(float);
  for (i = 0; i < VIEWS; i++)
    if (make_view(&st, (int)i, &views[i]) != TP_OK) {
      fprintf(stderr, "bench_ptd: bad view %lu\n", (unsigned long)i);
      return 1;
    }

  for (round = 0; round < 5; round++) {
    tp_store *s;
    double t0, t1, t2;
    long rss0, hwm1;
    FILE *f;

    /* .ptd: add (hashing), then the streamed write */
    if (tp_store_create(&s) != TP_OK) return 1;
    t0 = now();
    for (i = 0; i < VIEWS; i++)
      if (tp_store_add(s, NULL, &views[i], TP_ORDER_ROW_MAJOR, 0, NULL) != TP_OK) {
        fprintf(stderr, "bench_ptd: add: %s\n", tp_store_error(s));
        return 1;
      }
    t1 = now();
    if (tp_store_ptd_size(s, &ptd_size) != TP_OK) return 1;
    sync();
    hwm_ok &= reset_hwm();
    rss0 = status_kb("VmRSS");
    t1 = now();
    if (tp_store_write_ptd_file(s, ptd_path) != TP_OK) {
      fprintf(stderr, "bench_ptd: write: %s\n", tp_store_error(s));
      return 1;
    }
    t2 = now();
    hwm1 = status_kb("VmHWM");
    if (rss0 >= 0 && hwm1 >= 0 && hwm1 - rss0 > rss_growth_kb) rss_growth_kb = hwm1 - rss0;
    tp_store_destroy(s);
    if (t1 - t0 < best_add) best_add = t1 - t0;
    if (t2 - t1 < best_ptd) best_ptd = t2 - t1;
    remove(ptd_path);

    /* baseline: the same bytes, compacted first (not timed), then plain fwrite */
    for (i = 0; i < VIEWS; i++)
      if (tp_compact_into(&views[i], TP_ORDER_ROW_MAJOR, flat + i * view_bytes, view_bytes) !=
          TP_OK)
        return 1;
    sync();
    t0 = now();
    f = fopen(raw_path, "wb");
    if (!f) return 1;
    for (i = 0; i < VIEWS; i++)
      if (fwrite(flat + i * view_bytes, 1, view_bytes, f) != view_bytes) return 1;
    if (fclose(f) != 0) return 1;
    t1 = now();
    if (t1 - t0 < best_raw) best_raw = t1 - t0;
    remove(raw_path);

    /* strictest baseline: each view compacted into one hot 4 MiB buffer (not timed), only the
       fopen/fwrite/fclose time counted */
    sync();
    {
      double acc = 0;
      t0 = now();
      f = fopen(raw_path, "wb");
      if (!f) return 1;
      acc += now() - t0;
      for (i = 0; i < VIEWS; i++) {
        if (tp_compact_into(&views[i], TP_ORDER_ROW_MAJOR, flat, view_bytes) != TP_OK) return 1;
        t0 = now();
        if (fwrite(flat, 1, view_bytes, f) != view_bytes) return 1;
        acc += now() - t0;
      }
      t0 = now();
      if (fclose(f) != 0) return 1;
      acc += now() - t0;
      if (acc < best_hot) best_hot = acc;
    }
    remove(raw_path);
  }

  {
    double gib = (double)view_bytes * VIEWS / (1024.0 * 1024.0 * 1024.0);
    double ratio = best_raw / best_ptd;
    printf("bench_ptd: %d strided views x 4 MiB = %.2f GiB of view data, .ptd file %llu bytes, "
           "in %s\n", VIEWS, gib, (unsigned long long)ptd_size, dir);
    printf("  tp_store_add x%d (sha256 keys): %.3f s  %.2f GiB/s (sha256 %s)\n", VIEWS, best_add,
           gib / best_add, tp_sha256_accelerated() ? "SHA-NI" : "portable");
    printf("  tp_store_write_ptd_file:         %.3f s  %.2f GiB/s\n", best_ptd, gib / best_ptd);
    printf("  fwrite of compacted bytes:       %.3f s  %.2f GiB/s\n", best_raw, gib / best_raw);
    printf("  fwrite, hot 4 MiB buffer:        %.3f s  %.2f GiB/s\n", best_hot, gib / best_hot);
    printf("  ratio .ptd / fwrite throughput:  %.2fx (target >= 0.80x); vs hot-buffer fwrite "
           "%.2fx\n", ratio, best_hot / best_ptd);
    if (hwm_ok && rss_growth_kb >= 0)
      printf("  peak RSS growth during write:    %.1f MiB (target < 64 MiB)\n",
             (double)rss_growth_kb / 1024.0);
    else
      printf("  peak RSS growth during write:    not measured (no /proc/self/clear_refs)\n");
  }
  free(flat);
  free(data);
  return 0;
}
