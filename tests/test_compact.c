/* Compact copy: tp_compact / tp_compact_into / tp_compact_write against an element-by-element
   reference over random views (every element size, zero and negative strides, empty and size-1
   dims) in both orders; zero-copy proven; the blocked-transpose and streaming paths exercised.
   A tiny scratch makes tp_compact_write split views into many pieces; a small assumed
   last-level cache makes every output of 64 KiB or more take the streaming-store paths. */
#define TP_SCRATCH_BYTES 40u
#define TP_LLC_BYTES (128u * 1024u)
/* its own implementation: TP_SCRATCH_BYTES, TP_LLC_BYTES, the static kernels (tp__transpose) */
#define TP_COUNT_ALLOC_IMPLEMENTATION
#include "tp_count_alloc.h"
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "tp_test.h"
#include <stdlib.h>

static unsigned char g_mem[1 << 18];

static void fill_random(unsigned char *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) p[i] = (unsigned char)(tpt_rand() >> 56);
}

/* Reference: the view's elements in logical index order of `perm` (outermost first). */
static size_t ref_compact(const tp_tensor *t, const int *perm, unsigned char *out) {
  int64_t idx[TP_MAX_DIMS] = {0}, n = 1;
  size_t es = tp_dtype_size(t->dtype), w = 0;
  int d;
  for (d = 0; d < t->ndim; d++) n *= t->sizes[d];
  if (n == 0) return 0;
  for (;;) {
    int64_t e = t->offset;
    for (d = 0; d < t->ndim; d++) e += idx[d] * t->strides[d];
    tpt_to_le(out + w, (const unsigned char *)t->storage.data + e * (int64_t)es, 1, es);
    w += es;
    for (d = t->ndim - 1; d >= 0; d--) {
      int p = perm[d];
      if (++idx[p] < t->sizes[p]) break;
      idx[p] = 0;
    }
    if (d < 0) break;
  }
  return w;
}

static void rand_view(tp_tensor *t, tp_dtype dt, int maxdims, int maxsize) {
  int64_t sizes[TP_MAX_DIMS], strides[TP_MAX_DIMS], lo = 0, hi = 0, off;
  int nd, d;
  size_t es = tp_dtype_size(dt), nbytes;
  tp_storage s;
again:
  nd = (int)tpt_range(0, maxdims);
  lo = hi = 0;
  for (d = 0; d < nd; d++) {
    int64_t r = tpt_range(0, 19);
    sizes[d] = r == 0 ? 0 : r < 5 ? 1 : tpt_range(2, maxsize);
    strides[d] = tpt_range(0, 3) == 0 ? tpt_range(-8, 8) : tpt_range(1, 12);
  }
  /* sometimes a permuted dense view (so PRESERVE has something to preserve) */
  if (nd > 0 && tpt_range(0, 2) == 0) {
    int p[TP_MAX_DIMS], i;
    int64_t acc = 1;
    for (i = 0; i < nd; i++) p[i] = i;
    for (i = nd - 1; i > 0; i--) {
      int j = (int)tpt_range(0, i), x = p[i];
      p[i] = p[j];
      p[j] = x;
    }
    for (i = nd - 1; i >= 0; i--) {
      strides[p[i]] = acc * (tpt_range(0, 5) == 0 ? -1 : 1);
      acc *= sizes[p[i]] ? sizes[p[i]] : 1;
    }
  }
  for (d = 0; d < nd; d++)
    if (sizes[d] > 0) {
      int64_t ext = (sizes[d] - 1) * strides[d];
      if (ext > 0) hi += ext; else lo += ext;
    }
  off = -lo + tpt_range(0, 3);
  nbytes = (size_t)(off + hi + 1 + tpt_range(0, 3)) * es;
  {
    int64_t numel = 1;
    for (d = 0; d < nd; d++) numel *= sizes[d];
    if (nbytes > sizeof g_mem || numel * (int64_t)es > (1 << 18))
      goto again; /* keep the views small enough for the reference buffers */
  }
  s.data = g_mem;
  s.nbytes = nbytes;
  TPT_STATUS(tp_view(s, dt, nd, sizes, strides, off, t, NULL), TP_OK);
}

static const tp_dtype k_types[4] = {TP_U8, TP_F16, TP_F32, TP_I64};

/* Collects sink output; counts calls. */
typedef struct collect {
  unsigned char *p;
  size_t n, cap;
  int calls;
  size_t biggest;
} collect;
static tp_status collect_write(void *ctx, const void *data, size_t n) {
  collect *c = (collect *)ctx;
  if (n > c->cap - c->n) return TP_ERR_BOUNDS;
  memcpy(c->p + c->n, data, n);
  c->n += n;
  c->calls++;
  if (n > c->biggest) c->biggest = n;
  return TP_OK;
}

static void check_view_all_ways(const tp_tensor *t, int *zero_copy_seen) {
  static unsigned char ref[1 << 18], got[(1 << 18) + 1];
  int order, perm[TP_MAX_DIMS], d;
  for (order = 0; order < 2; order++) {
    size_t n;
    tp_buffer b;
    tp_sink sink;
    collect c;
    uint8_t o[TP_MAX_DIMS];
    if (order == TP_ORDER_PRESERVE) {
      TPT_STATUS(tp_dim_order(t, o), TP_OK);
      for (d = 0; d < t->ndim; d++) perm[d] = o[d];
    } else {
      for (d = 0; d < t->ndim; d++) perm[d] = d;
    }
    n = ref_compact(t, perm, ref);
    TPT_EQ_U64(n, tp_nbytes(t));
    /* tp_compact */
    TPT_STATUS(tp_compact(t, (tp_order)order, &b), TP_OK);
    TPT_EQ_U64(b.nbytes, n);
    TPT_CHECK(b.data != NULL);
    TPT_MEMEQ(b.data, ref, n);
    if (!b.owned && n > 0) {
      size_t begin, end;
      zero_copy_seen[order]++;
      TPT_STATUS(tp_span(t, &begin, &end), TP_OK);
      TPT_CHECK((const unsigned char *)b.data == (const unsigned char *)t->storage.data + begin);
      TPT_EQ_U64(end - begin, n);
    }
    /* zero-copy exactly when PyTorch would call it contiguous in that order */
    if (n > 0) {
      tp_tensor p;
      int want;
      if (order == TP_ORDER_PRESERVE) {
        TPT_STATUS(tp_permute(t, perm, &p, NULL), TP_OK);
        want = tp_is_contiguous(&p);
        if (tp_is_dense(t)) {
          int neg = 0;
          for (d = 0; d < t->ndim; d++) neg |= t->sizes[d] > 1 && t->strides[d] < 0;
          TPT_EQ_INT(want, !neg);
        }
      } else {
        want = tp_is_contiguous(t);
      }
      /* a big-endian host swaps every multi-byte element, so copies those */
      TPT_EQ_INT(b.owned == NULL, want && (tp_dtype_size(t->dtype) == 1 || !tpt_big_endian()));
    }
    tp_buffer_release(&b);
    TPT_CHECK(b.data == NULL && b.owned == NULL);
    /* tp_compact_into, exact cap, with a guard byte after */
    got[n] = 0xA5;
    TPT_STATUS(tp_compact_into(t, (tp_order)order, got, n), TP_OK);
    TPT_MEMEQ(got, ref, n);
    TPT_EQ_INT(got[n], 0xA5);
    if (n > 0) TPT_STATUS(tp_compact_into(t, (tp_order)order, got, n - 1), TP_ERR_BOUNDS);
    /* tp_compact_write through a tiny scratch */
    c.p = got;
    c.n = 0;
    c.cap = sizeof got;
    c.calls = 0;
    c.biggest = 0;
    sink.write = collect_write;
    sink.ctx = &c;
    TPT_STATUS(tp_compact_write(t, (tp_order)order, &sink), TP_OK);
    TPT_EQ_U64(c.n, n);
    TPT_MEMEQ(got, ref, n);
    if (n > 0 && b.owned) TPT_CHECK(c.biggest <= 40); /* copies go through the bounded scratch */
  }
}

static void test_random_views(void) {
  int it, zc[2] = {0, 0};
  for (it = 0; it < 20000; it++) {
    tp_tensor t;
    rand_view(&t, k_types[it % 4], 5, 6);
    if (it % 7 == 0) fill_random(g_mem, t.storage.nbytes);
    check_view_all_ways(&t, zc);
  }
  TPT_CHECK(zc[0] > 100);
  TPT_CHECK(zc[1] > zc[0]);
}

/* tp_convert_write and tp_pack_int4_write through the same 40-byte scratch: equal to the
   conversion / packing of the reference row-major bytes. */
static void test_streamed_convert_and_int4(void) {
  static unsigned char ref[1 << 18];
  int it, perm[TP_MAX_DIMS], d;
  for (d = 0; d < TP_MAX_DIMS; d++) perm[d] = d;
  fill_random(g_mem, sizeof g_mem);
  for (it = 0; it < 2000; it++) {
    tp_tensor t;
    tp_membuf m = {0};
    tp_sink sink = tp_sink_membuf(&m);
    size_t n, k;
    int bad = 0;
    if (it % 2 == 0) {
      rand_view(&t, TP_F32, 4, 7);
      n = ref_compact(&t, perm, ref) / 4;
      TPT_STATUS(tp_convert_write(&t, it % 4 ? TP_F16 : TP_BF16, 0, &sink), TP_OK);
      TPT_EQ_U64(m.size, n * 2);
      for (k = 0; k < n && m.size == n * 2; k++) {
        float f = tpt_f32_le(ref + 4 * k);
        bad += tp__get_le16(m.data + 2 * k) != (it % 4 ? tp_f32_to_f16(f) : tp_f32_to_bf16(f));
      }
    } else {
      size_t i, w = 0;
      int64_t last, col = 0;
      rand_view(&t, TP_I8, 4, 9);
      for (i = 0; i < t.storage.nbytes; i++) g_mem[i] = (unsigned char)(g_mem[i] % 16 - 8);
      n = ref_compact(&t, perm, ref);
      last = t.ndim ? t.sizes[t.ndim - 1] : 1;
      TPT_STATUS(tp_pack_int4_write(&t, &sink), TP_OK);
      TPT_EQ_U64(m.size, tp_pack_int4_size(&t));
      for (k = 0; k < n; k++, col = col + 1 == last ? 0 : col + 1) { /* reference packing */
        unsigned nib = (unsigned)((signed char)ref[k] + 8);
        if (col % 2 == 0) {
          unsigned hi = col + 1 < last ? (unsigned)((signed char)ref[k + 1] + 8) : 8u;
          bad += w >= m.size || m.data[w] != (unsigned char)(nib | hi << 4);
          w++;
        }
      }
      TPT_EQ_U64(w, m.size);
      fill_random(g_mem, t.storage.nbytes);
    }
    TPT_EQ_INT(bad, 0);
    tp_membuf_free(&m);
  }
}

/* Bigger views that reach the blocked transpose, inner-run memcpy and gather paths with more
   than one block, in every element size. */
static void test_large_paths(void) {
  int dt, it;
  int zc[2] = {0, 0};
  fill_random(g_mem, sizeof g_mem);
  for (dt = 0; dt < 4; dt++) {
    tp_storage s;
    tp_tensor t, u;
    s.data = g_mem;
    s.nbytes = sizeof g_mem;
    {
      int64_t sz[2] = {70, 45}; /* 2-D transpose with partial blocks */
      TPT_STATUS(tp_view(s, k_types[dt], 2, sz, NULL, 3, &t, NULL), TP_OK);
      TPT_STATUS(tp_transpose(&t, 0, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      TPT_STATUS(tp_flip(&u, 1, &u, NULL), TP_OK); /* transpose with a negative stride */
      check_view_all_ways(&u, zc);
    }
    {
      int64_t sz[4] = {3, 5, 11, 7}; /* NCHW -> NHWC, and a channels_last slice */
      int p[4] = {0, 2, 3, 1};
      int64_t st[4] = {5 * 11 * 7, 1, 7 * 5, 5};
      TPT_STATUS(tp_view(s, k_types[dt], 4, sz, NULL, 0, &t, NULL), TP_OK);
      TPT_STATUS(tp_permute(&t, p, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      TPT_STATUS(tp_view(s, k_types[dt], 4, sz, st, 0, &t, NULL), TP_OK);
      TPT_STATUS(tp_slice(&t, 2, 1, -1, 1, &u, NULL), TP_OK);
      TPT_STATUS(tp_slice(&u, 3, 1, -1, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
    }
    { /* a bigger channels_last slice: the transpose's two column levels, cache blocks */
      int64_t sz[4] = {2, 24, 21, 19}, st[4] = {24 * 21 * 19, 1, 19 * 24, 24};
      TPT_STATUS(tp_view(s, k_types[dt], 4, sz, st, 0, &t, NULL), TP_OK);
      TPT_STATUS(tp_slice(&t, 2, 1, -1, 1, &u, NULL), TP_OK);
      TPT_STATUS(tp_slice(&u, 3, 2, -1, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      TPT_STATUS(tp_flip(&u, 3, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
    }
    {
      int64_t sz[3] = {4, 40, 33}; /* permute (2, 0, 1): plane not adjacent */
      int p[3] = {2, 0, 1};
      TPT_STATUS(tp_view(s, k_types[dt], 3, sz, NULL, 1, &t, NULL), TP_OK);
      TPT_STATUS(tp_permute(&t, p, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      TPT_STATUS(tp_slice(&t, 2, 0, 33, 2, &u, NULL), TP_OK); /* every other column */
      check_view_all_ways(&u, zc);
    }
    { /* a row stride that is a multiple of 4 KiB: the buffered path, both directions */
      int64_t sz[2] = {37, (int64_t)(4096 / tp_dtype_size(k_types[dt]))};
      TPT_STATUS(tp_view(s, k_types[dt], 2, sz, NULL, 5, &t, NULL), TP_OK);
      TPT_STATUS(tp_transpose(&t, 0, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      TPT_STATUS(tp_flip(&u, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
      sz[0] = 8; /* 8 x 4 KiB: fits the buffer, direct path */
      TPT_STATUS(tp_view(s, k_types[dt], 2, sz, NULL, 0, &t, NULL), TP_OK);
      TPT_STATUS(tp_transpose(&t, 0, 1, &u, NULL), TP_OK);
      check_view_all_ways(&u, zc);
    }
    for (it = 0; it < 200; it++) { /* random larger shapes */
      rand_view(&t, k_types[dt], 4, 40);
      check_view_all_ways(&t, zc);
    }
  }
}

/* The kernel flag sets the transpose tests run, levels the CPU lacks left out: the SSE2 tiles,
   AVX2, AVX-512, each with and without streaming stores, and the portable loops; -1 for a set
   that this CPU reduces to an earlier one (not run again). */
#define KFLAG_SETS 7
static int kflags(int i) {
  static const int sets[KFLAG_SETS] = {0,
                                       TP__K_AVX2,
                                       TP__K_NT,
                                       TP__K_AVX2 | TP__K_NT,
                                       TP__K_C | TP__K_NT,
                                       TP__K_AVX2 | TP__K_AVX512,
                                       TP__K_AVX2 | TP__K_AVX512 | TP__K_NT};
  int f = sets[i], j;
  if (!tp__cpu_avx512()) f &= ~TP__K_AVX512;
  if (!tp__cpu_avx2()) f &= ~TP__K_AVX2;
  for (j = 0; j < i; j++)
    if (kflags(j) == f) return -1; /* this CPU reduces it to a set already run */
  return f;
}
#define KFLAG_TILES (TP__K_AVX2 | TP__K_AVX512 | TP__K_C)

/* The scalar loop's transpose of c2 column groups (scol2 apart in the source) into a, then
   tp__transpose at every flag set into b (and with one group and `region`, the region kernel
   alone, streaming where it may): the same bytes. */
static void check_flag_sets(const unsigned char *src, int64_t rows, int64_t cols, int64_t scol,
                            int64_t c2, int64_t scol2, int64_t drow, size_t es, unsigned char *a,
                            unsigned char *b, int region) {
  size_t need = (size_t)(rows * drow) * es;
  int64_t g;
  int flags;
  memset(a, 0, need);
  for (g = 0; g < c2; g++)
    tp__transpose_scalar(a + (size_t)(g * cols) * es, src + (size_t)(g * scol2) * es, 0, rows, 0,
                         cols, scol, drow, es);
  for (flags = 0; flags < KFLAG_SETS; flags++) {
    int f = kflags(flags);
    if (f < 0) continue;
    memset(b, 0, need);
    tp__transpose(b, src, rows, cols, scol, c2, scol2, drow, es, f);
#if TP__SSE2
    _mm_sfence();
#endif
    TPT_MEMEQ(b, a, need);
    if (c2 > 1 || !region) continue;
    memset(b, 0, need);
    tp__transpose_region(b, src, rows, cols, scol, drow, es, f & (KFLAG_TILES | TP__K_NT));
#if TP__SSE2
    _mm_sfence();
#endif
    TPT_MEMEQ(b, a, need);
  }
}

/* The transpose kernel with and without the AVX2 tiles and streaming stores, every element
   size, odd shapes (tile and cache-block edges, planes below and above the direct-path size,
   row strides that do and do not allow streaming): same bytes as the scalar loop. */
static void test_transpose_kernels(void) {
  size_t cap = (size_t)1 << 20;
  unsigned char *out_a = (unsigned char *)malloc(cap), *out_b = (unsigned char *)malloc(cap);
  size_t es_list[5] = {1, 2, 4, 8, 3};
  int k, it;
  if (!out_a || !out_b) {
    tpt_fail_at(__FILE__, __LINE__, "out of memory");
    free(out_a);
    free(out_b);
    return;
  }
  fill_random(g_mem, sizeof g_mem);
  for (k = 0; k < 5; k++)
    for (it = 0; it < 120; it++) {
      size_t es = es_list[k];
      int big = it % 2, aligned = (it / 2) % 2;
      int64_t lim = big ? 330 : 70;
      int64_t rows = tpt_range(1, lim), cols = tpt_range(1, lim);
      int64_t scol = rows + tpt_range(0, 9), cols2 = it % 3 == 0 ? tpt_range(1, 3) : 1;
      int64_t scol2 = cols * scol + tpt_range(0, 7), drow = cols * cols2 + tpt_range(0, 5);
      size_t need;
      if (aligned) drow = (drow + 15) / 16 * 16; /* 16-byte row stride: streaming allowed */
      need = (size_t)(rows * drow) * es;
      if (need > cap || (size_t)(rows + cols * scol + (cols2 - 1) * scol2) * es > sizeof g_mem)
        continue;
      check_flag_sets(g_mem, rows, cols, scol, cols2, scol2, drow, es, out_a, out_b, 1);
    }
  free(out_a);
  free(out_b);
}

/* Planes spanning several super-blocks (TP__TSUPER source rows x output rows) in both
   directions, with partial super-blocks, blocks and tiles at the edges, a second column level
   (cols2 > 1), output rows 4 KiB apart (the second buffer for 1- and 2-byte elements), every
   element size with a tile, with and without AVX2 / streaming stores: the same bytes as the
   scalar loop. */
static void test_transpose_superblocks(void) {
  static const int64_t shapes[4][3] = {
      {1100, 530, 1}, {530, 1100, 1}, {700, 300, 3}, {600, 333, 1}};
  size_t es_list[4] = {1, 2, 4, 8};
  int k, sh;
  for (k = 0; k < 4; k++)
    for (sh = 0; sh < 4; sh++) {
      size_t es = es_list[k];
      int64_t rows = shapes[sh][0], cols = shapes[sh][1], cols2 = shapes[sh][2];
      int64_t scol = rows + 3, scol2 = cols * scol + 5, drow = (cols * cols2 + 15) / 16 * 16;
      if (sh == 3) drow = 4096 / (int64_t)es; /* 4 KiB between output rows: the second buffer */
      size_t need = (size_t)(rows * drow) * es;
      size_t sbytes = (size_t)(rows + cols * scol + (cols2 - 1) * scol2) * es;
      unsigned char *src = (unsigned char *)malloc(sbytes);
      unsigned char *a = (unsigned char *)malloc(need), *b = (unsigned char *)malloc(need);
      if (!src || !a || !b) {
        tpt_fail_at(__FILE__, __LINE__, "out of memory");
        free(src); free(a); free(b);
        return;
      }
      fill_random(src, sbytes);
      check_flag_sets(src, rows, cols, scol, cols2, scol2, drow, es, a, b, 0);
      free(src); free(a); free(b);
    }
}

/* An 8 MiB plane with a 4 KiB-multiple stride: the cache-blocked path with streaming stores
   (aligned and unaligned output). */
static void test_big_transpose(void) {
  size_t n = (size_t)2048 * 1024 * 4;
  unsigned char *src = (unsigned char *)malloc(n), *a = (unsigned char *)malloc(n);
  unsigned char *b = (unsigned char *)malloc(n + 1);
  tp_storage s;
  tp_tensor t, v;
  int64_t sz[2] = {2048, 1024};
  if (!src || !a || !b) {
    tpt_fail_at(__FILE__, __LINE__, "out of memory");
    free(src); free(a); free(b);
    return;
  }
  fill_random(src, n);
  s.data = src;
  s.nbytes = n;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_transpose(&t, 0, 1, &v, NULL), TP_OK);
  tp__transpose_scalar(a, src, 0, 1024, 0, 2048, 1024, 2048, 4);
  tpt_to_le(a, a, n / 4, 4);
  b[n] = 0x77;
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, b + 0, n), TP_OK);
  TPT_MEMEQ(b, a, n);
  TPT_EQ_INT(b[n], 0x77);
  /* the same at an odd destination address (unaligned head of every streamed row) */
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, b + 1, n), TP_OK);
  TPT_MEMEQ(b + 1, a, n);
  { /* tp_compact's own copy of a streamed size starts on a 64-byte line inside its allocation */
    tp_buffer cb;
    TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &cb), TP_OK);
    TPT_EQ_U64(cb.nbytes, n);
    TPT_CHECK(cb.owned != NULL && ((uintptr_t)cb.data & 63u) == 0);
    TPT_CHECK((const unsigned char *)cb.data >= (unsigned char *)cb.owned &&
              (const unsigned char *)cb.data < (unsigned char *)cb.owned + 64);
    if (cb.data) TPT_MEMEQ(cb.data, a, n);
    tp_buffer_release(&cb);
    TPT_CHECK(cb.data == NULL && cb.owned == NULL);
  }
  /* a compact run bigger than the (test's) LLC: the streaming run copy, at an odd source offset
     and an aligned / odd destination, the byte after it untouched */
  sz[0] = (int64_t)n - 5;
  TPT_STATUS(tp_view(s, TP_U8, 1, sz, NULL, 3, &t, NULL), TP_OK);
  b[n - 5] = 0x55;
  TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, b, n - 5), TP_OK);
  TPT_MEMEQ(b, src + 3, n - 5);
  TPT_EQ_INT(b[n - 5], 0x55);
  TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, b + 1, n - 5), TP_OK);
  TPT_MEMEQ(b + 1, src + 3, n - 5);
  free(src);
  free(a);
  free(b);
}

static void test_zero_copy_exact(void) {
  float st[200];
  tp_storage s;
  tp_tensor t, v;
  tp_buffer b;
  int64_t sz[2] = {10, 20};
  int i;
  for (i = 0; i < 200; i++) st[i] = (float)i;
  s.data = st;
  s.nbytes = sizeof st;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  int le = !tpt_big_endian(); /* a big-endian host copies (swaps) every f32 view */
  TPT_STATUS(tp_narrow(&t, 0, 3, 4, &v, NULL), TP_OK); /* rows 3..6: contiguous at an offset */
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.data == (const void *)(st + 60) || !le);
  TPT_EQ_U64(b.nbytes, 4 * 20 * sizeof(float));
  TPT_CHECK((b.owned == NULL) == le);
  TPT_MEMEQ_LE(b.data, st + 60, b.nbytes, 4);
  tp_buffer_release(&b);
  TPT_STATUS(tp_compact(&v, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_CHECK((b.data == (const void *)(st + 60) && b.owned == NULL) || !le);
  tp_buffer_release(&b);
  /* transposed: PRESERVE keeps the storage order, zero-copy; ROW_MAJOR copies */
  TPT_STATUS(tp_transpose(&t, 0, 1, &v, NULL), TP_OK);
  TPT_STATUS(tp_compact(&v, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_CHECK((b.data == (const void *)st && b.owned == NULL) || !le);
  TPT_CHECK(b.nbytes == sizeof st);
  TPT_MEMEQ_LE(b.data, st, b.nbytes, 4);
  tp_buffer_release(&b);
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.owned != NULL);
  TPT_EQ_INT(tpt_f32_le((const float *)b.data + 1), 20);
  tp_buffer_release(&b);
  /* a flipped view is dense but never zero-copy: elements come out in logical order */
  TPT_STATUS(tp_flip(&t, 1, &v, NULL), TP_OK);
  TPT_STATUS(tp_compact(&v, TP_ORDER_PRESERVE, &b), TP_OK);
  TPT_CHECK(b.owned != NULL);
  TPT_EQ_INT(tpt_f32_le(b.data), 19);
  tp_buffer_release(&b);
  /* empty view: non-NULL data, no bytes */
  TPT_STATUS(tp_narrow(&t, 0, 10, 0, &v, NULL), TP_OK);
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_OK);
  TPT_CHECK(b.data != NULL && b.nbytes == 0 && b.owned == NULL);
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, NULL, 0), TP_OK);
  /* a contiguous view streams straight from the storage in one piece */
  {
    collect c;
    tp_sink sink;
    unsigned char out[800];
    c.p = out; c.n = 0; c.cap = sizeof out; c.calls = 0; c.biggest = 0;
    sink.write = collect_write;
    sink.ctx = &c;
    TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, &sink), TP_OK);
    TPT_EQ_INT(c.calls == 1, le); /* big-endian: swapped through the scratch */
    TPT_MEMEQ_LE(out, st, sizeof st, 4);
  }
}

static tp_status fail_after(void *ctx, const void *data, size_t n) {
  int *left = (int *)ctx;
  (void)data;
  (void)n;
  return (*left)-- > 0 ? TP_OK : TP_ERR_IO;
}

static void test_errors(void) {
  float st[64];
  tp_storage s;
  tp_tensor t, v;
  tp_buffer b;
  tp_sink sink;
  int left = 2;
  int64_t sz[2] = {8, 8};
  memset(st, 0, sizeof st);
  s.data = st;
  s.nbytes = sizeof st;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_compact(&t, (tp_order)2, &b), TP_ERR_INVALID);
  TPT_STATUS(tp_compact(&t, TP_ORDER_ROW_MAJOR, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, NULL, 256), TP_ERR_INVALID);
  TPT_STATUS(tp_compact_write(&t, TP_ORDER_ROW_MAJOR, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_compact(NULL, TP_ORDER_ROW_MAJOR, &b), TP_ERR_INVALID);
  v = t;
  v.offset = 1; /* hand-edited past the end */
  TPT_STATUS(tp_compact(&v, TP_ORDER_ROW_MAJOR, &b), TP_ERR_BOUNDS);
  TPT_STATUS(tp_compact_into(&v, TP_ORDER_ROW_MAJOR, st, sizeof st), TP_ERR_BOUNDS);
  /* a failing sink stops the stream with its status */
  sink.write = fail_after;
  sink.ctx = &left;
  TPT_STATUS(tp_transpose(&t, 0, 1, &v, NULL), TP_OK);
  TPT_STATUS(tp_compact_write(&v, TP_ORDER_ROW_MAJOR, &sink), TP_ERR_IO);
  TPT_EQ_INT(left, -1);
}

/* A membuf sink (also behind a tally) takes the bytes in place: the same bytes as the
   reference, appended after what it holds, no scratch allocated (no allocation at all once the
   buffer has room); a compact view still streams from its storage; a sink without a buffer
   goes through its write callback. */
static void test_sink_in_place(void) {
  static float w[96 * 80];
  static unsigned char want[96 * 80 * 4];
  tp_storage s;
  tp_tensor t, v;
  tp_membuf m;
  tp_sink ms, ts;
  tp__tally tally;
  int64_t sz[2] = {96, 80};
  int perm[2] = {1, 0}, rowmajor[2] = {0, 1};
  size_t n = sizeof want;
  long calls;
  int i;
  for (i = 0; i < 96 * 80; i++) w[i] = (float)i * 0.5f;
  s.data = w;
  s.nbytes = sizeof w;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_permute(&t, perm, &v, NULL), TP_OK);
  TPT_EQ_U64(ref_compact(&v, rowmajor, want), n);
  memset(&m, 0, sizeof m);
  ms = tp_sink_membuf(&m);
  TPT_STATUS(tp_sink_write(&ms, "abc", 3), TP_OK);
  TPT_STATUS(tp_compact_write(&v, TP_ORDER_ROW_MAJOR, &ms), TP_OK);
  TPT_EQ_U64(m.size, 3 + n);
  TPT_CHECK(memcmp(m.data, "abc", 3) == 0);
  TPT_MEMEQ(m.data + 3, want, n);
  /* room already there: not one allocation (the scratch path would take one) */
  m.size = 3;
  calls = g_calls;
  ts = tp__sink_tally(&tally, &ms);
  TPT_STATUS(tp_compact_write(&v, TP_ORDER_ROW_MAJOR, &ts), TP_OK);
  TPT_EQ_INT((int)(g_calls - calls), 0);
  TPT_EQ_U64(tally.n, n);
  TPT_EQ_U64(m.size, 3 + n);
  TPT_MEMEQ(m.data + 3, want, n);
  /* a failed reserve is the membuf's own status, nothing appended */
  m.size = 3;
  g_fail_at = 0;
  {
    tp_membuf small;
    tp_sink ss;
    memset(&small, 0, sizeof small);
    ss = tp_sink_membuf(&small);
    TPT_STATUS(tp_compact_write(&v, TP_ORDER_ROW_MAJOR, &ss), TP_ERR_NOMEM);
    TPT_EQ_U64(small.size, 0);
    tp_membuf_free(&small);
  }
  g_fail_at = -1;
  /* a counter sink offers no buffer: through its callback */
  {
    uint64_t count = 0;
    tp_sink cs = tp_sink_counter(&count);
    TPT_STATUS(tp_compact_write(&v, TP_ORDER_ROW_MAJOR, &cs), TP_OK);
    TPT_EQ_U64(count, n);
  }
  tp_membuf_free(&m);
}

/* Every route tp__transpose picks for a plane (tests/ sets TP_LLC_BYTES to 128 KiB): small
   planes (one bounce block), planes without 4 KiB-multiple strides (the region kernel), aliasing
   planes of at most a quarter of the LLC (tp__transpose_lines) and bigger ones (bounce blocks,
   with the second buffer and streamed pieces when TP__K_NT is asked), with the source or the
   output stride aliasing, negative source strides, one and two column levels, odd shapes,
   every element size with and without a tile, every flag: the same bytes as the scalar loop. */
static void test_transpose_routes(void) {
  /* rows, cols, which stride aliases (1 source, 2 output, 3 both) */
  static const int64_t shapes[][3] = {{5, 7, 1},    {40, 9, 2},  {64, 64, 0}, {33, 19, 1},
                                      {9, 200, 1},  {70, 45, 2}, {30, 300, 3}, {130, 77, 0},
                                      {200, 150, 1}, {150, 200, 2}, {61, 129, 3}, {17, 1000, 2}};
  size_t es_list[5] = {1, 2, 4, 8, 3};
  int k, sh, flags, neg, c2;
  for (k = 0; k < 5; k++)
    for (sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); sh++)
      for (neg = 0; neg < 2; neg++)
        for (c2 = 1; c2 <= 2; c2++) {
          size_t es = es_list[k];
          int64_t rows = shapes[sh][0], cols = shapes[sh][1], al = shapes[sh][2], g;
          int64_t e = (int64_t)es, page = 4096 % e == 0 ? 4096 / e : 4096; /* elements */
          int64_t scol = al & 1 ? (rows + page - 1) / page * page : rows + 3;
          int64_t scol2 = cols * scol + 5, drow = cols * c2 + 3;
          int64_t span, base;
          size_t need, sbytes;
          unsigned char *src, *a, *b;
          if (al & 2) drow = (cols * c2 + page - 1) / page * page;
          span = rows + (cols - 1) * scol + (c2 - 1) * scol2;
          need = (size_t)(rows * drow) * es;
          sbytes = (size_t)span * es;
          src = (unsigned char *)malloc(sbytes);
          a = (unsigned char *)malloc(need);
          b = (unsigned char *)malloc(need);
          if (!src || !a || !b) {
            tpt_fail_at(__FILE__, __LINE__, "out of memory");
            free(src); free(a); free(b);
            return;
          }
          fill_random(src, sbytes);
          /* a negative source stride: column j at base - j * scol */
          base = neg ? (cols - 1) * scol : 0;
          memset(a, 0, need);
          for (g = 0; g < c2; g++)
            tp__transpose_scalar(a + (size_t)(g * cols) * es, src + (size_t)(base + g * scol2) * es,
                                 0, rows, 0, cols, neg ? -scol : scol, drow, es);
          for (flags = 0; flags < KFLAG_SETS; flags++) {
            int f = kflags(flags);
            if (f < 0) continue;
            memset(b, 0, need);
            tp__transpose(b, src + (size_t)base * es, rows, cols, neg ? -scol : scol, c2, scol2,
                          drow, es, f);
#if TP__SSE2
            _mm_sfence();
#endif
            TPT_MEMEQ(b, a, need);
            if (c2 > 1 || es > 8) continue;
            memset(b, 0, need); /* the line-group kernel on its own, whatever the route */
            tp__transpose_lines(b, src + (size_t)base * es, rows, cols, neg ? -scol : scol, drow,
                                es, f & KFLAG_TILES, (f & TP__K_NT) != 0);
            TPT_MEMEQ(b, a, need);
          }
          free(src); free(a); free(b);
        }
}

/* n bytes 64-byte aligned plus off (the AVX-512 tiles' paths depend on the rows' lines); *raw
   is what to free. */
static unsigned char *alloc_at(size_t n, size_t off, unsigned char **raw) {
  *raw = (unsigned char *)malloc(n + 128);
  if (!*raw) return NULL;
  return *raw + ((64u - ((uintptr_t)*raw & 63u)) & 63u) + off;
}

/* The AVX-512 tiles (16x16 of 4-byte, 8x8 of 8-byte elements: 64-byte loads and stores) run
   where the source rows are on 64-byte lines and stream straight from the tiles where the
   output rows are too: source and output rows on lines, 16 bytes off, or a stride one element
   off, through every route (region kernel, line groups, bounce blocks, one small block), sides
   shorter and longer than a tile (edge tiles), one and two column levels, at every flag set:
   the same bytes as the scalar loop. */
static void test_transpose_lines64(void) {
  /* rows, cols, which stride aliases 4 KiB (1 source, 2 output) */
  static const int64_t shapes[][3] = {{16, 16, 0},  {13, 40, 0},  {40, 13, 0},   {100, 77, 0},
                                      {64, 64, 0},  {48, 300, 0}, {37, 200, 1},  {200, 40, 2},
                                      {130, 300, 3}, {300, 130, 1}, {70, 50, 0}};
  size_t es_list[2] = {4, 8};
  int k, sh, sv, dv, c2;
  for (k = 0; k < 2; k++)
    for (sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); sh++)
      for (sv = 0; sv < 3; sv++)
        for (dv = 0; dv < 3; dv++)
          for (c2 = 1; c2 <= 2; c2++) {
            size_t es = es_list[k];
            int64_t rows = shapes[sh][0], cols = shapes[sh][1], al = shapes[sh][2];
            int64_t e = (int64_t)es, line = 64 / e, page = 4096 / e;
            /* variant 0: rows on lines; 1: the base 16 bytes off; 2: the stride one element off */
            int64_t scol = al & 1 ? (rows + page - 1) / page * page : (rows + line) / line * line;
            int64_t drow = al & 2 ? (cols * c2 + page - 1) / page * page
                                  : (cols * c2 + line - 1) / line * line;
            int64_t scol2 = cols * scol + (sv == 2 ? 1 : line), span;
            size_t need, sbytes;
            unsigned char *src, *a, *b, *rs, *ra, *rb;
            if (sv == 2) scol += 1;
            if (dv == 2) drow += 1;
            span = rows + (cols - 1) * scol + (c2 - 1) * scol2;
            need = (size_t)(rows * drow) * es;
            sbytes = (size_t)span * es;
            src = alloc_at(sbytes, sv == 1 ? 16 : 0, &rs);
            a = alloc_at(need, 0, &ra);
            b = alloc_at(need, dv == 1 ? 16 : 0, &rb);
            if (!src || !a || !b) {
              tpt_fail_at(__FILE__, __LINE__, "out of memory");
              free(rs); free(ra); free(rb);
              return;
            }
            fill_random(src, sbytes);
            check_flag_sets(src, rows, cols, scol, c2, scol2, drow, es, a, b, 1);
            free(rs); free(ra); free(rb);
          }
}

/* The AVX-512BW tiles of 1- and 2-byte elements (when the CPU has AVX-512 F and BW): each tile
   form on its own (odd source strides, streaming into 64-byte aligned rows), then every route
   that takes them - the region kernel's super-tiles, tp__transpose_lines' buffer, the bounce
   blocks with tiles streaming whole lines (64-byte aligned output and row stride), with the
   second buffer (4 KiB output strides), an output 16 bytes off its lines (the columns before
   the first line boundary apart, or streamed pieces when the row stride is not whole lines;
   that also with AVX2 and SSE2 tiles) - on shapes with partial tiles and blocks at every edge,
   one and two column levels, negative source strides: the same bytes as the scalar loop. */
static void test_avx512_tiles(void) {
#if TP__AVX512
#define TPT_AVX512_BUF ((size_t)4 << 20)
  /* rows, cols, source stride (elements; 0: rows + 3, -1: 4 KiB), output stride (0: cols * c2
     + 5, -1: a multiple of 64 bytes, -2: 4 KiB) */
  static const int64_t shapes[][4] = {{150, 133, 0, 0},   {150, 133, 0, -1},  {200, 150, -1, 0},
                                      {150, 200, -1, -1}, {300, 333, -1, -1}, {300, 333, -1, 0},
                                      {70, 300, -1, -2},  {333, 129, 0, -2},  {64, 64, -1, -1},
                                      {129, 95, -1, -1},  {300, 40, -1, -1},  {200, 70, -1, -1}};
  static const tp__tile_fn tiles[6] = {tp__tile1_64_rw, tp__tile1_64_ln, tp__tile1_64_ln_nt,
                                       tp__tile2_32_rw, tp__tile2_32_ln, tp__tile2_32_ln_nt};
  unsigned char *src, *a, *out, *b;
  size_t k;
  int sh, neg, c2, nt, off, lv;
  if (!tp__cpu_avx2()) return;
  src = (unsigned char *)malloc(TPT_AVX512_BUF);
  a = (unsigned char *)malloc(TPT_AVX512_BUF);
  out = (unsigned char *)malloc((TPT_AVX512_BUF) + 64);
  if (!src || !a || !out) {
    tpt_fail_at(__FILE__, __LINE__, "out of memory");
    free(src); free(a); free(out);
    return;
  }
  b = out + ((64u - ((uintptr_t)out & 63u)) & 63u); /* on a line */
  fill_random(src, TPT_AVX512_BUF);
  for (k = 0; k < 6 && tp__cpu_avx512(); k++) { /* one tile: T x T, rows T * es + 3 bytes apart */
    int64_t e = k < 3 ? 1 : 2, T = 64 / e, scol = T + 3, drow = T + 64 / e;
    memset(a, 0, (size_t)(T * drow * e));
    memset(b, 0, (size_t)(T * drow * e));
    tp__transpose_scalar(a, src + 5, 0, T, 0, T, scol, drow, (size_t)e);
    tiles[k](b, drow * e, src + 5, scol * e);
    _mm_sfence();
    TPT_MEMEQ(b, a, (size_t)(T * drow * e));
  }
  /* the routes with AVX-512, then (the output off its lines) with AVX2 and SSE2: level lv / 2,
     element size lv % 2 + 1 */
  for (lv = tp__cpu_avx512() ? 0 : 2; lv < 6; lv++)
    for (sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); sh++)
      for (neg = 0; neg < 2; neg++)
        for (c2 = 1; c2 <= 2; c2++)
          for (nt = 0; nt < 2; nt++)
            for (off = 0; off <= 16; off += 16) {
              int f = lv < 2 ? TP__K_AVX2 | TP__K_AVX512 : lv < 4 ? TP__K_AVX2 : 0;
              size_t es = (size_t)(lv % 2 + 1);
              int64_t e = (int64_t)es, rows = shapes[sh][0], cols = shapes[sh][1], g;
              int64_t scol = shapes[sh][2] == -1 ? 4096 / e : rows + 3, scol2 = cols * scol + 5;
              int64_t drow = cols * c2 + 5, base, span;
              size_t need;
              if (shapes[sh][3] == -1) drow = (cols * c2 * e + 63) / 64 * 64 / e;
              if (shapes[sh][3] == -2) drow = (cols * c2 * e + 4095) / 4096 * 4096 / e;
              span = rows + (cols - 1) * scol + (c2 - 1) * scol2;
              need = (size_t)(rows * drow * e);
              if (lv > 1 && (!nt || !off)) continue;
              if ((size_t)(span * e) > (TPT_AVX512_BUF) || need + 16 > (TPT_AVX512_BUF)) {
                tpt_fail_at(__FILE__, __LINE__, "shape too big for the test's buffers");
                continue;
              }
              base = neg ? (cols - 1) * scol : 0;
              memset(a, 0, need);
              for (g = 0; g < c2; g++)
                tp__transpose_scalar(a + g * cols * e, src + (base + g * scol2) * e, 0, rows, 0,
                                     cols, neg ? -scol : scol, drow, es);
              memset(b + off, 0, need);
              tp__transpose(b + off, src + base * e, rows, cols, neg ? -scol : scol, c2, scol2,
                            drow, es, f | (nt ? TP__K_NT : 0));
              _mm_sfence();
              TPT_MEMEQ(b + off, a, need);
              if (c2 > 1 || nt || off || lv > 1) continue;
              memset(b, 0, need); /* the line-group kernel and the region kernel on their own */
              tp__transpose_lines(b, src + base * e, rows, cols, neg ? -scol : scol, drow, es,
                                  TP__K_AVX2 | TP__K_AVX512, 0);
              TPT_MEMEQ(b, a, need);
              memset(b, 0, need);
              tp__transpose_region(b, src + base * e, rows, cols, neg ? -scol : scol, drow, es,
                                   TP__K_AVX2 | TP__K_AVX512 | TP__K_PF);
              TPT_MEMEQ(b, a, need);
            }
  free(src);
  free(a);
  free(out);
#undef TPT_AVX512_BUF
#endif
}

/* Slices whose rows are long runs (>= 1 KiB: the row copies that prefetch the next row), every
   element size, odd run lengths and offsets, one and two row levels, through tp_compact_into
   (exact cap, guard byte) against the reference. */
static void test_long_rows(void) {
  static unsigned char ref[1 << 18], got[(1 << 18) + 1];
  int dt, it, perm[TP_MAX_DIMS] = {0, 1, 2, 3, 4, 5, 6, 7};
  fill_random(g_mem, sizeof g_mem);
  for (dt = 0; dt < 4; dt++)
    for (it = 0; it < 12; it++) {
      size_t es = tp_dtype_size(k_types[dt]);
      int64_t run = (int64_t)((1024 + 37 * it) / es) + it % 3, rows = 3 + it * 5;
      int64_t sz[3] = {2, rows, run}, st[3], off = it % 5;
      tp_storage s;
      tp_tensor t;
      size_t n;
      st[2] = 1;
      st[1] = run + 1 + it * 3;
      st[0] = st[1] * rows + 7;
      if ((size_t)(off + st[0] * 2) * es > sizeof g_mem) continue;
      s.data = g_mem;
      s.nbytes = sizeof g_mem;
      TPT_STATUS(tp_view(s, k_types[dt], 3, sz, st, off, &t, NULL), TP_OK);
      n = ref_compact(&t, perm, ref);
      got[n] = 0x5A;
      TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, got, n), TP_OK);
      TPT_MEMEQ(got, ref, n);
      TPT_EQ_INT(got[n], 0x5A);
    }
}

/* Row copies of 1-4 KiB in outputs of at least TP__PF_AHEAD_MIN (1 MiB): the rows a few KiB
   ahead are prefetched too, walked by a second odometer over the outer dims (two of them here,
   so it wraps an inner one; and a count of rows not a multiple of the distance). */
static void test_rows_ahead(void) {
  static const struct {
    int dt;
    int64_t sz[3], st[3], off;
  } c[] = {{0, {3, 401, 1100}, {401 * 1500 + 13, 1500, 1}, 7},    /* u8, 4 rows ahead */
           {2, {2, 300, 512}, {300 * 1024 + 100, 1024, 1}, 100}, /* f32 2 KiB rows, 2 ahead */
           {1, {1, 700, 1000}, {0, 1024, 1}, 3}};                  /* 2-byte, ~2 KiB rows */
  size_t cap = (size_t)8 << 20, i;
  unsigned char *mem = (unsigned char *)malloc(cap), *ref = (unsigned char *)malloc(cap),
                *got = (unsigned char *)malloc(cap + 1);
  TPT_CHECK(mem && ref && got);
  if (!mem || !ref || !got) goto done;
  fill_random(mem, cap);
  for (i = 0; i < sizeof c / sizeof c[0]; i++) {
    int perm[TP_MAX_DIMS] = {0, 1, 2, 3, 4, 5, 6, 7};
    tp_storage s;
    tp_tensor t;
    size_t n;
    s.data = mem;
    s.nbytes = cap;
    TPT_STATUS(tp_view(s, k_types[c[i].dt], 3, c[i].sz, c[i].st, c[i].off, &t, NULL), TP_OK);
    n = ref_compact(&t, perm, ref);
    TPT_CHECK(n >= ((size_t)1 << 20));
    got[n] = 0x5A;
    TPT_STATUS(tp_compact_into(&t, TP_ORDER_ROW_MAJOR, got, n), TP_OK);
    TPT_MEMEQ(got, ref, n);
    TPT_EQ_INT(got[n], 0x5A);
  }
done:
  free(mem);
  free(ref);
  free(got);
}

/* The views of the public calls again with each level of what the copy kernels may use
   (tp__cpu_cap: the portable C loops, SSE2, AVX2 and AVX-512 when the CPU has them): the same
   bytes. The large paths, long rows, rows ahead and big transposes run only here, once per
   level this CPU has (the last one is the default). */
static void test_every_cpu_level(void) {
  int level, it, zc[2] = {0, 0}, ran = -1;
  for (level = TP__CPU_C; level <= TP__CPU_AVX512; level++) {
    tp__cpu_cap = level;
    if (tp__cpu_level() == ran) continue; /* this CPU has no more than the level before */
    ran = tp__cpu_level();
    test_large_paths();
    test_long_rows();
    test_rows_ahead();
    test_big_transpose();
    for (it = 0; it < 3000; it++) {
      tp_tensor t;
      rand_view(&t, k_types[it % 4], 5, 9);
      check_view_all_ways(&t, zc);
    }
  }
  tp__cpu_cap = TP__CPU_AVX512;
  TPT_CHECK(zc[0] > 10);
}

int main(void) {
  TPT_RUN(test_random_views);
  TPT_RUN(test_streamed_convert_and_int4);
  TPT_RUN(test_transpose_kernels);
  TPT_RUN(test_transpose_superblocks);
  TPT_RUN(test_transpose_routes);
  TPT_RUN(test_transpose_lines64);
  TPT_RUN(test_avx512_tiles);
  TPT_RUN(test_every_cpu_level); /* test_large_paths, _long_rows, _big_transpose at each level */
  TPT_RUN(test_zero_copy_exact);
  TPT_RUN(test_errors);
  TPT_RUN(test_sink_in_place);
  return tpt_finish("compact");
}
