/* test_linear.c - linear costs (issue 14, findings 10 and 11; issue 21 below): the work done by named-mode
   constant defines, the store's adds, tp_ptd_index (with and without duplicate keys) and
   tp_vk_read_blob's key lookups in a .ptd is counted - probes and key comparisons, through the
   TP_COUNT_STEPS counter, not seconds - at N, 2N and 4N, and every doubling must cost less
   than 2.5x (a quadratic scan costs ~4x). Then the
   table budgets: a walk's default budget scales with the buffer, so a 600k-value graph that
   tp_xnn_write produces is read back by tp_xnn_read_blob and judged by tp_xnn_check_blob; a DAG
   of shared tables is still stopped, and its reader sentence ("table budget N exceeded at byte
   P (S-byte buffer)") comes out of tp_xnn_read_blob and tp_xnn_check_blob as itself.
   Issue 21, the worst shapes at N and 2N, each doubling at most 2.6x the work (counted steps
   or visits, never seconds: speed is bench/'s): 2^11 / 2^12 keys that all collide under
   FNV-1a (the old hash) added to a store and indexed in a .ptd; a .ptd whose entries share
   one long key string; a .pte listing one delegate of n compile specs n times; a Vulkan blob
   whose n ValueLists are one table of n items; n XNNPACK values that are one table;
   __metadata__ of n keys. Then the bytes under
   two hash seeds, and the edges (planned sizes, JSON duplicates in ignored objects). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <math.h>

/* The hash seed is the test's to choose (issue 21: bytes never depend on it). */
static uint64_t g_seed = 1;
#define TP_HASH_SEED(obj) ((void)(obj), g_seed)
#define TP_COUNT_STEPS
/* its own implementation: TP_COUNT_STEPS counts inside all three parts */
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#define TPDUMP_NO_MAIN
#include "tools/tpdump.c"
#include "tp_test.h"
#include "linear_shapes.h"

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
  TPT_STATUS(tp_view(s, TP_F32, 1, &one, NULL, (int64_t)i, &t, NULL), TP_OK);
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
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
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
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
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
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
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
  tp_vk_blob rb;
  const tp_vk_blob_value *v;
  uint32_t count, id = 0;
  tp_error err;
  unsigned long long before;
  size_t i, one = 1;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  for (i = 0; i < n; i++) {
    tp_tensor t = scalar_view(i);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, &one, &t, &id), TP_OK);
  }
  memset(&blob, 0, sizeof blob);
  memset(&ptd, 0, sizeof ptd);
  sink = tp_sink_membuf(&blob);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  sink = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(tp_ptd_open(&pd, ptd.data, ptd.size), TP_OK);
  before = tp__count_steps;
  TPT_STATUS(tp_vk_read_blob(blob.data, blob.size, &pd, &rb, &err), TP_OK);
  before = tp__count_steps - before;
  v = rb.values;
  count = rb.num_values;
  TPT_EQ_U64(count, n);
  TPT_CHECK(pd.index__ == NULL); /* the caller's ptd as given */
  if (v && count == n) {
    unsigned char le[4]; /* the writer stores the float little-endian on every host */
    TPT_CHECK(v[n - 1].key != NULL && v[n - 1].nbytes == 4);
    tpt_to_le(le, &g_vals[n - 1], 1, 4);
    TPT_CHECK(v[n - 1].data && memcmp(v[n - 1].data, le, 4) == 0);
  }
  tp_vk_blob_free(&rb);
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
  uint32_t one = 1, at_read;
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
     (XValue, the quantized value, then tensor_value and quant_params, in tp_xnn_read_blob's
     order; tp_xnn_check_blob judges that reader's result, with its sentence) */
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
  snprintf(want, sizeof want, "value %lu: table budget %lu exceeded at byte %lu (%lu-byte buffer)",
           (unsigned long)i, (unsigned long)budget, (unsigned long)at_read, (unsigned long)n);
  TPT_STATUS(tp_xnn_read_blob(p, n, &blob, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, want);
  tp_xnn_blob_free(&blob);
  TPT_STATUS(tp_xnn_check_blob(p, n, TP_XNN_TARGET_EXECUTORCH, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, want);
  tp_fb_builder_destroy(b);
}


/* ---- issue 21 ------------------------------------------------------------------------------ */

#define MAX_RATIO21 2.6

static void check_ratio(const char *what, double a, double b) {
  double ratio = a > 0 ? b / a : 1e9;
  if (!(ratio <= MAX_RATIO21)) {
    char m[200];
    snprintf(m, sizeof m, "%s: %.6g -> %.6g when N doubles (%.2fx, limit %.1fx)", what, a, b,
             ratio, MAX_RATIO21);
    tpt_fail_at(__FILE__, __LINE__, m);
  }
}

/* Keys that all collide under FNV-1a: the store's adds and tp_ptd_index, counted. */
static void fnv_flood(unsigned stages, unsigned long long *adds, unsigned long long *index) {
  unsigned char (*bl)[8] = (unsigned char (*)[8])malloc(2 * stages * 8);
  size_t n = (size_t)1 << stages, i, ns;
  char key[8 * 16 + 4];
  tp_store *st = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_ptd f;
  uint32_t *slots;
  tp_ptd_entry e;
  unsigned long long before;
  uint32_t low = 0;
  TPT_CHECK(bl && fnvc_make(stages, "k", bl));
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  before = tp__count_steps;
  for (i = 0; i < n; i++) {
    fnvc_key(stages, "k", bl, i, key);
    if (i == 0) low = (uint32_t)fnvc_full(key);
    if ((uint32_t)fnvc_full(key) != low) TPT_CHECK(!"the keys collide under FNV-1a");
    TPT_STATUS(tp_store_add_bytes(st, key, &g_vals[i % (4 * N0)], 4, 0, 0, NULL), TP_OK);
  }
  *adds = tp__count_steps - before;
  TPT_EQ_U64(tp_store_count(st), n);
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(tp_ptd_open(&f, m.data, m.size), TP_OK);
  ns = tp_ptd_index_slots(&f);
  slots = (uint32_t *)malloc(ns * sizeof *slots);
  before = tp__count_steps;
  TPT_STATUS(tp_ptd_index(&f, slots, ns), TP_OK);
  for (i = 0; i < n; i += 7) { /* and lookups find every key */
    fnvc_key(stages, "k", bl, i, key);
    TPT_STATUS(tp_ptd_find(&f, key, &e), TP_OK);
    TPT_EQ_STR(e.key, key);
  }
  *index = tp__count_steps - before;
  free(slots);
  tp_membuf_free(&m);
  tp_store_destroy(st);
  free(bl);
}

static void test_fnv_collisions_linear(void) {
  unsigned long long a1, i1, a2, i2;
  fnv_flood(11, &a1, &i1);
  fnv_flood(12, &a2, &i2);
  check_ratio("store adds of FNV-colliding keys", (double)a1, (double)a2);
  check_ratio("tp_ptd_index + finds of FNV-colliding keys", (double)i1, (double)i2);
  TPT_CHECK(a2 < 20 * 4096 && i2 < 20 * 4096); /* a few probes per key, not a cluster */
}

/* Entries sharing one key string: refused once the keys would outgrow the flatbuffer. */
static void test_ptd_shared_key(void) {
  size_t sz = 0, ns;
  unsigned char *p = shape_ptd_shared_key(100000, 4000, &sz);
  tp_ptd f;
  tp_ptd_entry e;
  uint32_t *slots;
  char want[200];
  TPT_CHECK(p != NULL);
  TPT_STATUS(tp_ptd_open(&f, p, sz), TP_ERR_FORMAT);
  snprintf(want, sizeof want, "named_data[%lu]: the keys so far total %lu bytes, more than the "
           "%lu-byte flatbuffer holds (entries share key strings)",
           (unsigned long)(f.flatbuffer_size + 48) / 4001, (unsigned long)
           ((f.flatbuffer_size + 48) / 4001 + 1) * 4001, (unsigned long)(f.flatbuffer_size + 48));
  TPT_EQ_STR(tp_ptd_error(&f), want);
  free(p);
  /* two entries sharing a key fit: opened, indexed, the first one found */
  p = shape_ptd_shared_key(2, 40, &sz);
  TPT_STATUS(tp_ptd_open(&f, p, sz), TP_OK);
  ns = tp_ptd_index_slots(&f);
  slots = (uint32_t *)malloc(ns * sizeof *slots);
  TPT_STATUS(tp_ptd_index(&f, slots, ns), TP_OK);
  TPT_STATUS(tp_ptd_find(&f, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", &e), TP_OK);
  TPT_EQ_U64(e.nbytes, 4);
  free(slots);
  free(p);
}

/* One delegate of n compile specs listed n times: the read stops at the visit budget, which
   grows with the file, never with n^2. */
static size_t pte_specs_visits(size_t n, size_t *size) {
  unsigned char *p = shape_pte_shared_specs(n, size);
  tp_pte_file f;
  size_t v;
  TPT_CHECK(p != NULL);
  TPT_STATUS(tp_pte_read(&f, p, *size), TP_ERR_FORMAT);
  TPT_CONTAINS(f.err.msg, "method 0: visit budget ");
  TPT_CONTAINS(f.err.msg, "tables, vectors or strings are reached through many offsets");
  v = f.r__.visits;
  free(p);
  return v;
}

static void test_pte_shared_specs(void) {
  size_t s1 = 0, s2 = 0, v1 = pte_specs_visits(16000, &s1), v2 = pte_specs_visits(32000, &s2);
  check_ratio("tp_pte_read visits, shared compile specs", (double)v1, (double)v2);
  TPT_CHECK(v2 <= 8 * s2 + 1000000);
  { /* a few specs shared a few times are only a few reads: accepted */
    size_t sz = 0;
    unsigned char *p = shape_pte_shared_specs(50, &sz);
    tp_pte_file f;
    tp_pte_delegate_info di;
    TPT_STATUS(tp_pte_read(&f, p, sz), TP_OK);
    TPT_STATUS(tp_pte_delegate_at(&f, 0, 49, &di), TP_OK);
    TPT_EQ_U64(di.n_specs, 50);
    free(p);
  }
}

/* n ValueLists that are one table of n items: the work tp_vk_check_blob and tp_vk_read_blob
   count (the visits of their walks) before the visit budget stops them. */
static unsigned long long vk_list_work(size_t n) {
  size_t sz = 0;
  unsigned char *p = shape_vk_shared_list(n, &sz);
  unsigned long long before = tp__count_steps + tp__count_visits;
  tp_error e;
  tp_vk_blob rb;
  TPT_CHECK(p != NULL);
  TPT_STATUS(tp_vk_check_blob(p, sz, NULL, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "visit budget ");
  TPT_STATUS(tp_vk_read_blob(p, sz, NULL, &rb, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "visit budget ");
  tp_vk_blob_free(&rb);
  free(p);
  return tp__count_steps + tp__count_visits - before;
}

static void test_vk_shared_list(void) {
  unsigned long long w1 = vk_list_work(40000), w2 = vk_list_work(80000);
  printf("  tp_vk_check_blob + tp_vk_read_blob: %llu at 40000 items, %llu at 80000\n", w1, w2);
  check_ratio("tp_vk_check_blob + tp_vk_read_blob work, shared ValueList", (double)w1,
              (double)w2);
}

/* n XNNPACK values that are one table: the work tp_xnn_read_blob and tp_xnn_check_blob count
   (visits of the walk, comparisons of the ids' sort) before the duplicate ids are refused. */
static unsigned long long xnn_values_work(size_t n, size_t *size) {
  unsigned char *p = shape_xnn_shared_values(n, size);
  unsigned long long before = tp__count_steps + tp__count_visits;
  tp_xnn_blob b;
  tp_error e;
  TPT_CHECK(p != NULL);
  TPT_STATUS(tp_xnn_read_blob(p, *size, &b, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "two values have id_out 0");
  tp_xnn_blob_free(&b); /* a failed read keeps what it read */
  TPT_STATUS(tp_xnn_check_blob(p, *size, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "two values have id_out 0");
  free(p);
  return tp__count_steps + tp__count_visits - before;
}

static void test_xnn_shared_values(void) {
  size_t s1 = 0, s2 = 0;
  unsigned long long w1 = xnn_values_work(20000, &s1), w2 = xnn_values_work(40000, &s2);
  check_ratio("tp_xnn_read_blob + tp_xnn_check_blob work, values that are one table",
              (double)w1, (double)w2);
  TPT_CHECK(w2 > 40000 && w2 < 16 * s2); /* the counters see every value; fuzz_xnn_check's k */
}

/* __metadata__ of n keys: the open's work and the lookups' steps, counted. */
static void st_meta(size_t n, unsigned long long *open, unsigned long long *steps) {
  size_t cap = n * 32 + 64, len = 0, i;
  char *h = (char *)malloc(cap + 8), k[40];
  tp_safetensors *st = NULL;
  tp_error err;
  const char *v;
  unsigned long long before;
  len += (size_t)sprintf(h + 8 + len, "{\"__metadata__\":{");
  for (i = 0; i < n; i++)
    len += (size_t)sprintf(h + 8 + len, "%s\"key%07lu\":\"%lu\"", i ? "," : "", (unsigned long)i,
                           (unsigned long)i);
  len += (size_t)sprintf(h + 8 + len, "}}");
  for (i = 0; i < 8; i++) h[i] = (char)((uint64_t)len >> (8 * i));
  before = tp__count_steps + tp__count_visits;
  TPT_STATUS(tp_safetensors_open(h, len + 8, &st, &err), TP_OK);
  *open = tp__count_steps + tp__count_visits - before;
  before = tp__count_steps;
  for (i = 0; st && i < n; i++) {
    snprintf(k, sizeof k, "key%07lu", (unsigned long)i);
    if (tp_safetensors_metadata(st, k, &v) != TP_OK || (size_t)atol(v) != i) {
      TPT_CHECK(!"every metadata key found");
      break;
    }
  }
  *steps = tp__count_steps - before;
  if (st) {
    TPT_STATUS(tp_safetensors_metadata(st, "key", &v), TP_ERR_INVALID);
    tp_safetensors_close(st);
  }
  /* and a key twice, last in the object */
  len -= 2;
  len += (size_t)sprintf(h + 8 + len, ",\"key0000000\":\"x\"}}");
  for (i = 0; i < 8; i++) h[i] = (char)((uint64_t)len >> (8 * i));
  TPT_STATUS(tp_safetensors_open(h, len + 8, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "__metadata__ \"key0000000\" appears twice");
  free(h);
}

static void test_safetensors_metadata_linear(void) {
  unsigned long long o1, o2, s1, s2;
  st_meta(20000, &o1, &s1);
  st_meta(40000, &o2, &s2);
  printf("  tp_safetensors_open: %llu at 20000 keys, %llu at 40000\n", o1, o2);
  check_ratio("tp_safetensors_open work, __metadata__", (double)o1, (double)o2);
  check_ratio("tp_safetensors_metadata steps", (double)s1, (double)s2);
}

static tp_status st_open_json(const char *js, tp_error *err) {
  char b[512];
  size_t n = strlen(js), i;
  tp_safetensors *st = NULL;
  tp_status s;
  for (i = 0; i < 8; i++) b[i] = (char)((uint64_t)n >> (8 * i));
  memcpy(b + 8, js, n);
  s = tp_safetensors_open(b, n + 8, &st, err);
  tp_safetensors_close(st);
  return s;
}

static void test_json_duplicates_everywhere(void) {
  tp_error e;
  TPT_STATUS(st_open_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,0],"
                          "\"x\":{\"k\":1,\"k\":2}}}", &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "the object at header byte 57 has the key \"k\" twice");
  TPT_STATUS(st_open_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,0],"
                          "\"x\":1,\"x\":[]}}", &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "the object at header byte 5 has the key \"x\" twice");
  /* escapes are unescaped before the comparison; deeper objects keep their own keys */
  TPT_STATUS(st_open_json("{\"__metadata__\":{\"k\":\"1\",\"\\u006b\":\"3\"}}", &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "__metadata__ \"k\" appears twice");
  TPT_STATUS(st_open_json("{\"__metadata__\":{},\"a\":{\"dtype\":\"F32\",\"shape\":[0],"
                          "\"data_offsets\":[0,0],\"x\":{\"k\":{\"k\":1,\"j\":[{\"k\":2},"
                          "{\"k\":3}]},\"j\":{\"k\":1}}}}", &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
}

/* Bytes never depend on the hash seed: a named-mode XNNPACK graph, its .ptd and its .pte,
   written under two seeds, are the same bytes (and every lookup still finds its key). */
static void write_under_seed(uint64_t seed, tp_membuf *blob, tp_membuf *ptd, tp_membuf *pte) {
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_pte *p = NULL;
  tp_sink sink;
  size_t i, one = 1, dims[1] = {1};
  uint32_t x = 0, y = 0, c = 0, id = 0;
  g_seed = seed;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, dims, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  for (i = 0; i < 2000; i++) { /* 2000 named constants, each defined twice */
    tp_tensor t = scalar_view(i % 1000);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, &t, TP_XNN_INVALID_ID, 0,
                                          &id), TP_OK);
    if (i == 0) c = id;
  }
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, dims, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_OK);
  memset(blob, 0, sizeof *blob);
  memset(ptd, 0, sizeof *ptd);
  memset(pte, 0, sizeof *pte);
  sink = tp_sink_membuf(blob);
  TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
  sink = tp_sink_membuf(ptd);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  sink = tp_sink_membuf(pte);
  TPT_STATUS(tp_pte_write(p, &sink), TP_OK);
  TPT_EQ_U64(tp_store_count(st), 1000);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
}

static void test_bytes_independent_of_seed(void) {
  tp_membuf b1, p1, e1, b2, p2, e2;
  tp__hashkey k1, k2;
  tp_ptd f;
  uint32_t *slots;
  size_t ns;
  tp_error err;
  write_under_seed(1, &b1, &p1, &e1);
  k1 = tp__hash_seed(NULL);
  write_under_seed(0x0123456789abcdefull, &b2, &p2, &e2);
  k2 = tp__hash_seed(NULL);
  TPT_CHECK(k1.k0 != k2.k0 && k1.k1 != k2.k1); /* the seeds do differ */
  TPT_CHECK(tp__hash_keyed(&k1, "key", 3) != tp__hash_keyed(&k2, "key", 3));
  TPT_EQ_U64(b1.size, b2.size);
  TPT_EQ_U64(p1.size, p2.size);
  TPT_EQ_U64(e1.size, e2.size);
  TPT_CHECK(b1.size == b2.size && memcmp(b1.data, b2.data, b1.size) == 0);
  TPT_CHECK(p1.size == p2.size && memcmp(p1.data, p2.data, p1.size) == 0);
  TPT_CHECK(e1.size == e2.size && memcmp(e1.data, e2.data, e1.size) == 0);
  /* read back under a third seed: the blob checks, every key is found through the index */
  g_seed = 99;
  TPT_STATUS(tp_xnn_check_blob(b2.data, b2.size, TP_XNN_TARGET_EXECUTORCH, &err), TP_OK);
  TPT_STATUS(tp_ptd_open(&f, p2.data, p2.size), TP_OK);
  ns = tp_ptd_index_slots(&f);
  slots = (uint32_t *)malloc(ns * sizeof *slots);
  TPT_STATUS(tp_ptd_index(&f, slots, ns), TP_OK);
  {
    size_t i;
    for (i = 0; i < f.count; i++) {
      tp_ptd_entry e, e2;
      TPT_STATUS(tp_ptd_entry_at(&f, i, &e), TP_OK);
      TPT_STATUS(tp_ptd_find(&f, e.key, &e2), TP_OK);
      TPT_CHECK(e2.data == e.data);
    }
  }
  free(slots);
  g_seed = 1;
  tp_membuf_free(&b1);
  tp_membuf_free(&p1);
  tp_membuf_free(&e1);
  tp_membuf_free(&b2);
  tp_membuf_free(&p2);
  tp_membuf_free(&e2);
}

/* The .pte writer refuses planned arguments its reader would refuse (an int64 buffer size). */
static tp_status none_produce(void *ctx, tp_sink *sink) {
  (void)ctx;
  return sink->write(sink->ctx, "x", 1);
}

static void test_planned_sizes_refused_at_add(void) {
  tp_pte *p = NULL;
  tp_pte_method m;
  tp_pte_tensor a[4];
  int k;
  memset(a, 0, sizeof a);
  for (k = 0; k < 4; k++) {
    a[k].role = k == 3 ? TP_PTE_OUTPUT : TP_PTE_INPUT;
    a[k].dtype = TP_F32;
    a[k].ndim = 2;
    a[k].sizes[0] = (int64_t)1 << 30;
    a[k].sizes[1] = (int64_t)1 << 30; /* 2^62 bytes each */
  }
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.args = a;
  m.n_args = 1;
  m.backend_id = "XnnpackBackend";
  m.blob_size = 1;
  m.produce = none_produce;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_add_method(p, &m), TP_OK); /* one: 2^62 bytes fit */
  tp_pte_destroy(p);
  for (k = 2; k <= 4; k += 2) {
    m.n_args = (size_t)k;
    a[k - 1].role = TP_PTE_OUTPUT;
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(tp_pte_add_method(p, &m), TP_ERR_OVERFLOW);
    TPT_EQ_STR(tp_pte_error(p), "method \"forward\": the planned arguments 0 .. 1 need more "
                                "than 2^63 - 1 bytes, which the planned buffer's int64 size "
                                "cannot hold");
    tp_pte_destroy(p);
  }
}

/* A method added from the program's own progress callback is refused and latched; the
   program written is the one it was. */
typedef struct pte_prog {
  tp_pte *p;
  const tp_pte_method *m;
  tp_status got;
  int calls;
} pte_prog;

static int pte_prog_fn(void *ctx, uint64_t done, uint64_t total) {
  pte_prog *c = (pte_prog *)ctx;
  (void)done;
  (void)total;
  if (c->calls++ == 0) c->got = tp_pte_add_method(c->p, c->m);
  return 0;
}

static void test_pte_add_during_write(void) {
  tp_pte_options o;
  tp_pte_method m, late;
  tp_pte_tensor a[2];
  tp_membuf mb;
  tp_sink sink;
  tp_pte_file f;
  pte_prog c;
  memset(a, 0, sizeof a);
  a[0].role = TP_PTE_INPUT;
  a[1].role = TP_PTE_OUTPUT;
  a[0].dtype = a[1].dtype = TP_F32;
  a[0].ndim = a[1].ndim = 1;
  a[0].sizes[0] = a[1].sizes[0] = 4;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.args = a;
  m.n_args = 2;
  m.backend_id = "XnnpackBackend";
  m.blob_size = 1;
  m.produce = none_produce;
  late = m;
  late.name = "late";
  memset(&c, 0, sizeof c);
  c.m = &late;
  memset(&o, 0, sizeof o);
  o.progress = pte_prog_fn;
  o.progress_ctx = &c;
  TPT_STATUS(tp_pte_create(&o, &c.p), TP_OK);
  TPT_STATUS(tp_pte_add_method(c.p, &m), TP_OK);
  memset(&mb, 0, sizeof mb);
  sink = tp_sink_membuf(&mb);
  TPT_STATUS(tp_pte_write(c.p, &sink), TP_OK);
  TPT_CHECK(c.calls > 0);
  TPT_STATUS(c.got, TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(c.p), "a tp_pte_add_method call during its own write (from the "
                                "progress callback): the program cannot change while it is "
                                "written");
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_EQ_U64(f.n_methods, 1);
  tp_membuf_free(&mb);
  tp_pte_destroy(c.p);
}

/* Progress inside one contiguous constant, and building calls from the callback refused. */
typedef struct prog_ctx {
  unsigned calls;
  uint64_t cancel_at;      /* cancel once done >= this (0: never) */
  uint64_t last_done;
  tp_store *store;         /* add to this from the callback */
  tp_xnn_graph *graph;     /* define in this from the callback */
  tp_status inner;         /* what that call returned */
} prog_ctx;

static int prog_fn(void *ctx, uint64_t done, uint64_t total) {
  prog_ctx *c = (prog_ctx *)ctx;
  static const float one = 1.0f;
  (void)total;
  c->calls++;
  c->last_done = done;
  if (c->store && done > 0 && c->inner == TP_OK)
    c->inner = tp_store_add_bytes(c->store, "late", &one, 4, 0, 0, NULL);
  if (c->graph && done > 0 && c->inner == TP_OK) {
    size_t d = 1;
    uint32_t id;
    c->inner = tp_xnn_define_tensor_value(c->graph, TP_XNN_FP32, 1, &d, NULL,
                                          TP_XNN_INVALID_ID, 0, &id);
  }
  return c->cancel_at && done >= c->cancel_at;
}

static void test_progress_inside_a_constant(void) {
  size_t nb = (size_t)4 << 20, i;
  unsigned char *big = (unsigned char *)malloc(nb);
  tp_store *st = NULL;
  tp_store_options so;
  prog_ctx c;
  tp_membuf m;
  tp_sink sink;
  tp_ptd f;
  uint64_t total = 0;
  for (i = 0; i < nb; i++) big[i] = (unsigned char)(i * 7);
  memset(&c, 0, sizeof c);
  memset(&so, 0, sizeof so);
  so.progress = prog_fn;
  so.progress_ctx = &c;
  TPT_STATUS(tp_store_create(&so, &st), TP_OK);
  TPT_STATUS(tp_store_add_bytes(st, "big", big, nb, 0, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_ptd_size(st, &total), TP_OK);
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_CHECK(c.calls >= 100);            /* one 4 MiB segment, reported every ~1% */
  TPT_EQ_U64(c.last_done, total);
  tp_membuf_free(&m);
  /* cancelled midway through that one segment: about half the bytes reach the sink */
  memset(&c, 0, sizeof c);
  c.cancel_at = total / 2;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_ERR_CANCELLED);
  TPT_CHECK(m.size >= total / 2 && m.size <= total / 2 + total / 50);
  tp_membuf_free(&m);
  /* an add from the callback: refused and latched; the write goes on and its file reads */
  memset(&c, 0, sizeof c);
  c.store = st;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  TPT_STATUS(c.inner, TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(st), "a tp_store_add* call during its own write (from the progress "
                                 "callback): the store cannot change while it is written");
  TPT_STATUS(tp_ptd_open(&f, m.data, m.size), TP_OK);
  TPT_EQ_U64(f.count, 1);
  tp_membuf_free(&m);
  tp_store_destroy(st);
  free(big);
  { /* an XNNPACK define from its graph's progress callback */
    tp_xnn_graph *g = NULL;
    tp_xnn_options o;
    size_t d = 4;
    uint32_t x, y;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    o.progress = prog_fn;
    o.progress_ctx = &c;
    TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
    c.graph = g;
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &d, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &d, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
    memset(&m, 0, sizeof m);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
    TPT_STATUS(c.inner, TP_ERR_INVALID);
    TPT_CONTAINS(tp_xnn_graph_error(g), "during its own write (from the progress callback)");
    TPT_EQ_U64(tp_xnn_graph_num_values(g), 2);
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, NULL), TP_OK);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
  }
}

/* tpdump prints a shared delegate once and refers to it; a report that cannot grow is exit 1. */
static size_t tpdump_report(size_t n, const char *want_line) {
  size_t sz = 0, out_size;
  unsigned char *p = shape_pte_shared_specs(n, &sz);
  tp_membuf out;
  tp_error err;
  memset(&out, 0, sizeof out);
  TPT_CHECK(p != NULL);
  (void)tpdump_inspect(p, sz, &out, &err); /* the verdict is the 1-byte blob's, not ours */
  TPT_CHECK(tpt_holds(out.data, out.size, want_line));
  out_size = out.size;
  tp_membuf_free(&out);
  free(p);
  return out_size;
}

static void test_tpdump_shared_once(void) {
  size_t a = tpdump_report(50, "  delegate 49: as method 0 delegate 0 (the same table)\n"),
         b = tpdump_report(100, "  delegate 99: as method 0 delegate 0 (the same table)\n");
  check_ratio("tpdump report bytes, one delegate listed n times", (double)a, (double)b);
  { /* the report cannot grow: exit 1, not "well formed" */
    tp_membuf out;
    tp_error err;
    tp_store *st = NULL;
    tp_membuf ptd;
    tp_sink sink;
    memset(&ptd, 0, sizeof ptd);
    TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
    TPT_STATUS(tp_store_add_bytes(st, "w", g_vals, 16, 0, 0, NULL), TP_OK);
    sink = tp_sink_membuf(&ptd);
    TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
    TPT_EQ_INT(tpdump_inspect(ptd.data, ptd.size, NULL, &err), 0); /* well formed */
    memset(&out, 0, sizeof out);
    out.size = SIZE_MAX - 2; /* every append fails */
    TPT_EQ_INT(tpdump_inspect(ptd.data, ptd.size, &out, &err), 1);
    TPT_CONTAINS(err.msg, "out of memory for the report");
    tp_membuf_free(&ptd);
    tp_store_destroy(st);
  }
}

/* tp_xnn_pte_missing_keys and tp_vk_pte_missing_keys over a program whose n named constants
   all live outside it: the work counted (steps and visits) at n and 2n. Each missing key was
   compared with every one found before it (n^2 / 2 comparisons); one keyed set makes the walk
   linear. */
typedef tp_status (*missing_fn)(tp_pte_file *, size_t, tp_ptd *, const char **, size_t,
                                size_t *, tp_error *);

/* p written and read back, then fn's work counted (it must count n keys); p destroyed */
static unsigned long long missing_keys_work(tp_pte *p, missing_fn fn, size_t n) {
  tp_pte_file f;
  tp_membuf m;
  tp_sink sink;
  tp_error e;
  size_t count = 0;
  unsigned long long before;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_pte_write(p, &sink), TP_OK);
  TPT_STATUS(tp_pte_read(&f, m.data, m.size), TP_OK);
  before = tp__count_steps + tp__count_visits;
  TPT_STATUS(fn(&f, 0, NULL, NULL, 0, &count, &e), TP_OK);
  before = tp__count_steps + tp__count_visits - before;
  TPT_EQ_U64(count, n);
  tp_membuf_free(&m);
  tp_pte_destroy(p);
  return before;
}

static unsigned long long xnn_missing_keys_work(size_t n) {
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_pte *p = NULL;
  size_t i, one = 1;
  uint32_t id, x, y;
  unsigned long long work;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  o.target = TP_XNN_TARGET_UNCHECKED;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  for (i = 0; i < n; i++) {
    tp_tensor t = scalar_view(i);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, &t, TP_XNN_INVALID_ID, 0,
                                          &id), TP_OK);
  }
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  work = missing_keys_work(p, tp_xnn_pte_missing_keys, n);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
  return work;
}

/* The same program as a Vulkan method. */
static unsigned long long vk_missing_keys_work(size_t n) {
  tp_store *st = NULL;
  tp_vk_graph *g = NULL;
  tp_vk_options o;
  tp_pte *p = NULL;
  size_t i, one = 1;
  uint32_t id;
  unsigned long long work;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  memset(&o, 0, sizeof o);
  o.store = st;
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  for (i = 0; i < n; i++) {
    tp_tensor t = scalar_view(i);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, &one, &t, &id), TP_OK);
  }
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, NULL), TP_OK);
  work = missing_keys_work(p, tp_vk_pte_missing_keys, n);
  tp_vk_graph_destroy(g);
  tp_store_destroy(st);
  return work;
}

static void test_missing_keys_linear(void) {
  unsigned long long w1 = xnn_missing_keys_work(2 * N0), w2 = xnn_missing_keys_work(4 * N0);
  printf("  tp_xnn_pte_missing_keys: %llu at %u keys, %llu at %u\n", w1, 2 * N0, w2, 4 * N0);
  check_ratio("tp_xnn_pte_missing_keys work, every named key outside", (double)w1, (double)w2);
  w1 = vk_missing_keys_work(2 * N0);
  w2 = vk_missing_keys_work(4 * N0);
  printf("  tp_vk_pte_missing_keys: %llu at %u keys, %llu at %u\n", w1, 2 * N0, w2, 4 * N0);
  check_ratio("tp_vk_pte_missing_keys work, every named key outside", (double)w1, (double)w2);
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
  TPT_RUN(test_fnv_collisions_linear);
  TPT_RUN(test_ptd_shared_key);
  TPT_RUN(test_pte_shared_specs);
  TPT_RUN(test_vk_shared_list);
  TPT_RUN(test_xnn_shared_values);
  TPT_RUN(test_safetensors_metadata_linear);
  TPT_RUN(test_json_duplicates_everywhere);
  TPT_RUN(test_bytes_independent_of_seed);
  TPT_RUN(test_planned_sizes_refused_at_add);
  TPT_RUN(test_pte_add_during_write);
  TPT_RUN(test_progress_inside_a_constant);
  TPT_RUN(test_tpdump_shared_once);
  TPT_RUN(test_missing_keys_linear);
  (void)tpdump_inspect_json; /* tpdump's other entry points are tests/test_tpdump.c's */
  (void)tpdump_inspect_with;
  free(g_vals);
  return tpt_finish("linear");
}
