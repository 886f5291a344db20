/* fuzz_xnn_blob - libFuzzer target for tp_xnn_read_blob, the pure XNNPACK blob reader (no
   XNNPACK needed: it runs on every machine). The load onto the real XNNPACK is the separate
   target fuzz_xnn_load (only where libXNNPACK is installed).

   Input framing: fuzz/fuzz_input.h (u32 blob length, the XH00 blob or a bare XN01/XN00
   flatbuffer, a .ptd), each part in a heap block of exactly its size.

   Invariants (abort on violation): a status from the documented set; on failure a sentence and
   a zeroed result; on success every count and pointer consistent: values with at most 6 dims,
   nodes with their description and at most 6 entries per vector, every inline constant's bytes
   inside the blob, every named key NUL-terminated at its length (and looked up in the .ptd
   when one is given).

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack_xnnpack.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_xnn_read_blob: work <= FZ_XNN_READ_K x input bytes
   + FZ_XNN_READ_C. A value or node costs a few visits whatever its tables share (at most 6
   dims, scales not copied), and the value ids are sorted once (n log n comparisons for 4n
   bytes of offsets). Measured: the cost seed (2000 values that are one table, 8,120 bytes)
   3.55 per byte, the same shape at 1 MB (250,000 values, make bench-probes) 4.22; the seeds
   and the smoke run's inputs at most 0.11 per byte. k = 8 leaves room for the sort's log n
   up to a million values. */
#define FZ_XNN_READ_K 8ull
#define FZ_XNN_READ_C 4096ull

static void fz_fail(const char *what, tp_status st) {
  fprintf(stderr, "fuzz_xnn_blob: invariant broken: %s (status %s)\n", what, tp_status_str(st));
  abort();
}

static void fz_check(const tp_xnn_blob *b, const uint8_t *blob, size_t n, tp_ptd *ptd) {
  uint32_t i, k;
  if (b->num_values && !b->values) fz_fail("values missing", TP_OK);
  if (b->num_nodes && !b->nodes) fz_fail("nodes missing", TP_OK);
  if (b->num_externs > TP_XNN_MAX_EXTERNS) fz_fail("num_externs above the limit", TP_OK);
  if (b->flatbuffer < blob || b->flatbuffer + b->flatbuffer_size > blob + n)
    fz_fail("flatbuffer outside the blob", TP_OK);
  if (b->segment && (b->segment < blob || b->segment_size > (uint64_t)(blob + n - b->segment)))
    fz_fail("segment outside the blob", TP_OK);
  for (i = 0; i < b->num_values; i++) {
    const tp_xnn_blob_value *v = &b->values[i];
    if (v->ndims > TP_XNN_MAX_DIMS) fz_fail("a value with more than 6 dims", TP_OK);
    if (v->value_type != TP_XNN_VALUE_TENSOR && v->value_type != TP_XNN_VALUE_QUANTIZED)
      fz_fail("an unknown value type", TP_OK);
    if (v->inline_scales && (v->inline_scales < blob ||
                             (uint64_t)v->num_inline_scales * 4u >
                                 (uint64_t)(blob + n - v->inline_scales)))
      fz_fail("inline scales outside the blob", TP_OK);
  }
  for (i = 0; i < b->num_nodes; i++) {
    const tp_xnn_blob_node *nd = &b->nodes[i];
    if (!nd->desc || nd->desc != tp_xnn_describe_node(nd->kind)) fz_fail("a node without its description", TP_OK);
    if (nd->nvec > 2) fz_fail("more than two vectors", TP_OK);
    for (k = 0; k < nd->nvec; k++)
      if (nd->vec_len[k] > TP_XNN_MAX_DIMS) fz_fail("a vector with more than 6 entries", TP_OK);
  }
  for (i = 0; i < b->num_constants; i++) {
    const tp_xnn_blob_constant *c = &b->constants[i];
    if (c->data && (c->data < blob || c->size > (uint64_t)(blob + n - c->data)))
      fz_fail("constant bytes outside the blob", TP_OK);
    if (c->named_key) {
      tp_ptd_entry e;
      if (strlen(c->named_key) != c->named_key_len) fz_fail("a key not ending at its length", TP_OK);
      if (c->data) fz_fail("a named constant with inline data", TP_OK);
      if (ptd) (void)tp_ptd_find(ptd, c->named_key, &e);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in;
  uint8_t *blob, *ptdb;
  size_t blob_n, ptd_n;
  tp_xnn_blob b;
  tp_ptd ptd;
  int have_ptd = 0;
  tp_error err;
  tp_status st;
  unsigned long long w0;

  if (!fz_input_split(data, size, &in)) return 0;
  blob = in.blob;
  blob_n = in.blob_n;
  ptdb = in.ptd;
  ptd_n = in.ptd_n;
  if (ptd_n) {
    memset(&ptd, 0, sizeof ptd);
    have_ptd = tp_ptd_open(&ptd, ptdb, ptd_n) == TP_OK;
  }

  memset(&err, 0, sizeof err);
  w0 = fz_work();
  st = tp_xnn_read_blob(blob, blob_n, &b, &err);
  fz_bound("fuzz_xnn_blob", "tp_xnn_read_blob work", fz_work() - w0, size, FZ_XNN_READ_K,
           FZ_XNN_READ_C);
  switch (st) {
  case TP_OK:
    if (err.status != TP_OK) fz_fail("TP_OK with an error set", st);
    fz_check(&b, blob, blob_n, have_ptd ? &ptd : NULL);
    tp_xnn_blob_free(&b);
    if (b.values || b.num_values) fz_fail("free left something", st);
    break;
  case TP_ERR_FORMAT: case TP_ERR_NOMEM:
    if (err.status != st || err.msg[0] == 0) fz_fail("a failed read without its sentence", st);
    if (b.stop_part == TP_XNN_PART_NONE) fz_fail("a failed read without where it stopped", st);
    tp_xnn_blob_free(&b); /* what it read before the failure */
    if (b.values || b.nodes || b.constants || b.num_values) fz_fail("free left something", st);
    break;
  default:
    fz_fail("unexpected status", st);
  }
  fz_input_free(&in);
  return 0;
}
