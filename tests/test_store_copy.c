/* tp_store_options.copy: a copying store takes each entry's bytes at add, so the caller may free
   or change the weights right away (ASan would report a use after free otherwise), and writes
   exactly the bytes a borrowing store writes for the same calls. */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>

/* Three entries over one heap storage of 2*3*4 floats: a transposed 2-d view, a channels_last
   slice in PRESERVE order, an offset row; plus raw bytes borrowed by the call (copy = 0). */
static tp_status add_all(tp_store *s, float *w, unsigned char *raw) {
  tp_storage st;
  tp_tensor x, t, y;
  int64_t sizes[2] = {6, 4}, sizes4[4] = {1, 2, 3, 4}, strides4[4] = {24, 1, 8, 2};
  tp_status r;
  st.data = w;
  st.nbytes = 24 * sizeof(float);
  if ((r = tp_view(st, TP_F32, 2, sizes, NULL, 0, &x, NULL)) != TP_OK) return r;
  if ((r = tp_transpose(&x, 0, 1, &t, NULL)) != TP_OK) return r;
  if ((r = tp_store_add(s, "t", &t, TP_ORDER_ROW_MAJOR, 0, NULL)) != TP_OK) return r;
  if ((r = tp_view(st, TP_F32, 4, sizes4, strides4, 0, &x, NULL)) != TP_OK) return r;
  if ((r = tp_slice(&x, 3, 1, 4, 1, &y, NULL)) != TP_OK) return r;
  if ((r = tp_store_add(s, "cl", &y, TP_ORDER_PRESERVE, 64, NULL)) != TP_OK) return r;
  if ((r = tp_view(st, TP_F32, 2, sizes, NULL, 0, &x, NULL)) != TP_OK) return r;
  if ((r = tp_select(&x, 0, 5, &y, NULL)) != TP_OK) return r;
  if ((r = tp_store_add(s, NULL, &y, TP_ORDER_ROW_MAJOR, 0, NULL)) != TP_OK) return r;
  return tp_store_add_bytes(s, "raw", raw, 7, 0, 0, NULL);
}

static float *new_weights(void) {
  float *w = (float *)malloc(24 * sizeof(float));
  int i;
  if (w)
    for (i = 0; i < 24; i++) w[i] = (float)i * 1.5f - 3.0f;
  return w;
}

static void test_copy_frees_weights(void) {
  tp_store *borrow = NULL, *copy = NULL;
  tp_store_options o;
  tp_membuf a, b;
  tp_sink sa, sb;
  uint64_t na = 0, nb = 0;
  float *w1 = new_weights(), *w2 = new_weights();
  unsigned char raw1[7] = {1, 2, 3, 4, 5, 6, 7}, raw2[7] = {1, 2, 3, 4, 5, 6, 7};
  tp_ptd p;
  tp_ptd_entry e;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  memset(&o, 0, sizeof o);
  o.copy = 1;
  TPT_CHECK(w1 && w2);
  if (!w1 || !w2) return;
  TPT_STATUS(tp_store_create(NULL, &borrow), TP_OK);
  TPT_STATUS(tp_store_create(&o, &copy), TP_OK);
  TPT_STATUS(add_all(borrow, w1, raw1), TP_OK);
  TPT_STATUS(add_all(copy, w2, raw2), TP_OK);
  /* The copying store no longer needs the weights: scribble on them and free them. */
  memset(w2, 0xAB, 24 * sizeof(float));
  memset(raw2, 0xCD, sizeof raw2);
  free(w2);
  sa = tp_sink_membuf(&a);
  sb = tp_sink_membuf(&b);
  TPT_STATUS(tp_store_write_ptd(borrow, &sa), TP_OK);
  TPT_STATUS(tp_store_write_ptd(copy, &sb), TP_OK);
  TPT_STATUS(tp_store_ptd_size(borrow, &na), TP_OK);
  TPT_STATUS(tp_store_ptd_size(copy, &nb), TP_OK);
  TPT_EQ_U64(na, a.size);
  TPT_EQ_U64(nb, b.size);
  TPT_EQ_U64(a.size, b.size);
  if (a.size == b.size && a.size > 0) TPT_MEMEQ(a.data, b.data, a.size);
  /* and the content is the weights' (not the scribble): the transposed view's first column */
  TPT_STATUS(tp_ptd_open(&p, b.data, b.size), TP_OK);
  TPT_STATUS(tp_ptd_find(&p, "t", &e), TP_OK);
  if (e.nbytes == 96) {
    float f[6];
    tpt_to_le(f, e.data, 6, 4); /* stored little-endian: back to host floats */
    TPT_CHECK(f[0] == -3.0f && f[1] == 3.0f && f[5] == 27.0f);
  }
  TPT_STATUS(tp_ptd_find(&p, "raw", &e), TP_OK);
  TPT_MEMEQ(e.data, raw1, 7);
  tp_membuf_free(&a);
  tp_membuf_free(&b);
  tp_store_destroy(borrow);
  tp_store_destroy(copy);
  free(w1);
}

/* A copy big enough to be streamed (9 MiB, a quarter of a 36 MiB last-level cache) is made
   into a buffer whose bytes start on a 64-byte line inside the allocation: the .ptd holds the
   transposed view's bytes, after the weights are scribbled on and freed. */
static void test_copy_big(void) {
  const int64_t n = 1536;
  size_t bytes = (size_t)(n * n) * sizeof(float);
  float *w = (float *)malloc(bytes), *want = (float *)malloc(bytes);
  tp_store *s = NULL;
  tp_store_options o;
  tp_storage st;
  tp_tensor x, t;
  int64_t sizes[2] = {1536, 1536}, i, j;
  tp_membuf m;
  tp_sink sk;
  tp_ptd p;
  tp_ptd_entry e;
  TPT_CHECK(w && want);
  if (!w || !want) {
    free(w);
    free(want);
    return;
  }
  for (i = 0; i < n * n; i++) w[i] = (float)(i % 100003) - 7.25f;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) want[i * n + j] = w[j * n + i];
  tpt_to_le(want, want, (size_t)(n * n), 4);
  memset(&o, 0, sizeof o);
  memset(&m, 0, sizeof m);
  o.copy = 1;
  st.data = w;
  st.nbytes = bytes;
  TPT_STATUS(tp_store_create(&o, &s), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 2, sizes, NULL, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&x, 0, 1, &t, NULL), TP_OK);
  TPT_STATUS(tp_store_add(s, "big", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  memset(w, 0xAB, bytes);
  free(w);
  sk = tp_sink_membuf(&m);
  TPT_STATUS(tp_store_write_ptd(s, &sk), TP_OK);
  TPT_STATUS(tp_ptd_open(&p, m.data, m.size), TP_OK);
  TPT_STATUS(tp_ptd_find(&p, "big", &e), TP_OK);
  TPT_EQ_U64(e.nbytes, bytes);
  if (e.nbytes == bytes) TPT_MEMEQ(e.data, want, bytes);
  tp_membuf_free(&m);
  tp_store_destroy(s);
  free(want);
}

/* Copies are made once per distinct content: a second key over equal bytes copies nothing. */
static void test_copy_once_per_content(void) {
  tp_store *s = NULL;
  tp_store_options o;
  float w[16] = {0};
  tp_storage st;
  tp_tensor x;
  int64_t n = 16;
  size_t before, after1, after2;
  memset(&o, 0, sizeof o);
  o.copy = 1;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 1, &n, NULL, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_store_create(&o, &s), TP_OK);
  TPT_STATUS(tp_store_add(s, "warm", &x, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  w[0] = 1.0f;   /* new content */
  before = g_live;
  TPT_STATUS(tp_store_add(s, "a", &x, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  after1 = g_live;
  TPT_STATUS(tp_store_add(s, "b", &x, TP_ORDER_ROW_MAJOR, 0, NULL), TP_OK);
  after2 = g_live;
  TPT_CHECK(after1 - before >= sizeof w);     /* the copy, plus key "a" */
  TPT_CHECK(after2 - after1 < sizeof w);      /* only key "b" */
  TPT_EQ_INT(tp_store_count(s), 3);
  tp_store_destroy(s);
  TPT_EQ_U64(g_live, 0);
}

/* Out of memory at each allocation of a copying add: TP_ERR_NOMEM with a sentence, the store
   keeps it, nothing leaks; the failing copy itself names the key and the byte count. */
static void test_copy_nomem(void) {
  long k;
  int saw_copy = 0;
  float w[24] = {0};
  tp_storage st;
  tp_tensor x, t;
  int64_t sizes[2] = {6, 4};
  tp_store_options o;
  memset(&o, 0, sizeof o);
  o.copy = 1;
  st.data = w;
  st.nbytes = sizeof w;
  TPT_STATUS(tp_view(st, TP_F32, 2, sizes, NULL, 0, &x, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&x, 0, 1, &t, NULL), TP_OK);
  for (k = 0; k < 20; k++) {
    tp_store *s = NULL;
    tp_status r;
    TPT_STATUS(tp_store_create(&o, &s), TP_OK);
    if (!s) return;
    g_fail_at = k;
    r = tp_store_add(s, "w", &t, TP_ORDER_ROW_MAJOR, 0, NULL);
    g_fail_at = -1;
    if (r == TP_OK) {
      tp_store_destroy(s);
      break;
    }
    TPT_STATUS(r, TP_ERR_NOMEM);
    TPT_CONTAINS(tp_store_error(s), "key \"w\"");
    if (strcmp(tp_store_error(s), "key \"w\": cannot copy 96 bytes") == 0) saw_copy = 1;
    TPT_STATUS(tp_store_add(s, "v", &t, TP_ORDER_ROW_MAJOR, 0, NULL), TP_ERR_NOMEM);  /* sticks */
    tp_store_destroy(s);
  }
  TPT_CHECK(k > 0 && k < 20);
  TPT_CHECK(saw_copy);
  TPT_EQ_U64(g_live, 0);
}

/* NULL options are the defaults; NULL out is TP_ERR_INVALID. */
static void test_create_ex_args(void) {
  tp_store *s = NULL;
  tp_store_options o;
  memset(&o, 0, sizeof o);
  TPT_STATUS(tp_store_create(&o, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_CHECK(s != NULL);
  TPT_EQ_STR(tp_store_error(s), "");
  tp_store_destroy(s);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_copy_frees_weights);
  TPT_RUN(test_copy_big);
  TPT_RUN(test_copy_once_per_content);
  TPT_RUN(test_copy_nomem);
  TPT_RUN(test_create_ex_args);
  return tpt_finish("store_copy");
}
