/* golden - the bytes guard: every artifact tensorpack writes stays byte-identical through
   refactors.

   Builds a broad corpus with the public API only (one XNNPACK blob per node kind, inline and a
   few named with their .ptd; every value kind: per-tensor, per-channel, blockwise, dynamic,
   int4 packed from int8 and given packed; the seed cases (ExecuTorch PR 24208); Vulkan blobs
   with every value kind, force_fp16, named + .ptd, shaders, overrides; .ptd files; programs as
   tools/demo.c part [6] writes them: XNNPACK seed linear, q/k/v with the store embedded and
   with a .ptd, Vulkan linear) and compares
   the SHA-256 of each with the committed list tests/data/golden.sha256 (sha256sum format,
   made from the code at main d7b1b8c). Every artifact also goes once through its _write_file
   (read back, must be the same bytes) and its _size call (must be the written size).

   Usage:
     golden                 the suite (make test): "golden: N passed, N failed"; a difference
                            names the artifact and both digests
     golden --print         prints the list (regenerate: golden --print > tests/data/golden.sha256,
                            only when a change of bytes is intended, and say so in the commit)
     golden --dir DIR       also writes every artifact as DIR/<name> (to diff two builds)
   GOLDEN_LIST (compile-time) is the list's path, GOLDEN_TMP a scratch file for _write_file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#ifndef GOLDEN_LIST
#define GOLDEN_LIST "tests/data/golden.sha256"
#endif
#ifndef GOLDEN_TMP
#define GOLDEN_TMP "golden.tmp"
#endif

/* ---- the list and the comparison ------------------------------------------------------------ */

#define MAX_ART 512
static struct {
  char name[96];
  char sha[65];
  int seen;
} g_list[MAX_ART];
static int g_nlist;
static int g_print;
static const char *g_dir;
static int g_produced;

static void load_list(void) {
  FILE *f = fopen(GOLDEN_LIST, "r");
  char line[256];
  if (!f) {
    printf("  golden: cannot open %s\n", GOLDEN_LIST);
    return;
  }
  while (fgets(line, sizeof line, f) && g_nlist < MAX_ART) {
    char *sp = strchr(line, ' ');
    size_t n;
    if (!sp || sp - line != 64) continue;
    memcpy(g_list[g_nlist].sha, line, 64);
    g_list[g_nlist].sha[64] = 0;
    sp += 2; /* "  " */
    n = strcspn(sp, "\r\n");
    if (n >= sizeof g_list[g_nlist].name) n = sizeof g_list[g_nlist].name - 1;
    memcpy(g_list[g_nlist].name, sp, n);
    g_list[g_nlist].name[n] = 0;
    g_nlist++;
  }
  fclose(f);
}

/* One artifact: its digest against the list (the failure names it). */
static void artifact(const char *name, const void *data, size_t n) {
  char hex[65];
  int i;
  g_produced++;
  TPT_STATUS(tp_sha256_hex(data, n, hex), TP_OK);
  if (g_dir) {
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) printf("  cannot write %s\n", path);
  }
  if (g_print) {
    printf("%s  %s\n", hex, name);
    return;
  }
  for (i = 0; i < g_nlist; i++) {
    if (strcmp(g_list[i].name, name) != 0) continue;
    g_list[i].seen++;
    if (strcmp(g_list[i].sha, hex) != 0) {
      char m[300];
      snprintf(m, sizeof m, "artifact %s (%u bytes) changed: sha256 %s, the list has %s", name,
               (unsigned)n, hex, g_list[i].sha);
      tpt_fail_at(__FILE__, __LINE__, m);
    }
    return;
  }
  {
    char m[200];
    snprintf(m, sizeof m, "artifact %s is not in %s", name, GOLDEN_LIST);
    tpt_fail_at(__FILE__, __LINE__, m);
  }
}

#define OK(expr)                                                                     \
  do {                                                                               \
    tp_status ok_st_ = (expr);                                                       \
    if (ok_st_ != TP_OK) {                                                           \
      char ok_m_[300];                                                               \
      snprintf(ok_m_, sizeof ok_m_, "%s: %s", #expr, tp_status_str(ok_st_));         \
      tpt_fail_at(__FILE__, __LINE__, ok_m_);                                        \
    }                                                                                \
  } while (0)

static void file_matches(const char *name, const tp_membuf *m) {
  FILE *f = fopen(GOLDEN_TMP, "rb");
  unsigned char *b = (unsigned char *)malloc(m->size + 1);
  size_t got = 0;
  if (f && b) got = fread(b, 1, m->size + 1, f);
  if (!f || !b || got != m->size || (m->size && memcmp(b, m->data, m->size) != 0)) {
    char msg[200];
    snprintf(msg, sizeof msg, "artifact %s: the _write_file bytes differ from the sink's (%u vs %u)",
             name, (unsigned)got, (unsigned)m->size);
    tpt_fail_at(__FILE__, __LINE__, msg);
  }
  if (f) fclose(f);
  free(b);
  remove(GOLDEN_TMP);
}

/* One artifact's writer, whatever it is: a store (.ptd), an XNNPACK or Vulkan graph, a program;
   art_do runs one step of emit() on it. */
enum { ART_PTD, ART_XNN, ART_VK, ART_PTE };
enum { STEP_STATUS, STEP_WRITE, STEP_SIZE, STEP_FILE };

/* step: STEP_WRITE (arg: the sink), STEP_SIZE (arg: the uint64_t), STEP_FILE (arg: the path)
   or STEP_STATUS; *msg gets the object's sentence. */
static tp_status art_do(int kind, void *obj, int step, void *arg, const char **msg) {
  tp_status st = TP_OK;
  if (kind == ART_PTD) {
    tp_store *o = (tp_store *)obj;
    st = step == STEP_WRITE  ? tp_store_write_ptd(o, (tp_sink *)arg)
         : step == STEP_SIZE ? tp_store_ptd_size(o, (uint64_t *)arg)
         : step == STEP_FILE ? tp_store_write_ptd_file(o, (const char *)arg)
                             : tp_store_status(o);
    *msg = tp_store_error(o);
  } else if (kind == ART_XNN) {
    tp_xnn_graph *o = (tp_xnn_graph *)obj;
    st = step == STEP_WRITE  ? tp_xnn_write(o, (tp_sink *)arg)
         : step == STEP_SIZE ? tp_xnn_blob_size(o, (uint64_t *)arg)
         : step == STEP_FILE ? tp_xnn_write_file(o, (const char *)arg)
                             : tp_xnn_graph_status(o);
    *msg = tp_xnn_graph_error(o);
  } else if (kind == ART_VK) {
    tp_vk_graph *o = (tp_vk_graph *)obj;
    st = step == STEP_WRITE  ? tp_vk_write(o, (tp_sink *)arg)
         : step == STEP_SIZE ? tp_vk_blob_size(o, (uint64_t *)arg)
         : step == STEP_FILE ? tp_vk_write_file(o, (const char *)arg)
                             : tp_vk_graph_status(o);
    *msg = tp_vk_graph_error(o);
  } else {
    tp_pte *o = (tp_pte *)obj;
    st = step == STEP_WRITE  ? tp_pte_write(o, (tp_sink *)arg)
         : step == STEP_SIZE ? tp_pte_size(o, (uint64_t *)arg)
         : step == STEP_FILE ? tp_pte_write_file(o, (const char *)arg)
                             : tp_pte_status(o);
    *msg = tp_pte_error(o);
  }
  return st;
}

/* The artifact `name` from obj's sink write, checked against its _size and its _write_file;
   then the store `ptd` (named constants; NULL: none) as "<name>.ptd". */
static void emit(const char *name, int kind, void *obj, tp_store *ptd) {
  tp_membuf m = {NULL, 0, 0};
  tp_sink sk = tp_sink_membuf(&m);
  uint64_t size = 0;
  const char *msg = "";
  int step;
  for (step = STEP_STATUS; step <= STEP_FILE; step++) {
    void *arg = step == STEP_WRITE ? (void *)&sk : step == STEP_SIZE ? (void *)&size
                                                                     : (void *)GOLDEN_TMP;
    tp_status st = art_do(kind, obj, step, arg, &msg);
    if (st != TP_OK) {
      char fail[300];
      snprintf(fail, sizeof fail, "artifact %s: step %d: %s: %s", name, step, tp_status_str(st),
               msg);
      tpt_fail_at(__FILE__, __LINE__, fail);
    }
  }
  TPT_EQ_U64(size, m.size);
  file_matches(name, &m);
  artifact(name, m.data, m.size);
  tp_membuf_free(&m);
  if (ptd) {
    char pname[128];
    snprintf(pname, sizeof pname, "%s.ptd", name);
    emit(pname, ART_PTD, ptd, NULL);
  }
}

static void emit_ptd(const char *name, tp_store *s) { emit(name, ART_PTD, s, NULL); }
static void emit_xnn(const char *name, tp_xnn_graph *g, tp_store *s) { emit(name, ART_XNN, g, s); }
static void emit_vk(const char *name, tp_vk_graph *g, tp_store *s) { emit(name, ART_VK, g, s); }
static void emit_pte(const char *name, tp_pte *p, tp_store *s) { emit(name, ART_PTE, p, s); }

/* The corpus proves the serializer's bytes, field by field, with parameters that are unique
   rather than meaningful (a padding of 7000, a filter [1, 2, 3, 4]): it opts out of the node
   and graph rules (TP_XNN_TARGET_UNCHECKED), which tests/test_xnn_checks.c covers. */
static tp_xnn_options g_unchecked; /* .target = TP_XNN_TARGET_UNCHECKED, set in main */

/* ---- data ----------------------------------------------------------------------------------- */

static float g_f[3 * 8 * 8 * 4];
static int8_t g_i8[1024];
static uint8_t g_u8[1024];
static int32_t g_i32[64];
static uint16_t g_h[256], g_bf[256];

static tp_tensor view(const void *data, size_t nbytes, tp_dtype dt, int ndim,
                      const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = data;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  OK(tp_view(s, dt, ndim, sizes, NULL, 0, &t, NULL));
  return t;
}

static tp_tensor strided(const void *data, size_t nbytes, tp_dtype dt, int ndim,
                         const int64_t *sizes, const int64_t *strides, int64_t offset) {
  tp_storage s;
  tp_tensor t;
  s.data = data;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  OK(tp_view(s, dt, ndim, sizes, strides, offset, &t, NULL));
  return t;
}

/* ---- XNNPACK: one blob per node kind --------------------------------------------------------- */

#define NV 12u
/* Field values of node kind k: value ids rotate through the NV values, parameters are unique. */
#define I(n) ((uint32_t)(((unsigned)k * 5u + (n)) % NV))
#define P(n) ((uint32_t)(1000u * (unsigned)k + (n)))

/* Defines node kind k (arguments in the define call's order, independent of any table). */
static tp_status define_kind(tp_xnn_graph *g, int k) {
  const float mn = -(float)k, mx = (float)k + 0.5f, fp = 0.25f * (float)k + 2.0f;
  const uint32_t INV = TP_XNN_INVALID_ID;
  size_t va[6], vb[6], nvec = (size_t)(k % 4) + 1, i;
  for (i = 0; i < 6; i++) {
    va[i] = 100u * (unsigned)k + i;
    vb[i] = 200u * (unsigned)k + i;
  }
  switch (k) {
    case TP_XNN_NODE_ADD: return tp_xnn_define_add2(g, mn, mx, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_SUBTRACT: return tp_xnn_define_subtract(g, mn, mx, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_MULTIPLY: return tp_xnn_define_multiply2(g, mn, mx, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_DIVIDE: return tp_xnn_define_divide(g, mn, mx, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_MAXIMUM: return tp_xnn_define_maximum2(g, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_MINIMUM: return tp_xnn_define_minimum2(g, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_PRELU: return tp_xnn_define_prelu(g, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY:
      return tp_xnn_define_batch_matrix_multiply(g, I(0), I(1), I(2), P(3));
    case TP_XNN_NODE_CLAMP: return tp_xnn_define_clamp(g, mn, mx, I(0), I(1), P(2));
    case TP_XNN_NODE_GLOBAL_AVG_POOLING_2D:
      return tp_xnn_define_global_average_pooling_2d(g, mn, mx, I(0), I(1), P(2));
#define U1(KIND, fn) \
  case TP_XNN_NODE_##KIND: return tp_xnn_define_##fn(g, I(0), I(1), P(2));
      U1(SOFTMAX, softmax) U1(SIGMOID, sigmoid) U1(FLOOR, floor) U1(CONVERT, convert)
      U1(SQUARE_ROOT, square_root) U1(CEILING, ceiling) U1(HARDSWISH, hardswish)
      U1(NEGATE, negate) U1(SQUARE, square) U1(ABS, abs)
      U1(RECIPROCAL_SQUARE_ROOT, reciprocal_square_root) U1(LOG, log) U1(GELU, gelu)
      U1(TANH, tanh) U1(EXP, exp) U1(SIN, sin) U1(COS, cos) U1(COPY, copy)
#undef U1
    case TP_XNN_NODE_ELU: return tp_xnn_define_elu(g, fp, I(1), I(2), P(3));
    case TP_XNN_NODE_LEAKY_RELU: return tp_xnn_define_leaky_relu(g, fp, I(1), I(2), P(3));
    case TP_XNN_NODE_FULLY_CONNECTED:
      return tp_xnn_define_fully_connected(g, mn, mx, I(0), I(1), k % 2 ? INV : I(2), I(3), P(4));
    case TP_XNN_NODE_CONV2D:
      return tp_xnn_define_convolution_2d(g, P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8),
                                          P(9), P(12), P(10), P(11), mn, mx, I(15), I(16), I(17),
                                          I(18), P(19));
    case TP_XNN_NODE_DEPTHWISE_CONV2D:
      return tp_xnn_define_depthwise_convolution_2d(g, P(0), P(1), P(2), P(3), P(4), P(5), P(6),
                                                    P(7), P(8), P(9), P(11), P(12), mn, mx,
                                                    I(15), I(16), INV, I(18), P(19));
    case TP_XNN_NODE_DECONV2D:
      return tp_xnn_define_deconvolution_2d(g, P(0), P(1), P(2), P(3), P(13), P(14), P(4), P(5),
                                            P(6), P(7), P(8), P(9), P(12), P(10), P(11), mn, mx,
                                            I(15), I(16), I(17), I(18), P(19));
    case TP_XNN_NODE_AVG_POOLING_2D:
      return tp_xnn_define_average_pooling_2d(g, P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7),
                                              mn, mx, I(10), I(11), P(12));
    case TP_XNN_NODE_MAX_POOLING_2D:
      return tp_xnn_define_max_pooling_2d(g, P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7),
                                          P(8), P(9), mn, mx, I(10), I(11), P(12));
    case TP_XNN_NODE_ARGMAX_POOLING_2D:
      return tp_xnn_define_argmax_pooling_2d(g, P(0), P(1), P(2), P(3), P(4), P(5), I(6), I(7),
                                             I(8), P(9));
    case TP_XNN_NODE_CONCATENATE2:
      return tp_xnn_define_concatenate2(g, P(0), I(1), I(2), I(5), P(6));
    case TP_XNN_NODE_CONCATENATE3:
      return tp_xnn_define_concatenate3(g, P(0), I(1), I(2), I(3), I(5), P(6));
    case TP_XNN_NODE_CONCATENATE4:
      return tp_xnn_define_concatenate4(g, P(0), I(1), I(2), I(3), I(4), I(5), P(6));
    case TP_XNN_NODE_CONCATENATE5:
      return tp_xnn_define_concatenate5(g, P(0), I(1), I(2), I(3), I(4), I(7), I(5), P(6));
    case TP_XNN_NODE_STATIC_TRANSPOSE:
      return tp_xnn_define_static_transpose(g, nvec, va, I(2), I(3), P(4));
    case TP_XNN_NODE_STATIC_RESHAPE:
      return tp_xnn_define_static_reshape(g, nvec, va, I(2), I(3), P(4));
    case TP_XNN_NODE_STATIC_SLICE:
      return tp_xnn_define_static_slice(g, nvec, va, vb, I(3), I(4), P(5));
    case TP_XNN_NODE_STATIC_CONSTANT_PAD:
      return tp_xnn_define_static_constant_pad(g, va, vb, fp, I(3), I(4), P(5));
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      return tp_xnn_define_static_resize_bilinear_2d(g, P(0), P(1), I(2), I(3), P(4));
    case TP_XNN_NODE_SCALED_DOT_PRODUCT_ATTENTION:
      return tp_xnn_define_scaled_dot_product_attention(g, I(0), I(1), I(2), I(3), I(4), I(5),
                                                        P(6));
    default: return TP_ERR_UNSUPPORTED; /* a kind of the list without a case: golden fails */
  }
}
#undef I
#undef P

static void node_values(tp_xnn_graph *g) {
  size_t d4[4] = {1, 2, 3, 4};
  uint32_t i;
  for (i = 0; i < NV; i++)
    OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, NULL, i < 2 ? i : TP_XNN_INVALID_ID,
                                  i == 0   ? TP_XNN_FLAG_EXTERNAL_INPUT
                                  : i == 1 ? TP_XNN_FLAG_EXTERNAL_OUTPUT
                                           : 0,
                                  NULL));
}

/* The kinds xnn-all-nodes.xnn holds: the first 47, so that a kind added to TP_XNN_NODE_LIST is
   one new artifact (its own xnn-node-NN-name.xnn line) and changes no existing one. */
#define ALL_NODES_KINDS 47

static void golden_xnn_node_kinds(void) {
  int k, count = 0;
  tp_xnn_graph *all = NULL;
  OK(tp_xnn_graph_create(&g_unchecked, &all));
  node_values(all);
  for (k = 1; tp_xnn_node_layout(k) != NULL; k++) {
    tp_xnn_graph *g = NULL;
    char name[96];
    OK(tp_xnn_graph_create(&g_unchecked, &g));
    node_values(g);
    if (define_kind(g, k) == TP_ERR_UNSUPPORTED) { /* described but not covered */
      char m[300];
      snprintf(m, sizeof m, "node kind %d (%s) of TP_XNN_NODE_LIST has no case in define_kind: "
               "add one, then regenerate data/golden.sha256 (one new line, "
               "xnn-node-%02d-%s.xnn)", k, tp_xnn_node_name(k), k, tp_xnn_node_name(k));
      tpt_fail_at(__FILE__, __LINE__, m);
      tp_xnn_graph_destroy(g);
      continue;
    }
    OK(tp_xnn_graph_status(g));
    OK(tp_xnn_set_debug_handle(g, 0, 5000u + (uint32_t)k));
    if (k % 3 == 0) OK(tp_xnn_set_output_min_max(g, 0, -3.0f, 3.0f));
    snprintf(name, sizeof name, "xnn-node-%02d-%s.xnn", k, tp_xnn_node_name(k));
    emit_xnn(name, g, NULL);
    tp_xnn_graph_destroy(g);
    if (k > ALL_NODES_KINDS) continue;
    OK(define_kind(all, k));
    OK(tp_xnn_set_debug_handle(all, (uint32_t)count, 7000u + (uint32_t)k));
    count++;
  }
  TPT_EQ_INT(count, ALL_NODES_KINDS);
  emit_xnn("xnn-all-nodes.xnn", all, NULL);
  tp_xnn_graph_destroy(all);
}

/* ---- XNNPACK: every value kind --------------------------------------------------------------- */

static void xnn_value_kinds(tp_xnn_graph *g) {
  int64_t s3[3] = {3, 8, 8}, s2[2] = {8, 8}, s16[1] = {16}, s4[1] = {4}, s8[1] = {8};
  int64_t sq[2] = {4, 8}, s47[2] = {4, 7}, s44[2] = {4, 4}, s64[2] = {4, 64}, s432[2] = {4, 32};
  int64_t sg[2] = {4, 2}, st_t[2] = {1, 2}, sg_t[2] = {1, 4};
  tp_tensor parent = view(g_f, 3 * 8 * 8 * 4, TP_F32, 3, s3), w, wt, m2;
  tp_tensor h = view(g_h, 32, TP_F16, 1, s16), bf = view(g_bf, 32, TP_BF16, 1, s16);
  tp_tensor i32 = view(g_i32, 16, TP_I32, 1, s4), q8 = view(g_i8, 32, TP_I8, 2, sq);
  tp_tensor qu8 = view(g_u8, 32, TP_U8, 2, sq), q32 = view(g_i32, 16, TP_I32, 1, s4);
  tp_tensor sc = view(g_f + 8, 16, TP_F32, 1, s4), sc_t, sc8 = view(g_f + 16, 32, TP_F32, 1, s8);
  tp_tensor i4 = view(g_i8 + 64, 28, TP_I8, 2, s47), p4 = view(g_u8 + 64, 16, TP_U8, 2, s44);
  tp_tensor b4 = view(g_i8 + 128, 256, TP_I8, 2, s64), bp4 = view(g_u8 + 128, 128, TP_U8, 2, s432);
  tp_tensor gs = view(g_f + 40, 32, TP_F32, 2, sg), gs_t, gbf = view(g_bf + 64, 16, TP_BF16, 2, sg);
  tp_tensor qkv = view(g_f, 3 * 8 * 8 * 4, TP_F32, 2, s2), chunk;
  size_t dx[2] = {2, 8}, dd[3] = {2, 3, 8}, d16[1] = {16}, d4[1] = {4}, dq[2] = {4, 8};
  size_t d47[2] = {4, 7}, d64[2] = {4, 64};
  uint32_t x, y, c[40];
  int n = 0, j;
  (void)s16;
  OK(tp_select(&parent, 0, 1, &w, NULL));     /* seed: 64 floats into the storage */
  OK(tp_transpose(&w, 0, 1, &wt, NULL));      /* non-compact: copied row-major */
  OK(tp_narrow(&parent, 0, 0, 1, &m2, NULL)); /* seed: a view at byte 0 of a larger storage */
  {
    int64_t ssz[2] = {2, 2}, sst[2] = {1, 2}; /* a transposed scale view (seed) */
    sc_t = strided(g_f + 24, 16, TP_F32, 2, ssz, sst, 0);
    (void)st_t;
  }
  gs_t = strided(g_f + 48, 32, TP_F32, 2, sg, sg_t, 0); /* transposed groupwise scale */
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, dx, NULL, 3, TP_XNN_FLAG_EXTERNAL_INPUT, &x));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &wt, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, NULL, &m2, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP16, 1, d16, &h, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_BF16, 1, d16, &bf, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_INT32, 1, d4, &i32, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_PFP32, 3, dd, NULL, TP_XNN_INVALID_ID, 0, &c[n++]));
  for (j = 0; j < 3; j++) { /* seed: q / k / v chunks of a packed in_proj_weight */
    OK(tp_chunk(&qkv, 4, 0, j, &chunk, NULL));
    OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &chunk, TP_XNN_INVALID_ID, 0, &c[n++]));
  }
  /* the same bytes again (named mode shares the entry, inline never merges) */
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -3, 0.05f, 2, dq, &q8,
                                          TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QUINT8, 200, 0.5f, 2, NULL, &qu8,
                                          TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT32, 0, 0.001f, 1, NULL, &q32,
                                          TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 5, 0.25f, 2, dq, NULL, 9,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc, 2, 0, dq, &q8,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc_t, 2, 0, NULL, &q8,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc8, 2, 1, dq, &q8,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &sc, 1, 0, NULL, &q32,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &sc, 2, 0, d47, &i4,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &sc, 2, 0, d47, &p4,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &gs, 2, 0, 32, d64, &b4,
                                                    TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &gs_t, 2, 0, 32, d64, &b4,
                                                    TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &gbf, 2, 0, 32, d64, &bp4,
                                                    TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, dx,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QPINT8, 3, 2, dd,
                                                      TP_XNN_INVALID_ID, 0, &c[n++]));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, dx, NULL, 0, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y));
  OK(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, c[0], TP_XNN_INVALID_ID, y, 0));
  OK(tp_xnn_define_convert(g, c[16], c[n - 1], 0));
  OK(tp_xnn_set_debug_handle(g, 1, 42));
}

static void golden_xnn_value_kinds(void) {
  static const size_t aligns[3] = {0, 64, 4};
  int named, a;
  for (named = 0; named < 2; named++)
    for (a = 0; a < 3; a++) {
      tp_xnn_graph *g = NULL;
      tp_store *s = NULL;
      tp_xnn_options o;
      char name[96];
      if (named && a == 2) continue;
      memset(&o, 0, sizeof o);
      o.target = TP_XNN_TARGET_UNCHECKED;
      if (named) OK(tp_store_create(NULL, &s));
      o.store = s;
      o.alignment = aligns[a];
      OK(tp_xnn_graph_create(&o, &g));
      xnn_value_kinds(g);
      snprintf(name, sizeof name, "xnn-values-%s-align%u.xnn", named ? "named" : "inline",
               (unsigned)aligns[a]);
      emit_xnn(name, g, s);
      tp_xnn_graph_destroy(g);
      tp_store_destroy(s);
    }
}

/* ---- XNNPACK: the seed cases and a few named graphs ------------------------------------------ */

/* y = linear(x, W) (+ b): the seed case (W = randn(3, 8, 8)[1]), inline or named. */
static void xnn_linear(int named, int with_bias, int qkv) {
  int64_t sz[3] = {3, 8, 8}, bsz[1] = {8}, s24[2] = {24, 8};
  tp_tensor parent = view(g_f, 3 * 8 * 8 * 4, TP_F32, 3, sz), w, b;
  tp_xnn_graph *g = NULL;
  tp_store *store = NULL;
  tp_xnn_options o;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y, bid = TP_XNN_INVALID_ID;
  char name[96];
  OK(tp_select(&parent, 0, 1, &w, NULL));
  b = view(g_f + 200, 32, TP_F32, 1, bsz);
  if (qkv) {
    tp_tensor packed = view(g_f, 24 * 8 * 4, TP_F32, 2, s24);
    OK(tp_chunk(&packed, 3, 0, qkv - 1, &w, NULL));
  }
  memset(&o, 0, sizeof o);
  if (named) OK(tp_store_create(NULL, &store));
  o.store = store;
  OK(tp_xnn_graph_create(&o, &g));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt));
  if (with_bias)
    OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &b, TP_XNN_INVALID_ID, 0, &bid));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y));
  OK(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, bid, y, 0));
  OK(tp_xnn_set_debug_handle(g, 0, 7));
  snprintf(name, sizeof name, "xnn-linear-%s%s%s%d.xnn", named ? "named" : "inline",
           with_bias ? "-bias" : "", qkv ? "-qkv" : "", qkv);
  emit_xnn(name, g, store);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* Per-tensor qint8 activations, per-channel qcint8 weights as a 1x1 convolution; qcint4 FC. */
static void xnn_quant(int named) {
  int64_t wsz[4] = {4, 1, 1, 8}, bsz[1] = {4}, ssz[1] = {4}, s47[2] = {4, 7};
  tp_tensor w = view(g_i8, 32, TP_I8, 4, wsz), b = view(g_i32, 16, TP_I32, 1, bsz);
  tp_tensor sc = view(g_f + 8, 16, TP_F32, 1, ssz), i4 = view(g_i8 + 64, 28, TP_I8, 2, s47);
  tp_xnn_graph *g = NULL;
  tp_store *store = NULL;
  tp_xnn_options o;
  size_t xd[4] = {2, 1, 1, 8}, yd[4] = {2, 1, 1, 4}, fx[2] = {2, 7}, fy[2] = {2, 4};
  uint32_t x, wid, bid, y, x2, w4, y2, xd8;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  if (named) OK(tp_store_create(NULL, &store));
  o.store = store;
  OK(tp_xnn_graph_create(&o, &g));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 4, 0.05f, 4, xd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc, 4, 0, NULL, &w,
                                                      TP_XNN_INVALID_ID, 0, &wid));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &sc, 1, 0, NULL, &b,
                                                      TP_XNN_INVALID_ID, 0, &bid));
  OK(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -2, 0.1f, 4, yd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y));
  OK(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 8, 4, -INFINITY, INFINITY,
                                  x, wid, bid, y, 0));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, fx, NULL, 2, TP_XNN_FLAG_EXTERNAL_INPUT, &x2));
  OK(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, fx,
                                                      TP_XNN_INVALID_ID, 0, &xd8));
  OK(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT4, &sc, 2, 0, NULL, &i4,
                                                      TP_XNN_INVALID_ID, 0, &w4));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, fy, NULL, 3, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y2));
  OK(tp_xnn_define_convert(g, x2, xd8, 0));
  OK(tp_xnn_define_fully_connected(g, -1.0f, 1.0f, xd8, w4, TP_XNN_INVALID_ID, y2, 0));
  emit_xnn(named ? "xnn-quant-named.xnn" : "xnn-quant-inline.xnn", g, store);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

static void golden_xnn_seed_and_named(void) {
  xnn_linear(0, 0, 0);
  xnn_linear(0, 1, 0);
  xnn_linear(1, 1, 0);
  xnn_linear(1, 0, 0);
  xnn_linear(0, 1, 1);
  xnn_linear(1, 1, 3);
  xnn_quant(0);
  xnn_quant(1);
  { /* an empty graph */
    tp_xnn_graph *g = NULL;
    OK(tp_xnn_graph_create(&g_unchecked, &g));
    emit_xnn("xnn-empty.xnn", g, NULL);
    tp_xnn_graph_destroy(g);
  }
}

/* ---- Vulkan ------------------------------------------------------------------------------------ */

static void vk_linear(int named, int fp16) {
  tp_vk_tensor_desc vd;
  int64_t sz[2] = {8, 4};
  tp_tensor wt = view(g_f, 32 * 4, TP_F32, 2, sz), w;
  tp_vk_graph *g = NULL;
  tp_store *store = NULL;
  tp_vk_options o;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4};
  uint32_t x, wid, bias, y, args[4];
  char name[64];
  OK(tp_transpose(&wt, 0, 1, &w, NULL));
  memset(&o, 0, sizeof o);
  if (named) OK(tp_store_create(NULL, &store));
  o.store = store;
  o.force_fp16 = fp16;
  OK(tp_vk_graph_create(&o, &g));
  OK(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &x));
  OK(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, &wid));
  OK(tp_vk_add_null(g, &bias));
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, NULL);
  vd.storage = TP_VK_STORAGE_BUFFER;
  vd.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  OK(tp_vk_add_tensor_desc(g, &vd, &y));
  args[0] = x;
  args[1] = wid;
  args[2] = bias;
  args[3] = y;
  OK(tp_vk_add_op(g, 0, "aten.linear.default", args, 4));
  OK(tp_vk_set_io(g, &x, 1, &y, 1));
  snprintf(name, sizeof name, "vk-linear-%s%s.vk", named ? "named" : "inline", fp16 ? "-fp16" : "");
  emit_vk(name, g, store);
  tp_vk_graph_destroy(g);
  tp_store_destroy(store);
}

/* Every value kind, empty and int8 / fp16 / channels_last constants, shaders, overrides. */
static void vk_values(int named, int fp16) {
  tp_vk_tensor_desc vd;
  static const int64_t il[3] = {1, -2, 3};
  static const double dl[2] = {0.5, -1.25};
  static const uint8_t bl[3] = {1, 0, 1};
  /* shaders are raw bytes: SPIR-V words little-endian, the same on every host */
  static const unsigned char spv[20] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0,
                                        1, 0, 0, 0, 0, 0, 0, 0};
  static const unsigned char spv2[12] = {0x03, 0x02, 0x23, 0x07, 0, 0x03, 1, 0, 7, 0, 0, 0};
  int64_t esz[2] = {0, 3}, qsz[1] = {8}, hsz[1] = {16}, csz[4] = {1, 3, 2, 2};
  int64_t cst[4] = {12, 1, 6, 3};
  tp_tensor empty = view(g_f, 0, TP_F32, 2, esz), q = view(g_i8, 8, TP_I8, 1, qsz);
  tp_tensor h = view(g_h, 32, TP_F16, 1, hsz), cl = strided(g_f, 48, TP_F32, 4, csz, cst, 0);
  tp_vk_graph *g = NULL;
  tp_store *store = NULL;
  tp_vk_options o;
  uint32_t ids[20], list[3], shader, in, out;
  size_t d1[1] = {8};
  char name[64];
  memset(&o, 0, sizeof o);
  if (named) OK(tp_store_create(NULL, &store));
  o.store = store;
  o.force_fp16 = fp16;
  o.other_runtime = 1; /* every value kind in chain calls that are not ExecuTorch operator calls */
  OK(tp_vk_graph_create(&o, &g));
  OK(tp_vk_add_int(g, -5, &ids[0]));
  OK(tp_vk_add_double(g, 2.5, &ids[1]));
  OK(tp_vk_add_bool(g, 1, &ids[2]));
  OK(tp_vk_add_string(g, "hello", &ids[3]));
  OK(tp_vk_add_symint(g, 42, &ids[4]));
  OK(tp_vk_add_int_list(g, il, 3, &ids[5]));
  OK(tp_vk_add_double_list(g, dl, 2, &ids[6]));
  OK(tp_vk_add_bool_list(g, bl, 3, &ids[7]));
  OK(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &empty, &ids[8]));
  vd = tp_vk_tensor_desc_make(TP_VK_INT8, 1, NULL, &q);
  vd.storage = TP_VK_STORAGE_TEXTURE_3D;
  vd.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
  OK(tp_vk_add_tensor_desc(g, &vd, &ids[9]));
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT16, 1, d1, NULL);
  vd.shares_memory = 1; /* memory object 0 */
  vd.staging = TP_VK_FLOAT32;
  OK(tp_vk_add_tensor_desc(g, &vd, &in));
  vd.staging = TP_VK_BOOL; /* the default: the tensor's datatype */
  OK(tp_vk_add_tensor_desc(g, &vd, &out));
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT16, 1, NULL, &h);
  vd.storage = TP_VK_STORAGE_BUFFER;
  vd.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  OK(tp_vk_add_tensor_desc(g, &vd, &ids[11]));
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 4, NULL, &cl);
  vd.storage = TP_VK_STORAGE_TEXTURE_2D;
  vd.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
  OK(tp_vk_add_tensor_desc(g, &vd, &ids[12]));
  OK(tp_vk_add_int_list(g, NULL, 0, &ids[13]));
  OK(tp_vk_add_string(g, "", &ids[14]));
  OK(tp_vk_add_null(g, &ids[15]));
  list[0] = ids[0];
  list[1] = ids[5];
  list[2] = ids[9];
  OK(tp_vk_add_value_list(g, list, 3, &ids[10]));
  OK(tp_vk_add_shader(g, spv, sizeof spv, &shader));
  OK(tp_vk_add_shader(g, spv2, sizeof spv2, &shader));
  list[0] = in;
  list[1] = ids[10];
  list[2] = out;
  OK(tp_vk_add_op(g, 3, "aten.add.Tensor", list, 3));
  list[0] = ids[11];
  list[1] = ids[12];
  list[2] = out;
  OK(tp_vk_add_op(g, 9, "et_vk.custom.default", list, 3));
  OK(tp_vk_set_io(g, &in, 1, &out, 1));
  OK(tp_vk_set_overrides(g, TP_VK_STORAGE_TEXTURE_3D, TP_VK_LAYOUT_CHANNELS_PACKED));
  snprintf(name, sizeof name, "vk-values-%s%s.vk", named ? "named" : "inline", fp16 ? "-fp16" : "");
  emit_vk(name, g, store);
  tp_vk_graph_destroy(g);
  tp_store_destroy(store);
}

static void golden_vulkan(void) {
  tp_vk_graph *g = NULL;
  vk_linear(0, 0);
  vk_linear(1, 0);
  vk_linear(0, 1);
  vk_linear(1, 1);
  vk_values(0, 0);
  vk_values(1, 0);
  vk_values(0, 1);
  vk_values(1, 1);
  OK(tp_vk_graph_create(NULL, &g));
  emit_vk("vk-empty.vk", g, NULL);
  tp_vk_graph_destroy(g);
}

/* ---- programs (.pte): tools/demo.c part [6]'s calls, on this file's data ---------------------- */

/* y_ext = linear(x, w): the demo's define_linear (no bias). */
static void pte_linear(tp_xnn_graph *g, const tp_tensor *w, size_t batch, uint32_t x_id,
                       uint32_t y_ext) {
  size_t yd[2];
  uint32_t wt, y;
  yd[0] = batch;
  yd[1] = (size_t)w->sizes[0];
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, w, TP_XNN_INVALID_ID, 0, &wt));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, y_ext, TP_XNN_FLAG_EXTERNAL_OUTPUT,
                                &y));
  OK(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x_id, wt, TP_XNN_INVALID_ID, y, 0));
}

static void golden_programs(void) {
  int64_t sz[3] = {3, 8, 8}, qsz[2] = {48, 16}, wsz[2] = {8, 4};
  tp_tensor parent = view(g_f, 3 * 8 * 8 * 4, TP_F32, 3, sz), w, packed, qkv[3];
  tp_xnn_graph *g = NULL;
  tp_pte *p = NULL;
  size_t xd[2] = {2, 8}, qxd[2] = {3, 16};
  uint32_t xid;
  int i, mode;
  /* seed_linear.pte: the seed's graph (weight = randn(3, 8, 8)[1]) as method "forward" */
  OK(tp_select(&parent, 0, 1, &w, NULL));
  OK(tp_xnn_graph_create(NULL, &g));
  OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xid));
  pte_linear(g, &w, 2, xid, 1);
  OK(tp_pte_create(NULL, &p));
  OK(tp_xnn_add_pte_method(p, "forward", g));
  emit_pte("pte-seed-linear.pte", p, NULL);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  /* qkv.pte (the store embedded) and qkv_with_ptd.pte + its .ptd: q / k / v chunks of a packed
     [48, 16] in_proj_weight, named constants */
  packed = view(g_f, 48 * 16 * 4, TP_F32, 2, qsz);
  for (i = 0; i < 3; i++) OK(tp_chunk(&packed, 3, 0, i, &qkv[i], NULL));
  for (mode = 0; mode < 2; mode++) {
    tp_store *store = NULL;
    tp_xnn_options xo;
    tp_pte_options po;
    OK(tp_store_create(NULL, &store));
    memset(&xo, 0, sizeof xo);
    xo.store = store;
    OK(tp_xnn_graph_create(&xo, &g));
    OK(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, qxd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT,
                                  &xid));
    for (i = 0; i < 3; i++) pte_linear(g, &qkv[i], 3, xid, (uint32_t)(1 + i));
    memset(&po, 0, sizeof po);
    po.embed = mode == 0 ? store : NULL;
    OK(tp_pte_create(&po, &p));
    OK(tp_xnn_add_pte_method(p, "forward", g));
    emit_pte(mode == 0 ? "pte-qkv.pte" : "pte-qkv-with-ptd.pte", p, mode == 0 ? NULL : store);
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(store);
  }
  { /* vulkan_linear.pte: y = linear(x, W), W a transposed view, as method "forward" */
    tp_tensor wt = view(g_f + 100, 8 * 4 * 4, TP_F32, 2, wsz), wv;
    tp_vk_graph *vg = NULL;
    size_t vxd[2] = {1, 8}, vyd[2] = {1, 4};
    uint32_t x, wid, bias, y, args[4];
    OK(tp_transpose(&wt, 0, 1, &wv, NULL));
    OK(tp_vk_graph_create(NULL, &vg));
    OK(tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, vxd, NULL, &x));
    OK(tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, NULL, &wv, &wid));
    OK(tp_vk_add_null(vg, &bias));
    OK(tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, vyd, NULL, &y));
    args[0] = x;
    args[1] = wid;
    args[2] = bias;
    args[3] = y;
    OK(tp_vk_add_op(vg, 0, "aten.linear.default", args, 4));
    OK(tp_vk_set_io(vg, &x, 1, &y, 1));
    OK(tp_pte_create(NULL, &p));
    OK(tp_vk_add_pte_method(p, "forward", vg, NULL));
    emit_pte("pte-vulkan-linear.pte", p, NULL);
    tp_pte_destroy(p);
    tp_vk_graph_destroy(vg);
  }
}

/* ---- .ptd ------------------------------------------------------------------------------------- */

static void golden_ptd(void) {
  int64_t sz4[4] = {2, 3, 4, 5}, sz2[2] = {8, 8}, esz[2] = {0, 4}, bsz[1] = {8};
  static float nchw[2 * 3 * 5 * 5];
  tp_tensor x = view(nchw, 2 * 3 * 4 * 5 * 4, TP_F32, 4, sz4), cl, sl;
  tp_tensor a = view(g_f, 64 * 4, TP_F32, 2, sz2);
  tp_tensor e = view(g_f, 0, TP_F32, 2, esz), h = view(g_bf, 16, TP_BF16, 1, bsz), at;
  tp_store *s = NULL;
  int i;
  for (i = 0; i < 150; i++) nchw[i] = (float)i;
  { /* a channels_last view: permute an NHWC-shaped tensor back to NCHW logical order */
    int64_t nhwc[4] = {2, 4, 5, 3};
    tp_tensor y = view(nchw, 2 * 3 * 4 * 5 * 4, TP_F32, 4, nhwc);
    int back[4] = {0, 3, 1, 2};
    OK(tp_permute(&y, back, &cl, NULL));
  }
  { /* seed: x[:, :, 1:-1, 1:-1] of a channels_last [2, 3, 5, 5] */
    int64_t s5[4] = {2, 3, 5, 5}, st5[4] = {75, 1, 15, 3};
    tp_tensor t = strided(nchw, sizeof nchw, TP_F32, 4, s5, st5, 0);
    OK(tp_slice(&t, 2, 1, -1, 1, &sl, NULL));
    OK(tp_slice(&sl, 3, 1, -1, 1, &sl, NULL));
  }
  OK(tp_transpose(&a, 0, 1, &at, NULL));
  OK(tp_store_create(NULL, &s));
  OK(tp_store_add(s, NULL, &x, TP_ORDER_ROW_MAJOR, 0, NULL));
  emit_ptd("ptd-one.ptd", s);
  OK(tp_store_add(s, "cl", &cl, TP_ORDER_PRESERVE, 64, NULL));
  OK(tp_store_add(s, "cl-rm", &cl, TP_ORDER_ROW_MAJOR, 0, NULL));
  OK(tp_store_add(s, "slice-preserve", &sl, TP_ORDER_PRESERVE, 0, NULL));
  OK(tp_store_add(s, "slice-rm", &sl, TP_ORDER_ROW_MAJOR, 0, NULL));
  OK(tp_store_add(s, "transposed", &at, TP_ORDER_ROW_MAJOR, 0, NULL));
  OK(tp_store_add(s, "same", &x, TP_ORDER_ROW_MAJOR, 0, NULL));
  OK(tp_store_add(s, "empty", &e, TP_ORDER_ROW_MAJOR, 0, NULL));
  OK(tp_store_add(s, "bf16", &h, TP_ORDER_ROW_MAJOR, 32, NULL));
  OK(tp_store_add_bytes(s, "raw", "raw bytes", 9, 0, 1, NULL));
  OK(tp_store_add_bytes(s, NULL, "", 0, 0, 1, NULL));
  OK(tp_store_add_bytes(s, NULL, g_u8, 100, 4096, 0, NULL));
  emit_ptd("ptd-many.ptd", s);
  tp_store_destroy(s);
  OK(tp_store_create(NULL, &s));
  emit_ptd("ptd-empty-store.ptd", s);
  tp_store_destroy(s);
}

/* Every listed artifact was produced (a dropped case is a failure too). */
static void golden_complete(void) {
  int i;
  if (g_print) return;
  TPT_CHECK(g_nlist > 0);
  for (i = 0; i < g_nlist; i++)
    if (g_list[i].seen != 1) {
      char m[200];
      snprintf(m, sizeof m, "artifact %s of the list was produced %d times", g_list[i].name,
               g_list[i].seen);
      tpt_fail_at(__FILE__, __LINE__, m);
    }
  TPT_EQ_INT(g_produced, g_nlist);
}

static const float g_milli = 1e-3f;

int main(int argc, char **argv) {
  int i;
  g_unchecked.target = TP_XNN_TARGET_UNCHECKED;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--print")) g_print = 1;
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) g_dir = argv[++i];
    else {
      fprintf(stderr, "usage: golden [--print] [--dir DIR]\n");
      return 2;
    }
  }
  for (i = 0; i < 3 * 8 * 8 * 4; i++) {
    /* the same floats on every host: where float arithmetic and float constants run in double
       (FLT_EVAL_METHOD 1, s390x), 1e-3f is 0.001 unless stored in a float, and an expression
       rounds once, so each step is stored */
    float a = (float)(i % 17) / 16.0f - 0.5f, b = (float)i * g_milli;
    g_f[i] = a + b;
  }
  for (i = 0; i < 1024; i++) {
    g_i8[i] = (int8_t)((i * 7) % 16 - 8); /* in [-8, 7]: valid 4-bit values too */
    g_u8[i] = (uint8_t)(i * 37 + 11);
  }
  for (i = 0; i < 64; i++) g_i32[i] = i * 100 - 150;
  for (i = 0; i < 256; i++) {
    g_h[i] = tp_f32_to_f16((float)i * 0.125f - 3.0f);
    g_bf[i] = tp_f32_to_bf16((float)i * 0.0625f + 0.01f);
  }
  if (!g_print) load_list();
  if (g_print) { /* the list only: case lines would spoil it */
    golden_xnn_node_kinds();
    golden_xnn_value_kinds();
    golden_xnn_seed_and_named();
    golden_vulkan();
    golden_ptd();
    golden_programs();
    return tpt_case_failures ? 1 : 0;
  }
  TPT_RUN(golden_xnn_node_kinds);
  TPT_RUN(golden_xnn_value_kinds);
  TPT_RUN(golden_xnn_seed_and_named);
  TPT_RUN(golden_vulkan);
  TPT_RUN(golden_ptd);
  TPT_RUN(golden_programs);
  TPT_RUN(golden_complete);
  return tpt_finish("golden");
}
