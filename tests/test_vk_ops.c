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

static uint32_t tensor(tp_vk_graph *g, size_t ndim, const size_t *dims, int layout) {
  uint32_t id = 0;
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, ndim, dims, NULL, -1, -1, layout, TP_VK_UNSET,
                              &id), TP_OK);
  return id;
}

static float g_w[64];

static uint32_t constant(tp_vk_graph *g, int64_t rows, int64_t cols) {
  tp_storage st;
  tp_tensor t;
  int64_t sz[2];
  uint32_t id = 0;
  sz[0] = rows;
  sz[1] = cols;
  st.data = g_w;
  st.nbytes = sizeof g_w;
  TPT_STATUS(tp_view(st, TP_F32, 2, sz, NULL, 0, &t), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 2, NULL, &t, -1, -1, -1, TP_VK_UNSET, &id), TP_OK);
  return id;
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

/* Each description parses: "name:KIND" tokens, known kinds and modifiers. */
static void test_table(void) {
  size_t i, described = 0;
  TPT_EQ_U64(tp_vk_op_count(), 157);
  TPT_CHECK(tp_vk_op_name(157) == NULL && tp_vk_op_args(157) == NULL);
  for (i = 0; i < tp_vk_op_count(); i++) {
    const char *n = tp_vk_op_name(i), *a = tp_vk_op_args(i);
    TPT_CHECK(n && a && *n);
    if (i > 0) TPT_CHECK(strcmp(tp_vk_op_name(i - 1), n) < 0); /* sorted, unique */
    TPT_EQ_INT(tp_vk_op_find(n), (int)i);
    if (*a) {
      described++;
      while (*a) {
        const char *colon = strchr(a, ':');
        TPT_CHECK(colon && colon > a);
        if (!colon) break;
        TPT_CHECK(strchr("TtCSsIiBLV*", colon[1]) != NULL);
        a = colon + 2;
        while (*a && *a != ' ') {
          TPT_CHECK((*a >= '0' && *a <= '9') || *a == 'w');
          a++;
        }
        while (*a == ' ') a++;
      }
    }
  }
  TPT_EQ_U64(described, 56);
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
  /* an operator the table names without describing: only the name is checked */
  args[0] = y;
  TPT_STATUS(tp_vk_add_op(g, 11, "aten.native_layer_norm.default", args, 1), TP_OK);
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
              "operator 1 \"aten.add.Tensor\": 3 arguments given, it takes 4 (self, other, "
              "alpha, out)");
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
              "operator 0 \"aten.select_copy.int\": 3 arguments given, it takes 4 (self, dim, "
              "index, out)");
  tp_vk_graph_destroy(g);
}

/* One argument of kind `kind` (ndim dims of size 2 for a tensor; 0: 2 dims); `null` takes the
   Null a lowercase kind allows. */
static uint32_t sweep_arg(tp_vk_graph *g, char kind, size_t ndim, int null) {
  size_t d[6] = {2, 2, 2, 2, 2, 2};
  int64_t sz[6] = {2, 2, 2, 2, 2, 2}, ints[2] = {1, 1};
  uint32_t id = 0, t;
  tp_storage st;
  tp_tensor view;
  if (ndim == 0) ndim = 2;
  if (null && strchr("tsi*", kind)) {
    TPT_STATUS(tp_vk_add_null(g, &id), TP_OK);
    return id;
  }
  switch (kind) {
    case 'T': case 't': return tensor(g, ndim, d, TP_VK_TENSOR_WIDTH_PACKED);
    case 'C':
      st.data = g_w;
      st.nbytes = sizeof g_w;
      TPT_STATUS(tp_view(st, TP_F32, (int)ndim, sz, NULL, 0, &view), TP_OK);
      TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, ndim, NULL, &view, -1, -1, -1, TP_VK_UNSET,
                                  &id), TP_OK);
      return id;
    case 'S': case 's': TPT_STATUS(tp_vk_add_double(g, 0.5, &id), TP_OK); return id;
    case 'I': case 'i': TPT_STATUS(tp_vk_add_int(g, 1, &id), TP_OK); return id;
    case 'B': TPT_STATUS(tp_vk_add_bool(g, 1, &id), TP_OK); return id;
    case 'L': TPT_STATUS(tp_vk_add_int_list(g, ints, 2, &id), TP_OK); return id;
    case 'V':
      t = tensor(g, 2, d, TP_VK_TENSOR_WIDTH_PACKED);
      TPT_STATUS(tp_vk_add_value_list(g, &t, 1, &id), TP_OK);
      return id;
    case '*': TPT_STATUS(tp_vk_add_null(g, &id), TP_OK); return id;
    default: break;
  }
  TPT_CHECK(!"a kind the sweep does not know: give it a case in sweep_arg");
  return 0;
}

/* Every operator TP_VK_OPS describes, with arguments made from its description alone (each
   optional kind once as a value and once as Null), is accepted; one argument fewer is refused
   with the count sentence. A new described operator is covered here without a line of its own;
   a new argument kind fails until sweep_arg makes it. */
static void test_every_described_op(void) {
  size_t i, swept = 0;
  for (i = 0; i < tp_vk_op_count(); i++) {
    const char *a = tp_vk_op_args(i);
    int null;
    if (!*a) continue;
    swept++;
    for (null = 0; null < 2; null++) {
      tp_vk_graph *g = graph(0);
      uint32_t args[16];
      size_t n = 0;
      char names[300], want[500];
      size_t nl = 0;
      const char *p = a;
      names[0] = '\0';
      while (*p && n < 16) {
        const char *colon = strchr(p, ':');
        size_t ndim = 0;
        if (!colon) break;
        if (nl + (size_t)(colon - p) + 3 < sizeof names) {
          if (nl) {
            names[nl++] = ',';
            names[nl++] = ' ';
          }
          memcpy(names + nl, p, (size_t)(colon - p));
          nl += (size_t)(colon - p);
          names[nl] = '\0';
        }
        p = colon + 2;
        while (*p && *p != ' ') {
          if (*p >= '1' && *p <= '6') ndim = (size_t)(*p - '0');
          p++;
        }
        args[n++] = sweep_arg(g, colon[1], ndim, null);
        while (*p == ' ') p++;
      }
      TPT_STATUS(tp_vk_add_op(g, 0, tp_vk_op_name(i), args, n), TP_OK);
      if (tp_vk_graph_status(g) != TP_OK)
        printf("  %s refused its own description (%s): %s\n", tp_vk_op_name(i), a,
               tp_vk_graph_error(g));
      tp_vk_graph_destroy(g);
      g = graph(0);
      {
        size_t k;
        for (k = 0; k + 1 < n; k++) args[k] = sweep_arg(g, '*', 0, 0);
      }
      snprintf(want, sizeof want, "operator 0 \"%s\": %lu arguments given, it takes %lu (%s)",
               tp_vk_op_name(i), (unsigned long)(n - 1), (unsigned long)n, names);
      TPT_STATUS(tp_vk_add_op(g, 0, tp_vk_op_name(i), args, n - 1), TP_ERR_INVALID);
      TPT_EQ_STR(tp_vk_graph_error(g), want);
      tp_vk_graph_destroy(g);
    }
  }
  TPT_EQ_U64(swept, 56);
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
  TPT_RUN(test_every_described_op);
  TPT_RUN(test_other_runtime);
  TPT_RUN(test_ids_before_table);
  TPT_RUN(test_tpdump_notes_unknown_ops);
  return tpt_finish("vk_ops");
}
