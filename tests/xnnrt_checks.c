/* xnnrt_checks.c - the loader (tp_xnn_load on the real XNNPACK) refuses, by the writer's own
   rules, the blobs that made XNNPACK abort, crash or hang (issue 14 items 1-7, 17): each with
   its status and sentence, the same sentence tp_xnn_check_blob gives. The blobs are written
   with TP_XNN_TARGET_UNCHECKED (the writer refuses them at define time: test_xnn_checks.c).
   And the other way round: a blob whose unused node slots hold real ids, which the checker
   accepts, gets the loader's answer for the same blob without them (test_unused_slot). */
#include <math.h>
#include <stdlib.h>
#include <xnnpack.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "xnn_patch.h"
#include "tp_test.h"

#define IN TP_XNN_FLAG_EXTERNAL_INPUT
#define OUT TP_XNN_FLAG_EXTERNAL_OUTPUT
#define NONE TP_XNN_INVALID_ID

static float g_f[256];

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

static void write_blob(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink s;
  memset(m, 0, sizeof *m);
  s = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
}

/* Loader and checker agree: status st (the loader) and the sentence `text` in both. */
static void refused(tp_xnn_graph *g, uint32_t flags, tp_status st, tp_status check_st,
                    const char *text) {
  tp_membuf m;
  tp_xnn_runtime *rt = NULL;
  tp_error e, c;
  write_blob(g, &m);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, flags, &rt, &e), st);
  TPT_CONTAINS(e.msg, text);
  TPT_CHECK(rt == NULL);
  if (!flags) {
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &c), check_st);
    TPT_CONTAINS(c.msg, text);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

static void test_prelu_slope(void) { /* item 1: a NULL read inside xnn_create_runtime_v2 */
  size_t xd[2] = {2, 3}, sd[1] = {3};
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 2, xd, 0, IN), s = val(g, 1, sd, 1, IN), y = val(g, 2, xd, 2, OUT);
  TPT_STATUS(tp_xnn_define_prelu(g, x, s, y, 0), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "prelu #0: slope 1 is not a constant: XNNPACK needs the slope's data at definition");
}

static void test_unconsumed_output(void) { /* item 2: abort at invoke */
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT), a = val(g, 1, d, NONE, 0);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, x, a, 0), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID, "value 2: a node writes it but no ");
}

static void test_empty_window(void) { /* item 3: abort (or no return) at invoke */
  size_t xd[4] = {1, 2, 2, 1}, yd[4] = {1, 0, 0, 1};
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 4, xd, 0, IN), y = val(g, 4, yd, 1, OUT);
  TPT_STATUS(tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 3, 3, 1, 1, 2, 2, -INFINITY, INFINITY,
                                          x, y, 0), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "max_pooling_2d #0: input is [1, 2, 2, 1], padded by 0/0 (top/bottom) and 0/0 "
          "(left/right), the window 3 x 3 (dilation 2 x 2) gives an empty 0 x 0 output");
}

static void test_argmax_index_shape(void) { /* item 4 */
  size_t xd[4] = {1, 4, 4, 2}, yd[4] = {1, 2, 2, 2}, id[4] = {1, 2, 4, 1};
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 4, xd, 0, IN), y = val(g, 4, yd, 1, OUT), yi = val(g, 4, id, 2, OUT);
  TPT_STATUS(tp_xnn_define_argmax_pooling_2d(g, 0, 0, 0, 0, 2, 2, x, y, yi, 0), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "argmax_pooling_2d #0: index output 2 is [1, 2, 4, 1]: it must be [1, 2, 2, 2]");
}

static void test_requant_scale(void) { /* item 5: abort below 2^-32 */
  static int8_t w[4 * 4];
  int64_t ws[4] = {4, 1, 1, 4};
  size_t qd[4] = {1, 1, 1, 4};
  tp_storage s;
  tp_tensor tw;
  uint32_t x, f, y;
  tp_xnn_graph *g = mk();
  s.data = w;
  s.nbytes = sizeof w;
  TPT_STATUS(tp_view(s, TP_I8, 4, ws, NULL, 0, &tw, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1e-6f, 4, qd, NULL, 0, IN,
                                                  &x), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1e-6f, 4, NULL, &tw, NONE,
                                                  0, &f), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1.0f, 4, qd, NULL, 1, OUT,
                                                  &y), TP_OK);
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 4, 4, -INFINITY,
                                          INFINITY, x, f, NONE, y, 0), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "convolution_2d #0: requantization scale 1e-06 x 1e-06 / 1 = 1e-12 is outside "
          "[2^-32, 256)");
}

/* item 5 for per-channel filters: every channel's input x filter / output scale in
   [2^-32, 256); the loader and tp_xnn_check_blob name the same channel. */
static tp_xnn_graph *pc_graph(int dt, float in_scale, const float *sc4, int fc) {
  static int8_t w[4 * 4];
  static float sc[4];
  int64_t ws[4] = {4, 1, 1, 4}, wf[2] = {4, 4}, n4[1] = {4};
  size_t qd[4] = {1, 1, 1, 4}, qf[2] = {1, 4}, wd[4] = {4, 1, 1, 4};
  tp_storage s;
  tp_tensor tw, ts;
  uint32_t x, f, y;
  tp_xnn_graph *g = mk();
  memcpy(sc, sc4, sizeof sc);
  s.data = w;
  s.nbytes = sizeof w;
  TPT_STATUS(tp_view(s, TP_I8, fc ? 2 : 4, fc ? wf : ws, NULL, 0, &tw, NULL), TP_OK);
  s.data = sc;
  s.nbytes = sizeof sc;
  TPT_STATUS(tp_view(s, TP_F32, 1, n4, NULL, 0, &ts, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, in_scale, fc ? 2 : 4,
                                                  fc ? qf : qd, NULL, 0, IN, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, (tp_xnn_datatype)dt, &ts,
                                                              fc ? 2 : 4, 0, fc ? NULL : wd,
                                                              dt == TP_XNN_QCINT8 ? &tw : NULL,
                                                              NONE, 0, &f), TP_OK);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 0, 1.0f, fc ? 2 : 4,
                                                  fc ? qf : qd, NULL, 1, OUT, &y), TP_OK);
  if (fc)
    TPT_STATUS(tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, f, NONE, y, 0), TP_OK);
  else
    TPT_STATUS(tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 4, 4, -INFINITY,
                                            INFINITY, x, f, NONE, y, 0), TP_OK);
  return g;
}

static void test_requant_per_channel(void) {
  const float low[4] = {0.5f, 1e-6f, 2.0f, 1.0f}, high[4] = {1.0f, 1.0f, 300.0f, 1.0f};
  const float ok[4] = {0.5f, 1e-3f, 2.0f, 255.0f}, zero[4] = {1.0f, 0.0f, 1.0f, 1.0f};
  refused(pc_graph(TP_XNN_QCINT8, 1e-6f, low, 0), 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "convolution_2d #0: requantization scale 1e-06 x 1e-06 (filter channel 1) / 1 = 1e-12 "
          "is outside [2^-32, 256)");
  refused(pc_graph(TP_XNN_QCINT8, 1.0f, high, 0), 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "convolution_2d #0: requantization scale 1 x 300 (filter channel 2) / 1 = 300 is outside "
          "[2^-32, 256)");
  refused(pc_graph(TP_XNN_QCINT8, 1e-6f, low, 1), 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "fully_connected #0: requantization scale 1e-06 x 1e-06 (filter channel 1) / 1 = 1e-12 "
          "is outside [2^-32, 256)");
  { /* a zero channel scale: XNNPACK itself refuses the value (no abort); the checker's rule */
    tp_xnn_graph *g = pc_graph(TP_XNN_QCINT8, 1.0f, zero, 1);
    tp_membuf m;
    tp_xnn_runtime *rt = NULL;
    tp_error e, c;
    write_blob(g, &m);
    TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_INVALID);
    TPT_EQ_STR(e.msg, "value 1: XNNPACK refused the qcint8 value (xnn_status 2)");
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &c), TP_ERR_INVALID);
    TPT_EQ_STR(c.msg, "fully_connected #0: requantization scale 1 x 0 (filter channel 1) / 1 = 0 "
                      "is outside [2^-32, 256)");
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
  }
  { /* every channel inside: loads and runs */
    tp_xnn_graph *g = pc_graph(TP_XNN_QCINT8, 1e-3f, ok, 0);
    tp_membuf m;
    tp_xnn_runtime *rt = NULL;
    tp_error e, c;
    int8_t xin[4 + TP_XNN_EXTRA_BYTES] = {1, 2, 3, 4}, yout[4 + TP_XNN_EXTRA_BYTES];
    write_blob(g, &m);
    memset(&e, 0, sizeof e);
    TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
    TPT_EQ_STR(e.msg, "");
    TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &c), TP_OK);
    if (rt) {
      TPT_STATUS(tp_xnn_runtime_bind(rt, 0, xin), TP_OK);
      TPT_STATUS(tp_xnn_runtime_bind(rt, 1, yout), TP_OK);
      TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
      tp_xnn_runtime_destroy(rt);
    }
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
  }
}

static void test_external_id_none(void) { /* item 6: external flag, external id 0xFFFFFFFF */
  size_t d[1] = {4};
  tp_xnn_graph *g = mk();
  tp_membuf m;
  tp_xnn_runtime *rt = NULL;
  tp_error e, c;
  tp_fb_reader r;
  tp_fb_table root, xv, tv;
  tp_fb_vector values;
  uint8_t type = 0;
  uint16_t off;
  uint32_t fb_off;
  uint32_t x = val(g, 1, d, 0, IN), y = val(g, 1, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  memset(&r, 0, sizeof r);
  fb_off = tp__get_le32(m.data + 10);
  TPT_STATUS(tp_fb_reader_init(&r, m.data + fb_off, tp__get_le32(m.data + 14), "XN01", &root),
             TP_OK);
  values = tp_fb_vector_field(&root, TP_XNN_FIELD(XNNGraph, xvalues), 4);
  xv = tp_fb_vector_table(&values, 1);
  tv = tp_fb_union_field(&xv, TP_XNN_FIELD(XValue, xvalue_union), &type);
  off = tp__get_le16(r.buf + tv.vtable + 4 + 2 * TP_XNN_FIELD(XNNTensorValue, external_id));
  TPT_CHECK(off != 0);
  tp__put_le32(m.data + fb_off + tv.pos + off, 0xFFFFFFFFu);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "value 1: flags 0x2 mark it external but its external id is 0xffffffff "
                      "(none)");
  TPT_CHECK(rt == NULL);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &c), TP_ERR_FORMAT);
  TPT_CONTAINS(c.msg, "value 1: flags 0x2 mark it external but its external id is 0xffffffff");
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

static void test_unbound_and_sizes(void) { /* item 7: an unbound output made XNNPACK abort */
  size_t d[2] = {2, 3};
  static float in[6 + 4], out[6];
  tp_xnn_graph *g = mk();
  tp_membuf m;
  tp_xnn_runtime *rt = NULL;
  tp_error e;
  size_t sz = 0, padded = 0;
  uint32_t x = val(g, 2, d, 0, IN), y = val(g, 2, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_negate(g, x, y, 0), TP_OK);
  write_blob(g, &m);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) {
    TPT_STATUS(tp_xnn_runtime_extern_size(rt, 0, &sz, &padded), TP_OK);
    TPT_EQ_U64(sz, 24);
    TPT_EQ_U64(padded, 24 + XNN_EXTRA_BYTES);
    TPT_EQ_INT(TP_XNN_EXTRA_BYTES, XNN_EXTRA_BYTES);
    TPT_STATUS(tp_xnn_runtime_extern_size(rt, 7, &sz, NULL), TP_ERR_INVALID);
    TPT_STATUS(tp_xnn_runtime_bind(rt, 0, in), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_ERR_INVALID);
    TPT_CONTAINS(tp_xnn_runtime_error(rt),
                 "invoke: external output 1 (value 1) is not bound: tp_xnn_runtime_bind it first");
    /* failures do not latch (issue 21): a bad bind, then the right calls on the same runtime */
    TPT_STATUS(tp_xnn_runtime_bind(rt, 7, out), TP_ERR_INVALID);
    TPT_EQ_STR(tp_xnn_runtime_error(rt), "bind: external id 7, the blob has 2");
    in[0] = 1.5f;
    TPT_STATUS(tp_xnn_runtime_bind(rt, 1, out), TP_OK);
    TPT_EQ_STR(tp_xnn_runtime_error(rt), "");
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    TPT_EQ_STR(tp_xnn_runtime_error(rt), "");
    TPT_CHECK(out[0] == -1.5f);
    tp_xnn_runtime_destroy(rt);
    rt = NULL;
  }
  TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_OK);
  if (rt) { /* bound: it runs */
    int i;
    for (i = 0; i < 6; i++) in[i] = (float)i - 2.5f;
    TPT_STATUS(tp_xnn_runtime_bind(rt, 0, in), TP_OK);
    TPT_STATUS(tp_xnn_runtime_bind(rt, 1, out), TP_OK);
    TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
    TPT_CHECK(out[0] == 2.5f && out[5] == -2.5f);
    tp_xnn_runtime_destroy(rt);
  }
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
  (void)g_f;
}

static void test_runtime_flags(void) { /* item 17: FORCE_FP16 on an fp32 hardswish aborted */
  size_t d[2] = {2, 3};
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 2, d, 0, IN), y = val(g, 2, d, 1, OUT);
  TPT_STATUS(tp_xnn_define_hardswish(g, x, y, 0), TP_OK);
  refused(g, 0x4u, TP_ERR_UNSUPPORTED,
          TP_OK, "runtime flags 0x4: only 0x1 (XNN_FLAG_HINT_SPARSE_INFERENCE) is supported");
}

/* A depthwise convolution with group_input_channels 0 (its depth multiplier would divide by
   it): the convolution rule refuses it before the loader defines anything. */
static void test_depthwise_zero_channels(void) {
  size_t xd[4] = {1, 3, 3, 2}, wd[4] = {1, 1, 1, 2}, yd[4] = {1, 3, 3, 2};
  static float w[2];
  int64_t ws[4] = {1, 1, 1, 2};
  tp_storage s;
  tp_tensor tw;
  tp_xnn_node_args a;
  tp_xnn_graph *g = mk();
  uint32_t x = val(g, 4, xd, 0, IN), f = 0, y;
  s.data = w;
  s.nbytes = sizeof w;
  TPT_STATUS(tp_view(s, TP_F32, 4, ws, NULL, 0, &tw, NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, wd, &tw, NONE, 0, &f), TP_OK);
  y = val(g, 4, yd, 1, OUT);
  memset(&a, 0, sizeof a);
  a.u[TP_XNN_FIELD(_XNNNodeConv, kernel_height)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, kernel_width)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, subsampling_height)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, subsampling_width)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, dilation_height)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, dilation_width)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, groups)] = 2;
  a.u[TP_XNN_FIELD(_XNNNodeConv, group_output_channels)] = 1;
  a.u[TP_XNN_FIELD(_XNNNodeConv, input1_id)] = x;
  a.u[TP_XNN_FIELD(_XNNNodeConv, filter_id)] = f;
  a.u[TP_XNN_FIELD(_XNNNodeConv, bias_id)] = NONE;
  a.u[TP_XNN_FIELD(_XNNNodeConv, output_id)] = y;
  TPT_STATUS(tp_xnn_define_node(g, TP_XNN_NODE_DEPTHWISE_CONV2D, &a), TP_OK);
  refused(g, 0, TP_ERR_FORMAT, TP_ERR_INVALID,
          "depthwise_convolution_2d #0: groups 2, group input channels 0, group output "
          "channels 1: each must be >= 1");
}

/* The node slots a kind does not use (role 'n': a concatenate's inputs above its count) hold
   TP_XNN_INVALID_ID in every blob the writer makes; ExecuTorch ignores what a blob holds there,
   and so does the loader (tp__xnn_rt_node skips the slot before any lookup). Each concatenate
   with such slots, written, then each unused slot patched to an earlier value (input 0), to the
   node's own output, and to an id no value has: the checker accepts every patched blob at both
   targets, and the loader answers it exactly as it answers the unpatched blob. Debian's 2022
   XNNPACK has no concatenate (rt 0), so that answer is the refusal of the kind, which the
   loader gives only after reading every field. Here only the id no value has tells a loader
   that skips the slot from one that looks it up (that one refuses "node 0 (concatenate2):
   input3_id 3 is not a defined value"); the real ids, and running the node to compare its
   outputs, need an XNNPACK with concatenate. */
static void test_unused_slot(void) {
  int kind, kinds = 0, cases = 0;
  for (kind = 1; kind <= TP_XNN_NODE_KINDS; kind++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
    size_t din[2] = {2, 3}, dout[2] = {2, 0};
    uint32_t f, nin = 0, k, out, ids[3];
    tp_xnn_node_args a;
    tp_xnn_graph *g;
    tp_membuf m;
    tp_xnn_runtime *rt = NULL;
    tp_error e, c;
    unsigned char *p;
    char want[128];
    int unused = 0;
    for (f = 0; f < d->nfields; f++) unused += d->fields[f].role == 'n';
    if (!unused) continue;
    kinds++;
    memset(&a, 0, sizeof a);
    g = mk();
    for (f = 0; f < d->nfields; f++) { /* inputs [2, 3] along axis 1, in field order */
      if (d->fields[f].role == 'i') {
        a.u[d->fields[f].id] = val(g, 2, din, nin, IN);
        nin++;
      } else if (d->fields[f].role == 'n') {
        a.u[d->fields[f].id] = NONE;
      }
    }
    dout[1] = 3 * nin;
    out = val(g, 2, dout, nin, OUT);
    a.u[TP_XNN_FIELD(_XNNCat, axis)] = 1;
    a.u[TP_XNN_FIELD(_XNNCat, output_id)] = out;
    TPT_STATUS(tp_xnn_define_node(g, kind, &a), TP_OK);
    write_blob(g, &m);
    tp_xnn_graph_destroy(g);
    TPT_EQ_INT(d->rt, 0); /* if this changes: run both blobs, compare their outputs' bytes */
    snprintf(want, sizeof want, "node 0: %s is not in the linked XNNPACK", d->name);
    memset(&e, 0, sizeof e);
    TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_UNSUPPORTED);
    TPT_EQ_STR(e.msg, want);
    TPT_CHECK(rt == NULL);
    ids[0] = 0;       /* an earlier value: the first input */
    ids[1] = out;     /* the node's own output */
    ids[2] = out + 1; /* no value's id */
    p = (unsigned char *)malloc(m.size);
    TPT_CHECK(p != NULL);
    if (!p) {
      tp_membuf_free(&m);
      continue;
    }
    for (f = 0; f < d->nfields; f++) {
      if (d->fields[f].role != 'n') continue;
      for (k = 0; k < 3; k++) {
        memcpy(p, m.data, m.size);
        TPT_EQ_INT(tpt_xnn_patch_slot(p, m.size, d->fields[f].id, ids[k]), 1);
        TPT_STATUS(tp_xnn_check_blob(p, m.size, TP_XNN_TARGET_EXECUTORCH, &c), TP_OK);
        TPT_STATUS(tp_xnn_check_blob(p, m.size, TP_XNN_TARGET_XNNPACK, &c), TP_OK);
        memset(&e, 0, sizeof e);
        TPT_STATUS(tp_xnn_load(p, m.size, NULL, 0, 0, &rt, &e), TP_ERR_UNSUPPORTED);
        TPT_EQ_STR(e.msg, want);
        TPT_CHECK(rt == NULL);
        cases++;
      }
    }
    free(p);
    tp_membuf_free(&m);
  }
  TPT_EQ_INT(kinds, 3);               /* concatenate2, 3, 4 */
  TPT_EQ_INT(cases, (3 + 2 + 1) * 3); /* their unused slots, three ids each */
}

int main(void) {
  TPT_RUN(test_prelu_slope);
  TPT_RUN(test_unconsumed_output);
  TPT_RUN(test_empty_window);
  TPT_RUN(test_argmax_index_shape);
  TPT_RUN(test_requant_scale);
  TPT_RUN(test_requant_per_channel);
  TPT_RUN(test_external_id_none);
  TPT_RUN(test_unbound_and_sizes);
  TPT_RUN(test_runtime_flags);
  TPT_RUN(test_depthwise_zero_channels);
  TPT_RUN(test_unused_slot);
  return tpt_finish("xnnrt_checks");
}
