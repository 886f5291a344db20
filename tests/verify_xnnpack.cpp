// verify_xnnpack.cpp - every XNNPACK blob tensorpack writes passes the OFFICIAL FlatBuffers
// verifier (fb_xnnpack::VerifyXNNGraphBuffer on the header's flatbuffer region) and decodes,
// through flatc's generated accessors, to exactly what was written: the seed cases of issue 4
// and a graph with every node kind and every kind of value, field by field.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tensorpack_xnnpack.h"
#include "tp_test.h"
#include "xnnpack_generated.h"

using namespace fb_xnnpack;
typedef std::vector<uint64_t> Fields;

struct Blob {
  tp_membuf m;
  const XNNGraph *graph;
  uint32_t cd_off;
  uint64_t cd_size;
};

// Writes g, checks the header, runs the official verifier on the flatbuffer region.
// Format tests (every value kind, every node kind, random graphs): fields at arbitrary values,
// written without the node and graph rules (tests/test_xnn_checks.c has those).
static tp_xnn_options g_unchecked;  // .target = TP_XNN_TARGET_UNCHECKED, set in main

static bool write_and_verify(tp_xnn_graph *g, Blob *b) {
  memset(&b->m, 0, sizeof b->m);
  b->graph = nullptr;
  tp_sink s = tp_sink_membuf(&b->m);
  uint64_t size = 0;
  TPT_STATUS(tp_xnn_blob_size(g, &size), TP_OK);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  TPT_EQ_U64(b->m.size, size);
  if (b->m.size < 32) return false;
  TPT_CHECK(memcmp(b->m.data + 4, "XH00", 4) == 0);
  uint32_t fb_off = tp__get_le32(b->m.data + 10), fb_size = tp__get_le32(b->m.data + 14);
  b->cd_off = tp__get_le32(b->m.data + 18);
  b->cd_size = tp__get_le64(b->m.data + 22);
  TPT_EQ_U64((uint64_t)b->cd_off + b->cd_size, b->m.size);
  if (fb_off + (uint64_t)fb_size > b->m.size) return false;
  flatbuffers::Verifier v(b->m.data + fb_off, fb_size);
  bool ok = VerifyXNNGraphBuffer(v);
  TPT_CHECK(ok);
  if (!ok) return false;
  b->graph = GetXNNGraph(b->m.data + fb_off);
  TPT_CHECK(b->graph->xnodes() != nullptr && b->graph->xvalues() != nullptr);
  TPT_CHECK(b->graph->constant_data() != nullptr);
  return b->graph->xnodes() && b->graph->xvalues() && b->graph->constant_data();
}

static const uint8_t *constant(Blob *b, uint32_t idx, uint64_t *size) {
  const ConstantDataOffset *c = b->graph->constant_data()->Get(idx);
  *size = c->size();
  TPT_CHECK(c->named_key() == nullptr);  // inline: field absent
  TPT_CHECK(c->offset() % 16 == 0 && c->offset() + c->size() <= b->cd_size);
  return b->m.data + b->cd_off + c->offset();
}

static const XNNTensorValue *tensor_of(const XValue *v) {
  if (v->xvalue_union_type() == XValueUnion_XNNTensorValue) return v->xvalue_union_as_XNNTensorValue();
  if (v->xvalue_union_type() == XValueUnion_XNNQuantizedTensorValue)
    return v->xvalue_union_as_XNNQuantizedTensorValue()->tensor_value();
  return nullptr;
}

static tp_tensor view_f32(const float *p, size_t n, int ndim, const int64_t *sizes) {
  tp_storage s = {p, n * sizeof(float)};
  tp_tensor t;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sizes, nullptr, 0, &t, NULL), TP_OK);
  return t;
}

static void linear(tp_xnn_graph *g, const tp_tensor *w, uint32_t in_ext, uint32_t out_ext,
                   uint32_t *x_io) {
  size_t xd[2] = {2, (size_t)w->sizes[1]}, yd[2] = {2, (size_t)w->sizes[0]};
  uint32_t x = x_io ? *x_io : TP_XNN_INVALID_ID, wt, y;
  if (x == TP_XNN_INVALID_ID)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, nullptr, in_ext,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  if (x_io) *x_io = x;
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, nullptr, w, TP_XNN_INVALID_ID, 0, &wt),
             TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, nullptr, out_ext,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0),
             TP_OK);
}

static float storage[3 * 8 * 8];

// ---- seed cases ------------------------------------------------------------------------------

static void seed_offset_view() {
  int64_t sz[3] = {3, 8, 8};
  tp_tensor parent = view_f32(storage, 192, 3, sz), w;
  TPT_STATUS(tp_select(&parent, 0, 1, &w, NULL), TP_OK);
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(nullptr, &g), TP_OK);
  linear(g, &w, 0, 1, nullptr);
  Blob b;
  if (write_and_verify(g, &b)) {
    uint64_t n;
    const XNNTensorValue *t = tensor_of(b.graph->xvalues()->Get(1));
    TPT_EQ_INT(t->constant_buffer_idx(), 1);
    const uint8_t *c = constant(&b, 1, &n);
    TPT_EQ_U64(n, 256);
    TPT_MEMEQ(c, storage + 64, 256);
    TPT_CHECK(memcmp(c, storage, 256) != 0);
    TPT_EQ_INT(b.graph->constant_data()->size(), 2);
    const ConstantDataOffset *e0 = b.graph->constant_data()->Get(0);
    TPT_CHECK(e0->offset() == 0 && e0->size() == 0 && e0->named_key() == nullptr);
    TPT_EQ_INT(b.graph->num_externs(), 2);
    TPT_CHECK(b.graph->version() && b.graph->version()->str() == "0");
    TPT_CHECK(b.graph->input_ids()->size() == 1 && b.graph->input_ids()->Get(0) == 0);
    TPT_CHECK(b.graph->output_ids()->size() == 1 && b.graph->output_ids()->Get(0) == 2);
    const XNode *node = b.graph->xnodes()->Get(0);
    TPT_EQ_INT(node->xnode_union_type(), XNodeUnion_XNNFullyConnected);
    const XNNFullyConnected *fc = node->xnode_union_as_XNNFullyConnected();
    TPT_CHECK(fc->input1_id() == 0 && fc->filter_id() == 1 && fc->bias_id() == UINT32_MAX &&
              fc->output_id() == 2 && fc->flags() == 0);
    TPT_CHECK(std::isinf(node->output_min_max()->output_min()) &&
              node->output_min_max()->output_min() < 0 &&
              std::isinf(node->output_min_max()->output_max()));
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

static void seed_view_at_byte0() {
  int64_t sz[2] = {24, 8};
  tp_tensor parent = view_f32(storage, 192, 2, sz), w;
  TPT_STATUS(tp_narrow(&parent, 0, 0, 8, &w, NULL), TP_OK);
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(nullptr, &g), TP_OK);
  linear(g, &w, 0, 1, nullptr);
  Blob b;
  if (write_and_verify(g, &b)) {
    uint64_t n;
    const uint8_t *c = constant(&b, 1, &n);
    TPT_EQ_U64(n, 256);
    TPT_MEMEQ(c, storage, 256);
    TPT_EQ_U64(b.cd_size, 256);  // not the storage's 768 bytes
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

static void seed_qkv() {
  const int E = 8;
  int64_t sz[2] = {3 * E, E};
  tp_tensor w = view_f32(storage, 192, 2, sz), part;
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(nullptr, &g), TP_OK);
  uint32_t x = TP_XNN_INVALID_ID;
  for (int i = 0; i < 3; i++) {
    TPT_STATUS(tp_chunk(&w, 3, 0, i, &part, NULL), TP_OK);
    linear(g, &part, 0, (uint32_t)i + 1, &x);
  }
  Blob b;
  if (write_and_verify(g, &b)) {
    TPT_EQ_INT(b.graph->constant_data()->size(), 4);
    for (int i = 0; i < 3; i++) {
      uint64_t n;
      const XNNFullyConnected *fc = b.graph->xnodes()->Get(i)->xnode_union_as_XNNFullyConnected();
      const XNNTensorValue *t = tensor_of(b.graph->xvalues()->Get(fc->filter_id()));
      const uint8_t *c = constant(&b, t->constant_buffer_idx(), &n);
      TPT_EQ_U64(n, E * E * 4);
      TPT_MEMEQ(c, storage + i * E * E, E * E * 4);
    }
    TPT_EQ_INT(b.graph->output_ids()->size(), 3);
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

static void seed_groupwise_transposed_scale() {
  enum { OUT = 3, IN = 64, BS = 32, G = 2 };
  static int8_t wq[OUT * IN];
  static float sct[G * OUT];
  for (int i = 0; i < OUT * IN; i++) wq[i] = (int8_t)(i % 16 - 8);
  for (int i = 0; i < G * OUT; i++) sct[i] = 1.0f / (float)(i + 3);
  int64_t wsz[2] = {OUT, IN}, ssz[2] = {G, OUT};
  tp_storage ws = {wq, sizeof wq};
  tp_tensor w, st, s;
  TPT_STATUS(tp_view(ws, TP_I8, 2, wsz, nullptr, 0, &w, NULL), TP_OK);
  st = view_f32(sct, G * OUT, 2, ssz);
  TPT_STATUS(tp_transpose(&st, 0, 1, &s, NULL), TP_OK);
  tp_xnn_graph *g;
  size_t dims[2] = {OUT, IN};
  TPT_STATUS(tp_xnn_graph_create(nullptr, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &s, 2, 0, BS, dims, &w,
                                                            TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  Blob b;
  if (write_and_verify(g, &b)) {
    const XValue *v = b.graph->xvalues()->Get(0);
    TPT_EQ_INT(v->xvalue_union_type(), XValueUnion_XNNQuantizedTensorValue);
    const XNNQuantizedTensorValue *q = v->xvalue_union_as_XNNQuantizedTensorValue();
    TPT_EQ_INT(q->quant_params_type(), XNNQuantParams_PerChannelGroupQuant);
    const PerChannelGroupQuant *p = q->quant_params_as_PerChannelGroupQuant();
    TPT_CHECK(p->scale() != nullptr && p->scale()->size() == 0);
    TPT_CHECK(p->channel_dim() == 0 && p->group_size() == BS && p->num_scales() == OUT * G);
    uint64_t n;
    const uint8_t *c = constant(&b, p->scale_buffer_idx(), &n);
    TPT_EQ_U64(n, OUT * G * 2);
    for (int o = 0; o < OUT; o++)
      for (int k = 0; k < G; k++)
        TPT_EQ_INT(tp__get_le16(c + 2 * (o * G + k)), tp_f32_to_bf16(sct[k * OUT + o]));
    TPT_EQ_INT(q->tensor_value()->datatype(), XNNDatatype_xnn_datatype_qbint4);
    c = constant(&b, q->tensor_value()->constant_buffer_idx(), &n);
    TPT_EQ_U64(n, OUT * IN / 2);
    for (int i = 0; i < OUT * IN / 2; i++) TPT_EQ_INT(c[i], (wq[2 * i] + 8) | ((wq[2 * i + 1] + 8) << 4));
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

static void per_channel(const tp_tensor *scale, tp_membuf *out) {
  static int8_t w[3 * 5];
  for (int i = 0; i < 15; i++) w[i] = (int8_t)(i * 11 % 255 - 127);
  int64_t sz[2] = {3, 5};
  tp_storage ws = {w, sizeof w};
  tp_tensor wt;
  TPT_STATUS(tp_view(ws, TP_I8, 2, sz, nullptr, 0, &wt, NULL), TP_OK);
  tp_xnn_graph *g;
  size_t dims[2] = {3, 5};
  TPT_STATUS(tp_xnn_graph_create(nullptr, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, scale, 2, 0, dims, &wt,
                                                              TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  Blob b;
  if (write_and_verify(g, &b)) {
    const XNNQuantizedTensorValue *q = b.graph->xvalues()->Get(0)->xvalue_union_as_XNNQuantizedTensorValue();
    const PerChannelQuant *p = q->quant_params_as_PerChannelQuant();
    TPT_CHECK(p != nullptr && p->scale() != nullptr && p->scale()->size() == 0);
    TPT_CHECK(p->channel_dim() == 0 && p->num_scales() == 3 && p->scale_buffer_idx() == 1);
    TPT_EQ_INT(q->tensor_value()->constant_buffer_idx(), 2);
  }
  *out = b.m;
  tp_xnn_graph_destroy(g);
}

static void seed_per_channel_scale_view() {
  static float compact[3] = {0.1f, 0.2f, 0.3f};
  static float big[12] = {7, 7, 7, 7, 0.1f, 7, 0.2f, 7, 0.3f, 7, 7, 7};
  int64_t n3[1] = {3}, st[1] = {2};
  tp_storage s = {big, sizeof big};
  tp_tensor a = view_f32(compact, 3, 1, n3), b;
  TPT_STATUS(tp_view(s, TP_F32, 1, n3, st, 4, &b, NULL), TP_OK);
  tp_membuf m1, m2;
  per_channel(&a, &m1);
  per_channel(&b, &m2);
  TPT_CHECK(m1.size > 0 && m1.size == m2.size && memcmp(m1.data, m2.data, m1.size) == 0);
  tp_membuf_free(&m1);
  tp_membuf_free(&m2);
}

static void seed_named_mode() {
  int64_t sz[2] = {8, 8}, s3[3] = {3, 8, 8};
  tp_tensor parent = view_f32(storage, 192, 3, s3), w1, w2;
  TPT_STATUS(tp_select(&parent, 0, 2, &w1, NULL), TP_OK);
  w2 = view_f32(storage + 128, 64, 2, sz);  // the same 64 floats through another view
  tp_store *store;
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  tp_xnn_options o;
  memset(&o, 0, sizeof o);  // zero = defaults: new option fields need no edit here
  o.store = store;
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  uint32_t x = TP_XNN_INVALID_ID;
  linear(g, &w1, 0, 1, &x);
  linear(g, &w2, 0, 2, &x);
  Blob b;
  if (write_and_verify(g, &b)) {
    char hex[65];
    TPT_STATUS(tp_sha256_hex(storage + 128, 256, hex), TP_OK);
    TPT_EQ_INT(b.graph->constant_data()->size(), 2);  // one shared entry
    const ConstantDataOffset *c = b.graph->constant_data()->Get(1);
    TPT_CHECK(c->named_key() != nullptr);
    TPT_CHECK(c->named_key() && c->named_key()->str() == std::string(hex));
    TPT_EQ_U64(c->offset(), UINT64_MAX);
    TPT_EQ_U64(c->size(), 256);
    TPT_EQ_U64(b.cd_size, 0);
    TPT_EQ_INT(tensor_of(b.graph->xvalues()->Get(1))->constant_buffer_idx(), 1);
    TPT_EQ_INT(tensor_of(b.graph->xvalues()->Get(3))->constant_buffer_idx(), 1);
    TPT_EQ_INT(tp_store_count(store), 1);
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

// ---- every value kind ---------------------------------------------------------------------------

static void every_value_kind() {
  static float wf[12], sc[3] = {0.5f, 0.25f, 4.0f}, gsc[3 * 2];
  static int8_t wi[3 * 64];
  static uint16_t bf[6];
  for (int i = 0; i < 12; i++) wf[i] = (float)i - 5.5f;
  for (int i = 0; i < 3 * 64; i++) wi[i] = (int8_t)(i % 15 - 7);
  for (int i = 0; i < 6; i++) {
    gsc[i] = 0.01f * (float)(i + 1);
    bf[i] = tp_f32_to_bf16(gsc[i] * 3.0f);
  }
  int64_t s34[2] = {3, 4}, s3[1] = {3}, s364[2] = {3, 64}, s32[2] = {3, 2};
  tp_tensor tw = view_f32(wf, 12, 2, s34), tsc = view_f32(sc, 3, 1, s3), tg = view_f32(gsc, 6, 2, s32);
  tp_tensor ti, tbf;
  tp_storage si = {wi, sizeof wi}, sb = {bf, sizeof bf};
  TPT_STATUS(tp_view(si, TP_I8, 2, s364, nullptr, 0, &ti, NULL), TP_OK);
  TPT_STATUS(tp_view(sb, TP_BF16, 2, s32, nullptr, 0, &tbf, NULL), TP_OK);
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  size_t d34[2] = {3, 4}, d364[2] = {3, 64}, d5[5] = {1, 2, 3, 4, 5}, d0[1] = {0};
  (void)d0;
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, nullptr, &tw, 7, TP_XNN_FLAG_EXTERNAL_INPUT, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP16, 5, d5, nullptr, 3, TP_XNN_FLAG_EXTERNAL_OUTPUT, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 0, nullptr, nullptr, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -5, 0.125f, 2, d364, &ti, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &tsc, 2, 0, d364, &ti, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &tsc, 2, 0, d364, &ti, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &tg, 2, 0, 32, d364, &ti, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &tbf, 2, 0, 32, d364, &ti, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, d34, TP_XNN_INVALID_ID, 0, nullptr), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_BF16, 2, d34, nullptr, 0, TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT, nullptr), TP_OK);
  Blob b;
  if (write_and_verify(g, &b)) {
    const flatbuffers::Vector<flatbuffers::Offset<XValue>> *vs = b.graph->xvalues();
    TPT_EQ_INT(vs->size(), 10);
    for (uint32_t i = 0; i < vs->size(); i++) {
      const XNNTensorValue *t = tensor_of(vs->Get(i));
      TPT_CHECK(t != nullptr);
      if (!t) continue;
      TPT_EQ_INT(t->id_out(), i);
      TPT_CHECK(t->dims() != nullptr);
      TPT_EQ_INT(t->dims() ? t->dims()->size() : 99, t->num_dims());
    }
    const XNNTensorValue *t0 = tensor_of(vs->Get(0));
    TPT_CHECK(t0->datatype() == XNNDatatype_xnn_datatype_fp32 && t0->external_id() == 7 &&
              t0->flags() == 1 && t0->constant_buffer_idx() == 1 && t0->dims()->Get(1) == 4);
    uint64_t n;
    TPT_MEMEQ(constant(&b, 1, &n), wf, 48);
    const XNNTensorValue *t1 = tensor_of(vs->Get(1));
    TPT_CHECK(t1->datatype() == XNNDatatype_xnn_datatype_fp16 && t1->num_dims() == 5 &&
              t1->dims()->Get(4) == 5 && t1->external_id() == 3 && t1->flags() == 2 &&
              t1->constant_buffer_idx() == 0);
    TPT_CHECK(tensor_of(vs->Get(2))->num_dims() == 0 && tensor_of(vs->Get(2))->dims()->size() == 0);
    const XNNQuantizedTensorValue *q3 = vs->Get(3)->xvalue_union_as_XNNQuantizedTensorValue();
    TPT_CHECK(q3 && q3->quant_params_type() == XNNQuantParams_PerTensorQuant &&
              q3->quant_params_as_PerTensorQuant()->scale() == 0.125f &&
              q3->quant_params_as_PerTensorQuant()->zero_point() == -5 &&
              q3->tensor_value()->datatype() == XNNDatatype_xnn_datatype_qint8);
    const XNNQuantizedTensorValue *q4 = vs->Get(4)->xvalue_union_as_XNNQuantizedTensorValue();
    const PerChannelQuant *p4 = q4->quant_params_as_PerChannelQuant();
    TPT_CHECK(p4 && p4->scale()->size() == 0 && p4->num_scales() == 3 && p4->channel_dim() == 0);
    TPT_MEMEQ(constant(&b, p4->scale_buffer_idx(), &n), sc, 12);
    TPT_EQ_U64(n, 12);
    TPT_MEMEQ(constant(&b, q4->tensor_value()->constant_buffer_idx(), &n), wi, 192);
    const XNNQuantizedTensorValue *q5 = vs->Get(5)->xvalue_union_as_XNNQuantizedTensorValue();
    TPT_CHECK(q5->tensor_value()->datatype() == XNNDatatype_xnn_datatype_qcint4);
    const uint8_t *c5 = constant(&b, q5->tensor_value()->constant_buffer_idx(), &n);
    TPT_EQ_U64(n, 96);
    TPT_EQ_INT(c5[1], (wi[2] + 8) | ((wi[3] + 8) << 4));
    const PerChannelGroupQuant *p6 = vs->Get(6)->xvalue_union_as_XNNQuantizedTensorValue()->quant_params_as_PerChannelGroupQuant();
    const PerChannelGroupQuant *p7 = vs->Get(7)->xvalue_union_as_XNNQuantizedTensorValue()->quant_params_as_PerChannelGroupQuant();
    TPT_CHECK(p6 && p7 && p6->group_size() == 32 && p7->num_scales() == 6);
    const uint8_t *c6 = constant(&b, p6->scale_buffer_idx(), &n);
    for (int i = 0; i < 6; i++) TPT_EQ_INT(tp__get_le16(c6 + 2 * i), tp_f32_to_bf16(gsc[i]));
    TPT_MEMEQ(constant(&b, p7->scale_buffer_idx(), &n), bf, 12);  // given bf16: copied as is
    const XNNQuantizedTensorValue *q8 = vs->Get(8)->xvalue_union_as_XNNQuantizedTensorValue();
    TPT_CHECK(q8->quant_params_type() == XNNQuantParams_PerTokenDynamicQuant &&
              q8->quant_params_as_PerTokenDynamicQuant()->num_nonbatch_dims() == 1 &&
              q8->tensor_value()->datatype() == XNNDatatype_xnn_datatype_qdint8);
    TPT_EQ_INT(b.graph->num_externs(), 8);
    TPT_CHECK(b.graph->input_ids()->size() == 2 && b.graph->input_ids()->Get(0) == 9 &&
              b.graph->input_ids()->Get(1) == 0);
    TPT_CHECK(b.graph->output_ids()->size() == 2 && b.graph->output_ids()->Get(0) == 9 &&
              b.graph->output_ids()->Get(1) == 1);
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

// ---- every node kind ---------------------------------------------------------------------------

static void put_vec(Fields *f, const flatbuffers::Vector<uint32_t> *v) {
  TPT_CHECK(v != nullptr);
  if (!v) return;
  f->push_back(0xFFFF0000u | v->size());
  for (uint32_t x : *v) f->push_back(x);
}
static uint64_t fbits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

// The node's fields, decoded with the generated accessors of its own table type.
static Fields decode(const XNode *n) {
  Fields f;
  const void *u = n->xnode_union();
  const char *l = tp_xnn_node_layout(n->xnode_union_type());
  std::string lay = l ? l : "";
  switch (n->xnode_union_type()) {
    case XNodeUnion_XNNFullyConnected: {
      auto t = static_cast<const XNNFullyConnected *>(u);
      f = {t->input1_id(), t->filter_id(), t->bias_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNConv2d: case XNodeUnion_XNNDepthwiseConv2d: case XNodeUnion_XNNConvTranspose2d: {
      auto t = static_cast<const _XNNNodeConv *>(u);
      f = {t->padding_top(), t->padding_right(), t->padding_bottom(), t->padding_left(),
           t->kernel_height(), t->kernel_width(), t->subsampling_height(), t->subsampling_width(),
           t->dilation_height(), t->dilation_width(), t->group_input_channels(),
           t->group_output_channels(), t->groups(), t->adjustment_height(), t->adjustment_width(),
           t->input1_id(), t->filter_id(), t->bias_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNAvgPooling2d: case XNodeUnion_XNNMaxPooling2d: {
      auto t = static_cast<const _XNNPooling2D *>(u);
      f = {t->padding_top(), t->padding_right(), t->padding_bottom(), t->padding_left(),
           t->pooling_height(), t->pooling_width(), t->stride_height(), t->stride_width(),
           t->dilation_height(), t->dilation_width(), t->input_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNConcatenate2: case XNodeUnion_XNNConcatenate3:
    case XNodeUnion_XNNConcatenate4: case XNodeUnion_XNNConcatenate5: {
      auto t = static_cast<const _XNNCat *>(u);
      f = {t->axis(), t->input1_id(), t->input2_id(), t->input3_id(), t->input4_id(),
           t->output_id(), t->flags(), t->input5_id()};
      return f;
    }
    case XNodeUnion_XNNStaticTranspose: {
      auto t = static_cast<const XNNStaticTranspose *>(u);
      f.push_back(t->num_dims());
      put_vec(&f, t->perm());
      f.insert(f.end(), {t->input_id(), t->output_id(), t->flags()});
      return f;
    }
    case XNodeUnion_XNNStaticReshape: {
      auto t = static_cast<const XNNStaticReshape *>(u);
      f.push_back(t->num_dims());
      put_vec(&f, t->new_shape());
      f.insert(f.end(), {t->input_id(), t->output_id(), t->flags()});
      return f;
    }
    case XNodeUnion_XNNStaticSlice: {
      auto t = static_cast<const XNNStaticSlice *>(u);
      f.push_back(t->num_dims());
      put_vec(&f, t->offsets());
      put_vec(&f, t->sizes());
      f.insert(f.end(), {t->input_id(), t->output_id(), t->flags()});
      return f;
    }
    case XNodeUnion_XNNStaticConstantPad: {
      auto t = static_cast<const XNNStaticConstantPad *>(u);
      put_vec(&f, t->pre_paddings());
      put_vec(&f, t->post_paddings());
      f.insert(f.end(), {fbits(t->padding_value()), t->input_id(), t->output_id(), t->flags()});
      return f;
    }
    case XNodeUnion_XNNStaticResizeBilinear2D: {
      auto t = static_cast<const XNNStaticResizeBilinear2D *>(u);
      f = {t->new_height(), t->new_width(), t->input_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNArgMaxPooling2d: {
      auto t = static_cast<const XNNArgMaxPooling2d *>(u);
      f = {t->padding_top(), t->padding_right(), t->padding_bottom(), t->padding_left(),
           t->pooling_height(), t->pooling_width(), t->input_id(), t->output_value_id(),
           t->output_index_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNLeakyReLU: {
      auto t = static_cast<const XNNLeakyReLU *>(u);
      f = {fbits(t->negative_slope()), t->input_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNELU: {
      auto t = static_cast<const XNNELU *>(u);
      f = {fbits(t->alpha()), t->input_id(), t->output_id(), t->flags()};
      return f;
    }
    case XNodeUnion_XNNScaledDotProductAttention: {
      auto t = static_cast<const XNNScaledDotProductAttention *>(u);
      f = {t->query_id(), t->key_id(), t->value_id(), t->scale_id(), t->mask_id(), t->output_id(), t->flags()};
      return f;
    }
    default:
      break;
  }
  if (lay == "iiiu") {
    auto t = static_cast<const _XNNNode2x1 *>(u);
    f = {t->input1_id(), t->input2_id(), t->output_id(), t->flags()};
  } else if (lay == "iiu") {
    auto t = static_cast<const _XNNNode1x1 *>(u);
    f = {t->input_id(), t->output_id(), t->flags()};
  }
  return f;
}

struct Expect {
  int kind;
  Fields f;
  bool minmax;
  float mn, mx;
  uint32_t handle;
};

// Defines node kind k from its schema fields f (by field id; 'v' fields come from va / vb with
// nvec entries, 'f' fields are fparam) through the xnnpack.h-ordered call, and returns in *e
// the fields the blob must carry. Some fields are fixed by the call (no bias slot, unused cat
// inputs, depthwise's group_input_channels, average pooling's dilation): f is adjusted first.
static tp_status define_node(tp_xnn_graph *g, int k, uint64_t *f, const size_t *va, const size_t *vb,
                             size_t nvec, size_t pad_rank, float fparam, float mn, float mx, Expect *e) {
  const std::string lay = tp_xnn_node_layout(k);
  const uint32_t INV = TP_XNN_INVALID_ID;
  bool mm = true;
  uint32_t A[20];
  tp_status st = TP_ERR_INVALID;
  switch (k) {
    case TP_XNN_NODE_FULLY_CONNECTED: break;
    case TP_XNN_NODE_CONV2D: f[13] = f[14] = 0; break;
    case TP_XNN_NODE_DEPTHWISE_CONV2D: f[10] = 1; f[13] = f[14] = 0; break;
    case TP_XNN_NODE_AVG_POOLING_2D: f[8] = f[9] = 1; break;
    case TP_XNN_NODE_CONCATENATE2: f[3] = f[4] = f[7] = INV; break;
    case TP_XNN_NODE_CONCATENATE3: f[4] = f[7] = INV; break;
    case TP_XNN_NODE_CONCATENATE4: f[7] = INV; break;
    case TP_XNN_NODE_STATIC_TRANSPOSE: case TP_XNN_NODE_STATIC_RESHAPE: case TP_XNN_NODE_STATIC_SLICE:
      f[0] = nvec;
      break;
    case TP_XNN_NODE_STATIC_CONSTANT_PAD: nvec = pad_rank; break;
    default: break;
  }
  for (size_t i = 0; i < 20; i++) A[i] = i < lay.size() ? (uint32_t)f[i] : 0;
  switch (k) {
    case TP_XNN_NODE_ADD: st = tp_xnn_define_add2(g, mn, mx, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_SUBTRACT: st = tp_xnn_define_subtract(g, mn, mx, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_MULTIPLY: st = tp_xnn_define_multiply2(g, mn, mx, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_DIVIDE: st = tp_xnn_define_divide(g, mn, mx, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_MAXIMUM: mm = false; st = tp_xnn_define_maximum2(g, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_MINIMUM: mm = false; st = tp_xnn_define_minimum2(g, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_PRELU: mm = false; st = tp_xnn_define_prelu(g, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY: mm = false; st = tp_xnn_define_batch_matrix_multiply(g, A[0], A[1], A[2], A[3]); break;
    case TP_XNN_NODE_CLAMP: st = tp_xnn_define_clamp(g, mn, mx, A[0], A[1], A[2]); break;
    case TP_XNN_NODE_GLOBAL_AVG_POOLING_2D: st = tp_xnn_define_global_average_pooling_2d(g, mn, mx, A[0], A[1], A[2]); break;
#define U1(KIND, fn) case TP_XNN_NODE_##KIND: mm = false; st = tp_xnn_define_##fn(g, A[0], A[1], A[2]); break;
    U1(SOFTMAX, softmax) U1(SIGMOID, sigmoid) U1(FLOOR, floor) U1(CONVERT, convert)
    U1(SQUARE_ROOT, square_root) U1(CEILING, ceiling) U1(HARDSWISH, hardswish) U1(NEGATE, negate)
    U1(SQUARE, square) U1(ABS, abs) U1(RECIPROCAL_SQUARE_ROOT, reciprocal_square_root) U1(LOG, log)
    U1(GELU, gelu) U1(TANH, tanh) U1(EXP, exp) U1(SIN, sin) U1(COS, cos) U1(COPY, copy)
#undef U1
    case TP_XNN_NODE_ELU: mm = false; st = tp_xnn_define_elu(g, fparam, A[1], A[2], A[3]); break;
    case TP_XNN_NODE_LEAKY_RELU: mm = false; st = tp_xnn_define_leaky_relu(g, fparam, A[1], A[2], A[3]); break;
    case TP_XNN_NODE_FULLY_CONNECTED:
      st = tp_xnn_define_fully_connected(g, mn, mx, A[0], A[1], A[2], A[3], A[4]);
      break;
    case TP_XNN_NODE_CONV2D:
      st = tp_xnn_define_convolution_2d(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8], A[9],
                                        A[12], A[10], A[11], mn, mx, A[15], A[16], A[17], A[18], A[19]);
      break;
    case TP_XNN_NODE_DEPTHWISE_CONV2D:
      st = tp_xnn_define_depthwise_convolution_2d(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8],
                                                  A[9], A[11] /* depth multiplier */, A[12] /* channels */,
                                                  mn, mx, A[15], A[16], A[17], A[18], A[19]);
      break;
    case TP_XNN_NODE_DECONV2D:
      st = tp_xnn_define_deconvolution_2d(g, A[0], A[1], A[2], A[3], A[13], A[14], A[4], A[5], A[6], A[7],
                                          A[8], A[9], A[12], A[10], A[11], mn, mx, A[15], A[16], A[17],
                                          A[18], A[19]);
      break;
    case TP_XNN_NODE_AVG_POOLING_2D:
      st = tp_xnn_define_average_pooling_2d(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], mn, mx,
                                            A[10], A[11], A[12]);
      break;
    case TP_XNN_NODE_MAX_POOLING_2D:
      st = tp_xnn_define_max_pooling_2d(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8], A[9], mn,
                                        mx, A[10], A[11], A[12]);
      break;
    case TP_XNN_NODE_ARGMAX_POOLING_2D:
      mm = false;
      st = tp_xnn_define_argmax_pooling_2d(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8], A[9]);
      break;
    case TP_XNN_NODE_CONCATENATE2: mm = false; st = tp_xnn_define_concatenate2(g, A[0], A[1], A[2], A[5], A[6]); break;
    case TP_XNN_NODE_CONCATENATE3: mm = false; st = tp_xnn_define_concatenate3(g, A[0], A[1], A[2], A[3], A[5], A[6]); break;
    case TP_XNN_NODE_CONCATENATE4:
      mm = false;
      st = tp_xnn_define_concatenate4(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6]);
      break;
    case TP_XNN_NODE_CONCATENATE5:
      mm = false;
      st = tp_xnn_define_concatenate5(g, A[0], A[1], A[2], A[3], A[4], A[7], A[5], A[6]);
      break;
    case TP_XNN_NODE_STATIC_TRANSPOSE: mm = false; st = tp_xnn_define_static_transpose(g, nvec, va, A[2], A[3], A[4]); break;
    case TP_XNN_NODE_STATIC_RESHAPE: mm = false; st = tp_xnn_define_static_reshape(g, nvec, va, A[2], A[3], A[4]); break;
    case TP_XNN_NODE_STATIC_SLICE: mm = false; st = tp_xnn_define_static_slice(g, nvec, va, vb, A[3], A[4], A[5]); break;
    case TP_XNN_NODE_STATIC_CONSTANT_PAD:
      mm = false;
      st = tp_xnn_define_static_constant_pad(g, va, vb, fparam, A[3], A[4], A[5]);
      break;
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      mm = false;
      st = tp_xnn_define_static_resize_bilinear_2d(g, A[0], A[1], A[2], A[3], A[4]);
      break;
    case TP_XNN_NODE_SCALED_DOT_PRODUCT_ATTENTION:
      mm = false;
      st = tp_xnn_define_scaled_dot_product_attention(g, A[0], A[1], A[2], A[3], A[4], A[5], A[6]);
      break;
    default: break;
  }
  e->kind = k;
  e->f.clear();
  int vi = 0;
  for (size_t i = 0; i < lay.size(); i++) {
    if (lay[i] == 'v') {
      const size_t *src = vi++ == 0 ? va : vb;
      e->f.push_back(0xFFFF0000u | nvec);
      for (size_t j = 0; j < nvec; j++) e->f.push_back(src[j]);
    } else if (lay[i] == 'f') {
      e->f.push_back(fbits(fparam));
    } else {
      e->f.push_back(f[i]);
    }
  }
  e->minmax = mm;
  e->mn = mn;
  e->mx = mx;
  e->handle = 0;
  return st;
}

static void check_nodes(Blob *b, const std::vector<Expect> &ex) {
  TPT_EQ_INT(b->graph->xnodes()->size(), ex.size());
  for (uint32_t i = 0; i < b->graph->xnodes()->size() && i < ex.size(); i++) {
    const XNode *n = b->graph->xnodes()->Get(i);
    const Expect &e = ex[i];
    TPT_EQ_INT(n->xnode_union_type(), e.kind);
    TPT_CHECK(n->xnode_union() != nullptr);
    TPT_EQ_U64(n->debug_handle(), e.handle);
    TPT_EQ_INT(n->output_min_max() != nullptr, e.minmax);
    if (n->output_min_max() && e.minmax)
      TPT_CHECK(n->output_min_max()->output_min() == e.mn && n->output_min_max()->output_max() == e.mx);
    Fields got = decode(n);
    bool same = got == e.f;
    TPT_CHECK(same);
    if (!same) {
      printf("  node %u (%s): got", i, tp_xnn_node_name(e.kind));
      for (uint64_t x : got) printf(" %llu", (unsigned long long)x);
      printf("\n  want");
      for (uint64_t x : e.f) printf(" %llu", (unsigned long long)x);
      printf("\n");
    }
  }
}

static void every_node_kind() {
  tp_xnn_graph *g;
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  size_t d4[4] = {1, 2, 3, 4};
  const uint32_t NV = 12;
  for (uint32_t i = 0; i < NV; i++)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, nullptr, i < 2 ? i : TP_XNN_INVALID_ID,
                                          i == 0 ? TP_XNN_FLAG_EXTERNAL_INPUT : i == 1 ? TP_XNN_FLAG_EXTERNAL_OUTPUT : 0,
                                          nullptr), TP_OK);
  std::vector<Expect> ex;
  for (int k = 1; k <= (int)TP_XNN_NODE_KINDS; k++) {
    // Field values by schema field id: ids rotate through the values, parameters are unique.
    const std::string lay = tp_xnn_node_layout(k);
    uint64_t f[20] = {0};
    size_t va[6], vb[6];
    for (size_t i = 0; i < 6; i++) {
      va[i] = 100u * (unsigned)k + i;
      vb[i] = 200u * (unsigned)k + i;
    }
    for (size_t i = 0; i < lay.size(); i++)
      f[i] = lay[i] == 'i' || lay[i] == 'b' ? (uint64_t)((k * 5 + (int)i) % (int)NV) : 1000u * (unsigned)k + i;
    if (k == TP_XNN_NODE_FULLY_CONNECTED) f[2] = TP_XNN_INVALID_ID;  // no bias
    Expect e;
    tp_status st = define_node(g, k, f, va, vb, (size_t)(k % 4) + 1, 4, 0.25f * (float)k + 2.0f,
                               -(float)k, (float)k + 0.5f, &e);
    TPT_STATUS(st, TP_OK);
    if (st != TP_OK) printf("  kind %d (%s): %s\n", k, tp_xnn_node_name(k), tp_xnn_graph_error(g));
    e.handle = 5000u + (uint32_t)k;
    ex.push_back(e);
    TPT_STATUS(tp_xnn_set_debug_handle(g, (uint32_t)(k - 1), e.handle), TP_OK);
  }
  // output_min_max set afterwards on a node whose call has none
  TPT_STATUS(tp_xnn_set_output_min_max(g, TP_XNN_NODE_SOFTMAX - 1, -3.0f, 3.0f), TP_OK);
  ex[TP_XNN_NODE_SOFTMAX - 1].minmax = true;
  ex[TP_XNN_NODE_SOFTMAX - 1].mn = -3.0f;
  ex[TP_XNN_NODE_SOFTMAX - 1].mx = 3.0f;
  Blob b;
  if (write_and_verify(g, &b)) {
    TPT_EQ_INT(b.graph->xnodes()->size(), TP_XNN_NODE_KINDS);
    check_nodes(&b, ex);
    // Also through the mini-reflection table flatc generated: the union has NONE + every kind.
    TPT_EQ_INT(XNodeUnionTypeTable()->num_elems, TP_XNN_NODE_KINDS + 1);
  }
  tp_membuf_free(&b.m);
  tp_xnn_graph_destroy(g);
}

// The XN01 description against flatc's mini-reflection of our schema copy: every XNodeUnion
// member in tag order with its table's field names in id order, and every described table's
// fields (by name and id; a union field's type slot and deprecated fields as flatc lists them).
static const flatbuffers::TypeTable *table_by_name(const char *name) {
  static const struct { const char *n; const flatbuffers::TypeTable *(*f)(); } all[] = {
    {"XNNGraph", XNNGraphTypeTable}, {"XNode", XNodeTypeTable},
    {"OutputMinMax", OutputMinMaxTypeTable}, {"XValue", XValueTypeTable},
    {"XNNTensorValue", XNNTensorValueTypeTable},
    {"XNNQuantizedTensorValue", XNNQuantizedTensorValueTypeTable},
    {"PerChannelQuant", PerChannelQuantTypeTable}, {"PerTensorQuant", PerTensorQuantTypeTable},
    {"PerTokenDynamicQuant", PerTokenDynamicQuantTypeTable},
    {"PerChannelGroupQuant", PerChannelGroupQuantTypeTable}, {"Buffer", BufferTypeTable},
    {"ConstantDataOffset", ConstantDataOffsetTypeTable}};
  for (const auto &a : all)
    if (!strcmp(a.n, name)) return a.f();
  return nullptr;
}

static void description_matches_schema() {
  const flatbuffers::TypeTable *u = XNodeUnionTypeTable();
  TPT_EQ_INT(u->num_elems, TP_XNN_NODE_KINDS + 1);
  for (int k = 1; k <= (int)TP_XNN_NODE_KINDS && (size_t)k < u->num_elems; k++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    TPT_CHECK(d != nullptr);
    if (!d) continue;
    TPT_EQ_STR(u->names[k], d->member);
    const flatbuffers::TypeTable *t = u->type_refs[u->type_codes[k].sequence_ref]();
    TPT_EQ_INT(t->num_elems, d->nfields);
    for (size_t i = 0; i < t->num_elems && i < d->nfields; i++) TPT_EQ_STR(t->names[i], d->fields[i].name);
  }
  int checked = 0;
  for (int ti = 0; tp_xnn_describe_table(ti); ti++) {
    const tp_xnn_table *dt = tp_xnn_describe_table(ti);
    const flatbuffers::TypeTable *t = table_by_name(dt->name);
    if (!t) continue;  // node tables: checked through the union above
    checked++;
    // flatc lists a union as two elements (type, value) and keeps deprecated fields; the
    // description has one entry per union (at the value's id); runtime-only dq_datatype is extra.
    size_t j = 0;
    for (uint32_t i = 0; i < dt->nfields; i++) {
      const tp_xnn_field &f = dt->fields[i];
      if (!strcmp(dt->name, "XNNTensorValue") && !strcmp(f.name, "dq_datatype")) continue;
      if (f.type == 'n') j++;  // skip the _type element
      TPT_CHECK(j < t->num_elems);
      if (j >= t->num_elems) break;
      TPT_EQ_INT(j, f.id);
      TPT_EQ_STR(t->names[j], f.name);
      j++;
    }
    TPT_EQ_INT(j, t->num_elems);
  }
  TPT_EQ_INT(checked, 12);
}

// ---- random graphs -------------------------------------------------------------------------------
// Random values (every define call, constants from random strided views into one storage, random
// external ids) and random nodes (any kind, random valid ids and parameters, random debug handles and
// min/max): each graph verifies and decodes to exactly what was defined.

static float rstore[4096];
static int8_t i4store[8192];  // int8 values in [-8, 7]

static tp_tensor random_view(int ndim, const size_t *dims, tp_dtype dt) {
  // a permuted, offset view into rstore whose logical shape is dims
  int64_t sizes[6], strides[6];
  int perm[6];
  for (int i = 0; i < ndim; i++) perm[i] = i;
  for (int i = ndim - 1; i > 0; i--) {
    int j = (int)(tpt_rand() % (uint64_t)(i + 1));
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int64_t st = 1;
  for (int i = ndim - 1; i >= 0; i--) {  // dense in the permuted order
    strides[perm[i]] = st;
    st *= (int64_t)dims[perm[i]];
  }
  for (int i = 0; i < ndim; i++) sizes[i] = (int64_t)dims[i];
  size_t esz = tp_dtype_size(dt);
  bool i4 = dt == TP_I8;  // int8 data comes from the int4-valued storage
  int64_t cap = (int64_t)((i4 ? sizeof i4store : sizeof rstore) / esz);
  int64_t off = st < cap ? (int64_t)(tpt_rand() % (uint64_t)(cap - st + 1)) : 0;
  tp_storage s = {i4 ? (const void *)i4store : (const void *)rstore, i4 ? sizeof i4store : sizeof rstore};
  tp_tensor t;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, dt, ndim, sizes, strides, off, &t, NULL), TP_OK);
  return t;
}

static void random_graphs() {
  for (size_t i = 0; i < sizeof rstore / sizeof rstore[0]; i++) rstore[i] = (float)tpt_range(-1000, 1000) * 0.01f;
  for (size_t i = 0; i < sizeof i4store; i++) i4store[i] = (int8_t)((i * 7) % 16 - 8);
  for (size_t i = 0; i < 512; i++) rstore[i] = (float)(i + 1) * 0.001f;   // positive scales up front
  int graphs = 0;
  for (int gi = 0; gi < 150; gi++) {
    tp_xnn_graph *g;
    TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
    int nv = (int)tpt_range(1, 24);
    std::vector<size_t> ranks;
    std::vector<std::vector<uint8_t>> want_bytes;  // constant bytes per value ([] = none)
    std::vector<int> kinds;
    uint32_t next_ext = 0;
    for (int v = 0; v < nv; v++) {
      int kind = (int)tpt_range(0, 4);
      size_t dims[6], nd = (size_t)tpt_range(1, 4);
      for (size_t d = 0; d < nd; d++) dims[d] = (size_t)tpt_range(1, 5);
      uint32_t ext = TP_XNN_INVALID_ID, flags = 0;
      if (tpt_rand() % 3 == 0) {
        ext = next_ext;
        next_ext += (uint32_t)tpt_range(1, 3);
        flags = (uint32_t)tpt_range(1, 3);
      }
      bool with_data = ext == TP_XNN_INVALID_ID && tpt_rand() % 2;
      tp_tensor data, scale;
      std::vector<uint8_t> bytes;
      tp_status st = TP_OK;
      if (kind == 0) {
        tp_xnn_datatype dt = tpt_rand() % 2 ? TP_XNN_FP32 : TP_XNN_FP16;
        if (with_data) {
          data = random_view((int)nd, dims, dt == TP_XNN_FP32 ? TP_F32 : TP_F16);
          tp_buffer buf;
          TPT_STATUS(tp_compact(&data, TP_ORDER_ROW_MAJOR, &buf), TP_OK);
          bytes.assign((const uint8_t *)buf.data, (const uint8_t *)buf.data + buf.nbytes);
          tp_buffer_release(&buf);
        }
        st = tp_xnn_define_tensor_value(g, dt, nd, dims, with_data ? &data : nullptr, ext, flags, nullptr);
      } else if (kind == 1) {
        if (with_data) {
          data = random_view((int)nd, dims, TP_I8);
          tp_buffer buf;
          TPT_STATUS(tp_compact(&data, TP_ORDER_ROW_MAJOR, &buf), TP_OK);
          bytes.assign((const uint8_t *)buf.data, (const uint8_t *)buf.data + buf.nbytes);
          tp_buffer_release(&buf);
        }
        st = tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, (int32_t)tpt_range(-128, 127), 0.5f, nd,
                                                  dims, with_data ? &data : nullptr, ext, flags, nullptr);
      } else if (kind == 2) {
        size_t cd = (size_t)tpt_range(0, (int64_t)nd - 1);
        size_t sd[1] = {dims[cd]};
        int64_t ss[1] = {(int64_t)dims[cd]}, sst[1] = {(int64_t)tpt_range(1, 3)};
        tp_storage s = {rstore, 512 * sizeof(float)};
        TPT_STATUS(tp_view(s, TP_F32, 1, ss, sst, tpt_range(0, 100), &scale, NULL), TP_OK);
        (void)sd;
        if (with_data) {
          data = random_view((int)nd, dims, TP_I8);
          tp_buffer buf;
          TPT_STATUS(tp_compact(&data, TP_ORDER_ROW_MAJOR, &buf), TP_OK);
          bytes.assign((const uint8_t *)buf.data, (const uint8_t *)buf.data + buf.nbytes);
          tp_buffer_release(&buf);
        }
        st = tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &scale, nd, cd, dims,
                                                              with_data ? &data : nullptr, ext, flags, nullptr);
      } else if (kind == 3) {
        nd = 2;
        dims[1] = 32 * (size_t)tpt_range(1, 3);
        size_t groups = dims[1] / 32;
        int64_t ss[2] = {(int64_t)dims[0], (int64_t)groups}, sst[2] = {1, (int64_t)dims[0]};
        tp_storage s = {rstore, 512 * sizeof(float)};
        TPT_STATUS(tp_view(s, TP_F32, 2, ss, sst, 0, &scale, NULL), TP_OK); // transposed
        if (with_data) {
          data = random_view(2, dims, TP_I8);
          tp_buffer buf;
          TPT_STATUS(tp_pack_int4(&data, &buf), TP_OK);
          bytes.assign((const uint8_t *)buf.data, (const uint8_t *)buf.data + buf.nbytes);
          tp_buffer_release(&buf);
        }
        st = tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &scale, 2, 0, 32, dims,
                                                            with_data ? &data : nullptr, ext, flags, nullptr);
      } else {
        st = tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, nd, (size_t)tpt_range(0, (int64_t)nd),
                                                              dims, ext, flags, nullptr);
      }
      TPT_STATUS(st, TP_OK);
      if (st != TP_OK) printf("  value %d kind %d: %s\n", v, kind, tp_xnn_graph_error(g));
      ranks.push_back(nd);
      want_bytes.push_back(bytes);
      kinds.push_back(kind);
    }
    std::vector<Expect> ex;
    int nn = (int)tpt_range(0, 30);
    for (int n = 0; n < nn; n++) {
      int k = (int)tpt_range(1, TP_XNN_NODE_KINDS);
      const std::string lay = tp_xnn_node_layout(k);
      uint64_t f[20] = {0};
      size_t va[6], vb[6];
      for (size_t i = 0; i < 6; i++) {
        va[i] = (size_t)(tpt_rand() % 100000);
        vb[i] = (size_t)(tpt_rand() & 0xffffffffu);
      }
      for (size_t i = 0; i < lay.size(); i++)
        f[i] = lay[i] == 'i' || lay[i] == 'b' ? (uint64_t)tpt_range(0, nv - 1) : (tpt_rand() & 0xffffffffu);
      if (k == TP_XNN_NODE_FULLY_CONNECTED && tpt_rand() % 2) f[2] = TP_XNN_INVALID_ID;
      size_t pad_rank = k == TP_XNN_NODE_STATIC_CONSTANT_PAD ? ranks[(size_t)f[3]] : 0;
      Expect e;
      float fp = (float)tpt_range(-100, 100) * 0.125f;
      TPT_STATUS(define_node(g, k, f, va, vb, (size_t)tpt_range(0, 6), pad_rank, fp,
                             (float)tpt_range(-9, 0), (float)tpt_range(1, 9), &e), TP_OK);
      if (tpt_rand() % 2) {
        e.handle = (uint32_t)(tpt_rand() & 0xffffffffu);
        TPT_STATUS(tp_xnn_set_debug_handle(g, (uint32_t)n, e.handle), TP_OK);
      }
      if (tpt_rand() % 4 == 0) {
        e.minmax = true;
        e.mn = -1.5f;
        e.mx = 2.5f;
        TPT_STATUS(tp_xnn_set_output_min_max(g, (uint32_t)n, -1.5f, 2.5f), TP_OK);
      }
      ex.push_back(e);
    }
    Blob b;
    if (write_and_verify(g, &b)) {
      graphs++;
      check_nodes(&b, ex);
      TPT_EQ_INT(b.graph->xvalues()->size(), nv);
      for (int v = 0; v < nv && v < (int)b.graph->xvalues()->size(); v++) {
        const XNNTensorValue *t = tensor_of(b.graph->xvalues()->Get((uint32_t)v));
        TPT_CHECK(t && t->id_out() == (uint32_t)v && t->num_dims() == ranks[(size_t)v]);
        if (!t) continue;
        if (want_bytes[(size_t)v].empty()) {
          TPT_EQ_INT(t->constant_buffer_idx(), 0);
        } else {
          uint64_t n;
          const uint8_t *c = constant(&b, t->constant_buffer_idx(), &n);
          TPT_EQ_U64(n, want_bytes[(size_t)v].size());
          TPT_CHECK(n == want_bytes[(size_t)v].size() && memcmp(c, want_bytes[(size_t)v].data(), n) == 0);
        }
      }
    }
    tp_membuf_free(&b.m);
    tp_xnn_graph_destroy(g);
  }
  printf("  %d random graphs verified and decoded\n", graphs);
  TPT_EQ_INT(graphs, 150);
}

int main() {
  g_unchecked.target = TP_XNN_TARGET_UNCHECKED;
  for (int i = 0; i < 192; i++) storage[i] = (float)i * 0.5f - 20.0f;
  TPT_RUN(description_matches_schema);
  TPT_RUN(seed_offset_view);
  TPT_RUN(seed_view_at_byte0);
  TPT_RUN(seed_qkv);
  TPT_RUN(seed_groupwise_transposed_scale);
  TPT_RUN(seed_per_channel_scale_view);
  TPT_RUN(seed_named_mode);
  TPT_RUN(every_value_kind);
  TPT_RUN(every_node_kind);
  TPT_RUN(random_graphs);
  return tpt_finish("verify_xnnpack");
}
