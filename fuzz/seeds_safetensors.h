/* seeds_safetensors.h - the fuzz_safetensors and fuzz_json seeds, included by fuzz/make_seeds.c
   (which gives put()). Valid files covering every branch the parser has: every dtype, metadata, escapes,
   empty and 0-d tensors, ignored fields; plus a few near misses (a gap, an overlap). */
static void safetensors_seed(const char *name, const char *header, size_t data_len) {
  size_t h = strlen(header), i;
  unsigned char *f = (unsigned char *)malloc(8 + h + data_len);
  if (!f) {
    g_failed = 1;
    return;
  }
  tp__put_le64(f, (uint64_t)h);
  memcpy(f + 8, header, h);
  for (i = 0; i < data_len; i++) f[8 + h + i] = (unsigned char)(i * 37u);
  put("fuzz_safetensors", name, f, 8 + h + data_len);
  free(f);
}

static void safetensors_seeds(void) {
  safetensors_seed("empty", "{}", 0);
  safetensors_seed("gpt2-attn",
                   "{\"__metadata__\":{\"format\":\"pt\"},"
                   "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[4,12],"
                   "\"data_offsets\":[0,192]},"
                   "\"h.0.attn.c_attn.bias\":{\"dtype\":\"F32\",\"shape\":[12],"
                   "\"data_offsets\":[192,240]},"
                   "\"h.0.attn.c_proj.weight\":{\"dtype\":\"F32\",\"shape\":[4,4],"
                   "\"data_offsets\":[240,304]},"
                   "\"h.0.attn.c_proj.bias\":{\"dtype\":\"F32\",\"shape\":[4],"
                   "\"data_offsets\":[304,320]}}",
                   320);
  safetensors_seed("dtypes",
                   "{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                   "\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[8,12]},"
                   "\"c\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[12,16]},"
                   "\"d\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[16,24]},"
                   "\"e\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[24,28]},"
                   "\"f\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[28,32]},"
                   "\"g\":{\"dtype\":\"I8\",\"shape\":[1],\"data_offsets\":[32,33]},"
                   "\"h\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[33,34]},"
                   "\"i\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[34,36]},"
                   "\"j\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[36,40]},"
                   "\"k\":{\"dtype\":\"F4\",\"shape\":[2,2],\"data_offsets\":[40,42]},"
                   "\"l\":{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[42,45]},"
                   "\"m\":{\"dtype\":\"F8_E5M2\",\"shape\":[3],\"data_offsets\":[45,48]}}",
                   48);
  safetensors_seed("escapes",
                   "{\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xc3\xa9\":{\"dtype\":\"U8\","
                   "\"shape\":[0,3],\"data_offsets\":[0,0],\"x\":[1,-2.5e+3,true,false,null,"
                   "{\"k\":[]}]},\"z\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}   ",
                   4);
  safetensors_seed("gap", "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", 3);
  safetensors_seed("overlap",
                   "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                   "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}",
                   3);
}

/* fuzz_json: JSON objects as configuration files have them (the Hub's GPT-2 config.json, every
   kind of value, numbers of every form, escapes, nesting), and a few near misses. */
static void json_seed(const char *name, const char *text) {
  put("fuzz_json", name, text, strlen(text));
}

static void json_seeds(void) {
  json_seed("empty", "{}");
  json_seed("gpt2-config",
            "{\n  \"activation_function\": \"gelu_new\",\n  \"architectures\": [\n"
            "    \"GPT2LMHeadModel\"\n  ],\n  \"attn_pdrop\": 0.1,\n  \"bos_token_id\": 50256,\n"
            "  \"initializer_range\": 0.02,\n  \"layer_norm_epsilon\": 1e-05,\n"
            "  \"model_type\": \"gpt2\",\n  \"n_ctx\": 1024,\n  \"n_embd\": 768,\n"
            "  \"n_head\": 12,\n  \"n_layer\": 12,\n  \"n_positions\": 1024,\n"
            "  \"summary_activation\": null,\n  \"summary_proj_to_labels\": true,\n"
            "  \"task_specific_params\": {\n    \"text-generation\": {\n"
            "      \"do_sample\": true,\n      \"max_length\": 50\n    }\n  },\n"
            "  \"vocab_size\": 50257\n}\n");
  json_seed("numbers",
            "{\"a\":0,\"b\":-0,\"c\":-0.0e-0,\"d\":1E+308,\"e\":1.7976931348623159e308,"
            "\"f\":9223372036854775807,\"g\":-9223372036854775808,\"h\":9223372036854775808,"
            "\"i\":4.9e-324,\"j\":2.2250738585072011e-308,\"k\":123456789012345678901234567890,"
            "\"l\":0.1000000000000000055511151231257827021181583404541015625,\"m\":1e-99999999999}");
  json_seed("escapes",
            "{\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xc3\xa9\":\"v\\u0041\","
            "\"\":[1,-2.5e+3,true,false,null,{\"k\":[]},\"s\"]}  \t\r\n");
  json_seed("nested", "{\"a\":{\"a\":{\"a\":[[[{\"b\":1,\"c\":[{},[]]}]]]}},\"b\":{\"a\":1}}");
  json_seed("duplicate", "{\"n_head\":12,\"n_embd\":768,\"n_head\":12}");
  json_seed("trailing-comma", "{\"n_layer\": 2,}");
  json_seed("leading-zero", "{\"a\": 012}");
}
