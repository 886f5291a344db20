/* fuzz_views - libFuzzer target for tensorpack's view checks and compact copies.

   Input, read front to back (missing bytes read as 0):
     u8 dtype selector (one of the 10 dtypes, or an invalid code), u8 ndim (0..17: 17 and 16+
     beyond TP_MAX_DIMS when that is 16 are invalid), u8 flags (bit 0: explicit strides),
     ndim sizes, [ndim strides], offset, u16 storage byte count (capped at 4096), then up to
     4 view ops (u8 op + arguments). The storage bytes are the input read backwards from its
     end (cycled), so they overlap the fields above: any byte may change both.
   Each integer is one byte b: b < 64 -> b; b < 128 -> -(b - 64); b < 192 -> a raw
   little-endian int64 from the next 8 bytes; else an edge value (INT64_MAX, INT64_MIN,
   2^31, 2^32, 2^62, ...).
   The storage is a heap block of exactly the declared size, so ASan sees any read outside it.

   tp_view on that; on success the ops (select, narrow, slice, transpose, permute, chunk, flip,
   expand; dims -18..17, so negative dims from the end and bad dims on both sides; err NULL
   or not) are applied in turn, each against a reference model in 128-bit arithmetic: an
   argument error must give the reference's exact status; a result the reference finds valid
   (inside the storage, no int64 overflow in what the view holds) must be TP_OK with the same
   sizes, offset and strides (strides of dims with 2+ elements); any other result must be
   TP_ERR_BOUNDS or TP_ERR_OVERFLOW; a non-NULL err must match its status, with a sentence
   exactly when it failed (a stale error in it is reset). Then the final view is checked
   against a reference written here (element by element, from offset and strides):
     - every element of the view lies inside the storage (tp_view's promise);
     - tp_span, tp_numel, tp_nbytes agree with the reference;
     - tp_compact ROW_MAJOR and PRESERVE give exactly the reference bytes (PRESERVE in
       tp_dim_order's order, which must be a permutation); a zero-copy result points into the
       storage;
     - tp_compact_into with the exact capacity gives the same bytes, one byte less is
       TP_ERR_BOUNDS; tp_compact_write streams the same bytes (checked by a comparing sink)
       and a counter sink counts nbytes;
     - int8 views: tp_pack_int4 gives the reference packing when every value is in [-8, 7]
       and TP_ERR_INVALID otherwise; tp_pack_int4_size / tp_pack_int4_write agree.
   Views with more than 2^16 elements are skipped before any copy (numel is checked first).

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorpack.h"

#define FZ_MAX_STORAGE 4096
#define FZ_MAX_NUMEL ((int64_t)1 << 16)
#define FZ_MAX_OPS 4

typedef struct fz_in {
  const uint8_t *p;
  size_t n, at;
} fz_in;

static uint8_t fz_u8(fz_in *in) { return in->at < in->n ? in->p[in->at++] : 0; }

static int64_t fz_i64(fz_in *in) {
  static const int64_t edges[] = {
      INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 31, ((int64_t)1 << 31) - 1,
      (int64_t)1 << 32, ((int64_t)1 << 32) - 1, (int64_t)1 << 62, -((int64_t)1 << 62),
      (int64_t)1 << 61, (int64_t)1 << 60, -((int64_t)1 << 31), 4096, 4097, -1};
  uint8_t b = fz_u8(in);
  if (b < 64) return b;
  if (b < 128) return -(int64_t)(b - 64);
  if (b < 192) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++) v |= (uint64_t)fz_u8(in) << (8 * i);
    return (int64_t)v;
  }
  return edges[(b - 192) % (sizeof edges / sizeof edges[0])];
}

static void fz_fail(const char *what) {
  fprintf(stderr, "fuzz_views: invariant broken: %s\n", what);
  abort();
}

/* Reference gather: the view's elements in the dim order `order` (outermost first), element
   bytes copied from the storage. Checks every element is inside the storage. */
static void fz_gather(const tp_tensor *t, const int *order, unsigned char *out) {
  size_t es = tp_dtype_size(t->dtype);
  int64_t idx[TP_MAX_DIMS];
  int64_t numel = 1, e;
  int d, n = t->ndim;
  const unsigned char *base = (const unsigned char *)t->storage.data;
  for (d = 0; d < n; d++) /* a zero size first: an empty view may have huge other sizes */
    if (t->sizes[d] == 0) numel = 0;
  for (d = 0; d < n && numel; d++) numel *= t->sizes[d]; /* <= FZ_MAX_NUMEL: checked before */
#ifdef FZ_DEBUG /* -DFZ_DEBUG: print the view each reproducer ends with */
  fprintf(stderr, "view dtype %d ndim %d offset %lld storage %lu bytes:", (int)t->dtype, n,
          (long long)t->offset, (unsigned long)t->storage.nbytes);
  for (d = 0; d < n; d++)
    fprintf(stderr, " %lld:%lld", (long long)t->sizes[d], (long long)t->strides[d]);
  fprintf(stderr, "\n");
#endif
  if (numel == 0) return;
  memset(idx, 0, sizeof idx);
  for (e = 0; e < numel; e++) {
    int64_t off = t->offset;
    for (d = 0; d < n; d++) off += idx[d] * t->strides[d];
    if (off < 0 || (uint64_t)off >= t->storage.nbytes / es) fz_fail("element outside the storage");
    memcpy(out + (size_t)e * es, base + (size_t)off * es, es);
    for (d = n - 1; d >= 0; d--) { /* advance in `order`, innermost = order[n-1] */
      int dim = order[d];
      if (++idx[dim] < t->sizes[dim]) break;
      idx[dim] = 0;
    }
  }
}

typedef struct fz_cmp_sink {
  const unsigned char *want;
  size_t n, at;
  int bad;
} fz_cmp_sink;

static tp_status fz_cmp_write(void *ctx, const void *p, size_t n) {
  fz_cmp_sink *c = (fz_cmp_sink *)ctx;
  if (n > c->n - c->at || memcmp(c->want + c->at, p, n) != 0) c->bad = 1;
  else c->at += n;
  return TP_OK;
}

static void fz_check_compact(const tp_tensor *t, tp_order order, const unsigned char *want,
                             size_t nbytes) {
  tp_buffer b;
  unsigned char *dst;
  tp_status st;
  fz_cmp_sink cs;
  tp_sink sink;
  uint64_t count = 0;

  memset(&b, 0, sizeof b);
  st = tp_compact(t, order, &b);
  if (st != TP_OK) fz_fail("tp_compact failed on a valid small view");
  if (b.nbytes != nbytes) fz_fail("tp_compact: wrong byte count");
  if (nbytes && memcmp(b.data, want, nbytes) != 0) fz_fail("tp_compact: wrong bytes");
  if (!b.owned && nbytes) {
    const unsigned char *s = (const unsigned char *)t->storage.data;
    const unsigned char *q = (const unsigned char *)b.data;
    if (q < s || q > s + t->storage.nbytes || nbytes > t->storage.nbytes - (size_t)(q - s))
      fz_fail("tp_compact: zero-copy bytes outside the storage");
  }
  tp_buffer_release(&b);

  dst = (unsigned char *)malloc(nbytes ? nbytes : 1);
  if (!dst) return;
  st = tp_compact_into(t, order, dst, nbytes);
  if (st != TP_OK) fz_fail("tp_compact_into with the exact capacity failed");
  if (nbytes && memcmp(dst, want, nbytes) != 0) fz_fail("tp_compact_into: wrong bytes");
  if (nbytes && tp_compact_into(t, order, dst, nbytes - 1) != TP_ERR_BOUNDS)
    fz_fail("tp_compact_into with one byte too few is not BOUNDS");
  free(dst);

  cs.want = want;
  cs.n = nbytes;
  cs.at = 0;
  cs.bad = 0;
  sink.write = fz_cmp_write;
  sink.ctx = &cs;
  if (tp_compact_write(t, order, &sink) != TP_OK) fz_fail("tp_compact_write failed");
  if (cs.bad || cs.at != nbytes) fz_fail("tp_compact_write: wrong bytes");
  sink = tp_sink_counter(&count);
  if (tp_compact_write(t, order, &sink) != TP_OK || count != nbytes)
    fz_fail("tp_compact_write into a counter: wrong count");
}

static void fz_check_int4(const tp_tensor *t, const unsigned char *rm, int64_t numel) {
  int64_t last = t->ndim ? t->sizes[t->ndim - 1] : 1, rows, r, i;
  size_t packed, k;
  unsigned char *want;
  int in_range = 1;
  tp_buffer b;
  tp_status st;
  uint64_t count = 0;
  tp_sink sink;

  for (i = 0; i < numel; i++) {
    int v = (int)(int8_t)rm[i];
    if (v < -8 || v > 7) in_range = 0;
  }
  rows = last ? numel / last : 0;
  /* an empty view may have a huge last dim: no (last + 1) */
  packed = rows ? (size_t)(rows * (last / 2 + (last & 1))) : 0;
  if (t->ndim == 0) packed = 1;
  if (tp_pack_int4_size(t) != packed) fz_fail("tp_pack_int4_size");
  memset(&b, 0, sizeof b);
  st = tp_pack_int4(t, &b);
  if (!in_range) {
    if (st != TP_ERR_INVALID) fz_fail("tp_pack_int4 accepted a value outside [-8, 7]");
    if (tp_pack_int4_check(t, NULL) != TP_ERR_INVALID) fz_fail("tp_pack_int4_check");
    sink = tp_sink_counter(&count);
    if (tp_pack_int4_write(t, &sink) != TP_ERR_INVALID || count != 0)
      fz_fail("tp_pack_int4_write wrote bytes for a bad value");
    return;
  }
  if (st != TP_OK) fz_fail("tp_pack_int4 failed on values in range");
  if (b.nbytes != packed) fz_fail("tp_pack_int4: wrong size");
  want = (unsigned char *)calloc(packed ? packed : 1, 1);
  if (!want) {
    tp_buffer_release(&b);
    return;
  }
  if (t->ndim == 0) {
    want[0] = (unsigned char)(((int)(int8_t)rm[0] + 8) | (8 << 4));
  } else {
    size_t half = (size_t)(last / 2 + (last & 1));
    for (r = 0; r < rows; r++) {
      for (i = 0; i < last + (last & 1); i++) {
        unsigned nib = i < last ? (unsigned)((int)(int8_t)rm[r * last + i] + 8) : 8u;
        k = (size_t)r * half + (size_t)(i / 2);
        want[k] = (unsigned char)(want[k] | (nib << ((i & 1) * 4)));
      }
    }
  }
  if (packed && memcmp(b.data, want, packed) != 0) fz_fail("tp_pack_int4: wrong bytes");
  tp_buffer_release(&b);
  free(want);
  sink = tp_sink_counter(&count);
  if (tp_pack_int4_write(t, &sink) != TP_OK || count != packed)
    fz_fail("tp_pack_int4_write: wrong count");
}

/* ---- reference model of the view ops (128-bit arithmetic, written independently) -------- */
__extension__ typedef __int128 fz_i128;

typedef struct fz_ref {
  int ndim;
  fz_i128 sizes[TP_MAX_DIMS], strides[TP_MAX_DIMS], offset;
} fz_ref;

/* Python-style dim; -1 when outside -n..n-1. */
static int fz_dim(int dim, int n) { return dim >= -n && dim < n ? (dim < 0 ? dim + n : dim) : -1; }

static void fz_ref_from(const tp_tensor *t, fz_ref *r) {
  int d;
  r->ndim = t->ndim;
  r->offset = t->offset;
  for (d = 0; d < t->ndim; d++) {
    r->sizes[d] = t->sizes[d];
    r->strides[d] = t->strides[d];
  }
}

/* 1 when the reference result is a view tp_view would accept on t's storage. */
static int fz_ref_valid(const fz_ref *r, const tp_tensor *t) {
  fz_i128 numel = 1, lo = 0, hi = 0, es = (fz_i128)tp_dtype_size(t->dtype);
  int d;
  for (d = 0; d < r->ndim; d++)
    if (r->sizes[d] == 0) return 1; /* empty: no bytes, any offset and strides */
  for (d = 0; d < r->ndim; d++) {
    fz_i128 ext;
    numel *= r->sizes[d];
    if (numel > INT64_MAX) return 0;
    if (r->sizes[d] == 1) continue;
    if (r->strides[d] > INT64_MAX || r->strides[d] <= INT64_MIN) return 0;
    ext = (r->sizes[d] - 1) * r->strides[d];
    if (ext > 0) hi += ext;
    else lo += ext;
  }
  if (numel * es > INT64_MAX || (unsigned long long)(numel * es) > SIZE_MAX) return 0;
  lo += r->offset;
  hi += r->offset;
  return lo >= 0 && (hi + 1) * es <= (fz_i128)t->storage.nbytes;
}

/* Does the library's result address the same elements as the reference? (sizes equal; for
   a non-empty view the offset and every stride of a dim with 2 or more elements) */
static int fz_ref_same(const fz_ref *r, const tp_tensor *o) {
  int d, empty = 0;
  if (o->ndim != r->ndim) return 0;
  for (d = 0; d < r->ndim; d++) {
    if (o->sizes[d] != r->sizes[d]) return 0;
    if (o->sizes[d] == 0) empty = 1;
  }
  if (empty) return 1;
  if (o->offset != r->offset) return 0;
  for (d = 0; d < r->ndim; d++)
    if (r->sizes[d] > 1 && o->strides[d] != r->strides[d]) return 0;
  return 1;
}

/* The reference op: returns the status an argument error must give, or TP_OK with *r the
   result (whose validity fz_ref_valid decides). */
static tp_status fz_ref_op(int op, const tp_tensor *t, int dim, int64_t a, int64_t b, int64_t c,
                           const int *perm, int chunks, int index, int nsz, const int64_t *sz,
                           fz_ref *r) {
  int n = t->ndim, d = fz_dim(dim, n), i;
  fz_i128 size = d >= 0 ? t->sizes[d] : 0, st = d >= 0 ? t->strides[d] : 0;
  fz_ref_from(t, r);
  switch (op) {
  case 1: /* select */
    if (d < 0) return TP_ERR_INVALID;
    if (a < -size || a >= size) return TP_ERR_BOUNDS;
    r->offset += (a < 0 ? a + size : a) * st;
    for (i = d; i + 1 < n; i++) {
      r->sizes[i] = r->sizes[i + 1];
      r->strides[i] = r->strides[i + 1];
    }
    r->ndim = n - 1;
    return TP_OK;
  case 2: { /* narrow */
    fz_i128 s0 = a;
    if (d < 0 || b < 0) return TP_ERR_INVALID;
    if (s0 < 0) s0 += size;
    if (s0 < 0 || s0 > size || s0 + b > size) return TP_ERR_BOUNDS;
    r->offset += s0 * st;
    r->sizes[d] = b;
    return TP_OK;
  }
  case 3: { /* slice */
    fz_i128 s0 = a, s1 = b, len;
    if (d < 0 || c < 1) return TP_ERR_INVALID;
    if (s0 < 0) s0 += size;
    if (s0 < 0) s0 = 0;
    if (s0 > size) s0 = size;
    if (s1 < 0) s1 += size;
    if (s1 < 0) s1 = 0;
    if (s1 > size) s1 = size;
    len = s1 > s0 ? (s1 - s0 + c - 1) / c : 0;
    r->offset += s0 * st;
    r->sizes[d] = len;
    r->strides[d] = st * c;
    return TP_OK;
  }
  case 4: { /* transpose dim, (int)a */
    int e = fz_dim((int)a, n);
    fz_i128 x;
    if (d < 0 || e < 0) return TP_ERR_INVALID;
    x = r->sizes[d]; r->sizes[d] = r->sizes[e]; r->sizes[e] = x;
    x = r->strides[d]; r->strides[d] = r->strides[e]; r->strides[e] = x;
    return TP_OK;
  }
  case 5: { /* permute */
    unsigned seen = 0;
    for (i = 0; i < n; i++) {
      int p = fz_dim(perm[i], n);
      if (p < 0 || (seen >> p) & 1u) return TP_ERR_INVALID;
      seen |= 1u << p;
      r->sizes[i] = t->sizes[p];
      r->strides[i] = t->strides[p];
    }
    return TP_OK;
  }
  case 6: { /* chunk */
    fz_i128 cs, count, s0;
    if (chunks < 1 || d < 0) return TP_ERR_INVALID;
    cs = size == 0 ? 0 : (size + chunks - 1) / chunks;
    count = size == 0 ? chunks : (size + cs - 1) / cs;
    if (index < 0 || index >= count) return TP_ERR_INVALID;
    s0 = index * cs;
    r->offset += s0 * st;
    r->sizes[d] = size - s0 < cs ? size - s0 : cs;
    return TP_OK;
  }
  case 7: /* flip */
    if (d < 0) return TP_ERR_INVALID;
    if (size > 0) r->offset += (size - 1) * st;
    r->strides[d] = -st;
    return TP_OK;
  default: { /* expand */
    int lead = nsz - n;
    if (nsz < n || nsz > TP_MAX_DIMS) return TP_ERR_INVALID;
    for (i = 0; i < nsz; i++) {
      if (i < lead) {
        if (sz[i] < 0) return TP_ERR_INVALID;
        r->sizes[i] = sz[i];
        r->strides[i] = 0;
      } else {
        int64_t have = t->sizes[i - lead];
        if (sz[i] == -1 || sz[i] == have) {
          r->sizes[i] = have;
          r->strides[i] = t->strides[i - lead];
        } else if (have == 1 && sz[i] >= 0) {
          r->sizes[i] = sz[i];
          r->strides[i] = 0;
        } else {
          return TP_ERR_INVALID;
        }
      }
    }
    r->ndim = nsz;
    return TP_OK;
  }
  }
}

static void fz_apply_op(fz_in *in, tp_tensor *t) {
  uint8_t op = fz_u8(in);
  tp_tensor out;
  tp_status st = TP_OK, want;
  tp_error err;
  tp_error *e = (op >> 4) & 1 ? &err : NULL; /* with a sentence, or without */
  int dim = (int)(fz_u8(in) % 36) - 18; /* -18 .. 17: both sides of every valid range */
  int64_t a = 0, b = 0, c = 0, sizes[TP_MAX_DIMS + 2];
  int perm[TP_MAX_DIMS], chunks = 0, index = 0, nsz = 0, i;
  fz_ref ref;
  memset(&err, 0, sizeof err);
  err.status = TP_ERR_IO; /* a stale error: the op must reset it */
  for (i = 0; i < TP_MAX_DIMS; i++) perm[i] = i;
  for (i = 0; i < TP_MAX_DIMS + 2; i++) sizes[i] = 0;
  op = (uint8_t)(op % 9);
  switch (op) {
  case 0: return;
  case 1: a = fz_i64(in); break;
  case 2: a = fz_i64(in); b = fz_i64(in); break;
  case 3: a = fz_i64(in); b = fz_i64(in); c = fz_i64(in); break;
  case 4: a = (int)(fz_u8(in) % 36) - 18; break;
  case 5:
    for (i = t->ndim - 1; i > 0; i--) { /* a permutation unless the byte says otherwise */
      int j = fz_u8(in) % (i + 1), x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    for (i = 0; i < t->ndim; i++) /* some entries counted from the end */
      if (fz_u8(in) & 1) perm[i] -= t->ndim;
    if (t->ndim > 0 && (fz_u8(in) & 7) == 0) perm[0] = perm[t->ndim - 1]; /* a duplicate */
    break;
  case 6:
    chunks = (int)(fz_u8(in) % 10) - 1;
    index = (int)(fz_u8(in) % 10) - 1;
    break;
  case 7: break;
  default:
    nsz = (int)(fz_u8(in) % (TP_MAX_DIMS + 2));
    for (i = 0; i < TP_MAX_DIMS + 2; i++) sizes[i] = i < nsz ? fz_i64(in) : 0;
    break;
  }
  want = fz_ref_op(op, t, dim, a, b, c, perm, chunks, index, nsz, sizes, &ref);
  switch (op) {
  case 1: st = tp_select(t, dim, a, &out, e); break;
  case 2: st = tp_narrow(t, dim, a, b, &out, e); break;
  case 3: st = tp_slice(t, dim, a, b, c, &out, e); break;
  case 4: st = tp_transpose(t, dim, (int)a, &out, e); break;
  case 5: st = tp_permute(t, perm, &out, e); break;
  case 6: st = tp_chunk(t, chunks, dim, index, &out, e); break;
  case 7: st = tp_flip(t, dim, &out, e); break;
  default:
    st = tp_expand(t, nsz, sizes, &out, e);
    break;
  }
  if (e) {
    if (err.status != st) fz_fail("an op's err.status differs from its return");
    if ((st == TP_OK) != (err.msg[0] == '\0')) fz_fail("an op's sentence: missing or stale");
  }
  if (want != TP_OK) {
    if (st != want) fz_fail("a view op's argument error differs from the reference");
    return;
  }
  if (fz_ref_valid(&ref, t)) {
    if (st != TP_OK) fz_fail("a view op refused a result the reference finds valid");
    if (!fz_ref_same(&ref, &out)) fz_fail("a view op's result differs from the reference");
  } else {
    if (st != TP_ERR_BOUNDS && st != TP_ERR_OVERFLOW)
      fz_fail("a view op's invalid result is not BOUNDS / OVERFLOW");
    return;
  }
  if (tp_tensor_check(&out, NULL) != TP_OK) fz_fail("a view op returned an invalid view");
  *t = out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int dtypes[] = {0, 1, 2, 3, 4, 5, 6, 7, 11, 15, 8, 9, 10, 12, 14, 255};
  fz_in in;
  int64_t sizes[TP_MAX_DIMS + 2], strides[TP_MAX_DIMS + 2], offset, numel;
  int ndim, explicit_strides, i, ops, order_i[TP_MAX_DIMS];

  tp_dtype dt;
  size_t nbytes, k, es;
  unsigned char *store, *want;
  tp_storage s;
  tp_tensor t;
  tp_status st;
  uint8_t order[TP_MAX_DIMS];
  size_t b0, b1;
  uint32_t seen = 0;

  in.p = data;
  in.n = size;
  in.at = 0;
  dt = (tp_dtype)dtypes[fz_u8(&in) % 16];
  ndim = fz_u8(&in) % (TP_MAX_DIMS + 2);
  explicit_strides = fz_u8(&in) & 1;
  for (i = 0; i < TP_MAX_DIMS + 2; i++) sizes[i] = strides[i] = 0;
  for (i = 0; i < ndim; i++) sizes[i] = fz_i64(&in);
  if (explicit_strides)
    for (i = 0; i < ndim; i++) strides[i] = fz_i64(&in);
  offset = fz_i64(&in);
  nbytes = fz_u8(&in);
  nbytes |= (size_t)fz_u8(&in) << 8;
  if (nbytes > FZ_MAX_STORAGE) nbytes %= FZ_MAX_STORAGE + 1;
  ops = fz_u8(&in) % (FZ_MAX_OPS + 1);

  store = (unsigned char *)malloc(nbytes ? nbytes : 1);
  if (!store) return 0;
  /* the storage bytes: the input read backwards from its end, cycled */
  for (k = 0; k < nbytes; k++) store[k] = size ? data[size - 1 - k % size] : (uint8_t)k;
  s.data = nbytes ? store : NULL;
  s.nbytes = nbytes;
  st = tp_view(s, dt, ndim, sizes, explicit_strides ? strides : NULL, offset, &t, NULL);
  if (st != TP_OK) {
    if (st != TP_ERR_INVALID && st != TP_ERR_BOUNDS && st != TP_ERR_OVERFLOW)
      fz_fail("tp_view failed with an odd status");
    free(store);
    return 0;
  }
  if (ndim > TP_MAX_DIMS || tp_dtype_size(dt) == 0) fz_fail("tp_view accepted a bad ndim/dtype");
  for (i = 0; i < ops; i++) fz_apply_op(&in, &t);

  numel = tp_numel(&t);
  if (numel < 0) fz_fail("tp_numel of a valid view is -1");
  if (numel > FZ_MAX_NUMEL) {
    free(store);
    return 0;
  }
  es = tp_dtype_size(t.dtype);
  if (tp_nbytes(&t) != (size_t)numel * es) fz_fail("tp_nbytes != numel x element size");
  if (tp_span(&t, &b0, &b1) != TP_OK) fz_fail("tp_span failed");
  if (numel == 0 ? (b0 != 0 || b1 != 0) : (b0 >= b1 || b1 > nbytes || b0 % es || b1 % es))
    fz_fail("tp_span out of the storage");

  if (tp_dim_order(&t, t.ndim ? order : NULL) != TP_OK && t.ndim) fz_fail("tp_dim_order failed");
  for (i = 0; i < t.ndim; i++) {
    if (order[i] >= t.ndim || (seen >> order[i]) & 1u) fz_fail("dim order not a permutation");
    seen |= 1u << order[i];
    order_i[i] = order[i];
  }
  (void)tp_is_contiguous(&t);
  (void)tp_is_dense(&t);

  want = (unsigned char *)malloc(numel ? (size_t)numel * es : 1);
  if (!want) {
    free(store);
    return 0;
  }
  {
    int rm[TP_MAX_DIMS];
    for (i = 0; i < TP_MAX_DIMS; i++) rm[i] = i;
    fz_gather(&t, rm, want);
    fz_check_compact(&t, TP_ORDER_ROW_MAJOR, want, (size_t)numel * es);
    if (t.dtype == TP_I8 || t.dtype == TP_U8) {
      if (t.dtype == TP_I8) fz_check_int4(&t, want, numel);
      else {
        tp_buffer b;
        memset(&b, 0, sizeof b);
        if (tp_pack_int4(&t, &b) == TP_OK) fz_fail("tp_pack_int4 accepted a u8 view");
      }
    }
    fz_gather(&t, order_i, want);
    fz_check_compact(&t, TP_ORDER_PRESERVE, want, (size_t)numel * es);
  }
  {
    tp_buffer b;
    memset(&b, 0, sizeof b);
    if (tp_compact(&t, (tp_order)2, &b) != TP_ERR_INVALID) fz_fail("tp_compact: order 2");
  }
  free(want);
  free(store);
  return 0;
}
