/* bench_views.h: what bench_ptd and bench_pte share - the 1 GiB of strided views both write,
   the wall clock, the peak-RSS probe and the fwrite baseline.

   The data: one 10 MiB float storage [ROWS, COLS]; view i = rows [i, i + VR), columns
   [c_i, c_i + VC) with c_i = 37 i mod (COLS - VC + 1): VIEWS views of 4 MiB, each strided (row
   stride 8 KiB), no two equal. The baseline: every view compacted once into one flat 1 GiB
   buffer (not timed), then fopen + VIEWS fwrite calls of 4 MiB + fclose, after an untimed
   sync() so that it does not start behind another write's dirty pages; no fsync. */
#ifndef BENCH_VIEWS_H
#define BENCH_VIEWS_H
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
#define BV_VIEW_BYTES ((size_t)VR * VC * sizeof(float))

static inline double bv_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* kB value of a /proc/self/status field (VmRSS, VmHWM), or -1. */
static inline long bv_status_kb(const char *field) {
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

/* Resets VmHWM to the current RSS (Linux /proc/self/clear_refs); 0 when that is not there. */
static inline int bv_reset_hwm(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  int ok;
  if (!f) return 0;
  ok = fputs("5", f) >= 0;
  ok &= fclose(f) == 0;
  return ok;
}

/* Peak RSS growth of one write: call bv_rss_begin before it, bv_rss_end after it; *growth_kb
   keeps the largest over rounds, *ok is cleared when VmHWM cannot be reset. */
static inline long bv_rss_begin(int *ok) {
  *ok &= bv_reset_hwm();
  return bv_status_kb("VmRSS");
}
static inline void bv_rss_end(long rss0, long *growth_kb) {
  long hwm1 = bv_status_kb("VmHWM");
  if (rss0 >= 0 && hwm1 >= 0 && hwm1 - rss0 > *growth_kb) *growth_kb = hwm1 - rss0;
}
/* The table's note for the peak RSS growth (target < 64 MiB). */
static inline void bv_rss_note(const char *name, int ok, long growth_kb) {
  char what[128];
  if (ok && growth_kb >= 0)
    snprintf(what, sizeof what, "%.1f MiB (target < 64 MiB) %s", (double)growth_kb / 1024.0,
             growth_kb < 64 * 1024 ? "\xE2\x9C\x93" : "\xE2\x9C\x97");
  else
    snprintf(what, sizeof what, "not measured (no /proc/self/clear_refs)");
  bt_note(name, what);
}

/* The storage, the VIEWS views of it and the baseline's flat copy of their bytes; exits with a
   message on failure. *data and *flat are the caller's to free. */
static inline void bv_setup(const char *who, float **data, unsigned char **flat, tp_storage *st,
                            tp_tensor *views) {
  static const int64_t sizes[2] = {ROWS, COLS};
  tp_tensor all, rows;
  size_t i;
  *data = (float *)malloc((size_t)ROWS * COLS * sizeof(float));
  *flat = (unsigned char *)malloc(BV_VIEW_BYTES * VIEWS);
  if (!*data || !*flat) {
    fprintf(stderr, "%s: out of memory\n", who);
    exit(1);
  }
  for (i = 0; i < (size_t)ROWS * COLS; i++) (*data)[i] = (float)(i * 2654435761u % 1000003u);
  st->data = *data;
  st->nbytes = (size_t)ROWS * COLS * sizeof(float);
  if (tp_view(*st, TP_F32, 2, sizes, NULL, 0, &all, NULL) != TP_OK) exit(1);
  for (i = 0; i < VIEWS; i++)
    if (tp_narrow(&all, 0, (int64_t)i, VR, &rows, NULL) != TP_OK ||
        tp_narrow(&rows, 1, (int64_t)((i * 37) % (COLS - VC + 1)), VC, &views[i], NULL) != TP_OK ||
        tp_compact_into(&views[i], TP_ORDER_ROW_MAJOR, *flat + i * BV_VIEW_BYTES,
                        BV_VIEW_BYTES) != TP_OK) {
      fprintf(stderr, "%s: bad view %lu\n", who, (unsigned long)i);
      exit(1);
    }
}

/* The baseline: sync(), then the timed fopen + VIEWS fwrite calls + fclose of flat to path
   (removed after). Seconds, or -1 on a failed write. */
static inline double bv_fwrite_flat(const char *path, const unsigned char *flat) {
  double t0;
  size_t i;
  FILE *f;
  sync();
  t0 = bv_now();
  f = fopen(path, "wb");
  if (!f) return -1;
  for (i = 0; i < VIEWS; i++)
    if (fwrite(flat + i * BV_VIEW_BYTES, 1, BV_VIEW_BYTES, f) != BV_VIEW_BYTES) {
      fclose(f);
      remove(path);
      return -1;
    }
  if (fclose(f) != 0) return -1;
  t0 = bv_now() - t0;
  remove(path);
  return t0;
}
#endif
