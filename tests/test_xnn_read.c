/* tp_xnn_read_blob: the pure XNNPACK blob reader (no XNNPACK needed). Reads what the writer
   wrote - every node kind's fields by the description, every value kind, inline and named
   constants - refuses malformed blobs with a sentence, and never reads outside the bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tensorpack_xnnpack.h"
#include "tp_test.h"
#include "xnn_patch.h"

static tp_tensor view_of(const void *p, size_t nbytes, tp_dtype dt, int ndim, const int64_t *sizes) {
  tp_storage s;
  tp_tensor t;
  s.data = p;
  s.nbytes = nbytes;
  memset(&t, 0, sizeof t);
  TPT_STATUS(tp_view(s, dt, ndim, sizes, NULL, 0, &t, NULL), TP_OK);
  return t;
}

static void write_blob(tp_xnn_graph *g, tp_membuf *m) {
  tp_sink s;
  memset(m, 0, sizeof *m);
  s = tp_sink_membuf(m);
  TPT_STATUS(tp_xnn_write(g, &s), TP_OK);
}

/* The format corpus below sets fields at arbitrary values: its graphs opt out of the define-time
   rules (TP_XNN_TARGET_UNCHECKED), as the other format suites do. */
static void unchecked_graph(tp_xnn_graph **g) {
  tp_xnn_options o;
  memset(&o, 0, sizeof o);
  o.target = TP_XNN_TARGET_UNCHECKED;
  TPT_STATUS(tp_xnn_graph_create(&o, g), TP_OK);
}

/* Every node kind of the description, fields set through the define calls' shared helpers
   (through the writer), read back field by field. */
static void test_every_node_kind(void) {
  tp_xnn_graph *g;
  tp_membuf m;
  tp_xnn_blob b;
  tp_error e;
  size_t d4[4] = {1, 2, 3, 4}, va[4] = {7, 8, 9, 10}, vb[4] = {11, 12, 13, 14};
  uint32_t i;
  int k;
  unchecked_graph(&g);
  for (i = 0; i < 8; i++)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, NULL, i < 2 ? i : TP_XNN_INVALID_ID,
                                          i == 0 ? TP_XNN_FLAG_EXTERNAL_INPUT
                                                 : i == 1 ? TP_XNN_FLAG_EXTERNAL_OUTPUT : 0,
                                          NULL), TP_OK);
  /* a few kinds through their define calls, with known values */
  TPT_STATUS(tp_xnn_define_convolution_2d(g, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1.0f, 1.0f,
                                          2, 3, TP_XNN_INVALID_ID, 4, 5), TP_OK);
  TPT_STATUS(tp_xnn_define_static_slice(g, 4, va, vb, 5, 6, 7), TP_OK);
  TPT_STATUS(tp_xnn_define_leaky_relu(g, 0.25f, 6, 7, 0), TP_OK);
  TPT_STATUS(tp_xnn_define_concatenate3(g, 2, 0, 1, 2, 3, 0), TP_OK);
  TPT_STATUS(tp_xnn_set_debug_handle(g, 2, 99), TP_OK);
  write_blob(g, &m);
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_EQ_INT(b.has_header, 1);
  TPT_EQ_STR(b.identifier, "XN01");
  TPT_EQ_INT(b.num_values, 8);
  TPT_EQ_INT(b.num_nodes, 4);
  TPT_EQ_INT(b.num_externs, 2);
  TPT_EQ_INT(b.num_input_ids, 1);
  TPT_EQ_INT(b.num_output_ids, 1);
  TPT_EQ_INT(b.output_ids[0], 1);
  TPT_EQ_INT(b.values[1].flags, TP_XNN_FLAG_EXTERNAL_OUTPUT);
  TPT_EQ_INT(b.values[3].ndims, 4);
  TPT_EQ_INT(b.values[3].dims[3], 4);
  TPT_EQ_INT(b.values[3].external_id, TP_XNN_INVALID_ID);
  if (b.num_nodes == 4) {
    const tp_xnn_blob_node *c = &b.nodes[0], *sl = &b.nodes[1], *lr = &b.nodes[2], *ct = &b.nodes[3];
    float slope;
    TPT_EQ_INT(c->kind, TP_XNN_NODE_CONV2D);
    TPT_EQ_INT(c->f[TP_XNN_FIELD(_XNNNodeConv, padding_left)], 4);
    TPT_EQ_INT(c->f[TP_XNN_FIELD(_XNNNodeConv, groups)], 11);
    TPT_EQ_INT(c->f[TP_XNN_FIELD(_XNNNodeConv, group_input_channels)], 12);
    TPT_EQ_INT(c->f[TP_XNN_FIELD(_XNNNodeConv, bias_id)], TP_XNN_INVALID_ID);
    TPT_EQ_INT(c->f[TP_XNN_FIELD(_XNNNodeConv, flags)], 5);
    TPT_CHECK(c->has_output_min_max && c->output_min == -1.0f && c->output_max == 1.0f);
    TPT_EQ_INT(sl->nvec, 2);
    TPT_EQ_INT(sl->vec_len[1], 4);
    TPT_EQ_INT(sl->vec[1][3], 14);
    TPT_EQ_INT(sl->f[TP_XNN_FIELD(XNNStaticSlice, sizes)], 1); /* the vector's slot */
    TPT_EQ_INT(sl->f[TP_XNN_FIELD(XNNStaticSlice, output_id)], 6);
    memcpy(&slope, &lr->f[TP_XNN_FIELD(XNNLeakyReLU, negative_slope)], 4);
    TPT_CHECK(slope == 0.25f);
    TPT_EQ_INT(lr->debug_handle, 99);
    TPT_EQ_INT(ct->f[TP_XNN_FIELD(_XNNCat, input4_id)], TP_XNN_INVALID_ID);
    TPT_EQ_STR(ct->desc->name, "concatenate3");
  }
  tp_xnn_blob_free(&b);
  tp_xnn_blob_free(&b); /* twice is fine */
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
  /* every kind of the description, one node each, written by the writer's generic node
     path (tp_xnn_define_node, which every define call ends in) with field id f = 1000 k + f
     (ids: a value, none in a slot the kind does not use; floats: those bits), read back field
     by field */
  unchecked_graph(&g);
  for (i = 0; i < 8; i++)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 4, d4, NULL, TP_XNN_INVALID_ID, 0, NULL),
               TP_OK);
  for (k = 1; tp_xnn_describe_node(k); k++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    tp_xnn_node_args a;
    uint32_t nv = 0;
    memset(&a, 0, sizeof a);
    for (i = 0; i < d->nfields; i++) {
      char t = d->fields[i].type;
      uint32_t u = 1000u * (uint32_t)k + i;
      if (t == 'v') {
        a.vec[i] = nv ? vb : va;
        a.vec_len[i] = nv++ ? 2u : (size_t)(k % 4) + 1;
      } else if (t == 'f') {
        memcpy(&a.f[i], &u, 4);
      } else {
        a.u[i] = d->fields[i].role == 'n' ? TP_XNN_INVALID_ID /* the only id it takes */
                 : t == 'i' || t == 'b'   ? (uint32_t)(k + i) % 8u
                                          : u;
      }
    }
    a.has_output_min_max = k % 2;
    a.output_min = (float)-k;
    a.output_max = (float)k;
    TPT_STATUS(tp_xnn_define_node(g, k, &a), TP_OK);
  }
  TPT_EQ_INT(k - 1, TP_XNN_NODE_KINDS);
  write_blob(g, &m);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &e), TP_OK);
  TPT_EQ_INT(b.num_nodes, TP_XNN_NODE_KINDS);
  for (k = 1; k <= (int)b.num_nodes; k++) {
    const tp_xnn_blob_node *n = &b.nodes[k - 1];
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    uint32_t nv = 0;
    TPT_EQ_INT(n->kind, k);
    TPT_EQ_INT(n->has_output_min_max, k % 2);
    for (i = 0; i < d->nfields; i++) {
      char t = d->fields[i].type;
      if (t == 'v') {
        TPT_EQ_INT(n->vec_len[nv], nv == 0 ? (uint32_t)(k % 4) + 1 : 2u);
        TPT_EQ_INT(n->vec[nv][0], nv == 0 ? 7 : 11);
        nv++;
      } else if (t == 'i' || t == 'b') {
        uint32_t want = d->fields[i].role == 'n' ? TP_XNN_INVALID_ID : (uint32_t)(k + i) % 8u;
        TPT_EQ_INT(n->f[i], want);
      } else {
        TPT_EQ_INT(n->f[i], 1000u * (uint32_t)k + i); /* floats: the same bits */
      }
    }
    TPT_EQ_INT(n->nvec, nv);
  }
  tp_xnn_blob_free(&b);
  tp_membuf_free(&m);
  tp_xnn_graph_destroy(g);
}

/* The description's roles, for every node kind: each value id field (type 'i' or 'b') has a
   role and no other field has one; an output is a required id ('i'), an unused slot a 'b'; the
   layout is the fields' type characters in id order (so adding the roles left every layout, and
   with it the bytes, as it was). Cross-check, once and only here: the roles agree with the
   schema's naming - a field is an output exactly when its name starts with "output", and the
   unused slots are a concatenate's inputs. */
static void test_roles(void) {
  int k, outs = 0, unused = 0;
  for (k = 1; tp_xnn_describe_node(k); k++) {
    const tp_xnn_node_desc *d = tp_xnn_describe_node(k);
    char layout[TP_XNN_NODE_MAX_FIELDS + 1];
    uint32_t i, nout = 0, nin = 0;
    TPT_CHECK(d->nfields <= TP_XNN_NODE_MAX_FIELDS);
    if (d->nfields > TP_XNN_NODE_MAX_FIELDS) return;
    for (i = 0; i < d->nfields; i++) {
      const tp_xnn_field *f = &d->fields[i];
      int is_id = f->type == 'i' || f->type == 'b';
      char m[160];
      snprintf(m, sizeof m, "%s.%s: type '%c', role %d", d->name, f->name, f->type, f->role);
      layout[i] = f->type;
      TPT_EQ_INT(f->id, i);
      if (is_id != (f->role != 0) || (f->role && f->role != 'i' && f->role != 'o' &&
                                      f->role != 'n') ||
          (f->role == 'o' && f->type != 'i') || (f->role == 'n' && f->type != 'b'))
        tpt_fail_at(__FILE__, __LINE__, m);
      if ((f->role == 'o') != (strncmp(f->name, "output", 6) == 0))
        tpt_fail_at(__FILE__, __LINE__, m);
      if (f->role == 'n' && (strcmp(d->shape, "Nx1") != 0 || strncmp(f->name, "input", 5) != 0))
        tpt_fail_at(__FILE__, __LINE__, m);
      nout += f->role == 'o';
      nin += f->role == 'i';
      unused += f->role == 'n';
    }
    layout[d->nfields] = 0;
    TPT_EQ_STR(d->layout, layout);
    TPT_EQ_STR(tp_xnn_node_layout(k), layout);
    TPT_CHECK(nout >= 1 && nin >= 1);
    if (!strcmp(d->shape, "Nx1")) TPT_EQ_INT(nin, (uint32_t)(d->name[strlen(d->name) - 1] - '0'));
    outs += (int)nout;
  }
  TPT_EQ_INT(k - 1, TP_XNN_NODE_KINDS);
  TPT_EQ_INT(outs, TP_XNN_NODE_KINDS + 1); /* one output each, argmax pooling two */
  TPT_EQ_INT(unused, 3 + 2 + 1);           /* concatenate2, 3, 4 */
}

/* A slot its node kind does not use (a concatenate's inputs above its count) holding a value
   id, as another writer may leave it: ExecuTorch ignores it, and so do the rules. The blob is
   ours with the one 4-byte word that makes concatenate2's input3_id read 2 (the node's own
   output; read as an input, it would be read before any node produces it). */
static void test_unused_slot(void) {
  tp_xnn_graph *g;
  tp_membuf m;
  tp_error e;
  size_t d23[2] = {2, 3}, d26[2] = {2, 6};
  uint32_t i;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  for (i = 0; i < 3; i++)
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, i < 2 ? d23 : d26, NULL, i,
                                          i < 2 ? TP_XNN_FLAG_EXTERNAL_INPUT
                                                : TP_XNN_FLAG_EXTERNAL_OUTPUT,
                                          NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_concatenate2(g, 1, 0, 1, 2, 0), TP_OK);
  write_blob(g, &m);
  tp_xnn_graph_destroy(g);
  TPT_EQ_INT(tpt_xnn_patch_slot(m.data, m.size, TP_XNN_FIELD(_XNNCat, input3_id), 2), 1);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_EXECUTORCH, &e), TP_OK);
  TPT_STATUS(tp_xnn_check_blob(m.data, m.size, TP_XNN_TARGET_XNNPACK, &e), TP_OK);
  tp_membuf_free(&m);
}

/* Inline and named constants, quantized values: entries, offsets, sizes, keys, data pointers. */
static void test_values_and_constants(void) {
  static float w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, sc[2] = {0.5f, 0.25f};
  static int8_t q[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  int64_t s8[1] = {8}, s24[2] = {2, 4}, s2[1] = {2};
  tp_tensor tw = view_of(w, 32, TP_F32, 1, s8), tq = view_of(q, 8, TP_I8, 2, s24);
  tp_tensor ts = view_of(sc, 8, TP_F32, 1, s2);
  size_t dx[2] = {2, 4};
  int named;
  for (named = 0; named < 2; named++) {
    tp_xnn_graph *g;
    tp_store *st = NULL;
    tp_xnn_options o;
    tp_membuf m;
    tp_xnn_blob b;
    memset(&o, 0, sizeof o);
    if (named) TPT_STATUS(tp_store_create(NULL, &st), TP_OK);
    o.store = st;
    o.target = TP_XNN_TARGET_UNCHECKED; /* values without nodes: a format test */
    TPT_STATUS(tp_xnn_graph_create(&o, &g), TP_OK);
    TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 1, NULL, &tw, TP_XNN_INVALID_ID, 0, NULL),
               TP_OK);
    TPT_STATUS(tp_xnn_define_channelwise_quantized_tensor_value(g, TP_XNN_QCINT8, &ts, 2, 0, NULL,
                                                                &tq, TP_XNN_INVALID_ID, 0, NULL),
               TP_OK);
    TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, -3, 0.5f, 2, dx, NULL, 0,
                                                    TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
    TPT_STATUS(tp_xnn_define_dynamically_quantized_tensor_value(g, TP_XNN_QDINT8, 2, 1, dx,
                                                                TP_XNN_INVALID_ID, 0, NULL), TP_OK);
    write_blob(g, &m);
    TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, NULL), TP_OK);
    TPT_EQ_INT(b.num_values, 4);
    TPT_EQ_INT(b.num_constants, 4); /* reserved, w, scale, q */
    if (b.num_values == 4 && b.num_constants == 4) {
      const tp_xnn_blob_value *v1 = &b.values[1];
      TPT_EQ_INT(b.values[0].value_type, TP_XNN_VALUE_TENSOR);
      TPT_EQ_INT(b.values[0].constant_buffer_idx, 1);
      TPT_EQ_INT(v1->value_type, TP_XNN_VALUE_QUANTIZED);
      TPT_EQ_INT(v1->quant, TP_XNN_QUANT_PER_CHANNEL);
      TPT_EQ_INT(v1->datatype, TP_XNN_QCINT8);
      TPT_EQ_INT(v1->scale_buffer_idx, 2);
      TPT_EQ_INT(v1->num_scales, 2);
      TPT_CHECK(v1->has_inline_scale && v1->num_inline_scales == 0);
      TPT_EQ_INT(b.values[2].quant, TP_XNN_QUANT_PER_TENSOR);
      TPT_EQ_INT(b.values[2].zero_point, -3);
      TPT_CHECK(b.values[2].scale == 0.5f);
      TPT_EQ_INT(b.values[3].quant, TP_XNN_QUANT_PER_TOKEN_DYNAMIC);
      TPT_EQ_INT(b.values[3].num_nonbatch_dims, 1);
      TPT_EQ_U64(b.constants[1].size, 32);
      TPT_EQ_U64(b.constants[3].size, 8);
      /* the blob holds little-endian floats: compare with those bytes (s390x is big-endian) */
      unsigned char wle[32], sle[8];
      int j;
      for (j = 0; j < 8; j++) {
        uint32_t u;
        memcpy(&u, &w[j], 4);
        tp__put_le32(wle + 4 * j, u);
      }
      for (j = 0; j < 2; j++) {
        uint32_t u;
        memcpy(&u, &sc[j], 4);
        tp__put_le32(sle + 4 * j, u);
      }
      if (named) {
        char key[65];
        TPT_STATUS(tp_sha256_hex(wle, 32, key), TP_OK);
        TPT_EQ_STR(b.constants[1].named_key, key);
        TPT_EQ_U64(b.constants[1].offset, UINT64_MAX);
        TPT_CHECK(b.constants[1].data == NULL);
        TPT_CHECK(!strncmp(b.constants[2].named_key, "scale_", 6));
        TPT_EQ_U64(b.segment_size, 0);
      } else {
        TPT_CHECK(b.constants[1].named_key == NULL);
        TPT_CHECK(b.constants[1].data != NULL);
        if (b.constants[1].data) TPT_MEMEQ(b.constants[1].data, wle, 32);
        if (b.constants[2].data) TPT_MEMEQ(b.constants[2].data, sle, 8);
        if (b.constants[3].data) TPT_MEMEQ(b.constants[3].data, q, 8);
        TPT_EQ_U64(b.constants[3].offset, 48); /* 32 -> 32, 8 -> 48 (alignment 16) */
      }
    }
    tp_xnn_blob_free(&b);
    tp_membuf_free(&m);
    tp_xnn_graph_destroy(g);
    tp_store_destroy(st);
  }
}

static unsigned char *small_blob(size_t *n) {
  tp_xnn_graph *g;
  tp_membuf m;
  size_t d[2] = {2, 4};
  unsigned char *p;
  TPT_STATUS(tp_xnn_graph_create(NULL, &g), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT,
                                        NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT,
                                        NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  write_blob(g, &m);
  tp_xnn_graph_destroy(g);
  p = (unsigned char *)malloc(m.size);
  memcpy(p, m.data, m.size);
  *n = m.size;
  tp_membuf_free(&m);
  return p;
}

/* Refusals with their sentences; an old error in err does not stay. */
static void test_malformed(void) {
  size_t n;
  unsigned char *p = small_blob(&n);
  tp_xnn_blob b;
  tp_error e;
  memset(&e, 0, sizeof e);
  tp__error_set(&e, TP_ERR_IO, "old");
  TPT_STATUS(tp_xnn_read_blob(p, 31, &b, &e), TP_ERR_FORMAT);
  TPT_CONTAINS(e.msg, "XH00 header: flatbuffer [32, ");
  TPT_CONTAINS(e.msg, ") ends past the 31-byte file");
  TPT_CHECK(b.values == NULL && b.num_values == 0);
  p[36] = 'Y'; /* the identifier */
  TPT_STATUS(tp_xnn_read_blob(p, n, &b, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "flatbuffer identifier is not XN00 or XN01");
  TPT_STATUS(tp_xnn_read_blob(NULL, 0, &b, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "read_blob: no blob");
  TPT_STATUS(tp_xnn_read_blob(p, n, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "read_blob: out is NULL");
  p[36] = 'X';
  TPT_STATUS(tp_xnn_read_blob(p, n, &b, &e), TP_OK);
  TPT_EQ_INT(e.status, TP_OK);
  tp_xnn_blob_free(&b);
  /* a bare flatbuffer (no XH00 frame) is read as upstream reads it */
  {
    uint32_t fo = tp__get_le32(p + 10), fs = tp__get_le32(p + 14);
    unsigned char *fb = (unsigned char *)malloc(fs);
    memcpy(fb, p + fo, fs);
    TPT_STATUS(tp_xnn_read_blob(fb, fs, &b, &e), TP_OK);
    TPT_EQ_INT(b.has_header, 0);
    TPT_CHECK(b.segment == NULL);
    TPT_EQ_INT(b.num_nodes, 1);
    tp_xnn_blob_free(&b);
    free(fb);
  }
  free(p);
}

/* Every single-byte change and every truncation of a blob: read or refused, never outside the
   bytes (ASan), a sentence whenever refused. */
static void test_damage(void) {
  size_t n, i, refused = 0, read = 0;
  unsigned char *p = small_blob(&n), *q;
  int bad = 0;
  for (i = 0; i < n * 3 + n; i++) {
    tp_xnn_blob b;
    tp_error e;
    size_t len = n;
    tp_status st;
    q = (unsigned char *)malloc(n);
    memcpy(q, p, n);
    if (i < n * 3) q[i / 3] = (unsigned char)(q[i / 3] ^ (0x01u << (i % 3 * 3)) ^ (i % 3 == 2 ? 0xff : 0));
    else len = i - n * 3;
    memset(&e, 0, sizeof e);
    st = tp_xnn_read_blob(q, len, &b, &e);
    if (st == TP_OK) {
      read++;
      tp_xnn_blob_free(&b);
    } else {
      refused++;
      if (st != TP_ERR_FORMAT || e.msg[0] == '\0' || b.stop_part == TP_XNN_PART_NONE) bad++;
      tp_xnn_blob_free(&b); /* what it read before the failure */
    }
    free(q);
  }
  TPT_EQ_INT(bad, 0);
  TPT_CHECK(refused > 0 && read > 0);
  printf("  damaged blobs: %u read, %u refused\n", (unsigned)read, (unsigned)refused);
  free(p);
}

/* A failed read keeps what it read before the failure, with where it stopped: value 2's dims
   patched so their product overflows stops the reader at TP_XNN_PART_VALUES, entry 2, with
   values 0 and 1 and the graph's counts read (tpdump prints them); free clears it. */
static void test_stop(void) {
  tp_xnn_graph *g;
  tp_membuf m;
  tp_xnn_blob b;
  tp_error e;
  size_t d[2] = {2, 4}, big[2] = {7771, 7773}, i;
  int patched = 0;
  unchecked_graph(&g);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT,
                                        NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 1, TP_XNN_FLAG_EXTERNAL_OUTPUT,
                                        NULL), TP_OK);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, big, NULL, TP_XNN_INVALID_ID, 0, NULL),
             TP_OK);
  TPT_STATUS(tp_xnn_define_abs(g, 0, 1, 0), TP_OK);
  write_blob(g, &m);
  tp_xnn_graph_destroy(g);
  for (i = 0; i + 4 <= m.size; i++)
    if (tp__get_le32(m.data + i) == 7771 || tp__get_le32(m.data + i) == 7773) {
      tp__put_le32(m.data + i, 0xFFFFFFFFu);
      patched++;
    }
  TPT_EQ_INT(patched, 2);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &e), TP_ERR_FORMAT);
  TPT_EQ_STR(e.msg, "value 2: the product of dims overflows 64 bits");
  TPT_EQ_INT(b.stop_part, TP_XNN_PART_VALUES);
  TPT_EQ_INT(b.stop_index, 2);
  TPT_EQ_INT(b.num_values, 3);
  TPT_EQ_INT(b.num_nodes, 1);
  TPT_CHECK(b.values != NULL);
  if (b.values) {
    TPT_EQ_INT(b.values[0].ndims, 2);
    TPT_EQ_INT(b.values[1].dims[1], 4);
  }
  tp_xnn_blob_free(&b);
  TPT_CHECK(b.values == NULL && b.num_values == 0 && b.stop_part == TP_XNN_PART_NONE);
  /* a blob read in full: NONE */
  tp_membuf_free(&m);
  unchecked_graph(&g);
  TPT_STATUS(tp_xnn_define_tensor_value(g, TP_XNN_FP32, 2, d, NULL, 0, TP_XNN_FLAG_EXTERNAL_INPUT,
                                        NULL), TP_OK);
  write_blob(g, &m);
  tp_xnn_graph_destroy(g);
  TPT_STATUS(tp_xnn_read_blob(m.data, m.size, &b, &e), TP_OK);
  TPT_EQ_INT(b.stop_part, TP_XNN_PART_NONE);
  tp_xnn_blob_free(&b);
  tp_membuf_free(&m);
}

/* An unknown XNNQuantParams tag is the reader's refusal (the loader relies on it: it knows no
   other quantization): a per-tensor quantized value's union type byte (2) patched to 9. */
static void test_unknown_quantization(void) {
  tp_xnn_graph *g;
  tp_membuf m;
  tp_xnn_blob b;
  tp_error e;
  size_t d[1] = {4}, i;
  int found = 0;
  unchecked_graph(&g);
  TPT_STATUS(tp_xnn_define_quantized_tensor_value(g, TP_XNN_QINT8, 3, 0.5f, 1, d, NULL, 0,
                                                  TP_XNN_FLAG_EXTERNAL_INPUT, NULL), TP_OK);
  write_blob(g, &m);
  tp_xnn_graph_destroy(g);
  for (i = 0; i < m.size && !found; i++) {
    if (m.data[i] != TP_XNN_QUANT_PER_TENSOR) continue;
    m.data[i] = 9;
    if (tp_xnn_read_blob(m.data, m.size, &b, &e) == TP_ERR_FORMAT &&
        strcmp(e.msg, "value 0: unknown quantization 9") == 0)
      found = b.stop_part == TP_XNN_PART_VALUES;
    tp_xnn_blob_free(&b);
    m.data[i] = TP_XNN_QUANT_PER_TENSOR;
  }
  TPT_CHECK(found);
  tp_membuf_free(&m);
}

int main(void) {
  TPT_RUN(test_every_node_kind);
  TPT_RUN(test_roles);
  TPT_RUN(test_unused_slot);
  TPT_RUN(test_values_and_constants);
  TPT_RUN(test_malformed);
  TPT_RUN(test_damage);
  TPT_RUN(test_stop);
  TPT_RUN(test_unknown_quantization);
  return tpt_finish("xnn_read");
}
