/* linear_shapes.h - hostile shapes for the cost tests (tests/test_linear.c) and for measuring
   by hand: small files whose readers used to do work quadratic in their size.
   - fnvc_*: keys whose FNV-1a 64-bit hashes share their low 32 bits (the low 32 bits of FNV-1a
     depend only on the low 32 bits of its state, so two 8-byte blocks taking one state to the
     same value, found by a birthday search, can be chained: 2^stages keys from 2 * stages
     blocks - a Joux multicollision). Any table of at most 2^32 slots indexed by the low bits of
     that hash puts them all in one slot.
   - shape_pte_shared_specs: a .pte whose one method lists one delegate n times, the delegate
     holding n compile specs (one table, also shared): n^2 spec reads for 4n + small bytes.
   - shape_ptd_same_keys / shape_ptd_shared_key, shape_vk_shared_list, shape_xnn_shared_values: below.
   fuzz/make_seeds.c writes small ones as the fuzz targets' cost seeds; bench/bench_probes.c
   builds the probes from them.
   Built only on tensorpack.h's public API. With LINEAR_SHAPES_NO_FNVC defined, the fnvc_*
   functions are left out (a program that only wants the shapes). */
#ifndef LINEAR_SHAPES_H
#define LINEAR_SHAPES_H
#include <stdlib.h>
#include <string.h>
#include "tensorpack.h"
#include "pte_build.h"

#ifndef LINEAR_SHAPES_NO_FNVC /* defined by a user of the shapes only */
static uint32_t fnvc_step(uint32_t s, const unsigned char *b, size_t n) {
  uint64_t h = s;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return (uint32_t)h;
}

static uint64_t fnvc_full(const char *k) {
  uint64_t h = 14695981039346656037ull;
  while (*k) {
    h ^= (unsigned char)*k++;
    h *= 1099511628211ull;
  }
  return h;
}

static void fnvc_block(uint32_t code, unsigned char b[8]) { /* 8 printable bytes from 32 bits */
  int i;
  for (i = 0; i < 8; i++) b[i] = (unsigned char)('A' + ((code >> (4 * i)) & 15) + ((i & 1) ? 16 : 0));
}

/* blocks[2 stage + 0 / 1]: two blocks taking the state after prefix and the earlier stages to
   one low-32-bit value. 0 when out of memory. */
static int fnvc_make(unsigned stages, const char *prefix, unsigned char (*blocks)[8]) {
  uint64_t h = 14695981039346656037ull;
  const unsigned char *p = (const unsigned char *)prefix;
  size_t cap = (size_t)1 << 20, k;
  uint32_t *tv = (uint32_t *)malloc(cap * sizeof *tv), *tc = (uint32_t *)malloc(cap * sizeof *tc);
  uint32_t s, rng = 12345u;
  unsigned st;
  if (!tv || !tc) {
    free(tv);
    free(tc);
    return 0;
  }
  while (*p) {
    h ^= *p++;
    h *= 1099511628211ull;
  }
  s = (uint32_t)h;
  for (st = 0; st < stages; st++) {
    memset(tc, 0, cap * sizeof *tc);
    for (;;) {
      unsigned char b[8];
      uint32_t v, code;
      rng = rng * 1103515245u + 12345u;
      code = rng | 1u;
      fnvc_block(code, b);
      v = fnvc_step(s, b, 8);
      for (k = (v * 2654435761u) & (cap - 1);; k = (k + 1) & (cap - 1))
        if (tc[k] == 0 || tv[k] == v) break;
      if (tc[k] == 0) {
        tc[k] = code;
        tv[k] = v;
        continue;
      }
      if (tc[k] == code) continue;
      fnvc_block(tc[k], blocks[2 * st]);
      memcpy(blocks[2 * st + 1], b, 8);
      s = v;
      break;
    }
  }
  free(tv);
  free(tc);
  return 1;
}

/* Key i (i < 2^stages) into out: prefix, then 8 * stages bytes, NUL. */
static void fnvc_key(unsigned stages, const char *prefix, unsigned char (*blocks)[8], size_t i,
                     char *out) {
  size_t n = strlen(prefix);
  unsigned st;
  memcpy(out, prefix, n);
  for (st = 0; st < stages; st++) memcpy(out + n + 8 * st, blocks[2 * st + ((i >> st) & 1)], 8);
  out[n + 8 * stages] = 0;
}
#endif

/* A .pte (no extended header) whose method "forward" has one chain without instructions and
   n delegates that are all one BackendDelegate table, whose compile_specs are n offsets of one
   CompileSpec. Returns malloc'd bytes (NULL on failure). */
static unsigned char *shape_pte_shared_specs(size_t n, size_t *size) {
  tp_fb_builder *b = NULL;
  tp_fb_ref *refs, spec, del, specs, dels, plan, chain, empty_i32, ncbs, inl, bdd, ref, str,
      no_instrs, no_values, no_ops, data;
  unsigned char one = 1;
  uint64_t zero64 = 0;
  size_t i;
  refs = (tp_fb_ref *)calloc(n ? n : 1, sizeof *refs);
  if (!refs || tp_fb_builder_create(&b) != TP_OK) {
    free(refs);
    return NULL;
  }
  str = tp_fb_create_string(b, "k", 1);
  empty_i32 = tp_fb_create_vector(b, &one, 1, 1);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_CompileSpec_key, str);
  tp_fb_add_ref(b, TP_PTE_F_CompileSpec_value, empty_i32);
  spec = tp_fb_end_table(b);
  for (i = 0; i < n; i++) refs[i] = spec;
  specs = tp_fb_create_vector_refs(b, refs, n);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, TP_PTE_F_BackendDelegateDataReference_index, 0, 1);
  ref = tp_fb_end_table(b);
  str = tp_fb_create_string(b, "XnnpackBackend", 14);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_id, str);
  tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_processed, ref);
  tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_compile_specs, specs);
  del = tp_fb_end_table(b);
  for (i = 0; i < n; i++) refs[i] = del;
  dels = tp_fb_create_vector_refs(b, refs, n);
  empty_i32 = tp_fb_create_vector(b, NULL, 0, 4);
  no_instrs = tp_fb_create_vector_refs(b, NULL, 0);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_Chain_inputs, empty_i32);
  tp_fb_add_ref(b, TP_PTE_F_Chain_outputs, empty_i32);
  tp_fb_add_ref(b, TP_PTE_F_Chain_instructions, no_instrs);
  chain = tp_fb_end_table(b);
  ncbs = tp_fb_create_vector(b, &zero64, 1, 8);
  str = tp_fb_create_string(b, "forward", 7);
  refs[0] = chain;
  chain = tp_fb_create_vector_refs(b, refs, 1);
  no_values = tp_fb_create_vector_refs(b, NULL, 0);
  no_ops = tp_fb_create_vector_refs(b, NULL, 0);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_name, str);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_values, no_values);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_inputs, empty_i32);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_outputs, empty_i32);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_chains, chain);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_operators, no_ops);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_delegates, dels);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, ncbs);
  plan = tp_fb_end_table(b);
  data = tp_fb_create_vector(b, &one, 1, 1);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_BackendDelegateInlineData_data, data);
  inl = tp_fb_end_table(b);
  bdd = tp_fb_create_vector_refs(b, &inl, 1);
  free(refs);
  return tpt_pte_finish(b, plan, bdd, size);
}

/* A .ptd of n named_data entries with the same key, len bytes ('k' repeated), over one 4-byte
   segment. one_table: the n entries are one NamedData table and the key one string (n reads of
   a len-byte key from 4n + len + small bytes); else n tables with n copies of the key (n
   duplicate keys of len bytes). Malloc'd (NULL on failure). */
static unsigned char *shape_ptd_same_keys(size_t n, size_t len, int one_table, size_t *size) {
  tp_fb_builder *b = NULL;
  tp_fb_ref *refs, key, nd = 0, named, seg, segs, root;
  char *k;
  const unsigned char *fb;
  size_t fbn = 0, i, base, total;
  unsigned char *out = NULL;
  refs = (tp_fb_ref *)calloc(n ? n : 1, sizeof *refs);
  k = (char *)malloc(len + 1);
  if (!refs || !k || tp_fb_builder_create(&b) != TP_OK) {
    free(refs);
    free(k);
    return NULL;
  }
  memset(k, 'k', len);
  k[len] = 0;
  for (i = 0; i < n; i++) {
    if (i == 0 || !one_table) {
      key = tp_fb_create_string(b, k, len);
      tp_fb_start_table(b);
      tp_fb_add_ref(b, TP_FT01_F_NamedData_key, key);
      tp_fb_add_u32(b, TP_FT01_F_NamedData_segment_index, 0, 1);
      nd = tp_fb_end_table(b);
    }
    refs[i] = nd;
  }
  named = tp_fb_create_vector_refs(b, refs, n);
  tp_fb_start_table(b);
  tp_fb_add_u64(b, TP_FT01_F_DataSegment_offset, 0, 1);
  tp_fb_add_u64(b, TP_FT01_F_DataSegment_size, 4, 0);
  seg = tp_fb_end_table(b);
  segs = tp_fb_create_vector_refs(b, &seg, 1);
  tp_fb_start_table(b);
  tp_fb_add_u32(b, TP_FT01_F_FlatTensor_version, 0, 1);
  tp_fb_add_ref(b, TP_FT01_F_FlatTensor_segments, segs);
  tp_fb_add_ref(b, TP_FT01_F_FlatTensor_named_data, named);
  root = tp_fb_end_table(b);
  if (tp_fb_finish(b, root, "FT01") == TP_OK && (fb = tp_fb_data(b, &fbn)) != NULL) {
    base = (48 + fbn + 127) / 128 * 128;
    total = base + 4;
    out = (unsigned char *)calloc(total, 1);
    if (out) {
      tp__put_le32(out, tp__get_le32(fb) + 48);
      memcpy(out + 4, "FT01FH01", 8);
      tp__put_le32(out + 12, 40);
      tp__put_le64(out + 16, 48);
      tp__put_le64(out + 24, fbn);
      tp__put_le64(out + 32, base);
      tp__put_le64(out + 40, 4);
      memcpy(out + 56, fb + 8, fbn - 8);
      memset(out + base, 7, 4);
      *size = total;
    }
  }
  tp_fb_builder_destroy(b);
  free(refs);
  free(k);
  return out;
}

/* shape_ptd_same_keys with the entries one table: the cost tests' and fuzz seeds' shape. */
static unsigned char *shape_ptd_shared_key(size_t n, size_t len, size_t *size) {
  return shape_ptd_same_keys(n, len, 1, size);
}

#ifdef TENSORPACK_VULKAN_H
/* A VH00 blob whose values are Int 0 and then n ValueLists that are one table, holding n items
   (all value 0): n^2 item reads for 8n + small bytes. Malloc'd (NULL on failure). */
static unsigned char *shape_vk_shared_list(size_t n, size_t *size) {
  tp_fb_builder *b = NULL;
  tp_fb_ref *refs, items, vl, iv, ivv, vlv, values, none, root;
  uint32_t *zeros;
  tp__delegate_frame fr;
  uint64_t total = 0;
  const unsigned char *fb;
  size_t fbn = 0, i;
  unsigned char *out = NULL;
  refs = (tp_fb_ref *)calloc(n + 1, sizeof *refs);
  zeros = (uint32_t *)calloc(n + 1, sizeof *zeros);
  if (!refs || !zeros || tp_fb_builder_create(&b) != TP_OK) {
    free(refs);
    free(zeros);
    return NULL;
  }
  items = tp_fb_create_vector(b, zeros, n, 4);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_VK_F_ValueList_items, items);
  vl = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_i64(b, TP_VK_F_Int_int_val, 0, 1);
  iv = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_VK_F_VkValue_value, TP_VK_INT_VALUE, iv);
  ivv = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_VK_F_VkValue_value, TP_VK_VALUE_LIST_VALUE, vl);
  vlv = tp_fb_end_table(b);
  refs[0] = ivv;
  for (i = 1; i <= n; i++) refs[i] = vlv;
  values = tp_fb_create_vector_refs(b, refs, n + 1);
  none = tp_fb_create_vector(b, NULL, 0, 4);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_chain, none);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_values, values);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_input_ids, none);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_output_ids, none);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_constants, none);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_shaders, none);
  root = tp_fb_end_table(b);
  if (tp_fb_finish(b, root, "VK00") == TP_OK &&
      (fb = tp_fb_data(b, &fbn)) != NULL &&
      tp__delegate_frame_make("VH00", fbn, 16, 0, &fr, &total, NULL) == TP_OK) {
    tp_membuf m;
    tp_sink sink;
    memset(&m, 0, sizeof m);
    sink = tp_sink_membuf(&m);
    if (tp__delegate_write_head(&sink, "VH00", &fr, fb) == TP_OK) {
      out = m.data;
      *size = m.size;
    } else {
      tp_membuf_free(&m);
    }
  }
  tp_fb_builder_destroy(b);
  free(refs);
  free(zeros);
  return out;
}
#endif
#ifdef TENSORPACK_XNNPACK_H
/* A bare XN01 flatbuffer whose n xvalues are one XValue table (an fp32 tensor of 6 dims, id 0)
   and no nodes: n value reads and a sort of n ids (then refused: two values have id_out 0) for
   4n + small bytes. Malloc'd (NULL on failure). */
static unsigned char *shape_xnn_shared_values(size_t n, size_t *size) {
  static const uint32_t dims[6] = {1, 1, 1, 1, 1, 1};
  tp_fb_builder *b = NULL;
  tp_fb_ref *refs, dv, tensor, xv, values, nodes, root;
  const unsigned char *fb;
  size_t fbn = 0, i;
  unsigned char *out = NULL;
  refs = (tp_fb_ref *)calloc(n ? n : 1, sizeof *refs);
  if (!refs || tp_fb_builder_create(&b) != TP_OK) {
    free(refs);
    return NULL;
  }
  dv = tp_fb_create_vector(b, dims, 6, 4);
  tp_fb_start_table(b);
  tp_fb_add_i16(b, TP_XNN_FIELD(XNNTensorValue, datatype), (int16_t)TP_XNN_FP32, 0);
  tp_fb_add_u32(b, TP_XNN_FIELD(XNNTensorValue, num_dims), 6, 0);
  tp_fb_add_ref(b, TP_XNN_FIELD(XNNTensorValue, dims), dv);
  tensor = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_XNN_FIELD(XValue, xvalue_union), TP_XNN_VALUE_TENSOR, tensor);
  xv = tp_fb_end_table(b);
  for (i = 0; i < n; i++) refs[i] = xv;
  values = tp_fb_create_vector_refs(b, refs, n);
  nodes = tp_fb_create_vector_refs(b, NULL, 0);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_XNN_FIELD(XNNGraph, xvalues), values);
  tp_fb_add_ref(b, TP_XNN_FIELD(XNNGraph, xnodes), nodes);
  root = tp_fb_end_table(b);
  if (tp_fb_finish(b, root, "XN01") == TP_OK && (fb = tp_fb_data(b, &fbn)) != NULL &&
      (out = (unsigned char *)malloc(fbn)) != NULL) {
    memcpy(out, fb, fbn);
    *size = fbn;
  }
  tp_fb_builder_destroy(b);
  free(refs);
  return out;
}
#endif
#endif
