/* TP_NO_STDIO: the library builds without <stdio.h>, and its own small formatter writes the
   same error sentences as vsnprintf would. */
#define TP_NO_STDIO
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"

static void test_formatter(void) {
  tp_error e;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_error_set(&e, TP_ERR_BOUNDS, "a %d b %u c %s d %llu e %zu f %x g %lld %% h %c",
                          -5, 7u, "str", 123456789012ull, (size_t)42, 255u, -9000000000ll, 'z'),
             TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "a -5 b 7 c str d 123456789012 e 42 f ff g -9000000000 % h z");
  memset(&e, 0, sizeof e);
  tp_error_set(&e, TP_ERR_INVALID, "%ld|%lu|%5s|%i|%p", -1L, 2UL, "w", 0, (void *)0x1f);
  TPT_EQ_STR(e.msg, "-1|2|w|0|1f"); /* width ignored; %p in plain hex */
  memset(&e, 0, sizeof e);
  tp_error_set(&e, TP_ERR_INVALID, "%lld", (long long)INT64_MIN);
  TPT_EQ_STR(e.msg, "-9223372036854775808");
  { /* truncation keeps the terminator */
    char big[400];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memset(&e, 0, sizeof e);
    tp_error_set(&e, TP_ERR_INVALID, "%s%d", big, 12345);
    TPT_EQ_U64(strlen(e.msg), TP_ERROR_MAX - 1);
  }
}

static void test_messages(void) {
  float x[16];
  tp_tensor t;
  tp_error e;
  memset(x, 0, sizeof x);
  memset(&t, 0, sizeof t);
  t.storage.data = x;
  t.storage.nbytes = sizeof x;
  t.dtype = TP_F32;
  t.ndim = 2;
  t.sizes[0] = 4;
  t.sizes[1] = 5;
  t.strides[0] = 5;
  t.strides[1] = 1;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_tensor_check(&t, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "view reaches byte 80 of a 64-byte storage");
  t.sizes[1] = -1;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_tensor_check(&t, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "size of dim 1 is -1");
  (void)tpt_range;
}

int main(void) {
  TPT_RUN(test_formatter);
  TPT_RUN(test_messages);
  return tpt_finish("nostdio");
}
