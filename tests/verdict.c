/* verdict.c - one verdict (issue 14, "What to build" item 3, finding 12): the writer, the
   readers, the loader and tpdump --check judge every file alike.
     1. finding 12's four disagreements, each decided once: the writer refuses at define time,
        the reader, the check and tpdump refuse the blob, with the sentences asserted;
     2. every fuzz seed (fuzz/make_seeds.c's corpus, VERDICT_CORPUS) and every committed
        reproducer (fuzz/crashes/), each cut at every byte (the first seeds of each format) and
        with bit flips, fed to every reader of its format: tp_xnn_read_blob, tp_xnn_check_blob,
        tp_vk_read_blob, tp_vk_check_blob, tp_ptd_open, tp_pte_read, tpdump --check (tools/tpdump.c
        as a library) and, with XNNPACK (VERDICT_XNNPACK), tp_xnn_load; a file one accepts and
        another refuses is a failure, and so is tpdump's printer refusing what the verdict
        accepts; the loader's refusals of well-formed blobs are counted apart by reason;
     3. README.md's table "What bad input gets": each row's status and sentence is what the
        library returns for the case built here under the row's name (every row has a case,
        every case a row).
   Built by mk/verdict.mk (not a tests/test_*.c: it reads directories); prints the numbers. */
#ifdef VERDICT_XNNPACK
#define TENSORPACK_XNNPACK_RUNTIME
#endif
#define TPDUMP_NO_MAIN
#include "tools/tpdump.c"
#include "tp_test.h"

#include <dirent.h>

#ifndef VERDICT_ROOT
#define VERDICT_ROOT "."
#endif

/* ---- small builders ------------------------------------------------------------------------- */

static float g_f[64];

/* The first occurrence of the little-endian u32 `from` in p[0, n) becomes `to`; 0 if none. */
static int patch_u32(unsigned char *p, size_t n, uint32_t from, uint32_t to) {
  size_t i;
  for (i = 0; i + 4 <= n; i++)
    if (tp__get_le32(p + i) == from) {
      tp__put_le32(p + i, to);
      return 1;
    }
  return 0;
}

/* A VH00 blob around a VkGraph with one tensor value (dims, storage type st) and, when
   const_len != UINT64_MAX, constant 0 of const_len bytes at offset 0 of a 64-byte segment. */
static size_t vk_hand_blob(unsigned char *out, size_t cap, uint32_t ndim, uint8_t st,
                           uint64_t const_len) {
  tp_fb_builder *b = NULL;
  tp_fb_ref dims, tensor, value, values, empty, consts, root, cref = 0, str, chain, shaders;
  uint32_t d[32];
  int32_t none[1];
  const unsigned char *fb;
  size_t fbn = 0, i, total;
  for (i = 0; i < ndim; i++) d[i] = 1;
  d[0] = 2;
  TPT_STATUS(tp_fb_builder_create(&b), TP_OK);
  dims = tp_fb_create_vector(b, d, ndim, 4);
  tp_fb_start_table(b);
  tp_fb_add_i8(b, TP_VK_F_VkTensor_datatype, TP_VK_FLOAT32, 0);
  tp_fb_add_ref(b, TP_VK_F_VkTensor_dims, dims);
  tp_fb_add_i32(b, TP_VK_F_VkTensor_constant_id, const_len == UINT64_MAX ? -1 : 0, 0);
  tp_fb_add_i32(b, TP_VK_F_VkTensor_mem_obj_id, -1, 0);
  tp_fb_add_u8(b, TP_VK_F_VkTensor_storage_type, st, 255);
  tensor = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_VK_F_VkValue_value, TP_VK_TENSOR_VALUE, tensor);
  value = tp_fb_end_table(b);
  values = tp_fb_create_vector_refs(b, &value, 1);
  empty = tp_fb_create_vector(b, none, 0, 4);
  if (const_len != UINT64_MAX) {
    tp_fb_start_table(b);
    tp_fb_add_u64(b, TP_VK_F_VkBytes_offset, 0, 1);
    tp_fb_add_u64(b, TP_VK_F_VkBytes_length, const_len, 0);
    cref = tp_fb_end_table(b);
  }
  consts = tp_fb_create_vector_refs(b, &cref, const_len == UINT64_MAX ? 0 : 1);
  str = tp_fb_create_string(b, "0", 1);
  chain = tp_fb_create_vector_refs(b, NULL, 0);
  shaders = tp_fb_create_vector_refs(b, NULL, 0);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_version, str);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_chain, chain);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_values, values);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_input_ids, empty);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_output_ids, empty);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_constants, consts);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_shaders, shaders);
  root = tp_fb_end_table(b);
  TPT_STATUS(tp_fb_finish(b, root, "VK00"), TP_OK);
  fb = tp_fb_data(b, &fbn);
  if (!fb) { printf("  builder: %s\n", tp_fb_error(b)); tp_fb_builder_destroy(b); return 0; }
  total = 32 + ((fbn + 15) & ~(size_t)15) + 64;
  TPT_CHECK(total <= cap);
  if (total > cap) { tp_fb_builder_destroy(b); return 0; }
  memset(out, 0, total);
  memcpy(out + 4, "VH00", 4);
  tp__put_le16(out + 8, 30);
  tp__put_le32(out + 10, 32);
  tp__put_le32(out + 14, (uint32_t)fbn);
  tp__put_le32(out + 18, (uint32_t)(total - 64));
  tp__put_le64(out + 22, 64);
  memcpy(out + 32, fb, fbn);
  tp_fb_builder_destroy(b);
  return total;
}

/* tpdump's verdict on a file (tools/tpdump.c as a library): 0 / 1 / 2 and the sentence; the
   printer's own failure in *printer. */
static int tpdump_verdict(const unsigned char *p, size_t n, const unsigned char *ptd, size_t pn,
                          tp_error *e, tp_error *printer) {
  tpd d;
  int rc;
  memset(&d, 0, sizeof d);
  rc = tpd_run(&d, p, n, ptd, pn);
  *e = d.err;
  *printer = d.print_err;
  return rc;
}

/* ---- 1. finding 12, decided once --------------------------------------------------------- */

static void expect_all_vk(const unsigned char *p, size_t n, const char *msg) {
  tp_error e, pe;
  tp_vk_blob rb;
  TPT_STATUS(tp_vk_check_blob(p, n, NULL, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, msg);
  TPT_STATUS(tp_vk_read_blob(p, n, NULL, &rb, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, msg);
  TPT_EQ_INT(tpdump_verdict(p, n, NULL, 0, &e, &pe), 2);
  TPT_EQ_STR(e.msg, msg);
}

static void test_vk_17_dims(void) {
  unsigned char blob[1024];
  size_t dims[17], n, i;
  tp_vk_graph *g = NULL;
  tp_error e, pe;
  for (i = 0; i < 17; i++) dims[i] = 1;
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tpt_vk_tensor(g, TP_VK_FLOAT32, 17, dims, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: 17 dims, a tensor has at most 16 (TP_MAX_DIMS; "
             "tp_vk_read_blob refuses more)");
  tp_vk_graph_destroy(g);
  n = vk_hand_blob(blob, sizeof blob, 17, 255, UINT64_MAX);
  expect_all_vk(blob, n, "value 0: 17 dims, a tensor has at most 16 (TP_MAX_DIMS)");
  n = vk_hand_blob(blob, sizeof blob, 16, 255, UINT64_MAX); /* 16: everyone accepts */
  TPT_STATUS(tp_vk_check_blob(blob, n, NULL, &e), TP_OK);
  TPT_EQ_INT(tpdump_verdict(blob, n, NULL, 0, &e, &pe), 0);
}

static void test_vk_length(void) {
  unsigned char blob[1024];
  tp_vk_blob rb;
  tp_error e;
  size_t n = vk_hand_blob(blob, sizeof blob, 1, 255, 16); /* dims [2] FLOAT32 = 8 bytes */
  expect_all_vk(blob, n, "value 0: constant 0 has 16 bytes but dims x FLOAT32 make 8");
  n = vk_hand_blob(blob, sizeof blob, 1, 255, 4);
  expect_all_vk(blob, n, "value 0: constant 0 has 4 bytes but dims x FLOAT32 make 8");
  n = vk_hand_blob(blob, sizeof blob, 1, 255, 8);
  TPT_STATUS(tp_vk_read_blob(blob, n, NULL, &rb, &e), TP_OK);
  TPT_EQ_INT(rb.num_values, 1);
  tp_vk_blob_free(&rb);
}

static void test_vk_storage_7(void) {
  tp_vk_tensor_desc vd;
  unsigned char blob[1024];
  size_t n = vk_hand_blob(blob, sizeof blob, 2, 7, UINT64_MAX), dims[1] = {2};
  tp_vk_graph *g = NULL;
  expect_all_vk(blob, n, "value 0: storage_type 7 is not known");
  TPT_STATUS(tp_vk_graph_create(NULL, &g), TP_OK); /* the writer refuses it too */
  vd = tp_vk_tensor_desc_make(TP_VK_FLOAT32, 1, dims, NULL);
  vd.storage = (tp_vk_storage)8; /* the schema's 7 */
  TPT_STATUS(tp_vk_add_tensor_desc(g, &vd, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_vk_graph_error(g), "value 0: desc.storage 8 is not a tp_vk_storage (0 default, "
             "1 BUFFER, 2 TEXTURE_3D, 3 TEXTURE_2D)");
  tp_vk_graph_destroy(g);
}

/* An XNNPACK blob x [A, B, C] -> abs -> y with A, B, C patched to 2^32 - 1 afterwards. */
#define VD_A 0x000A1B2Cu
#define VD_B 0x000D3E4Fu
#define VD_C 0x00051627u
static int xnn_big_dims_blob(tp_membuf *m) {
  tp_xnn_graph *g = NULL;
  tp_xnn_options o;
  tp_sink sink;
  size_t d[3] = {VD_A, VD_B, VD_C};
  uint32_t x = 0, y = 0;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, d, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, d, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  memset(m, 0, sizeof *m);
  sink = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
  tp_xnn_graph_destroy(g);
  return m->size > 0;
}

static void test_xnn_dims_overflow(void) {
  size_t d[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, i;
  tp_xnn_graph *g = NULL;
  tp_membuf m;
  tp_xnn_blob b;
  tp_error e, pe;
  uint32_t id = 0;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, d, NULL, TP_XNN_INVALID_ID, 0, &id),
             TP_ERR_OVERFLOW);
  TPT_EQ_STR(tp_xnn_graph_error(g), "value 0: the product of dims overflows 64 bits");
  tp_xnn_graph_destroy(g);
  if (!xnn_big_dims_blob(&m)) return;
  for (i = 0; i < 2; i++) { /* both values' dims */
    TPT_CHECK(patch_u32(m.data, m.size, VD_A, 0xFFFFFFFFu));
    TPT_CHECK(patch_u32(m.data, m.size, VD_B, 0xFFFFFFFFu));
    TPT_CHECK(patch_u32(m.data, m.size, VD_C, 0xFFFFFFFFu));
  }
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "value 0: the product of dims overflows 64 bits");
  tp_xnn_blob_free(&b);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "value 0: the product of dims overflows 64 bits");
  TPT_EQ_INT(tpdump_verdict(m.data, m.size, NULL, 0, &e, &pe), 2);
  TPT_EQ_STR(e.msg, "value 0: the product of dims overflows 64 bits");
#ifdef VERDICT_XNNPACK
  {
    tp_xnn_runtime *rt = NULL;
    TPT_STATUS(tp_xnn_load(m.data, m.size, NULL, 0, 0, &rt, &e), TP_ERR_FORMAT);
    TPT_EQ_STR(e.msg, "value 0: the product of dims overflows 64 bits");
    TPT_CHECK(rt == NULL);
  }
#endif
  tp_membuf_free(&m);
}

/* ---- 2. every seed, every reader ------------------------------------------------------- */

static unsigned long n_files, n_inputs, n_verdicts, n_disagree, n_printer;
static unsigned long n_accepted, n_refused;
#ifdef VERDICT_XNNPACK /* the loader's counts */
static unsigned long n_load_ok, n_load_rules, n_load_lenient;
#define VD_REASONS 32
static char reasons[VD_REASONS][96];
static unsigned long reason_count[VD_REASONS];
static unsigned long n_reasons_other;

static void loader_reason(const char *msg) {
  char key[96];
  size_t i, k = 0;
  const char *p = msg;
  /* the sentence with its numbers as N, cut at 80 characters */
  while (*p && k < 80) {
    if (*p == '"') { /* a quoted key or name: K */
      const char *q = strchr(p + 1, '"');
      if (!q) break;
      key[k++] = 'K';
      p = q + 1;
    } else if (*p >= '0' && *p <= '9') {
      key[k++] = 'N';
      while (*p >= '0' && *p <= '9') p++;
    } else {
      key[k++] = *p++;
    }
  }
  key[k] = '\0';
  for (i = 0; i < VD_REASONS && reasons[i][0]; i++)
    if (!strcmp(reasons[i], key)) { reason_count[i]++; return; }
  if (i < VD_REASONS) {
    memcpy(reasons[i], key, k + 1);
    reason_count[i] = 1;
  } else {
    n_reasons_other++;
  }
}
#endif

static void disagree(const char *what, const char *name, size_t n, const char *a,
                     const char *b) {
  n_disagree++;
  if (n_disagree <= 10)
    printf("  DISAGREE %s on %s (%zu bytes):\n    %s\n    %s\n", what, name, n, a, b);
}

/* Every reader of the file's format on (p, n), with the .ptd (q, qn) when given. */
static void compare(const char *name, const unsigned char *p, size_t n, const unsigned char *q,
                    size_t qn) {
  const char *fmt = tpd_format(p, n);
  tp_error te, pe, e;
  int rc = tpdump_verdict(p, n, NULL, 0, &te, &pe), ok;
  n_inputs++;
  if (rc == 1) return; /* out of memory: no verdict */
  if (rc == 0 && pe.status != TP_OK) {
    n_printer++;
    if (n_printer <= 10) printf("  PRINTER stricter on %s (%zu bytes): %s\n", name, n, pe.msg);
  }
  if (rc == 0) n_accepted++;
  else n_refused++;
  if (!fmt) return;
  if (fmt[0] == 'x') {
    tp_xnn_blob b;
    tp_status r = tp_xnn_read_blob(p, n, &b, &e), c;
    tp_error ce;
    tp_xnn_blob_free(&b);
    c = tp_xnn_check_blob(p, n, TP_XNN_TARGET_UNCHECKED, &ce);
    n_verdicts += 3;
    if ((r == TP_OK) != (rc == 0)) disagree("tp_xnn_read_blob / tpdump", name, n, e.msg, te.msg);
    if ((c == TP_OK) != (rc == 0)) disagree("tp_xnn_check_blob / tpdump", name, n, ce.msg, te.msg);
#ifdef VERDICT_XNNPACK
    {
      tp_xnn_runtime *rt = NULL;
      tp_status l = tp_xnn_load(p, n, q, qn, 0, &rt, &e);
      n_verdicts++;
      if (q) { /* the loader resolves named constants in the .ptd: so does tpdump --ptd */
        tp_error pe2;
        rc = tpdump_verdict(p, n, q, qn, &te, &pe2);
        n_verdicts++;
      }
      if (l == TP_OK) {
        n_load_ok++;
        tp_xnn_runtime_destroy(rt);
        if (rc != 0) disagree("tp_xnn_load accepts, tpdump refuses", name, n, "", te.msg);
      } else if (rc == 0) {
        tp_error re; /* a well-formed blob the loader refuses: counted apart, by reason */
        if (tp_xnn_check_blob(p, n, TP_XNN_TARGET_EXECUTORCH, &re) != TP_OK) n_load_rules++;
        else loader_reason(e.msg);
      }
      if (l == TP_OK && rc == 0) {
        tp_error re;
        if (tp_xnn_check_blob(p, n, TP_XNN_TARGET_EXECUTORCH, &re) != TP_OK) n_load_lenient++;
      }
    }
#else
    (void)q;
    (void)qn;
#endif
  } else if (fmt[0] == 'v') {
    tp_ptd pd;
    tp_ptd *pp = NULL;
    tp_vk_blob rb;
    tp_status r, c;
    tp_error ce;
    memset(&pd, 0, sizeof pd);
    if (q && qn && tp_ptd_open(&pd, q, qn) == TP_OK) pp = &pd;
    c = tp_vk_check_blob(p, n, NULL, &ce);
    n_verdicts += 2;
    if ((c == TP_OK) != (rc == 0)) disagree("tp_vk_check_blob / tpdump", name, n, ce.msg, te.msg);
    /* the reader also reads a bare VK00 flatbuffer, which the check refuses (no header) */
    r = tp_vk_read_blob(p, n, pp, &rb, &e);
    if (r == TP_OK && !rb.has_header) r = TP_ERR_FORMAT;
    tp_vk_blob_free(&rb);
    ok = r == TP_OK || (pp != NULL && strstr(e.msg, "the .ptd") != NULL);
    if (c == TP_OK && pp) c = tp_vk_check_blob(p, n, pp, &ce);
    n_verdicts++;
    if (ok != (rc == 0) || (pp && (r == TP_OK) != (c == TP_OK)))
      disagree("tp_vk_read_blob / tpdump", name, n, e.msg, te.msg);
  } else if (!strcmp(fmt, "ptd")) {
    tp_ptd pd;
    tp_status r;
    memset(&pd, 0, sizeof pd);
    r = tp_ptd_open(&pd, p, n);
    n_verdicts++;
    if ((r == TP_OK) != (rc == 0)) disagree("tp_ptd_open / tpdump", name, n, pd.err.msg, te.msg);
  } else {
    tp_pte_file f;
    tp_status r = tp_pte_read(&f, p, n);
    n_verdicts++;
    /* tpdump also judges each delegate's blob: it may refuse what tp_pte_read accepts, never
       the other way round */
    if (r != TP_OK && rc == 0)
      disagree("tp_pte_read refuses, tpdump accepts", name, n, f.err.msg, "");
  }
}

/* The file, its cuts (all, when `cuts` > 0) and bit flips, compared; only the file itself when
   `cuts` < 0. The .ptd buffers are 16-aligned (TP_MALLOC). */
static void feed(const char *name, const unsigned char *file, size_t n, const unsigned char *q,
                 size_t qn, int cuts) {
  unsigned char *m = (unsigned char *)TP_MALLOC(n ? n : 1);
  size_t i;
  uint32_t rnd = 12345u;
  if (!m) return;
  memcpy(m, file, n);
  compare(name, m, n, q, qn);
  if (cuts < 0) n = 0; /* no cuts, no flips */
  for (i = 0; cuts && i < n; i++) compare(name, m, i, q, qn);
  for (i = 0; i < n; i++) { /* every byte flipped in its lowest and highest bit, cut seeds */
    if (!cuts && i % 7) continue;
    m[i] ^= 0x01;
    compare(name, m, n, q, qn);
    m[i] ^= 0x81;
    compare(name, m, n, q, qn);
    m[i] = file[i];
  }
  for (i = 0; n && i < 64; i++) { /* 64 random bit flips, one at a time */
    size_t at;
    rnd = rnd * 1103515245u + 12345u;
    at = (size_t)(rnd >> 8) % n;
    m[at] ^= (unsigned char)(1u << (rnd & 7));
    compare(name, m, n, q, qn);
    m[at] = file[at];
  }
  TP_FREE(m);
}

static unsigned char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *p = NULL;
  long sz;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    p = (unsigned char *)TP_MALLOC((size_t)sz + 1);
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
      TP_FREE(p);
      p = NULL;
    }
    *n = (size_t)sz;
  }
  fclose(f);
  return p;
}

/* One corpus file: framed ones (u32 n, the file, a .ptd) are split. */
static void feed_path(const char *path, const char *name, int framed, int cuts) {
  size_t n = 0;
  unsigned char *p = read_all(path, &n), *file = NULL, *q = NULL;
  size_t fn = n, qn = 0;
  TPT_CHECK(p != NULL);
  if (!p) return;
  n_files++;
  if (framed && n >= 4) {
    uint32_t len = tp__get_le32(p);
    fn = n - 4;
    if (len <= fn) {
      qn = fn - len;
      fn = len;
    }
    file = (unsigned char *)TP_MALLOC(fn ? fn : 1);
    q = qn ? (unsigned char *)TP_MALLOC(qn) : NULL;
    if (file) memcpy(file, p + 4, fn);
    if (q) memcpy(q, p + 4 + fn, qn);
    if (file) feed(name, file, fn, q, qn, cuts);
    TP_FREE(file);
    TP_FREE(q);
  } else {
    feed(name, p, n, NULL, 0, cuts);
  }
  TP_FREE(p);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir whose name starts with prefix (sorted, for the same run each time);
   the first ncuts cut at every byte. A cost seed (make_seeds' seed-*cost-*: a worst shape for
   the readers' budgets, each read costing up to a million visits) is fed whole only, and takes
   no cut slot. */
static void feed_dir(const char *dir, const char *prefix, int framed, int ncuts) {
  DIR *d = opendir(dir);
  struct dirent *de;
  char *names[512], path[1024];
  size_t n = 0, i, k = 0;
  TPT_CHECK(d != NULL);
  if (!d) {
    printf("  cannot open %s\n", dir);
    return;
  }
  while ((de = readdir(d)) != NULL && n < 512) {
    if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix))) continue;
    names[n] = (char *)TP_MALLOC(strlen(de->d_name) + 1);
    if (!names[n]) break;
    memcpy(names[n], de->d_name, strlen(de->d_name) + 1);
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_str);
  for (i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (strstr(names[i], "cost-")) feed_path(path, names[i], framed, -1);
    else feed_path(path, names[i], framed, (int)k++ < ncuts);
    TP_FREE(names[i]);
  }
}

static void test_corpus(void) {
#ifdef VERDICT_CORPUS
  static const char *const framed[] = {"fuzz_xnn_blob", "fuzz_vk_blob", "fuzz_tpdump"};
  static const char *const plain[] = {"fuzz_ptd", "fuzz_pte"};
  char dir[1024];
  size_t i;
  unsigned k;
  for (i = 0; i < 3; i++) {
    snprintf(dir, sizeof dir, "%s/%s", VERDICT_CORPUS, framed[i]);
    feed_dir(dir, "", 1, 2);
  }
  for (i = 0; i < 2; i++) {
    snprintf(dir, sizeof dir, "%s/%s", VERDICT_CORPUS, plain[i]);
    feed_dir(dir, "", 0, 2);
  }
  feed_dir(VERDICT_ROOT "/fuzz/crashes", "fuzz_xnn_", 1, 100);
  printf("  %lu files, %lu inputs (cuts and bit flips), %lu reader verdicts compared with "
         "tpdump's: %lu accepted, %lu refused; %lu disagreements, %lu printer refusals of "
         "accepted files\n", n_files, n_inputs, n_verdicts, n_accepted, n_refused, n_disagree,
         n_printer);
#ifdef VERDICT_XNNPACK
  printf("  tp_xnn_load: %lu loaded (%lu of them break a rule of tp_xnn_check_blob for "
         "ExecuTorch's runtime, which XNNPACK itself runs); of the well-formed blobs it refuses, "
         "%lu by the writer's rules (tp_xnn_check_blob refuses them too) and, by the loader "
         "alone, by reason:\n", n_load_ok, n_load_lenient, n_load_rules);
  for (k = 0; k < VD_REASONS && reasons[k][0]; k++)
    printf("    %6lu  %s\n", reason_count[k], reasons[k]);
  if (n_reasons_other) printf("    %6lu  (other reasons)\n", n_reasons_other);
#else
  (void)k;
  printf("  tp_xnn_load: not compared (built without XNNPACK)\n");
#endif
  TPT_CHECK(n_files >= 20);
  TPT_CHECK(n_accepted > 0 && n_refused > 0);
  TPT_EQ_INT(n_disagree, 0);
  TPT_EQ_INT(n_printer, 0);
#else
  printf("  no corpus (VERDICT_CORPUS not set)\n");
  TPT_CHECK(0);
#endif
}

/* ---- 3. the README's table -------------------------------------------------------------- */

static const char *status_name(tp_status s) {
#define VD_NAME(name, text) if (s == name) return #name;
  TP_STATUS_LIST(VD_NAME)
#undef VD_NAME
  return "?";
}

typedef struct vcase {
  const char *kind;
  tp_status status;
  char msg[TP_ERROR_MAX];
} vcase;

#define VD_CASES 17
static vcase cases[VD_CASES];
static size_t ncases;

static void add_case(const char *kind, tp_status s, const char *msg) {
  if (ncases >= VD_CASES) return;
  cases[ncases].kind = kind;
  cases[ncases].status = s;
  snprintf(cases[ncases].msg, sizeof cases[ncases].msg, "%s", msg);
  ncases++;
}

static void build_cases(void) {
  tp_error e;
  tp_xnn_graph *g = NULL;
  tp_vk_graph *vg = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_xnn_blob b;
  tp_status s;
  unsigned char vb[1024];
  size_t vn, d2[2] = {2, 2}, d3[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  uint32_t x = 0, y = 0, sl = 0;
  tp_tensor t;
  int64_t big;
  tp_storage st;
  tp_ptd pd;
  tp_pte_file pf;
  tp_safetensors *sf = NULL;
  /* broken view: a view of 4 floats over 16 bytes, then made 100 long */
  st.data = g_f;
  st.nbytes = 16;
  memset(&t, 0, sizeof t);
  big = 4;
  TPT_STATUS(tp_view(st, TP_F32, 1, &big, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  x = 0;
  t.sizes[0] = 100;
  s = tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &t, TP_XNN_INVALID_ID, 0, &x);
  add_case("broken view (a constant past its storage)", s, tp_xnn_graph_error(g));
  tp_xnn_graph_destroy(g);
  /* an XNNPACK blob: x -> abs -> y */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 0,
                                        TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d2, NULL, 1,
                                        TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, x, y, 0), TP_OK);
  memset(&m, 0, sizeof m);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_xnn_write(g, &sink), TP_OK);
  tp_xnn_graph_destroy(g);
  s = tp_xnn_read_blob(m.data, m.size / 2, &b, &e);
  add_case("truncated blob (an XNNPACK blob cut in half)", s, e.msg);
  tp_xnn_blob_free(&b);
  m.data[8] = 29;
  s = tp_xnn_read_blob(m.data, m.size, &b, &e);
  add_case("bad header length (XH00 length 29)", s, e.msg);
  tp_xnn_blob_free(&b);
  m.data[8] = 30;
  tp__put_le64(m.data + 22, tp__get_le64(m.data + 22) + 1);
  s = tp_xnn_read_blob(m.data, m.size, &b, &e);
  add_case("offsets past the end (constant segment one byte longer than the file)", s, e.msg);
  tp_xnn_blob_free(&b);
  tp__put_le64(m.data + 22, tp__get_le64(m.data + 22) - 1);
  tp_membuf_free(&m);
  vn = vk_hand_blob(vb, sizeof vb, 1, 255, UINT64_MAX);
  memcpy(vb + 4, "VH01", 4);
  s = tp_vk_check_blob(vb, vn, NULL, &e);
  add_case("bad magic (a Vulkan blob with VH01)", s, e.msg);
  /* dims overflow, too many dims, unknown enum, constant size */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  s = tp_xnn_define_tensor_value(g, TP_XNN_FP32, 3, d3, NULL, TP_XNN_INVALID_ID, 0, &x);
  add_case("dims overflow, at define time (XNNPACK [2^32-1]^3)", s, tp_xnn_graph_error(g));
  tp_xnn_graph_destroy(g);
  if (xnn_big_dims_blob(&m)) {
    int i;
    for (i = 0; i < 2; i++) {
      patch_u32(m.data, m.size, VD_A, 0xFFFFFFFFu);
      patch_u32(m.data, m.size, VD_B, 0xFFFFFFFFu);
      patch_u32(m.data, m.size, VD_C, 0xFFFFFFFFu);
    }
    s = tp_xnn_read_blob(m.data, m.size, &b, &e);
    add_case("dims overflow, in a blob", s, e.msg);
    tp_xnn_blob_free(&b);
    tp_membuf_free(&m);
  }
  TPT_STATUS(tp_vk_graph_create(NULL, &vg), TP_OK);
  {
    size_t d17[17], i;
    for (i = 0; i < 17; i++) d17[i] = 1;
    s = tpt_vk_tensor(vg, TP_VK_FLOAT32, 17, d17, NULL, NULL);
    add_case("too many dims, at define time (a 17-dim Vulkan tensor)", s, tp_vk_graph_error(vg));
  }
  tp_vk_graph_destroy(vg);
  vn = vk_hand_blob(vb, sizeof vb, 17, 255, UINT64_MAX);
  s = tp_vk_check_blob(vb, vn, NULL, &e);
  add_case("too many dims, in a blob", s, e.msg);
  vn = vk_hand_blob(vb, sizeof vb, 2, 7, UINT64_MAX);
  s = tp_vk_check_blob(vb, vn, NULL, &e);
  add_case("unknown enum (Vulkan storage_type 7)", s, e.msg);
  vn = vk_hand_blob(vb, sizeof vb, 1, 255, 16);
  s = tp_vk_check_blob(vb, vn, NULL, &e);
  add_case("constant size other than dims x datatype (VkBytes.length 16 for 8)", s, e.msg);
  /* a graph XNNPACK would abort on: PReLU with a slope that is not a constant (the older
     XNNPACKs, TP_XNN_TARGET_XNNPACK; ExecuTorch's pinned one takes any slope value) */
  {
    tp_xnn_options xo;
    memset(&xo, 0, sizeof xo);
    xo.target = TP_XNN_TARGET_XNNPACK;
    TPT_STATUS(tp_xnn_graph_create(&xo, &g), TP_OK);
  }
  {
    size_t xd[4] = {1, 2, 2, 3}, cd[1] = {3};
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, xd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, cd, NULL, TP_XNN_INVALID_ID, 0,
                                          &sl), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, xd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    s = tp_xnn_define_prelu(g, x, sl, y, 0);
    add_case("a graph the linked XNNPACK would abort on (PReLU slope not a constant, at "
             "TP_XNN_TARGET_XNNPACK)", s,
             tp_xnn_graph_error(g));
  }
  tp_xnn_graph_destroy(g);
  /* unsupported by ExecuTorch's runtime */
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  {
    size_t sd[2] = {2, 4};
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, sd, NULL, 0,
                                          TP_XNN_FLAG_EXTERNAL_INPUT, &x), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, sd, NULL, 1,
                                          TP_XNN_FLAG_EXTERNAL_OUTPUT, &y), TP_OK);
    s = tp_xnn_define_scaled_dot_product_attention(g, x, x, x, x, x, y, 0);
    add_case("unsupported by the target runtime (attention for ExecuTorch)", s,
             tp_xnn_graph_error(g));
  }
  tp_xnn_graph_destroy(g);
  /* bad .ptd, .pte, safetensors: 16 bytes of nothing with the right identifier */
  {
    static unsigned char junk[64];
    memset(junk, 0, sizeof junk);
    memcpy(junk + 4, "FT01", 4);
    memset(&pd, 0, sizeof pd);
    s = tp_ptd_open(&pd, junk, sizeof junk);
    add_case("bad .ptd (64 bytes: FT01 and zeros)", s, pd.err.msg);
    memcpy(junk + 4, "ET12", 4);
    s = tp_pte_read(&pf, junk, sizeof junk);
    add_case("bad .pte (64 bytes: ET12 and zeros)", s, pf.err.msg);
    memset(junk, 0, sizeof junk);
    tp__put_le64(junk, 1000);
    s = tp_safetensors_open(junk, sizeof junk, &sf, &e);
    add_case("bad safetensors (a header length of 1000 in 64 bytes)", s, e.msg);
    tp_safetensors_close(sf);
    sf = NULL;
    s = tp_safetensors_open_file("no/such/model.safetensors", &sf, &e);
    add_case("a file that is not there (tp_safetensors_open_file)", s, e.msg);
  }
}

/* The README section's rows: | kind | `STATUS` | `sentence` |. */
static void test_readme_table(void) {
  size_t n = 0, i, rows = 0, sentences = 0;
  char *readme = (char *)read_all(VERDICT_ROOT "/README.md", &n), *p, *sec;
  int *seen;
  build_cases();
  TPT_CHECK(readme != NULL);
  if (!readme) return;
  readme[n] = '\0';
  seen = (int *)calloc(ncases + 1, sizeof *seen);
  sec = strstr(readme, "\n## What bad input gets");
  TPT_CHECK(sec != NULL);
  for (p = sec ? strchr(sec + 1, '\n') : NULL; p && p[1] && strncmp(p + 1, "## ", 3); ) {
    char *line = p + 1, *end = strchr(line, '\n'), *c1, *c2, *c3, *c4;
    if (!end) end = line + strlen(line);
    p = *end ? end : NULL;
    if (line[0] != '|' || !strncmp(line, "| kind", 6) || !strncmp(line, "|---", 4)) continue;
    *end = '\0';
    c1 = line + 1;
    c2 = strchr(c1, '|');
    c3 = c2 ? strchr(c2 + 1, '|') : NULL;
    c4 = c3 ? strrchr(c3 + 1, '|') : NULL;
    if (!c2 || !c3 || !c4) {
      printf("  README row not understood: %s\n", line);
      TPT_CHECK(0);
      continue;
    }
    *c2 = *c3 = *c4 = '\0';
    while (*c1 == ' ') c1++;
    { char *t = c2 - 1; while (t > c1 && *t == ' ') *t-- = '\0'; }
    rows++;
    for (i = 0; i < ncases; i++) if (!strcmp(cases[i].kind, c1)) break;
    if (i == ncases) {
      printf("  README row without a case: \"%s\"\n", c1);
      TPT_CHECK(0);
      continue;
    }
    seen[i] = 1;
    {
      char want[64], *s = strchr(c2 + 1, '`'), *se = s ? strchr(s + 1, '`') : NULL;
      char *m = strchr(c3 + 1, '`'), *me = m ? strrchr(m + 1, '`') : NULL;
      snprintf(want, sizeof want, "%.*s", s && se ? (int)(se - s - 1) : 0, s ? s + 1 : "");
      {
        char nm[64];
        snprintf(nm, sizeof nm, "%s", status_name(cases[i].status));
        if (strcmp(want, nm)) {
          printf("  README row \"%s\": status %s, the library returns %s\n", c1, want, nm);
          TPT_CHECK(0);
        }
      }
      if (m && me) {
        *me = '\0';
        sentences++;
        if (strcmp(m + 1, cases[i].msg)) {
          printf("  README row \"%s\":\n    README:  %s\n    library: %s\n", c1, m + 1,
                 cases[i].msg);
          TPT_CHECK(0);
        }
      }
    }
  }
  for (i = 0; i < ncases; i++)
    if (!seen[i]) {
      printf("  no README row for \"%s\": | %s | `%s` | `%s` |\n", cases[i].kind, cases[i].kind,
             status_name(cases[i].status), cases[i].msg);
      TPT_CHECK(0);
    }
  printf("  README table: %lu rows, %lu sentences checked against %lu cases\n",
         (unsigned long)rows, (unsigned long)sentences, (unsigned long)ncases);
  TPT_EQ_INT(rows, ncases);
  free(seen);
  TP_FREE(readme);
}

int main(void) {
  (void)tpdump_inspect;
  (void)tpdump_inspect_json;
  TPT_RUN(test_vk_17_dims);
  TPT_RUN(test_vk_length);
  TPT_RUN(test_vk_storage_7);
  TPT_RUN(test_xnn_dims_overflow);
  TPT_RUN(test_readme_table);
  TPT_RUN(test_corpus);
  return tpt_finish("verdict");
}
