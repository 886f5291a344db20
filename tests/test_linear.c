/* test_linear.c - linear costs (issue 14, findings 10 and 11): the work done by named-mode
   constant defines, the store's adds, tp_ptd_index (with and without duplicate keys) and
   tp_vk_read_blob's key lookups in a .ptd is counted - probes and key comparisons, through the
   TP_COUNT_STEPS counter, not seconds - at N, 2N and 4N, and every doubling must cost less
   than 2.5x (a quadratic scan costs ~4x). Then the
   table budgets: a walk's default budget scales with the buffer, so a 600k-value graph that
   tp_xnn_write produces is read back by tp_xnn_read_blob and judged by tp_xnn_check_blob; a DAG
   of shared tables is still stopped, and its reader sentence ("table budget N exceeded at byte
   P (S-byte buffer)") comes out of tp_xnn_read_blob and tp_xnn_check_blob as itself. */
#include <stdio.h>
#include <stdlib.h>

#define TP_COUNT_STEPS
/* its own implementation: TP_COUNT_STEPS counts inside all three parts */
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#define N0 1000u /* the smallest N; the test runs N0, 2 N0, 4 N0 */
#define MAX_RATIO 2.5

static float *g_vals; /* 4 N0 distinct floats: distinct bytes, distinct sha256 keys */

static tp_tensor scalar_view(size_t i) {
  tp_storage s;
  tp_tensor t;
  int64_t one = 1;
  s.data = g_vals;
  s.nbytes = sizeof(float) * 4 * N0;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, 1, &one, NULL, (int64_t)i, &t), TP_OK);
  return t;
}

/* Steps at N0, 2 N0, 4 N0 must grow less than MAX_RATIO per doubling. */
static void check_growth(const char *what, const unsigned long long steps[3]) {
  int k;
  for (k = 1; k < 3; k++) {
    double ratio = steps[k - 1] ? (double)steps[k] / (double)steps[k - 1] : 1e9;
    if (!(ratio < MAX_RATIO)) {
      char m[200];
      snprintf(m, sizeof m, "%s: %llu -> %llu steps when N doubles (%.2fx, limit %.1fx)", what,
               steps[k - 1], steps[k], ratio, MAX_RATIO);
      tpt_fail_at(__FILE__, __LINE__, m);
    }
  }
  TPT_CHECK(steps[0] > 0);
}

/* Named mode: n distinct constants, then each defined once more (same bytes, same key: one
   constant_data entry shared). Returns the steps of the defines. */
static unsigned long long named_defines(size_t n) {
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  unsigned long long before;
  uint32_t id = 0, first = 0;
  size_t i, one = 1;
  int pass;
  TPT_STATUS(tp_store_create(&st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  o.target = TP_XNN_TARGET_UNCHECKED;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  before = tp__count_steps;
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < n; i++) {
      tp_tensor t = scalar_view(i);
      TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, &t, TP_XNN_INVALID_ID, 0,
                                            &id), TP_OK);
      if (i == 0 && pass == 0) first = id;
    }
  before = tp__count_steps - before;
  TPT_EQ_U64(tp_xnn_graph_num_values(g), 2 * n);
  TPT_EQ_U64(tp_store_count(st), n);     /* one store entry per key */
  TPT_EQ_U64(g->nconsts, n + 1);         /* and one constant_data entry (plus the empty one) */
  TPT_EQ_U64(g->values[first].const_idx, g->values[n].const_idx); /* the repeat shares it */
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
  return before;
}

static void test_named_defines_linear(void) {
  unsigned long long steps[3];
  int k;
  for (k = 0; k < 3; k++) steps[k] = named_defines((size_t)N0 << k);
  check_growth("named-mode defines", steps);
}

/* Store adds: n keyed entries of distinct bytes, then the same n again (found, not added). */
static unsigned long long store_adds(size_t n) {
  tp_store *st = NULL;
  unsigned long long before;
  size_t i;
  char key[32];
  int pass;
  TPT_STATUS(tp_store_create(&st), TP_OK);
  before = tp__count_steps;
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < n; i++) {
      snprintf(key, sizeof key, "w%lu", (unsigned long)i);
      TPT_STATUS(tp_store_add_bytes(st, key, &g_vals[i], sizeof(float), 0, 0, NULL), TP_OK);
    }
  before = tp__count_steps - before;
  TPT_EQ_U64(tp_store_count(st), n);
  tp_store_destroy(st);
  return before;
}

static void test_store_adds_linear(void) {
  unsigned long long steps[3];
  int k;
  for (k = 0; k < 3; k++) steps[k] = store_adds((size_t)N0 << k);
  check_growth("store adds", steps);
}

/* A .ptd of n entries keyed "key_%06lu"; dup: every key then rewritten to "key_000000" in the
   file bytes (tp_ptd_open accepts duplicate keys; tp_store never writes them). */
static unsigned char *ptd_file(size_t n, int dup, size_t *size) {
  tp_store *st = NULL;
  tp_membuf m;
  tp_sink sink;
  size_t i, at;
  char key[32];
  unsigned char *p;
  TPT_STATUS(tp_store_create(&st), TP_OK);
  for (i = 0; i < n; i++) {
    snprintf(key, sizeof key, "key_%06lu", (unsigned long)i);
    TPT_STATUS(tp_store_add_bytes(st, key, &g_vals[i], sizeof(float), 0, 0, NULL), TP_OK);
  }
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  tp_store_destroy(st);
  p = m.data;
  *size = m.size;
  if (dup)
    for (at = 0; at + 11 <= m.size; at++)
      if (memcmp(p + at, "key_", 4) == 0 && p[at + 10] == 0) memset(p + at + 4, '0', 6);
  return p;
}

static unsigned long long ptd_index(size_t n, int dup) {
  size_t size = 0, nslots;
  unsigned char *p = ptd_file(n, dup, &size);
  uint32_t *slots;
  tp_ptd f;
  tp_ptd_entry e, e0, elast;
  unsigned long long before;
  char key[32];
  TPT_STATUS(tp_ptd_open(&f, p, size), TP_OK);
  TPT_EQ_U64(f.count, n);
  nslots = tp_ptd_index_slots(&f);
  slots = (uint32_t *)malloc(nslots * sizeof *slots);
  before = tp__count_steps;
  TPT_STATUS(tp_ptd_index(&f, slots, nslots), TP_OK);
  before = tp__count_steps - before;
  /* lookups through the index: with duplicates the first entry under the key */
  TPT_STATUS(tp_ptd_entry_at(&f, 0, &e0), TP_OK);
  TPT_STATUS(tp_ptd_find(&f, "key_000000", &e), TP_OK);
  TPT_CHECK(e.data == e0.data && e.segment_index == e0.segment_index);
  snprintf(key, sizeof key, "key_%06lu", (unsigned long)(n - 1));
  if (dup) {
    TPT_STATUS(tp_ptd_find(&f, key, &e), TP_ERR_INVALID);
    {
      char want[80];
      snprintf(want, sizeof want, "key \"%s\" is not in the .ptd", key);
      TPT_EQ_STR(tp_ptd_lookup_error(&f), want);
    }
  } else {
    TPT_STATUS(tp_ptd_entry_at(&f, n - 1, &elast), TP_OK);
    TPT_STATUS(tp_ptd_find(&f, key, &e), TP_OK);
    TPT_CHECK(e.data == elast.data);
    TPT_EQ_INT(memcmp(e.data, &g_vals[n - 1], 4), 0);
  }
  free(slots);
  free(p);
  return before;
}

static void test_ptd_index_linear(void) {
  unsigned long long steps[3];
  int k;
  for (k = 0; k < 3; k++) steps[k] = ptd_index((size_t)N0 << k, 0);
  check_growth("tp_ptd_index, distinct keys", steps);
  for (k = 0; k < 3; k++) steps[k] = ptd_index((size_t)N0 << k, 1);
  check_growth("tp_ptd_index, one key repeated", steps);
}

/* tp_vk_read_blob on a named-mode Vulkan graph of n constants: each constant's key is looked
   up in the .ptd (through an index the reader builds for the call, so the caller's tp_ptd is
   left without one). */
static unsigned long long vk_named_read(size_t n) {
  tp_store *st = NULL;
  tp_vk_graph *g = NULL;
  tp_vk_options o;
  tp_membuf blob, ptd;
  tp_sink sink;
  tp_ptd pd;
  tp_vk_blob_value *v = NULL;
  uint32_t count = 0, id = 0;
  tp_error err;
  unsigned long long before;
  size_t i, one = 1;
  TPT_STATUS(tp_store_create(&st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  for (i = 0; i < n; i++) {
    tp_tensor t = scalar_view(i);
    TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 1, &one, &t, -1, -1, -1, TP_VK_UNSET, &id),
               TP_OK);
  }
  memset(&blob, 0, sizeof blob);
  memset(&ptd, 0, sizeof ptd);
  sink = tp_sink_membuf(&blob);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  sink = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(tp_ptd_open(&pd, ptd.data, ptd.size), TP_OK);
  before = tp__count_steps;
  TPT_STATUS(tp_vk_read_blob(blob.data, blob.size, &pd, &v, &count, &err), TP_OK);
  before = tp__count_steps - before;
  TPT_EQ_U64(count, n);
  TPT_CHECK(pd.index__ == NULL); /* the caller's ptd as given */
  if (v && count == n) {
    unsigned char le[4]; /* the writer stores the float little-endian on every host */
    TPT_CHECK(v[n - 1].key != NULL && v[n - 1].nbytes == 4);
    tpt_to_le(le, &g_vals[n - 1], 1, 4);
    TPT_CHECK(v[n - 1].data && memcmp(v[n - 1].data, le, 4) == 0);
  }
  tp_vk_blob_values_free(v);
  tp_vk_graph_destroy(g);
  tp_store_destroy(st);
  tp_membuf_free(&blob);
  tp_membuf_free(&ptd);
  return before;
}

static void test_vk_named_read_linear(void) {
  unsigned long long steps[3];
  int k;
  for (k = 0; k < 3; k++) steps[k] = vk_named_read((size_t)N0 << k);
  check_growth("tp_vk_read_blob, named constants", steps);
}

/* ---- table budgets ----------------------------------------------------------------------- */

/* A small buffer whose tables form a DAG: table i has fields 0 and 1 both naming table i - 1,
   so a walk down every path opens 2^depth tables from a few hundred bytes. The default budget
   (1000000 for a small buffer) stops it. */
static size_t walk_all(tp_fb_table t) {
  size_t n = 1;
  tp_fb_table a, b;
  if (t.pos == 0) return 0;
  a = tp_fb_table_field(&t, 0);
  b = tp_fb_table_field(&t, 1);
  if (a.pos) n += walk_all(a);
  if (b.pos) n += walk_all(b);
  return n;
}

static void test_budget_stops_a_dag(void) {
  tp_fb_builder *b = NULL;
  tp_fb_reader r;
  tp_fb_table root;
  tp_fb_ref t = 0;
  const unsigned char *p;
  size_t n, i, len;
  char tail[64];
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  for (i = 0; i < 30; i++) {
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, t);
    tp_fb_add_ref(b, 1, t);
    tp_fb_add_u32(b, 2, (uint32_t)i, 0xFFFFFFFFu);
    t = tp_fb_end_table(b);
  }
  TPT_STATUS(tp_fb_finish(b, t, "DAG0"), TP_OK);
  p = tp_fb_data(b, &n);
  TPT_CHECK(n < 2000000); /* small: the budget is the 1000000 minimum */
  TPT_STATUS(tp_fb_reader_init(&r, p, n, "DAG0", &root), TP_OK);
  (void)walk_all(root);
  TPT_STATUS(tp_fb_reader_status(&r), TP_ERR_FORMAT);
  TPT_EQ_U64(r.tables, 1000000);
  /* the byte is the table it stopped at: one of the 30 */
  TPT_CONTAINS(tp_fb_reader_error(&r), "table budget 1000000 exceeded at byte ");
  snprintf(tail, sizeof tail, " (%lu-byte buffer)", (unsigned long)n);
  len = strlen(tp_fb_reader_error(&r));
  TPT_CHECK(len > strlen(tail) &&
            strcmp(tp_fb_reader_error(&r) + len - strlen(tail), tail) == 0);
  /* an explicit budget still wins over the default */
  TPT_STATUS(tp_fb_reader_init_ex(&r, p, n, "DAG0", &root, 0, 10), TP_OK);
  (void)walk_all(root);
  TPT_EQ_U64(r.tables, 10);
  TPT_STATUS(tp_fb_reader_status(&r), TP_ERR_FORMAT);
  tp_fb_builder_destroy(b);
}

#define BIG_VALUES 600000u

/* A 600k-value graph (x -> abs -> abs -> ... -> y): 1.2M tables of values plus 1.2M of nodes,
   over the old fixed budget of 1000000; written, read back, checked. */
static void test_600k_values_read_back(void) {
  tp_xnn_graph *g = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_xnn_blob blob;
  tp_error err;
  uint32_t i, prev = 0, id = 0;
  size_t dims[2] = {1, 4};
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, dims, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &prev), TP_OK);
  for (i = 1; i < BIG_VALUES; i++) {
    int last = i == BIG_VALUES - 1;
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, dims, NULL,
                                          last ? 1u : TP_XNN_INVALID_ID,
                                          last ? TP_XNN_FLAG_EXTERNAL_OUTPUT : 0u, &id), TP_OK);
    TPT_STATUS(tp_xnn_define_abs(g, prev, id, 0), TP_OK);
    prev = id;
  }
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
  TPT_EQ_STR(tp_xnn_graph_error(g), "");
  tp_xnn_graph_destroy(g);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &blob, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  TPT_EQ_U64(blob.num_values, BIG_VALUES);
  TPT_EQ_U64(blob.num_nodes, BIG_VALUES - 1);
  if (blob.num_values == BIG_VALUES) TPT_EQ_U64(blob.values[BIG_VALUES - 1].external_id, 1);
  tp_xnn_blob_free(&blob);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  tp_membuf_free(&m);
}

/* An XNNGraph whose xvalues vector names one quantized XValue k times: each 4-byte element
   opens 4 tables (XValue, XNNQuantizedTensorValue, its XNNTensorValue and PerTensorQuant), so
   the walk needs 1 + 4k opens where the budget is max(1000000, size / 2) ~ 2k. Both readers
   stop at the same value with the reader's own sentence. */
static void test_budget_error_surfaces(void) {
  tp_fb_builder *b = NULL;
  tp_fb_ref *refs, dims, tv, pq, qv, xv, vals, nodes, root;
  tp_fb_reader r;
  tp_fb_table rt, e, u, tt, pt;
  tp_fb_vector vv;
  const unsigned char *p;
  size_t n, k = 600000, budget, i, m;
  uint32_t one = 1, at_read, at_check;
  uint8_t tag = 0;
  tp_xnn_blob blob;
  tp_error err;
  char want[160];
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  dims = tp_fb_create_vector(b, &one, 1, 4);
  tp_fb_start_table(b);
  tp_fb_add_i16(b, (uint16_t)TP_XNN_FIELD(XNNTensorValue, datatype), TP_XNN_QINT8, 0);
  tp_fb_add_u32(b, (uint16_t)TP_XNN_FIELD(XNNTensorValue, num_dims), 1, 0);
  tp_fb_add_ref(b, (uint16_t)TP_XNN_FIELD(XNNTensorValue, dims), dims);
  tp_fb_add_u32(b, (uint16_t)TP_XNN_FIELD(XNNTensorValue, external_id), TP_XNN_INVALID_ID, 0);
  tv = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_f32(b, (uint16_t)TP_XNN_FIELD(PerTensorQuant, scale), 0.5f, 0.0f);
  pq = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, (uint16_t)TP_XNN_FIELD(XNNQuantizedTensorValue, tensor_value), tv);
  tp_fb_add_union(b, (uint16_t)TP_XNN_FIELD(XNNQuantizedTensorValue, quant_params),
                  TP_XNN_QUANT_PER_TENSOR, pq);
  qv = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, (uint16_t)TP_XNN_FIELD(XValue, xvalue_union), TP_XNN_VALUE_QUANTIZED, qv);
  xv = tp_fb_end_table(b);
  refs = (tp_fb_ref *)malloc(k * sizeof *refs);
  for (i = 0; i < k; i++) refs[i] = xv;
  vals = tp_fb_create_vector_refs(b, refs, k);
  nodes = tp_fb_create_vector_refs(b, refs, 0);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, (uint16_t)TP_XNN_FIELD(XNNGraph, xvalues), vals);
  tp_fb_add_ref(b, (uint16_t)TP_XNN_FIELD(XNNGraph, xnodes), nodes);
  root = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, root, "XN01"), TP_OK);
  free(refs);
  p = tp_fb_data(b, &n);
  budget = n / 2 > 1000000 ? n / 2 : 1000000;
  TPT_CHECK(1 + 4 * k > budget);
  /* open number budget + 1 fails: open 1 is the root, then element j opens 2 + 4j .. 5 + 4j
     (XValue, the quantized value, then tensor_value and quant_params - tp_xnn_read_blob reads
     them in that order, tp_xnn_check_blob the other way round) */
  i = (budget - 1) / 4;
  m = (budget - 1) % 4;
  TPT_STATUS(tp_fb_reader_init_ex(&r, p, n, NULL, &rt, 0, (size_t)-1), TP_OK);
  vv = tp_fb_vector_field(&rt, (uint16_t)TP_XNN_FIELD(XNNGraph, xvalues), 4);
  e = tp_fb_vector_table(&vv, i);
  u = tp_fb_union_field(&e, (uint16_t)TP_XNN_FIELD(XValue, xvalue_union), &tag);
  tt = tp_fb_table_field(&u, (uint16_t)TP_XNN_FIELD(XNNQuantizedTensorValue, tensor_value));
  pt = tp_fb_union_field(&u, (uint16_t)TP_XNN_FIELD(XNNQuantizedTensorValue, quant_params), &tag);
  TPT_STATUS(tp_fb_reader_status(&r), TP_OK);
  at_read = m == 0 ? e.pos : m == 1 ? u.pos : m == 2 ? tt.pos : pt.pos;
  at_check = m == 0 ? e.pos : m == 1 ? u.pos : m == 2 ? pt.pos : tt.pos;
  snprintf(want, sizeof want, "value %lu: table budget %lu exceeded at byte %lu (%lu-byte buffer)",
           (unsigned long)i, (unsigned long)budget, (unsigned long)at_read, (unsigned long)n);
  TPT_STATUS(tp_xnn_read_blob(p, n, &blob, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, want);
  snprintf(want, sizeof want, "value %lu: table budget %lu exceeded at byte %lu (%lu-byte buffer)",
           (unsigned long)i, (unsigned long)budget, (unsigned long)at_check, (unsigned long)n);
  TPT_STATUS(tp_xnn_check_blob(p, n, TP_XNN_TARGET_EXECUTORCH, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, want);
  tp_fb_builder_destroy(b);
}

int main(void) {
  size_t i;
  g_vals = (float *)malloc(sizeof(float) * 4 * N0);
  for (i = 0; i < 4 * N0; i++) g_vals[i] = (float)i + 0.5f;
  TPT_RUN(test_named_defines_linear);
  TPT_RUN(test_store_adds_linear);
  TPT_RUN(test_ptd_index_linear);
  TPT_RUN(test_vk_named_read_linear);
  TPT_RUN(test_budget_stops_a_dag);
  TPT_RUN(test_600k_values_read_back);
  TPT_RUN(test_budget_error_surfaces);
  free(g_vals);
  return tpt_finish("linear");
}
