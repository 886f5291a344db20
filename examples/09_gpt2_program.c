/* 09_gpt2_program.c - a whole GPT-2 from a safetensors file to a program ExecuTorch runs: token
   ids in, logits out, no Python.

   Usage: 09_gpt2_program [--config FILE] [--seq-len T] [--quant 8da8w|8da4w] [--no-reference]
                          [--random L,H,E,V,P,T[,LAYOUT]] [MODEL.safetensors OUT.pte [OUT.ptd]]
   MODEL holds Hugging Face GPT-2 names (wte.weight, wpe.weight, h.<i>.ln_1.weight|bias,
   h.<i>.attn.c_attn.weight|bias (Conv1D [E, 3E]), h.<i>.attn.c_proj.*, h.<i>.ln_2.*,
   h.<i>.mlp.c_fc.*, h.<i>.mlp.c_proj.*, ln_f.*), with or without GPT2LMHeadModel's
   "transformer." prefix. The Hub's causal-mask buffers (h.<i>.attn.bias) and masked_bias are
   recognised and skipped (the program builds its own mask); an lm_head.weight equal to wte
   keeps the tie (one constant), a different one is an untied head; any other tensor is
   listed in one warning line.
   The configuration (n_layer, n_head, n_embd, vocab_size, n_positions; optional
   layer_norm_epsilon (1e-5), activation_function (gelu_new; gelu_pytorch_tanh is the same
   tanh GELU, gelu the erf one; others refused by name) and seq_len) comes from --config FILE,
   else config.json in MODEL's folder (the Hub's file, read with tp_json_open_file: unknown
   keys ignored), else MODEL's __metadata__ (string values). The method's fixed length T is
   --seq-len, else seq_len, else n_positions. A key missing, or disagreeing with the tensors'
   shapes, is an error naming the key, both values and the file.
   Without arguments it first writes a small random checkpoint, gpt2_tiny.safetensors (2 layers,
   2 heads, E = 32, V = 50, T = 8), and converts that twice: gpt2_tiny.pte (float) and
   gpt2_tiny_8da4w.pte (--quant 8da4w); --random writes MODEL as a random
   checkpoint of n_layer L, n_head H, n_embd E, vocab_size V, n_positions P, seq_len T first
   (--random 12,12,768,50257,1024,64 is GPT-2 124M's shape: `make bench-gpt2`), in LAYOUT:
   ours (config in __metadata__), hub (the Hub's download: mask buffers, {"format": "pt"},
   config.json beside, no seq_len), prefixed ("transformer." names, masked_bias, a tied
   lm_head.weight, config.json beside), untied (a random lm_head.weight) or extra (two tensors
   GPT-2 has not); the weights they share are the same (tests/gpt2_layouts.sh compares).
   --no-reference skips the float64 forward and OUT.expected (a large model's reference is
   slow). --quant writes every linear as ExecuTorch's quantized LLM path runs it: int8 dynamic
   activations x int8 per-channel weights (8da8w) or x int4 weights in groups of 32 (8da4w,
   torchao's numerics: tp_quantize_symmetric), in one call each
   (tp_xnn_define_quantized_linear); the reference then simulates that integer math (the
   activations quantized per row as XNNPACK's qd8 does) instead of the float forward.

   The method forward(tokens: int64 [1, T]) -> logits: float32 [1, T, V]:
     x = wte[tokens] + wpe[0:T]                         embedding, add (portable kernels)
     per layer:  h = layer_norm(x) (ln_1)                native_layer_norm
                 q, k, v = h W + b (c_attn's three thirds) XNNPACK fully connected, one each
                 heads: view_copy / permute_copy to [H, T, D]; s = q k^T / sqrt(D) + causal
                 mask; p = softmax(s); a = p v; back to [1, T, E]   bmm, mul, add, _softmax
                 x = x + c_proj(a)                         XNNPACK, add
                 x = x + c_proj(gelu_tanh(c_fc(layer_norm(x))))  (ln_2, the MLP)
     logits = layer_norm(x) (ln_f) wte^T                 XNNPACK: the LM head tied to wte
   Every weight is a view of the file's bytes: q's weight is c_attn.weight[:, 0:E] transposed
   (strides (1, 3E)), written as exactly its E x E floats; the LM head's weight is wte itself.
   Every intermediate tensor is memory-planned (tp_pte_graph_finish). Each kernel call is
   checked against the portable kernels' schemas when it is added.

   wte is written twice: as the embedding's program constant and as the LM head's weight in its
   XNNPACK blob. In one .pte they cannot share bytes (ExecuTorch cff6f4dd32): a program
   constant is read from the constant buffer or segment by its data_buffer_idx, or, marked
   EXTERNAL, from the data map given to load_method (runtime/executor/method.cpp passes only
   that external map to parse_external_constants, never the program's own named_data; and
   PteDataMap::get_tensor_layout is NotImplemented), while the XNNPACK delegate reads a weight
   only from its blob's constants or by a named key (backends/xnnpack/runtime/XNNCompiler.cpp),
   never from the program's constant segment. Sharing needs a .ptd: one FlatTensor entry with
   wte's tensor_layout, named by the XNNPACK constant's key and by an EXTERNAL program constant
   (FlatTensorDataMap::get_tensor_layout reads the entry's layout). Section 9 has no EXTERNAL
   constant yet, so this example keeps the two copies (V x E x 4 bytes: 154 MB of 649 MB for
   GPT-2 124M).

   With OUT.ptd the linears' weights (and the LM head's) are named constants in that .ptd
   (tp_store, keyed by their SHA-256) instead of inside the delegate blobs; the portable
   kernels' constants (wte for the embedding, wpe, the layer norms, the mask) stay in the .pte.

   Run it with ExecuTorch's executor_runner built with the XNNPACK backend
   (-DEXECUTORCH_BUILD_XNNPACK=ON; tools/et-runner.sh builds one):
     executor_runner --model_path gpt2_tiny.pte [--data_path OUT.ptd]
   Its default input is all ones (token 1 at every position): the logits for that are computed
   here in C (float64) and written to OUT.expected (`make check-et` compares).

   Build: cc -std=c99 -I. examples/09_gpt2_program.c -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"

#define MAX_LAYERS 64

typedef struct cfg {
  int64_t L, H, E, V, P, T;
} cfg;

/* ---- a small random checkpoint (only without arguments) ----------------------------------- */

static uint32_t g_rng = 12345u;
static float rnd(float scale) {
  g_rng = g_rng * 1664525u + 1013904223u;
  return ((float)(g_rng >> 8) / 16777216.0f - 0.5f) * 2.0f * scale;
}

/* The layouts --random writes: ours (the config in __metadata__), the Hub's download (a causal
   mask buffer h.<i>.attn.bias [1, 1, P, P] per layer, __metadata__ {"format": "pt"},
   config.json beside), GPT2LMHeadModel's save ("transformer." names, h.<i>.attn.masked_bias,
   lm_head.weight a copy of wte; config.json beside), an untied head (ours plus a random
   lm_head.weight) and ours plus two tensors GPT-2 does not have (score.weight,
   h.0.attn.rotary). The weights they share are the same numbers in every layout. */
enum { LAYOUT_OURS, LAYOUT_HUB, LAYOUT_PREFIXED, LAYOUT_UNTIED, LAYOUT_EXTRA, LAYOUTS };
static const char *const layout_names[LAYOUTS] = {"ours", "hub", "prefixed", "untied", "extra"};

/* path's folder + "/" + name into out (the folder of "m.safetensors" is "."). */
static void beside(const char *path, const char *name, char *out, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(out, cap, "%.*s/%s", (int)(slash - path), path, name);
  else snprintf(out, cap, "%s", name);
}

/* Writes a GPT-2 checkpoint of c with random weights in one of the layouts (above). */
static int write_random(const char *path, const cfg *c, int layout) {
  enum { CAP = 1 << 20 }; /* the JSON header: ~100 bytes a tensor */
  enum { RND, MASK, CONST, WTE };
  char *hdr = (char *)malloc(CAP);
  const char *pre = layout == LAYOUT_PREFIXED ? "transformer." : "";
  size_t hl = 0, n = 0, i, k;
  uint64_t off = 0;
  unsigned char len[8];
  FILE *f;
  static struct {
    char name[80];
    int nd, gen;
    int64_t s[4];
    float scale, base;
  } t[16 * MAX_LAYERS + 8];
  int l;
  if (!hdr) return 1;
  g_rng = 12345u;
#define ADD(nm, nd_, d0, d1, d2, d3, gen_, sc, b)                      \
  do {                                                                 \
    snprintf(t[n].name, sizeof t[n].name, "%s%s", n_pre, nm);          \
    t[n].nd = nd_, t[n].s[0] = d0, t[n].s[1] = d1, t[n].s[2] = d2;     \
    t[n].s[3] = d3, t[n].gen = gen_, t[n].scale = sc, t[n].base = b;   \
    n++;                                                               \
  } while (0)
  {
    const char *n_pre = pre;
    ADD("wte.weight", 2, c->V, c->E, 0, 0, RND, 0.5f, 0.0f);
    ADD("wpe.weight", 2, c->P, c->E, 0, 0, RND, 0.1f, 0.0f);
    for (l = 0; l < (int)c->L; l++) {
      char nm[64];
      static const char *const parts[] = {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight",
                                          "attn.c_attn.bias", "attn.c_proj.weight",
                                          "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                                          "mlp.c_fc.weight", "mlp.c_fc.bias",
                                          "mlp.c_proj.weight", "mlp.c_proj.bias"};
      const int64_t E = c->E, d0[12] = {E, E, E, 3 * E, E, E, E, E, E, 4 * E, 4 * E, E},
                    d1[12] = {0, 0, 3 * E, 0, E, 0, 0, 0, 4 * E, 0, E, 0};
      for (k = 0; k < 12; k++) {
        snprintf(nm, sizeof nm, "h.%d.%s", l, parts[k]);
        ADD(nm, d1[k] ? 2 : 1, d0[k], d1[k], 0, 0, RND, k == 0 || k == 6 ? 0.1f : 0.3f,
            k == 0 || k == 6 ? 1.0f : 0.0f);
      }
      if (layout == LAYOUT_HUB) {
        snprintf(nm, sizeof nm, "h.%d.attn.bias", l);
        ADD(nm, 4, 1, 1, c->P, c->P, MASK, 0.0f, 0.0f);
      }
      if (layout == LAYOUT_PREFIXED) {
        snprintf(nm, sizeof nm, "h.%d.attn.masked_bias", l);
        ADD(nm, 0, 0, 0, 0, 0, CONST, 0.0f, -1e4f);
      }
    }
    ADD("ln_f.weight", 1, c->E, 0, 0, 0, RND, 0.1f, 1.0f);
    ADD("ln_f.bias", 1, c->E, 0, 0, 0, RND, 0.1f, 0.0f);
    n_pre = "";
    if (layout == LAYOUT_PREFIXED) ADD("lm_head.weight", 2, c->V, c->E, 0, 0, WTE, 0.5f, 0.0f); /* = wte */
    if (layout == LAYOUT_UNTIED) ADD("lm_head.weight", 2, c->V, c->E, 0, 0, RND, 0.5f, 0.0f);
    if (layout == LAYOUT_EXTRA) {
      ADD("score.weight", 2, 2, c->E, 0, 0, CONST, 0.0f, 0.5f);
      ADD("h.0.attn.rotary", 1, 4, 0, 0, 0, CONST, 0.0f, 1.0f);
    }
  }
#undef ADD
  if (layout == LAYOUT_OURS || layout == LAYOUT_UNTIED || layout == LAYOUT_EXTRA)
    hl += (size_t)snprintf(hdr + hl, CAP - hl,
                           "{\"__metadata__\":{\"n_layer\":\"%lld\",\"n_head\":\"%lld\","
                           "\"n_embd\":\"%lld\",\"vocab_size\":\"%lld\",\"n_positions\":"
                           "\"%lld\",\"seq_len\":\"%lld\"}",
                           (long long)c->L, (long long)c->H, (long long)c->E, (long long)c->V,
                           (long long)c->P, (long long)c->T);
  else
    hl += (size_t)snprintf(hdr + hl, CAP - hl, "{\"__metadata__\":{\"format\":\"pt\"}");
  for (i = 0; i < n; i++) {
    uint64_t nb = 4;
    int d;
    for (d = 0; d < t[i].nd; d++) nb *= (uint64_t)t[i].s[d];
    hl += (size_t)snprintf(hdr + hl, CAP - hl, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[",
                           t[i].name);
    for (d = 0; d < t[i].nd; d++)
      hl += (size_t)snprintf(hdr + hl, CAP - hl, "%s%lld", d ? "," : "", (long long)t[i].s[d]);
    hl += (size_t)snprintf(hdr + hl, CAP - hl, "],\"data_offsets\":[%llu,%llu]}",
                           (unsigned long long)off, (unsigned long long)(off + nb));
    off += nb;
  }
  hl += (size_t)snprintf(hdr + hl, CAP - hl, "}");
  if (hl >= CAP) { /* (not with MAX_LAYERS layers: 16 * 64 names of < 100 bytes) */
    free(hdr);
    return 1;
  }
  for (i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)hl >> (8 * i));
  f = fopen(path, "wb");
  if (!f || fwrite(len, 1, 8, f) != 8 || fwrite(hdr, 1, hl, f) != hl) {
    if (f) fclose(f);
    free(hdr);
    return 1;
  }
  free(hdr);
  for (i = 0; i < n; i++) {
    uint64_t m = 1, j;
    uint32_t rng_at = g_rng;
    int d;
    for (d = 0; d < t[i].nd; d++) m *= (uint64_t)t[i].s[d];
    if (t[i].gen == WTE) g_rng = 12345u; /* wte's numbers again: wte is the first tensor */
    for (j = 0; j < m; j++) { /* little-endian floats on every host */
      float v = t[i].gen == RND || t[i].gen == WTE ? t[i].base + rnd(t[i].scale)
                : t[i].gen == MASK ? (float)((int64_t)(j % (uint64_t)c->P) <=
                                             (int64_t)(j / (uint64_t)c->P))
                                   : t[i].base;
      uint32_t u;
      unsigned char b[4];
      memcpy(&u, &v, 4);
      b[0] = (unsigned char)u, b[1] = (unsigned char)(u >> 8), b[2] = (unsigned char)(u >> 16);
      b[3] = (unsigned char)(u >> 24);
      if (fwrite(b, 1, 4, f) != 4) {
        fclose(f);
        return 1;
      }
    }
    if (t[i].gen == WTE) g_rng = rng_at;
  }
  if (fclose(f) != 0) return 1;
  if (layout == LAYOUT_HUB || layout == LAYOUT_PREFIXED) { /* config.json beside, as the Hub's */
    char cj[700];
    beside(path, "config.json", cj, sizeof cj);
    f = fopen(cj, "w");
    if (!f) return 1;
    fprintf(f, "{\n  \"activation_function\": \"gelu_new\",\n  \"architectures\": [\n"
               "    \"GPT2LMHeadModel\"\n  ],\n  \"attn_pdrop\": 0.1,\n  \"bos_token_id\": "
               "%lld,\n  \"embd_pdrop\": 0.1,\n  \"eos_token_id\": %lld,\n"
               "  \"initializer_range\": 0.02,\n  \"layer_norm_epsilon\": 1e-05,\n"
               "  \"model_type\": \"gpt2\",\n  \"n_ctx\": %lld,\n  \"n_embd\": %lld,\n"
               "  \"n_head\": %lld,\n  \"n_layer\": %lld,\n  \"n_positions\": %lld,\n"
               "  \"resid_pdrop\": 0.1,\n  \"summary_activation\": null,\n"
               "  \"summary_first_dropout\": 0.1,\n  \"summary_proj_to_labels\": true,\n"
               "  \"summary_type\": \"cls_index\",\n  \"summary_use_proj\": true,\n"
               "  \"task_specific_params\": {\n    \"text-generation\": {\n"
               "      \"do_sample\": true,\n      \"max_length\": 50\n    }\n  },\n"
               "  \"vocab_size\": %lld\n}\n",
            (long long)(c->V - 1), (long long)(c->V - 1), (long long)c->P, (long long)c->E,
            (long long)c->H, (long long)c->L, (long long)c->P, (long long)c->V);
    if (fclose(f) != 0) return 1;
  }
  return 0;
}

/* ---- the checkpoint's configuration and tensors ------------------------------------------- */

typedef struct layer {
  tp_tensor ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, mproj_w,
      mproj_b;
} layer;

typedef struct model {
  cfg c;
  double eps;          /* layer_norm_epsilon */
  int gelu_erf;        /* activation_function "gelu" (erf); else the tanh GELU */
  tp_tensor wte, wpe, lnf_w, lnf_b;
  tp_tensor head;      /* the LM head's weight [V, E]: wte itself, or an untied lm_head.weight */
  int untied;
  layer h[MAX_LAYERS];
} model;

/* Where the configuration comes from: a JSON file (--config, or config.json beside the model),
   else the checkpoint's __metadata__ (string values). `name` says which in every sentence. */
typedef struct config_src {
  tp_json *doc;
  tp_safetensors *st;
  char name[720];
} config_src;

/* key as a positive integer: 1, or 0 when absent (no sentence), or -1 after a sentence. */
static int src_int(const config_src *s, const char *key, int64_t *v) {
  if (s->doc) {
    if (tp_json_find(s->doc, key, NULL) != TP_OK) return 0;
    if (tp_json_int(s->doc, key, v) != TP_OK) {
      fprintf(stderr, "error: %s: %s\n", s->name, tp_json_error(s->doc));
      return -1;
    }
  } else {
    const char *t;
    char *end;
    if (tp_safetensors_metadata(s->st, key, &t) != TP_OK) return 0;
    *v = (int64_t)strtoll(t, &end, 10);
    if (*end || end == t) {
      fprintf(stderr, "error: %s: %s is \"%s\", not an integer\n", s->name, key, t);
      return -1;
    }
  }
  if (*v <= 0) {
    fprintf(stderr, "error: %s: %s is %lld, not positive\n", s->name, key, (long long)*v);
    return -1;
  }
  return 1;
}

/* key as a number (1, 0 absent, -1 after a sentence). */
static int src_num(const config_src *s, const char *key, double *v) {
  if (s->doc) {
    if (tp_json_find(s->doc, key, NULL) != TP_OK) return 0;
    if (tp_json_number(s->doc, key, v) != TP_OK) {
      fprintf(stderr, "error: %s: %s\n", s->name, tp_json_error(s->doc));
      return -1;
    }
  } else {
    const char *t;
    char *end;
    if (tp_safetensors_metadata(s->st, key, &t) != TP_OK) return 0;
    *v = strtod(t, &end);
    if (*end || end == t) {
      fprintf(stderr, "error: %s: %s is \"%s\", not a number\n", s->name, key, t);
      return -1;
    }
  }
  return 1;
}

/* key as a string (1, 0 absent, -1 after a sentence). */
static int src_str(const config_src *s, const char *key, const char **v) {
  const char *t;
  if (!s->doc) {
    if (tp_safetensors_metadata(s->st, key, &t) != TP_OK) return 0;
    *v = t;
    return 1;
  }
  if (tp_json_find(s->doc, key, NULL) != TP_OK) return 0;
  if (tp_json_string(s->doc, key, v) != TP_OK) {
    fprintf(stderr, "error: %s: %s\n", s->name, tp_json_error(s->doc));
    return -1;
  }
  return 1;
}

/* A needed key: 1, or 0 after a sentence. */
static int need(const config_src *s, const char *key, int64_t *v) {
  int r = src_int(s, key, v);
  if (r == 0) fprintf(stderr, "error: %s has no \"%s\"\n", s->name, key);
  return r == 1;
}

/* Tensor `name` with the shape [d0] or [d0, d1] (d1 < 0: 1-D), or a sentence. */
static int get(tp_safetensors *st, const char *name, int64_t d0, int64_t d1, tp_tensor *out) {
  if (tp_safetensors_find(st, name, out) != TP_OK) {
    fprintf(stderr, "error: %s\n", tp_safetensors_error(st));
    return 0;
  }
  if (out->dtype != TP_F32 || out->ndim != (d1 < 0 ? 1 : 2) || out->sizes[0] != d0 ||
      (d1 >= 0 && out->sizes[1] != d1)) {
    if (d1 < 0)
      fprintf(stderr, "error: %s: expected float32 [%lld]\n", name, (long long)d0);
    else
      fprintf(stderr, "error: %s: expected float32 [%lld, %lld]\n", name, (long long)d0,
              (long long)d1);
    return 0;
  }
  return 1;
}

static const char *const layer_parts[12] = {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight",
                                             "attn.c_attn.bias", "attn.c_proj.weight",
                                             "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                                             "mlp.c_fc.weight", "mlp.c_fc.bias",
                                             "mlp.c_proj.weight", "mlp.c_proj.bias"};

/* What a tensor name is, after the prefix: 1 a weight the program uses, 2 a mask buffer
   (h.<i>.attn.bias, h.<i>.attn.masked_bias: skipped, the program builds its own mask),
   0 anything else. *layer: its layer (or -1). */
static int name_kind(const char *nm, long *layer) {
  static const char *const top[] = {"wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"};
  char *end;
  int k;
  *layer = -1;
  for (k = 0; k < 4; k++)
    if (strcmp(nm, top[k]) == 0) return 1;
  if (strncmp(nm, "h.", 2) != 0 || nm[2] < '0' || nm[2] > '9') return 0;
  *layer = strtol(nm + 2, &end, 10);
  if (*end != '.' || *layer < 0 || (nm[2] == '0' && end != nm + 3)) return 0;
  for (k = 0; k < 12; k++)
    if (strcmp(end + 1, layer_parts[k]) == 0) return 1;
  if (strcmp(end + 1, "attn.bias") == 0 || strcmp(end + 1, "attn.masked_bias") == 0) return 2;
  return 0;
}

/* The configuration (from src, T from seq_len_opt when > 0) and every tensor, checked against
   each other; a sentence on any disagreement. Unexpected tensors: one warning line. */
static int load(tp_safetensors *st, const config_src *src, int64_t seq_len_opt,
                const char *path, model *m) {
  cfg *c = &m->c;
  const char *act = "gelu_new", *pre = "", *nm;
  char key[160], unused[400];
  int64_t E, l;
  long maxl = -1, li;
  size_t i, n_unused = 0, ul = 0;
  int r;
  tp_tensor t;
  if (!need(src, "n_layer", &c->L) || !need(src, "n_head", &c->H) ||
      !need(src, "n_embd", &c->E) || !need(src, "vocab_size", &c->V) ||
      !need(src, "n_positions", &c->P))
    return 0;
  if (seq_len_opt > 0) {
    c->T = seq_len_opt;
    if (c->T > c->P) {
      fprintf(stderr, "error: --seq-len %lld is above n_positions %lld (%s)\n",
              (long long)c->T, (long long)c->P, src->name);
      return 0;
    }
  } else if ((r = src_int(src, "seq_len", &c->T)) != 1) {
    if (r < 0) return 0;
    c->T = c->P; /* the whole context */
  } else if (c->T > c->P) {
    fprintf(stderr, "error: %s: seq_len %lld is above n_positions %lld\n", src->name,
            (long long)c->T, (long long)c->P);
    return 0;
  }
  m->eps = 1e-5;
  if ((r = src_num(src, "layer_norm_epsilon", &m->eps)) < 0) return 0;
  if (!(m->eps > 0.0 && m->eps < 1.0)) {
    fprintf(stderr, "error: %s: layer_norm_epsilon is %g, not in (0, 1)\n", src->name, m->eps);
    return 0;
  }
  if (src_str(src, "activation_function", &act) < 0) return 0;
  m->gelu_erf = strcmp(act, "gelu") == 0;
  if (!m->gelu_erf && strcmp(act, "gelu_new") != 0 && strcmp(act, "gelu_pytorch_tanh") != 0) {
    fprintf(stderr, "error: %s: activation_function \"%.60s\" is not supported (gelu_new and "
            "gelu_pytorch_tanh: the tanh GELU; gelu: the erf one)\n", src->name, act);
    return 0;
  }
  E = c->E;
  if (c->L > MAX_LAYERS) {
    fprintf(stderr, "error: %s: n_layer is %lld; this example takes at most %d\n", src->name,
            (long long)c->L, MAX_LAYERS);
    return 0;
  }
  if (E % c->H != 0) {
    fprintf(stderr, "error: %s: n_head %lld does not divide n_embd %lld\n", src->name,
            (long long)c->H, (long long)E);
    return 0;
  }
  if (c->T > 1024) { /* the reference's attention row */
    fprintf(stderr, "error: %s: T is %lld; this example takes at most 1024 (use --seq-len)\n",
            src->name, (long long)c->T);
    return 0;
  }
  /* the names: with or without GPT2LMHeadModel's "transformer." */
  if (tp_safetensors_find(st, "wte.weight", NULL) != TP_OK &&
      tp_safetensors_find(st, "transformer.wte.weight", NULL) == TP_OK)
    pre = "transformer.";
  /* the config against the tensors' shapes, each disagreement naming the key */
#define KEY(k) (snprintf(key, sizeof key, "%s%s", pre, k), key)
  if (tp_safetensors_find(st, KEY("wte.weight"), &t) == TP_OK && t.ndim == 2 &&
      (t.sizes[0] != c->V || t.sizes[1] != E)) {
    fprintf(stderr, "error: %s: %s is %lld, but %s in %s is [%lld, %lld]\n", src->name,
            t.sizes[1] != E ? "n_embd" : "vocab_size", (long long)(t.sizes[1] != E ? E : c->V),
            key, path, (long long)t.sizes[0], (long long)t.sizes[1]);
    return 0;
  }
  if (tp_safetensors_find(st, KEY("wpe.weight"), &t) == TP_OK && t.ndim == 2 &&
      t.sizes[0] != c->P) {
    fprintf(stderr, "error: %s: n_positions is %lld, but %s in %s is [%lld, %lld]\n",
            src->name, (long long)c->P, key, path, (long long)t.sizes[0],
            (long long)t.sizes[1]);
    return 0;
  }
  for (i = 0; i < tp_safetensors_count(st); i++) { /* layers, and what is not ours */
    size_t pl = strlen(pre);
    int kind;
    tp_safetensors_get(st, i, &nm, NULL);
    if (strcmp(nm, "lm_head.weight") == 0 || strcmp(nm, KEY("lm_head.weight")) == 0) continue;
    kind = strncmp(nm, pre, pl) == 0 ? name_kind(nm + pl, &li) : 0;
    if (kind != 0 && li > maxl) maxl = li;
    if (kind == 0) {
      if (n_unused < 8)
        ul += (size_t)snprintf(unused + ul, sizeof unused - ul, "%s%.40s", n_unused ? ", " : "",
                               nm);
      n_unused++;
    }
  }
  if (maxl + 1 != c->L) {
    fprintf(stderr, "error: %s: n_layer is %lld, but %s has %ld layers (h.0 to h.%ld)\n",
            src->name, (long long)c->L, path, maxl + 1, maxl);
    return 0;
  }
  if (n_unused > 0)
    fprintf(stderr, "warning: %s: %lu tensors not used: %s%s\n", path, (unsigned long)n_unused,
            unused, n_unused > 8 ? ", ..." : "");
  if (!get(st, KEY("wte.weight"), c->V, E, &m->wte) ||
      !get(st, KEY("wpe.weight"), c->P, E, &m->wpe) ||
      !get(st, KEY("ln_f.weight"), E, -1, &m->lnf_w) ||
      !get(st, KEY("ln_f.bias"), E, -1, &m->lnf_b))
    return 0;
  for (l = 0; l < c->L; l++) {
    layer *h = &m->h[l];
    tp_tensor *dst[12];
    const int64_t d0[12] = {E, E, E, 3 * E, E, E, E, E, E, 4 * E, 4 * E, E},
                  d1[12] = {-1, -1, 3 * E, -1, E, -1, -1, -1, 4 * E, -1, E, -1};
    int k;
    dst[0] = &h->ln1_w, dst[1] = &h->ln1_b, dst[2] = &h->attn_w, dst[3] = &h->attn_b;
    dst[4] = &h->proj_w, dst[5] = &h->proj_b, dst[6] = &h->ln2_w, dst[7] = &h->ln2_b;
    dst[8] = &h->fc_w, dst[9] = &h->fc_b, dst[10] = &h->mproj_w, dst[11] = &h->mproj_b;
    for (k = 0; k < 12; k++) {
      snprintf(key, sizeof key, "%sh.%lld.%s", pre, (long long)l, layer_parts[k]);
      if (!get(st, key, d0[k], d1[k], dst[k])) return 0;
    }
  }
#undef KEY
  /* the LM head: tied to wte unless an lm_head.weight with other numbers is there */
  m->head = m->wte;
  m->untied = 0;
  if (tp_safetensors_find(st, "lm_head.weight", NULL) == TP_OK ||
      (snprintf(key, sizeof key, "%slm_head.weight", pre),
       tp_safetensors_find(st, key, NULL) == TP_OK)) {
    const char *hn = tp_safetensors_find(st, "lm_head.weight", NULL) == TP_OK ? "lm_head.weight"
                                                                            : key;
    if (!get(st, hn, c->V, E, &t)) return 0;
    if (memcmp(t.storage.data, m->wte.storage.data, t.storage.nbytes) != 0) {
      m->head = t; /* an untied head */
      m->untied = 1;
    }
  }
  return 1;
}

/* ---- the program ----------------------------------------------------------------------------- */

typedef struct prog {
  tp_pte_graph *g;
  tp_xnn_graph *xg[6 * MAX_LAYERS + 1];
  tp_xnn_qlinear q[6 * MAX_LAYERS + 1]; /* --quant: each linear's values and scales */
  size_t nxg;
  tp_xnn_datatype qdt;                   /* --quant: TP_XNN_QCINT8 (8da8w), TP_XNN_QBINT4 */
  size_t block;                          /* (8da4w: group 32), or TP_XNN_INVALID (float) */
  tp_store *store;                       /* OUT.ptd: the linears' weights, named; or NULL */
  uint32_t i1, fneg1, ffalse; /* Int 1, Int -1, Bool false */
} prog;

static uint32_t tensor(prog *p, int ndim, const int64_t *sizes, unsigned role, tp_dtype dt) {
  tp_pte_tensor t;
  uint32_t id = 0;
  int d;
  memset(&t, 0, sizeof t);
  t.role = role;
  t.dtype = dt;
  t.ndim = ndim;
  for (d = 0; d < ndim; d++) t.sizes[d] = sizes[d];
  tp_pte_define_tensor(p->g, &t, &id); /* a failure sticks in the graph */
  return id;
}

static uint32_t ints(prog *p, int n, const int64_t *v) {
  uint32_t id = 0;
  tp_pte_define_int_list(p->g, v, (size_t)n, &id);
  return id;
}

static void call(prog *p, const char *op, const char *ov, const uint32_t *a, size_t n) {
  tp_pte_call_kernel(p->g, op, ov, a, n);
}

/* y[1, T, N] = x[1, T, K] W^T + b in an XNNPACK delegate: w is [N, K] (a view), b [N] or
   NULL; y is `out`, or a new intermediate when out is UINT32_MAX. */
static uint32_t linear(prog *p, uint32_t x, int64_t T, int64_t K, const tp_tensor *w,
                       const tp_tensor *b, uint32_t out) {
  tp_xnn_graph *xg = NULL;
  size_t xd[3] = {1, (size_t)T, (size_t)K}, yd[3] = {1, (size_t)T, (size_t)w->sizes[0]};
  int64_t ys[3] = {1, T, w->sizes[0]};
  uint32_t vx, vw, vb = TP_XNN_INVALID_ID, vy, a[2];
  tp_xnn_options xo;
  memset(&xo, 0, sizeof xo);
  xo.store = p->store; /* OUT.ptd given: the weights become named constants there */
  tp_xnn_graph_create(&xo, &xg);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 3, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &vx);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 3, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &vy);
  if (p->qdt != TP_XNN_INVALID) { /* int8 dynamic activations x quantized weights, one call */
    tp_xnn_define_quantized_linear(xg, p->qdt, p->block, TP_F32, w, b, -INFINITY, INFINITY, vx,
                                   vy, &p->q[p->nxg]);
  } else {
    tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 2, NULL, w, TP_XNN_INVALID_ID, 0, &vw);
    if (b) tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 1, NULL, b, TP_XNN_INVALID_ID, 0, &vb);
    tp_xnn_define_fully_connected(xg, -INFINITY, INFINITY, vx, vw, vb, vy, 0);
  }
  p->xg[p->nxg++] = xg; /* borrowed by the program until it is written */
  a[0] = x;
  a[1] = out != UINT32_MAX ? out : tensor(p, 3, ys, 0, TP_F32);
  tp_xnn_pte_call(p->g, xg, a, 2); /* a failed graph is refused with its sentence */
  return a[1];
}

/* native_layer_norm over the last dim of x [1, T, E]. */
static uint32_t layer_norm(prog *p, uint32_t x, const cfg *c, uint32_t w, uint32_t b,
                           uint32_t eps) {
  int64_t s3[3] = {1, c->T, c->E}, s1[3] = {1, c->T, 1}, e1 = c->E;
  uint32_t a[9];
  a[0] = x, a[1] = ints(p, 1, &e1), a[2] = w, a[3] = b, a[4] = eps;
  a[5] = tensor(p, 3, s3, 0, TP_F32); /* out0: the normalized x */
  a[6] = tensor(p, 3, s1, 0, TP_F32); /* out1: mean */
  a[7] = tensor(p, 3, s1, 0, TP_F32); /* out2: rstd */
  a[8] = a[5];                        /* the one return slot (of a tuple: not read) */
  call(p, "aten::native_layer_norm", "out", a, 9);
  return a[5];
}

static uint32_t add(prog *p, uint32_t x, uint32_t y, int nd, const int64_t *s) {
  uint32_t a[5];
  a[0] = x, a[1] = y, a[2] = p->i1, a[3] = tensor(p, nd, s, 0, TP_F32), a[4] = a[3];
  call(p, "aten::add", "out", a, 5);
  return a[3];
}

/* x reshaped to sizes (view_copy: the same elements in the same order). */
static uint32_t reshape(prog *p, uint32_t x, int nd, const int64_t *sizes) {
  uint32_t a[4];
  a[0] = x, a[1] = ints(p, nd, sizes), a[2] = tensor(p, nd, sizes, 0, TP_F32), a[3] = a[2];
  call(p, "aten::view_copy", "out", a, 4);
  return a[2];
}

static uint32_t permute(prog *p, uint32_t x, int nd, const int64_t *in, const int64_t *perm) {
  int64_t out[4];
  uint32_t a[4];
  int d;
  for (d = 0; d < nd; d++) out[d] = in[perm[d]];
  a[0] = x, a[1] = ints(p, nd, perm), a[2] = tensor(p, nd, out, 0, TP_F32), a[3] = a[2];
  call(p, "aten::permute_copy", "out", a, 4);
  return a[2];
}

static uint32_t constant(prog *p, const tp_tensor *v) {
  uint32_t id = 0;
  tp_pte_define_constant(p->g, v, &id);
  return id;
}

static int build(prog *p, const model *m, const float *mask) {
  const cfg *c = &m->c;
  const int64_t T = c->T, E = c->E, H = c->H, D = E / H, V = c->V;
  int64_t tok[2] = {1, T}, x3[3] = {1, T, E}, h4[4] = {1, T, H, D}, hd3[3] = {H, T, D};
  int64_t hdt[3] = {H, D, T}, tt3[3] = {H, T, T}, f3[3] = {1, T, 4 * E}, l3[3] = {1, T, V};
  int64_t p0213[4] = {0, 2, 1, 3}, p0231[4] = {0, 2, 3, 1};
  int64_t ctx4[4] = {1, H, T, D}, msz[2] = {T, T};
  tp_storage ms;
  tp_tensor maskv, wpe_t;
  uint32_t tokens, x, a[8], eps, scale, mask_c, approx, logits;
  int64_t l;
  ms.data = mask;
  ms.nbytes = (size_t)(T * T) * sizeof(float);
  tp_view(ms, TP_F32, 2, msz, NULL, 0, &maskv, NULL);
  tp_narrow(&m->wpe, 0, 0, T, &wpe_t, NULL); /* wpe[0:T]: a view */

  tokens = tensor(p, 2, tok, TP_PTE_INPUT, TP_I64);
  tp_pte_define_int(p->g, 1, &p->i1);
  tp_pte_define_int(p->g, -1, &p->fneg1);
  tp_pte_define_bool(p->g, 0, &p->ffalse);
  tp_pte_define_double(p->g, m->eps, &eps);
  tp_pte_define_double(p->g, 1.0 / sqrt((double)D), &scale);
  tp_pte_define_string(p->g, m->gelu_erf ? "none" : "tanh", &approx);
  mask_c = constant(p, &maskv);
  logits = tensor(p, 3, l3, TP_PTE_OUTPUT, TP_F32);

  /* x = wte[tokens] + wpe[0:T] */
  a[0] = constant(p, &m->wte), a[1] = tokens, a[2] = p->fneg1, a[3] = p->ffalse,
  a[4] = p->ffalse, a[5] = tensor(p, 3, x3, 0, TP_F32), a[6] = a[5];
  call(p, "aten::embedding", "out", a, 7);
  x = add(p, a[5], constant(p, &wpe_t), 3, x3);

  for (l = 0; l < c->L; l++) {
    const layer *h = &m->h[l];
    tp_tensor wq[3], bq[3], cols, wproj, wfc, wmproj;
    uint32_t hn, q, k, v, qh, kt, vh, s, ss, sm, pr, ctx, y;
    int i;
    hn = layer_norm(p, x, c, constant(p, &h->ln1_w), constant(p, &h->ln1_b), eps);
    for (i = 0; i < 3; i++) { /* Conv1D [E, 3E]: third i of the columns, transposed: [E, E] */
      tp_narrow(&h->attn_w, 1, i * E, E, &cols, NULL);
      tp_transpose(&cols, 0, 1, &wq[i], NULL);
      tp_narrow(&h->attn_b, 0, i * E, E, &bq[i], NULL);
    }
    q = linear(p, hn, T, E, &wq[0], &bq[0], UINT32_MAX);
    k = linear(p, hn, T, E, &wq[1], &bq[1], UINT32_MAX);
    v = linear(p, hn, T, E, &wq[2], &bq[2], UINT32_MAX);
    /* heads: [1, T, E] -> [1, T, H, D] -> q, v [1, H, T, D], k [1, H, D, T] -> 3-D */
    qh = reshape(p, permute(p, reshape(p, q, 4, h4), 4, h4, p0213), 3, hd3);
    kt = reshape(p, permute(p, reshape(p, k, 4, h4), 4, h4, p0231), 3, hdt);
    vh = reshape(p, permute(p, reshape(p, v, 4, h4), 4, h4, p0213), 3, hd3);
    a[0] = qh, a[1] = kt, a[2] = tensor(p, 3, tt3, 0, TP_F32), a[3] = a[2];
    call(p, "aten::bmm", "out", a, 4);
    s = a[2];
    a[0] = s, a[1] = scale, a[2] = tensor(p, 3, tt3, 0, TP_F32), a[3] = a[2];
    call(p, "aten::mul", "Scalar_out", a, 4);
    ss = add(p, a[2], mask_c, 3, tt3); /* + the causal mask [T, T] (broadcast) */
    a[0] = ss, a[1] = p->fneg1, a[2] = p->ffalse, a[3] = tensor(p, 3, tt3, 0, TP_F32);
    a[4] = a[3];
    call(p, "aten::_softmax", "out", a, 5);
    sm = a[3];
    a[0] = sm, a[1] = vh, a[2] = tensor(p, 3, hd3, 0, TP_F32), a[3] = a[2];
    call(p, "aten::bmm", "out", a, 4);
    pr = a[2];
    ctx = reshape(p, permute(p, reshape(p, pr, 4, ctx4), 4, ctx4, p0213), 3, x3);
    tp_transpose(&h->proj_w, 0, 1, &wproj, NULL);
    y = linear(p, ctx, T, E, &wproj, &h->proj_b, UINT32_MAX);
    x = add(p, x, y, 3, x3);
    /* the MLP */
    hn = layer_norm(p, x, c, constant(p, &h->ln2_w), constant(p, &h->ln2_b), eps);
    tp_transpose(&h->fc_w, 0, 1, &wfc, NULL);
    y = linear(p, hn, T, E, &wfc, &h->fc_b, UINT32_MAX);
    a[0] = y, a[1] = approx, a[2] = tensor(p, 3, f3, 0, TP_F32), a[3] = a[2];
    call(p, "aten::gelu", "out", a, 4);
    tp_transpose(&h->mproj_w, 0, 1, &wmproj, NULL);
    y = linear(p, a[2], T, 4 * E, &wmproj, &h->mproj_b, UINT32_MAX);
    x = add(p, x, y, 3, x3);
  }
  x = layer_norm(p, x, c, constant(p, &m->lnf_w), constant(p, &m->lnf_b), eps);
  linear(p, x, T, E, &m->head, NULL, logits); /* the LM head: wte [V, E] is [out, in] */
  return tp_pte_graph_status(p->g) == TP_OK;
}

/* ---- the reference: GPT-2's forward in float64, for token 1 at every position ------------------ */

static double *values(const tp_tensor *t) { /* the view's floats, in logical order */
  tp_buffer b;
  size_t n = (size_t)tp_numel(t), i;
  double *d = (double *)malloc(n * sizeof *d);
  if (!d || tp_compact(t, TP_ORDER_ROW_MAJOR, &b) != TP_OK) {
    free(d);
    return NULL;
  }
  for (i = 0; i < n; i++) { /* little-endian floats */
    const unsigned char *q = (const unsigned char *)b.data + 4 * i;
    uint32_t u = (uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
                 ((uint32_t)q[3] << 24);
    float f;
    memcpy(&f, &u, 4);
    d[i] = f;
  }
  tp_buffer_release(&b);
  return d;
}

static void ln(double *x, int64_t T, int64_t E, const double *w, const double *b, double eps,
               double *out) {
  int64_t t, e;
  for (t = 0; t < T; t++) {
    double mu = 0, var = 0;
    for (e = 0; e < E; e++) mu += x[t * E + e];
    mu /= (double)E;
    for (e = 0; e < E; e++) var += (x[t * E + e] - mu) * (x[t * E + e] - mu);
    var /= (double)E;
    for (e = 0; e < E; e++)
      out[t * E + e] = (x[t * E + e] - mu) / sqrt(var + eps) * w[e] + b[e];
  }
}

/* out[T, N] = x[T, K] W + b with W [K, N] row-major (Conv1D). */
static void mm(const double *x, int64_t T, int64_t K, const double *W, int64_t N,
               const double *b, double *out) {
  int64_t t, n, k;
  for (t = 0; t < T; t++)
    for (n = 0; n < N; n++) {
      double s = b ? b[n] : 0;
      for (k = 0; k < K; k++) s += x[t * K + k] * W[k * N + n];
      out[t * N + n] = s;
    }
}

/* The integer math of a quantized linear as XNNPACK's qd8 kernels do it: each row of x
   quantized to int8 asymmetrically (range widened to hold 0, scale (hi - lo) / 255, zero point
   rounded), integer sums per weight group, times the group's scale (bf16-rounded for qb4w, as
   written) and the row's scale, plus the bias. out[T, N] (row stride ostride). */
static void qmm(const double *x, int64_t T, int64_t K, const tp_xnn_qlinear *q, int64_t N,
                int is_qb4w, size_t block, const double *b, double *out, int64_t ostride) {
  const int8_t *wq = (const int8_t *)q->values.data;
  const float *sc = (const float *)q->scales.data;
  int64_t G = is_qb4w ? K / (int64_t)block : 1, gs = K / G, t, n, g, k;
  int *xq = (int *)malloc((size_t)K * sizeof *xq);
  if (!xq) return;
  for (t = 0; t < T; t++) {
    float lo = 0.0f, hi = 0.0f, sx;
    long zx;
    for (k = 0; k < K; k++) {
      float f = (float)x[t * K + k];
      if (f < lo) lo = f;
      if (f > hi) hi = f;
    }
    sx = hi > lo ? (hi - lo) / 255.0f : 1.0f;
    zx = lrintf(-128.0f - lo / sx);
    for (k = 0; k < K; k++) {
      long v = lrintf((float)x[t * K + k] / sx) + zx;
      xq[k] = (int)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    for (n = 0; n < N; n++) {
      double acc = 0;
      for (g = 0; g < G; g++) {
        long isum = 0;
        float s = sc[n * G + g];
        if (is_qb4w) { /* bf16, round to nearest even, as the blob holds it */
          uint32_t u;
          memcpy(&u, &s, 4);
          u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
          memcpy(&s, &u, 4);
        }
        for (k = g * gs; k < (g + 1) * gs; k++) isum += (long)(xq[k] - zx) * wq[n * K + k];
        acc += (double)isum * (double)s;
      }
      out[t * ostride + n] = acc * (double)sx + (b ? b[n] : 0);
    }
  }
  free(xq);
}

/* The float64 reference, or (p->qdt set) the quantized linears' integer math. */
static double *reference(const model *m, const prog *p) {
  const cfg *c = &m->c;
  const int64_t T = c->T, E = c->E, H = c->H, D = E / H, V = c->V;
  double *wte = values(&m->wte), *wpe = values(&m->wpe), *head = values(&m->head);
  double *x = (double *)calloc((size_t)(T * E), sizeof(double));
  double *hn = (double *)calloc((size_t)(T * E), sizeof(double));
  double *qkv = (double *)calloc((size_t)(T * 3 * E), sizeof(double));
  double *ctx = (double *)calloc((size_t)(T * E), sizeof(double));
  double *y = (double *)calloc((size_t)(T * 4 * E), sizeof(double));
  double *logits = (double *)calloc((size_t)(T * V), sizeof(double));
  int64_t l, t, e, hh, u, v;
  size_t qi = 0; /* the next linear's quantized weights (the order build defines them) */
  const int quant = p->qdt != TP_XNN_INVALID, qb4 = p->qdt == TP_XNN_QBINT4;
  for (t = 0; t < T; t++)
    for (e = 0; e < E; e++) x[t * E + e] = wte[1 * E + e] + wpe[t * E + e];
  for (l = 0; l < c->L; l++) {
    const layer *h = &m->h[l];
    double *w1 = values(&h->ln1_w), *b1 = values(&h->ln1_b), *wa = values(&h->attn_w),
           *ba = values(&h->attn_b), *wp = values(&h->proj_w), *bp = values(&h->proj_b),
           *w2 = values(&h->ln2_w), *b2 = values(&h->ln2_b), *wf = values(&h->fc_w),
           *bf = values(&h->fc_b), *wm = values(&h->mproj_w), *bm = values(&h->mproj_b);
    ln(x, T, E, w1, b1, m->eps, hn);
    if (!quant) {
      mm(hn, T, E, wa, 3 * E, ba, qkv);
    } else { /* q, k, v: the thirds, into qkv's columns */
      for (e = 0; e < 3; e++)
        qmm(hn, T, E, &p->q[qi++], E, qb4, p->block, ba + e * E, qkv + e * E, 3 * E);
    }
    for (hh = 0; hh < H; hh++)
      for (t = 0; t < T; t++) {
        double s[1024], mx = -1e300, sum = 0;
        for (u = 0; u <= t; u++) {
          double d = 0;
          for (v = 0; v < D; v++) d += qkv[t * 3 * E + hh * D + v] * qkv[u * 3 * E + E + hh * D + v];
          s[u] = d / sqrt((double)D);
          if (s[u] > mx) mx = s[u];
        }
        for (u = 0; u <= t; u++) sum += (s[u] = exp(s[u] - mx));
        for (v = 0; v < D; v++) {
          double a = 0;
          for (u = 0; u <= t; u++) a += s[u] / sum * qkv[u * 3 * E + 2 * E + hh * D + v];
          ctx[t * E + hh * D + v] = a;
        }
      }
    if (quant) qmm(ctx, T, E, &p->q[qi++], E, qb4, p->block, bp, y, E);
    else mm(ctx, T, E, wp, E, bp, y);
    for (e = 0; e < T * E; e++) x[e] += y[e];
    ln(x, T, E, w2, b2, m->eps, hn);
    if (quant) qmm(hn, T, E, &p->q[qi++], 4 * E, qb4, p->block, bf, y, 4 * E);
    else mm(hn, T, E, wf, 4 * E, bf, y);
    for (e = 0; e < T * 4 * E; e++) {
      double z = y[e];
      y[e] = m->gelu_erf ? 0.5 * z * (1 + erf(z / sqrt(2.0)))
                         : 0.5 * z * (1 + tanh(sqrt(2 / 3.14159265358979323846) *
                                               (z + 0.044715 * z * z * z)));
    }
    if (quant) qmm(y, T, 4 * E, &p->q[qi++], E, qb4, p->block, bm, hn, E);
    else mm(y, T, 4 * E, wm, E, bm, hn);
    for (e = 0; e < T * E; e++) x[e] += hn[e];
    free(w1), free(b1), free(wa), free(ba), free(wp), free(bp);
    free(w2), free(b2), free(wf), free(bf), free(wm), free(bm);
  }
  {
    double *wf = values(&m->lnf_w), *bf = values(&m->lnf_b);
    ln(x, T, E, wf, bf, m->eps, hn);
    if (quant) qmm(hn, T, E, &p->q[qi++], V, qb4, p->block, NULL, logits, V);
    else
      for (t = 0; t < T; t++)
        for (v = 0; v < V; v++) {
          double s = 0;
          for (e = 0; e < E; e++) s += hn[t * E + e] * head[v * E + e];
          logits[t * V + v] = s;
        }
    free(wf), free(bf);
  }
  free(wte), free(wpe), free(head), free(x), free(hn), free(qkv), free(ctx), free(y);
  return logits;
}

/* MODEL in -> program out (float linears, or qdt / block: --quant), and out's .expected. */
static int convert(const char *in, const char *out, const char *ptd, const char *config,
                   int64_t seq_len, tp_xnn_datatype qdt, size_t block, int want_ref) {
  static model m;
  static prog pg;
  config_src src;
  char cj[720];
  FILE *probe;
  tp_safetensors *st = NULL;
  tp_error err;
  tp_pte *p = NULL;
  float *mask = NULL;
  double *ref = NULL;
  uint64_t size = 0, ptd_size = 0;
  int ok = 0;
  size_t i;
  memset(&pg, 0, sizeof pg);
  pg.qdt = qdt;
  pg.block = block;
  if (ptd && tp_store_create(NULL, &pg.store) != TP_OK) {
    fprintf(stderr, "error: no memory for a store\n");
    return 0;
  }
  if (tp_safetensors_open_file(in, &st, &err) != TP_OK) {
    fprintf(stderr, "error: %s\n", err.msg);
    return 0;
  }
  /* the configuration: --config, else config.json beside the model, else __metadata__ */
  memset(&src, 0, sizeof src);
  src.st = st;
  beside(in, "config.json", cj, sizeof cj);
  if (!config && (probe = fopen(cj, "rb")) != NULL) {
    fclose(probe);
    config = cj;
  }
  if (config) {
    if (tp_json_open_file(config, &src.doc, &err) != TP_OK) {
      fprintf(stderr, "error: %s\n", err.msg);
      goto done;
    }
    snprintf(src.name, sizeof src.name, "%s", config);
  } else {
    snprintf(src.name, sizeof src.name, "the __metadata__ of %s", in);
  }
  if (!load(st, &src, seq_len, in, &m)) goto done;
  mask = (float *)malloc((size_t)(m.c.T * m.c.T) * sizeof(float));
  if (!mask) goto done;
  for (i = 0; i < (size_t)(m.c.T * m.c.T); i++) /* 0 on and below the diagonal, else -inf-ish */
    mask[i] = (int64_t)(i % (size_t)m.c.T) <= (int64_t)(i / (size_t)m.c.T) ? 0.0f : -1e30f;
  tp_pte_create(NULL, &p);
  if (tp_pte_graph_create(p, "forward", &pg.g) != TP_OK || !build(&pg, &m, mask)) {
    fprintf(stderr, "error: %s\n", pg.g ? tp_pte_graph_error(pg.g) : tp_pte_error(p));
    tp_pte_graph_destroy(pg.g);
    goto done;
  }
  if (tp_pte_graph_finish(pg.g) != TP_OK) {
    fprintf(stderr, "error: %s\n", tp_pte_error(p));
    goto done;
  }
  if (tp_pte_save(p, out, &size) != TP_OK) goto done; /* prints the sentence */
  if (ptd) { /* the linears' weights, named by their SHA-256 */
    if (tp_store_save_ptd(pg.store, ptd, &ptd_size) != TP_OK) goto done;
    printf("wrote %s: %llu bytes, %lu named weights (run with --data_path %s)\n", ptd,
           (unsigned long long)ptd_size, (unsigned long)tp_store_count(pg.store), ptd);
  }
  {
    tp_pte_file f;
    tp_pte_method_info mi;
    if (tp_pte_read_file(&f, out) != TP_OK || tp_pte_method_at(&f, 0, &mi) != TP_OK) {
      fprintf(stderr, "error: %s\n", f.err.msg);
      tp_pte_close(&f);
      goto done;
    }
    if (mi.n_delegates != (size_t)(6 * m.c.L + 1) || mi.n_inputs != 1 || mi.n_outputs != 1) {
      fprintf(stderr, "error: %s reads back with %lu delegates (want %lld), %lu inputs, %lu "
              "outputs\n", out, (unsigned long)mi.n_delegates, (long long)(6 * m.c.L + 1),
              (unsigned long)mi.n_inputs, (unsigned long)mi.n_outputs);
      tp_pte_close(&f);
      goto done;
    }
    printf("wrote %s: %llu bytes; %lld layers, E %lld, %lld heads, V %lld, T %lld (config: "
           "%s; %s LM head); %lu values, %lu operators, %lu XNNPACK delegates, %llu planned "
           "bytes\n", out, (unsigned long long)size, (long long)m.c.L, (long long)m.c.E,
           (long long)m.c.H, (long long)m.c.V, (long long)m.c.T, src.name,
           m.untied ? "an untied" : "the wte-tied", (unsigned long)mi.n_values,
           (unsigned long)mi.n_operators, (unsigned long)mi.n_delegates,
           (unsigned long long)mi.planned_bytes);
    tp_pte_close(&f);
  }
  if (!want_ref) {
    ok = 1;
    goto done;
  }
  ref = reference(&m, &pg);
  if (ref) { /* OUT.expected: what executor_runner's all-ones tokens give */
    char ex[600];
    size_t n = strlen(out), k, N = (size_t)(m.c.T * m.c.V);
    FILE *e;
    double sum = 0;
    snprintf(ex, sizeof ex, "%.*s.expected",
             (int)(n > 4 && strcmp(out + n - 4, ".pte") == 0 ? n - 4 : n), out);
    e = fopen(ex, "w");
    if (e) {
      const char *slash = ptd ? strrchr(ptd, '/') : NULL;
      fprintf(e, "# %s on all-ones tokens (examples/09_gpt2_program.c)\nbackend XnnpackBackend\n",
              out);
      if (ptd) fprintf(e, "data %s\n", slash ? slash + 1 : ptd);
      fprintf(e, "output 0 %lu", (unsigned long)N);
      for (k = 0; k < N; k++) fprintf(e, " %.9g", ref[k]), sum += ref[k];
      fprintf(e, "\n");
      ok = fclose(e) == 0;
    }
    printf("run: executor_runner --model_path %s%s%s   (-DEXECUTORCH_BUILD_XNNPACK=ON)\n"
           "  token 1 at every position -> logits [1, %lld, %lld]: %.6f %.6f %.6f ... sum %.6f "
           "(all in %s)\n", out, ptd ? " --data_path " : "", ptd ? ptd : "", (long long)m.c.T, (long long)m.c.V, ref[0], ref[1], ref[2], sum,
           ex);
  }
done:
  tp_json_close(src.doc);
  tp_pte_destroy(p);
  tp_store_destroy(pg.store);
  for (i = 0; i < pg.nxg; i++) {
    tp_xnn_graph_destroy(pg.xg[i]);
    tp_xnn_qlinear_release(&pg.q[i]); /* (zero for float linears: a no-op) */
  }
  tp_safetensors_close(st);
  free(mask);
  free(ref);
  return ok;
}

static int usage(void) {
  fprintf(stderr, "usage: 09_gpt2_program [--random L,H,E,V,P,T[,ours|hub|prefixed|untied|extra]] "
                  "[--no-reference] [--quant 8da8w|8da4w] [--config FILE] [--seq-len T] "
                  "[MODEL.safetensors OUT.pte [OUT.ptd]]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *in = "gpt2_tiny.safetensors", *out = "gpt2_tiny.pte", *rand_cfg = NULL;
  const char *config = NULL, *pos[3], *ptd = NULL;
  tp_xnn_datatype qdt = TP_XNN_INVALID;
  size_t block = 0;
  int want_ref = 1, npos = 0, a, layout = LAYOUT_OURS;
  long long seq_len = 0;
  for (a = 1; a < argc; a++) {
    const char *o = argv[a];
    int has = a + 1 < argc;
    if (strcmp(o, "--no-reference") == 0) {
      want_ref = 0;
    } else if (strcmp(o, "--random") == 0 && has) {
      rand_cfg = argv[++a];
    } else if (strcmp(o, "--config") == 0 && has) {
      config = argv[++a];
    } else if (strcmp(o, "--seq-len") == 0 && has) {
      char *end;
      seq_len = strtoll(argv[++a], &end, 10);
      if (*end || seq_len < 1 || seq_len > 1024) {
        fprintf(stderr, "error: --seq-len %s: want a length from 1 to 1024\n", argv[a]);
        return 2;
      }
    } else if (strcmp(o, "--quant") == 0 && has) {
      const char *q = argv[++a];
      if (strcmp(q, "8da8w") == 0) {
        qdt = TP_XNN_QCINT8;
      } else if (strcmp(q, "8da4w") == 0) {
        qdt = TP_XNN_QBINT4;
        block = 32;
      } else {
        fprintf(stderr, "error: --quant %s: 8da8w (int8 per channel) or 8da4w (int4, groups of "
                "32)\n", q);
        return 2;
      }
    } else if (o[0] == '-' && o[1] == '-') {
      return usage();
    } else if (npos < 3) {
      pos[npos++] = o;
    } else {
      return usage();
    }
  }
  if (npos == 1 || (rand_cfg && npos < 2)) return usage();
  if (npos >= 2) in = pos[0], out = pos[1];
  if (npos == 3) ptd = pos[2];
  if (npos == 0 || rand_cfg) {
    cfg c = {2, 2, 32, 50, 16, 8};
    long long v[6];
    char lay[16] = "ours";
    int got = rand_cfg ? sscanf(rand_cfg, "%lld,%lld,%lld,%lld,%lld,%lld,%15s", &v[0], &v[1],
                                &v[2], &v[3], &v[4], &v[5], lay)
                       : 0;
    for (layout = 0; layout < LAYOUTS && strcmp(lay, layout_names[layout]) != 0; layout++) {
    }
    if (rand_cfg && (got < 6 || layout == LAYOUTS || v[0] < 1 || v[0] > MAX_LAYERS || v[1] < 1 ||
                     v[2] < 1 || v[2] % v[1] || v[3] < 2 || v[4] < 1 || v[5] < 1 ||
                     v[5] > v[4] || v[5] > 1024)) {
      fprintf(stderr, "error: --random %s: want L,H,E,V,P,T[,LAYOUT] with 1 <= L <= %d, E a "
              "multiple of H, T <= P and T <= 1024; LAYOUT ours, hub, prefixed, untied or extra\n",
              rand_cfg, MAX_LAYERS);
      return 2;
    }
    if (rand_cfg) c.L = v[0], c.H = v[1], c.E = v[2], c.V = v[3], c.P = v[4], c.T = v[5];
    if (write_random(in, &c, layout)) {
      fprintf(stderr, "error: cannot write %s\n", in);
      return 1;
    }
  }
  if (npos >= 2)
    return convert(in, out, ptd, config, (int64_t)seq_len, qdt, block, want_ref) ? 0 : 1;
  /* no arguments: the tiny checkpoint as float and as 8da4w */
  return convert(in, out, NULL, config, (int64_t)seq_len, TP_XNN_INVALID, 0, want_ref) &&
                 convert(in, "gpt2_tiny_8da4w.pte", NULL, config, (int64_t)seq_len,
                         TP_XNN_QBINT4, 32, want_ref)
             ? 0
             : 1;
}
