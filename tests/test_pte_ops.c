/* tensorpack.h section 9: TP_PTE_OPS, the operators of ExecuTorch's portable kernels (generated
   by tools/gen_pte_ops.py), and the lookup that turns an entry into a descriptor: the table's
   invariants over every entry, the lookup finding each entry and refusing what the runtime
   does not register, and a dozen schemas checked argument by argument against
   native_functions.yaml (what a KernelCall of each must pass). */
#include "tensorpack.h"
#include "tp_test.h"

/* What the generator found in kernels/portable/functions.yaml at cff6f4dd32: one entry per
   `- op:` / `- func:` line (200 + 9). Regenerating the table changes this on purpose. */
#define PORTABLE_OPS 209

static tp_pte_op g_op;

/* Looks (name, overload) up into g_op; 1 when found. */
static int op(const char *name, const char *overload) {
  tp_status s = tp_pte_op_lookup(name, overload, &g_op);
  TPT_STATUS(s, TP_OK);
  return s == TP_OK;
}

/* Checks argument i of g_op: its name, kind and flags. */
static void arg(uint32_t i, const char *name, tp_pte_arg_kind kind, int is_list, int optional,
                int elem_optional, int kwarg_only, int is_out) {
  const tp_pte_op_arg *a;
  TPT_CHECK(i < g_op.num_args);
  if (i >= g_op.num_args) return;
  a = &g_op.args[i];
  TPT_EQ_STR(a->name, name);
  TPT_EQ_STR(tp_pte_arg_kind_name(a->kind), tp_pte_arg_kind_name(kind));
  TPT_EQ_INT(a->is_list, is_list);
  TPT_EQ_INT(a->optional, optional);
  TPT_EQ_INT(a->elem_optional, elem_optional);
  TPT_EQ_INT(a->kwarg_only, kwarg_only);
  TPT_EQ_INT(a->is_out, is_out);
}

/* Every entry parses; the table is sorted by key and has no duplicate; each op writes at least
   one argument and each return aliases one; an op that is not in-place has its written
   arguments after the `*` (out=) and an overload that names an out variant. */
static void test_table(void) {
  size_t i, n = tp_pte_op_count(), inplace = 0;
  char prev[256] = "";
  TPT_EQ_U64(n, PORTABLE_OPS);
  for (i = 0; i < n; i++) {
    char key[256];
    uint32_t k, nout = 0, nkwout = 0;
    int is_inplace;
    TPT_STATUS(tp_pte_op_at(i, &g_op), TP_OK);
    snprintf(key, sizeof key, "%s%s%s", g_op.name, g_op.overload[0] ? "." : "", g_op.overload);
    TPT_CHECK(strcmp(prev, key) < 0);
    memcpy(prev, key, sizeof key);
    TPT_CHECK(strchr(g_op.name, ':') != NULL && strstr(g_op.name, "::") != NULL);
    TPT_CHECK(g_op.num_args >= 1 && g_op.num_args <= TP_PTE_OP_MAX_ARGS);
    for (k = 0; k < g_op.num_args; k++) {
      const tp_pte_op_arg *a = &g_op.args[k];
      TPT_CHECK(a->name[0] != 0);
      TPT_CHECK(strcmp(tp_pte_arg_kind_name(a->kind), "?") != 0);
      TPT_CHECK(!a->elem_optional || a->is_list);
      if (a->is_out) {
        nout++;
        TPT_EQ_INT(a->kind, TP_PTE_ARG_TENSOR);
        if (a->kwarg_only) nkwout++;
      }
      if (k > 0) TPT_CHECK(a->kwarg_only >= g_op.args[k - 1].kwarg_only);
    }
    TPT_CHECK(nout >= 1);
    for (k = 0; k < g_op.num_returns; k++) {
      TPT_CHECK(g_op.returns[k] < g_op.num_args);
      TPT_CHECK(g_op.args[g_op.returns[k]].is_out);
    }
    is_inplace = g_op.overload[0] == 0 && g_op.name[strlen(g_op.name) - 1] == '_';
    if (is_inplace) {
      inplace++;
      TPT_EQ_INT(nkwout, 0);
      TPT_CHECK(g_op.args[0].is_out);
      TPT_EQ_INT(g_op.num_returns, 1);
      TPT_EQ_INT(g_op.returns[0], 0);
    } else {
      TPT_CHECK(nkwout >= 1);
      TPT_CHECK(strstr(g_op.overload, "out") || strcmp(g_op.overload, "values") == 0 ||
                strcmp(g_op.overload, "grad_input") == 0 || strcmp(g_op.overload, "dim_max") == 0 ||
                strcmp(g_op.overload, "dim_min") == 0);
    }
  }
  TPT_EQ_U64(inplace, 2); /* copy_ and index_put_ */
}

/* TP_PTE_SHAPE_RULES: sorted by key with no duplicate; every row names an operator of the
   table, a KIND of TP_PTE_SHAPE_KINDS, inputs that are non-out arguments of that operator
   (at most 5, the first one not optional) and a dtype rule of "", "=" or "~". */
#define SHAPE_ROW(name, overload, K, inputs, dtype) {name, overload, #K, inputs, dtype},
#define SHAPE_KIND(K) #K,
static void test_shape_rules(void) {
  static const struct {
    const char *name, *overload, *kind, *inputs, *dtype;
  } rows[] = {TP_PTE_SHAPE_RULES(SHAPE_ROW)};
  static const char *const kinds[] = {TP_PTE_SHAPE_KINDS(SHAPE_KIND)};
  char prev[256] = "";
  size_t r, k, used[sizeof kinds / sizeof kinds[0]];
  memset(used, 0, sizeof used);
  for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    char key[256], names[256], *tok;
    int nin = 0;
    snprintf(key, sizeof key, "%s.%s", rows[r].name, rows[r].overload);
    TPT_CHECK(strcmp(prev, key) < 0);
    memcpy(prev, key, sizeof key);
    if (!op(rows[r].name, rows[r].overload)) continue;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
      if (strcmp(kinds[k], rows[r].kind) == 0) used[k]++;
    TPT_CHECK(strcmp(rows[r].dtype, "") == 0 || strcmp(rows[r].dtype, "=") == 0 ||
              strcmp(rows[r].dtype, "~") == 0);
    snprintf(names, sizeof names, "%s", rows[r].inputs);
    for (tok = strtok(names, " "); tok; tok = strtok(NULL, " ")) {
      uint32_t a;
      for (a = 0; a < g_op.num_args && strcmp(g_op.args[a].name, tok) != 0; a++) {}
      TPT_CHECK(a < g_op.num_args);
      if (a < g_op.num_args) {
        TPT_CHECK(!g_op.args[a].is_out);
        if (nin == 0) TPT_CHECK(!g_op.args[a].optional);
      }
      nin++;
    }
    TPT_CHECK(nin >= 1 && nin <= 5);
    TPT_CHECK(g_op.num_returns >= 1);
  }
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) TPT_CHECK(used[k] > 0);
  printf("  %lu rows over %lu kinds\n", (unsigned long)(sizeof rows / sizeof rows[0]),
         (unsigned long)(sizeof kinds / sizeof kinds[0]));
}
#undef SHAPE_ROW
#undef SHAPE_KIND

/* tp_pte_op_find gives back every entry's index, by (name, overload) and by the whole key with
   no overload, as the runtime's registry resolves it. */
static void test_find_every_entry(void) {
  size_t i;
  for (i = 0; i < tp_pte_op_count(); i++) {
    char key[256];
    TPT_STATUS(tp_pte_op_at(i, &g_op), TP_OK);
    TPT_EQ_INT(tp_pte_op_find(g_op.name, g_op.overload), (int)i);
    snprintf(key, sizeof key, "%s%s%s", g_op.name, g_op.overload[0] ? "." : "", g_op.overload);
    TPT_EQ_INT(tp_pte_op_find(key, ""), (int)i);
    TPT_EQ_INT(tp_pte_op_find(key, NULL), (int)i);
  }
}

/* What the runtime does not register is refused: the functional overload, no namespace, an
   overload of another kernel, case, a prefix, an unknown op, NULL, a key longer than any. */
static void test_refuses_unknown(void) {
  char longname[400];
  tp_pte_op before;
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  TPT_EQ_INT(tp_pte_op_find("aten::add", ""), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::add", NULL), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::add", "Tensor"), -1);
  TPT_EQ_INT(tp_pte_op_find("add", "out"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::Add", "out"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::ad", "out"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::add", "ou"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::add", "outs"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::copy", ""), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::linear", "out"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::allclose", "out"), -1); /* custom_ops.yaml, another library */
  TPT_EQ_INT(tp_pte_op_find(NULL, "out"), -1);
  TPT_EQ_INT(tp_pte_op_find(longname, "out"), -1);
  TPT_EQ_INT(tp_pte_op_find("aten::add", longname), -1);
  TPT_EQ_INT(tp_pte_op_find("", ""), -1);
  memset(&g_op, 0x5a, sizeof g_op);
  before = g_op;
  TPT_STATUS(tp_pte_op_lookup("aten::add", "Tensor", &g_op), TP_ERR_UNSUPPORTED);
  TPT_STATUS(tp_pte_op_lookup(NULL, "out", &g_op), TP_ERR_UNSUPPORTED);
  TPT_STATUS(tp_pte_op_lookup("aten::add", "out", NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_op_at(tp_pte_op_count(), &g_op), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_op_at((size_t)-1, &g_op), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_op_at(0, NULL), TP_ERR_INVALID);
  TPT_CHECK(memcmp(&before, &g_op, sizeof g_op) == 0); /* untouched on failure */
}

/* The notes' fact: add.out(self, other, *, alpha, out) -> out is 5 KernelCall values, the
   last one the out tensor again; alpha a Scalar that may not be Null. mul.out is 4. */
static void test_add_mul(void) {
  if (op("aten::add", "out")) {
    TPT_EQ_INT(g_op.num_args, 4);
    TPT_EQ_INT(g_op.num_returns, 1);
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 5);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "other", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(2, "alpha", TP_PTE_ARG_SCALAR, 0, 0, 0, 1, 0);
    arg(3, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    TPT_EQ_INT(g_op.returns[0], 3);
    TPT_EQ_STR(g_op.name, "aten::add");
    TPT_EQ_STR(g_op.overload, "out");
  }
  if (op("aten::add", "Scalar_out")) { /* derived from add_.Scalar: alpha is positional */
    TPT_EQ_INT(g_op.num_args, 4);
    arg(1, "other", TP_PTE_ARG_SCALAR, 0, 0, 0, 0, 0);
    arg(2, "alpha", TP_PTE_ARG_SCALAR, 0, 0, 0, 0, 0);
    arg(3, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
  if (op("aten::mul", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "other", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(2, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    TPT_EQ_INT(g_op.returns[0], 2);
  }
}

/* clamp.out(self, Scalar? min, Scalar? max, *, out): min and max may be Null, positional. */
static void test_clamp(void) {
  if (op("aten::clamp", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 5);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "min", TP_PTE_ARG_SCALAR, 0, 1, 0, 0, 0);
    arg(2, "max", TP_PTE_ARG_SCALAR, 0, 1, 0, 0, 0);
    arg(3, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
  if (op("aten::clamp", "Tensor_out")) {
    arg(1, "min", TP_PTE_ARG_TENSOR, 0, 1, 0, 0, 0);
    arg(2, "max", TP_PTE_ARG_TENSOR, 0, 1, 0, 0, 0);
  }
}

/* sum.IntList_out(self, int[1]? dim, bool keepdim, *, ScalarType? dtype, out). */
static void test_sum(void) {
  if (op("aten::sum", "IntList_out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 6);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "dim", TP_PTE_ARG_INT, 1, 1, 0, 0, 0);
    arg(2, "keepdim", TP_PTE_ARG_BOOL, 0, 0, 0, 0, 0);
    arg(3, "dtype", TP_PTE_ARG_SCALAR_TYPE, 0, 1, 0, 1, 0);
    arg(4, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    TPT_EQ_INT(g_op.returns[0], 4);
  }
}

/* embedding.out (autogen from embedding): weight, indices, SymInt padding_idx, two bools. */
static void test_embedding(void) {
  if (op("aten::embedding", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 7);
    arg(0, "weight", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "indices", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(2, "padding_idx", TP_PTE_ARG_SYMINT, 0, 0, 0, 0, 0);
    arg(3, "scale_grad_by_freq", TP_PTE_ARG_BOOL, 0, 0, 0, 0, 0);
    arg(4, "sparse", TP_PTE_ARG_BOOL, 0, 0, 0, 0, 0);
    arg(5, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
}

/* native_layer_norm.out (autogen from a 3-return schema): out0..out2 and 3 return slots. */
static void test_layer_norm(void) {
  if (op("aten::native_layer_norm", "out")) {
    TPT_EQ_INT(g_op.num_args, 8);
    TPT_EQ_INT(g_op.num_returns, 3);
    arg(0, "input", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "normalized_shape", TP_PTE_ARG_SYMINT, 1, 0, 0, 0, 0);
    arg(2, "weight", TP_PTE_ARG_TENSOR, 0, 1, 0, 0, 0);
    arg(3, "bias", TP_PTE_ARG_TENSOR, 0, 1, 0, 0, 0);
    arg(4, "eps", TP_PTE_ARG_FLOAT, 0, 0, 0, 0, 0);
    arg(5, "out0", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    arg(6, "out1", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    arg(7, "out2", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    TPT_EQ_INT(g_op.returns[0], 5);
    TPT_EQ_INT(g_op.returns[1], 6);
    TPT_EQ_INT(g_op.returns[2], 7);
  }
  /* the running stats are written but positional; the returns alias the out= tensors only */
  if (op("aten::_native_batch_norm_legit", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 14);
    arg(3, "running_mean", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 1);
    arg(4, "running_var", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 1);
    arg(8, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
    TPT_EQ_INT(g_op.returns[0], 8);
    TPT_EQ_INT(g_op.returns[1], 9);
    TPT_EQ_INT(g_op.returns[2], 10);
  }
}

/* mm.out / bmm.out(self, mat2, *, out); _softmax.out(self, int dim, bool half_to_float, *,
   out); gelu.out(self, *, str approximate, out). */
static void test_matmul_softmax_gelu(void) {
  if (op("aten::mm", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(1, "mat2", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(2, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
  if (op("aten::bmm", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
    arg(1, "mat2", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 0);
  }
  if (op("aten::_softmax", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 5);
    arg(1, "dim", TP_PTE_ARG_INT, 0, 0, 0, 0, 0);
    arg(2, "half_to_float", TP_PTE_ARG_BOOL, 0, 0, 0, 0, 0);
    arg(3, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
  if (op("aten::gelu", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(1, "approximate", TP_PTE_ARG_STRING, 0, 0, 0, 1, 0);
    arg(2, "out", TP_PTE_ARG_TENSOR, 0, 0, 0, 1, 1);
  }
}

/* index.Tensor_out takes a Tensor?[] (OptionalTensorList), cat.out a Tensor[]; split_copy
   writes a Tensor[] and returns nothing; copy_ writes its self and returns it. */
static void test_lists_and_inplace(void) {
  if (op("aten::index", "Tensor_out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(1, "indices", TP_PTE_ARG_TENSOR, 1, 0, 1, 0, 0);
  }
  if (op("aten::cat", "out")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(0, "tensors", TP_PTE_ARG_TENSOR, 1, 0, 0, 0, 0);
    arg(1, "dim", TP_PTE_ARG_INT, 0, 0, 0, 0, 0);
  }
  if (op("aten::split_copy", "Tensor_out")) {
    TPT_EQ_INT(g_op.num_args, 4);
    TPT_EQ_INT(g_op.num_returns, 0);
    arg(1, "split_size", TP_PTE_ARG_SYMINT, 0, 0, 0, 0, 0);
    arg(3, "out", TP_PTE_ARG_TENSOR, 1, 0, 0, 1, 1);
  }
  if (op("aten::copy_", "")) {
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 4);
    arg(0, "self", TP_PTE_ARG_TENSOR, 0, 0, 0, 0, 1);
    arg(2, "non_blocking", TP_PTE_ARG_BOOL, 0, 0, 0, 0, 0);
  }
  /* the tensor options dtype/layout/device/pin_memory are dropped from autogen'd outs */
  if (op("aten::_to_copy", "out")) {
    TPT_EQ_INT(g_op.num_args, 4);
    arg(1, "non_blocking", TP_PTE_ARG_BOOL, 0, 0, 0, 1, 0);
    arg(2, "memory_format", TP_PTE_ARG_MEMORY_FORMAT, 0, 1, 0, 1, 0);
  }
  if (op("aten::upsample_nearest2d", "vec_out")) {
    arg(1, "output_size", TP_PTE_ARG_SYMINT, 1, 1, 0, 0, 0);
    arg(2, "scale_factors", TP_PTE_ARG_FLOAT, 1, 1, 0, 0, 0);
  }
  if (op("dim_order_ops::_to_dim_order_copy", "out")) { /* ExecuTorch's own, from functions.yaml */
    TPT_EQ_INT(g_op.num_args + g_op.num_returns, 5);
    arg(2, "dim_order", TP_PTE_ARG_INT, 1, 1, 0, 1, 0);
  }
}

/* Every kind has its schema spelling; anything else is "?". */
static void test_kind_names(void) {
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_TENSOR), "Tensor");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_SCALAR), "Scalar");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_INT), "int");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_SYMINT), "SymInt");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_FLOAT), "float");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_BOOL), "bool");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_STRING), "str");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_SCALAR_TYPE), "ScalarType");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_MEMORY_FORMAT), "MemoryFormat");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_LAYOUT), "Layout");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_DEVICE), "Device");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_GENERATOR), "Generator");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_NONE), "?");
  TPT_EQ_STR(tp_pte_arg_kind_name(TP_PTE_ARG_END__), "?");
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_table);
  TPT_RUN(test_find_every_entry);
  TPT_RUN(test_shape_rules);
  TPT_RUN(test_refuses_unknown);
  TPT_RUN(test_add_mul);
  TPT_RUN(test_clamp);
  TPT_RUN(test_sum);
  TPT_RUN(test_embedding);
  TPT_RUN(test_layer_norm);
  TPT_RUN(test_matmul_softmax_gelu);
  TPT_RUN(test_lists_and_inplace);
  TPT_RUN(test_kind_names);
  return tpt_finish("pte_ops");
}
