/* tp_count_alloc.h - a counting allocator for tensorpack's memory tests (not part of the
   library). Include it before tensorpack.h: it defines TP_MALLOC / TP_REALLOC / TP_FREE.
   g_live / g_peak: bytes in use now / at most; g_calls: allocation calls so far;
   g_fail_at >= 0: that many more allocations succeed, then exactly one fails (NULL).
   The file that defines TENSORPACK_IMPLEMENTATION defines TP_COUNT_ALLOC_IMPLEMENTATION too
   (tests/impl/core.c for the test build's <flavor>-count objects, which every test including
   this header links unless it has its own implementation): the counters and functions live
   there, once, shared by the library's parts and the test. */
#ifndef TP_COUNT_ALLOC_H
#define TP_COUNT_ALLOC_H
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
extern size_t g_live, g_peak;
extern long g_fail_at; /* >= 0: that many more allocations succeed, then one fails */
extern long g_calls;   /* allocation calls so far */
void *count_malloc(size_t n);
void count_free(void *q);
void *count_realloc(void *q, size_t n);
#ifdef __cplusplus
}
#endif

#ifdef TP_COUNT_ALLOC_IMPLEMENTATION
size_t g_live, g_peak;
long g_fail_at = -1;
long g_calls;

/* Each block carries its size in a 16-byte prefix (keeps max_align_t alignment). */
void *count_malloc(size_t n) {
  unsigned char *p;
  g_calls++;
  if (g_fail_at == 0) {
    g_fail_at = -1;
    return NULL;
  }
  if (g_fail_at > 0) g_fail_at--;
  p = (unsigned char *)malloc(n + 16);
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  g_live += n;
  if (g_live > g_peak) g_peak = g_live;
  return p + 16;
}
void count_free(void *q) {
  size_t n;
  unsigned char *p;
  if (!q) return;
  p = (unsigned char *)q - 16;
  memcpy(&n, p, sizeof n);
  g_live -= n;
  free(p);
}
void *count_realloc(void *q, size_t n) {
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
#endif

#define TP_MALLOC(n) count_malloc(n)
#define TP_REALLOC(p, n) count_realloc(p, n)
#define TP_FREE(p) count_free(p)
#endif
