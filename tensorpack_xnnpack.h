/* tensorpack_xnnpack.h - v0.3.0 - ExecuTorch XNNPACK delegate blobs from tensor views
                          public domain or MIT (see tensorpack.h)

   Writes the payload ExecuTorch's XNNPACK backend loads (an "XH00" header, the "XN01"
   FlatBuffer graph, the constant segment), with every constant exactly the bytes of the view
   it was given: a weight that is a view 64 floats into a bigger storage is written as those
   64 floats, a q/k/v chunk of a packed in_proj_weight as its own third, a transposed scale in
   row-major order. Built only on tensorpack.h's public API.

   Do this:
      #define TENSORPACK_IMPLEMENTATION            (once, for tensorpack.h)
      #define TENSORPACK_XNNPACK_IMPLEMENTATION    (once, for this file)
   before you include this file in *one* C or C++ file.

   CONTENTS (declarations: headings "---- name"; implementation: markers ">>name")
     datatypes and flags (TP_XNN_DATATYPES)          >>xnn-tables
     the XN01 format, described once (tables,
       TP_XNN_NODE_LIST, TP_XNN_NODE_SUPPORT)        >>xnn-tables, >>xnn-serialize
     the graph and its options                       >>xnn-graph
     values                                          >>xnn-values, >>xnn-constants
     nodes (one define call per kind) and their
       rules                                         >>xnn-nodes, >>xnn-check
     quantized linears in one call                   >>xnn-quant
     PyTorch layouts                                 >>xnn-torch
     output (size, write, write_file, save)          >>xnn-serialize
     reading a blob, checks                          >>xnn-read, >>xnn-check-blob
     loader onto the real XNNPACK (optional)         >>xnn-runtime
     programs (.pte)                                 >>xnn-pte, >>xnn-pte-read, >>xnn-load-pte
     for tools/tpdump.c, not for users (tp__)        >>xnn-pte-read

   QUICK START (from examples/02_xnnpack_linear.c: y = x W^T, W a view into a bigger storage)

      float storage[3 * 8 * 8];                     // torch.randn(3, 8, 8)
      int64_t sz[3] = {3, 8, 8};
      tp_storage s = {storage, sizeof storage};
      tp_tensor parent, w;                          // w = parent[1]: 64 floats in
      tp_view(s, TP_F32, 3, sz, NULL, 0, &parent, NULL);
      tp_select(&parent, 0, 1, &w, NULL);

      tp_xnn_graph *g;
      size_t xd[2] = {2, 8}, yd[2] = {2, 8};
      uint32_t x, wt, y;
      tp_xnn_graph_create(NULL, &g);                // NULL options: constants inline
      tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &x);
      tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &wt);
      tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, yd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &y);
      tp_xnn_define_fully_connected(g, -INFINITY, INFINITY, x, wt, TP_XNN_INVALID_ID, y, 0);
      tp_xnn_save(g, "linear.xnn", NULL);           // atomic; on failure prints "error: <why>"
      tp_xnn_graph_destroy(g);

   WHAT IT DOES
   - One define call per node kind of the schema's XNodeUnion (47), named and ordered as
     XNNPACK's own xnn_define_* where XNNPACK has the call, otherwise in the schema's field
     order. Value ids (id_out) are 0, 1, 2 ... in definition order.
   - External ids are the caller's (TP_XNN_INVALID_ID for an internal value), unique, below
     4096 (the upstream loader's limit). num_externs = largest external id + 1; input_ids /
     output_ids = value ids of the external inputs / outputs ordered by external id.
   - Constants. Inline (options.store == NULL): in the blob's constant segment, in definition
     order, each entry starting at a multiple of the alignment (16 by default) from the segment
     start and zero-padded up to the next one; constant_data[0] is the reserved empty entry;
     inline entries carry no named_key field at all (the loader picks "named" by its presence).
     Named (options.store set): each constant goes into the store under the lowercase hex
     SHA-256 of its written bytes (scales: "scale_" + hex), and the blob's entry carries
     offset UINT64_MAX, the size and the key; the constant segment is empty. In named mode,
     constants with the same key share one constant_data entry; inline mode never merges.
   - Weights are compacted row-major from any view (a view that already is compact is handed
     to the sink / store straight from its storage, no copy). Per-channel and groupwise scales are always copied row-major into a constant
     of their own, referenced by scale_buffer_idx + num_scales, with an empty-but-present
     `scale` vector. Groupwise scales are written as bf16 (from f32 with round-to-nearest-even,
     or given as bf16). 4-bit weights (QCINT4, QBINT4) given as an int8 view of values in
     [-8, 7] are packed (v + 8, two per byte along the last dim, low nibble = even index, odd
     last dim padded with nibble 8); a uint8 view is taken as already packed.
   - PyTorch layouts: tp_xnn_define_conv2d_torch / _conv_transpose2d_torch / _linear_torch take
     nn.Conv2d (OIHW; depthwise and groups), nn.ConvTranspose2d, nn.Linear and transformers'
     Conv1D weights as they lie and define XNNPACK's layout from them (kernel and channels from
     the weight's shape); tp_xnn_conv_filter_from_torch & co. give the layouts as views.
   - tp_xnn_blob_size() gives the exact size; tp_xnn_write() streams it (the FlatBuffer is built
     in memory, constants are streamed view by view, never copied whole); tp_xnn_write_file()
     is atomic.

   BLOB LAYOUT (as ExecuTorch's XNNHeader.cpp parses it; all little-endian)
      [0,4) zero  [4,8) "XH00"  [8,10) u16 30  [10,14) u32 flatbuffer offset (32)
      [14,18) u32 flatbuffer size  [18,22) u32 constant data offset  [22,30) u64 constant size
      zero padding to 32, the flatbuffer, zero padding to the alignment, the constant segment.

   ERRORS
   Every call returns a tp_status. The first failure sticks in the graph as a sentence that
   names the value or node and the numbers (tp_xnn_graph_error); later calls return it and a
   failed graph refuses to write. A failed define leaves no value, node or constant entry behind
   (in named mode the store may already hold the bytes of a constant checked before the failure;
   the store cannot take them back). A failing sink is returned by tp_xnn_write and does not
   poison the graph.

   LIFETIMES
   Views (weights and scales) are borrowed: inline, until the graph is written; named, until the
   store is written (weights that need no conversion go to the store as views; packed 4-bit
   weights and scales go in as copies).

   OPTIONAL LOADER (define TENSORPACK_XNNPACK_RUNTIME with the implementation, link
   -lXNNPACK -lm): tp_xnn_load() rebuilds a blob's subgraph with the real XNNPACK API and makes
   a runtime; tp_xnn_load_pte() does it for a program's method (named data embedded in the
   .pte, in a .ptd, or both), a method of one delegate call or a tp_pte_graph chain of them
   (wired by value, its memory plan and constants); see the declarations at the end of the API.

   THREADS: a graph is not shared between threads; different graphs are independent.
   MEMORY: TP_MALLOC / TP_REALLOC / TP_FREE of tensorpack.h. Views are borrowed until written.
*/
#ifndef TENSORPACK_XNNPACK_H
#define TENSORPACK_XNNPACK_H

#include "tensorpack.h"
#if !defined(TP_VERSION_MAJOR) || TP_VERSION_MAJOR != 0 || TP_VERSION_MINOR != 3
#error "tensorpack_xnnpack.h needs tensorpack.h 0.3.x (an older or newer tensorpack.h was found first on the include path)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* XNNDatatype, described once: X(code, NAME, name, bits, view, scalar, family).
   code   the schema's XNNDatatype value (ExecuTorch's schema.fbs). XNNPACK's own enum
          xnn_datatype has the same names and numbers except three: the schema's qbint4 = 10,
          qpint8 = 11, int32 = 12 are XNNPACK's 12, 10, 11. The loader maps by name
          (xnn_datatype_<name>), never by number.
   bits   per element (4: two elements per byte, see the top of the file).
   view   the tp_dtype a constant's data view must have (4-bit: an i8 view of values in
          [-8, 7], or a u8 view of packed bytes).
   scalar the ScalarType (tp_dtype code) of a .pte tensor holding it; -1: none.
   family the define call that takes it: PLAIN tp_xnn_define_tensor_value, PER_TENSOR
          _quantized_, PER_CHANNEL _channelwise_quantized_, BLOCKWISE _blockwise_quantized_,
          DYNAMIC _dynamically_quantized_tensor_value.
   TP_XNN_DATATYPES_2022 are the ones every XNNPACK since 2022 has; TP_XNN_DATATYPES_2023 came
   later (the XNNPACK ExecuTorch pins has all). Every name, size, range check, view rule,
   ScalarType and the loader's mapping derive from this list. */
#define TP_XNN_DATATYPES_2022(X)                                                             \
  X(1, FP32, fp32, 32, TP_F32, TP_F32, PLAIN)                                                \
  X(2, FP16, fp16, 16, TP_F16, TP_F16, PLAIN)                                                \
  X(3, QINT8, qint8, 8, TP_I8, TP_I8, PER_TENSOR)                                            \
  X(4, QUINT8, quint8, 8, TP_U8, TP_U8, PER_TENSOR)                                          \
  X(5, QINT32, qint32, 32, TP_I32, -1, PER_TENSOR)                                           \
  X(6, QCINT8, qcint8, 8, TP_I8, -1, PER_CHANNEL)                                            \
  X(7, QCINT32, qcint32, 32, TP_I32, -1, PER_CHANNEL)
#define TP_XNN_DATATYPES_2023(X)                                                             \
  X(8, QCINT4, qcint4, 4, TP_I8, -1, PER_CHANNEL)                                            \
  X(9, QDINT8, qdint8, 8, TP_I8, -1, DYNAMIC)                                                \
  X(10, QBINT4, qbint4, 4, TP_I8, -1, BLOCKWISE)                                             \
  X(11, QPINT8, qpint8, 8, TP_I8, -1, DYNAMIC)                                               \
  X(12, INT32, int32, 32, TP_I32, TP_I32, PLAIN)                                             \
  X(13, PFP32, pfp32, 32, TP_F32, -1, PLAIN)                                                 \
  X(14, BF16, bf16, 16, TP_BF16, TP_BF16, PLAIN)
#define TP_XNN_DATATYPES(X) TP_XNN_DATATYPES_2022(X) TP_XNN_DATATYPES_2023(X)

#define TP__XNN_DT_ENUM(code, NAME, name, bits, view, scalar, family) TP_XNN_##NAME = code,
typedef enum tp_xnn_datatype {
  TP_XNN_INVALID = 0,
  TP_XNN_DATATYPES(TP__XNN_DT_ENUM)
  TP_XNN_DATATYPE_END /* one past the largest code */
} tp_xnn_datatype;
#undef TP__XNN_DT_ENUM
/* The define call families of the list (its family column). */
enum {
  TP_XNN_DT_PLAIN = 1, TP_XNN_DT_PER_TENSOR, TP_XNN_DT_PER_CHANNEL, TP_XNN_DT_BLOCKWISE,
  TP_XNN_DT_DYNAMIC
};

#define TP_XNN_FLAG_EXTERNAL_INPUT 1u
#define TP_XNN_FLAG_EXTERNAL_OUTPUT 2u
/* Node flags (the `flags` argument of the define calls), XNNPACK's values; the ones ExecuTorch's
   serializer writes are marked (ET).
   TP_XNN_FLAG_TRANSPOSE_WEIGHTS (ET)  fully_connected: the filter is [input ch, output ch]
                                       instead of [output ch, input ch] (a torch Linear weight
                                       transposed, e.g. GPT-2's Conv1D)
   TP_XNN_FLAG_TRANSPOSE_B             batch_matrix_multiply: input2 is [.., N, K], not [.., K, N]
   TP_XNN_FLAG_TENSORFLOW_SAME_PADDING convolutions, pooling: TensorFlow SAME padding (the
                                       explicit paddings must be 0)
   TP_XNN_FLAG_ALIGN_CORNERS (ET)      static_resize_bilinear_2d: align_corners=True
   TP_XNN_FLAG_KEEP_DIMS (ET)          global_average_pooling_2d: the output keeps the pooled
                                       dims ([N, 1, 1, C]); ExecuTorch always sets it and its
                                       runtime needs it for a 4-D output */
#define TP_XNN_FLAG_TRANSPOSE_WEIGHTS 0x1u
#define TP_XNN_FLAG_TRANSPOSE_B 0x1u
#define TP_XNN_FLAG_TENSORFLOW_SAME_PADDING 0x4u
#define TP_XNN_FLAG_ALIGN_CORNERS 0x8u
#define TP_XNN_FLAG_KEEP_DIMS 0x40u
#define TP_XNN_INVALID_ID UINT32_MAX
#define TP_XNN_MAX_DIMS 6        /* XNN_MAX_TENSOR_DIMS */
#define TP_XNN_MAX_EXTERNS 4096  /* the upstream loader refuses more */
#define TP_XNN_EXTRA_BYTES 16    /* XNN_EXTRA_BYTES: readable bytes XNNPACK needs past an input */

/* ---- the XN01 format, described once ------------------------------------------------------
   Every table of the XNNPACK delegate's schema.fbs that this library writes or reads, in one
   place: X-macro lists of X(table, field, id, type), id = the field's vtable slot. The writer,
   the define-time checks, tp_xnn_read_blob, the runtime loader, tpdump and the test sweeps all
   take field ids, names and types from here (TP_XNN_FIELD(table, field) is the id as a
   constant). Defaults: the schema declares none, so every scalar defaults to 0 (the writer
   omits a field equal to 0, readers take an absent field as 0); vectors, strings and tables
   default to absent. A union field at id n has its u8 type tag at id n - 1.
   Types: U32 uint, I16 short, I32 int, U64 uint64, F32 float, STR string, VEC [uint],
   VEC_F32 [float], TABLE a table, TABLES [table], UNION a union, DEPR a deprecated slot (never
   written); in node tables the value ids, each with its role: ID = an input (the id_out of
   some value the node reads), OPT_ID = an input or TP_XNN_INVALID_ID ("none": bias_id),
   OUT_ID = an output (a value the node writes), UNUSED_ID = a slot this node kind leaves
   unused, written as TP_XNN_INVALID_ID (a concatenate's inputs above its count).
   Shared tables: a budget. tp_xnn_read_blob is the one walk of the flatbuffer (tp_xnn_check_blob,
   the loader and tpdump work on its result), under its table budget
   (max(1M, size / 2) tables per walk) and its visit budget (max(1M, 8 x size) tables opened,
   vector elements and strings read, for the whole reader): a blob whose offsets make a walk
   revisit one table or vector N times is refused past them with the reader's sentence, in
   time linear in the blob. The loader's id and copy tables hash under a key of their own. */
#define TP_XNN_FIELDS_XNNGraph(X)                                                           \
  X(XNNGraph, version, 0, STR) X(XNNGraph, xnodes, 1, TABLES) X(XNNGraph, xvalues, 2, TABLES) \
  X(XNNGraph, num_externs, 3, U32) X(XNNGraph, input_ids, 4, VEC)                            \
  X(XNNGraph, output_ids, 5, VEC) X(XNNGraph, constant_buffer, 6, DEPR)                      \
  X(XNNGraph, mem_buffer_sizes, 7, DEPR) X(XNNGraph, constant_data, 8, TABLES)
#define TP_XNN_FIELDS_XNode(X)                                                              \
  X(XNode, xnode_union, 1, UNION) X(XNode, debug_handle, 2, U32)                            \
  X(XNode, output_min_max, 3, TABLE)
#define TP_XNN_FIELDS_OutputMinMax(X) \
  X(OutputMinMax, output_min, 0, F32) X(OutputMinMax, output_max, 1, F32)
#define TP_XNN_FIELDS_XValue(X) X(XValue, xvalue_union, 1, UNION)
/* dq_datatype (7) is in ExecuTorch's runtime schema only; never written, refused when set. */
#define TP_XNN_FIELDS_XNNTensorValue(X)                                                      \
  X(XNNTensorValue, datatype, 0, I16) X(XNNTensorValue, num_dims, 1, U32)                    \
  X(XNNTensorValue, dims, 2, VEC) X(XNNTensorValue, constant_buffer_idx, 3, U32)             \
  X(XNNTensorValue, external_id, 4, U32) X(XNNTensorValue, flags, 5, U32)                    \
  X(XNNTensorValue, id_out, 6, U32) X(XNNTensorValue, dq_datatype, 7, I16)
#define TP_XNN_FIELDS_XNNQuantizedTensorValue(X)           \
  X(XNNQuantizedTensorValue, tensor_value, 0, TABLE)       \
  X(XNNQuantizedTensorValue, quant_params, 2, UNION)
#define TP_XNN_FIELDS_PerChannelQuant(X)                                                    \
  X(PerChannelQuant, scale, 0, VEC_F32) X(PerChannelQuant, channel_dim, 1, I32)              \
  X(PerChannelQuant, scale_buffer_idx, 2, U32) X(PerChannelQuant, num_scales, 3, U32)
#define TP_XNN_FIELDS_PerTensorQuant(X) \
  X(PerTensorQuant, scale, 0, F32) X(PerTensorQuant, zero_point, 1, I32)
#define TP_XNN_FIELDS_PerTokenDynamicQuant(X) X(PerTokenDynamicQuant, num_nonbatch_dims, 0, I32)
#define TP_XNN_FIELDS_PerChannelGroupQuant(X)                                                \
  X(PerChannelGroupQuant, scale, 0, VEC_F32) X(PerChannelGroupQuant, channel_dim, 1, I32)     \
  X(PerChannelGroupQuant, group_size, 2, I32) X(PerChannelGroupQuant, scale_bf16, 3, DEPR)    \
  X(PerChannelGroupQuant, scale_buffer_idx, 4, U32) X(PerChannelGroupQuant, num_scales, 5, U32)
#define TP_XNN_FIELDS_Buffer(X) X(Buffer, storage, 0, DEPR)
#define TP_XNN_FIELDS_ConstantDataOffset(X)                                                 \
  X(ConstantDataOffset, offset, 0, U64) X(ConstantDataOffset, size, 1, U64)                  \
  X(ConstantDataOffset, named_key, 2, STR)

/* The node tables (XNodeUnion members share them). */
#define TP_XNN_FIELDS__XNNNode2x1(X)                                                        \
  X(_XNNNode2x1, input1_id, 0, ID) X(_XNNNode2x1, input2_id, 1, ID)                          \
  X(_XNNNode2x1, output_id, 2, OUT_ID) X(_XNNNode2x1, flags, 3, U32)
#define TP_XNN_FIELDS__XNNNode1x1(X)                                                        \
  X(_XNNNode1x1, input_id, 0, ID) X(_XNNNode1x1, output_id, 1, OUT_ID)                       \
  X(_XNNNode1x1, flags, 2, U32)
#define TP_XNN_FIELDS_XNNFullyConnected(X)                                                  \
  X(XNNFullyConnected, input1_id, 0, ID) X(XNNFullyConnected, filter_id, 1, ID)              \
  X(XNNFullyConnected, bias_id, 2, OPT_ID) X(XNNFullyConnected, output_id, 3, OUT_ID)        \
  X(XNNFullyConnected, flags, 4, U32)
#define TP_XNN_FIELDS__XNNNodeConv(X)                                                       \
  X(_XNNNodeConv, padding_top, 0, U32) X(_XNNNodeConv, padding_right, 1, U32)                \
  X(_XNNNodeConv, padding_bottom, 2, U32) X(_XNNNodeConv, padding_left, 3, U32)              \
  X(_XNNNodeConv, kernel_height, 4, U32) X(_XNNNodeConv, kernel_width, 5, U32)               \
  X(_XNNNodeConv, subsampling_height, 6, U32) X(_XNNNodeConv, subsampling_width, 7, U32)     \
  X(_XNNNodeConv, dilation_height, 8, U32) X(_XNNNodeConv, dilation_width, 9, U32)           \
  X(_XNNNodeConv, group_input_channels, 10, U32)                                             \
  X(_XNNNodeConv, group_output_channels, 11, U32) X(_XNNNodeConv, groups, 12, U32)           \
  X(_XNNNodeConv, adjustment_height, 13, U32) X(_XNNNodeConv, adjustment_width, 14, U32)     \
  X(_XNNNodeConv, input1_id, 15, ID) X(_XNNNodeConv, filter_id, 16, ID)                      \
  X(_XNNNodeConv, bias_id, 17, OPT_ID) X(_XNNNodeConv, output_id, 18, OUT_ID)                \
  X(_XNNNodeConv, flags, 19, U32)
#define TP_XNN_FIELDS__XNNPooling2D(X)                                                      \
  X(_XNNPooling2D, padding_top, 0, U32) X(_XNNPooling2D, padding_right, 1, U32)              \
  X(_XNNPooling2D, padding_bottom, 2, U32) X(_XNNPooling2D, padding_left, 3, U32)            \
  X(_XNNPooling2D, pooling_height, 4, U32) X(_XNNPooling2D, pooling_width, 5, U32)           \
  X(_XNNPooling2D, stride_height, 6, U32) X(_XNNPooling2D, stride_width, 7, U32)             \
  X(_XNNPooling2D, dilation_height, 8, U32) X(_XNNPooling2D, dilation_width, 9, U32)         \
  X(_XNNPooling2D, input_id, 10, ID) X(_XNNPooling2D, output_id, 11, OUT_ID)                 \
  X(_XNNPooling2D, flags, 12, U32)
#define TP_XNN_FIELDS_XNNArgMaxPooling2d(X)                                                 \
  X(XNNArgMaxPooling2d, padding_top, 0, U32) X(XNNArgMaxPooling2d, padding_right, 1, U32)    \
  X(XNNArgMaxPooling2d, padding_bottom, 2, U32) X(XNNArgMaxPooling2d, padding_left, 3, U32)  \
  X(XNNArgMaxPooling2d, pooling_height, 4, U32) X(XNNArgMaxPooling2d, pooling_width, 5, U32) \
  X(XNNArgMaxPooling2d, input_id, 6, ID) X(XNNArgMaxPooling2d, output_value_id, 7, OUT_ID)   \
  X(XNNArgMaxPooling2d, output_index_id, 8, OUT_ID) X(XNNArgMaxPooling2d, flags, 9, U32)
/* _XNNCat: input k of concatenate N is ID for k <= N, UNUSED_ID (written as none) above. */
#define TP__XNN_CAT_FIELDS(X, t3, t4, t5)                                                   \
  X(_XNNCat, axis, 0, U32) X(_XNNCat, input1_id, 1, ID) X(_XNNCat, input2_id, 2, ID)         \
  X(_XNNCat, input3_id, 3, t3) X(_XNNCat, input4_id, 4, t4) X(_XNNCat, output_id, 5, OUT_ID) \
  X(_XNNCat, flags, 6, U32) X(_XNNCat, input5_id, 7, t5)
#define TP_XNN_FIELDS__XNNCat(X) TP__XNN_CAT_FIELDS(X, ID, ID, ID)
#define TP_XNN_FIELDS__XNNCat2(X) TP__XNN_CAT_FIELDS(X, UNUSED_ID, UNUSED_ID, UNUSED_ID)
#define TP_XNN_FIELDS__XNNCat3(X) TP__XNN_CAT_FIELDS(X, ID, UNUSED_ID, UNUSED_ID)
#define TP_XNN_FIELDS__XNNCat4(X) TP__XNN_CAT_FIELDS(X, ID, ID, UNUSED_ID)
#define TP_XNN_FIELDS__XNNCat5(X) TP__XNN_CAT_FIELDS(X, ID, ID, ID)
#define TP_XNN_FIELDS_XNNStaticTranspose(X)                                                 \
  X(XNNStaticTranspose, num_dims, 0, U32) X(XNNStaticTranspose, perm, 1, VEC)                \
  X(XNNStaticTranspose, input_id, 2, ID) X(XNNStaticTranspose, output_id, 3, OUT_ID)         \
  X(XNNStaticTranspose, flags, 4, U32)
#define TP_XNN_FIELDS_XNNStaticResizeBilinear2D(X)                                           \
  X(XNNStaticResizeBilinear2D, new_height, 0, U32)                                           \
  X(XNNStaticResizeBilinear2D, new_width, 1, U32)                                            \
  X(XNNStaticResizeBilinear2D, input_id, 2, ID)                                             \
  X(XNNStaticResizeBilinear2D, output_id, 3, OUT_ID)                                        \
  X(XNNStaticResizeBilinear2D, flags, 4, U32)
#define TP_XNN_FIELDS_XNNStaticConstantPad(X)                                               \
  X(XNNStaticConstantPad, pre_paddings, 0, VEC) X(XNNStaticConstantPad, post_paddings, 1, VEC) \
  X(XNNStaticConstantPad, padding_value, 2, F32) X(XNNStaticConstantPad, input_id, 3, ID)    \
  X(XNNStaticConstantPad, output_id, 4, OUT_ID) X(XNNStaticConstantPad, flags, 5, U32)
#define TP_XNN_FIELDS_XNNStaticReshape(X)                                                   \
  X(XNNStaticReshape, num_dims, 0, U32) X(XNNStaticReshape, new_shape, 1, VEC)               \
  X(XNNStaticReshape, input_id, 2, ID) X(XNNStaticReshape, output_id, 3, OUT_ID)                 \
  X(XNNStaticReshape, flags, 4, U32)
#define TP_XNN_FIELDS_XNNStaticSlice(X)                                                     \
  X(XNNStaticSlice, num_dims, 0, U32) X(XNNStaticSlice, offsets, 1, VEC)                     \
  X(XNNStaticSlice, sizes, 2, VEC) X(XNNStaticSlice, input_id, 3, ID)                        \
  X(XNNStaticSlice, output_id, 4, OUT_ID) X(XNNStaticSlice, flags, 5, U32)
#define TP_XNN_FIELDS_XNNLeakyReLU(X)                                                       \
  X(XNNLeakyReLU, negative_slope, 0, F32) X(XNNLeakyReLU, input_id, 1, ID)                   \
  X(XNNLeakyReLU, output_id, 2, OUT_ID) X(XNNLeakyReLU, flags, 3, U32)
#define TP_XNN_FIELDS_XNNELU(X)                                                             \
  X(XNNELU, alpha, 0, F32) X(XNNELU, input_id, 1, ID) X(XNNELU, output_id, 2, OUT_ID)            \
  X(XNNELU, flags, 3, U32)
#define TP_XNN_FIELDS_XNNScaledDotProductAttention(X)                                        \
  X(XNNScaledDotProductAttention, query_id, 0, ID) X(XNNScaledDotProductAttention, key_id, 1, ID) \
  X(XNNScaledDotProductAttention, value_id, 2, ID)                                           \
  X(XNNScaledDotProductAttention, scale_id, 3, ID)                                           \
  X(XNNScaledDotProductAttention, mask_id, 4, ID)                                            \
  X(XNNScaledDotProductAttention, output_id, 5, OUT_ID)                                     \
  X(XNNScaledDotProductAttention, flags, 6, U32)

/* Every table above, for iteration: X(table). */
#define TP_XNN_TABLE_LIST(X)                                                                \
  X(XNNGraph) X(XNode) X(OutputMinMax) X(XValue) X(XNNTensorValue) X(XNNQuantizedTensorValue) \
  X(PerChannelQuant) X(PerTensorQuant) X(PerTokenDynamicQuant) X(PerChannelGroupQuant)       \
  X(Buffer) X(ConstantDataOffset) X(_XNNNode2x1) X(_XNNNode1x1) X(XNNFullyConnected)          \
  X(_XNNNodeConv) X(_XNNPooling2D) X(XNNArgMaxPooling2d) X(_XNNCat) X(XNNStaticTranspose)      \
  X(XNNStaticResizeBilinear2D) X(XNNStaticConstantPad) X(XNNStaticReshape) X(XNNStaticSlice)  \
  X(XNNLeakyReLU) X(XNNELU) X(XNNScaledDotProductAttention)

/* Field ids as constants: TP_XNN_FIELD(XNNTensorValue, dims) == 2. */
#define TP_XNN_FIELD(table, field) TP_XNN_F_##table##_##field
#define TP__XNN_FIELD_ENUM(table, field, id, type) TP_XNN_F_##table##_##field = id,
#define TP__XNN_TABLE_ENUM(table) \
  enum { TP_XNN_FIELDS_##table(TP__XNN_FIELD_ENUM) TP__XNN_F_END_##table };
TP_XNN_TABLE_LIST(TP__XNN_TABLE_ENUM)
#undef TP__XNN_TABLE_ENUM

/* Unions: X(tag, NAME, member table). XValueUnion and XNNQuantParams. */
#define TP_XNN_VALUE_UNION(X) X(1, TENSOR, XNNTensorValue) X(2, QUANTIZED, XNNQuantizedTensorValue)
#define TP_XNN_QUANT_UNION(X)                                                               \
  X(1, PER_CHANNEL, PerChannelQuant) X(2, PER_TENSOR, PerTensorQuant)                        \
  X(3, PER_TOKEN_DYNAMIC, PerTokenDynamicQuant) X(4, PER_CHANNEL_GROUP, PerChannelGroupQuant)
#define TP__XNN_UNION_ENUM(tag, NAME, table) TP_XNN_VALUE_##NAME = tag,
enum { TP_XNN_VALUE_UNION(TP__XNN_UNION_ENUM) TP__XNN_VALUE_END };
#undef TP__XNN_UNION_ENUM
#define TP__XNN_UNION_ENUM(tag, NAME, table) TP_XNN_QUANT_##NAME = tag,
enum { TP_XNN_QUANT_UNION(TP__XNN_UNION_ENUM) TP__XNN_QUANT_END };
#undef TP__XNN_UNION_ENUM

/* Node kinds: the XNodeUnion members in tag order.
   X(tag, NAME, define name, union member, table, field list, shape, rt) - the field list is the
   table's, except for the concatenates (which inputs are used). shape: the define call's
   form, from which the simple kinds' define bodies, loader cases and tpdump's printing derive:
   1x1 (input, output, flags), 1x1m (output_min, output_max first), 1x1f (a float parameter,
   input, output, flags: the table's field order), 2x1 (input1, input2, output, flags), 2x1m,
   Nx1 (axis and N inputs: the concatenates, unused inputs written as none), own (a call of its
   own). rt 1: the loader (TENSORPACK_XNNPACK_RUNTIME) maps the kind onto the XNNPACK call of
   the same name (every XNNPACK since 2022 has it); rt 0: the loader refuses it. Adding a node
   kind: one entry here (plus its table above if it has a new one, and for shape own its define
   call); see tests/README.md. */
#define TP_XNN_NODE_LIST(X)                                                                      \
  X(1, ADD, add2, XNNAdd, _XNNNode2x1, _XNNNode2x1, 2x1m, 1)                                     \
  X(2, FULLY_CONNECTED, fully_connected, XNNFullyConnected, XNNFullyConnected,                   \
    XNNFullyConnected, own, 1)                                                                   \
  X(3, SOFTMAX, softmax, XNNSoftmax, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                           \
  X(4, SIGMOID, sigmoid, XNNSigmoid, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                           \
  X(5, STATIC_TRANSPOSE, static_transpose, XNNStaticTranspose, XNNStaticTranspose,               \
    XNNStaticTranspose, own, 0)                                                                  \
  X(6, CLAMP, clamp, XNNClamp, _XNNNode1x1, _XNNNode1x1, 1x1m, 1)                                \
  X(7, CONV2D, convolution_2d, XNNConv2d, _XNNNodeConv, _XNNNodeConv, own, 1)                    \
  X(8, DIVIDE, divide, XNNDiv, _XNNNode2x1, _XNNNode2x1, 2x1m, 1)                                \
  X(9, STATIC_RESIZE_BILINEAR_2D, static_resize_bilinear_2d, XNNStaticResizeBilinear2D,          \
    XNNStaticResizeBilinear2D, XNNStaticResizeBilinear2D, own, 1)                                \
  X(10, STATIC_CONSTANT_PAD, static_constant_pad, XNNStaticConstantPad, XNNStaticConstantPad,    \
    XNNStaticConstantPad, own, 1)                                                                \
  X(11, AVG_POOLING_2D, average_pooling_2d, XNNAvgPooling2d, _XNNPooling2D, _XNNPooling2D, own,  \
    1)                                                                                           \
  X(12, MINIMUM, minimum2, XNNMinimum, _XNNNode2x1, _XNNNode2x1, 2x1, 1)                         \
  X(13, DEPTHWISE_CONV2D, depthwise_convolution_2d, XNNDepthwiseConv2d, _XNNNodeConv,            \
    _XNNNodeConv, own, 1)                                                                        \
  X(14, MAX_POOLING_2D, max_pooling_2d, XNNMaxPooling2d, _XNNPooling2D, _XNNPooling2D, own, 1)   \
  X(15, MULTIPLY, multiply2, XNNMultiply, _XNNNode2x1, _XNNNode2x1, 2x1m, 1)                     \
  X(16, SUBTRACT, subtract, XNNSubtract, _XNNNode2x1, _XNNNode2x1, 2x1m, 1)                      \
  X(17, FLOOR, floor, XNNFloor, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                                \
  X(18, CONVERT, convert, XNNConvert, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                          \
  X(19, GLOBAL_AVG_POOLING_2D, global_average_pooling_2d, XNNGlobalAvgPooling2d, _XNNNode1x1,    \
    _XNNNode1x1, 1x1m, 1)                                                                        \
  X(20, STATIC_RESHAPE, static_reshape, XNNStaticReshape, XNNStaticReshape, XNNStaticReshape,    \
    own, 1)                                                                                      \
  X(21, ARGMAX_POOLING_2D, argmax_pooling_2d, XNNArgMaxPooling2d, XNNArgMaxPooling2d,            \
    XNNArgMaxPooling2d, own, 1)                                                                  \
  X(22, SQUARE_ROOT, square_root, XNNSquareRoot, _XNNNode1x1, _XNNNode1x1, 1x1, 1)               \
  X(23, CEILING, ceiling, XNNCeiling, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                          \
  X(24, HARDSWISH, hardswish, XNNHardswish, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                    \
  X(25, LEAKY_RELU, leaky_relu, XNNLeakyReLU, XNNLeakyReLU, XNNLeakyReLU, 1x1f, 1)               \
  X(26, MAXIMUM, maximum2, XNNMaximum, _XNNNode2x1, _XNNNode2x1, 2x1, 1)                         \
  X(27, NEGATE, negate, XNNNegate, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                             \
  X(28, SQUARE, square, XNNSquare, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                             \
  X(29, ELU, elu, XNNELU, XNNELU, XNNELU, 1x1f, 1)                                               \
  X(30, ABS, abs, XNNAbs, _XNNNode1x1, _XNNNode1x1, 1x1, 1)                                      \
  X(31, PRELU, prelu, XNNPReLU, _XNNNode2x1, _XNNNode2x1, 2x1, 1)                                \
  X(32, CONCATENATE2, concatenate2, XNNConcatenate2, _XNNCat, _XNNCat2, Nx1, 0)                  \
  X(33, CONCATENATE3, concatenate3, XNNConcatenate3, _XNNCat, _XNNCat3, Nx1, 0)                  \
  X(34, CONCATENATE4, concatenate4, XNNConcatenate4, _XNNCat, _XNNCat4, Nx1, 0)                  \
  X(35, STATIC_SLICE, static_slice, XNNStaticSlice, XNNStaticSlice, XNNStaticSlice, own, 0)      \
  X(36, SCALED_DOT_PRODUCT_ATTENTION, scaled_dot_product_attention,                              \
    XNNScaledDotProductAttention, XNNScaledDotProductAttention, XNNScaledDotProductAttention,    \
    own, 0)                                                                                      \
  X(37, BATCH_MATRIX_MULTIPLY, batch_matrix_multiply, XNNBatchMatrixMultiply, _XNNNode2x1,       \
    _XNNNode2x1, 2x1, 0)                                                                         \
  X(38, CONCATENATE5, concatenate5, XNNConcatenate5, _XNNCat, _XNNCat5, Nx1, 0)                  \
  X(39, DECONV2D, deconvolution_2d, XNNConvTranspose2d, _XNNNodeConv, _XNNNodeConv, own, 1)      \
  X(40, RECIPROCAL_SQUARE_ROOT, reciprocal_square_root, XNNReciprocalSquareRoot, _XNNNode1x1,    \
    _XNNNode1x1, 1x1, 0)                                                                         \
  X(41, LOG, log, XNNLog, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                      \
  X(42, GELU, gelu, XNNGelu, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                   \
  X(43, TANH, tanh, XNNTanh, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                   \
  X(44, EXP, exp, XNNExp, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                      \
  X(45, SIN, sin, XNNSin, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                      \
  X(46, COPY, copy, XNNCopy, _XNNNode1x1, _XNNNode1x1, 1x1, 0)                                   \
  X(47, COS, cos, XNNCos, _XNNNode1x1, _XNNNode1x1, 1x1, 0)

#define TP__XNN_NODE_ENUM(tag, NAME, name, member, table, fields, shape, rt) \
  TP_XNN_NODE_##NAME = tag,
#define TP__XNN_NODE_ONE(tag, NAME, name, member, table, fields, shape, rt) +1
typedef enum tp_xnn_node_kind {
  TP_XNN_NODE_NONE = 0,
  TP_XNN_NODE_LIST(TP__XNN_NODE_ENUM)
  TP_XNN_NODE_KINDS = 0 TP_XNN_NODE_LIST(TP__XNN_NODE_ONE), /* how many kinds (tags 1..KINDS) */
  TP_XNN_NODE_COUNT = TP_XNN_NODE_KINDS + 1                  /* one past the last tag */
} tp_xnn_node_kind;
#undef TP__XNN_NODE_ENUM
#undef TP__XNN_NODE_ONE

/* What ExecuTorch's runtime has an operator for, per node kind, as data:
   X(NAME, input, second, bias, output), each a mask of TP_XNN_SM(datatype) bits, TP_XNN_SM_NONE
   meaning "no value" (a kind without that field, or bias_id none). The slots are fields found
   by name: input = input_id / input1_id; second = input2_id / filter_id (PReLU: the slope;
   argmax pooling: output_index_id); bias = bias_id; output = output_id / output_value_id. A
   node passes when one row of its kind holds the datatypes of all four; with
   tp_xnn_options.target = 0 a node that matches no row is TP_ERR_UNSUPPORTED (the sentence
   names the node, its datatypes and the rows for its input datatype).
   Read from the XNNPACK ExecuTorch cff6f4dd32 pins (92a7ad50): each xnn_define_*'s datatype
   checks and validate_datatypes_... in src/subgraph/, the create functions' switches, the
   operator configs of src/operators/ and their reference fallbacks (src/reference: unary and
   binary ops in fp32, fp16, bf16, qint8, quint8, and int32 for abs / clamp / negate / square and
   the arithmetic binaries); copy-like kinds (reshape, transpose, slice, copy, concatenate) take
   any datatype of 8, 16 or 32 bits (their operators are x8 / x16 / x32), none of 4; argmax
   pooling writes 32-bit indices that define does not check (int32, or fp32 as the bits); and
   ExecuTorch's XNNCompiler.cpp, which gives a bf16 x bf16 fully-connected with a bf16 output an
   fp32 intermediate and a convert. Scaled dot-product attention has no row: ExecuTorch's
   compiler refuses the node. */
#define TP_XNN_SM(NAME) (1u << TP_XNN_##NAME)
#define TP_XNN_SM_NONE 1u /* no value: bit 0, the invalid datatype's */
#define TP__XNN_SM_NO TP_XNN_SM_NONE
#define TP__XNN_SUP_SAME(X, K, D) X(K, TP_XNN_SM(D), TP__XNN_SM_NO, TP__XNN_SM_NO, TP_XNN_SM(D))
#define TP__XNN_SUP_BIN(X, K, D) X(K, TP_XNN_SM(D), TP_XNN_SM(D), TP__XNN_SM_NO, TP_XNN_SM(D))
/* bf16 in, fp32 out and back: the unary kinds the runtime lowers to fp32 with converts
   (xnn_subgraph_fallback_from_bf16_to_fp32, src/subgraph/rewrites/cvt_to_fp32.cc; measured) */
#define TP__XNN_SUP_BF16MIX(X, K)                                                           \
  X(K, TP_XNN_SM(BF16), TP__XNN_SM_NO, TP__XNN_SM_NO, TP_XNN_SM(FP32))                       \
  X(K, TP_XNN_SM(FP32), TP__XNN_SM_NO, TP__XNN_SM_NO, TP_XNN_SM(BF16))
#define TP__XNN_SUP_UNARY(X, K) TP__XNN_SUP_REAL(TP__XNN_SUP_SAME, X, K) TP__XNN_SUP_BF16MIX(X, K)
#define TP__XNN_SUP_UNARY_INT(X, K) TP__XNN_SUP_ALL(TP__XNN_SUP_SAME, X, K) TP__XNN_SUP_BF16MIX(X, K)
#define TP__XNN_SUP_FLOAT(S, X, K) S(X, K, FP32) S(X, K, FP16)
#define TP__XNN_SUP_REAL(S, X, K) \
  S(X, K, FP32) S(X, K, FP16) S(X, K, BF16) S(X, K, QINT8) S(X, K, QUINT8)
#define TP__XNN_SUP_ALL(S, X, K) TP__XNN_SUP_REAL(S, X, K) S(X, K, INT32)
#define TP__XNN_SUP_POOL(S, X, K) S(X, K, FP32) S(X, K, FP16) S(X, K, QINT8) S(X, K, QUINT8)
#define TP__XNN_SUP_BYTES(S, X, K)                                                           \
  TP__XNN_SUP_ALL(S, X, K) S(X, K, QINT32) S(X, K, QCINT8) S(X, K, QCINT32) S(X, K, QDINT8)  \
  S(X, K, QPINT8) S(X, K, PFP32)
#define TP__XNN_SUP_COPY(X, K) TP__XNN_SUP_BYTES(TP__XNN_SUP_SAME, X, K)
/* concatenates: input2 is the second slot, of the same datatype (inputs 3..5 too: its rule) */
#define TP__XNN_SUP_CAT(X, K) TP__XNN_SUP_BYTES(TP__XNN_SUP_BIN, X, K)
/* convert: fp32, fp16, bf16, qint8, quint8, int32 into each other (src/reference), and the
   dynamic / channelwise converts of src/subgraph/unary.c */
#define TP__XNN_SM_CVT                                                                     \
  (TP_XNN_SM(FP32) | TP_XNN_SM(FP16) | TP_XNN_SM(BF16) | TP_XNN_SM(QINT8) |                \
   TP_XNN_SM(QUINT8) | TP_XNN_SM(INT32))
#define TP__XNN_SM_B(D) (TP__XNN_SM_NO | TP_XNN_SM(D)) /* bias none or D */
#define TP__XNN_SUP_FC(X, K)                                                                 \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32))                 \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP16))                 \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP16), TP__XNN_SM_B(FP16) | TP_XNN_SM(FP32), TP_XNN_SM(FP16)) \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP16), TP__XNN_SM_B(FP16) | TP_XNN_SM(FP32), TP_XNN_SM(FP32)) \
  X(K, TP_XNN_SM(BF16), TP_XNN_SM(BF16), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32) | TP_XNN_SM(BF16)) \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(QCINT8) | TP_XNN_SM(QCINT4), TP__XNN_SM_B(FP32),          \
    TP_XNN_SM(FP32))                                                                         \
  X(K, TP_XNN_SM(QDINT8), TP_XNN_SM(QCINT8) | TP_XNN_SM(QCINT4), TP__XNN_SM_B(FP32),        \
    TP_XNN_SM(FP32) | TP_XNN_SM(FP16))                                                       \
  X(K, TP_XNN_SM(QDINT8), TP_XNN_SM(QBINT4), TP__XNN_SM_B(FP32),                             \
    TP_XNN_SM(FP32) | TP_XNN_SM(FP16) | TP_XNN_SM(BF16))                                     \
  X(K, TP_XNN_SM(QPINT8), TP_XNN_SM(QCINT8) | TP_XNN_SM(QCINT4) | TP_XNN_SM(QBINT4),        \
    TP__XNN_SM_B(FP32), TP_XNN_SM(FP32))                                                     \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QCINT8) | TP_XNN_SM(QCINT4),                             \
    TP__XNN_SM_B(QCINT32) | TP_XNN_SM(QINT32), TP_XNN_SM(QINT8))                             \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QINT8))          \
  X(K, TP_XNN_SM(QUINT8), TP_XNN_SM(QUINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QUINT8))
/* convolution_2d and depthwise_convolution_2d (validate_datatypes_* of each; depthwise has no
   qdint8 row) */
#define TP__XNN_SUP_CONV_COMMON(X, K)                                                        \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32))                 \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP16))                 \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP16), TP__XNN_SM_B(FP16) | TP_XNN_SM(FP32), TP_XNN_SM(FP32)) \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP16), TP__XNN_SM_B(FP16) | TP_XNN_SM(FP32), TP_XNN_SM(FP16)) \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QINT8))          \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QCINT8), TP__XNN_SM_B(QCINT32), TP_XNN_SM(QINT8))        \
  X(K, TP_XNN_SM(QUINT8), TP_XNN_SM(QUINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QUINT8))
#define TP__XNN_SUP_CONV(X, K)                                                               \
  TP__XNN_SUP_CONV_COMMON(X, K)                                                              \
  X(K, TP_XNN_SM(QDINT8), TP_XNN_SM(QCINT8), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32) | TP_XNN_SM(FP16))
/* deconvolution_2d: an fp16 filter only with fp32 input and output */
#define TP__XNN_SUP_DECONV(X, K)                                                             \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32))                 \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP32), TP__XNN_SM_B(FP32), TP_XNN_SM(FP16))                 \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP16), TP__XNN_SM_B(FP16) | TP_XNN_SM(FP32), TP_XNN_SM(FP32)) \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QINT8))          \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QCINT8), TP__XNN_SM_B(QCINT32), TP_XNN_SM(QINT8))        \
  X(K, TP_XNN_SM(QUINT8), TP_XNN_SM(QUINT8), TP__XNN_SM_B(QINT32), TP_XNN_SM(QUINT8))       \
  X(K, TP_XNN_SM(QDINT8), TP_XNN_SM(QCINT8), TP__XNN_SM_B(FP32), TP_XNN_SM(FP32))
#define TP__XNN_SUP_BMM(X, K)                                                                \
  X(K, TP_XNN_SM(FP32), TP_XNN_SM(FP32), TP__XNN_SM_NO, TP_XNN_SM(FP32))                      \
  X(K, TP_XNN_SM(FP16), TP_XNN_SM(FP16), TP__XNN_SM_NO, TP_XNN_SM(FP16))                      \
  X(K, TP_XNN_SM(BF16), TP_XNN_SM(BF16), TP__XNN_SM_NO, TP_XNN_SM(FP32))                      \
  X(K, TP_XNN_SM(FP32) | TP_XNN_SM(QDINT8), TP_XNN_SM(QCINT8), TP__XNN_SM_NO, TP_XNN_SM(FP32)) \
  X(K, TP_XNN_SM(QINT8), TP_XNN_SM(QINT8), TP__XNN_SM_NO, TP_XNN_SM(QINT8))
#define TP_XNN_NODE_SUPPORT(X)                                                               \
  TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, ADD) TP__XNN_SUP_FC(X, FULLY_CONNECTED)                \
  TP__XNN_SUP_FLOAT(TP__XNN_SUP_SAME, X, SOFTMAX) TP__XNN_SUP_UNARY(X, SIGMOID)              \
  TP__XNN_SUP_COPY(X, STATIC_TRANSPOSE) TP__XNN_SUP_UNARY_INT(X, CLAMP)                      \
  TP__XNN_SUP_CONV(X, CONV2D) TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, DIVIDE)                    \
  TP__XNN_SUP_POOL(TP__XNN_SUP_SAME, X, STATIC_RESIZE_BILINEAR_2D)                           \
  TP__XNN_SUP_REAL(TP__XNN_SUP_SAME, X, STATIC_CONSTANT_PAD)                                 \
  TP__XNN_SUP_FLOAT(TP__XNN_SUP_SAME, X, AVG_POOLING_2D)                                     \
  TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, MINIMUM) TP__XNN_SUP_CONV_COMMON(X, DEPTHWISE_CONV2D)  \
  TP__XNN_SUP_POOL(TP__XNN_SUP_SAME, X, MAX_POOLING_2D)                                      \
  TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, MULTIPLY) TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, SUBTRACT) \
  TP__XNN_SUP_UNARY(X, FLOOR)                                                                \
  X(CONVERT, TP_XNN_SM(FP32), TP__XNN_SM_NO, TP__XNN_SM_NO,                                  \
    TP__XNN_SM_CVT | TP_XNN_SM(QDINT8) | TP_XNN_SM(QPINT8))                                  \
  X(CONVERT, TP_XNN_SM(FP16), TP__XNN_SM_NO, TP__XNN_SM_NO, TP__XNN_SM_CVT | TP_XNN_SM(QDINT8)) \
  X(CONVERT, TP_XNN_SM(QINT8), TP__XNN_SM_NO, TP__XNN_SM_NO, TP__XNN_SM_CVT | TP_XNN_SM(QCINT8)) \
  X(CONVERT, TP_XNN_SM(BF16) | TP_XNN_SM(QUINT8) | TP_XNN_SM(INT32), TP__XNN_SM_NO,          \
    TP__XNN_SM_NO, TP__XNN_SM_CVT)                                                           \
  TP__XNN_SUP_POOL(TP__XNN_SUP_SAME, X, GLOBAL_AVG_POOLING_2D)                               \
  TP__XNN_SUP_COPY(X, STATIC_RESHAPE)                                                        \
  X(ARGMAX_POOLING_2D, TP_XNN_SM(FP32), TP_XNN_SM(INT32) | TP_XNN_SM(FP32), TP__XNN_SM_NO,   \
    TP_XNN_SM(FP32))                                                                         \
  TP__XNN_SUP_UNARY(X, SQUARE_ROOT)                                                          \
  TP__XNN_SUP_UNARY(X, CEILING) TP__XNN_SUP_UNARY(X, HARDSWISH)                              \
  TP__XNN_SUP_UNARY(X, LEAKY_RELU) TP__XNN_SUP_ALL(TP__XNN_SUP_BIN, X, MAXIMUM)              \
  TP__XNN_SUP_UNARY_INT(X, NEGATE) TP__XNN_SUP_UNARY_INT(X, SQUARE)                          \
  TP__XNN_SUP_UNARY(X, ELU) TP__XNN_SUP_UNARY_INT(X, ABS)                                    \
  TP__XNN_SUP_REAL(TP__XNN_SUP_BIN, X, PRELU) TP__XNN_SUP_CAT(X, CONCATENATE2)               \
  TP__XNN_SUP_CAT(X, CONCATENATE3) TP__XNN_SUP_CAT(X, CONCATENATE4)                          \
  TP__XNN_SUP_COPY(X, STATIC_SLICE) TP__XNN_SUP_BMM(X, BATCH_MATRIX_MULTIPLY)                \
  TP__XNN_SUP_CAT(X, CONCATENATE5) TP__XNN_SUP_DECONV(X, DECONV2D)                           \
  TP__XNN_SUP_UNARY(X, RECIPROCAL_SQUARE_ROOT)                                               \
  TP__XNN_SUP_UNARY(X, LOG) TP__XNN_SUP_UNARY(X, GELU)                                       \
  TP__XNN_SUP_UNARY(X, TANH) TP__XNN_SUP_UNARY(X, EXP)                                       \
  TP__XNN_SUP_UNARY(X, SIN) TP__XNN_SUP_COPY(X, COPY)                                        \
  TP__XNN_SUP_UNARY(X, COS)

/* One row of TP_XNN_NODE_SUPPORT: the node kind and the four slots' datatype masks. */
typedef struct tp_xnn_support {
  int kind;
  uint32_t input, second, bias, output;
} tp_xnn_support;
/* The rows, in the list's order (a kind's rows are adjacent); *count (may be NULL) = how many. */
TPDEF const tp_xnn_support *tp_xnn_node_support(uint32_t *count);
/* "none|fp32|fp16": a mask's datatype names joined by '|' into buf (size bytes, NUL-terminated,
   truncated to fit); "none" is TP_XNN_SM_NONE. Returns buf. */
TPDEF const char *tp_xnn_support_mask_str(uint32_t mask, char *buf, size_t size);

/* One field of a table, as the description gives it. type is one character, 'u' U32, 'h' I16,
   'd' I32, 'U' U64, 'f' F32, 's' STR, 'v' VEC, 'F' VEC_F32, 't' TABLE, 'T' TABLES, 'n' UNION,
   'x' DEPR, 'i' ID and OUT_ID (a value id), 'b' OPT_ID and UNUSED_ID (a value id or
   TP_XNN_INVALID_ID). role says what a value id field is to its node: 'i' an input (ID,
   OPT_ID: the node reads the value), 'o' an output (OUT_ID: the node writes it), 'n' an unused
   slot (UNUSED_ID: TP_XNN_INVALID_ID, the only id the define calls take there; ExecuTorch
   ignores it, and so do the reader's rules, the loader and tpdump), 0 not a value id. */
typedef struct tp_xnn_field {
  const char *name;
  uint16_t id;
  char type;
  char role;
} tp_xnn_field;

/* A table: its name and fields in id order (ids may skip: a union's type slot). */
typedef struct tp_xnn_table {
  const char *name;
  const tp_xnn_field *fields;
  uint32_t nfields;
} tp_xnn_table;

/* A node kind: tag, the define call's name without "tp_xnn_define_", the XNodeUnion member
   ("XNNAdd"), its table ("_XNNNode2x1"), and the fields (ids 0, 1, 2 ... in order) with the
   kind's id rules; layout = the fields' type characters in id order ("iiiu"); shape and rt =
   the list's columns ("2x1m", 1). */
typedef struct tp_xnn_node_desc {
  int kind;
  const char *name;
  const char *member;
  const char *table;
  const char *layout;
  const tp_xnn_field *fields;
  uint32_t nfields;
  const char *shape;
  int rt;
} tp_xnn_node_desc;

/* The description of node kind `kind` (1..TP_XNN_NODE_KINDS), or NULL. */
TPDEF const tp_xnn_node_desc *tp_xnn_describe_node(int kind);
/* The i-th table of TP_XNN_TABLE_LIST (0-based), or NULL past the end. */
TPDEF const tp_xnn_table *tp_xnn_describe_table(int i);
/* The define call's name without "tp_xnn_define_" ("fully_connected"), or "?". */
TPDEF const char *tp_xnn_node_name(int kind);
/* The datatype's name ("fp32", "qcint4"; "invalid" for 0), or "?" for a code not in
   TP_XNN_DATATYPES. */
TPDEF const char *tp_xnn_datatype_name(int datatype);
/* Bits per element (32, 16, 8 or 4), 0 for a code not in TP_XNN_DATATYPES (0 included): the
   one "is this a datatype" test. */
TPDEF unsigned tp_xnn_datatype_bits(int datatype);
/* The datatype's family (TP_XNN_DT_PLAIN ... TP_XNN_DT_DYNAMIC: which define call takes it), 0
   for none. */
TPDEF int tp_xnn_datatype_family(int datatype);
/* The node's layout (tp_xnn_describe_node(kind)->layout): one character per field id, the
   fields' types (tp_xnn_field): 'i' a value id, 'b' a value id or TP_XNN_INVALID_ID, 'u' a
   uint, 'f' a float, 'v' a vector of uint. NULL if unknown. */
TPDEF const char *tp_xnn_node_layout(int kind);

/* ---- the graph and its options ------------------------------------------------------------ */
typedef struct tp_xnn_graph tp_xnn_graph;

/* Which runtime a blob is for (tp_xnn_options.target). */
#define TP_XNN_TARGET_EXECUTORCH 0 /* ExecuTorch's XnnpackBackend and the XNNPACK it pins */
#define TP_XNN_TARGET_XNNPACK 1    /* a plain XNNPACK (tp_xnn_load, other runtimes) */
#define TP_XNN_TARGET_UNCHECKED 2  /* no node or graph rules, only the format's own (defined
                                      ids, 32-bit fields, constant views): for format tests and
                                      tools that copy blobs field by field; such a blob may not
                                      run anywhere */

/* Zero-initialised (or NULL options) = the defaults: every field's 0 / NULL is its default. */
typedef struct tp_xnn_options {
  tp_store *store;   /* NULL: constants inline in the blob; set: named constants in the store */
  size_t alignment;  /* constant alignment, a power of two; 0 = 16 (smaller values mean 16) */
  tp_progress_fn progress; /* NULL: none; else called as the blob is written (tensorpack.h
                              section 4); a non-zero return cancels with TP_ERR_CANCELLED */
  void *progress_ctx;      /* its first argument */
  int target;        /* 0 = TP_XNN_TARGET_EXECUTORCH: what ExecuTorch's runtime cannot run is
                        TP_ERR_UNSUPPORTED at define (see the README's table);
                        TP_XNN_TARGET_XNNPACK: only XNNPACK's own rules;
                        TP_XNN_TARGET_UNCHECKED: none of them (see above) */
} tp_xnn_options;

/* Makes an empty graph. Errors: TP_ERR_INVALID (alignment not a power of two), TP_ERR_NOMEM. */
TPDEF tp_status tp_xnn_graph_create(const tp_xnn_options *opts, tp_xnn_graph **out);
TPDEF void tp_xnn_graph_destroy(tp_xnn_graph *g);
/* The graph's failure as a sentence, or "": the first failed building call's (latched: later
   calls return it), else the last write / size call's when that failed (a write never poisons
   the graph: after fixing the cause, e.g. creating the directory, a retry succeeds and clears
   it). */
TPDEF const char *tp_xnn_graph_error(const tp_xnn_graph *g);
/* The status of that failure (TP_OK when none). */
TPDEF tp_status tp_xnn_graph_status(const tp_xnn_graph *g);
TPDEF uint32_t tp_xnn_graph_num_values(const tp_xnn_graph *g);
TPDEF uint32_t tp_xnn_graph_num_nodes(const tp_xnn_graph *g);

/* ---- values ----------------------------------------------------------------------------
   Common rules: num_dims <= 6; dims NULL = the data view's sizes (then num_dims must equal its
   ndim); data NULL = not a constant; every dim < 2^32. A data view's compact byte count must be
   numel(dims) x the datatype's element size (4-bit types: see the top of the file). external_id
   TP_XNN_INVALID_ID = internal value; a valid one must be unique and < 4096; flags are
   TP_XNN_FLAG_EXTERNAL_INPUT / _OUTPUT and need an external id. *id_out (may be NULL) = the
   value id. Errors: TP_ERR_INVALID (the sentence names the value and the numbers),
   TP_ERR_BOUNDS / TP_ERR_OVERFLOW (bad view), TP_ERR_NOMEM, and the store's errors. */

/* Plain value: FP32, FP16, INT32, PFP32 or BF16. */
TPDEF tp_status tp_xnn_define_tensor_value(tp_xnn_graph *g, tp_xnn_datatype dt, size_t num_dims,
                                           const size_t *dims, const tp_tensor *data,
                                           uint32_t external_id, uint32_t flags,
                                           uint32_t *id_out);
/* Per-tensor quantized: QINT8 (zero point in [-128, 127]), QUINT8 ([0, 255]) or QINT32 (0);
   scale finite and > 0. */
TPDEF tp_status tp_xnn_define_quantized_tensor_value(tp_xnn_graph *g, tp_xnn_datatype dt,
                                                     int32_t zero_point, float scale,
                                                     size_t num_dims, const size_t *dims,
                                                     const tp_tensor *data, uint32_t external_id,
                                                     uint32_t flags, uint32_t *id_out);
/* Per-channel quantized: QCINT8, QCINT32 or QCINT4; scale = an F32 view with dims[channel_dim]
   elements, any strides (copied row-major into its own constant). */
TPDEF tp_status tp_xnn_define_channelwise_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, const tp_tensor *scale, size_t num_dims,
    size_t channel_dim, const size_t *dims, const tp_tensor *data, uint32_t external_id,
    uint32_t flags, uint32_t *id_out);
/* Groupwise (blockwise) quantized 4-bit weights: QBINT4, 2 dims [out, in], channel_dim 0,
   block_size > 0, a multiple of 32 and dividing dims[1]; scale = a view of shape
   [dims[0], dims[1] / block_size], F32 (converted to bf16, RNE) or BF16, any strides. */
TPDEF tp_status tp_xnn_define_blockwise_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, const tp_tensor *scale, size_t num_dims,
    size_t channel_dim, size_t block_size, const size_t *dims, const tp_tensor *data,
    uint32_t external_id, uint32_t flags, uint32_t *id_out);
/* Dynamically quantized (per token): QDINT8 or QPINT8, num_nonbatch_dims <= num_dims, no data. */
TPDEF tp_status tp_xnn_define_dynamically_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, size_t num_dims, size_t num_nonbatch_dims,
    const size_t *dims, uint32_t external_id, uint32_t flags, uint32_t *id_out);

/* ---- nodes -----------------------------------------------------------------------------
   Arguments as in xnnpack.h. Every value id must be a defined value (bias_id may be
   TP_XNN_INVALID_ID = no bias); otherwise TP_ERR_INVALID naming the node, the field and the id.
   Calls with output_min/output_max write an OutputMinMax; tp_xnn_set_output_min_max() sets it
   on any node. Node indices are 0, 1, 2 ... in definition order.
   Every call checks the node against its values (ranks, dims, datatypes, window sizes, the
   rules of the XNNPACK ExecuTorch pins; see the README) and refuses with TP_ERR_INVALID and a
   sentence naming the node ("fully_connected #2"), the value ids and the numbers; what
   ExecuTorch's runtime cannot run is TP_ERR_UNSUPPORTED unless tp_xnn_options.target says
   otherwise. Node flags: TP_XNN_FLAG_* above. */

/* Any node kind, its fields by id (TP_XNN_FIELD(table, field), the order of
   tp_xnn_describe_node(kind)->fields), as the blob stores them: every tp_xnn_define_<kind> call
   below fills one and calls tp_xnn_define_node, so a loop over kinds needs no call per kind.
   Zero-initialise it; each field of the kind's layout is read from the array of its type, the
   others are ignored. Fields are the schema's, not the define call's arguments where the two
   differ (depthwise: groups = channels, group_output_channels = the multiplier; the vectors'
   num_dims is a field of its own). */
#define TP_XNN_NODE_MAX_FIELDS 20 /* the widest node table (_XNNNodeConv) */
typedef struct tp_xnn_node_args {
  uint32_t u[TP_XNN_NODE_MAX_FIELDS];       /* 'i' 'b' value ids (TP_XNN_INVALID_ID: none), 'u' */
  float f[TP_XNN_NODE_MAX_FIELDS];          /* 'f' fields */
  const size_t *vec[TP_XNN_NODE_MAX_FIELDS]; /* 'v' fields: vec_len entries, each < 2^32 */
  size_t vec_len[TP_XNN_NODE_MAX_FIELDS];   /* at most TP_XNN_MAX_DIMS */
  int has_output_min_max;                   /* 0: no OutputMinMax; 1: output_min / _max */
  float output_min, output_max;
} tp_xnn_node_args;
/* Defines a node of kind `kind` (1..TP_XNN_NODE_KINDS) from a; the checks, errors and
   sentences of the define calls. TP_ERR_INVALID for an unknown kind or a NULL a (latched, with
   a sentence naming the node). */
TPDEF tp_status tp_xnn_define_node(tp_xnn_graph *g, int kind, const tp_xnn_node_args *a);

/* Binary nodes (_XNNNode2x1). */
TPDEF tp_status tp_xnn_define_add2(tp_xnn_graph *g, float output_min, float output_max,
                                   uint32_t input1_id, uint32_t input2_id, uint32_t output_id,
                                   uint32_t flags);
TPDEF tp_status tp_xnn_define_subtract(tp_xnn_graph *g, float output_min, float output_max,
                                       uint32_t input1_id, uint32_t input2_id,
                                       uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_multiply2(tp_xnn_graph *g, float output_min, float output_max,
                                        uint32_t input1_id, uint32_t input2_id,
                                        uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_divide(tp_xnn_graph *g, float output_min, float output_max,
                                     uint32_t input1_id, uint32_t input2_id, uint32_t output_id,
                                     uint32_t flags);
TPDEF tp_status tp_xnn_define_maximum2(tp_xnn_graph *g, uint32_t input1_id, uint32_t input2_id,
                                       uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_minimum2(tp_xnn_graph *g, uint32_t input1_id, uint32_t input2_id,
                                       uint32_t output_id, uint32_t flags);
/* input1 = input, input2 = slope. Target 0: the slope broadcasts to the input ([1], [channels],
   ...) and may be any value; other targets: a constant of one slope per channel. */
TPDEF tp_status tp_xnn_define_prelu(tp_xnn_graph *g, uint32_t input_id, uint32_t slope_id,
                                    uint32_t output_id, uint32_t flags);
/* input1 [.., M, K] x input2 [.., K, N] (TP_XNN_FLAG_TRANSPOSE_B: [.., N, K]), batch dims
   broadcast. A qint8 input2 needs zero point 0 (TP_ERR_INVALID); for target 0 a qcint8 input2
   has no batch dims beyond 1 (TP_ERR_UNSUPPORTED: the runtime reads a scale per batch). */
TPDEF tp_status tp_xnn_define_batch_matrix_multiply(tp_xnn_graph *g, uint32_t input1_id,
                                                    uint32_t input2_id, uint32_t output_id,
                                                    uint32_t flags);

/* Unary nodes (_XNNNode1x1). */
TPDEF tp_status tp_xnn_define_softmax(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                      uint32_t flags);
TPDEF tp_status tp_xnn_define_sigmoid(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                      uint32_t flags);
/* For target 0 an int32 output takes bounds the runtime's truncation to int32 keeps: a max
   below 2^31 (not +INFINITY), whole numbers for a positive min or a negative max; the same for
   a binary node's output_min / output_max once one is finite (TP_ERR_UNSUPPORTED). */
TPDEF tp_status tp_xnn_define_clamp(tp_xnn_graph *g, float output_min, float output_max,
                                    uint32_t input_id, uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_floor(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                    uint32_t flags);
TPDEF tp_status tp_xnn_define_convert(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                      uint32_t flags);
/* NHWC input [N, H, W, C]; output [N, 1, 1, C] with TP_XNN_FLAG_KEEP_DIMS (what ExecuTorch
   writes and its runtime needs: flags 0 with a 4-D output is TP_ERR_UNSUPPORTED for target 0)
   or [N, C] without. */
TPDEF tp_status tp_xnn_define_global_average_pooling_2d(tp_xnn_graph *g, float output_min,
                                                        float output_max, uint32_t input_id,
                                                        uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_square_root(tp_xnn_graph *g, uint32_t input_id,
                                          uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_ceiling(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                      uint32_t flags);
TPDEF tp_status tp_xnn_define_hardswish(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                        uint32_t flags);
TPDEF tp_status tp_xnn_define_negate(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                     uint32_t flags);
TPDEF tp_status tp_xnn_define_square(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                     uint32_t flags);
TPDEF tp_status tp_xnn_define_abs(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                  uint32_t flags);
TPDEF tp_status tp_xnn_define_reciprocal_square_root(tp_xnn_graph *g, uint32_t input_id,
                                                     uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_log(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                  uint32_t flags);
TPDEF tp_status tp_xnn_define_gelu(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                   uint32_t flags);
TPDEF tp_status tp_xnn_define_tanh(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                   uint32_t flags);
TPDEF tp_status tp_xnn_define_exp(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                  uint32_t flags);
TPDEF tp_status tp_xnn_define_sin(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                  uint32_t flags);
TPDEF tp_status tp_xnn_define_cos(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                  uint32_t flags);
TPDEF tp_status tp_xnn_define_copy(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id,
                                   uint32_t flags);

/* Unary nodes with a parameter (XNNELU, XNNLeakyReLU). */
TPDEF tp_status tp_xnn_define_elu(tp_xnn_graph *g, float alpha, uint32_t input_id,
                                  uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_leaky_relu(tp_xnn_graph *g, float negative_slope,
                                         uint32_t input_id, uint32_t output_id, uint32_t flags);

/* Fully connected: input [.., in], filter [out, in] (or [in, out] with
   TP_XNN_FLAG_TRANSPOSE_WEIGHTS, e.g. a GPT-2 Conv1D weight as it lies), bias [out] or
   TP_XNN_INVALID_ID, output [.., out]. For target 0 (see the README): the output must be the
   input's dims with the last one replaced by out (same rank, what the pinned XNNPACK computes);
   the datatypes a row of TP_XNN_NODE_SUPPORT (a qdint8 input takes an fp32 bias, not fp16); a
   qdint8 input of odd input channels and more than one row with a qcint4 filter, an fp32 input
   with a qcint8 / qcint4 filter and a bias (the runtime scales the bias), and a qcint4 filter
   with TP_XNN_FLAG_TRANSPOSE_WEIGHTS are TP_ERR_UNSUPPORTED. Every target: a qint8 filter
   needs zero point 0 (TP_ERR_INVALID). */
TPDEF tp_status tp_xnn_define_fully_connected(tp_xnn_graph *g, float output_min,
                                              float output_max, uint32_t input_id,
                                              uint32_t filter_id, uint32_t bias_id,
                                              uint32_t output_id, uint32_t flags);

/* ---- quantized linears in one call (tensorpack.h section 5b) ----------------------------
   tp_xnn_define_quantized_linear quantizes a float weight view w [out, in] (f32 / f16 / bf16,
   any strides) with tp_quantize_symmetric and defines the dynamically quantized linear
   ExecuTorch's XNNPACK delegate runs for it:
      input_id (FP32 [.., in]) --convert--> QDINT8 (per row, num_nonbatch_dims 1)
      fully_connected(qd8, filter, bias, output_id (FP32 [.., out]))
   filter_dt  TP_XNN_QCINT8: 8-bit per channel (qd8 x qc8w, ExecuTorch's XNNPACKQuantizer
                             numerics); scales f32 [out]
              TP_XNN_QCINT4: 4-bit per channel (qd8 x qc4w, torchao 8da4w with one group per
                             row); scales f32 [out]; in must be even for the ExecuTorch target
              TP_XNN_QBINT4: 4-bit groupwise (qd8 x qb4w, torchao 8da4w: "8da4w"); block_size
                             a multiple of 32 dividing in; scales [out, in / block_size]
                             row-major (the order XNNPACK wants, not transposed), written
                             as bf16
   block_size   QBINT4 only (0 otherwise).
   scale_dtype  the quantizer's scale precision: TP_F32 for QCINT8 / QCINT4; TP_F32 (torchao's
                default scales_precision: values from f32 scales, converted to bf16 when
                written, as ExecuTorch's serializer does) or TP_BF16 for QBINT4.
   bias         NULL or an F32 view of [out] (borrowed like every constant view).
   q            receives the quantized values and scales (owned) and the ids defined. They are
                the graph's constants: keep q until the graph and its store are written, then
                tp_xnn_qlinear_release(q). On failure q is released and holds nothing.
   Errors latch in the graph like every define: the quantizer's sentence ("quantized linear
   (node 0): quantize: w[2][5] (element 21) is nan ...") and the value and node checks'. */
typedef struct tp_xnn_qlinear {
  tp_buffer values;  /* int8 [out, in] (4-bit ones in [-8, 7]; packed when written) */
  tp_buffer scales;  /* the quantizer's scales in scale_dtype, host order */
  uint32_t qinput_id, filter_id, bias_id; /* bias_id TP_XNN_INVALID_ID when no bias */
  uint32_t node_index; /* the fully_connected node (the convert is node_index - 1) */
} tp_xnn_qlinear;
TPDEF tp_status tp_xnn_define_quantized_linear(tp_xnn_graph *g, tp_xnn_datatype filter_dt,
                                               size_t block_size, tp_dtype scale_dtype,
                                               const tp_tensor *w, const tp_tensor *bias,
                                               float output_min, float output_max,
                                               uint32_t input_id, uint32_t output_id,
                                               tp_xnn_qlinear *q);
/* Frees q's values and scales (after the graph and its store are written); q may be NULL. */
TPDEF void tp_xnn_qlinear_release(tp_xnn_qlinear *q);

/* Convolutions (_XNNNodeConv). NHWC input, OHWI filter; the output's height and width must
   follow from the window (TP_XNN_FLAG_TENSORFLOW_SAME_PADDING: ceil(input / stride), no
   explicit paddings with it) and be non-empty; a qint8 filter needs zero point 0. For target 0
   a qdint8 input needs num_nonbatch_dims 3 (quantized per image), but for a 1x1, stride 1,
   unpadded, one-group convolution (TP_ERR_UNSUPPORTED). */
TPDEF tp_status tp_xnn_define_convolution_2d(
    tp_xnn_graph *g, uint32_t input_padding_top, uint32_t input_padding_right,
    uint32_t input_padding_bottom, uint32_t input_padding_left, uint32_t kernel_height,
    uint32_t kernel_width, uint32_t subsampling_height, uint32_t subsampling_width,
    uint32_t dilation_height, uint32_t dilation_width, uint32_t groups,
    size_t group_input_channels, size_t group_output_channels, float output_min,
    float output_max, uint32_t input_id, uint32_t filter_id, uint32_t bias_id,
    uint32_t output_id, uint32_t flags);
/* Written as the upstream serializer does: groups = input_channels, group_input_channels = 1,
   group_output_channels = depth_multiplier (the loader divides them back). */
TPDEF tp_status tp_xnn_define_depthwise_convolution_2d(
    tp_xnn_graph *g, uint32_t input_padding_top, uint32_t input_padding_right,
    uint32_t input_padding_bottom, uint32_t input_padding_left, uint32_t kernel_height,
    uint32_t kernel_width, uint32_t subsampling_height, uint32_t subsampling_width,
    uint32_t dilation_height, uint32_t dilation_width, uint32_t depth_multiplier,
    size_t input_channels, float output_min, float output_max, uint32_t input_id,
    uint32_t filter_id, uint32_t bias_id, uint32_t output_id, uint32_t flags);
/* ConvTranspose2d; upsampling goes to the schema's subsampling fields. */
TPDEF tp_status tp_xnn_define_deconvolution_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t adjustment_height, uint32_t adjustment_width,
    uint32_t kernel_height, uint32_t kernel_width, uint32_t upsampling_height,
    uint32_t upsampling_width, uint32_t dilation_height, uint32_t dilation_width,
    uint32_t groups, size_t group_input_channels, size_t group_output_channels,
    float output_min, float output_max, uint32_t input_id, uint32_t filter_id,
    uint32_t bias_id, uint32_t output_id, uint32_t flags);

/* ---- PyTorch layouts --------------------------------------------------------------------
   PyTorch stores weights in its own layouts; XNNPACK wants others. A weight given in the wrong
   one is often accepted when the shapes coincide (nn.Conv2d(3, 16, 3): OIHW [16, 3, 3, 3] and
   OHWI [16, 3, 3, 3]) and the model is just wrong. The helpers take the PyTorch weight as a view
   and give XNNPACK's layout as a view of the same bytes (tp_permute: no copy; the bytes are
   reordered when the graph is written):
     nn.Conv2d           [O, I/groups, kh, kw]  (OIHW)  ->  [O, kh, kw, I/groups]  (OHWI)
     depthwise nn.Conv2d [C*m, 1, kh, kw]               ->  [1, kh, kw, C*m]
       (groups = C in-channels, m = depth multiplier; out channel c*m + j stays c*m + j)
     nn.ConvTranspose2d  [I, O/groups, kh, kw]          ->  [O, kh, kw, I/groups]: a 4-D view
       for groups 1; for groups g > 1 a 5-D view [g, O/g, kh, kw, I/g] whose row-major bytes
       are that layout (pass dims {O, kh, kw, I/g} to tp_xnn_define_tensor_value)
     transformers' Conv1D (GPT-2 c_attn, c_fc, ...) [in, out]  ->  [out, in] (fully connected;
       nn.Linear's [out, in] is XNNPACK's already)
   Errors (TP_ERR_INVALID, with the sentence in *err, which may be NULL): NULL views, a view of
   the wrong rank, a depthwise weight whose dim 1 is not 1, groups < 1 or not dividing the
   channel count. */
TPDEF tp_status tp_xnn_conv_filter_from_torch(const tp_tensor *oihw, tp_tensor *ohwi,
                                              tp_error *err);
TPDEF tp_status tp_xnn_depthwise_filter_from_torch(const tp_tensor *w_c1hw, tp_tensor *out_1hwc,
                                                   tp_error *err);
TPDEF tp_status tp_xnn_deconv_filter_from_torch(const tp_tensor *w_iohw, uint32_t groups,
                                                tp_tensor *out, tp_error *err);
TPDEF tp_status tp_xnn_fc_filter_from_conv1d(const tp_tensor *w_in_out, tp_tensor *out_in,
                                             tp_error *err);

/* nn.Conv2d / nn.ConvTranspose2d arguments, zero = PyTorch's defaults. */
typedef struct tp_xnn_conv2d_args {
  uint32_t stride[2];         /* (h, w); 0 = 1 */
  uint32_t padding[2];        /* (h, w), on both sides as nn.Conv2d's padding=(ph, pw) */
  uint32_t dilation[2];       /* (h, w); 0 = 1 */
  uint32_t groups;            /* 0 = 1 */
  uint32_t output_padding[2]; /* ConvTranspose2d only: (h, w) */
  float output_min, output_max; /* a fused clamp (F.relu6: 0, 6); both 0 = none */
  uint32_t flags;             /* node flags (e.g. TP_XNN_FLAG_TENSORFLOW_SAME_PADDING), 0 */
} tp_xnn_conv2d_args;

/* Conv2d from the PyTorch weight as it lies: defines the filter (FP32 for a TP_F32 view, FP16
   for TP_F16) in XNNPACK's layout through the helpers above, the bias (same datatype, [O], or
   none for NULL) and the node; kernel size and channel counts come from the weight's shape, so
   they cannot disagree with it. groups > 1 with weight dim 1 == 1 (each group one input
   channel: PyTorch's depthwise conv) becomes XNNPACK's depthwise node, as upstream's
   partitioner makes it; other groups a grouped convolution. input_id: NHWC [N, H, W, I];
   output_id: NHWC [N, OH, OW, O] (checked by the node rules). a NULL = defaults. Errors: those
   of the helpers, tp_xnn_define_tensor_value and the node (in the graph's error; a dtype
   other than F32 / F16 is TP_ERR_UNSUPPORTED). *filter_id_out / *bias_id_out (may be NULL)
   get the values defined (TP_XNN_INVALID_ID for no bias). */
TPDEF tp_status tp_xnn_define_conv2d_torch(tp_xnn_graph *g, const tp_xnn_conv2d_args *a,
                                           uint32_t input_id, const tp_tensor *weight_oihw,
                                           const tp_tensor *bias, uint32_t output_id,
                                           uint32_t *filter_id_out, uint32_t *bias_id_out);
/* ConvTranspose2d from the PyTorch weight [I, O/groups, kh, kw] (a's output_padding goes to
   XNNPACK's adjustment); otherwise as tp_xnn_define_conv2d_torch. With groups > 1 the filter's
   layout is no view of the weight's storage: the graph copies its bytes once here (freed by
   tp_xnn_graph_destroy), so that weight may change after the call; groups 1 borrows it. */
TPDEF tp_status tp_xnn_define_conv_transpose2d_torch(tp_xnn_graph *g,
                                                     const tp_xnn_conv2d_args *a,
                                                     uint32_t input_id,
                                                     const tp_tensor *weight_iohw,
                                                     const tp_tensor *bias, uint32_t output_id,
                                                     uint32_t *filter_id_out,
                                                     uint32_t *bias_id_out);
/* nn.Linear (weight [out, in], XNNPACK's layout as is) or, with conv1d = 1, transformers'
   Conv1D (weight [in, out], given to XNNPACK as the [out, in] view): a fully connected node
   input [.., in] -> output [.., out] with the filter and bias defined from the views
   (F32 / F16), output_min / output_max as tp_xnn_define_fully_connected (-INFINITY, INFINITY
   for none). */
TPDEF tp_status tp_xnn_define_linear_torch(tp_xnn_graph *g, float output_min, float output_max,
                                           uint32_t input_id, const tp_tensor *weight,
                                           int conv1d, const tp_tensor *bias, uint32_t output_id,
                                           uint32_t *filter_id_out, uint32_t *bias_id_out);

/* Pooling (_XNNPooling2D; average pooling writes dilation 1 x 1). Output height and width as
   for convolutions, non-empty; argmax's index output has the value output's shape.
   TP_XNN_FLAG_TENSORFLOW_SAME_PADDING with explicit paddings is TP_ERR_INVALID; for target 0 a
   window wholly in the padding, and argmax pooling with any padding, are TP_ERR_UNSUPPORTED
   (the pinned runtime fills them with border pixels). */
TPDEF tp_status tp_xnn_define_average_pooling_2d(
    tp_xnn_graph *g, uint32_t input_padding_top, uint32_t input_padding_right,
    uint32_t input_padding_bottom, uint32_t input_padding_left, uint32_t pooling_height,
    uint32_t pooling_width, uint32_t stride_height, uint32_t stride_width, float output_min,
    float output_max, uint32_t input_id, uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_max_pooling_2d(
    tp_xnn_graph *g, uint32_t input_padding_top, uint32_t input_padding_right,
    uint32_t input_padding_bottom, uint32_t input_padding_left, uint32_t pooling_height,
    uint32_t pooling_width, uint32_t stride_height, uint32_t stride_width,
    uint32_t dilation_height, uint32_t dilation_width, float output_min, float output_max,
    uint32_t input_id, uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_argmax_pooling_2d(
    tp_xnn_graph *g, uint32_t input_padding_top, uint32_t input_padding_right,
    uint32_t input_padding_bottom, uint32_t input_padding_left, uint32_t pooling_height,
    uint32_t pooling_width, uint32_t input_id, uint32_t output_value_id,
    uint32_t output_index_id, uint32_t flags);

/* Concatenation (_XNNCat; unused input slots are written as TP_XNN_INVALID_ID, as upstream). */
TPDEF tp_status tp_xnn_define_concatenate2(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t output_id,
                                           uint32_t flags);
TPDEF tp_status tp_xnn_define_concatenate3(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_concatenate4(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t input4_id, uint32_t output_id,
                                           uint32_t flags);
TPDEF tp_status tp_xnn_define_concatenate5(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t input4_id, uint32_t input5_id,
                                           uint32_t output_id, uint32_t flags);

/* Shape nodes. Vectors have num_dims (<= 6) entries, each < 2^32. */
TPDEF tp_status tp_xnn_define_static_transpose(tp_xnn_graph *g, size_t num_dims,
                                               const size_t *perm, uint32_t input_id,
                                               uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_static_reshape(tp_xnn_graph *g, size_t num_dims,
                                             const size_t *new_shape, uint32_t input_id,
                                             uint32_t output_id, uint32_t flags);
TPDEF tp_status tp_xnn_define_static_slice(tp_xnn_graph *g, size_t num_dims,
                                           const size_t *offsets, const size_t *sizes,
                                           uint32_t input_id, uint32_t output_id, uint32_t flags);
/* As xnnpack.h: one padding per dim of the input value (its num_dims). */
TPDEF tp_status tp_xnn_define_static_constant_pad(tp_xnn_graph *g, const size_t *pre_paddings,
                                                  const size_t *post_paddings,
                                                  float padding_value, uint32_t input_id,
                                                  uint32_t output_id, uint32_t flags);
/* NHWC output [N, new_height, new_width, C]; TP_XNN_FLAG_ALIGN_CORNERS = align_corners=True. */
TPDEF tp_status tp_xnn_define_static_resize_bilinear_2d(tp_xnn_graph *g, size_t new_height,
                                                        size_t new_width, uint32_t input_id,
                                                        uint32_t output_id, uint32_t flags);

/* Attention, in the schema's field order. */
TPDEF tp_status tp_xnn_define_scaled_dot_product_attention(tp_xnn_graph *g, uint32_t query_id,
                                                           uint32_t key_id, uint32_t value_id,
                                                           uint32_t scale_id, uint32_t mask_id,
                                                           uint32_t output_id, uint32_t flags);

/* Node attributes. node_index in definition order; TP_ERR_INVALID when there is no such node. */
TPDEF tp_status tp_xnn_set_output_min_max(tp_xnn_graph *g, uint32_t node_index,
                                          float output_min, float output_max);
TPDEF tp_status tp_xnn_set_debug_handle(tp_xnn_graph *g, uint32_t node_index, uint32_t handle);

/* ---- output ---------------------------------------------------------------------------- */
/* Exact number of bytes tp_xnn_write will produce. */
TPDEF tp_status tp_xnn_blob_size(tp_xnn_graph *g, uint64_t *size_out);
/* Streams the blob into sink. A failed graph writes nothing and returns its first error.
   tp_xnn_blob_size and tp_xnn_write check the graph-level rules first (external ids dense
   0 .. n-1, each external flagged, every external input read and output written, one producer
   per value, nothing read before it is produced, no node output left unread): a broken rule is
   TP_ERR_INVALID with its sentence in tp_xnn_graph_error, not latched (define what is missing
   and write again).
   With options.progress set it reports (done, total = the blob size). Errors, sentences and
   cancelling: as every writer object (tensorpack.h section 11, "writer objects"). */
TPDEF tp_status tp_xnn_write(tp_xnn_graph *g, tp_sink *sink);
#ifndef TP_NO_STDIO
/* The blob into a file, atomically (temporary file + rename; nothing is left on failure): the
   sentence names the path in tp_xnn_graph_error (tensorpack.h section 11, "writer objects"). */
TPDEF tp_status tp_xnn_write_file(tp_xnn_graph *g, const char *path);
/* tp_xnn_blob_size + tp_xnn_write_file, a failure's sentence (tp_xnn_graph_error) on stderr as
   "error: <sentence>"; *size_out (may be NULL) gets the blob's bytes. As tp_store_save_ptd. */
TPDEF tp_status tp_xnn_save(tp_xnn_graph *g, const char *path, uint64_t *size_out);
#endif

/* ---- reading a blob (bounds-checked, no XNNPACK needed) -----------------------------------
   tp_xnn_read_blob parses an XNNPACK delegate blob - the XH00 frame (the delegate core's
   tp__delegate_parse; a blob that does not start with an XH00 header is taken as a bare XN01 /
   XN00 flatbuffer, as upstream) and the XNNGraph flatbuffer through the bounds-checked reader -
   into the read-only structure below, every field named by the XN01 description. It checks
   the structure: the identifier, xvalues and xnodes present, num_externs <= 4096, every XValue
   a known union member with its tensor, dims at most 6, a known quantization tag, every XNode a
   known kind with its table and its vectors present with at most 6 entries, every
   constant_data entry a table and a readable named_key; and the format's rules (the same for
   tp_xnn_check_blob, the loader and tpdump --check, decided once): value ids unique and
   not TP_XNN_INVALID_ID; input / output ids and node id fields naming values; a known datatype,
   dims present and num_dims equal to their count, numel(dims) x element size inside 64 bits
   (the define calls refuse the same); only the external input / output flags, an external
   value with an external id below num_externs and 4096, never a constant; constants and scale
   buffers that exist and hold at least the bytes the value needs (their size field);
   quantization parameters that match the dims; every inline constant_data entry inside the
   constant segment. Named keys are not looked up. Pointers point into `blob`, which must
   outlive the result. Errors: TP_ERR_FORMAT with a sentence in err (may be NULL, reset on
   entry), TP_ERR_NOMEM, TP_ERR_INVALID (NULL out, or NULL blob). A failed read keeps what it
   read before the failure, for a report (tpdump prints from it): stop_part names the part the
   sentence is about and stop_index its entry; the graph's fields and counts are read once
   stop_part is past TP_XNN_PART_FLATBUFFER, the entries of every part before stop_part, and
   those of stop_part below stop_index. Free the result with tp_xnn_blob_free after every call
   (a failed one too). */
/* The parts of a blob in reading order (tp_xnn_blob.stop_part; NONE: all read, rules kept). */
enum {
  TP_XNN_PART_NONE,
  TP_XNN_PART_FLATBUFFER, /* the frame, the flatbuffer, its identifier */
  TP_XNN_PART_GRAPH,      /* XNNGraph's own fields; id_out unique */
  TP_XNN_PART_INPUT_IDS,
  TP_XNN_PART_OUTPUT_IDS,
  TP_XNN_PART_VALUES,
  TP_XNN_PART_NODES,
  TP_XNN_PART_CONSTANTS   /* constant_data */
};
typedef struct tp_xnn_blob_value {
  int value_type;               /* TP_XNN_VALUE_TENSOR or TP_XNN_VALUE_QUANTIZED */
  int datatype;                 /* XNNTensorValue fields, as stored */
  uint32_t num_dims;            /* the num_dims field */
  uint32_t ndims;               /* entries of dims (0 when absent) */
  int has_dims;
  uint32_t dims[TP_XNN_MAX_DIMS];
  uint32_t constant_buffer_idx, external_id, flags, id_out;
  int dq_datatype;              /* runtime schema only; 0 = absent */
  int quant;                    /* 0 or the XNNQuantParams tag (TP_XNN_QUANT_*) */
  float scale;                  /* PerTensorQuant */
  int32_t zero_point;
  int32_t channel_dim, group_size; /* PerChannelQuant / PerChannelGroupQuant */
  uint32_t scale_buffer_idx, num_scales;
  int has_inline_scale;         /* the scale vector is present */
  uint32_t num_inline_scales;
  const unsigned char *inline_scales; /* little-endian f32, inside the blob */
  int32_t num_nonbatch_dims;    /* PerTokenDynamicQuant */
} tp_xnn_blob_value;

typedef struct tp_xnn_blob_node {
  int kind;                        /* XNodeUnion tag */
  const tp_xnn_node_desc *desc;    /* its description */
  uint32_t f[20];                  /* fields by field id: scalars (floats as their bits); a
                                      vector field: its slot in vec / vec_len */
  uint32_t nvec;                   /* vector fields in field order: */
  uint32_t vec_len[2];
  uint32_t vec[2][TP_XNN_MAX_DIMS];
  uint32_t debug_handle;
  int has_debug_handle;
  int has_output_min_max;
  float output_min, output_max;
} tp_xnn_blob_node;

typedef struct tp_xnn_blob_constant {
  uint64_t offset, size;
  const char *named_key;        /* NUL-terminated, inside the blob; NULL for an inline entry */
  size_t named_key_len;
  const unsigned char *data;    /* inline: the bytes inside the segment; else NULL */
} tp_xnn_blob_constant;

typedef struct tp_xnn_blob {
  int has_header;               /* an XH00 frame (else a bare flatbuffer) */
  tp__delegate_frame frame;
  const unsigned char *flatbuffer;
  size_t flatbuffer_size;
  char identifier[5];           /* "XN01" or "XN00" */
  const unsigned char *segment; /* the constant segment (NULL without a header) */
  uint64_t segment_size;
  const char *version;
  size_t version_len;
  uint32_t num_externs;
  uint32_t num_input_ids, num_output_ids;
  uint32_t *input_ids, *output_ids;
  int has_input_ids, has_output_ids; /* the vectors are present (absent: no ids) */
  uint32_t num_values, num_nodes, num_constants;
  tp_xnn_blob_value *values;
  tp_xnn_blob_node *nodes;
  tp_xnn_blob_constant *constants; /* constants[0] is the reserved entry */
  int stop_part;                /* TP_XNN_PART_*: where a failed read stopped (NONE: read) */
  uint32_t stop_index;          /* the entry of stop_part the failure is about */
} tp_xnn_blob;

TPDEF tp_status tp_xnn_read_blob(const void *blob, size_t size, tp_xnn_blob *out, tp_error *err);
/* Frees what tp_xnn_read_blob allocated, after a failed read too (a zeroed or already freed
   blob is fine). */
TPDEF void tp_xnn_blob_free(tp_xnn_blob *b);

/* ---- checks ------------------------------------------------------------------------------
   The node and graph rules of the define calls and of tp_xnn_write, applied to a blob (ours or
   upstream's; XH00-framed or a bare XN01 flatbuffer): target is TP_XNN_TARGET_* (EXECUTORCH
   refuses what ExecuTorch's runtime cannot run as TP_ERR_UNSUPPORTED). TP_OK when the blob
   keeps every rule; else the first rule it breaks as a sentence in *err (may be NULL) naming
   the node or value and the numbers, TP_ERR_INVALID (a rule), TP_ERR_UNSUPPORTED (the target
   cannot run it) or TP_ERR_FORMAT (unreadable, or a format rule of tp_xnn_read_blob broken,
   for every target). tpdump --check's verdict is this call's with TP_XNN_TARGET_UNCHECKED
   (format), then exit status 3 for a rule broken with TP_XNN_TARGET_EXECUTORCH. */
TPDEF tp_status tp_xnn_check_blob(const void *blob, size_t size, int target, tp_error *err);

#ifdef TENSORPACK_XNNPACK_RUNTIME
/* ---- loader onto the real XNNPACK (optional) ---------------------------------------------
   tp_xnn_load reads a blob (ours or upstream's; everything bounds-checked with tensorpack's
   reader, nothing trusted), defines its values and nodes with the linked XNNPACK and creates a
   runtime (xnn_create_runtime_v2, no thread pool). Named constants are looked up in `ptd` (a
   .ptd file in memory; may be NULL when the blob has none). Constants are copied into memory
   the runtime owns, so the blob and the .ptd may be freed after the call. What the linked
   XNNPACK lacks (a datatype, a node kind, blockwise or dynamic quantization) is
   TP_ERR_UNSUPPORTED with a sentence naming it; a malformed blob is TP_ERR_FORMAT; a call that
   XNNPACK refuses is TP_ERR_INVALID naming the call and XNNPACK's status. err (may be NULL)
   receives the sentence. Calls xnn_initialize itself. Datatypes are mapped to XNNPACK's by name
   (the numbers differ from qbint4 on); which ones the linked xnnpack.h has is detected at
   compile time (TP_XNN_RUNTIME_ALL_DATATYPES, see the implementation). Limit (a macro, define
   it higher to change): TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES (1 GiB over all non-constant
   values, whose dims come from the blob and which XNNPACK allocates) and
   TP_XNN_RUNTIME_MAX_OPERATOR_BYTES (256 MiB: what XNNPACK itself would allocate for the nodes -
   indirection buffers, packed weights, zero buffers, estimated from above per node from the
   graph before the runtime is created - beyond twice the constant bytes the loader holds); a
   graph over either is TP_ERR_FORMAT naming the value or node, its kind and the bytes. Each
   constant's bytes are copied once (per source position in the blob or .ptd) and shared by every
   value that names them; all copies together never exceed the blob and the .ptd (overlapping
   entries are TP_ERR_FORMAT). */
typedef struct tp_xnn_runtime tp_xnn_runtime;
TPDEF tp_status tp_xnn_load(const void *blob, size_t blob_size, const void *ptd, size_t ptd_size,
                            uint32_t flags /* XNNPACK runtime flags, usually 0 */,
                            tp_xnn_runtime **out, tp_error *err);
TPDEF void tp_xnn_runtime_destroy(tp_xnn_runtime *rt);
TPDEF const char *tp_xnn_runtime_error(const tp_xnn_runtime *rt);
/* Number of external ids (num_externs) and the blob's external inputs / outputs. */
TPDEF uint32_t tp_xnn_runtime_num_externs(const tp_xnn_runtime *rt);
/* Binds the memory of external id `external_id` for the next invoke. Inputs need
   XNN_EXTRA_BYTES (16) readable bytes past their end. */
TPDEF tp_status tp_xnn_runtime_bind(tp_xnn_runtime *rt, uint32_t external_id, void *data);
/* Sets up the runtime with every bound external value and runs it. An external value left
   unbound is TP_ERR_INVALID naming it (XNNPACK would go through NULL).
   A failed bind or invoke leaves its sentence in tp_xnn_runtime_error until the next bind or
   invoke and does not stop the runtime: fix the cause and call again (nothing latches). */
TPDEF tp_status tp_xnn_runtime_invoke(tp_xnn_runtime *rt);
/* The bytes of external `external_id` (dims x element size) in *size and the bytes a buffer
   bound to it needs in *padded (size + TP_XNN_EXTRA_BYTES: XNNPACK reads past an input's end).
   Either pointer may be NULL. TP_ERR_INVALID when the blob has no value with that id. */
TPDEF tp_status tp_xnn_runtime_extern_size(const tp_xnn_runtime *rt, uint32_t external_id,
                                           size_t *size, size_t *padded);
/* The runtime flags tp_xnn_load accepts (others are TP_ERR_UNSUPPORTED: XNNPACK's
   FORCE_FP16_INFERENCE aborts on fp32 graphs): XNN_FLAG_HINT_SPARSE_INFERENCE. */
#define TP_XNN_RUNTIME_FLAGS 0x1u
#endif


/* ---- programs (.pte) ---------------------------------------------------------------------- */
/* What value `id` of a graph is (for wrappers such as tp_xnn_add_pte_method). */
typedef struct tp_xnn_value_info {
  int datatype;                  /* tp_xnn_datatype */
  uint32_t num_dims;
  size_t dims[TP_XNN_MAX_DIMS];
  uint32_t external_id;          /* TP_XNN_INVALID_ID for an internal value */
  uint32_t flags;                /* TP_XNN_FLAG_EXTERNAL_INPUT / _OUTPUT */
  int is_constant;
} tp_xnn_value_info;
/* TP_ERR_INVALID when id is not a value of g (or out is NULL). */
TPDEF tp_status tp_xnn_graph_value(const tp_xnn_graph *g, uint32_t id, tp_xnn_value_info *out);
/* Adds method `name` to p: one delegate call to "XnnpackBackend" whose blob is g (streamed at
   write time: g, and its views, are borrowed until p is written). The method's arguments are
   g's externals in external-id order (ExecuTorch's XNNExecutor indexes the call's arguments by
   external id), each a memory-planned tensor with the external's dims; plan inputs / outputs
   are the external inputs / outputs in that order. A named-mode graph's store must be embedded
   in p (tp_pte_options.embed) or written as a .ptd beside it. Refused (latched in p, with a
   sentence): a failed graph (its status and sentence); external ids that are not dense
   0 .. n-1 (TP_ERR_INVALID naming the first missing id: a gap makes the runtime read past the
   call's arguments); an external with neither flag (TP_ERR_INVALID); an external whose
   datatype has no ScalarType (TP_ERR_UNSUPPORTED; FP32 -> Float, FP16 -> Half, BF16 ->
   BFloat16, INT32 -> Int, QINT8 -> Char, QUINT8 -> Byte); and tp_pte_add_method's refusals. */
TPDEF tp_status tp_xnn_add_pte_method(tp_pte *p, const char *name, tp_xnn_graph *g);
/* A DelegateCall of g ("XnnpackBackend", its blob streamed at write time: g and its views are
   borrowed until the program is written) in program graph pg, beside kernel calls: args are
   pg's Tensor values bound to g's externals in external-id order, one each, with the
   external's ScalarType and dims. Refused, latched in pg with a sentence: a failed graph,
   external ids that are not dense, an external without flags or ScalarType (as
   tp_xnn_add_pte_method); a count other than the externals'; a value that is not a Tensor or
   has another dtype or other sizes (TP_ERR_INVALID, naming both); tp_pte_call_delegate's. */
TPDEF tp_status tp_xnn_pte_call(tp_pte_graph *pg, tp_xnn_graph *g, const uint32_t *args,
                                size_t n);
/* The named keys that the XnnpackBackend delegates of program f (read with tp_pte_read) use
   and that neither f's own named data nor ptd (may be NULL) holds: what a .ptd passed beside
   the program must bring (ExecuTorch's runtime fails, or worse, without it). Only method m's
   delegates, or every method's with m == (size_t)-1. The keys are distinct, in first-use
   order; keys[0 .. min(*count, cap)) point into f's bytes (keys may be NULL with cap 0 to
   count only); *count gets their number. Errors: TP_ERR_FORMAT (a delegate blob that
   tp_xnn_read_blob refuses, named), TP_ERR_INVALID (m out of range, NULL count), TP_ERR_NOMEM;
   sentence in *err (may be NULL; reset on entry). */
TPDEF tp_status tp_xnn_pte_missing_keys(tp_pte_file *f, size_t m, tp_ptd *ptd, const char **keys,
                                        size_t cap, size_t *count, tp_error *err);
#ifdef TENSORPACK_XNNPACK_RUNTIME
/* tp_xnn_load for method `method` of a program (.pte bytes, e.g. from tp_pte_read_file's
   f.data / f.size or a tp_pte_write into memory): its XnnpackBackend delegate (the one a
   method made by tp_xnn_add_pte_method has) is loaded with its named constants looked up in
   the program's own named data (tp_pte_options.embed) and in ptd (a .ptd in memory, may be
   NULL): embedded, external or both. Bind the runtime's externals by external id as for
   tp_xnn_load (the method's arguments are the externals in external-id order). The program
   and the .ptd may be freed after the call (when the program has named data, it and ptd's
   entries are copied once into a temporary .ptd image for tp_xnn_load).
   A method of several XNNPACK delegate calls, or of calls that take constants (tp_pte_graph
   with tp_xnn_pte_call): each call's blob becomes a runtime of its own, wired to the method's
   values by index; the planned buffers (non_const_buffer_sizes, padded by TP_XNN_EXTRA_BYTES)
   are allocated and the constants of the constant segment copied, so the runtime's external
   ids are then the method's VALUE indices (tp_pte_io_at; for a tp_xnn_add_pte_method method
   the two agree): bind every plan input and output (tp_xnn_runtime_extern_size gives its
   bytes), and invoke runs the calls in chain order, intermediates in the planned memory.
   Errors, sentence in *err (may be NULL): the
   program's tp_pte_read errors (TP_ERR_FORMAT); no such method (TP_ERR_INVALID, naming the
   methods there are); a method of more than one chain, an instruction that is not a
   DelegateCall of an XnnpackBackend delegate (TP_ERR_UNSUPPORTED: "method \"forward\":
   instruction 0 calls aten::add.out, a portable kernel; the XNNPACK loader runs delegate calls
   only"); a call whose values do not match its blob's externals (count, bytes), planned
   buffers above TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES, an argument neither planned, constant,
   input nor output (TP_ERR_FORMAT); named keys neither embedded nor in ptd (TP_ERR_INVALID:
   "method \"forward\" needs a .ptd with these keys (3, ...): \"<key>\", ..."); a key in both
   with different bytes (TP_ERR_INVALID); tp_xnn_load's.
   On such a runtime tp_xnn_runtime_bind refuses a value that is not a plan input or output,
   and invoke one left unbound (TP_ERR_INVALID, naming it). */
TPDEF tp_status tp_xnn_load_pte(const void *pte, size_t pte_size, const char *method,
                                const void *ptd, size_t ptd_size, uint32_t flags,
                                tp_xnn_runtime **out, tp_error *err);
#endif

/* ---- for tools/tpdump.c, not for users (tp__: not API, may change in any release) ---- */
/* Calls fn for each named constant key of one XnnpackBackend blob, in order, after
   tp_xnn_read_blob accepts it (its sentence in err otherwise); stops at fn's non-TP_OK. tpdump
   --check lists every backend's keys through it in one tp__pte_missing_keys. */
TPDEF tp_status tp__xnn_blob_keys(const void *blob, size_t size, tp__key_fn fn, void *ctx,
                                  tp_error *err);

#ifdef __cplusplus
}
#endif

/* ====================================== stop here ======================================== */
#endif /* TENSORPACK_XNNPACK_H */

#ifdef TENSORPACK_XNNPACK_IMPLEMENTATION
#ifndef TENSORPACK_XNNPACK_IMPLEMENTATION_DONE
#define TENSORPACK_XNNPACK_IMPLEMENTATION_DONE

#include <string.h>

/* >>xnn-tables ------------------------------------------------------------------------------ */

/* The description's kinds as tp_xnn_field's type and role characters, and as layout strings
   (the node tables' kinds only). */
#define TP__XNN_KIND_U32 'u', 0
#define TP__XNN_KIND_I16 'h', 0
#define TP__XNN_KIND_I32 'd', 0
#define TP__XNN_KIND_U64 'U', 0
#define TP__XNN_KIND_F32 'f', 0
#define TP__XNN_KIND_STR 's', 0
#define TP__XNN_KIND_VEC 'v', 0
#define TP__XNN_KIND_VEC_F32 'F', 0
#define TP__XNN_KIND_TABLE 't', 0
#define TP__XNN_KIND_TABLES 'T', 0
#define TP__XNN_KIND_UNION 'n', 0
#define TP__XNN_KIND_DEPR 'x', 0
#define TP__XNN_KIND_ID 'i', 'i'
#define TP__XNN_KIND_OPT_ID 'b', 'i'
#define TP__XNN_KIND_OUT_ID 'i', 'o'
#define TP__XNN_KIND_UNUSED_ID 'b', 'n'
#define TP__XNN_LS_U32 "u"
#define TP__XNN_LS_F32 "f"
#define TP__XNN_LS_VEC "v"
#define TP__XNN_LS_ID "i"
#define TP__XNN_LS_OPT_ID "b"
#define TP__XNN_LS_OUT_ID "i"
#define TP__XNN_LS_UNUSED_ID "b"

#define TP__XNN_FIELD_INIT(table, field, id, type) {#field, id, TP__XNN_KIND_##type},
#define TP__XNN_FIELD_ONE(table, field, id, type) +1
#define TP__XNN_LAYOUT_CH(table, field, id, type) TP__XNN_LS_##type

/* every table's fields */
#define TP__XNN_TABLE_FIELDS(table) \
  static const tp_xnn_field tp__xnn_tf_##table[] = {TP_XNN_FIELDS_##table(TP__XNN_FIELD_INIT)};
TP_XNN_TABLE_LIST(TP__XNN_TABLE_FIELDS)
#undef TP__XNN_TABLE_FIELDS
#define TP__XNN_TABLE_DESC(table) \
  {#table, tp__xnn_tf_##table, 0 TP_XNN_FIELDS_##table(TP__XNN_FIELD_ONE)},
static const tp_xnn_table tp__xnn_tables[] = {TP_XNN_TABLE_LIST(TP__XNN_TABLE_DESC)};
#undef TP__XNN_TABLE_DESC

/* each node kind's fields (its table's, with the kind's id rules) */
#define TP__XNN_NODE_FIELDS(tag, NAME, name, member, table, fields, shape, rt) \
  static const tp_xnn_field tp__xnn_nf_##NAME[] = {TP_XNN_FIELDS_##fields(TP__XNN_FIELD_INIT)};
TP_XNN_NODE_LIST(TP__XNN_NODE_FIELDS)
#undef TP__XNN_NODE_FIELDS
#define TP__XNN_NODE_DESC(tag, NAME, name, member, table, fields, shape, rt)            \
  {tag, #name, #member, #table, "" TP_XNN_FIELDS_##fields(TP__XNN_LAYOUT_CH), tp__xnn_nf_##NAME, \
   0 TP_XNN_FIELDS_##fields(TP__XNN_FIELD_ONE), #shape, rt},
static const tp_xnn_node_desc tp__xnn_nodes[] = {TP_XNN_NODE_LIST(TP__XNN_NODE_DESC)};
#undef TP__XNN_NODE_DESC

TPDEF const tp_xnn_node_desc *tp_xnn_describe_node(int kind) {
  if (kind < 1 || kind > (int)TP_XNN_NODE_KINDS) return NULL;
  TP_ASSERT(tp__xnn_nodes[kind - 1].kind == kind); /* the list is in tag order */
  return &tp__xnn_nodes[kind - 1];
}

TPDEF const tp_xnn_table *tp_xnn_describe_table(int i) {
  if (i < 0 || (size_t)i >= sizeof tp__xnn_tables / sizeof tp__xnn_tables[0]) return NULL;
  return &tp__xnn_tables[i];
}

static const char *tp__xnn_layout(int kind) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  return d ? d->layout : NULL;
}

/* A node field's name, for messages. */
static const char *tp__xnn_field_name(int kind, unsigned id) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  return d && id < d->nfields ? d->fields[id].name : "?";
}

TPDEF const char *tp_xnn_node_layout(int kind) { return tp__xnn_layout(kind); }

TPDEF const char *tp_xnn_node_name(int kind) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  return d ? d->name : "?";
}

/* TP_XNN_DATATYPES as rows, and the one lookup every column is read through. */
typedef struct tp__xnn_dt_row {
  int code;
  const char *name;
  unsigned bits;
  int view, scalar, family;
} tp__xnn_dt_row;
#define TP__XNN_DT_ROW(code, NAME, name, bits, view, scalar, family) \
  {code, #name, bits, (int)(view), (int)(scalar), TP_XNN_DT_##family},
static const tp__xnn_dt_row tp__xnn_dt_rows[] = {TP_XNN_DATATYPES(TP__XNN_DT_ROW)};
#undef TP__XNN_DT_ROW

/* The row of datatype dt, or NULL for a code not in the list (0 included). */
static const tp__xnn_dt_row *tp__xnn_dt(int dt) {
  size_t i;
  for (i = 0; i < sizeof tp__xnn_dt_rows / sizeof tp__xnn_dt_rows[0]; i++)
    if (tp__xnn_dt_rows[i].code == dt) return &tp__xnn_dt_rows[i];
  return NULL;
}

TPDEF const char *tp_xnn_datatype_name(int dt) {
  const tp__xnn_dt_row *r = tp__xnn_dt(dt);
  return r ? r->name : dt == TP_XNN_INVALID ? "invalid" : "?";
}

TPDEF unsigned tp_xnn_datatype_bits(int dt) {
  const tp__xnn_dt_row *r = tp__xnn_dt(dt);
  return r ? r->bits : 0;
}

TPDEF int tp_xnn_datatype_family(int dt) {
  const tp__xnn_dt_row *r = tp__xnn_dt(dt);
  return r ? r->family : 0;
}

/* The support table (TP_XNN_NODE_SUPPORT) and its check ---------------------------------- */
#define TP__XNN_SUP_ROW(K, in, second, bias, out) {TP_XNN_NODE_##K, in, second, bias, out},
static const tp_xnn_support tp__xnn_support[] = {TP_XNN_NODE_SUPPORT(TP__XNN_SUP_ROW)};
#undef TP__XNN_SUP_ROW

TPDEF const tp_xnn_support *tp_xnn_node_support(uint32_t *count) {
  if (count) *count = (uint32_t)(sizeof tp__xnn_support / sizeof tp__xnn_support[0]);
  return tp__xnn_support;
}

/* The names of the datatypes whose bits mask has (bit 0: "none") joined by sep into buf (size
   bytes, NUL-terminated; it stops at the first name that does not fit). */
static const char *tp__xnn_mask_names(uint32_t mask, const char *sep, char *buf, size_t size) {
  size_t n = 0, ls = strlen(sep);
  int dt;
  if (!buf || size == 0) return buf;
  buf[0] = 0;
  for (dt = 0; dt < (int)TP_XNN_DATATYPE_END; dt++) {
    const char *name = dt == 0 ? "none" : tp_xnn_datatype_name(dt);
    size_t len = strlen(name);
    if (!(mask & (1u << dt))) continue;
    if (n + ls + len + 1 > size) break;
    if (n) {
      memcpy(buf + n, sep, ls);
      n += ls;
    }
    memcpy(buf + n, name, len + 1);
    n += len;
  }
  return buf;
}

TPDEF const char *tp_xnn_support_mask_str(uint32_t mask, char *buf, size_t size) {
  return tp__xnn_mask_names(mask, "|", buf, size);
}

/* The tp_dtype a constant's data view of datatype dt has (the list's view column); -1: none. */
static int tp__xnn_view_dtype(int dt) {
  const tp__xnn_dt_row *r = tp__xnn_dt(dt);
  return r ? r->view : -1;
}

/* Bytes per element; 0 for the 4-bit types (packed two per byte) and invalid ones. */
static size_t tp__xnn_elem_size(int dt) { return (size_t)(tp_xnn_datatype_bits(dt) / 8u); }

/* "qint8, quint8, qint32": the names of a family's datatypes, for sentences (buf >= 80). */
static const char *tp__xnn_family_names(int family, char *buf) {
  uint32_t mask = 0;
  size_t i;
  for (i = 0; i < sizeof tp__xnn_dt_rows / sizeof tp__xnn_dt_rows[0]; i++)
    if (tp__xnn_dt_rows[i].family == family) mask |= 1u << tp__xnn_dt_rows[i].code;
  return tp__xnn_mask_names(mask, ", ", buf, 80);
}

/* >>xnn-graph ------------------------------------------------------------------------------- */

#define TP__XNN_Q_NONE 0 /* not quantized; else an XNNQuantParams tag (TP_XNN_QUANT_*) */

typedef struct tp__xnn_value {
  int quant;
  int datatype;
  uint32_t num_dims;
  uint32_t dims[TP_XNN_MAX_DIMS];
  uint32_t const_idx; /* 0 = not constant */
  int const_named;    /* the constant is a named key (a .ptd / store entry), not in the blob */
  uint32_t external_id, flags;
  float scale;
  int32_t zero_point;
  int32_t channel_dim, group_size, num_nonbatch_dims;
  uint32_t scale_idx, num_scales;
  /* per-channel (qcint8 / qcint4 / qcint32): the smallest and largest channel scale and their
     channels, for the requantization rule (>>xnn-check); qc_known 0: not known */
  int qc_known;
  float qc_min, qc_max;
  uint32_t qc_min_at, qc_max_at;
} tp__xnn_value;

#define TP__XF(table, field) ((uint16_t)TP_XNN_FIELD(table, field))
typedef struct tp__xnn_node {
  int kind;
  int has_minmax;
  float out_min, out_max;
  uint32_t debug_handle;
  uint32_t f[TP_XNN_NODE_MAX_FIELDS]; /* by field id; floats as bits; 'v' fields: vector slot */
  uint32_t vec_off[2], vec_len[2];
} tp__xnn_node;

/* How a constant's bytes are produced from its view. */
#define TP__XNN_C_COMPACT 0 /* tp_compact_write, row-major */
#define TP__XNN_C_PACK4 1   /* tp_pack_int4_write */
#define TP__XNN_C_BF16 2    /* tp_convert_write to bf16 */

typedef struct tp__xnn_const {
  int how;
  tp_tensor view;
  uint64_t size;   /* bytes in the blob / store */
  uint64_t offset; /* inline: offset in the constant segment */
  int named;
  char key[80];
} tp__xnn_const;

struct tp_xnn_graph {
  tp_error err;
  int target;  /* TP_XNN_TARGET_* */
  tp_store *store;
  uint64_t alignment;
  tp__xnn_value *values;
  size_t nvalues, cap_values;
  tp__xnn_node *nodes;
  size_t nnodes, cap_nodes;
  tp__xnn_const *consts; /* consts[0] is the reserved empty entry */
  size_t nconsts, cap_consts;
  size_t value_nconsts;  /* nconsts when the value define under way began (tp__xnn_value_end) */
  tp__keyset const_keys; /* named mode: consts by key (>>xnn-constants) */
  tp__hashkey const_hk;  /* its hash key (tp__hash_seed of the graph) */
  int writing;           /* > 0 while the graph is written */
  uint32_t *pool; /* node vectors */
  size_t npool, cap_pool;
  tp_progress_fn progress; /* options.progress / progress_ctx */
  void *progress_ctx;
  tp_error werr;     /* the last write / size call's failure (never latched) */
  tp_fb_builder *fb; /* the built XN01 flatbuffer, valid while fb_valid */
  tp__delegate_frame frame; /* its frame (the delegate core's), set by tp__xnn_prepare */
  int fb_valid;      /* cleared by every define and set call */
  void **owned;      /* copies the graph made (grouped ConvTranspose2d filters), freed at destroy */
  size_t nowned, cap_owned;
};

TPDEF tp_status tp_xnn_graph_create(const tp_xnn_options *opts, tp_xnn_graph **out) {
  tp_xnn_graph *g;
  uint64_t align = 16;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  if (opts && (opts->target < TP_XNN_TARGET_EXECUTORCH || opts->target > TP_XNN_TARGET_UNCHECKED))
    return TP_ERR_INVALID;
  if (opts && opts->alignment) {
    if ((opts->alignment & (opts->alignment - 1)) != 0) return TP_ERR_INVALID;
    if (opts->alignment > align) align = (uint64_t)opts->alignment;
  }
  g = (tp_xnn_graph *)TP_MALLOC(sizeof *g);
  if (!g) return TP_ERR_NOMEM;
  memset(g, 0, sizeof *g);
  g->const_hk = tp__hash_seed(g);
  g->store = opts ? opts->store : NULL;
  g->target = opts ? opts->target : TP_XNN_TARGET_EXECUTORCH;
  g->alignment = align;
  g->progress = opts ? opts->progress : NULL;
  g->progress_ctx = opts ? opts->progress_ctx : NULL;
  if (tp__array_reserve((void **)&g->consts, &g->cap_consts, 4, sizeof *g->consts) != TP_OK) {
    TP_FREE(g);
    return TP_ERR_NOMEM;
  }
  memset(&g->consts[0], 0, sizeof g->consts[0]);
  g->nconsts = 1;
  *out = g;
  return TP_OK;
}

TPDEF void tp_xnn_graph_destroy(tp_xnn_graph *g) {
  if (!g) return;
  TP_FREE(g->values);
  TP_FREE(g->nodes);
  TP_FREE(g->consts);
  tp__keyset_free(&g->const_keys);
  TP_FREE(g->pool);
  tp_fb_builder_destroy(g->fb);
  while (g->nowned) TP_FREE(g->owned[--g->nowned]);
  TP_FREE(g->owned);
  TP_FREE(g);
}

TPDEF const char *tp_xnn_graph_error(const tp_xnn_graph *g) {
  TP_ASSERT(g);
  return tp__writer_error(&g->err, &g->werr);
}

TPDEF tp_status tp_xnn_graph_status(const tp_xnn_graph *g) {
  TP_ASSERT(g);
  return tp__writer_status(&g->err, &g->werr);
}

TPDEF uint32_t tp_xnn_graph_num_values(const tp_xnn_graph *g) {
  TP_ASSERT(g);
  return (uint32_t)g->nvalues;
}

TPDEF uint32_t tp_xnn_graph_num_nodes(const tp_xnn_graph *g) {
  TP_ASSERT(g);
  return (uint32_t)g->nnodes;
}

/* >>xnn-check ------------------------------------------------------------------------------- */
/* The rules a node must satisfy, per node kind, with the semantics of the XNNPACK that
   ExecuTorch pins. One function decides for the writer (tp_xnn_define_node, at define time) and
   for a read blob (tp_xnn_check_blob, the loader's tp__xnn_rt_node): each hands over a node
   view (fields by id, the value of every id field), a blob's through tp__xnn_blob_nview.
   Graph-level rules (external ids, producers and consumers) are tp__xnn_check_graph, run at
   write. */

typedef struct tp__xnn_nview {
  int kind;
  unsigned index;                              /* node index, for the sentence */
  uint32_t f[TP_XNN_NODE_MAX_FIELDS];              /* by field id; value ids as the graph numbers them */
  const tp__xnn_value *v[TP_XNN_NODE_MAX_FIELDS];  /* the value of each id field (NULL: none) */
  uint32_t vec[2][TP_XNN_MAX_DIMS];            /* the 'v' fields in order */
  uint32_t vlen[2];
  int has_minmax;                              /* the node's OutputMinMax, when it has one */
  float out_min, out_max;
} tp__xnn_nview;

/* "[2, 6]" into buf (at least 80 bytes). */
static const char *tp__xnn_dims_str(const tp__xnn_value *v, char *buf) {
  uint32_t i;
  size_t n = 0;
  buf[n++] = '[';
  for (i = 0; i < v->num_dims && n < 60; i++) {
    uint32_t d = v->dims[i];
    char tmp[12];
    int k = 0;
    if (i) {
      buf[n++] = ',';
      buf[n++] = ' ';
    }
    do {
      tmp[k++] = (char)('0' + d % 10);
      d /= 10;
    } while (d);
    while (k) buf[n++] = tmp[--k];
  }
  buf[n++] = ']';
  buf[n] = 0;
  return buf;
}

static uint64_t tp__xnn_cnumel(const tp__xnn_value *v) {
  uint64_t n = 1;
  uint32_t i;
  for (i = 0; i < v->num_dims; i++) n *= v->dims[i]; /* bounded at define / read */
  return n;
}

static int tp__xnn_same_dims(const tp__xnn_value *a, const tp__xnn_value *b) {
  return a->num_dims == b->num_dims && !memcmp(a->dims, b->dims, a->num_dims * sizeof a->dims[0]);
}

/* Output extent of a window: padded input, effective kernel (k - 1) * d + 1, stride; 0 when
   the padded input is smaller than the window (a 0 output makes XNNPACK abort or hang). */
static uint64_t tp__xnn_window_out(uint64_t in, uint64_t pad, uint64_t k, uint64_t d,
                                   uint64_t s) {
  uint64_t eff = (k - 1) * d + 1, padded = in + pad;
  return padded < eff ? 0 : (padded - eff) / s + 1;
}

/* A node rule's failure: returns st with the sentence "<kind name> #<node index>: " fmt (n and
   err in scope). */
#define TP__XNN_FAIL(st, fmt, ...)                                                        \
  return tp__error_set(err, st, "%s #%u: " fmt, tp_xnn_node_name(n->kind), n->index, \
                       __VA_ARGS__)

/* The window rule of convolutions and pooling: non-zero kernel, stride, dilation; a non-empty
   output whose height and width follow from the input (fields fin, fout; the paddings top,
   right, bottom, left at fpad .. fpad + 3). */
static tp_status tp__xnn_check_window(const tp__xnn_nview *n, tp_error *err, const char *what,
                                      uint32_t fin, uint32_t fout, uint32_t fpad, uint32_t kh,
                                      uint32_t kw, uint32_t sh, uint32_t sw, uint32_t dh,
                                      uint32_t dw, int deconv, uint32_t ah, uint32_t aw) {
  const tp__xnn_value *in = n->v[fin], *out = n->v[fout];
  const uint32_t *pad = n->f + fpad;
  uint64_t oh, ow;
  char b1[80];
  if (kh == 0 || kw == 0 || sh == 0 || sw == 0 || dh == 0 || dw == 0)
    TP__XNN_FAIL(TP_ERR_INVALID, "%s %u x %u, stride %u x %u, dilation %u x %u: each must be >= 1",
                 what, (unsigned)kh, (unsigned)kw, (unsigned)sh, (unsigned)sw, (unsigned)dh,
                 (unsigned)dw);
  if (deconv) {
    uint64_t eh = ((uint64_t)kh - 1) * dh + 1, ew = ((uint64_t)kw - 1) * dw + 1;
    oh = (uint64_t)sh * (in->dims[1] ? in->dims[1] - 1 : 0) + ah + eh;
    ow = (uint64_t)sw * (in->dims[2] ? in->dims[2] - 1 : 0) + aw + ew;
    oh = oh > (uint64_t)pad[0] + pad[2] ? oh - pad[0] - pad[2] : 0;
    ow = ow > (uint64_t)pad[1] + pad[3] ? ow - pad[1] - pad[3] : 0;
    if (in->dims[1] == 0 || in->dims[2] == 0) oh = ow = 0;
  } else {
    oh = tp__xnn_window_out(in->dims[1], (uint64_t)pad[0] + pad[2], kh, dh, sh);
    ow = tp__xnn_window_out(in->dims[2], (uint64_t)pad[1] + pad[3], kw, dw, sw);
  }
  if (oh == 0 || ow == 0)
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "input is %s, padded by %u/%u (top/bottom) and %u/%u (left/right), the %s "
                 "%u x %u (dilation %u x %u) gives an empty %llu x %llu output",
                 tp__xnn_dims_str(in, b1), (unsigned)pad[0], (unsigned)pad[2], (unsigned)pad[3],
                 (unsigned)pad[1], what, (unsigned)kh, (unsigned)kw, (unsigned)dh, (unsigned)dw,
                 (unsigned long long)oh, (unsigned long long)ow);
  if (out->dims[1] != oh || out->dims[2] != ow)
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "output %u is %s, the input %s and the window give height %llu and width %llu",
                 (unsigned)n->f[fout], tp__xnn_dims_str(out, b1), tp__xnn_dims_str(in, b1 + 40),
                 (unsigned long long)oh, (unsigned long long)ow);
  return TP_OK;
}

/* Pooling: input and output (fields fin, fout) 4-D NHWC with the same batch and channels. */
static tp_status tp__xnn_check_pool_io(const tp__xnn_nview *n, tp_error *err, uint32_t fin,
                                       uint32_t fout) {
  const tp__xnn_value *in = n->v[fin], *out = n->v[fout];
  char b1[80], b2[80];
  if (in->num_dims != 4 || out->num_dims != 4 || out->dims[0] != in->dims[0] ||
      out->dims[3] != in->dims[3])
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "input %u is %s, output %u is %s: both must be 4-D NHWC with the same batch "
                 "and channels",
                 (unsigned)n->f[fin], tp__xnn_dims_str(in, b1), (unsigned)n->f[fout],
                 tp__xnn_dims_str(out, b2));
  return TP_OK;
}

/* TensorFlow SAME padding: the output (field fout) is ceil(input / stride) in height and
   width. */
static tp_status tp__xnn_check_same(const tp__xnn_nview *n, tp_error *err, uint32_t fin,
                                    uint32_t fout, uint32_t sh, uint32_t sw) {
  const tp__xnn_value *in = n->v[fin], *out = n->v[fout];
  uint64_t oh, ow;
  char b1[80];
  if (sh == 0 || sw == 0)
    TP__XNN_FAIL(TP_ERR_INVALID, "stride %u x %u: each must be >= 1", (unsigned)sh,
                 (unsigned)sw);
  oh = ((uint64_t)in->dims[1] + sh - 1) / sh;
  ow = ((uint64_t)in->dims[2] + sw - 1) / sw;
  if (oh == 0 || ow == 0 || out->dims[1] != oh || out->dims[2] != ow)
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "output %u is %s, SAME padding with stride %u x %u gives height %llu and "
                 "width %llu",
                 (unsigned)n->f[fout], tp__xnn_dims_str(out, b1), (unsigned)sh, (unsigned)sw,
                 (unsigned long long)oh, (unsigned long long)ow);
  return TP_OK;
}

/* Notes channel c's scale in v's per-channel range (a NaN counts as the smallest: the rule
   refuses it). The writer notes a filter's scales at define (tp__xnn_qc_range_view), the
   loader the scales it gives XNNPACK. */
static void tp__xnn_qc_note(tp__xnn_value *v, float scale, uint32_t c) {
  if (!v->qc_known || !(scale >= v->qc_min)) {
    v->qc_min = scale;
    v->qc_min_at = c;
  }
  if (!v->qc_known || scale > v->qc_max) {
    v->qc_max = scale;
    v->qc_max_at = c;
  }
  v->qc_known = 1;
}

/* The range of a checked f32 view's n elements in row-major order (the writer at define). */
static void tp__xnn_qc_range_view(tp__xnn_value *v, const tp_tensor *t, uint32_t n) {
  int64_t idx[TP_MAX_DIMS];
  uint32_t c;
  int d;
  memset(idx, 0, sizeof idx);
  v->qc_known = 0;
  for (c = 0; c < n; c++) {
    int64_t off = t->offset;
    float f;
    for (d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    memcpy(&f, (const unsigned char *)t->storage.data + (size_t)off * sizeof f, sizeof f);
    tp__xnn_qc_note(v, f, c);
    for (d = t->ndim - 1; d >= 0; d--) {
      if (++idx[d] < t->sizes[d]) break;
      idx[d] = 0;
    }
  }
}

/* Requantization scale input_scale x filter_scale / output_scale of a quantized FC or
   convolution must lie in [2^-32, 256) (XNNPACK aborts below, refuses above): with per-tensor
   scales, and for a per-channel filter (qcint8 / qcint4) on every channel, i.e. on its
   smallest and its largest channel scale. */
static tp_status tp__xnn_check_requant(const tp__xnn_nview *n, tp_error *err,
                                       const tp__xnn_value *in, const tp__xnn_value *w,
                                       const tp__xnn_value *out) {
  const double lo = 2.3283064365386963e-10, hi = 256.0;
  double s;
  int k;
  if (in->quant != TP_XNN_QUANT_PER_TENSOR || out->quant != TP_XNN_QUANT_PER_TENSOR ||
      !(out->scale > 0.0f))
    return TP_OK;
  if (w->quant == TP_XNN_QUANT_PER_TENSOR) {
    s = (double)in->scale * (double)w->scale / (double)out->scale;
    if (!(s >= lo && s < hi))
      TP__XNN_FAIL(TP_ERR_INVALID, "requantization scale %g x %g / %g = %g is outside [2^-32, 256)",
                   (double)in->scale, (double)w->scale, (double)out->scale, s);
    return TP_OK;
  }
  if (w->quant != TP_XNN_QUANT_PER_CHANNEL || !w->qc_known) return TP_OK;
  for (k = 0; k < 2; k++) {
    float ws = k ? w->qc_max : w->qc_min;
    s = (double)in->scale * (double)ws / (double)out->scale;
    if (!(s >= lo && s < hi))
      TP__XNN_FAIL(TP_ERR_INVALID,
                   "requantization scale %g x %g (filter channel %u) / %g = %g is outside "
                   "[2^-32, 256)",
                   (double)in->scale, (double)ws, (unsigned)(k ? w->qc_max_at : w->qc_min_at),
                   (double)out->scale, s);
  }
  return TP_OK;
}

/* Same datatype for the values of fields fa and fb (element-wise nodes). */
static tp_status tp__xnn_check_same_dt(const tp__xnn_nview *n, tp_error *err, uint32_t fa,
                                       uint32_t fb) {
  const tp__xnn_value *a = n->v[fa], *b = n->v[fb];
  if (a && b && a->datatype != b->datatype)
    TP__XNN_FAIL(TP_ERR_INVALID, "%s %u is %s but %s %u is %s: they must agree",
                 tp__xnn_field_name(n->kind, fa), (unsigned)n->f[fa],
                 tp_xnn_datatype_name(a->datatype), tp__xnn_field_name(n->kind, fb),
                 (unsigned)n->f[fb], tp_xnn_datatype_name(b->datatype));
  return TP_OK;
}

/* Dim i of v counted from the last (0: the last), 1 past its rank: numpy's right alignment. */
static uint32_t tp__xnn_rdim(const tp__xnn_value *v, uint32_t i) {
  return i < v->num_dims ? v->dims[v->num_dims - 1 - i] : 1;
}

/* Numpy broadcasting of a and b over their dims from the last `from` on (batch matrix
   multiply: from 2): 0 when out has the broadcast shape there (and the larger rank); 1 when a
   dim has two extents neither of them 1 (its index from the last in *at); 2 when out differs. */
static int tp__xnn_broadcast(const tp__xnn_value *a, const tp__xnn_value *b, uint32_t from,
                             const tp__xnn_value *out, uint32_t *at) {
  uint32_t nd = a->num_dims > b->num_dims ? a->num_dims : b->num_dims, i;
  int res = out->num_dims == nd ? 0 : 2;
  for (i = from; i < nd; i++) {
    uint32_t d1 = tp__xnn_rdim(a, i), d2 = tp__xnn_rdim(b, i);
    *at = i;
    if (d1 != d2 && d1 != 1 && d2 != 1) return 1;
    if (!res && out->dims[nd - 1 - i] != (d1 == 1 ? d2 : d1)) res = 2;
  }
  return res;
}

/* The id of node kind `kind`'s field named `field`, or -1 (no such field). */
static int tp__xnn_field_id(int kind, const char *field) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  uint32_t f;
  for (f = 0; d && f < d->nfields; f++)
    if (!strcmp(d->fields[f].name, field)) return (int)f;
  return -1;
}

static tp_status tp__xnn_check_node_rules(const tp__xnn_nview *n, int runtime, tp_error *err) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(n->kind);
  int et = runtime == TP_XNN_TARGET_EXECUTORCH;
  char b1[80], b2[80], b3[80];
  uint32_t i;
  switch (n->kind) {
    case TP_XNN_NODE_FULLY_CONNECTED: {
#define TP__F(x) TP__XF(XNNFullyConnected, x)
      const tp__xnn_value *in = n->v[TP__F(input1_id)], *w = n->v[TP__F(filter_id)];
      const tp__xnn_value *b = n->v[TP__F(bias_id)], *out = n->v[TP__F(output_id)];
      uint32_t fl = n->f[TP__F(flags)], wid = n->f[TP__F(filter_id)];
      uint32_t iid = n->f[TP__F(input1_id)], oid = n->f[TP__F(output_id)];
      int tw = (fl & TP_XNN_FLAG_TRANSPOSE_WEIGHTS) != 0;
      uint64_t ic, oc, rows;
      if (w->num_dims != 2)
        TP__XNN_FAIL(TP_ERR_INVALID, "filter %u is %s: it must have 2 dims (%s)", (unsigned)wid,
                     tp__xnn_dims_str(w, b1),
                     tw ? "[input channels, output channels]"
                        : "[output channels, input channels]");
      if (in->num_dims == 0) TP__XNN_FAIL(TP_ERR_INVALID, "input %u has no dims", (unsigned)iid);
      ic = in->dims[in->num_dims - 1];
      rows = ic ? tp__xnn_cnumel(in) / ic : 0;
      if (w->dims[tw ? 0 : 1] != ic)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "filter %u is %s, input %u has %llu channels: the filter's %s dim must be "
                     "%llu (%s)",
                     (unsigned)wid, tp__xnn_dims_str(w, b1), (unsigned)iid,
                     (unsigned long long)ic, tw ? "first" : "last", (unsigned long long)ic,
                     tw ? "pass a transposed view, or drop TP_XNN_FLAG_TRANSPOSE_WEIGHTS"
                        : "pass a transposed view, or TP_XNN_FLAG_TRANSPOSE_WEIGHTS");
      oc = w->dims[tw ? 1 : 0];
      if (b && (b->num_dims != 1 || b->dims[0] != oc))
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "bias %u is %s, the filter %s gives %llu output channels: the bias must be "
                     "[%llu]",
                     (unsigned)n->f[TP__F(bias_id)], tp__xnn_dims_str(b, b1),
                     tp__xnn_dims_str(w, b2), (unsigned long long)oc, (unsigned long long)oc);
      if (out->num_dims == 0 || out->dims[out->num_dims - 1] != oc ||
          (ic && tp__xnn_cnumel(out) != rows * oc))
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "output %u is %s, input %s and filter %s give %llu rows of %llu output "
                     "channels",
                     (unsigned)oid, tp__xnn_dims_str(out, b1), tp__xnn_dims_str(in, b2),
                     tp__xnn_dims_str(w, b3), (unsigned long long)rows, (unsigned long long)oc);
      /* the pinned XNNPACK's output: the input's leading dims, then oc */
      if (et && (out->num_dims != in->num_dims ||
                 memcmp(out->dims, in->dims, (in->num_dims - 1) * sizeof in->dims[0])))
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "output %u is %s, ExecuTorch's XNNPACK makes it the input %s with the last "
                     "dim %llu (same rank); reshape the input or the output (static_reshape)",
                     (unsigned)oid, tp__xnn_dims_str(out, b1), tp__xnn_dims_str(in, b2),
                     (unsigned long long)oc);
      if (tp__xnn_check_requant(n, err, in, w, out) != TP_OK) return err->status;
      /* measured in ExecuTorch's runtime: odd K, several rows: rows after the first wrong */
      if (et && in->datatype == TP_XNN_QDINT8 && w->datatype == TP_XNN_QCINT4 && (ic & 1u) &&
          rows > 1)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "qdint8 input x qcint4 filter %u with %llu (odd) input channels and %llu "
                     "rows: the XNNPACK ExecuTorch pins computes every row after the first "
                     "wrong; pad the input channels to %llu (or tp_xnn_options.target for "
                     "another runtime)",
                     (unsigned)wid, (unsigned long long)ic, (unsigned long long)rows,
                     (unsigned long long)(ic + 1));
      return TP_OK;
#undef TP__F
    }
    case TP_XNN_NODE_CONV2D: case TP_XNN_NODE_DEPTHWISE_CONV2D: case TP_XNN_NODE_DECONV2D: {
#define TP__F(x) TP__XF(_XNNNodeConv, x)
      const tp__xnn_value *in = n->v[TP__F(input1_id)], *w = n->v[TP__F(filter_id)];
      const tp__xnn_value *b = n->v[TP__F(bias_id)], *out = n->v[TP__F(output_id)];
      uint32_t gic = n->f[TP__F(group_input_channels)], goc = n->f[TP__F(group_output_channels)];
      uint32_t groups = n->f[TP__F(groups)], iid = n->f[TP__F(input1_id)];
      uint32_t oid = n->f[TP__F(output_id)];
      uint32_t kh = n->f[TP__F(kernel_height)], kw = n->f[TP__F(kernel_width)];
      uint32_t sh = n->f[TP__F(subsampling_height)], sw = n->f[TP__F(subsampling_width)];
      uint32_t ah = n->f[TP__F(adjustment_height)], aw = n->f[TP__F(adjustment_width)];
      uint64_t ic, oc, w0, w3;
      int dw = n->kind == TP_XNN_NODE_DEPTHWISE_CONV2D, de = n->kind == TP_XNN_NODE_DECONV2D;
      if (groups == 0 || gic == 0 || goc == 0)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "groups %u, group input channels %u, group output channels %u: each must "
                     "be >= 1",
                     (unsigned)groups, (unsigned)gic, (unsigned)goc);
      if (dw) { /* written as upstream: groups = channels, gic 1, goc = depth multiplier */
        ic = groups;
        oc = (uint64_t)groups * (goc / gic);
        w0 = 1;
        w3 = oc;
      } else {
        ic = (uint64_t)groups * gic;
        oc = (uint64_t)groups * goc;
        w0 = oc;
        w3 = gic;
      }
      if (in->num_dims != 4 || out->num_dims != 4)
        TP__XNN_FAIL(TP_ERR_INVALID, "input %u is %s, output %u is %s: both must be 4-D NHWC",
                     (unsigned)iid, tp__xnn_dims_str(in, b1), (unsigned)oid,
                     tp__xnn_dims_str(out, b2));
      if (in->dims[3] != ic)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "input %u is %s: %u groups x %u group input channels need %llu input "
                     "channels",
                     (unsigned)iid, tp__xnn_dims_str(in, b1), (unsigned)groups,
                     (unsigned)(dw ? 1u : gic), (unsigned long long)ic);
      if (w->num_dims != 4 || w->dims[0] != w0 || w->dims[1] != kh || w->dims[2] != kw ||
          w->dims[3] != w3)
        TP__XNN_FAIL(TP_ERR_INVALID, "filter %u is %s, the node needs [%llu, %u, %u, %llu] (%s)",
                     (unsigned)n->f[TP__F(filter_id)], tp__xnn_dims_str(w, b1),
                     (unsigned long long)w0, (unsigned)kh, (unsigned)kw, (unsigned long long)w3,
                     dw ? "1, kernel h, kernel w, channels x multiplier"
                        : "output channels, kernel h, kernel w, group input channels: OHWI");
      if (b && (b->num_dims != 1 || b->dims[0] != oc))
        TP__XNN_FAIL(TP_ERR_INVALID, "bias %u is %s, the node has %llu output channels",
                     (unsigned)n->f[TP__F(bias_id)], tp__xnn_dims_str(b, b1),
                     (unsigned long long)oc);
      if (out->dims[0] != in->dims[0] || out->dims[3] != oc)
        TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s: it must have batch %u and %llu channels",
                     (unsigned)oid, tp__xnn_dims_str(out, b1), (unsigned)in->dims[0],
                     (unsigned long long)oc);
      if (de && (ah >= sh || aw >= sw))
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "adjustment %u x %u, upsampling %u x %u: each adjustment must be smaller "
                     "than its upsampling (XNNPACK refuses it when the node runs)",
                     (unsigned)ah, (unsigned)aw, (unsigned)sh, (unsigned)sw);
      if ((n->f[TP__F(flags)] & TP_XNN_FLAG_TENSORFLOW_SAME_PADDING) && !de) {
        if (tp__xnn_check_same(n, err, TP__F(input1_id), TP__F(output_id), sh, sw) != TP_OK)
          return err->status;
      } else if (tp__xnn_check_window(n, err, "kernel", TP__F(input1_id), TP__F(output_id),
                                      TP__F(padding_top), kh, kw, sh, sw,
                                      n->f[TP__F(dilation_height)], n->f[TP__F(dilation_width)],
                                      de, ah, aw) != TP_OK) {
        return err->status;
      }
      return tp__xnn_check_requant(n, err, in, w, out);
#undef TP__F
    }
    case TP_XNN_NODE_AVG_POOLING_2D: case TP_XNN_NODE_MAX_POOLING_2D: {
#define TP__F(x) TP__XF(_XNNPooling2D, x)
      int avg = n->kind == TP_XNN_NODE_AVG_POOLING_2D;
      uint32_t sh = n->f[TP__F(stride_height)], sw = n->f[TP__F(stride_width)];
      if (tp__xnn_check_pool_io(n, err, TP__F(input_id), TP__F(output_id)) != TP_OK)
        return err->status;
      if (n->f[TP__F(flags)] & TP_XNN_FLAG_TENSORFLOW_SAME_PADDING)
        return tp__xnn_check_same(n, err, TP__F(input_id), TP__F(output_id), sh, sw);
      return tp__xnn_check_window(n, err, "window", TP__F(input_id), TP__F(output_id),
                                  TP__F(padding_top), n->f[TP__F(pooling_height)],
                                  n->f[TP__F(pooling_width)], sh, sw,
                                  avg ? 1u : n->f[TP__F(dilation_height)],
                                  avg ? 1u : n->f[TP__F(dilation_width)], 0, 0, 0);
#undef TP__F
    }
    case TP_XNN_NODE_ARGMAX_POOLING_2D: {
#define TP__F(x) TP__XF(XNNArgMaxPooling2d, x)
      const tp__xnn_value *out = n->v[TP__F(output_value_id)];
      const tp__xnn_value *idx = n->v[TP__F(output_index_id)];
      uint32_t ph = n->f[TP__F(pooling_height)], pw = n->f[TP__F(pooling_width)];
      if (tp__xnn_check_pool_io(n, err, TP__F(input_id), TP__F(output_value_id)) != TP_OK)
        return err->status;
      if (!tp__xnn_same_dims(idx, out))
        TP__XNN_FAIL(TP_ERR_INVALID, "index output %u is %s: it must be %s, the value output's "
                     "shape",
                     (unsigned)n->f[TP__F(output_index_id)], tp__xnn_dims_str(idx, b1),
                     tp__xnn_dims_str(out, b2));
      return tp__xnn_check_window(n, err, "window", TP__F(input_id), TP__F(output_value_id),
                                  TP__F(padding_top), ph, pw, ph ? ph : 1u, pw ? pw : 1u, 1, 1,
                                  0, 0, 0);
#undef TP__F
    }
    case TP_XNN_NODE_GLOBAL_AVG_POOLING_2D: {
#define TP__F(x) TP__XF(_XNNNode1x1, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      uint32_t fl = n->f[TP__F(flags)], oid = n->f[TP__F(output_id)];
      int keep = (fl & TP_XNN_FLAG_KEEP_DIMS) != 0;
      if (in->num_dims != 4)
        TP__XNN_FAIL(TP_ERR_INVALID, "input %u is %s: it must be 4-D NHWC",
                     (unsigned)n->f[TP__F(input_id)], tp__xnn_dims_str(in, b1));
      if (out->num_dims == 4 && out->dims[0] == in->dims[0] && out->dims[1] == 1 &&
          out->dims[2] == 1 && out->dims[3] == in->dims[3]) {
        if (!keep && et)
          TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                       "output %u is %s but flags 0x%x lack TP_XNN_FLAG_KEEP_DIMS: the XNNPACK "
                       "ExecuTorch pins drops the pooled dims and execute fails; set "
                       "TP_XNN_FLAG_KEEP_DIMS (or tp_xnn_options.target for another runtime)",
                       (unsigned)oid, tp__xnn_dims_str(out, b1), (unsigned)fl);
        return TP_OK;
      }
      if (!keep && out->num_dims == 2 && out->dims[0] == in->dims[0] && out->dims[1] == in->dims[3])
        return TP_OK;
      TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s, input %s gives [%u, 1, 1, %u]%s",
                   (unsigned)oid, tp__xnn_dims_str(out, b1), tp__xnn_dims_str(in, b2),
                   (unsigned)in->dims[0], (unsigned)in->dims[3],
                   keep ? " (TP_XNN_FLAG_KEEP_DIMS)" : " (with TP_XNN_FLAG_KEEP_DIMS) or [N, C]");
#undef TP__F
    }
#define TP__F(x) TP__XF(_XNNNode2x1, x) /* the binary kinds, PReLU, batch matrix multiply */
    case TP_XNN_NODE_ADD: case TP_XNN_NODE_SUBTRACT: case TP_XNN_NODE_MULTIPLY:
    case TP_XNN_NODE_DIVIDE: case TP_XNN_NODE_MAXIMUM: case TP_XNN_NODE_MINIMUM: {
      const tp__xnn_value *a = n->v[TP__F(input1_id)], *b = n->v[TP__F(input2_id)];
      const tp__xnn_value *out = n->v[TP__F(output_id)];
      uint32_t aid = n->f[TP__F(input1_id)], bid = n->f[TP__F(input2_id)];
      int bad = tp__xnn_broadcast(a, b, 0, out, &i);
      if (bad == 1)
        TP__XNN_FAIL(TP_ERR_INVALID, "inputs %u %s and %u %s do not broadcast (dim -%u: %u vs %u)",
                     (unsigned)aid, tp__xnn_dims_str(a, b1), (unsigned)bid,
                     tp__xnn_dims_str(b, b2), (unsigned)(i + 1), (unsigned)tp__xnn_rdim(a, i),
                     (unsigned)tp__xnn_rdim(b, i));
      if (bad)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "output %u is %s, inputs %s and %s broadcast to rank %u with other dims",
                     (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                     tp__xnn_dims_str(a, b2), tp__xnn_dims_str(b, b3),
                     (unsigned)(a->num_dims > b->num_dims ? a->num_dims : b->num_dims));
      if (tp__xnn_check_same_dt(n, err, TP__F(input1_id), TP__F(output_id)) != TP_OK)
        return err->status;
      return tp__xnn_check_same_dt(n, err, TP__F(input2_id), TP__F(output_id));
    }
    case TP_XNN_NODE_PRELU: {
      const tp__xnn_value *in = n->v[TP__F(input1_id)], *s = n->v[TP__F(input2_id)];
      const tp__xnn_value *out = n->v[TP__F(output_id)];
      uint32_t iid = n->f[TP__F(input1_id)], sid = n->f[TP__F(input2_id)];
      if (et) { /* the pinned XNNPACK: a binary node, the slope broadcast to the input */
        if (tp__xnn_broadcast(s, in, 0, in, &i))
          TP__XNN_FAIL(TP_ERR_INVALID,
                       "slope %u is %s, input %u is %s: the slope must broadcast to the input "
                       "(each dim 1 or the input's, right-aligned; [1] or [channels])",
                       (unsigned)sid, tp__xnn_dims_str(s, b1), (unsigned)iid,
                       tp__xnn_dims_str(in, b2));
      } else if (!s->const_idx) {
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "slope %u is not a constant: XNNPACK needs the slope's data at definition",
                     (unsigned)sid);
      } else if (in->num_dims == 0 || tp__xnn_cnumel(s) != tp__xnn_rdim(in, 0)) {
        TP__XNN_FAIL(TP_ERR_INVALID, "slope %u is %s, input %u is %s: one slope per channel (%u)",
                     (unsigned)sid, tp__xnn_dims_str(s, b1), (unsigned)iid,
                     tp__xnn_dims_str(in, b2),
                     (unsigned)(in->num_dims ? in->dims[in->num_dims - 1] : 0));
      }
      if (!tp__xnn_same_dims(in, out))
        TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s, the input is %s",
                     (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                     tp__xnn_dims_str(in, b2));
      return TP_OK;
    }
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY: {
      const tp__xnn_value *a = n->v[TP__F(input1_id)], *b = n->v[TP__F(input2_id)];
      const tp__xnn_value *out = n->v[TP__F(output_id)];
      int tb = (n->f[TP__F(flags)] & TP_XNN_FLAG_TRANSPOSE_B) != 0;
      uint32_t m, k, k2, nn, nd;
      if (a->num_dims < 2 || b->num_dims < 2)
        TP__XNN_FAIL(TP_ERR_INVALID, "inputs %s and %s: both need at least 2 dims",
                     tp__xnn_dims_str(a, b1), tp__xnn_dims_str(b, b2));
      m = tp__xnn_rdim(a, 1);
      k = tp__xnn_rdim(a, 0);
      k2 = tp__xnn_rdim(b, tb ? 0 : 1);
      nn = tp__xnn_rdim(b, tb ? 1 : 0);
      if (k != k2)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "input1 %u is %s, input2 %u is %s: inner dims %u and %u differ%s",
                     (unsigned)n->f[TP__F(input1_id)], tp__xnn_dims_str(a, b1),
                     (unsigned)n->f[TP__F(input2_id)], tp__xnn_dims_str(b, b2), (unsigned)k,
                     (unsigned)k2,
                     tb ? " (TP_XNN_FLAG_TRANSPOSE_B: input2 is [.., N, K])"
                        : " (input2 is [.., K, N]; TP_XNN_FLAG_TRANSPOSE_B takes [.., N, K])");
      nd = a->num_dims > b->num_dims ? a->num_dims : b->num_dims;
      if (tp__xnn_broadcast(a, b, 2, out, &i) || out->dims[nd - 2] != m ||
          out->dims[nd - 1] != nn)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "output %u is %s, inputs %s and %s give [.., %u, %u] of rank %u",
                     (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                     tp__xnn_dims_str(a, b2), tp__xnn_dims_str(b, b3), (unsigned)m,
                     (unsigned)nn, (unsigned)nd);
      return TP_OK;
    }
#undef TP__F
    case TP_XNN_NODE_STATIC_TRANSPOSE: {
#define TP__F(x) TP__XF(XNNStaticTranspose, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      uint32_t seen = 0, nd = n->vlen[0];
      if (nd != in->num_dims || n->f[TP__F(num_dims)] != nd || out->num_dims != nd)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "perm has %u entries (num_dims %u), input %s, output %s: all must have the "
                     "same rank",
                     (unsigned)nd, (unsigned)n->f[TP__F(num_dims)], tp__xnn_dims_str(in, b1),
                     tp__xnn_dims_str(out, b2));
      for (i = 0; i < nd; i++) {
        uint32_t p = n->vec[0][i];
        if (p >= nd || (seen & (1u << p)))
          TP__XNN_FAIL(TP_ERR_INVALID, "perm entry %u is %u: not a permutation of 0..%u",
                       (unsigned)i, (unsigned)p, (unsigned)(nd ? nd - 1 : 0));
        seen |= 1u << p;
        if (out->dims[i] != in->dims[p])
          TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s: dim %u must be input dim %u (%u) of %s",
                       (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                       (unsigned)i, (unsigned)p, (unsigned)in->dims[p], tp__xnn_dims_str(in, b2));
      }
      return tp__xnn_check_same_dt(n, err, TP__F(input_id), TP__F(output_id));
#undef TP__F
    }
    case TP_XNN_NODE_STATIC_RESHAPE: {
#define TP__F(x) TP__XF(XNNStaticReshape, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      uint64_t want = 1;
      int infer = 0;
      for (i = 0; i < n->vlen[0]; i++) {
        if (n->vec[0][i] == 0) infer++; /* XNNPACK infers a 0 entry */
        else want *= n->vec[0][i];
      }
      if (et && infer > 1)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "new shape has %u entries 0 (inferred): ExecuTorch's XNNPACK infers at "
                     "most one and fails at execute; give the others",
                     (unsigned)infer);
      if (et && out->num_dims == n->vlen[0]) /* its output: new_shape, the 0 inferred */
        for (i = 0; i < n->vlen[0]; i++)
          if (n->vec[0][i] != 0 && n->vec[0][i] != out->dims[i])
            TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                         "output %u is %s but new shape entry %u is %u: ExecuTorch's XNNPACK "
                         "gives the output the new shape; make them agree",
                         (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                         (unsigned)i, (unsigned)n->vec[0][i]);
      if (tp__xnn_cnumel(out) != tp__xnn_cnumel(in) || (!infer && want != tp__xnn_cnumel(in)) ||
          out->num_dims != n->vlen[0])
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "input %u is %s (%llu elements), new shape has %u dims and %llu elements, "
                     "output %u is %s",
                     (unsigned)n->f[TP__F(input_id)], tp__xnn_dims_str(in, b1),
                     (unsigned long long)tp__xnn_cnumel(in), (unsigned)n->vlen[0],
                     (unsigned long long)want, (unsigned)n->f[TP__F(output_id)],
                     tp__xnn_dims_str(out, b2));
      return tp__xnn_check_same_dt(n, err, TP__F(input_id), TP__F(output_id));
#undef TP__F
    }
    case TP_XNN_NODE_STATIC_SLICE: {
#define TP__F(x) TP__XF(XNNStaticSlice, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      uint32_t nd = n->vlen[0];
      if (nd != in->num_dims || n->vlen[1] != nd || out->num_dims != nd)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "%u offsets, %u sizes, input %s, output %s: all must have the input's rank",
                     (unsigned)nd, (unsigned)n->vlen[1], tp__xnn_dims_str(in, b1),
                     tp__xnn_dims_str(out, b2));
      for (i = 0; i < nd; i++) {
        uint64_t off = n->vec[0][i], sz = n->vec[1][i];
        if (et && sz == 0 && off != 0) { /* the pinned XNNPACK: end = offset + size; end 0
                                            only means "to the end": here an empty dim */
          if (off <= in->dims[i] && out->dims[i] == 0) continue;
          TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                       "dim %u: offset %llu with size 0 in an input dim of %u, output dim %u: "
                       "ExecuTorch's XNNPACK reads size 0 as \"to the end\" only at offset 0 "
                       "(here: an empty dim, output dim 0); give the size (%llu)",
                       (unsigned)i, (unsigned long long)off, (unsigned)in->dims[i],
                       (unsigned)out->dims[i],
                       (unsigned long long)(in->dims[i] > off ? in->dims[i] - off : 0));
        }
        if (sz == 0) sz = in->dims[i] > off ? in->dims[i] - off : 0; /* 0 = to the end */
        if (off + sz > in->dims[i] || out->dims[i] != sz || (sz == 0 && !(et && in->dims[i] == 0)))
          TP__XNN_FAIL(TP_ERR_INVALID,
                       "dim %u: offset %llu + size %llu in an input dim of %u, output dim %u",
                       (unsigned)i, (unsigned long long)off, (unsigned long long)sz,
                       (unsigned)in->dims[i], (unsigned)out->dims[i]);
      }
      return tp__xnn_check_same_dt(n, err, TP__F(input_id), TP__F(output_id));
#undef TP__F
    }
    case TP_XNN_NODE_STATIC_CONSTANT_PAD: {
#define TP__F(x) TP__XF(XNNStaticConstantPad, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      if (n->vlen[0] != in->num_dims || n->vlen[1] != in->num_dims || out->num_dims != in->num_dims)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "%u pre and %u post paddings, input %s, output %s: all must have the "
                     "input's rank",
                     (unsigned)n->vlen[0], (unsigned)n->vlen[1], tp__xnn_dims_str(in, b1),
                     tp__xnn_dims_str(out, b2));
      for (i = 0; i < in->num_dims; i++)
        if ((uint64_t)out->dims[i] != (uint64_t)in->dims[i] + n->vec[0][i] + n->vec[1][i])
          TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s: dim %u must be %u + %u + %u",
                       (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1), (unsigned)i,
                       (unsigned)n->vec[0][i], (unsigned)in->dims[i], (unsigned)n->vec[1][i]);
      return tp__xnn_check_same_dt(n, err, TP__F(input_id), TP__F(output_id));
#undef TP__F
    }
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D: {
#define TP__F(x) TP__XF(XNNStaticResizeBilinear2D, x)
      const tp__xnn_value *in = n->v[TP__F(input_id)], *out = n->v[TP__F(output_id)];
      uint32_t nh = n->f[TP__F(new_height)], nw = n->f[TP__F(new_width)];
      if (in->num_dims != 4 || out->num_dims != 4 || out->dims[0] != in->dims[0] ||
          out->dims[3] != in->dims[3] || out->dims[1] != nh || out->dims[2] != nw)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "input %u is %s, output %u is %s: the output must be [batch, %u, %u, "
                     "channels] (NHWC)",
                     (unsigned)n->f[TP__F(input_id)], tp__xnn_dims_str(in, b1),
                     (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b2), (unsigned)nh,
                     (unsigned)nw);
      return TP_OK;
#undef TP__F
    }
    case TP_XNN_NODE_CONCATENATE2: case TP_XNN_NODE_CONCATENATE3: case TP_XNN_NODE_CONCATENATE4:
    case TP_XNN_NODE_CONCATENATE5: {
#define TP__F(x) TP__XF(_XNNCat, x)
      static const int ins[5] = {TP__F(input1_id), TP__F(input2_id), TP__F(input3_id),
                                 TP__F(input4_id), TP__F(input5_id)};
      const tp__xnn_value *out = n->v[TP__F(output_id)];
      uint32_t axis = n->f[TP__F(axis)], k, nin;
      uint64_t sum = 0;
      nin = n->kind == TP_XNN_NODE_CONCATENATE2 ? 2 : n->kind == TP_XNN_NODE_CONCATENATE3 ? 3
            : n->kind == TP_XNN_NODE_CONCATENATE4 ? 4 : 5;
      if (axis >= out->num_dims)
        TP__XNN_FAIL(TP_ERR_INVALID, "axis %u, output %s has %u dims", (unsigned)axis,
                     tp__xnn_dims_str(out, b1), (unsigned)out->num_dims);
      for (k = 0; k < nin; k++) {
        const tp__xnn_value *in = n->v[ins[k]];
        int ok = in && in->num_dims == out->num_dims;
        for (i = 0; ok && i < out->num_dims; i++)
          if (i != axis && in->dims[i] != out->dims[i]) ok = 0;
        if (!ok)
          TP__XNN_FAIL(TP_ERR_INVALID,
                       "input %u (value %u) is %s, output %s: dims other than axis %u must agree",
                       (unsigned)(k + 1), (unsigned)n->f[ins[k]],
                       in ? tp__xnn_dims_str(in, b1) : "none", tp__xnn_dims_str(out, b2),
                       (unsigned)axis);
        sum += in->dims[axis];
        if (tp__xnn_check_same_dt(n, err, (uint32_t)ins[k], TP__F(output_id)) != TP_OK)
          return err->status;
      }
      if (sum != out->dims[axis])
        TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s: dim %u must be %llu, the inputs' sum",
                     (unsigned)n->f[TP__F(output_id)], tp__xnn_dims_str(out, b1),
                     (unsigned)axis, (unsigned long long)sum);
      return TP_OK;
#undef TP__F
    }
    case TP_XNN_NODE_SCALED_DOT_PRODUCT_ATTENTION:
      if (et) /* no argument past the prefix's: TP__XNN_FAIL needs one */
        return tp__error_set(err, TP_ERR_UNSUPPORTED,
                             "%s #%u: ExecuTorch's runtime has no scaled-dot-product attention "
                             "(its compiler refuses the node); build it from "
                             "batch_matrix_multiply, softmax and multiply (or "
                             "tp_xnn_options.target for another runtime)",
                             tp_xnn_node_name(n->kind), n->index);
      return TP_OK;
    default: { /* element-wise: the one-input one-output kinds (shape 1x1*: ELU, LeakyReLU too) */
      int fi = tp__xnn_field_id(n->kind, "input_id"), fo = tp__xnn_field_id(n->kind, "output_id");
      const tp__xnn_value *in, *out;
      if (strncmp(d->shape, "1x1", 3) != 0 || fi < 0 || fo < 0) return TP_OK;
      in = n->v[fi];
      out = n->v[fo];
      if (!tp__xnn_same_dims(in, out))
        TP__XNN_FAIL(TP_ERR_INVALID, "output %u is %s, input %u is %s: they must agree",
                     (unsigned)n->f[fo], tp__xnn_dims_str(out, b1), (unsigned)n->f[fi],
                     tp__xnn_dims_str(in, b2));
      if (n->kind == TP_XNN_NODE_SOFTMAX && in->num_dims == 0)
        TP__XNN_FAIL(TP_ERR_INVALID, "input %u has no dims", (unsigned)n->f[fi]);
      if (n->kind == TP_XNN_NODE_SOFTMAX && in->dims[in->num_dims - 1] == 0)
        TP__XNN_FAIL(TP_ERR_INVALID,
                     "input %u is %s: XNNPACK's softmax needs at least one channel (the last "
                     "dim; src/operators/softmax-nc.c refuses 0 when the node runs)",
                     (unsigned)n->f[fi], tp__xnn_dims_str(in, b1));
      if (n->kind == TP_XNN_NODE_CONVERT) {
        if (!et && in->datatype == out->datatype && /* ExecuTorch's XNNPACK copies them */
            (in->quant != TP_XNN_QUANT_PER_TENSOR || in->scale == out->scale))
          TP__XNN_FAIL(TP_ERR_INVALID, "input %u and output %u are both %s: nothing to convert",
                       (unsigned)n->f[fi], (unsigned)n->f[fo],
                       tp_xnn_datatype_name(in->datatype));
        return TP_OK;
      }
      if (et && ((in->datatype == TP_XNN_BF16 && out->datatype == TP_XNN_FP32) ||
                 (in->datatype == TP_XNN_FP32 && out->datatype == TP_XNN_BF16)))
        return TP_OK; /* the support rows say which kinds the runtime lowers to fp32 */
      return tp__xnn_check_same_dt(n, err, (uint32_t)fi, (uint32_t)fo);
    }
  }
}

/* The value of the node's field named `field` (NULL: none, or no such field), its id in *id. */
static const tp__xnn_value *tp__xnn_field_value(const tp__xnn_nview *n, const char *field,
                                                uint32_t *id) {
  int f = tp__xnn_field_id(n->kind, field);
  if (f >= 0 && id) *id = n->f[f];
  return f >= 0 ? n->v[f] : NULL;
}

/* The support table's slots of a node kind as field ids (-1: the kind has none), by name. */
static void tp__xnn_support_slots(int kind, int slot[4]) {
  static const char *const names[4][3] = {{"input_id", "input1_id", NULL},
                                          {"input2_id", "filter_id", "output_index_id"},
                                          {"bias_id", NULL, NULL},
                                          {"output_id", "output_value_id", NULL}};
  int k, j;
  for (k = 0; k < 4; k++)
    for (slot[k] = -1, j = 0; slot[k] < 0 && j < 3 && names[k][j]; j++)
      slot[k] = tp__xnn_field_id(kind, names[k][j]);
}

/* Appends text to buf (cap bytes) at *n when all of it fits; else "..." once (then nothing). */
static void tp__xnn_sup_cat(char *buf, size_t cap, size_t *n, const char *text) {
  size_t len = strlen(text);
  if (*n >= cap) return;
  if (*n + len + 4 > cap) {
    memcpy(buf + *n, "...", 4);
    *n = cap;
    return;
  }
  memcpy(buf + *n, text, len + 1);
  *n += len;
}

/* Appends "<sep><field without its _id> <what>" (tp__xnn_sup_cat): "filter qcint4". */
static void tp__xnn_sup_item(char *buf, size_t cap, size_t *n, const char *sep,
                             const char *field, const char *what) {
  char one[24];
  size_t fl = strlen(field) - 3; /* every slot field ends in "_id" */
  if (fl > 20) fl = 20;
  memcpy(one, field, fl);
  one[fl] = 0;
  tp__xnn_sup_cat(buf, cap, n, sep);
  tp__xnn_sup_cat(buf, cap, n, one);
  tp__xnn_sup_cat(buf, cap, n, " ");
  tp__xnn_sup_cat(buf, cap, n, what);
}

/* Target 0: the node's datatypes must match a row of TP_XNN_NODE_SUPPORT for its kind. The
   sentence: the node's datatypes, then the rows for its input datatype (as many as fit). */
static tp_status tp__xnn_check_support(const tp__xnn_nview *n, tp_error *err) {
  static const char head[] = ": : no operator in ExecuTorch's XNNPACK; with a  input it has  "
                             "#4294967295";
  const tp_xnn_node_desc *d = tp_xnn_describe_node(n->kind);
  const char *name = tp_xnn_node_name(n->kind);
  uint32_t dt[4], i, nrows, ins = 0;
  const tp_xnn_support *rows = tp_xnn_node_support(&nrows);
  int slot[4], k, any = 0;
  char have[100], sup[TP_ERROR_MAX], row[160], m[64];
  size_t nh = 0, ns = 0, cap;
  tp__xnn_support_slots(n->kind, slot);
  for (k = 0; k < 4; k++) {
    const tp__xnn_value *v = slot[k] >= 0 ? n->v[slot[k]] : NULL;
    dt[k] = v && v->datatype > 0 && v->datatype < 32 ? (uint32_t)v->datatype : 0;
  }
  for (i = 0; i < nrows; i++)
    if (rows[i].kind == n->kind && (rows[i].input >> dt[0] & 1u) &&
        (rows[i].second >> dt[1] & 1u) && (rows[i].bias >> dt[2] & 1u) &&
        (rows[i].output >> dt[3] & 1u))
      return TP_OK;
  have[0] = sup[0] = 0;
  for (k = 0; k < 4; k++) /* "input1 qdint8, filter qcint4, bias fp16, output fp32" */
    if (slot[k] >= 0 && n->v[slot[k]])
      tp__xnn_sup_item(have, sizeof have, &nh, nh ? ", " : "", d->fields[slot[k]].name,
                       tp_xnn_datatype_name((int)dt[k]));
  cap = strlen(name) + nh + sizeof head + 8 < TP_ERROR_MAX
            ? TP_ERROR_MAX - (strlen(name) + nh + sizeof head + 8)
            : 4;
  for (i = 0; i < nrows; i++) { /* the rows for this input datatype: "filter a|b, bias c" */
    size_t nr = 0;
    if (rows[i].kind != n->kind) continue;
    ins |= rows[i].input;
    if (!(rows[i].input >> dt[0] & 1u)) continue;
    row[0] = 0;
    tp__xnn_sup_cat(row, sizeof row, &nr, any++ ? "; " : "");
    for (k = 1; k < 4; k++) {
      uint32_t mask = k == 1 ? rows[i].second : k == 2 ? rows[i].bias : rows[i].output;
      const char *f = slot[k] < 0 ? NULL : d->fields[slot[k]].name;
      if (f)
        tp__xnn_sup_item(row, sizeof row, &nr, nr > 2 ? ", " : "",
                         strcmp(f, "output_index_id") ? f : "index_id",
                         tp_xnn_support_mask_str(mask, m, sizeof m));
    }
    tp__xnn_sup_cat(sup, cap, &ns, row);
  }
  if (!any) { /* no row for this input datatype: the inputs the kind takes */
    tp__xnn_sup_cat(sup, cap, &ns, ins ? tp_xnn_support_mask_str(ins, m, sizeof m) : "none");
    TP__XNN_FAIL(TP_ERR_UNSUPPORTED, "%s: no operator in ExecuTorch's XNNPACK; its inputs are %s",
                 have, sup);
  }
  TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
               "%s: no operator in ExecuTorch's XNNPACK; with a %s input it has %s", have,
               tp_xnn_datatype_name((int)dt[0]), sup);
}

/* Target 0: the kinds the pinned XNNPACK defines with
   xnn_subgraph_check_quantization_parameter_matches (they move bytes: reshape, transpose,
   slice, copy, concatenate, constant pad, max pooling, bilinear resize; a clamp with two
   infinite bounds, which it turns into a copy) need every qint8 / quint8 input's scale and zero
   point equal to the output's (the inputs: every field of role input; these kinds have no
   filter or bias). */
static tp_status tp__xnn_check_same_quant(const tp__xnn_nview *n, tp_error *err) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(n->kind);
  const tp__xnn_value *out;
  uint32_t f, oid = 0;
  switch (n->kind) {
    case TP_XNN_NODE_STATIC_RESHAPE: case TP_XNN_NODE_STATIC_TRANSPOSE:
    case TP_XNN_NODE_STATIC_SLICE: case TP_XNN_NODE_COPY: case TP_XNN_NODE_CONCATENATE2:
    case TP_XNN_NODE_CONCATENATE3: case TP_XNN_NODE_CONCATENATE4: case TP_XNN_NODE_CONCATENATE5:
    case TP_XNN_NODE_STATIC_CONSTANT_PAD: case TP_XNN_NODE_MAX_POOLING_2D:
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D: break;
    case TP_XNN_NODE_CLAMP: /* two infinite bounds: XNNPACK makes it a copy */
      if (n->out_min - n->out_min == 0.0f || n->out_max - n->out_max == 0.0f) return TP_OK;
      break;
    default: return TP_OK;
  }
  out = tp__xnn_field_value(n, "output_id", &oid);
  if (!out || out->quant != TP_XNN_QUANT_PER_TENSOR ||
      (out->datatype != TP_XNN_QINT8 && out->datatype != TP_XNN_QUINT8))
    return TP_OK;
  for (f = 0; f < d->nfields; f++) {
    const tp__xnn_value *in = n->v[f];
    if (!in || d->fields[f].role != 'i') continue;
    if (in->quant == TP_XNN_QUANT_PER_TENSOR &&
        (in->scale != out->scale || in->zero_point != out->zero_point))
      TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                   "input %u has scale %g and zero point %d, output %u scale %g and zero point "
                   "%d: ExecuTorch's XNNPACK needs them equal here (the node moves bytes); "
                   "requantize with a convert node",
                   (unsigned)n->f[f], (double)in->scale, (int)in->zero_point, (unsigned)oid,
                   (double)out->scale, (int)out->zero_point);
  }
  return TP_OK;
}

/* The pinned XNNPACK's own define checks that the kind rules above do not make (every runtime
   target): a qint8 filter (convolutions, fully connected) or second batch-matrix-multiply
   input needs zero point 0 (XNNPACK's signed 8-bit kernels are symmetric: the define refuses
   it, and deconvolution computes with the zero point ignored); TensorFlow SAME padding and
   explicit paddings exclude each other (convolutions and pooling). */
static tp_status tp__xnn_check_define_rules(const tp__xnn_nview *n, tp_error *err) {
  const char *slot = "filter";
  const tp__xnn_value *w;
  uint32_t wid = 0, pad0 = 0, fl = 0;
  int padded = 0;
  switch (n->kind) {
    case TP_XNN_NODE_CONV2D: case TP_XNN_NODE_DEPTHWISE_CONV2D: case TP_XNN_NODE_DECONV2D:
      pad0 = TP__XF(_XNNNodeConv, padding_top);
      fl = n->f[TP__XF(_XNNNodeConv, flags)];
      padded = n->kind != TP_XNN_NODE_DECONV2D;
      /* fall through */
    case TP_XNN_NODE_FULLY_CONNECTED:
      w = tp__xnn_field_value(n, "filter_id", &wid);
      break;
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY:
      w = tp__xnn_field_value(n, "input2_id", &wid);
      slot = "input2";
      break;
    case TP_XNN_NODE_AVG_POOLING_2D: case TP_XNN_NODE_MAX_POOLING_2D:
      w = NULL;
      pad0 = TP__XF(_XNNPooling2D, padding_top);
      fl = n->f[TP__XF(_XNNPooling2D, flags)];
      padded = 1;
      break;
    default: return TP_OK;
  }
  if (w && w->datatype == TP_XNN_QINT8 && w->zero_point != 0)
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "%s %u is qint8 with zero point %d: XNNPACK's signed 8-bit weights are "
                 "symmetric; requantize them with zero point 0, or use quint8",
                 slot, (unsigned)wid, (int)w->zero_point);
  if (padded && (fl & TP_XNN_FLAG_TENSORFLOW_SAME_PADDING) &&
      (n->f[pad0] | n->f[pad0 + 1] | n->f[pad0 + 2] | n->f[pad0 + 3]))
    TP__XNN_FAIL(TP_ERR_INVALID,
                 "TP_XNN_FLAG_TENSORFLOW_SAME_PADDING with explicit paddings %u/%u/%u/%u "
                 "(top/right/bottom/left): XNNPACK refuses the two together; drop the flag or "
                 "the paddings",
                 (unsigned)n->f[pad0], (unsigned)n->f[pad0 + 1], (unsigned)n->f[pad0 + 2],
                 (unsigned)n->f[pad0 + 3]);
  return TP_OK;
}

/* Target 0, pooling (input and output at fields fin, fout; paddings top, right, bottom, left
   at fpad .. fpad + 3, or with `same` XNNPACK's SAME padding): an output whose window has no
   tap inside the input (wholly in the padding) - ExecuTorch's XNNPACK clamps the taps to the
   border and pools border pixels there. */
static tp_status tp__xnn_check_pool_taps(const tp__xnn_nview *n, tp_error *err, uint32_t fin,
                                         uint32_t fout, uint32_t fpad, uint32_t kh, uint32_t kw,
                                         uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw,
                                         int same) {
  int h;
  for (h = 0; h < 2; h++) { /* h 0: height (top, bottom), 1: width (left, right) */
    uint64_t k = h ? kw : kh, st = h ? sw : sh, dl = h ? dw : dh, o, j;
    uint64_t len = n->v[fin]->dims[1 + h], no = n->v[fout]->dims[1 + h];
    uint64_t pa = n->f[fpad + (h ? 3 : 0)], pb = n->f[fpad + (h ? 1 : 2)];
    if (same) { /* XNNPACK's SAME: the total padding, the smaller half first */
      uint64_t need = no ? (no - 1) * st + (k - 1) * dl + 1 : 0;
      pa = need > len ? (need - len) / 2 : 0;
      pb = need > len ? need - len - pa : 0;
    }
    for (o = 0; o < no; o++) {
      int inside = 0;
      for (j = 0; j < k && !inside; j++) {
        uint64_t tap = o * st + j * dl;
        if (tap >= pa && tap - pa < len) inside = 1;
      }
      if (!inside)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "output %s %llu pools a window wholly in the padding (%llu before, %llu "
                     "after an input %s of %llu): ExecuTorch's XNNPACK gives it border pixels "
                     "(PyTorch refuses such padding); pad less than the window",
                     h ? "column" : "row", (unsigned long long)o, (unsigned long long)pa,
                     (unsigned long long)pb, h ? "width" : "height", (unsigned long long)len);
    }
  }
  return TP_OK;
}
/* Target 0: what ExecuTorch's runtime (the XNNPACK it pins) runs differently from the node's
   meaning, found by running random graphs in it (tools/et-diff.sh; tests/README.md):
   - an int32 output's bounds (a clamp node, or a binary node's output_min / output_max when one
     is finite) become int32 by truncation toward zero, one beyond int32 (infinity too)
     INT32_MIN: a max of +infinity clamps everything to INT32_MIN, a fractional positive min or
     negative max is off by one; an int32 maximum with a one-element constant becomes such a
     clamp;
   - argmax pooling's indices count the clamped border pixels of a padded window as window
     positions, in column-major window order: top or left padding puts them before the real
     pixels, and the index of the first maximum points into the padding;
   - a pooling window wholly in the padding gets the nearest border pixels (it has no input;
     PyTorch refuses such paddings);
   - an fp32 input with a qcint8 / qcint4 filter (weights-only quantization) multiplies the bias
     by each channel's filter scale;
   - a qcint4 filter with TP_XNN_FLAG_TRANSPOSE_WEIGHTS ([in, out], 4-bit pairs along out) is
     packed as if the pairs ran along the input channels; a 1 x 1 qcint4 filter crashes it;
   - a qcint8 second input of batch matrix multiply with batch dims: XNNPACK reads one scale per
     batch and column, the value has one per column;
   - a qdint8 convolution / deconvolution input is quantized per batch image: its
     num_nonbatch_dims must be 3 (a 1x1 convolution of stride 1, no padding and one group,
     which XNNPACK makes a fully connected, takes any);
   - a constant in the blob (not a named .ptd entry) that a node reads when it runs is freed
     memory by then: ExecuTorch frees the blob after init (the exceptions: below). */
/* Whether XNNPACK packs node kind `kind`'s input field f (a field id) into a buffer of its own
   when the runtime is created: the filter and bias of fully connected and the convolutions,
   batch matrix multiply's second input. */
static int tp__xnn_packed_at_create(int kind, uint32_t f) {
  switch (kind) {
    case TP_XNN_NODE_FULLY_CONNECTED:
      return f == TP__XF(XNNFullyConnected, filter_id) || f == TP__XF(XNNFullyConnected, bias_id);
    case TP_XNN_NODE_CONV2D: case TP_XNN_NODE_DEPTHWISE_CONV2D: case TP_XNN_NODE_DECONV2D:
      return f == TP__XF(_XNNNodeConv, filter_id) || f == TP__XF(_XNNNodeConv, bias_id);
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY: return f == TP__XF(_XNNNode2x1, input2_id);
    default: return 0;
  }
}

static tp_status tp__xnn_check_et_semantics(const tp__xnn_nview *n, tp_error *err) {
  const char *name = tp_xnn_node_name(n->kind);
  char b1[80];
  uint32_t oid = 0, iid = 0, wid = 0, bid = 0;
  const tp__xnn_value *res = tp__xnn_field_value(n, "output_id", &oid);
  if (res && res->datatype == TP_XNN_INT32 && n->has_minmax &&
      (n->out_min - n->out_min == 0.0f || n->out_max - n->out_max == 0.0f)) {
    /* a finite bound clamps (two infinite ones: no clamp, a clamp node becomes a copy) */
    /* int32(bound): toward zero; beyond int32 (infinity included) -2^31. Right for the
       integers in [ceil(min), floor(max)] when min <= 0 or whole (or below -2^31) and
       max >= 0 or whole, max < 2^31. */
    float lo = n->out_min, hi = n->out_max;
    int lo_ok = lo <= -2147483648.0f ||
                (lo < 2147483648.0f && (lo <= 0.0f || (float)(int32_t)lo == lo));
    int hi_ok = hi > -2147483648.0f && hi < 2147483648.0f &&
                (hi >= 0.0f || (float)(int32_t)hi == hi);
    if (!lo_ok || !hi_ok)
      TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                   "output %u is int32 with output %s %g: ExecuTorch's XNNPACK truncates int32 "
                   "bounds toward zero, infinity to -2^31; give a max below 2^31, and whole "
                   "numbers for a positive min or a negative max",
                   (unsigned)oid, lo_ok ? "max" : "min", (double)(lo_ok ? hi : lo));
  }
  if (n->kind == TP_XNN_NODE_MAXIMUM && res && res->datatype == TP_XNN_INT32) {
    /* XNNPACK rewrites max(x, a one-element constant of rank <= x's) as clamp(x, c, +inf) */
    const tp__xnn_value *a = n->v[TP__XF(_XNNNode2x1, input1_id)];
    const tp__xnn_value *c = n->v[TP__XF(_XNNNode2x1, input2_id)];
    int k;
    for (k = 0; k < 2; k++, a = c, c = n->v[TP__XF(_XNNNode2x1, input1_id)])
      if (c->const_idx && tp__xnn_cnumel(c) == 1 && c->num_dims <= a->num_dims)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "int32 input %u is a one-element constant: ExecuTorch's XNNPACK makes the "
                     "node a clamp to +infinity, which int32 turns into -2^31; give the "
                     "constant the other input's shape",
                     (unsigned)n->f[k ? TP__XF(_XNNNode2x1, input1_id)
                                      : TP__XF(_XNNNode2x1, input2_id)]);
  }
  {
    /* ExecuTorch frees the delegate blob once the runtime is created (XNNPACKBackend.cpp:
       processed->Free()). XNNPACK copies a constant at create only where it packs it
       (tp__xnn_packed_at_create) or folds it into parameters: a one-element constant of
       maximum / minimum (rank <= the other input's, which is not constant) becomes a clamp.
       Every other node reads its input's data when it runs, so an inline constant there is
       freed memory (a named one, from the .ptd, ExecuTorch keeps: XNNCompiler.cpp's
       unpacked_buffers_). An empty constant reads nothing; a bf16 constant of a binary node the
       runtime converts to fp32 in a buffer of its own at create (cvt_to_fp32.cc; 21 of 21 such
       random graphs ran right with free() poisoned). */
    const tp_xnn_node_desc *d = tp_xnn_describe_node(n->kind);
    uint32_t f;
    for (f = 0; d && f < d->nfields; f++) {
      const tp__xnn_value *c = n->v[d->fields[f].id], *o = NULL;
      if (!c || !c->const_idx || c->const_named || !tp__xnn_cnumel(c) ||
          d->fields[f].role != 'i' || tp__xnn_packed_at_create(n->kind, f))
        continue;
      if (c->datatype == TP_XNN_BF16 &&
          (n->kind == TP_XNN_NODE_ADD || n->kind == TP_XNN_NODE_SUBTRACT ||
           n->kind == TP_XNN_NODE_MULTIPLY || n->kind == TP_XNN_NODE_DIVIDE ||
           n->kind == TP_XNN_NODE_MINIMUM || n->kind == TP_XNN_NODE_MAXIMUM))
        continue;
      if (n->kind == TP_XNN_NODE_MAXIMUM || n->kind == TP_XNN_NODE_MINIMUM)
        o = n->v[f == TP__XF(_XNNNode2x1, input1_id) ? TP__XF(_XNNNode2x1, input2_id)
                                                     : TP__XF(_XNNNode2x1, input1_id)];
      if (o && !o->const_idx && tp__xnn_cnumel(c) == 1 && c->num_dims <= o->num_dims) continue;
      TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                   "input %u is a constant in the blob: ExecuTorch frees the blob after init; "
                   "%s reads it at execute; make it a graph input, or keep it in a .ptd "
                   "(tp_xnn_options.store)",
                   (unsigned)n->f[d->fields[f].id], name);
    }
  }
  switch (n->kind) {
    case TP_XNN_NODE_ARGMAX_POOLING_2D: {
#define TP__F(x) TP__XF(XNNArgMaxPooling2d, x)
      uint32_t pt = n->f[TP__F(padding_top)], pl = n->f[TP__F(padding_left)];
      uint32_t kh = n->f[TP__F(pooling_height)], kw = n->f[TP__F(pooling_width)];
      if (pt | pl)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "top / left padding %u / %u: ExecuTorch's XNNPACK counts the clamped "
                     "border pixels before the real ones, so the indices are wrong; pad only "
                     "the bottom and right, or pad the input with static_constant_pad",
                     (unsigned)pt, (unsigned)pl);
      return tp__xnn_check_pool_taps(n, err, TP__F(input_id), TP__F(output_value_id),
                                     TP__F(padding_top), kh, kw, kh, kw, 1, 1, 0);
#undef TP__F
    }
    case TP_XNN_NODE_AVG_POOLING_2D: case TP_XNN_NODE_MAX_POOLING_2D: {
#define TP__F(x) TP__XF(_XNNPooling2D, x)
      int mx = n->kind == TP_XNN_NODE_MAX_POOLING_2D;
      int same = (n->f[TP__F(flags)] & TP_XNN_FLAG_TENSORFLOW_SAME_PADDING) != 0;
      return tp__xnn_check_pool_taps(n, err, TP__F(input_id), TP__F(output_id),
                                     TP__F(padding_top), n->f[TP__F(pooling_height)],
                                     n->f[TP__F(pooling_width)], n->f[TP__F(stride_height)],
                                     n->f[TP__F(stride_width)],
                                     mx ? n->f[TP__F(dilation_height)] : 1u,
                                     mx ? n->f[TP__F(dilation_width)] : 1u, same);
#undef TP__F
    }
    case TP_XNN_NODE_FULLY_CONNECTED: {
      const tp__xnn_value *in = tp__xnn_field_value(n, "input1_id", &iid);
      const tp__xnn_value *w = tp__xnn_field_value(n, "filter_id", &wid);
      const tp__xnn_value *b = tp__xnn_field_value(n, "bias_id", &bid);
      uint32_t fl = n->f[TP__XF(XNNFullyConnected, flags)];
      if (in && w && b && in->datatype == TP_XNN_FP32 &&
          (w->datatype == TP_XNN_QCINT8 || w->datatype == TP_XNN_QCINT4))
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "fp32 input %u, %s filter %u and bias %u: ExecuTorch's XNNPACK multiplies "
                     "the bias by the filter's channel scales; add it with an add node, or "
                     "quantize the input (convert to qdint8)",
                     (unsigned)iid, tp_xnn_datatype_name(w->datatype), (unsigned)wid,
                     (unsigned)bid);
      if (w && w->datatype == TP_XNN_QCINT4 && tp__xnn_cnumel(w) == 1)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "qcint4 filter %u is %s, one 4-bit weight: ExecuTorch's runtime crashes on "
                     "it (SIGSEGV, measured); use a qcint8 filter",
                     (unsigned)wid, tp__xnn_dims_str(w, b1));
      if (w && w->datatype == TP_XNN_QCINT4 && (fl & TP_XNN_FLAG_TRANSPOSE_WEIGHTS))
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "qcint4 filter %u with TP_XNN_FLAG_TRANSPOSE_WEIGHTS: ExecuTorch's XNNPACK "
                     "reads its 4-bit pairs along the input channels; pass it as [output "
                     "channels, input channels] without the flag",
                     (unsigned)wid);
      return TP_OK;
    }
    case TP_XNN_NODE_BATCH_MATRIX_MULTIPLY: {
      const tp__xnn_value *w = tp__xnn_field_value(n, "input2_id", &wid);
      uint64_t batch = 1;
      uint32_t i;
      if (!w || w->datatype != TP_XNN_QCINT8 || w->num_dims < 2) return TP_OK;
      for (i = 0; i + 2 < w->num_dims; i++) batch *= w->dims[i];
      if (batch != 1)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "qcint8 input2 %u has %llu batches: ExecuTorch's XNNPACK reads one scale "
                     "per batch and column, the value has one per column; split the batches, "
                     "or use fp32",
                     (unsigned)wid, (unsigned long long)batch);
      return TP_OK;
    }
    case TP_XNN_NODE_CONV2D: case TP_XNN_NODE_DEPTHWISE_CONV2D: case TP_XNN_NODE_DECONV2D: {
#define TP__F(x) TP__XF(_XNNNodeConv, x)
      const tp__xnn_value *in = tp__xnn_field_value(n, "input1_id", &iid);
      /* a 1x1 convolution of stride 1, no padding, one group: XNNPACK's fully connected */
      int fc = n->kind == TP_XNN_NODE_CONV2D && n->f[TP__F(groups)] == 1 &&
               n->f[TP__F(kernel_height)] == 1 && n->f[TP__F(kernel_width)] == 1 &&
               n->f[TP__F(subsampling_height)] == 1 && n->f[TP__F(subsampling_width)] == 1 &&
               !(n->f[TP__F(padding_top)] | n->f[TP__F(padding_right)] |
                 n->f[TP__F(padding_bottom)] | n->f[TP__F(padding_left)]) &&
               n->f[TP__F(group_input_channels)] + n->f[TP__F(group_output_channels)] > 2;
      if (in && in->datatype == TP_XNN_QDINT8 && !fc && in->num_dims == 4 &&
          in->num_nonbatch_dims != 3)
        TP__XNN_FAIL(TP_ERR_UNSUPPORTED,
                     "qdint8 input %u has num_nonbatch_dims %d: ExecuTorch's XNNPACK quantizes "
                     "a convolution's input per batch image; define it with num_nonbatch_dims 3",
                     (unsigned)iid, (int)in->num_nonbatch_dims);
      return TP_OK;
#undef TP__F
    }
    default: return TP_OK;
  }
}

/* The node rules: the kind's own and XNNPACK's define checks, then (target 0) the support
   table, the same-quantization rule and the runtime's semantics. */
static tp_status tp__xnn_check_node(const tp__xnn_nview *n, int runtime, tp_error *err) {
  tp_status st = tp__xnn_check_node_rules(n, runtime, err);
  if (st == TP_OK) st = tp__xnn_check_define_rules(n, err);
  if (st != TP_OK || runtime != TP_XNN_TARGET_EXECUTORCH) return st;
  st = tp__xnn_check_support(n, err);
  if (st == TP_OK) st = tp__xnn_check_same_quant(n, err);
  return st != TP_OK ? st : tp__xnn_check_et_semantics(n, err);
}
#undef TP__XNN_FAIL

/* A constant's view against its value: the view's dtype is the datatype's element type (no
   reinterpretation) and its sizes are the value's dims (no silent reshape), for every target;
   with graph_rules, no external id on a constant. 4-bit data has its own rule
   (tp__xnn_value_data). */
static tp_status tp__xnn_check_const(const tp__xnn_value *v, uint32_t id, const tp_tensor *data,
                                     int graph_rules, tp_error *err) {
  int want = tp__xnn_view_dtype(v->datatype);
  uint32_t i;
  char b1[80];
  if (graph_rules && v->external_id != TP_XNN_INVALID_ID)
    return tp__error_set(err, TP_ERR_INVALID,
                        "value %u: a constant cannot be external (external id %u, flags 0x%x): "
                        "define it without an external id, or without data",
                        (unsigned)id, (unsigned)v->external_id, (unsigned)v->flags);
  if ((int)data->dtype != want) {
    int fl = (want == TP_F32 || want == TP_F16 || want == TP_BF16) &&
             (data->dtype == TP_F32 || data->dtype == TP_F16 || data->dtype == TP_BF16);
    return tp__error_set(err, TP_ERR_INVALID,
                        "value %u: %s data must be a %s view, not %s%s%s%s", (unsigned)id,
                        tp_xnn_datatype_name(v->datatype), tp_dtype_name((tp_dtype)want),
                        tp_dtype_name(data->dtype),
                        fl ? " (convert it: tp_convert_write(view, " : "",
                        fl ? (want == TP_F32 ? "TP_F32" : want == TP_F16 ? "TP_F16" : "TP_BF16")
                           : "",
                        fl ? ", 0, sink) into a buffer, or define the value with the view's "
                             "datatype)"
                           : " (bytes are never reinterpreted)");
  }
  if ((uint32_t)data->ndim != v->num_dims)
    return tp__error_set(err, TP_ERR_INVALID,
                        "value %u: dims %s but the data view has %d dims: reshape the view "
                        "(tp_reshape / tp_view), dims are never reinterpreted",
                        (unsigned)id, tp__xnn_dims_str(v, b1), data->ndim);
  for (i = 0; i < v->num_dims; i++)
    if ((uint64_t)data->sizes[i] != (uint64_t)v->dims[i])
      return tp__error_set(err, TP_ERR_INVALID,
                          "value %u: dims %s but the data view's dim %u is %lld: reshape the "
                          "view (tp_reshape / tp_view), dims are never reinterpreted",
                          (unsigned)id, tp__xnn_dims_str(v, b1), (unsigned)i,
                          (long long)data->sizes[i]);
  return TP_OK;
}

/* Graph-level rules (at write): external ids dense 0 .. n-1, each external flagged; every
   value a node reads is a constant, an external input or the output of an earlier node; each
   node output has one producer and is neither a constant nor an external input; every
   external input is read and every external output written exactly once; every node output
   is read by a later node or is an external output (XNNPACK aborts on a dangling output). */
#define TP__XNN_S_PRODUCED 1u
#define TP__XNN_S_READ 2u
static tp_status tp__xnn_check_graph(const tp_xnn_graph *g, tp_error *err) {
  unsigned char *st;
  uint32_t *ext;
  size_t i, k, next = 0;
  tp_status res = TP_OK;
  for (i = 0; i < g->nvalues; i++)
    if (g->values[i].external_id != TP_XNN_INVALID_ID && g->values[i].external_id + 1u > next)
      next = g->values[i].external_id + 1u;
  st = (unsigned char *)TP_MALLOC(g->nvalues + 1);
  ext = (uint32_t *)TP_MALLOC((next + 1) * sizeof *ext);
  if (!st || !ext) {
    TP_FREE(st);
    TP_FREE(ext);
    return tp__error_set(err, TP_ERR_NOMEM, "no memory for the graph check (%u values)",
                        (unsigned)g->nvalues);
  }
  memset(st, 0, g->nvalues + 1);
  for (k = 0; k < next; k++) ext[k] = TP_XNN_INVALID_ID;
  for (i = 0; i < g->nvalues && res == TP_OK; i++) {
    uint32_t e = g->values[i].external_id;
    if (e == TP_XNN_INVALID_ID) continue;
    if (ext[e] != TP_XNN_INVALID_ID)
      res = tp__error_set(err, TP_ERR_INVALID,
                          "value %u: external id %u is already used by value %u", (unsigned)i,
                          (unsigned)e, (unsigned)ext[e]);
    ext[e] = (uint32_t)i;
  }
  for (k = 0; k < next && res == TP_OK; k++) {
    if (ext[k] == TP_XNN_INVALID_ID)
      res = tp__error_set(err, TP_ERR_INVALID,
                         "external ids must be dense 0..%u: no value has external id %u "
                         "(ExecuTorch takes the call's arguments by external id)",
                         (unsigned)(next - 1), (unsigned)k);
    else if ((g->values[ext[k]].flags &
              (TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT)) == 0)
      res = tp__error_set(err, TP_ERR_INVALID,
                         "value %u: external id %u but neither TP_XNN_FLAG_EXTERNAL_INPUT nor "
                         "_OUTPUT",
                         (unsigned)ext[k], (unsigned)k);
  }
  for (i = 0; i < g->nnodes && res == TP_OK; i++) {
    const tp__xnn_node *nd = &g->nodes[i];
    const tp_xnn_node_desc *d = tp_xnn_describe_node(nd->kind);
    unsigned pass, f;
    for (pass = 0; pass < 2 && res == TP_OK; pass++) { /* reads first, then writes */
      for (f = 0; f < d->nfields && res == TP_OK; f++) {
        const char *field = d->fields[f].name;
        int is_out = d->fields[f].role == 'o';
        uint32_t id = nd->f[f];
        const tp__xnn_value *v;
        if ((!is_out && d->fields[f].role != 'i') || id == TP_XNN_INVALID_ID ||
            (int)pass != is_out)
          continue; /* not a value id, or a slot the kind does not use */
        v = &g->values[id];
        if (!is_out) {
          if (!v->const_idx && !(v->flags & TP_XNN_FLAG_EXTERNAL_INPUT) &&
              !(st[id] & TP__XNN_S_PRODUCED))
            res = tp__error_set(err, TP_ERR_INVALID,
                               "%s #%u: %s %u is read before any node produces it (not a "
                               "constant, not TP_XNN_FLAG_EXTERNAL_INPUT)",
                               tp_xnn_node_name(nd->kind), (unsigned)i, field, (unsigned)id);
          st[id] |= TP__XNN_S_READ;
        } else if (v->const_idx || (v->flags & TP_XNN_FLAG_EXTERNAL_INPUT) ||
                   (st[id] & TP__XNN_S_PRODUCED)) {
          res = tp__error_set(err, TP_ERR_INVALID, "%s #%u: %s %u is %s",
                             tp_xnn_node_name(nd->kind), (unsigned)i, field, (unsigned)id,
                             v->const_idx ? "a constant"
                             : (v->flags & TP_XNN_FLAG_EXTERNAL_INPUT)
                                 ? "an external input"
                                 : "already the output of an earlier node");
        } else {
          st[id] = (unsigned char)(TP__XNN_S_PRODUCED); /* a new producer: not read yet */
        }
      }
    }
  }
  for (i = 0; i < g->nvalues && res == TP_OK; i++) {
    const tp__xnn_value *v = &g->values[i];
    if ((v->flags & TP_XNN_FLAG_EXTERNAL_INPUT) && !(st[i] & TP__XNN_S_READ))
      res = tp__error_set(err, TP_ERR_INVALID,
                         "value %u: external input (external id %u) is read by no node",
                         (unsigned)i, (unsigned)v->external_id);
    else if ((v->flags & TP_XNN_FLAG_EXTERNAL_OUTPUT) && !(st[i] & TP__XNN_S_PRODUCED))
      res = tp__error_set(err, TP_ERR_INVALID,
                         "value %u: external output (external id %u) is written by no node",
                         (unsigned)i, (unsigned)v->external_id);
    else if ((st[i] & TP__XNN_S_PRODUCED) && !(st[i] & TP__XNN_S_READ) &&
             !(v->flags & TP_XNN_FLAG_EXTERNAL_OUTPUT))
      res = tp__error_set(err, TP_ERR_INVALID,
                         "value %u: a node writes it but no later node reads it and it is not "
                         "TP_XNN_FLAG_EXTERNAL_OUTPUT (XNNPACK aborts on an unconsumed output)",
                         (unsigned)i);
  }
  TP_FREE(st);
  TP_FREE(ext);
  return res;
}

/* >>xnn-constants --------------------------------------------------------------------------- */


/* Emits a constant's bytes (the only place constant bytes are produced). */
static tp_status tp__xnn_const_emit(const tp__xnn_const *c, tp_sink *sink) {
  switch (c->how) {
    case TP__XNN_C_PACK4: return tp_pack_int4_write(&c->view, sink);
    case TP__XNN_C_BF16: return tp_convert_write(&c->view, TP_BF16, 0, sink);
    default: return tp_compact_write(&c->view, TP_ORDER_ROW_MAJOR, sink);
  }
}

static tp_status tp__xnn_const_produce(const void *ctx, tp_sink *sink) {
  return tp__xnn_const_emit((const tp__xnn_const *)ctx, sink);
}

/* Named mode's constants by key: a hashed lookup (tp__keyset), so defining n constants costs
   O(n), not a scan of every earlier constant per define. A define that fails drops its
   constants (nconsts goes back); slots naming dropped indices never match. */
typedef struct tp__xnn_key_probe {
  const tp_xnn_graph *g;
  const char *key;
} tp__xnn_key_probe;

/* The entry of every building call: the latched failure, or a call from a progress callback
   during the graph's own write (refused and latched: what is being written cannot change). */
static tp_status tp__xnn_guard(tp_xnn_graph *g) {
  return tp__writer_busy(&g->err, g->writing, "a tp_xnn_define_* or tp_xnn_set_* call", "graph");
}

static uint64_t tp__xnn_key_hash(const void *ctx, uint32_t i) {
  const tp_xnn_graph *g = (const tp_xnn_graph *)ctx;
  const char *k = g->consts[i].key;
  return tp__hash_keyed(&g->const_hk, k, strlen(k));
}

static int tp__xnn_key_match(const void *ctx, uint32_t i) {
  const tp__xnn_key_probe *q = (const tp__xnn_key_probe *)ctx;
  return i < q->g->nconsts && q->g->consts[i].named && strcmp(q->g->consts[i].key, q->key) == 0;
}

/* Adds a constant; *idx_out = its constant_data index. `what` names it in messages. In named
   mode the bytes go to the store now (the key needs them) and an entry with the same key is
   shared. */
static tp_status tp__xnn_add_const(tp_xnn_graph *g, uint32_t value_id, const char *what,
                                   const tp_tensor *view, int how, uint64_t size, int is_scale,
                                   uint32_t *idx_out) {
  tp__xnn_const c;
  tp_status st;
  size_t slot = 0;
  memset(&c, 0, sizeof c);
  c.how = how;
  c.view = *view;
  c.size = size;
  if (g->store) {
    const char *key = NULL;
    /* the view as it is (the store hashes it once), or bytes that are not the view's own
       (packed, converted, or a scale whose key needs the "scale_" prefix) made once */
    st = tp__delegate_store_constant(g->store, view,
                                     how == TP__XNN_C_COMPACT ? NULL : tp__xnn_const_produce, &c,
                                     size, is_scale ? "scale_" : NULL, (size_t)g->alignment,
                                     &key);
    if (st != TP_OK || !key)
      return tp__error_set(&g->err, st != TP_OK ? st : TP_ERR_INVALID,
                          "value %u: %s could not be added to the store: %s", (unsigned)value_id,
                          what, tp_store_error(g->store));
    if (strlen(key) >= sizeof c.key)
      return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: store key of %u bytes is too long",
                          (unsigned)value_id, (unsigned)strlen(key));
    strcpy(c.key, key);
    c.named = 1;
    {
      tp__xnn_key_probe q;
      uint32_t idx1;
      q.g = g;
      q.key = c.key;
      st = tp__keyset_reserve(&g->const_keys, g->nconsts + 1, tp__xnn_key_hash, g);
      if (st != TP_OK)
        return tp__error_set(&g->err, st, "value %u: no memory for the key table of %u constants",
                            (unsigned)value_id, (unsigned)g->nconsts);
      slot = tp__keyset_probe(&g->const_keys, tp__hash_keyed(&g->const_hk, c.key, strlen(c.key)),
                              tp__xnn_key_match, &q);
      idx1 = g->const_keys.slot[slot];
      if (idx1) {
        *idx_out = idx1 - 1;
        return TP_OK;
      }
    }
  }
  if (g->nconsts >= (size_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %u: too many constants",
                        (unsigned)value_id);
  st = tp__array_reserve((void **)&g->consts, &g->cap_consts, g->nconsts + 1, sizeof c);
  if (st != TP_OK)
    return tp__error_set(&g->err, st, "value %u: no memory for constant %u", (unsigned)value_id,
                        (unsigned)g->nconsts);
  g->consts[g->nconsts] = c;
  *idx_out = (uint32_t)g->nconsts;
  g->nconsts++;
  if (c.named) g->const_keys.slot[slot] = (uint32_t)g->nconsts; /* index + 1 */
  return TP_OK;
}

/* >>xnn-values ------------------------------------------------------------------------------ */

/* The bytes a value of v's datatype and dims holds (the 4-bit types: rows x ceil(last / 2) in
   *bytes, ceil(numel / 2) in *alt; else both numel x element size). Returns 0 when that
   overflows 64 bits: the writer refuses such dims at define time, tp_xnn_check_blob and tpdump
   refuse them in a blob, with the same sentence (one rule). */
static int tp__xnn_value_bytes(const tp__xnn_value *v, uint64_t *bytes, uint64_t *alt) {
  uint64_t numel = 1, rows = 1, last = 1;
  uint32_t i;
  for (i = 0; i < v->num_dims; i++) {
    if (tp__mul_u64(numel, v->dims[i], &numel)) return 0;
    if (i + 1 < v->num_dims) rows = numel;
    else last = v->dims[i];
  }
  if (tp_xnn_datatype_bits(v->datatype) == 4) {
    if (tp__mul_u64(rows, (last + 1) / 2, bytes)) return 0;
    *alt = numel / 2 + (numel & 1);
    return 1;
  }
  if (tp__mul_u64(numel, (uint64_t)tp__xnn_elem_size(v->datatype), bytes)) return 0;
  *alt = *bytes;
  return 1;
}

/* check(t) (tp_tensor_check, tp_pack_int4_check); a failure latched as "value id: what: " and
   the check's sentence. */
static tp_status tp__xnn_view_check(tp_xnn_graph *g, unsigned id, const char *what,
                                    tp_status (*check)(const tp_tensor *, tp_error *),
                                    const tp_tensor *t) {
  tp_error e;
  tp_status st;
  memset(&e, 0, sizeof e);
  st = check(t, &e);
  if (st != TP_OK) return tp__error_set(&g->err, st, "value %u: %s: %s", id, what, e.msg);
  return TP_OK;
}

/* The entry of the five value defines: the graph's guard, then datatype, dims, external id,
   flags and the define call's family (TP_XNN_DT_*); fills v. Does not add anything; marks
   where the define's constants will start. */
static tp_status tp__xnn_value_begin(tp_xnn_graph *g, int family, int dt, size_t num_dims,
                                     const size_t *dims, const tp_tensor *data,
                                     uint32_t external_id, uint32_t flags, tp__xnn_value *v) {
  static const char *const what[] = {"", "", "per-tensor quantized", "per-channel quantized",
                                     "blockwise quantized", "dynamically quantized"};
  uint32_t id;
  size_t i;
  char names[80];
  TP_ASSERT(g);
  id = (uint32_t)g->nvalues;
  g->value_nconsts = g->nconsts;
  memset(v, 0, sizeof *v);
  if (tp__xnn_guard(g)) return g->err.status;
  if (g->nvalues >= (size_t)UINT32_MAX - 1)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %u: too many values", (unsigned)id);
  if (!tp_xnn_datatype_bits(dt))
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: unknown datatype %d", (unsigned)id,
                        dt);
  if (data && tp__xnn_view_check(g, id, "bad data view", tp_tensor_check, data) != TP_OK)
    return g->err.status;
  if (!dims) {
    if (!data && num_dims > 0)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %u: %u dims but neither dims nor data given", (unsigned)id,
                          (unsigned)num_dims);
    if (data && (size_t)data->ndim != num_dims)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %u: num_dims %u but the data view has %d dims (dims NULL)",
                          (unsigned)id, (unsigned)num_dims, data->ndim);
  }
  if (num_dims > TP_XNN_MAX_DIMS)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: %u dims, XNNPACK allows at most %d", (unsigned)id,
                        (unsigned)num_dims, TP_XNN_MAX_DIMS);
  v->datatype = dt;
  v->num_dims = (uint32_t)num_dims;
  for (i = 0; i < num_dims; i++) {
    uint64_t d = dims ? (uint64_t)dims[i] : (uint64_t)data->sizes[i];
    if (d > (uint64_t)UINT32_MAX)
      return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                          "value %u: dim %u is %llu, the format stores 32 bits", (unsigned)id,
                          (unsigned)i, (unsigned long long)d);
    v->dims[i] = (uint32_t)d;
  }
  {
    uint64_t bytes, alt;
    if (!tp__xnn_value_bytes(v, &bytes, &alt))
      return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                          "value %u: the product of dims overflows 64 bits", (unsigned)id);
  }
  if (flags & ~(TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT))
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: unknown flag bits 0x%x",
                        (unsigned)id, (unsigned)flags);
  if (external_id != TP_XNN_INVALID_ID) {
    if (external_id >= TP_XNN_MAX_EXTERNS)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %u: external id %u, the loader allows ids below %d",
                          (unsigned)id, (unsigned)external_id, TP_XNN_MAX_EXTERNS);
    for (i = 0; i < g->nvalues; i++)
      if (g->values[i].external_id == external_id)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "value %u: external id %u is already used by value %u",
                            (unsigned)id, (unsigned)external_id, (unsigned)i);
  } else if (flags) {
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: external input/output flags 0x%x need an external id",
                        (unsigned)id, (unsigned)flags);
  }
  v->external_id = external_id;
  v->flags = flags;
  if (tp_xnn_datatype_family(dt) == family) return TP_OK;
  if (family == TP_XNN_DT_PLAIN)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: datatype %s needs a quantized define call", (unsigned)id,
                        tp_xnn_datatype_name(dt));
  return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: datatype %s is not %s (%s)",
                      (unsigned)id, tp_xnn_datatype_name(dt), what[family],
                      tp__xnn_family_names(family, names));
}

/* A scale view: present, a valid view, f32 (or bf16 when bf16_ok). */
static tp_status tp__xnn_scale_view(tp_xnn_graph *g, unsigned id, const tp_tensor *scale,
                                    int bf16_ok) {
  if (!scale)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: no scale view", id);
  if (tp__xnn_view_check(g, id, "bad scale view", tp_tensor_check, scale) != TP_OK)
    return g->err.status;
  if (scale->dtype != TP_F32 && !(bf16_ok && scale->dtype == TP_BF16))
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: scale view is %s, must be f32%s",
                        id, tp_dtype_name(scale->dtype), bf16_ok ? " or bf16" : "");
  return TP_OK;
}

/* Checks a weight view against the value's dims and datatype, adds it as a constant of
   tp__xnn_value_bytes' size (tp__xnn_value_begin refused dims whose bytes overflow). */
static tp_status tp__xnn_value_data(tp_xnn_graph *g, tp__xnn_value *v, const tp_tensor *data) {
  uint32_t id = (uint32_t)g->nvalues;
  uint64_t want = 0, alt;
  int how = TP__XNN_C_COMPACT;
  tp__xnn_value_bytes(v, &want, &alt);
  if (tp_xnn_datatype_bits(v->datatype) == 4) {
    uint64_t last;
    int k;
    if (v->num_dims == 0)
      return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: 4-bit data needs at least 1 dim",
                          (unsigned)id);
    last = v->dims[v->num_dims - 1];
    if (data->dtype != TP_I8 && data->dtype != TP_U8)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %u: 4-bit data must be an i8 view of values or a u8 view of "
                          "packed bytes, not %s",
                          (unsigned)id, tp_dtype_name(data->dtype));
    if ((uint32_t)data->ndim != v->num_dims)
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "value %u: data view has %d dims, the value %u", (unsigned)id,
                          data->ndim, (unsigned)v->num_dims);
    for (k = 0; k < data->ndim; k++) {
      uint64_t need = v->dims[k];
      if (k == data->ndim - 1 && data->dtype == TP_U8) need = (last + 1) / 2;
      if ((uint64_t)data->sizes[k] != need)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "value %u: data dim %d is %lld, expected %llu%s", (unsigned)id, k,
                            (long long)data->sizes[k], (unsigned long long)need,
                            data->dtype == TP_U8 && k == data->ndim - 1
                                ? " (packed: half the last dim, rounded up)"
                                : "");
    }
    how = data->dtype == TP_I8 ? TP__XNN_C_PACK4 : TP__XNN_C_COMPACT;
    if (how == TP__XNN_C_PACK4 &&
        tp__xnn_view_check(g, id, "4-bit data", tp_pack_int4_check, data) != TP_OK)
      return g->err.status;
  } else if (tp__xnn_check_const(v, id, data, g->target != TP_XNN_TARGET_UNCHECKED, &g->err) !=
             TP_OK) { /* the view's dtype and sizes: then it holds exactly `want` bytes */
    return g->err.status;
  }
  if (tp__xnn_add_const(g, id, "data", data, how, want, 0, &v->const_idx) != TP_OK)
    return g->err.status;
  v->const_named = v->const_idx && g->consts[v->const_idx].named;
  return TP_OK;
}

static tp_status tp__xnn_value_commit(tp_xnn_graph *g, const tp__xnn_value *v,
                                      uint32_t *id_out) {
  tp_status st = tp__array_reserve((void **)&g->values, &g->cap_values, g->nvalues + 1,
                                  sizeof *v);
  if (st != TP_OK)
    return tp__error_set(&g->err, st, "value %u: no memory", (unsigned)g->nvalues);
  g->values[g->nvalues] = *v;
  if (id_out) *id_out = (uint32_t)g->nvalues;
  g->nvalues++;
  g->fb_valid = 0;
  return TP_OK;
}

/* The exit of the value defines: the data view as its constant (when given), then the value;
   a failure (v NULL: one before) drops the constants added since tp__xnn_value_begin, so a
   failed define leaves nothing behind. */
static tp_status tp__xnn_value_end(tp_xnn_graph *g, tp__xnn_value *v, const tp_tensor *data,
                                   uint32_t *id_out) {
  if (!v || (data && tp__xnn_value_data(g, v, data) != TP_OK) ||
      tp__xnn_value_commit(g, v, id_out) != TP_OK) {
    g->nconsts = g->value_nconsts;
    return g->err.status;
  }
  return TP_OK;
}

TPDEF tp_status tp_xnn_define_tensor_value(tp_xnn_graph *g, tp_xnn_datatype dt, size_t num_dims,
                                           const size_t *dims, const tp_tensor *data,
                                           uint32_t external_id, uint32_t flags,
                                           uint32_t *id_out) {
  tp__xnn_value v;
  if (tp__xnn_value_begin(g, TP_XNN_DT_PLAIN, (int)dt, num_dims, dims, data, external_id, flags,
                          &v) != TP_OK)
    return g->err.status;
  return tp__xnn_value_end(g, &v, data, id_out);
}

TPDEF tp_status tp_xnn_define_quantized_tensor_value(tp_xnn_graph *g, tp_xnn_datatype dt,
                                                     int32_t zero_point, float scale,
                                                     size_t num_dims, const size_t *dims,
                                                     const tp_tensor *data, uint32_t external_id,
                                                     uint32_t flags, uint32_t *id_out) {
  tp__xnn_value v;
  unsigned id;
  int32_t zlo = 0, zhi = 0;
  if (tp__xnn_value_begin(g, TP_XNN_DT_PER_TENSOR, (int)dt, num_dims, dims, data, external_id,
                          flags, &v) != TP_OK)
    return g->err.status;
  id = (unsigned)g->nvalues;
  if (tp__xnn_view_dtype((int)dt) == TP_I8) { /* the stored type's range; qint32: 0 */
    zlo = -128;
    zhi = 127;
  } else if (tp__xnn_view_dtype((int)dt) == TP_U8) {
    zhi = 255;
  }
  if (zero_point < zlo || zero_point > zhi)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: zero point %d outside [%d, %d] for %s", id, (int)zero_point,
                        (int)zlo, (int)zhi, tp_xnn_datatype_name((int)dt));
  if (!(scale > 0.0f) || scale > 3.4028234663852886e38f)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: scale %g must be finite and > 0", id, (double)scale);
  v.quant = TP_XNN_QUANT_PER_TENSOR;
  v.scale = scale;
  v.zero_point = zero_point;
  return tp__xnn_value_end(g, &v, data, id_out);
}

TPDEF tp_status tp_xnn_define_channelwise_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, const tp_tensor *scale, size_t num_dims,
    size_t channel_dim, const size_t *dims, const tp_tensor *data, uint32_t external_id,
    uint32_t flags, uint32_t *id_out) {
  tp__xnn_value v;
  unsigned id;
  if (tp__xnn_value_begin(g, TP_XNN_DT_PER_CHANNEL, (int)dt, num_dims, dims, data, external_id,
                          flags, &v) != TP_OK)
    return g->err.status;
  id = (unsigned)g->nvalues;
  if (channel_dim >= num_dims)
    return tp__error_set(&g->err, TP_ERR_INVALID, "value %u: channel_dim %u but %u dims", id,
                        (unsigned)channel_dim, (unsigned)num_dims);
  if (tp__xnn_scale_view(g, id, scale, 0) != TP_OK) return g->err.status;
  if ((uint64_t)tp_numel(scale) != (uint64_t)v.dims[channel_dim])
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: scale has %lld elements, channel dim %u has %u", id,
                        (long long)tp_numel(scale), (unsigned)channel_dim,
                        (unsigned)v.dims[channel_dim]);
  v.quant = TP_XNN_QUANT_PER_CHANNEL;
  v.channel_dim = (int32_t)channel_dim;
  v.num_scales = v.dims[channel_dim];
  tp__xnn_qc_range_view(&v, scale, v.num_scales); /* for the requantization rule */
  /* scale first, then the weights: the order upstream's serializer uses */
  if (tp__xnn_add_const(g, id, "scale", scale, TP__XNN_C_COMPACT, (uint64_t)v.num_scales * 4u, 1,
                        &v.scale_idx) != TP_OK)
    return tp__xnn_value_end(g, NULL, NULL, NULL);
  return tp__xnn_value_end(g, &v, data, id_out);
}

TPDEF tp_status tp_xnn_define_blockwise_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, const tp_tensor *scale, size_t num_dims,
    size_t channel_dim, size_t block_size, const size_t *dims, const tp_tensor *data,
    uint32_t external_id, uint32_t flags, uint32_t *id_out) {
  tp__xnn_value v;
  unsigned id;
  uint64_t groups;
  if (tp__xnn_value_begin(g, TP_XNN_DT_BLOCKWISE, (int)dt, num_dims, dims, data, external_id,
                          flags, &v) != TP_OK)
    return g->err.status;
  id = (unsigned)g->nvalues;
  if (num_dims != 2)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: blockwise weights need 2 dims [out, in], got %u", id,
                        (unsigned)num_dims);
  if (channel_dim != 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: blockwise channel_dim must be 0, got %u", id,
                        (unsigned)channel_dim);
  if (block_size == 0 || block_size % 32 != 0 || block_size > (size_t)INT32_MAX)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: block size %llu must be a positive multiple of 32", id,
                        (unsigned long long)block_size);
  if (v.dims[1] % block_size != 0)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: block size %llu does not divide the %u input channels", id,
                        (unsigned long long)block_size, (unsigned)v.dims[1]);
  groups = v.dims[1] / block_size;
  if (tp__xnn_scale_view(g, id, scale, 1) != TP_OK) return g->err.status;
  if (scale->ndim != 2 || (uint64_t)scale->sizes[0] != v.dims[0] ||
      (uint64_t)scale->sizes[1] != groups)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: scale must be [%u, %llu] (out channels, groups), got %d dims "
                        "[%lld, %lld]",
                        id, (unsigned)v.dims[0], (unsigned long long)groups, scale->ndim,
                        scale->ndim > 0 ? (long long)scale->sizes[0] : -1LL,
                        scale->ndim > 1 ? (long long)scale->sizes[1] : -1LL);
  v.quant = TP_XNN_QUANT_PER_CHANNEL_GROUP;
  v.channel_dim = 0;
  v.group_size = (int32_t)block_size;
  v.num_scales = (uint32_t)((uint64_t)v.dims[0] * groups); /* <= numel of packed bytes * 2 */
  if ((uint64_t)v.dims[0] * groups > (uint64_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "value %u: too many scales", id);
  if (tp__xnn_add_const(g, id, "scale", scale,
                        scale->dtype == TP_F32 ? TP__XNN_C_BF16 : TP__XNN_C_COMPACT,
                        (uint64_t)v.num_scales * 2u, 1, &v.scale_idx) != TP_OK)
    return tp__xnn_value_end(g, NULL, NULL, NULL);
  return tp__xnn_value_end(g, &v, data, id_out);
}

TPDEF tp_status tp_xnn_define_dynamically_quantized_tensor_value(
    tp_xnn_graph *g, tp_xnn_datatype dt, size_t num_dims, size_t num_nonbatch_dims,
    const size_t *dims, uint32_t external_id, uint32_t flags, uint32_t *id_out) {
  tp__xnn_value v;
  if (tp__xnn_value_begin(g, TP_XNN_DT_DYNAMIC, (int)dt, num_dims, dims, NULL, external_id,
                          flags, &v) != TP_OK)
    return g->err.status;
  if (num_nonbatch_dims > num_dims)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "value %u: num_nonbatch_dims %u exceeds num_dims %u",
                        (unsigned)g->nvalues, (unsigned)num_nonbatch_dims, (unsigned)num_dims);
  v.quant = TP_XNN_QUANT_PER_TOKEN_DYNAMIC;
  v.num_nonbatch_dims = (int32_t)num_nonbatch_dims;
  return tp__xnn_value_commit(g, &v, id_out);
}

/* >>xnn-nodes ------------------------------------------------------------------------------- */

static uint32_t tp__xnn_fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float tp__xnn_bitsf(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The one way a node is added (every define call ends here): its value ids and vectors
   checked, the node's rules, then appended. */
TPDEF tp_status tp_xnn_define_node(tp_xnn_graph *g, int kind, const tp_xnn_node_args *a) {
  tp__xnn_node n;
  tp__xnn_nview cn;
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  const char *l = d ? d->layout : NULL;
  unsigned idx;
  size_t i, k, nv = 0, total = 0;
  tp_status st;
  TP_ASSERT(g);
  idx = (unsigned)g->nnodes;
  if (tp__xnn_guard(g)) return g->err.status;
  if (!l)
    return tp__error_set(&g->err, TP_ERR_INVALID, "node %u: kind %d is not a node kind (1..%d)",
                        idx, kind, (int)TP_XNN_NODE_KINDS);
  if (!a)
    return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): no arguments (NULL)", idx,
                        tp_xnn_node_name(kind));
  if (g->nnodes >= (size_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW, "node %u: too many nodes", idx);
  memset(&n, 0, sizeof n);
  memset(&cn, 0, sizeof cn);
  n.kind = cn.kind = kind;
  n.has_minmax = cn.has_minmax = a->has_output_min_max != 0;
  n.out_min = cn.out_min = a->output_min;
  n.out_max = cn.out_max = a->output_max;
  cn.index = idx;
  for (i = 0; l[i]; i++) {
    char c = l[i];
    if (c == 'v') { /* the next vector slot; the node view gets its entries */
      size_t len = a->vec_len[i];
      if (len > TP_XNN_MAX_DIMS)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "node %u (%s): %s has %u entries, at most %d", idx,
                            tp_xnn_node_name(kind), tp__xnn_field_name(kind, (unsigned)i),
                            (unsigned)len, TP_XNN_MAX_DIMS);
      if (len && !a->vec[i])
        return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): %s is NULL", idx,
                            tp_xnn_node_name(kind), tp__xnn_field_name(kind, (unsigned)i));
      for (k = 0; k < len; k++) {
        if ((uint64_t)a->vec[i][k] > (uint64_t)UINT32_MAX)
          return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                              "node %u (%s): entry %u is %llu, the format stores 32 bits", idx,
                              tp_xnn_node_name(kind), (unsigned)k,
                              (unsigned long long)a->vec[i][k]);
        cn.vec[nv][k] = (uint32_t)a->vec[i][k];
      }
      n.f[i] = (uint32_t)nv;
      n.vec_len[nv] = cn.vlen[nv] = (uint32_t)len;
      total += len;
      nv++;
      continue;
    }
    n.f[i] = c == 'f' ? tp__xnn_fbits(a->f[i]) : a->u[i];
    if (c == 'b' && n.f[i] != TP_XNN_INVALID_ID &&
        d->fields[i].role == 'n') /* ExecuTorch would ignore it */
      return tp__error_set(&g->err, TP_ERR_INVALID,
                          "node %u (%s): %s is a slot this kind does not use: it must be "
                          "TP_XNN_INVALID_ID, not %u",
                          idx, tp_xnn_node_name(kind), tp__xnn_field_name(kind, (unsigned)i),
                          (unsigned)n.f[i]);
    if ((c == 'i' || c == 'b') && !(c == 'b' && n.f[i] == TP_XNN_INVALID_ID)) {
      if (n.f[i] >= g->nvalues)
        return tp__error_set(&g->err, TP_ERR_INVALID,
                            "node %u (%s): %s %u is not a defined value (%u values)", idx,
                            tp_xnn_node_name(kind), tp__xnn_field_name(kind, (unsigned)i),
                            (unsigned)n.f[i], (unsigned)g->nvalues);
      cn.v[i] = &g->values[n.f[i]];
    }
  }
  memcpy(cn.f, n.f, sizeof cn.f);
  if (g->target != TP_XNN_TARGET_UNCHECKED && tp__xnn_check_node(&cn, g->target, &g->err) != TP_OK)
    return g->err.status; /* the node's rules (>>xnn-check) */
  st = tp__array_reserve((void **)&g->pool, &g->cap_pool, g->npool + total + 1, sizeof(uint32_t));
  if (st == TP_OK)
    st = tp__array_reserve((void **)&g->nodes, &g->cap_nodes, g->nnodes + 1, sizeof n);
  if (st != TP_OK) return tp__error_set(&g->err, st, "node %u: no memory", idx);
  for (i = 0; l[i]; i++) {
    if (l[i] != 'v') continue;
    n.vec_off[n.f[i]] = (uint32_t)g->npool;
    for (k = 0; k < n.vec_len[n.f[i]]; k++) g->pool[g->npool++] = (uint32_t)a->vec[i][k];
  }
  g->nodes[g->nnodes++] = n;
  g->fb_valid = 0;
  return TP_OK;
}

/* a with the node's OutputMinMax, for the calls that take output_min / output_max */
static tp_xnn_node_args *tp__xnn_mm(tp_xnn_node_args *a, float output_min, float output_max) {
  a->has_output_min_max = 1;
  a->output_min = output_min;
  a->output_max = output_max;
  return a;
}

/* The define calls of the simple shapes (TP_XNN_NODE_LIST's shape column), derived from it: up
   to four ids / flags in the table's field order, the float parameter for its 'f' field. */
static tp_status tp__xnn_simple(tp_xnn_graph *g, int kind, int mm, float mn, float mx, float p,
                                uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3) {
  tp_xnn_node_args a;
  const char *l = tp__xnn_layout(kind);
  const uint32_t ids[4] = {a0, a1, a2, a3};
  size_t i, k = 0;
  memset(&a, 0, sizeof a);
  for (i = 0; l[i] && k < 4; i++) {
    if (l[i] == 'f') a.f[i] = p;
    else a.u[i] = ids[k++];
  }
  return tp_xnn_define_node(g, kind, mm ? tp__xnn_mm(&a, mn, mx) : &a);
}
#define TP__XNN_BODY_1x1(NAME, name)                                                          \
  TPDEF tp_status tp_xnn_define_##name(tp_xnn_graph *g, uint32_t input_id, uint32_t output_id, \
                                       uint32_t flags) {                                      \
    return tp__xnn_simple(g, TP_XNN_NODE_##NAME, 0, 0.0f, 0.0f, 0.0f, input_id, output_id,    \
                          flags, 0);                                                          \
  }
#define TP__XNN_BODY_1x1m(NAME, name)                                                         \
  TPDEF tp_status tp_xnn_define_##name(tp_xnn_graph *g, float output_min, float output_max,   \
                                       uint32_t input_id, uint32_t output_id, uint32_t flags) { \
    return tp__xnn_simple(g, TP_XNN_NODE_##NAME, 1, output_min, output_max, 0.0f, input_id,   \
                          output_id, flags, 0);                                               \
  }
#define TP__XNN_BODY_1x1f(NAME, name)                                                         \
  TPDEF tp_status tp_xnn_define_##name(tp_xnn_graph *g, float param, uint32_t input_id,       \
                                       uint32_t output_id, uint32_t flags) {                  \
    return tp__xnn_simple(g, TP_XNN_NODE_##NAME, 0, 0.0f, 0.0f, param, input_id, output_id,   \
                          flags, 0);                                                          \
  }
#define TP__XNN_BODY_2x1(NAME, name)                                                          \
  TPDEF tp_status tp_xnn_define_##name(tp_xnn_graph *g, uint32_t input1_id, uint32_t input2_id, \
                                       uint32_t output_id, uint32_t flags) {                  \
    return tp__xnn_simple(g, TP_XNN_NODE_##NAME, 0, 0.0f, 0.0f, 0.0f, input1_id, input2_id,   \
                          output_id, flags);                                                  \
  }
#define TP__XNN_BODY_2x1m(NAME, name)                                                         \
  TPDEF tp_status tp_xnn_define_##name(tp_xnn_graph *g, float output_min, float output_max,   \
                                       uint32_t input1_id, uint32_t input2_id,                \
                                       uint32_t output_id, uint32_t flags) {                  \
    return tp__xnn_simple(g, TP_XNN_NODE_##NAME, 1, output_min, output_max, 0.0f, input1_id,  \
                          input2_id, output_id, flags);                                       \
  }
#define TP__XNN_BODY_Nx1(NAME, name) /* below: one argument per input */
#define TP__XNN_BODY_own(NAME, name) /* below */
#define TP__XNN_BODY(tag, NAME, name, member, table, fields, shape, rt) \
  TP__XNN_BODY_##shape(NAME, name)
TP_XNN_NODE_LIST(TP__XNN_BODY)
#undef TP__XNN_BODY
#undef TP__XNN_BODY_1x1
#undef TP__XNN_BODY_1x1m
#undef TP__XNN_BODY_1x1f
#undef TP__XNN_BODY_2x1
#undef TP__XNN_BODY_2x1m
#undef TP__XNN_BODY_Nx1
#undef TP__XNN_BODY_own

/* The define calls of shape own whose definitions name their parameters as the table's fields
   (locals for the fields a call does not take): the fields from them, by name. */
#define TP__XNN_ARG_ID(id, x) a.u[id] = (x);
#define TP__XNN_ARG_OPT_ID(id, x) a.u[id] = (x);
#define TP__XNN_ARG_OUT_ID(id, x) a.u[id] = (x);
#define TP__XNN_ARG_U32(id, x) a.u[id] = (uint32_t)(x);
#define TP__XNN_ARG_F32(id, x) a.f[id] = (x);
#define TP__XNN_ARG_VEC(id, x) a.vec[id] = (x);
#define TP__XNN_ARG(table, field, id, type) TP__XNN_ARG_##type(id, field)
#define TP__XNN_ARGS(table) memset(&a, 0, sizeof a); TP_XNN_FIELDS_##table(TP__XNN_ARG)

TPDEF tp_status tp_xnn_define_fully_connected(tp_xnn_graph *g, float output_min,
                                              float output_max, uint32_t input1_id,
                                              uint32_t filter_id, uint32_t bias_id,
                                              uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNFullyConnected)
  return tp_xnn_define_node(g, TP_XNN_NODE_FULLY_CONNECTED, tp__xnn_mm(&a, output_min, output_max));
}

/* The convolutions' channel counts, size_t in the calls, 32 bits in the table. */
static tp_status tp__xnn_conv_channels(tp_xnn_graph *g, int kind, size_t gic, size_t goc) {
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if ((uint64_t)gic > (uint64_t)UINT32_MAX || (uint64_t)goc > (uint64_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                        "node %u (%s): channel counts %llu / %llu do not fit 32 bits",
                        (unsigned)g->nnodes, tp_xnn_node_name(kind), (unsigned long long)gic,
                        (unsigned long long)goc);
  return TP_OK;
}

TPDEF tp_status tp_xnn_define_convolution_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t kernel_height, uint32_t kernel_width,
    uint32_t subsampling_height, uint32_t subsampling_width, uint32_t dilation_height,
    uint32_t dilation_width, uint32_t groups, size_t group_input_channels,
    size_t group_output_channels, float output_min, float output_max, uint32_t input1_id,
    uint32_t filter_id, uint32_t bias_id, uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  uint32_t adjustment_height = 0, adjustment_width = 0;
  if (tp__xnn_conv_channels(g, TP_XNN_NODE_CONV2D, group_input_channels,
                            group_output_channels) != TP_OK)
    return g->err.status;
  TP__XNN_ARGS(_XNNNodeConv)
  return tp_xnn_define_node(g, TP_XNN_NODE_CONV2D, tp__xnn_mm(&a, output_min, output_max));
}

TPDEF tp_status tp_xnn_define_depthwise_convolution_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t kernel_height, uint32_t kernel_width,
    uint32_t subsampling_height, uint32_t subsampling_width, uint32_t dilation_height,
    uint32_t dilation_width, uint32_t depth_multiplier, size_t input_channels, float output_min,
    float output_max, uint32_t input1_id, uint32_t filter_id, uint32_t bias_id,
    uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  uint32_t adjustment_height = 0, adjustment_width = 0;
  uint32_t groups = (uint32_t)input_channels, group_input_channels = 1;
  uint32_t group_output_channels = depth_multiplier;
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if ((uint64_t)input_channels > (uint64_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                        "node %u (depthwise_convolution_2d): %llu input channels do not fit 32 "
                        "bits",
                        (unsigned)g->nnodes, (unsigned long long)input_channels);
  TP__XNN_ARGS(_XNNNodeConv)
  return tp_xnn_define_node(g, TP_XNN_NODE_DEPTHWISE_CONV2D,
                            tp__xnn_mm(&a, output_min, output_max));
}

TPDEF tp_status tp_xnn_define_deconvolution_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t adjustment_height, uint32_t adjustment_width,
    uint32_t kernel_height, uint32_t kernel_width, uint32_t subsampling_height,
    uint32_t subsampling_width, uint32_t dilation_height, uint32_t dilation_width,
    uint32_t groups, size_t group_input_channels, size_t group_output_channels,
    float output_min, float output_max, uint32_t input1_id, uint32_t filter_id,
    uint32_t bias_id, uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  if (tp__xnn_conv_channels(g, TP_XNN_NODE_DECONV2D, group_input_channels,
                            group_output_channels) != TP_OK)
    return g->err.status;
  TP__XNN_ARGS(_XNNNodeConv)
  return tp_xnn_define_node(g, TP_XNN_NODE_DECONV2D, tp__xnn_mm(&a, output_min, output_max));
}

/* >>xnn-torch: PyTorch layouts -> XNNPACK's, as views (see "PyTorch layouts" above) */
#include <math.h>

/* The layout helpers' entry (and the *_torch calls'): err reset, an out view, a weight view of
   PyTorch's rank ndim for `what`; fn names the call in the sentence. */
static tp_status tp__xnn_torch_rank(const tp_tensor *w, int ndim, const tp_tensor *out,
                                    const char *fn, const char *what, tp_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "%s: out is NULL", fn);
  if (!w) return tp__error_set(err, TP_ERR_INVALID, "%s: the weight view is NULL", fn);
  if (w->ndim != ndim)
    return tp__error_set(err, TP_ERR_INVALID, "%s: the weight has %d dims; PyTorch's %s has %d",
                        fn, w->ndim, what, ndim);
  return TP_OK;
}

TPDEF tp_status tp_xnn_conv_filter_from_torch(const tp_tensor *oihw, tp_tensor *ohwi,
                                              tp_error *err) {
  static const int perm[4] = {0, 2, 3, 1};
  tp_status s = tp__xnn_torch_rank(oihw, 4, ohwi, "tp_xnn_conv_filter_from_torch",
                                   "Conv2d weight [O, I/groups, kh, kw]", err);
  return s != TP_OK ? s : tp_permute(oihw, perm, ohwi, err);
}

TPDEF tp_status tp_xnn_depthwise_filter_from_torch(const tp_tensor *w_c1hw, tp_tensor *out_1hwc,
                                                   tp_error *err) {
  static const int perm[4] = {1, 2, 3, 0};
  tp_status s = tp__xnn_torch_rank(w_c1hw, 4, out_1hwc, "tp_xnn_depthwise_filter_from_torch",
                                   "depthwise Conv2d weight [C*m, 1, kh, kw]", err);
  if (s != TP_OK) return s;
  if (w_c1hw->sizes[1] != 1)
    return tp__error_set(err, TP_ERR_INVALID, "tp_xnn_depthwise_filter_from_torch: the weight "
                        "is [%lld, %lld, %lld, %lld]; a depthwise weight has 1 input channel "
                        "per group (dim 1 == 1)", (long long)w_c1hw->sizes[0],
                        (long long)w_c1hw->sizes[1], (long long)w_c1hw->sizes[2],
                        (long long)w_c1hw->sizes[3]);
  return tp_permute(w_c1hw, perm, out_1hwc, err);
}

TPDEF tp_status tp_xnn_deconv_filter_from_torch(const tp_tensor *w_iohw, uint32_t groups,
                                                tp_tensor *out, tp_error *err) {
  static const int perm[4] = {1, 2, 3, 0};
  int64_t sz[5], st[5], ig;
  tp_status s = tp__xnn_torch_rank(w_iohw, 4, out, "tp_xnn_deconv_filter_from_torch",
                                   "ConvTranspose2d weight [I, O/groups, kh, kw]", err);
  if (s != TP_OK) return s;
  if (groups < 1 || w_iohw->sizes[0] % (int64_t)groups != 0)
    return tp__error_set(err, TP_ERR_INVALID, "tp_xnn_deconv_filter_from_torch: groups %lu "
                        "must be >= 1 and divide the weight's %lld input channels",
                        (unsigned long)groups, (long long)w_iohw->sizes[0]);
  if (groups == 1) return tp_permute(w_iohw, perm, out, err);
  /* [I, Og, kh, kw] -> split I into [g, Ig] -> [g, Og, kh, kw, Ig] */
  ig = w_iohw->sizes[0] / (int64_t)groups;
  sz[0] = (int64_t)groups; st[0] = w_iohw->strides[0] * ig;
  sz[1] = w_iohw->sizes[1]; st[1] = w_iohw->strides[1];
  sz[2] = w_iohw->sizes[2]; st[2] = w_iohw->strides[2];
  sz[3] = w_iohw->sizes[3]; st[3] = w_iohw->strides[3];
  sz[4] = ig;               st[4] = w_iohw->strides[0];
  return tp_view(w_iohw->storage, w_iohw->dtype, 5, sz, st, w_iohw->offset, out, err);
}

TPDEF tp_status tp_xnn_fc_filter_from_conv1d(const tp_tensor *w_in_out, tp_tensor *out_in,
                                             tp_error *err) {
  tp_status s = tp__xnn_torch_rank(w_in_out, 2, out_in, "tp_xnn_fc_filter_from_conv1d",
                                   "Conv1D weight [in, out]", err);
  return s != TP_OK ? s : tp_transpose(w_in_out, 0, 1, out_in, err);
}

/* A constant from a PyTorch view (F32 -> FP32, F16 -> FP16) with explicit dims. */
static tp_status tp__xnn_torch_const(tp_xnn_graph *g, const char *fn, const char *what,
                                     const tp_tensor *t, size_t nd, const size_t *dims,
                                     uint32_t *id) {
  tp_xnn_datatype dt;
  if (t->dtype == TP_F32) dt = TP_XNN_FP32;
  else if (t->dtype == TP_F16) dt = TP_XNN_FP16;
  else
    return tp__error_set(&g->err, TP_ERR_UNSUPPORTED, "node %u (%s): the %s is %s; this call "
                        "takes F32 or F16 (quantized weights: the tp_xnn_define_*_tensor_value "
                        "calls and the node's own define)", (unsigned)g->nnodes, fn, what,
                        tp_dtype_name(t->dtype));
  return tp_xnn_define_tensor_value(g, dt, nd, dims, t, TP_XNN_INVALID_ID, 0, id);
}

/* A view helper's failure (its sentence in he), latched in the graph under the call's name. */
static tp_status tp__xnn_torch_begin(tp_xnn_graph *g, const char *fn, tp_status hs,
                                     const tp_error *he) {
  if (hs != TP_OK)
    return tp__error_set(&g->err, hs, "node %u (%s): %s", (unsigned)g->nnodes, fn, he->msg);
  return TP_OK;
}

static tp_status tp__xnn_torch_bias(tp_xnn_graph *g, const char *fn, const tp_tensor *bias,
                                    int64_t oc, uint32_t *bid) {
  size_t d;
  *bid = TP_XNN_INVALID_ID;
  if (!bias) return TP_OK;
  if (bias->ndim != 1 || bias->sizes[0] != oc)
    return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): the bias has %d dims (first "
                        "%lld); the weight has %lld output channels, so the bias must be [%lld]",
                        (unsigned)g->nnodes, fn, bias->ndim,
                        (long long)(bias->ndim > 0 ? bias->sizes[0] : 0), (long long)oc,
                        (long long)oc);
  d = (size_t)oc;
  return tp__xnn_torch_const(g, fn, "bias", bias, 1, &d, bid);
}

static void tp__xnn_torch_args(const tp_xnn_conv2d_args *a, tp_xnn_conv2d_args *r) {
  if (a) *r = *a;
  else memset(r, 0, sizeof *r);
  if (!r->stride[0]) r->stride[0] = 1;
  if (!r->stride[1]) r->stride[1] = 1;
  if (!r->dilation[0]) r->dilation[0] = 1;
  if (!r->dilation[1]) r->dilation[1] = 1;
  if (!r->groups) r->groups = 1;
  if (r->output_min == 0.0f && r->output_max == 0.0f) {
    r->output_min = -INFINITY;
    r->output_max = INFINITY;
  }
}

static tp_status tp__xnn_torch_dim32(tp_xnn_graph *g, const char *fn, const tp_tensor *w) {
  int i;
  for (i = 0; i < w->ndim; i++)
    if (w->sizes[i] < 1 || w->sizes[i] > (int64_t)UINT32_MAX)
      return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): weight dim %d is %lld; "
                          "each must be 1 .. 2^32-1", (unsigned)g->nnodes, fn, i,
                          (long long)w->sizes[i]);
  return TP_OK;
}

/* The *_torch define calls begin alike: the ids out are INVALID until the node is defined, a
   failed graph refuses at once. */
static tp_status tp__xnn_torch_enter(tp_xnn_graph *g, uint32_t *filter_id_out,
                                     uint32_t *bias_id_out) {
  TP_ASSERT(g);
  if (filter_id_out) *filter_id_out = TP_XNN_INVALID_ID;
  if (bias_id_out) *bias_id_out = TP_XNN_INVALID_ID;
  return tp__xnn_guard(g);
}

/* ... and end alike: the ids out once the node is defined. */
static tp_status tp__xnn_torch_done(tp_status s, uint32_t fid, uint32_t bid,
                                    uint32_t *filter_id_out, uint32_t *bias_id_out) {
  if (s != TP_OK) return s;
  if (filter_id_out) *filter_id_out = fid;
  if (bias_id_out) *bias_id_out = bid;
  return TP_OK;
}

/* The two convolutions, one core: the PyTorch weight (transpose 0: Conv2d's [O, I/groups, kh,
   kw], 1: ConvTranspose2d's [I, O/groups, kh, kw]) as XNNPACK's filter [O, kh, kw, I/groups]
   (depthwise: [1, kh, kw, O]), its constant and the bias, then the node. */
static tp_status tp__xnn_torch_conv(tp_xnn_graph *g, int transpose, const tp_xnn_conv2d_args *a,
                                    uint32_t input_id, const tp_tensor *w, const tp_tensor *bias,
                                    uint32_t output_id, uint32_t *filter_id_out,
                                    uint32_t *bias_id_out) {
  const char *fn = transpose ? "conv_transpose2d_torch" : "conv2d_torch";
  tp_xnn_conv2d_args r;
  tp_tensor f;
  tp_error e;
  tp_status s;
  size_t dims[4];
  uint32_t fid = TP_XNN_INVALID_ID, bid = TP_XNN_INVALID_ID, kh, kw, ph, pw;
  int64_t oc, gic;
  int dw = 0;
  if ((s = tp__xnn_torch_enter(g, filter_id_out, bias_id_out)) != TP_OK) return s;
  tp__xnn_torch_args(a, &r);
  s = tp__xnn_torch_rank(w, 4, &f, transpose ? "tp_xnn_define_conv_transpose2d_torch"
                                             : "tp_xnn_define_conv2d_torch",
                         transpose ? "ConvTranspose2d weight [I, O/groups, kh, kw]"
                                   : "Conv2d weight [O, I/groups, kh, kw]", &e);
  if ((s = tp__xnn_torch_begin(g, fn, s, &e)) != TP_OK) return s;
  if ((s = tp__xnn_torch_dim32(g, fn, w)) != TP_OK) return s;
  kh = (uint32_t)w->sizes[2];
  kw = (uint32_t)w->sizes[3];
  if (transpose) {
    s = tp_xnn_deconv_filter_from_torch(w, r.groups, &f, &e); /* groups divide I */
  } else {
    if (w->sizes[0] % (int64_t)r.groups != 0)
      return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): groups %lu does not divide "
                          "the weight's %lld output channels", (unsigned)g->nnodes, fn,
                          (unsigned long)r.groups, (long long)w->sizes[0]);
    dw = r.groups > 1 && w->sizes[1] == 1;
    s = dw ? tp_xnn_depthwise_filter_from_torch(w, &f, &e)
           : tp_xnn_conv_filter_from_torch(w, &f, &e);
  }
  if ((s = tp__xnn_torch_begin(g, fn, s, &e)) != TP_OK) return s;
  oc = transpose ? w->sizes[1] * (int64_t)r.groups : w->sizes[0];
  gic = transpose ? w->sizes[0] / (int64_t)r.groups : w->sizes[1];
  dims[0] = dw ? 1u : (size_t)oc;
  dims[1] = kh;
  dims[2] = kw;
  dims[3] = dw ? (size_t)oc : (size_t)gic;
  if (f.ndim == 5) {
    /* [g, O/g, kh, kw, I/g] is no 4-D view of the weight's storage: its row-major bytes are
       copied once (the graph owns them) and seen as [O, kh, kw, I/g] */
    tp_buffer buf;
    tp_storage st;
    int64_t sz4[4];
    sz4[0] = oc; sz4[1] = kh; sz4[2] = kw; sz4[3] = gic;
    if (tp__array_reserve((void **)&g->owned, &g->cap_owned, g->nowned + 1, sizeof(void *)) !=
        TP_OK)
      return tp__error_set(&g->err, TP_ERR_NOMEM, "node %u (%s): no memory", (unsigned)g->nnodes,
                          fn);
    s = tp_compact(&f, TP_ORDER_ROW_MAJOR, &buf);
    if (s != TP_OK)
      return tp__error_set(&g->err, s, "node %u (%s): copying the grouped filter: %s",
                          (unsigned)g->nnodes, fn, tp_status_str(s));
    if (buf.owned) g->owned[g->nowned++] = buf.owned;
    st.data = buf.data;
    st.nbytes = buf.nbytes;
    s = tp_view(st, f.dtype, 4, sz4, NULL, 0, &f, &e);
    if ((s = tp__xnn_torch_begin(g, fn, s, &e)) != TP_OK) return s;
  }
  if ((s = tp__xnn_torch_const(g, fn, "weight", &f, 4, dims, &fid)) != TP_OK) return s;
  if ((s = tp__xnn_torch_bias(g, fn, bias, oc, &bid)) != TP_OK) return s;
  ph = r.padding[0];
  pw = r.padding[1];
  if (dw)
    s = tp_xnn_define_depthwise_convolution_2d(g, ph, pw, ph, pw, kh, kw, r.stride[0],
                                               r.stride[1], r.dilation[0], r.dilation[1],
                                               (uint32_t)(oc / (int64_t)r.groups), r.groups,
                                               r.output_min, r.output_max, input_id, fid, bid,
                                               output_id, r.flags);
  else if (transpose)
    s = tp_xnn_define_deconvolution_2d(g, ph, pw, ph, pw, r.output_padding[0],
                                       r.output_padding[1], kh, kw, r.stride[0], r.stride[1],
                                       r.dilation[0], r.dilation[1], r.groups, (size_t)gic,
                                       (size_t)w->sizes[1], r.output_min, r.output_max,
                                       input_id, fid, bid, output_id, r.flags);
  else
    s = tp_xnn_define_convolution_2d(g, ph, pw, ph, pw, kh, kw, r.stride[0], r.stride[1],
                                     r.dilation[0], r.dilation[1], r.groups, (size_t)gic,
                                     (size_t)(oc / (int64_t)r.groups), r.output_min,
                                     r.output_max, input_id, fid, bid, output_id, r.flags);
  return tp__xnn_torch_done(s, fid, bid, filter_id_out, bias_id_out);
}

TPDEF tp_status tp_xnn_define_conv2d_torch(tp_xnn_graph *g, const tp_xnn_conv2d_args *a,
                                           uint32_t input_id, const tp_tensor *weight_oihw,
                                           const tp_tensor *bias, uint32_t output_id,
                                           uint32_t *filter_id_out, uint32_t *bias_id_out) {
  return tp__xnn_torch_conv(g, 0, a, input_id, weight_oihw, bias, output_id, filter_id_out,
                            bias_id_out);
}

TPDEF tp_status tp_xnn_define_conv_transpose2d_torch(tp_xnn_graph *g,
                                                     const tp_xnn_conv2d_args *a,
                                                     uint32_t input_id,
                                                     const tp_tensor *weight_iohw,
                                                     const tp_tensor *bias, uint32_t output_id,
                                                     uint32_t *filter_id_out,
                                                     uint32_t *bias_id_out) {
  return tp__xnn_torch_conv(g, 1, a, input_id, weight_iohw, bias, output_id, filter_id_out,
                            bias_id_out);
}

TPDEF tp_status tp_xnn_define_linear_torch(tp_xnn_graph *g, float output_min, float output_max,
                                           uint32_t input_id, const tp_tensor *weight,
                                           int conv1d, const tp_tensor *bias, uint32_t output_id,
                                           uint32_t *filter_id_out, uint32_t *bias_id_out) {
  static const char fn[] = "linear_torch";
  tp_tensor f;
  tp_error e;
  tp_status s;
  uint32_t fid = TP_XNN_INVALID_ID, bid = TP_XNN_INVALID_ID;
  if ((s = tp__xnn_torch_enter(g, filter_id_out, bias_id_out)) != TP_OK) return s;
  if (conv1d) {
    s = tp_xnn_fc_filter_from_conv1d(weight, &f, &e);
  } else {
    s = tp__xnn_torch_rank(weight, 2, &f, "tp_xnn_define_linear_torch",
                           "Linear weight [out, in]", &e);
    if (s == TP_OK) f = *weight;
  }
  if ((s = tp__xnn_torch_begin(g, fn, s, &e)) != TP_OK) return s;
  if ((s = tp__xnn_torch_dim32(g, fn, &f)) != TP_OK) return s;
  if ((s = tp__xnn_torch_const(g, fn, "weight", &f, 2, NULL, &fid)) != TP_OK) return s;
  if ((s = tp__xnn_torch_bias(g, fn, bias, f.sizes[0], &bid)) != TP_OK) return s;
  s = tp_xnn_define_fully_connected(g, output_min, output_max, input_id, fid, bid, output_id, 0);
  return tp__xnn_torch_done(s, fid, bid, filter_id_out, bias_id_out);
}

TPDEF tp_status tp_xnn_define_average_pooling_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t pooling_height, uint32_t pooling_width,
    uint32_t stride_height, uint32_t stride_width, float output_min, float output_max,
    uint32_t input_id, uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  uint32_t dilation_height = 1, dilation_width = 1;
  TP__XNN_ARGS(_XNNPooling2D)
  return tp_xnn_define_node(g, TP_XNN_NODE_AVG_POOLING_2D, tp__xnn_mm(&a, output_min, output_max));
}

TPDEF tp_status tp_xnn_define_max_pooling_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t pooling_height, uint32_t pooling_width,
    uint32_t stride_height, uint32_t stride_width, uint32_t dilation_height,
    uint32_t dilation_width, float output_min, float output_max, uint32_t input_id,
    uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(_XNNPooling2D)
  return tp_xnn_define_node(g, TP_XNN_NODE_MAX_POOLING_2D, tp__xnn_mm(&a, output_min, output_max));
}

TPDEF tp_status tp_xnn_define_argmax_pooling_2d(
    tp_xnn_graph *g, uint32_t padding_top, uint32_t padding_right, uint32_t padding_bottom,
    uint32_t padding_left, uint32_t pooling_height, uint32_t pooling_width, uint32_t input_id,
    uint32_t output_value_id, uint32_t output_index_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNArgMaxPooling2d)
  return tp_xnn_define_node(g, TP_XNN_NODE_ARGMAX_POOLING_2D, &a);
}

static tp_status tp__xnn_cat(tp_xnn_graph *g, int kind, uint32_t axis, uint32_t input1_id,
                             uint32_t input2_id, uint32_t input3_id, uint32_t input4_id,
                             uint32_t input5_id, uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(_XNNCat)
  return tp_xnn_define_node(g, kind, &a);
}
TPDEF tp_status tp_xnn_define_concatenate2(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t output_id,
                                           uint32_t flags) {
  return tp__xnn_cat(g, TP_XNN_NODE_CONCATENATE2, axis, input1_id, input2_id, TP_XNN_INVALID_ID,
                     TP_XNN_INVALID_ID, TP_XNN_INVALID_ID, output_id, flags);
}
TPDEF tp_status tp_xnn_define_concatenate3(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t output_id, uint32_t flags) {
  return tp__xnn_cat(g, TP_XNN_NODE_CONCATENATE3, axis, input1_id, input2_id, input3_id,
                     TP_XNN_INVALID_ID, TP_XNN_INVALID_ID, output_id, flags);
}
TPDEF tp_status tp_xnn_define_concatenate4(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t input4_id, uint32_t output_id,
                                           uint32_t flags) {
  return tp__xnn_cat(g, TP_XNN_NODE_CONCATENATE4, axis, input1_id, input2_id, input3_id,
                     input4_id, TP_XNN_INVALID_ID, output_id, flags);
}
TPDEF tp_status tp_xnn_define_concatenate5(tp_xnn_graph *g, uint32_t axis, uint32_t input1_id,
                                           uint32_t input2_id, uint32_t input3_id,
                                           uint32_t input4_id, uint32_t input5_id,
                                           uint32_t output_id, uint32_t flags) {
  return tp__xnn_cat(g, TP_XNN_NODE_CONCATENATE5, axis, input1_id, input2_id, input3_id,
                     input4_id, input5_id, output_id, flags);
}

/* The static shape nodes: a (TP__XNN_ARGS) with each vector num_dims entries long. */
static tp_status tp__xnn_static(tp_xnn_graph *g, int kind, size_t num_dims, tp_xnn_node_args *a) {
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  uint32_t i;
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if (num_dims > TP_XNN_MAX_DIMS)
    return tp__error_set(&g->err, TP_ERR_INVALID, "node %u (%s): %u dims, at most %d",
                        (unsigned)g->nnodes, d->name, (unsigned)num_dims, TP_XNN_MAX_DIMS);
  for (i = 0; i < d->nfields; i++)
    if (d->fields[i].type == 'v') a->vec_len[i] = num_dims;
  return tp_xnn_define_node(g, kind, a);
}
TPDEF tp_status tp_xnn_define_static_transpose(tp_xnn_graph *g, size_t num_dims,
                                               const size_t *perm, uint32_t input_id,
                                               uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNStaticTranspose)
  return tp__xnn_static(g, TP_XNN_NODE_STATIC_TRANSPOSE, num_dims, &a);
}
TPDEF tp_status tp_xnn_define_static_reshape(tp_xnn_graph *g, size_t num_dims,
                                             const size_t *new_shape, uint32_t input_id,
                                             uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNStaticReshape)
  return tp__xnn_static(g, TP_XNN_NODE_STATIC_RESHAPE, num_dims, &a);
}
TPDEF tp_status tp_xnn_define_static_slice(tp_xnn_graph *g, size_t num_dims,
                                           const size_t *offsets, const size_t *sizes,
                                           uint32_t input_id, uint32_t output_id,
                                           uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNStaticSlice)
  return tp__xnn_static(g, TP_XNN_NODE_STATIC_SLICE, num_dims, &a);
}

TPDEF tp_status tp_xnn_define_static_constant_pad(tp_xnn_graph *g, const size_t *pre_paddings,
                                                  const size_t *post_paddings,
                                                  float padding_value, uint32_t input_id,
                                                  uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if (input_id >= g->nvalues)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "node %u (static_constant_pad): input_id %u is not a defined value (%u "
                        "values)",
                        (unsigned)g->nnodes, (unsigned)input_id, (unsigned)g->nvalues);
  TP__XNN_ARGS(XNNStaticConstantPad)
  return tp__xnn_static(g, TP_XNN_NODE_STATIC_CONSTANT_PAD, g->values[input_id].num_dims, &a);
}

TPDEF tp_status tp_xnn_define_static_resize_bilinear_2d(tp_xnn_graph *g, size_t new_height,
                                                        size_t new_width, uint32_t input_id,
                                                        uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if ((uint64_t)new_height > (uint64_t)UINT32_MAX || (uint64_t)new_width > (uint64_t)UINT32_MAX)
    return tp__error_set(&g->err, TP_ERR_OVERFLOW,
                        "node %u (static_resize_bilinear_2d): size %llu x %llu does not fit 32 "
                        "bits",
                        (unsigned)g->nnodes, (unsigned long long)new_height,
                        (unsigned long long)new_width);
  TP__XNN_ARGS(XNNStaticResizeBilinear2D)
  return tp_xnn_define_node(g, TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D, &a);
}

TPDEF tp_status tp_xnn_define_scaled_dot_product_attention(tp_xnn_graph *g, uint32_t query_id,
                                                           uint32_t key_id, uint32_t value_id,
                                                           uint32_t scale_id, uint32_t mask_id,
                                                           uint32_t output_id, uint32_t flags) {
  tp_xnn_node_args a;
  TP__XNN_ARGS(XNNScaledDotProductAttention)
  return tp_xnn_define_node(g, TP_XNN_NODE_SCALED_DOT_PRODUCT_ATTENTION, &a);
}
#undef TP__XNN_ARGS
#undef TP__XNN_ARG
#undef TP__XNN_ARG_ID
#undef TP__XNN_ARG_OPT_ID
#undef TP__XNN_ARG_OUT_ID
#undef TP__XNN_ARG_U32
#undef TP__XNN_ARG_F32
#undef TP__XNN_ARG_VEC

TPDEF tp_status tp_xnn_set_output_min_max(tp_xnn_graph *g, uint32_t node_index,
                                          float output_min, float output_max) {
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if (node_index >= g->nnodes)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "set_output_min_max: node %u does not exist (%u nodes)",
                        (unsigned)node_index, (unsigned)g->nnodes);
  g->fb_valid = 0;
  g->nodes[node_index].has_minmax = 1;
  g->nodes[node_index].out_min = output_min;
  g->nodes[node_index].out_max = output_max;
  return TP_OK;
}

TPDEF tp_status tp_xnn_set_debug_handle(tp_xnn_graph *g, uint32_t node_index, uint32_t handle) {
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  if (node_index >= g->nnodes)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                        "set_debug_handle: node %u does not exist (%u nodes)",
                        (unsigned)node_index, (unsigned)g->nnodes);
  g->fb_valid = 0;
  g->nodes[node_index].debug_handle = handle;
  return TP_OK;
}

/* >>xnn-quant: quantized linears in one call ----------------------------------------------- */

TPDEF void tp_xnn_qlinear_release(tp_xnn_qlinear *q) {
  if (!q) return;
  tp_buffer_release(&q->values);
  tp_buffer_release(&q->scales);
}

TPDEF tp_status tp_xnn_define_quantized_linear(tp_xnn_graph *g, tp_xnn_datatype filter_dt,
                                               size_t block_size, tp_dtype scale_dtype,
                                               const tp_tensor *w, const tp_tensor *bias,
                                               float output_min, float output_max,
                                               uint32_t input_id, uint32_t output_id,
                                               tp_xnn_qlinear *q) {
  tp_xnn_value_info in;
  tp_error e;
  tp_status st;
  tp_tensor vv, sv;
  tp_storage vs, ss;
  int64_t ssz[2];
  int bits;
  unsigned node;
  TP_ASSERT(g);
  if (tp__xnn_guard(g)) return g->err.status;
  node = (unsigned)g->nnodes;
  if (!q)
    return tp__error_set(&g->err, TP_ERR_INVALID, "quantized linear (node %u): q is NULL",
                         node);
  memset(q, 0, sizeof *q);
  q->qinput_id = q->filter_id = q->bias_id = TP_XNN_INVALID_ID;
  if (filter_dt != TP_XNN_QCINT8 && filter_dt != TP_XNN_QCINT4 && filter_dt != TP_XNN_QBINT4)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "quantized linear (node %u): filter datatype %s; it must be qcint8, "
                         "qcint4 or qbint4", node, tp_xnn_datatype_name((int)filter_dt));
  if (filter_dt != TP_XNN_QBINT4 && (block_size != 0 || scale_dtype != TP_F32))
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "quantized linear (node %u): %s is per channel: block size must be 0 "
                         "(got %llu) and scales f32 (got %s)", node,
                         tp_xnn_datatype_name((int)filter_dt), (unsigned long long)block_size,
                         tp_dtype_name(scale_dtype));
  if (filter_dt == TP_XNN_QBINT4 && scale_dtype != TP_F32 && scale_dtype != TP_BF16)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "quantized linear (node %u): qbint4 scales are f32 or bf16, not %s",
                         node, tp_dtype_name(scale_dtype));
  if (filter_dt == TP_XNN_QBINT4 && (block_size == 0 || block_size > (size_t)INT32_MAX))
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "quantized linear (node %u): qbint4 needs a block size (got %llu)",
                         node, (unsigned long long)block_size);
  if (!w)
    return tp__error_set(&g->err, TP_ERR_INVALID, "quantized linear (node %u): no weight view",
                         node);
  if (tp_xnn_graph_value(g, input_id, &in) != TP_OK || in.datatype != TP_XNN_FP32 ||
      in.num_dims < 1)
    return tp__error_set(&g->err, TP_ERR_INVALID,
                         "quantized linear (node %u): input %u must be a defined fp32 value "
                         "with at least one dim", node, (unsigned)input_id);
  bits = filter_dt == TP_XNN_QCINT8 ? 8 : 4;
  st = tp_quantize_symmetric(w, bits, filter_dt == TP_XNN_QBINT4 ? (int64_t)block_size : 0,
                             scale_dtype, &q->values, &q->scales, &e);
  if (st != TP_OK)
    return tp__error_set(&g->err, st, "quantized linear (node %u): %s", node, e.msg);
  vs.data = q->values.data;
  vs.nbytes = q->values.nbytes;
  ss.data = q->scales.data;
  ss.nbytes = q->scales.nbytes;
  ssz[0] = w->sizes[0];
  ssz[1] = filter_dt == TP_XNN_QBINT4 ? w->sizes[1] / (int64_t)block_size : 1;
  st = tp_view(vs, TP_I8, 2, w->sizes, NULL, 0, &vv, NULL); /* the filter's dims are its sizes */
  if (st == TP_OK)
    st = tp_view(ss, scale_dtype, filter_dt == TP_XNN_QBINT4 ? 2 : 1, ssz, NULL, 0, &sv, NULL);
  if (st != TP_OK) {
    tp__error_set(&g->err, st, "quantized linear (node %u): %s", node, tp_status_str(st));
    goto fail;
  }
  if (tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, in.num_dims, 1,
                                                       in.dims, TP_XNN_INVALID_ID, 0,
                                                       &q->qinput_id) != TP_OK ||
      tp_xnn_define_convert(g, input_id, q->qinput_id, 0) != TP_OK)
    goto fail;
  if (filter_dt == TP_XNN_QBINT4)
    st = tp_xnn_define_blockwise_quantized_tensor_value(g, filter_dt, &sv, 2, 0, block_size,
                                                        NULL, &vv, TP_XNN_INVALID_ID, 0,
                                                        &q->filter_id);
  else
    st = tp_xnn_define_channelwise_quantized_tensor_value(g, filter_dt, &sv, 2, 0, NULL, &vv,
                                                          TP_XNN_INVALID_ID, 0, &q->filter_id);
  if (st != TP_OK) goto fail;
  if (bias) {
    if (bias->dtype != TP_F32 || bias->ndim != 1 || bias->sizes[0] != w->sizes[0]) {
      tp__error_set(&g->err, TP_ERR_INVALID,
                    "quantized linear (node %u): the bias must be an f32 view of [%lld], got "
                    "%s with %d dims", node, (long long)w->sizes[0], tp_dtype_name(bias->dtype),
                    bias->ndim);
      goto fail;
    }
    if (tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, bias, TP_XNN_INVALID_ID, 0,
                                   &q->bias_id) != TP_OK)
      goto fail;
  }
  q->node_index = (uint32_t)g->nnodes;
  if (tp_xnn_define_fully_connected(g, output_min, output_max, q->qinput_id, q->filter_id,
                                    q->bias_id, output_id, 0) != TP_OK)
    goto fail;
  return TP_OK;
fail:
  tp_xnn_qlinear_release(q);
  return g->err.status ? g->err.status : TP_ERR_INVALID;
}

/* >>xnn-serialize --------------------------------------------------------------------------- */

/* Inline constant offsets and the segment size. */
static tp_status tp__xnn_layout_consts(tp_xnn_graph *g, uint64_t *seg_size) {
  uint64_t off = 0;
  size_t i;
  for (i = 1; i < g->nconsts; i++) {
    tp__xnn_const *c = &g->consts[i];
    if (c->named) continue;
    if (tp__delegate_place(&off, c->size, g->alignment, &c->offset))
      return tp__error_set(&g->werr, TP_ERR_OVERFLOW, "constant %u: segment size overflows",
                          (unsigned)i);
  }
  *seg_size = off;
  return TP_OK;
}

static tp_fb_ref tp__xnn_u32_vector(tp_fb_builder *b, const uint32_t *v, size_t n) {
  static const uint32_t none = 0;
  return tp_fb_create_vector(b, n ? (const void *)v : (const void *)&none, n, 4);
}

static tp_fb_ref tp__xnn_build_value(tp_xnn_graph *g, tp_fb_builder *b, uint32_t id) {
  const tp__xnn_value *v = &g->values[id];
  tp_fb_ref dims, tensor, qp = 0, val;
  dims = tp__xnn_u32_vector(b, v->dims, v->num_dims);
  tp_fb_start_table(b);
  tp_fb_add_i16(b, TP__XF(XNNTensorValue, datatype), (int16_t)v->datatype, 0);
  tp_fb_add_u32(b, TP__XF(XNNTensorValue, num_dims), v->num_dims, 0);
  tp_fb_add_ref(b, TP__XF(XNNTensorValue, dims), dims);
  tp_fb_add_u32(b, TP__XF(XNNTensorValue, constant_buffer_idx), v->const_idx, 0);
  tp_fb_add_u32(b, TP__XF(XNNTensorValue, external_id), v->external_id, 0);
  tp_fb_add_u32(b, TP__XF(XNNTensorValue, flags), v->flags, 0);
  tp_fb_add_u32(b, TP__XF(XNNTensorValue, id_out), id, 0);
  tensor = tp_fb_end_table(b);
  if (v->quant == TP__XNN_Q_NONE) {
    tp_fb_start_table(b);
    tp_fb_add_union(b, TP__XF(XValue, xvalue_union), TP_XNN_VALUE_TENSOR, tensor);
    return tp_fb_end_table(b);
  }
  switch (v->quant) {
    case TP_XNN_QUANT_PER_CHANNEL: {
      tp_fb_ref empty = tp__xnn_u32_vector(b, NULL, 0);
      tp_fb_start_table(b);
      tp_fb_add_ref(b, TP__XF(PerChannelQuant, scale), empty);
      tp_fb_add_i32(b, TP__XF(PerChannelQuant, channel_dim), v->channel_dim, 0);
      tp_fb_add_u32(b, TP__XF(PerChannelQuant, scale_buffer_idx), v->scale_idx, 0);
      tp_fb_add_u32(b, TP__XF(PerChannelQuant, num_scales), v->num_scales, 0);
      qp = tp_fb_end_table(b);
      break;
    }
    case TP_XNN_QUANT_PER_CHANNEL_GROUP: {
      tp_fb_ref empty = tp__xnn_u32_vector(b, NULL, 0);
      tp_fb_start_table(b);
      tp_fb_add_ref(b, TP__XF(PerChannelGroupQuant, scale), empty);
      tp_fb_add_i32(b, TP__XF(PerChannelGroupQuant, channel_dim), v->channel_dim, 0);
      tp_fb_add_i32(b, TP__XF(PerChannelGroupQuant, group_size), v->group_size, 0);
      tp_fb_add_u32(b, TP__XF(PerChannelGroupQuant, scale_buffer_idx), v->scale_idx, 0);
      tp_fb_add_u32(b, TP__XF(PerChannelGroupQuant, num_scales), v->num_scales, 0);
      qp = tp_fb_end_table(b);
      break;
    }
    case TP_XNN_QUANT_PER_TENSOR:
      tp_fb_start_table(b);
      tp_fb_add_f32(b, TP__XF(PerTensorQuant, scale), v->scale, 0.0f);
      tp_fb_add_i32(b, TP__XF(PerTensorQuant, zero_point), v->zero_point, 0);
      qp = tp_fb_end_table(b);
      break;
    default: /* TP_XNN_QUANT_PER_TOKEN_DYNAMIC */
      tp_fb_start_table(b);
      tp_fb_add_i32(b, TP__XF(PerTokenDynamicQuant, num_nonbatch_dims), v->num_nonbatch_dims, 0);
      qp = tp_fb_end_table(b);
      break;
  }
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP__XF(XNNQuantizedTensorValue, tensor_value), tensor);
  tp_fb_add_union(b, TP__XF(XNNQuantizedTensorValue, quant_params), (uint8_t)v->quant, qp);
  val = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP__XF(XValue, xvalue_union), TP_XNN_VALUE_QUANTIZED, val);
  return tp_fb_end_table(b);
}

static tp_fb_ref tp__xnn_build_node(tp_xnn_graph *g, tp_fb_builder *b, const tp__xnn_node *n) {
  const char *l = tp__xnn_layout(n->kind);
  tp_fb_ref vec[2] = {0, 0}, body, mm = 0;
  size_t i, nvec = 0;
  for (i = 0; l[i]; i++) nvec += l[i] == 'v';
  for (i = 0; i < nvec && i < 2; i++) /* vectors are always written, empty or not */
    vec[i] = tp__xnn_u32_vector(b, g->pool + n->vec_off[i], n->vec_len[i]);
  tp_fb_start_table(b);
  for (i = 0; l[i]; i++) {
    switch (l[i]) {
      case 'v': tp_fb_add_ref(b, (uint16_t)i, vec[n->f[i]]); break;
      case 'f': tp_fb_add_f32(b, (uint16_t)i, tp__xnn_bitsf(n->f[i]), 0.0f); break;
      default: tp_fb_add_u32(b, (uint16_t)i, n->f[i], 0); break;
    }
  }
  body = tp_fb_end_table(b);
  if (n->has_minmax) {
    tp_fb_start_table(b);
    tp_fb_add_f32(b, TP__XF(OutputMinMax, output_min), n->out_min, 0.0f);
    tp_fb_add_f32(b, TP__XF(OutputMinMax, output_max), n->out_max, 0.0f);
    mm = tp_fb_end_table(b);
  }
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP__XF(XNode, xnode_union), (uint8_t)n->kind, body);
  tp_fb_add_u32(b, TP__XF(XNode, debug_handle), n->debug_handle, 0);
  tp_fb_add_ref(b, TP__XF(XNode, output_min_max), mm);
  return tp_fb_end_table(b);
}

/* Builds the XN01 flatbuffer into b (finished). */
static tp_status tp__xnn_build(tp_xnn_graph *g, tp_fb_builder *b) {
  tp_fb_ref *refs = NULL, version, nodes, values, cdata, in_ref, out_ref, root;
  size_t n, i, cap = 0, nin = 0, nout = 0;
  uint32_t num_externs = 0, *ext = NULL, *ins, *outs;
  size_t ecap = 0;
  tp_status st;
  uint32_t e;

  n = g->nvalues;
  if (n < g->nnodes) n = g->nnodes;
  if (n < g->nconsts) n = g->nconsts;
  st = tp__array_reserve((void **)&refs, &cap, n + 1, sizeof *refs);
  if (st != TP_OK) return tp__error_set(&g->werr, st, "no memory for %u refs", (unsigned)n);

  /* external ids -> value ids, ordered by external id */
  for (i = 0; i < g->nvalues; i++)
    if (g->values[i].external_id != TP_XNN_INVALID_ID &&
        g->values[i].external_id + 1 > num_externs)
      num_externs = g->values[i].external_id + 1;
  st = tp__array_reserve((void **)&ext, &ecap, 3 * (size_t)num_externs + 1, sizeof *ext);
  if (st != TP_OK) {
    TP_FREE(refs);
    return tp__error_set(&g->werr, st, "no memory for %u externals", (unsigned)num_externs);
  }
  /* ext[e] = the value with external id e (ids are unique), then split by flags */
  ins = ext + num_externs;
  outs = ins + num_externs;
  for (e = 0; e < num_externs; e++) ext[e] = TP_XNN_INVALID_ID;
  for (i = 0; i < g->nvalues; i++)
    if (g->values[i].external_id != TP_XNN_INVALID_ID)
      ext[g->values[i].external_id] = (uint32_t)i;
  for (e = 0; e < num_externs; e++) {
    uint32_t vi = ext[e];
    if (vi == TP_XNN_INVALID_ID) continue;
    if (g->values[vi].flags & TP_XNN_FLAG_EXTERNAL_INPUT) ins[nin++] = vi;
    if (g->values[vi].flags & TP_XNN_FLAG_EXTERNAL_OUTPUT) outs[nout++] = vi;
  }

  tp_fb_builder_reset(b);
  /* children first (back to front): constants, values, nodes, then the root */
  for (i = 0; i < g->nconsts; i++) {
    const tp__xnn_const *c = &g->consts[i];
    tp_fb_ref key = 0;
    if (i > 0 && c->named) key = tp_fb_create_string(b, c->key, strlen(c->key));
    tp_fb_start_table(b);
    if (i > 0) {
      tp_fb_add_u64(b, TP__XF(ConstantDataOffset, offset), c->named ? UINT64_MAX : c->offset, 0);
      tp_fb_add_u64(b, TP__XF(ConstantDataOffset, size), c->size, 0);
      tp_fb_add_ref(b, TP__XF(ConstantDataOffset, named_key), key);
    }
    refs[i] = tp_fb_end_table(b);
  }
  cdata = tp_fb_create_vector_refs(b, refs, g->nconsts);
  for (i = 0; i < g->nvalues; i++) refs[i] = tp__xnn_build_value(g, b, (uint32_t)i);
  values = tp_fb_create_vector_refs(b, refs, g->nvalues);
  for (i = 0; i < g->nnodes; i++) refs[i] = tp__xnn_build_node(g, b, &g->nodes[i]);
  nodes = tp_fb_create_vector_refs(b, refs, g->nnodes);
  in_ref = tp__xnn_u32_vector(b, ins, nin);
  out_ref = tp__xnn_u32_vector(b, outs, nout);
  version = tp_fb_create_string(b, "0", 1);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP__XF(XNNGraph, version), version);
  tp_fb_add_ref(b, TP__XF(XNNGraph, xnodes), nodes);
  tp_fb_add_ref(b, TP__XF(XNNGraph, xvalues), values);
  tp_fb_add_u32(b, TP__XF(XNNGraph, num_externs), num_externs, 0);
  tp_fb_add_ref(b, TP__XF(XNNGraph, input_ids), in_ref);
  tp_fb_add_ref(b, TP__XF(XNNGraph, output_ids), out_ref);
  tp_fb_add_ref(b, TP__XF(XNNGraph, constant_data), cdata);
  root = tp_fb_end_table(b);
  st = tp_fb_finish(b, root, "XN01");
  TP_FREE(refs);
  TP_FREE(ext);
  if (st != TP_OK)
    return tp__error_set(&g->werr, st, "flatbuffer: %s", tp_fb_error(b));
  return TP_OK;
}

/* Lays out the constants and builds the flatbuffer, once per state of the graph (every define
   and set call invalidates it): a size call followed by a write builds it once. The frame (the
   delegate core's) in g->frame. The writer core's prepare: a failure here (a broken graph rule,
   no memory) is the size / write call's (werr, not latched: a fixed graph writes). */
static tp_status tp__xnn_prepare(void *obj, uint64_t *total) {
  tp_xnn_graph *g = (tp_xnn_graph *)obj;
  uint64_t cd_size = 0;
  size_t fb_size = 0;
  tp_status st;
  if (g->target != TP_XNN_TARGET_UNCHECKED) { /* the graph rules (>>xnn-check) */
    st = tp__xnn_check_graph(g, &g->werr);
    if (st != TP_OK) return st;
  }
  st = tp__xnn_layout_consts(g, &cd_size);
  if (st != TP_OK) return st;
  if (!g->fb) {
    st = tp_fb_builder_create(&g->fb);
    if (st != TP_OK) return tp__error_set(&g->werr, st, "no memory for the flatbuffer builder");
  }
  if (!g->fb_valid) {
    st = tp__xnn_build(g, g->fb);
    if (st != TP_OK) return st;
    g->fb_valid = 1;
  }
  if (!tp_fb_data(g->fb, &fb_size) || fb_size > (size_t)INT32_MAX)
    return tp__error_set(&g->werr, TP_ERR_OVERFLOW,
                        "flatbuffer of %llu bytes does not fit the header's 32-bit offsets",
                        (unsigned long long)fb_size);
  return tp__delegate_frame_make("XH00", (uint64_t)fb_size, g->alignment, cd_size, &g->frame,
                                 total, &g->werr);
}

/* The blob (tp__xnn_prepare ran): the writer core's emit. */
static tp_status tp__xnn_emit(void *obj, tp_sink *sink) {
  tp_xnn_graph *g = (tp_xnn_graph *)obj;
  const unsigned char *fb;
  size_t fb_size, i;
  uint64_t pos = 0;
  tp_status st;
  fb = tp_fb_data(g->fb, &fb_size);
  st = tp__delegate_write_head(sink, "XH00", &g->frame, fb);
  for (i = 1; st == TP_OK && i < g->nconsts; i++) {
    const tp__xnn_const *c = &g->consts[i];
    tp__tally cc;
    tp_sink cs;
    if (c->named) continue;
    st = tp_sink_zeros(sink, (size_t)(c->offset - pos));
    if (st != TP_OK) break;
    cs = tp__sink_tally(&cc, sink);
    st = tp__xnn_const_emit(c, &cs);
    if (st == TP_OK && cc.n != c->size)
      return tp__error_set(&g->werr, TP_ERR_INVALID,
                          "constant %u gave %llu bytes, %llu expected (its view changed after "
                          "the define call)",
                          (unsigned)i, (unsigned long long)cc.n, (unsigned long long)c->size);
    pos = c->offset + c->size;
  }
  if (st == TP_OK) st = tp_sink_zeros(sink, (size_t)(g->frame.segment_size - pos));
  return st;
}

static tp__writer tp__xnn_writer(void *graph) { /* (also tp__xnn_pte_backend's) */
  tp_xnn_graph *g = (tp_xnn_graph *)graph;
  TP_ASSERT(g);
  {
    tp__writer w = {g, &g->err, &g->werr, &g->writing, NULL, g->progress,
                    g->progress_ctx, tp__xnn_prepare, tp__xnn_emit};
    return w;
  }
}

TPDEF tp_status tp_xnn_blob_size(tp_xnn_graph *g, uint64_t *size_out) {
  tp__writer w = tp__xnn_writer(g);
  return tp__writer_size(&w, "tp_xnn_blob_size", size_out);
}
TPDEF tp_status tp_xnn_write(tp_xnn_graph *g, tp_sink *sink) {
  tp__writer w = tp__xnn_writer(g);
  return tp__writer_write(&w, "tp_xnn_write", sink);
}
#ifndef TP_NO_STDIO
TPDEF tp_status tp_xnn_write_file(tp_xnn_graph *g, const char *path) {
  tp__writer w = tp__xnn_writer(g);
  return tp__writer_write_file(&w, "tp_xnn_write_file", path);
}
TPDEF tp_status tp_xnn_save(tp_xnn_graph *g, const char *path, uint64_t *size_out) {
  tp__writer w = tp__xnn_writer(g);
  return tp__writer_save(&w, "tp_xnn_save", path, size_out);
}
#endif

/* >>xnn-read: tp_xnn_read_blob ------------------------------------------------------------- */

static tp_status tp__xnn_check_format(tp_xnn_blob *b, tp_error *err);

TPDEF void tp_xnn_blob_free(tp_xnn_blob *b) {
  if (!b) return;
  TP_FREE(b->input_ids);
  TP_FREE(b->output_ids);
  TP_FREE(b->values);
  TP_FREE(b->nodes);
  TP_FREE(b->constants);
  memset(b, 0, sizeof *b);
}

/* n + 1 elements of `es` bytes, zeroed; NULL (and *ok = 0) on overflow or no memory. */
static void *tp__xnn_zalloc(uint64_t n, size_t es, int *ok) {
  uint64_t bytes;
  void *p;
  if (n == UINT64_MAX || tp__mul_u64(n + 1, (uint64_t)es, &bytes) || bytes > (uint64_t)SIZE_MAX) {
    *ok = 0;
    return NULL;
  }
  p = TP_MALLOC((size_t)bytes);
  if (!p) {
    *ok = 0;
    return NULL;
  }
  memset(p, 0, (size_t)bytes);
  return p;
}

static uint32_t *tp__xnn_rd_ids(tp_fb_table *root, uint16_t id, uint32_t *count, int *present,
                                int *ok) {
  tp_fb_vector v = tp_fb_vector_field(root, id, 4);
  uint32_t *out = (uint32_t *)tp__xnn_zalloc(v.count, sizeof(uint32_t), ok);
  uint32_t i;
  *count = 0;
  *present = v.pos != 0;
  if (!out) return NULL;
  for (i = 0; i < v.count; i++) out[i] = (uint32_t)tp_fb_vector_scalar(&v, i);
  *count = v.count;
  return out;
}

#define TP__XNN_RD_FAIL(...)                 \
  do {                                       \
    st = tp__error_set(err, TP_ERR_FORMAT, __VA_ARGS__); \
    goto fail;                               \
  } while (0)

static tp_status tp__xnn_rd_value(tp_fb_reader *r, uint32_t vi, tp_fb_table *xv,
                                  tp_xnn_blob_value *v, tp_error *err) {
  uint8_t vt = 0, qt = 0;
  tp_fb_table u = tp_fb_union_field(xv, TP__XF(XValue, xvalue_union), &vt), t = u, q;
  tp_fb_vector dv;
  uint32_t i;
  memset(&q, 0, sizeof q);
  if (vt == TP_XNN_VALUE_QUANTIZED) {
    t = tp_fb_table_field(&u, TP__XF(XNNQuantizedTensorValue, tensor_value));
    q = tp_fb_union_field(&u, TP__XF(XNNQuantizedTensorValue, quant_params), &qt);
  }
  if (tp_fb_reader_status(r) != TP_OK) /* the reader's own failure (a budget, a bad offset) */
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: %s", (unsigned)vi, r->err.msg);
  if (vt != TP_XNN_VALUE_QUANTIZED && vt != TP_XNN_VALUE_TENSOR) {
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: unknown value type %u", (unsigned)vi,
                        (unsigned)vt);
  }
  if (t.pos == 0)
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: no tensor value", (unsigned)vi);
  v->value_type = vt;
  v->datatype = tp_fb_i16(&t, TP__XF(XNNTensorValue, datatype), 0);
  v->num_dims = tp_fb_u32(&t, TP__XF(XNNTensorValue, num_dims), 0);
  dv = tp_fb_vector_field(&t, TP__XF(XNNTensorValue, dims), 4);
  v->constant_buffer_idx = tp_fb_u32(&t, TP__XF(XNNTensorValue, constant_buffer_idx), 0);
  v->external_id = tp_fb_u32(&t, TP__XF(XNNTensorValue, external_id), 0);
  v->flags = tp_fb_u32(&t, TP__XF(XNNTensorValue, flags), 0);
  v->id_out = tp_fb_u32(&t, TP__XF(XNNTensorValue, id_out), 0);
  v->dq_datatype = tp_fb_i16(&t, TP__XF(XNNTensorValue, dq_datatype), 0);
  if (tp_fb_reader_status(r) != TP_OK)
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: %s", (unsigned)vi, r->err.msg);
  if (dv.count > TP_XNN_MAX_DIMS)
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: %u dims, XNNPACK allows 6", (unsigned)vi,
                        (unsigned)dv.count);
  v->has_dims = dv.pos != 0;
  v->ndims = dv.pos ? dv.count : 0;
  for (i = 0; i < v->ndims; i++) v->dims[i] = (uint32_t)tp_fb_vector_scalar(&dv, i);
  if (vt == TP_XNN_VALUE_QUANTIZED) {
    v->quant = qt;
    switch (qt) {
      case TP_XNN_QUANT_PER_TENSOR:
        v->scale = tp_fb_f32(&q, TP__XF(PerTensorQuant, scale), 0.0f);
        v->zero_point = tp_fb_i32(&q, TP__XF(PerTensorQuant, zero_point), 0);
        break;
      case TP_XNN_QUANT_PER_CHANNEL:
      case TP_XNN_QUANT_PER_CHANNEL_GROUP: {
        int grp = qt == TP_XNN_QUANT_PER_CHANNEL_GROUP;
        tp_fb_vector sv = tp_fb_vector_field(&q, TP__XF(PerChannelQuant, scale), 4);
        v->channel_dim = tp_fb_i32(&q, TP__XF(PerChannelQuant, channel_dim), 0);
        v->group_size = grp ? tp_fb_i32(&q, TP__XF(PerChannelGroupQuant, group_size), 0) : 0;
        v->scale_buffer_idx =
            tp_fb_u32(&q, grp ? TP__XF(PerChannelGroupQuant, scale_buffer_idx)
                              : TP__XF(PerChannelQuant, scale_buffer_idx), 0);
        v->num_scales = tp_fb_u32(&q, grp ? TP__XF(PerChannelGroupQuant, num_scales)
                                          : TP__XF(PerChannelQuant, num_scales), 0);
        v->has_inline_scale = sv.pos != 0;
        v->num_inline_scales = sv.pos ? sv.count : 0;
        v->inline_scales = sv.pos ? r->buf + sv.pos : NULL;
        break;
      }
      case TP_XNN_QUANT_PER_TOKEN_DYNAMIC:
        v->num_nonbatch_dims = tp_fb_i32(&q, TP__XF(PerTokenDynamicQuant, num_nonbatch_dims), 0);
        break;
      default:
        return tp__error_set(err, TP_ERR_FORMAT, "value %u: unknown quantization %u",
                            (unsigned)vi, (unsigned)qt);
    }
  }
  if (tp_fb_reader_status(r) != TP_OK)
    return tp__error_set(err, TP_ERR_FORMAT, "value %u: %s", (unsigned)vi, r->err.msg);
  return TP_OK;
}

static tp_status tp__xnn_rd_node(tp_fb_reader *r, uint32_t ni, tp_fb_table *xn,
                                 tp_xnn_blob_node *n, tp_error *err) {
  uint8_t kind = 0;
  tp_fb_table body = tp_fb_union_field(xn, TP__XF(XNode, xnode_union), &kind);
  tp_fb_table mm = tp_fb_table_field(xn, TP__XF(XNode, output_min_max));
  const tp_xnn_node_desc *d = tp_xnn_describe_node(kind);
  uint32_t i;
  if (tp_fb_reader_status(r) != TP_OK) /* the reader's own sentence (e.g. its table budget) */
    return tp__error_set(err, TP_ERR_FORMAT, "node %u: %s", (unsigned)ni, r->err.msg);
  if (!d || body.pos == 0)
    return tp__error_set(err, TP_ERR_FORMAT, "node %u: unknown node type %u", (unsigned)ni,
                        (unsigned)kind);
  n->kind = kind;
  n->desc = d;
  n->debug_handle = tp_fb_u32(xn, TP__XF(XNode, debug_handle), 0);
  n->has_debug_handle = tp_fb_present(xn, TP__XF(XNode, debug_handle));
  if (mm.pos) {
    n->has_output_min_max = 1;
    n->output_min = tp_fb_f32(&mm, TP__XF(OutputMinMax, output_min), 0.0f);
    n->output_max = tp_fb_f32(&mm, TP__XF(OutputMinMax, output_max), 0.0f);
  }
  for (i = 0; i < d->nfields; i++) {
    const tp_xnn_field *f = &d->fields[i];
    if (f->type == 'v') {
      tp_fb_vector v = tp_fb_vector_field(&body, f->id, 4);
      uint32_t k;
      if (v.pos == 0 || v.count > TP_XNN_MAX_DIMS)
        return tp__error_set(err, TP_ERR_FORMAT, "node %u (%s): vector field %u %s", (unsigned)ni,
                            d->name, (unsigned)f->id,
                            v.pos ? "has more than 6 entries" : "is missing");
      for (k = 0; k < v.count; k++) n->vec[n->nvec][k] = (uint32_t)tp_fb_vector_scalar(&v, k);
      n->vec_len[n->nvec] = v.count;
      n->f[f->id] = n->nvec++;
    } else if (f->type == 'f') {
      float x = tp_fb_f32(&body, f->id, 0.0f);
      memcpy(&n->f[f->id], &x, sizeof x);
    } else {
      n->f[f->id] = tp_fb_u32(&body, f->id, 0);
    }
  }
  if (tp_fb_reader_status(r) != TP_OK)
    return tp__error_set(err, TP_ERR_FORMAT, "node %u: %s", (unsigned)ni, r->err.msg);
  return TP_OK;
}

TPDEF tp_status tp_xnn_read_blob(const void *blob, size_t size, tp_xnn_blob *out, tp_error *err) {
  const unsigned char *p = (const unsigned char *)blob;
  tp_fb_reader r;
  tp_fb_table root;
  tp_fb_vector values, nodes, cdata;
  tp_status st = TP_OK;
  uint32_t i;
  int ok = 1;
  if (err) memset(err, 0, sizeof *err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "read_blob: out is NULL");
  memset(out, 0, sizeof *out);
  out->stop_part = TP_XNN_PART_FLATBUFFER; /* advanced as the parts are read */
  if (!p) return tp__error_set(err, TP_ERR_INVALID, "read_blob: no blob");
  out->flatbuffer = p;
  out->flatbuffer_size = size;
  if (size >= 8 && memcmp(p + 4, "XH00", 4) == 0) { /* tpdump's test: a short one is refused */
    st = tp__delegate_parse(p, size, "XH00", "constant data", &out->frame, err);
    if (st != TP_OK) return st;
    out->has_header = 1;
    out->flatbuffer = p + out->frame.flatbuffer_offset;
    out->flatbuffer_size = out->frame.flatbuffer_size;
    out->segment = p + out->frame.segment_offset;
    out->segment_size = out->frame.segment_size;
  }
  memset(&r, 0, sizeof r);
  if (tp_fb_reader_init(&r, out->flatbuffer, out->flatbuffer_size, NULL, &root) != TP_OK) {
    st = tp__error_set(err, TP_ERR_FORMAT, "flatbuffer: %s", r.err.msg);
    goto fail;
  }
  memcpy(out->identifier, out->flatbuffer + 4, 4);
  if (memcmp(out->identifier, "XN01", 4) != 0 && memcmp(out->identifier, "XN00", 4) != 0)
    TP__XNN_RD_FAIL("flatbuffer identifier is not XN00 or XN01");
  out->stop_part = TP_XNN_PART_GRAPH;
  out->version = tp_fb_string(&root, TP__XF(XNNGraph, version), &out->version_len);
  values = tp_fb_vector_field(&root, TP__XF(XNNGraph, xvalues), 4);
  nodes = tp_fb_vector_field(&root, TP__XF(XNNGraph, xnodes), 4);
  cdata = tp_fb_vector_field(&root, TP__XF(XNNGraph, constant_data), 4);
  out->num_externs = tp_fb_u32(&root, TP__XF(XNNGraph, num_externs), 0);
  out->num_values = values.count; /* the entries are read below */
  out->num_nodes = nodes.count;
  out->num_constants = cdata.count;
  if (tp_fb_reader_status(&r) != TP_OK || values.pos == 0 || nodes.pos == 0)
    TP__XNN_RD_FAIL("graph: %s", r.err.status ? r.err.msg : "xvalues or xnodes missing");
  if (out->num_externs > TP_XNN_MAX_EXTERNS)
    TP__XNN_RD_FAIL("num_externs %u exceeds %d", (unsigned)out->num_externs, TP_XNN_MAX_EXTERNS);
  out->input_ids = tp__xnn_rd_ids(&root, TP__XF(XNNGraph, input_ids), &out->num_input_ids,
                                  &out->has_input_ids, &ok);
  out->output_ids = tp__xnn_rd_ids(&root, TP__XF(XNNGraph, output_ids), &out->num_output_ids,
                                   &out->has_output_ids, &ok);
  out->values = (tp_xnn_blob_value *)tp__xnn_zalloc(values.count, sizeof *out->values, &ok);
  out->nodes = (tp_xnn_blob_node *)tp__xnn_zalloc(nodes.count, sizeof *out->nodes, &ok);
  out->constants =
      (tp_xnn_blob_constant *)tp__xnn_zalloc(cdata.count, sizeof *out->constants, &ok);
  if (!ok) {
    st = tp__error_set(err, TP_ERR_NOMEM, "read_blob: no memory for %u values, %u nodes",
                      (unsigned)values.count, (unsigned)nodes.count);
    goto fail;
  }
  if (tp_fb_reader_status(&r) != TP_OK) TP__XNN_RD_FAIL("graph: %s", r.err.msg);
  out->stop_part = TP_XNN_PART_VALUES;
  for (i = 0; i < values.count; i++) {
    tp_fb_table xv = tp_fb_vector_table(&values, i);
    out->stop_index = i;
    st = tp__xnn_rd_value(&r, i, &xv, &out->values[i], err);
    if (st != TP_OK) goto fail;
  }
  out->stop_part = TP_XNN_PART_NODES;
  for (i = 0; i < nodes.count; i++) {
    tp_fb_table xn = tp_fb_vector_table(&nodes, i);
    out->stop_index = i;
    st = tp__xnn_rd_node(&r, i, &xn, &out->nodes[i], err);
    if (st != TP_OK) goto fail;
  }
  out->stop_part = TP_XNN_PART_CONSTANTS;
  for (i = 0; i < cdata.count; i++) {
    tp_fb_table e = tp_fb_vector_table(&cdata, i);
    tp_xnn_blob_constant *c = &out->constants[i];
    out->stop_index = i;
    if (e.pos == 0)
      TP__XNN_RD_FAIL("constant_data[%u]: %s", (unsigned)i, r.err.status ? r.err.msg : "absent");
    c->offset = tp_fb_u64(&e, TP__XF(ConstantDataOffset, offset), 0);
    c->size = tp_fb_u64(&e, TP__XF(ConstantDataOffset, size), 0);
    if (tp_fb_present(&e, TP__XF(ConstantDataOffset, named_key))) {
      c->named_key = tp_fb_string(&e, TP__XF(ConstantDataOffset, named_key), &c->named_key_len);
      if (!c->named_key || strlen(c->named_key) != c->named_key_len)
        TP__XNN_RD_FAIL("constant_data[%u]: bad named_key", (unsigned)i);
    } else if (out->segment && c->offset <= out->segment_size &&
               c->size <= out->segment_size - c->offset) {
      c->data = out->segment + c->offset;
    }
    if (tp_fb_reader_status(&r) != TP_OK)
      TP__XNN_RD_FAIL("constant_data[%u]: %s", (unsigned)i, r.err.msg);
  }
  st = tp__xnn_check_format(out, err); /* the format's rules (>>xnn-check-blob) */
fail: /* the result keeps what was read, stop_part / stop_index where it stopped */
  return st;
}
#undef TP__XNN_RD_FAIL
/* >>xnn-check-blob: the same rules on a blob -------------------------------------------------- */
/* tp_xnn_read_blob reads the blob once, with the format rules (tp__xnn_check_format below):
   what breaks them is TP_ERR_FORMAT, for every target; tpdump's verdict is this. The node and
   graph rules then judge that result (tp__xnn_check_read), as the loader does. */
static int tp__xnn_id_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  TP__STEP();
  return x < y ? -1 : x > y;
}

/* The blob's values as (id_out << 32 | position), sorted: the format rules find equal ids next
   to each other, the node rules the value a node field names (NULL: no memory). */
static uint64_t *tp__xnn_id_map(const tp_xnn_blob *b) {
  uint64_t *map = (uint64_t *)TP_MALLOC(((size_t)b->num_values + 1) * sizeof *map);
  uint32_t i;
  for (i = 0; map && i < b->num_values; i++)
    map[i] = (uint64_t)b->values[i].id_out << 32 | (uint64_t)i;
  if (map && b->num_values) qsort(map, b->num_values, sizeof *map, tp__xnn_id_cmp);
  return map;
}

/* The position of the value with id_out `id` in the map, or TP_XNN_INVALID_ID. */
static uint32_t tp__xnn_id_find(const uint64_t *map, size_t n, uint32_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t mid_id = (uint32_t)(map[mid] >> 32);
    if (mid_id == id) return (uint32_t)(map[mid] & 0xFFFFFFFFu);
    if (mid_id < id) lo = mid + 1;
    else hi = mid;
  }
  return TP_XNN_INVALID_ID;
}

/* Constant index idx of value `value` (what: "constant" or "scale_buffer_idx") exists and,
   inline, holds want (or alt) bytes. idx 0: none. */
static tp_status tp__xnn_cf_const(const tp_xnn_blob *b, uint32_t idx, uint64_t want,
                                  uint64_t alt, const char *what, uint32_t value, tp_error *err) {
  const tp_xnn_blob_constant *c;
  if (idx == 0) return TP_OK;
  if (idx >= b->num_constants)
    return tp__error_set(err, TP_ERR_FORMAT, "value %lu: %s %lu but constant_data has %lu entries",
                         (unsigned long)value, what, (unsigned long)idx,
                         (unsigned long)b->num_constants);
  c = &b->constants[idx];
  /* inline or named: the size the blob gives; more is fine (values may share a larger entry,
     XNNPACK reads what the dims need), less is not */
  if (c->size < want && c->size < alt)
    return tp__error_set(err, TP_ERR_FORMAT, "value %lu: %s %lu holds %llu bytes, the value needs "
                         "%llu", (unsigned long)value, what, (unsigned long)idx,
                         (unsigned long long)c->size, (unsigned long long)want);
  return TP_OK;
}

/* The node rules' view of a value tp_xnn_read_blob read (the format rules size it with
   tp__xnn_value_bytes; tp_xnn_check_blob and the loader judge the result through it); the
   per-channel scale range is the caller's (tp__xnn_qc_note). */
static void tp__xnn_blob_view(const tp_xnn_blob *b, const tp_xnn_blob_value *bv,
                              tp__xnn_value *cv) {
  memset(cv, 0, sizeof *cv);
  cv->datatype = bv->datatype;
  cv->num_dims = bv->ndims;
  memcpy(cv->dims, bv->dims, sizeof cv->dims);
  cv->const_idx = bv->constant_buffer_idx;
  cv->const_named = cv->const_idx && cv->const_idx < b->num_constants &&
                    b->constants[cv->const_idx].named_key != NULL;
  cv->external_id = bv->external_id;
  cv->flags = bv->flags;
  cv->quant = bv->value_type == TP_XNN_VALUE_QUANTIZED ? bv->quant : TP__XNN_Q_NONE;
  if (cv->quant == TP_XNN_QUANT_PER_TENSOR) {
    cv->scale = bv->scale;
    cv->zero_point = bv->zero_point;
  }
}

/* The XN01 format rules that the node and graph rules do not judge, on what tp_xnn_read_blob
   read (decided once: tpdump --check's verdict is tp_xnn_check_blob's):
   value ids unique and not XNN_INVALID_VALUE_ID; input / output ids and node id fields naming
   values; every value a known datatype with dims present, num_dims equal to their count,
   numel(dims) x element size inside 64 bits (the writer refuses the same at define time,
   tp__xnn_value_bytes), external values below num_externs; constants and scale buffers that
   exist and hold at least the bytes the value needs; quantization parameters that
   match the dims; every inline constant_data entry inside the constant segment. */
static tp_status tp__xnn_check_format(tp_xnn_blob *b, tp_error *err) {
  uint64_t *ids = tp__xnn_id_map(b);
  uint32_t i, k;
  tp_status st = TP_OK;
#define TP__XNN_CF_FAIL(...)                              \
  do {                                                    \
    st = tp__error_set(err, TP_ERR_FORMAT, __VA_ARGS__); \
    goto done;                                            \
  } while (0)
  if (!ids) return tp__error_set(err, TP_ERR_NOMEM, "check: no memory for %u value ids",
                                 (unsigned)b->num_values);
  b->stop_part = TP_XNN_PART_GRAPH;
  b->stop_index = 0;
  for (i = 1; i < b->num_values; i++)
    if (ids[i] >> 32 == ids[i - 1] >> 32)
      TP__XNN_CF_FAIL("two values have id_out %lu", (unsigned long)(ids[i] >> 32));
  if (b->num_values && ids[b->num_values - 1] >> 32 == TP_XNN_INVALID_ID)
    TP__XNN_CF_FAIL("a value has id_out %lu (XNN_INVALID_VALUE_ID)",
                    (unsigned long)TP_XNN_INVALID_ID);
  for (k = 0; k < 2; k++) {
    const uint32_t *io = k ? b->output_ids : b->input_ids;
    uint32_t nio = k ? b->num_output_ids : b->num_input_ids;
    b->stop_part = k ? TP_XNN_PART_OUTPUT_IDS : TP_XNN_PART_INPUT_IDS;
    for (i = 0; i < nio; i++) {
      b->stop_index = i;
      if (tp__xnn_id_find(ids, b->num_values, io[i]) == TP_XNN_INVALID_ID)
        TP__XNN_CF_FAIL("%s[%lu] = %lu is no value's id_out", k ? "output_ids" : "input_ids",
                        (unsigned long)i, (unsigned long)io[i]);
    }
  }
  b->stop_part = TP_XNN_PART_VALUES;
  for (i = 0; i < b->num_values; i++) {
    const tp_xnn_blob_value *v = &b->values[i];
    tp__xnn_value tv;
    uint64_t want = 0, alt = 0;
    int group = v->quant == TP_XNN_QUANT_PER_CHANNEL_GROUP;
    b->stop_index = i;
    if (!tp_xnn_datatype_bits(v->datatype))
      TP__XNN_CF_FAIL("value %lu: datatype %d is not an XNNDatatype", (unsigned long)i,
                      v->datatype);
    if (!v->has_dims)
      TP__XNN_CF_FAIL("value %lu: dims absent (the loader reads them unchecked)",
                      (unsigned long)i);
    if (v->num_dims != v->ndims)
      TP__XNN_CF_FAIL("value %lu: num_dims %lu but dims has %lu entries", (unsigned long)i,
                      (unsigned long)v->num_dims, (unsigned long)v->ndims);
    if (v->flags & ~(TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT))
      TP__XNN_CF_FAIL("value %u: unknown flag bits 0x%x", (unsigned)i, (unsigned)v->flags);
    if (v->flags && v->external_id == TP_XNN_INVALID_ID)
      TP__XNN_CF_FAIL("value %u: flags 0x%x mark it external but its external id is 0x%x (none)",
                      (unsigned)i, (unsigned)v->flags, (unsigned)v->external_id);
    if (v->external_id != TP_XNN_INVALID_ID && v->external_id >= TP_XNN_MAX_EXTERNS)
      TP__XNN_CF_FAIL("value %u: external id %u, the loader allows ids below %d", (unsigned)i,
                      (unsigned)v->external_id, TP_XNN_MAX_EXTERNS);
    if (v->constant_buffer_idx && v->external_id != TP_XNN_INVALID_ID)
      TP__XNN_CF_FAIL("value %u: constant %u has external id %u: a constant cannot be external",
                      (unsigned)i, (unsigned)v->constant_buffer_idx, (unsigned)v->external_id);
    if (v->flags && v->external_id >= b->num_externs) /* flags: known bits only by now */
      TP__XNN_CF_FAIL("value %lu: external_id %lu but num_externs is %lu", (unsigned long)i,
                      (unsigned long)v->external_id, (unsigned long)b->num_externs);
    tp__xnn_blob_view(b, v, &tv);
    if (!tp__xnn_value_bytes(&tv, &want, &alt))
      TP__XNN_CF_FAIL("value %lu: the product of dims overflows 64 bits", (unsigned long)i);
    st = tp__xnn_cf_const(b, v->constant_buffer_idx, want, alt, "constant", i, err);
    if (st != TP_OK) goto done;
    if (v->quant == TP_XNN_QUANT_PER_TOKEN_DYNAMIC && v->constant_buffer_idx)
      TP__XNN_CF_FAIL("value %lu: dynamically quantized with constant %lu (the loader refuses "
                      "data)", (unsigned long)i, (unsigned long)v->constant_buffer_idx);
    if (v->quant == TP_XNN_QUANT_PER_CHANNEL || group) {
      uint32_t cd = (uint32_t)v->channel_dim;
      if (v->channel_dim < 0 || cd >= v->ndims)
        TP__XNN_CF_FAIL("value %lu: channel_dim %ld outside its %lu dims", (unsigned long)i,
                        (long)v->channel_dim, (unsigned long)v->ndims);
      if (!group && !v->has_inline_scale)
        TP__XNN_CF_FAIL("value %lu: per-channel scale vector absent (the loader reads it "
                        "unchecked)", (unsigned long)i);
      if (v->scale_buffer_idx == 0 && !v->has_inline_scale)
        TP__XNN_CF_FAIL("value %lu: no scales (scale vector absent, scale_buffer_idx 0)",
                        (unsigned long)i);
      if (group) {
        uint64_t oc, ic, n = v->scale_buffer_idx ? v->num_scales : v->num_inline_scales;
        if (v->ndims < 2 || v->group_size <= 0)
          TP__XNN_CF_FAIL("value %lu: groupwise needs 2+ dims and group_size > 0 (have %lu dims, "
                          "group_size %ld)", (unsigned long)i, (unsigned long)v->ndims,
                          (long)v->group_size);
        oc = v->dims[0];
        ic = v->dims[1];
        if (n != oc * ic / (uint64_t)v->group_size)
          TP__XNN_CF_FAIL("value %lu: %llu scales, dims %llu x %llu with group_size %ld need %llu",
                          (unsigned long)i, (unsigned long long)n, (unsigned long long)oc,
                          (unsigned long long)ic, (long)v->group_size,
                          (unsigned long long)(oc * ic / (uint64_t)v->group_size));
      } else if (!v->scale_buffer_idx && v->num_inline_scales != v->dims[cd]) {
        TP__XNN_CF_FAIL("value %lu: %lu scales in the scale vector but dims[%ld] is %llu",
                        (unsigned long)i, (unsigned long)v->num_inline_scales,
                        (long)v->channel_dim, (unsigned long long)v->dims[cd]);
      } else if (v->scale_buffer_idx && v->num_scales != v->dims[cd]) {
        TP__XNN_CF_FAIL("value %lu: num_scales %lu but dims[%ld] is %llu", (unsigned long)i,
                        (unsigned long)v->num_scales, (long)v->channel_dim,
                        (unsigned long long)v->dims[cd]);
      }
      /* scale constants: fp32 per channel, bf16 groupwise */
      st = tp__xnn_cf_const(b, v->scale_buffer_idx, (uint64_t)v->num_scales * (group ? 2u : 4u),
                            (uint64_t)v->num_scales * (group ? 2u : 4u), "scale_buffer_idx", i,
                            err);
      if (st != TP_OK) goto done;
    }
  }
  b->stop_part = TP_XNN_PART_NODES;
  for (i = 0; i < b->num_nodes; i++) {
    const tp_xnn_blob_node *n = &b->nodes[i];
    const tp_xnn_node_desc *d = n->desc;
    uint32_t fi;
    b->stop_index = i;
    for (fi = 0; d && fi < d->nfields; fi++) {
      const tp_xnn_field *f = &d->fields[fi];
      uint32_t id;
      if (f->role != 'i' && f->role != 'o') continue; /* not an id, or an unused slot */
      id = n->f[f->id];
      /* a required id ('i') must name a value; an optional one ('b') may be none */
      if ((f->type == 'i' || id != TP_XNN_INVALID_ID) &&
          tp__xnn_id_find(ids, b->num_values, id) == TP_XNN_INVALID_ID)
        TP__XNN_CF_FAIL("node %lu (%s): %s %lu is no value's id_out", (unsigned long)i,
                        d->member + 3, f->name, (unsigned long)id);
    }
  }
  b->stop_part = TP_XNN_PART_CONSTANTS;
  for (i = 0; i < b->num_constants; i++) {
    const tp_xnn_blob_constant *c = &b->constants[i];
    uint64_t end;
    b->stop_index = i;
    if (c->named_key) continue;
    if (tp__add_u64(c->offset, c->size, &end) || end > b->segment_size)
      TP__XNN_CF_FAIL("constant_data[%lu]: [%llu, +%llu) is outside the %llu-byte constant "
                      "segment", (unsigned long)i, (unsigned long long)c->offset,
                      (unsigned long long)c->size, (unsigned long long)b->segment_size);
  }
done:
#undef TP__XNN_CF_FAIL
  if (st == TP_OK) { /* every part read and its rules kept */
    b->stop_part = TP_XNN_PART_NONE;
    b->stop_index = 0;
  }
  TP_FREE(ids);
  return st;
}

/* The node rules' view of a node tp_xnn_read_blob read: its id fields as the value positions
   pos[] (TP_XNN_INVALID_ID: none; the caller sets their value views in cn->v), its vectors in
   their slots, every other field as stored. */
static void tp__xnn_blob_nview(const tp_xnn_blob_node *n, uint32_t ni, const uint32_t *pos,
                               tp__xnn_nview *cn) {
  const tp_xnn_node_desc *d = n->desc;
  uint32_t i, s = 0;
  memset(cn, 0, sizeof *cn);
  cn->kind = n->kind;
  cn->index = ni;
  for (i = 0; i < d->nfields; i++) {
    char t = d->fields[i].type;
    if (t == 'v') {
      cn->f[i] = s;
      cn->vlen[s] = n->vec_len[s];
      memcpy(cn->vec[s], n->vec[s], sizeof cn->vec[s]);
      s++;
    } else {
      cn->f[i] = t == 'i' || t == 'b' ? pos[i] : n->f[i];
    }
  }
  cn->has_minmax = n->has_output_min_max;
  cn->out_min = n->output_min;
  cn->out_max = n->output_max;
}

/* A per-channel value's scales for the requantization rule, where the blob holds them: the
   inline scale vector, or (scale_buffer_idx != 0) an inline constant_data entry; a named entry
   (its bytes are in a .ptd) leaves the range unknown. */
static void tp__xnn_cb_scales(const tp_xnn_blob *b, const tp_xnn_blob_value *bv,
                              tp__xnn_value *v) {
  const unsigned char *p = NULL;
  uint64_t nsc, k;
  if (v->quant != TP_XNN_QUANT_PER_CHANNEL || bv->channel_dim < 0 ||
      (uint32_t)bv->channel_dim >= v->num_dims)
    return;
  nsc = v->dims[bv->channel_dim];
  if (bv->scale_buffer_idx == 0) {
    if (bv->num_inline_scales >= nsc) p = bv->inline_scales;
  } else if (bv->scale_buffer_idx < b->num_constants) {
    const tp_xnn_blob_constant *c = &b->constants[bv->scale_buffer_idx];
    if (c->data && c->size / 4u >= nsc) p = c->data;
  }
  for (k = 0; p && k < nsc; k++)
    tp__xnn_qc_note(v, tp_fb_bits_f32(tp__get_le32(p + 4u * k)), (uint32_t)k);
}

/* What tp_xnn_read_blob read, as a scratch graph (the writer's own records: values, nodes with
   their id fields as value positions), judged by tp__xnn_check_node on every node and
   tp__xnn_check_graph: a blob is judged by exactly the rules a graph is judged by at define
   time and at write. */
static tp_status tp__xnn_check_read(const tp_xnn_blob *b, int target, tp_error *err) {
  tp_xnn_graph g;
  uint64_t *map = tp__xnn_id_map(b);
  tp_status st = TP_OK;
  uint32_t i, f;
  memset(&g, 0, sizeof g);
  g.target = target;
  g.values = (tp__xnn_value *)TP_MALLOC(((size_t)b->num_values + 1) * sizeof *g.values);
  g.nodes = (tp__xnn_node *)TP_MALLOC(((size_t)b->num_nodes + 1) * sizeof *g.nodes);
  if (!g.values || !g.nodes || !map)
    st = tp__error_set(err, TP_ERR_NOMEM, "check: no memory for %u values and %u nodes",
                       (unsigned)b->num_values, (unsigned)b->num_nodes);
  for (i = 0; st == TP_OK && i < b->num_values; i++) {
    tp__xnn_blob_view(b, &b->values[i], &g.values[i]);
    tp__xnn_cb_scales(b, &b->values[i], &g.values[i]);
  }
  g.nvalues = b->num_values;
  for (i = 0; st == TP_OK && i < b->num_nodes; i++) {
    const tp_xnn_blob_node *n = &b->nodes[i];
    uint32_t pos[TP_XNN_NODE_MAX_FIELDS];
    tp__xnn_nview nv;
    for (f = 0; f < n->desc->nfields; f++) {
      char r = n->desc->fields[f].role;
      /* the format rules (tp_xnn_read_blob) have checked every id names a value, but a
         concatenate's inputs above its count, which it ignores (role 'n') */
      pos[f] = r == 'i' || r == 'o' ? tp__xnn_id_find(map, b->num_values, n->f[f])
                                    : TP_XNN_INVALID_ID;
    }
    tp__xnn_blob_nview(n, i, pos, &nv);
    memset(&g.nodes[i], 0, sizeof g.nodes[i]);
    g.nodes[i].kind = n->kind;
    memcpy(g.nodes[i].f, nv.f, sizeof nv.f); /* the graph rules index values by position */
    for (f = 0; f < n->desc->nfields; f++)
      if (pos[f] != TP_XNN_INVALID_ID) nv.v[f] = &g.values[pos[f]];
    g.nnodes = i + 1;
    st = tp__xnn_check_node(&nv, target, err);
  }
  if (st == TP_OK) st = tp__xnn_check_graph(&g, err);
  TP_FREE(g.values);
  TP_FREE(g.nodes);
  TP_FREE(map);
  return st;
}

TPDEF tp_status tp_xnn_check_blob(const void *blob, size_t size, int target, tp_error *err) {
  tp_xnn_blob b;
  tp_error e;
  tp_status st;
  tp_error *out = err ? err : &e;
  memset(out, 0, sizeof *out);
  if (!blob) return tp__error_set(out, TP_ERR_INVALID, "check: no blob");
  if (target < TP_XNN_TARGET_EXECUTORCH || target > TP_XNN_TARGET_UNCHECKED)
    return tp__error_set(out, TP_ERR_INVALID, "check: unknown target %d", target);
  st = tp_xnn_read_blob(blob, size, &b, out); /* the format rules, for every target */
  if (st == TP_OK && target != TP_XNN_TARGET_UNCHECKED) st = tp__xnn_check_read(&b, target, out);
  tp_xnn_blob_free(&b);
  return st;
}

/* >>xnn-pte: a graph as a program's method ------------------------------------------------ */

TPDEF tp_status tp_xnn_graph_value(const tp_xnn_graph *g, uint32_t id, tp_xnn_value_info *out) {
  const tp__xnn_value *v;
  uint32_t d;
  TP_ASSERT(g);
  if (!out) return TP_ERR_INVALID;
  memset(out, 0, sizeof *out);
  if (id >= g->nvalues) return TP_ERR_INVALID;
  v = &g->values[id];
  out->datatype = v->datatype;
  out->num_dims = v->num_dims;
  for (d = 0; d < v->num_dims && d < TP_XNN_MAX_DIMS; d++) out->dims[d] = v->dims[d];
  out->external_id = v->external_id;
  out->flags = v->flags;
  out->is_constant = v->const_idx != 0;
  return TP_OK;
}

/* XNNDatatype -> ScalarType (tp_dtype codes; the list's scalar column); -1 for none. */
static int tp__xnn_scalar_type(int dt) {
  const tp__xnn_dt_row *r = tp__xnn_dt(dt);
  return r ? r->scalar : -1;
}

static tp_status tp__xnn_pte_produce(void *ctx, tp_sink *sink) {
  return tp_xnn_write((tp_xnn_graph *)ctx, sink);
}

/* g's externals in external-id order (tp__pte_backend's tensors): counting checks that the ids
   are dense, so every id indexes t. */
static tp_status tp__xnn_pte_tensors(void *graph, tp_pte_tensor *t, size_t *n_out, tp_error *e) {
  tp_xnn_graph *g = (tp_xnn_graph *)graph;
  tp_xnn_value_info vi;
  uint32_t i, n = 0, max_id = 0, miss = 0;
  unsigned char seen[TP_XNN_MAX_EXTERNS] = {0}; /* ids are unique and < 4096 (the graph checks) */
  for (i = 0; !t && i < g->nvalues; i++) {
    uint32_t x = g->values[i].external_id;
    if (x == TP_XNN_INVALID_ID) continue;
    n++;
    seen[x] = 1;
    if (x > max_id) max_id = x;
  }
  if (n > 0 && max_id >= n) { /* a gap below max_id: the first id missing names it */
    while (seen[miss]) miss++;
    return tp__error_set(e, TP_ERR_INVALID, "external ids are not dense 0 .. %lu: %lu "
                         "externals, the largest id is %lu and id %lu is missing",
                         (unsigned long)(n - 1), (unsigned long)n, (unsigned long)max_id,
                         (unsigned long)miss);
  }
  for (i = 0; t && i < g->nvalues; i++) {
    tp_pte_tensor *a;
    int sc;
    uint32_t d;
    tp_xnn_graph_value(g, i, &vi);
    if (vi.external_id == TP_XNN_INVALID_ID) continue;
    a = &t[vi.external_id];
    if ((vi.flags & (TP_XNN_FLAG_EXTERNAL_INPUT | TP_XNN_FLAG_EXTERNAL_OUTPUT)) == 0)
      return tp__error_set(e, TP_ERR_INVALID, "value %lu (external id %lu) is neither an "
                           "external input nor an external output", (unsigned long)i,
                           (unsigned long)vi.external_id);
    sc = tp__xnn_scalar_type(vi.datatype);
    if (sc < 0)
      return tp__error_set(e, TP_ERR_UNSUPPORTED, "value %lu (external id %lu) has datatype "
                           "%s, which has no ScalarType", (unsigned long)i,
                           (unsigned long)vi.external_id, tp_xnn_datatype_name(vi.datatype));
    a->role = ((vi.flags & TP_XNN_FLAG_EXTERNAL_INPUT) ? TP_PTE_INPUT : 0u) |
              ((vi.flags & TP_XNN_FLAG_EXTERNAL_OUTPUT) ? TP_PTE_OUTPUT : 0u);
    a->dtype = (tp_dtype)sc;
    a->ndim = (int)vi.num_dims;
    for (d = 0; d < vi.num_dims; d++) a->sizes[d] = (int64_t)vi.dims[d];
  }
  if (!t) *n_out = n;
  return TP_OK;
}

static const tp__pte_backend tp__xnn_pte_backend = {
    "XnnpackBackend", "XNNPACK", "an XNNPACK call", 1, tp__xnn_writer, tp__xnn_pte_tensors,
    tp__xnn_pte_produce};

TPDEF tp_status tp_xnn_add_pte_method(tp_pte *p, const char *name, tp_xnn_graph *g) {
  return tp__pte_add_backend_method(p, name, &tp__xnn_pte_backend, g, NULL, 0);
}

TPDEF tp_status tp_xnn_pte_call(tp_pte_graph *pg, tp_xnn_graph *g, const uint32_t *args,
                                size_t n) {
  return tp__pte_backend_call(pg, &tp__xnn_pte_backend, g, args, n);
}

/* >>xnn-pte-read: named keys a program's XNNPACK delegates need from outside */

TPDEF tp_status tp__xnn_blob_keys(const void *blob, size_t size, tp__key_fn fn, void *ctx,
                                  tp_error *err) {
  tp_xnn_blob b;
  uint32_t c;
  tp_status s;
  memset(&b, 0, sizeof b);
  if ((s = tp_xnn_read_blob(blob, size, &b, err)) != TP_OK) {
    tp_xnn_blob_free(&b); /* a failed read keeps what it read */
    return s;
  }
  for (c = 1; c < b.num_constants && s == TP_OK; c++)
    if (b.constants[c].named_key)
      s = fn(ctx, b.constants[c].named_key, b.constants[c].named_key_len);
  tp_xnn_blob_free(&b);
  return s;
}

TPDEF tp_status tp_xnn_pte_missing_keys(tp_pte_file *f, size_t m, tp_ptd *ptd, const char **keys,
                                        size_t cap, size_t *count, tp_error *err) {
  static const tp__pte_backend_keys bk = {"XnnpackBackend", tp__xnn_blob_keys};
  return tp__pte_missing_keys("tp_xnn_pte_missing_keys", f, m, ptd, &bk, 1, keys, cap, count,
                              err);
}

/* >>xnn-runtime (TENSORPACK_XNNPACK_RUNTIME) ------------------------------------------------ */
#ifdef TENSORPACK_XNNPACK_RUNTIME
#include <math.h>
#include <xnnpack.h>

/* The loader maps a datatype by name (TP_XNN_DATATYPES: three codes differ from XNNPACK's).
   Which names the linked xnnpack.h has is detected at compile time: Debian's 2022 snapshot
   stops at qcint32 (7) and has no XNN_EXTRA_QUANTIZATION_PARAMS; headers that define it (2023
   on, as the one ExecuTorch pins) have every datatype of the schema. Define
   TP_XNN_RUNTIME_ALL_DATATYPES to 0 or 1 to override the detection. */
#ifndef TP_XNN_RUNTIME_ALL_DATATYPES
#ifdef XNN_EXTRA_QUANTIZATION_PARAMS
#define TP_XNN_RUNTIME_ALL_DATATYPES 1
#else
#define TP_XNN_RUNTIME_ALL_DATATYPES 0
#endif
#endif

/* Schema datatype dt -> the linked XNNPACK's enum value (by name: xnn_datatype_<name>); 0 when
   the library lacks it. */
static int tp__xnn_rt_datatype(int dt, enum xnn_datatype *out) {
#define TP__XNN_DT_RT(code, NAME, name, bits, view, scalar, family) \
  if (dt == code) {                                                 \
    *out = xnn_datatype_##name;                                     \
    return 1;                                                       \
  }
  TP_XNN_DATATYPES_2022(TP__XNN_DT_RT)
#if TP_XNN_RUNTIME_ALL_DATATYPES
  TP_XNN_DATATYPES_2023(TP__XNN_DT_RT)
#endif
#undef TP__XNN_DT_RT
  return 0;
}

/* The loader's limits (tp_xnn_load's declaration says what they bound). */
#ifndef TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES
#define TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES ((uint64_t)1 << 30)
#endif
#ifndef TP_XNN_RUNTIME_MAX_OPERATOR_BYTES
#define TP_XNN_RUNTIME_MAX_OPERATOR_BYTES ((uint64_t)256 << 20)
#endif

typedef struct tp__xnn_vinfo {
  uint32_t xnn_id;
  int is_const;
  int produced; /* some node already writes it */
  tp__xnn_value cv; /* the value as the node rules (>>xnn-check) see it: its dims */
  int read;         /* some node reads it */
} tp__xnn_vinfo;

struct tp_xnn_runtime {
  tp_error err;
  tp__xnn_vinfo *vinfo;      /* by position in xvalues */
  uint64_t activation_bytes; /* sum over the non-constant values so far */
  uint64_t copied_bytes;     /* sum over the constant copies */
  uint64_t op_bytes;         /* XNNPACK's own allocations for the nodes so far (estimated) */
  xnn_runtime_t runtime;
  uint32_t num_externs;
  void **bound;          /* num_externs pointers */
  void **owned;          /* constant copies the runtime points into, one per source */
  uint64_t *owned_size;  /* their sizes (without the XNN_EXTRA_BYTES of zeros) */
  size_t nowned, cap_owned, cap_owned_size;
  uint32_t *direct;      /* serialized id (< ndirect) -> value position */
  size_t ndirect;
  /* a method of delegate calls (tp_xnn_load_pte): externals are the method's values */
  int is_method;
  struct tp_xnn_runtime **calls; /* one runtime per DelegateCall, in chain order */
  int32_t **call_args;   /* each call's value indices (calls[c]'s external k is value
                            call_args[c][k]) */
  size_t ncalls;
  void **place;          /* per value: its planned or constant bytes (NULL: bound only) */
  uint64_t *vbytes;      /* per value: a tensor's bytes */
  unsigned char *io;     /* per value: 1 plan input, 2 plan output (bits) */
  unsigned char **bufs;  /* the planned buffers (1 .. nbufs - 1; 0 unused) */
  size_t nbufs;
};

/* A fixed-capacity open-addressing table, u64 key -> u32 value (TP_XNN_INVALID_ID: an empty
   slot), sized once for the most keys it will hold (at most half full): the loader's map of
   serialized ids >= the value count, and its constant copies by source. Probes are counted in
   tp__xnn_rt_steps when TP_XNN_RUNTIME_COUNT_STEPS is defined (tests/xnnrt_limits.c). Keys
   are hashed under a key of the table's own (tp__hash_seed), so ids a blob chooses cannot be
   made to collide. */
typedef struct tp__xnn_rt_tab {
  uint64_t *key;
  uint32_t *val;
  size_t mask;
  tp__hashkey hk;
} tp__xnn_rt_tab;

#ifdef TP_XNN_RUNTIME_COUNT_STEPS
static unsigned long long tp__xnn_rt_steps;
#endif

static tp_status tp__xnn_rt_tab_init(tp__xnn_rt_tab *t, uint64_t most) {
  size_t cap = 16;
  while ((uint64_t)cap / 2 < most) {
    if (cap > SIZE_MAX / 4 / sizeof(uint64_t)) return TP_ERR_NOMEM;
    cap *= 2;
  }
  t->key = (uint64_t *)TP_MALLOC(cap * sizeof(uint64_t));
  t->val = (uint32_t *)TP_MALLOC(cap * sizeof(uint32_t));
  t->mask = cap - 1;
  t->hk = tp__hash_seed(t);
  if (!t->key || !t->val) return TP_ERR_NOMEM;
  memset(t->val, 0xFF, cap * sizeof(uint32_t));
  return TP_OK;
}

static void tp__xnn_rt_tab_free(tp__xnn_rt_tab *t) {
  TP_FREE(t->key);
  TP_FREE(t->val);
  memset(t, 0, sizeof *t);
}

/* The slot holding `key`, or the empty slot where it goes. */
static size_t tp__xnn_rt_tab_slot(const tp__xnn_rt_tab *t, uint64_t key) {
  size_t i = (size_t)tp__hash_u64(&t->hk, key) & t->mask;
  for (;;) {
#ifdef TP_XNN_RUNTIME_COUNT_STEPS
    tp__xnn_rt_steps++;
#endif
    if (t->val[i] == TP_XNN_INVALID_ID || t->key[i] == key) return i;
    i = (i + 1) & t->mask;
  }
}

typedef struct tp__xnn_load {
  tp_xnn_runtime *rt;
  tp_xnn_blob b; /* tp_xnn_read_blob's result: the loader reads nothing else of the blob */
  const unsigned char *blob;
  size_t blob_size;
  uint64_t input_bytes; /* blob + .ptd: what all constant copies together may hold */
  tp_ptd ptd;
  uint32_t *ptd_slots; /* tp_ptd_index's hash slots */
  int have_ptd;
  tp__xnn_rt_tab sparse; /* serialized ids >= ndirect -> value position */
  tp__xnn_rt_tab copies; /* source position -> index in rt->owned */
  xnn_subgraph_t sg;
  unsigned char ext_seen[TP_XNN_MAX_EXTERNS / 8]; /* external ids defined so far */
} tp__xnn_load;

TPDEF void tp_xnn_runtime_destroy(tp_xnn_runtime *rt) {
  size_t i;
  if (!rt) return;
  if (rt->runtime) xnn_delete_runtime(rt->runtime);
  for (i = 0; i < rt->ncalls; i++) {
    tp_xnn_runtime_destroy(rt->calls[i]);
    TP_FREE(rt->call_args[i]);
  }
  TP_FREE(rt->calls);
  TP_FREE(rt->call_args);
  for (i = 0; i < rt->nbufs; i++) TP_FREE(rt->bufs[i]);
  TP_FREE(rt->bufs);
  TP_FREE(rt->place);
  TP_FREE(rt->vbytes);
  TP_FREE(rt->io);
  for (i = 0; i < rt->nowned; i++) TP_FREE(rt->owned[i]);
  TP_FREE(rt->owned);
  TP_FREE(rt->owned_size);
  TP_FREE(rt->bound);
  TP_FREE(rt->direct);
  TP_FREE(rt->vinfo);
  TP_FREE(rt);
}

TPDEF const char *tp_xnn_runtime_error(const tp_xnn_runtime *rt) {
  TP_ASSERT(rt);
  return rt->err.status ? rt->err.msg : "";
}

TPDEF uint32_t tp_xnn_runtime_num_externs(const tp_xnn_runtime *rt) {
  TP_ASSERT(rt);
  return rt->num_externs;
}

TPDEF tp_status tp_xnn_runtime_bind(tp_xnn_runtime *rt, uint32_t external_id, void *data) {
  TP_ASSERT(rt);
  memset(&rt->err, 0, sizeof rt->err); /* a failure is this call's only (ERRORS rule) */
  if (external_id >= rt->num_externs)
    return tp__error_set(&rt->err, TP_ERR_INVALID, "bind: external id %u, the %s has %u",
                        (unsigned)external_id, rt->is_method ? "method" : "blob",
                        (unsigned)rt->num_externs);
  if (rt->is_method && !rt->io[external_id])
    return tp__error_set(&rt->err, TP_ERR_INVALID, "bind: value %u is not an input or output "
                        "of the method (the method's memory plan holds it)",
                        (unsigned)external_id);
  rt->bound[external_id] = data;
  return TP_OK;
}

TPDEF tp_status tp_xnn_runtime_extern_size(const tp_xnn_runtime *rt, uint32_t external_id,
                                           size_t *size, size_t *padded) {
  size_t i;
  uint64_t b = 0, alt;
  int found = 0;
  TP_ASSERT(rt);
  if (rt->is_method) { /* a plan input or output: the program's bytes of the value */
    found = external_id < rt->num_externs && rt->io[external_id];
    if (found) b = rt->vbytes[external_id];
  } else { /* the blob's value with that external id */
    for (i = 0; !found && i < rt->ndirect; i++)
      if ((found = rt->vinfo[i].cv.external_id == external_id) != 0)
        tp__xnn_value_bytes(&rt->vinfo[i].cv, &b, &alt); /* inside 64 bits: a format rule */
  }
  if (!found) return TP_ERR_INVALID;
  if (b > (uint64_t)(SIZE_MAX - TP_XNN_EXTRA_BYTES))
    return tp__error_set((tp_error *)&rt->err, TP_ERR_OVERFLOW, "external %u: size overflows",
                        (unsigned)external_id);
  if (size) *size = (size_t)b;
  if (padded) *padded = (size_t)b + TP_XNN_EXTRA_BYTES;
  return TP_OK;
}

/* A method's invoke: every plan input and output bound, then each delegate call's runtime
   with its externals bound to the values' places (bound memory, else planned or constant). */
static tp_status tp__xnn_rt_invoke_method(tp_xnn_runtime *rt) {
  size_t c, k;
  uint32_t v;
  for (v = 0; v < rt->num_externs; v++)
    if (rt->io[v] && !rt->bound[v])
      return tp__error_set(&rt->err, TP_ERR_INVALID, "invoke: the method's %s value %u is not "
                          "bound: tp_xnn_runtime_bind it first",
                          (rt->io[v] & 1) ? "input" : "output", (unsigned)v);
  for (c = 0; c < rt->ncalls; c++) {
    tp_xnn_runtime *sub = rt->calls[c];
    tp_status st = TP_OK;
    for (k = 0; st == TP_OK && k < sub->num_externs; k++) {
      int32_t a = rt->call_args[c][k];
      st = tp_xnn_runtime_bind(sub, (uint32_t)k, rt->bound[a] ? rt->bound[a] : rt->place[a]);
    }
    if (st == TP_OK) st = tp_xnn_runtime_invoke(sub);
    if (st != TP_OK)
      return tp__error_set(&rt->err, st, "invoke: delegate call %lu: %s", (unsigned long)c,
                          sub->err.msg);
  }
  return TP_OK;
}

TPDEF tp_status tp_xnn_runtime_invoke(tp_xnn_runtime *rt) {
  struct xnn_external_value *ev;
  size_t n = 0, i;
  enum xnn_status xs;
  TP_ASSERT(rt);
  memset(&rt->err, 0, sizeof rt->err); /* a failure is this call's only (ERRORS rule) */
  if (rt->is_method) return tp__xnn_rt_invoke_method(rt);
  ev = (struct xnn_external_value *)TP_MALLOC((rt->num_externs + 1) * sizeof *ev);
  if (!ev) return tp__error_set(&rt->err, TP_ERR_NOMEM, "invoke: no memory");
  for (i = 0; i < rt->ndirect; i++) { /* XNNPACK would read or write through NULL */
    const tp__xnn_value *cv = &rt->vinfo[i].cv;
    if (cv->external_id != TP_XNN_INVALID_ID && !rt->bound[cv->external_id]) { /* < num_externs */
      TP_FREE(ev);
      return tp__error_set(&rt->err, TP_ERR_INVALID,
                          "invoke: external %s %u (value %u) is not bound: "
                          "tp_xnn_runtime_bind it first",
                          (cv->flags & TP_XNN_FLAG_EXTERNAL_INPUT) ? "input" : "output",
                          (unsigned)cv->external_id, (unsigned)i);
    }
  }
  for (i = 0; i < rt->num_externs; i++) {
    if (!rt->bound[i]) continue;
    ev[n].id = (uint32_t)i;
    ev[n].data = rt->bound[i];
    n++;
  }
  xs = xnn_setup_runtime(rt->runtime, n, ev);
  TP_FREE(ev);
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_INVALID,
                        "xnn_setup_runtime failed with status %d (%u of %u external values bound)",
                        (int)xs, (unsigned)n, (unsigned)rt->num_externs);
  xs = xnn_invoke_runtime(rt->runtime);
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_INVALID, "xnn_invoke_runtime failed with status %d",
                        (int)xs);
  return TP_OK;
}

/* Serialized ids below `ndirect` (the usual case: 0, 1, 2 ...) map through direct[]; others
   through the hash table `sparse` (id -> value position). The ids are unique (a format rule of
   tp_xnn_read_blob: "two values have id_out ..."). */
static void tp__xnn_rt_map(tp__xnn_load *L, uint32_t from, uint32_t to) {
  size_t slot;
  if (from < L->rt->ndirect) {
    L->rt->direct[from] = to;
    return;
  }
  slot = tp__xnn_rt_tab_slot(&L->sparse, from);
  L->sparse.key[slot] = from; /* at most num_values keys: the table never fills */
  L->sparse.val[slot] = to;
}

static int tp__xnn_rt_lookup(const tp__xnn_load *L, uint32_t from, uint32_t *to) {
  const tp_xnn_runtime *rt = L->rt;
  size_t slot;
  if (from == TP_XNN_INVALID_ID) {
    *to = TP_XNN_INVALID_ID;
    return 1;
  }
  if (from < rt->ndirect) {
    *to = rt->direct[from];
    return *to != TP_XNN_INVALID_ID;
  }
  slot = tp__xnn_rt_tab_slot(&L->sparse, from);
  *to = L->sparse.val[slot];
  return *to != TP_XNN_INVALID_ID;
}

/* A copy of `size` bytes at src (as little-endian floats when f32) that rt owns, padded with
   XNN_EXTRA_BYTES of zeros (XNNPACK reads past the end); NULL when there is no memory. */
static unsigned char *tp__xnn_rt_own(tp_xnn_runtime *rt, const unsigned char *src,
                                     uint64_t size, int f32) {
  unsigned char *copy = NULL;
  size_t k;
  if (size > (uint64_t)SIZE_MAX - XNN_EXTRA_BYTES ||
      tp__array_reserve((void **)&rt->owned, &rt->cap_owned, rt->nowned + 1, sizeof(void *)) ||
      tp__array_reserve((void **)&rt->owned_size, &rt->cap_owned_size, rt->nowned + 1,
                        sizeof(uint64_t)) ||
      !(copy = (unsigned char *)TP_MALLOC((size_t)size + XNN_EXTRA_BYTES)))
    return NULL;
  if (f32) {
    for (k = 0; k + 4 <= (size_t)size; k += 4) {
      float x = tp_fb_bits_f32(tp__get_le32(src + k));
      memcpy(copy + k, &x, 4);
    }
  } else if (size) {
    memcpy(copy, src, (size_t)size);
  }
  memset(copy + size, 0, XNN_EXTRA_BYTES);
  rt->owned_size[rt->nowned] = size;
  rt->owned[rt->nowned++] = copy;
  return copy;
}

/* One copy per source: `size` bytes at `src`, at position `key` of the inputs (the blob's byte
   offset, or blob size + the .ptd's byte offset), copied once into memory the runtime owns (as
   little-endian floats when `f32`) and shared by every value that names the same bytes; a
   longer request at the same position gets its own longer copy. The copies' bound (the blob
   and the .ptd) is one that distinct, non-overlapping constants never reach. */
static tp_status tp__xnn_rt_copy(tp__xnn_load *L, uint32_t value, uint64_t key,
                                 const unsigned char *src, uint64_t size, int f32,
                                 const void **out) {
  tp_xnn_runtime *rt = L->rt;
  size_t slot = tp__xnn_rt_tab_slot(&L->copies, key);
  uint32_t have = L->copies.val[slot];
  uint64_t total = UINT64_MAX;
  if (have != TP_XNN_INVALID_ID && rt->owned_size[have] >= size) {
    *out = rt->owned[have];
    return TP_OK;
  }
  if (tp__add_u64(rt->copied_bytes, size, &total)) total = UINT64_MAX;
  if (total > L->input_bytes)
    return tp__error_set(&rt->err, TP_ERR_FORMAT,
                        "value %u: the constants would need %llu bytes of copies, more than the "
                        "%llu bytes of blob and .ptd (overlapping constant entries)",
                        (unsigned)value, (unsigned long long)total,
                        (unsigned long long)L->input_bytes);
  if (!(*out = tp__xnn_rt_own(rt, src, size, f32)))
    return tp__error_set(&rt->err, TP_ERR_NOMEM, "value %u: no memory for %llu bytes",
                        (unsigned)value, (unsigned long long)size);
  rt->copied_bytes = total;
  L->copies.key[slot] = key; /* at most 2 per value: the table never fills */
  L->copies.val[slot] = (uint32_t)(rt->nowned - 1);
  return TP_OK;
}

/* Constant entry idx -> the runtime's copy of its bytes (shared, tp__xnn_rt_copy). The entry
   exists and its size holds the bytes the value needs (format rules of tp_xnn_read_blob). */
static tp_status tp__xnn_rt_const(tp__xnn_load *L, uint32_t value, uint32_t idx,
                                  const void **out) {
  tp_xnn_runtime *rt = L->rt;
  const tp_xnn_blob_constant *e = &L->b.constants[idx];
  const unsigned char *src;
  uint64_t size = e->size, key;
  if (e->named_key) {
    tp_ptd_entry pe;
    if (!L->have_ptd)
      return tp__error_set(&rt->err, TP_ERR_INVALID,
                          "value %u: constant \"%.80s\" is named but no .ptd was given",
                          (unsigned)value, e->named_key);
    if (tp_ptd_find(&L->ptd, e->named_key, &pe) != TP_OK)
      return tp__error_set(&rt->err, TP_ERR_INVALID, "value %u: key \"%.80s\" is not in the .ptd",
                          (unsigned)value, e->named_key);
    if ((uint64_t)pe.nbytes != e->size) /* the rule tpdump --ptd applies */
      return tp__error_set(&rt->err, TP_ERR_FORMAT,
                          "value %u: constant_data[%u]: named_key \"%.80s\" has %llu bytes in "
                          "the .ptd, the blob says %llu",
                          (unsigned)value, (unsigned)idx, e->named_key,
                          (unsigned long long)pe.nbytes, (unsigned long long)e->size);
    src = (const unsigned char *)pe.data;
    size = pe.nbytes;
    key = (uint64_t)L->blob_size + (uint64_t)(src - L->ptd.data);
  } else {
    if (!e->data)
      return tp__error_set(&rt->err, TP_ERR_FORMAT,
                          "value %u: constant %u {offset %llu, size %llu} is outside the %llu-byte "
                          "constant region",
                          (unsigned)value, (unsigned)idx, (unsigned long long)e->offset,
                          (unsigned long long)size, (unsigned long long)L->b.segment_size);
    src = e->data;
    key = (uint64_t)(src - L->blob);
  }
  return tp__xnn_rt_copy(L, value, key, src, size, 0, out);
}

static tp_status tp__xnn_rt_value(tp__xnn_load *L, uint32_t vi, const tp_xnn_blob_value *bv) {
  tp_xnn_runtime *rt = L->rt;
  tp__xnn_vinfo *v = &rt->vinfo[vi];
  size_t dims[TP_XNN_MAX_DIMS];
  size_t nd = bv->ndims, i; /* <= 6: tp_xnn_read_blob checked */
  int dt = bv->datatype, qt = bv->quant;
  uint32_t ext = bv->external_id, flags = bv->flags, id = TP_XNN_INVALID_ID;
  uint64_t need = 0, alt;
  const void *data = NULL;
  enum xnn_status xs;
  enum xnn_datatype xdt = xnn_datatype_invalid;
  const float *qc_scales = NULL; /* per-channel: the scales XNNPACK gets */
  uint64_t qc_n = 0;
  if (bv->dq_datatype != 0) /* runtime_schema's dq_datatype: the old dynamic path */
    return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED,
                        "value %u: dq_datatype (old dynamic quantization) is not supported",
                        (unsigned)vi);
  for (i = 0; i < nd; i++) dims[i] = (size_t)bv->dims[i];
  tp__xnn_blob_view(&L->b, bv, &v->cv); /* the node rules' view of it (>>xnn-check) */
  /* the format rules hold (tp_xnn_read_blob): known datatype and flag bits, flags only with
     an external id, never on a constant, the dims' bytes inside 64 bits, constants and scales
     that exist and hold what the value needs, a per-channel channel_dim inside the dims with a
     scale per channel; what follows is what the loader itself needs */
  tp__xnn_value_bytes(&v->cv, &need, &alt);
  if (ext != TP_XNN_INVALID_ID && ext >= rt->num_externs)
    return tp__error_set(&rt->err, TP_ERR_FORMAT, "value %u: external id %u >= num_externs %u",
                        (unsigned)vi, (unsigned)ext, (unsigned)rt->num_externs);
  /* XNNPACK gives two values with one external id the same storage (two producers: abort). */
  if (ext != TP_XNN_INVALID_ID) {
    if (L->ext_seen[ext / 8] & (1u << (ext % 8)))
      return tp__error_set(&rt->err, TP_ERR_FORMAT, "value %u: external id %u is used twice",
                          (unsigned)vi, (unsigned)ext);
    L->ext_seen[ext / 8] = (unsigned char)(L->ext_seen[ext / 8] | (1u << (ext % 8)));
  }
  if (!tp__xnn_rt_datatype(dt, &xdt))
    return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED,
                        "value %u: datatype %s (%d) is not in the linked XNNPACK", (unsigned)vi,
                        tp_xnn_datatype_name(dt), dt);
  if (bv->constant_buffer_idx != 0) {
    if (tp__xnn_rt_const(L, vi, bv->constant_buffer_idx, &data) != TP_OK) return rt->err.status;
  } else if (tp__add_u64(rt->activation_bytes, need, &rt->activation_bytes) ||
             rt->activation_bytes > TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES) {
    return tp__error_set(&rt->err, TP_ERR_FORMAT,
                        "value %u: non-constant values need more than %llu bytes (the loader's "
                        "limit, TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES)",
                        (unsigned)vi, (unsigned long long)TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES);
  }
  if (bv->value_type == TP_XNN_VALUE_TENSOR) {
    xs = xnn_define_tensor_value(L->sg, xdt, nd, dims, data, ext, flags, &id);
  } else if (qt == TP_XNN_QUANT_PER_TENSOR) {
    xs = xnn_define_quantized_tensor_value(L->sg, xdt, bv->zero_point, bv->scale, nd, dims, data,
                                           ext, flags, &id);
  } else if (qt == TP_XNN_QUANT_PER_CHANNEL) {
    size_t cd = (size_t)bv->channel_dim;
    const void *scale = NULL;
    qc_n = dims[cd];
    if (bv->scale_buffer_idx != 0) {
      if (tp__xnn_rt_const(L, vi, bv->scale_buffer_idx, &scale) != TP_OK) return rt->err.status;
    } else if (tp__xnn_rt_copy(L, vi, (uint64_t)(bv->inline_scales - L->blob) | (uint64_t)1 << 63,
                               bv->inline_scales, qc_n * 4u, 1, &scale) != TP_OK) {
      return rt->err.status;
    }
    qc_scales = (const float *)scale;
    xs = xnn_define_channelwise_quantized_tensor_value(L->sg, xdt, qc_scales, nd, cd, dims, data,
                                                       ext, flags, &id);
  } else { /* blockwise or dynamic (the reader knows no other quantization tag) */
    return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED,
                        "value %u: %s quantization is not in the linked XNNPACK", (unsigned)vi,
                        qt == TP_XNN_QUANT_PER_CHANNEL_GROUP ? "blockwise (groupwise)"
                                                             : "dynamic");
  }
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_INVALID,
                        "value %u: XNNPACK refused the %s value (xnn_status %d)", (unsigned)vi,
                        tp_xnn_datatype_name(dt), (int)xs);
  v->xnn_id = id;
  v->is_const = data != NULL;
  for (i = 0; i < qc_n; i++) /* the scales as XNNPACK got them, for the requantization rule */
    tp__xnn_qc_note(&v->cv, qc_scales[i], (uint32_t)i); /* qc_n is a dim: < 2^32 */
  tp__xnn_rt_map(L, bv->id_out, vi);
  return TP_OK;
}

/* Node fields by name (the XN01 description's ids) in a[] / pos[]. */
#define TP__FC(f) a[TP__XF(XNNFullyConnected, f)]
#define TP__CV(f) a[TP__XF(_XNNNodeConv, f)]
#define TP__PL(f) a[TP__XF(_XNNPooling2D, f)]
#define TP__AM(f) a[TP__XF(XNNArgMaxPooling2d, f)]
#define TP__RZ(f) a[TP__XF(XNNStaticResizeBilinear2D, f)]

static uint64_t tp__xnn_rt_mul(uint64_t a, uint64_t b) { /* saturating */
  uint64_t r;
  return tp__mul_u64(a, b, &r) ? UINT64_MAX : r;
}
static uint64_t tp__xnn_rt_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* What XNNPACK allocates for node `kind` (the 2022 library's src/operators/, read for this:
   create packs the weights, setup builds the indirection buffers), bounded from above with its
   tiles (mr, nr, kr, channel tiles <= 16): window ops one pointer per output row x (window +
   (output width - 1) x window width x window height) - the max/average/argmax pooling and depthwise
   layout - or per output pixel x window (convolution; deconvolution per output row x (width +
   16 x upsampling)); packed weights (out + 16) x ((in + 16) x window x element size + bias);
   bilinear resize 4 pointers and 2 floats per output pixel. *ind / *packed: the two parts. */
static void tp__xnn_rt_op_bytes(const tp_xnn_runtime *rt, int kind, const uint32_t *a,
                                const uint32_t *pos, uint64_t *ind, uint64_t *packed) {
  const uint64_t P = sizeof(void *);
  const tp__xnn_vinfo *v[4] = {NULL, NULL, NULL, NULL}, *in, *out, *w = NULL;
  uint64_t oh, ow, kh = 1, kw = 1, sw = 1, sh = 1, ks, es = 4;
  int slot[4], j;
  *ind = *packed = 0;
  tp__xnn_support_slots(kind, slot); /* input, second, bias, output */
  for (j = 0; j < 4; j++)
    if (slot[j] >= 0 && pos[slot[j]] != TP_XNN_INVALID_ID) v[j] = &rt->vinfo[pos[slot[j]]];
  in = v[0];
  out = v[3];
  switch (kind) {
    case TP_XNN_NODE_CONV2D:
    case TP_XNN_NODE_DEPTHWISE_CONV2D:
    case TP_XNN_NODE_DECONV2D:
      w = v[1]; /* the filter */
      kh = TP__CV(kernel_height);
      kw = TP__CV(kernel_width);
      sh = TP__CV(subsampling_height);
      sw = TP__CV(subsampling_width);
      break;
    case TP_XNN_NODE_AVG_POOLING_2D:
    case TP_XNN_NODE_MAX_POOLING_2D:
      kh = TP__PL(pooling_height);
      kw = TP__PL(pooling_width);
      break;
    case TP_XNN_NODE_ARGMAX_POOLING_2D:
      kh = TP__AM(pooling_height);
      kw = TP__AM(pooling_width);
      break;
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      break;
    case TP_XNN_NODE_FULLY_CONNECTED:
      w = v[1];
      break;
    default:
      return;
  }
  if (w && w->cv.datatype != TP_XNN_FP32 && w->cv.datatype != TP_XNN_FP16) es = 1;
  if (kind == TP_XNN_NODE_FULLY_CONNECTED) {
    uint64_t d0, rest = 1, x, y;
    uint32_t k;
    if (!w || w->cv.num_dims == 0) return;
    d0 = w->cv.dims[0];
    for (k = 1; k < w->cv.num_dims; k++) rest = tp__xnn_rt_mul(rest, w->cv.dims[k]);
    /* either orientation (TRANSPOSE_WEIGHTS): the larger */
    x = tp__xnn_rt_mul(d0 + 16, tp__xnn_rt_add(tp__xnn_rt_mul(rest + 16, es), 4));
    y = tp__xnn_rt_mul(tp__xnn_rt_add(rest, 16), tp__xnn_rt_mul(d0 + 16, es) + 4);
    *packed = x > y ? x : y;
    return;
  }
  if (!out || out->cv.num_dims != 4) return; /* the node rules want NHWC for these */
  oh = out->cv.dims[1];
  ow = out->cv.dims[2];
  ks = tp__xnn_rt_mul(kh, kw);
  switch (kind) {
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      *ind = tp__xnn_rt_mul(tp__xnn_rt_mul(oh, ow), 4 * P + 8);
      return;
    case TP_XNN_NODE_CONV2D:
      *ind = tp__xnn_rt_mul(tp__xnn_rt_mul(ks, tp__xnn_rt_add(tp__xnn_rt_mul(oh, ow), 16)), P);
      break;
    case TP_XNN_NODE_DECONV2D:
      *ind = tp__xnn_rt_mul(tp__xnn_rt_mul(tp__xnn_rt_mul(ks, oh),
                                           tp__xnn_rt_add(ow, tp__xnn_rt_mul(16, sw))), P);
      break;
    default: { /* pooling, depthwise: per output row, the window + (width - 1) x step x kh,
                  step <= the window width (depthwise: the stride when larger) */
      uint64_t step = kind == TP_XNN_NODE_DEPTHWISE_CONV2D && sw > kw ? sw : kw;
      uint64_t row = tp__xnn_rt_add(ks, tp__xnn_rt_mul(tp__xnn_rt_mul(ow ? ow - 1 : 0, step), kh));
      *ind = tp__xnn_rt_mul(tp__xnn_rt_add(tp__xnn_rt_mul(oh, row), 16), P);
      if (kind == TP_XNN_NODE_AVG_POOLING_2D) /* the pixelwise divisors */
        *ind = tp__xnn_rt_add(*ind, tp__xnn_rt_mul(tp__xnn_rt_mul(oh, ow), 4));
      break;
    }
  }
  if (w && in && in->cv.num_dims == 4 && w->cv.num_dims >= 1) {
    uint64_t cin = in->cv.dims[3], cout = out->cv.dims[3], g = TP__CV(groups), bias = 4;
    if (kind == TP_XNN_NODE_DEPTHWISE_CONV2D) {
      *packed = tp__xnn_rt_mul(cout + 16, tp__xnn_rt_add(tp__xnn_rt_mul(ks, es), 4));
    } else {
      uint64_t gin, gout;
      if (g == 0) g = 1;
      gin = TP__CV(group_input_channels);
      gout = TP__CV(group_output_channels);
      if (kind == TP_XNN_NODE_DECONV2D) bias = tp__xnn_rt_mul(4, tp__xnn_rt_mul(sh, sw));
      *packed = tp__xnn_rt_mul(
          tp__xnn_rt_mul(g, tp__xnn_rt_add(gout, 16)),
          tp__xnn_rt_add(tp__xnn_rt_mul(tp__xnn_rt_mul(ks, tp__xnn_rt_add(gin, 16)), es), bias));
    }
    /* the zero buffer: one input pixel's channels */
    *packed = tp__xnn_rt_add(*packed, tp__xnn_rt_mul(cin + 16, 4));
  }
}

static tp_status tp__xnn_rt_node(tp__xnn_load *L, uint32_t ni, const tp_xnn_blob_node *n) {
  tp_xnn_runtime *rt = L->rt;
  int kind = n->kind;
  const tp_xnn_node_desc *d = n->desc; /* known: tp_xnn_read_blob checked */
  uint32_t a[TP_XNN_NODE_MAX_FIELDS], pos[TP_XNN_NODE_MAX_FIELDS];
  size_t vec[2][TP_XNN_MAX_DIMS];
  size_t vlen[2] = {0, 0};
  float fparam = 0.0f, mn = -INFINITY, mx = INFINITY;
  uint32_t i, nv = 0;
  enum xnn_status xs;
  if (n->has_output_min_max) {
    mn = n->output_min;
    mx = n->output_max;
  }
  memset(vec, 0, sizeof vec);
  for (i = 0; i < d->nfields; i++) {
    char t = d->fields[i].type;
    pos[i] = TP_XNN_INVALID_ID;
    if (t == 'v') {
      size_t k;
      for (k = 0; k < n->vec_len[nv]; k++) vec[nv][k] = (size_t)n->vec[nv][k];
      vlen[nv] = n->vec_len[nv];
      nv++;
      a[i] = 0;
    } else if (t == 'f') {
      memcpy(&fparam, &n->f[i], sizeof fparam);
      a[i] = 0;
    } else if (d->fields[i].role == 'n') { /* a slot the kind does not use: ignored */
      a[i] = TP_XNN_INVALID_ID;
    } else {
      a[i] = n->f[i];
      if (t == 'i' || t == 'b') {
        if (!tp__xnn_rt_lookup(L, a[i], &pos[i]) || (t == 'i' && pos[i] == TP_XNN_INVALID_ID))
          return tp__error_set(&rt->err, TP_ERR_FORMAT,
                              "node %u (%s): %s %u is not a defined value", (unsigned)ni,
                              d->name, d->fields[i].name, (unsigned)a[i]);
        a[i] = pos[i] == TP_XNN_INVALID_ID ? TP_XNN_INVALID_ID : rt->vinfo[pos[i]].xnn_id;
      }
    }
  }
  { /* the node rules (>>xnn-check), the same the writer applies at define time, fed from the
       reader's node: value fields as positions with their value views, other fields raw */
    tp__xnn_nview cn;
    tp__xnn_blob_nview(n, ni, pos, &cn);
    for (i = 0; i < d->nfields; i++)
      if (pos[i] != TP_XNN_INVALID_ID) cn.v[i] = &rt->vinfo[pos[i]].cv;
    if (tp__xnn_check_node(&cn, TP_XNN_TARGET_XNNPACK, &rt->err) != TP_OK) {
      if (rt->err.status == TP_ERR_INVALID) rt->err.status = TP_ERR_FORMAT; /* a bad blob */
      return rt->err.status;
    }
  }
  { /* what XNNPACK itself will allocate for it, bounded before the runtime exists */
    uint64_t ind, packed, lim;
    tp__xnn_rt_op_bytes(rt, kind, a, pos, &ind, &packed);
    rt->op_bytes = tp__xnn_rt_add(rt->op_bytes, tp__xnn_rt_add(ind, packed));
    /* twice the constants on top: XNNPACK's packed weights copy them */
    lim = tp__xnn_rt_add(TP_XNN_RUNTIME_MAX_OPERATOR_BYTES, tp__xnn_rt_mul(2, rt->copied_bytes));
    if (rt->op_bytes > lim)
      return tp__error_set(&rt->err, TP_ERR_FORMAT,
                          "node %u (%s): XNNPACK would allocate ~%llu bytes (indirection %llu, "
                          "packed weights %llu), %llu in all: over the loader's limit %llu "
                          "(TP_XNN_RUNTIME_MAX_OPERATOR_BYTES + 2 x %llu constant bytes)",
                          (unsigned)ni, tp_xnn_node_name(kind),
                          (unsigned long long)tp__xnn_rt_add(ind, packed), (unsigned long long)ind,
                          (unsigned long long)packed, (unsigned long long)rt->op_bytes,
                          (unsigned long long)lim, (unsigned long long)rt->copied_bytes);
  }
  switch (kind) {
    /* the simple shapes' cases from TP_XNN_NODE_LIST (rt 1): XNNPACK's call of the same name,
       the fields in the table's order (a 'f' field as fparam) */
#define TP__XNN_RT_ON_0(c)
#define TP__XNN_RT_ON_1(c) c
#define TP__XNN_RT_1x1(NAME, name) \
  case TP_XNN_NODE_##NAME: xs = xnn_define_##name(L->sg, a[0], a[1], a[2]); break;
#define TP__XNN_RT_1x1m(NAME, name) \
  case TP_XNN_NODE_##NAME: xs = xnn_define_##name(L->sg, mn, mx, a[0], a[1], a[2]); break;
#define TP__XNN_RT_1x1f(NAME, name) \
  case TP_XNN_NODE_##NAME: xs = xnn_define_##name(L->sg, fparam, a[1], a[2], a[3]); break;
#define TP__XNN_RT_2x1(NAME, name) \
  case TP_XNN_NODE_##NAME: xs = xnn_define_##name(L->sg, a[0], a[1], a[2], a[3]); break;
#define TP__XNN_RT_2x1m(NAME, name) \
  case TP_XNN_NODE_##NAME: xs = xnn_define_##name(L->sg, mn, mx, a[0], a[1], a[2], a[3]); break;
#define TP__XNN_RT_Nx1(NAME, name)
#define TP__XNN_RT_own(NAME, name)
#define TP__XNN_RT_CASE(tag, NAME, name, member, table, fields, shape, rt) \
  TP__XNN_RT_ON_##rt(TP__XNN_RT_##shape(NAME, name))
    TP_XNN_NODE_LIST(TP__XNN_RT_CASE)
#undef TP__XNN_RT_CASE
#undef TP__XNN_RT_ON_0
#undef TP__XNN_RT_ON_1
#undef TP__XNN_RT_1x1
#undef TP__XNN_RT_1x1m
#undef TP__XNN_RT_1x1f
#undef TP__XNN_RT_2x1
#undef TP__XNN_RT_2x1m
#undef TP__XNN_RT_Nx1
#undef TP__XNN_RT_own
    case TP_XNN_NODE_FULLY_CONNECTED:
      xs = xnn_define_fully_connected(L->sg, mn, mx, TP__FC(input1_id), TP__FC(filter_id),
                                      TP__FC(bias_id), TP__FC(output_id), TP__FC(flags));
      break;
    case TP_XNN_NODE_CONV2D:
      xs = xnn_define_convolution_2d(
          L->sg, TP__CV(padding_top), TP__CV(padding_right), TP__CV(padding_bottom),
          TP__CV(padding_left), TP__CV(kernel_height), TP__CV(kernel_width),
          TP__CV(subsampling_height), TP__CV(subsampling_width), TP__CV(dilation_height),
          TP__CV(dilation_width), TP__CV(groups), TP__CV(group_input_channels),
          TP__CV(group_output_channels), mn, mx, TP__CV(input1_id), TP__CV(filter_id),
          TP__CV(bias_id), TP__CV(output_id), TP__CV(flags));
      break;
    case TP_XNN_NODE_DEPTHWISE_CONV2D: /* group_input_channels >= 1: the convolution rule */
      /* written as upstream does: groups = channels, group_output_channels = multiplier */
      xs = xnn_define_depthwise_convolution_2d(
          L->sg, TP__CV(padding_top), TP__CV(padding_right), TP__CV(padding_bottom),
          TP__CV(padding_left), TP__CV(kernel_height), TP__CV(kernel_width),
          TP__CV(subsampling_height), TP__CV(subsampling_width), TP__CV(dilation_height),
          TP__CV(dilation_width), TP__CV(group_output_channels) / TP__CV(group_input_channels),
          TP__CV(groups), mn, mx, TP__CV(input1_id), TP__CV(filter_id), TP__CV(bias_id),
          TP__CV(output_id), TP__CV(flags));
      break;
    case TP_XNN_NODE_DECONV2D: /* upsampling in the subsampling fields */
      xs = xnn_define_deconvolution_2d(
          L->sg, TP__CV(padding_top), TP__CV(padding_right), TP__CV(padding_bottom),
          TP__CV(padding_left), TP__CV(adjustment_height), TP__CV(adjustment_width),
          TP__CV(kernel_height), TP__CV(kernel_width), TP__CV(subsampling_height),
          TP__CV(subsampling_width), TP__CV(dilation_height), TP__CV(dilation_width),
          TP__CV(groups), TP__CV(group_input_channels), TP__CV(group_output_channels), mn, mx,
          TP__CV(input1_id), TP__CV(filter_id), TP__CV(bias_id), TP__CV(output_id),
          TP__CV(flags));
      break;
    case TP_XNN_NODE_AVG_POOLING_2D:
      xs = xnn_define_average_pooling_2d(
          L->sg, TP__PL(padding_top), TP__PL(padding_right), TP__PL(padding_bottom),
          TP__PL(padding_left), TP__PL(pooling_height), TP__PL(pooling_width),
          TP__PL(stride_height), TP__PL(stride_width), mn, mx, TP__PL(input_id),
          TP__PL(output_id), TP__PL(flags));
      break;
    case TP_XNN_NODE_MAX_POOLING_2D:
      xs = xnn_define_max_pooling_2d(
          L->sg, TP__PL(padding_top), TP__PL(padding_right), TP__PL(padding_bottom),
          TP__PL(padding_left), TP__PL(pooling_height), TP__PL(pooling_width),
          TP__PL(stride_height), TP__PL(stride_width), TP__PL(dilation_height),
          TP__PL(dilation_width), mn, mx, TP__PL(input_id), TP__PL(output_id), TP__PL(flags));
      break;
    case TP_XNN_NODE_ARGMAX_POOLING_2D:
      xs = xnn_define_argmax_pooling_2d(
          L->sg, TP__AM(padding_top), TP__AM(padding_right), TP__AM(padding_bottom),
          TP__AM(padding_left), TP__AM(pooling_height), TP__AM(pooling_width), TP__AM(input_id),
          TP__AM(output_value_id), TP__AM(output_index_id), TP__AM(flags));
      break;
    case TP_XNN_NODE_STATIC_RESHAPE:
      xs = xnn_define_static_reshape(L->sg, vlen[0], vec[0],
                                     a[TP__XF(XNNStaticReshape, input_id)],
                                     a[TP__XF(XNNStaticReshape, output_id)],
                                     a[TP__XF(XNNStaticReshape, flags)]);
      break;
    case TP_XNN_NODE_STATIC_RESIZE_BILINEAR_2D:
      xs = xnn_define_static_resize_bilinear_2d(L->sg, TP__RZ(new_height), TP__RZ(new_width),
                                                TP__RZ(input_id), TP__RZ(output_id),
                                                TP__RZ(flags));
      break;
    case TP_XNN_NODE_STATIC_CONSTANT_PAD:
      xs = xnn_define_static_constant_pad(L->sg, vec[0], vec[1], fparam,
                                          a[TP__XF(XNNStaticConstantPad, input_id)],
                                          a[TP__XF(XNNStaticConstantPad, output_id)],
                                          a[TP__XF(XNNStaticConstantPad, flags)]);
      break;
    default:
      return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED,
                          "node %u: %s is not in the linked XNNPACK", (unsigned)ni,
                          tp_xnn_node_name(kind));
  }
#undef TP__FC
#undef TP__CV
#undef TP__PL
#undef TP__AM
#undef TP__RZ
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_INVALID,
                        "node %u: XNNPACK refused %s (xnn_status %d)", (unsigned)ni,
                        tp_xnn_node_name(kind), (int)xs);
  /* One producer per value, never a constant: the 2022 library asserts (aborts) in
     xnn_create_runtime otherwise, so refuse it here. */
  for (i = 0; i < d->nfields; i++) {
    const char *field = d->fields[i].name;
    tp__xnn_vinfo *v = pos[i] != TP_XNN_INVALID_ID ? &rt->vinfo[pos[i]] : NULL; /* an id */
    if (v && d->fields[i].role != 'o') v->read = 1;
    if (!v || d->fields[i].role != 'o') continue;
    if (v->is_const || v->produced)
      return tp__error_set(&rt->err, TP_ERR_FORMAT, "node %u (%s): %s (value %u) is %s",
                          (unsigned)ni, tp_xnn_node_name(kind), field, (unsigned)pos[i],
                          v->is_const ? "a constant" : "already the output of another node");
    v->produced = 1;
  }
  return TP_OK;
}

static tp_status tp__xnn_rt_build(tp__xnn_load *L, const unsigned char *blob, size_t n,
                                  const void *ptd, size_t ptd_size, uint32_t flags) {
  tp_xnn_runtime *rt = L->rt;
  size_t i;
  enum xnn_status xs;
  tp_error e;
  tp_status st;
  int ok = 1;
  if (!blob) return tp__error_set(&rt->err, TP_ERR_INVALID, "no blob");
  if (flags & ~(uint32_t)TP_XNN_RUNTIME_FLAGS)
    return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED,
                        "runtime flags 0x%x: only 0x%x (XNN_FLAG_HINT_SPARSE_INFERENCE) is "
                        "supported (XNN_FLAG_FORCE_FP16_INFERENCE aborts on fp32 graphs)",
                        (unsigned)flags, (unsigned)TP_XNN_RUNTIME_FLAGS);
  /* the structure through the pure reader; what XNNPACK needs is checked below */
  st = tp_xnn_read_blob(blob, n, &L->b, &e);
  if (st != TP_OK) return tp__error_set(&rt->err, st, "%s", e.msg);
  rt->num_externs = L->b.num_externs;
  rt->bound = (void **)tp__xnn_zalloc(rt->num_externs, sizeof(void *), &ok);
  if (!ok) return tp__error_set(&rt->err, TP_ERR_NOMEM, "no memory");
  L->blob = blob;
  L->blob_size = n;
  L->input_bytes = (uint64_t)n;
  if (ptd) {
    size_t nslots;
    memset(&L->ptd, 0, sizeof L->ptd);
    if (tp_ptd_open(&L->ptd, ptd, ptd_size) != TP_OK)
      return tp__error_set(&rt->err, TP_ERR_FORMAT, ".ptd: %s", L->ptd.err.msg);
    L->have_ptd = 1;
    L->input_bytes += (uint64_t)ptd_size;
    nslots = tp_ptd_index_slots(&L->ptd); /* hashed key lookups: no scan per named constant */
    L->ptd_slots = (uint32_t *)tp__xnn_zalloc(nslots, sizeof(uint32_t), &ok);
    if (!ok) return tp__error_set(&rt->err, TP_ERR_NOMEM, "no memory for the .ptd index");
    tp_ptd_index(&L->ptd, L->ptd_slots, nslots); /* an opened .ptd, its slots: cannot fail */
  }
  rt->direct = (uint32_t *)tp__xnn_zalloc(L->b.num_values, sizeof(uint32_t), &ok);
  rt->vinfo = (tp__xnn_vinfo *)tp__xnn_zalloc(L->b.num_values, sizeof(tp__xnn_vinfo), &ok);
  if (!ok || tp__xnn_rt_tab_init(&L->sparse, (uint64_t)L->b.num_values) != TP_OK ||
      tp__xnn_rt_tab_init(&L->copies, 2 * (uint64_t)L->b.num_values) != TP_OK)
    return tp__error_set(&rt->err, TP_ERR_NOMEM, "no memory for the id map");
  rt->ndirect = L->b.num_values;
  for (i = 0; i < rt->ndirect; i++) rt->direct[i] = TP_XNN_INVALID_ID;
  xs = xnn_initialize(NULL);
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_UNSUPPORTED, "xnn_initialize failed (xnn_status %d)",
                        (int)xs);
  xs = xnn_create_subgraph(rt->num_externs, 0, &L->sg);
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_NOMEM, "xnn_create_subgraph failed (xnn_status %d)",
                        (int)xs);
  for (i = 0; i < L->b.num_values; i++)
    if (tp__xnn_rt_value(L, (uint32_t)i, &L->b.values[i]) != TP_OK) return rt->err.status;
  for (i = 0; i < L->b.num_nodes; i++)
    if (tp__xnn_rt_node(L, (uint32_t)i, &L->b.nodes[i]) != TP_OK) return rt->err.status;
  for (i = 0; i < L->b.num_values; i++) { /* XNNPACK aborts on an output nothing consumes */
    const tp__xnn_vinfo *v = &rt->vinfo[i];
    if (v->produced && !v->read && !(v->cv.flags & TP_XNN_FLAG_EXTERNAL_OUTPUT))
      return tp__error_set(&rt->err, TP_ERR_FORMAT,
                          "value %u: a node writes it but no node reads it and it is not an "
                          "external output (XNNPACK aborts on an unconsumed output)",
                          (unsigned)i);
  }
  xs = xnn_create_runtime_v2(L->sg, NULL, flags, &rt->runtime);
  if (xs != xnn_status_success)
    return tp__error_set(&rt->err, TP_ERR_INVALID,
                        "xnn_create_runtime_v2 failed (xnn_status %d)", (int)xs);
  return TP_OK;
}

TPDEF tp_status tp_xnn_load(const void *blob, size_t blob_size, const void *ptd, size_t ptd_size,
                            uint32_t flags, tp_xnn_runtime **out, tp_error *err) {
  tp__xnn_load L;
  tp_xnn_runtime *rt;
  tp_status st;
  int ok = 1;
  if (err) memset(err, 0, sizeof *err); /* the error rule: a caller's tp_error starts clean */
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_xnn_load: out is NULL");
  *out = NULL;
  rt = (tp_xnn_runtime *)tp__xnn_zalloc(0, sizeof *rt, &ok);
  if (!rt) return tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load: no memory");
  memset(&L, 0, sizeof L);
  L.rt = rt;
  st = tp__xnn_rt_build(&L, (const unsigned char *)blob, blob_size, ptd, ptd_size, flags);
  if (L.sg) xnn_delete_subgraph(L.sg);
  tp_xnn_blob_free(&L.b);
  tp__xnn_rt_tab_free(&L.sparse);
  tp__xnn_rt_tab_free(&L.copies);
  TP_FREE(L.ptd_slots);
  if (st != TP_OK) {
    if (err && !err->status) *err = rt->err;
    tp_xnn_runtime_destroy(rt);
    return st;
  }
  *out = rt;
  return TP_OK;
}

/* >>xnn-load-pte: a program's XNNPACK method on the loader */
/* Appends sep + quoted s (at most maxlen of it) to buf[0, *n) when it fits (no stdio: the
   runtime part builds under TP_NO_STDIO too); 0 when it did not. */
static int tp__xnn_list_add(char *buf, size_t cap, size_t *n, const char *sep, const char *s,
                            size_t maxlen) {
  size_t ls = strlen(sep), l = strlen(s);
  if (l > maxlen) l = maxlen;
  if (*n + ls + l + 3 > cap) return 0;
  memcpy(buf + *n, sep, ls);
  buf[*n + ls] = '"';
  memcpy(buf + *n + ls + 1, s, l);
  buf[*n + ls + 1 + l] = '"';
  *n += ls + l + 2;
  buf[*n] = '\0';
  return 1;
}

/* Method m's chain for the loader: every instruction a DelegateCall of an XnnpackBackend
   delegate (else TP_ERR_UNSUPPORTED naming the instruction); *single = 1 when it is one call of
   the method's values 0 .. n-1 in order (tp_xnn_add_pte_method's shape: external id k is value
   k), which tp_xnn_load runs as it is: the delegate it calls in *di. */
static tp_status tp__xnn_pte_chain(tp_pte_file *f, size_t m, const tp_pte_method_info *mi,
                                   const char *method, int *single, tp_pte_delegate_info *di,
                                   tp_error *err) {
  tp_pte_instruction_info ii;
  size_t n = 0, k, a;
  *single = 0;
  if (mi->n_chains != 1)
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "method \"%.60s\" has %lu chains; the XNNPACK "
                        "loader runs one", method, (unsigned long)mi->n_chains);
  if (tp_pte_chain_size(f, m, 0, &n) != TP_OK || n == 0)
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "method \"%.60s\" has no instruction",
                        method);
  for (k = 0; k < n; k++) {
    if (tp_pte_instruction_at(f, m, 0, k, &ii) != TP_OK)
      return tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\": instruction %lu unreadable",
                          method, (unsigned long)k);
    if (ii.kind == TP_PTE_I_KernelCall) {
      const char *name = "?", *ov = "";
      tp_pte_operator_at(f, m, (size_t)ii.index, &name, &ov);
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "method \"%.60s\": instruction %lu calls "
                          "%.80s%s%.60s, a %skernel; the XNNPACK loader runs delegate calls only",
                          method, (unsigned long)k, name, ov[0] ? "." : "", ov,
                          tp_pte_op_find(name, ov) >= 0 ? "portable " : "");
    }
    if (ii.kind != TP_PTE_I_DelegateCall)
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "method \"%.60s\": instruction %lu is a %s; "
                          "the XNNPACK loader runs delegate calls only", method,
                          (unsigned long)k, tp_pte_instruction_name(ii.kind));
    if (tp_pte_delegate_at(f, m, (size_t)ii.index, di) != TP_OK ||
        strcmp(di->id, "XnnpackBackend") != 0)
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "method \"%.60s\": instruction %lu calls "
                          "delegate %ld, a %.60s; the XNNPACK loader runs XnnpackBackend "
                          "delegates only", method, (unsigned long)k, (long)ii.index,
                          di->id ? di->id : "?");
  }
  *single = n == 1 && ii.args.count == mi->n_values;
  for (a = 0; *single && a < ii.args.count; a++) *single = tp_fb_vector_scalar(&ii.args, a) == a;
  return TP_OK;
}

/* The loader on method m of delegate calls (tp__xnn_pte_chain accepted it): one runtime per
   call (tp_xnn_load with the named data image ptd), the planned buffers allocated, the
   constants copied; the runtime's externals are the method's values (see tp_xnn_load_pte). */
static tp_status tp__xnn_load_method(tp_pte_file *f, size_t m, const tp_pte_method_info *mi,
                                     const char *method, const void *ptd, size_t ptd_size,
                                     uint32_t flags, tp_xnn_runtime **out, tp_error *err) {
  tp_xnn_runtime *rt;
  size_t n = mi->n_values, k, c, ninstr = 0;
  uint64_t total = 0, consts = 0;
  tp_status s = TP_OK;
  int ok = 1;
  rt = (tp_xnn_runtime *)tp__xnn_zalloc(0, sizeof *rt, &ok);
  if (!rt) return tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load_pte: no memory");
  rt->is_method = 1;
  if (n > TP_PTE_MAX_VALUES) {
    tp_xnn_runtime_destroy(rt);
    return tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\" has %lu values (at most %d)",
                        method, (unsigned long)n, TP_PTE_MAX_VALUES);
  }
  rt->num_externs = (uint32_t)n;
  rt->bound = (void **)tp__xnn_zalloc(n, sizeof *rt->bound, &ok);
  rt->place = (void **)tp__xnn_zalloc(n, sizeof *rt->place, &ok);
  rt->vbytes = (uint64_t *)tp__xnn_zalloc(n, sizeof *rt->vbytes, &ok);
  rt->io = (unsigned char *)tp__xnn_zalloc(n, 1, &ok);
  rt->bufs = (unsigned char **)tp__xnn_zalloc(mi->n_buffers, sizeof *rt->bufs, &ok);
  tp_pte_chain_size(f, m, 0, &ninstr);
  rt->calls = (tp_xnn_runtime **)tp__xnn_zalloc(ninstr, sizeof *rt->calls, &ok);
  rt->call_args = (int32_t **)tp__xnn_zalloc(ninstr, sizeof *rt->call_args, &ok);
  if (!ok) {
    tp_xnn_runtime_destroy(rt); /* nothing counted yet: nbufs and ncalls are 0 */
    return tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load_pte: no memory");
  }
  rt->nbufs = mi->n_buffers;
  for (k = 0; k < mi->n_inputs + mi->n_outputs; k++) {
    size_t v;
    int is_out = k >= mi->n_inputs;
    if (tp_pte_io_at(f, m, is_out, is_out ? k - mi->n_inputs : k, &v) == TP_OK && v < n)
      rt->io[v] |= (unsigned char)(is_out ? 2 : 1);
  }
  for (k = 1; s == TP_OK && k < mi->n_buffers; k++) { /* buffer 0 is the reserved one */
    uint64_t b = 0;
    tp_pte_buffer_at(f, m, k, &b);
    total += b;
    if (total > TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES || b > SIZE_MAX - TP_XNN_EXTRA_BYTES) {
      s = tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\": planned buffers of %llu bytes "
                        "and more, above the loader's limit (TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES"
                        ", %llu)", method, (unsigned long long)total,
                        (unsigned long long)TP_XNN_RUNTIME_MAX_ACTIVATION_BYTES);
      break;
    }
    rt->bufs[k] = (unsigned char *)TP_MALLOC((size_t)b + TP_XNN_EXTRA_BYTES);
    if (!rt->bufs[k]) s = tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load_pte: no memory");
    else memset(rt->bufs[k], 0, (size_t)b + TP_XNN_EXTRA_BYTES);
  }
  for (k = 0; s == TP_OK && k < n; k++) {
    tp_pte_value_info vi;
    if (tp_pte_value_at(f, m, k, &vi) != TP_OK || vi.kind != TP_PTE_V_Tensor) continue;
    rt->vbytes[k] = vi.nbytes;
    if (vi.planned) { /* tp_pte_read checked the buffer and the bytes inside it */
      rt->place[k] = rt->bufs[vi.memory_id] + vi.memory_offset;
    } else if (vi.data) { /* a constant: copied (and padded), so the program may go */
      consts += vi.nbytes;
      if (consts > (uint64_t)f->size) {
        s = tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\": constants of %llu bytes and "
                          "more in a program of %llu (shared bytes)", method,
                          (unsigned long long)consts, (unsigned long long)f->size);
        break;
      }
      rt->place[k] = tp__xnn_rt_own(rt, (const unsigned char *)vi.data, vi.nbytes, 0);
      if (!rt->place[k]) s = tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load_pte: no memory");
    }
  }
  for (c = 0; s == TP_OK && c < ninstr; c++) {
    tp_pte_instruction_info ii;
    tp_pte_delegate_info di;
    tp_xnn_runtime *sub = NULL;
    tp_error e;
    tp_pte_instruction_at(f, m, 0, c, &ii);
    tp_pte_delegate_at(f, m, (size_t)ii.index, &di);
    s = tp_xnn_load(di.data, (size_t)di.nbytes, ptd, ptd_size, flags, &sub, &e);
    if (s != TP_OK) {
      tp__error_set(err, s, "method \"%.60s\" instruction %lu: %s", method, (unsigned long)c,
                    e.msg);
      break;
    }
    rt->calls[rt->ncalls] = sub;
    rt->call_args[rt->ncalls] = (int32_t *)TP_MALLOC((ii.args.count + 1) * sizeof(int32_t));
    rt->ncalls++;
    if (!rt->call_args[rt->ncalls - 1]) {
      s = tp__error_set(err, TP_ERR_NOMEM, "tp_xnn_load_pte: no memory");
      break;
    }
    if (ii.args.count != sub->num_externs) {
      s = tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\" instruction %lu passes %lu "
                        "values; its blob has %u externals", method, (unsigned long)c,
                        (unsigned long)ii.args.count, (unsigned)sub->num_externs);
      break;
    }
    for (k = 0; k < ii.args.count; k++) {
      int32_t a = (int32_t)tp_fb_vector_scalar(&ii.args, k); /* in range (tp_pte_read) */
      size_t need = 0;
      tp_pte_value_info vi;
      rt->call_args[rt->ncalls - 1][k] = a;
      tp_pte_value_at(f, m, (size_t)a, &vi);
      if (tp_xnn_runtime_extern_size(sub, (uint32_t)k, &need, NULL) != TP_OK)
        need = (size_t)-1;
      if (vi.kind != TP_PTE_V_Tensor || (uint64_t)need != rt->vbytes[a]) {
        s = tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\" instruction %lu: argument %lu "
                          "is value %ld%s of %llu bytes; external %lu of its blob has %llu",
                          method, (unsigned long)c, (unsigned long)k, (long)a,
                          vi.kind == TP_PTE_V_Tensor ? "" : " (not a Tensor)",
                          (unsigned long long)rt->vbytes[a], (unsigned long)k,
                          (unsigned long long)need);
        break;
      }
      if (!rt->place[a] && !rt->io[a]) {
        s = tp__error_set(err, TP_ERR_FORMAT, "method \"%.60s\" instruction %lu: argument %lu "
                          "is value %ld, neither memory-planned nor a constant nor an input or "
                          "output", method, (unsigned long)c, (unsigned long)k, (long)a);
        break;
      }
    }
  }
  if (s != TP_OK) {
    tp_xnn_runtime_destroy(rt);
    return s;
  }
  *out = rt;
  return TP_OK;
}

TPDEF tp_status tp_xnn_load_pte(const void *pte, size_t pte_size, const char *method,
                                const void *ptd, size_t ptd_size, uint32_t flags,
                                tp_xnn_runtime **out, tp_error *err) {
  tp_pte_file f;
  tp_pte_method_info mi;
  tp_pte_delegate_info xd;
  tp_ptd xp;
  tp_store *st = NULL;
  tp_membuf mb;
  const void *use = ptd;
  size_t use_size = ptd_size, m, missing = 0, i;
  int single = 0;
  const char *keys[8];
  tp_status s;
  if (err) memset(err, 0, sizeof *err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_xnn_load_pte: out is NULL");
  *out = NULL;
  if (!method) return tp__error_set(err, TP_ERR_INVALID, "tp_xnn_load_pte: method is NULL");
  if (tp_pte_read(&f, pte, pte_size) != TP_OK)
    return tp__error_set(err, f.err.status, ".pte: %s", f.err.msg);
  if (tp_pte_method_find(&f, method, &m) != TP_OK) {
    char names[160];
    size_t n = 0;
    names[0] = '\0';
    for (i = 0; i < f.n_methods; i++)
      if (tp_pte_method_at(&f, i, &mi) != TP_OK ||
          !tp__xnn_list_add(names, sizeof names, &n, i ? ", " : "", mi.name, 60))
        break;
    return tp__error_set(err, TP_ERR_INVALID, "the program has no method \"%.60s\" (it has %lu: "
                        "%s%s)", method, (unsigned long)f.n_methods, names,
                        i < f.n_methods ? ", ..." : "");
  }
  if ((s = tp_pte_method_at(&f, m, &mi)) != TP_OK)
    return tp__error_set(err, s, "method \"%.60s\": %s", method, tp_status_str(s));
  if ((s = tp__xnn_pte_chain(&f, m, &mi, method, &single, &xd, err)) != TP_OK) return s;
  memset(&xp, 0, sizeof xp);
  if (ptd && tp_ptd_open(&xp, ptd, ptd_size) != TP_OK)
    return tp__error_set(err, TP_ERR_FORMAT, ".ptd: %s", tp_ptd_error(&xp));
  s = tp_xnn_pte_missing_keys(&f, m, ptd ? &xp : NULL, keys, 8, &missing, err);
  if (s != TP_OK) return s;
  if (missing) {
    char list[150];
    size_t n = 0;
    list[0] = '\0';
    for (i = 0; i < missing && i < 8; i++)
      if (!tp__xnn_list_add(list, sizeof list, &n, i ? ", " : "", keys[i], 70)) break;
    return tp__error_set(err, TP_ERR_INVALID, "method \"%.40s\" needs a .ptd with these keys "
                        "(%lu, not in the program's named data%s): %s%s", method,
                        (unsigned long)missing, ptd ? " nor in the .ptd given" : "; no .ptd given",
                        list, i < missing ? ", ..." : "");
  }
  memset(&mb, 0, sizeof mb);
  if (f.n_named) { /* the program's named data (and ptd's entries) as one .ptd image */
    tp_sink sink;
    s = tp_store_create(NULL, &st);
    for (i = 0; s == TP_OK && i < f.n_named; i++) {
      const char *key;
      uint32_t si;
      const void *d;
      uint64_t n;
      s = tp_pte_named_at(&f, i, &key, &si, &d, &n);
      if (s == TP_OK) s = tp_store_add_bytes(st, key, d, (size_t)n, 16, 0, NULL);
    }
    for (i = 0; s == TP_OK && ptd && i < xp.count; i++) {
      tp_ptd_entry e;
      s = tp_ptd_entry_at(&xp, i, &e);
      if (s == TP_OK) s = tp_store_add_bytes(st, e.key, e.data, e.nbytes, 16, 0, NULL);
    }
    if (s == TP_OK) {
      sink = tp_sink_membuf(&mb);
      s = tp_store_write_ptd(st, &sink);
    }
    if (s != TP_OK) {
      tp__error_set(err, s, "the program's named data%s: %s", ptd ? " with the .ptd" : "",
                   st ? tp_store_error(st) : tp_status_str(s));
      tp_store_destroy(st);
      tp_membuf_free(&mb);
      return s;
    }
    tp_store_destroy(st);
    use = mb.data;
    use_size = mb.size;
  }
  if (single)
    s = tp_xnn_load(xd.data, (size_t)xd.nbytes, use, use_size, flags, out, err);
  else
    s = tp__xnn_load_method(&f, m, &mi, method, use, use_size, flags, out, err);
  tp_membuf_free(&mb);
  return s;
}
#endif /* TENSORPACK_XNNPACK_RUNTIME */

#endif /* TENSORPACK_XNNPACK_IMPLEMENTATION_DONE */
#endif /* TENSORPACK_XNNPACK_IMPLEMENTATION */
