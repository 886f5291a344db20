/* Section 7 of tensorpack.h, implementation: FlatBuffers builder and reader. Included from the
   implementation part of tensorpack.h after the core (it uses tp_error_set, tp_array_reserve,
   tp_store_le*, tp_load_le*, tp_mul_u64). */

// >>flatbuffers
/* The builder fills one buffer from its end towards its start, as the official builder does:
   b->buf[b->cap - b->size .. b->cap) holds everything built so far, and an object is named by
   its distance from the end (a tp_fb_ref), which never changes as more is built in front of
   it. Children are built first, so every uoffset points to a higher address. Alignment is
   kept relative to the end; finish pads the front so that the total size is a multiple of the
   largest alignment used, which makes every alignment hold relative to the start as well.

   A table's fields are written as they are added, each aligned to its size, the first one at
   the highest address (as the official builder does; adding the largest first, as flatc's
   generated Create<Table>() functions do, gives the most compact table and the same bytes).
   tp_fb_end_table writes the soffset and the vtable: right before its table, or shared with
   an identical one written earlier (found through a hash table). */

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define TP__FB_MAX_SIZE 0x7FFFFFFFu /* FlatBuffers' 2 GiB - 1 buffer limit */
#define TP__FB_MAX_ID 32764u        /* largest id whose vtable size still fits a u16 */

typedef struct tp__fb_vtslot {
  uint32_t end;    /* vtable position (distance from the end); 0 = empty slot */
  uint32_t hash;
} tp__fb_vtslot;

struct tp_fb_builder {
  unsigned char *buf;
  size_t cap;
  uint32_t size;
  uint32_t minalign;
  uint32_t max_size;
  uint32_t limit;          /* min(cap, max_size): size may grow to this without a check */
  int in_table, finished, force_defaults;
  uint32_t *slot;          /* per field id of the open table: where it ends, 0 = not written;
                              all 0 outside a table */
  size_t slot_cap;
  uint16_t *vts;           /* the open table's vtable entries, computed by end_table */
  size_t vts_cap;
  uint32_t table_start;    /* size when the open table was started */
  uint32_t nids;           /* largest id written into the open table + 1; 0 = none */
  uint32_t thash;          /* hash of the open table's (id, position) pairs so far */
  uint64_t seen_lo;        /* ids 0..63 already added to the open table */
  uint32_t *seen;          /* ids >= 64: seen[id - 64] == stamp when already added */
  size_t seen_len, seen_cap;
  uint32_t stamp;
  tp__fb_vtslot *vt;       /* open-addressing hash table of written vtables */
  size_t vt_cap, vt_count; /* vt_cap is 0 or a power of two */
  tp_error err;
};

static int tp__fb_host_le(void) {
  const uint16_t one = 1;
  unsigned char c;
  memcpy(&c, &one, 1);
  return c == 1;
}

/* Little-endian stores for the hot paths: one plain store on a little-endian host (the test
   folds at compile time), tp_store_le* elsewhere. */
#if defined(__GNUC__) || defined(__clang__)
#define TP__FB_INLINE static inline __attribute__((always_inline))
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define TP__FB_INLINE static inline
#else
#define TP__FB_INLINE static
#endif
TP__FB_INLINE uint16_t tp__fb_ld16(const unsigned char *p) {
  uint16_t v;
  if (!tp__fb_host_le()) return tp_load_le16(p);
  memcpy(&v, p, 2);
  return v;
}
TP__FB_INLINE void tp__fb_st16(unsigned char *p, uint16_t v) {
  if (tp__fb_host_le()) memcpy(p, &v, 2);
  else tp_store_le16(p, v);
}
TP__FB_INLINE void tp__fb_st32(unsigned char *p, uint32_t v) {
  if (tp__fb_host_le()) memcpy(p, &v, 4);
  else tp_store_le32(p, v);
}
TP__FB_INLINE void tp__fb_st64(unsigned char *p, uint64_t v) {
  if (tp__fb_host_le()) memcpy(p, &v, 8);
  else tp_store_le64(p, v);
}

static int tp__fb_slots(tp_fb_builder *b, uint16_t id);

TPDEF tp_status tp_fb_builder_create(tp_fb_builder **out) {
  tp_fb_builder *b;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  b = (tp_fb_builder *)TP_MALLOC(sizeof *b);
  if (!b) return TP_ERR_NOMEM;
  memset(b, 0, sizeof *b);
  b->minalign = 1;
  b->max_size = TP__FB_MAX_SIZE;
  if (!tp__fb_slots(b, 63)) { /* ids 0..63 never need a capacity check */
    TP_FREE(b->vts);
    TP_FREE(b->slot);
    TP_FREE(b);
    return TP_ERR_NOMEM;
  }
  *out = b;
  return TP_OK;
}

TPDEF void tp_fb_builder_destroy(tp_fb_builder *b) {
  if (!b) return;
  TP_FREE(b->buf);
  TP_FREE(b->slot);
  TP_FREE(b->vts);
  TP_FREE(b->seen);
  TP_FREE(b->vt);
  TP_FREE(b);
}

TPDEF void tp_fb_builder_reset(tp_fb_builder *b) {
  assert(b);
  b->size = 0;
  b->limit = b->cap < b->max_size ? (uint32_t)b->cap : b->max_size;
  b->minalign = 1;
  b->in_table = 0;
  b->finished = 0;
  if (b->vt) memset(b->vt, 0, b->vt_cap * sizeof *b->vt);
  if (b->slot) memset(b->slot, 0, b->slot_cap * sizeof *b->slot); /* a table left open */
  b->vt_count = 0;
  memset(&b->err, 0, sizeof b->err);
}

TPDEF tp_status tp_fb_status(const tp_fb_builder *b) {
  assert(b);
  return b->err.status;
}

TPDEF const char *tp_fb_error(const tp_fb_builder *b) {
  assert(b);
  return b->err.status == TP_OK ? "" : b->err.msg;
}

TPDEF void tp_fb_force_defaults(tp_fb_builder *b, int on) {
  assert(b);
  b->force_defaults = on != 0;
}

TPDEF void tp_fb_set_max_size(tp_fb_builder *b, size_t max_size) {
  assert(b);
  b->max_size = (max_size == 0 || max_size > TP__FB_MAX_SIZE) ? TP__FB_MAX_SIZE
                                                               : (uint32_t)max_size;
  b->limit = b->cap < b->max_size ? (uint32_t)b->cap : b->max_size;
  if (b->limit < b->size) b->limit = b->size; /* already past a lowered limit: no more room */
}

TPDEF size_t tp_fb_size(const tp_fb_builder *b) {
  assert(b);
  return b->size;
}

/* 1 when the builder may go on; records misuse after finish. */
static int tp__fb_ok(tp_fb_builder *b, const char *what) {
  if (b->err.status != TP_OK) return 0;
  if (b->finished) {
    tp_error_set(&b->err, TP_ERR_INVALID, "%s after tp_fb_finish (reset the builder first)", what);
    return 0;
  }
  return 1;
}

/* 1 when an object (string, vector) may be created now: not inside an open table, whose
   fields are being written at the front of the buffer. */
static int tp__fb_ok_outside(tp_fb_builder *b, const char *what) {
  if (!tp__fb_ok(b, what)) return 0;
  if (b->in_table) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "%s inside an open table (build children before tp_fb_start_table)", what);
    return 0;
  }
  return 1;
}

/* Makes room for n more bytes in front of the data; 0 on failure (error recorded). */
static int tp__fb_grow(tp_fb_builder *b, uint64_t n);
TP__FB_INLINE int tp__fb_room(tp_fb_builder *b, uint64_t n) {
  if (n <= (uint64_t)(b->limit - b->size)) return 1;
  return tp__fb_grow(b, n);
}

static int tp__fb_grow(tp_fb_builder *b, uint64_t n) {
  size_t newcap, have;
  unsigned char *nb;
  if (b->size > b->max_size || n > (uint64_t)(b->max_size - b->size)) {
    tp_error_set(&b->err, TP_ERR_OVERFLOW,
                 "buffer would grow from %lu by %llu bytes, over the FlatBuffers limit of %lu",
                 (unsigned long)b->size, (unsigned long long)n, (unsigned long)b->max_size);
    return 0;
  }
  have = b->cap - b->size;
  if ((size_t)n <= have) return 1;
  newcap = b->cap < 1024 ? 1024 : b->cap;
  while (newcap - b->size < (size_t)n) {
    if (newcap > ((size_t)-1) / 2) {
      newcap = (size_t)b->size + (size_t)n;
      break;
    }
    newcap *= 2;
  }
  nb = (unsigned char *)TP_REALLOC(b->buf, newcap);
  if (!nb) {
    tp_error_set(&b->err, TP_ERR_NOMEM, "out of memory growing the buffer to %llu bytes",
                 (unsigned long long)newcap);
    return 0;
  }
  if (b->size) memmove(nb + newcap - b->size, nb + b->cap - b->size, b->size);
  b->buf = nb;
  b->cap = newcap;
  b->limit = b->cap < b->max_size ? (uint32_t)b->cap : b->max_size;
  return 1;
}

/* The following push helpers assume the room was made. */
static unsigned char *tp__fb_front(tp_fb_builder *b) { return b->buf + b->cap - b->size; }

static void tp__fb_pad(tp_fb_builder *b, uint32_t n) {
  if (!n) return;
  b->size += n;
  memset(tp__fb_front(b), 0, n);
}

static uint32_t tp__fb_padding(uint32_t size, uint32_t align) {
  return (uint32_t)(0u - size) & (align - 1u);
}

static void tp__fb_track(tp_fb_builder *b, uint32_t align) {
  if (align > b->minalign) b->minalign = align;
}

static void tp__fb_put32(tp_fb_builder *b, uint32_t v) {
  b->size += 4;
  tp__fb_st32(tp__fb_front(b), v);
}

/* Checks that ref names something already built. */
static int tp__fb_check_ref(tp_fb_builder *b, tp_fb_ref ref, const char *what) {
  if (ref == 0 || ref > b->size) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "%s: ref %lu does not name an object (%lu bytes built so far)", what,
                 (unsigned long)ref, (unsigned long)b->size);
    return 0;
  }
  return 1;
}

TPDEF tp_fb_ref tp_fb_create_string(tp_fb_builder *b, const char *s, size_t len) {
  uint32_t pad;
  assert(b);
  if (!tp__fb_ok_outside(b, "tp_fb_create_string")) return 0;
  if (!s && len) {
    tp_error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_string: NULL string of length %llu",
                 (unsigned long long)len);
    return 0;
  }
  if ((uint64_t)len >= TP__FB_MAX_SIZE) {
    tp_error_set(&b->err, TP_ERR_OVERFLOW,
                 "string of %llu bytes is over the FlatBuffers limit of %lu bytes",
                 (unsigned long long)len, (unsigned long)b->max_size);
    return 0;
  }
  pad = tp__fb_padding(b->size + (uint32_t)len + 1u, 4);
  if (!tp__fb_room(b, (uint64_t)pad + len + 1 + 4)) return 0;
  tp__fb_pad(b, pad + 1); /* the NUL comes last in memory, right after the bytes */
  b->size += (uint32_t)len;
  if (len) memcpy(tp__fb_front(b), s, len);
  tp__fb_put32(b, (uint32_t)len);
  tp__fb_track(b, 4);
  return b->size;
}

TPDEF tp_fb_ref tp_fb_create_vector(tp_fb_builder *b, const void *elems, size_t count,
                                    size_t elem_size) {
  uint64_t bytes;
  uint32_t align, pad, n32;
  unsigned char *dst;
  const unsigned char *src = (const unsigned char *)elems;
  size_t i;
  assert(b);
  if ((b->err.status != TP_OK || b->finished || b->in_table) &&
      !tp__fb_ok_outside(b, "tp_fb_create_vector"))
    return 0;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "tp_fb_create_vector: element size %llu is not 1, 2, 4 or 8",
                 (unsigned long long)elem_size);
    return 0;
  }
  if ((uint64_t)count >= TP__FB_MAX_SIZE / elem_size) { /* elem_size is 1..8: no overflow */
    tp_error_set(&b->err, TP_ERR_OVERFLOW,
                 "vector of %llu elements of %llu bytes is over the FlatBuffers limit of %lu bytes",
                 (unsigned long long)count, (unsigned long long)elem_size,
                 (unsigned long)b->max_size);
    return 0;
  }
  if (!elems && count) {
    tp_error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_vector: NULL elements, count %llu",
                 (unsigned long long)count);
    return 0;
  }
  bytes = (uint64_t)count * elem_size;
  /* An empty vector is just its count, aligned to 4, as the official builder writes it. */
  align = (elem_size > 4 && count) ? (uint32_t)elem_size : 4u;
  n32 = (uint32_t)bytes;
  pad = tp__fb_padding(b->size + n32, align);
  if (!tp__fb_room(b, (uint64_t)pad + bytes + 4)) return 0;
  tp__fb_pad(b, pad);
  b->size += n32;
  dst = tp__fb_front(b);
  if (elem_size == 1 || tp__fb_host_le()) {
    if (n32) memcpy(dst, src, n32);
  } else if (elem_size == 2) {
    for (i = 0; i < count; i++) {
      uint16_t v;
      memcpy(&v, src + 2 * i, 2);
      tp_store_le16(dst + 2 * i, v);
    }
  } else if (elem_size == 4) {
    for (i = 0; i < count; i++) {
      uint32_t v;
      memcpy(&v, src + 4 * i, 4);
      tp_store_le32(dst + 4 * i, v);
    }
  } else {
    for (i = 0; i < count; i++) {
      uint64_t v;
      memcpy(&v, src + 8 * i, 8);
      tp_store_le64(dst + 8 * i, v);
    }
  }
  tp__fb_put32(b, (uint32_t)count);
  tp__fb_track(b, align);
  return b->size;
}

TPDEF tp_fb_ref tp_fb_create_vector_refs(tp_fb_builder *b, const tp_fb_ref *refs, size_t count) {
  size_t i;
  uint64_t bytes;
  assert(b);
  if (!tp__fb_ok_outside(b, "tp_fb_create_vector_refs")) return 0;
  if (tp_mul_u64((uint64_t)count, 4, &bytes) || bytes >= TP__FB_MAX_SIZE) {
    tp_error_set(&b->err, TP_ERR_OVERFLOW,
                 "vector of %llu offsets is over the FlatBuffers limit of %lu bytes",
                 (unsigned long long)count, (unsigned long)b->max_size);
    return 0;
  }
  if (!refs && count) {
    tp_error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_vector_refs: NULL refs, count %llu",
                 (unsigned long long)count);
    return 0;
  }
  for (i = 0; i < count; i++) {
    if (refs[i] == 0 || refs[i] > b->size) {
      tp_error_set(&b->err, TP_ERR_INVALID,
                   "tp_fb_create_vector_refs: element %llu: ref %lu does not name an object "
                   "(%lu bytes built so far)",
                   (unsigned long long)i, (unsigned long)refs[i], (unsigned long)b->size);
      return 0;
    }
  }
  if (!tp__fb_room(b, (uint64_t)tp__fb_padding(b->size, 4) + bytes + 4)) return 0;
  tp__fb_pad(b, tp__fb_padding(b->size, 4));
  {
    /* Element i's uoffset is relative to its own address; after the loop the element block
       is [front, front + 4 * count). */
    uint32_t base = b->size;
    unsigned char *p;
    b->size += (uint32_t)bytes;
    p = tp__fb_front(b);
    for (i = 0; i < count; i++) {
      uint32_t elem_end = base + (uint32_t)((count - i) * 4); /* distance of element i */
      tp__fb_st32(p + 4 * i, elem_end - refs[i]);
    }
  }
  tp__fb_put32(b, (uint32_t)count);
  tp__fb_track(b, 4);
  return b->size;
}

TPDEF void tp_fb_start_table(tp_fb_builder *b) {
  assert(b);
  if (!tp__fb_ok(b, "tp_fb_start_table")) return;
  if (b->in_table) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "tp_fb_start_table inside an open table (tables do not nest: build children "
                 "first)");
    return;
  }
  b->in_table = 1;
  b->seen_lo = 0;
  b->nids = 0;
  b->thash = 0;
  b->table_start = b->size;
  b->stamp++;
  if (b->stamp == 0) { /* wrapped: forget every old mark */
    if (b->seen) memset(b->seen, 0, b->seen_len * sizeof *b->seen);
    b->stamp = 1;
  }
}

/* Grows the per-id slots to hold id (new slots 0); 0 on failure (error recorded). */
static int tp__fb_slots(tp_fb_builder *b, uint16_t id) {
  size_t old = b->slot_cap, want = (size_t)id + 1;
  if (want < 64) want = 64;
  if (tp_array_reserve((void **)&b->vts, &b->vts_cap, want, sizeof *b->vts) != TP_OK ||
      tp_array_reserve((void **)&b->slot, &b->slot_cap, want, sizeof *b->slot) != TP_OK) {
    tp_error_set(&b->err, TP_ERR_NOMEM, "out of memory adding field id %u", (unsigned)id);
    return 0;
  }
  memset(b->slot + old, 0, (b->slot_cap - old) * sizeof *b->slot);
  return 1;
}

/* The checks of tp__fb_add that fail or need memory: records the error and returns 0, or
   marks an id >= 64 as seen and returns 1. */
static int tp__fb_add_slow(tp_fb_builder *b, uint16_t id) {
  size_t k;
  if (!tp__fb_ok(b, "adding a field")) return 0;
  if (!b->in_table) {
    tp_error_set(&b->err, TP_ERR_INVALID, "field id %u added outside a table", (unsigned)id);
    return 0;
  }
  if (id > TP__FB_MAX_ID) {
    tp_error_set(&b->err, TP_ERR_INVALID, "field id %u is over the largest id %u", (unsigned)id,
                 TP__FB_MAX_ID);
    return 0;
  }
  if (id < 64) { /* only reached for a repeated id */
    tp_error_set(&b->err, TP_ERR_INVALID, "field id %u added twice in one table", (unsigned)id);
    return 0;
  }
  if ((id >= b->slot_cap || id >= b->vts_cap) && !tp__fb_slots(b, id)) return 0;
  k = (size_t)id - 64;
  if (k >= b->seen_len) {
    if (tp_array_reserve((void **)&b->seen, &b->seen_cap, k + 1, sizeof *b->seen) != TP_OK) {
      tp_error_set(&b->err, TP_ERR_NOMEM, "out of memory tracking field id %u", (unsigned)id);
      return 0;
    }
    memset(b->seen + b->seen_len, 0, (b->seen_cap - b->seen_len) * sizeof *b->seen);
    b->seen_len = b->seen_cap;
  }
  if (b->seen[k] == b->stamp) {
    tp_error_set(&b->err, TP_ERR_INVALID, "field id %u added twice in one table", (unsigned)id);
    return 0;
  }
  b->seen[k] = b->stamp;
  return 1;
}

/* Writes a field into the open table when it differs from its default (or defaults are
   forced): aligned to its size (1, 2, 4, 8), a ref as the distance to its target. */
/* Stores a field at the front: aligned to its size (1, 2, 4, 8), a ref as the distance to its
   target; the room was made. */
TP__FB_INLINE void tp__fb_store(tp_fb_builder *b, uint16_t id, uint64_t bits, uint32_t size,
                                int is_ref, uint32_t pad) {
  uint32_t now = b->size + pad + size;
  unsigned char *p;
  b->size = now;
  b->slot[id] = now;
  /* order-free and chain-free: position from the table start, weighted by id */
  b->thash += (now - b->table_start) * (2u * id + 0x85EBCA6Bu);
  if (size > b->minalign) b->minalign = size;
  if (id >= b->nids) b->nids = (uint32_t)id + 1u;
  p = b->buf + b->cap - now; /* the field, then pad zero bytes above it */
  switch (size) {
  case 1: p[0] = (unsigned char)bits; break;
  case 2: tp__fb_st16(p, (uint16_t)bits); break;
  case 4: tp__fb_st32(p, is_ref ? now - (uint32_t)bits : (uint32_t)bits); break;
  default: tp__fb_st64(p, bits); break;
  }
  while (pad) p[size + --pad] = 0;
}

/* tp__fb_add when the fast path does not apply: checks that fail, ids >= 64, growth. */
static void tp__fb_add_general(tp_fb_builder *b, uint16_t id, uint64_t bits, uint32_t size,
                               int is_ref, int is_default) {
  uint32_t pad;
  if (b->err.status == TP_OK && b->in_table && id < 64 && !(b->seen_lo & ((uint64_t)1 << id))) {
    b->seen_lo |= (uint64_t)1 << id;
  } else if (!tp__fb_add_slow(b, id)) {
    return;
  }
  if (is_default && !b->force_defaults) return;
  pad = tp__fb_padding(b->size, size);
  if (!tp__fb_room(b, (uint64_t)pad + size)) return;
  tp__fb_store(b, id, bits, size, is_ref, pad);
}

/* Writes a field into the open table when it differs from its default (or defaults are
   forced). The fast path makes no calls (the rest goes to tp__fb_add_general as a tail call),
   so it needs no saved registers. */
TP__FB_INLINE void tp__fb_add(tp_fb_builder *b, uint16_t id, uint64_t bits, uint32_t size,
                              int is_ref, int is_default) {
  uint64_t bit = (uint64_t)1 << (id & 63u);
  uint32_t pad = tp__fb_padding(b->size, size);
  /* in_table implies not finished: finish refuses an open table, start refuses after finish */
  if (b->err.status != TP_OK || !b->in_table || id >= 64 || (b->seen_lo & bit) ||
      pad + size > b->limit - b->size) {
    tp__fb_add_general(b, id, bits, size, is_ref, is_default);
    return;
  }
  b->seen_lo |= bit;
  if (is_default && !b->force_defaults) return;
  tp__fb_store(b, id, bits, size, is_ref, pad);
}

TPDEF void tp_fb_add_u8(tp_fb_builder *b, uint16_t id, uint8_t v, uint8_t dflt) {
  assert(b);
  tp__fb_add(b, id, v, 1, 0, v == dflt);
}
TPDEF void tp_fb_add_i8(tp_fb_builder *b, uint16_t id, int8_t v, int8_t dflt) {
  assert(b);
  tp__fb_add(b, id, (uint8_t)v, 1, 0, v == dflt);
}
TPDEF void tp_fb_add_u16(tp_fb_builder *b, uint16_t id, uint16_t v, uint16_t dflt) {
  assert(b);
  tp__fb_add(b, id, v, 2, 0, v == dflt);
}
TPDEF void tp_fb_add_i16(tp_fb_builder *b, uint16_t id, int16_t v, int16_t dflt) {
  assert(b);
  tp__fb_add(b, id, (uint16_t)v, 2, 0, v == dflt);
}
TPDEF void tp_fb_add_u32(tp_fb_builder *b, uint16_t id, uint32_t v, uint32_t dflt) {
  assert(b);
  tp__fb_add(b, id, v, 4, 0, v == dflt);
}
TPDEF void tp_fb_add_i32(tp_fb_builder *b, uint16_t id, int32_t v, int32_t dflt) {
  assert(b);
  tp__fb_add(b, id, (uint32_t)v, 4, 0, v == dflt);
}
TPDEF void tp_fb_add_u64(tp_fb_builder *b, uint16_t id, uint64_t v, uint64_t dflt) {
  assert(b);
  tp__fb_add(b, id, v, 8, 0, v == dflt);
}
TPDEF void tp_fb_add_i64(tp_fb_builder *b, uint16_t id, int64_t v, int64_t dflt) {
  assert(b);
  tp__fb_add(b, id, (uint64_t)v, 8, 0, v == dflt);
}
/* Floats: default comparison is on the bits, so -0.0 is written against a default of 0.0 and
   a NaN against a NaN default only when the bits differ. */
TPDEF void tp_fb_add_f32(tp_fb_builder *b, uint16_t id, float v, float dflt) {
  uint32_t vb, db;
  assert(b);
  memcpy(&vb, &v, 4);
  memcpy(&db, &dflt, 4);
  tp__fb_add(b, id, vb, 4, 0, vb == db);
}
TPDEF void tp_fb_add_f64(tp_fb_builder *b, uint16_t id, double v, double dflt) {
  uint64_t vb, db;
  assert(b);
  memcpy(&vb, &v, 8);
  memcpy(&db, &dflt, 8);
  tp__fb_add(b, id, vb, 8, 0, vb == db);
}

TPDEF void tp_fb_add_ref(tp_fb_builder *b, uint16_t id, tp_fb_ref ref) {
  assert(b);
  if (ref == 0) return; /* absent field */
  if (ref > b->size) {
    if (tp__fb_ok(b, "tp_fb_add_ref")) tp__fb_check_ref(b, ref, "tp_fb_add_ref");
    return;
  }
  tp__fb_add(b, id, ref, 4, 1, 0);
}

TPDEF void tp_fb_add_union(tp_fb_builder *b, uint16_t id, uint8_t type, tp_fb_ref value) {
  assert(b);
  if (!tp__fb_ok(b, "tp_fb_add_union")) return;
  if (id == 0) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "union at field id 0: its type tag needs id - 1 (a union takes two ids)");
    return;
  }
  if ((type == 0) != (value == 0)) {
    tp_error_set(&b->err, TP_ERR_INVALID,
                 "union at field id %u: type %u with %s value (NONE goes with no value, any "
                 "other type needs one)",
                 (unsigned)id, (unsigned)type, value ? "a" : "no");
    return;
  }
  if (value) tp_fb_add_ref(b, id, value); /* the offset first (higher address), then the tag */
  tp__fb_add(b, (uint16_t)(id - 1), type, 1, 0, type == 0);
}

/* Remembers a new vtable; failure to grow the table is not an error (no dedup then). */
static void tp__fb_vt_insert(tp_fb_builder *b, uint32_t end, uint32_t h) {
  size_t mask, i;
  if ((b->vt_count + 1) * 2 > b->vt_cap) {
    size_t ncap = b->vt_cap ? b->vt_cap * 2 : 64, j;
    tp__fb_vtslot *nv;
    if (ncap > ((size_t)-1) / sizeof *nv) return;
    nv = (tp__fb_vtslot *)TP_MALLOC(ncap * sizeof *nv);
    if (!nv) return;
    memset(nv, 0, ncap * sizeof *nv);
    for (j = 0; j < b->vt_cap; j++) {
      if (!b->vt[j].end) continue;
      for (i = b->vt[j].hash & (ncap - 1); nv[i].end; i = (i + 1) & (ncap - 1)) {
      }
      nv[i] = b->vt[j];
    }
    TP_FREE(b->vt);
    b->vt = nv;
    b->vt_cap = ncap;
  }
  mask = b->vt_cap - 1;
  for (i = h & mask; b->vt[i].end; i = (i + 1) & mask) {
  }
  b->vt[i].end = end;
  b->vt[i].hash = h;
  b->vt_count++;
}

/* 1 when the vtable at old has the size, table size and entries given. */
static int tp__fb_vt_equal(const unsigned char *old, uint32_t vsize, uint32_t tsize,
                           const uint16_t *e, uint32_t nids) {
  uint32_t id;
  if (tp__fb_ld16(old) != vsize || tp__fb_ld16(old + 2) != tsize) return 0;
  for (id = 0; id < nids; id++)
    if (tp__fb_ld16(old + 4 + 2 * id) != e[id]) return 0;
  return 1;
}

TPDEF tp_fb_ref tp_fb_end_table(tp_fb_builder *b) {
  uint32_t tend, vend = 0, tsize, vsize, h, pad, id, nids, diff;
  size_t i, mask;
  const unsigned char *cand = NULL;
  uint32_t *slot;
  uint16_t *vts;
  assert(b);
  if (!tp__fb_ok(b, "tp_fb_end_table")) return 0;
  if (!b->in_table) {
    tp_error_set(&b->err, TP_ERR_INVALID, "tp_fb_end_table without tp_fb_start_table");
    return 0;
  }
  b->in_table = 0;
  nids = b->nids;
  vsize = 4u + 2u * nids;
  pad = tp__fb_padding(b->size, 4);
  tend = b->size + pad + 4; /* after the soffset */
  tsize = tend - b->table_start;
  h = b->thash + (vsize << 16 | tsize) * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  if (!h) h = 1;
  /* The first written vtable with this hash, sizes checked: usually the one. */
  mask = b->vt_cap - 1;
  i = h & mask;
  if (b->vt_cap) {
    for (; b->vt[i].end; i = (i + 1) & mask) {
      const unsigned char *old = b->buf + b->cap - b->vt[i].end;
      if (b->vt[i].hash == h && tp__fb_ld16(old) == vsize && tp__fb_ld16(old + 2) == tsize) {
        cand = old;
        vend = b->vt[i].end;
        break;
      }
    }
  }
  /* One pass over the ids: the entries (0 = absent), the slots cleared for the next table, the
     candidate compared. */
  slot = b->slot;
  vts = b->vts;
  diff = cand ? 0u : 1u;
  if (cand) {
    const unsigned char *ce = cand + 4;
    for (id = 0; id < nids; id++) {
      uint32_t e = slot[id];
      uint16_t off = (uint16_t)(e ? tend - e : 0u);
      slot[id] = 0;
      vts[id] = off;
      diff |= (uint32_t)(tp__fb_ld16(ce + 2 * id) ^ off);
    }
  } else {
    for (id = 0; id < nids; id++) {
      uint32_t e = slot[id];
      slot[id] = 0;
      vts[id] = (uint16_t)(e ? tend - e : 0u);
    }
  }
  if (tsize >= 0x10000u) {
    tp_error_set(&b->err, TP_ERR_OVERFLOW,
                 "table of %lu inline bytes is over the 65535-byte limit of a vtable",
                 (unsigned long)tsize);
    return 0;
  }
  if (diff) { /* a hash collision (rare): look further along the chain */
    vend = 0;
    if (cand) {
      for (i = (i + 1) & mask; b->vt[i].end; i = (i + 1) & mask) {
        if (b->vt[i].hash == h &&
            tp__fb_vt_equal(b->buf + b->cap - b->vt[i].end, vsize, tsize, vts, nids)) {
          vend = b->vt[i].end;
          break;
        }
      }
    }
  }
  if (!tp__fb_room(b, (uint64_t)pad + 4 + (vend ? 0u : vsize))) return 0;
  tp__fb_pad(b, pad);
  b->size = tend; /* the soffset, written below */
  if (b->minalign < 4) b->minalign = 4;
  if (!vend) {
    /* A new vtable, right before the table (vsize is even and we are 4-aligned). */
    unsigned char *vt;
    b->size += vsize;
    vt = tp__fb_front(b);
    tp__fb_st16(vt, (uint16_t)vsize);
    tp__fb_st16(vt + 2, (uint16_t)tsize);
    for (id = 0; id < nids; id++) tp__fb_st16(vt + 4 + 2 * id, vts[id]);
    vend = b->size;
    tp__fb_vt_insert(b, vend, h);
  }
  /* soffset = table position - vtable position, in buffer addresses. */
  tp__fb_st32(b->buf + b->cap - tend, (uint32_t)((int64_t)vend - (int64_t)tend));
  return tend;
}

TPDEF tp_status tp_fb_finish(tp_fb_builder *b, tp_fb_ref root, const char *identifier) {
  uint32_t head, pad;
  assert(b);
  if (!tp__fb_ok(b, "tp_fb_finish")) return b->err.status;
  if (b->in_table) {
    return tp_error_set(&b->err, TP_ERR_INVALID, "tp_fb_finish inside an open table");
  }
  if (!tp__fb_check_ref(b, root, "tp_fb_finish")) return b->err.status;
  if (identifier && strlen(identifier) != 4) {
    return tp_error_set(&b->err, TP_ERR_INVALID,
                        "file identifier \"%.16s\" is not 4 characters long", identifier);
  }
  head = identifier ? 8u : 4u;
  tp__fb_track(b, 4);
  pad = tp__fb_padding(b->size + head, b->minalign);
  if (!tp__fb_room(b, (uint64_t)head + pad)) return b->err.status;
  tp__fb_pad(b, pad);
  if (identifier) {
    b->size += 4;
    memcpy(tp__fb_front(b), identifier, 4);
  }
  tp__fb_put32(b, b->size + 4 - root);
  b->finished = 1;
  return TP_OK;
}

TPDEF const unsigned char *tp_fb_data(const tp_fb_builder *b, size_t *size) {
  assert(b);
  if (!b->finished || b->err.status != TP_OK) {
    if (size) *size = 0;
    return NULL;
  }
  if (size) *size = b->size;
  return b->buf + b->cap - b->size;
}

// >>fbreader
/* Every position is checked against the buffer before it is read; positions fit in 32 bits
   because a buffer over 2 GiB - 1 is refused by init. The rules are the official verifier's
   (uoffsets non-zero, below 2^31 and landing inside the buffer; tables 4-aligned with an
   even-sized vtable in range; scalars aligned to their size relative to the buffer start;
   strings NUL-terminated inside the buffer; vectors' counts 4-aligned and their bytes in
   range), plus rules of our own: a union's tag and value must agree, the elements of a
   non-empty vector are aligned to their size (the official verifier checks only the count
   word), and an element index must be below the count. */

static int tp__fb_rfail(tp_fb_reader *r) { return r->err.status != TP_OK; }

TPDEF tp_status tp_fb_reader_status(const tp_fb_reader *r) {
  assert(r);
  return r->err.status;
}

/* Opens the table at pos (reached at depth); returns an absent table on error. */
static tp_fb_table tp__fb_open_table(tp_fb_reader *r, uint64_t pos, unsigned depth) {
  tp_fb_table t;
  unsigned max_depth = r->max_depth ? r->max_depth : 64u;
  size_t max_tables = r->max_tables ? r->max_tables : 1000000u;
  int64_t vt;
  int32_t soff;
  uint16_t vsize;
  memset(&t, 0, sizeof t);
  t.r = r;
  if (tp__fb_rfail(r)) return t;
  if (depth > max_depth) {
    tp_error_set(&r->err, TP_ERR_FORMAT, "table at byte %llu is nested %u deep, over the limit %u",
                 (unsigned long long)pos, depth, max_depth);
    return t;
  }
  if (r->tables >= max_tables) {
    tp_error_set(&r->err, TP_ERR_FORMAT, "more than %llu tables in the buffer",
                 (unsigned long long)max_tables);
    return t;
  }
  r->tables++;
  if (pos % 4 != 0 || pos + 4 > r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %llu is %s (buffer of %llu bytes)", (unsigned long long)pos,
                 pos % 4 ? "not 4-aligned" : "outside the buffer", (unsigned long long)r->size);
    return t;
  }
  soff = (int32_t)tp_load_le32(r->buf + pos);
  vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || vt % 2 != 0 || (uint64_t)vt + 2 > r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %llu: its vtable at byte %lld is %s (buffer of %llu bytes)",
                 (unsigned long long)pos, (long long)vt,
                 (vt >= 0 && vt % 2 != 0) ? "not 2-aligned" : "outside the buffer",
                 (unsigned long long)r->size);
    return t;
  }
  vsize = tp_load_le16(r->buf + vt);
  if (vsize % 2 != 0 || (uint64_t)vt + vsize > r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %llu: vtable at byte %lld has size %u (%s; buffer of %llu bytes)",
                 (unsigned long long)pos, (long long)vt, (unsigned)vsize,
                 vsize % 2 ? "odd" : "past the end", (unsigned long long)r->size);
    return t;
  }
  t.pos = (uint32_t)pos;
  t.vtable = (uint32_t)vt;
  t.vtable_size = vsize;
  t.depth = (uint16_t)depth;
  return t;
}

TPDEF tp_status tp_fb_reader_init(tp_fb_reader *r, const void *buf, size_t size,
                                  const char *identifier, tp_fb_table *root) {
  uint32_t off;
  assert(r);
  r->buf = (const unsigned char *)buf;
  r->size = size;
  r->tables = 0;
  memset(&r->err, 0, sizeof r->err);
  if (root) memset(root, 0, sizeof *root);
  if (root) root->r = r;
  if (!buf && size) {
    return tp_error_set(&r->err, TP_ERR_INVALID, "NULL buffer of %llu bytes",
                        (unsigned long long)size);
  }
  if (size < 12) {
    return tp_error_set(&r->err, TP_ERR_FORMAT,
                        "buffer of %llu bytes is shorter than the 12-byte minimum",
                        (unsigned long long)size);
  }
  if (size > TP__FB_MAX_SIZE) {
    return tp_error_set(&r->err, TP_ERR_FORMAT,
                        "buffer of %llu bytes is over the FlatBuffers limit of %lu",
                        (unsigned long long)size, (unsigned long)TP__FB_MAX_SIZE);
  }
  if (identifier && strncmp((const char *)r->buf + 4, identifier, 4) != 0) {
    char got[5];
    int i;
    for (i = 0; i < 4; i++) {
      unsigned char c = r->buf[4 + i];
      got[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    got[4] = 0;
    return tp_error_set(&r->err, TP_ERR_FORMAT, "file identifier is \"%s\", expected \"%.4s\"",
                        got, identifier);
  }
  off = tp_load_le32(r->buf);
  if (off == 0 || off >= 0x80000000u || off >= size) {
    return tp_error_set(&r->err, TP_ERR_FORMAT,
                        "root offset %lu is not inside the %llu-byte buffer", (unsigned long)off,
                        (unsigned long long)size);
  }
  {
    tp_fb_table t = tp__fb_open_table(r, off, 1);
    if (root) *root = t;
  }
  return r->err.status;
}

/* Position of field id of t, checked for n bytes aligned to n; 0 when absent or on error. */
static uint32_t tp__fb_field_pos(const tp_fb_table *t, uint16_t id, unsigned n) {
  tp_fb_reader *r = t->r;
  uint32_t voff;
  uint64_t pos;
  uint16_t fo;
  if (!r || !t->pos || tp__fb_rfail(r)) return 0;
  voff = 4u + 2u * (uint32_t)id;
  if (voff + 2u > t->vtable_size) return 0;
  fo = tp_load_le16(r->buf + t->vtable + voff);
  if (!fo) return 0;
  pos = (uint64_t)t->pos + fo;
  if (pos % n != 0 || pos + n > r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %lu, field id %u: %u-byte value at byte %llu is %s (buffer of "
                 "%llu bytes)",
                 (unsigned long)t->pos, (unsigned)id, n, (unsigned long long)pos,
                 pos % n ? "misaligned" : "outside the buffer", (unsigned long long)r->size);
    return 0;
  }
  return (uint32_t)pos;
}

TPDEF int tp_fb_present(const tp_fb_table *t, uint16_t id) {
  uint32_t voff;
  assert(t);
  if (!t->r || !t->pos || tp__fb_rfail(t->r)) return 0;
  voff = 4u + 2u * (uint32_t)id;
  if (voff + 2u > t->vtable_size) return 0;
  return tp_load_le16(t->r->buf + t->vtable + voff) != 0;
}

TPDEF uint8_t tp_fb_u8(const tp_fb_table *t, uint16_t id, uint8_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 1);
  return p ? t->r->buf[p] : dflt;
}
TPDEF int8_t tp_fb_i8(const tp_fb_table *t, uint16_t id, int8_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 1);
  return p ? (int8_t)t->r->buf[p] : dflt;
}
TPDEF uint16_t tp_fb_u16(const tp_fb_table *t, uint16_t id, uint16_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 2);
  return p ? tp_load_le16(t->r->buf + p) : dflt;
}
TPDEF int16_t tp_fb_i16(const tp_fb_table *t, uint16_t id, int16_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 2);
  return p ? (int16_t)tp_load_le16(t->r->buf + p) : dflt;
}
TPDEF uint32_t tp_fb_u32(const tp_fb_table *t, uint16_t id, uint32_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 4);
  return p ? tp_load_le32(t->r->buf + p) : dflt;
}
TPDEF int32_t tp_fb_i32(const tp_fb_table *t, uint16_t id, int32_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 4);
  return p ? (int32_t)tp_load_le32(t->r->buf + p) : dflt;
}
TPDEF uint64_t tp_fb_u64(const tp_fb_table *t, uint16_t id, uint64_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 8);
  return p ? tp_load_le64(t->r->buf + p) : dflt;
}
TPDEF int64_t tp_fb_i64(const tp_fb_table *t, uint16_t id, int64_t dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 8);
  return p ? (int64_t)tp_load_le64(t->r->buf + p) : dflt;
}
TPDEF float tp_fb_bits_f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
TPDEF double tp_fb_bits_f64(uint64_t bits) {
  double d;
  memcpy(&d, &bits, 8);
  return d;
}
TPDEF float tp_fb_f32(const tp_fb_table *t, uint16_t id, float dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 4);
  return p ? tp_fb_bits_f32(tp_load_le32(t->r->buf + p)) : dflt;
}
TPDEF double tp_fb_f64(const tp_fb_table *t, uint16_t id, double dflt) {
  uint32_t p;
  assert(t);
  p = tp__fb_field_pos(t, id, 8);
  return p ? tp_fb_bits_f64(tp_load_le64(t->r->buf + p)) : dflt;
}

/* Follows the uoffset stored at pos (already checked readable and 4-aligned); 0 on error. */
static uint32_t tp__fb_follow(tp_fb_reader *r, uint32_t pos, const char *what) {
  uint32_t off = tp_load_le32(r->buf + pos);
  uint64_t target = (uint64_t)pos + off;
  if (off == 0 || off >= 0x80000000u || target >= r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "%s: offset %lu at byte %lu leads %s (buffer of %llu bytes)", what,
                 (unsigned long)off, (unsigned long)pos,
                 off == 0 ? "nowhere" : "outside the buffer", (unsigned long long)r->size);
    return 0;
  }
  return (uint32_t)target;
}

/* Checks a vector (or string, elem_size 1) at target; returns its count or sets an error. */
static int tp__fb_check_vector(tp_fb_reader *r, uint32_t target, size_t elem_size,
                               uint32_t *count_out, const char *what) {
  uint32_t count;
  uint64_t bytes;
  if (target % 4 != 0 || (uint64_t)target + 4 > r->size) {
    tp_error_set(&r->err, TP_ERR_FORMAT, "%s at byte %lu: length word %s (buffer of %llu bytes)",
                 what, (unsigned long)target, target % 4 ? "not 4-aligned" : "outside the buffer",
                 (unsigned long long)r->size);
    return 0;
  }
  count = tp_load_le32(r->buf + target);
  bytes = (uint64_t)count * elem_size; /* count < 2^32, elem_size <= 8: no overflow */
  if (bytes > r->size - target - 4) {
    tp_error_set(&r->err, TP_ERR_FORMAT,
                 "%s at byte %lu: %lu elements of %u bytes run past the end of the %llu-byte "
                 "buffer",
                 what, (unsigned long)target, (unsigned long)count, (unsigned)elem_size,
                 (unsigned long long)r->size);
    return 0;
  }
  *count_out = count;
  return 1;
}

/* A string at target: in range and NUL-terminated. */
static const char *tp__fb_string_at(tp_fb_reader *r, uint32_t target, size_t *len_out) {
  uint32_t len;
  if (!tp__fb_check_vector(r, target, 1, &len, "string")) return NULL;
  if ((uint64_t)target + 4 + len >= r->size || r->buf[target + 4 + len] != 0) {
    tp_error_set(&r->err, TP_ERR_FORMAT, "string at byte %lu (%lu bytes) is not NUL-terminated",
                 (unsigned long)target, (unsigned long)len);
    return NULL;
  }
  if (len_out) *len_out = len;
  return (const char *)(r->buf + target + 4);
}

TPDEF tp_fb_table tp_fb_table_field(const tp_fb_table *t, uint16_t id) {
  tp_fb_table none;
  uint32_t p, target;
  assert(t);
  memset(&none, 0, sizeof none);
  none.r = t->r;
  p = tp__fb_field_pos(t, id, 4);
  if (!p) return none;
  target = tp__fb_follow(t->r, p, "table field");
  if (!target) return none;
  return tp__fb_open_table(t->r, target, (unsigned)t->depth + 1u);
}

TPDEF tp_fb_table tp_fb_union_field(const tp_fb_table *t, uint16_t id, uint8_t *type_out) {
  tp_fb_table none, v;
  uint8_t tag;
  int has_value;
  assert(t);
  memset(&none, 0, sizeof none);
  none.r = t->r;
  if (type_out) *type_out = 0;
  if (id == 0) {
    if (t->r) tp_error_set(&t->r->err, TP_ERR_INVALID, "union at field id 0 (its tag needs id - 1)");
    return none;
  }
  tag = tp_fb_u8(t, (uint16_t)(id - 1), 0);
  has_value = tp_fb_present(t, id);
  if (!t->r || tp__fb_rfail(t->r)) return none;
  if ((tag == 0) != (has_value == 0)) {
    tp_error_set(&t->r->err, TP_ERR_FORMAT,
                 "table at byte %lu, union at field id %u: type %u with %s value",
                 (unsigned long)t->pos, (unsigned)id, (unsigned)tag, has_value ? "a" : "no");
    return none;
  }
  if (!tag) return none;
  v = tp_fb_table_field(t, id);
  if (!v.pos) return none;
  if (type_out) *type_out = tag;
  return v;
}

TPDEF const char *tp_fb_string(const tp_fb_table *t, uint16_t id, size_t *len_out) {
  uint32_t p, target;
  assert(t);
  if (len_out) *len_out = 0;
  p = tp__fb_field_pos(t, id, 4);
  if (!p) return NULL;
  target = tp__fb_follow(t->r, p, "string field");
  if (!target) return NULL;
  return tp__fb_string_at(t->r, target, len_out);
}

TPDEF tp_fb_vector tp_fb_vector_field(const tp_fb_table *t, uint16_t id, size_t elem_size) {
  tp_fb_vector v;
  uint32_t p, target, count;
  assert(t);
  memset(&v, 0, sizeof v);
  v.r = t->r;
  v.depth = t->depth;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
    if (t->r)
      tp_error_set(&t->r->err, TP_ERR_INVALID, "vector element size %llu is not 1, 2, 4 or 8",
                   (unsigned long long)elem_size);
    return v;
  }
  v.elem_size = (uint16_t)elem_size;
  p = tp__fb_field_pos(t, id, 4);
  if (!p) return v;
  target = tp__fb_follow(t->r, p, "vector field");
  if (!target) return v;
  if (!tp__fb_check_vector(t->r, target, elem_size, &count, "vector")) return v;
  if (count && (target + 4u) % elem_size != 0) {
    tp_error_set(&t->r->err, TP_ERR_FORMAT,
                 "vector at byte %lu: its %u-byte elements start at byte %lu, misaligned",
                 (unsigned long)target, (unsigned)elem_size, (unsigned long)target + 4u);
    return v;
  }
  v.pos = target + 4;
  v.count = count;
  return v;
}

/* Position of element i, or 0 with an error. */
static uint32_t tp__fb_elem(const tp_fb_vector *v, size_t i, int want_ref) {
  if (!v->r || tp__fb_rfail(v->r)) return 0;
  if (i >= v->count || !v->pos) {
    tp_error_set(&v->r->err, TP_ERR_BOUNDS, "vector element %llu of %lu",
                 (unsigned long long)i, (unsigned long)v->count);
    return 0;
  }
  if (want_ref && v->elem_size != 4) {
    tp_error_set(&v->r->err, TP_ERR_INVALID,
                 "vector of %u-byte elements read as offsets (needs 4)", (unsigned)v->elem_size);
    return 0;
  }
  return v->pos + (uint32_t)i * v->elem_size;
}

TPDEF uint64_t tp_fb_vector_scalar(const tp_fb_vector *v, size_t i) {
  uint32_t p;
  const unsigned char *q;
  assert(v);
  p = tp__fb_elem(v, i, 0);
  if (!p) return 0;
  q = v->r->buf + p;
  switch (v->elem_size) {
  case 1: return q[0];
  case 2: return tp_load_le16(q);
  case 4: return tp_load_le32(q);
  default: return tp_load_le64(q);
  }
}

TPDEF tp_fb_table tp_fb_vector_table(const tp_fb_vector *v, size_t i) {
  tp_fb_table none;
  uint32_t p, target;
  assert(v);
  memset(&none, 0, sizeof none);
  none.r = v->r;
  p = tp__fb_elem(v, i, 1);
  if (!p) return none;
  target = tp__fb_follow(v->r, p, "vector element");
  if (!target) return none;
  return tp__fb_open_table(v->r, target, (unsigned)v->depth + 1u);
}

TPDEF const char *tp_fb_vector_string(const tp_fb_vector *v, size_t i, size_t *len_out) {
  uint32_t p, target;
  assert(v);
  if (len_out) *len_out = 0;
  p = tp__fb_elem(v, i, 1);
  if (!p) return NULL;
  target = tp__fb_follow(v->r, p, "vector element");
  if (!target) return NULL;
  return tp__fb_string_at(v->r, target, len_out);
}
