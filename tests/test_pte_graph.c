/* Programs of kernel calls and delegate calls (tp_pte_graph, tensorpack.h section 9): a
   portable-kernel program (add, mul, clamp, sum) read back value by value, instruction by
   instruction; every kind of value; the memory plan of a chain (intermediates reuse bytes, no
   two live tensors overlap, inputs and outputs planned); a delegate call beside kernel calls
   with its blob in a segment; every refusal's status and sentence; an open graph freed by
   tp_pte_destroy; allocation failures at every step (no leak). */
#include "tp_count_alloc.h"
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>

static tp_status write_mem(tp_pte *p, tp_membuf *mb) {
  tp_sink s;
  memset(mb, 0, sizeof *mb);
  s = tp_sink_membuf(mb);
  return tp_pte_write(p, &s);
}

static tp_pte_tensor tensor(unsigned role, tp_dtype dt, int ndim, int64_t a, int64_t b) {
  tp_pte_tensor t;
  memset(&t, 0, sizeof t);
  t.role = role;
  t.dtype = dt;
  t.ndim = ndim;
  t.sizes[0] = a;
  t.sizes[1] = b;
  return t;
}

/* y = sum(clamp((x + x) * 2.5, 0, null), dim=[1]): x [2, 3] f32 in, y [2] f32 out; t1, t2,
   t3 intermediates [2, 3]. Ids in the order defined; *n_ins gets the instruction count. */
typedef struct prog_ids {
  uint32_t x, y, t1, t2, t3, one, half, zero, none, dims, keep, dtype;
} prog_ids;

static tp_status build_portable(tp_pte *p, prog_ids *d) {
  tp_pte_graph *g = NULL;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT, TP_F32, 2, 2, 3), ty = tensor(TP_PTE_OUTPUT, TP_F32, 1, 2, 0);
  tp_pte_tensor ti = tensor(0, TP_F32, 2, 2, 3);
  int64_t dim1 = 1;
  tp_status st = tp_pte_graph_create(p, "forward", &g);
  if (st != TP_OK) return st;
  tp_pte_define_tensor(g, &tx, &d->x);
  tp_pte_define_tensor(g, &ty, &d->y);
  tp_pte_define_tensor(g, &ti, &d->t1);
  tp_pte_define_tensor(g, &ti, &d->t2);
  tp_pte_define_tensor(g, &ti, &d->t3);
  tp_pte_define_int(g, 1, &d->one);
  tp_pte_define_double(g, 2.5, &d->half);
  tp_pte_define_int(g, 0, &d->zero);
  tp_pte_define_null(g, &d->none);
  tp_pte_define_int_list(g, &dim1, 1, &d->dims);
  tp_pte_define_bool(g, 0, &d->keep);
  d->dtype = d->none;
  {
    uint32_t add[5] = {d->x, d->x, d->one, d->t1, d->t1};
    uint32_t mul[4] = {d->t1, d->half, d->t2, d->t2};
    uint32_t clamp[5] = {d->t2, d->zero, d->none, d->t3, d->t3};
    uint32_t sum[6] = {d->t3, d->dims, d->keep, d->none, d->y, d->y};
    tp_pte_call_kernel(g, "aten::add", "out", add, 5);
    tp_pte_call_kernel(g, "aten::mul", "Scalar_out", mul, 4);
    tp_pte_call_kernel(g, "aten::clamp", "out", clamp, 5);
    tp_pte_call_kernel(g, "aten::sum", "IntList_out", sum, 6);
  }
  return tp_pte_graph_finish(g);
}

static void test_portable_program(void) {
  tp_pte *p = NULL;
  tp_membuf mb;
  tp_pte_file f;
  tp_pte_method_info mi;
  tp_pte_value_info vi;
  tp_pte_instruction_info ii;
  prog_ids d;
  uint64_t size = 0, buf1 = 0;
  size_t n = 0, v;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(build_portable(p, &d), TP_OK);
  TPT_EQ_U64(tp_pte_method_count(p), 1);
  TPT_STATUS(tp_pte_size(p, &size), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_EQ_U64(mb.size, size);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_STR(mi.name, "forward");
  TPT_EQ_U64(mi.n_values, 12); /* 5 tensors, Int, Double, Int, Null, Int + IntList, Bool */
  TPT_EQ_U64(mi.n_inputs, 1);
  TPT_EQ_U64(mi.n_outputs, 1);
  TPT_EQ_U64(mi.n_operators, 4);
  TPT_EQ_U64(mi.n_delegates, 0);
  TPT_EQ_U64(mi.n_buffers, 2);
  TPT_STATUS(tp_pte_io_at(&f, 0, 0, 0, &v), TP_OK);
  TPT_EQ_U64(v, d.x);
  TPT_STATUS(tp_pte_io_at(&f, 0, 1, 0, &v), TP_OK);
  TPT_EQ_U64(v, d.y);
  TPT_STATUS(tp_pte_chain_size(&f, 0, 0, &n), TP_OK);
  TPT_EQ_U64(n, 4);
  TPT_STATUS(tp_pte_instruction_at(&f, 0, 0, 3, &ii), TP_OK);
  TPT_EQ_INT(ii.kind, TP_PTE_I_KernelCall);
  TPT_EQ_INT(ii.index, 3);
  TPT_EQ_U64(ii.args.count, 6);
  TPT_EQ_INT((int)tp_fb_vector_scalar(&ii.args, 1), (int)d.dims);
  TPT_STATUS(tp_pte_value_at(&f, 0, d.half, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Double);
  TPT_CHECK(vi.d == 2.5);
  TPT_STATUS(tp_pte_value_at(&f, 0, d.none, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Null);
  TPT_STATUS(tp_pte_value_at(&f, 0, d.dims, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_IntList);
  TPT_STATUS(tp_pte_value_at(&f, 0, d.dims - 1, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Int);
  TPT_EQ_INT((int)vi.i, 1);
  TPT_STATUS(tp_pte_value_at(&f, 0, d.keep, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Bool);
  /* the plan: x (24 bytes, an input: live 0..3) and t1 (0..1) together, t2 (1..2) after
     them, t3 (2..3) reuses t1's bytes, y (3..3, an output) t2's */
  TPT_STATUS(tp_pte_buffer_at(&f, 0, 1, &buf1), TP_OK);
  {
    uint64_t off[5];
    uint32_t ids[5];
    size_t k;
    ids[0] = d.x, ids[1] = d.t1, ids[2] = d.t2, ids[3] = d.t3, ids[4] = d.y;
    for (k = 0; k < 5; k++) {
      TPT_STATUS(tp_pte_value_at(&f, 0, ids[k], &vi), TP_OK);
      TPT_EQ_INT(vi.kind, TP_PTE_V_Tensor);
      TPT_CHECK(vi.planned);
      TPT_EQ_INT((int)vi.memory_id, 1);
      off[k] = vi.memory_offset;
    }
    TPT_EQ_U64(off[0], 0);
    TPT_EQ_U64(off[1], 32);
    TPT_EQ_U64(off[2], 64);
    TPT_EQ_U64(off[3], 32);
    TPT_EQ_U64(off[4], 64);
    TPT_EQ_U64(buf1, 96); /* 5 tensors of 24 bytes in 3 slots of 32 */
  }
  {
    const char *want[4][2] = {{"aten::add", "out"}, {"aten::mul", "Scalar_out"},
                              {"aten::clamp", "out"}, {"aten::sum", "IntList_out"}};
    const char *name, *overload;
    size_t k;
    for (k = 0; k < 4; k++) {
      TPT_STATUS(tp_pte_operator_at(&f, 0, k, &name, &overload), TP_OK);
      TPT_EQ_STR(name, want[k][0]);
      TPT_EQ_STR(overload, want[k][1]);
    }
    TPT_STATUS(tp_pte_operator_at(&f, 0, 4, &name, &overload), TP_ERR_INVALID);
  }
  tp_pte_close(&f);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

/* Constants from views: a transposed slice and a row at an offset, compacted into the constant
   segment (16-aligned, little-endian), never their storage; data_buffer_idx 1 and 2; the
   delegate's blob after them; not planned. */
static void test_constants(void) {
  static float st[4 * 6];
  int64_t sz[2] = {4, 6};
  tp_storage s = {st, sizeof st};
  tp_tensor parent, tr, cols, wv, row;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT, TP_F32, 2, 3, 2), ty = tensor(TP_PTE_OUTPUT, TP_F32, 2, 3, 2);
  uint32_t x, y, cw, cr, one, a[5];
  tp_membuf mb;
  tp_pte_file f;
  tp_pte_value_info vi;
  uint64_t seg_off = 0, seg_size = 0;
  size_t i;
  for (i = 0; i < 24; i++) st[i] = (float)i + 0.5f;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &parent, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&parent, 0, 1, &tr, NULL), TP_OK);    /* [6, 4] */
  TPT_STATUS(tp_narrow(&tr, 0, 1, 3, &cols, NULL), TP_OK);      /* rows 1..3 of the transpose */
  TPT_STATUS(tp_narrow(&cols, 1, 1, 2, &wv, NULL), TP_OK);       /* [3, 2]: st[r + 6c] shifted */
  TPT_STATUS(tp_select(&parent, 0, 3, &row, NULL), TP_OK);      /* [6]: st[18 .. 23] */
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_constant(g, &wv, &cw), TP_OK);
  TPT_STATUS(tp_pte_define_constant(g, &row, &cr), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ty, &y), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, 1, &one), TP_OK);
  a[0] = x, a[1] = cw, a[2] = one, a[3] = y, a[4] = y;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 5), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_value_at(&f, 0, cw, &vi), TP_OK);
  TPT_EQ_INT(vi.kind, TP_PTE_V_Tensor);
  TPT_CHECK(!vi.planned);
  TPT_EQ_INT((int)vi.data_buffer_idx, 1);
  TPT_EQ_INT(vi.ndim, 2);
  TPT_EQ_INT((int)vi.sizes[0], 3);
  TPT_EQ_INT((int)vi.sizes[1], 2);
  TPT_STATUS(tp_pte_value_at(&f, 0, cr, &vi), TP_OK);
  TPT_EQ_INT((int)vi.data_buffer_idx, 2);
  TPT_STATUS(tp_pte_segment_at(&f, 0, &seg_off, &seg_size), TP_OK);
  TPT_EQ_U64(seg_off, 0);
  TPT_EQ_U64(seg_size, 32 + 24); /* 24 bytes at 0, 24 at the next multiple of 16 */
  {
    float want_w[6], want_row[6];
    unsigned char le[24];
    const unsigned char *seg = f.data + f.segment_base + seg_off;
    int r, c;
    for (r = 0; r < 3; r++)
      for (c = 0; c < 2; c++) want_w[r * 2 + c] = st[(c + 1) * 6 + (r + 1)];
    for (c = 0; c < 6; c++) want_row[c] = st[18 + c];
    tpt_to_le(le, want_w, 6, 4);
    TPT_MEMEQ(seg, le, 24);
    tpt_to_le(le, want_row, 6, 4);
    TPT_MEMEQ(seg + 32, le, 24);
    TPT_STATUS(tp_pte_value_at(&f, 0, cw, &vi), TP_OK); /* the reader points at the bytes */
    TPT_CHECK(vi.data == (const void *)seg);
    TPT_STATUS(tp_pte_value_at(&f, 0, cr, &vi), TP_OK);
    TPT_CHECK(vi.data == (const void *)(seg + 32));
  }
  /* the planned buffer holds x and y only */
  TPT_STATUS(tp_pte_value_at(&f, 0, y, &vi), TP_OK);
  TPT_CHECK(vi.planned);
  tp_pte_close(&f);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

/* The reader refuses an operator without a name (its vtable slot for name zeroed; one planned
   tensor, at 0, so that no AllocationDetails shares the operator's vtable). */
static void test_reader_operator_name(void) {
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT | TP_PTE_OUTPUT, TP_F32, 1, 4, 0);
  uint32_t x, one, a[5];
  tp_membuf mb;
  tp_pte_file f;
  tp_fb_reader r;
  tp_fb_table root, plan, op;
  tp_fb_vector plans, ops;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, 1, &one), TP_OK);
  a[0] = x, a[1] = x, a[2] = one, a[3] = x, a[4] = x; /* x = x + x, in place */
  TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 5), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  memset(&r, 0, sizeof r);
  TPT_STATUS(tp_fb_reader_init(&r, mb.data, mb.size, "ET12", &root), TP_OK);
  plans = tp_fb_vector_field(&root, TP_PTE_F_Program_execution_plan, 4);
  plan = tp_fb_vector_table(&plans, 0);
  ops = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_operators, 4);
  op = tp_fb_vector_table(&ops, 0);
  TPT_CHECK(op.pos != 0 && op.vtable_size >= 4 + 2 * (TP_PTE_F_Operator_name + 1));
  tp__put_le16(mb.data + op.vtable + 4 + 2 * TP_PTE_F_Operator_name, 0);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_ERR_FORMAT);
  TPT_EQ_STR(f.err.msg, "method 0 operator 0: no name (absent)");
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

/* A constant's refusals, each with its value's number: a NULL view, too many dims, a size a
   program cannot hold (int32 sizes). */
static void test_constant_refusals(void) {
  static float st[6];
  int64_t sz[1] = {6};
  tp_storage s = {st, sizeof st};
  tp_tensor ok, bad;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  uint32_t id;
  int k;
  static const char *const want[3] = {
      "method \"forward\" value 1: NULL constant view",
      "method \"forward\" value 1: a constant of 17 dims (0 .. 16)",
      "method \"forward\" value 1: dim 0 has size 2147483648; a program holds int32 sizes"};
  TPT_STATUS(tp_view(s, TP_F32, 1, sz, NULL, 0, &ok, NULL), TP_OK);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  for (k = 0; k < 3; k++) {
    bad = ok;
    if (k == 1) bad.ndim = TP_MAX_DIMS + 1;
    if (k == 2) bad.sizes[0] = (int64_t)INT32_MAX + 1;
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    TPT_STATUS(tp_pte_define_constant(g, &ok, &id), TP_OK);
    TPT_STATUS(tp_pte_define_constant(g, k == 0 ? NULL : &bad, &id),
               k == 2 ? TP_ERR_UNSUPPORTED : TP_ERR_INVALID);
    TPT_EQ_INT((int)id, (int)UINT32_MAX);
    TPT_EQ_STR(tp_pte_graph_error(g), want[k]);
    tp_pte_graph_destroy(g);
  }
  tp_pte_destroy(p);
}

/* A producer of n pattern bytes (ctx: the n). */
static tp_status blob_produce(void *ctx, tp_sink *sink) {
  uint64_t n = *(const uint64_t *)ctx, i;
  tp_status st = TP_OK;
  for (i = 0; i < n && st == TP_OK; i++) {
    unsigned char c = (unsigned char)(i * 13u + 5u);
    st = tp_sink_write(sink, &c, 1);
  }
  return st;
}

/* embedding (a kernel) -> a delegate -> add (a kernel): the blob in segment 1, the kernels'
   operators, both instruction kinds in one chain, the tensor list of a cat. */
static void test_mixed_program(void) {
  static uint64_t blob_n = 77;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_delegate del;
  tp_pte_tensor tok = tensor(TP_PTE_INPUT, TP_I64, 1, 4, 0), tab = tensor(TP_PTE_INPUT, TP_F32, 2, 10, 8);
  tp_pte_tensor emb = tensor(0, TP_F32, 2, 4, 8), hid = tensor(0, TP_F32, 2, 4, 8);
  tp_pte_tensor out = tensor(TP_PTE_OUTPUT, TP_F32, 2, 8, 8);
  uint32_t t, w, e, h, y, pad, sc, lst, dim, args[6];
  tp_membuf mb;
  tp_pte_file f;
  tp_pte_method_info mi;
  tp_pte_instruction_info ii;
  tp_pte_delegate_info di;
  memset(&del, 0, sizeof del);
  del.backend_id = "XnnpackBackend";
  del.blob_size = blob_n;
  del.produce = blob_produce;
  del.ctx = &blob_n;
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tok, &t), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tab, &w), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &emb, &e), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &hid, &h), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &out, &y), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, -1, &pad), TP_OK);
  TPT_STATUS(tp_pte_define_bool(g, 1, &sc), TP_OK);
  args[0] = w, args[1] = t, args[2] = pad, args[3] = sc, args[4] = sc, args[5] = e;
  /* embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out) */
  {
    uint32_t a[7];
    memcpy(a, args, sizeof args);
    a[6] = e;
    TPT_STATUS(tp_pte_call_kernel(g, "aten::embedding", "out", a, 7), TP_OK);
  }
  args[0] = e, args[1] = h;
  TPT_STATUS(tp_pte_call_delegate(g, &del, args, 2), TP_OK);
  args[0] = e, args[1] = h;
  TPT_STATUS(tp_pte_define_tensor_list(g, args, 2, &lst), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, 0, &dim), TP_OK);
  args[0] = lst, args[1] = dim, args[2] = y, args[3] = y;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::cat", "out", args, 4), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_method_at(&f, 0, &mi), TP_OK);
  TPT_EQ_U64(mi.n_operators, 2);
  TPT_EQ_U64(mi.n_delegates, 1);
  TPT_EQ_U64(mi.n_inputs, 2);
  TPT_STATUS(tp_pte_instruction_at(&f, 0, 0, 1, &ii), TP_OK);
  TPT_EQ_INT(ii.kind, TP_PTE_I_DelegateCall);
  TPT_EQ_INT(ii.index, 0);
  TPT_STATUS(tp_pte_instruction_at(&f, 0, 0, 2, &ii), TP_OK);
  TPT_EQ_INT(ii.kind, TP_PTE_I_KernelCall);
  TPT_EQ_INT(ii.index, 1);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "XnnpackBackend");
  TPT_EQ_U64(di.nbytes, blob_n);
  TPT_EQ_INT(di.location, TP_PTE_DATA_SEGMENT);
  TPT_EQ_INT((int)di.index, 1);
  {
    unsigned char want[77];
    size_t i;
    for (i = 0; i < sizeof want; i++) want[i] = (unsigned char)(i * 13u + 5u);
    TPT_MEMEQ(di.data, want, sizeof want);
  }
  /* e and h are live together through the tensor list at instruction 2: apart */
  {
    tp_pte_value_info ve, vh;
    TPT_STATUS(tp_pte_value_at(&f, 0, e, &ve), TP_OK);
    TPT_STATUS(tp_pte_value_at(&f, 0, h, &vh), TP_OK);
    TPT_CHECK(ve.memory_offset + ve.nbytes <= vh.memory_offset ||
              vh.memory_offset + vh.nbytes <= ve.memory_offset);
  }
  tp_pte_close(&f);
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

/* tokens -> embedding (a portable kernel, the table a constant view) -> an XNNPACK linear (its
   weight a view 64 floats into its storage) -> logits: the delegate call checked against the
   graph's externals, its blob in segment 1 equal to tp_xnn_write's bytes. */
static void test_xnn_call(void) {
  static float wst[3 * 8 * 8], table[10 * 8];
  int64_t sz3[3] = {3, 8, 8}, sz2[2] = {10, 8};
  tp_storage ws = {wst, sizeof wst}, ts = {table, sizeof table};
  tp_tensor parent, w, tab;
  tp_xnn_graph *xg = NULL;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  size_t xd[2] = {4, 8}, i;
  uint32_t xx, xw, xy, tok, wte, e, y, pad, no, a[7];
  tp_pte_tensor ttok = tensor(TP_PTE_INPUT, TP_I64, 1, 4, 0), te = tensor(0, TP_F32, 2, 4, 8);
  tp_pte_tensor ty = tensor(TP_PTE_OUTPUT, TP_F32, 2, 4, 8), bad = tensor(0, TP_F16, 2, 4, 8);
  tp_membuf mb, blob;
  tp_pte_file f;
  tp_pte_delegate_info di;
  tp_sink bs;
  for (i = 0; i < 3 * 8 * 8; i++) wst[i] = (float)i * 0.125f;
  for (i = 0; i < 10 * 8; i++) table[i] = (float)i - 40.0f;
  TPT_STATUS(tp_view(ws, TP_F32, 3, sz3, NULL, 0, &parent, NULL), TP_OK);
  TPT_STATUS(tp_select(&parent, 0, 1, &w, NULL), TP_OK);
  TPT_STATUS(tp_view(ts, TP_F32, 2, sz2, NULL, 0, &tab, NULL), TP_OK);
  TPT_STATUS(tp_xnn_graph_create(NULL, &xg), TP_OK);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 2, xd, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT, &xx);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 2, NULL, &w, TP_XNN_INVALID_ID, 0, &xw);
  tp_xnn_define_tensor_value(xg, TP_XNN_FP32, 2, xd, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT, &xy);
  tp_xnn_define_fully_connected(xg, -INFINITY, INFINITY, xx, xw, TP_XNN_INVALID_ID, xy, 0);
  TPT_STATUS(tp_xnn_graph_status(xg), TP_OK);

  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ttok, &tok), TP_OK);
  TPT_STATUS(tp_pte_define_constant(g, &tab, &wte), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &te, &e), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ty, &y), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, -1, &pad), TP_OK);
  TPT_STATUS(tp_pte_define_bool(g, 0, &no), TP_OK);
  a[0] = wte, a[1] = tok, a[2] = pad, a[3] = no, a[4] = no, a[5] = e, a[6] = e;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::embedding", "out", a, 7), TP_OK);
  a[0] = e, a[1] = y;
  TPT_STATUS(tp_xnn_pte_call(g, xg, a, 2), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "XnnpackBackend");
  memset(&blob, 0, sizeof blob);
  bs = tp_sink_membuf(&blob);
  TPT_STATUS(tp_xnn_write(xg, &bs), TP_OK);
  TPT_EQ_U64(di.nbytes, blob.size);
  TPT_MEMEQ(di.data, blob.data, blob.size);
  TPT_EQ_INT((int)di.index, 1); /* segment 0 holds the table */
  tp_pte_close(&f);
  tp_membuf_free(&mb);
  tp_membuf_free(&blob);
  tp_pte_destroy(p);

  /* refusals: the count, a value with another dtype */
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &te, &e), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &bad, &y), TP_OK);
  a[0] = e;
  TPT_STATUS(tp_xnn_pte_call(g, xg, a, 1), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": an XNNPACK call of 1 values; the "
                                    "graph binds 2 (one value per external, in external-id "
                                    "order)");
  tp_pte_graph_destroy(g);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &te, &e), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &bad, &y), TP_OK);
  a[0] = e, a[1] = y;
  TPT_STATUS(tp_xnn_pte_call(g, xg, a, 2), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": an XNNPACK call: argument 1 (external "
                                    "id 1, f32 [4, 8]) is value 1, f16 [4, 8]");
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(xg);
}

/* A Vulkan linear y[1, 4] = x[1, 8] W^T as a delegate call after a portable relu: the blob in
   segment 1 equal to tp_vk_write's bytes; the count and a value of other sizes refused. */
static void test_vk_call(void) {
  static float wt[32];
  int64_t wsz[2] = {4, 8};
  tp_storage sw = {wt, sizeof wt};
  tp_tensor w;
  tp_vk_graph *vg = NULL;
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  size_t xd[2] = {1, 8}, yd[2] = {1, 4}, i;
  uint32_t vx, vw, vn, vy, a[4], x, r, y;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT, TP_F32, 2, 1, 8), tr = tensor(0, TP_F32, 2, 1, 8);
  tp_pte_tensor ty = tensor(TP_PTE_OUTPUT, TP_F32, 2, 1, 4);
  tp_membuf mb, blob;
  tp_sink bs;
  tp_pte_file f;
  tp_pte_delegate_info di;
  for (i = 0; i < 32; i++) wt[i] = (float)i * 0.5f - 1.0f;
  TPT_STATUS(tp_view(sw, TP_F32, 2, wsz, NULL, 0, &w, NULL), TP_OK);
  TPT_STATUS(tp_vk_graph_create(NULL, &vg), TP_OK);
  tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, xd, NULL, &vx);
  tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, NULL, &w, &vw);
  tp_vk_add_null(vg, &vn);
  tpt_vk_tensor(vg, TP_VK_FLOAT32, 2, yd, NULL, &vy);
  a[0] = vx, a[1] = vw, a[2] = vn, a[3] = vy; /* linear(input, weight, bias None, out) */
  tp_vk_add_op(vg, 0, "aten.linear.default", a, 4);
  tp_vk_set_io(vg, &vx, 1, &vy, 1);
  TPT_STATUS(tp_vk_graph_status(vg), TP_OK);

  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tr, &r), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &ty, &y), TP_OK);
  a[0] = x, a[1] = r, a[2] = r; /* relu.out(self, *, out) */
  TPT_STATUS(tp_pte_call_kernel(g, "aten::relu", "out", a, 3), TP_OK);
  a[0] = r, a[1] = y;
  TPT_STATUS(tp_vk_pte_call(g, vg, a, 2), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
  TPT_STATUS(tp_pte_delegate_at(&f, 0, 0, &di), TP_OK);
  TPT_EQ_STR(di.id, "VulkanBackend");
  memset(&blob, 0, sizeof blob);
  bs = tp_sink_membuf(&blob);
  TPT_STATUS(tp_vk_write(vg, &bs), TP_OK);
  TPT_EQ_U64(di.nbytes, blob.size);
  TPT_MEMEQ(di.data, blob.data, blob.size);
  tp_pte_close(&f);
  tp_membuf_free(&mb);
  tp_membuf_free(&blob);
  tp_pte_destroy(p);

  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tr, &r), TP_OK);
  TPT_STATUS(tp_vk_pte_call(g, vg, &x, 1), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": a Vulkan call of 1 values; the graph "
                                    "binds 2 (one value per input, then per output)");
  tp_pte_graph_destroy(g);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tr, &r), TP_OK);
  a[0] = x, a[1] = r; /* r is [1, 8]: the output is [1, 4] */
  TPT_STATUS(tp_vk_pte_call(g, vg, a, 2), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": a Vulkan call: argument 1 (the graph's "
                                    "output, f32 [1, 4]) is value 1, f32 [1, 8]");
  tp_pte_destroy(p);
  tp_vk_graph_destroy(vg);
}

/* Each refusal: its status, its sentence, latched in the graph and, at finish, in the program. */
static void test_refusals(void) {
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL, *g2 = (tp_pte_graph *)&g;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT, TP_F32, 1, 4, 0);
  uint32_t x = 0, i = 0, args[3];
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "", &g), TP_ERR_INVALID);
  TPT_CHECK(g == NULL);
  TPT_STATUS(tp_pte_graph_create(p, "forward", NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "second", &g2), TP_ERR_INVALID); /* one open at a time */
  TPT_CHECK(g2 == NULL);
  TPT_EQ_STR(tp_pte_graph_error(g), "");
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_int(g, 3, &i), TP_OK);
  args[0] = x, args[1] = 7;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::relu", "out", args, 2), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (aten::relu.out): entry 1 "
                                    "is id 7, which is not a value of the graph (it has 2)");
  TPT_STATUS(tp_pte_graph_status(g), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_define_int(g, 1, &i), TP_ERR_INVALID); /* latched */
  TPT_EQ_U64(i, UINT32_MAX);
  TPT_STATUS(tp_pte_graph_finish(g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": instruction 0 (aten::relu.out): entry 1 is "
                              "id 7, which is not a value of the graph (it has 2)");
  TPT_STATUS(tp_pte_status(p), TP_ERR_INVALID);
  tp_pte_destroy(p);

#define FRESH()                                                        \
  do {                                                                 \
    p = NULL;                                                          \
    g = NULL;                                                          \
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);                        \
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);          \
    TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);               \
    TPT_STATUS(tp_pte_define_int(g, 3, &i), TP_OK);                    \
  } while (0)
  FRESH();
  TPT_STATUS(tp_pte_call_kernel(g, "relu", "out", &x, 1), TP_ERR_INVALID);
  TPT_CHECK(strcmp(tp_pte_graph_error(g), "method \"forward\" instruction 0: the operator "
                   "\"relu\" overload \"out\": an operator is named with its namespace "
                   "(\"aten::add\") and an overload (\"out\"); ExecuTorch's runtime finds no "
                   "kernel otherwise") == 0);
  tp_pte_destroy(p); /* frees the open graph */
  FRESH();
  {
    tp_pte_delegate d;
    memset(&d, 0, sizeof d);
    d.backend_id = "XnnpackBackend";
    d.blob_size = 4;
    d.produce = blob_produce;
    args[0] = x, args[1] = i;
    TPT_STATUS(tp_pte_call_delegate(g, &d, args, 2), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (delegate 0): entry 1 "
                                      "is value 1, an Int, not a Tensor");
  }
  tp_pte_destroy(p);
  FRESH(); /* the delegate's own checks: tp_pte_add_method's, named by the instruction */
  {
    tp_pte_delegate d;
    tp_pte_compile_spec sp = {"", NULL, 0};
    memset(&d, 0, sizeof d);
    d.backend_id = "XnnpackBackend";
    d.produce = blob_produce;
    TPT_STATUS(tp_pte_call_delegate(g, &d, &x, 1), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (delegate 0): blob "
                                      "size 0");
    tp_pte_graph_destroy(g);
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
    d.blob_size = 4;
    d.specs = &sp;
    d.n_specs = 1;
    TPT_STATUS(tp_pte_call_delegate(g, &d, &x, 1), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (delegate 0): compile "
                                      "spec 0 has an empty key");
  }
  tp_pte_graph_destroy(g);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK); /* the name is free again */
  TPT_STATUS(tp_pte_graph_finish(g), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_error(p), "method \"forward\": no instruction (call a kernel or a delegate "
                              "first)");
  tp_pte_destroy(p);
  FRESH();
  {
    tp_pte_tensor bad = tensor(4, TP_F32, 1, 4, 0);
    uint32_t id = 0;
    TPT_STATUS(tp_pte_define_tensor(g, &bad, &id), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\" value 2: role 4 is not TP_PTE_INPUT "
                                      "and/or TP_PTE_OUTPUT (or 0, an intermediate)");
    TPT_EQ_U64(id, UINT32_MAX);
  }
  tp_pte_destroy(p);
  FRESH();
  TPT_STATUS(tp_pte_define_int(g, 1, NULL), TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\" value 2: NULL id_out");
  tp_pte_destroy(p);
  FRESH();
  {
    uint32_t id = 0;
    TPT_STATUS(tp_pte_define_int_list(g, NULL, 2, &id), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\" value 2: NULL int list with 2 entries");
  }
  tp_pte_destroy(p);
  FRESH();
  {
    uint32_t id = 0;
    TPT_STATUS(tp_pte_define_tensor_list(g, &i, 1, &id), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": tensor list: entry 0 is value 1, an "
                                      "Int, not a Tensor");
  }
  tp_pte_destroy(p);
  /* a name taken by a finished method */
  FRESH();
  args[0] = args[1] = args[2] = x;
  TPT_STATUS(tp_pte_call_kernel(g, "aten::relu", "out", args, 3), TP_OK);
  TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_ERR_INVALID);
  TPT_STATUS(tp_pte_graph_finish(NULL), TP_ERR_INVALID);
  tp_pte_destroy(p);
  /* the planned buffer's int64 limit */
  FRESH();
  {
    tp_pte_tensor huge = tensor(TP_PTE_INPUT, TP_F64, 2, (int64_t)1 << 30, (int64_t)1 << 29), big;
    uint32_t a, b, c;
    big = huge;
    big.role = TP_PTE_OUTPUT;
    TPT_STATUS(tp_pte_define_tensor(g, &huge, &a), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &big, &b), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &big, &c), TP_OK);
    {
      uint32_t add[5];
      add[0] = a, add[1] = b, add[2] = i, add[3] = c, add[4] = c;
      TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", add, 5), TP_OK);
    }
    TPT_STATUS(tp_pte_graph_finish(g), TP_ERR_OVERFLOW);
    TPT_CONTAINS(tp_pte_error(p), "need more than 2^63 - 1 bytes");
  }
  tp_pte_destroy(p);
#undef FRESH
}

/* The op table's checks of a kernel call, each with its sentence; other_runtime lifts them. */
static void test_kernel_checks(void) {
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_options o;
  tp_pte_tensor tx = tensor(TP_PTE_INPUT | TP_PTE_OUTPUT, TP_F32, 1, 4, 0);
  uint32_t x, one, none, s, a[5];
  int round;
  for (round = 0; round < 6; round++) {
    memset(&o, 0, sizeof o);
    o.other_runtime = round == 5;
    TPT_STATUS(tp_pte_create(&o, &p), TP_OK);
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
    TPT_STATUS(tp_pte_define_int(g, 1, &one), TP_OK);
    TPT_STATUS(tp_pte_define_null(g, &none), TP_OK);
    TPT_STATUS(tp_pte_define_string(g, "tanh", &s), TP_OK);
    a[0] = x, a[1] = x, a[2] = one, a[3] = x, a[4] = x;
    switch (round) {
      case 0:
        TPT_STATUS(tp_pte_call_kernel(g, "aten::frobnicate", "out", a, 5), TP_ERR_UNSUPPORTED);
        TPT_CHECK(strcmp(tp_pte_graph_error(g), "method \"forward\": instruction 0 "
                         "(aten::frobnicate.out): not an operator of ExecuTorch's portable "
                         "kernels (TP_PTE_OPS); for a runtime with other kernels set "
                         "tp_pte_options.other_runtime") == 0);
        break;
      case 1:
        TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 4), TP_ERR_INVALID);
        TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (aten::add.out): "
                   "4 values; the operator takes 5 (4 arguments, then the return slot)");
        break;
      case 2: /* a Null for add's non-optional Scalar alpha: the runtime aborts on it */
        a[2] = none;
        TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 5), TP_ERR_INVALID);
        TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (aten::add.out): "
                   "argument 2 (alpha: Scalar) is value 2, a Null; it takes Int or Double");
        break;
      case 3: /* gelu's approximate is a str, its out a Tensor */
        a[1] = one, a[2] = x, a[3] = x;
        TPT_STATUS(tp_pte_call_kernel(g, "aten::gelu", "out", a, 4), TP_ERR_INVALID);
        TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (aten::gelu.out): "
                   "argument 1 (approximate: str) is value 1, an Int; it takes String");
        break;
      case 4: /* the return slot must repeat the out tensor */
        a[4] = one;
        TPT_STATUS(tp_pte_call_kernel(g, "aten::add", "out", a, 5), TP_ERR_INVALID);
        TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 0 (aten::add.out): "
                   "the return slot is value 1; it must be the value of argument 3 (out), 0, "
                   "again");
        break;
      default: /* other_runtime: an unknown operator with any count is the runtime's business */
        TPT_STATUS(tp_pte_call_kernel(g, "custom::frobnicate", "out", a, 2), TP_OK);
        a[0] = x, a[1] = s, a[2] = x, a[3] = x;
        TPT_STATUS(tp_pte_call_kernel(g, "aten::gelu", "out", a, 4), TP_OK);
        break;
    }
    tp_pte_destroy(p);
  }
  /* an operator returning a tuple takes ONE return slot: native_layer_norm.out's 8 arguments
     then 1 (ExecuTorch's registration checks 9 and refused the 11 of one slot per return) */
  {
    tp_pte_tensor tm = tensor(0, TP_F32, 1, 1, 0);
    uint32_t shape, eps, mean, rstd, ln[11];
    int64_t four = 4;
    TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &tm, &mean), TP_OK);
    TPT_STATUS(tp_pte_define_tensor(g, &tm, &rstd), TP_OK);
    TPT_STATUS(tp_pte_define_int_list(g, &four, 1, &shape), TP_OK);
    TPT_STATUS(tp_pte_define_null(g, &none), TP_OK);
    TPT_STATUS(tp_pte_define_double(g, 1e-5, &eps), TP_OK);
    ln[0] = x, ln[1] = shape, ln[2] = none, ln[3] = none, ln[4] = eps, ln[5] = x, ln[6] = mean;
    ln[7] = rstd, ln[8] = x, ln[9] = mean, ln[10] = rstd;
    TPT_STATUS(tp_pte_call_kernel(g, "aten::native_layer_norm", "out", ln, 9), TP_OK);
    TPT_STATUS(tp_pte_call_kernel(g, "aten::native_layer_norm", "out", ln, 11), TP_ERR_INVALID);
    TPT_EQ_STR(tp_pte_graph_error(g), "method \"forward\": instruction 1 "
               "(aten::native_layer_norm.out): 11 values; the operator takes 9 (8 arguments, "
               "then the return slot)");
    tp_pte_destroy(p);
  }
  /* a Tensor?[] takes an OptionalTensorList of Tensor and Null values */
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  TPT_STATUS(tp_pte_define_tensor(g, &tx, &x), TP_OK);
  TPT_STATUS(tp_pte_define_null(g, &none), TP_OK);
  {
    uint32_t ids[2], lst, idx[4];
    tp_pte_tensor ti = tensor(TP_PTE_INPUT, TP_I64, 1, 2, 0);
    TPT_STATUS(tp_pte_define_tensor(g, &ti, &ids[0]), TP_OK);
    ids[1] = none;
    TPT_STATUS(tp_pte_define_optional_tensor_list(g, ids, 2, &lst), TP_OK);
    idx[0] = x, idx[1] = lst, idx[2] = x, idx[3] = x;
    TPT_STATUS(tp_pte_call_kernel(g, "aten::index", "Tensor_out", idx, 4), TP_OK);
    TPT_STATUS(tp_pte_graph_finish(g), TP_OK);
  }
  {
    tp_membuf mb;
    tp_pte_file f;
    tp_pte_value_info vi;
    TPT_STATUS(write_mem(p, &mb), TP_OK);
    TPT_STATUS(tp_pte_read(&f, mb.data, mb.size), TP_OK);
    TPT_STATUS(tp_pte_value_at(&f, 0, 3, &vi), TP_OK);
    TPT_EQ_INT(vi.kind, TP_PTE_V_OptionalTensorList);
    tp_pte_close(&f);
    tp_membuf_free(&mb);
  }
  tp_pte_destroy(p);
}

/* ---- out shapes (TP_PTE_SHAPE_RULES) ---- */

/* dtype by its tp_dtype_name ("f32"); -1 for none */
static int dtype_of(const char *s, size_t n) {
  static const int codes[] = {0, 1, 2, 3, 4, 5, 6, 7, 11, 15};
  size_t k;
  for (k = 0; k < sizeof codes / sizeof codes[0]; k++)
    if (strlen(tp_dtype_name((tp_dtype)codes[k])) == n &&
        memcmp(tp_dtype_name((tp_dtype)codes[k]), s, n) == 0)
      return codes[k];
  return -1;
}

/* A tensor "f32 2,3" ("f32" alone: 0 dims) defined in g; *end past it. */
static uint32_t spec_tensor(tp_pte_graph *g, const char *s, const char **end) {
  tp_pte_tensor t;
  uint32_t id = UINT32_MAX;
  size_t n = 0;
  memset(&t, 0, sizeof t);
  while (*s == ' ') s++;
  while (s[n] && s[n] != ' ' && s[n] != ';' && s[n] != '|') n++;
  t.dtype = (tp_dtype)dtype_of(s, n);
  s += n;
  while (*s == ' ') s++;
  while (*s >= '0' && *s <= '9') {
    t.sizes[t.ndim++] = strtoll(s, (char **)&s, 10);
    if (*s == ',') s++;
  }
  tp_pte_define_tensor(g, &t, &id);
  *end = s;
  return id;
}

/* One value of spec piece s: "T f32 2,3", "I -1", "D 2.5", "B 1", "N", "S tanh", "L 4,-1"
   (an int list; "L" alone: empty), "TL f32 4,8 ; f32 4,8" (a tensor list). */
static uint32_t spec_value(tp_pte_graph *g, const char *s) {
  uint32_t id = UINT32_MAX;
  const char *e;
  while (*s == ' ') s++;
  if (s[0] == 'T' && s[1] == 'L') {
    uint32_t items[8];
    size_t n = 0;
    s += 2;
    while (*s && *s != '|') {
      items[n++] = spec_tensor(g, s, &e);
      s = e;
      while (*s == ' ' || *s == ';') s++;
    }
    tp_pte_define_tensor_list(g, items, n, &id);
  } else if (s[0] == 'T') {
    id = spec_tensor(g, s + 1, &e);
  } else if (s[0] == 'I') {
    tp_pte_define_int(g, strtoll(s + 1, NULL, 10), &id);
  } else if (s[0] == 'D') {
    tp_pte_define_double(g, strtod(s + 1, NULL), &id);
  } else if (s[0] == 'B') {
    tp_pte_define_bool(g, (int)strtol(s + 1, NULL, 10), &id);
  } else if (s[0] == 'N') {
    tp_pte_define_null(g, &id);
  } else if (s[0] == 'S') {
    tp_pte_define_string(g, "tanh", &id);
  } else if (s[0] == 'L') {
    int64_t v[20];
    size_t n = 0;
    s++;
    while (*s == ' ') s++;
    while ((*s >= '0' && *s <= '9') || *s == '-') {
      v[n++] = strtoll(s, (char **)&s, 10);
      if (*s == ',') s++;
    }
    tp_pte_define_int_list(g, v, n, &id);
  }
  return id;
}

/* A kernel call of name.ov on the values of spec (one piece per schema argument, '|' apart;
   the return slot is added: the value of the returned argument). TP_OK, or the refusal with
   the part of its sentence after "method \"forward\": instruction 0 (name.ov): " in msg. */
static tp_status kcall(const char *name, const char *ov, const char *spec, char *msg, size_t cap) {
  tp_pte *p = NULL;
  tp_pte_graph *g = NULL;
  tp_pte_op op;
  uint32_t args[TP_PTE_OP_MAX_ARGS + 1];
  size_t n = 0;
  tp_status st;
  char prefix[160];
  msg[0] = '\0';
  TPT_STATUS(tp_pte_op_lookup(name, ov, &op), TP_OK);
  TPT_STATUS(tp_pte_create(NULL, &p), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
  while (*spec) {
    args[n++] = spec_value(g, spec);
    while (*spec && *spec != '|') spec++;
    if (*spec == '|') spec++;
  }
  TPT_STATUS(tp_pte_graph_status(g), TP_OK);
  TPT_EQ_U64(n, op.num_args);
  args[n] = op.num_returns ? args[op.returns[0]] : args[0];
  st = tp_pte_call_kernel(g, name, ov, args, n + 1);
  snprintf(prefix, sizeof prefix, "method \"forward\": instruction 0 (%s.%s): ", name, ov);
  if (st != TP_OK) {
    const char *e = tp_pte_graph_error(g);
    TPT_CHECK(strncmp(e, prefix, strlen(prefix)) == 0);
    snprintf(msg, cap, "%s", strncmp(e, prefix, strlen(prefix)) == 0 ? e + strlen(prefix) : e);
  }
  tp_pte_destroy(p);
  return st;
}

/* kcall, then its status and sentence ("" for TP_OK) as expected. */
static void expect_call(const char *name, const char *ov, const char *spec, tp_status want,
                        const char *sentence) {
  char msg[300];
  tp_status st = kcall(name, ov, spec, msg, sizeof msg);
  TPT_STATUS(st, want);
  TPT_EQ_STR(msg, sentence);
  if (st != want || strcmp(msg, sentence) != 0) printf("  %s.%s: %s\n", name, ov, spec);
}

/* The SAME and BROADCAST rows, each generically: its tensor inputs f32 [2, 3] (a where's
   condition bool), every other argument a value of its kind (optional ones Null); an out of
   f32 [2, 3] accepted, f32 [3, 2] refused naming both shapes, f16 [2, 3] refused by a row with
   a dtype rule and accepted by one without. */
#define ROW(name, overload, K, inputs, dtype) {name, overload, #K, inputs, dtype},
static const struct {
  const char *name, *overload, *kind, *inputs, *dtype;
} g_rows[] = {TP_PTE_SHAPE_RULES(ROW)};
#undef ROW

static void test_shape_rows(void) {
  size_t r, rows = 0;
  for (r = 0; r < sizeof g_rows / sizeof g_rows[0]; r++) {
    tp_pte_op op;
    char spec[3][400], want[300];
    int v, nt = 0;
    uint32_t k;
    const char *shortname = strstr(g_rows[r].name, "::") + 2;
    if (strcmp(g_rows[r].kind, "SAME") != 0 && strcmp(g_rows[r].kind, "BROADCAST") != 0) continue;
    TPT_STATUS(tp_pte_op_lookup(g_rows[r].name, g_rows[r].overload, &op), TP_OK);
    for (v = 0; v < 3; v++) spec[v][0] = '\0';
    for (k = 0; k < op.num_args; k++) {
      const tp_pte_op_arg *a = &op.args[k];
      const char *piece;
      for (v = 0; v < 3; v++) {
        if (a->is_out)
          piece = v == 0 ? "T f32 2,3" : v == 1 ? "T f32 3,2" : "T f16 2,3";
        else if (a->optional)
          piece = "N";
        else if (a->kind == TP_PTE_ARG_TENSOR)
          piece = strcmp(a->name, "condition") == 0 ? "T bool 2,3" : "T f32 2,3";
        else if (a->kind == TP_PTE_ARG_SCALAR || a->kind == TP_PTE_ARG_INT ||
                 a->kind == TP_PTE_ARG_SYMINT)
          piece = "I 1";
        else if (a->kind == TP_PTE_ARG_FLOAT)
          piece = "D 0.5";
        else if (a->kind == TP_PTE_ARG_BOOL)
          piece = "B 0";
        else
          piece = "S";
        snprintf(spec[v] + strlen(spec[v]), sizeof spec[v] - strlen(spec[v]), "%s%s",
                 k ? " | " : "", piece);
      }
      if (!a->is_out && !a->optional && a->kind == TP_PTE_ARG_TENSOR &&
          strstr(g_rows[r].inputs, a->name))
        nt++;
    }
    expect_call(g_rows[r].name, g_rows[r].overload, spec[0], TP_OK, "");
    snprintf(want, sizeof want, "out is f32 [3, 2], %s of [2, 3]%s%s makes [2, 3]", shortname,
             nt == 3 ? ", [2, 3]" : nt == 2 ? " and [2, 3]" : "", nt == 3 ? " and [2, 3]" : "");
    expect_call(g_rows[r].name, g_rows[r].overload, spec[1], TP_ERR_INVALID, want);
    if (g_rows[r].dtype[0]) {
      snprintf(want, sizeof want, "out is f16 [2, 3], %s of [2, 3]%s%s makes f32 [2, 3]",
               shortname, nt == 3 ? ", [2, 3]" : nt == 2 ? " and [2, 3]" : "",
               nt == 3 ? " and [2, 3]" : "");
      expect_call(g_rows[r].name, g_rows[r].overload, spec[2], TP_ERR_INVALID, want);
    } else {
      expect_call(g_rows[r].name, g_rows[r].overload, spec[2], TP_OK, "");
    }
    rows++;
  }
  printf("  %lu SAME / BROADCAST rows: accepted right, refused wrong\n", (unsigned long)rows);
}

/* Every other kind of rule: a right out accepted, a wrong one refused naming both shapes, and
   inputs that make no shape refused naming them. {op, overload, values (kcall), status, the
   sentence after the instruction's name}. */
static const struct {
  const char *name, *overload, *spec;
  tp_status want;
  const char *sentence;
} g_kind_cases[] = {
    /* mm, bmm, addmm */
    {"aten::mm", "out", "T f32 2,3 | T f32 3,4 | T f32 2,4", TP_OK, ""},
    {"aten::mm", "out", "T f32 2,3 | T f32 3,4 | T f32 2,5", TP_ERR_INVALID,
     "out is f32 [2, 5], mm of [2, 3] x [3, 4] makes [2, 4]"},
    {"aten::mm", "out", "T f32 2,3 | T f32 3,4 | T f16 2,4", TP_ERR_INVALID,
     "out is f16 [2, 4], mm of [2, 3] x [3, 4] makes f32 [2, 4]"},
    {"aten::mm", "out", "T f32 2,3 | T f32 4,5 | T f32 2,5", TP_ERR_INVALID,
     "mm of [2, 3] x [4, 5]: the inner sizes 3 and 4 differ"},
    {"aten::mm", "out", "T f32 2 | T f32 2,2 | T f32 2", TP_ERR_INVALID,
     "mm of [2] x [2, 2]: mm takes two 2-dim tensors"},
    {"aten::bmm", "out", "T f32 4,2,3 | T f32 4,3,5 | T f32 4,2,5", TP_OK, ""},
    {"aten::bmm", "out", "T f32 4,2,3 | T f32 4,3,5 | T f32 4,5,2", TP_ERR_INVALID,
     "out is f32 [4, 5, 2], bmm of [4, 2, 3] x [4, 3, 5] makes [4, 2, 5]"},
    {"aten::bmm", "out", "T f32 4,2,3 | T f32 3,3,5 | T f32 4,2,5", TP_ERR_INVALID,
     "bmm of [4, 2, 3] x [3, 3, 5]: the batch sizes 4 and 3 differ"},
    {"aten::addmm", "out", "T f32 4 | T f32 2,3 | T f32 3,4 | I 1 | I 1 | T f32 2,4", TP_OK, ""},
    {"aten::addmm", "out",
     "T f32 4 | T f32 2,3 | T f32 3,4 | I 1 | I 1 | T f32 4,2", TP_ERR_INVALID,
     "out is f32 [4, 2], addmm of [4] + [2, 3] x [3, 4] makes [2, 4]"},
    {"aten::addmm", "out",
     "T f32 3 | T f32 2,3 | T f32 3,4 | I 1 | I 1 | T f32 2,4", TP_ERR_INVALID,
     "addmm of [3] + [2, 3] x [3, 4]: [3] does not broadcast to [2, 4]"},
    /* broadcasting of different shapes, and two that do not */
    {"aten::add", "out", "T f32 2,1,3 | T f32 4,1 | I 1 | T f32 2,4,3", TP_OK, ""},
    {"aten::add", "out", "T f32 2,1,3 | T f32 4,1 | I 1 | T f32 2,4,1", TP_ERR_INVALID,
     "out is f32 [2, 4, 1], add of [2, 1, 3] and [4, 1] makes [2, 4, 3]"},
    {"aten::add", "out", "T f32 2,3 | T f32 4 | I 1 | T f32 2,3", TP_ERR_INVALID,
     "add of [2, 3] and [4]: sizes 3 and 4 do not broadcast"},
    /* mixed dtypes: no dtype rule */
    {"aten::add", "out", "T i32 2,3 | T f32 3 | I 1 | T f16 2,3", TP_OK, ""},
    {"aten::where", "self_out", "T bool 2,1 | T f32 3 | T f32 1 | T f32 2,3", TP_OK, ""},
    {"aten::clamp", "Tensor_out", "T f32 2,3 | T f32 3 | N | T f32 3", TP_ERR_INVALID,
     "out is f32 [3], clamp of [2, 3] and [3] makes [2, 3]"},
    /* view_copy */
    {"aten::view_copy", "out", "T f32 2,6 | L 4,-1 | T f32 4,3", TP_OK, ""},
    {"aten::view_copy", "out", "T f32 2,6 | L 4,-1 | T f32 3,4", TP_ERR_INVALID,
     "out is f32 [3, 4], view_copy of [2, 6] as [4, -1] makes [4, 3]"},
    {"aten::view_copy", "out", "T f32 2,6 | L 5,-1 | T f32 5,2", TP_ERR_INVALID,
     "view_copy of [2, 6] as [5, -1]: 12 elements are not a multiple of 5"},
    {"aten::view_copy", "out", "T f32 2,6 | L 5,3 | T f32 5,3", TP_ERR_INVALID,
     "view_copy of [2, 6] as [5, 3]: 12 elements, not 15"},
    {"aten::view_copy", "out", "T f32 2,6 | L -1,-1 | T f32 12", TP_ERR_INVALID,
     "view_copy of [2, 6] as [-1, -1]: size -1 at 1 (only one -1 is inferred)"},
    /* permute_copy, transpose_copy */
    {"aten::permute_copy", "out", "T f32 2,3,4 | L -1,0,1 | T f32 4,2,3", TP_OK, ""},
    {"aten::permute_copy", "out", "T f32 2,3,4 | L 2,0,1 | T f32 2,3,4", TP_ERR_INVALID,
     "out is f32 [2, 3, 4], permute_copy of [2, 3, 4] by [2, 0, 1] makes [4, 2, 3]"},
    {"aten::permute_copy", "out", "T f32 2,3,4 | L 0,0,1 | T f32 2,2,3", TP_ERR_INVALID,
     "permute_copy of [2, 3, 4] by [0, 0, 1]: dims is not a permutation of the 3 dims"},
    {"aten::transpose_copy", "int_out", "T f32 2,3,4 | I 0 | I -1 | T f32 4,3,2", TP_OK, ""},
    {"aten::transpose_copy", "int_out", "T f32 2,3,4 | I 0 | I -1 | T f32 2,3,4", TP_ERR_INVALID,
     "out is f32 [2, 3, 4], transpose_copy of [2, 3, 4] swapping dims 0 and -1 makes [4, 3, 2]"},
    {"aten::transpose_copy", "int_out", "T f32 2,3,4 | I 0 | I 3 | T f32 2,3,4", TP_ERR_INVALID,
     "transpose_copy of [2, 3, 4] swapping dims 0 and 3: a dim is out of range for 3 dims"},
    /* expand_copy */
    {"aten::expand_copy", "out", "T f32 3,1 | L 2,3,4 | B 0 | T f32 2,3,4", TP_OK, ""},
    {"aten::expand_copy", "out", "T f32 3,1 | L -1,4 | B 0 | T f32 3,1", TP_ERR_INVALID,
     "out is f32 [3, 1], expand_copy of [3, 1] to [-1, 4] makes [3, 4]"},
    {"aten::expand_copy", "out", "T f32 3,1 | L 2,4 | B 0 | T f32 2,4", TP_ERR_INVALID,
     "expand_copy of [3, 1] to [2, 4]: size 2 at 0 cannot expand a dim of 3"},
    {"aten::expand_copy", "out", "T f32 3,1 | L -1,3,4 | B 0 | T f32 3,4", TP_ERR_INVALID,
     "expand_copy of [3, 1] to [-1, 3, 4]: size -1 at 0: a new leading dim takes a size >= 0"},
    {"aten::expand_copy", "out", "T f32 3,1 | L 4 | B 0 | T f32 4", TP_ERR_INVALID,
     "expand_copy of [3, 1] to [4]: 1 sizes for a tensor of 2 dims"},
    /* slice_copy (Python clamping), select_copy */
    {"aten::slice_copy", "Tensor_out", "T f32 4,6 | I 1 | I 1 | N | I 2 | T f32 4,3", TP_OK, ""},
    {"aten::slice_copy", "Tensor_out",
     "T f32 4,6 | I -1 | I -4 | I 9223372036854775807 | I 1 | T f32 4,4", TP_OK,
     ""},
    {"aten::slice_copy", "Tensor_out", "T f32 4,6 | I 1 | I 5 | I 2 | I 1 | T f32 4,0", TP_OK, ""},
    {"aten::slice_copy", "Tensor_out", "T f32 4,6 | I 1 | N | N | I 4 | T f32 4,1", TP_ERR_INVALID,
     "out is f32 [4, 1], slice_copy of [4, 6] on dim 1 from 0 to 6 by 4 makes [4, 2]"},
    {"aten::slice_copy", "Tensor_out", "T f32 4,6 | I 1 | N | N | I 0 | T f32 4,1", TP_ERR_INVALID,
     "slice_copy of [4, 6] on dim 1 from 0 to 6 by 0: step 0 is not positive"},
    {"aten::slice_copy", "Tensor_out", "T f32 4,6 | I 2 | N | N | I 1 | T f32 4,6", TP_ERR_INVALID,
     "slice_copy of [4, 6] on dim 2: dim 2 is out of range for 2 dims"},
    {"aten::select_copy", "int_out", "T f32 4,6 | I 0 | I -1 | T f32 6", TP_OK, ""},
    {"aten::select_copy", "int_out", "T f32 4,6 | I 0 | I -1 | T f32 4", TP_ERR_INVALID,
     "out is f32 [4], select_copy of [4, 6] at index -1 of dim 0 makes [6]"},
    {"aten::select_copy", "int_out", "T f32 4,6 | I 0 | I 4 | T f32 6", TP_ERR_INVALID,
     "select_copy of [4, 6] at index 4 of dim 0: index 4 is outside dim 0 of size 4"},
    /* unsqueeze_copy, squeeze_copy */
    {"aten::unsqueeze_copy", "out", "T f32 2,3 | I -1 | T f32 2,3,1", TP_OK, ""},
    {"aten::unsqueeze_copy", "out", "T f32 2,3 | I -1 | T f32 2,1,3", TP_ERR_INVALID,
     "out is f32 [2, 1, 3], unsqueeze_copy of [2, 3] at dim -1 makes [2, 3, 1]"},
    {"aten::unsqueeze_copy", "out", "T f32 2,3 | I 3 | T f32 2,3,1", TP_ERR_INVALID,
     "unsqueeze_copy of [2, 3] at dim 3: dim 3 is out of range for 3 dims"},
    {"aten::squeeze_copy", "dims_out", "T f32 2,1,3,1 | L 1,3 | T f32 2,3", TP_OK, ""},
    {"aten::squeeze_copy", "dims_out", "T f32 2,1,3,1 | L 1 | T f32 2,3", TP_ERR_INVALID,
     "out is f32 [2, 3], squeeze_copy of [2, 1, 3, 1] at dims [1] makes [2, 3, 1]"},
    {"aten::squeeze_copy", "dim_out", "T f32 2,1,3 | I 0 | T f32 2,1,3", TP_OK, ""},
    {"aten::squeeze_copy", "dim_out", "T f32 2,1,3 | I 1 | T f32 2,1,3", TP_ERR_INVALID,
     "out is f32 [2, 1, 3], squeeze_copy of [2, 1, 3] at dim 1 makes [2, 3]"},
    {"aten::squeeze_copy", "dim_out", "T f32 2,1,3 | I -4 | T f32 2,3", TP_ERR_INVALID,
     "squeeze_copy of [2, 1, 3] at dim -4: dim -4 is out of range for 3 dims"},
    /* cat (a 1-D empty tensor skipped, as the kernel does) */
    {"aten::cat", "out", "TL f32 4,8 ; f32 2,8 ; f32 0 | I 0 | T f32 6,8", TP_OK, ""},
    {"aten::cat", "out", "TL f32 4,8 ; f32 2,8 ; f32 0 | I 0 | T f32 8,8", TP_ERR_INVALID,
     "out is f32 [8, 8], cat of [4, 8], [2, 8] and [0] on dim 0 makes [6, 8]"},
    {"aten::cat", "out", "TL f32 4,8 ; f32 2,8 | I 0 | T f16 6,8", TP_ERR_INVALID,
     "out is f16 [6, 8], cat of [4, 8] and [2, 8] on dim 0 makes f32 [6, 8]"},
    {"aten::cat", "out", "TL f32 4,8 ; f32 4,7 | I 0 | T f32 8,8", TP_ERR_INVALID,
     "cat of [4, 8] and [4, 7] on dim 0: tensor 0 does not match the others outside dim 0"},
    /* embedding, index_select */
    {"aten::embedding", "out", "T f32 10,8 | T i64 1,4 | I -1 | B 0 | B 0 | T f32 1,4,8", TP_OK,
     ""},
    {"aten::embedding", "out",
     "T f32 10,8 | T i64 1,4 | I -1 | B 0 | B 0 | T f32 4,8", TP_ERR_INVALID,
     "out is f32 [4, 8], embedding of [10, 8] at indices [1, 4] makes [1, 4, 8]"},
    {"aten::embedding", "out",
     "T f32 10,8,2 | T i64 1,4 | I -1 | B 0 | B 0 | T f32 1,4,8", TP_ERR_INVALID,
     "embedding of [10, 8, 2] at indices [1, 4]: the weight has 3 dims, not 2"},
    {"aten::index_select", "out", "T f32 5,3 | I 0 | T i64 4 | T f32 4,3", TP_OK, ""},
    {"aten::index_select", "out", "T f32 5,3 | I 0 | T i64 4 | T f32 5,3", TP_ERR_INVALID,
     "out is f32 [5, 3], index_select of [5, 3] on dim 0 by 4 indices makes [4, 3]"},
    {"aten::index_select", "out", "T f32 5,3 | I 0 | T i64 2,2 | T f32 4,3", TP_ERR_INVALID,
     "index_select of [5, 3] on dim 0 by 4 indices: the index has 2 dims (0 or 1)"},
    /* native_layer_norm: three outs */
    {"aten::native_layer_norm", "out",
     "T f32 2,5,4 | L 4 | N | N | D 0.00001 | T f32 2,5,4 | T f32 2,5,1 | T f32 2,5,1", TP_OK,
     ""},
    {"aten::native_layer_norm", "out",
     "T f32 2,5,4 | L 4 | N | N | D 0.00001 | T f32 2,5,4 | T f32 2,5 | T f32 2,5,1",
     TP_ERR_INVALID,
     "out1 is f32 [2, 5], native_layer_norm of [2, 5, 4] over [4] makes [2, 5, 1]"},
    {"aten::native_layer_norm", "out",
     "T f32 2,5,4 | L 4 | N | N | D 0.00001 | T f32 2,5,4 | T f32 2,5,1 | T f16 2,5,1",
     TP_ERR_INVALID,
     "out2 is f16 [2, 5, 1], native_layer_norm of [2, 5, 4] over [4] makes f32 [2, 5, 1]"},
    {"aten::native_layer_norm", "out",
     "T f32 2,5,4 | L 5 | N | N | D 0.00001 | T f32 2,5,4 | T f32 2,5,1 | T f32 2,5,1",
     TP_ERR_INVALID,
     "native_layer_norm of [2, 5, 4] over [5]: normalized_shape is not the input's last dims"},
    /* sum, mean (dims, keepdim, a dtype argument) */
    {"aten::sum", "IntList_out", "T f32 2,3,4 | L 1,-1 | B 0 | N | T f32 2", TP_OK, ""},
    {"aten::sum", "IntList_out", "T f32 2,3,4 | L 1,-1 | B 1 | N | T f32 2,1,1", TP_OK, ""},
    {"aten::sum", "IntList_out", "T f32 2,3 | N | B 0 | N | T f32", TP_OK, ""},
    {"aten::sum", "IntList_out", "T f32 2,3,4 | L 1 | B 1 | N | T f32 2,4", TP_ERR_INVALID,
     "out is f32 [2, 4], sum of [2, 3, 4] over dims [1] with keepdim makes [2, 1, 4]"},
    {"aten::sum", "IntList_out", "T f32 2,3 | L 1 | B 0 | I 7 | T f32 2", TP_ERR_INVALID,
     "out is f32 [2], sum of [2, 3] over dims [1] makes f64 [2]"},
    {"aten::sum", "IntList_out", "T f32 2,3 | L 1 | B 0 | I 7 | T f64 2", TP_OK, ""},
    {"aten::sum", "IntList_out", "T f32 2,3 | L 1,-1 | B 0 | N | T f32 2", TP_ERR_INVALID,
     "sum of [2, 3] over dims [1, -1]: dim 1 is listed twice"},
    {"aten::mean", "out", "T f32 2,3 | L | B 1 | N | T f32 1,1", TP_OK, ""},
    {"aten::mean", "out", "T f32 2,3 | L | B 0 | N | T f32 1", TP_ERR_INVALID,
     "out is f32 [1], mean of [2, 3] over all dims makes []"},
    /* full, zeros, arange */
    {"aten::full", "out", "L 2,3 | D 1.5 | T f32 2,3", TP_OK, ""},
    {"aten::full", "out", "L 2,3 | D 1.5 | T f32 3,2", TP_ERR_INVALID,
     "out is f32 [3, 2], full of size [2, 3] makes [2, 3]"},
    {"aten::full", "out", "L 2,-3 | D 1.5 | T f32 2,3", TP_ERR_INVALID,
     "full of size [2, -3]: size -3 at 1 is negative"},
    {"aten::zeros", "out", "L 4 | T i64 4", TP_OK, ""},
    {"aten::arange", "out", "I 5 | T i64 5", TP_OK, ""},
    {"aten::arange", "start_out", "D 0 | D 1 | D 0.25 | T f32 4", TP_OK, ""},
    {"aten::arange", "start_out", "I 1 | I 10 | I 3 | T i64 3", TP_OK, ""},
    {"aten::arange", "out", "I 5 | T i64 4", TP_ERR_INVALID,
     "out is i64 [4], arange from 0 to 5 by 1 makes [5]"},
    {"aten::arange", "start_out", "I 0 | I 5 | I -1 | T i64 5", TP_ERR_INVALID,
     "arange from 0 to 5 by -1: (end - start) / step is -5, not a count of 0 .. 2147483647"},
};

static void test_shape_kinds(void) {
  size_t k;
  for (k = 0; k < sizeof g_kind_cases / sizeof g_kind_cases[0]; k++)
    expect_call(g_kind_cases[k].name, g_kind_cases[k].overload, g_kind_cases[k].spec,
                g_kind_cases[k].want, g_kind_cases[k].sentence);
  printf("  %lu calls of the other kinds\n", (unsigned long)k);
  /* an operator without a rule is not checked; other_runtime lifts every rule */
  expect_call("aten::glu", "out", "T f32 4 | I 0 | T f32 9,9", TP_OK, "");
  {
    tp_pte *p = NULL;
    tp_pte_graph *g = NULL;
    tp_pte_options o;
    uint32_t a[4];
    memset(&o, 0, sizeof o);
    o.other_runtime = 1;
    TPT_STATUS(tp_pte_create(&o, &p), TP_OK);
    TPT_STATUS(tp_pte_graph_create(p, "forward", &g), TP_OK);
    a[0] = spec_value(g, "T f32 2,3");
    a[1] = spec_value(g, "T f32 4,5");
    a[2] = a[3] = spec_value(g, "T f32 7");
    TPT_STATUS(tp_pte_call_kernel(g, "aten::mm", "out", a, 4), TP_OK);
    tp_pte_destroy(p);
  }
}

/* A graph changed from its program's own progress callback: refused, latched in the graph, the
   write itself unharmed. */
static tp_pte_graph *g_open;
static tp_status g_during = TP_OK;
static int define_during_write(void *ctx, uint64_t done, uint64_t total) {
  uint32_t id;
  (void)ctx;
  (void)done;
  (void)total;
  if (g_during == TP_OK) g_during = tp_pte_define_int(g_open, 1, &id);
  return 0;
}

static void test_during_write(void) {
  tp_pte *p = NULL;
  tp_pte_options o;
  prog_ids d;
  tp_membuf mb;
  memset(&o, 0, sizeof o);
  o.progress = define_during_write;
  TPT_STATUS(tp_pte_create(&o, &p), TP_OK);
  TPT_STATUS(build_portable(p, &d), TP_OK);
  TPT_STATUS(tp_pte_graph_create(p, "second", &g_open), TP_OK);
  TPT_STATUS(write_mem(p, &mb), TP_OK);
  TPT_STATUS(g_during, TP_ERR_INVALID);
  TPT_EQ_STR(tp_pte_graph_error(g_open), "a tp_pte_define_* call during its own write (from the "
                                         "progress callback): the program cannot change while "
                                         "it is written");
  TPT_STATUS(tp_pte_graph_finish(g_open), TP_ERR_INVALID); /* latched into the program */
  tp_membuf_free(&mb);
  tp_pte_destroy(p);
}

/* Every allocation failing in turn: the failing call's status, no leak. */
static void test_alloc_failures(void) {
  long k;
  int done = 0;
  for (k = 0; k < 400 && !done; k++) {
    tp_pte *p = NULL;
    prog_ids d;
    size_t live = g_live;
    tp_status st;
    g_fail_at = k;
    st = tp_pte_create(NULL, &p);
    if (st == TP_OK) st = build_portable(p, &d);
    if (st == TP_OK) {
      tp_membuf mb;
      st = write_mem(p, &mb);
      tp_membuf_free(&mb);
    }
    done = g_fail_at >= 0; /* the failure was never reached */
    g_fail_at = -1;
    TPT_CHECK(st == TP_OK || st == TP_ERR_NOMEM || st == TP_ERR_INVALID);
    tp_pte_destroy(p);
    TPT_EQ_U64(g_live, live);
  }
  TPT_CHECK(done);
}

int main(void) {
  TPT_RUN(test_portable_program);
  TPT_RUN(test_mixed_program);
  TPT_RUN(test_constants);
  TPT_RUN(test_constant_refusals);
  TPT_RUN(test_reader_operator_name);
  TPT_RUN(test_xnn_call);
  TPT_RUN(test_vk_call);
  TPT_RUN(test_refusals);
  TPT_RUN(test_kernel_checks);
  TPT_RUN(test_shape_rows);
  TPT_RUN(test_shape_kinds);
  TPT_RUN(test_during_write);
  TPT_RUN(test_alloc_failures);
  return tpt_finish("pte_graph");
}
