/* 07_gpt2_converter.c - a real converter: a GPT-2 attention block from a safetensors file to an
   XNNPACK blob with named constants in a .ptd, every weight a view of the file's bytes.

   GPT-2 stores its attention as Conv1D layers: c_attn.weight is [E, 3E] (in, out) with q, k and
   v side by side along the last dim; c_proj.weight is [E, E] (in, out). XNNPACK's fully
   connected wants [out, in]. So q's weight is chunk(c_attn.weight, 3, dim 1)[0] transposed: a
   view with strides (1, 3E) into the file, never a copy the converter makes. tensorpack writes
   exactly its E x E floats in row-major order (the bug this library kills: writing "the
   storage from its first byte" would give q the whole fused matrix, or k's columns).

   The graph: x [B, E] (external 0) -> q, k, v (external outputs 1, 2, 3, each x W^T + b) and
   y = c_proj(v) (external output 4). For one token (T = 1, each of the B rows its own sequence)
   softmax over a single key is 1, so attention(q, k, v) = v and y is the block's output. Longer
   sequences need a batched matmul, which Debian's 2022 XNNPACK does not have; q and k are
   outputs so that a runner can do that part itself.

   Usage: 07_gpt2_converter [IN.safetensors [OUT]]    writes OUT.xnn (the blob), OUT.ptd (its
   named constants) and OUT.pte (a program whose method "forward" calls the blob); OUT defaults
   to "gpt2_attn". Run the program with ExecuTorch's own executor_runner built with the XNNPACK
   backend (-DEXECUTORCH_BUILD_XNNPACK=ON; tools/et-runner.sh builds one):
     executor_runner --model_path OUT.pte --data_path OUT.ptd
   (without --data_path ExecuTorch refuses the method: "Failed to get constant data for key").
   On its all-ones input the outputs q, k, v, y are computed here too: first values and sums
   printed, all of them in OUT.expected (`make check-et` compares the runner's output).
   Without IN it first writes a small sample, gpt2_attn_sample.safetensors (E = 64,
   names "transformer.h.0.attn.*"), so it runs anywhere. Tensor names are found by their
   suffix (c_attn.weight, c_attn.bias, c_proj.weight, c_proj.bias), any prefix. The .ptd write
   shows a progress bar. The program checks its own output: it reopens the .ptd and compares q's
   weight with the file's columns, element by element.

   Build: cc -std=c99 -I. examples/07_gpt2_converter.c -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

#define BATCH 4

/* A sample GPT-2 attention block, E = 64, weights from a fixed sequence. */
static int write_sample(const char *path) {
  enum { E = 64 };
  static float w[E * 3 * E + 3 * E + E * E + E];
  char header[1024];
  unsigned char len[8];
  size_t i, hl;
  FILE *f;
  for (i = 0; i < sizeof w / sizeof w[0]; i++) w[i] = (float)((int)((i * 7919u) % 2001u) - 1000) / 4000.0f;
  snprintf(header, sizeof header,
           "{\"__metadata__\":{\"format\":\"pt\"},"
           "\"transformer.h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[0,%d]},"
           "\"transformer.h.0.attn.c_attn.bias\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%d,%d]},"
           "\"transformer.h.0.attn.c_proj.weight\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%d,%d]},"
           "\"transformer.h.0.attn.c_proj.bias\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%d,%d]}}",
           E, 3 * E, 4 * 3 * E * E, 3 * E, 4 * 3 * E * E, 4 * (3 * E * E + 3 * E), E, E,
           4 * (3 * E * E + 3 * E), 4 * (4 * E * E + 3 * E), E, 4 * (4 * E * E + 3 * E),
           4 * (4 * E * E + 4 * E));
  hl = strlen(header);
  tp__put_le64(len, (uint64_t)hl);
  f = fopen(path, "wb");
  if (!f) return 1;
  if (fwrite(len, 1, 8, f) != 8 || fwrite(header, 1, hl, f) != hl) {
    fclose(f);
    return 1;
  }
  for (i = 0; i < sizeof w / sizeof w[0]; i++) {   /* little-endian floats on every host */
    unsigned char b[4];
    uint32_t u;
    memcpy(&u, &w[i], 4);
    tp__put_le32(b, u);
    if (fwrite(b, 1, 4, f) != 4) {
      fclose(f);
      return 1;
    }
  }
  return fclose(f) != 0;
}

/* The tensor whose name ends with suffix. */
static int find_suffix(const tp_safetensors *st, const char *suffix, tp_tensor *out,
                       const char **name) {
  size_t i, n = tp_safetensors_count(st), sl = strlen(suffix);
  for (i = 0; i < n; i++) {
    const char *nm;
    size_t l;
    if (tp_safetensors_get(st, i, &nm, NULL) != TP_OK) continue;
    l = strlen(nm);
    if (l >= sl && strcmp(nm + l - sl, suffix) == 0) {
      *name = nm;
      if (tp_safetensors_get(st, i, NULL, out) != TP_OK) {
        fprintf(stderr, "error: %s\n", tp_safetensors_error(st));
        return 1;
      }
      if (out->dtype != TP_F32) {
        fprintf(stderr, "error: %s is %s; this converter takes F32\n", nm,
                tp_dtype_name(out->dtype));
        return 1;
      }
      return 0;
    }
  }
  fprintf(stderr, "error: no tensor named *%s\n", suffix);
  return 1;
}

/* Element (r, c) of a 2-D F32 view (or element r of a 1-D one, c = 0) of a little-endian file
   in memory: read through the view's offset and strides, byte by byte (no alignment needed). */
static double at(const tp_tensor *t, int64_t r, int64_t c) {
  const unsigned char *b = (const unsigned char *)t->storage.data;
  int64_t e = t->offset + r * t->strides[0] + (t->ndim > 1 ? c * t->strides[1] : 0);
  uint32_t u = tp__get_le32(b + (size_t)e * 4);
  float f;
  memcpy(&f, &u, 4);
  return (double)f;
}

/* What executor_runner gives on its all-ones input x: q, k, v = rowsum(W) + b in every row,
   y = v W_proj^T + b_proj. Prints first values and sums; writes OUT.expected. */
static int expect_all_ones(const char *path, const char *pte, const char *ptd, const tp_tensor *wq,
                           const tp_tensor *bq, const tp_tensor *pw, const tp_tensor *pb,
                           int64_t E) {
  double *v = (double *)malloc((size_t)(4 * E) * sizeof(double));
  const char *name[4] = {"q", "k", "v", "y"};
  FILE *f;
  int64_t o, i;
  int k, b, rc = 0;
  if (!v) return 1;
  for (k = 0; k < 3; k++)
    for (o = 0; o < E; o++) {
      v[k * E + o] = at(&bq[k], o, 0);
      for (i = 0; i < E; i++) v[k * E + o] += at(&wq[k], o, i);
    }
  for (o = 0; o < E; o++) {
    v[3 * E + o] = at(pb, o, 0);
    for (i = 0; i < E; i++) v[3 * E + o] += v[2 * E + i] * at(pw, o, i);
  }
  f = fopen(path, "w");
  if (f) {
    fprintf(f, "# %s on all-ones inputs (examples/07_gpt2_converter.c)\nbackend XnnpackBackend\n"
               "data %s\n", pte, ptd);
    for (k = 0; k < 4; k++) {
      fprintf(f, "output %d %lld", k, (long long)(BATCH * E));
      for (b = 0; b < BATCH; b++)
        for (o = 0; o < E; o++) fprintf(f, " %.9g", v[k * E + o]);
      fprintf(f, "\n");
    }
  }
  if (!f || fclose(f) != 0) {
    fprintf(stderr, "error: cannot write %s\n", path);
    rc = 1;
  }
  printf("run: executor_runner --model_path %s --data_path %s   (a runner built with "
         "-DEXECUTORCH_BUILD_XNNPACK=ON)\n", pte, ptd);
  for (k = 0; k < 4; k++) {
    double sum = 0;
    for (o = 0; o < E; o++) sum += BATCH * v[k * E + o];
    printf("  all-ones input -> output %d (%s) [%d, %lld]: %.6f %.6f %.6f ... sum %.6f\n", k,
           name[k], BATCH, (long long)E, v[k * E], v[k * E + 1], v[k * E + 2], sum);
  }
  printf("  (all values in %s)\n", path);
  free(v);
  return rc;
}

int main(int argc, char **argv) {
  const char *in = argc > 1 ? argv[1] : "gpt2_attn_sample.safetensors";
  const char *out = argc > 2 ? argv[2] : "gpt2_attn";
  char xnn_path[512], ptd_path[512], pte_path[512], ex_path[512];
  tp_pte *pte = NULL;
  uint64_t pte_size = 0;
  tp_safetensors *st = NULL;
  tp_progress_bar bar = {NULL, NULL, 0};
  tp_error err;
  tp_tensor attn_w, attn_b, proj_w, proj_b, cq[3], wq[3], bq[3], pw;
  const char *names[4];
  tp_store_options so;
  tp_store *store = NULL;
  tp_xnn_options xo;
  tp_xnn_graph *g = NULL;
  size_t xd[2], yd[2];
  uint32_t x, o[3], y;
  uint64_t blob_size = 0, ptd_size = 0;
  int64_t E;
  int i, rc = 1;
  const char *kq = NULL;

  if (argc <= 1 && write_sample(in) != 0) {
    fprintf(stderr, "error: cannot write %s\n", in);
    return 1;
  }
  snprintf(xnn_path, sizeof xnn_path, "%s.xnn", out);
  snprintf(ptd_path, sizeof ptd_path, "%s.ptd", out);
  snprintf(pte_path, sizeof pte_path, "%s.pte", out);
  snprintf(ex_path, sizeof ex_path, "%s.expected", out);
  /* 1. The file's tensors, as views into its bytes (mapped, nothing is copied). */
  if (tp_safetensors_open_file(in, &st, &err) != TP_OK) {
    fprintf(stderr, "error: %s\n", err.msg);  /* names the file */
    goto done;
  }
  if (find_suffix(st, "c_attn.weight", &attn_w, &names[0]) ||
      find_suffix(st, "c_attn.bias", &attn_b, &names[1]) ||
      find_suffix(st, "c_proj.weight", &proj_w, &names[2]) ||
      find_suffix(st, "c_proj.bias", &proj_b, &names[3]))
    goto done;
  E = attn_w.ndim == 2 ? attn_w.sizes[0] : 0;
  if (E <= 0 || attn_w.sizes[1] != 3 * E || attn_b.ndim != 1 || attn_b.sizes[0] != 3 * E ||
      proj_w.ndim != 2 || proj_w.sizes[0] != E || proj_w.sizes[1] != E || proj_b.ndim != 1 ||
      proj_b.sizes[0] != E) {
    fprintf(stderr, "error: shapes are not a GPT-2 attention block (c_attn.weight [E, 3E], "
                    "c_attn.bias [3E], c_proj.weight [E, E], c_proj.bias [E])\n");
    goto done;
  }
  printf("%s: %lu tensors, E = %lld\n", in, (unsigned long)tp_safetensors_count(st),
         (long long)E);

  /* 2. q, k, v: chunks of the fused Conv1D weight along its last dim ([in, out] each), as
        XNNPACK's [out, in] (tp_xnn_fc_filter_from_conv1d: the transposed view
        tp_xnn_define_linear_torch makes of a Conv1D weight); their biases: chunks of the fused
        bias. All views. */
  for (i = 0; i < 3; i++)
    if (tp_chunk(&attn_w, 3, 1, i, &cq[i], NULL) ||
        tp_xnn_fc_filter_from_conv1d(&cq[i], &wq[i], &err) ||
        tp_chunk(&attn_b, 3, 0, i, &bq[i], NULL))
      goto done;
  if (tp_xnn_fc_filter_from_conv1d(&proj_w, &pw, &err)) goto done;  /* c_proj as [out, in] */
  printf("  q weight: view [%lld, %lld] strides (%lld, %lld) offset %lld of %s (contiguous: %s)\n",
         (long long)wq[0].sizes[0], (long long)wq[0].sizes[1], (long long)wq[0].strides[0],
         (long long)wq[0].strides[1], (long long)wq[0].offset, names[0],
         tp_is_contiguous(&wq[0]) ? "yes" : "no");
  printf("  v weight: offset %lld; v bias: offset %lld of %s\n", (long long)wq[2].offset,
         (long long)bq[2].offset, names[1]);

  /* 3. The graph, constants named in a store (the .ptd). */
  memset(&so, 0, sizeof so);
  bar.label = ptd_path;
  so.progress = tp_progress_bar_fn;  /* a bar on stderr */
  so.progress_ctx = &bar;
  memset(&xo, 0, sizeof xo);
  if (tp_store_create(&so, &store) != TP_OK) goto done;
  xo.store = store;
  if (tp_xnn_graph_create(&xo, &g) != TP_OK) goto done;
  xd[0] = BATCH;
  xd[1] = (size_t)E;
  yd[0] = BATCH;
  yd[1] = (size_t)E;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  /* the Conv1D weights [in, out] as they lie (conv1d = 1): the call defines the [out, in] view */
  for (i = 0; i < 3; i++) {
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, (uint32_t)(1 + i),
                               TP_XNN_FLAG_EXTERNAL_OUTPUT, &o[i]);
    tp_xnn_define_linear_torch(g, -INFINITY, INFINITY, x, &cq[i], 1, &bq[i], o[i], NULL, NULL);
  }
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 4, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_linear_torch(g, -INFINITY, INFINITY, o[2], &proj_w, 1, &proj_b, y, NULL, NULL);

  /* 4. Write: the blob, then the .ptd (with a progress bar). Errors stick: one check each;
        a save prints the sentence of a failure itself. */
  if (tp_xnn_save(g, xnn_path, &blob_size) != TP_OK ||
      tp_store_save_ptd(store, ptd_path, &ptd_size) != TP_OK)
    goto done;
  /* ... and the same graph as a program: method "forward" calling the blob; its constants are
     the .ptd's named data (ExecuTorch's executor_runner --model_path OUT.pte --data_path OUT.ptd). */
  if (tp_pte_create(NULL, &pte) != TP_OK) goto done;
  tp_xnn_add_pte_method(pte, "forward", g);  /* its error sticks in pte: tp_pte_save prints it */
  if (tp_pte_save(pte, pte_path, &pte_size) != TP_OK) goto done;
  printf("wrote %s (%llu bytes), %s (%llu bytes, %lu named constants) and %s (%llu bytes)\n",
         xnn_path, (unsigned long long)blob_size, ptd_path, (unsigned long long)ptd_size,
         (unsigned long)tp_store_count(store), pte_path, (unsigned long long)pte_size);

  /* 5. Check: q's weight in the .ptd is row o = column o of c_attn.weight, for every o. */
  {
    tp_ptd p;
    tp_ptd_entry e;
    tp_buffer b;
    char key[65];
    int64_t r, c, bad = 0;
    const unsigned char *wb = (const unsigned char *)attn_w.storage.data;
    if (tp_compact(&wq[0], TP_ORDER_ROW_MAJOR, &b) != TP_OK) goto done;
    tp_sha256_hex(b.data, b.nbytes, key);
    tp_buffer_release(&b);
    kq = key;
    if (tp_ptd_open_file(&p, ptd_path) != TP_OK || tp_ptd_find(&p, kq, &e) != TP_OK ||
        e.nbytes != (size_t)(E * E * 4)) {
      fprintf(stderr, "check failed: q's weight is not in %s under %s (%s)\n", ptd_path, kq,
              tp_ptd_error(&p)[0] ? tp_ptd_error(&p) : tp_ptd_lookup_error(&p));
      tp_ptd_close(&p);
      goto done;
    }
    for (r = 0; r < E; r++)
      for (c = 0; c < E; c++)   /* entry [r][c] = c_attn.weight[c][r] (q is columns 0..E-1) */
        bad += memcmp((const unsigned char *)e.data + (size_t)(r * E + c) * 4,
                      wb + (size_t)(c * 3 * E + r) * 4, 4) != 0;
    tp_ptd_close(&p);
    if (bad) {
      fprintf(stderr, "check failed: %lld of q's weights differ\n", (long long)bad);
      goto done;
    }
    printf("check: q's weight in %s (key %.16s...) is exactly columns 0..%lld of %s, "
           "transposed\n", ptd_path, kq, (long long)(E - 1), names[0]);
  }
  if (expect_all_ones(ex_path, pte_path, ptd_path, wq, bq, &pw, &proj_b, E) != 0) goto done;
  rc = 0;
done:
  tp_pte_destroy(pte);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(store);
  tp_safetensors_close(st);  /* unmaps the file */
  return rc;
}
