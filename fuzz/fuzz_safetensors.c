/* fuzz_safetensors - libFuzzer target for tensorpack's safetensors reader (tensorpack.h
   section 10).

   Input: a safetensors file. tp_safetensors_open on it (libFuzzer passes it in a heap block of
   exactly `size` bytes, so ASan sees any read outside). A failed open must be TP_ERR_FORMAT or
   TP_ERR_UNSUPPORTED with a sentence and no object. On success, every tensor i: its name is a C
   string; tp_safetensors_get gives a view whose storage lies inside the input and is exactly
   its bytes (tp_nbytes == storage.nbytes), every byte summed; or TP_ERR_UNSUPPORTED with a
   sentence; tp_safetensors_find(name) gives the same view (names are unique); get(count) and a
   missing name are TP_ERR_INVALID; the views tile the data (their sizes add up to at most the
   input size). Seeds: fuzz/seeds_safetensors.h (written by fuzz/make_seeds.c).

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_safetensors_open: work (the name and key
   comparisons of its sorts, 1 + len / 16 each: the JSON itself is one pass) <= FZ_ST_K x input
   bytes + FZ_ST_C. Measured: the cost seed (__metadata__ of 1000 64-byte keys that differ in
   their last 4, 70,027 bytes) 0.74 per byte; the seeds and the smoke run's inputs at most
   0.18 per byte. */
#define FZ_ST_K 2ull
#define FZ_ST_C 4096ull

static volatile uint64_t fz_sink;

static void fz_fail(const char *what, size_t i) {
  fprintf(stderr, "fuzz_safetensors: invariant broken: %s (tensor %lu)\n", what,
          (unsigned long)i);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_safetensors *st = NULL;
  tp_error err;
  tp_status s;
  size_t i, n, total = 0;
  unsigned long long w0 = fz_work();
  s = tp_safetensors_open(size ? data : NULL, size, &st, &err);
  fz_bound("fuzz_safetensors", "tp_safetensors_open work", fz_work() - w0, size, FZ_ST_K, FZ_ST_C);
  if (s != TP_OK) {
    if (s != TP_ERR_FORMAT && s != TP_ERR_UNSUPPORTED) fz_fail("open: odd status", (size_t)s);
    if (st != NULL) fz_fail("an object after a failed open", 0);
    if (err.status != s || err.msg[0] == 0) fz_fail("a failed open without a sentence", 0);
    return 0;
  }
  if (err.status != TP_OK) fz_fail("a sentence after a good open", 0);
  n = tp_safetensors_count(st);
  for (i = 0; i < n; i++) {
    const char *name = NULL;
    tp_tensor t, u;
    s = tp_safetensors_get(st, i, &name, &t);
    if (!name) fz_fail("no name", i);
    fz_sink += strlen(name);
    if (s == TP_ERR_UNSUPPORTED) {
      if (tp_safetensors_error(st)[0] == 0) fz_fail("unsupported without a sentence", i);
      if (tp_safetensors_find(st, name, &u) != TP_ERR_UNSUPPORTED) fz_fail("find != get", i);
      continue;
    }
    if (s != TP_OK) fz_fail("get: odd status", i);
    {
      const uint8_t *p = (const uint8_t *)t.storage.data;
      size_t k;
      uint64_t acc = 0;
      if (p < data || p > data + size || t.storage.nbytes > size - (size_t)(p - data))
        fz_fail("view outside the input", i);
      if (tp_nbytes(&t) != t.storage.nbytes) fz_fail("view is not exactly its bytes", i);
      if (tp_tensor_check(&t, NULL) != TP_OK) fz_fail("view fails its check", i);
      for (k = 0; k < t.storage.nbytes; k++) acc += p[k];
      fz_sink += acc;
      total += t.storage.nbytes;
      if (total > size) fz_fail("views add up to more than the input", i);
    }
    if (tp_safetensors_find(st, name, &u) != TP_OK) fz_fail("find of a listed name", i);
    if (u.storage.data != t.storage.data || u.storage.nbytes != t.storage.nbytes)
      fz_fail("find gives another view", i);
  }
  {
    tp_tensor t;
    const char *v;
    if (tp_safetensors_get(st, n, NULL, &t) != TP_ERR_INVALID) fz_fail("get(count)", n);
    s = tp_safetensors_find(st, "fuzz-name-that-is-not-there-0123456789", &t);
    if (s == TP_ERR_INVALID && tp_safetensors_error(st)[0] == 0) fz_fail("miss, no sentence", 0);
    s = tp_safetensors_metadata(st, "format", &v);
    if (s == TP_OK) fz_sink += strlen(v);
    else if (s != TP_ERR_INVALID) fz_fail("metadata: odd status", 0);
  }
  tp_safetensors_close(st);
  return 0;
}
