/* tpdump on blobs made by the official FlatBuffers compiler: the JSON files in tests/data
   (tpdump_xnnpack.json, tpdump_vulkan.json, tpdump_ptd.json) and variants of them written
   here -> `flatc --binary` with the schemas in tests/schemas -> wrapped the
   way ExecuTorch wraps them (XH00 / VH00 delegate header + constant segment, FH01 header
   inserted into a FlatTensor) -> tpdump_inspect in-process: the printed fields, the checks
   (exact messages), truncation at every byte and single-byte changes (exit 0 or 2, never a
   crash or a sanitizer report), and the command-line tool's exit codes.
   Needs flatc (mk/tpdump.mk lists it as skipped otherwise). Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#define TPDUMP_NO_MAIN
#include "tools/tpdump.c"
#include "tp_test.h"

#include <stdarg.h>
#include <stdlib.h>

#ifndef TPDUMP_BIN
#define TPDUMP_BIN "build/tools/tpdump"
#endif

static char tmpdir[64];

/* ---- files -------------------------------------------------------------------------------- */

static int write_all(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (!f) return 0;
  ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* The text of tests/data/<name> with `from` replaced by `to` (from == NULL: unchanged). */
static char *json_variant(const char *name, const char *from, const char *to) {
  char path[256], *src, *out, *hit;
  size_t n;
  snprintf(path, sizeof path, "tests/data/%s", name);
  src = tpt_read_file(path, &n);
  if (!src) return NULL;
  if (!from) return src;
  hit = strstr(src, from);
  if (!hit || strstr(hit + 1, from)) { free(src); return NULL; }   /* must occur once */
  out = (char *)malloc(n - strlen(from) + strlen(to) + 1);
  if (out) {
    memcpy(out, src, (size_t)(hit - src));
    strcpy(out + (hit - src), to);
    strcat(out, hit + strlen(from));
  }
  free(src);
  return out;
}

/* flatc --binary: JSON text -> flatbuffer bytes. */
static unsigned char *flatc(const char *schema, const char *ext, const char *json, size_t *size) {
  char jpath[128], bpath[128], cmd[512];
  unsigned char *bin;
  snprintf(jpath, sizeof jpath, "%s/in.json", tmpdir);
  snprintf(bpath, sizeof bpath, "%s/in.%s", tmpdir, ext);
  remove(bpath);
  if (!json || !write_all(jpath, json, strlen(json))) return NULL;
  snprintf(cmd, sizeof cmd, "flatc --binary -I tests/schemas -o %s tests/schemas/%s %s", tmpdir,
           schema, jpath);
  if (system(cmd) != 0) return NULL;
  bin = (unsigned char *)tpt_read_file(bpath, size);
  return bin;
}

/* Deterministic segment bytes. */
static void fill(unsigned char *p, size_t n, unsigned seed) {
  size_t i;
  for (i = 0; i < n; i++) p[i] = (unsigned char)(i * 37u + seed * 101u + 11u);
}

static size_t al(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* An XH00 / VH00 delegate blob: 30-byte header padded to 32, the flatbuffer padded to 16,
   then a segment of seg_size bytes (fill(.., 7)). */
static unsigned char *wrap_delegate(const char *magic, const unsigned char *fb, size_t fb_size,
                                    size_t seg_size, size_t *size) {
  size_t seg_off = 32 + al(fb_size, 16), n = seg_off + seg_size;
  unsigned char *b = (unsigned char *)calloc(1, n);
  if (!b) return NULL;
  memcpy(b + 4, magic, 4);
  tp__put_le16(b + 8, 30);
  tp__put_le32(b + 10, 32);
  tp__put_le32(b + 14, (uint32_t)fb_size);
  tp__put_le32(b + 18, (uint32_t)seg_off);
  tp__put_le64(b + 22, seg_size);
  memcpy(b + 32, fb, fb_size);
  fill(b + seg_off, seg_size, 7);
  *size = n;
  return b;
}

/* A .ptd the way ExecuTorch's serializer makes one: the 40-byte FH01 header padded to 48
   inserted after the identifier (root offset + 48), padding to the 128-aligned segment base,
   then seg_size bytes of segment data (fill(.., 3)). */
static unsigned char *wrap_ptd(const unsigned char *fb, size_t fb_size, size_t seg_size,
                               size_t *size, size_t *base_out) {
  size_t base = al(fb_size + 48, 128), n = base + seg_size;
  unsigned char *b = (unsigned char *)calloc(1, n);
  if (!b) return NULL;
  tp__put_le32(b, tp__get_le32(fb) + 48);
  memcpy(b + 4, fb + 4, 4);
  memcpy(b + 8, "FH01", 4);
  tp__put_le32(b + 12, 40);
  tp__put_le64(b + 16, 48);
  tp__put_le64(b + 24, fb_size);
  tp__put_le64(b + 32, base);
  tp__put_le64(b + 40, seg_size);
  memcpy(b + 56, fb + 8, fb_size - 8);
  fill(b + base, seg_size, 3);
  *size = n;
  *base_out = base;
  return b;
}

/* ---- running tpdump ------------------------------------------------------------------------ */

static char report[65536];
static unsigned long inspections;   /* tpdump_inspect calls, reported at the end */
static tp_error last_err;

/* tpdump_inspect on a 16-aligned copy; the report lands in `report`. */
static int inspect(const unsigned char *p, size_t n) {
  tp_membuf out;
  int rc;
  unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
  memset(&out, 0, sizeof out);
  if (n) memcpy(copy, p, n);
  rc = tpdump_inspect(copy, n, &out, &last_err);
  inspections++;
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

/* Substring checks that show the whole text once when they fail. */
static const char *shown_case;
static void has_at(const char *file, int line, const char *hay, const char *needle) {
  char m[640];
  if (hay && strstr(hay, needle)) return;
  snprintf(m, sizeof m, "missing \"%.500s\"", needle);
  tpt_fail_at(file, line, m);
  if (shown_case != tpt_case) {
    shown_case = tpt_case;
    printf("---- the text was:\n%s----\n", hay ? hay : "(null)");
  }
}
#define HAS(needle) has_at(__FILE__, __LINE__, report, needle)
#define HAS_IN(hay, needle) has_at(__FILE__, __LINE__, hay, needle)

/* "sha256=xxxxxxxx" of bytes, for the expected report lines. */
static const char *sha8(const unsigned char *p, size_t n) {
  static char s[80];
  char hex[65];
  tp_sha256_hex(p, n, hex);
  hex[8] = '\0';
  snprintf(s, sizeof s, "sha256=%s", hex);
  return s;
}

/* Truncation at every length and single-byte changes at every position: 0 or 2, no crash. */
static void robustness(const unsigned char *p, size_t n, int *bad_rc) {
  size_t i, k;
  static const unsigned char xor_with[] = {0xff, 0x01, 0x80};
  unsigned char *m = (unsigned char *)malloc(n);
  for (i = 0; i < n; i++) {
    int rc = inspect(p, i);
    if (rc != 2) (*bad_rc)++;           /* every proper prefix is malformed */
  }
  memcpy(m, p, n);
  for (i = 0; i < n; i++) {
    for (k = 0; k < sizeof xor_with; k++) {
      int rc;
      m[i] = (unsigned char)(p[i] ^ xor_with[k]);
      rc = inspect(m, n);
      if (rc != 0 && rc != 2) (*bad_rc)++;
    }
    m[i] = p[i];
  }
  /* random damage: 1 to 8 bytes set to random values, 2000 times */
  for (i = 0; i < 2000; i++) {
    int rc, hits = (int)tpt_range(1, 8), h;
    memcpy(m, p, n);
    for (h = 0; h < hits; h++) m[tpt_range(0, (int64_t)n - 1)] = (unsigned char)tpt_rand();
    rc = inspect(m, n);
    if (rc != 0 && rc != 2) (*bad_rc)++;
  }
  free(m);
}

/* ---- XNNPACK ------------------------------------------------------------------------------ */

#define XNN_SEG 224   /* the constant segment the JSON's constant_data describes */

static unsigned char *xnn_blob(const char *from, const char *to, size_t seg, size_t *n) {
  size_t fbn = 0;
  char *json = json_variant("tpdump_xnnpack.json", from, to);
  unsigned char *fb = flatc("xnnpack.fbs", "bin", json, &fbn), *b = NULL;
  free(json);
  if (fb) b = wrap_delegate("XH00", fb, fbn, seg, n);
  free(fb);
  return b;
}

static void test_xnn_fields(void) {
  size_t n = 0, fbn = 0, seg;
  unsigned char *b = xnn_blob(NULL, NULL, XNN_SEG, &n);
  char line[256];
  TPT_CHECK(b != NULL);
  if (!b) return;
  fbn = tp__get_le32(b + 14);
  seg = tp__get_le32(b + 18);
  TPT_EQ_INT(inspect(b, n), 0);
  TPT_EQ_INT(last_err.status, TP_OK);
  HAS("XNNPACK delegate blob: ");
  snprintf(line, sizeof line, "header XH00: length 30, flatbuffer offset 32 size %lu, constant "
           "data offset %lu size 224\n", (unsigned long)fbn, (unsigned long)seg);
  HAS(line);
  HAS("flatbuffer XN01 (XNNGraph): ");
  HAS("version \"1\", num_externs 2, 10 values, 3 nodes, 8 constant_data entries");
  HAS("input_ids: [0]\noutput_ids: [3]\n");
  HAS("  [0] id_out=0 tensor fp32 dims=[1, 8] external_id=0 flags=0x1 (input)\n");
  HAS("  [1] id_out=1 tensor fp32 dims=[4, 8] constant=1\n");
  HAS("  [3] id_out=3 tensor fp32 dims=[1, 4] external_id=1 flags=0x2 (output)\n");
  HAS("  [4] id_out=4 quantized tensor qcint8 dims=[4, 8] constant=3 per_channel "
               "channel_dim=0 scale_buffer_idx=4 num_scales=4 scale=[]\n");
  HAS("  [5] id_out=5 quantized tensor qbint4 dims=[4, 8] constant=5 "
               "per_channel_group channel_dim=0 group_size=4 scale_buffer_idx=6 num_scales=8 "
               "scale=[]\n");
  HAS("  [6] id_out=6 quantized tensor qint8 dims=[16] constant=7 per_tensor "
               "scale=0.25 zero_point=-3\n");
  HAS("  [7] id_out=7 quantized tensor qdint8 dims=[1, 8] per_token_dynamic "
               "num_nonbatch_dims=1\n");
  HAS("  #0 FullyConnected input1_id=0 filter_id=1 bias_id=2 output_id=3 flags=0 "
               "debug_handle=7 output_min_max=[-1.5, 2.5]\n");
  HAS("  #1 Concatenate2 axis=1 input1_id=3 input2_id=3 output_id=8 flags=0\n");
  HAS("  #2 StaticTranspose num_dims=2 perm=[1, 0] input_id=8 output_id=9 "
               "flags=0\n");
  snprintf(line, sizeof line, "constant_data: 8 entries, segment at %lu, 224 bytes\n",
           (unsigned long)seg);
  HAS(line);
  HAS("  [0] offset=0 size=0 at=");
  snprintf(line, sizeof line, "  [1] offset=0 size=128 at=%lu %s\n", (unsigned long)seg,
           sha8(b + seg, 128));
  HAS(line);
  snprintf(line, sizeof line, "  [6] offset=208 size=16 at=%lu %s\n", (unsigned long)seg + 208,
           sha8(b + seg + 208, 16));
  HAS(line);
  HAS("  [7] named_key=\"tensorpack_named_w\" offset=none size=16\n");
  TPT_CHECK(strstr(report, "input3_id") == NULL);   /* Concatenate2 shows two inputs */
  free(b);
}

static const char bare_json[] =
  "{ xnodes: [ { xnode_union_type: \"XNNAdd\", xnode_union: { input1_id: 0, input2_id: 1,"
  " output_id: 2 } } ],"
  "  xvalues: ["
  "    { xvalue_union_type: \"XNNTensorValue\", xvalue_union: { datatype: \"xnn_datatype_fp16\","
  "      num_dims: 1, dims: [3], external_id: 0, flags: 1, id_out: 0 } },"
  "    { xvalue_union_type: \"XNNTensorValue\", xvalue_union: { datatype: \"xnn_datatype_fp16\","
  "      num_dims: 1, dims: [3], external_id: 1, flags: 1, id_out: 1 } },"
  "    { xvalue_union_type: \"XNNTensorValue\", xvalue_union: { datatype: \"xnn_datatype_fp16\","
  "      num_dims: 1, dims: [3], external_id: 2, flags: 2, id_out: 2 } } ],"
  "  num_externs: 3, input_ids: [0, 1], output_ids: [2] }";

/* The flatbuffer alone (no XH00): inline constants have no segment to live in. */
static void test_xnn_bare(void) {
  size_t fbn = 0;
  char *json = json_variant("tpdump_xnnpack.json", NULL, NULL);
  unsigned char *fb = flatc("xnnpack.fbs", "bin", json, &fbn);
  free(json);
  TPT_CHECK(fb != NULL);
  if (!fb) return;
  TPT_EQ_INT(inspect(fb, fbn), 2);
  HAS("XNNPACK flatbuffer without XH00 header");
  TPT_EQ_STR(last_err.msg, "constant_data[1]: [0, +128) is outside the 0-byte constant segment");
  free(fb);
  /* a graph without constant bytes is fine bare */
  fb = flatc("xnnpack.fbs", "bin", bare_json, &fbn);
  TPT_CHECK(fb != NULL);
  if (!fb) return;
  TPT_EQ_INT(inspect(fb, fbn), 0);
  HAS("version (absent), num_externs 3, 3 values, 1 nodes, 0 constant_data "
               "entries\n");
  HAS("  #0 Add input1_id=0 input2_id=1 output_id=2 flags=0\n");
  HAS("constant_data: 0 entries, segment at 0, 0 bytes\n");
  free(fb);
}

typedef struct mutation {
  const char *from, *to;
  const char *msg;    /* the exact error */
} mutation;

static void test_xnn_malformed(void) {
  static const mutation m[] = {
    {"filter_id: 1,", "filter_id: 42,",
     "node 0 (FullyConnected): filter_id 42 is no value's id_out"},
    {"input2_id: 3, output_id: 8", "input2_id: 77, output_id: 8",
     "node 1 (Concatenate2): input2_id 77 is no value's id_out"},
    {"{ offset: 208, size: 16 }", "{ offset: 216, size: 16 }",
     "constant_data[6]: [216, +16) is outside the 224-byte constant segment"},
    {"{ offset: 128, size: 16 }", "{ offset: 128, size: 12 }",
     "value 2: constant 2 holds 12 bytes, the value needs 16"},
    {"dims: [1, 4], external_id: 1", "dims: [1, 4], external_id: 2",
     "value 3: external_id 2 but num_externs is 2"},
    {"num_dims: 1, dims: [4]", "num_dims: 2, dims: [4]",
     "value 2: num_dims 2 but dims has 1 entries"},
    {"scale_buffer_idx: 4, num_scales: 4", "scale_buffer_idx: 4, num_scales: 3",
     "value 4: num_scales 3 but dims[0] is 4"},
    {"scale_buffer_idx: 6, num_scales: 8", "scale_buffer_idx: 6, num_scales: 6",
     "value 5: 6 scales, dims 4 x 8 with group_size 4 need 8"},
    {"scale_buffer_idx: 4, num_scales: 4", "scale_buffer_idx: 9, num_scales: 4",
     "value 4: scale_buffer_idx 9 but constant_data has 8 entries"},
    {"constant_buffer_idx: 3,", "constant_buffer_idx: 8,",
     "value 4: constant 8 but constant_data has 8 entries"},
    {"quant_params: { scale: [], channel_dim: 0, scale_buffer_idx: 4",
     "quant_params: { channel_dim: 0, scale_buffer_idx: 4",
     "value 4: per-channel scale vector absent (the loader reads it unchecked)"},
    {"channel_dim: 0, scale_buffer_idx: 4", "channel_dim: 2, scale_buffer_idx: 4",
     "value 4: channel_dim 2 outside its 2 dims"},
    {"scale: [], channel_dim: 0, scale_buffer_idx: 4",
     "scale: [0.5, 0.25], channel_dim: 0, scale_buffer_idx: 0",
     "value 4: 2 scales in the scale vector but dims[0] is 4"},
    {"dims: [1, 8], external_id: 4294967295, id_out: 7",
     "dims: [4, 4], constant_buffer_idx: 2, external_id: 4294967295, id_out: 7",
     "value 7: dynamically quantized with constant 2 (the loader refuses data)"},
    {"id_out: 9 }", "id_out: 8 }", "two values have id_out 8"},
    {"output_ids: [3]", "output_ids: [30]", "output_ids[0] = 30 is no value's id_out"},
    {"num_externs: 2", "num_externs: 5000", "num_externs 5000 exceeds 4096"},
    {"datatype: \"xnn_datatype_fp32\", num_dims: 1", "datatype: 99, num_dims: 1",
     "value 2: datatype 99 is not an XNNDatatype"},
  };
  size_t i;
  tp_error le;
  for (i = 0; i < sizeof m / sizeof m[0]; i++) {
    size_t n = 0;
    unsigned char *b = xnn_blob(m[i].from, m[i].to, XNN_SEG, &n);
    TPT_CHECK(b != NULL);
    if (!b) { printf("  mutation %zu did not build\n", i); continue; }
    if (m[i].msg) {
      TPT_EQ_INT(inspect(b, n), 2);
      TPT_EQ_INT(last_err.status, TP_ERR_FORMAT);
      TPT_EQ_STR(last_err.msg, m[i].msg);
      /* the verdict is the library's: tp_xnn_check_blob refuses it too, with this sentence */
      TPT_STATUS(tp_xnn_check_blob(b, n, TP_XNN_TARGET_UNCHECKED, &le), TP_ERR_FORMAT);
      TPT_EQ_STR(le.msg, m[i].msg);
    }
    free(b);
  }
}

/* The report of a malformed blob is tp_xnn_read_blob's result up to where the reader stopped:
   its last line is the last entry before the failing one (or the part's heading). */
static void test_xnn_report_stops(void) {
  static const struct { const char *from, *to, *last; } m[] = {
    {"id_out: 9 }", "id_out: 8 }", "flatbuffer XN01 (XNNGraph): "},       /* the graph */
    {"output_ids: [3]", "output_ids: [30]", "output_ids: [30]"},          /* the ids line */
    {"num_dims: 1, dims: [4]", "num_dims: 2, dims: [4]", "  [1] id_out="}, /* value 2 */
    {"filter_id: 1,", "filter_id: 42,", "nodes:"},                        /* node 0 */
    {"input2_id: 3, output_id: 8", "input2_id: 77, output_id: 8", "  #0 FullyConnected "},
    {"{ offset: 208, size: 16 }", "{ offset: 216, size: 16 }", "  [5] offset="},
  };
  size_t i;
  for (i = 0; i < sizeof m / sizeof m[0]; i++) {
    size_t n = 0, len;
    unsigned char *b = xnn_blob(m[i].from, m[i].to, XNN_SEG, &n);
    const char *last;
    TPT_CHECK(b != NULL);
    if (!b) continue;
    TPT_EQ_INT(inspect(b, n), 2);
    len = strlen(report);
    TPT_CHECK(len > 0 && report[len - 1] == '\n');
    for (last = report + (len ? len - 1 : 0); last > report && last[-1] != '\n'; last--) {}
    if (strncmp(last, m[i].last, strlen(m[i].last)) != 0) {
      printf("  mutation %zu: the report ends with \"%s\", want \"%s...\"\n", i, last, m[i].last);
      TPT_CHECK(0);
    }
    free(b);
  }
}

static void test_xnn_dims_absent(void) {
  /* flatc refuses unknown fields, so the "dims absent" case is made by leaving dims out */
  size_t n = 0;
  unsigned char *b = xnn_blob("num_dims: 2, dims: [8, 1],", "num_dims: 2,", XNN_SEG, &n);
  TPT_CHECK(b != NULL);
  if (!b) return;
  TPT_EQ_INT(inspect(b, n), 2);
  TPT_EQ_STR(last_err.msg, "value 9: dims absent (the loader reads them unchecked)");
  /* the report is the reader's result up to where it stopped: values 0..8, not 9 nor nodes */
  HAS("values:\n  [0] id_out=");
  HAS("\n  [8] id_out=");
  TPT_CHECK(strstr(report, "\n  [9] id_out=") == NULL);
  TPT_CHECK(strstr(report, "nodes:") == NULL);
  free(b);
}

static void test_xnn_header_checks(void) {
  size_t n = 0;
  unsigned char *b = xnn_blob(NULL, NULL, XNN_SEG, &n), *c;
  uint32_t fbn, seg;
  char msg[256];
  TPT_CHECK(b != NULL);
  if (!b) return;
  fbn = tp__get_le32(b + 14);
  seg = tp__get_le32(b + 18);
  c = (unsigned char *)malloc(n);
  /* segment size one byte past the end */
  memcpy(c, b, n);
  tp__put_le64(c + 22, XNN_SEG + 1);
  TPT_EQ_INT(inspect(c, n), 2);
  snprintf(msg, sizeof msg, "XH00 header: constant data at %lu of 225 bytes ends past the "
           "%zu-byte file", (unsigned long)seg, n);
  TPT_EQ_STR(last_err.msg, msg);
  /* segment overlapping the flatbuffer */
  memcpy(c, b, n);
  tp__put_le32(c + 18, 40);
  tp__put_le64(c + 22, 16);
  TPT_EQ_INT(inspect(c, n), 2);
  snprintf(msg, sizeof msg, "XH00 header: constant data offset 40 overlaps the flatbuffer "
           "[32, %lu)", (unsigned long)(32 + fbn));
  TPT_EQ_STR(last_err.msg, msg);
  /* header length below 30 */
  memcpy(c, b, n);
  tp__put_le16(c + 8, 29);
  TPT_EQ_INT(inspect(c, n), 2);
  TPT_EQ_STR(last_err.msg, "XH00 header: length 29 < 30");
  /* flatbuffer past the end */
  memcpy(c, b, n);
  tp__put_le32(c + 14, (uint32_t)n);
  TPT_EQ_INT(inspect(c, n), 2);
  snprintf(msg, sizeof msg, "XH00 header: flatbuffer [32, %zu) ends past the %zu-byte file",
           n + 32, n);
  TPT_EQ_STR(last_err.msg, msg);
  /* wrong identifier inside */
  memcpy(c, b, n);
  memcpy(c + 36, "XN99", 4);
  TPT_EQ_INT(inspect(c, n), 2);
  TPT_EQ_STR(last_err.msg, "flatbuffer identifier is not XN00 or XN01");
  /* XN00 (the runtime schema's identifier) is accepted */
  memcpy(c, b, n);
  memcpy(c + 36, "XN00", 4);
  TPT_EQ_INT(inspect(c, n), 0);
  HAS("flatbuffer XN00 (XNNGraph)");
  free(c);
  free(b);
}

/* Every XNodeUnion member, built by flatc from JSON that names each field: field f of node k
   gets 1000 * k + f (floats k + f / 4, vectors [k, f]); value ids get values with those
   id_outs. The report must name the kind by its tag and show each field under its name. */
typedef struct jbuf { char *p; size_t n, cap; } jbuf;
static void jadd(jbuf *j, const char *fmt, ...) TP__PRINTF(2, 3);
static void jadd(jbuf *j, const char *fmt, ...) {
  va_list ap;
  int k;
  if (j->cap - j->n < 512) {
    j->cap = j->cap * 2 + 4096;
    j->p = (char *)realloc(j->p, j->cap);
  }
  va_start(ap, fmt);
  k = vsnprintf(j->p + j->n, j->cap - j->n, fmt, ap);
  va_end(ap);
  if (k > 0) j->n += (size_t)k;
}

static void test_xnn_all_node_kinds(void) {
  jbuf j = {NULL, 0, 0}, want = {NULL, 0, 0};
  unsigned k, f, nvalues = 0;
  size_t fbn = 0, at = 0;
  unsigned char *fb;
  jadd(&j, "{ xnodes: [\n");
  /* every node kind of the description, every field by its name in the schema (flatc checks
     the names against tests/schemas/xnnpack.fbs, independently of the description) */
  for (k = 1; k <= TPD_XNN_NODE_KINDS; k++) {
    const tp_xnn_node_desc *nk = tp_xnn_describe_node((int)k);
    jadd(&j, "  { xnode_union_type: \"%s\", xnode_union: {", nk->member);
    for (f = 0; f < nk->nfields; f++) {
      const tp_xnn_field *fd = &nk->fields[f];
      unsigned v = 1000 * k + f;
      if (fd->type == 'f') jadd(&j, " %s: %g,", fd->name, (double)k + f / 4.0);
      else if (fd->type == 'v') jadd(&j, " %s: [%u, %u],", fd->name, k, f);
      else jadd(&j, " %s: %u,", fd->name, v);
    }
    jadd(&j, " }, debug_handle: %u },\n", k);
  }
  jadd(&j, "], xvalues: [\n");
  for (k = 1; k <= TPD_XNN_NODE_KINDS; k++) {
    const tp_xnn_node_desc *nk = tp_xnn_describe_node((int)k);
    for (f = 0; f < nk->nfields; f++)
      if (nk->fields[f].role == 'i' || nk->fields[f].role == 'o') {
        jadd(&j, "  { xvalue_union_type: \"XNNTensorValue\", xvalue_union: { datatype: "
             "\"xnn_datatype_fp32\", num_dims: 1, dims: [2], external_id: 4294967295, "
             "id_out: %u } },\n", 1000 * k + f);
        nvalues++;
      }
  }
  jadd(&j, "] }\n");
  fb = flatc("xnnpack.fbs", "bin", j.p, &fbn);
  TPT_CHECK(fb != NULL);
  if (!fb) { free(j.p); return; }
  TPT_EQ_INT(inspect(fb, fbn), 0);
  TPT_EQ_STR(last_err.msg, "");
  for (k = 1; k <= TPD_XNN_NODE_KINDS; k++) {
    const tp_xnn_node_desc *nk = tp_xnn_describe_node((int)k);
    want.n = 0;
    jadd(&want, "  #%u %s", k - 1, nk->member + 3);
    for (f = 0; f < nk->nfields; f++) {
      const tp_xnn_field *fd = &nk->fields[f];
      if (fd->role == 'n') continue;
      if (fd->type == 'f') jadd(&want, " %s=%g", fd->name, (double)k + f / 4.0);
      else if (fd->type == 'v') jadd(&want, " %s=[%u, %u]", fd->name, k, f);
      else jadd(&want, " %s=%u", fd->name, 1000 * k + f);
    }
    jadd(&want, " debug_handle=%u\n", k);
    HAS(want.p);
    at++;
  }
  TPT_EQ_INT(at, TP_XNN_NODE_KINDS);
  TPT_CHECK(nvalues > 100);
  /* an id that is no value's id_out, in every node kind: the checker names the field */
  free(fb);
  free(j.p);
  free(want.p);
}

static void test_xnn_robustness(void) {
  size_t n = 0;
  int bad = 0;
  unsigned char *b = xnn_blob(NULL, NULL, XNN_SEG, &n);
  TPT_CHECK(b != NULL);
  if (!b) return;
  robustness(b, n, &bad);
  TPT_EQ_INT(bad, 0);
  free(b);
}

/* ---- Vulkan ------------------------------------------------------------------------------- */

#define VK_SEG 80

static unsigned char *vk_blob(const char *from, const char *to, size_t seg, size_t *n) {
  size_t fbn = 0;
  char *json = json_variant("tpdump_vulkan.json", from, to);
  unsigned char *fb = flatc("vulkan.fbs", "bin", json, &fbn), *b = NULL;
  free(json);
  if (fb) b = wrap_delegate("VH00", fb, fbn, seg, n);
  free(fb);
  return b;
}

static void test_vk_fields(void) {
  size_t n = 0;
  unsigned char *b = vk_blob(NULL, NULL, VK_SEG, &n);
  uint32_t fbn, seg;
  char line[256];
  TPT_CHECK(b != NULL);
  if (!b) return;
  fbn = tp__get_le32(b + 14);
  seg = tp__get_le32(b + 18);
  TPT_EQ_INT(inspect(b, n), 0);
  HAS("Vulkan delegate blob: ");
  snprintf(line, sizeof line, "header VH00: length 30, flatbuffer offset 32 size %lu, bytes "
           "offset %lu size 80\n", (unsigned long)fbn, (unsigned long)seg);
  HAS(line);
  HAS("flatbuffer VK00 (VkGraph): ");
  HAS("version \"0\", 14 values, 2 ops, 2 constants, 1 shaders\n");
  HAS("input_ids: [0]\noutput_ids: [12]\n");
  HAS("  [1] Tensor FLOAT32 dims=[4, 4] constant_id=0 mem_obj_id=-1 "
               "storage=BUFFER layout=TENSOR_WIDTH_PACKED staging=FLOAT32\n");
  HAS("  [12] Tensor FLOAT32 dims=[4, 1] constant_id=-1 mem_obj_id=0 "
               "storage=DEFAULT layout=DEFAULT staging=UNSET\n");
  HAS("  [13] Tensor FLOAT16 dims=[2, 4] constant_id=1 mem_obj_id=-1 "
               "storage=DEFAULT layout=DEFAULT staging=FLOAT16\n");
  HAS("  [2] Int -3\n  [3] Double 0.5\n  [4] Bool true\n  [5] IntList [1, -2, 3]\n"
               "  [6] DoubleList [1.5, 2.25]\n  [7] BoolList [true, false]\n"
               "  [8] ValueList [0, 1]\n  [9] String \"hello\"\n  [10] SymInt 5\n  [11] Null\n");
  HAS("  #0 node_id=0 \"aten.mm.default\" args=[0, 1, 12]\n"
               "  #1 node_id=1 \"aten.add.Tensor\" args=[12, 13, 2, 12]\n");
  snprintf(line, sizeof line, "constants: 2 entries, bytes segment at %lu, 80 bytes\n",
           (unsigned long)seg);
  HAS(line);
  snprintf(line, sizeof line, "  [0] offset=0 length=64 at=%lu %s\n", (unsigned long)seg,
           sha8(b + seg, 64));
  HAS(line);
  HAS("  [1] named_key=\"tensorpack_named_h\" length=16\n");
  snprintf(line, sizeof line, "shaders: 1 entries\n  [0] offset=64 length=16 at=%lu %s\n",
           (unsigned long)seg + 64, sha8(b + seg + 64, 16));
  HAS(line);
  free(b);
}

static void test_vk_malformed(void) {
  static const mutation m[] = {
    {"args: [0, 1, 12]", "args: [0, 1, 14]",
     "op 0 (aten.mm.default): arg 2 = 14 is not a value id (14 values)"},
    {"args: [0, 1, 12]", "args: [0, -1, 12]",
     "op 0 (aten.mm.default): arg 1 = -1 is not a value id (14 values)"},
    {"dims: [4, 4], constant_id: 0", "dims: [4, 8], constant_id: 0",
     "value 1: constant 0 has 64 bytes but dims x FLOAT32 make 128"},
    {"dims: [4, 4], constant_id: 0", "dims: [4, 4], constant_id: 2",
     "value 1: constant_id 2 but the blob has 2 constants"},
    {"{ offset: 64, length: 16 }", "{ offset: 72, length: 16 }",
     "shaders[0]: [72, +16) is outside the 80-byte bytes segment"},
    {"{ offset: 0, length: 64 }", "{ offset: 80, length: 0 }",
     "value 1: constant 0 has 0 bytes but dims x FLOAT32 make 64"},
    {"{ offset: 0, length: 64 }", "{ offset: 80, length: 64 }",
     "value 1: constant at offset 80 with 64 bytes exceeds the 80 raw bytes"},
    {"items: [0, 1]", "items: [0, 14]",
     "value 8: ValueList item 1 = 14 is not a value id (0..13)"},
    {"output_ids: [12]", "output_ids: [14]", "output_ids[0] = 14 but there are 14 values"},
    {"{ node_id: 0, name: \"aten.mm.default\", args: [0, 1, 12] }", "{ node_id: 0, args: [0, 1, 12] }",
     "op 0: name absent"},
    {"value: { datatype: \"FLOAT32\", dims: [4, 1], constant_id: -1, mem_obj_id: 0 }",
     "value: { datatype: \"FLOAT32\", constant_id: -1, mem_obj_id: 0 }",
     "value 12: dims absent (the loader reads them unchecked)"},
    {"mem_obj_id: 0 }", "mem_obj_id: 0, memory_layout: 7 }", "value 12: memory_layout 7 is not known"},
    {"{ datatype: \"FLOAT16\"", "{ datatype: 9", "value 13: datatype 9 is not a VkDataType"},
  };
  size_t i;
  tp_error le;
  for (i = 0; i < sizeof m / sizeof m[0]; i++) {
    size_t n = 0;
    unsigned char *b = vk_blob(m[i].from, m[i].to, VK_SEG, &n);
    TPT_CHECK(b != NULL);
    if (!b) { printf("  mutation %zu did not build\n", i); continue; }
    TPT_EQ_INT(inspect(b, n), 2);
    TPT_EQ_INT(last_err.status, TP_ERR_FORMAT);
    TPT_EQ_STR(last_err.msg, m[i].msg);
    TPT_STATUS(tp_vk_check_blob(b, n, NULL, &le), TP_ERR_FORMAT); /* the library's verdict */
    TPT_EQ_STR(le.msg, m[i].msg);
    free(b);
  }
}

static void test_vk_bare_and_header(void) {
  size_t n = 0, fbn = 0;
  char *json = json_variant("tpdump_vulkan.json", NULL, NULL);
  unsigned char *fb = flatc("vulkan.fbs", "bin", json, &fbn), *b, *c;
  free(json);
  TPT_CHECK(fb != NULL);
  if (!fb) return;
  TPT_EQ_INT(inspect(fb, fbn), 2);
  HAS("Vulkan flatbuffer without VH00 header");
  TPT_EQ_STR(last_err.msg, "value 1: constant at offset 0 with 64 bytes exceeds the 0 raw bytes");
  b = wrap_delegate("VH00", fb, fbn, VK_SEG, &n);
  c = (unsigned char *)malloc(n);
  memcpy(c, b, n);
  tp__put_le32(c + 10, 16);          /* flatbuffer inside the header */
  TPT_EQ_INT(inspect(c, n), 2);
  TPT_EQ_STR(last_err.msg, "VH00 header: flatbuffer offset 16 is inside the 30-byte header");
  memcpy(c, b, n);
  tp__put_le32(c + 14, 4);           /* flatbuffer size too small */
  TPT_EQ_INT(inspect(c, n), 2);
  TPT_EQ_STR(last_err.msg, "VH00 header: flatbuffer size 4 < 12 (root offset, identifier, one "
             "table)");
  memcpy(c, b, n);
  memcpy(c + 36, "VK01", 4);          /* wrong identifier */
  TPT_EQ_INT(inspect(c, n), 2);
  TPT_CHECK(last_err.msg[0] != '\0');
  free(c);
  free(b);
  free(fb);
}

static void test_vk_robustness(void) {
  size_t n = 0;
  int bad = 0;
  unsigned char *b = vk_blob(NULL, NULL, VK_SEG, &n);
  TPT_CHECK(b != NULL);
  if (!b) return;
  robustness(b, n, &bad);
  TPT_EQ_INT(bad, 0);
  free(b);
}

/* ---- .ptd --------------------------------------------------------------------------------- */

#define PTD_SEG 134   /* segment 0: 64 bytes at 0, segment 1: 6 bytes at 128 */

static unsigned char *ptd_file(const char *from, const char *to, size_t *n, size_t *base) {
  size_t fbn = 0;
  char *json = json_variant("tpdump_ptd.json", from, to);
  unsigned char *fb = flatc("flat_tensor.fbs", "ptd", json, &fbn), *b = NULL;
  free(json);
  if (fb) b = wrap_ptd(fb, fbn, PTD_SEG, n, base);
  free(fb);
  return b;
}

static void test_ptd_fields(void) {
  size_t n = 0, base = 0;
  unsigned char *b = ptd_file(NULL, NULL, &n, &base);
  char line[256];
  TPT_CHECK(b != NULL);
  if (!b) return;
  TPT_EQ_INT(inspect(b, n), 0);
  TPT_EQ_STR(last_err.msg, "");
  HAS(".ptd (FlatTensor) file: ");
  snprintf(line, sizeof line, "header FH01: length 40, flatbuffer offset 48 size %llu, segment "
           "base %lu size 134\n", (unsigned long long)tp__get_le64(b + 24), (unsigned long)base);
  HAS(line);
  HAS("flatbuffer FT01 (FlatTensor): version 0, 2 named entries\n");
  snprintf(line, sizeof line, "segments: 2\n  [0] offset=0 size=64 at=%lu\n  [1] offset=128 "
           "size=6 at=%lu\n", (unsigned long)base, (unsigned long)base + 128);
  HAS(line);
  snprintf(line, sizeof line, "  [0] key=\"weight\" segment=0 at=%lu size=64 %s layout=FLOAT "
           "sizes=[2, 2, 4] dim_order=[0, 2, 1]\n", (unsigned long)base, sha8(b + base, 64));
  HAS(line);
  snprintf(line, sizeof line, "  [1] key=\"raw\" segment=1 at=%lu size=6 %s\n",
           (unsigned long)base + 128, sha8(b + base + 128, 6));
  HAS(line);
  free(b);
}

static void test_ptd_malformed(void) {
  static const mutation m[] = {
    {"{ offset: 128, size: 6 }", "{ offset: 130, size: 6 }", NULL},
    {"segment_index: 1 }", "segment_index: 2 }", NULL},
  };
  size_t i;
  for (i = 0; i < sizeof m / sizeof m[0]; i++) {
    size_t n = 0, base = 0;
    unsigned char *b = ptd_file(m[i].from, m[i].to, &n, &base);
    TPT_CHECK(b != NULL);
    if (!b) continue;
    TPT_EQ_INT(inspect(b, n), 2);
    TPT_EQ_INT(last_err.status, TP_ERR_FORMAT);
    HAS_IN(last_err.msg, ".ptd");
    free(b);
  }
}

static void test_ptd_robustness(void) {
  size_t n = 0, base = 0;
  int bad = 0;
  unsigned char *b = ptd_file(NULL, NULL, &n, &base);
  TPT_CHECK(b != NULL);
  if (!b) return;
  robustness(b, n, &bad);
  TPT_EQ_INT(bad, 0);
  free(b);
}

/* ---- named constants resolved in a .ptd ---------------------------------------------------- */

/* A .ptd from our store with one raw entry `key` of n bytes (fill(.., 5)). */
static void ptd_with(const char *key, size_t n, tp_membuf *out) {
  unsigned char bytes[64];
  tp_store *st = NULL;
  tp_sink sink;
  fill(bytes, sizeof bytes, 5);
  memset(out, 0, sizeof *out);
  sink = tp_sink_membuf(out);
  if (tp_store_create(NULL, &st) != TP_OK) return;
  if (tp_store_add_bytes(st, key, bytes, n, 0, 1, NULL) != TP_OK ||
      tp_store_write_ptd(st, &sink) != TP_OK)
    printf("  store: %s\n", tp_store_error(st));
  tp_store_destroy(st);
}

static int inspect_ptd(const unsigned char *b, size_t n, const tp_membuf *ptd) {
  tp_membuf out;
  int rc;
  memset(&out, 0, sizeof out);
  rc = tpdump_inspect_with(b, n, ptd->data, ptd->size, &out, &last_err);
  report[0] = '\0';
  if (out.data) {
    size_t k = out.size < sizeof report - 1 ? out.size : sizeof report - 1;
    memcpy(report, out.data, k);
    report[k] = '\0';
  }
  tp_membuf_free(&out);
  return rc;
}

static void test_named_with_ptd(void) {
  size_t n = 0;
  unsigned char *x = xnn_blob(NULL, NULL, XNN_SEG, &n), *v, ref[64];
  tp_membuf p;
  char line[256];
  fill(ref, sizeof ref, 5);
  TPT_CHECK(x != NULL);
  if (!x) return;
  ptd_with("tensorpack_named_w", 16, &p);
  TPT_EQ_INT(inspect_ptd(x, n, &p), 0);
  snprintf(line, sizeof line, "  [7] named_key=\"tensorpack_named_w\" offset=none size=16 in .ptd: "
           "%s\n", sha8(ref, 16));
  HAS(line);
  tp_membuf_free(&p);
  ptd_with("tensorpack_named_w", 8, &p);          /* blob says 16 */
  TPT_EQ_INT(inspect_ptd(x, n, &p), 2);
  TPT_EQ_STR(last_err.msg, "constant_data[7]: named_key \"tensorpack_named_w\" has 8 bytes in "
             "the .ptd, the blob says 16");
  tp_membuf_free(&p);
  ptd_with("tensorpack_named_v", 16, &p);
  TPT_EQ_INT(inspect_ptd(x, n, &p), 2);
  TPT_EQ_STR(last_err.msg, "constant_data[7]: named_key \"tensorpack_named_w\" is not in the .ptd");
  free(x);
  /* blob and .ptd agree on 8 bytes, the qint8 [16] value needs 16 */
  x = xnn_blob("{ offset: 18446744073709551615, size: 16,", "{ offset: 18446744073709551615, size: 8,",
               XNN_SEG, &n);
  TPT_CHECK(x != NULL);
  tp_membuf_free(&p);
  ptd_with("tensorpack_named_w", 8, &p);
  if (x) {
    TPT_EQ_INT(inspect_ptd(x, n, &p), 2);
    /* the library's sentence: the blob's size field (the .ptd agrees with it) */
    TPT_EQ_STR(last_err.msg, "value 6: constant 7 holds 8 bytes, the value needs 16");
  }
  free(x);
  tp_membuf_free(&p);

  /* Vulkan: FLOAT16 [2, 4] named constant of 16 bytes */
  v = vk_blob(NULL, NULL, VK_SEG, &n);
  TPT_CHECK(v != NULL);
  if (!v) return;
  ptd_with("tensorpack_named_h", 16, &p);
  TPT_EQ_INT(inspect_ptd(v, n, &p), 0);
  snprintf(line, sizeof line, "  [1] named_key=\"tensorpack_named_h\" length=16 in .ptd: %s\n",
           sha8(ref, 16));
  HAS(line);
  tp_membuf_free(&p);
  ptd_with("tensorpack_named_h", 12, &p);
  TPT_EQ_INT(inspect_ptd(v, n, &p), 2); /* the entry's rule, as a shader's below */
  TPT_EQ_STR(last_err.msg, "constants[1]: named_key \"tensorpack_named_h\" has 12 bytes in the "
             ".ptd, the blob says 16");
  tp_membuf_free(&p);
  ptd_with("tensorpack_named_other", 16, &p);
  TPT_EQ_INT(inspect_ptd(v, n, &p), 2);
  TPT_EQ_STR(last_err.msg, "constants[1]: named_key \"tensorpack_named_h\" is not in the .ptd");
  tp_membuf_free(&p);
  free(v);
  v = vk_blob("length: 16, named_key", "length: 12, named_key", VK_SEG, &n);
  TPT_CHECK(v != NULL);
  ptd_with("tensorpack_named_h", 16, &p);
  if (v) { /* the value that names it says so first */
    TPT_EQ_INT(inspect_ptd(v, n, &p), 2);
    TPT_EQ_STR(last_err.msg, "value 13: constant 1 has 12 bytes but dims x FLOAT16 make 16");
  }
  free(v);
  /* a named shader of the wrong length: the entry's own rule */
  v = vk_blob("shaders: [ { offset: 64, length: 16 } ]", "shaders: [ { offset: "
              "18446744073709551615, length: 12, named_key: \"tensorpack_named_h\" } ]", VK_SEG, &n);
  TPT_CHECK(v != NULL);
  if (v) {
    TPT_EQ_INT(inspect_ptd(v, n, &p), 2);
    TPT_EQ_STR(last_err.msg, "shaders[0]: named_key \"tensorpack_named_h\" has 16 bytes in the "
               ".ptd, the blob says 12");
  }
  tp_membuf_free(&p);
  free(v);
}

/* ---- --json on the flatc-built files ------------------------------------------------------- */

static void test_json(void) {
  size_t n = 0, base = 0;
  unsigned char *b = vk_blob(NULL, NULL, VK_SEG, &n);
  tp_membuf out;
  tp_error e;
  char line[512], hex[65];
  uint32_t seg;
  TPT_CHECK(b != NULL);
  if (!b) return;
  seg = tp__get_le32(b + 18);
  memset(&out, 0, sizeof out);
  TPT_EQ_INT(tpdump_inspect_json(b, n, NULL, 0, &out, &e), 0);
  TPT_CHECK(out.data != NULL);
  if (out.data) {
    char *text = (char *)malloc(out.size + 1);
    memcpy(text, out.data, out.size);
    text[out.size] = '\0';
    tp_sha256_hex(b + seg + 64, 16, hex);
    snprintf(line, sizeof line, "{\"format\": \"vulkan\", \"size\": %zu, \"ok\": true, \"error\": "
             "null,\n\"constants\": [\n", n);
    HAS_IN(text, line);
    HAS_IN(text, "  {\"section\": \"constants\", \"index\": 1, \"key\": \"tensorpack_named_h\", "
           "\"source\": \"unresolved\", \"size\": 16},\n");
    snprintf(line, sizeof line, "  {\"section\": \"shaders\", \"index\": 0, \"source\": \"blob\", "
             "\"at\": %lu, \"size\": 16, \"sha256\": \"%s\"}\n]}\n", (unsigned long)seg + 64, hex);
    HAS_IN(text, line);
    free(text);
  }
  tp_membuf_free(&out);
  free(b);
  b = ptd_file("{ offset: 128, size: 6 }", "{ offset: 130, size: 6 }", &n, &base);
  TPT_CHECK(b != NULL);
  if (!b) return;
  memset(&out, 0, sizeof out);
  TPT_EQ_INT(tpdump_inspect_json(b, n, NULL, 0, &out, &e), 2);
  TPT_CHECK(out.size > 0 && memcmp(out.data, "{\"format\": \"ptd\", \"size\": ", 26) == 0);
  tp_membuf_free(&out);
  free(b);
}

/* ---- the command-line tool ---------------------------------------------------------------- */

static int run(const char *args) {
  char cmd[512];
  int rc;
  snprintf(cmd, sizeof cmd, "%s %s >%s/out.txt 2>%s/err.txt", TPDUMP_BIN, args, tmpdir, tmpdir);
  rc = system(cmd);
  return rc >= 0 && (rc & 0x7f) == 0 ? (rc >> 8) & 0xff : -1;   /* WEXITSTATUS */
}

static char *slurp(const char *name) {
  char path[128];
  size_t n;
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return tpt_read_file(path, &n);
}

static void test_cli(void) {
  size_t n = 0, base = 0;
  unsigned char *x = xnn_blob(NULL, NULL, XNN_SEG, &n);
  char path[128], args[256], *out, *err;
  TPT_CHECK(x != NULL);
  if (!x) return;
  snprintf(path, sizeof path, "%s/good.xnn", tmpdir);
  TPT_CHECK(write_all(path, x, n));
  /* well formed, but the JSON graph's last transpose output (value 9) is read by nothing and
     is not an external output: the writer's rules (exit 3) name it */
  TPT_EQ_INT(run(path), 3);
  out = slurp("out.txt");
  HAS_IN(out, "FullyConnected input1_id=0");
  HAS_IN(out, "rule broken: value 9: a node writes it but no later node reads it");
  free(out);
  snprintf(args, sizeof args, "--check %s", path);
  TPT_EQ_INT(run(args), 3);
  out = slurp("out.txt");
  HAS_IN(out, "rule broken: value 9");
  free(out);
  err = slurp("err.txt");
  HAS_IN(err, "good.xnn: well formed, but breaks a rule: value 9: a node writes it");
  free(err);
  /* malformed: exit 2, the reason on stderr */
  snprintf(path, sizeof path, "%s/short.xnn", tmpdir);
  TPT_CHECK(write_all(path, x, n - 1));
  TPT_EQ_INT(run(path), 2);
  err = slurp("err.txt");
  HAS_IN(err, "short.xnn: malformed: XH00 header: constant data at ");
  free(err);
  snprintf(args, sizeof args, "--check %s", path);
  TPT_EQ_INT(run(args), 2);
  free(x);
  /* .ptd through the binary */
  x = ptd_file(NULL, NULL, &n, &base);
  TPT_CHECK(x != NULL);
  if (x) {
    snprintf(path, sizeof path, "%s/good.ptd", tmpdir);
    TPT_CHECK(write_all(path, x, n));
    TPT_EQ_INT(run(path), 0);
    out = slurp("out.txt");
    HAS_IN(out, "key=\"weight\"");
    free(out);
    free(x);
  }
  /* usage and I/O: exit 1 */
  snprintf(path, sizeof path, "%s/does-not-exist", tmpdir);
  TPT_EQ_INT(run(path), 1);
  err = slurp("err.txt");
  HAS_IN(err, "cannot open");
  free(err);
  TPT_EQ_INT(run(""), 1);
  TPT_EQ_INT(run("--bogus x"), 1);
  /* not a blob at all */
  snprintf(path, sizeof path, "%s/text.bin", tmpdir);
  TPT_CHECK(write_all(path, "hello, world\n", 13));
  TPT_EQ_INT(run(path), 2);
  err = slurp("err.txt");
  HAS_IN(err, "unknown format: bytes 4..7 are \"o, w\"");
  free(err);
}

int main(void) {
  char cmd[128];
  strcpy(tmpdir, "/tmp/tpdump-flatc-XXXXXX");
  if (!mkdtemp(tmpdir)) {
    printf("cannot make a temporary directory\n");
    return 1;
  }
  TPT_RUN(test_xnn_fields);
  TPT_RUN(test_xnn_bare);
  TPT_RUN(test_xnn_malformed);
  TPT_RUN(test_xnn_report_stops);
  TPT_RUN(test_xnn_dims_absent);
  TPT_RUN(test_xnn_header_checks);
  TPT_RUN(test_xnn_all_node_kinds);
  TPT_RUN(test_xnn_robustness);
  TPT_RUN(test_vk_fields);
  TPT_RUN(test_vk_malformed);
  TPT_RUN(test_vk_bare_and_header);
  TPT_RUN(test_vk_robustness);
  TPT_RUN(test_ptd_fields);
  TPT_RUN(test_ptd_malformed);
  TPT_RUN(test_ptd_robustness);
  TPT_RUN(test_named_with_ptd);
  TPT_RUN(test_json);
  TPT_RUN(test_cli);
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) printf("  could not remove %s\n", tmpdir);
  printf("%lu files inspected in-process (damaged variants included)\n", inspections);
  return tpt_finish("tpdump-flatc");
}
