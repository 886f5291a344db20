/* Bad inputs: a table of broken views, each with its exact status and message, checked through
   tp_view, tp_tensor_check and every function that reads tensor bytes (under ASan, over
   exact-size heap storages, so a read outside the view would be caught); NULL pointers; bad dims. */
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

typedef struct bad_case {
  const char *name;
  size_t nbytes;       /* storage size (heap, exact) */
  int null_data;
  int dtype, ndim;
  int64_t sizes[4], strides[4], offset;
  tp_status want;
  const char *msg;     /* substring of tp_tensor_check's sentence */
} bad_case;

#define BIG INT64_MAX
static const bad_case k_cases[] = {
    {"past the end", 60, 0, TP_F32, 2, {4, 4}, {4, 1}, 0, TP_ERR_BOUNDS,
     "view reaches byte 64 of a 60-byte storage"},
    {"past the end at an offset", 64, 0, TP_F32, 2, {4, 4}, {4, 1}, 1, TP_ERR_BOUNDS,
     "view reaches byte 68 of a 64-byte storage"},
    {"past the end by a stride", 4096, 0, TP_F32, 2, {16, 16}, {65, 1}, 49, TP_ERR_BOUNDS,
     "view reaches byte 4160 of a 4096-byte storage"},
    {"before the start (negative stride)", 64, 0, TP_F32, 1, {4}, {-1}, 2, TP_ERR_BOUNDS,
     "view reaches element -1, before the storage's start"},
    {"before the start (negative stride, 2-d)", 64, 0, TP_I8, 2, {3, 2}, {-5, 1}, 9, TP_ERR_BOUNDS,
     "view reaches element -1"},
    {"negative offset", 64, 0, TP_F32, 1, {1}, {1}, -1, TP_ERR_BOUNDS, "offset -1 is negative"},
    {"negative offset, empty view", 64, 0, TP_F32, 1, {0}, {1}, -3, TP_ERR_BOUNDS,
     "offset -3 is negative"},
    {"size x stride overflows", 64, 0, TP_F32, 1, {3}, {BIG / 2 + 1}, 0, TP_ERR_OVERFLOW,
     "dim 0: size 3 x stride 4611686018427387904 overflows"},
    {"sum of extents overflows", 64, 0, TP_F32, 2, {2, 2}, {BIG, 1}, 0, TP_ERR_OVERFLOW,
     "dim 1: size 2 x stride 1 overflows"},
    {"negative extents overflow", 64, 0, TP_F32, 2, {2, 2}, {-BIG, -2}, 0, TP_ERR_OVERFLOW,
     "dim 1: size 2 x stride -2 overflows"},
    {"element count overflows", 64, 0, TP_F32, 2, {1LL << 40, 1LL << 40}, {0, 0}, 0,
     TP_ERR_OVERFLOW, "element count overflows at dim 1"},
    {"byte count overflows", 64, 0, TP_F64, 1, {1LL << 61}, {0}, 0, TP_ERR_OVERFLOW,
     "2305843009213693952 elements of 8 bytes overflow"},
    {"offset plus extent overflows", 64, 0, TP_F32, 1, {4}, {1}, BIG - 1, TP_ERR_OVERFLOW,
     "offset 9223372036854775806 plus"},
    {"last byte overflows", 64, 0, TP_F64, 1, {2}, {BIG / 4}, 0, TP_ERR_OVERFLOW,
     "as a byte offset"},
    {"stride INT64_MIN, empty view", 64, 0, TP_F32, 2, {0, 2}, {1, INT64_MIN}, 0, TP_ERR_OVERFLOW,
     "stride of dim 1 is INT64_MIN"},
    {"negative size", 64, 0, TP_F32, 3, {2, -1, 3}, {3, 3, 1}, 0, TP_ERR_INVALID,
     "size of dim 1 is -1"},
    {"unknown dtype", 64, 0, 9, 1, {1}, {1}, 0, TP_ERR_INVALID, "dtype 9 is not a tp_dtype"},
    {"NULL data with bytes", 64, 1, TP_F32, 1, {1}, {1}, 0, TP_ERR_INVALID,
     "storage data is NULL but nbytes is 64"},
    {"ndim negative", 64, 0, TP_F32, -1, {1}, {1}, 0, TP_ERR_INVALID, "ndim -1 is negative"},
};

static tp_tensor hand_filled(const bad_case *c, void *mem) {
  tp_tensor t;
  int d;
  memset(&t, 0, sizeof t);
  t.storage.data = c->null_data ? NULL : mem;
  t.storage.nbytes = c->nbytes;
  t.dtype = (tp_dtype)c->dtype;
  t.ndim = c->ndim;
  for (d = 0; d < c->ndim && d < 4; d++) {
    t.sizes[d] = c->sizes[d];
    t.strides[d] = c->strides[d];
  }
  t.offset = c->offset;
  return t;
}

static tp_status null_sink_write(void *ctx, const void *p, size_t n) {
  (void)ctx; (void)p; (void)n;
  return TP_OK;
}

static void test_table(void) {
  size_t i;
  for (i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    const bad_case *c = &k_cases[i];
    void *mem = malloc(c->nbytes);
    tp_tensor t = hand_filled(c, mem), out, r;
    tp_error e;
    tp_buffer b;
    tp_sink sink;
    uint8_t order[TP_MAX_DIMS];
    size_t lo, hi;
    unsigned char dst[256];
    int failures_before = tpt_case_failures;
    memset(mem, 0, c->nbytes);
    memset(&e, 0, sizeof e);
    sink.write = null_sink_write;
    sink.ctx = NULL;
    TPT_STATUS(tp_tensor_check(&t, &e), c->want);
    TPT_EQ_INT(e.status, c->want);
    TPT_CONTAINS(e.msg, c->msg);
    TPT_STATUS(tp_tensor_check(&t, NULL), c->want);
    memset(&out, 0x5A, sizeof out);
    r = out;
    TPT_STATUS(tp_view(t.storage, t.dtype, t.ndim, t.sizes, t.strides, t.offset, &out, NULL),
               c->want);
    TPT_MEMEQ(&out, &r, sizeof out); /* out untouched on failure */
    TPT_STATUS(tp_compact(&t, TP_ORDER_ROW_MAJOR, &b), c->want);
    TPT_STATUS(tp_compact(&t, TP_ORDER_PRESERVE, &b), c->want);
    TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, dst, sizeof dst), c->want);
    TPT_STATUS(tp_compact_write(&t, TP_ORDER_PRESERVE, &sink), c->want);
    TPT_STATUS(tp_convert_write(&t, TP_F16, 0, &sink), c->want);
    TPT_STATUS(tp_pack_int4(&t, &b), c->want == TP_OK ? TP_ERR_INVALID : c->want);
    TPT_STATUS(tp_dim_order(&t, order), c->want);
    TPT_STATUS(tp_span(&t, &lo, &hi), c->want);
    if (t.ndim >= 1) {
      TPT_STATUS(tp_select(&t, 0, 0, &r, NULL), c->want);
      TPT_STATUS(tp_flip(&t, 0, &r, NULL), c->want);
      TPT_STATUS(tp_narrow(&t, 0, 0, 0, &r, NULL), c->want);
    }
    if (tpt_case_failures != failures_before) printf("  ^ in case \"%s\"\n", c->name);
    free(mem);
  }
}

static void test_too_many_dims(void) {
  int64_t sizes[TP_MAX_DIMS + 1];
  tp_storage s;
  tp_tensor t;
  tp_error e;
  int d;
  char want[64];
  unsigned char one = 0;
  for (d = 0; d <= TP_MAX_DIMS; d++) sizes[d] = 1;
  s.data = &one;
  s.nbytes = 1;
  TPT_STATUS(tp_view(s, TP_U8, TP_MAX_DIMS, sizes, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_view(s, TP_U8, TP_MAX_DIMS + 1, sizes, NULL, 0, &t, NULL), TP_ERR_INVALID);
  t.ndim = TP_MAX_DIMS + 1;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_tensor_check(&t, &e), TP_ERR_INVALID);
  snprintf(want, sizeof want, "ndim %d > TP_MAX_DIMS %d", TP_MAX_DIMS + 1, TP_MAX_DIMS);
  TPT_EQ_STR(e.msg, want);
  TPT_EQ_INT(tp_numel(&t), -1);
  TPT_EQ_U64(tp_nbytes(&t), 0);
  TPT_EQ_INT(tp_is_contiguous(&t), 0);
  TPT_EQ_INT(tp_is_dense(&t), 0);
}

static void test_nulls_and_misc(void) {
  float x[4] = {0};
  tp_storage s;
  tp_tensor t, r;
  tp_buffer b;
  int64_t sz[2] = {2, 2}, big[3] = {1LL << 32, 1LL << 32, 1LL << 32};
  uint8_t order[2];
  size_t lo, hi;
  s.data = x;
  s.nbytes = sizeof x;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, NULL, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_view(s, TP_F32, 2, NULL, NULL, 0, &t, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_view(s, TP_F32, 3, big, NULL, 0, &t, NULL), TP_ERR_OVERFLOW); /* row-major */
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_tensor_check(NULL, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_select(NULL, 0, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_select(&t, 0, 0, NULL, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_narrow(NULL, 0, 0, 1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_slice(NULL, 0, 0, 1, 1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_transpose(NULL, 0, 1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_chunk(NULL, 2, 0, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_chunk(&t, 2, 0, 0, NULL, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_flip(NULL, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_expand(NULL, 2, sz, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_dim_order(NULL, order), TP_ERR_INVALID);
  TPT_STATUS(tp_dim_order(&t, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_span(NULL, &lo, &hi), TP_ERR_INVALID);
  TPT_STATUS(tp_compact(NULL, TP_ORDER_ROW_MAJOR, &b), TP_ERR_INVALID);
  TPT_STATUS(tp_compact_into(NULL, TP_ORDER_ROW_MAJOR, x, 16), TP_ERR_INVALID);
  TPT_STATUS(tp_pack_int4(NULL, &b), TP_ERR_INVALID);
  TPT_EQ_INT(tp_numel(NULL), -1);
  TPT_EQ_U64(tp_nbytes(NULL), 0);
  TPT_EQ_INT(tp_is_contiguous(NULL), 0);
  TPT_EQ_INT(tp_is_dense(NULL), 0);
  /* bad dim indices on every op that takes one */
  TPT_STATUS(tp_select(&t, 2, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_narrow(&t, -3, 0, 1, &r, NULL), TP_ERR_INVALID); /* -2..1 are dims */
  TPT_STATUS(tp_slice(&t, 7, 0, 1, 1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_transpose(&t, 0, -3, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_chunk(&t, 2, 2, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_flip(&t, 2, &r, NULL), TP_ERR_INVALID);
  tp_buffer_release(NULL);
}

int main(void) {
  (void)tpt_range; /* the harness's random helpers are not needed here */
  TPT_RUN(test_table);
  TPT_RUN(test_too_many_dims);
  TPT_RUN(test_nulls_and_misc);
  return tpt_finish("bad_inputs");
}
