/* bench_table.h: the one table `make bench` prints (markdown), shared by the bench programs.
   Each row is one case timed in interleaved rounds (tensorpack, then its peer, then - for
   copies - a plain block loop, in every round), so a slow phase of a shared machine hits all
   of them alike. The limit of a round is the faster of the peer and the loop; the ratio is
   the median over rounds of tensorpack / limit, shown with its range (min-max over rounds).
   The verdict compares the median ratio with the target: a ratio of at most the target (or,
   for "higher is better" rows, at least it) is a check mark. */
#ifndef BENCH_TABLE_H
#define BENCH_TABLE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BT_MAX_ROUNDS 64

static inline int bt_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static inline double bt_median(const double *v, int n) {
  double tmp[BT_MAX_ROUNDS];
  memcpy(tmp, v, sizeof(double) * (size_t)n);
  qsort(tmp, (size_t)n, sizeof *tmp, bt_cmp);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}
static inline void bt_fmt_time(char *out, size_t cap, double s) {
  if (s < 1e-3) snprintf(out, cap, "%.1f us", s * 1e6);
  else if (s < 1.0) snprintf(out, cap, "%.3f ms", s * 1e3);
  else snprintf(out, cap, "%.3f s", s);
}

static inline void bt_header(void) {
  printf("| case | tensorpack | peer | limit | ratio [range] | target | | vs torch copy_ | vs numpy copyto |\n");
  printf("|---|---|---|---|---|---|---|---|---|\n");
}

/* One row: n rounds of tensorpack times tp[], peer times peer[] (named peer_name), and
   optionally block-loop times loop[] (NULL: the limit is the peer). Lower ratio is better;
   the target is a maximum. */
/* Extra cells after the verdict (the table's last two columns: tensorpack against torch's copy_
   and numpy's copyto, filled by bench_compact); "-" when a program has none. */
static const char *bt_extra = NULL;
static inline void bt_row(const char *name, const char *peer_name, const double *tp, const double *peer,
                   const double *loop, int n, double target) {
  double ratio[BT_MAX_ROUNDS], lim[BT_MAX_ROUNDS], lo = 1e300, hi = 0, med;
  char a[32], b[32], c[48];
  int r, loop_wins = 0;
  for (r = 0; r < n; r++) {
    lim[r] = peer[r];
    if (loop && loop[r] < lim[r]) {
      lim[r] = loop[r];
      loop_wins++;
    }
    ratio[r] = tp[r] / lim[r];
    if (ratio[r] < lo) lo = ratio[r];
    if (ratio[r] > hi) hi = ratio[r];
  }
  med = bt_median(ratio, n);
  bt_fmt_time(a, sizeof a, bt_median(tp, n));
  bt_fmt_time(b, sizeof b, bt_median(peer, n));
  bt_fmt_time(c, sizeof c, bt_median(lim, n));
  if (loop) strcat(c, loop_wins * 2 > n ? " (loop)" : " (memcpy)");
  printf("| %s | %s | %s %s | %s | %.2fx [%.2f-%.2f] | <= %.2fx | %s |%s\n", name, a, peer_name, b, c,
         med, lo, hi, target, med <= target ? "\xE2\x9C\x93" : "\xE2\x9C\x97",
         bt_extra ? bt_extra : " - | - |");
  fflush(stdout);
}

/* A throughput row where higher is better: ratio = tensorpack rate / peer rate per round,
   the target a minimum. tp[] and peer[] are times for the same bytes. */
static inline void bt_row_rate(const char *name, const char *peer_name, const double *tp,
                        const double *peer, int n, double target) {
  double ratio[BT_MAX_ROUNDS], lo = 1e300, hi = 0, med;
  char a[32], b[32];
  int r;
  for (r = 0; r < n; r++) {
    ratio[r] = peer[r] / tp[r];
    if (ratio[r] < lo) lo = ratio[r];
    if (ratio[r] > hi) hi = ratio[r];
  }
  med = bt_median(ratio, n);
  bt_fmt_time(a, sizeof a, bt_median(tp, n));
  bt_fmt_time(b, sizeof b, bt_median(peer, n));
  printf("| %s | %s | %s %s | %s | %.2fx [%.2f-%.2f] | >= %.2fx | %s | - | - |\n", name, a, peer_name,
         b, b, med, lo, hi, target, med >= target ? "\xE2\x9C\x93" : "\xE2\x9C\x97");
  fflush(stdout);
}

/* A row that only reports (no peer). */
static inline void bt_note(const char *name, const char *what) {
  printf("| %s | %s | - | - | - | - | | - | - |\n", name, what);
  fflush(stdout);
}
#endif
