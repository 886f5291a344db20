/* tensorpack_vulkan.h: compile specs encoded as ExecuTorch's Vulkan partitioner writes them (key
   strings, 4-byte little-endian values, what VulkanBackend.cpp get_graph_config reads; zero =
   none given), and tp_vk_tensor_desc (zero = default) landing in the blob as the schema's
   values. */
#include "tensorpack_vulkan.h"
#include "tp_test.h"

static void test_compile_specs_encoding(void) {
  tp_vk_compile_specs cs;
  tp_pte_compile_spec out[TP_VK_MAX_COMPILE_SPECS];
  size_t n = 99;
  tp_error err;
  static const unsigned char buffer[4] = {0, 0, 0, 0}, channels[4] = {2, 0, 0, 0},
                             tex2d[4] = {2, 0, 0, 0}, c1w[4] = {8, 0, 0, 0};
  /* zeroed: nothing given, no compile spec */
  memset(&cs, 0, sizeof cs);
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 0);
  TPT_STATUS(tp_vk_encode_compile_specs(NULL, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 0);
  /* BUFFER storage (the schema's 0): one spec */
  cs.storage = TP_VK_STORAGE_BUFFER;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 1);
  TPT_EQ_STR(out[0].key, "storage_type_override");
  TPT_EQ_U64(out[0].nbytes, 4);
  TPT_MEMEQ(out[0].value, buffer, 4);
  /* both, storage first */
  cs.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 2);
  TPT_EQ_STR(out[1].key, "memory_layout_override");
  TPT_MEMEQ(out[1].value, channels, 4);
  /* layout only */
  cs.storage = TP_VK_STORAGE_DEFAULT;
  cs.layout = TP_VK_LAYOUT_PACKED_INT8_4C1W;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 1);
  TPT_EQ_STR(out[0].key, "memory_layout_override");
  TPT_MEMEQ(out[0].value, c1w, 4);
  cs.storage = TP_VK_STORAGE_TEXTURE_2D;
  cs.layout = TP_VK_LAYOUT_DEFAULT;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 1);
  TPT_MEMEQ(out[0].value, tex2d, 4);
}

static void test_compile_specs_refused(void) {
  tp_vk_compile_specs cs;
  tp_pte_compile_spec out[TP_VK_MAX_COMPILE_SPECS];
  size_t n = 99;
  tp_error err;
  const char *want_st = "compile specs: storage 4 is not a tp_vk_storage (0 default, 1 BUFFER, "
                        "2 TEXTURE_3D, 3 TEXTURE_2D)";
  const char *want_ml = "compile specs: layout 10 is not a memory layout the runtime knows (a "
                        "tp_vk_layout 1-7 or 9, or 0 for none)";
  memset(&cs, 0, sizeof cs);
  cs.storage = (tp_vk_storage)4;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_ERR_INVALID);
  TPT_EQ_U64(n, 0);
  TPT_EQ_STR(err.msg, want_st);
  /* err is reset on entry: the next failure is its own */
  cs.storage = TP_VK_STORAGE_DEFAULT;
  cs.layout = TP_VK_LAYOUT_PACKED_INT8_CONV2D; /* the runtime's enum has no schema value 9 */
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, want_ml);
  cs.layout = (tp_vk_layout)8; /* the schema has no 7 */
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, NULL), TP_ERR_INVALID);
  cs.layout = (tp_vk_layout)-1;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, NULL, &n, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "compile specs: NULL out or count");
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, NULL, NULL), TP_ERR_INVALID);
  /* after a failure, a good call succeeds (err reset) */
  cs.layout = TP_VK_LAYOUT_WIDTH_PACKED;
  TPT_STATUS(tp_vk_encode_compile_specs(&cs, out, &n, &err), TP_OK);
  TPT_EQ_U64(n, 1);
  TPT_EQ_STR(err.msg, "");
}

static float g_w[24];

static int write_blob(tp_vk_graph *g, tp_membuf *m) {
  tp_sink sink;
  memset(m, 0, sizeof *m);
  sink = tp_sink_membuf(m);
  return tp_vk_write(g, &sink) == TP_OK;
}

/* The desc's zeros are the schema's defaults (255, 255, the datatype for staging, mem_obj_id -1)
   and its other values land as the schema's (the enum value - 1): inline, named and under
   force_fp16, read back with tp_vk_read_blob. */
static void test_desc_fields(void) {
  int mode;
  for (mode = 0; mode < 3; mode++) {
    tp_vk_graph *g = NULL;
    tp_vk_options o;
    tp_store *store = NULL;
    tp_storage st;
    tp_tensor v, w;
    int64_t sz[2] = {6, 4};
    size_t xd[2] = {1, 6}, yd[2] = {1, 4};
    tp_vk_tensor_desc d;
    tp_vk_blob rb;
    tp_membuf m;
    uint32_t ids[4], k;
    int f16 = mode == 2 ? TP_VK_FLOAT16 : TP_VK_FLOAT32;
    for (k = 0; k < 24; k++) g_w[k] = (float)k - 7.5f;
    st.data = g_w;
    st.nbytes = sizeof g_w;
    TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &v, NULL), TP_OK);
    TPT_STATUS(tp_transpose(&v, 0, 1, &w, NULL), TP_OK);
    memset(&o, 0, sizeof o);
    o.force_fp16 = mode == 2;
    if (mode == 1) TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
    o.store = store;
    TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, xd, NULL, &ids[0]), TP_OK);
    memset(&d, 0, sizeof d);
    d.datatype = TP_VK_FLOAT32;
    d.constant = &w; /* ndim 0, dims NULL: the constant's */
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &ids[1]), TP_OK);
    TPT_STATUS(tp_vk_add_null(g, &ids[2]), TP_OK);
    d = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 2, yd, NULL);
    d.shares_memory = 1; /* mem_obj_id 0 */
    d.storage = TP_VK_STORAGE_BUFFER;
    d.layout = TP_VK_LAYOUT_WIDTH_PACKED;
    d.staging = TP_VK_FLOAT32;
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &ids[3]), TP_OK);
    memset(&d, 0, sizeof d); /* a 0-dim BOOL tensor: datatype 0 */
    d.storage = TP_VK_STORAGE_TEXTURE_2D;
    d.layout = TP_VK_LAYOUT_PACKED_INT8_CONV2D;
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, NULL), TP_OK);
    TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", ids, 4), TP_OK);
    memset(&rb, 0, sizeof rb);
    if (write_blob(g, &m) && tp_vk_read_blob(m.data, m.size, NULL, &rb, NULL) == TP_OK &&
        rb.num_values == 5) {
      const tp_vk_blob_value *x = &rb.values[0], *c = &rb.values[1], *y = &rb.values[3],
                             *b = &rb.values[4];
      TPT_EQ_INT(x->datatype, f16);
      TPT_EQ_INT(x->storage_type, 255);
      TPT_EQ_INT(x->memory_layout, 255);
      TPT_EQ_INT(x->staging_datatype, TP_VK_FLOAT32); /* a non-constant keeps FLOAT32 staging */
      TPT_EQ_INT(x->mem_obj_id, -1);
      TPT_CHECK(c->is_constant && c->ndim == 2 && c->dims[0] == 4 && c->dims[1] == 6);
      TPT_EQ_INT(c->staging_datatype, f16);
      TPT_CHECK(mode == 1 ? c->key != NULL : c->key == NULL);
      TPT_EQ_INT(y->storage_type, TP_VK_BUFFER);
      TPT_EQ_INT(y->memory_layout, TP_VK_TENSOR_WIDTH_PACKED);
      TPT_EQ_INT(y->staging_datatype, TP_VK_FLOAT32);
      TPT_EQ_INT(y->mem_obj_id, 0);
      TPT_EQ_INT(b->datatype, TP_VK_BOOL);
      TPT_EQ_INT(b->storage_type, TP_VK_TEXTURE_2D);
      TPT_EQ_INT(b->memory_layout, TP_VK_PACKED_INT8_CONV2D);
      TPT_EQ_INT(b->staging_datatype, TP_VK_BOOL);
      TPT_EQ_U64(b->ndim, 0);
    } else {
      TPT_CHECK(0);
    }
    tp_vk_blob_free(&rb);
    tp_membuf_free(&m);
    tp_vk_graph_destroy(g);
    tp_store_destroy(store);
  }
}

static void desc_refused(const tp_vk_tensor_desc *d, const char *want) {
  tp_vk_graph *g = NULL;
  uint32_t id = 77;
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  TPT_STATUS(tp_vk_add_tensor_desc(g, d, &id), TP_ERR_INVALID);
  TPT_EQ_INT(id, 77);
  TPT_EQ_STR(tp_vk_graph_error(g), want);
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_ERR_INVALID); /* it sticks */
  TPT_EQ_INT(tp_vk_graph_num_values(g), 1);
  tp_vk_graph_destroy(g);
}

static void test_desc_refused(void) {
  tp_vk_tensor_desc d;
  size_t dims[1] = {4};
  desc_refused(NULL, "value 1: tensor desc is NULL");
  memset(&d, 0, sizeof d);
  d.datatype = TP_VK_FLOAT32;
  d.ndim = 1;
  d.dims = dims;
  d.storage = (tp_vk_storage)4;
  desc_refused(&d, "value 1: desc.storage 4 is not a tp_vk_storage (0 default, 1 BUFFER, "
                   "2 TEXTURE_3D, 3 TEXTURE_2D)");
  d.storage = TP_VK_STORAGE_DEFAULT;
  d.layout = (tp_vk_layout)8; /* the schema has no layout 7 */
  desc_refused(&d, "value 1: desc.layout 8 is not a tp_vk_layout (0 default, 1-7, 9, 10: the "
                   "schema's value + 1)");
  d.layout = TP_VK_LAYOUT_DEFAULT;
  d.mem_obj_id = 3;
  desc_refused(&d, "value 1: desc.mem_obj_id is 3 but desc.shares_memory is 0 (set it to share "
                   "memory object 3)");
  d.shares_memory = 1;
  d.mem_obj_id = -1;
  desc_refused(&d, "value 1: desc.mem_obj_id -1 is negative; a shared memory object id is >= 0");
  d.shares_memory = 0;
  d.mem_obj_id = 0;
  d.dims = NULL; /* no dims, no constant, ndim 1 */
  desc_refused(&d, "value 1: dims is NULL and there is no constant to take 1 dims from");
}

/* A program whose VulkanBackend delegate carries the encoded compile specs. */
static void test_program_compile_specs(void) {
  int k;
  for (k = 0; k < 3; k++) {
    tp_vk_graph *g = NULL;
    tp_pte *p = NULL;
    tp_vk_tensor_desc d;
    tp_vk_compile_specs cs;
    size_t xd[1] = {6}, yd[1] = {4};
    tp_storage st;
    tp_tensor w;
    int64_t sz[2] = {4, 6};
    uint32_t args[4];
    tp_membuf m;
    tp_sink sink;
    tp_pte_file f;
    tp_pte_delegate_info di;
    const char *key = NULL;
    const void *val = NULL;
    size_t nb = 0;
    static const unsigned char zero[4] = {0, 0, 0, 0}, two[4] = {2, 0, 0, 0};
    st.data = g_w;
    st.nbytes = sizeof g_w;
    TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &w, NULL), TP_OK);
    TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
    memset(&cs, 0, sizeof cs);
    memset(&d, 0, sizeof d);
    d.datatype = TP_VK_FLOAT32;
    d.ndim = 1;
    d.dims = xd;
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &args[0]), TP_OK);
    d.ndim = 0;
    d.dims = NULL;
    d.constant = &w;
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &args[1]), TP_OK);
    TPT_STATUS(tp_vk_add_null(g, &args[2]), TP_OK);
    d.constant = NULL;
    d.ndim = 1;
    d.dims = yd;
    TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &args[3]), TP_OK);
    TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", args, 4), TP_OK);
    TPT_STATUS(tp_vk_set_io(g, &args[0], 1, &args[3], 1), TP_OK);
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    if (k == 2) { /* a value the runtime does not know: latched in the program */
      const char *want = "method \"forward\": compile specs: storage 5 is not a tp_vk_storage "
                         "(0 default, 1 BUFFER, 2 TEXTURE_3D, 3 TEXTURE_2D)";
      cs.storage = (tp_vk_storage)5;
      TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, &cs), TP_ERR_INVALID);
      TPT_EQ_STR(tp_pte_error(p), want);
      tp_pte_destroy(p);
      tp_vk_graph_destroy(g);
      continue;
    }
    if (k == 1) {
      cs.storage = TP_VK_STORAGE_BUFFER;
      cs.layout = TP_VK_LAYOUT_CHANNELS_PACKED;
    }
    TPT_STATUS(tp_vk_add_pte_method(p, "forward", g, k ? &cs : NULL), TP_OK);
    memset(&m, 0, sizeof m);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_pte_write(p, &sink), TP_OK);
    TPT_STATUS(tp_pte_read(&f, m.data, m.size), TP_OK);
    TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
    TPT_EQ_STR(di.id, "VulkanBackend");
    TPT_EQ_U64(di.n_specs, k ? 2 : 0);
    if (k == 1 && di.n_specs == 2) {
      TPT_STATUS(tp_pte_compile_spec_at(&f, 0, 0, 0, &key, &val, &nb), TP_OK);
      TPT_EQ_STR(key, "storage_type_override");
      TPT_EQ_U64(nb, 4);
      TPT_MEMEQ(val, zero, 4);
      TPT_STATUS(tp_pte_compile_spec_at(&f, 0, 0, 1, &key, &val, &nb), TP_OK);
      TPT_EQ_STR(key, "memory_layout_override");
      TPT_EQ_U64(nb, 4);
      TPT_MEMEQ(val, two, 4);
    }
    tp_membuf_free(&m);
    tp_pte_destroy(p);
    tp_vk_graph_destroy(g);
  }
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_compile_specs_encoding);
  TPT_RUN(test_compile_specs_refused);
  TPT_RUN(test_desc_fields);
  TPT_RUN(test_desc_refused);
  TPT_RUN(test_program_compile_specs);
  return tpt_finish("vk_specs");
}
