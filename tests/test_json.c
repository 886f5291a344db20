/* tp_json (tensorpack.h section 10): a JSON object such as a Hugging Face config.json read with
   the safetensors header's strict reader, its top-level keys looked up as int / number /
   string / bool. Every refusal with its exact status and sentence; the texts are heap copies of
   exactly their length (no NUL after them), so ASan sees any read past the end. */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tp_test.h"

#include <float.h>
#include <stdlib.h>
#include <time.h>

/* text as a heap block of exactly its length */
static unsigned char *dup_exact(const char *text, size_t n) {
  unsigned char *p = (unsigned char *)malloc(n ? n : 1);
  if (p && n) memcpy(p, text, n);
  return p;
}

/* Opens text (n bytes) and expects want with exactly msg (and no document on a failure). */
static void expect_open_n(const char *text, size_t n, tp_status want, const char *msg,
                          int line) {
  unsigned char *p = dup_exact(text, n);
  tp_json *doc = (tp_json *)&n; /* must be reset to NULL on failure */
  tp_error err;
  tp_status s;
  err.status = TP_ERR_IO; /* must be reset on entry */
  strcpy(err.msg, "old");
  s = tp_json_open(p, n, &doc, &err);
  if ((int)s != (int)want || strcmp(err.msg, msg) != 0 || (s != TP_OK && doc != NULL)) {
    char m[700];
    snprintf(m, sizeof m, "line %d: status %d (want %d), \"%s\" (want \"%s\")", line, (int)s,
             (int)want, err.msg, msg);
    tpt_fail_at(__FILE__, __LINE__, m);
  }
  if (s == TP_OK) tp_json_close(doc);
  free(p);
}
#define EXPECT(text, st, msg) expect_open_n(text, strlen(text), st, msg, __LINE__)

static tp_json *open_ok(const char *text) {
  size_t n = strlen(text);
  unsigned char *p = dup_exact(text, n);
  tp_json *doc = NULL;
  tp_error err;
  TPT_STATUS(tp_json_open(p, n, &doc, &err), TP_OK);
  TPT_EQ_STR(err.msg, "");
  free(p); /* the document keeps copies */
  return doc;
}

/* A GPT-2 config.json as the Hub has it (shortened), plus the edge values. */
static void test_config(void) {
  tp_json *doc = open_ok(
      "{\n  \"activation_function\": \"gelu_new\",\n  \"architectures\": [\"GPT2LMHeadModel\"],\n"
      "  \"attn_pdrop\": 0.1,\n  \"layer_norm_epsilon\": 1e-05,\n  \"n_embd\": 768,\n"
      "  \"n_head\": 12,\n  \"scale_attn_weights\": true,\n  \"use_cache\": false,\n"
      "  \"task_specific_params\": {\"text-generation\": {\"do_sample\": true, \"max_length\": "
      "50}},\n  \"summary_proj_to_labels\": null,\n  \"neg\": -7,\n"
      "  \"big\": 9223372036854775807,\n  \"min\": -9223372036854775808,\n"
      "  \"over\": 9223372036854775808,\n  \"huge\": 1e400,\n  \"tiny\": 1e-400,\n"
      "  \"neg0\": -0.0,\n  \"note\": \"caf\\u00e9 \\ud83d\\ude00\\n\",\n  \"\": 1,\n"
      "  \"utf8\": \"\\u0041\\u007f\\u0080\\u07ff\\u0800\\u20ac\\uffff"
      "\\ud800\\udc00\\udbff\\udfff\"\n}\n");
  const char *k = NULL, *s = NULL;
  tp_json_kind kind = TP_JSON_NULL;
  int64_t i = 0;
  double d = 0;
  int b = -1;
  if (!doc) return;
  TPT_EQ_INT(tp_json_count(doc), 20);
  TPT_STATUS(tp_json_key(doc, 0, &k, &kind), TP_OK); /* the text's order */
  TPT_EQ_STR(k, "activation_function");
  TPT_EQ_INT(kind, TP_JSON_STRING);
  TPT_STATUS(tp_json_key(doc, 1, &k, &kind), TP_OK);
  TPT_EQ_STR(k, "architectures");
  TPT_EQ_INT(kind, TP_JSON_ARRAY);
  TPT_STATUS(tp_json_key(doc, 18, &k, NULL), TP_OK);
  TPT_EQ_STR(k, "");
  TPT_STATUS(tp_json_key(doc, 20, &k, &kind), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key 20 asked for; the object has 20");
  TPT_CHECK(k == NULL);
  TPT_STATUS(tp_json_string(doc, "activation_function", &s), TP_OK);
  TPT_EQ_STR(s, "gelu_new");
  TPT_EQ_STR(tp_json_error(doc), "");
  TPT_EQ_INT(tp_json_status(doc), TP_OK);
  TPT_STATUS(tp_json_string(doc, "note", &s), TP_OK);
  TPT_EQ_STR(s, "caf\xc3\xa9 \xf0\x9f\x98\x80\n");
  TPT_STATUS(tp_json_string(doc, "utf8", &s), TP_OK); /* each UTF-8 length's first and last */
  TPT_EQ_STR(s, "A\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf\xf0\x90\x80\x80"
                "\xf4\x8f\xbf\xbf");
  TPT_STATUS(tp_json_int(doc, "n_embd", &i), TP_OK);
  TPT_EQ_INT(i, 768);
  TPT_STATUS(tp_json_int(doc, "neg", &i), TP_OK);
  TPT_EQ_INT(i, -7);
  TPT_STATUS(tp_json_int(doc, "big", &i), TP_OK);
  TPT_CHECK(i == INT64_MAX);
  TPT_STATUS(tp_json_int(doc, "min", &i), TP_OK);
  TPT_CHECK(i == INT64_MIN);
  TPT_STATUS(tp_json_int(doc, "", &i), TP_OK);
  TPT_EQ_INT(i, 1);
  TPT_STATUS(tp_json_number(doc, "layer_norm_epsilon", &d), TP_OK);
  TPT_CHECK(d == 1e-05);
  TPT_STATUS(tp_json_number(doc, "attn_pdrop", &d), TP_OK);
  TPT_CHECK(d == 0.1);
  TPT_STATUS(tp_json_number(doc, "n_head", &d), TP_OK); /* an integer is a number too */
  TPT_CHECK(d == 12.0);
  TPT_STATUS(tp_json_number(doc, "over", &d), TP_OK);
  TPT_CHECK(d == 9223372036854775808.0);
  TPT_STATUS(tp_json_number(doc, "tiny", &d), TP_OK);
  TPT_CHECK(d == 0.0);
  TPT_STATUS(tp_json_number(doc, "neg0", &d), TP_OK);
  TPT_CHECK(d == 0.0);
  TPT_STATUS(tp_json_bool(doc, "scale_attn_weights", &b), TP_OK);
  TPT_EQ_INT(b, 1);
  TPT_STATUS(tp_json_bool(doc, "use_cache", &b), TP_OK);
  TPT_EQ_INT(b, 0);
  TPT_STATUS(tp_json_find(doc, "summary_proj_to_labels", &kind), TP_OK);
  TPT_EQ_INT(kind, TP_JSON_NULL);
  TPT_STATUS(tp_json_find(doc, "task_specific_params", &kind), TP_OK);
  TPT_EQ_INT(kind, TP_JSON_OBJECT);
  TPT_STATUS(tp_json_find(doc, "n_head", NULL), TP_OK);
  /* lookups that fail say why and never spoil the document */
  TPT_STATUS(tp_json_int(doc, "n_layer", &i), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "no key \"n_layer\"");
  TPT_EQ_INT(tp_json_status(doc), TP_ERR_INVALID);
  TPT_STATUS(tp_json_find(doc, "max_length", NULL), TP_ERR_INVALID); /* nested: not top level */
  TPT_EQ_STR(tp_json_error(doc), "no key \"max_length\"");
  TPT_STATUS(tp_json_find(doc, NULL, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "tp_json: key is NULL");
  TPT_STATUS(tp_json_int(doc, "layer_norm_epsilon", &i), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"layer_norm_epsilon\" is 1e-05, not an integer");
  TPT_STATUS(tp_json_int(doc, "over", &i), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"over\" is 9223372036854775808, outside int64");
  TPT_STATUS(tp_json_number(doc, "huge", &d), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"huge\" is 1e400, above the largest double");
  TPT_STATUS(tp_json_int(doc, "activation_function", &i), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"activation_function\" is a string, not an integer");
  TPT_STATUS(tp_json_number(doc, "use_cache", &d), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"use_cache\" is a boolean, not a number");
  TPT_STATUS(tp_json_string(doc, "n_head", &s), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"n_head\" is a number, not a string");
  TPT_CHECK(s == NULL);
  TPT_STATUS(tp_json_bool(doc, "architectures", &b), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"architectures\" is an array, not a boolean");
  TPT_STATUS(tp_json_string(doc, "task_specific_params", &s), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"task_specific_params\" is an object, not a string");
  TPT_STATUS(tp_json_bool(doc, "summary_proj_to_labels", &b), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"summary_proj_to_labels\" is null, not a boolean");
  TPT_STATUS(tp_json_int(doc, "n_head", &i), TP_OK); /* and work again */
  TPT_EQ_STR(tp_json_error(doc), "");
  tp_json_close(doc);
  tp_json_close(NULL);
}

/* {"x": HEAD, then `zeros` '0' digits, then TAIL} written into text (4096 bytes), opened. */
static tp_json *open_long_x(char *text, const char *head, size_t zeros, const char *tail) {
  size_t n = (size_t)sprintf(text, "{\"x\": %s", head);
  memset(text + n, '0', zeros);
  sprintf(text + n + zeros, "%s}", tail);
  return open_ok(text);
}

/* Numbers become the nearest double, whatever their length. */
static void test_numbers(void) {
  static char text[4096];
  tp_json *doc;
  double d = 0;
  int64_t i = 0;
  doc = open_ok("{\"a\": 2.2250738585072011e-308, \"b\": 1.7976931348623157e308, "
                "\"c\": 1.7976931348623159e308, \"d\": 0.1000000000000000055511151231257827021181583404541015625, "
                "\"e\": 9007199254740993.0, \"f\": 123456789012345678901234567890123456789012345, "
                "\"g\": -1E+2, \"h\": 0e-999999999999999999999, \"i\": 5e-324, \"j\": 0.000001234}");
  if (!doc) return;
  TPT_STATUS(tp_json_number(doc, "a", &d), TP_OK);
  TPT_CHECK(d == 2.2250738585072011e-308);
  TPT_STATUS(tp_json_number(doc, "b", &d), TP_OK);
  TPT_CHECK(d == DBL_MAX);
  TPT_STATUS(tp_json_number(doc, "c", &d), TP_ERR_INVALID); /* rounds up past DBL_MAX */
  TPT_EQ_STR(tp_json_error(doc), "key \"c\" is 1.7976931348623159e308, above the largest double");
  TPT_STATUS(tp_json_number(doc, "d", &d), TP_OK);
  TPT_CHECK(d == 0.1);
  TPT_STATUS(tp_json_number(doc, "e", &d), TP_OK); /* a tie: to even */
  TPT_CHECK(d == 9007199254740992.0);
  TPT_STATUS(tp_json_number(doc, "f", &d), TP_OK);
  TPT_CHECK(d == 123456789012345678901234567890123456789012345.0);
  TPT_STATUS(tp_json_int(doc, "f", &i), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"f\" is 1234567890123456789012345678901234567890..., "
                                 "outside int64");
  TPT_STATUS(tp_json_number(doc, "g", &d), TP_OK);
  TPT_CHECK(d == -100.0);
  TPT_STATUS(tp_json_number(doc, "h", &d), TP_OK);
  TPT_CHECK(d == 0.0);
  TPT_STATUS(tp_json_number(doc, "i", &d), TP_OK); /* the smallest subnormal */
  TPT_CHECK(d == 5e-324);
  TPT_STATUS(tp_json_number(doc, "j", &d), TP_OK);
  TPT_CHECK(d == 0.000001234);
  tp_json_close(doc);
  /* beyond the 800 digits kept: the tie 2^53 + 1 is broken by a 1 a thousand digits later */
  doc = open_long_x(text, "9007199254740993.", 1000, "1");
  if (!doc) return;
  TPT_STATUS(tp_json_number(doc, "x", &d), TP_OK);
  TPT_CHECK(d == 9007199254740994.0);
  tp_json_close(doc);
  /* 1000 integer digits: 1e999, above the largest double */
  doc = open_long_x(text, "1", 999, "");
  if (!doc) return;
  TPT_STATUS(tp_json_number(doc, "x", &d), TP_ERR_INVALID);
  TPT_EQ_STR(tp_json_error(doc), "key \"x\" is 1000000000000000000000000000000000000000..., "
                                 "above the largest double");
  tp_json_close(doc);
  /* 1000 leading fraction zeros then 1: 1e-1001, below the smallest subnormal */
  doc = open_long_x(text, "0.", 1000, "1");
  if (!doc) return;
  TPT_STATUS(tp_json_number(doc, "x", &d), TP_OK);
  TPT_CHECK(d == 0.0);
  tp_json_close(doc);
}

static void test_refusals(void) {
  static char deep[300];
  size_t k, n;
  EXPECT("", TP_ERR_FORMAT, "bad JSON at byte 0: the JSON text is not an object (no '{')");
  EXPECT("  [1]", TP_ERR_FORMAT, "bad JSON at byte 2: the JSON text is not an object (no '{')");
  EXPECT("\xef\xbb\xbf{}", TP_ERR_FORMAT,
         "bad JSON at byte 0: the JSON text is not an object (no '{')");
  EXPECT("{", TP_ERR_FORMAT, "bad JSON at byte 1: expected a string");
  EXPECT("{\"a\" 1}", TP_ERR_FORMAT, "bad JSON at byte 5: expected ':'");
  EXPECT("{\"a\":1 \"b\":2}", TP_ERR_FORMAT, "bad JSON at byte 7: expected ',' or '}'");
  EXPECT("{\"a\":1,}", TP_ERR_FORMAT, "bad JSON at byte 7: expected a string");
  EXPECT("{\"a\":}", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{\"a\":", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{\"a\":+1}", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{\"a\":.5}", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{\"a\":-}", TP_ERR_FORMAT, "bad JSON at byte 6: a number without digits");
  EXPECT("{\"a\":01}", TP_ERR_FORMAT, "bad JSON at byte 7: a number with a leading 0");
  EXPECT("{\"a\":-00.5}", TP_ERR_FORMAT, "bad JSON at byte 8: a number with a leading 0");
  EXPECT("{\"a\":1.}", TP_ERR_FORMAT, "bad JSON at byte 7: no digit after a number's '.'");
  EXPECT("{\"a\":1.e5}", TP_ERR_FORMAT, "bad JSON at byte 7: no digit after a number's '.'");
  EXPECT("{\"a\":1e+}", TP_ERR_FORMAT, "bad JSON at byte 8: no digit in a number's exponent");
  EXPECT("{\"a\":1e}", TP_ERR_FORMAT, "bad JSON at byte 7: no digit in a number's exponent");
  EXPECT("{\"a\":1", TP_ERR_FORMAT, "bad JSON at byte 6: expected ',' or '}'");
  EXPECT("{\"a\":0x10}", TP_ERR_FORMAT, "bad JSON at byte 6: expected ',' or '}'");
  EXPECT("{\"a\":NaN}", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{\"a\":tru}", TP_ERR_FORMAT, "bad JSON at byte 5: bad literal");
  EXPECT("{\"a\":nul", TP_ERR_FORMAT, "bad JSON at byte 5: bad literal");
  EXPECT("{\"a\":'x'}", TP_ERR_FORMAT, "bad JSON at byte 5: expected a value");
  EXPECT("{a:1}", TP_ERR_FORMAT, "bad JSON at byte 1: expected a string");
  EXPECT("{\"a\":\"x}", TP_ERR_FORMAT, "bad JSON at byte 8: unterminated string");
  EXPECT("{\"a\":\"\\u0000\"}", TP_ERR_FORMAT,
         "bad JSON at byte 12: \\u0000 in a string (no C string can hold it)");
  EXPECT("{\"a\":\"\\ud800\"}", TP_ERR_FORMAT,
         "bad JSON at byte 12: high surrogate without a low one");
  EXPECT("{\"a\":\"\t\"}", TP_ERR_FORMAT, "bad JSON at byte 6: control character in a string");
  EXPECT("{\"a\":\"\xc0\xaf\"}", TP_ERR_FORMAT, "bad JSON at byte 6: a string is not UTF-8");
  EXPECT("{\"a\":\"\\q\"}", TP_ERR_FORMAT, "bad JSON at byte 6: unknown escape");
  EXPECT("{\"a\":[1,]}", TP_ERR_FORMAT, "bad JSON at byte 8: expected a value");
  EXPECT("{\"a\":[1 2]}", TP_ERR_FORMAT, "bad JSON at byte 8: expected ',' or ']'");
  EXPECT("{} x", TP_ERR_FORMAT, "bad JSON at byte 3: more after the object's closing '}'");
  EXPECT("{}{}", TP_ERR_FORMAT, "bad JSON at byte 2: more after the object's closing '}'");
  EXPECT("{} \n\t\r ", TP_OK, "");
  /* a NUL byte is not JSON whitespace */
  expect_open_n("{}\0", 3, TP_ERR_FORMAT, "bad JSON at byte 2: more after the object's closing "
                "'}'", __LINE__);
  expect_open_n("{\"a\":\0}", 7, TP_ERR_FORMAT, "bad JSON at byte 5: expected a value", __LINE__);
  /* duplicate keys, at the top and nested (also in values nobody looks up) */
  EXPECT("{\"n_head\":12,\"n_embd\":768,\"n_head\":12}", TP_ERR_FORMAT,
         "the object at byte 0 has the key \"n_head\" twice");
  EXPECT("{\"a\":[{\"b\":1,\"b\":2}]}", TP_ERR_FORMAT,
         "the object at byte 6 has the key \"b\" twice");
  EXPECT("{\"\\u0061\":1,\"a\":2}", TP_ERR_FORMAT, "the object at byte 0 has the key \"a\" twice");
  EXPECT("{\"a\":{\"a\":1},\"b\":{\"a\":1}}", TP_OK, ""); /* the same key in two objects */
  /* nesting: 64 levels below the top-level object are fine, 65 are not */
  for (k = 64; k <= 65; k++) {
    n = (size_t)snprintf(deep, sizeof deep, "{\"a\":");
    memset(deep + n, '[', k), n += k;
    memset(deep + n, ']', k), n += k;
    deep[n++] = '}', deep[n] = 0;
    if (k == 64) EXPECT(deep, TP_OK, "");
    else EXPECT(deep, TP_ERR_FORMAT, "bad JSON at byte 69: nested deeper than 64");
  }
}

static void test_args_and_files(void) {
  static const unsigned char one[1] = {'{'};
  tp_json *doc = NULL;
  tp_error err;
  char dir[256], path[340];
  unsigned tag = (unsigned)time(NULL) ^ (unsigned)clock() * 2654435761u; /* runs in parallel */
  FILE *f;
  int64_t v = 0;
  TPT_STATUS(tp_json_open("{}", 2, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_json_open: out is NULL");
  TPT_STATUS(tp_json_open(NULL, 5, &doc, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_json_open: text is NULL with 5 bytes");
  TPT_CHECK(doc == NULL);
  TPT_STATUS(tp_json_open(NULL, 0, &doc, NULL), TP_ERR_FORMAT); /* no err: still refused */
  /* the size limit is checked before any byte is read: one real byte, a size above it */
  TPT_STATUS(tp_json_open(one, 100000001u, &doc, &err), TP_ERR_FORMAT);
  TPT_EQ_STR(err.msg, "the JSON text is 100000001 bytes, above the limit of 100000000");
  tpt_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tp_json_%u_config.json", dir, tag);
  f = fopen(path, "wb");
  TPT_CHECK(f != NULL);
  if (!f) return;
  fputs("{\"n_layer\": 2}\n", f);
  fclose(f);
  TPT_STATUS(tp_json_open_file(path, &doc, &err), TP_OK);
  if (doc) {
    TPT_STATUS(tp_json_int(doc, "n_layer", &v), TP_OK);
    TPT_EQ_INT(v, 2);
    tp_json_close(doc);
  }
  f = fopen(path, "wb");
  if (!f) return;
  fputs("{\"n_layer\": 2,}", f);
  fclose(f);
  TPT_STATUS(tp_json_open_file(path, &doc, &err), TP_ERR_FORMAT);
  {
    char want[500];
    snprintf(want, sizeof want, "\"%s\": bad JSON at byte 14: expected a string", path);
    TPT_EQ_STR(err.msg, want);
  }
  TPT_CHECK(doc == NULL);
  remove(path);
  TPT_STATUS(tp_json_open_file(path, &doc, &err), TP_ERR_IO);
  TPT_CONTAINS(err.msg, "config.json");
  TPT_STATUS(tp_json_open_file(path, NULL, &err), TP_ERR_INVALID);
  TPT_EQ_STR(err.msg, "tp_json_open_file: out is NULL");
}

/* Allocation failure at every allocation of an open: TP_ERR_NOMEM with a sentence, no leak. */
static void test_nomem(void) {
  const char *text = "{\"a\": \"x\", \"b\": [1, {\"c\": 2, \"d\": 3}], \"e\": 1e-5, \"f\": true}";
  long k;
  for (k = 0; k < 100; k++) {
    tp_json *doc = NULL;
    tp_error err;
    tp_status s;
    g_fail_at = k;
    s = tp_json_open(text, strlen(text), &doc, &err);
    g_fail_at = -1;
    if (s == TP_OK) {
      tp_json_close(doc);
      break;
    }
    TPT_STATUS(s, TP_ERR_NOMEM);
    TPT_CHECK(strncmp(err.msg, "no memory", 9) == 0);
    TPT_CHECK(doc == NULL);
  }
  TPT_CHECK(k > 3 && k < 100);
  TPT_EQ_U64(g_live, 0);
}

int main(void) {
  (void)tpt_range;
  TPT_RUN(test_config);
  TPT_RUN(test_numbers);
  TPT_RUN(test_refusals);
  TPT_RUN(test_args_and_files);
  TPT_RUN(test_nomem);
  return tpt_finish("json");
}
