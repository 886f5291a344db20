/* Conversions fp32 <-> fp16 / bf16: bit-equal to PyTorch's c10 routines (rewritten here as the
   reference) for every non-NaN input tried, NaN keeps its sign as a quiet NaN; hand-checked edge
   values; tp_convert_write on strided views with exact little-endian bytes. */
#include "tensorpack.h"
#include "tp_test.h"
#include <math.h>

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* c10::detail::fp16_ieee_from_fp32_value, the float-arithmetic formulation. */
static uint16_t ref_f16(float f) {
  volatile float scale_to_inf = f_of(0x77800000u), scale_to_zero = f_of(0x08800000u);
  volatile float base = (fabsf(f) * scale_to_inf);
  uint32_t w = u_of(f), shl1_w = w + w, sign = w & 0x80000000u, bias = shl1_w & 0xFF000000u;
  uint32_t bits, exp_bits, mant_bits;
  base = base * scale_to_zero;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = f_of((bias >> 1) + 0x07800000u) + base;
  bits = u_of(base);
  exp_bits = (bits >> 13) & 0x7C00u;
  mant_bits = bits & 0x0FFFu;
  return (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : exp_bits + mant_bits));
}
/* c10::detail::round_to_nearest_even (NaN -> 0x7FC0 there; we keep the sign). */
static uint16_t ref_bf16(float f) {
  uint32_t u = u_of(f);
  if (f != f) return (uint16_t)((u >> 16 & 0x8000u) | 0x7FC0u);
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
/* exact value of a half, via ldexp */
static float ref_f16_to_f32(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 31) return f_of(((uint32_t)(h & 0x8000u) << 16) | 0x7F800000u | ((uint32_t)m << 13));
  v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(1024 + m), e - 25);
  return (h & 0x8000u) ? -v : v;
}

static void test_f16_edges(void) {
  static const struct { uint32_t in; uint16_t out; } k[] = {
      {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, {0x7F800000u, 0x7C00}, {0xFF800000u, 0xFC00},
      {0x7FC00000u, 0x7E00}, {0xFFC00000u, 0xFE00}, {0x7F800001u, 0x7E00}, {0xFF800001u, 0xFE00},
      {0x477FE000u, 0x7BFF}, /* 65504, max finite */
      {0x477FEFFFu, 0x7BFF}, /* just below 65520 */
      {0x477FF000u, 0x7C00}, /* 65520 -> inf */
      {0xC77FF000u, 0xFC00}, {0x7F7FFFFFu, 0x7C00},
      {0x3F800000u, 0x3C00}, /* 1 */
      {0x3F801000u, 0x3C00}, /* 1 + 2^-11: tie, even stays */
      {0x3F803000u, 0x3C02}, /* 1 + 3 * 2^-11: tie, rounds to even above */
      {0x3F801001u, 0x3C01}, /* just above the tie */
      {0x3FFFF000u, 0x4000}, /* 2 - 2^-12 rounds up into the next binade */
      {0x33800000u, 0x0001}, /* 2^-24, smallest subnormal */
      {0x33000000u, 0x0000}, /* 2^-25: tie to even zero */
      {0x33000001u, 0x0001}, /* above the tie */
      {0x33C00000u, 0x0002}, /* 3 * 2^-25: tie to even 2 */
      {0x38800000u, 0x0400}, /* 2^-14, smallest normal */
      {0x387FE000u, 0x0400}, /* 1023.5 subnormal units: rounds up into the normals */
      {0x387FC000u, 0x03FF}, /* 1023 units, largest subnormal */
      {0x00000001u, 0x0000}, {0x80000001u, 0x8000}, /* f32 subnormals */
      {0xC0490FDBu, 0xC248}, /* -pi */
  };
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; i++) {
    uint16_t got = tp_f32_to_f16(f_of(k[i].in));
    if (got != k[i].out) printf("  f16 of 0x%08x: got 0x%04x want 0x%04x\n", k[i].in, got, k[i].out);
    TPT_EQ_INT(got, k[i].out);
    if (!(k[i].in == 0x7F800001u || k[i].in == 0xFF800001u || (k[i].in & 0x7FFFFFFFu) == 0x7FC00000u))
      TPT_EQ_INT(ref_f16(f_of(k[i].in)), k[i].out); /* the reference agrees on non-NaN */
  }
}

static void test_bf16_edges(void) {
  static const struct { uint32_t in; uint16_t out; } k[] = {
      {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, {0x7F800000u, 0x7F80}, {0xFF800000u, 0xFF80},
      {0x7FC00000u, 0x7FC0}, {0xFFC00001u, 0xFFC0}, /* sign kept */
      {0x7F800001u, 0x7FC0}, /* signalling -> quiet */
      {0x7FA00000u, 0x7FE0}, /* payload's top bits kept, quiet bit set */
      {0x3F800000u, 0x3F80}, {0x3F808000u, 0x3F80}, /* tie, even */
      {0x3F818000u, 0x3F82}, /* tie, odd -> up */
      {0x3F808001u, 0x3F81}, {0x7F7FFFFFu, 0x7F80}, /* max f32 rounds to inf, as PyTorch */
      {0x7F7F7FFFu, 0x7F7F}, {0x00000001u, 0x0000}, {0x00008000u, 0x0000}, {0x00018000u, 0x0002},
      {0x3FFFFFFFu, 0x4000}, /* up into the next binade */
  };
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; i++) {
    TPT_EQ_INT(tp_f32_to_bf16(f_of(k[i].in)), k[i].out);
  }
  TPT_EQ_INT(u_of(tp_bf16_to_f32(0x3F80)), 0x3F800000u);
  TPT_EQ_INT(u_of(tp_bf16_to_f32(0xFFC1)), 0xFFC10000u);
}

/* Random bit patterns plus a sweep over every 251st pattern: bit-equal to the reference. */
static void test_against_reference(void) {
  uint64_t i;
  int bad16 = 0, badbf = 0;
  for (i = 0; i < (1ull << 32); i += 251) {
    uint32_t u = (uint32_t)i;
    float f = f_of(u);
    if (f != f) {
      uint16_t h = tp_f32_to_f16(f), b = tp_f32_to_bf16(f);
      bad16 += h != (uint16_t)(((u >> 16) & 0x8000u) | 0x7E00u);
      badbf += (b & 0x7FFFu) <= 0x7F80u || (b & 0x40u) == 0 || (b & 0x8000u) != ((u >> 16) & 0x8000u);
      continue;
    }
    bad16 += tp_f32_to_f16(f) != ref_f16(f);
    badbf += tp_f32_to_bf16(f) != ref_bf16(f);
  }
  for (i = 0; i < 2000000; i++) { /* half of them near the f16 range */
    uint32_t u = i & 1 ? (uint32_t)tpt_rand()
                       : (uint32_t)tpt_range(0x33000000, 0x47800000) | (uint32_t)(i & 2) << 30;
    float f = f_of(u);
    if (f != f) continue;
    bad16 += tp_f32_to_f16(f) != ref_f16(f);
    badbf += tp_f32_to_bf16(f) != ref_bf16(f);
  }
  TPT_EQ_INT(bad16, 0);
  TPT_EQ_INT(badbf, 0);
}

static void test_half_to_float_all(void) {
  uint32_t h;
  int bad = 0;
  for (h = 0; h < 65536; h++) {
    float got = tp_f16_to_f32((uint16_t)h), want = ref_f16_to_f32((uint16_t)h);
    bad += u_of(got) != u_of(want);
    /* round trip is exact for every non-NaN half */
    if (((h >> 10) & 31) != 31 || (h & 1023) == 0) bad += tp_f32_to_f16(got) != h;
  }
  TPT_EQ_INT(bad, 0);
  for (h = 0; h < 65536; h++) /* bf16 -> f32 -> bf16 is the identity except NaN quieting */
    if ((h & 0x7FFFu) <= 0x7F80u) bad += tp_f32_to_bf16(tp_bf16_to_f32((uint16_t)h)) != h;
  TPT_EQ_INT(bad, 0);
}

static void test_convert_write(void) {
  float src[6];
  uint32_t bits[6] = {0x3F800000u, 0x47889000u /* 70000 */, 0xFF800000u, 0x7FC00000u,
                      0x33000000u, 0xC77FF000u};
  tp_storage s;
  tp_tensor t, tt;
  tp_membuf m = {0};
  tp_sink sink = tp_sink_membuf(&m);
  int64_t sz[2] = {2, 3};
  int i;
  for (i = 0; i < 6; i++) src[i] = f_of(bits[i]);
  s.data = src;
  s.nbytes = sizeof src;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&t, 0, 1, &tt, NULL), TP_OK); /* elements 0,3,1,4,2,5 */
  TPT_STATUS(tp_convert_write(&tt, TP_F16, 0, &sink), TP_OK);
  {
    const unsigned char want[12] = {0x00, 0x3C, 0x00, 0x7E, 0x00, 0x7C, 0x00, 0x00, 0x00, 0xFC, 0x00, 0xFC};
    TPT_EQ_U64(m.size, 12);
    TPT_MEMEQ(m.data, want, 12);
  }
  m.size = 0;
  TPT_STATUS(tp_convert_write(&tt, TP_F16, TP_CONVERT_SATURATE, &sink), TP_OK);
  {
    /* 70000 -> 65504 and -65520 -> -65504; infinities and NaN untouched */
    const unsigned char want[12] = {0x00, 0x3C, 0x00, 0x7E, 0xFF, 0x7B, 0x00, 0x00, 0x00, 0xFC, 0xFF, 0xFB};
    TPT_MEMEQ(m.data, want, 12);
  }
  m.size = 0;
  TPT_STATUS(tp_convert_write(&t, TP_BF16, 0, &sink), TP_OK);
  {
    const unsigned char want[12] = {0x80, 0x3F, 0x89, 0x47, 0x80, 0xFF, 0xC0, 0x7F, 0x00, 0x33, 0x80, 0xC7};
    TPT_MEMEQ(m.data, want, 12);
  }
  { /* f16 -> f32 and bf16 -> f32 and f16 -> bf16 on a strided view */
    uint16_t h[4] = {0x3C00, 0x1111, 0xC000, 0x2222};
    int64_t n = 2, st = 2;
    tp_tensor v;
    const unsigned char want32[8] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0};
    const unsigned char wantbf[4] = {0x80, 0x3F, 0x00, 0xC0};
    s.data = h;
    s.nbytes = sizeof h;
    TPT_STATUS(tp_view(s, TP_F16, 1, &n, &st, 0, &v, NULL), TP_OK);
    m.size = 0;
    TPT_STATUS(tp_convert_write(&v, TP_F32, 0, &sink), TP_OK);
    TPT_EQ_U64(m.size, 8);
    TPT_MEMEQ(m.data, want32, 8);
    m.size = 0;
    TPT_STATUS(tp_convert_write(&v, TP_BF16, 0, &sink), TP_OK);
    TPT_MEMEQ(m.data, wantbf, 4);
    v.dtype = TP_BF16; /* 0x3C00 as bf16 = 2^-7 = 0x3C000000 */
    m.size = 0;
    TPT_STATUS(tp_convert_write(&v, TP_F32, 0, &sink), TP_OK);
    TPT_EQ_U64(tp__get_le32(m.data), 0x3C000000u);
    m.size = 0; /* same dtype: plain copy */
    TPT_STATUS(tp_convert_write(&v, TP_BF16, 0, &sink), TP_OK);
    TPT_EQ_U64(m.size, 4);
    TPT_EQ_U64(tp__get_le16(m.data + 2), 0xC000u);
    v.dtype = TP_I16;
    TPT_STATUS(tp_convert_write(&v, TP_F32, 0, &sink), TP_ERR_UNSUPPORTED);
    TPT_STATUS(tp_convert_write(&v, (tp_dtype)99, 0, &sink), TP_ERR_INVALID);
    TPT_STATUS(tp_convert_write(&v, TP_I16, 0, NULL), TP_ERR_INVALID);
  }
  { /* bf16 saturation */
    float big = f_of(0x7F7FFFFFu);
    int64_t one = 1;
    tp_tensor v;
    s.data = &big;
    s.nbytes = 4;
    TPT_STATUS(tp_view(s, TP_F32, 1, &one, NULL, 0, &v, NULL), TP_OK);
    m.size = 0;
    TPT_STATUS(tp_convert_write(&v, TP_BF16, TP_CONVERT_SATURATE, &sink), TP_OK);
    TPT_EQ_U64(tp__get_le16(m.data), 0x7F7Fu);
  }
  tp_membuf_free(&m);
}

int main(void) {
  TPT_RUN(test_f16_edges);
  TPT_RUN(test_bf16_edges);
  TPT_RUN(test_against_reference);
  TPT_RUN(test_half_to_float_all);
  TPT_RUN(test_convert_write);
  return tpt_finish("convert");
}
