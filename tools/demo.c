/* demo.c - `make demo`: the seed's cases (ExecuTorch PR 24208) exported with tensorpack.

   For each case: the view (offset, sizes, strides), whether its bytes were taken zero-copy,
   their SHA-256, the files written (XNNPACK blob, Vulkan blob, .ptd) and what a writer that
   copies "the storage from its first byte" would have emitted instead. Built with
   TP_DEMO_XNNPACK / TP_DEMO_VULKAN (the Makefile sets them when the libraries are installed),
   the blobs are then loaded onto the real XNNPACK and a real Vulkan driver and the results
   compared with a double-precision reference.

   Usage: demo OUTDIR        exit status 0 when every check holds. */
#ifdef TP_DEMO_VULKAN
#define _POSIX_C_SOURCE 200809L /* dlopen, setenv (tests/vk_compute.h) */
#endif
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#ifdef TP_DEMO_XNNPACK
#define TENSORPACK_XNNPACK_RUNTIME
#endif
#ifdef TP_DEMO_VULKAN
#define TENSORPACK_VULKAN_RUNTIME
#endif
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef TP_DEMO_VULKAN
#include "vk_compute.h" /* tests/: instance, device, y = W x with a compute shader */
#endif

static int g_failures;
static char g_dir[512];

#define CHECK(cond, ...)                                                         \
  do {                                                                           \
    if (!(cond)) {                                                               \
      printf("    FAILED: ");                                                    \
      printf(__VA_ARGS__);                                                       \
      printf("\n");                                                              \
      g_failures++;                                                              \
    }                                                                            \
  } while (0)

/* ---- data ------------------------------------------------------------------------------ */

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static double uniform01(void) {
  g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
  return (double)((g_rng * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}
/* torch.randn-like values (Box-Muller). */
static void randn(float *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    double u = uniform01(), v = uniform01();
    p[i] = (float)(sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v));
  }
}

static const char *path_in(const char *name) {
  static char buf[4][700];
  static int k;
  k = (k + 1) & 3;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
  return buf[k];
}

static int contains(const void *hay, size_t n, const void *needle, size_t m) {
  const unsigned char *h = (const unsigned char *)hay;
  size_t i;
  if (m == 0) return 1;
  for (i = 0; i + m <= n; i++)
    if (h[i] == *(const unsigned char *)needle && memcmp(h + i, needle, m) == 0) return 1;
  return 0;
}

/* ---- describing a view --------------------------------------------------------------------- */

static void print_dims(const char *label, const int64_t *v, int n) {
  int i;
  printf("%s[", label);
  for (i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", (long long)v[i]);
  printf("]");
}

/* Prints the view, what tensorpack takes from it (zero-copy or compacted, its sha256) and the
   range a whole-storage writer would take instead. */
static void describe(const char *name, const tp_tensor *t, tp_order order) {
  tp_buffer b;
  char hex[65];
  size_t begin = 0, end = 0;
  if (tp_compact(t, order, &b) != TP_OK) {
    CHECK(0, "tp_compact(%s)", name);
    return;
  }
  tp_sha256_hex(b.data, b.nbytes, hex);
  tp_span(t, &begin, &end);
  printf("  %s: offset %lld elements, ", name, (long long)t->offset);
  print_dims("sizes ", t->sizes, t->ndim);
  print_dims(", strides ", t->strides, t->ndim);
  printf("\n    tensorpack takes %zu bytes (%s), sha256 %.16s...\n", b.nbytes,
         b.owned ? "compacted" : "zero-copy: a pointer into the storage", hex);
  if (!b.owned)
    CHECK((const char *)b.data == (const char *)t->storage.data +
                                      (size_t)t->offset * tp_dtype_size(t->dtype),
          "zero-copy pointer is not storage + offset");
  printf("    a whole-storage writer takes bytes [0, %zu) of the storage; the view touches [%zu, %zu)\n",
         t->storage.nbytes, begin, end);
  tp_buffer_release(&b);
}

static tp_status write_xnn(tp_xnn_graph *g, const char *file) {
  uint64_t size = 0;
  tp_status st = tp_xnn_blob_size(g, &size);
  if (st == TP_OK) st = tp_xnn_write_file(g, path_in(file));
  if (st != TP_OK)
    CHECK(0, "writing %s: %s", file, tp_xnn_graph_error(g));
  else
    printf("    wrote %s (%llu bytes)\n", path_in(file), (unsigned long long)size);
  return st;
}

/* ---- real XNNPACK ------------------------------------------------------------------------- */

#ifdef TP_DEMO_XNNPACK
/* Loads a blob (and .ptd) onto XNNPACK, binds inputs (ext ids 0..n_in-1) and outputs (the
   following ids), runs it. Returns 0 on success. */
static int run_xnn(const char *blob_file, const char *ptd_file, void **inputs, int n_in,
                   void **outputs, int n_out) {
  tp_file_bytes blob, ptd; /* mapped (or read); zeroed when the file cannot be had */
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  int i, ok = 0;
  memset(&ptd, 0, sizeof ptd);
  memset(&err, 0, sizeof err);
  if (tp_file_bytes_open(path_in(blob_file), 0, &blob, &err) == TP_OK &&
      (!ptd_file || tp_file_bytes_open(path_in(ptd_file), 0, &ptd, &err) == TP_OK) &&
      tp_xnn_load(blob.data, blob.size, ptd.data, ptd.size, 0, &rt, &err) == TP_OK) {
    ok = 1;
    for (i = 0; i < n_in; i++) ok &= tp_xnn_runtime_bind(rt, (uint32_t)i, inputs[i]) == TP_OK;
    for (i = 0; i < n_out; i++)
      ok &= tp_xnn_runtime_bind(rt, (uint32_t)(n_in + i), outputs[i]) == TP_OK;
    ok = ok && tp_xnn_runtime_invoke(rt) == TP_OK;
    if (!ok) printf("    XNNPACK: %s\n", tp_xnn_runtime_error(rt));
  } else {
    printf("    XNNPACK load of %s failed: %s\n", blob_file, err.msg);
  }
  tp_xnn_runtime_destroy(rt);
  tp_file_bytes_close(&blob);
  tp_file_bytes_close(&ptd);
  return ok ? 0 : -1;
}
#endif

#ifdef TP_DEMO_XNNPACK
/* y[b][o] = sum_i x[b][i] * W[o][i], W read through the view. */
static double linear_max_err(const float *y, const float *x, const tp_tensor *w, int batch) {
  const float *wd = (const float *)w->storage.data;
  int64_t o, i, b;
  double worst = 0;
  for (b = 0; b < batch; b++)
    for (o = 0; o < w->sizes[0]; o++) {
      double acc = 0;
      for (i = 0; i < w->sizes[1]; i++)
        acc += (double)x[b * w->sizes[1] + i] *
               (double)wd[w->offset + o * w->strides[0] + i * w->strides[1]];
      if (fabs(acc - y[b * w->sizes[0] + o]) > worst) worst = fabs(acc - y[b * w->sizes[0] + o]);
    }
  return worst;
}
#endif

/* ---- case 1: a weight that is a view at an offset ------------------------------------------ */

/* A constant weight w, an external output y_ext = x_id w^T (fully connected, no bias). */
static void define_linear(tp_xnn_graph *g, const tp_tensor *w, int batch, uint32_t x_id,
                          uint32_t y_ext) {
  size_t yd[2];
  uint32_t wt, y;
  yd[0] = (size_t)batch;
  yd[1] = (size_t)w->sizes[0];
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, y_ext, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x_id, wt, TP_XNN_INVALID_ID, y, 0);
}

static void case_offset_view(void) {
  static float storage[3 * 8 * 8];
  static float x[2 * 8 + 4];
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor parent, w, wrong;
  tp_xnn_graph *g;
  size_t xd[2] = {2, 8};
  uint32_t xid;
  tp_file_bytes fb;
  const void *blob;
  size_t n;
  int pass;

  printf("\n[1] weight = randn(3, 8, 8)[1]: a view 64 floats into its storage\n");
  randn(storage, 3 * 8 * 8);
  randn(x, 2 * 8);
  s.data = storage;
  s.nbytes = sizeof storage;
  tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL);
  tp_select(&parent, 0, 0, &wrong, NULL); /* what "the storage from its first byte" amounts to */
  describe("weight", &w, TP_ORDER_ROW_MAJOR);

  for (pass = 0; pass < 2; pass++) {
    const tp_tensor *wt = pass == 0 ? &w : &wrong;
    tp_xnn_graph_create(NULL, &g);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xid);
    define_linear(g, wt, 2, xid, 1);
    write_xnn(g, pass == 0 ? "seed_linear.xnn" : "seed_linear_whole_storage.xnn");
    tp_xnn_graph_destroy(g);
  }
  tp_file_bytes_open(path_in("seed_linear.xnn"), 0, &fb, NULL); /* zeroed on failure */
  blob = fb.data;
  n = fb.size;
  CHECK(blob && contains(blob, n, storage + 64, 256), "the blob does not carry the view's 64 floats");
  CHECK(blob && !contains(blob, n, storage, 256), "the blob carries the storage's first 64 floats");
  printf("    the blob carries floats [64, 128) of the storage and not [0, 64): %s\n",
         blob && contains(blob, n, storage + 64, 256) && !contains(blob, n, storage, 256) ? "yes" : "NO");
  tp_file_bytes_close(&fb);
#ifdef TP_DEMO_XNNPACK
  {
    float y[2 * 8], yw[2 * 8];
    void *in[1], *out[1];
    double e_ok, e_bad;
    in[0] = x;
    out[0] = y;
    if (run_xnn("seed_linear.xnn", NULL, in, 1, out, 1) == 0) {
      out[0] = yw;
      run_xnn("seed_linear_whole_storage.xnn", NULL, in, 1, out, 1);
      e_ok = linear_max_err(y, x, &w, 2);
      e_bad = linear_max_err(yw, x, &w, 2);
      printf("    XNNPACK F.linear(x, weight): max error %.2g (tensorpack) vs %.3g (whole-storage writer)\n",
             e_ok, e_bad);
      CHECK(e_ok < 1e-5, "max error %.3g", e_ok);
      CHECK(e_bad > 0.5, "the whole-storage writer should be visibly wrong (%.3g)", e_bad);
    } else {
      CHECK(0, "XNNPACK run");
    }
  }
#endif
}

/* ---- case 2: q, k, v chunks of a packed in_proj_weight ------------------------------------- */

static void case_qkv(void) {
  enum { E = 16, B = 3 };
  static float in_proj[3 * E * E];
  static float x[B * E + 4];
  int64_t sz[2] = {3 * E, E};
  tp_storage s;
  tp_tensor packed, qkv[3];
  tp_xnn_options opts;
  tp_xnn_graph *g;
  tp_store *store = NULL;
  size_t xd[2] = {B, E};
  uint32_t xid;
  int i, mode;
  const char *names[3] = {"q", "k", "v"};

  printf("\n[2] q, k, v = in_proj_weight[%d, %d].chunk(3): three constants, each its own third\n",
         3 * E, E);
  randn(in_proj, 3 * E * E);
  randn(x, B * E);
  s.data = in_proj;
  s.nbytes = sizeof in_proj;
  tp_view(s, TP_F32, 2, sz, NULL, 0, &packed, NULL);
  for (i = 0; i < 3; i++) {
    tp_chunk(&packed, 3, 0, i, &qkv[i], NULL);
    describe(names[i], &qkv[i], TP_ORDER_ROW_MAJOR);
  }
  for (mode = 0; mode < 2; mode++) { /* 0: inline constants, 1: named constants + .ptd */
    memset(&opts, 0, sizeof opts);
    if (mode == 1) {
      tp_store_create(NULL, &store);
      opts.store = store;
    }
    tp_xnn_graph_create(&opts, &g);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xid);
    for (i = 0; i < 3; i++) define_linear(g, &qkv[i], B, xid, (uint32_t)(1 + i));
    write_xnn(g, mode == 0 ? "qkv.xnn" : "qkv_named.xnn");
    tp_xnn_graph_destroy(g);
    if (mode == 1) {
      uint64_t psize = 0;
      tp_store_ptd_size(store, &psize);
      CHECK(tp_store_write_ptd_file(store, path_in("qkv.ptd")) == TP_OK, "qkv.ptd: %s",
            tp_store_error(store));
      printf("    wrote %s (%llu bytes, %zu named entries: the three chunks' sha256 keys)\n",
             path_in("qkv.ptd"), (unsigned long long)psize, tp_store_count(store));
      CHECK(tp_store_count(store) == 3, "expected 3 store entries");
      tp_store_destroy(store);
    }
  }
  printf("    a whole-storage writer would give each constant all %zu bytes (%zu in all), or q's bytes three times\n",
         sizeof in_proj, 3 * sizeof in_proj);
#ifdef TP_DEMO_XNNPACK
  {
    float y[3][B * E], yn[3][B * E];
    void *in[1], *out[3];
    in[0] = x;
    for (i = 0; i < 3; i++) out[i] = y[i];
    if (run_xnn("qkv.xnn", NULL, in, 1, out, 3) == 0) {
      for (i = 0; i < 3; i++) out[i] = yn[i];
      CHECK(run_xnn("qkv_named.xnn", "qkv.ptd", in, 1, out, 3) == 0, "named run");
      for (i = 0; i < 3; i++) {
        double e = linear_max_err(y[i], x, &qkv[i], B);
        double wrong = linear_max_err(y[i], x, &qkv[0], B);
        printf("    XNNPACK %s = x W_%s^T: max error %.2g; named mode (blob + .ptd) %s; vs q's weights %.3g\n",
               names[i], names[i], e, memcmp(y[i], yn[i], sizeof y[i]) == 0 ? "identical" : "DIFFERENT",
               wrong);
        CHECK(e < 1e-5, "%s max error %.3g", names[i], e);
        CHECK(memcmp(y[i], yn[i], sizeof y[i]) == 0, "named mode differs");
      }
    } else {
      CHECK(0, "XNNPACK run");
    }
  }
#endif
}

/* ---- case 3: a transposed scale ---------------------------------------------------------- */

static void case_transposed_scale(void) {
  enum { O = 8, I = 64, G = 2 }; /* groupwise: block 32 -> 2 groups per row */
  static float sT[G * O];        /* stored [groups][out]: the scale is its transpose */
  static int8_t w4[O * I];
  static float pc_storage[O * 2]; /* per-channel: column 0 of an [O, 2] tensor */
  static int8_t w8[O * I];
  int64_t szT[2] = {G, O}, szW[2] = {O, I}, szPC[2] = {O, 2};
  tp_storage s;
  tp_tensor st, scale, w4v, pc2, pcs, w8v;
  tp_xnn_graph *g;
  size_t dims[2] = {O, I};
  uint32_t id;
  int i;
  tp_file_bytes blob;
  uint16_t expect[O * G];

  printf("\n[3] transposed scales: groupwise int4 scale = S.t() of S[%d, %d]; per-channel scale = P.t()[0] of P[%d, 2]\n",
         G, O, O);
  for (i = 0; i < G * O; i++) sT[i] = 0.001f * (float)(1 + i) * (i % 2 ? 1.5f : 1.0f);
  for (i = 0; i < O * I; i++) w4[i] = (int8_t)((i * 7 % 16) - 8);
  for (i = 0; i < O * 2; i++) pc_storage[i] = 0.002f * (float)(i + 1);
  for (i = 0; i < O * I; i++) w8[i] = (int8_t)((i * 37 % 255) - 127);
  s.data = sT;
  s.nbytes = sizeof sT;
  tp_view(s, TP_F32, 2, szT, NULL, 0, &st, NULL);
  tp_transpose(&st, 0, 1, &scale, NULL); /* [O][G], strides [1, O] */
  s.data = w4;
  s.nbytes = sizeof w4;
  tp_view(s, TP_I8, 2, szW, NULL, 0, &w4v, NULL);
  describe("groupwise scale", &scale, TP_ORDER_ROW_MAJOR);

  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_blockwise_quantized_tensor_value(g, TP_XNN_QBINT4, &scale, 2, 0, 32, dims, &w4v,
                                                 TP_XNN_INVALID_ID, 0, &id);
  write_xnn(g, "groupwise_int4.xnn");
  tp_xnn_graph_destroy(g);
  for (i = 0; i < O * G; i++) expect[i] = tp_f32_to_bf16(sT[(i % G) * O + i / G]);
  tp_file_bytes_open(path_in("groupwise_int4.xnn"), 0, &blob, NULL); /* zeroed on failure */
  {
    unsigned char le[O * G * 2];
    for (i = 0; i < O * G; i++) tp__put_le16(le + 2 * i, expect[i]);
    CHECK(blob.data && contains(blob.data, blob.size, le, sizeof le),
          "bf16 scales are not row-major [out][groups]");
    printf("    bf16 scales in the blob are row-major [out][groups], each the RNE of its transposed value: %s\n",
           blob.data && contains(blob.data, blob.size, le, sizeof le) ? "yes" : "NO");
    printf("    (a writer reading the storage in order puts S[g][o] where [o][g] belongs: scale %g lands where %g should)\n",
           (double)sT[1], (double)sT[O]);
  }
  tp_file_bytes_close(&blob);

  s.data = pc_storage;
  s.nbytes = sizeof pc_storage;
  tp_view(s, TP_F32, 2, szPC, NULL, 0, &pc2, NULL);
  {
    tp_tensor t;
    tp_transpose(&pc2, 0, 1, &t, NULL);
    tp_select(&t, 0, 0, &pcs, NULL); /* sizes [O], stride 2 */
  }
  s.data = w8;
  s.nbytes = sizeof w8;
  tp_view(s, TP_I8, 2, szW, NULL, 0, &w8v, NULL);
  describe("per-channel scale", &pcs, TP_ORDER_ROW_MAJOR);
#ifdef TP_DEMO_XNNPACK
  {
    /* qc8 weights as a 1x1 convolution (Debian's XNNPACK FC takes no per-channel weights). */
    static int8_t xq[I + 16];
    int8_t yq[O + 16], yq_wrong[O + 16];
    int32_t bias[O];
    size_t xdims[4] = {1, 1, 1, I}, wdims[4] = {O, 1, 1, I}, ydims[4] = {1, 1, 1, O}, bdims[1] = {O};
    const float sx = 0.05f, sy = 0.5f;
    const int zx = 3, zy = -2;
    tp_tensor w4d, biasv;
    int64_t b_sz[1] = {O};
    uint32_t xv, wv, bv, yv;
    void *in[1], *out[1];
    double worst = 0;
    int o, k;
    float scale_pc[O];
    float biasf_scale[O];
    for (i = 0; i < I; i++) xq[i] = (int8_t)((i * 13 % 41) - 20);
    for (o = 0; o < O; o++) bias[o] = (o - 4) * 100;
    for (o = 0; o < O; o++) scale_pc[o] = pc_storage[2 * o];
    for (o = 0; o < O; o++) biasf_scale[o] = sx * scale_pc[o];
    {
      int64_t sz4[4] = {O, 1, 1, I};
      s.data = w8;
      s.nbytes = sizeof w8;
      tp_view(s, TP_I8, 4, sz4, NULL, 0, &w4d, NULL);
      s.data = bias;
      s.nbytes = sizeof bias;
      tp_view(s, TP_I32, 1, b_sz, NULL, 0, &biasv, NULL);
    }
    {
      /* pass 0: the scale view; pass 1: what a whole-storage writer reads, P's first O floats */
      tp_tensor bscale, firstO;
      int pass;
      int64_t o_sz[1] = {O};
      s.data = biasf_scale;
      s.nbytes = sizeof biasf_scale;
      tp_view(s, TP_F32, 1, b_sz, NULL, 0, &bscale, NULL);
      s.data = pc_storage;
      s.nbytes = sizeof pc_storage;
      tp_view(s, TP_F32, 1, o_sz, NULL, 0, &firstO, NULL);
      for (pass = 0; pass < 2; pass++) {
        const char *file = pass == 0 ? "perchannel_qc8.xnn" : "perchannel_qc8_whole_storage.xnn";
        int8_t *yout = pass == 0 ? yq : yq_wrong;
        tp_xnn_graph_create(NULL, &g);
        tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zx, sx, 4, xdims, NULL, 0,
                                             TP_XNN_FLAG_EXTERNAL_INPUT, &xv);
        tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, pass == 0 ? &pcs : &firstO,
                                                         4, 0, wdims, &w4d, TP_XNN_INVALID_ID, 0, &wv);
        tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT32, &bscale, 1, 0, bdims,
                                                         &biasv, TP_XNN_INVALID_ID, 0, &bv);
        tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, zy, sy, 4, ydims, NULL, 1,
                                             TP_XNN_FLAG_EXTERNAL_OUTPUT, &yv);
        tp_xnn_define_convolution_2d(g, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, I, O, -INFINITY, INFINITY,
                                     xv, wv, bv, yv, 0);
        write_xnn(g, file);
        tp_xnn_graph_destroy(g);
        in[0] = xq;
        out[0] = yout;
        if (run_xnn(file, NULL, in, 1, out, 1) != 0) CHECK(0, "XNNPACK run of %s", file);
      }
    }
    {
      double worst_wrong = 0;
      for (o = 0; o < O; o++) {
        double acc = bias[o], ref;
        long q;
        for (k = 0; k < I; k++) acc += (double)(xq[k] - zx) * (double)w8[o * I + k];
        ref = acc * (double)sx * (double)scale_pc[o] / (double)sy;
        q = lrint(ref) + zy;
        if (q < -128) q = -128;
        if (q > 127) q = 127;
        if (fabs((double)(yq[o] - q)) > worst) worst = fabs((double)(yq[o] - q));
        if (fabs((double)(yq_wrong[o] - q)) > worst_wrong) worst_wrong = fabs((double)(yq_wrong[o] - q));
      }
      printf("    XNNPACK 1x1 conv with qc8 weights and that scale: max |output - reference| = %g quantized steps"
             " (whole-storage writer: %g)\n", worst, worst_wrong);
      CHECK(worst <= 1, "per-channel output off by %g steps", worst);
      CHECK(worst_wrong > 1, "the whole-storage writer should be visibly wrong");
    }
  }
#endif
}

/* ---- case 4: a channels_last slice into a .ptd -------------------------------------------- */

static void case_channels_last(void) {
  enum { N = 2, C = 4, H = 6, W = 6 };
  static float phys[N * H * W * C]; /* physical NHWC = channels_last */
  int64_t sz[4] = {N, C, H, W}, st[4] = {H * W * C, 1, W * C, C};
  tp_storage s;
  tp_tensor x, a, slice;
  tp_store *store;
  uint8_t order[4];
  tp_ptd ptd;
  tp_ptd_entry e;
  const char *key = NULL;
  int i, nn, c, h, w, bad = 0;

  printf("\n[4] channels_last slice x[:, :, 1:-1, 1:-1] of x[%d, %d, %d, %d] -> .ptd, order PRESERVE\n",
         N, C, H, W);
  for (i = 0; i < N * H * W * C; i++) phys[i] = (float)i;
  s.data = phys;
  s.nbytes = sizeof phys;
  tp_view(s, TP_F32, 4, sz, st, 0, &x, NULL);
  tp_slice(&x, 2, 1, -1, 1, &a, NULL);
  tp_slice(&a, 3, 1, -1, 1, &slice, NULL);
  describe("slice", &slice, TP_ORDER_PRESERVE);
  tp_dim_order(&slice, order);
  printf("    dim_order (%d, %d, %d, %d)\n", order[0], order[1], order[2], order[3]);
  CHECK(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1, "dim order");

  tp_store_create(NULL, &store);
  CHECK(tp_store_add(store, NULL, &slice, TP_ORDER_PRESERVE, 0, &key) == TP_OK, "store add: %s",
        tp_store_error(store));
  CHECK(tp_store_write_ptd_file(store, path_in("channels_last.ptd")) == TP_OK, "ptd: %s",
        tp_store_error(store));
  printf("    wrote %s, key %.16s...\n", path_in("channels_last.ptd"), key ? key : "?");
  tp_store_destroy(store);

  if (tp_ptd_open_file(&ptd, path_in("channels_last.ptd")) == TP_OK &&
      tp_ptd_entry_at(&ptd, 0, &e) == TP_OK) {
    const float *v = (const float *)e.data;
    /* compact channels_last: index ((n * (H-2) + h) * (W-2) + w) * C + c */
    for (nn = 0; nn < N; nn++)
      for (h = 0; h < H - 2; h++)
        for (w = 0; w < W - 2; w++)
          for (c = 0; c < C; c++) {
            float want = phys[nn * H * W * C + (h + 1) * W * C + (w + 1) * C + c];
            if (v[((nn * (H - 2) + h) * (W - 2) + w) * C + c] != want) bad++;
          }
    printf("    read back: %zu bytes, layout dim_order (%d, %d, %d, %d), %d of %d elements wrong\n",
           e.nbytes, e.dim_order[0], e.dim_order[1], e.dim_order[2], e.dim_order[3], bad,
           N * C * (H - 2) * (W - 2));
    CHECK(bad == 0 && e.nbytes == (size_t)(N * C * (H - 2) * (W - 2)) * 4, "read back");
    CHECK(e.dim_order[1] == 2 && e.dim_order[3] == 1, "layout dim order");
  } else {
    CHECK(0, "reading channels_last.ptd back: %s", tp_ptd_error(&ptd));
  }
  tp_ptd_close(&ptd); /* unmaps the file */
  printf("    upstream's _tensor_to_bytes writes the whole storage here: %zu bytes instead of %d\n",
         sizeof phys, N * C * (H - 2) * (W - 2) * 4);
}

/* ---- case 5: Vulkan, a transposed weight --------------------------------------------------- */

static void case_vulkan(void) {
  enum { R = 8, K = 16 };
  static float p[K * R]; /* stored [K][R]; the weight W[R][K] is its transpose */
  int64_t sz[2] = {K, R};
  tp_storage s;
  tp_tensor pt, wv;
  tp_vk_graph *g;
  tp_vk_tensor_desc d;
  uint32_t w_id, x_id, b_id, y_id;
  size_t xd[1] = {K}, yd[1] = {R};
  uint64_t size = 0;

  printf("\n[5] Vulkan: a weight that is a transposed view W = P.t(), P[%d, %d]\n", K, R);
  printf("    y = W x as aten.linear.default(x, W, None, y): the graph ExecuTorch's VulkanBackend "
         "runs\n");
  randn(p, K * R);
  s.data = p;
  s.nbytes = sizeof p;
  tp_view(s, TP_F32, 2, sz, NULL, 0, &pt, NULL);
  tp_transpose(&pt, 0, 1, &wv, NULL);
  describe("weight", &wv, TP_ORDER_ROW_MAJOR);
  tp_vk_graph_create(NULL, &g);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, xd, NULL); /* every other field: default */
  tp_vk_add_tensor_desc(g, &d, &x_id);
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 0, NULL, &wv); /* dims: the constant's */
  tp_vk_add_tensor_desc(g, &d, &w_id);
  tp_vk_add_null(g, &b_id); /* no bias */
  d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, yd, NULL);
  tp_vk_add_tensor_desc(g, &d, &y_id);
  {
    /* ExecuTorch's Vulkan backend has no aten.mv: y = W x is linear(input [K], weight [R, K],
       bias None, out [R]); tp_vk_add_op checks the call against its op table (TP_VK_OPS). */
    uint32_t args[4];
    args[0] = x_id;
    args[1] = w_id;
    args[2] = b_id;
    args[3] = y_id;
    CHECK(tp_vk_add_op(g, 0, "aten.linear.default", args, 4) == TP_OK, "vk op: %s",
          tp_vk_graph_error(g));
    tp_vk_set_io(g, &x_id, 1, &y_id, 1);
  }
  tp_vk_blob_size(g, &size);
  CHECK(tp_vk_write_file(g, path_in("transposed.vkb")) == TP_OK, "vk write: %s",
        tp_vk_graph_error(g));
  printf("    wrote %s (%llu bytes)\n", path_in("transposed.vkb"), (unsigned long long)size);
  tp_vk_graph_destroy(g);
#ifdef TP_DEMO_VULKAN
  {
    static float x[K];
    float y[R], yw[R];
    tp_file_bytes blob;
    tp_vk_upload u;
    VkBuffer raw = VK_NULL_HANDLE;
    VkDeviceMemory raw_mem = VK_NULL_HANDLE;
    double e_ok = 0, e_bad = 0;
    int r, k;
    randn(x, K);
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    memset(&u, 0, sizeof u);
    memset(&blob, 0, sizeof blob); /* closed below whether or not it was opened */
    if (vkc_setup() != 0) {
      printf("    no Vulkan device with a compute queue: blob written, not uploaded\n");
    } else if (tp_file_bytes_open(path_in("transposed.vkb"), 0, &blob, &u.err) != TP_OK ||
               tp_vk_upload_blob(blob.data, blob.size, NULL, vkc.physical, vkc.device, vkc.family,
                                 0, &u) != TP_OK) {
      CHECK(0, "Vulkan upload: %s", u.err.msg);
    } else if (!vkc_run_matvec(u.values[w_id].buffer, R, K, x, y) ||
               !vkc_host_buffer(sizeof p, p, &raw, &raw_mem) || /* the storage from byte 0 */
               !vkc_run_matvec(raw, R, K, x, yw)) {
      CHECK(0, "Vulkan compute");
    } else {
      for (r = 0; r < R; r++) {
        double acc = 0;
        for (k = 0; k < K; k++) acc += (double)p[k * R + r] * (double)x[k];
        if (fabs(acc - y[r]) > e_ok) e_ok = fabs(acc - y[r]);
        if (fabs(acc - yw[r]) > e_bad) e_bad = fabs(acc - yw[r]);
      }
      printf("    uploaded to Vulkan (%s constant buffer), y = W x by a compute shader: max error %.2g"
             " (the storage's bytes as they lie: %.3g)\n",
             u.values[w_id].staged ? "staged" : "host-visible", e_ok, e_bad);
      CHECK(e_ok < 1e-5, "Vulkan max error %.3g", e_ok);
      CHECK(e_bad > 0.5, "the whole-storage bytes should be visibly wrong");
    }
    if (raw) vkDestroyBuffer(vkc.device, raw, NULL);
    if (raw_mem) vkFreeMemory(vkc.device, raw_mem, NULL);
    tp_vk_upload_free(&u);
    vkc_teardown();
    tp_file_bytes_close(&blob);
  }
#endif
}

/* ---- case 6: programs (.pte) that ExecuTorch's runtime runs --------------------------------- */

/* Writes p to file, reads it back with tp_pte_read and checks the method count, the named
   entries and that delegate 0 of each method holds exactly `blobs[m]` (n bytes). */
static void write_and_check_pte(tp_pte *p, const char *file, size_t methods, size_t named,
                                const tp_membuf *blobs) {
  size_t m;
  uint64_t size = 0;
  tp_pte_file f;
  if (tp_pte_size(p, &size) != TP_OK || tp_pte_write_file(p, path_in(file)) != TP_OK) {
    CHECK(0, "writing %s: %s", file, tp_pte_error(p));
    return;
  }
  if (tp_pte_read_file(&f, path_in(file)) != TP_OK) {
    CHECK(0, "%s: our reader refuses it: %s", file, f.err.msg);
  } else {
    CHECK(f.n_methods == methods && f.n_named == named, "%s: %lu methods, %lu named entries",
          file, (unsigned long)f.n_methods, (unsigned long)f.n_named);
    for (m = 0; m < f.n_methods && m < methods; m++) {
      tp_pte_delegate_info di;
      CHECK(tp_pte_delegate_at(&f, m, 0, &di) == TP_OK && di.nbytes == blobs[m].size &&
                memcmp(di.data, blobs[m].data, blobs[m].size) == 0,
            "%s: method %lu's segment is not its blob", file, (unsigned long)m);
    }
    printf("    wrote %s (%llu bytes: %lu method%s, %lu segments, %lu named entries); tp_pte_read: "
           "ok, every blob intact in its segment\n", path_in(file), (unsigned long long)size,
           (unsigned long)f.n_methods, f.n_methods == 1 ? "" : "s", (unsigned long)f.n_segments,
           (unsigned long)f.n_named);
    CHECK(f.size == size, "%s: %lu bytes on disk, tp_pte_size said %llu", file,
          (unsigned long)f.size, (unsigned long long)size);
  }
  tp_pte_close(&f); /* unmaps the file (nothing after a failed read) */
}

static tp_membuf blob_of(tp_xnn_graph *g) {
  tp_membuf mb;
  tp_sink s;
  memset(&mb, 0, sizeof mb);
  s = tp_sink_membuf(&mb);
  CHECK(tp_xnn_write(g, &s) == TP_OK, "blob: %s", tp_xnn_graph_error(g));
  return mb;
}

/* ---- what ExecuTorch's executor_runner gives for these programs ---------------------------- */

/* executor_runner (ExecuTorch's examples/portable/executor_runner) fills every input with ones
   when it is given no --inputs, so each program's expected output is its reference on ones:
   for y = x W^T, y[b][o] = sum_i W[o][i] for every row b, computed here in double through the
   weight's view (never through the bytes written). */
#define ET_MAX_OUT 4
typedef struct et_expect {
  int n_out;
  size_t count[ET_MAX_OUT];
  double *val[ET_MAX_OUT];
} et_expect;

static void ones_linear(et_expect *ex, const tp_tensor *w, int batch) {
  const float *wd = (const float *)w->storage.data;
  int k = ex->n_out++;
  int64_t o, i;
  int b;
  ex->count[k] = (size_t)batch * (size_t)w->sizes[0];
  ex->val[k] = (double *)malloc(ex->count[k] * sizeof(double));
  if (!ex->val[k]) {
    ex->count[k] = 0;
    CHECK(0, "no memory for the expected outputs");
    return;
  }
  for (o = 0; o < w->sizes[0]; o++) {
    double acc = 0;
    for (i = 0; i < w->sizes[1]; i++)
      acc += (double)wd[w->offset + o * w->strides[0] + i * w->strides[1]];
    for (b = 0; b < batch; b++) ex->val[k][(size_t)b * (size_t)w->sizes[0] + (size_t)o] = acc;
  }
}

/* Writes NAME.expected beside NAME.pte (the format tools/check-et.sh reads: "backend ID",
   "data FILE.ptd" when one is needed, then one "output K COUNT v0 v1 ..." line per output) and
   prints the command that runs the program, the backend the runner must have and the
   all-ones output to expect (first values and the sum of all). */
static void print_run(const char *pte, const char *ptd, const char *backend, const char *cmake,
                      const et_expect *ex) {
  char name[300];
  size_t n = strlen(pte), j;
  FILE *f;
  int k;
  snprintf(name, sizeof name, "%.*s.expected", (int)(n > 4 ? n - 4 : n), pte);
  f = fopen(path_in(name), "w");
  CHECK(f != NULL, "cannot write %s", path_in(name));
  if (f) {
    fprintf(f, "# %s run by ExecuTorch's executor_runner on all-ones inputs: the outputs a float64"
               " reference gives (tensorpack demo)\nbackend %s\n", pte, backend);
    if (ptd) fprintf(f, "data %s\n", ptd);
    for (k = 0; k < ex->n_out; k++) {
      fprintf(f, "output %d %lu", k, (unsigned long)ex->count[k]);
      for (j = 0; j < ex->count[k]; j++) fprintf(f, " %.9g", ex->val[k][j]);
      fprintf(f, "\n");
    }
    CHECK(fclose(f) == 0, "writing %s", path_in(name));
  }
  printf("      executor_runner --model_path %s", path_in(pte));
  if (ptd) printf(" --data_path %s", path_in(ptd));
  printf("\n        needs %s: a runner built with %s (tools/et-runner.sh builds one)\n", backend,
         cmake);
  for (k = 0; k < ex->n_out; k++) {
    double sum = 0;
    for (j = 0; j < ex->count[k]; j++) sum += ex->val[k][j];
    printf("        all-ones input -> output %d (%lu floats):", k, (unsigned long)ex->count[k]);
    for (j = 0; j < ex->count[k] && j < 4; j++) printf(" %.6f", ex->val[k][j]);
    printf(" ... sum %.6f\n", sum);
  }
  printf("        (all values: %s; make check-et ET_RUNNER=... compares them)\n", path_in(name));
}

static void expect_free(et_expect *ex) {
  int k;
  for (k = 0; k < ex->n_out; k++) free(ex->val[k]);
  ex->n_out = 0;
}

#define XNN_SWITCH "-DEXECUTORCH_BUILD_XNNPACK=ON"
#define VK_SWITCH "-DEXECUTORCH_BUILD_VULKAN=ON"

static void case_programs(void) {
  enum { E = 16, B = 3 };
  static float storage[3 * 8 * 8], in_proj[3 * E * E];
  int64_t sz[3] = {3, 8, 8}, qsz[2] = {3 * E, E};
  tp_storage s;
  tp_tensor parent, w, packed, qkv[3];
  tp_xnn_graph *g;
  tp_xnn_options xo;
  tp_pte_options po;
  tp_pte *p;
  tp_store *store;
  tp_membuf blobs[1];
  size_t xd[2] = {2, 8}, qxd[2] = {B, E};
  uint32_t xid;
  int i, mode;
  et_expect ex_seed, ex_qkv, ex_vk;

  printf("\n[6] programs (.pte): the same graphs as methods ExecuTorch's runtime loads and runs\n");
  /* seed_linear.pte: case 1's graph, weight = randn(3, 8, 8)[1] */
  randn(storage, 3 * 8 * 8);
  s.data = storage;
  s.nbytes = sizeof storage;
  tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL);
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xid);
  define_linear(g, &w, 2, xid, 1);
  tp_pte_create(NULL, &p);
  CHECK(tp_xnn_add_pte_method(p, "forward", g) == TP_OK, "%s", tp_pte_error(p));
  blobs[0] = blob_of(g);
  write_and_check_pte(p, "seed_linear.pte", 1, 0, blobs);
  memset(&ex_seed, 0, sizeof ex_seed);
  ones_linear(&ex_seed, &w, 2);
#ifdef TP_DEMO_XNNPACK
  {
    static float x[2 * 8 + 4], y[2 * 8];
    tp_pte_file f;
    tp_pte_delegate_info di;
    tp_xnn_runtime *rt = NULL;
    tp_error err;
    randn(x, 2 * 8);
    memset(&err, 0, sizeof err);
    if (tp_pte_read_file(&f, path_in("seed_linear.pte")) == TP_OK &&
        tp_pte_delegate_at(&f, 0, 0, &di) == TP_OK &&
        tp_xnn_load(di.data, (size_t)di.nbytes, NULL, 0, 0, &rt, &err) == TP_OK &&
        tp_xnn_runtime_bind(rt, 0, x) == TP_OK && tp_xnn_runtime_bind(rt, 1, y) == TP_OK &&
        tp_xnn_runtime_invoke(rt) == TP_OK) {
      double e = linear_max_err(y, x, &w, 2);
      printf("    XNNPACK on the blob in seed_linear.pte's segment: max error %.2g\n", e);
      CHECK(e < 1e-5, "max error %.3g", e);
    } else {
      CHECK(0, "running seed_linear.pte's blob: %s", err.msg[0] ? err.msg : f.err.msg);
    }
    tp_xnn_runtime_destroy(rt);
    tp_pte_close(&f);
  }
#endif
  tp_membuf_free(&blobs[0]);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);

  /* q/k/v: named constants, the store embedded (one file) or written as a .ptd beside */
  randn(in_proj, 3 * E * E);
  s.data = in_proj;
  s.nbytes = sizeof in_proj;
  tp_view(s, TP_F32, 2, qsz, NULL, 0, &packed, NULL);
  for (i = 0; i < 3; i++) tp_chunk(&packed, 3, 0, i, &qkv[i], NULL);
  memset(&ex_qkv, 0, sizeof ex_qkv);
  for (i = 0; i < 3; i++) ones_linear(&ex_qkv, &qkv[i], B);
  for (mode = 0; mode < 2; mode++) {
    store = NULL;
    tp_store_create(NULL, &store);
    memset(&xo, 0, sizeof xo);
    xo.store = store;
    tp_xnn_graph_create(&xo, &g);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, qxd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xid);
    for (i = 0; i < 3; i++) define_linear(g, &qkv[i], B, xid, (uint32_t)(1 + i));
    memset(&po, 0, sizeof po);
    po.embed = mode == 0 ? store : NULL;
    tp_pte_create(&po, &p);
    CHECK(tp_xnn_add_pte_method(p, "forward", g) == TP_OK, "%s", tp_pte_error(p));
    blobs[0] = blob_of(g);
    write_and_check_pte(p, mode == 0 ? "qkv.pte" : "qkv_with_ptd.pte", 1, mode == 0 ? 3 : 0,
                        blobs);
    if (mode == 1) {
      CHECK(tp_store_write_ptd_file(store, path_in("qkv_with_ptd.ptd")) == TP_OK, "%s",
            tp_store_error(store));
      printf("    wrote %s (its named data: the three chunks under their sha256 keys)\n",
             path_in("qkv_with_ptd.ptd"));
    }
    tp_membuf_free(&blobs[0]);
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(store);
  }

  /* Vulkan: y = linear(x, W) with W a transposed view (aten.linear.default, which
     VulkanBackend registers) */
  {
    static float wt[8 * 4];
    int64_t wsz[2] = {8, 4};
    tp_tensor wt_view, wv;
    tp_vk_graph *vg = NULL;
    tp_vk_tensor_desc vd;
    size_t vxd[2] = {1, 8}, vyd[2] = {1, 4};
    uint32_t x, wid, bias, y, args[4];
    tp_sink sk;
    randn(wt, 8 * 4);
    s.data = wt;
    s.nbytes = sizeof wt;
    tp_view(s, TP_F32, 2, wsz, NULL, 0, &wt_view, NULL);
    tp_transpose(&wt_view, 0, 1, &wv, NULL);
    tp_vk_graph_create(NULL, &vg);
    vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, vxd, NULL);
    tp_vk_add_tensor_desc(vg, &vd, &x);
    vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 0, NULL, &wv);
    tp_vk_add_tensor_desc(vg, &vd, &wid);
    tp_vk_add_null(vg, &bias);
    vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, vyd, NULL);
    tp_vk_add_tensor_desc(vg, &vd, &y);
    args[0] = x;
    args[1] = wid;
    args[2] = bias;
    args[3] = y;
    tp_vk_add_op(vg, 0, "aten.linear.default", args, 4);
    tp_vk_set_io(vg, &x, 1, &y, 1);
    tp_pte_create(NULL, &p);
    CHECK(tp_vk_add_pte_method(p, "forward", vg, NULL) == TP_OK, "%s", tp_pte_error(p));
    memset(&blobs[0], 0, sizeof blobs[0]);
    sk = tp_sink_membuf(&blobs[0]);
    CHECK(tp_vk_write(vg, &sk) == TP_OK, "%s", tp_vk_graph_error(vg));
    write_and_check_pte(p, "vulkan_linear.pte", 1, 0, blobs);
    memset(&ex_vk, 0, sizeof ex_vk);
    ones_linear(&ex_vk, &wv, 1);
    tp_membuf_free(&blobs[0]);
    tp_pte_destroy(p);
    tp_vk_graph_destroy(vg);
  }
  printf("    run them with ExecuTorch's own executor_runner (paths from this directory; writing"
         " them took no Python,\n    building the runner uses ExecuTorch's Python code"
         " generators: see the README, \"Running the programs\"):\n");
  print_run("seed_linear.pte", NULL, "XnnpackBackend", XNN_SWITCH, &ex_seed);
  /* the same outputs, with the constants inline or in the .ptd */
  print_run("qkv.pte", NULL, "XnnpackBackend", XNN_SWITCH, &ex_qkv);
  print_run("qkv_with_ptd.pte", "qkv_with_ptd.ptd", "XnnpackBackend", XNN_SWITCH, &ex_qkv);
  print_run("vulkan_linear.pte", NULL, "VulkanBackend", VK_SWITCH, &ex_vk);
  expect_free(&ex_seed);
  expect_free(&ex_qkv);
  expect_free(&ex_vk);
  printf("    qkv_with_ptd.pte without --data_path: ExecuTorch refuses to load the method (\"Failed to"
         " get constant data for key ...\")\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 1;
  }
  snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  printf("tensorpack demo: the seed's cases, every constant exactly the bytes of its view\n");
  printf("files go to %s/\n", g_dir);
#ifndef TP_DEMO_XNNPACK
  printf("(XNNPACK not found: blobs are written and checked, not run. apt-get install libxnnpack-dev)\n");
#endif
#ifndef TP_DEMO_VULKAN
  printf("(Vulkan not found: blobs are written and checked, not uploaded. apt-get install libvulkan-dev mesa-vulkan-drivers)\n");
#endif
  case_offset_view();
  case_qkv();
  case_transposed_scale();
  case_channels_last();
  case_vulkan();
  case_programs();
  printf("\n%s\n", g_failures ? "demo: SOME CHECKS FAILED" : "demo: every check holds");
  return g_failures ? 1 : 0;
}
