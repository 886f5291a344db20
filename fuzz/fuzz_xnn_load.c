/* fuzz_xnn_load - libFuzzer target for tp_xnn_load, the loader onto the real XNNPACK
   (TENSORPACK_XNNPACK_RUNTIME): tp_xnn_read_blob's structure, the shape checks, and the
   subgraph rebuilt on the linked XNNPACK. Needs -lXNNPACK; mk/fuzz.mk builds it only when the
   library is there. The pure reader alone is fuzz_xnn_blob (every machine).

   Input framing (fuzz/make_seeds.c writes seeds this way):
     [0,4)  u32 little-endian n = the blob's length
     [4, 4 + n)   the XH00 blob (or a bare XN01/XN00 flatbuffer)
     [4 + n, end) a .ptd file holding the blob's named constants (may be empty)
   When n is larger than what follows, everything after the 4 bytes is the blob and there is
   no .ptd; an input shorter than 4 bytes is all blob. The blob and the .ptd are each copied
   into a heap block of exactly their size, so ASan sees any read past either one (in
   tensorpack's code; XNNPACK itself is not instrumented).

   Load, then destroy. Invariants (abort on violation): a status from the documented set, the
   error sentence set exactly when the load fails, a runtime exactly when it succeeds.
   The activation budget is lowered to 64 MiB so that a blob cannot make XNNPACK allocate
   past libFuzzer's memory limit.

   Build: clang -fsanitize=fuzzer,address,undefined -I. fuzz/fuzz_xnn_load.c -lXNNPACK -lm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES ((uint64_t)64 << 20)
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"

static void fz_fail(const char *what, tp_status st) {
  fprintf(stderr, "fuzz_xnn_load: invariant broken: %s (status %s)\n", what, tp_status_str(st));
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t blob_n = size, ptd_n = 0;
  const uint8_t *blob_src = data, *ptd_src = NULL;
  uint8_t *blob = NULL, *ptdb = NULL;
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  tp_status st;

  if (size >= 4) {
    uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                 (uint32_t)data[3] << 24;
    blob_src = data + 4;
    blob_n = size - 4;
    if (n <= blob_n) {
      ptd_src = blob_src + n;
      ptd_n = blob_n - n;
      blob_n = n;
    }
  }
  blob = (uint8_t *)malloc(blob_n ? blob_n : 1);
  if (!blob) return 0;
  if (blob_n) memcpy(blob, blob_src, blob_n);
  if (ptd_n) {
    ptdb = (uint8_t *)malloc(ptd_n);
    if (!ptdb) {
      free(blob);
      return 0;
    }
    memcpy(ptdb, ptd_src, ptd_n);
  }

  memset(&err, 0, sizeof err);
  st = tp_xnn_load(blob, blob_n, ptdb, ptd_n, 0, &rt, &err);
  switch (st) {
  case TP_OK:
    if (!rt) fz_fail("TP_OK without a runtime", st);
    if (err.status != TP_OK) fz_fail("TP_OK with an error set", st);
    (void)tp_xnn_runtime_num_externs(rt);
    tp_xnn_runtime_destroy(rt);
    break;
  case TP_ERR_FORMAT: case TP_ERR_UNSUPPORTED: case TP_ERR_INVALID: case TP_ERR_NOMEM:
  case TP_ERR_BOUNDS: case TP_ERR_OVERFLOW:
    if (rt) fz_fail("a failed load returned a runtime", st);
    if (err.status != st || err.msg[0] == 0) fz_fail("a failed load without its sentence", st);
    break;
  default:
    fz_fail("unexpected status", st);
  }
  free(ptdb);
  free(blob);
  return 0;
}
