/* fuzz_json - libFuzzer target for tensorpack's JSON documents (tp_json_open, tensorpack.h
   section 10: the safetensors header's strict reader on a config.json).

   Input: JSON text. tp_json_open on it (libFuzzer passes it in a heap block of exactly `size`
   bytes, so ASan sees any read outside). A failed open must be TP_ERR_FORMAT with a sentence
   and no document. On success, every top-level key i: its name is a C string; tp_json_find
   finds it with the same kind (keys are unique); the getter of its kind answers (a number:
   tp_json_number TP_OK or a sentence for a magnitude above DBL_MAX, tp_json_int TP_OK only when
   written as an integer within int64; a string: a C string; a bool: 0 or 1), the getter of
   another kind refuses with TP_ERR_INVALID and a sentence; key(count) and a missing key are
   TP_ERR_INVALID. Seeds: fuzz/seeds_safetensors.h (json_seeds; written by fuzz/make_seeds.c).

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_json_open: work (the key comparisons of its sorts:
   every object's keys once for duplicates, the top-level keys again for the lookup index,
   1 + len / 16 each; the text itself is one pass) <= FZ_JS_K x input bytes + FZ_JS_C.
   Measured: the cost seed (1000 top-level 64-byte keys that differ in their last 4, 70,002
   bytes) 1.42 per byte; the seeds and 50,000 mutants of them at most 0.53 per byte. */
#define FZ_JS_K 4ull
#define FZ_JS_C 4096ull

static volatile uint64_t fz_sink;

static void fz_fail(const char *what, size_t i) {
  fprintf(stderr, "fuzz_json: invariant broken: %s (key %lu)\n", what, (unsigned long)i);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_json *doc = NULL;
  tp_error err;
  tp_status s;
  size_t i, n;
  unsigned long long w0 = fz_work();
  s = tp_json_open(size ? data : NULL, size, &doc, &err);
  fz_bound("fuzz_json", "tp_json_open work", fz_work() - w0, size, FZ_JS_K, FZ_JS_C);
  if (s != TP_OK) {
    if (s != TP_ERR_FORMAT) fz_fail("open: odd status", (size_t)s);
    if (doc != NULL) fz_fail("a document after a failed open", 0);
    if (err.status != s || err.msg[0] == 0) fz_fail("a failed open without a sentence", 0);
    return 0;
  }
  if (err.status != TP_OK) fz_fail("a sentence after a good open", 0);
  n = tp_json_count(doc);
  for (i = 0; i < n; i++) {
    const char *key = NULL, *str = NULL;
    tp_json_kind kind, k2;
    int64_t iv;
    double dv;
    int b = -1;
    if (tp_json_key(doc, i, &key, &kind) != TP_OK || !key) fz_fail("key in range", i);
    fz_sink += strlen(key);
    if (tp_json_find(doc, key, &k2) != TP_OK || k2 != kind) fz_fail("find != key", i);
    s = tp_json_int(doc, key, &iv);
    if (s != TP_OK && (s != TP_ERR_INVALID || tp_json_error(doc)[0] == 0))
      fz_fail("int: odd status or no sentence", i);
    if (s == TP_OK && kind != TP_JSON_NUMBER) fz_fail("an int of another kind", i);
    s = tp_json_number(doc, key, &dv);
    if (s != TP_OK && (s != TP_ERR_INVALID || tp_json_error(doc)[0] == 0))
      fz_fail("number: odd status or no sentence", i);
    if ((s == TP_OK) != (kind == TP_JSON_NUMBER) && kind != TP_JSON_NUMBER)
      fz_fail("a number of another kind", i);
    if (s == TP_OK && !(dv <= DBL_MAX && dv >= -DBL_MAX)) fz_fail("a number not finite", i);
    s = tp_json_string(doc, key, &str);
    if ((s == TP_OK) != (kind == TP_JSON_STRING)) fz_fail("string vs kind", i);
    if (s == TP_OK) fz_sink += strlen(str);
    else if (str != NULL || tp_json_error(doc)[0] == 0) fz_fail("string refused badly", i);
    s = tp_json_bool(doc, key, &b);
    if ((s == TP_OK) != (kind == TP_JSON_BOOL)) fz_fail("bool vs kind", i);
    if (s == TP_OK && b != 0 && b != 1) fz_fail("bool not 0 or 1", i);
  }
  if (tp_json_key(doc, n, NULL, NULL) != TP_ERR_INVALID) fz_fail("key(count)", n);
  if (tp_json_find(doc, "fuzz-key-that-is-not-there-0123456789", NULL) != TP_ERR_INVALID ||
      tp_json_error(doc)[0] == 0)
    fz_fail("a missing key", 0);
  tp_json_close(doc);
  return 0;
}
