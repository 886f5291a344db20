/* Section 8 of tensorpack.h, implementation: the named data store and .ptd files. Included by
   tensorpack.h's implementation part after the core and the FlatBuffers sections; uses only
   their public API.

   File layout written by tp_store_write_ptd (all integers little-endian):
     [0, 4)    root offset of the FT01 flatbuffer, + 48 (the header is inserted after byte 8)
     [4, 8)    "FT01"
     [8, 48)   FH01 header: "FH01", u32 40, u64 flatbuffer_offset (48), u64 flatbuffer_size,
               u64 segment_base_offset, u64 segment_data_size
     [48, 56)  zeros (the header padded to 16, as upstream's serializers pad it)
     [56, 48 + fb_size)           bytes 8.. of the flatbuffer
     zeros up to segment_base_offset (a multiple of max(128, largest entry alignment))
     segments, each at an offset (from the base) aligned to its entry's alignment; zeros
     between them; no padding after the last one (segment_data_size ends there).
   So bytes [0, flatbuffer_offset + flatbuffer_size) are themselves a valid FT01 flatbuffer,
   which is what ExecuTorch's FlatTensorDataMap loads.

   Choices, against upstream's writers (the loader accepts all of them):
   - flatbuffer_offset 48 and a 128-aligned segment base, as the Python FlatTensorSerializer
     (the C++ save_ptd pads the header to its tensor alignment instead);
   - segments are packed at their entries' own alignment, where Python starts every segment
     at a multiple of lcm(128, alignment): 100k small constants do not cost 12 MiB of padding;
   - entries with equal bytes (length and SHA-256) share one segment, as Python's
     NamedDataStore shares buffers; named_data lists keys in first-add order. */

#include <assert.h>
#include <string.h>

// >>store

#define TP__PTD_HEADER_LEN 40u     /* FH01 header length field */
#define TP__PTD_FB_OFFSET 48u      /* header length padded to 16: the flatbuffer_offset field */
#define TP__PTD_SEG_ALIGN 128u     /* upstream's default segment alignment (FlatTensorConfig) */
#define TP__PTD_HEAD_BYTES 64u     /* the loader reads this many bytes first */
#define TP__STORE_ALIGN 16u        /* default entry alignment */
#define TP__STORE_MAX_ALIGN ((size_t)1 << 24) /* 16 MiB: far above any page size; a bigger
                                                 one is a caller bug (it pads with zeros) */

typedef struct tp__store_seg {
  int is_bytes;
  tp_tensor view;              /* !is_bytes: streamed with tp_compact_write(view, order) */
  tp_order order;
  const unsigned char *bytes;  /* is_bytes: borrowed, or == owned */
  unsigned char *owned;
  uint64_t nbytes;
  uint64_t alignment;
  uint64_t offset;             /* from the segment base; set by tp__store_prepare */
  uint64_t hash;
  unsigned char digest[32];    /* SHA-256 of the bytes */
} tp__store_seg;

typedef struct tp__store_entry {
  char *key;                   /* own allocation: pointers handed out stay valid */
  size_t key_len;
  uint64_t hash;
  uint32_t seg;
  int has_layout;
  int8_t scalar_type;
  uint8_t ndim;
  int32_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
} tp__store_entry;

/* Open-addressing hash table of item index + 1 (0 = empty slot); cap is 0 or a power of two
   and at most half full. */
typedef struct tp__slots {
  uint32_t *slot;
  size_t cap;
} tp__slots;

struct tp_store {
  tp__store_entry *entries;
  size_t n_entries, cap_entries;
  tp__store_seg *segs;
  size_t n_segs, cap_segs;
  tp__slots keys;              /* entries by key */
  tp__slots contents;          /* segments by (digest, nbytes) */
  tp_fb_builder *fb;
  int prepared;                /* fb, offsets, base, data_size are up to date */
  uint64_t fb_size, base, data_size;
  tp_sha256 sha0;              /* an initialised context, copied per add: tp_sha256_init runs
                                  cpuid, which costs tens of microseconds in a VM */
  tp_error err;
};

static uint64_t tp__fnv1a(const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 14695981039346656037ull;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t tp__content_hash(const unsigned char digest[32], uint64_t nbytes) {
  return tp_load_le64(digest) ^ (nbytes * 0x9E3779B97F4A7C15ull);
}

static void tp__slots_put(tp__slots *t, uint64_t h, uint32_t idx1) {
  size_t mask = t->cap - 1, i = (size_t)h & mask;
  while (t->slot[i] != 0) i = (i + 1) & mask;
  t->slot[i] = idx1;
}

/* Makes room for `count` items (load <= 1/2), rehashing with the stored hashes. */
static tp_status tp__slots_reserve(tp_store *s, tp__slots *t, size_t count, int for_keys) {
  size_t cap = t->cap ? t->cap : 16, i;
  uint32_t *slot;
  tp__slots nt;
  while (count > cap / 2) {
    if (cap > ((size_t)-1) / 2 / sizeof(uint32_t)) return TP_ERR_OVERFLOW;
    cap *= 2;
  }
  if (cap == t->cap) return TP_OK;
  slot = (uint32_t *)TP_MALLOC(cap * sizeof(uint32_t));
  if (!slot) return TP_ERR_NOMEM;
  memset(slot, 0, cap * sizeof(uint32_t));
  nt.slot = slot;
  nt.cap = cap;
  for (i = 0; i < t->cap; i++) {
    uint32_t idx1 = t->slot[i];
    if (idx1 == 0) continue;
    tp__slots_put(&nt, for_keys ? s->entries[idx1 - 1].hash : s->segs[idx1 - 1].hash, idx1);
  }
  TP_FREE(t->slot);
  *t = nt;
  return TP_OK;
}

static tp__store_entry *tp__store_find_key(tp_store *s, const char *key, size_t len,
                                           uint64_t h) {
  size_t mask, i;
  if (s->keys.cap == 0) return NULL;
  mask = s->keys.cap - 1;
  for (i = (size_t)h & mask; s->keys.slot[i] != 0; i = (i + 1) & mask) {
    tp__store_entry *e = &s->entries[s->keys.slot[i] - 1];
    if (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0) return e;
  }
  return NULL;
}

static tp__store_seg *tp__store_find_content(tp_store *s, const unsigned char digest[32],
                                             uint64_t nbytes, uint64_t h) {
  size_t mask, i;
  if (s->contents.cap == 0) return NULL;
  mask = s->contents.cap - 1;
  for (i = (size_t)h & mask; s->contents.slot[i] != 0; i = (i + 1) & mask) {
    tp__store_seg *g = &s->segs[s->contents.slot[i] - 1];
    if (g->hash == h && g->nbytes == nbytes && memcmp(g->digest, digest, 32) == 0) return g;
  }
  return NULL;
}

TPDEF tp_status tp_store_create(tp_store **out) {
  tp_store *s;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  s = (tp_store *)TP_MALLOC(sizeof(tp_store));
  if (!s) return TP_ERR_NOMEM;
  memset(s, 0, sizeof *s);
  tp_sha256_init(&s->sha0);
  *out = s;
  return TP_OK;
}

TPDEF void tp_store_destroy(tp_store *s) {
  size_t i;
  if (!s) return;
  for (i = 0; i < s->n_entries; i++) TP_FREE(s->entries[i].key);
  for (i = 0; i < s->n_segs; i++) TP_FREE(s->segs[i].owned);
  TP_FREE(s->entries);
  TP_FREE(s->segs);
  TP_FREE(s->keys.slot);
  TP_FREE(s->contents.slot);
  if (s->fb) tp_fb_builder_destroy(s->fb);
  TP_FREE(s);
}

TPDEF const char *tp_store_error(const tp_store *s) {
  TP_ASSERT(s);
  return s->err.status != TP_OK ? s->err.msg : "";
}

TPDEF size_t tp_store_count(const tp_store *s) {
  TP_ASSERT(s);
  return s->n_entries;
}

/* What an add brings: the content (a view or bytes), its digest and its layout. */
typedef struct tp__store_item {
  const tp_tensor *view;
  tp_order order;
  const void *bytes;
  int copy;
  uint64_t nbytes;
  uint64_t alignment;
  unsigned char digest[32];
  int has_layout;
  int8_t scalar_type;
  uint8_t ndim;
  int32_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
} tp__store_item;

static tp_status tp__store_insert(tp_store *s, const char *key_or_null, tp__store_item *it,
                                  const char **key_out) {
  char hex[65];
  const char *key = key_or_null;
  size_t len;
  uint64_t h, ch;
  tp__store_entry *e;
  tp__store_seg *g;
  tp_status st;

  if (!key) {
    tp_hex(it->digest, 32, hex);
    key = hex;
  }
  len = strlen(key);
  h = tp__fnv1a(key, len);
  ch = tp__content_hash(it->digest, it->nbytes);

  e = tp__store_find_key(s, key, len, h);
  if (e) {
    g = &s->segs[e->seg];
    if (g->nbytes != it->nbytes || memcmp(g->digest, it->digest, 32) != 0) {
      char a[17], b[17];
      tp_hex(g->digest, 8, a);
      tp_hex(it->digest, 8, b);
      return tp_error_set(&s->err, TP_ERR_INVALID,
                          "key \"%.80s\": added again with different bytes (%llu bytes, "
                          "sha256 %s... now; %llu bytes, sha256 %s... before)",
                          key, (unsigned long long)it->nbytes, b,
                          (unsigned long long)g->nbytes, a);
    }
    /* Same key, same bytes: stored once; the first layout stays; the strictest alignment
       wins. */
    if (it->alignment > g->alignment) g->alignment = it->alignment;
    s->prepared = 0;
    if (key_out) *key_out = e->key;
    return TP_OK;
  }

  if (s->n_entries >= (size_t)UINT32_MAX - 1u)
    return tp_error_set(&s->err, TP_ERR_OVERFLOW, "key \"%.80s\": a store holds at most %lu "
                        "entries", key, (unsigned long)(UINT32_MAX - 1u));

  g = tp__store_find_content(s, it->digest, it->nbytes, ch);
  if (!g) {
    tp__store_seg *ng;
    st = tp_array_reserve((void **)&s->segs, &s->cap_segs, s->n_segs + 1, sizeof(tp__store_seg));
    if (st == TP_OK) st = tp__slots_reserve(s, &s->contents, s->n_segs + 1, 0);
    if (st != TP_OK)
      return tp_error_set(&s->err, st, "key \"%.80s\": no room for segment %lu", key,
                          (unsigned long)s->n_segs);
    ng = &s->segs[s->n_segs];
    memset(ng, 0, sizeof *ng);
    if (it->view) {
      ng->view = *it->view;
      ng->order = it->order;
    } else {
      ng->is_bytes = 1;
      ng->bytes = (const unsigned char *)it->bytes;
      if (it->copy && it->nbytes > 0) {
        ng->owned = (unsigned char *)TP_MALLOC((size_t)it->nbytes);
        if (!ng->owned)
          return tp_error_set(&s->err, TP_ERR_NOMEM, "key \"%.80s\": cannot copy %llu bytes",
                              key, (unsigned long long)it->nbytes);
        memcpy(ng->owned, it->bytes, (size_t)it->nbytes);
        ng->bytes = ng->owned;
      }
    }
    ng->nbytes = it->nbytes;
    ng->alignment = it->alignment;
    ng->hash = ch;
    memcpy(ng->digest, it->digest, 32);
    s->n_segs++;
    tp__slots_put(&s->contents, ch, (uint32_t)s->n_segs);
    g = ng;
  } else if (it->alignment > g->alignment) {
    g->alignment = it->alignment;
  }

  st = tp_array_reserve((void **)&s->entries, &s->cap_entries, s->n_entries + 1,
                        sizeof(tp__store_entry));
  if (st == TP_OK) st = tp__slots_reserve(s, &s->keys, s->n_entries + 1, 1);
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "key \"%.80s\": no room for entry %lu", key,
                        (unsigned long)s->n_entries);
  e = &s->entries[s->n_entries];
  memset(e, 0, sizeof *e);
  e->key = (char *)TP_MALLOC(len + 1);
  if (!e->key)
    return tp_error_set(&s->err, TP_ERR_NOMEM, "key \"%.80s\": cannot copy the key", key);
  memcpy(e->key, key, len + 1);
  e->key_len = len;
  e->hash = h;
  e->seg = (uint32_t)(g - s->segs);
  e->has_layout = it->has_layout;
  e->scalar_type = it->scalar_type;
  e->ndim = it->ndim;
  memcpy(e->sizes, it->sizes, sizeof e->sizes);
  memcpy(e->dim_order, it->dim_order, sizeof e->dim_order);
  s->n_entries++;
  tp__slots_put(&s->keys, h, (uint32_t)s->n_entries);
  s->prepared = 0;
  if (key_out) *key_out = e->key;
  return TP_OK;
}

static tp_status tp__store_alignment(tp_store *s, const char *key, size_t alignment,
                                     uint64_t *out) {
  if (alignment == 0) alignment = TP__STORE_ALIGN;
  if ((alignment & (alignment - 1)) != 0 || alignment > TP__STORE_MAX_ALIGN)
    return tp_error_set(&s->err, TP_ERR_INVALID,
                        "key \"%.80s\": alignment %lu is not a power of two up to %lu",
                        key ? key : "(sha256)", (unsigned long)alignment,
                        (unsigned long)TP__STORE_MAX_ALIGN);
  *out = (uint64_t)alignment;
  return TP_OK;
}

TPDEF tp_status tp_store_add(tp_store *s, const char *key_or_NULL, const tp_tensor *t,
                             tp_order order, size_t alignment, const char **key_out) {
  const char *kname = key_or_NULL ? key_or_NULL : "(sha256)";
  tp__store_item it;
  tp_error verr;
  tp_sha256 ctx;
  tp_sink sink;
  tp_status st;
  int d;

  TP_ASSERT(s);
  if (key_out) *key_out = NULL;
  if (s->err.status != TP_OK) return s->err.status;
  memset(&it, 0, sizeof it);
  if (!t) return tp_error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": NULL tensor", kname);
  if (order != TP_ORDER_ROW_MAJOR && order != TP_ORDER_PRESERVE)
    return tp_error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": order %d is not a tp_order",
                        kname, (int)order);
  memset(&verr, 0, sizeof verr);
  st = tp_tensor_check(t, &verr);
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "key \"%.80s\": %s", kname,
                        verr.status != TP_OK ? verr.msg : tp_status_str(st));
  st = tp__store_alignment(s, key_or_NULL, alignment, &it.alignment);
  if (st != TP_OK) return st;

  it.view = t;
  it.order = order;
  it.nbytes = (uint64_t)tp_nbytes(t);
  it.has_layout = 1;
  it.scalar_type = (int8_t)t->dtype;
  it.ndim = (uint8_t)t->ndim;
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] > INT32_MAX)
      return tp_error_set(&s->err, TP_ERR_UNSUPPORTED,
                          "key \"%.80s\": dim %d has size %lld; a .ptd layout holds int32 sizes",
                          kname, d, (long long)t->sizes[d]);
    it.sizes[d] = (int32_t)t->sizes[d];
    it.dim_order[d] = (uint8_t)d;
  }
  if (order == TP_ORDER_PRESERVE && t->ndim > 0) {
    st = tp_dim_order(t, it.dim_order);
    if (st != TP_OK)
      return tp_error_set(&s->err, st, "key \"%.80s\": no dim order (%s)", kname,
                          tp_status_str(st));
  }

  /* The key (or the content check of a given key) needs the digest of the compact bytes:
     stream them through SHA-256 now, nothing is copied. */
  ctx = s->sha0;
  sink = tp_sink_sha256(&ctx);
  st = tp_compact_write(t, order, &sink);
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "key \"%.80s\": hashing the view failed (%s)", kname,
                        tp_status_str(st));
  tp_sha256_final(&ctx, it.digest);
  return tp__store_insert(s, key_or_NULL, &it, key_out);
}

TPDEF tp_status tp_store_add_bytes(tp_store *s, const char *key_or_NULL, const void *data,
                                   size_t n, size_t alignment, int copy, const char **key_out) {
  const char *kname = key_or_NULL ? key_or_NULL : "(sha256)";
  tp__store_item it;
  tp_sha256 ctx;
  tp_status st;

  TP_ASSERT(s);
  if (key_out) *key_out = NULL;
  if (s->err.status != TP_OK) return s->err.status;
  if (!data && n > 0)
    return tp_error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": NULL data with %lu bytes",
                        kname, (unsigned long)n);
  memset(&it, 0, sizeof it);
  st = tp__store_alignment(s, key_or_NULL, alignment, &it.alignment);
  if (st != TP_OK) return st;
  it.bytes = data;
  it.copy = copy;
  it.nbytes = (uint64_t)n;
  ctx = s->sha0;
  if (n > 0) tp_sha256_update(&ctx, data, n);
  tp_sha256_final(&ctx, it.digest);
  return tp__store_insert(s, key_or_NULL, &it, key_out);
}

// >>ptd

/* Segment offsets, the flatbuffer, the segment base and the data size. Cached until the next
   add. */
static tp_status tp__store_prepare(tp_store *s) {
  uint64_t off = 0, max_align = TP__PTD_SEG_ALIGN, end;
  tp_fb_ref *refs = NULL, segs_vec, named_vec, root;
  size_t i, nrefs;
  const unsigned char *fbd;
  size_t fbn;
  tp_fb_builder *b;
  tp_status st;

  if (s->err.status != TP_OK) return s->err.status;
  if (s->prepared) return TP_OK;

  for (i = 0; i < s->n_segs; i++) {
    tp__store_seg *g = &s->segs[i];
    if (tp_align_u64(off, g->alignment, &off) || tp_add_u64(off, g->nbytes, &end))
      return tp_error_set(&s->err, TP_ERR_OVERFLOW,
                          "segment %lu: offset overflows 64 bits", (unsigned long)i);
    g->offset = off;
    off = end;
    if (g->alignment > max_align) max_align = g->alignment;
  }
  s->data_size = off;

  if (!s->fb) {
    st = tp_fb_builder_create(&s->fb);
    if (st != TP_OK) return tp_error_set(&s->err, st, "cannot create the flatbuffer builder");
  } else {
    tp_fb_builder_reset(s->fb);
  }
  b = s->fb;

  nrefs = s->n_segs > s->n_entries ? s->n_segs : s->n_entries;
  if (nrefs == 0) nrefs = 1;
  if (nrefs > ((size_t)-1) / sizeof(tp_fb_ref))
    return tp_error_set(&s->err, TP_ERR_OVERFLOW, "too many entries");
  refs = (tp_fb_ref *)TP_MALLOC(nrefs * sizeof(tp_fb_ref));
  if (!refs) return tp_error_set(&s->err, TP_ERR_NOMEM, "no memory for %lu flatbuffer refs",
                                 (unsigned long)nrefs);

  /* DataSegment: 0 offset u64, 1 size u64. */
  for (i = 0; i < s->n_segs; i++) {
    tp_fb_start_table(b);
    tp_fb_add_u64(b, 0, s->segs[i].offset, 0);
    tp_fb_add_u64(b, 1, s->segs[i].nbytes, 0);
    refs[i] = tp_fb_end_table(b);
  }
  segs_vec = tp_fb_create_vector_refs(b, refs, s->n_segs);

  /* NamedData: 0 key string, 1 segment_index u32, 2 tensor_layout. TensorLayout: 0 scalar_type
     i8, 1 sizes [i32], 2 dim_order [u8]; both vectors always present (the loader reads them
     unchecked), empty for a 0-dim tensor. */
  for (i = 0; i < s->n_entries; i++) {
    const tp__store_entry *e = &s->entries[i];
    tp_fb_ref key = tp_fb_create_string(b, e->key, e->key_len), layout = 0;
    if (e->has_layout) {
      tp_fb_ref sizes = tp_fb_create_vector(b, e->sizes, e->ndim, 4);
      tp_fb_ref order = tp_fb_create_vector(b, e->dim_order, e->ndim, 1);
      tp_fb_start_table(b);
      tp_fb_add_i8(b, 0, e->scalar_type, 0);
      tp_fb_add_ref(b, 1, sizes);
      tp_fb_add_ref(b, 2, order);
      layout = tp_fb_end_table(b);
    }
    tp_fb_start_table(b);
    tp_fb_add_ref(b, 0, key);
    tp_fb_add_u32(b, 1, e->seg, 0);
    tp_fb_add_ref(b, 2, layout);
    refs[i] = tp_fb_end_table(b);
  }
  named_vec = tp_fb_create_vector_refs(b, refs, s->n_entries);
  TP_FREE(refs);

  /* FlatTensor: 0 version u32 (0), 1 segments, 2 named_data (both always present). */
  tp_fb_start_table(b);
  tp_fb_add_u32(b, 0, 0, 0);
  tp_fb_add_ref(b, 1, segs_vec);
  tp_fb_add_ref(b, 2, named_vec);
  root = tp_fb_end_table(b);
  st = tp_fb_finish(b, root, "FT01");
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "building the FlatTensor flatbuffer: %s", tp_fb_error(b));
  fbd = tp_fb_data(b, &fbn);
  if (!fbd || fbn < 12 || (uint64_t)fbn > 0x7FFFFFFFull - TP__PTD_FB_OFFSET)
    return tp_error_set(&s->err, TP_ERR_OVERFLOW,
                        "the FlatTensor flatbuffer has %lu bytes (limit 2 GiB)",
                        (unsigned long)fbn);
  s->fb_size = (uint64_t)fbn;
  if (tp_align_u64(TP__PTD_FB_OFFSET + s->fb_size, max_align, &s->base) ||
      tp_add_u64(s->base, s->data_size, &end))
    return tp_error_set(&s->err, TP_ERR_OVERFLOW,
                        "segment base overflows 64 bits (alignment %llu)",
                        (unsigned long long)max_align);
  s->prepared = 1;
  return TP_OK;
}

TPDEF tp_status tp_store_ptd_size(tp_store *s, uint64_t *size_out) {
  tp_status st;
  TP_ASSERT(s);
  if (size_out) *size_out = 0;
  st = tp__store_prepare(s);
  if (st != TP_OK) return st;
  if (size_out) *size_out = s->base + s->data_size;
  return TP_OK;
}

/* Counts what passes through (to check a view streamed exactly its byte count). */
typedef struct tp__count_sink {
  tp_sink *inner;
  uint64_t n;
} tp__count_sink;

static tp_status tp__count_write(void *ctx, const void *p, size_t n) {
  tp__count_sink *c = (tp__count_sink *)ctx;
  c->n += (uint64_t)n;
  return tp_sink_write(c->inner, p, n);
}

static tp_status tp__store_zeros(tp_sink *sink, uint64_t n) {
  while (n > 0) {
    size_t k = n > (uint64_t)(1u << 30) ? (size_t)(1u << 30) : (size_t)n;
    tp_status st = tp_sink_zeros(sink, k);
    if (st != TP_OK) return st;
    n -= (uint64_t)k;
  }
  return TP_OK;
}

TPDEF tp_status tp_store_write_ptd(tp_store *s, tp_sink *sink) {
  unsigned char head[TP__PTD_FB_OFFSET + 8];
  const unsigned char *fb;
  size_t fbn, i;
  uint64_t pos, root;
  tp_status st;

  TP_ASSERT(s);
  if (!sink || !sink->write)
    return tp_error_set(&s->err, TP_ERR_INVALID, "tp_store_write_ptd: NULL sink");
  st = tp__store_prepare(s);
  if (st != TP_OK) return st;
  fb = tp_fb_data(s->fb, &fbn);

  root = (uint64_t)tp_load_le32(fb) + TP__PTD_FB_OFFSET;
  memset(head, 0, sizeof head);
  tp_store_le32(head, (uint32_t)root);
  memcpy(head + 4, fb + 4, 4);
  memcpy(head + 8, "FH01", 4);
  tp_store_le32(head + 12, TP__PTD_HEADER_LEN);
  tp_store_le64(head + 16, TP__PTD_FB_OFFSET);
  tp_store_le64(head + 24, s->fb_size);
  tp_store_le64(head + 32, s->base);
  tp_store_le64(head + 40, s->data_size);
  st = tp_sink_write(sink, head, sizeof head);
  if (st == TP_OK) st = tp_sink_write(sink, fb + 8, fbn - 8);
  if (st == TP_OK) st = tp__store_zeros(sink, s->base - TP__PTD_FB_OFFSET - s->fb_size);
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "writing the .ptd header and flatbuffer: %s",
                        tp_status_str(st));

  pos = 0;
  for (i = 0; i < s->n_segs; i++) {
    const tp__store_seg *g = &s->segs[i];
    st = tp__store_zeros(sink, g->offset - pos);
    if (st == TP_OK && g->is_bytes) {
      st = tp_sink_write(sink, g->bytes, (size_t)g->nbytes);
    } else if (st == TP_OK) {
      tp__count_sink cs;
      tp_sink wrap;
      cs.inner = sink;
      cs.n = 0;
      wrap.write = tp__count_write;
      wrap.ctx = &cs;
      st = tp_compact_write(&g->view, g->order, &wrap);
      if (st == TP_OK && cs.n != g->nbytes)
        return tp_error_set(&s->err, TP_ERR_INVALID,
                            "segment %lu: the view streamed %llu bytes, %llu were added",
                            (unsigned long)i, (unsigned long long)cs.n,
                            (unsigned long long)g->nbytes);
    }
    if (st != TP_OK)
      return tp_error_set(&s->err, st, "writing segment %lu of the .ptd (file offset %llu): %s",
                          (unsigned long)i, (unsigned long long)(s->base + g->offset),
                          tp_status_str(st));
    pos = g->offset + g->nbytes;
  }
  return TP_OK;
}

#ifndef TP_NO_STDIO
static tp_status tp__store_produce(void *ctx, tp_sink *sink) {
  return tp_store_write_ptd((tp_store *)ctx, sink);
}

TPDEF tp_status tp_store_write_ptd_file(tp_store *s, const char *path) {
  tp_status st;
  TP_ASSERT(s);
  if (s->err.status != TP_OK) return s->err.status;
  if (!path) return tp_error_set(&s->err, TP_ERR_INVALID, "tp_store_write_ptd_file: NULL path");
  st = tp_atomic_write(path, tp__store_produce, s);
  if (st != TP_OK)
    return tp_error_set(&s->err, st, "writing \"%.120s\": %s", path, tp_status_str(st));
  return TP_OK;
}
#endif

/* ---- reader ---------------------------------------------------------------------------- */

static int64_t tp__i32_bits(uint64_t v) {
  uint32_t u = (uint32_t)v;
  return u >= 0x80000000u ? (int64_t)u - (int64_t)0x100000000ll : (int64_t)u;
}

/* Reads and checks named_data[i]; on failure records a sentence in p->err. */
static tp_status tp__ptd_entry(tp_ptd *p, size_t i, tp_ptd_entry *e) {
  tp_fb_vector named, segs, sizes, order;
  tp_fb_table nd, seg, layout;
  size_t klen, d;
  uint64_t off, size, end, numel = 1, want = 0;
  unsigned char seen[TP_MAX_DIMS];
  tp_status st;

  memset(e, 0, sizeof *e);
  p->root__.r = &p->r__;
  p->r__.tables = 0;   /* the table budget guards one walk; ours visit <= 3 tables per entry */
  named = tp_fb_vector_field(&p->root__, 2, 4);
  segs = tp_fb_vector_field(&p->root__, 1, 4);
  nd = tp_fb_vector_table(&named, i);
  e->key = tp_fb_string(&nd, 0, &klen);
  e->segment_index = tp_fb_u32(&nd, 1, 0);
  st = tp_fb_reader_status(&p->r__);
  if (st != TP_OK || nd.pos == 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu]: %s", (unsigned long)i,
                        p->r__.err.status != TP_OK ? p->r__.err.msg : "absent");
  if (!e->key)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu]: no key", (unsigned long)i);
  if (strlen(e->key) != klen)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu]: key \"%.80s\" has a NUL byte inside its %lu bytes",
                        (unsigned long)i, e->key, (unsigned long)klen);
  if (e->segment_index >= segs.count)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): segment_index %lu, but there are %lu "
                        "segments", (unsigned long)i, e->key, (unsigned long)e->segment_index,
                        (unsigned long)segs.count);
  seg = tp_fb_vector_table(&segs, e->segment_index);
  off = tp_fb_u64(&seg, 0, 0);
  size = tp_fb_u64(&seg, 1, 0);
  st = tp_fb_reader_status(&p->r__);
  if (st != TP_OK || seg.pos == 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "segments[%lu]: %s",
                        (unsigned long)e->segment_index,
                        p->r__.err.status != TP_OK ? p->r__.err.msg : "absent");
  if (tp_add_u64(off, size, &end) || end > p->segment_data_size)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "segments[%lu]: offset %llu + size %llu exceeds the segment data "
                        "size %llu", (unsigned long)e->segment_index, (unsigned long long)off,
                        (unsigned long long)size, (unsigned long long)p->segment_data_size);
  /* segment_base + segment_data_size <= file size was checked by tp_ptd_open. */
  e->data = p->data + (size_t)(p->segment_base + off);
  e->nbytes = (size_t)size;

  layout = tp_fb_table_field(&nd, 2);
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): %s",
                        (unsigned long)i, e->key, p->r__.err.msg);
  if (layout.pos == 0) return TP_OK;

  e->has_layout = 1;
  {
    int8_t stype = tp_fb_i8(&layout, 0, 0);
    sizes = tp_fb_vector_field(&layout, 1, 4);
    order = tp_fb_vector_field(&layout, 2, 1);
    if (tp_fb_reader_status(&p->r__) != TP_OK)
      return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\") layout: %s",
                          (unsigned long)i, e->key, p->r__.err.msg);
    /* Range first: in C++ an int outside the enum's value range (0..15 for today's codes)
       must not be converted to tp_dtype. */
    if (stype < 0 || stype > 15 || tp_dtype_size((tp_dtype)stype) == 0)
      return tp_error_set(&p->err, TP_ERR_FORMAT,
                          "named_data[%lu] (\"%.80s\"): scalar type %d is not one tensorpack "
                          "knows", (unsigned long)i, e->key, (int)stype);
    e->dtype = (tp_dtype)stype;
  }
  if (sizes.pos == 0 || order.pos == 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): layout without %s", (unsigned long)i,
                        e->key, sizes.pos == 0 ? "sizes" : "dim_order");
  if (sizes.count > TP_MAX_DIMS || order.count != sizes.count)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): %lu sizes and %lu dim_order entries "
                        "(at most %d, equal)", (unsigned long)i, e->key,
                        (unsigned long)sizes.count, (unsigned long)order.count, TP_MAX_DIMS);
  e->ndim = (int)sizes.count;
  memset(seen, 0, sizeof seen);
  for (d = 0; d < sizes.count; d++) {
    int64_t v = tp__i32_bits(tp_fb_vector_scalar(&sizes, d));
    uint64_t o = tp_fb_vector_scalar(&order, d);
    if (v < 0)
      return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): size %lld "
                          "at dim %lu", (unsigned long)i, e->key, (long long)v,
                          (unsigned long)d);
    if (o >= sizes.count || seen[o])
      return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): dim_order is "
                          "not a permutation of 0..%lu (entry %lu is %llu)", (unsigned long)i,
                          e->key, (unsigned long)(sizes.count - 1), (unsigned long)d,
                          (unsigned long long)o);
    seen[o] = 1;
    e->sizes[d] = v;
    e->dim_order[d] = (uint8_t)o;
    if (tp_mul_u64(numel, (uint64_t)v, &numel)) numel = UINT64_MAX;
  }
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\") layout: %s",
                        (unsigned long)i, e->key, p->r__.err.msg);
  if (tp_mul_u64(numel, (uint64_t)tp_dtype_size(e->dtype), &want) || want != size)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): layout needs %llu bytes, segment %lu has "
                        "%llu", (unsigned long)i, e->key,
                        (unsigned long long)(numel == UINT64_MAX ? UINT64_MAX : want),
                        (unsigned long)e->segment_index, (unsigned long long)size);
  return TP_OK;
}

TPDEF tp_status tp_ptd_open(tp_ptd *p, const void *data, size_t size) {
  const unsigned char *b = (const unsigned char *)data;
  uint64_t fb_end, seg_end;
  uint32_t len;
  tp_fb_vector named, segs;
  tp_ptd_entry e;
  size_t i;
  tp_status st;

  TP_ASSERT(p);
  memset(p, 0, sizeof *p);
  p->data = b;
  p->size = size;
  if (!b && size > 0)
    return tp_error_set(&p->err, TP_ERR_INVALID, "NULL data with %lu bytes",
                        (unsigned long)size);
  if (size < TP__PTD_HEAD_BYTES)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "%lu bytes: shorter than the %u-byte head of a .ptd file",
                        (unsigned long)size, TP__PTD_HEAD_BYTES);
  if (memcmp(b + 4, "FT01", 4) != 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "file identifier is not FT01");
  if (memcmp(b + 8, "FH01", 4) != 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "no FH01 header at byte 8");
  len = tp_load_le32(b + 12);
  if (len < TP__PTD_HEADER_LEN)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "FH01 header length %lu < %u",
                        (unsigned long)len, TP__PTD_HEADER_LEN);
  p->flatbuffer_offset = tp_load_le64(b + 16);
  p->flatbuffer_size = tp_load_le64(b + 24);
  p->segment_base = tp_load_le64(b + 32);
  p->segment_data_size = tp_load_le64(b + 40);
  if (tp_add_u64(p->flatbuffer_offset, p->flatbuffer_size, &fb_end) || fb_end > size)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "flatbuffer offset %llu + size %llu exceeds the file's %lu bytes",
                        (unsigned long long)p->flatbuffer_offset,
                        (unsigned long long)p->flatbuffer_size, (unsigned long)size);
  if (tp_add_u64(p->segment_base, p->segment_data_size, &seg_end) || seg_end > size)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "segment base %llu + data size %llu exceeds the file's %lu bytes",
                        (unsigned long long)p->segment_base,
                        (unsigned long long)p->segment_data_size, (unsigned long)size);
  if (p->segment_base < fb_end)
    return tp_error_set(&p->err, TP_ERR_FORMAT,
                        "segment base %llu lies inside the flatbuffer (which ends at %llu)",
                        (unsigned long long)p->segment_base, (unsigned long long)fb_end);

  /* The flatbuffer is bytes [0, fb_end): its root offset already counts the header. Every
     walk below is linear in the entry count (no recursion, no shared subtrees revisited more
     than a fixed number of times), so the reader's table budget is lifted; each call resets
     the count. */
  p->r__.max_tables = (size_t)-1;
  st = tp_fb_reader_init(&p->r__, b, (size_t)fb_end, "FT01", &p->root__);
  if (st != TP_OK)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "FlatTensor flatbuffer: %s",
                        p->r__.err.status != TP_OK ? p->r__.err.msg : tp_status_str(st));
  p->version = tp_fb_u32(&p->root__, 0, 0);
  segs = tp_fb_vector_field(&p->root__, 1, 4);
  named = tp_fb_vector_field(&p->root__, 2, 4);
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "FlatTensor: %s", p->r__.err.msg);
  if (p->version != 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "FlatTensor version %lu, expected 0",
                        (unsigned long)p->version);
  if (segs.pos == 0 || named.pos == 0)
    return tp_error_set(&p->err, TP_ERR_FORMAT, "FlatTensor without %s",
                        segs.pos == 0 ? "segments" : "named_data");
  for (i = 0; i < named.count; i++) {
    st = tp__ptd_entry(p, i, &e);
    if (st != TP_OK) return st;
  }
  p->count = named.count;
  return TP_OK;
}

TPDEF tp_status tp_ptd_entry_at(tp_ptd *p, size_t i, tp_ptd_entry *e) {
  TP_ASSERT(p);
  if (!e) return TP_ERR_INVALID;
  memset(e, 0, sizeof *e);
  if (p->err.status != TP_OK) return p->err.status;
  memset(&p->last_lookup, 0, sizeof p->last_lookup);
  if (i >= p->count) {
    tp_error_set(&p->last_lookup, TP_ERR_INVALID, "entry %lu of %lu", (unsigned long)i,
                 (unsigned long)p->count);
    return TP_ERR_INVALID;
  }
  return tp__ptd_entry(p, i, e);
}

/* Key i of named_data (checked by tp_ptd_open), with its length. */
static const char *tp__ptd_key(const tp_fb_vector *named, size_t i, size_t *len) {
  tp_fb_table nd = tp_fb_vector_table(named, i);
  *len = 0;
  return tp_fb_string(&nd, 0, len);
}

TPDEF size_t tp_ptd_index_slots(const tp_ptd *p) {
  size_t cap = 1;
  TP_ASSERT(p);
  if (p->err.status != TP_OK || p->count == 0) return 0;
  while (cap < 2 * p->count) cap *= 2;   /* count < 2^30: a vector entry takes 4 bytes */
  return cap;
}

TPDEF tp_status tp_ptd_index(tp_ptd *p, uint32_t *slots, size_t nslots) {
  tp_fb_vector named;
  size_t need, i, len;
  TP_ASSERT(p);
  if (p->err.status != TP_OK) return p->err.status;
  need = tp_ptd_index_slots(p);
  if (nslots < need || (need > 0 && !slots)) {
    tp_error_set(&p->last_lookup, TP_ERR_INVALID, "the index needs %lu slots, %lu given",
                 (unsigned long)need, (unsigned long)nslots);
    return TP_ERR_INVALID;
  }
  p->index__ = NULL;
  p->index_cap__ = 0;
  if (need == 0) return TP_OK;
  memset(slots, 0, need * sizeof *slots);
  p->root__.r = &p->r__;
  p->r__.tables = 0;
  named = tp_fb_vector_field(&p->root__, 2, 4);
  for (i = 0; i < p->count; i++) {
    const char *k = tp__ptd_key(&named, i, &len);
    size_t j = (size_t)tp__fnv1a(k, len) & (need - 1);
    while (slots[j] != 0) j = (j + 1) & (need - 1);
    slots[j] = (uint32_t)(i + 1);
  }
  p->index__ = slots;
  p->index_cap__ = need;
  return TP_OK;
}

TPDEF tp_status tp_ptd_find(tp_ptd *p, const char *key, tp_ptd_entry *e) {
  tp_fb_vector named;
  size_t i, len;
  TP_ASSERT(p);
  if (!e) return TP_ERR_INVALID;
  memset(e, 0, sizeof *e);
  if (p->err.status != TP_OK) return p->err.status;
  memset(&p->last_lookup, 0, sizeof p->last_lookup);
  if (!key) {
    tp_error_set(&p->last_lookup, TP_ERR_INVALID, "NULL key");
    return TP_ERR_INVALID;
  }
  len = strlen(key);
  p->root__.r = &p->r__;
  p->r__.tables = 0;
  named = tp_fb_vector_field(&p->root__, 2, 4);
  if (p->index__) {
    size_t mask = p->index_cap__ - 1, j = (size_t)tp__fnv1a(key, len) & mask;
    for (; p->index__[j] != 0; j = (j + 1) & mask) {
      size_t klen;
      const char *k = tp__ptd_key(&named, p->index__[j] - 1, &klen);
      if (k && klen == len && memcmp(k, key, len) == 0)
        return tp__ptd_entry(p, p->index__[j] - 1, e);
    }
  } else {
    for (i = 0; i < p->count; i++) {
      size_t klen;
      const char *k = tp__ptd_key(&named, i, &klen);
      if (k && klen == len && memcmp(k, key, len) == 0) return tp__ptd_entry(p, i, e);
    }
  }
  tp_error_set(&p->last_lookup, TP_ERR_INVALID, "key \"%.120s\" is not in the .ptd", key);
  return TP_ERR_INVALID;
}
