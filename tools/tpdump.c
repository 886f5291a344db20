/* tpdump - print and check ExecuTorch backend blobs, .ptd and .pte files (part of tensorpack).

   Usage:  tpdump FILE [--ptd DATA.ptd]           print what FILE holds, then check it
           tpdump --check FILE [--ptd DATA.ptd]   check only: one line "ok: <kind>, <size> bytes"
             on success (kind: XNNPACK blob, Vulkan blob, .ptd, .pte); for a .pte whose XNNPACK
             or Vulkan delegates use named keys that are not embedded (nor in --ptd), then
             "needs a .ptd with these keys (N ...):" and one key a line
           tpdump --json FILE [--ptd DATA.ptd]    the check result and the constants as JSON:
             {"format": "xnnpack" | "vulkan" | "ptd" | "pte" | null, "size": N, "ok": true | false,
              "error": null | "why", "constants": [{"section", "index", "key" (named only),
              "source": "blob" | "ptd" | "unresolved", "at" (file offset, blob only), "size",
              "sha256" (full hex, when the bytes are at hand)}, ...]}
             (constants listed up to the first failure; the exit status is the same)
   With --ptd, a blob's named constants are looked up in that .ptd: each key must be there,
   with as many bytes as the blob and the value need; their hashes are printed.

   FILE may be
     - an XNNPACK delegate blob: XH00 header + XN01/XN00 flatbuffer + constant segment,
       or a bare XN01/XN00 flatbuffer (no constant segment then);
     - a Vulkan delegate blob: VH00 header + VK00 flatbuffer + raw bytes segment,
       or a bare VK00 flatbuffer;
     - a .ptd (FlatTensor, FT01 flatbuffer with the FH01 header after its identifier);
     - a .pte (ExecuTorch program, ET12 flatbuffer with the eh00 header): the eh00 fields,
       segments, named data, and per method its values (kind, ScalarType, sizes, dim_order,
       memory plan), inputs, outputs, chains (instructions, delegate call arguments) and
       delegates (id, where the blob lies, compile specs), each blob then dumped as above
       (its named constants resolved in the program's own named data, or in --ptd). Checked
       by tp_pte_read (indices the runtime's loader does not check included).

   Printed: header fields; values (datatype, dims, constant, quantization), nodes (kind, ids,
   flags, output_min_max, debug_handle) or the Vulkan op chain; constants with their offset,
   size and the first 8 hex digits of the SHA-256 of their bytes; named keys.
   Checked: the verdict is the library's own check of the format, so tpdump cannot disagree
   with the readers and the loader: tp_xnn_check_blob (XN01's format
   rules), tp_vk_check_blob (VK00's), tp_ptd_open, tp_pte_read and each delegate's blob by its
   backend's check; with --ptd (or a program's named data) XNNPACK's named keys are resolved as
   the loader resolves them. An XNNPACK report prints tp_xnn_read_blob's result (the one
   reading of the blob), up to where a failed read stopped; a Vulkan blob's report prints
   tp_vk_read_blob's result (no rule of tpdump's own): a blob the reader refuses gets the header
   lines and the reader's sentence. The other printers walk every field through the
   bounds-checked reader for the report; when both refuse, the printer's sentence (where it
   stopped) is the one given.

   Shared tables: the verdict's readers run under their visit budgets (see the formats'
   comments); the report prints a delegate table, a compile_specs vector or a delegate's blob
   reached through many offsets once and refers to it after ("delegate 3: as method 0 delegate
   0 (the same table)", "compile_specs: as method 0 delegate 0"), and hashes each distinct
   (bytes, length) once (a memo by position, keyed-hashed), and at most 8 times the file's and
   its .ptd's bytes plus 1 MiB in all (distinct ranges may overlap; past that a hash prints as
   "sha256=?"): output and work proportional to the file. A report that cannot grow is exit
   status 1.

   Exit status: 0 well formed, 2 malformed (the reason on stderr), 1 usage, I/O or memory,
   3 a well-formed XNNPACK blob that breaks one of the writer's node or graph rules for
   ExecuTorch's runtime (tp_xnn_check_blob; the rule on stderr and, unless --json, stdout).

   Build (from the repository root): cc -std=c99 -I. tools/tpdump.c -o tpdump -lm
   (make builds $(BUILD)/tools/tpdump). Included with TPDUMP_NO_MAIN defined it is a library for
   tests: tpdump_inspect(), tpdump_inspect_with() (with a .ptd), tpdump_inspect_json() below;
   define TENSORPACK_IMPLEMENTATION yourself then. */
#if !defined(TPDUMP_NO_MAIN) && !defined(TENSORPACK_IMPLEMENTATION)
#define TENSORPACK_IMPLEMENTATION
#endif
/* the XNNPACK part is built with the core (tpdump reads the XN01 description from it) */
#if defined(TENSORPACK_IMPLEMENTATION) && !defined(TENSORPACK_XNNPACK_IMPLEMENTATION)
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#endif
/* and the Vulkan part: its report is tp_vk_read_blob's result, its verdict tp_vk_check_blob's */
#if defined(TENSORPACK_IMPLEMENTATION) && !defined(TENSORPACK_VULKAN_IMPLEMENTATION)
#define TENSORPACK_VULKAN_IMPLEMENTATION
#endif
/* MinGW: the C99 printf (%zu, %lld), not msvcrt's; must come before the first libc header */
#if defined(_WIN32) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1
#endif
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h" /* tp_vk_read_blob and tp_vk_check_blob */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TPD_NONE UINT32_MAX     /* XNN_INVALID_VALUE_ID: "no value" */
#define TPD_LIST_MAX 16         /* list elements printed before "..." */

/* ------------------------------------------------------------------------------------------ */
/* Output and errors                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* What the report has already shown, so that a table, vector or blob reached through many
   offsets is printed (and its bytes hashed) once and referred to after: "as delegate 0".
   Entries are (kind, a, b) -> (v, hex); a hashed lookup (tp__keyset, keyed). */
enum { TPD_SEEN_DELEGATE = 1, TPD_SEEN_SPECS, TPD_SEEN_BLOB, TPD_SEEN_SHA };
typedef struct tpd_seen_item {
  int kind;
  uint64_t a, b;
  uint64_t v;
  char hex[65];
} tpd_seen_item;
typedef struct tpd_seen {
  tpd_seen_item *items;
  size_t n, cap;
  tp__keyset set;
  tp__hashkey hk;
  int nomem;
  uint64_t hashed, hash_cap; /* bytes hashed so far, and at most (distinct ranges may overlap:
                                8 x the file and its .ptd, plus 1 MiB) */
} tpd_seen;

typedef struct tpd {
  tp_membuf *out;             /* NULL: silent */
  tpd_seen *seen;             /* shared with the delegate blobs' reports */
  int oom;                    /* the report could not grow (the exit status says so) */
  tp_error err;               /* the verdict: the first failure (the library's, tpd_verdict) */
  tp_error print_err;         /* the printer's own first failure (detail) */
  tp_fb_reader r;
  const unsigned char *file;
  size_t file_size;
  /* the constant / raw bytes segment: [seg_off, seg_off + seg_size) of the file */
  uint64_t seg_off, seg_size;
  /* the .ptd that named constants are resolved in (NULL: not resolved) */
  tp_ptd *ptd;
  /* an XNNPACK report's verdict, from the report's own read of the blob (tpd_xnnpack) */
  int have_verdict;
  tp_error verdict;
  /* --json: the constants array being written (NULL: no JSON) */
  tp_membuf *json;
  size_t json_count;
} tpd;

static int tpd_ok(const tpd *d) { return d->err.status == TP_OK; }

static uint64_t tpd_seen_key(const tpd_seen *t, int kind, uint64_t a, uint64_t b) {
  return tp__hash_u64(&t->hk, a ^ (b * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)kind << 60));
}
static uint64_t tpd_seen_hash(const void *ctx, uint32_t i) {
  const tpd_seen *t = (const tpd_seen *)ctx;
  return tpd_seen_key(t, t->items[i].kind, t->items[i].a, t->items[i].b);
}
typedef struct tpd_seen_probe {
  const tpd_seen *t;
  int kind;
  uint64_t a, b;
} tpd_seen_probe;
static int tpd_seen_match(const void *ctx, uint32_t i) {
  const tpd_seen_probe *q = (const tpd_seen_probe *)ctx;
  const tpd_seen_item *it = &q->t->items[i];
  return it->kind == q->kind && it->a == q->a && it->b == q->b;
}
/* The entry (kind, a, b): found (returned, *added = 0), or added with v (*added = 1); NULL
   when memory ran out (then nothing is remembered: the caller prints in full). */
static tpd_seen_item *tpd_seen_get(tpd *d, int kind, uint64_t a, uint64_t b, uint64_t v,
                                   int *added) {
  tpd_seen *t = d->seen;
  tpd_seen_probe q;
  size_t slot;
  *added = 0;
  if (!t || t->nomem) return NULL;
  if (t->n + 1 > (size_t)UINT32_MAX - 1 ||
      tp__array_reserve((void **)&t->items, &t->cap, t->n + 1, sizeof *t->items) != TP_OK ||
      tp__keyset_reserve(&t->set, t->n + 1, tpd_seen_hash, t) != TP_OK) {
    t->nomem = 1;
    return NULL;
  }
  q.t = t;
  q.kind = kind;
  q.a = a;
  q.b = b;
  slot = tp__keyset_probe(&t->set, tpd_seen_key(t, kind, a, b), tpd_seen_match, &q);
  if (t->set.slot[slot]) return &t->items[t->set.slot[slot] - 1];
  memset(&t->items[t->n], 0, sizeof t->items[t->n]);
  t->items[t->n].kind = kind;
  t->items[t->n].a = a;
  t->items[t->n].b = b;
  t->items[t->n].v = v;
  t->n++;
  t->set.slot[slot] = (uint32_t)t->n;
  *added = 1;
  return &t->items[t->n - 1];
}

/* The full SHA-256 hex of n bytes at p, computed once per (p, n). 0 when it cannot be. */
static int tpd_sha_hex(tpd *d, const unsigned char *p, uint64_t n, char hex[65]) {
  int added;
  tpd_seen_item *it = tpd_seen_get(d, TPD_SEEN_SHA, (uint64_t)(uintptr_t)p, n, 0, &added);
  if (it && !added) {
    memcpy(hex, it->hex, 65);
    return 1;
  }
  if (n > d->seen->hash_cap - d->seen->hashed) return 0; /* printed as sha256=? */
  d->seen->hashed += n;
  if (tp_sha256_hex(p, (size_t)n, hex) != TP_OK) return 0;
  if (it) memcpy(it->hex, hex, 65);
  return 1;
}

static void tpd_vfail(tpd *d, tp_status s, const char *fmt, va_list ap) {
  char msg[TP_ERROR_MAX];
  vsnprintf(msg, sizeof msg, fmt, ap);
  tp__error_set(&d->err, s, "%s", msg);
}

/* Records "malformed: <sentence>" (the first failure sticks). */
static void tpd_fail(tpd *d, const char *fmt, ...) TP__PRINTF(2, 3);
static void tpd_fail(tpd *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tpd_vfail(d, TP_ERR_FORMAT, fmt, ap);
  va_end(ap);
}

/* Moves a reader failure into d, prefixed with what was being read. Returns 1 when ok. */
static int tpd_reader_ok(tpd *d, const char *fmt, ...) TP__PRINTF(2, 3);
static int tpd_reader_ok(tpd *d, const char *fmt, ...) {
  char where[128];
  va_list ap;
  if (!tpd_ok(d)) return 0;
  if (tp_fb_reader_status(&d->r) == TP_OK) return 1;
  va_start(ap, fmt);
  vsnprintf(where, sizeof where, fmt, ap);
  va_end(ap);
  tp__error_set(&d->err, TP_ERR_FORMAT, "%s: %s", where,
               d->r.err.msg[0] ? d->r.err.msg : tp_status_str(d->r.err.status));
  return 0;
}

static void tpd_write(tpd *d, const char *s, size_t n) {
  tp_sink sink;
  if (!d->out || n == 0) return;
  sink = tp_sink_membuf(d->out);
  if (tp_sink_write(&sink, s, n) != TP_OK) {
    d->oom = 1;
    tp__error_set(&d->err, TP_ERR_NOMEM, "out of memory while printing");
  }
}

static void tpd_print(tpd *d, const char *fmt, ...) TP__PRINTF(2, 3);
static void tpd_print(tpd *d, const char *fmt, ...) {
  char line[512];
  int n;
  va_list ap;
  if (!d->out) return;
  va_start(ap, fmt);
  n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  tpd_write(d, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* len bytes of s in quotes; printable ASCII as it is, other bytes, quotes and backslashes
   escaped (JSON's \u00XX with json, else \xXX). */
static void tpd_quoted(tpd *d, const char *s, size_t len, int json) {
  size_t i;
  tpd_write(d, "\"", 1);
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') tpd_write(d, (const char *)&c, 1);
    else if (json) tpd_print(d, "\\u%04x", c);
    else tpd_print(d, "\\x%02x", c);
  }
  tpd_write(d, "\"", 1);
}

/* A string from the file, quoted, non-printable bytes escaped, long ones cut. */
static void tpd_print_str(tpd *d, const char *s, size_t len) {
  size_t shown = len < 96 ? len : 96;
  if (!d->out) return;
  if (!s) { tpd_print(d, "(absent)"); return; }
  tpd_quoted(d, s, shown, 0);
  if (shown < len) tpd_print(d, "...(%zu bytes)", len);
}

/* "1a2b3c4d": the first 8 hex digits of the SHA-256 of bytes. */
static void tpd_print_sha(tpd *d, const unsigned char *p, uint64_t n) {
  char hex[65];
  if (!d->out) return;
  if (!tpd_sha_hex(d, p, n, hex)) { tpd_print(d, " sha256=?"); return; }
  hex[8] = '\0';
  tpd_print(d, " sha256=%s", hex);
}

/* A JSON string: quotes, backslashes, control and non-ASCII bytes escaped as \u00XX. */
static void tpd_json_str(tpd *d, const char *s, size_t len) {
  tp_membuf *save = d->out;
  d->out = d->json;
  tpd_quoted(d, s, len, 1);
  d->out = save;
}

/* One entry of the JSON constants array. key == NULL: inline. bytes: where they are (in the
   blob at file offset `at` when source is "blob"; in the .ptd; NULL when not at hand). */
static void tpd_json_const(tpd *d, const char *section, size_t index, const char *key,
                           size_t klen, const char *source, uint64_t at,
                           const unsigned char *bytes, uint64_t size) {
  tp_membuf *save = d->out;
  char hex[65];
  if (!d->json) return;
  d->out = d->json;
  tpd_print(d, "%s\n  {\"section\": \"%s\", \"index\": %zu", d->json_count ? "," : "", section,
            index);
  if (key) {
    tpd_print(d, ", \"key\": ");
    tpd_json_str(d, key, klen);
  }
  tpd_print(d, ", \"source\": \"%s\"", source);
  if (!strcmp(source, "blob")) tpd_print(d, ", \"at\": %llu", (unsigned long long)at);
  tpd_print(d, ", \"size\": %llu", (unsigned long long)size);
  if (bytes && tpd_sha_hex(d, bytes, size, hex))
    tpd_print(d, ", \"sha256\": \"%s\"", hex);
  tpd_print(d, "}");
  d->json_count++;
  d->out = save;
}

/* Element i (es bytes, value x) of a list being printed: 'u' unsigned, 'i' signed, 'f' float,
   'b' bool; "[" before the first, ", " between; tpd_print_list_end closes a list of n. */
static void tpd_print_elem(tpd *d, uint32_t i, uint64_t x, unsigned es, char kind) {
  tpd_print(d, i ? ", " : "[");
  if (kind == 'f' && es == 4) tpd_print(d, "%g", (double)tp_fb_bits_f32((uint32_t)x));
  else if (kind == 'f') tpd_print(d, "%g", tp_fb_bits_f64(x));
  else if (kind == 'b') tpd_print(d, "%s", x ? "true" : "false");
  else if (kind == 'i' && es == 4) tpd_print(d, "%ld", (long)(int32_t)(uint32_t)x);
  else if (kind == 'i') tpd_print(d, "%lld", (long long)(int64_t)x);
  else tpd_print(d, "%llu", (unsigned long long)x);
}
static void tpd_print_list_end(tpd *d, uint32_t n) {
  if (n == 0) tpd_print(d, "[");
  if (n > TPD_LIST_MAX) tpd_print(d, ", ... (%lu)", (unsigned long)n);
  tpd_print(d, "]");
}

/* Elements of a scalar vector of the file. */
static void tpd_print_vec(tpd *d, const tp_fb_vector *v, char kind) {
  uint32_t i;
  for (i = 0; i < v->count && i < TPD_LIST_MAX; i++)
    tpd_print_elem(d, i, tp_fb_vector_scalar(v, i), v->elem_size, kind);
  tpd_print_list_end(d, v->count);
}

/* n elements of es bytes at p, little-endian (as a blob stores them), or a host uint32_t array
   (es 0). */
static void tpd_print_le(tpd *d, const void *p, uint32_t n, unsigned es, char kind) {
  const unsigned char *b = (const unsigned char *)p;
  uint32_t i;
  for (i = 0; i < n && i < TPD_LIST_MAX; i++)
    tpd_print_elem(d, i, es == 0 ? ((const uint32_t *)p)[i]
                         : es == 8 ? tp__get_le64(b + 8 * i)
                         : es == 4 ? tp__get_le32(b + 4 * i) : b[i], es ? es : 4, kind);
  tpd_print_list_end(d, n);
}

static const char *tpd_name(const char *const *names, size_t n, unsigned v) {
  return v < n && names[v] ? names[v] : NULL;
}

/* Checks [off, off + n) against the segment and returns its file offset in *at. */
static int tpd_in_segment(const tpd *d, uint64_t off, uint64_t n, uint64_t *at) {
  uint64_t end;
  if (tp__add_u64(off, n, &end) || end > d->seg_size) return 0;
  *at = d->seg_off + off;
  return 1;
}

/* Reads a 30-byte XH00/VH00 delegate header through the delegate core's tp__delegate_parse
   (the checks the upstream parsers make: sizes inside the file, no overlap, length >= 30),
   printing its fields first. */
static int tpd_delegate_header(tpd *d, const char *magic, const char *segname,
                               uint32_t *fb_off, uint32_t *fb_size) {
  tp__delegate_frame f;
  tp_error e;
  tp_status st;
  memset(&e, 0, sizeof e);
  st = tp__delegate_parse(d->file, d->file_size, magic, segname, &f, &e);
  if (d->file_size < TP__DELEGATE_HEADER_SIZE) {
    tpd_fail(d, "%s", e.msg);
    return 0;
  }
  *fb_off = f.flatbuffer_offset;
  *fb_size = f.flatbuffer_size;
  tpd_print(d, "header %s: length %u, flatbuffer offset %lu size %lu, %s offset %lu size %llu\n",
            magic, (unsigned)f.header_size, (unsigned long)f.flatbuffer_offset,
            (unsigned long)f.flatbuffer_size, segname, (unsigned long)f.segment_offset,
            (unsigned long long)f.segment_size);
  if (st != TP_OK) {
    tpd_fail(d, "%s", e.msg);
    return 0;
  }
  d->seg_off = f.segment_offset;
  d->seg_size = f.segment_size;
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* XNNPACK                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* The report prints tp_xnn_read_blob's result, the one reading of the blob: node kinds, tables
   and fields from tensorpack_xnnpack.h's XN01 description (tp_xnn_describe_node). It judges
   nothing: a failed read stops the report where the reader stopped (stop_part / stop_index),
   and the verdict is the library's (tpd_verdict). */
#define TPD_XNN_NODE_KINDS ((unsigned)TP_XNN_NODE_KINDS)

static const char *const tpd_xnn_values[] = {NULL, "tensor", "quantized tensor"};
static const char *const tpd_xnn_quant[] = {NULL, "per_channel", "per_tensor",
                                            "per_token_dynamic", "per_channel_group"};

static void tpd_print_id(tpd *d, uint32_t id) {
  if (id == TPD_NONE) tpd_print(d, "none");
  else tpd_print(d, "%lu", (unsigned long)id);
}

/* One XValue: a tensor value, or a quantized one with its quantization parameters. */
static void tpd_xnn_value(tpd *d, uint32_t i, const tp_xnn_blob_value *v) {
  tpd_print(d, "  [%lu] id_out=%lu %s %s dims=", (unsigned long)i, (unsigned long)v->id_out,
            tpd_xnn_values[v->value_type], tp_xnn_datatype_name(v->datatype));
  if (v->has_dims) tpd_print_le(d, v->dims, v->ndims, 0, 'u');
  else tpd_print(d, "(absent)");
  if (v->constant_buffer_idx) tpd_print(d, " constant=%lu", (unsigned long)v->constant_buffer_idx);
  if (v->flags & (TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT))
    tpd_print(d, " external_id=%lu", (unsigned long)v->external_id);
  if (v->flags)
    tpd_print(d, " flags=0x%lx%s%s", (unsigned long)v->flags,
              v->flags & TP_XNN_FLAG_EXTERNAL_INPUT ? " (input)" : "",
              v->flags & TP_XNN_FLAG_EXTERNAL_OUTPUT ? " (output)" : "");
  if (v->value_type == TP_XNN_VALUE_QUANTIZED) {
    tpd_print(d, " %s", tpd_xnn_quant[v->quant]);
    if (v->quant == TP_XNN_QUANT_PER_TENSOR) {
      tpd_print(d, " scale=%g zero_point=%ld", (double)v->scale, (long)v->zero_point);
    } else if (v->quant == TP_XNN_QUANT_PER_TOKEN_DYNAMIC) {
      tpd_print(d, " num_nonbatch_dims=%ld", (long)v->num_nonbatch_dims);
    } else { /* per channel, per channel group */
      tpd_print(d, " channel_dim=%ld", (long)v->channel_dim);
      if (v->quant == TP_XNN_QUANT_PER_CHANNEL_GROUP)
        tpd_print(d, " group_size=%ld", (long)v->group_size);
      tpd_print(d, " scale_buffer_idx=%lu num_scales=%lu scale=",
                (unsigned long)v->scale_buffer_idx, (unsigned long)v->num_scales);
      if (v->has_inline_scale) tpd_print_le(d, v->inline_scales, v->num_inline_scales, 4, 'f');
      else tpd_print(d, "(absent)");
    }
  }
  tpd_print(d, "\n");
}

static void tpd_xnn_node(tpd *d, uint32_t i, const tp_xnn_blob_node *n) {
  const tp_xnn_node_desc *k = n->desc;
  uint32_t fi;
  tpd_print(d, "  #%lu %s", (unsigned long)i, k->member + 3); /* "XNNAdd" -> "Add" */
  for (fi = 0; fi < k->nfields; fi++) {
    const tp_xnn_field *f = &k->fields[fi];
    uint32_t x = n->f[f->id];
    if (f->role == 'n') continue; /* an unused slot (a concatenate's inputs above its count) */
    tpd_print(d, " %s=", f->name);
    if (f->type == 'f') tpd_print(d, "%g", (double)tp_fb_bits_f32(x));
    else if (f->type == 'v') tpd_print_le(d, n->vec[x], n->vec_len[x], 0, 'u');
    else if (f->type == 'u') tpd_print(d, "%lu", (unsigned long)x);
    else tpd_print_id(d, x);
  }
  if (n->has_debug_handle) tpd_print(d, " debug_handle=%lu", (unsigned long)n->debug_handle);
  if (n->has_output_min_max)
    tpd_print(d, " output_min_max=[%g, %g]", (double)n->output_min, (double)n->output_max);
  tpd_print(d, "\n");
}

/* One constant_data entry: named (its bytes looked up in the --ptd, when given) or inline. */
static void tpd_xnn_constant(tpd *d, uint32_t i, const tp_xnn_blob_constant *c) {
  tp_ptd_entry e;
  uint64_t at;
  tpd_print(d, "  [%lu] ", (unsigned long)i);
  if (c->named_key) {
    int found = d->ptd && tp_ptd_find(d->ptd, c->named_key, &e) == TP_OK;
    tpd_print(d, "named_key=");
    tpd_print_str(d, c->named_key, c->named_key_len);
    if (c->offset == UINT64_MAX) tpd_print(d, " offset=none");
    else tpd_print(d, " offset=%llu (ignored: named)", (unsigned long long)c->offset);
    tpd_print(d, " size=%llu", (unsigned long long)c->size);
    if (found) {
      tpd_print(d, " in .ptd:");
      tpd_print_sha(d, (const unsigned char *)e.data, e.nbytes);
    }
    tpd_print(d, "\n");
    tpd_json_const(d, "constant_data", i, c->named_key, c->named_key_len,
                   found ? "ptd" : "unresolved", 0,
                   found ? (const unsigned char *)e.data : NULL, found ? e.nbytes : c->size);
    return;
  }
  tpd_print(d, "offset=%llu size=%llu", (unsigned long long)c->offset,
            (unsigned long long)c->size);
  if (tpd_in_segment(d, c->offset, c->size, &at)) {
    tpd_print(d, " at=%llu", (unsigned long long)at);
    tpd_print_sha(d, d->file + at, c->size);
    tpd_json_const(d, "constant_data", i, NULL, 0, "blob", at, d->file + at, c->size);
  }
  tpd_print(d, "\n");
}

/* A read XNNPACK blob's named constants resolved in ptd as the loader resolves them: the key
   there, with the bytes the blob says. */
static tp_status tpd_xnn_keys(const tp_xnn_blob *xb, tp_ptd *ptd, tp_error *e) {
  tp_status s = TP_OK;
  uint32_t i;
  for (i = 0; s == TP_OK && i < xb->num_constants; i++) {
    const tp_xnn_blob_constant *c = &xb->constants[i];
    tp_ptd_entry en;
    if (!c->named_key) continue;
    if (tp_ptd_find(ptd, c->named_key, &en) != TP_OK)
      s = tp__error_set(e, TP_ERR_FORMAT, "constant_data[%lu]: named_key \"%.80s\" is not in "
                        "the .ptd", (unsigned long)i, c->named_key);
    else if ((uint64_t)en.nbytes != c->size)
      s = tp__error_set(e, TP_ERR_FORMAT, "constant_data[%lu]: named_key \"%.80s\" has %llu "
                        "bytes in the .ptd, the blob says %llu", (unsigned long)i, c->named_key,
                        (unsigned long long)en.nbytes, (unsigned long long)c->size);
  }
  return s;
}

/* How many entries of part the report shows: all, those before a failed read's stop, or none
   past it. */
static uint32_t tpd_xnn_shown(const tp_xnn_blob *b, int part, uint32_t n) {
  if (b->stop_part == TP_XNN_PART_NONE || b->stop_part > part) return n;
  return b->stop_part == part ? b->stop_index : 0;
}

static void tpd_xnnpack(tpd *d) {
  tp_xnn_blob b;
  tp_error e;
  uint32_t i, n;
  tp_status s = tp_xnn_read_blob(d->file, d->file_size, &b, &e);
  if (s == TP_OK && d->ptd) s = tpd_xnn_keys(&b, d->ptd, &e);
  d->verdict = e; /* tpd_xnn_verdict's, from this one read */
  d->have_verdict = 1;
  if (s == TP_ERR_NOMEM) tp__error_set(&d->err, TP_ERR_NOMEM, "%s", e.msg);
  if (b.stop_part == TP_XNN_PART_FLATBUFFER) goto done; /* the verdict says why */
  d->seg_off = b.has_header ? b.frame.segment_offset : 0;
  d->seg_size = b.segment_size;
  tpd_print(d, "flatbuffer %s (XNNGraph): %zu bytes, version ", b.identifier, b.flatbuffer_size);
  tpd_print_str(d, b.version, b.version_len);
  tpd_print(d, ", num_externs %lu, %lu values, %lu nodes, %lu constant_data entries\n",
            (unsigned long)b.num_externs, (unsigned long)b.num_values,
            (unsigned long)b.num_nodes, (unsigned long)b.num_constants);
  for (i = 0; i < 2; i++) {
    int part = i ? TP_XNN_PART_OUTPUT_IDS : TP_XNN_PART_INPUT_IDS;
    if (b.stop_part != TP_XNN_PART_NONE && b.stop_part < part) goto done;
    tpd_print(d, "%s: ", i ? "output_ids" : "input_ids");
    if (i ? b.has_output_ids : b.has_input_ids)
      tpd_print_le(d, i ? b.output_ids : b.input_ids, i ? b.num_output_ids : b.num_input_ids, 0,
                   'u');
    else
      tpd_print(d, "(absent)");
    tpd_print(d, "\n");
    if (b.stop_part == part) goto done;
  }
  if (b.stop_part != TP_XNN_PART_NONE && b.stop_part < TP_XNN_PART_VALUES) goto done;
  tpd_print(d, "values:\n");
  n = tpd_xnn_shown(&b, TP_XNN_PART_VALUES, b.num_values);
  for (i = 0; i < n; i++) tpd_xnn_value(d, i, &b.values[i]);
  if (b.stop_part == TP_XNN_PART_VALUES) goto done;
  tpd_print(d, "nodes:\n");
  n = tpd_xnn_shown(&b, TP_XNN_PART_NODES, b.num_nodes);
  for (i = 0; i < n; i++) tpd_xnn_node(d, i, &b.nodes[i]);
  if (b.stop_part == TP_XNN_PART_NODES) goto done;
  tpd_print(d, "constant_data: %lu entries, segment at %llu, %llu bytes\n",
            (unsigned long)b.num_constants, (unsigned long long)d->seg_off,
            (unsigned long long)d->seg_size);
  n = tpd_xnn_shown(&b, TP_XNN_PART_CONSTANTS, b.num_constants);
  for (i = 0; i < n; i++) tpd_xnn_constant(d, i, &b.constants[i]);
done:
  tp_xnn_blob_free(&b);
}

/* ------------------------------------------------------------------------------------------ */
/* Vulkan                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* The report of a Vulkan blob prints tp_vk_read_blob's result (the library's one reading of
   VK00, every rule of it applied there; named constants resolved in d->ptd when given): names
   through tp_vk_*_name, nothing checked here. A blob the reader refuses gets its sentence. */

/* One VkBytes entry of constants (what = "constants") or shaders. */
static void tpd_vk_bytes(tpd *d, const tp_vk_blob_bytes *b, uint32_t i, const char *what) {
  uint64_t at;
  tpd_print(d, "  [%lu] ", (unsigned long)i);
  if (b->named) {
    tpd_print(d, "named_key=");
    tpd_print_str(d, b->named_key, b->named_key_len);
    tpd_print(d, " length=%llu", (unsigned long long)b->length);
    if (d->ptd) { /* the reader found it there with length bytes */
      tpd_print(d, " in .ptd:");
      tpd_print_sha(d, b->data, b->length);
    }
    tpd_print(d, "\n");
    tpd_json_const(d, what, i, b->named_key, b->named_key_len, d->ptd ? "ptd" : "unresolved",
                   0, d->ptd ? b->data : NULL, b->length);
    return;
  }
  tpd_print(d, "offset=%llu length=%llu", (unsigned long long)b->offset,
            (unsigned long long)b->length);
  if (b->named_key) {
    tpd_print(d, " named_key=");
    tpd_print_str(d, b->named_key, b->named_key_len);
    tpd_print(d, " (ignored: offset is not UINT64_MAX)");
  }
  at = d->seg_off + b->offset;
  tpd_print(d, " at=%llu", (unsigned long long)at);
  tpd_print_sha(d, d->file + at, b->length);
  tpd_print(d, "\n");
  tpd_json_const(d, what, i, NULL, 0, "blob", at, d->file + at, b->length);
}

static void tpd_vk_value(tpd *d, uint32_t i, const tp_vk_blob_value *v) {
  const char *kind = v->type == TP_VK_TENSOR_VALUE ? "Tensor" /* VkTensor, printed short */
                                                   : tp_vk_value_kind_name(v->type);
  tpd_print(d, "  [%lu] %s", (unsigned long)i, kind);
  switch (v->type) {
    case TP_VK_INT_VALUE: tpd_print(d, " %lld", (long long)v->i); break;
    case TP_VK_DOUBLE_VALUE: tpd_print(d, " %g", v->d); break;
    case TP_VK_BOOL_VALUE: tpd_print(d, " %s", v->i ? "true" : "false"); break;
    case TP_VK_SYMINT_VALUE: tpd_print(d, " %ld", (long)v->i); break;
    case TP_VK_STRING_VALUE:
      tpd_print(d, " ");
      tpd_print_str(d, v->str, v->str_len);
      break;
    case TP_VK_TENSOR_VALUE: {
      const char *sdn = tp_vk_datatype_name(v->staging_datatype);
      tpd_print(d, " %s dims=", tp_vk_datatype_name(v->datatype));
      tpd_print_le(d, v->dims, v->ndim, 0, 'u');
      tpd_print(d, " constant_id=%ld mem_obj_id=%ld storage=%s layout=%s staging=%s",
                (long)v->constant_id, (long)v->mem_obj_id,
                tp_vk_storage_type_name(v->storage_type),
                tp_vk_memory_layout_name(v->memory_layout), sdn);
      break;
    }
    case TP_VK_INT_LIST_VALUE:
    case TP_VK_DOUBLE_LIST_VALUE:
    case TP_VK_BOOL_LIST_VALUE:
    case TP_VK_VALUE_LIST_VALUE:
      tpd_print(d, " ");
      if (v->items)
        tpd_print_le(d, v->items, v->count, v->item_size,
                     v->type == TP_VK_DOUBLE_LIST_VALUE ? 'f'
                     : v->type == TP_VK_BOOL_LIST_VALUE ? 'b' : 'i');
      else tpd_print(d, "(absent)");
      break;
    default: break;
  }
  tpd_print(d, "\n");
}

static void tpd_vk_ids(tpd *d, const char *name, const uint32_t *ids, uint32_t n) {
  tpd_print(d, "%s: ", name);
  tpd_print_le(d, ids, n, 0, 'u');
  tpd_print(d, "\n");
}

static void tpd_vulkan(tpd *d) {
  tp_vk_blob b;
  tp_error e;
  uint32_t i;
  if (tp_vk_read_blob(d->file, d->file_size, d->ptd, &b, &e) != TP_OK) {
    d->err = e;
    return;
  }
  tpd_print(d, "flatbuffer VK00 (VkGraph): %zu bytes, version ", b.flatbuffer_size);
  tpd_print_str(d, b.version, b.version_len);
  tpd_print(d, ", %lu values, %lu ops, %lu constants, %lu shaders", (unsigned long)b.num_values,
            (unsigned long)b.num_ops, (unsigned long)b.num_constants,
            (unsigned long)b.num_shaders);
  if (b.storage_type_override != TP_VK_D_VkGraph_storage_type_override)
    tpd_print(d, ", storage_type_override %u (ExecuTorch ignores it)",
              (unsigned)b.storage_type_override);
  if (b.memory_layout_override != TP_VK_D_VkGraph_memory_layout_override)
    tpd_print(d, ", memory_layout_override %u (ExecuTorch ignores it)",
              (unsigned)b.memory_layout_override);
  tpd_print(d, "\n");
  tpd_vk_ids(d, "input_ids", b.input_ids, b.num_input_ids);
  tpd_vk_ids(d, "output_ids", b.output_ids, b.num_output_ids);
  tpd_print(d, "values:\n");
  for (i = 0; i < b.num_values; i++) tpd_vk_value(d, i, &b.values[i]);
  tpd_print(d, "chain:\n");
  for (i = 0; i < b.num_ops; i++) {
    const tp_vk_blob_op *op = &b.ops[i];
    tpd_print(d, "  #%lu node_id=%lu ", (unsigned long)i, (unsigned long)op->node_id);
    tpd_print_str(d, op->name, op->name_len);
    tpd_print(d, " args=");
    tpd_print_le(d, op->args, op->num_args, 4, 'i');
    if (op->op_index < 0)
      tpd_print(d, " (not an operator ExecuTorch's Vulkan backend registers: it aborts there)");
    tpd_print(d, "\n");
  }
  tpd_print(d, "constants: %lu entries, bytes segment at %llu, %llu bytes\n",
            (unsigned long)b.num_constants, (unsigned long long)d->seg_off,
            (unsigned long long)d->seg_size);
  for (i = 0; i < b.num_constants; i++) tpd_vk_bytes(d, &b.constants[i], i, "constants");
  tpd_print(d, "shaders: %lu entries\n", (unsigned long)b.num_shaders);
  for (i = 0; i < b.num_shaders; i++) tpd_vk_bytes(d, &b.shaders[i], i, "shaders");
  tp_vk_blob_free(&b);
}

/* ------------------------------------------------------------------------------------------ */
/* .ptd (FlatTensor)                                                                           */
/* ------------------------------------------------------------------------------------------ */

static const char *tpd_scalar_type(int v) {
  static const char *const names[] = {"BYTE", "CHAR", "SHORT", "INT", "LONG", "HALF", "FLOAT",
    "DOUBLE", NULL, NULL, NULL, "BOOL", "QINT8", "QUINT8", "QINT32", "BFLOAT16", "QUINT4X2",
    "QUINT2X4", NULL, NULL, NULL, NULL, "BITS16", "FLOAT8E5M2", "FLOAT8E4M3FN",
    "FLOAT8E5M2FNUZ", "FLOAT8E4M3FNUZ", "UINT16", "UINT32", "UINT64"};
  return v >= 0 ? tpd_name(names, sizeof names / sizeof names[0], (unsigned)v) : NULL;
}

static void tpd_ptd(tpd *d) {
  tp_ptd p;
  tp_fb_table root;
  tp_fb_vector segs;
  uint64_t fb_end;
  size_t i;
  tp_status s;
  memset(&p, 0, sizeof p);
  s = tp_ptd_open(&p, d->file, d->file_size);
  if (s != TP_OK) {
    tp__error_set(&d->err, s == TP_ERR_NOMEM ? s : TP_ERR_FORMAT, ".ptd: %s",
                 p.err.msg[0] ? p.err.msg : tp_status_str(s));
    return;
  }
  tpd_print(d, "header FH01: length %lu, flatbuffer offset %llu size %llu, segment base %llu "
            "size %llu\n", (unsigned long)tp__get_le32(d->file + 12),
            (unsigned long long)p.flatbuffer_offset, (unsigned long long)p.flatbuffer_size,
            (unsigned long long)p.segment_base, (unsigned long long)p.segment_data_size);
  tpd_print(d, "flatbuffer FT01 (FlatTensor): version %lu, %zu named entries\n",
            (unsigned long)p.version, p.count);
  /* the segment table, read again here to print it; tp_ptd_open has checked that the
     flatbuffer and the segment data lie inside the file, and every entry's bytes inside the
     segment data */
  d->seg_off = p.segment_base;
  d->seg_size = p.segment_data_size;
  fb_end = p.flatbuffer_offset + p.flatbuffer_size;
  if (tp_fb_reader_init(&d->r, d->file, (size_t)fb_end, "FT01", &root) != TP_OK) {
    tpd_reader_ok(d, "FlatTensor flatbuffer");
    return;
  }
  segs = tp_fb_vector_field(&root, 1, 4);
  if (!tpd_reader_ok(d, "FlatTensor segments")) return;
  tpd_print(d, "segments: %lu\n", (unsigned long)segs.count);
  for (i = 0; i < segs.count; i++) {
    tp_fb_table sg = tp_fb_vector_table(&segs, i);
    uint64_t off = tp_fb_u64(&sg, 0, 0), n = tp_fb_u64(&sg, 1, 0), at;
    if (!tpd_reader_ok(d, "segments[%zu]", i)) return;
    tpd_print(d, "  [%zu] offset=%llu size=%llu", i, (unsigned long long)off,
              (unsigned long long)n);
    if (!tpd_in_segment(d, off, n, &at)) {
      tpd_print(d, "\n");
      tpd_fail(d, ".ptd segments[%zu]: [%llu, +%llu) is outside the %llu bytes of segment data", i,
               (unsigned long long)off, (unsigned long long)n, (unsigned long long)d->seg_size);
      return;
    }
    tpd_print(d, " at=%llu\n", (unsigned long long)at);
  }
  tpd_print(d, "named_data:\n");
  for (i = 0; i < p.count; i++) {
    tp_ptd_entry e;
    int k;
    const unsigned char *at;
    s = tp_ptd_entry_at(&p, i, &e);
    if (s != TP_OK) {
      tp__error_set(&d->err, s == TP_ERR_NOMEM ? s : TP_ERR_FORMAT, ".ptd entry %zu: %s", i,
                   p.err.msg[0] ? p.err.msg : tp_status_str(s));
      return;
    }
    at = (const unsigned char *)e.data; /* a key and bytes inside the file: tp_ptd_open checked */
    tpd_print(d, "  [%zu] key=", i);
    tpd_print_str(d, e.key, strlen(e.key));
    tpd_print(d, " segment=%lu at=%zu size=%zu", (unsigned long)e.segment_index,
              (size_t)(at - d->file), e.nbytes);
    tpd_print_sha(d, at, e.nbytes);
    tpd_json_const(d, "named_data", i, e.key, strlen(e.key), "blob", (uint64_t)(at - d->file),
                   at, e.nbytes);
    if (e.has_layout) {
      const char *st = tpd_scalar_type((int)e.dtype);
      tpd_print(d, " layout=%s sizes=[", st ? st : "?");
      for (k = 0; k < e.ndim && k < TP_MAX_DIMS; k++)
        tpd_print(d, "%s%lld", k ? ", " : "", (long long)e.sizes[k]);
      tpd_print(d, "] dim_order=[");
      for (k = 0; k < e.ndim && k < TP_MAX_DIMS; k++)
        tpd_print(d, "%s%u", k ? ", " : "", (unsigned)e.dim_order[k]);
      tpd_print(d, "]");
    }
    tpd_print(d, "\n");
  }
}

/* ------------------------------------------------------------------------------------------ */
/* .pte (ExecuTorch program, ET12)                                                             */
/* ------------------------------------------------------------------------------------------ */

static int tpd_run(tpd *d, const unsigned char *b, size_t size, const void *ptd,
                   size_t ptd_size);
static const char *tpd_format(const unsigned char *b, size_t size);

/* tp_pte_read's or an accessor's failure as d's (sticky) error. */
static int tpd_pte_ok(tpd *d, tp_pte_file *f, tp_status s, const char *what) {
  if (s == TP_OK) return 1;
  tp__error_set(&d->err, TP_ERR_FORMAT, ".pte %s: %s", what,
               f->err.status != TP_OK ? f->err.msg : tp_status_str(s));
  return 0;
}

/* The program's named data as a .ptd in memory (so the blobs' named constants resolve). */
static int tpd_pte_named_ptd(tpd *d, tp_pte_file *f, tp_membuf *ptd) {
  tp_store *st = NULL;
  tp_sink sink;
  size_t i;
  tp_status s = tp_store_create(NULL, &st);
  for (i = 0; s == TP_OK && i < f->n_named; i++) {
    const char *key;
    uint32_t si;
    const void *data;
    uint64_t n;
    s = tp_pte_named_at(f, i, &key, &si, &data, &n);
    if (s == TP_OK) s = tp_store_add_bytes(st, key, data, (size_t)n, 16, 0, NULL);
  }
  if (s == TP_OK) {
    sink = tp_sink_membuf(ptd);
    s = tp_store_write_ptd(st, &sink);
  }
  if (s != TP_OK)
    tp__error_set(&d->err, s == TP_ERR_NOMEM ? s : TP_ERR_FORMAT,
                 ".pte named data as a .ptd: %s", st ? tp_store_error(st) : tp_status_str(s));
  tp_store_destroy(st);
  return s == TP_OK;
}

static void tpd_pte_value(tpd *d, tp_pte_file *f, size_t m, size_t v) {
  tp_pte_value_info vi;
  int k;
  if (!tpd_pte_ok(d, f, tp_pte_value_at(f, m, v, &vi), "value")) return;
  tpd_print(d, "    value %zu: %s", v, tp_pte_value_kind_name(vi.kind));
  if (vi.kind == TP_PTE_V_Tensor) {
    const char *st = tpd_scalar_type(vi.scalar_type);
    tpd_print(d, " %s sizes=[", st ? st : "?");
    for (k = 0; k < vi.ndim; k++) tpd_print(d, "%s%lld", k ? ", " : "", (long long)vi.sizes[k]);
    tpd_print(d, "] dim_order=[");
    for (k = 0; k < vi.ndim; k++) tpd_print(d, "%s%u", k ? ", " : "", (unsigned)vi.dim_order[k]);
    tpd_print(d, "] %llu bytes", (unsigned long long)vi.nbytes);
    if (vi.shape_dynamism) tpd_print(d, " shape_dynamism=%d", vi.shape_dynamism);
    if (vi.planned)
      tpd_print(d, " planned: buffer %lu offset %llu", (unsigned long)vi.memory_id,
                (unsigned long long)vi.memory_offset);
    else if (vi.data_buffer_idx) {
      tpd_print(d, " constant buffer %lu", (unsigned long)vi.data_buffer_idx);
      if (vi.data) tpd_print_sha(d, (const unsigned char *)vi.data, vi.nbytes);
    }
    else
      tpd_print(d, " not planned (set_input / set_output_data_ptr)");
  } else if (vi.kind == TP_PTE_V_Int || vi.kind == TP_PTE_V_Bool) {
    tpd_print(d, " %lld", (long long)vi.i);
  } else if (vi.kind == TP_PTE_V_Double) {
    tpd_print(d, " %g", vi.d);
  }
  tpd_print(d, "\n");
}

static void tpd_pte_io(tpd *d, tp_pte_file *f, size_t m, int out, size_t n) {
  size_t k, v;
  tpd_print(d, "[");
  for (k = 0; k < n; k++) {
    if (!tpd_pte_ok(d, f, tp_pte_io_at(f, m, out, k, &v), "inputs/outputs")) return;
    tpd_print(d, "%s%zu", k ? ", " : "", v);
  }
  tpd_print(d, "]");
}

/* Where delegate k of method m and its compile_specs vector sit in the program (0: absent):
   the memo's keys. */
static void tpd_pte_delegate_pos(tp_pte_file *f, size_t m, size_t k, uint32_t *dpos,
                                 uint32_t *spos) {
  tp_fb_vector plans, dels;
  tp_fb_table plan, del;
  f->root__.r = &f->r__; /* the reader's root and a fresh table count, as tp_pte_read leaves them */
  f->r__.tables = 0;
  plans = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_execution_plan, 4);
  plan = tp_fb_vector_table(&plans, m);
  dels = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_delegates, 4);
  del = tp_fb_vector_table(&dels, k);
  *dpos = del.pos;
  *spos = tp_fb_vector_field(&del, TP_PTE_F_BackendDelegate_compile_specs, 4).pos;
}

static void tpd_pte_method(tpd *d, tp_pte_file *f, size_t m, const tp_membuf *named_ptd,
                           const void *ptd, size_t ptd_size) {
  tp_pte_method_info mi;
  size_t v, c, k, n;
  if (!tpd_pte_ok(d, f, tp_pte_method_at(f, m, &mi), "method")) return;
  tpd_print(d, "method %zu: ", m);
  tpd_print_str(d, mi.name, strlen(mi.name));
  tpd_print(d, ": %zu values, inputs ", mi.n_values);
  tpd_pte_io(d, f, m, 0, mi.n_inputs);
  tpd_print(d, ", outputs ");
  tpd_pte_io(d, f, m, 1, mi.n_outputs);
  tpd_print(d, ", %zu operators, non_const_buffer_sizes [", mi.n_operators);
  for (k = 0; k < mi.n_buffers; k++) {
    uint64_t b = 0;
    tp_pte_buffer_at(f, m, k, &b);
    tpd_print(d, "%s%llu", k ? ", " : "", (unsigned long long)b);
  }
  tpd_print(d, "]\n");
  for (v = 0; v < mi.n_values && tpd_ok(d); v++) tpd_pte_value(d, f, m, v);
  for (c = 0; c < mi.n_chains && tpd_ok(d); c++) {
    if (!tpd_pte_ok(d, f, tp_pte_chain_size(f, m, c, &n), "chain")) return;
    tpd_print(d, "  chain %zu: %zu instructions\n", c, n);
    for (k = 0; k < n; k++) {
      tp_pte_instruction_info ii;
      if (!tpd_pte_ok(d, f, tp_pte_instruction_at(f, m, c, k, &ii), "instruction")) return;
      tpd_print(d, "    [%zu] %s", k, tp_pte_instruction_name(ii.kind));
      if (ii.kind == TP_PTE_I_DelegateCall || ii.kind == TP_PTE_I_KernelCall) {
        const char *on = NULL, *ov = NULL;
        tpd_print(d, " %s=%ld", ii.kind == TP_PTE_I_DelegateCall ? "delegate" : "op",
                  (long)ii.index);
        tp_pte_op op;
        int named = 0;
        if (ii.kind == TP_PTE_I_KernelCall &&
            tp_pte_operator_at(f, m, (size_t)ii.index, &on, &ov) == TP_OK) {
          tpd_print(d, " (%s%s%s)", on, *ov ? "." : "", ov);
          /* a portable kernel with the right count: each value by its argument's name and kind */
          named = tp_pte_op_lookup(on, ov, &op) == TP_OK && ii.args.count == op.num_args + 1;
        }
        if (named) {
          uint32_t a;
          for (a = 0; a <= op.num_args; a++) {
            long long v = (long long)(int32_t)tp_fb_vector_scalar(&ii.args, a);
            if (a == op.num_args)
              tpd_print(d, " return=%lld", v);
            else
              tpd_print(d, " %s:%s%s%s=%lld", op.args[a].name,
                        tp_pte_arg_kind_name(op.args[a].kind), op.args[a].is_list ? "[]" : "",
                        op.args[a].optional ? "?" : "", v);
          }
        } else {
          tpd_print(d, " args=");
          tpd_print_vec(d, &ii.args, 'i');
        }
      } else {
        tpd_print(d, " %ld %ld", (long)ii.index, (long)ii.index2);
      }
      tpd_print(d, "\n");
    }
  }
  for (k = 0; k < mi.n_delegates && tpd_ok(d); k++) {
    tp_pte_delegate_info di;
    size_t s;
    tpd sub;
    uint32_t dpos = 0, spos = 0;
    tpd_seen_item *seen;
    int added;
    if (!tpd_pte_ok(d, f, tp_pte_delegate_at(f, m, k, &di), "delegate")) return;
    tpd_pte_delegate_pos(f, m, k, &dpos, &spos);
    /* one table reached through many offsets: printed once, referred to after */
    seen = tpd_seen_get(d, TPD_SEEN_DELEGATE, dpos, 0, ((uint64_t)m << 32) | k, &added);
    if (seen && !added) {
      tpd_print(d, "  delegate %zu: as method %lu delegate %lu (the same table)\n", k,
                (unsigned long)(seen->v >> 32), (unsigned long)(seen->v & 0xffffffffu));
      continue;
    }
    tpd_print(d, "  delegate %zu: id=", k);
    tpd_print_str(d, di.id, strlen(di.id));
    tpd_print(d, " processed=%s %lu, blob at file offset %llu, %llu bytes",
              di.location == TP_PTE_DATA_SEGMENT ? "SEGMENT" : "INLINE",
              (unsigned long)di.index, (unsigned long long)di.file_offset,
              (unsigned long long)di.nbytes);
    tpd_print_sha(d, (const unsigned char *)di.data, di.nbytes);
    tpd_print(d, "\n");
    seen = spos && di.n_specs ? tpd_seen_get(d, TPD_SEEN_SPECS, spos, 0,
                                             ((uint64_t)m << 32) | k, &added) : NULL;
    if (seen && !added) {
      tpd_print(d, "    compile_specs: as method %lu delegate %lu\n",
                (unsigned long)(seen->v >> 32), (unsigned long)(seen->v & 0xffffffffu));
      di.n_specs = 0;
    }
    for (s = 0; s < di.n_specs; s++) {
      const char *key;
      const void *val;
      size_t nb, b;
      if (!tpd_pte_ok(d, f, tp_pte_compile_spec_at(f, m, k, s, &key, &val, &nb), "compile spec"))
        return;
      tpd_print(d, "    compile_spec ");
      tpd_print_str(d, key, strlen(key));
      tpd_print(d, " = %zu bytes [", nb);
      for (b = 0; b < nb && b < TPD_LIST_MAX; b++)
        tpd_print(d, "%s%02x", b ? " " : "", ((const unsigned char *)val)[b]);
      tpd_print(d, "%s]\n", nb > TPD_LIST_MAX ? " ..." : "");
    }
    /* the blob itself, dumped as tpdump dumps a blob (offsets from the blob's start) */
    if (di.nbytes >= 8 && !memcmp((const unsigned char *)di.data + 4, "ET12", 4)) {
      tpd_fail(d, ".pte method %zu delegate %zu: the blob is itself a program", m, k);
      return;
    }
    if (!tpd_format((const unsigned char *)di.data, (size_t)di.nbytes)) {
      tpd_print(d, "  (delegate %zu's blob is of no format tpdump reads: not dumped)\n", k);
      continue;
    }
    seen = tpd_seen_get(d, TPD_SEEN_BLOB, (uint64_t)(uintptr_t)di.data, di.nbytes,
                        ((uint64_t)m << 32) | k, &added);
    if (seen && !added) {
      tpd_print(d, "  (delegate %zu's blob: as method %lu delegate %lu's, not dumped again)\n",
                k, (unsigned long)(seen->v >> 32), (unsigned long)(seen->v & 0xffffffffu));
      continue;
    }
    tpd_print(d, "  --- delegate %zu's blob (offsets below count from its first byte) ---\n", k);
    memset(&sub, 0, sizeof sub);
    sub.out = d->out;
    sub.seen = d->seen;
    sub.json = d->json;
    sub.json_count = d->json_count;
    if (ptd)
      tpd_run(&sub, (const unsigned char *)di.data, (size_t)di.nbytes, ptd, ptd_size);
    else
      tpd_run(&sub, (const unsigned char *)di.data, (size_t)di.nbytes,
              named_ptd->size ? named_ptd->data : NULL, named_ptd->size);
    d->json_count = sub.json_count;
    if (sub.oom) d->oom = 1;
    if (sub.err.status != TP_OK) {
      tp__error_set(&d->err, sub.err.status, ".pte method %zu delegate %zu's blob: %s", m, k,
                   sub.err.msg);
      return;
    }
    tpd_print(d, "  --- end of delegate %zu's blob ---\n", k);
  }
}

static void tpd_pte(tpd *d, const void *ptd, size_t ptd_size) {
  tp_pte_file f;
  tp_membuf named_ptd;
  size_t i;
  if (!tpd_pte_ok(d, &f, tp_pte_read(&f, d->file, d->file_size), "file")) return;
  if (f.has_extended_header)
    tpd_print(d, "header eh00: length %lu, program size %llu, segment base %llu, segment data "
              "size %llu\n", (unsigned long)tp__get_le32(d->file + 12),
              (unsigned long long)f.program_size, (unsigned long long)f.segment_base,
              (unsigned long long)f.segment_data_size);
  else
    tpd_print(d, "no eh00 header (no segments)\n");
  tpd_print(d, "flatbuffer ET12 (Program): version %lu, %zu methods, %zu segments, %zu named "
            "data, %zu inline delegate data\n", (unsigned long)f.version, f.n_methods,
            f.n_segments, f.n_named, f.n_inline);
  tpd_print(d, "segments:\n");
  for (i = 0; i < f.n_segments; i++) {
    uint64_t off, sz;
    if (!tpd_pte_ok(d, &f, tp_pte_segment_at(&f, i, &off, &sz), "segment")) return;
    tpd_print(d, "  [%zu] offset=%llu size=%llu at=%llu\n", i, (unsigned long long)off,
              (unsigned long long)sz, (unsigned long long)(f.segment_base + off));
  }
  tpd_print(d, "named_data:%s\n", f.n_named ? "" : " none");
  for (i = 0; i < f.n_named; i++) {
    const char *key;
    uint32_t si;
    const void *data;
    uint64_t n, at;
    if (!tpd_pte_ok(d, &f, tp_pte_named_at(&f, i, &key, &si, &data, &n), "named data")) return;
    at = (uint64_t)((const unsigned char *)data - d->file);
    tpd_print(d, "  [%zu] key=", i);
    tpd_print_str(d, key, strlen(key));
    tpd_print(d, " segment=%lu at=%llu size=%llu", (unsigned long)si, (unsigned long long)at,
              (unsigned long long)n);
    tpd_print_sha(d, (const unsigned char *)data, n);
    tpd_print(d, "\n");
    tpd_json_const(d, "named_data", i, key, strlen(key), "blob", at,
                   (const unsigned char *)data, n);
  }
  memset(&named_ptd, 0, sizeof named_ptd);
  if (!ptd && f.n_named && !tpd_pte_named_ptd(d, &f, &named_ptd)) return;
  for (i = 0; i < f.n_methods && tpd_ok(d); i++)
    tpd_pte_method(d, &f, i, &named_ptd, ptd, ptd_size);
  tp_membuf_free(&named_ptd);
}

/* ------------------------------------------------------------------------------------------ */
/* Entry points                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* "xnnpack", "vulkan", "ptd" by the identifier at bytes 4..7, or NULL. */
static const char *tpd_format(const unsigned char *b, size_t size) {
  static const char *const ids[] = {"XH00", "XN01", "XN00", "VH00", "VK00", "FT01", "ET12"};
  static const char *const fmts[] = {"xnnpack", "xnnpack", "xnnpack", "vulkan", "vulkan", "ptd",
                                     "pte"};
  size_t i;
  for (i = 0; b && size >= 8 && i < 7; i++)
    if (!memcmp(b + 4, ids[i], 4)) return fmts[i];
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The verdict: the library's own check of each format                                        */
/* ------------------------------------------------------------------------------------------ */

/* An XNNPACK blob's verdict: tp_xnn_read_blob's (its structure and format rules, which is
   tp_xnn_check_blob's with TP_XNN_TARGET_UNCHECKED), then with ptd its named keys. */
static tp_status tpd_xnn_verdict(const unsigned char *b, size_t size, tp_ptd *ptd, tp_error *e) {
  tp_xnn_blob xb;
  tp_status s = tp_xnn_read_blob(b, size, &xb, e);
  if (s == TP_OK && ptd) s = tpd_xnn_keys(&xb, ptd, e);
  tp_xnn_blob_free(&xb);
  return s;
}

/* The file's verdict by the library: tp_xnn_check_blob (structure and format; the node and
   graph rules are exit status 3, main below), tp_vk_check_blob, tp_ptd_open, tp_pte_read and
   then each delegate's blob by its own format's check (named constants resolved in the
   program's named data, or in ptd). ptd: the --ptd file, opened, or NULL. Returns TP_OK, a
   status with the sentence in *e, or -1 when the file is of no format (tpdump's own sentence
   then). */
static int tpd_verdict(const unsigned char *b, size_t size, tp_ptd *ptd, tp_error *e) {
  const char *fmt = tpd_format(b, size);
  tp_status s;
  memset(e, 0, sizeof *e);
  if (!fmt) return -1;
  if (fmt[0] == 'x') {
    return (int)tpd_xnn_verdict(b, size, ptd, e);
  }
  if (fmt[0] == 'v') return (int)tp_vk_check_blob(b, size, ptd, e);
  if (!strcmp(fmt, "ptd")) {
    tp_ptd p;
    memset(&p, 0, sizeof p);
    s = tp_ptd_open(&p, b, size);
    if (s != TP_OK)
      tp__error_set(e, s == TP_ERR_NOMEM ? s : TP_ERR_FORMAT, ".ptd: %s",
                    p.err.msg[0] ? p.err.msg : tp_status_str(s));
    return s == TP_OK ? 0 : (int)e->status;
  } else {
    tp_pte_file f;
    tp_membuf named;
    tp_ptd np;
    tpd scratch;
    size_t m, k;
    s = tp_pte_read(&f, b, size);
    if (s != TP_OK) {
      tp__error_set(e, TP_ERR_FORMAT, ".pte file: %s",
                    f.err.status != TP_OK ? f.err.msg : tp_status_str(s));
      return (int)e->status;
    }
    memset(&named, 0, sizeof named);
    memset(&scratch, 0, sizeof scratch);
    memset(&np, 0, sizeof np);
    if (!ptd && f.n_named) {
      if (!tpd_pte_named_ptd(&scratch, &f, &named)) {
        *e = scratch.err;
        return (int)e->status;
      }
      if (tp_ptd_open(&np, named.data, named.size) != TP_OK) {
        tp__error_set(e, TP_ERR_FORMAT, ".pte named data as a .ptd: %s", np.err.msg);
        tp_membuf_free(&named);
        return (int)e->status;
      }
      ptd = &np;
    }
    s = TP_OK;
    for (m = 0; s == TP_OK && m < f.n_methods; m++) {
      tp_pte_method_info mi;
      if (tp_pte_method_at(&f, m, &mi) != TP_OK) break;
      for (k = 0; s == TP_OK && k < mi.n_delegates; k++) {
        tp_pte_delegate_info di;
        const unsigned char *blob;
        tp_error de;
        int r;
        if (tp_pte_delegate_at(&f, m, k, &di) != TP_OK) break;
        blob = (const unsigned char *)di.data;
        if (di.nbytes >= 8 && !memcmp(blob + 4, "ET12", 4)) {
          s = tp__error_set(e, TP_ERR_FORMAT, ".pte method %zu delegate %zu: the blob is itself "
                            "a program", m, k);
          break;
        }
        /* the backend's own format by its id (ExecuTorch hands the blob to that backend),
           else by the blob's identifier; a blob of no format tpdump knows is not judged */
        if (!strcmp(di.id, "XnnpackBackend")) {
          r = (int)tpd_xnn_verdict(blob, (size_t)di.nbytes, ptd, &de);
        } else if (!strcmp(di.id, "VulkanBackend")) {
          r = (int)tp_vk_check_blob(blob, (size_t)di.nbytes, ptd, &de);
        } else {
          r = tpd_verdict(blob, (size_t)di.nbytes, ptd, &de);
        }
        if (r > 0)
          s = tp__error_set(e, (tp_status)r, ".pte method %zu delegate %zu's blob: %s", m, k,
                            de.msg);
      }
    }
    tp_membuf_free(&named);
    return (int)s;
  }
}

/* Runs the inspection on a prepared d (out / json set); returns 0, 1 or 2 as below. */
static int tpd_run_body(tpd *d, const unsigned char *b, size_t size, const void *ptd,
                        size_t ptd_size);
/* The report and the verdict of one file (or of a delegate's blob, with the program's memo). A
   report that could not grow is exit status 1, whatever the verdict. */
static int tpd_run(tpd *d, const unsigned char *b, size_t size, const void *ptd,
                   size_t ptd_size) {
  tpd_seen own;
  int rc, mine = d->seen == NULL;
  if (mine) {
    memset(&own, 0, sizeof own);
    own.hk = tp__hash_seed(&own);
    own.hash_cap = 8 * ((uint64_t)size + ptd_size) + ((uint64_t)1 << 20);
    d->seen = &own;
  }
  rc = tpd_run_body(d, b, size, ptd, ptd_size);
  if (d->oom) {
    d->err.status = TP_OK; /* the report's sentence replaces whatever stuck first */
    tp__error_set(&d->err, TP_ERR_NOMEM, "out of memory for the report (%zu bytes printed)",
                  d->out ? d->out->size : (size_t)0);
    rc = 1;
  }
  if (mine) {
    TP_FREE(own.items);
    tp__keyset_free(&own.set);
    d->seen = NULL;
  }
  return rc;
}

static int tpd_run_body(tpd *d, const unsigned char *b, size_t size, const void *ptd,
                        size_t ptd_size) {
  tp_ptd p;
  const char *fmt = tpd_format(b, size);
  d->file = b;
  d->file_size = size;
  if (ptd) {
    tp_status s;
    memset(&p, 0, sizeof p);
    s = tp_ptd_open(&p, ptd, ptd_size);
    if (s != TP_OK) {
      tp__error_set(&d->err, s == TP_ERR_NOMEM ? s : TP_ERR_FORMAT, "the --ptd file: %s",
                   p.err.msg[0] ? p.err.msg : tp_status_str(s));
      return s == TP_ERR_NOMEM ? 1 : 2;
    }
    d->ptd = &p;
  }
  if (size < 8 || !b) {
    tpd_fail(d, "%zu bytes: too short for any blob (an identifier sits at bytes 4..7)", size);
  } else if (!memcmp(b + 4, "XH00", 4) || !memcmp(b + 4, "VH00", 4)) {
    int xnn = b[4] == 'X';
    uint32_t fb_off = 0, fb_size = 0;
    tpd_print(d, "%s delegate blob: %zu bytes\n", xnn ? "XNNPACK" : "Vulkan", size);
    if (tpd_delegate_header(d, xnn ? "XH00" : "VH00", xnn ? "constant data" : "bytes",
                            &fb_off, &fb_size)) {
      if (xnn) tpd_xnnpack(d);
      else tpd_vulkan(d);
    }
  } else if (fmt && fmt[0] == 'x') {
    tpd_print(d, "XNNPACK flatbuffer without XH00 header (no constant segment): %zu bytes\n",
              size);
    tpd_xnnpack(d);
  } else if (fmt && fmt[0] == 'v') {
    tpd_print(d, "Vulkan flatbuffer without VH00 header (no bytes segment): %zu bytes\n", size);
    tpd_vulkan(d);
  } else if (fmt && !strcmp(fmt, "pte")) {
    tpd_print(d, ".pte (ExecuTorch program) file: %zu bytes\n", size);
    d->ptd = NULL;
    tpd_pte(d, ptd, ptd_size);
  } else if (fmt) {
    tpd_print(d, ".ptd (FlatTensor) file: %zu bytes\n", size);
    tpd_ptd(d);
  } else {
    char id[4 * 4 + 1];
    size_t i;
    for (i = 0; i < 4; i++) {
      unsigned char c = b[4 + i];
      if (c >= 0x20 && c < 0x7f) { id[i] = (char)c; id[i + 1] = '\0'; }
      else { id[0] = '\0'; break; }
    }
    if (i < 4) snprintf(id, sizeof id, "%02x %02x %02x %02x", b[4], b[5], b[6], b[7]);
    tpd_fail(d, "unknown format: bytes 4..7 are \"%s\" (want XH00, XN01, XN00, VH00, VK00, "
             "FT01 or ET12)", id);
  }
  { /* the verdict is the library's (tpd_verdict); what the printer found is the detail */
    tp_error v;
    int r;
    if (d->have_verdict) { /* the report's own read gave it */
      v = d->verdict;
      r = (int)v.status;
    } else {
      r = tpd_verdict(b, size, d->ptd, &v);
    }
    d->print_err = d->err;
    if (r >= 0) {
      /* refused by both: the printer's sentence (it names where it stopped); else the
         library's */
      if (r == 0 || d->print_err.status == TP_OK) d->err = v;
      if (r == 0 && d->print_err.status != TP_OK)
        tpd_print(d, "(the report stops here: %s; the library's check accepts the file)\n",
                  d->print_err.msg);
    }
  }
  d->ptd = NULL;
  if (d->err.status == TP_OK) return 0;
  return d->err.status == TP_ERR_NOMEM ? 1 : 2;
}

/* Inspects size bytes at data (kept 16-aligned by the caller for .ptd files). The report is
   appended to *out unless out is NULL (check only). ptd (may be NULL) is a .ptd file in memory
   that named constants are resolved in. Returns 0 when the bytes are well formed, 2 when they
   are malformed and 1 when memory ran out; *err (may be NULL) receives the reason. Never
   reads outside [data, data + size) and [ptd, ptd + ptd_size). */
static int tpdump_inspect_with(const void *data, size_t size, const void *ptd, size_t ptd_size,
                               tp_membuf *out, tp_error *err) {
  tpd d;
  int rc;
  memset(&d, 0, sizeof d);
  d.out = out;
  rc = tpd_run(&d, (const unsigned char *)data, size, ptd, ptd_size);
  if (err) *err = d.err;
  return rc;
}

/* The same without a .ptd (named constants are printed, not resolved). */
static int tpdump_inspect(const void *data, size_t size, tp_membuf *out, tp_error *err) {
  return tpdump_inspect_with(data, size, NULL, 0, out, err);
}

/* The same check; appends the JSON document described at the top of the file to *json. */
static int tpdump_inspect_json(const void *data, size_t size, const void *ptd, size_t ptd_size,
                               tp_membuf *json, tp_error *err) {
  tpd d, w;
  tp_membuf consts;
  const char *fmt = tpd_format((const unsigned char *)data, size);
  int rc;
  memset(&d, 0, sizeof d);
  memset(&consts, 0, sizeof consts);
  d.json = &consts;
  rc = tpd_run(&d, (const unsigned char *)data, size, ptd, ptd_size);
  memset(&w, 0, sizeof w);
  w.out = json;
  w.json = json;
  if (fmt) tpd_print(&w, "{\"format\": \"%s\", ", fmt);
  else tpd_print(&w, "{\"format\": null, ");
  tpd_print(&w, "\"size\": %zu, \"ok\": %s, \"error\": ", size, rc == 0 ? "true" : "false");
  if (rc == 0) tpd_print(&w, "null");
  else tpd_json_str(&w, d.err.msg, strlen(d.err.msg));
  tpd_print(&w, ",\n\"constants\": [");
  tpd_write(&w, consts.data ? (const char *)consts.data : "", consts.size);
  tpd_print(&w, "%s]}\n", d.json_count ? "\n" : "");
  tp_membuf_free(&consts);
  if (w.err.status != TP_OK) {       /* out of memory while writing the document */
    if (err) *err = w.err;
    return 1;
  }
  if (err) *err = d.err;
  return rc;
}

#ifndef TPDUMP_NO_MAIN
static int tpd_usage(void) {
  fprintf(stderr, "usage: tpdump [--check | --json] FILE [--ptd DATA.ptd]\n"
                  "Prints and checks an XNNPACK blob (XH00/XN01), a Vulkan blob (VH00/VK00), a "
                  ".ptd or a .pte file;\n--check prints one ok line (and the keys a .pte needs from a .ptd), --json prints the result and the constants "
                  "as JSON,\n--ptd resolves named constants in a .ptd.\n"
                  "Exit status: 0 well formed, 2 malformed, 1 usage or I/O error, 3 an XNNPACK blob "
                  "that breaks a rule of the writer (for ExecuTorch's runtime).\n");
  return 1;
}

/* The whole file (path "-" = stdin) in memory from TP_MALLOC (16-aligned on the usual
   platforms, as the .ptd reader wants); NULL on failure after saying why. */
static unsigned char *tpd_read_file(const char *path, size_t *size_out) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  unsigned char *data = NULL;
  size_t size = 0, cap = 0;
  int failed = 0;
  if (!f) {
    fprintf(stderr, "tpdump: cannot open %s\n", path);
    return NULL;
  }
  for (;;) {
    size_t got;
    if (size == cap && tp__array_reserve((void **)&data, &cap, cap ? cap * 2 : 65536, 1) != TP_OK) {
      fprintf(stderr, "tpdump: %s: out of memory\n", path);
      failed = 1;
      break;
    }
    got = fread(data + size, 1, cap - size, f);
    size += got;
    if (got == 0) break;
  }
  if (!failed && ferror(f)) {
    fprintf(stderr, "tpdump: %s: read error\n", path);
    failed = 1;
  }
  if (f != stdin) fclose(f);
  if (failed) {
    TP_FREE(data);
    return NULL;
  }
  *size_out = size;
  return data;
}

/* --check's report of a well-formed file: "ok: <kind>, <size> bytes"; for a program, the
   named keys its XNNPACK and Vulkan delegates use that neither its named data nor --ptd holds
   (tp_xnn_pte_missing_keys and tp_vk_pte_missing_keys in one list): ExecuTorch's runtime needs
   a .ptd with them. Returns 0, or 1 when memory ran out. */
static int tpd_check_report(const unsigned char *data, size_t size, const unsigned char *ptd,
                            size_t ptd_size) {
  static const tp__pte_backend_keys bk[2] = {{"XnnpackBackend", tp__xnn_blob_keys},
                                             {"VulkanBackend", tp__vk_blob_keys}};
  const char *fmt = tpd_format(data, size);
  const char *kind = !fmt ? "?" : fmt[0] == 'x' ? "XNNPACK blob" : fmt[0] == 'v' ? "Vulkan blob"
                   : !strcmp(fmt, "ptd") ? ".ptd" : ".pte";
  printf("ok: %s, %zu bytes\n", kind, size);
  if (fmt && !strcmp(fmt, "pte")) {
    tp_pte_file f;
    tp_ptd p;
    tp_error e;
    const char **keys;
    size_t n = 0, i;
    tp_ptd *pp = ptd ? &p : NULL;
    memset(&p, 0, sizeof p);
    if (tp_pte_read(&f, data, size) != TP_OK || (ptd && tp_ptd_open(&p, ptd, ptd_size) != TP_OK) ||
        tp__pte_missing_keys("tpdump", &f, (size_t)-1, pp, bk, 2, NULL, 0, &n, &e) != TP_OK)
      return 0; /* the verdict accepted it: nothing more to say */
    if (n == 0) return 0;
    keys = (const char **)TP_MALLOC(n * sizeof *keys);
    if (!keys ||
        tp__pte_missing_keys("tpdump", &f, (size_t)-1, pp, bk, 2, keys, n, &n, &e) != TP_OK) {
      TP_FREE((void *)keys);
      fprintf(stderr, "tpdump: out of memory listing %zu keys\n", n);
      return 1;
    }
    printf("needs a .ptd with these keys (%zu, not embedded%s):\n", n, ptd ? " nor in --ptd" : "");
    for (i = 0; i < n; i++) printf("  %s\n", keys[i]);
    TP_FREE((void *)keys);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *path = NULL, *ptd_path = NULL;
  int check = 0, json = 0, i, rc;
  unsigned char *data, *ptd = NULL;
  size_t size = 0, ptd_size = 0;
  tp_membuf out;
  tp_error err;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--ptd") && i + 1 < argc && !ptd_path) ptd_path = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) return tpd_usage();
    else if (path) return tpd_usage();
    else path = argv[i];
  }
  if (!path || (check && json)) return tpd_usage();
  data = tpd_read_file(path, &size);
  if (!data) return 1;
  if (ptd_path && !(ptd = tpd_read_file(ptd_path, &ptd_size))) {
    TP_FREE(data);
    return 1;
  }
  memset(&out, 0, sizeof out);
  if (json) rc = tpdump_inspect_json(data, size, ptd, ptd_size, &out, &err);
  else if (ptd_path) rc = tpdump_inspect_with(data, size, ptd, ptd_size, check ? NULL : &out, &err);
  else rc = tpdump_inspect(data, size, check ? NULL : &out, &err);
  if (out.size && fwrite(out.data, 1, out.size, stdout) != out.size) rc = 1;
  tp_membuf_free(&out);
  /* A well-formed XNNPACK blob is then judged by the writer's node and graph rules, for
     ExecuTorch's runtime (tp_xnn_check_blob, the rules tp_xnn_define_* and tp_xnn_write
     apply): exit 3 names the first rule it breaks. */
  if (rc == 0 && size >= 8 &&
      (!memcmp(data + 4, "XH00", 4) || !memcmp(data + 4, "XN01", 4) ||
       !memcmp(data + 4, "XN00", 4))) {
    tp_error ce;
    if (tp_xnn_check_blob(data, size, TP_XNN_TARGET_EXECUTORCH, &ce) != TP_OK) {
      if (!json) printf("rule broken: %s\n", ce.msg);
      fprintf(stderr, "tpdump: %s: well formed, but breaks a rule: %s\n", path, ce.msg);
      rc = 3;
    }
  }
  if (rc == 0 && check) rc = tpd_check_report(data, size, ptd, ptd_size);
  TP_FREE(data);
  TP_FREE(ptd);
  if (rc == 0 && !check && !json) printf("ok: well formed\n");
  if (rc == 2) fprintf(stderr, "tpdump: %s: malformed: %s\n", path, err.msg);
  else if (rc == 1) fprintf(stderr, "tpdump: %s: %s\n", path, err.msg[0] ? err.msg : "error");
  return rc;
}
#endif
