// Programs (.pte) against the official FlatBuffers code generated from tests/schemas/program.fbs:
//  1. every row of TP_PTE_FIELDS (tensorpack.h's one description of ET12) has the field id that
//     flatc gives the same table and field (VT_<FIELD> == 4 + 2 * id);
//  2. every program tensorpack writes here (the seed linear, named data embedded, several
//     methods with compile specs, a Vulkan graph) passes executorch_flatbuffer::
//     VerifyProgramBuffer on bytes [0, program_size) (what Program::load verifies), and decodes
//     field by field with the generated accessors into what was added; its segments hold the
//     blobs and the named bytes;
//  3. a program built with the official C++ builder, the eh00 header inserted the way upstream's
//     Python writer does, is read by tp_pte_read with the same fields; every truncation and
//     single-byte change of it is read or refused with TP_ERR_FORMAT, never a crash.
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include "program_generated.h"

#include <cmath>
#include <string>
#include <vector>

namespace et = executorch_flatbuffer;

static int g_verified = 0;

// ---- 1. the description ------------------------------------------------------------------

static void test_field_ids(void) {
#define CHECK_ROW(T, f, F, id, kind, dflt) TPT_EQ_INT(static_cast<int>(et::T::VT_##F), 4 + 2 * (id));
  TP_PTE_FIELDS(CHECK_ROW)
#undef CHECK_ROW
#define CHECK_TAG(N, tag) TPT_EQ_INT(static_cast<int>(et::KernelTypes_##N), tag);
  TP_PTE_KERNEL_TYPES(CHECK_TAG)
#undef CHECK_TAG
#define CHECK_TAG(N, tag) TPT_EQ_INT(static_cast<int>(et::InstructionArguments_##N), tag);
  TP_PTE_INSTRUCTIONS(CHECK_TAG)
#undef CHECK_TAG
  TPT_EQ_INT(static_cast<int>(et::DataLocation_SEGMENT), TP_PTE_DATA_SEGMENT);
  TPT_EQ_INT(static_cast<int>(et::DataLocation_INLINE), TP_PTE_DATA_INLINE);
}

// ---- 2. our programs through the official code ---------------------------------------------

static float g_storage[3 * 8 * 8];

static tp_xnn_graph *seed_linear(tp_store *store) {
  int64_t sz[3] = {3, 8, 8};
  tp_storage s = {g_storage, sizeof g_storage};
  tp_tensor parent, w;
  tp_xnn_options o;
  tp_xnn_graph *g = nullptr;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y;
  for (size_t i = 0; i < 3 * 8 * 8; i++) g_storage[i] = static_cast<float>(i) * 0.5f - 9.0f;
  tp_view(s, TP_F32, 3, sz, nullptr, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL);
  memset(&o, 0, sizeof o);
  o.store = store;
  tp_xnn_graph_create(&o, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, nullptr, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, nullptr, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, nullptr, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
  return g;
}

static std::vector<unsigned char> write_prog(tp_pte *p) {
  tp_membuf mb;
  memset(&mb, 0, sizeof mb);
  tp_sink s = tp_sink_membuf(&mb);
  uint64_t size = 0;
  TPT_STATUS(tp_pte_size(p, &size), TP_OK);
  TPT_STATUS(tp_pte_write(p, &s), TP_OK);
  TPT_EQ_U64(mb.size, size);
  std::vector<unsigned char> out(mb.data, mb.data + mb.size);
  tp_membuf_free(&mb);
  return out;
}

// What a method was built from, to compare with the decoded program.
struct WantArg {
  unsigned role;
  int dtype;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
};
struct WantMethod {
  std::string name, backend;
  std::vector<WantArg> args;
  std::vector<unsigned char> blob;
  std::vector<std::pair<std::string, std::vector<unsigned char>>> specs;
};

static uint64_t le64(const unsigned char *p) { return tp__get_le64(p); }

// Verifies and decodes one program with the generated code; checks it against `want`.
static void verify_program(const std::vector<unsigned char> &bytes,
                           const std::vector<WantMethod> &want,
                           const std::vector<std::pair<std::string, std::vector<unsigned char>>> &named) {
  TPT_CHECK(bytes.size() >= 40);
  if (bytes.size() < 40) return;
  TPT_CHECK(memcmp(bytes.data() + 8, "eh00", 4) == 0);
  uint64_t psize = le64(bytes.data() + 16), base = le64(bytes.data() + 24);
  uint64_t dsize = le64(bytes.data() + 32);
  TPT_EQ_U64(base + dsize, bytes.size());
  flatbuffers::Verifier v(bytes.data(), static_cast<size_t>(psize));
  TPT_CHECK(et::VerifyProgramBuffer(v));
  TPT_CHECK(et::ProgramBufferHasIdentifier(bytes.data()));
  g_verified++;
  const et::Program *prog = et::GetProgram(bytes.data());
  TPT_EQ_INT(prog->version(), 0);
  TPT_CHECK(prog->constant_segment() && prog->constant_segment()->offsets());
  TPT_EQ_INT(prog->constant_segment()->offsets()->size(), 1);
  TPT_EQ_U64(prog->constant_segment()->offsets()->Get(0), 0);
  TPT_EQ_INT(prog->constant_segment()->segment_index(), 0);
  const auto *segs = prog->segments();
  TPT_CHECK(segs != nullptr);
  TPT_EQ_U64(segs->Get(0)->size(), 0);
  const auto *plans = prog->execution_plan();
  TPT_EQ_INT(plans->size(), want.size());
  for (size_t mi = 0; mi < want.size() && mi < plans->size(); mi++) {
    const WantMethod &w = want[mi];
    const et::ExecutionPlan *plan = plans->Get(static_cast<flatbuffers::uoffset_t>(mi));
    TPT_CHECK(plan->name()->str() == w.name);
    TPT_EQ_INT(plan->values()->size(), w.args.size());
    TPT_EQ_INT(plan->chains()->size(), 1);
    TPT_CHECK(plan->operators() != nullptr && plan->operators()->size() == 0);
    TPT_EQ_INT(plan->non_const_buffer_sizes()->size(), 2);
    TPT_EQ_INT(plan->non_const_buffer_sizes()->Get(0), 0);
    int64_t planned = plan->non_const_buffer_sizes()->Get(1);
    std::vector<int32_t> ins, outs;
    uint64_t end = 0;
    for (size_t k = 0; k < w.args.size(); k++) {
      const et::EValue *ev = plan->values()->Get(static_cast<flatbuffers::uoffset_t>(k));
      TPT_CHECK(ev->val_type() == et::KernelTypes_Tensor);
      const et::Tensor *t = ev->val_as_Tensor();
      if (!t) continue;
      TPT_EQ_INT(static_cast<int>(t->scalar_type()), w.args[k].dtype);
      TPT_EQ_INT(t->sizes()->size(), w.args[k].sizes.size());
      TPT_EQ_INT(t->dim_order()->size(), w.args[k].order.size());
      uint64_t numel = 1;
      for (size_t d = 0; d < w.args[k].sizes.size() && d < t->sizes()->size(); d++) {
        TPT_EQ_INT(t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d)), w.args[k].sizes[d]);
        TPT_EQ_INT(t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d)), w.args[k].order[d]);
        numel *= static_cast<uint64_t>(w.args[k].sizes[d]);
      }
      TPT_EQ_INT(t->storage_offset(), 0);
      TPT_EQ_INT(t->data_buffer_idx(), 0);
      TPT_CHECK(t->shape_dynamism() == et::TensorShapeDynamism_STATIC);
      TPT_CHECK(t->allocation_info() != nullptr);
      if (!t->allocation_info()) continue;
      TPT_EQ_INT(t->allocation_info()->memory_id(), 1);
      uint64_t off = t->allocation_info()->memory_offset_low() |
                     (static_cast<uint64_t>(t->allocation_info()->memory_offset_high()) << 32);
      TPT_EQ_U64(off % 16, 0);
      TPT_CHECK(off >= end); // no overlap
      end = off + numel * tp_dtype_size(static_cast<tp_dtype>(w.args[k].dtype));
      TPT_CHECK(end <= static_cast<uint64_t>(planned));
      if (w.args[k].role & TP_PTE_INPUT) ins.push_back(static_cast<int32_t>(k));
      if (w.args[k].role & TP_PTE_OUTPUT) outs.push_back(static_cast<int32_t>(k));
    }
    TPT_EQ_INT(plan->inputs()->size(), ins.size());
    for (size_t k = 0; k < ins.size() && k < plan->inputs()->size(); k++)
      TPT_EQ_INT(plan->inputs()->Get(static_cast<flatbuffers::uoffset_t>(k)), ins[k]);
    TPT_EQ_INT(plan->outputs()->size(), outs.size());
    for (size_t k = 0; k < outs.size() && k < plan->outputs()->size(); k++)
      TPT_EQ_INT(plan->outputs()->Get(static_cast<flatbuffers::uoffset_t>(k)), outs[k]);
    const et::Chain *ch = plan->chains()->Get(0);
    TPT_EQ_INT(ch->instructions()->size(), 1);
    const et::DelegateCall *dc = ch->instructions()->Get(0)->instr_args_as_DelegateCall();
    TPT_CHECK(dc != nullptr);
    if (dc) {
      TPT_EQ_INT(dc->delegate_index(), 0);
      TPT_EQ_INT(dc->args()->size(), w.args.size());
      for (size_t k = 0; k < dc->args()->size(); k++)
        TPT_EQ_INT(dc->args()->Get(static_cast<flatbuffers::uoffset_t>(k)), k);
    }
    TPT_EQ_INT(plan->delegates()->size(), 1);
    const et::BackendDelegate *del = plan->delegates()->Get(0);
    TPT_CHECK(del->id()->str() == w.backend);
    TPT_CHECK(del->processed()->location() == et::DataLocation_SEGMENT);
    uint32_t si = del->processed()->index();
    TPT_EQ_INT(si, 1 + mi);
    if (si < segs->size()) {
      const et::DataSegment *sg = segs->Get(si);
      TPT_EQ_U64(sg->size(), w.blob.size());
      TPT_EQ_U64((base + sg->offset()) % 128, 0);
      TPT_CHECK(base + sg->offset() + sg->size() <= bytes.size());
      if (sg->size() == w.blob.size() && base + sg->offset() + sg->size() <= bytes.size())
        TPT_MEMEQ(bytes.data() + base + sg->offset(), w.blob.data(), w.blob.size());
    }
    size_t nspecs = del->compile_specs() ? del->compile_specs()->size() : 0;
    TPT_EQ_INT(nspecs, w.specs.size());
    for (size_t k = 0; k < nspecs && k < w.specs.size(); k++) {
      const et::CompileSpec *cs = del->compile_specs()->Get(static_cast<flatbuffers::uoffset_t>(k));
      TPT_CHECK(cs->key()->str() == w.specs[k].first);
      TPT_EQ_INT(cs->value()->size(), w.specs[k].second.size());
      if (cs->value()->size() == w.specs[k].second.size() && !w.specs[k].second.empty())
        TPT_MEMEQ(cs->value()->data(), w.specs[k].second.data(), w.specs[k].second.size());
    }
  }
  size_t nn = prog->named_data() ? prog->named_data()->size() : 0;
  TPT_EQ_INT(nn, named.size());
  for (size_t i = 0; i < nn && i < named.size(); i++) {
    const et::NamedData *nd = prog->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (!named[i].first.empty()) TPT_CHECK(nd->key()->str() == named[i].first);
    const et::DataSegment *sg = segs->Get(nd->segment_index());
    TPT_EQ_U64(sg->size(), named[i].second.size());
    if (sg->size() == named[i].second.size() && base + sg->offset() + sg->size() <= bytes.size())
      TPT_MEMEQ(bytes.data() + base + sg->offset(), named[i].second.data(), named[i].second.size());
  }
  // and our own reader agrees
  tp_pte_file f;
  TPT_STATUS(tp_pte_read(&f, bytes.data(), bytes.size()), TP_OK);
  TPT_EQ_INT(f.n_methods, want.size());
  TPT_EQ_INT(f.n_segments, segs->size());
  TPT_EQ_INT(f.n_named, nn);
}

static std::vector<unsigned char> blob_of_xnn(tp_xnn_graph *g) {
  tp_membuf mb;
  memset(&mb, 0, sizeof mb);
  tp_sink s = tp_sink_membuf(&mb);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  std::vector<unsigned char> out(mb.data, mb.data + mb.size);
  tp_membuf_free(&mb);
  return out;
}

static WantArg arg(unsigned role, int dt, std::vector<int32_t> sizes, std::vector<uint8_t> order) {
  WantArg a;
  a.role = role;
  a.dtype = dt;
  a.sizes = sizes;
  a.order = order;
  return a;
}

static tp_status bytes_produce(void *ctx, tp_sink *sink) {
  const std::vector<unsigned char> *b = static_cast<const std::vector<unsigned char> *>(ctx);
  return tp_sink_write(sink, b->data(), b->size());
}

static void test_our_programs(void) {
  // seed linear, inline constants
  {
    tp_xnn_graph *g = seed_linear(nullptr);
    tp_pte *p = nullptr;
    tp_pte_create(nullptr, &p);
    TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
    WantMethod w;
    w.name = "forward";
    w.backend = "XnnpackBackend";
    w.args.push_back(arg(TP_PTE_INPUT, 6, {2, 8}, {0, 1}));
    w.args.push_back(arg(TP_PTE_OUTPUT, 6, {2, 8}, {0, 1}));
    w.blob = blob_of_xnn(g);
    verify_program(write_prog(p), {w}, {});
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
  }
  // named mode, the store embedded; a second method with compile specs and odd dim orders
  {
    tp_store *st = nullptr;
    tp_store_create(NULL, &st);
    tp_xnn_graph *g = seed_linear(st);
    tp_pte_options o;
    memset(&o, 0, sizeof o);
    o.embed = st;
    tp_pte *p = nullptr;
    tp_pte_create(&o, &p);
    TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
    std::vector<unsigned char> blob2(333);
    for (size_t i = 0; i < blob2.size(); i++) blob2[i] = static_cast<unsigned char>(i * 13u);
    tp_pte_tensor a[3];
    memset(a, 0, sizeof a);
    a[0].role = TP_PTE_INPUT; a[0].dtype = TP_F16; a[0].ndim = 4;
    a[0].sizes[0] = 1; a[0].sizes[1] = 3; a[0].sizes[2] = 5; a[0].sizes[3] = 7;
    a[0].dim_order[0] = 0; a[0].dim_order[1] = 2; a[0].dim_order[2] = 3; a[0].dim_order[3] = 1;
    a[1].role = TP_PTE_INPUT | TP_PTE_OUTPUT; a[1].dtype = TP_I32; a[1].ndim = 0;
    a[2].role = TP_PTE_OUTPUT; a[2].dtype = TP_U8; a[2].ndim = 1; a[2].sizes[0] = 0;
    tp_pte_compile_spec sp[2];
    sp[0].key = "memory_layout_override"; sp[0].value = "\x02\x00\x00\x00"; sp[0].nbytes = 4;
    sp[1].key = "flag"; sp[1].value = nullptr; sp[1].nbytes = 0;
    tp_pte_method m;
    memset(&m, 0, sizeof m);
    m.name = "second";
    m.args = a;
    m.n_args = 3;
    m.backend_id = "VulkanBackend";
    m.blob_size = blob2.size();
    m.produce = bytes_produce;
    m.ctx = &blob2;
    m.specs = sp;
    m.n_specs = 2;
    TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
    WantMethod w1, w2;
    w1.name = "forward";
    w1.backend = "XnnpackBackend";
    w1.args.push_back(arg(TP_PTE_INPUT, 6, {2, 8}, {0, 1}));
    w1.args.push_back(arg(TP_PTE_OUTPUT, 6, {2, 8}, {0, 1}));
    w1.blob = blob_of_xnn(g);
    w2.name = "second";
    w2.backend = "VulkanBackend";
    w2.args.push_back(arg(TP_PTE_INPUT, 5, {1, 3, 5, 7}, {0, 2, 3, 1}));
    w2.args.push_back(arg(TP_PTE_INPUT | TP_PTE_OUTPUT, 3, {}, {}));
    w2.args.push_back(arg(TP_PTE_OUTPUT, 0, {0}, {0}));
    w2.blob = blob2;
    w2.specs.push_back({"memory_layout_override", {2, 0, 0, 0}});
    w2.specs.push_back({"flag", {}});
    std::vector<unsigned char> wbytes(reinterpret_cast<unsigned char *>(g_storage + 64),
                                      reinterpret_cast<unsigned char *>(g_storage + 128));
    verify_program(write_prog(p), {w1, w2}, {{"", wbytes}});
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(st);
  }
  // a Vulkan graph
  {
    static float wt[4 * 8];
    int64_t sz[2] = {4, 8};
    tp_storage s = {wt, sizeof wt};
    tp_tensor w;
    tp_view(s, TP_F32, 2, sz, nullptr, 0, &w, NULL);
    tp_vk_graph *g = nullptr;
    tp_vk_graph_create(nullptr, &g);
    size_t xd[2] = {1, 8}, yd[2] = {1, 4};
    uint32_t x, wid, bias, y;
    tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, nullptr, &x);
    tpt_vk_tensor(g, TP_VK_FLOAT32, 2, nullptr, &w, &wid);
    tp_vk_add_null(g, &bias);
    tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, nullptr, &y);
    uint32_t args[4] = {x, wid, bias, y};
    tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
    tp_vk_set_io(g, &x, 1, &y, 1);
    tp_pte *p = nullptr;
    tp_pte_create(nullptr, &p);
    TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, NULL), TP_OK);
    WantMethod wm;
    wm.name = "forward";
    wm.backend = "VulkanBackend";
    wm.args.push_back(arg(TP_PTE_INPUT, 6, {1, 8}, {0, 1}));
    wm.args.push_back(arg(TP_PTE_OUTPUT, 6, {1, 4}, {0, 1}));
    tp_membuf mb;
    memset(&mb, 0, sizeof mb);
    tp_sink sk = tp_sink_membuf(&mb);
    TPT_STATUS(tp_vk_write(g, &sk), TP_OK);
    wm.blob.assign(mb.data, mb.data + mb.size);
    tp_membuf_free(&mb);
    verify_program(write_prog(p), {wm}, {});
    tp_pte_destroy(p);
    tp_vk_graph_destroy(g);
  }
  TPT_EQ_INT(g_verified, 3);
}

// ---- 3. an official-builder program through our reader ------------------------------------

static std::vector<unsigned char> official_program(const std::vector<unsigned char> &blob) {
  flatbuffers::FlatBufferBuilder fb;
  std::vector<flatbuffers::Offset<et::EValue>> values;
  for (int k = 0; k < 2; k++) {
    std::vector<int32_t> sizes = {2, 8};
    std::vector<uint8_t> order = {0, 1};
    auto alloc = et::CreateAllocationDetails(fb, 1, static_cast<uint32_t>(64 * k), 0);
    auto t = et::CreateTensor(fb, et::ScalarType_FLOAT, 0, fb.CreateVector(sizes),
                              fb.CreateVector(order), false, 0, alloc);
    values.push_back(et::CreateEValue(fb, et::KernelTypes_Tensor, t.Union()));
  }
  values.push_back(et::CreateEValue(fb, et::KernelTypes_Int, et::CreateInt(fb, 42).Union()));
  std::vector<int32_t> ins = {0}, outs = {1}, args = {0, 1};
  auto dc = et::CreateDelegateCall(fb, 0, fb.CreateVector(args));
  auto fr = et::CreateFreeCall(fb, 2);
  std::vector<flatbuffers::Offset<et::Instruction>> instrs = {
      et::CreateInstruction(fb, et::InstructionArguments_DelegateCall, dc.Union()),
      et::CreateInstruction(fb, et::InstructionArguments_FreeCall, fr.Union())};
  auto chain = et::CreateChain(fb, fb.CreateVector(ins), fb.CreateVector(outs),
                               fb.CreateVector(instrs));
  std::vector<flatbuffers::Offset<et::Chain>> chains = {chain};
  auto proc = et::CreateBackendDelegateDataReference(fb, et::DataLocation_SEGMENT, 1);
  std::vector<flatbuffers::Offset<et::CompileSpec>> specs = {
      et::CreateCompileSpec(fb, fb.CreateString("k"), fb.CreateVector(std::vector<uint8_t>{7}))};
  std::vector<flatbuffers::Offset<et::BackendDelegate>> dels = {
      et::CreateBackendDelegate(fb, fb.CreateString("XnnpackBackend"), proc, fb.CreateVector(specs))};
  std::vector<flatbuffers::Offset<et::Operator>> ops = {
      et::CreateOperator(fb, fb.CreateString("aten::add"), fb.CreateString("out"))};
  std::vector<int64_t> ncbs = {0, 128};
  auto plan = et::CreateExecutionPlan(fb, fb.CreateString("forward"), 0, fb.CreateVector(values),
                                      fb.CreateVector(ins), fb.CreateVector(outs),
                                      fb.CreateVector(chains), fb.CreateVector(ops),
                                      fb.CreateVector(dels), fb.CreateVector(ncbs));
  std::vector<flatbuffers::Offset<et::ExecutionPlan>> plans = {plan};
  uint64_t blob_off = 0;
  std::vector<flatbuffers::Offset<et::DataSegment>> segs = {
      et::CreateDataSegment(fb, 0, 0), et::CreateDataSegment(fb, blob_off, blob.size()),
      et::CreateDataSegment(fb, 1024, 16)};
  std::vector<uint64_t> coffs = {0};
  auto cseg = et::CreateSubsegmentOffsets(fb, 0, fb.CreateVector(coffs));
  std::vector<flatbuffers::Offset<et::NamedData>> named = {
      et::CreateNamedData(fb, fb.CreateString("weight"), 2)};
  auto prog = et::CreateProgram(fb, 0, fb.CreateVector(plans), 0, 0, fb.CreateVector(segs), cseg,
                                0, fb.CreateVector(named));
  et::FinishProgramBuffer(fb, prog);
  std::vector<unsigned char> data(fb.GetBufferPointer(), fb.GetBufferPointer() + fb.GetSize());
  // insert eh00 after the identifier as exir/_serialize/_program.py does
  uint64_t psize = data.size() + 32;
  uint64_t base = (psize + 127) / 128 * 128;
  uint64_t dsize = 1024 + 16;
  unsigned char eh[32];
  memcpy(eh, "eh00", 4);
  tp__put_le32(eh + 4, 32);
  tp__put_le64(eh + 8, psize);
  tp__put_le64(eh + 16, base);
  tp__put_le64(eh + 24, dsize);
  tp__put_le32(data.data(), tp__get_le32(data.data()) + 32);
  data.insert(data.begin() + 8, eh, eh + 32);
  data.resize(static_cast<size_t>(base), 0);
  data.insert(data.end(), blob.begin(), blob.end());
  data.resize(static_cast<size_t>(base + 1024), 0);
  for (int i = 0; i < 16; i++) data.push_back(static_cast<unsigned char>(0xA0 + i));
  return data;
}

static void test_official_program(void) {
  std::vector<unsigned char> blob(700);
  for (size_t i = 0; i < blob.size(); i++) blob[i] = static_cast<unsigned char>(i ^ 0x5a);
  std::vector<unsigned char> d = official_program(blob);
  flatbuffers::Verifier v(d.data(), d.size());
  TPT_CHECK(et::VerifyProgramBuffer(v));
  tp_pte_file f;
  TPT_STATUS(tp_pte_read(&f, d.data(), d.size()), TP_OK);
  TPT_EQ_STR(f.err.msg, "");
  TPT_EQ_INT(f.n_methods, 1);
  TPT_EQ_INT(f.n_segments, 3);
  TPT_EQ_INT(f.n_named, 1);
  tp_pte_method_info mi;
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_STR(mi.name, "forward");
  TPT_EQ_INT(mi.n_values, 3);
  TPT_EQ_INT(mi.n_operators, 1);
  tp_pte_value_info vi;
  TPT_STATUS(tp_pte_value_at(&f, 0, 2, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Int);
  TPT_EQ_INT(vi.i, 42);
  TPT_STATUS(tp_pte_value_at(&f, 0, 1, &vi), TP_OK);
  TPT_EQ_U64(vi.memory_offset, 64);
  size_t n = 0;
  TPT_STATUS(tp_pte_chain_size(&f, 0, 0, &n), TP_OK);
  TPT_EQ_INT(n, 2);
  tp_pte_instruction_info ii;
  TPT_STATUS(tp_pte_instruction_at(&f, 0, 0, 1, &ii), TP_OK);
  TPT_EQ_INT(ii.kind, TP_PTE_I_FreeCall);
  TPT_EQ_INT(ii.index, 2);
  tp_pte_delegate_info di;
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_U64(di.nbytes, 700);
  TPT_MEMEQ(di.data, blob.data(), 700);
  const char *key;
  uint32_t si;
  const void *data;
  uint64_t nb;
  TPT_STATUS(tp_pte_named_at(&f, 0, &key, &si, &data, &nb), TP_OK);
  TPT_EQ_STR(key, "weight");
  TPT_EQ_U64(nb, 16);
  TPT_EQ_INT(static_cast<const unsigned char *>(data)[15], 0xAF);
  // every truncation refused; every single-byte change read or refused with a sentence
  size_t ok = 0, bad = 0;
  for (size_t len = 0; len < d.size(); len++) {
    std::vector<unsigned char> c(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(len));
    TPT_STATUS(tp_pte_read(&f, c.data(), c.size()), TP_ERR_FORMAT);
  }
  size_t psize = static_cast<size_t>(tp__get_le64(d.data() + 16));
  for (size_t i = 0; i < psize; i++) {
    unsigned char keep = d[i];
    for (int x = 1; x < 256; x += 85) {
      d[i] = static_cast<unsigned char>(keep ^ x);
      tp_status s = tp_pte_read(&f, d.data(), d.size());
      if (s == TP_OK) ok++;
      else {
        bad++;
        TPT_STATUS(s, TP_ERR_FORMAT);
        TPT_CHECK(f.err.msg[0] != 0);
      }
    }
    d[i] = keep;
  }
  TPT_CHECK(ok > 0 && bad > 0);
}

int main(void) {
  TPT_RUN(test_field_ids);
  TPT_RUN(test_our_programs);
  TPT_RUN(test_official_program);
  return tpt_finish("verify_pte");
}
