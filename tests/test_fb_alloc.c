/* The FlatBuffers builder under allocation failure (issue 14 item 13): failing the n-th
   allocation, for every n, either fails the build with TP_ERR_NOMEM and a sentence, or gives
   exactly the bytes of a clean run; never different bytes with TP_OK. The build has 200
   tables with 100 distinct vtables (so the vtable dedup table grows several times) and
   enough strings and vectors to grow the buffer. */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

static tp_status build(unsigned char **out, size_t *n, char *msg, size_t cap) {
  tp_fb_builder *b = NULL;
  tp_fb_ref refs[200], vec, root;
  const unsigned char *d;
  tp_status st;
  int i;
  *out = NULL;
  *n = 0;
  msg[0] = '\0';
  st = tp_fb_builder_create(&b);
  if (st != TP_OK) return st; /* no object yet: msg stays "" */
  msg[0] = '-';
  msg[1] = '\0';
  for (i = 0; i < 200; i++) {
    char name[32];
    uint32_t vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tp_fb_ref s, v;
    snprintf(name, sizeof name, "table %d", i);
    s = tp_fb_create_string(b, name, strlen(name));
    v = tp_fb_create_vector(b, vals, (size_t)(i % 8), 4);
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, s);
    tp_fb_add_ref(b, 1, v);
    /* field (2 + i % 100): 100 distinct vtables, each used twice */
    tp_fb_add_u32(b, (uint16_t)(2 + i % 100), (uint32_t)i + 1u, 0);
    refs[i] = tp_fb_end_table(b);
  }
  vec = tp_fb_create_vector_refs(b, refs, 200);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, 0, vec);
  root = tp_fb_end_table(b);
  st = tp_fb_finish(b, root, "TEST");
  if (st == TP_OK) {
    d = tp_fb_data(b, n);
    *out = (unsigned char *)malloc(*n);
    if (*out) memcpy(*out, d, *n);
  } else {
    snprintf(msg, cap, "%s", tp_fb_error(b)); /* "" would fail the check below */
  }
  tp_fb_builder_destroy(b);
  return st;
}

static void test_every_allocation_failure(void) {
  unsigned char *clean, *got;
  size_t nclean, ngot;
  char msg[TP_ERROR_MAX];
  long n, allocations, failed = 0, same = 0;
  g_fail_at = 1000000;
  TPT_STATUS(build(&clean, &nclean, msg, sizeof msg), TP_OK);
  allocations = 1000000 - g_fail_at;
  g_fail_at = -1;
  TPT_CHECK(allocations > 5);
  for (n = 0; n < allocations; n++) {
    tp_status st;
    g_fail_at = n;
    st = build(&got, &ngot, msg, sizeof msg);
    g_fail_at = -1;
    if (st == TP_OK) {
      same++;
      TPT_EQ_U64(ngot, nclean);
      if (ngot == nclean) TPT_MEMEQ(got, clean, nclean);
    } else {
      failed++;
      TPT_STATUS(st, TP_ERR_NOMEM);
      if (msg[0] != '\0') TPT_CHECK(strlen(msg) > 10); /* the builder's sentence */
    }
    free(got);
  }
  /* the dedup table's growths are among the failures now (they used to pass silently) */
  {
    int saw_vt = 0;
    for (n = 0; n < allocations; n++) {
      g_fail_at = n;
      if (build(&got, &ngot, msg, sizeof msg) == TP_ERR_NOMEM && strstr(msg, "vtable table"))
        saw_vt = 1;
      g_fail_at = -1;
      free(got);
    }
    TPT_CHECK(saw_vt);
  }
  printf("  %ld allocations: %ld failed the build with TP_ERR_NOMEM, %ld gave the clean bytes\n",
         allocations, failed, same);
  TPT_EQ_INT(failed + same, allocations);
  TPT_EQ_U64(g_live, 0);
  free(clean);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_every_allocation_failure);
  return tpt_finish("fb_alloc");
}
