/* fuzz_pte - libFuzzer target for tensorpack's .pte (ExecuTorch program) reader.

   Input: a .pte file. tp_pte_read on it; on success every accessor is called for every
   method, value, input, output, buffer, chain, instruction, delegate, compile spec, segment
   and named entry, and every byte they point at (blob, spec value, named data, keys, names) is
   read, so ASan sees any pointer outside the input (libFuzzer passes it in a heap block of
   exactly `size` bytes). Invariants checked (abort on violation), all promised by tensorpack.h
   section 9: every accessor of a read program succeeds; plan inputs/outputs and call
   arguments name values; a delegate's blob and a named entry lie inside the segment data,
   inside the input; tensors have ndim <= TP_MAX_DIMS, sizes >= 0, dim_order a permutation, a
   memory plan inside its buffer; out-of-range indices are refused with TP_ERR_INVALID. A
   failed read leaves a sentence and TP_ERR_FORMAT.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_pte_read: work <= FZ_PTE_K x input bytes +
   FZ_PTE_C. Its visits stop at its reader's budget, max(1M, 8 x bytes); its steps (the named
   keys' set) are under 1 per byte. Measured: the cost seed (one delegate of 1000 compile specs
   listed 1000 times, 8,344 bytes) stops at exactly 1,000,000, and the same shape at 193 KB
   (make bench-probes) at 8.00 per byte; the seeds and the smoke run's inputs do at most 0.04
   per byte. */
#define FZ_PTE_K 9ull
#define FZ_PTE_C 1100000ull

static volatile uint64_t fz_sink;

static void fz_fail(const char *what, size_t m, size_t i) {
  fprintf(stderr, "fuzz_pte: invariant broken: %s (method %lu, item %lu)\n", what,
          (unsigned long)m, (unsigned long)i);
  abort();
}

static int fz_inside(const uint8_t *base, size_t size, const void *p, uint64_t n) {
  const uint8_t *q = (const uint8_t *)p;
  if (!q || q < base || q > base + size) return 0;
  return n <= (uint64_t)(size - (size_t)(q - base));
}

static void fz_touch(const uint8_t *data, size_t size, const void *p, uint64_t n, size_t m,
                     size_t i) {
  const uint8_t *q = (const uint8_t *)p;
  uint64_t k, acc = 0;
  if (n && !fz_inside(data, size, p, n)) fz_fail("bytes outside the input", m, i);
  for (k = 0; k < n; k++) acc += q[k];
  fz_sink += acc;
}

static void fz_str(const uint8_t *data, size_t size, const char *s, size_t m, size_t i) {
  size_t len;
  if (!s || !fz_inside(data, size, s, 1)) fz_fail("string outside the input", m, i);
  len = strlen(s);
  if (!fz_inside(data, size, s, len + 1)) fz_fail("string outside the input", m, i);
  fz_sink += len;
}

static void fz_method(tp_pte_file *f, const uint8_t *data, size_t size, size_t m) {
  tp_pte_method_info mi;
  size_t v, k, c, n, s;
  if (tp_pte_method_at(f, m, &mi) != TP_OK) fz_fail("method_at", m, 0);
  fz_str(data, size, mi.name, m, 0);
  for (v = 0; v < mi.n_values; v++) {
    tp_pte_value_info vi;
    uint32_t seen = 0;
    int d;
    if (tp_pte_value_at(f, m, v, &vi) != TP_OK) fz_fail("value_at", m, v);
    if (vi.kind != TP_PTE_V_Tensor) continue;
    if (vi.ndim < 0 || vi.ndim > TP_MAX_DIMS) fz_fail("ndim", m, v);
    for (d = 0; d < vi.ndim; d++) {
      if (vi.sizes[d] < 0) fz_fail("negative size", m, v);
      if (vi.dim_order[d] >= vi.ndim || ((seen >> vi.dim_order[d]) & 1u))
        fz_fail("dim_order is not a permutation", m, v);
      seen |= 1u << vi.dim_order[d];
    }
    if (vi.planned) {
      uint64_t b = 0;
      if (tp_pte_buffer_at(f, m, vi.memory_id, &b) != TP_OK) fz_fail("memory_id", m, v);
      if (vi.memory_offset > b || vi.nbytes > b - vi.memory_offset) fz_fail("plan", m, v);
    }
  }
  if (tp_pte_value_at(f, m, mi.n_values, NULL) == TP_OK) fz_fail("NULL out accepted", m, 0);
  for (k = 0; k < mi.n_inputs + mi.n_outputs; k++) {
    int out = k >= mi.n_inputs;
    if (tp_pte_io_at(f, m, out, out ? k - mi.n_inputs : k, &v) != TP_OK || v >= mi.n_values)
      fz_fail("plan input/output", m, k);
  }
  if (tp_pte_io_at(f, m, 0, mi.n_inputs, &v) != TP_ERR_INVALID) fz_fail("input past end", m, 0);
  for (k = 0; k < mi.n_buffers; k++) {
    uint64_t b;
    if (tp_pte_buffer_at(f, m, k, &b) != TP_OK) fz_fail("buffer_at", m, k);
  }
  for (c = 0; c < mi.n_chains; c++) {
    if (tp_pte_chain_size(f, m, c, &n) != TP_OK) fz_fail("chain_size", m, c);
    for (k = 0; k < n; k++) {
      tp_pte_instruction_info ii;
      if (tp_pte_instruction_at(f, m, c, k, &ii) != TP_OK) fz_fail("instruction_at", m, k);
      if (ii.kind == TP_PTE_I_DelegateCall || ii.kind == TP_PTE_I_KernelCall)
        for (s = 0; s < ii.args.count; s++) {
          uint64_t a = tp_fb_vector_scalar(&ii.args, s);
          if (a >= mi.n_values) fz_fail("call argument", m, k);
        }
      if (ii.kind == TP_PTE_I_DelegateCall && (size_t)ii.index >= mi.n_delegates)
        fz_fail("delegate index", m, k);
    }
    if (tp_pte_instruction_at(f, m, c, n, NULL) == TP_OK) fz_fail("past end", m, c);
  }
  for (k = 0; k < mi.n_delegates; k++) {
    tp_pte_delegate_info di;
    if (tp_pte_delegate_at(f, m, k, &di) != TP_OK) fz_fail("delegate_at", m, k);
    fz_str(data, size, di.id, m, k);
    fz_touch(data, size, di.data, di.nbytes, m, k);
    if (di.file_offset + di.nbytes > size) fz_fail("blob past the file", m, k);
    for (s = 0; s < di.n_specs; s++) {
      const char *key;
      const void *val;
      size_t nb;
      if (tp_pte_compile_spec_at(f, m, k, s, &key, &val, &nb) != TP_OK) fz_fail("spec", m, s);
      fz_str(data, size, key, m, s);
      fz_touch(data, size, val, nb, m, s);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_pte_file f;
  size_t i, m;
  unsigned long long w0 = fz_work();
  tp_status st = tp_pte_read(&f, data, size);
  fz_bound("fuzz_pte", "tp_pte_read work", fz_work() - w0, size, FZ_PTE_K, FZ_PTE_C);
  if (st != TP_OK) {
    if (st != TP_ERR_FORMAT || f.err.msg[0] == '\0') fz_fail("refusal without a sentence", 0, 0);
    return 0;
  }
  for (i = 0; i < f.n_segments; i++) {
    uint64_t off, sz;
    if (tp_pte_segment_at(&f, i, &off, &sz) != TP_OK) fz_fail("segment_at", 0, i);
    if (off + sz > f.segment_data_size || f.segment_base + f.segment_data_size > size)
      fz_fail("segment outside", 0, i);
  }
  for (i = 0; i < f.n_named; i++) {
    const char *key;
    uint32_t si;
    const void *d;
    uint64_t n;
    if (tp_pte_named_at(&f, i, &key, &si, &d, &n) != TP_OK) fz_fail("named_at", 0, i);
    fz_str(data, size, key, 0, i);
    fz_touch(data, size, d, n, 0, i);
    if (si >= f.n_segments) fz_fail("named segment", 0, i);
  }
  for (m = 0; m < f.n_methods; m++) fz_method(&f, data, size, m);
  {
    tp_pte_method_info mi;
    size_t found = 0;
    if (tp_pte_method_at(&f, f.n_methods, &mi) != TP_ERR_INVALID) fz_fail("method past end", 0, 0);
    if (tp_pte_method_at(&f, 0, &mi) == TP_OK && (tp_pte_method_find(&f, mi.name, &found) != TP_OK ||
                                                  found != 0))
      fz_fail("method_find", 0, 0);
  }
  return 0;
}
