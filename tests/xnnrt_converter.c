/* xnnrt_converter.c - example 07 (a GPT-2 attention block from safetensors) end to end on the
   real XNNPACK: the test writes its own safetensors file (random Conv1D weights, E = 24, a
   prefix the example must find by suffix), runs the built example on it, loads the blob + .ptd
   it wrote with tp_xnn_load, and compares q, k, v and y = c_proj(v) for 4 tokens with a
   double-precision reference computed here from the file's own numbers; its .pte holds the same
   blob. Also: the example
   refuses a file whose shapes are not an attention block, and leaves no output then. */
#include <math.h>
#include <stdlib.h>

#define TENSORPACK_XNNPACK_RUNTIME
#include "tensorpack_xnnpack.h"
#include "tp_test.h"

#ifndef TP_EXAMPLE07
#error "build with -DTP_EXAMPLE07=\"path of the built examples/07_gpt2_converter\""
#endif

enum { E = 24, B = 4 };
static float g_aw[E * 3 * E], g_ab[3 * E], g_pw[(E + 1) * E], g_pb[E];   /* g_pw: room for the bad file */

static float frand(void) {
  return (float)((double)(tpt_rand() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int put_f32s(FILE *f, const float *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char b[4];
    uint32_t u;
    memcpy(&u, &v[i], 4);
    tp__put_le32(b, u);
    if (fwrite(b, 1, 4, f) != 4) return 1;
  }
  return 0;
}

/* The file, data in the order c_proj.bias, c_attn.weight, c_proj.weight, c_attn.bias (any
   order is valid safetensors). pw_rows: the first dim written for c_proj.weight. */
static int write_st(const char *path, int pw_rows) {
  char h[1024];
  unsigned char len[8];
  size_t o1 = 4 * E, o2 = o1 + 4 * E * 3 * E, o3 = o2 + 4 * (size_t)pw_rows * E, o4 = o3 + 4 * 3 * E;
  FILE *f;
  int bad;
  snprintf(h, sizeof h,
           "{\"model.layers.3.attn.c_proj.bias\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%lu]},"
           "\"model.layers.3.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%lu,%lu]},"
           "\"model.layers.3.attn.c_proj.weight\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%lu,%lu]},"
           "\"model.layers.3.attn.c_attn.bias\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%lu,%lu]},"
           "\"__metadata__\":{\"format\":\"pt\"}}",
           E, (unsigned long)o1, E, 3 * E, (unsigned long)o1, (unsigned long)o2, pw_rows, E,
           (unsigned long)o2, (unsigned long)o3, 3 * E, (unsigned long)o3, (unsigned long)o4);
  tp__put_le64(len, (uint64_t)strlen(h));
  f = fopen(path, "wb");
  if (!f) return 1;
  bad = fwrite(len, 1, 8, f) != 8 || fwrite(h, 1, strlen(h), f) != strlen(h) ||
        put_f32s(f, g_pb, E) || put_f32s(f, g_aw, E * 3 * E) ||
        put_f32s(f, g_pw, (size_t)pw_rows * E) || put_f32s(f, g_ab, 3 * E);
  return fclose(f) != 0 || bad;
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *b;
  long len;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = (unsigned char *)malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return b;
}

static void test_converter_on_xnnpack(void) {
  const char *st_path = "/tmp/tp_xnnrt_converter.safetensors";
  const char *out = "/tmp/tp_xnnrt_converter";
  char cmd[1024];
  unsigned char *blob, *ptd;
  size_t blob_n = 0, ptd_n = 0;
  static float x[B * E + 4], q[B * E], k[B * E], v[B * E], y[B * E];
  float *outs[4];
  double max_err = 0;
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  int i, j, o, m;
  for (i = 0; i < E * 3 * E; i++) g_aw[i] = frand();
  for (i = 0; i < 3 * E; i++) g_ab[i] = frand();
  for (i = 0; i < E * E; i++) g_pw[i] = frand();
  for (i = 0; i < E; i++) g_pb[i] = frand();
  for (i = 0; i < B * E; i++) x[i] = frand();
  TPT_EQ_INT(write_st(st_path, E), 0);
  snprintf(cmd, sizeof cmd, "%s %s %s > %s.log 2>&1", TP_EXAMPLE07, st_path, out, out);
  TPT_EQ_INT(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s.xnn", out);
  blob = slurp(cmd, &blob_n);
  snprintf(cmd, sizeof cmd, "%s.ptd", out);
  ptd = slurp(cmd, &ptd_n);
  TPT_CHECK(blob && ptd);
  if (!blob || !ptd) goto done;
  /* the program holds the very same blob (its method's delegate segment) */
  {
    size_t pte_n = 0, at;
    unsigned char *pte;
    int found = 0;
    snprintf(cmd, sizeof cmd, "%s.pte", out);
    pte = slurp(cmd, &pte_n);
    TPT_CHECK(pte != NULL && pte_n > blob_n);
    for (at = 0; pte && at + blob_n <= pte_n && !found; at++)
      found = memcmp(pte + at, blob, blob_n) == 0;
    TPT_CHECK(found);
    free(pte);
    remove(cmd);
  }
  TPT_STATUS(tp_xnn_load(blob, blob_n, ptd, ptd_n, 0, &rt, &err), TP_OK);
  if (!rt) {
    printf("  load: %s\n", err.msg);
    goto done;
  }
  TPT_EQ_INT(tp_xnn_runtime_num_externs(rt), 5);
  outs[0] = q;
  outs[1] = k;
  outs[2] = v;
  outs[3] = y;
  TPT_STATUS(tp_xnn_runtime_bind(rt, 0, x), TP_OK);
  for (m = 0; m < 4; m++) TPT_STATUS(tp_xnn_runtime_bind(rt, (uint32_t)(m + 1), outs[m]), TP_OK);
  TPT_STATUS(tp_xnn_runtime_invoke(rt), TP_OK);
  /* reference: Conv1D, out[b][o] = bias[o] + sum_i x[b][i] * W[i][o] */
  for (i = 0; i < B; i++) {
    double ref_v[E];
    for (m = 0; m < 3; m++)
      for (o = 0; o < E; o++) {
        double acc = g_ab[m * E + o], d;
        for (j = 0; j < E; j++) acc += (double)x[i * E + j] * g_aw[j * 3 * E + m * E + o];
        if (m == 2) ref_v[o] = acc;
        d = fabs(acc - outs[m][i * E + o]);
        if (d > max_err) max_err = d;
      }
    for (o = 0; o < E; o++) {
      double acc = g_pb[o], d;
      for (j = 0; j < E; j++) acc += ref_v[j] * g_pw[j * E + o];
      d = fabs(acc - y[i * E + o]);
      if (d > max_err) max_err = d;
    }
  }
  printf("  q, k, v, y on XNNPACK: max |error| %.3g against the double reference\n", max_err);
  TPT_CHECK(max_err < 1e-4);
  /* the whole-storage mistake would be far off: q from the first E floats of every row is k's
     neighbour; check that q differs from a reference that took the wrong columns */
  {
    double acc = g_ab[0];
    for (j = 0; j < E; j++) acc += (double)x[j] * g_aw[j * 3 * E + E];   /* k's column 0 */
    TPT_CHECK(fabs(acc - q[0]) > 1e-3);
  }
done:
  tp_xnn_runtime_destroy(rt);
  free(blob);
  free(ptd);
  snprintf(cmd, sizeof cmd, "%s.xnn", out);
  remove(cmd);
  snprintf(cmd, sizeof cmd, "%s.ptd", out);
  remove(cmd);
  snprintf(cmd, sizeof cmd, "%s.log", out);
  remove(cmd);
  remove(st_path);
}

/* c_proj.weight [E + 1, E]: not an attention block; the example says so and writes nothing. */
static void test_converter_refuses(void) {
  const char *st_path = "/tmp/tp_xnnrt_converter_bad.safetensors";
  const char *out = "/tmp/tp_xnnrt_converter_bad";
  char cmd[1024], logp[256];
  unsigned char *log;
  size_t n = 0;
  FILE *f;
  TPT_EQ_INT(write_st(st_path, E + 1), 0);
  snprintf(logp, sizeof logp, "%s.log", out);
  snprintf(cmd, sizeof cmd, "%s %s %s > %s 2>&1", TP_EXAMPLE07, st_path, out, logp);
  TPT_CHECK(system(cmd) != 0);
  log = slurp(logp, &n);
  if (log) {
    log[n] = 0;
    TPT_CONTAINS((const char *)log, "error: shapes are not a GPT-2 attention block");
  }
  free(log);
  snprintf(cmd, sizeof cmd, "%s.xnn", out);
  f = fopen(cmd, "rb");
  TPT_CHECK(f == NULL);
  if (f) fclose(f);
  remove(logp);
  remove(st_path);
}

int main(void) {
  TPT_RUN(test_converter_on_xnnpack);
  TPT_RUN(test_converter_refuses);
  return tpt_finish("xnnrt_converter");
}
