/* The program writer's memory planner (tp__plan_place): random chains never give two tensors
   whose lifetimes overlap a common byte, every offset is aligned and inside the buffer, the
   buffer is never smaller than the bytes live at one time, the result is the same on every run;
   a chain reuses its buffers; tensors live at once lie back to back (the delegate call's
   layout, which test_pte.c and golden check through the writer); the limit, inverted lifetimes
   and allocation failures are refused. */
/* its own implementation: tp__plan_place is static; TP_MALLOC is the counting allocator */
#define TP_COUNT_ALLOC_IMPLEMENTATION
#include "tp_count_alloc.h"
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

static uint64_t align_up(uint64_t v) {
  return (v + 15) & ~(uint64_t)15;
}

/* Every property of a plan of n items: aligned, inside total, no overlap of live tensors, total
   at least the peak of live bytes. Returns the peak (aligned sizes). */
static uint64_t check_plan(const tp__plan_item *it, size_t n, uint64_t total) {
  size_t i, j;
  uint64_t peak = 0;
  uint32_t t, tmax = 0;
  for (i = 0; i < n; i++) {
    TPT_CHECK(it[i].offset % 16 == 0);
    TPT_CHECK(it[i].offset + align_up(it[i].nbytes) <= total || it[i].nbytes == 0);
    if (it[i].last > tmax) tmax = it[i].last;
    for (j = i + 1; j < n; j++) {
      int live_together = it[i].first <= it[j].last && it[j].first <= it[i].last;
      int share = it[i].nbytes > 0 && it[j].nbytes > 0 &&
                  it[i].offset < it[j].offset + it[j].nbytes &&
                  it[j].offset < it[i].offset + it[i].nbytes;
      if (live_together && share) {
        TPT_CHECK(!"two live tensors share bytes");
        printf("    items %lu [%u, %u] at %llu + %llu and %lu [%u, %u] at %llu + %llu\n",
               (unsigned long)i, it[i].first, it[i].last, (unsigned long long)it[i].offset,
               (unsigned long long)it[i].nbytes, (unsigned long)j, it[j].first, it[j].last,
               (unsigned long long)it[j].offset, (unsigned long long)it[j].nbytes);
        return 0;
      }
    }
  }
  for (t = 0; t <= tmax; t++) {
    uint64_t live = 0;
    for (i = 0; i < n; i++)
      if (it[i].first <= t && t <= it[i].last) live += align_up(it[i].nbytes);
    if (live > peak) peak = live;
  }
  TPT_CHECK(total >= peak);
  return peak;
}

static void test_random_chains(void) {
  int round;
  double worst = 1.0, sum = 0.0;
  int counted = 0;
  tpt_rng_state = 0x5EEDull;
  for (round = 0; round < 300; round++) {
    size_t n = (size_t)tpt_range(1, 160), i, failed = 99;
    uint32_t steps = (uint32_t)tpt_range(1, 60);
    tp__plan_item *it = (tp__plan_item *)malloc(n * sizeof *it);
    tp__plan_item *again = (tp__plan_item *)malloc(n * sizeof *it);
    uint64_t total = 0, total2 = 0, peak;
    for (i = 0; i < n; i++) {
      uint32_t a = (uint32_t)tpt_range(0, steps - 1), len = (uint32_t)tpt_range(0, 6);
      it[i].first = a;
      it[i].last = a + len;
      /* sizes from 0 (an empty tensor) through odd byte counts to ~1 MiB */
      it[i].nbytes = tpt_range(0, 9) == 0 ? 0 : (uint64_t)tpt_range(1, (int64_t)1 << tpt_range(1, 20));
      it[i].offset = 0xDEAD;
    }
    memcpy(again, it, n * sizeof *it);
    TPT_STATUS(tp__plan_place(it, n, 16, UINT64_MAX, &total, &failed), TP_OK);
    peak = check_plan(it, n, total);
    TPT_STATUS(tp__plan_place(again, n, 16, UINT64_MAX, &total2, &failed), TP_OK);
    TPT_EQ_U64(total2, total);
    TPT_CHECK(memcmp(again, it, n * sizeof *it) == 0);
    if (peak > 0) {
      double r = (double)total / (double)peak;
      sum += r;
      counted++;
      if (r > worst) worst = r;
    }
    free(it);
    free(again);
  }
  printf("    300 random chains: buffer / peak live bytes = %.3f on average, %.3f at worst\n",
         sum / counted, worst);
}

/* x -> a -> b -> c -> d -> y, each tensor used by the instruction that makes it and the next:
   two slots serve the whole chain. */
static void test_chain_reuses(void) {
  tp__plan_item it[6];
  uint64_t total = 0;
  size_t i, failed = 0;
  for (i = 0; i < 6; i++) {
    it[i].nbytes = 1000;
    it[i].first = i == 0 ? 0 : (uint32_t)(i - 1);
    it[i].last = (uint32_t)i;
  }
  TPT_STATUS(tp__plan_place(it, 6, 16, UINT64_MAX, &total, &failed), TP_OK);
  TPT_EQ_U64(total, 2 * 1008);
  for (i = 0; i < 6; i++) TPT_EQ_U64(it[i].offset, (i % 2) * 1008);
  check_plan(it, 6, total);
}

/* A delegate call's arguments: all live at instruction 0, back to back in index order, each at
   a multiple of 16; an empty one takes no bytes. */
static void test_all_live_back_to_back(void) {
  static const uint64_t nb[5] = {4, 0, 100, 16, 1};
  static const uint64_t want[5] = {0, 16, 16, 128, 144};
  tp__plan_item it[5];
  uint64_t total = 0;
  size_t i, failed = 0;
  for (i = 0; i < 5; i++) {
    it[i].nbytes = nb[i];
    it[i].first = it[i].last = 0;
  }
  TPT_STATUS(tp__plan_place(it, 5, 16, UINT64_MAX, &total, &failed), TP_OK);
  for (i = 0; i < 5; i++) TPT_EQ_U64(it[i].offset, want[i]);
  TPT_EQ_U64(total, 160);
  TPT_STATUS(tp__plan_place(it, 0, 16, UINT64_MAX, &total, &failed), TP_OK);
  TPT_EQ_U64(total, 0);
}

/* A freed block is reused by a later, smaller tensor (first fit), and one that ends the buffer
   is grown rather than left as a hole. */
static void test_first_fit_and_growth(void) {
  tp__plan_item it[4];
  uint64_t total = 0;
  size_t failed = 0;
  it[0].nbytes = 64, it[0].first = 0, it[0].last = 0;  /* [0, 64)   dies after 0 */
  it[1].nbytes = 32, it[1].first = 0, it[1].last = 3;  /* [64, 96)  lives on */
  it[2].nbytes = 48, it[2].first = 1, it[2].last = 1;  /* fits the hole: [0, 48) */
  it[3].nbytes = 128, it[3].first = 2, it[3].last = 2; /* no hole of 128: at the end [96, 224) */
  TPT_STATUS(tp__plan_place(it, 4, 16, UINT64_MAX, &total, &failed), TP_OK);
  TPT_EQ_U64(it[2].offset, 0);
  TPT_EQ_U64(it[3].offset, 96);
  TPT_EQ_U64(total, 224);
  /* the tensor at the end dies; a larger one grows the free block that ends the buffer */
  it[0].nbytes = 32, it[0].first = 0, it[0].last = 3;  /* [0, 32) */
  it[1].nbytes = 64, it[1].first = 0, it[1].last = 0;  /* [32, 96) dies */
  it[2].nbytes = 96, it[2].first = 1, it[2].last = 1;  /* [32, 128): grows the last block */
  TPT_STATUS(tp__plan_place(it, 3, 16, UINT64_MAX, &total, &failed), TP_OK);
  TPT_EQ_U64(it[2].offset, 32);
  TPT_EQ_U64(total, 128);
  check_plan(it, 3, total);
}

static void test_refusals(void) {
  tp__plan_item it[2];
  uint64_t total = 7, lim = ((uint64_t)1 << 63) - 1;
  size_t failed = 0;
  /* two 2^62-byte tensors live together pass 2^63 - 1; one after the other share 2^62 */
  it[0].nbytes = it[1].nbytes = (uint64_t)1 << 62;
  it[0].first = it[0].last = it[1].first = it[1].last = 0;
  TPT_STATUS(tp__plan_place(it, 2, 16, lim, &total, &failed), TP_ERR_OVERFLOW);
  TPT_EQ_U64(failed, 1);
  TPT_EQ_U64(total, 0);
  it[1].first = it[1].last = 1;
  TPT_STATUS(tp__plan_place(it, 2, 16, lim, &total, &failed), TP_OK);
  TPT_EQ_U64(total, (uint64_t)1 << 62);
  /* a size whose alignment wraps */
  it[0].nbytes = UINT64_MAX - 3;
  TPT_STATUS(tp__plan_place(it, 1, 16, UINT64_MAX, &total, &failed), TP_ERR_OVERFLOW);
  /* a lifetime that ends before it starts */
  it[0].nbytes = 8, it[0].first = 0, it[0].last = 0;
  it[1].nbytes = 8, it[1].first = 5, it[1].last = 4;
  TPT_STATUS(tp__plan_place(it, 2, 16, UINT64_MAX, &total, &failed), TP_ERR_INVALID);
  TPT_EQ_U64(failed, 1);
  /* each allocation failing in turn, nothing leaked */
  it[1].first = it[1].last = 0;
  {
    long k;
    for (k = 0; k < 2; k++) {
      size_t live = g_live;
      g_fail_at = k;
      TPT_STATUS(tp__plan_place(it, 2, 16, UINT64_MAX, &total, &failed), TP_ERR_NOMEM);
      TPT_EQ_U64(g_live, live);
    }
    g_fail_at = -1;
  }
}

int main(void) {
  TPT_RUN(test_random_chains);
  TPT_RUN(test_chain_reuses);
  TPT_RUN(test_all_live_back_to_back);
  TPT_RUN(test_first_fit_and_growth);
  TPT_RUN(test_refusals);
  return tpt_finish("pte_plan");
}
