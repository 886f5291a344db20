/* fuzz_xnn_load - libFuzzer target for tp_xnn_load, the loader onto the real XNNPACK
   (TENSORPACK_XNNPACK_RUNTIME): tp_xnn_read_blob's structure, the shape checks, and the
   subgraph rebuilt on the linked XNNPACK. Needs -lXNNPACK; mk/fuzz.mk builds it only when the
   library is there. The pure reader alone is fuzz_xnn_blob (every machine).

   Input framing: fuzz/fuzz_input.h (u32 blob length, the XH00 blob or a bare XN01/XN00
   flatbuffer, a .ptd), each part in a heap block of exactly its size, so ASan sees any read
   past either one (in tensorpack's code; XNNPACK itself is not instrumented).

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
#include "fuzz/fuzz_input.h"

static void fz_fail(const char *what, tp_status st) {
  fprintf(stderr, "fuzz_xnn_load: invariant broken: %s (status %s)\n", what, tp_status_str(st));
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in;
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  tp_status st;

  if (!fz_input_split(data, size, &in)) return 0;

  memset(&err, 0, sizeof err);
  st = tp_xnn_load(in.blob, in.blob_n, in.ptd, in.ptd_n, 0, &rt, &err);
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
  fz_input_free(&in);
  return 0;
}
