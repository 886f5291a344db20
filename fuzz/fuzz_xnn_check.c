/* fuzz_xnn_check - libFuzzer target for tp_xnn_check_blob, the writer's rules applied to a blob
   (no XNNPACK needed: it runs on every machine), for each target (ExecuTorch, XNNPACK,
   unchecked). Its seeds are fuzz_xnn_blob's.

   Input framing: fuzz/fuzz_input.h (u32 blob length, the XH00 blob or a bare XN01/XN00
   flatbuffer, a .ptd that is ignored here), each part in a heap block of exactly its size, so
   ASan sees any read past the blob.

   Invariants (abort on violation): a status from the documented set, the sentence set exactly
   when the check fails, the same verdict twice (no state kept between calls), and a blob that
   passes any target's rules is one the pure reader tp_xnn_read_blob reads.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack_xnnpack.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_xnn_check_blob, each call: work <=
   FZ_XNN_CHECK_K x input bytes + FZ_XNN_CHECK_C (tp_xnn_read_blob's, fuzz/fuzz_xnn_blob.c, and
   the rules' pass over what it read). Measured: the cost seed (2000 values that are one table,
   8,120 bytes) 3.55 per byte; the seeds and the smoke run's inputs at most 0.17 per byte. */
#define FZ_XNN_CHECK_K 8ull
#define FZ_XNN_CHECK_C 4096ull

static void fz_fail(const char *what, int target, tp_status st) {
  fprintf(stderr, "fuzz_xnn_check: invariant broken: %s (target %d, status %s)\n", what, target,
          tp_status_str(st));
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int targets[3] = {TP_XNN_TARGET_EXECUTORCH, TP_XNN_TARGET_XNNPACK,
                                 TP_XNN_TARGET_UNCHECKED};
  fz_input in;
  int k, passed = 0;
  if (!fz_input_split(data, size, &in)) return 0;
  for (k = 0; k < 3; k++) {
    tp_error e, e2;
    unsigned long long w0 = fz_work();
    tp_status st = tp_xnn_check_blob(in.blob, in.blob_n, targets[k], &e), st2;
    fz_bound("fuzz_xnn_check", "tp_xnn_check_blob work", fz_work() - w0, size, FZ_XNN_CHECK_K,
             FZ_XNN_CHECK_C);
    st2 = tp_xnn_check_blob(in.blob, in.blob_n, targets[k], &e2);
    if (st != st2 || strcmp(e.msg, e2.msg) != 0) fz_fail("two calls differ", targets[k], st);
    if (st == TP_OK) {
      if (e.status != TP_OK || e.msg[0] != 0) fz_fail("TP_OK with a sentence", targets[k], st);
      passed = 1;
    } else {
      if (st != TP_ERR_FORMAT && st != TP_ERR_INVALID && st != TP_ERR_UNSUPPORTED &&
          st != TP_ERR_NOMEM && st != TP_ERR_OVERFLOW)
        fz_fail("unexpected status", targets[k], st);
      if (e.status != st || e.msg[0] == 0) fz_fail("a failure without its sentence", targets[k], st);
    }
  }
  if (passed) {
    tp_xnn_blob b;
    tp_error e;
    tp_status st = tp_xnn_read_blob(in.blob, in.blob_n, &b, &e);
    if (st != TP_OK && st != TP_ERR_NOMEM) {
      fprintf(stderr, "reader: %s\n", e.msg);
      fz_fail("the rules pass a blob the reader refuses", -1, st);
    }
    tp_xnn_blob_free(&b);
  }
  fz_input_free(&in);
  return 0;
}
