/* xnnrt_limits.c - the loader (tp_xnn_load on the real XNNPACK) at its limits (issue 14 items
   8-12, loader side): constants copied once per source and shared by every value naming them
   (a 4 MiB constant named by 500 values costs one copy, not 500), all copies together bounded
   by the blob; what XNNPACK itself would allocate (indirection buffers, packed weights)
   estimated per node before the runtime exists and capped; the id map for sparse ids hashed
   (the probes counted grow linearly); the delegate header checked by the same frame parser
   tpdump uses; the reader's own sentence when it refuses a blob. */
#include <math.h>
#include <stdio.h>
#include <xnnpack.h>

#include "tp_count_alloc.h"
#define TP_XNN_RUNTIME_COUNT_STEPS
/* its own XNNPACK part (the counting core is linked): TP_XNN_RUNTIME_COUNT_STEPS */
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

#define IN TP_XNN_FLAG_EXTERNAL_INPUT
#define OUT TP_XNN_FLAG_EXTERNAL_OUTPUT
#define NONE TP_XNN_INVALID_ID

static tp_xnn_graph *mk(void) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  return g;
}

static uint32_t val(tp_xnn_graph *g, size_t nd, const size_t *d, uint32_t ext, uint32_t flags) {
  uint32_t id = 0;
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, nd, d, NULL, ext, flags, &id), TP_OK);
  return id;
}

static uint32_t cval(tp_xnn_graph *g, const float *p, int64_t n) {
  tp_storage s;
  tp_tensor t;
  uint32_t id = 0;
  s.data = p;
  s.nbytes = (size_t)n * sizeof(float);
  TPT_STATUS(tp_view(s, TP_F32, 1, &n, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &t, NONE, 0, &id), TP_OK);
  return id;
}

static void write_blob(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink s;
  memset(m, 0, sizeof *m);
  s = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
}

/* The blob's flatbuffer, opened for patching: root, its xvalues and constant_data. */
typedef struct fbv {
  tp_fb_reader r;
  tp_fb_table root;
  tp_fb_vector values, consts;
  unsigned char *fb;
} fbv;

static void fb_open(tp_membuf *m, fbv *f) {
  uint32_t off = tp__get_le32(m->data + 10);
  memset(f, 0, sizeof *f);
  f->fb = m->data + off;
  TPT_STATUS(tp_fb_reader_init_ex(&f->r, f->fb, tp__get_le32(m->data + 14), "XN01", &f->root, 0,
                                  (size_t)-1), TP_OK);
  f->values = tp_fb_vector_field(&f->root, TP_XNN_FIELD(XNNGraph, xvalues), 4);
  f->consts = tp_fb_vector_field(&f->root, TP_XNN_FIELD(XNNGraph, constant_data), 4);
}

/* Where field `id` of table t sits in the flatbuffer (0 when the table leaves it out). */
static size_t fb_field(const fbv *f, const tp_fb_table *t, unsigned id) {
  uint16_t vsize = tp__get_le16(f->r.buf + t->vtable), off;
  if (4u + 2u * id >= vsize) return 0;
  off = tp__get_le16(f->r.buf + t->vtable + 4 + 2 * id);
  return off ? t->pos + off : 0;
}

/* Value i's XNNTensorValue table (all values here are plain tensors). */
static tp_fb_table fb_tensor(const fbv *f, uint32_t i) {
  tp_fb_table xv = tp_fb_vector_table(&f->values, i);
  uint8_t type = 0;
  return tp_fb_union_field(&xv, TP_XNN_FIELD(XValue, xvalue_union), &type);
}

static void patch_u32(fbv *f, const tp_fb_table *t, unsigned id, uint32_t v) {
  size_t at = fb_field(f, t, id);
  TPT_CHECK(at != 0);
  if (at) tp__put_le32(f->fb + at, v);
}

static void patch_u64(fbv *f, const tp_fb_table *t, unsigned id, uint64_t v) {
  size_t at = fb_field(f, t, id);
  TPT_CHECK(at != 0);
  if (at) tp__put_le64(f->fb + at, v);
}

/* Item 8: one 4 MiB constant entry named by 500 values (each value's own 16-byte entry
   re-pointed at it, as the 4.2 MB blob does): the loader used to copy the entry per
   value (2 GiB); now one copy, and y = x + c + c still computes. */
static void test_shared_constant(void) {
  enum { BIG = 1 << 20, NV = 500 };
  static float big[BIG], small[4];
  static float x[4 + 4], y[4];
  size_t d4[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t ids[NV], xi, ti, yi, i;
  size_t live0, peak0;
  for (i = 0; i < BIG; i++) big[i] = (float)(i % 1000) * 0.25f;
  xi = val(g, 1, d4, 0, IN);
  TPT_EQ_INT(cval(g, big, BIG), 1); /* value 1 owns constant entry 1, the 4 MiB one */
  for (i = 0; i < NV; i++) ids[i] = cval(g, small, 4);
  ti = val(g, 1, d4, NONE, 0);
  yi = val(g, 1, d4, 1, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, xi, ids[0], ti, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, ti, ids[NV - 1], yi, 0), TP_OK);
  write_blob(g, &m);
  fb_open(&m, &f);
  for (i = 0; i < NV; i++) { /* every small value now names entry 1 */
    tp_fb_table tv = fb_tensor(&f, ids[i]);
    patch_u32(&f, &tv, TP_XNN_FIELD(XNNTensorValue, constant_buffer_idx), 1);
  }
  live0 = g_live;
  peak0 = g_peak;
  g_peak = g_live;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  printf("  blob %lu bytes; the loader holds %lu bytes after the load, peaked at %lu more\n",
         (unsigned long)m.size, (unsigned long)(g_live - live0), (unsigned long)(g_peak - live0));
  /* one copy of 4 MiB (+ the loader's tables), not 500 */
  TPT_CHECK(g_live - live0 >= (size_t)BIG * 4);
  TPT_CHECK(g_live - live0 < (size_t)BIG * 4 + ((size_t)1 << 20));
  TPT_CHECK(g_peak - live0 < (size_t)BIG * 4 + ((size_t)2 << 20));
  if (g_peak < peak0) g_peak = peak0;
  if (rt) {
    for (i = 0; i < 4; i++) x[i] = (float)i - 1.5f;
    TPT_STATUS(tp_xnn_runtime_bind(rt, 0, x), TP_OK);
    TPT_STATUS(tp_xnn_runtime_bind(rt, 1, y), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    for (i = 0; i < 4; i++) TPT_CHECK(y[i] == x[i] + 2.0f * big[i]);
    tp_xnn_runtime_destroy(rt);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Overlapping constant entries cannot multiply memory: three 4096-byte constants re-pointed so
   that entries 2 and 3 cover almost the whole segment would need more copies than the blob. */
static void test_copies_budget(void) {
  static float c[3][1024];
  size_t d[1] = {1024};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_fb_table t2, t3;
  uint64_t seg, total;
  char want[TP_ERROR_MAX];
  uint32_t a = cval(g, c[0], 1024), b = cval(g, c[1], 1024), k = cval(g, c[2], 1024);
  uint32_t x = val(g, 1, d, 0, IN), s1 = val(g, 1, d, NONE, 0), s2 = val(g, 1, d, NONE, 0);
  uint32_t y = val(g, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, a, s1, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, s1, b, s2, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, s2, k, y, 0), TP_OK);
  write_blob(g, &m);
  /* unpatched it loads */
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  tp_xnn_runtime_destroy(rt);
  rt = NULL;
  seg = tp__get_le64(m.data + 22);
  fb_open(&m, &f);
  TPT_EQ_U64(f.consts.count, 4);
  t2 = tp_fb_vector_table(&f.consts, 2);
  t3 = tp_fb_vector_table(&f.consts, 3);
  patch_u64(&f, &t2, TP_XNN_FIELD(ConstantDataOffset, offset), 16);
  patch_u64(&f, &t2, TP_XNN_FIELD(ConstantDataOffset, size), seg - 16);
  patch_u64(&f, &t3, TP_XNN_FIELD(ConstantDataOffset, offset), 32);
  patch_u64(&f, &t3, TP_XNN_FIELD(ConstantDataOffset, size), seg - 32);
  total = 4096 + seg - 16; /* at value 1 (b): its copy and a's */
  TPT_CHECK(total > m.size);
  snprintf(want, sizeof want,
           "value 1: the constants would need %llu bytes of copies, more than the %llu bytes of "
           "blob and .ptd (overlapping constant entries)",
           (unsigned long long)total, (unsigned long long)m.size);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, want);
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Item 9: a 10000 x 10000 max-pooling window over a 1x1 input padded to 10000 x 10000 (the
   448-byte reproducer): XNNPACK's indirection buffer would be 10^8 pointers (1.5 GiB at invoke
   before); refused with the node, its kind and the bytes. */
static void test_operator_cap(void) {
  const char *want = "node 0 (max_pooling_2d): XNNPACK would allocate ~800000128 bytes "
                     "(indirection 800000128, packed weights 0), 800000128 in all: over the "
                     "loader's limit 268435456 (TP_XNN_RUNTIME_MAX_OPERATOR_BYTES + 2 x 0 "
                     "constant bytes)";
  size_t xd[4] = {1, 1, 1, 1};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t x = val(g, 4, xd, 0, IN), y = val(g, 4, xd, 1, OUT);
  TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 5000, 5000, 4999, 4999, 10000, 10000, 1, 1, 1, 1,
                                          -INFINITY, INFINITY, x, y, 0), TP_OK);
  write_blob(g, &m);
  printf("  the reproducer: %lu bytes\n", (unsigned long)m.size);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, want);
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* A legitimate large window under the cap: a 200 x 200 max pooling, stride 8, over 256 x 256
   (8 x 8 outputs, an indirection buffer of ~23 MB) runs and gives the reference maxima. */
static void test_large_window_runs(void) {
  enum { H = 256, K = 200, S = 8, O = (H - K) / S + 1 };
  static float x[H * H + 4], y[O * O];
  size_t xd[4] = {1, H, H, 1}, yd[4] = {1, O, O, 1};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  int i, j, u, v, bad = 0;
  uint32_t xi = val(g, 4, xd, 0, IN), yi = val(g, 4, yd, 1, OUT);
  TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, K, K, S, S, 1, 1, -INFINITY, INFINITY,
                                          xi, yi, 0), TP_OK);
  write_blob(g, &m);
  for (i = 0; i < H * H; i++) x[i] = (float)(tpt_rand() % 100000) * 0.01f;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) {
    TPT_STATUS(tp_xnn_runtime_bind(rt, 0, x), TP_OK);
    TPT_STATUS(tp_xnn_runtime_bind(rt, 1, y), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    for (i = 0; i < O; i++)
      for (j = 0; j < O; j++) {
        float mx = -INFINITY;
        for (u = 0; u < K; u++)
          for (v = 0; v < K; v++)
            if (x[(i * S + u) * H + j * S + v] > mx) mx = x[(i * S + u) * H + j * S + v];
        if (y[i * O + j] != mx) bad++;
      }
    TPT_EQ_INT(bad, 0);
    tp_xnn_runtime_destroy(rt);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Item 10: n values with sparse ids (all >= the value count) load through the hashed id map;
   the probes it counts. */
static unsigned long long sparse_steps(uint32_t n) {
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT), i, first = 0;
  unsigned long long steps;
  for (i = 0; i < n; i++) {
    uint32_t id = val(g, 1, d, NONE, 0);
    if (i == 0) first = id;
  }
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  fb_open(&m, &f);
  for (i = 0; i < n; i++) {
    tp_fb_table tv = fb_tensor(&f, first + i);
    patch_u32(&f, &tv, TP_XNN_FIELD(XNNTensorValue, id_out), 3u * n + 7u * i + 11u);
  }
  tp__xnn_rt_steps = 0;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  steps = tp__xnn_rt_steps;
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
  return steps;
}

static void test_id_map_linear(void) {
  unsigned long long s1 = sparse_steps(50000), s2 = sparse_steps(100000),
                     s3 = sparse_steps(200000);
  printf("  id map probes: 50k values %llu, 100k %llu, 200k %llu\n", s1, s2, s3);
  TPT_CHECK(s1 >= 50000);
  TPT_CHECK((double)s2 < 2.5 * (double)s1);
  TPT_CHECK((double)s3 < 2.5 * (double)s2);
}

/* Two values with one sparse id: the hashed map still refuses it. */
static void test_id_map_duplicate(void) {
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  tp_fb_table t;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT);
  uint32_t a = val(g, 1, d, NONE, 0), b = val(g, 1, d, NONE, 0);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  fb_open(&m, &f);
  t = fb_tensor(&f, a);
  patch_u32(&f, &t, TP_XNN_FIELD(XNNTensorValue, id_out), 1000);
  t = fb_tensor(&f, b);
  patch_u32(&f, &t, TP_XNN_FIELD(XNNTensorValue, id_out), 1000);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "two values have id_out 1000");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Item 12 (loader side): the XH00 header through tp__delegate_parse, the frame parser tpdump
   uses: the loader, tp_xnn_check_blob and the parser give the same sentence. */
static void header_refused(const unsigned char *b, size_t n, const char *want) {
  tp_xnn_runtime *rt = NULL;
  tp_error e, c, p;
  tp__delegate_frame fr;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(b, n, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, want);
  TPT_CHECK(rt == NULL);
  TPT_STATUS(tp_xnn_check_blob(b, n, TP_XNN_TARGET_XNNPACK, &c), TP_ERR_FORMAT);
  TPT_EQ_STR(c.msg, want);
  TPT_STATUS(tp__delegate_parse(b, n, "XH00", "constant data", &fr, &p), TP_ERR_FORMAT);
  TPT_EQ_STR(p.msg, want);
}

static void test_header_length(void) {
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  tp__put_le16(m.data + 8, 20);
  header_refused(m.data, m.size, "XH00 header: length 20 < 30");
  tp__put_le16(m.data + 8, 40);
  header_refused(m.data, m.size, "XH00 header: flatbuffer offset 32 is inside the 40-byte header");
  tp__put_le16(m.data + 8, 30);
  header_refused(m.data, 20, "XH00 header: file is 20 bytes, the header needs 30");
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* Item 11 (loader side): when the reader refuses a blob, the loader gives the reader's own
   sentence (here the flatbuffer reader's, for value 1's union pointing past the buffer), not
   a later symptom such as "no tensor value" or "unknown value type 0". */
static void test_reader_sentence(void) {
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_xnn_runtime *rt = NULL;
  tp_xnn_blob b;
  tp_error e, r;
  tp_fb_table xv;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  fb_open(&m, &f);
  xv = tp_fb_vector_table(&f.values, 1);
  patch_u32(&f, &xv, TP_XNN_FIELD(XValue, xvalue_union), 0x7FFFFFF0u);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &r), TP_ERR_FORMAT);
  tp_xnn_blob_free(&b);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  printf("  the reader's sentence: %s\n", e.msg);
  TPT_EQ_STR(e.msg, r.msg);
  TPT_CHECK(strncmp(e.msg, "value 1: ", 9) == 0);
  TPT_CHECK(strstr(e.msg, "unknown value type") == NULL);
  TPT_CHECK(strstr(e.msg, "no tensor value") == NULL);
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* One verdict on the format: a blob the pure reader refuses, tp_xnn_check_blob refuses for
   every target (UNCHECKED included) with the reader's sentence, and so does the loader
   (fuzz_xnn_check found both: an unread node field outside the buffer, an unreferenced
   constant_data entry whose vtable lies outside it; fuzz/crashes/fuzz_xnn_check-1, -2). */
static void same_verdict(const tp_membuf *m, const char *prefix) {
  tp_xnn_blob b;
  tp_xnn_runtime *rt = NULL;
  tp_error r, c, e;
  int t;
  TPT_STATUS(tp_xnn_read_blob(m->data, m->size, &b, &r), TP_ERR_FORMAT);
  tp_xnn_blob_free(&b);
  printf("  the reader: %s\n", r.msg);
  TPT_CHECK(strncmp(r.msg, prefix, strlen(prefix)) == 0);
  for (t = TP_XNN_TARGET_EXECUTORCH; t <= TP_XNN_TARGET_UNCHECKED; t++) {
    TPT_STATUS(tp_xnn_check_blob(m->data, m->size, t, &c), TP_ERR_FORMAT);
    TPT_EQ_STR(c.msg, r.msg);
  }
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m->data, m->size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, r.msg);
  TPT_CHECK(rt == NULL);
}

static void test_check_reads_format(void) {
  static float c[4];
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  fbv f;
  tp_fb_vector nodes;
  tp_fb_table xn, body, ce;
  uint8_t kind = 0;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT), k = cval(g, c, 4);
  (void)k; /* constant entry 1, named by no node */
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  fb_open(&m, &f);
  nodes = tp_fb_vector_field(&f.root, TP_XNN_FIELD(XNNGraph, xnodes), 4);
  xn = tp_fb_vector_table(&nodes, 0);
  body = tp_fb_union_field(&xn, TP_XNN_FIELD(XNode, xnode_union), &kind);
  /* the abs node's output_id field offset (in its vtable) pointed far outside */
  TPT_CHECK(fb_field(&f, &body, TP_XNN_FIELD(_XNNNode1x1, output_id)) != 0);
  tp__put_le16(f.fb + body.vtable + 4 + 2 * TP_XNN_FIELD(_XNNNode1x1, output_id), 0x7FF0);
  same_verdict(&m, "node 0: ");
  tp_membuf_free(&m);
  write_blob(g, &m);
  fb_open(&m, &f);
  ce = tp_fb_vector_table(&f.consts, 1);
  tp__put_le32(f.fb + ce.pos, 0x7FFFFFF0u); /* its vtable far outside */
  same_verdict(&m, "constant_data[1]: ");
  tp_membuf_free(&m);
  { /* UNCHECKED reads the nodes too: an undefined id breaks the format rule (tpdump's sentence) */
    tp_error c;
    write_blob(g, &m);
    fb_open(&m, &f);
    nodes = tp_fb_vector_field(&f.root, TP_XNN_FIELD(XNNGraph, xnodes), 4);
    xn = tp_fb_vector_table(&nodes, 0);
    body = tp_fb_union_field(&xn, TP_XNN_FIELD(XNode, xnode_union), &kind);
    patch_u32(&f, &body, TP_XNN_FIELD(_XNNNode1x1, output_id), 57);
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_UNCHECKED, &c), TP_ERR_FORMAT);
    TPT_EQ_STR(c.msg, "node 0 (Abs): output_id 57 is no value's id_out");
    tp_membuf_free(&m);
  }
  tp_xnn_graph_destroy(g);
}

/* A named constant whose size field differs from its .ptd entry: tpdump --ptd refuses it, so the
   loader does, with the same sentence (one verdict); the unpatched pair loads. */
static void test_named_size_matches_ptd(void) {
  static const float c[4] = {1, 2, 3, 4};
  size_t d[1] = {4};
  tp_store *store = NULL;
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  tp_membuf m, ptd;
  tp_sink ps;
  fbv f;
  tp_fb_table ce;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  uint32_t x, k, y;
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  o.store = store;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  x = val(g, 1, d, 0, IN);
  k = cval(g, c, 4);
  y = val(g, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, k, y, 0), TP_OK);
  write_blob(g, &m);
  memset(&ptd, 0, sizeof ptd);
  ps = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(store, &ps), TP_OK);
  TPT_STATUS(tp_xnn_load(m.data, m.size, ptd.data, ptd.size, 0, &rt, &e), TP_OK);
  tp_xnn_runtime_destroy(rt);
  rt = NULL;
  fb_open(&m, &f);
  ce = tp_fb_vector_table(&f.consts, 1);
  patch_u64(&f, &ce, TP_XNN_FIELD(ConstantDataOffset, size), 32); /* fewer would break the format rule first */
  TPT_STATUS(tp_xnn_load(m.data, m.size, ptd.data, ptd.size, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "constant_data[1]: named_key \"");
  TPT_CONTAINS(e.msg, "\" has 16 bytes in the .ptd, the blob says 32");
  TPT_CHECK(rt == NULL);
  tp_membuf_free(&m);
  tp_membuf_free(&ptd);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

int main(void) {
  TPT_RUN(test_shared_constant);
  TPT_RUN(test_copies_budget);
  TPT_RUN(test_operator_cap);
  TPT_RUN(test_large_window_runs);
  TPT_RUN(test_id_map_linear);
  TPT_RUN(test_id_map_duplicate);
  TPT_RUN(test_header_length);
  TPT_RUN(test_reader_sentence);
  TPT_RUN(test_check_reads_format);
  TPT_RUN(test_named_size_matches_ptd);
  return tpt_finish("xnnrt_limits");
}
