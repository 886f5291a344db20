/* tensorpack.h - v0.1 - exact tensor bytes for ExecuTorch backend blobs - public domain or MIT

   Do this:
      #define TENSORPACK_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

   MANUAL (filled in by the core section; see README.md for the quick start)

   LICENSE: see the end of this file (MIT or public domain, your choice).
*/
#ifndef TENSORPACK_H
#define TENSORPACK_H

#include <stddef.h>
#include <stdint.h>
#ifndef TP_NO_STDIO
#include <stdio.h>
#endif

#ifndef TPDEF
#ifdef TENSORPACK_STATIC
#define TPDEF static
#else
#define TPDEF extern
#endif
#endif

#ifndef TP_MAX_DIMS
#define TP_MAX_DIMS 16
#endif

#if defined(TP_MALLOC) && defined(TP_REALLOC) && defined(TP_FREE)
/* all three given */
#elif !defined(TP_MALLOC) && !defined(TP_REALLOC) && !defined(TP_FREE)
#include <stdlib.h>
#define TP_MALLOC(n) malloc(n)
#define TP_REALLOC(p, n) realloc(p, n)
#define TP_FREE(p) free(p)
#else
#error "tensorpack: define all of TP_MALLOC, TP_REALLOC and TP_FREE, or none"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TP__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TP__PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* 1. Status                                                                                   */
/* ------------------------------------------------------------------------------------------ */

#define TP_STATUS_LIST(X)                                                                      \
  X(TP_OK, "ok")                                                                               \
  X(TP_ERR_INVALID, "invalid argument")                                                        \
  X(TP_ERR_BOUNDS, "out of bounds")                                                            \
  X(TP_ERR_OVERFLOW, "arithmetic overflow")                                                    \
  X(TP_ERR_NOMEM, "out of memory")                                                             \
  X(TP_ERR_IO, "i/o error")                                                                    \
  X(TP_ERR_UNSUPPORTED, "unsupported")                                                         \
  X(TP_ERR_FORMAT, "malformed input")

typedef enum tp_status {
#define TP__STATUS_ENUM(name, text) name,
  TP_STATUS_LIST(TP__STATUS_ENUM)
#undef TP__STATUS_ENUM
  TP_STATUS_COUNT__
} tp_status;

/* A short English name for s ("out of bounds"); never NULL. */
TPDEF const char *tp_status_str(tp_status s);

/* The first failure of an object, as a status plus a sentence naming the value and the numbers.
   Zero-initialised = no failure. */
#define TP_ERROR_MAX 256
typedef struct tp_error {
  tp_status status;
  char msg[TP_ERROR_MAX];
} tp_error;

/* Records a failure in e unless e already holds one (the first failure sticks). Returns
   e->status afterwards (the first failure's status). e may be NULL: then it just returns s. */
TPDEF tp_status tp_error_set(tp_error *e, tp_status s, const char *fmt, ...) TP__PRINTF(3, 4);

/* ------------------------------------------------------------------------------------------ */
/* 2. dtypes                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Numbered as ExecuTorch's ScalarType. */
typedef enum tp_dtype {
  TP_U8 = 0, TP_I8 = 1, TP_I16 = 2, TP_I32 = 3, TP_I64 = 4, TP_F16 = 5, TP_F32 = 6, TP_F64 = 7,
  TP_BOOL = 11, TP_BF16 = 15
} tp_dtype;

/* Bytes per element, or 0 for a value that is not a tp_dtype. */
TPDEF size_t tp_dtype_size(tp_dtype t);
/* "f32", "bf16", ... or "?" for an unknown value. */
TPDEF const char *tp_dtype_name(tp_dtype t);

/* Conversions, round-to-nearest-even, bit-equal to PyTorch for every non-NaN input; a NaN
   becomes a quiet NaN with the same sign. */
TPDEF uint16_t tp_f32_to_bf16(float f);
TPDEF uint16_t tp_f32_to_f16(float f);
TPDEF float tp_bf16_to_f32(uint16_t h);
TPDEF float tp_f16_to_f32(uint16_t h);

/* ------------------------------------------------------------------------------------------ */
/* 3. Storage and views                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* Borrowed memory: tensorpack never frees or writes it. */
typedef struct tp_storage {
  const void *data;
  size_t nbytes;
} tp_storage;

/* A strided view into a storage. Strides and offset count elements, as in PyTorch; a stride may
   be 0 (broadcast) or negative (flip). Build one with tp_view(); a hand-filled struct is checked
   again by everything that reads it (tp_tensor_check). */
typedef struct tp_tensor {
  tp_storage storage;
  tp_dtype dtype;
  int ndim;
  int64_t sizes[TP_MAX_DIMS];
  int64_t strides[TP_MAX_DIMS];
  int64_t offset;
} tp_tensor;

/* Makes a validated view. strides == NULL means row-major. Errors: TP_ERR_INVALID (NULL out,
   ndim outside 0..TP_MAX_DIMS, negative size, unknown dtype, NULL data with nbytes > 0),
   TP_ERR_BOUNDS (an addressed element outside the storage), TP_ERR_OVERFLOW. */
TPDEF tp_status tp_view(tp_storage s, tp_dtype dt, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset, tp_tensor *out);

/* Checks any tp_tensor (also hand-filled ones) as tp_view does; on failure writes a sentence
   into err (when err != NULL) such as "view reaches byte 4160 of a 4096-byte storage". */
TPDEF tp_status tp_tensor_check(const tp_tensor *t, tp_error *err);

/* View ops: each checks its input and arguments and returns a validated view. Negative dims
   are not accepted (dim must be in 0..ndim-1). out may alias t. */
TPDEF tp_status tp_select(const tp_tensor *t, int dim, int64_t index, tp_tensor *out);
TPDEF tp_status tp_narrow(const tp_tensor *t, int dim, int64_t start, int64_t length,
                          tp_tensor *out);
/* Python-like t[start:stop:step] along dim, step >= 1; start/stop are clamped like Python
   slices, negative values count from the end. */
TPDEF tp_status tp_slice(const tp_tensor *t, int dim, int64_t start, int64_t stop, int64_t step,
                         tp_tensor *out);
TPDEF tp_status tp_transpose(const tp_tensor *t, int d0, int d1, tp_tensor *out);
/* out dim i is t's dim perm[i]; perm has t->ndim entries. */
TPDEF tp_status tp_permute(const tp_tensor *t, const int *perm, tp_tensor *out);
/* torch.chunk: chunk `index` of `chunks` pieces of ceil(size / chunks) along dim. */
TPDEF tp_status tp_chunk(const tp_tensor *t, int chunks, int dim, int index, tp_tensor *out);
TPDEF tp_status tp_flip(const tp_tensor *t, int dim, tp_tensor *out);
/* torch.expand: new leading dims and size-1 dims become stride-0 broadcasts; -1 keeps a size. */
TPDEF tp_status tp_expand(const tp_tensor *t, int ndim, const int64_t *sizes, tp_tensor *out);

TPDEF int64_t tp_numel(const tp_tensor *t);
/* numel * element size (the compact byte count). */
TPDEF size_t tp_nbytes(const tp_tensor *t);
/* Row-major dense, as PyTorch's is_contiguous(). */
TPDEF int tp_is_contiguous(const tp_tensor *t);
/* Non-overlapping and dense in some dim order (stride magnitudes), as PyTorch's
   is_non_overlapping_and_dense(). */
TPDEF int tp_is_dense(const tp_tensor *t);
/* The dim order PRESERVE writes in (outermost first), PyTorch's rule. */
TPDEF tp_status tp_dim_order(const tp_tensor *t, uint8_t *order_out);
/* First byte and one past the last byte of the storage the view touches; both 0 for an
   empty view. */
TPDEF tp_status tp_span(const tp_tensor *t, size_t *begin, size_t *end);

/* ------------------------------------------------------------------------------------------ */
/* 4. Sinks                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct tp_sink {
  tp_status (*write)(void *ctx, const void *data, size_t n);
  void *ctx;
} tp_sink;

/* Calls sink->write (n == 0 is a no-op). */
TPDEF tp_status tp_sink_write(tp_sink *sink, const void *data, size_t n);
/* Writes n zero bytes (padding). */
TPDEF tp_status tp_sink_zeros(tp_sink *sink, size_t n);

/* Growing memory buffer; zero-initialise it. */
typedef struct tp_membuf {
  unsigned char *data;
  size_t size, cap;
} tp_membuf;
TPDEF tp_sink tp_sink_membuf(tp_membuf *m);
TPDEF void tp_membuf_free(tp_membuf *m);

/* Counts bytes without storing them (exact sizes before writing). */
TPDEF tp_sink tp_sink_counter(uint64_t *count);

#ifndef TP_NO_STDIO
/* fwrite into f; a short write is TP_ERR_IO. */
TPDEF tp_sink tp_sink_file(FILE *f);

/* Atomic file: bytes go to a temporary file beside `path`; commit renames it over path,
   abort (or any failed commit) removes it. An error never leaves a partial file. */
typedef struct tp_atomic_file {
  FILE *f;
  char *tmp_path;
  char *path;
} tp_atomic_file;
TPDEF tp_status tp_atomic_open(tp_atomic_file *af, const char *path, tp_sink *sink_out);
TPDEF tp_status tp_atomic_commit(tp_atomic_file *af);
TPDEF void tp_atomic_abort(tp_atomic_file *af);
/* Opens path atomically, calls produce(ctx, sink), commits on TP_OK, aborts otherwise. */
TPDEF tp_status tp_atomic_write(const char *path, tp_status (*produce)(void *ctx, tp_sink *sink),
                                void *ctx);
#endif

/* ------------------------------------------------------------------------------------------ */
/* 5. Compact copy                                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef enum tp_order { TP_ORDER_ROW_MAJOR = 0, TP_ORDER_PRESERVE = 1 } tp_order;

/* data/nbytes: the compact bytes. owned == NULL when data points into the storage
   (zero-copy); release with tp_buffer_release. */
typedef struct tp_buffer {
  const void *data;
  size_t nbytes;
  void *owned;
} tp_buffer;

/* Exactly the view's bytes in `order`; zero-copy when the view already is compact. */
TPDEF tp_status tp_compact(const tp_tensor *t, tp_order order, tp_buffer *out);
TPDEF void tp_buffer_release(tp_buffer *b);
/* Into dst; cap < nbytes is TP_ERR_BOUNDS (nothing written). */
TPDEF tp_status tp_compact_into(const tp_tensor *t, tp_order order, void *dst, size_t cap);
/* Streams the compact bytes into sink with a bounded scratch. */
TPDEF tp_status tp_compact_write(const tp_tensor *t, tp_order order, tp_sink *sink);

/* Conversion flags for tp_convert_write. */
#define TP_CONVERT_SATURATE 1u /* clamp finite values to the target's finite range first */
/* Streams the view row-major, each element converted to dtype `to` (f32 -> f16/bf16,
   f16/bf16 -> f32, or `to` == t->dtype for a plain copy). Other pairs: TP_ERR_UNSUPPORTED. */
TPDEF tp_status tp_convert_write(const tp_tensor *t, tp_dtype to, unsigned flags, tp_sink *sink);

/* int8 values in [-8, 7] -> nibbles (v + 8), two per byte along the last dim, low nibble =
   even index, an odd last dim padded with 0 (nibble 8). Any view of TP_I8. A value outside
   [-8, 7] is TP_ERR_INVALID and nothing is produced. */
TPDEF tp_status tp_pack_int4(const tp_tensor *int8_values, tp_buffer *out);
/* The same, streamed (the values are checked before the first byte is written). */
TPDEF tp_status tp_pack_int4_write(const tp_tensor *int8_values, tp_sink *sink);
/* Packed size in bytes: rows * ceil(last / 2) (0-dim: 1 byte). */
TPDEF size_t tp_pack_int4_size(const tp_tensor *int8_values);

/* ------------------------------------------------------------------------------------------ */
/* 6. SHA-256                                                                                  */
/* ------------------------------------------------------------------------------------------ */

typedef struct tp_sha256 {
  uint32_t h[8];
  uint64_t nbytes;
  unsigned char buf[64];
  size_t fill;
} tp_sha256;
TPDEF void tp_sha256_init(tp_sha256 *c);
TPDEF void tp_sha256_update(tp_sha256 *c, const void *data, size_t n);
TPDEF void tp_sha256_final(tp_sha256 *c, unsigned char digest[32]);
/* Lowercase hex of a digest, NUL-terminated. */
TPDEF void tp_hex(const unsigned char *bytes, size_t n, char *out /* 2n + 1 */);
TPDEF tp_status tp_sha256_hex(const void *data, size_t n, char hex_out[65]);
/* A sink that hashes what it is given. */
TPDEF tp_sink tp_sink_sha256(tp_sha256 *c);
/* 1 when the SHA-NI path is in use on this CPU. */
TPDEF int tp_sha256_accelerated(void);

/* ------------------------------------------------------------------------------------------ */
/* Small public helpers the backends build on                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Little-endian stores and loads, from shifts: the bytes never depend on the host. */
TPDEF void tp_store_le16(unsigned char *p, uint16_t v);
TPDEF void tp_store_le32(unsigned char *p, uint32_t v);
TPDEF void tp_store_le64(unsigned char *p, uint64_t v);
TPDEF uint16_t tp_load_le16(const unsigned char *p);
TPDEF uint32_t tp_load_le32(const unsigned char *p);
TPDEF uint64_t tp_load_le64(const unsigned char *p);
/* Checked arithmetic: 0 on success, 1 on overflow (out untouched then). */
TPDEF int tp_add_u64(uint64_t a, uint64_t b, uint64_t *out);
TPDEF int tp_mul_u64(uint64_t a, uint64_t b, uint64_t *out);
/* Round v up to a multiple of align (a power of two). */
TPDEF int tp_align_u64(uint64_t v, uint64_t align, uint64_t *out);
/* Grows *data (elements of elem_size) to hold at least need elements; TP_ERR_NOMEM or
   TP_ERR_OVERFLOW on failure (then *data is unchanged). */
TPDEF tp_status tp_array_reserve(void **data, size_t *cap, size_t need, size_t elem_size);

/* ------------------------------------------------------------------------------------------ */
/* 7. FlatBuffers builder and reader                                                           */
/* ------------------------------------------------------------------------------------------ */
#include "src/tp_fb_api.h"

/* ------------------------------------------------------------------------------------------ */
/* 8. Named data store and .ptd files                                                          */
/* ------------------------------------------------------------------------------------------ */
#include "src/tp_store_api.h"

#ifdef __cplusplus
}
#endif

/* ====================================== stop here ======================================== */
#endif /* TENSORPACK_H */

#ifdef TENSORPACK_IMPLEMENTATION
#ifndef TENSORPACK_IMPLEMENTATION_DONE
#define TENSORPACK_IMPLEMENTATION_DONE

/* >>core: implementation of sections 1-6 goes here (core owner) */

#include "src/tp_fb_impl.h"
#include "src/tp_store_impl.h"

#endif /* TENSORPACK_IMPLEMENTATION_DONE */
#endif /* TENSORPACK_IMPLEMENTATION */
