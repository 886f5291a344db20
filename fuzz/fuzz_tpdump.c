/* fuzz_tpdump - libFuzzer target for the tpdump inspector (tools/tpdump.c), which parses
   XNNPACK blobs, Vulkan blobs and .ptd files by hand on top of tensorpack's reader.

   Input framing: fuzz/fuzz_input.h (u32 file length, the file - XH00/XN01 blob, VH00/VK00
   blob or .ptd -, a .ptd that named constants are resolved in), each part in a heap block of
   exactly its size (malloc: 16-aligned, as tpdump wants), so ASan sees any read past either.

   Runs the three modes of the tool on it: check only, the text report, the JSON document.
   Invariants (abort on violation): the three give the same result (tpdump promises the same
   exit status in every mode), 0 or 2 unless memory ran out (1), an error sentence exactly when
   the result is not 0, a NUL-free report (non-empty for a good file), a non-empty NUL-free
   JSON document starting with '{'.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/allocator_interface.h>

#define TPDUMP_NO_MAIN
#include "tools/tpdump.c"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_bound.h"

/* The cost bounds (fuzz/fuzz_bound.h), each of the three modes' calls, against the input's
   bytes (file and .ptd): work <= FZ_TPDUMP_WORK_K x bytes + FZ_TPDUMP_WORK_C; the report's
   bytes and the JSON document's, each <= FZ_TPDUMP_OUT_K x bytes + FZ_TPDUMP_OUT_C; the heap
   a call holds at its peak (the sanitizer's malloc and free hooks: bytes allocated and not yet
   freed since the call began, the report included) <= FZ_TPDUMP_MEM_K x bytes +
   FZ_TPDUMP_MEM_C. A mode runs the verdict's reader and the printer's walk, each under its
   visit budget, max(1M, 8 x bytes), so work is twice a reader's bound (fuzz/fuzz_pte.c).
   Measured: the Vulkan cost seed (1000 ValueLists that are one table, 8,196 bytes) stops both
   at 1,000,000 (2,000,000 per mode) and prints 77,811 report bytes (9.5 per byte); the XNNPACK
   one (2000 values that are one table, 8,120 bytes) holds 256,604 heap bytes at its peak (31.6
   per byte: the reader's record of every value); the seeds and the smoke run's inputs at most
   0.3 work, 1.2 report bytes and 6.1 heap bytes per byte. */
#define FZ_TPDUMP_WORK_K 18ull
#define FZ_TPDUMP_WORK_C 2200000ull
#define FZ_TPDUMP_OUT_K 16ull
#define FZ_TPDUMP_OUT_C 65536ull
#define FZ_TPDUMP_MEM_K 48ull
#define FZ_TPDUMP_MEM_C 65536ull

static long long fz_heap, fz_heap_peak; /* since fz_mem_begin */

static void fz_malloc_hook(const volatile void *p, size_t n) {
  (void)p;
  fz_heap += (long long)n;
  if (fz_heap > fz_heap_peak) fz_heap_peak = fz_heap;
}

static void fz_free_hook(const volatile void *p) {
  if (p && __sanitizer_get_ownership(p)) fz_heap -= (long long)__sanitizer_get_allocated_size(p);
}

static unsigned long long fz_w0;

static void fz_mem_begin(void) {
  static int hooked;
  if (!hooked)
    hooked = __sanitizer_install_malloc_and_free_hooks(fz_malloc_hook, fz_free_hook) > 0;
  fz_heap = fz_heap_peak = 0;
  fz_w0 = fz_work();
}

/* Bounds the work and the peak heap of the call since fz_mem_begin. */
static void fz_mem_end(const char *work, const char *heap, size_t size) {
  fz_bound("fuzz_tpdump", work, fz_work() - fz_w0, size, FZ_TPDUMP_WORK_K, FZ_TPDUMP_WORK_C);
  fz_bound("fuzz_tpdump", heap, (unsigned long long)fz_heap_peak, size, FZ_TPDUMP_MEM_K,
           FZ_TPDUMP_MEM_C);
}

static void fz_fail(const char *what, int a, int b) {
  fprintf(stderr, "fuzz_tpdump: invariant broken: %s (%d, %d)\n", what, a, b);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in;
  uint8_t *file, *ptdb;
  size_t file_n, ptd_n;
  tp_membuf text, json;
  tp_error e0, e1, e2;
  int rc0, rc1, rc2;

  if (!fz_input_split(data, size, &in)) return 0;
  file = in.blob;
  file_n = in.blob_n;
  ptdb = in.ptd;
  ptd_n = in.ptd_n;
  memset(&text, 0, sizeof text);
  memset(&json, 0, sizeof json);
  memset(&e0, 0, sizeof e0);
  memset(&e1, 0, sizeof e1);
  memset(&e2, 0, sizeof e2);
  fz_mem_begin();
  rc0 = tpdump_inspect_with(file, file_n, ptdb, ptd_n, NULL, &e0);
  fz_mem_end("check work", "check peak heap bytes", size);
  fz_mem_begin();
  rc1 = tpdump_inspect_with(file, file_n, ptdb, ptd_n, &text, &e1);
  fz_mem_end("report work", "report peak heap bytes", size);
  fz_bound("fuzz_tpdump", "report bytes", text.size, size, FZ_TPDUMP_OUT_K, FZ_TPDUMP_OUT_C);
  fz_mem_begin();
  rc2 = tpdump_inspect_json(file, file_n, ptdb, ptd_n, &json, &e2);
  fz_mem_end("JSON work", "JSON peak heap bytes", size);
  fz_bound("fuzz_tpdump", "JSON bytes", json.size, size, FZ_TPDUMP_OUT_K, FZ_TPDUMP_OUT_C);
  if (!ptd_n) { /* the no-.ptd entry point must agree */
    int rc3 = tpdump_inspect(file, file_n, NULL, NULL);
    if (rc0 != 1 && rc3 != 1 && rc0 != rc3) fz_fail("tpdump_inspect differs", rc0, rc3);
  }
  if (rc0 != 0 && rc0 != 1 && rc0 != 2) fz_fail("result not 0, 1 or 2", rc0, 0);
  if (rc0 != 1 && rc1 != 1 && rc0 != rc1) fz_fail("check-only and text differ", rc0, rc1);
  if (rc0 != 1 && rc2 != 1 && rc0 != rc2) fz_fail("check-only and JSON differ", rc0, rc2);
  if ((rc0 == 0) != (e0.status == TP_OK)) fz_fail("error sentence vs result", rc0, (int)e0.status);
  if (rc0 == 2 && e0.msg[0] == 0) fz_fail("malformed without a sentence", rc0, 0);
  if (rc1 == 0 && (text.size == 0 || memchr(text.data, 0, text.size)))
    fz_fail("report of a good file empty or with a NUL byte", rc1, (int)text.size);
  if (text.size && memchr(text.data, 0, text.size)) fz_fail("NUL byte in the report", rc1, 0);
  if (rc2 != 1 && (json.size == 0 || memchr(json.data, 0, json.size) || json.data[0] != '{'))
    fz_fail("JSON document empty, not an object, or with a NUL byte", rc2, (int)json.size);
  tp_membuf_free(&text);
  tp_membuf_free(&json);
  fz_input_free(&in);
  return 0;
}
