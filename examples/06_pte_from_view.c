/* 06_pte_from_view.c - a program (.pte) ExecuTorch's runtime runs, whose weight is a view.

   PyTorch: storage = torch.randn(3, 8, 8); W = storage[1]; y = x @ W.T as method "forward".
   tp_xnn_add_pte_method makes the graph a method: its externals become the method's memory-
   planned input and output, the blob goes into a segment. The check below reads the program
   back and finds the view's 64 floats, not the storage's first 64, in the blob's segment.

   Run the file with ExecuTorch's own executor_runner built with the XNNPACK backend
   (-DEXECUTORCH_BUILD_XNNPACK=ON, which ExecuTorch leaves off by default; tools/et-runner.sh
   builds one): executor_runner --model_path model.pte. It fills the input with ones, so y[b][o]
   is the sum of W's row o: the program prints the first values and their sum, and writes them
   all to model.expected (tools/check-et.sh, `make check-et`, compares the runner's output).

   Build: cc -std=c99 -I. examples/06_pte_from_view.c -lm    Run: ./a.out [model.pte] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

static int holds(const void *hay, size_t n, const void *needle, size_t m) {
  size_t i;
  for (i = 0; i + m <= n; i++)
    if (memcmp((const char *)hay + i, needle, m) == 0) return 1;
  return 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "model.pte";
  static float storage[3 * 8 * 8];
  int64_t sz[3] = {3, 8, 8};
  tp_storage s = {storage, sizeof storage};
  tp_tensor parent, w;
  tp_xnn_graph *g;
  tp_pte *p;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8};
  uint32_t x, wt, y;
  uint64_t size = 0;
  tp_pte_file f;
  tp_pte_delegate_info d;
  int i, ok;

  for (i = 0; i < 3 * 8 * 8; i++) storage[i] = (float)i / 64.0f; /* any values */
  tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL); /* W = storage[1]: a view 64 floats in */
  tp_xnn_graph_create(NULL, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);

  tp_pte_create(NULL, &p);                               /* NULL options: segments 128-aligned */
  tp_xnn_add_pte_method(p, "forward", g);                /* errors stick in p */
  if (tp_pte_save(p, path, &size) != TP_OK) return 1;    /* prints the sentence on failure */

  /* the check: our bounds-checked reader finds the blob in the file; it holds W's bytes, not
     storage[0] (on a little-endian host, where the file's floats are the host's) */
  ok = tp_pte_read_file(&f, path) == TP_OK && tp_pte_delegate_at(&f, 0, 0, &d) == TP_OK &&
       holds(d.data, (size_t)d.nbytes, storage + 64, 256) &&
       !holds(d.data, (size_t)d.nbytes, storage, 256);
  printf("wrote %s: %lu bytes, method \"forward\" calls %s; its blob holds storage[64..128): %s\n",
         path, (unsigned long)size, ok ? d.id : "?", ok ? "yes" : "NO");
  if (!ok && f.err.status != TP_OK) fprintf(stderr, "error: %s\n", f.err.msg);
  tp_pte_close(&f);                                      /* unmaps the file */
  /* what executor_runner gives on its all-ones input: y[b][o] = sum_i W[o][i], every row b */
  {
    char ex[520];
    size_t n = strlen(path);
    double y[8], sum = 0;
    int o, b;
    FILE *e;
    for (o = 0; o < 8; o++) {
      y[o] = 0;
      for (i = 0; i < 8; i++) y[o] += (double)storage[64 + o * 8 + i];
      sum += 2 * y[o];
    }
    snprintf(ex, sizeof ex, "%.*s.expected", (int)(n > 4 && strcmp(path + n - 4, ".pte") == 0 ? n - 4 : n), path);
    e = fopen(ex, "w");
    if (e) {
      fprintf(e, "# %s on all-ones inputs (examples/06_pte_from_view.c)\nbackend XnnpackBackend\n"
                 "output 0 16", path);
      for (b = 0; b < 2; b++)
        for (o = 0; o < 8; o++) fprintf(e, " %.9g", y[o]);
      fprintf(e, "\n");
    }
    if (!e || fclose(e) != 0) {
      fprintf(stderr, "error: cannot write %s\n", ex);
      ok = 0;
    }
    printf("run: executor_runner --model_path %s   (a runner built with -DEXECUTORCH_BUILD_XNNPACK=ON)\n"
           "  all-ones input -> output 0 [2, 8]: %.6f %.6f %.6f %.6f ... sum %.6f (all in %s)\n",
           path, y[0], y[1], y[2], y[3], sum, ex);
  }
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  return ok ? 0 : 1;
}
