/* PyTorch layouts (issue 25), without XNNPACK: the helpers' views hold, element by element,
   what XNNPACK's layout wants from the PyTorch weight (no copy: the same storage), and the
   _torch define calls refuse what they cannot take with a sentence (the numerics on the real
   XNNPACK are tests/xnnrt_torch_layouts.c). */
#include "tp_count_alloc.h"
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static float g_w[2 * 3 * 4 * 5 * 6];

static tp_tensor view(int ndim, const int64_t *sz) {
  tp_storage s;
  tp_tensor t;
  s.data = g_w;
  s.nbytes = sizeof g_w;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, TP_F32, ndim, sz, NULL, 0, &t, NULL), TP_OK);
  return t;
}

/* the element of v at idx (no copy: through its strides) */
static float at(const tp_tensor *v, const int64_t *idx) {
  int64_t off = v->offset;
  int i;
  for (i = 0; i < v->ndim; i++) off += idx[i] * v->strides[i];
  return ((const float *)v->storage.data)[off];
}

static void init(void) {
  size_t i;
  for (i = 0; i < sizeof g_w / sizeof g_w[0]; i++) g_w[i] = (float)i;
}

static void test_conv_and_depthwise_views(void) {
  int64_t sz[4] = {6, 4, 3, 2}, o, i, y, x; /* OIHW: O 6, I 4, kh 3, kw 2 */
  int64_t dsz[4] = {6, 1, 3, 2};
  tp_tensor w = view(4, sz), f, dw = view(4, dsz);
  tp_error e;
  int bad = 0;
  TPT_STATUS(tp_xnn_conv_filter_from_torch(&w, &f, &e), TP_OK);
  TPT_EQ_INT(f.ndim, 4);
  TPT_CHECK(f.sizes[0] == 6 && f.sizes[1] == 3 && f.sizes[2] == 2 && f.sizes[3] == 4);
  TPT_CHECK(f.storage.data == (const void *)g_w); /* a view, not a copy */
  for (o = 0; o < 6; o++)
    for (y = 0; y < 3; y++)
      for (x = 0; x < 2; x++)
        for (i = 0; i < 4; i++) {
          int64_t idx[4];
          idx[0] = o; idx[1] = y; idx[2] = x; idx[3] = i;
          bad += at(&f, idx) != g_w[((o * 4 + i) * 3 + y) * 2 + x];
        }
  TPT_EQ_INT(bad, 0);
  TPT_STATUS(tp_xnn_depthwise_filter_from_torch(&dw, &f, &e), TP_OK);
  TPT_CHECK(f.sizes[0] == 1 && f.sizes[1] == 3 && f.sizes[2] == 2 && f.sizes[3] == 6);
  for (o = 0; o < 6; o++)
    for (y = 0; y < 3; y++)
      for (x = 0; x < 2; x++) {
        int64_t idx[4];
        idx[0] = 0; idx[1] = y; idx[2] = x; idx[3] = o;
        bad += at(&f, idx) != g_w[(o * 3 + y) * 2 + x];
      }
  TPT_EQ_INT(bad, 0);
  /* refusals */
  TPT_STATUS(tp_xnn_depthwise_filter_from_torch(&w, &f, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_depthwise_filter_from_torch: the weight is [6, 4, 3, 2]; a "
                    "depthwise weight has 1 input channel per group (dim 1 == 1)");
  sz[0] = 24;
  w = view(3, sz);
  TPT_STATUS(tp_xnn_conv_filter_from_torch(&w, &f, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_conv_filter_from_torch: the weight has 3 dims; PyTorch's Conv2d "
                    "weight [O, I/groups, kh, kw] has 4");
  TPT_STATUS(tp_xnn_conv_filter_from_torch(NULL, &f, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_xnn_conv_filter_from_torch(NULL, &f, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_conv_filter_from_torch: the weight view is NULL");
  TPT_STATUS(tp_xnn_conv_filter_from_torch(&w, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_conv_filter_from_torch: out is NULL");
}

static void test_deconv_and_conv1d_views(void) {
  int64_t sz[4] = {4, 3, 2, 5}, i, o, y, x, g; /* ConvTranspose2d [I 4, O/g 3, kh 2, kw 5] */
  int64_t c1[2] = {5, 7};
  tp_tensor w = view(4, sz), f, c = view(2, c1);
  tp_error e;
  int bad = 0;
  TPT_STATUS(tp_xnn_deconv_filter_from_torch(&w, 1, &f, &e), TP_OK); /* [O 3, 2, 5, I 4] */
  TPT_CHECK(f.ndim == 4 && f.sizes[0] == 3 && f.sizes[1] == 2 && f.sizes[2] == 5 &&
            f.sizes[3] == 4);
  for (o = 0; o < 3; o++)
    for (y = 0; y < 2; y++)
      for (x = 0; x < 5; x++)
        for (i = 0; i < 4; i++) {
          int64_t idx[4];
          idx[0] = o; idx[1] = y; idx[2] = x; idx[3] = i;
          bad += at(&f, idx) != g_w[((i * 3 + o) * 2 + y) * 5 + x];
        }
  TPT_EQ_INT(bad, 0);
  /* groups 2: [g 2, O/g 3, kh, kw, I/g 2]; out channel g*3+o, in channel g*2+i */
  TPT_STATUS(tp_xnn_deconv_filter_from_torch(&w, 2, &f, &e), TP_OK);
  TPT_CHECK(f.ndim == 5 && f.sizes[0] == 2 && f.sizes[1] == 3 && f.sizes[4] == 2);
  for (g = 0; g < 2; g++)
    for (o = 0; o < 3; o++)
      for (y = 0; y < 2; y++)
        for (x = 0; x < 5; x++)
          for (i = 0; i < 2; i++) {
            int64_t idx[5];
            idx[0] = g; idx[1] = o; idx[2] = y; idx[3] = x; idx[4] = i;
            bad += at(&f, idx) != g_w[(((g * 2 + i) * 3 + o) * 2 + y) * 5 + x];
          }
  TPT_EQ_INT(bad, 0);
  TPT_STATUS(tp_xnn_deconv_filter_from_torch(&w, 3, &f, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_deconv_filter_from_torch: groups 3 must be >= 1 and divide the "
                    "weight's 4 input channels");
  TPT_STATUS(tp_xnn_deconv_filter_from_torch(&w, 0, &f, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "tp_xnn_deconv_filter_from_torch: groups 0 must be >= 1 and divide the "
                    "weight's 4 input channels");
  /* Conv1D [in 5, out 7] -> [7, 5] */
  TPT_STATUS(tp_xnn_fc_filter_from_conv1d(&c, &f, &e), TP_OK);
  TPT_CHECK(f.ndim == 2 && f.sizes[0] == 7 && f.sizes[1] == 5);
  for (o = 0; o < 7; o++)
    for (i = 0; i < 5; i++) {
      int64_t idx[2];
      idx[0] = o; idx[1] = i;
      bad += at(&f, idx) != g_w[i * 7 + o];
    }
  TPT_EQ_INT(bad, 0);
  TPT_STATUS(tp_xnn_fc_filter_from_conv1d(&w, &f, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "Conv1D weight [in, out] has 2");
}

static tp_xnn_graph *graph(uint32_t *x, uint32_t *y) {
  tp_xnn_graph *g = NULL;
  size_t din[4] = {1, 5, 5, 4}, dout[4] = {1, 3, 4, 6};
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, din, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dout, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, y), TP_OK);
  return g;
}

static void test_define_refusals(void) {
  int64_t sz[4] = {6, 4, 3, 2}, bsz[1] = {5};
  tp_tensor w = view(4, sz), b = view(1, bsz), w8;
  tp_xnn_conv2d_args a;
  tp_xnn_graph *g;
  uint32_t x, y, fid = 7, bid = 7;
  size_t live, before;
  /* conv2d(4 -> 6, 3x2): input [1,5,5,4] -> output [1,3,4,6] */
  g = graph(&x, &y);
  if (!g) return;
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, NULL, x, &w, NULL, y, &fid, &bid), TP_OK);
  TPT_CHECK(fid != TP_XNN_INVALID_ID && bid == TP_XNN_INVALID_ID);
  TPT_EQ_U64(tp_xnn_graph_num_nodes(g), 1);
  /* a bias of the wrong size: refused, latched */
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, NULL, x, &w, &b, y, &fid, &bid), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "node 1 (conv2d_torch): the bias has 1 dims (first 5); the "
                                    "weight has 6 output channels, so the bias must be [6]");
  TPT_CHECK(fid == TP_XNN_INVALID_ID);
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, NULL, x, &w, NULL, y, NULL, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_xnn_graph_error(g), "node 1 (conv2d_torch): the bias has 1 dims"); /* latched */
  tp_xnn_graph_destroy(g);
  /* groups that do not divide; a weight of another rank; an int8 weight */
  g = graph(&x, &y);
  memset(&a, 0, sizeof a);
  a.groups = 4;
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, &a, x, &w, NULL, y, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "node 0 (conv2d_torch): groups 4 does not divide the "
                                    "weight's 6 output channels");
  tp_xnn_graph_destroy(g);
  g = graph(&x, &y);
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, NULL, x, &b, NULL, y, NULL, NULL), TP_ERR_INVALID);
  TPT_CONTAINS(tp_xnn_graph_error(g), "the weight has 1 dims; PyTorch's Conv2d weight");
  tp_xnn_graph_destroy(g);
  g = graph(&x, &y);
  w8 = w;
  w8.dtype = TP_I8;
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, NULL, x, &w8, NULL, y, NULL, NULL), TP_ERR_UNSUPPORTED);
  TPT_CONTAINS(tp_xnn_graph_error(g), "the weight is ");
  TPT_CONTAINS(tp_xnn_graph_error(g), "this call takes F32 or F16");
  tp_xnn_graph_destroy(g);
  /* the node rules still check the rest: an output of the wrong height */
  g = graph(&x, &y);
  memset(&a, 0, sizeof a);
  a.padding[0] = 1;
  TPT_STATUS(tp_xnn_define_conv2d_torch(g, &a, x, &w, NULL, y, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_xnn_graph_error(g), "convolution_2d #0: output 1 is [1, 3, 4, 6], the input "
                                    "[1, 5, 5, 4] and the window give height 5 and width 4");
  tp_xnn_graph_destroy(g);
  /* grouped ConvTranspose2d copies its filter once, the graph frees it */
  live = g_live;
  {
    int64_t dsz[4] = {4, 3, 3, 3};
    size_t din[4] = {1, 2, 2, 4}, dout[4] = {1, 5, 5, 6};
    tp_tensor dw = view(4, dsz);
    TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, din, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, dout, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    memset(&a, 0, sizeof a);
    a.groups = 2;
    a.stride[0] = a.stride[1] = 2;
    before = g_live;
    TPT_STATUS(tp_xnn_define_conv_transpose2d_torch(g, &a, x, &dw, NULL, y, &fid, NULL), TP_OK);
    {
      tp_xnn_value_info vi;
      TPT_STATUS(tp_xnn_graph_value(g, fid, &vi), TP_OK);
      TPT_CHECK(vi.num_dims == 4 && vi.dims[0] == 6 && vi.dims[1] == 3 && vi.dims[3] == 2);
    }
    TPT_CHECK(g_live > before); /* the copy */
    { /* tp_xnn_save: the blob's size, the blob's bytes in the file; a bad path: the status,
         no size. The name carries a per-run tag: native, s390x and Windows runs share /tmp. */
      uint64_t want = 0, n = 9;
      size_t fn = 0;
      char path[600], d[512], *file;
      tp_membuf mb;
      tp_sink sk;
      tpt_tmpdir(d, sizeof d);
      snprintf(path, sizeof path, "%s/tp_xnn_torch_test_%u.xnn", d,
               (unsigned)time(NULL) ^ (unsigned)clock() * 2654435761u);
      TPT_STATUS(tp_xnn_blob_size(g, &want), TP_OK);
      TPT_STATUS(tp_xnn_save(g, path, &n), TP_OK);
      TPT_EQ_U64(n, want);
      memset(&mb, 0, sizeof mb);
      sk = tp_sink_membuf(&mb);
      TPT_STATUS(tp_xnn_write(g, &sk), TP_OK);
      file = tpt_read_file(path, &fn);
      TPT_CHECK(file != NULL);
      TPT_EQ_U64(fn, want);
      TPT_CHECK(file && fn == mb.size && memcmp(file, mb.data, fn) == 0);
      free(file);
      tp_membuf_free(&mb);
      remove(path);
      printf("  (an \"error: ...\" line on stderr is expected next)\n");
      fflush(stdout);
      TPT_STATUS(tp_xnn_save(g, "no_such_dir_tp_xnn_torch/x.xnn", &n), TP_ERR_IO);
      TPT_EQ_U64(n, 0);
    }
    tp_xnn_graph_destroy(g);
    TPT_EQ_U64(g_live, live);
  }
}

int main(void) {
  (void)tpt_range;
  init();
  TPT_RUN(test_conv_and_depthwise_views);
  TPT_RUN(test_deconv_and_conv1d_views);
  TPT_RUN(test_define_refusals);
  return tpt_finish("xnn_torch");
}
