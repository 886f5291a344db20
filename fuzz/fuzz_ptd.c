/* fuzz_ptd - libFuzzer target for tensorpack's .ptd (FlatTensor) reader.

   Input: a .ptd file. tp_ptd_open on it; on success tp_ptd_entry_at for every entry, every
   key byte (up to its NUL) and every data byte summed so ASan sees any pointer outside the
   input (libFuzzer passes it in a heap block of exactly `size` bytes); tp_ptd_find of the
   first key (must give entry 0) and of a key that is not there; entry_at(count) refused.
   Invariants checked (abort on violation), all promised by tensorpack.h section 8: data and key
   inside the input, a layout's dim_order is a permutation of ndim <= TP_MAX_DIMS entries,
   sizes >= 0, and numel x element size == nbytes, so tp_view accepts the entry as a
   row-major tensor over exactly its bytes. Then the optional hash index (tp_ptd_index, in
   caller memory of exactly the asked size) must find every key as the linear scan did.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"
#include "fuzz/fuzz_bound.h"

/* The cost bounds (fuzz/fuzz_bound.h): tp_ptd_open's work <= FZ_PTD_OPEN_K x input bytes +
   FZ_PTD_OPEN_C; tp_ptd_index's <= FZ_PTD_INDEX_K x input bytes + FZ_PTD_INDEX_C. The open
   reads each entry's few tables once and the keys' bytes at most the flatbuffer's size; the
   index is one hash and about one probe per entry (4 bytes of offset at least). Measured: the
   cost seed (1000 entries that are one table with a 1-byte key, 4,228 bytes) 0.71 per byte to
   open (3 visits an entry) and 1.42 to index (6 an entry); the seeds and the smoke run's
   inputs at most 0.07 per byte. */
#define FZ_PTD_OPEN_K 2ull
#define FZ_PTD_OPEN_C 1024ull
#define FZ_PTD_INDEX_K 3ull
#define FZ_PTD_INDEX_C 1024ull

static volatile uint64_t fz_sink;

static void fz_fail(const char *what, size_t i) {
  fprintf(stderr, "fuzz_ptd: invariant broken: %s (entry %lu)\n", what, (unsigned long)i);
  abort();
}

static int fz_inside(const uint8_t *base, size_t size, const void *p, size_t n) {
  const uint8_t *q = (const uint8_t *)p;
  if (q < base || q > base + size) return 0;
  return n <= size - (size_t)(q - base);
}

static void fz_check_entry(const uint8_t *data, size_t size, const tp_ptd_entry *e, size_t i) {
  size_t k, klen;
  uint64_t acc = 0;
  const unsigned char *d = (const unsigned char *)e->data;
  if (!e->key || !fz_inside(data, size, e->key, 1)) fz_fail("key outside the input", i);
  klen = strlen(e->key); /* ASan checks this scan */
  if (!fz_inside(data, size, e->key, klen + 1)) fz_fail("key outside the input", i);
  if (e->nbytes && !fz_inside(data, size, e->data, e->nbytes)) fz_fail("data outside", i);
  for (k = 0; k < e->nbytes; k++) acc += d[k];
  fz_sink += acc + klen;
  if (e->has_layout) {
    uint32_t seen = 0;
    int j;
    tp_storage s;
    tp_tensor t;
    tp_status st;
    if (e->ndim < 0 || e->ndim > TP_MAX_DIMS) fz_fail("layout ndim out of range", i);
    for (j = 0; j < e->ndim; j++) {
      if (e->sizes[j] < 0) fz_fail("negative size", i);
      if (e->dim_order[j] >= e->ndim || (seen >> e->dim_order[j]) & 1u)
        fz_fail("dim_order is not a permutation", i);
      seen |= 1u << e->dim_order[j];
    }
    if (tp_dtype_size(e->dtype) == 0) fz_fail("unknown dtype accepted", i);
    s.data = e->nbytes ? e->data : data;
    s.nbytes = e->nbytes;
    st = tp_view(s, e->dtype, e->ndim, e->sizes, NULL, 0, &t, NULL);
    if (st != TP_OK) fz_fail("layout does not fit its bytes (tp_view refused)", i);
    if (tp_nbytes(&t) != e->nbytes) fz_fail("numel x element size != nbytes", i);
  }
}

#define FZ_MISSING "fuzz-key-that-is-not-there-0123456789abcdef0123456789abcdef012345"
#define FZ_MAX_LOOKUPS 32

/* The optional hash index: built in a heap block of exactly the slots it asks for (one slot
   fewer is refused); every key looked up through it (up to FZ_MAX_LOOKUPS) gives the entry the
   linear scan gave (first wins with duplicate keys, both ways), a missing key stays missing. */
static void fz_check_index(tp_ptd *p, const uint8_t *data, size_t size) {
  const void *lin[FZ_MAX_LOOKUPS];
  size_t i, n = p->count < FZ_MAX_LOOKUPS ? p->count : FZ_MAX_LOOKUPS;
  size_t need = tp_ptd_index_slots(p);
  uint32_t *slots;
  tp_ptd_entry e, f;
  tp_status st;
  unsigned long long w0;
  for (i = 0; i < n; i++) {
    if (tp_ptd_entry_at(p, i, &e) != TP_OK || tp_ptd_find(p, e.key, &f) != TP_OK)
      fz_fail("linear find of an entry's key", i);
    lin[i] = f.data;
  }
  if (p->count == 0) {
    if (need != 0) fz_fail("index slots for an empty file", 0);
    return;
  }
  if (need < 2 * p->count || (need & (need - 1)) != 0)
    fz_fail("index slots: not a power of two >= 2 x count", need);
  slots = (uint32_t *)malloc(need * sizeof *slots);
  if (!slots) return;
  if (tp_ptd_index(p, slots, need - 1) != TP_ERR_INVALID) fz_fail("index with too few slots", need);
  w0 = fz_work();
  st = tp_ptd_index(p, slots, need);
  fz_bound("fuzz_ptd", "tp_ptd_index work", fz_work() - w0, size, FZ_PTD_INDEX_K, FZ_PTD_INDEX_C);
  if (st != TP_OK) fz_fail("index failed on an opened file", (size_t)st);
  for (i = 0; i < n; i++) {
    if (tp_ptd_entry_at(p, i, &e) != TP_OK) fz_fail("entry_at with the index", i);
    if (tp_ptd_find(p, e.key, &f) != TP_OK) fz_fail("indexed find of an entry's key", i);
    if (f.data != lin[i]) fz_fail("indexed find differs from the linear scan", i);
    fz_check_entry(data, size, &f, i);
  }
  if (tp_ptd_find(p, FZ_MISSING, &f) == TP_OK && tp_ptd_find(p, FZ_MISSING, &e) != TP_OK)
    fz_fail("indexed find of the missing key flips", 0);
  free(slots);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_ptd p;
  tp_ptd_entry e, f;
  tp_status st;
  size_t i;
  unsigned long long w0;

  memset(&p, 0, sizeof p);
  w0 = fz_work();
  st = tp_ptd_open(&p, size ? data : NULL, size);
  fz_bound("fuzz_ptd", "tp_ptd_open work", fz_work() - w0, size, FZ_PTD_OPEN_K, FZ_PTD_OPEN_C);
  if (st != TP_OK) {
    if (st != TP_ERR_FORMAT) fz_fail("open failed with a status other than FORMAT", 0);
    if (tp_ptd_entry_at(&p, 0, &e) == TP_OK) fz_fail("entry_at after a failed open", 0);
    return 0;
  }
  if (p.segment_base > size || p.segment_data_size > size - p.segment_base)
    fz_fail("segments outside the input", 0);
  if (p.flatbuffer_offset > size || p.flatbuffer_size > size - p.flatbuffer_offset)
    fz_fail("flatbuffer outside the input", 0);
  for (i = 0; i < p.count; i++) {
    memset(&e, 0, sizeof e);
    st = tp_ptd_entry_at(&p, i, &e);
    if (st != TP_OK) fz_fail("entry_at failed after a successful open", i);
    fz_check_entry(data, size, &e, i);
  }
  if (tp_ptd_entry_at(&p, p.count, &e) != TP_ERR_INVALID) fz_fail("entry_at(count) accepted", 0);
  if (p.count > 0) {
    if (tp_ptd_entry_at(&p, 0, &e) != TP_OK) fz_fail("entry_at(0)", 0);
    st = tp_ptd_find(&p, e.key, &f);
    if (st != TP_OK) fz_fail("first key not found", 0);
    if (f.data != e.data || f.nbytes != e.nbytes || strcmp(f.key, e.key) != 0)
      fz_fail("find(first key) is not entry 0", 0);
    fz_check_entry(data, size, &f, 0);
  }
  /* 65 characters: longer than any sha256 key tensorpack writes */
  st = tp_ptd_find(&p, FZ_MISSING, &f);
  if (st != TP_OK && st != TP_ERR_INVALID) fz_fail("find of a missing key: odd status", 0);
  if (st == TP_OK) fz_check_entry(data, size, &f, 0);
  fz_check_index(&p, data, size);
  return 0;
}
