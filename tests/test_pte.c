/* Programs (.pte), tensorpack.h section 9, with the XNNPACK and Vulkan method calls:
   the layout (eh00 header, segments, alignment, exact size), every field decoded by our reader,
   several methods, compile specs, embedded named data, every refusal's status and sentence,
   failing sinks and producers (a sentence, a retry succeeds), the atomic file, reader checks
   that upstream's loader lacks (patched indices), truncation at every byte and byte flips
   (refused or read, never a crash), and an allocation-failure sweep. */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- fixtures --------------------------------------------------------------------------- */

static float g_storage[3 * 8 * 8];

/* The little-endian bytes of n floats (what every file holds, on any host). */
static void le_floats(const float *f, size_t n, unsigned char *out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &f[i], 4);
    tp__put_le32(out + 4 * i, u);
  }
}

/* The seed's linear: x[2, 8] (external 0) -> y[2, 8] = x w^T (external 1), w = storage[1]. */
static tp_xnn_graph *seed_linear(tp_store *store) {
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor parent, w;
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y;
  size_t i;
  for (i = 0; i < 3 * 8 * 8; i++) g_storage[i] = (float)i * 0.25f - 3.0f;
  s.data = g_storage;
  s.nbytes = sizeof g_storage;
  tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL);
  memset(&o, 0, sizeof o);
  o.store = store;
  if (tp_xnn_graph_create(&o, &g) != TP_OK) return NULL;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
  return g;
}

static tp_status write_mem(tp_pte *p, tp_membuf *mb) {
  tp_sink s;
  memset(mb, 0, sizeof *mb);
  s = tp_sink_membuf(mb);
  return tp_pte_write(p, &s);
}

/* A producer of n bytes of a pattern (ctx: the n as a uint64_t*). */
static tp_status pattern_produce(void *ctx, tp_sink *sink) {
  uint64_t n = *(const uint64_t *)ctx, i;
  unsigned char buf[64];
  tp_status st = TP_OK;
  for (i = 0; i < n && st == TP_OK; i += sizeof buf) {
    size_t k = n - i < sizeof buf ? (size_t)(n - i) : sizeof buf, j;
    for (j = 0; j < k; j++) buf[j] = (unsigned char)((i + j) * 7u + 1u);
    st = tp_sink_write(sink, buf, k);
  }
  return st;
}

static uint64_t g_pattern_n = 100;

/* A method desc with `n` f32 args of [2, 3], first input, rest outputs. */
static tp_pte_tensor g_args[4];
static tp_pte_method plain_method(const char *name, size_t n) {
  tp_pte_method m;
  size_t i;
  memset(&m, 0, sizeof m);
  memset(g_args, 0, sizeof g_args);
  for (i = 0; i < n && i < 4; i++) {
    g_args[i].role = i == 0 ? TP_PTE_INPUT : TP_PTE_OUTPUT;
    g_args[i].dtype = TP_F32;
    g_args[i].ndim = 2;
    g_args[i].sizes[0] = 2;
    g_args[i].sizes[1] = 3;
  }
  m.name = name;
  m.args = g_args;
  m.n_args = n;
  m.backend_id = "TestBackend";
  m.blob_size = g_pattern_n;
  m.produce = pattern_produce;
  m.ctx = &g_pattern_n;
  return m;
}

/* ---- layout and decode ------------------------------------------------------------------ */

static void test_seed_linear_layout(void) {
  tp_xnn_graph *g = seed_linear(NULL);
  tp_pte *p = NULL;
  tp_membuf mb, blob;
  tp_sink bs;
  uint64_t size = 0, bsize = 0, off, sz;
  tp_pte_file f;
  tp_pte_method_info mi;
  tp_pte_value_info vi;
  tp_pte_instruction_info ii;
  tp_pte_delegate_info di;
  size_t v, n;
  uint64_t buf;
  TPT_CHECK(g != NULL);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  TPT_EQ_INT(tp_pte_method_count(p), 1);
  TPT_STATUS(tp_pte_size(p, &size), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_EQ_U64(mb.size, size);
  TPT_STATUS(tp_xnn_blob_size(g, &bsize), TP_OK);
  memset(&blob, 0, sizeof blob);
  bs = tp_sink_membuf(&blob);
  TPT_STATUS(tp_xnn_write(g, &bs), TP_OK);
  TPT_EQ_U64(blob.size, 736); /* the seed's blob */

  /* header */
  TPT_MEMEQ(mb.data + 4, "ET12", 4);
  TPT_MEMEQ(mb.data + 8, "eh00", 4);
  TPT_EQ_U64(tp__get_le32(mb.data + 12), 32);
  {
    uint64_t psize = tp__get_le64(mb.data + 16), base = tp__get_le64(mb.data + 24);
    uint64_t dsize = tp__get_le64(mb.data + 32);
    TPT_EQ_U64(base % 128, 0);
    TPT_CHECK(base >= psize && base - psize < 128);
    TPT_EQ_U64(dsize, 736);           /* segment 0 empty at 0, the blob at 0 */
    TPT_EQ_U64(base + dsize, size);
    TPT_EQ_U64(psize % 8, 0);
    TPT_CHECK(tp__get_le32(mb.data) >= 40);
    for (v = (size_t)psize; v < base; v++) TPT_EQ_INT(mb.data[v], 0);
    TPT_MEMEQ(mb.data + base, blob.data, 736);
  }

  /* field by field through the reader */
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_EQ_STR(f.err.msg, "");
  TPT_EQ_INT(f.has_extended_header, 1);
  TPT_EQ_INT(f.version, 0);
  TPT_EQ_INT(f.n_methods, 1);
  TPT_EQ_INT(f.n_segments, 2);
  TPT_EQ_INT(f.n_named, 0);
  TPT_STATUS(tp_pte_segment_at(&f, 0, &off, &sz), TP_OK);
  TPT_EQ_U64(off, 0);
  TPT_EQ_U64(sz, 0);
  TPT_STATUS(tp_pte_segment_at(&f, 1, &off, &sz), TP_OK);
  TPT_EQ_U64(off, 0);
  TPT_EQ_U64(sz, 736);
  TPT_STATUS(tp_pte_segment_at(&f, 2, &off, &sz), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_STR(mi.name, "forward");
  TPT_EQ_INT(mi.n_values, 2);
  TPT_EQ_INT(mi.n_inputs, 1);
  TPT_EQ_INT(mi.n_outputs, 1);
  TPT_EQ_INT(mi.n_chains, 1);
  TPT_EQ_INT(mi.n_operators, 0);
  TPT_EQ_INT(mi.n_delegates, 1);
  TPT_EQ_INT(mi.n_buffers, 2);
  TPT_EQ_U64(mi.planned_bytes, 128);
  TPT_STATUS(tp_pte_buffer_at(&f, 0, 0, &buf), TP_OK);
  TPT_EQ_U64(buf, 0);
  TPT_STATUS(tp_pte_buffer_at(&f, 0, 1, &buf), TP_OK);
  TPT_EQ_U64(buf, 128);
  for (v = 0; v < 2; v++) {
    TPT_STATUS(tp_pte_value_at(&f, 0, v, &vi), TP_OK);
    TPT_EQ_INT(vi.kind, TP_PTE_V_Tensor);
    TPT_EQ_INT(vi.scalar_type, TP_F32);
    TPT_EQ_INT(vi.ndim, 2);
    TPT_EQ_INT(vi.sizes[0], 2);
    TPT_EQ_INT(vi.sizes[1], 8);
    TPT_EQ_INT(vi.dim_order[0], 0);
    TPT_EQ_INT(vi.dim_order[1], 1);
    TPT_EQ_INT(vi.planned, 1);
    TPT_EQ_INT(vi.memory_id, 1);
    TPT_EQ_U64(vi.memory_offset, 64 * v);
    TPT_EQ_U64(vi.nbytes, 64);
    TPT_EQ_INT(vi.shape_dynamism, 0);
  }
  TPT_STATUS(tp_pte_value_at(&f, 0, 2, &vi), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_io_at(&f, 0, 0, 0, &v), TP_OK);
  TPT_EQ_INT(v, 0);
  TPT_STATUS(tp_pte_io_at(&f, 0, 1, 0, &v), TP_OK);
  TPT_EQ_INT(v, 1);
  TPT_STATUS(tp_pte_io_at(&f, 0, 1, 1, &v), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_chain_size(&f, 0, 0, &n), TP_OK);
  TPT_EQ_INT(n, 1);
  TPT_STATUS(tp_pte_instruction_at(&f, 0, 0, 0, &ii), TP_OK);
  TPT_EQ_INT(ii.kind, TP_PTE_I_DelegateCall);
  TPT_EQ_INT(ii.index, 0);
  TPT_EQ_INT(ii.args.count, 2);
  TPT_EQ_U64(tp_fb_vector_scalar(&ii.args, 0), 0);
  TPT_EQ_U64(tp_fb_vector_scalar(&ii.args, 1), 1);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "XnnpackBackend");
  TPT_EQ_INT(di.location, TP_PTE_DATA_SEGMENT);
  TPT_EQ_INT(di.index, 1);
  TPT_EQ_U64(di.nbytes, 736);
  TPT_EQ_U64(di.file_offset, f.segment_base);
  TPT_EQ_INT(di.n_specs, 0);
  TPT_MEMEQ(di.data, blob.data, 736);
  TPT_STATUS(tp_pte_method_find(&f, "forward", &n), TP_OK);
  TPT_EQ_INT(n, 0);
  TPT_STATUS(tp_pte_method_find(&f, "backward", &n), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_value_kind_name(TP_PTE_V_Tensor), "Tensor");
  TPT_EQ_STR(tp_pte_instruction_name(TP_PTE_I_DelegateCall), "DelegateCall");
  TPT_EQ_STR(tp_pte_instruction_name(99), "?");

  /* a second write gives the same bytes */
  {
    tp_membuf again;
    TPT_STATUS(write_mem(p, &again), TP_OK);
    TPT_EQ_U64(again.size, mb.size);
    TPT_MEMEQ(again.data, mb.data, mb.size);
    tp_membuf_free(&again);
  }
  tp_membuf_free(&mb);
  tp_membuf_free(&blob);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
}

/* The description table: unique (table, id) pairs, ids dense per table, enum = row id. */
static void test_description_table(void) {
  size_t n = 0, i, j;
  const tp_pte_field_info *rows = tp_pte_fields(&n);
  TPT_CHECK(n > 80);
  for (i = 0; i < n; i++) {
    int seen_prev = rows[i].id == 0;
    for (j = 0; j < n; j++) {
      if (strcmp(rows[i].table, rows[j].table) != 0) continue;
      if (j != i) TPT_CHECK(rows[j].id != rows[i].id);
      if (rows[j].id + 1 == rows[i].id) seen_prev = 1;
    }
    TPT_CHECK(seen_prev);
    TPT_CHECK(rows[i].kind >= TP_PTE_K_BOOL && rows[i].kind <= TP_PTE_K_VEC_TABLE);
  }
  TPT_EQ_INT(TP_PTE_F_Program_named_data, 7);
  TPT_EQ_INT(TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, 8);
  TPT_EQ_INT(TP_PTE_F_Tensor_allocation_info, 6);
  TPT_EQ_INT(TP_PTE_F_EValue_val, 1);
}

/* Several methods, compile specs, alignment 64, a store embedded: named data with keys. */
static void test_methods_specs_embed(void) {
  tp_store *st = NULL;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_pte_method m;
  tp_pte_compile_spec specs[2];
  tp_xnn_graph *g;
  tp_membuf mb;
  tp_pte_file f;
  tp_pte_delegate_info di;
  const char *key, *k0 = NULL;
  const void *val, *data;
  size_t nb, i;
  uint32_t si;
  uint64_t nbytes, size = 0;
  static const unsigned char raw[5] = {1, 2, 3, 4, 5};

  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  g = seed_linear(st); /* named mode: the weight goes to the store */
  TPT_STATUS(tp_store_add_bytes(st, "extra", raw, 5, 256, 0, &k0), TP_OK);
  memset(&o, 0, sizeof o);
  o.embed = st;
  o.alignment = 64;
  TPT_STATUS(tp_pte_create(&o, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  m = plain_method("aux", 3);
  specs[0].key = "storage_type_override";
  specs[0].value = "\x01\x00\x00\x00";
  specs[0].nbytes = 4;
  specs[1].key = "empty";
  specs[1].value = NULL;
  specs[1].nbytes = 0;
  m.specs = specs;
  m.n_specs = 2;
  g_args[1].dim_order[0] = 1; /* [2, 3] with dim_order (1, 0) */
  g_args[1].dim_order[1] = 0;
  g_args[2].dtype = TP_BF16;
  TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
  TPT_STATUS(tp_pte_size(p, &size), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_EQ_U64(mb.size, size);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_EQ_STR(f.err.msg, "");
  TPT_EQ_INT(f.n_methods, 2);
  TPT_EQ_INT(f.n_named, 2);
  TPT_EQ_INT(f.n_segments, 1 + 2 + 2);
  TPT_EQ_U64(f.segment_base % 256, 0); /* the base follows the strictest entry alignment */
  for (i = 1; i < f.n_segments; i++) {
    uint64_t off, sz;
    TPT_STATUS(tp_pte_segment_at(&f, i, &off, &sz), TP_OK);
    TPT_EQ_U64(off % 64, 0);
  }
  /* method 1: compile specs, args */
  TPT_STATUS(tp_pte_delegate_at(&f, 1, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "TestBackend");
  TPT_EQ_INT(di.index, 2);
  TPT_EQ_U64(di.nbytes, g_pattern_n);
  TPT_EQ_INT(di.n_specs, 2);
  for (i = 0; i < g_pattern_n; i++)
    TPT_EQ_INT(((const unsigned char *)di.data)[i], (unsigned char)(i * 7u + 1u));
  TPT_STATUS(tp_pte_compile_spec_at(&f, 1, 0, 0, &key, &val, &nb), TP_OK);
  TPT_EQ_STR(key, "storage_type_override");
  TPT_EQ_INT(nb, 4);
  TPT_MEMEQ(val, "\x01\x00\x00\x00", 4);
  TPT_STATUS(tp_pte_compile_spec_at(&f, 1, 0, 1, &key, &val, &nb), TP_OK);
  TPT_EQ_STR(key, "empty");
  TPT_EQ_INT(nb, 0);
  TPT_STATUS(tp_pte_compile_spec_at(&f, 1, 0, 2, &key, &val, &nb), TP_ERR_INVALID);
  {
    tp_pte_value_info vi;
    tp_pte_method_info mi;
    TPT_STATUS(tp_pte_method_at(&f, 1, &mi), TP_OK);
    TPT_EQ_STR(mi.name, "aux");
    TPT_EQ_INT(mi.n_inputs, 1);
    TPT_EQ_INT(mi.n_outputs, 2);
    TPT_STATUS(tp_pte_value_at(&f, 1, 1, &vi), TP_OK);
    TPT_EQ_INT(vi.dim_order[0], 1);
    TPT_EQ_INT(vi.dim_order[1], 0);
    TPT_EQ_U64(vi.memory_offset, 32); /* 24 bytes, 16-aligned */
    TPT_STATUS(tp_pte_value_at(&f, 1, 2, &vi), TP_OK);
    TPT_EQ_INT(vi.scalar_type, TP_BF16);
    TPT_EQ_U64(vi.memory_offset, 64);
    TPT_EQ_U64(vi.nbytes, 12);
    TPT_EQ_U64(mi.planned_bytes, 80);
  }
  /* named data: the weight under its sha256 and "extra" */
  TPT_STATUS(tp_pte_named_at(&f, 0, &key, &si, &data, &nbytes), TP_OK);
  TPT_EQ_INT(strlen(key), 64);
  TPT_EQ_INT(si, 3);
  TPT_EQ_U64(nbytes, 256);
  {
    unsigned char le[256];
    le_floats(g_storage + 64, 64, le);
    TPT_MEMEQ(data, le, 256);
  }
  TPT_STATUS(tp_pte_named_at(&f, 1, &key, &si, &data, &nbytes), TP_OK);
  TPT_EQ_STR(key, "extra");
  TPT_EQ_INT(si, 4);
  TPT_EQ_U64(nbytes, 5);
  TPT_MEMEQ(data, raw, 5);
  TPT_EQ_U64(((const unsigned char *)data - mb.data) % 256, 0);
  TPT_STATUS(tp_pte_named_at(&f, 2, &key, &si, &data, &nbytes), TP_ERR_INVALID);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

/* ---- refusals --------------------------------------------------------------------------- */

#define EXPECT_ADD(m, status, sentence)                                                        \
  do {                                                                                         \
    tp_pte *p_ = NULL;                                                                         \
    tp_pte_method m_ = (m);                                                                    \
    TPT_STATUS(tp_pte_create(NULL, &p_), TP_OK);                                               \
    TPT_STATUS(tp_pte_add_method(p_, &m_), status);                                            \
    TPT_EQ_STR(tp_pte_error(p_), sentence);                                                    \
    TPT_STATUS(tp_pte_status(p_), status);                                                     \
    m_ = plain_method("later", 2); /* latched: later building calls return it */               \
    TPT_STATUS(tp_pte_add_method(p_, &m_), status);                                            \
    TPT_EQ_INT(tp_pte_method_count(p_), 0);                                                    \
    tp_pte_destroy(p_);                                                                        \
  } while (0)

static tp_pte_method with_name(const char *n) { return plain_method(n, 2); }
static tp_pte_method with_backend(const char *b) {
  tp_pte_method m = plain_method("forward", 2);
  m.backend_id = b;
  return m;
}

static void test_add_refusals(void) {
  tp_pte_method m;
  tp_pte_compile_spec sp;
  tp_pte *p = NULL;

  EXPECT_ADD(with_name(NULL), TP_ERR_INVALID, "method 0: the name is empty");
  EXPECT_ADD(with_name(""), TP_ERR_INVALID, "method 0: the name is empty");
  EXPECT_ADD(with_backend(""), TP_ERR_INVALID, "method \"forward\": the backend id is empty");
  EXPECT_ADD(with_backend(NULL), TP_ERR_INVALID, "method \"forward\": the backend id is empty");
  m = plain_method("forward", 2);
  m.produce = NULL;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": NULL blob producer");
  m = plain_method("forward", 2);
  m.blob_size = 0;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": blob size 0");
  m = plain_method("forward", 2);
  m.args = NULL;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": NULL args with 2 arguments");
  m = plain_method("forward", 2);
  m.n_args = TP_PTE_MAX_ARGS + 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": 65537 arguments (at most 65536)");
  m = plain_method("forward", 2);
  g_args[1].role = 4;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\" argument 1: role 4 is not TP_PTE_INPUT "
             "and/or TP_PTE_OUTPUT");
  m = plain_method("forward", 2);
  g_args[0].role = 0;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\" argument 0: role 0 is not TP_PTE_INPUT "
             "and/or TP_PTE_OUTPUT");
  m = plain_method("forward", 2);
  g_args[1].dtype = (tp_dtype)9;
  EXPECT_ADD(m, TP_ERR_UNSUPPORTED, "method \"forward\" argument 1: dtype 9 has no ScalarType "
             "tensorpack writes");
  m = plain_method("forward", 2);
  g_args[1].ndim = TP_MAX_DIMS + 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\" argument 1: 17 dims (0 .. 16)");
  m = plain_method("forward", 2);
  g_args[1].sizes[1] = -1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\" argument 1: size -1 at dim 1");
  m = plain_method("forward", 2);
  g_args[0].sizes[0] = (int64_t)INT32_MAX + 1;
  EXPECT_ADD(m, TP_ERR_UNSUPPORTED, "method \"forward\" argument 0: dim 0 has size 2147483648; "
             "a program holds int32 sizes");
  m = plain_method("forward", 2);
  g_args[0].ndim = 4;
  g_args[0].sizes[0] = g_args[0].sizes[1] = g_args[0].sizes[2] = g_args[0].sizes[3] = INT32_MAX;
  EXPECT_ADD(m, TP_ERR_OVERFLOW, "method \"forward\" argument 0: element count overflows");
  m = plain_method("forward", 2);
  g_args[0].ndim = 2;
  g_args[0].sizes[0] = g_args[0].sizes[1] = INT32_MAX; /* 2^62 elements x 4 bytes */
  EXPECT_ADD(m, TP_ERR_OVERFLOW, "method \"forward\" argument 0: byte count overflows");
  m = plain_method("forward", 2);
  g_args[1].dim_order[0] = 1;
  g_args[1].dim_order[1] = 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\" argument 1: dim_order is not a permutation "
             "of 0..1 (entry 1 is 1)");
  m = plain_method("forward", 2);
  sp.key = "";
  sp.value = NULL;
  sp.nbytes = 0;
  m.specs = &sp;
  m.n_specs = 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": compile spec 0 has an empty key");
  m = plain_method("forward", 2);
  sp.key = "k";
  sp.nbytes = 3;
  m.specs = &sp;
  m.n_specs = 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": compile spec \"k\" has NULL bytes with 3 "
             "bytes");
  m = plain_method("forward", 2);
  m.specs = NULL;
  m.n_specs = 1;
  EXPECT_ADD(m, TP_ERR_INVALID, "method \"forward\": NULL specs with 1 compile specs");

  /* a repeated name */
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  m = plain_method("forward", 2);
  TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
  TPT_EQ_STR(tp_pte_error(p), "");
  m = plain_method("forward", 2);
  TPT_STATUS(tp_pte_add_method(p, &m), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": the name is already method 0's");
  TPT_EQ_INT(tp_pte_method_count(p), 1);
  {
    uint64_t size = 1;
    tp_membuf mb;
    TPT_STATUS(tp_pte_size(p, &size), TP_ERR_INVALID); /* a failed program does not write */
    TPT_EQ_U64(size, 0);
    TPT_STATUS(write_mem(p, &mb), TP_ERR_INVALID);
    TPT_EQ_INT(mb.size, 0);
    tp_membuf_free(&mb);
  }
  tp_pte_destroy(p);
  TPT_STATUS(tp_pte_add_method((p = NULL, tp_pte_create(NULL, &p), p), NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "tp_pte_add_method: NULL method");
  tp_pte_destroy(p);

  /* too many methods */
  {
    char name[16];
    int i;
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    for (i = 0; i < TP_PTE_MAX_METHODS; i++) {
      m = plain_method(name, 1);
      snprintf(name, sizeof name, "m%d", i);
      if (tp_pte_add_method(p, &m) != TP_OK) break;
    }
    TPT_EQ_INT(i, TP_PTE_MAX_METHODS);
    m = plain_method("one_more", 1);
    TPT_STATUS(tp_pte_add_method(p, &m), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_error(p), "method \"one_more\": a program holds at most 1024 methods");
    tp_pte_destroy(p);
  }

  /* create's refusals; no method at all */
  {
    tp_pte_options o;
    uint64_t size = 0;
    memset(&o, 0, sizeof o);
    o.alignment = 48;
    TPT_STATUS(tp_pte_create(&o, &p), TP_ERR_INVALID);
    TPT_CHECK(p == NULL);
    o.alignment = (size_t)1 << 25;
    TPT_STATUS(tp_pte_create(&o, &p), TP_ERR_INVALID);
    TPT_STATUS(tp_pte_create(NULL, NULL), TP_ERR_INVALID);
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(tp_pte_size(p, &size), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_error(p), "the program has no method (add one with tp_pte_add_method)");
    TPT_STATUS(tp_pte_status(p), TP_ERR_INVALID); /* the size call's, until the next one */
    TPT_STATUS(tp_pte_size(p, NULL), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_error(p), "tp_pte_size: size_out is NULL");
    TPT_STATUS(tp_pte_write(p, NULL), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_error(p), "tp_pte_write: the sink or its write callback is NULL");
    m = plain_method("forward", 2);
    TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
    TPT_STATUS(tp_pte_size(p, &size), TP_OK); /* fixed: the retry succeeds, no sentence left */
    TPT_EQ_STR(tp_pte_error(p), "");
    tp_pte_destroy(p);
  }
}

/* XNNPACK-specific refusals. */
static void test_xnn_refusals(void) {
  tp_pte *p = NULL;
  tp_xnn_graph *g = NULL;
  size_t d2[2] = {2, 8};
  uint32_t a, b, c;

  /* a gap in the external ids: input 0, output 2 */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 2, TP_XNN_FLAG_EXTERNAL_OUTPUT, &b);
  tp_xnn_define_abs(g, a, b, 0);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": external ids are not dense 0 .. 1: 2 "
             "externals, the largest id is 2 and id 1 is missing");
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* an external that is neither input nor output */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 1, 0, &b);
  tp_xnn_define_abs(g, a, b, 0);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": value 1 (external id 1) is neither an "
             "external input nor an external output");
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* an external whose datatype has no ScalarType: a dynamically quantized output (fp32 ->
     qdint8 is a convert ExecuTorch's XNNPACK has; qdint8 -> fp32 is not) */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, d2, 1,
                                                   TP_XNN_FLAG_EXTERNAL_OUTPUT, &b);
  TPT_STATUS(tp_xnn_define_convert(g, a, b, 0), TP_OK);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": value 1 (external id 1) has datatype qdint8, "
             "which has no ScalarType");
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* a graph that failed */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  TPT_CHECK(tp_xnn_define_abs(g, a, 77, 0) != TP_OK);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), tp_xnn_graph_status(g));
  TPT_CONTAINS(tp_pte_error(p), "method \"forward\": the XNNPACK graph failed: ");
  TPT_CONTAINS(tp_pte_error(p), tp_xnn_graph_error(g));
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* a graph the blob's size refuses (an external output no node writes: not latched) */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &b);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": sizing the XNNPACK blob failed: value 0: "
             "external input (external id 0) is read by no node");
  tp_pte_destroy(p);
  TPT_STATUS(tp_xnn_define_abs(g, a, b, 0), TP_OK); /* the graph goes on */
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* an empty name through the backend call */
  g = seed_linear(NULL);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "", g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method 0: the name is empty");
  tp_pte_destroy(p);
  /* fp16 and mixed roles: both-role external, dtype map */
  tp_xnn_graph_destroy(g);
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP16, 2, d2, NULL, 1, TP_XNN_FLAG_EXTERNAL_INPUT, &a);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0, TP_XNN_FLAG_EXTERNAL_OUTPUT, &b);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 2, TP_XNN_FLAG_EXTERNAL_OUTPUT, &c);
  tp_xnn_define_convert(g, a, b, 0);
  tp_xnn_define_abs(g, b, c, 0);
  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "mixed", g), TP_OK);
  {
    tp_membuf mb;
    tp_pte_file f;
    tp_pte_value_info vi;
    size_t v;
    TPT_STATUS(write_mem(p, &mb), TP_OK);
    TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
    TPT_STATUS(tp_pte_value_at(&f, 0, 0, &vi), TP_OK); /* external id 0: the fp32 output */
    TPT_EQ_INT(vi.scalar_type, TP_F32);
    TPT_STATUS(tp_pte_value_at(&f, 0, 1, &vi), TP_OK); /* external id 1: the fp16 input */
    TPT_EQ_INT(vi.scalar_type, TP_F16);
    TPT_EQ_U64(vi.memory_offset, 64);
    TPT_STATUS(tp_pte_io_at(&f, 0, 0, 0, &v), TP_OK);
    TPT_EQ_INT(v, 1);
    TPT_STATUS(tp_pte_io_at(&f, 0, 1, 0, &v), TP_OK);
    TPT_EQ_INT(v, 0);
    TPT_STATUS(tp_pte_io_at(&f, 0, 1, 1, &v), TP_OK);
    TPT_EQ_INT(v, 2);
    tp_membuf_free(&mb);
  }
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
}

/* The Vulkan call: inputs then outputs, staging dtypes, compile specs. */
static void test_vulkan_method(void) {
  static float wt[4 * 8];
  int64_t sz[2] = {4, 8};
  tp_storage st;
  tp_tensor w;
  tp_vk_graph *g = NULL;
  tp_pte *p = NULL;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4};
  uint32_t x, wid, bias, y, args[4];
  tp_vk_compile_specs cs;
  tp_membuf mb, blob;
  tp_sink bs;
  tp_pte_file f;
  tp_pte_delegate_info di;
  tp_pte_value_info vi;
  tp_vk_options vo;
  const char *key;
  const void *val;
  size_t nb;
  st.data = wt;
  st.nbytes = sizeof wt;
  tp_view(st, TP_F32, 2, sz, NULL, 0, &w, NULL);
  memset(&vo, 0, sizeof vo);
  vo.force_fp16 = 1;
  tp_vk_graph_create(&vo, &g);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &x);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &wid);
  tp_vk_add_null(g, &bias);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &y);
  args[0] = x;
  args[1] = wid;
  args[2] = bias;
  args[3] = y;
  tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &x, 1, &y, 1);
  tp_pte_create(NULL, &p);
  memset(&cs, 0, sizeof cs);
  cs.storage = TP_VK_STORAGE_BUFFER; /* written as storage_type_override 0 */
  { /* the first allocation failure in sizing the blob: refused, not latched in the graph */
    long k;
    int said = 0;
    for (k = 0; k < 100 && !said; k++) {
      tp_pte *q = NULL;
      tp_status s;
      tp_pte_create(NULL, &q);
      g_fail_at = k;
      s = tp_vk_add_pte_method(q, "forward", g, &cs);
      g_fail_at = -1;
      said = strstr(tp_pte_error(q), "sizing") != NULL;
      if (said) {
        TPT_STATUS(s, TP_ERR_NOMEM);
        TPT_EQ_STR(tp_pte_error(q), "method \"forward\": sizing the Vulkan blob failed: graph: "
                   "cannot create a flatbuffer builder");
      }
      tp_pte_destroy(q);
    }
    TPT_CHECK(said);
  }
  TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, &cs), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  memset(&blob, 0, sizeof blob);
  bs = tp_sink_membuf(&blob);
  TPT_STATUS(tp_vk_write(g, &bs), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "VulkanBackend");
  TPT_EQ_U64(di.nbytes, blob.size);
  TPT_MEMEQ(di.data, blob.data, blob.size);
  TPT_EQ_INT(di.n_specs, 1);
  TPT_STATUS(tp_pte_compile_spec_at(&f, 0, 0, 0, &key, &val, &nb), TP_OK);
  TPT_EQ_STR(key, "storage_type_override");
  TPT_EQ_U64(nb, 4);
  TPT_MEMEQ(val, "\0\0\0\0", 4); /* BUFFER: the schema's 0 */
  TPT_STATUS(tp_pte_value_at(&f, 0, 0, &vi), TP_OK);
  TPT_EQ_INT(vi.scalar_type, TP_F32); /* force_fp16: the tensor is FLOAT16, staged FLOAT32 */
  TPT_EQ_INT(vi.sizes[1], 8);
  TPT_STATUS(tp_pte_value_at(&f, 0, 1, &vi), TP_OK);
  TPT_EQ_INT(vi.sizes[1], 4);
  tp_membuf_free(&mb);
  tp_membuf_free(&blob);
  tp_pte_destroy(p);

  /* refusals: an input that is not a tensor; a failed graph */
  tp_pte_create(NULL, &p);
  tp_vk_set_io(g, &bias, 1, &y, 1);
  TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, NULL), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": Vulkan input 0 (value 2) is not a tensor");
  tp_pte_destroy(p);
  tp_pte_create(NULL, &p);
  args[0] = 999; /* no such value: the graph fails */
  TPT_CHECK(tp_vk_add_op(g, 0, "aten.abs.default", args, 1) != TP_OK);
  TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, NULL), tp_vk_graph_status(g));
  TPT_CONTAINS(tp_pte_error(p), "method \"forward\": the Vulkan graph failed: ");
  tp_pte_destroy(p);
  tp_vk_graph_destroy(g);
}

/* tp_vk_pte_missing_keys, the sibling of tp_xnn_pte_missing_keys: a named-mode Vulkan method
   whose store is not embedded needs its keys from a .ptd (each once, in value order, however
   often a constant is used); none with the .ptd or the store embedded; only Vulkan delegates
   are read (an XNNPACK method beside it is tp_xnn_pte_missing_keys'); the refusals' sentences. */
static tp_vk_graph *named_vk_linear(tp_store *st, float *wt, float *bt, uint32_t *ids) {
  int64_t wsz[2] = {4, 8}, bsz[1] = {4};
  tp_storage sw, sb;
  tp_tensor w, b;
  tp_vk_options vo;
  tp_vk_graph *g = NULL;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4}, i;
  uint32_t x, y, args[4];
  for (i = 0; i < 32; i++) wt[i] = (float)i * 0.5f - 1.0f;
  for (i = 0; i < 4; i++) bt[i] = (float)i + 100.0f;
  sw.data = wt;
  sw.nbytes = 32 * sizeof(float);
  sb.data = bt;
  sb.nbytes = 4 * sizeof(float);
  tp_view(sw, TP_F32, 2, wsz, NULL, 0, &w, NULL);
  tp_view(sb, TP_F32, 1, bsz, NULL, 0, &b, NULL);
  memset(&vo, 0, sizeof vo);
  vo.store = st;
  if (tp_vk_graph_create(&vo, &g) != TP_OK) return NULL;
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &x);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &ids[0]);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 1, NULL, &b, &ids[1]);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &ids[2]); /* again */
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, yd, NULL, &y);
  args[0] = x;
  args[1] = ids[0];
  args[2] = ids[1];
  args[3] = y;
  tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &x, 1, &y, 1);
  return g;
}

static void test_vk_missing_keys(void) {
  static float wt[32], bt[4];
  tp_store *st = NULL, *xst = NULL;
  tp_vk_graph *g;
  tp_xnn_graph *xg;
  tp_pte *p = NULL;
  tp_pte_options po;
  tp_pte_file f;
  tp_ptd pd;
  tp_membuf mb, ptd;
  tp_sink sink;
  tp_error e;
  const char *keys[4];
  uint32_t ids[3];
  size_t n = 99;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  g = named_vk_linear(st, wt, bt, ids);
  TPT_CHECK(g != NULL);
  TPT_STATUS(tp_vk_graph_status(g), TP_OK);
  TPT_EQ_STR(tp_vk_constant_key(g, ids[0]), tp_vk_constant_key(g, ids[2])); /* one key */
  /* not embedded: the two keys, in value order, each once */
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, NULL), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  tp_pte_destroy(p);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_vk_pte_missing_keys(&f, (size_t)-1, NULL, keys, 4, &n, &e), TP_OK);
  TPT_EQ_U64(n, 2);
  if (n == 2) {
    TPT_EQ_STR(keys[0], tp_vk_constant_key(g, ids[0]));
    TPT_EQ_STR(keys[1], tp_vk_constant_key(g, ids[1]));
    TPT_CHECK((const unsigned char *)keys[0] > mb.data &&
              (const unsigned char *)keys[0] < mb.data + mb.size); /* into f's bytes */
  }
  keys[1] = NULL; /* cap 1: one listed, both counted; keys NULL: counted only */
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 0, NULL, keys, 1, &n, &e), TP_OK);
  TPT_EQ_U64(n, 2);
  TPT_CHECK(keys[1] == NULL);
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 0, NULL, NULL, 0, &n, &e), TP_OK);
  TPT_EQ_U64(n, 2);
  /* the XNNPACK sibling reads no Vulkan delegate */
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 0, NULL, NULL, 0, &n, &e), TP_OK);
  TPT_EQ_U64(n, 0);
  /* with the .ptd: nothing missing */
  memset(&ptd, 0, sizeof ptd);
  sink = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(tp_ptd_open(&pd, ptd.data, ptd.size), TP_OK);
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 0, &pd, keys, 4, &n, &e), TP_OK);
  TPT_EQ_U64(n, 0);
  /* refusals */
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 0, NULL, keys, 4, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_vk_pte_missing_keys: count is NULL");
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 1, NULL, keys, 4, &n, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "method 1 of a program with 1");
  tp_membuf_free(&mb);

  /* embedded, beside an XNNPACK method whose store is not: each sibling lists its own */
  TPT_STATUS(tp_store_create(NULL, &xst), TP_OK);
  xg = seed_linear(xst);
  TPT_CHECK(xg != NULL);
  memset(&po, 0, sizeof po);
  po.embed = st;
  TPT_STATUS(tp_pte_create(&po, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "x", xg), TP_OK);
  TPT_STATUS(tp_vk_add_pte_method(p, "v", g, NULL), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  tp_pte_destroy(p);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_vk_pte_missing_keys(&f, (size_t)-1, NULL, keys, 4, &n, &e), TP_OK);
  TPT_EQ_U64(n, 0);
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, (size_t)-1, NULL, keys, 4, &n, &e), TP_OK);
  TPT_EQ_U64(n, 1);
  TPT_STATUS(tp_xnn_pte_missing_keys(&f, 1, NULL, keys, 4, &n, &e), TP_OK);
  TPT_EQ_U64(n, 0);
  TPT_STATUS(tp_vk_pte_missing_keys(&f, 2, NULL, keys, 4, &n, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "method 2 of a program with 2");
  tp_membuf_free(&mb);
  tp_xnn_graph_destroy(xg);
  tp_store_destroy(xst);

  /* a "VulkanBackend" delegate that is no Vulkan blob: refused with tp_vk_check_blob's
     sentence after the method and delegate */
  {
    tp_pte_method m = plain_method("bad", 2);
    tp_error ce;
    char want[TP_ERROR_MAX + 40];
    unsigned char garbage[100];
    uint64_t k;
    m.backend_id = "VulkanBackend";
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
    TPT_STATUS(write_mem(p, &mb), TP_OK);
    tp_pte_destroy(p);
    for (k = 0; k < sizeof garbage; k++) garbage[k] = (unsigned char)(k * 7u + 1u);
    TPT_STATUS(tp_vk_check_blob(garbage, sizeof garbage, NULL, &ce), TP_ERR_FORMAT);
    snprintf(want, sizeof want, "method \"bad\" delegate 0: %s", ce.msg);
    TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
    TPT_STATUS(tp_vk_pte_missing_keys(&f, 0, NULL, NULL, 0, &n, &e), TP_ERR_FORMAT);
    TPT_EQ_STR(e.msg, want);
    TPT_EQ_U64(n, 0);
    tp_membuf_free(&mb);
  }
  tp_membuf_free(&ptd);
  tp_vk_graph_destroy(g);
  tp_store_destroy(st);
}

/* ---- writes that fail ------------------------------------------------------------------- */

typedef struct fail_sink {
  tp_membuf mb;
  size_t budget;
} fail_sink;

static tp_status fail_write(void *ctx, const void *data, size_t n) {
  fail_sink *f = (fail_sink *)ctx;
  tp_sink inner;
  if (n > f->budget) return TP_ERR_IO;
  f->budget -= n;
  inner = tp_sink_membuf(&f->mb);
  return inner.write(inner.ctx, data, n);
}

static uint64_t g_short_n = 100;
static tp_status short_produce(void *ctx, tp_sink *sink) {
  (void)ctx;
  return pattern_produce(&g_short_n, sink);
}

static void test_write_failures(void) {
  tp_xnn_graph *g = seed_linear(NULL);
  tp_pte *p = NULL;
  tp_membuf good;
  uint64_t size = 0;
  size_t cut;
  char path[128], tmp[160];
  tp_pte_method m;
  FILE *fp;

  tp_pte_create(NULL, &p);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  TPT_STATUS(tp_pte_size(p, &size), TP_OK);
  TPT_STATUS(write_mem(p, &good), TP_OK);
  /* a sink that fails after `cut` bytes: always an error with a sentence, never latched */
  for (cut = 0; cut < (size_t)size; cut += 37) {
    fail_sink fs;
    tp_sink s;
    tp_status st;
    char want[160];
    memset(&fs, 0, sizeof fs);
    fs.budget = cut;
    s.write = fail_write;
    s.ctx = &fs;
    st = tp_pte_write(p, &s);
    TPT_STATUS(st, TP_ERR_IO);
    snprintf(want, sizeof want, "tp_pte_write: the sink failed (i/o error) at byte %llu of %llu",
             (unsigned long long)fs.mb.size, (unsigned long long)size);
    TPT_EQ_STR(tp_pte_error(p), want); /* also when the blob's producer met the failure */
    TPT_STATUS(tp_pte_status(p), TP_ERR_IO); /* until the next size / write call */
    tp_membuf_free(&fs.mb);
  }
  {
    fail_sink fs;
    tp_sink s;
    memset(&fs, 0, sizeof fs);
    fs.budget = 100; /* inside the flatbuffer */
    s.write = fail_write;
    s.ctx = &fs;
    TPT_STATUS(tp_pte_write(p, &s), TP_ERR_IO);
    TPT_EQ_U64(fs.mb.size, 40); /* the 8 + 32 bytes before the flatbuffer's body */
    TPT_CONTAINS(tp_pte_error(p), "tp_pte_write: the sink failed (i/o error) at byte 40 of ");
    tp_membuf_free(&fs.mb);
    memset(&fs, 0, sizeof fs);
    fs.budget = (size_t)size - 1; /* inside the blob */
    s.ctx = &fs;
    TPT_STATUS(tp_pte_write(p, &s), TP_ERR_IO);
    TPT_CONTAINS(tp_pte_error(p), "tp_pte_write: the sink failed (i/o error) at byte ");
    tp_membuf_free(&fs.mb);
  }
  {
    tp_membuf again; /* a retry succeeds with the same bytes */
    TPT_STATUS(write_mem(p, &again), TP_OK);
    TPT_EQ_STR(tp_pte_error(p), "");
    TPT_EQ_U64(again.size, good.size);
    TPT_MEMEQ(again.data, good.data, good.size);
    tp_membuf_free(&again);
  }
  /* atomic file: a missing directory names the path, leaves nothing; a retry succeeds */
  snprintf(path, sizeof path, "/tmp/tp_test_pte_%ld/no/such/dir/x.pte", (long)getpid());
  TPT_STATUS(tp_pte_write_file(p, path), TP_ERR_IO);
  TPT_CONTAINS(tp_pte_error(p), path);
  TPT_CONTAINS(tp_pte_error(p), "cannot create a temporary file beside \"");
  TPT_STATUS(tp_pte_write_file(p, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "tp_pte_write_file: the path is NULL or empty");
  snprintf(path, sizeof path, "/tmp/tp_test_pte_%ld.pte", (long)getpid());
  TPT_STATUS(tp_pte_write_file(p, path), TP_OK);
  TPT_EQ_STR(tp_pte_error(p), "");
  fp = fopen(path, "rb");
  TPT_CHECK(fp != NULL);
  if (fp) {
    unsigned char *buf = (unsigned char *)malloc(good.size + 1);
    size_t got = fread(buf, 1, good.size + 1, fp);
    TPT_EQ_U64(got, good.size);
    TPT_MEMEQ(buf, good.data, good.size);
    free(buf);
    fclose(fp);
  }
  remove(path);
  tp_pte_destroy(p);

  /* a producer that streams fewer bytes than it announced; in a file nothing stays behind */
  tp_pte_create(NULL, &p);
  m = plain_method("forward", 2);
  m.blob_size = 101;
  m.produce = short_produce;
  TPT_STATUS(tp_pte_add_method(p, &m), TP_OK);
  TPT_STATUS(tp_pte_write_file(p, path), TP_ERR_INVALID);
  { /* the program's own sentence, said of the file (the writer core) */
    char want[400];
    snprintf(want, sizeof want, "tp_pte_write_file: writing \"%s\": method \"forward\": the "
             "producer streamed 100 bytes, the blob size is 101; no file was left", path);
    TPT_EQ_STR(tp_pte_error(p), want);
  }
  TPT_CHECK(access(path, F_OK) != 0);
  snprintf(tmp, sizeof tmp, "%s.tmp.0", path);
  TPT_CHECK(access(tmp, F_OK) != 0);
  g_short_n = 101; /* fixed: the retry succeeds */
  TPT_STATUS(tp_pte_write_file(p, path), TP_OK);
  TPT_EQ_STR(tp_pte_error(p), "");
  remove(path);
  g_short_n = 100;
  tp_pte_destroy(p);

  /* the embedded store's failure */
  {
    tp_store *st = NULL;
    tp_pte_options o;
    uint64_t sz = 0;
    tp_store_create(NULL, &st);
    TPT_CHECK(tp_store_add_bytes(st, "k", "a", 1, 3, 0, NULL) != TP_OK);
    memset(&o, 0, sizeof o);
    o.embed = st;
    tp_pte_create(&o, &p);
    m = plain_method("forward", 2);
    tp_pte_add_method(p, &m);
    TPT_STATUS(tp_pte_size(p, &sz), TP_ERR_INVALID);
    TPT_CONTAINS(tp_pte_error(p), "the embedded store failed: key \"k\": alignment 3");
    tp_pte_destroy(p);
    tp_store_destroy(st);
  }
  tp_membuf_free(&good);
  tp_xnn_graph_destroy(g);
}

/* ---- the reader ------------------------------------------------------------------------- */

static tp_membuf seed_program(void) {
  tp_xnn_graph *g = seed_linear(NULL);
  tp_pte *p = NULL;
  tp_membuf mb;
  tp_pte_create(NULL, &p);
  tp_xnn_add_pte_method(p, "forward", g);
  write_mem(p, &mb);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  return mb;
}

/* Position of plan 0's vector field `id` (the first element) in a program, via the reader. */
static uint32_t plan_vector_pos(const tp_membuf *mb, uint16_t id) {
  tp_fb_reader r;
  tp_fb_table root, plan;
  tp_fb_vector plans, v;
  memset(&r, 0, sizeof r);
  tp_fb_reader_init(&r, mb->data, mb->size, "ET12", &root);
  plans = tp_fb_vector_field(&root, TP_PTE_F_Program_execution_plan, 4);
  plan = tp_fb_vector_table(&plans, 0);
  v = tp_fb_vector_field(&plan, id, 4);
  return v.pos;
}

static void test_reader_checks(void) {
  tp_membuf mb = seed_program();
  tp_pte_file f;
  uint32_t pos;
  unsigned char save[4];

  /* an output index the loader would accept and crash on at execute (254) */
  pos = plan_vector_pos(&mb, TP_PTE_F_ExecutionPlan_outputs);
  TPT_CHECK(pos != 0);
  memcpy(save, mb.data + pos, 4);
  tp__put_le32(mb.data + pos, 254);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_ERR_FORMAT);
  TPT_EQ_STR(f.err.msg, "method 0 outputs: entry 0 is value 254, but there are 2 values");
  memcpy(mb.data + pos, save, 4);
  /* the chain's outputs share the plan's vector; the call's args do not */
  {
    tp_pte_file ok;
    tp_pte_instruction_info ii;
    TPT_STATUS(tp_pte_read(&ok, mb.data, mb.size), TP_OK);
    TPT_STATUS(tp_pte_instruction_at(&ok, 0, 0, 0, &ii), TP_OK);
    pos = ii.args.pos;
    tp__put_le32(mb.data + pos + 4, 7);
    TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_ERR_FORMAT);
    TPT_EQ_STR(f.err.msg, "method 0 instruction 0: entry 1 is value 7, but there are 2 values");
    tp__put_le32(mb.data + pos + 4, 1);
  }
  /* short, wrong identifier, truncated segments */
  TPT_STATUS(tp_pte_read(&f, mb.data, 63), TP_ERR_FORMAT);
  TPT_EQ_STR(f.err.msg, "63 bytes: shorter than the 64 bytes the loader reads first");
  mb.data[7] = '3';
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_ERR_FORMAT);
  TPT_EQ_STR(f.err.msg, "file identifier is not ET12");
  mb.data[7] = '2';
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size - 1), TP_ERR_FORMAT);
  TPT_CONTAINS(f.err.msg, "segment base ");
  TPT_CONTAINS(f.err.msg, "exceeds the file's");
  TPT_STATUS(tp_pte_read(&f, NULL, 5), TP_ERR_INVALID);
  /* accessors on a failed open return its status */
  {
    tp_pte_method_info mi;
    TPT_STATUS(tp_pte_read(&f, mb.data, 10), TP_ERR_FORMAT);
    TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_ERR_FORMAT);
  }
  tp_membuf_free(&mb);
}

/* Every truncation and every single-byte change: refused with a sentence, or read; every
   accessor then works; no crash (ASan). */
static void walk(tp_pte_file *f) {
  size_t m, v, k, c, n;
  for (m = 0; m < f->n_methods; m++) {
    tp_pte_method_info mi;
    if (tp_pte_method_at(f, m, &mi) != TP_OK) continue;
    for (v = 0; v < mi.n_values; v++) {
      tp_pte_value_info vi;
      TPT_STATUS(tp_pte_value_at(f, m, v, &vi), TP_OK);
    }
    for (k = 0; k < mi.n_delegates; k++) {
      tp_pte_delegate_info di;
      TPT_STATUS(tp_pte_delegate_at(f, m, k, &di), TP_OK);
    }
    for (c = 0; c < mi.n_chains; c++) {
      TPT_STATUS(tp_pte_chain_size(f, m, c, &n), TP_OK);
      for (k = 0; k < n; k++) {
        tp_pte_instruction_info ii;
        TPT_STATUS(tp_pte_instruction_at(f, m, c, k, &ii), TP_OK);
      }
    }
  }
}

static void test_truncation_and_flips(void) {
  tp_store *st = NULL;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_xnn_graph *g;
  tp_membuf mb;
  tp_pte_file f;
  size_t i, read_ok = 0, refused = 0;
  int bit;
  tp_store_create(NULL, &st);
  g = seed_linear(st);
  memset(&o, 0, sizeof o);
  o.embed = st;
  tp_pte_create(&o, &p);
  tp_xnn_add_pte_method(p, "forward", g);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  for (i = 0; i < mb.size; i++) {
    unsigned char *copy = (unsigned char *)malloc(i ? i : 1);
    memcpy(copy, mb.data, i);
    TPT_STATUS(tp_pte_read(&f, copy, i), TP_ERR_FORMAT);
    TPT_CHECK(f.err.msg[0] != '\0');
    free(copy);
  }
  for (i = 0; i < mb.size; i++) {
    for (bit = 0; bit < 8; bit += 3) {
      tp_status s;
      mb.data[i] ^= (unsigned char)(1u << bit);
      s = tp_pte_read(&f, mb.data, mb.size);
      if (s == TP_OK) {
        read_ok++;
        walk(&f);
      } else {
        refused++;
        TPT_STATUS(s, TP_ERR_FORMAT);
        TPT_CHECK(f.err.msg[0] != '\0');
      }
      mb.data[i] ^= (unsigned char)(1u << bit);
    }
  }
  TPT_CHECK(read_ok > 0 && refused > 0);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

/* A refusal for want of memory says so, and where: the method and its stage, or the writer's
   table, or the sink's byte (the sentences as the allocation-failure loop below meets them). */
static int nomem_sentence(const char *m) {
  static const char *const starts[] = {"method \"forward\"", "method \"aux\"",
                                       "tp_pte_write: the sink failed (out of memory) at byte ",
                                       "no memory for "};
  size_t i;
  if (!strstr(m, "no memory") && !strstr(m, "out of memory")) return 0;
  for (i = 0; i < sizeof starts / sizeof starts[0]; i++)
    if (!strncmp(m, starts[i], strlen(starts[i]))) return 1;
  return 0;
}

/* Every allocation failing in turn: TP_ERR_NOMEM (or success) with its sentence, no leak, no
   crash. */
static void test_alloc_failures(void) {
  long k;
  int finished = 0;
  for (k = 0; k < 400 && !finished; k++) {
    tp_store *st = NULL;
    tp_xnn_graph *g;
    tp_pte *p = NULL;
    tp_pte_options o;
    tp_pte_method m;
    tp_membuf mb;
    tp_status s1, s2 = TP_ERR_NOMEM, s3 = TP_ERR_NOMEM;
    uint64_t size = 0;
    size_t live0 = g_live;
    tp_store_create(NULL, &st);
    g = seed_linear(st);
    g_fail_at = k;
    memset(&o, 0, sizeof o);
    o.embed = st;
    s1 = tp_pte_create(&o, &p);
    if (s1 == TP_OK) {
      s1 = tp_xnn_add_pte_method(p, "forward", g);
      m = plain_method("aux", 3);
      if (s1 == TP_OK) s1 = tp_pte_add_method(p, &m);
      s2 = tp_pte_size(p, &size);
      s3 = write_mem(p, &mb);
      if (s2 == TP_OK && s3 == TP_OK) TPT_EQ_U64(mb.size, size);
      if (s3 != TP_OK && !nomem_sentence(tp_pte_error(p))) TPT_EQ_STR(tp_pte_error(p), "");
      tp_membuf_free(&mb);
    }
    finished = g_fail_at >= 0; /* the failure was never reached */
    g_fail_at = -1;
    TPT_CHECK(s1 == TP_OK || s1 == TP_ERR_NOMEM);
    TPT_CHECK(s2 == TP_OK || s2 == TP_ERR_NOMEM);
    TPT_CHECK(s3 == TP_OK || s3 == TP_ERR_NOMEM);
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(st);
    TPT_EQ_U64(g_live, live0);
  }
  TPT_CHECK(finished);
}

/* Without an embedded store the program carries an empty named_data table (so ExecuTorch's
   runtime builds its data map and a named constant no .ptd supplies is a NotFound sentence, not
   a crash in its XNNPACK backend); omit_empty_named_data gives the table-less bytes of 0.2.0. */
static int named_table(const tp_membuf *mb, uint32_t *count) {
  tp_fb_reader r;
  tp_fb_table root;
  tp_fb_vector v;
  memset(&r, 0, sizeof r);
  if (tp_fb_reader_init(&r, mb->data, mb->size, "ET12", &root) != TP_OK) return -1;
  v = tp_fb_vector_field(&root, TP_PTE_F_Program_named_data, 4);
  *count = (uint32_t)v.count;
  return v.pos != 0;
}

static void test_empty_named_data(void) {
  tp_xnn_graph *g = seed_linear(NULL);
  tp_pte_options o;
  tp_pte *p = NULL, *q = NULL;
  tp_membuf with, without;
  tp_pte_file f;
  tp_pte_delegate_info di;
  uint64_t size_with = 0, size_without = 0;
  uint32_t count = 99;
  TPT_CHECK(g != NULL);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK); /* defaults: the empty table */
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  TPT_STATUS(tp_pte_size(p, &size_with), TP_OK);
  TPT_STATUS(write_mem(p, &with), TP_OK);
  memset(&o, 0, sizeof o);
  o.omit_empty_named_data = 1;
  TPT_STATUS(tp_pte_create(&o, &q), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(q, "forward", g), TP_OK);
  TPT_STATUS(tp_pte_size(q, &size_without), TP_OK);
  TPT_STATUS(write_mem(q, &without), TP_OK);
  TPT_EQ_U64(with.size, size_with);
  TPT_EQ_U64(without.size, size_without);

  TPT_EQ_INT(named_table(&with, &count), 1);
  TPT_EQ_INT(count, 0);
  TPT_EQ_INT(named_table(&without, &count), 0);
  /* the table costs a few flatbuffer bytes; the blob is the same in both */
  TPT_CHECK(tp__get_le64(with.data + 16) > tp__get_le64(without.data + 16));
  TPT_STATUS(tp_pte_read(&f, with.data, with.size), TP_OK);
  TPT_EQ_INT(f.n_named, 0);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_U64(di.nbytes, 736);
  TPT_STATUS(tp_pte_read(&f, without.data, without.size), TP_OK);
  TPT_EQ_INT(f.n_named, 0);

  /* an embedded store still writes its entries, whatever the option says */
  {
    tp_store *st = NULL;
    tp_xnn_graph *gn;
    tp_pte *r = NULL;
    tp_membuf mb;
    TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
    gn = seed_linear(st);
    o.embed = st;
    TPT_STATUS(tp_pte_create(&o, &r), TP_OK);
    TPT_STATUS(tp_xnn_add_pte_method(r, "forward", gn), TP_OK);
    TPT_STATUS(write_mem(r, &mb), TP_OK);
    TPT_EQ_INT(named_table(&mb, &count), 1);
    TPT_EQ_INT(count, 1);
    tp_membuf_free(&mb);
    tp_pte_destroy(r);
    tp_xnn_graph_destroy(gn);
    tp_store_destroy(st);
  }
  tp_membuf_free(&with);
  tp_membuf_free(&without);
  tp_pte_destroy(p);
  tp_pte_destroy(q);
  tp_xnn_graph_destroy(g);
}

int main(void) {
  TPT_RUN(test_seed_linear_layout);
  TPT_RUN(test_description_table);
  TPT_RUN(test_methods_specs_embed);
  TPT_RUN(test_add_refusals);
  TPT_RUN(test_xnn_refusals);
  TPT_RUN(test_vulkan_method);
  TPT_RUN(test_vk_missing_keys);
  TPT_RUN(test_write_failures);
  TPT_RUN(test_reader_checks);
  TPT_RUN(test_truncation_and_flips);
  TPT_RUN(test_alloc_failures);
  TPT_RUN(test_empty_named_data);
  return tpt_finish("test_pte");
}
