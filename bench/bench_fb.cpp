// Encoder speed: an XNNGraph-shaped buffer with N fully-connected nodes (each with input,
// weight, bias and output tensor values and a constant_data entry), built with tensorpack's
// builder and with the official FlatBuffers C++ builder (flatc-generated Create* functions)
// from the same data, in the same run: interleaved rounds, medians and ranges of the ratio
// (ours / official; below 1 is faster), rows of bench_table.h; the bytes must be identical
// and pass the official verifier (the program fails otherwise). Built with g++ and, when
// present, clang++ (mk/fb.mk).
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"

#include "bench_table.h"
#include <flatbuffers/flatbuffers.h>
#include "xnnpack_generated.h"

#include <time.h>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct Net {
  size_t n;
  std::vector<uint32_t> k, m; // in / out features per node
};

// Value ids: node i uses 4i (input), 4i+1 (weight), 4i+2 (bias), 4i+3 (output).
void fill(Net &net, size_t n) {
  net.n = n;
  net.k.resize(n);
  net.m.resize(n);
  for (size_t i = 0; i < n; i++) {
    net.k[i] = (uint32_t)(16 + (i * 7) % 1000);
    net.m[i] = (uint32_t)(16 + (i * 13) % 1000);
  }
}

struct Ours {
  tp_fb_builder *b = nullptr;
  std::vector<tp_fb_ref> values, nodes, consts;
};

tp_fb_ref our_tensor(tp_fb_builder *b, int16_t dt, const uint32_t *dims, uint32_t nd,
                     uint32_t cidx, uint32_t ext, uint32_t flags, uint32_t id) {
  tp_fb_ref d = tp_fb_create_vector(b, dims, nd, 4);
  tp_fb_start_table(b); // fields largest first, then by descending id, as flatc's code does
  tp_fb_add_u32(b, 6, id, 0);
  tp_fb_add_u32(b, 5, flags, 0);
  tp_fb_add_u32(b, 4, ext, 0);
  tp_fb_add_u32(b, 3, cidx, 0);
  tp_fb_add_ref(b, 2, d);
  tp_fb_add_u32(b, 1, nd, 0);
  tp_fb_add_i16(b, 0, dt, 0);
  tp_fb_ref tv = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 1, tv); // XValue { XNNTensorValue }
  return tp_fb_end_table(b);
}

size_t build_ours(Ours &o, const Net &net, const unsigned char **out) {
  tp_fb_builder *b = o.b;
  tp_fb_builder_reset(b);
  o.values.clear();
  o.nodes.clear();
  o.consts.clear();
  // constant_data[0] is the reserved empty entry
  tp_fb_start_table(b);
  o.consts.push_back(tp_fb_end_table(b));
  uint64_t off = 0;
  for (size_t i = 0; i < net.n; i++) {
    uint32_t k = net.k[i], m = net.m[i], id = (uint32_t)(4 * i);
    uint32_t din[2] = {1, k}, dw[2] = {m, k}, db[1] = {m}, dout[2] = {1, m};
    o.values.push_back(our_tensor(b, 1, din, 2, 0, i == 0 ? 0u : 0xFFFFFFFFu, i == 0 ? 1u : 0u, id));
    o.values.push_back(our_tensor(b, 1, dw, 2, (uint32_t)(i + 1), 0xFFFFFFFFu, 0, id + 1));
    o.values.push_back(our_tensor(b, 1, db, 1, 0, 0xFFFFFFFFu, 0, id + 2));
    o.values.push_back(our_tensor(b, 1, dout, 2, 0, i + 1 == net.n ? 1u : 0xFFFFFFFFu,
                                  i + 1 == net.n ? 2u : 0u, id + 3));
    tp_fb_start_table(b);
    tp_fb_add_u32(b, 4, 0, 0);
    tp_fb_add_u32(b, 3, id + 3, 0);
    tp_fb_add_u32(b, 2, id + 2, 0);
    tp_fb_add_u32(b, 1, id + 1, 0);
    tp_fb_add_u32(b, 0, id, 0);
    tp_fb_ref fc = tp_fb_end_table(b);
    tp_fb_start_table(b);
    tp_fb_add_u32(b, 2, (uint32_t)i, 0);
    tp_fb_add_union(b, 1, 2, fc); // XNode { XNNFullyConnected }
    o.nodes.push_back(tp_fb_end_table(b));
    uint64_t size = (uint64_t)k * m * 4;
    tp_fb_start_table(b);
    tp_fb_add_u64(b, 1, size, 0);
    tp_fb_add_u64(b, 0, off, 0);
    o.consts.push_back(tp_fb_end_table(b));
    off += (size + 15) & ~(uint64_t)15;
  }
  tp_fb_ref xn = tp_fb_create_vector_refs(b, o.nodes.data(), o.nodes.size());
  tp_fb_ref xv = tp_fb_create_vector_refs(b, o.values.data(), o.values.size());
  uint32_t in_ids[1] = {0}, out_ids[1] = {(uint32_t)(4 * net.n - 1)};
  tp_fb_ref ii = tp_fb_create_vector(b, in_ids, 1, 4);
  tp_fb_ref oi = tp_fb_create_vector(b, out_ids, 1, 4);
  tp_fb_ref cd = tp_fb_create_vector_refs(b, o.consts.data(), o.consts.size());
  tp_fb_ref ver = tp_fb_create_string(b, "1", 1);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 8, cd);
  tp_fb_add_ref(b, 5, oi);
  tp_fb_add_ref(b, 4, ii);
  tp_fb_add_u32(b, 3, 2, 0);
  tp_fb_add_ref(b, 2, xv);
  tp_fb_add_ref(b, 1, xn);
  tp_fb_add_ref(b, 0, ver);
  tp_fb_ref g = tp_fb_end_table(b);
  if (tp_fb_finish(b, g, "XN01") != TP_OK) {
    fprintf(stderr, "tensorpack builder failed: %s\n", tp_fb_error(b));
    return 0;
  }
  size_t n = 0;
  *out = tp_fb_data(b, &n);
  return n;
}

struct Theirs {
  flatbuffers::FlatBufferBuilder fbb{1024};
  std::vector<flatbuffers::Offset<fb_xnnpack::XValue>> values;
  std::vector<flatbuffers::Offset<fb_xnnpack::XNode>> nodes;
  std::vector<flatbuffers::Offset<fb_xnnpack::ConstantDataOffset>> consts;
};

flatbuffers::Offset<fb_xnnpack::XValue> their_tensor(flatbuffers::FlatBufferBuilder &f,
                                                     const uint32_t *dims, uint32_t nd,
                                                     uint32_t cidx, uint32_t ext,
                                                     uint32_t flags, uint32_t id) {
  auto d = f.CreateVector(dims, nd);
  auto tv = fb_xnnpack::CreateXNNTensorValue(f, fb_xnnpack::XNNDatatype_xnn_datatype_fp32, nd, d,
                                             cidx, ext, flags, id);
  return fb_xnnpack::CreateXValue(f, fb_xnnpack::XValueUnion_XNNTensorValue, tv.Union());
}

size_t build_theirs(Theirs &t, const Net &net, const unsigned char **out) {
  flatbuffers::FlatBufferBuilder &f = t.fbb;
  f.Clear();
  t.values.clear();
  t.nodes.clear();
  t.consts.clear();
  t.consts.push_back(fb_xnnpack::CreateConstantDataOffset(f, 0, 0));
  uint64_t off = 0;
  for (size_t i = 0; i < net.n; i++) {
    uint32_t k = net.k[i], m = net.m[i], id = (uint32_t)(4 * i);
    uint32_t din[2] = {1, k}, dw[2] = {m, k}, db[1] = {m}, dout[2] = {1, m};
    t.values.push_back(their_tensor(f, din, 2, 0, i == 0 ? 0u : 0xFFFFFFFFu, i == 0 ? 1u : 0u, id));
    t.values.push_back(their_tensor(f, dw, 2, (uint32_t)(i + 1), 0xFFFFFFFFu, 0, id + 1));
    t.values.push_back(their_tensor(f, db, 1, 0, 0xFFFFFFFFu, 0, id + 2));
    t.values.push_back(their_tensor(f, dout, 2, 0, i + 1 == net.n ? 1u : 0xFFFFFFFFu,
                                    i + 1 == net.n ? 2u : 0u, id + 3));
    auto fc = fb_xnnpack::CreateXNNFullyConnected(f, id, id + 1, id + 2, id + 3, 0);
    t.nodes.push_back(fb_xnnpack::CreateXNode(f, fb_xnnpack::XNodeUnion_XNNFullyConnected,
                                              fc.Union(), (uint32_t)i, 0));
    uint64_t size = (uint64_t)k * m * 4;
    t.consts.push_back(fb_xnnpack::CreateConstantDataOffset(f, off, size));
    off += (size + 15) & ~(uint64_t)15;
  }
  auto xn = f.CreateVector(t.nodes);
  auto xv = f.CreateVector(t.values);
  uint32_t in_ids[1] = {0}, out_ids[1] = {(uint32_t)(4 * net.n - 1)};
  auto ii = f.CreateVector(in_ids, 1);
  auto oi = f.CreateVector(out_ids, 1);
  auto cd = f.CreateVector(t.consts);
  auto ver = f.CreateString("1", 1);
  auto g = fb_xnnpack::CreateXNNGraph(f, ver, xn, xv, 2, ii, oi, cd);
  fb_xnnpack::FinishXNNGraphBuffer(f, g);
  *out = f.GetBufferPointer();
  return f.GetSize();
}

// Thread CPU time: a shared machine's other processes do not count.
double now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

} // namespace

int main() {
  static const size_t sizes[3] = {10, 1000, 100000};
  const int rounds = 15;
  Ours ours;
  Theirs theirs;
  if (tp_fb_builder_create(&ours.b) != TP_OK) return 1;
#ifdef __clang__
  const char *cc = "clang++";
#else
  const char *cc = "g++";
#endif
  int bad = 0;
  for (size_t s = 0; s < 3; s++) {
    Net net;
    fill(net, sizes[s]);
    int reps = sizes[s] >= 100000 ? 1 : (sizes[s] >= 1000 ? 20 : 1000); // builds per round
    double t_ours[BT_MAX_ROUNDS], t_theirs[BT_MAX_ROUNDS], first_ours = 0, first_theirs = 0;
    const unsigned char *po = nullptr, *pt = nullptr;
    size_t no = 0, nt = 0;
    for (int r = -1; r < rounds; r++) { // interleaved, so both see the same machine state
      double a = 0, b = 0;
      for (int half = 0; half < 2; half++) { // which builder goes first alternates by round
        double t0 = now_ms();
        if ((half == 0) == (r % 2 == 0)) {
          for (int k = 0; k < reps; k++) no = build_ours(ours, net, &po);
          a = now_ms() - t0;
        } else {
          for (int k = 0; k < reps; k++) nt = build_theirs(theirs, net, &pt);
          b = now_ms() - t0;
        }
      }
      double t0 = 0, t1 = a, t2 = a + b;
      if (r < 0) {
        first_ours = (t1 - t0) / reps;
        first_theirs = (t2 - t1) / reps;
        continue;
      }
      t_ours[r] = (t1 - t0) / reps * 1e-3;
      t_theirs[r] = (t2 - t1) / reps * 1e-3;
    }
    bool same = no && no == nt && memcmp(po, pt, no) == 0;
    flatbuffers::Verifier v(po, no, 64, 100000000); // 100000 nodes are 1.1 M tables
    bool ok = no && fb_xnnpack::VerifyXNNGraphBuffer(v);
    if (!ok || !same) bad = 1;
    char name[160];
    snprintf(name, sizeof name, "FlatBuffers encoder, XNNGraph N = %zu (%zu bytes, %s, %s)",
             sizes[s], no, cc, same && ok ? "bytes identical, verified" : "BYTES DIFFER");
    bt_row(name, "official", t_ours, t_theirs, nullptr, rounds, 1.0);
    if (sizes[s] == 100000) {
      char what[160];
      snprintf(what, sizeof what, "%.3f ms vs official %.3f ms: %.2fx (first build, cold memory)",
               first_ours, first_theirs, first_ours / first_theirs);
      bt_note("same, first build", what);
    }
  }
  tp_fb_builder_destroy(ours.b);
  return bad;
}
