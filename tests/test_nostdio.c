/* TP_NO_STDIO: the library builds without <stdio.h>, and its own small formatter writes the
   same error sentences as vsnprintf would: every format string in the three headers (string
   literals containing '%', extracted from the source at run time) is formatted conversion by
   conversion, with edge values of each argument type, by both, and compared byte for byte. */
#define TP_NO_STDIO
/* its own implementation: TP_NO_STDIO (and the static tp__vfmt) */
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"
#include <stdarg.h>

static void test_formatter(void) {
  tp_error e;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp__error_set(&e, TP_ERR_BOUNDS, "a %d b %u c %s d %llu e %zu f %x g %lld %% h %c",
                          -5, 7u, "str", 123456789012ull, (size_t)42, 255u, -9000000000ll, 'z'),
             TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "a -5 b 7 c str d 123456789012 e 42 f ff g -9000000000 % h z");
  memset(&e, 0, sizeof e);
  tp__error_set(&e, TP_ERR_INVALID, "%ld|%lu|%5s|%i|%p", -1L, 2UL, "w", 0, (void *)0x1f);
  TPT_EQ_STR(e.msg, "-1|2|    w|0|0x1f"); /* width and %p as glibc */
  memset(&e, 0, sizeof e);
  tp__error_set(&e, TP_ERR_INVALID, "scale %g, %.80s|%g|%g|%g", 0.1, "k", 1e-7, 123456789.0, 2.5);
  TPT_EQ_STR(e.msg, "scale 0.1, k|1e-07|1.23457e+08|2.5");
  memset(&e, 0, sizeof e);
  tp__error_set(&e, TP_ERR_INVALID, "%lld", (long long)INT64_MIN);
  TPT_EQ_STR(e.msg, "-9223372036854775808");
  { /* truncation keeps the terminator */
    char big[400];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memset(&e, 0, sizeof e);
    tp__error_set(&e, TP_ERR_INVALID, "%s%d", big, 12345);
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

/* ---- every message format of the headers, against vsnprintf ---------------------------- */

static void mine(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tp__vfmt(buf, cap, fmt, ap);
  va_end(ap);
}
static void theirs(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
}

/* Appends the joined string literals containing '%' of a C file to list (NUL-separated). */
static size_t extract_formats(const char *path, char *list, size_t cap, size_t at, int *nfmt) {
  FILE *f = fopen(path, "rb");
  static char src[1 << 20];
  char lit[2048];
  size_t n, i = 0, ln = 0;
  int in_lit = 0, joined = 0;
  if (!f) return at;
  n = fread(src, 1, sizeof src - 1, f);
  fclose(f);
  src[n] = 0;
  while (i < n) {
    char c = src[i];
    if (!in_lit) {
      if (c == '/' && src[i + 1] == '*') {
        const char *e = strstr(src + i + 2, "*/");
        i = e ? (size_t)(e - src) + 2 : n;
        continue;
      }
      if (c == '/' && src[i + 1] == '/') {
        while (i < n && src[i] != '\n') i++;
        continue;
      }
      if (c == '\'') { /* a char literal: skip it */
        i++;
        if (src[i] == '\\') i++;
        i += 2;
        continue;
      }
      if (c == '"') {
        in_lit = 1;
        if (!joined) ln = 0;
        i++;
        continue;
      }
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        i++;
        continue;
      }
      /* something else ends a run of adjacent literals */
      if (joined) {
        lit[ln] = 0;
        if (strchr(lit, '%') && at + ln + 1 < cap) {
          memcpy(list + at, lit, ln + 1);
          at += ln + 1;
          (*nfmt)++;
        }
        joined = 0;
      }
      i++;
      continue;
    }
    if (c == '"') {
      in_lit = 0;
      joined = 1;
      i++;
      continue;
    }
    if (c == '\\') {
      char e = src[i + 1];
      char v = e == 'n' ? '\n' : e == 't' ? '\t' : e == '0' ? '?' : e;
      if (ln + 1 < sizeof lit) lit[ln++] = v;
      i += 2;
      continue;
    }
    if (ln + 1 < sizeof lit) lit[ln++] = c;
    i++;
  }
  return at;
}

/* Formats one conversion spec (spec[0] == '%') with every edge value of its type through both
   formatters; returns the number of mismatches (printed). */
static int compare_spec(const char *spec, const char *whole) {
  static const long long ivals[] = {0, 1, -1, 42, 4096, -9000000000ll, 2147483647, -2147483647 - 1,
                                    9223372036854775807ll, -9223372036854775807ll - 1};
  static const unsigned long long uvals[] = {0, 7, 255, 4294967295ull, 123456789012ull,
                                             18446744073709551615ull};
  static const double dvals[] = {0.0, -0.0, 1.0, 0.1, 1e-7, 123456789.0, 2.5, 0.000123456,
                                 999999.5, 1e6, 1e300, 5e-324, 2.2250738585072014e-308,
                                 3.4028234663852886e38, -7.25, 0.5, 1.0 / 3.0, 100000.0,
                                 999999.0, 1e-4, 9.9999949999999e-5};
  char big[201], a[2048], b[2048];
  const char *svals[4];
  char conv = spec[strlen(spec) - 1];
  int bad = 0, lng = 0;
  size_t k;
  const char *p;
  memset(big, 'q', 200);
  big[200] = 0;
  svals[0] = "";
  svals[1] = "w";
  svals[2] = big;
  svals[3] = "key \"x\"";
  for (p = spec + 1; *p; p++) {
    if (*p == 'l') lng++;
    if (*p == 'z' || *p == 'j' || *p == 't') lng = 3;
  }
#define TPN_CMP(...)                                                                    \
  do {                                                                                  \
    mine(a, sizeof a, spec, __VA_ARGS__);                                               \
    theirs(b, sizeof b, spec, __VA_ARGS__);                                             \
    if (strcmp(a, b) != 0) {                                                            \
      if (bad < 3) printf("  \"%s\" (in \"%.60s\"): \"%.80s\" != \"%.80s\"\n", spec, whole, a, b); \
      bad++;                                                                            \
    }                                                                                   \
  } while (0)
  switch (conv) {
    case 'd':
    case 'i':
      for (k = 0; k < sizeof ivals / sizeof ivals[0]; k++) {
        if (lng == 0) TPN_CMP((int)ivals[k]);
        else if (lng == 1) TPN_CMP((long)ivals[k]);
        else if (lng == 2) TPN_CMP(ivals[k]);
        else TPN_CMP((ptrdiff_t)ivals[k]);
      }
      break;
    case 'u':
    case 'x':
    case 'X':
      for (k = 0; k < sizeof uvals / sizeof uvals[0]; k++) {
        if (lng == 0) TPN_CMP((unsigned)uvals[k]);
        else if (lng == 1) TPN_CMP((unsigned long)uvals[k]);
        else if (lng == 2) TPN_CMP(uvals[k]);
        else TPN_CMP((size_t)uvals[k]);
      }
      break;
    case 's':
      for (k = 0; k < 4; k++) TPN_CMP(svals[k]);
      break;
    case 'c':
      TPN_CMP('z');
      TPN_CMP('%');
      break;
    case 'p':
      TPN_CMP((void *)0x1f);
      TPN_CMP((void *)&bad);
      break;
    case 'g':
    case 'G':
    case 'e':
    case 'E':
      for (k = 0; k < sizeof dvals / sizeof dvals[0]; k++) {
        TPN_CMP(dvals[k]);
        TPN_CMP(-dvals[k]);
      }
      TPN_CMP(1.0 / 0.0);
      TPN_CMP(-1.0 / 0.0);
      break;
    default:
      printf("  \"%s\" (in \"%.60s\"): a conversion the test does not know\n", spec, whole);
      bad++;
  }
#undef TPN_CMP
  return bad;
}

static void test_header_formats(void) {
  static char list[1 << 18];
  static const char *files[3] = {"tensorpack.h", "tensorpack_xnnpack.h", "tensorpack_vulkan.h"};
  char root[512], path[600];
  size_t at = 0, f, i;
  int nfmt = 0, nspec = 0, bad = 0, saw_g = 0, saw_prec = 0;
  const char *q;
  /* the headers: beside the directory this file was compiled from (tests/..), or the cwd */
  snprintf(root, sizeof root, "%s", __FILE__);
  q = strrchr(root, '/');
  if (q) root[q - root] = 0;
  else snprintf(root, sizeof root, "tests");
  for (f = 0; f < 3; f++) {
    size_t before = at;
    snprintf(path, sizeof path, "%s/../%s", root, files[f]);
    at = extract_formats(path, list, sizeof list, at, &nfmt);
    if (at == before) at = extract_formats(files[f], list, sizeof list, at, &nfmt);
    TPT_CHECK(at > before); /* each header was found and has formats */
  }
  TPT_CHECK(nfmt > 200); /* the extraction found the messages */
  for (i = 0; i < at; i += strlen(list + i) + 1) {
    const char *fm = list + i, *c;
    for (c = fm; *c; c++) {
      char spec[64];
      size_t n = 1;
      if (*c != '%') continue;
      if (c[1] == '%') {
        c++;
        continue;
      }
      spec[0] = '%';
      /* flags, width, precision, length, conversion */
      while (c[n] && strchr("-+ #0123456789.*hljzt", c[n]) && n < 60) n++;
      if (!c[n]) break;
      memcpy(spec, c, n + 1);
      spec[n + 1] = 0;
      c += n;
      if (strchr(spec, '*')) continue; /* none in the headers today */
      if (!strchr("diuxXscpgGeE", spec[n])) continue; /* "100% of" in prose */
      nspec++;
      if (spec[n] == 'g') saw_g = 1;
      if (strstr(spec, ".80s")) saw_prec = 1;
      bad += compare_spec(spec, fm);
    }
  }
  printf("  %d format strings, %d conversions compared with vsnprintf, %d differ\n", nfmt, nspec,
         bad);
  TPT_EQ_INT(bad, 0);
  TPT_CHECK(saw_g && saw_prec);
}

int main(void) {
  TPT_RUN(test_formatter);
  TPT_RUN(test_header_formats);
  TPT_RUN(test_messages);
  return tpt_finish("nostdio");
}
