/* fuzz_xnn_invoke - libFuzzer target for the whole XNNPACK path: tp_xnn_load onto the real
   XNNPACK, every external bound to a zeroed buffer of tp_xnn_runtime_extern_size's padded
   size, tp_xnn_runtime_invoke, destroy. What the loader accepts must run: no abort, crash,
   hang or runaway allocation inside XNNPACK. Needs -lXNNPACK (mk/fuzz.mk builds it only when
   the library is there); its seeds are fuzz_xnn_blob's.

   Input framing: fuzz/fuzz_input.h (u32 blob length, the XH00 blob or a bare XN01/XN00
   flatbuffer, a .ptd), each part in a heap block of exactly its size (ASan sees reads past
   them in tensorpack's code; XNNPACK itself is not instrumented).

   Invariants (abort on violation): statuses from the documented set, a sentence exactly when a
   call fails, a runtime exactly when the load succeeds, every external's size known, and an
   invoke of a loaded graph with every external bound either runs or fails with a sentence.
   The loader's limits are lowered (64 MiB of activations, 64 MiB of XNNPACK's own buffers
   beyond the constants) so that XNNPACK stays within libFuzzer's memory limit: mk/fuzz.mk
   compiles the loader it links (build/impl/fuzz/xnnpack_rt.o) with
   TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES / TP_XNN_RUNTIME_MAX_OPERATOR_BYTES = 64 << 20.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "fuzz/fuzz_input.h"

#ifndef FZ_XNN_LOAD_ONLY /* fuzz_xnn_load.c: load and destroy only */
#define FZ_XNN_LOAD_ONLY 0
#endif

static void fz_fail(const char *what, tp_status st) {
  fprintf(stderr, "%s: invariant broken: %s (status %s)\n",
          FZ_XNN_LOAD_ONLY ? "fuzz_xnn_load" : "fuzz_xnn_invoke", what, tp_status_str(st));
  abort();
}

static int fz_known(tp_status st) {
  return st == TP_ERR_FORMAT || st == TP_ERR_UNSUPPORTED || st == TP_ERR_INVALID ||
         st == TP_ERR_NOMEM || st == TP_ERR_BOUNDS || st == TP_ERR_OVERFLOW;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in;
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  tp_status st;
  void **bufs = NULL;
  uint32_t n, i;

  if (!fz_input_split(data, size, &in)) return 0;
  memset(&err, 0, sizeof err);
  st = tp_xnn_load(in.blob, in.blob_n, in.ptd, in.ptd_n, 0, &rt, &err);
  if (st != TP_OK) {
    if (!fz_known(st)) fz_fail("load: unexpected status", st);
    if (rt) fz_fail("a failed load returned a runtime", st);
    if (err.status != st || err.msg[0] == 0) fz_fail("a failed load without its sentence", st);
    fz_input_free(&in);
    return 0;
  }
  if (!rt || err.status != TP_OK) fz_fail("TP_OK without a runtime, or with an error", st);
  fz_input_free(&in); /* the runtime owns what it needs */
  n = tp_xnn_runtime_num_externs(rt);
  if (FZ_XNN_LOAD_ONLY) {
    tp_xnn_runtime_destroy(rt);
    return 0;
  }
  bufs = (void **)calloc((size_t)n + 1, sizeof *bufs);
  if (!bufs) fz_fail("no memory for the buffers", TP_ERR_NOMEM);
  for (i = 0; i < n; i++) {
    size_t sz = 0, padded = 0;
    st = tp_xnn_runtime_extern_size(rt, i, &sz, &padded);
    if (st == TP_ERR_INVALID) continue; /* no value has this external id */
    if (st != TP_OK) fz_fail("extern_size: unexpected status", st);
    if (padded != sz + TP_XNN_EXTRA_BYTES) fz_fail("extern_size: padding", st);
    bufs[i] = calloc(1, padded);
    if (!bufs[i]) fz_fail("no memory for a buffer (over the activation cap?)", TP_ERR_NOMEM);
    if (tp_xnn_runtime_bind(rt, i, bufs[i]) != TP_OK) fz_fail("bind refused", TP_ERR_INVALID);
  }
  st = tp_xnn_runtime_invoke(rt);
  if (st != TP_OK && (!fz_known(st) || tp_xnn_runtime_error(rt)[0] == 0))
    fz_fail("a failed invoke without its sentence", st);
  if (st == TP_OK && tp_xnn_runtime_error(rt)[0] != 0) fz_fail("TP_OK with an error", st);
  tp_xnn_runtime_destroy(rt);
  for (i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  return 0;
}
