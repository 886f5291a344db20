/* Streaming: writing a .ptd allocates a bounded amount of memory, whatever the data size.
   Every allocation of the library goes through TP_MALLOC/TP_REALLOC/TP_FREE, counted here;
   64 MiB of strided views are written into a sink that only counts bytes and hashes them. */
#include <stdlib.h>
#include <string.h>

static size_t g_live, g_peak;

/* Each block carries its size in a 16-byte prefix (keeps max_align_t alignment). */
static void *count_malloc(size_t n) {
  unsigned char *p = (unsigned char *)malloc(n + 16);
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  g_live += n;
  if (g_live > g_peak) g_peak = g_live;
  return p + 16;
}
static void count_free(void *q) {
  size_t n;
  unsigned char *p;
  if (!q) return;
  p = (unsigned char *)q - 16;
  memcpy(&n, p, sizeof n);
  g_live -= n;
  free(p);
}
static void *count_realloc(void *q, size_t n) {
  size_t old = 0;
  void *r;
  if (q) memcpy(&old, (unsigned char *)q - 16, sizeof old);
  r = count_malloc(n);
  if (!r) return NULL;
  if (q) {
    memcpy(r, q, old < n ? old : n);
    count_free(q);
  }
  return r;
}

#define TP_MALLOC(n) count_malloc(n)
#define TP_REALLOC(p, n) count_realloc(p, n)
#define TP_FREE(p) count_free(p)
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"

#define ROWS 2048
#define COLS 1024

static tp_status hash_count(void *ctx, const void *p, size_t n) {
  tp_sha256_update((tp_sha256 *)ctx, p, n);
  return TP_OK;
}

static void test_write_memory_is_bounded(void) {
  float *data = (float *)malloc((size_t)ROWS * COLS * sizeof(float));
  const int64_t sizes[2] = {ROWS, COLS};
  tp_storage st;
  tp_tensor all, v;
  tp_store *s;
  tp_sha256 h1, h2;
  tp_sink sink;
  uint64_t size = 0;
  unsigned char d1[32], d2[32];
  size_t i, before, peak_write, small_peak;
  int k;

  for (i = 0; i < (size_t)ROWS * COLS; i++) data[i] = (float)(i % 65521u);
  st.data = data;
  st.nbytes = (size_t)ROWS * COLS * sizeof(float);
  TPT_STATUS(tp_view(st, TP_F32, 2, sizes, NULL, 0, &all), TP_OK);

  /* baseline: the same store shape with 1-row views (tiny data) */
  TPT_STATUS(tp_store_create(&s), TP_OK);
  for (k = 0; k < 16; k++) {
    TPT_STATUS(tp_narrow(&all, 1, k * 32, 512, &v), TP_OK);
    TPT_STATUS(tp_narrow(&v, 0, k, 1, &v), TP_OK);
    TPT_STATUS(tp_store_add(s, NULL, &v, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  }
  TPT_STATUS(tp_store_ptd_size(s, &size), TP_OK);
  tp_sha256_init(&h1);
  sink.write = hash_count;
  sink.ctx = &h1;
  before = g_live;
  g_peak = g_live;
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  small_peak = g_peak - before;
  tp_store_destroy(s);

  /* 16 strided views of 2048 x 512 floats = 4 MiB each, 64 MiB in all */
  TPT_STATUS(tp_store_create(&s), TP_OK);
  for (k = 0; k < 16; k++) {
    TPT_STATUS(tp_narrow(&all, 1, k * 32, 512, &v), TP_OK);
    TPT_STATUS(tp_store_add(s, NULL, &v, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  }
  TPT_STATUS(tp_store_ptd_size(s, &size), TP_OK);
  TPT_CHECK(size > (uint64_t)64 * 1024 * 1024);
  tp_sha256_init(&h1);
  sink.ctx = &h1;
  before = g_live;
  g_peak = g_live;
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  peak_write = g_peak - before;
  tp_sha256_final(&h1, d1);
  /* the bytes streamed are the file: the same through a memory sink */
  {
    tp_membuf m;
    memset(&m, 0, sizeof m);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
    TPT_EQ_U64(m.size, size);
    tp_sha256_init(&h2);
    tp_sha256_update(&h2, m.data, m.size);
    tp_sha256_final(&h2, d2);
    TPT_MEMEQ(d1, d2, 32);
    tp_membuf_free(&m);
  }
  tp_store_destroy(s);
  free(data);
  printf("  peak allocation while writing: %lu bytes (64 MiB of data), %lu bytes (tiny data)\n",
         (unsigned long)peak_write, (unsigned long)small_peak);
  /* bounded by the copy scratch plus metadata, not by the data */
  TPT_CHECK(peak_write < (size_t)1024 * 1024);
  TPT_CHECK(peak_write <= small_peak + (size_t)TP_SCRATCH_BYTES);
  TPT_EQ_U64(g_live, 0);   /* everything freed */
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_write_memory_is_bounded);
  return tpt_finish("store_stream");
}
