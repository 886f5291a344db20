/* fuzz_vk_blob - libFuzzer target for tensorpack's Vulkan blob reader (no Vulkan needed).

   Input framing: fuzz/fuzz_input.h (u32 blob length, the VH00 blob, a .ptd), each part in a
   heap block of exactly its size, so ASan sees any read past either one.

   Calls tp_vk_parse_header, tp_vk_check_blob (TP_OK, or TP_ERR_FORMAT / TP_ERR_NOMEM with a
   sentence) and tp_vk_read_blob (with the .ptd when it opens); every returned
   constant's bytes and every key are read. Invariants (abort on violation): header regions
   inside the blob; each constant's data inside the blob or inside the .ptd (absent only for a
   named one read without a .ptd), nbytes equal to numel(dims) x datatype size, ndim <=
   TP_MAX_DIMS; list items, operator names and arguments inside the blob; every constants /
   shaders entry's bytes inside the blob or the .ptd.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack_vulkan.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_bound.h"

/* The cost bound (fuzz/fuzz_bound.h) of tp_vk_check_blob and of tp_vk_read_blob, each call
   (the .ptd's tp_ptd_open is fuzz_ptd's): work <= FZ_VK_K x input bytes (blob and .ptd) +
   FZ_VK_C. Each call's visits stop at its reader's budget, max(1M, 8 x bytes); its steps (the
   .ptd's index and lookups) are a few per entry. Measured: the cost seed (1000 ValueLists that
   are one table of 1000 items, 8,196 bytes) stops at exactly 1,000,000 in each call, and the
   same shape at 1 MB (make bench-probes) at 8.00 per byte; the seeds and the smoke run's
   inputs do at most 0.11 per byte. */
#define FZ_VK_K 9ull
#define FZ_VK_C 1100000ull

static volatile uint64_t fz_sink;

static void fz_fail(const char *what, uint32_t i) {
  fprintf(stderr, "fuzz_vk_blob: invariant broken: %s (value %lu)\n", what, (unsigned long)i);
  abort();
}

static int fz_inside(const uint8_t *base, size_t size, const void *p, uint64_t n) {
  const uint8_t *q = (const uint8_t *)p;
  if (!base || q < base || q > base + size) return 0;
  return n <= (uint64_t)(size - (size_t)(q - base));
}

static uint64_t fz_dtype_size(tp_vk_datatype dt) {
  switch (dt) {
  case TP_VK_BOOL: case TP_VK_UINT8: case TP_VK_INT8: return 1;
  case TP_VK_FLOAT16: return 2;
  case TP_VK_INT32: case TP_VK_FLOAT32: return 4;
  case TP_VK_FLOAT64: case TP_VK_INT64: return 8;
  default: return 0;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in;
  uint8_t *blob, *ptdb;
  size_t blob_n, ptd_n;
  tp_ptd ptd;
  int have_ptd = 0;
  tp_vk_header h;
  tp_vk_blob rb;
  uint32_t i;
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

  st = tp_vk_parse_header(blob, blob_n, &h);
  if (st == TP_OK) {
    if ((uint64_t)h.flatbuffer_offset + h.flatbuffer_size > blob_n ||
        (uint64_t)h.bytes_offset + h.bytes_size > blob_n)
      fz_fail("header regions outside the blob", 0);
  } else if (st != TP_ERR_FORMAT) {
    fz_fail("parse_header: status other than FORMAT", 0);
  }

  w0 = fz_work();
  st = tp_vk_check_blob(blob, blob_n, have_ptd ? &ptd : NULL, &err);
  fz_bound("fuzz_vk_blob", "tp_vk_check_blob work", fz_work() - w0, size, FZ_VK_K, FZ_VK_C);
  if (st != TP_OK && ((st != TP_ERR_FORMAT && st != TP_ERR_NOMEM) || err.status != st ||
                      err.msg[0] == 0))
    fz_fail("check_blob: a failure other than FORMAT, or without its sentence", 0);
  memset(&err, 0, sizeof err);
  w0 = fz_work();
  st = tp_vk_read_blob(blob, blob_n, have_ptd ? &ptd : NULL, &rb, &err);
  fz_bound("fuzz_vk_blob", "tp_vk_read_blob work", fz_work() - w0, size, FZ_VK_K, FZ_VK_C);
  if (st == TP_OK) {
    uint64_t acc = 0;
    for (i = 0; i < rb.num_values; i++) {
      const tp_vk_blob_value *v = &rb.values[i];
      if (v->ndim > TP_MAX_DIMS) fz_fail("ndim over TP_MAX_DIMS", i);
      if (v->key) acc += strlen(v->key);
      if (v->is_constant) {
        uint64_t n = fz_dtype_size(v->datatype), k;
        const unsigned char *d = (const unsigned char *)v->data;
        uint32_t j;
        for (j = 0; j < v->ndim && n; j++) n *= v->dims[j]; /* small: bytes exist */
        if (fz_dtype_size(v->datatype) == 0) fz_fail("constant of an unknown datatype", i);
        if (n != v->nbytes) fz_fail("nbytes != numel(dims) x datatype size", i);
        if (!v->data) {
          if (v->nbytes && (!v->key || have_ptd)) fz_fail("a constant without its bytes", i);
          continue; /* named, read without a .ptd */
        }
        if (v->nbytes &&
            !fz_inside(blob, blob_n, v->data, v->nbytes) &&
            !(have_ptd && fz_inside(ptdb, ptd_n, v->data, v->nbytes)))
          fz_fail("constant bytes outside the blob and the .ptd", i);
        for (k = 0; k < v->nbytes; k++) acc += d[k];
      }
    }
    for (i = 0; i < rb.num_values; i++) { /* list items: inside the blob, read */
      const tp_vk_blob_value *v = &rb.values[i];
      size_t es = v->item_size;
      if (v->items && v->count && !fz_inside(blob, blob_n, v->items, (uint64_t)v->count * es))
        fz_fail("list items outside the blob", i);
      if (v->items && v->count) acc += v->items[(size_t)v->count * es - 1];
    }
    for (i = 0; i < rb.num_ops; i++) { /* operator names and arguments: inside the blob */
      const tp_vk_blob_op *op = &rb.ops[i];
      if (!fz_inside(blob, blob_n, op->name, op->name_len + 1))
        fz_fail("operator name outside the blob", i);
      if (op->num_args && !fz_inside(blob, blob_n, op->args, (uint64_t)op->num_args * 4))
        fz_fail("operator arguments outside the blob", i);
    }
    for (i = 0; i < rb.num_constants + rb.num_shaders; i++) { /* VkBytes: blob or .ptd */
      const tp_vk_blob_bytes *b = i < rb.num_constants ? &rb.constants[i]
                                                       : &rb.shaders[i - rb.num_constants];
      if (b->data && b->length && !fz_inside(blob, blob_n, b->data, b->length) &&
          !(have_ptd && fz_inside(ptdb, ptd_n, b->data, b->length)))
        fz_fail("VkBytes outside the blob and the .ptd", i);
      if (!b->data && b->length && (!b->named || have_ptd)) fz_fail("VkBytes without bytes", i);
    }
    fz_sink += acc;
    tp_vk_blob_free(&rb);
  } else {
    if (st != TP_ERR_FORMAT && st != TP_ERR_NOMEM) fz_fail("read_blob: odd status", 0);
    if (err.status != st) fz_fail("read_blob: err does not hold the status", 0);
  }
  fz_input_free(&in);
  return 0;
}
