/* ab_calls: an A/B of tp_compact_into inside ONE process, call by call - for a loaded machine,
   where separate processes differ by more than the change being judged. Two builds of the
   implementation (shared objects of two tensorpack.h, bench/ab_calls.sh makes them) are loaded
   side by side; the same view is copied by each in turn (the order flips every round), and
   each side's fastest call and the median of the rounds' paired ratios are printed.

     ab_calls OLD.so NEW.so [--cold] [--rounds N] [--many N] [--dst-off B] DTYPE OFFSET SIZES
             STRIDES

   DTYPE u8 / bf16 / i16 / f32 / i64 / f64; OFFSET in elements; SIZES and STRIDES comma lists
   (elements), e.g. "f32 0 1024,1024 1,1024" (a transpose) or "f32 100 4096,512 4096,1" (the
   columns [:, 100:612] of 4096x4096). In cache (default): each timed call follows an untimed
   one of the same side; --cold: each follows 64 MiB of other writes. --many N: a call is N
   copies of the view, the k-th OFFSET + k * its extent in (the elements it spans) into the
   next nbytes of the output (bench_compact's "1000 separate 64x64 transposes" is --many 1000
   --cold f32 0 64,64 1,64). --dst-off B: the output starts B bytes past a 64-byte line (0 by
   default; malloc'd outputs are often 16 off). Thread CPU time. */
#define _POSIX_C_SOURCE 200112L
#include "tensorpack.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the implementation is in the two shared objects; this program only uses the types */
const int TP__ABI_NAME = 0;

/* tp_view of 0.3 (its last argument, the tp_error, NULL here; a header before it ignores it) */
typedef tp_status (*view_fn)(tp_storage, tp_dtype, int, const int64_t *, const int64_t *,
                             int64_t, tp_tensor *, tp_error *);
typedef tp_status (*into_fn)(const tp_tensor *, tp_order, void *, size_t);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_list(const char *s, int64_t *v) {
  int n = 0;
  while (*s && n < TP_MAX_DIMS) {
    char *end;
    v[n++] = strtoll(s, &end, 10);
    if (end == s) return -1;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define CAP ((size_t)256 << 20)
#define JUNK ((size_t)64 << 20)
#define ROUNDS_MAX 1000
#define MANY_MAX 4096

int main(int argc, char **argv) {
  static const char *names[] = {"u8", "bf16", "i16", "f32", "i64", "f64"};
  static const tp_dtype types[] = {TP_U8, TP_BF16, TP_I16, TP_F32, TP_I64, TP_F64};
  static const size_t esize[] = {1, 2, 2, 4, 8, 8};
  static double ratio[ROUNDS_MAX];
  void *lib[2], *p[3];
  into_fn into[2];
  static tp_tensor v[2][MANY_MAX];
  int64_t sz[TP_MAX_DIMS], st[TP_MAX_DIMS];
  double best[2] = {1e30, 1e30};
  int a = 3, cold = 0, rounds = 60, many = 1, dst_off = 0, nd, k, r, dt = -1, wins = 0, q;
  int64_t extent = 1;
  unsigned char *src, *dst, *junk;
  size_t i, nbytes;
  tp_storage s;
  for (; a < argc && argv[a][0] == '-'; a++) {
    if (strcmp(argv[a], "--cold") == 0) cold = 1;
    else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) rounds = atoi(argv[++a]);
    else if (strcmp(argv[a], "--many") == 0 && a + 1 < argc) many = atoi(argv[++a]);
    else if (strcmp(argv[a], "--dst-off") == 0 && a + 1 < argc) dst_off = atoi(argv[++a]) & 63;
  }
  if (many < 1) many = 1;
  if (many > MANY_MAX) many = MANY_MAX;
  if (rounds < 1) rounds = 1;
  if (rounds > ROUNDS_MAX) rounds = ROUNDS_MAX;
  if (argc - a != 4) {
    fprintf(stderr, "usage: ab_calls OLD.so NEW.so [--cold] [--rounds N] [--many N] [--dst-off B] "
                    "DTYPE OFFSET SIZES STRIDES\n");
    return 2;
  }
  for (k = 0; k < 6; k++)
    if (strcmp(argv[a], names[k]) == 0) dt = k;
  nd = parse_list(argv[a + 2], sz);
  if (dt < 0 || nd < 1 || parse_list(argv[a + 3], st) != nd) {
    fprintf(stderr, "ab_calls: bad view '%s %s %s %s'\n", argv[a], argv[a + 1], argv[a + 2],
            argv[a + 3]);
    return 2;
  }
  for (k = 0; k < nd; k++) extent += (sz[k] - 1) * (st[k] < 0 ? -st[k] : st[k]);
  /* 64-byte aligned, as bench_compact's buffers (OFFSET moves the view off the lines) */
  if (posix_memalign(&p[0], 64, CAP) || posix_memalign(&p[1], 64, CAP) ||
      posix_memalign(&p[2], 64, JUNK))
    return 1;
  src = (unsigned char *)p[0];
  dst = (unsigned char *)p[1];
  junk = (unsigned char *)p[2];
  for (i = 0; i < CAP; i += 4096) src[i] = dst[i] = (unsigned char)(i >> 12);
  memset(junk, 0, JUNK);
  s.data = src;
  s.nbytes = CAP;
  for (k = 0; k < 2; k++) {
    view_fn view;
    lib[k] = dlopen(argv[1 + k], RTLD_NOW | RTLD_LOCAL);
    if (!lib[k]) {
      fprintf(stderr, "ab_calls: %s\n", dlerror());
      return 1;
    }
    view = (view_fn)(size_t)dlsym(lib[k], "tp_view");
    into[k] = (into_fn)(size_t)dlsym(lib[k], "tp_compact_into");
    for (q = 0; view && q < many; q++)
      if (view(s, types[dt], nd, sz, st, strtoll(argv[a + 1], NULL, 10) + q * extent, &v[k][q],
               NULL) != TP_OK)
        view = NULL;
    if (!view || !into[k]) {
      fprintf(stderr, "ab_calls: %s: no tp_view / tp_compact_into, or the view does not fit in %lu MiB\n",
              argv[1 + k], (unsigned long)(CAP >> 20));
      return 1;
    }
  }
  nbytes = esize[dt];
  for (k = 0; k < nd; k++) nbytes *= (size_t)sz[k];
  if (nbytes * (size_t)many > CAP - 64) {
    fprintf(stderr, "ab_calls: %d copies of %lu bytes do not fit in %lu MiB\n", many,
            (unsigned long)nbytes, (unsigned long)(CAP >> 20));
    return 1;
  }
  for (r = 0; r < rounds; r++) {
    double t[2];
    int j;
    for (j = 0; j < 2; j++) {
      double t0;
      k = r & 1 ? 1 - j : j;
      if (cold) memset(junk, r + j, JUNK);
      else
        for (q = 0; q < many; q++)
          if (into[k](&v[k][q], TP_ORDER_ROW_MAJOR, dst + dst_off + q * nbytes, nbytes) != TP_OK)
            return 1;
      t0 = now();
      for (q = 0; q < many; q++)
        if (into[k](&v[k][q], TP_ORDER_ROW_MAJOR, dst + dst_off + q * nbytes, nbytes) != TP_OK)
          return 1;
      t[k] = now() - t0;
      if (t[k] < best[k]) best[k] = t[k];
    }
    ratio[r] = t[1] / t[0];
    wins += t[1] < t[0];
  }
  qsort(ratio, (size_t)rounds, sizeof ratio[0], cmp_double);
  printf("%s%s %s %s %s (%lu bytes, %s): old %.1f us, new %.1f us; new/old fastest %.3f, paired "
         "median %.3f [quartiles %.3f-%.3f], new faster in %d of %d\n",
         many > 1 ? "many copies of " : "", argv[a], argv[a + 1], argv[a + 2], argv[a + 3],
         (unsigned long)(nbytes * (size_t)many),
         cold ? (dst_off ? "cold, output off the line" : "cold")
              : (dst_off ? "in cache, output off the line" : "in cache"),
         best[0] * 1e6, best[1] * 1e6, best[1] / best[0],
         ratio[rounds / 2], ratio[rounds / 4], ratio[rounds * 3 / 4], wins, rounds);
  return 0;
}
