/* SHA-256: FIPS 180-2 vectors on both code paths, streaming in random pieces equals one-shot,
   SHA-NI equals portable C on random inputs, hex and sink helpers. */
/* its own implementation: the static block functions of both code paths */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

static void digest_of(const void *p, size_t n, int accel, char hex[65]) {
  tp_sha256 c;
  unsigned char d[32];
  tp_sha256_init(&c);
  if (!accel) c.accel = 0;
  tp_sha256_update(&c, p, n);
  tp_sha256_final(&c, d);
  tp_hex(d, 32, hex);
}

static const char *k_msgs[4] = {
    "", "abc", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
     "nopqrsmnopqrstnopqrstu")};
static const char *k_want[4] = {
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"};

static void test_fips_vectors(void) {
  int i, accel;
  char hex[65];
  for (accel = 0; accel < 2; accel++)
    for (i = 0; i < 4; i++) {
      digest_of(k_msgs[i], strlen(k_msgs[i]), accel, hex);
      TPT_EQ_STR(hex, k_want[i]);
    }
  TPT_STATUS(tp_sha256_hex("abc", 3, hex), TP_OK);
  TPT_EQ_STR(hex, k_want[1]);
}

static void test_million_a(void) {
  static unsigned char a[1000000];
  char hex[65];
  int accel;
  memset(a, 'a', sizeof a);
  for (accel = 0; accel < 2; accel++) {
    digest_of(a, sizeof a, accel, hex);
    TPT_EQ_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
  { /* the same in 1000 updates of 1000 */
    tp_sha256 c;
    unsigned char d[32];
    int i;
    tp_sha256_init(&c);
    for (i = 0; i < 1000; i++) tp_sha256_update(&c, a, 1000);
    tp_sha256_final(&c, d);
    tp_hex(d, 32, hex);
    TPT_EQ_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

static void test_streaming_equals_oneshot(void) {
  static unsigned char buf[5000];
  int it;
  size_t i;
  for (i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(tpt_rand() >> 40);
  for (it = 0; it < 300; it++) {
    size_t n = (size_t)tpt_range(0, (int64_t)sizeof buf), pos = 0;
    char one[65], many[65];
    tp_sha256 c;
    unsigned char d[32];
    digest_of(buf, n, 1, one);
    tp_sha256_init(&c);
    if (it & 1) c.accel = 0;
    while (pos < n) {
      size_t k = (size_t)tpt_range(0, it % 3 == 0 ? 3 : 200);
      if (k > n - pos) k = n - pos;
      tp_sha256_update(&c, buf + pos, k);
      pos += k;
    }
    tp_sha256_final(&c, d);
    tp_hex(d, 32, many);
    TPT_EQ_STR(many, one);
  }
}

/* Every length 0..300 (all padding cases) and big random inputs: SHA-NI == portable. */
static void test_ni_equals_portable(void) {
  static unsigned char buf[70000];
  size_t n;
  int it;
  for (n = 0; n < sizeof buf; n++) buf[n] = (unsigned char)(tpt_rand() >> 33);
  for (n = 0; n <= 300; n++) {
    char a[65], b[65];
    digest_of(buf + (n % 7), n, 0, a);
    digest_of(buf + (n % 7), n, 1, b);
    TPT_EQ_STR(a, b);
  }
  for (it = 0; it < 20; it++) {
    char a[65], b[65];
    n = (size_t)tpt_range(1, (int64_t)sizeof buf - 1);
    digest_of(buf, n, 0, a);
    digest_of(buf, n, 1, b);
    TPT_EQ_STR(a, b);
  }
#if TP__HAVE_SHANI
  if (tp_sha256_accelerated()) { /* the block functions directly, odd alignments */
    for (it = 0; it < 64; it++) {
      uint32_t h1[8], h2[8];
      int k;
      for (k = 0; k < 8; k++) h1[k] = h2[k] = (uint32_t)tpt_rand();
      tp__sha256_blocks_c(h1, buf + it, (size_t)it + 1);
      tp__sha256_blocks_ni(h2, buf + it, (size_t)it + 1);
      TPT_MEMEQ(h1, h2, sizeof h1);
    }
  }
  printf("  SHA-NI on this CPU: %s\n", tp_sha256_accelerated() ? "yes (both paths tested)" : "no");
#else
  printf("  SHA-NI path not compiled on this target\n");
#endif
}

static void test_helpers(void) {
  unsigned char b[3] = {0x00, 0xAB, 0xFF};
  char hex[7], h[65];
  tp_sha256 c;
  tp_sink s;
  unsigned char d[32];
  tp_hex(b, 3, hex);
  TPT_EQ_STR(hex, "00abff");
  tp_hex(b, 0, hex);
  TPT_EQ_STR(hex, "");
  TPT_STATUS(tp_sha256_hex(NULL, 1, h), TP_ERR_INVALID);
  TPT_STATUS(tp_sha256_hex("abc", 3, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_sha256_hex(NULL, 0, h), TP_OK);
  TPT_EQ_STR(h, k_want[0]);
  tp_sha256_init(&c);
  s = tp_sink_sha256(&c);
  TPT_STATUS(tp_sink_write(&s, "a", 1), TP_OK);
  TPT_STATUS(tp_sink_write(&s, "bc", 2), TP_OK);
  TPT_STATUS(tp_sink_write(&s, NULL, 0), TP_OK);
  tp_sha256_final(&c, d);
  tp_hex(d, 32, h);
  TPT_EQ_STR(h, k_want[1]);
}

int main(void) {
  TPT_RUN(test_fips_vectors);
  TPT_RUN(test_million_a);
  TPT_RUN(test_streaming_equals_oneshot);
  TPT_RUN(test_ni_equals_portable);
  TPT_RUN(test_helpers);
  return tpt_finish("sha256");
}
