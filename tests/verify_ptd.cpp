// .ptd files against the official FlatBuffers code generated from tests/schemas/flat_tensor.fbs:
//  1. every .ptd tp_store writes passes flat_tensor_flatbuffer::VerifyFlatTensorBuffer on bytes
//     [0, flatbuffer_offset + flatbuffer_size) of the file (what ExecuTorch's loader maps: the
//     root offset already counts the inserted FH01 header), and its decoded keys, segment
//     offsets/sizes and layouts equal what was added, segment bytes equal the views' bytes;
//  2. files built with the official C++ builder, the header inserted the way upstream's C++
//     (save_ptd) and Python (FlatTensorSerializer) writers do, are read by tp_ptd_open; every
//     truncation and single-byte corruption of them is read or refused with TP_ERR_FORMAT;
//  3. the one description of FT01 (TP_FT01_FIELDS in tensorpack.h) against flatc's code for
//     our schema copy: every described field has the schema's name at its id, its type and its
//     default, and every field of every table is described.
#include "tensorpack.h"
#include "tp_test.h"

#include "flat_tensor_generated.h"

#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

namespace ft = flat_tensor_flatbuffer;

// ---- helpers ------------------------------------------------------------------------------

// Reference compaction, element by element, dims visited in `order` (outermost first).
static std::vector<unsigned char> ref_bytes(const tp_tensor &t, const uint8_t *order) {
  size_t es = tp_dtype_size(t.dtype);
  std::vector<unsigned char> out;
  int64_t idx[TP_MAX_DIMS];
  for (int d = 0; d < t.ndim; d++) {
    if (t.sizes[d] == 0) return out;
    idx[d] = 0;
  }
  const unsigned char *base = static_cast<const unsigned char *>(t.storage.data);
  for (;;) {
    int64_t off = t.offset;
    for (int d = 0; d < t.ndim; d++) off += idx[d] * t.strides[d];
    out.insert(out.end(), base + static_cast<size_t>(off) * es,
               base + static_cast<size_t>(off + 1) * es);
    int k;
    for (k = t.ndim - 1; k >= 0; k--) {
      int dd = order[k];
      if (++idx[dd] < t.sizes[dd]) break;
      idx[dd] = 0;
    }
    if (k < 0) break;
  }
  return out;
}

struct Added {
  std::string key;                 // empty: use the key tp_store_add returned
  bool tensor;
  tp_tensor view;
  tp_order order;
  std::vector<unsigned char> raw;  // !tensor
  size_t align;
};

struct Want {
  std::string key;
  std::vector<unsigned char> bytes;
  bool layout;
  int dtype;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  size_t align;
};

static int g_files_verified = 0;

// Writes the entries through tp_store, verifies and decodes the file with the official code.
static void write_and_verify(const std::vector<Added> &adds, const char *what) {
  tp_store *s = nullptr;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  std::vector<Want> wants;
  for (const Added &a : adds) {
    const char *key = nullptr;
    Want w;
    if (a.tensor) {
      TPT_STATUS(tp_store_add(s, a.key.empty() ? nullptr : a.key.c_str(), &a.view, a.order,
                              a.align, &key), TP_OK);
      uint8_t order[TP_MAX_DIMS];
      for (int d = 0; d < a.view.ndim; d++) order[d] = static_cast<uint8_t>(d);
      if (a.order == TP_ORDER_PRESERVE && a.view.ndim > 0)
        TPT_STATUS(tp_dim_order(&a.view, order), TP_OK);
      w.bytes = ref_bytes(a.view, order);
      w.layout = true;
      w.dtype = a.view.dtype;
      for (int d = 0; d < a.view.ndim; d++) {
        w.sizes.push_back(static_cast<int32_t>(a.view.sizes[d]));
        w.dim_order.push_back(order[d]);
      }
    } else {
      TPT_STATUS(tp_store_add_bytes(s, a.key.empty() ? nullptr : a.key.c_str(),
                                    a.raw.data(), a.raw.size(), a.align, 1, &key), TP_OK);
      w.bytes = a.raw;
      w.layout = false;
      w.dtype = 0;
    }
    if (!key) break;
    w.key = key;
    w.align = a.align ? a.align : 16;
    bool seen = false;
    for (Want &o : wants)
      if (o.key == w.key) {
        seen = true;   // stored once: the first layout stays, the larger alignment wins
        if (w.align > o.align) o.align = w.align;
      }
    if (!seen) wants.push_back(w);
  }
  TPT_EQ_U64(tp_store_count(s), wants.size());

  tp_membuf m = {nullptr, 0, 0};
  tp_sink sink = tp_sink_membuf(&m);
  uint64_t size = 0;
  TPT_STATUS(tp_store_ptd_size(s, &size), TP_OK);
  TPT_STATUS(tp_store_write_ptd(s, &sink), TP_OK);
  TPT_EQ_U64(m.size, size);
  tp_store_destroy(s);
  if (m.size < 64) {
    TPT_CHECK(!"file too short");
    tp_membuf_free(&m);
    return;
  }

  // Header, as the upstream loader parses it.
  TPT_MEMEQ(m.data + 8, "FH01", 4);
  TPT_EQ_U64(tp__get_le32(m.data + 12), 40);
  uint64_t fb_off = tp__get_le64(m.data + 16), fb_size = tp__get_le64(m.data + 24);
  uint64_t base = tp__get_le64(m.data + 32), data_size = tp__get_le64(m.data + 40);
  TPT_EQ_U64(fb_off, 48);
  TPT_EQ_U64(base % 128, 0);
  TPT_CHECK(base >= fb_off + fb_size);
  TPT_EQ_U64(base + data_size, m.size);

  // The official verifier on the region the loader maps.
  TPT_CHECK(ft::FlatTensorBufferHasIdentifier(m.data));
  flatbuffers::Verifier v(m.data, static_cast<size_t>(fb_off + fb_size));
  bool ok = ft::VerifyFlatTensorBuffer(v);
  TPT_CHECK(ok);
  if (!ok) {
    printf("  %s: the official verifier refused the file\n", what);
    tp_membuf_free(&m);
    return;
  }
  g_files_verified++;

  const ft::FlatTensor *root = ft::GetFlatTensor(m.data);
  TPT_EQ_INT(root->version(), 0);
  TPT_CHECK(root->segments() != nullptr && root->named_data() != nullptr);
  if (!root->segments() || !root->named_data()) {
    tp_membuf_free(&m);
    return;
  }
  TPT_EQ_U64(root->named_data()->size(), wants.size());
  // segments sorted, not overlapping, the last one ending at segment_data_size
  uint64_t prev_end = 0;
  for (flatbuffers::uoffset_t i = 0; i < root->segments()->size(); i++) {
    const ft::DataSegment *g = root->segments()->Get(i);
    TPT_CHECK(g->offset() >= prev_end);
    prev_end = g->offset() + g->size();
  }
  TPT_EQ_U64(prev_end, data_size);

  for (size_t i = 0; i < wants.size() && i < root->named_data()->size(); i++) {
    const Want &w = wants[i];
    const ft::NamedData *nd = root->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i));
    TPT_CHECK(nd->key() != nullptr);
    if (!nd->key()) continue;
    // (through a std::string: gcc 12 misreads the flatbuffers pointer arithmetic in strcmp)
    std::string got_key(nd->key()->data(), nd->key()->size());
    TPT_EQ_STR(got_key.c_str(), w.key.c_str());   // in the order keys were added
    TPT_CHECK(nd->segment_index() < root->segments()->size());
    if (nd->segment_index() >= root->segments()->size()) continue;
    const ft::DataSegment *g = root->segments()->Get(nd->segment_index());
    TPT_EQ_U64(g->size(), w.bytes.size());
    TPT_EQ_U64((base + g->offset()) % w.align, 0);
    if (g->size() == w.bytes.size() && base + g->offset() + g->size() <= m.size)
      TPT_MEMEQ(m.data + base + g->offset(), w.bytes.data(), w.bytes.size());
    const ft::TensorLayout *l = nd->tensor_layout();
    TPT_EQ_INT(l != nullptr, w.layout);
    if (!l || !w.layout) continue;
    TPT_EQ_INT(static_cast<int>(l->scalar_type()), w.dtype);
    TPT_CHECK(l->sizes() != nullptr && l->dim_order() != nullptr);
    if (!l->sizes() || !l->dim_order()) continue;
    TPT_EQ_U64(l->sizes()->size(), w.sizes.size());
    TPT_EQ_U64(l->dim_order()->size(), w.dim_order.size());
    for (size_t d = 0; d < w.sizes.size() && d < l->sizes()->size(); d++) {
      TPT_EQ_INT(l->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d)), w.sizes[d]);
      TPT_EQ_INT(l->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d)), w.dim_order[d]);
    }
  }
  // entries that share bytes share the segment
  for (size_t i = 0; i < wants.size(); i++)
    for (size_t j = i + 1; j < wants.size(); j++)
      if (wants[i].bytes == wants[j].bytes && j < root->named_data()->size())
        TPT_EQ_INT(
            root->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i))->segment_index(),
            root->named_data()->Get(static_cast<flatbuffers::uoffset_t>(j))->segment_index());
  tp_membuf_free(&m);
}

static float g_x[2 * 3 * 5 * 6];
static float g_m[3 * 8 * 8];

static tp_tensor view_of(float *data, size_t n, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset) {
  tp_storage st = {data, n * sizeof(float)};
  tp_tensor t;
  TPT_STATUS(tp_view(st, TP_F32, ndim, sizes, strides, offset, &t, NULL), TP_OK);
  return t;
}

static tp_tensor cl_slice() {
  const int64_t sizes[4] = {2, 3, 5, 6}, strides[4] = {90, 1, 18, 3};
  tp_tensor x = view_of(g_x, 180, 4, sizes, strides, 0), y;
  TPT_STATUS(tp_slice(&x, 2, 1, -1, 1, &y, NULL), TP_OK);
  TPT_STATUS(tp_slice(&y, 3, 1, -1, 1, &y, NULL), TP_OK);
  return y;
}

static Added tensor(const char *key, const tp_tensor &t, tp_order o, size_t align = 0) {
  Added a;
  a.key = key ? key : "";
  a.tensor = true;
  a.view = t;
  a.order = o;
  a.align = align;
  return a;
}

static Added bytes(const char *key, const void *p, size_t n, size_t align = 0) {
  Added a;
  a.key = key ? key : "";
  a.tensor = false;
  memset(&a.view, 0, sizeof a.view);
  a.order = TP_ORDER_ROW_MAJOR;
  a.raw.assign(static_cast<const unsigned char *>(p), static_cast<const unsigned char *>(p) + n);
  a.align = align;
  return a;
}

// ---- 1. our files through the official verifier and decoder -------------------------------

static void test_channels_last_both_orders() {
  tp_tensor y = cl_slice();
  write_and_verify({tensor(nullptr, y, TP_ORDER_PRESERVE)}, "cl preserve");
  write_and_verify({tensor(nullptr, y, TP_ORDER_ROW_MAJOR)}, "cl row-major");
  write_and_verify({tensor("a", y, TP_ORDER_PRESERVE), tensor("b", y, TP_ORDER_ROW_MAJOR, 64)},
                   "cl both");
}

static void test_transposed_and_offset() {
  const int64_t s2[2] = {3, 5}, s3[3] = {3, 8, 8};
  tp_tensor a = view_of(g_m, 192, 2, s2, nullptr, 0), t, x, x1;
  TPT_STATUS(tp_transpose(&a, 0, 1, &t, NULL), TP_OK);
  x = view_of(g_m, 192, 3, s3, nullptr, 0);
  TPT_STATUS(tp_select(&x, 0, 1, &x1, NULL), TP_OK);
  write_and_verify({tensor("t.rm", t, TP_ORDER_ROW_MAJOR), tensor("t.keep", t, TP_ORDER_PRESERVE),
                    tensor("x1", x1, TP_ORDER_ROW_MAJOR, 32)},
                   "transpose + offset");
}

static void test_empty_scalar_raw_dedup() {
  const int64_t s0[2] = {0, 4}, s2[2] = {2, 8};
  static float copy[16];
  memcpy(copy, &g_m[8], sizeof copy);
  tp_tensor z = view_of(g_m, 192, 2, s0, nullptr, 0);
  tp_tensor sc = view_of(g_m + 7, 1, 0, nullptr, nullptr, 0);
  tp_tensor a = view_of(g_m, 192, 2, s2, nullptr, 8), b = view_of(copy, 16, 2, s2, nullptr, 0);
  write_and_verify({tensor(nullptr, z, TP_ORDER_ROW_MAJOR), tensor("scalar", sc, TP_ORDER_PRESERVE),
                    bytes("raw", "abc", 3, 1), tensor(nullptr, a, TP_ORDER_ROW_MAJOR),
                    tensor(nullptr, b, TP_ORDER_ROW_MAJOR),
                    tensor("alias", b, TP_ORDER_PRESERVE, 256),
                    bytes(nullptr, &g_m[8], 64)},
                   "empty + scalar + raw + dedup");
  write_and_verify({}, "empty store");
}

static void test_many_random() {
  // random views of g_m: slices, transposes, flips; random orders, keys and alignments
  for (int round = 0; round < 40; round++) {
    std::vector<Added> adds;
    int n = static_cast<int>(tpt_range(1, 12));
    for (int i = 0; i < n; i++) {
      const int64_t s3[3] = {3, 8, 8};
      tp_tensor x = view_of(g_m, 192, 3, s3, nullptr, 0), y;
      int d0 = static_cast<int>(tpt_range(0, 2)), d1 = static_cast<int>(tpt_range(0, 2));
      TPT_STATUS(tp_transpose(&x, d0, d1, &y, NULL), TP_OK);
      int64_t start = tpt_range(0, 2);
      TPT_STATUS(tp_slice(&y, 2, start, tpt_range(start, 8), tpt_range(1, 3), &y, NULL), TP_OK);
      if (tpt_range(0, 1)) TPT_STATUS(tp_flip(&y, 1, &y, NULL), TP_OK);
      char key[32];
      snprintf(key, sizeof key, "k%d", static_cast<int>(tpt_range(0, 5)));
      size_t align = static_cast<size_t>(1) << tpt_range(0, 8);
      bool named = tpt_range(0, 3) == 0;
      tp_order o = tpt_range(0, 1) ? TP_ORDER_PRESERVE : TP_ORDER_ROW_MAJOR;
      if (named) {
        // a given key may only come back with the same bytes: make it unique per entry
        snprintf(key, sizeof key, "r%d.%d", round, i);
        adds.push_back(tensor(key, y, o, align));
      } else {
        adds.push_back(tensor(nullptr, y, o, align));
      }
    }
    write_and_verify(adds, "random");
  }
}

// ---- 2. official-builder files through our reader -----------------------------------------

struct OffEntry {
  std::string key;
  int seg;                 // index into the segment list
  bool layout;
  int8_t stype;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
};

// style 0: upstream C++ save_ptd with tensor_alignment `align` (header padded to align, the
// flatbuffer padded to align, segments packed with align padding); style 1: the Python
// serializer (header padded to 16, base aligned to 128, segments at lcm(128, align)).
static std::vector<unsigned char> official_ptd(const std::vector<std::vector<unsigned char>> &segs,
                                               const std::vector<OffEntry> &entries, int style,
                                               size_t align) {
  std::vector<uint64_t> offs;
  uint64_t total = 0;
  for (size_t i = 0; i < segs.size(); i++) {
    size_t a = style == 0 ? align : (align > 128 ? align : 128);
    total = (total + a - 1) / a * a;
    offs.push_back(total);
    total += segs[i].size();
  }
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<ft::NamedData>> nds;
  std::vector<flatbuffers::Offset<ft::DataSegment>> sgs;
  for (const OffEntry &e : entries) {
    auto key = b.CreateString(e.key);
    flatbuffers::Offset<ft::TensorLayout> lay = 0;
    if (e.layout)
      lay = ft::CreateTensorLayout(b, static_cast<executorch_flatbuffer::ScalarType>(e.stype),
                                   b.CreateVector(e.sizes), b.CreateVector(e.order));
    nds.push_back(ft::CreateNamedData(b, key, static_cast<uint32_t>(e.seg), lay));
  }
  for (size_t i = 0; i < segs.size(); i++)
    sgs.push_back(ft::CreateDataSegment(b, offs[i], segs[i].size()));
  auto root = ft::CreateFlatTensor(b, 0, b.CreateVector(sgs), b.CreateVector(nds));
  ft::FinishFlatTensorBuffer(b, root);
  const unsigned char *fb = b.GetBufferPointer();
  uint64_t fbn = b.GetSize();

  uint64_t hdr = style == 0 ? (40 + align - 1) / align * align : 48;
  uint64_t base = style == 0 ? hdr + (fbn + align - 1) / align * align
                             : (hdr + fbn + 127) / 128 * 128;
  std::vector<unsigned char> out(static_cast<size_t>(base + total), 0);
  tp__put_le32(out.data(), tp__get_le32(fb) + static_cast<uint32_t>(hdr));
  memcpy(out.data() + 4, fb + 4, 4);
  memcpy(out.data() + 8, "FH01", 4);
  tp__put_le32(out.data() + 12, 40);
  tp__put_le64(out.data() + 16, hdr);
  tp__put_le64(out.data() + 24, fbn);
  tp__put_le64(out.data() + 32, base);
  tp__put_le64(out.data() + 40, total);
  memcpy(out.data() + hdr + 8, fb + 8, static_cast<size_t>(fbn - 8));
  for (size_t i = 0; i < segs.size(); i++)
    if (!segs[i].empty()) memcpy(out.data() + base + offs[i], segs[i].data(), segs[i].size());
  // the file's flatbuffer region is itself a valid buffer for the official verifier
  flatbuffers::Verifier v(out.data(), static_cast<size_t>(hdr + fbn));
  TPT_CHECK(ft::VerifyFlatTensorBuffer(v));
  return out;
}

// The Python serializer's path: the FlatTensor as JSON, compiled by `flatc -b` (flatc's JSON
// parser lays fields out its own way), the FH01 header inserted after byte 8, segments at
// multiples of 128. Needs flatc on PATH and the working directory at the repository root (as
// `make test` runs it). Returns an empty vector on failure.
static std::vector<unsigned char> flatc_ptd(const std::vector<std::vector<unsigned char>> &segs,
                                            const std::vector<OffEntry> &entries) {
  static const char *names[16] = {"BYTE", "CHAR", "SHORT", "INT", "LONG", "HALF", "FLOAT",
                                  "DOUBLE", "", "", "", "BOOL", "", "", "", "BFLOAT16"};
  std::vector<unsigned char> out;
  std::vector<uint64_t> offs;
  uint64_t total = 0;
  for (const auto &g : segs) {
    total = (total + 127) / 128 * 128;
    offs.push_back(total);
    total += g.size();
  }
  std::string json = "{\"version\": 0, \"segments\": [";
  for (size_t i = 0; i < segs.size(); i++)
    json += (i ? ", " : "") + std::string("{\"offset\": ") + std::to_string(offs[i]) +
            ", \"size\": " + std::to_string(segs[i].size()) + "}";
  json += "], \"named_data\": [";
  for (size_t i = 0; i < entries.size(); i++) {
    const OffEntry &e = entries[i];
    json += (i ? ", " : "") + std::string("{\"key\": \"") + e.key + "\", \"segment_index\": " +
            std::to_string(e.seg);
    if (e.layout) {
      json += ", \"tensor_layout\": {\"scalar_type\": \"" + std::string(names[e.stype]) +
              "\", \"sizes\": [";
      for (size_t d = 0; d < e.sizes.size(); d++)
        json += (d ? ", " : "") + std::to_string(e.sizes[d]);
      json += "], \"dim_order\": [";
      for (size_t d = 0; d < e.order.size(); d++)
        json += (d ? ", " : "") + std::to_string(e.order[d]);
      json += "]}";
    }
    json += "}";
  }
  json += "]}\n";

  char dir[] = "/tmp/tp_verify_ptd_XXXXXX";
  if (!mkdtemp(dir)) return out;
  // flatc names its output after the schema's file_extension: ft.ptd
  std::string jpath = std::string(dir) + "/ft.json", bpath = std::string(dir) + "/ft.ptd";
  FILE *f = fopen(jpath.c_str(), "wb");
  if (!f) return out;
  fputs(json.c_str(), f);
  fclose(f);
  std::string cmd = "flatc -b -I tests/schemas -o " + std::string(dir) +
                    " tests/schemas/flat_tensor.fbs " + jpath + " >/dev/null 2>&1";
  int rc = system(cmd.c_str());
  std::vector<unsigned char> fb;
  f = rc == 0 ? fopen(bpath.c_str(), "rb") : nullptr;
  if (f) {
    int c;
    while ((c = fgetc(f)) != EOF) fb.push_back(static_cast<unsigned char>(c));
    fclose(f);
  }
  remove(jpath.c_str());
  remove(bpath.c_str());
  rmdir(dir);
  if (fb.size() < 12) return out;

  uint64_t base = (48 + fb.size() + 127) / 128 * 128;
  out.assign(static_cast<size_t>(base + total), 0);
  tp__put_le32(out.data(), tp__get_le32(fb.data()) + 48);
  memcpy(out.data() + 4, fb.data() + 4, 4);
  memcpy(out.data() + 8, "FH01", 4);
  tp__put_le32(out.data() + 12, 40);
  tp__put_le64(out.data() + 16, 48);
  tp__put_le64(out.data() + 24, fb.size());
  tp__put_le64(out.data() + 32, base);
  tp__put_le64(out.data() + 40, total);
  memcpy(out.data() + 56, fb.data() + 8, fb.size() - 8);
  for (size_t i = 0; i < segs.size(); i++)
    if (!segs[i].empty()) memcpy(out.data() + base + offs[i], segs[i].data(), segs[i].size());
  return out;
}

static tp_status open_heap_copy(const unsigned char *p, size_t n) {
  unsigned char *c = static_cast<unsigned char *>(malloc(n ? n : 1));
  if (n) memcpy(c, p, n);
  tp_ptd r;
  tp_status st = tp_ptd_open(&r, c, n);
  if (st == TP_OK) {
    for (size_t i = 0; i < r.count; i++) {
      tp_ptd_entry e;
      TPT_STATUS(tp_ptd_entry_at(&r, i, &e), TP_OK);
      TPT_CHECK(static_cast<const unsigned char *>(e.data) + e.nbytes <= c + n);
    }
  }
  free(c);
  return st;
}

static void test_official_files() {
  std::vector<std::vector<unsigned char>> segs;
  segs.push_back(std::vector<unsigned char>(24));
  for (int i = 0; i < 24; i++) segs[0][static_cast<size_t>(i)] = static_cast<unsigned char>(i * 3);
  segs.push_back(std::vector<unsigned char>{'h', 'e', 'l', 'l', 'o'});
  segs.push_back(std::vector<unsigned char>());
  segs.push_back(std::vector<unsigned char>(16, 0xAB));
  std::vector<OffEntry> entries = {
      {"weight", 0, true, TP_F32, {2, 3}, {0, 1}},
      {"weight.alias", 0, true, TP_I32, {3, 2}, {1, 0}},
      {"blob", 1, false, 0, {}, {}},
      {"empty", 2, true, TP_F16, {0, 7}, {0, 1}},
      {"u8", 3, true, TP_U8, {2, 2, 4}, {0, 2, 1}},
  };
  const int styles[] = {0, 0, 0, 1, 1, 2};
  const size_t aligns[] = {16, 64, 1, 16, 4096, 128};
  for (int k = 0; k < 6; k++) {
    std::vector<unsigned char> f = styles[k] == 2
                                       ? flatc_ptd(segs, entries)
                                       : official_ptd(segs, entries, styles[k], aligns[k]);
    if (styles[k] == 2) {
      TPT_CHECK(!f.empty());   // flatc -b ran
      if (f.empty()) continue;
      flatbuffers::Verifier v(f.data(), static_cast<size_t>(48 + tp__get_le64(f.data() + 24)));
      TPT_CHECK(ft::VerifyFlatTensorBuffer(v));
    }
    tp_ptd p;
    TPT_STATUS(tp_ptd_open(&p, f.data(), f.size()), TP_OK);
    if (p.err.status != TP_OK) {
      printf("  style %d align %lu: %s\n", styles[k], static_cast<unsigned long>(aligns[k]),
             p.err.msg);
      continue;
    }
    TPT_EQ_U64(p.count, entries.size());
    for (const OffEntry &e : entries) {
      tp_ptd_entry got;
      TPT_STATUS(tp_ptd_find(&p, e.key.c_str(), &got), TP_OK);
      TPT_EQ_U64(got.nbytes, segs[static_cast<size_t>(e.seg)].size());
      if (got.nbytes) TPT_MEMEQ(got.data, segs[static_cast<size_t>(e.seg)].data(), got.nbytes);
      TPT_EQ_INT(got.segment_index, e.seg);
      TPT_EQ_INT(got.has_layout, e.layout);
      if (!e.layout) continue;
      TPT_EQ_INT(got.dtype, e.stype);
      TPT_EQ_INT(got.ndim, static_cast<int>(e.sizes.size()));
      for (size_t d = 0; d < e.sizes.size(); d++) {
        TPT_EQ_INT(got.sizes[d], e.sizes[d]);
        TPT_EQ_INT(got.dim_order[d], e.order[d]);
      }
    }
    if (k == 0 || k == 3 || k == 5) {
      size_t bad = 0, other = 0;
      for (size_t n = 0; n < f.size(); n++)
        if (open_heap_copy(f.data(), n) != TP_ERR_FORMAT) bad++;
      TPT_EQ_U64(bad, 0);
      for (size_t i = 0; i < f.size(); i++)
        for (int flip : {0x01, 0x40, 0xFF}) {
          f[i] = static_cast<unsigned char>(f[i] ^ flip);
          tp_status st = open_heap_copy(f.data(), f.size());
          if (st != TP_OK && st != TP_ERR_FORMAT) other++;
          f[i] = static_cast<unsigned char>(f[i] ^ flip);
        }
      TPT_EQ_U64(other, 0);
    }
  }
}

// ---- 3. the FT01 description -----------------------------------------------------------

static bool kind_matches(const char *kind, const flatbuffers::TypeCode &tc) {
  std::string k(kind);
  if (k == "VEC") return tc.is_repeating != 0;
  if (tc.is_repeating) return false;
  if (k == "STR") return tc.base_type == flatbuffers::ET_STRING;
  if (k == "TABLE") return tc.base_type == flatbuffers::ET_SEQUENCE;
  if (k == "I8") return tc.base_type == flatbuffers::ET_CHAR;
  if (k == "U32") return tc.base_type == flatbuffers::ET_UINT;
  if (k == "U64") return tc.base_type == flatbuffers::ET_ULONG;
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
  using namespace flat_tensor_flatbuffer;
  flatbuffers::FlatBufferBuilder fbb;
  int n = 0;
#define TPF_FIELD(t, f, id, kind, dflt)                                                        \
  {                                                                                            \
    const flatbuffers::TypeTable *tt = t##TypeTable();                                         \
    TPT_CHECK((size_t)(id) < tt->num_elems);                                                   \
    if ((size_t)(id) < tt->num_elems) {                                                        \
      TPT_EQ_STR(tt->names[id], #f);                                                           \
      TPT_CHECK(kind_matches(#kind, tt->type_codes[id]));                                      \
    }                                                                                          \
    TPT_CHECK(default_is(empty_table<t>(fbb)->f(), (long long)(dflt)));                        \
    n++;                                                                                       \
  }
  TP_FT01_FIELDS(TPF_FIELD)
#undef TPF_FIELD
  const flatbuffers::TypeTable *all[] = {TensorLayoutTypeTable(), DataSegmentTypeTable(),
                                         NamedDataTypeTable(), FlatTensorTypeTable()};
  int total = 0;
  for (const flatbuffers::TypeTable *tt : all) total += (int)tt->num_elems;
  TPT_EQ_INT(n, total);  // nothing left out
  TPT_EQ_INT(n, 11);
  TPT_EQ_STR(FlatTensorIdentifier(), TP_FT01_IDENTIFIER);
}

int main() {
  for (size_t i = 0; i < sizeof g_x / sizeof g_x[0]; i++) g_x[i] = static_cast<float>(i) + 0.5f;
  for (size_t i = 0; i < sizeof g_m / sizeof g_m[0]; i++)
    g_m[i] = static_cast<float>(i) * 0.25f - 7.0f;
  TPT_RUN(test_channels_last_both_orders);
  TPT_RUN(test_transposed_and_offset);
  TPT_RUN(test_empty_scalar_raw_dedup);
  TPT_RUN(test_many_random);
  TPT_RUN(test_official_files);
  TPT_RUN(test_format_description);
  printf("  %d .ptd files passed the official verifier\n", g_files_verified);
  return tpt_finish("verify_ptd");
}
