/* tensorpack_vulkan.h - v0.3.0 - ExecuTorch Vulkan delegate blobs from C - public domain or MIT

   Writes the payload the ExecuTorch Vulkan backend loads (a "VH00" blob: header, "VK00"
   flatbuffer with root VkGraph, raw bytes) from a graph you describe call by call. Every
   constant's bytes come from the strided view you pass (tp_tensor of tensorpack.h), row-major,
   never from "the storage from its first byte": an offset view or a transposed view is written
   as exactly the tensor it describes.

   Do this:
      #define TENSORPACK_IMPLEMENTATION          (once, for tensorpack.h)
      #define TENSORPACK_VULKAN_IMPLEMENTATION   (once, for this file)
   before you include this file in *one* C or C++ file. Other files just include it.
   Optional: also define TENSORPACK_VULKAN_RUNTIME (in every file that uses it) to get
   tp_vk_upload_blob(), which puts a blob's constants into buffers on a real Vulkan device; only
   that part includes <vulkan/vulkan.h> and needs -lvulkan. Reading a blob back
   (tp_vk_parse_header, tp_vk_read_blob) needs neither.

   CONTENTS (declarations: headings "---- name"; implementation: markers ">>name")
     the VK00 format, described once; the graph     >>vk-format, >>vk-graph
     the operators ExecuTorch's Vulkan backend
       runs; values, tensors, the op chain          >>vk-ops, >>vk-tensor, >>vk-chain
     compile specs; output (size, write, save)      >>vk-specs, >>vk-layout, >>vk-write
     reading a blob (bounds-checked)                >>vk-read
     quantized linears in one call                  >>vk-quant
     programs (.pte)                                >>vk-pte
     for tools/tpdump.c, not for users (tp__)       >>vk-pte
     optional: upload onto a real Vulkan device     >>vk-runtime

   QUICK START (examples/04_vulkan_graph.c: y = linear(x, W) with W a transposed view)

      float wt[8 * 4];                    // W^T, stored [in = 8][out = 4]
      tp_storage st = { wt, sizeof wt };
      int64_t sz[2] = { 8, 4 };
      tp_tensor wt_view, w;               // w: the [4][8] weight, a transposed view
      tp_view(st, TP_F32, 2, sz, NULL, 0, &wt_view, NULL);
      tp_transpose(&wt_view, 0, 1, &w, NULL);

      tp_vk_graph *g;
      tp_vk_graph_create(NULL, &g);       // NULL options: constants inline, no fp16
      size_t xd[2] = { 1, 8 }, yd[2] = { 1, 4 };
      uint32_t x, wid, bias, y;
      tp_vk_tensor_desc d = {0};          // zero = defaults; the datatype is required
      d.datatype = TP_VK_FLOAT32;
      d.ndim = 2; d.dims = xd;
      tp_vk_add_tensor_desc(g, &d, &x);
      d.ndim = 0; d.dims = NULL; d.constant = &w;   // dims: the constant's
      tp_vk_add_tensor_desc(g, &d, &wid);
      tp_vk_add_null(g, &bias);
      d.constant = NULL; d.ndim = 2; d.dims = yd;
      tp_vk_add_tensor_desc(g, &d, &y);
      uint32_t args[4] = { x, wid, bias, y };       // ExecuTorch's linear(input, weight, bias, out)
      tp_vk_add_op(g, 0, "aten.linear.default", args, 4);   // checked against TP_VK_OPS
      tp_vk_set_io(g, &x, 1, &y, 1);
      tp_vk_save(g, "linear.vkblob", NULL);         // atomic; on failure prints "error: <why>"
      tp_vk_graph_destroy(g);

   WHAT IT WRITES (checked against ExecuTorch's VulkanBackend.cpp and VulkanDelegateHeader.cpp)
      [0, 30)   header: 4 zero bytes, "VH00", u16 30, u32 flatbuffer offset (32), u32 flatbuffer
                size (unpadded), u32 raw bytes offset, u64 raw bytes size; little-endian;
                padded with zeros to 32.
      [32, ..)  the VK00 flatbuffer, padded with zeros to a multiple of 16.
      [.., end) the raw bytes: inline constants in the order they were added, then shaders; each
                entry padded with zeros to 16. Its size is the sum of those padded sizes (never
                a storage's size). VkBytes.offset/length are relative to this segment.
   Value ids are 0, 1, 2 ... in call order: every tp_vk_add_* that makes a value takes the next
   id. THERE IS NO SCALAR DEDUP: two tp_vk_add_int(g, 1, ...) calls make two values (upstream's
   Python builder shares equal scalars; keep the first id yourself if you want that). An empty
   list is exactly ONE value (upstream's builder appends three for `[]`).
   Tensors: datatype, dims (always written, an empty vector for a 0-dim tensor), constant_id (-1
   when not a constant), mem_obj_id (-1 = own memory), and storage_type / memory_layout /
   staging_datatype written whenever they differ from the schema defaults (255, 255, 127): so
   BUFFER, TENSOR_WIDTH_PACKED and BOOL (all 0) are written. The staging datatype is always
   written (the tensor's datatype when the desc leaves staging at 0). Lists, strings, the
   operator chain, input/output ids, constants and shaders are always present (maybe empty),
   because the loader dereferences them without null checks. The graph's version string is
   "0", as upstream.
   Constants: a tp_tensor view of any strides. Its element count must equal numel(dims); its
   bytes are written row-major in the tensor's datatype. The view's dtype must be the datatype's
   own (FLOAT32 <-> TP_F32, FLOAT16 <-> TP_F16, INT32 <-> TP_I32, ...), except that a TP_F32 view
   may back a FLOAT16 tensor (converted: clamped to +-65504, +-inf included, as upstream; then
   round-to-nearest-even) and a TP_F16 view a FLOAT32 tensor (exact widening).
      - inline (options.store == NULL): the view is borrowed until the graph is written.
      - named (options.store set): tp_vk_add_tensor_desc adds the compact bytes to the store at
        once under their lowercase SHA-256 hex key (16-aligned); the blob carries VkBytes{offset
        UINT64_MAX, length, named_key}. A view added to the store is borrowed until the store is
        written (tp_store_add's rule); a converted constant is copied into the store.
      - an empty constant (0 elements) is always inline with length 0 at offset 0 (also in
        named mode, as upstream); a segment that holds nothing else is 16 zero bytes, because
        the loader requires offset < raw bytes size.
   force_fp16 (options), as upstream: every FLOAT32 tensor is declared FLOAT16; constants are
   converted (clamped to +-65504, +-inf too, NaN stays NaN; RNE) and staged as FLOAT16; a
   non-constant tensor keeps FLOAT32 staging (or the staging datatype you gave).
   Shaders: raw bytes copied at tp_vk_add_shader, written into the raw segment (16-aligned) in
   both modes; the graph-level storage/memory-layout overrides are written when not default.
   (Today's upstream loader reads neither; both are part of the format.)

   ERRORS
   Every fallible call returns tp_status. The first failure sticks in the graph as a sentence
   naming the value and the numbers (tp_vk_graph_error), e.g. "value 3: constant has 30
   elements but the dims hold 32"; every later call returns the same status, and a failed
   graph refuses to write (TP_ERR_NOMEM sticks too). A sink's own failure (TP_ERR_IO from
   tp_vk_write) is returned but does not stick: the graph can be written again. Bad arguments are TP_ERR_INVALID (unknown datatype, storage type or
   memory layout, an id that does not exist, a constant that does not match dims x datatype,
   NULL name/string/bytes, an empty shader); a dim larger than a u32, more than INT32_MAX
   values or a blob larger than the header's u32 offsets allow is TP_ERR_OVERFLOW; a bad view is
   what tp_tensor_check says. Nothing is written on error: tp_vk_write checks everything before
   its first byte (a failing sink or view read can still stop it midway: use
   tp_vk_write_file, which is atomic).
   Asserts fire only for a NULL graph.

   MEMORY: through TP_MALLOC / TP_REALLOC / TP_FREE (tensorpack.h). THREADS: a graph is used by
   one thread at a time; different graphs are independent (no global state).
   LICENSE: MIT or public domain, your choice (see tensorpack.h).
*/
#ifndef TENSORPACK_VULKAN_H
#define TENSORPACK_VULKAN_H

#include "tensorpack.h"
#if !defined(TP_VERSION_MAJOR) || TP_VERSION_MAJOR != 0 || TP_VERSION_MINOR != 3
#error "tensorpack_vulkan.h needs tensorpack.h 0.3.x (an older or newer tensorpack.h was found first on the include path)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* VkDataType of the schema. */
typedef enum tp_vk_datatype {
  TP_VK_BOOL = 0, TP_VK_UINT8 = 1, TP_VK_INT8 = 2, TP_VK_INT32 = 3, TP_VK_FLOAT16 = 4,
  TP_VK_FLOAT32 = 5, TP_VK_FLOAT64 = 6, TP_VK_INT64 = 7, TP_VK_UNSET = 127
} tp_vk_datatype;

/* VkStorageType and VkMemoryLayout of the schema, as a blob holds them (255: the default). The
   calls that set them take tp_vk_storage / tp_vk_layout instead, where 0 is the default. */
#define TP_VK_BUFFER 0
#define TP_VK_TEXTURE_3D 1
#define TP_VK_TEXTURE_2D 2
#define TP_VK_TENSOR_WIDTH_PACKED 0
#define TP_VK_TENSOR_HEIGHT_PACKED 1
#define TP_VK_TENSOR_CHANNELS_PACKED 2
#define TP_VK_PACKED_INT8_4W4C 3
#define TP_VK_PACKED_INT8_4H4W 4
#define TP_VK_PACKED_INT8_4W 5
#define TP_VK_PACKED_INT8_4C 6
#define TP_VK_PACKED_INT8_4C1W 8
#define TP_VK_PACKED_INT8_CONV2D 9

/* GraphTypes union tags of the schema (what tp_vk_graph_value_type reports). */
#define TP_VK_NULL_VALUE 1
#define TP_VK_INT_VALUE 2
#define TP_VK_DOUBLE_VALUE 3
#define TP_VK_BOOL_VALUE 4
#define TP_VK_TENSOR_VALUE 5
#define TP_VK_INT_LIST_VALUE 6
#define TP_VK_DOUBLE_LIST_VALUE 7
#define TP_VK_BOOL_LIST_VALUE 8
#define TP_VK_VALUE_LIST_VALUE 9
#define TP_VK_STRING_VALUE 10
#define TP_VK_SYMINT_VALUE 11

/* ---- the VK00 format, described once ------------------------------------------------------
   The tables and fields of ExecuTorch's backends/vulkan/serialization/schema.fbs (file
   identifier "VK00", root VkGraph). The writer, tp_vk_read_blob, tpdump's Vulkan printer and
   the tests' sweeps all take field ids, defaults and names from these lists; the non-zero
   defaults are the ones that bite: VkTensor.storage_type / memory_layout 255 and
   staging_datatype 127 (so BUFFER, TENSOR_WIDTH_PACKED and BOOL, all 0, must be written),
   constant_id / mem_obj_id 0 (so "none" is an explicit -1).
   TP_VK_FIELDS(X): X(table, field, id, kind, default), kind one of BOOL I8 U8 I32 U32 I64 U64
   F64 (scalars), STR (string), VEC (vector), UNION (the union's value; its type byte is the
   field before). Each entry also defines TP_VK_F_<table>_<field> (the id) and
   TP_VK_D_<table>_<field> (the default) below. A new field is one entry here. 
   Shared tables: a budget. tp_vk_read_blob (and so tp_vk_check_blob and the upload) reads
   through one tp_fb_reader, under its visit budget (max(1M, 8 x size) tables opened, vector
   elements and strings read): values sharing one ValueList (or any table or vector) N times are
   refused past it ("value V: visit budget ... exceeded ..."), in time linear in the blob. */
#define TP_VK_FIELDS(X) \
  X(VkGraph, version, 0, STR, 0) \
  X(VkGraph, chain, 1, VEC, 0) \
  X(VkGraph, values, 2, VEC, 0) \
  X(VkGraph, input_ids, 3, VEC, 0) \
  X(VkGraph, output_ids, 4, VEC, 0) \
  X(VkGraph, constants, 5, VEC, 0) \
  X(VkGraph, shaders, 6, VEC, 0) \
  X(VkGraph, storage_type_override, 7, U8, 255) \
  X(VkGraph, memory_layout_override, 8, U8, 255) \
  X(OperatorCall, node_id, 0, U32, 0) \
  X(OperatorCall, name, 1, STR, 0) \
  X(OperatorCall, args, 2, VEC, 0) \
  X(VkValue, value_type, 0, U8, 0) \
  X(VkValue, value, 1, UNION, 0) \
  X(VkTensor, datatype, 0, I8, 0) \
  X(VkTensor, dims, 1, VEC, 0) \
  X(VkTensor, constant_id, 2, I32, 0) \
  X(VkTensor, mem_obj_id, 3, I32, 0) \
  X(VkTensor, storage_type, 4, U8, 255) \
  X(VkTensor, memory_layout, 5, U8, 255) \
  X(VkTensor, staging_datatype, 6, I8, 127) \
  X(Int, int_val, 0, I64, 0) \
  X(Double, double_val, 0, F64, 0) \
  X(Bool, bool_val, 0, BOOL, 0) \
  X(String, string_val, 0, STR, 0) \
  X(IntList, items, 0, VEC, 0) \
  X(DoubleList, items, 0, VEC, 0) \
  X(BoolList, items, 0, VEC, 0) \
  X(ValueList, items, 0, VEC, 0) \
  X(SymInt, value, 0, I32, 0) \
  X(VkBytes, offset, 0, U64, 0) \
  X(VkBytes, length, 1, U64, 0) \
  X(VkBytes, named_key, 2, STR, 0)

#define TP__VK_FIELD_ENUM(t, f, id, kind, dflt) TP_VK_F_##t##_##f = id, TP_VK_D_##t##_##f = dflt,
enum { TP_VK_FIELDS(TP__VK_FIELD_ENUM) TP__VK_FIELD_ENUM_END };
#undef TP__VK_FIELD_ENUM

/* The GraphTypes union (VkValue.value): X(tag, member, element size of its items vector, or 0).
   The tags are the TP_VK_*_VALUE defines below. */
#define TP_VK_VALUE_KINDS(X) \
  X(1, Null, 0) X(2, Int, 0) X(3, Double, 0) X(4, Bool, 0) X(5, VkTensor, 0) \
  X(6, IntList, 8) X(7, DoubleList, 8) X(8, BoolList, 1) X(9, ValueList, 4) X(10, String, 0) \
  X(11, SymInt, 0)

/* VkDataType: X(value, name, tp_dtype of its bytes, element size). UNSET (127) is the
   staging_datatype default and not a tensor datatype. */
#define TP_VK_DATATYPES(X) \
  X(0, BOOL, TP_BOOL, 1) X(1, UINT8, TP_U8, 1) X(2, INT8, TP_I8, 1) X(3, INT32, TP_I32, 4) \
  X(4, FLOAT16, TP_F16, 2) X(5, FLOAT32, TP_F32, 4) X(6, FLOAT64, TP_F64, 8) \
  X(7, INT64, TP_I64, 8)

/* VkStorageType and VkMemoryLayout: X(value, name); 255 is DEFAULT_STORAGE / DEFAULT_LAYOUT. */
#define TP_VK_STORAGE_TYPES(X) X(0, BUFFER) X(1, TEXTURE_3D) X(2, TEXTURE_2D)
#define TP_VK_MEMORY_LAYOUTS(X) \
  X(0, TENSOR_WIDTH_PACKED) X(1, TENSOR_HEIGHT_PACKED) X(2, TENSOR_CHANNELS_PACKED) \
  X(3, PACKED_INT8_4W4C) X(4, PACKED_INT8_4H4W) X(5, PACKED_INT8_4W) X(6, PACKED_INT8_4C) \
  X(8, PACKED_INT8_4C1W) X(9, PACKED_INT8_CONV2D)

/* Names from the lists above ("FLOAT32", "TEXTURE_3D", "TENSOR_WIDTH_PACKED", "IntList";
   "UNSET" for datatype 127, "DEFAULT" for storage / layout 255), NULL for a value the schema
   does not have. tp_vk_datatype_size: the element size, 0 for none (UNSET included). */
TPDEF const char *tp_vk_datatype_name(int v);
TPDEF size_t tp_vk_datatype_size(int v);
TPDEF const char *tp_vk_storage_type_name(int v);
TPDEF const char *tp_vk_memory_layout_name(int v);
TPDEF const char *tp_vk_value_kind_name(int tag);

/* Size of the VH00 header as written (30) and where the flatbuffer starts (32). */
#define TP_VK_HEADER_SIZE 30
#define TP_VK_FLATBUFFER_OFFSET 32

typedef struct tp_vk_graph tp_vk_graph; /* opaque */

/* Zero-initialised = defaults. */
typedef struct tp_vk_options {
  tp_store *store; /* NULL: constants go inline into the blob; set: into this store, by key */
  int force_fp16;  /* 0: datatypes as given; non-zero: FLOAT32 tensors become FLOAT16 */
  int other_runtime; /* 0: tp_vk_add_op checks every operator against TP_VK_OPS (what
                        ExecuTorch's VulkanBackend runs: the name, the argument kinds, the
                        datatypes and ranks); non-zero: the graph targets another runtime, any
                        name and arguments are written as given */
  tp_progress_fn progress; /* NULL: none; else called as the blob is written (tensorpack.h
                              section 4); a non-zero return cancels with TP_ERR_CANCELLED */
  void *progress_ctx;      /* its first argument */
} tp_vk_options;

/* ---- the operators ExecuTorch's Vulkan backend runs ------------------------------------ */

/* TP_VK_OPS(X) calls X(name, args, types) once per operator ExecuTorch's VulkanBackend
   registers: the VK_REGISTER_OP lines of the REGISTER_OPERATORS blocks in
   backends/vulkan/runtime/graph/ops/impl/<op>.cpp of pytorch/executorch (commit cff6f4dd32,
   2026-08-22): 157 names, sorted. A graph whose chain names anything else aborts there
   ("Missing operator").
   `args` lists the arguments in call order as the runtime reads them: ExecuTorch's serializer
   (vulkan_graph_builder.py) writes every argument of the op's schema, defaults included, then
   the output; an op without a schema (the SymInt "add", "sub", "mul", "floordiv") takes its two
   operands, then the output. The op's impl reads them by index; the LAST one is the output (a
   ValueList of tensors where the op has several outputs), except etvk.choose_qparams_per_row,
   whose outputs are its last two. One "name:KIND" per argument, KIND being
     T  a tensor                           t  a tensor or Null
     C  a constant tensor (the impl prepacks it)  c  a constant tensor or Null
     S  a scalar: Int, Double, Bool or SymInt    s  a scalar or Null
     I  an Int or SymInt                   i  an Int, SymInt or Null
     B  a Bool                             X  a String          Y  a SymInt
     L  an int list: IntList, or ValueList of Int / SymInt values    l  the same, or Null
     K  an IntList (read with get_int_list: a ValueList throws)      k  an IntList or Null
     F  a DoubleList or Null               V  a ValueList of tensors
     n  a Null (the impl refuses anything else there)
     *  any value (the impl does not read it)
   followed, for T / t / C / c, by a digit n (the tensor has n dims) and/or w: a tensor that is
   not a constant must be width-packed, i.e. TP_VK_TENSOR_WIDTH_PACKED, or the default layout
   where the runtime resolves it to width-packed (fewer than 3 dims, or dim -3 of size 1; a
   compile-spec memory_layout_override is not taken into account).
   NO FIXED LIST: "..." in place of an argument (aten.full.default, the _like and
   quantize / dequantize ops, ...) means the impl reads the arguments before it by index and
   the output as the last one, so any number (0 or more) of values of any kind may stand
   there; the count is then a minimum. The serializer writes the schema's dtype / layout /
   device / pin_memory there.
   `types`: the datatypes and ranks ExecuTorch's Vulkan partitioner lets through for the op
   (backends/vulkan/op_registry.py, checked as its check_node_dtypes and supports_highdim do),
   "" where it states none (the op is not in the registry, or has no constraint there):
     a comma list of datatype sets for the tensor arguments by position (a single set: every
     tensor argument but the output), then optionally ">" and the output's sets (one per tensor
     of a ValueList output; absent: the first argument's set), then " 4d" when every tensor
     argument and output has at most 4 dims (the op is not supports_highdim). A set is letters
     joined by |: F FLOAT16 or FLOAT32, I INT32 or INT64, B BOOL; - is not checked. The tensors
     of a ValueList argument take that argument's set. Where the registry gives one float set
     but the impl reads a quantized weight (int8, packed int4) or an integer zero point, that
     position is "-".
   The conventions, e.g.
     aten.linear.default(input[.., K], weight[N, K], bias or Null, out)   y = x W^T (+ bias)
     aten.mm.default(mat1[M, K], mat2[K, N], out)       2-D only, mat2 not transposed
     aten.addmm.default(self, mat1, mat2, beta, alpha, out)
     aten.add.Tensor(self, other, alpha, out)           alpha an Int or Double, never Null
   There is no aten.mv.default: y = W x is aten.linear.default(x, W, Null, y). */
#define TP_VK_OPS(X) \
  X("add", "a:I b:I out:Y", "4d") \
  X("aten._log_softmax.default", "self:T dim:I half_to_float:* out:T", "F 4d") \
  X("aten._native_batch_norm_legit_no_training.default", "input:T weight:C bias:C running_mean:C running_var:C momentum:* eps:S out:V", "F 4d") \
  X("aten._softmax.default", "self:T dim:I half_to_float:* out:T", "F 4d") \
  X("aten._to_copy.default", "self:T dtype:* layout:* device:* pin_memory:* non_blocking:* memory_format:* out:T", "F|I|B>F|I|B 4d") \
  X("aten._weight_int8pack_mm.default", "self:T mat2:C scales:C out:T", "F,-,F 4d") \
  X("aten.abs.default", "self:T out:T", "F 4d") \
  X("aten.add.Tensor", "self:T other:T alpha:S out:T", "F|I") \
  X("aten.addmm.default", "self:tw mat1:T2w mat2:T2w beta:S alpha:S out:T2w", "F 4d") \
  X("aten.amax.default", "self:T dim:l keepdim:B out:T", "F") \
  X("aten.amin.default", "self:T dim:l keepdim:B out:T", "F") \
  X("aten.arange.start_step", "start:s end:S step:s dtype:* layout:* device:* pin_memory:* out:T", "F|I 4d") \
  X("aten.argmax.default", "self:T dim:i keepdim:B out:T", "F>I") \
  X("aten.argmin.default", "self:T dim:i keepdim:B out:T", "F>I") \
  X("aten.avg_pool2d.default", "self:T kernel_size:K stride:K padding:K ceil_mode:B count_include_pad:B divisor_override:* out:T", "F 4d") \
  X("aten.bitwise_and.Tensor", "self:T other:T out:T", "B") \
  X("aten.bitwise_not.default", "self:T out:T", "B") \
  X("aten.bitwise_or.Tensor", "self:T other:T out:T", "B") \
  X("aten.bmm.default", "mat1:T3w mat2:T3w out:T3w", "F 4d") \
  X("aten.cat.default", "tensors:V dim:I out:T", "F|I 4d") \
  X("aten.clamp.default", "self:T min:s max:s out:T", "F|I 4d") \
  X("aten.clone.default", "self:T memory_format:* out:T", "F|I|B") \
  X("aten.constant_pad_nd.default", "self:T pad:K value:S out:T", "F|I|B 4d") \
  X("aten.convolution.default", "input:T weight:C bias:t stride:L padding:L dilation:L transposed:B output_padding:L groups:I out:T", "F 4d") \
  X("aten.cos.default", "self:T out:T", "F 4d") \
  X("aten.div.Tensor", "self:T other:T out:T", "F|I") \
  X("aten.div.Tensor_mode", "self:T other:T rounding_mode:* out:T", "F|I") \
  X("aten.embedding.default", "weight:C indices:T padding_idx:* scale_grad_by_freq:* sparse:* out:T", "F,I 4d") \
  X("aten.eq.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.eq.Tensor", "self:T other:T out:T", "F|I>B") \
  X("aten.exp.default", "self:T out:T", "F 4d") \
  X("aten.expand_copy.default", "self:T size:L implicit:* out:T", "F|I|B") \
  X("aten.flip.default", "self:T dims:K out:T", "F|I|B 4d") \
  X("aten.full.default", "size:L fill_value:S ... out:T", "F|I|B 4d") \
  X("aten.full_like.default", "self:T fill_value:S ... out:T", "F|I|B 4d") \
  X("aten.gather.default", "self:T dim:I index:T sparse_grad:* out:T", "F|I|B") \
  X("aten.ge.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.ge.Tensor", "self:T other:T out:T", "F|I>B") \
  X("aten.gelu.default", "self:T approximate:* out:T", "F 4d") \
  X("aten.grid_sampler_2d.default", "input:T grid:T interpolation_mode:I padding_mode:I align_corners:B out:T", "F 4d") \
  X("aten.gt.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.gt.Tensor", "self:T other:T out:T", "F|I>B") \
  X("aten.hardshrink.default", "self:T lambd:s out:T", "F 4d") \
  X("aten.hardsigmoid.default", "self:T out:T", "") \
  X("aten.hardswish.default", "self:T out:T", "F 4d") \
  X("aten.hardtanh.default", "self:T min_val:s max_val:s out:T", "F 4d") \
  X("aten.index.Tensor", "self:T indices:V out:T", "F|I 4d") \
  X("aten.index_select.default", "self:T dim:I index:T out:T", "F|I|B 4d") \
  X("aten.le.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.le.Tensor", "self:T other:T out:T", "F|I>B") \
  X("aten.leaky_relu.default", "self:T negative_slope:s out:T", "F 4d") \
  X("aten.linear.default", "input:Tw weight:T bias:t out:Tw", "F 4d") \
  X("aten.log10.default", "self:T out:T", "F 4d") \
  X("aten.logical_and.default", "self:T other:T out:T", "B") \
  X("aten.logical_or.default", "self:T other:T out:T", "B") \
  X("aten.lt.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.lt.Tensor", "self:T other:T out:T", "F|I>B") \
  X("aten.max_pool2d.default", "self:T kernel_size:K stride:K padding:K dilation:K ceil_mode:B out:T", "F 4d") \
  X("aten.max_pool2d_with_indices.default", "self:T kernel_size:K stride:K padding:K dilation:K ceil_mode:B out:V", "F>F,I 4d") \
  X("aten.mean.dim", "self:T dim:l keepdim:B dtype:* out:T", "F") \
  X("aten.minimum.default", "self:T other:T out:T", "F|I") \
  X("aten.mm.default", "mat1:T2w mat2:T2w out:T2w", "F 4d") \
  X("aten.mul.Tensor", "self:T other:T out:T", "F|I") \
  X("aten.native_group_norm.default", "input:T weight:C bias:C N:* C:* HxW:* group:I eps:S out:V", "F 4d") \
  X("aten.native_layer_norm.default", "input:T normalized_shape:K weight:c bias:c eps:S out:V", "F 4d") \
  X("aten.ne.Scalar", "self:T other:S out:T", "F|I>B") \
  X("aten.neg.default", "self:T out:T", "F 4d") \
  X("aten.ones.default", "size:L ... out:T", "F|I|B 4d") \
  X("aten.ones_like.default", "self:T ... out:T", "F|I|B 4d") \
  X("aten.permute.default", "self:T dims:L out:T", "F|I|B 4d") \
  X("aten.permute_copy.default", "self:T dims:L out:T", "F|I|B") \
  X("aten.pixel_shuffle.default", "self:T upscale_factor:I out:T", "F 4d") \
  X("aten.pow.Tensor_Scalar", "self:T exponent:S out:T", "F") \
  X("aten.pow.Tensor_Tensor", "self:T other:T out:T", "F|I") \
  X("aten.relu.default", "self:T out:T", "F 4d") \
  X("aten.relu6.default", "self:T out:T", "") \
  X("aten.repeat.default", "self:T repeats:L out:T", "F|I|B 4d") \
  X("aten.repeat_interleave.self_int", "self:T repeats:I dim:I output_size:* out:T", "") \
  X("aten.round.default", "self:T out:T", "F 4d") \
  X("aten.rsqrt.default", "self:T out:T", "F 4d") \
  X("aten.scalar_tensor.default", "s:S ... out:T", "F|I 4d") \
  X("aten.select.int", "self:T dim:I index:I out:T", "") \
  X("aten.select_copy.int", "self:T dim:I index:I out:T", "F|I|B") \
  X("aten.sigmoid.default", "self:T out:T", "F 4d") \
  X("aten.sin.default", "self:T out:T", "F 4d") \
  X("aten.slice.Tensor", "self:T dim:I start:i end:i step:I out:T", "") \
  X("aten.slice_copy.Tensor", "self:T dim:I start:i end:i step:I out:T", "F|I|B") \
  X("aten.split_with_sizes_copy.default", "self:T split_sizes:L dim:I out:V", "F|I|B") \
  X("aten.sqrt.default", "self:T out:T", "F 4d") \
  X("aten.squeeze_copy.dims", "self:T dim:K out:T", "F|I|B") \
  X("aten.sub.Tensor", "self:T other:T alpha:S out:T", "F|I") \
  X("aten.sum.dim_IntList", "self:T dim:l keepdim:B dtype:* out:T", "F") \
  X("aten.tan.default", "self:T out:T", "") \
  X("aten.tanh.default", "self:T out:T", "F 4d") \
  X("aten.unfold_copy.default", "self:T dimension:I size:I step:I out:T", "F") \
  X("aten.unsqueeze_copy.default", "self:T dim:I out:T", "F|I|B") \
  X("aten.upsample_bilinear2d.vec", "input:T output_size:k align_corners:B scale_factors:F out:T", "F 4d") \
  X("aten.upsample_nearest2d.vec", "input:T output_size:k scale_factors:F out:T", "F 4d") \
  X("aten.var.dim", "self:T dim:K unbiased:B keepdim:* out:T", "") \
  X("aten.view_copy.default", "self:T size:L out:T", "F|I|B") \
  X("aten.where.self", "condition:T self:T other:T out:T", "B,F,F>F 4d") \
  X("aten.zeros.default", "size:L ... out:T", "F|I|B 4d") \
  X("aten.zeros_like.default", "self:T ... out:T", "F|I|B 4d") \
  X("conv_with_clamp.default", "input:T weight:C bias:t stride:L padding:L dilation:L transposed:B output_padding:L groups:I output_min:s output_max:s out:T", "") \
  X("dim_order_ops._to_dim_order_copy.default", "self:T dtype:* layout:* device:* pin_memory:* non_blocking:* dim_order:* out:T", "F|I|B") \
  X("et_vk.adamw_step.default", "param:T m:T v:T grad:T lr:S beta1:S beta2:S eps:S weight_decay:S bias_correction1:S bias_correction2:S out:V", "F 4d") \
  X("et_vk.apply_rotary_emb.default", "xq:Tw xk:Tw freqs_cos:Tw freqs_sin:Tw out:V", "F") \
  X("et_vk.apply_rotary_emb_hf.default", "xq:Tw xk:Tw freqs_cos:Tw freqs_sin:Tw start_pos:I out:V", "F") \
  X("et_vk.apply_rotary_emb_interleaved.default", "x:Tw freqs_cis:T out:Tw", "F") \
  X("et_vk.conv1d_dw.default", "input:T weight:C bias:c stride:K padding:K dilation:K groups:* output_min:S output_max:S out:T", "") \
  X("et_vk.conv1d_pw.default", "input:T weight:C bias:c stride:* padding:* dilation:* groups:I output_min:S output_max:S out:T", "") \
  X("et_vk.conv2d_gemm.default", "input:T weight:C bias:c stride:K padding:K dilation:K transposed:B output_padding:* groups:I out:T", "") \
  X("et_vk.conv2d_q8csw.default", "input:T weight:C weight_scales:C bias:c kernel_size:K stride:K padding:K dilation:K groups:I out:T", "") \
  X("et_vk.conv2d_q8ta_q8csw.default", "input:T input_scale:S input_zero_point:I weight:C weight_sums:C weight_scales:C bias:c kernel_size:K stride:K padding:K dilation:K groups:I out:T", "") \
  X("et_vk.conv2d_q8ta_q8csw_q8to.default", "input:T input_scale:S input_zero_point:I weight:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I out:T", "") \
  X("et_vk.conv2d_q8ta_q8csw_q8to_dw.default", "input:T input_scale:S input_zero_point:I weight:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I out:T", "") \
  X("et_vk.conv_with_clamp.default", "input:T weight:C bias:t stride:L padding:L dilation:L transposed:B output_padding:L groups:I output_min:s output_max:s out:T", "F 4d") \
  X("et_vk.embedding_q4gsw.default", "weight:C weight_scales:C group_size:I indices:Tw is_linear_weight:B out:Tw", "4d") \
  X("et_vk.fused_ce.default", "logits:T2 labels:T1 n_valid:S out:V", "F,I,->F,F 4d") \
  X("et_vk.grid_priors.default", "self:T stride:I offset:S out:T", "F 4d") \
  X("et_vk.linear_dW.default", "d_out:T x:T out:T", "F 4d") \
  X("et_vk.linear_dq8ca_q4gsw.default", "input:T input_scales:T input_zero_points:T weight:C weight_sums:C weight_scales:C group_size:I bias:c out:T", "F,-,-,-,-,F,-,F 4d") \
  X("et_vk.linear_q4gsw.default", "input:T weight:C weight_scales:C group_size:I bias:c out:T", "F,-,F,-,F 4d") \
  X("et_vk.linear_q4gsw_backward.default", "d_out:T weight:C weight_scales:C group_size:I out:T", "F,-,F 4d") \
  X("et_vk.linear_q8csw.default", "input:T weight:C weight_scales:C bias:c out:T", "") \
  X("et_vk.linear_q8ta_q8csw.default", "input:T input_scale:S input_zero_point:I weight:C weight_sums:C weight_scales:C bias:c out:T", "F,-,-,-,-,F,F 4d") \
  X("et_vk.linear_qcs4w.default", "self:T weight:C scales:C out:T", "F,-,F 4d") \
  X("et_vk.prepack.default", "x:C out:T", "") \
  X("et_vk.q4gsw_linear.default", "input:T weight:C weight_scales:C group_size:I bias:c out:T", "") \
  X("et_vk.q4gsw_requant.default", "latent:T2 scales:C group_size:I out:T", "F 4d") \
  X("et_vk.q8ta_add.default", "input_a:T input_b:T input_a_scale:S input_a_zero_point:I input_b_scale:S input_b_zero_point:I output_scale:S output_zero_point:I alpha:S out:T", "4d") \
  X("et_vk.q8ta_conv2d.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I activation:X out:T", "4d") \
  X("et_vk.q8ta_conv2d_dw.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I activation:X out:T", "4d") \
  X("et_vk.q8ta_conv2d_general.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I activation:X out:T", "") \
  X("et_vk.q8ta_conv2d_im2col.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I activation:X out:T", "") \
  X("et_vk.q8ta_conv2d_pw.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:* stride:* padding:* dilation:* groups:* activation:X out:T", "4d") \
  X("et_vk.q8ta_conv2d_transposed.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K output_padding:K dilation:K groups:I activation:X out:T", "4d") \
  X("et_vk.q8ta_linear.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c activation:X out:T", "4d") \
  X("et_vk.q8ta_linear_gemv.default", "x:T input_scale:S input_zero_point:I weights:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c activation:X out:T", "4d") \
  X("et_vk.q8ta_pixel_shuffle.default", "input:T input_scale:S input_zero_point:I output_inv_scale:S output_zero_point:I upscale_factor:I out:T", "4d") \
  X("et_vk.q8ta_relu.default", "input:T input_scale:S input_zero_point:I output_scale:S output_zero_point:I out:T", "4d") \
  X("et_vk.rms_norm.default", "x:T weight:C eps:S out:T", "F 4d") \
  X("et_vk.sdpa.default", "q:T4w k:T4w v:T4w attn_mask:t scale:s out:T", "F 4d") \
  X("et_vk.select_as_symint.default", "x:* dim:* index:* out:*", "") \
  X("etvk.choose_qparams_per_row.default", "input:T quant_min:i quant_max:i scales_out:T zero_points_out:T", "") \
  X("etvk.test_conv2d_q8ta_q8csw_q8to.default", "input:T input_scale:S input_zero_point:I weight:C weight_sums:C weight_scales:C output_scale:S output_zero_point:I bias:c kernel_size:K stride:K padding:K dilation:K groups:I layout:I out:T", "") \
  X("floordiv", "a:I b:I out:Y", "4d") \
  X("llama.custom_sdpa.default", "query:Tw k_cache:Tw v_cache:Tw start_pos:I attn_mask:n dropout_p:s is_causal:s scale:n out:T", "F 4d") \
  X("mul", "a:I b:I out:Y", "4d") \
  X("quantized_decomposed.dequantize_per_tensor.default", "input:T scale:S zero_point:I quant_min:* quant_max:* dtype:* out_dtype:* ... out:T", "") \
  X("quantized_decomposed.quantize_per_tensor.default", "input:T scale:S zero_point:I quant_min:* quant_max:* dtype:* ... out:T", "") \
  X("sdpa_with_kv_cache.default", "query:Tw key:T value:T key_cache:T value_cache:T start_pos:I seq_len:* attn_mask:n dropout_p:s is_causal:s scale:n out:T", "F 4d") \
  X("sub", "a:I b:I out:Y", "4d") \
  X("sym_size.int", "self:T dim:I out:Y", "4d") \
  X("testing.compute_attn_weight_with_kv_cache.default", "query:T key:T value:T key_cache:T value_cache:T start_pos:I seq_len:* attn_mask:* dropout_p:* is_causal:* scale:* out:T", "") \
  X("torchao.choose_qparams_affine.default", "input:T mapping_type:* block_size:K target_dtype:* quant_min:i quant_max:i eps:* scale_dtype:* zero_point_dtype:* ... out:V", "4d") \
  X("update_cache.default", "value:T cache:T start_pos:I out:*", "F 4d")

/* Number of entries of TP_VK_OPS (157). */
TPDEF size_t tp_vk_op_count(void);
/* Name, argument kinds and datatypes / ranks of entry i of TP_VK_OPS (its name, args and types
   strings); NULL when i >= tp_vk_op_count(). */
TPDEF const char *tp_vk_op_name(size_t i);
TPDEF const char *tp_vk_op_args(size_t i);
TPDEF const char *tp_vk_op_types(size_t i);
/* Index of name in TP_VK_OPS (exact, case-sensitive), or -1 (also for NULL). */
TPDEF int tp_vk_op_find(const char *name);

/* Creates an empty graph. opts == NULL means all defaults; opts is copied (the store is
   borrowed and must outlive the graph). TP_ERR_INVALID for a NULL out, TP_ERR_NOMEM. */
TPDEF tp_status tp_vk_graph_create(const tp_vk_options *opts, tp_vk_graph **out);
/* Frees the graph (NULL is fine). Borrowed views and the store are left alone. */
TPDEF void tp_vk_graph_destroy(tp_vk_graph *g);
/* The first (latched) failure as a sentence; else the last failed size / write call's (until
   the next one); else "". */
TPDEF const char *tp_vk_graph_error(const tp_vk_graph *g);
/* The status of what tp_vk_graph_error describes (TP_OK when none). */
TPDEF tp_status tp_vk_graph_status(const tp_vk_graph *g);
/* Number of values so far (the next value id); of operator calls in the chain so far (the next
   operator's index). As tp_xnn_graph_num_values / tp_xnn_graph_num_nodes. */
TPDEF uint32_t tp_vk_graph_num_values(const tp_vk_graph *g);
TPDEF uint32_t tp_vk_graph_num_ops(const tp_vk_graph *g);
/* GraphTypes tag of value id (TP_VK_*_VALUE), 0 when id does not exist. */
TPDEF int tp_vk_graph_value_type(const tp_vk_graph *g, uint32_t id);

/* Scalars: each call makes one new value (no dedup); *id_out (may be NULL) gets its id. */
TPDEF tp_status tp_vk_add_null(tp_vk_graph *g, uint32_t *id_out);
TPDEF tp_status tp_vk_add_int(tp_vk_graph *g, int64_t v, uint32_t *id_out);
TPDEF tp_status tp_vk_add_double(tp_vk_graph *g, double v, uint32_t *id_out);
/* Any non-zero v is written as true. */
TPDEF tp_status tp_vk_add_bool(tp_vk_graph *g, int v, uint32_t *id_out);
/* s is copied (NUL-terminated, may be ""). NULL is TP_ERR_INVALID. */
TPDEF tp_status tp_vk_add_string(tp_vk_graph *g, const char *s, uint32_t *id_out);
TPDEF tp_status tp_vk_add_symint(tp_vk_graph *g, int32_t v, uint32_t *id_out);

/* Lists: items copied; n == 0 makes exactly one value with an empty (present) items vector
   (v may then be NULL). Bool items: non-zero is true. Value list items must be ids of values
   that already exist. */
TPDEF tp_status tp_vk_add_int_list(tp_vk_graph *g, const int64_t *v, size_t n, uint32_t *id_out);
TPDEF tp_status tp_vk_add_double_list(tp_vk_graph *g, const double *v, size_t n,
                                      uint32_t *id_out);
TPDEF tp_status tp_vk_add_bool_list(tp_vk_graph *g, const uint8_t *v, size_t n,
                                    uint32_t *id_out);
TPDEF tp_status tp_vk_add_value_list(tp_vk_graph *g, const uint32_t *ids, size_t n,
                                     uint32_t *id_out);

/* A tensor value, described by a struct whose zero value means "default" for every field but the
   datatype (sokol-style; the one way to add a tensor). Storage and layout use their own enums
   where 0 is DEFAULT and each schema value is shifted by one (TP_VK_STORAGE_BUFFER is 1 here,
   TP_VK_BUFFER 0 in the schema). */
typedef enum tp_vk_storage {
  TP_VK_STORAGE_DEFAULT = 0, /* written as 255: the runtime (or a compile spec) decides */
  TP_VK_STORAGE_BUFFER = 1, TP_VK_STORAGE_TEXTURE_3D = 2, TP_VK_STORAGE_TEXTURE_2D = 3
} tp_vk_storage;
typedef enum tp_vk_layout {
  TP_VK_LAYOUT_DEFAULT = 0, /* written as 255: the runtime (or a compile spec) decides */
  TP_VK_LAYOUT_WIDTH_PACKED = 1, TP_VK_LAYOUT_HEIGHT_PACKED = 2, TP_VK_LAYOUT_CHANNELS_PACKED = 3,
  TP_VK_LAYOUT_PACKED_INT8_4W4C = 4, TP_VK_LAYOUT_PACKED_INT8_4H4W = 5,
  TP_VK_LAYOUT_PACKED_INT8_4W = 6, TP_VK_LAYOUT_PACKED_INT8_4C = 7,
  TP_VK_LAYOUT_PACKED_INT8_4C1W = 9, TP_VK_LAYOUT_PACKED_INT8_CONV2D = 10
} tp_vk_layout;
typedef struct tp_vk_tensor_desc {
  tp_vk_datatype datatype;   /* REQUIRED, there is no default: 0 is TP_VK_BOOL; not TP_VK_UNSET */
  size_t ndim;               /* number of dims; with dims NULL and a constant: 0 or the
                                constant's ndim (its sizes are taken) */
  const size_t *dims;        /* each dim fits a u32; NULL: the constant's sizes (no constant:
                                ndim must be 0, a 0-dim tensor) */
  const tp_tensor *constant; /* NULL: not a constant (constant_id -1). Else a view whose element
                                count is numel(dims), its dtype the datatype's own (or F32 / F16
                                for FLOAT16 / FLOAT32, converted; see the manual); inline: borrowed
                                until the graph is written */
  tp_vk_storage storage;     /* 0: default (written as 255) */
  tp_vk_layout layout;       /* 0: default (written as 255) */
  tp_vk_datatype staging;    /* 0: default = the tensor's datatype (a non-constant FLOAT32 under
                                force_fp16: FLOAT32), as upstream. So TP_VK_BOOL (0) staging is
                                only had by a BOOL tensor, as its default. */
  int shares_memory;         /* 0: own memory (mem_obj_id -1 in the blob); non-zero: the tensor
                                lives in shared memory object mem_obj_id */
  int32_t mem_obj_id;        /* read only when shares_memory (>= 0); must be 0 otherwise */
} tp_vk_tensor_desc;
/* A desc with datatype dt, shape ndim x dims (dims NULL: the constant's sizes) and constant (NULL:
   none), every other field zero, i.e. its default: start from it and set what differs. */
TPDEF tp_vk_tensor_desc tp_vk_tensor_desc_make(tp_vk_datatype dt, size_t ndim,
                                               const size_t *dims, const tp_tensor *constant);
/* Adds the tensor desc describes; *id_out (may be NULL) gets its id. TP_ERR_INVALID for a NULL
   desc, an unknown datatype or staging datatype, a storage or layout outside its enum,
   mem_obj_id set without shares_memory, a negative mem_obj_id, more than TP_MAX_DIMS dims, dims
   NULL without a constant to take them from (or an ndim that differs from the constant's), a
   constant that does not match dims x datatype; TP_ERR_OVERFLOW for a dim larger than a u32 or
   dims whose product overflows; a bad view is what tp_tensor_check says. */
TPDEF tp_status tp_vk_add_tensor_desc(tp_vk_graph *g, const tp_vk_tensor_desc *desc,
                                      uint32_t *id_out);

/* The key a named constant got (owned by the graph), or NULL when value id is not a named
   constant. */
TPDEF const char *tp_vk_constant_key(const tp_vk_graph *g, uint32_t id);

/* Appends an operator call to the chain: node_id (debug handle, any), name (copied, e.g.
   "aten.linear.default"), args = value ids that exist (outputs last, as upstream).
   Unless options.other_runtime is set, the call is checked against TP_VK_OPS first:
   a name ExecuTorch's Vulkan backend does not register is TP_ERR_UNSUPPORTED ("operator 0:
   \"aten.mv.default\" is not one of the 157 operators ..."); a wrong argument count (fewer
   than the fixed ones where the list has "..."), a value of the wrong kind (a Null where a
   scalar is needed), a tensor of the wrong rank (a 1-D input to aten.mm.default) or a
   non-width-packed input where width-packed is needed is TP_ERR_INVALID; a tensor whose
   datatype or rank the op's types exclude (an INT32 input to aten.abs.default, a 5-D input to
   aten.linear.default) is TP_ERR_UNSUPPORTED. Each sentence names the operator, the argument,
   the value and what it needs. */
TPDEF tp_status tp_vk_add_op(tp_vk_graph *g, uint32_t node_id, const char *name,
                             const uint32_t *args, size_t n);
/* Sets (replaces) the graph's input and output value ids; every id must exist. */
TPDEF tp_status tp_vk_set_io(tp_vk_graph *g, const uint32_t *inputs, size_t n_in,
                             const uint32_t *outputs, size_t n_out);
/* Adds a shader (e.g. SPIR-V) as raw bytes, copied; *index_out (may be NULL) = its index in
   VkGraph.shaders. n == 0 or NULL bytes is TP_ERR_INVALID.
   EXECUTORCH IGNORES THEM: its VulkanBackend never reads VkGraph.shaders (a blob with 64 junk
   shader bytes runs); it compiles its own shader library. Part of the format, written as given. */
TPDEF tp_status tp_vk_add_shader(tp_vk_graph *g, const void *bytes, size_t n,
                                 uint32_t *index_out);
/* Graph-level storage type / memory layout overrides; 0 = default (255, not written), as in
   tp_vk_tensor_desc (the schema's value + 1).
   EXECUTORCH IGNORES THEM: its VulkanBackend reads neither VkGraph.storage_type_override nor
   memory_layout_override. What it honours is each tensor's own storage_type / memory_layout
   (tp_vk_add_tensor_desc) and, for a program, the delegate's compile specs
   (tp_vk_compile_specs below). Part of the format, written as given. */
TPDEF tp_status tp_vk_set_overrides(tp_vk_graph *g, tp_vk_storage storage, tp_vk_layout layout);

/* ---- compile specs: what ExecuTorch's runtime reads to choose storage and layout ------- */

/* The delegate compile specs ExecuTorch's VulkanBackend reads (VulkanBackend.cpp,
   get_graph_config): the storage type and memory layout every tensor of DEFAULT storage /
   layout gets. A program's BackendDelegate carries them (tp_vk_add_pte_method); this is how a
   user asks for BUFFER storage the way the runtime understands. Zero-initialised = none given
   (no compile spec written); the values are tp_vk_tensor_desc's (the schema's value + 1). */
typedef struct tp_vk_compile_specs {
  tp_vk_storage storage; /* 0: not given; else written as storage_type_override */
  tp_vk_layout layout;   /* 0: not given; else written as memory_layout_override (the runtime's
                            enum has every tp_vk_layout but PACKED_INT8_CONV2D) */
} tp_vk_compile_specs;

#define TP_VK_MAX_COMPILE_SPECS 2

/* Encodes specs (NULL = none) into out[0 .. *count) as ExecuTorch's Vulkan partitioner writes
   them (vulkan_partitioner.py parse_compile_options: the key, the schema's value as 4 bytes,
   little-endian, which the runtime requires; value points to static bytes): storage first, then
   layout, only the ones given. A value the runtime does not know (storage 4, layout 8 or
   TP_VK_LAYOUT_PACKED_INT8_CONV2D, ...) is TP_ERR_INVALID with a sentence in err (may be NULL),
   *count 0. NULL out or count: TP_ERR_INVALID. */
TPDEF tp_status tp_vk_encode_compile_specs(const tp_vk_compile_specs *specs,
                                           tp_pte_compile_spec out[TP_VK_MAX_COMPILE_SPECS],
                                           size_t *count, tp_error *err);

/* Exact number of bytes tp_vk_write will produce. */
TPDEF tp_status tp_vk_blob_size(tp_vk_graph *g, uint64_t *size_out);
/* Streams the blob into sink; the graph can be written again (same bytes). With
   options.progress set it reports (done, total = the blob size). Errors, sentences and
   cancelling: as every writer object (tensorpack.h section 11, "writer objects"). */
TPDEF tp_status tp_vk_write(tp_vk_graph *g, tp_sink *sink);
#ifndef TP_NO_STDIO
/* Writes the blob to path atomically (temp file + rename; removed on any error): a failure
   leaves a sentence naming the path in tp_vk_graph_error (tensorpack.h section 11, "writer
   objects") and does not kill the graph. */
TPDEF tp_status tp_vk_write_file(tp_vk_graph *g, const char *path);
/* tp_vk_blob_size + tp_vk_write_file, a failure's sentence (tp_vk_graph_error) on stderr as
   "error: <sentence>"; *size_out (may be NULL) gets the blob's bytes. As tp_store_save_ptd. */
TPDEF tp_status tp_vk_save(tp_vk_graph *g, const char *path, uint64_t *size_out);
#endif

/* ---- reading a blob (bounds-checked) ---------------------------------------------------- */

/* The VH00 header, checked by the delegate core's tp__delegate_parse (header size >= 30,
   flatbuffer offset >= header size, flatbuffer size >= 12, bytes offset >= flatbuffer end, both
   regions inside size: what VulkanDelegateHeader.cpp checks, and a flatbuffer that can hold a
   root table) plus the flatbuffer's "VK00" identifier. TP_ERR_FORMAT otherwise. */
typedef struct tp_vk_header {
  uint32_t header_size;
  uint32_t flatbuffer_offset, flatbuffer_size;
  uint32_t bytes_offset;
  uint64_t bytes_size;
} tp_vk_header;
TPDEF tp_status tp_vk_parse_header(const void *blob, size_t size, tp_vk_header *out);

/* A VH00 blob as read: tp_vk_read_blob reads it once, through the bounds-checked reader and
   under every VK00 rule (listed at tp__vk_read in >>vk-read), into the read-only structure
   below; tp_vk_check_blob, tp_vk_upload_blob and tpdump's Vulkan report all work on it.
   Pointers point into the blob (or the .ptd), which must outlive the result; the vectors not
   copied (list items, operator arguments) are little-endian elements there. */

/* One VkValue: its GraphTypes tag and the fields of its member. */
typedef struct tp_vk_blob_value {
  int type;                  /* GraphTypes tag (TP_VK_*_VALUE) */
  /* VkTensor (type TP_VK_TENSOR_VALUE) */
  tp_vk_datatype datatype;
  int staging_datatype;      /* a VkDataType, or TP_VK_UNSET */
  int storage_type;          /* a VkStorageType, or 255 (DEFAULT) */
  int memory_layout;         /* a VkMemoryLayout, or 255 (DEFAULT) */
  uint32_t ndim;
  uint32_t dims[TP_MAX_DIMS];
  int32_t constant_id;       /* as stored (< 0: no constant); -1 for the other kinds */
  int32_t mem_obj_id;        /* as stored; -1 for the other kinds */
  int is_constant;           /* a VkTensor with constant_id >= 0 */
  uint64_t nbytes;           /* numel(dims) x datatype size */
  const void *data;          /* constants: the bytes, inside the blob or the .ptd; NULL for a
                                named constant read without a .ptd */
  const char *key;           /* named constants: the key (inside the blob); else NULL */
  /* Int, SymInt and Bool (0 / 1) in i; Double in d; String in str (str_len bytes, NULL when
     absent) */
  int64_t i;
  double d;
  const char *str;
  size_t str_len;
  /* IntList, DoubleList, BoolList, ValueList: count items of item_size bytes: 8 (int64),
     8 (double), 1 (bool), 4 (int32 value id) */
  uint32_t count;
  unsigned item_size;
  const unsigned char *items;
} tp_vk_blob_value;

/* One OperatorCall of the chain. */
typedef struct tp_vk_blob_op {
  uint32_t node_id;
  const char *name;          /* name_len bytes */
  size_t name_len;
  int op_index;              /* tp_vk_op_find's index; -1 for a name ExecuTorch's Vulkan
                                backend does not register (its loader aborts there) */
  uint32_t num_args;
  const unsigned char *args; /* num_args int32 value ids */
} tp_vk_blob_op;

/* One VkBytes entry of constants or shaders. named: named_key present and offset UINT64_MAX
   (the bytes are the .ptd's entry of that key); else inline in the raw bytes (a named_key is
   then kept as read and ignored, as ExecuTorch does). */
typedef struct tp_vk_blob_bytes {
  uint64_t offset, length;
  const char *named_key;     /* named_key_len bytes; NULL when absent */
  size_t named_key_len;
  int named;
  const unsigned char *data; /* inline: inside the raw bytes; named: in the .ptd when one was
                                given, else NULL */
} tp_vk_blob_bytes;

typedef struct tp_vk_blob {
  int has_header;            /* a VH00 frame (else a bare VK00 flatbuffer, no raw bytes) */
  tp__delegate_frame frame;   /* segment: the raw bytes */
  const unsigned char *flatbuffer;
  size_t flatbuffer_size;
  const unsigned char *segment; /* the raw bytes (NULL without a header) */
  uint64_t segment_size;
  const char *version;       /* version_len bytes; NULL when absent */
  size_t version_len;
  int storage_type_override, memory_layout_override; /* 255: absent (ExecuTorch ignores them) */
  uint32_t num_values, num_ops, num_input_ids, num_output_ids, num_constants, num_shaders;
  tp_vk_blob_value *values;  /* indexed by value id */
  tp_vk_blob_op *ops;        /* the chain, in order */
  uint32_t *input_ids, *output_ids;
  tp_vk_blob_bytes *constants, *shaders;
} tp_vk_blob;

/* Reads a Vulkan delegate blob: the VH00 header (tp__delegate_parse; a blob whose bytes 4..7
   are "VK00" is read as a bare VK00 flatbuffer without raw bytes, as tpdump shows one), the
   VkGraph flatbuffer, and each constant's bytes as ExecuTorch's loader resolves them: named
   (key present and offset UINT64_MAX) through ptd (opened with tp_ptd_open; NULL: named
   constants are not looked up and their data stays NULL), otherwise inside the raw bytes
   (offset < raw size, extent inside). Every VK00 rule is checked (the list at tp__vk_read:
   ids in range, known enums, dims, each constant's length exactly numel(dims) x datatype size,
   every constants / shaders entry inside the raw bytes or the .ptd, ...), the first one broken
   reported. Errors: TP_ERR_FORMAT (sentence in err, may be NULL; reset on entry), TP_ERR_NOMEM,
   TP_ERR_INVALID for a NULL out or blob; on failure *out is zeroed. Free with
   tp_vk_blob_free. */
TPDEF tp_status tp_vk_read_blob(const void *blob, size_t size, tp_ptd *ptd, tp_vk_blob *out,
                                tp_error *err);
/* Frees what tp_vk_read_blob allocated (a zeroed or already freed blob is fine). */
TPDEF void tp_vk_blob_free(tp_vk_blob *b);
/* tp_vk_read_blob's verdict on a blob for ExecuTorch's loader, which needs the VH00 header (a
   bare flatbuffer is refused with the header's sentence); with ptd NULL a named constant's key
   is not looked up. tpdump --check's verdict on a Vulkan blob is this call's. TP_OK, or
   TP_ERR_FORMAT with the sentence in err (may be NULL; reset on entry); TP_ERR_NOMEM;
   TP_ERR_INVALID for a NULL blob. */
TPDEF tp_status tp_vk_check_blob(const void *blob, size_t size, tp_ptd *ptd, tp_error *err);

/* ---- quantized linears in one call (tensorpack.h section 5b) ----------------------------
   The weight-quantized linears ExecuTorch's VulkanBackend registers, from a float weight view
   w [N, K] (f32 / f16 / bf16, any strides) quantized by tp_quantize_symmetric, each constant
   in the layout the backend's pattern passes (backends/vulkan/patterns/quantized_linear.py,
   _passes/fuse_quantized_ops.py) leave it:
   tp_vk_add_linear_q4gsw   et_vk.linear_q4gsw.default(input, weight, scales, group_size,
                            bias | Null, output): 4-bit groupwise, torchao 8da4w weight
                            numerics; weight UINT8 [N, ceil(K / 8) * 4] (two values per byte,
                            low nibble = even k, value + 8; K padded to a multiple of 8 with 0,
                            as pack_4bit_weight_tensor), scales TRANSPOSED to [K / group_size,
                            align4(N)] (zero-padded columns) in FLOAT32 (scale_dtype TP_F32) or
                            FLOAT16 (TP_F16), group_size an Int, bias FLOAT32 [align4(N)]
                            zero-padded.
   tp_vk_add_linear_q8csw   aten._weight_int8pack_mm.default(input, weight, scales, out) then,
                            with a bias, aten.add.Tensor(out', bias, 1, output) as the fuse pass
                            does: 8-bit per channel with the bits-8 numerics of
                            tp_quantize_symmetric (XNNPACKQuantizer's: [-127, 127], eps 2^-12);
                            weight INT8 [N, K], scales FLOAT32 [N]. NOTE: ExecuTorch's own
                            VulkanQuantizer (weight_bits 8) uses [-128, 127] and the observer's
                            default eps, so its values differ from these in the last step.
   input_id / output_id are tensors the caller added ([.., K] / [.., N], FLOAT32). The
   quantized constants and padded copies are owned by q: keep q until the graph (and its store)
   is written, then tp_vk_qlinear_release(q). On failure q holds nothing. Errors latch in the
   graph with a sentence (the quantizer's, or "linear_q4gsw: ..."). */
typedef struct tp_vk_qlinear {
  tp_buffer values;  /* the weight constant's bytes as written (packed for 4 bits) */
  tp_buffer scales;  /* the scales constant's elements (transposed and padded for q4gsw) */
  tp_buffer bias;    /* q4gsw: the padded bias copy (empty without bias) */
  uint32_t weight_id, scales_id, bias_id; /* bias_id: the Null value when there is no bias */
  uint32_t mm_out_id; /* q8csw with bias: the intermediate tensor; else output_id */
} tp_vk_qlinear;
TPDEF tp_status tp_vk_add_linear_q4gsw(tp_vk_graph *g, const tp_tensor *w, int64_t group_size,
                                       tp_dtype scale_dtype, const tp_tensor *bias,
                                       uint32_t input_id, uint32_t output_id,
                                       tp_vk_qlinear *q);
TPDEF tp_status tp_vk_add_linear_q8csw(tp_vk_graph *g, const tp_tensor *w, const tp_tensor *bias,
                                       uint32_t input_id, uint32_t output_id, tp_vk_qlinear *q);
/* Frees q's buffers (after the graph and its store are written); q may be NULL. */
TPDEF void tp_vk_qlinear_release(tp_vk_qlinear *q);

/* ---- programs (.pte) ---------------------------------------------------------------------- */
/* What tensor value `id` is (for wrappers such as tp_vk_add_pte_method). */
typedef struct tp_vk_tensor_info {
  tp_vk_datatype datatype;   /* as written (after force_fp16) */
  tp_vk_datatype staging;    /* the staging datatype as written (what the caller's data is) */
  size_t ndim;
  uint32_t dims[TP_MAX_DIMS];
  int is_constant;
} tp_vk_tensor_info;
/* TP_ERR_INVALID when id is not a tensor value of g (or out is NULL); out zeroed then. A tensor
   has at most TP_MAX_DIMS dims (tp_vk_add_tensor_desc refuses more). */
TPDEF tp_status tp_vk_graph_tensor(const tp_vk_graph *g, uint32_t id, tp_vk_tensor_info *out);
/* The graph's input and output value ids (owned by g, valid until the next tp_vk_set_io). */
TPDEF void tp_vk_graph_io(const tp_vk_graph *g, const uint32_t **inputs, size_t *n_in,
                          const uint32_t **outputs, size_t *n_out);
/* Adds method `name` to p: one delegate call to "VulkanBackend" whose blob is g (streamed at
   write time; g and its views are borrowed until p is written), with the compile specs of cs
   (NULL = none; encoded by tp_vk_encode_compile_specs, copied: the way to ask ExecuTorch's
   runtime for BUFFER storage or a memory layout for every tensor of default storage / layout).
   Its arguments are g's inputs then its outputs, in list order (VulkanBackend copies args[i]
   into input i and output j from args[n_inputs + j]); each a memory-planned tensor with the
   value's dims and its staging datatype's ScalarType (BOOL -> Bool, UINT8 -> Byte, INT8 ->
   Char, INT32 -> Int, FLOAT16 -> Half, FLOAT32 -> Float, FLOAT64 -> Double, INT64 -> Long). A
   named-mode graph's store must be embedded in p or written as a .ptd beside it. Refused
   (latched in p, with a sentence): a failed graph; a compile spec value the runtime does not
   know (TP_ERR_INVALID, the encoder's sentence after "method \"NAME\": "); an input or output
   that is not a tensor (TP_ERR_UNSUPPORTED); and tp_pte_add_method's refusals. */
TPDEF tp_status tp_vk_add_pte_method(tp_pte *p, const char *name, tp_vk_graph *g,
                                     const tp_vk_compile_specs *cs);
/* A DelegateCall of g ("VulkanBackend", its blob streamed at write time: g and its views are
   borrowed until the program is written) in program graph pg, beside kernel calls: args are
   pg's Tensor values bound to g's inputs, then its outputs, in list order, one each, with the
   ScalarType and dims of each. Refused, latched in pg with a sentence: a failed graph, an
   input / output that is not a tensor (as tp_vk_add_pte_method); a count other than the
   graph's inputs plus outputs; a value that is not a Tensor or has another dtype or other
   sizes (TP_ERR_INVALID); tp_pte_call_delegate's. The sibling of tp_xnn_pte_call. */
TPDEF tp_status tp_vk_pte_call(tp_pte_graph *pg, tp_vk_graph *g, const uint32_t *args, size_t n);
/* The named keys that the VulkanBackend delegates of program f (read with tp_pte_read) make
   ExecuTorch's loader look up (a constant tensor whose VkBytes has a named_key and offset
   UINT64_MAX) and that neither f's own named data nor ptd (may be NULL) holds: what a .ptd
   passed beside the program must bring. Only method m's delegates, or every method's with
   m == (size_t)-1. The keys are distinct, in first-use order (value order within a blob);
   keys[0 .. min(*count, cap)) point into f's bytes (keys may be NULL with cap 0 to count
   only); *count gets their number. Cost linear in the keys. Errors: TP_ERR_FORMAT (a delegate
   blob that tp_vk_check_blob refuses: "method \"NAME\" delegate K: " and its sentence),
   TP_ERR_INVALID (m out of range, NULL count), TP_ERR_NOMEM; sentence in *err (may be NULL;
   reset on entry). The sibling of tp_xnn_pte_missing_keys. */
TPDEF tp_status tp_vk_pte_missing_keys(tp_pte_file *f, size_t m, tp_ptd *ptd, const char **keys,
                                       size_t cap, size_t *count, tp_error *err);

/* ---- for tools/tpdump.c, not for users (tp__: not API, may change in any release) ---- */
/* Calls fn for each key one VulkanBackend blob makes the loader look up, in value order, after
   tp_vk_check_blob (ptd NULL) accepts it (its sentence in err otherwise); stops at fn's
   non-TP_OK. tpdump --check lists every backend's keys through it in one tp__pte_missing_keys. */
TPDEF tp_status tp__vk_blob_keys(const void *blob, size_t size, tp__key_fn fn, void *ctx,
                                 tp_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TENSORPACK_VULKAN_H */

/* ---- optional: upload onto a real Vulkan device ------------------------------------------ */
/* Outside the main include guard, so a file may include this header again with
   TENSORPACK_VULKAN_RUNTIME defined. */
#ifdef TENSORPACK_VULKAN_RUNTIME
#ifndef TENSORPACK_VULKAN_RUNTIME_H
#define TENSORPACK_VULKAN_RUNTIME_H
#include <vulkan/vulkan.h>
#ifdef __cplusplus
extern "C" {
#endif

/* One constant tensor value and the device buffer that holds its constant. Values that name the
   same constant (the same constant_id) share one buffer: buffer and memory are the same handles
   in each of them, and owner is the value id that holds it (the lowest such id); only
   tp_vk_upload_free destroys it, once. */
typedef struct tp_vk_device_constant {
  int is_constant;       /* 0: this value is not a constant (no buffer) */
  tp_vk_datatype datatype;
  uint32_t ndim;
  uint32_t dims[TP_MAX_DIMS];
  uint64_t nbytes;       /* 0 for an empty constant (then buffer is VK_NULL_HANDLE) */
  VkBuffer buffer;       /* usage STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST; shared */
  VkDeviceMemory memory; /* shared as buffer is */
  int staged;            /* 1 when the bytes went through a staging buffer and a copy */
  int32_t constant_id;   /* the blob's constant (-1 when not a constant) */
  uint32_t owner;        /* the value whose upload created buffer (this id when it did) */
} tp_vk_device_constant;

typedef struct tp_vk_upload {
  VkDevice device;
  uint32_t value_count;
  tp_vk_device_constant *values; /* value_count entries, indexed by value id */
  tp_error err;                  /* why tp_vk_upload failed */
  uint32_t buffer_count;         /* device buffers created: one per non-empty constant named */
  uint64_t buffer_bytes;         /* their bytes (the sum of each shared constant's nbytes once) */
} tp_vk_upload;

/* Upload flags. */
#define TP_VK_UPLOAD_FORCE_STAGING 1u /* use staging + copy even for host-visible memory */

/* Reads blob once, under every rule of tp_vk_check_blob (the VH00 header required; named
   constants resolved through ptd, NULL when the blob has none, else "value V: constant is
   named ... but no .ptd was given") and uploads every non-empty constant into one buffer on
   `device` (created from `physical`), shared by every value that names it (a blob of 400
   values naming one 4 MiB constant makes one 4 MiB buffer): memory DEVICE_LOCAL and
   host-visible when the device has it (mapped, copied), otherwise DEVICE_LOCAL through a
   host-visible staging buffer and a copy submitted on queue 0 of queue_family (also with
   TP_VK_UPLOAD_FORCE_STAGING).
   On failure everything created is destroyed and out->err says why: tp_vk_read_blob's errors
   (TP_ERR_FORMAT: malformed blob, missing .ptd or key, bytes not matching dims x datatype),
   TP_ERR_UNSUPPORTED for a Vulkan call that failed (naming it and its VkResult) or no fitting
   memory type, TP_ERR_INVALID for NULL arguments. Free with tp_vk_upload_free. */
TPDEF tp_status tp_vk_upload_blob(const void *blob, size_t size, tp_ptd *ptd,
                                  VkPhysicalDevice physical, VkDevice device,
                                  uint32_t queue_family, unsigned flags, tp_vk_upload *out);
/* Destroys every buffer and memory of u once (a shared one by its owner) and frees u's array
   (u zeroed; NULL-safe). */
TPDEF void tp_vk_upload_free(tp_vk_upload *u);

#ifdef __cplusplus
}
#endif
#endif /* TENSORPACK_VULKAN_RUNTIME_H */
#endif /* TENSORPACK_VULKAN_RUNTIME */

/* ====================================== stop here ======================================== */


#ifdef TENSORPACK_VULKAN_IMPLEMENTATION
#ifndef TENSORPACK_VULKAN_IMPLEMENTATION_DONE
#define TENSORPACK_VULKAN_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* >>vk-graph: the in-memory graph ------------------------------------------------------- */

typedef struct tp__vk_value {
  uint8_t type;         /* GraphTypes tag */
  int64_t i;            /* Int, SymInt, Bool */
  double d;             /* Double */
  void *items;          /* lists: int64_t / double / uint8_t / int32_t; String: char */
  size_t n;             /* list count or string length */
  /* VkTensor */
  int8_t dt, staging;
  uint8_t storage, layout;
  int32_t mem_obj_id, constant_id;
  uint32_t *dims;
  size_t ndim;
} tp__vk_value;

typedef struct tp__vk_const {
  uint32_t value_id;
  tp_tensor view;       /* inline: borrowed, written at write time */
  tp_dtype out;         /* dtype of the written bytes */
  uint64_t nbytes;
  uint64_t offset;      /* inline: offset in the raw segment (set by the layout) */
  char key[65];         /* named: sha256 hex; "" inline */
  int named;
} tp__vk_const;

typedef struct tp__vk_shader {
  unsigned char *bytes;
  size_t n;
  uint64_t offset;
} tp__vk_shader;

typedef struct tp__vk_op {
  uint32_t node_id;
  char *name;
  int32_t *args;
  size_t n;
} tp__vk_op;

struct tp_vk_graph {
  tp_vk_options opts;
  tp_error err;
  tp_error werr; /* the last size / write call's failure (never latched) */
  int writing;   /* > 0 while the graph is written */
  tp__vk_value *values;
  size_t nvalues, cap_values;
  tp__vk_const *consts;
  size_t nconsts, cap_consts;
  tp__vk_shader *shaders;
  size_t nshaders, cap_shaders;
  tp__vk_op *ops;
  size_t nops, cap_ops;
  uint32_t *inputs, *outputs;
  size_t ninputs, noutputs;
  uint8_t storage_override, layout_override;
  /* layout cache (valid while !dirty) */
  int dirty;
  tp_fb_builder *fb;
  uint64_t segment_size;  /* raw bytes, all padded, incl. the 16 zero bytes case */
  uint64_t fb_size;
  tp__delegate_frame frame; /* the delegate core's frame of the built flatbuffer */
};

/* The entry of every building call: the latched failure, or a call from a progress callback
   during the graph's own write (refused and latched: what is being written cannot change). */
static tp_status tp__vk_check(tp_vk_graph *g) {
  return tp__writer_busy(&g->err, g->writing, "a tp_vk_add_* call", "graph");
}

static tp_status tp__vk_nomem(tp_vk_graph *g, const char *what) {
  return tp__error_set(&g->err, TP_ERR_NOMEM, "out of memory while adding %s", what);
}

/* >>vk-format: names and sizes from the format description ---------------------------------- */

TPDEF const char *tp_vk_datatype_name(int v) {
#define TP__VK_DT_NAME(val, name, tpdt, size) if (v == val) return #name;
  TP_VK_DATATYPES(TP__VK_DT_NAME)
#undef TP__VK_DT_NAME
  return v == TP_VK_UNSET ? "UNSET" : NULL;
}

TPDEF size_t tp_vk_datatype_size(int v) {
#define TP__VK_DT_SIZE(val, name, tpdt, size) if (v == val) return size;
  TP_VK_DATATYPES(TP__VK_DT_SIZE)
#undef TP__VK_DT_SIZE
  return 0;
}

TPDEF const char *tp_vk_storage_type_name(int v) {
#define TP__VK_ST_NAME(val, name) if (v == val) return #name;
  TP_VK_STORAGE_TYPES(TP__VK_ST_NAME)
#undef TP__VK_ST_NAME
  return v == TP_VK_D_VkTensor_storage_type ? "DEFAULT" : NULL;
}

TPDEF const char *tp_vk_memory_layout_name(int v) {
#define TP__VK_ML_NAME(val, name) if (v == val) return #name;
  TP_VK_MEMORY_LAYOUTS(TP__VK_ML_NAME)
#undef TP__VK_ML_NAME
  return v == TP_VK_D_VkTensor_memory_layout ? "DEFAULT" : NULL;
}

TPDEF const char *tp_vk_value_kind_name(int tag) {
#define TP__VK_KIND_NAME(t, name, es) if (tag == t) return #name;
  TP_VK_VALUE_KINDS(TP__VK_KIND_NAME)
#undef TP__VK_KIND_NAME
  return NULL;
}

/* The element size of a GraphTypes member's items vector (TP_VK_VALUE_KINDS), 0 for none. */
static unsigned tp__vk_items_size(int tag) {
#define TP__VK_ITEMS_SIZE(t, name, es) if (tag == t) return (unsigned)(es);
  TP_VK_VALUE_KINDS(TP__VK_ITEMS_SIZE)
#undef TP__VK_ITEMS_SIZE
  return 0;
}

static const char *tp__vk_dt_name(int dt) {
  const char *n = tp_vk_datatype_name(dt);
  return n ? n : "?";
}

/* The tp_dtype whose bytes a VkDataType holds; -1 for none. */
static int tp__vk_dt_to_tp(int dt) {
#define TP__VK_DT_TP(val, name, tpdt, size) if (dt == val) return (int)tpdt;
  TP_VK_DATATYPES(TP__VK_DT_TP)
#undef TP__VK_DT_TP
  return -1;
}

/* A tp_vk_storage / tp_vk_layout (0 default, else the schema's value + 1) as the schema's value:
   255 for the default, -1 outside the enum; and the sentence part naming the enum. */
static int tp__vk_storage_value(int s) {
  return s == 0 ? 255 : s >= 1 && s <= 255 && tp_vk_storage_type_name(s - 1) ? s - 1 : -1;
}
static int tp__vk_layout_value(int l) {
  return l == 0 ? 255 : l >= 1 && l <= 255 && tp_vk_memory_layout_name(l - 1) ? l - 1 : -1;
}
#define TP__VK_STORAGE_ENUM "a tp_vk_storage (0 default, 1 BUFFER, 2 TEXTURE_3D, 3 TEXTURE_2D)"
#define TP__VK_LAYOUT_ENUM "a tp_vk_layout (0 default, 1-7, 9, 10: the schema's value + 1)"


TPDEF tp_status tp_vk_graph_create(const tp_vk_options *opts, tp_vk_graph **out) {
  tp_vk_graph *g;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  g = (tp_vk_graph *)TP_MALLOC(sizeof *g);
  if (!g) return TP_ERR_NOMEM;
  memset(g, 0, sizeof *g);
  if (opts) g->opts = *opts;
  g->storage_override = 255;
  g->layout_override = 255;
  g->dirty = 1;
  *out = g;
  return TP_OK;
}

TPDEF void tp_vk_graph_destroy(tp_vk_graph *g) {
  size_t i;
  if (!g) return;
  for (i = 0; i < g->nvalues; i++) {
    TP_FREE(g->values[i].items);
    TP_FREE(g->values[i].dims);
  }
  for (i = 0; i < g->nshaders; i++) TP_FREE(g->shaders[i].bytes);
  for (i = 0; i < g->nops; i++) {
    TP_FREE(g->ops[i].name);
    TP_FREE(g->ops[i].args);
  }
  TP_FREE(g->values);
  TP_FREE(g->consts);
  TP_FREE(g->shaders);
  TP_FREE(g->ops);
  TP_FREE(g->inputs);
  TP_FREE(g->outputs);
  if (g->fb) tp_fb_builder_destroy(g->fb);
  TP_FREE(g);
}

TPDEF const char *tp_vk_graph_error(const tp_vk_graph *g) {
  TP_ASSERT(g);
  return tp__writer_error(&g->err, &g->werr);
}

TPDEF tp_status tp_vk_graph_status(const tp_vk_graph *g) {
  TP_ASSERT(g);
  return tp__writer_status(&g->err, &g->werr);
}

TPDEF uint32_t tp_vk_graph_num_values(const tp_vk_graph *g) {
  TP_ASSERT(g);
  return (uint32_t)g->nvalues;
}

TPDEF uint32_t tp_vk_graph_num_ops(const tp_vk_graph *g) {
  TP_ASSERT(g);
  return (uint32_t)g->nops;
}

TPDEF int tp_vk_graph_value_type(const tp_vk_graph *g, uint32_t id) {
  TP_ASSERT(g);
  return id < g->nvalues ? (int)g->values[id].type : 0;
}

/* Reserves and zeroes the next value; NULL on failure (error recorded). */
static tp__vk_value *tp__vk_new_value(tp_vk_graph *g, uint8_t type, const char *what) {
  tp__vk_value *v;
  tp_status s;
  if (g->nvalues >= (size_t)INT32_MAX) {
    tp__error_set(&g->err, TP_ERR_OVERFLOW,
                 "value %lu: a graph holds at most %ld values (ids are int32 in the format)",
                 (unsigned long)g->nvalues, (long)INT32_MAX);
    return NULL;
  }
  s = tp__array_reserve((void **)&g->values, &g->cap_values, g->nvalues + 1, sizeof *g->values);
  if (s != TP_OK) {
    if (s == TP_ERR_NOMEM) tp__vk_nomem(g, what);
    else tp__error_set(&g->err, s, "value %lu: cannot grow the value table",
                      (unsigned long)g->nvalues);
    return NULL;
  }
  v = &g->values[g->nvalues];
  memset(v, 0, sizeof *v);
  v->type = type;
  return v;
}

static tp_status tp__vk_commit_value(tp_vk_graph *g, uint32_t *id_out) {
  if (id_out) *id_out = (uint32_t)g->nvalues;
  g->nvalues++;
  g->dirty = 1;
  return TP_OK;
}

static tp_status tp__vk_add_scalar(tp_vk_graph *g, uint8_t type, int64_t i, double d,
                                   uint32_t *id_out) {
  tp__vk_value *v;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  v = tp__vk_new_value(g, type, "a scalar");
  if (!v) return g->err.status;
  v->i = i;
  v->d = d;
  return tp__vk_commit_value(g, id_out);
}

TPDEF tp_status tp_vk_add_null(tp_vk_graph *g, uint32_t *id_out) {
  return tp__vk_add_scalar(g, TP_VK_NULL_VALUE, 0, 0.0, id_out);
}
TPDEF tp_status tp_vk_add_int(tp_vk_graph *g, int64_t v, uint32_t *id_out) {
  return tp__vk_add_scalar(g, TP_VK_INT_VALUE, v, 0.0, id_out);
}
TPDEF tp_status tp_vk_add_double(tp_vk_graph *g, double v, uint32_t *id_out) {
  return tp__vk_add_scalar(g, TP_VK_DOUBLE_VALUE, 0, v, id_out);
}
TPDEF tp_status tp_vk_add_bool(tp_vk_graph *g, int v, uint32_t *id_out) {
  return tp__vk_add_scalar(g, TP_VK_BOOL_VALUE, v != 0, 0.0, id_out);
}
TPDEF tp_status tp_vk_add_symint(tp_vk_graph *g, int32_t v, uint32_t *id_out) {
  return tp__vk_add_scalar(g, TP_VK_SYMINT_VALUE, v, 0.0, id_out);
}

/* Copies n elements of size es into a fresh allocation (n == 0: NULL, fine). */
static int tp__vk_dup(tp_vk_graph *g, const void *src, size_t n, size_t es, void **out,
                      const char *what) {
  uint64_t bytes;
  *out = NULL;
  if (n == 0) return 0;
  if (tp__mul_u64((uint64_t)n, (uint64_t)es, &bytes) || bytes > (uint64_t)SIZE_MAX) {
    tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %lu: %s of %lu items is too large",
                 (unsigned long)g->nvalues, what, (unsigned long)n);
    return 1;
  }
  *out = TP_MALLOC((size_t)bytes);
  if (!*out) {
    tp__vk_nomem(g, what);
    return 1;
  }
  memcpy(*out, src, (size_t)bytes);
  return 0;
}

TPDEF tp_status tp_vk_add_string(tp_vk_graph *g, const char *s, uint32_t *id_out) {
  tp__vk_value *v;
  size_t n;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (!s)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: string is NULL",
                        (unsigned long)g->nvalues);
  n = strlen(s);
  v = tp__vk_new_value(g, TP_VK_STRING_VALUE, "a string");
  if (!v) return g->err.status;
  if (tp__vk_dup(g, s, n + 1, 1, &v->items, "a string")) return g->err.status;
  v->n = n;
  return tp__vk_commit_value(g, id_out);
}

static tp_status tp__vk_add_list(tp_vk_graph *g, uint8_t type, const void *items, size_t n,
                                 size_t es, const char *what, uint32_t *id_out) {
  tp__vk_value *v;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (n > 0 && !items)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: %s of %lu items has NULL items",
                        (unsigned long)g->nvalues, what, (unsigned long)n);
  if (n > (size_t)INT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %lu: %s of %lu items is too long",
                        (unsigned long)g->nvalues, what, (unsigned long)n);
  v = tp__vk_new_value(g, type, what);
  if (!v) return g->err.status;
  if (tp__vk_dup(g, items, n, es, &v->items, what)) return g->err.status;
  v->n = n;
  return tp__vk_commit_value(g, id_out);
}

TPDEF tp_status tp_vk_add_int_list(tp_vk_graph *g, const int64_t *v, size_t n,
                                   uint32_t *id_out) {
  return tp__vk_add_list(g, TP_VK_INT_LIST_VALUE, v, n, sizeof(int64_t), "an int list", id_out);
}

TPDEF tp_status tp_vk_add_double_list(tp_vk_graph *g, const double *v, size_t n,
                                      uint32_t *id_out) {
  return tp__vk_add_list(g, TP_VK_DOUBLE_LIST_VALUE, v, n, sizeof(double), "a double list",
                         id_out);
}

TPDEF tp_status tp_vk_add_bool_list(tp_vk_graph *g, const uint8_t *v, size_t n,
                                    uint32_t *id_out) {
  tp_status s = tp__vk_add_list(g, TP_VK_BOOL_LIST_VALUE, v, n, 1, "a bool list", id_out);
  if (s == TP_OK) {
    uint8_t *items = (uint8_t *)g->values[g->nvalues - 1].items;
    size_t i;
    for (i = 0; i < n; i++) items[i] = (uint8_t)(items[i] != 0);
  }
  return s;
}

/* 1 when every id exists (error recorded naming the first that does not). `what` names the
   owner, e.g. "value list" or "operator", numbered `index` (index < 0: no number). */
static int tp__vk_ids_exist(tp_vk_graph *g, const uint32_t *ids, size_t n, const char *what,
                            long index) {
  char who[48];
  size_t i;
  if (index >= 0) tp__format(who, sizeof who, "%s %ld", what, index);
  else tp__format(who, sizeof who, "%s", what);
  if (n > 0 && !ids) {
    tp__error_set(&g->err, TP_ERR_INVALID, "%s: %lu ids given as NULL", who, (unsigned long)n);
    return 0;
  }
  for (i = 0; i < n; i++)
    if (ids[i] >= g->nvalues) {
      tp__error_set(&g->err, TP_ERR_INVALID,
                   "%s: id %lu (item %lu) does not exist; the graph has %lu values", who,
                   (unsigned long)ids[i], (unsigned long)i, (unsigned long)g->nvalues);
      return 0;
    }
  return 1;
}

/* Ids are stored as the format's int32 items: each is < nvalues <= INT32_MAX (checked), so the
   copied u32 bytes are those int32s. */
TPDEF tp_status tp_vk_add_value_list(tp_vk_graph *g, const uint32_t *ids, size_t n,
                                     uint32_t *id_out) {
  tp__vk_value *v;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (!tp__vk_ids_exist(g, ids, n, "value list", (long)g->nvalues)) return g->err.status;
  v = tp__vk_new_value(g, TP_VK_VALUE_LIST_VALUE, "a value list");
  if (!v) return g->err.status;
  if (tp__vk_dup(g, ids, n, sizeof(int32_t), &v->items, "a value list")) return g->err.status;
  v->n = n;
  return tp__vk_commit_value(g, id_out);
}

/* >>vk-tensor: tensors and constants ------------------------------------------------------ */

/* How a constant is converted into the tensor's datatype: narrowing to FLOAT16 clamps to
   +-65504 first, +-inf included (upstream's builder: tensor.clamp(finfo.min, finfo.max) before
   .to(float16); NaN stays NaN); widening FLOAT16 -> FLOAT32 is exact. */
static unsigned tp__vk_convert_flags(tp_dtype out) {
  return out == TP_F16 ? TP_CONVERT_SATURATE | TP_CONVERT_CLAMP_INF : TP_CONVERT_SATURATE;
}

static tp_status tp__vk_const_produce(const void *ctx, tp_sink *sink) {
  const tp__vk_const *c = (const tp__vk_const *)ctx;
  return tp_convert_write(&c->view, c->out, tp__vk_convert_flags(c->out), sink);
}

static tp_status tp__vk_add_const_named(tp_vk_graph *g, tp__vk_const *c, uint32_t id) {
  const char *key = NULL;
  tp_status s;
  /* the view as it is, or the converted bytes made once (the delegate core's routine) */
  s = tp__delegate_store_constant(g->opts.store, &c->view,
                                  c->out == c->view.dtype ? NULL : tp__vk_const_produce, c,
                                  c->nbytes, NULL, 16, &key);
  if (s != TP_OK)
    return tp__error_set(&g->err, s, "value %lu: adding the constant to the store failed: %s",
                        (unsigned long)id, tp_store_error(g->opts.store)[0]
                            ? tp_store_error(g->opts.store) : tp_status_str(s));
  if (!key || strlen(key) >= sizeof c->key)
    return tp__error_set(&g->err, TP_ERR_FORMAT, "value %lu: the store returned no usable key",
                        (unsigned long)id);
  memcpy(c->key, key, strlen(key) + 1);
  c->named = 1;
  return TP_OK;
}

TPDEF tp_vk_tensor_desc tp_vk_tensor_desc_make(tp_vk_datatype dt, size_t ndim,
                                               const size_t *dims, const tp_tensor *constant) {
  tp_vk_tensor_desc d;
  memset(&d, 0, sizeof d);
  d.datatype = dt;
  d.ndim = ndim;
  d.dims = dims;
  d.constant = constant;
  return d;
}

TPDEF tp_status tp_vk_add_tensor_desc(tp_vk_graph *g, const tp_vk_tensor_desc *desc,
                                      uint32_t *id_out) {
  unsigned long id;
  tp__vk_value *v;
  tp__vk_const c;
  uint32_t d32[TP_MAX_DIMS];
  uint64_t numel = 1;
  size_t i, ndim;
  const size_t *dims;
  const tp_tensor *constant;
  int idt, ist, tpdt, storage_type, memory_layout;
  tp_status s;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  id = (unsigned long)g->nvalues;
  if (!desc) return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: tensor desc is NULL", id);
  storage_type = tp__vk_storage_value((int)desc->storage);
  memory_layout = tp__vk_layout_value((int)desc->layout);
  if (storage_type < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: desc.storage %d is not "
                        TP__VK_STORAGE_ENUM, id, (int)desc->storage);
  if (memory_layout < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: desc.layout %d is not "
                        TP__VK_LAYOUT_ENUM, id, (int)desc->layout);
  if (!desc->shares_memory && desc->mem_obj_id != 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %lu: desc.mem_obj_id is %ld but desc.shares_memory is 0 (set it "
                        "to share memory object %ld)", id, (long)desc->mem_obj_id,
                        (long)desc->mem_obj_id);
  if (desc->shares_memory && desc->mem_obj_id < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %lu: desc.mem_obj_id %ld is negative; a shared memory object id "
                        "is >= 0", id, (long)desc->mem_obj_id);
  idt = (int)desc->datatype;
  ist = desc->staging == TP_VK_BOOL ? (int)TP_VK_UNSET : (int)desc->staging;
  dims = desc->dims;
  constant = desc->constant;
  ndim = desc->ndim;
  if (!dims && constant && ndim == 0) ndim = (size_t)constant->ndim;
  memset(&c, 0, sizeof c);
  tpdt = tp__vk_dt_to_tp(idt);
  if (tpdt < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: unknown tensor datatype %d", id,
                        idt);
  if (ist != TP_VK_UNSET && tp__vk_dt_to_tp(ist) < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: unknown staging datatype %d", id,
                        ist);
  if (constant) {
    tp_error verr;
    memset(&verr, 0, sizeof verr);
    s = tp_tensor_check(constant, &verr);
    if (s != TP_OK)
      return tp__error_set(&g->err, s, "value %lu: constant view: %s", id,
                          verr.status ? verr.msg : tp_status_str(s));
  }
  if (!dims && ndim > 0) {
    if (!constant)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %lu: dims is NULL and there is no constant to take %lu dims "
                          "from", id, (unsigned long)ndim);
    if (ndim != (size_t)constant->ndim)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %lu: dims is NULL but ndim %lu differs from the constant's %d",
                          id, (unsigned long)ndim, constant->ndim);
  }
  if (ndim > TP_MAX_DIMS) /* VK00 tensors have at most TP_MAX_DIMS dims (tp_vk_check_blob) */
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %lu: %lu dims, a tensor has at most %d "
                        "(TP_MAX_DIMS; tp_vk_read_blob refuses more)", id, (unsigned long)ndim,
                        TP_MAX_DIMS);
  for (i = 0; i < ndim; i++) {
    uint64_t di = dims ? (uint64_t)dims[i] : (uint64_t)constant->sizes[i];
    if (di > UINT32_MAX)
      return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                          "value %lu: dim %lu is %llu, more than a u32 holds", id,
                          (unsigned long)i, (unsigned long long)di);
    d32[i] = (uint32_t)di;
    if (tp__mul_u64(numel, di, &numel))
      return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                          "value %lu: the product of the dims overflows at dim %lu", id,
                          (unsigned long)i);
  }
  /* force_fp16: FLOAT32 tensors are declared FLOAT16. */
  if (g->opts.force_fp16 && idt == TP_VK_FLOAT32) {
    idt = TP_VK_FLOAT16;
    if (constant) {
      if (ist == TP_VK_UNSET || ist == TP_VK_FLOAT32) ist = TP_VK_FLOAT16;
    } else if (ist == TP_VK_UNSET) {
      ist = TP_VK_FLOAT32;
    }
    tpdt = (int)TP_F16;
  }
  if (ist == TP_VK_UNSET) ist = idt;
  if (constant) {
    uint64_t cnumel = (uint64_t)tp_numel(constant);
    tp_dtype vdt = constant->dtype;
    int convert_ok = (tpdt == (int)vdt) || (tpdt == (int)TP_F16 && vdt == TP_F32) ||
                     (tpdt == (int)TP_F32 && vdt == TP_F16);
    if (!convert_ok)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %lu: constant view is %s but the tensor is %s (%s bytes "
                          "expected)", id, tp_dtype_name(vdt), tp__vk_dt_name(idt),
                          tp_dtype_name((tp_dtype)tpdt));
    if (cnumel != numel)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %lu: constant has %llu elements but the dims hold %llu", id,
                          (unsigned long long)cnumel, (unsigned long long)numel);
    if (tp__mul_u64(numel, (uint64_t)tp_dtype_size((tp_dtype)tpdt), &c.nbytes))
      return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %lu: constant size overflows", id);
    if (g->nconsts >= (size_t)INT32_MAX)
      return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %lu: too many constants", id);
    c.value_id = (uint32_t)id;
    c.view = *constant;
    c.out = (tp_dtype)tpdt;
    s = tp__array_reserve((void **)&g->consts, &g->cap_consts, g->nconsts + 1, sizeof c);
    if (s != TP_OK)
      return s == TP_ERR_NOMEM ? tp__vk_nomem(g, "a constant")
                               : tp__error_set(&g->err, s, "value %lu: too many constants", id);
    if (g->opts.store && c.nbytes > 0 && tp__vk_add_const_named(g, &c, (uint32_t)id) != TP_OK)
      return g->err.status;
  }
  v = tp__vk_new_value(g, TP_VK_TENSOR_VALUE, "a tensor");
  if (!v || tp__vk_dup(g, d32, ndim, sizeof *d32, (void **)&v->dims, "tensor dims"))
    return g->err.status;
  v->dt = (int8_t)idt;
  v->staging = (int8_t)ist;
  v->storage = (uint8_t)storage_type;
  v->layout = (uint8_t)memory_layout;
  v->mem_obj_id = desc->shares_memory ? desc->mem_obj_id : -1;
  v->ndim = ndim;
  v->constant_id = -1;
  if (constant) {
    v->constant_id = (int32_t)g->nconsts;
    g->consts[g->nconsts++] = c;
  }
  return tp__vk_commit_value(g, id_out);
}

TPDEF const char *tp_vk_constant_key(const tp_vk_graph *g, uint32_t id) {
  TP_ASSERT(g);
  if (id >= g->nvalues || g->values[id].type != TP_VK_TENSOR_VALUE ||
      g->values[id].constant_id < 0)
    return NULL;
  return g->consts[g->values[id].constant_id].named ? g->consts[g->values[id].constant_id].key
                                                    : NULL;
}

/* >>vk-ops: the operator table and the check of a call against it ----------------------- */

typedef struct tp__vk_opdef {
  const char *name, *args, *types;
} tp__vk_opdef;

#define TP__VK_OPDEF(name, args, types) {name, args, types},
static const tp__vk_opdef tp__vk_ops[] = {TP_VK_OPS(TP__VK_OPDEF)};
#undef TP__VK_OPDEF
#define TP__VK_NOPS (sizeof tp__vk_ops / sizeof tp__vk_ops[0])

TPDEF size_t tp_vk_op_count(void) { return TP__VK_NOPS; }
TPDEF const char *tp_vk_op_name(size_t i) { return i < TP__VK_NOPS ? tp__vk_ops[i].name : NULL; }
TPDEF const char *tp_vk_op_args(size_t i) { return i < TP__VK_NOPS ? tp__vk_ops[i].args : NULL; }
TPDEF const char *tp_vk_op_types(size_t i) {
  return i < TP__VK_NOPS ? tp__vk_ops[i].types : NULL;
}

TPDEF int tp_vk_op_find(const char *name) {
  size_t lo = 0, hi = TP__VK_NOPS;
  if (!name) return -1;
  while (lo < hi) { /* the table is sorted (strcmp order) */
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, tp__vk_ops[mid].name);
    if (c == 0) return (int)mid;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/* One argument of a TP_VK_OPS description, parsed. */
typedef struct tp__vk_argspec {
  char name[32];
  char kind;  /* one of the KIND letters, or '.' for "..." (any number of any values) */
  int rank;   /* -1: any */
  int width;  /* 1: a non-constant tensor must be width-packed */
} tp__vk_argspec;

/* The most arguments a TP_VK_OPS description lists (test_vk_ops checks every entry fits). */
#define TP__VK_MAX_ARGSPECS 24

/* Parses the next "name:KIND" (or "...") of *p; 0 at the end of the description. */
static int tp__vk_next_arg(const char **p, tp__vk_argspec *a) {
  const char *q = *p;
  size_t n = 0;
  while (*q == ' ') q++;
  if (!*q) return 0;
  for (; *q && *q != ':' && *q != ' '; q++)
    if (n + 1 < sizeof a->name) a->name[n++] = *q;
  a->name[n] = 0;
  a->kind = '*';
  a->rank = -1;
  a->width = 0;
  if (*q == ':') {
    q++;
    if (*q && *q != ' ') a->kind = *q++;
  } else if (!strcmp(a->name, "...")) {
    a->kind = '.';
  }
  for (; *q && *q != ' '; q++) {
    if (*q >= '0' && *q <= '9') a->rank = *q - '0';
    else if (*q == 'w') a->width = 1;
  }
  *p = q;
  return 1;
}

static const char *tp__vk_kind_need(char kind) {
  switch (kind) {
    case 'T': return "a tensor";
    case 't': return "a tensor or Null";
    case 'C': return "a constant tensor";
    case 'c': return "a constant tensor or Null";
    case 'S': return "a scalar (Int, Double, Bool or SymInt)";
    case 's': return "a scalar (Int, Double, Bool or SymInt) or Null";
    case 'I': return "an Int or SymInt";
    case 'i': return "an Int, SymInt or Null";
    case 'B': return "a Bool";
    case 'X': return "a String";
    case 'Y': return "a SymInt";
    case 'L': return "an int list (IntList, or ValueList of Int / SymInt values)";
    case 'l': return "an int list (IntList, or ValueList of Int / SymInt values) or Null";
    case 'K': return "an IntList";
    case 'k': return "an IntList or Null";
    case 'F': return "a DoubleList or Null";
    case 'V': return "a ValueList of tensors";
    case 'n': return "a Null";
    default: return "any value";
  }
}

/* A value kind in a sentence, indexed by GraphTypes tag (TP_VK_VALUE_KINDS: 1 .. 11). */
static const char *tp__vk_kind_is(int type) {
  static const char *const is[12] = {"an unknown value", "a Null", "an Int", "a Double",
                                     "a Bool", "a tensor", "an IntList", "a DoubleList",
                                     "a BoolList", "a ValueList", "a String", "a SymInt"};
  return type >= TP_VK_NULL_VALUE && type <= TP_VK_SYMINT_VALUE ? is[type] : is[0];
}

static const char *tp__vk_layout_name(int l) {
  switch (l) {
    case TP_VK_TENSOR_WIDTH_PACKED: return "width-packed";
    case TP_VK_TENSOR_HEIGHT_PACKED: return "height-packed";
    case TP_VK_TENSOR_CHANNELS_PACKED: return "channels-packed";
    default: return "int8-packed";
  }
}

/* 1 when value id is of the kind `kind` (lists: their items checked too). */
static int tp__vk_kind_ok(const tp_vk_graph *g, uint32_t id, char kind) {
  const tp__vk_value *v = &g->values[id];
  int t = v->type, null = t == TP_VK_NULL_VALUE;
  size_t k;
  switch (kind) {
    case 'T': return t == TP_VK_TENSOR_VALUE;
    case 't': return t == TP_VK_TENSOR_VALUE || null;
    case 'C': case 'c':
      return (t == TP_VK_TENSOR_VALUE && v->constant_id >= 0) || (kind == 'c' && null);
    case 'S': case 's':
      return t == TP_VK_INT_VALUE || t == TP_VK_DOUBLE_VALUE || t == TP_VK_BOOL_VALUE ||
             t == TP_VK_SYMINT_VALUE || (kind == 's' && null);
    case 'I': case 'i':
      return t == TP_VK_INT_VALUE || t == TP_VK_SYMINT_VALUE || (kind == 'i' && null);
    case 'B': return t == TP_VK_BOOL_VALUE;
    case 'X': return t == TP_VK_STRING_VALUE;
    case 'Y': return t == TP_VK_SYMINT_VALUE;
    case 'K': case 'k': return t == TP_VK_INT_LIST_VALUE || (kind == 'k' && null);
    case 'F': return t == TP_VK_DOUBLE_LIST_VALUE || null;
    case 'n': return null;
    case 'L': case 'l':
      if (t == TP_VK_INT_LIST_VALUE || (kind == 'l' && null)) return 1;
      if (t != TP_VK_VALUE_LIST_VALUE) return 0;
      for (k = 0; k < v->n; k++) {
        int it = g->values[((const int32_t *)v->items)[k]].type;
        if (it != TP_VK_INT_VALUE && it != TP_VK_SYMINT_VALUE) return 0;
      }
      return 1;
    case 'V':
      if (t != TP_VK_VALUE_LIST_VALUE) return 0;
      for (k = 0; k < v->n; k++)
        if (g->values[((const int32_t *)v->items)[k]].type != TP_VK_TENSOR_VALUE) return 0;
      return 1;
    default: return 1;
  }
}

/* The datatype set at position pos of a types list such as "F|I,-,F" (len chars): a mask of
   VkDataType bits; every bit for "-", a position past the list, or an empty list; a list of
   one set applies to every position. */
static unsigned tp__vk_types_mask(const char *list, size_t len, size_t pos) {
  size_t sets = len ? 1 : 0, i, at = 0;
  unsigned mask = 0;
  for (i = 0; i < len; i++) sets += list[i] == ',';
  if (sets == 0) return 0xffu;
  if (sets == 1) pos = 0;
  if (pos >= sets) return 0xffu;
  for (i = 0; i < len && at <= pos; i++) {
    char c = list[i];
    if (c == ',') at++;
    else if (at != pos) continue;
    else if (c == '-') return 0xffu;
    else if (c == 'F') mask |= (1u << TP_VK_FLOAT16) | (1u << TP_VK_FLOAT32);
    else if (c == 'I') mask |= (1u << TP_VK_INT32) | (1u << TP_VK_INT64);
    else if (c == 'B') mask |= 1u << TP_VK_BOOL;
  }
  return mask ? mask : 0xffu;
}

/* "FLOAT16 or FLOAT32", "FLOAT16, FLOAT32, INT32 or INT64": the datatypes of mask, floats
   first, then integers, then BOOL, into out (cap bytes; 96 hold all eight names, separated). */
static void tp__vk_types_words(unsigned mask, char *out, size_t cap) {
  static const int order[8] = {TP_VK_FLOAT16, TP_VK_FLOAT32, TP_VK_FLOAT64, TP_VK_UINT8,
                               TP_VK_INT8,    TP_VK_INT32,   TP_VK_INT64,   TP_VK_BOOL};
  size_t len = 0, left = 0;
  int k;
  for (k = 0; k < 8; k++) left += (mask >> k) & 1u;
  out[0] = 0;
  for (k = 0; k < 8; k++) {
    if (!((mask >> order[k]) & 1u)) continue;
    left--;
    tp__format(out + len, cap - len, "%s%s", tp__vk_dt_name(order[k]),
               left > 1 ? ", " : left == 1 ? " or " : "");
    len += strlen(out + len);
  }
}

/* Checks tensor value id (argument i, `what` e.g. "is" or "holds") against a datatype mask and
   the 4-dim limit; records TP_ERR_UNSUPPORTED. */
static tp_status tp__vk_check_types(tp_vk_graph *g, const tp__vk_opdef *op, unsigned long i,
                                    const char *arg, const char *what, uint32_t id,
                                    unsigned mask, int max4) {
  const tp__vk_value *v = &g->values[id];
  unsigned long opn = (unsigned long)g->nops;
  if (v->type != TP_VK_TENSOR_VALUE) return TP_OK;
  if (v->dt >= 0 && v->dt < 8 && !((mask >> v->dt) & 1u)) {
    char words[96];
    const char *dn = tp__vk_dt_name(v->dt);
    tp__vk_types_words(mask, words, sizeof words);
    return tp__error_set(&g->err, TP_ERR_UNSUPPORTED,
                        "operator %lu \"%s\": argument %lu (%s) %s value %lu, a%s %s tensor; "
                        "ExecuTorch's Vulkan backend runs it on %s only (op_registry.py; set "
                        "tp_vk_options.other_runtime when the graph targets another runtime)",
                        opn, op->name, i, arg, what, (unsigned long)id,
                        (dn[0] == 'I' || dn[0] == 'U') ? "n" : "", dn, words);
  }
  if (max4 && v->ndim > 4)
    return tp__error_set(&g->err, TP_ERR_UNSUPPORTED,
                        "operator %lu \"%s\": argument %lu (%s) %s value %lu, a %lu-D tensor; "
                        "ExecuTorch's Vulkan backend runs it on tensors of at most 4 dims "
                        "(op_registry.py; set tp_vk_options.other_runtime when the graph "
                        "targets another runtime)", opn, op->name, i, arg, what,
                        (unsigned long)id, (unsigned long)v->ndim);
  return TP_OK;
}

/* Checks a call against TP_VK_OPS (ids already known to exist); records the error. */
static tp_status tp__vk_check_op(tp_vk_graph *g, const char *name, const uint32_t *args,
                                 size_t n) {
  unsigned long op = (unsigned long)g->nops;
  const char *p, *types, *outs;
  const tp__vk_opdef *def;
  tp__vk_argspec sp[TP__VK_MAX_ARGSPECS];
  size_t nsp = 0, fixed, var = (size_t)-1, j, ins_len, outs_len = 0;
  int k = tp_vk_op_find(name), max4;
  if (k < 0)
    return tp__error_set(&g->err, TP_ERR_UNSUPPORTED,
                        "operator %lu: \"%.80s\" is not one of the %lu operators ExecuTorch's "
                        "Vulkan backend registers (see TP_VK_OPS; set tp_vk_options.other_runtime "
                        "when the graph targets another runtime)", op, name,
                        (unsigned long)TP__VK_NOPS);
  def = &tp__vk_ops[k];
  p = def->args;
  while (nsp < TP__VK_MAX_ARGSPECS && tp__vk_next_arg(&p, &sp[nsp])) {
    if (sp[nsp].kind == '.') var = nsp;
    nsp++;
  }
  fixed = var == (size_t)-1 ? nsp : nsp - 1;
  if (var == (size_t)-1 ? n != fixed : n < fixed) {
    char names[200];
    size_t len = 0;
    names[0] = 0; /* space-separated: the longest sentence fits TP_ERROR_MAX */
    for (j = 0; j < nsp && len + strlen(sp[j].name) + 2 < sizeof names; j++) {
      tp__format(names + len, sizeof names - len, "%s%s", len ? " " : "", sp[j].name);
      len += strlen(names + len);
    }
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "operator %lu \"%s\" takes %s%lu arguments (%s), %lu given", op,
                        def->name, var == (size_t)-1 ? "" : "at least ", (unsigned long)fixed,
                        names, (unsigned long)n);
  }
  /* kinds, ranks and layouts; the specs after "..." match the last arguments */
  for (j = 0; j < nsp; j++) {
    const tp__vk_argspec *a = &sp[j];
    size_t i = var == (size_t)-1 || j < var ? j : n - (nsp - j);
    const tp__vk_value *v;
    int is_tensor;
    if (a->kind == '.') continue;
    v = &g->values[args[i]];
    is_tensor = v->type == TP_VK_TENSOR_VALUE;
    if (!tp__vk_kind_ok(g, args[i], a->kind)) {
      if ((a->kind == 'C' || a->kind == 'c') && is_tensor)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "operator %lu \"%s\": argument %lu (%s) is value %lu, a tensor that "
                            "is not a constant; it needs %s", op, def->name, (unsigned long)i,
                            a->name, (unsigned long)args[i], tp__vk_kind_need(a->kind));
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "operator %lu \"%s\": argument %lu (%s) is value %lu, %s; it needs %s",
                          op, def->name, (unsigned long)i, a->name, (unsigned long)args[i],
                          v->type == TP_VK_VALUE_LIST_VALUE &&
                                  (a->kind == 'L' || a->kind == 'l' || a->kind == 'V')
                              ? "a ValueList with other items"
                              : tp__vk_kind_is(v->type),
                          tp__vk_kind_need(a->kind));
    }
    if (!is_tensor) continue;
    if (a->rank >= 0 && v->ndim != (size_t)a->rank)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "operator %lu \"%s\": argument %lu (%s) is value %lu, a %lu-D tensor; "
                          "it needs a %d-D tensor", op, def->name, (unsigned long)i, a->name,
                          (unsigned long)args[i], (unsigned long)v->ndim, a->rank);
    if (a->width && v->constant_id < 0) {
      if (v->layout != 255 && v->layout != TP_VK_TENSOR_WIDTH_PACKED)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "operator %lu \"%s\": argument %lu (%s) is value %lu, a %s tensor; "
                            "it needs a width-packed tensor (memory_layout "
                            "TP_VK_TENSOR_WIDTH_PACKED)", op, def->name, (unsigned long)i,
                            a->name, (unsigned long)args[i], tp__vk_layout_name(v->layout));
      if (v->layout == 255 && v->ndim >= 3 && v->dims[v->ndim - 3] != 1)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "operator %lu \"%s\": argument %lu (%s) is value %lu, a %lu-D "
                            "tensor of default layout with dim -3 of size %lu, which the runtime "
                            "makes channels-packed; it needs a width-packed tensor (memory_layout "
                            "TP_VK_TENSOR_WIDTH_PACKED)", op, def->name, (unsigned long)i,
                            a->name, (unsigned long)args[i], (unsigned long)v->ndim,
                            (unsigned long)v->dims[v->ndim - 3]);
    }
  }
  /* datatypes and ranks (the op's types): inputs by position, then the output (the last) */
  types = def->types;
  max4 = strstr(types, "4d") != NULL;
  ins_len = strcspn(types, " >");
  if (ins_len == 2 && types[0] == '4' && types[1] == 'd') ins_len = 0;
  outs = types[ins_len] == '>' ? types + ins_len + 1 : NULL;
  if (outs) outs_len = strcspn(outs, " ");
  for (j = 0; j < nsp; j++) {
    size_t i = var == (size_t)-1 || j < var ? j : n - (nsp - j), it;
    const tp__vk_value *v;
    int last = j + 1 == nsp, list;
    if (sp[j].kind == '.') continue;
    v = &g->values[args[i]];
    list = v->type == TP_VK_VALUE_LIST_VALUE && sp[j].kind == 'V'; /* its items, one by one */
    for (it = 0; it < (list ? v->n : 1); it++) {
      uint32_t id = list ? (uint32_t)((const int32_t *)v->items)[it] : args[i];
      unsigned mask = !last ? tp__vk_types_mask(types, ins_len, j)
                      : outs ? tp__vk_types_mask(outs, outs_len, it)
                             : tp__vk_types_mask(types, ins_len, 0);
      if (tp__vk_check_types(g, def, (unsigned long)i, sp[j].name, list ? "holds" : "is", id,
                             mask, max4 && (last || !list)) != TP_OK)
        return g->err.status;
    }
  }
  return TP_OK;
}

/* >>vk-chain: operators, io, shaders, overrides ---------------------------------------- */

TPDEF tp_status tp_vk_add_op(tp_vk_graph *g, uint32_t node_id, const char *name,
                             const uint32_t *args, size_t n) {
  tp__vk_op op;
  tp_status s;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (!name)
    return tp__error_set(&g->err, TP_ERR_INVALID, "operator %lu: name is NULL",
                        (unsigned long)g->nops);
  if (!tp__vk_ids_exist(g, args, n, "operator", (long)g->nops)) return g->err.status;
  if (!g->opts.other_runtime && tp__vk_check_op(g, name, args, n) != TP_OK) return g->err.status;
  s = tp__array_reserve((void **)&g->ops, &g->cap_ops, g->nops + 1, sizeof op);
  if (s != TP_OK)
    return tp__error_set(&g->err, s, "operator %lu: cannot grow the chain",
                        (unsigned long)g->nops);
  memset(&op, 0, sizeof op);
  op.node_id = node_id;
  if (tp__vk_dup(g, name, strlen(name) + 1, 1, (void **)&op.name, "an operator name"))
    return g->err.status;
  /* args as int32 (as tp_vk_add_value_list's ids: each < nvalues <= INT32_MAX) */
  if (tp__vk_dup(g, args, n, sizeof(int32_t), (void **)&op.args, "operator args")) {
    TP_FREE(op.name);
    return g->err.status;
  }
  op.n = n;
  g->ops[g->nops++] = op;
  g->dirty = 1;
  return TP_OK;
}

TPDEF tp_status tp_vk_set_io(tp_vk_graph *g, const uint32_t *inputs, size_t n_in,
                             const uint32_t *outputs, size_t n_out) {
  void *in = NULL, *out = NULL;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (!tp__vk_ids_exist(g, inputs, n_in, "graph inputs", -1)) return g->err.status;
  if (!tp__vk_ids_exist(g, outputs, n_out, "graph outputs", -1)) return g->err.status;
  if (tp__vk_dup(g, inputs, n_in, sizeof(uint32_t), &in, "input ids")) return g->err.status;
  if (tp__vk_dup(g, outputs, n_out, sizeof(uint32_t), &out, "output ids")) {
    TP_FREE(in);
    return g->err.status;
  }
  TP_FREE(g->inputs);
  TP_FREE(g->outputs);
  g->inputs = (uint32_t *)in;
  g->outputs = (uint32_t *)out;
  g->ninputs = n_in;
  g->noutputs = n_out;
  g->dirty = 1;
  return TP_OK;
}

TPDEF tp_status tp_vk_add_shader(tp_vk_graph *g, const void *bytes, size_t n,
                                 uint32_t *index_out) {
  tp__vk_shader sh;
  tp_status s;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (!bytes || n == 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "shader %lu: %s", (unsigned long)g->nshaders,
                        bytes ? "has 0 bytes" : "bytes are NULL");
  if (g->nshaders >= (size_t)INT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "shader %lu: too many shaders",
                        (unsigned long)g->nshaders);
  s = tp__array_reserve((void **)&g->shaders, &g->cap_shaders, g->nshaders + 1, sizeof sh);
  if (s != TP_OK) return tp__error_set(&g->err, s, "shader %lu: cannot grow the shader table",
                                      (unsigned long)g->nshaders);
  memset(&sh, 0, sizeof sh);
  if (tp__vk_dup(g, bytes, n, 1, (void **)&sh.bytes, "a shader")) return g->err.status;
  sh.n = n;
  if (index_out) *index_out = (uint32_t)g->nshaders;
  g->shaders[g->nshaders++] = sh;
  g->dirty = 1;
  return TP_OK;
}

TPDEF tp_status tp_vk_set_overrides(tp_vk_graph *g, tp_vk_storage storage, tp_vk_layout layout) {
  int st = tp__vk_storage_value((int)storage), ml = tp__vk_layout_value((int)layout);
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (st < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "graph: storage override %d is not " TP__VK_STORAGE_ENUM, (int)storage);
  if (ml < 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "graph: layout override %d is not " TP__VK_LAYOUT_ENUM, (int)layout);
  g->storage_override = (uint8_t)st;
  g->layout_override = (uint8_t)ml;
  g->dirty = 1;
  return TP_OK;
}

/* >>vk-specs: compile specs ------------------------------------------------------------- */

/* A schema value v as 4 little-endian bytes (static: rows 0 .. 9 hold every storage type's and
   memory layout's value; a schema value past 9 needs its row). */
static void tp__vk_spec(tp_pte_compile_spec *o, const char *key, int v) {
  static const unsigned char le32[10][4] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}};
  TP_ASSERT(v >= 0 && v < 10);
  o->key = key;
  o->value = le32[v];
  o->nbytes = 4;
}

TPDEF tp_status tp_vk_encode_compile_specs(const tp_vk_compile_specs *specs,
                                           tp_pte_compile_spec out[TP_VK_MAX_COMPILE_SPECS],
                                           size_t *count, tp_error *err) {
  int st, ml;
  size_t n = 0;
  if (err) memset(err, 0, sizeof *err);
  if (!out || !count)
    return tp__error_set(err, TP_ERR_INVALID, "compile specs: NULL out or count");
  *count = 0;
  if (!specs) return TP_OK;
  st = tp__vk_storage_value((int)specs->storage);
  ml = tp__vk_layout_value((int)specs->layout);
  if (st < 0)
    return tp__error_set(err, TP_ERR_INVALID, "compile specs: storage %d is not "
                        TP__VK_STORAGE_ENUM, (int)specs->storage);
  if (ml < 0 || ml == TP_VK_PACKED_INT8_CONV2D)
    return tp__error_set(err, TP_ERR_INVALID,
                        "compile specs: layout %d is not a memory layout the runtime knows (a "
                        "tp_vk_layout 1-7 or 9, or 0 for none)", (int)specs->layout);
  if (st != 255) tp__vk_spec(&out[n++], "storage_type_override", st);
  if (ml != 255) tp__vk_spec(&out[n++], "memory_layout_override", ml);
  *count = n;
  return TP_OK;
}

/* >>vk-quant: quantized linears in one call ------------------------------------------------ */

TPDEF void tp_vk_qlinear_release(tp_vk_qlinear *q) {
  if (!q) return;
  tp_buffer_release(&q->values);
  tp_buffer_release(&q->scales);
  tp_buffer_release(&q->bias);
}

static tp_status tp__vk_q_buffer(tp_buffer *b, size_t n) {
  b->owned = TP_MALLOC(n ? n : 1);
  if (!b->owned) return TP_ERR_NOMEM;
  memset(b->owned, 0, n ? n : 1);
  b->data = b->owned;
  b->nbytes = n;
  return TP_OK;
}

/* Checks the shared arguments, quantizes w into q->values / q->scales. */
static tp_status tp__vk_q_begin(tp_vk_graph *g, const char *op, const tp_tensor *w, int bits,
                                int64_t group_size, tp_dtype sdt, const tp_tensor *bias,
                                tp_vk_qlinear *q) {
  tp_error e;
  tp_status st;
  if (tp__vk_check(g)) return g->err.status;
  if (!q) return tp__error_set(&g->err, TP_ERR_INVALID, "%s: q is NULL", op);
  memset(q, 0, sizeof *q);
  if (!w) return tp__error_set(&g->err, TP_ERR_INVALID, "%s: no weight view", op);
  if (bias && (bias->dtype != TP_F32 || bias->ndim != 1 || w->ndim != 2 ||
               bias->sizes[0] != w->sizes[0]))
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "%s: the bias must be an f32 view of [%lld], got %s with %d dims", op,
                         w->ndim == 2 ? (long long)w->sizes[0] : -1LL,
                         tp_dtype_name(bias->dtype), bias->ndim);
  st = tp_quantize_symmetric(w, bits, group_size, sdt, &q->values, &q->scales, &e);
  if (st != TP_OK) return tp__error_set(&g->err, st, "%s: %s", op, e.msg);
  return TP_OK;
}

/* A tensor with every desc field but datatype, shape and constant at its default. */
static tp_status tp__vk_add_plain_tensor(tp_vk_graph *g, tp_vk_datatype dt, size_t ndim,
                                         const size_t *dims, const tp_tensor *constant,
                                         uint32_t *id) {
  tp_vk_tensor_desc d = tp_vk_tensor_desc_make(dt, ndim, dims, constant);
  return tp_vk_add_tensor_desc(g, &d, id);
}

static tp_status tp__vk_q_const(tp_vk_graph *g, tp_vk_datatype dt, tp_dtype td, const void *p,
                                size_t nbytes, size_t ndim, const int64_t *sz, uint32_t *id) {
  tp_storage s;
  tp_tensor t;
  tp_status st;
  s.data = p;
  s.nbytes = nbytes;
  st = tp_view(s, td, (int)ndim, sz, NULL, 0, &t, NULL);
  if (st != TP_OK) return tp__error_set(&g->err, st, "quantized linear: %s", tp_status_str(st));
  return tp__vk_add_plain_tensor(g, dt, ndim, NULL, &t, id);
}

TPDEF tp_status tp_vk_add_linear_q4gsw(tp_vk_graph *g, const tp_tensor *w, int64_t group_size,
                                       tp_dtype scale_dtype, const tp_tensor *bias,
                                       uint32_t input_id, uint32_t output_id,
                                       tp_vk_qlinear *q) {
  tp_buffer v, s;
  int64_t n, k, gi, N, K, K8, N4, G, wsz[2], ssz[2], bsz[1];
  size_t es, e;
  uint32_t gid, args[6];
  tp_status st;
  TP_ASSERT(g);
  if (tp__vk_check(g)) return g->err.status;
  if (scale_dtype != TP_F32 && scale_dtype != TP_F16)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "linear_q4gsw: scales are f32 or f16 (Vulkan has no bf16), not %s",
                         tp_dtype_name(scale_dtype));
  if (group_size <= 0)
    return tp__error_set(&g->err, TP_ERR_INVALID, "linear_q4gsw: group size %lld must be > 0",
                         (long long)group_size);
  st = tp__vk_q_begin(g, "linear_q4gsw", w, 4, group_size, scale_dtype, bias, q);
  if (st != TP_OK) return st;
  N = w->sizes[0];
  K = w->sizes[1];
  K8 = (K + 7) / 8 * 8;
  N4 = (N + 3) / 4 * 4;
  G = K / group_size;
  es = tp_dtype_size(scale_dtype);
  v = q->values;
  s = q->scales;
  memset(&q->values, 0, sizeof q->values);
  memset(&q->scales, 0, sizeof q->scales);
  st = tp__vk_q_buffer(&q->values, (size_t)(N * K8 / 2));
  if (st == TP_OK) st = tp__vk_q_buffer(&q->scales, (size_t)(G * N4) * es);
  if (st == TP_OK && bias) st = tp__vk_q_buffer(&q->bias, (size_t)N4 * 4u);
  if (st != TP_OK) {
    tp__error_set(&g->err, st, "linear_q4gsw: out of memory");
    goto fail;
  }
  for (n = 0; n < N; n++) { /* pack: (odd + 8) << 4 | (even + 8), padding values are 0 */
    unsigned char *row = (unsigned char *)q->values.owned + n * (K8 / 2);
    for (k = 0; k < K8; k += 2) {
      int lo = k < K ? ((const signed char *)v.data)[n * K + k] : 0;
      int hi = k + 1 < K ? ((const signed char *)v.data)[n * K + k + 1] : 0;
      row[k / 2] = (unsigned char)((unsigned)(lo + 8) | (unsigned)(hi + 8) << 4);
    }
    for (gi = 0; gi < G; gi++) /* transpose [N, G] -> [G, N4] */
      memcpy((unsigned char *)q->scales.owned + (size_t)(gi * N4 + n) * es,
             (const unsigned char *)s.data + (size_t)(n * G + gi) * es, es);
  }
  if (bias) {
    st = tp_compact_into(bias, TP_ORDER_ROW_MAJOR, q->bias.owned, q->bias.nbytes);
    if (st != TP_OK) {
      tp__error_set(&g->err, st, "linear_q4gsw: reading the bias failed: %s",
                    tp_status_str(st));
      goto fail;
    }
    /* tp_compact_into gave little-endian bytes: back to host floats (a constant's storage) */
    for (e = 0; e + 4 <= q->bias.nbytes; e += 4) {
      uint32_t u = tp__get_le32((unsigned char *)q->bias.owned + e);
      memcpy((unsigned char *)q->bias.owned + e, &u, 4);
    }
  }
  tp_buffer_release(&v);
  tp_buffer_release(&s);
  wsz[0] = N;
  wsz[1] = K8 / 2;
  ssz[0] = G;
  ssz[1] = N4;
  bsz[0] = N4;
  if (tp__vk_q_const(g, TP_VK_UINT8, TP_U8, q->values.data, q->values.nbytes, 2, wsz,
                     &q->weight_id) != TP_OK ||
      tp__vk_q_const(g, scale_dtype == TP_F16 ? TP_VK_FLOAT16 : TP_VK_FLOAT32, scale_dtype,
                     q->scales.data, q->scales.nbytes, 2, ssz, &q->scales_id) != TP_OK ||
      tp_vk_add_int(g, group_size, &gid) != TP_OK)
    goto fail_q;
  if (bias) {
    if (tp__vk_q_const(g, TP_VK_FLOAT32, TP_F32, q->bias.data, q->bias.nbytes, 1, bsz,
                       &q->bias_id) != TP_OK)
      goto fail_q;
  } else if (tp_vk_add_null(g, &q->bias_id) != TP_OK) {
    goto fail_q;
  }
  q->mm_out_id = output_id;
  args[0] = input_id;
  args[1] = q->weight_id;
  args[2] = q->scales_id;
  args[3] = gid;
  args[4] = q->bias_id;
  args[5] = output_id;
  if (tp_vk_add_op(g, (uint32_t)g->nops, "et_vk.linear_q4gsw.default", args, 6) != TP_OK)
    goto fail_q;
  return TP_OK;
fail:
  tp_buffer_release(&v);
  tp_buffer_release(&s);
fail_q:
  tp_vk_qlinear_release(q);
  return g->err.status ? g->err.status : TP_ERR_INVALID;
}

TPDEF tp_status tp_vk_add_linear_q8csw(tp_vk_graph *g, const tp_tensor *w, const tp_tensor *bias,
                                       uint32_t input_id, uint32_t output_id, tp_vk_qlinear *q) {
  int64_t wsz[2], ssz[1];
  uint32_t args[4], alpha;
  tp_status st;
  TP_ASSERT(g);
  st = tp__vk_q_begin(g, "linear_q8csw", w, 8, 0, TP_F32, bias, q);
  if (st != TP_OK) return st;
  wsz[0] = w->sizes[0];
  wsz[1] = w->sizes[1];
  ssz[0] = w->sizes[0];
  q->mm_out_id = output_id;
  if (tp__vk_q_const(g, TP_VK_INT8, TP_I8, q->values.data, q->values.nbytes, 2, wsz,
                     &q->weight_id) != TP_OK ||
      tp__vk_q_const(g, TP_VK_FLOAT32, TP_F32, q->scales.data, q->scales.nbytes, 1, ssz,
                     &q->scales_id) != TP_OK)
    goto fail;
  if (bias) {
    tp_vk_tensor_info oi;
    size_t dims[TP_MAX_DIMS], i;
    if (tp_vk_graph_tensor(g, output_id, &oi) != TP_OK) {
      tp__error_set(&g->err, TP_ERR_INVALID, "linear_q8csw: output %u is not a tensor",
                    (unsigned)output_id);
      goto fail;
    }
    for (i = 0; i < oi.ndim; i++) dims[i] = oi.dims[i];
    if (tp__vk_add_plain_tensor(g, TP_VK_FLOAT32, oi.ndim, dims, NULL, &q->mm_out_id) !=
            TP_OK ||
        tp__vk_add_plain_tensor(g, TP_VK_FLOAT32, 1, NULL, bias, &q->bias_id) != TP_OK ||
        tp_vk_add_int(g, 1, &alpha) != TP_OK)
      goto fail;
  } else if (tp_vk_add_null(g, &q->bias_id) != TP_OK) {
    goto fail;
  }
  args[0] = input_id;
  args[1] = q->weight_id;
  args[2] = q->scales_id;
  args[3] = q->mm_out_id;
  if (tp_vk_add_op(g, (uint32_t)g->nops, "aten._weight_int8pack_mm.default", args, 4) != TP_OK)
    goto fail;
  if (bias) {
    args[0] = q->mm_out_id;
    args[1] = q->bias_id;
    args[2] = alpha;
    args[3] = output_id;
    if (tp_vk_add_op(g, (uint32_t)g->nops, "aten.add.Tensor", args, 4) != TP_OK) goto fail;
  }
  return TP_OK;
fail:
  tp_vk_qlinear_release(q);
  return g->err.status ? g->err.status : TP_ERR_INVALID;
}

/* >>vk-layout: raw segment offsets and the flatbuffer ------------------------------------- */

/* A value's GraphTypes table: its vector or string first, then the table of its fields. */
static tp_fb_ref tp__vk_value_table(tp_fb_builder *b, const tp__vk_value *v) {
  unsigned es = tp__vk_items_size(v->type);
  tp_fb_ref r = 0;
  if (es) r = tp_fb_create_vector(b, v->items, v->n, es);
  if (v->type == TP_VK_TENSOR_VALUE) r = tp_fb_create_vector(b, v->dims, v->ndim, 4);
  if (v->type == TP_VK_STRING_VALUE)
    r = tp_fb_create_string(b, (const char *)(v->items ? v->items : ""), v->n);
  tp_fb_start_table(b);
  switch (v->type) {
    case TP_VK_INT_VALUE: tp_fb_add_i64(b, TP_VK_F_Int_int_val, v->i, TP_VK_D_Int_int_val); break;
    case TP_VK_DOUBLE_VALUE:
      tp_fb_add_f64(b, TP_VK_F_Double_double_val, v->d, TP_VK_D_Double_double_val);
      break;
    case TP_VK_BOOL_VALUE:
      tp_fb_add_u8(b, TP_VK_F_Bool_bool_val, (uint8_t)v->i, TP_VK_D_Bool_bool_val);
      break;
    case TP_VK_SYMINT_VALUE:
      tp_fb_add_i32(b, TP_VK_F_SymInt_value, (int32_t)v->i, TP_VK_D_SymInt_value);
      break;
    case TP_VK_STRING_VALUE: tp_fb_add_ref(b, TP_VK_F_String_string_val, r); break;
    case TP_VK_TENSOR_VALUE:
      tp_fb_add_i8(b, TP_VK_F_VkTensor_datatype, v->dt, TP_VK_D_VkTensor_datatype);
      tp_fb_add_ref(b, TP_VK_F_VkTensor_dims, r);
      tp_fb_add_i32(b, TP_VK_F_VkTensor_constant_id, v->constant_id, TP_VK_D_VkTensor_constant_id);
      tp_fb_add_i32(b, TP_VK_F_VkTensor_mem_obj_id, v->mem_obj_id, TP_VK_D_VkTensor_mem_obj_id);
      tp_fb_add_u8(b, TP_VK_F_VkTensor_storage_type, v->storage, TP_VK_D_VkTensor_storage_type);
      tp_fb_add_u8(b, TP_VK_F_VkTensor_memory_layout, v->layout, TP_VK_D_VkTensor_memory_layout);
      tp_fb_add_i8(b, TP_VK_F_VkTensor_staging_datatype, v->staging,
                   TP_VK_D_VkTensor_staging_datatype);
      break;
    default: /* Null: no field; a list: items, field 0 of every list table */
      if (es) tp_fb_add_ref(b, TP_VK_F_IntList_items, r);
      break;
  }
  return tp_fb_end_table(b);
}

static tp_fb_ref tp__vk_bytes_table(tp_fb_builder *b, uint64_t offset, uint64_t length,
                                    const char *key) {
  tp_fb_ref k = key ? tp_fb_create_string(b, key, strlen(key)) : 0;
  tp_fb_start_table(b);
  tp_fb_add_u64(b, TP_VK_F_VkBytes_offset, offset, TP_VK_D_VkBytes_offset);
  tp_fb_add_u64(b, TP_VK_F_VkBytes_length, length, TP_VK_D_VkBytes_length);
  tp_fb_add_ref(b, TP_VK_F_VkBytes_named_key, k);
  return tp_fb_end_table(b);
}

/* The writer core's prepare: the raw-segment layout and the flatbuffer (cached until the graph
   changes), *total the blob's bytes. A failure is the size / write call's (werr), never
   latched. */
static tp_status tp__vk_prepare(void *obj, uint64_t *total) {
  tp_vk_graph *g = (tp_vk_graph *)obj;
  tp_fb_builder *b;
  tp_fb_ref *refs = NULL;
  tp_fb_ref r_version, r_chain, r_values, r_in, r_out, r_consts, r_shaders;
  size_t i, nrefs;
  uint64_t off = 0;
  int any_empty = 0;
  tp_status s;
  const unsigned char *data;
  size_t fb_size = 0;

  *total = (uint64_t)g->frame.segment_offset + g->frame.segment_size; /* (checked when made) */
  if (!g->dirty) return TP_OK;

  /* raw segment: inline constants, then shaders, each padded to 16 */
  for (i = 0; i < g->nconsts; i++) {
    tp__vk_const *c = &g->consts[i];
    if (c->named) continue;
    if (c->nbytes == 0) {
      c->offset = 0;
      any_empty = 1;
      continue;
    }
    if (tp__delegate_place(&off, c->nbytes, 16, &c->offset))
      return tp__error_set(&g->werr, TP_ERR_OVERFLOW,
                          "value %lu: the raw segment overflows at %llu bytes",
                          (unsigned long)c->value_id, (unsigned long long)off);
  }
  for (i = 0; i < g->nshaders; i++) {
    if (tp__delegate_place(&off, (uint64_t)g->shaders[i].n, 16, &g->shaders[i].offset))
      return tp__error_set(&g->werr, TP_ERR_OVERFLOW, "shader %lu: the raw segment overflows",
                          (unsigned long)i);
  }
  if (off == 0 && any_empty) off = 16;
  g->segment_size = off;

  if (!g->fb) {
    s = tp_fb_builder_create(&g->fb);
    if (s != TP_OK) return tp__error_set(&g->werr, s, "graph: cannot create a flatbuffer builder");
  }
  b = g->fb;
  tp_fb_builder_reset(b);

  nrefs = g->nvalues;
  if (g->nops > nrefs) nrefs = g->nops;
  if (g->nconsts > nrefs) nrefs = g->nconsts;
  if (g->nshaders > nrefs) nrefs = g->nshaders;
  if (nrefs > 0) {
    refs = (tp_fb_ref *)TP_MALLOC(nrefs * sizeof *refs);
    if (!refs) return tp__error_set(&g->werr, TP_ERR_NOMEM, "graph: no memory for the flatbuffer");
  }
  /* values */
  for (i = 0; i < g->nvalues; i++) {
    tp_fb_ref t = tp__vk_value_table(b, &g->values[i]);
    tp_fb_start_table(b);
    tp_fb_add_union(b, TP_VK_F_VkValue_value, g->values[i].type, t);
    refs[i] = tp_fb_end_table(b);
  }
  r_values = tp_fb_create_vector_refs(b, refs, g->nvalues);
  /* chain */
  for (i = 0; i < g->nops; i++) {
    tp_fb_ref nm = tp_fb_create_string(b, g->ops[i].name, strlen(g->ops[i].name));
    tp_fb_ref ar = tp_fb_create_vector(b, g->ops[i].args, g->ops[i].n, 4);
    tp_fb_start_table(b);
    tp_fb_add_u32(b, TP_VK_F_OperatorCall_node_id, g->ops[i].node_id,
                  TP_VK_D_OperatorCall_node_id);
    tp_fb_add_ref(b, TP_VK_F_OperatorCall_name, nm);
    tp_fb_add_ref(b, TP_VK_F_OperatorCall_args, ar);
    refs[i] = tp_fb_end_table(b);
  }
  r_chain = tp_fb_create_vector_refs(b, refs, g->nops);
  /* constants */
  for (i = 0; i < g->nconsts; i++) {
    const tp__vk_const *c = &g->consts[i];
    refs[i] = c->named ? tp__vk_bytes_table(b, UINT64_MAX, c->nbytes, c->key)
                       : tp__vk_bytes_table(b, c->offset, c->nbytes, NULL);
  }
  r_consts = tp_fb_create_vector_refs(b, refs, g->nconsts);
  for (i = 0; i < g->nshaders; i++)
    refs[i] = tp__vk_bytes_table(b, g->shaders[i].offset, (uint64_t)g->shaders[i].n, NULL);
  r_shaders = tp_fb_create_vector_refs(b, refs, g->nshaders);
  TP_FREE(refs);
  r_in = tp_fb_create_vector(b, g->inputs, g->ninputs, 4);
  r_out = tp_fb_create_vector(b, g->outputs, g->noutputs, 4);
  r_version = tp_fb_create_string(b, "0", 1);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_version, r_version);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_chain, r_chain);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_values, r_values);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_input_ids, r_in);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_output_ids, r_out);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_constants, r_consts);
  tp_fb_add_ref(b, TP_VK_F_VkGraph_shaders, r_shaders);
  tp_fb_add_u8(b, TP_VK_F_VkGraph_storage_type_override, g->storage_override,
               TP_VK_D_VkGraph_storage_type_override);
  tp_fb_add_u8(b, TP_VK_F_VkGraph_memory_layout_override, g->layout_override,
               TP_VK_D_VkGraph_memory_layout_override);
  s = tp_fb_finish(b, tp_fb_end_table(b), "VK00");
  if (s != TP_OK)
    return tp__error_set(&g->werr, s, "graph: building the flatbuffer failed: %s", tp_fb_error(b));
  data = tp_fb_data(b, &fb_size);
  if (!data || fb_size == 0)
    return tp__error_set(&g->werr, TP_ERR_FORMAT, "graph: the flatbuffer builder gave no bytes");
  g->fb_size = (uint64_t)fb_size;
  /* the delegate core's frame (the header's offsets are u32) */
  s = tp__delegate_frame_make("VH00", g->fb_size, 16, g->segment_size, &g->frame, total,
                              &g->werr);
  if (s != TP_OK) return s;
  g->dirty = 0;
  return TP_OK;
}

/* >>vk-write: the writer core's emit -------------------------------------------------------- */

static tp_status tp__vk_pad(tp_sink *sink, uint64_t n) {
  uint64_t pad = (16u - (n & 15u)) & 15u;
  return tp_sink_zeros(sink, (size_t)pad);
}

/* The blob (tp__vk_prepare ran): the writer core's emit. */
static tp_status tp__vk_emit(void *obj, tp_sink *sink) {
  tp_vk_graph *g = (tp_vk_graph *)obj;
  const unsigned char *fb;
  size_t fb_size = 0, i;
  uint64_t written = 0;
  tp_status s;
  fb = tp_fb_data(g->fb, &fb_size);
  s = tp__delegate_write_head(sink, "VH00", &g->frame, fb);
  for (i = 0; s == TP_OK && i < g->nconsts; i++) {
    const tp__vk_const *c = &g->consts[i];
    tp__tally cs;
    tp_sink wrap;
    if (c->named || c->nbytes == 0) continue;
    wrap = tp__sink_tally(&cs, sink);
    if (c->out == c->view.dtype)
      s = tp_compact_write(&c->view, TP_ORDER_ROW_MAJOR, &wrap);
    else
      s = tp_convert_write(&c->view, c->out, tp__vk_convert_flags(c->out), &wrap);
    if (s == TP_OK && cs.n != c->nbytes)
      return tp__error_set(&g->werr, TP_ERR_INVALID,
                          "value %lu: constant wrote %llu bytes, expected %llu",
                          (unsigned long)c->value_id, (unsigned long long)cs.n,
                          (unsigned long long)c->nbytes);
    if (s == TP_OK) s = tp__vk_pad(sink, c->nbytes);
    written += (c->nbytes + 15u) & ~(uint64_t)15u;
  }
  for (i = 0; s == TP_OK && i < g->nshaders; i++) {
    s = tp_sink_write(sink, g->shaders[i].bytes, g->shaders[i].n);
    if (s == TP_OK) s = tp__vk_pad(sink, (uint64_t)g->shaders[i].n);
    written += ((uint64_t)g->shaders[i].n + 15u) & ~(uint64_t)15u;
  }
  if (s == TP_OK && written < g->segment_size)
    s = tp_sink_zeros(sink, (size_t)(g->segment_size - written));
  return s;
}

static tp__writer tp__vk_writer(void *graph) { /* (also tp__vk_pte_backend's) */
  tp_vk_graph *g = (tp_vk_graph *)graph;
  TP_ASSERT(g);
  {
    tp__writer w = {g, &g->err, &g->werr, &g->writing, NULL, g->opts.progress,
                    g->opts.progress_ctx, tp__vk_prepare, tp__vk_emit};
    return w;
  }
}

TPDEF tp_status tp_vk_blob_size(tp_vk_graph *g, uint64_t *size_out) {
  tp__writer w = tp__vk_writer(g);
  return tp__writer_size(&w, "tp_vk_blob_size", size_out);
}
TPDEF tp_status tp_vk_write(tp_vk_graph *g, tp_sink *sink) {
  tp__writer w = tp__vk_writer(g);
  return tp__writer_write(&w, "tp_vk_write", sink);
}
#ifndef TP_NO_STDIO
TPDEF tp_status tp_vk_write_file(tp_vk_graph *g, const char *path) {
  tp__writer w = tp__vk_writer(g);
  return tp__writer_write_file(&w, "tp_vk_write_file", path);
}

TPDEF tp_status tp_vk_save(tp_vk_graph *g, const char *path, uint64_t *size_out) {
  tp__writer w = tp__vk_writer(g);
  return tp__writer_save(&w, "tp_vk_save", path, size_out);
}
#endif

/* >>vk-read: header --------------------------------------------------------------------- */

TPDEF tp_status tp_vk_parse_header(const void *blob, size_t size, tp_vk_header *out) {
  const unsigned char *p = (const unsigned char *)blob;
  tp__delegate_frame f;
  if (!out) return TP_ERR_INVALID;
  memset(out, 0, sizeof *out);
  if (tp__delegate_parse(blob, size, "VH00", "bytes", &f, NULL) != TP_OK) return TP_ERR_FORMAT;
  if (memcmp(p + f.flatbuffer_offset + 4, "VK00", 4) != 0) return TP_ERR_FORMAT;
  out->header_size = f.header_size;
  out->flatbuffer_offset = f.flatbuffer_offset;
  out->flatbuffer_size = f.flatbuffer_size;
  out->bytes_offset = f.segment_offset;
  out->bytes_size = f.segment_size;
  return TP_OK;
}

/* Named constants are found by key through a hash index of the .ptd: when the caller made
   none, one is built for the call (tp__vk_index_begin) and taken off again (tp__vk_index_end), so
   n lookups cost O(n), not O(n x entries). Without memory for it the lookups scan (slower, the
   same results). Returns the index to free, or NULL. */
static uint32_t *tp__vk_index_begin(tp_ptd *ptd) {
  uint32_t *index = NULL;
  if (ptd && !ptd->index__ && tp_ptd_status(ptd) == TP_OK && ptd->count > 0) {
    size_t ns = tp_ptd_index_slots(ptd);
    index = ns <= SIZE_MAX / sizeof *index ? (uint32_t *)TP_MALLOC(ns * sizeof *index) : NULL;
    if (index && tp_ptd_index(ptd, index, ns) != TP_OK) {
      TP_FREE(index);
      index = NULL;
    }
  }
  return index;
}

static void tp__vk_index_end(tp_ptd *ptd, uint32_t *index) {
  if (!index) return;
  ptd->index__ = NULL; /* the caller's ptd as it was given */
  ptd->index_cap__ = 0;
  TP_FREE(index);
}

/* n zeroed elements of es bytes (at least one, so that a count of 0 is not a failure); NULL
   and *ok = 0 when they do not fit or memory ran out. */
static void *tp__vk_rd_array(uint32_t n, size_t es, int *ok) {
  void *p = NULL;
  size_t cap = 0;
  if (tp__array_reserve(&p, &cap, (size_t)n + 1u, es) != TP_OK) {
    *ok = 0;
    return NULL;
  }
  memset(p, 0, cap * es);
  return p;
}

TPDEF void tp_vk_blob_free(tp_vk_blob *b) {
  if (!b) return;
  TP_FREE(b->values);
  TP_FREE(b->ops);
  TP_FREE(b->input_ids);
  TP_FREE(b->output_ids);
  TP_FREE(b->constants);
  TP_FREE(b->shaders);
  memset(b, 0, sizeof *b);
}

#define TP__VK_RD_FAIL(...)                                \
  do {                                                     \
    s = tp__error_set(err, TP_ERR_FORMAT, __VA_ARGS__);    \
    goto done;                                             \
  } while (0)

/* The VK00 rules, decided once: tp_vk_read_blob, tp_vk_check_blob, tp_vk_upload_blob and
   tpdump apply exactly these (this reader is their one walk), the writer never breaks them.
     - the VH00 header (tp__delegate_parse; with need_header 0 a blob whose bytes 4..7 are
       "VK00" is a bare flatbuffer with no raw bytes) and the VK00 flatbuffer through the
       bounds-checked reader; chain, values, input_ids, output_ids, constants and shaders
       present (ExecuTorch's loader dereferences them without a check);
     - input/output ids, ValueList items and operator arguments name values; an operator has
       its name and args;
     - every value a GraphTypes member with its table; a tensor's datatype a VkDataType,
       staging_datatype one or UNSET, storage_type / memory_layout one of the schema's or 255
       (ExecuTorch throws on any other), dims present and at most TP_MAX_DIMS;
     - a constant tensor: constant_id < the constants count, its VkBytes length EXACTLY
       numel(dims) x datatype size (no overflow); inline: offset < raw bytes size and the
       extent inside; named (key and offset UINT64_MAX): the entry's rule below (one sentence
       for a constant and a shader);
     - every constants / shaders entry a table; inline ones inside the raw bytes; named ones
       in the .ptd (when given) with `length` bytes.
   Sentences name the value / entry and the numbers. */
static tp_status tp__vk_read(const void *blob, size_t size, tp_ptd *ptd, int need_header,
                             tp_vk_blob *out, tp_error *err) {
  const unsigned char *p = (const unsigned char *)blob;
  tp_fb_reader rd;
  tp_fb_table root;
  tp_fb_vector vecs[6], values, consts, chain;
  static const char *const vnames[6] = {"chain", "values", "input_ids", "output_ids",
                                        "constants", "shaders"};
  static const uint16_t vids[6] = {TP_VK_F_VkGraph_chain, TP_VK_F_VkGraph_values,
                                   TP_VK_F_VkGraph_input_ids, TP_VK_F_VkGraph_output_ids,
                                   TP_VK_F_VkGraph_constants, TP_VK_F_VkGraph_shaders};
  uint32_t *ids[2], *index = NULL;
  tp_vk_blob_bytes *entries[2];
  tp_error pe;
  tp_status s = TP_OK;
  uint32_t i, k, n;
  int ok = 1;
  if (err) memset(err, 0, sizeof *err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "read: NULL output");
  memset(out, 0, sizeof *out);
  memset(&pe, 0, sizeof pe);
  if (!p) return tp__error_set(err, TP_ERR_INVALID, "check: no blob");
  out->flatbuffer = p;
  out->flatbuffer_size = size;
  if (need_header || size < 8 || memcmp(p + 4, "VK00", 4) != 0) {
    if (tp__delegate_parse(blob, size, "VH00", "bytes", &out->frame, &pe) != TP_OK)
      return tp__error_set(err, TP_ERR_FORMAT, "read: the %lu-byte blob has no valid VH00 "
                           "header and VK00 flatbuffer: %s", (unsigned long)size, pe.msg);
    out->has_header = 1;
    out->flatbuffer = p + out->frame.flatbuffer_offset;
    out->flatbuffer_size = out->frame.flatbuffer_size;
    out->segment = p + out->frame.segment_offset;
    out->segment_size = out->frame.segment_size;
  }
  memset(&rd, 0, sizeof rd);
  if (tp_fb_reader_init(&rd, out->flatbuffer, out->flatbuffer_size, "VK00", &root) != TP_OK)
    return tp__error_set(err, TP_ERR_FORMAT, "read: the %lu-byte blob has no valid VH00 header "
                         "and VK00 flatbuffer: %s", (unsigned long)size, rd.err.msg);
  index = tp__vk_index_begin(ptd);
  out->version = tp_fb_string(&root, TP_VK_F_VkGraph_version, &out->version_len);
  out->storage_type_override = tp_fb_u8(&root, TP_VK_F_VkGraph_storage_type_override,
                                        TP_VK_D_VkGraph_storage_type_override);
  out->memory_layout_override = tp_fb_u8(&root, TP_VK_F_VkGraph_memory_layout_override,
                                         TP_VK_D_VkGraph_memory_layout_override);
  if (tp_fb_reader_status(&rd) != TP_OK) TP__VK_RD_FAIL("VkGraph: %s", rd.err.msg);
  for (i = 0; i < 6; i++) {
    vecs[i] = tp_fb_vector_field(&root, vids[i], 4);
    if (tp_fb_reader_status(&rd) != TP_OK)
      TP__VK_RD_FAIL("VkGraph %s: %s", vnames[i], rd.err.msg);
    if (vecs[i].pos == 0)
      TP__VK_RD_FAIL("VkGraph: %s absent (the loader dereferences it)", vnames[i]);
  }
  chain = vecs[0];
  values = vecs[1];
  consts = vecs[4];
  n = values.count;
  out->values = (tp_vk_blob_value *)tp__vk_rd_array(n, sizeof *out->values, &ok);
  out->ops = (tp_vk_blob_op *)tp__vk_rd_array(chain.count, sizeof *out->ops, &ok);
  out->input_ids = (uint32_t *)tp__vk_rd_array(vecs[2].count, sizeof(uint32_t), &ok);
  out->output_ids = (uint32_t *)tp__vk_rd_array(vecs[3].count, sizeof(uint32_t), &ok);
  out->constants = (tp_vk_blob_bytes *)tp__vk_rd_array(consts.count, sizeof *out->constants, &ok);
  out->shaders = (tp_vk_blob_bytes *)tp__vk_rd_array(vecs[5].count, sizeof *out->shaders, &ok);
  if (!ok) {
    s = tp__error_set(err, TP_ERR_NOMEM, "read: no memory for %lu values, %lu ops",
                      (unsigned long)n, (unsigned long)chain.count);
    goto done;
  }
  out->num_values = n;
  out->num_ops = chain.count;
  out->num_input_ids = vecs[2].count;
  out->num_output_ids = vecs[3].count;
  out->num_constants = consts.count;
  out->num_shaders = vecs[5].count;
  ids[0] = out->input_ids;
  ids[1] = out->output_ids;
  for (k = 2; k < 4; k++)
    for (i = 0; i < vecs[k].count; i++) {
      uint64_t x = tp_fb_vector_scalar(&vecs[k], i);
      if (x >= n)
        TP__VK_RD_FAIL("%s[%lu] = %llu but there are %lu values", vnames[k], (unsigned long)i,
                       (unsigned long long)x, (unsigned long)n);
      ids[k - 2][i] = (uint32_t)x;
    }
  entries[0] = out->constants;
  entries[1] = out->shaders;
  for (k = 4; k < 6; k++) /* every VkBytes entry read (its bytes are found after the chain) */
    for (i = 0; i < vecs[k].count; i++) {
      tp_fb_table b = tp_fb_vector_table(&vecs[k], i);
      tp_vk_blob_bytes *e = &entries[k - 4][i];
      e->offset = tp_fb_u64(&b, TP_VK_F_VkBytes_offset, TP_VK_D_VkBytes_offset);
      e->length = tp_fb_u64(&b, TP_VK_F_VkBytes_length, TP_VK_D_VkBytes_length);
      e->named_key = tp_fb_string(&b, TP_VK_F_VkBytes_named_key, &e->named_key_len);
      if (tp_fb_reader_status(&rd) != TP_OK)
        TP__VK_RD_FAIL("%s[%lu]: %s", vnames[k], (unsigned long)i, rd.err.msg);
      if (b.pos == 0) TP__VK_RD_FAIL("%s[%lu]: absent", vnames[k], (unsigned long)i);
      e->named = e->named_key && e->offset == UINT64_MAX;
    }
  for (i = 0; i < n; i++) {
    tp_fb_table vv = tp_fb_vector_table(&values, i), t;
    tp_vk_blob_value *c = &out->values[i];
    uint8_t tag = 0;
    t = tp_fb_union_field(&vv, TP_VK_F_VkValue_value, &tag);
    c->type = tag;
    c->constant_id = c->mem_obj_id = -1;
    if (tp_fb_reader_status(&rd) != TP_OK)
      TP__VK_RD_FAIL("value %lu: %s", (unsigned long)i, rd.err.msg);
    if (!tp_vk_value_kind_name(tag))
      TP__VK_RD_FAIL("value %lu: GraphTypes tag %u is not a value kind", (unsigned long)i, tag);
    if (t.pos == 0)
      TP__VK_RD_FAIL("value %lu: %s (tag %u) without a table", (unsigned long)i,
                     tp_vk_value_kind_name(tag), tag);
    switch (tag) { /* the scalar, string and list kinds: their one field */
      case TP_VK_INT_VALUE: c->i = tp_fb_i64(&t, TP_VK_F_Int_int_val, TP_VK_D_Int_int_val); break;
      case TP_VK_DOUBLE_VALUE:
        c->d = tp_fb_f64(&t, TP_VK_F_Double_double_val, TP_VK_D_Double_double_val);
        break;
      case TP_VK_BOOL_VALUE:
        c->i = tp_fb_u8(&t, TP_VK_F_Bool_bool_val, TP_VK_D_Bool_bool_val) != 0;
        break;
      case TP_VK_SYMINT_VALUE:
        c->i = tp_fb_i32(&t, TP_VK_F_SymInt_value, TP_VK_D_SymInt_value);
        break;
      case TP_VK_STRING_VALUE:
        c->str = tp_fb_string(&t, TP_VK_F_String_string_val, &c->str_len);
        break;
      case TP_VK_INT_LIST_VALUE:
      case TP_VK_DOUBLE_LIST_VALUE:
      case TP_VK_BOOL_LIST_VALUE:
      case TP_VK_VALUE_LIST_VALUE: { /* every list's items are field 0 */
        tp_fb_vector items;
        c->item_size = tp__vk_items_size(tag);
        items = tp_fb_vector_field(&t, TP_VK_F_IntList_items, c->item_size);
        c->count = items.count;
        c->items = items.pos ? rd.buf + items.pos : NULL;
        for (k = 0; tag == TP_VK_VALUE_LIST_VALUE && k < items.count; k++) {
          int32_t id = (int32_t)(uint32_t)tp_fb_vector_scalar(&items, k);
          if (id < 0 || (uint32_t)id >= n)
            TP__VK_RD_FAIL("value %lu: ValueList item %lu = %ld is not a value id (0..%lu)",
                           (unsigned long)i, (unsigned long)k, (long)id, (unsigned long)n - 1);
        }
        break;
      }
      default: break;
    }
    if (tp_fb_reader_status(&rd) != TP_OK)
      TP__VK_RD_FAIL("value %lu (%s): %s", (unsigned long)i, tp_vk_value_kind_name(tag),
                     rd.err.msg);
    if (tag == TP_VK_TENSOR_VALUE) {
      int dt = tp_fb_i8(&t, TP_VK_F_VkTensor_datatype, TP_VK_D_VkTensor_datatype);
      int sdt = tp_fb_i8(&t, TP_VK_F_VkTensor_staging_datatype,
                         TP_VK_D_VkTensor_staging_datatype);
      unsigned st = tp_fb_u8(&t, TP_VK_F_VkTensor_storage_type, TP_VK_D_VkTensor_storage_type);
      unsigned ml = tp_fb_u8(&t, TP_VK_F_VkTensor_memory_layout, TP_VK_D_VkTensor_memory_layout);
      tp_fb_vector dims = tp_fb_vector_field(&t, TP_VK_F_VkTensor_dims, 4);
      int32_t cid = tp_fb_i32(&t, TP_VK_F_VkTensor_constant_id, TP_VK_D_VkTensor_constant_id);
      uint64_t nbytes = tp_vk_datatype_size(dt);
      const tp_vk_blob_bytes *e;
      c->mem_obj_id = tp_fb_i32(&t, TP_VK_F_VkTensor_mem_obj_id, TP_VK_D_VkTensor_mem_obj_id);
      if (tp_fb_reader_status(&rd) != TP_OK)
        TP__VK_RD_FAIL("value %lu (Tensor): %s", (unsigned long)i, rd.err.msg);
      if (nbytes == 0)
        TP__VK_RD_FAIL("value %lu: datatype %d is not a VkDataType", (unsigned long)i, dt);
      if (sdt != TP_VK_UNSET && tp_vk_datatype_size(sdt) == 0)
        TP__VK_RD_FAIL("value %lu: staging_datatype %d is not a VkDataType", (unsigned long)i,
                       sdt);
      if (!tp_vk_storage_type_name((int)st))
        TP__VK_RD_FAIL("value %lu: storage_type %u is not known", (unsigned long)i, st);
      if (!tp_vk_memory_layout_name((int)ml))
        TP__VK_RD_FAIL("value %lu: memory_layout %u is not known", (unsigned long)i, ml);
      if (dims.pos == 0)
        TP__VK_RD_FAIL("value %lu: dims absent (the loader reads them unchecked)",
                       (unsigned long)i);
      if (dims.count > TP_MAX_DIMS)
        TP__VK_RD_FAIL("value %lu: %lu dims, a tensor has at most %d (TP_MAX_DIMS)",
                       (unsigned long)i, (unsigned long)dims.count, TP_MAX_DIMS);
      c->datatype = (tp_vk_datatype)dt;
      c->staging_datatype = sdt;
      c->storage_type = (int)st;
      c->memory_layout = (int)ml;
      c->ndim = dims.count;
      c->constant_id = cid;
      for (k = 0; k < dims.count; k++) {
        c->dims[k] = (uint32_t)tp_fb_vector_scalar(&dims, k);
        if (tp__mul_u64(nbytes, c->dims[k], &nbytes))
          TP__VK_RD_FAIL("value %lu: the product of dims overflows 64 bits", (unsigned long)i);
      }
      c->nbytes = nbytes;
      if (cid < 0) continue;
      c->is_constant = 1;
      if ((uint32_t)cid >= consts.count)
        TP__VK_RD_FAIL("value %lu: constant_id %ld but the blob has %lu constants",
                       (unsigned long)i, (long)cid, (unsigned long)consts.count);
      e = &out->constants[cid]; /* read above; its bytes found below, with every entry's */
      if (e->length != nbytes)
        TP__VK_RD_FAIL("value %lu: constant %ld has %llu bytes but dims x %s make %llu",
                       (unsigned long)i, (long)cid, (unsigned long long)e->length,
                       tp__vk_dt_name(dt), (unsigned long long)nbytes);
      if (e->named)
        c->key = e->named_key;
      else if (e->offset >= out->segment_size || nbytes > out->segment_size - e->offset)
        /* the loader's rule: offset strictly inside the raw bytes, extent inside too */
        TP__VK_RD_FAIL("value %lu: constant at offset %llu with %llu bytes exceeds the %llu raw "
                       "bytes", (unsigned long)i, (unsigned long long)e->offset,
                       (unsigned long long)nbytes, (unsigned long long)out->segment_size);
    }
  }
  for (i = 0; i < chain.count; i++) {
    tp_fb_table t = tp_fb_vector_table(&chain, i);
    tp_vk_blob_op *op = &out->ops[i];
    tp_fb_vector args;
    op->name = tp_fb_string(&t, TP_VK_F_OperatorCall_name, &op->name_len);
    args = tp_fb_vector_field(&t, TP_VK_F_OperatorCall_args, 4);
    op->node_id = tp_fb_u32(&t, TP_VK_F_OperatorCall_node_id, TP_VK_D_OperatorCall_node_id);
    if (tp_fb_reader_status(&rd) != TP_OK)
      TP__VK_RD_FAIL("op %lu: %s", (unsigned long)i, rd.err.msg);
    if (!op->name) TP__VK_RD_FAIL("op %lu: name absent", (unsigned long)i);
    if (!args.pos) TP__VK_RD_FAIL("op %lu: args absent", (unsigned long)i);
    op->op_index = strlen(op->name) == op->name_len ? tp_vk_op_find(op->name) : -1;
    op->num_args = args.count;
    op->args = rd.buf + args.pos;
    for (k = 0; k < args.count; k++) {
      int32_t a = (int32_t)(uint32_t)tp_fb_vector_scalar(&args, k);
      if (a < 0 || (uint32_t)a >= n)
        TP__VK_RD_FAIL("op %lu (%.*s): arg %lu = %ld is not a value id (%lu values)",
                       (unsigned long)i, (int)(op->name_len < 64 ? op->name_len : 64), op->name,
                       (unsigned long)k, (long)a, (unsigned long)n);
    }
  }
  for (k = 4; k < 6; k++) /* the bytes of every entry, a constant tensor's included */
    for (i = 0; i < vecs[k].count; i++) {
      tp_vk_blob_bytes *e = &entries[k - 4][i];
      uint64_t end;
      if (e->named) {
        tp_ptd_entry en;
        if (!ptd) continue;
        if (tp_ptd_find(ptd, e->named_key, &en) != TP_OK)
          TP__VK_RD_FAIL("%s[%lu]: named_key \"%.80s\" is not in the .ptd", vnames[k],
                         (unsigned long)i, e->named_key);
        if ((uint64_t)en.nbytes != e->length)
          TP__VK_RD_FAIL("%s[%lu]: named_key \"%.80s\" has %llu bytes in the .ptd, the blob says "
                         "%llu", vnames[k], (unsigned long)i, e->named_key,
                         (unsigned long long)en.nbytes, (unsigned long long)e->length);
        e->data = (const unsigned char *)en.data;
      } else if (tp__add_u64(e->offset, e->length, &end) || end > out->segment_size) {
        TP__VK_RD_FAIL("%s[%lu]: [%llu, +%llu) is outside the %llu-byte bytes segment",
                       vnames[k], (unsigned long)i, (unsigned long long)e->offset,
                       (unsigned long long)e->length, (unsigned long long)out->segment_size);
      } else if (out->segment) {
        e->data = out->segment + e->offset;
      }
    }
  for (i = 0; i < n; i++)
    if (out->values[i].is_constant)
      out->values[i].data = out->constants[out->values[i].constant_id].data;
  if (tp_fb_reader_status(&rd) != TP_OK)
    TP__VK_RD_FAIL("read: flatbuffer: %s", rd.err.msg);
done:
  tp__vk_index_end(ptd, index);
  if (s != TP_OK) tp_vk_blob_free(out);
  return s;
}
#undef TP__VK_RD_FAIL

TPDEF tp_status tp_vk_read_blob(const void *blob, size_t size, tp_ptd *ptd, tp_vk_blob *out,
                                tp_error *err) {
  return tp__vk_read(blob, size, ptd, 0, out, err);
}

TPDEF tp_status tp_vk_check_blob(const void *blob, size_t size, tp_ptd *ptd, tp_error *err) {
  tp_vk_blob b;
  tp_status s = tp__vk_read(blob, size, ptd, 1, &b, err);
  tp_vk_blob_free(&b);
  return s;
}

/* >>vk-pte: a graph as a program's method -------------------------------------------------- */

#ifndef TP_ASSERT
#define TP_ASSERT(x) assert(x)
#endif

TPDEF tp_status tp_vk_graph_tensor(const tp_vk_graph *g, uint32_t id, tp_vk_tensor_info *out) {
  const tp__vk_value *v;
  size_t d;
  TP_ASSERT(g);
  if (!out) return TP_ERR_INVALID;
  memset(out, 0, sizeof *out);
  if (id >= g->nvalues || g->values[id].type != TP_VK_TENSOR_VALUE) return TP_ERR_INVALID;
  v = &g->values[id];
  out->datatype = (tp_vk_datatype)v->dt;
  out->staging = (tp_vk_datatype)v->staging;
  out->ndim = v->ndim;
  for (d = 0; d < v->ndim; d++) out->dims[d] = v->dims[d];
  out->is_constant = v->constant_id >= 0;
  return TP_OK;
}

TPDEF void tp_vk_graph_io(const tp_vk_graph *g, const uint32_t **inputs, size_t *n_in,
                          const uint32_t **outputs, size_t *n_out) {
  TP_ASSERT(g);
  if (inputs) *inputs = g->inputs;
  if (n_in) *n_in = g->ninputs;
  if (outputs) *outputs = g->outputs;
  if (n_out) *n_out = g->noutputs;
}

static tp_status tp__vk_pte_produce(void *ctx, tp_sink *sink) {
  return tp_vk_write((tp_vk_graph *)ctx, sink);
}

/* g's inputs, then its outputs (tp__pte_backend's tensors). */
static tp_status tp__vk_pte_tensors(void *graph, tp_pte_tensor *t, size_t *n_out, tp_error *e) {
  tp_vk_graph *g = (tp_vk_graph *)graph;
  const uint32_t *ids[2];
  size_t n[2], k, i;
  tp_vk_graph_io(g, &ids[0], &n[0], &ids[1], &n[1]);
  *n_out = n[0] + n[1];
  for (k = 0; t && k < 2; k++)
    for (i = 0; i < n[k]; i++, t++) {
      tp_vk_tensor_info ti;
      size_t d;
      int sc;
      if (tp_vk_graph_tensor(g, ids[k][i], &ti) != TP_OK)
        return tp__error_set(e, TP_ERR_UNSUPPORTED, "Vulkan %s %lu (value %lu) is not a tensor",
                             k ? "output" : "input", (unsigned long)i, (unsigned long)ids[k][i]);
      sc = tp__vk_dt_to_tp((int)ti.staging);
      t->role = k ? TP_PTE_OUTPUT : TP_PTE_INPUT;
      t->dtype = (tp_dtype)(sc < 0 ? (int)TP_F32 : sc);
      t->ndim = (int)ti.ndim;
      for (d = 0; d < ti.ndim; d++) t->sizes[d] = (int64_t)ti.dims[d];
    }
  return TP_OK;
}

static const tp__pte_backend tp__vk_pte_backend = {"VulkanBackend", "Vulkan", "a Vulkan call", 0,
                                                   tp__vk_writer, tp__vk_pte_tensors,
                                                   tp__vk_pte_produce};

TPDEF tp_status tp_vk_add_pte_method(tp_pte *p, const char *name, tp_vk_graph *g,
                                     const tp_vk_compile_specs *cs) {
  tp_pte_compile_spec specs[TP_VK_MAX_COMPILE_SPECS];
  size_t n = 0;
  tp_error err;
  tp_status st;
  TP_ASSERT(p);
  TP_ASSERT(g);
  st = tp__pte_fail(p, TP_OK, NULL); /* a failure latched before */
  if (st != TP_OK) return st;
  st = tp_vk_encode_compile_specs(cs, specs, &n, &err);
  if (st != TP_OK)
    return tp__pte_fail(p, st, "method \"%.80s\": %.160s", name ? name : "(null)", err.msg);
  return tp__pte_add_backend_method(p, name, &tp__vk_pte_backend, g, n ? specs : NULL, n);
}

TPDEF tp_status tp_vk_pte_call(tp_pte_graph *pg, tp_vk_graph *g, const uint32_t *args, size_t n) {
  return tp__pte_backend_call(pg, &tp__vk_pte_backend, g, args, n);
}

/* A key is looked up for a tensor value with constant_id >= 0 whose VkBytes has a named_key
   and offset UINT64_MAX (VulkanBackend.cpp's add_tensor_to_graph): the reader's `key`. */
TPDEF tp_status tp__vk_blob_keys(const void *blob, size_t size, tp__key_fn fn, void *ctx,
                                 tp_error *err) {
  tp_vk_blob b;
  uint32_t i;
  tp_status s = tp__vk_read(blob, size, NULL, 1, &b, err);
  for (i = 0; s == TP_OK && i < b.num_values; i++)
    if (b.values[i].key) /* the loader looks the key up as a C string */
      s = fn(ctx, b.values[i].key, strlen(b.values[i].key));
  tp_vk_blob_free(&b);
  return s;
}

TPDEF tp_status tp_vk_pte_missing_keys(tp_pte_file *f, size_t m, tp_ptd *ptd, const char **keys,
                                       size_t cap, size_t *count, tp_error *err) {
  static const tp__pte_backend_keys bk = {"VulkanBackend", tp__vk_blob_keys};
  return tp__pte_missing_keys("tp_vk_pte_missing_keys", f, m, ptd, &bk, 1, keys, cap, count,
                              err);
}

#ifdef __cplusplus
}
#endif

#endif /* TENSORPACK_VULKAN_IMPLEMENTATION_DONE */
#endif /* TENSORPACK_VULKAN_IMPLEMENTATION */

/* >>vk-runtime: upload a blob's constants onto a Vulkan device ---------------------------- */
#if defined(TENSORPACK_VULKAN_IMPLEMENTATION) && defined(TENSORPACK_VULKAN_RUNTIME)
#ifndef TENSORPACK_VULKAN_RUNTIME_IMPLEMENTATION_DONE
#define TENSORPACK_VULKAN_RUNTIME_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp__vk_uploader {
  VkPhysicalDevice physical;
  VkDevice device;
  uint32_t queue_family;
  unsigned flags;
  VkPhysicalDeviceMemoryProperties mem;
  VkCommandPool pool; /* created on the first staged copy */
  tp_vk_upload *out;
} tp__vk_uploader;

static tp_status tp__vk_vkfail(tp_vk_upload *u, uint32_t id, const char *call, VkResult r) {
  return tp__error_set(&u->err, TP_ERR_UNSUPPORTED, "value %lu: %s failed with VkResult %d",
                      (unsigned long)id, call, (int)r);
}

/* Index of a memory type allowed by bits with all of `want`, or -1. */
static int tp__vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
                              VkMemoryPropertyFlags want) {
  uint32_t i;
  for (i = 0; i < mp->memoryTypeCount && i < 32u; i++)
    if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want) return (int)i;
  return -1;
}

/* A buffer with memory of a type that has `want` (falling back to `fallback`). */
static tp_status tp__vk_make_buffer(tp__vk_uploader *up, uint32_t id, VkDeviceSize size,
                                    VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
                                    VkMemoryPropertyFlags fallback, VkBuffer *buf_out,
                                    VkDeviceMemory *mem_out, VkMemoryPropertyFlags *got) {
  VkBufferCreateInfo bi;
  VkMemoryRequirements req;
  VkMemoryAllocateInfo ai;
  VkResult r;
  int type;
  *buf_out = VK_NULL_HANDLE;
  *mem_out = VK_NULL_HANDLE;
  memset(&bi, 0, sizeof bi);
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = size;
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  r = vkCreateBuffer(up->device, &bi, NULL, buf_out);
  if (r != VK_SUCCESS) {
    *buf_out = VK_NULL_HANDLE;
    return tp__vk_vkfail(up->out, id, "vkCreateBuffer", r);
  }
  vkGetBufferMemoryRequirements(up->device, *buf_out, &req);
  type = tp__vk_memory_type(&up->mem, req.memoryTypeBits, want);
  if (type < 0) type = tp__vk_memory_type(&up->mem, req.memoryTypeBits, fallback);
  if (type < 0) {
    vkDestroyBuffer(up->device, *buf_out, NULL);
    *buf_out = VK_NULL_HANDLE;
    return tp__error_set(&up->out->err, TP_ERR_UNSUPPORTED,
                        "value %lu: no memory type fits a %llu-byte buffer (type bits 0x%x)",
                        (unsigned long)id, (unsigned long long)size,
                        (unsigned)req.memoryTypeBits);
  }
  *got = up->mem.memoryTypes[type].propertyFlags;
  memset(&ai, 0, sizeof ai);
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = (uint32_t)type;
  r = vkAllocateMemory(up->device, &ai, NULL, mem_out);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(up->device, *buf_out, *mem_out, 0);
  if (r != VK_SUCCESS) {
    if (*mem_out != VK_NULL_HANDLE) vkFreeMemory(up->device, *mem_out, NULL);
    vkDestroyBuffer(up->device, *buf_out, NULL);
    *buf_out = VK_NULL_HANDLE;
    *mem_out = VK_NULL_HANDLE;
    return tp__vk_vkfail(up->out, id, "vkAllocateMemory/vkBindBufferMemory", r);
  }
  return TP_OK;
}

/* Copies n bytes into host-visible memory (flushing when it is not coherent). */
static tp_status tp__vk_fill(tp__vk_uploader *up, uint32_t id, VkDeviceMemory mem,
                             VkMemoryPropertyFlags props, const void *data, size_t n) {
  void *p = NULL;
  VkResult r = vkMapMemory(up->device, mem, 0, VK_WHOLE_SIZE, 0, &p);
  if (r != VK_SUCCESS) return tp__vk_vkfail(up->out, id, "vkMapMemory", r);
  memcpy(p, data, n);
  if (!(props & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
    VkMappedMemoryRange range;
    memset(&range, 0, sizeof range);
    range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    range.memory = mem;
    range.offset = 0;
    range.size = VK_WHOLE_SIZE;
    r = vkFlushMappedMemoryRanges(up->device, 1, &range);
  }
  vkUnmapMemory(up->device, mem);
  return r == VK_SUCCESS ? TP_OK : tp__vk_vkfail(up->out, id, "vkFlushMappedMemoryRanges", r);
}

/* Staging buffer -> dst through a one-time command buffer on queue 0 of the family. */
static tp_status tp__vk_staged_copy(tp__vk_uploader *up, uint32_t id, VkBuffer dst,
                                    const void *data, size_t n) {
  VkBuffer sbuf = VK_NULL_HANDLE;
  VkDeviceMemory smem = VK_NULL_HANDLE;
  VkMemoryPropertyFlags props = 0;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkResult r = VK_SUCCESS;
  const char *call = "";
  tp_status s;
  s = tp__vk_make_buffer(up, id, (VkDeviceSize)n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, &sbuf, &smem, &props);
  if (s != TP_OK) return s;
  s = tp__vk_fill(up, id, smem, props, data, n);
  if (s == TP_OK && up->pool == VK_NULL_HANDLE) {
    VkCommandPoolCreateInfo pi;
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = up->queue_family;
    call = "vkCreateCommandPool";
    r = vkCreateCommandPool(up->device, &pi, NULL, &up->pool);
    if (r != VK_SUCCESS) up->pool = VK_NULL_HANDLE;
  }
  if (s == TP_OK && r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo ai;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = up->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    call = "vkAllocateCommandBuffers";
    r = vkAllocateCommandBuffers(up->device, &ai, &cb);
    if (r != VK_SUCCESS) cb = VK_NULL_HANDLE;
  }
  if (s == TP_OK && r == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi;
    VkBufferCopy region;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    call = "vkBeginCommandBuffer";
    r = vkBeginCommandBuffer(cb, &bi);
    if (r == VK_SUCCESS) {
      memset(&region, 0, sizeof region);
      region.size = (VkDeviceSize)n;
      vkCmdCopyBuffer(cb, sbuf, dst, 1, &region);
      call = "vkEndCommandBuffer";
      r = vkEndCommandBuffer(cb);
    }
  }
  if (s == TP_OK && r == VK_SUCCESS) {
    VkFenceCreateInfo fi;
    memset(&fi, 0, sizeof fi);
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    call = "vkCreateFence";
    r = vkCreateFence(up->device, &fi, NULL, &fence);
    if (r != VK_SUCCESS) fence = VK_NULL_HANDLE;
  }
  if (s == TP_OK && r == VK_SUCCESS) {
    VkSubmitInfo si;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    vkGetDeviceQueue(up->device, up->queue_family, 0, &queue);
    call = "vkQueueSubmit";
    r = vkQueueSubmit(queue, 1, &si, fence);
    if (r == VK_SUCCESS) {
      call = "vkWaitForFences";
      r = vkWaitForFences(up->device, 1, &fence, VK_TRUE, UINT64_MAX);
    }
  }
  if (s == TP_OK && r != VK_SUCCESS) s = tp__vk_vkfail(up->out, id, call, r);
  if (fence != VK_NULL_HANDLE) vkDestroyFence(up->device, fence, NULL);
  if (cb != VK_NULL_HANDLE) vkFreeCommandBuffers(up->device, up->pool, 1, &cb);
  vkDestroyBuffer(up->device, sbuf, NULL);
  vkFreeMemory(up->device, smem, NULL);
  return s;
}

static tp_status tp__vk_upload_one(tp__vk_uploader *up, uint32_t id, tp_vk_device_constant *c,
                                   const void *data) {
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  int staging = (up->flags & TP_VK_UPLOAD_FORCE_STAGING) != 0;
  VkMemoryPropertyFlags props = 0;
  tp_status s = tp__vk_make_buffer(up, id, (VkDeviceSize)c->nbytes, usage, staging ? dl : dl | hv,
                                   staging ? 0 : dl, &c->buffer, &c->memory, &props);
  if (s != TP_OK) return s;
  if (!staging && (props & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
    return tp__vk_fill(up, id, c->memory, props, data, (size_t)c->nbytes);
  c->staged = 1;
  return tp__vk_staged_copy(up, id, c->buffer, data, (size_t)c->nbytes);
}

TPDEF void tp_vk_upload_free(tp_vk_upload *u) {
  uint32_t i;
  if (!u) return;
  if (u->values) {
    for (i = 0; i < u->value_count; i++) {
      if (u->values[i].owner != i) continue; /* shared: its owner destroys it */
      if (u->values[i].buffer != VK_NULL_HANDLE)
        vkDestroyBuffer(u->device, u->values[i].buffer, NULL);
      if (u->values[i].memory != VK_NULL_HANDLE)
        vkFreeMemory(u->device, u->values[i].memory, NULL);
    }
    TP_FREE(u->values);
  }
  memset(u, 0, sizeof *u);
}

TPDEF tp_status tp_vk_upload_blob(const void *blob, size_t size, tp_ptd *ptd,
                                  VkPhysicalDevice physical, VkDevice device,
                                  uint32_t queue_family, unsigned flags, tp_vk_upload *out) {
  tp__vk_uploader up;
  tp_vk_blob b;
  uint32_t *first = NULL; /* constant_id -> the first value naming it (UINT32_MAX: none yet) */
  uint32_t n, i;
  int ok = 1;
  tp_status s;
  if (!out) return TP_ERR_INVALID;
  memset(out, 0, sizeof *out);
  out->device = device;
  if (!blob || device == VK_NULL_HANDLE || physical == VK_NULL_HANDLE)
    return tp__error_set(&out->err, TP_ERR_INVALID, "upload: NULL blob, device or physical device");
  s = tp__vk_read(blob, size, ptd, 1, &b, &out->err);
  if (s != TP_OK) return s;
  memset(&up, 0, sizeof up);
  n = b.num_values;
  for (i = 0; i < n && s == TP_OK; i++)
    if (b.values[i].key && !ptd)
      s = tp__error_set(&out->err, TP_ERR_FORMAT, "value %lu: constant is named \"%.64s\" but "
                        "no .ptd was given", (unsigned long)i, b.values[i].key);
  /* the reader checked each constant_id against the blob's constants vector (4 bytes an entry
     inside the blob), so the map is at most size / 4 entries */
  if (s == TP_OK) {
    out->values = (tp_vk_device_constant *)tp__vk_rd_array(n, sizeof *out->values, &ok);
    first = (uint32_t *)tp__vk_rd_array(b.num_constants, sizeof *first, &ok);
    if (!ok)
      s = tp__error_set(&out->err, TP_ERR_NOMEM, "upload: %lu values, %lu constants",
                        (unsigned long)n, (unsigned long)b.num_constants);
  }
  if (s != TP_OK) goto done;
  memset(first, 0xFF, (size_t)b.num_constants * sizeof *first);
  for (i = 0; i < n; i++) {
    out->values[i].owner = i;
    out->values[i].constant_id = -1;
  }
  out->value_count = n;
  up.physical = physical;
  up.device = device;
  up.queue_family = queue_family;
  up.flags = flags;
  up.out = out;
  vkGetPhysicalDeviceMemoryProperties(physical, &up.mem);
  for (i = 0; i < n && s == TP_OK; i++) {
    tp_vk_device_constant *c = &out->values[i];
    const tp_vk_blob_value *v = &b.values[i];
    uint32_t *f;
    if (!v->is_constant) continue;
    c->is_constant = 1;
    c->constant_id = v->constant_id;
    c->datatype = v->datatype;
    c->ndim = v->ndim;
    memcpy(c->dims, v->dims, sizeof c->dims);
    c->nbytes = v->nbytes;
    if (c->nbytes == 0) continue;
    f = &first[v->constant_id];
    if (*f != UINT32_MAX) { /* the same constant (hence the same nbytes): share its buffer */
      c->buffer = out->values[*f].buffer;
      c->memory = out->values[*f].memory;
      c->staged = out->values[*f].staged;
      c->owner = *f;
      continue;
    }
    if (c->nbytes > (uint64_t)SIZE_MAX) {
      s = tp__error_set(&out->err, TP_ERR_OVERFLOW, "value %lu: %llu bytes", (unsigned long)i,
                       (unsigned long long)c->nbytes);
      break;
    }
    s = tp__vk_upload_one(&up, i, c, v->data);
    if (s != TP_OK) break;
    *f = i;
    out->buffer_count++;
    out->buffer_bytes += c->nbytes;
  }
done:
  TP_FREE(first);
  tp_vk_blob_free(&b);
  if (up.pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, up.pool, NULL);
  if (s != TP_OK) { /* what was made is destroyed; the sentence stays */
    tp_error keep = out->err;
    tp_vk_upload_free(out);
    out->err = keep;
  }
  return s;
}

#ifdef __cplusplus
}
#endif

#endif /* TENSORPACK_VULKAN_RUNTIME_IMPLEMENTATION_DONE */
#endif /* TENSORPACK_VULKAN_IMPLEMENTATION && TENSORPACK_VULKAN_RUNTIME */
