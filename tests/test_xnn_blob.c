/* test_xnn_blob.c - tensorpack_xnnpack.h: exact blob bytes and fields (read back with
   tensorpack's bounds-checked reader), the seed's cases, named mode, and every error path. */
#include <math.h>
#include <stdlib.h>

#include "tensorpack_xnnpack.h"
#include "tp_test.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct blob {
  tp_membuf m;
  uint32_t fb_off, fb_size, cd_off;
  uint64_t cd_size;
  tp_fb_reader r;
  tp_fb_table root;
} blob;

/* Writes g, checks blob_size == bytes written and the header, opens the flatbuffer. */
static int blob_write(tp_xnn_graph *g, blob *b) {
  uint64_t size = 0;
  tp_sink s;
  memset(b, 0, sizeof *b);
  s = tp_sink_membuf(&b->m);
  TPT_STATUS(tp_xnn_blob_size(g, &size), TP_OK);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  TPT_EQ_U64(b->m.size, size);
  if (b->m.size < 32) return 0;
  TPT_MEMEQ(b->m.data, "\0\0\0\0XH00", 8);
  TPT_EQ_INT(tp__get_le16(b->m.data + 8), 30);
  b->fb_off = tp__get_le32(b->m.data + 10);
  b->fb_size = tp__get_le32(b->m.data + 14);
  b->cd_off = tp__get_le32(b->m.data + 18);
  b->cd_size = tp__get_le64(b->m.data + 22);
  TPT_EQ_INT(b->fb_off, 32);
  TPT_EQ_INT(b->m.data[30], 0);
  TPT_EQ_INT(b->m.data[31], 0);
  TPT_EQ_U64(b->cd_off % 16, 0);
  TPT_CHECK(b->cd_off >= b->fb_off + b->fb_size && b->cd_off - (b->fb_off + b->fb_size) < 64);
  TPT_EQ_U64((uint64_t)b->cd_off + b->cd_size, b->m.size);
  TPT_MEMEQ(b->m.data + b->fb_off + 4, "XN01", 4);
  TPT_STATUS(tp_fb_reader_init(&b->r, b->m.data + b->fb_off, b->fb_size, "XN01", &b->root),
             TP_OK);
  return 1;
}

static void blob_free(blob *b) { tp_membuf_free(&b->m); }

/* constant_data[i]: offset, size, named_key (NULL when absent). */
static tp_fb_table cd_entry(blob *b, size_t i) {
  tp_fb_vector v = tp_fb_vector_field(&b->root, 8, 4);
  return tp_fb_vector_table(&v, i);
}
static uint32_t cd_count(blob *b) { return tp_fb_vector_field(&b->root, 8, 4).count; }

/* The XNNTensorValue of value i (plain or inside the quantized wrapper); *qtype = quant tag. */
static tp_fb_table value_tensor(blob *b, size_t i, uint8_t *vtype, tp_fb_table *qparams,
                                uint8_t *qtype) {
  tp_fb_vector v = tp_fb_vector_field(&b->root, 2, 4);
  tp_fb_table xv = tp_fb_vector_table(&v, i), u;
  uint8_t t = 0, qt = 0;
  u = tp_fb_union_field(&xv, 1, &t);
  if (vtype) *vtype = t;
  if (t == 2) {
    tp_fb_table q = tp_fb_union_field(&u, 2, &qt);
    if (qparams) *qparams = q;
    if (qtype) *qtype = qt;
    return tp_fb_table_field(&u, 0);
  }
  if (qtype) *qtype = 0;
  return u;
}

static tp_fb_table node_at(blob *b, size_t i, uint8_t *kind, tp_fb_table *xnode) {
  tp_fb_vector v = tp_fb_vector_field(&b->root, 1, 4);
  tp_fb_table n = tp_fb_vector_table(&v, i);
  if (xnode) *xnode = n;
  return tp_fb_union_field(&n, 1, kind);
}

static const unsigned char *const_bytes(blob *b, size_t i, uint64_t *size) {
  tp_fb_table e = cd_entry(b, i);
  uint64_t off = tp_fb_u64(&e, 0, 0);
  *size = tp_fb_u64(&e, 1, 0);
  TPT_CHECK(off + *size <= b->cd_size);
  TPT_EQ_U64(off % 16, 0);
  return b->m.data + b->cd_off + off;
}

static tp_tensor view_f32(const float *p, size_t n, int ndim, const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = p;
  s.nbytes = n * sizeof(float);
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sizes, NULL, 0, &t, NULL), TP_OK);
  return t;
}

/* A linear y = x W^T with W a given view ([out, in]). */
static void linear_graph(tp_xnn_graph *g, const tp_tensor *w) {
  size_t xd[2], yd[2];
  uint32_t x, wt, y;
  xd[0] = 2;
  xd[1] = (size_t)w->sizes[1];
  yd[0] = 2;
  yd[1] = (size_t)w->sizes[0];
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, w, TP_XNN_INVALID_ID, 0, &wt),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_EQ_INT(x, 0);
  TPT_EQ_INT(wt, 1);
  TPT_EQ_INT(y, 2);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y,
                                           0), TP_OK);
}

/* ---- the seed's cases --------------------------------------------------------------------- */

static float seed_storage[3 * 8 * 8];

static void test_offset_view_linear(void) {
  int64_t sz[3] = {3, 8, 8};
  tp_tensor parent = view_f32(seed_storage, 192, 3, sz), w;
  tp_xnn_graph *g;
  blob b;
  uint64_t n;
  const unsigned char *c;
  tp_fb_table t, e0, node, xnode, mm;
  uint8_t kind = 0, vt = 0;
  tp_fb_vector ins, outs, dims;
  TPT_STATUS(tp_select(&parent, 0, 1, &w, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  linear_graph(g, &w);
  if (blob_write(g, &b)) {
    TPT_EQ_INT(cd_count(&b), 2);
    e0 = cd_entry(&b, 0);
    TPT_CHECK(e0.pos != 0);
    TPT_CHECK(!tp_fb_present(&e0, 0) && !tp_fb_present(&e0, 1) && !tp_fb_present(&e0, 2));
    t = cd_entry(&b, 1);
    TPT_CHECK(t.pos != 0 && !tp_fb_present(&t, 2)); /* inline: no named_key at all */
    c = const_bytes(&b, 1, &n);
    TPT_EQ_U64(n, 256);
    TPT_MEMEQ_LE(c, seed_storage + 64, 256, 4);                 /* the view's floats */
    TPT_CHECK(memcmp(c, seed_storage, 256) != 0);         /* not the storage's first 64 */
    TPT_EQ_U64(b.cd_size, 256);
    /* values: ids, external ids, flags, dims, constant index */
    t = value_tensor(&b, 1, &vt, NULL, NULL);
    TPT_EQ_INT(vt, 1);
    TPT_EQ_INT(tp_fb_i16(&t, 0, 0), TP_XNN_FP32);
    TPT_EQ_INT(tp_fb_u32(&t, 1, 0), 2);
    dims = tp_fb_vector_field(&t, 2, 4);
    TPT_EQ_INT(dims.count, 2);
    TPT_EQ_U64(tp_fb_vector_scalar(&dims, 0), 8);
    TPT_EQ_U64(tp_fb_u32(&t, 3, 0), 1);
    TPT_EQ_U64(tp_fb_u32(&t, 4, 0), TP_XNN_INVALID_ID);
    TPT_EQ_U64(tp_fb_u32(&t, 5, 0), 0);
    TPT_EQ_U64(tp_fb_u32(&t, 6, 0), 1);
    TPT_CHECK(!tp_fb_present(&t, 7)); /* runtime_schema's dq_datatype: never written */
    t = value_tensor(&b, 2, NULL, NULL, NULL);
    TPT_EQ_U64(tp_fb_u32(&t, 4, 99), 1);
    TPT_EQ_U64(tp_fb_u32(&t, 5, 0), TP_XNN_FLAG_EXTERNAL_OUTPUT);
    TPT_EQ_U64(tp_fb_u32(&t, 6, 0), 2);
    TPT_EQ_U64(tp_fb_u32(&b.root, 3, 0), 2); /* num_externs */
    ins = tp_fb_vector_field(&b.root, 4, 4);
    outs = tp_fb_vector_field(&b.root, 5, 4);
    TPT_EQ_INT(ins.count, 1);
    TPT_EQ_INT(outs.count, 1);
    TPT_EQ_U64(tp_fb_vector_scalar(&ins, 0), 0);
    TPT_EQ_U64(tp_fb_vector_scalar(&outs, 0), 2);
    TPT_EQ_STR(tp_fb_string(&b.root, 0, NULL), "0");
    TPT_CHECK(!tp_fb_present(&b.root, 6) && !tp_fb_present(&b.root, 7));
    node = node_at(&b, 0, &kind, &xnode);
    TPT_EQ_INT(kind, TP_XNN_NODE_FULLY_CONNECTED);
    TPT_EQ_U64(tp_fb_u32(&node, 0, 0), 0);
    TPT_CHECK(!tp_fb_present(&node, 0)); /* 0 is the default: omitted, as flatc does */
    TPT_EQ_U64(tp_fb_u32(&node, 1, 0), 1);
    TPT_EQ_U64(tp_fb_u32(&node, 2, 0), TP_XNN_INVALID_ID);
    TPT_EQ_U64(tp_fb_u32(&node, 3, 0), 2);
    mm = tp_fb_table_field(&xnode, 3);
    TPT_CHECK(isinf(tp_fb_f32(&mm, 0, 0)) && tp_fb_f32(&mm, 0, 0) < 0);
    TPT_CHECK(isinf(tp_fb_f32(&mm, 1, 0)) && tp_fb_f32(&mm, 1, 0) > 0);
    TPT_STATUS(tp_fb_reader_status(&b.r), TP_OK);
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

static void test_view_at_byte0_of_larger_storage(void) {
  int64_t sz[2] = {6, 8};
  tp_tensor parent = view_f32(seed_storage, 48, 2, sz), w;
  tp_xnn_graph *g;
  blob b;
  uint64_t n;
  const unsigned char *c;
  TPT_STATUS(tp_narrow(&parent, 0, 0, 2, &w, NULL), TP_OK); /* rows 0..1 of 6: byte 0, 64 bytes */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  linear_graph(g, &w);
  if (blob_write(g, &b)) {
    c = const_bytes(&b, 1, &n);
    TPT_EQ_U64(n, 64);
    TPT_MEMEQ_LE(c, seed_storage, 64, 4);
    TPT_EQ_U64(b.cd_size, 64); /* only its bytes, not the storage's 192 */
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

static void test_qkv_chunks(void) {
  enum { E = 4 };
  static float in_proj[3 * E * E];
  int64_t sz[2] = {3 * E, E};
  tp_tensor w = view_f32(in_proj, 3 * E * E, 2, sz), part;
  tp_xnn_graph *g;
  blob b;
  int i;
  size_t xd[2] = {1, E}, yd[2] = {1, E};
  uint32_t x, wid, y;
  for (i = 0; i < 3 * E * E; i++) in_proj[i] = (float)(i * 3 + 1);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  for (i = 0; i < 3; i++) {
    TPT_STATUS(tp_chunk(&w, 3, 0, i, &part, NULL), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &part, TP_XNN_INVALID_ID, 0,
                                          &wid), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, (uint32_t)(i + 1),
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wid, TP_XNN_INVALID_ID,
                                             y, 0), TP_OK);
  }
  if (blob_write(&*g, &b)) {
    TPT_EQ_INT(cd_count(&b), 4);
    for (i = 0; i < 3; i++) {
      uint64_t n;
      const unsigned char *c = const_bytes(&b, (size_t)i + 1, &n);
      tp_fb_table t = value_tensor(&b, (size_t)(1 + 2 * i), NULL, NULL, NULL);
      TPT_EQ_U64(n, E * E * 4);
      TPT_MEMEQ_LE(c, in_proj + i * E * E, E * E * 4, 4);
      TPT_EQ_U64(tp_fb_u32(&t, 3, 0), (uint64_t)i + 1);
      t = cd_entry(&b, (size_t)i + 1);
      TPT_EQ_U64(tp_fb_u64(&t, 0, 0), (uint64_t)i * 64);
    }
    TPT_EQ_U64(tp_fb_u32(&b.root, 3, 0), 4);
    TPT_EQ_INT(tp_fb_vector_field(&b.root, 5, 4).count, 3);
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

/* Groupwise int4 with a transposed scale view: scales bf16 row-major [out][groups], equal to
   converting the transposed values one by one; weights packed (v + 8, low nibble = even). */
static void test_groupwise_int4_transposed_scale(void) {
  enum { OUT = 4, IN = 64, BS = 32, G = IN / BS };
  static int8_t wq[OUT * IN];
  static float scale_t[G * OUT]; /* stored [groups][out] */
  int64_t wsz[2] = {OUT, IN}, ssz[2] = {G, OUT};
  tp_storage ws, ss;
  tp_tensor w, st, s;
  tp_xnn_graph *g;
  blob b;
  size_t dims[2] = {OUT, IN};
  uint32_t id;
  int i, o, k;
  for (i = 0; i < OUT * IN; i++) wq[i] = (int8_t)((i * 7 + 3) % 16 - 8);
  for (i = 0; i < G * OUT; i++) scale_t[i] = 0.001f * (float)(i + 1) + 1.0f / 3.0f;
  ws.data = wq;
  ws.nbytes = sizeof wq;
  ss.data = scale_t;
  ss.nbytes = sizeof scale_t;
  TPT_STATUS(tp_view(ws, TP_I8, 2, wsz, NULL, 0, &w, NULL), TP_OK);
  TPT_STATUS(tp_view(ss, TP_F32, 2, ssz, NULL, 0, &st, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&st, 0, 1, &s, NULL), TP_OK); /* [out][groups], strides (1, OUT) */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &s, 2, 0, BS, dims,
                                                            &w, TP_XNN_INVALID_ID, 0, &id),
             TP_OK);
  if (blob_write(g, &b)) {
    uint64_t n;
    const unsigned char *c;
    tp_fb_table t, q;
    uint8_t vt = 0, qt = 0;
    tp_fb_vector sv;
    TPT_EQ_INT(cd_count(&b), 3);
    c = const_bytes(&b, 1, &n); /* the scale comes first, as upstream */
    TPT_EQ_U64(n, OUT * G * 2);
    for (o = 0; o < OUT; o++)
      for (k = 0; k < G; k++) {
        uint16_t want = tp_f32_to_bf16(scale_t[k * OUT + o]);
        TPT_EQ_INT(tp__get_le16(c + 2 * (o * G + k)), want);
      }
    c = const_bytes(&b, 2, &n);
    TPT_EQ_U64(n, OUT * IN / 2);
    for (i = 0; i < OUT * IN / 2; i++) {
      int lo = wq[2 * i] + 8, hi = wq[2 * i + 1] + 8;
      TPT_EQ_INT(c[i], lo | (hi << 4));
    }
    t = value_tensor(&b, 0, &vt, &q, &qt);
    TPT_EQ_INT(vt, 2);
    TPT_EQ_INT(qt, 4); /* PerChannelGroupQuant */
    TPT_EQ_INT(tp_fb_i16(&t, 0, 0), TP_XNN_QBINT4);
    TPT_EQ_U64(tp_fb_u32(&t, 3, 0), 2);
    sv = tp_fb_vector_field(&q, 0, 4);
    TPT_CHECK(sv.pos != 0); /* present */
    TPT_EQ_INT(sv.count, 0); /* and empty */
    TPT_EQ_INT(tp_fb_i32(&q, 1, 0), 0);
    TPT_EQ_INT(tp_fb_i32(&q, 2, 0), BS);
    TPT_CHECK(!tp_fb_present(&q, 3));
    TPT_EQ_U64(tp_fb_u32(&q, 4, 0), 1);
    TPT_EQ_U64(tp_fb_u32(&q, 5, 0), OUT * G);
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

/* Per-channel scale as a compact view vs an equal strided view into a larger storage. */
static void per_channel_blob(const tp_tensor *scale, tp_membuf *out) {
  static int8_t w[4 * 3] = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12};
  int64_t wsz[2] = {4, 3};
  tp_storage ws;
  tp_tensor wt;
  tp_xnn_graph *g;
  tp_sink s = tp_sink_membuf(out);
  size_t dims[2] = {4, 3};
  ws.data = w;
  ws.nbytes = sizeof w;
  TPT_STATUS(tp_view(ws, TP_I8, 2, wsz, NULL, 0, &wt, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, scale, 2, 0,
                                                              dims, &wt, TP_XNN_INVALID_ID, 0,
                                                              NULL), TP_OK);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  tp_xnn_graph_destroy(g);
}

static void test_per_channel_scale_view_identical_blob(void) {
  static float compact[4] = {0.5f, 0.25f, 0.125f, 2.0f};
  static float big[16] = {9, 9, 9, 0.5f, 9, 0.25f, 9, 0.125f, 9, 2.0f, 9, 9, 9, 9, 9, 9};
  int64_t n4[1] = {4}, n16[1] = {4}, st[1] = {2};
  tp_storage s;
  tp_tensor a, b;
  tp_membuf m1, m2;
  blob bl;
  memset(&m1, 0, sizeof m1);
  memset(&m2, 0, sizeof m2);
  a = view_f32(compact, 4, 1, n4);
  s.data = big;
  s.nbytes = sizeof big;
  TPT_STATUS(tp_view(s, TP_F32, 1, n16, st, 3, &b, NULL), TP_OK);
  per_channel_blob(&a, &m1);
  per_channel_blob(&b, &m2);
  TPT_EQ_U64(m1.size, m2.size);
  TPT_CHECK(m1.size > 0 && m1.size == m2.size && memcmp(m1.data, m2.data, m1.size) == 0);
  /* and the scale constant is exactly the 4 floats, the PerChannelQuant fields as the loader
     wants them */
  memset(&bl, 0, sizeof bl);
  bl.m = m2;
  if (m2.size > 32) {
    tp_fb_table t, q;
    uint8_t qt = 0;
    uint64_t n;
    const unsigned char *c;
    bl.fb_off = tp__get_le32(m2.data + 10);
    bl.fb_size = tp__get_le32(m2.data + 14);
    bl.cd_off = tp__get_le32(m2.data + 18);
    bl.cd_size = tp__get_le64(m2.data + 22);
    TPT_STATUS(tp_fb_reader_init(&bl.r, m2.data + bl.fb_off, bl.fb_size, "XN01", &bl.root),
               TP_OK);
    c = const_bytes(&bl, 1, &n);
    TPT_EQ_U64(n, 16);
    TPT_MEMEQ_LE(c, compact, 16, 4);
    c = const_bytes(&bl, 2, &n);
    TPT_EQ_U64(n, 12);
    TPT_EQ_INT((int8_t)c[1], -2);
    t = value_tensor(&bl, 0, NULL, &q, &qt);
    TPT_EQ_INT(qt, 1);
    TPT_EQ_INT(tp_fb_vector_field(&q, 0, 4).count, 0);
    TPT_CHECK(tp_fb_vector_field(&q, 0, 4).pos != 0);
    TPT_EQ_U64(tp_fb_u32(&q, 2, 0), 1);
    TPT_EQ_U64(tp_fb_u32(&q, 3, 0), 4);
    TPT_EQ_U64(tp_fb_u32(&t, 3, 0), 2);
  }
  tp_membuf_free(&m1);
  tp_membuf_free(&m2);
}

/* ---- named mode --------------------------------------------------------------------------- */

static void test_named_mode(void) {
  static float wa[16], scale[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  static int8_t wq[4 * 4];
  unsigned char le[64]; /* floats as written: little-endian */
  int64_t sz[2] = {4, 4}, s1[1] = {4};
  tp_tensor w1 = view_f32(wa, 16, 2, sz), sc = view_f32(scale, 4, 1, s1), q;
  tp_storage qs;
  tp_store *store = NULL;
  tp_xnn_options o;
  tp_xnn_graph *g;
  blob b;
  uint32_t a, bb;
  char hex[65], skey[80];
  size_t dims[2] = {4, 4};
  int i;
  for (i = 0; i < 16; i++) {
    wa[i] = (float)i * 0.5f;
    wq[i] = (int8_t)(i - 8);
  }
  qs.data = wq;
  qs.nbytes = sizeof wq;
  TPT_STATUS(tp_view(qs, TP_I8, 2, sz, NULL, 0, &q, NULL), TP_OK);
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w1, TP_XNN_INVALID_ID, 0, &a),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w1, TP_XNN_INVALID_ID, 0, &bb),
             TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc, 2, 0, dims,
                                                              &q, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  if (blob_write(g, &b)) {
    tp_fb_table e, t1, t2, qp;
    const char *key;
    TPT_EQ_U64(b.cd_size, 0);
    TPT_EQ_INT(cd_count(&b), 4); /* reserved, shared weight, scale, int8 weight */
    t1 = value_tensor(&b, 0, NULL, NULL, NULL);
    t2 = value_tensor(&b, 1, NULL, NULL, NULL);
    TPT_EQ_U64(tp_fb_u32(&t1, 3, 0), 1);
    TPT_EQ_U64(tp_fb_u32(&t2, 3, 0), 1); /* identical weights share one key and one entry */
    e = cd_entry(&b, 1);
    TPT_EQ_U64(tp_fb_u64(&e, 0, 0), UINT64_MAX);
    TPT_EQ_U64(tp_fb_u64(&e, 1, 0), 64);
    key = tp_fb_string(&e, 2, NULL);
    tpt_to_le(le, wa, 16, 4); /* keys hash the bytes as written */
    TPT_STATUS(tp_sha256_hex(le, 64, hex), TP_OK);
    TPT_EQ_STR(key, hex);
    value_tensor(&b, 2, NULL, &qp, NULL);
    TPT_EQ_U64(tp_fb_u32(&qp, 2, 0), 2);
    e = cd_entry(&b, 2);
    tpt_to_le(le, scale, 4, 4);
    TPT_STATUS(tp_sha256_hex(le, 16, hex), TP_OK);
    strcpy(skey, "scale_");
    strcat(skey, hex);
    TPT_EQ_STR(tp_fb_string(&e, 2, NULL), skey);
    TPT_EQ_U64(tp_fb_u64(&e, 0, 0), UINT64_MAX);
    e = cd_entry(&b, 3);
    TPT_STATUS(tp_sha256_hex(wq, 16, hex), TP_OK);
    TPT_EQ_STR(tp_fb_string(&e, 2, NULL), hex);
    TPT_EQ_INT(tp_store_count(store), 3);
    {
      tp_membuf pm;
      tp_sink ps;
      tp_ptd p;
      tp_ptd_entry pe;
      memset(&pm, 0, sizeof pm);
      ps = tp_sink_membuf(&pm);
      TPT_STATUS(tp_store_write_ptd(store, &ps), TP_OK);
      memset(&p, 0, sizeof p);
      TPT_STATUS(tp_ptd_open(&p, pm.data, pm.size), TP_OK);
      TPT_STATUS(tp_ptd_find(&p, skey, &pe), TP_OK);
      TPT_EQ_U64(pe.nbytes, 16);
      TPT_MEMEQ_LE(pe.data, scale, 16, 4);
      TPT_STATUS(tp_ptd_find(&p, key, &pe), TP_OK);
      TPT_MEMEQ_LE(pe.data, wa, 64, 4);
      tp_membuf_free(&pm);
    }
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* ---- layout details ----------------------------------------------------------------------- */

static void test_alignment_option(void) {
  static float w3[3] = {1, 2, 3}, w5[5] = {4, 5, 6, 7, 8};
  int64_t n3[1] = {3}, n5[1] = {5};
  tp_tensor a = view_f32(w3, 3, 1, n3), c = view_f32(w5, 5, 1, n5);
  tp_xnn_options o;
  tp_xnn_graph *g;
  blob b;
  memset(&o, 0, sizeof o);
  o.alignment = 64;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &a, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &c, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  if (blob_write(g, &b)) {
    tp_fb_table e = cd_entry(&b, 2);
    TPT_EQ_U64(b.cd_off % 64, 0);
    TPT_EQ_U64(tp_fb_u64(&e, 0, 0), 64);
    TPT_EQ_U64(b.cd_size, 128);
    TPT_MEMEQ_LE(b.m.data + b.cd_off + 64, w5, 20, 4);
    TPT_EQ_INT(b.m.data[b.cd_off + 12], 0); /* zero padding after the first */
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
  o.alignment = 48;
  g = (tp_xnn_graph *)1;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_ERR_INVALID);
  TPT_CHECK(g == NULL);
}

static void test_external_ids_ordered(void) {
  tp_xnn_graph *g;
  blob b;
  size_t d[1] = {4};
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d, NULL, 2,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d, NULL, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  /* external ids are dense 0..n-1 (a gap makes ExecuTorch read past the call's arguments) */
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d, NULL, 3,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, d, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -1.0f, 1.0f, 0, 2, 3, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -1.0f, 1.0f, 0, 2, 4, 0), TP_OK);
  TPT_STATUS(tp_xnn_set_debug_handle(g, 1, 77), TP_OK);
  TPT_STATUS(tp_xnn_set_output_min_max(g, 1, 0.0f, 6.0f), TP_OK);
  TPT_EQ_INT(tp_xnn_graph_num_values(g), 5);
  TPT_EQ_INT(tp_xnn_graph_num_nodes(g), 2);
  if (blob_write(g, &b)) {
    tp_fb_vector ins = tp_fb_vector_field(&b.root, 4, 4), outs = tp_fb_vector_field(&b.root, 5, 4);
    tp_fb_table xn, mm;
    uint8_t kind = 0;
    TPT_EQ_U64(tp_fb_u32(&b.root, 3, 0), 4);
    TPT_EQ_INT(ins.count, 2);
    TPT_EQ_U64(tp_fb_vector_scalar(&ins, 0), 2); /* external 0 */
    TPT_EQ_U64(tp_fb_vector_scalar(&ins, 1), 0); /* external 2 */
    TPT_EQ_INT(outs.count, 2);
    TPT_EQ_U64(tp_fb_vector_scalar(&outs, 0), 4); /* external 1 */
    TPT_EQ_U64(tp_fb_vector_scalar(&outs, 1), 3); /* external 3 */
    TPT_EQ_INT(cd_count(&b), 1);
    TPT_EQ_U64(b.cd_size, 0);
    node_at(&b, 1, &kind, &xn);
    TPT_EQ_INT(kind, TP_XNN_NODE_ADD);
    TPT_EQ_U64(tp_fb_u32(&xn, 2, 0), 77);
    mm = tp_fb_table_field(&xn, 3);
    TPT_CHECK(mm.pos != 0 && tp_fb_f32(&mm, 0, 0.0f) == 0.0f && tp_fb_f32(&mm, 1, 0.0f) == 6.0f);
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

static void test_qcint4_odd_last_dim(void) {
  static int8_t v[2 * 3] = {-8, 7, 0, 1, -1, 3};
  static uint8_t packed[2 * 2];
  static float sc[2] = {1.0f, 2.0f};
  int64_t sz[2] = {2, 3}, psz[2] = {2, 2}, s1[1] = {2};
  tp_storage s;
  tp_tensor t, p, scale = view_f32(sc, 2, 1, s1);
  tp_membuf m1, m2;
  int pass;
  /* row 0: (-8, 7) -> 0x f0, (0, pad) -> 0x88; row 1: (1, -1) -> 0x79, (3, pad) -> 0x8b */
  packed[0] = 0xf0;
  packed[1] = 0x88;
  packed[2] = 0x79;
  packed[3] = 0x8b;
  memset(&m1, 0, sizeof m1);
  memset(&m2, 0, sizeof m2);
  s.data = v;
  s.nbytes = sizeof v;
  TPT_STATUS(tp_view(s, TP_I8, 2, sz, NULL, 0, &t, NULL), TP_OK);
  s.data = packed;
  s.nbytes = sizeof packed;
  TPT_STATUS(tp_view(s, TP_U8, 2, psz, NULL, 0, &p, NULL), TP_OK);
  for (pass = 0; pass < 2; pass++) {
    tp_xnn_graph *g;
    size_t dims[2] = {2, 3};
    tp_sink sk = tp_sink_membuf(pass ? &m2 : &m1);
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(
                   g, TP_XNN_QCINT4, &scale, 2, 0, dims, pass ? &p : &t, TP_XNN_INVALID_ID, 0,
                   NULL), TP_OK);
    TPT_STATUS(tp_xnn_write(g, &sk), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  TPT_CHECK(m1.size == m2.size && m1.size > 0 && memcmp(m1.data, m2.data, m1.size) == 0);
  if (m1.size > 32) {
    uint32_t cd = tp__get_le32(m1.data + 18);
    TPT_MEMEQ(m1.data + cd + 16, packed, 4); /* after the 8-byte scale padded to 16 */
    TPT_MEMEQ_LE(m1.data + cd, sc, 8, 4);
  }
  tp_membuf_free(&m1);
  tp_membuf_free(&m2);
}

/* The XN01 description: every node kind of TP_XNN_NODE_LIST has a unique define name, union
   member, a table whose fields have ids 0, 1, 2 ... and a layout that is their types; the
   count comes from the list. Field ids of the non-node tables are strictly increasing. */
static void test_node_names_and_layouts(void) {
  int k, n = 0, t;
  for (k = 1; tp_xnn_describe_node(k) != NULL; k++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    const char *l = tp_xnn_node_layout(k);
    uint32_t i;
    int j;
    TPT_EQ_INT(d->kind, k);
    TPT_CHECK(l != NULL && l == d->layout && strlen(l) == d->nfields && d->nfields <= 20);
    TPT_EQ_STR(tp_xnn_node_name(k), d->name);
    TPT_CHECK(strncmp(d->member, "XNN", 3) == 0);
    for (i = 0; i < d->nfields && l; i++) {
      TPT_EQ_INT(d->fields[i].id, i);
      TPT_CHECK(d->fields[i].type == l[i]);
      TPT_CHECK(strchr("iubfv", l[i]) != NULL);
    }
    for (j = 1; j < k; j++) {
      TPT_CHECK(strcmp(tp_xnn_node_name(j), d->name) != 0);
      TPT_CHECK(strcmp(tp_xnn_describe_node(j)->member, d->member) != 0);
    }
    n++;
  }
  TPT_EQ_INT(n, TP_XNN_NODE_KINDS);
  TPT_EQ_INT(TP_XNN_NODE_COUNT, TP_XNN_NODE_KINDS + 1);
  TPT_CHECK(tp_xnn_describe_node(0) == NULL && tp_xnn_describe_node(TP_XNN_NODE_COUNT) == NULL);
  TPT_CHECK(tp_xnn_node_layout(0) == NULL && tp_xnn_node_layout(TP_XNN_NODE_COUNT) == NULL);
  TPT_EQ_STR(tp_xnn_node_name(TP_XNN_NODE_COUNT), "?");
  /* what the schema says, spelled out: a conv, the concatenates' required inputs */
  TPT_EQ_STR(tp_xnn_node_layout(TP_XNN_NODE_CONV2D), "uuuuuuuuuuuuuuuiibiu");
  TPT_EQ_STR(tp_xnn_node_layout(TP_XNN_NODE_CONCATENATE2), "uiibbiub");
  TPT_EQ_STR(tp_xnn_node_layout(TP_XNN_NODE_CONCATENATE5), "uiiiiiui");
  TPT_EQ_STR(tp_xnn_describe_node(TP_XNN_NODE_DECONV2D)->member, "XNNConvTranspose2d");
  TPT_EQ_STR(tp_xnn_describe_node(TP_XNN_NODE_DECONV2D)->table, "_XNNNodeConv");
  TPT_EQ_STR(tp_xnn_describe_node(TP_XNN_NODE_CONV2D)->fields[TP_XNN_FIELD(_XNNNodeConv, groups)].name,
             "groups");
  TPT_EQ_STR(tp_xnn_datatype_name(TP_XNN_QBINT4), "qbint4");
  for (t = 0; tp_xnn_describe_table(t) != NULL; t++) {
    const tp_xnn_table *tb = tp_xnn_describe_table(t);
    uint32_t i;
    TPT_CHECK(tb->nfields > 0);
    for (i = 1; i < tb->nfields; i++) TPT_CHECK(tb->fields[i].id > tb->fields[i - 1].id);
  }
  TPT_EQ_INT(t, 27);
  TPT_EQ_INT(TP_XNN_FIELD(XNNGraph, constant_data), 8);
  TPT_EQ_INT(TP_XNN_FIELD(PerChannelGroupQuant, scale_buffer_idx), 4);
}

static void test_write_file_atomic(void) {
  static float w[4] = {1, 2, 3, 4};
  int64_t n[1] = {4};
  tp_tensor t = view_f32(w, 4, 1, n);
  tp_xnn_graph *g;
  tp_membuf m;
  tp_sink s;
  const char *path = "/tmp/tp_test_xnn_blob.xnn";
  FILE *f;
  unsigned char buf[512];
  size_t got;
  memset(&m, 0, sizeof m);
  s = tp_sink_membuf(&m);
  remove(path);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &t, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  TPT_STATUS(tp_xnn_write_file(g, path), TP_OK);
  f = fopen(path, "rb");
  TPT_CHECK(f != NULL);
  if (f) {
    got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    TPT_EQ_U64(got, m.size);
    TPT_MEMEQ(buf, m.data, m.size < got ? m.size : got);
  }
  remove(path);
  /* a failed graph leaves no file */
  TPT_STATUS(tp_xnn_define_tensor_value(g, (tp_xnn_datatype)99, 0, NULL, NULL, TP_XNN_INVALID_ID,
                                        0, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_xnn_write_file(g, path), TP_ERR_INVALID);
  TPT_CHECK((f = fopen(path, "rb")) == NULL);
  if (f) fclose(f);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* A sink that fails after `left` bytes. */
static tp_status failing_write(void *ctx, const void *p, size_t n) {
  size_t *left = (size_t *)ctx;
  (void)p;
  if (n > *left) return TP_ERR_IO;
  *left -= n;
  return TP_OK;
}

static void test_sink_failure(void) {
  static float w[64];
  int64_t n[1] = {64};
  tp_tensor t = view_f32(w, 64, 1, n);
  tp_xnn_graph *g;
  size_t left;
  tp_sink s;
  uint64_t size = 0;
  s.write = failing_write;
  s.ctx = &left;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &t, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_blob_size(g, &size), TP_OK);
  left = 10;
  TPT_STATUS(tp_xnn_write(g, &s), TP_ERR_IO);
  TPT_STATUS(tp_xnn_graph_status(g), TP_ERR_IO); /* the write's failure, with a sentence */
  {
    char want[160];
    snprintf(want, sizeof want, "tp_xnn_write: the sink failed (i/o error) at byte 0 of %llu",
             (unsigned long long)size);
    TPT_EQ_STR(tp_xnn_graph_error(g), want);
    left = (size_t)size - 1;
    TPT_STATUS(tp_xnn_write(g, &s), TP_ERR_IO);
    TPT_CONTAINS(tp_xnn_graph_error(g), "tp_xnn_write: the sink failed (i/o error) at byte ");
  }
  left = (size_t)size;
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK); /* a sink error does not poison the graph */
  TPT_EQ_INT(left, 0);
  TPT_STATUS(tp_xnn_graph_status(g), TP_OK); /* and a good write clears it */
  TPT_EQ_STR(tp_xnn_graph_error(g), "");
  TPT_STATUS(tp_xnn_blob_size(g, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "tp_xnn_blob_size: size_out is NULL");
  TPT_STATUS(tp_xnn_write(g, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "tp_xnn_write: the sink or its write callback is NULL");
  TPT_STATUS(tp_xnn_blob_size(g, &size), TP_OK);
  TPT_EQ_STR(tp_xnn_graph_error(g), "");
  tp_xnn_graph_destroy(g);
}

/* The error rule for writes: a write_file to a missing directory fails with a sentence naming
   the path, leaves no file, does not poison the graph, and a retry once the cause is fixed (here:
   a path whose directory exists) succeeds and clears the sentence. No shell or mkdir: the suite
   also runs on Windows. */
static void test_write_file_missing_directory(void) {
  static float w[4] = {1, 2, 3, 4};
  int64_t n[1] = {4};
  tp_tensor t = view_f32(w, 4, 1, n);
  tp_xnn_graph *g;
  const char *path = "tp_test_xnn_no_such_dir_4711/g.xnn", *good = "tp_test_xnn_retry.xnn";
  char want[300];
  FILE *f;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &t, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_write_file(g, path), TP_ERR_IO);
  snprintf(want, sizeof want, "tp_xnn_write_file: cannot create a temporary file beside \"%s\": "
           "No such file or directory (does its directory exist and is it writable?)", path);
  TPT_EQ_STR(tp_xnn_graph_error(g), want);
  TPT_STATUS(tp_xnn_graph_status(g), TP_ERR_IO);
  TPT_CHECK((f = fopen(path, "rb")) == NULL);
  if (f) fclose(f);
  TPT_STATUS(tp_xnn_write_file(g, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "tp_xnn_write_file: the path is NULL or empty");
  remove(good);
  TPT_STATUS(tp_xnn_write_file(g, good), TP_OK);
  TPT_STATUS(tp_xnn_graph_status(g), TP_OK);
  TPT_EQ_STR(tp_xnn_graph_error(g), "");
  f = fopen(good, "rb");
  TPT_CHECK(f != NULL);
  if (f) fclose(f);
  remove(good);
  tp_xnn_graph_destroy(g);
}

/* ---- errors ------------------------------------------------------------------------------- */

/* Runs one failing define on a fresh graph with two fp32 values [4, 8] (ids 0, 1) and checks
   the status, the message, that a later good call returns the same, and that nothing is
   written. */
#define ERR_CASE(call, want_status, want_msg)                                              \
  do {                                                                                     \
    tp_xnn_graph *g;                                                                       \
    tp_membuf m;                                                                           \
    tp_sink sk;                                                                            \
    uint64_t sz = 0;                                                                       \
    size_t d48[2] = {4, 8};                                                                \
    memset(&m, 0, sizeof m);                                                               \
    sk = tp_sink_membuf(&m);                                                               \
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);                                      \
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d48, NULL, 0,                 \
                                          TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);       \
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d48, NULL, TP_XNN_INVALID_ID, \
                                          0, NULL), TP_OK);                                \
    TPT_STATUS((call), (want_status));                                                     \
    TPT_CONTAINS(tp_xnn_graph_error(g), (want_msg));                                       \
    TPT_EQ_INT(tp_xnn_graph_num_values(g), 2);                                             \
    TPT_STATUS(tp_xnn_graph_status(g), (want_status));                                     \
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d48, NULL, TP_XNN_INVALID_ID, \
                                          0, NULL), (want_status));                        \
    TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), (want_status));                              \
    TPT_STATUS(tp_xnn_blob_size(g, &sz), (want_status));                                   \
    TPT_STATUS(tp_xnn_write(g, &sk), (want_status));                                       \
    TPT_EQ_U64(m.size, 0);                                                                 \
    tp_membuf_free(&m);                                                                    \
    tp_xnn_graph_destroy(g);                                                               \
  } while (0)

static float err_f[256];
static int8_t err_i8[256];

static void test_errors_values(void) {
  int64_t s60[1] = {60}, s88[2] = {8, 8}, s3[1] = {3}, s4[1] = {4}, s448[2] = {4, 48},
          s42[2] = {4, 2}, s24[2] = {2, 4}, s464[2] = {4, 64}, s41[2] = {4, 1};
  size_t d88[2] = {8, 8}, d7[7] = {1, 1, 1, 1, 1, 1, 1}, d448[2] = {4, 48}, d464[2] = {4, 64};
  tp_tensor f60 = view_f32(err_f, 60, 1, s60), f88 = view_f32(err_f, 64, 2, s88);
  tp_tensor f3 = view_f32(err_f, 3, 1, s3), f4 = view_f32(err_f, 4, 1, s4);
  tp_tensor f42 = view_f32(err_f, 8, 2, s42), f24 = view_f32(err_f, 8, 2, s24);
  tp_tensor f41 = view_f32(err_f, 4, 2, s41);
  tp_tensor i448, i464, bad;
  tp_storage is;
  is.data = err_i8;
  is.nbytes = sizeof err_i8;
  TPT_STATUS(tp_view(is, TP_I8, 2, s448, NULL, 0, &i448, NULL), TP_OK);
  TPT_STATUS(tp_view(is, TP_I8, 2, s464, NULL, 0, &i464, NULL), TP_OK);
  (void)f88;

  /* bytes of the view vs dims x datatype */
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d88, &f60, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: dims [8, 8] but the data view has 1 dims: reshape the view");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP16, 2, d88, &f88, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID,
           "value 2: fp16 data must be a f16 view, not f32 (convert it: tp_convert_write(view, "
           "TP_F16, 0, sink) into a buffer, or define the value with the view's datatype)");
  ERR_CASE(tp_xnn_define_tensor_value(g, (tp_xnn_datatype)99, 2, d88, NULL, TP_XNN_INVALID_ID, 0,
                                      NULL),
           TP_ERR_INVALID, "value 2: unknown datatype 99");
  ERR_CASE(tp_xnn_define_tensor_value(g, (tp_xnn_datatype)0, 2, d88, NULL, TP_XNN_INVALID_ID, 0,
                                      NULL),
           TP_ERR_INVALID, "value 2: unknown datatype 0");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 7, d7, NULL, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: 7 dims, XNNPACK allows at most 6");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_QINT8, 2, d88, NULL, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: datatype qint8 needs a quantized define call");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d88, NULL, 0, 0, NULL), TP_ERR_INVALID,
           "value 2: external id 0 is already used by value 0");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d88, NULL, 4096, 0, NULL),
           TP_ERR_INVALID, "value 2: external id 4096, the loader allows ids below 4096");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d88, NULL, TP_XNN_INVALID_ID,
                                      TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL),
           TP_ERR_INVALID, "value 2: external input/output flags 0x2 need an external id");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d88, NULL, 5, 8, NULL), TP_ERR_INVALID,
           "value 2: unknown flag bits 0x8");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, NULL, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: 2 dims but neither dims nor data given");
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, NULL, &f88, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: num_dims 3 but the data view has 2 dims");
  /* a hand-filled view that reaches outside its storage */
  bad = f4;
  bad.offset = 2;
  ERR_CASE(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &bad, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_BOUNDS, "value 2: bad data view: ");
  /* per-tensor quantization parameters */
  ERR_CASE(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 200, 0.5f, 2, d88, NULL,
                                                TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: zero point 200 outside [-128, 127] for qint8");
  ERR_CASE(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QUINT8, 0, 0.0f, 2, d88, NULL,
                                                TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: scale 0 must be finite and > 0");
  ERR_CASE(tp_xnn_define_quantized_tensor_value(g, TP_XNN_FP32, 0, 1.0f, 2, d88, NULL,
                                                TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID,
           "value 2: datatype fp32 is not per-tensor quantized (qint8, quint8, qint32)");
  /* channelwise */
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &f3, 2, 0, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: scale has 3 elements, channel dim 0 has 4");
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &f4, 2, 2, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: channel_dim 2 but 2 dims");
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &i448, 2, 0, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: scale view is i8, must be f32");
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &bad, 2, 0, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_BOUNDS, "value 2: bad scale view: ");
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, NULL, 2, 0, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: no scale view");
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QINT8, &f4, 2, 0, d448,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID,
           "value 2: datatype qint8 is not per-channel quantized (qcint8, qcint32, qcint4)");
  /* blockwise */
  ERR_CASE(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &f41, 2, 0, 32, d448,
                                                          &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: block size 32 does not divide the 48 input channels");
  ERR_CASE(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &f42, 2, 0, 16, d448,
                                                          &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: block size 16 must be a positive multiple of 32");
  ERR_CASE(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &f24, 2, 0, 32, d464,
                                                          &i464, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: scale must be [4, 2] (out channels, groups), got 2 dims [2, 4]");
  ERR_CASE(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &f42, 2, 1, 32, d464,
                                                          &i464, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: blockwise channel_dim must be 0, got 1");
  /* 4-bit data */
  err_i8[5] = 9;
  ERR_CASE(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &f42, 2, 0, 32, d464,
                                                          &i464, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: 4-bit data: ");
  err_i8[5] = 0;
  ERR_CASE(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &f4, 2, 0, d464,
                                                            &i448, TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: data dim 1 is 48, expected 64");
  ERR_CASE(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 3, d88,
                                                            TP_XNN_INVALID_ID, 0, NULL),
           TP_ERR_INVALID, "value 2: num_nonbatch_dims 3 exceeds num_dims 2");
}

static void test_errors_nodes(void) {
  size_t perm7[7] = {0, 1, 2, 3, 4, 5, 6}, big[2] = {1, 2};
  ERR_CASE(tp_xnn_define_fully_connected(g, 0.0f, 1.0f, 0, 7, TP_XNN_INVALID_ID, 1, 0),
           TP_ERR_INVALID, "node 0 (fully_connected): filter_id 7 is not a defined value (2 values)");
  ERR_CASE(tp_xnn_define_fully_connected(g, 0.0f, 1.0f, 0, 1, 2, 1, 0), TP_ERR_INVALID,
           "node 0 (fully_connected): bias_id 2 is not a defined value");
  ERR_CASE(tp_xnn_define_add2(g, 0.0f, 1.0f, 0, 1, TP_XNN_INVALID_ID, 0), TP_ERR_INVALID,
           "node 0 (add2): output_id 4294967295 is not a defined value");
  ERR_CASE(tp_xnn_define_concatenate3(g, 0, 0, 1, 5, 1, 0), TP_ERR_INVALID,
           "node 0 (concatenate3): input3_id 5 is not a defined value");
  { /* a slot the kind does not use takes TP_XNN_INVALID_ID only (ExecuTorch ignores it) */
    tp_xnn_node_args a;
    memset(&a, 0, sizeof a);
    a.u[TP_XNN_FIELD(_XNNCat, input1_id)] = 0;
    a.u[TP_XNN_FIELD(_XNNCat, input2_id)] = 0;
    a.u[TP_XNN_FIELD(_XNNCat, input3_id)] = TP_XNN_INVALID_ID;
    a.u[TP_XNN_FIELD(_XNNCat, input4_id)] = 0;
    a.u[TP_XNN_FIELD(_XNNCat, input5_id)] = TP_XNN_INVALID_ID;
    a.u[TP_XNN_FIELD(_XNNCat, output_id)] = 1;
    ERR_CASE(tp_xnn_define_node(g, TP_XNN_NODE_CONCATENATE2, &a), TP_ERR_INVALID,
             "node 0 (concatenate2): input4_id is a slot this kind does not use: it must be "
             "TP_XNN_INVALID_ID, not 0");
  }
  ERR_CASE(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 8, 8, 0.0f, 1.0f, 0,
                                        1, TP_XNN_INVALID_ID, 9, 0),
           TP_ERR_INVALID, "node 0 (convolution_2d): output_id 9 is not a defined value");
  ERR_CASE(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, 0, 1, 3, 0), TP_ERR_INVALID,
           "node 0 (argmax_pooling_2d): output_index_id 3 is not a defined value");
  ERR_CASE(tp_xnn_define_scaled_dot_product_attention(g, 0, 1, 0, 1, 6, 1, 0), TP_ERR_INVALID,
           "node 0 (scaled_dot_product_attention): mask_id 6 is not a defined value");
  ERR_CASE(tp_xnn_define_static_transpose(g, 7, perm7, 0, 1, 0), TP_ERR_INVALID,
           "node 0 (static_transpose): 7 dims, at most 6");
  ERR_CASE(tp_xnn_define_static_constant_pad(g, big, big, 0.0f, 3, 1, 0), TP_ERR_INVALID,
           "node 0 (static_constant_pad): input_id 3 is not a defined value");
  ERR_CASE(tp_xnn_define_leaky_relu(g, 0.1f, 0, 2, 0), TP_ERR_INVALID,
           "node 0 (leaky_relu): output_id 2 is not a defined value");
  ERR_CASE(tp_xnn_set_debug_handle(g, 0, 5), TP_ERR_INVALID,
           "set_debug_handle: node 0 does not exist (0 nodes)");
  ERR_CASE(tp_xnn_set_output_min_max(g, 3, 0.0f, 1.0f), TP_ERR_INVALID,
           "set_output_min_max: node 3 does not exist (0 nodes)");
}

/* tp_xnn_define_node, the one define every call goes through: a loop over every kind of
   TP_XNN_NODE_LIST (no call per kind), each field filled by its type and read back by
   tp_xnn_read_blob; the shape column agrees with the layouts; its refusals. */
static void test_define_node_sweep(void) {
  static const char *const shapes[][2] = {{"1x1", "iiu"}, {"1x1m", "iiu"}, {"1x1f", "fiiu"},
                                          {"2x1", "iiiu"}, {"2x1m", "iiiu"}};
  tp_xnn_options o;
  tp_xnn_graph *g;
  size_t d4[4] = {1, 2, 3, 4}, va[6] = {3, 1, 4, 1, 5, 9};
  int k, kinds = 0;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED; /* field values, not meaningful nodes */
  for (k = 1; tp_xnn_describe_node(k) != NULL; k++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    tp_xnn_node_args a;
    tp_xnn_blob b;
    tp_membuf m;
    tp_sink sk;
    uint32_t i;
    size_t j;
    for (j = 0; j < sizeof shapes / sizeof shapes[0]; j++)
      if (!strcmp(d->shape, shapes[j][0])) TPT_EQ_STR(d->layout, shapes[j][1]);
    if (!strcmp(d->shape, "Nx1")) TPT_EQ_INT(d->layout[0], 'u');
    memset(&a, 0, sizeof a);
    for (i = 0; i < d->nfields; i++) {
      char t = d->layout[i];
      a.u[i] = t == 'b' ? TP_XNN_INVALID_ID : t == 'i' ? (i + (uint32_t)k) % 4 : 1000u * (uint32_t)k + i;
      a.f[i] = 0.25f * (float)k + (float)i;
      a.vec[i] = va + i % 2;
      a.vec_len[i] = (size_t)(k % 4) + 1;
    }
    a.has_output_min_max = k % 2;
    a.output_min = -(float)k;
    a.output_max = (float)k;
    memset(&m, 0, sizeof m);
    sk = tp_sink_membuf(&m);
    TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
    for (i = 0; i < 4; i++)
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, NULL,
                                            i < 2 ? i : TP_XNN_INVALID_ID,
                                            i == 0 ? TP_XNN_FLAG_EXTERNAL_INPUT
                                            : i == 1 ? TP_XNN_FLAG_EXTERNAL_OUTPUT : 0, NULL),
                 TP_OK);
    TPT_STATUS(tp_xnn_define_node(g, k, &a), TP_OK);
    TPT_STATUS(tp_xnn_write(g, &sk), TP_OK);
    TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, NULL), TP_OK);
    TPT_EQ_INT(b.num_nodes, 1);
    for (i = 0; b.num_nodes == 1 && i < d->nfields; i++) {
      const tp_xnn_blob_node *n = &b.nodes[0];
      float f;
      if (d->layout[i] == 'v') {
        TPT_EQ_INT(n->vec_len[n->f[i]], a.vec_len[i]);
        TPT_EQ_INT(n->vec[n->f[i]][0], a.vec[i][0]);
      } else if (d->layout[i] == 'f') {
        memcpy(&f, &n->f[i], sizeof f);
        TPT_CHECK(f == a.f[i]);
      } else {
        TPT_EQ_U64(n->f[i], a.u[i]);
      }
    }
    TPT_EQ_INT(b.num_nodes == 1 && b.nodes[0].has_output_min_max, k % 2);
    tp_xnn_blob_free(&b);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
    kinds++;
  }
  TPT_EQ_INT(kinds, TP_XNN_NODE_KINDS);
}

static void test_define_node_errors(void) {
  tp_xnn_node_args a;
  char want[2][80];
  memset(&a, 0, sizeof a);
  snprintf(want[0], sizeof want[0], "node 0: kind 0 is not a node kind (1..%d)",
           (int)TP_XNN_NODE_KINDS);
  snprintf(want[1], sizeof want[1], "node 0: kind %d is not a node kind (1..%d)",
           (int)TP_XNN_NODE_COUNT, (int)TP_XNN_NODE_KINDS);
  ERR_CASE(tp_xnn_define_node(g, 0, &a), TP_ERR_INVALID, want[0]);
  ERR_CASE(tp_xnn_define_node(g, TP_XNN_NODE_COUNT, &a), TP_ERR_INVALID, want[1]);
  ERR_CASE(tp_xnn_define_node(g, TP_XNN_NODE_ABS, NULL), TP_ERR_INVALID,
           "node 0 (abs): no arguments (NULL)");
  a.u[TP_XNN_FIELD(_XNNNode1x1, output_id)] = 7;
  ERR_CASE(tp_xnn_define_node(g, TP_XNN_NODE_ABS, &a), TP_ERR_INVALID,
           "node 0 (abs): output_id 7 is not a defined value (2 values)");
}

/* A failed define in named mode leaves the graph's constants as they were. */
static void test_failed_define_leaves_nothing(void) {
  static float sc[4] = {1, 2, 3, 4};
  int64_t s4[1] = {4};
  tp_tensor scale = view_f32(sc, 4, 1, s4), i448;
  tp_storage is;
  int64_t s448[2] = {4, 48};
  size_t d[2] = {4, 32};
  tp_xnn_graph *g;
  is.data = err_i8;
  is.nbytes = sizeof err_i8;
  TPT_STATUS(tp_view(is, TP_I8, 2, s448, NULL, 0, &i448, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  /* the scale is accepted and added, then the data is wrong: neither stays */
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &scale, 2, 0, d,
                                                              &i448, TP_XNN_INVALID_ID, 0, NULL),
             TP_ERR_INVALID);
  TPT_CONTAINS(tp_xnn_graph_error(g), "value 0: dims [4, 32] but the data view's dim 1 is 48: reshape the view");
  TPT_EQ_INT(tp_xnn_graph_num_values(g), 0);
  tp_xnn_graph_destroy(g);
}

/* An empty graph still carries xnodes, xvalues and constant_data (the loader requires the first
   two), version "0" and num_externs 0. */
static void test_empty_graph(void) {
  tp_xnn_graph *g;
  blob b;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  if (blob_write(g, &b)) {
    tp_fb_vector n = tp_fb_vector_field(&b.root, 1, 4), v = tp_fb_vector_field(&b.root, 2, 4);
    TPT_CHECK(n.pos != 0 && n.count == 0);
    TPT_CHECK(v.pos != 0 && v.count == 0);
    TPT_EQ_INT(cd_count(&b), 1);
    TPT_CHECK(tp_fb_vector_field(&b.root, 4, 4).pos != 0);
    TPT_CHECK(tp_fb_vector_field(&b.root, 5, 4).pos != 0);
    TPT_CHECK(!tp_fb_present(&b.root, 3)); /* num_externs 0: the default, omitted */
    TPT_EQ_U64(b.cd_size, 0);
    TPT_EQ_U64(b.m.size, b.cd_off);
  }
  blob_free(&b);
  tp_xnn_graph_destroy(g);
}

int main(void) {
  int i;
  (void)tpt_range;
  for (i = 0; i < 192; i++) seed_storage[i] = (float)i * 0.25f - 7.0f;
  TPT_RUN(test_offset_view_linear);
  TPT_RUN(test_view_at_byte0_of_larger_storage);
  TPT_RUN(test_qkv_chunks);
  TPT_RUN(test_groupwise_int4_transposed_scale);
  TPT_RUN(test_per_channel_scale_view_identical_blob);
  TPT_RUN(test_named_mode);
  TPT_RUN(test_alignment_option);
  TPT_RUN(test_external_ids_ordered);
  TPT_RUN(test_qcint4_odd_last_dim);
  TPT_RUN(test_node_names_and_layouts);
  TPT_RUN(test_define_node_sweep);
  TPT_RUN(test_define_node_errors);
  TPT_RUN(test_write_file_atomic);
  TPT_RUN(test_sink_failure);
  TPT_RUN(test_write_file_missing_directory);
  TPT_RUN(test_errors_values);
  TPT_RUN(test_errors_nodes);
  TPT_RUN(test_failed_define_leaves_nothing);
  TPT_RUN(test_empty_graph);
  return tpt_finish("xnn_blob");
}
