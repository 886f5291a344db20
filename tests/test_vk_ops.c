/* tensorpack_vulkan.h: the operator table (TP_VK_OPS, what ExecuTorch's VulkanBackend registers)
   and tp_vk_add_op's check against it: each refusal with its exact status and sentence, the
   refusal sticks, the option for another runtime turns the check off, and the graphs ExecuTorch
   runs (as measured in notes/executorch-runtime.md) pass. */
#include "tensorpack_vulkan.h"
#define TPDUMP_NO_MAIN
#include "tools/tpdump.c" /* its Vulkan printer names operators the backend does not have */
#include "tp_test.h"

static tp_vk_graph *graph(int other_runtime) {
  tp_vk_graph *g = NULL;
  tp_vk_options o;
  memset(&o, 0, sizeof o);
  o.other_runtime = other_runtime;
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  return g;
}

/* A tensor of datatype dt; layout a schema value (TP_VK_TENSOR_*_PACKED) or -1 for the default. */
static uint32_t tensor_dt(tp_vk_graph *g, tp_vk_datatype dt, size_t ndim, const size_t *dims,
                          int layout) {
  tp_vk_tensor_desc d = tp_vk_tensor_desc_make(dt, ndim, dims, NULL);
  uint32_t id = 0;
  d.layout = (tp_vk_layout)(layout + 1); /* the desc's enum: the schema value + 1, 0 default */
  TPT_STATUS(tp_vk_add_tensor_desc(g, &d, &id), TP_OK);
  return id;
}

static uint32_t tensor(tp_vk_graph *g, size_t ndim, const size_t *dims, int layout) {
  return tensor_dt(g, TP_VK_FLOAT32, ndim, dims, layout);
}

static float g_w[64];
static int8_t g_q[64];

/* A constant [rows, cols] of datatype dt (FLOAT32 over g_w, INT8 over g_q). */
static uint32_t constant_dt(tp_vk_graph *g, tp_vk_datatype dt, int64_t rows, int64_t cols) {
  tp_storage st;
  tp_tensor t;
  int64_t sz[2];
  uint32_t id = 0;
  sz[0] = rows;
  sz[1] = cols;
  st.data = dt == TP_VK_INT8 ? (void *)g_q : (void *)g_w;
  st.nbytes = dt == TP_VK_INT8 ? sizeof g_q : sizeof g_w;
  TPT_STATUS(tp_view(st, dt == TP_VK_INT8 ? TP_I8 : TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, dt, 0, NULL, &t, &id), TP_OK); /* dims: the constant's */
  return id;
}

static uint32_t constant(tp_vk_graph *g, int64_t rows, int64_t cols) {
  return constant_dt(g, TP_VK_FLOAT32, rows, cols);
}

/* After a refusal: the graph keeps it, writes nothing. */
static void check_stuck(tp_vk_graph *g, tp_status want, const char *msg) {
  tp_membuf m;
  tp_sink sink;
  uint64_t size = 5;
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_graph_status(g), want);
  TPT_EQ_STR(tp_vk_graph_error(g), msg);
  TPT_STATUS(tp_vk_add_null(g, NULL), want);
  TPT_STATUS(tp_vk_blob_size(g, &size), want);
  TPT_EQ_U64(size, 0); /* a failed size call leaves 0 (every writer object) */
  TPT_STATUS(tp_vk_write(g, &sink), want);
  TPT_EQ_U64(m.size, 0);
  tp_membuf_free(&m);
}

/* The call is refused with status st and sentence msg, which stick (check_stuck); then the
   graph is destroyed. */
static void refused(tp_vk_graph *g, uint32_t node, const char *op, const uint32_t *args,
                    size_t n, tp_status st, const char *msg) {
  TPT_STATUS(tp_vk_add_op(g, node, op, args, n), st);
  check_stuck(g, st, msg);
  tp_vk_graph_destroy(g);
}

/* Each description parses: "name:KIND" tokens (or one "..."), known kinds and modifiers, the
   output last; every operator is described; each types string uses its grammar's letters. */
static void test_table(void) {
  size_t i, variadic = 0, typed = 0;
  TPT_EQ_U64(tp_vk_op_count(), 157);
  TPT_CHECK(tp_vk_op_name(157) == NULL && tp_vk_op_args(157) == NULL &&
            tp_vk_op_types(157) == NULL);
  for (i = 0; i < tp_vk_op_count(); i++) {
    const char *n = tp_vk_op_name(i), *a = tp_vk_op_args(i), *t = tp_vk_op_types(i);
    const char *last = NULL;
    size_t args = 0, dots = 0;
    TPT_CHECK(n && a && t && *n);
    if (!n || !a || !t) continue;
    if (i > 0) TPT_CHECK(strcmp(tp_vk_op_name(i - 1), n) < 0); /* sorted, unique */
    TPT_EQ_INT(tp_vk_op_find(n), (int)i);
    TPT_CHECK(*a != 0); /* every operator's arguments are described */
    while (*a) {
      const char *colon = strchr(a, ':'), *sp = strchr(a, ' ');
      args++;
      last = a;
      if (!strncmp(a, "...", 3) && (a[3] == ' ' || !a[3])) { /* no fixed list from here */
        dots++;
        a += 3;
      } else {
        TPT_CHECK(colon && colon > a && (!sp || colon < sp));
        if (!colon) break;
        TPT_CHECK(colon[1] && strchr("TtCcSsIiBXYLlKkFVn*", colon[1]) != NULL);
        a = colon + 2;
        while (*a && *a != ' ') {
          TPT_CHECK((*a >= '0' && *a <= '9') || *a == 'w');
          a++;
        }
      }
      while (*a == ' ') a++;
    }
    TPT_CHECK(dots <= 1);
    variadic += dots;
    TPT_CHECK(args >= 2 && args <= 24); /* TP__VK_MAX_ARGSPECS */
    TPT_CHECK(last && strstr(last, "out") != NULL); /* the output is the last argument */
    if (*t) typed++;
    { /* at most one set per argument before the output, one ">" */
      size_t sets = *t && *t != '4' ? 1 : 0, outs = 0;
      const char *q;
      for (q = t; *q && *q != ' ' && *q != '>'; q++) sets += *q == ',';
      for (q = t; *q; q++) outs += *q == '>';
      TPT_CHECK(sets < args && outs <= 1);
    }
    for (; *t; t++) TPT_CHECK(strchr("FIB-|,> 4d", *t) != NULL);
  }
  TPT_EQ_U64(variadic, 10);
  TPT_EQ_U64(typed, 131);
  TPT_CHECK(tp_vk_op_find("aten.linear.default") >= 0);
  TPT_CHECK(tp_vk_op_find("aten.mm.default") >= 0);
  TPT_CHECK(tp_vk_op_find("aten.addmm.default") >= 0);
  TPT_CHECK(tp_vk_op_find("et_vk.prepack.default") >= 0);
  TPT_EQ_INT(tp_vk_op_find("aten.mv.default"), -1); /* the runtime aborts: "Missing operator" */
  TPT_EQ_INT(tp_vk_op_find("aten.linear"), -1);
  TPT_EQ_INT(tp_vk_op_find(""), -1);
  TPT_EQ_INT(tp_vk_op_find(NULL), -1);
  TPT_EQ_STR(tp_vk_op_args((size_t)tp_vk_op_find("aten.add.Tensor")),
             "self:T other:T alpha:S out:T");
  TPT_EQ_STR(tp_vk_op_types((size_t)tp_vk_op_find("aten.add.Tensor")), "F|I");
  TPT_EQ_STR(tp_vk_op_args((size_t)tp_vk_op_find("aten.full.default")),
             "size:L fill_value:S ... out:T");
  TPT_EQ_STR(tp_vk_op_types((size_t)tp_vk_op_find("aten.where.self")), "B,F,F>F 4d");
  TPT_EQ_STR(tp_vk_op_types((size_t)tp_vk_op_find("aten.relu6.default")), "");
}

/* What ExecuTorch's VulkanBackend ran right (notes/executorch-runtime.md) passes the check. */
static void test_graphs_executorch_runs(void) {
  tp_vk_graph *g = graph(0);
  size_t x1[1] = {8}, x2[2] = {2, 8}, y2[2] = {2, 4}, b3[3] = {1, 2, 8};
  uint32_t x, w, none, y, mat2, a2, bias, beta, alpha, o, args[6], alpha_i, half, dim;
  /* linear with a 1-D input, a transposed weight, no bias */
  x = tensor(g, 1, x1, -1);
  w = constant(g, 4, 8);
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  y = tensor(g, 1, x1, -1);
  args[0] = x; args[1] = w; args[2] = none; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", args, 4), TP_OK);
  /* linear with a 3-D input whose dim -3 is 1 (the runtime's default is then width-packed) */
  o = tensor(g, 3, b3, -1);
  args[0] = o; args[3] = o;
  TPT_STATUS(tp_vk_add_op(g, 1, "aten.linear.default", args, 4), TP_OK);
  /* mm with a constant mat2 [K, N] */
  x = tensor(g, 2, x2, TP_VK_TENSOR_WIDTH_PACKED);
  mat2 = constant(g, 8, 4);
  y = tensor(g, 2, y2, -1);
  args[0] = x; args[1] = mat2; args[2] = y;
  TPT_STATUS(tp_vk_add_op(g, 2, "aten.mm.default", args, 3), TP_OK);
  /* addmm(self, mat1, mat2, beta 0.5, alpha 2) */
  bias = tensor(g, 2, y2, -1);
  TPT_STATUS(tp_vk_add_double(g, 0.5, &beta), TP_OK);
  TPT_STATUS(tp_vk_add_int(g, 2, &alpha), TP_OK);
  args[0] = bias; args[1] = x; args[2] = mat2; args[3] = beta; args[4] = alpha; args[5] = y;
  TPT_STATUS(tp_vk_add_op(g, 3, "aten.addmm.default", args, 6), TP_OK);
  /* add.Tensor with alpha an Int, and with a constant operand */
  TPT_STATUS(tp_vk_add_int(g, 1, &alpha_i), TP_OK);
  a2 = constant(g, 2, 4);
  args[0] = y; args[1] = a2; args[2] = alpha_i; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 4, "aten.add.Tensor", args, 4), TP_OK);
  args[0] = y; args[1] = y;
  TPT_STATUS(tp_vk_add_op(g, 5, "aten.relu.default", args, 2), TP_OK);
  /* softmax(self, dim, half_to_float, out), clamp with a Null bound */
  TPT_STATUS(tp_vk_add_int(g, -1, &dim), TP_OK);
  TPT_STATUS(tp_vk_add_bool(g, 0, &half), TP_OK);
  args[0] = y; args[1] = dim; args[2] = half; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 6, "aten._softmax.default", args, 4), TP_OK);
  args[0] = y; args[1] = none; args[2] = beta; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 7, "aten.clamp.default", args, 4), TP_OK);
  /* view_copy with sizes as an IntList and as a ValueList of Ints; cat of a tensor list */
  {
    int64_t sz[2] = {4, 2};
    uint32_t ints[2], vl, il, tl, tensors[2];
    TPT_STATUS(tp_vk_add_int_list(g, sz, 2, &il), TP_OK);
    ints[0] = alpha;
    ints[1] = alpha_i;
    TPT_STATUS(tp_vk_add_value_list(g, ints, 2, &vl), TP_OK);
    args[0] = y; args[1] = il; args[2] = y;
    TPT_STATUS(tp_vk_add_op(g, 8, "aten.view_copy.default", args, 3), TP_OK);
    args[1] = vl;
    TPT_STATUS(tp_vk_add_op(g, 9, "aten.view_copy.default", args, 3), TP_OK);
    tensors[0] = y;
    tensors[1] = bias;
    TPT_STATUS(tp_vk_add_value_list(g, tensors, 2, &tl), TP_OK);
    args[0] = tl; args[1] = dim; args[2] = y;
    TPT_STATUS(tp_vk_add_op(g, 10, "aten.cat.default", args, 3), TP_OK);
  }
  /* layer norm: a ValueList output (out, mean, rstd), Null weight and bias */
  {
    int64_t shape[1] = {4};
    uint32_t ns, eps, outs[3], ol;
    size_t md[2] = {2, 1};
    TPT_STATUS(tp_vk_add_int_list(g, shape, 1, &ns), TP_OK);
    TPT_STATUS(tp_vk_add_double(g, 1e-5, &eps), TP_OK);
    outs[0] = y;
    outs[1] = tensor(g, 2, md, -1);
    outs[2] = tensor(g, 2, md, -1);
    TPT_STATUS(tp_vk_add_value_list(g, outs, 3, &ol), TP_OK);
    args[0] = y; args[1] = ns; args[2] = none; args[3] = none; args[4] = eps; args[5] = ol;
    TPT_STATUS(tp_vk_add_op(g, 11, "aten.native_layer_norm.default", args, 6), TP_OK);
  }
  TPT_EQ_STR(tp_vk_graph_error(g), "");
  tp_vk_graph_destroy(g);
}

static void test_unknown_operator(void) {
  tp_vk_graph *g = graph(0);
  size_t d[1] = {4};
  uint32_t x = tensor(g, 1, d, -1), args[3];
  args[0] = x; args[1] = x; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.mv.default", args, 3), TP_ERR_UNSUPPORTED);
  check_stuck(g, TP_ERR_UNSUPPORTED,
              "operator 0: \"aten.mv.default\" is not one of the 157 operators ExecuTorch's "
              "Vulkan backend registers (see TP_VK_OPS; set tp_vk_options.other_runtime when the "
              "graph targets another runtime)");
  tp_vk_graph_destroy(g);
}

static void test_argument_count(void) {
  tp_vk_graph *g = graph(0);
  size_t d[1] = {4};
  uint32_t x = tensor(g, 1, d, -1), args[3];
  args[0] = x; args[1] = x; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.relu.default", args, 2), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 1, "aten.add.Tensor", args, 3), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 1 \"aten.add.Tensor\" takes 4 arguments (self other alpha out), 3 "
              "given");
  tp_vk_graph_destroy(g);
}

static void test_null_alpha(void) {
  tp_vk_graph *g = graph(0);
  size_t d[1] = {4};
  uint32_t x = tensor(g, 1, d, -1), none, args[4];
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  args[0] = x; args[1] = x; args[2] = none; args[3] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.add.Tensor", args, 4), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.add.Tensor\": argument 2 (alpha) is value 1, a Null; it needs a "
              "scalar (Int, Double, Bool or SymInt)");
  tp_vk_graph_destroy(g);
}

static void test_mm_1d_input(void) {
  tp_vk_graph *g = graph(0);
  size_t d1[1] = {8}, d2[2] = {1, 4};
  uint32_t x = tensor(g, 1, d1, -1), w = constant(g, 8, 4), y = tensor(g, 2, d2, -1), args[3];
  args[0] = x; args[1] = w; args[2] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.mm.default", args, 3), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.mm.default\": argument 0 (mat1) is value 0, a 1-D tensor; it "
              "needs a 2-D tensor");
  tp_vk_graph_destroy(g);
}

static void test_linear_height_packed(void) {
  tp_vk_graph *g = graph(0);
  size_t d[2] = {2, 8}, yd[2] = {2, 4};
  uint32_t x = tensor(g, 2, d, TP_VK_TENSOR_HEIGHT_PACKED), w = constant(g, 4, 8), none, y,
           args[4];
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  y = tensor(g, 2, yd, -1);
  args[0] = x; args[1] = w; args[2] = none; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", args, 4), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.linear.default\": argument 0 (input) is value 0, a "
              "height-packed tensor; it needs a width-packed tensor (memory_layout "
              "TP_VK_TENSOR_WIDTH_PACKED)");
  tp_vk_graph_destroy(g);
}

/* A 3-D default-layout output with dim -3 > 1: the runtime picks channels-packed; linear throws. */
static void test_linear_default_channels_packed(void) {
  tp_vk_graph *g = graph(0);
  size_t d[3] = {3, 2, 8}, yd[3] = {3, 2, 4};
  uint32_t x = tensor(g, 3, d, TP_VK_TENSOR_WIDTH_PACKED), w = constant(g, 4, 8), none, y,
           args[4];
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  y = tensor(g, 3, yd, -1);
  args[0] = x; args[1] = w; args[2] = none; args[3] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.linear.default", args, 4), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.linear.default\": argument 3 (out) is value 3, a 3-D tensor of "
              "default layout with dim -3 of size 3, which the runtime makes channels-packed; "
              "it needs a width-packed tensor (memory_layout TP_VK_TENSOR_WIDTH_PACKED)");
  tp_vk_graph_destroy(g);
}

static void test_conv_weight_not_constant(void) {
  tp_vk_graph *g = graph(0);
  size_t d[4] = {1, 2, 4, 4}, wd[4] = {2, 2, 1, 1};
  int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  uint32_t a[10], x, w, none, s, p, t, grp;
  x = tensor(g, 4, d, -1);
  w = tensor(g, 4, wd, -1);
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  TPT_STATUS(tp_vk_add_int_list(g, one, 2, &s), TP_OK);
  TPT_STATUS(tp_vk_add_int_list(g, zero, 2, &p), TP_OK);
  TPT_STATUS(tp_vk_add_bool(g, 0, &t), TP_OK);
  TPT_STATUS(tp_vk_add_int(g, 1, &grp), TP_OK);
  a[0] = x; a[1] = w; a[2] = none; a[3] = s; a[4] = p; a[5] = s; a[6] = t; a[7] = p; a[8] = grp;
  a[9] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.convolution.default", a, 10), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.convolution.default\": argument 1 (weight) is value 1, a tensor "
              "that is not a constant; it needs a constant tensor");
  tp_vk_graph_destroy(g);
}

static void test_list_kinds(void) {
  tp_vk_graph *g = graph(0);
  size_t d[1] = {4};
  double dl[1] = {1.0};
  uint32_t x = tensor(g, 1, d, -1), dlist, vl, ids[2], args[3], dim;
  TPT_STATUS(tp_vk_add_double_list(g, dl, 1, &dlist), TP_OK);
  args[0] = x; args[1] = dlist; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.permute_copy.default", args, 3), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.permute_copy.default\": argument 1 (dims) is value 1, a "
              "DoubleList; it needs an int list (IntList, or ValueList of Int / SymInt values)");
  tp_vk_graph_destroy(g);

  g = graph(0);
  x = tensor(g, 1, d, -1);
  TPT_STATUS(tp_vk_add_int(g, 0, &dim), TP_OK);
  ids[0] = x;
  ids[1] = dim; /* an Int among the tensors to concatenate */
  TPT_STATUS(tp_vk_add_value_list(g, ids, 2, &vl), TP_OK);
  args[0] = vl; args[1] = dim; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.cat.default", args, 3), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.cat.default\": argument 0 (tensors) is value 2, a ValueList "
              "with other items; it needs a ValueList of tensors");
  tp_vk_graph_destroy(g);

  g = graph(0);
  x = tensor(g, 1, d, -1);
  args[0] = x; args[1] = x; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.select_copy.int", args, 3), TP_ERR_INVALID);
  check_stuck(g, TP_ERR_INVALID,
              "operator 0 \"aten.select_copy.int\" takes 4 arguments (self dim index out), 3 "
              "given");
  tp_vk_graph_destroy(g);
}

/* "..." (no fixed list): the count is a minimum; the specs after it match the last arguments. */
static void test_no_fixed_list(void) {
  tp_vk_graph *g = graph(0);
  size_t d[2] = {2, 4};
  int64_t sz[2] = {2, 4};
  uint32_t y = tensor(g, 2, d, -1), size, fill, none, args[7];
  TPT_STATUS(tp_vk_add_int_list(g, sz, 2, &size), TP_OK);
  TPT_STATUS(tp_vk_add_double(g, 0.5, &fill), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  args[0] = size; args[1] = fill; args[2] = y; /* no dtype / layout / device / pin_memory */
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.full.default", args, 3), TP_OK);
  args[2] = none; args[3] = none; args[4] = none; args[5] = none; args[6] = y; /* as upstream */
  TPT_STATUS(tp_vk_add_op(g, 1, "aten.full.default", args, 7), TP_OK);
  args[6] = fill; /* the last one is the output, whatever the count */
  refused(g, 2, "aten.full.default", args, 7, TP_ERR_INVALID,
          "operator 2 \"aten.full.default\": argument 6 (out) is value 2, a Double; it "
          "needs a tensor");

  g = graph(0);
  y = tensor(g, 2, d, -1);
  args[0] = y; args[1] = y;
  refused(g, 0, "aten.full.default", args, 2, TP_ERR_INVALID,
          "operator 0 \"aten.full.default\" takes at least 3 arguments (size fill_value ... "
          "out), 2 given");
}

/* The kinds the 101 newly described operators brought: IntList only, String, SymInt, Null only,
   constant or Null, DoubleList or Null, a ValueList output. */
static void test_more_kinds(void) {
  tp_vk_graph *g = graph(0);
  size_t d[2] = {2, 4}, d4[4] = {1, 2, 3, 4};
  int64_t dims[1] = {0};
  uint32_t x = tensor(g, 2, d, -1), zero, ints[1], vl, il, args[16];
  TPT_STATUS(tp_vk_add_int(g, 0, &zero), TP_OK);
  ints[0] = zero;
  TPT_STATUS(tp_vk_add_value_list(g, ints, 1, &vl), TP_OK);
  args[0] = x; args[1] = vl; args[2] = x; /* flip reads dims with get_int_list */
  refused(g, 0, "aten.flip.default", args, 3, TP_ERR_INVALID,
          "operator 0 \"aten.flip.default\": argument 1 (dims) is value 2, a ValueList; it "
          "needs an IntList");

  g = graph(0);
  x = tensor(g, 2, d, -1);
  TPT_STATUS(tp_vk_add_int_list(g, dims, 1, &il), TP_OK);
  args[0] = x; args[1] = il; args[2] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.flip.default", args, 3), TP_OK);
  TPT_STATUS(tp_vk_add_int(g, 1, &zero), TP_OK);
  args[0] = x; args[1] = zero; args[2] = zero; /* sym_size.int's output is a SymInt */
  refused(g, 1, "sym_size.int", args, 3, TP_ERR_INVALID,
          "operator 1 \"sym_size.int\": argument 2 (out) is value 2, an Int; it needs a "
          "SymInt");

  g = graph(0); /* custom_sdpa throws unless attn_mask and scale are None */
  {
    uint32_t q = tensor(g, 4, d4, TP_VK_TENSOR_WIDTH_PACKED), pos, none, sc, i;
    TPT_STATUS(tp_vk_add_symint(g, 0, &pos), TP_OK);
    TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
    TPT_STATUS(tp_vk_add_double(g, 0.5, &sc), TP_OK);
    args[0] = q; args[1] = q; args[2] = q; args[3] = pos;
    for (i = 4; i < 8; i++) args[i] = none;
    args[8] = q;
    TPT_STATUS(tp_vk_add_op(g, 0, "llama.custom_sdpa.default", args, 9), TP_OK);
    args[7] = sc;
    refused(g, 1, "llama.custom_sdpa.default", args, 9, TP_ERR_INVALID,
            "operator 1 \"llama.custom_sdpa.default\": argument 7 (scale) is value 3, a "
            "Double; it needs a Null");
  }

  g = graph(0); /* q8ta_linear's activation is a String; its weights constants */
  {
    uint32_t xi = tensor_dt(g, TP_VK_INT8, 2, d, -1), w = constant_dt(g, TP_VK_INT8, 4, 4),
             s = constant(g, 1, 4), sc, zp, none, act;
    TPT_STATUS(tp_vk_add_double(g, 0.1, &sc), TP_OK);
    TPT_STATUS(tp_vk_add_int(g, 0, &zp), TP_OK);
    TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
    TPT_STATUS(tp_vk_add_string(g, "none", &act), TP_OK);
    args[0] = xi; args[1] = sc; args[2] = zp; args[3] = w; args[4] = s; args[5] = s;
    args[6] = sc; args[7] = zp; args[8] = none; args[9] = act; args[10] = xi;
    TPT_STATUS(tp_vk_add_op(g, 0, "et_vk.q8ta_linear.default", args, 11), TP_OK);
    args[9] = zp;
    refused(g, 1, "et_vk.q8ta_linear.default", args, 11, TP_ERR_INVALID,
            "operator 1 \"et_vk.q8ta_linear.default\": argument 9 (activation) is value 4, "
            "an Int; it needs a String");
  }

  g = graph(0); /* layer norm prepacks weight and bias: constants or Null */
  {
    int64_t shape[1] = {4};
    uint32_t ns, eps, ol, outs[3];
    x = tensor(g, 2, d, -1);
    TPT_STATUS(tp_vk_add_int_list(g, shape, 1, &ns), TP_OK);
    TPT_STATUS(tp_vk_add_double(g, 1e-5, &eps), TP_OK);
    outs[0] = outs[1] = outs[2] = x;
    TPT_STATUS(tp_vk_add_value_list(g, outs, 3, &ol), TP_OK);
    args[0] = x; args[1] = ns; args[2] = x; args[3] = x; args[4] = eps; args[5] = ol;
    refused(g, 0, "aten.native_layer_norm.default", args, 6, TP_ERR_INVALID,
            "operator 0 \"aten.native_layer_norm.default\": argument 2 (weight) is value 0, "
            "a tensor that is not a constant; it needs a constant tensor or Null");
  }

  g = graph(0); /* upsample's scale_factors: a DoubleList or Null, never an IntList */
  {
    double sf[2] = {2.0, 2.0};
    uint32_t none, dl;
    x = tensor(g, 4, d4, -1);
    TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
    TPT_STATUS(tp_vk_add_double_list(g, sf, 2, &dl), TP_OK);
    TPT_STATUS(tp_vk_add_int_list(g, dims, 1, &il), TP_OK);
    args[0] = x; args[1] = none; args[2] = dl; args[3] = x;
    TPT_STATUS(tp_vk_add_op(g, 0, "aten.upsample_nearest2d.vec", args, 4), TP_OK);
    args[2] = il;
    refused(g, 1, "aten.upsample_nearest2d.vec", args, 4, TP_ERR_INVALID,
            "operator 1 \"aten.upsample_nearest2d.vec\": argument 2 (scale_factors) is "
            "value 3, an IntList; it needs a DoubleList or Null");
  }

}

/* The datatypes and ranks of op_registry.py: TP_ERR_UNSUPPORTED naming the argument, the value,
   its datatype or rank and what the op runs on. */
static void test_types(void) {
  tp_vk_graph *g = graph(0);
  size_t d[2] = {2, 4}, d5[5] = {1, 1, 1, 2, 4};
  uint32_t x, xi, b, y, one, none, args[8];
  xi = tensor_dt(g, TP_VK_INT32, 2, d, -1);
  args[0] = xi; args[1] = xi;
  refused(g, 0, "aten.abs.default", args, 2, TP_ERR_UNSUPPORTED,
          "operator 0 \"aten.abs.default\": argument 0 (self) is value 0, an INT32 tensor; "
          "ExecuTorch's Vulkan backend runs it on FLOAT16 or FLOAT32 only (op_registry.py; "
          "set tp_vk_options.other_runtime when the graph targets another runtime)");

  g = graph(0); /* a comparison's output is BOOL */
  x = tensor(g, 2, d, -1);
  xi = tensor_dt(g, TP_VK_INT64, 2, d, -1);
  b = tensor_dt(g, TP_VK_BOOL, 2, d, -1);
  args[0] = x; args[1] = xi; args[2] = b;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.eq.Tensor", args, 3), TP_OK); /* F|I in, B out */
  args[2] = x;
  refused(g, 1, "aten.eq.Tensor", args, 3, TP_ERR_UNSUPPORTED,
          "operator 1 \"aten.eq.Tensor\": argument 2 (out) is value 0, a FLOAT32 tensor; "
          "ExecuTorch's Vulkan backend runs it on BOOL only (op_registry.py; set "
          "tp_vk_options.other_runtime when the graph targets another runtime)");

  g = graph(0); /* where: per position, BOOL condition */
  x = tensor(g, 2, d, -1);
  b = tensor_dt(g, TP_VK_BOOL, 2, d, -1);
  args[0] = b; args[1] = x; args[2] = x; args[3] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.where.self", args, 4), TP_OK);
  args[0] = x;
  refused(g, 1, "aten.where.self", args, 4, TP_ERR_UNSUPPORTED,
          "operator 1 \"aten.where.self\": argument 0 (condition) is value 0, a FLOAT32 "
          "tensor; ExecuTorch's Vulkan backend runs it on BOOL only (op_registry.py; set "
          "tp_vk_options.other_runtime when the graph targets another runtime)");

  g = graph(0); /* a ValueList output: one set per tensor (max_pool2d_with_indices: F, I) */
  {
    int64_t k2[2] = {2, 2}, z2[2] = {0, 0}, o2[2] = {1, 1};
    size_t d4[4] = {1, 2, 4, 4}, p4[4] = {1, 2, 2, 2};
    uint32_t ks, pad, dil, cm, outs[2], ol, idx;
    x = tensor(g, 4, d4, -1);
    y = tensor(g, 4, p4, -1);
    idx = tensor_dt(g, TP_VK_INT32, 4, p4, -1);
    TPT_STATUS(tp_vk_add_int_list(g, k2, 2, &ks), TP_OK);
    TPT_STATUS(tp_vk_add_int_list(g, z2, 2, &pad), TP_OK);
    TPT_STATUS(tp_vk_add_int_list(g, o2, 2, &dil), TP_OK);
    TPT_STATUS(tp_vk_add_bool(g, 0, &cm), TP_OK);
    outs[0] = y; outs[1] = idx;
    TPT_STATUS(tp_vk_add_value_list(g, outs, 2, &ol), TP_OK);
    args[0] = x; args[1] = ks; args[2] = ks; args[3] = pad; args[4] = dil; args[5] = cm;
    args[6] = ol;
    TPT_STATUS(tp_vk_add_op(g, 0, "aten.max_pool2d_with_indices.default", args, 7), TP_OK);
    outs[1] = y;
    TPT_STATUS(tp_vk_add_value_list(g, outs, 2, &ol), TP_OK);
    args[6] = ol;
    refused(g, 1, "aten.max_pool2d_with_indices.default", args, 7, TP_ERR_UNSUPPORTED,
            "operator 1 \"aten.max_pool2d_with_indices.default\": argument 6 (out) holds "
            "value 1, a FLOAT32 tensor; ExecuTorch's Vulkan backend runs it on INT32 or "
            "INT64 only (op_registry.py; set tp_vk_options.other_runtime when the graph "
            "targets another runtime)");
  }

  g = graph(0); /* a tensor list input takes its argument's set (cat: F|I, not BOOL) */
  {
    uint32_t tl, items[2], dim;
    x = tensor(g, 2, d, -1);
    b = tensor_dt(g, TP_VK_BOOL, 2, d, -1);
    items[0] = x; items[1] = b;
    TPT_STATUS(tp_vk_add_value_list(g, items, 2, &tl), TP_OK);
    TPT_STATUS(tp_vk_add_int(g, 0, &dim), TP_OK);
    args[0] = tl; args[1] = dim; args[2] = x;
    refused(g, 0, "aten.cat.default", args, 3, TP_ERR_UNSUPPORTED,
            "operator 0 \"aten.cat.default\": argument 0 (tensors) holds value 1, a BOOL "
            "tensor; ExecuTorch's Vulkan backend runs it on FLOAT16, FLOAT32, INT32 or INT64 "
            "only (op_registry.py; set tp_vk_options.other_runtime when the graph targets "
            "another runtime)");
  }

  g = graph(0); /* 4 dims at most, unless the op is supports_highdim (add.Tensor is) */
  x = tensor(g, 5, d5, -1);
  TPT_STATUS(tp_vk_add_int(g, 1, &one), TP_OK);
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  args[0] = x; args[1] = x; args[2] = one; args[3] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.add.Tensor", args, 4), TP_OK);
  args[0] = x; args[1] = x;
  refused(g, 1, "aten.relu.default", args, 2, TP_ERR_UNSUPPORTED,
          "operator 1 \"aten.relu.default\": argument 0 (self) is value 0, a 5-D tensor; "
          "ExecuTorch's Vulkan backend runs it on tensors of at most 4 dims (op_registry.py; "
          "set tp_vk_options.other_runtime when the graph targets another runtime)");

  g = graph(0); /* "-": the int8 weight of _weight_int8pack_mm is not held to the float set */
  {
    uint32_t w = constant_dt(g, TP_VK_INT8, 4, 8), s;
    size_t sd[1] = {4}, yd[2] = {2, 4};
    tp_storage st;
    tp_tensor sv;
    int64_t ssz[1] = {4};
    st.data = g_w;
    st.nbytes = sizeof g_w;
    TPT_STATUS(tp_view(st, TP_F32, 1, ssz, NULL, 0, &sv, NULL), TP_OK);
    TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 1, sd, &sv, &s), TP_OK);
    d[1] = 8; /* x [2, 8] times the weight [4, 8] transposed */
    x = tensor(g, 2, d, -1);
    y = tensor(g, 2, yd, -1);
    args[0] = x; args[1] = w; args[2] = s; args[3] = y;
    TPT_STATUS(tp_vk_add_op(g, 0, "aten._weight_int8pack_mm.default", args, 4), TP_OK);
    args[2] = w; /* the scales are held to it */
    refused(g, 1, "aten._weight_int8pack_mm.default", args, 4, TP_ERR_UNSUPPORTED,
            "operator 1 \"aten._weight_int8pack_mm.default\": argument 2 (scales) is value "
            "0, an INT8 tensor; ExecuTorch's Vulkan backend runs it on FLOAT16 or FLOAT32 "
            "only (op_registry.py; set tp_vk_options.other_runtime when the graph targets "
            "another runtime)");
  }

  g = graph(1); /* other_runtime: none of it is checked */
  xi = tensor_dt(g, TP_VK_INT32, 5, d5, -1);
  args[0] = xi; args[1] = xi;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.abs.default", args, 2), TP_OK);
  tp_vk_graph_destroy(g);
}

/* What the sweep reads of one TP_VK_OPS description token: "name:KIND[digit][w]" or "...". */
typedef struct sweep_spec {
  const char *name;
  size_t len;
  char kind;  /* '.' for "..." */
  size_t rank; /* 0: the description states none */
} sweep_spec;

/* Splits description a into specs (at most max); returns how many. */
static size_t sweep_specs(const char *a, sweep_spec *sp, size_t max) {
  size_t n = 0;
  while (*a && n < max) {
    sweep_spec *s = &sp[n++];
    s->name = a;
    s->kind = '.';
    s->rank = 0;
    while (*a && *a != ' ' && *a != ':') a++;
    s->len = (size_t)(a - s->name);
    if (*a == ':') {
      s->kind = a[1];
      if (*++a) a++;
      for (; *a && *a != ' '; a++)
        if (*a >= '1' && *a <= '6') s->rank = (size_t)(*a - '0');
    }
    TPT_CHECK(s->kind != '.' || (s->len == 3 && !strncmp(s->name, "...", 3)));
    while (*a == ' ') a++;
  }
  TPT_CHECK(!*a); /* every token fits */
  return n;
}

/* The datatype the sweep gives a tensor at position pos of a types list (len chars of
   tp_vk_op_types' grammar: sets joined by ",", a set letters joined by "|"): pass 0 takes the
   set's first letter and that letter's first datatype, pass 1 its last letter and its other
   datatype (F FLOAT32 / FLOAT16, I INT32 / INT64, B BOOL); "-", a position past the list or an
   empty list (nothing checked there) FLOAT32. A list of one set covers every position. */
static tp_vk_datatype sweep_dt(const char *list, size_t len, size_t pos, int pass) {
  size_t sets = len ? 1 : 0, i, at = 0;
  char letter = 0;
  for (i = 0; i < len; i++) sets += list[i] == ',';
  if (sets == 1) pos = 0;
  for (i = 0; i < len; i++) {
    if (list[i] == ',') at++;
    else if (at == pos && list[i] != '|' && (pass == 1 || !letter)) letter = list[i];
  }
  switch (letter) {
    case 'F': return pass ? TP_VK_FLOAT16 : TP_VK_FLOAT32;
    case 'I': return pass ? TP_VK_INT64 : TP_VK_INT32;
    case 'B': return TP_VK_BOOL;
    case 0: case '-': return TP_VK_FLOAT32;
    default: break;
  }
  TPT_CHECK(!"a datatype letter the sweep does not know: give it a case in sweep_dt");
  return TP_VK_FLOAT32;
}

static uint8_t g_sweep_bytes[512]; /* a constant's bytes: 6 dims of 2 of 8 bytes at most */

/* A tensor of datatype dt with ndim dims of size 2: width-packed, or a constant over
   g_sweep_bytes. */
static uint32_t sweep_tensor(tp_vk_graph *g, tp_vk_datatype dt, size_t ndim, int constant) {
  size_t d[6] = {2, 2, 2, 2, 2, 2};
  int64_t sz[6] = {2, 2, 2, 2, 2, 2};
  uint32_t id = 0;
  tp_storage st;
  tp_tensor view;
  tp_dtype t = dt == TP_VK_FLOAT16 ? TP_F16 : dt == TP_VK_INT32 ? TP_I32
             : dt == TP_VK_INT64 ? TP_I64 : dt == TP_VK_BOOL ? TP_BOOL : TP_F32;
  if (!constant) return tensor_dt(g, dt, ndim, d, TP_VK_TENSOR_WIDTH_PACKED);
  st.data = g_sweep_bytes;
  st.nbytes = sizeof g_sweep_bytes;
  TPT_STATUS(tp_view(st, t, (int)ndim, sz, NULL, 0, &view, NULL), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, dt, ndim, NULL, &view, &id), TP_OK);
  return id;
}

/* One argument of kind `kind`: a tensor of datatype dt and ndim dims (a ValueList: nitems of
   them, datatype dts[k] for item k); pass 1 takes the Null a lowercase kind (and F) allows, an
   int list as a ValueList of an Int and a SymInt. */
static uint32_t sweep_arg(tp_vk_graph *g, char kind, const tp_vk_datatype *dts, size_t nitems,
                          size_t ndim, int pass) {
  int64_t ints[2] = {1, 1};
  double dbl[2] = {0.5, 2.0};
  uint32_t id = 0, items[4];
  size_t k;
  if (kind == 'n' || (pass == 1 && strchr("tcsiklF*", kind))) {
    TPT_STATUS(tp_vk_add_null(g, &id), TP_OK);
    return id;
  }
  switch (kind) {
    case 'T': case 't': return sweep_tensor(g, dts[0], ndim, 0);
    case 'C': case 'c': return sweep_tensor(g, dts[0], ndim, 1);
    case 'S': case 's': TPT_STATUS(tp_vk_add_double(g, 0.5, &id), TP_OK); return id;
    case 'I': case 'i': TPT_STATUS(tp_vk_add_int(g, 1, &id), TP_OK); return id;
    case 'B': TPT_STATUS(tp_vk_add_bool(g, 1, &id), TP_OK); return id;
    case 'X': TPT_STATUS(tp_vk_add_string(g, "relu", &id), TP_OK); return id;
    case 'Y': TPT_STATUS(tp_vk_add_symint(g, 1, &id), TP_OK); return id;
    case 'K': case 'k': TPT_STATUS(tp_vk_add_int_list(g, ints, 2, &id), TP_OK); return id;
    case 'L': case 'l':
      if (pass == 0) {
        TPT_STATUS(tp_vk_add_int_list(g, ints, 2, &id), TP_OK);
        return id;
      }
      TPT_STATUS(tp_vk_add_int(g, 1, &items[0]), TP_OK);
      TPT_STATUS(tp_vk_add_symint(g, 1, &items[1]), TP_OK);
      TPT_STATUS(tp_vk_add_value_list(g, items, 2, &id), TP_OK);
      return id;
    case 'F': TPT_STATUS(tp_vk_add_double_list(g, dbl, 2, &id), TP_OK); return id;
    case 'V':
      for (k = 0; k < nitems && k < 4; k++) items[k] = sweep_tensor(g, dts[k], ndim, 0);
      TPT_STATUS(tp_vk_add_value_list(g, items, k, &id), TP_OK);
      return id;
    case '*': TPT_STATUS(tp_vk_add_int(g, 1, &id), TP_OK); return id;
    default: break;
  }
  TPT_CHECK(!"a kind the sweep does not know: give it a case in sweep_arg");
  TPT_STATUS(tp_vk_add_null(g, &id), TP_OK);
  return id;
}

/* Every operator of TP_VK_OPS, with arguments made from its description and types alone, is
   accepted; one argument fewer (below the minimum where the description has "...") is refused
   with the count sentence, whole (shorter than TP_ERROR_MAX). Each op is swept twice: pass 0
   gives every optional kind a value and each tensor the first datatype its set allows, pass 1
   every optional kind a Null and each tensor the last; tensors have the rank the description
   states, else 4 dims for a "4d" op and 5 for the others; a ValueList output holds one tensor
   per output set. A "..." op is swept at its minimum and with three extra values. A new
   operator is covered without a line of its own; a new kind or datatype letter fails until
   sweep_arg / sweep_dt make it. */
static void test_every_described_op(void) {
  size_t i, swept = 0, calls = 0, variadic = 0;
  for (i = 0; i < tp_vk_op_count(); i++) {
    const char *name = tp_vk_op_name(i), *types = tp_vk_op_types(i);
    sweep_spec sp[24];
    size_t nsp = sweep_specs(tp_vk_op_args(i), sp, 24), var = nsp, fixed, ins, outs_len = 0, j;
    const char *outs;
    int max4 = strstr(types, "4d") != NULL, pass;
    char names[400], want[600];
    size_t nl = 0;
    for (j = 0; j < nsp; j++)
      if (sp[j].kind == '.') var = j;
    fixed = var == nsp ? nsp : nsp - 1;
    TPT_CHECK(fixed > 0);
    if (fixed == 0) continue;
    ins = strcspn(types, " >");
    if (ins == 2 && !strncmp(types, "4d", 2)) ins = 0;
    outs = types[ins] == '>' ? types + ins + 1 : NULL;
    if (outs) outs_len = strcspn(outs, " ");
    names[0] = '\0';
    for (j = 0; j < nsp; j++) {
      TPT_CHECK(nl + sp[j].len + 2 < sizeof names);
      if (nl + sp[j].len + 2 >= sizeof names) break;
      if (nl) names[nl++] = ' ';
      memcpy(names + nl, sp[j].name, sp[j].len);
      nl += sp[j].len;
      names[nl] = '\0';
    }
    swept++;
    variadic += var != nsp;
    for (pass = 0; pass < 2; pass++) {
      size_t extra;
      for (extra = 0; extra <= (var == nsp ? 0u : 3u); extra += 3) {
        tp_vk_graph *g = graph(0);
        uint32_t args[32];
        size_t n = 0, k;
        for (j = 0; j < nsp; j++) {
          tp_vk_datatype dts[4];
          size_t nitems = 1, ndim = sp[j].rank ? sp[j].rank : max4 ? 4 : 5;
          int last = j + 1 == nsp;
          if (sp[j].kind == '.') { /* values of any kind stand there: an Int, a Null, a String */
            if (!extra) continue;
            TPT_STATUS(tp_vk_add_int(g, 3, &args[n++]), TP_OK);
            TPT_STATUS(tp_vk_add_null(g, &args[n++]), TP_OK);
            TPT_STATUS(tp_vk_add_string(g, "cpu", &args[n++]), TP_OK);
            continue;
          }
          if (last && outs) {
            size_t sets = 1;
            for (k = 0; k < outs_len; k++) sets += outs[k] == ',';
            nitems = sp[j].kind == 'V' ? (sets < 4 ? sets : 4) : 1;
            for (k = 0; k < nitems; k++) dts[k] = sweep_dt(outs, outs_len, k, pass);
          } else {
            dts[0] = sweep_dt(types, ins, last ? 0 : j, pass);
          }
          args[n++] = sweep_arg(g, sp[j].kind, dts, nitems, ndim, pass);
        }
        TPT_STATUS(tp_vk_add_op(g, 0, name, args, n), TP_OK);
        if (tp_vk_graph_status(g) != TP_OK)
          printf("  %s refused its own description (%s {%s}), pass %d, %lu extra: %s\n", name,
                 tp_vk_op_args(i), types, pass, (unsigned long)extra, tp_vk_graph_error(g));
        else
          calls++;
        tp_vk_graph_destroy(g);
      }
    }
    { /* one short of the (minimum) count */
      tp_vk_graph *g = graph(0);
      uint32_t args[32];
      size_t k;
      for (k = 0; k + 1 < fixed; k++) TPT_STATUS(tp_vk_add_null(g, &args[k]), TP_OK);
      snprintf(want, sizeof want, "operator 0 \"%s\" takes %s%lu arguments (%s), %lu given",
               name, var == nsp ? "" : "at least ", (unsigned long)fixed, names,
               (unsigned long)(fixed - 1));
      /* whole: the longest, et_vk.q8ta_conv2d_transposed.default's, has 254 characters */
      TPT_CHECK(strlen(want) < TP_ERROR_MAX);
      TPT_STATUS(tp_vk_add_op(g, 0, name, args, fixed - 1), TP_ERR_INVALID);
      TPT_EQ_STR(tp_vk_graph_error(g), want);
      tp_vk_graph_destroy(g);
    }
  }
  TPT_EQ_U64(swept, 157);
  TPT_EQ_U64(variadic, 10);
  TPT_EQ_U64(calls, 2 * (157 + 10));
}

/* With other_runtime set, every refused call above is written as given. */
static void test_other_runtime(void) {
  tp_vk_graph *g = graph(1);
  size_t d[1] = {4};
  uint32_t x = tensor(g, 1, d, TP_VK_TENSOR_HEIGHT_PACKED), none, args[4];
  uint64_t size = 0;
  TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
  args[0] = x; args[1] = x; args[2] = none; args[3] = x;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.mv.default", args, 3), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 1, "aten.add.Tensor", args, 4), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 2, "aten.mm.default", args, 3), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 3, "aten.linear.default", args, 4), TP_OK);
  TPT_STATUS(tp_vk_add_op(g, 4, "my.op", NULL, 0), TP_OK);
  TPT_STATUS(tp_vk_blob_size(g, &size), TP_OK);
  TPT_CHECK(size > 0);
  tp_vk_graph_destroy(g);
}

/* The id check comes first: a missing id is named as before, whatever the table says. */
static void test_ids_before_table(void) {
  tp_vk_graph *g = graph(0);
  uint32_t args[1] = {3};
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.mv.default", args, 1), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g),
             "operator 0: id 3 (item 0) does not exist; the graph has 0 values");
  tp_vk_graph_destroy(g);
}

/* tpdump notes an operator outside TP_VK_OPS (a blob for another runtime is still well formed). */
static void test_tpdump_notes_unknown_ops(void) {
  int k;
  for (k = 0; k < 2; k++) {
    tp_vk_graph *g = graph(1);
    size_t d[1] = {4};
    uint32_t x = tensor(g, 1, d, -1), w = constant(g, 4, 4), none, args[4];
    tp_membuf m, out;
    tp_sink sink;
    tp_error err;
    TPT_STATUS(tp_vk_add_null(g, &none), TP_OK);
    args[0] = x; args[1] = w; args[2] = none; args[3] = x;
    TPT_STATUS(tp_vk_add_op(g, 0, k ? "aten.mv.default" : "aten.linear.default", args,
                            k ? 3u : 4u), TP_OK);
    memset(&m, 0, sizeof m);
    memset(&out, 0, sizeof out);
    memset(&err, 0, sizeof err);
    sink = tp_sink_membuf(&m);
    TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
    TPT_EQ_INT(tpdump_inspect(m.data, m.size, &out, &err), 0);
    {
      tp_sink os = tp_sink_membuf(&out);
      TPT_STATUS(tp_sink_write(&os, "", 1), TP_OK); /* NUL-terminate the report */
    }
    if (k)
      TPT_CONTAINS((const char *)out.data,
                   "\"aten.mv.default\" args=[0, 1, 2] (not an operator ExecuTorch's Vulkan "
                   "backend registers: it aborts there)");
    else
      TPT_CHECK(strstr((const char *)out.data, "not an operator") == NULL);
    tp_membuf_free(&m);
    tp_membuf_free(&out);
    tp_vk_graph_destroy(g);
  }
}

int main(void) {
  (void)tpt_range;
  (void)tpdump_inspect_json; /* tpdump's helpers this suite does not use */
  (void)tpdump_inspect_with;
  TPT_RUN(test_table);
  TPT_RUN(test_graphs_executorch_runs);
  TPT_RUN(test_unknown_operator);
  TPT_RUN(test_argument_count);
  TPT_RUN(test_null_alpha);
  TPT_RUN(test_mm_1d_input);
  TPT_RUN(test_linear_height_packed);
  TPT_RUN(test_linear_default_channels_packed);
  TPT_RUN(test_conv_weight_not_constant);
  TPT_RUN(test_list_kinds);
  TPT_RUN(test_no_fixed_list);
  TPT_RUN(test_more_kinds);
  TPT_RUN(test_types);
  TPT_RUN(test_every_described_op);
  TPT_RUN(test_other_runtime);
  TPT_RUN(test_ids_before_table);
  TPT_RUN(test_tpdump_notes_unknown_ops);
  return tpt_finish("vk_ops");
}
