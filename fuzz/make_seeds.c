/* make_seeds - writes the seed corpora of the fuzz targets, made with tensorpack's own writers.

   Usage: make_seeds DIR     (mk/fuzz.mk runs it as $(BUILD)/fuzz/make_seeds $(BUILD)/fuzz/corpus)
   Creates DIR/<target>/seed-<name> for every target:
     fuzz_xnn_blob, fuzz_vk_blob   u32 LE blob length + blob + .ptd (empty when inline), the
                                   framing the targets read
     fuzz_tpdump                   the same files, plus .ptd files in that framing
     fuzz_ptd                      .ptd files
     fuzz_pte                      .pte programs (also in fuzz_tpdump, framed, and fuzz_fb_reader)
     fuzz_fb_reader                the flatbuffers of the blobs above, whole .ptd files, and a
                                   builder-made buffer with every kind of field
     fuzz_views                    encoded views (see fuzz/fuzz_views.c for the encoding)
     fuzz_safetensors              safetensors files (fuzz/seeds_safetensors.h)
     fuzz_json                     JSON objects: config files (fuzz/seeds_safetensors.h)
   The directories must exist (the make rule creates them). Exit status 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#define LINEAR_SHAPES_NO_FNVC
#include "tests/linear_shapes.h"

static const char *g_dir;
static int g_failed;
static int g_count;

static void put(const char *target, const char *name, const void *a, size_t an) {
  char path[1024];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s/seed-%s", g_dir, target, name);
  f = fopen(path, "wb");
  if (!f || (an && fwrite(a, 1, an, f) != an) || fclose(f) != 0) {
    fprintf(stderr, "make_seeds: cannot write %s\n", path);
    g_failed = 1;
    return;
  }
  g_count++;
}

#include "seeds_safetensors.h"

/* u32 LE blob length, blob, ptd */
static void put_framed(const char *target, const char *name, const tp_membuf *blob,
                       const tp_membuf *ptd) {
  size_t n = 4 + blob->size + (ptd ? ptd->size : 0);
  unsigned char *b = (unsigned char *)malloc(n);
  if (!b) {
    g_failed = 1;
    return;
  }
  tp__put_le32(b, (uint32_t)blob->size);
  memcpy(b + 4, blob->data, blob->size);
  if (ptd && ptd->size) memcpy(b + 4 + blob->size, ptd->data, ptd->size);
  put(target, name, b, n);
  if (strcmp(target, "fuzz_tpdump") != 0) { /* the inspector reads the same framing */
    char both[160];
    snprintf(both, sizeof both, "%s-%s", target, name);
    put("fuzz_tpdump", both, b, n);
  }
  free(b);
}

/* The flatbuffer inside an XH00 / VH00 blob: u32 offset at 10, u32 size at 14. */
static void put_flatbuffer_of(const char *name, const tp_membuf *blob) {
  uint32_t off, sz;
  if (blob->size < 30) return;
  off = tp__get_le32(blob->data + 10);
  sz = tp__get_le32(blob->data + 14);
  if ((uint64_t)off + sz > blob->size) return;
  put("fuzz_fb_reader", name, blob->data + off, sz);
}

static void check(tp_status st, const char *what) {
  if (st != TP_OK) {
    fprintf(stderr, "make_seeds: %s: %s\n", what, tp_status_str(st));
    g_failed = 1;
  }
}

static tp_tensor view(const void *data, size_t nbytes, tp_dtype dt, int ndim,
                      const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = data;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  check(tp_view(s, dt, ndim, sizes, NULL, 0, &t, NULL), "tp_view");
  return t;
}

/* ---- XNNPACK ------------------------------------------------------------------------------ */

static float w_store[3 * 8 * 8];
static float bias_f[8];
static int8_t wq[4 * 8];
static int32_t bias_q[4];
static float scale_store[8];

static void xnn_emit(const char *name, tp_xnn_graph *g, tp_store *store) {
  tp_membuf blob = {NULL, 0, 0}, ptd = {NULL, 0, 0};
  tp_sink bs = tp_sink_membuf(&blob), ps = tp_sink_membuf(&ptd);
  char fbname[128];
  if (tp_xnn_write(g, &bs) != TP_OK) {
    fprintf(stderr, "make_seeds: xnn %s: %s\n", name, tp_xnn_graph_error(g));
    g_failed = 1;
  }
  if (store) check(tp_store_write_ptd(store, &ps), "tp_store_write_ptd");
  put_framed("fuzz_xnn_blob", name, &blob, &ptd);
  snprintf(fbname, sizeof fbname, "xnn-%s", name);
  put_flatbuffer_of(fbname, &blob);
  if (store) {
    snprintf(fbname, sizeof fbname, "xnn-%s.ptd", name);
    put("fuzz_fb_reader", fbname, ptd.data, ptd.size);
    put("fuzz_ptd", fbname, ptd.data, ptd.size);
  }
  tp_membuf_free(&blob);
  tp_membuf_free(&ptd);
}

/* y = linear(x, storage[1]) (+ bias), fp32; inline or named. */
static void xnn_linear(int named, int with_bias) {
  int64_t sz[3] = {3, 8, 8}, bsz[1] = {8};
  tp_tensor parent = view(w_store, sizeof w_store, TP_F32, 3, sz), w, b;
  tp_xnn_graph *g = NULL;
  tp_store *store = NULL;
  tp_xnn_options o;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y, bid = TP_XNN_INVALID_ID;
  char name[64];
  check(tp_select(&parent, 0, 1, &w, NULL), "tp_select");
  b = view(bias_f, sizeof bias_f, TP_F32, 1, bsz);
  memset(&o, 0, sizeof o);
  if (named) check(tp_store_create(NULL, &store), "tp_store_create");
  o.store = store;
  check(tp_xnn_graph_create(&o, &g), "tp_xnn_graph_create");
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  if (with_bias)
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &b, TP_XNN_INVALID_ID, 0, &bid);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, bid, y, 0);
  tp_xnn_set_debug_handle(g, 0, 7);
  snprintf(name, sizeof name, "linear-%s%s", named ? "named" : "inline", with_bias ? "-bias" : "");
  xnn_emit(name, g, store);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* Element-wise chain: t = x + c; u = clamp(t); v = t * u; y = softmax(sigmoid(v)) ... */
static void xnn_chain(void) {
  int64_t csz[2] = {2, 8};
  tp_tensor c = view(w_store, 16 * sizeof(float), TP_F32, 2, csz);
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  size_t d[2] = {2, 8};
  uint32_t x, cid, t, u, v, s, y, z;
  memset(&o, 0, sizeof o);
  /* the XNNPACK target: add2 reads its inline constant at execute, which ExecuTorch (target 0)
     cannot run (it frees the blob after init); the bytes are the same */
  o.target = TP_XNN_TARGET_XNNPACK;
  check(tp_xnn_graph_create(&o, &g), "tp_xnn_graph_create");
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &c, TP_XNN_INVALID_ID, 0, &cid);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, TP_XNN_INVALID_ID, 0, &t);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, TP_XNN_INVALID_ID, 0, &u);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, TP_XNN_INVALID_ID, 0, &v);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, TP_XNN_INVALID_ID, 0, &s);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, TP_XNN_INVALID_ID, 0, &z);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_add2(g, -INFINITY, INFINITY, x, cid, t, 0);
  tp_xnn_define_clamp(g, -1.0f, 1.0f, t, u, 0);
  tp_xnn_define_multiply2(g, -INFINITY, INFINITY, t, u, v, 0);
  tp_xnn_define_sigmoid(g, v, s, 0);
  tp_xnn_define_leaky_relu(g, 0.125f, s, z, 0);
  tp_xnn_define_softmax(g, z, y, 0);
  xnn_emit("chain", g, NULL);
  tp_xnn_graph_destroy(g);
}

/* Per-tensor qint8 input/output, per-channel qcint8 weights as a 1x1 convolution. */
static void xnn_qconv(int named) {
  int64_t wsz[4] = {4, 1, 1, 8}, bsz[1] = {4}, ssz[1] = {4};
  tp_tensor w = view(wq, sizeof wq, TP_I8, 4, wsz), b = view(bias_q, sizeof bias_q, TP_I32, 1, bsz);
  tp_tensor sc = view(scale_store, 4 * sizeof(float), TP_F32, 1, ssz);
  tp_xnn_graph *g = NULL;
  tp_store *store = NULL;
  tp_xnn_options o;
  size_t xd[4] = {2, 1, 1, 8}, yd[4] = {2, 1, 1, 4};
  uint32_t x, wid, bid, y;
  memset(&o, 0, sizeof o);
  if (named) check(tp_store_create(NULL, &store), "tp_store_create");
  o.store = store;
  check(tp_xnn_graph_create(&o, &g), "tp_xnn_graph_create");
  tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 3, 0.05f, 4, xd, NULL, 0,
                                       TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &sc, 4, 0, NULL, &w,
                                                   TP_XNN_INVALID_ID, 0, &wid);
  tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &sc, 1, 0, NULL, &b,
                                                   TP_XNN_INVALID_ID, 0, &bid);
  tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -2, 0.1f, 4, yd, NULL, 1,
                                       TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 8, 4, -INFINITY, INFINITY, x,
                               wid, bid, y, 0);
  xnn_emit(named ? "qconv-named" : "qconv-inline", g, store);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
}

/* Pooling, padding and reshape on NHWC fp32. */
static void xnn_shapes(void) {
  tp_xnn_graph *g = NULL;
  size_t xd[4] = {1, 4, 4, 2}, pd[4] = {1, 6, 6, 2}, md[4] = {1, 3, 3, 2}, rd[2] = {1, 18};
  size_t pre[4] = {0, 1, 1, 0}, post[4] = {0, 1, 1, 0}, shape[2] = {1, 18};
  uint32_t x, p, m, r;
  check(tp_xnn_graph_create(NULL, &g), "tp_xnn_graph_create");
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, pd, NULL, TP_XNN_INVALID_ID, 0, &p);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, md, NULL, TP_XNN_INVALID_ID, 0, &m);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, rd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &r);
  tp_xnn_define_static_constant_pad(g, pre, post, 0.0f, x, p, 0);
  tp_xnn_define_max_pooling_2d(g, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, -INFINITY, INFINITY, p, m, 0);
  tp_xnn_define_static_reshape(g, 2, shape, m, r, 0);
  xnn_emit("shapes", g, NULL);
  tp_xnn_graph_destroy(g);
}

/* ---- Vulkan ------------------------------------------------------------------------------- */

static void vk_emit(const char *name, tp_vk_graph *g, tp_store *store) {
  tp_membuf blob = {NULL, 0, 0}, ptd = {NULL, 0, 0};
  tp_sink bs = tp_sink_membuf(&blob), ps = tp_sink_membuf(&ptd);
  char fbname[128];
  if (tp_vk_write(g, &bs) != TP_OK) {
    fprintf(stderr, "make_seeds: vk %s: %s\n", name, tp_vk_graph_error(g));
    g_failed = 1;
  }
  if (store) check(tp_store_write_ptd(store, &ps), "tp_store_write_ptd");
  put_framed("fuzz_vk_blob", name, &blob, &ptd);
  snprintf(fbname, sizeof fbname, "vk-%s", name);
  put_flatbuffer_of(fbname, &blob);
  if (store) {
    snprintf(fbname, sizeof fbname, "vk-%s.ptd", name);
    put("fuzz_ptd", fbname, ptd.data, ptd.size);
  }
  tp_membuf_free(&blob);
  tp_membuf_free(&ptd);
}

static void vk_linear(int named, int fp16) {
  int64_t sz[2] = {8, 4};
  tp_tensor wt = view(w_store, 32 * sizeof(float), TP_F32, 2, sz), w;
  tp_vk_graph *g = NULL;
  tp_store *store = NULL;
  tp_vk_options o;
  tp_vk_tensor_desc d;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4};
  uint32_t x, wid, bias, y, args[4];
  char name[64];
  check(tp_transpose(&wt, 0, 1, &w, NULL), "tp_transpose");
  memset(&o, 0, sizeof o);
  if (named) check(tp_store_create(NULL, &store), "tp_store_create");
  o.store = store;
  o.force_fp16 = fp16;
  check(tp_vk_graph_create(&o, &g), "tp_vk_graph_create");
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, xd, NULL);
  tp_vk_add_tensor_desc(g, &d, &x);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 0, NULL, &w); /* dims: the constant's */
  tp_vk_add_tensor_desc(g, &d, &wid);
  tp_vk_add_null(g, &bias);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, NULL);
  d.storage = TP_VK_STORAGE_BUFFER;
  d.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  tp_vk_add_tensor_desc(g, &d, &y);
  args[0] = x;
  args[1] = wid;
  args[2] = bias;
  args[3] = y;
  tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
  tp_vk_set_io(g, &x, 1, &y, 1);
  snprintf(name, sizeof name, "linear-%s%s", named ? "named" : "inline", fp16 ? "-fp16" : "");
  vk_emit(name, g, store);
  tp_vk_graph_destroy(g);
  tp_store_destroy(store);
}

/* Every value kind, an empty constant, an int8 constant, a shader, overrides. */
static void vk_values(void) {
  static const int64_t il[3] = {1, -2, 3};
  static const double dl[2] = {0.5, -1.25};
  static const uint8_t bl[3] = {1, 0, 1};
  /* a shader is raw bytes: the SPIR-V words 0x07230203, 0x00010000, 0, 1, 0 little-endian (the
     same file on every host) */
  static const unsigned char spv[20] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0,
                                        1, 0, 0, 0, 0, 0, 0, 0};
  int64_t esz[2] = {0, 3}, qsz[1] = {8};
  tp_tensor empty = view(w_store, 0, TP_F32, 2, esz), q = view(wq, 8, TP_I8, 1, qsz);
  tp_vk_graph *g = NULL;
  uint32_t ids[16], list[3], shader, in, out;
  size_t d1[1] = {8};
  tp_vk_options o;
  tp_vk_tensor_desc d;
  memset(&o, 0, sizeof o);
  o.other_runtime = 1; /* every value kind in one chain call: not an ExecuTorch operator call */
  check(tp_vk_graph_create(&o, &g), "tp_vk_graph_create");
  tp_vk_add_int(g, -5, &ids[0]);
  tp_vk_add_double(g, 2.5, &ids[1]);
  tp_vk_add_bool(g, 1, &ids[2]);
  tp_vk_add_string(g, "hello", &ids[3]);
  tp_vk_add_symint(g, 42, &ids[4]);
  tp_vk_add_int_list(g, il, 3, &ids[5]);
  tp_vk_add_double_list(g, dl, 2, &ids[6]);
  tp_vk_add_bool_list(g, bl, 3, &ids[7]);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 0, NULL, &empty);
  tp_vk_add_tensor_desc(g, &d, &ids[8]);
  d = tp_vk_tensor_desc_make(TP_VK_INT8, 0, NULL, &q);
  d.storage = TP_VK_STORAGE_TEXTURE_3D;
  d.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
  tp_vk_add_tensor_desc(g, &d, &ids[9]);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT16, 1, d1, NULL);
  d.shares_memory = 1; /* memory object 0 */
  d.staging = TP_VK_FLOAT32;
  tp_vk_add_tensor_desc(g, &d, &in);
  d.staging = TP_VK_BOOL; /* the default: the tensor's datatype */
  tp_vk_add_tensor_desc(g, &d, &out);
  list[0] = ids[0];
  list[1] = ids[5];
  list[2] = ids[9];
  tp_vk_add_value_list(g, list, 3, &ids[10]);
  tp_vk_add_shader(g, spv, sizeof spv, &shader);
  list[0] = in;
  list[1] = ids[10];
  list[2] = out;
  tp_vk_add_op(g, 0, "aten.add.Tensor", list, 3);
  tp_vk_set_io(g, &in, 1, &out, 1);
  tp_vk_set_overrides(g, TP_VK_STORAGE_TEXTURE_3D, TP_VK_LAYOUT_CHANNELS_PACKED);
  vk_emit("values", g, NULL);
  tp_vk_graph_destroy(g);
}

/* ---- .ptd --------------------------------------------------------------------------------- */

static void ptd_emit(const char *name, tp_store *s) {
  tp_membuf m = {NULL, 0, 0};
  tp_sink sk = tp_sink_membuf(&m);
  char fbname[128];
  check(tp_store_write_ptd(s, &sk), "tp_store_write_ptd");
  put("fuzz_ptd", name, m.data, m.size);
  snprintf(fbname, sizeof fbname, "ptd-%s", name);
  {
    tp_membuf none = {NULL, 0, 0};
    put_framed("fuzz_tpdump", fbname, &m, &none); /* a .ptd as the file, no .ptd after it */
  }
  put("fuzz_fb_reader", fbname, m.data, m.size);
  tp_membuf_free(&m);
}

static void ptds(void) {
  int64_t sz4[4] = {2, 3, 4, 5}, sz2[2] = {8, 8}, esz[2] = {0, 4}, bsz[1] = {8};
  static float nchw[2 * 3 * 4 * 5];
  static uint16_t half[8];
  tp_tensor x = view(nchw, sizeof nchw, TP_F32, 4, sz4), cl;
  tp_tensor a = view(w_store, 64 * 4, TP_F32, 2, sz2);
  tp_tensor e = view(w_store, 0, TP_F32, 2, esz), h = view(half, sizeof half, TP_BF16, 1, bsz), at;
  tp_store *s = NULL;
  int i;
  for (i = 0; i < 120; i++) nchw[i] = (float)i;
  for (i = 0; i < 8; i++) half[i] = tp_f32_to_bf16((float)i - 3.5f);
  /* a channels_last view: permute a NHWC-shaped tensor back to NCHW logical order */
  {
    int64_t nhwc[4] = {2, 4, 5, 3};
    tp_tensor y = view(nchw, sizeof nchw, TP_F32, 4, nhwc);
    int back[4] = {0, 3, 1, 2};
    check(tp_permute(&y, back, &cl, NULL), "tp_permute");
  }
  check(tp_transpose(&a, 0, 1, &at, NULL), "tp_transpose");

  check(tp_store_create(NULL, &s), "tp_store_create");
  tp_store_add(s, NULL, &x, TP_ORDER_ROW_MAJOR, 0, NULL);
  ptd_emit("one", s);
  tp_store_add(s, "cl", &cl, TP_ORDER_PRESERVE, 64, NULL);
  tp_store_add(s, "transposed", &at, TP_ORDER_ROW_MAJOR, 0, NULL);
  tp_store_add(s, "same", &x, TP_ORDER_ROW_MAJOR, 0, NULL);
  tp_store_add(s, "empty", &e, TP_ORDER_ROW_MAJOR, 0, NULL);
  tp_store_add(s, "bf16", &h, TP_ORDER_ROW_MAJOR, 32, NULL);
  tp_store_add_bytes(s, "raw", "raw bytes", 9, 0, 1, NULL);
  tp_store_add_bytes(s, NULL, "", 0, 0, 1, NULL);
  ptd_emit("many", s);
  tp_store_destroy(s);

  check(tp_store_create(NULL, &s), "tp_store_create");
  ptd_emit("empty-store", s);
  tp_store_destroy(s);
}

/* ---- a flatbuffer with every kind of field ------------------------------------------------ */

static void fb_every_field(void) {
  tp_fb_builder *b = NULL;
  tp_fb_ref s1, s2, strs[2], leaf, leaves[2], v1, v2, v4, v8, vs, vt, root;
  static const uint8_t b1[3] = {1, 2, 3};
  static const uint16_t b2[2] = {0x1234, 0xfffe};
  static const uint32_t b4[3] = {7, 8, 9};
  static const uint64_t b8[2] = {UINT64_MAX, 5};
  const unsigned char *data;
  size_t n;
  check(tp_fb_builder_create(&b), "tp_fb_builder_create");
  s1 = tp_fb_create_string(b, "key", 3);
  s2 = tp_fb_create_string(b, "", 0);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 1, 0);
  tp_fb_add_ref(b, 1, s1);
  leaf = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_f64(b, 2, 0.5, 0.0);
  tp_fb_add_i8(b, 0, -1, 0);
  leaves[1] = tp_fb_end_table(b);
  leaves[0] = leaf;
  strs[0] = s1;
  strs[1] = s2;
  v1 = tp_fb_create_vector(b, b1, 3, 1);
  v2 = tp_fb_create_vector(b, b2, 2, 2);
  v4 = tp_fb_create_vector(b, b4, 3, 4);
  v8 = tp_fb_create_vector(b, b8, 2, 8);
  vs = tp_fb_create_vector_refs(b, strs, 2);
  vt = tp_fb_create_vector_refs(b, leaves, 2);
  tp_fb_start_table(b);
  tp_fb_add_u64(b, 15, 0x0102030405060708ull, 0);
  tp_fb_add_f64(b, 14, -2.0, 0.0);
  tp_fb_add_i64(b, 13, -3, 0);
  tp_fb_add_ref(b, 12, vt);
  tp_fb_add_ref(b, 11, vs);
  tp_fb_add_ref(b, 10, v8);
  tp_fb_add_ref(b, 9, v4);
  tp_fb_add_ref(b, 8, v2);
  tp_fb_add_ref(b, 7, v1);
  tp_fb_add_union(b, 6, 3, leaves[1]);
  tp_fb_add_ref(b, 4, leaf);
  tp_fb_add_ref(b, 3, s2);
  tp_fb_add_f32(b, 2, 1.5f, 0.0f);
  tp_fb_add_i16(b, 1, -7, 0);
  tp_fb_add_u8(b, 0, 200, 0);
  root = tp_fb_end_table(b);
  check(tp_fb_finish(b, root, "TPFZ"), "tp_fb_finish");
  data = tp_fb_data(b, &n);
  if (data) put("fuzz_fb_reader", "every-field", data, n);
  tp_fb_builder_destroy(b);
}

/* ---- views -------------------------------------------------------------------------------- */

static void views(void) {
  /* dtype index, ndim, flags, sizes, [strides], offset, nbytes lo, hi, ops, op bytes..., tail */
  static const unsigned char contiguous[] = {6, 2, 0, 3, 4, 0, 48, 0, 0, 1, 2, 3, 4};
  static const unsigned char select_view[] = {6, 3, 0, 3, 8, 8, 0, 0, 3, 1, 1, 1, 1, 0, 9, 9};
  /* [4][8] f32 transposed: sizes (8, 4) strides (1, 8) */
  static const unsigned char transposed[] = {6, 2, 1, 8, 4, 1, 8, 0, 128, 0, 0, 5, 6, 7, 8};
  /* channels_last [1][3][2][2]: strides (12, 1, 6, 3) */
  static const unsigned char chlast[] = {6, 4, 1, 1, 3, 2, 2, 12, 1, 6, 3, 0, 48, 0, 0, 1};
  /* int8 values in range, odd last dim, a narrow */
  static const unsigned char int4[] = {1, 2, 0, 3, 5, 0, 15, 0, 1, 2, 2, 1, 3, 0, 1, 2, 3,
                                       4, 5, 6, 7, 0xf8, 0xf9, 0xfa, 0xff};
  /* flipped (negative stride) int16, offset at the end */
  static const unsigned char flipped[] = {2, 1, 1, 6, 65, 5, 12, 0, 0, 9, 8, 7};
  /* broadcast: stride 0, then expand */
  static const unsigned char bcast[] = {3, 2, 1, 4, 3, 0, 1, 0, 12, 0, 1, 8, 0, 3, 5, 4, 3, 0};
  /* f64 slice with step 2 and a permute */
  static const unsigned char slice_perm[] = {7, 3, 0, 2, 3, 4, 0, 192, 0, 2, 3, 1, 0, 1, 9, 2,
                                             5, 0, 1, 0, 2};
  /* bf16 chunk */
  static const unsigned char chunk[] = {9, 2, 0, 6, 2, 0, 24, 0, 1, 6, 1, 4, 2};
  put("fuzz_views", "contiguous", contiguous, sizeof contiguous);
  put("fuzz_views", "select", select_view, sizeof select_view);
  put("fuzz_views", "transposed", transposed, sizeof transposed);
  put("fuzz_views", "channels-last", chlast, sizeof chlast);
  put("fuzz_views", "int4", int4, sizeof int4);
  put("fuzz_views", "flipped", flipped, sizeof flipped);
  put("fuzz_views", "broadcast", bcast, sizeof bcast);
  put("fuzz_views", "slice-permute", slice_perm, sizeof slice_perm);
  put("fuzz_views", "chunk", chunk, sizeof chunk);
}

/* Programs (.pte): the seed linear (inline, and named with its store embedded), a Vulkan
   linear, and two methods with compile specs; into fuzz_pte, and framed into fuzz_tpdump. */
static tp_status seed_bytes_produce(void *ctx, tp_sink *sink) {
  static const unsigned char blob[40] = {0, 0, 0, 0, 'X', 'H', '0', '0'};
  (void)ctx;
  return tp_sink_write(sink, blob, sizeof blob);
}

static void pte_emit(const char *name, tp_pte *p) {
  tp_membuf mb = {NULL, 0, 0};
  tp_sink s = tp_sink_membuf(&mb);
  char fbname[128];
  if (tp_pte_write(p, &s) != TP_OK) {
    fprintf(stderr, "make_seeds: pte %s: %s\n", name, tp_pte_error(p));
    g_failed = 1;
  }
  put("fuzz_pte", name, mb.data, mb.size);
  snprintf(fbname, sizeof fbname, "pte-%s", name);
  put("fuzz_fb_reader", fbname, mb.data, mb.size);
  {
    tp_membuf none = {NULL, 0, 0};
    put_framed("fuzz_tpdump", fbname, &mb, &none);
  }
  tp_membuf_free(&mb);
}

static void ptes(void) {
  int named;
  for (named = 0; named < 2; named++) {
    int64_t sz[3] = {3, 8, 8};
    tp_tensor parent = view(w_store, sizeof w_store, TP_F32, 3, sz), w;
    tp_xnn_graph *g = NULL;
    tp_store *store = NULL;
    tp_xnn_options o;
    tp_pte_options po;
    tp_pte *p = NULL;
    size_t xd[2] = {2, 8}, yd[2] = {2, 8};
    uint32_t x, wt, y;
    check(tp_select(&parent, 0, 1, &w, NULL), "tp_select");
    memset(&o, 0, sizeof o);
    if (named) check(tp_store_create(NULL, &store), "tp_store_create");
    o.store = store;
    check(tp_xnn_graph_create(&o, &g), "tp_xnn_graph_create");
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
    tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
    memset(&po, 0, sizeof po);
    po.embed = store;
    check(tp_pte_create(&po, &p), "tp_pte_create");
    check(tp_xnn_add_pte_method(p, "forward", g), "tp_xnn_add_pte_method");
    if (named) {
      tp_pte_tensor a[3];
      tp_pte_compile_spec sp;
      tp_pte_method m;
      memset(a, 0, sizeof a);
      a[0].role = TP_PTE_INPUT; a[0].dtype = TP_F16; a[0].ndim = 3;
      a[0].sizes[0] = 2; a[0].sizes[1] = 3; a[0].sizes[2] = 4;
      a[0].dim_order[0] = 0; a[0].dim_order[1] = 2; a[0].dim_order[2] = 1;
      a[1].role = TP_PTE_INPUT | TP_PTE_OUTPUT; a[1].dtype = TP_I64;
      a[2].role = TP_PTE_OUTPUT; a[2].dtype = TP_BF16; a[2].ndim = 1; a[2].sizes[0] = 5;
      sp.key = "storage_type_override";
      sp.value = "\x01\x00\x00\x00";
      sp.nbytes = 4;
      memset(&m, 0, sizeof m);
      m.name = "second";
      m.args = a;
      m.n_args = 3;
      m.backend_id = "VulkanBackend";
      m.blob_size = 40;
      m.produce = seed_bytes_produce;
      m.specs = &sp;
      m.n_specs = 1;
      check(tp_pte_add_method(p, &m), "tp_pte_add_method");
    }
    pte_emit(named ? "linear-named-two-methods" : "linear-inline", p);
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(store);
  }
  {
    int64_t sz[2] = {4, 8};
    tp_tensor w = view(w_store, 4 * 8 * sizeof(float), TP_F32, 2, sz);
    tp_vk_graph *g = NULL;
    tp_pte *p = NULL;
    tp_vk_tensor_desc d;
    size_t xd[2] = {1, 8}, yd[2] = {1, 4};
    uint32_t x, wid, bias, y, args[4];
    check(tp_vk_graph_create(NULL, &g), "tp_vk_graph_create");
    d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, xd, NULL);
    tp_vk_add_tensor_desc(g, &d, &x);
    d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 0, NULL, &w);
    tp_vk_add_tensor_desc(g, &d, &wid);
    tp_vk_add_null(g, &bias);
    d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, NULL);
    tp_vk_add_tensor_desc(g, &d, &y);
    args[0] = x;
    args[1] = wid;
    args[2] = bias;
    args[3] = y;
    tp_vk_add_op(g, 0, "aten.linear.default", args, 4);
    tp_vk_set_io(g, &x, 1, &y, 1);
    check(tp_pte_create(NULL, &p), "tp_pte_create");
    check(tp_vk_add_pte_method(p, "forward", g, NULL), "tp_vk_add_pte_method");
    pte_emit("vulkan-linear", p);
    tp_pte_destroy(p);
    tp_vk_graph_destroy(g);
  }
}

/* The cost seeds (seed-cost-*): small worst shapes (tests/linear_shapes.h: shared tables,
   shared long keys; long keys sorted), whose work per byte comes within a small factor of the
   targets' cost bounds (fuzz/fuzz_bound.h: the smoke run checks that each aborts with its
   bound divided, tests/fuzz_smoke.sh). framed: in fuzz/fuzz_input.h's framing (no .ptd). */
static void put_cost(const char *target, const char *name, unsigned char *bytes, size_t n,
                     int framed) {
  tp_membuf m;
  if (!bytes) {
    fprintf(stderr, "make_seeds: cannot build the cost seed %s\n", name);
    g_failed = 1;
    return;
  }
  m.data = bytes;
  m.size = m.cap = n;
  if (framed) put_framed(target, name, &m, NULL);
  else put(target, name, bytes, n);
  free(bytes);
}

/* __metadata__ of n keys of len bytes that differ in their last four: n log n comparisons of
   len-byte keys. Malloc'd. */
static unsigned char *cost_safetensors(size_t n, size_t len, size_t *size) {
  size_t cap = n * (len + 16) + 64, hn = 0, i;
  unsigned char *b = (unsigned char *)malloc(cap + 8);
  char *h = b ? (char *)b + 8 : NULL;
  if (!b) return NULL;
  hn += (size_t)sprintf(h + hn, "{\"__metadata__\":{");
  for (i = 0; i < n; i++) {
    h[hn++] = i ? ',' : ' ';
    h[hn++] = '"';
    memset(h + hn, 'a', len - 4);
    hn += len - 4;
    hn += (size_t)sprintf(h + hn, "%04lu\":\"\"", (unsigned long)((i * 7919) % n));
  }
  hn += (size_t)sprintf(h + hn, "}}");
  tp__put_le64(b, hn);
  *size = hn + 8;
  return b;
}

static void cost_seeds(void) {
  size_t n = 0;
  unsigned char *p;
  p = shape_pte_shared_specs(1000, &n);
  put_cost("fuzz_pte", "cost-pte-shared-specs", p, n, 0);
  p = shape_pte_shared_specs(1000, &n);
  put_cost("fuzz_tpdump", "cost-pte-shared-specs", p, n, 1);
  p = shape_vk_shared_list(1000, &n);
  put_cost("fuzz_vk_blob", "cost-vk-shared-list", p, n, 1);
  p = shape_xnn_shared_values(2000, &n);
  put_cost("fuzz_xnn_blob", "cost-xnn-shared-values", p, n, 1);
  p = shape_ptd_shared_key(1000, 1, &n);
  put_cost("fuzz_ptd", "cost-ptd-shared-key", p, n, 0);
  p = cost_safetensors(1000, 64, &n);
  put_cost("fuzz_safetensors", "cost-metadata-long-keys", p, n, 0);
  p = cost_safetensors(1000, 64, &n); /* its header alone: 1000 top-level keys */
  if (p) {
    memmove(p, p + 24, n - 25); /* drop the length, {"__metadata__": and the last '}' */
    n -= 25;
  }
  put_cost("fuzz_json", "cost-top-level-long-keys", p, n, 0);
}

int main(int argc, char **argv) {
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: make_seeds DIR\n");
    return 1;
  }
  g_dir = argv[1];
  for (i = 0; i < 3 * 8 * 8; i++) w_store[i] = (float)(i % 17) / 16.0f - 0.5f;
  for (i = 0; i < 8; i++) bias_f[i] = (float)i * 0.25f;
  for (i = 0; i < 32; i++) wq[i] = (int8_t)((i * 7) % 15 - 7);
  for (i = 0; i < 4; i++) bias_q[i] = i * 100 - 150;
  for (i = 0; i < 8; i++) scale_store[i] = 0.01f * (float)(i + 1);

  xnn_linear(0, 0);
  xnn_linear(0, 1);
  xnn_linear(1, 1);
  xnn_chain();
  xnn_qconv(0);
  xnn_qconv(1);
  xnn_shapes();
  vk_linear(0, 0);
  vk_linear(1, 0);
  vk_linear(0, 1);
  vk_values();
  ptds();
  fb_every_field();
  views();
  safetensors_seeds();
  json_seeds();
  ptes();
  cost_seeds();
  if (g_failed) return 1;
  printf("make_seeds: %d seed files in %s\n", g_count, g_dir);
  return 0;
}
