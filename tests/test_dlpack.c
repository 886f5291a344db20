/* DLPack input: tp_view_from_dlpack (dlpack.h included first). Byte offsets (multiples of the
   element size and not), strides (transposed, negative, broadcast), bf16 and every mapped dtype,
   the span storage (storage_nbytes = 0), and every refusal with its exact status and sentence:
   non-CPU devices, lanes != 1, unmapped dtypes, bad shapes, bounds and overflow. Skipped
   (mk/dlpack.mk) when dlpack.h is absent. */
#include <dlpack/dlpack.h>
/* its own implementation: tp_view_from_dlpack is compiled only after dlpack.h */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"

static float g_f[12];

static DLTensor dl(void *data, int ndim, int64_t *shape, int64_t *strides, uint8_t code,
                   uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.shape = shape;
  t.strides = strides;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  return t;
}

static void fill(void) {
  int i;
  for (i = 0; i < 12; i++) g_f[i] = (float)i;
}

static void test_row_major_span(void) {
  int64_t shape[2] = {2, 3};
  DLTensor t = dl(g_f, 2, shape, NULL, kDLFloat, 32);
  tp_tensor v;
  tp_error err;
  tp_buffer b;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  TPT_EQ_INT(v.dtype, TP_F32);
  TPT_CHECK(v.storage.data == (const void *)g_f);
  TPT_EQ_U64(v.storage.nbytes, 24);   /* exactly the view: never more than it addresses */
  TPT_EQ_INT(v.offset, 0);
  TPT_EQ_INT(v.strides[0], 3);
  TPT_EQ_INT(v.strides[1], 1);
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.data == (const void *)g_f && b.owned == NULL);   /* zero-copy */
  tp_buffer_release(&b);
}

static void test_byte_offsets(void) {
  int64_t shape[1] = {3};
  DLTensor t = dl(g_f, 1, shape, NULL, kDLFloat, 32);
  tp_tensor v;
  tp_error err;
  float out[3];
  /* a multiple of the element size: the element offset */
  t.byte_offset = 8;
  TPT_STATUS(tp_view_from_dlpack(&t, sizeof g_f, &v, &err), TP_OK);
  TPT_CHECK(v.storage.data == (const void *)g_f);
  TPT_EQ_U64(v.storage.nbytes, sizeof g_f);
  TPT_EQ_INT(v.offset, 2);
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, out, sizeof out), TP_OK);
  TPT_CHECK(out[0] == 2.0f && out[2] == 4.0f);
  /* the span form: the storage starts at the view */
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_OK);
  TPT_CHECK(v.storage.data == (const void *)(g_f + 2));
  TPT_EQ_U64(v.storage.nbytes, 12);
  TPT_EQ_INT(v.offset, 0);
  /* not a multiple: the storage start moves */
  {
    static unsigned char bytes[16];
    int64_t s2[1] = {2};
    DLTensor u = dl(bytes, 1, s2, NULL, kDLInt, 16);
    u.byte_offset = 3;
    TPT_STATUS(tp_view_from_dlpack(&u, sizeof bytes, &v, &err), TP_OK);
    TPT_CHECK(v.storage.data == (const void *)(bytes + 3));
    TPT_EQ_U64(v.storage.nbytes, 13);
    TPT_EQ_INT(v.offset, 0);
    TPT_EQ_INT(v.dtype, TP_I16);
    u.byte_offset = 17;
    TPT_STATUS(tp_view_from_dlpack(&u, sizeof bytes, &v, &err), TP_ERR_BOUNDS);
    TPT_EQ_STR(err.msg, "DLPack byte_offset 17 is past the 16-byte storage");
    u.byte_offset = 15;   /* fits the start, not the two elements */
    TPT_STATUS(tp_view_from_dlpack(&u, sizeof bytes, &v, &err), TP_ERR_BOUNDS);
    TPT_EQ_STR(err.msg, "DLPack tensor: view reaches byte 4 of a 1-byte storage");
  }
  /* the caller's storage is too short for the view */
  t.byte_offset = 40;
  TPT_STATUS(tp_view_from_dlpack(&t, sizeof g_f, &v, &err), TP_ERR_BOUNDS);
  TPT_EQ_STR(err.msg, "DLPack tensor: view reaches byte 52 of a 48-byte storage");
  t.byte_offset = 0;
  {
    int64_t s1[1] = {4};
    DLTensor u = dl(g_f, 1, s1, NULL, kDLUInt, 8);
    u.byte_offset = UINT64_MAX;
    TPT_STATUS(tp_view_from_dlpack(&u, 4, &v, &err), TP_ERR_OVERFLOW);
    TPT_EQ_STR(err.msg, "DLPack byte_offset 18446744073709551615 overflows");
    /* issue 21: no pointer arithmetic may wrap: a storage past the end of the address space
       (SIZE_MAX vouched for), and a span whose byte_offset would carry data past it */
    u.byte_offset = 0;
    TPT_STATUS(tp_view_from_dlpack(&u, SIZE_MAX, &v, &err), TP_ERR_BOUNDS);
    TPT_EQ_STR(err.msg, "DLPack storage of 18446744073709551615 bytes from data runs past the end "
                        "of the address space");
    u.byte_offset = (uint64_t)UINTPTR_MAX - 1;
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_ERR_BOUNDS);
    TPT_CONTAINS(err.msg, "runs past the end of the address space");
  }
}

static void test_strides(void) {
  int64_t shape[2] = {3, 2}, strides[2] = {1, 3};   /* the transpose of a 2x3 */
  DLTensor t = dl(g_f, 2, shape, strides, kDLFloat, 32);
  tp_tensor v;
  tp_error err;
  float out[6];
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_OK);
  TPT_EQ_U64(v.storage.nbytes, 24);
  TPT_EQ_INT(tp_is_contiguous(&v), 0);
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, out, sizeof out), TP_OK);
  TPT_CHECK(out[0] == 0.0f && out[1] == 3.0f && out[2] == 1.0f && out[5] == 5.0f);
  /* negative stride: data points at the last element of a flipped row */
  {
    int64_t s1[1] = {4}, st1[1] = {-2};
    DLTensor u = dl(g_f + 7, 1, s1, st1, kDLFloat, 32);
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_OK);
    TPT_CHECK(v.storage.data == (const void *)(g_f + 1));
    TPT_EQ_U64(v.storage.nbytes, 28);
    TPT_EQ_INT(v.offset, 6);
    TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, out, sizeof out), TP_OK);
    TPT_CHECK(out[0] == 7.0f && out[1] == 5.0f && out[3] == 1.0f);
    /* with the caller's storage instead, the view reaches before it */
    TPT_STATUS(tp_view_from_dlpack(&u, 20, &v, &err), TP_ERR_BOUNDS);
    TPT_EQ_STR(err.msg, "DLPack tensor: view reaches element -6, before the storage's start");
    /* a pointer so low that the span would start below address 0 */
    u.data = (void *)(uintptr_t)8;
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_ERR_BOUNDS);
    TPT_EQ_STR(err.msg, "DLPack view reaches 24 bytes before data + byte_offset, below address 0");
  }
  /* broadcast (stride 0) and an empty view */
  {
    int64_t s2[2] = {5, 2}, st2[2] = {0, 1}, e[2] = {0, 7};
    DLTensor u = dl(g_f, 2, s2, st2, kDLFloat, 32);
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_OK);
    TPT_EQ_U64(v.storage.nbytes, 8);
    u = dl(g_f, 2, e, NULL, kDLFloat, 32);
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_OK);
    TPT_EQ_U64(v.storage.nbytes, 0);
    TPT_EQ_INT(tp_numel(&v), 0);
  }
  /* overflowing extents */
  {
    int64_t s2[2] = {3, 2}, st2[2] = {INT64_MAX / 2 + 1, 1};
    DLTensor u = dl(g_f, 2, s2, st2, kDLFloat, 32);
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_ERR_OVERFLOW);
    TPT_EQ_STR(err.msg, "DLPack dim 0: size 3 x stride 4611686018427387904 overflows");
    st2[0] = INT64_MAX / 4;
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_ERR_OVERFLOW);
    TPT_EQ_STR(err.msg, "DLPack view's extent (elements 0 to 4611686018427387903 of 4 bytes) "
                        "overflows");
    st2[0] = INT64_MIN;
    TPT_STATUS(tp_view_from_dlpack(&u, 0, &v, &err), TP_ERR_OVERFLOW);
    TPT_EQ_STR(err.msg, "DLPack dim 0: size 3 x stride -9223372036854775808 overflows");
  }
}

static void test_dtypes(void) {
  static const uint8_t codes[10] = {kDLFloat, kDLFloat, kDLFloat, kDLBfloat, kDLInt,
                                    kDLInt,   kDLInt,   kDLInt,   kDLUInt,   6};
  static const uint8_t bits[10] = {16, 32, 64, 16, 8, 16, 32, 64, 8, 8};
  static const tp_dtype want[10] = {TP_F16, TP_F32, TP_F64, TP_BF16, TP_I8,
                                    TP_I16, TP_I32, TP_I64, TP_U8,   TP_BOOL};
  int k;
  for (k = 0; k < 10; k++) {
    int64_t shape[1] = {2};
    DLTensor t = dl(g_f, 1, shape, NULL, codes[k], bits[k]);
    tp_tensor v;
    TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, NULL), TP_OK);
    TPT_EQ_INT(v.dtype, want[k]);
    TPT_EQ_U64(v.storage.nbytes, 2 * tp_dtype_size(want[k]));
  }
  {
    /* bf16 bytes come through unchanged */
    uint16_t h[3];
    int64_t shape[1] = {3};
    DLTensor t = dl(h, 1, shape, NULL, kDLBfloat, 16);
    tp_tensor v;
    uint16_t out[3];
    h[0] = tp_f32_to_bf16(1.5f);
    h[1] = tp_f32_to_bf16(-2.0f);
    h[2] = tp_f32_to_bf16(3.25f);
    TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, NULL), TP_OK);
    TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, out, sizeof out), TP_OK);
    TPT_CHECK(tp_bf16_to_f32(out[1]) == -2.0f && tp_bf16_to_f32(out[2]) == 3.25f);
  }
}

static void test_refused(void) {
  int64_t shape[2] = {2, 3}, neg[2] = {2, -1};
  DLTensor t = dl(g_f, 2, shape, NULL, kDLFloat, 32);
  tp_tensor v;
  tp_error err;
  t.device.device_type = kDLCUDA;
  t.device.device_id = 1;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(err.msg, "DLPack tensor on device type 2 (id 1); only kDLCPU (1) memory can be read");
  t.device.device_type = kDLCUDAHost;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(err.msg, "DLPack tensor on device type 3 (id 1); only kDLCPU (1) memory can be read");
  t.device.device_type = kDLCPU;
  t.dtype.lanes = 4;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(err.msg, "DLPack dtype has 4 lanes; only 1 is supported");
  t.dtype.lanes = 1;
  t.dtype.bits = 8;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(err.msg, "DLPack dtype code 2 with 8 bits has no tp_dtype");
  t.dtype.code = kDLComplex;
  t.dtype.bits = 64;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(err.msg, "DLPack dtype code 5 with 64 bits has no tp_dtype");
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.ndim = 17;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "DLPack tensor has 17 dims (0..16 allowed)");
  t.ndim = -1;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "DLPack tensor has -1 dims (0..16 allowed)");
  t.ndim = 2;
  t.shape = NULL;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "DLPack tensor has 2 dims and no shape");
  t.shape = neg;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "DLPack dim 1 has size -1");
  t.shape = shape;
  t.data = NULL;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "DLPack tensor's data is NULL");
  TPT_STATUS(tp_view_from_dlpack(NULL, 0, &v, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_view_from_dlpack: NULL tensor");
  t.data = g_f;
  TPT_STATUS(tp_view_from_dlpack(&t, 0, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_view_from_dlpack: NULL out");
  /* err is reset on entry */
  TPT_STATUS(tp_view_from_dlpack(&t, 0, &v, &err), TP_OK);
  TPT_EQ_INT(err.status, TP_OK);
  TPT_EQ_STR(err.msg, "");
}

int main(void) {
  (void)tpt_range;
  fill();
  TPT_RUN(test_row_major_span);
  TPT_RUN(test_byte_offsets);
  TPT_RUN(test_strides);
  TPT_RUN(test_dtypes);
  TPT_RUN(test_refused);
  return tpt_finish("dlpack");
}
