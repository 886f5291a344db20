/* tp_store_add_all and the store's parallel_for hook: the same entries, keys, .ptd bytes and
   errors as one tp_store_add after another, with no hook, with a serial "fake parallel" hook
   that runs the tasks out of order (reversed, then odd before even), and in a copying store.
   The pthreads hook runs in examples/08_parallel_export.c and bench/bench_ptd.c. */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>

#define NV 12
static float g_w[64 * 48];
static tp_tensor g_views[NV];
static const char *g_keys[NV];

/* Twelve views over one storage: transposes, slices, a channels_last slice in PRESERVE order,
   duplicates of one content (under a given key and under its sha256), an empty view. */
static void make_views(void) {
  tp_storage st;
  tp_tensor x, y;
  int64_t sz[2] = {64, 48}, sz4[4] = {2, 6, 8, 4}, st4[4] = {192, 1, 24, 6};
  int i;
  for (i = 0; i < 64 * 48; i++) g_w[i] = (float)(i % 97) * 0.25f - 7.0f;
  st.data = g_w;
  st.nbytes = sizeof g_w;
  tp_view(st, TP_F32, 2, sz, NULL, 0, &x, NULL);
  tp_transpose(&x, 0, 1, &g_views[0], NULL);           /* 48x64 transpose */
  tp_slice(&x, 1, 3, 40, 2, &g_views[1], NULL);        /* every other column */
  tp_narrow(&x, 0, 10, 20, &g_views[2], NULL);         /* contiguous rows */
  g_views[3] = g_views[0];                             /* same bytes again, sha256 key */
  tp_view(st, TP_F32, 4, sz4, st4, 5, &y, NULL);
  tp_slice(&y, 2, 1, 7, 1, &g_views[4], NULL);         /* channels_last slice */
  tp_select(&x, 0, 63, &g_views[5], NULL);             /* one row */
  tp_view(st, TP_BF16, 2, sz, NULL, 1, &y, NULL);
  tp_transpose(&y, 0, 1, &g_views[6], NULL);           /* bf16 transpose */
  tp_narrow(&x, 0, 5, 0, &g_views[7], NULL);           /* empty */
  tp_flip(&g_views[1], 0, &g_views[8], NULL);          /* negative stride */
  g_views[9] = g_views[2];                             /* same key "rows" and bytes: once */
  tp_view(st, TP_U8, 2, sz, NULL, 3, &y, NULL);
  tp_transpose(&y, 0, 1, &g_views[10], NULL);
  g_views[11] = g_views[5];
  for (i = 0; i < NV; i++) g_keys[i] = NULL;
  g_keys[2] = "rows";
  g_keys[9] = "rows";
  g_keys[5] = "last_row";
  g_keys[11] = "last_row_again";
}

static tp_order order_of(int i) { return i == 4 ? TP_ORDER_PRESERVE : TP_ORDER_ROW_MAJOR; }
static size_t align_of(int i) { return i == 6 ? 64 : 0; }

/* The serial "fake parallel" hook: every task once, reversed on odd calls, odd indices before
   even ones on even calls; counts calls and tasks. */
static int g_hook_calls;
static size_t g_hook_tasks;
static void fake_parallel(void *hook_ctx, size_t n, tp_parallel_task fn, void *fn_ctx) {
  size_t i;
  (void)hook_ctx;
  g_hook_calls++;
  g_hook_tasks += n;
  if (g_hook_calls % 2) {
    for (i = n; i-- > 0;) fn(fn_ctx, i);
  } else {
    for (i = 1; i < n; i += 2) fn(fn_ctx, i);
    for (i = 0; i < n; i += 2) fn(fn_ctx, i);
  }
}

static tp_status ptd_bytes(tp_store *s, tp_membuf *m) {
  tp_sink k = tp_sink_membuf(m);
  memset(m, 0, sizeof *m);
  return tp_store_write_ptd(s, &k);
}

/* The reference: one tp_store_add per view, in order. */
static tp_store *reference(tp_membuf *m, const char **keys_out) {
  tp_store *s = NULL;
  int i;
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  for (i = 0; i < NV; i++)
    TPT_STATUS(tp_store_add(s, g_keys[i], &g_views[i], order_of(i), align_of(i), &keys_out[i]),
               TP_OK);
  TPT_STATUS(ptd_bytes(s, m), TP_OK);
  return s;
}

static void fill_items(tp_store_item *it) {
  int i;
  for (i = 0; i < NV; i++) {
    it[i].key = g_keys[i];
    it[i].view = &g_views[i];
    it[i].order = order_of(i);
    it[i].alignment = align_of(i);
    it[i].key_out = "stale";
  }
}

static void test_same_bytes_every_way(void) {
  tp_membuf ref, got;
  const char *ref_keys[NV];
  tp_store *r = reference(&ref, ref_keys), *s;
  int way, i;
  for (way = 0; way < 4; way++) { /* no hook; hook; hook twice (other order); hook + copy */
    tp_store_options o;
    tp_store_item it[NV];
    memset(&o, 0, sizeof o);
    if (way > 0) o.parallel_for = fake_parallel;
    if (way == 3) o.copy = 1;
    g_hook_calls = 0;
    g_hook_tasks = 0;
    TPT_STATUS(tp_store_create(&o, &s), TP_OK);
    fill_items(it);
    if (way == 2) { /* two batches: the hook runs once per batch, in its other order too */
      TPT_STATUS(tp_store_add_all(s, it, 5), TP_OK);
      TPT_STATUS(tp_store_add_all(s, it + 5, NV - 5), TP_OK);
      TPT_EQ_INT(g_hook_calls, 2);
    } else {
      TPT_STATUS(tp_store_add_all(s, it, NV), TP_OK);
      TPT_EQ_INT(g_hook_calls, way > 0 ? 1 : 0);
    }
    TPT_EQ_U64(g_hook_tasks, way > 0 ? NV : 0);
    TPT_EQ_U64(tp_store_count(s), tp_store_count(r));
    for (i = 0; i < NV; i++) {
      TPT_CHECK(it[i].key_out != NULL);
      if (it[i].key_out) TPT_EQ_STR(it[i].key_out, ref_keys[i]);
    }
    TPT_STATUS(ptd_bytes(s, &got), TP_OK);
    TPT_EQ_U64(got.size, ref.size);
    if (got.size == ref.size) TPT_MEMEQ(got.data, ref.data, ref.size);
    tp_membuf_free(&got);
    tp_store_destroy(s);
  }
  tp_membuf_free(&ref);
  tp_store_destroy(r);
}

/* A bad item k: items before it are in, none after, and the store holds the error (status and
   sentence) that the same tp_store_add sequence gives. */
static void check_failure_like_serial(int k, const tp_tensor *bad, const char *bad_key,
                                      tp_status want, const char *sentence) {
  tp_store *a = NULL, *b = NULL;
  tp_store_options o;
  tp_store_item it[NV];
  int i;
  memset(&o, 0, sizeof o);
  o.parallel_for = fake_parallel;
  TPT_STATUS(tp_store_create(NULL, &a), TP_OK);
  TPT_STATUS(tp_store_create(&o, &b), TP_OK);
  for (i = 0; i < NV; i++) {
    const tp_tensor *v = i == k ? bad : &g_views[i];
    const char *key = i == k ? bad_key : g_keys[i];
    tp_status st = tp_store_add(a, key, v, order_of(i), align_of(i), NULL);
    TPT_STATUS(st, i < k ? TP_OK : want);
  }
  fill_items(it);
  it[k].view = bad;
  it[k].key = bad_key;
  TPT_STATUS(tp_store_add_all(b, it, NV), want);
  TPT_EQ_STR(tp_store_error(b), tp_store_error(a));
  TPT_EQ_STR(tp_store_error(b), sentence);
  TPT_EQ_U64(tp_store_count(b), tp_store_count(a));
  for (i = 0; i < NV; i++) TPT_CHECK((it[i].key_out != NULL) == (i < k));
  /* later calls return the latched error */
  TPT_STATUS(tp_store_add_all(b, it, 1), want);
  tp_store_destroy(a);
  tp_store_destroy(b);
}

static void test_errors_like_serial(void) {
  tp_tensor oob = g_views[2], other = g_views[1];
  tp_store_item one;
  tp_store *s = NULL;
  oob.offset = 64 * 48; /* 20 rows from element 3072: past the storage */
  check_failure_like_serial(7, &oob, "oob", TP_ERR_BOUNDS,
                            "key \"oob\": view reaches byte 16128 of a 12288-byte storage");
  /* the same key as item 2 with other bytes: found at insert time, after the hashing */
  check_failure_like_serial(4, &other, "rows", TP_ERR_INVALID,
                            "key \"rows\": added again with different bytes (4864 bytes, sha256 "
                            "188c5619921dd108... now; 3840 bytes, sha256 876f3f5978d8264c... "
                            "before)");
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add_all(s, NULL, 3), TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(s), "tp_store_add_all: NULL items with n = 3");
  tp_store_destroy(s);
  TPT_STATUS(tp_store_create(NULL, &s), TP_OK);
  TPT_STATUS(tp_store_add_all(s, NULL, 0), TP_OK); /* nothing to add */
  memset(&one, 0, sizeof one);
  one.view = &g_views[0];
  one.order = (tp_order)7;
  TPT_STATUS(tp_store_add_all(s, &one, 1), TP_ERR_INVALID);
  TPT_EQ_STR(tp_store_error(s), "key \"(sha256)\": order 7 is not a tp_order");
  tp_store_destroy(s);
}

/* Every allocation failure: a failing call leaves the store with TP_ERR_NOMEM and a sentence
   (or the items all in); never other bytes with TP_OK. */
static void test_nomem_sweep(void) {
  tp_membuf ref, got;
  const char *ref_keys[NV];
  tp_store *r = reference(&ref, ref_keys);
  long k;
  int saw_fail = 0, saw_items = 0;
  for (k = 0; k < 400; k++) {
    tp_store_options o;
    tp_store_item it[NV];
    tp_store *s = NULL;
    tp_status st;
    memset(&o, 0, sizeof o);
    o.parallel_for = fake_parallel;
    if (tp_store_create(&o, &s) != TP_OK) continue;
    fill_items(it);
    g_fail_at = k;
    st = tp_store_add_all(s, it, NV);
    g_fail_at = -1;
    if (st == TP_OK) {
      TPT_STATUS(ptd_bytes(s, &got), TP_OK);
      TPT_EQ_U64(got.size, ref.size);
      if (got.size == ref.size) TPT_MEMEQ(got.data, ref.data, ref.size);
      tp_membuf_free(&got);
      tp_store_destroy(s);
      break;
    }
    saw_fail = 1;
    TPT_CHECK(st == TP_ERR_NOMEM);
    TPT_CHECK(tp_store_error(s)[0] != '\0');
    if (strcmp(tp_store_error(s), "tp_store_add_all: no room for 12 items") == 0) saw_items = 1;
    tp_store_destroy(s);
  }
  TPT_CHECK(saw_fail);
  TPT_CHECK(saw_items); /* the first allocation of the call is its item array */
  tp_membuf_free(&ref);
  tp_store_destroy(r);
}

int main(void) {
  make_views();
  TPT_RUN(test_same_bytes_every_way);
  TPT_RUN(test_errors_like_serial);
  TPT_RUN(test_nomem_sweep);
  return tpt_finish("store_parallel");
}
