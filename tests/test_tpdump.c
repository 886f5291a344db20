/* tpdump on blobs written by tensorpack's own writers (XNNPACK graph, Vulkan graph, .ptd store): the printed
   fields and hashes prove which bytes the writers put where (the seed's offset view, named
   constants and their .ptd entries, per-channel and groupwise scales, many node kinds); the
   node table is cross-checked against the writer's independently written one; truncation at
   every byte and single-byte changes give exit 0 or 2 and never a sanitizer report; the
   command-line tool's exit codes. No dependency but libc. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define TPDUMP_NO_MAIN
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tools/tpdump.c"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>

#ifndef TPDUMP_BIN
#define TPDUMP_BIN "build/tools/tpdump"
#endif

/* Graphs that show how fields print, not graphs that run: written without the node and graph
   rules (TP_XNN_TARGET_UNCHECKED; tests/test_xnn_checks.c has the rules). */
static tp_xnn_options g_unchecked; /* .target = TP_XNN_TARGET_UNCHECKED, set in main */

static char report[65536];
static unsigned long inspections;   /* tpdump_inspect calls, reported at the end */
static tp_error last_err;

/* A small JSON syntax checker (RFC 8259 grammar, no semantics): returns the position after
   one value, or NULL. */
static const char *json_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  return p;
}
static const char *json_value(const char *p, int depth) {
  p = json_ws(p);
  if (depth > 32) return NULL;
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    int obj = *p == '{';
    p = json_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (obj) {
        if (*p != '"' || !(p = json_value(p, depth + 1))) return NULL;
        p = json_ws(p);
        if (*p++ != ':') return NULL;
      }
      if (!(p = json_value(p, depth + 1))) return NULL;
      p = json_ws(p);
      if (*p == close) return p + 1;
      if (*p++ != ',') return NULL;
      p = json_ws(p);
    }
  }
  if (*p == '"') {
    for (p++; *p != '"'; p++) {
      if ((unsigned char)*p < 0x20) return NULL;
      if (*p == '\\') {
        p++;
        if (*p == 'u') {
          int k;
          for (k = 1; k <= 4; k++)
            if (!strchr("0123456789abcdefABCDEF", p[k]) || !p[k]) return NULL;
          p += 4;
        } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
          return NULL;
        }
      }
    }
    return p + 1;
  }
  if (!strncmp(p, "true", 4)) return p + 4;
  if (!strncmp(p, "false", 5)) return p + 5;
  if (!strncmp(p, "null", 4)) return p + 4;
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    const char *q = p + (*p == '-');
    if (*q < '0' || *q > '9') return NULL;
    while ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' ||
           *q == '-')
      q++;
    return q;
  }
  return NULL;
}
static int json_valid(const char *s) {
  const char *end = json_value(s, 0);
  return end && *json_ws(end) == '\0';
}

static char jreport[65536];

/* tpdump_inspect_json; the document lands in `jreport`; -1 when it is not valid JSON. */
static int inspect_json(const unsigned char *p, size_t n, const unsigned char *ptd, size_t pn) {
  tp_membuf out;
  tp_error e;
  int rc;
  unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
  memset(&out, 0, sizeof out);
  if (n) memcpy(copy, p, n);
  rc = tpdump_inspect_json(copy, n, ptd, pn, &out, &e);
  jreport[0] = '\0';
  if (out.data) {
    size_t k = out.size < sizeof jreport - 1 ? out.size : sizeof jreport - 1;
    memcpy(jreport, out.data, k);
    jreport[k] = '\0';
  }
  if (!json_valid(jreport)) {
    printf("  invalid JSON:\n%s\n", jreport);
    rc = -1;
  }
  tp_membuf_free(&out);
  free(copy);
  return rc;
}

/* tpdump_inspect on a 16-aligned copy; the report lands in `report`. Also checks that the
   silent mode gives the same answer. */
static int inspect(const unsigned char *p, size_t n) {
  tp_membuf out;
  tp_error quiet;
  int rc, rc2;
  unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
  memset(&out, 0, sizeof out);
  if (n) memcpy(copy, p, n);
  rc = tpdump_inspect(copy, n, &out, &last_err);
  inspections++;
  rc2 = tpdump_inspect(copy, n, NULL, &quiet);
  if (rc2 != rc || strcmp(quiet.msg, last_err.msg) != 0) {
    printf("  silent mode differs: %d \"%s\" vs %d \"%s\"\n", rc, last_err.msg, rc2, quiet.msg);
    rc = 99;
  }
  report[0] = '\0';
  if (out.data) {
    size_t k = out.size < sizeof report - 1 ? out.size : sizeof report - 1;
    memcpy(report, out.data, k);
    report[k] = '\0';
  }
  tp_membuf_free(&out);
  free(copy);
  return rc;
}

/* The same with a .ptd to resolve named constants in. */
static int inspect_ptd(const unsigned char *p, size_t n, const unsigned char *ptd, size_t pn) {
  tp_membuf out;
  int rc;
  unsigned char *copy = (unsigned char *)malloc(n ? n : 1), *pcopy = (unsigned char *)malloc(pn ? pn : 1);
  memset(&out, 0, sizeof out);
  if (n) memcpy(copy, p, n);
  if (pn) memcpy(pcopy, ptd, pn);
  rc = tpdump_inspect_with(copy, n, pcopy, pn, &out, &last_err);
  report[0] = '\0';
  if (out.data) {
    size_t k = out.size < sizeof report - 1 ? out.size : sizeof report - 1;
    memcpy(report, out.data, k);
    report[k] = '\0';
  }
  tp_membuf_free(&out);
  free(copy);
  free(pcopy);
  return rc;
}

static const char *shown_case;
static void has_at(const char *file, int line, const char *hay, const char *needle, int want) {
  char m[640];
  if (hay && (strstr(hay, needle) != NULL) == want) return;
  snprintf(m, sizeof m, "%s \"%.500s\"", want ? "missing" : "unexpected", needle);
  tpt_fail_at(file, line, m);
  if (shown_case != tpt_case) {
    shown_case = tpt_case;
    printf("---- the text was:\n%s----\n", hay ? hay : "(null)");
  }
}
#define HAS(needle) has_at(__FILE__, __LINE__, report, needle, 1)
#define HAS_IN(hay, needle) has_at(__FILE__, __LINE__, hay, needle, 1)
#define LACKS(needle) has_at(__FILE__, __LINE__, report, needle, 0)

static const char *sha8(const void *p, size_t n) {
  static char s[80];
  char hex[65];
  tp_sha256_hex(p, n, hex);
  hex[8] = '\0';
  snprintf(s, sizeof s, "sha256=%s", hex);
  return s;
}

/* sha8 / tp_sha256_hex of n bytes of floats as the writers store them (little-endian). */
static void sha_hex_f32(const float *p, size_t n, char hex[65]) {
  static unsigned char le[4096];
  tpt_to_le(le, p, n / 4, 4);
  tp_sha256_hex(le, n, hex);
}
static const char *sha8f(const float *p, size_t n) {
  static unsigned char le[4096];
  tpt_to_le(le, p, n / 4, 4);
  return sha8(le, n);
}

static int xnn_blob(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink sink = tp_sink_membuf(m);
  tp_status s = tp_xnn_write(g, &sink);
  if (s != TP_OK) printf("  writer: %s\n", tp_xnn_graph_error(g));
  return s == TP_OK;
}

/* Truncation at every length and single-byte changes at every position: 0 or 2. */
static int robustness(const unsigned char *p, size_t n) {
  static const unsigned char xor_with[] = {0xff, 0x01, 0x80};
  unsigned char *m = (unsigned char *)malloc(n);
  size_t i, k;
  int bad = 0;
  for (i = 0; i < n; i++) {
    if (inspect(p, i) != 2) bad++;
    if (inspect_json(p, i, NULL, 0) != 2) bad++;      /* valid JSON, same answer */
  }
  memcpy(m, p, n);
  for (i = 0; i < n; i++) {
    for (k = 0; k < sizeof xor_with; k++) {
      int rc;
      m[i] = (unsigned char)(p[i] ^ xor_with[k]);
      rc = inspect(m, n);
      if (rc != 0 && rc != 2) bad++;
      if (k == 0 && inspect_json(m, n, NULL, 0) != rc) bad++;
    }
    m[i] = p[i];
  }
  /* random damage: 1 to 8 bytes set to random values, 2000 times */
  for (i = 0; i < 2000; i++) {
    int rc, hits = (int)tpt_range(1, 8), h;
    memcpy(m, p, n);
    for (h = 0; h < hits; h++) m[tpt_range(0, (int64_t)n - 1)] = (unsigned char)tpt_rand();
    rc = inspect(m, n);
    if (rc != 0 && rc != 2) bad++;
  }
  free(m);
  return bad;
}

/* ---- the node table against the writer's ---------------------------------------------------- */

/* tpdump prints nodes from the XN01 description: every kind's union member is shown by name. */
static void test_node_table_matches_writer(void) {
  int kind, n = 0;
  TPT_EQ_INT(TPD_XNN_NODE_KINDS, TP_XNN_NODE_KINDS);
  for (kind = 1; tp_xnn_describe_node(kind); kind++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
    TPT_CHECK(strlen(d->member) > 3 && !strncmp(d->member, "XNN", 3));
    TPT_EQ_INT(strlen(d->layout), d->nfields);
    n++;
  }
  TPT_EQ_INT(n, TP_XNN_NODE_KINDS);
  TPT_CHECK(tp_xnn_node_layout(TP_XNN_NODE_COUNT) == NULL);
}

/* ---- the seed's linear: weight = randn(3, 8, 8)[1], 64 floats into its storage ------------- */

static float storage[3 * 8 * 8];

static tp_xnn_graph *seed_graph(tp_store *store) {
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor parent, w;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y;
  int i;
  for (i = 0; i < 3 * 8 * 8; i++) storage[i] = (float)i * 0.5f - 7.0f;
  s.data = storage;
  s.nbytes = sizeof storage;
  memset(&o, 0, sizeof o);
  o.store = store;
  if (tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL) != TP_OK) return NULL;
  if (tp_select(&parent, 0, 1, &w, NULL) != TP_OK) return NULL;
  if (tp_xnn_graph_create(&o, &g) != TP_OK) return NULL;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
  tp_xnn_set_debug_handle(g, 0, 42);
  return g;
}

static void test_seed_inline(void) {
  tp_xnn_graph *g = seed_graph(NULL);
  tp_membuf m;
  char line[256];
  uint32_t seg;
  memset(&m, 0, sizeof m);
  TPT_CHECK(g != NULL);
  if (!g || !xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); return; }
  seg = tp__get_le32(m.data + 18);
  TPT_EQ_INT(inspect(m.data, m.size), 0);
  HAS("XNNPACK delegate blob: ");
  HAS("flatbuffer XN01 (XNNGraph)");
  HAS("num_externs 2, 3 values, 1 nodes, 2 constant_data entries\n");
  HAS("input_ids: [0]\noutput_ids: [2]\n");
  HAS("  [0] id_out=0 tensor fp32 dims=[2, 8] external_id=0 flags=0x1 (input)\n");
  HAS("  [1] id_out=1 tensor fp32 dims=[8, 8] constant=1\n");
  HAS("  [2] id_out=2 tensor fp32 dims=[2, 8] external_id=1 flags=0x2 (output)\n");
  HAS("  #0 FullyConnected input1_id=0 filter_id=1 bias_id=none output_id=2 flags=0 "
      "debug_handle=42");
  /* the constant holds exactly the view's 64 floats, not the storage's first 64 */
  snprintf(line, sizeof line, "  [1] offset=0 size=256 at=%lu %s\n", (unsigned long)seg,
           sha8f(storage + 64, 256));
  HAS(line);
  LACKS(sha8f(storage, 256));
  TPT_EQ_INT(robustness(m.data, m.size), 0);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

static void test_seed_named_and_ptd(void) {
  tp_store *store = NULL;
  tp_xnn_graph *g;
  tp_membuf m, p;
  tp_sink sink;
  char hex[65], line[256];
  memset(&m, 0, sizeof m);
  memset(&p, 0, sizeof p);
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  g = seed_graph(store);
  TPT_CHECK(g != NULL);
  if (!g || !xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); tp_store_destroy(store); return; }
  sha_hex_f32(storage + 64, 256, hex);
  TPT_EQ_INT(inspect(m.data, m.size), 0);
  snprintf(line, sizeof line, "  [1] named_key=\"%s\" offset=none size=256\n", hex);
  HAS(line);
  HAS("constant_data: 2 entries, segment at ");
  /* the .ptd the store writes */
  sink = tp_sink_membuf(&p);
  TPT_STATUS(tp_store_write_ptd(store, &sink), TP_OK);
  TPT_EQ_INT(inspect(p.data, p.size), 0);
  HAS(".ptd (FlatTensor) file: ");
  HAS("header FH01: length 40, flatbuffer offset 48 size ");
  HAS("flatbuffer FT01 (FlatTensor): version 0, 1 named entries\n");
  snprintf(line, sizeof line, "  [0] key=\"%s\" segment=0 at=%llu size=256 %s layout=FLOAT "
           "sizes=[8, 8] dim_order=[0, 1]\n", hex, (unsigned long long)tp__get_le64(p.data + 32),
           sha8f(storage + 64, 256));
  HAS(line);
  TPT_EQ_INT(robustness(p.data, p.size), 0);

  /* the blob with its .ptd: the key resolves to the view's bytes */
  TPT_EQ_INT(inspect_ptd(m.data, m.size, p.data, p.size), 0);
  snprintf(line, sizeof line, "  [1] named_key=\"%s\" offset=none size=256 in .ptd: %s\n", hex,
           sha8f(storage + 64, 256));
  HAS(line);
  {
    /* a .ptd where the key holds the whole storage (what a storage-based writer makes) */
    tp_store *whole = NULL;
    tp_membuf wp;
    char msg[256];
    size_t i;
    int bad = 0;
    memset(&wp, 0, sizeof wp);
    TPT_STATUS(tp_store_create(NULL, &whole), TP_OK);
    TPT_STATUS(tp_store_add_bytes(whole, hex, storage, sizeof storage, 0, 0, NULL), TP_OK);
    sink = tp_sink_membuf(&wp);
    TPT_STATUS(tp_store_write_ptd(whole, &sink), TP_OK);
    TPT_EQ_INT(inspect_ptd(m.data, m.size, wp.data, wp.size), 2);
    snprintf(msg, sizeof msg, "constant_data[1]: named_key \"%.80s\" has 768 bytes in the .ptd, "
             "the blob says 256", hex);
    TPT_EQ_STR(last_err.msg, msg);
    tp_membuf_free(&wp);
    tp_store_destroy(whole);
    /* a .ptd without the key */
    TPT_STATUS(tp_store_create(NULL, &whole), TP_OK);
    TPT_STATUS(tp_store_add_bytes(whole, "other", storage, 16, 0, 0, NULL), TP_OK);
    sink = tp_sink_membuf(&wp);
    TPT_STATUS(tp_store_write_ptd(whole, &sink), TP_OK);
    TPT_EQ_INT(inspect_ptd(m.data, m.size, wp.data, wp.size), 2);
    snprintf(msg, sizeof msg, "constant_data[1]: named_key \"%.80s\" is not in the .ptd", hex);
    TPT_EQ_STR(last_err.msg, msg);
    tp_membuf_free(&wp);
    tp_store_destroy(whole);
    /* a damaged .ptd: 0 or 2, never a crash; a cut one is always 2 */
    for (i = 0; i < p.size; i++)
      if (inspect_ptd(m.data, m.size, p.data, i) != 2) bad++;
    for (i = 0; i < p.size; i++) {
      int rc;
      p.data[i] ^= 0xff;
      rc = inspect_ptd(m.data, m.size, p.data, p.size);
      p.data[i] ^= 0xff;
      if (rc != 0 && rc != 2) bad++;
    }
    TPT_EQ_INT(bad, 0);
    TPT_EQ_INT(inspect_ptd(m.data, m.size, p.data, 10), 2);
    TPT_CONTAINS(last_err.msg, "the --ptd file: ");
  }
  tp_membuf_free(&m);
  tp_membuf_free(&p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* ---- quantized values from the writer ------------------------------------------------------ */

static void test_quantized_from_writer(void) {
  static int8_t w8[4 * 8], w4[4 * 64];
  static float sc[8], gs[4 * 2];
  tp_xnn_graph *g = NULL;
  tp_membuf m;
  tp_tensor tw8, tsc, tw4, tgs, tgst;
  tp_storage s;
  int64_t d2[2] = {4, 8}, d4[2] = {4, 64}, dsc[1] = {4}, stsc[1] = {2}, dg[2] = {2, 4};
  size_t qd[2] = {4, 8}, bd[2] = {4, 64}, xd[2] = {1, 8};
  uint32_t id;
  float gathered[4];
  uint16_t bf[8];
  char line[256];
  uint32_t seg;
  int i, r, c;
  memset(&m, 0, sizeof m);
  for (i = 0; i < 32; i++) w8[i] = (int8_t)(i * 7 - 100);
  for (i = 0; i < 256; i++) w4[i] = (int8_t)(i % 16 - 8);
  for (i = 0; i < 8; i++) sc[i] = 0.125f * (float)(i + 1);
  for (i = 0; i < 8; i++) gs[i] = 0.01f * (float)(i + 3);
  s.data = w8; s.nbytes = sizeof w8;
  TPT_STATUS(tp_view(s, TP_I8, 2, d2, NULL, 0, &tw8, NULL), TP_OK);
  s.data = sc; s.nbytes = sizeof sc;                   /* scale: every other float */
  TPT_STATUS(tp_view(s, TP_F32, 1, dsc, stsc, 1, &tsc, NULL), TP_OK);
  s.data = w4; s.nbytes = sizeof w4;
  TPT_STATUS(tp_view(s, TP_I8, 2, d4, NULL, 0, &tw4, NULL), TP_OK);
  s.data = gs; s.nbytes = sizeof gs;                   /* groupwise scale: a transposed [2, 4] */
  TPT_STATUS(tp_view(s, TP_F32, 2, dg, NULL, 0, &tgs, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&tgs, 0, 1, &tgst, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &tsc, 2, 0, qd,
             &tw8, TP_XNN_INVALID_ID, 0, &id), TP_OK);
  TPT_STATUS(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &tgst, 2, 0, 32,
             bd, &tw4, TP_XNN_INVALID_ID, 0, &id), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -3, 0.25f, 2, qd, &tw8,
             TP_XNN_INVALID_ID, 0, &id), TP_OK);
  TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, xd, 0,
             TP_XNN_FLAG_EXTERNAL_INPUT, &id), TP_OK);
  if (!xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); return; }
  seg = tp__get_le32(m.data + 18);
  TPT_EQ_INT(inspect(m.data, m.size), 0);
  HAS("  [0] id_out=0 quantized tensor qcint8 dims=[4, 8] constant=2 per_channel channel_dim=0 "
      "scale_buffer_idx=1 num_scales=4 scale=[]\n");
  HAS("  [1] id_out=1 quantized tensor qbint4 dims=[4, 64] constant=4 per_channel_group "
      "channel_dim=0 group_size=32 scale_buffer_idx=3 num_scales=8 scale=");
  HAS("  [2] id_out=2 quantized tensor qint8 dims=[4, 8] constant=5 per_tensor scale=0.25 "
      "zero_point=-3\n");
  HAS("  [3] id_out=3 quantized tensor qdint8 dims=[1, 8] external_id=0 flags=0x1 (input) "
      "per_token_dynamic num_nonbatch_dims=1\n");
  /* weights: the int8 bytes; the per-channel scale gathered row-major; bf16 group scales
     (the writer puts a value's scale constant before its data) */
  snprintf(line, sizeof line, "  [2] offset=16 size=32 at=%lu %s\n", (unsigned long)seg + 16,
           sha8(w8, 32));
  HAS(line);
  for (i = 0; i < 4; i++) gathered[i] = sc[1 + 2 * i];
  snprintf(line, sizeof line, "  [1] offset=0 size=16 at=%lu %s\n", (unsigned long)seg,
           sha8f(gathered, 16));
  HAS(line);
  for (r = 0; r < 4; r++)
    for (c = 0; c < 2; c++) bf[r * 2 + c] = tp_f32_to_bf16(gs[c * 4 + r]);
  {
    unsigned char le[16];
    for (i = 0; i < 8; i++) tp__put_le16(le + 2 * i, bf[i]);
    snprintf(line, sizeof line, "  [3] offset=48 size=16 at=%lu %s\n", (unsigned long)seg + 48,
             sha8(le, 16));
    HAS(line);
  }
  HAS("  [4] offset=64 size=128 ");   /* 4 x 64 nibbles */
  TPT_EQ_INT(robustness(m.data, m.size), 0);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* ---- many node kinds from the writer ------------------------------------------------------- */

static void test_nodes_from_writer(void) {
  tp_xnn_graph *g = NULL;
  tp_membuf m;
  size_t d4[4] = {1, 4, 4, 2}, d2[2] = {4, 8}, perm[4] = {0, 3, 1, 2}, off[4] = {0, 1, 1, 0},
         sz[4] = {1, 2, 2, 2}, pre[4] = {0, 1, 1, 0}, post[4] = {0, 0, 1, 0},
         shape[2] = {4, 8};
  uint32_t v[8];
  int i;
  memset(&m, 0, sizeof m);
  TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &g), TP_OK);
  for (i = 0; i < 6; i++)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, NULL,
               i == 0 ? 0u : i == 5 ? 1u : TP_XNN_INVALID_ID,
               i == 0 ? TP_XNN_FLAG_EXTERNAL_INPUT : i == 5 ? TP_XNN_FLAG_EXTERNAL_OUTPUT : 0u,
               &v[i]), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, TP_XNN_INVALID_ID, 0, &v[6]),
             TP_OK);
  TPT_STATUS(tp_xnn_define_concatenate3(g, 3, v[0], v[1], v[2], v[3], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_static_transpose(g, 4, perm, v[0], v[1], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_static_slice(g, 4, off, sz, v[1], v[2], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_static_constant_pad(g, pre, post, 0.5f, v[2], v[3], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_static_reshape(g, 2, shape, v[3], v[6], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_elu(g, 1.5f, v[3], v[4], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_leaky_relu(g, 0.125f, v[4], v[5], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, v[0], v[1], v[2], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, -1.0f, 1.0f, v[0],
             v[1], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_scaled_dot_product_attention(g, v[0], v[1], v[2], v[3], v[4], v[5],
             0), TP_OK);
  TPT_STATUS(tp_xnn_define_static_resize_bilinear_2d(g, 8, 8, v[0], v[1], 0), TP_OK);
  TPT_STATUS(tp_xnn_define_concatenate5(g, 1, v[0], v[1], v[2], v[3], v[4], v[5], 0), TP_OK);
  TPT_STATUS(tp_xnn_set_debug_handle(g, 3, 77), TP_OK);
  if (!xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); return; }
  TPT_EQ_INT(inspect(m.data, m.size), 0);
  HAS("  #0 Concatenate3 axis=3 input1_id=0 input2_id=1 input3_id=2 output_id=3 flags=0\n");
  HAS("  #1 StaticTranspose num_dims=4 perm=[0, 3, 1, 2] input_id=0 output_id=1 flags=0\n");
  HAS("  #2 StaticSlice num_dims=4 offsets=[0, 1, 1, 0] sizes=[1, 2, 2, 2] input_id=1 "
      "output_id=2 flags=0\n");
  HAS("  #3 StaticConstantPad pre_paddings=[0, 1, 1, 0] post_paddings=[0, 0, 1, 0] "
      "padding_value=0.5 input_id=2 output_id=3 flags=0 debug_handle=77\n");
  HAS("  #4 StaticReshape num_dims=2 new_shape=[4, 8] input_id=3 output_id=6 flags=0\n");
  HAS("  #5 ELU alpha=1.5 input_id=3 output_id=4 flags=0\n");
  HAS("  #6 LeakyReLU negative_slope=0.125 input_id=4 output_id=5 flags=0\n");
  HAS("  #7 ArgMaxPooling2d padding_top=0 padding_right=0 padding_bottom=0 padding_left=0 "
      "pooling_height=2 pooling_width=2 input_id=0 output_value_id=1 output_index_id=2 flags=0\n");
  HAS("  #8 MaxPooling2d padding_top=1 padding_right=1 padding_bottom=1 padding_left=1 "
      "pooling_height=3 pooling_width=3 stride_height=1 stride_width=1 dilation_height=1 "
      "dilation_width=1 input_id=0 output_id=1 flags=0 output_min_max=[-1, 1]\n");
  HAS("  #9 ScaledDotProductAttention query_id=0 key_id=1 value_id=2 scale_id=3 mask_id=4 "
      "output_id=5 flags=0\n");
  HAS("  #10 StaticResizeBilinear2D new_height=8 new_width=8 input_id=0 output_id=1 flags=0\n");
  HAS("  #11 Concatenate5 axis=1 input1_id=0 input2_id=1 input3_id=2 input4_id=3 output_id=5 "
      "flags=0 input5_id=4\n");
  TPT_EQ_INT(robustness(m.data, m.size), 0);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* ---- Vulkan blobs from the writer ----------------------------------------------------------- */

/* y = linear(x, W) with W [4, 8] a transposed view of a [8, 4] storage, plus one value of each
   other kind, an op chain and a shader. */
static float wt[8 * 4];

static tp_vk_graph *vk_graph(tp_store *store, int fp16) {
  tp_vk_tensor_desc vd;
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_storage st;
  int64_t sz[2] = {8, 4}, il[3] = {1, -2, 3};
  double dl[2] = {0.5, -1.25};
  uint8_t bl[3] = {1, 0, 1};
  size_t xd[2] = {1, 8}, yd[2] = {1, 4};
  tp_tensor wv, w;
  uint32_t x, wid, bias, y, n[9], args[4], vl[2];
  static const unsigned char shader[20] = {3, 2, 0x23, 7, 1, 2, 3, 4, 5};
  int i;
  for (i = 0; i < 32; i++) wt[i] = (float)i * 0.25f - 3.0f;
  st.data = wt;
  st.nbytes = sizeof wt;
  memset(&o, 0, sizeof o);
  o.store = store;
  o.force_fp16 = fp16;
  o.other_runtime = 1; /* every field and value kind; y channels-packed: not an ExecuTorch run */
  if (tp_view(st, TP_F32, 2, sz, NULL, 0, &wv, NULL) != TP_OK ||
      tp_transpose(&wv, 0, 1, &w, NULL) != TP_OK)
    return NULL;
  if (tp_vk_graph_create(&o, &g) != TP_OK) return NULL;
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, xd, NULL);
  vd.storage = TP_VK_STORAGE_BUFFER;
  vd.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  tp_vk_add_tensor_desc(g, &vd, &x);
  tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &wid);
  tp_vk_add_null(g, &bias);
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, NULL);
  vd.shares_memory = 1; /* memory object 0 */
  vd.storage = TP_VK_STORAGE_TEXTURE_3D;
  vd.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
  tp_vk_add_tensor_desc(g, &vd, &y);
  tp_vk_add_int(g, -7, &n[0]);
  tp_vk_add_double(g, 2.5, &n[1]);
  tp_vk_add_bool(g, 1, &n[2]);
  tp_vk_add_string(g, "same", &n[3]);
  tp_vk_add_symint(g, 9, &n[4]);
  tp_vk_add_int_list(g, il, 3, &n[5]);
  tp_vk_add_double_list(g, dl, 2, &n[6]);
  tp_vk_add_bool_list(g, bl, 3, &n[7]);
  vl[0] = x;
  vl[1] = y;
  tp_vk_add_value_list(g, vl, 2, &n[8]);
  args[0] = x; args[1] = wid; args[2] = bias; args[3] = y;
  tp_vk_add_op(g, 5, "aten.linear.default", args, 4);
  args[0] = n[8]; args[1] = n[0]; args[2] = y;
  tp_vk_add_op(g, 6, "aten.cat.default", args, 3);
  tp_vk_set_io(g, &x, 1, &y, 1);
  tp_vk_add_shader(g, shader, sizeof shader, NULL);
  return g;
}

static int vk_blob(tp_vk_graph *g, tp_membuf *m) {
  tp_sink sink = tp_sink_membuf(m);
  tp_status s = tp_vk_write(g, &sink);
  if (s != TP_OK) printf("  vulkan writer: %s\n", tp_vk_graph_error(g));
  return s == TP_OK;
}

static void test_vulkan_from_writer(void) {
  tp_vk_graph *g = vk_graph(NULL, 0);
  tp_membuf m;
  float wrow[32];
  char line[256];
  uint32_t seg;
  int r, c;
  memset(&m, 0, sizeof m);
  TPT_CHECK(g != NULL);
  if (!g || !vk_blob(g, &m)) { TPT_CHECK(0); tp_vk_graph_destroy(g); return; }
  seg = tp__get_le32(m.data + 18);
  TPT_EQ_INT(inspect(m.data, m.size), 0);
  HAS("Vulkan delegate blob: ");
  HAS("flatbuffer VK00 (VkGraph): ");
  HAS("version \"0\", 13 values, 2 ops, 1 constants, 1 shaders\n");
  HAS("input_ids: [0]\noutput_ids: [3]\n");
  HAS("  [0] Tensor FLOAT32 dims=[1, 8] constant_id=-1 mem_obj_id=-1 storage=BUFFER "
      "layout=TENSOR_WIDTH_PACKED staging=FLOAT32\n");
  HAS("  [1] Tensor FLOAT32 dims=[4, 8] constant_id=0 mem_obj_id=-1 storage=DEFAULT "
      "layout=DEFAULT staging=FLOAT32\n");
  HAS("  [2] Null\n");
  HAS("  [3] Tensor FLOAT32 dims=[1, 4] constant_id=-1 mem_obj_id=0 storage=TEXTURE_3D "
      "layout=TENSOR_CHANNELS_PACKED staging=FLOAT32\n");
  HAS("  [4] Int -7\n  [5] Double 2.5\n  [6] Bool true\n  [7] String \"same\"\n  [8] SymInt 9\n"
      "  [9] IntList [1, -2, 3]\n  [10] DoubleList [0.5, -1.25]\n  [11] BoolList [true, false, "
      "true]\n  [12] ValueList [0, 3]\n");
  HAS("  #0 node_id=5 \"aten.linear.default\" args=[0, 1, 2, 3]\n"
      "  #1 node_id=6 \"aten.cat.default\" args=[12, 4, 3]\n");
  /* the constant is W row-major: W[r][c] = wt[c * 4 + r] */
  for (r = 0; r < 4; r++)
    for (c = 0; c < 8; c++) wrow[r * 8 + c] = wt[c * 4 + r];
  snprintf(line, sizeof line, "  [0] offset=0 length=128 at=%lu %s\n", (unsigned long)seg,
           sha8f(wrow, 128));
  HAS(line);
  LACKS(sha8f(wt, 128));
  HAS("shaders: 1 entries\n  [0] offset=128 length=20 at=");
  TPT_EQ_INT(robustness(m.data, m.size), 0);
  tp_membuf_free(&m);
  tp_vk_graph_destroy(g);
}

static void test_vulkan_named_fp16(void) {
  tp_store *store = NULL;
  tp_vk_graph *g;
  tp_membuf m, p;
  tp_sink sink;
  unsigned char h[64];
  char hex[65], line[256];
  int r, c;
  memset(&m, 0, sizeof m);
  memset(&p, 0, sizeof p);
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  g = vk_graph(store, 1);
  TPT_CHECK(g != NULL);
  if (!g || !vk_blob(g, &m)) { TPT_CHECK(0); tp_vk_graph_destroy(g); tp_store_destroy(store); return; }
  sink = tp_sink_membuf(&p);
  TPT_STATUS(tp_store_write_ptd(store, &sink), TP_OK);
  for (r = 0; r < 4; r++)
    for (c = 0; c < 8; c++) tp__put_le16(h + 2 * (r * 8 + c), tp_f32_to_f16(wt[c * 4 + r]));
  tp_sha256_hex(h, sizeof h, hex);
  TPT_EQ_INT(inspect_ptd(m.data, m.size, p.data, p.size), 0);
  HAS("  [1] Tensor FLOAT16 dims=[4, 8] constant_id=0 mem_obj_id=-1 storage=DEFAULT "
      "layout=DEFAULT staging=FLOAT16\n");
  HAS("  [0] Tensor FLOAT16 dims=[1, 8] constant_id=-1 mem_obj_id=-1 storage=BUFFER "
      "layout=TENSOR_WIDTH_PACKED staging=FLOAT32\n");
  snprintf(line, sizeof line, "  [0] named_key=\"%s\" length=64 in .ptd: %s\n", hex, sha8(h, 64));
  HAS(line);
  TPT_EQ_INT(inspect(p.data, p.size), 0);
  snprintf(line, sizeof line, "key=\"%s\" segment=0 at=", hex);
  HAS(line);
  TPT_EQ_INT(robustness(m.data, m.size), 0);
  tp_membuf_free(&m);
  tp_membuf_free(&p);
  tp_vk_graph_destroy(g);
  tp_store_destroy(store);
}

/* ---- --json --------------------------------------------------------------------------------- */

static void test_json(void) {
  tp_store *store = NULL;
  tp_xnn_graph *g = seed_graph(NULL), *gn;
  tp_membuf m, mn, p;
  tp_sink sink;
  char hex[65], line[512];
  memset(&m, 0, sizeof m);
  memset(&mn, 0, sizeof mn);
  memset(&p, 0, sizeof p);
  TPT_CHECK(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\u0022\"], \"b\": {}}"));
  TPT_CHECK(!json_valid("{\"a\": [1,]}"));
  TPT_CHECK(!json_valid("{\"a\": \"\x01\"}"));
  if (!g || !xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); return; }
  sha_hex_f32(storage + 64, 256, hex);
  TPT_EQ_INT(inspect_json(m.data, m.size, NULL, 0), 0);
  snprintf(line, sizeof line, "{\"format\": \"xnnpack\", \"size\": %zu, \"ok\": true, "
           "\"error\": null,\n\"constants\": [\n", m.size);
  TPT_CHECK(strncmp(jreport, line, strlen(line)) == 0);
  snprintf(line, sizeof line, "{\"section\": \"constant_data\", \"index\": 1, \"source\": "
           "\"blob\", \"at\": %lu, \"size\": 256, \"sha256\": \"%s\"}",
           (unsigned long)tp__get_le32(m.data + 18), hex);
  HAS_IN(jreport, line);
  /* named: unresolved without the .ptd, resolved with it */
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  gn = seed_graph(store);
  if (!gn || !xnn_blob(gn, &mn)) { TPT_CHECK(0); goto out; }
  sink = tp_sink_membuf(&p);
  TPT_STATUS(tp_store_write_ptd(store, &sink), TP_OK);
  TPT_EQ_INT(inspect_json(mn.data, mn.size, NULL, 0), 0);
  snprintf(line, sizeof line, "{\"section\": \"constant_data\", \"index\": 1, \"key\": \"%s\", "
           "\"source\": \"unresolved\", \"size\": 256}", hex);
  HAS_IN(jreport, line);
  TPT_EQ_INT(inspect_json(mn.data, mn.size, p.data, p.size), 0);
  snprintf(line, sizeof line, "{\"section\": \"constant_data\", \"index\": 1, \"key\": \"%s\", "
           "\"source\": \"ptd\", \"size\": 256, \"sha256\": \"%s\"}", hex, hex);
  HAS_IN(jreport, line);
  TPT_EQ_INT(inspect_json(p.data, p.size, NULL, 0), 0);
  snprintf(line, sizeof line, "{\"section\": \"named_data\", \"index\": 0, \"key\": \"%s\", "
           "\"source\": \"blob\", \"at\": %llu, \"size\": 256, \"sha256\": \"%s\"}", hex,
           (unsigned long long)tp__get_le64(p.data + 32), hex);
  HAS_IN(jreport, line);
  /* a failure: ok false, the reason as an escaped string, the same exit code */
  TPT_EQ_INT(inspect_json(mn.data, mn.size, m.data, m.size), 2);
  HAS_IN(jreport, "\"ok\": false, \"error\": \"the --ptd file: ");
  TPT_EQ_INT(inspect_json((const unsigned char *)"ab\"\\cdefgh\x01", 11, NULL, 0), 2);
  HAS_IN(jreport, "{\"format\": null, \"size\": 11, \"ok\": false, \"error\": "
               "\"unknown format: bytes 4..7 are \\u0022cdef\\u0022 (want");
out:
  tp_membuf_free(&m);
  tp_membuf_free(&mn);
  tp_membuf_free(&p);
  tp_xnn_graph_destroy(g);
  tp_xnn_graph_destroy(gn);
  tp_store_destroy(store);
}

/* ---- small and strange inputs -------------------------------------------------------------- */

static void test_small_inputs(void) {
  static const unsigned char junk[12] = {0, 1, 2, 3, 0, 1, 2, 3, 9, 9, 9, 9};
  static const unsigned char ft_only[16] = {12, 0, 0, 0, 'F', 'T', '0', '1'};
  static const unsigned char xh_short[20] = {0, 0, 0, 0, 'X', 'H', '0', '0', 30, 0};
  TPT_EQ_INT(inspect(junk, 0), 2);
  TPT_EQ_STR(last_err.msg, "0 bytes: too short for any blob (an identifier sits at bytes 4..7)");
  TPT_EQ_INT(inspect(junk, 7), 2);
  TPT_EQ_STR(last_err.msg, "7 bytes: too short for any blob (an identifier sits at bytes 4..7)");
  TPT_EQ_INT(inspect(junk, 12), 2);
  TPT_EQ_STR(last_err.msg, "unknown format: bytes 4..7 are \"00 01 02 03\" (want XH00, XN01, "
             "XN00, VH00, VK00, FT01 or ET12)");
  TPT_EQ_INT(inspect(ft_only, sizeof ft_only), 2);
  TPT_CONTAINS(last_err.msg, ".ptd: ");
  TPT_EQ_INT(inspect(xh_short, sizeof xh_short), 2);
  TPT_EQ_STR(last_err.msg, "XH00 header: file is 20 bytes, the header needs 30");
  TPT_EQ_INT(last_err.status, TP_ERR_FORMAT);
}

/* ---- the command-line tool ---------------------------------------------------------------- */

static int run(const char *args, const char *dir) {
  char cmd[1024];
  int rc;
  snprintf(cmd, sizeof cmd, "%s %s >%s/out.txt 2>%s/err.txt", TPDUMP_BIN, args, dir, dir);
  rc = system(cmd);
  return rc >= 0 && (rc & 0x7f) == 0 ? (rc >> 8) & 0xff : -1;
}

static void test_cli(void) {
  tp_xnn_graph *g = seed_graph(NULL);
  tp_membuf m;
  char dir[] = "/tmp/tpdump-test-XXXXXX", path[128], args[512], cmd[160];
  FILE *f;
  memset(&m, 0, sizeof m);
  TPT_CHECK(g != NULL && mkdtemp(dir) != NULL);
  if (!g || !xnn_blob(g, &m)) { TPT_CHECK(0); tp_xnn_graph_destroy(g); return; }
  snprintf(path, sizeof path, "%s/seed.xnn", dir);
  f = fopen(path, "wb");
  TPT_CHECK(f && fwrite(m.data, 1, m.size, f) == m.size);
  if (f) fclose(f);
  TPT_EQ_INT(run(path, dir), 0);
  snprintf(args, sizeof args, "--check %s", path);
  TPT_EQ_INT(run(args, dir), 0);
  snprintf(args, sizeof args, "--json %s", path);
  TPT_EQ_INT(run(args, dir), 0);
  snprintf(args, sizeof args, "--json --check %s", path);      /* one or the other */
  TPT_EQ_INT(run(args, dir), 1);
  snprintf(args, sizeof args, "%s --ptd %s", path, path);      /* not a .ptd: 2 */
  TPT_EQ_INT(run(args, dir), 2);
  snprintf(args, sizeof args, "%s --ptd %s/missing.ptd", path, dir);
  TPT_EQ_INT(run(args, dir), 1);
  snprintf(args, sizeof args, "%s --ptd", path);               /* --ptd without its file */
  TPT_EQ_INT(run(args, dir), 1);
  /* the same file cut short: 2 */
  f = fopen(path, "wb");
  TPT_CHECK(f && fwrite(m.data, 1, m.size - 3, f) == m.size - 3);
  if (f) fclose(f);
  TPT_EQ_INT(run(path, dir), 2);
  snprintf(args, sizeof args, "--check %s", path);
  TPT_EQ_INT(run(args, dir), 2);
  snprintf(path, sizeof path, "%s/missing", dir);
  TPT_EQ_INT(run(path, dir), 1);
  TPT_EQ_INT(run("a b", dir), 1);
  { /* well formed but against the writer's rules (written unchecked): exit 3, the rule named */
    tp_xnn_graph *u = NULL;
    tp_membuf um;
    size_t d1[1] = {4};
    char line[256];
    FILE *ef;
    memset(&um, 0, sizeof um);
    TPT_STATUS(tp_xnn_graph_create(&g_unchecked, &u), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(u, TP_XNN_FP32, 1, d1, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(u, TP_XNN_FP32, 1, d1, NULL, 2,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, NULL), TP_OK);
    TPT_STATUS(tp_xnn_define_abs(u, 0, 1, 0), TP_OK);
    if (xnn_blob(u, &um)) {
      snprintf(path, sizeof path, "%s/gap.xnn", dir);
      f = fopen(path, "wb");
      TPT_CHECK(f && fwrite(um.data, 1, um.size, f) == um.size);
      if (f) fclose(f);
      snprintf(args, sizeof args, "--check %s", path);
      TPT_EQ_INT(run(args, dir), 3);
      snprintf(line, sizeof line, "%s/err.txt", dir);
      ef = fopen(line, "r");
      memset(line, 0, sizeof line);
      TPT_CHECK(ef && fgets(line, sizeof line, ef) != NULL);
      if (ef) fclose(ef);
      TPT_CONTAINS(line, "well formed, but breaks a rule: external ids must be dense 0..2: no "
                         "value has external id 1");
      TPT_EQ_INT(run(path, dir), 3);
    }
    tp_membuf_free(&um);
    tp_xnn_graph_destroy(u);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  TPT_EQ_INT(system(cmd), 0);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

int main(void) {
  g_unchecked.target = TP_XNN_TARGET_UNCHECKED;
  TPT_RUN(test_node_table_matches_writer);
  TPT_RUN(test_seed_inline);
  TPT_RUN(test_seed_named_and_ptd);
  TPT_RUN(test_quantized_from_writer);
  TPT_RUN(test_nodes_from_writer);
  TPT_RUN(test_vulkan_from_writer);
  TPT_RUN(test_vulkan_named_fp16);
  TPT_RUN(test_json);
  TPT_RUN(test_small_inputs);
  TPT_RUN(test_cli);
  printf("%lu files inspected in-process (damaged variants included)\n", inspections);
  return tpt_finish("tpdump");
}
