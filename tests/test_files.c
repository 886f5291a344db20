/* Reading files (issue 25): tp_file_bytes_open (mapped on POSIX and Windows, read otherwise or
   with TP_FILE_COPY), and the readers' file forms tp_safetensors_open_file, tp_ptd_open_file
   and tp_pte_read_file: the same results as the byte forms, bytes owned until the one close,
   a sentence naming the path on every failure, no allocation left behind (the read copies are
   counted; a mapping is unmapped by the close). Runs on Linux, s390x (qemu) and Windows (wine). */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>
#include <time.h>

static char g_dir[512]; /* $TMPDIR, %TEMP%, /tmp or . */
static unsigned g_tag;
static char g_path[700];

static const char *tmp_path(const char *name) {
  snprintf(g_path, sizeof g_path, "%s/tp_files_%u_%s", g_dir, g_tag, name);
  return g_path;
}

static int write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (!f) return 0;
  ok = fwrite(data, 1, n, f) == n;
  ok &= fclose(f) == 0;
  return ok;
}

/* whether the platform maps files (the read path otherwise) */
static int maps_files(void) {
#if defined(_WIN32) || defined(__unix__) || defined(__unix) || defined(__APPLE__)
  return 1;
#else
  return 0;
#endif
}

/* A safetensors file: "w" F32 [2,3] (1..6, little-endian) and "b" I8 [4] (-1, 2, -3, 4). */
static size_t make_safetensors(unsigned char *out, size_t cap) {
  const char *hdr = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                    "\"b\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[24,28]},"
                    "\"__metadata__\":{\"format\":\"pt\"}}";
  size_t h = strlen(hdr), i, n = 8 + h + 28;
  float v[6] = {1, 2, 3, 4, 5, 6};
  signed char b[4] = {-1, 2, -3, 4};
  if (n > cap) return 0;
  for (i = 0; i < 8; i++) out[i] = (unsigned char)((uint64_t)h >> (8 * i));
  memcpy(out + 8, hdr, h);
  tpt_to_le(out + 8 + h, v, 6, 4);
  memcpy(out + 8 + h + 24, b, 4);
  return n;
}

static void test_file_bytes(void) {
  unsigned char data[1000];
  tp_file_bytes fb, cp;
  tp_error err;
  size_t i, live;
  for (i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + 3);
  TPT_CHECK(write_bytes(tmp_path("bytes.bin"), data, sizeof data));
  live = g_live;
  TPT_STATUS(tp_file_bytes_open(g_path, 0, &fb, &err), TP_OK);
  TPT_EQ_INT(err.status, TP_OK);
  TPT_EQ_U64(fb.size, sizeof data);
  TPT_EQ_INT(fb.mapped, maps_files());
  if (fb.data && fb.size == sizeof data) TPT_MEMEQ(fb.data, data, sizeof data);
  if (maps_files()) TPT_EQ_U64(g_live, live); /* mapped: nothing allocated */
  /* TP_FILE_COPY: read into memory, the same bytes, freed by the close */
  TPT_STATUS(tp_file_bytes_open(g_path, TP_FILE_COPY, &cp, NULL), TP_OK);
  TPT_EQ_INT(cp.mapped, 0);
  TPT_EQ_U64(cp.size, sizeof data);
  TPT_CHECK(cp.data != fb.data);
  if (cp.data && cp.size == sizeof data) TPT_MEMEQ(cp.data, data, sizeof data);
  TPT_CHECK(g_live > live);
  tp_file_bytes_close(&cp);
  TPT_CHECK(cp.data == NULL && cp.size == 0 && cp.release__ == NULL);
  tp_file_bytes_close(&cp); /* twice: a no-op */
  tp_file_bytes_close(&fb);
  TPT_CHECK(fb.data == NULL && fb.size == 0);
  tp_file_bytes_close(NULL);
  TPT_EQ_U64(g_live, live);
  /* no memory for the copy: TP_ERR_NOMEM naming the file, nothing left */
  g_fail_at = 0;
  TPT_STATUS(tp_file_bytes_open(g_path, TP_FILE_COPY, &cp, &err), TP_ERR_NOMEM);
  g_fail_at = -1;
  TPT_CONTAINS(err.msg, "tp_files_");
  TPT_CHECK(cp.data == NULL && cp.size == 0);
  TPT_EQ_U64(g_live, live);
  remove(g_path);

  /* an empty file: no bytes, nothing to release */
  TPT_CHECK(write_bytes(tmp_path("empty.bin"), data, 0));
  TPT_STATUS(tp_file_bytes_open(g_path, 0, &fb, &err), TP_OK);
  TPT_CHECK(fb.data == NULL && fb.size == 0 && fb.mapped == 0);
  tp_file_bytes_close(&fb);
  TPT_EQ_U64(g_live, live);
  remove(g_path);

  /* failures: the path and the reason, *out zeroed */
  memset(&fb, 0x5A, sizeof fb);
  TPT_STATUS(tp_file_bytes_open(tmp_path("missing.bin"), 0, &fb, &err), TP_ERR_IO);
  TPT_CONTAINS(err.msg, "cannot open \"");
  TPT_CONTAINS(err.msg, "missing.bin\"");
  TPT_CHECK(fb.data == NULL && fb.size == 0 && fb.release__ == NULL);
  TPT_STATUS(tp_file_bytes_open(g_dir, 0, &fb, &err), TP_ERR_IO); /* a directory */
  TPT_CHECK(err.msg[0] != 0);
  TPT_STATUS(tp_file_bytes_open(NULL, 0, &fb, &err), TP_ERR_INVALID);
  TPT_CONTAINS(err.msg, "path is NULL or empty");
  TPT_STATUS(tp_file_bytes_open("", 0, &fb, &err), TP_ERR_INVALID);
  TPT_STATUS(tp_file_bytes_open(g_dir, 6u, &fb, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_file_bytes_open: unknown flags 0x6");
  TPT_STATUS(tp_file_bytes_open(g_dir, 0, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_file_bytes_open: out is NULL");
#ifdef __linux__
  /* a /proc file reports 0 bytes but has some: read, not mapped */
  TPT_STATUS(tp_file_bytes_open("/proc/self/status", 0, &fb, &err), TP_OK);
  TPT_EQ_INT(fb.mapped, 0);
  TPT_CHECK(fb.size > 10 && fb.data && memcmp(fb.data, "Name:", 5) == 0);
  tp_file_bytes_close(&fb);
  TPT_EQ_U64(g_live, live);
#endif
}

static void test_safetensors_file(void) {
  unsigned char file[512];
  size_t n = make_safetensors(file, sizeof file), live = g_live;
  tp_safetensors *st, *ref;
  tp_tensor w, b, wr;
  tp_error err;
  const char *fmt;
  float want[6] = {1, 2, 3, 4, 5, 6};
  TPT_CHECK(n > 0 && write_bytes(tmp_path("m.safetensors"), file, n));
  TPT_STATUS(tp_safetensors_open_file(g_path, &st, &err), TP_OK);
  TPT_EQ_INT(err.status, TP_OK);
  if (!st) return;
  TPT_STATUS(tp_safetensors_open(file, n, &ref, NULL), TP_OK);
  TPT_EQ_U64(tp_safetensors_count(st), 2);
  if (tpt_big_endian()) { /* a multi-byte dtype is refused there (the bytes are LE) */
    TPT_STATUS(tp_safetensors_find(st, "w", &w), TP_ERR_UNSUPPORTED);
  } else {
    TPT_STATUS(tp_safetensors_find(st, "w", &w), TP_OK);
    TPT_STATUS(tp_safetensors_find(ref, "w", &wr), TP_OK);
    TPT_EQ_INT(w.ndim, 2);
    TPT_EQ_INT((int)w.sizes[0], 2);
    TPT_EQ_INT((int)w.sizes[1], 3);
    TPT_CHECK(w.storage.data != wr.storage.data); /* the file's own bytes, not ours */
    TPT_EQ_U64(w.storage.nbytes, 24);
    TPT_MEMEQ(w.storage.data, want, 24);
  }
  TPT_STATUS(tp_safetensors_find(st, "b", &b), TP_OK);
  TPT_STATUS(tp_safetensors_find(ref, "b", &wr), TP_OK);
  TPT_CHECK(b.storage.data != wr.storage.data); /* the file's own bytes, not ours */
  TPT_EQ_INT(((const signed char *)b.storage.data)[2], -3);
  TPT_STATUS(tp_safetensors_metadata(st, "format", &fmt), TP_OK);
  TPT_EQ_STR(fmt, "pt");
  tp_safetensors_close(st); /* one close: the object and the file's bytes */
  tp_safetensors_close(ref);
  TPT_EQ_U64(g_live, live);

  /* a bad file: tp_safetensors_open's sentence after the path; nothing left */
  file[0] = 0xE8;
  file[1] = 0x03; /* header length 1000 */
  TPT_CHECK(write_bytes(g_path, file, 64));
  st = (tp_safetensors *)&err; /* set to NULL on failure */
  TPT_STATUS(tp_safetensors_open_file(g_path, &st, &err), TP_ERR_FORMAT);
  TPT_CHECK(st == NULL);
  TPT_CONTAINS(err.msg, "m.safetensors\": header length 1000 runs past the end of the "
                        "64-byte file");
  TPT_EQ_U64(g_live, live);
  remove(g_path);
  TPT_STATUS(tp_safetensors_open_file(g_path, &st, &err), TP_ERR_IO);
  TPT_CONTAINS(err.msg, "cannot open \"");
  TPT_STATUS(tp_safetensors_open_file(g_path, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_safetensors_open_file: out is NULL");
  TPT_STATUS(tp_safetensors_open_file(NULL, &st, NULL), TP_ERR_INVALID);
  /* no memory for the reader after the file was mapped or read: released, NOMEM */
  TPT_CHECK((n = make_safetensors(file, sizeof file)) > 0 && write_bytes(g_path, file, n));
  g_fail_at = 0;
  TPT_STATUS(tp_safetensors_open_file(g_path, &st, &err), TP_ERR_NOMEM);
  g_fail_at = -1;
  TPT_EQ_U64(g_live, live);
  remove(g_path);
}

static void test_ptd_file(void) {
  float v[12];
  int64_t sz[2] = {3, 4};
  tp_storage s;
  tp_tensor t, col;
  tp_store *store;
  tp_ptd p, ref;
  tp_ptd_entry e, er;
  tp_membuf mb = {NULL, 0, 0};
  tp_sink sink = tp_sink_membuf(&mb);
  size_t i, live;
  for (i = 0; i < 12; i++) v[i] = (float)i * 0.5f - 1.0f;
  s.data = v;
  s.nbytes = sizeof v;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_select(&t, 1, 2, &col, NULL), TP_OK); /* column 2: strided */
  TPT_STATUS(tp_store_create(NULL, &store), TP_OK);
  TPT_STATUS(tp_store_add(store, "t", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_add(store, "col", &col, TP_ORDER_ROW_MAJOR, 64, NULL), TP_OK);
  TPT_STATUS(tp_store_write_ptd_file(store, tmp_path("w.ptd")), TP_OK);
  TPT_STATUS(tp_store_write_ptd(store, &sink), TP_OK);
  tp_store_destroy(store);
  live = g_live;

  TPT_STATUS(tp_ptd_open_file(&p, g_path), TP_OK);
  TPT_STATUS(tp_ptd_open(&ref, mb.data, mb.size), TP_OK);
  TPT_EQ_U64(p.count, 2);
  TPT_EQ_U64(p.size, mb.size);
  TPT_CHECK(p.data != mb.data);
  TPT_STATUS(tp_ptd_find(&p, "col", &e), TP_OK);
  TPT_STATUS(tp_ptd_find(&ref, "col", &er), TP_OK);
  TPT_EQ_U64(e.nbytes, 12);
  TPT_MEMEQ(e.data, er.data, 12);
  TPT_EQ_U64((uintptr_t)((const unsigned char *)e.data - p.data) % 64, 0);
  TPT_EQ_INT(e.has_layout, 1);
  TPT_EQ_INT((int)e.sizes[0], 3);
  tp_ptd_close(&p);
  TPT_CHECK(p.data == NULL && p.count == 0);
  tp_ptd_close(&ref); /* borrowed bytes: only zeroed */
  TPT_CHECK(ref.data == NULL);
  TPT_EQ_U64(g_live, live);

  /* a damaged copy: the reader's sentence after the path, the bytes released */
  mb.data[5] = 'X'; /* identifier FT01 -> FX01 */
  TPT_CHECK(write_bytes(g_path, mb.data, mb.size));
  TPT_STATUS(tp_ptd_open_file(&p, g_path), TP_ERR_FORMAT);
  TPT_EQ_INT(tp_ptd_status(&p), TP_ERR_FORMAT);
  TPT_CONTAINS(tp_ptd_error(&p), "w.ptd\": file identifier is not FT01");
  TPT_CHECK(p.data == NULL);
  TPT_STATUS(tp_ptd_find(&p, "t", &e), TP_ERR_FORMAT); /* the open failure sticks */
  tp_ptd_close(&p);
  TPT_EQ_U64(g_live, live);
  remove(g_path);
  TPT_STATUS(tp_ptd_open_file(&p, g_path), TP_ERR_IO);
  TPT_CONTAINS(tp_ptd_error(&p), "cannot open \"");
  TPT_STATUS(tp_ptd_open_file(&p, NULL), TP_ERR_INVALID);
  tp_ptd_close(&p);
  tp_ptd_close(NULL);
  tp_membuf_free(&mb);
}

static tp_status blob_produce(void *ctx, tp_sink *sink) {
  return sink->write(sink->ctx, ctx, 40);
}

static void test_pte_file(void) {
  unsigned char blob[40];
  tp_pte *prog;
  tp_pte_method m;
  tp_pte_tensor args[2];
  tp_pte_file f, ref;
  tp_pte_method_info mi;
  tp_pte_delegate_info d;
  tp_membuf mb = {NULL, 0, 0};
  tp_sink sink = tp_sink_membuf(&mb);
  size_t i, live;
  for (i = 0; i < sizeof blob; i++) blob[i] = (unsigned char)(0xA0 + i);
  memset(args, 0, sizeof args);
  for (i = 0; i < 2; i++) {
    args[i].role = i == 0 ? TP_PTE_INPUT : TP_PTE_OUTPUT;
    args[i].dtype = TP_F32;
    args[i].ndim = 1;
    args[i].sizes[0] = 5;
  }
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.args = args;
  m.n_args = 2;
  m.backend_id = "TestBackend";
  m.blob_size = sizeof blob;
  m.produce = blob_produce;
  m.ctx = blob;
  TPT_STATUS(tp_pte_create(NULL, &prog), TP_OK);
  TPT_STATUS(tp_pte_add_method(prog, &m), TP_OK);
  {
    uint64_t want = 0, n = 0;
    TPT_STATUS(tp_pte_size(prog, &want), TP_OK);
    TPT_STATUS(tp_pte_save(prog, tmp_path("p.pte"), &n), TP_OK);
    TPT_EQ_U64(n, want);
  }
  TPT_STATUS(tp_pte_write(prog, &sink), TP_OK);
  tp_pte_destroy(prog);
  live = g_live;

  TPT_STATUS(tp_pte_read_file(&f, g_path), TP_OK);
  TPT_STATUS(tp_pte_read(&ref, mb.data, mb.size), TP_OK);
  TPT_EQ_U64(f.size, mb.size);
  TPT_EQ_U64(f.n_methods, 1);
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_STR(mi.name, "forward");
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &d), TP_OK);
  TPT_EQ_STR(d.id, "TestBackend");
  TPT_EQ_U64(d.nbytes, sizeof blob);
  TPT_MEMEQ(d.data, blob, sizeof blob);
  TPT_CHECK((const unsigned char *)d.data >= f.data &&
            (const unsigned char *)d.data < f.data + f.size);
  tp_pte_close(&f);
  TPT_CHECK(f.data == NULL && f.n_methods == 0);
  tp_pte_close(&ref);
  TPT_EQ_U64(g_live, live);

  /* truncated to 40 bytes: the reader's sentence after the path */
  TPT_CHECK(write_bytes(g_path, mb.data, 40));
  TPT_STATUS(tp_pte_read_file(&f, g_path), TP_ERR_FORMAT);
  TPT_CONTAINS(f.err.msg, "p.pte\": ");
  TPT_CHECK(f.data == NULL);
  tp_pte_close(&f);
  remove(g_path);
  TPT_STATUS(tp_pte_read_file(&f, g_path), TP_ERR_IO);
  TPT_CONTAINS(f.err.msg, "cannot open \"");
  TPT_EQ_U64(g_live, live);
  tp_pte_close(NULL);
  tp_membuf_free(&mb);
}

/* tp_store_save_ptd / tp_pte_save: the size out, the file there; a failure: the status, no size */
static void test_save_and_bar(void) {
  float v[4] = {1, 2, 3, 4};
  tp_store *st;
  uint64_t n = 7, want = 0;
  tp_progress_bar bar;
  FILE *f;
  char out[600], path2[760];
  size_t got;
  TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
  TPT_STATUS(tp_store_add_bytes(st, "v", v, sizeof v, 16, 0, NULL), TP_OK);
  TPT_STATUS(tp_store_ptd_size(st, &want), TP_OK);
  TPT_STATUS(tp_store_save_ptd(st, tmp_path("s.ptd"), &n), TP_OK);
  TPT_EQ_U64(n, want);
  {
    tp_ptd p;
    TPT_STATUS(tp_ptd_open_file(&p, g_path), TP_OK);
    TPT_EQ_U64(p.size, want);
    tp_ptd_close(&p);
  }
  remove(g_path);
  snprintf(path2, sizeof path2, "%s/tp_files_no_such_dir_%u/s.ptd", g_dir, g_tag);
  printf("  (an \"error: ...\" line on stderr is expected next)\n");
  fflush(stdout);
  TPT_STATUS(tp_store_save_ptd(st, path2, &n), TP_ERR_IO);
  TPT_EQ_U64(n, 0);
  TPT_CONTAINS(tp_store_error(st), "tp_files_no_such_dir_");
  tp_store_destroy(st);

  /* the bar: redrawn when the percentage changes, the line ended once */
  f = fopen(tmp_path("bar.txt"), "w+b");
  TPT_CHECK(f != NULL);
  if (!f) return;
  bar.label = "w.ptd";
  bar.out = f;
  bar.drawn__ = 0;
  TPT_EQ_INT(tp_progress_bar_fn(&bar, 0, 200), 0);
  TPT_EQ_INT(tp_progress_bar_fn(&bar, 1, 200), 0); /* still 0%: not redrawn */
  TPT_EQ_INT(tp_progress_bar_fn(&bar, 100, 200), 0);
  TPT_EQ_INT(tp_progress_bar_fn(&bar, 200, 200), 0);
  TPT_EQ_INT(tp_progress_bar_fn(&bar, 200, 200), 0); /* finished: nothing more */
  rewind(f);
  got = fread(out, 1, sizeof out - 1, f);
  out[got] = '\0';
  fclose(f);
  remove(g_path);
  {
    static const char want_bar[] =
        "\r  w.ptd [..............................]   0% 0/200 bytes"
        "\r  w.ptd [###############...............]  50% 100/200 bytes"
        "\r  w.ptd [##############################] 100% 200/200 bytes\n";
    TPT_EQ_STR(out, want_bar);
  }
}

int main(void) {
  g_tag = (unsigned)time(NULL) ^ (unsigned)clock() * 2654435761u;
  tpt_tmpdir(g_dir, sizeof g_dir);
  (void)tpt_range;
  TPT_RUN(test_file_bytes);
  TPT_RUN(test_safetensors_file);
  TPT_RUN(test_ptd_file);
  TPT_RUN(test_pte_file);
  TPT_RUN(test_save_and_bar);
  return tpt_finish("files");
}
