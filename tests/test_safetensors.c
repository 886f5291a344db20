/* safetensors input: views zero-copy into the file bytes, metadata, lookups, and every malformed
   header refused with its exact status and sentence (never a read outside the bytes: the files
   are heap copies of exactly their length, so ASan sees any overrun). */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>

/* A file: u64 LE header length, the header, then `data_len` data bytes 0, 1, 2, ... */
static unsigned char *mkfile(const char *header, size_t data_len, size_t *n) {
  size_t h = strlen(header), i;
  unsigned char *f = (unsigned char *)malloc(8 + h + data_len + 1);
  if (!f) return NULL;
  tp__put_le64(f, (uint64_t)h);
  memcpy(f + 8, header, h);
  for (i = 0; i < data_len; i++) f[8 + h + i] = (unsigned char)i;
  *n = 8 + h + data_len;
  return f;
}

/* Opens the file made from header + data and expects `want` with exactly `msg`. */
static void expect_open(const char *header, size_t data_len, tp_status want, const char *msg,
                        int line) {
  size_t n = 0;
  unsigned char *f = mkfile(header, data_len, &n);
  tp_safetensors *st = (tp_safetensors *)&n;   /* must be reset to NULL on failure */
  tp_error err;
  tp_status s;
  err.status = TP_ERR_IO;                       /* must be reset on entry */
  strcpy(err.msg, "old");
  s = tp_safetensors_open(f, n, &st, &err);
  if ((int)s != (int)want || strcmp(err.msg, msg) != 0 || (s != TP_OK && st != NULL)) {
    char m[600];
    snprintf(m, sizeof m, "line %d: status %d (want %d), \"%s\" (want \"%s\")", line, (int)s,
             (int)want, err.msg, msg);
    tpt_fail_at(__FILE__, __LINE__, m);
  }
  if (s == TP_OK) tp_safetensors_close(st);
  free(f);
}
#define EXPECT(h, d, st, msg) expect_open(h, d, st, msg, __LINE__)

static void test_views_zero_copy(void) {
  const char *h = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\\u00e9 \\ud83d\\ude00\"},"
                  "\"b\":{\"dtype\":\"I16\",\"shape\":[3],\"data_offsets\":[24,30]},"
                  "\"a\":{\"shape\":[2,3],\"dtype\":\"F32\",\"data_offsets\":[0,24]},"
                  "\"e\":{\"dtype\":\"BF16\",\"shape\":[0,4],\"data_offsets\":[30,30]},"
                  "\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[30,31]}}   ";
  size_t n = 0;
  unsigned char *f = mkfile(h, 31, &n);
  const unsigned char *data = f + 8 + strlen(h);
  tp_safetensors *st = NULL;
  tp_error err;
  tp_tensor t;
  const char *name = NULL, *v = NULL;
  tp_buffer b;
  TPT_STATUS(tp_safetensors_open(f, n, &st, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  if (!st) {
    free(f);
    return;
  }
  TPT_EQ_INT(tp_safetensors_count(st), 4);
  if (tpt_big_endian()) {
    /* the file's multi-byte elements are little-endian: no native view of them here */
    TPT_STATUS(tp_safetensors_find(st, "a", &t), TP_ERR_UNSUPPORTED);
    TPT_EQ_STR(tp_safetensors_error(st), "tensor \"a\": the file's F32 elements are "
                                         "little-endian and this host is big-endian");
    TPT_STATUS(tp_safetensors_find(st, "s", &t), TP_OK);
    TPT_CHECK(t.storage.data == data + 30);
    TPT_STATUS(tp_safetensors_metadata(st, "format", &v), TP_OK);
    TPT_EQ_STR(v, "pt");
    tp_safetensors_close(st);
    free(f);
    return;
  }
  TPT_STATUS(tp_safetensors_get(st, 0, &name, &t), TP_OK);   /* header order */
  TPT_EQ_STR(name, "b");
  TPT_EQ_INT(t.dtype, TP_I16);
  TPT_EQ_INT(t.ndim, 1);
  TPT_EQ_INT(t.sizes[0], 3);
  TPT_CHECK(t.storage.data == data + 24);
  TPT_EQ_U64(t.storage.nbytes, 6);
  TPT_STATUS(tp_safetensors_find(st, "a", &t), TP_OK);
  TPT_EQ_INT(t.dtype, TP_F32);
  TPT_EQ_INT(t.ndim, 2);
  TPT_EQ_INT(t.sizes[0], 2);
  TPT_EQ_INT(t.sizes[1], 3);
  TPT_EQ_INT(t.strides[0], 3);
  TPT_EQ_INT(t.strides[1], 1);
  TPT_CHECK(t.storage.data == data);
  TPT_EQ_U64(t.storage.nbytes, 24);
  /* zero-copy all the way to the bytes */
  TPT_STATUS(tp_compact(&t, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.data == data && b.nbytes == 24 && b.owned == NULL);
  tp_buffer_release(&b);
  TPT_STATUS(tp_safetensors_find(st, "e", &t), TP_OK);
  TPT_EQ_INT(t.dtype, TP_BF16);
  TPT_EQ_INT(tp_numel(&t), 0);
  TPT_STATUS(tp_safetensors_find(st, "s", &t), TP_OK);
  TPT_EQ_INT(t.ndim, 0);
  TPT_EQ_U64(tp_nbytes(&t), 1);
  TPT_CHECK(t.storage.data == data + 30);
  TPT_STATUS(tp_safetensors_metadata(st, "format", &v), TP_OK);
  TPT_EQ_STR(v, "pt");
  TPT_STATUS(tp_safetensors_metadata(st, "note", &v), TP_OK);
  TPT_EQ_STR(v, "caf\xc3\xa9 \xf0\x9f\x98\x80");
  TPT_EQ_INT(tp_safetensors_status(st), TP_OK);
  TPT_EQ_STR(tp_safetensors_error(st), "");
  /* lookups that fail say why and never spoil the object */
  TPT_STATUS(tp_safetensors_find(st, "c", &t), TP_ERR_INVALID);
  TPT_EQ_STR(tp_safetensors_error(st), "tensor \"c\" is not in the file");
  TPT_EQ_INT(tp_safetensors_status(st), TP_ERR_INVALID);
  TPT_STATUS(tp_safetensors_find(st, "__metadata__", &t), TP_ERR_INVALID);
  TPT_STATUS(tp_safetensors_find(st, NULL, &t), TP_ERR_INVALID);
  TPT_EQ_STR(tp_safetensors_error(st), "tp_safetensors_find: name is NULL");
  TPT_STATUS(tp_safetensors_get(st, 4, &name, &t), TP_ERR_INVALID);
  TPT_EQ_STR(tp_safetensors_error(st), "tensor 4 asked for; the file has 4");
  TPT_CHECK(name == NULL);
  TPT_STATUS(tp_safetensors_metadata(st, "nope", &v), TP_ERR_INVALID);
  TPT_EQ_STR(tp_safetensors_error(st), "__metadata__ has no \"nope\"");
  TPT_STATUS(tp_safetensors_metadata(st, NULL, &v), TP_ERR_INVALID);
  TPT_EQ_STR(tp_safetensors_error(st), "tp_safetensors_metadata: key is NULL");
  TPT_STATUS(tp_safetensors_get(st, 3, &name, NULL), TP_OK);   /* name only */
  TPT_EQ_STR(name, "s");
  TPT_EQ_STR(tp_safetensors_error(st), "");
  tp_safetensors_close(st);
  tp_safetensors_close(NULL);
  free(f);
}

/* Every dtype the DESIGN maps, with its element size; the rest are listed but give no view. */
static void test_dtypes(void) {
  static const char *names[10] = {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8",
                                  "BOOL"};
  static const tp_dtype want[10] = {TP_F64, TP_F32, TP_F16, TP_BF16, TP_I64, TP_I32, TP_I16,
                                    TP_I8,  TP_U8,  TP_BOOL};
  int k;
  for (k = 0; k < 10; k++) {
    char h[200];
    size_t es = tp_dtype_size(want[k]), n = 0;
    unsigned char *f;
    tp_safetensors *st = NULL;
    tp_tensor t;
    snprintf(h, sizeof h, "{\"x\":{\"dtype\":\"%s\",\"shape\":[2,2],\"data_offsets\":[0,%u]}}",
             names[k], (unsigned)(4 * es));
    f = mkfile(h, 4 * es, &n);
    TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_OK);
    if (st) {
      tp_status s = tp_safetensors_find(st, "x", &t);
      if (tpt_big_endian() && es > 1) {
        TPT_STATUS(s, TP_ERR_UNSUPPORTED);
      } else {
        TPT_STATUS(s, TP_OK);
        TPT_EQ_INT(t.dtype, want[k]);
        TPT_EQ_U64(tp_nbytes(&t), 4 * es);
      }
    }
    tp_safetensors_close(st);
    free(f);
  }
  {
    const char *h = "{\"u\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                    "\"f4\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[4,6]},"
                    "\"f8\":{\"dtype\":\"F8_E4M3\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
                    "\"data_offsets\":[6,7]}}";
    size_t n = 0;
    unsigned char *f = mkfile(h, 7, &n);
    tp_safetensors *st = NULL;
    tp_tensor t;
    const char *name = NULL;
    TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_OK);
    if (st) {
      TPT_EQ_INT(tp_safetensors_count(st), 3);
      TPT_STATUS(tp_safetensors_get(st, 0, &name, &t), TP_ERR_UNSUPPORTED);
      TPT_EQ_STR(name, "u");
      TPT_EQ_STR(tp_safetensors_error(st), "tensor \"u\": dtype U16 has no tp_dtype");
      TPT_STATUS(tp_safetensors_find(st, "f4", &t), TP_ERR_UNSUPPORTED);
      TPT_EQ_STR(tp_safetensors_error(st), "tensor \"f4\": dtype F4 has no tp_dtype");
      TPT_STATUS(tp_safetensors_find(st, "f8", &t), TP_ERR_UNSUPPORTED);
      TPT_EQ_STR(tp_safetensors_error(st), "tensor \"f8\": dtype F8_E4M3 has no tp_dtype");
    }
    tp_safetensors_close(st);
    free(f);
  }
  {
    const char *h = "{\"d\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
                    "\"data_offsets\":[0,1]}}";
    size_t n = 0;
    unsigned char *f = mkfile(h, 1, &n);
    tp_safetensors *st = NULL;
    tp_tensor t;
    TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_OK);
    if (st) {
      TPT_STATUS(tp_safetensors_find(st, "d", &t), TP_ERR_UNSUPPORTED);
      TPT_EQ_STR(tp_safetensors_error(st), "tensor \"d\": 17 dims, more than TP_MAX_DIMS 16");
    }
    tp_safetensors_close(st);
    free(f);
  }
}

static void test_empty_and_escapes(void) {
  size_t n = 0;
  unsigned char *f = mkfile("{}", 0, &n);
  tp_safetensors *st = NULL;
  tp_tensor t;
  TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_OK);
  if (st) TPT_EQ_INT(tp_safetensors_count(st), 0);
  if (st) TPT_STATUS(tp_safetensors_find(st, "x", &t), TP_ERR_INVALID);
  tp_safetensors_close(st);
  free(f);
  f = mkfile(" {\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u0041\":{\"dtype\":\"U8\",\"shape\":[1],"
             "\"data_offsets\":[0,1],\"extra\":[1,{\"k\":null},true,false,-1.5e+3,\"s\"]}}", 1, &n);
  /* a header must start with '{' exactly (the reference loader's rule) */
  TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_ERR_FORMAT);
  free(f);
  f = mkfile("{\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u0041\":{\"dtype\":\"U8\",\"shape\":[1],"
             "\"data_offsets\":[0,1],\"extra\":[1,{\"k\":null},true,false,-1.5e+3,\"s\",[]]}}\n",
             1, &n);
  TPT_STATUS(tp_safetensors_open(f, n, &st, NULL), TP_OK);
  if (st) TPT_STATUS(tp_safetensors_find(st, "a\"b\\c/\b\f\n\r\tA", &t), TP_OK);
  tp_safetensors_close(st);
  free(f);
}

static void test_args(void) {
  tp_safetensors *st = NULL;
  tp_error err;
  unsigned char x[8] = {0};
  TPT_STATUS(tp_safetensors_open(x, 8, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_safetensors_open: out is NULL");
  TPT_STATUS(tp_safetensors_open(NULL, 8, &st, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_safetensors_open: file is NULL with 8 bytes");
  TPT_STATUS(tp_safetensors_open(NULL, 0, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "the file is 0 bytes; a safetensors file starts with an 8-byte header "
                      "length");
}

static void test_lengths(void) {
  unsigned char f[20];
  tp_safetensors *st = NULL;
  tp_error err;
  memset(f, ' ', sizeof f);
  TPT_STATUS(tp_safetensors_open(f, 7, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "the file is 7 bytes; a safetensors file starts with an 8-byte header "
                      "length");
  tp__put_le64(f, 13);
  TPT_STATUS(tp_safetensors_open(f, 20, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "header length 13 runs past the end of the 20-byte file");
  tp__put_le64(f, UINT64_MAX);
  TPT_STATUS(tp_safetensors_open(f, 20, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "header length 18446744073709551615 runs past the end of the 20-byte file");
  tp__put_le64(f, 0);
  TPT_STATUS(tp_safetensors_open(f, 20, &st, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "the 0-byte header does not start with '{'");
  {
    size_t big = 100000001u;
    unsigned char *g = (unsigned char *)malloc(8 + big);
    if (g) {
      memset(g + 8, ' ', big);
      g[8] = '{';
      g[9] = '}';
      tp__put_le64(g, big);
      TPT_STATUS(tp_safetensors_open(g, 8 + big, &st, &err), TP_ERR_FORMAT);
      TPT_EQ_STR(err.msg, "header length 100000001 is above the limit of 100000000 bytes");
      tp__put_le64(g, big - 1);   /* at the limit, trailing spaces: fine, 1 data byte extra */
      TPT_STATUS(tp_safetensors_open(g, 8 + big, &st, &err), TP_ERR_FORMAT);
      TPT_EQ_STR(err.msg, "no tensors, but 1 data bytes follow the header");
      free(g);
    }
  }
}

static void test_bad_json(void) {
  EXPECT("[]", 0, TP_ERR_FORMAT, "the 2-byte header does not start with '{'");
  EXPECT("{", 0, TP_ERR_FORMAT, "bad JSON at header byte 1: expected a string");
  EXPECT("{\"a\"", 0, TP_ERR_FORMAT, "bad JSON at header byte 4: expected ':'");
  EXPECT("{\"a\":", 0, TP_ERR_FORMAT, "bad JSON at header byte 5: a tensor's entry is not an object");
  EXPECT("{\"a", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: unterminated string");
  EXPECT("{\"a\\", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: unterminated escape");
  EXPECT("{\"a\\x\":1}", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: unknown escape");
  EXPECT("{\"a\\u12\"}", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: \\u needs four hex digits");
  EXPECT("{\"a\\u12g4\"}", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: \\u needs four hex digits");
  EXPECT("{\"\\udc00\"}", 0, TP_ERR_FORMAT, "bad JSON at header byte 8: lone low surrogate");
  EXPECT("{\"\\ud800x\"}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 8: high surrogate without a low one");
  EXPECT("{\"\\u0000\":{}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 8: \\u0000 in a string (no C string can hold it)");
  EXPECT("{\"a\tb\":{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: control character in a string");
  EXPECT("{\"\xff\":{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 2: a string is not UTF-8");
  EXPECT("{\"\xc0\xaf\":{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 2: a string is not UTF-8");
  EXPECT("{\"\xed\xa0\x80\":{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 2: a string is not UTF-8");
  EXPECT("{\"\xe2\x82\":{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 2: a string is not UTF-8");
  EXPECT("{} x", 0, TP_ERR_FORMAT, "bad JSON at header byte 3: more after the header's closing '}'");
  EXPECT("{}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 2: more after the header's closing '}'");
  EXPECT("{\"__metadata__\":{} \"b\":{}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 19: expected ',' or '}'");
  EXPECT("{\"a\":{\"shape\":[1 2]}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 17: expected ',' or ']'");
  EXPECT("{\"a\":{\"shape\":[-1]}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 15: a negative number");
  EXPECT("{\"a\":{\"shape\":[01]}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 17: a number with a leading 0");
  EXPECT("{\"a\":{\"shape\":[1.0]}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 16: a number that is not an integer");
  EXPECT("{\"a\":{\"shape\":[1e3]}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 16: a number that is not an integer");
  EXPECT("{\"a\":{\"shape\":[18446744073709551616]}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 34: a number above 2^64 - 1");
  EXPECT("{\"a\":{\"shape\":[x]}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 15: expected a number");
  EXPECT("{\"a\":{\"shape\":1}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 14: \"shape\" is not an array");
  EXPECT("{\"a\":{\"data_offsets\":{}}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 21: \"data_offsets\" is not an array");
  EXPECT("{\"a\":{\"dtype\":5}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 14: expected a string");
  EXPECT("{\"a\":{\"x\":tru}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 10: bad literal");
  EXPECT("{\"a\":{\"x\":-}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 11: a number without digits");
  EXPECT("{\"a\":{\"x\":1.}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 12: no digit after a number's '.'");
  EXPECT("{\"a\":{\"x\":1e}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 12: no digit in a number's exponent");
  EXPECT("{\"a\":{\"x\":00}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 12: a number with a leading 0");
  EXPECT("{\"a\":{\"x\":}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 10: expected a value");
  EXPECT("{\"a\":{\"x\":[1,}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 13: expected a value");
  EXPECT("{\"a\":{\"x\":{\"k\" 1}}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 15: expected ':'");
  EXPECT("{\"a\":{\"x\":[1}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 12: expected ',' or ']'");
  EXPECT("{\"a\":{\"x\":{\"k\":1]}}", 0, TP_ERR_FORMAT, "bad JSON at header byte 16: expected ',' or '}'");
  EXPECT("{\"a\":{\"x\":1", 0, TP_ERR_FORMAT, "bad JSON at header byte 11: expected ',' or '}'");
  {
    char deep[200];
    int k;
    strcpy(deep, "{\"a\":{\"x\":");
    for (k = 0; k < 66; k++) strcat(deep, "[");
    EXPECT(deep, 0, TP_ERR_FORMAT, "bad JSON at header byte 74: nested deeper than 64");
  }
}

static void test_bad_tensors(void) {
  EXPECT("{\"a\":{}}", 0, TP_ERR_FORMAT, "tensor \"a\": no \"dtype\"");
  EXPECT("{\"a\":{\"dtype\":\"F32\"}}", 0, TP_ERR_FORMAT, "tensor \"a\": no \"shape\"");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[]}}", 0, TP_ERR_FORMAT,
         "tensor \"a\": no \"data_offsets\"");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\"}}", 0, TP_ERR_FORMAT,
         "tensor \"a\": \"dtype\" appears twice");
  EXPECT("{\"a\":{\"shape\":[],\"shape\":[]}}", 0, TP_ERR_FORMAT, "tensor \"a\": \"shape\" appears twice");
  EXPECT("{\"a\":{\"dtype\":\"F33\",\"shape\":[],\"data_offsets\":[0,4]}}", 4, TP_ERR_UNSUPPORTED,
         "tensor \"a\": dtype \"F33\" is not a safetensors dtype tensorpack knows");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0]}}", 4, TP_ERR_FORMAT,
         "tensor \"a\": \"data_offsets\" has 1 numbers, not 2");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4,8]}}", 4, TP_ERR_FORMAT,
         "tensor \"a\": \"data_offsets\" has 3 numbers, not 2");
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[9223372036854775808],\"data_offsets\":[0,1]}}", 1,
         TP_ERR_FORMAT, "tensor \"a\": dim 0 is 9223372036854775808, above INT64_MAX");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4,
         TP_ERR_FORMAT, "tensor \"a\": its shape's F32 size overflows 64 bits");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[1152921504606846976,8],\"data_offsets\":[0,4]}}", 4,
         TP_ERR_FORMAT, "tensor \"a\": its shape's F32 size overflows 64 bits");
  EXPECT("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2, TP_ERR_FORMAT,
         "tensor \"a\": 3 elements of F4 are not a whole number of bytes");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}", 20, TP_ERR_FORMAT,
         "tensor \"a\": 6 elements of F32 are 24 bytes, data_offsets [0, 20] hold 20");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 8, TP_ERR_FORMAT,
         "tensor \"a\": data_offsets [8, 4] end before they begin");
  EXPECT("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 7, TP_ERR_FORMAT,
         "tensor \"a\": data_offsets [0, 8] run past the 7 data bytes");
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[18446744073709551614,"
         "18446744073709551615]}}", 2, TP_ERR_FORMAT,
         "tensor \"a\": 2 elements of U8 are 2 bytes, data_offsets [18446744073709551614, "
         "18446744073709551615] hold 1");
  /* tiling: gaps, overlaps, unused bytes */
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", 4, TP_ERR_FORMAT,
         "tensor \"a\": data starts at byte 2, leaving a gap of 2 bytes after the header");
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[3,4]}}", 4, TP_ERR_FORMAT,
         "tensor \"b\": data starts at byte 3, leaving a gap of 1 bytes after \"a\"");
  EXPECT("{\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 3, TP_ERR_FORMAT,
         "tensor \"b\": data_offsets [1, 3] overlap \"a\", which ends at byte 2");
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2, TP_ERR_FORMAT,
         "tensor \"b\": data_offsets [0, 2] overlap \"a\", which ends at byte 2");
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 5, TP_ERR_FORMAT,
         "the tensors end at data byte 2 but 5 data bytes follow the header (3 unused)");
  EXPECT("{}", 3, TP_ERR_FORMAT, "no tensors, but 3 data bytes follow the header");
  /* names */
  EXPECT("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2, TP_ERR_FORMAT,
         "tensor \"a\" appears twice in the header");
  EXPECT("{\"\\u0061\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2, TP_ERR_FORMAT,
         "tensor \"a\" appears twice in the header");
  /* metadata */
  EXPECT("{\"__metadata__\":[]}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 16: __metadata__ is not an object");
  EXPECT("{\"__metadata__\":{\"k\":1}}", 0, TP_ERR_FORMAT,
         "__metadata__ \"k\": the value is not a string");
  EXPECT("{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", 0, TP_ERR_FORMAT,
         "__metadata__ \"k\" appears twice");
  EXPECT("{\"__metadata__\":{},\"__metadata__\":{}}", 0, TP_ERR_FORMAT,
         "\"__metadata__\" appears twice in the header");
  EXPECT("{\"__metadata__\":{\"k\":\"v\" \"j\":\"w\"}}", 0, TP_ERR_FORMAT,
         "bad JSON at header byte 25: expected ',' or '}'");
  EXPECT("{\"__metadata__\":{}}", 0, TP_OK, "");
}

/* Every truncation of a good file is refused (or, where the cut keeps a valid file, read) and
   nothing is read past the cut: each prefix is a heap copy of exactly its length. */
static void test_truncations_and_flips(void) {
  const char *h = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                  "\"__metadata__\":{\"a\":\"b\"},\"v\":{\"dtype\":\"BF16\",\"shape\":[3],"
                  "\"data_offsets\":[16,22]}}";
  size_t n = 0, cut, i;
  unsigned char *f = mkfile(h, 22, &n);
  int opened = 0;
  for (cut = 0; cut < n; cut++) {
    unsigned char *g = (unsigned char *)malloc(cut ? cut : 1);
    tp_safetensors *st = NULL;
    tp_error err;
    memcpy(g, f, cut);
    if (tp_safetensors_open(g, cut, &st, &err) == TP_OK) opened++;
    else TPT_CHECK(err.msg[0] != 0 && st == NULL);
    tp_safetensors_close(st);
    free(g);
  }
  TPT_EQ_INT(opened, 0);
  for (i = 0; i < n; i++) {
    unsigned char *g = (unsigned char *)malloc(n);
    tp_safetensors *st = NULL;
    memcpy(g, f, n);
    g[i] ^= 0x5A;
    if (tp_safetensors_open(g, n, &st, NULL) == TP_OK) {
      size_t k;
      for (k = 0; k < tp_safetensors_count(st); k++) {
        tp_tensor t;
        const char *name;
        if (tp_safetensors_get(st, k, &name, &t) == TP_OK) {
          TPT_CHECK((const unsigned char *)t.storage.data >= g &&
                    (const unsigned char *)t.storage.data + t.storage.nbytes <= g + n);
        }
      }
    }
    tp_safetensors_close(st);
    free(g);
  }
  free(f);
}

/* Allocation failure at every allocation of an open: TP_ERR_NOMEM with a sentence, no leak. */
static void test_nomem(void) {
  const char *h = "{\"__metadata__\":{\"a\":\"b\",\"c\":\"d\"},"
                  "\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                  "\"v\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[16,22]}}";
  size_t n = 0;
  unsigned char *f = mkfile(h, 22, &n);
  long k;
  for (k = 0; k < 100; k++) {
    tp_safetensors *st = NULL;
    tp_error err;
    tp_status s;
    g_fail_at = k;
    s = tp_safetensors_open(f, n, &st, &err);
    g_fail_at = -1;
    if (s == TP_OK) {
      tp_safetensors_close(st);
      break;
    }
    TPT_STATUS(s, TP_ERR_NOMEM);
    TPT_CHECK(strncmp(err.msg, "no memory", 9) == 0);
  }
  TPT_CHECK(k > 3 && k < 100);
  TPT_EQ_U64(g_live, 0);
  free(f);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_views_zero_copy);
  TPT_RUN(test_dtypes);
  TPT_RUN(test_empty_and_escapes);
  TPT_RUN(test_args);
  TPT_RUN(test_lengths);
  TPT_RUN(test_bad_json);
  TPT_RUN(test_bad_tensors);
  TPT_RUN(test_truncations_and_flips);
  TPT_RUN(test_nomem);
  return tpt_finish("safetensors");
}
