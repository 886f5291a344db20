/* Section 8 of tensorpack.h (named data store and .ptd files). Kept in its own file while it is
   being written; it is inlined into tensorpack.h at integration. Included inside extern "C". */

typedef struct tp_store tp_store;

TPDEF tp_status tp_store_create(tp_store **out);
TPDEF void tp_store_destroy(tp_store *s);
/* The first failure as a sentence, or "". */
TPDEF const char *tp_store_error(const tp_store *s);

/* Adds a tensor entry: its compact bytes in `order` (the view is borrowed until the store is
   written) and a tensor layout (ScalarType, sizes, dim_order). key == NULL: the lowercase hex
   SHA-256 of the compact bytes. The same key twice: stored once if the bytes are equal,
   TP_ERR_INVALID if not. alignment 0 = 16 (a power of two). *key_out (may be NULL) is owned
   by the store. */
TPDEF tp_status tp_store_add(tp_store *s, const char *key_or_NULL, const tp_tensor *t,
                             tp_order order, size_t alignment, const char **key_out);
/* Adds raw bytes with no tensor layout. copy != 0: the store keeps its own copy; copy == 0:
   borrowed until the store is written. */
TPDEF tp_status tp_store_add_bytes(tp_store *s, const char *key_or_NULL, const void *data,
                                   size_t n, size_t alignment, int copy, const char **key_out);
/* Number of distinct entries. */
TPDEF size_t tp_store_count(const tp_store *s);

/* Writes an ExecuTorch FlatTensor (.ptd) file, streaming the segments. */
TPDEF tp_status tp_store_write_ptd(tp_store *s, tp_sink *sink);
/* Exact size tp_store_write_ptd will write. */
TPDEF tp_status tp_store_ptd_size(tp_store *s, uint64_t *size_out);
#ifndef TP_NO_STDIO
TPDEF tp_status tp_store_write_ptd_file(tp_store *s, const char *path); /* atomic */
#endif

/* ---- .ptd reader (bounds-checked, no verifier needed) ----------------------------------- */
typedef struct tp_ptd {
  const unsigned char *data;
  size_t size;
  uint64_t flatbuffer_offset, flatbuffer_size, segment_base, segment_data_size;
  uint32_t version;
  size_t count;         /* named entries */
  tp_error err;
  /* private */
  tp_fb_reader r__;
  tp_fb_table root__;
} tp_ptd;

typedef struct tp_ptd_entry {
  const char *key;
  const void *data;     /* points into the file bytes */
  size_t nbytes;
  uint32_t segment_index;
  int has_layout;
  tp_dtype dtype;       /* ScalarType code as stored */
  int ndim;
  int64_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
} tp_ptd_entry;

/* Parses and checks the headers and every entry; the bytes must stay alive. */
TPDEF tp_status tp_ptd_open(tp_ptd *p, const void *data, size_t size);
TPDEF tp_status tp_ptd_entry_at(tp_ptd *p, size_t i, tp_ptd_entry *e);
/* TP_ERR_INVALID (message names the key) when the key is not there. */
TPDEF tp_status tp_ptd_find(tp_ptd *p, const char *key, tp_ptd_entry *e);
