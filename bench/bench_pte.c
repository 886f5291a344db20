/* bench_pte: a program (.pte) carrying 1 GiB of strided-view constants as named data, against
   plain fwrite of the same bytes, in the same run, to the same directory.

   The constants are bench_ptd's: 256 views of one 10 MiB float storage [1280, 2048], view i =
   rows [i, i + 1024), columns [c_i, c_i + 1024), 4 MiB each, row stride 8 KiB. They go into a
   store (sha256 keys; hashing not timed) that the program embeds (options.embed), next to one
   method whose 40-byte "blob" comes from a producer; tp_pte_write_file streams the
   flatbuffer, the blob and then every view through tp_compact_write into a temp file and
   renames it. The baseline compacts every view into one 1 GiB buffer first (not timed), then
   times fopen + 256 fwrite calls of 4 MiB + fclose. sync() (untimed) before each timed write;
   no fsync on either side. Best of 3 rounds. Peak RSS growth of the .pte write: VmHWM after
   the write minus VmRSS before it, VmHWM reset through /proc/self/clear_refs (Linux).

   Targets (issue 11): .pte write >= 0.8x fwrite throughput, RSS growth < 64 MiB. */
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

static tp_status blob40(void *ctx, tp_sink *sink) {
  static const unsigned char b[40] = {0, 0, 0, 0, 'X', 'H', '0', '0'};
  (void)ctx;
  return tp_sink_write(sink, b, sizeof b);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  static const int64_t sizes[2] = {ROWS, COLS};
  char pte_path[512], raw_path[512];
  float *data;
  unsigned char *flat;
  tp_storage st;
  tp_tensor all, views[VIEWS];
  size_t i, view_bytes = (size_t)VR * VC * sizeof(float);
  double best_pte = 1e30, best_raw = 1e30;
  long rss_growth_kb = -1;
  uint64_t pte_size = 0;
  int round, hwm_ok = 1;
  tp_store *s = NULL;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_pte_method m;
  tp_pte_tensor args[2];

  snprintf(pte_path, sizeof pte_path, "%s/tp_bench_pte.pte", dir);
  snprintf(raw_path, sizeof raw_path, "%s/tp_bench_pte.raw", dir);
  data = (float *)malloc((size_t)ROWS * COLS * sizeof(float));
  flat = (unsigned char *)malloc(view_bytes * VIEWS);
  if (!data || !flat) {
    fprintf(stderr, "bench_pte: out of memory\n");
    return 1;
  }
  for (i = 0; i < (size_t)ROWS * COLS; i++) data[i] = (float)(i * 2654435761u % 1000003u);
  st.data = data;
  st.nbytes = (size_t)ROWS * COLS * sizeof(float);
  if (tp_view(st, TP_F32, 2, sizes, NULL, 0, &all) != TP_OK || tp_store_create(&s) != TP_OK)
    return 1;
  for (i = 0; i < VIEWS; i++) {
    tp_tensor rows;
    if (tp_narrow(&all, 0, (int64_t)i, VR, &rows) != TP_OK ||
        tp_narrow(&rows, 1, (int64_t)((i * 37) % (COLS - VC + 1)), VC, &views[i]) != TP_OK ||
        tp_store_add(s, NULL, &views[i], TP_ORDER_ROW_MAJOR, 0, NULL) != TP_OK) {
      fprintf(stderr, "bench_pte: view %lu: %s\n", (unsigned long)i, tp_store_error(s));
      return 1;
    }
  }
  memset(&o, 0, sizeof o);
  o.embed = s;
  memset(args, 0, sizeof args);
  args[0].role = TP_PTE_INPUT;
  args[1].role = TP_PTE_OUTPUT;
  args[0].dtype = args[1].dtype = TP_F32;
  args[0].ndim = args[1].ndim = 2;
  args[0].sizes[0] = args[1].sizes[0] = 1;
  args[0].sizes[1] = args[1].sizes[1] = VC;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.args = args;
  m.n_args = 2;
  m.backend_id = "XnnpackBackend";
  m.blob_size = 40;
  m.produce = blob40;
  if (tp_pte_create(&o, &p) != TP_OK || tp_pte_add_method(p, &m) != TP_OK ||
      tp_pte_size(p, &pte_size) != TP_OK) {
    fprintf(stderr, "bench_pte: %s\n", p ? tp_pte_error(p) : "create");
    return 1;
  }

  for (round = 0; round < 3; round++) {
    double t0, t1;
    long rss0, hwm1;
    FILE *f;
    sync();
    hwm_ok &= reset_hwm();
    rss0 = status_kb("VmRSS");
    t0 = now();
    if (tp_pte_write_file(p, pte_path) != TP_OK) {
      fprintf(stderr, "bench_pte: write: %s\n", tp_pte_error(p));
      return 1;
    }
    t1 = now();
    hwm1 = status_kb("VmHWM");
    if (rss0 >= 0 && hwm1 >= 0 && hwm1 - rss0 > rss_growth_kb) rss_growth_kb = hwm1 - rss0;
    if (t1 - t0 < best_pte) best_pte = t1 - t0;
    remove(pte_path);

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
  }
  {
    double gib = (double)view_bytes * VIEWS / (1024.0 * 1024.0 * 1024.0);
    printf("bench_pte: %d strided views x 4 MiB = %.2f GiB of named data in one .pte of %llu "
           "bytes, in %s\n", VIEWS, gib, (unsigned long long)pte_size, dir);
    printf("  tp_pte_write_file:               %.3f s  %.2f GiB/s\n", best_pte, gib / best_pte);
    printf("  fwrite of compacted bytes:       %.3f s  %.2f GiB/s\n", best_raw, gib / best_raw);
    printf("  ratio .pte / fwrite throughput:  %.2fx (target >= 0.80x)\n", best_raw / best_pte);
    if (hwm_ok && rss_growth_kb >= 0)
      printf("  peak RSS growth during write:    %.1f MiB (target < 64 MiB)\n",
             (double)rss_growth_kb / 1024.0);
    else
      printf("  peak RSS growth during write:    not measured (no /proc/self/clear_refs)\n");
  }
  tp_pte_destroy(p);
  tp_store_destroy(s);
  free(flat);
  free(data);
  return 0;
}
