// FlatBuffers builder and reader against the official implementation (flatc 2.0.8 generated
// code from tests/schemas, libflatbuffers-dev headers).
//
// Random XNNGraph-, VkGraph- and FlatTensor-shaped buffers are generated from the schemas'
// mini-reflection type tables (every table, field type, union member, vector kind, defaults
// forced or not), built in lock step with tensorpack's builder and with
// flatbuffers::FlatBufferBuilder:
//   - forward: our bytes pass Verify<Root>Buffer, decode (official accessors, schema-driven)
//     to exactly what was written, read back the same through our reader, and are
//     byte-identical to the official builder's when both add the fields in the order flatc's
//     generated code uses;
//   - reverse: buffers from the official builder (fields added in random orders, so layouts
//     differ from ours) are read by our reader to exactly what was written;
//   - corruption: for a few buffers of each schema, every truncation and several changes of
//     every byte are either read cleanly or refused with TP_ERR_FORMAT; whatever the official
//     verifier refuses, our reader refuses too; when both accept, both decode alike.
#include "tensorpack.h"
#include "tp_test.h"

#include <flatbuffers/flatbuffers.h>
#include <flatbuffers/minireflect.h>
#include "xnnpack_generated.h"
#include "vulkan_generated.h"
#include "flat_tensor_generated.h"

#include <algorithm>
#include <string>
#include <vector>

typedef flatbuffers::TypeTable TT;

namespace {

struct Schema {
  const char *name;
  const TT *(*root)();
  const char *ident;
  bool (*verify)(const uint8_t *, size_t);
};

bool verify_xnn(const uint8_t *p, size_t n) {
  flatbuffers::Verifier v(p, n);
  return fb_xnnpack::VerifyXNNGraphBuffer(v);
}
bool verify_vk(const uint8_t *p, size_t n) {
  flatbuffers::Verifier v(p, n);
  return vkgraph::VerifyVkGraphBuffer(v);
}
bool verify_ft(const uint8_t *p, size_t n) {
  flatbuffers::Verifier v(p, n);
  return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(v);
}

const Schema kSchemas[3] = {
    {"XNNGraph", fb_xnnpack::XNNGraphTypeTable, "XN01", verify_xnn},
    {"VkGraph", vkgraph::VkGraphTypeTable, "VK00", verify_vk},
    {"FlatTensor", flat_tensor_flatbuffer::FlatTensorTypeTable, "FT01", verify_ft},
};

// Deprecated fields keep their id in the type table but are never written or read.
bool deprecated(const TT *tt, size_t i) {
  return (tt == fb_xnnpack::XNNGraphTypeTable() && (i == 6 || i == 7)) ||
         (tt == fb_xnnpack::PerChannelGroupQuantTypeTable() && i == 3);
}

// Schema defaults that are not 0 (the type tables do not carry defaults).
uint64_t default_bits(const TT *tt, size_t i) {
  if (tt == vkgraph::VkTensorTypeTable() && (i == 4 || i == 5)) return 255;
  if (tt == vkgraph::VkTensorTypeTable() && i == 6) return 127;
  if (tt == vkgraph::VkGraphTypeTable() && (i == 7 || i == 8)) return 255;
  return 0;
}

size_t scalar_size(flatbuffers::ElementaryType t) {
  switch (t) {
  case flatbuffers::ET_UTYPE:
  case flatbuffers::ET_BOOL:
  case flatbuffers::ET_CHAR:
  case flatbuffers::ET_UCHAR: return 1;
  case flatbuffers::ET_SHORT:
  case flatbuffers::ET_USHORT: return 2;
  case flatbuffers::ET_INT:
  case flatbuffers::ET_UINT:
  case flatbuffers::ET_FLOAT: return 4;
  case flatbuffers::ET_LONG:
  case flatbuffers::ET_ULONG:
  case flatbuffers::ET_DOUBLE: return 8;
  default: return 0; // string / table / union: an offset
  }
}

const TT *ref_of(const TT *tt, size_t i) {
  int r = tt->type_codes[i].sequence_ref;
  return r >= 0 ? tt->type_refs[r]() : nullptr;
}

bool is_union(const TT *tt, size_t i) {
  const TT *r = ref_of(tt, i);
  return tt->type_codes[i].base_type == flatbuffers::ET_SEQUENCE && r && r->st == flatbuffers::ST_UNION;
}

// Member table of a union tag (1..num_elems-1), or nullptr.
const TT *union_member(const TT *u, unsigned tag) {
  if (tag == 0 || tag >= u->num_elems) return nullptr;
  int r = u->type_codes[tag].sequence_ref;
  return r >= 0 ? u->type_refs[r]() : nullptr;
}

void put_hex(std::string &ev, uint64_t v) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%llx,", (unsigned long long)v);
  ev += tmp;
}
void put_field(std::string &ev, size_t i) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%u:", (unsigned)i);
  ev += tmp;
}
void put_bytes(std::string &ev, const char *p, size_t n) {
  put_hex(ev, n);
  for (size_t k = 0; k < n; k++) {
    char tmp[4];
    snprintf(tmp, sizeof tmp, "%02x", (unsigned char)p[k]);
    ev += tmp;
  }
  ev += ';';
}

uint64_t load_bits(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

// ---- the generator: one random buffer, built by both builders at once -------------------

struct Gen {
  tp_fb_builder *ours;
  flatbuffers::FlatBufferBuilder *theirs;
  bool mirror;      // official builder adds fields as flatc's generated code does
  bool force;       // both force defaults
  int ref_mismatch; // refs of the two builders differ (only expected when !mirror)
};

struct Field {
  uint16_t id;
  unsigned size; // 1/2/4/8 scalar, 0 offset
  uint64_t bits, dflt;
  flatbuffers::ElementaryType et;
  tp_fb_ref our_ref;
  flatbuffers::uoffset_t their_ref;
  bool union_value;
  uint8_t tag;
};

uint64_t rnd_scalar(flatbuffers::ElementaryType et, size_t size) {
  uint64_t r = tpt_rand();
  if (et == flatbuffers::ET_BOOL) return r & 1;
  switch (tpt_rand() % 6) {
  case 0: r &= 0xFF; break; // small values are common in real graphs
  case 1: r = ~(uint64_t)0; break;
  default: break;
  }
  if (size < 8) r &= ((uint64_t)1 << (8 * size)) - 1;
  return r;
}

void rnd_string(std::string &s) {
  size_t n = (size_t)(tpt_rand() % 24);
  s.clear();
  for (size_t k = 0; k < n; k++) {
    uint64_t r = tpt_rand();
    s += (r % 16 == 0) ? (char)(r >> 8) : (char)('a' + (r >> 8) % 26); // sometimes any byte
  }
}

void note_refs(Gen &g, tp_fb_ref a, flatbuffers::uoffset_t b) {
  if (a != b) g.ref_mismatch++;
}

// Builds a string in both; appends its expected decoding.
void gen_string(Gen &g, tp_fb_ref *a, flatbuffers::uoffset_t *b, std::string &ev) {
  std::string s;
  rnd_string(s);
  *a = tp_fb_create_string(g.ours, s.data(), s.size());
  *b = g.theirs->CreateString(s.data(), s.size()).o;
  note_refs(g, *a, *b);
  put_bytes(ev, s.data(), s.size());
}

void gen_table(Gen &g, const TT *tt, int depth, tp_fb_ref *a, flatbuffers::uoffset_t *b,
               std::string &ev);

void gen_vector(Gen &g, const TT *tt, size_t i, int depth, tp_fb_ref *a,
                flatbuffers::uoffset_t *b, std::string &ev) {
  flatbuffers::ElementaryType et = (flatbuffers::ElementaryType)tt->type_codes[i].base_type;
  size_t es = scalar_size(et);
  size_t count = (size_t)(tpt_rand() % (depth <= 1 ? 7 : 4));
  ev += '[';
  if (es) {
    std::vector<uint8_t> raw(count * es);
    for (size_t k = 0; k < count; k++) {
      uint64_t v = rnd_scalar(et, es);
      put_hex(ev, v);
      for (size_t q = 0; q < es; q++) raw[k * es + q] = (uint8_t)(v >> (8 * q)); // LE host
    }
    *a = tp_fb_create_vector(g.ours, raw.data(), count, es);
    switch (es) {
    case 1: *b = g.theirs->CreateVector((const uint8_t *)raw.data(), count).o; break;
    case 2: *b = g.theirs->CreateVector((const uint16_t *)(const void *)raw.data(), count).o; break;
    case 4: *b = g.theirs->CreateVector((const uint32_t *)(const void *)raw.data(), count).o; break;
    default: *b = g.theirs->CreateVector((const uint64_t *)(const void *)raw.data(), count).o; break;
    }
  } else {
    std::vector<tp_fb_ref> ar(count);
    std::vector<flatbuffers::Offset<void>> br(count);
    for (size_t k = 0; k < count; k++) {
      flatbuffers::uoffset_t o;
      if (et == flatbuffers::ET_STRING) gen_string(g, &ar[k], &o, ev);
      else gen_table(g, ref_of(tt, i), depth + 1, &ar[k], &o, ev);
      br[k] = flatbuffers::Offset<void>(o);
    }
    *a = tp_fb_create_vector_refs(g.ours, ar.data(), count);
    *b = g.theirs->CreateVector(br.data(), count).o;
  }
  note_refs(g, *a, *b);
  ev += ']';
}

void gen_table(Gen &g, const TT *tt, int depth, tp_fb_ref *a, flatbuffers::uoffset_t *b,
               std::string &ev) {
  std::vector<Field> fields;
  ev += '{';
  for (size_t i = 0; i < tt->num_elems; i++) {
    if (deprecated(tt, i)) continue;
    const flatbuffers::TypeCode &tc = tt->type_codes[i];
    flatbuffers::ElementaryType et = (flatbuffers::ElementaryType)tc.base_type;
    if (et == flatbuffers::ET_UTYPE) continue; // with its union (next id)
    Field f;
    memset(&f, 0, sizeof f);
    f.id = (uint16_t)i;
    f.et = et;
    if (is_union(tt, i)) {
      const TT *u = ref_of(tt, i);
      f.union_value = true;
      if (tpt_rand() % 4 == 0) {
        f.tag = 0;
        if (g.force) { put_field(ev, i - 1); ev += "t0,"; }
      } else {
        f.tag = (uint8_t)(1 + tpt_rand() % (u->num_elems - 1));
        put_field(ev, i - 1);
        ev += 't';
        put_hex(ev, f.tag);
        put_field(ev, i);
        gen_table(g, union_member(u, f.tag), depth + 1, &f.our_ref, &f.their_ref, ev);
      }
      fields.push_back(f);
      continue;
    }
    if (tpt_rand() % 10 < 3) continue; // absent
    if (tc.is_repeating) {
      put_field(ev, i);
      gen_vector(g, tt, i, depth, &f.our_ref, &f.their_ref, ev);
    } else if (et == flatbuffers::ET_STRING) {
      put_field(ev, i);
      gen_string(g, &f.our_ref, &f.their_ref, ev);
    } else if (et == flatbuffers::ET_SEQUENCE) {
      put_field(ev, i);
      gen_table(g, ref_of(tt, i), depth + 1, &f.our_ref, &f.their_ref, ev);
    } else {
      f.size = (unsigned)scalar_size(et);
      f.dflt = default_bits(tt, i);
      f.bits = (tpt_rand() % 5 == 0) ? f.dflt : rnd_scalar(et, f.size);
      if (f.bits != f.dflt || g.force) {
        put_field(ev, i);
        put_hex(ev, f.bits);
      }
    }
    fields.push_back(f);
  }
  ev += '}';

  // A union is two fields: a 1-byte tag (id - 1) and an offset (id). Fields are added as
  // flatc's generated Create<Table>() does (largest first, then by id descending) to both
  // builders (same bytes expected), or in two independent random orders.
  std::vector<Field> all;
  for (const Field &f : fields) {
    if (f.union_value) {
      if (f.tag) {
        Field v = f;
        v.size = 0;
        all.push_back(v);
      }
      Field t = f; // the tag entry: union_value stays set, size 1
      t.size = 1;
      t.id = (uint16_t)(f.id - 1);
      t.bits = f.tag;
      t.dflt = 0;
      t.et = flatbuffers::ET_UTYPE;
      all.push_back(t);
    } else {
      all.push_back(f);
    }
  }
  std::vector<Field> mine(all);
  if (g.mirror) {
    std::sort(all.begin(), all.end(), [](const Field &x, const Field &y) {
      unsigned sx = x.size ? x.size : 4, sy = y.size ? y.size : 4;
      if (sx != sy) return sx > sy;
      return x.id > y.id;
    });
    mine = all;
  } else {
    for (size_t k = all.size(); k > 1; k--) std::swap(all[k - 1], all[(size_t)(tpt_rand() % k)]);
    for (size_t k = mine.size(); k > 1; k--) std::swap(mine[k - 1], mine[(size_t)(tpt_rand() % k)]);
  }

  tp_fb_start_table(g.ours);
  for (size_t q = 0; q < mine.size(); q++) {
    const Field &f = mine[q];
    if (f.union_value && f.size == 0) {
      // the value; with its tag right after it, both in one call
      if (q + 1 < mine.size() && mine[q + 1].union_value && mine[q + 1].size == 1 &&
          mine[q + 1].id + 1 == f.id) {
        tp_fb_add_union(g.ours, f.id, f.tag, f.our_ref);
        q++;
      } else {
        tp_fb_add_ref(g.ours, f.id, f.our_ref);
      }
    } else if (f.union_value) {
      tp_fb_add_u8(g.ours, f.id, f.tag, 0);
    } else if (!f.size) {
      tp_fb_add_ref(g.ours, f.id, f.our_ref);
    } else {
      switch (f.et) { // the typed adders, so each is exercised
      case flatbuffers::ET_CHAR: tp_fb_add_i8(g.ours, f.id, (int8_t)f.bits, (int8_t)f.dflt); break;
      case flatbuffers::ET_SHORT: tp_fb_add_i16(g.ours, f.id, (int16_t)f.bits, (int16_t)f.dflt); break;
      case flatbuffers::ET_USHORT: tp_fb_add_u16(g.ours, f.id, (uint16_t)f.bits, (uint16_t)f.dflt); break;
      case flatbuffers::ET_INT: tp_fb_add_i32(g.ours, f.id, (int32_t)f.bits, (int32_t)f.dflt); break;
      case flatbuffers::ET_UINT: tp_fb_add_u32(g.ours, f.id, (uint32_t)f.bits, (uint32_t)f.dflt); break;
      case flatbuffers::ET_LONG: tp_fb_add_i64(g.ours, f.id, (int64_t)f.bits, (int64_t)f.dflt); break;
      case flatbuffers::ET_ULONG: tp_fb_add_u64(g.ours, f.id, f.bits, f.dflt); break;
      case flatbuffers::ET_FLOAT:
        tp_fb_add_f32(g.ours, f.id, tp_fb_bits_f32((uint32_t)f.bits), tp_fb_bits_f32((uint32_t)f.dflt));
        break;
      case flatbuffers::ET_DOUBLE:
        tp_fb_add_f64(g.ours, f.id, tp_fb_bits_f64(f.bits), tp_fb_bits_f64(f.dflt));
        break;
      default: tp_fb_add_u8(g.ours, f.id, (uint8_t)f.bits, (uint8_t)f.dflt); break;
      }
    }
  }
  *a = tp_fb_end_table(g.ours);

  flatbuffers::FlatBufferBuilder &fb = *g.theirs;
  flatbuffers::uoffset_t start = fb.StartTable();
  for (const Field &f : all) {
    flatbuffers::voffset_t vo = flatbuffers::FieldIndexToOffset(f.id);
    if (!f.size) {
      fb.AddOffset(vo, flatbuffers::Offset<void>(f.their_ref));
      continue;
    }
    switch (f.size) {
    case 1: fb.AddElement<uint8_t>(vo, (uint8_t)f.bits, (uint8_t)f.dflt); break;
    case 2: fb.AddElement<uint16_t>(vo, (uint16_t)f.bits, (uint16_t)f.dflt); break;
    case 4: fb.AddElement<uint32_t>(vo, (uint32_t)f.bits, (uint32_t)f.dflt); break;
    default: fb.AddElement<uint64_t>(vo, f.bits, f.dflt); break;
    }
  }
  *b = fb.EndTable(start);
  note_refs(g, *a, *b);
}

// ---- decoding: official accessors ------------------------------------------------------

// Target of the uoffset at p (4-aligned: the verifier checks offset fields' alignment).
const uint8_t *follow(const uint8_t *p) { return p + flatbuffers::ReadScalar<flatbuffers::uoffset_t>(p); }

void off_table(const uint8_t *tp, const TT *tt, std::string &ev);

void off_value(flatbuffers::ElementaryType et, const TT *ref, const uint8_t *p, std::string &ev) {
  size_t es = scalar_size(et);
  if (es) {
    put_hex(ev, load_bits(p, es)); // bytes, not ReadScalar: element alignment is not verified
  } else if (et == flatbuffers::ET_STRING) {
    const flatbuffers::String *s = reinterpret_cast<const flatbuffers::String *>(follow(p));
    put_bytes(ev, s->c_str(), s->size());
  } else {
    off_table(follow(p), ref, ev);
  }
}

void off_table(const uint8_t *tp, const TT *tt, std::string &ev) {
  const flatbuffers::Table *t = reinterpret_cast<const flatbuffers::Table *>(tp);
  uint8_t tag = 0;
  ev += '{';
  for (size_t i = 0; i < tt->num_elems; i++) {
    if (deprecated(tt, i)) continue;
    const flatbuffers::TypeCode &tc = tt->type_codes[i];
    flatbuffers::ElementaryType et = (flatbuffers::ElementaryType)tc.base_type;
    const uint8_t *val = t->GetAddressOf(flatbuffers::FieldIndexToOffset((flatbuffers::voffset_t)i));
    if (et == flatbuffers::ET_UTYPE) {
      tag = val ? *val : 0;
      if (val) { put_field(ev, i); ev += 't'; put_hex(ev, tag); }
      continue;
    }
    if (!val) continue;
    put_field(ev, i);
    if (is_union(tt, i)) {
      const TT *m = union_member(ref_of(tt, i), tag);
      if (m) off_table(follow(val), m, ev);
      else ev += '?';
    } else if (tc.is_repeating) {
      const uint8_t *vec = follow(val);
      uint32_t n = (uint32_t)load_bits(vec, 4);
      size_t es = scalar_size(et);
      if (!es) es = 4;
      ev += '[';
      for (uint32_t k = 0; k < n; k++) off_value(et, ref_of(tt, i), vec + 4 + k * es, ev);
      ev += ']';
    } else {
      off_value(et, ref_of(tt, i), val, ev);
    }
  }
  ev += '}';
}

// ---- decoding: our reader --------------------------------------------------------------

void our_table(const tp_fb_table &t, const TT *tt, std::string &ev) {
  ev += '{';
  for (size_t i = 0; i < tt->num_elems; i++) {
    if (deprecated(tt, i)) continue;
    const flatbuffers::TypeCode &tc = tt->type_codes[i];
    flatbuffers::ElementaryType et = (flatbuffers::ElementaryType)tc.base_type;
    uint16_t id = (uint16_t)i;
    if (et == flatbuffers::ET_UTYPE) {
      if (tp_fb_present(&t, id)) { put_field(ev, i); ev += 't'; put_hex(ev, tp_fb_u8(&t, id, 0)); }
      continue;
    }
    if (!tp_fb_present(&t, id)) continue;
    put_field(ev, i);
    size_t es = scalar_size(et);
    if (is_union(tt, i)) {
      uint8_t tag = 0;
      tp_fb_table m = tp_fb_union_field(&t, id, &tag);
      const TT *mt = union_member(ref_of(tt, i), tag);
      if (tag && !mt) {
        tp__error_set(&t.r->err, TP_ERR_FORMAT, "unknown union tag %u", (unsigned)tag);
        return;
      }
      if (mt) our_table(m, mt, ev);
    } else if (tc.is_repeating) {
      tp_fb_vector v = tp_fb_vector_field(&t, id, es ? es : 4);
      ev += '[';
      for (size_t k = 0; k < v.count && tp_fb_reader_status(t.r) == TP_OK; k++) {
        if (es) {
          put_hex(ev, tp_fb_vector_scalar(&v, k));
        } else if (et == flatbuffers::ET_STRING) {
          size_t len = 0;
          const char *s = tp_fb_vector_string(&v, k, &len);
          if (s) put_bytes(ev, s, len);
        } else {
          our_table(tp_fb_vector_table(&v, k), ref_of(tt, i), ev);
        }
      }
      ev += ']';
    } else if (et == flatbuffers::ET_STRING) {
      size_t len = 0;
      const char *s = tp_fb_string(&t, id, &len);
      if (s) put_bytes(ev, s, len);
    } else if (et == flatbuffers::ET_SEQUENCE) {
      our_table(tp_fb_table_field(&t, id), ref_of(tt, i), ev);
    } else {
      uint64_t v;
      switch (es) {
      case 1: v = tp_fb_u8(&t, id, 0); break;
      case 2: v = tp_fb_u16(&t, id, 0); break;
      case 4: v = tp_fb_u32(&t, id, 0); break;
      default: v = tp_fb_u64(&t, id, 0); break;
      }
      put_hex(ev, v);
    }
    if (tp_fb_reader_status(t.r) != TP_OK) return;
  }
  ev += '}';
}

tp_status our_decode(const Schema &s, const uint8_t *p, size_t n, std::string &ev) {
  tp_fb_reader r;
  tp_fb_table root;
  memset(&r, 0, sizeof r);
  ev.clear();
  if (tp_fb_reader_init(&r, p, n, s.ident, &root) != TP_OK) return tp_fb_reader_status(&r);
  our_table(root, s.root(), ev);
  return tp_fb_reader_status(&r);
}

std::string off_decode(const Schema &s, const uint8_t *p) {
  std::string ev;
  off_table(flatbuffers::GetRoot<uint8_t>(p), s.root(), ev);
  return ev;
}

// One random buffer of schema s, by both builders. Returns the expected decoding.
std::string build_pair(const Schema &s, bool mirror, bool force, tp_fb_builder *ours,
                       flatbuffers::FlatBufferBuilder &theirs, int *ref_mismatch) {
  Gen g;
  g.ours = ours;
  g.theirs = &theirs;
  g.mirror = mirror;
  g.force = force;
  g.ref_mismatch = 0;
  tp_fb_builder_reset(ours);
  tp_fb_force_defaults(ours, force);
  theirs.Clear();
  theirs.ForceDefaults(force);
  std::string ev;
  tp_fb_ref a;
  flatbuffers::uoffset_t b;
  gen_table(g, s.root(), 1, &a, &b, ev);
  tp_fb_finish(ours, a, s.ident);
  theirs.Finish(flatbuffers::Offset<void>(b), s.ident);
  *ref_mismatch = g.ref_mismatch;
  return ev;
}

const int kCases = 400; // per schema and direction

void forward(const Schema &s) {
  tp_fb_builder *ours = nullptr;
  flatbuffers::FlatBufferBuilder theirs;
  TPT_STATUS(tp_fb_builder_create(&ours), TP_OK);
  int verified = 0, identical = 0, decoded = 0;
  size_t total = 0;
  for (int c = 0; c < kCases; c++) {
    int mism = 0;
    bool force = c % 10 == 9;
    std::string want = build_pair(s, true, force, ours, theirs, &mism);
    size_t n = 0;
    const uint8_t *p = tp_fb_data(ours, &n);
    TPT_STATUS(tp_fb_status(ours), TP_OK);
    if (!p) { TPT_CHECK(!"no data"); break; }
    total += n;
    if (s.verify(p, n)) verified++;
    else printf("  %s case %d: official verifier refused our %zu bytes\n", s.name, c, n);
    // official decode of our bytes == what was written
    if (off_decode(s, p) == want) decoded++;
    else if (decoded + 3 > c) printf("  %s case %d: official decoding differs\n", s.name, c);
    // byte-identical to the official builder (same objects, same order)
    if (n == theirs.GetSize() && memcmp(p, theirs.GetBufferPointer(), n) == 0 && !mism) identical++;
    else if (identical + 3 > c) {
      printf("  %s case %d: bytes differ from the official builder (%zu vs %u)\n", s.name, c, n, theirs.GetSize());
      if (getenv("TP_DUMP")) {
        for (size_t k = 0; k < n || k < theirs.GetSize(); k++)
          printf("%4zu %02x %02x%s\n", k, k < n ? p[k] : 0, k < theirs.GetSize() ? theirs.GetBufferPointer()[k] : 0,
                 (k < n && k < theirs.GetSize() && p[k] == theirs.GetBufferPointer()[k]) ? "" : "  <<");
      }
    }
    // our reader reads back what was written
    std::string got;
    TPT_STATUS(our_decode(s, p, n, got), TP_OK);
    TPT_CHECK(got == want);
  }
  TPT_EQ_INT(verified, kCases);
  TPT_EQ_INT(decoded, kCases);
  TPT_EQ_INT(identical, kCases);
  printf("  %s: %d buffers (%zu bytes) verified, decoded and byte-identical to FlatBufferBuilder\n",
         s.name, kCases, total);
  tp_fb_builder_destroy(ours);
}

void reverse(const Schema &s) {
  tp_fb_builder *ours = nullptr;
  flatbuffers::FlatBufferBuilder theirs;
  TPT_STATUS(tp_fb_builder_create(&ours), TP_OK);
  int ok = 0, differs = 0;
  for (int c = 0; c < kCases; c++) {
    int mism = 0;
    std::string want = build_pair(s, false, c % 10 == 9, ours, theirs, &mism);
    const uint8_t *p = theirs.GetBufferPointer();
    size_t n = theirs.GetSize();
    TPT_CHECK(s.verify(p, n));
    std::string got;
    tp_status st = our_decode(s, p, n, got);
    TPT_STATUS(st, TP_OK);
    if (st == TP_OK && got == want) ok++;
    size_t on = 0;
    const uint8_t *op = tp_fb_data(ours, &on);
    if (!op || on != n || memcmp(op, p, n) != 0) differs++;
  }
  TPT_EQ_INT(ok, kCases);
  TPT_CHECK(differs > kCases / 2); // the layouts really were different
  printf("  %s: %d official buffers read back exactly (%d laid out differently from ours)\n",
         s.name, ok, differs);
  tp_fb_builder_destroy(ours);
}

struct CorruptStats {
  long cases = 0, ours_ok = 0, both_ok = 0, off_ok_ours_no = 0;
};

void corrupt_one(const Schema &s, std::vector<uint8_t> &buf, size_t n, CorruptStats &st) {
  // copy into an exactly-sized heap block so ASan sees any read past the end
  uint8_t *p = (uint8_t *)malloc(n ? n : 1);
  if (n) memcpy(p, buf.data(), n);
  std::string ev;
  tp_status rc = our_decode(s, p, n, ev);
  st.cases++;
  if (rc != TP_OK && rc != TP_ERR_FORMAT) {
    printf("  %s: status %d (%s) on a %zu-byte buffer\n", s.name, (int)rc, tp_status_str(rc), n);
    TPT_CHECK(rc == TP_OK || rc == TP_ERR_FORMAT);
  }
  bool off = n >= 8 && s.verify(p, n);
  if (rc == TP_OK) st.ours_ok++;
  if (off && rc == TP_OK) {
    st.both_ok++;
    if (off_decode(s, p) != ev) {
      printf("  %s: both accept a %zu-byte buffer but decode differently\n", s.name, n);
      TPT_CHECK(!"decodings differ");
    }
  }
  if (!off && rc == TP_OK) {
    printf("  %s: the verifier refuses a %zu-byte buffer our reader accepted\n", s.name, n);
    TPT_CHECK(!"reader accepted what the verifier refuses");
  }
  if (off && rc != TP_OK) st.off_ok_ours_no++;
  free(p);
}

void corruption(const Schema &s) {
  tp_fb_builder *ours = nullptr;
  flatbuffers::FlatBufferBuilder theirs;
  TPT_STATUS(tp_fb_builder_create(&ours), TP_OK);
  CorruptStats st;
  int built = 0;
  for (int c = 0; built < 3 && c < 200; c++) {
    int mism = 0;
    build_pair(s, true, false, ours, theirs, &mism);
    size_t n = 0;
    const uint8_t *p = tp_fb_data(ours, &n);
    if (!p || n < 200 || n > 1500) continue; // a few mid-sized buffers
    built++;
    std::vector<uint8_t> buf(p, p + n);
    for (size_t k = 0; k < n; k++) corrupt_one(s, buf, k, st); // every truncation
    for (size_t k = 0; k < n; k++) {
      uint8_t orig = buf[k];
      const uint8_t vals[6] = {(uint8_t)(orig ^ 1), (uint8_t)(orig ^ 0x80), 0, 0xFF,
                               (uint8_t)(orig + 4), (uint8_t)(orig ^ 0x40)};
      for (uint8_t v : vals) {
        if (v == orig) continue;
        buf[k] = v;
        corrupt_one(s, buf, n, st);
      }
      buf[k] = orig;
    }
  }
  TPT_EQ_INT(built, 3);
  printf("  %s: %ld corrupted buffers: %ld read without error (%ld also verified, same decoding), "
         "%ld verified but refused by our stricter reader, the rest refused by both\n",
         s.name, st.cases, st.ours_ok, st.both_ok, st.off_ok_ours_no);
  tp_fb_builder_destroy(ours);
}

void test_forward_xnn() { forward(kSchemas[0]); }
void test_forward_vk() { forward(kSchemas[1]); }
void test_forward_ft() { forward(kSchemas[2]); }
void test_reverse_xnn() { reverse(kSchemas[0]); }
void test_reverse_vk() { reverse(kSchemas[1]); }
void test_reverse_ft() { reverse(kSchemas[2]); }
void test_corrupt_xnn() { corruption(kSchemas[0]); }
void test_corrupt_vk() { corruption(kSchemas[1]); }
void test_corrupt_ft() { corruption(kSchemas[2]); }

// Non-zero schema defaults, through the generated typed accessors.
void test_vk_defaults() {
  tp_fb_builder *b = nullptr;
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  uint32_t dims[2] = {2, 3};
  tp_fb_ref d = tp_fb_create_vector(b, dims, 2, 4);
  tp_fb_start_table(b); // VkTensor: BUFFER / WIDTH_PACKED / BOOL are 0 and must be written
  tp_fb_add_i8(b, 0, 5, 0);
  tp_fb_add_ref(b, 1, d);
  tp_fb_add_i32(b, 2, -1, 0);
  tp_fb_add_i32(b, 3, -1, 0);
  tp_fb_add_u8(b, 4, 0, 255);
  tp_fb_add_u8(b, 5, 0, 255);
  tp_fb_add_i8(b, 6, 0, 127);
  tp_fb_ref t0 = tp_fb_end_table(b);
  tp_fb_start_table(b); // VkTensor with every default: nothing but dims
  tp_fb_add_ref(b, 1, d);
  tp_fb_add_u8(b, 4, 255, 255);
  tp_fb_add_u8(b, 5, 255, 255);
  tp_fb_add_i8(b, 6, 127, 127);
  tp_fb_ref t1 = tp_fb_end_table(b);
  tp_fb_ref vals[2];
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 5, t0);
  vals[0] = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, 1, 5, t1);
  vals[1] = tp_fb_end_table(b);
  tp_fb_ref vv = tp_fb_create_vector_refs(b, vals, 2);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 2, vv);
  tp_fb_add_u8(b, 7, 1, 255);
  tp_fb_ref g = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, g, "VK00"), TP_OK);
  size_t n = 0;
  const uint8_t *p = tp_fb_data(b, &n);
  TPT_CHECK(p && verify_vk(p, n));
  if (p && verify_vk(p, n)) {
    const vkgraph::VkGraph *vg = vkgraph::GetVkGraph(p);
    TPT_EQ_INT(vg->storage_type_override(), vkgraph::VkStorageType_TEXTURE_3D);
    TPT_EQ_INT(vg->memory_layout_override(), vkgraph::VkMemoryLayout_DEFAULT_LAYOUT);
    const vkgraph::VkTensor *a = vg->values()->Get(0)->value_as_VkTensor();
    const vkgraph::VkTensor *c = vg->values()->Get(1)->value_as_VkTensor();
    TPT_CHECK(a && c);
    if (a && c) {
      TPT_EQ_INT(a->datatype(), vkgraph::VkDataType_FLOAT32);
      TPT_EQ_INT(a->storage_type(), vkgraph::VkStorageType_BUFFER);
      TPT_EQ_INT(a->memory_layout(), vkgraph::VkMemoryLayout_TENSOR_WIDTH_PACKED);
      TPT_EQ_INT(a->staging_datatype(), vkgraph::VkDataType_BOOL);
      TPT_EQ_INT(a->constant_id(), -1);
      TPT_EQ_INT(a->mem_obj_id(), -1);
      TPT_EQ_INT(a->dims()->size(), 2);
      TPT_EQ_INT(a->dims()->Get(1), 3);
      TPT_EQ_INT(c->storage_type(), vkgraph::VkStorageType_DEFAULT_STORAGE);
      TPT_EQ_INT(c->memory_layout(), vkgraph::VkMemoryLayout_DEFAULT_LAYOUT);
      TPT_EQ_INT(c->staging_datatype(), vkgraph::VkDataType_UNSET);
      TPT_EQ_INT(c->constant_id(), 0);
      TPT_CHECK(!flatbuffers::IsFieldPresent(c, vkgraph::VkTensor::VT_STORAGE_TYPE));
      TPT_CHECK(flatbuffers::IsFieldPresent(a, vkgraph::VkTensor::VT_STAGING_DATATYPE));
    }
  }
  tp_fb_builder_destroy(b);
}

} // namespace

int main() {
  (void)tpt_range;
  TPT_RUN(test_forward_xnn);
  TPT_RUN(test_forward_vk);
  TPT_RUN(test_forward_ft);
  TPT_RUN(test_reverse_xnn);
  TPT_RUN(test_reverse_vk);
  TPT_RUN(test_reverse_ft);
  TPT_RUN(test_corrupt_xnn);
  TPT_RUN(test_corrupt_vk);
  TPT_RUN(test_corrupt_ft);
  TPT_RUN(test_vk_defaults);
  return tpt_finish("verify_fb");
}
