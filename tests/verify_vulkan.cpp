// verify_vulkan.cpp - every Vulkan blob tensorpack writes passes the OFFICIAL FlatBuffers verifier
// (vkgraph::VerifyVkGraphBuffer on the VH00 header's flatbuffer region) and decodes, through
// flatc's generated accessors, to exactly what was written. Each blob also goes through the
// checks ExecuTorch's VulkanBackend.cpp makes before it dereferences anything (header rules,
// identifier, non-null vectors/strings/dims, inline constant offset < bytes size and extent).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tensorpack_vulkan.h"
#include "tp_test.h"
#include "vulkan_generated.h"

using namespace vkgraph;

struct Blob {
  tp_membuf m;
  const VkGraph *graph;
  uint32_t bytes_off;
  uint64_t bytes_size;
  const uint8_t *seg;
};

static size_t elem_size(VkDataType t) {
  switch (t) {
    case VkDataType_BOOL: case VkDataType_UINT8: case VkDataType_INT8: return 1;
    case VkDataType_FLOAT16: return 2;
    case VkDataType_INT32: case VkDataType_FLOAT32: return 4;
    case VkDataType_FLOAT64: case VkDataType_INT64: return 8;
    default: return 0;
  }
}

// What the upstream loader requires before it dereferences (VulkanBackend.cpp).
static void loader_checks(const Blob *b) {
  const VkGraph *g = b->graph;
  TPT_CHECK(g->values() && g->chain() && g->input_ids() && g->output_ids());
  TPT_CHECK(g->constants() && g->shaders());
  if (!g->values() || !g->chain() || !g->constants()) return;
  for (auto op : *g->chain()) {
    TPT_CHECK(op->name() && op->args());
    if (op->args())
      for (int32_t a : *op->args()) TPT_CHECK(a >= 0 && (uint32_t)a < g->values()->size());
  }
  for (uint32_t i = 0; i < g->values()->size(); i++) {
    const VkValue *v = g->values()->Get(i);
    TPT_CHECK(v->value_type() != GraphTypes_NONE && v->value() != nullptr);
    switch (v->value_type()) {
      case GraphTypes_IntList: TPT_CHECK(v->value_as_IntList()->items() != nullptr); break;
      case GraphTypes_DoubleList: TPT_CHECK(v->value_as_DoubleList()->items() != nullptr); break;
      case GraphTypes_BoolList: TPT_CHECK(v->value_as_BoolList()->items() != nullptr); break;
      case GraphTypes_ValueList: {
        auto items = v->value_as_ValueList()->items();
        TPT_CHECK(items != nullptr);
        if (items)
          for (int32_t a : *items) TPT_CHECK(a >= 0 && (uint32_t)a < i);
        break;
      }
      case GraphTypes_String: TPT_CHECK(v->value_as_String()->string_val() != nullptr); break;
      case GraphTypes_VkTensor: {
        const VkTensor *t = v->value_as_VkTensor();
        TPT_CHECK(t->dims() != nullptr);
        TPT_CHECK(t->staging_datatype() != VkDataType_UNSET);
        if (!t->dims() || t->constant_id() < 0) break;
        TPT_CHECK((uint32_t)t->constant_id() < g->constants()->size());
        if ((uint32_t)t->constant_id() >= g->constants()->size()) break;
        const VkBytes *c = g->constants()->Get((uint32_t)t->constant_id());
        uint64_t bytes = elem_size(t->datatype());
        for (uint32_t d : *t->dims()) bytes *= d;
        TPT_EQ_U64(c->length(), bytes);
        if (c->named_key() != nullptr && c->offset() == UINT64_MAX) break;
        TPT_CHECK(c->named_key() == nullptr);
        TPT_CHECK(c->offset() < b->bytes_size);
        TPT_CHECK(c->offset() % 16 == 0);
        TPT_CHECK(bytes <= b->bytes_size - c->offset());
        break;
      }
      default: break;
    }
  }
  for (uint32_t id : *g->input_ids()) TPT_CHECK(id < g->values()->size());
  for (uint32_t id : *g->output_ids()) TPT_CHECK(id < g->values()->size());
  for (auto s : *g->shaders()) {
    TPT_CHECK(s->offset() % 16 == 0);
    TPT_CHECK(s->offset() + s->length() <= b->bytes_size);
  }
}

// Writes g, checks the header as VulkanDelegateHeader.cpp does, runs the official verifier.
static bool write_and_verify(tp_vk_graph *g, Blob *b) {
  memset(&b->m, 0, sizeof b->m);
  b->graph = nullptr;
  tp_sink s = tp_sink_membuf(&b->m);
  uint64_t size = 0;
  TPT_STATUS(tp_vk_blob_size(g, &size), TP_OK);
  TPT_STATUS(tp_vk_write(g, &s), TP_OK);
  TPT_EQ_U64(b->m.size, size);
  if (b->m.size < 32) return false;
  const uint8_t *p = b->m.data;
  TPT_CHECK(memcmp(p + 4, "VH00", 4) == 0);
  uint32_t hdr = tp__get_le16(p + 8), fb_off = tp__get_le32(p + 10), fb_size = tp__get_le32(p + 14);
  b->bytes_off = tp__get_le32(p + 18);
  b->bytes_size = tp__get_le64(p + 22);
  TPT_EQ_INT(hdr, 30);
  TPT_EQ_INT(fb_off, 32);
  TPT_CHECK(fb_size != 0);
  TPT_EQ_U64(b->bytes_off, 32 + ((fb_size + 15u) & ~15u));
  TPT_EQ_U64((uint64_t)b->bytes_off + b->bytes_size, b->m.size);
  TPT_EQ_U64(b->bytes_size % 16, 0);
  if (fb_off + (uint64_t)fb_size > b->m.size) return false;
  TPT_CHECK(VkGraphBufferHasIdentifier(p + fb_off));
  flatbuffers::Verifier v(p + fb_off, fb_size);
  bool ok = VerifyVkGraphBuffer(v);
  TPT_CHECK(ok);
  if (!ok) return false;
  b->graph = GetVkGraph(p + fb_off);
  b->seg = p + b->bytes_off;
  TPT_CHECK(b->graph->version() && b->graph->version()->str() == "0");
  loader_checks(b);
  return b->graph->values() && b->graph->constants() && b->graph->chain();
}

static tp_tensor view(const void *data, size_t nbytes, tp_dtype dt, int ndim, const int64_t *sizes,
                      const int64_t *strides, int64_t offset) {
  tp_tensor t;
  tp_storage s;
  s.data = data;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, dt, ndim, sizes, strides, offset, &t, NULL), TP_OK);
  return t;
}

static const VkTensor *tensor(const Blob *b, uint32_t id) {
  const VkValue *v = b->graph->values()->Get(id);
  TPT_CHECK(v->value_type() == GraphTypes_VkTensor);
  return v->value_as_VkTensor();
}

// The seed: F.linear(x, W) with W a view 64 floats into a [3, 8, 8] storage, plus a transposed
// view; each constant's raw bytes are exactly the view's row-major bytes, and the raw segment
// is the sum of the aligned constant sizes (never a storage's size).
static void test_views_linear() {
  static float parent[3 * 8 * 8], tsrc[8 * 6];
  for (int i = 0; i < 192; i++) parent[i] = std::sin((float)i) * 3.0f;
  for (int i = 0; i < 48; i++) tsrc[i] = (float)i - 20.0f;
  int64_t psz[3] = {3, 8, 8}, tsz[2] = {8, 6};
  tp_tensor p = view(parent, sizeof parent, TP_F32, 3, psz, nullptr, 0), w, ts, tw;
  TPT_STATUS(tp_select(&p, 0, 1, &w, NULL), TP_OK);
  ts = view(tsrc, sizeof tsrc, TP_F32, 2, tsz, nullptr, 0);
  TPT_STATUS(tp_transpose(&ts, 0, 1, &tw, NULL), TP_OK); // [6, 8]
  tp_vk_graph *g = nullptr;
  TPT_STATUS(tp_vk_graph_create(nullptr, &g), TP_OK);
  size_t xd[2] = {1, 8}, yd[2] = {1, 8}, zd[2] = {1, 6};
  uint32_t x, wid, bias, y, w2, z;
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, nullptr, &x), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, nullptr, &w, &wid), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, &bias), TP_OK);
  tp_vk_tensor_desc yv = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, nullptr);
  yv.shares_memory = 1;  // memory object 0
  TPT_STATUS(tp_vk_add_tensor_desc(g, &yv, &y), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, nullptr, &tw, &w2), TP_OK);
  tp_vk_tensor_desc zv = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, zd, nullptr);
  zv.shares_memory = 1;
  zv.mem_obj_id = 1;
  TPT_STATUS(tp_vk_add_tensor_desc(g, &zv, &z), TP_OK);
  uint32_t a1[4] = {x, wid, bias, y}, a2[4] = {y, w2, bias, z};
  TPT_STATUS(tp_vk_add_op(g, 1, "aten.linear.default", a1, 4), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 2, "aten.linear.default", a2, 4), TP_OK);
  TPT_STATUS(tp_vk_set_io(g, &x, 1, &z, 1), TP_OK);
  Blob b;
  if (write_and_verify(g, &b)) {
    const VkGraph *G = b.graph;
    TPT_EQ_INT(G->values()->size(), 6);
    TPT_EQ_INT(G->constants()->size(), 2);
    TPT_EQ_U64(b.bytes_size, 256 + 192);
    const VkBytes *c0 = G->constants()->Get(0), *c1 = G->constants()->Get(1);
    TPT_EQ_U64(c0->offset(), 0);
    TPT_EQ_U64(c0->length(), 256);
    TPT_EQ_U64(c1->offset(), 256);
    TPT_EQ_U64(c1->length(), 192);
    TPT_MEMEQ(b.seg, parent + 64, 256);
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 8; c++) {
        float got;
        memcpy(&got, b.seg + 256 + 4 * (r * 8 + c), 4);
        TPT_CHECK(got == tsrc[c * 6 + r]);
      }
    const VkTensor *t = tensor(&b, wid);
    TPT_CHECK(t->datatype() == VkDataType_FLOAT32);
    TPT_EQ_INT(t->constant_id(), 0);
    TPT_EQ_INT(t->mem_obj_id(), -1);
    TPT_EQ_INT(t->dims()->size(), 2);
    TPT_EQ_INT(t->dims()->Get(0), 8);
    TPT_EQ_INT(tensor(&b, w2)->constant_id(), 1);
    TPT_EQ_INT(tensor(&b, w2)->dims()->Get(0), 6);
    TPT_EQ_INT(tensor(&b, x)->constant_id(), -1);
    TPT_EQ_INT(tensor(&b, y)->mem_obj_id(), 0);
    TPT_EQ_INT(tensor(&b, z)->mem_obj_id(), 1);
    TPT_CHECK(tensor(&b, x)->storage_type() == VkStorageType_DEFAULT_STORAGE);
    TPT_CHECK(tensor(&b, x)->memory_layout() == VkMemoryLayout_DEFAULT_LAYOUT);
    TPT_CHECK(tensor(&b, x)->staging_datatype() == VkDataType_FLOAT32);
    TPT_CHECK(G->values()->Get(bias)->value_type() == GraphTypes_Null);
    TPT_EQ_INT(G->chain()->size(), 2);
    TPT_CHECK(G->chain()->Get(1)->name()->str() == "aten.linear.default");
    TPT_EQ_INT(G->chain()->Get(1)->node_id(), 2);
    TPT_EQ_INT(G->chain()->Get(1)->args()->Get(3), (int)z);
    TPT_EQ_INT(G->input_ids()->Get(0), (int)x);
    TPT_EQ_INT(G->output_ids()->Get(0), (int)z);
    TPT_CHECK(G->storage_type_override() == VkStorageType_DEFAULT_STORAGE);
    TPT_CHECK(G->memory_layout_override() == VkMemoryLayout_DEFAULT_LAYOUT);
  }
  tp_membuf_free(&b.m);
  tp_vk_graph_destroy(g);
}

// upstream's test_empty_list_serializes_once: [] is one value and one id; used twice, two.
static void test_empty_list() {
  tp_vk_graph *g = nullptr;
  TPT_STATUS(tp_vk_graph_create(nullptr, &g), TP_OK);
  uint32_t a = 9, n = 9, c = 9;
  TPT_STATUS(tp_vk_add_int_list(g, nullptr, 0, &a), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, &n), TP_OK);
  TPT_EQ_INT(a, 0);
  TPT_EQ_INT(n, 1);
  Blob b;
  if (write_and_verify(g, &b)) {
    TPT_EQ_INT(b.graph->values()->size(), 2);
    const VkValue *v = b.graph->values()->Get(0);
    TPT_CHECK(v->value_type() == GraphTypes_IntList);
    TPT_CHECK(v->value_as_IntList()->items() != nullptr);
    TPT_EQ_INT(v->value_as_IntList()->items()->size(), 0);
  }
  tp_membuf_free(&b.m);
  TPT_STATUS(tp_vk_add_int_list(g, nullptr, 0, &c), TP_OK);
  TPT_EQ_INT(c, 2);
  if (write_and_verify(g, &b)) {
    TPT_EQ_INT(b.graph->values()->size(), 3);
    TPT_CHECK(b.graph->values()->Get(2)->value_type() == GraphTypes_IntList);
  }
  tp_membuf_free(&b.m);
  tp_vk_graph_destroy(g);
}

static void test_every_kind_and_zero_enums() {
  tp_vk_graph *g = nullptr;
  TPT_STATUS(tp_vk_graph_create(nullptr, &g), TP_OK);
  int64_t il[2] = {-5, 1LL << 40};
  double dl[3] = {0.0, -1.5, 2e-300};
  uint8_t bl[3] = {1, 0, 1};
  size_t d3[3] = {1, 2, 3};
  uint32_t t0, t1, vl[2];
  TPT_STATUS(tp_vk_add_null(g, nullptr), TP_OK);                        // 0
  TPT_STATUS(tp_vk_add_int(g, -42, nullptr), TP_OK);                    // 1
  TPT_STATUS(tp_vk_add_double(g, 0.125, nullptr), TP_OK);               // 2
  TPT_STATUS(tp_vk_add_bool(g, 1, nullptr), TP_OK);                     // 3
  tp_vk_tensor_desc tv = tp_vk_tensor_desc_make(TP_VK_BOOL, 3, d3, nullptr);
  tv.storage = TP_VK_STORAGE_BUFFER;
  tv.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  TPT_STATUS(tp_vk_add_tensor_desc(g, &tv, &t0), TP_OK);                // 4
  TPT_STATUS(tp_vk_add_int_list(g, il, 2, nullptr), TP_OK);             // 5
  TPT_STATUS(tp_vk_add_double_list(g, dl, 3, nullptr), TP_OK);          // 6
  TPT_STATUS(tp_vk_add_bool_list(g, bl, 3, nullptr), TP_OK);            // 7
  tv = tp_vk_tensor_desc_make(TP_VK_INT8, 0, nullptr, nullptr);
  tv.shares_memory = 1;
  tv.mem_obj_id = 2;
  tv.storage = TP_VK_STORAGE_TEXTURE_2D;
  tv.layout = TP_VK_LAYOUT_PACKED_INT8_4C1W;
  TPT_STATUS(tp_vk_add_tensor_desc(g, &tv, &t1), TP_OK);                // 8
  vl[0] = t0;
  vl[1] = t1;
  TPT_STATUS(tp_vk_add_value_list(g, vl, 2, nullptr), TP_OK);           // 9
  TPT_STATUS(tp_vk_add_string(g, "bilinear", nullptr), TP_OK);          // 10
  TPT_STATUS(tp_vk_add_symint(g, 12, nullptr), TP_OK);                  // 11
  Blob b;
  if (write_and_verify(g, &b)) {
    auto V = b.graph->values();
    TPT_EQ_INT(V->size(), 12);
    TPT_CHECK(V->Get(0)->value_type() == GraphTypes_Null);
    TPT_CHECK(V->Get(1)->value_type() == GraphTypes_Int);
    TPT_EQ_INT(V->Get(1)->value_as_Int()->int_val(), -42);
    TPT_CHECK(V->Get(2)->value_as_Double()->double_val() == 0.125);
    TPT_CHECK(V->Get(3)->value_as_Bool()->bool_val() == true);
    const VkTensor *t = V->Get(4)->value_as_VkTensor();
    TPT_CHECK(t->datatype() == VkDataType_BOOL);
    TPT_CHECK(t->storage_type() == VkStorageType_BUFFER);
    TPT_CHECK(t->memory_layout() == VkMemoryLayout_TENSOR_WIDTH_PACKED);
    TPT_CHECK(t->staging_datatype() == VkDataType_BOOL);
    TPT_EQ_INT(t->dims()->Get(2), 3);
    auto il2 = V->Get(5)->value_as_IntList()->items();
    TPT_EQ_INT(il2->size(), 2);
    TPT_EQ_INT(il2->Get(0), -5);
    TPT_EQ_INT(il2->Get(1), 1LL << 40);
    auto dl2 = V->Get(6)->value_as_DoubleList()->items();
    TPT_EQ_INT(dl2->size(), 3);
    TPT_CHECK(dl2->Get(1) == -1.5 && dl2->Get(2) == 2e-300);
    auto bl2 = V->Get(7)->value_as_BoolList()->items();
    TPT_EQ_INT(bl2->size(), 3);
    TPT_CHECK(bl2->Get(0) == true && bl2->Get(1) == false && bl2->Get(2) == true);
    t = V->Get(8)->value_as_VkTensor();
    TPT_CHECK(t->datatype() == VkDataType_INT8);
    TPT_EQ_INT(t->dims()->size(), 0);
    TPT_EQ_INT(t->mem_obj_id(), 2);
    TPT_CHECK(t->storage_type() == VkStorageType_TEXTURE_2D);
    TPT_CHECK(t->memory_layout() == VkMemoryLayout_PACKED_INT8_4C1W);
    TPT_CHECK(t->staging_datatype() == VkDataType_INT8);
    auto vl2 = V->Get(9)->value_as_ValueList()->items();
    TPT_EQ_INT(vl2->size(), 2);
    TPT_EQ_INT(vl2->Get(0), 4);
    TPT_EQ_INT(vl2->Get(1), 8);
    TPT_CHECK(V->Get(10)->value_as_String()->string_val()->str() == "bilinear");
    TPT_EQ_INT(V->Get(11)->value_as_SymInt()->value(), 12);
    TPT_EQ_U64(b.bytes_size, 0);
  }
  tp_membuf_free(&b.m);
  tp_vk_graph_destroy(g);
}

static void test_named_shaders_overrides_fp16() {
  static float parent[2 * 4 * 4];
  for (int i = 0; i < 32; i++) parent[i] = (float)(i * i) - 70000.0f * (i == 31);
  int64_t psz[3] = {2, 4, 4}, esz[1] = {0};
  tp_tensor p = view(parent, sizeof parent, TP_F32, 3, psz, nullptr, 0), w, wt;
  TPT_STATUS(tp_select(&p, 0, 1, &w, NULL), TP_OK); // offset 16
  TPT_STATUS(tp_transpose(&w, 0, 1, &wt, NULL), TP_OK);
  tp_tensor empty = view(parent, sizeof parent, TP_F32, 1, esz, nullptr, 0);
  static const uint32_t spv[3] = {0x07230203u, 0x00010300u, 0xdeadbeefu};
  for (int fp16 = 0; fp16 < 2; fp16++) {
    tp_store *st = nullptr;
    TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
    tp_vk_options o;
    memset(&o, 0, sizeof o);
    o.store = st;
    o.force_fp16 = fp16;
    tp_vk_graph *g = nullptr;
    TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
    uint32_t a, e, x;
    size_t xd[1] = {4};
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, nullptr, &wt, &a), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, nullptr, &empty, &e), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, xd, nullptr, &x), TP_OK);
    TPT_STATUS(tp_vk_add_shader(g, spv, sizeof spv, nullptr), TP_OK);
    TPT_STATUS(tp_vk_set_overrides(g, TP_VK_STORAGE_BUFFER, TP_VK_LAYOUT_HEIGHT_PACKED), TP_OK);
    // expected bytes: row-major of the transposed view, fp32 or fp16 (clamped)
    unsigned char want[64];
    size_t es = fp16 ? 2 : 4;
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) {
        float f = parent[16 + c * 4 + r];
        if (fp16) {
          float cl = f > 65504.0f ? 65504.0f : f < -65504.0f ? -65504.0f : f;
          tp__put_le16(want + 2 * (r * 4 + c), tp_f32_to_f16(cl));
        } else {
          memcpy(want + 4 * (r * 4 + c), &f, 4);
        }
      }
    char hex[65];
    TPT_STATUS(tp_sha256_hex(want, 16 * es, hex), TP_OK);
    Blob b;
    if (write_and_verify(g, &b)) {
      const VkGraph *G = b.graph;
      const VkBytes *c0 = G->constants()->Get(0), *c1 = G->constants()->Get(1);
      TPT_EQ_U64(c0->offset(), UINT64_MAX);
      TPT_EQ_U64(c0->length(), 16 * es);
      TPT_CHECK(c0->named_key() != nullptr);
      if (c0->named_key()) TPT_CHECK(c0->named_key()->str() == hex);
      TPT_CHECK(c1->named_key() == nullptr);
      TPT_EQ_U64(c1->offset(), 0);
      TPT_EQ_U64(c1->length(), 0);
      // raw segment: the empty constant adds nothing; the 12-byte shader padded to 16
      TPT_EQ_U64(b.bytes_size, 16);
      TPT_EQ_INT(G->shaders()->size(), 1);
      TPT_EQ_U64(G->shaders()->Get(0)->offset(), 0);
      TPT_EQ_U64(G->shaders()->Get(0)->length(), 12);
      unsigned char sb[12];
      for (int k = 0; k < 3; k++) tp__put_le32(sb + 4 * k, spv[k]);
      TPT_MEMEQ(b.seg, sb, 12);
      TPT_CHECK(G->storage_type_override() == VkStorageType_BUFFER);
      TPT_CHECK(G->memory_layout_override() == VkMemoryLayout_TENSOR_HEIGHT_PACKED);
      const VkTensor *t = tensor(&b, a);
      TPT_CHECK(t->datatype() == (fp16 ? VkDataType_FLOAT16 : VkDataType_FLOAT32));
      TPT_CHECK(t->staging_datatype() == (fp16 ? VkDataType_FLOAT16 : VkDataType_FLOAT32));
      t = tensor(&b, x);
      TPT_CHECK(t->datatype() == (fp16 ? VkDataType_FLOAT16 : VkDataType_FLOAT32));
      TPT_CHECK(t->staging_datatype() == VkDataType_FLOAT32);
      TPT_EQ_INT(tensor(&b, e)->constant_id(), 1);
    }
    tp_membuf_free(&b.m);
    // the .ptd holds those bytes under the key
    tp_membuf pm;
    memset(&pm, 0, sizeof pm);
    tp_sink ps = tp_sink_membuf(&pm);
    TPT_STATUS(tp_store_write_ptd(st, &ps), TP_OK);
    tp_ptd pd;
    tp_ptd_entry en;
    TPT_STATUS(tp_ptd_open(&pd, pm.data, pm.size), TP_OK);
    TPT_STATUS(tp_ptd_find(&pd, hex, &en), TP_OK);
    TPT_EQ_U64(en.nbytes, 16 * es);
    if (en.nbytes == 16 * es) TPT_MEMEQ(en.data, want, 16 * es);
    tp_membuf_free(&pm);
    tp_vk_graph_destroy(g);
    tp_store_destroy(st);
  }
}

// Random graphs: every blob verifies, passes the loader's checks and decodes to the value kinds
// and constant bytes it was built from.
static void test_random_graphs() {
  static float pool[4096];
  for (int i = 0; i < 4096; i++) pool[i] = (float)(int)(tpt_rand() % 2001) * 0.01f - 10.0f;
  for (int iter = 0; iter < 300; iter++) {
    tp_store *st = nullptr;
    tp_vk_options o;
    memset(&o, 0, sizeof o);
    if (iter % 3 == 1) {
      TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
      o.store = st;
    }
    o.force_fp16 = iter % 5 == 4;
    o.other_runtime = 1;  // random values and an "et_vk.test" call: the encoding, not a model
    tp_vk_graph *g = nullptr;
    TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
    std::vector<int> kinds;
    std::vector<tp_tensor> consts;
    int nv = (int)tpt_range(0, 40);
    for (int k = 0; k < nv; k++) {
      int kind = (int)tpt_range(1, 11);
      uint32_t id = 0;
      tp_status s = TP_OK;
      switch (kind) {
        case 1: s = tp_vk_add_null(g, &id); break;
        case 2: s = tp_vk_add_int(g, (int64_t)tpt_rand(), &id); break;
        case 3: s = tp_vk_add_double(g, (double)tpt_range(-1000, 1000) / 8.0, &id); break;
        case 4: s = tp_vk_add_bool(g, (int)tpt_range(0, 1), &id); break;
        case 5: {
          int64_t r = tpt_range(0, 9), c = tpt_range(0, 9);
          int64_t sz[2] = {r, c};
          tp_tensor t = view(pool, sizeof pool, TP_F32, 2, sz, nullptr, tpt_range(0, 3000));
          if (tpt_range(0, 1)) TPT_STATUS(tp_transpose(&t, 0, 1, &t, NULL), TP_OK);
          int is_const = (int)tpt_range(0, 1);
          size_t dims[2] = {(size_t)t.sizes[0], (size_t)t.sizes[1]};
          tp_vk_tensor_desc d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, dims, is_const ? &t : nullptr);
          int32_t mem = (int32_t)tpt_range(-1, 3);  // -1: own memory
          d.shares_memory = mem >= 0;
          d.mem_obj_id = mem >= 0 ? mem : 0;
          d.storage = (tp_vk_storage)tpt_range(0, 3);  // 0: default
          d.layout = (tp_vk_layout)tpt_range(0, 3);
          s = tp_vk_add_tensor_desc(g, &d, &id);
          if (is_const) consts.push_back(t);
          break;
        }
        case 6: {
          int64_t v[5];
          size_t n = (size_t)tpt_range(0, 5);
          for (size_t i = 0; i < n; i++) v[i] = tpt_range(-9, 9);
          s = tp_vk_add_int_list(g, v, n, &id);
          break;
        }
        case 7: {
          double v[3] = {1.0, 2.0, 3.0};
          s = tp_vk_add_double_list(g, v, (size_t)tpt_range(0, 3), &id);
          break;
        }
        case 8: {
          uint8_t v[4] = {1, 0, 1, 1};
          s = tp_vk_add_bool_list(g, v, (size_t)tpt_range(0, 4), &id);
          break;
        }
        case 9: {
          uint32_t v[3];
          size_t n = kinds.empty() ? 0 : (size_t)tpt_range(0, 3);
          for (size_t i = 0; i < n; i++) v[i] = (uint32_t)tpt_range(0, (int64_t)kinds.size() - 1);
          s = tp_vk_add_value_list(g, v, n, &id);
          break;
        }
        case 10: s = tp_vk_add_string(g, tpt_range(0, 1) ? "" : "abc", &id); break;
        default: s = tp_vk_add_symint(g, (int32_t)tpt_range(-5, 5), &id); break;
      }
      TPT_STATUS(s, TP_OK);
      TPT_EQ_INT(id, (int)kinds.size());
      kinds.push_back(kind);
    }
    if (!kinds.empty()) {
      uint32_t args[3] = {0, (uint32_t)(kinds.size() - 1), (uint32_t)(kinds.size() / 2)};
      TPT_STATUS(tp_vk_add_op(g, (uint32_t)iter, "et_vk.test", args, 3), TP_OK);
      TPT_STATUS(tp_vk_set_io(g, args, 1, args + 1, 1), TP_OK);
    }
    if (iter % 7 == 0) {
      uint8_t sh[37];
      memset(sh, iter & 0xff, sizeof sh);
      TPT_STATUS(tp_vk_add_shader(g, sh, (size_t)tpt_range(1, 37), nullptr), TP_OK);
    }
    Blob b;
    if (write_and_verify(g, &b)) {
      TPT_EQ_INT(b.graph->values()->size(), (int)kinds.size());
      for (size_t k = 0; k < kinds.size(); k++)
        TPT_EQ_INT((int)b.graph->values()->Get((uint32_t)k)->value_type(), kinds[k]);
      TPT_EQ_INT(b.graph->constants()->size(), (int)consts.size());
      uint64_t inline_sum = 0;
      for (size_t c = 0; c < consts.size(); c++) {
        const VkBytes *vb = b.graph->constants()->Get((uint32_t)c);
        tp_membuf cm;
        memset(&cm, 0, sizeof cm);
        tp_sink cs = tp_sink_membuf(&cm);
        if (o.force_fp16)
          TPT_STATUS(tp_convert_write(&consts[c], TP_F16, TP_CONVERT_SATURATE, &cs), TP_OK);
        else
          TPT_STATUS(tp_compact_write(&consts[c], TP_ORDER_ROW_MAJOR, &cs), TP_OK);
        TPT_EQ_U64(vb->length(), cm.size);
        if (vb->offset() == UINT64_MAX) {
          char hex[65];
          TPT_STATUS(tp_sha256_hex(cm.data, cm.size, hex), TP_OK);
          TPT_CHECK(vb->named_key() && vb->named_key()->str() == hex);
        } else if (cm.size > 0) {
          TPT_CHECK(vb->offset() + cm.size <= b.bytes_size);
          if (vb->offset() + cm.size <= b.bytes_size) TPT_MEMEQ(b.seg + vb->offset(), cm.data, cm.size);
          inline_sum += (cm.size + 15) & ~(uint64_t)15;
        }
        tp_membuf_free(&cm);
      }
      for (auto s : *b.graph->shaders()) inline_sum += (s->length() + 15) & ~(uint64_t)15;
      if (inline_sum == 0 && b.bytes_size == 16) inline_sum = 16;  // only empty constants
      TPT_EQ_U64(b.bytes_size, inline_sum);
    }
    tp_membuf_free(&b.m);
    tp_vk_graph_destroy(g);
    tp_store_destroy(st);
  }
}


// The other direction: a blob built by the OFFICIAL FlatBufferBuilder the way upstream's
// Python serializer lays it out (inline constants carry an empty-but-present named_key, an
// empty constant sits at the running offset, named constants at UINT64_MAX) is read by
// tp_vk_read_blob exactly as the loader would.
static void test_read_official_blob() {
  flatbuffers::FlatBufferBuilder fbb;
  static float w0[12];
  for (int i = 0; i < 12; i++) w0[i] = (float)i * 0.75f;
  float w1[4] = {9, 8, 7, 6};
  char key1[65];
  TPT_STATUS(tp_sha256_hex(w1, sizeof w1, key1), TP_OK);
  std::vector<flatbuffers::Offset<VkValue>> values;
  std::vector<uint32_t> d0 = {3, 4}, d1 = {4}, d2 = {2, 2}, d3 = {0};
  values.push_back(CreateVkValue(fbb, GraphTypes_Int, CreateInt(fbb, 5).Union()));
  values.push_back(CreateVkValue(fbb, GraphTypes_VkTensor,
      CreateVkTensorDirect(fbb, VkDataType_FLOAT32, &d0, 0, -1, VkStorageType_DEFAULT_STORAGE,
                           VkMemoryLayout_DEFAULT_LAYOUT, VkDataType_FLOAT32).Union()));
  values.push_back(CreateVkValue(fbb, GraphTypes_VkTensor,
      CreateVkTensorDirect(fbb, VkDataType_FLOAT32, &d1, 1, -1).Union()));
  values.push_back(CreateVkValue(fbb, GraphTypes_VkTensor,
      CreateVkTensorDirect(fbb, VkDataType_INT32, &d2, -1, 0, VkStorageType_BUFFER,
                           VkMemoryLayout_TENSOR_WIDTH_PACKED, VkDataType_INT32).Union()));
  values.push_back(CreateVkValue(fbb, GraphTypes_VkTensor,
      CreateVkTensorDirect(fbb, VkDataType_FLOAT32, &d3, 2, -1).Union()));
  std::vector<int64_t> none;
  values.push_back(CreateVkValue(fbb, GraphTypes_IntList, CreateIntListDirect(fbb, &none).Union()));
  std::vector<flatbuffers::Offset<VkBytes>> consts;
  consts.push_back(CreateVkBytesDirect(fbb, 0, 48, ""));            // inline, key "" present
  consts.push_back(CreateVkBytesDirect(fbb, UINT64_MAX, 16, key1));  // named
  consts.push_back(CreateVkBytesDirect(fbb, 0, 0, ""));             // empty
  std::vector<flatbuffers::Offset<OperatorCall>> chain;
  std::vector<int32_t> args = {1, 3};
  chain.push_back(CreateOperatorCallDirect(fbb, 0, "aten.mm.default", &args));
  std::vector<uint32_t> ins = {3}, outs = {3};
  std::vector<flatbuffers::Offset<VkBytes>> shaders;
  FinishVkGraphBuffer(fbb, CreateVkGraphDirect(fbb, "0", &chain, &values, &ins, &outs, &consts,
                                               &shaders));
  // VH00 blob: header padded to 32, flatbuffer padded to 16, raw bytes (48)
  std::vector<uint8_t> blob(32, 0);
  uint32_t fb_size = fbb.GetSize(), fb_pad = (fb_size + 15u) & ~15u;
  memcpy(&blob[4], "VH00", 4);
  tp__put_le16(&blob[8], 30);
  tp__put_le32(&blob[10], 32);
  tp__put_le32(&blob[14], fb_size);
  tp__put_le32(&blob[18], 32 + fb_pad);
  tp__put_le64(&blob[22], 48);
  blob.insert(blob.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fb_size);
  blob.resize(32 + fb_pad, 0);
  const uint8_t *wb = (const uint8_t *)w0;
  blob.insert(blob.end(), wb, wb + 48);
  // the .ptd with the named constant
  tp_store *st = nullptr;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  TPT_STATUS(tp_store_add_bytes(st, nullptr, w1, sizeof w1, 16, 1, nullptr), TP_OK);
  tp_membuf pm;
  memset(&pm, 0, sizeof pm);
  tp_sink ps = tp_sink_membuf(&pm);
  TPT_STATUS(tp_store_write_ptd(st, &ps), TP_OK);
  tp_ptd pd;
  TPT_STATUS(tp_ptd_open(&pd, pm.data, pm.size), TP_OK);
  tp_vk_blob rb;
  tp_error err;
  memset(&err, 0, sizeof err);
  TPT_STATUS(tp_vk_read_blob(blob.data(), blob.size(), &pd, &rb, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  const tp_vk_blob_value *v = rb.values;
  uint32_t n = rb.num_values;
  TPT_EQ_INT(n, 6);
  if (v && n == 6) {
    TPT_EQ_INT(v[0].type, TP_VK_INT_VALUE);
    TPT_CHECK(v[1].is_constant && v[1].key == nullptr);  // "" + real offset = inline
    TPT_EQ_U64(v[1].nbytes, 48);
    TPT_CHECK(v[1].data == blob.data() + 32 + fb_pad);
    if (v[1].data) TPT_MEMEQ(v[1].data, w0, 48);
    TPT_CHECK(v[2].is_constant && v[2].key != nullptr);
    if (v[2].key) TPT_EQ_STR(v[2].key, key1);
    if (v[2].data) TPT_MEMEQ(v[2].data, w1, 16);
    TPT_CHECK(!v[3].is_constant);
    TPT_EQ_INT(v[3].datatype, TP_VK_INT32);
    TPT_EQ_INT(v[3].ndim, 2);
    TPT_CHECK(v[4].is_constant);
    TPT_EQ_U64(v[4].nbytes, 0);
    TPT_EQ_INT(v[5].type, TP_VK_INT_LIST_VALUE);
  }
  tp_vk_blob_free(&rb);
  // upstream puts an empty constant at the running offset; at the very end of the raw bytes
  // the loader refuses it (offset < size), and so does tp_vk_read_blob
  {
    flatbuffers::FlatBufferBuilder f2;
    std::vector<flatbuffers::Offset<VkValue>> vals2;
    vals2.push_back(CreateVkValue(f2, GraphTypes_VkTensor,
        CreateVkTensorDirect(f2, VkDataType_FLOAT32, &d3, 0, -1).Union()));
    std::vector<flatbuffers::Offset<VkBytes>> c2;
    c2.push_back(CreateVkBytesDirect(f2, 48, 0, ""));
    std::vector<flatbuffers::Offset<OperatorCall>> ch2;
    std::vector<uint32_t> io2;
    FinishVkGraphBuffer(f2, CreateVkGraphDirect(f2, "0", &ch2, &vals2, &io2, &io2, &c2, &c2));
    std::vector<uint8_t> b2(blob.begin(), blob.begin() + 32);
    uint32_t s2 = f2.GetSize(), p2 = (s2 + 15u) & ~15u;
    tp__put_le32(&b2[14], s2);
    tp__put_le32(&b2[18], 32 + p2);
    b2.insert(b2.end(), f2.GetBufferPointer(), f2.GetBufferPointer() + s2);
    b2.resize(32 + p2 + 48, 0);
    memset(&err, 0, sizeof err);
    TPT_STATUS(tp_vk_read_blob(b2.data(), b2.size(), nullptr, &rb, &err), TP_ERR_FORMAT);
    TPT_CHECK(std::string(err.msg).find("offset 48 with 0 bytes exceeds the 48 raw bytes") !=
              std::string::npos);
  }
  tp_membuf_free(&pm);
  tp_store_destroy(st);
}

// The one description of VK00 (TP_VK_FIELDS in tensorpack_vulkan.h) against flatc's code for
// our schema copy: every described field has the schema's name at its id, its type, and its
// default (read through the generated accessor from an empty table built by the official
// builder); every field of every described table is described.
static bool kind_matches(const char *kind, const flatbuffers::TypeCode &tc) {
  std::string k(kind);
  if (k == "VEC") return tc.is_repeating != 0;
  if (tc.is_repeating) return false;
  if (k == "STR") return tc.base_type == flatbuffers::ET_STRING;
  if (k == "UNION") return tc.base_type == flatbuffers::ET_SEQUENCE;
  if (k == "BOOL") return tc.base_type == flatbuffers::ET_BOOL;
  if (k == "I8") return tc.base_type == flatbuffers::ET_CHAR;
  if (k == "U8") return tc.base_type == flatbuffers::ET_UCHAR || tc.base_type == flatbuffers::ET_UTYPE;
  if (k == "I32") return tc.base_type == flatbuffers::ET_INT;
  if (k == "U32") return tc.base_type == flatbuffers::ET_UINT;
  if (k == "I64") return tc.base_type == flatbuffers::ET_LONG;
  if (k == "U64") return tc.base_type == flatbuffers::ET_ULONG;
  if (k == "F64") return tc.base_type == flatbuffers::ET_DOUBLE;
  return false;
}

template <typename T> static bool default_is(T v, long long d) { return (long long)v == d; }
template <typename T> static bool default_is(const T *p, long long d) { return !p && d == 0; }

template <typename T> static const T *empty_table(flatbuffers::FlatBufferBuilder &fbb) {
  fbb.Clear();
  flatbuffers::uoffset_t start = fbb.StartTable();
  fbb.Finish(flatbuffers::Offset<T>(fbb.EndTable(start)));
  return flatbuffers::GetRoot<T>(fbb.GetBufferPointer());
}

static void test_format_description() {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<std::string> tables;
  std::vector<unsigned> counts;
  int n = 0;
#define TPV_FIELD(t, f, id, kind, dflt)                                                        \
  {                                                                                            \
    const flatbuffers::TypeTable *tt = t##TypeTable();                                         \
    TPT_CHECK((size_t)(id) < tt->num_elems);                                                   \
    if ((size_t)(id) < tt->num_elems) {                                                        \
      TPT_EQ_STR(tt->names[id], #f);                                                           \
      TPT_CHECK(kind_matches(#kind, tt->type_codes[id]));                                      \
    }                                                                                          \
    TPT_CHECK(default_is(empty_table<t>(fbb)->f(), (long long)(dflt)));                        \
    size_t k = 0;                                                                              \
    while (k < tables.size() && tables[k] != #t) k++;                                          \
    if (k == tables.size()) { tables.push_back(#t); counts.push_back(0); }                     \
    counts[k]++;                                                                               \
    n++;                                                                                       \
  }
  TP_VK_FIELDS(TPV_FIELD)
#undef TPV_FIELD
  TPT_EQ_INT(n, 33);
  // every field of every described table is in the description
  const flatbuffers::TypeTable *all[] = {VkGraphTypeTable(), OperatorCallTypeTable(),
      VkValueTypeTable(), VkTensorTypeTable(), IntTypeTable(), DoubleTypeTable(),
      BoolTypeTable(), StringTypeTable(), IntListTypeTable(), DoubleListTypeTable(),
      BoolListTypeTable(), ValueListTypeTable(), SymIntTypeTable(), VkBytesTypeTable()};
  unsigned total = 0;
  for (const flatbuffers::TypeTable *tt : all) total += (unsigned)tt->num_elems;
  TPT_EQ_INT(total, 33);
  TPT_EQ_INT((int)tables.size(), 14);
  // the union's members in tag order, and the enums' names
#define TPV_KIND(tag, name, es) TPT_EQ_STR(GraphTypesTypeTable()->names[tag], #name);
  TP_VK_VALUE_KINDS(TPV_KIND)
#undef TPV_KIND
  TPT_EQ_INT((int)GraphTypesTypeTable()->num_elems, 12);  // NONE + 11 members
#define TPV_DT(v, name, tpdt, size) TPT_EQ_STR(EnumNameVkDataType((VkDataType)(v)), #name); \
  TPT_EQ_INT((int)elem_size((VkDataType)(v)), size);
  TP_VK_DATATYPES(TPV_DT)
#undef TPV_DT
#define TPV_ST(v, name) TPT_EQ_STR(EnumNameVkStorageType((VkStorageType)(v)), #name);
  TP_VK_STORAGE_TYPES(TPV_ST)
#undef TPV_ST
#define TPV_ML(v, name) TPT_EQ_STR(EnumNameVkMemoryLayout((VkMemoryLayout)(v)), #name);
  TP_VK_MEMORY_LAYOUTS(TPV_ML)
#undef TPV_ML
  TPT_EQ_STR(tp_vk_datatype_name(TP_VK_D_VkTensor_staging_datatype), "UNSET");
  TPT_EQ_STR(tp_vk_storage_type_name(TP_VK_D_VkTensor_storage_type), "DEFAULT");
  TPT_CHECK(tp_vk_memory_layout_name(7) == nullptr);
  TPT_EQ_STR(tp_vk_value_kind_name(TP_VK_TENSOR_VALUE), "VkTensor");
  TPT_EQ_INT((int)tp_vk_datatype_size(TP_VK_UNSET), 0);
}

int main() {
  TPT_RUN(test_views_linear);
  TPT_RUN(test_empty_list);
  TPT_RUN(test_every_kind_and_zero_enums);
  TPT_RUN(test_named_shaders_overrides_fp16);
  TPT_RUN(test_random_graphs);
  TPT_RUN(test_read_official_blob);
  TPT_RUN(test_format_description);
  return tpt_finish("verify_vulkan");
}
