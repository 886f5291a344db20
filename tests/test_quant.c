/* tp_quantize_symmetric: values and scale bits identical to PyTorch's quantizers on every
   vector of tests/data/quant_vectors.h (written by tests/gen_quant_vectors.py with torch),
   the same result from non-contiguous views of the same weight, and every refusal with its
   sentence; and the one-call quantized linears of tensorpack_xnnpack.h: the blob they write
   holds exactly those values (packed) and scales (bf16 for qb4w) in XNNPACK's layout, and a C
   simulation of the qd8 integer math on the blob's own bytes is close to the float linear;
   and the Vulkan ones (linear_q4gsw, _weight_int8pack_mm): packed, transposed and padded
   constants as ExecuTorch's Vulkan passes leave them, decoded back to the same numbers. */
#include <math.h>
#include <stdlib.h>
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"
#include "data/quant_vectors.h"

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
  TPT_STATUS(tp_view(s, (tp_dtype)c->wdtype, 2, sz, NULL, 0, &t, NULL), TP_OK);
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
    {
      size_t sn = TQV_OUT * groups_of(c) * tp_dtype_size((tp_dtype)c->sdtype);
      int same = v.nbytes == (size_t)TQV_OUT * TQV_IN && s.nbytes == sn &&
                 memcmp(v.data, c->q, v.nbytes) == 0 && memcmp(s.data, c->s, sn) == 0;
      if (v.nbytes == (size_t)TQV_OUT * TQV_IN) TPT_MEMEQ(v.data, c->q, v.nbytes);
      if (s.nbytes == sn) TPT_MEMEQ(s.data, c->s, sn);
      if (same) ok++;
      else printf("  case %s: values or scales differ from PyTorch's\n", c->name);
    }
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
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, tsz, NULL, 0, &base, NULL), TP_OK);
    TPT_STATUS(tp_transpose(&base, 0, 1, &view, NULL), TP_OK);
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
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, bsz, bst, PAD, &view, NULL), TP_OK);
    same_as_contiguous(c, &view);
    /* 3. negative strides: rows stored in reverse order and each row reversed; flipping both
       dims gives the weight back */
    for (r = 0; r < TQV_OUT; r++)
      for (k = 0; k < TQV_IN; k++)
        memcpy(big + ((TQV_OUT - 1 - r) * TQV_IN + (TQV_IN - 1 - k)) * es,
               (const unsigned char *)c->w + (r * TQV_IN + k) * es, es);
    st.nbytes = (size_t)TQV_OUT * TQV_IN * es;
    TPT_STATUS(tp_view(st, (tp_dtype)c->wdtype, 2, bsz, NULL, 0, &base, NULL), TP_OK);
    TPT_STATUS(tp_flip(&base, 0, &view, NULL), TP_OK);
    TPT_STATUS(tp_flip(&view, 1, &base, NULL), TP_OK);
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
  TPT_STATUS(tp_view(st, TP_F32, 2, s18, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, NULL), TP_OK);
  TPT_MEMEQ(v.data, q4, 8);
  memcpy(&f, s.data, 4);
  TPT_CHECK(f == 1.0f);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  st.data = w8;
  st.nbytes = sizeof w8;
  TPT_STATUS(tp_view(st, TP_F32, 2, s16, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_BF16, &v, &s, NULL), TP_OK);
  TPT_MEMEQ(v.data, q8, 6);
  TPT_EQ_U64(s.nbytes, 2);
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  st.data = z;
  st.nbytes = sizeof z;
  TPT_STATUS(tp_view(st, TP_F32, 2, s24, NULL, 0, &t, NULL), TP_OK);
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
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
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
  TPT_STATUS(tp_view(st, TP_F32, 3, sz3, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "has 3 dims");
  st.nbytes = 24;
  TPT_STATUS(tp_view(st, TP_I8, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 4, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "the weight is i8");
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, szi, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "no input channels");
  TPT_STATUS(tp_view(st, TP_F32, 2, sz0, NULL, 0, &t, NULL), TP_OK);
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
  TPT_STATUS(tp_quantize_symmetric(&t, 8, 0, TP_F32, &v, &s, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "view reaches byte 96 of a 16-byte storage");
}

/* ---- XNNPACK one-call quantized linears ------------------------------------------------- */

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float frand(void) {
  return (float)((double)(tpt_rand() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* XNNPACK-style qd8 linear on decoded weights: each input row quantized asymmetric int8
   (range including 0, scale (max - min) / 255), integer sums per group times the group's
   scale, times the row scale, plus bias. */
static void sim_qd8_linear(const float *x, int M, int K, int N, const int *wv,
                           const float *wscale, int groups, const float *bias, float *y) {
  int m, n, k, gi, gsz = K / groups;
  for (m = 0; m < M; m++) {
    const float *xr = x + m * K;
    float mn = 0.0f, mx = 0.0f, sc;
    long zp;
    int xq[256];
    for (k = 0; k < K; k++) {
      if (xr[k] < mn) mn = xr[k];
      if (xr[k] > mx) mx = xr[k];
    }
    sc = mx > mn ? (mx - mn) / 255.0f : 1.0f;
    zp = lrintf(-128.0f - mn / sc);
    if (zp < -128) zp = -128;
    if (zp > 127) zp = 127;
    for (k = 0; k < K; k++) {
      long q = lrintf(xr[k] / sc) + zp;
      xq[k] = (int)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
    for (n = 0; n < N; n++) {
      double acc = 0.0;
      for (gi = 0; gi < groups; gi++) {
        long isum = 0;
        for (k = gi * gsz; k < (gi + 1) * gsz; k++) isum += (long)(xq[k] - zp) * wv[n * K + k];
        acc += (double)isum * (double)wscale[n * groups + gi];
      }
      y[m * N + n] = (float)(acc * (double)sc) + (bias ? bias[n] : 0.0f);
    }
  }
}

/* One layer per filter datatype (8-bit per channel, 4-bit per channel, 4-bit groupwise with
   f32 and with bf16 scale precision), the weight given as a transposed view (a GPT-2 Conv1D
   weight lies [in, out]). Checks the blob value by value, then the simulation against float. */
static void test_xnn_quantized_linears(void) {
  enum { M = 3, K = 128, N = 24, BS = 32 };
  static float wt[K * N], x[M * K], bias[N], yf[M * N], ys[M * N];
  static int wv[N * K];
  static float wsc[N * (K / BS)];
  static const struct { tp_xnn_datatype dt; size_t bs; tp_dtype sdt; double tol; } kinds[] = {
    {TP_XNN_QCINT8, 0, TP_F32, 0.02}, {TP_XNN_QCINT4, 0, TP_F32, 0.2},
    {TP_XNN_QBINT4, BS, TP_F32, 0.2}, {TP_XNN_QBINT4, BS, TP_BF16, 0.2}};
  int64_t wsz[2] = {K, N}, bsz[1] = {N};
  size_t xd[2] = {M, K}, yd[2] = {M, N};
  tp_storage st;
  tp_tensor wkn, w, b;
  unsigned kk;
  int i, n, k;
  for (i = 0; i < K * N; i++) wt[i] = frand() * (1.0f + (float)(i % N) * 0.1f);
  for (i = 0; i < M * K; i++) x[i] = frand() * 2.0f;
  for (n = 0; n < N; n++) bias[n] = 0.1f * (float)n;
  st.data = wt;
  st.nbytes = sizeof wt;
  TPT_STATUS(tp_view(st, TP_F32, 2, wsz, NULL, 0, &wkn, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&wkn, 0, 1, &w, NULL), TP_OK); /* [N, K], strides (1, N) */
  st.data = bias;
  st.nbytes = sizeof bias;
  TPT_STATUS(tp_view(st, TP_F32, 1, bsz, NULL, 0, &b, NULL), TP_OK);
  for (i = 0; i < M; i++)
    for (n = 0; n < N; n++) {
      double acc = bias[n];
      for (k = 0; k < K; k++) acc += (double)x[i * K + k] * (double)wt[k * N + n];
      yf[i * N + n] = (float)acc;
    }
  for (kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++) {
    tp_xnn_graph *g;
    tp_xnn_qlinear q;
    tp_membuf m;
    tp_sink sink;
    tp_xnn_blob bl;
    tp_buffer v, s;
    uint32_t xi, yi;
    int groups = kinds[kk].bs ? K / (int)kinds[kk].bs : 1, bits4 = kinds[kk].dt != TP_XNN_QCINT8;
    double worst = 0.0, ymax = 0.0;
    memset(&m, 0, sizeof m);
    memset(&bl, 0, sizeof bl);
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &xi), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_linear(g, kinds[kk].dt, kinds[kk].bs, kinds[kk].sdt, &w,
                                              &b, -INFINITY, INFINITY, xi, yi, &q), TP_OK);
    if (tp_xnn_graph_status(g) != TP_OK) printf("  %s\n", tp_xnn_graph_error(g));
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, NULL), TP_OK);
    /* the same values and scales as the quantizer gives for the weight */
    TPT_STATUS(tp_quantize_symmetric(&w, bits4 ? 4 : 8, (int64_t)kinds[kk].bs, kinds[kk].sdt, &v,
                                     &s, NULL), TP_OK);
    TPT_MEMEQ(q.values.data, v.data, v.nbytes);
    TPT_MEMEQ(q.scales.data, s.data, s.nbytes);
    TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &bl, NULL), TP_OK);
    if (bl.num_nodes == 2 && bl.num_values == 5) {
      const tp_xnn_blob_value *qd = &bl.values[q.qinput_id], *fv = &bl.values[q.filter_id];
      const unsigned char *wb = bl.constants[fv->constant_buffer_idx].data;
      const unsigned char *sb = bl.constants[fv->scale_buffer_idx].data;
      TPT_EQ_INT(bl.nodes[0].kind, TP_XNN_NODE_CONVERT);
      TPT_EQ_INT(bl.nodes[1].kind, TP_XNN_NODE_FULLY_CONNECTED);
      TPT_EQ_INT(qd->datatype, TP_XNN_QDINT8);
      TPT_EQ_INT(qd->quant, TP_XNN_QUANT_PER_TOKEN_DYNAMIC);
      TPT_EQ_INT(qd->num_nonbatch_dims, 1);
      TPT_EQ_INT(fv->datatype, kinds[kk].dt);
      TPT_EQ_INT(fv->quant, kinds[kk].bs ? TP_XNN_QUANT_PER_CHANNEL_GROUP
                                         : TP_XNN_QUANT_PER_CHANNEL);
      TPT_EQ_INT(fv->dims[0], N);
      TPT_EQ_INT(fv->dims[1], K);
      TPT_EQ_U64(fv->num_scales, (uint64_t)N * (uint64_t)groups);
      TPT_EQ_U64(bl.constants[fv->constant_buffer_idx].size, bits4 ? N * K / 2 : N * K);
      TPT_CHECK(wb != NULL && sb != NULL);
      if (!wb || !sb) continue;
      /* decode the blob's own bytes: nibbles (low = even index) minus 8, or int8; scales f32,
         or bf16 for qb4w */
      for (n = 0; n < N; n++)
        for (k = 0; k < K; k++) {
          int val = bits4 ? (int)((wb[(n * K + k) / 2] >> (4 * (k & 1))) & 0xF) - 8
                          : (int)(signed char)wb[n * K + k];
          wv[n * K + k] = val;
          if (val != ((const signed char *)v.data)[n * K + k]) worst = 1e9;
        }
      for (i = 0; i < N * groups; i++) {
        float want;
        if (kinds[kk].bs) {
          uint16_t h = (uint16_t)(sb[2 * i] | sb[2 * i + 1] << 8), hw;
          wsc[i] = tp_bf16_to_f32(h);
          if (kinds[kk].sdt == TP_F32) {
            memcpy(&want, (const unsigned char *)s.data + 4 * i, 4);
            hw = tp_f32_to_bf16(want);
          } else {
            memcpy(&hw, (const unsigned char *)s.data + 2 * i, 2);
          }
          TPT_EQ_INT(h, hw);
        } else {
          wsc[i] = tpt_f32_le(sb + 4 * i);
          memcpy(&want, (const unsigned char *)s.data + 4 * i, 4);
          TPT_CHECK(wsc[i] == want);
        }
      }
      TPT_CHECK(worst == 0.0);
      sim_qd8_linear(x, M, K, N, wv, wsc, groups, bias, ys);
      for (i = 0; i < M * N; i++) {
        double d = fabs((double)ys[i] - (double)yf[i]);
        if (d > worst) worst = d;
        if (fabs((double)yf[i]) > ymax) ymax = fabs((double)yf[i]);
      }
      printf("  qd8 x %s%s: simulated integer math vs float, max |diff| %.4g of max |y| %.4g\n",
             tp_xnn_datatype_name(kinds[kk].dt), kinds[kk].sdt == TP_BF16 ? " (bf16 scales)" : "",
             worst, ymax);
      TPT_CHECK(worst < kinds[kk].tol * ymax);
      TPT_CHECK(worst > 0.0); /* it is quantized */
    } else {
      TPT_CHECK(!"the blob should hold 2 nodes and 5 values");
    }
    tp_xnn_blob_free(&bl);
    tp_buffer_release(&v);
    tp_buffer_release(&s);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
    tp_xnn_qlinear_release(&q);
  }
}

static void test_xnn_quantized_linear_refusals(void) {
  float w[4 * 64], bias[3];
  int64_t wsz[2] = {4, 64}, bsz[1] = {3};
  size_t xd[2] = {1, 64}, yd[2] = {1, 4};
  const uint32_t qnan = 0x7fc00000u;
  tp_storage st;
  tp_tensor wv, bv;
  tp_xnn_graph *g;
  tp_xnn_qlinear q;
  uint32_t xi, yi;
  int i, c;
  for (i = 0; i < 4 * 64; i++) w[i] = (float)(i % 7) - 3.0f;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
  st.data = bias;
  st.nbytes = sizeof bias;
  TPT_STATUS(tp_view(st, TP_F32, 1, bsz, NULL, 0, &bv, NULL), TP_OK);
  for (c = 0; c < 6; c++) {
    tp_status want = TP_ERR_INVALID;
    const char *msg = "";
    tp_status got;
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &xi), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &yi), TP_OK);
    switch (c) {
      case 0:
        memcpy(&w[70], &qnan, 4);
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QBINT4, 32, TP_F32, &wv, NULL, -INFINITY,
                                             INFINITY, xi, yi, &q);
        msg = "quantized linear (node 0): quantize: w[1][6] (element 70) is nan";
        w[70] = 0.0f;
        break;
      case 1:
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QCINT8, 0, TP_F32, &wv, &bv, -INFINITY,
                                             INFINITY, xi, yi, &q);
        msg = "the bias must be an f32 view of [4]";
        break;
      case 2:
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QBINT4, 16, TP_F32, &wv, NULL, -INFINITY,
                                             INFINITY, xi, yi, &q);
        msg = "block size 16 must be a positive multiple of 32";
        break;
      case 3:
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QINT8, 0, TP_F32, &wv, NULL, -INFINITY,
                                             INFINITY, xi, yi, &q);
        msg = "filter datatype qint8";
        break;
      case 4:
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QCINT8, 0, TP_BF16, &wv, NULL, -INFINITY,
                                             INFINITY, xi, yi, &q);
        msg = "scales f32 (got bf16)";
        break;
      default:
        got = tp_xnn_define_quantized_linear(g, TP_XNN_QCINT8, 0, TP_F32, &wv, NULL, -INFINITY,
                                             INFINITY, yi + 5, yi, &q);
        msg = "input 6 must be a defined fp32 value";
        break;
    }
    TPT_STATUS(got, want);
    TPT_CONTAINS(tp_xnn_graph_error(g), msg);
    TPT_CHECK(q.values.data == NULL && q.scales.data == NULL); /* released */
    tp_xnn_graph_destroy(g);
  }
  /* the argument refusals, each its whole sentence */
  for (c = 0; c < 4; c++) {
    static const char *const want[4] = {
        "quantized linear (node 0): q is NULL",
        "quantized linear (node 0): qbint4 scales are f32 or bf16, not f16",
        "quantized linear (node 0): qbint4 needs a block size (got 0)",
        "quantized linear (node 0): no weight view"};
    tp_status got = TP_OK;
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    if (c == 0)
      got = tp_xnn_define_quantized_linear(g, TP_XNN_QCINT8, 0, TP_F32, &wv, NULL, -INFINITY,
                                           INFINITY, 0, 1, NULL);
    else if (c == 1)
      got = tp_xnn_define_quantized_linear(g, TP_XNN_QBINT4, 32, TP_F16, &wv, NULL, -INFINITY,
                                           INFINITY, 0, 1, &q);
    else if (c == 2)
      got = tp_xnn_define_quantized_linear(g, TP_XNN_QBINT4, 0, TP_F32, &wv, NULL, -INFINITY,
                                           INFINITY, 0, 1, &q);
    else
      got = tp_xnn_define_quantized_linear(g, TP_XNN_QCINT8, 0, TP_F32, NULL, NULL, -INFINITY,
                                           INFINITY, 0, 1, &q);
    TPT_STATUS(got, TP_ERR_INVALID);
    TPT_EQ_STR(tp_xnn_graph_error(g), want[c]);
    tp_xnn_graph_destroy(g);
  }
}

/* ---- Vulkan one-call quantized linears ------------------------------------------------- */

/* K = 84 (not a multiple of 8: padded to 88), N = 6 (scales and bias padded to 8), group 28. The
   weight is a transposed view. The blob's constants decode back to the quantizer's values and
   scales, and the weight-only linear they describe is close to the float one. */
static void test_vk_linear_q4gsw(void) {
  enum { M = 2, K = 84, N = 6, GS = 28, G = K / GS, K8 = 88, N4 = 8 };
  static float wt[K * N], x[M * K], bias[N];
  int64_t wsz[2] = {K, N}, bsz[1] = {N};
  size_t xd[2] = {M, K}, yd[2] = {M, N};
  tp_storage st;
  tp_tensor wkn, w, b;
  tp_vk_graph *g;
  tp_vk_qlinear q;
  tp_membuf m;
  tp_sink sink;
  tp_vk_blob rb;
  const tp_vk_blob_value *vals;
  uint32_t nv, xi, yi;
  tp_buffer v, s;
  int i, n, k, f16;
  for (i = 0; i < K * N; i++) wt[i] = frand() * (i % 5 == 0 ? 3.0f : 0.5f);
  for (i = 0; i < M * K; i++) x[i] = frand();
  for (n = 0; n < N; n++) bias[n] = (float)n - 2.5f;
  st.data = wt;
  st.nbytes = sizeof wt;
  TPT_STATUS(tp_view(st, TP_F32, 2, wsz, NULL, 0, &wkn, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&wkn, 0, 1, &w, NULL), TP_OK);
  st.data = bias;
  st.nbytes = sizeof bias;
  TPT_STATUS(tp_view(st, TP_F32, 1, bsz, NULL, 0, &b, NULL), TP_OK);
  for (f16 = 0; f16 < 2; f16++) {
    tp_dtype sdt = f16 ? TP_F16 : TP_F32;
    double worst = 0.0, ymax = 0.0;
    memset(&m, 0, sizeof m);
    TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &xi), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &yi), TP_OK);
    TPT_STATUS(tp_vk_add_linear_q4gsw(g, &w, GS, sdt, &b, xi, yi, &q), TP_OK);
    if (tp_vk_graph_status(g) != TP_OK) printf("  %s\n", tp_vk_graph_error(g));
    TPT_STATUS(tp_vk_set_io(g, &xi, 1, &yi, 1), TP_OK);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
    TPT_CHECK(tpt_holds(m.data, m.size, "et_vk.linear_q4gsw.default"));
    TPT_STATUS(tp_vk_read_blob(m.data, m.size, NULL, &rb, NULL), TP_OK);
    vals = rb.values;
    nv = rb.num_values;
    TPT_STATUS(tp_quantize_symmetric(&w, 4, GS, sdt, &v, &s, NULL), TP_OK);
    if (vals && nv > q.bias_id) {
      const tp_vk_blob_value *wv = &vals[q.weight_id], *sv = &vals[q.scales_id];
      const tp_vk_blob_value *bv = &vals[q.bias_id];
      const unsigned char *wb = (const unsigned char *)wv->data;
      const unsigned char *sb = (const unsigned char *)sv->data;
      const unsigned char *bb = (const unsigned char *)bv->data;
      TPT_EQ_INT(wv->datatype, TP_VK_UINT8);
      TPT_EQ_INT(wv->ndim, 2);
      TPT_EQ_INT(wv->dims[0], N);
      TPT_EQ_INT(wv->dims[1], K8 / 2);
      TPT_EQ_INT(sv->datatype, f16 ? TP_VK_FLOAT16 : TP_VK_FLOAT32);
      TPT_EQ_INT(sv->dims[0], G);
      TPT_EQ_INT(sv->dims[1], N4);
      TPT_EQ_INT(bv->dims[0], N4);
      TPT_EQ_INT(vals[q.weight_id + 2].type, TP_VK_INT_VALUE); /* group_size */
      for (n = 0; n < N4; n++) {
        float bw = tpt_f32_le(bb + 4 * n);
        TPT_CHECK(bw == (n < N ? bias[n] : 0.0f));
      }
      for (i = 0; i < M; i++)
        for (n = 0; n < N; n++) {
          double acc = bias[n], accf = bias[n];
          for (k = 0; k < K8; k++) {
            int val = (int)((wb[n * (K8 / 2) + k / 2] >> (4 * (k & 1))) & 0xF) - 8;
            float sc;
            size_t si = (size_t)((k < K ? k / GS : 0) * N4 + n);
            if (k >= K) {
              TPT_EQ_INT(val, 0); /* padding */
              continue;
            }
            TPT_EQ_INT(val, ((const signed char *)v.data)[n * K + k]);
            if (f16) {
              uint16_t h = (uint16_t)(sb[2 * si] | sb[2 * si + 1] << 8), hw;
              memcpy(&hw, (const unsigned char *)s.data + 2 * (size_t)(n * G + k / GS), 2);
              TPT_EQ_INT(h, hw);
              sc = tp_f16_to_f32(h);
            } else {
              float want;
              sc = tpt_f32_le(sb + 4 * si);
              memcpy(&want, (const unsigned char *)s.data + 4 * (size_t)(n * G + k / GS), 4);
              TPT_CHECK(sc == want);
            }
            acc += (double)x[i * K + k] * (double)val * (double)sc;
            accf += (double)x[i * K + k] * (double)wt[k * N + n];
          }
          if (fabs(acc - accf) > worst) worst = fabs(acc - accf);
          if (fabs(accf) > ymax) ymax = fabs(accf);
        }
      for (k = 0; k < G; k++) /* padded scale columns are 0 in every group */
        for (n = N; n < N4; n++)
          TPT_CHECK(f16 ? (sb[2 * (k * N4 + n)] | sb[2 * (k * N4 + n) + 1]) == 0
                        : le32(sb + 4 * (k * N4 + n)) == 0);
      printf("  linear_q4gsw (%s scales): dequantized weights vs float, max |diff| %.4g of "
             "max |y| %.4g\n", f16 ? "f16" : "f32", worst, ymax);
      TPT_CHECK(worst > 0.0 && worst < 0.1 * ymax);
    } else {
      TPT_CHECK(!"blob values missing");
    }
    tp_vk_blob_free(&rb);
    tp_buffer_release(&v);
    tp_buffer_release(&s);
    tp_membuf_free(&m);
    tp_vk_graph_destroy(g);
    tp_vk_qlinear_release(&q);
  }
}

static void test_vk_linear_q8csw(void) {
  enum { M = 2, K = 40, N = 5 };
  static float w[N * K], bias[N];
  int64_t wsz[2] = {N, K}, bsz[1] = {N};
  size_t xd[2] = {M, K}, yd[2] = {M, N};
  tp_storage st;
  tp_tensor wv, b;
  tp_vk_graph *g;
  tp_vk_qlinear q;
  tp_membuf m;
  tp_sink sink;
  tp_vk_blob rb;
  const tp_vk_blob_value *vals;
  uint32_t nv, xi, yi;
  tp_buffer v, s;
  int i, withbias;
  for (i = 0; i < N * K; i++) w[i] = frand();
  for (i = 0; i < N; i++) bias[i] = (float)i;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
  st.data = bias;
  st.nbytes = sizeof bias;
  TPT_STATUS(tp_view(st, TP_F32, 1, bsz, NULL, 0, &b, NULL), TP_OK);
  TPT_STATUS(tp_quantize_symmetric(&wv, 8, 0, TP_F32, &v, &s, NULL), TP_OK);
  for (withbias = 0; withbias < 2; withbias++) {
    memset(&m, 0, sizeof m);
    TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &xi), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &yi), TP_OK);
    TPT_STATUS(tp_vk_add_linear_q8csw(g, &wv, withbias ? &b : NULL, xi, yi, &q), TP_OK);
    if (tp_vk_graph_status(g) != TP_OK) printf("  %s\n", tp_vk_graph_error(g));
    TPT_STATUS(tp_vk_set_io(g, &xi, 1, &yi, 1), TP_OK);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
    TPT_CHECK(tpt_holds(m.data, m.size, "aten._weight_int8pack_mm.default"));
    TPT_EQ_INT(tpt_holds(m.data, m.size, "aten.add.Tensor"), withbias);
    TPT_CHECK((q.mm_out_id != yi) == withbias);
    TPT_STATUS(tp_vk_read_blob(m.data, m.size, NULL, &rb, NULL), TP_OK);
    vals = rb.values;
    nv = rb.num_values;
    if (vals && nv > q.scales_id) {
      TPT_EQ_INT(vals[q.weight_id].datatype, TP_VK_INT8);
      TPT_EQ_INT(vals[q.weight_id].dims[0], N);
      TPT_EQ_INT(vals[q.weight_id].dims[1], K);
      TPT_MEMEQ(vals[q.weight_id].data, v.data, v.nbytes);
      TPT_EQ_INT(vals[q.scales_id].dims[0], N);
      for (i = 0; i < N; i++) {
        float want;
        memcpy(&want, (const unsigned char *)s.data + 4 * i, 4);
        TPT_CHECK(tpt_f32_le((const unsigned char *)vals[q.scales_id].data + 4 * i) == want);
      }
    } else {
      TPT_CHECK(!"the blob's values were not read back");
    }
    tp_vk_blob_free(&rb);
    tp_membuf_free(&m);
    tp_vk_graph_destroy(g);
    tp_vk_qlinear_release(&q);
  }
  /* refusals latch with a sentence */
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &xi), TP_OK);
  TPT_STATUS(tp_vk_add_linear_q4gsw(g, &wv, 16, TP_BF16, NULL, xi, xi, &q), TP_ERR_INVALID);
  TPT_CONTAINS(tp_vk_graph_error(g), "Vulkan has no bf16");
  tp_vk_graph_destroy(g);
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_vk_add_linear_q4gsw(g, &wv, 16, TP_F32, NULL, 0, 0, &q), TP_ERR_INVALID);
  TPT_CONTAINS(tp_vk_graph_error(g), "linear_q4gsw: quantize: group size 16 does not divide");
  TPT_CHECK(q.values.data == NULL);
  tp_vk_graph_destroy(g);
  { /* the argument refusals, each its whole sentence: q4gsw's group size, and what both
       calls check first (q, the weight, the bias: an f32 [N] view, N = 5) */
    static const char *const want[4] = {
        "linear_q4gsw: group size 0 must be > 0", "linear_q8csw: q is NULL",
        "linear_q8csw: no weight view",
        "linear_q8csw: the bias must be an f32 view of [5], got f32 with 2 dims"};
    int c;
    for (c = 0; c < 4; c++) {
      tp_status got;
      TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
      if (c == 0) got = tp_vk_add_linear_q4gsw(g, &wv, 0, TP_F32, NULL, 0, 0, &q);
      else if (c == 1) got = tp_vk_add_linear_q8csw(g, &wv, NULL, 0, 0, NULL);
      else if (c == 2) got = tp_vk_add_linear_q8csw(g, NULL, NULL, 0, 0, &q);
      else got = tp_vk_add_linear_q8csw(g, &wv, &wv, 0, 0, &q);
      TPT_STATUS(got, TP_ERR_INVALID);
      TPT_EQ_STR(tp_vk_graph_error(g), want[c]);
      tp_vk_graph_destroy(g);
    }
  }
  tp_buffer_release(&v);
  tp_buffer_release(&s);
}

/* The one-call linears are building calls: from the graph's own progress callback they are
   refused before anything is quantized (the graph is being written). */
typedef struct qprog {
  tp_xnn_graph *g;
  tp_vk_graph *vg;
  const tp_tensor *w;
  uint32_t x, y;
  tp_status got;
  int calls;
} qprog;

static int qprog_fn(void *ctx, uint64_t done, uint64_t total) {
  qprog *c = (qprog *)ctx;
  (void)done;
  (void)total;
  if (c->calls++ == 0) {
    if (c->g) {
      tp_xnn_qlinear q;
      c->got = tp_xnn_define_quantized_linear(c->g, TP_XNN_QCINT8, 0, TP_F32, c->w, NULL,
                                              -INFINITY, INFINITY, c->x, c->y, &q);
    } else {
      tp_vk_qlinear q;
      c->got = tp_vk_add_linear_q4gsw(c->vg, c->w, 32, TP_F32, NULL, c->x, c->y, &q);
    }
  }
  return 0;
}

static void test_linears_refused_during_write(void) {
  static float w[4 * 64];
  int64_t sz[2] = {4, 64};
  tp_storage ws;
  tp_tensor wv;
  size_t xd[2] = {1, 64}, yd[2] = {1, 4};
  tp_membuf m;
  tp_sink sink;
  qprog c;
  int which;
  w[5] = NAN; /* quantizing first would be refused for this NaN instead: the guard comes first */
  ws.data = w;
  ws.nbytes = sizeof w;
  TPT_STATUS(tp_view(ws, TP_F32, 2, sz, NULL, 0, &wv, NULL), TP_OK);
  for (which = 0; which < 2; which++) {
    memset(&c, 0, sizeof c);
    c.w = &wv;
    memset(&m, 0, sizeof m);
    sink = tp_sink_membuf(&m);
    if (which == 0) {
      tp_xnn_options o;
      memset(&o, 0, sizeof o);
      o.progress = qprog_fn;
      o.progress_ctx = &c;
      TPT_STATUS(tp_xnn_graph_create(&o, &c.g), TP_OK);
      /* x -> abs -> y: a graph to write (the callback's ids never get looked at) */
      tp_xnn_define_tensor_value(c.g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &c.x);
      tp_xnn_define_tensor_value(c.g, TP_XNN_FP32, 2, xd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &c.y);
      TPT_STATUS(tp_xnn_define_abs(c.g, c.x, c.y, 0), TP_OK);
      TPT_STATUS(tp_xnn_write(c.g, &sink), TP_OK);
      TPT_STATUS(c.got, TP_ERR_INVALID);
      TPT_EQ_STR(tp_xnn_graph_error(c.g), "a tp_xnn_define_* or tp_xnn_set_* call during its "
                                          "own write (from the progress callback): the graph "
                                          "cannot change while it is written");
      TPT_EQ_U64(tp_xnn_graph_num_values(c.g), 2);
      tp_xnn_graph_destroy(c.g);
    } else {
      tp_vk_options o;
      memset(&o, 0, sizeof o);
      o.progress = qprog_fn;
      o.progress_ctx = &c;
      TPT_STATUS(tp_vk_graph_create(&o, &c.vg), TP_OK);
      tpt_vk_tensor(c.vg, TP_VK_FLOAT32, 2, xd, NULL, &c.x);
      tpt_vk_tensor(c.vg, TP_VK_FLOAT32, 2, yd, NULL, &c.y);
      TPT_STATUS(tp_vk_set_io(c.vg, &c.x, 1, &c.y, 1), TP_OK);
      TPT_STATUS(tp_vk_write(c.vg, &sink), TP_OK);
      TPT_STATUS(c.got, TP_ERR_INVALID);
      TPT_EQ_STR(tp_vk_graph_error(c.vg), "a tp_vk_add_* call during its own write (from the "
                                          "progress callback): the graph cannot change while "
                                          "it is written");
      tp_vk_graph_destroy(c.vg);
    }
    TPT_CHECK(c.calls > 0);
    tp_membuf_free(&m);
  }
}

int main(void) {
  TPT_RUN(test_vectors_bit_exact);
  TPT_RUN(test_noncontiguous_views);
  TPT_RUN(test_ties_and_zero_rows);
  TPT_RUN(test_refusals);
  TPT_RUN(test_xnn_quantized_linears);
  TPT_RUN(test_xnn_quantized_linear_refusals);
  TPT_RUN(test_vk_linear_q4gsw);
  TPT_RUN(test_vk_linear_q8csw);
  TPT_RUN(test_linears_refused_during_write);
  return tpt_finish("test_quant");
}
