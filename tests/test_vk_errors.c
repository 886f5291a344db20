/* tensorpack_vulkan.h: every error path with its exact status and message; the first failure
   sticks, a failed graph writes nothing (no bytes into the sink, no file). */
#include "tensorpack_vulkan.h"
#include "tp_test.h"

static const char *kPath = "/tmp/tp_test_vk_errors.vkblob";

static int file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* After a failure with status want: later calls return it, nothing is written. */
static void check_stuck(tp_vk_graph *g, tp_status want) {
  tp_membuf m;
  tp_sink sink;
  uint64_t size = 12345;
  uint32_t id = 777;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_graph_status(g), want);
  TPT_STATUS(tp_vk_add_null(g, &id), want);
  TPT_EQ_INT(id, 777);
  TPT_STATUS(tp_vk_add_int(g, 1, NULL), want);
  TPT_STATUS(tp_vk_set_overrides(g, TP_VK_STORAGE_DEFAULT, TP_VK_LAYOUT_DEFAULT), want);
  TPT_STATUS(tp_vk_blob_size(g, &size), want);
  TPT_EQ_U64(size, 0); /* a failed size call leaves 0 (every writer object) */
  TPT_STATUS(tp_vk_write(g, &sink), want);
  TPT_EQ_U64(m.size, 0);
  remove(kPath);
  TPT_STATUS(tp_vk_write_file(g, kPath), want);
  TPT_CHECK(!file_exists(kPath));
  tp_membuf_free(&m);
}

static tp_vk_graph *fresh(void) {
  tp_vk_graph *g = NULL;
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  return g;
}

static void test_create_misuse(void) {
  TPT_STATUS(tp_vk_graph_create(NULL, NULL), TP_ERR_INVALID);
  tp_vk_graph_destroy(NULL);
}

static void test_unknown_datatype(void) {
  tp_vk_graph *g = fresh();
  tp_vk_tensor_desc desc;
  size_t d[1] = {2};
  uint32_t id = 5;
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, (tp_vk_datatype)99, 1, d, NULL, &id), TP_ERR_INVALID);
  TPT_EQ_INT(id, 5);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 1: unknown tensor datatype 99");
  TPT_EQ_INT(tp_vk_graph_num_values(g), 1);
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_UNSET, 1, d, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: unknown tensor datatype 127");
  tp_vk_graph_destroy(g);

  g = fresh();
  desc = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, d, NULL);
  desc.staging = (tp_vk_datatype)8;
  TPT_STATUS(tp_vk_add_tensor_desc(g, &desc, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: unknown staging datatype 8");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);
}

/* Storage and layout are tp_vk_storage / tp_vk_layout (0 default, the schema's value + 1) for a
   tensor (test_vk_specs: test_desc_refused) and for the graph's overrides alike: a value
   outside the enum is refused, naming it. */
static void test_unknown_storage_and_layout(void) {
  tp_vk_graph *g = fresh();
  tp_vk_tensor_desc desc;
  size_t d[1] = {2};
  desc = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, d, NULL);
  desc.storage = (tp_vk_storage)-1; /* the old sentinel is no value */
  TPT_STATUS(tp_vk_add_tensor_desc(g, &desc, NULL), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_set_overrides(g, (tp_vk_storage)4, TP_VK_LAYOUT_DEFAULT), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "graph: storage override 4 is not a tp_vk_storage (0 "
                                   "default, 1 BUFFER, 2 TEXTURE_3D, 3 TEXTURE_2D)");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_set_overrides(g, TP_VK_STORAGE_DEFAULT, (tp_vk_layout)255), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "graph: layout override 255 is not a tp_vk_layout (0 "
                                   "default, 1-7, 9, 10: the schema's value + 1)");
  tp_vk_graph_destroy(g);

  /* every value of both enums is taken */
  g = fresh();
  TPT_STATUS(tp_vk_set_overrides(g, TP_VK_STORAGE_TEXTURE_2D, TP_VK_LAYOUT_PACKED_INT8_CONV2D),
             TP_OK);
  desc = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, d, NULL);
  desc.storage = TP_VK_STORAGE_TEXTURE_2D;
  desc.layout = TP_VK_LAYOUT_PACKED_INT8_CONV2D;
  TPT_STATUS(tp_vk_add_tensor_desc(g, &desc, NULL), TP_OK);
  tp_vk_graph_destroy(g);
}

static void test_arg_id_does_not_exist(void) {
  tp_vk_graph *g = fresh();
  uint32_t args[3] = {0, 5, 1};
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.add.Tensor", args, 3), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "operator 0: id 5 (item 1) does not exist; the graph has 2 values");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  args[0] = 1; /* itself: a value list may only name values that already exist */
  TPT_STATUS(tp_vk_add_value_list(g, args, 1, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "value list 1: id 1 (item 0) does not exist; the graph has 1 values");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  args[0] = 0;
  args[1] = 1;
  TPT_STATUS(tp_vk_set_io(g, args, 1, args + 1, 1), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "graph outputs: id 1 (item 0) does not exist; the graph has 1 values");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_set_io(g, args + 1, 1, NULL, 0), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "graph inputs: id 1 (item 0) does not exist; the graph has 0 values");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 0, "x", NULL, 2), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "operator 0: 2 ids given as NULL");
  tp_vk_graph_destroy(g);
}

static void test_constant_mismatch(void) {
  float w[30];
  int32_t iw[32];
  int64_t sz[2] = {5, 6}, isz[2] = {4, 8};
  size_t d[2] = {4, 8};
  tp_storage st;
  tp_tensor t, ti;
  tp_vk_graph *g;
  int i;
  for (i = 0; i < 30; i++) w[i] = (float)i;
  for (i = 0; i < 32; i++) iw[i] = i;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  st.data = iw;
  st.nbytes = sizeof iw;
  TPT_STATUS(tp_view(st, TP_I32, 2, isz, NULL, 0, &ti, NULL), TP_OK);

  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, d, &t, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: constant has 30 elements but the dims hold 32");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  /* an int32 view cannot back a FLOAT32 tensor (4 bytes each, but not the same numbers) */
  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, d, &ti, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_vk_graph_error(g), "value 0: constant view is i32 but the tensor is FLOAT32");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  /* f32 -> INT64 is no conversion we do */
  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_INT64, 2, NULL, &t, NULL), TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  /* dims NULL: ndim must be the constant's; no constant: no dims to take */
  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 3, NULL, &t, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "value 0: dims is NULL but ndim 3 differs from the constant's 2");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "value 0: dims is NULL and there is no constant to take 2 dims from");
  tp_vk_graph_destroy(g);
}

static void test_bad_view(void) {
  float w[8] = {0};
  tp_tensor t;
  tp_status want;
  tp_error e;
  tp_vk_graph *g = fresh();
  size_t d[1] = {8};
  memset(&t, 0, sizeof t);
  t.storage.data = w;
  t.storage.nbytes = sizeof w;
  t.dtype = TP_F32;
  t.ndim = 1;
  t.sizes[0] = 8;
  t.strides[0] = 1;
  t.offset = 4; /* reaches past the storage */
  memset(&e, 0, sizeof e);
  want = tp_tensor_check(&t, &e);
  TPT_CHECK(want != TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, d, &t, NULL), want);
  TPT_CONTAINS(tp_vk_graph_error(g), "value 0: constant view: ");
  TPT_CHECK(strstr(tp_vk_graph_error(g), e.msg) != NULL);
  check_stuck(g, want);
  tp_vk_graph_destroy(g);
}

static void test_dim_too_large(void) {
  tp_vk_graph *g = fresh();
  size_t d[2] = {2, 0};
  if (sizeof(size_t) > 4) {
    d[1] = (size_t)UINT32_MAX + 1u;
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, d, NULL, NULL),
               TP_ERR_OVERFLOW);
    TPT_EQ_STR(tp_vk_graph_error(g), "value 0: dim 1 is 4294967296, more than a u32 holds");
    check_stuck(g, TP_ERR_OVERFLOW);
  } else {
    TPT_CHECK(1);
  }
  tp_vk_graph_destroy(g);
}

static void test_null_arguments(void) {
  tp_vk_graph *g = fresh();
  TPT_STATUS(tp_vk_add_string(g, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: string is NULL");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_op(g, 3, NULL, NULL, 0), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "operator 0: name is NULL");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_int_list(g, NULL, 3, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: an int list of 3 items has NULL items");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_double_list(g, NULL, 1, NULL), TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_bool_list(g, NULL, 1, NULL), TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_value_list(g, NULL, 1, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value list 0: 1 ids given as NULL");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_shader(g, NULL, 4, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "shader 0: bytes are NULL");
  check_stuck(g, TP_ERR_INVALID);
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_add_shader(g, "abc", 0, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "shader 0: has 0 bytes");
  tp_vk_graph_destroy(g);

  g = fresh();
  TPT_STATUS(tp_vk_write(g, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_vk_write_file(g, NULL), TP_ERR_INVALID);
  /* a write's failure: reported, not latched (the next write clears it) */
  TPT_STATUS(tp_vk_graph_status(g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "tp_vk_write_file: the path is NULL or empty");
  TPT_STATUS(tp_vk_add_null(g, NULL), TP_OK); /* building still works */
  tp_vk_graph_destroy(g);
}

/* A sink that fails after `left` bytes. */
typedef struct failing {
  size_t left;
  size_t got;
} failing;
static tp_status failing_write(void *ctx, const void *data, size_t n) {
  failing *f = (failing *)ctx;
  (void)data;
  if (n > f->left) return TP_ERR_IO;
  f->left -= n;
  f->got += n;
  return TP_OK;
}

static void test_sink_failure(void) {
  float w[64];
  int64_t sz[2] = {8, 8};
  tp_storage st;
  tp_tensor t, tt;
  tp_vk_graph *g = fresh();
  failing f;
  tp_sink sink;
  uint64_t size = 0;
  tp_membuf m;
  int i;
  for (i = 0; i < 64; i++) w[i] = (float)i;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&t, 0, 1, &tt, NULL), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 2, NULL, &tt, NULL), TP_OK);
  TPT_STATUS(tp_vk_blob_size(g, &size), TP_OK);
  for (i = 0; i < 3; i++) {
    f.left = i == 0 ? 10 : i == 1 ? 100 : (size_t)size - 1; /* header, flatbuffer, constant */
    f.got = 0;
    sink.write = failing_write;
    sink.ctx = &f;
    TPT_STATUS(tp_vk_write(g, &sink), TP_ERR_IO);
    TPT_CHECK(f.got < size);
  }
  /* an I/O failure is the write's, not the graph's: reported until the next write, which
     succeeds */
  TPT_STATUS(tp_vk_graph_status(g), TP_ERR_IO);
  TPT_CONTAINS(tp_vk_graph_error(g), "tp_vk_write: the sink failed (i/o error) at byte ");
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  TPT_EQ_U64(m.size, size);
  tp_membuf_free(&m);
  /* a file in a directory that does not exist: TP_ERR_IO, nothing left behind */
  TPT_STATUS(tp_vk_write_file(g, "/nonexistent-dir-tp/x.vkblob"), TP_ERR_IO);
  tp_vk_graph_destroy(g);
}

/* The error path leaves earlier values alone and ids stay in call order. */
static void test_ids_after_success(void) {
  tp_vk_graph *g = fresh();
  uint32_t a = 9, b = 9, c = 9;
  TPT_STATUS(tp_vk_add_int(g, 5, &a), TP_OK);
  TPT_STATUS(tp_vk_add_int(g, 5, &b), TP_OK); /* no dedup: a second value */
  TPT_STATUS(tp_vk_add_double(g, 5.0, &c), TP_OK);
  TPT_EQ_INT(a, 0);
  TPT_EQ_INT(b, 1);
  TPT_EQ_INT(c, 2);
  TPT_EQ_STR(tp_vk_graph_error(g), "");
  tp_vk_graph_destroy(g);
}

/* tp_vk_graph_tensor and tp_vk_graph_io: what a wrapper reads back (datatype as written after
   force_fp16, the staging datatype, dims, constant or not; the io lists); a value that is not a
   tensor, an id past the values and a NULL out are TP_ERR_INVALID with out zeroed. */
static void test_graph_tensor_and_io(void) {
  static float w[6] = {1, 2, 3, 4, 5, 6};
  int64_t wsz[2] = {2, 3};
  size_t xd[3] = {1, 2, 3};
  tp_storage st;
  tp_tensor wv;
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_vk_tensor_info ti;
  const uint32_t *in = NULL, *out = NULL;
  size_t n_in = 9, n_out = 9;
  uint32_t x, c, k;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, wsz, NULL, 0, &wv, NULL), TP_OK);
  memset(&o, 0, sizeof o);
  o.force_fp16 = 1;
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 3, xd, NULL, &x), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 0, NULL, &wv, &c), TP_OK);
  TPT_STATUS(tp_vk_add_int(g, 7, &k), TP_OK);
  TPT_STATUS(tp_vk_graph_tensor(g, x, &ti), TP_OK);
  TPT_EQ_INT(ti.datatype, TP_VK_FLOAT16);
  TPT_EQ_INT(ti.staging, TP_VK_FLOAT32);
  TPT_EQ_U64(ti.ndim, 3);
  TPT_EQ_INT(ti.dims[0], 1);
  TPT_EQ_INT(ti.dims[2], 3);
  TPT_EQ_INT(ti.is_constant, 0);
  TPT_STATUS(tp_vk_graph_tensor(g, c, &ti), TP_OK);
  TPT_EQ_U64(ti.ndim, 2);
  TPT_EQ_INT(ti.dims[1], 3);
  TPT_EQ_INT(ti.is_constant, 1);
  TPT_STATUS(tp_vk_graph_tensor(g, k, &ti), TP_ERR_INVALID);
  TPT_EQ_U64(ti.ndim, 0);
  TPT_STATUS(tp_vk_graph_tensor(g, 99, &ti), TP_ERR_INVALID);
  TPT_STATUS(tp_vk_graph_tensor(g, x, NULL), TP_ERR_INVALID);
  tp_vk_graph_io(g, &in, &n_in, &out, &n_out);
  TPT_EQ_U64(n_in, 0);
  TPT_EQ_U64(n_out, 0);
  TPT_STATUS(tp_vk_set_io(g, &x, 1, &c, 1), TP_OK);
  tp_vk_graph_io(g, &in, &n_in, &out, &n_out);
  TPT_EQ_U64(n_in, 1);
  TPT_EQ_U64(n_out, 1);
  TPT_EQ_INT(in[0], x);
  TPT_EQ_INT(out[0], c);
  tp_vk_graph_io(g, NULL, NULL, NULL, NULL); /* each out may be NULL */
  TPT_EQ_STR(tp_vk_graph_error(g), "");
  tp_vk_graph_destroy(g);
}

int main(void) {
  (void)tpt_range; /* the harness's helpers this suite does not use */
  TPT_RUN(test_create_misuse);
  TPT_RUN(test_unknown_datatype);
  TPT_RUN(test_unknown_storage_and_layout);
  TPT_RUN(test_arg_id_does_not_exist);
  TPT_RUN(test_constant_mismatch);
  TPT_RUN(test_bad_view);
  TPT_RUN(test_dim_too_large);
  TPT_RUN(test_null_arguments);
  TPT_RUN(test_sink_failure);
  TPT_RUN(test_ids_after_success);
  TPT_RUN(test_graph_tensor_and_io);
  remove(kPath);
  return tpt_finish("vk_errors");
}
