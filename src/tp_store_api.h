/* Section 8 of tensorpack.h (named data store and .ptd files). Kept in its own file while it is
   being written; it is inlined into tensorpack.h at integration. Included inside extern "C".

   A tp_store collects named constants the way ExecuTorch's NamedDataStore does, and writes
   them as a FlatTensor (.ptd) file that ExecuTorch's FlatTensorDataMap loads:
     - each entry has a key, bytes (a borrowed view streamed at write time, or raw bytes), an
       alignment and, for a view, a tensor layout (ScalarType = tp_dtype code, sizes,
       dim_order);
     - a NULL key means the lowercase hex SHA-256 of the bytes (ExecuTorch's naming);
     - entries whose bytes are equal (same length and SHA-256) share one segment; named_data
       keeps one record per key, in the order keys were first added;
     - segment_base_offset is aligned to max(128, largest entry alignment) and each segment's
       offset from the base to its entry's alignment (the strictest one when entries share it),
       so every alignment holds for absolute file offsets too.
   Errors stick: the first failure (bad view, key collision, sink failure) is kept with a
   sentence (tp_store_error) and every later call on the store returns it.
   Thread safety: none inside one store; different stores are independent. */

typedef struct tp_store tp_store;

/* A new empty store. Errors: TP_ERR_INVALID (out == NULL), TP_ERR_NOMEM. */
TPDEF tp_status tp_store_create(tp_store **out);
/* Frees the store, its keys and its copies (never the borrowed views). NULL is a no-op. */
TPDEF void tp_store_destroy(tp_store *s);
/* The first failure as a sentence, or "". */
TPDEF const char *tp_store_error(const tp_store *s);

/* Adds a tensor entry: its compact bytes in `order` and a tensor layout.
   ROW_MAJOR: row-major bytes, dim_order (0, 1, .., n-1). PRESERVE: the bytes in
   tp_dim_order(t)'s order and that dim_order (a channels_last slice -> channels_last bytes,
   dim_order (0, 2, 3, 1)); sizes are always the logical sizes.
   The view is borrowed: its storage must stay alive and unchanged until the store is written
   (the bytes are streamed through SHA-256 now and through the sink at write time).
   key == NULL: the key is the lowercase hex SHA-256 of the compact bytes. The same key again:
   stored once when the bytes are equal (the first entry's layout stays, the larger alignment
   wins), TP_ERR_INVALID naming the key when they differ. alignment 0 = 16; otherwise a power
   of two up to 2^24 (16 MiB). *key_out (may be NULL) receives the key, owned by the store and
   valid until it is destroyed.
   Errors: TP_ERR_INVALID (NULL t, bad order, bad alignment, different bytes under one key),
   whatever tp_tensor_check reports for a bad view (TP_ERR_BOUNDS, ...),
   TP_ERR_UNSUPPORTED (a size above INT32_MAX: .ptd layouts hold int32 sizes), TP_ERR_NOMEM. */
TPDEF tp_status tp_store_add(tp_store *s, const char *key_or_NULL, const tp_tensor *t,
                             tp_order order, size_t alignment, const char **key_out);
/* Adds raw bytes with no tensor layout. copy != 0: the store keeps its own copy (none is made
   when an entry with equal bytes is already there); copy == 0: borrowed until the store is
   written. Keys, dedup, alignment and errors as tp_store_add (NULL data with n > 0 is
   TP_ERR_INVALID). */
TPDEF tp_status tp_store_add_bytes(tp_store *s, const char *key_or_NULL, const void *data,
                                   size_t n, size_t alignment, int copy, const char **key_out);
/* Number of distinct keys. */
TPDEF size_t tp_store_count(const tp_store *s);

/* Writes the FlatTensor (.ptd) file into sink: the flatbuffer prefix (root offset + 48,
   "FT01"), the FH01 header (u32 length 40, u64 flatbuffer_offset 48, u64 flatbuffer_size,
   u64 segment_base_offset, u64 segment_data_size), padding, the rest of the flatbuffer,
   padding, then the segments, each view streamed with tp_compact_write (memory use does not
   grow with the data size). The same bytes on every host. The store stays usable (more adds,
   another write) unless a failure occurred. */
TPDEF tp_status tp_store_write_ptd(tp_store *s, tp_sink *sink);
/* Exact number of bytes tp_store_write_ptd writes (builds the flatbuffer; cached until the
   next add). */
TPDEF tp_status tp_store_ptd_size(tp_store *s, uint64_t *size_out);
#ifndef TP_NO_STDIO
/* tp_store_write_ptd into path through tp_atomic_write: an error leaves no file. */
TPDEF tp_status tp_store_write_ptd_file(tp_store *s, const char *path);
#endif

/* ---- .ptd reader (bounds-checked, no verifier needed) -----------------------------------
   tp_ptd_open checks, against the byte count: the 64-byte head, "FT01" and the FH01 header
   (length >= 40), flatbuffer_offset + flatbuffer_size and segment_base + segment_data_size
   inside the file (no 64-bit wrap) with the segments after the flatbuffer; the flatbuffer
   (bytes [0, flatbuffer_offset + flatbuffer_size)) through the bounds-checked reader, version 0,
   segments and named_data present; and every named_data entry: a key string without a NUL
   byte inside (no C string could name it), segment_index < segment count, the segment's
   offset + size within segment_data_size, and when a layout is present: a scalar type
   tensorpack knows, sizes and dim_order present with the same count <= TP_MAX_DIMS,
   sizes >= 0, dim_order a permutation, numel * element size == segment size.
   Anything else is TP_ERR_FORMAT with a sentence in p->err; nothing is read outside the bytes.
   The bytes must stay alive while entries are used (entry pointers point into them); they need
   no particular alignment (entry data is as aligned as data + its file offset). */
typedef struct tp_ptd {
  const unsigned char *data;
  size_t size;
  uint64_t flatbuffer_offset, flatbuffer_size, segment_base, segment_data_size;
  uint32_t version;
  size_t count;         /* named entries */
  tp_error err;         /* the open failure (sticky: every later call returns it) */
  tp_error last_lookup; /* why the last tp_ptd_find / tp_ptd_entry_at failed (not sticky) */
  /* private */
  tp_fb_reader r__;
  tp_fb_table root__;
  uint32_t *index__;    /* tp_ptd_index's slots (caller memory), or NULL */
  size_t index_cap__;
} tp_ptd;

typedef struct tp_ptd_entry {
  const char *key;      /* NUL-terminated, inside the file bytes */
  const void *data;     /* points into the file bytes */
  size_t nbytes;
  uint32_t segment_index;
  int has_layout;       /* 0: raw bytes; the fields below are then 0 */
  tp_dtype dtype;       /* ScalarType code as stored */
  int ndim;
  int64_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
} tp_ptd_entry;

/* Parses and checks the headers and every entry (above). Errors: TP_ERR_FORMAT,
   TP_ERR_INVALID (NULL data with size > 0). */
TPDEF tp_status tp_ptd_open(tp_ptd *p, const void *data, size_t size);
/* Entry i (0 <= i < p->count, in file order). TP_ERR_INVALID when i is out of range. */
TPDEF tp_status tp_ptd_entry_at(tp_ptd *p, size_t i, tp_ptd_entry *e);
/* The entry under key: a linear scan (O(count) per lookup; the reader allocates nothing), or a
   hash lookup after tp_ptd_index; with duplicate keys in a file (tp_store never writes them)
   the first one wins either way.
   TP_ERR_INVALID, with p->last_lookup naming the key, when it is not there. */
TPDEF tp_status tp_ptd_find(tp_ptd *p, const char *key, tp_ptd_entry *e);
/* Optional, for many lookups in a big file: a hash index for tp_ptd_find in caller memory.
   tp_ptd_index_slots(p) is the number of uint32_t slots it needs (a power of two >= 2 * count;
   0 for an opened file without entries or a failed open). The slots must stay alive, unchanged,
   as long as p is used. Errors: TP_ERR_INVALID (slots too few, or NULL with a need > 0), the
   open failure. */
TPDEF size_t tp_ptd_index_slots(const tp_ptd *p);
TPDEF tp_status tp_ptd_index(tp_ptd *p, uint32_t *slots, size_t nslots);
