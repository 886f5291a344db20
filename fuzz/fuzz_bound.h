/* fuzz_bound.h - the cost bound of the reader targets (issue 21): a reader's work, and tpdump's
   output and memory, at most k x input bytes + c, else abort (libFuzzer reports the input).

   Work is what the fuzz flavor counts (mk/fuzz.mk builds the implementation and the targets
   with TP_COUNT_STEPS; tensorpack.h's comment on it): tp__count_visits, every visit a
   tp_fb_reader charges (tables opened, vector elements, strings as 1 + len / 16: the walks,
   whatever the offsets share), plus tp__count_steps (keyset probe slots, key comparisons of
   scans, sorts and binary searches, SHA-256 blocks). Neither alone is the work: the visits
   miss the hash tables and sorts, the steps miss the walks. Each target names k and c for each
   reader it bounds, in its own comment, with what they were chosen from (the largest work per
   byte seen over the smoke run's seeds, the cost seeds and libFuzzer's inputs, with a margin).

   Environment (for proofs and for measuring; the bound is never raised):
     FZ_BOUND_DIV=d    divides every bound by d >= 1: the smoke run sets 4 and requires every
                       cost seed (make_seeds' seed-*cost-*, the worst shapes of
                       tests/linear_shapes.h) to abort: the counters see what the shapes share,
                       and the bounds are within 4x of them (tests/fuzz_smoke.sh)
     FZ_BOUND_REPORT=1 prints each amount that is the largest so far, or the largest per byte,
                       for its what (what, amount, input bytes) */
#ifndef FUZZ_BOUND_H
#define FUZZ_BOUND_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tensorpack.h"

#ifndef TP_COUNT_STEPS
#error "fuzz_bound.h: build with TP_COUNT_STEPS (the fuzz flavor, mk/fuzz.mk)"
#endif

/* The work counted so far (differences of two readings are one call's work). */
static unsigned long long fz_work(void) { return tp__count_steps + tp__count_visits; }

/* Aborts when amount > k x size + c (divided by FZ_BOUND_DIV); names target, what and the
   numbers on stderr. */
static void fz_bound(const char *target, const char *what, unsigned long long amount,
                     size_t size, unsigned long long k, unsigned long long c) {
  static int div = 0, report = -1;
  static const char *whats[16];
  static double worst[16];
  static unsigned long long most[16];
  unsigned long long bound = k * (unsigned long long)size + c;
  double per = (double)amount / (double)(size + 1);
  int w;
  if (div == 0) {
    const char *e = getenv("FZ_BOUND_DIV");
    unsigned long d = e ? strtoul(e, NULL, 10) : 1;
    div = d > 1 && d < 1000000 ? (int)d : 1;
    e = getenv("FZ_BOUND_REPORT");
    report = e && *e && strcmp(e, "0") != 0;
  }
  bound /= (unsigned long long)div;
  for (w = 0; report && w < 16; w++) { /* the largest per byte so far, per what */
    if (whats[w] && strcmp(whats[w], what) != 0) continue;
    whats[w] = what;
    if (per > worst[w] || amount > most[w]) {
      worst[w] = per > worst[w] ? per : worst[w];
      most[w] = amount > most[w] ? amount : most[w];
      fprintf(stderr, "fz_bound: %s %s: %llu for %lu bytes (%.2f per byte)\n", target, what,
              amount, (unsigned long)size, per);
    }
    break;
  }
  if (amount > bound) {
    fprintf(stderr, "%s: %s %llu over its bound %llu (%llu x %lu bytes + %llu%s)\n", target, what,
            amount, bound, k, (unsigned long)size, c, div > 1 ? ", divided by FZ_BOUND_DIV" : "");
    abort();
  }
}
#endif
