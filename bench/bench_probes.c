/* bench_probes - issue 21's probes: the hostile files its red team timed, built at the sizes
   it gave, each read once (plain -O2; `make bench-probes`). One row per probe: what was read,
   the file's bytes, the seconds, the status and the work counted (TP_COUNT_STEPS: visits plus
   steps, per byte). The shapes are tests/linear_shapes.h's, and three built here (a .pte whose
   named entries share one 1 MiB segment, a .ptd of long duplicate keys, a graph of 1M values
   with an external id missing), and with XNNPACK (TENSORPACK_XNNPACK_RUNTIME, -lXNNPACK) the
   loader on a 6 MB blob. Not a test: it prints, it does not judge. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TP_COUNT_STEPS
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#define TPDUMP_NO_MAIN
#include "tools/tpdump.c"
#include "tests/linear_shapes.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double g_t0;
static unsigned long long g_w0;

static void start(void) {
  g_w0 = tp__count_steps + tp__count_visits;
  g_t0 = now_s();
}

static void row(const char *what, size_t bytes, const char *result) {
  double t = now_s() - g_t0;
  unsigned long long w = tp__count_steps + tp__count_visits - g_w0;
  printf("| %s | %lu | %.4f | %.60s | %llu (%.2f/byte) |\n", what, (unsigned long)bytes, t, result,
         w, bytes ? (double)w / (double)bytes : 0.0);
  fflush(stdout);
}

static const char *st_str(tp_status st, const char *msg) {
  static char b[160];
  snprintf(b, sizeof b, "%s%s%.100s", tp_status_str(st), msg && *msg ? ": " : "", msg ? msg : "");
  return b;
}

/* A .pte (eh00, one XNNPACK method) whose named data embeds n keys of the same seg bytes: the
   store keeps one segment, and every named entry points at it. */
static unsigned char *pte_shared_segment(size_t n, size_t seg, size_t *size) {
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_pte_options po;
  tp_pte *p = NULL;
  tp_membuf m;
  tp_sink sink;
  unsigned char *bytes = (unsigned char *)malloc(seg);
  size_t i, one = 1;
  uint32_t x, y;
  char key[32];
  memset(&m, 0, sizeof m);
  if (!bytes || tp_store_create(NULL, &st) != TP_OK) return NULL;
  for (i = 0; i < seg; i++) bytes[i] = (unsigned char)(i * 7);
  for (i = 0; i < n; i++) {
    snprintf(key, sizeof key, "shared.%07lu", (unsigned long)i);
    if (tp_store_add_bytes(st, key, bytes, seg, 0, 0, NULL) != TP_OK) return NULL;
  }
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  memset(&po, 0, sizeof po);
  po.embed = st;
  if (tp_xnn_graph_create(&o, &g) != TP_OK ||
      tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT,
                                 &x) != TP_OK ||
      tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT,
                                 &y) != TP_OK ||
      tp_xnn_define_abs(g, x, y, 0) != TP_OK || tp_pte_create(&po, &p) != TP_OK ||
      tp_xnn_add_pte_method(p, "forward", g) != TP_OK)
    return NULL;
  sink = tp_sink_membuf(&m);
  if (tp_pte_write(p, &sink) != TP_OK) return NULL;
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
  free(bytes);
  *size = m.size;
  return m.data;
}

/* A .ptd of the 2^stages keys that collide under FNV-1a (the old hash), 4 bytes each. */
static unsigned char *ptd_fnv_collisions(unsigned stages, size_t *size) {
  unsigned char(*bl)[8] = (unsigned char(*)[8])malloc(2 * stages * 8);
  size_t n = (size_t)1 << stages, i;
  char key[8 * 24 + 4];
  static float vals[1 << 16];
  tp_store *st = NULL;
  tp_membuf m;
  tp_sink sink;
  memset(&m, 0, sizeof m);
  uint32_t low = 0;
  if (!bl || !fnvc_make(stages, "k", bl) || tp_store_create(NULL, &st) != TP_OK) return NULL;
  for (i = 0; i < n; i++) {
    fnvc_key(stages, "k", bl, i, key);
    if (i == 0) low = (uint32_t)fnvc_full(key);
    if ((uint32_t)fnvc_full(key) != low) return NULL; /* they collide, or no probe */
    vals[i % (1 << 16)] = (float)i;
    if (tp_store_add_bytes(st, key, &vals[i % (1 << 16)], 4, 0, 1, NULL) != TP_OK) return NULL;
  }
  sink = tp_sink_membuf(&m);
  if (tp_store_write_ptd(st, &sink) != TP_OK) return NULL;
  tp_store_destroy(st);
  free(bl);
  *size = m.size;
  return m.data;
}

/* __metadata__ of n distinct keys, then the first key again: refused, after the sort. */
static unsigned char *st_metadata_dup(size_t n, size_t *size) {
  size_t cap = n * 32 + 64, len = 0, i;
  unsigned char *b = (unsigned char *)malloc(cap + 8);
  char *h = (char *)b + 8;
  if (!b) return NULL;
  len += (size_t)sprintf(h + len, "{\"__metadata__\":{");
  for (i = 0; i < n; i++)
    len += (size_t)sprintf(h + len, "%s\"key%07lu\":\"%lu\"", i ? "," : "", (unsigned long)i,
                           (unsigned long)i);
  len += (size_t)sprintf(h + len, ",\"key0000000\":\"x\"}}");
  tp__put_le64(b, len);
  *size = len + 8;
  return b;
}

static void probe_pte_specs(size_t n) {
  size_t sz = 0;
  unsigned char *p = shape_pte_shared_specs(n, &sz);
  tp_pte_file f;
  tp_status st;
  char what[96];
  start();
  st = tp_pte_read(&f, p, sz);
  snprintf(what, sizeof what, "tp_pte_read: one delegate of %lu compile specs listed %lu times",
           (unsigned long)n, (unsigned long)n);
  row(what, sz, st_str(st, f.err.msg));
  free(p);
}

static void probe_vk_list(size_t n) {
  size_t sz = 0;
  unsigned char *p = shape_vk_shared_list(n, &sz);
  tp_vk_blob b;
  tp_error e;
  tp_status st;
  start();
  st = tp_vk_check_blob(p, sz, NULL, &e);
  row("tp_vk_check_blob: values sharing one ValueList", sz, st_str(st, e.msg));
  start();
  st = tp_vk_read_blob(p, sz, NULL, &b, &e);
  row("tp_vk_read_blob: values sharing one ValueList", sz, st_str(st, e.msg));
  tp_vk_blob_free(&b);
  free(p);
}

static void probe_tpdump_specs(size_t n) {
  size_t sz = 0;
  unsigned char *p = shape_pte_shared_specs(n, &sz);
  tp_membuf out;
  tp_error e;
  int rc;
  char res[96], what[96];
  memset(&out, 0, sizeof out);
  start();
  rc = tpdump_inspect(p, sz, &out, &e);
  snprintf(res, sizeof res, "exit %d, %lu report bytes", rc, (unsigned long)out.size);
  snprintf(what, sizeof what, "tpdump: one delegate of %lu compile specs listed %lu times",
           (unsigned long)n, (unsigned long)n);
  row(what, sz, res);
  tp_membuf_free(&out);
  free(p);
}

static void probe_tpdump_segment(size_t n, size_t seg) {
  size_t sz = 0;
  unsigned char *p = pte_shared_segment(n, seg, &sz);
  tp_membuf out;
  tp_error e;
  int rc;
  char res[96];
  if (!p) {
    printf("| tpdump: shared segment | - | - | could not build | - |\n");
    return;
  }
  start();
  rc = tpdump_inspect(p, sz, NULL, &e);
  snprintf(res, sizeof res, "exit %d", rc);
  row("tpdump --check: named entries sharing one 1 MiB segment", sz, res);
  memset(&out, 0, sizeof out);
  start();
  rc = tpdump_inspect(p, sz, &out, &e);
  snprintf(res, sizeof res, "exit %d, %lu report bytes", rc, (unsigned long)out.size);
  row("tpdump: the same file", sz, res);
  tp_membuf_free(&out);
  memset(&out, 0, sizeof out);
  start();
  rc = tpdump_inspect_json(p, sz, NULL, 0, &out, &e);
  snprintf(res, sizeof res, "exit %d, %lu JSON bytes", rc, (unsigned long)out.size);
  row("tpdump --json: the same file", sz, res);
  tp_membuf_free(&out);
  free(p);
}

static void probe_safetensors(size_t n) {
  size_t sz = 0;
  unsigned char *p = st_metadata_dup(n, &sz);
  tp_safetensors *s = NULL;
  tp_error e;
  tp_status st;
  start();
  st = tp_safetensors_open(p, sz, &s, &e);
  row("tp_safetensors_open: __metadata__ with a duplicate key last", sz, st_str(st, e.msg));
  tp_safetensors_close(s);
  free(p);
}

static void probe_ptd(const char *what, unsigned char *p, size_t sz) {
  tp_ptd f;
  tp_status st;
  uint32_t *slots;
  size_t ns;
  if (!p) {
    printf("| %s | - | - | could not build | - |\n", what);
    return;
  }
  start();
  st = tp_ptd_open(&f, p, sz);
  if (st == TP_OK) {
    ns = tp_ptd_index_slots(&f);
    slots = (uint32_t *)malloc(ns * sizeof *slots);
    st = tp_ptd_index(&f, slots, ns);
    row(what, sz, st_str(st, f.err.msg));
    free(slots);
  } else {
    row(what, sz, st_str(st, f.err.msg));
  }
  free(p);
}

static void probe_vk_check_colliding(unsigned stages) {
  size_t sz = 0, bn = 0;
  unsigned char *p = ptd_fnv_collisions(stages, &sz), *blob = shape_vk_shared_list(1, &bn);
  tp_ptd f;
  tp_error e;
  tp_status st;
  start();
  st = tp_ptd_open(&f, p, sz);
  if (st == TP_OK) st = tp_vk_check_blob(blob, bn, &f, &e);
  row("tp_ptd_open + tp_vk_check_blob (which indexes the .ptd): FNV-colliding keys", sz,
      st_str(st, st == TP_OK ? "" : e.msg));
  free(p);
  free(blob);
}

static void probe_xnn_values(size_t n) {
  size_t sz = 0;
  unsigned char *p = shape_xnn_shared_values(n, &sz);
  tp_xnn_blob b;
  tp_error e;
  tp_status st;
  start();
  st = tp_xnn_read_blob(p, sz, &b, &e);
  row("tp_xnn_read_blob: values that are one table", sz, st_str(st, e.msg));
  if (st == TP_OK) tp_xnn_blob_free(&b);
  start();
  st = tp_xnn_check_blob(p, sz, TP_XNN_TARGET_EXECUTORCH, &e);
  row("tp_xnn_check_blob: the same blob", sz, st_str(st, e.msg));
  free(p);
}

static void probe_missing_id(size_t n) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_pte *p = NULL;
  size_t i, one = 1;
  uint32_t x, y, id;
  tp_status st;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  if (tp_xnn_graph_create(&o, &g) != TP_OK) return;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 2, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_abs(g, x, y, 0);
  for (i = 2; i < n; i++)
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, TP_XNN_INVALID_ID, 0, &id);
  tp_pte_create(NULL, &p);
  start();
  st = tp_xnn_add_pte_method(p, "forward", g);
  row("tp_xnn_add_pte_method: 1M values, external id 1 missing", n, st_str(st, tp_pte_error(p)));
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
}

#ifdef TENSORPACK_XNNPACK_RUNTIME
/* tp_xnn_load (onto XNNPACK) of a blob of n constants no node reads, beside one abs node: the
   loader's id table and copy table hold every value (keyed hashes: no id pattern collides). */
static void probe_xnn_load(size_t n) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_xnn_runtime *rt = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_error e;
  tp_status st;
  float *vals = (float *)malloc(n * sizeof *vals);
  size_t i, one = 1;
  uint32_t x, y, id;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  if (!vals || tp_xnn_graph_create(&o, &g) != TP_OK) return;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_abs(g, x, y, 0);
  for (i = 0; i < n; i++) {
    tp_storage s;
    tp_tensor t;
    int64_t d = 1;
    vals[i] = (float)i;
    s.data = &vals[i];
    s.nbytes = sizeof *vals;
    tp_view(s, TP_F32, 1, &d, NULL, 0, &t, NULL);
    tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, &t, TP_XNN_INVALID_ID, 0, &id);
  }
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  if (tp_xnn_write(g, &sink) != TP_OK) return;
  start();
  st = tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e);
  row("tp_xnn_load: constants no node reads (the loader's id and copy tables)", m.size,
      st_str(st, st == TP_OK ? "" : e.msg));
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
  free(vals);
}

/* tp_xnn_load of a blob whose one named constant is in a .ptd beside the 2^stages keys that
   collide under FNV-1a: the loader indexes the whole .ptd first. */
static void probe_xnn_load_colliding(unsigned stages) {
  unsigned char(*bl)[8] = (unsigned char(*)[8])malloc(2 * stages * 8);
  size_t n = (size_t)1 << stages, i, one = 1;
  char key[8 * 24 + 4];
  static float vals[1 << 16], w = 2.5f;
  tp_store *st = NULL;
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_xnn_runtime *rt = NULL;
  tp_membuf blob, ptd;
  tp_sink sink;
  tp_storage s;
  tp_tensor t;
  tp_error e;
  tp_status r;
  int64_t d = 1;
  uint32_t x, y, id;
  if (!bl || !fnvc_make(stages, "k", bl) || tp_store_create(NULL, &st) != TP_OK) return;
  for (i = 0; i < n; i++) {
    fnvc_key(stages, "k", bl, i, key);
    vals[i % (1 << 16)] = (float)i;
    if (tp_store_add_bytes(st, key, &vals[i % (1 << 16)], 4, 0, 1, NULL) != TP_OK) return;
  }
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  o.store = st;
  s.data = &w;
  s.nbytes = sizeof w;
  if (tp_xnn_graph_create(&o, &g) != TP_OK || tp_view(s, TP_F32, 1, &d, NULL, 0, &t, NULL) != TP_OK)
    return;
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_abs(g, x, y, 0);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, &one, &t, TP_XNN_INVALID_ID, 0, &id);
  memset(&blob, 0, sizeof blob);
  memset(&ptd, 0, sizeof ptd);
  sink = tp_sink_membuf(&blob);
  if (tp_xnn_write(g, &sink) != TP_OK) return;
  sink = tp_sink_membuf(&ptd);
  if (tp_store_write_ptd(st, &sink) != TP_OK) return;
  start();
  r = tp_xnn_load(blob.data, blob.size, ptd.data, ptd.size, 0, &rt, &e);
  row("tp_xnn_load: one named constant, its .ptd beside 32,768 FNV-colliding keys",
      blob.size + ptd.size, st_str(r, r == TP_OK ? "" : e.msg));
  tp_xnn_runtime_destroy(rt);
  tp_membuf_free(&blob);
  tp_membuf_free(&ptd);
  tp_xnn_graph_destroy(g);
  tp_store_destroy(st);
  free(bl);
}
#endif

int main(void) {
  size_t sz = 0;
  unsigned char *p;
  printf("| probe | bytes | seconds | result | work (visits + steps) |\n|---|---|---|---|---|\n");
  probe_pte_specs(24000);                           /* 193 KB */
  probe_vk_list(128000);                            /* 1 MB */
  probe_tpdump_specs(6000);                         /* 48 KB */
  probe_tpdump_specs(300); /* under the visit budget: read, each shared table printed once */
  probe_tpdump_segment(6000, (size_t)1 << 20);      /* about 1.2 MB */
  probe_safetensors(36000);                         /* 1 MB header */
  p = ptd_fnv_collisions(15, &sz); /* (the size is set by the call: not in one expression) */
  probe_ptd("tp_ptd_open + tp_ptd_index: 32,768 FNV-colliding keys", p, sz);
  p = shape_ptd_same_keys(1000, 1000, 0, &sz);
  probe_ptd("tp_ptd_open + tp_ptd_index: 1000 copies of one 1000-byte key", p, sz);
  p = shape_ptd_shared_key(250000, 1000, &sz);
  probe_ptd("tp_ptd_open + tp_ptd_index: 250,000 entries sharing one 1000-byte key string", p,
            sz);
  probe_vk_check_colliding(15);
  probe_xnn_values(250000);                         /* 1 MB */
  probe_missing_id(1000000);
#ifdef TENSORPACK_XNNPACK_RUNTIME
  probe_xnn_load(66000); /* about 6.3 MB */
  probe_xnn_load_colliding(15);
#endif
  return 0;
}
