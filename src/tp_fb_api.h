/* Section 7 of tensorpack.h (FlatBuffers builder and reader). Kept in its own file while it is
   being written; it is inlined into tensorpack.h at integration. Included inside extern "C". */

/* ---- builder ----------------------------------------------------------------------------
   Back to front, like the official builder: build children first (strings, vectors, tables),
   then the table that refers to them. A tp_fb_ref names an object already built (its distance
   from the end of the buffer); 0 means "none" and makes an add_ref a no-op (field absent).
   The first failure sticks: every later call is a no-op returning 0, and finish reports it:
   TP_ERR_INVALID for misuse (a table started inside a table, end without start, a field id
   added twice to one table or over 32764, a field outside a table, a string or vector created
   while a table is open, a ref that names nothing, a union whose type and value disagree, an
   identifier that is not 4 characters, building after finish), TP_ERR_OVERFLOW when the
   buffer would pass 2^31 - 1 bytes (never a wrap-around) or a table's inline part 64 KiB,
   TP_ERR_NOMEM. Identical vtables are stored once (found through a hash table: no quadratic
   work). Output is deterministic: the same calls give the same bytes. Nothing recurses. */
typedef uint32_t tp_fb_ref;
typedef struct tp_fb_builder tp_fb_builder;

/* TP_ERR_INVALID for a NULL out, TP_ERR_NOMEM. */
TPDEF tp_status tp_fb_builder_create(tp_fb_builder **out);
TPDEF void tp_fb_builder_destroy(tp_fb_builder *b);
/* Forget everything built so far, keep the memory. */
TPDEF void tp_fb_builder_reset(tp_fb_builder *b);
TPDEF tp_status tp_fb_status(const tp_fb_builder *b);
/* The first failure as a sentence, or "". */
TPDEF const char *tp_fb_error(const tp_fb_builder *b);
/* When on, scalars equal to their default are written anyway (off by default). Scalars are
   compared with their default bit for bit (a float -0.0 differs from a default of 0.0). */
TPDEF void tp_fb_force_defaults(tp_fb_builder *b, int on);
/* Lowers the size limit of the buffer (0 or anything larger = FlatBuffers' 2^31 - 1 bytes).
   Growing past it is TP_ERR_OVERFLOW. For tests and for callers with a tighter budget. */
TPDEF void tp_fb_set_max_size(tp_fb_builder *b, size_t max_size);
/* Bytes built so far (after finish: the finished size). */
TPDEF size_t tp_fb_size(const tp_fb_builder *b);

TPDEF tp_fb_ref tp_fb_create_string(tp_fb_builder *b, const char *s, size_t len);
/* Vector of scalars: count elements of elem_size (1, 2, 4 or 8) bytes in host order, written
   little-endian and aligned to max(4, elem_size) (so 8-byte elements put the count at 8k+4).
   An empty vector is only its 4-aligned count, as the official builder writes it. */
TPDEF tp_fb_ref tp_fb_create_vector(tp_fb_builder *b, const void *elems, size_t count,
                                    size_t elem_size);
/* Vector of tables or strings (refs must all be non-zero). */
TPDEF tp_fb_ref tp_fb_create_vector_refs(tp_fb_builder *b, const tp_fb_ref *refs, size_t count);

/* Tables: start, add fields, end. Tables do not nest and nothing else is created while one is
   open: build children (strings, vectors, tables) first. Fields are written in the order they
   are added, each aligned to its size, the first at the highest address, as the official
   builder does: adding the largest first (8-byte, then 4-byte and offsets, then 2, then 1 byte;
   within a size by descending id), as flatc's generated Create<Table>() functions do, gives
   the most compact table and the same bytes as the official builder. */
TPDEF void tp_fb_start_table(tp_fb_builder *b);
TPDEF void tp_fb_add_u8(tp_fb_builder *b, uint16_t id, uint8_t v, uint8_t dflt);
TPDEF void tp_fb_add_i8(tp_fb_builder *b, uint16_t id, int8_t v, int8_t dflt);
TPDEF void tp_fb_add_u16(tp_fb_builder *b, uint16_t id, uint16_t v, uint16_t dflt);
TPDEF void tp_fb_add_i16(tp_fb_builder *b, uint16_t id, int16_t v, int16_t dflt);
TPDEF void tp_fb_add_u32(tp_fb_builder *b, uint16_t id, uint32_t v, uint32_t dflt);
TPDEF void tp_fb_add_i32(tp_fb_builder *b, uint16_t id, int32_t v, int32_t dflt);
TPDEF void tp_fb_add_u64(tp_fb_builder *b, uint16_t id, uint64_t v, uint64_t dflt);
TPDEF void tp_fb_add_i64(tp_fb_builder *b, uint16_t id, int64_t v, int64_t dflt);
TPDEF void tp_fb_add_f32(tp_fb_builder *b, uint16_t id, float v, float dflt);
TPDEF void tp_fb_add_f64(tp_fb_builder *b, uint16_t id, double v, double dflt);
/* An offset field (string, vector or table); ref == 0 leaves the field absent. */
TPDEF void tp_fb_add_ref(tp_fb_builder *b, uint16_t id, tp_fb_ref ref);
/* A union: the value goes to field id, then the u8 type tag to field id-1. type 0 (NONE)
   goes with value 0 and writes nothing (unless defaults are forced); anything else with a
   value of 0, or type 0 with a value, is TP_ERR_INVALID. */
TPDEF void tp_fb_add_union(tp_fb_builder *b, uint16_t id, uint8_t type, tp_fb_ref value);
TPDEF tp_fb_ref tp_fb_end_table(tp_fb_builder *b);

/* Writes the root offset and the 4-character file identifier (NULL: none) and pads the buffer
   to the largest alignment used. */
TPDEF tp_status tp_fb_finish(tp_fb_builder *b, tp_fb_ref root, const char *identifier);
/* The finished bytes (valid until the builder is reset or destroyed); NULL (size 0) before
   finish or after a failure. The size is a multiple of the largest alignment used. */
TPDEF const unsigned char *tp_fb_data(const tp_fb_builder *b, size_t *size);

/* ---- reader ------------------------------------------------------------------------------
   Every access is bounds-checked. Errors stick in the reader (the first one, as
   TP_ERR_FORMAT and a sentence); a failed access returns the default / an absent object, so a
   caller may read a whole structure and check tp_fb_reader_status once. Zero-initialise the
   reader (or set max_depth / max_tables) before tp_fb_reader_init; init keeps those two.
   Rules: the official verifier's (uoffsets non-zero, < 2^31 and inside the buffer; tables
   4-aligned with an even-sized vtable inside the buffer; scalars aligned to their size relative
   to the buffer start; strings NUL-terminated inside the buffer; vector counts 4-aligned and
   count * elem_size bytes inside the buffer; depth and table-count limits), checked lazily on
   each access, plus: a union's tag and value must agree (both absent or both present), and a
   non-empty vector's elements must be aligned to their size (the verifier lets misaligned
   8-byte elements through; flatc never writes them). An
   index past a vector's count is TP_ERR_BOUNDS; a wrong elem_size or union id 0 is
   TP_ERR_INVALID; everything else wrong is TP_ERR_FORMAT. Getters on an absent table (pos 0)
   return defaults without an error. */
typedef struct tp_fb_reader {
  const unsigned char *buf;
  size_t size;
  unsigned max_depth;   /* 0 = 64 */
  size_t max_tables;    /* 0 = 1000000 */
  size_t tables;        /* tables visited so far */
  tp_error err;
} tp_fb_reader;

typedef struct tp_fb_table {
  tp_fb_reader *r;
  uint32_t pos;         /* 0 = absent */
  uint32_t vtable;
  uint16_t vtable_size;
  uint16_t depth;
} tp_fb_table;

typedef struct tp_fb_vector {
  tp_fb_reader *r;
  uint32_t pos;         /* first element; 0 = absent */
  uint32_t count;
  uint16_t elem_size;
  uint16_t depth;
} tp_fb_vector;

/* Checks the header (size, root offset, identifier when not NULL) and returns the root table. */
TPDEF tp_status tp_fb_reader_init(tp_fb_reader *r, const void *buf, size_t size,
                                  const char *identifier, tp_fb_table *root);
TPDEF tp_status tp_fb_reader_status(const tp_fb_reader *r);
TPDEF int tp_fb_present(const tp_fb_table *t, uint16_t id);
TPDEF uint8_t tp_fb_u8(const tp_fb_table *t, uint16_t id, uint8_t dflt);
TPDEF int8_t tp_fb_i8(const tp_fb_table *t, uint16_t id, int8_t dflt);
TPDEF uint16_t tp_fb_u16(const tp_fb_table *t, uint16_t id, uint16_t dflt);
TPDEF int16_t tp_fb_i16(const tp_fb_table *t, uint16_t id, int16_t dflt);
TPDEF uint32_t tp_fb_u32(const tp_fb_table *t, uint16_t id, uint32_t dflt);
TPDEF int32_t tp_fb_i32(const tp_fb_table *t, uint16_t id, int32_t dflt);
TPDEF uint64_t tp_fb_u64(const tp_fb_table *t, uint16_t id, uint64_t dflt);
TPDEF int64_t tp_fb_i64(const tp_fb_table *t, uint16_t id, int64_t dflt);
TPDEF float tp_fb_f32(const tp_fb_table *t, uint16_t id, float dflt);
TPDEF double tp_fb_f64(const tp_fb_table *t, uint16_t id, double dflt);
/* Sub-table; .pos == 0 when absent or on error. */
TPDEF tp_fb_table tp_fb_table_field(const tp_fb_table *t, uint16_t id);
/* Union at ids id-1 (tag) and id (value); *type_out = 0 when absent. */
TPDEF tp_fb_table tp_fb_union_field(const tp_fb_table *t, uint16_t id, uint8_t *type_out);
/* String: NUL-terminated inside the buffer; NULL when absent or on error. */
TPDEF const char *tp_fb_string(const tp_fb_table *t, uint16_t id, size_t *len_out);
/* Vector of elem_size-byte elements (scalars: 1/2/4/8; tables and strings: 4). */
TPDEF tp_fb_vector tp_fb_vector_field(const tp_fb_table *t, uint16_t id, size_t elem_size);
/* Element i of a scalar vector, zero-extended (sign-extend yourself for signed types). */
TPDEF uint64_t tp_fb_vector_scalar(const tp_fb_vector *v, size_t i);
TPDEF tp_fb_table tp_fb_vector_table(const tp_fb_vector *v, size_t i);
TPDEF const char *tp_fb_vector_string(const tp_fb_vector *v, size_t i, size_t *len_out);
/* Float bit casts for vector elements. */
TPDEF float tp_fb_bits_f32(uint32_t bits);
TPDEF double tp_fb_bits_f64(uint64_t bits);
