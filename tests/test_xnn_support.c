/* The XNNPACK support table (TP_XNN_NODE_SUPPORT) and the runtime semantics of the XNNPACK
   ExecuTorch pins, as the writer applies them with tp_xnn_options.target = 0.
   Also the generator of README.md's "What ExecuTorch's runtime accepts" datatype table:
   build/tests/test_xnn_support --print writes the section; the test fails when README.md's
   copy differs (run from the repository root, or with TP_ROOT set). */
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN TP_XNN_FLAG_EXTERNAL_INPUT
#define OUT TP_XNN_FLAG_EXTERNAL_OUTPUT
#define NONE TP_XNN_INVALID_ID

static tp_xnn_graph *mk(int target) {
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  memset(&o, 0, sizeof o);
  o.target = target;
  if (tp_xnn_graph_create(&o, &g) != TP_OK) abort();
  return g;
}

/* A target-0 graph whose constants are named entries of a new store (*store: destroy it after
   the graph). */
static tp_xnn_graph *mk_named(tp_store **store) {
  tp_xnn_options o;
  tp_xnn_graph *g = NULL;
  if (tp_store_create(NULL, store) != TP_OK) abort();
  memset(&o, 0, sizeof o);
  o.store = *store;
  if (tp_xnn_graph_create(&o, &g) != TP_OK) abort();
  return g;
}

static uint32_t val(tp_xnn_graph *g, tp_xnn_datatype dt, size_t nd, const size_t *dims,
                    uint32_t ext, uint32_t flags) {
  uint32_t id = NONE;
  if (tp_xnn_define_tensor_value(g, dt, nd, dims, NULL, ext, flags, &id) != TP_OK) abort();
  return id;
}

static float g_f[4096] = {0.5f, 0.25f, 0.125f, 1.0f, 0.5f, 0.25f};

/* A constant f32 value of the given dims (data from g_f). */
static uint32_t cval(tp_xnn_graph *g, size_t nd, const size_t *dims) {
  int64_t sz[6];
  size_t i;
  tp_storage s;
  tp_tensor t;
  uint32_t id = NONE;
  for (i = 0; i < nd; i++) sz[i] = (int64_t)dims[i];
  s.data = g_f;
  s.nbytes = sizeof g_f;
  if (tp_view(s, TP_F32, (int)nd, sz, NULL, 0, &t, NULL) != TP_OK) abort();
  if (tp_xnn_define_tensor_value(g, TP_XNN_FP32, nd, dims, &t, NONE, 0, &id) != TP_OK) abort();
  return id;
}

#define EXPECT(call, st, text)                 \
  do {                                         \
    TPT_STATUS(call, st);                      \
    TPT_CONTAINS(tp_xnn_graph_error(g), text); \
  } while (0)

#define EXPECT_EXACT(call, st, text)                      \
  do {                                                    \
    tp_status got_ = (call);                              \
    const char *sentence_ = tp_xnn_graph_error(g);        \
    const char *want_ = (text);                           \
    TPT_STATUS(got_, st);                                 \
    TPT_EQ_STR(sentence_, want_);                         \
  } while (0)

/* ---- the README table, generated from the support rows ----------------------------------- */

/* mask names joined by '/' (markdown cells cannot hold '|') */
static void mask_cell(uint32_t mask, char *out, size_t size) {
  char m[128];
  size_t i, n = 0;
  tp_xnn_support_mask_str(mask, m, sizeof m);
  for (i = 0; m[i] && n + 1 < size; i++)
    out[n++] = m[i] == '|' ? '/' : m[i];
  out[n] = 0;
}

static int single_bit(uint32_t m) { return m && !(m & (m - 1)); }

/* One kind's rows as text: the "alike" rows (one datatype everywhere) gathered, then the
   others as "input x second (bias ...) -> output". */
static void kind_text(int kind, char *out, size_t size) {
  uint32_t i, n, same = 0, bin = 0;
  const tp_xnn_support *r = tp_xnn_node_support(&n);
  char a[128], b[128], c[128], d[128], line[600];
  size_t len = 0;
  out[0] = 0;
  for (i = 0; i < n; i++) {
    if (r[i].kind != kind) continue;
    if (single_bit(r[i].input) && r[i].output == r[i].input && r[i].bias == TP_XNN_SM_NONE &&
        r[i].second == TP_XNN_SM_NONE)
      same |= r[i].input;
    else if (single_bit(r[i].input) && r[i].output == r[i].input && r[i].bias == TP_XNN_SM_NONE &&
             r[i].second == r[i].input)
      bin |= r[i].input;
  }
  if (same) {
    mask_cell(same, a, sizeof a);
    len += (size_t)snprintf(out + len, size - len, "input = output: %s", a);
  }
  if (bin) {
    mask_cell(bin, a, sizeof a);
    len += (size_t)snprintf(out + len, size - len, "%sall inputs = output: %s", len ? "; " : "", a);
  }
  for (i = 0; i < n && len < size; i++) {
    int alike;
    if (r[i].kind != kind) continue;
    alike = single_bit(r[i].input) && r[i].output == r[i].input && r[i].bias == TP_XNN_SM_NONE &&
            (r[i].second == TP_XNN_SM_NONE || r[i].second == r[i].input);
    if (alike) continue;
    mask_cell(r[i].input, a, sizeof a);
    mask_cell(r[i].second, b, sizeof b);
    mask_cell(r[i].bias, c, sizeof c);
    mask_cell(r[i].output, d, sizeof d);
    if (r[i].second == TP_XNN_SM_NONE)
      snprintf(line, sizeof line, "%s -> %s", a, d);
    else if (r[i].bias == TP_XNN_SM_NONE)
      snprintf(line, sizeof line, "%s x %s -> %s", a, b, d);
    else
      snprintf(line, sizeof line, "%s x %s, bias %s -> %s", a, b, c, d);
    len += (size_t)snprintf(out + len, size - len, "%s%s", len ? "; " : "", line);
  }
  if (!len) snprintf(out, size, "none (the runtime refuses the node)");
}

/* The whole section: kinds with the same text share a line, in tag order of the first. */
static char *support_markdown(void) {
  static char texts[TP_XNN_NODE_COUNT][2048];
  int done[TP_XNN_NODE_COUNT];
  size_t cap = 1 << 16, len = 0;
  char *md = (char *)malloc(cap);
  int k, j;
  uint32_t nrows;
  tp_xnn_node_support(&nrows);
  if (!md) abort();
  for (k = 1; k < (int)TP_XNN_NODE_COUNT; k++) {
    kind_text(k, texts[k], sizeof texts[k]);
    done[k] = 0;
  }
  len += (size_t)snprintf(md + len, cap - len,
                          "<!-- xnn-support: generated by build/tests/test_xnn_support --print "
                          "from TP_XNN_NODE_SUPPORT (%u rows) -->\n"
                          "| node kinds | datatypes ExecuTorch's XNNPACK has an operator for "
                          "(input x second, bias -> output) |\n|---|---|\n",
                          (unsigned)nrows);
  for (k = 1; k < (int)TP_XNN_NODE_COUNT; k++) {
    int first = 1;
    if (done[k]) continue;
    len += (size_t)snprintf(md + len, cap - len, "| ");
    for (j = k; j < (int)TP_XNN_NODE_COUNT; j++) {
      if (done[j] || strcmp(texts[j], texts[k])) continue;
      done[j] = 1;
      len += (size_t)snprintf(md + len, cap - len, "%s%s", first ? "" : ", ", tp_xnn_node_name(j));
      first = 0;
    }
    len += (size_t)snprintf(md + len, cap - len, " | %s |\n", texts[k]);
  }
  len += (size_t)snprintf(md + len, cap - len, "<!-- xnn-support end -->\n");
  return md;
}

static void test_table(void) {
  uint32_t n, i, k, rows[TP_XNN_NODE_COUNT];
  const tp_xnn_support *r = tp_xnn_node_support(&n);
  memset(rows, 0, sizeof rows);
  TPT_CHECK(n > 200);
  for (i = 0; i < n; i++) {
    TPT_CHECK(r[i].kind >= 1 && r[i].kind < (int)TP_XNN_NODE_COUNT);
    TPT_CHECK(r[i].input != 0 && r[i].output != 0 && r[i].second != 0 && r[i].bias != 0);
    TPT_CHECK(!(r[i].input & TP_XNN_SM_NONE) && !(r[i].output & TP_XNN_SM_NONE));
    rows[r[i].kind]++;
  }
  for (k = 1; k < TP_XNN_NODE_COUNT; k++) /* every kind has rows, but the one ET refuses */
    TPT_CHECK((rows[k] == 0) == (k == TP_XNN_NODE_SCALED_DOT_PRODUCT_ATTENTION));
  TPT_CHECK(rows[TP_XNN_NODE_FULLY_CONNECTED] == 12);
  TPT_CHECK(rows[TP_XNN_NODE_EXP] == 7); /* 5 datatypes, bf16 -> fp32, fp32 -> bf16 */
  printf("  support table: %u rows over %u node kinds\n", (unsigned)n,
         (unsigned)TP_XNN_NODE_KINDS - 1u);
  {
    char m[64];
    TPT_EQ_STR(tp_xnn_support_mask_str(TP_XNN_SM_NONE | TP_XNN_SM(FP32) | TP_XNN_SM(BF16), m,
                                       sizeof m),
               "none|fp32|bf16");
    TPT_EQ_STR(tp_xnn_support_mask_str(TP_XNN_SM(FP32) | TP_XNN_SM(FP16), m, 8), "fp32");
  }
}

static void test_readme(void) {
  const char *root = getenv("TP_ROOT");
  char path[1024], *readme, *md, *at;
  snprintf(path, sizeof path, "%s%sREADME.md", root ? root : "", root ? "/" : "");
  readme = tpt_read_file(path, NULL);
  md = support_markdown();
  TPT_CHECK(readme != NULL);
  at = readme ? strstr(readme, "<!-- xnn-support:") : NULL;
  TPT_CHECK(at != NULL);
  if (at && strncmp(at, md, strlen(md)) != 0)
    tpt_fail_at(__FILE__, __LINE__,
                "README.md's xnn-support table is stale: rewrite it with "
                "build/tests/test_xnn_support --print");
  free(readme);
  free(md);
}

/* ---- the support rule at define and in tp_xnn_check_blob ---------------------------------- */

static void test_support_rule(void) {
  size_t d[2] = {2, 4};
  uint32_t x, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) { /* int32 sigmoid: refused at target 0 only */
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_INT32, 2, d, 0, IN);
    y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
    if (k == 0)
      EXPECT(tp_xnn_define_sigmoid(g, x, y, 0), TP_ERR_UNSUPPORTED,
             "sigmoid #0: input int32, output int32: no operator in ExecuTorch's XNNPACK; its "
             "inputs are fp32|fp16|qint8|quint8|bf16");
    else
      TPT_STATUS(tp_xnn_define_sigmoid(g, x, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0); /* int32 abs: the reference kernel has it */
  x = val(g, TP_XNN_INT32, 2, d, 0, IN);
  y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0); /* fp16 softmax runs; bf16 does not */
  x = val(g, TP_XNN_BF16, 2, d, 0, IN);
  y = val(g, TP_XNN_BF16, 2, d, 1, OUT);
  EXPECT(tp_xnn_define_softmax(g, x, y, 0), TP_ERR_UNSUPPORTED,
         "softmax #0: input bf16, output bf16: no operator in ExecuTorch's XNNPACK; its inputs "
         "are fp32|fp16");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* a convert with a row for its input, not its output */
  x = val(g, TP_XNN_BF16, 2, d, 0, IN);
  TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, d, 1, OUT,
                                                              &y), TP_OK);
  EXPECT(tp_xnn_define_convert(g, x, y, 0), TP_ERR_UNSUPPORTED,
         "convert #0: input bf16, output qdint8: no operator in ExecuTorch's XNNPACK; with a "
         "bf16 input it has output fp32|fp16|qint8|quint8|int32|bf16");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* every slot named, the rows for fp32 cut with "..." where the sentence is full */
  {
    size_t xd[2] = {2, 4}, wd[2] = {3, 4}, bd[1] = {3}, yd[2] = {2, 3};
    uint32_t w, b;
    x = val(g, TP_XNN_FP32, 2, xd, 0, IN);
    w = cval(g, 2, wd);
    b = val(g, TP_XNN_FP16, 1, bd, 1, IN);
    y = val(g, TP_XNN_FP32, 2, yd, 2, OUT);
    EXPECT_EXACT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, b, y, 0),
                 TP_ERR_UNSUPPORTED,
                 "fully_connected #0: input1 fp32, filter fp32, bias fp16, output fp32: no "
                 "operator in ExecuTorch's XNNPACK; with a fp32 input it has filter fp32, bias "
                 "none|fp32, output fp32; filter fp16, bias none|fp32|fp16, output fp32...");
  }
  tp_xnn_graph_destroy(g);
  g = mk(0); /* argmax: its second slot is the index output, "index" in the rows */
  {
    size_t pin[4] = {1, 4, 4, 1}, pout[4] = {1, 2, 2, 1};
    uint32_t ix;
    x = val(g, TP_XNN_FP32, 4, pin, 0, IN);
    y = val(g, TP_XNN_FP32, 4, pout, 1, OUT);
    ix = val(g, TP_XNN_FP16, 4, pout, 2, OUT);
    EXPECT_EXACT(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, x, y, ix, 0),
                 TP_ERR_UNSUPPORTED,
                 "argmax_pooling_2d #0: input fp32, output_index fp16, output_value fp32: no "
                 "operator in ExecuTorch's XNNPACK; with a fp32 input it has index fp32|int32, "
                 "output_value fp32");
  }
  tp_xnn_graph_destroy(g);
}

/* The same rule from a blob: tp_xnn_check_blob (and so tpdump --check) refuse it at target 0. */
static void test_support_blob(void) {
  size_t d[2] = {2, 4};
  uint32_t x, y;
  tp_error e;
  tp_membuf m;
  tp_sink s;
  tp_xnn_graph *g = mk(TP_XNN_TARGET_XNNPACK);
  x = val(g, TP_XNN_INT32, 2, d, 0, IN);
  y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_tanh(g, x, y, 0), TP_OK);
  memset(&m, 0, sizeof m);
  s = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &e), TP_OK);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_UNSUPPORTED);
  TPT_EQ_STR(e.msg, "tanh #0: input int32, output int32: no operator in ExecuTorch's XNNPACK; "
                    "its inputs are fp32|fp16|qint8|quint8|bf16");
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}


/* ---- the runtime semantics of the XNNPACK ExecuTorch pins (issue 20 item 2) --------------- */

/* static_slice: end = offset + size, and an end of 0 means "to the end" only at offset 0
   (src/subgraph/static-slice.c, reshape_slice_operator) */
static void test_slice_size_zero(void) {
  size_t in[2] = {4, 6}, out[2] = {4, 5}, full[2] = {4, 6}, off[2] = {0, 1}, sz[2] = {0, 0};
  size_t off0[2] = {0, 0};
  uint32_t x, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 2, in, 0, IN);
    y = val(g, TP_XNN_FP32, 2, out, 1, OUT);
    if (k == 0) {
      EXPECT_EXACT(tp_xnn_define_static_slice(g, 2, off, sz, x, y, 0), TP_ERR_UNSUPPORTED,
                 "static_slice #0: dim 1: offset 1 with size 0 in an input dim of 6, output dim "
                 "5: ExecuTorch's XNNPACK reads size 0 as \"to the end\" only at offset 0 (here: "
                 "an empty dim, output dim 0); give the size (5)");
    } else
      TPT_STATUS(tp_xnn_define_static_slice(g, 2, off, sz, x, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0); /* offset 1, size 0 into an output dim of 0: the empty dim ExecuTorch makes */
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  {
    size_t empty[2] = {4, 0};
    y = val(g, TP_XNN_FP32, 2, empty, 1, OUT);
  }
  TPT_STATUS(tp_xnn_define_static_slice(g, 2, off, sz, x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0); /* offset 0, size 0: the whole dim, at every target */
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  y = val(g, TP_XNN_FP32, 2, full, 1, OUT);
  TPT_STATUS(tp_xnn_define_static_slice(g, 2, off0, sz, x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
}

/* fully_connected: the output has the input's rank and leading dims, then the filter's output
   channels, for every flag (src/subgraph/fully-connected.c,
   resize_fully_connected_output_tensor) */
static void test_fc_output_shape(void) {
  size_t in[4] = {1, 2, 2, 8}, w[2] = {4, 8}, flat[2] = {4, 4}, keep[4] = {1, 2, 2, 4};
  size_t wt[2] = {8, 4};
  uint32_t x, f, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 4; k++) {
    int tw = k == 3;
    g = mk(k == 1 ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 4, in, 0, IN);
    f = cval(g, 2, tw ? wt : w);
    y = val(g, TP_XNN_FP32, k == 2 ? 4 : 2, k == 2 ? keep : flat, 1, OUT);
    if (k == 0 || k == 3)
      EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, f, NONE, y,
                                           tw ? TP_XNN_FLAG_TRANSPOSE_WEIGHTS : 0),
             TP_ERR_UNSUPPORTED,
             "fully_connected #0: output 2 is [4, 4], ExecuTorch's XNNPACK makes it the input "
             "[1, 2, 2, 8] with the last dim 4 (same rank); reshape the input or the output");
    else
      TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, f, NONE, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
}

/* static_reshape: one 0 entry is inferred, more fail at execute; the output is new_shape
   (src/subgraph/copy.c, reshape_copy_operator) */
static void test_reshape_infer(void) {
  size_t in[2] = {2, 6}, out[3] = {2, 3, 2}, two0[3] = {0, 3, 0}, one0[3] = {2, 0, 2};
  size_t other[3] = {3, 2, 2};
  uint32_t x, y;
  tp_xnn_graph *g = mk(0);
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  y = val(g, TP_XNN_FP32, 3, out, 1, OUT);
  EXPECT(tp_xnn_define_static_reshape(g, 3, two0, x, y, 0), TP_ERR_UNSUPPORTED,
         "static_reshape #0: new shape has 2 entries 0 (inferred): ExecuTorch's XNNPACK infers "
         "at most one and fails at execute");
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  y = val(g, TP_XNN_FP32, 3, out, 1, OUT);
  TPT_STATUS(tp_xnn_define_static_reshape(g, 3, one0, x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0); /* same element count, other dims than the output value's */
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  y = val(g, TP_XNN_FP32, 3, out, 1, OUT);
  EXPECT(tp_xnn_define_static_reshape(g, 3, other, x, y, 0), TP_ERR_UNSUPPORTED,
         "static_reshape #0: output 1 is [2, 3, 2] but new shape entry 0 is 3: ExecuTorch's "
         "XNNPACK gives the output the new shape");
  tp_xnn_graph_destroy(g);
  g = mk(TP_XNN_TARGET_XNNPACK);
  x = val(g, TP_XNN_FP32, 2, in, 0, IN);
  y = val(g, TP_XNN_FP32, 3, out, 1, OUT);
  TPT_STATUS(tp_xnn_define_static_reshape(g, 3, two0, x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
}

/* prelu: a binary node in the pinned XNNPACK: a [1] slope (torch.nn.PReLU()) and a
   non-constant slope run; the slope must broadcast to the input (src/subgraph/deprecated.c
   xnn_define_prelu -> xnn_define_binary). A constant slope in the blob is read at execute, after
   ExecuTorch freed the blob (test_blob_constant_at_execute): at target 0 it goes in a .ptd. */
static void test_prelu_slope(void) {
  size_t in[4] = {1, 2, 2, 4}, one[1] = {1}, ch[1] = {4}, bad[1] = {3};
  uint32_t x, sl, y;
  tp_store *store = NULL;
  tp_xnn_graph *g = mk_named(&store);
  x = val(g, TP_XNN_FP32, 4, in, 0, IN);
  sl = cval(g, 1, one);
  y = val(g, TP_XNN_FP32, 4, in, 1, OUT);
  TPT_STATUS(tp_xnn_define_prelu(g, x, sl, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
  g = mk(0); /* an external slope */
  x = val(g, TP_XNN_FP32, 4, in, 0, IN);
  sl = val(g, TP_XNN_FP32, 1, ch, 1, IN);
  y = val(g, TP_XNN_FP32, 4, in, 2, OUT);
  TPT_STATUS(tp_xnn_define_prelu(g, x, sl, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = val(g, TP_XNN_FP32, 4, in, 0, IN);
  sl = cval(g, 1, bad);
  y = val(g, TP_XNN_FP32, 4, in, 1, OUT);
  EXPECT(tp_xnn_define_prelu(g, x, sl, y, 0), TP_ERR_INVALID,
         "prelu #0: slope 1 is [3], input 0 is [1, 2, 2, 4]: the slope must broadcast to the "
         "input");
  tp_xnn_graph_destroy(g);
  g = mk(TP_XNN_TARGET_XNNPACK); /* older XNNPACKs need the slope's data at definition */
  x = val(g, TP_XNN_FP32, 4, in, 0, IN);
  sl = val(g, TP_XNN_FP32, 1, ch, 1, IN);
  y = val(g, TP_XNN_FP32, 4, in, 2, OUT);
  EXPECT(tp_xnn_define_prelu(g, x, sl, y, 0), TP_ERR_INVALID,
         "prelu #0: slope 1 is not a constant");
  tp_xnn_graph_destroy(g);
}

/* deconvolution_2d: adjustment < upsampling (src/operators/deconvolution-nhwc.c, reshape) */
static void test_deconv_adjustment(void) {
  size_t in[4] = {1, 3, 3, 2}, w[4] = {2, 3, 3, 2}, out[4] = {1, 8, 8, 2};
  uint32_t x, f, y;
  tp_xnn_graph *g = mk(0);
  x = val(g, TP_XNN_FP32, 4, in, 0, IN);
  f = cval(g, 4, w);
  y = val(g, TP_XNN_FP32, 4, out, 1, OUT);
  EXPECT(tp_xnn_define_deconvolution_2d(g, 0, 0, 0, 0, 2, 2, 3, 3, 2, 2, 1, 1, 1, 2, 2,
                                        -INFINITY, INFINITY, x, f, NONE, y, 0),
         TP_ERR_INVALID,
         "deconvolution_2d #0: adjustment 2 x 2, upsampling 2 x 2: each adjustment must be "
         "smaller than its upsampling");
  tp_xnn_graph_destroy(g);
}

/* qd8 x qc4w, odd input channels: measured wrong only for the rows after the first */
static void test_qc4w_odd_k(void) {
  size_t one[2] = {1, 41}, rows[2] = {3, 41}, wd[2] = {4, 41}, o1[2] = {1, 4}, o3[2] = {3, 4};
  int64_t s4[1] = {4};
  tp_storage st;
  tp_tensor sc;
  uint32_t x, w, y, k;
  st.data = g_f;
  st.nbytes = sizeof g_f;
  tp_view(st, TP_F32, 1, s4, NULL, 0, &sc, NULL);
  for (k = 0; k < 2; k++) {
    tp_xnn_graph *g = mk(0);
    TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1,
                                                                k ? rows : one, 0, IN, &x),
               TP_OK);
    TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &sc, 2, 0, wd,
                                                                NULL, NONE, 0, &w),
               TP_OK);
    y = val(g, TP_XNN_FP32, 2, k ? o3 : o1, 1, OUT);
    if (k == 0)
      TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0), TP_OK);
    else
      EXPECT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0),
             TP_ERR_UNSUPPORTED,
             "fully_connected #0: qdint8 input x qcint4 filter 1 with 41 (odd) input channels "
             "and 3 rows: the XNNPACK ExecuTorch pins computes every row after the first wrong");
    tp_xnn_graph_destroy(g);
  }
}

/* external ids: dense 0 .. n-1 (ExecuTorch takes the call's arguments by external id) */
static void test_external_ids(void) {
  size_t d[2] = {2, 4};
  uint32_t x, y;
  tp_membuf m;
  tp_sink s;
  tp_xnn_graph *g = mk(0);
  x = val(g, TP_XNN_FP32, 2, d, 0, IN);
  y = val(g, TP_XNN_FP32, 2, d, 2, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  memset(&m, 0, sizeof m);
  s = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_ERR_INVALID);
  TPT_CONTAINS(tp_xnn_graph_error(g), "external ids must be dense 0..2: no value has external "
                                      "id 1 (ExecuTorch takes the call's arguments by external "
                                      "id)");
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}


/* byte-moving nodes keep the quantization (xnn_subgraph_check_quantization_parameter_matches) */
static void test_same_quant(void) {
  size_t in[4] = {1, 4, 4, 2}, out[4] = {1, 2, 2, 2};
  uint32_t x, y, k;
  for (k = 0; k < 3; k++) {
    tp_xnn_graph *g = mk(k == 2 ? TP_XNN_TARGET_XNNPACK : 0);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 1, 0.5f, 4, in, NULL, 0, IN,
                                                    &x), TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 1, k == 1 ? 0.5f : 0.25f,
                                                    4, out, NULL, 1, OUT, &y), TP_OK);
    if (k == 0)
      EXPECT(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, -INFINITY, INFINITY,
                                          x, y, 0),
             TP_ERR_UNSUPPORTED,
             "max_pooling_2d #0: input 0 has scale 0.5 and zero point 1, output 1 scale 0.25 and "
             "zero point 1: ExecuTorch's XNNPACK needs them equal here");
    else
      TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, -INFINITY,
                                              INFINITY, x, y, 0),
                 TP_OK);
    tp_xnn_graph_destroy(g);
  }
}

/* ---- what the differential test found (issue 20 item 3, tools/et-diff.sh) --------------- */

static int8_t g_q[4096];

/* A constant of datatype dt over g_q (int8 / uint8 bytes; int32 for qcint32 / qint32 is not
   needed here): per-tensor with zp / scale, per-channel (qcint8 / qcint4) with scales from g_f
   along cdim. */
static uint32_t qconst(tp_xnn_graph *g, tp_xnn_datatype dt, int32_t zp, size_t nd,
                       const size_t *dims, size_t cdim) {
  int64_t sz[6];
  size_t i;
  tp_storage s;
  tp_tensor t, sc;
  uint32_t id = NONE;
  for (i = 0; i < nd; i++) sz[i] = (int64_t)dims[i];
  s.data = g_q;
  s.nbytes = sizeof g_q;
  if (tp_view(s, dt == TP_XNN_QUINT8 ? TP_U8 : TP_I8, (int)nd, sz, NULL, 0, &t, NULL) != TP_OK)
    abort();
  if (dt == TP_XNN_QCINT8 || dt == TP_XNN_QCINT4) {
    int64_t n = sz[cdim];
    s.data = g_f;
    s.nbytes = sizeof g_f;
    if (tp_view(s, TP_F32, 1, &n, NULL, 0, &sc, NULL) != TP_OK) abort();
    if (tp_xnn_define_channelwise_quantized_tensor_value(g, dt, &sc, nd, cdim, dims, &t, NONE, 0,
                                                         &id) != TP_OK)
      abort();
  } else if (tp_xnn_define_quantized_tensor_value(g, dt, zp, 0.5f, nd, dims, &t, NONE, 0, &id) !=
             TP_OK) {
    abort();
  }
  return id;
}

static uint32_t qact(tp_xnn_graph *g, tp_xnn_datatype dt, size_t nd, const size_t *dims,
                     uint32_t ext, uint32_t flags) {
  uint32_t id = NONE;
  if (tp_xnn_define_quantized_tensor_value(g, dt, 0, 0.5f, nd, dims, NULL, ext, flags, &id) !=
      TP_OK)
    abort();
  return id;
}



/* XNNPACK's own define checks, at every runtime target: a qint8 filter / input2 needs zero
   point 0; SAME padding excludes explicit paddings */
static void test_define_checks(void) {
  size_t in[4] = {1, 3, 3, 2}, f[4] = {2, 1, 1, 2}, a[3] = {1, 2, 4}, b[3] = {1, 4, 3};
  size_t o3[3] = {1, 2, 3}, p4[4] = {1, 4, 4, 1}, p2[4] = {1, 2, 2, 1};
  uint32_t x, w, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = qact(g, TP_XNN_QINT8, 4, in, 0, IN);
    w = qconst(g, TP_XNN_QINT8, 3, 4, f, 0);
    y = qact(g, TP_XNN_QINT8, 4, in, 1, OUT);
    EXPECT_EXACT(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, -INFINITY,
                                              INFINITY, x, w, NONE, y, 0),
                 TP_ERR_INVALID,
                 "convolution_2d #0: filter 1 is qint8 with zero point 3: XNNPACK's signed 8-bit "
                 "weights are symmetric; requantize them with zero point 0, or use quint8");
    tp_xnn_graph_destroy(g);
  }
  g = mk(0);
  x = qact(g, TP_XNN_QINT8, 4, in, 0, IN);
  w = qconst(g, TP_XNN_QINT8, 0, 4, f, 0);
  y = qact(g, TP_XNN_QINT8, 4, in, 1, OUT);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, -INFINITY,
                                          INFINITY, x, w, NONE, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = qact(g, TP_XNN_QINT8, 3, a, 0, IN);
  w = qact(g, TP_XNN_QINT8, 3, b, 1, IN);
  y = qact(g, TP_XNN_QINT8, 3, o3, 2, OUT);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 5, 0.5f, 3, b, NULL, 3, IN,
                                                  &w), TP_OK);
  EXPECT_EXACT(tp_xnn_define_batch_matrix_multiply(g, x, w, y, 0), TP_ERR_INVALID,
               "batch_matrix_multiply #0: input2 3 is qint8 with zero point 5: XNNPACK's signed "
               "8-bit weights are symmetric; requantize them with zero point 0, or use quint8");
  tp_xnn_graph_destroy(g);
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 4, p4, 0, IN);
    y = val(g, TP_XNN_FP32, 4, p2, 1, OUT);
    EXPECT_EXACT(tp_xnn_define_average_pooling_2d(g, 1, 0, 0, 0, 2, 2, 2, 2, -INFINITY, INFINITY,
                                                  x, y, TP_XNN_FLAG_TENSORFLOW_SAME_PADDING),
                 TP_ERR_INVALID,
                 "average_pooling_2d #0: TP_XNN_FLAG_TENSORFLOW_SAME_PADDING with explicit "
                 "paddings 1/0/0/0 (top/right/bottom/left): XNNPACK refuses the two together; "
                 "drop the flag or the paddings");
    tp_xnn_graph_destroy(g);
  }
}

/* int32 bounds: truncated toward zero, beyond int32 (infinity too) -2^31 */
static void test_int32_bounds(void) {
  size_t d[2] = {2, 3};
  /* two infinite bounds: XNNPACK makes the clamp a copy */
  static const float ok[][2] = {{-INFINITY, 10.0f}, {-1.5f, 2.5f}, {-INFINITY, INFINITY},
                                {3.0f, 3.0f}};
  static const float bad[][2] = {{0.0f, INFINITY}, {0.5f, 4.0f}, {-3.0f, -1.5f}, {0.0f, 3e9f}};
  static const char *const why[] = {"max inf", "min 0.5", "max -1.5", "max 3e+09"};
  char want[512];
  uint32_t x, y, z, i;
  tp_xnn_graph *g;
  for (i = 0; i < 4; i++) {
    g = mk(0);
    x = val(g, TP_XNN_INT32, 2, d, 0, IN);
    y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
    TPT_STATUS(tp_xnn_define_clamp(g, ok[i][0], ok[i][1], x, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
    g = mk(0);
    x = val(g, TP_XNN_INT32, 2, d, 0, IN);
    y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
    snprintf(want, sizeof want,
             "clamp #0: output 1 is int32 with output %s: ExecuTorch's XNNPACK truncates int32 "
             "bounds toward zero, infinity to -2^31; give a max below 2^31, and whole numbers "
             "for a positive min or a negative max",
             why[i]);
    EXPECT_EXACT(tp_xnn_define_clamp(g, bad[i][0], bad[i][1], x, y, 0), TP_ERR_UNSUPPORTED, want);
    tp_xnn_graph_destroy(g);
    g = mk(TP_XNN_TARGET_XNNPACK);
    x = val(g, TP_XNN_INT32, 2, d, 0, IN);
    y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
    TPT_STATUS(tp_xnn_define_clamp(g, bad[i][0], bad[i][1], x, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0); /* a binary node: no bound set, no clamp; one finite bound, both apply */
  x = val(g, TP_XNN_INT32, 2, d, 0, IN);
  y = val(g, TP_XNN_INT32, 2, d, 1, IN);
  z = val(g, TP_XNN_INT32, 2, d, 2, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, y, z, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  g = mk(0);
  x = val(g, TP_XNN_INT32, 2, d, 0, IN);
  y = val(g, TP_XNN_INT32, 2, d, 1, IN);
  z = val(g, TP_XNN_INT32, 2, d, 2, OUT);
  EXPECT_EXACT(tp_xnn_define_multiply2(g, 0.0f, INFINITY, x, y, z, 0), TP_ERR_UNSUPPORTED,
               "multiply2 #0: output 2 is int32 with output max inf: ExecuTorch's XNNPACK "
               "truncates int32 bounds toward zero, infinity to -2^31; give a max below 2^31, "
               "and whole numbers for a positive min or a negative max");
  tp_xnn_graph_destroy(g);
}

/* int32 maximum with a one-element constant: XNNPACK makes it clamp(x, c, +inf) */
static void test_int32_max_scalar(void) {
  size_t d[2] = {2, 3}, one[1] = {1};
  static int32_t c[1] = {0};
  int64_t n1 = 1;
  tp_storage st;
  tp_tensor t;
  uint32_t x, k1, y, k;
  tp_xnn_graph *g;
  st.data = c;
  st.nbytes = sizeof c;
  if (tp_view(st, TP_I32, 1, &n1, NULL, 0, &t, NULL) != TP_OK) abort();
  for (k = 0; k < 2; k++) {
    g = mk(0);
    x = val(g, TP_XNN_INT32, 2, d, 0, IN);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_INT32, 1, one, &t, NONE, 0, &k1), TP_OK);
    y = val(g, TP_XNN_INT32, 2, d, 1, OUT);
    if (k)
      TPT_STATUS(tp_xnn_define_minimum2(g, x, k1, y, 0), TP_OK); /* clamp(x, -inf, c): right */
    else
      EXPECT_EXACT(tp_xnn_define_maximum2(g, k1, x, y, 0), TP_ERR_UNSUPPORTED,
                   "maximum2 #0: int32 input 1 is a one-element constant: ExecuTorch's XNNPACK "
                   "makes the node a clamp to +infinity, which int32 turns into -2^31; give the "
                   "constant the other input's shape");
    tp_xnn_graph_destroy(g);
  }
}

/* A constant in the blob that a node reads when it runs: ExecuTorch frees the blob after init
   (refused at target 0, with every kind's name in the sentence); the slots XNNPACK packs at
   create, a maximum / minimum's one-element constant (a clamp), a named constant (.ptd) and an
   empty one are accepted. */
static void test_blob_constant_at_execute(void) {
  size_t d[2] = {2, 3}, one[1] = {1}, w[2] = {4, 3}, o[2] = {2, 4}, cat[2] = {4, 3};
  size_t e[2] = {0, 3};
  uint32_t x, c, y, b, k;
  tp_xnn_graph *g;
  tp_store *store = NULL;
  static const char add_why[] =
      "add2 #0: input 1 is a constant in the blob: ExecuTorch frees the blob after init; add2 "
      "reads it at execute; make it a graph input, or keep it in a .ptd (tp_xnn_options.store)";
  for (k = 0; k < 3; k++) {
    /* target 0 refuses; the XNNPACK target keeps the blob (accepted), and tp_xnn_check_blob at
       target 0 says what define said; a named constant's blob passes */
    tp_membuf m;
    tp_sink sk;
    tp_error e;
    g = k == 2 ? mk_named(&store) : mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 2, d, 0, IN);
    c = cval(g, 2, d);
    y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
    if (k == 0) {
      EXPECT_EXACT(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_ERR_UNSUPPORTED,
                   add_why);
      tp_xnn_graph_destroy(g);
      continue;
    }
    TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_OK);
    memset(&m, 0, sizeof m);
    memset(&e, 0, sizeof e);
    sk = tp_sink_membuf(&m);
    TPT_STATUS(tp_xnn_write(g, &sk), TP_OK);
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e),
               k == 1 ? TP_ERR_UNSUPPORTED : TP_OK);
    if (k == 1) TPT_EQ_STR(e.msg, add_why);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
    if (k == 2) tp_store_destroy(store);
  }
  g = mk(0); /* concatenate, its first input constant */
  c = cval(g, 2, d);
  x = val(g, TP_XNN_FP32, 2, d, 0, IN);
  y = val(g, TP_XNN_FP32, 2, cat, 1, OUT);
  EXPECT_EXACT(tp_xnn_define_concatenate2(g, 0, c, x, y, 0), TP_ERR_UNSUPPORTED,
               "concatenate2 #0: input 0 is a constant in the blob: ExecuTorch frees the blob "
               "after init; concatenate2 reads it at execute; make it a graph input, or keep it "
               "in a .ptd (tp_xnn_options.store)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* a one-input node of a constant */
  c = cval(g, 2, d);
  y = val(g, TP_XNN_FP32, 2, d, 0, OUT);
  EXPECT_EXACT(tp_xnn_define_copy(g, c, y, 0), TP_ERR_UNSUPPORTED,
               "copy #0: input 0 is a constant in the blob: ExecuTorch frees the blob after "
               "init; copy reads it at execute; make it a graph input, or keep it in a .ptd "
               "(tp_xnn_options.store)");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* maximum2 with a [2, 3] constant: read at execute; a [1] one: a clamp */
  x = val(g, TP_XNN_FP32, 2, d, 0, IN);
  c = cval(g, 2, d);
  y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
  EXPECT_EXACT(tp_xnn_define_maximum2(g, c, x, y, 0), TP_ERR_UNSUPPORTED,
               "maximum2 #0: input 1 is a constant in the blob: ExecuTorch frees the blob after "
               "init; maximum2 reads it at execute; make it a graph input, or keep it in a .ptd "
               "(tp_xnn_options.store)");
  tp_xnn_graph_destroy(g);
  for (k = 0; k < 2; k++) {
    g = mk(0);
    x = val(g, TP_XNN_FP32, 2, d, 0, IN);
    b = cval(g, 1, one);
    y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
    if (k)
      TPT_STATUS(tp_xnn_define_minimum2(g, b, x, y, 0), TP_OK);
    else
      TPT_STATUS(tp_xnn_define_maximum2(g, x, b, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0); /* packed at create: a fully-connected filter and bias, a batch matmul's input2 */
  x = val(g, TP_XNN_FP32, 2, d, 0, IN);
  c = cval(g, 2, w);
  b = cval(g, 1, &w[0]);
  y = val(g, TP_XNN_FP32, 2, o, 1, OUT);
  TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, c, b, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  {
    size_t a3[3] = {1, 2, 3}, b3[3] = {1, 3, 4}, o3[3] = {1, 2, 4};
    g = mk(0);
    x = val(g, TP_XNN_FP32, 3, a3, 0, IN);
    c = cval(g, 3, b3);
    y = val(g, TP_XNN_FP32, 3, o3, 1, OUT);
    TPT_STATUS(tp_xnn_define_batch_matrix_multiply(g, x, c, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0); /* an empty constant reads nothing */
  x = val(g, TP_XNN_FP32, 2, e, 0, IN);
  c = cval(g, 2, e);
  y = val(g, TP_XNN_FP32, 2, e, 1, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  /* a named constant: ExecuTorch keeps the .ptd's buffers of the values it does not pack */
  g = mk_named(&store);
  x = val(g, TP_XNN_FP32, 2, d, 0, IN);
  c = cval(g, 2, d);
  y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_add2(g, -INFINITY, INFINITY, x, c, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* softmax over a last dim of 0: XNNPACK refuses zero channels when the node runs (seed 16217
   of the differential test: accepted, then execute-failed), at every target */
static void test_softmax_no_channels(void) {
  size_t d[2] = {5, 0};
  uint32_t x, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 2, d, 0, IN);
    y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
    EXPECT_EXACT(tp_xnn_define_softmax(g, x, y, 0), TP_ERR_INVALID,
                 "softmax #0: input 0 is [5, 0]: XNNPACK's softmax needs at least one channel "
                 "(the last dim; src/operators/softmax-nc.c refuses 0 when the node runs)");
    tp_xnn_graph_destroy(g);
  }
}

/* pooling: argmax with padding; a max / average window wholly in the padding */
static void test_pool_padding(void) {
  size_t in[4] = {1, 4, 4, 1}, o[4] = {1, 2, 2, 1}, small[4] = {1, 2, 2, 1}, tall[4] = {1, 3, 1, 1};
  size_t two[4] = {1, 2, 1, 1};
  uint32_t x, y, ix, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 4, in, 0, IN);
    y = val(g, TP_XNN_FP32, 4, o, 1, OUT);
    ix = val(g, TP_XNN_INT32, 4, o, 2, OUT);
    if (k == 0)
      EXPECT_EXACT(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 1, 2, 2, x, y, ix, 0),
                   TP_ERR_UNSUPPORTED,
                   "argmax_pooling_2d #0: top / left padding 0 / 1: ExecuTorch's XNNPACK counts "
                   "the clamped border pixels before the real ones, so the indices are wrong; pad "
                   "only the bottom and right, or pad the input with static_constant_pad");
    else
      TPT_STATUS(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 1, 2, 2, x, y, ix, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  for (k = 0; k < 2; k++) { /* bottom padding: the real pixels come first; 2 rows of it: a window
                               wholly in the padding */
    size_t o3[4] = {1, 3, 2, 1};
    g = mk(0);
    x = val(g, TP_XNN_FP32, 4, in, 0, IN);
    y = val(g, TP_XNN_FP32, 4, k ? o3 : o, 1, OUT);
    ix = val(g, TP_XNN_INT32, 4, k ? o3 : o, 2, OUT);
    if (k)
      EXPECT_EXACT(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 2, 0, 2, 2, x, y, ix, 0),
                   TP_ERR_UNSUPPORTED,
                   "argmax_pooling_2d #0: output row 2 pools a window wholly in the padding (0 "
                   "before, 2 after an input height of 4): ExecuTorch's XNNPACK gives it border "
                   "pixels (PyTorch refuses such padding); pad less than the window");
    else
      TPT_STATUS(tp_xnn_define_argmax_pooling_2d(g, 0, 1, 1, 0, 2, 2, x, y, ix, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0);
  x = val(g, TP_XNN_FP32, 4, small, 0, IN);
  y = val(g, TP_XNN_FP32, 4, tall, 1, OUT);
  EXPECT_EXACT(tp_xnn_define_max_pooling_2d(g, 2, 0, 0, 0, 2, 2, 1, 1, 1, 1, -INFINITY, INFINITY,
                                            x, y, 0),
               TP_ERR_UNSUPPORTED,
               "max_pooling_2d #0: output row 0 pools a window wholly in the padding (2 before, 0 "
               "after an input height of 2): ExecuTorch's XNNPACK gives it border pixels (PyTorch "
               "refuses such padding); pad less than the window");
  tp_xnn_graph_destroy(g);
  g = mk(0); /* padding 1: every window holds an input row */
  x = val(g, TP_XNN_FP32, 4, small, 0, IN);
  y = val(g, TP_XNN_FP32, 4, two, 1, OUT);
  TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 1, 0, 0, 0, 2, 2, 1, 1, 1, 1, -INFINITY, INFINITY,
                                          x, y, 0), TP_OK);
  tp_xnn_graph_destroy(g);
}

/* weights-only quantized fully-connected with a bias; transposed qcint4; qcint8 batch matrix
   multiply with batches; qd8 convolution's num_nonbatch_dims */
static void test_quantized_semantics(void) {
  size_t xi[2] = {2, 4}, wf[2] = {3, 4}, wt[2] = {4, 3}, bd[1] = {3}, yo[2] = {2, 3};
  size_t a[3] = {2, 2, 4}, b3[3] = {2, 4, 3}, b2[3] = {1, 4, 3}, o3[3] = {2, 2, 3};
  size_t ci[4] = {1, 4, 4, 2}, cf[4] = {2, 3, 3, 2}, co[4] = {1, 2, 2, 2}, c1[4] = {2, 1, 1, 2};
  size_t c1o[4] = {1, 4, 4, 2};
  uint32_t x, w, bb, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(0);
    x = val(g, TP_XNN_FP32, 2, xi, 0, IN);
    w = qconst(g, k ? TP_XNN_QCINT4 : TP_XNN_QCINT8, 0, 2, wf, 0);
    bb = cval(g, 1, bd);
    y = val(g, TP_XNN_FP32, 2, yo, 1, OUT);
    EXPECT_EXACT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, bb, y, 0),
               TP_ERR_UNSUPPORTED,
               k ? "fully_connected #0: fp32 input 0, qcint4 filter 1 and bias 2: ExecuTorch's "
                   "XNNPACK multiplies the bias by the filter's channel scales; add it with an add "
                   "node, or quantize the input (convert to qdint8)"
                 : "fully_connected #0: fp32 input 0, qcint8 filter 1 and bias 2: ExecuTorch's "
                   "XNNPACK multiplies the bias by the filter's channel scales; add it with an add "
                   "node, or quantize the input (convert to qdint8)");
    tp_xnn_graph_destroy(g);
    g = mk(0); /* without a bias: right */
    x = val(g, TP_XNN_FP32, 2, xi, 0, IN);
    w = qconst(g, k ? TP_XNN_QCINT4 : TP_XNN_QCINT8, 0, 2, wf, 0);
    y = val(g, TP_XNN_FP32, 2, yo, 1, OUT);
    TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, xi, 0, IN);
  w = qconst(g, TP_XNN_QCINT4, 0, 2, wt, 1);
  y = val(g, TP_XNN_FP32, 2, yo, 1, OUT);
  EXPECT_EXACT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y,
                                             TP_XNN_FLAG_TRANSPOSE_WEIGHTS),
               TP_ERR_UNSUPPORTED,
               "fully_connected #0: qcint4 filter 1 with TP_XNN_FLAG_TRANSPOSE_WEIGHTS: "
               "ExecuTorch's XNNPACK reads its 4-bit pairs along the input channels; pass it as "
               "[output channels, input channels] without the flag");
  tp_xnn_graph_destroy(g);
  for (k = 0; k < 2; k++) {
    g = mk(0);
    x = val(g, TP_XNN_FP32, 3, a, 0, IN);
    w = qconst(g, TP_XNN_QCINT8, 0, 3, k ? b2 : b3, 2);
    y = val(g, TP_XNN_FP32, 3, o3, 1, OUT);
    if (k)
      TPT_STATUS(tp_xnn_define_batch_matrix_multiply(g, x, w, y, 0), TP_OK);
    else
      EXPECT_EXACT(tp_xnn_define_batch_matrix_multiply(g, x, w, y, 0), TP_ERR_UNSUPPORTED,
                   "batch_matrix_multiply #0: qcint8 input2 1 has 2 batches: ExecuTorch's "
                   "XNNPACK reads one scale per batch and column, the value has one per column; "
                   "split the batches, or use fp32");
    tp_xnn_graph_destroy(g);
  }
  for (k = 0; k < 3; k++) { /* nnb 1: refused; 3: right; a 1x1 convolution: any */
    uint32_t q = NONE;
    g = mk(0);
    TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 4,
                                                                k == 1 ? 3 : 1, ci, NONE, 0, &q),
               TP_OK);
    w = qconst(g, TP_XNN_QCINT8, 0, 4, k == 2 ? c1 : cf, 0);
    y = val(g, TP_XNN_FP32, 4, k == 2 ? c1o : co, 0, OUT);
    if (k == 0)
      EXPECT_EXACT(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 3, 3, 1, 1, 1, 1, 1, 2, 2,
                                                -INFINITY, INFINITY, q, w, NONE, y, 0),
                   TP_ERR_UNSUPPORTED,
                   "convolution_2d #0: qdint8 input 0 has num_nonbatch_dims 1: ExecuTorch's "
                   "XNNPACK quantizes a convolution's input per batch image; define it with "
                   "num_nonbatch_dims 3");
    else if (k == 1)
      TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 3, 3, 1, 1, 1, 1, 1, 2, 2, -INFINITY,
                                              INFINITY, q, w, NONE, y, 0), TP_OK);
    else
      TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, -INFINITY,
                                              INFINITY, q, w, NONE, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
}

/* a qint8 clamp with two infinite bounds becomes a copy: same quantization in and out; a 1 x 1
   qcint4 filter crashes the runtime */
static void test_clamp_copy_and_tiny_qc4w(void) {
  size_t d[2] = {2, 3}, one[2] = {1, 1}, x1[2] = {2, 1}, y1[2] = {2, 1};
  uint32_t x, y, w, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(0);
    x = qact(g, TP_XNN_QINT8, 2, d, 0, IN);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 3, 0.25f, 2, d, NULL, 1, OUT,
                                                    &y), TP_OK);
    if (k)
      TPT_STATUS(tp_xnn_define_clamp(g, -1.0f, 1.0f, x, y, 0), TP_OK);
    else
      EXPECT_EXACT(tp_xnn_define_clamp(g, -INFINITY, INFINITY, x, y, 0), TP_ERR_UNSUPPORTED,
                   "clamp #0: input 0 has scale 0.5 and zero point 0, output 1 scale 0.25 and "
                   "zero point 3: ExecuTorch's XNNPACK needs them equal here (the node moves "
                   "bytes); requantize with a convert node");
    tp_xnn_graph_destroy(g);
  }
  g = mk(0);
  x = val(g, TP_XNN_FP32, 2, x1, 0, IN);
  w = qconst(g, TP_XNN_QCINT4, 0, 2, one, 0);
  y = val(g, TP_XNN_FP32, 2, y1, 1, OUT);
  EXPECT_EXACT(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, w, NONE, y, 0),
               TP_ERR_UNSUPPORTED,
               "fully_connected #0: qcint4 filter 1 is [1, 1], one 4-bit weight: ExecuTorch's "
               "runtime crashes on it (SIGSEGV, measured); use a qcint8 filter");
  tp_xnn_graph_destroy(g);
}

/* bf16 in, fp32 out (and back) for the unary kinds the runtime lowers to fp32 with converts;
   other kinds (copy) and other targets refuse the mix */
static void test_bf16_mix(void) {
  size_t d[2] = {2, 3};
  uint32_t x, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 4; k++) {
    g = mk(k == 3 ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, k == 1 ? TP_XNN_FP32 : TP_XNN_BF16, 2, d, 0, IN);
    y = val(g, k == 1 ? TP_XNN_BF16 : TP_XNN_FP32, 2, d, 1, OUT);
    if (k < 2)
      TPT_STATUS(tp_xnn_define_exp(g, x, y, 0), TP_OK);
    else if (k == 2)
      EXPECT_EXACT(tp_xnn_define_copy(g, x, y, 0), TP_ERR_UNSUPPORTED,
                   "copy #0: input bf16, output fp32: no operator in ExecuTorch's XNNPACK; with a "
                   "bf16 input it has output bf16");
    else
      EXPECT_EXACT(tp_xnn_define_exp(g, x, y, 0), TP_ERR_INVALID,
                   "exp #0: input_id 0 is bf16 but output_id 1 is fp32: they must agree");
    tp_xnn_graph_destroy(g);
  }
}

/* a convert to its own datatype: ExecuTorch's XNNPACK copies it; other targets refuse it */
static void test_convert_same(void) {
  size_t d[2] = {2, 3};
  uint32_t x, y, k;
  tp_xnn_graph *g;
  for (k = 0; k < 2; k++) {
    g = mk(k ? TP_XNN_TARGET_XNNPACK : 0);
    x = val(g, TP_XNN_FP32, 2, d, 0, IN);
    y = val(g, TP_XNN_FP32, 2, d, 1, OUT);
    if (k)
      EXPECT_EXACT(tp_xnn_define_convert(g, x, y, 0), TP_ERR_INVALID,
                   "convert #0: input 0 and output 1 are both fp32: nothing to convert");
    else
      TPT_STATUS(tp_xnn_define_convert(g, x, y, 0), TP_OK);
    tp_xnn_graph_destroy(g);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--print")) {
    char *md = support_markdown();
    fputs(md, stdout);
    free(md);
    return 0;
  }
  TPT_RUN(test_table);
  TPT_RUN(test_readme);
  TPT_RUN(test_support_rule);
  TPT_RUN(test_support_blob);
  TPT_RUN(test_slice_size_zero);
  TPT_RUN(test_fc_output_shape);
  TPT_RUN(test_reshape_infer);
  TPT_RUN(test_prelu_slope);
  TPT_RUN(test_deconv_adjustment);
  TPT_RUN(test_qc4w_odd_k);
  TPT_RUN(test_external_ids);
  TPT_RUN(test_same_quant);
  TPT_RUN(test_define_checks);
  TPT_RUN(test_int32_bounds);
  TPT_RUN(test_pool_padding);
  TPT_RUN(test_quantized_semantics);
  TPT_RUN(test_convert_same);
  TPT_RUN(test_clamp_copy_and_tiny_qc4w);
  TPT_RUN(test_bf16_mix);
  TPT_RUN(test_int32_max_scalar);
  TPT_RUN(test_blob_constant_at_execute);
  TPT_RUN(test_softmax_no_channels);
  return tpt_finish("xnn_support");
}
