/* fuzz_fb_reader - libFuzzer target for tensorpack's bounds-checked FlatBuffers reader.

   Input: any bytes, read as a flatbuffer (no identifier required). The walker opens the root
   table and, for every field id 0..15, reads the field as every scalar width, as a string, as
   a vector of 1/2/4/8-byte elements (every element, up to a cap), as a vector of strings, as
   a sub-table, as a vector of tables and as a union, recursing into every table it reaches
   (depth-bounded, with a per-input budget of table visits). Every byte the reader hands back
   (string bytes up to and including the NUL) is read here, so ASan sees any pointer outside
   the input (libFuzzer passes the input in a heap block of exactly `size` bytes).

   The reader's first error sticks and makes later accesses fail; the walker clears it after
   each probe to keep exploring (tables already opened stay valid: they were checked when
   opened). Invariants checked (abort on violation): a returned string is NUL-terminated at
   its reported length inside the input, every returned table/vector position lies inside the
   input, element reads past a vector's count fail with TP_ERR_BOUNDS.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"

#define FZ_MAX_ID 16       /* field ids probed: 0..15 */
#define FZ_MAX_DEPTH 6     /* recursion bound of the walker */
#define FZ_MAX_ELEMS 16    /* vector elements read per vector */
#define FZ_MAX_VISITS 16   /* tables walked per input */

typedef struct fz_ctx {
  tp_fb_reader *r;
  unsigned visits;
  volatile uint64_t sink; /* keeps the reads alive */
} fz_ctx;

static void fz_fail(const char *what) {
  fprintf(stderr, "fuzz_fb_reader: invariant broken: %s\n", what);
  abort();
}

static void fz_clear(fz_ctx *c) { memset(&c->r->err, 0, sizeof c->r->err); }

static void fz_touch_string(fz_ctx *c, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i;
  uint64_t acc = 0;
  if (!s) return;
  if (p < c->r->buf || (size_t)(p - c->r->buf) + len >= c->r->size) fz_fail("string outside");
  for (i = 0; i <= len; i++) acc += p[i]; /* includes the terminator */
  if (p[len] != 0) fz_fail("string not NUL-terminated at its length");
  c->sink += acc;
}

static void fz_walk(fz_ctx *c, const tp_fb_table *t, unsigned depth);

static void fz_vector_checks(fz_ctx *c, const tp_fb_vector *v) {
  if (!v->pos) return;
  if ((uint64_t)v->pos + (uint64_t)v->count * v->elem_size > c->r->size)
    fz_fail("vector runs past the input");
  /* one past the count must be refused with TP_ERR_BOUNDS */
  (void)tp_fb_vector_scalar(v, v->count);
  if (tp_fb_reader_status(c->r) != TP_ERR_BOUNDS) fz_fail("element past count not BOUNDS");
  fz_clear(c);
}

static void fz_walk_field(fz_ctx *c, const tp_fb_table *t, uint16_t id, unsigned depth) {
  static const size_t sizes[4] = {1, 2, 4, 8};
  uint64_t acc = 0;
  size_t i, k, len = 0;
  const char *s;
  tp_fb_table sub;
  uint8_t tag = 0;

  acc += (uint64_t)tp_fb_present(t, id);
  acc += tp_fb_u8(t, id, 1);
  fz_clear(c);
  acc += (uint64_t)(int64_t)tp_fb_i8(t, id, -1);
  fz_clear(c);
  acc += tp_fb_u16(t, id, 2);
  fz_clear(c);
  acc += (uint64_t)(int64_t)tp_fb_i16(t, id, -2);
  fz_clear(c);
  acc += tp_fb_u32(t, id, 3);
  fz_clear(c);
  acc += (uint64_t)(int64_t)tp_fb_i32(t, id, -3);
  fz_clear(c);
  acc += tp_fb_u64(t, id, 4);
  fz_clear(c);
  acc += (uint64_t)tp_fb_i64(t, id, -4);
  fz_clear(c);
  acc += (uint64_t)(tp_fb_f32(t, id, 0.5f) != 0.0f);
  fz_clear(c);
  acc += (uint64_t)(tp_fb_f64(t, id, 0.25) != 0.0);
  fz_clear(c);

  s = tp_fb_string(t, id, &len);
  fz_touch_string(c, s, len);
  fz_clear(c);

  for (k = 0; k < 4; k++) {
    tp_fb_vector v = tp_fb_vector_field(t, id, sizes[k]);
    for (i = 0; i < v.count && i < FZ_MAX_ELEMS; i++) acc += tp_fb_vector_scalar(&v, i);
    fz_clear(c);
    fz_vector_checks(c, &v);
  }
  {
    tp_fb_vector v = tp_fb_vector_field(t, id, 4);
    for (i = 0; i < v.count && i < FZ_MAX_ELEMS; i++) {
      s = tp_fb_vector_string(&v, i, &len);
      fz_touch_string(c, s, len);
      fz_clear(c);
    }
    for (i = 0; i < v.count && i < FZ_MAX_ELEMS; i++) {
      sub = tp_fb_vector_table(&v, i);
      fz_clear(c);
      if (sub.pos) fz_walk(c, &sub, depth + 1);
    }
    /* a vector of 1-byte elements read as offsets must be refused */
    v = tp_fb_vector_field(t, id, 1);
    if (v.pos && v.count) {
      sub = tp_fb_vector_table(&v, 0);
      if (sub.pos || tp_fb_reader_status(c->r) == TP_OK) fz_fail("1-byte vector read as tables");
    }
    fz_clear(c);
  }

  sub = tp_fb_table_field(t, id);
  fz_clear(c);
  if (sub.pos) fz_walk(c, &sub, depth + 1);

  if (id > 0) {
    sub = tp_fb_union_field(t, id, &tag);
    fz_clear(c);
    if (sub.pos) {
      if (tag == 0) fz_fail("union value with tag 0");
      fz_walk(c, &sub, depth + 1);
    }
  } else {
    (void)tp_fb_union_field(t, 0, &tag);
    if (tp_fb_reader_status(c->r) != TP_ERR_INVALID && t->pos) fz_fail("union id 0 accepted");
    fz_clear(c);
  }
  c->sink += acc;
}

static void fz_walk(fz_ctx *c, const tp_fb_table *t, unsigned depth) {
  uint16_t id;
  if (!t->pos || depth > FZ_MAX_DEPTH || c->visits >= FZ_MAX_VISITS) return;
  c->visits++;
  if ((uint64_t)t->pos + 4 > c->r->size || (uint64_t)t->vtable + t->vtable_size > c->r->size)
    fz_fail("table or vtable outside the input");
  for (id = 0; id < FZ_MAX_ID; id++) fz_walk_field(c, t, id, depth);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_fb_reader r;
  tp_fb_table root;
  fz_ctx c;
  tp_status st;

  /* small limits: the limit paths get exercised too */
  st = tp_fb_reader_init_ex(&r, size ? data : NULL, size, NULL, &root, 8, 2000);
  if (st != TP_OK) {
    if (root.pos) fz_fail("failed init returned a root");
    if (st != TP_ERR_FORMAT) fz_fail("init failed with a status other than FORMAT");
    return 0;
  }
  if (!root.pos) fz_fail("init OK without a root");
  memset(&c, 0, sizeof c);
  c.r = &r;
  fz_walk(&c, &root, 1);

  /* the identifier check: the input's own identifier passes, a different one fails */
  {
    char id[5];
    tp_fb_reader r2;
    memcpy(id, data + 4, 4);
    id[4] = 0;
    memset(&r2, 0, sizeof r2);
    if (strlen(id) == 4) {
      if (tp_fb_reader_init(&r2, data, size, id, &root) != TP_OK) fz_fail("own identifier");
      id[0] = (char)(id[0] == 'A' ? 'B' : 'A');
      if (tp_fb_reader_init(&r2, data, size, id, &root) != TP_ERR_FORMAT)
        fz_fail("other identifier accepted");
    }
  }
  return 0;
}
