/* tp_quantize_symmetric: values and scale bits identical to PyTorch's quantizers on every
   vector of tests/data/quant_vectors.h (written by tests/gen_quant_vectors.py with torch),
   the same result from non-contiguous views of the same weight, and every refusal with its
   sentence. */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"
#include "data/quant_vectors.h"
#include <stdlib.h>

#define NCASES (sizeof tqv_cases / sizeof tqv_cases[0])

static size_t groups_of(const tqv_case *c) {
  return c->group_size ? (size_t)(TQV_IN / c->group_size) : 1u;
}

static tp_tensor case_view(const tqv_case *c) {
  int64_t sz[2] = {TQV_OUT, TQV_IN};
  tp_storage s;
  tp_tensor t;
  s.data = c->w;
  s.nbytes = (size_t)TQV_OUT * TQV_IN * tp_dtype_size((tp_dtype)c->wdtype);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, (tp_dtype)c->wdtype, 2, sz, NULL, 0, &t), TP_OK);
  return t;
}

/* Every vector: the values and the scale bits, byte for byte (both are host-order arrays of
   the same element type, so memcmp holds on any host). */
static void test_vectors_bit_exact(void) {
  size_t i, ok = 0, refused = 0;
  for (i = 0; i < NCASES; i++) {
    const tqv_case *c = &tqv_cases[i];
    tp_tensor t = case_view(c);
    tp_buffer v, s;
    tp_error e;
    tp_status st = tp_quantize_symmetric(&t, c->bits, c->group_size, (tp_dtype)c->sdtype, &v,
                                         &s, &e);
    if (c->refused) {
      TPT_STATUS(st, TP_ERR_INVALID);
      if (st != TP_ERR_INVALID) printf("  case %s was not refused\n", c->name);
      TPT_CONTAINS(e.msg, "use f32 or bf16 scales");
      TPT_CHECK(v.data == NULL && s.data == NULL);
      refused++;
      continue;
    }
    TPT_STATUS(st, TP_OK);
    if (st != TP_OK) {
      printf("  case %s: %s\n", c->name, e.msg);
      continue;
    }
    TPT_EQ_U64(v.nbytes, (uint64_t)TQV_OUT * TQV_IN);
    TPT_EQ_U64(s.nbytes, (uint64_t)TQV_OUT * groups_of(c) * tp_dtype_size((tp_dtype)c->sdtype));
    if (v.nbytes == (size_t)TQV_OUT * TQV_IN && memcmp(v.data, c->q, v.nbytes) != 0) {
      size_t k;
      for (k = 0; k < v.nbytes; k++)
        if (((const int8_t *)v.data)[k] != c->q[k]) break;
      printf("  case %s: value %u is %d, PyTorch %d\n", c->name, (unsigned)k,
             ((const int8_t *)v.data)[k], c->q[k]);
      TPT_CHECK(!"values differ from PyTorch's");
    }
    if (s.nbytes == TQV_OUT * groups_of(c) * tp_dtype_size((tp_dtype)c->sdtype) &&
        memcmp(s.data, c->s, s.nbytes) != 0) {
      printf("  case %s: scales differ\n", c->name);
      TPT_CHECK(!"scales differ from PyTorch's");
    }
    else
      ok++;
    tp_buffer_release(&v);
    tp_buffer_release(&s);
  }
  /* the vectors hold both kinds, and many of each */
  TPT_CHECK(ok >= 50);
  TPT_CHECK(refused >= 8);
}

/* The same weight as non-contiguous views: transposed storage, an offset inside a larger
   storage whose other bytes are NaN (so reading outside the view would be refused), and
   negative strides (rows or columns reversed in storage). Each must give the contiguous
   result exactly. */
static void same_as_contiguous(const tqv_case *c, const tp_tensor *view) {
  tp_tensor t = case_view(c);
  tp_buffer v0, s0, v1, s1;
  tp_error e;
  TPT_STATUS(tp_quantize_symmetric(&t, c->bits, c->group_size, (tp_dtype)c->sdtype, &v0, &s0,
                                   NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(view, c->bits, c->group_size, (tp_dtype)c->sdtype, &v1, &s1,
                                   &e), TP_OK);
  if (e.status) printf("  %s: %s\n", c->name, e.msg);
  TPT_EQ_U64(v1.nbytes, v0.nbytes);
  TPT_EQ_U64(s1.nbytes, s0.nbytes);
  if (v1.nbytes == v0.nbytes) TPT_MEMEQ(v1.data, v0.data, v0.nbytes);
  if (s1.nbytes == s0.nbytes) TPT_MEMEQ(s1.data, s0.data, s0.nbytes);
  if (v1.nbytes == v0.nbytes) TPT_MEMEQ(v1.data, c->q, v0.nbytes);
  tp_buffer_release(&v0);
  tp_buffer_release(&s0);
  tp_buffer_release(&v1);
  tp_buffer_release(&s1);
}

static void test_noncontiguous_views(void) {
  size_t i, n = 0;
  for (i = 0; i < NCASES; i++) {
    const tqv_case *c = &tqv_cases[i];
    size_t es = tp_dtype_size((tp_dtype)c->wdtype);
    enum { PAD = 5, LD = TQV_IN + 3 };
    unsigned char *big;
    size_t nbig = (size_t)(PAD + TQV_OUT * LD + PAD) * es, r, k;
    int64_t tsz[2] = {TQV_IN, TQV_OUT}, bsz[2] = {TQV_OUT, TQV_IN}, bst[2] = {LD, 1};
    tp_storage st;
    tp_tensor base, view;
    const uint16_t nan16 = c->wdtype == TP_F16 ? 0x7e00 : 0x7fc0;
    const uint32_t nan32 = 0x7fc00000u;
    if (c->refused || (i % 3) != 0) continue; /* a third of the cases, every kind */
    n++;
    big = (unsigned char *)malloc(nbig);
    TPT_CHECK(big != NULL);
    if (!big) return;
    /* 1. transposed: storage holds w.t() [in][out]; the view is its transpose */
    for (r = 0; r < TQV_OUT; r++)
      for (k = 0; k < TQV_IN; k++)
        memcpy(big + (k * TQV_OUT + r) * es, (const unsigned char *)c->w + (r * TQV_IN + k) * es,
               es);
    st.data = big;
    st.nbytes = (size_t)TQV_OUT * TQV_IN * es;
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, tsz, NULL, 0, &base), TP_OK);
    TPT_STATUS(tp_transpose(&base, 0, 1, &view), TP_OK);
    TPT_CHECK(!tp_is_contiguous(&view));
    same_as_contiguous(c, &view);
    /* 2. offset and row padding inside a NaN-filled storage */
    for (k = 0; k < nbig / es; k++) {
      if (es == 4) memcpy(big + k * 4, &nan32, 4);
      else memcpy(big + k * 2, &nan16, 2);
    }
    for (r = 0; r < TQV_OUT; r++)
      memcpy(big + (PAD + r * LD) * es, (const unsigned char *)c->w + r * TQV_IN * es,
             TQV_IN * es);
    st.nbytes = nbig;
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, bsz, bst, PAD, &view), TP_OK);
    same_as_contiguous(c, &view);
    /* 3. negative strides: rows stored in reverse order and each row reversed; flipping both
       dims gives the weight back */
    for (r = 0; r < TQV_OUT; r++)
      for (k = 0; k < TQV_IN; k++)
        memcpy(big + ((TQV_OUT - 1 - r) * TQV_IN + (TQV_IN - 1 - k)) * es,
               (const unsigned char *)c->w + (r * TQV_IN + k) * es, es);
    st.nbytes = (size_t)TQV_OUT * TQV_IN * es;
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, bsz, NULL, 0, &base), TP_OK);
    TPT_STATUS(tp_flip(&base, 0, &view), TP_OK);
    TPT_STATUS(tp_flip(&view, 1, &base), TP_OK);
    TPT_CHECK(base.strides[0] < 0 && base.strides[1] < 0);
    same_as_contiguous(c, &base);
    free(big);
  }
  TPT_CHECK(n >= 15);
}

/* Hand-made facts that hold whatever the vectors say: ties go to even, zero rows get eps. */
static void test_ties_and_zero_rows(void) {
  /* 4 bits, one group: max |w| 7.5 -> scale 1, so w * 1 is w itself */
  static const float w4[8] = {7.5f, -7.5f, 2.5f, -3.5f, 0.5f, -0.5f, 6.5f, 1.5f};
  static const int8_t q4[8] = {7, -8, 2, -4, 0, 0, 6, 2};
  /* 8 bits: max |w| 127 -> scale 1 */
  static const float w8[6] = {127.0f, -126.5f, 0.5f, 1.5f, -2.5f, 100.5f};
  static const int8_t q8[6] = {127, -126, 0, 2, -2, 100};
  static const float z[2][4] = {{0, 0, 0, 0}, {-0.0f, 0, -0.0f, 0}};
  int64_t s18[2] = {1, 8}, s16[2] = {1, 6}, s24[2] = {2, 4};
  tp_storage st;
  tp_tensor t;
  tp_buffer v, s;
  float f;
  st.data = w4;
  st.nbytes = sizeof w4;
  TPT_STATUS(tp_view(st, TP_F32, 2, s18, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, NULL), TP_OK);
  TPT_MEMEQ(v.data, q4, 8);
  memcpy(&f, s.data, 4);
  TPT_CHECK(f == 1.0f);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  st.data = w8;
  st.nbytes = sizeof w8;
  TPT_STATUS(tp_view(st, TP_F32, 2, s16, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_BF16, &v, &s, NULL), TP_OK);
  TPT_MEMEQ(v.data, q8, 6);
  TPT_EQ_U64(s.nbytes, 2);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  st.data = z;
  st.nbytes = sizeof z;
  TPT_STATUS(tp_view(st, TP_F32, 2, s24, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, NULL), TP_OK);
  memcpy(&f, s.data, 4);
  TPT_CHECK(f == 1.0f / 4096.0f); /* eps 2^-12 */
  TPT_CHECK(((const int8_t *)v.data)[0] == 0 && ((const int8_t *)v.data)[7] == 0);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 2, TP_BF16, &v, &s, NULL), TP_OK);
  TPT_EQ_U64(s.nbytes, 8);
  TPT_EQ_INT(((const uint16_t *)s.data)[3], 0x0080); /* 2^-126 in bf16 */
  tp_buffer_release(&v);
  tp_buffer_release(&s);
}

static void test_refusals(void) {
  float w[3][8];
  int64_t sz[2] = {3, 8}, sz3[3] = {1, 3, 8}, sz0[2] = {0, 8}, szi[2] = {3, 0};
  tp_storage st;
  tp_tensor t;
  tp_buffer v, s;
  tp_error e;
  int i, k;
  const uint32_t qnan = 0x7fc00000u, pinf = 0x7f800000u;
  for (i = 0; i < 3; i++)
    for (k = 0; k < 8; k++) w[i][k] = (float)(i * 8 + k) * 0.1f - 1.0f;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t), TP_OK);
  memcpy(&w[2][5], &qnan, 4);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "w[2][5] (element 21) is nan");
  TPT_CHECK(v.data == NULL && v.owned == NULL && s.data == NULL);
  memcpy(&w[2][5], &pinf, 4);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "w[2][5] (element 21) is inf");
  w[2][5] = 0.5f;
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 3, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "group size 3 does not divide the 8 input channels");
  TPT_STATUS(tp_quantize_symmetric(&t, 4, -4, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 4, TP_F32, &v, &s, &e), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(e.msg, "8-bit weights are per channel");
  TPT_STATUS(tp_quantize_symmetric(&t, 3, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "3 bits");
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_I8, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "scale dtype i8");
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, NULL, &s, &e), TP_ERR_INVALID);
  TPT_STATUS(tp_quantize_symmetric(NULL, 4, 0, TP_F32, &v, &s, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_view(st, TP_F32, 3, sz3, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "has 3 dims");
  st.nbytes = 24;
  TPT_STATUS(tp_view(st, TP_I8, 2, sz, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "the weight is i8");
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, szi, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "no input channels");
  TPT_STATUS(tp_view(st, TP_F32, 2, sz0, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e), TP_OK);
  TPT_EQ_U64(v.nbytes, 0);
  TPT_EQ_U64(s.nbytes, 0);
  TPT_EQ_INT(e.status, TP_OK); /* reset on entry */
  /* a view reaching past its storage is the view check's error */
  st.nbytes = 16;
  memset(&t, 0, sizeof t);
  t.storage = st;
  t.dtype = TP_F32;
  t.ndim = 2;
  t.sizes[0] = 3;
  t.sizes[1] = 8;
  t.strides[0] = 8;
  t.strides[1] = 1;
  TPT_CHECK(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e) != TP_OK);
  TPT_CHECK(e.msg[0] != '\0');
}

int main(void) {
  TPT_RUN(test_vectors_bit_exact);
  TPT_RUN(test_noncontiguous_views);
  TPT_RUN(test_ties_and_zero_rows);
  TPT_RUN(test_refusals);
  return tpt_finish("test_quant");
}
