/* Views: validation, every view op against an element-by-element reference over random shapes,
   and the questions (contiguous, dense, dim order, span) against PyTorch's answers. */
#include "tensorpack.h"
#include "tp_test.h"

static unsigned char g_mem[1 << 16];

/* Storage element index of a logical index. */
static int64_t ref_elem(const tp_tensor *t, const int64_t *idx) {
  int64_t e = t->offset;
  int d;
  for (d = 0; d < t->ndim; d++) e += idx[d] * t->strides[d];
  return e;
}

/* Odometer over a view's logical indices; returns 0 when done. */
static int next_index(const tp_tensor *t, int64_t *idx) {
  int d;
  for (d = t->ndim - 1; d >= 0; d--) {
    if (++idx[d] < t->sizes[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

static int64_t ref_numel(const tp_tensor *t) {
  int64_t n = 1;
  int d;
  for (d = 0; d < t->ndim; d++) n *= t->sizes[d];
  return n;
}

/* A random valid view: sizes 0..6 (many 1s), strides in [-8, 8] incl. 0. */
static void rand_view(tp_tensor *t, tp_dtype dt, int maxdims) {
  int64_t sizes[TP_MAX_DIMS], strides[TP_MAX_DIMS], lo = 0, hi = 0, off;
  int nd = (int)tpt_range(0, maxdims), d;
  size_t es = tp_dtype_size(dt), nbytes;
  for (d = 0; d < nd; d++) {
    int64_t r = tpt_range(0, 19);
    sizes[d] = r == 0 ? 0 : r < 5 ? 1 : tpt_range(2, 6);
    strides[d] = tpt_range(0, 3) == 0 ? tpt_range(-8, 8) : tpt_range(1, 12);
    if (sizes[d] > 0) {
      int64_t ext = (sizes[d] - 1) * strides[d];
      if (ext > 0) hi += ext; else lo += ext;
    }
  }
  off = -lo + tpt_range(0, 3);
  nbytes = (size_t)(off + hi + 1 + tpt_range(0, 3)) * es;
  TPT_CHECK(nbytes <= sizeof g_mem);
  {
    tp_storage s;
    s.data = g_mem;
    s.nbytes = nbytes;
    TPT_STATUS(tp_view(s, dt, nd, sizes, strides, off, t, NULL), TP_OK);
  }
}

static void test_view_basics(void) {
  tp_storage s;
  tp_tensor t;
  int64_t sizes[3] = {2, 3, 4};
  s.data = g_mem;
  s.nbytes = 96;
  TPT_STATUS(tp_view(s, TP_F32, 3, sizes, NULL, 0, &t, NULL), TP_OK);
  TPT_EQ_INT(t.ndim, 3);
  TPT_EQ_INT(t.strides[0], 12);
  TPT_EQ_INT(t.strides[1], 4);
  TPT_EQ_INT(t.strides[2], 1);
  TPT_EQ_INT(t.sizes[5], 0); /* unused dims zeroed */
  TPT_EQ_INT(tp_numel(&t), 24);
  TPT_EQ_U64(tp_nbytes(&t), 96);
  TPT_CHECK(tp_is_contiguous(&t));
  TPT_CHECK(tp_is_dense(&t));
  /* one byte short */
  s.nbytes = 95;
  TPT_STATUS(tp_view(s, TP_F32, 3, sizes, NULL, 0, &t, NULL), TP_ERR_BOUNDS);
  /* 0-d view: one element */
  s.nbytes = 8;
  TPT_STATUS(tp_view(s, TP_F64, 0, NULL, NULL, 0, &t, NULL), TP_OK);
  TPT_EQ_INT(tp_numel(&t), 1);
  TPT_EQ_U64(tp_nbytes(&t), 8);
  TPT_STATUS(tp_view(s, TP_F64, 0, NULL, NULL, 1, &t, NULL), TP_ERR_BOUNDS);
  /* row-major strides of a view with a zero size are PyTorch's (max(size, 1) products) */
  {
    int64_t z[3] = {2, 0, 3};
    TPT_STATUS(tp_view(s, TP_F32, 3, z, NULL, 0, &t, NULL), TP_OK);
    TPT_EQ_INT(t.strides[0], 3);
    TPT_EQ_INT(t.strides[1], 3);
    TPT_EQ_INT(t.strides[2], 1);
    TPT_EQ_INT(tp_numel(&t), 0);
  }
}

static void test_empty_views(void) {
  tp_storage s;
  tp_tensor t;
  int64_t sizes[2] = {0, 1000000}, strides[2] = {1000000, 1};
  size_t b = 7, e = 7;
  s.data = NULL;
  s.nbytes = 0;
  /* an empty view needs no bytes, even a huge one over an empty storage */
  TPT_STATUS(tp_view(s, TP_F32, 2, sizes, strides, 5, &t, NULL), TP_OK);
  TPT_EQ_INT(tp_numel(&t), 0);
  TPT_EQ_U64(tp_nbytes(&t), 0);
  TPT_CHECK(tp_is_contiguous(&t));
  TPT_CHECK(tp_is_dense(&t));
  TPT_STATUS(tp_span(&t, &b, &e), TP_OK);
  TPT_EQ_U64(b, 0);
  TPT_EQ_U64(e, 0);
  /* ... but a negative offset is still refused */
  TPT_STATUS(tp_view(s, TP_F32, 2, sizes, strides, -1, &t, NULL), TP_ERR_BOUNDS);
}

static void test_span(void) {
  tp_storage s;
  tp_tensor t;
  int64_t sizes[2] = {3, 4}, strides[2] = {-5, 1};
  size_t b, e;
  s.data = g_mem;
  s.nbytes = 200;
  TPT_STATUS(tp_view(s, TP_I16, 2, sizes, strides, 12, &t, NULL), TP_OK);
  TPT_STATUS(tp_span(&t, &b, &e), TP_OK);
  TPT_EQ_U64(b, (12 - 10) * 2); /* element 2 */
  TPT_EQ_U64(e, (12 + 3 + 1) * 2); /* one past element 15 */
  TPT_STATUS(tp_span(&t, NULL, &e), TP_ERR_INVALID);
}

/* Known answers, worked out with PyTorch's rules (torch 2.x). */
static void test_questions(void) {
  tp_storage s;
  tp_tensor t;
  uint8_t o[TP_MAX_DIMS];
  s.data = g_mem;
  s.nbytes = sizeof g_mem;
  {
    int64_t sz[4] = {2, 3, 4, 5}, st[4] = {60, 1, 15, 3}; /* channels_last */
    TPT_STATUS(tp_view(s, TP_F32, 4, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_contiguous(&t));
    TPT_CHECK(tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 2); TPT_EQ_INT(o[2], 3); TPT_EQ_INT(o[3], 1);
  }
  {
    int64_t sz[4] = {2, 1, 4, 5}, st[4] = {20, 1, 5, 1}; /* both contiguous and channels_last */
    TPT_STATUS(tp_view(s, TP_F32, 4, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(tp_is_contiguous(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK); /* the sort puts C innermost: (0, 2, 3, 1) */
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 2); TPT_EQ_INT(o[2], 3); TPT_EQ_INT(o[3], 1);
  }
  {
    int64_t sz[4] = {2, 1, 4, 5}, st[4] = {20, 20, 5, 1};
    TPT_STATUS(tp_view(s, TP_F32, 4, sz, st, 0, &t, NULL), TP_OK);
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 1); TPT_EQ_INT(o[2], 2); TPT_EQ_INT(o[3], 3);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {1, 3}; /* transposed */
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_contiguous(&t));
    TPT_CHECK(tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 1); TPT_EQ_INT(o[1], 0);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {0, 1}; /* expanded: stride 0 is ambiguous */
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 1);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {1, 0};
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 0, &t, NULL), TP_OK);
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 1);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {4, -1}; /* flipped: dense by magnitude, not contiguous */
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 3, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_contiguous(&t));
    TPT_CHECK(tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 1);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {-1, 3}; /* transposed and flipped */
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 2, &t, NULL), TP_OK);
    TPT_CHECK(tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 1); TPT_EQ_INT(o[1], 0);
  }
  {
    int64_t sz[4] = {2, 3, 4, 4}, st[4] = {108, 1, 18, 3}; /* channels_last slice [:, :, 1:-1, 1:-1] */
    TPT_STATUS(tp_view(s, TP_F32, 4, sz, st, 21, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_contiguous(&t));
    TPT_CHECK(!tp_is_dense(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 0); TPT_EQ_INT(o[1], 2); TPT_EQ_INT(o[2], 3); TPT_EQ_INT(o[3], 1);
  }
  {
    int64_t sz[3] = {2, 3, 4}, st[3] = {1, 2, 6}; /* fully reversed order */
    TPT_STATUS(tp_view(s, TP_F32, 3, sz, st, 0, &t, NULL), TP_OK);
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    TPT_EQ_INT(o[0], 2); TPT_EQ_INT(o[1], 1); TPT_EQ_INT(o[2], 0);
  }
  {
    int64_t sz[2] = {3, 4}, st[2] = {1, 1}; /* overlapping */
    TPT_STATUS(tp_view(s, TP_F32, 2, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_dense(&t));
    TPT_CHECK(!tp_is_contiguous(&t));
    TPT_STATUS(tp_dim_order(&t, o), TP_OK); /* equal strides: the larger size goes outer */
    TPT_EQ_INT(o[0], 1); TPT_EQ_INT(o[1], 0);
  }
  {
    int64_t sz[3] = {3, 1, 4}, st[3] = {4, 99, 1}; /* size-1 stride ignored */
    TPT_STATUS(tp_view(s, TP_F32, 3, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(tp_is_contiguous(&t));
    TPT_CHECK(tp_is_dense(&t));
  }
  {
    int64_t sz[1] = {5}, st[1] = {2};
    TPT_STATUS(tp_view(s, TP_F32, 1, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(!tp_is_dense(&t));
    sz[0] = 1;
    TPT_STATUS(tp_view(s, TP_F32, 1, sz, st, 0, &t, NULL), TP_OK);
    TPT_CHECK(tp_is_dense(&t));
    TPT_CHECK(tp_is_contiguous(&t));
  }
  TPT_STATUS(tp_view(s, TP_F32, 0, NULL, NULL, 0, &t, NULL), TP_OK);
  TPT_CHECK(tp_is_dense(&t));
  TPT_CHECK(tp_is_contiguous(&t));
  TPT_STATUS(tp_dim_order(&t, NULL), TP_OK);
}

/* Reference dim order: the PyTorch rule written out again, plainly, for random checks. */
static void ref_dim_order(const tp_tensor *t, int *out) {
  int n = t->ndim, perm[TP_MAX_DIMS], i, j, contig, cl = 0;
  int64_t exp = 1;
  contig = 1;
  for (i = 0; i < n; i++)
    if (t->sizes[i] == 0) goto contig_done;
  for (i = n - 1; i >= 0; i--)
    if (t->sizes[i] != 1) {
      if (t->strides[i] != exp) { contig = 0; break; }
      exp *= t->sizes[i];
    }
contig_done:
  if (n == 4) {
    static const int co[4] = {1, 3, 2, 0};
    cl = 1;
    exp = 1;
    for (i = 0; i < 4; i++)
      if (t->sizes[co[i]] != 1) {
        if (t->strides[co[i]] != exp) { cl = 0; break; }
        exp *= t->sizes[co[i]];
      }
  }
  if (n == 1) { out[0] = 0; return; }
  if (contig && !cl) { for (i = 0; i < n; i++) out[i] = i; return; }
  if (cl && !contig) { out[0] = 0; out[1] = 2; out[2] = 3; out[3] = 1; return; }
  for (i = 0; i < n; i++) perm[i] = n - 1 - i;
  for (i = 1; i < n; i++) {
    int d1 = i;
    for (j = i - 1; j >= 0; j--) {
      int64_t a = t->strides[perm[j]], b = t->strides[perm[d1]];
      int c = 0;
      if (a < 0) a = -a;
      if (b < 0) b = -b;
      if (a && b) c = a < b ? -1 : a > b ? 1 : t->sizes[perm[j]] > t->sizes[perm[d1]] ? 1 : 0;
      if (c > 0) { int x = perm[j]; perm[j] = perm[d1]; perm[d1] = x; d1 = j; }
      else if (c < 0) break;
    }
  }
  for (i = 0; i < n; i++) out[i] = perm[n - 1 - i];
}

static void test_dim_order_random(void) {
  int it;
  for (it = 0; it < 3000; it++) {
    tp_tensor t;
    uint8_t o[TP_MAX_DIMS];
    int r[TP_MAX_DIMS], d, seen = 0;
    rand_view(&t, TP_F32, 5);
    TPT_STATUS(tp_dim_order(&t, o), TP_OK);
    ref_dim_order(&t, r);
    for (d = 0; d < t.ndim; d++) {
      TPT_EQ_INT(o[d], r[d]);
      seen |= 1 << o[d];
    }
    TPT_EQ_INT(seen, (1 << t.ndim) - 1);
  }
}

/* Checks out[idx] == in[map(idx)] for every index of out, where map is given per op. */
typedef void (*map_fn)(const int64_t *out_idx, int64_t *in_idx, const int *a, const int64_t *b);

static void check_map(const tp_tensor *in, const tp_tensor *out, map_fn map, const int *a,
                      const int64_t *b) {
  int64_t idx[TP_MAX_DIMS] = {0}, in_idx[TP_MAX_DIMS];
  int64_t n = ref_numel(out), k;
  if (n == 0) return;
  for (k = 0; k < n; k++) {
    map(idx, in_idx, a, b);
    if (ref_elem(out, idx) != ref_elem(in, in_idx)) {
      tpt_fail_at(__FILE__, __LINE__, "element mismatch");
      return;
    }
    next_index(out, idx);
  }
}

/* a[0] = in ndim, a[1] = dim; b[0] = index / start, b[1] = step */
static void map_select(const int64_t *o, int64_t *i, const int *a, const int64_t *b) {
  int d, k = 0;
  for (d = 0; d < a[0]; d++) i[d] = d == a[1] ? b[0] : o[k++];
}
static void map_slice(const int64_t *o, int64_t *i, const int *a, const int64_t *b) {
  int d;
  for (d = 0; d < a[0]; d++) i[d] = d == a[1] ? b[0] + o[d] * b[1] : o[d];
}
/* a[2..] = perm */
static void map_perm(const int64_t *o, int64_t *i, const int *a, const int64_t *b) {
  int d;
  (void)b;
  for (d = 0; d < a[0]; d++) i[a[2 + d]] = o[d];
}
/* b[0] = size of the flipped dim */
static void map_flip(const int64_t *o, int64_t *i, const int *a, const int64_t *b) {
  int d;
  for (d = 0; d < a[0]; d++) i[d] = d == a[1] ? b[0] - 1 - o[d] : o[d];
}
/* a[0] = in ndim, a[1] = out ndim, b = in sizes */
static void map_expand(const int64_t *o, int64_t *i, const int *a, const int64_t *b) {
  int d, lead = a[1] - a[0];
  for (d = 0; d < a[0]; d++) i[d] = b[d] == 1 ? 0 : o[d + lead];
}

static void test_ops_random(void) {
  int it, counted[8] = {0};
  for (it = 0; it < 20000; it++) {
    tp_tensor t, r;
    int op = (int)tpt_range(0, 7), a[2 + TP_MAX_DIMS], dim, d;
    int64_t b[TP_MAX_DIMS];
    tp_status s;
    rand_view(&t, (tp_dtype)(it % 2 ? TP_F32 : TP_I8), 5);
    if (t.ndim == 0 && op != 7) continue;
    dim = t.ndim ? (int)tpt_range(0, t.ndim - 1) : 0;
    a[0] = t.ndim;
    a[1] = dim;
    switch (op) {
      case 0: { /* select, negative indices too */
        int64_t idx = tpt_range(-t.sizes[dim] - 1, t.sizes[dim]);
        s = tp_select(&t, dim, idx, &r, NULL);
        if (idx < -t.sizes[dim] || idx >= t.sizes[dim]) { TPT_STATUS(s, TP_ERR_BOUNDS); break; }
        TPT_STATUS(s, TP_OK);
        TPT_EQ_INT(r.ndim, t.ndim - 1);
        b[0] = idx < 0 ? idx + t.sizes[dim] : idx;
        check_map(&t, &r, map_select, a, b);
        counted[op]++;
        break;
      }
      case 1: { /* narrow */
        int64_t st = tpt_range(0, t.sizes[dim] + 1), len = tpt_range(0, t.sizes[dim] + 1);
        s = tp_narrow(&t, dim, st, len, &r, NULL);
        if (st + len > t.sizes[dim]) { TPT_STATUS(s, TP_ERR_BOUNDS); break; }
        TPT_STATUS(s, TP_OK);
        TPT_EQ_INT(r.sizes[dim], len);
        b[0] = st;
        b[1] = 1;
        check_map(&t, &r, map_slice, a, b);
        counted[op]++;
        break;
      }
      case 2: { /* slice with Python clamping */
        int64_t n = t.sizes[dim], st = tpt_range(-n - 3, n + 3), sp = tpt_range(-n - 3, n + 3);
        int64_t step = tpt_range(1, 4), s0, s1, len;
        TPT_STATUS(tp_slice(&t, dim, st, sp, step, &r, NULL), TP_OK);
        s0 = st < 0 ? (st + n < 0 ? 0 : st + n) : (st > n ? n : st);
        s1 = sp < 0 ? (sp + n < 0 ? 0 : sp + n) : (sp > n ? n : sp);
        len = s1 > s0 ? (s1 - s0 + step - 1) / step : 0;
        TPT_EQ_INT(r.sizes[dim], len);
        b[0] = s0;
        b[1] = step;
        check_map(&t, &r, map_slice, a, b);
        counted[op]++;
        break;
      }
      case 3: { /* transpose */
        int d1 = (int)tpt_range(0, t.ndim - 1);
        TPT_STATUS(tp_transpose(&t, dim, d1, &r, NULL), TP_OK);
        for (d = 0; d < t.ndim; d++) a[2 + d] = d;
        a[2 + dim] = d1;
        a[2 + d1] = dim;
        check_map(&t, &r, map_perm, a, b);
        counted[op]++;
        break;
      }
      case 4: { /* permute: random permutation */
        int p[TP_MAX_DIMS];
        for (d = 0; d < t.ndim; d++) p[d] = d;
        for (d = t.ndim - 1; d > 0; d--) {
          int j = (int)tpt_range(0, d), x = p[d];
          p[d] = p[j];
          p[j] = x;
        }
        TPT_STATUS(tp_permute(&t, p, &r, NULL), TP_OK);
        for (d = 0; d < t.ndim; d++) a[2 + d] = p[d];
        check_map(&t, &r, map_perm, a, b);
        counted[op]++;
        break;
      }
      case 5: { /* chunk = torch.chunk */
        int chunks = (int)tpt_range(1, 5), idx = (int)tpt_range(0, 5);
        int64_t n = t.sizes[dim], cs = n ? (n + chunks - 1) / chunks : 0;
        int64_t count = n ? (n + cs - 1) / cs : chunks;
        s = tp_chunk(&t, chunks, dim, idx, &r, NULL);
        if (idx >= count) { TPT_STATUS(s, TP_ERR_INVALID); break; }
        TPT_STATUS(s, TP_OK);
        TPT_EQ_INT(r.sizes[dim], n ? (n - idx * cs < cs ? n - idx * cs : cs) : 0);
        b[0] = idx * cs;
        b[1] = 1;
        check_map(&t, &r, map_slice, a, b);
        counted[op]++;
        break;
      }
      case 6: { /* flip */
        TPT_STATUS(tp_flip(&t, dim, &r, NULL), TP_OK);
        b[0] = t.sizes[dim];
        check_map(&t, &r, map_flip, a, b);
        counted[op]++;
        break;
      }
      default: { /* expand: new leading dims, size-1 dims broadcast, -1 keeps */
        int lead = (int)tpt_range(0, 2), nd = t.ndim + lead;
        int64_t want[TP_MAX_DIMS];
        for (d = 0; d < nd; d++) {
          if (d < lead) want[d] = tpt_range(0, 3);
          else {
            int64_t have = t.sizes[d - lead];
            want[d] = have == 1 ? tpt_range(0, 4) : tpt_range(0, 1) ? -1 : have;
          }
        }
        TPT_STATUS(tp_expand(&t, nd, want, &r, NULL), TP_OK);
        TPT_EQ_INT(r.ndim, nd);
        for (d = 0; d < lead; d++) TPT_EQ_INT(r.strides[d], 0);
        a[1] = nd;
        for (d = 0; d < t.ndim; d++) b[d] = t.sizes[d];
        check_map(&t, &r, map_expand, a, b);
        counted[op]++;
        break;
      }
    }
    /* every result is itself a valid view */
    TPT_STATUS(tp_tensor_check(&r, NULL), TP_OK);
  }
  for (it = 0; it < 8; it++) TPT_CHECK(counted[it] > 300);
}

static void test_op_errors(void) {
  tp_storage s;
  tp_tensor t, r;
  int64_t sz[2] = {4, 6};
  int perm_dup[2] = {0, 0}, perm_bad[2] = {0, 2}, perm_ok[2] = {1, 0};
  int64_t ex_bad[2] = {4, 5}, ex_lead[3] = {-1, 4, 6}, ex_short[1] = {6};
  s.data = g_mem;
  s.nbytes = 96;
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, NULL), TP_OK);
  /* bad dim: INVALID; index/range outside the dim: BOUNDS */
  TPT_STATUS(tp_select(&t, 2, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_select(&t, -3, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_select(&t, 0, 4, &r, NULL), TP_ERR_BOUNDS);
  TPT_STATUS(tp_select(&t, 0, -5, &r, NULL), TP_ERR_BOUNDS);
  TPT_STATUS(tp_select(&t, 0, -4, &r, NULL), TP_OK);
  TPT_EQ_INT(r.offset, 0);
  TPT_STATUS(tp_narrow(&t, 1, 2, 5, &r, NULL), TP_ERR_BOUNDS);
  TPT_STATUS(tp_narrow(&t, 1, 7, 0, &r, NULL), TP_ERR_BOUNDS);
  TPT_STATUS(tp_narrow(&t, 1, 2, -1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_narrow(&t, 1, -2, 2, &r, NULL), TP_OK);
  TPT_EQ_INT(r.offset, 4);
  TPT_STATUS(tp_slice(&t, 1, 0, 6, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_slice(&t, 1, 0, 6, -1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_slice(&t, 1, INT64_MIN, INT64_MAX, INT64_MAX, &r, NULL), TP_OK);
  TPT_EQ_INT(r.sizes[1], 1);
  TPT_STATUS(tp_transpose(&t, 0, 2, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_permute(&t, perm_dup, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_permute(&t, perm_bad, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_permute(&t, NULL, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_permute(&t, perm_ok, NULL, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_chunk(&t, 0, 0, 0, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_chunk(&t, 3, 0, 2, &r, NULL), TP_ERR_INVALID); /* 4 = 2 chunks of 2 */
  TPT_STATUS(tp_chunk(&t, 3, 0, 1, &r, NULL), TP_OK);
  TPT_EQ_INT(r.sizes[0], 2);
  TPT_EQ_INT(r.offset, 12);
  TPT_STATUS(tp_chunk(&t, 2, 0, -1, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_flip(&t, 2, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_expand(&t, 2, ex_bad, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_expand(&t, 3, ex_lead, &r, NULL), TP_ERR_INVALID); /* -1 for a new dim */
  TPT_STATUS(tp_expand(&t, 1, ex_short, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_expand(&t, 2, NULL, &r, NULL), TP_ERR_INVALID);
  TPT_STATUS(tp_expand(&t, TP_MAX_DIMS + 1, ex_lead, &r, NULL), TP_ERR_INVALID);
  /* out may alias t */
  r = t;
  TPT_STATUS(tp_transpose(&r, 0, 1, &r, NULL), TP_OK);
  TPT_EQ_INT(r.sizes[0], 6);
  TPT_EQ_INT(r.strides[0], 1);
  TPT_STATUS(tp_select(&r, 1, 3, &r, NULL), TP_OK);
  TPT_EQ_INT(r.ndim, 1);
  TPT_EQ_INT(r.offset, 18);
  /* an invalid input view is refused by every op */
  r = t;
  r.sizes[0] = 5;
  TPT_STATUS(tp_select(&r, 0, 0, &r, NULL), TP_ERR_BOUNDS);
  TPT_STATUS(tp_flip(&r, 0, &t, NULL), TP_ERR_BOUNDS);
}

/* Negative dims count from the end in every op, as in PyTorch: each gives the same view as
   the positive dim. */
static void test_negative_dims(void) {
  tp_storage s;
  tp_tensor t, a, b;
  int64_t sz[3] = {2, 3, 4}, ex[4] = {5, 2, 3, 4};
  int pneg[3] = {-1, 0, -2}, ppos[3] = {2, 0, 1};
  int d;
  s.data = g_mem;
  s.nbytes = 96;
  TPT_STATUS(tp_view(s, TP_F32, 3, sz, NULL, 0, &t, NULL), TP_OK);
  for (d = 0; d < 3; d++) {
    int n = d - 3;
    TPT_STATUS(tp_select(&t, n, 1, &a, NULL), TP_OK);
    TPT_STATUS(tp_select(&t, d, 1, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    TPT_STATUS(tp_narrow(&t, n, 1, 1, &a, NULL), TP_OK);
    TPT_STATUS(tp_narrow(&t, d, 1, 1, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    TPT_STATUS(tp_slice(&t, n, 0, 4, 2, &a, NULL), TP_OK);
    TPT_STATUS(tp_slice(&t, d, 0, 4, 2, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    TPT_STATUS(tp_chunk(&t, 2, n, 0, &a, NULL), TP_OK);
    TPT_STATUS(tp_chunk(&t, 2, d, 0, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    TPT_STATUS(tp_flip(&t, n, &a, NULL), TP_OK);
    TPT_STATUS(tp_flip(&t, d, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    TPT_STATUS(tp_transpose(&t, n, -1, &a, NULL), TP_OK);
    TPT_STATUS(tp_transpose(&t, d, 2, &b, NULL), TP_OK);
    TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
  TPT_STATUS(tp_permute(&t, pneg, &a, NULL), TP_OK);
  TPT_STATUS(tp_permute(&t, ppos, &b, NULL), TP_OK);
  TPT_CHECK(memcmp(&a, &b, sizeof a) == 0);
  TPT_EQ_INT(a.sizes[0], 4);
  TPT_STATUS(tp_expand(&t, 4, ex, &a, NULL), TP_OK);
  TPT_EQ_INT(a.strides[0], 0);
  /* the chunk of the issue: tp_chunk(dim = -1) */
  TPT_STATUS(tp_chunk(&t, 4, -1, 3, &a, NULL), TP_OK);
  TPT_EQ_INT(a.sizes[2], 1);
  TPT_EQ_INT(a.offset, 3);
}

/* Each op with an err: the exact status and the sentence with the numbers; err is reset on
   entry (an old failure never stays), and a success leaves it empty. */
static void test_op_sentences(void) {
  tp_storage s;
  tp_tensor t, r, z;
  tp_error e;
  int64_t sz[2] = {4, 6}, ex_bad[2] = {4, 5}, zs[2] = {0, 3};
  int perm_dup[2] = {1, -1};
  s.data = g_mem;
  s.nbytes = 96;
  memset(&e, 0, sizeof e);
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 1, &t, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "view reaches byte 100 of a 96-byte storage");
  TPT_STATUS(tp_view(s, TP_F32, TP_MAX_DIMS + 1, sz, NULL, 0, &t, &e), TP_ERR_INVALID);
  TPT_CONTAINS(e.msg, "view: ndim 17 is outside 0..TP_MAX_DIMS 16");
  TPT_STATUS(tp_view(s, TP_F32, 2, sz, NULL, 0, &t, &e), TP_OK);
  TPT_EQ_INT(e.status, TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_STATUS(tp_select(&t, 2, 0, &r, &e), TP_ERR_INVALID);
  TPT_EQ_INT(e.status, TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "select: dim 2 is outside -2..1 (a 2-d view)");
  TPT_STATUS(tp_select(&t, -1, 6, &r, &e), TP_ERR_BOUNDS); /* reset: not the old INVALID */
  TPT_EQ_INT(e.status, TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "select: index 6 is outside -6..5 (dim 1 has size 6)");
  TPT_STATUS(tp_select(&t, -1, 5, &r, &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_STATUS(tp_narrow(&t, 0, 2, 3, &r, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "narrow: start 2 + length 3 passes the end of dim 0 (size 4)");
  TPT_STATUS(tp_narrow(&t, 0, -5, 1, &r, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "narrow: start -5 is outside -4..4 (dim 0 has size 4)");
  TPT_STATUS(tp_narrow(&t, 0, 0, -1, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "narrow: length -1 is negative");
  TPT_STATUS(tp_slice(&t, 1, 0, 6, 0, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "slice: step 0 must be >= 1");
  TPT_STATUS(tp_transpose(&t, 0, -3, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "transpose: d1 -3 is outside -2..1 (a 2-d view)");
  TPT_STATUS(tp_permute(&t, perm_dup, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "permute: perm[1] = -1 names dim 1 twice (not a permutation)");
  TPT_STATUS(tp_permute(&t, NULL, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "permute: perm is NULL for a 2-d view");
  TPT_STATUS(tp_chunk(&t, 3, -2, 2, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "chunk: index 2 is outside 0..1 (dim 0 of size 4 in 3 chunks gives 2)");
  TPT_STATUS(tp_chunk(&t, 0, 0, 0, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "chunk: chunks 0 must be >= 1");
  TPT_STATUS(tp_flip(&t, 5, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "flip: dim 5 is outside -2..1 (a 2-d view)");
  TPT_STATUS(tp_expand(&t, 2, ex_bad, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "expand: size 5 for dim 1, which has size 6 (only size-1 dims expand; -1 keeps a size)");
  TPT_STATUS(tp_expand(&t, 1, ex_bad, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "expand: ndim 1 is outside 2..16 (a 2-d view)");
  TPT_STATUS(tp_select(&t, 0, 0, NULL, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "select: out is NULL");
  TPT_STATUS(tp_select(NULL, 0, 0, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "select: the input view is NULL");
  /* an invalid input view: tp_tensor_check's sentence */
  r = t;
  r.sizes[0] = 5;
  TPT_STATUS(tp_flip(&r, 0, &r, &e), TP_ERR_BOUNDS);
  TPT_EQ_STR(e.msg, "view reaches byte 120 of a 96-byte storage");
  /* a 0-d view has no dims */
  TPT_STATUS(tp_view(s, TP_F32, 0, NULL, NULL, 0, &z, NULL), TP_OK);
  TPT_STATUS(tp_flip(&z, -1, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "flip: dim -1 given, but a 0-d view has no dims");
  /* expanding an empty dim to 4 is not allowed (only size-1 dims expand) */
  TPT_STATUS(tp_view(s, TP_F32, 2, zs, NULL, 0, &z, NULL), TP_OK);
  TPT_STATUS(tp_expand(&z, 2, sz, &r, &e), TP_ERR_INVALID);
  TPT_EQ_STR(e.msg, "expand: size 4 for dim 0, which has size 0 (only size-1 dims expand; -1 keeps a size)");
  /* NULL err is allowed everywhere */
  TPT_STATUS(tp_select(&t, 9, 0, &r, NULL), TP_ERR_INVALID);
}

/* Issue 14 item 16: slices and selects whose result is valid never report overflow. */
static void test_edge_results(void) {
  tp_storage s;
  tp_tensor t, r;
  tp_error e;
  int64_t sz4[1] = {4}, st16[1] = {16}, zsz[2] = {0, 5}, zst[2] = {1, 1}, sz2[2] = {3, 4};
  s.data = g_mem;
  s.nbytes = sizeof g_mem;
  memset(&e, 0, sizeof e);
  /* tp_slice(0:4:2^60): one element */
  TPT_STATUS(tp_view(s, TP_F32, 1, sz4, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 0, 0, 4, (int64_t)1 << 60, &r, &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_EQ_INT(r.sizes[0], 1);
  TPT_EQ_INT(r.offset, 0);
  TPT_EQ_INT(r.strides[0], (int64_t)1 << 60); /* fits: stride x step, as PyTorch */
  /* tp_slice(0:1:INT64_MAX) on a stride-16 dim: one element, stride x step leaves int64 */
  TPT_STATUS(tp_view(s, TP_F32, 1, sz4, st16, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 0, 0, 1, INT64_MAX, &r, &e), TP_OK);
  TPT_EQ_INT(r.sizes[0], 1);
  TPT_EQ_INT(r.strides[0], 16); /* the old stride is kept */
  TPT_STATUS(tp_slice(&t, 0, 0, 4, (int64_t)1 << 60, &r, NULL), TP_OK);
  TPT_EQ_INT(r.sizes[0], 1);
  TPT_STATUS(tp_slice(&t, 0, 1, 4, INT64_MAX, &r, NULL), TP_OK);
  TPT_EQ_INT(r.offset, 16);
  /* stride x step leaving int64 with one element along dim (two or more cannot happen on a
     valid view: stride x step x (len - 1) stays within its extent) */
  {
    tp_tensor w;
    memset(&w, 0, sizeof w);
    w.storage = s;
    w.dtype = TP_U8;
    w.ndim = 2;
    w.sizes[0] = 0; /* empty: valid with any stride */
    w.sizes[1] = 3;
    w.strides[0] = 1;
    w.strides[1] = INT64_MAX / 4;
    TPT_STATUS(tp_slice(&w, 1, 0, 3, 2, &r, &e), TP_OK); /* empty result: fine */
    w.sizes[0] = 1;
    w.strides[1] = 1; /* now a real 1x3 view; stride 1 x step INT64_MAX fits, 2 elements */
    TPT_STATUS(tp_slice(&w, 1, 0, 3, INT64_MAX / 2 + 1, &r, &e), TP_OK);
    TPT_EQ_INT(r.sizes[1], 1);
    w.strides[1] = 4;
    TPT_STATUS(tp_slice(&w, 1, 0, 3, INT64_MAX / 2, &r, &e), TP_OK); /* 4 x step > INT64_MAX */
    TPT_EQ_INT(r.strides[1], 4);
  }
  {
    tp_tensor u = t;
    u.sizes[0] = 2;
    u.strides[0] = 1;
    u.storage.nbytes = 16;
    TPT_STATUS(tp_slice(&u, 0, 0, 2, INT64_MAX, &r, &e), TP_OK); /* one element: 0 */
    TPT_EQ_INT(r.sizes[0], 1);
  }
  /* tp_select on an empty view at offset INT64_MAX - 2 */
  TPT_STATUS(tp_view(s, TP_F32, 2, zsz, zst, INT64_MAX - 2, &t, NULL), TP_OK);
  TPT_STATUS(tp_select(&t, 1, 4, &r, &e), TP_OK);
  TPT_EQ_STR(e.msg, "");
  TPT_EQ_INT(r.ndim, 1);
  TPT_EQ_INT(r.sizes[0], 0);
  TPT_EQ_INT(r.offset, INT64_MAX - 2);
  TPT_STATUS(tp_narrow(&t, 1, 3, 2, &r, NULL), TP_OK);
  TPT_STATUS(tp_flip(&t, 1, &r, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 1, 1, 5, 3, &r, NULL), TP_OK);
  TPT_EQ_INT(r.sizes[1], 2);
  TPT_EQ_INT(r.offset, INT64_MAX - 2);
  /* a non-empty result whose offset leaves int64 still says so, with the numbers */
  {
    tp_tensor h;
    memset(&h, 0, sizeof h);
    h.storage = s;
    h.dtype = TP_U8;
    h.ndim = 2;
    h.sizes[0] = 0; /* empty, so any stride and offset is a valid input */
    h.sizes[1] = 3;
    h.strides[1] = INT64_MAX / 2;
    h.offset = 10;
    TPT_STATUS(tp_select(&h, 1, 2, &r, &e), TP_OK); /* the result is empty too */
    h.sizes[0] = 1;
    h.strides[1] = 1;
    h.offset = INT64_MAX - 2; /* not empty now: the input itself overflows */
    TPT_STATUS(tp_select(&h, 1, 2, &r, &e), TP_ERR_OVERFLOW);
    TPT_EQ_STR(e.msg, "view's last element 9223372036854775807 overflows as a byte offset");
  }
  TPT_STATUS(tp_view(s, TP_F32, 2, sz2, NULL, 0, &t, NULL), TP_OK);
  TPT_STATUS(tp_slice(&t, 1, 0, 4, INT64_MAX / 2, &r, &e), TP_OK);
  TPT_EQ_INT(r.sizes[1], 1);
  TPT_EQ_INT(r.strides[1], INT64_MAX / 2); /* stride x step fits: kept as PyTorch has it */
}

int main(void) {
  TPT_RUN(test_view_basics);
  TPT_RUN(test_empty_views);
  TPT_RUN(test_span);
  TPT_RUN(test_questions);
  TPT_RUN(test_dim_order_random);
  TPT_RUN(test_ops_random);
  TPT_RUN(test_op_errors);
  TPT_RUN(test_negative_dims);
  TPT_RUN(test_op_sentences);
  TPT_RUN(test_edge_results);
  return tpt_finish("views");
}
