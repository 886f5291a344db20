/* A tensorpack Vulkan blob on a real Vulkan device (lavapipe on CPU machines): its constants
   are uploaded with tp_vk_upload_blob, and the blob's chain, aten.linear.default(x, W, None, y) as
   the demo writes it, is run by a compute shader (y = W x) with the uploaded
   weight, which is a transposed view at an offset into a larger storage. The result must match
   a double-precision C reference; the whole-storage bytes would not. Inline and named (.ptd)
   constants, the staging path, fp16 constants and malformed blobs are covered too.
   Exit 77 (skipped) when there is no Vulkan device. */
#define _POSIX_C_SOURCE 200809L
#define TENSORPACK_VULKAN_RUNTIME
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "vk_compute.h"

/* A FLOAT32 tensor in BUFFER storage (every other desc field default). */
static tp_status buffer_tensor(tp_vk_graph *g, size_t ndim, const size_t *dims,
                               const tp_tensor *constant, uint32_t *id) {
  tp_vk_tensor_desc d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, ndim, dims, constant);
  d.storage = TP_VK_STORAGE_BUFFER;
  return tp_vk_add_tensor_desc(g, &d, id);
}

/* Compares an uploaded buffer's bytes with `want` (only where every memory type is mappable). */
static void check_buffer_bytes(const tp_vk_device_constant *c, const void *want, size_t n) {
  void *p = NULL;
  TPT_EQ_U64(c->nbytes, n);
  if (!vkc.all_host_visible || c->nbytes != n || n == 0) return;
  TPT_CHECK(vkMapMemory(vkc.device, c->memory, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS);
  if (p) {
    TPT_MEMEQ(p, want, n);
    vkUnmapMemory(vkc.device, c->memory);
  }
}

/* ---- the model: y = W x, W [ROWS][COLS] = transpose of slab 1 of a [2][COLS][ROWS] storage -- */
enum { ROWS = 37, COLS = 29 };
static float g_storage[2 * COLS * ROWS];
static float g_x[COLS];
static float g_w_rowmajor[ROWS * COLS];

static void make_model(void) {
  int i, r, c;
  for (i = 0; i < 2 * COLS * ROWS; i++) g_storage[i] = (float)sin(0.37 * i) * 2.0f;
  for (i = 0; i < COLS; i++) g_x[i] = (float)cos(0.11 * i) - 0.25f;
  for (r = 0; r < ROWS; r++)
    for (c = 0; c < COLS; c++) g_w_rowmajor[r * COLS + c] = g_storage[COLS * ROWS + c * ROWS + r];
}

static tp_tensor weight_view(void) {
  tp_tensor s, slab, w;
  tp_storage st;
  int64_t sz[3] = {2, COLS, ROWS};
  st.data = g_storage;
  st.nbytes = sizeof g_storage;
  TPT_STATUS(tp_view(st, TP_F32, 3, sz, NULL, 0, &s, NULL), TP_OK);
  TPT_STATUS(tp_select(&s, 0, 1, &slab, NULL), TP_OK); /* offset COLS*ROWS elements */
  TPT_STATUS(tp_transpose(&slab, 0, 1, &w, NULL), TP_OK); /* [ROWS][COLS], strides (1, ROWS) */
  return w;
}

/* max |y - y_ref| with y_ref from W given row-major, in double */
static double max_err(const float *y, const float *w_rowmajor) {
  double worst = 0;
  int r, c;
  for (r = 0; r < ROWS; r++) {
    double acc = 0, e;
    for (c = 0; c < COLS; c++) acc += (double)w_rowmajor[r * COLS + c] * (double)g_x[c];
    e = fabs(acc - (double)y[r]);
    if (e > worst) worst = e;
  }
  return worst;
}

/* Builds the linear graph; returns the blob in *m; *wid = the weight's value id. */
static void build_blob(tp_store *store, int force_fp16, tp_membuf *m, uint32_t *wid) {
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_tensor w = weight_view();
  size_t xd[1] = {COLS}, yd[1] = {ROWS};
  uint32_t x, y, bias, args[4];
  tp_sink sink;
  memset(&o, 0, sizeof o);
  o.store = store;
  o.force_fp16 = force_fp16;
  memset(m, 0, sizeof *m);
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, xd, NULL, &x), TP_OK);
  TPT_STATUS(buffer_tensor(g, 2, NULL, &w, wid), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, &bias), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, yd, NULL, &y), TP_OK);
  /* the demo's graph: y = W x as ExecuTorch's Vulkan backend runs it (it has no aten.mv) */
  args[0] = x;
  args[1] = *wid;
  args[2] = bias;
  args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", args, 4), TP_OK);
  TPT_STATUS(tp_vk_set_io(g, &x, 1, &y, 1), TP_OK);
  sink = tp_sink_membuf(m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  tp_vk_graph_destroy(g);
}

/* Runs the blob's chain, which must be one aten.linear.default(input [K], weight [N, K] constant,
   Null, out [N]) as the demo writes it: the weight's uploaded buffer, the input and output
   sizes and the argument order all come from the blob. Returns the weight's value id (or
   UINT32_MAX) and y (N floats, N <= ROWS). */
static uint32_t run_linear_chain(const void *blob, size_t size, tp_ptd *ptd,
                                 const tp_vk_upload *u, const float *x, float *y) {
  tp_vk_blob rb;
  const tp_vk_blob_value *vals;
  uint32_t a[4], i, n, k;
  tp_error err;
  memset(&err, 0, sizeof err);
  TPT_STATUS(tp_vk_read_blob(blob, size, ptd, &rb, &err), TP_OK);
  TPT_EQ_INT(rb.num_ops, 1);
  if (rb.num_ops != 1) {
    tp_vk_blob_free(&rb);
    return UINT32_MAX;
  }
  TPT_EQ_STR(rb.ops[0].name, "aten.linear.default");
  TPT_CHECK(rb.ops[0].op_index >= 0); /* a name ExecuTorch's Vulkan backend registers */
  TPT_EQ_INT(rb.ops[0].num_args, 4);
  if (rb.ops[0].num_args != 4) {
    tp_vk_blob_free(&rb);
    return UINT32_MAX;
  }
  /* the reader checked every argument against the values */
  for (i = 0; i < 4; i++) a[i] = tp__get_le32(rb.ops[0].args + 4 * i);
  vals = rb.values;
  TPT_CHECK(a[1] < u->value_count);
  if (a[1] >= u->value_count) {
    tp_vk_blob_free(&rb);
    return UINT32_MAX;
  }
  TPT_EQ_INT(vals[a[0]].type, TP_VK_TENSOR_VALUE);
  TPT_EQ_INT(vals[a[0]].ndim, 1);
  TPT_CHECK(vals[a[1]].is_constant && vals[a[1]].ndim == 2);
  TPT_EQ_INT(vals[a[2]].type, TP_VK_NULL_VALUE);
  TPT_EQ_INT(vals[a[3]].ndim, 1);
  n = vals[a[3]].dims[0];
  k = vals[a[0]].dims[0];
  TPT_CHECK(vals[a[1]].dims[0] == n && vals[a[1]].dims[1] == k && n <= ROWS);
  if (vals[a[1]].dims[0] != n || vals[a[1]].dims[1] != k || n > ROWS || vals[a[0]].ndim != 1) {
    tp_vk_blob_free(&rb);
    return UINT32_MAX;
  }
  tp_vk_blob_free(&rb);
  /* linear with a 1-D input: y[n] = sum_k weight[n][k] x[k], what the matvec shader computes */
  TPT_CHECK(vkc_run_matvec(u->values[a[1]].buffer, n, k, x, y));
  return a[1];
}

static void run_and_check(const tp_membuf *blob, tp_ptd *ptd, const tp_vk_upload *u,
                          uint32_t wid) {
  float y[ROWS];
  double err, err_storage;
  TPT_EQ_U64(run_linear_chain(blob->data, blob->size, ptd, u, g_x, y), wid);
  TPT_CHECK(wid < u->value_count);
  if (wid >= u->value_count) return;
  TPT_CHECK(u->values[wid].is_constant);
  TPT_CHECK(u->values[wid].buffer != VK_NULL_HANDLE);
  TPT_EQ_INT(u->values[wid].datatype, TP_VK_FLOAT32);
  TPT_EQ_INT(u->values[wid].ndim, 2);
  TPT_EQ_INT(u->values[wid].dims[0], ROWS);
  TPT_EQ_INT(u->values[wid].dims[1], COLS);
  check_buffer_bytes(&u->values[wid], g_w_rowmajor, sizeof g_w_rowmajor);
  err = max_err(y, g_w_rowmajor);
  /* what a writer that takes the storage from its first byte would have given */
  err_storage = max_err(y, g_storage);
  printf("  max |y - ref| = %.3g (whole-storage bytes would be off by %.3g)\n", err,
         err_storage);
  TPT_CHECK(err < 1e-5);
  TPT_CHECK(err_storage > 0.5);
}

static void test_inline_upload(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0, i;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_OK);
  TPT_EQ_STR(u.err.msg, "");
  TPT_EQ_INT(u.value_count, 4); /* x, W, Null bias, y */
  for (i = 0; i < u.value_count; i++)
    if (i != wid) {
      TPT_CHECK(!u.values[i].is_constant);
      TPT_CHECK(u.values[i].buffer == VK_NULL_HANDLE);
    }
  TPT_CHECK(!u.values[wid].staged || !vkc.all_host_visible);
  run_and_check(&m, NULL, &u, wid);
  tp_vk_upload_free(&u);
  TPT_CHECK(u.values == NULL && u.value_count == 0);
  tp_vk_upload_free(&u); /* twice is fine */
  tp_membuf_free(&m);
}

static void test_forced_staging(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family,
                               TP_VK_UPLOAD_FORCE_STAGING, &u), TP_OK);
  if (u.values) TPT_EQ_INT(u.values[wid].staged, 1);
  run_and_check(&m, NULL, &u, wid);
  tp_vk_upload_free(&u);
  tp_membuf_free(&m);
}

static void test_named_upload(void) {
  tp_store *st = NULL;
  tp_membuf m, pm;
  tp_sink ps;
  tp_ptd pd;
  tp_vk_upload u;
  uint32_t wid = 0;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  build_blob(st, 0, &m, &wid);
  memset(&pm, 0, sizeof pm);
  ps = tp_sink_membuf(&pm);
  TPT_STATUS(tp_store_write_ptd(st, &ps), TP_OK);
  TPT_STATUS(tp_ptd_open(&pd, pm.data, pm.size), TP_OK);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, &pd, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_OK);
  run_and_check(&m, &pd, &u, wid);
  tp_vk_upload_free(&u);
  /* without the .ptd: a clear error, nothing left allocated */
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "but no .ptd was given");
  TPT_CHECK(u.values == NULL);
  /* with a .ptd that lacks the key */
  {
    tp_store *other = NULL;
    tp_membuf om;
    tp_sink os;
    tp_ptd opd;
    float one[1] = {1};
    memset(&om, 0, sizeof om);
    TPT_STATUS(tp_store_create(NULL, &other), TP_OK);
    TPT_STATUS(tp_store_add_bytes(other, "unrelated", one, sizeof one, 16, 1, NULL), TP_OK);
    os = tp_sink_membuf(&om);
    TPT_STATUS(tp_store_write_ptd(other, &os), TP_OK);
    TPT_STATUS(tp_ptd_open(&opd, om.data, om.size), TP_OK);
    TPT_STATUS(tp_vk_upload_blob(m.data, m.size, &opd, vkc.physical, vkc.device, vkc.family, 0, &u),
               TP_ERR_FORMAT);
    TPT_CONTAINS(u.err.msg, "is not in the .ptd");
    tp_membuf_free(&om);
    tp_store_destroy(other);
  }
  tp_membuf_free(&pm);
  tp_membuf_free(&m);
  tp_store_destroy(st);
}

/* fp16 (force_fp16), int32 and empty constants: bytes as written, empty ones get no buffer. */
static void test_other_constants(void) {
  float f[4] = {1.0f, -2.0f, 70000.0f, 0.5f};
  int32_t iv[3] = {7, -8, 9};
  int64_t s4[1] = {4}, s3[1] = {3}, s0[2] = {3, 0};
  tp_tensor tf, ti, te;
  tp_storage st;
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_vk_upload u;
  uint32_t a, b, c;
  unsigned char want_h[8];
  st.data = f;
  st.nbytes = sizeof f;
  TPT_STATUS(tp_view(st, TP_F32, 1, s4, NULL, 0, &tf, NULL), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 2, s0, NULL, 0, &te, NULL), TP_OK);
  st.data = iv;
  st.nbytes = sizeof iv;
  TPT_STATUS(tp_view(st, TP_I32, 1, s3, NULL, 0, &ti, NULL), TP_OK);
  tp__put_le16(want_h + 0, 0x3c00);
  tp__put_le16(want_h + 2, 0xc000);
  tp__put_le16(want_h + 4, 0x7bff);
  tp__put_le16(want_h + 6, 0x3800);
  memset(&o, 0, sizeof o);
  o.force_fp16 = 1;
  memset(&m, 0, sizeof m);
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, NULL, &tf, &a), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_INT32, 1, NULL, &ti, &b), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &te, &c), TP_OK);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  tp_vk_graph_destroy(g);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_OK);
  if (u.values) {
    TPT_EQ_INT(u.values[a].datatype, TP_VK_FLOAT16);
    check_buffer_bytes(&u.values[a], want_h, 8);
    TPT_EQ_INT(u.values[b].datatype, TP_VK_INT32);
    check_buffer_bytes(&u.values[b], iv, 12);
    TPT_CHECK(u.values[c].is_constant);
    TPT_EQ_U64(u.values[c].nbytes, 0);
    TPT_CHECK(u.values[c].buffer == VK_NULL_HANDLE);
    TPT_EQ_INT(u.values[c].ndim, 2);
  }
  tp_vk_upload_free(&u);
  tp_membuf_free(&m);
}

/* ---- issue 14 finding 8: values naming one constant share one buffer ------------------------ */
enum { BIG = 1024, NSHARE = 400 };
static float g_big[BIG * BIG]; /* 4 MiB */

/* Sets the constant_id of every non-constant tensor value of a VH00 blob to `cid`, in place
   (the field is always written, -1 explicitly: the writer offers no call that names one
   constant from two values, the blob format does). Returns how many values it changed. */
static uint32_t point_tensors_at(tp_membuf *m, int32_t cid) {
  tp_vk_header h;
  tp_fb_reader rd;
  tp_fb_table root;
  tp_fb_vector values;
  uint32_t i, changed = 0;
  unsigned char *fb;
  memset(&rd, 0, sizeof rd);
  TPT_STATUS(tp_vk_parse_header(m->data, m->size, &h), TP_OK);
  fb = m->data + h.flatbuffer_offset;
  TPT_STATUS(tp_fb_reader_init(&rd, fb, h.flatbuffer_size, "VK00", &root), TP_OK);
  values = tp_fb_vector_field(&root, TP_VK_F_VkGraph_values, 4);
  for (i = 0; i < values.count; i++) {
    tp_fb_table vv = tp_fb_vector_table(&values, i), t;
    uint8_t type = 0;
    uint16_t foff = 0;
    t = tp_fb_union_field(&vv, TP_VK_F_VkValue_value, &type);
    if (type != TP_VK_TENSOR_VALUE || t.pos == 0) continue;
    if (tp_fb_i32(&t, TP_VK_F_VkTensor_constant_id, TP_VK_D_VkTensor_constant_id) >= 0) continue;
    if (4u + 2u * TP_VK_F_VkTensor_constant_id + 2u <= t.vtable_size)
      foff = tp__get_le16(fb + t.vtable + 4u + 2u * TP_VK_F_VkTensor_constant_id);
    TPT_CHECK(foff != 0);
    if (foff == 0) continue;
    tp__put_le32(fb + t.pos + foff, (uint32_t)cid);
    changed++;
  }
  TPT_STATUS(tp_fb_reader_status(&rd), TP_OK);
  return changed;
}

static void test_shared_constant(void) {
  tp_vk_graph *g = NULL;
  tp_tensor w;
  tp_storage st;
  int64_t sz[2] = {BIG, BIG};
  size_t dims[2] = {BIG, BIG};
  uint32_t id, i, pass;
  tp_membuf m;
  tp_sink sink;
  static float x[BIG], y[BIG];
  for (i = 0; i < BIG * BIG; i++) g_big[i] = (float)((int)((i * 7u + (i >> 10) * 3u) % 251u) - 125);
  st.data = g_big;
  st.nbytes = sizeof g_big;
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &w, NULL), TP_OK);
  memset(&m, 0, sizeof m);
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(buffer_tensor(g, 2, NULL, &w, &id), TP_OK);
  TPT_EQ_INT(id, 0);
  for (i = 0; i < NSHARE; i++)
    TPT_STATUS(buffer_tensor(g, 2, dims, NULL, &id), TP_OK);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  tp_vk_graph_destroy(g);
  TPT_EQ_INT(point_tensors_at(&m, 0), NSHARE); /* 401 values name constant 0 */
  printf("  blob of %lu bytes: %d values naming one %lu-byte constant\n", (unsigned long)m.size,
         NSHARE + 1, (unsigned long)sizeof g_big);
  memset(x, 0, sizeof x);
  x[5] = 1.0f; /* y = column 5 of W, exactly */
  for (pass = 0; pass < 2; pass++) {
    tp_vk_upload u;
    uint32_t distinct = 0;
    TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family,
                                 pass ? TP_VK_UPLOAD_FORCE_STAGING : 0u, &u), TP_OK);
    TPT_EQ_STR(u.err.msg, "");
    TPT_EQ_INT(u.value_count, NSHARE + 1);
    TPT_EQ_INT(u.buffer_count, 1);
    TPT_EQ_U64(u.buffer_bytes, sizeof g_big);
    printf("  %s: %lu buffer(s), %llu bytes on the device\n", pass ? "staged" : "mapped",
           (unsigned long)u.buffer_count, (unsigned long long)u.buffer_bytes);
    if (u.values == NULL || u.value_count != NSHARE + 1) {
      tp_vk_upload_free(&u);
      continue;
    }
    TPT_CHECK(u.values[0].buffer != VK_NULL_HANDLE);
    for (i = 0; i < u.value_count; i++) {
      const tp_vk_device_constant *c = &u.values[i];
      if (!c->is_constant || c->constant_id != 0 || c->owner != 0 ||
          c->buffer != u.values[0].buffer || c->memory != u.values[0].memory ||
          c->nbytes != sizeof g_big || c->dims[0] != BIG || c->dims[1] != BIG)
        break;
      if (i > 0 && c->buffer != u.values[i - 1].buffer) distinct++;
    }
    TPT_EQ_INT(i, u.value_count); /* every value: constant 0, the one shared buffer */
    TPT_EQ_INT(distinct, 0);
    TPT_EQ_INT(u.values[NSHARE].staged, pass);
    check_buffer_bytes(&u.values[NSHARE], g_big, sizeof g_big);
    /* the last value's buffer on the device holds W: y = W e_5 is column 5 */
    memset(y, 0, sizeof y);
    TPT_CHECK(vkc_run_matvec(u.values[NSHARE].buffer, BIG, BIG, x, y));
    for (i = 0; i < BIG; i++)
      if (y[i] != g_big[i * BIG + 5]) break;
    TPT_EQ_INT(i, BIG);
    tp_vk_upload_free(&u); /* destroys the shared buffer once (the validation layer would say) */
    TPT_CHECK(u.values == NULL && u.buffer_count == 0);
  }
  tp_membuf_free(&m);
}

static void test_malformed(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, 20, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "no valid VH00 header");
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size - 16, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_ERR_FORMAT); /* raw bytes cut short: the header's region leaves the buffer */
  m.data[36] = 'X';
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_ERR_FORMAT);
  m.data[36] = 'V';
  /* shrink the declared raw bytes: the constant no longer fits */
  tp__put_le64(m.data + 22, 64);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "exceeds the 64 raw bytes");
  TPT_CHECK(u.values == NULL);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, vkc.physical, vkc.device, vkc.family, 0, NULL),
             TP_ERR_INVALID);
  tp_membuf_free(&m);
}

int main(void) {
  int rc;
  char tmpl[] = "/tmp/tp-vkrt-cache-XXXXXX";
  (void)tpt_range;
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  if (mkdtemp(tmpl)) setenv("XDG_CACHE_HOME", tmpl, 1);
  rc = vkc_setup();
  if (rc != 0) {
    vkc_teardown();
    if (rc == 77) printf("vkrt_upload: skipped, no Vulkan device\n");
    return rc;
  }
  make_model();
  TPT_RUN(test_inline_upload);
  TPT_RUN(test_forced_staging);
  TPT_RUN(test_named_upload);
  TPT_RUN(test_other_constants);
  TPT_RUN(test_malformed);
  TPT_RUN(test_shared_constant);
  vkc_teardown();
  rmdir(tmpl);
  return tpt_finish("vkrt_upload");
}
