/* tp_test.h - tensorpack's tiny test harness (written for this project).

   TPT_RUN(fn) runs one test case; checks inside it record failures and go on. At the end
   tpt_finish() prints "<suite>: N passed, N failed" (cases, not checks) and returns the exit
   code. tests/run.sh adds those lines up. */
#ifndef TP_TEST_H
#define TP_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static int tpt_passed, tpt_failed, tpt_case_failures;
static const char *tpt_case = "";

static void tpt_fail_at(const char *file, int line, const char *what) {
  if (tpt_case_failures < 10) printf("  %s:%d: %s: %s\n", file, line, tpt_case, what);
  tpt_case_failures++;
}

/* 1 on a big-endian host (s390x), where the writers swap every element to little-endian. */
static inline int tpt_big_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 0;
}
/* The bytes the writers store for n elements of es bytes each at src: each element in
   little-endian order (a plain copy on a little-endian host); the same call turns stored
   little-endian elements back into host ones. dst may equal src. */
static inline void tpt_to_le(void *dst, const void *src, size_t n, size_t es) {
  unsigned char *d = (unsigned char *)dst, t;
  size_t i, k;
  if (dst != src) memmove(dst, src, n * es);
  if (!tpt_big_endian() || es < 2) return;
  for (i = 0; i < n; i++, d += es)
    for (k = 0; k < es / 2; k++) {
      t = d[k];
      d[k] = d[es - 1 - k];
      d[es - 1 - k] = t;
    }
}

#define TPT_CHECK(cond) \
  do { if (!(cond)) tpt_fail_at(__FILE__, __LINE__, "check failed: " #cond); } while (0)

#define TPT_EQ_INT(a, b)                                                                  \
  do {                                                                                    \
    long long tpt_a_ = (long long)(a), tpt_b_ = (long long)(b);                           \
    if (tpt_a_ != tpt_b_) {                                                               \
      char tpt_m_[512];                                                                   \
      snprintf(tpt_m_, sizeof tpt_m_, "%s == %s: %lld != %lld", #a, #b, tpt_a_, tpt_b_);  \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

#define TPT_EQ_U64(a, b)                                                                  \
  do {                                                                                    \
    unsigned long long tpt_a_ = (unsigned long long)(a), tpt_b_ = (unsigned long long)(b);\
    if (tpt_a_ != tpt_b_) {                                                               \
      char tpt_m_[512];                                                                   \
      snprintf(tpt_m_, sizeof tpt_m_, "%s == %s: %llu != %llu", #a, #b, tpt_a_, tpt_b_);  \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

/* Exact status of a call. */
#define TPT_STATUS(expr, want) TPT_EQ_INT((int)(expr), (int)(want))

#define TPT_EQ_STR(a, b)                                                                  \
  do {                                                                                    \
    const char *tpt_a_ = (a), *tpt_b_ = (b);                                              \
    if (!tpt_a_ || !tpt_b_ || strcmp(tpt_a_, tpt_b_) != 0) {                              \
      char tpt_m_[640]; /* room for the widest case (gcc -O0 checks it) */                \
      snprintf(tpt_m_, sizeof tpt_m_, "%.100s == %.100s: \"%.200s\" != \"%.200s\"",       \
               #a, #b, tpt_a_ ? tpt_a_ : "(null)", tpt_b_ ? tpt_b_ : "(null)");           \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

/* Substring check, for error messages. */
#define TPT_CONTAINS(hay, needle)                                                         \
  do {                                                                                    \
    const char *tpt_h_ = (hay);                                                           \
    if (!tpt_h_ || !strstr(tpt_h_, (needle))) {                                           \
      char tpt_m_[512];                                                                   \
      snprintf(tpt_m_, sizeof tpt_m_, "\"%.300s\" does not contain \"%s\"",               \
               tpt_h_ ? tpt_h_ : "(null)", (needle));                                     \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

/* Equal bytes; names the first difference. */
#define TPT_MEMEQ(a, b, n)                                                                \
  do {                                                                                    \
    const unsigned char *tpt_a_ = (const unsigned char *)(a);                             \
    const unsigned char *tpt_b_ = (const unsigned char *)(b);                             \
    size_t tpt_n_ = (size_t)(n), tpt_i_;                                                  \
    if (tpt_n_ && (!tpt_a_ || !tpt_b_)) {                                                 \
      tpt_fail_at(__FILE__, __LINE__, #a " or " #b " is NULL");                           \
      break;                                                                              \
    }                                                                                     \
    for (tpt_i_ = 0; tpt_i_ < tpt_n_; tpt_i_++)                                           \
      if (tpt_a_[tpt_i_] != tpt_b_[tpt_i_]) break;                                        \
    if (tpt_i_ < tpt_n_) {                                                                \
      char tpt_m_[512];                                                                   \
      snprintf(tpt_m_, sizeof tpt_m_, "%s vs %s: byte %zu of %zu differs (0x%02x != 0x%02x)", \
               #a, #b, tpt_i_, tpt_n_, tpt_a_[tpt_i_], tpt_b_[tpt_i_]);                   \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

/* The float stored little-endian at p (what the writers store), as a host float. */
static inline float tpt_f32_le(const void *p) {
  const unsigned char *b = (const unsigned char *)p;
  uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Like TPT_MEMEQ, against the bytes the writers store for b: b holds elements of es bytes in
   host order, written little-endian (the same as TPT_MEMEQ on a little-endian host). */
#define TPT_MEMEQ_LE(a, b, n, es)                                                         \
  do {                                                                                    \
    const unsigned char *tpt_a_ = (const unsigned char *)(a);                             \
    const unsigned char *tpt_b_ = (const unsigned char *)(b);                             \
    size_t tpt_n_ = (size_t)(n), tpt_e_ = (size_t)(es), tpt_i_, tpt_j_ = 0;               \
    int tpt_be_ = tpt_big_endian();                                                       \
    if (tpt_n_ && (!tpt_a_ || !tpt_b_)) {                                                 \
      tpt_fail_at(__FILE__, __LINE__, #a " or " #b " is NULL");                           \
      break;                                                                              \
    }                                                                                     \
    for (tpt_i_ = 0; tpt_i_ < tpt_n_; tpt_i_++) {                                         \
      tpt_j_ = tpt_be_ ? tpt_i_ - tpt_i_ % tpt_e_ + tpt_e_ - 1 - tpt_i_ % tpt_e_ : tpt_i_; \
      if (tpt_a_[tpt_i_] != tpt_b_[tpt_j_]) break;                                        \
    }                                                                                     \
    if (tpt_i_ < tpt_n_) {                                                                \
      char tpt_m_[512];                                                                   \
      snprintf(tpt_m_, sizeof tpt_m_, "%s vs %s (little-endian): byte %zu of %zu differs " \
               "(0x%02x != 0x%02x)", #a, #b, tpt_i_, tpt_n_, tpt_a_[tpt_i_], tpt_b_[tpt_j_]); \
      tpt_fail_at(__FILE__, __LINE__, tpt_m_);                                            \
    }                                                                                     \
  } while (0)

static void tpt_run(const char *name, void (*fn)(void)) {
  tpt_case = name;
  tpt_case_failures = 0;
  fn();
  if (tpt_case_failures) {
    printf("FAIL %s (%d failed checks)\n", name, tpt_case_failures);
    tpt_failed++;
  } else {
    printf("ok   %s\n", name);
    tpt_passed++;
  }
  fflush(stdout);
}
#define TPT_RUN(fn) tpt_run(#fn, fn)

static int tpt_finish(const char *suite) {
  printf("%s: %d passed, %d failed\n", suite, tpt_passed, tpt_failed);
  return tpt_failed ? 1 : 0;
}

/* Deterministic xorshift64* for randomized tests. */
static uint64_t tpt_rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t tpt_rand(void) {
  uint64_t x = tpt_rng_state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  tpt_rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}
/* Where a suite's files go: $TMPDIR, else %TEMP%, else /tmp (Windows: the current folder),
   without trailing slashes. */
static inline void tpt_tmpdir(char *dir, size_t cap) {
  const char *d = getenv("TMPDIR");
  size_t n;
  if (!d || !*d) d = getenv("TEMP");
#ifdef _WIN32
  if (!d || !*d) d = ".";
#else
  if (!d || !*d) d = "/tmp";
#endif
  snprintf(dir, cap, "%s", d);
  n = strlen(dir);
  while (n > 1 && (dir[n - 1] == '/' || dir[n - 1] == '\\')) dir[--n] = '\0';
}
/* A whole file, malloc'd with a NUL after its bytes (free() it); *size_out (may be NULL) its
   length. NULL when it cannot be opened or read. */
static inline char *tpt_read_file(const char *path, size_t *size_out) {
  FILE *f = fopen(path, "rb");
  char *p = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    p = (char *)malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
      free(p);
      p = NULL;
    }
    if (p) {
      p[n] = '\0';
      if (size_out) *size_out = (size_t)n;
    }
  }
  fclose(f);
  return p;
}
/* 1 when the n bytes at h hold the string needle (without its NUL) somewhere. */
static inline int tpt_holds(const void *h, size_t n, const char *needle) {
  size_t k = strlen(needle), i;
  for (i = 0; h && i + k <= n; i++)
    if (memcmp((const char *)h + i, needle, k) == 0) return 1;
  return 0;
}
/* Uniform in [lo, hi]. */
static inline int64_t tpt_range(int64_t lo, int64_t hi) {
  return lo + (int64_t)(tpt_rand() % (uint64_t)(hi - lo + 1));
}
#ifdef TENSORPACK_VULKAN_H
/* tp_vk_add_tensor_desc of tp_vk_tensor_desc_make(dt, ndim, dims, constant): the suites' usual
   tensor. */
static inline tp_status tpt_vk_tensor(tp_vk_graph *g, tp_vk_datatype dt, size_t ndim,
                                      const size_t *dims, const tp_tensor *constant,
                                      uint32_t *id) {
  tp_vk_tensor_desc d = tp_vk_tensor_desc_make(dt, ndim, dims, constant);
  return tp_vk_add_tensor_desc(g, &d, id);
}
#endif
#endif
