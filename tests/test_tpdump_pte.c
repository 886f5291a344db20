/* tpdump on programs (.pte) written by tensorpack.h section 9: the printed header, segments,
   values (dtype, sizes, dim order, memory plan), chain and delegates, each delegate's blob
   dumped as tpdump dumps a blob, named data resolved from the program itself; --json; a
   malformed program gives one sentence and exit 2 (library and the built tool); truncation at
   every byte never crashes. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define TPDUMP_NO_MAIN
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tools/tpdump.c"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#ifndef _WIN32
#include <sys/wait.h> /* the tool is run through the shell: POSIX only */
#include <unistd.h>
#endif

#ifndef TPDUMP_BIN
#define TPDUMP_BIN "build/tools/tpdump"
#endif

static float g_storage[3 * 8 * 8];

/* SHA-256 hex of the little-endian bytes of the weight view storage[64..128). */
static void weight_sha(char hex[65]) {
  unsigned char le[256];
  size_t i;
  for (i = 0; i < 64; i++) {
    uint32_t u;
    memcpy(&u, &g_storage[64 + i], 4);
    tp__put_le32(le + 4 * i, u);
  }
  tp_sha256_hex(le, sizeof le, hex);
}

/* named 0: the weight inline in the blob; 1: named, embedded in the program; 2: named, not
   embedded (the program needs a .ptd); 3: a Vulkan method instead, its weight named, not
   embedded; 4: both methods, one weight (one key) in one store, not embedded */
static void program(int named, tp_membuf *mb) {
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor parent, w;
  tp_xnn_options o;
  tp_pte_options po;
  tp_xnn_graph *g = NULL;
  tp_vk_graph *vg = NULL;
  tp_store *st = NULL;
  tp_pte *p = NULL;
  tp_sink sink;
  size_t xd[2] = {2, 8}, yd[2] = {2, 8}, i;
  uint32_t x, wt, y;
  for (i = 0; i < 3 * 8 * 8; i++) g_storage[i] = (float)i;
  s.data = g_storage;
  s.nbytes = sizeof g_storage;
  tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
  tp_select(&parent, 0, 1, &w, NULL);
  if (named) tp_store_create(NULL, &st);
  memset(&o, 0, sizeof o);
  o.store = st;
  tp_xnn_graph_create(&o, &g);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
  tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
  tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
  memset(&po, 0, sizeof po);
  po.embed = named == 1 ? st : NULL; /* named 2: the store stays outside (a .ptd beside it) */
  tp_pte_create(&po, &p);
  if (named != 3) TPT_STATUS(tp_xnn_add_pte_method(p, "forward", g), TP_OK);
  if (named >= 3) {
    tp_vk_options vo;
    uint32_t vx, vw, vb, vy, args[4];
    memset(&vo, 0, sizeof vo);
    vo.store = st;
    TPT_STATUS(tp_vk_graph_create(&vo, &vg), TP_OK);
    tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, xd, NULL, &vx);
    tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, NULL, &w, &vw);
    tp_vk_add_null(vg, &vb);
    tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, yd, NULL, &vy);
    args[0] = vx;
    args[1] = vw;
    args[2] = vb;
    args[3] = vy;
    tp_vk_add_op(vg, 0, "aten.linear.default", args, 4);
    tp_vk_set_io(vg, &vx, 1, &vy, 1);
    TPT_STATUS(tp_vk_add_pte_method(p, "vulkan", vg, NULL), TP_OK);
  }
  memset(mb, 0, sizeof *mb);
  sink = tp_sink_membuf(mb);
  TPT_STATUS(tp_pte_write(p, &sink), TP_OK);
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  tp_vk_graph_destroy(vg);
  tp_store_destroy(st);
}

static void test_print(void) {
  tp_membuf mb, out;
  tp_error err;
  char hex[65];
  program(0, &mb);
  memset(&out, 0, sizeof out);
  TPT_EQ_INT(tpdump_inspect(mb.data, mb.size, &out, &err), 0);
  {
    tp_sink s = tp_sink_membuf(&out);
    tp_sink_write(&s, "", 1);
  }
  TPT_CONTAINS((const char *)out.data, ".pte (ExecuTorch program) file: ");
  TPT_CONTAINS((const char *)out.data, "header eh00: length 32, program size ");
  TPT_CONTAINS((const char *)out.data, "segment data size 736");
  TPT_CONTAINS((const char *)out.data, "  [1] offset=0 size=736 at=");
  TPT_CONTAINS((const char *)out.data, "method 0: \"forward\": 2 values, inputs [0], outputs [1], "
               "0 operators, non_const_buffer_sizes [0, 128]");
  TPT_CONTAINS((const char *)out.data, "value 1: Tensor FLOAT sizes=[2, 8] dim_order=[0, 1] 64 "
               "bytes planned: buffer 1 offset 64");
  TPT_CONTAINS((const char *)out.data, "[0] DelegateCall delegate=0 args=[0, 1]");
  TPT_CONTAINS((const char *)out.data, "delegate 0: id=\"XnnpackBackend\" processed=SEGMENT 1, "
               "blob at file offset ");
  /* the blob dumped: its weight constant is the view's 64 floats */
  TPT_CONTAINS((const char *)out.data, "XNNPACK delegate blob: 736 bytes");
  weight_sha(hex);
  hex[8] = '\0';
  TPT_CONTAINS((const char *)out.data, hex);
  tp_membuf_free(&out);
  tp_membuf_free(&mb);
}

/* A program graph's kernel calls: each value by its argument's name and kind (TP_PTE_OPS), the
   operator by name; a constant with its SHA-256. */
static void test_kernel_calls(void) {
  static float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  int64_t sz[1] = {4};
  tp_storage s = {c, sizeof c};
  tp_tensor cv;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_tensor tx, ty;
  uint32_t x, k, y, one, a[5];
  tp_membuf mb, out;
  tp_sink sink;
  tp_error err;
  char hex[65];
  memset(&tx, 0, sizeof tx);
  tx.role = TP_PTE_INPUT, tx.dtype = TP_F32, tx.ndim = 1, tx.sizes[0] = 4;
  ty = tx;
  ty.role = TP_PTE_OUTPUT;
  TPT_STATUS(tp_view(s, TP_F32, 1, sz, NULL, 0, &cv, NULL), TP_OK);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_constant(g, &cv, &k), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ty, &y), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, 1, &one), TP_OK);
  a[0] = x, a[1] = k, a[2] = one, a[3] = y, a[4] = y;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 5), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  memset(&mb, 0, sizeof mb);
  sink = tp_sink_membuf(&mb);
  TPT_STATUS(tp_pte_write(p, &sink), TP_OK);
  memset(&out, 0, sizeof out);
  TPT_EQ_INT(tpdump_inspect(mb.data, mb.size, &out, &err), 0);
  sink = tp_sink_membuf(&out);
  tp_sink_write(&sink, "", 1);
  TPT_CONTAINS((const char *)out.data, "[0] KernelCall op=0 (aten::add.out) self:Tensor=0 "
               "other:Tensor=1 alpha:Scalar=3 out:Tensor=2 return=2");
  {
    unsigned char le[16];
    tpt_to_le(le, c, 4, 4);
    TPT_STATUS(tp_sha256_hex(le, 16, hex), TP_OK);
    hex[8] = '\0';
  }
  TPT_CONTAINS((const char *)out.data, "16 bytes constant buffer 1 sha256=");
  TPT_CONTAINS((const char *)out.data, hex);
  tp_membuf_free(&out);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

static void test_named_and_json(void) {
  tp_membuf mb, out, js;
  tp_error err;
  char hex[65];
  tp_sink s;
  program(1, &mb);
  weight_sha(hex);
  memset(&out, 0, sizeof out);
  TPT_EQ_INT(tpdump_inspect(mb.data, mb.size, &out, &err), 0);
  s = tp_sink_membuf(&out);
  tp_sink_write(&s, "", 1);
  TPT_CONTAINS((const char *)out.data, "named_data:\n  [0] key=\"");
  TPT_CONTAINS((const char *)out.data, hex);             /* the key: the weight's sha256 */
  TPT_CONTAINS((const char *)out.data, " segment=2 at=");
  memset(&js, 0, sizeof js);
  TPT_EQ_INT(tpdump_inspect_json(mb.data, mb.size, NULL, 0, &js, &err), 0);
  s = tp_sink_membuf(&js);
  tp_sink_write(&s, "", 1);
  TPT_CONTAINS((const char *)js.data, "{\"format\": \"pte\", ");
  TPT_CONTAINS((const char *)js.data, "\"ok\": true");
  TPT_CONTAINS((const char *)js.data, "\"section\": \"named_data\"");
  TPT_CONTAINS((const char *)js.data, "\"source\": \"ptd\""); /* the blob's named constant */
  tp_membuf_free(&js);
  tp_membuf_free(&out);
  tp_membuf_free(&mb);
}

static void test_malformed(void) {
  tp_membuf mb;
  tp_error err;
  size_t i;
  char dir[] = "/tmp/tpdump_pte_XXXXXX", path[128], cmd[512];
  FILE *f;
  program(1, &mb);
  for (i = 0; i < mb.size; i++) {
    int rc = tpdump_inspect(mb.data, i, NULL, &err);
    TPT_EQ_INT(rc, 2);
    TPT_CHECK(err.msg[0] != '\0');
  }
  TPT_EQ_INT(tpdump_inspect(mb.data, mb.size - 1, NULL, &err), 2);
  TPT_CONTAINS(err.msg, ".pte file: segment base ");
  for (i = 0; i < mb.size; i += 3) {
    mb.data[i] ^= 0x41;
    TPT_CHECK(tpdump_inspect(mb.data, mb.size, NULL, &err) != 1);
    mb.data[i] ^= 0x41;
  }
#ifndef _WIN32
  /* the tool: exit 2, one line on stderr */
  TPT_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/short.pte", dir);
  f = fopen(path, "wb");
  TPT_CHECK(f != NULL);
  if (f) {
    fwrite(mb.data, 1, mb.size - 1, f);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "%s --check %s 2>%s/err.txt", TPDUMP_BIN, path, dir);
  TPT_EQ_INT(WEXITSTATUS(system(cmd)), 2);
  snprintf(cmd, sizeof cmd, "test $(wc -l < %s/err.txt) -eq 1 && grep -q 'malformed: .pte file: "
           "segment base' %s/err.txt", dir, dir);
  TPT_EQ_INT(system(cmd), 0);
  snprintf(path, sizeof path, "%s/ok.pte", dir);
  f = fopen(path, "wb");
  if (f) {
    fwrite(mb.data, 1, mb.size, f);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "test \"$(%s --check %s)\" = \"ok: .pte, %lu bytes\"", TPDUMP_BIN,
           path, (unsigned long)mb.size);
  TPT_EQ_INT(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  TPT_EQ_INT(system(cmd), 0);
#else
  (void)dir; (void)path; (void)cmd; (void)f;
#endif
  tp_membuf_free(&mb);
}

/* --check's report (the built tool): one "ok: <kind>, <size> bytes" line; for a program whose
   named constants are not embedded (XNNPACK, Vulkan or both sharing the key), the keys a .ptd
   must bring, each once, and none with that .ptd. */
static void test_check_report(void) {
#ifndef _WIN32
  tp_membuf mb, ptd;
  char dir[] = "/tmp/tpdump_pte_XXXXXX", path[128], ppath[160], cmd[600], hex[65], want[400];
  FILE *f;
  size_t got;
  tp_store *st = NULL;
  tp_sink sink;
  TPT_CHECK(mkdtemp(dir) != NULL);
  weight_sha(hex);
  {
    size_t kind;
    for (kind = 0; kind < 5; kind++) {
      program((int)kind, &mb);
      snprintf(path, sizeof path, "%s/p%d.pte", dir, (int)kind);
      f = fopen(path, "wb");
      TPT_CHECK(f && fwrite(mb.data, 1, mb.size, f) == mb.size);
      if (f) fclose(f);
      snprintf(cmd, sizeof cmd, "%s --check %s > %s/out.txt", TPDUMP_BIN, path, dir);
      TPT_EQ_INT(system(cmd), 0);
      snprintf(cmd, sizeof cmd, "%s/out.txt", dir);
      f = fopen(cmd, "rb");
      memset(want, 0, sizeof want);
      got = f ? fread(want, 1, sizeof want - 1, f) : 0;
      if (f) fclose(f);
      want[got] = '\0';
      snprintf(cmd, sizeof cmd, "ok: .pte, %lu bytes\n%s", (unsigned long)mb.size,
               kind >= 2 ? "needs a .ptd with these keys (1, not embedded):\n  "
                         : "");
      if (kind >= 2) {
        strcat(cmd, hex);
        strcat(cmd, "\n");
      }
      TPT_EQ_STR(want, cmd);
      tp_membuf_free(&mb);
    }
  }
  /* the .ptd beside it: nothing missing */
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  {
    unsigned char le[256];
    size_t i;
    for (i = 0; i < 64; i++) {
      uint32_t u;
      memcpy(&u, &g_storage[64 + i], 4);
      tp__put_le32(le + 4 * i, u);
    }
    TPT_STATUS(tp_store_add_bytes(st, hex, le, sizeof le, 16, 1, NULL), TP_OK);
  }
  memset(&ptd, 0, sizeof ptd);
  sink = tp_sink_membuf(&ptd);
  TPT_STATUS(tp_store_write_ptd(st, &sink), TP_OK);
  tp_store_destroy(st);
  snprintf(ppath, sizeof ppath, "%s/w.ptd", dir);
  f = fopen(ppath, "wb");
  TPT_CHECK(f && fwrite(ptd.data, 1, ptd.size, f) == ptd.size);
  if (f) fclose(f);
  {
    int kind;
    for (kind = 2; kind < 5; kind++) {
      snprintf(cmd, sizeof cmd, "%s --check %s/p%d.pte --ptd %s > %s/out.txt && "
               "test \"$(cat %s/out.txt)\" = \"ok: .pte, $(wc -c < %s/p%d.pte | tr -d ' ') "
               "bytes\"", TPDUMP_BIN, dir, kind, ppath, dir, dir, dir, kind);
      TPT_EQ_INT(system(cmd), 0);
    }
  }
  /* and the .ptd itself */
  snprintf(cmd, sizeof cmd, "test \"$(%s --check %s)\" = \"ok: .ptd, %lu bytes\"", TPDUMP_BIN,
           ppath, (unsigned long)ptd.size);
  TPT_EQ_INT(system(cmd), 0);
  tp_membuf_free(&ptd);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  TPT_EQ_INT(system(cmd), 0);
#endif
}

int main(void) {
  TPT_RUN(test_print);
  TPT_RUN(test_check_report);
  TPT_RUN(test_kernel_calls);
  TPT_RUN(test_named_and_json);
  TPT_RUN(test_malformed);
  return tpt_finish("test_tpdump_pte");
}
