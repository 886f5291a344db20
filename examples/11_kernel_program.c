/* 11_kernel_program.c - programs whose methods call ExecuTorch's portable kernels, alone and
   beside an XNNPACK delegate call, with constants that are views.

   PyTorch:
     c = torch.randn(3, 4).t()[1:3]                  # a transposed slice: [2, 3]
     def kernels(x):  return ((x + c) * 2.5).clamp(0, 4).sum(dim=1)        # x: [2, 3]
     wte = torch.randn(12, 8)[2:]                     # rows 2..11: a view 16 floats in
     W = torch.randn(3, 8, 8)[1]                      # a view 64 floats in
     def mixed(tokens):  return torch.relu(F.embedding(tokens, wte) @ W.T)  # tokens: [1, 4]
   kernels.pte runs on the portable kernels only (add, mul, clamp, sum); mixed.pte runs
   embedding and relu on them and the linear in an XNNPACK delegate, in one chain. Every
   intermediate tensor is memory-planned by tp_pte_graph_finish; the constants are their views'
   bytes, compacted into the program's constant segment (never their storages'). Each call is
   checked against TP_PTE_OPS (the portable kernels' schemas) when it is added.

   Run the files with ExecuTorch's executor_runner (portable ops, and for mixed.pte the XNNPACK
   backend: -DEXECUTORCH_BUILD_XNNPACK=ON; tools/et-runner.sh builds one):
     executor_runner --model_path kernels.pte
   It fills the inputs with ones (tokens: 1); the program prints what to expect and writes it to
   NAME.expected (`make check-et` compares the runner's output with it).

   Build: cc -std=c99 -I. examples/11_kernel_program.c -lm    Run: ./a.out [DIR] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

/* NAME.expected: the backend the runner needs, then output 0's values. */
static int write_expected(const char *dir, const char *name, const char *backend,
                          const double *v, int n) {
  char path[600];
  FILE *e;
  int i;
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  e = fopen(path, "w");
  if (!e) return 0;
  fprintf(e, "# %s/%s.pte on all-ones inputs (examples/11_kernel_program.c)\nbackend %s\n"
             "output 0 %d", dir, name, backend, n);
  for (i = 0; i < n; i++) fprintf(e, " %.9g", v[i]);
  fprintf(e, "\n");
  return fclose(e) == 0;
}

/* Writes p to DIR/NAME.pte, reads it back and checks its first method has n_kernels kernel
   calls and n_delegates delegates. */
static int save_and_check(tp_pte *p, const char *dir, const char *name, size_t n_ops,
                          size_t n_delegates) {
  char path[600];
  uint64_t size = 0;
  tp_pte_file f;
  tp_pte_method_info mi;
  int ok;
  snprintf(path, sizeof path, "%s/%s.pte", dir, name);
  if (tp_pte_save(p, path, &size) != TP_OK) return 0; /* prints the sentence */
  ok = tp_pte_read_file(&f, path) == TP_OK && tp_pte_method_at(&f, 0, &mi) == TP_OK &&
       mi.n_operators == n_ops && mi.n_delegates == n_delegates;
  printf("wrote %s: %lu bytes, %lu operators, %lu delegates, %llu planned bytes: %s\n", path,
         (unsigned long)size, ok ? (unsigned long)mi.n_operators : 0ul,
         ok ? (unsigned long)mi.n_delegates : 0ul,
         ok ? (unsigned long long)mi.planned_bytes : 0ull, ok ? "read back" : "NOT READ");
  if (!ok && f.err.status != TP_OK) fprintf(stderr, "error: %s\n", f.err.msg);
  tp_pte_close(&f);
  return ok;
}

static tp_pte_tensor tensor(unsigned role, tp_dtype dt, int ndim, const int64_t *sizes) {
  tp_pte_tensor t;
  int d;
  memset(&t, 0, sizeof t);
  t.role = role;
  t.dtype = dt;
  t.ndim = ndim;
  for (d = 0; d < ndim; d++) t.sizes[d] = sizes[d];
  return t;
}

/* y = sum(clamp((x + c) * 2.5, 0, 4), dim=[1]) on the portable kernels. */
static int kernels(const char *dir) {
  static float cst[3 * 4];
  int64_t csz[2] = {3, 4}, x2[2] = {2, 3}, y1[1] = {2}, dim1 = 1;
  tp_storage s = {cst, sizeof cst};
  tp_tensor parent, ct, c;
  tp_pte *p;
  tp_pte_graph *g;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT, TP_F32, 2, x2), tt = tensor(0, TP_F32, 2, x2);
  tp_pte_tensor ty = tensor(TP_PTE_OUTPUT, TP_F32, 1, y1);
  uint32_t x, cv, t1, t2, t3, y, one, k25, zero, four, dims, keep, none;
  double want[2];
  int i, r, j, ok;
  for (i = 0; i < 12; i++) cst[i] = (float)(i % 5) * 0.75f - 1.5f; /* any values */
  tp_view(s, TP_F32, 2, csz, NULL, 0, &parent, NULL);
  tp_transpose(&parent, 0, 1, &ct, NULL); /* [4, 3] */
  tp_narrow(&ct, 0, 1, 2, &c, NULL); /* rows 1, 2: c[r][j] = cst[j * 4 + 1 + r] */

  tp_pte_create(NULL, &p);
  tp_pte_graph_create(p, "forward", &g); /* every failure below sticks in g, then in p */
  tp_pte_define_tensor(g, &tx, &x);
  tp_pte_define_constant(g, &c, &cv);
  tp_pte_define_tensor(g, &tt, &t1); /* role 0: intermediates, planned */
  tp_pte_define_tensor(g, &tt, &t2);
  tp_pte_define_tensor(g, &tt, &t3);
  tp_pte_define_tensor(g, &ty, &y);
  tp_pte_define_int(g, 1, &one);
  tp_pte_define_double(g, 2.5, &k25);
  tp_pte_define_int(g, 0, &zero);
  tp_pte_define_int(g, 4, &four);
  tp_pte_define_int_list(g, &dim1, 1, &dims);
  tp_pte_define_bool(g, 0, &keep);
  tp_pte_define_null(g, &none);
  { /* arguments in schema order, then the return slot (the out tensor again) */
    uint32_t add[5], mul[4], clamp[5], sum[6];
    add[0] = x, add[1] = cv, add[2] = one, add[3] = t1, add[4] = t1;
    mul[0] = t1, mul[1] = k25, mul[2] = t2, mul[3] = t2;
    clamp[0] = t2, clamp[1] = zero, clamp[2] = four, clamp[3] = t3, clamp[4] = t3;
    sum[0] = t3, sum[1] = dims, sum[2] = keep, sum[3] = none, sum[4] = y, sum[5] = y;
    tp_pte_call_kernel(g, "aten::add", "out", add, 5);        /* add.out(self, other, *, alpha) */
    tp_pte_call_kernel(g, "aten::mul", "Scalar_out", mul, 4); /* mul.Scalar_out(self, other) */
    tp_pte_call_kernel(g, "aten::clamp", "out", clamp, 5);    /* clamp.out(self, min?, max?) */
    tp_pte_call_kernel(g, "aten::sum", "IntList_out", sum, 6); /* sum(self, dim, keepdim, dtype) */
  }
  if (tp_pte_graph_finish(g) != TP_OK) {
    fprintf(stderr, "error: %s\n", tp_pte_error(p));
    tp_pte_destroy(p);
    return 0;
  }
  ok = save_and_check(p, dir, "kernels", 4, 0);
  tp_pte_destroy(p);
  for (r = 0; r < 2; r++) {
    want[r] = 0;
    for (j = 0; j < 3; j++) {
      double v = (1.0 + (double)cst[j * 4 + 1 + r]) * 2.5;
      want[r] += v < 0 ? 0 : v > 4 ? 4 : v;
    }
  }
  printf("run: executor_runner --model_path %s/kernels.pte   (portable ops)\n"
         "  all-ones input -> output 0 [2]: %.6f %.6f\n", dir, want[0], want[1]);
  return ok && write_expected(dir, "kernels", "portable", want, 2);
}

/* y = relu(embedding(tokens, wte) @ W.T): embedding and relu on the portable kernels, the
   linear in an XNNPACK delegate. */
static int mixed(const char *dir) {
  static float big[12 * 8], wst[3 * 8 * 8];
  int64_t bsz[2] = {12, 8}, wsz[3] = {3, 8, 8}, tok[2] = {1, 4}, h3[3] = {1, 4, 8};
  tp_storage bs = {big, sizeof big}, ws = {wst, sizeof wst};
  tp_tensor bigv, wte, wparent, w;
  tp_xnn_graph *xg;
  tp_pte *p;
  tp_pte_graph *g;
  size_t xd[3] = {1, 4, 8};
  uint32_t xx, xw, xy, tv, wv, e, h, y, pad, no, a[7];
  tp_pte_tensor tt = tensor(TP_PTE_INPUT, TP_I64, 2, tok), th = tensor(0, TP_F32, 3, h3);
  tp_pte_tensor ty = tensor(TP_PTE_OUTPUT, TP_F32, 3, h3);
  double want[32];
  int i, o, t, ok;
  for (i = 0; i < 12 * 8; i++) big[i] = (float)((i * 7) % 11) * 0.25f - 1.25f;
  for (i = 0; i < 3 * 8 * 8; i++) wst[i] = (float)((i * 5) % 13) * 0.125f - 0.75f;
  tp_view(bs, TP_F32, 2, bsz, NULL, 0, &bigv, NULL);
  tp_narrow(&bigv, 0, 2, 10, &wte, NULL); /* rows 2..11: 16 floats in */
  tp_view(ws, TP_F32, 3, wsz, NULL, 0, &wparent, NULL);
  tp_select(&wparent, 0, 1, &w, NULL); /* W = storage[1]: 64 floats in */

  tp_xnn_graph_create(NULL, &xg); /* the linear: externals 0 (in) and 1 (out) */
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 3, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xx);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &xw);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 3, xd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &xy);
  tp_xnn_define_fully_connected(xg, -INFINITY, INFINITY, xx, xw, TP_XNN_INVALID_ID, xy, 0);

  tp_pte_create(NULL, &p);
  tp_pte_graph_create(p, "forward", &g);
  tp_pte_define_tensor(g, &tt, &tv);
  tp_pte_define_constant(g, &wte, &wv);
  tp_pte_define_tensor(g, &th, &e);
  tp_pte_define_tensor(g, &th, &h);
  tp_pte_define_tensor(g, &ty, &y);
  tp_pte_define_int(g, -1, &pad);
  tp_pte_define_bool(g, 0, &no);
  /* embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out) */
  a[0] = wv, a[1] = tv, a[2] = pad, a[3] = no, a[4] = no, a[5] = e, a[6] = e;
  tp_pte_call_kernel(g, "aten::embedding", "out", a, 7);
  a[0] = e, a[1] = h; /* the delegate's externals, in external-id order */
  tp_xnn_pte_call(g, xg, a, 2);
  a[0] = h, a[1] = y, a[2] = y; /* relu.out(self, *, out) */
  tp_pte_call_kernel(g, "aten::relu", "out", a, 3);
  if (tp_pte_graph_finish(g) != TP_OK) {
    fprintf(stderr, "error: %s\n", tp_pte_error(p));
    tp_pte_destroy(p);
    tp_xnn_graph_destroy(xg);
    return 0;
  }
  ok = save_and_check(p, dir, "mixed", 2, 1);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(xg);
  /* tokens all 1: every row is wte[1] = big[3] through W, then relu */
  for (t = 0; t < 4; t++)
    for (o = 0; o < 8; o++) {
      double acc = 0;
      for (i = 0; i < 8; i++) acc += (double)wst[64 + o * 8 + i] * (double)big[3 * 8 + i];
      want[t * 8 + o] = acc > 0 ? acc : 0;
    }
  printf("run: executor_runner --model_path %s/mixed.pte   (-DEXECUTORCH_BUILD_XNNPACK=ON)\n"
         "  all-ones tokens -> output 0 [1, 4, 8]: %.6f %.6f %.6f %.6f ...\n", dir, want[0],
         want[1], want[2], want[3]);
  return ok && write_expected(dir, "mixed", "XnnpackBackend", want, 32);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  int ok = kernels(dir);
  ok = mixed(dir) && ok;
  return ok ? 0 : 1;
}
