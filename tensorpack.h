/* tensorpack.h - v0.3.0 - exact tensor bytes for ExecuTorch backend blobs - public domain or MIT

   Do this:
      #define TENSORPACK_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.
   Every other file just includes it. tensorpack_xnnpack.h and tensorpack_vulkan.h build on it.

   CONTENTS (declarations: numbered boxes "N. name"; implementation: markers "// >>name")
     1. Status and errors (tp_status, tp_error)    >>status, >>helpers
     2. dtypes and conversions                     >>dtype
     3. Storage and views (tp_view, view ops)      >>view
     4. Sinks (memory, counter, FILE*, atomic)     >>sink
     5. Compact copy, conversion, int4 packing     >>copy, >>convert, >>int4
     5b. Quantization (int8 / int4 weights)        >>quant
     6. SHA-256                                    >>sha256
     7. FlatBuffers builder and reader             >>flatbuffers, >>fbreader
     8. Named data store and .ptd files            >>store, >>ptd
     9. Programs (.pte)                            >>pte
     10. Inputs: safetensors, JSON, DLPack         >>safetensors, >>json, >>dlpack
     11. For the backend headers, not for users:   >>writer, >>delegate
         the writer objects' one size / write, the
         delegate frame, bytes, hash sets (tp__)
     Then: REVISION HISTORY and LICENSE at the end of this file.
   Sections the other parts add (programs, inputs, delegate blobs) keep the same two forms.

   WHAT IT DOES
   A tensor is often a *view* into a larger storage: randn(3,8,8)[1] starts 64 floats in, a q/k/v
   chunk of a packed in_proj_weight is a third of it, a transposed scale walks its storage out
   of order, a channels_last slice skips bytes at every row. Writers that copy "the storage from
   its first byte" emit wrong weights with no error. tensorpack describes a view exactly
   (storage, dtype, sizes, strides, offset - in elements, as PyTorch), validates it, and gets its
   bytes through one routine that never reads outside it:
     - views: tp_view (the only constructor, fully checked) and the PyTorch view ops
       tp_select / narrow / slice / transpose / permute / chunk / flip / expand;
       questions tp_numel / nbytes / is_contiguous / is_dense / dim_order / span;
     - bytes: tp_compact (zero-copy when the view already is compact), tp_compact_into,
       tp_compact_write (streaming through a sink with a bounded scratch), tp_convert_write
       (f32 <-> f16 / bf16, round-to-nearest-even, bit-equal to PyTorch), tp_pack_int4;
     - quantization (5b): tp_quantize_symmetric - int8 per channel / int4 groupwise weights,
       values and scales bit for bit with ExecuTorch's XNNPACKQuantizer and torchao's 8da4w;
     - sinks: memory, counter, FILE*, SHA-256, atomic file (temp + rename), progress;
     - SHA-256 (portable C and SHA-NI, chosen at run time; identical output) for the
       lowercase-hex keys ExecuTorch names constants by;
     - sections 7-8: a FlatBuffers builder/reader and the .ptd (FlatTensor) named-data store
       (tp_store_options.copy = 1 copies each entry at add, so weights may be freed at once);
     - section 9: ExecuTorch programs (.pte): methods that call a delegate blob, or graphs of
       kernel calls beside delegate calls (tp_pte_graph: constants from views, every tensor
       memory-planned, each call checked against TP_PTE_OPS, the operator table of
       ExecuTorch's portable kernels); a bounds-checked .pte reader.
     - section 10: inputs - safetensors files (bounds-checked, strict JSON) and DLPack tensors
       (when dlpack.h is included first) as zero-copy, checked views; JSON documents (a
       config.json, read by the same strict reader) with top-level lookups (tp_json_*);
     - files: tp_safetensors_open_file, tp_ptd_open_file, tp_pte_read_file open a path (mapped
       with mmap / MapViewOfFile, read where it cannot be) and release it in their close;
       tp_file_bytes_open for any other file (not under TP_NO_STDIO);
     - progress: every writer takes an optional progress callback (tp_progress_fn) that can
       cancel the write (TP_ERR_CANCELLED, no file left); tp_progress_bar_fn draws a bar on
       stderr;
     - saving in one call: tp_store_save_ptd, tp_pte_save (and the backends' tp_xnn_save,
       tp_vk_save) write atomically and print a failure's sentence on stderr.
   WHAT IT DOES NOT: run models, allocate tensors for you, convert integer types, or follow
   storages it was not given (a tp_storage is borrowed: never freed, never written).

   COMPILE
   C99 or C++ (any), no dependency but libc. Warning-clean under gcc and clang with
   -Wall -Wextra -pedantic (and -Wconversion). The SHA-NI and SSE2 paths are compiled on x86 with
   gcc/clang and chosen at run time (SHA-NI) / compile time (SSE2); other targets get portable C.

   QUICK START (examples/01_view_to_bytes.c)
      float storage[3 * 8 * 8];                 // x = randn(3, 8, 8)
      int64_t sizes[3] = {3, 8, 8};
      tp_storage s = {storage, sizeof storage};
      tp_tensor x, w;
      tp_buffer b;
      char key[65];
      tp_view(s, TP_F32, 3, sizes, NULL, 0, &x, NULL); // NULL strides = row-major
      tp_select(&x, 0, 1, &w, NULL);               // w = x[1], 64 floats in
      tp_compact(&w, TP_ORDER_ROW_MAJOR, &b);      // b.data == storage + 64, b.nbytes == 256
      tp_sha256_hex(b.data, b.nbytes, key);        // its ExecuTorch key
      tp_buffer_release(&b);                       // frees only what was copied (b.owned)
   Every call returns a tp_status; check it (the example does).
   LIFETIME: a tp_storage is borrowed. A writer (graph, store) reads a view's bytes when it is
   written, not when it is added: keep the weights alive and unchanged until the write call
   returns. To free them earlier, create the store with tp_store_options.copy = 1
   (tp_store_create): it copies each entry's bytes at add.

   ORDERS
   TP_ORDER_ROW_MAJOR: logical row-major. TP_ORDER_PRESERVE: the dim order PyTorch's
   clone(memory_format=torch.preserve_format) keeps (tp_dim_order), e.g. channels_last stays
   channels_last. Elements always come out in logical index order of that dim order: a negative
   stride never reverses the output.

   COMPILE-TIME OPTIONS (define before including)
   The three marked "set globally" change a struct or the implementation's symbols: define
   them the same way for every file of a program (e.g. with -D on the command line). Two files
   that disagree do not link (an undefined reference to tp__abi_v0_3_d<dims>_<stdio|nostdio>,
   see VERSION AND ABI below) instead of crashing at run time.
     TP_MAX_DIMS n          set globally; most dims a view has (a plain integer literal 1..64,
                            default 16): it sizes tp_tensor and tp_ptd_entry
     TP_MALLOC(n), TP_REALLOC(p, n), TP_FREE(p)
                            the allocator; define all three or none (default malloc/realloc/free)
     TENSORPACK_STATIC      set globally; all functions static (private to the including file:
                            then each file has its own copy and no link check is made)
     TP_NO_STDIO            set globally; no <stdio.h>: no FILE* or atomic-file sinks; error
                            sentences are formatted by a small built-in formatter
     TP_SCRATCH_BYTES n     scratch of the streaming forms (default 256 KiB)
     TP_LLC_BYTES n         last-level cache size assumed by the copy kernels (default: read
                            once at run time from Linux's /sys, else 32 MiB): transposes with
                            outputs of at least a quarter of it, and compact runs of at least
                            all of it, are written with streaming (non-temporal) stores on x86
     TP_NO_AVX2             never use the AVX2 (nor AVX-512) transpose tiles (else chosen at
                            run time, by what the CPU has)
     TP_NO_AVX512           never use the AVX-512 (F, BW) transpose tiles
     TP_NO_SHANI            never use the SHA-NI instructions
     TP_ASSERT(x)           the assert used for NULL-object misuse (default assert)

   MEMORY
   Views are plain structs (no allocation). tp_compact allocates only when it must copy
   (b.owned != NULL); the streaming forms allocate one scratch of at most TP_SCRATCH_BYTES per
   call, so a 4 GiB weight never needs 4 GiB more. Builders and stores own their memory and
   free it in their destroy call.

   ERRORS (the one rule every header follows: tensorpack.h, tensorpack_xnnpack.h,
   tensorpack_vulkan.h)
   - Every fallible call returns tp_status (TP_OK = 0); tp_status_str names it. Bad views,
     overflow, unknown dtypes, I/O failures and malformed input are errors, never asserts.
   - Misuse: a NULL *object* (the builder, store, graph, reader a call works on) is a
     programming error and hits TP_ASSERT; a bad *argument* (a NULL out pointer, a NULL sink or
     a sink whose write callback is NULL, a NULL path, a bad dim) is TP_ERR_INVALID with a
     sentence.
   - Objects (builders, stores, graphs, readers) have <obj>_status() and <obj>_error(): the
     status and a sentence naming the value and the numbers ("key \"w\": view reaches byte 4160
     of a 4096-byte storage"), "" when there is no failure.
   - Building calls (add, define, start/end) latch the object's first failure; every later
     building call returns it, and so does a write of a failed object.
   - A size or write call never kills the object: its failure leaves a sentence in the object
     (a write to a missing directory names the path and says why), _status() reports it until
     the next size/write call, and a retry after fixing the cause succeeds with the same bytes.
     A failed write never leaves a partial file. The store, the program and the two graphs do
     all this through one implementation (section 11, "writer objects"), with one sentence for
     each failure.
   - A caller's tp_error *err argument (the view ops, tp_tensor_check, tp_atomic_write, ...)
     may be NULL, is reset on entry (it never keeps an old failure) and on failure holds
     the status and the sentence.
   - View arguments (a dim, an index, a range) follow one rule, stated with the view ops
     (section 3); their err argument says which argument failed.

   VERSION AND ABI
   TP_VERSION_MAJOR / MINOR / PATCH (this is 0.3.0) and tp_version_string() ("0.3.0"); the
   revision history is at the end of this file. tensorpack_xnnpack.h and tensorpack_vulkan.h
   refuse to compile (#error) against a core of another minor version. Every file that includes
   this header (without TENSORPACK_STATIC) references the symbol tp__abi_v<major>_<minor>_d
   <TP_MAX_DIMS>_<stdio|nostdio>, which only the implementation file defines: a file built with
   another TP_MAX_DIMS, TP_NO_STDIO or version than the implementation fails to link, naming
   the options it was built with. Cost: one pointer per file.

   THREAD SAFETY
   No global state (one exception: whether the CPU has SHA-NI is asked once and cached, through
   atomic loads and stores, because cpuid is slow in virtual machines). Different objects may be
   used from different threads at once; one object must not be used from two threads at once.
   Storages are only read. The library starts no threads: a store given a parallel_for hook
   (tp_store_options) runs its hashing tasks on the hook's threads, each task on its own data.

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
#if defined(__GNUC__) || defined(__clang__)
#define TPDEF static __attribute__((unused))
#else
#define TPDEF static
#endif
#else
#define TPDEF extern
#endif
#endif

#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 3
#define TP_VERSION_PATCH 0

#ifndef TP_MAX_DIMS
#define TP_MAX_DIMS 16
#endif
#if TP_MAX_DIMS < 1 || TP_MAX_DIMS > 64
#error "tensorpack: TP_MAX_DIMS must be a plain integer literal from 1 to 64"
#endif

/* The link-time ABI check (VERSION AND ABI above): the name encodes what changes the structs. */
#define TP__CAT7(a, b, c, d, e, f, g) a##b##c##d##e##f##g
#define TP__ABI_NAME_(maj, min, dims, io) TP__CAT7(tp__abi_v, maj, _, min, _d, dims, io)
#ifdef TP_NO_STDIO
#define TP__ABI_IO _nostdio
#else
#define TP__ABI_IO _stdio
#endif
#define TP__ABI_NAME \
  TP__ABI_NAME_(TP_VERSION_MAJOR, TP_VERSION_MINOR, TP_MAX_DIMS, TP__ABI_IO)

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

/* The assert that guards misuse (a NULL object); override it to reach every header's code. */
#ifndef TP_ASSERT
#include <assert.h>
#define TP_ASSERT(x) assert(x)
#endif

#if defined(__MINGW32__) && defined(TP_NO_STDIO)
#define TP__PRINTF(f, a) __attribute__((format(gnu_printf, f, a))) /* our own formatter */
#elif defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT)
/* MinGW: the checks of the printf in use (the C99 one, or msvcrt's without %zu) */
#define TP__PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__) || defined(__clang__)
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
  X(TP_ERR_FORMAT, "malformed input")                                                        \
  X(TP_ERR_CANCELLED, "cancelled by the progress callback")

typedef enum tp_status {
#define TP__STATUS_ENUM(name, text) name,
  TP_STATUS_LIST(TP__STATUS_ENUM)
#undef TP__STATUS_ENUM
  TP_STATUS_COUNT__
} tp_status;

/* A short English name for s ("out of bounds"); never NULL. */
TPDEF const char *tp_status_str(tp_status s);
/* "0.3.0": TP_VERSION_MAJOR.MINOR.PATCH of the implementation that was linked. */
TPDEF const char *tp_version_string(void);

#ifndef TENSORPACK_STATIC
/* Defined only by the implementation; referenced once by every file (see VERSION AND ABI). */
extern const int TP__ABI_NAME;
#if defined(__GNUC__) || defined(__clang__)
__attribute__((used)) static const int *const tp__abi_ref = &TP__ABI_NAME;
#endif
#endif

/* A failure as a status plus a sentence naming the value and the numbers (see ERRORS at the
   top of this file). Zero-initialised = no failure. */
#define TP_ERROR_MAX 256
typedef struct tp_error {
  tp_status status;
  char msg[TP_ERROR_MAX];
} tp_error;


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

/* Makes a validated view. strides == NULL means row-major. err (may be NULL) is reset on entry
   and on failure receives the status and a sentence. Errors: TP_ERR_INVALID (NULL out, ndim
   outside 0..TP_MAX_DIMS, negative size, unknown dtype, NULL data with nbytes > 0),
   TP_ERR_BOUNDS (an addressed element outside the storage), TP_ERR_OVERFLOW. */
TPDEF tp_status tp_view(tp_storage s, tp_dtype dt, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset, tp_tensor *out, tp_error *err);

/* Checks any tp_tensor (also hand-filled ones) as tp_view does; err (may be NULL) is reset on
   entry and on failure receives a sentence such as "view reaches byte 4160 of a 4096-byte storage". */
TPDEF tp_status tp_tensor_check(const tp_tensor *t, tp_error *err);

/* View ops: each checks its input and arguments and returns a validated view (out is written
   only on success and may alias t). They follow PyTorch, and share one rule for bad arguments:
   a dim (also a perm entry) counts from the end when negative, as in Python: -ndim..ndim-1
   (-1 is the last dim); a dim outside that range, a perm that is not a permutation, chunks < 1,
   step < 1 or a negative length is TP_ERR_INVALID; an index or range that does not fit the dim
   is TP_ERR_BOUNDS. An invalid input view returns tp_tensor_check's status. A result that is a
   valid view is never refused for overflow: an empty result keeps the input's offset, and a
   slice with a single element along dim keeps the old stride when stride x step leaves int64.
   Why an op failed: the last argument, err (may be NULL), is reset on entry and, on failure,
   receives the status and a sentence with the numbers ("select: index 5 is outside -3..2 (dim
   0 has size 3)"); no global state is involved. */
/* t[index] along dim; index may be negative (counts from the end, -size..size-1). */
TPDEF tp_status tp_select(const tp_tensor *t, int dim, int64_t index, tp_tensor *out,
                          tp_error *err);
/* length elements from start along dim; start may be negative (-size..size). */
TPDEF tp_status tp_narrow(const tp_tensor *t, int dim, int64_t start, int64_t length,
                          tp_tensor *out, tp_error *err);
/* Python-like t[start:stop:step] along dim, step >= 1; start/stop are clamped like Python
   slices, negative values count from the end. */
TPDEF tp_status tp_slice(const tp_tensor *t, int dim, int64_t start, int64_t stop, int64_t step,
                         tp_tensor *out, tp_error *err);
/* Swaps dims d0 and d1. */
TPDEF tp_status tp_transpose(const tp_tensor *t, int d0, int d1, tp_tensor *out, tp_error *err);
/* out dim i is t's dim perm[i]; perm has t->ndim entries (negative entries count from the end). */
TPDEF tp_status tp_permute(const tp_tensor *t, const int *perm, tp_tensor *out, tp_error *err);
/* torch.chunk: chunk `index` of `chunks` pieces of ceil(size / chunks) along dim (the last one
   may be shorter; an index past the last non-empty chunk, or a negative one, is
   TP_ERR_INVALID; a dim of size 0 has `chunks` empty chunks). */
TPDEF tp_status tp_chunk(const tp_tensor *t, int chunks, int dim, int index, tp_tensor *out,
                         tp_error *err);
/* Reverses dim: a negative stride, the offset moved to the old last element (numpy-style;
   torch.flip copies instead). Compact copies still come out in logical order. */
TPDEF tp_status tp_flip(const tp_tensor *t, int dim, tp_tensor *out, tp_error *err);
/* torch.expand: new leading dims and size-1 dims become stride-0 broadcasts; -1 keeps a size. */
TPDEF tp_status tp_expand(const tp_tensor *t, int ndim, const int64_t *sizes, tp_tensor *out,
                          tp_error *err);

/* Element count; -1 when t is NULL or its ndim / sizes are not valid or overflow. */
TPDEF int64_t tp_numel(const tp_tensor *t);
/* numel * element size (the compact byte count); 0 when that is not valid. */
TPDEF size_t tp_nbytes(const tp_tensor *t);
/* Row-major dense, as PyTorch's is_contiguous(). */
TPDEF int tp_is_contiguous(const tp_tensor *t);
/* Non-overlapping and dense in some dim order (stride magnitudes), as PyTorch's
   is_non_overlapping_and_dense(). */
TPDEF int tp_is_dense(const tp_tensor *t);
/* The dim order PRESERVE writes in (outermost first, ndim entries): PyTorch's
   compute_elementwise_output_logical_to_physical_perm for one tensor (the order
   clone(memory_format=torch.preserve_format) keeps), with stride magnitudes. */
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

/* Calls sink->write (n == 0 is a no-op). A NULL sink or write callback is TP_ERR_INVALID, as
   for every call that takes a sink (the misuse rule under ERRORS). */
TPDEF tp_status tp_sink_write(tp_sink *sink, const void *data, size_t n);
/* Writes n zero bytes (padding). */
TPDEF tp_status tp_sink_zeros(tp_sink *sink, size_t n);

/* Growing memory buffer; zero-initialise it. */
typedef struct tp_membuf {
  unsigned char *data;
  size_t size, cap;
} tp_membuf;
/* A sink appending to m (grown as needed; TP_ERR_NOMEM / TP_ERR_OVERFLOW when it cannot). */
TPDEF tp_sink tp_sink_membuf(tp_membuf *m);
/* Frees m's bytes and zeroes it (m may be NULL). */
TPDEF void tp_membuf_free(tp_membuf *m);

/* Counts bytes without storing them (exact sizes before writing). */
TPDEF tp_sink tp_sink_counter(uint64_t *count);


/* Progress of a write: done of total bytes so far. Return 0 to go on, non-zero to cancel (the
   write then fails with TP_ERR_CANCELLED; a file writer leaves no file). Writers that take
   one (tp_store_options, tp_xnn_options, tp_vk_options: fields progress / progress_ctx, NULL =
   none) call it before their first byte with done = 0 and then about every 1% of total, and
   always once with done == total when the last byte is written. */
typedef int (*tp_progress_fn)(void *ctx, uint64_t done, uint64_t total);
typedef struct tp_progress {
  tp_sink *inner;
  tp_progress_fn fn;
  void *ctx;
  uint64_t done, total, reported, step;
  int started, cancelled;
} tp_progress;
/* A pass-through sink that reports to fn (above) as bytes reach inner; the writer objects wrap
   their sink in one (tp__writer_write). fn == NULL: no reports. After a cancel, p->cancelled is 1
   and every later write fails with TP_ERR_CANCELLED too. */
TPDEF tp_sink tp_sink_progress(tp_progress *p, tp_sink *inner, uint64_t total, tp_progress_fn fn,
                               void *ctx);

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
/* Creates "<path>.tmp.<n>" (exclusively: concurrent writers never share one) and gives the
   sink that writes it. TP_ERR_IO when it cannot be created (e.g. a missing directory). */
TPDEF tp_status tp_atomic_open(tp_atomic_file *af, const char *path, tp_sink *sink_out);
/* Flushes and closes the temp file (each step checked) and renames it over path; on any
   failure the temp file is removed, path is untouched, and TP_ERR_IO is returned. */
TPDEF tp_status tp_atomic_commit(tp_atomic_file *af);
/* Closes and removes the temp file; path is untouched. */
TPDEF void tp_atomic_abort(tp_atomic_file *af);
/* Opens path atomically, calls produce(ctx, sink), commits on TP_OK, aborts otherwise. On
   failure err (may be NULL; reset on entry) holds a sentence naming the path: "cannot create
   a temporary file beside \"out/x.ptd\": No such file or directory (...)". */
TPDEF tp_status tp_atomic_write(const char *path, tp_status (*produce)(void *ctx, tp_sink *sink),
                                void *ctx, tp_error *err);
#endif


/* ------------------------------------------------------------------------------------------ */
/* 5. Compact copy                                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef enum tp_order { TP_ORDER_ROW_MAJOR = 0, TP_ORDER_PRESERVE = 1 } tp_order;

/* data/nbytes: the compact bytes. owned == NULL when data points into the storage
   (zero-copy); else the allocation, which data lies in (a big copy's data starts on a 64-byte
   line, up to 63 bytes past owned); release with tp_buffer_release. */
typedef struct tp_buffer {
  const void *data;
  size_t nbytes;
  void *owned;
} tp_buffer;

/* Exactly the view's bytes in `order`; zero-copy when the view already is compact. */
/* Zero-copy: data = the storage at the view's first byte, nbytes = exactly the view's bytes,
   owned = NULL (ROW_MAJOR of a contiguous view; PRESERVE of a dense view without negative
   strides). An empty view gives nbytes 0 and a non-NULL data. */
TPDEF tp_status tp_compact(const tp_tensor *t, tp_order order, tp_buffer *out);
/* Frees what tp_compact / tp_pack_int4 copied (nothing for zero-copy) and zeroes b. */
TPDEF void tp_buffer_release(tp_buffer *b);
/* Into dst; cap < nbytes is TP_ERR_BOUNDS (nothing written). */
TPDEF tp_status tp_compact_into(const tp_tensor *t, tp_order order, void *dst, size_t cap);
/* Streams the compact bytes into sink with a bounded scratch. A compact view goes to the sink
   straight from its storage (zero-copy). A sink that offers its own buffer - tp_sink_membuf,
   also behind tp__sink_tally - gets the bytes compacted in place at the end of its buffer: no
   scratch and no second copy (the same bytes and statuses as through its write callback). */
TPDEF tp_status tp_compact_write(const tp_tensor *t, tp_order order, tp_sink *sink);

/* Conversion flags for tp_convert_write. */
#define TP_CONVERT_SATURATE 1u /* clamp finite values to the target's finite range first */
#define TP_CONVERT_CLAMP_INF 2u /* with SATURATE: +-inf too become the target's finite max, as
                                   torch.clamp(t, finfo.min, finfo.max) does (NaN stays NaN) */
/* Streams the view row-major, each element converted to dtype `to`: any pair of f32, f16 and
   bf16 (through f32, round-to-nearest-even), or `to` == t->dtype for a plain copy. Other pairs:
   TP_ERR_UNSUPPORTED; `to` not a dtype: TP_ERR_INVALID. */
TPDEF tp_status tp_convert_write(const tp_tensor *t, tp_dtype to, unsigned flags, tp_sink *sink);

/* int8 values in [-8, 7] -> nibbles (v + 8), two per byte along the last dim, low nibble =
   even index, an odd last dim padded with 0 (nibble 8). Any view of TP_I8. A value outside
   [-8, 7] is TP_ERR_INVALID and nothing is produced. */
TPDEF tp_status tp_pack_int4(const tp_tensor *int8_values, tp_buffer *out);
/* Checks that every value of an int8 view lies in [-8, 7]; on failure err (may be NULL) names
   the first bad value's row-major index and the value. */
TPDEF tp_status tp_pack_int4_check(const tp_tensor *int8_values, tp_error *err);
/* The same, streamed (the values are checked before the first byte is written). */
TPDEF tp_status tp_pack_int4_write(const tp_tensor *int8_values, tp_sink *sink);
/* Packed size in bytes: rows * ceil(last / 2) (0-dim: 1 byte). */
TPDEF size_t tp_pack_int4_size(const tp_tensor *int8_values);

/* ------------------------------------------------------------------------------------------ */
/* 5b. Quantization (symmetric int8 / int4 weights, bit for bit with the PyTorch quantizers)   */
/* ------------------------------------------------------------------------------------------ */

/* Quantizes a 2-D float weight w [out, in] (f32, f16 or bf16; any strides, offset or negative
   strides: each row is read through tp_compact_into, never the whole storage) to one int8 per
   element, symmetric (zero point 0), with the numerics of the quantizer ExecuTorch users run:

   bits 8, group_size 0 - per output channel, as ExecuTorch's XNNPACKQuantizer
     (backends/xnnpack/quantizer/xnnpack_quantizer.py, get_symmetric_quantization_config with
     is_per_channel: qint8, quant_min -127, quant_max 127, per_channel_symmetric, ch_axis 0,
     observer eps 2**-12) through torchao's PerChannelMinMaxObserver
     (torchao/quantization/pt2e/observer.py, UniformQuantizationObserverBase._calculate_qparams)
     and quantized_decomposed.quantize_per_channel (pytorch torch/ao/quantization/fx/
     _decomposed.py). In f32 arithmetic, per row:
        amax = max(-min(min(row), 0), max(max(row), 0));  s = max(amax / 127, 2^-12)
        q = clamp(round_half_even(w * (1 / s)), -127, 127)
     The values use the f32 s; *scales holds s converted to scale_dtype (RNE, as .to()).
   bits 4, group_size g (dividing in; 0 = one group per row) - torchao's 8da4w weight path
     (torchao/quantization/linear_quant_modules.py Int8DynActInt4WeightQuantizer ->
     torchao/quantization/utils.py group_quantize_tensor_symmetric / get_group_qparams_symmetric
     -> quant_primitives.py _choose_qparams_affine, SYMMETRIC; then quantized_decomposed.
     quantize_per_channel_group), with its default precision f32 (the weight is taken to f32,
     exactly) and scales_precision = scale_dtype. Per group of g elements:
        amax as above;  s = max(amax / 7.5, 2^-126 (finfo(f32).smallest_normal))   (f32)
        S = s.to(scale_dtype);  R = (1 / S) in scale_dtype (Tensor.__rtruediv__ is
        reciprocal(): computed in f32, rounded to scale_dtype)
        q = clamp(round_half_even(w * R), -8, 7)                                     (f32)
     *scales holds S: exactly torchao's `scales` buffer.

   Output (both owned: release with tp_buffer_release; *values and *scales are zeroed first and
   stay empty on failure): *values = out * in int8, row-major [out, in] (4-bit ones are in
   [-8, 7], ready for tp_pack_int4 or the 4-bit XNNPACK datatypes); *scales = row-major
   [out, groups] (bits 8: [out]) elements of scale_dtype (f32, bf16 or f16) in host byte order,
   as a tensor's storage (wrap them with tp_view).

   Edge cases, defined: a row or group of zeros gets s = eps (2^-12 / 2^-126) and values 0; ties
   round to even (w * R = 2.5 -> 2, -3.5 -> -4); tiny magnitudes are clamped at eps as above;
   huge ones are fine up to FLT_MAX. out == 0 gives empty buffers. Refused (TP_ERR_INVALID, a
   sentence in err naming the numbers): a NaN or infinite element ("w[2][5] (element 21) is
   nan"), ndim != 2, in == 0, a dtype other than f32/f16/bf16, bits not 4 or 8, a group size
   that does not divide in, 8-bit groupwise (TP_ERR_UNSUPPORTED: not a quantizer ExecuTorch
   ships), and a scale that scale_dtype cannot hold usefully - where PyTorch itself produces
   inf/NaN: an f16 scale that is 0 or infinite or (4-bit) whose f16 reciprocal is infinite,
   e.g. a zero group (s = 2^-126 underflows f16) - use f32 or bf16 scales there.
   err may be NULL and is reset on entry (the error rule). TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
TPDEF tp_status tp_quantize_symmetric(const tp_tensor *w, int bits, int64_t group_size,
                                      tp_dtype scale_dtype, tp_buffer *values,
                                      tp_buffer *scales, tp_error *err);

/* ------------------------------------------------------------------------------------------ */
/* 6. SHA-256                                                                                  */
/* ------------------------------------------------------------------------------------------ */

typedef struct tp_sha256 {
  uint32_t h[8];
  uint64_t nbytes;
  unsigned char buf[64];
  size_t fill;
  int accel; /* 1: this context uses SHA-NI (set by init; set it to 0 to force portable C) */
} tp_sha256;
/* Streaming SHA-256: init, update any number of times (any sizes), final writes the 32-byte
   digest (the context must be initialised again before reuse). */
TPDEF void tp_sha256_init(tp_sha256 *c);
TPDEF void tp_sha256_update(tp_sha256 *c, const void *data, size_t n);
TPDEF void tp_sha256_final(tp_sha256 *c, unsigned char digest[32]);
/* Lowercase hex of a digest, NUL-terminated. */
TPDEF void tp_hex(const unsigned char *bytes, size_t n, char *out /* 2n + 1 */);
/* hex_out = lowercase hex SHA-256 of n bytes (ExecuTorch's constant key). */
TPDEF tp_status tp_sha256_hex(const void *data, size_t n, char hex_out[65]);
/* A sink that hashes what it is given. */
TPDEF tp_sink tp_sink_sha256(tp_sha256 *c);
/* 1 when this CPU has SHA-NI (and tp_sha256_init will use it). */
TPDEF int tp_sha256_accelerated(void);

/* ------------------------------------------------------------------------------------------ */
/* 7. FlatBuffers builder and reader                                                           */
/* ------------------------------------------------------------------------------------------ */

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
   caller may read a whole structure and check tp_fb_reader_status once (tp_fb_reader_error
   gives the sentence). tp_fb_reader_init sets every field of the reader (it needs no zeroed
   struct) with the default limits; tp_fb_reader_init_ex takes the limits.
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
  size_t max_tables;    /* 0 = the larger of 1000000 and size / 2 (see tp_fb_reader_init_ex) */
  size_t tables;        /* tables visited so far */
  tp_error err;
  /* The visit budget: every table opened, vector element read and string read (1 + len / 16)
     costs visits; past max_visits the reader fails with "visit budget N exceeded at byte P
     (S-byte buffer; ...)". Init sets the default, the larger of 1000000 and 8 * size; no walk
     resets it (tables is per walk, visits per reader), so it bounds everything one reader does,
     whatever the buffer shares: one table or vector reached through N offsets costs N reads,
     and the total stays linear in the buffer. (size_t)-1 = none (for a reader that serves many
     lookups over its life, like tp_ptd's). */
  size_t max_visits;
  size_t visits;
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
/* Like tp_fb_reader_init, with the limits: max_depth (0 = 64) and max_tables (tables opened
   per walk; 0 = the default, the larger of 1000000 and size / 2). The default scales with the
   buffer so that whatever a writer can put in it can be read back: every table starts with its
   own 4-aligned soffset word, so a buffer of size bytes holds at most size / 4 distinct tables
   and a walk that opens each at most twice stays within the budget; a DAG of shared tables (one
   table reached through many offsets, opened again on every path) is stopped after size / 2
   opens, a cost linear in the buffer, never exponential. Going over it is TP_ERR_FORMAT
   "table budget N exceeded at byte P (S-byte buffer)". */
TPDEF tp_status tp_fb_reader_init_ex(tp_fb_reader *r, const void *buf, size_t size,
                                     const char *identifier, tp_fb_table *root,
                                     unsigned max_depth, size_t max_tables);
/* The reader's first error (TP_OK when none) and its sentence ("" when none). Read these, not
   the err field (kept for source compatibility). */
TPDEF tp_status tp_fb_reader_status(const tp_fb_reader *r);
TPDEF const char *tp_fb_reader_error(const tp_fb_reader *r);
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

/* ------------------------------------------------------------------------------------------ */
/* 8. Named data store and .ptd files                                                          */
/* ------------------------------------------------------------------------------------------ */
/* A tp_store collects named constants the way ExecuTorch's NamedDataStore does, and writes
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
   Errors follow the ERRORS rule at the top: a failed add (bad view, key collision, no memory)
   latches, every later call returns it; a failed size or write call (sink failure, missing
   directory, no memory) leaves its sentence (tp_store_status / tp_store_error) until the
   next size or write call and does not stop the store: fix the cause and write again.
   Thread safety: none inside one store; different stores are independent. */

/* ---- the FT01 format, described once ------------------------------------------------------
   The tables of ExecuTorch's extension/flat_tensor/serialize/flat_tensor.fbs (file identifier
   "FT01", root FlatTensor; tests/schemas/flat_tensor.fbs is our copy). The .ptd writer
   (tp_store_write_ptd) and reader (tp_ptd_open, ...) take every field id from this list, and
   tests/verify_ptd.cpp checks it against flatc's code for the schema (names at their ids,
   types, defaults, no field left out). TP_FT01_FIELDS(X): X(table, field, id, kind, default),
   kind one of I8 U32 U64 (scalars), STR (string), VEC (vector), TABLE (sub-table). Each entry
   defines TP_FT01_F_<table>_<field> (the id) and TP_FT01_D_<table>_<field> (the default).
   Shared tables: a budget. tp_ptd_open reads each entry's few tables once (its cost is linear
   in the entry count whatever they share; its reader has no visit budget, since tp_ptd_find
   walks again for the file's whole life); key strings shared between entries are bounded by a
   budget: the keys' bytes may total at most the flatbuffer's size (refused past it), so the
   NUL checks and tp_ptd_index's hashing stay linear in the file. Keys are hashed with a key of
   the index's own (SipHash-1-3, tp__hash_seed) and compared by length, then position, then
   bytes. */
#define TP_FT01_FIELDS(X)                          \
  X(TensorLayout, scalar_type, 0, I8, 0)           \
  X(TensorLayout, sizes, 1, VEC, 0)                \
  X(TensorLayout, dim_order, 2, VEC, 0)            \
  X(DataSegment, offset, 0, U64, 0)                \
  X(DataSegment, size, 1, U64, 0)                  \
  X(NamedData, key, 0, STR, 0)                     \
  X(NamedData, segment_index, 1, U32, 0)           \
  X(NamedData, tensor_layout, 2, TABLE, 0)         \
  X(FlatTensor, version, 0, U32, 0)                \
  X(FlatTensor, segments, 1, VEC, 0)               \
  X(FlatTensor, named_data, 2, VEC, 0)
#define TP__FT01_ENUM(t, f, id, kind, dflt) TP_FT01_F_##t##_##f = id, TP_FT01_D_##t##_##f = dflt,
enum { TP_FT01_FIELDS(TP__FT01_ENUM) TP__FT01_ENUM_END };
#undef TP__FT01_ENUM
#define TP_FT01_IDENTIFIER "FT01"

typedef struct tp_store tp_store;

/* A parallel-for supplied by the caller (the library starts no threads of its own): it must run
   fn(fn_ctx, i) once for every i in [0, n), in any order, on any threads, and return only when
   every call has returned. hook_ctx is tp_store_options.parallel_ctx. The calls never touch
   one another's data; with a hook, TP_MALLOC/TP_FREE must be thread-safe (the defaults are). */
typedef void (*tp_parallel_task)(void *fn_ctx, size_t i);
typedef void (*tp_parallel_for)(void *hook_ctx, size_t n, tp_parallel_task fn, void *fn_ctx);

/* Options of tp_store_create. Zero-initialised (or NULL options) = the defaults: every field's
   0 / NULL is its default, so new fields never change what old code gets. */
typedef struct tp_store_options {
  int copy; /* 0: views are borrowed until the store is written; 1: each entry's bytes are
               copied at add */
  tp_progress_fn progress;   /* NULL: none; else called as the .ptd is written (section 4) */
  void *progress_ctx;        /* its first argument */
  tp_parallel_for parallel_for; /* NULL: everything on the calling thread. Otherwise
                                   tp_store_add_all hashes its views through it (one task per
                                   view); the entries, keys and bytes are the same either way */
  void *parallel_ctx;           /* passed to parallel_for as hook_ctx */
} tp_store_options;
/* A new empty store with options opts (NULL = the defaults; opts is copied). With copy = 1,
   tp_store_add copies the view's compact bytes (in its order) into the store and
   tp_store_add_bytes copies whatever its own copy argument says: the caller may then free or
   change the weights right after each add. Nothing is copied for an entry whose bytes are
   already in the store (dedup happens first). The bytes written are the same either way.
   Errors: TP_ERR_INVALID (out == NULL), TP_ERR_NOMEM. */
TPDEF tp_status tp_store_create(const tp_store_options *opts, tp_store **out);
/* Frees the store, its keys and its copies (never the borrowed views). NULL is a no-op. */
TPDEF void tp_store_destroy(tp_store *s);
/* The latched add failure, else the last size/write call's failure: its status (TP_OK when
   none) and its sentence ("" when none). */
TPDEF tp_status tp_store_status(const tp_store *s);
TPDEF const char *tp_store_error(const tp_store *s);

/* Adds a tensor entry: its compact bytes in `order` and a tensor layout.
   ROW_MAJOR: row-major bytes, dim_order (0, 1, .., n-1). PRESERVE: the bytes in
   tp_dim_order(t)'s order and that dim_order (a channels_last slice -> channels_last bytes,
   dim_order (0, 2, 3, 1)); sizes are always the logical sizes.
   The view is borrowed: its storage must stay alive and unchanged until the store is written
   (the bytes are streamed through SHA-256 now and through the sink at write time), unless the
   store was created with tp_store_options.copy = 1 (its bytes are then copied here).
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
/* One view for tp_store_add_all: the arguments of one tp_store_add call, and its key_out. */
typedef struct tp_store_item {
  const char *key;         /* NULL: the lowercase hex SHA-256 of the compact bytes */
  const tp_tensor *view;
  tp_order order;
  size_t alignment;        /* 0 = 16 */
  const char *key_out;     /* set by tp_store_add_all: the entry's key (owned by the store), or
                              NULL when the item was not added */
} tp_store_item;
/* Adds n views: the same entries, keys, bytes and errors as n tp_store_add calls in item order
   (a failure at item k keeps items 0..k-1, adds none after it and is the store's error, with
   the sentence tp_store_add would give). The SHA-256 of the views - the cost of an add - runs
   through the store's parallel_for hook when it has one (tp_store_options), one task per
   view, so n views hash on as many cores as the hook uses; without a hook, serially.
   Errors: as tp_store_add; TP_ERR_INVALID for items == NULL with n > 0; TP_ERR_NOMEM. */
TPDEF tp_status tp_store_add_all(tp_store *s, tp_store_item *items, size_t n);
/* Adds raw bytes with no tensor layout. copy != 0 (or a store created with
   tp_store_options.copy = 1): the store keeps its own copy (none is made when an entry with
   equal bytes is already there); otherwise borrowed until the store is written. Keys, dedup,
   alignment and errors as tp_store_add (NULL data with n > 0 is TP_ERR_INVALID). */
TPDEF tp_status tp_store_add_bytes(tp_store *s, const char *key_or_NULL, const void *data,
                                   size_t n, size_t alignment, int copy, const char **key_out);
/* Number of distinct keys. */
TPDEF size_t tp_store_count(const tp_store *s);

/* Writes the FlatTensor (.ptd) file into sink: the flatbuffer prefix (root offset + 48,
   "FT01"), the FH01 header (u32 length 40, u64 flatbuffer_offset 48, u64 flatbuffer_size,
   u64 segment_base_offset, u64 segment_data_size), padding, the rest of the flatbuffer,
   padding, then the segments, each view streamed with tp_compact_write (memory use does not
   grow with the data size). The same bytes on every host. The store stays usable (more adds,
   another write), also after a failed write. With tp_store_options.progress set, it reports
   (done, total = tp_store_ptd_size) as the bytes go out. Errors, sentences and cancelling: as
   every writer object (section 11, "writer objects"). */
TPDEF tp_status tp_store_write_ptd(tp_store *s, tp_sink *sink);
/* Exact number of bytes tp_store_write_ptd writes (builds the flatbuffer; cached until the
   next add). */
TPDEF tp_status tp_store_ptd_size(tp_store *s, uint64_t *size_out);
#ifndef TP_NO_STDIO
/* tp_store_write_ptd into path, atomically: an error leaves no file and a sentence naming the
   path in tp_store_error (section 11, "writer objects"). */
TPDEF tp_status tp_store_write_ptd_file(tp_store *s, const char *path);
#endif

/* ---- reading files (the readers' _open_file / _read_file forms) -------------------------
   A whole file's bytes, for the readers below: mapped read-only (mmap on POSIX,
   MapViewOfFile on Windows) or, where a file cannot be mapped (a pipe, a /proc file that
   reports 0 bytes, another platform) or TP_FILE_COPY asks for it, read into memory
   (TP_MALLOC). tp_safetensors_open_file, tp_ptd_open_file and tp_pte_read_file use it and
   release it in their close; it is public for a caller's own files (a delegate blob, a
   .pte to load). A mapped file must not be truncated by another process while it is used
   (on POSIX that raises SIGBUS); TP_FILE_COPY is the safe choice for files that may change.
   The type exists under TP_NO_STDIO (the readers keep one), the functions do not. */
typedef struct tp_file_bytes {
  const void *data;  /* the file's bytes (NULL for an empty file) */
  size_t size;
  int mapped;        /* 1: mapped (mmap / MapViewOfFile); 0: read into memory (or empty) */
  /* private */
  void *release__;   /* what tp_file_bytes_close unmaps or frees, or NULL */
} tp_file_bytes;
#define TP_FILE_COPY 1u /* read the bytes into memory, never map */
#ifndef TP_NO_STDIO
/* Opens path and gets all its bytes into *out (zeroed on failure). *err (may be NULL) is reset
   on entry; on failure it holds a sentence naming the path and the reason ("cannot open
   \"w.safetensors\": No such file or directory"). Errors: TP_ERR_IO (cannot open / read / is a
   directory), TP_ERR_NOMEM, TP_ERR_UNSUPPORTED (larger than SIZE_MAX), TP_ERR_INVALID (NULL
   out, NULL or empty path, an unknown flag). */
TPDEF tp_status tp_file_bytes_open(const char *path, unsigned flags, tp_file_bytes *out,
                                   tp_error *err);
/* Unmaps or frees the bytes and zeroes *f (NULL and a zeroed or already closed f are no-ops). */
TPDEF void tp_file_bytes_close(tp_file_bytes *f);

/* Converters' one-call saves: the object's _size and _write_file (atomic: all or nothing) and,
   on failure, its sentence on stderr as "error: <sentence>" (the sentence names the path).
   *size_out (may be NULL) gets the bytes written. The status is returned either way.
   tp_pte_save (section 9), tp_xnn_save (tensorpack_xnnpack.h) and tp_vk_save
   (tensorpack_vulkan.h) do the same. */
TPDEF tp_status tp_store_save_ptd(tp_store *s, const char *path, uint64_t *size_out);

/* A progress bar on a stream (stderr by default) for the writers' progress option:
       tp_progress_bar bar = {"model.ptd", NULL, 0};   // label, stream (NULL = stderr)
       opts.progress = tp_progress_bar_fn; opts.progress_ctx = &bar;
   draws "\r  <label> [#####.....]  42% 1234/2938 bytes", redrawn only when the percentage
   changes, and ends the line when done == total. Never cancels (returns 0). */
typedef struct tp_progress_bar {
  const char *label; /* NULL = "writing" */
  FILE *out;         /* NULL = stderr */
  int drawn__;       /* private: the last percentage drawn + 1, 0 = none; 102 = finished */
} tp_progress_bar;
TPDEF int tp_progress_bar_fn(void *bar, uint64_t done, uint64_t total);
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
/* A keyed hash table's key (private; tp__hash_seed in section 11). */
typedef struct tp__hashkey {
  uint64_t k0, k1;
} tp__hashkey;
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
  tp__hashkey index_key__; /* the index's hash key (tp__hash_seed) */
  tp_file_bytes file__; /* tp_ptd_open_file's bytes (released by tp_ptd_close) */
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
#ifndef TP_NO_STDIO
/* tp_ptd_open on the bytes of the file at path (tp_file_bytes_open: mapped where it can be),
   which p then owns until tp_ptd_close. Failures, with a sentence in tp_ptd_error that starts
   with the path: TP_ERR_IO / TP_ERR_NOMEM / TP_ERR_INVALID of tp_file_bytes_open, or
   tp_ptd_open's (the file is then released at once). */
TPDEF tp_status tp_ptd_open_file(tp_ptd *p, const char *path);
#endif
/* Releases the bytes tp_ptd_open_file took (nothing for tp_ptd_open's borrowed bytes) and
   zeroes p. Call it once per tp_ptd_open_file; harmless after a failed open or on a tp_ptd
   that tp_ptd_open filled. Entry pointers are invalid afterwards. */
TPDEF void tp_ptd_close(tp_ptd *p);
/* The open failure (TP_OK when the file opened) and its sentence ("" when none); why the last
   tp_ptd_find / tp_ptd_entry_at / tp_ptd_index failed ("" after a success). Read these, not
   the err and last_lookup fields (kept for source compatibility). */
TPDEF tp_status tp_ptd_status(const tp_ptd *p);
TPDEF const char *tp_ptd_error(const tp_ptd *p);
TPDEF const char *tp_ptd_lookup_error(const tp_ptd *p);
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
   as long as p is used. Building it takes one probe per entry on average, duplicate keys
   included (a repeated key is found and skipped: the index keeps the first entry under each
   key, which tp_ptd_find then returns). Errors: TP_ERR_INVALID (slots too few, or NULL with a
   need > 0), the open failure. */
TPDEF size_t tp_ptd_index_slots(const tp_ptd *p);
TPDEF tp_status tp_ptd_index(tp_ptd *p, uint32_t *slots, size_t nslots);


/* ------------------------------------------------------------------------------------------ */
/* 9. Programs (.pte)                                                                          */
/* ------------------------------------------------------------------------------------------ */
/* An ExecuTorch program ("ET12" flatbuffer + the "eh00" extended header + segments) whose
   methods each call one delegate blob, so a C program goes from weights to a file that
   Program::load -> load_method -> execute (executor_runner) runs. The core knows programs, not
   backends: tensorpack_xnnpack.h / tensorpack_vulkan.h add tp_xnn_add_pte_method /
   tp_vk_add_pte_method on top of tp_pte_add_method.

   LAYOUT (as exir/_serialize/_program.py writes it; all little-endian)
      [0,4) root offset  [4,8) "ET12"  [8,40) eh00: "eh00", u32 32, u64 program size,
      u64 segment base offset, u64 segment data size;  the rest of the flatbuffer;  zero
      padding to the segment base (a multiple of the alignment);  the segments:
        segment 0        the constant segment: the constants of tp_pte_graph methods
                         (constant_segment = {0, offsets [0, each constant's place]}), else
                         empty (offsets [0]): a delegate's weights are in its blob or in
                         named data;
        1 .. d           every method's delegate blobs, in method order (processed =
                         {SEGMENT, k}), each streamed from its producer;
        d + 1 ..         with options.embed: the store's segments (named_data keys -> them);
                         without, named_data is written empty (options.omit_empty_named_data).
      Each segment starts at a multiple of max(alignment, its own alignment) from the base.
   A method added by tp_pte_add_method: its values are its delegate call's arguments, one
   Tensor each, memory-planned in buffer 1 (allocation_info {memory_id 1, offset}, 16-aligned;
   non_const_buffer_sizes [0, total]), so a plain runner needs no set_output_data_ptr; inputs /
   outputs list the arguments of each role in argument order; one chain with one DelegateCall
   (delegate 0, args 0 .. n-1); operators empty; version 0. A tp_pte_graph method (below): its
   values, one chain of its calls, its operators and delegates, buffer 1 planned by lifetime.
   ERRORS: building calls (tp_pte_add_method) latch their first error in the program; later
   building calls return it and a failed program refuses to write. tp_pte_size / _write /
   _write_file never latch: a failure leaves its sentence in tp_pte_error (naming the path or
   the segment) and a retry after fixing the cause succeeds.
   OPERATORS: TP_PTE_OPS (below) is the table of ExecuTorch's portable kernels, generated by
   tools/gen_pte_ops.py from upstream's yaml (tests/README.md, "Regenerating the portable op
   table"); tp_pte_op_find / tp_pte_op_at give an operator's descriptor: its schema arguments
   (kind, optional, list, keyword-only, written) and return values; a KernelCall of it passes
   its arguments and one return slot. */

typedef struct tp_pte tp_pte; /* opaque */

/* Zero-initialised (or NULL options) = the defaults: every field's 0 / NULL is its default. */
typedef struct tp_pte_options {
  tp_store *embed;  /* NULL: no named data in the .pte; set: every entry of this store is written
                       into the .pte as named data (named_data + segments): one file holds all.
                       Borrowed until the program is written. */
  int omit_empty_named_data; /* 0: without embed, an empty named_data table is
                       written (as upstream's serializer does when a program's named data all
                       went to a .ptd): ExecuTorch's runtime then builds its data map, and a
                       blob's named constant that no --data_path supplies fails to load with
                       "Failed to get constant data for key ..." instead of crashing its
                       XNNPACK backend. Non-zero: no named_data table at all (the bytes
                       tensorpack 0.2.0 wrote). */
  size_t alignment; /* segment alignment, a power of two up to 2^24; 0 = 128 (upstream's) */
  tp_progress_fn progress; /* NULL: none; else called as the program is written (section 4);
                              a non-zero return cancels with TP_ERR_CANCELLED */
  void *progress_ctx;      /* its first argument */
  int other_runtime; /* 0: every tp_pte_call_kernel is checked against the portable
                        kernels' operators (TP_PTE_OPS: the operator exists, its argument count,
                        each argument's value kind, the return slot) and its out tensors
                        against the shapes the call makes (TP_PTE_SHAPE_RULES); non-zero: for a
                        runtime with other kernels, only the value ids are checked */
} tp_pte_options;

/* One delegate-call argument as the method sees it (zero = defaults). */
#define TP_PTE_INPUT 1u
#define TP_PTE_OUTPUT 2u
typedef struct tp_pte_tensor {
  unsigned role;      /* TP_PTE_INPUT, TP_PTE_OUTPUT or both */
  tp_dtype dtype;     /* the ScalarType (tp_dtype codes are ScalarType codes) */
  int ndim;           /* 0 .. TP_MAX_DIMS */
  int64_t sizes[TP_MAX_DIMS];          /* each 0 .. INT32_MAX (the schema holds int32) */
  uint8_t dim_order[TP_MAX_DIMS];      /* a permutation of 0..ndim-1; all zero = 0, 1, .. */
} tp_pte_tensor;

/* A backend compile spec (CompileSpec: key + value bytes), copied by tp_pte_add_method. */
typedef struct tp_pte_compile_spec {
  const char *key;
  const void *value;
  size_t nbytes;
} tp_pte_compile_spec;

/* A method: its delegate call's arguments in call order and the delegate blob, which a
   producer streams into a sink at write time (exactly blob_size bytes, else the write fails). */
typedef struct tp_pte_method {
  const char *name;                /* unique in the program, not empty */
  const tp_pte_tensor *args;       /* n_args entries (copied) */
  size_t n_args;
  const char *backend_id;          /* "XnnpackBackend", "VulkanBackend", ... (copied) */
  uint64_t blob_size;              /* exact, > 0 */
  tp_status (*produce)(void *ctx, tp_sink *sink); /* called once per write */
  void *ctx;                       /* borrowed until the program is written */
  const tp_pte_compile_spec *specs; /* n_specs entries (copied); may be NULL when 0 */
  size_t n_specs;
} tp_pte_method;

/* At most this many methods per program and arguments per method (the reader's limits too). */
#define TP_PTE_MAX_METHODS 1024
#define TP_PTE_MAX_ARGS 65536

/* A new empty program; opts NULL = defaults (opts is copied). TP_ERR_INVALID (NULL out, an
   alignment that is not a power of two up to 2^24), TP_ERR_NOMEM. */
TPDEF tp_status tp_pte_create(const tp_pte_options *opts, tp_pte **out);
/* Frees the program (NULL is a no-op); never the embedded store or the producers' contexts. */
TPDEF void tp_pte_destroy(tp_pte *p);
/* The latched building failure as a sentence; else the last failed size/write's; else "". */
TPDEF const char *tp_pte_error(const tp_pte *p);
/* The status of what tp_pte_error describes (TP_OK when none). */
TPDEF tp_status tp_pte_status(const tp_pte *p);
/* Adds a method (copied, see tp_pte_method). Refused, with a sentence naming the value and the
   numbers: NULL m, an empty or repeated name, an empty backend id, a NULL producer, blob size
   0, NULL args with n_args > 0, more than TP_PTE_MAX_METHODS / TP_PTE_MAX_ARGS, a role that is
   not input/output, ndim outside 0..TP_MAX_DIMS, a negative size, a dim_order that is not a
   permutation, an empty spec key, NULL spec bytes with nbytes > 0 (TP_ERR_INVALID); a dtype
   that is not a tp_dtype, a size above INT32_MAX (TP_ERR_UNSUPPORTED); a byte count that
   overflows (TP_ERR_OVERFLOW); TP_ERR_NOMEM. */
TPDEF tp_status tp_pte_add_method(tp_pte *p, const tp_pte_method *m);
/* Number of methods added. */
TPDEF size_t tp_pte_method_count(const tp_pte *p);
/* Exact number of bytes tp_pte_write writes. TP_ERR_INVALID for a program without methods,
   the embedded store's error, TP_ERR_OVERFLOW. */
TPDEF tp_status tp_pte_size(tp_pte *p, uint64_t *size_out);
/* Streams the program into sink: the flatbuffer (built in memory: small), then each blob from
   its producer and each embedded store entry from its view; nothing blob- or model-sized is
   buffered. A producer that writes more or fewer than blob_size bytes is TP_ERR_INVALID. With
   options.progress set it reports (done, total = tp_pte_size). Errors, sentences and
   cancelling: as every writer object (section 11, "writer objects"). */
TPDEF tp_status tp_pte_write(tp_pte *p, tp_sink *sink);
#ifndef TP_NO_STDIO
/* tp_pte_write into path, atomically: an error leaves no file and a sentence naming the path
   in tp_pte_error (section 11, "writer objects"). */
TPDEF tp_status tp_pte_write_file(tp_pte *p, const char *path);
/* tp_pte_size + tp_pte_write_file, a failure's sentence on stderr (as tp_store_save_ptd). */
TPDEF tp_status tp_pte_save(tp_pte *p, const char *path, uint64_t *size_out);
#endif

/* ---- Methods of kernel calls and delegate calls ---------------------------------------------
   A method built value by value, as ExecuTorch's own export lays one out: the ops a delegate
   does not take run on ExecuTorch's kernels (KernelCall: "aten::embedding" "out", ...) in the
   same chain as delegate calls (the blobs of tensorpack_xnnpack.h / tensorpack_vulkan.h), and
   every tensor that is not a constant is memory-planned:
      tp_pte_graph *g;
      uint32_t x, y, one, sum;
      tp_pte_tensor tx = {TP_PTE_INPUT, TP_F32, 1, {4}}, ty = {TP_PTE_OUTPUT, TP_F32, 1, {4}};
      tp_pte_graph_create(p, "forward", &g);
      tp_pte_define_tensor(g, &tx, &x);
      tp_pte_define_tensor(g, &ty, &y);
      tp_pte_define_int(g, 1, &one);
      {  uint32_t args[5] = {x, x, one, y, y};   // add.out(self, other, *, alpha, out) -> out
         tp_pte_call_kernel(g, "aten::add", "out", args, 5);  }
      tp_pte_graph_finish(g);                    // plans memory, adds the method to p
   Values get ids 0, 1, 2, ... in the order they are defined (the EValue indices). A KernelCall's
   arguments are the op schema's arguments in order, out arguments included, then its return
   value(s) again (for an out variant: the out tensors): ExecuTorch's runtime refuses a call
   with one missing. Kernels exist only as out variants ("aten::add" + "out"); a Scalar argument
   takes an Int or Double value, never Null (the runtime aborts); an optional one takes Null.
   Memory plan: every Tensor value that is not a constant lives from its first use to its last
   (inputs: the whole method, so they are never overwritten and a second execute with the same
   inputs is right; outputs: to its end), and tp_pte_graph_finish places them in
   planned buffer 1 so that no two live at once share a byte (first fit, 16-aligned,
   non_const_buffer_sizes = [0, total]): a plain runner needs no set_output_data_ptr and no
   intermediate is left unplanned (the runtime crashes on one). The plan's inputs / outputs are
   the tensors defined with TP_PTE_INPUT / TP_PTE_OUTPUT, in the order they were defined.
   ERRORS: every building call latches its first failure in the graph (later calls return it);
   tp_pte_graph_finish on a failed graph latches that failure in the program, which then
   refuses to write. Ids passed to a call must be values already defined in this graph. */
typedef struct tp_pte_graph tp_pte_graph; /* opaque: one method being built */

/* A delegate a graph calls: its backend blob, streamed at write time (as tp_pte_method's). */
typedef struct tp_pte_delegate {
  const char *backend_id;           /* "XnnpackBackend", "VulkanBackend", ... (copied) */
  uint64_t blob_size;               /* exact, > 0 */
  tp_status (*produce)(void *ctx, tp_sink *sink); /* called once per write */
  void *ctx;                        /* borrowed until the program is written */
  const tp_pte_compile_spec *specs; /* n_specs entries (copied); may be NULL when 0 */
  size_t n_specs;
} tp_pte_delegate;

/* At most this many values and instructions per graph (value indices are int32). */
#define TP_PTE_MAX_VALUES (1 << 24)

/* Starts method `name` of p (one graph open per program at a time; it becomes a method at
   tp_pte_graph_finish). TP_ERR_INVALID: NULL out, an empty or repeated name, another graph
   open, p being written (from its progress callback), p holding TP_PTE_MAX_METHODS methods;
   p's latched failure; TP_ERR_NOMEM. A failure here latches nothing in p. */
TPDEF tp_status tp_pte_graph_create(tp_pte *p, const char *name, tp_pte_graph **out);
/* The graph's first failure (TP_OK when none) and its sentence ("" when none). */
TPDEF tp_status tp_pte_graph_status(const tp_pte_graph *g);
TPDEF const char *tp_pte_graph_error(const tp_pte_graph *g);
/* A Tensor value: t->role TP_PTE_INPUT and/or TP_PTE_OUTPUT, or 0 for an intermediate;
   dtype, sizes and dim_order as tp_pte_add_method checks them. Memory-planned. */
TPDEF tp_status tp_pte_define_tensor(tp_pte_graph *g, const tp_pte_tensor *t, uint32_t *id_out);
/* A constant Tensor: the bytes of view (any strides, offset, dtype), compacted row-major and
   little-endian through the one copy routine into the program's constant segment at write
   time (the view is borrowed until then), 16-aligned; its sizes are the view's, its dim_order
   0, 1, ... Not planned. Refused: NULL view, more than TP_MAX_DIMS dims (TP_ERR_INVALID), a size
   above INT32_MAX (TP_ERR_UNSUPPORTED). */
TPDEF tp_status tp_pte_define_constant(tp_pte_graph *g, const tp_tensor *view, uint32_t *id_out);
/* Scalar values: Int, Double (any double, NaN and infinities included), Bool (0 / non-zero),
   Null (an optional argument left out), String (a NUL-terminated copy, e.g. gelu's
   approximate "tanh"). */
TPDEF tp_status tp_pte_define_int(tp_pte_graph *g, int64_t v, uint32_t *id_out);
TPDEF tp_status tp_pte_define_double(tp_pte_graph *g, double v, uint32_t *id_out);
TPDEF tp_status tp_pte_define_bool(tp_pte_graph *g, int v, uint32_t *id_out);
TPDEF tp_status tp_pte_define_null(tp_pte_graph *g, uint32_t *id_out);
TPDEF tp_status tp_pte_define_string(tp_pte_graph *g, const char *s, uint32_t *id_out);
/* An int[] argument (dim=[1], sizes, ...): n Int values, then the IntList of them (its id is
   the last; n may be 0, v may then be NULL). */
TPDEF tp_status tp_pte_define_int_list(tp_pte_graph *g, const int64_t *v, size_t n,
                                       uint32_t *id_out);
/* A Tensor[] argument (cat's tensors, ...): a TensorList of n Tensor values. */
TPDEF tp_status tp_pte_define_tensor_list(tp_pte_graph *g, const uint32_t *ids, size_t n,
                                          uint32_t *id_out);
/* A Tensor?[] argument (index's indices, ...): an OptionalTensorList of n Tensor or Null values
   (a Null entry is a None). */
TPDEF tp_status tp_pte_define_optional_tensor_list(tp_pte_graph *g, const uint32_t *ids,
                                                   size_t n, uint32_t *id_out);
/* A KernelCall of op `name` ("aten::add": with its namespace) overload `overload` ("out"):
   args are value ids (above). Refused (TP_ERR_INVALID): a NULL or empty name or one without
   "::", a NULL overload, NULL args with n > 0, more than TP_PTE_MAX_ARGS, an id that is not
   defined. Unless tp_pte_options.other_runtime, checked against TP_PTE_OPS (below), with a
   sentence naming the instruction, the argument and the values: an operator the portable
   kernels do not have (TP_ERR_UNSUPPORTED); a count other than its arguments plus the one
   return slot; an argument whose value has another kind (TP_ERR_INVALID: a Tensor takes a Tensor, a
   Scalar an Int or a Double, int / SymInt / ScalarType / MemoryFormat / Layout an Int, float a
   Double, bool a Bool, str a String, int[] an IntList, Tensor[] a TensorList, Tensor?[] an
   OptionalTensorList; an optional one also Null); for an operator with one return value, a
   return slot that is not the value of the argument it returns (the out tensor again; with
   none or several the slot may be any value: the runtime does not read it); an out tensor
   whose dtype or sizes differ from what its row of TP_PTE_SHAPE_RULES (below) derives, or
   inputs that make no shape (TP_ERR_INVALID, naming the argument and both shapes: "out is f32
   [2, 5], mm of [2, 3] x [3, 4] makes [2, 4]"). The operator table (name, overload) is the
   method's, each pair once. */
TPDEF tp_status tp_pte_call_kernel(tp_pte_graph *g, const char *name, const char *overload,
                                   const uint32_t *args, size_t n);
/* A DelegateCall of delegate d (copied; its blob streamed at write time) with args, which must
   be Tensor values (in the order the backend takes them: XNNPACK's by external id). Refused
   as tp_pte_add_method refuses its delegate (empty backend id, NULL producer, blob size 0,
   empty spec key, ...) and for an id that is not a defined Tensor. */
TPDEF tp_status tp_pte_call_delegate(tp_pte_graph *g, const tp_pte_delegate *d,
                                     const uint32_t *args, size_t n);
/* Tensor value id of g (its role, dtype, sizes, dim_order; a constant's role is 0) into *out.
   TP_ERR_INVALID when id is not a Tensor value of g (or out is NULL). */
TPDEF tp_status tp_pte_graph_tensor(const tp_pte_graph *g, uint32_t id, tp_pte_tensor *out);
/* Plans the graph's memory (above) and adds it to its program as a method; frees g in every
   case (NULL: no-op returning TP_ERR_INVALID). Refused: a failed graph (its failure, latched
   in the program), a graph without instructions (TP_ERR_INVALID), a planned buffer of 2^63
   bytes or more (TP_ERR_OVERFLOW); TP_ERR_NOMEM. */
TPDEF tp_status tp_pte_graph_finish(tp_pte_graph *g);
/* Abandons g without adding it (NULL is a no-op). tp_pte_destroy frees an open graph. */
TPDEF void tp_pte_graph_destroy(tp_pte_graph *g);

/* ---- the operators of ExecuTorch's portable kernels ----------------------------------------
   A KernelCall names an operator (ExecutionPlan.operators: name "aten::add", overload "out";
   the runtime looks the kernel up as "name.overload", or "name" alone when the overload is
   empty) and passes one value index per argument of the operator's schema, in schema order,
   followed by ONE return slot, whatever the schema returns (nothing, a tensor or a tuple):
   for add.out(self, other, *, alpha, out) -> out that is 5 indices, the last one the out
   tensor again; native_layer_norm.out (3 outs, a tuple of 3) takes 9; split_copy.Tensor_out
   (returns nothing) 5. Measured: the kernel registration ExecuTorch generates for its portable
   library checks exactly num_args + 1 values for each of the 209 (its "Expected N args"), and
   reads the slot for none of them. TP_PTE_OPS(X) is the table of every kernel the
   portable library (kernels/portable/functions.yaml of pytorch/executorch, commit cff6f4dd32)
   registers, with the schema it is called by, one X(name, overload, args, returns) per kernel,
   sorted by "name.overload" (strcmp order). tools/gen_pte_ops.py generates it from that file
   and the native_functions.yaml of the PyTorch the commit pins (tests/README.md,
   "Regenerating the portable op table").
     args     the schema's arguments in order, one space apart; a lone `*` where the
              keyword-only arguments start; each argument "name:CODE", CODE a kind letter of
              TP_PTE_ARG_KINDS (T Tensor, S Scalar, I int, Y SymInt, F float, B bool, Z str,
              D ScalarType, M MemoryFormat, L Layout, V Device, G Generator), then `?` (the
              value may be None: Tensor? is T?), `[]` (a list), `?` after `[]` (the list itself
              may be None: int[]? is I[]?; Tensor?[] is T?[], a list whose items may be None),
              and `!` for an argument the kernel writes (Tensor(a!) out)
     returns  per return value, the name of the argument it aliases ("" for none: the
              kernels whose out is a Tensor[] return nothing)
   209 kernels: out variants, plus copy_ and index_put_ (which write their self). A runtime
   built with the portable kernels alone fails load_method (OperatorMissing) on any other
   operator; other kernel libraries (optimized, quantized, custom) register their own. */

/* generated by tools/gen_pte_ops.py: 209 ops, from kernels/portable/functions.yaml of
   pytorch/executorch cff6f4dd32 and native_functions.yaml of
   pytorch/pytorch 2e35e48464 (nearest stored to the pin, release/2.13). Do not edit by hand:
   regenerate (tests/README.md). */
#define TP_PTE_OPS(X) \
  X("aten::_adaptive_avg_pool2d", "out", "self:T output_size:Y[] * out:T!", "out") \
  X("aten::_cdist_forward", "out", "x1:T x2:T p:F compute_mode:I? * out:T!", "out") \
  X("aten::_conj_physical", "out", "self:T * out:T!", "out") \
  X("aten::_log_softmax", "out", "self:T dim:I half_to_float:B * out:T!", "out") \
  X("aten::_native_batch_norm_legit", "no_stats_out", "input:T weight:T? bias:T? training:B momentum:F eps:F * out:T! save_mean:T! save_invstd:T!", "out save_mean save_invstd") \
  X("aten::_native_batch_norm_legit", "out", "input:T weight:T? bias:T? running_mean:T! running_var:T! training:B momentum:F eps:F * out:T! save_mean:T! save_invstd:T!", "out save_mean save_invstd") \
  X("aten::_native_batch_norm_legit_no_training", "out", "input:T weight:T? bias:T? running_mean:T running_var:T momentum:F eps:F * out0:T! out1:T! out2:T!", "out0 out1 out2") \
  X("aten::_pdist_forward", "out", "self:T p:F * out:T!", "out") \
  X("aten::_softmax", "out", "self:T dim:I half_to_float:B * out:T!", "out") \
  X("aten::_to_copy", "out", "self:T * non_blocking:B memory_format:M? out:T!", "out") \
  X("aten::_upsample_bilinear2d_aa", "out", "self:T output_size:Y[] align_corners:B scales_h:F? scales_w:F? * out:T!", "out") \
  X("aten::abs", "out", "self:T * out:T!", "out") \
  X("aten::acos", "out", "self:T * out:T!", "out") \
  X("aten::acosh", "out", "self:T * out:T!", "out") \
  X("aten::add", "Scalar_out", "self:T other:S alpha:S * out:T!", "out") \
  X("aten::add", "out", "self:T other:T * alpha:S out:T!", "out") \
  X("aten::addmm", "out", "self:T mat1:T mat2:T * beta:S alpha:S out:T!", "out") \
  X("aten::alias_copy", "out", "self:T * out:T!", "out") \
  X("aten::amax", "out", "self:T dim:I[] keepdim:B * out:T!", "out") \
  X("aten::amin", "out", "self:T dim:I[] keepdim:B * out:T!", "out") \
  X("aten::any", "all_out", "self:T * out:T!", "out") \
  X("aten::any", "dims_out", "self:T dim:I[]? keepdim:B * out:T!", "out") \
  X("aten::any", "out", "self:T dim:I keepdim:B * out:T!", "out") \
  X("aten::arange", "out", "end:S * out:T!", "out") \
  X("aten::arange", "start_out", "start:S end:S step:S * out:T!", "out") \
  X("aten::argmax", "out", "self:T dim:I? keepdim:B * out:T!", "out") \
  X("aten::argmin", "out", "self:T dim:I? keepdim:B * out:T!", "out") \
  X("aten::as_strided_copy", "out", "self:T size:Y[] stride:Y[] storage_offset:Y? * out:T!", "out") \
  X("aten::asin", "out", "self:T * out:T!", "out") \
  X("aten::asinh", "out", "self:T * out:T!", "out") \
  X("aten::atan", "out", "self:T * out:T!", "out") \
  X("aten::atan2", "out", "self:T other:T * out:T!", "out") \
  X("aten::atanh", "out", "self:T * out:T!", "out") \
  X("aten::avg_pool2d", "out", "self:T kernel_size:I[] stride:I[] padding:I[] ceil_mode:B count_include_pad:B divisor_override:I? * out:T!", "out") \
  X("aten::bitwise_and", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::bitwise_and", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::bitwise_left_shift", "Tensor_Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::bitwise_left_shift", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::bitwise_not", "out", "self:T * out:T!", "out") \
  X("aten::bitwise_or", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::bitwise_or", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::bitwise_right_shift", "Tensor_Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::bitwise_right_shift", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::bitwise_xor", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::bitwise_xor", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::bmm", "out", "self:T mat2:T * out:T!", "out") \
  X("aten::cat", "out", "tensors:T[] dim:I * out:T!", "out") \
  X("aten::ceil", "out", "self:T * out:T!", "out") \
  X("aten::clamp", "Tensor_out", "self:T min:T? max:T? * out:T!", "out") \
  X("aten::clamp", "out", "self:T min:S? max:S? * out:T!", "out") \
  X("aten::clone", "out", "self:T * memory_format:M? out:T!", "out") \
  X("aten::constant_pad_nd", "out", "self:T pad:Y[] value:S * out:T!", "out") \
  X("aten::convolution", "out", "input:T weight:T bias:T? stride:Y[] padding:Y[] dilation:Y[] transposed:B output_padding:Y[] groups:Y * out:T!", "out") \
  X("aten::convolution_backward", "out", "grad_output:T input:T weight:T bias_sizes:Y[]? stride:Y[] padding:Y[] dilation:Y[] transposed:B output_padding:Y[] groups:Y output_mask:B[] * out0:T! out1:T! out2:T!", "out0 out1 out2") \
  X("aten::copy", "out", "self:T src:T non_blocking:B * out:T!", "out") \
  X("aten::copy_", "", "self:T! src:T non_blocking:B", "self") \
  X("aten::cos", "out", "self:T * out:T!", "out") \
  X("aten::cosh", "out", "self:T * out:T!", "out") \
  X("aten::cumsum", "out", "self:T dim:I * dtype:D? out:T!", "out") \
  X("aten::detach_copy", "out", "self:T * out:T!", "out") \
  X("aten::diagonal_copy", "out", "self:T offset:I dim1:I dim2:I * out:T!", "out") \
  X("aten::div", "Scalar_mode_out", "self:T other:S * rounding_mode:Z? out:T!", "out") \
  X("aten::div", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::div", "out", "self:T other:T * out:T!", "out") \
  X("aten::div", "out_mode", "self:T other:T * rounding_mode:Z? out:T!", "out") \
  X("aten::elu", "out", "self:T alpha:S scale:S input_scale:S * out:T!", "out") \
  X("aten::embedding", "out", "weight:T indices:T padding_idx:Y scale_grad_by_freq:B sparse:B * out:T!", "out") \
  X("aten::empty", "out", "size:Y[] * memory_format:M? out:T!", "out") \
  X("aten::eq", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::eq", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::erf", "out", "self:T * out:T!", "out") \
  X("aten::exp", "out", "self:T * out:T!", "out") \
  X("aten::expand_copy", "out", "self:T size:Y[] * implicit:B out:T!", "out") \
  X("aten::expm1", "out", "self:T * out:T!", "out") \
  X("aten::fill", "Scalar_out", "self:T value:S * out:T!", "out") \
  X("aten::fill", "Tensor_out", "self:T value:T * out:T!", "out") \
  X("aten::flip", "out", "self:T dims:I[] * out:T!", "out") \
  X("aten::floor", "out", "self:T * out:T!", "out") \
  X("aten::floor_divide", "out", "self:T other:T * out:T!", "out") \
  X("aten::fmod", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::fmod", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::full", "out", "size:Y[] fill_value:S * out:T!", "out") \
  X("aten::full_like", "out", "self:T fill_value:S * memory_format:M? out:T!", "out") \
  X("aten::gather", "out", "self:T dim:I index:T * sparse_grad:B out:T!", "out") \
  X("aten::ge", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::ge", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::gelu", "out", "self:T * approximate:Z out:T!", "out") \
  X("aten::glu", "out", "self:T dim:I * out:T!", "out") \
  X("aten::grid_sampler_2d", "out", "input:T grid:T interpolation_mode:I padding_mode:I align_corners:B * out:T!", "out") \
  X("aten::gt", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::gt", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::hardtanh", "out", "self:T min_val:S max_val:S * out:T!", "out") \
  X("aten::index", "Tensor_out", "self:T indices:T?[] * out:T!", "out") \
  X("aten::index_put", "out", "self:T indices:T?[] values:T accumulate:B * out:T!", "out") \
  X("aten::index_put_", "", "self:T! indices:T?[] values:T accumulate:B", "self") \
  X("aten::index_select", "out", "self:T dim:I index:T * out:T!", "out") \
  X("aten::isinf", "out", "self:T * out:T!", "out") \
  X("aten::isnan", "out", "self:T * out:T!", "out") \
  X("aten::le", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::le", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::leaky_relu", "out", "self:T negative_slope:S * out:T!", "out") \
  X("aten::lift_fresh_copy", "out", "self:T * out:T!", "out") \
  X("aten::log", "out", "self:T * out:T!", "out") \
  X("aten::log10", "out", "self:T * out:T!", "out") \
  X("aten::log1p", "out", "self:T * out:T!", "out") \
  X("aten::log2", "out", "self:T * out:T!", "out") \
  X("aten::logical_and", "out", "self:T other:T * out:T!", "out") \
  X("aten::logical_not", "out", "self:T * out:T!", "out") \
  X("aten::logical_or", "out", "self:T other:T * out:T!", "out") \
  X("aten::logical_xor", "out", "self:T other:T * out:T!", "out") \
  X("aten::logit", "out", "self:T eps:F? * out:T!", "out") \
  X("aten::lt", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::lt", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::masked_fill", "Scalar_out", "self:T mask:T value:S * out:T!", "out") \
  X("aten::masked_scatter", "out", "self:T mask:T source:T * out:T!", "out") \
  X("aten::masked_select", "out", "self:T mask:T * out:T!", "out") \
  X("aten::max", "dim_max", "self:T dim:I keepdim:B * max:T! max_values:T!", "max max_values") \
  X("aten::max", "unary_out", "self:T * out:T!", "out") \
  X("aten::max_pool2d_with_indices", "out", "self:T kernel_size:I[] stride:I[] padding:I[] dilation:I[] ceil_mode:B * out:T! indices:T!", "out indices") \
  X("aten::max_pool2d_with_indices_backward", "grad_input", "grad_output:T self:T kernel_size:I[] stride:I[] padding:I[] dilation:I[] ceil_mode:B indices:T * grad_input:T!", "grad_input") \
  X("aten::maximum", "out", "self:T other:T * out:T!", "out") \
  X("aten::mean", "dtype_out", "self:T * dtype:D? out:T!", "out") \
  X("aten::mean", "out", "self:T dim:I[]? keepdim:B * dtype:D? out:T!", "out") \
  X("aten::min", "dim_min", "self:T dim:I keepdim:B * min:T! min_indices:T!", "min min_indices") \
  X("aten::min", "unary_out", "self:T * out:T!", "out") \
  X("aten::minimum", "out", "self:T other:T * out:T!", "out") \
  X("aten::mm", "out", "self:T mat2:T * out:T!", "out") \
  X("aten::mul", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::mul", "out", "self:T other:T * out:T!", "out") \
  X("aten::narrow_copy", "out", "self:T dim:I start:Y length:Y * out:T!", "out") \
  X("aten::native_dropout", "out", "input:T p:F train:B? * out0:T! out1:T!", "out0 out1") \
  X("aten::native_group_norm", "out", "input:T weight:T? bias:T? N:Y C:Y HxW:Y group:I eps:F * out0:T! out1:T! out2:T!", "out0 out1 out2") \
  X("aten::native_layer_norm", "out", "input:T normalized_shape:Y[] weight:T? bias:T? eps:F * out0:T! out1:T! out2:T!", "out0 out1 out2") \
  X("aten::ne", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::ne", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::neg", "out", "self:T * out:T!", "out") \
  X("aten::nonzero", "out", "self:T * out:T!", "out") \
  X("aten::ones", "out", "size:Y[] * out:T!", "out") \
  X("aten::permute_copy", "out", "self:T dims:I[] * out:T!", "out") \
  X("aten::pixel_shuffle", "out", "self:T upscale_factor:I * out:T!", "out") \
  X("aten::pixel_unshuffle", "out", "self:T downscale_factor:I * out:T!", "out") \
  X("aten::pow", "Scalar_out", "self:S exponent:T * out:T!", "out") \
  X("aten::pow", "Tensor_Scalar_out", "self:T exponent:S * out:T!", "out") \
  X("aten::pow", "Tensor_Tensor_out", "self:T exponent:T * out:T!", "out") \
  X("aten::prod", "int_out", "self:T dim:I keepdim:B * dtype:D? out:T!", "out") \
  X("aten::prod", "out", "self:T * dtype:D? out:T!", "out") \
  X("aten::rand", "out", "size:Y[] * out:T!", "out") \
  X("aten::randn", "out", "size:Y[] * out:T!", "out") \
  X("aten::reciprocal", "out", "self:T * out:T!", "out") \
  X("aten::reflection_pad1d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::reflection_pad2d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::reflection_pad3d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::relu", "out", "self:T * out:T!", "out") \
  X("aten::remainder", "Scalar_out", "self:T other:S * out:T!", "out") \
  X("aten::remainder", "Tensor_out", "self:T other:T * out:T!", "out") \
  X("aten::repeat", "out", "self:T repeats:Y[] * out:T!", "out") \
  X("aten::repeat_interleave", "Tensor_out", "repeats:T * output_size:Y? out:T!", "out") \
  X("aten::replication_pad1d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::replication_pad2d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::replication_pad3d", "out", "self:T padding:Y[] * out:T!", "out") \
  X("aten::roll", "out", "self:T shifts:Y[] dims:I[] * out:T!", "out") \
  X("aten::round", "out", "self:T * out:T!", "out") \
  X("aten::rsqrt", "out", "self:T * out:T!", "out") \
  X("aten::rsub", "Scalar_out", "self:T other:S alpha:S * out:T!", "out") \
  X("aten::scalar_tensor", "out", "s:S * out:T!", "out") \
  X("aten::scatter", "src_out", "self:T dim:I index:T src:T * out:T!", "out") \
  X("aten::scatter", "value_out", "self:T dim:I index:T value:S * out:T!", "out") \
  X("aten::scatter_add", "out", "self:T dim:I index:T src:T * out:T!", "out") \
  X("aten::select_copy", "int_out", "self:T dim:I index:Y * out:T!", "out") \
  X("aten::select_scatter", "out", "self:T src:T dim:I index:Y * out:T!", "out") \
  X("aten::sigmoid", "out", "self:T * out:T!", "out") \
  X("aten::sign", "out", "self:T * out:T!", "out") \
  X("aten::sin", "out", "self:T * out:T!", "out") \
  X("aten::sinh", "out", "self:T * out:T!", "out") \
  X("aten::slice_copy", "Tensor_out", "self:T dim:I start:Y? end:Y? step:Y * out:T!", "out") \
  X("aten::slice_scatter", "out", "self:T src:T dim:I start:Y? end:Y? step:Y * out:T!", "out") \
  X("aten::split_copy", "Tensor_out", "self:T split_size:Y dim:I * out:T[]!", "") \
  X("aten::split_with_sizes_copy", "out", "self:T split_sizes:Y[] dim:I * out:T[]!", "") \
  X("aten::sqrt", "out", "self:T * out:T!", "out") \
  X("aten::squeeze_copy", "dim_out", "self:T dim:I * out:T!", "out") \
  X("aten::squeeze_copy", "dims_out", "self:T dim:I[] * out:T!", "out") \
  X("aten::stack", "out", "tensors:T[] dim:I * out:T!", "out") \
  X("aten::sub", "Scalar_out", "self:T other:S alpha:S * out:T!", "out") \
  X("aten::sub", "out", "self:T other:T * alpha:S out:T!", "out") \
  X("aten::sum", "IntList_out", "self:T dim:I[]? keepdim:B * dtype:D? out:T!", "out") \
  X("aten::t_copy", "out", "self:T * out:T!", "out") \
  X("aten::tan", "out", "self:T * out:T!", "out") \
  X("aten::tanh", "out", "self:T * out:T!", "out") \
  X("aten::topk", "values", "self:T k:Y dim:I largest:B sorted:B * values:T! indices:T!", "values indices") \
  X("aten::transpose_copy", "int_out", "self:T dim0:I dim1:I * out:T!", "out") \
  X("aten::tril", "out", "self:T diagonal:Y * out:T!", "out") \
  X("aten::trunc", "out", "self:T * out:T!", "out") \
  X("aten::unbind_copy", "int_out", "self:T dim:I * out:T[]!", "") \
  X("aten::unfold_copy", "out", "self:T dimension:I size:I step:I * out:T!", "out") \
  X("aten::unsqueeze_copy", "out", "self:T dim:I * out:T!", "out") \
  X("aten::upsample_bilinear2d", "vec_out", "input:T output_size:Y[]? align_corners:B scale_factors:F[]? * out:T!", "out") \
  X("aten::upsample_nearest2d", "vec_out", "input:T output_size:Y[]? scale_factors:F[]? * out:T!", "out") \
  X("aten::var", "correction_out", "self:T dim:I[]? * correction:S? keepdim:B out:T!", "out") \
  X("aten::var", "out", "self:T dim:I[]? unbiased:B keepdim:B * out:T!", "out") \
  X("aten::var_mean", "correction_out", "self:T dim:I[]? * correction:S? keepdim:B out0:T! out1:T!", "out0 out1") \
  X("aten::view_as_real_copy", "out", "self:T * out:T!", "out") \
  X("aten::view_copy", "out", "self:T size:Y[] * out:T!", "out") \
  X("aten::where", "self_out", "condition:T self:T other:T * out:T!", "out") \
  X("aten::zeros", "out", "size:Y[] * out:T!", "out") \
  X("dim_order_ops::_clone_dim_order", "out", "self:T * non_blocking:B dim_order:I[]? out:T!", "out") \
  X("dim_order_ops::_empty_dim_order", "out", "size:I[] * dim_order:I[]? out:T!", "out") \
  X("dim_order_ops::_to_dim_order_copy", "out", "self:T * non_blocking:B dim_order:I[]? out:T!", "out") \
  X("et_copy::_d2h_copy", "out", "self:T * out:T!", "out") \
  X("et_copy::_h2d_copy", "out", "self:T * out:T!", "out")
/* end of the generated table (209 ops) */

/* The argument kinds: X(KIND, code letter, schema spelling). */
#define TP_PTE_ARG_KINDS(X)                                                                    \
  X(TENSOR, 'T', "Tensor") X(SCALAR, 'S', "Scalar") X(INT, 'I', "int") X(SYMINT, 'Y', "SymInt") \
  X(FLOAT, 'F', "float") X(BOOL, 'B', "bool") X(STRING, 'Z', "str")                            \
  X(SCALAR_TYPE, 'D', "ScalarType") X(MEMORY_FORMAT, 'M', "MemoryFormat")                      \
  X(LAYOUT, 'L', "Layout") X(DEVICE, 'V', "Device") X(GENERATOR, 'G', "Generator")
typedef enum tp_pte_arg_kind {
  TP_PTE_ARG_NONE = 0,
#define TP__PTE_ARG_ENUM(K, code, spelling) TP_PTE_ARG_##K,
  TP_PTE_ARG_KINDS(TP__PTE_ARG_ENUM)
#undef TP__PTE_ARG_ENUM
  TP_PTE_ARG_END__
} tp_pte_arg_kind;

/* Limits of one descriptor (the generator checks every op fits; the largest has 14 arguments,
   3 returns and 18-character argument names). */
#define TP_PTE_OP_MAX_ARGS 24
#define TP_PTE_OP_MAX_RETURNS 4

/* One schema argument. "Tensor? bias" is {TENSOR, optional}; "int[]? dim" {INT, is_list,
   optional}; "Tensor?[] indices" {TENSOR, is_list, elem_optional}; "Tensor(a!) out" {TENSOR,
   kwarg_only, is_out}. */
typedef struct tp_pte_op_arg {
  char name[32];                 /* as in the schema ("self", "alpha", "out0") */
  tp_pte_arg_kind kind;          /* the type, or the type of the list's items */
  unsigned char is_list;         /* Tensor[], int[], SymInt[], float[], bool[] ... */
  unsigned char optional;        /* the argument may be a Null value (Tensor?, int[]?, str?) */
  unsigned char elem_optional;   /* the list's items may be None (Tensor?[]) */
  unsigned char kwarg_only;      /* after the schema's `*` */
  unsigned char is_out;          /* the kernel writes it: the out tensors (Tensor(a!) out),
                                    and copy_ / index_put_'s self, batch norm's running stats */
} tp_pte_op_arg;

/* An operator of TP_PTE_OPS: a KernelCall of it has num_args + 1 value indices (the last one
   the return slot, above). */
typedef struct tp_pte_op {
  const char *name, *overload;   /* "aten::add", "out" (the table's strings) */
  uint32_t num_args;             /* schema arguments, args[0 .. num_args-1] */
  uint32_t num_returns;          /* the schema's return values (0 .. TP_PTE_OP_MAX_RETURNS) */
  tp_pte_op_arg args[TP_PTE_OP_MAX_ARGS];
  uint32_t returns[TP_PTE_OP_MAX_RETURNS]; /* return value r is the argument args[returns[r]]
                                              (an is_out argument) */
} tp_pte_op;

/* Number of entries of TP_PTE_OPS (209). */
TPDEF size_t tp_pte_op_count(void);
/* Index in TP_PTE_OPS of the kernel the runtime finds for (name, overload): the key
   "name.overload", or "name" when overload is NULL or "" (so "aten::add.out" with no overload
   finds add.out, as the runtime does); exact and case-sensitive. -1 when none (also for a
   NULL name). */
TPDEF int tp_pte_op_find(const char *name, const char *overload);
/* The descriptor of entry i into *out. TP_ERR_INVALID for a NULL out or i >= tp_pte_op_count(),
   TP_ERR_FORMAT for an entry that does not follow the grammar above (only a hand-edited table
   has one: tests/test_pte_ops.c parses every entry); out is untouched on failure. */
TPDEF tp_status tp_pte_op_at(size_t i, tp_pte_op *out);
/* tp_pte_op_find, then tp_pte_op_at. TP_ERR_UNSUPPORTED when the portable kernels have no
   such operator, TP_ERR_INVALID for a NULL out. */
TPDEF tp_status tp_pte_op_lookup(const char *name, const char *overload, tp_pte_op *out);
/* The schema spelling of a kind ("Tensor", "Scalar", "SymInt" ...), or "?". */
TPDEF const char *tp_pte_arg_kind_name(tp_pte_arg_kind kind);

/* ---- out shapes: what a kernel call's out tensors must be ---------------------------------
   ExecuTorch's portable kernels resize each out tensor to the shape they compute; a STATIC
   tensor (every tensor tensorpack writes) of other sizes fails execute ("Attempted to resize a
   static tensor"). So, unless tp_pte_options.other_runtime, tp_pte_call_kernel derives the out
   shapes of the operators below from the call's own values (tensors' sizes, Int / IntList /
   Bool / Double / Null arguments) and refuses a call whose out tensor has others, with a
   sentence naming the operator, the argument, the given and the derived shape ("aten::mm.out:
   out is f32 [2, 5], mm of [2, 3] x [3, 4] makes [2, 4]"), and a call whose inputs make no
   shape at all (mm of [2, 3] x [4, 5], a view of 12 elements as [5, -1], a dim out of range),
   naming the inputs. One row per operator: X(name, overload, KIND, inputs, dtype) with
     KIND    how the shape is made from the inputs (the schema argument names, in this order):
             SAME        the first input's shape (unary ops, .Scalar_out, softmax, gelu, clamp)
             BROADCAST   the inputs' shapes broadcast together (a Null input is left out)
             MM          [n, k] x [k, m] -> [n, m];  BMM: [b, n, k] x [b, k, m] -> [b, n, m]
             ADDMM       self + mat1 x mat2: [n, m], self broadcastable to it
             VIEW        self's elements as size (one -1 takes what is left)
             PERMUTE     self's dims in the order dims;  TRANSPOSE: dims dim0, dim1 swapped
             EXPAND      self broadcast to size (-1 keeps a size; new dims in front)
             SLICE       dim's size becomes the count of start:end:step (Null start 0, Null end
                         the size; Python clamping; step > 0)
             SELECT      dim removed (index in range);  UNSQUEEZE: a 1 inserted at dim
             SQUEEZE     the size-1 dims among dim (an int or an int list) removed
             CAT         tensors joined along dim (1-D empty tensors skipped, as the kernel does)
             EMBEDDING   indices' shape + [weight's row length] (weight 2-D)
             INDEX_SELECT  dim's size becomes index's element count (index 0-D or 1-D)
             LAYER_NORM  out0 input's shape; out1, out2 (mean, rstd) with the normalized_shape
                         dims set to 1 (normalized_shape = input's last dims)
             REDUCE      dims removed (kept as 1 with keepdim; a Null or empty dim list: all)
             FULL        the size list;  ARANGE: [count of start:end:step] (start 0, step 1 when
                         not inputs; Int or Double scalars)
     dtype   "" no dtype rule; "=" every out has the first input's dtype (for CAT the first
             tensor's); "~" when the tensor inputs share one floating dtype (f16, bf16, f32,
             f64), every out has it. An Int `dtype` argument of the op (sum, mean) overrides
             both: the out has that ScalarType. ("~" asks for the type the op computes; the
             kernels of add.out, sum and a few more would also cast into a wider out, which
             other_runtime lets through.)
   Operators without a row (index, conv, pooling, ...) are not checked here. */
#define TP_PTE_SHAPE_RULES(X) \
  X("aten::_log_softmax", "out", SAME, "self", "=") \
  X("aten::_softmax", "out", SAME, "self", "=") \
  X("aten::abs", "out", SAME, "self", "~") \
  X("aten::acos", "out", SAME, "self", "~") \
  X("aten::acosh", "out", SAME, "self", "~") \
  X("aten::add", "Scalar_out", SAME, "self", "~") \
  X("aten::add", "out", BROADCAST, "self other", "~") \
  X("aten::addmm", "out", ADDMM, "self mat1 mat2", "=") \
  X("aten::alias_copy", "out", SAME, "self", "=") \
  X("aten::amax", "out", REDUCE, "self dim keepdim", "=") \
  X("aten::amin", "out", REDUCE, "self dim keepdim", "=") \
  X("aten::arange", "out", ARANGE, "end", "") \
  X("aten::arange", "start_out", ARANGE, "start end step", "") \
  X("aten::asin", "out", SAME, "self", "~") \
  X("aten::asinh", "out", SAME, "self", "~") \
  X("aten::atan", "out", SAME, "self", "~") \
  X("aten::atan2", "out", BROADCAST, "self other", "~") \
  X("aten::atanh", "out", SAME, "self", "~") \
  X("aten::bitwise_and", "Scalar_out", SAME, "self", "") \
  X("aten::bitwise_and", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::bitwise_left_shift", "Tensor_Scalar_out", SAME, "self", "") \
  X("aten::bitwise_left_shift", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::bitwise_not", "out", SAME, "self", "") \
  X("aten::bitwise_or", "Scalar_out", SAME, "self", "") \
  X("aten::bitwise_or", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::bitwise_right_shift", "Tensor_Scalar_out", SAME, "self", "") \
  X("aten::bitwise_right_shift", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::bitwise_xor", "Scalar_out", SAME, "self", "") \
  X("aten::bitwise_xor", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::bmm", "out", BMM, "self mat2", "=") \
  X("aten::cat", "out", CAT, "tensors dim", "~") \
  X("aten::ceil", "out", SAME, "self", "~") \
  X("aten::clamp", "Tensor_out", BROADCAST, "self min max", "~") \
  X("aten::clamp", "out", SAME, "self", "~") \
  X("aten::clone", "out", SAME, "self", "=") \
  X("aten::cos", "out", SAME, "self", "~") \
  X("aten::cosh", "out", SAME, "self", "~") \
  X("aten::detach_copy", "out", SAME, "self", "=") \
  X("aten::div", "Scalar_mode_out", SAME, "self", "~") \
  X("aten::div", "Scalar_out", SAME, "self", "~") \
  X("aten::div", "out", BROADCAST, "self other", "~") \
  X("aten::div", "out_mode", BROADCAST, "self other", "~") \
  X("aten::elu", "out", SAME, "self", "~") \
  X("aten::embedding", "out", EMBEDDING, "weight indices", "=") \
  X("aten::empty", "out", FULL, "size", "") \
  X("aten::eq", "Scalar_out", SAME, "self", "") \
  X("aten::eq", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::erf", "out", SAME, "self", "~") \
  X("aten::exp", "out", SAME, "self", "~") \
  X("aten::expand_copy", "out", EXPAND, "self size", "=") \
  X("aten::expm1", "out", SAME, "self", "~") \
  X("aten::floor", "out", SAME, "self", "~") \
  X("aten::floor_divide", "out", BROADCAST, "self other", "~") \
  X("aten::fmod", "Scalar_out", SAME, "self", "~") \
  X("aten::fmod", "Tensor_out", BROADCAST, "self other", "~") \
  X("aten::full", "out", FULL, "size", "") \
  X("aten::full_like", "out", SAME, "self", "") \
  X("aten::ge", "Scalar_out", SAME, "self", "") \
  X("aten::ge", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::gelu", "out", SAME, "self", "=") \
  X("aten::gt", "Scalar_out", SAME, "self", "") \
  X("aten::gt", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::hardtanh", "out", SAME, "self", "~") \
  X("aten::index_select", "out", INDEX_SELECT, "self dim index", "=") \
  X("aten::isinf", "out", SAME, "self", "") \
  X("aten::isnan", "out", SAME, "self", "") \
  X("aten::le", "Scalar_out", SAME, "self", "") \
  X("aten::le", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::leaky_relu", "out", SAME, "self", "~") \
  X("aten::log", "out", SAME, "self", "~") \
  X("aten::log10", "out", SAME, "self", "~") \
  X("aten::log1p", "out", SAME, "self", "~") \
  X("aten::log2", "out", SAME, "self", "~") \
  X("aten::logical_and", "out", BROADCAST, "self other", "") \
  X("aten::logical_not", "out", SAME, "self", "") \
  X("aten::logical_or", "out", BROADCAST, "self other", "") \
  X("aten::logical_xor", "out", BROADCAST, "self other", "") \
  X("aten::logit", "out", SAME, "self", "~") \
  X("aten::lt", "Scalar_out", SAME, "self", "") \
  X("aten::lt", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::maximum", "out", BROADCAST, "self other", "~") \
  X("aten::mean", "out", REDUCE, "self dim keepdim", "~") \
  X("aten::minimum", "out", BROADCAST, "self other", "~") \
  X("aten::mm", "out", MM, "self mat2", "=") \
  X("aten::mul", "Scalar_out", SAME, "self", "~") \
  X("aten::mul", "out", BROADCAST, "self other", "~") \
  X("aten::native_layer_norm", "out", LAYER_NORM, "input normalized_shape", "=") \
  X("aten::ne", "Scalar_out", SAME, "self", "") \
  X("aten::ne", "Tensor_out", BROADCAST, "self other", "") \
  X("aten::neg", "out", SAME, "self", "~") \
  X("aten::ones", "out", FULL, "size", "") \
  X("aten::permute_copy", "out", PERMUTE, "self dims", "=") \
  X("aten::pow", "Tensor_Scalar_out", SAME, "self", "~") \
  X("aten::pow", "Tensor_Tensor_out", BROADCAST, "self exponent", "~") \
  X("aten::reciprocal", "out", SAME, "self", "~") \
  X("aten::relu", "out", SAME, "self", "~") \
  X("aten::remainder", "Scalar_out", SAME, "self", "~") \
  X("aten::remainder", "Tensor_out", BROADCAST, "self other", "~") \
  X("aten::round", "out", SAME, "self", "~") \
  X("aten::rsqrt", "out", SAME, "self", "~") \
  X("aten::rsub", "Scalar_out", SAME, "self", "~") \
  X("aten::select_copy", "int_out", SELECT, "self dim index", "=") \
  X("aten::sigmoid", "out", SAME, "self", "~") \
  X("aten::sign", "out", SAME, "self", "~") \
  X("aten::sin", "out", SAME, "self", "~") \
  X("aten::sinh", "out", SAME, "self", "~") \
  X("aten::slice_copy", "Tensor_out", SLICE, "self dim start end step", "=") \
  X("aten::sqrt", "out", SAME, "self", "~") \
  X("aten::squeeze_copy", "dim_out", SQUEEZE, "self dim", "=") \
  X("aten::squeeze_copy", "dims_out", SQUEEZE, "self dim", "=") \
  X("aten::sub", "Scalar_out", SAME, "self", "~") \
  X("aten::sub", "out", BROADCAST, "self other", "~") \
  X("aten::sum", "IntList_out", REDUCE, "self dim keepdim", "~") \
  X("aten::tan", "out", SAME, "self", "~") \
  X("aten::tanh", "out", SAME, "self", "~") \
  X("aten::transpose_copy", "int_out", TRANSPOSE, "self dim0 dim1", "=") \
  X("aten::tril", "out", SAME, "self", "=") \
  X("aten::trunc", "out", SAME, "self", "~") \
  X("aten::unsqueeze_copy", "out", UNSQUEEZE, "self dim", "=") \
  X("aten::view_copy", "out", VIEW, "self size", "=") \
  X("aten::where", "self_out", BROADCAST, "condition self other", "") \
  X("aten::zeros", "out", FULL, "size", "")
/* The KINDs of TP_PTE_SHAPE_RULES. */
#define TP_PTE_SHAPE_KINDS(X) \
  X(SAME) X(BROADCAST) X(MM) X(BMM) X(ADDMM) X(VIEW) X(PERMUTE) X(TRANSPOSE) X(EXPAND) \
  X(SLICE) X(SELECT) X(UNSQUEEZE) X(SQUEEZE) X(CAT) X(EMBEDDING) X(INDEX_SELECT) \
  X(LAYER_NORM) X(REDUCE) X(FULL) X(ARANGE)

/* ---- ET12 description ----------------------------------------------------------------------
   program.fbs once: every table's fields with their ids (X(Table, field, FIELD, id, kind,
   default)); kinds: TP_PTE_K_* below. The writer, the reader and tpdump use the ids as
   TP_PTE_F_<Table>_<field>; tests/verify_pte.cpp checks every row against flatc's generated
   VT_<FIELD> offsets. A union is two rows: <field>_type (u8 tag) and <field>.
   Shared tables (one delegate, value, instruction or plan reached through many offsets): a
   budget. tp_pte_read runs under its reader's visit budget (tp_fb_reader: max(1M, 8 x the
   program's bytes) tables opened plus vector elements and strings read), so a file whose
   offsets make the check revisit one table N times is refused past it ("method M: visit budget
   ... exceeded ...") in time linear in the file. The accessors after the read are not
   budgeted (their calls are the caller's). */
#define TP_PTE_K_BOOL 1
#define TP_PTE_K_I8 2
#define TP_PTE_K_U8 3
#define TP_PTE_K_I32 4
#define TP_PTE_K_U32 5
#define TP_PTE_K_I64 6
#define TP_PTE_K_U64 7
#define TP_PTE_K_F64 8
#define TP_PTE_K_STRING 9
#define TP_PTE_K_TABLE 10
#define TP_PTE_K_UTYPE 11   /* a union's tag */
#define TP_PTE_K_UNION 12   /* a union's value */
#define TP_PTE_K_VEC_BOOL 13
#define TP_PTE_K_VEC_U8 14
#define TP_PTE_K_VEC_I32 15
#define TP_PTE_K_VEC_I64 16
#define TP_PTE_K_VEC_U64 17
#define TP_PTE_K_VEC_F64 18
#define TP_PTE_K_VEC_TABLE 19

#define TP_PTE_FIELDS(X)                                                                       \
  X(ContainerMetadata, encoded_inp_str, ENCODED_INP_STR, 0, TP_PTE_K_STRING, 0)                \
  X(ContainerMetadata, encoded_out_str, ENCODED_OUT_STR, 1, TP_PTE_K_STRING, 0)                \
  X(AllocationDetails, memory_id, MEMORY_ID, 0, TP_PTE_K_U32, 0)                               \
  X(AllocationDetails, memory_offset_low, MEMORY_OFFSET_LOW, 1, TP_PTE_K_U32, 0)               \
  X(AllocationDetails, memory_offset_high, MEMORY_OFFSET_HIGH, 2, TP_PTE_K_U32, 0)             \
  X(ExtraTensorInfo, mutable_data_segments_idx, MUTABLE_DATA_SEGMENTS_IDX, 0, TP_PTE_K_U64, 0) \
  X(ExtraTensorInfo, fully_qualified_name, FULLY_QUALIFIED_NAME, 1, TP_PTE_K_STRING, 0)        \
  X(ExtraTensorInfo, location, LOCATION, 2, TP_PTE_K_I8, 0)                                    \
  X(ExtraTensorInfo, device_type, DEVICE_TYPE, 3, TP_PTE_K_I8, 0)                              \
  X(ExtraTensorInfo, device_index, DEVICE_INDEX, 4, TP_PTE_K_I8, 0)                            \
  X(Tensor, scalar_type, SCALAR_TYPE, 0, TP_PTE_K_I8, 0)                                       \
  X(Tensor, storage_offset, STORAGE_OFFSET, 1, TP_PTE_K_I32, 0)                                \
  X(Tensor, sizes, SIZES, 2, TP_PTE_K_VEC_I32, 0)                                              \
  X(Tensor, dim_order, DIM_ORDER, 3, TP_PTE_K_VEC_U8, 0)                                       \
  X(Tensor, requires_grad, REQUIRES_GRAD, 4, TP_PTE_K_BOOL, 0)                                 \
  X(Tensor, data_buffer_idx, DATA_BUFFER_IDX, 5, TP_PTE_K_U32, 0)                              \
  X(Tensor, allocation_info, ALLOCATION_INFO, 6, TP_PTE_K_TABLE, 0)                            \
  X(Tensor, layout, LAYOUT, 7, TP_PTE_K_I8, 0)                                                 \
  X(Tensor, shape_dynamism, SHAPE_DYNAMISM, 8, TP_PTE_K_I8, 0)                                 \
  X(Tensor, extra_tensor_info, EXTRA_TENSOR_INFO, 9, TP_PTE_K_TABLE, 0)                        \
  X(Int, int_val, INT_VAL, 0, TP_PTE_K_I64, 0)                                                 \
  X(Bool, bool_val, BOOL_VAL, 0, TP_PTE_K_BOOL, 0)                                             \
  X(Double, double_val, DOUBLE_VAL, 0, TP_PTE_K_F64, 0)                                        \
  X(String, string_val, STRING_VAL, 0, TP_PTE_K_STRING, 0)                                     \
  X(IntList, items, ITEMS, 0, TP_PTE_K_VEC_I64, 0)                                             \
  X(DoubleList, items, ITEMS, 0, TP_PTE_K_VEC_F64, 0)                                          \
  X(BoolList, items, ITEMS, 0, TP_PTE_K_VEC_BOOL, 0)                                           \
  X(TensorList, items, ITEMS, 0, TP_PTE_K_VEC_I32, 0)                                          \
  X(OptionalTensorList, items, ITEMS, 0, TP_PTE_K_VEC_I32, 0)                                  \
  X(EValue, val_type, VAL_TYPE, 0, TP_PTE_K_UTYPE, 0)                                          \
  X(EValue, val, VAL, 1, TP_PTE_K_UNION, 0)                                                    \
  X(Operator, name, NAME, 0, TP_PTE_K_STRING, 0)                                               \
  X(Operator, overload, OVERLOAD, 1, TP_PTE_K_STRING, 0)                                       \
  X(KernelCall, op_index, OP_INDEX, 0, TP_PTE_K_I32, 0)                                        \
  X(KernelCall, args, ARGS, 1, TP_PTE_K_VEC_I32, 0)                                            \
  X(DelegateCall, delegate_index, DELEGATE_INDEX, 0, TP_PTE_K_I32, 0)                          \
  X(DelegateCall, args, ARGS, 1, TP_PTE_K_VEC_I32, 0)                                          \
  X(MoveCall, move_from, MOVE_FROM, 0, TP_PTE_K_I32, 0)                                        \
  X(MoveCall, move_to, MOVE_TO, 1, TP_PTE_K_I32, 0)                                            \
  X(JumpFalseCall, cond_value_index, COND_VALUE_INDEX, 0, TP_PTE_K_I32, 0)                     \
  X(JumpFalseCall, destination_instruction, DESTINATION_INSTRUCTION, 1, TP_PTE_K_I32, 0)       \
  X(FreeCall, value_index, VALUE_INDEX, 0, TP_PTE_K_I32, 0)                                    \
  X(Instruction, instr_args_type, INSTR_ARGS_TYPE, 0, TP_PTE_K_UTYPE, 0)                       \
  X(Instruction, instr_args, INSTR_ARGS, 1, TP_PTE_K_UNION, 0)                                 \
  X(Frame, filename, FILENAME, 0, TP_PTE_K_STRING, 0)                                          \
  X(Frame, lineno, LINENO, 1, TP_PTE_K_I32, 0)                                                 \
  X(Frame, name, NAME, 2, TP_PTE_K_STRING, 0)                                                  \
  X(Frame, context, CONTEXT, 3, TP_PTE_K_STRING, 0)                                            \
  X(FrameList, items, ITEMS, 0, TP_PTE_K_VEC_TABLE, 0)                                         \
  X(BackendDelegateDataReference, location, LOCATION, 0, TP_PTE_K_I8, 0)                       \
  X(BackendDelegateDataReference, index, INDEX, 1, TP_PTE_K_U32, 0)                            \
  X(CompileSpec, key, KEY, 0, TP_PTE_K_STRING, 0)                                              \
  X(CompileSpec, value, VALUE, 1, TP_PTE_K_VEC_U8, 0)                                          \
  X(BackendDelegate, id, ID, 0, TP_PTE_K_STRING, 0)                                            \
  X(BackendDelegate, processed, PROCESSED, 1, TP_PTE_K_TABLE, 0)                               \
  X(BackendDelegate, compile_specs, COMPILE_SPECS, 2, TP_PTE_K_VEC_TABLE, 0)                   \
  X(Chain, inputs, INPUTS, 0, TP_PTE_K_VEC_I32, 0)                                             \
  X(Chain, outputs, OUTPUTS, 1, TP_PTE_K_VEC_I32, 0)                                           \
  X(Chain, instructions, INSTRUCTIONS, 2, TP_PTE_K_VEC_TABLE, 0)                               \
  X(Chain, stacktrace, STACKTRACE, 3, TP_PTE_K_VEC_TABLE, 0)                                   \
  X(ExecutionPlan, name, NAME, 0, TP_PTE_K_STRING, 0)                                          \
  X(ExecutionPlan, container_meta_type, CONTAINER_META_TYPE, 1, TP_PTE_K_TABLE, 0)             \
  X(ExecutionPlan, values, VALUES, 2, TP_PTE_K_VEC_TABLE, 0)                                   \
  X(ExecutionPlan, inputs, INPUTS, 3, TP_PTE_K_VEC_I32, 0)                                     \
  X(ExecutionPlan, outputs, OUTPUTS, 4, TP_PTE_K_VEC_I32, 0)                                   \
  X(ExecutionPlan, chains, CHAINS, 5, TP_PTE_K_VEC_TABLE, 0)                                   \
  X(ExecutionPlan, operators, OPERATORS, 6, TP_PTE_K_VEC_TABLE, 0)                             \
  X(ExecutionPlan, delegates, DELEGATES, 7, TP_PTE_K_VEC_TABLE, 0)                             \
  X(ExecutionPlan, non_const_buffer_sizes, NON_CONST_BUFFER_SIZES, 8, TP_PTE_K_VEC_I64, 0)     \
  X(ExecutionPlan, non_const_buffer_device, NON_CONST_BUFFER_DEVICE, 9, TP_PTE_K_VEC_TABLE, 0) \
  X(NonConstBufferDevice, buffer_idx, BUFFER_IDX, 0, TP_PTE_K_I32, 0)                          \
  X(NonConstBufferDevice, device_type, DEVICE_TYPE, 1, TP_PTE_K_I8, 0)                         \
  X(NonConstBufferDevice, device_index, DEVICE_INDEX, 2, TP_PTE_K_I8, 0)                       \
  X(Buffer, storage, STORAGE, 0, TP_PTE_K_VEC_U8, 0)                                           \
  X(BackendDelegateInlineData, data, DATA, 0, TP_PTE_K_VEC_U8, 0)                              \
  X(DataSegment, offset, OFFSET, 0, TP_PTE_K_U64, 0)                                           \
  X(DataSegment, size, SIZE, 1, TP_PTE_K_U64, 0)                                               \
  X(SubsegmentOffsets, segment_index, SEGMENT_INDEX, 0, TP_PTE_K_U32, 0)                       \
  X(SubsegmentOffsets, offsets, OFFSETS, 1, TP_PTE_K_VEC_U64, 0)                               \
  X(NamedData, key, KEY, 0, TP_PTE_K_STRING, 0)                                                \
  X(NamedData, segment_index, SEGMENT_INDEX, 1, TP_PTE_K_U32, 0)                               \
  X(Program, version, VERSION, 0, TP_PTE_K_U32, 0)                                             \
  X(Program, execution_plan, EXECUTION_PLAN, 1, TP_PTE_K_VEC_TABLE, 0)                         \
  X(Program, constant_buffer, CONSTANT_BUFFER, 2, TP_PTE_K_VEC_TABLE, 0)                       \
  X(Program, backend_delegate_data, BACKEND_DELEGATE_DATA, 3, TP_PTE_K_VEC_TABLE, 0)           \
  X(Program, segments, SEGMENTS, 4, TP_PTE_K_VEC_TABLE, 0)                                     \
  X(Program, constant_segment, CONSTANT_SEGMENT, 5, TP_PTE_K_TABLE, 0)                         \
  X(Program, mutable_data_segments, MUTABLE_DATA_SEGMENTS, 6, TP_PTE_K_VEC_TABLE, 0)           \
  X(Program, named_data, NAMED_DATA, 7, TP_PTE_K_VEC_TABLE, 0)

/* The field ids: TP_PTE_F_Tensor_sizes == 2, ... */
enum {
#define TP__PTE_FIELD_ENUM(T, f, F, id, kind, dflt) TP_PTE_F_##T##_##f = id,
  TP_PTE_FIELDS(TP__PTE_FIELD_ENUM)
#undef TP__PTE_FIELD_ENUM
  TP_PTE_F_END__
};

/* Union members (KernelTypes for EValue.val, InstructionArguments for Instruction.instr_args)
   and enums: X(Name, tag). */
#define TP_PTE_KERNEL_TYPES(X)                                                                 \
  X(Null, 1) X(Int, 2) X(Bool, 3) X(Double, 4) X(Tensor, 5) X(String, 6) X(IntList, 7)          \
  X(DoubleList, 8) X(BoolList, 9) X(TensorList, 10) X(OptionalTensorList, 11)
#define TP_PTE_INSTRUCTIONS(X)                                                                 \
  X(KernelCall, 1) X(DelegateCall, 2) X(MoveCall, 3) X(JumpFalseCall, 4) X(FreeCall, 5)
enum {
#define TP__PTE_TAG_ENUM(N, tag) TP_PTE_V_##N = tag,
  TP_PTE_KERNEL_TYPES(TP__PTE_TAG_ENUM)
#undef TP__PTE_TAG_ENUM
#define TP__PTE_TAG_ENUM(N, tag) TP_PTE_I_##N = tag,
  TP_PTE_INSTRUCTIONS(TP__PTE_TAG_ENUM)
#undef TP__PTE_TAG_ENUM
  TP_PTE_DATA_INLINE = 0, TP_PTE_DATA_SEGMENT = 1   /* DataLocation */
};

/* One row of the description, for walkers (tpdump) and tests. */
typedef struct tp_pte_field_info {
  const char *table, *field;
  uint16_t id;
  int kind;
} tp_pte_field_info;
/* The rows of TP_PTE_FIELDS in order; *count gets their number. */
TPDEF const tp_pte_field_info *tp_pte_fields(size_t *count);
/* Union member name for a tag ("Tensor", "DelegateCall"), or "?". */
TPDEF const char *tp_pte_value_kind_name(int tag);
TPDEF const char *tp_pte_instruction_name(int tag);

/* ---- .pte reader (bounds-checked, no verifier needed) ------------------------------------
   tp_pte_read checks, against the byte count: at least 64 bytes (the loader reads them
   first); "ET12"; the eh00 header when present (length >= 24; program size <= file; segment
   base >= program size and base + segment data size <= file, without wrap); the flatbuffer
   [0, program size) through the bounds-checked reader; and then everything the runtime uses,
   including what upstream's loader does not check: an execution_plan with 1 ..
   TP_PTE_MAX_METHODS plans, each with a non-empty unique name, values, inputs and outputs
   whose every index names a value, at least one chain whose instructions are known kinds
   with every value index, operator index, delegate index and jump target in range,
   delegates with an id and a processed reference (INLINE: inside backend_delegate_data;
   SEGMENT: a segment, which needs the extended header), compile specs with key and value,
   non_const_buffer_sizes present and >= 0, tensors with a known ScalarType, sizes and
   dim_order of equal count <= TP_MAX_DIMS, sizes >= 0, dim_order a permutation, and a
   memory plan (memory_id 1 .. buffers - 1, offset + nbytes inside that buffer); segments
   inside the segment data; the constant segment (required: the loader refuses programs
   without one) with offsets and a valid segment index; named_data keys without a NUL inside
   and valid segment indices. Anything else is TP_ERR_FORMAT with a sentence in f->err; nothing
   is read outside the bytes; nothing is allocated. The bytes must stay alive while f is used. */
typedef struct tp_pte_file {
  const unsigned char *data;
  size_t size;
  int has_extended_header;
  uint64_t program_size, segment_base, segment_data_size;
  uint32_t version;
  size_t n_methods, n_segments, n_named, n_inline;
  tp_error err;   /* the open failure (sticky: every later call returns it) */
  /* private */
  tp_fb_reader r__;
  tp_fb_table root__;
  tp_file_bytes file__; /* tp_pte_read_file's bytes (released by tp_pte_close) */
} tp_pte_file;

typedef struct tp_pte_method_info {
  const char *name;
  size_t n_values, n_inputs, n_outputs, n_chains, n_operators, n_delegates, n_buffers;
  uint64_t planned_bytes;        /* sum of non_const_buffer_sizes */
} tp_pte_method_info;

typedef struct tp_pte_value_info {
  int kind;                      /* KernelTypes tag (TP_PTE_V_*), 0 = none */
  /* Tensor only: */
  int scalar_type;               /* ScalarType code */
  int ndim;
  int64_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
  int shape_dynamism;
  uint64_t nbytes;               /* numel x element size */
  int planned;                   /* has allocation_info */
  uint32_t memory_id;
  uint64_t memory_offset;
  uint32_t data_buffer_idx;      /* > 0 (without allocation_info): a constant, whose bytes */
  const void *data;              /* (nbytes of them) are here, inside the file; else NULL */
  /* Int / Bool / Double: */
  int64_t i;
  double d;
} tp_pte_value_info;

typedef struct tp_pte_instruction_info {
  int kind;                      /* InstructionArguments tag (TP_PTE_I_*) */
  int32_t index;                 /* delegate_index, op_index, move_from, cond_value_index,
                                    value_index */
  int32_t index2;                /* move_to, destination_instruction */
  tp_fb_vector args;             /* Kernel/DelegateCall: int32 value indices (all in range);
                                    read them with tp_fb_vector_scalar */
} tp_pte_instruction_info;

typedef struct tp_pte_delegate_info {
  const char *id;
  int location;                  /* TP_PTE_DATA_INLINE or TP_PTE_DATA_SEGMENT */
  uint32_t index;                /* into backend_delegate_data or segments */
  const void *data;              /* the blob, inside the file bytes */
  uint64_t nbytes;
  uint64_t file_offset;          /* where the blob starts in the file */
  size_t n_specs;
} tp_pte_delegate_info;

/* Parses and checks everything (above). TP_ERR_FORMAT, TP_ERR_INVALID (NULL data, size > 0). */
TPDEF tp_status tp_pte_read(tp_pte_file *f, const void *data, size_t size);
#ifndef TP_NO_STDIO
/* tp_pte_read on the bytes of the file at path (tp_file_bytes_open: mapped where it can be),
   which f then owns until tp_pte_close. Failures, with a sentence in f->err that starts with
   the path: tp_file_bytes_open's, or tp_pte_read's (the file is then released at once). */
TPDEF tp_status tp_pte_read_file(tp_pte_file *f, const char *path);
#endif
/* Releases the bytes tp_pte_read_file took (nothing for tp_pte_read's borrowed bytes) and
   zeroes f. Once per tp_pte_read_file; harmless after a failure or on a tp_pte_read one. */
TPDEF void tp_pte_close(tp_pte_file *f);
/* Accessors (all checked by tp_pte_read; an index out of range is TP_ERR_INVALID). */
TPDEF tp_status tp_pte_method_at(tp_pte_file *f, size_t m, tp_pte_method_info *out);
/* Method m by name; TP_ERR_INVALID when there is none. */
TPDEF tp_status tp_pte_method_find(tp_pte_file *f, const char *name, size_t *m_out);
TPDEF tp_status tp_pte_value_at(tp_pte_file *f, size_t m, size_t v, tp_pte_value_info *out);
/* Value index of plan input (is_output 0) or output (1) number k. */
TPDEF tp_status tp_pte_io_at(tp_pte_file *f, size_t m, int is_output, size_t k, size_t *v_out);
/* Buffer size non_const_buffer_sizes[b] of method m. */
TPDEF tp_status tp_pte_buffer_at(tp_pte_file *f, size_t m, size_t b, uint64_t *size_out);
/* Number of instructions of chain c, and instruction k of it. */
TPDEF tp_status tp_pte_chain_size(tp_pte_file *f, size_t m, size_t c, size_t *n_out);
TPDEF tp_status tp_pte_instruction_at(tp_pte_file *f, size_t m, size_t c, size_t k,
                                      tp_pte_instruction_info *out);
TPDEF tp_status tp_pte_delegate_at(tp_pte_file *f, size_t m, size_t d,
                                   tp_pte_delegate_info *out);
TPDEF tp_status tp_pte_compile_spec_at(tp_pte_file *f, size_t m, size_t d, size_t k,
                                       const char **key, const void **value, size_t *nbytes);
/* Operator k of method m: its name ("aten::add") and overload ("out"; "" when absent), both
   NUL-terminated inside the file. */
TPDEF tp_status tp_pte_operator_at(tp_pte_file *f, size_t m, size_t k, const char **name,
                                   const char **overload);
/* Segment i: offset from the segment base and size. */
TPDEF tp_status tp_pte_segment_at(tp_pte_file *f, size_t i, uint64_t *offset, uint64_t *size);
/* Named data entry i: key, segment index and bytes (inside the file). The named keys a
   program's delegates use that it does not hold (what a .ptd beside it must bring) are the
   backends' to say, reading their blobs: tp_xnn_pte_missing_keys, tp_vk_pte_missing_keys. */
TPDEF tp_status tp_pte_named_at(tp_pte_file *f, size_t i, const char **key,
                                uint32_t *segment_index, const void **data, uint64_t *nbytes);

/* ------------------------------------------------------------------------------------------ */
/* 10. Inputs: safetensors files, JSON documents and DLPack tensors                           */
/* ------------------------------------------------------------------------------------------ */
/* Views straight from what converters start with, zero-copy and checked like every view.

   safetensors (https://github.com/huggingface/safetensors): a u64 little-endian header length
   N, N bytes of JSON ({"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]}, ...,
   optional "__metadata__": {"k": "v"}}; trailing JSON whitespace allowed), then the data; b and
   e count bytes from the start of the data. tp_safetensors_open checks, against the byte
   count: the header length (at most 100,000,000 bytes, as the reference loader) and that it
   fits the file; strict JSON (RFC 8259 strings with escapes and UTF-8, no duplicate keys in an
   object, nesting at most 64 deep in ignored fields); every tensor has a dtype string, a shape
   of integers <= INT64_MAX and two data_offsets; shape x dtype equals e - b (no overflow);
   sorted by offset, the tensors tile the data exactly (no gap, no overlap, the last one ends at
   the end of the file); names are unique and hold no NUL; __metadata__ maps strings to
   strings. Anything else is TP_ERR_FORMAT with a sentence naming the tensor and the numbers;
   an unknown dtype string is TP_ERR_UNSUPPORTED naming it. Nothing is read outside the bytes.
   dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL give views; the file's other dtypes (U16
   U32 U64 F8_E4M3 F8_E5M2 F8_E8M0 C64 F6_E2M3 F6_E3M2 F4) are checked and listed, and getting
   one is TP_ERR_UNSUPPORTED naming it (as is a shape with more than TP_MAX_DIMS dims, and, on a
   big-endian host, a multi-byte dtype: the file's bytes are little-endian).
   The file bytes are borrowed: keep them alive and unchanged while the views are used (the
   views point into them, each view's storage is exactly its tensor's byte range; its data is as
   aligned as the file bytes plus 8 + N + b). Names and metadata are copied (unescaped).
   Cost: nothing is shared in JSON, so neither a memo nor a budget: the header is parsed in one
   pass, each object's keys, the tensor names and the __metadata__ keys are checked for
   duplicates by sorting them (n log n comparisons, never n^2), and tp_safetensors_find and
   tp_safetensors_metadata search the sorted names (log n). */
typedef struct tp_safetensors tp_safetensors;

/* Parses and checks file[0, nbytes) (above). *err (may be NULL) is reset on entry and holds the
   sentence of a failure. Errors: TP_ERR_FORMAT, TP_ERR_UNSUPPORTED (unknown dtype),
   TP_ERR_INVALID (NULL out, NULL file with nbytes > 0), TP_ERR_NOMEM. */
TPDEF tp_status tp_safetensors_open(const void *file, size_t nbytes, tp_safetensors **out,
                                    tp_error *err);
#ifndef TP_NO_STDIO
/* tp_safetensors_open on the bytes of the file at path (tp_file_bytes_open: mapped where it
   can be, else read), which *out owns: tp_safetensors_close releases them, and views from it
   are valid until then. A failure's sentence in *err starts with the path. Errors: those of
   tp_file_bytes_open and of tp_safetensors_open. */
TPDEF tp_status tp_safetensors_open_file(const char *path, tp_safetensors **out, tp_error *err);
#endif
/* Frees the object, and the file bytes when tp_safetensors_open_file took them (never bytes
   given to tp_safetensors_open). NULL is a no-op. */
TPDEF void tp_safetensors_close(tp_safetensors *st);
/* Number of tensors (__metadata__ is not one). */
TPDEF size_t tp_safetensors_count(const tp_safetensors *st);
/* Tensor i in header order: *name (may be NULL; owned by st) is set whenever i is in range, even
   when the view cannot be made; *out (may be NULL) receives a row-major view of its bytes.
   Errors: TP_ERR_INVALID (i out of range), TP_ERR_UNSUPPORTED (dtype, dims or host, above). */
TPDEF tp_status tp_safetensors_get(const tp_safetensors *st, size_t i, const char **name,
                                   tp_tensor *out);
/* The tensor named exactly `name` (binary search). Errors: TP_ERR_INVALID (NULL name, no such
   tensor), the errors of tp_safetensors_get. */
TPDEF tp_status tp_safetensors_find(const tp_safetensors *st, const char *name, tp_tensor *out);
/* The __metadata__ value under key (*value owned by st). TP_ERR_INVALID when there is none. */
TPDEF tp_status tp_safetensors_metadata(const tp_safetensors *st, const char *key,
                                        const char **value);
/* The last get/find/metadata call's failure (TP_OK and "" after a call that succeeded). A
   failed lookup never spoils the object. */
TPDEF tp_status tp_safetensors_status(const tp_safetensors *st);
TPDEF const char *tp_safetensors_error(const tp_safetensors *st);

/* JSON configuration files (a Hugging Face config.json, a tokenizer's settings): one JSON
   object read with the safetensors header's strict reader into a read-only document whose
   top-level keys are looked up by name. Checked like the header: strict RFC 8259 (strings with
   escapes and UTF-8, no \u0000; numbers by its grammar, any length; literals), no key twice in
   any object, nested values at most 64 deep (they are skipped, but checked all the same), at
   most 100,000,000 bytes, trailing whitespace only; the top level must be an object. A
   failure is TP_ERR_FORMAT with a sentence naming the byte ("bad JSON at byte 7: expected
   ':'"). Nothing is read outside the bytes, which are not kept (the document owns copies of
   its keys, strings and numbers). Cost: one pass over the text, each object's keys sorted
   once to find a duplicate (k log k comparisons), lookups by binary search (log k). */
typedef struct tp_json tp_json;

/* What a top-level value is. */
typedef enum tp_json_kind {
  TP_JSON_NULL,
  TP_JSON_BOOL,
  TP_JSON_NUMBER,
  TP_JSON_STRING,
  TP_JSON_ARRAY,
  TP_JSON_OBJECT
} tp_json_kind;

/* Parses text[0, nbytes) (above) into *out. *err (may be NULL) is reset on entry and holds the
   sentence of a failure. Errors: TP_ERR_FORMAT, TP_ERR_INVALID (NULL out, NULL text with
   nbytes > 0), TP_ERR_NOMEM. */
TPDEF tp_status tp_json_open(const void *text, size_t nbytes, tp_json **out, tp_error *err);
#ifndef TP_NO_STDIO
/* tp_json_open on the bytes of the file at path (released before it returns); a failure's
   sentence starts with the path. Errors: those of tp_file_bytes_open and of tp_json_open. */
TPDEF tp_status tp_json_open_file(const char *path, tp_json **out, tp_error *err);
#endif
/* Frees the document. NULL is a no-op. */
TPDEF void tp_json_close(tp_json *doc);
/* Number of top-level keys. */
TPDEF size_t tp_json_count(const tp_json *doc);
/* Top-level key i in the text's order: *key (may be NULL; owned by doc) and *kind (may be
   NULL). Errors: TP_ERR_INVALID (i out of range). */
TPDEF tp_status tp_json_key(const tp_json *doc, size_t i, const char **key, tp_json_kind *kind);
/* The kind of the value under key (*kind may be NULL: a presence test). Errors:
   TP_ERR_INVALID (NULL key; no such key: "no key \"n_head\""). */
TPDEF tp_status tp_json_find(const tp_json *doc, const char *key, tp_json_kind *kind);
/* The value under key as an int64: a number written as an integer (no fraction, no exponent)
   within INT64_MIN..INT64_MAX. Errors: TP_ERR_INVALID (no such key; another kind; "key \"n\"
   is 12.5, not an integer"; outside int64). */
TPDEF tp_status tp_json_int(const tp_json *doc, const char *key, int64_t *value);
/* The value under key as the double nearest to its decimal text (correctly rounded; a number
   too small for a double is 0 or subnormal). Errors: TP_ERR_INVALID (no such key; another
   kind; a magnitude above the largest double). */
TPDEF tp_status tp_json_number(const tp_json *doc, const char *key, double *value);
/* The string under key, unescaped, NUL-terminated (*value owned by doc). Errors:
   TP_ERR_INVALID (no such key; another kind). */
TPDEF tp_status tp_json_string(const tp_json *doc, const char *key, const char **value);
/* The boolean under key (*value 1 for true, 0 for false). Errors: TP_ERR_INVALID (no such
   key; another kind). */
TPDEF tp_status tp_json_bool(const tp_json *doc, const char *key, int *value);
/* The last lookup's failure (TP_OK and "" after a lookup that succeeded). A failed lookup
   never spoils the document. */
TPDEF tp_status tp_json_status(const tp_json *doc);
TPDEF const char *tp_json_error(const tp_json *doc);

#if defined(DLPACK_VERSION) || defined(DLPACK_MAJOR_VERSION)
/* DLPack (dlpack.h included before this header, in the implementation file too): a view of a
   DLTensor. CPU device only (kDLCPU; a CUDA-host / pinned buffer is not accepted either); lanes
   must be 1; dtypes: kDLFloat 16/32/64, kDLBfloat 16, kDLInt 8/16/32/64, kDLUInt 8, bool (code
   6, 8 bits). byte_offset becomes the element offset (a byte_offset that is not a multiple of
   the element size moves the storage start instead); NULL strides = row-major; strides count
   elements, as in DLPack. storage_nbytes: how many bytes from t->data the caller vouches for;
   0 = exactly the bytes the view addresses (the storage is then the view's span, negative
   strides included). The view is checked like every other (tp_tensor_check).
   *err (may be NULL) is reset on entry and holds the sentence of a failure. Errors:
   TP_ERR_INVALID (NULL t or out, NULL data, ndim outside 0..TP_MAX_DIMS, negative size),
   TP_ERR_UNSUPPORTED (device, dtype, lanes), TP_ERR_BOUNDS / TP_ERR_OVERFLOW (the view leaves
   storage_nbytes, or its extent overflows; a storage or span that would run past the end of
   the address space is TP_ERR_BOUNDS: no pointer is ever computed by wrapping). */
TPDEF tp_status tp_view_from_dlpack(const DLTensor *t, size_t storage_nbytes, tp_tensor *out,
                                    tp_error *err);
#endif

/* ------------------------------------------------------------------------------------------ */
/* 11. For the backend headers, not for users                                                  */
/* ------------------------------------------------------------------------------------------ */
/* What tensorpack_xnnpack.h, tensorpack_vulkan.h and tools/tpdump.c share with the core and a
   program has no use for: tp__ names, not part of the API, may change in any release. They are
   extern because a backend's implementation may live in another file than the core's. */

/* ---- errors: the first failure's sentence ---------------------------------------------- */
/* Internal (not API; the headers' objects use it to latch a sentence): records a failure in e
   unless e already holds one (the first failure sticks). Returns e->status afterwards (the
   first failure's status). e may be NULL: then it just returns s. */
TPDEF tp_status tp__error_set(tp_error *e, tp_status s, const char *fmt, ...) TP__PRINTF(3, 4);
/* Internal: printf into out (cap > 0 bytes, always terminated), with or without stdio. */
TPDEF void tp__format(char *out, size_t cap, const char *fmt, ...) TP__PRINTF(3, 4);

/* ---- bytes, checked arithmetic, arrays, keyed hash sets --------------------------------- */
/* Little-endian stores and loads, from shifts: the bytes never depend on the host. */
TPDEF void tp__put_le16(unsigned char *p, uint16_t v);
TPDEF void tp__put_le32(unsigned char *p, uint32_t v);
TPDEF void tp__put_le64(unsigned char *p, uint64_t v);
TPDEF uint16_t tp__get_le16(const unsigned char *p);
TPDEF uint32_t tp__get_le32(const unsigned char *p);
TPDEF uint64_t tp__get_le64(const unsigned char *p);
/* Checked arithmetic: 0 on success, 1 on overflow (out untouched then). */
TPDEF int tp__add_u64(uint64_t a, uint64_t b, uint64_t *out);
TPDEF int tp__mul_u64(uint64_t a, uint64_t b, uint64_t *out);
/* Round v up to a multiple of align: 0, or 1 on overflow or when align is not a power of 2. */
TPDEF int tp__align_u64(uint64_t v, uint64_t align, uint64_t *out);
/* Grows *data (elements of elem_size) to hold at least need elements; TP_ERR_NOMEM or
   TP_ERR_OVERFLOW on failure (then *data is unchanged). */
TPDEF tp_status tp__array_reserve(void **data, size_t *cap, size_t need, size_t elem_size);
/* Hashed keys, the one lookup table behind every "is this key already here" (the store's keys
   and contents, named-mode XNNPACK constants, tp_ptd_index): open addressing with linear
   probing over slots holding item index + 1 (0 = empty); cap is 0 or a power of two and the
   table is kept at most half full, grown by doubling. The items and their hashes stay with the
   caller, which hands them in through callbacks. tp__keyset_probe returns the slot holding the
   item that match accepts, or the empty slot where an item with hash h goes (match may be NULL:
   the first empty slot); cap must be > 0. tp__keyset_reserve makes room for count items,
   rehashing with hash(ctx, item); TP_ERR_NOMEM / TP_ERR_OVERFLOW leave the table unchanged. */
typedef struct tp__keyset {
  uint32_t *slot;
  size_t cap;
} tp__keyset;
typedef uint64_t (*tp__keyset_hash_fn)(const void *ctx, uint32_t item);
typedef int (*tp__keyset_match_fn)(const void *ctx, uint32_t item);
/* Keyed hashing, so that nobody can craft keys that collide: every table hashes with a key of
   its own (tp__hashkey), made by tp__hash_seed from the address of the object that owns the
   table. tp__hash_keyed is SipHash-1-3 (64-bit output) of the n bytes under that key;
   tp__hash_u64 the same of one 64-bit integer (ids, byte positions). What a table holds and
   the bytes written never depend on the key, only how fast a lookup is.
   TP_HASH_SEED(obj), defined before the implementation, overrides the seed: an expression of
   type uint64_t, obj the owner's address (const void *). The default mixes obj with the
   address of a local variable and of a function (different on every run under ASLR); it reads
   no mutable global, so tables on different threads need no lock. */
TPDEF tp__hashkey tp__hash_seed(const void *obj);
TPDEF uint64_t tp__hash_keyed(const tp__hashkey *k, const void *data, size_t n);
TPDEF uint64_t tp__hash_u64(const tp__hashkey *k, uint64_t v);
TPDEF tp_status tp__keyset_reserve(tp__keyset *t, size_t count, tp__keyset_hash_fn hash,
                                   const void *ctx);
TPDEF size_t tp__keyset_probe(const tp__keyset *t, uint64_t h, tp__keyset_match_fn match,
                              const void *ctx);
TPDEF void tp__keyset_free(tp__keyset *t);
/* Test builds only: with TP_COUNT_STEPS defined (before the implementation), every slot a
   keyset probe looks at, every key comparison of a linear key scan, every comparison of a
   sort or binary search (of names: 1 + len / 16) and every 64-byte block tp_sha256_update
   hashes straight from its input, and every entry of a safetensors header (a tensor, a
   __metadata__ pair) adds to tp__count_steps, and every visit a tp_fb_reader charges
   (tp_fb_reader's visit budget: a table opened, a vector element, a string as 1 + len / 16)
   adds to tp__count_visits, whatever the reader's budget (also the unbudgeted readers'). Their
   sum is the work a reader does on input it does not trust: a test counts it instead of timing
   it (tests/test_linear.c), and the fuzz flavor bounds it per input byte (fuzz/fuzz_bound.h).
   Without the macro nothing is counted and the variables do not exist. */
#ifdef TP_COUNT_STEPS
extern unsigned long long tp__count_steps, tp__count_visits;
#define TP__STEP() (tp__count_steps++)
#define TP__STEPS(n) (tp__count_steps += (unsigned long long)(n))
#define TP__VISITS(n) (tp__count_visits += (unsigned long long)(n))
#else
#define TP__STEP() ((void)0)
#define TP__STEPS(n) ((void)0)
#define TP__VISITS(n) ((void)0)
#endif

/* ---- sinks ---------------------------------------------------------------------------- */
/* Passes every write on to `inner` and counts the bytes inner accepted (t->n), e.g. to check
   that a view streamed exactly the bytes it should. */
typedef struct tp__tally {
  tp_sink *inner;
  uint64_t n;
  tp_status failed; /* the first failure inner returned (TP_OK: none) */
} tp__tally;
/* Sets t->inner = inner, t->n = 0, t->failed = TP_OK and returns the sink; inner's errors pass
   through. */
TPDEF tp_sink tp__sink_tally(tp__tally *t, tp_sink *inner);

/* ---- writer objects: one size / write / write_file / save (internal, not API) ----------
   The store, the program and the XNNPACK and Vulkan graphs are writer objects: each hands the
   core a tp__writer (its two error slots, its progress option and two functions) and its
   public size / write / write_file / save calls are one line each, so every writer behaves
   the same by construction (the ERRORS rule at the top, as code). <fn> is the public call.
     - err is the latched building failure: every call returns it first and changes nothing.
       werr is the size / write call's own failure: reset on entry, never latched.
     - prepare(obj, &total) lays the object out (cached by the object) and gives its exact
       byte count, or leaves its failure's sentence in werr; emit(obj, sink) streams exactly
       those bytes. A failure of emit's own leaves its sentence in werr; a failure of the
       caller's sink or a cancel needs none.
     - size: a NULL size_out is TP_ERR_INVALID "<fn>: size_out is NULL" (*size_out is 0 on
       any failure).
     - write: a NULL sink or write callback is TP_ERR_INVALID "<fn>: the sink or its write
       callback is NULL". While emit runs the object's *writing is raised (its building calls
       then refuse: tp__writer_busy); with a progress option the bytes pass a tp_sink_progress.
       Whatever emit said, a sink failure is "<fn>: the sink failed (<status>) at byte N of
       M" and a cancel "<fn>: cancelled by the progress callback at byte N of M" (N: the
       bytes the sink took); an emit failure without a sentence is "<fn>: <status> at byte N
       of M".
     - write_file (not under TP_NO_STDIO): a NULL or empty path is TP_ERR_INVALID "<fn>: the
       path is NULL or empty"; prepare runs first (its failure creates no file), then the
       write goes into a temporary file beside path (tp_atomic_write: nothing is left on
       failure). Its sentences: "<fn>: writing \"<path>\" failed (<status>) at byte N of M;
       no file was left", "<fn>: writing \"<path>\" was cancelled by the progress callback
       at byte N of M; no file was left", the object's own "<fn>: writing \"<path>\":
       <sentence>; no file was left", or "<fn>: " and tp_atomic_write's sentence (the
       temporary file cannot be created, flushed or renamed).
     - save: size, then write_file; a failure's sentence on stderr as "error: <sentence>". */
typedef struct tp__writer { /* (each object fills it in this order, by an initializer) */
  void *obj;
  tp_error *err, *werr;    /* latched building failure; the size / write call's failure */
  int *writing;            /* raised while emit runs */
  int *writing_too;        /* another object raised with it (a program's store), or NULL */
  tp_progress_fn progress; /* the object's progress option (NULL = none) and its ctx */
  void *progress_ctx;
  tp_status (*prepare)(void *obj, uint64_t *total);
  tp_status (*emit)(void *obj, tp_sink *sink);
} tp__writer;
TPDEF tp_status tp__writer_size(const tp__writer *w, const char *fn, uint64_t *size_out);
TPDEF tp_status tp__writer_write(const tp__writer *w, const char *fn, tp_sink *sink);
#ifndef TP_NO_STDIO
TPDEF tp_status tp__writer_write_file(const tp__writer *w, const char *fn, const char *path);
TPDEF tp_status tp__writer_save(const tp__writer *w, const char *fn, const char *path,
                                uint64_t *size_out);
#endif
/* The object's _status and _error: the latched failure, else the last size / write call's. */
TPDEF tp_status tp__writer_status(const tp_error *err, const tp_error *werr);
TPDEF const char *tp__writer_error(const tp_error *err, const tp_error *werr);
/* The entry of every building call: the latched failure, or, while the object is written (a
   call from its own progress callback), TP_ERR_INVALID latched as "<call> during its own
   write (from the progress callback): the <object> cannot change while it is written". */
TPDEF tp_status tp__writer_busy(tp_error *err, int writing, const char *call,
                                const char *object);

/* ---- the delegate-blob frame ------------------------------------------------------------ */
/* The delegate-blob frame ExecuTorch's XNNPACK ("XH00") and Vulkan ("VH00") backends share,
   written and parsed here once for both (all little-endian):
      [0,4) zero  [4,8) magic  [8,10) u16 header size (30)  [10,14) u32 flatbuffer offset (32)
      [14,18) u32 flatbuffer size  [18,22) u32 segment offset  [22,30) u64 segment size
      zero padding to 32, the flatbuffer, zero padding up to the segment offset (a multiple of
      the backend's alignment), the segment.
   The segment holds the inline constants (and Vulkan's shaders), each entry at a multiple of
   the alignment from the segment start, zero-padded to the next one (tp__delegate_place). */
#define TP__DELEGATE_HEADER_SIZE 30
#define TP__DELEGATE_FLATBUFFER_OFFSET 32

typedef struct tp__delegate_frame {
  uint32_t header_size;       /* as stored (30 when written) */
  uint32_t flatbuffer_offset; /* 32 when written */
  uint32_t flatbuffer_size;
  uint32_t segment_offset;
  uint64_t segment_size;
} tp__delegate_frame;

/* The frame of a blob with a flatbuffer of fb_size bytes and a segment of seg_size bytes whose
   offset is aligned to `alignment` (a power of two >= 16); *total_out (may be NULL) = the blob
   size. TP_ERR_OVERFLOW, with a sentence naming the magic and the size in err (may be NULL),
   when the offsets do not fit the header's 32 bits. */
TPDEF tp_status tp__delegate_frame_make(const char *magic, uint64_t fb_size, uint64_t alignment,
                                       uint64_t seg_size, tp__delegate_frame *out,
                                       uint64_t *total_out, tp_error *err);
/* Streams the 32-byte header (magic, f), the flatbuffer fb (f->flatbuffer_size bytes) and the
   zero padding up to f->segment_offset. The sink's status. */
TPDEF tp_status tp__delegate_write_head(tp_sink *sink, const char *magic,
                                       const tp__delegate_frame *f, const void *fb);
/* Parses and checks the frame of a blob of `size` bytes: at least 30 bytes, magic at 4, header
   size >= 30, flatbuffer offset >= header size, flatbuffer size >= 12 (root offset,
   identifier, a table) and inside the blob, segment inside the blob and not before the
   flatbuffer's end. *out gets the stored fields even on failure (all zero when the blob is
   shorter than the header). TP_ERR_FORMAT with a sentence in err ("<magic> header: ...",
   segment_name naming the segment, e.g. "constant data") otherwise; TP_ERR_INVALID for a
   NULL out or magic. err (may be NULL) is reset on entry. */
TPDEF tp_status tp__delegate_parse(const void *blob, size_t size, const char *magic,
                                  const char *segment_name, tp__delegate_frame *out,
                                  tp_error *err);
/* Places a segment entry of `size` bytes at *pos (its offset, in *offset_out) and moves *pos
   past it to the next multiple of alignment. Returns 1 on overflow (nothing changed). */
TPDEF int tp__delegate_place(uint64_t *pos, uint64_t size, uint64_t alignment,
                             uint64_t *offset_out);
/* Sends one named constant to the store under the lowercase hex SHA-256 of its bytes
   (prefixed with key_prefix when not NULL, e.g. "scale_"), aligned to `alignment`, and gives
   the store's key in *key_out. Bytes that are the view's own row-major bytes (produce == NULL,
   key_prefix == NULL) go in as the view (borrowed until the store is written, hashed once by
   the store); otherwise they are made once - produce(ctx, sink), or the view row-major when
   produce is NULL - and handed to the store as its own copy. The made bytes must be `expect`
   long (else TP_ERR_INVALID). Errors: the store's (its sentence in tp_store_error), NOMEM. */
TPDEF tp_status tp__delegate_store_constant(tp_store *store, const tp_tensor *view,
                                            tp_status (*produce)(const void *ctx, tp_sink *sink),
                                            const void *ctx, uint64_t expect,
                                            const char *key_prefix, size_t alignment,
                                            const char **key_out);

/* ---- programs: the backends' delegate calls and missing keys -------------------------- */
/* For backend headers that refuse a graph before tp_pte_add_method: latches the building
   failure s in p with the sentence fmt (unless p already holds one) and returns p's first
   failure's status. s == TP_OK is a no-op. */
TPDEF tp_status tp__pte_fail(tp_pte *p, tp_status s, const char *fmt, ...) TP__PRINTF(3, 4);
/* A backend's graph as a program's delegate, for tp_xnn_add_pte_method / tp_vk_add_pte_method
   and their tp_*_pte_call siblings, which differ only in this description. The core refuses a
   graph whose writer holds a latched failure ("the <name> graph failed: <its sentence>"; a
   failed size or write call is no reason), lists the call's tensors, then sizes the blob
   ("sizing the <name> blob failed: <its sentence>"). tensors(graph, t, &n, err): with t NULL
   counts the call's tensors into n, else fills t[0 .. n) (zeroed) in call order; a refusal
   leaves its sentence in err. produce(graph, sink) streams the blob at write time (the graph is
   borrowed until then). */
typedef struct tp__pte_backend {
  const char *id;   /* the delegate id, e.g. "XnnpackBackend" */
  const char *name; /* the backend in sentences, e.g. "XNNPACK" */
  const char *what; /* a call in sentences, e.g. "an XNNPACK call" */
  int by_id;        /* 1: a call's slots are named "external id K"; 0: the graph's input / output */
  tp__writer (*writer)(void *graph);
  tp_status (*tensors)(void *graph, tp_pte_tensor *t, size_t *n, tp_error *err);
  tp_status (*produce)(void *graph, tp_sink *sink);
} tp__pte_backend;
/* Adds method `name` to p: one call of b's graph with the compile specs (copied; NULL when 0).
   Refused, latched in p: p's latched failure (returned as it is); b's graph's refusal (above)
   as "method \"NAME\": " + its sentence; tp_pte_add_method's refusals. */
TPDEF tp_status tp__pte_add_backend_method(tp_pte *p, const char *name, const tp__pte_backend *b,
                                           void *graph, const tp_pte_compile_spec *specs,
                                           size_t n_specs);
/* A DelegateCall of b's graph in pg whose slots bind args[0 .. n), each a Tensor of its slot's
   dtype and sizes. Refused, latched in pg as "method \"M\": " + a sentence: pg's latched failure
   (returned as it is); b's graph's refusal ("<what>: " + its sentence); a count other than the
   slots' or a value that is not such a Tensor (TP_ERR_INVALID, naming both); then
   tp_pte_call_delegate's refusals. */
TPDEF tp_status tp__pte_backend_call(tp_pte_graph *pg, const tp__pte_backend *b, void *graph,
                                     const uint32_t *args, size_t n);
/* For the backends' tp_xnn_pte_missing_keys / tp_vk_pte_missing_keys (and tpdump --check): the
   named keys that the delegates of program f whose id is one of bk[0 .. nbk).id use and that
   neither f's named data nor ptd (may be NULL) holds. bk[i].keys calls fn(ctx, key, len) for
   each named key one delegate blob makes the runtime look up, in order, stops at fn's non-TP_OK
   and leaves a sentence in err on a blob it refuses. Only method m, or every method for
   m == (size_t)-1. Each key is listed once, in first-use order; keys[0 .. min(*count, cap))
   point into f's bytes (keys NULL: only counted); *count gets their number. The cost is linear
   in the keys (one keyed set of the named data's, the .ptd's and the listed keys). Errors, the
   sentence in err (may be NULL; reset on entry): "<who>: count is NULL" (TP_ERR_INVALID); f's
   open failure; m out of range (TP_ERR_INVALID); a refused blob ("method \"<name>\" delegate
   <k>: " and its sentence); TP_ERR_NOMEM. */
typedef tp_status (*tp__key_fn)(void *ctx, const char *key, size_t len);
typedef struct tp__pte_backend_keys {
  const char *id; /* the delegate id, e.g. "XnnpackBackend" */
  tp_status (*keys)(const void *blob, size_t size, tp__key_fn fn, void *ctx, tp_error *err);
} tp__pte_backend_keys;
TPDEF tp_status tp__pte_missing_keys(const char *who, tp_pte_file *f, size_t m, tp_ptd *ptd,
                                     const tp__pte_backend_keys *bk, size_t nbk,
                                     const char **keys, size_t cap, size_t *count,
                                     tp_error *err);

#ifdef __cplusplus
}
#endif

/* ====================================== stop here ======================================== */
#endif /* TENSORPACK_H */

#ifdef TENSORPACK_IMPLEMENTATION
#ifndef TENSORPACK_IMPLEMENTATION_DONE
#define TENSORPACK_IMPLEMENTATION_DONE

/* Implementation, in data-flow order; sections start with greppable markers "// >>name"
   (see CONTENTS at the top). */
#include <string.h>
#include <stdarg.h>
#include <limits.h>
#include <float.h>
#ifndef TP_NO_STDIO
#include <errno.h>
#endif

/* Tensor payloads are written little-endian; on a big-endian host each element is swapped
   (and multi-byte views are never zero-copy). Tests define TP__BIG_ENDIAN 1 on a little-endian
   host to run the swapping code. */
#ifndef TP__BIG_ENDIAN
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TP__BIG_ENDIAN 1
#else
#define TP__BIG_ENDIAN 0
#endif
#endif

/* Scratch used by the streaming forms (tp_compact_write, tp_convert_write, tp_pack_int4_write). */
#ifndef TP_SCRATCH_BYTES
#define TP_SCRATCH_BYTES (256u * 1024u)
#endif

/* A valid non-NULL address for empty buffers. */
static const unsigned char tp__empty[1] = {0};

// >>status ------------------------------------------------------------------------------------

#define TP__STR_(x) #x
#define TP__STR(x) TP__STR_(x)
TPDEF const char *tp_version_string(void) {
  return TP__STR(TP_VERSION_MAJOR) "." TP__STR(TP_VERSION_MINOR) "." TP__STR(TP_VERSION_PATCH);
}
#ifndef TENSORPACK_STATIC
const int TP__ABI_NAME = 1; /* external, C linkage: declared extern "C" above */
#endif

TPDEF const char *tp_status_str(tp_status s) {
  switch (s) {
#define TP__STATUS_CASE(name, text) \
  case name:                        \
    return text;
    TP_STATUS_LIST(TP__STATUS_CASE)
#undef TP__STATUS_CASE
    default:
      break;
  }
  return "unknown status";
}

#ifdef TP_NO_STDIO
/* A small vsnprintf for error sentences, byte-equal to glibc's for what the messages use:
   %d %i %u %x %X %c %s %p %g %G %e %E %% with the hh, h, l, ll, z, j and t length modifiers,
   the flags - + space 0 #, a width and a precision (also * for either). %g / %e print the
   exactly rounded decimal value (round half to even on the exact binary value, as glibc). */
typedef struct tp__fmt_out {
  char *out;
  size_t cap, pos;
} tp__fmt_out;
static void tp__fmt_put(tp__fmt_out *o, char c) {
  if (o->pos + 1 < o->cap) o->out[o->pos] = c;
  o->pos++;
}
static void tp__fmt_rep(tp__fmt_out *o, char c, long n) {
  while (n-- > 0) tp__fmt_put(o, c);
}
/* sign/prefix, then zeros to `zeros`, then body; padded to width (left with '-', zeros after
   the sign with '0' when zero_ok). */
static void tp__fmt_field(tp__fmt_out *o, const char *pre, const char *body, size_t blen,
                          long zeros, long width, int left, int zero_pad) {
  long plen = (long)strlen(pre), n = plen + zeros + (long)blen, i;
  if (!left && !zero_pad) tp__fmt_rep(o, ' ', width - n);
  for (i = 0; i < plen; i++) tp__fmt_put(o, pre[i]);
  if (!left && zero_pad) tp__fmt_rep(o, '0', width - n);
  tp__fmt_rep(o, '0', zeros);
  for (i = 0; i < (long)blen; i++) tp__fmt_put(o, body[i]);
  if (left) tp__fmt_rep(o, ' ', width - n);
}
/* Exact decimal digits of a finite double v > 0: digits (no leading zero) and the decimal
   exponent of the first one. A 1100-digit buffer holds any double's exact expansion. */
#define TP__BN_LIMBS 90
static size_t tp__fmt_exact(double v, char *dig, int *exp10) {
  uint32_t bn[TP__BN_LIMBS];
  uint64_t bits, m;
  int e2, n = 1, i, j, k;
  size_t len = 0;
  memcpy(&bits, &v, sizeof bits);
  e2 = (int)((bits >> 52) & 0x7FF);
  m = bits & ((1ull << 52) - 1);
  if (e2) m |= 1ull << 52;
  else e2 = 1;
  e2 -= 1075; /* v = m * 2^e2 */
  bn[0] = (uint32_t)(m % 1000000000u);
  bn[1] = (uint32_t)(m / 1000000000u % 1000000000u);
  bn[2] = (uint32_t)(m / 1000000000u / 1000000000u);
  n = bn[2] ? 3 : bn[1] ? 2 : 1;
  for (k = e2 > 0 ? e2 : -e2; k > 0;) { /* times 2^e2 or 5^-e2, in chunks */
    uint32_t mul;
    uint64_t carry = 0;
    if (e2 > 0) { int c = k > 29 ? 29 : k; mul = 1u << c; k -= c; }
    else { int c = k > 12 ? 12 : k; mul = 1; for (j = 0; j < c; j++) mul *= 5u; k -= c; }
    for (i = 0; i < n; i++) {
      uint64_t x = (uint64_t)bn[i] * mul + carry;
      bn[i] = (uint32_t)(x % 1000000000u);
      carry = x / 1000000000u;
    }
    if (carry && n < TP__BN_LIMBS) bn[n++] = (uint32_t)carry;
  }
  for (i = n - 1; i >= 0; i--) { /* base 1e9 limbs -> digits */
    char t[9];
    uint32_t x = bn[i];
    for (j = 8; j >= 0; j--) { t[j] = (char)('0' + x % 10u); x /= 10u; }
    for (j = 0; j < 9; j++)
      if (len || t[j] != '0' || (i == 0 && j == 8)) dig[len++] = t[j];
  }
  *exp10 = (int)len - 1 + (e2 < 0 ? e2 : 0);
  return len;
}
static void tp__fmt_float(tp__fmt_out *o, double v, char conv, int prec, int alt, long width,
                          int left, int zero_pad, const char *sign_flag) {
  char dig[1200], body[400];
  const char *pre;
  size_t len, b = 0;
  int x = 0, i, upper = conv == 'G' || conv == 'E', neg;
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  neg = (int)(bits >> 63);
  pre = neg ? "-" : sign_flag;
  if (v != v || v - v != 0.0) { /* nan, inf */
    const char *w = v != v ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    tp__fmt_field(o, pre, w, 3, 0, width, left, 0);
    return;
  }
  if (prec < 0) prec = 6;
  if ((conv == 'g' || conv == 'G') && prec == 0) prec = 1;
  if (prec > 300) prec = 300;
  {
    int sig = conv == 'g' || conv == 'G' ? prec : prec + 1; /* significant digits kept */
    len = v == 0.0 ? 0 : tp__fmt_exact(neg ? -v : v, dig, &x); /* (-0.0 == 0.0) */
    if (len > (size_t)sig) { /* round half to even on the exact digits */
      int up = dig[sig] > '5';
      if (dig[sig] == '5') {
        size_t r;
        up = (dig[sig - 1] - '0') & 1;
        for (r = (size_t)sig + 1; r < len; r++)
          if (dig[r] != '0') up = 1;
      }
      len = (size_t)sig;
      if (up) {
        for (i = sig - 1; i >= 0 && dig[i] == '9'; i--) dig[i] = '0';
        if (i >= 0) dig[i]++;
        else { dig[0] = '1'; x++; }
      }
    }
    while (len < (size_t)sig) dig[len++] = '0';
    if (conv == 'g' || conv == 'G') {
      int fixed = v == 0.0 || (x < prec && x >= -4), last = sig - 1;
      if (!alt) /* %g drops trailing zeros (and then the point) */
        while (last > 0 && dig[last] == '0' && (!fixed || last > x)) last--;
      if (fixed) {
        if (x >= 0) {
          for (i = 0; i <= x; i++) body[b++] = dig[i];
          if (last > x || alt) body[b++] = '.';
          for (i = x + 1; i <= last; i++) body[b++] = dig[i];
        } else {
          body[b++] = '0';
          body[b++] = '.';
          for (i = 0; i < -x - 1; i++) body[b++] = '0';
          for (i = 0; i <= last; i++) body[b++] = dig[i];
        }
        tp__fmt_field(o, pre, body, b, 0, width, left, zero_pad);
        return;
      }
      sig = last + 1;
    }
    body[b++] = dig[0];
    if (sig > 1 || alt) body[b++] = '.';
    for (i = 1; i < sig; i++) body[b++] = dig[i];
    body[b++] = upper ? 'E' : 'e';
    body[b++] = x < 0 ? '-' : '+';
    {
      int ax = x < 0 ? -x : x;
      if (ax >= 100) body[b++] = (char)('0' + ax / 100);
      body[b++] = (char)('0' + ax / 10 % 10);
      body[b++] = (char)('0' + ax % 10);
    }
    tp__fmt_field(o, pre, body, b, 0, width, left, zero_pad);
  }
}
static void tp__vfmt(char *out, size_t cap, const char *fmt, va_list ap) {
  tp__fmt_out o;
  const char *f;
  o.out = out;
  o.cap = cap;
  o.pos = 0;
  if (cap == 0) return;
  for (f = fmt; *f; f++) {
    int lng = 0, left = 0, zero = 0, plus = 0, space = 0, alt = 0, prec = -1;
    long width = 0;
    if (*f != '%') {
      tp__fmt_put(&o, *f);
      continue;
    }
    for (f++;; f++) {
      if (*f == '-') left = 1;
      else if (*f == '0') zero = 1;
      else if (*f == '+') plus = 1;
      else if (*f == ' ') space = 1;
      else if (*f == '#') alt = 1;
      else break;
    }
    if (*f == '*') {
      width = va_arg(ap, int);
      if (width < 0) { left = 1; width = -width; }
      f++;
    } else {
      while (*f >= '0' && *f <= '9') width = width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
      f++;
      prec = 0;
      if (*f == '*') {
        prec = va_arg(ap, int);
        f++;
      } else {
        while (*f >= '0' && *f <= '9') prec = prec * 10 + (*f++ - '0');
      }
    }
    for (;; f++) {
      if (*f == 'l') lng++;
      else if (*f == 'z' || *f == 'j' || *f == 't') lng = 3;
      else if (*f == 'h') continue;
      else break;
    }
    switch (*f) {
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'p': {
        char tmp[24];
        int nd = 0, sgn = 0;
        unsigned long long v;
        const char *pre = "";
        unsigned base = *f == 'x' || *f == 'X' || *f == 'p' ? 16u : 10u;
        if (*f == 'd' || *f == 'i') {
          long long s = lng == 0 ? (long long)va_arg(ap, int)
                      : lng == 1 ? (long long)va_arg(ap, long)
                      : lng == 2 ? va_arg(ap, long long)
                                 : (long long)va_arg(ap, ptrdiff_t);
          v = s < 0 ? 0ull - (unsigned long long)s : (unsigned long long)s;
          sgn = s < 0;
          pre = sgn ? "-" : plus ? "+" : space ? " " : "";
        } else if (*f == 'p') {
          void *p = va_arg(ap, void *);
          if (!p) {
            tp__fmt_field(&o, "", "(nil)", 5, 0, width, left, 0);
            break;
          }
          v = (unsigned long long)(uintptr_t)p;
          pre = "0x";
        } else {
          v = lng == 0 ? (unsigned long long)va_arg(ap, unsigned)
            : lng == 1 ? (unsigned long long)va_arg(ap, unsigned long)
            : lng == 2 ? va_arg(ap, unsigned long long)
                       : (unsigned long long)va_arg(ap, size_t);
          if (alt && v && base == 16) pre = *f == 'X' ? "0X" : "0x";
        }
        if (v || prec != 0) {
          do {
            unsigned d = (unsigned)(v % base);
            tmp[nd++] = (char)(d < 10 ? '0' + d : (*f == 'X' ? 'A' : 'a') + (d - 10));
            v /= base;
          } while (v);
        }
        { /* reverse into place */
          int a = 0, z = nd - 1;
          while (a < z) { char c = tmp[a]; tmp[a++] = tmp[z]; tmp[z--] = c; }
        }
        tp__fmt_field(&o, pre, tmp, (size_t)nd, prec > nd ? prec - nd : 0, width, left,
                      zero && prec < 0);
        break;
      }
      case 'c': {
        char c = (char)va_arg(ap, int);
        tp__fmt_field(&o, "", &c, 1, 0, width, left, 0);
        break;
      }
      case 's': {
        const char *s = va_arg(ap, const char *);
        size_t n = 0;
        if (!s) s = prec < 0 || prec >= 6 ? "(null)" : "";
        while (s[n] && (prec < 0 || n < (size_t)prec)) n++;
        tp__fmt_field(&o, "", s, n, 0, width, left, 0);
        break;
      }
      case 'g':
      case 'G':
      case 'e':
      case 'E':
        tp__fmt_float(&o, va_arg(ap, double), *f, prec, alt, width, left, zero,
                      plus ? "+" : space ? " " : "");
        break;
      case '%':
        tp__fmt_put(&o, '%');
        break;
      case '\0':
        f--;
        break;
      default:
        tp__fmt_put(&o, '?');
        break;
    }
  }
  out[o.pos < cap ? o.pos : cap - 1] = '\0';
}
#endif

/* printf into out (cap bytes, always terminated), with or without stdio. */
static void tp__vformat(char *out, size_t cap, const char *fmt, va_list ap) {
#ifdef TP_NO_STDIO
  tp__vfmt(out, cap, fmt, ap);
#else
  vsnprintf(out, cap, fmt, ap);
#endif
}
TPDEF void tp__format(char *out, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tp__vformat(out, cap, fmt, ap);
  va_end(ap);
}

static tp_status tp__error_vset(tp_error *e, tp_status s, const char *fmt, va_list ap) {
  if (!e) return s;
  if (e->status != TP_OK) return e->status;
  if (s == TP_OK) return TP_OK;
  e->status = s;
  tp__vformat(e->msg, sizeof e->msg, fmt ? fmt : tp_status_str(s), ap);
  return s;
}

TPDEF tp_status tp__error_set(tp_error *e, tp_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  s = tp__error_vset(e, s, fmt, ap);
  va_end(ap);
  return s;
}

/* tp__error_set for the checks that answer 1 (go on) or 0 (failed): records the failure in e
   (the first one sticks) and returns 0. */
static int tp__fail(tp_error *e, tp_status s, const char *fmt, ...) TP__PRINTF(3, 4);
static int tp__fail(tp_error *e, tp_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tp__error_vset(e, s, fmt, ap);
  va_end(ap);
  return 0;
}

/* The error rule's reset: a caller's tp_error argument never keeps an old failure. */
static void tp__error_reset(tp_error *e) {
  if (e) {
    e->status = TP_OK;
    e->msg[0] = '\0';
  }
}

// >>helpers -----------------------------------------------------------------------------------

TPDEF void tp__put_le16(unsigned char *p, uint16_t v) {
  p[0] = (unsigned char)(v & 0xFFu);
  p[1] = (unsigned char)(v >> 8);
}
TPDEF void tp__put_le32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v & 0xFFu);
  p[1] = (unsigned char)((v >> 8) & 0xFFu);
  p[2] = (unsigned char)((v >> 16) & 0xFFu);
  p[3] = (unsigned char)(v >> 24);
}
TPDEF void tp__put_le64(unsigned char *p, uint64_t v) {
  tp__put_le32(p, (uint32_t)(v & 0xFFFFFFFFu));
  tp__put_le32(p + 4, (uint32_t)(v >> 32));
}
TPDEF uint16_t tp__get_le16(const unsigned char *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
TPDEF uint32_t tp__get_le32(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
TPDEF uint64_t tp__get_le64(const unsigned char *p) {
  return (uint64_t)tp__get_le32(p) | ((uint64_t)tp__get_le32(p + 4) << 32);
}

TPDEF int tp__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a > UINT64_MAX - b) return 1;
  *out = a + b;
  return 0;
}
TPDEF int tp__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return 1;
  *out = a * b;
  return 0;
}
TPDEF int tp__align_u64(uint64_t v, uint64_t align, uint64_t *out) {
  uint64_t r;
  if (align == 0 || (align & (align - 1)) != 0) return 1;
  if (tp__add_u64(v, align - 1, &r)) return 1;
  *out = r & ~(align - 1);
  return 0;
}
TPDEF tp_status tp__array_reserve(void **data, size_t *cap, size_t need, size_t elem_size) {
  size_t ncap;
  uint64_t bytes;
  void *p;
  TP_ASSERT(data && cap);
  if (need <= *cap) return TP_OK;
  if (elem_size == 0) return TP_ERR_INVALID;
  ncap = *cap < 8 ? 8 : *cap;
  while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
  if (tp__mul_u64(ncap, elem_size, &bytes) || bytes > SIZE_MAX) {
    ncap = need; /* doubling overshot: try the exact need */
    if (tp__mul_u64(ncap, elem_size, &bytes) || bytes > SIZE_MAX) return TP_ERR_OVERFLOW;
  }
  p = TP_REALLOC(*data, (size_t)bytes);
  if (!p) return TP_ERR_NOMEM;
  *data = p;
  *cap = ncap;
  return TP_OK;
}

/* Checked signed arithmetic: 0 on success, 1 on overflow. */
static int tp__add_i64(int64_t a, int64_t b, int64_t *out) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
  *out = a + b;
  return 0;
}
static int tp__mul_i64(int64_t a, int64_t b, int64_t *out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return 0;
  }
  if (a > 0) {
    if (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) return 1;
  } else {
    if (b > 0 ? a < INT64_MIN / b : (a == INT64_MIN || b == INT64_MIN || -a > INT64_MAX / -b))
      return 1;
  }
  *out = a * b;
  return 0;
}
/* |v|, saturating at INT64_MAX (a hand-filled stride may be INT64_MIN). */
static int64_t tp__abs_i64(int64_t v) { return v >= 0 ? v : v == INT64_MIN ? INT64_MAX : -v; }

// >>dtype -------------------------------------------------------------------------------------

TPDEF size_t tp_dtype_size(tp_dtype t) {
  switch (t) {
    case TP_U8: case TP_I8: case TP_BOOL: return 1;
    case TP_I16: case TP_F16: case TP_BF16: return 2;
    case TP_I32: case TP_F32: return 4;
    case TP_I64: case TP_F64: return 8;
    default: return 0;
  }
}
TPDEF const char *tp_dtype_name(tp_dtype t) {
  switch (t) {
    case TP_U8: return "u8";
    case TP_I8: return "i8";
    case TP_I16: return "i16";
    case TP_I32: return "i32";
    case TP_I64: return "i64";
    case TP_F16: return "f16";
    case TP_F32: return "f32";
    case TP_F64: return "f64";
    case TP_BOOL: return "bool";
    case TP_BF16: return "bf16";
    default: return "?";
  }
}

static uint32_t tp__f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float tp__f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Integer-only, so the result never depends on the FPU's mode or excess precision. */
static uint16_t tp__f32bits_to_f16(uint32_t w) {
  uint32_t sign = (w >> 16) & 0x8000u, a = w & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u); /* NaN: quiet, sign kept */
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* >= 65520 rounds to inf */
  if (a >= 0x38800000u) {                                    /* normal half */
    uint32_t m = a - 0x38000000u;                            /* rebias 127 -> 15 */
    return (uint16_t)(sign | ((m + 0x0FFFu + ((m >> 13) & 1u)) >> 13));
  } else { /* subnormal half (or zero): units of 2^-24 */
    uint32_t e = a >> 23, mant = (a & 0x7FFFFFu) | 0x800000u, shift, q, r, half;
    if (e < 102) return (uint16_t)sign; /* below 2^-25: rounds to zero */
    shift = 126u - e;                   /* 14..24 */
    q = mant >> shift;
    r = mant & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
    if (r > half || (r == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
  }
}
static uint16_t tp__f32bits_to_bf16(uint32_t w) {
  if ((w & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((w >> 16) | 0x0040u);
  return (uint16_t)((w + 0x7FFFu + ((w >> 16) & 1u)) >> 16);
}
static uint32_t tp__f16_to_f32bits(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16, e = ((uint32_t)h >> 10) & 0x1Fu,
           m = (uint32_t)h & 0x3FFu;
  if (e == 0x1F) return sign | 0x7F800000u | (m << 13);
  if (e != 0) return sign | ((e + 112u) << 23) | (m << 13);
  if (m == 0) return sign;
  e = 113; /* normalise a subnormal */
  while ((m & 0x400u) == 0) {
    m <<= 1;
    e--;
  }
  return sign | (e << 23) | ((m & 0x3FFu) << 13);
}

TPDEF uint16_t tp_f32_to_bf16(float f) { return tp__f32bits_to_bf16(tp__f32_bits(f)); }
TPDEF uint16_t tp_f32_to_f16(float f) { return tp__f32bits_to_f16(tp__f32_bits(f)); }
TPDEF float tp_bf16_to_f32(uint16_t h) { return tp__f32_from_bits((uint32_t)h << 16); }
TPDEF float tp_f16_to_f32(uint16_t h) { return tp__f32_from_bits(tp__f16_to_f32bits(h)); }

// >>view --------------------------------------------------------------------------------------

/* Full check of a view; on success *numel_out, and (for a non-empty view) the smallest and
   largest element index it addresses. err is NULL or holds no failure (every caller resets
   it), so a failure returns its own status. */
static tp_status tp__check(const tp_tensor *t, tp_error *err, int64_t *numel_out, int64_t *lo_out,
                           int64_t *hi_out) {
  int64_t numel = 1, lo = 0, hi = 0, nb, endb;
  size_t es;
  int d, empty = 0;
  if (!t) return tp__error_set(err, TP_ERR_INVALID, "view is NULL");
  if (t->ndim < 0) return tp__error_set(err, TP_ERR_INVALID, "ndim %d is negative", t->ndim);
  if (t->ndim > TP_MAX_DIMS)
    return tp__error_set(err, TP_ERR_INVALID, "ndim %d > TP_MAX_DIMS %d", t->ndim, TP_MAX_DIMS);
  es = tp_dtype_size(t->dtype);
  if (es == 0)
    return tp__error_set(err, TP_ERR_INVALID, "dtype %d is not a tp_dtype", (int)t->dtype);
  if (!t->storage.data && t->storage.nbytes > 0)
    return tp__error_set(err, TP_ERR_INVALID, "storage data is NULL but nbytes is %llu",
                         (unsigned long long)t->storage.nbytes);
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] < 0)
      return tp__error_set(err, TP_ERR_INVALID, "size of dim %d is %lld", d,
                           (long long)t->sizes[d]);
    if (t->sizes[d] == 0) empty = 1;
    if (t->strides[d] == INT64_MIN) /* no magnitude in int64: flip/abs would overflow */
      return tp__error_set(err, TP_ERR_OVERFLOW, "stride of dim %d is INT64_MIN", d);
  }
  if (t->offset < 0)
    return tp__error_set(err, TP_ERR_BOUNDS, "offset %lld is negative", (long long)t->offset);
  if (empty) {
    *numel_out = 0;
    if (lo_out) *lo_out = 0;
    if (hi_out) *hi_out = 0;
    return TP_OK;
  }
  for (d = 0; d < t->ndim; d++) {
    int64_t ext;
    if (tp__mul_i64(numel, t->sizes[d], &numel))
      return tp__error_set(err, TP_ERR_OVERFLOW, "element count overflows at dim %d (size %lld)",
                           d, (long long)t->sizes[d]);
    if (tp__mul_i64(t->sizes[d] - 1, t->strides[d], &ext) ||
        tp__add_i64(ext > 0 ? hi : lo, ext, ext > 0 ? &hi : &lo))
      return tp__error_set(err, TP_ERR_OVERFLOW, "dim %d: size %lld x stride %lld overflows", d,
                           (long long)t->sizes[d], (long long)t->strides[d]);
  }
  if (tp__mul_i64(numel, (int64_t)es, &nb) || (uint64_t)nb > (uint64_t)SIZE_MAX)
    return tp__error_set(err, TP_ERR_OVERFLOW, "%lld elements of %u bytes overflow",
                         (long long)numel, (unsigned)es);
  if (tp__add_i64(t->offset, lo, &lo) || tp__add_i64(t->offset, hi, &hi))
    return tp__error_set(err, TP_ERR_OVERFLOW, "offset %lld plus the view's extent overflows",
                         (long long)t->offset);
  if (lo < 0)
    return tp__error_set(err, TP_ERR_BOUNDS, "view reaches element %lld, before the storage's "
                         "start", (long long)lo);
  if (tp__add_i64(hi, 1, &endb) || tp__mul_i64(endb, (int64_t)es, &endb))
    return tp__error_set(err, TP_ERR_OVERFLOW, "view's last element %lld overflows as a byte "
                         "offset", (long long)hi);
  if ((uint64_t)endb > (uint64_t)t->storage.nbytes)
    return tp__error_set(err, TP_ERR_BOUNDS, "view reaches byte %llu of a %llu-byte storage",
                         (unsigned long long)endb, (unsigned long long)t->storage.nbytes);
  *numel_out = numel;
  if (lo_out) *lo_out = lo;
  if (hi_out) *hi_out = hi;
  return TP_OK;
}

TPDEF tp_status tp_tensor_check(const tp_tensor *t, tp_error *err) {
  int64_t n;
  tp__error_reset(err);
  return tp__check(t, err, &n, NULL, NULL);
}

/* 1 when a dim other than `skip` (-1: none) has size 0: a view op's result is then empty, so
   its offset arithmetic must not fail (tp__op_end resets the offset). */
static int tp__empty_besides(const tp_tensor *t, int skip) {
  int d;
  for (d = 0; d < t->ndim; d++)
    if (d != skip && t->sizes[d] == 0) return 1;
  return 0;
}

TPDEF tp_status tp_view(tp_storage s, tp_dtype dt, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset, tp_tensor *out, tp_error *err) {
  tp_tensor r;
  int d;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "view: out is NULL");
  if (ndim < 0 || ndim > TP_MAX_DIMS)
    return tp__error_set(err, TP_ERR_INVALID, "view: ndim %d is outside 0..TP_MAX_DIMS %d", ndim,
                        TP_MAX_DIMS);
  if (ndim > 0 && !sizes)
    return tp__error_set(err, TP_ERR_INVALID, "view: sizes is NULL for ndim %d", ndim);
  memset(&r, 0, sizeof r);
  r.storage = s;
  r.dtype = dt;
  r.ndim = ndim;
  r.offset = offset;
  for (d = 0; d < ndim; d++) {
    if (sizes[d] < 0)
      return tp__error_set(err, TP_ERR_INVALID, "view: size of dim %d is %lld", d,
                          (long long)sizes[d]);
    r.sizes[d] = sizes[d];
  }
  if (strides) {
    for (d = 0; d < ndim; d++) r.strides[d] = strides[d];
  } else {
    int64_t acc = 1;
    for (d = ndim - 1; d >= 0; d--) {
      r.strides[d] = acc;
      if (tp__mul_i64(acc, sizes[d] > 1 ? sizes[d] : 1, &acc)) {
        /* only an error if the view is not empty: an empty view may have any sizes */
        if (!tp__empty_besides(&r, -1))
          return tp__error_set(err, TP_ERR_OVERFLOW,
                              "view: the row-major stride of dim %d overflows (size %lld)", d,
                              (long long)sizes[d]);
        acc = 0; /* remaining strides are irrelevant for an empty view */
      }
    }
  }
  {
    tp_status st = tp_tensor_check(&r, err);
    if (st != TP_OK) return st;
  }
  *out = r;
  return TP_OK;
}

/* Common prologue/epilogue of the view ops (err may be NULL; reset on entry). */
static tp_status tp__op_begin(const char *op, const tp_tensor *t, tp_tensor *out, tp_tensor *r,
                              tp_error *err) {
  tp_status s;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "%s: out is NULL", op);
  if (!t) return tp__error_set(err, TP_ERR_INVALID, "%s: the input view is NULL", op);
  s = tp_tensor_check(t, err);
  if (s != TP_OK) return s;
  *r = *t;
  return TP_OK;
}
static tp_status tp__op_end(const char *op, const tp_tensor *t, tp_tensor *r, tp_tensor *out,
                            tp_error *err) {
  tp_status s;
  tp_error e;
  int64_t n;
  int d;
  for (d = r->ndim; d < TP_MAX_DIMS; d++) r->sizes[d] = r->strides[d] = 0;
  for (d = 0; d < r->ndim; d++)
    if (r->sizes[d] == 0) r->offset = t->offset; /* empty: no bytes, keep a sane offset */
  memset(&e, 0, sizeof e);
  s = tp__check(r, &e, &n, NULL, NULL);
  if (s != TP_OK) return tp__error_set(err, s, "%s: the result %s", op, e.msg);
  *out = *r;
  return TP_OK;
}
/* Python-style dim: -ndim..ndim-1, negative counts from the end. 0 and *dim normalised, or 1
   with a sentence. */
static int tp__dim_arg(const char *op, const char *name, const tp_tensor *t, int *dim,
                       tp_error *err) {
  if (*dim >= -t->ndim && *dim < t->ndim) {
    if (*dim < 0) *dim += t->ndim;
    return 0;
  }
  if (t->ndim == 0)
    tp__error_set(err, TP_ERR_INVALID, "%s: %s %d given, but a 0-d view has no dims", op, name,
                 *dim);
  else
    tp__error_set(err, TP_ERR_INVALID, "%s: %s %d is outside -%d..%d (a %d-d view)", op, name,
                 *dim, t->ndim, t->ndim - 1, t->ndim);
  return 1;
}
/* r->offset += index * stride of dim; an empty result never overflows. */
static tp_status tp__move_offset(const char *op, const tp_tensor *t, int dim, int64_t index,
                                 int empty, tp_tensor *r, tp_error *err) {
  int64_t delta;
  if (empty) return TP_OK;
  if (tp__mul_i64(index, t->strides[dim], &delta) || tp__add_i64(r->offset, delta, &r->offset))
    return tp__error_set(err, TP_ERR_OVERFLOW,
                        "%s: offset %lld + index %lld x stride %lld of dim %d overflows", op,
                        (long long)t->offset, (long long)index, (long long)t->strides[dim], dim);
  return TP_OK;
}

TPDEF tp_status tp_select(const tp_tensor *t, int dim, int64_t index, tp_tensor *out,
                          tp_error *err) {
  tp_tensor r;
  int64_t size, given = index;
  int d;
  tp_status s = tp__op_begin("select", t, out, &r, err);
  if (s != TP_OK) return s;
  if (tp__dim_arg("select", "dim", t, &dim, err)) return TP_ERR_INVALID;
  size = t->sizes[dim];
  if (index < 0) index += size;
  if (index < 0 || index >= size)
    return tp__error_set(err, TP_ERR_BOUNDS,
                        "select: index %lld is outside -%lld..%lld (dim %d has size %lld)",
                        (long long)given, (long long)size, (long long)size - 1, dim,
                        (long long)size);
  s = tp__move_offset("select", t, dim, index, tp__empty_besides(t, dim), &r, err);
  if (s != TP_OK) return s;
  for (d = dim; d + 1 < t->ndim; d++) {
    r.sizes[d] = t->sizes[d + 1];
    r.strides[d] = t->strides[d + 1];
  }
  r.ndim = t->ndim - 1;
  return tp__op_end("select", t, &r, out, err);
}

TPDEF tp_status tp_narrow(const tp_tensor *t, int dim, int64_t start, int64_t length,
                          tp_tensor *out, tp_error *err) {
  tp_tensor r;
  int64_t size, given = start;
  tp_status s = tp__op_begin("narrow", t, out, &r, err);
  if (s != TP_OK) return s;
  if (tp__dim_arg("narrow", "dim", t, &dim, err)) return TP_ERR_INVALID;
  if (length < 0)
    return tp__error_set(err, TP_ERR_INVALID, "narrow: length %lld is negative", (long long)length);
  size = t->sizes[dim];
  if (start < 0) start += size;
  if (start < 0 || start > size)
    return tp__error_set(err, TP_ERR_BOUNDS,
                        "narrow: start %lld is outside -%lld..%lld (dim %d has size %lld)",
                        (long long)given, (long long)size, (long long)size, dim, (long long)size);
  if (length > size - start)
    return tp__error_set(err, TP_ERR_BOUNDS,
                        "narrow: start %lld + length %lld passes the end of dim %d (size %lld)",
                        (long long)start, (long long)length, dim, (long long)size);
  s = tp__move_offset("narrow", t, dim, start, length == 0 || tp__empty_besides(t, dim), &r, err);
  if (s != TP_OK) return s;
  r.sizes[dim] = length;
  return tp__op_end("narrow", t, &r, out, err);
}

TPDEF tp_status tp_slice(const tp_tensor *t, int dim, int64_t start, int64_t stop,
                         int64_t step, tp_tensor *out, tp_error *err) {
  tp_tensor r;
  int64_t size, len;
  tp_status s = tp__op_begin("slice", t, out, &r, err);
  if (s != TP_OK) return s;
  if (tp__dim_arg("slice", "dim", t, &dim, err)) return TP_ERR_INVALID;
  if (step < 1)
    return tp__error_set(err, TP_ERR_INVALID, "slice: step %lld must be >= 1", (long long)step);
  size = t->sizes[dim];
  if (start < 0) start = start < -size ? 0 : start + size;
  if (start > size) start = size;
  if (stop < 0) stop = stop < -size ? 0 : stop + size;
  if (stop > size) stop = size;
  len = stop > start ? (stop - start - 1) / step + 1 : 0;
  s = tp__move_offset("slice", t, dim, start, len == 0 || tp__empty_besides(t, dim), &r, err);
  if (s != TP_OK) return s;
  /* the new stride matters only when the result has two or more elements along dim: a
     single element keeps the old stride when stride x step leaves int64 */
  if (tp__mul_i64(t->strides[dim], step, &r.strides[dim]) || r.strides[dim] == INT64_MIN) {
    if (len > 1 && !tp__empty_besides(t, dim))
      return tp__error_set(err, TP_ERR_OVERFLOW,
                          "slice: stride %lld x step %lld of dim %d overflows",
                          (long long)t->strides[dim], (long long)step, dim);
    r.strides[dim] = t->strides[dim];
  }
  r.sizes[dim] = len;
  return tp__op_end("slice", t, &r, out, err);
}

TPDEF tp_status tp_transpose(const tp_tensor *t, int d0, int d1, tp_tensor *out,
                             tp_error *err) {
  tp_tensor r;
  int64_t v;
  tp_status s = tp__op_begin("transpose", t, out, &r, err);
  if (s != TP_OK) return s;
  if (tp__dim_arg("transpose", "d0", t, &d0, err) || tp__dim_arg("transpose", "d1", t, &d1, err))
    return TP_ERR_INVALID;
  v = r.sizes[d0]; r.sizes[d0] = r.sizes[d1]; r.sizes[d1] = v;
  v = r.strides[d0]; r.strides[d0] = r.strides[d1]; r.strides[d1] = v;
  return tp__op_end("transpose", t, &r, out, err);
}

TPDEF tp_status tp_permute(const tp_tensor *t, const int *perm, tp_tensor *out,
                           tp_error *err) {
  tp_tensor r;
  unsigned char seen[TP_MAX_DIMS];
  int d;
  tp_status s = tp__op_begin("permute", t, out, &r, err);
  if (s != TP_OK) return s;
  if (t->ndim > 0 && !perm)
    return tp__error_set(err, TP_ERR_INVALID, "permute: perm is NULL for a %d-d view", t->ndim);
  memset(seen, 0, sizeof seen);
  for (d = 0; d < t->ndim; d++) {
    int p = perm[d];
    if (tp__dim_arg("permute", "perm entry", t, &p, err)) return TP_ERR_INVALID;
    if (seen[p])
      return tp__error_set(err, TP_ERR_INVALID,
                          "permute: perm[%d] = %d names dim %d twice (not a permutation)", d,
                          perm[d], p);
    seen[p] = 1;
    r.sizes[d] = t->sizes[p];
    r.strides[d] = t->strides[p];
  }
  return tp__op_end("permute", t, &r, out, err);
}

TPDEF tp_status tp_chunk(const tp_tensor *t, int chunks, int dim, int index, tp_tensor *out,
                         tp_error *err) {
  int64_t size, csize, count, start;
  tp_tensor r;
  tp_status s = tp__op_begin("chunk", t, out, &r, err);
  if (s != TP_OK) return s;
  if (chunks < 1)
    return tp__error_set(err, TP_ERR_INVALID, "chunk: chunks %d must be >= 1", chunks);
  if (tp__dim_arg("chunk", "dim", t, &dim, err)) return TP_ERR_INVALID;
  size = t->sizes[dim];
  if (size == 0) { /* torch.chunk gives `chunks` empty pieces */
    count = chunks;
    csize = 0;
  } else {
    csize = (size - 1) / chunks + 1;
    count = (size - 1) / csize + 1;
  }
  if (index < 0 || index >= count)
    return tp__error_set(err, TP_ERR_INVALID,
                        "chunk: index %d is outside 0..%lld (dim %d of size %lld in %d chunks "
                        "gives %lld)",
                        index, (long long)count - 1, dim, (long long)size, chunks,
                        (long long)count);
  start = (int64_t)index * csize;
  return tp_narrow(t, dim, start, size - start < csize ? size - start : csize, out, err);
}

TPDEF tp_status tp_flip(const tp_tensor *t, int dim, tp_tensor *out, tp_error *err) {
  tp_tensor r;
  tp_status s = tp__op_begin("flip", t, out, &r, err);
  if (s != TP_OK) return s;
  if (tp__dim_arg("flip", "dim", t, &dim, err)) return TP_ERR_INVALID;
  if (t->sizes[dim] > 0) {
    s = tp__move_offset("flip", t, dim, t->sizes[dim] - 1, tp__empty_besides(t, dim), &r, err);
    if (s != TP_OK) return s;
  }
  r.strides[dim] = -t->strides[dim];
  return tp__op_end("flip", t, &r, out, err);
}

TPDEF tp_status tp_expand(const tp_tensor *t, int ndim, const int64_t *sizes, tp_tensor *out,
                          tp_error *err) {
  tp_tensor r;
  int d, lead;
  tp_status s = tp__op_begin("expand", t, out, &r, err);
  if (s != TP_OK) return s;
  if (ndim < t->ndim || ndim > TP_MAX_DIMS)
    return tp__error_set(err, TP_ERR_INVALID, "expand: ndim %d is outside %d..%d (a %d-d view)",
                        ndim, t->ndim, TP_MAX_DIMS, t->ndim);
  if (ndim > 0 && !sizes) return tp__error_set(err, TP_ERR_INVALID, "expand: sizes is NULL");
  lead = ndim - t->ndim;
  for (d = 0; d < ndim; d++) {
    int64_t want = sizes[d];
    if (d < lead) {
      if (want < 0)
        return tp__error_set(err, TP_ERR_INVALID,
                            "expand: size %lld of new leading dim %d is negative",
                            (long long)want, d);
      r.sizes[d] = want;
      r.strides[d] = 0;
    } else {
      int64_t have = t->sizes[d - lead], st = t->strides[d - lead];
      if (want == -1 || want == have) {
        r.sizes[d] = have;
        r.strides[d] = st;
      } else if (have == 1 && want >= 0) {
        r.sizes[d] = want;
        r.strides[d] = 0;
      } else {
        return tp__error_set(err, TP_ERR_INVALID,
                            "expand: size %lld for dim %d, which has size %lld (only size-1 dims "
                            "expand; -1 keeps a size)",
                            (long long)want, d, (long long)have);
      }
    }
  }
  r.ndim = ndim;
  return tp__op_end("expand", t, &r, out, err);
}


TPDEF int64_t tp_numel(const tp_tensor *t) {
  int64_t n = 1;
  int d;
  if (!t || t->ndim < 0 || t->ndim > TP_MAX_DIMS) return -1;
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] < 0) return -1;
    if (t->sizes[d] == 0) return 0;
  }
  for (d = 0; d < t->ndim; d++)
    if (tp__mul_i64(n, t->sizes[d], &n)) return -1;
  return n;
}

TPDEF size_t tp_nbytes(const tp_tensor *t) {
  int64_t n = tp_numel(t);
  uint64_t b;
  if (n < 0 || tp__mul_u64((uint64_t)n, tp_dtype_size(t->dtype), &b) || b > SIZE_MAX) return 0;
  return (size_t)b;
}

/* 1 when, taking the n dims innermost first in `order` and skipping size-1 dims, each stride
   is the product of the sizes before it: PyTorch's contiguity checks (is_contiguous for the
   row-major order, channels_last for {1, 3, 2, 0}). */
static int tp__strides_packed(const tp_tensor *t, const int *order, int n) {
  int64_t expected = 1;
  int i, over = 0;
  for (i = 0; i < n; i++) {
    int d = order[i];
    if (t->sizes[d] != 1) {
      /* once the product leaves int64 (a hand-filled view), no later stride can match */
      if (over || t->strides[d] != expected) return 0;
      over = tp__mul_i64(expected, t->sizes[d], &expected);
    }
  }
  return 1;
}

TPDEF int tp_is_contiguous(const tp_tensor *t) {
  int order[TP_MAX_DIMS], d;
  if (!t || t->ndim < 0 || t->ndim > TP_MAX_DIMS) return 0;
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] == 0) return 1;
    order[d] = t->ndim - 1 - d;
  }
  return tp__strides_packed(t, order, t->ndim);
}

TPDEF int tp_is_dense(const tp_tensor *t) {
  int perm[TP_MAX_DIMS];
  int i, j, n, over = 0;
  int64_t require = 1;
  if (!t || t->ndim < 0 || t->ndim > TP_MAX_DIMS) return 0;
  n = t->ndim;
  if (n == 1) return t->sizes[0] < 2 || tp__abs_i64(t->strides[0]) == 1;
  /* stable sort of dims: size < 2 last, else by |stride| ascending */
  for (i = 0; i < n; i++) {
    int d = i;
    perm[i] = d;
    for (j = i; j > 0; j--) {
      int a = perm[j - 1], b = perm[j];
      int b_first;
      if (t->sizes[b] < 2) b_first = 0;
      else if (t->sizes[a] < 2) b_first = 1;
      else b_first = tp__abs_i64(t->strides[b]) < tp__abs_i64(t->strides[a]);
      if (!b_first) break;
      perm[j - 1] = b;
      perm[j] = a;
    }
  }
  for (i = 0; i < n; i++) {
    int64_t sz = t->sizes[perm[i]];
    if (sz < 2) return 1;
    if (over || tp__abs_i64(t->strides[perm[i]]) != require) return 0;
    over = tp__mul_i64(require, sz, &require);
  }
  return 1;
}

/* PyTorch's channels_last contiguity (4-d only). */
static int tp__channels_last(const tp_tensor *t) {
  static const int order[4] = {1, 3, 2, 0};
  return t->ndim == 4 && tp__strides_packed(t, order, 4);
}

/* compute_elementwise_output_logical_to_physical_perm for one tensor, |stride|. */
static void tp__dim_order(const tp_tensor *t, int *order) {
  int n = t->ndim, i, perm[TP_MAX_DIMS];
  int contig, cl;
  if (n == 0) return;
  if (n == 1) {
    order[0] = 0;
    return;
  }
  contig = tp_is_contiguous(t);
  cl = tp__channels_last(t);
  if (contig && !cl) {
    for (i = 0; i < n; i++) order[i] = i;
    return;
  }
  if (cl && !contig) {
    order[0] = 0;
    for (i = 2; i < n; i++) order[i - 1] = i;
    order[n - 1] = 1;
    return;
  }
  for (i = 0; i < n; i++) perm[i] = n - 1 - i; /* innermost first */
  for (i = 1; i < n; i++) {
    int dim1 = i, dim0;
    for (dim0 = i - 1; dim0 >= 0; dim0--) {
      int a = perm[dim0], b = perm[dim1], cmp = 0;
      int64_t sa = tp__abs_i64(t->strides[a]), sb = tp__abs_i64(t->strides[b]);
      if (sa != 0 && sb != 0) {
        if (sa < sb) cmp = -1;
        else if (sa > sb) cmp = 1;
        else if (t->sizes[a] > t->sizes[b]) cmp = 1;
      }
      if (cmp > 0) {
        perm[dim0] = b;
        perm[dim1] = a;
        dim1 = dim0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  for (i = 0; i < n; i++) order[i] = perm[n - 1 - i];
}

TPDEF tp_status tp_dim_order(const tp_tensor *t, uint8_t *order_out) {
  int order[TP_MAX_DIMS], d;
  tp_status s = tp_tensor_check(t, NULL);
  if (s != TP_OK) return s;
  if (t->ndim > 0 && !order_out) return TP_ERR_INVALID;
  tp__dim_order(t, order);
  for (d = 0; d < t->ndim; d++) order_out[d] = (uint8_t)order[d];
  return TP_OK;
}

TPDEF tp_status tp_span(const tp_tensor *t, size_t *begin, size_t *end) {
  int64_t n, lo, hi;
  tp_status s = tp__check(t, NULL, &n, &lo, &hi);
  if (s != TP_OK) return s;
  if (!begin || !end) return TP_ERR_INVALID;
  if (n == 0) {
    *begin = *end = 0;
    return TP_OK;
  }
  /* both fit: tp__check proved (hi + 1) * size <= storage bytes */
  *begin = (size_t)lo * tp_dtype_size(t->dtype);
  *end = ((size_t)hi + 1) * tp_dtype_size(t->dtype);
  return TP_OK;
}

// >>sink --------------------------------------------------------------------------------------

TPDEF tp_status tp_sink_write(tp_sink *sink, const void *data, size_t n) {
  if (!sink || !sink->write) return TP_ERR_INVALID; /* a bad argument, not a NULL object */
  if (n == 0) return TP_OK;
  if (!data) return TP_ERR_INVALID;
  return sink->write(sink->ctx, data, n);
}

TPDEF tp_status tp_sink_zeros(tp_sink *sink, size_t n) {
  static const unsigned char zeros[256] = {0};
  if (!sink || !sink->write) return TP_ERR_INVALID;
  while (n > 0) {
    size_t k = n < sizeof zeros ? n : sizeof zeros;
    tp_status s = sink->write(sink->ctx, zeros, k);
    if (s != TP_OK) return s;
    n -= k;
  }
  return TP_OK;
}

/* The sink that calls write with ctx: how every sink below is made. */
static tp_sink tp__sink_make(tp_status (*write)(void *ctx, const void *data, size_t n),
                             void *ctx) {
  tp_sink s;
  s.write = write;
  s.ctx = ctx;
  return s;
}

static tp_status tp__membuf_write(void *ctx, const void *data, size_t n) {
  tp_membuf *m = (tp_membuf *)ctx;
  void *p = m->data;
  tp_status s;
  if (n > SIZE_MAX - m->size) return TP_ERR_OVERFLOW;
  s = tp__array_reserve(&p, &m->cap, m->size + n, 1);
  m->data = (unsigned char *)p;
  if (s != TP_OK) return s;
  memcpy(m->data + m->size, data, n);
  m->size += n;
  return TP_OK;
}
TPDEF tp_sink tp_sink_membuf(tp_membuf *m) {
  TP_ASSERT(m);
  return tp__sink_make(tp__membuf_write, m);
}
TPDEF void tp_membuf_free(tp_membuf *m) {
  if (!m) return;
  TP_FREE(m->data);
  m->data = NULL;
  m->size = m->cap = 0;
}

static tp_status tp__counter_write(void *ctx, const void *data, size_t n) {
  uint64_t *c = (uint64_t *)ctx;
  (void)data;
  return tp__add_u64(*c, n, c) ? TP_ERR_OVERFLOW : TP_OK;
}
TPDEF tp_sink tp_sink_counter(uint64_t *count) {
  TP_ASSERT(count);
  return tp__sink_make(tp__counter_write, count);
}

static tp_status tp__tally_write(void *ctx, const void *data, size_t n) {
  tp__tally *t = (tp__tally *)ctx;
  tp_status st = tp_sink_write(t->inner, data, n);
  if (st == TP_OK) t->n += (uint64_t)n;
  else if (t->failed == TP_OK) t->failed = st;
  return st;
}
TPDEF tp_sink tp__sink_tally(tp__tally *t, tp_sink *inner) {
  TP_ASSERT(t); /* a NULL inner sink makes every write TP_ERR_INVALID */
  t->inner = inner;
  t->n = 0;
  t->failed = TP_OK;
  return tp__sink_make(tp__tally_write, t);
}

static tp_status tp__progress_write(void *ctx, const void *data, size_t n) {
  tp_progress *p = (tp_progress *)ctx;
  tp_status st;
  if (p->cancelled) return TP_ERR_CANCELLED;
  if (p->fn && !p->started) {
    p->started = 1;
    if (p->fn(p->ctx, 0, p->total) != 0) {
      p->cancelled = 1;
      return TP_ERR_CANCELLED;
    }
  }
  /* One big write (a contiguous constant of 64 MiB) goes in pieces of at most a step, so it is
     reported about every 1% too and can be cancelled midway. */
  do {
    size_t piece = n;
    if (p->fn) {
      uint64_t room = p->step - (p->done - p->reported < p->step ? p->done - p->reported : 0);
      if ((uint64_t)piece > room) piece = (size_t)room;
    }
    st = tp_sink_write(p->inner, data, piece);
    if (st != TP_OK) return st;
    p->done += (uint64_t)piece;
    data = (const unsigned char *)data + piece;
    n -= piece;
    if (p->fn && piece > 0 && (p->done - p->reported >= p->step || p->done == p->total)) {
      p->reported = p->done;
      if (p->fn(p->ctx, p->done, p->total) != 0) {
        p->cancelled = 1;
        return TP_ERR_CANCELLED;
      }
    }
  } while (n > 0);
  return TP_OK;
}

TPDEF tp_sink tp_sink_progress(tp_progress *p, tp_sink *inner, uint64_t total, tp_progress_fn fn,
                               void *ctx) {
  TP_ASSERT(p && inner);
  memset(p, 0, sizeof *p);
  p->inner = inner;
  p->fn = fn;
  p->ctx = ctx;
  p->total = total;
  p->step = total / 100 > 0 ? total / 100 : 1;
  return tp__sink_make(tp__progress_write, p);
}

// >>writer ------------------------------------------------------------------------------------

TPDEF tp_status tp__writer_status(const tp_error *err, const tp_error *werr) {
  return err->status != TP_OK ? err->status : werr->status;
}
TPDEF const char *tp__writer_error(const tp_error *err, const tp_error *werr) {
  return err->status != TP_OK ? err->msg : werr->status != TP_OK ? werr->msg : "";
}

TPDEF tp_status tp__writer_busy(tp_error *err, int writing, const char *call,
                                const char *object) {
  if (err->status != TP_OK) return err->status;
  if (!writing) return TP_OK;
  return tp__error_set(err, TP_ERR_INVALID, "%s during its own write (from the progress "
                       "callback): the %s cannot change while it is written", call, object);
}

TPDEF tp_status tp__writer_size(const tp__writer *w, const char *fn, uint64_t *size_out) {
  uint64_t total = 0;
  tp_status st;
  tp__error_reset(w->werr);
  if (size_out) *size_out = 0;
  if (w->err->status != TP_OK) return w->err->status;
  if (!size_out) return tp__error_set(w->werr, TP_ERR_INVALID, "%s: size_out is NULL", fn);
  st = w->prepare(w->obj, &total); /* (its failure's sentence is in werr) */
  if (st != TP_OK) return st;
  *size_out = total;
  return TP_OK;
}

/* An object's own sentence in werr, said of the file at path. */
static tp_status tp__writer_where(const tp__writer *w, const char *fn, const char *path,
                                  tp_status st) {
  tp_error own = *w->werr;
  tp__error_reset(w->werr);
  return tp__error_set(w->werr, st, "%s: writing \"%.100s\": %s; no file was left", fn, path,
                       own.msg);
}

/* One write: tp__writer_write's body; path != NULL when tp__writer_write_file runs it into a
   temporary file (the sentences then name the file). */
static tp_status tp__writer_run(const tp__writer *w, const char *fn, const char *path,
                                tp_sink *sink) {
  uint64_t total = 0, at;
  tp__tally took; /* what the caller's sink took, and its first failure */
  tp_sink to, out;
  tp_progress pr;
  tp_status st;
  tp__error_reset(w->werr);
  if (w->err->status != TP_OK) return w->err->status;
  if (!sink || !sink->write)
    return tp__error_set(w->werr, TP_ERR_INVALID, "%s: the sink or its write callback is NULL",
                         fn);
  st = w->prepare(w->obj, &total); /* (its failure's sentence is in werr) */
  if (st != TP_OK) return st;
  to = tp__sink_tally(&took, sink);
  pr.cancelled = 0;
  out = w->progress ? tp_sink_progress(&pr, &to, total, w->progress, w->progress_ctx) : to;
  ++*w->writing;
  if (w->writing_too) ++*w->writing_too;
  st = w->emit(w->obj, &out);
  if (w->writing_too) --*w->writing_too;
  --*w->writing;
  at = took.n;
  if (st == TP_OK) return TP_OK;
  if (took.failed == TP_OK && !pr.cancelled && w->werr->status != TP_OK) /* emit's sentence */
    return path ? tp__writer_where(w, fn, path, st) : st;
  tp__error_reset(w->werr);
  if (pr.cancelled && path)
    return tp__error_set(w->werr, st, "%s: writing \"%.100s\" was cancelled by the progress "
                         "callback at byte %llu of %llu; no file was left", fn, path,
                         (unsigned long long)at, (unsigned long long)total);
  if (pr.cancelled)
    return tp__error_set(w->werr, st, "%s: cancelled by the progress callback at byte %llu of "
                         "%llu", fn, (unsigned long long)at, (unsigned long long)total);
  if (path)
    return tp__error_set(w->werr, st, "%s: writing \"%.100s\" failed (%s) at byte %llu of %llu; "
                         "no file was left", fn, path, tp_status_str(st),
                         (unsigned long long)at, (unsigned long long)total);
  if (took.failed != TP_OK)
    return tp__error_set(w->werr, st, "%s: the sink failed (%s) at byte %llu of %llu", fn,
                         tp_status_str(took.failed), (unsigned long long)at,
                         (unsigned long long)total);
  return tp__error_set(w->werr, st, "%s: %s at byte %llu of %llu", fn, tp_status_str(st),
                       (unsigned long long)at, (unsigned long long)total);
}

TPDEF tp_status tp__writer_write(const tp__writer *w, const char *fn, tp_sink *sink) {
  return tp__writer_run(w, fn, NULL, sink);
}

#ifndef TP_NO_STDIO
static tp_status tp__file_write(void *ctx, const void *data, size_t n) {
  return fwrite(data, 1, n, (FILE *)ctx) == n ? TP_OK : TP_ERR_IO;
}
TPDEF tp_sink tp_sink_file(FILE *f) {
  TP_ASSERT(f);
  return tp__sink_make(tp__file_write, f);
}

/* The temp file, created exclusively (EEXIST when it is there): "wbx" where the C library
   knows "x" (C11, glibc); msvcrt ignores it, so on Windows through _open(_O_EXCL). */
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
static FILE *tp__fopen_excl(const char *path) {
  FILE *f;
  int fd = _open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
  if (fd < 0) return NULL;
  f = _fdopen(fd, "wb");
  if (!f) {
    _close(fd);
    remove(path);
  }
  return f;
}
/* kernel32's MoveFileExA, declared here (as <windows.h> does) to keep <windows.h> out */
#ifdef __cplusplus
extern "C"
#endif
__declspec(dllimport) int __stdcall MoveFileExA(const char *from, const char *to,
                                                 unsigned long flags);
#define TP__MOVEFILE_REPLACE_EXISTING 0x1ul
#define TP__MOVEFILE_WRITE_THROUGH 0x8ul
#else
static FILE *tp__fopen_excl(const char *path) { return fopen(path, "wbx"); }
#endif

static void tp__atomic_clear(tp_atomic_file *af) {
  TP_FREE(af->tmp_path);
  TP_FREE(af->path);
  af->f = NULL;
  af->tmp_path = af->path = NULL;
}

TPDEF tp_status tp_atomic_open(tp_atomic_file *af, const char *path, tp_sink *sink_out) {
  size_t len;
  unsigned n;
  TP_ASSERT(af);
  af->f = NULL;
  af->tmp_path = af->path = NULL;
  if (!path || !*path || !sink_out) return TP_ERR_INVALID;
  len = strlen(path);
  if (len > SIZE_MAX - 32) return TP_ERR_OVERFLOW;
  af->path = (char *)TP_MALLOC(len + 1);
  af->tmp_path = (char *)TP_MALLOC(len + 32);
  if (!af->path || !af->tmp_path) {
    tp__atomic_clear(af);
    return TP_ERR_NOMEM;
  }
  memcpy(af->path, path, len + 1);
  /* "<path>.tmp.<n>", created exclusively, so concurrent writers never share a temp file */
  for (n = 0; n < 64; n++) {
    snprintf(af->tmp_path, len + 32, "%s.tmp.%u", path, n);
    errno = 0;
    af->f = tp__fopen_excl(af->tmp_path);
    if (af->f || errno != EEXIST) break;
  }
  if (!af->f) {
    tp__atomic_clear(af);
    return TP_ERR_IO;
  }
  *sink_out = tp_sink_file(af->f);
  return TP_OK;
}

TPDEF tp_status tp_atomic_commit(tp_atomic_file *af) {
  int bad;
  TP_ASSERT(af);
  if (!af->f || !af->tmp_path || !af->path) return TP_ERR_INVALID;
  bad = fflush(af->f) != 0;
  bad |= ferror(af->f) != 0;
  bad |= fclose(af->f) != 0;
  af->f = NULL;
  if (!bad) {
#ifdef _WIN32
    /* rename does not replace on Windows; MoveFileEx replaces in one step (the old file stays
       whole when it fails) and returns only once the data is on disk */
    bad = !MoveFileExA(af->tmp_path, af->path,
                       TP__MOVEFILE_REPLACE_EXISTING | TP__MOVEFILE_WRITE_THROUGH);
#else
    bad = rename(af->tmp_path, af->path) != 0;
#endif
  }
  if (bad) remove(af->tmp_path);
  tp__atomic_clear(af);
  return bad ? TP_ERR_IO : TP_OK;
}

TPDEF void tp_atomic_abort(tp_atomic_file *af) {
  if (!af) return;
  if (af->f) fclose(af->f);
  if (af->tmp_path) remove(af->tmp_path);
  tp__atomic_clear(af);
}

TPDEF tp_status tp_atomic_write(const char *path, tp_status (*produce)(void *ctx, tp_sink *sink),
                                void *ctx, tp_error *err) {
  tp_atomic_file af;
  tp_sink sink;
  tp_status s;
  int e;
  tp__error_reset(err);
  if (!produce) return tp__error_set(err, TP_ERR_INVALID, "atomic write: produce is NULL");
  if (!path || !*path)
    return tp__error_set(err, TP_ERR_INVALID, "atomic write: the path is NULL or empty");
  errno = 0;
  s = tp_atomic_open(&af, path, &sink);
  e = errno;
  if (s != TP_OK) {
    if (s == TP_ERR_IO)
      return tp__error_set(err, s, "cannot create a temporary file beside \"%.100s\": %s "
                          "(does its directory exist and is it writable?)", path,
                          e ? strerror(e) : "unknown reason");
    return tp__error_set(err, s, "cannot open \"%.100s\": %s", path, tp_status_str(s));
  }
  s = produce(ctx, &sink);
  if (s != TP_OK) {
    tp_atomic_abort(&af);
    return tp__error_set(err, s, "writing \"%.100s\" failed (%s); no file was left",
                        path, tp_status_str(s));
  }
  errno = 0;
  s = tp_atomic_commit(&af);
  e = errno;
  if (s != TP_OK)
    return tp__error_set(err, s, "cannot finish \"%.100s\" (flush, close or rename failed: %s); "
                        "no file was left", path, e ? strerror(e) : "unknown reason");
  return TP_OK;
}

/* write_file's produce: the object's write into the temporary file, naming the call. */
typedef struct tp__writer_call {
  const tp__writer *w;
  const char *fn, *path;
} tp__writer_call;
static tp_status tp__writer_produce(void *ctx, tp_sink *sink) {
  const tp__writer_call *c = (const tp__writer_call *)ctx;
  return tp__writer_run(c->w, c->fn, c->path, sink);
}

TPDEF tp_status tp__writer_write_file(const tp__writer *w, const char *fn, const char *path) {
  tp__writer_call c;
  tp_error fe;
  uint64_t n;
  tp_status st;
  tp__error_reset(w->werr);
  if (w->err->status != TP_OK) return w->err->status;
  if (!path || !*path)
    return tp__error_set(w->werr, TP_ERR_INVALID, "%s: the path is NULL or empty", fn);
  st = w->prepare(w->obj, &n); /* a failure to lay out the object creates no file */
  if (st != TP_OK) return tp__writer_where(w, fn, path, st);
  c.w = w;
  c.fn = fn;
  c.path = path;
  st = tp_atomic_write(path, tp__writer_produce, &c, &fe);
  if (st == TP_OK || w->werr->status != TP_OK) return st; /* the write's own sentence */
  return tp__error_set(w->werr, st, "%s: %s", fn, fe.msg);  /* create, flush or rename */
}

TPDEF tp_status tp__writer_save(const tp__writer *w, const char *fn, const char *path,
                                uint64_t *size_out) {
  uint64_t n = 0;
  tp_status st = tp__writer_size(w, fn, &n);
  if (size_out) *size_out = 0;
  if (st == TP_OK) st = tp__writer_write_file(w, fn, path);
  if (st == TP_OK && size_out) *size_out = n;
  if (st != TP_OK) fprintf(stderr, "error: %s\n", tp__writer_error(w->err, w->werr));
  return st;
}
#endif /* TP_NO_STDIO */

// >>copy --------------------------------------------------------------------------------------

/* A view reduced for copying: the dims in output order (outermost first), size-1 dims dropped,
   adjacent dims that walk memory as one merged. */
typedef struct tp__plan {
  int nd;
  int64_t size[TP_MAX_DIMS];
  int64_t stride[TP_MAX_DIMS]; /* elements */
  size_t esize;
  int64_t numel;
  const unsigned char *base; /* the element at index (0, ..., 0); NULL when empty */
} tp__plan;

static tp_status tp__plan_make(const tp_tensor *t, tp_order order, tp__plan *p) {
  int perm[TP_MAX_DIMS], d;
  int64_t numel;
  tp_status s = tp__check(t, NULL, &numel, NULL, NULL);
  if (s != TP_OK) return s;
  if (order != TP_ORDER_ROW_MAJOR && order != TP_ORDER_PRESERVE) return TP_ERR_INVALID;
  memset(p, 0, sizeof *p);
  p->esize = tp_dtype_size(t->dtype);
  p->numel = numel;
  if (numel == 0) return TP_OK;
  p->base = (const unsigned char *)t->storage.data + (size_t)t->offset * p->esize;
  if (order == TP_ORDER_PRESERVE) tp__dim_order(t, perm);
  else
    for (d = 0; d < t->ndim; d++) perm[d] = d;
  for (d = 0; d < t->ndim; d++) {
    int64_t sz = t->sizes[perm[d]], st = t->strides[perm[d]], merged;
    if (sz == 1) continue;
    if (p->nd > 0 && !tp__mul_i64(st, sz, &merged) && merged == p->stride[p->nd - 1]) {
      p->size[p->nd - 1] *= sz; /* <= numel: no overflow */
      p->stride[p->nd - 1] = st;
      continue;
    }
    p->size[p->nd] = sz;
    p->stride[p->nd] = st;
    p->nd++;
  }
  return TP_OK;
}

/* Compact already: the bytes are one run starting at base. */
static int tp__plan_is_run(const tp__plan *p) {
  return p->numel == 0 || p->nd == 0 || (p->nd == 1 && p->stride[0] == 1);
}

static void tp__gather(unsigned char *dst, const unsigned char *src, int64_t n, int64_t sbytes,
                       size_t es) {
  int64_t i;
  switch (es) {
    case 1:
      for (i = 0; i < n; i++, src += sbytes) dst[i] = *src;
      break;
    case 2:
      for (i = 0; i < n; i++, src += sbytes, dst += 2) memcpy(dst, src, 2);
      break;
    case 4:
      for (i = 0; i < n; i++, src += sbytes, dst += 4) memcpy(dst, src, 4);
      break;
    case 8:
      for (i = 0; i < n; i++, src += sbytes, dst += 8) memcpy(dst, src, 8);
      break;
    default:
      for (i = 0; i < n; i++, src += sbytes, dst += es) memcpy(dst, src, es);
      break;
  }
}

/* The 2-D transpose kernel: dst[i * drow + j] = src[i + j * scol] for i < rows, j < cols
   (element units; strides may be negative). Two levels of blocking:
   - register tiles: square T x T tiles (SSE2 at compile time on x86-64: 8x8 bytes, 8x8 of
     2-byte, 4x4 of 4-byte, 2x2 of 8-byte elements; AVX2 for 2- and 4-byte elements and
     AVX-512 for 4- and 8-byte ones when the CPU has it, chosen at run time: tp__cpu_level),
     scalar loops for element sizes without a tile, for sides shorter than a tile and on CPUs
     without SSE2 (TP__K_C). The AVX-512 tiles (16x16 of 4-byte, 8x8 of 8-byte elements) load
     and store whole 64-byte rows: they are taken only where the source rows are on 64-byte
     lines and neither side is shorter than a tile (else every other row straddles two lines:
     f32 1000x1000 measured 1.02-1.2x slower with them), and not in the line groups (16 rows
     4 KiB apart in one L1 set: 1.03-1.09x slower). (A 16x16 SSE2 byte tile was measured: no
     faster in cache, slower out of it - 16 output rows in flight at once; bench/README.md.)
     With AVX-512BW, 1- and 2-byte elements have 64x64-byte and 32x32 tiles whose output rows
     are whole 64-byte lines (two forms, below the AVX2 tiles): the region kernel's byte
     super-tiles, tp__transpose_lines' buffer and the bounce blocks take them; tp__tile_for
     keeps the small tiles for the edges;
   - routes (tp__transpose, measured per row on an AMD EPYC Zen 4 against the 2026-11-30 and
     the previous kernels, bench/README.md): a plane of at most TP__TDIRECT bytes, or one whose
     source and output strides are not multiples of 4 KiB, goes straight through the region
     kernel (no row of it in the same cache set as the next); a small plane (<= 16 KiB) is one
     bounce block (below), or for the AVX-512 tiles, when its rows are on lines and do not
     alias, the region kernel too; an aliasing plane of at most a quarter of the last-level
     cache goes through tp__transpose_lines (line groups into a buffer, whole output pieces out: the
     cache serves its 64-byte reads); bigger aliasing planes are cut into cache blocks of Bj
     source rows x Bi elements. Each block's source rows are first copied into a small
     contiguous bounce buffer (long sequential reads the prefetchers follow, and no cache-set
     conflicts however the source stride aliases), then transposed tile by tile, each output
     row's piece written left to right. Blocks go down the source rows' runs first, so every
     source line is read once, whole, while its neighbours are still in flight, walked in
     super-blocks of TP__TSUPER source rows x TP__TSUPER output rows (the pages one super-block
     touches stay in the TLB).
   Streaming (TP__K_NT: outputs of at least a quarter of the LLC, tp__stream_out): the tiles
   write into a second L1 buffer and each output row's piece is streamed whole (tp__copy_nt),
   skipping the caches and the read-for-ownership of every output line; the 2x2 tile of 8-byte
   elements streams straight from its registers (two output rows in flight fill whole lines in
   order; 8-16 rows in flight, as from the SSE2 / AVX2 4-, 8- and 16-row tiles, left as many
   half-filled write-combining buffers and measured 1.2-2x slower), and so do the AVX-512
   tiles onto 64-byte aligned output rows: the 4- and 8-byte ones in the bounce blocks and in
   the region kernel (each row of a tile is one whole line, one store: f32 4096x4096 0.67x,
   NCHW->NHWC 0.56x the time of the second buffer's pieces), the AVX-512BW 1-/2-byte "lines"
   tiles of the bounce blocks and of the region kernel (every store one whole line; an output
   off its lines has its first columns transposed apart, tp__transpose). Every choice here was
   measured against its alternatives (bench/README.md); the alternatives that lost are gone
   from the code, and "The switches removed" in bench/README.md names the commit that still
   builds each of them (make bench-ab REV=<commit> runs the bench against it). */
#ifndef TP__PF_ROW_BYTES
#define TP__PF_ROW_BYTES 256 /* a long row copy prefetches this much of the next row's head
                                (128 / 1024: the columns [:, 100:612] 1.11x / 1.27x slower) */
#endif
#ifndef TP__PF_ROW_TAIL
#define TP__PF_ROW_TAIL 128 /* ... and this much of its tail (0: none; 64 mixed, 256 slower) */
#endif
#ifndef TP__PF_AHEAD_MIN
#define TP__PF_AHEAD_MIN ((size_t)1 << 20) /* row copies of 1-4 KiB in outputs of at least this
                                              many bytes also prefetch a row ~4 KiB ahead */
#endif
#define TP__K_AVX2 1 /* the CPU has AVX2 */
#define TP__K_AVX512 32 /* ... and AVX-512 F and BW (always with TP__K_AVX2) */
#define TP__K_C 4    /* the portable C loops only (no SSE2 tile, no streaming store) */
#define TP__K_PF 8   /* the region kernel prefetches its source rows (a plane out of cache) */
#define TP__K_PFW 16 /* ... and its output lines for writing (one column level: whole rows) */
#define TP__K_BUF 128 /* the region kernel writes tp__transpose_lines' buffer (rows alias) */
#define TP__K_NT 2   /* streaming stores for the output */
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define TP__SSE2 1
#define TP__LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TP__ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define TP__STN(p, v) _mm_stream_si128((__m128i *)(void *)(p), (v))
/* 4x4 of 4-byte elements; ss / ds are byte strides between source / destination rows. */
static void tp__tile4_4x4(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {
  __m128i r0 = TP__LD(s), r1 = TP__LD(s + ss), r2 = TP__LD(s + 2 * ss);
  __m128i r3 = TP__LD(s + 3 * ss);
  __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
  __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
  TP__ST(d, _mm_unpacklo_epi64(t0, t1));
  TP__ST(d + ds, _mm_unpackhi_epi64(t0, t1));
  TP__ST(d + 2 * ds, _mm_unpacklo_epi64(t2, t3));
  TP__ST(d + 3 * ds, _mm_unpackhi_epi64(t2, t3));
}
/* 8x8 of 2-byte elements. */
static void tp__tile2_8x8(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {
  __m128i r0 = TP__LD(s), r1 = TP__LD(s + ss), r2 = TP__LD(s + 2 * ss);
  __m128i r3 = TP__LD(s + 3 * ss), r4 = TP__LD(s + 4 * ss), r5 = TP__LD(s + 5 * ss);
  __m128i r6 = TP__LD(s + 6 * ss), r7 = TP__LD(s + 7 * ss);
  __m128i a = _mm_unpacklo_epi16(r0, r1), b = _mm_unpackhi_epi16(r0, r1);
  __m128i c = _mm_unpacklo_epi16(r2, r3), e = _mm_unpackhi_epi16(r2, r3);
  __m128i f = _mm_unpacklo_epi16(r4, r5), g = _mm_unpackhi_epi16(r4, r5);
  __m128i h = _mm_unpacklo_epi16(r6, r7), k = _mm_unpackhi_epi16(r6, r7);
  __m128i ac0 = _mm_unpacklo_epi32(a, c), ac1 = _mm_unpackhi_epi32(a, c);
  __m128i be0 = _mm_unpacklo_epi32(b, e), be1 = _mm_unpackhi_epi32(b, e);
  __m128i fh0 = _mm_unpacklo_epi32(f, h), fh1 = _mm_unpackhi_epi32(f, h);
  __m128i gk0 = _mm_unpacklo_epi32(g, k), gk1 = _mm_unpackhi_epi32(g, k);
  TP__ST(d, _mm_unpacklo_epi64(ac0, fh0));
  TP__ST(d + ds, _mm_unpackhi_epi64(ac0, fh0));
  TP__ST(d + 2 * ds, _mm_unpacklo_epi64(ac1, fh1));
  TP__ST(d + 3 * ds, _mm_unpackhi_epi64(ac1, fh1));
  TP__ST(d + 4 * ds, _mm_unpacklo_epi64(be0, gk0));
  TP__ST(d + 5 * ds, _mm_unpackhi_epi64(be0, gk0));
  TP__ST(d + 6 * ds, _mm_unpacklo_epi64(be1, gk1));
  TP__ST(d + 7 * ds, _mm_unpackhi_epi64(be1, gk1));
}
/* 8x8 of bytes (8-byte row pieces; no streaming form: 8-byte pieces would not fill a line). */
static void tp__tile1_8x8(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {
#define TP__L8(p) _mm_loadl_epi64((const __m128i *)(const void *)(p))
  __m128i a = _mm_unpacklo_epi8(TP__L8(s), TP__L8(s + ss));
  __m128i b = _mm_unpacklo_epi8(TP__L8(s + 2 * ss), TP__L8(s + 3 * ss));
  __m128i c = _mm_unpacklo_epi8(TP__L8(s + 4 * ss), TP__L8(s + 5 * ss));
  __m128i e = _mm_unpacklo_epi8(TP__L8(s + 6 * ss), TP__L8(s + 7 * ss));
#undef TP__L8
  __m128i ab0 = _mm_unpacklo_epi16(a, b), ab1 = _mm_unpackhi_epi16(a, b);
  __m128i ce0 = _mm_unpacklo_epi16(c, e), ce1 = _mm_unpackhi_epi16(c, e);
  __m128i o0 = _mm_unpacklo_epi32(ab0, ce0), o1 = _mm_unpackhi_epi32(ab0, ce0);
  __m128i o2 = _mm_unpacklo_epi32(ab1, ce1), o3 = _mm_unpackhi_epi32(ab1, ce1);
#define TP__S8(p, v) _mm_storel_epi64((__m128i *)(void *)(p), (v))
  TP__S8(d, o0);
  TP__S8(d + ds, _mm_unpackhi_epi64(o0, o0));
  TP__S8(d + 2 * ds, o1);
  TP__S8(d + 3 * ds, _mm_unpackhi_epi64(o1, o1));
  TP__S8(d + 4 * ds, o2);
  TP__S8(d + 5 * ds, _mm_unpackhi_epi64(o2, o2));
  TP__S8(d + 6 * ds, o3);
  TP__S8(d + 7 * ds, _mm_unpackhi_epi64(o3, o3));
#undef TP__S8
}
/* 2x2 of 8-byte elements. */
static void tp__tile8_2x2(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {
  __m128i r0 = TP__LD(s), r1 = TP__LD(s + ss);
  TP__ST(d, _mm_unpacklo_epi64(r0, r1));
  TP__ST(d + ds, _mm_unpackhi_epi64(r0, r1));
}
static void tp__tile8_2x2_nt(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {
  __m128i r0 = TP__LD(s), r1 = TP__LD(s + ss);
  TP__STN(d, _mm_unpacklo_epi64(r0, r1));
  TP__STN(d + ds, _mm_unpackhi_epi64(r0, r1));
}
#else
#define TP__SSE2 0
#endif

#if TP__SSE2 && !defined(TP_NO_AVX2) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define TP__AVX2 1
#include <immintrin.h>
/* 8x8 of 4-byte elements with 256-bit registers (pure bit moves: NaN payloads are kept).
   Rows k and k + 4 share a register (low / high 128 bits): the inserts are loads plus blends,
   which leaves the shuffle port 16 shuffles per tile instead of 24. r_k = [row k cols 0-3 |
   row k+4 cols 0-3] (k < 4), r_{k+4} the same for cols 4-7; after two shuffle stages each
   register holds one output row: [col c rows 0-3 | col c rows 4-7]. */
#define TP__LDH(p) _mm_loadu_ps((const float *)(const void *)(p))
#define TP__LROW(k, o)                                                                          \
  _mm256_insertf128_ps(_mm256_castps128_ps256(TP__LDH(s + (k) * ss + (o))),                     \
                       TP__LDH(s + ((k) + 4) * ss + (o)), 1)
#define TP__S256(p, v) _mm256_storeu_ps((float *)(void *)(p), (v))
__attribute__((target("avx2"))) static void tp__tile4_8x8_avx2(unsigned char *d, int64_t ds,
                                                                 const unsigned char *s,
                                                                 int64_t ss) {
  __m256 r0 = TP__LROW(0, 0), r1 = TP__LROW(1, 0), r2 = TP__LROW(2, 0), r3 = TP__LROW(3, 0);
  __m256 r4 = TP__LROW(0, 16), r5 = TP__LROW(1, 16), r6 = TP__LROW(2, 16);
  __m256 r7 = TP__LROW(3, 16);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  TP__S256(d, _mm256_shuffle_ps(t0, t2, 0x44));
  TP__S256(d + ds, _mm256_shuffle_ps(t0, t2, 0xEE));
  TP__S256(d + 2 * ds, _mm256_shuffle_ps(t1, t3, 0x44));
  TP__S256(d + 3 * ds, _mm256_shuffle_ps(t1, t3, 0xEE));
  TP__S256(d + 4 * ds, _mm256_shuffle_ps(t4, t6, 0x44));
  TP__S256(d + 5 * ds, _mm256_shuffle_ps(t4, t6, 0xEE));
  TP__S256(d + 6 * ds, _mm256_shuffle_ps(t5, t7, 0x44));
  TP__S256(d + 7 * ds, _mm256_shuffle_ps(t5, t7, 0xEE));
}
#undef TP__S256
#undef TP__LROW
#undef TP__LDH
/* 16x16 of 2-byte elements with 256-bit registers: a source row of 16 elements is one
   register, so the 8x8 network of tp__tile2_8x8 run on 256-bit registers (per 128-bit lane)
   transposes two 8x8 tiles at once; TP__T2NET leaves in O##m = [output row m | output row
   m + 8] of the eight source rows at P. Two passes (source rows 0-7 into x, 8-15 into y), then
   lane permutes join them into whole 32-byte output rows. */
#define TP__L256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define TP__U16(lh, x, y) _mm256_unpack##lh##_epi16((x), (y))
#define TP__U32(lh, x, y) _mm256_unpack##lh##_epi32((x), (y))
#define TP__U64(lh, x, y) _mm256_unpack##lh##_epi64((x), (y))
#define TP__T2NET(P, O)                                                                         \
  do {                                                                                          \
    __m256i r0 = TP__L256(P), r1 = TP__L256((P) + ss), r2 = TP__L256((P) + 2 * ss);             \
    __m256i r3 = TP__L256((P) + 3 * ss), r4 = TP__L256((P) + 4 * ss);                           \
    __m256i r5 = TP__L256((P) + 5 * ss), r6 = TP__L256((P) + 6 * ss);                           \
    __m256i r7 = TP__L256((P) + 7 * ss);                                                        \
    __m256i a = TP__U16(lo, r0, r1), b = TP__U16(hi, r0, r1), c = TP__U16(lo, r2, r3);          \
    __m256i e = TP__U16(hi, r2, r3), f = TP__U16(lo, r4, r5), g = TP__U16(hi, r4, r5);          \
    __m256i h = TP__U16(lo, r6, r7), k = TP__U16(hi, r6, r7);                                   \
    __m256i ac0 = TP__U32(lo, a, c), ac1 = TP__U32(hi, a, c), be0 = TP__U32(lo, b, e);          \
    __m256i be1 = TP__U32(hi, b, e), fh0 = TP__U32(lo, f, h), fh1 = TP__U32(hi, f, h);          \
    __m256i gk0 = TP__U32(lo, g, k), gk1 = TP__U32(hi, g, k);                                   \
    O##0 = TP__U64(lo, ac0, fh0);                                                               \
    O##1 = TP__U64(hi, ac0, fh0);                                                               \
    O##2 = TP__U64(lo, ac1, fh1);                                                               \
    O##3 = TP__U64(hi, ac1, fh1);                                                               \
    O##4 = TP__U64(lo, be0, gk0);                                                               \
    O##5 = TP__U64(hi, be0, gk0);                                                               \
    O##6 = TP__U64(lo, be1, gk1);                                                               \
    O##7 = TP__U64(hi, be1, gk1);                                                               \
  } while (0)
#define TP__J(ST, m)                                                                            \
  ST(d + (m) * ds, _mm256_permute2x128_si256(x##m, y##m, 0x20));                                \
  ST(d + ((m) + 8) * ds, _mm256_permute2x128_si256(x##m, y##m, 0x31))
#define TP__TILE2_16X16(NAME, STORE)                                                            \
  __attribute__((target("avx2"))) static void NAME(unsigned char *d, int64_t ds,                \
                                                   const unsigned char *s, int64_t ss) {        \
    __m256i x0, x1, x2, x3, x4, x5, x6, x7, y0, y1, y2, y3, y4, y5, y6, y7;                     \
    TP__T2NET(s, x);                                                                            \
    TP__T2NET(s + 8 * ss, y);                                                                   \
    TP__J(STORE, 0);                                                                            \
    TP__J(STORE, 1);                                                                            \
    TP__J(STORE, 2);                                                                            \
    TP__J(STORE, 3);                                                                            \
    TP__J(STORE, 4);                                                                            \
    TP__J(STORE, 5);                                                                            \
    TP__J(STORE, 6);                                                                            \
    TP__J(STORE, 7);                                                                            \
  }
#define TP__S256I(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
TP__TILE2_16X16(tp__tile2_16x16_avx2, TP__S256I)
#undef TP__TILE2_16X16
#undef TP__S256I
#undef TP__J
#undef TP__T2NET
#undef TP__U64
#undef TP__U32
#undef TP__U16
#undef TP__L256
static int tp__cpu_avx2(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }
#else
#define TP__AVX2 0
static int tp__cpu_avx2(void) { return 0; }
#endif
/* AVX-512 (F and BW) kernels: compiled with target attributes where AVX2's are (TP_NO_AVX512
   leaves them out), used when the CPU and the OS have them (__builtin_cpu_supports checks both). */
#if TP__AVX2 && !defined(TP_NO_AVX512)
#define TP__AVX512 1
static int tp__cpu_avx512(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") ? 1 : 0;
}
/* 16x16 of 4-byte and 8x8 of 8-byte elements with 512-bit registers (pure bit moves: NaN
   payloads are kept). Every source row of a tile is one 64-byte load and every output row one
   64-byte store: a whole line when the rows are on lines, so the streaming forms
   (_mm512_stream_si512: 64-byte aligned output rows only) fill each write-combining buffer
   with one store. 4-byte network: unpack 32 / unpack 64 within 128-bit lanes leave u_{4g+c}
   lane L = column 4L + c of rows 4g..4g+3; two 128-bit lane shuffles gather each column's four
   lanes into one register. 8-byte network: unpack 64 leaves t_{2g+c} lane L = column 2L + c of
   rows 2g, 2g + 1; the same two lane shuffles. */
/* (the zero-masking forms with every lane kept: the plain ones of gcc 12's headers start from
   an "undefined" value that g++ -Wuninitialized reports; the same instructions) */
#define TP__UL32(a, b) _mm512_maskz_unpacklo_epi32((__mmask16)0xFFFF, (a), (b))
#define TP__UH32(a, b) _mm512_maskz_unpackhi_epi32((__mmask16)0xFFFF, (a), (b))
#define TP__UL64(a, b) _mm512_maskz_unpacklo_epi64((__mmask8)0xFF, (a), (b))
#define TP__UH64(a, b) _mm512_maskz_unpackhi_epi64((__mmask8)0xFF, (a), (b))
#define TP__SH128(a, b, imm) _mm512_maskz_shuffle_i64x2((__mmask8)0xFF, (a), (b), (imm))
#define TP__L512(p) _mm512_loadu_si512((const void *)(p))
#define TP__S512(p, v) _mm512_storeu_si512((void *)(p), (v))
#define TP__S512N(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (v))
/* the lane shuffles: X = [a.L0, a.L2, b.L0, b.L2] (0x88), Y = [a.L1, a.L3, b.L1, b.L3] (0xDD) */
#define TP__LANES(X, Y, a, b)                                                                    \
  X = TP__SH128((a), (b), 0x88);                                                                 \
  Y = TP__SH128((a), (b), 0xDD)
/* the column c of the four quarter registers a, b, e, f (rows 0-3, 4-7, 8-11, 12-15 of the
   16x16 tile; or row pairs of the 8x8) into output rows c, c + Q, c + 2Q, c + 3Q (Q = T / 4) */
#define TP__COLS4(STORE, c, Q, a, b, e, f)                                                       \
  do {                                                                                           \
    __m512i tp__v0, tp__v1, tp__w0, tp__w1;                                                      \
    TP__LANES(tp__v0, tp__v1, a, b);                                                             \
    TP__LANES(tp__w0, tp__w1, e, f);                                                             \
    STORE(d + (c) * ds, TP__SH128(tp__v0, tp__w0, 0x88));                                        \
    STORE(d + ((c) + (Q)) * ds, TP__SH128(tp__v1, tp__w1, 0x88));                                \
    STORE(d + ((c) + 2 * (Q)) * ds, TP__SH128(tp__v0, tp__w0, 0xDD));                            \
    STORE(d + ((c) + 3 * (Q)) * ds, TP__SH128(tp__v1, tp__w1, 0xDD));                            \
  } while (0)
#define TP__U4(g, r0, r1, r2, r3)                                                                \
  do {                                                                                           \
    __m512i tp__t0 = TP__UL32(r0, r1), tp__t1 = TP__UH32(r0, r1);                                \
    __m512i tp__t2 = TP__UL32(r2, r3), tp__t3 = TP__UH32(r2, r3);                                \
    u##g##0 = TP__UL64(tp__t0, tp__t2);                                                          \
    u##g##1 = TP__UH64(tp__t0, tp__t2);                                                          \
    u##g##2 = TP__UL64(tp__t1, tp__t3);                                                          \
    u##g##3 = TP__UH64(tp__t1, tp__t3);                                                          \
  } while (0)
#define TP__Q4(g)                                                                                \
  TP__U4(g, TP__L512(s + (4 * (g)) * ss), TP__L512(s + (4 * (g) + 1) * ss),                      \
         TP__L512(s + (4 * (g) + 2) * ss), TP__L512(s + (4 * (g) + 3) * ss))
#define TP__TILE4_16X16(NAME, STORE)                                                             \
  __attribute__((target("avx512f,avx512bw"))) static void NAME(                                  \
      unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {                        \
    __m512i u00, u01, u02, u03, u10, u11, u12, u13, u20, u21, u22, u23, u30, u31, u32, u33;      \
    TP__Q4(0);                                                                                   \
    TP__Q4(1);                                                                                   \
    TP__Q4(2);                                                                                   \
    TP__Q4(3);                                                                                   \
    TP__COLS4(STORE, 0, 4, u00, u10, u20, u30);                                                  \
    TP__COLS4(STORE, 1, 4, u01, u11, u21, u31);                                                  \
    TP__COLS4(STORE, 2, 4, u02, u12, u22, u32);                                                  \
    TP__COLS4(STORE, 3, 4, u03, u13, u23, u33);                                                  \
  }
TP__TILE4_16X16(tp__tile4_16x16_avx512, TP__S512)
TP__TILE4_16X16(tp__tile4_16x16_avx512_nt, TP__S512N)
#undef TP__TILE4_16X16
#undef TP__Q4
#undef TP__U4
#define TP__TILE8_8X8(NAME, STORE)                                                               \
  __attribute__((target("avx512f,avx512bw"))) static void NAME(                                  \
      unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) {                        \
    __m512i r0 = TP__L512(s), r0b = TP__L512(s + ss), r1 = TP__L512(s + 2 * ss);                 \
    __m512i r1b = TP__L512(s + 3 * ss), r2 = TP__L512(s + 4 * ss), r2b = TP__L512(s + 5 * ss);   \
    __m512i r3 = TP__L512(s + 6 * ss), r3b = TP__L512(s + 7 * ss);                               \
    __m512i t0 = TP__UL64(r0, r0b), t1 = TP__UH64(r0, r0b);                                      \
    __m512i t2 = TP__UL64(r1, r1b), t3 = TP__UH64(r1, r1b);                                      \
    __m512i t4 = TP__UL64(r2, r2b), t5 = TP__UH64(r2, r2b);                                      \
    __m512i t6 = TP__UL64(r3, r3b), t7 = TP__UH64(r3, r3b);                                      \
    TP__COLS4(STORE, 0, 2, t0, t2, t4, t6);                                                      \
    TP__COLS4(STORE, 1, 2, t1, t3, t5, t7);                                                      \
  }
TP__TILE8_8X8(tp__tile8_8x8_avx512, TP__S512)
TP__TILE8_8X8(tp__tile8_8x8_avx512_nt, TP__S512N)
#undef TP__TILE8_8X8
#undef TP__COLS4
#undef TP__LANES
#undef TP__S512N
#undef TP__S512
#undef TP__L512
#undef TP__SH128
#undef TP__UH64
#undef TP__UL64
#undef TP__UH32
#undef TP__UL32
#else
#define TP__AVX512 0
static int tp__cpu_avx512(void) { return 0; }
#endif
/* AVX-512BW tiles of 1- and 2-byte elements: 64 x 64 bytes and 32 x 32 2-byte elements, every
   output row of a tile one whole 64-byte line (pure bit moves). Both are built from one in-lane
   network: sixteen 16-byte rows (eight of 2-byte elements) held in the four 128-bit lanes of
   as many zmm registers, transposed per lane by unpack stages (epi8, epi16, epi32, epi64 for
   bytes; the last three for 2-byte elements), four sub-tiles at once. TP__N1 / TP__N2 leave in
   O##c (c < 16 / 8) the c-th element of every input row, per lane. Two ways to fill the lanes
   give the two forms of each tile:
   - "rows" (tp__tile*_rw): lane L of register k = the L-th 16 bytes of source row k's 64, so
     lane L of O##c is 16 bytes of output row 16L + c (8L + c for 2-byte elements): whole
     source lines in, 16-byte pieces out - for 4 KiB-aliasing source rows (tp__transpose_lines'
     buffer), where each line is read by one load ("lines" there: bf16 2048² 2.36x slower, 32
     source rows of a tile in one 8-way L1 set);
   - "lines" (tp__tile*_ln): lane L of register k = 16 bytes of source row 16L + k (8L + k), so
     O##c is all 64 bytes of output row c: 16-byte pieces in, whole output lines out (the region
     kernel's byte super-tiles - 2-byte elements keep the AVX2 16x16 there, "lines" 1.09-1.31x
     and "rows" 1.18-1.46x slower; the bounce blocks, where the SSE2 8x8 / AVX2 16x16 measured
     1.25-1.27x slower), and streamed straight from the registers into 64-byte aligned rows
     (tp__tile*_ln_nt): no half-filled write-combining buffers (the second buffer's streamed
     pieces instead: 1.12-1.28x slower). */
#if TP__AVX512
#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
/* g++ 12 takes the intrinsics' own _mm512_undefined_*() placeholders for uninitialized values */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define TP__Z_LD(p) _mm512_loadu_si512((const void *)(p))
#define TP__Z_ST(p, v) _mm512_storeu_si512((void *)(p), (v))
#define TP__Z_STN(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (v))
#define TP__Z_U(w, lh, x, y) _mm512_unpack##lh##_epi##w((x), (y))
/* 4 x 16 bytes into one zmm: lane L from a + L * step */
#define TP__Z_LANES(a, step)                                                                    \
  _mm512_inserti64x4(                                                                           \
      _mm512_castsi256_si512(_mm256_inserti128_si256(                                           \
          _mm256_castsi128_si256(TP__LD(a)), TP__LD((a) + (step)), 1)),                         \
      _mm256_inserti128_si256(_mm256_castsi128_si256(TP__LD((a) + 2 * (step))),                 \
                              TP__LD((a) + 3 * (step)), 1),                                     \
      1)
/* the 16 x 16 byte network on R##0..R##15 into O##0..O##15 (O##c: byte c of every row) */
#define TP__N1(R, O)                                                                            \
  do {                                                                                          \
    __m512i a0 = TP__Z_U(8, lo, R##0, R##1), a1 = TP__Z_U(8, hi, R##0, R##1);                   \
    __m512i a2 = TP__Z_U(8, lo, R##2, R##3), a3 = TP__Z_U(8, hi, R##2, R##3);                   \
    __m512i a4 = TP__Z_U(8, lo, R##4, R##5), a5 = TP__Z_U(8, hi, R##4, R##5);                   \
    __m512i a6 = TP__Z_U(8, lo, R##6, R##7), a7 = TP__Z_U(8, hi, R##6, R##7);                   \
    __m512i a8 = TP__Z_U(8, lo, R##8, R##9), a9 = TP__Z_U(8, hi, R##8, R##9);                   \
    __m512i a10 = TP__Z_U(8, lo, R##10, R##11), a11 = TP__Z_U(8, hi, R##10, R##11);             \
    __m512i a12 = TP__Z_U(8, lo, R##12, R##13), a13 = TP__Z_U(8, hi, R##12, R##13);             \
    __m512i a14 = TP__Z_U(8, lo, R##14, R##15), a15 = TP__Z_U(8, hi, R##14, R##15);             \
    /* a(2p) / a(2p+1): bytes 0-7 / 8-15 of rows 2p, 2p+1, paired */                            \
    __m512i b0 = TP__Z_U(16, lo, a0, a2), b1 = TP__Z_U(16, hi, a0, a2);                         \
    __m512i b2 = TP__Z_U(16, lo, a1, a3), b3 = TP__Z_U(16, hi, a1, a3);                         \
    __m512i b4 = TP__Z_U(16, lo, a4, a6), b5 = TP__Z_U(16, hi, a4, a6);                         \
    __m512i b6 = TP__Z_U(16, lo, a5, a7), b7 = TP__Z_U(16, hi, a5, a7);                         \
    __m512i b8 = TP__Z_U(16, lo, a8, a10), b9 = TP__Z_U(16, hi, a8, a10);                       \
    __m512i b10 = TP__Z_U(16, lo, a9, a11), b11 = TP__Z_U(16, hi, a9, a11);                     \
    __m512i b12 = TP__Z_U(16, lo, a12, a14), b13 = TP__Z_U(16, hi, a12, a14);                   \
    __m512i b14 = TP__Z_U(16, lo, a13, a15), b15 = TP__Z_U(16, hi, a13, a15);                   \
    /* b(4q + m): bytes 4m..4m+3 of rows 4q..4q+3 */                                            \
    __m512i c0 = TP__Z_U(32, lo, b0, b4), c1 = TP__Z_U(32, hi, b0, b4);                         \
    __m512i c2 = TP__Z_U(32, lo, b1, b5), c3 = TP__Z_U(32, hi, b1, b5);                         \
    __m512i c4 = TP__Z_U(32, lo, b2, b6), c5 = TP__Z_U(32, hi, b2, b6);                         \
    __m512i c6 = TP__Z_U(32, lo, b3, b7), c7 = TP__Z_U(32, hi, b3, b7);                         \
    __m512i c8 = TP__Z_U(32, lo, b8, b12), c9 = TP__Z_U(32, hi, b8, b12);                       \
    __m512i c10 = TP__Z_U(32, lo, b9, b13), c11 = TP__Z_U(32, hi, b9, b13);                     \
    __m512i c12 = TP__Z_U(32, lo, b10, b14), c13 = TP__Z_U(32, hi, b10, b14);                   \
    __m512i c14 = TP__Z_U(32, lo, b11, b15), c15 = TP__Z_U(32, hi, b11, b15);                   \
    /* c(8h + m): bytes 2m, 2m+1 of rows 8h..8h+7 */                                            \
    O##0 = TP__Z_U(64, lo, c0, c8);                                                             \
    O##1 = TP__Z_U(64, hi, c0, c8);                                                             \
    O##2 = TP__Z_U(64, lo, c1, c9);                                                             \
    O##3 = TP__Z_U(64, hi, c1, c9);                                                             \
    O##4 = TP__Z_U(64, lo, c2, c10);                                                            \
    O##5 = TP__Z_U(64, hi, c2, c10);                                                            \
    O##6 = TP__Z_U(64, lo, c3, c11);                                                            \
    O##7 = TP__Z_U(64, hi, c3, c11);                                                            \
    O##8 = TP__Z_U(64, lo, c4, c12);                                                            \
    O##9 = TP__Z_U(64, hi, c4, c12);                                                            \
    O##10 = TP__Z_U(64, lo, c5, c13);                                                           \
    O##11 = TP__Z_U(64, hi, c5, c13);                                                           \
    O##12 = TP__Z_U(64, lo, c6, c14);                                                           \
    O##13 = TP__Z_U(64, hi, c6, c14);                                                           \
    O##14 = TP__Z_U(64, lo, c7, c15);                                                           \
    O##15 = TP__Z_U(64, hi, c7, c15);                                                           \
  } while (0)
/* the 8 x 8 network of 2-byte elements on R##0..R##7 into O##0..O##7 (tp__tile2_8x8's) */
#define TP__N2(R, O)                                                                            \
  do {                                                                                          \
    __m512i a = TP__Z_U(16, lo, R##0, R##1), b = TP__Z_U(16, hi, R##0, R##1);                   \
    __m512i c = TP__Z_U(16, lo, R##2, R##3), e = TP__Z_U(16, hi, R##2, R##3);                   \
    __m512i f = TP__Z_U(16, lo, R##4, R##5), g = TP__Z_U(16, hi, R##4, R##5);                   \
    __m512i h = TP__Z_U(16, lo, R##6, R##7), k = TP__Z_U(16, hi, R##6, R##7);                   \
    __m512i ac0 = TP__Z_U(32, lo, a, c), ac1 = TP__Z_U(32, hi, a, c);                           \
    __m512i be0 = TP__Z_U(32, lo, b, e), be1 = TP__Z_U(32, hi, b, e);                           \
    __m512i fh0 = TP__Z_U(32, lo, f, h), fh1 = TP__Z_U(32, hi, f, h);                           \
    __m512i gk0 = TP__Z_U(32, lo, g, k), gk1 = TP__Z_U(32, hi, g, k);                           \
    O##0 = TP__Z_U(64, lo, ac0, fh0);                                                           \
    O##1 = TP__Z_U(64, hi, ac0, fh0);                                                           \
    O##2 = TP__Z_U(64, lo, ac1, fh1);                                                           \
    O##3 = TP__Z_U(64, hi, ac1, fh1);                                                           \
    O##4 = TP__Z_U(64, lo, be0, gk0);                                                           \
    O##5 = TP__Z_U(64, hi, be0, gk0);                                                           \
    O##6 = TP__Z_U(64, lo, be1, gk1);                                                           \
    O##7 = TP__Z_U(64, hi, be1, gk1);                                                           \
  } while (0)
#define TP__ZR16(X) X##0, X##1, X##2, X##3, X##4, X##5, X##6, X##7, X##8, X##9, X##10, X##11, \
                    X##12, X##13, X##14, X##15
#define TP__ZR8(X) X##0, X##1, X##2, X##3, X##4, X##5, X##6, X##7
/* lane L of O##c to output row L * LS + c, at q (16 bytes: "rows" form) */
#define TP__Z_PUT4(q, O, c, LS)                                                                 \
  TP__ST((q) + (c) * ds, _mm512_castsi512_si128(O##c));                                        \
  TP__ST((q) + ((LS) + (c)) * ds, _mm512_extracti32x4_epi32(O##c, 1));                         \
  TP__ST((q) + (2 * (LS) + (c)) * ds, _mm512_extracti32x4_epi32(O##c, 2));                     \
  TP__ST((q) + (3 * (LS) + (c)) * ds, _mm512_extracti32x4_epi32(O##c, 3))
#define TP__A512 __attribute__((target("avx512f,avx512bw")))
/* "rows": 16 whole source rows (16 output columns) per strip, four strips */
TP__A512 static void tp__tile1_64_rw(unsigned char *d, int64_t ds, const unsigned char *s,
                                      int64_t ss) {
  int t;
  for (t = 0; t < 4; t++, s += 16 * ss, d += 16) {
    __m512i r0 = TP__Z_LD(s), r1 = TP__Z_LD(s + ss), r2 = TP__Z_LD(s + 2 * ss);
    __m512i r3 = TP__Z_LD(s + 3 * ss), r4 = TP__Z_LD(s + 4 * ss), r5 = TP__Z_LD(s + 5 * ss);
    __m512i r6 = TP__Z_LD(s + 6 * ss), r7 = TP__Z_LD(s + 7 * ss), r8 = TP__Z_LD(s + 8 * ss);
    __m512i r9 = TP__Z_LD(s + 9 * ss), r10 = TP__Z_LD(s + 10 * ss);
    __m512i r11 = TP__Z_LD(s + 11 * ss), r12 = TP__Z_LD(s + 12 * ss);
    __m512i r13 = TP__Z_LD(s + 13 * ss), r14 = TP__Z_LD(s + 14 * ss);
    __m512i r15 = TP__Z_LD(s + 15 * ss);
    __m512i TP__ZR16(o);
    TP__N1(r, o);
    TP__Z_PUT4(d, o, 0, 16); TP__Z_PUT4(d, o, 1, 16); TP__Z_PUT4(d, o, 2, 16);
    TP__Z_PUT4(d, o, 3, 16); TP__Z_PUT4(d, o, 4, 16); TP__Z_PUT4(d, o, 5, 16);
    TP__Z_PUT4(d, o, 6, 16); TP__Z_PUT4(d, o, 7, 16); TP__Z_PUT4(d, o, 8, 16);
    TP__Z_PUT4(d, o, 9, 16); TP__Z_PUT4(d, o, 10, 16); TP__Z_PUT4(d, o, 11, 16);
    TP__Z_PUT4(d, o, 12, 16); TP__Z_PUT4(d, o, 13, 16); TP__Z_PUT4(d, o, 14, 16);
    TP__Z_PUT4(d, o, 15, 16);
  }
}
TP__A512 static void tp__tile2_32_rw(unsigned char *d, int64_t ds, const unsigned char *s,
                                      int64_t ss) {
  int t;
  for (t = 0; t < 4; t++, s += 8 * ss, d += 16) {
    __m512i r0 = TP__Z_LD(s), r1 = TP__Z_LD(s + ss), r2 = TP__Z_LD(s + 2 * ss);
    __m512i r3 = TP__Z_LD(s + 3 * ss), r4 = TP__Z_LD(s + 4 * ss), r5 = TP__Z_LD(s + 5 * ss);
    __m512i r6 = TP__Z_LD(s + 6 * ss), r7 = TP__Z_LD(s + 7 * ss);
    __m512i TP__ZR8(o);
    TP__N2(r, o);
    TP__Z_PUT4(d, o, 0, 8); TP__Z_PUT4(d, o, 1, 8); TP__Z_PUT4(d, o, 2, 8);
    TP__Z_PUT4(d, o, 3, 8); TP__Z_PUT4(d, o, 4, 8); TP__Z_PUT4(d, o, 5, 8);
    TP__Z_PUT4(d, o, 6, 8); TP__Z_PUT4(d, o, 7, 8);
  }
}
/* "lines": 16 output rows (8 of 2-byte elements) per strip, each one whole store, four strips */
#define TP__TILE1_64_LN(NAME, STORE)                                                            \
  TP__A512 static void NAME(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) { \
    int t;                                                                                      \
    for (t = 0; t < 4; t++, s += 16, d += 16 * ds) {                                            \
      __m512i r0 = TP__Z_LANES(s, 16 * ss), r1 = TP__Z_LANES(s + ss, 16 * ss);                  \
      __m512i r2 = TP__Z_LANES(s + 2 * ss, 16 * ss), r3 = TP__Z_LANES(s + 3 * ss, 16 * ss);     \
      __m512i r4 = TP__Z_LANES(s + 4 * ss, 16 * ss), r5 = TP__Z_LANES(s + 5 * ss, 16 * ss);     \
      __m512i r6 = TP__Z_LANES(s + 6 * ss, 16 * ss), r7 = TP__Z_LANES(s + 7 * ss, 16 * ss);     \
      __m512i r8 = TP__Z_LANES(s + 8 * ss, 16 * ss), r9 = TP__Z_LANES(s + 9 * ss, 16 * ss);     \
      __m512i r10 = TP__Z_LANES(s + 10 * ss, 16 * ss);                                          \
      __m512i r11 = TP__Z_LANES(s + 11 * ss, 16 * ss);                                          \
      __m512i r12 = TP__Z_LANES(s + 12 * ss, 16 * ss);                                          \
      __m512i r13 = TP__Z_LANES(s + 13 * ss, 16 * ss);                                          \
      __m512i r14 = TP__Z_LANES(s + 14 * ss, 16 * ss);                                          \
      __m512i r15 = TP__Z_LANES(s + 15 * ss, 16 * ss);                                          \
      __m512i TP__ZR16(o);                                                                      \
      TP__N1(r, o);                                                                             \
      STORE(d, o0); STORE(d + ds, o1); STORE(d + 2 * ds, o2); STORE(d + 3 * ds, o3);           \
      STORE(d + 4 * ds, o4); STORE(d + 5 * ds, o5); STORE(d + 6 * ds, o6);                     \
      STORE(d + 7 * ds, o7); STORE(d + 8 * ds, o8); STORE(d + 9 * ds, o9);                     \
      STORE(d + 10 * ds, o10); STORE(d + 11 * ds, o11); STORE(d + 12 * ds, o12);               \
      STORE(d + 13 * ds, o13); STORE(d + 14 * ds, o14); STORE(d + 15 * ds, o15);               \
    }                                                                                           \
  }
TP__TILE1_64_LN(tp__tile1_64_ln, TP__Z_ST)
TP__TILE1_64_LN(tp__tile1_64_ln_nt, TP__Z_STN)
#undef TP__TILE1_64_LN
#define TP__TILE2_32_LN(NAME, STORE)                                                            \
  TP__A512 static void NAME(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss) { \
    int t;                                                                                      \
    for (t = 0; t < 4; t++, s += 16, d += 8 * ds) {                                             \
      __m512i r0 = TP__Z_LANES(s, 8 * ss), r1 = TP__Z_LANES(s + ss, 8 * ss);                    \
      __m512i r2 = TP__Z_LANES(s + 2 * ss, 8 * ss), r3 = TP__Z_LANES(s + 3 * ss, 8 * ss);       \
      __m512i r4 = TP__Z_LANES(s + 4 * ss, 8 * ss), r5 = TP__Z_LANES(s + 5 * ss, 8 * ss);       \
      __m512i r6 = TP__Z_LANES(s + 6 * ss, 8 * ss), r7 = TP__Z_LANES(s + 7 * ss, 8 * ss);       \
      __m512i TP__ZR8(o);                                                                       \
      TP__N2(r, o);                                                                             \
      STORE(d, o0); STORE(d + ds, o1); STORE(d + 2 * ds, o2); STORE(d + 3 * ds, o3);           \
      STORE(d + 4 * ds, o4); STORE(d + 5 * ds, o5); STORE(d + 6 * ds, o6);                     \
      STORE(d + 7 * ds, o7);                                                                    \
    }                                                                                           \
  }
TP__TILE2_32_LN(tp__tile2_32_ln, TP__Z_ST)
TP__TILE2_32_LN(tp__tile2_32_ln_nt, TP__Z_STN)
#undef TP__TILE2_32_LN
#undef TP__Z_PUT4
#undef TP__ZR8
#undef TP__ZR16
#undef TP__N2
#undef TP__N1
#undef TP__Z_LANES
#undef TP__Z_U
#undef TP__Z_STN
#undef TP__Z_ST
#undef TP__Z_LD
#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
#pragma GCC diagnostic pop
#endif
#endif

/* What the copy kernels use, from what the CPU has (detected at run time): TP__CPU_AVX512 (x86
   with AVX-512 F and BW), TP__CPU_AVX2 (x86 with AVX2), TP__CPU_SSE2 (x86-64's baseline; SSE2
   is chosen at compile time), TP__CPU_C (the portable C loops: every other CPU). tp__cpu_cap
   lowers it - the tests set it to prove every level's bytes on one machine; nothing else writes
   it. (AVX-512 was measured for the row copies and is not used there: no faster than AVX2
   here, bench/README.md.) */
#define TP__CPU_C 0
#define TP__CPU_SSE2 1
#define TP__CPU_AVX2 2
#define TP__CPU_AVX512 3
static int tp__cpu_cap = TP__CPU_AVX512;
static int tp__cpu_level(void) {
  int l = !TP__SSE2          ? TP__CPU_C
          : tp__cpu_avx512() ? TP__CPU_AVX512
          : tp__cpu_avx2()   ? TP__CPU_AVX2
                             : TP__CPU_SSE2;
  return l < tp__cpu_cap ? l : tp__cpu_cap;
}

/* Scalar transpose of the sub-rectangle [i0, i1) x [j0, j1). */
static void tp__transpose_scalar(unsigned char *dst, const unsigned char *src, int64_t i0,
                                 int64_t i1, int64_t j0, int64_t j1, int64_t scol, int64_t drow,
                                 size_t es) {
  int64_t i, j, e = (int64_t)es;
  if (j1 - j0 < 4 && i1 - i0 > 4 && (es == 1 || es == 2 || es == 4)) {
    /* a few long columns (the channels of an HWC image): down each one, its source one run
       (u8 / bf16 / f32 224x224x3 CHW -> HWC: 0.54x / 0.46x / 0.87-0.97x the row-wise loop; i64
       1.03-1.05x, so not for 8-byte elements; others: the rows below) */
    for (j = j0; j < j1; j++) {
      unsigned char *d = dst + (i0 * drow + j) * e;
      const unsigned char *s = src + (i0 + j * scol) * e;
      switch (es) {
        case 1: for (i = i0; i < i1; i++, d += drow, s += 1) *d = *s; break;
        case 2: for (i = i0; i < i1; i++, d += drow * 2, s += 2) memcpy(d, s, 2); break;
        default: for (i = i0; i < i1; i++, d += drow * 4, s += 4) memcpy(d, s, 4); break;
      }
    }
    return;
  }
  for (i = i0; i < i1; i++) {
    unsigned char *d = dst + (i * drow + j0) * e;
    const unsigned char *s = src + (i + j0 * scol) * e;
    switch (es) {
      case 1: /* four a step (u8 3x224x224 HWC -> CHW 0.73x; one a step it ran at half speed
                 when its loop crossed a 64-byte code line, 82 vs 41 us, by placement alone) */
        for (j = j0; j + 4 <= j1; j += 4, d += 4, s += scol * 4) {
          d[0] = s[0];
          d[1] = s[scol];
          d[2] = s[scol * 2];
          d[3] = s[scol * 3];
        }
        for (; j < j1; j++, d += 1, s += scol) *d = *s;
        break;
      case 2: for (j = j0; j < j1; j++, d += 2, s += scol * 2) memcpy(d, s, 2); break;
      case 4: for (j = j0; j < j1; j++, d += 4, s += scol * 4) memcpy(d, s, 4); break;
      case 8: for (j = j0; j < j1; j++, d += 8, s += scol * 8) memcpy(d, s, 8); break;
      default: for (j = j0; j < j1; j++, d += e, s += scol * e) memcpy(d, s, es); break;
    }
  }
}

typedef void (*tp__tile_fn)(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss);

/* The tile kernel and its size T for an element size (T = 0: none); kind: TP__K_AVX2 (the
   AVX2 tiles), TP__K_AVX512 (the AVX-512 ones first), TP__K_C (none: the scalar loops). */
static tp__tile_fn tp__tile_for(size_t es, int kind, int64_t *T) {
  *T = 0;
  (void)kind;
  (void)es;
  if (kind & TP__K_C) return NULL;
#if TP__AVX512
  if (es == 4 && (kind & TP__K_AVX512)) {
    *T = 16;
    return tp__tile4_16x16_avx512;
  }
  if (es == 8 && (kind & TP__K_AVX512)) {
    *T = 8;
    return tp__tile8_8x8_avx512;
  }
#endif
#if TP__AVX2
  if (es == 4 && (kind & TP__K_AVX2)) {
    *T = 8;
    return tp__tile4_8x8_avx2;
  }
  if (es == 2 && (kind & TP__K_AVX2)) {
    *T = 16;
    return tp__tile2_16x16_avx2;
  }
#endif
#if TP__SSE2
  switch (es) {
    case 1: *T = 8; return tp__tile1_8x8;
    case 2: *T = 8; return tp__tile2_8x8;
    case 4: *T = 4; return tp__tile4_4x4;
    case 8: *T = 2; return tp__tile8_2x2;
    default: break;
  }
#endif
  return NULL;
}

/* The super-tile loop with the tile call made directly (so it is inlined): rs and cs are
   multiples of S. pf: before each super-tile, ask for the source lines 2 groups of S output
   rows further on (each of the S source rows the super-tile reads continues there; a big plane
   has more of them in flight than the hardware prefetchers follow: NCHW->NHWC 0.85x the time
   without; 1 group ahead 0.89x, 4 groups 0.85x); pf 2: the AVX2 kernels also ask for the output
   lines those rows fill, for writing (PREFETCHW, a no-op on CPUs without it: the
   read-for-ownership starts early; NCHW->NHWC 0.86x). One function per kernel. */
typedef void (*tp__super_fn)(unsigned char *dst, const unsigned char *src, int64_t rs,
                             int64_t cs, int64_t scol, int64_t drow, int pf);
#define TP__SUPER_BODY(TILE, T, ES, PFW)                                                       \
  int64_t i, j, ii, jj, S = 64 / (ES) < (T) ? (T) : 64 / (ES), ss = scol * (ES),                \
                        ds = drow * (ES), ahead = S * 2;                                       \
  for (i = 0; i < rs; i += S)                                                                  \
    for (j = 0; j < cs; j += S) {                                                              \
      if (pf && i + ahead < rs) {                                                              \
        const unsigned char *q = src + (i + ahead + j * scol) * (ES);                          \
        for (jj = 0; jj < S; jj++, q += ss)                                                    \
          _mm_prefetch((const char *)(const void *)q, _MM_HINT_T0);                            \
        if ((PFW) && pf == 2) { /* and the output lines those rows will fill, for writing */   \
          unsigned char *w = dst + ((i + ahead) * drow + j) * (ES);                            \
          for (jj = 0; jj < S; jj++, w += ds) __builtin_prefetch(w, 1, 3);                     \
        }                                                                                      \
      }                                                                                        \
      for (jj = j; jj < j + S; jj += (T))                                                      \
        for (ii = i; ii < i + S; ii += (T))                                                    \
          TILE(dst + (ii * drow + jj) * (ES), ds, src + (ii + jj * scol) * (ES), ss);          \
    }
#if TP__SSE2
static void tp__super1(unsigned char *dst, const unsigned char *src, int64_t rs, int64_t cs,
                       int64_t scol, int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile1_8x8, 8, 1, 0)
}
static void tp__super2(unsigned char *dst, const unsigned char *src, int64_t rs, int64_t cs,
                       int64_t scol, int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile2_8x8, 8, 2, 0)
}
static void tp__super4(unsigned char *dst, const unsigned char *src, int64_t rs, int64_t cs,
                       int64_t scol, int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile4_4x4, 4, 4, 0)
}
static void tp__super8(unsigned char *dst, const unsigned char *src, int64_t rs, int64_t cs,
                       int64_t scol, int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile8_2x2, 2, 8, 0)
}
#endif
#if TP__AVX2
__attribute__((target("avx2,prfchw"))) static void tp__super4_avx2(unsigned char *dst,
                                                            const unsigned char *src, int64_t rs,
                                                            int64_t cs, int64_t scol,
                                                            int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile4_8x8_avx2, 8, 4, 1)
}
__attribute__((target("avx2,prfchw"))) static void tp__super2_avx2(unsigned char *dst,
                                                            const unsigned char *src, int64_t rs,
                                                            int64_t cs, int64_t scol,
                                                            int64_t drow, int pf) {
  TP__SUPER_BODY(tp__tile2_16x16_avx2, 16, 2, 1)
}
#endif
#if TP__AVX512
#define TP__SUPER512(NAME, TILE, T, ES)                                                         \
  __attribute__((target("avx512f,avx512bw,prfchw"))) static void NAME(                          \
      unsigned char *dst, const unsigned char *src, int64_t rs, int64_t cs, int64_t scol,       \
      int64_t drow, int pf) {                                                                   \
    TP__SUPER_BODY(TILE, T, ES, 1)                                                              \
  }
TP__SUPER512(tp__super4_avx512, tp__tile4_16x16_avx512, 16, 4)
TP__SUPER512(tp__super8_avx512, tp__tile8_8x8_avx512, 8, 8)
TP__SUPER512(tp__super4_avx512_nt, tp__tile4_16x16_avx512_nt, 16, 4)
TP__SUPER512(tp__super8_avx512_nt, tp__tile8_8x8_avx512_nt, 8, 8)
/* (1- and 2-byte: one tile a super-tile, S = T = one line of elements, in each of the two
   forms) */
TP__SUPER512(tp__super1_rw_avx512, tp__tile1_64_rw, 64, 1)
TP__SUPER512(tp__super1_ln_avx512, tp__tile1_64_ln, 64, 1)
TP__SUPER512(tp__super2_rw_avx512, tp__tile2_32_rw, 32, 2)
TP__SUPER512(tp__super1_ln_nt_avx512, tp__tile1_64_ln_nt, 64, 1)
TP__SUPER512(tp__super2_ln_nt_avx512, tp__tile2_32_ln_nt, 32, 2)
#undef TP__SUPER512
#endif
#undef TP__SUPER_BODY
static tp__super_fn tp__super_for(size_t es, int kind) {
  (void)kind;
  if (kind & TP__K_C) return NULL;
#if TP__AVX512
  if (es == 4 && (kind & TP__K_AVX512))
    return kind & TP__K_NT ? tp__super4_avx512_nt : tp__super4_avx512;
  if (es == 8 && (kind & TP__K_AVX512))
    return kind & TP__K_NT ? tp__super8_avx512_nt : tp__super8_avx512;
  if (es <= 2 && (kind & TP__K_AVX512)) { /* the forms: see tp__tile1_64_rw */
    if (kind & TP__K_BUF) return es == 1 ? tp__super1_rw_avx512 : tp__super2_rw_avx512;
    if (kind & TP__K_NT) return es == 1 ? tp__super1_ln_nt_avx512 : tp__super2_ln_nt_avx512;
    /* (2-byte "lines" unstreamed lost to the AVX2 16x16 below: 1.09-1.31x slower) */
    if (es == 1) return tp__super1_ln_avx512;
  }
#endif
#if TP__AVX2
  if (es == 4 && (kind & TP__K_AVX2)) return tp__super4_avx2;
  if (es == 2 && (kind & TP__K_AVX2)) return tp__super2_avx2;
#endif
#if TP__SSE2
  switch (es) {
    case 1: return tp__super1;
    case 2: return tp__super2;
    case 4: return tp__super4;
    case 8: return tp__super8;
    default: break;
  }
#endif
  (void)es;
  return NULL;
}

/* Transposes a rows x cols region: super-tiles of S x S (S = one 64-byte line of elements,
   at least T) built from T x T tiles, source row groups consumed a whole line at a time; tiles
   for the edge strips, a partial last tile column / row as overlapping whole tiles, scalar
   loops only where a side is shorter than T. kind: TP__K_AVX2, TP__K_AVX512 (4-/8-byte: where
   the source rows are on 64-byte lines and both sides at least the tile's; 1-/2-byte: the
   AVX-512BW super-tiles; with TP__K_BUF, for tp__transpose_lines' buffer: their "rows" form),
   TP__K_C (scalar loops only), TP__K_PF (the super-tiles prefetch their source rows), TP__K_NT
   (the AVX-512 super-tiles stream onto 64-byte aligned output rows, without the write prefetch
   of TP__K_PFW). */
static void tp__transpose_region(unsigned char *dst, const unsigned char *src, int64_t rows,
                                 int64_t cols, int64_t scol, int64_t drow, size_t es, int kind) {
  int64_t T, e = (int64_t)es, ss = scol * e, ds = drow * e, ifull = 0, jfull = 0;
  tp__tile_fn tile = tp__tile_for(es, kind, &T);
  if (tile && (kind & TP__K_AVX512) && es >= 4 &&
      (rows < T || cols < T || ((((uintptr_t)src) | (uintptr_t)ss) & 63u) != 0))
    tile = tp__tile_for(es, kind &= ~TP__K_AVX512, &T);
  if (!(kind & TP__K_AVX512) || (((uintptr_t)dst | (uintptr_t)ds) & 63u) != 0)
    kind &= ~TP__K_NT; /* streaming from the AVX-512 tiles: whole output lines only */
  if (kind & TP__K_NT)
    kind &= ~TP__K_PFW; /* (a write prefetch before streaming stores: 1.8x slower) */
  if (tile) {
    int64_t S = 64 / e < T ? T : 64 / e, rs = rows / S * S, cs = cols / S * S, i, j;
    tp__super_fn super = tp__super_for(es, kind);
    if (super) {
      super(dst, src, rs, cs, scol, drow, (kind & TP__K_PFW) ? 2 : (kind & TP__K_PF) ? 1 : 0);
    } else {
      int64_t ii, jj;
      for (i = 0; i < rs; i += S) /* S output rows at a time, written left to right */
        for (j = 0; j < cs; j += S)
          for (jj = j; jj < j + S; jj += T)
            for (ii = i; ii < i + S; ii += T)
              tile(dst + (ii * drow + jj) * e, ds, src + (ii + jj * scol) * e, ss);
    }
    /* the T-tiles of the edge strips */
    ifull = rows / T * T;
    jfull = cols / T * T;
    for (i = 0; i < ifull; i += T)
      for (j = i < rs ? cs : 0; j < jfull; j += T)
        tile(dst + (i * drow + j) * e, ds, src + (i + j * scol) * e, ss);
    /* the last partial tile column and row as whole tiles that overlap the ones before them
       (the overlapped elements are written twice, with the same bytes): no scalar edges when
       both sides are at least T (the 54-wide rows of a channels_last slice spent half their
       instructions in the scalar loop: 0.86x the time) */
    if (jfull < cols && jfull > 0) {
      for (i = 0; i < ifull; i += T)
        tile(dst + (i * drow + cols - T) * e, ds, src + (i + (cols - T) * scol) * e, ss);
      jfull = cols;
    }
    if (ifull < rows && ifull > 0 && jfull == cols) {
      for (j = 0; j + T <= cols; j += T)
        tile(dst + ((rows - T) * drow + j) * e, ds, src + (rows - T + j * scol) * e, ss);
      if (j < cols)
        tile(dst + ((rows - T) * drow + cols - T) * e, ds,
             src + (rows - T + (cols - T) * scol) * e, ss);
      ifull = rows;
    }
  }
  if (ifull > 0 && jfull < cols)
    tp__transpose_scalar(dst, src, 0, ifull, jfull, cols, scol, drow, es);
  if (ifull < rows) tp__transpose_scalar(dst, src, ifull, rows, 0, cols, scol, drow, es);
}

/* The tiles of one cache block taken from the bounce buffer: buf holds the block's source rows
   bs elements apart; bi x bj (multiples of T) output elements, each T output rows written
   left to right (whole lines in a row when streaming). One function per kernel and store kind,
   so the tile is inlined. */
typedef void (*tp__block_fn)(unsigned char *dst, int64_t drow, const unsigned char *buf,
                             int64_t bs, int64_t bi, int64_t bj);
#define TP__BLOCK_FN(NAME, ATTR, TILE, T, ES)                                                  \
  ATTR static void NAME(unsigned char *dst, int64_t drow, const unsigned char *buf,            \
                        int64_t bs, int64_t bi, int64_t bj) {                                  \
    int64_t ii, jj;                                                                            \
    for (ii = 0; ii < bi; ii += (T))                                                           \
      for (jj = 0; jj < bj; jj += (T))                                                         \
        TILE(dst + (ii * drow + jj) * (ES), drow * (ES), buf + (ii + jj * bs) * (ES),          \
             bs * (ES));                                                                       \
  }
#define TP__NOATTR
#if TP__SSE2
TP__BLOCK_FN(tp__block1, TP__NOATTR, tp__tile1_8x8, 8, 1)
TP__BLOCK_FN(tp__block2, TP__NOATTR, tp__tile2_8x8, 8, 2)
TP__BLOCK_FN(tp__block4, TP__NOATTR, tp__tile4_4x4, 4, 4)
TP__BLOCK_FN(tp__block8, TP__NOATTR, tp__tile8_2x2, 2, 8)
TP__BLOCK_FN(tp__block8_nt, TP__NOATTR, tp__tile8_2x2_nt, 2, 8)
#endif
#if TP__AVX2
TP__BLOCK_FN(tp__block4_avx2, __attribute__((target("avx2"))), tp__tile4_8x8_avx2, 8, 4)
TP__BLOCK_FN(tp__block2_avx2, __attribute__((target("avx2"))), tp__tile2_16x16_avx2, 16, 2)
#endif
#if TP__AVX512
TP__BLOCK_FN(tp__block4_avx512, TP__A512, tp__tile4_16x16_avx512, 16, 4)
TP__BLOCK_FN(tp__block4_avx512_nt, TP__A512, tp__tile4_16x16_avx512_nt, 16, 4)
TP__BLOCK_FN(tp__block8_avx512, TP__A512, tp__tile8_8x8_avx512, 8, 8)
TP__BLOCK_FN(tp__block8_avx512_nt, TP__A512, tp__tile8_8x8_avx512_nt, 8, 8)
/* 1- and 2-byte blocks with AVX-512BW: "lines" tiles of TB x TB (whole output lines, streamed
   or not) where they fit, the SSE2 8x8 tile for the rest (bi, bj multiples of 8) */
#define TP__BLOCK512_FN(NAME, BIG, TB, ES)                                                     \
  TP__A512 static void NAME(unsigned char *dst, int64_t drow, const unsigned char *buf,        \
                            int64_t bs, int64_t bi, int64_t bj) {                              \
    int64_t ii, jj, k, ib = bi / (TB) * (TB), jb = bj / (TB) * (TB), ds = drow * (ES);          \
    int64_t ss = bs * (ES);                                                                    \
    for (ii = 0; ii < ib; ii += (TB)) {                                                        \
      for (jj = 0; jj < jb; jj += (TB))                                                        \
        BIG(dst + (ii * drow + jj) * (ES), ds, buf + (ii + jj * bs) * (ES), ss);               \
      for (; jj < bj; jj += 8)                                                                 \
        for (k = ii; k < ii + (TB); k += 8)                                                    \
          tp__tile##ES##_8x8(dst + (k * drow + jj) * (ES), ds, buf + (k + jj * bs) * (ES), ss); \
    }                                                                                          \
    for (; ii < bi; ii += 8)                                                                   \
      for (jj = 0; jj < bj; jj += 8)                                                           \
        tp__tile##ES##_8x8(dst + (ii * drow + jj) * (ES), ds, buf + (ii + jj * bs) * (ES), ss); \
  }
TP__BLOCK512_FN(tp__block1_avx512, tp__tile1_64_ln, 64, 1)
TP__BLOCK512_FN(tp__block1_avx512_nt, tp__tile1_64_ln_nt, 64, 1)
TP__BLOCK512_FN(tp__block2_avx512, tp__tile2_32_ln, 32, 2)
TP__BLOCK512_FN(tp__block2_avx512_nt, tp__tile2_32_ln_nt, 32, 2)
#undef TP__BLOCK512_FN
/* The bounce copy of the streaming 1-/2-byte blocks: n source rows' 256-byte pieces
   at row[k] + off into b, bs apart, with 64-byte moves inline (the memcpy call per piece
   measured 1.04-1.05x slower for u8 / bf16 4096x4096) */
TP__A512 static void tp__bounce256_avx512(unsigned char *b, int64_t bs,
                                          const unsigned char *const *row, int64_t n,
                                          int64_t off) {
  int64_t k;
  int q;
  for (k = 0; k < n; k++, b += bs)
    for (q = 0; q < 256; q += 64)
      _mm512_storeu_si512((void *)(b + q), _mm512_loadu_si512((const void *)(row[k] + off + q)));
}
#undef TP__A512
#endif
#undef TP__NOATTR
#undef TP__BLOCK_FN

/* The block kernel for an element size and TP__K_* flags, its tile size T, and whether it
   streams (NULL: none; element sizes without a tile never stream). Streaming blocks exist for
   8-byte elements and, with TP__K_AVX512, for 1-, 2- and 4-byte ones, and tp__transpose asks
   for no others (streamed from the SSE2 / AVX2 tiles, f32 / bf16 4096x4096 took 1.7x / 3.2x
   the time: TP__NT_TILES in bench/README.md); TP__K_NT for any other gets the normal block. */
static tp__block_fn tp__block_for(size_t es, int flags, int64_t *T, int *nt) {
  int want_nt = (flags & TP__K_NT) != 0;
  *T = 0;
  *nt = 0;
  (void)want_nt;
  if (flags & TP__K_C) return NULL;
#if TP__AVX512
  if (es == 4 && (flags & TP__K_AVX512)) {
    *T = 16;
    *nt = want_nt;
    return want_nt ? tp__block4_avx512_nt : tp__block4_avx512;
  }
  if (es == 8 && (flags & TP__K_AVX512)) {
    *T = 8;
    *nt = want_nt;
    return want_nt ? tp__block8_avx512_nt : tp__block8_avx512;
  }
  if (es <= 2 && (flags & TP__K_AVX512)) {
    *T = 8;
    *nt = want_nt; /* (asked for 64-byte aligned outputs only: tp__transpose) */
    return es == 1 ? (want_nt ? tp__block1_avx512_nt : tp__block1_avx512)
                   : (want_nt ? tp__block2_avx512_nt : tp__block2_avx512);
  }
#endif
#if TP__AVX2
  if (es == 4 && (flags & TP__K_AVX2)) {
    *T = 8;
    return tp__block4_avx2;
  }
  if (es == 2 && (flags & TP__K_AVX2)) {
    *T = 16;
    return tp__block2_avx2;
  }
#endif
#if TP__SSE2
  switch (es) {
    case 1: *T = 8; return tp__block1;
    case 2: *T = 8; return tp__block2;
    case 4: *T = 4; return tp__block4;
    case 8: *T = 2; *nt = want_nt; return want_nt ? tp__block8_nt : tp__block8;
    default: break;
  }
#endif
  (void)es;
  return NULL;
}

#if TP__SSE2
/* Asks for the first (at most 4 KiB of the) n bytes at p to be brought into the cache. */
static void tp__prefetch(const unsigned char *p, size_t n) {
  size_t q;
  if (n > 4096) n = 4096;
  for (q = 0; q < n; q += 64) _mm_prefetch((const char *)(const void *)(p + q), _MM_HINT_T0);
}
/* Asks for the n bytes at p to be brought towards the core (the outer levels: used well ahead
   of the copy that reads them). */
static void tp__prefetch_far(const unsigned char *p, size_t n) {
  size_t q;
  for (q = 0; q < n; q += 64) _mm_prefetch((const char *)(const void *)(p + q), _MM_HINT_T2);
}
/* memcpy with streaming stores: a big output is not read back soon, so it skips the caches
   (and the read-for-ownership of every line it would otherwise cost). */
static void tp__copy_nt(unsigned char *d, const unsigned char *s, size_t n) {
  size_t head = (size_t)((16u - ((uintptr_t)d & 15u)) & 15u);
  if (head > n) head = n;
  memcpy(d, s, head);
  d += head; s += head; n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    __m128i a = TP__LD(s), b = TP__LD(s + 16), c = TP__LD(s + 32), e = TP__LD(s + 48);
    TP__STN(d, a);
    TP__STN(d + 16, b);
    TP__STN(d + 32, c);
    TP__STN(d + 48, e);
  }
  memcpy(d, s, n);
}
#endif

/* Planes up to this many bytes are transposed in place with super-tiles; bigger ones go through
   the bounce buffer in cache blocks of TP__TBLOCK bytes. */
#ifndef TP__TDIRECT
#define TP__TDIRECT 4096
#endif
#define TP__TBLOCK 16384
#ifndef TP__TSUPER
#define TP__TSUPER 512
#endif
/* The last-level cache's size in bytes: TP_LLC_BYTES when the build sets it, else read once
   from Linux's /sys (the cache index of level 3 of cpu0; sysconf(_SC_LEVEL3_CACHE_SIZE) was
   measured to report 320 MiB for a 32 MiB L3 under KVM, so it is not asked), else 32 MiB. */
#define TP__LLC_DEFAULT ((size_t)32 << 20)
static size_t tp__llc_bytes(void) {
#ifdef TP_LLC_BYTES
  return (size_t)(TP_LLC_BYTES);
#elif !defined(TP_NO_STDIO) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
  static size_t cached; /* 0: not read yet; written once with the same value by any thread */
  size_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (v == 0) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    unsigned long n = 0;
    char unit = 0;
    v = TP__LLC_DEFAULT;
    if (f) {
      int got = fscanf(f, "%lu%c", &n, &unit);
      if (got >= 1 && n > 0 && n < (1ul << 30))
        v = (size_t)n << (got == 2 && (unit == 'K' || unit == 'k') ? 10
                          : got == 2 && unit == 'M'                   ? 20
                                                                       : 0);
      fclose(f);
    }
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
  }
  return v;
#else
  return TP__LLC_DEFAULT;
#endif
}

/* The transpose of one rows x cols plane through a buffer of TP__TBUF bytes, one group of
   output rows at a time: B = TP__LINES_BYTES of each source row (two 64-byte lines: the pair
   the L2's adjacent-line prefetcher brings together), up to TP__TBUF / TP__LINES_BYTES output
   columns per piece (the region kernel writes them into the buffer), then each output row's
   piece copied whole. For strides that are a multiple of 4 KiB (every row in one cache set)
   when the plane's bytes are likely still in the cache: it reads 128 bytes of each of up to
   256 source rows per group, which the cache serves but DRAM (without a sequential stream for
   the prefetchers) does not - bigger planes take the bounce-buffer blocks below. (With one
   line a group, the rows' other lines, fetched with them, had left the cache by the next
   group: bf16 2048x2048 in cache took 1.11-1.16x as long, f32 1024x1024 1.03-1.07x.) */
#define TP__TBUF 32768
#ifndef TP__LINES_BYTES
#define TP__LINES_BYTES 128 /* 64: one line of each source row a group (above) */
#endif
static void tp__transpose_lines(unsigned char *dst, const unsigned char *src, int64_t rows,
                                int64_t cols, int64_t scol, int64_t drow, size_t es, int kind,
                                int nt) {
  unsigned char buf[TP__TBUF];
  int64_t e = (int64_t)es, B = TP__LINES_BYTES / e, seg = TP__TBUF / TP__LINES_BYTES, i0, c0, i;
  (void)nt; /* streaming needs SSE2 */
  if (es == 2 && ((uintptr_t)src & 63u) != 0)
    kind &= ~TP__K_AVX512; /* each "rows" load would straddle two lines: bf16 2048x2048 16
                              bytes off the line 1.25x slower than the SSE2 8x8 (u8 3 bytes
                              off: 0.68x, kept) */
  for (i0 = 0; i0 < rows; i0 += B) {
    int64_t bi = rows - i0 < B ? rows - i0 : B;
    for (c0 = 0; c0 < cols; c0 += seg) {
      int64_t sc = cols - c0 < seg ? cols - c0 : seg;
      /* (not the AVX2 16x16 2-byte tile: 16 source rows 4 KiB apart fill one 8-way L1 set,
         D1 read misses 0.85M -> 1.26M for bf16 2048x2048, 1.18x slower; nor the AVX-512 4- and
         8-byte tiles: f32 1024x1024 1.03-1.09x slower) */
      tp__transpose_region(buf, src + (i0 + c0 * scol) * e, bi, sc, scol, sc, es,
                           ((es == 2 ? kind & ~TP__K_AVX2 : kind) &
                            ~(es >= 4 ? TP__K_AVX512 : 0)) | TP__K_BUF);
      for (i = 0; i < bi; i++) {
#if TP__SSE2
        if (nt && !(kind & TP__K_C)) {
          tp__copy_nt(dst + ((i0 + i) * drow + c0) * e, buf + i * sc * e, (size_t)(sc * e));
          continue;
        }
#endif
        memcpy(dst + ((i0 + i) * drow + c0) * e, buf + i * sc * e, (size_t)(sc * e));
      }
    }
  }
}

/* The transpose of tp__transpose_region for cols2 groups of cols output columns: output
   column j = g * cols + c (g < cols2, c < cols) reads source row g * scol2 + c * scol, so an
   inner output dim that does not merge with its neighbour in the source (a slice of a
   channels_last tensor) still gives long output rows. flags: TP__K_*; a streaming transpose
   needs a 16-byte aligned output and row stride (else it stores normally); the caller fences
   (_mm_sfence) after the last streaming store. */
static void tp__transpose_blocks(unsigned char *dst, const unsigned char *src, int64_t rows,
                                 int64_t cols, int64_t scol, int64_t cols2, int64_t scol2,
                                 int64_t drow, size_t es, tp__block_fn blk, int64_t T, int nt,
                                 int ntp, int small);
static void tp__transpose(unsigned char *dst, const unsigned char *src, int64_t rows,
                          int64_t cols, int64_t scol, int64_t cols2, int64_t scol2, int64_t drow,
                          size_t es, int flags) {
  int64_t e = (int64_t)es, T, g, ncols = cols * cols2, plane;
  int nt, small, alias, ntp = 0, nt512 = 0, a64;
  tp__block_fn blk;
  if ((flags & TP__K_NT) && (((uintptr_t)dst & 15u) != 0 || ((drow * e) & 15) != 0))
    flags &= ~TP__K_NT;
  if ((flags & TP__K_NT) && cols2 == 1 && ((drow * e) & 63) == 0 &&
      ((uintptr_t)dst & 63u) != 0 && cols * e > 64) {
    /* an output off its 64-byte lines (as malloc's big blocks, 16 bytes into one): streamed
       pieces would fill the lines at both of their ends in part. The columns up to the first
       line boundary (every row's, the row stride being whole lines) are transposed on their own
       with normal stores, the rest then streams whole lines (u8 / bf16 4096x4096 cold: 0.48x /
       0.60x the time of the pieces streamed across the lines) */
    int64_t lead = (int64_t)((64u - ((uintptr_t)dst & 63u)) & 63u) / e;
    tp__transpose(dst, src, rows, lead, scol, 1, 0, drow, es, flags & ~TP__K_NT);
    tp__transpose(dst + lead * e, src + lead * scol * e, rows, cols - lead, scol, 1, 0, drow, es,
                  flags);
    return;
  }
  /* the AVX-512 tiles stream whole 64-byte lines: 64-byte aligned output rows */
  a64 = ((uintptr_t)dst & 63u) == 0 && ((drow * e) & 63) == 0;
  if ((flags & TP__K_NT) && !(es == 8 || (es == 4 && (flags & TP__K_AVX512) && a64))) {
    /* streamed from the second buffer, not from the tiles: 8-16 output rows in flight leave as
       many half-filled write-combining buffers (measured 1.2-2x slower); the 2x2 tile of 8-byte
       elements fills two rows' lines in order, and streams from the tiles, and so do the
       AVX-512BW "lines" tiles of the bounce blocks (every store a whole line; nt512) */
    flags &= ~TP__K_NT;
    ntp = 1;
    nt512 = TP__AVX512 && es <= 2 && (flags & TP__K_AVX512) && a64;
  }
  if ((flags & TP__K_NT) && es == 8 && !a64) flags &= ~TP__K_AVX512;
  blk = tp__block_for(es, nt512 ? flags | TP__K_NT : flags, &T, &nt);
  plane = rows * ncols * e;
  small = plane <= TP__TBLOCK && ncols <= TP__TBLOCK / 128;
  alias = (scol * e) % 4096 == 0 || (drow * e) % 4096 == 0;
  /* a small plane of 4- or 8-byte elements whose source rows are on 64-byte lines and do not
     alias: the AVX-512 tiles straight from the source, no bounce block (64x64 f32 in cache
     0.69x the time) */
  if (small && !alias && es >= 4 && (flags & TP__K_AVX512) &&
      (((uintptr_t)src | (uintptr_t)(scol * e) | (uintptr_t)(cols2 > 1 ? scol2 * e : 0)) & 63u) ==
          0)
    small = 2;
  if (!blk || plane <= TP__TDIRECT || small == 2 || (!small && !alias)) {
    /* no aliasing of rows in one cache set: the region kernel straight from the source (the
       bounce blocks, streamed, for these: NCHW->NHWC 0.88-1.02x, a channels_last slice 5.5x
       the time) */
    /* the write prefetch only for one column level: with two (a channels_last slice), each
       region writes a short piece of every output row and it measured 1.08x [1.04-1.14] slower */
    int kind = (flags & (TP__K_AVX2 | TP__K_AVX512 | TP__K_C)) | (ntp || nt ? TP__K_PF : 0);
    if (nt && es >= 4) kind |= TP__K_NT; /* the AVX-512 super-tiles stream */
    if (ntp && es <= 2 && (flags & TP__K_AVX512) && cols2 == 1 && a64)
      kind |= TP__K_NT; /* the byte super-tiles stream whole lines (their edges do not) */
    if ((kind & TP__K_PF) && cols2 == 1 && !(kind & TP__K_NT))
      kind |= TP__K_PFW; /* (not for lines streamed past the caches: 0.74-0.76x without) */
    for (g = 0; g < cols2; g++)
      tp__transpose_region(dst + g * cols * e, src + g * scol2 * e, rows, cols, scol, drow, es,
                           kind);
    return;
  }
  /* aliasing planes of at most LLC/4: the line groups (the bounce blocks instead: bf16 2048x2048
     1.07x, f32 1024x1024 1.36x the time; streaming "lines" blocks for a streamed output of this
     size: 1.03-1.04x, a tie, not taken) */
  if (!small && (!nt || nt512) && (size_t)plane <= tp__llc_bytes() / 4) {
    for (g = 0; g < cols2; g++)
      tp__transpose_lines(dst + g * cols * e, src + g * scol2 * e, rows, cols, scol, drow, es,
                          flags & (TP__K_AVX2 | TP__K_AVX512 | TP__K_C), ntp);
    return;
  }
  tp__transpose_blocks(dst, src, rows, cols, scol, cols2, scol2, drow, es, blk, T, nt,
                       nt512 ? 0 : ntp, small);
}

/* The cache-block route of tp__transpose (its buffers in this frame only: the other routes do
   not carry them): blk / T / nt the block kernel, its tile and whether it streams, ntp whether
   whole pieces are streamed from the second buffer, small whether the plane is one block. */
static void tp__transpose_blocks(unsigned char *dst, const unsigned char *src, int64_t rows,
                                 int64_t cols, int64_t scol, int64_t cols2, int64_t scol2,
                                 int64_t drow, size_t es, tp__block_fn blk, int64_t T, int nt,
                                 int ntp, int small) {
  int64_t e = (int64_t)es, Bi, Bj, i0, j0, k, g, c, ncols = cols * cols2, I, J, SB;
  /* both buffers start on a 64-byte line (the 64-byte loads and stores of the AVX-512 tiles
     would otherwise straddle two lines each; 8-byte aligned as declared: f32 4096x4096 cold
     1.07x the time) */
  uint64_t buf[TP__TBLOCK / 8 + 8], obuf[TP__TBLOCK / 8 + 8];
  unsigned char *b = (unsigned char *)buf + ((64u - ((uintptr_t)buf & 63u)) & 63u);
  unsigned char *ob = NULL;
  const unsigned char *row[TP__TBLOCK / 128]; /* the block's source rows (Bj <= TP__TBLOCK / 128) */
  /* runs of 256 source bytes when streaming (whole output lines per tile row; fewer, longer
     output pieces), 128 otherwise (more source rows per block: longer output pieces in cache) */
  Bi = (nt ? 256 : 128) / e;
  Bj = TP__TBLOCK / (Bi * e);
  if (small) {
    /* a small plane is one block: its source rows are read whole (one sequential stream when
       they are adjacent), fewer and longer copies into the buffer */
    Bi = rows;
    Bj = ncols;
    SB = rows + ncols; /* one super-block */
  } else {
    SB = (TP__TSUPER + 255) / 256 * 256; /* whole blocks: every Bi and Bj divides 256 */
  }
  /* 1- and 2-byte elements whose output rows are a multiple of 4 KiB apart (so a tile's 8-16
     output rows share one L1 set and evict each other's half-written lines) go through a
     second buffer: the tiles write there, then each output row's piece is copied whole
     (measured: bf16 2048x2048 1.02-1.04 -> 0.72-0.75 ms, u8 4096x4096 5.4-5.6 -> 3.3-3.7 ms;
     slower for 8-byte elements, mixed for 4-byte ones and 2 KiB strides, which stay direct) */
  if (ntp || (!nt && es <= 2 && (drow * e) % 4096 == 0))
    ob = (unsigned char *)obuf + ((64u - ((uintptr_t)obuf & 63u)) & 63u);
  /* super-blocks of TP__TSUPER source rows x TP__TSUPER output rows: the blocks inside one
     touch at most ~2 x TP__TSUPER pages (source rows' pieces, output rows' pieces), few enough
     for the TLB to keep; without them a column of blocks touches every output row's page */
  for (J = 0; J < ncols; J += SB) {
    int64_t jend = ncols - J < SB ? ncols : J + SB;
    for (I = 0; I < rows; I += SB) {
      int64_t iend = rows - I < SB ? rows : I + SB;
      g = J / cols;
      c = J % cols; /* output column j0 = g * cols + c */
      for (j0 = J; j0 < jend; j0 += Bj) {
        int64_t bj = jend - j0 < Bj ? jend - j0 : Bj, tj = bj / T * T;
        for (k = 0; k < bj; k++) {
          row[k] = src + (g * scol2 + c * scol) * e;
          if (++c == cols) {
            c = 0;
            g++;
          }
        }
        for (i0 = I; i0 < iend; i0 += Bi) {
          int64_t bi = iend - i0 < Bi ? iend - i0 : Bi, ti = bi / T * T;
          unsigned char *d = dst + (i0 * drow + j0) * e;
#if TP__AVX512
          if (bi * e == 256 &&
              (blk == tp__block1_avx512_nt || blk == tp__block2_avx512_nt))
            tp__bounce256_avx512(b, Bi * e, row, bj, i0 * e);
          else
#endif
          for (k = 0; k < bj; k++) memcpy(b + k * Bi * e, row[k] + i0 * e, (size_t)(bi * e));
#if TP__SSE2
          if (i0 + Bi < iend) { /* the next block's runs continue these rows */
            int64_t nb = iend - i0 - Bi < Bi ? iend - i0 - Bi : Bi;
            for (k = 0; k < bj; k++) tp__prefetch(row[k] + (i0 + Bi) * e, (size_t)(nb * e));
          }
#endif
          if (ob) { /* tiles into the second buffer, then whole output pieces */
            blk(ob, Bj, b, Bi, ti, tj);
            if (tj < bj) tp__transpose_scalar(ob, b, 0, ti, tj, bj, Bi, Bj, es);
            if (ti < bi) tp__transpose_scalar(ob, b, ti, bi, 0, bj, Bi, Bj, es);
#if TP__SSE2
            if (ntp) {
              for (k = 0; k < bi; k++)
                tp__copy_nt(d + k * drow * e, ob + k * Bj * e, (size_t)(bj * e));
              continue;
            }
#endif
            for (k = 0; k < bi; k++) memcpy(d + k * drow * e, ob + k * Bj * e, (size_t)(bj * e));
            continue;
          }
          blk(d, drow, b, Bi, ti, tj);
          if (tj < bj) tp__transpose_scalar(d, b, 0, ti, tj, bj, Bi, drow, es);
          if (ti < bi) tp__transpose_scalar(d, b, ti, bi, 0, bj, Bi, drow, es);
        }
      }
    }
  }
}

/* One step of an odometer over nl dims (sizes lsize), the last dim fastest: the indices idx,
   the source offset *soff (byte strides lsrc) and, when ldst is not NULL, the output offset
   *doff (byte strides ldst) of the next piece. */
static void tp__odo_step(int nl, const int64_t *lsize, const int64_t *lsrc, const int64_t *ldst,
                         int64_t *idx, int64_t *soff, int64_t *doff) {
  int d;
  for (d = nl - 1; d >= 0; d--) {
    *soff += lsrc[d];
    if (ldst) *doff += ldst[d];
    if (++idx[d] < lsize[d]) return;
    *soff -= lsrc[d] * lsize[d];
    if (ldst) *doff -= ldst[d] * lsize[d];
    idx[d] = 0;
  }
}

/* Writes the plan's numel * esize bytes to dst, row-major in plan order; nt: the output is big
   enough for streaming stores. */
static void tp__plan_copy(const tp__plan *p, unsigned char *dst, int nt) {
  int64_t ostride[TP_MAX_DIMS], lsize[TP_MAX_DIMS], lsrc[TP_MAX_DIMS], ldst[TP_MAX_DIMS];
  int64_t idx[TP_MAX_DIMS], count, it, soff = 0, doff = 0, n, s;
  int64_t aidx[TP_MAX_DIMS], aoff = 0, ahead = 0; /* the row copies' odometer, rows ahead */
  int nd = p->nd, inner, k = -1, g2, nl = 0, d, flags = 0, level;
  int64_t es = (int64_t)p->esize;
  if (p->numel == 0) return;
  level = tp__cpu_level();
  if (level == TP__CPU_C) nt = 0;
#if TP__SSE2
  if (nt >= 2 && tp__plan_is_run(p)) { /* beyond the LLC: no read-for-ownership (a 64 MiB
                                          run: 0.58x the time of glibc's memcpy) */
    tp__copy_nt(dst, p->base, (size_t)(p->numel * es));
    _mm_sfence();
    return;
  }
#endif
  if (tp__plan_is_run(p)) {
    memcpy(dst, p->base, (size_t)(p->numel * es));
    return;
  }
  inner = nd - 1;
  n = p->size[inner];
  s = p->stride[inner];
  ostride[inner] = 1;
  for (d = inner - 1; d >= 0; d--) ostride[d] = ostride[d + 1] * p->size[d + 1];
  if (s != 1 && s != 0)
    for (d = 0; d < inner; d++)
      if (p->stride[d] == 1) k = d; /* a unit-stride dim further out: transpose the plane */
  if (k >= 0)
    flags = level >= TP__CPU_AVX512 ? TP__K_AVX2 | TP__K_AVX512
            : level >= TP__CPU_AVX2 ? TP__K_AVX2
            : level == TP__CPU_C    ? TP__K_C
                                    : 0;
  if (nt > 0) flags |= TP__K_NT; /* from LLC/4 transposes stream (tp__transpose says how) */
  /* the dim outside the inner one joins the transpose's output rows (a second column level) */
  g2 = k >= 0 && k < inner - 1 ? inner - 1 : -1;
  count = 1;
  for (d = 0; d < inner; d++) {
    if (d == k || d == g2) continue;
    lsize[nl] = p->size[d];
    lsrc[nl] = p->stride[d] * es;
    ldst[nl] = ostride[d] * es;
    idx[nl] = 0;
    count *= p->size[d];
    nl++;
  }
  /* Row copies of 1-4 KiB also ask for the whole row some 4 KiB ahead (at least 2 rows): the
     hardware's stream prefetchers, which stay inside a 4 KiB page, barely start on such a row
     before it ends. Measured on the columns [:, 100:612] of 4096x4096 f32: 0.80-0.85x out of
     cache, 0.84-1.02x in cache (bench/README.md); rows of a page or more (the prefetchers
     follow them) and outputs under TP__PF_AHEAD_MIN (the prefetches of lines already in the
     cache cost more than they give) do not. */
  if (TP__SSE2 && s == 1 && n * es >= 1024 && n * es < 4096 &&
      (size_t)(p->numel * es) >= TP__PF_AHEAD_MIN && level != TP__CPU_C) {
    ahead = (4096 + n * es - 1) / (n * es);
    if (ahead < 2) ahead = 2;
    memset(aidx, 0, sizeof aidx);
    for (it = 0; it < ahead && it < count; it++)
      tp__odo_step(nl, lsize, lsrc, NULL, aidx, &aoff, NULL);
  }
  for (it = 0; it < count; it++) {
    int64_t s0 = soff, d0 = doff;
    tp__odo_step(nl, lsize, lsrc, ldst, idx, &soff, &doff); /* the next piece's: prefetched */
    if (s == 1) {
#if TP__SSE2
      /* a long row starts the next one's reads (the hardware prefetchers stop at the end of a
         run and take a while to start on a new one; short rows they follow by stride): its
         head, and the lines of its last TP__PF_ROW_TAIL bytes, which glibc's vector memcpy
         reads before its loop (without the head's: the columns [:, 100:612] of 4096x4096
         1.34x the time). The rows are never streamed: from LLC/4 on, every other row of
         8192x1024 / 16384x1024 cold took 1.17x / 1.24x the time, the columns 1.23x out of
         cache, 0.75x in cache (which the sizes cannot tell apart) */
      if (n * es >= 1024 && it + 1 < count && level != TP__CPU_C) {
        size_t nb = (size_t)(n * es);
        tp__prefetch(p->base + soff, nb < TP__PF_ROW_BYTES ? nb : TP__PF_ROW_BYTES);
        if (TP__PF_ROW_TAIL) tp__prefetch(p->base + soff + nb - TP__PF_ROW_TAIL, TP__PF_ROW_TAIL);
      }
      if (ahead && it + ahead < count) {
        tp__prefetch_far(p->base + aoff, (size_t)(n * es));
        tp__odo_step(nl, lsize, lsrc, NULL, aidx, &aoff, NULL);
      }
#endif
      memcpy(dst + d0, p->base + s0, (size_t)(n * es));
    } else if (k >= 0) {
      tp__transpose(dst + d0, p->base + s0, p->size[k], n, s, g2 >= 0 ? p->size[g2] : 1,
                    g2 >= 0 ? p->stride[g2] : 0, ostride[k], p->esize, flags);
    } else {
      tp__gather(dst + d0, p->base + s0, n, s * es, p->esize);
    }
  }
#if TP__SSE2
  if (nt) _mm_sfence(); /* order the streaming stores before anything that follows */
#endif
}
#if TP__BIG_ENDIAN
static void tp__swap_elems(unsigned char *p, size_t nbytes, size_t es) {
  size_t i, j;
  if (es < 2) return;
  for (i = 0; i + es <= nbytes; i += es)
    for (j = 0; j < es / 2; j++) {
      unsigned char c = p[i + j];
      p[i + j] = p[i + es - 1 - j];
      p[i + es - 1 - j] = c;
    }
}
#endif

/* The plan's bytes, little-endian, into dst. */
static void tp__plan_emit(const tp__plan *p, unsigned char *dst, int nt) {
  tp__plan_copy(p, dst, nt);
#if TP__BIG_ENDIAN
  tp__swap_elems(dst, (size_t)p->numel * p->esize, p->esize);
#endif
}

/* Whether an output of n bytes is written with streaming stores: source plus output exceed the
   last-level cache, so the output would only push the source (and itself) out of it. */
static int tp__stream_out(size_t n) {
  size_t llc = tp__llc_bytes();
  return n >= llc ? 2 : n >= llc / 4 ? 1 : 0;
}

/* n bytes for a copy of a view; nt: tp__stream_out(n). A streamed copy starts on a 64-byte
   line, so its stores are whole lines from the first (malloc's big blocks start 16 bytes into
   one: f32 4096x4096 transposed there took 1.08x the time). *owned: what to free (also on
   failure: NULL). Returns NULL when there is no memory. */
static unsigned char *tp__alloc_copy(size_t n, int nt, void **owned) {
  size_t pad = nt ? 63 : 0;
  unsigned char *m = n > SIZE_MAX - 63 ? NULL : (unsigned char *)TP_MALLOC(n + pad);
  *owned = m;
  return m && pad ? m + ((64u - ((uintptr_t)m & 63u)) & 63u) : m;
}

static int tp__plan_zero_copy(const tp__plan *p) {
  return tp__plan_is_run(p) && (!TP__BIG_ENDIAN || p->esize == 1);
}

TPDEF tp_status tp_compact(const tp_tensor *t, tp_order order, tp_buffer *out) {
  tp__plan p;
  size_t nbytes;
  unsigned char *mem;
  tp_status s;
  int nt;
  if (!out) return TP_ERR_INVALID;
  s = tp__plan_make(t, order, &p);
  if (s != TP_OK) return s;
  nbytes = (size_t)p.numel * p.esize;
  out->owned = NULL;
  out->nbytes = nbytes;
  if (nbytes == 0) {
    out->data = tp__empty;
    return TP_OK;
  }
  if (tp__plan_zero_copy(&p)) {
    out->data = p.base;
    return TP_OK;
  }
  nt = tp__stream_out(nbytes);
  mem = tp__alloc_copy(nbytes, nt, &out->owned);
  if (!mem) {
    out->data = NULL;
    out->nbytes = 0;
    return TP_ERR_NOMEM;
  }
  tp__plan_emit(&p, mem, nt);
  out->data = mem;
  return TP_OK;
}

TPDEF void tp_buffer_release(tp_buffer *b) {
  if (!b) return;
  TP_FREE(b->owned);
  b->data = NULL;
  b->nbytes = 0;
  b->owned = NULL;
}

TPDEF tp_status tp_compact_into(const tp_tensor *t, tp_order order, void *dst, size_t cap) {
  tp__plan p;
  size_t nbytes;
  tp_status s = tp__plan_make(t, order, &p);
  if (s != TP_OK) return s;
  nbytes = (size_t)p.numel * p.esize;
  if (nbytes == 0) return TP_OK;
  if (!dst) return TP_ERR_INVALID;
  if (cap < nbytes) return TP_ERR_BOUNDS;
  tp__plan_emit(&p, (unsigned char *)dst, tp__stream_out(nbytes));
  return TP_OK;
}

/* Streams a plan's bytes to fn in pieces of at most cap bytes (compact runs go in one piece,
   straight from the storage). */
typedef tp_status (*tp__piece_fn)(void *ctx, const unsigned char *bytes, size_t n);

static tp_status tp__plan_stream(const tp__plan *p, unsigned char *scratch, size_t cap,
                                 tp__piece_fn fn, void *ctx) {
  size_t nbytes = (size_t)p->numel * p->esize, row;
  tp__plan q;
  int64_t i, per;
  tp_status s;
  if (nbytes == 0) return TP_OK;
  if (tp__plan_zero_copy(p)) return fn(ctx, p->base, nbytes);
  if (nbytes <= cap) {
    tp__plan_emit(p, scratch, 0); /* the sink reads the scratch next: keep it in cache */
    return fn(ctx, scratch, nbytes);
  }
  /* here nd >= 1: split the outermost dim */
  row = nbytes / (size_t)p->size[0];
  q = *p;
  if (row <= cap) {
    per = (int64_t)(cap / row);
    for (i = 0; i < p->size[0]; i += per) {
      int64_t len = p->size[0] - i < per ? p->size[0] - i : per;
      q.size[0] = len;
      q.numel = len * (p->numel / p->size[0]);
      q.base = p->base + i * p->stride[0] * (int64_t)p->esize;
      s = tp__plan_stream(&q, scratch, cap, fn, ctx);
      if (s != TP_OK) return s;
    }
    return TP_OK;
  }
  q.nd = p->nd - 1;
  memmove(q.size, p->size + 1, sizeof(int64_t) * (size_t)q.nd);
  memmove(q.stride, p->stride + 1, sizeof(int64_t) * (size_t)q.nd);
  q.numel = p->numel / p->size[0];
  for (i = 0; i < p->size[0]; i++) {
    q.base = p->base + i * p->stride[0] * (int64_t)p->esize;
    s = tp__plan_stream(&q, scratch, cap, fn, ctx);
    if (s != TP_OK) return s;
  }
  return TP_OK;
}

/* Runs fn over the view's bytes in `order`, with a scratch of at most TP_SCRATCH_BYTES. */
static tp_status tp__stream_view(const tp_tensor *t, tp_order order, tp__piece_fn fn, void *ctx) {
  tp__plan p;
  size_t nbytes, cap;
  unsigned char *scratch = NULL;
  tp_status s = tp__plan_make(t, order, &p);
  if (s != TP_OK) return s;
  nbytes = (size_t)p.numel * p.esize;
  if (nbytes == 0) return TP_OK;
  if (tp__plan_zero_copy(&p)) return fn(ctx, p.base, nbytes);
  cap = nbytes < TP_SCRATCH_BYTES ? nbytes : TP_SCRATCH_BYTES;
  if (cap < p.esize) cap = p.esize;
  scratch = (unsigned char *)TP_MALLOC(cap);
  if (!scratch) return TP_ERR_NOMEM;
  s = tp__plan_stream(&p, scratch, cap, fn, ctx);
  TP_FREE(scratch);
  return s;
}

static tp_status tp__piece_to_sink(void *ctx, const unsigned char *bytes, size_t n) {
  return tp_sink_write((tp_sink *)ctx, bytes, n);
}

/* Sinks that take bytes in place: a tp_sink_membuf sink (possibly behind tp__sink_tally
   counters) offers the tail of its own buffer, so a view is compacted straight into it - no
   scratch, no second copy. Returns where n bytes go (the caller fills all of them, then calls
   tp__sink_commit), NULL with *st == TP_OK for a sink that does not offer a buffer, or NULL
   with the error the sink's write would have returned. */
static unsigned char *tp__sink_place(tp_sink *sink, size_t n, tp_status *st) {
  *st = TP_OK;
  if (sink->write == tp__tally_write) {
    tp__tally *t = (tp__tally *)sink->ctx;
    unsigned char *at = t->inner && t->inner->write ? tp__sink_place(t->inner, n, st) : NULL;
    if (*st != TP_OK && t->failed == TP_OK) t->failed = *st;
    return at;
  }
  if (sink->write == tp__membuf_write) {
    tp_membuf *m = (tp_membuf *)sink->ctx;
    void *p = m->data;
    if (n > SIZE_MAX - m->size) {
      *st = TP_ERR_OVERFLOW;
      return NULL;
    }
    *st = tp__array_reserve(&p, &m->cap, m->size + n, 1);
    m->data = (unsigned char *)p;
    return *st == TP_OK ? m->data + m->size : NULL;
  }
  return NULL;
}
static void tp__sink_commit(tp_sink *sink, size_t n) {
  if (sink->write == tp__tally_write) {
    tp__tally *t = (tp__tally *)sink->ctx;
    tp__sink_commit(t->inner, n);
    t->n += (uint64_t)n;
  } else {
    ((tp_membuf *)sink->ctx)->size += n;
  }
}

TPDEF tp_status tp_compact_write(const tp_tensor *t, tp_order order, tp_sink *sink) {
  tp__plan p;
  tp_status s;
  size_t nbytes;
  unsigned char *dst;
  if (!sink || !sink->write) return TP_ERR_INVALID;
  s = tp__plan_make(t, order, &p);
  if (s != TP_OK) return s;
  nbytes = (size_t)p.numel * p.esize;
  if (nbytes == 0 || tp__plan_zero_copy(&p))
    return tp__stream_view(t, order, tp__piece_to_sink, sink); /* zero-copy stays zero-copy */
  dst = tp__sink_place(sink, nbytes, &s);
  if (s != TP_OK) return s;
  if (!dst) return tp__stream_view(t, order, tp__piece_to_sink, sink);
  tp__plan_emit(&p, dst, tp__stream_out(nbytes));
  tp__sink_commit(sink, nbytes);
  return TP_OK;
}

// >>convert -----------------------------------------------------------------------------------

typedef struct tp__conv {
  tp_dtype from, to;
  unsigned flags;
  tp_sink *sink;
  unsigned char out[4096];
} tp__conv;

static uint32_t tp__load_as_f32bits(tp_dtype from, const unsigned char *p) {
  if (from == TP_F32) return tp__get_le32(p);
  if (from == TP_F16) return tp__f16_to_f32bits(tp__get_le16(p));
  return (uint32_t)tp__get_le16(p) << 16; /* bf16 */
}

static tp_status tp__conv_piece(void *ctx, const unsigned char *bytes, size_t n) {
  tp__conv *c = (tp__conv *)ctx;
  size_t ies = tp_dtype_size(c->from), oes = tp_dtype_size(c->to);
  size_t count = n / ies, per = sizeof c->out / oes, i, k;
  while (count > 0) {
    size_t m = count < per ? count : per;
    tp_status s;
    for (i = 0, k = 0; i < m; i++, bytes += ies, k += oes) {
      uint32_t w = tp__load_as_f32bits(c->from, bytes);
      if ((c->flags & TP_CONVERT_SATURATE) &&
          ((w & 0x7F800000u) != 0x7F800000u ||
           ((c->flags & TP_CONVERT_CLAMP_INF) && (w & 0x007FFFFFu) == 0))) {
        uint32_t lim = c->to == TP_F16 ? 0x477FE000u : c->to == TP_BF16 ? 0x7F7F0000u : 0x7F7FFFFFu;
        if ((w & 0x7FFFFFFFu) > lim) w = (w & 0x80000000u) | lim;
      }
      if (c->to == TP_F32) tp__put_le32(c->out + k, w);
      else if (c->to == TP_F16) tp__put_le16(c->out + k, tp__f32bits_to_f16(w));
      else tp__put_le16(c->out + k, tp__f32bits_to_bf16(w));
    }
    s = tp_sink_write(c->sink, c->out, k);
    if (s != TP_OK) return s;
    count -= m;
  }
  return TP_OK;
}

static int tp__is_float_conv(tp_dtype t) { return t == TP_F32 || t == TP_F16 || t == TP_BF16; }

TPDEF tp_status tp_convert_write(const tp_tensor *t, tp_dtype to, unsigned flags, tp_sink *sink) {
  tp__conv *c;
  tp_status s;
  if (!sink || !sink->write) return TP_ERR_INVALID;
  s = tp_tensor_check(t, NULL);
  if (s != TP_OK) return s;
  if (tp_dtype_size(to) == 0) return TP_ERR_INVALID;
  /* the same dtype: a plain copy (a finite value is always in its own type's range) */
  if (to == t->dtype) return tp_compact_write(t, TP_ORDER_ROW_MAJOR, sink);
  if (!tp__is_float_conv(t->dtype) || !tp__is_float_conv(to)) return TP_ERR_UNSUPPORTED;
  c = (tp__conv *)TP_MALLOC(sizeof *c);
  if (!c) return TP_ERR_NOMEM;
  c->from = t->dtype;
  c->to = to;
  c->flags = flags;
  c->sink = sink;
  s = tp__stream_view(t, TP_ORDER_ROW_MAJOR, tp__conv_piece, c);
  TP_FREE(c);
  return s;
}

// >>int4 --------------------------------------------------------------------------------------

typedef struct tp__int4 {
  int64_t last, col, index;
  unsigned pending;
  int bad_value;
  tp_sink *sink; /* NULL: check only */
  size_t fill;
  unsigned char out[1024];
} tp__int4;

static tp_status tp__int4_piece(void *ctx, const unsigned char *bytes, size_t n) {
  tp__int4 *c = (tp__int4 *)ctx;
  size_t i;
  if (!c->sink) {
    for (i = 0; i < n; i++, c->index++) {
      int v = (int)(signed char)bytes[i];
      if (v < -8 || v > 7) {
        c->bad_value = v;
        return TP_ERR_INVALID;
      }
    }
    return TP_OK;
  }
  for (i = 0; i < n; i++) {
    unsigned nib = (unsigned)((int)(signed char)bytes[i] + 8) & 0xFu;
    int emit = 0;
    unsigned byte = 0;
    if ((c->col & 1) == 0) {
      c->pending = nib;
      if (c->col + 1 == c->last) {
        byte = nib | 0x80u; /* odd last dim: padded with 0, i.e. nibble 8 */
        emit = 1;
      }
    } else {
      byte = c->pending | (nib << 4);
      emit = 1;
    }
    if (++c->col == c->last) c->col = 0;
    if (emit) {
      c->out[c->fill++] = (unsigned char)byte;
      if (c->fill == sizeof c->out) {
        tp_status s = tp_sink_write(c->sink, c->out, c->fill);
        c->fill = 0;
        if (s != TP_OK) return s;
      }
    }
  }
  return TP_OK;
}

TPDEF size_t tp_pack_int4_size(const tp_tensor *t) {
  int64_t numel, last;
  uint64_t r;
  if (tp__check(t, NULL, &numel, NULL, NULL) != TP_OK) return 0;
  if (t->ndim == 0) return 1;
  last = t->sizes[t->ndim - 1];
  if (numel == 0) return 0;
  if (tp__mul_u64((uint64_t)(numel / last), (uint64_t)(last / 2 + (last & 1)), &r) || r > SIZE_MAX)
    return 0;
  return (size_t)r;
}

/* Checks every value of an int8 view lies in [-8, 7]; the message names the first bad one. */
TPDEF tp_status tp_pack_int4_check(const tp_tensor *t, tp_error *err) {
  tp__int4 c;
  tp_status s = tp_tensor_check(t, err); /* resets err */
  if (s != TP_OK) return s;
  if (t->dtype != TP_I8) {
    tp__error_set(err, TP_ERR_INVALID, "int4 values must be an i8 view, not %s",
                 tp_dtype_name(t->dtype));
    return TP_ERR_INVALID;
  }
  memset(&c, 0, sizeof c);
  s = tp__stream_view(t, TP_ORDER_ROW_MAJOR, tp__int4_piece, &c);
  if (s == TP_ERR_INVALID)
    tp__error_set(err, s, "int4 value at index %lld is %d, outside [-8, 7]", (long long)c.index,
                 c.bad_value);
  else if (s != TP_OK)
    tp__error_set(err, s, "int4 check failed: %s", tp_status_str(s));
  return s;
}

TPDEF tp_status tp_pack_int4_write(const tp_tensor *t, tp_sink *sink) {
  tp__int4 *c;
  tp_status s;
  if (!sink || !sink->write) return TP_ERR_INVALID;
  s = tp_pack_int4_check(t, NULL);
  if (s != TP_OK) return s;
  c = (tp__int4 *)TP_MALLOC(sizeof *c);
  if (!c) return TP_ERR_NOMEM;
  memset(c, 0, sizeof *c);
  c->last = t->ndim == 0 ? 1 : t->sizes[t->ndim - 1];
  c->sink = sink;
  s = tp__stream_view(t, TP_ORDER_ROW_MAJOR, tp__int4_piece, c);
  if (s == TP_OK && c->fill > 0) s = tp_sink_write(sink, c->out, c->fill);
  TP_FREE(c);
  return s;
}

typedef struct tp__fixed {
  unsigned char *p;
  size_t size, cap;
} tp__fixed;
static tp_status tp__fixed_write(void *ctx, const void *data, size_t n) {
  tp__fixed *f = (tp__fixed *)ctx;
  if (n > f->cap - f->size) return TP_ERR_BOUNDS;
  memcpy(f->p + f->size, data, n);
  f->size += n;
  return TP_OK;
}

TPDEF tp_status tp_pack_int4(const tp_tensor *t, tp_buffer *out) {
  tp__fixed f;
  tp_sink sink;
  tp_status s;
  if (!out) return TP_ERR_INVALID;
  out->data = NULL;
  out->nbytes = 0;
  out->owned = NULL;
  s = tp_pack_int4_check(t, NULL);
  if (s != TP_OK) return s;
  f.size = 0;
  f.cap = tp_pack_int4_size(t);
  if (f.cap == 0) {
    out->data = tp__empty;
    return TP_OK;
  }
  f.p = (unsigned char *)TP_MALLOC(f.cap);
  if (!f.p) return TP_ERR_NOMEM;
  sink.write = tp__fixed_write;
  sink.ctx = &f;
  s = tp_pack_int4_write(t, &sink);
  if (s == TP_OK && f.size != f.cap) s = TP_ERR_INVALID; /* cannot happen */
  if (s != TP_OK) {
    TP_FREE(f.p);
    return s;
  }
  out->data = f.p;
  out->nbytes = f.cap;
  out->owned = f.p;
  return TP_OK;
}

// >>quant -------------------------------------------------------------------------------------

/* 1 for a finite value (not inf, not NaN). */
static int tp__q_finite(float v) { return v - v == 0.0f; }

/* A value of scale_dtype as f32 after rounding (RNE) - what .to(scale_dtype) keeps. */
static float tp__q_round_to(float f, tp_dtype dt) {
  if (dt == TP_BF16) return tp_bf16_to_f32(tp_f32_to_bf16(f));
  if (dt == TP_F16) return tp_f16_to_f32(tp_f32_to_f16(f));
  return f;
}

/* round half to even (torch.round), then clamp to [qmin, qmax]. Exact for every float: the
   fraction x - trunc(x) of |x| < 2^23 is exact, and anything past +-1024 clamps anyway. */
static int tp__q_round_clamp(float x, int qmin, int qmax) {
  int i;
  float frac;
  if (x > 1024.0f) x = 1024.0f;
  if (x < -1024.0f) x = -1024.0f;
  i = (int)x; /* toward zero */
  frac = x - (float)i;
  if (frac > 0.5f || (frac == 0.5f && (i & 1))) i++;
  else if (frac < -0.5f || (frac == -0.5f && (i & 1))) i--;
  return i < qmin ? qmin : i > qmax ? qmax : i;
}

static void tp__q_store_scale(unsigned char *dst, float s, tp_dtype dt) {
  if (dt == TP_F32) {
    memcpy(dst, &s, 4);
  } else {
    uint16_t h = dt == TP_BF16 ? tp_f32_to_bf16(s) : tp_f32_to_f16(s);
    memcpy(dst, &h, 2);
  }
}

TPDEF tp_status tp_quantize_symmetric(const tp_tensor *w, int bits, int64_t group_size,
                                      tp_dtype scale_dtype, tp_buffer *values,
                                      tp_buffer *scales, tp_error *err) {
  tp_status st;
  int64_t out, in, groups, gs, r, gi, c;
  size_t es, ss;
  uint64_t nvals, nscales, rowbytes;
  unsigned char *raw = NULL, *vals = NULL, *scl = NULL;
  float *row = NULL;
  int qmin, qmax;
  tp__error_reset(err);
  if (values) memset(values, 0, sizeof *values);
  if (scales) memset(scales, 0, sizeof *scales);
  if (!w || !values || !scales)
    return tp__error_set(err, TP_ERR_INVALID, "tp_quantize_symmetric: w, values and scales "
                                              "must not be NULL");
  st = tp_tensor_check(w, err);
  if (st != TP_OK) return st;
  if (w->dtype != TP_F32 && w->dtype != TP_F16 && w->dtype != TP_BF16)
    return tp__error_set(err, TP_ERR_INVALID,
                         "quantize: the weight is %s; it must be f32, f16 or bf16",
                         tp_dtype_name(w->dtype));
  if (w->ndim != 2)
    return tp__error_set(err, TP_ERR_INVALID,
                         "quantize: the weight has %d dims; it must be 2-D [out, in]", w->ndim);
  if (scale_dtype != TP_F32 && scale_dtype != TP_F16 && scale_dtype != TP_BF16)
    return tp__error_set(err, TP_ERR_INVALID,
                         "quantize: scale dtype %s (%d); it must be f32, bf16 or f16",
                         tp_dtype_name(scale_dtype), (int)scale_dtype);
  out = w->sizes[0];
  in = w->sizes[1];
  if (in == 0)
    return tp__error_set(err, TP_ERR_INVALID,
                         "quantize: the weight [%lld, 0] has no input channels to take a scale "
                         "from", (long long)out);
  if (bits == 8) {
    if (group_size != 0)
      return tp__error_set(err, TP_ERR_UNSUPPORTED,
                           "quantize: 8-bit weights are per channel (group_size 0), not "
                           "groupwise (group_size %lld): that is the quantizer ExecuTorch's "
                           "XNNPACKQuantizer ships", (long long)group_size);
    gs = in;
    qmin = -127;
    qmax = 127;
  } else if (bits == 4) {
    if (group_size < 0 || (group_size > 0 && in % group_size != 0))
      return tp__error_set(err, TP_ERR_INVALID,
                           "quantize: group size %lld does not divide the %lld input channels",
                           (long long)group_size, (long long)in);
    gs = group_size == 0 ? in : group_size;
    qmin = -8;
    qmax = 7;
  } else {
    return tp__error_set(err, TP_ERR_INVALID, "quantize: %d bits; only 8 and 4 are supported",
                         bits);
  }
  groups = in / gs;
  es = tp_dtype_size(w->dtype);
  ss = tp_dtype_size(scale_dtype);
  if (tp__mul_u64((uint64_t)out, (uint64_t)in, &nvals) || nvals > SIZE_MAX ||
      tp__mul_u64((uint64_t)out, (uint64_t)groups, &nscales) ||
      tp__mul_u64(nscales, ss, &nscales) || nscales > SIZE_MAX ||
      tp__mul_u64((uint64_t)in, es + 4u, &rowbytes) || rowbytes > SIZE_MAX)
    return tp__error_set(err, TP_ERR_OVERFLOW, "quantize: a [%lld, %lld] weight is too large",
                         (long long)out, (long long)in);
  if (out == 0) {
    values->data = tp__empty;
    scales->data = tp__empty;
    return TP_OK;
  }
  raw = (unsigned char *)TP_MALLOC((size_t)in * es);
  row = (float *)TP_MALLOC((size_t)in * sizeof(float));
  vals = (unsigned char *)TP_MALLOC((size_t)nvals);
  scl = (unsigned char *)TP_MALLOC((size_t)nscales);
  if (!raw || !row || !vals || !scl) {
    st = tp__error_set(err, TP_ERR_NOMEM, "quantize: out of memory for a [%lld, %lld] weight",
                       (long long)out, (long long)in);
    goto done;
  }
  for (r = 0; r < out; r++) {
    tp_tensor rv;
    st = tp_select(w, 0, r, &rv, NULL);
    if (st == TP_OK) st = tp_compact_into(&rv, TP_ORDER_ROW_MAJOR, raw, (size_t)in * es);
    if (st != TP_OK) {
      tp__error_set(err, st, "quantize: reading row %lld failed: %s", (long long)r,
                    tp_status_str(st));
      goto done;
    }
    for (c = 0; c < in; c++) {
      float f;
      /* tp_compact_into gives the payload's little-endian bytes, on any host */
      if (w->dtype == TP_F32) {
        f = tp__f32_from_bits(tp__get_le32(raw + (size_t)c * 4u));
      } else {
        uint16_t h = tp__get_le16(raw + (size_t)c * 2u);
        f = w->dtype == TP_BF16 ? tp_bf16_to_f32(h) : tp_f16_to_f32(h);
      }
      if (!tp__q_finite(f)) {
        st = tp__error_set(err, TP_ERR_INVALID,
                           "quantize: w[%lld][%lld] (element %lld) is %g: NaN and infinity "
                           "cannot be quantized",
                           (long long)r, (long long)c, (long long)(r * in + c), (double)f);
        goto done;
      }
      row[c] = f;
    }
    for (gi = 0; gi < groups; gi++) {
      const float *x = row + gi * gs;
      float mn = x[0], mx = x[0], amax, s, rcp;
      for (c = 1; c < gs; c++) {
        if (x[c] < mn) mn = x[c];
        if (x[c] > mx) mx = x[c];
      }
      if (mn > 0.0f) mn = 0.0f;
      if (mx < 0.0f) mx = 0.0f;
      amax = -mn > mx ? -mn : mx;
      if (bits == 8) {
        /* observer: scale = max_val_pos / (254 / 2); torch.max(scale, eps = 2**-12) */
        s = amax / 127.0f;
        if (s < tp__f32_from_bits(0x39800000u)) s = tp__f32_from_bits(0x39800000u); /* 2^-12 */
        rcp = 1.0f / s; /* quantize_per_channel: input * (1.0 / scales), all f32 */
        if (!tp__q_finite(tp__q_round_to(s, scale_dtype))) {
          st = tp__error_set(err, TP_ERR_INVALID,
                             "quantize: row %lld: scale %g (max |w| %g / 127) overflows %s; "
                             "use f32 or bf16 scales", (long long)r, (double)s, (double)amax,
                             tp_dtype_name(scale_dtype));
          goto done;
        }
      } else {
        float sq;
        /* choose_qparams_affine: scale = max_val_pos / ((7 - -8) / 2); clamp(min = eps) */
        s = amax / 7.5f;
        if (s < tp__f32_from_bits(0x00800000u)) s = tp__f32_from_bits(0x00800000u); /* 2^-126 */
        sq = tp__q_round_to(s, scale_dtype); /* scale.to(scale_dtype) */
        rcp = tp__q_round_to(1.0f / sq, scale_dtype); /* (1.0 / scales) in scale_dtype */
        if (sq == 0.0f || !tp__q_finite(sq) || !tp__q_finite(rcp)) {
          st = tp__error_set(err, TP_ERR_INVALID,
                             "quantize: row %lld, group %lld: scale %g (max |w| %g / 7.5) "
                             "becomes %g in %s, whose reciprocal is %g: PyTorch would produce "
                             "inf/NaN values; use f32 or bf16 scales",
                             (long long)r, (long long)gi, (double)s, (double)amax, (double)sq,
                             tp_dtype_name(scale_dtype), (double)(1.0f / sq));
          goto done;
        }
        s = sq;
      }
      tp__q_store_scale(scl + ((size_t)r * (size_t)groups + (size_t)gi) * ss, s, scale_dtype);
      for (c = 0; c < gs; c++) {
        float p = x[c] * rcp;
        vals[(size_t)r * (size_t)in + (size_t)(gi * gs + c)] =
            (unsigned char)(signed char)tp__q_round_clamp(p, qmin, qmax);
      }
    }
  }
  values->data = vals;
  values->nbytes = (size_t)nvals;
  values->owned = vals;
  scales->data = scl;
  scales->nbytes = (size_t)nscales;
  scales->owned = scl;
  vals = scl = NULL; /* the caller's now */
  st = TP_OK;
done:
  TP_FREE(raw);
  TP_FREE(row);
  TP_FREE(vals);
  TP_FREE(scl);
  return st;
}

// >>sha256 ------------------------------------------------------------------------------------

static const uint32_t tp__sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u};

#define TP__ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* Portable compression of nblocks 64-byte blocks. */
static void tp__sha256_blocks_c(uint32_t h[8], const unsigned char *p, size_t nblocks) {
  uint32_t w[64];
  for (; nblocks > 0; nblocks--, p += 64) {
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    int i;
    for (i = 0; i < 16; i++)
      w[i] = ((uint32_t)p[4 * i] << 24) | ((uint32_t)p[4 * i + 1] << 16) |
             ((uint32_t)p[4 * i + 2] << 8) | (uint32_t)p[4 * i + 3];
    for (i = 16; i < 64; i++) {
      uint32_t s0 = TP__ROR32(w[i - 15], 7) ^ TP__ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = TP__ROR32(w[i - 2], 17) ^ TP__ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (i = 0; i < 64; i++) {
      uint32_t S1 = TP__ROR32(e, 6) ^ TP__ROR32(e, 11) ^ TP__ROR32(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = hh + S1 + ch + tp__sha256_k[i] + w[i];
      uint32_t S0 = TP__ROR32(a, 2) ^ TP__ROR32(a, 13) ^ TP__ROR32(a, 22);
      uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = S0 + mj;
      hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
}

#if !defined(TP_NO_SHANI) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define TP__HAVE_SHANI 1
#include <immintrin.h>
#include <cpuid.h>

static int tp__cpuid_shani(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (!(c & (1u << 19)) || !(c & (1u << 9))) return 0; /* SSE4.1, SSSE3 */
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, a, b, c, d);
  return (b >> 29) & 1u;
}
/* cpuid traps in virtual machines (tens of microseconds), so the answer is cached: a
   hardware fact, written with the same value by whichever thread gets there first, through
   atomic loads and stores (no data race). 0 = not asked yet, 1 = no, 2 = yes. */
static int tp__cpu_has_shani(void) {
  static int cache = 0;
  int v = __atomic_load_n(&cache, __ATOMIC_RELAXED);
  if (v == 0) {
    v = tp__cpuid_shani() ? 2 : 1;
    __atomic_store_n(&cache, v, __ATOMIC_RELAXED);
  }
  return v == 2;
}

/* SHA-NI compression: the state lives as ABEF / CDGH lane pairs; each sha256rnds2 does two
   rounds, the msg1/msg2 pair extends the schedule four words at a time. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
tp__sha256_blocks_ni(uint32_t h[8], const unsigned char *p, size_t nblocks) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i abef, cdgh, t;
  t = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);    /* d c b a */
  cdgh = _mm_loadu_si128((const __m128i *)(const void *)&h[4]); /* h g f e */
  t = _mm_shuffle_epi32(t, 0xB1);                                /* c d a b */
  cdgh = _mm_shuffle_epi32(cdgh, 0x1B);                          /* e f g h */
  abef = _mm_alignr_epi8(t, cdgh, 8);                            /* a b e f */
  cdgh = _mm_blend_epi16(cdgh, t, 0xF0);                         /* c d g h */
#define TP__K4(g) _mm_loadu_si128((const __m128i *)(const void *)&tp__sha256_k[4 * (g)])
#define TP__ROUNDS4(m, g)                                         \
  x = _mm_add_epi32((m), TP__K4(g));                              \
  cdgh = _mm_sha256rnds2_epu32(cdgh, abef, x);                    \
  abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(x, 0x0E))
#define TP__SCHEDULE(m0, m1, m2, m3) \
  m0 = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(m0, m1), _mm_alignr_epi8(m3, m2, 4)), m3)
  for (; nblocks > 0; nblocks--, p += 64) {
    __m128i abef0 = abef, cdgh0 = cdgh, x, m0, m1, m2, m3;
    int g;
    m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), bswap);
    m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), bswap);
    m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), bswap);
    m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), bswap);
    TP__ROUNDS4(m0, 0);
    TP__ROUNDS4(m1, 1);
    TP__ROUNDS4(m2, 2);
    TP__ROUNDS4(m3, 3);
    for (g = 4; g < 16; g += 4) { /* each step: four more schedule words, four rounds */
      TP__SCHEDULE(m0, m1, m2, m3);
      TP__ROUNDS4(m0, g);
      TP__SCHEDULE(m1, m2, m3, m0);
      TP__ROUNDS4(m1, g + 1);
      TP__SCHEDULE(m2, m3, m0, m1);
      TP__ROUNDS4(m2, g + 2);
      TP__SCHEDULE(m3, m0, m1, m2);
      TP__ROUNDS4(m3, g + 3);
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
  }
#undef TP__K4
#undef TP__ROUNDS4
#undef TP__SCHEDULE
  t = _mm_shuffle_epi32(abef, 0x1B);        /* f e b a */
  cdgh = _mm_shuffle_epi32(cdgh, 0xB1);     /* d c h g */
  abef = _mm_blend_epi16(t, cdgh, 0xF0);    /* d c b a */
  cdgh = _mm_alignr_epi8(cdgh, t, 8);       /* h g f e */
  _mm_storeu_si128((__m128i *)(void *)&h[0], abef);
  _mm_storeu_si128((__m128i *)(void *)&h[4], cdgh);
}
#else
#define TP__HAVE_SHANI 0
static int tp__cpu_has_shani(void) { return 0; }
#endif

static void tp__sha256_blocks(tp_sha256 *c, const unsigned char *p, size_t nblocks) {
#if TP__HAVE_SHANI
  if (c->accel) {
    tp__sha256_blocks_ni(c->h, p, nblocks);
    return;
  }
#endif
  tp__sha256_blocks_c(c->h, p, nblocks);
}

TPDEF int tp_sha256_accelerated(void) { return tp__cpu_has_shani(); }

TPDEF void tp_sha256_init(tp_sha256 *c) {
  static const uint32_t iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  TP_ASSERT(c);
  memcpy(c->h, iv, sizeof iv);
  c->nbytes = 0;
  c->fill = 0;
  c->accel = tp__cpu_has_shani();
}

TPDEF void tp_sha256_update(tp_sha256 *c, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  TP_ASSERT(c);
  if (n == 0) return;
  TP_ASSERT(p);
  c->nbytes += n;
  if (c->fill > 0) {
    size_t k = 64 - c->fill < n ? 64 - c->fill : n;
    memcpy(c->buf + c->fill, p, k);
    c->fill += k;
    p += k;
    n -= k;
    if (c->fill < 64) return;
    tp__sha256_blocks(c, c->buf, 1);
    c->fill = 0;
  }
  if (n >= 64) {
    TP__STEPS(n / 64);
    tp__sha256_blocks(c, p, n / 64);
    p += n / 64 * 64;
    n %= 64;
  }
  if (n > 0) {
    memcpy(c->buf, p, n);
    c->fill = n;
  }
}

TPDEF void tp_sha256_final(tp_sha256 *c, unsigned char digest[32]) {
  uint64_t bits;
  int i;
  TP_ASSERT(c && digest);
  bits = c->nbytes * 8u;
  c->buf[c->fill++] = 0x80;
  if (c->fill > 56) {
    memset(c->buf + c->fill, 0, 64 - c->fill);
    tp__sha256_blocks(c, c->buf, 1);
    c->fill = 0;
  }
  memset(c->buf + c->fill, 0, 56 - c->fill);
  for (i = 0; i < 8; i++) c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
  tp__sha256_blocks(c, c->buf, 1);
  for (i = 0; i < 8; i++) {
    digest[4 * i] = (unsigned char)(c->h[i] >> 24);
    digest[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
    digest[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
    digest[4 * i + 3] = (unsigned char)c->h[i];
  }
  c->fill = 0;
}

TPDEF void tp_hex(const unsigned char *bytes, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  size_t i;
  TP_ASSERT(out && (bytes || n == 0));
  for (i = 0; i < n; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[2 * n] = '\0';
}

TPDEF tp_status tp_sha256_hex(const void *data, size_t n, char hex_out[65]) {
  tp_sha256 c;
  unsigned char d[32];
  if (!hex_out || (!data && n > 0)) return TP_ERR_INVALID;
  tp_sha256_init(&c);
  tp_sha256_update(&c, data, n);
  tp_sha256_final(&c, d);
  tp_hex(d, 32, hex_out);
  return TP_OK;
}

static tp_status tp__sha256_write(void *ctx, const void *data, size_t n) {
  tp_sha256_update((tp_sha256 *)ctx, data, n);
  return TP_OK;
}
TPDEF tp_sink tp_sink_sha256(tp_sha256 *c) {
  TP_ASSERT(c);
  return tp__sink_make(tp__sha256_write, c);
}

// >>flatbuffers -------------------------------------------------------------------------------
/* The builder fills one buffer from its end towards its start, as the official builder does:
   b->buf[b->cap - b->size .. b->cap) holds everything built so far, and an object is named by
   its distance from the end (a tp_fb_ref), which never changes as more is built in front of
   it. Children are built first, so every uoffset points to a higher address. Alignment is
   kept relative to the end; finish pads the front so that the total size is a multiple of the
   largest alignment used, which makes every alignment hold relative to the start as well.
   A table's fields are written as they are added (the declaration says in which order to add
   them); tp_fb_end_table writes the soffset and the vtable: right before its table, or shared
   with an identical one written earlier (found through a hash table). */

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

/* Little-endian stores for the hot paths: one plain store on a little-endian host, tp__put_le*
   elsewhere. The one endianness switch is TP__BIG_ENDIAN (compile time, top of the
   implementation), so tests/test_bigendian_sim.c runs the shift paths here too. */
#if defined(__GNUC__) || defined(__clang__)
#define TP__FB_INLINE static inline __attribute__((always_inline))
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define TP__FB_INLINE static inline
#else
#define TP__FB_INLINE static
#endif
TP__FB_INLINE uint16_t tp__fb_ld16(const unsigned char *p) {
  uint16_t v;
  if (TP__BIG_ENDIAN) return tp__get_le16(p);
  memcpy(&v, p, 2);
  return v;
}
TP__FB_INLINE void tp__fb_st16(unsigned char *p, uint16_t v) {
  if (!TP__BIG_ENDIAN) memcpy(p, &v, 2);
  else tp__put_le16(p, v);
}
TP__FB_INLINE void tp__fb_st32(unsigned char *p, uint32_t v) {
  if (!TP__BIG_ENDIAN) memcpy(p, &v, 4);
  else tp__put_le32(p, v);
}
TP__FB_INLINE void tp__fb_st64(unsigned char *p, uint64_t v) {
  if (!TP__BIG_ENDIAN) memcpy(p, &v, 8);
  else tp__put_le64(p, v);
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
    tp_fb_builder_destroy(b);
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
  TP_ASSERT(b);
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
  TP_ASSERT(b);
  return b->err.status;
}

TPDEF const char *tp_fb_error(const tp_fb_builder *b) {
  TP_ASSERT(b);
  return b->err.status == TP_OK ? "" : b->err.msg;
}

TPDEF void tp_fb_force_defaults(tp_fb_builder *b, int on) {
  TP_ASSERT(b);
  b->force_defaults = on != 0;
}

TPDEF void tp_fb_set_max_size(tp_fb_builder *b, size_t max_size) {
  TP_ASSERT(b);
  b->max_size = (max_size == 0 || max_size > TP__FB_MAX_SIZE) ? TP__FB_MAX_SIZE
                                                               : (uint32_t)max_size;
  b->limit = b->cap < b->max_size ? (uint32_t)b->cap : b->max_size;
  if (b->limit < b->size) b->limit = b->size; /* already past a lowered limit: no more room */
}

TPDEF size_t tp_fb_size(const tp_fb_builder *b) {
  TP_ASSERT(b);
  return b->size;
}

/* 1 when the builder may go on; records misuse after finish. */
static int tp__fb_ok(tp_fb_builder *b, const char *what) {
  if (b->err.status != TP_OK) return 0;
  if (b->finished)
    return tp__fail(&b->err, TP_ERR_INVALID, "%s after tp_fb_finish (reset the builder first)",
                    what);
  return 1;
}

/* 1 when an object (string, vector) may be created now: not inside an open table, whose
   fields are being written at the front of the buffer. */
static int tp__fb_ok_outside(tp_fb_builder *b, const char *what) {
  if (!tp__fb_ok(b, what)) return 0;
  if (b->in_table)
    return tp__fail(&b->err, TP_ERR_INVALID,
                    "%s inside an open table (build children before tp_fb_start_table)", what);
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
  if (b->size > b->max_size || n > (uint64_t)(b->max_size - b->size))
    return tp__fail(&b->err, TP_ERR_OVERFLOW,
                    "buffer would grow from %lu by %llu bytes, over the FlatBuffers limit of %lu",
                    (unsigned long)b->size, (unsigned long long)n, (unsigned long)b->max_size);
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
  if (!nb)
    return tp__fail(&b->err, TP_ERR_NOMEM, "out of memory growing the buffer to %llu bytes",
                    (unsigned long long)newcap);
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
  if (ref == 0 || ref > b->size)
    return tp__fail(&b->err, TP_ERR_INVALID,
                    "%s: ref %lu does not name an object (%lu bytes built so far)", what,
                    (unsigned long)ref, (unsigned long)b->size);
  return 1;
}

TPDEF tp_fb_ref tp_fb_create_string(tp_fb_builder *b, const char *s, size_t len) {
  uint32_t pad;
  TP_ASSERT(b);
  if (!tp__fb_ok_outside(b, "tp_fb_create_string")) return 0;
  if (!s && len) {
    tp__error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_string: NULL string of length %llu",
                 (unsigned long long)len);
    return 0;
  }
  if ((uint64_t)len >= TP__FB_MAX_SIZE) {
    tp__error_set(&b->err, TP_ERR_OVERFLOW,
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
  TP_ASSERT(b);
  if ((b->err.status != TP_OK || b->finished || b->in_table) &&
      !tp__fb_ok_outside(b, "tp_fb_create_vector"))
    return 0;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
    tp__error_set(&b->err, TP_ERR_INVALID,
                 "tp_fb_create_vector: element size %llu is not 1, 2, 4 or 8",
                 (unsigned long long)elem_size);
    return 0;
  }
  if ((uint64_t)count >= TP__FB_MAX_SIZE / elem_size) { /* elem_size is 1..8: no overflow */
    tp__error_set(&b->err, TP_ERR_OVERFLOW,
                 "vector of %llu elements of %llu bytes is over the FlatBuffers limit of %lu bytes",
                 (unsigned long long)count, (unsigned long long)elem_size,
                 (unsigned long)b->max_size);
    return 0;
  }
  if (!elems && count) {
    tp__error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_vector: NULL elements, count %llu",
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
  if (elem_size == 1 || !TP__BIG_ENDIAN) {
    if (n32) memcpy(dst, src, n32);
  } else if (elem_size == 2) {
    for (i = 0; i < count; i++) {
      uint16_t v;
      memcpy(&v, src + 2 * i, 2);
      tp__put_le16(dst + 2 * i, v);
    }
  } else if (elem_size == 4) {
    for (i = 0; i < count; i++) {
      uint32_t v;
      memcpy(&v, src + 4 * i, 4);
      tp__put_le32(dst + 4 * i, v);
    }
  } else {
    for (i = 0; i < count; i++) {
      uint64_t v;
      memcpy(&v, src + 8 * i, 8);
      tp__put_le64(dst + 8 * i, v);
    }
  }
  tp__fb_put32(b, (uint32_t)count);
  tp__fb_track(b, align);
  return b->size;
}

TPDEF tp_fb_ref tp_fb_create_vector_refs(tp_fb_builder *b, const tp_fb_ref *refs, size_t count) {
  size_t i;
  uint64_t bytes;
  TP_ASSERT(b);
  if (!tp__fb_ok_outside(b, "tp_fb_create_vector_refs")) return 0;
  if (tp__mul_u64((uint64_t)count, 4, &bytes) || bytes >= TP__FB_MAX_SIZE) {
    tp__error_set(&b->err, TP_ERR_OVERFLOW,
                 "vector of %llu offsets is over the FlatBuffers limit of %lu bytes",
                 (unsigned long long)count, (unsigned long)b->max_size);
    return 0;
  }
  if (!refs && count) {
    tp__error_set(&b->err, TP_ERR_INVALID, "tp_fb_create_vector_refs: NULL refs, count %llu",
                 (unsigned long long)count);
    return 0;
  }
  for (i = 0; i < count; i++) {
    if (refs[i] == 0 || refs[i] > b->size) {
      tp__error_set(&b->err, TP_ERR_INVALID,
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

/* tp_fb_start_table and the public adds are inlined into callers in the implementation's
   translation unit (the generated code of the official builder inlines its adds too): a call
   per field would be the builder's largest cost. They stay ordinary external functions for
   every other caller. GCC warns that an always_inline function without `inline` "might not be
   inlinable" (it is, where the body is seen); `inline` itself would change the linkage in C++,
   so the warning is off here. */
#if defined(__GNUC__) || defined(__clang__)
#define TP__FB_HOT __attribute__((always_inline))
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
#endif
#else
#define TP__FB_HOT
#endif
TPDEF TP__FB_HOT void tp_fb_start_table(tp_fb_builder *b) {
  TP_ASSERT(b);
  if (!tp__fb_ok(b, "tp_fb_start_table")) return;
  if (b->in_table) {
    tp__error_set(&b->err, TP_ERR_INVALID,
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
  if (tp__array_reserve((void **)&b->vts, &b->vts_cap, want, sizeof *b->vts) != TP_OK ||
      tp__array_reserve((void **)&b->slot, &b->slot_cap, want, sizeof *b->slot) != TP_OK)
    return tp__fail(&b->err, TP_ERR_NOMEM, "out of memory adding field id %u", (unsigned)id);
  memset(b->slot + old, 0, (b->slot_cap - old) * sizeof *b->slot);
  return 1;
}

/* The checks of tp__fb_add that fail or need memory: records the error and returns 0, or
   marks an id >= 64 as seen and returns 1. */
static int tp__fb_add_slow(tp_fb_builder *b, uint16_t id) {
  size_t k;
  if (!tp__fb_ok(b, "adding a field")) return 0;
  if (!b->in_table)
    return tp__fail(&b->err, TP_ERR_INVALID, "field id %u added outside a table", (unsigned)id);
  if (id > TP__FB_MAX_ID)
    return tp__fail(&b->err, TP_ERR_INVALID, "field id %u is over the largest id %u", (unsigned)id,
                    TP__FB_MAX_ID);
  if (id < 64) /* only reached for a repeated id */
    return tp__fail(&b->err, TP_ERR_INVALID, "field id %u added twice in one table", (unsigned)id);
  if ((id >= b->slot_cap || id >= b->vts_cap) && !tp__fb_slots(b, id)) return 0;
  k = (size_t)id - 64;
  if (k >= b->seen_len) {
    if (tp__array_reserve((void **)&b->seen, &b->seen_cap, k + 1, sizeof *b->seen) != TP_OK)
      return tp__fail(&b->err, TP_ERR_NOMEM, "out of memory tracking field id %u", (unsigned)id);
    memset(b->seen + b->seen_len, 0, (b->seen_cap - b->seen_len) * sizeof *b->seen);
    b->seen_len = b->seen_cap;
  }
  if (b->seen[k] == b->stamp)
    return tp__fail(&b->err, TP_ERR_INVALID, "field id %u added twice in one table", (unsigned)id);
  b->seen[k] = b->stamp;
  return 1;
}

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
  uint32_t pad;
  TP_ASSERT(b); /* (for the typed adds below, which go straight here) */
  pad = tp__fb_padding(b->size, size);
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

TPDEF TP__FB_HOT void tp_fb_add_u8(tp_fb_builder *b, uint16_t id, uint8_t v, uint8_t dflt) {
  tp__fb_add(b, id, v, 1, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_i8(tp_fb_builder *b, uint16_t id, int8_t v, int8_t dflt) {
  tp__fb_add(b, id, (uint8_t)v, 1, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_u16(tp_fb_builder *b, uint16_t id, uint16_t v, uint16_t dflt) {
  tp__fb_add(b, id, v, 2, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_i16(tp_fb_builder *b, uint16_t id, int16_t v, int16_t dflt) {
  tp__fb_add(b, id, (uint16_t)v, 2, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_u32(tp_fb_builder *b, uint16_t id, uint32_t v, uint32_t dflt) {
  tp__fb_add(b, id, v, 4, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_i32(tp_fb_builder *b, uint16_t id, int32_t v, int32_t dflt) {
  tp__fb_add(b, id, (uint32_t)v, 4, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_u64(tp_fb_builder *b, uint16_t id, uint64_t v, uint64_t dflt) {
  tp__fb_add(b, id, v, 8, 0, v == dflt);
}
TPDEF TP__FB_HOT void tp_fb_add_i64(tp_fb_builder *b, uint16_t id, int64_t v, int64_t dflt) {
  tp__fb_add(b, id, (uint64_t)v, 8, 0, v == dflt);
}
/* Floats: default comparison is on the bits, so -0.0 is written against a default of 0.0 and
   a NaN against a NaN default only when the bits differ. */
TPDEF TP__FB_HOT void tp_fb_add_f32(tp_fb_builder *b, uint16_t id, float v, float dflt) {
  uint32_t vb = tp__f32_bits(v);
  tp__fb_add(b, id, vb, 4, 0, vb == tp__f32_bits(dflt));
}
TPDEF TP__FB_HOT void tp_fb_add_f64(tp_fb_builder *b, uint16_t id, double v, double dflt) {
  uint64_t vb, db;
  memcpy(&vb, &v, 8);
  memcpy(&db, &dflt, 8);
  tp__fb_add(b, id, vb, 8, 0, vb == db);
}

TPDEF TP__FB_HOT void tp_fb_add_ref(tp_fb_builder *b, uint16_t id, tp_fb_ref ref) {
  TP_ASSERT(b);
  if (ref == 0) return; /* absent field */
  if (ref > b->size) {
    if (tp__fb_ok(b, "tp_fb_add_ref")) tp__fb_check_ref(b, ref, "tp_fb_add_ref");
    return;
  }
  tp__fb_add(b, id, ref, 4, 1, 0);
}

TPDEF TP__FB_HOT void tp_fb_add_union(tp_fb_builder *b, uint16_t id, uint8_t type, tp_fb_ref value) {
  TP_ASSERT(b);
  if (!tp__fb_ok(b, "tp_fb_add_union")) return;
  if (id == 0) {
    tp__error_set(&b->err, TP_ERR_INVALID,
                 "union at field id 0: its type tag needs id - 1 (a union takes two ids)");
    return;
  }
  if ((type == 0) != (value == 0)) {
    tp__error_set(&b->err, TP_ERR_INVALID,
                 "union at field id %u: type %u with %s value (NONE goes with no value, any "
                 "other type needs one)",
                 (unsigned)id, (unsigned)type, value ? "a" : "no");
    return;
  }
  if (value) tp_fb_add_ref(b, id, value); /* the offset first (higher address), then the tag */
  tp__fb_add(b, (uint16_t)(id - 1), type, 1, 0, type == 0);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef TP__FB_HOT

/* Remembers a new vtable. Failing to grow the table latches TP_ERR_NOMEM: skipping the dedup
   instead would give different bytes with TP_OK. */
static void tp__fb_vt_insert(tp_fb_builder *b, uint32_t end, uint32_t h) {
  size_t mask, i;
  if ((b->vt_count + 1) * 2 > b->vt_cap) {
    size_t ncap = b->vt_cap ? b->vt_cap * 2 : 64, j;
    tp__fb_vtslot *nv;
    if (ncap > ((size_t)-1) / sizeof *nv) {
      tp__error_set(&b->err, TP_ERR_OVERFLOW, "the vtable table cannot grow past %lu slots",
                   (unsigned long)b->vt_cap);
      return;
    }
    nv = (tp__fb_vtslot *)TP_MALLOC(ncap * sizeof *nv);
    if (!nv) {
      tp__error_set(&b->err, TP_ERR_NOMEM, "no memory to grow the vtable table to %lu slots",
                   (unsigned long)ncap);
      return;
    }
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
  TP_ASSERT(b);
  if (!tp__fb_ok(b, "tp_fb_end_table")) return 0;
  if (!b->in_table) {
    tp__error_set(&b->err, TP_ERR_INVALID, "tp_fb_end_table without tp_fb_start_table");
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
    tp__error_set(&b->err, TP_ERR_OVERFLOW,
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
  TP_ASSERT(b);
  if (!tp__fb_ok(b, "tp_fb_finish")) return b->err.status;
  if (b->in_table) {
    return tp__error_set(&b->err, TP_ERR_INVALID, "tp_fb_finish inside an open table");
  }
  if (!tp__fb_check_ref(b, root, "tp_fb_finish")) return b->err.status;
  if (identifier && strlen(identifier) != 4) {
    return tp__error_set(&b->err, TP_ERR_INVALID,
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
  TP_ASSERT(b);
  if (!b->finished || b->err.status != TP_OK) {
    if (size) *size = 0;
    return NULL;
  }
  if (size) *size = b->size;
  return b->buf + b->cap - b->size;
}

// >>fbreader ----------------------------------------------------------------------------------
/* The rules are the declaration's (section 7, reader). Every position is checked against the
   buffer before it is read; positions fit in 32 bits because init refuses a buffer over
   2 GiB - 1. */

static int tp__fb_rfail(tp_fb_reader *r) { return r->err.status != TP_OK; }

TPDEF tp_status tp_fb_reader_status(const tp_fb_reader *r) {
  TP_ASSERT(r);
  return r->err.status;
}

/* The default table budget of one walk (tp_fb_reader_init_ex's comment says why). */
#define TP__FB_MIN_TABLES ((size_t)1000000u)
static size_t tp__fb_default_tables(size_t size) {
  return size / 2 > TP__FB_MIN_TABLES ? size / 2 : TP__FB_MIN_TABLES;
}

#define TP__FB_MIN_VISITS ((size_t)1000000u)
#define TP__FB_VISITS_PER_BYTE 8u
static size_t tp__fb_default_visits(size_t size) { /* in 64 bits: a 32-bit size_t would wrap */
  uint64_t v = (uint64_t)size * TP__FB_VISITS_PER_BYTE;
  if (v < TP__FB_MIN_VISITS) v = TP__FB_MIN_VISITS;
  return v > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)v;
}

/* Charges n visits for what is read at pos; 0 (and the reader's error) past the budget. */
static int tp__fb_visit(tp_fb_reader *r, size_t n, uint64_t pos) {
  if (r->visits <= r->max_visits && r->max_visits - r->visits >= n) {
    r->visits += n;
    TP__VISITS(n);
    return 1;
  }
  return tp__fail(&r->err, TP_ERR_FORMAT, "visit budget %llu exceeded at byte %llu (%llu-byte "
                  "buffer; tables, vectors or strings are reached through many offsets)",
                  (unsigned long long)r->max_visits, (unsigned long long)pos,
                  (unsigned long long)r->size);
}

/* The absent table of r (.pos 0), what a table read returns when there is none. */
static tp_fb_table tp__fb_no_table(tp_fb_reader *r) {
  tp_fb_table t;
  memset(&t, 0, sizeof t);
  t.r = r;
  return t;
}

/* Opens the table at pos (reached at depth); returns an absent table for pos 0 (absent or
   already failed) and on error. */
static tp_fb_table tp__fb_open_table(tp_fb_reader *r, uint64_t pos, unsigned depth) {
  tp_fb_table t = tp__fb_no_table(r);
  unsigned max_depth;
  size_t max_tables;
  int64_t vt;
  int32_t soff;
  uint16_t vsize;
  if (!pos || tp__fb_rfail(r)) return t;
  max_depth = r->max_depth ? r->max_depth : 64u;
  max_tables = r->max_tables ? r->max_tables : tp__fb_default_tables(r->size);
  if (depth > max_depth) {
    tp__error_set(&r->err, TP_ERR_FORMAT, "table at byte %llu is nested %u deep, over the limit %u",
                 (unsigned long long)pos, depth, max_depth);
    return t;
  }
  if (r->tables >= max_tables) {
    tp__error_set(&r->err, TP_ERR_FORMAT, "table budget %llu exceeded at byte %llu (%llu-byte "
                 "buffer)", (unsigned long long)max_tables, (unsigned long long)pos,
                 (unsigned long long)r->size);
    return t;
  }
  r->tables++;
  if (!tp__fb_visit(r, 1, pos)) return t;
  if (pos % 4 != 0 || pos + 4 > r->size) {
    tp__error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %llu is %s (buffer of %llu bytes)", (unsigned long long)pos,
                 pos % 4 ? "not 4-aligned" : "outside the buffer", (unsigned long long)r->size);
    return t;
  }
  soff = (int32_t)tp__get_le32(r->buf + pos);
  vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || vt % 2 != 0 || (uint64_t)vt + 2 > r->size) {
    tp__error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %llu: its vtable at byte %lld is %s (buffer of %llu bytes)",
                 (unsigned long long)pos, (long long)vt,
                 (vt >= 0 && vt % 2 != 0) ? "not 2-aligned" : "outside the buffer",
                 (unsigned long long)r->size);
    return t;
  }
  vsize = tp__get_le16(r->buf + vt);
  if (vsize % 2 != 0 || (uint64_t)vt + vsize > r->size) {
    tp__error_set(&r->err, TP_ERR_FORMAT,
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
  return tp_fb_reader_init_ex(r, buf, size, identifier, root, 0, 0);
}
TPDEF const char *tp_fb_reader_error(const tp_fb_reader *r) {
  TP_ASSERT(r);
  return r->err.status != TP_OK ? r->err.msg : "";
}

TPDEF tp_status tp_fb_reader_init_ex(tp_fb_reader *r, const void *buf, size_t size,
                                     const char *identifier, tp_fb_table *root,
                                     unsigned max_depth, size_t max_tables) {
  uint32_t off;
  TP_ASSERT(r);
  memset(r, 0, sizeof *r); /* any old contents: nothing is read from r */
  r->buf = (const unsigned char *)buf;
  r->size = size;
  r->max_depth = max_depth;
  r->max_tables = max_tables;
  r->max_visits = tp__fb_default_visits(size);
  if (root) *root = tp__fb_no_table(r);
  if (!buf && size) {
    return tp__error_set(&r->err, TP_ERR_INVALID, "NULL buffer of %llu bytes",
                        (unsigned long long)size);
  }
  if (size < 12) {
    return tp__error_set(&r->err, TP_ERR_FORMAT,
                        "buffer of %llu bytes is shorter than the 12-byte minimum",
                        (unsigned long long)size);
  }
  if (size > TP__FB_MAX_SIZE) {
    return tp__error_set(&r->err, TP_ERR_FORMAT,
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
    return tp__error_set(&r->err, TP_ERR_FORMAT, "file identifier is \"%s\", expected \"%.4s\"",
                        got, identifier);
  }
  off = tp__get_le32(r->buf);
  if (off == 0 || off >= 0x80000000u || off >= size) {
    return tp__error_set(&r->err, TP_ERR_FORMAT,
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
/* Field id's vtable entry (its offset in the table); 0 when absent, or when the table is absent
   or the reader has failed. */
static uint16_t tp__fb_field_off(const tp_fb_table *t, uint16_t id) {
  uint32_t voff = 4u + 2u * (uint32_t)id;
  if (!t->r || !t->pos || tp__fb_rfail(t->r) || voff + 2u > t->vtable_size) return 0;
  return tp__get_le16(t->r->buf + t->vtable + voff);
}

static uint32_t tp__fb_field_pos(const tp_fb_table *t, uint16_t id, unsigned n) {
  tp_fb_reader *r = t->r;
  uint64_t pos;
  uint16_t fo = tp__fb_field_off(t, id);
  if (!fo) return 0;
  pos = (uint64_t)t->pos + fo;
  if (pos % n != 0 || pos + n > r->size) {
    tp__error_set(&r->err, TP_ERR_FORMAT,
                 "table at byte %lu, field id %u: %u-byte value at byte %llu is %s (buffer of "
                 "%llu bytes)",
                 (unsigned long)t->pos, (unsigned)id, n, (unsigned long long)pos,
                 pos % n ? "misaligned" : "outside the buffer", (unsigned long long)r->size);
    return 0;
  }
  return (uint32_t)pos;
}

TPDEF int tp_fb_present(const tp_fb_table *t, uint16_t id) {
  TP_ASSERT(t);
  return tp__fb_field_off(t, id) != 0;
}

/* The n-byte (1, 2, 4 or 8) little-endian unsigned at p. */
static uint64_t tp__fb_le(const unsigned char *p, unsigned n) {
  return n == 1 ? p[0] : n == 2 ? tp__get_le16(p) : n == 4 ? tp__get_le32(p) : tp__get_le64(p);
}

/* Field id of t read as an n-byte unsigned; dflt when absent or on error. The typed readers
   below cast it back (signed types and floats keep their bits). */
static uint64_t tp__fb_scalar(const tp_fb_table *t, uint16_t id, unsigned n, uint64_t dflt) {
  uint32_t p;
  TP_ASSERT(t);
  p = tp__fb_field_pos(t, id, n);
  return p ? tp__fb_le(t->r->buf + p, n) : dflt;
}

TPDEF uint8_t tp_fb_u8(const tp_fb_table *t, uint16_t id, uint8_t dflt) {
  return (uint8_t)tp__fb_scalar(t, id, 1, dflt);
}
TPDEF int8_t tp_fb_i8(const tp_fb_table *t, uint16_t id, int8_t dflt) {
  return (int8_t)tp__fb_scalar(t, id, 1, (uint8_t)dflt);
}
TPDEF uint16_t tp_fb_u16(const tp_fb_table *t, uint16_t id, uint16_t dflt) {
  return (uint16_t)tp__fb_scalar(t, id, 2, dflt);
}
TPDEF int16_t tp_fb_i16(const tp_fb_table *t, uint16_t id, int16_t dflt) {
  return (int16_t)tp__fb_scalar(t, id, 2, (uint16_t)dflt);
}
TPDEF uint32_t tp_fb_u32(const tp_fb_table *t, uint16_t id, uint32_t dflt) {
  return (uint32_t)tp__fb_scalar(t, id, 4, dflt);
}
TPDEF int32_t tp_fb_i32(const tp_fb_table *t, uint16_t id, int32_t dflt) {
  return (int32_t)tp__fb_scalar(t, id, 4, (uint32_t)dflt);
}
TPDEF uint64_t tp_fb_u64(const tp_fb_table *t, uint16_t id, uint64_t dflt) {
  return tp__fb_scalar(t, id, 8, dflt);
}
TPDEF int64_t tp_fb_i64(const tp_fb_table *t, uint16_t id, int64_t dflt) {
  return (int64_t)tp__fb_scalar(t, id, 8, (uint64_t)dflt);
}
TPDEF float tp_fb_bits_f32(uint32_t bits) { return tp__f32_from_bits(bits); }
TPDEF double tp_fb_bits_f64(uint64_t bits) {
  double d;
  memcpy(&d, &bits, 8);
  return d;
}
TPDEF float tp_fb_f32(const tp_fb_table *t, uint16_t id, float dflt) {
  return tp_fb_bits_f32((uint32_t)tp__fb_scalar(t, id, 4, tp__f32_bits(dflt)));
}
TPDEF double tp_fb_f64(const tp_fb_table *t, uint16_t id, double dflt) {
  uint64_t bits;
  memcpy(&bits, &dflt, 8);
  return tp_fb_bits_f64(tp__fb_scalar(t, id, 8, bits));
}

/* Follows the uoffset stored at pos (already checked readable and 4-aligned); 0 on error, and
   0 for pos 0 (a field or element that is absent or already failed). */
static uint32_t tp__fb_follow(tp_fb_reader *r, uint32_t pos, const char *what) {
  uint32_t off;
  uint64_t target;
  if (!pos) return 0;
  off = tp__get_le32(r->buf + pos);
  target = (uint64_t)pos + off;
  if (off == 0 || off >= 0x80000000u || target >= r->size) {
    tp__error_set(&r->err, TP_ERR_FORMAT,
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
  if (target % 4 != 0 || (uint64_t)target + 4 > r->size)
    return tp__fail(&r->err, TP_ERR_FORMAT, "%s at byte %lu: length word %s (buffer of %llu "
                    "bytes)", what, (unsigned long)target,
                    target % 4 ? "not 4-aligned" : "outside the buffer",
                    (unsigned long long)r->size);
  count = tp__get_le32(r->buf + target);
  bytes = (uint64_t)count * elem_size; /* count < 2^32, elem_size <= 8: no overflow */
  if (bytes > r->size - target - 4)
    return tp__fail(&r->err, TP_ERR_FORMAT,
                    "%s at byte %lu: %lu elements of %u bytes run past the end of the %llu-byte "
                    "buffer",
                    what, (unsigned long)target, (unsigned long)count, (unsigned)elem_size,
                    (unsigned long long)r->size);
  *count_out = count;
  return 1;
}

/* A string at target: in range and NUL-terminated; NULL for target 0 (absent or already
   failed). */
static const char *tp__fb_string_at(tp_fb_reader *r, uint32_t target, size_t *len_out) {
  uint32_t len;
  if (!target) return NULL;
  if (!tp__fb_check_vector(r, target, 1, &len, "string")) return NULL;
  if ((uint64_t)target + 4 + len >= r->size || r->buf[target + 4 + len] != 0) {
    tp__error_set(&r->err, TP_ERR_FORMAT, "string at byte %lu (%lu bytes) is not NUL-terminated",
                 (unsigned long)target, (unsigned long)len);
    return NULL;
  }
  if (!tp__fb_visit(r, 1 + len / 16, target)) return NULL;
  if (len_out) *len_out = len;
  return (const char *)(r->buf + target + 4);
}

TPDEF tp_fb_table tp_fb_table_field(const tp_fb_table *t, uint16_t id) {
  TP_ASSERT(t);
  return tp__fb_open_table(t->r, tp__fb_follow(t->r, tp__fb_field_pos(t, id, 4), "table field"),
                           (unsigned)t->depth + 1u);
}

TPDEF tp_fb_table tp_fb_union_field(const tp_fb_table *t, uint16_t id, uint8_t *type_out) {
  tp_fb_table none, v;
  uint8_t tag;
  int has_value;
  TP_ASSERT(t);
  none = tp__fb_no_table(t->r);
  if (type_out) *type_out = 0;
  if (id == 0) {
    if (t->r) tp__error_set(&t->r->err, TP_ERR_INVALID, "union at field id 0 (its tag needs id - 1)");
    return none;
  }
  tag = tp_fb_u8(t, (uint16_t)(id - 1), 0);
  has_value = tp_fb_present(t, id);
  if (!t->r || tp__fb_rfail(t->r)) return none;
  if ((tag == 0) != (has_value == 0)) {
    tp__error_set(&t->r->err, TP_ERR_FORMAT,
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
  TP_ASSERT(t);
  if (len_out) *len_out = 0;
  return tp__fb_string_at(t->r, tp__fb_follow(t->r, tp__fb_field_pos(t, id, 4), "string field"),
                          len_out);
}

TPDEF tp_fb_vector tp_fb_vector_field(const tp_fb_table *t, uint16_t id, size_t elem_size) {
  tp_fb_vector v;
  uint32_t target, count;
  TP_ASSERT(t);
  memset(&v, 0, sizeof v);
  v.r = t->r;
  v.depth = t->depth;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
    if (t->r)
      tp__error_set(&t->r->err, TP_ERR_INVALID, "vector element size %llu is not 1, 2, 4 or 8",
                   (unsigned long long)elem_size);
    return v;
  }
  v.elem_size = (uint16_t)elem_size;
  target = tp__fb_follow(t->r, tp__fb_field_pos(t, id, 4), "vector field");
  if (!target) return v;
  if (!tp__fb_check_vector(t->r, target, elem_size, &count, "vector")) return v;
  if (count && (target + 4u) % elem_size != 0) {
    tp__error_set(&t->r->err, TP_ERR_FORMAT,
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
    tp__error_set(&v->r->err, TP_ERR_BOUNDS, "vector element %llu of %lu",
                 (unsigned long long)i, (unsigned long)v->count);
    return 0;
  }
  if (want_ref && v->elem_size != 4) {
    tp__error_set(&v->r->err, TP_ERR_INVALID,
                 "vector of %u-byte elements read as offsets (needs 4)", (unsigned)v->elem_size);
    return 0;
  }
  return v->pos + (uint32_t)i * v->elem_size;
}

TPDEF uint64_t tp_fb_vector_scalar(const tp_fb_vector *v, size_t i) {
  uint32_t p;
  TP_ASSERT(v);
  p = tp__fb_elem(v, i, 0);
  if (!p || !tp__fb_visit(v->r, 1, p)) return 0;
  return tp__fb_le(v->r->buf + p, v->elem_size);
}

TPDEF tp_fb_table tp_fb_vector_table(const tp_fb_vector *v, size_t i) {
  TP_ASSERT(v);
  return tp__fb_open_table(v->r, tp__fb_follow(v->r, tp__fb_elem(v, i, 1), "vector element"),
                           (unsigned)v->depth + 1u);
}

TPDEF const char *tp_fb_vector_string(const tp_fb_vector *v, size_t i, size_t *len_out) {
  TP_ASSERT(v);
  if (len_out) *len_out = 0;
  return tp__fb_string_at(v->r, tp__fb_follow(v->r, tp__fb_elem(v, i, 1), "vector element"),
                          len_out);
}
// >>store -------------------------------------------------------------------------------------
/* The named data store and .ptd files.

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

/* An entry's TensorLayout (has_layout 0: raw bytes, none). */
typedef struct tp__store_layout {
  int has_layout;
  int8_t scalar_type;
  uint8_t ndim;
  int32_t sizes[TP_MAX_DIMS];
  uint8_t dim_order[TP_MAX_DIMS];
} tp__store_layout;

typedef struct tp__store_entry {
  char *key;                   /* own allocation: pointers handed out stay valid */
  size_t key_len;
  uint64_t hash;
  uint32_t seg;
  tp__store_layout layout;
} tp__store_entry;

struct tp_store {
  tp__store_entry *entries;
  size_t n_entries, cap_entries;
  tp__store_seg *segs;
  size_t n_segs, cap_segs;
  tp__keyset keys;             /* entries by key */
  tp__keyset contents;         /* segments by (digest, nbytes) */
  tp__keyset borrowed;         /* borrowed raw-bytes segments by (pointer, nbytes) */
  tp__hashkey hk;              /* the keysets' hash key (tp__hash_seed of the store) */
  tp_fb_builder *fb;
  int prepared;                /* fb, offsets, base, data_size are up to date */
  uint64_t fb_size, base, data_size;
  tp_sha256 sha0;              /* an initialised context, copied per add: tp_sha256_init runs
                                  cpuid, which costs tens of microseconds in a VM */
  tp_store_options opts;
  tp_error err;                /* the first failed add: latched, every later call returns it */
  tp_error werr;               /* the last size/write call's failure (reset by the next one) */
  int writing;                 /* > 0 while a write (its own, or a program's embedding it) runs */
};

#ifdef TP_COUNT_STEPS
unsigned long long tp__count_steps, tp__count_visits;
#endif

/* SipHash-1-3 (Aumasson and Bernstein's construction with one compression round per 8-byte
   word and three finalisation rounds), written from the algorithm's description. */
#define TP__ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
static void tp__sip_round(uint64_t v[4]) {
  v[0] += v[1];
  v[1] = TP__ROTL64(v[1], 13);
  v[1] ^= v[0];
  v[0] = TP__ROTL64(v[0], 32);
  v[2] += v[3];
  v[3] = TP__ROTL64(v[3], 16);
  v[3] ^= v[2];
  v[0] += v[3];
  v[3] = TP__ROTL64(v[3], 21);
  v[3] ^= v[0];
  v[2] += v[1];
  v[1] = TP__ROTL64(v[1], 17);
  v[1] ^= v[2];
  v[2] = TP__ROTL64(v[2], 32);
}

TPDEF uint64_t tp__hash_keyed(const tp__hashkey *k, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t v[4], m;
  size_t i, full = n & ~(size_t)7;
  v[0] = k->k0 ^ 0x736f6d6570736575ull;
  v[1] = k->k1 ^ 0x646f72616e646f6dull;
  v[2] = k->k0 ^ 0x6c7967656e657261ull;
  v[3] = k->k1 ^ 0x7465646279746573ull;
  for (i = 0; i < full; i += 8) {
    m = tp__get_le64(p + i);
    v[3] ^= m;
    tp__sip_round(v);
    v[0] ^= m;
  }
  m = (uint64_t)(n & 0xff) << 56;
  for (; i < n; i++) m |= (uint64_t)p[i] << (8 * (i - full));
  v[3] ^= m;
  tp__sip_round(v);
  v[0] ^= m;
  v[2] ^= 0xff;
  tp__sip_round(v);
  tp__sip_round(v);
  tp__sip_round(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

TPDEF uint64_t tp__hash_u64(const tp__hashkey *k, uint64_t x) {
  unsigned char b[8];
  tp__put_le64(b, x);
  return tp__hash_keyed(k, b, 8);
}

static uint64_t tp__mix64(uint64_t x) { /* splitmix64's finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

TPDEF tp__hashkey tp__hash_seed(const void *obj) {
  tp__hashkey k;
  uint64_t s;
#ifdef TP_HASH_SEED
  s = (uint64_t)(TP_HASH_SEED(obj));
#else
  volatile unsigned char here = 0;
  tp__hashkey (*self)(const void *) = tp__hash_seed;
  uint64_t code = 0;
  memcpy(&code, &self, sizeof self < sizeof code ? sizeof self : sizeof code);
  s = (uint64_t)(uintptr_t)obj ^ tp__mix64((uint64_t)(uintptr_t)&here) ^
      tp__mix64(code ^ 0x9E3779B97F4A7C15ull);
  (void)here;
#endif
  k.k0 = tp__mix64(s ^ 0x243F6A8885A308D3ull);
  k.k1 = tp__mix64(k.k0 ^ s ^ 0x13198A2E03707344ull);
  return k;
}

TPDEF size_t tp__keyset_probe(const tp__keyset *t, uint64_t h, tp__keyset_match_fn match,
                              const void *ctx) {
  size_t mask, i;
  TP_ASSERT(t && t->cap > 0);
  mask = t->cap - 1;
  for (i = (size_t)h & mask;; i = (i + 1) & mask) {
    TP__STEP();
    if (t->slot[i] == 0 || (match && match(ctx, t->slot[i] - 1))) return i;
  }
}

TPDEF tp_status tp__keyset_reserve(tp__keyset *t, size_t count, tp__keyset_hash_fn hash,
                                   const void *ctx) {
  size_t cap = t->cap ? t->cap : 16, i;
  tp__keyset nt;
  while (count > cap / 2) {
    if (cap > ((size_t)-1) / 2 / sizeof(uint32_t)) return TP_ERR_OVERFLOW;
    cap *= 2;
  }
  if (cap == t->cap) return TP_OK;
  nt.slot = (uint32_t *)TP_MALLOC(cap * sizeof(uint32_t));
  if (!nt.slot) return TP_ERR_NOMEM;
  memset(nt.slot, 0, cap * sizeof(uint32_t));
  nt.cap = cap;
  for (i = 0; i < t->cap; i++) {
    uint32_t idx1 = t->slot[i];
    if (idx1 != 0) nt.slot[tp__keyset_probe(&nt, hash(ctx, idx1 - 1), NULL, NULL)] = idx1;
  }
  TP_FREE(t->slot);
  *t = nt;
  return TP_OK;
}

TPDEF void tp__keyset_free(tp__keyset *t) {
  TP_FREE(t->slot);
  t->slot = NULL;
  t->cap = 0;
}

static uint64_t tp__content_hash(const tp__hashkey *k, const unsigned char digest[32],
                                 uint64_t nbytes) {
  return tp__hash_u64(k, tp__get_le64(digest) ^ (nbytes * 0x9E3779B97F4A7C15ull));
}

/* The store's two keysets: entries by key, segments by content, rehashed from the hashes
   each item keeps. */
static uint64_t tp__store_entry_hash(const void *ctx, uint32_t i) {
  return ((const tp_store *)ctx)->entries[i].hash;
}
static uint64_t tp__store_seg_hash(const void *ctx, uint32_t i) {
  return ((const tp_store *)ctx)->segs[i].hash;
}
/* Borrowed bytes stay unchanged until the write (the contract), so bytes at the same address
   with the same length are the same bytes: their SHA-256 is computed once, however many keys
   name them (a program's named data sharing one segment, re-stored by tpdump). */
static uint64_t tp__store_borrow_key(const tp_store *s, const void *p, uint64_t n) {
  return tp__hash_u64(&s->hk, (uint64_t)(uintptr_t)p ^ (n * 0x9E3779B97F4A7C15ull));
}
static uint64_t tp__store_borrow_hash(const void *ctx, uint32_t i) {
  const tp_store *s = (const tp_store *)ctx;
  return tp__store_borrow_key(s, s->segs[i].bytes, s->segs[i].nbytes);
}

/* What a lookup in one of the store's keysets looks for. */
typedef struct tp__store_probe {
  const tp_store *s;
  const char *key;             /* keys: the key, its length and hash */
  size_t len;
  uint64_t h;
  const unsigned char *digest; /* contents: the digest, the byte count and their hash */
  uint64_t nbytes, ch;
  const void *bytes;           /* borrowed: the address (and nbytes) */
} tp__store_probe;

static int tp__store_key_match(const void *ctx, uint32_t i) {
  const tp__store_probe *q = (const tp__store_probe *)ctx;
  const tp__store_entry *e = &q->s->entries[i];
  return e->hash == q->h && e->key_len == q->len && memcmp(e->key, q->key, q->len) == 0;
}
static int tp__store_content_match(const void *ctx, uint32_t i) {
  const tp__store_probe *q = (const tp__store_probe *)ctx;
  const tp__store_seg *g = &q->s->segs[i];
  return g->hash == q->ch && g->nbytes == q->nbytes && memcmp(g->digest, q->digest, 32) == 0;
}
static int tp__store_borrow_match(const void *ctx, uint32_t i) {
  const tp__store_probe *q = (const tp__store_probe *)ctx;
  const tp__store_seg *g = &q->s->segs[i];
  return g->is_bytes && !g->owned && g->bytes == q->bytes && g->nbytes == q->nbytes;
}

/* The item of keyset t (its index + 1) that q matches under hash h, or 0. */
static uint32_t tp__store_lookup(const tp__keyset *t, uint64_t h, tp__keyset_match_fn match,
                                 const tp__store_probe *q) {
  return t->cap ? t->slot[tp__keyset_probe(t, h, match, q)] : 0;
}

TPDEF tp_status tp_store_create(const tp_store_options *opts, tp_store **out) {
  tp_store *s;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  s = (tp_store *)TP_MALLOC(sizeof(tp_store));
  if (!s) return TP_ERR_NOMEM;
  memset(s, 0, sizeof *s);
  if (opts) s->opts = *opts;
  tp_sha256_init(&s->sha0);
  s->hk = tp__hash_seed(s);
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
  tp__keyset_free(&s->keys);
  tp__keyset_free(&s->contents);
  tp__keyset_free(&s->borrowed);
  if (s->fb) tp_fb_builder_destroy(s->fb);
  TP_FREE(s);
}

TPDEF const char *tp_store_error(const tp_store *s) {
  TP_ASSERT(s);
  return tp__writer_error(&s->err, &s->werr);
}
TPDEF tp_status tp_store_status(const tp_store *s) {
  TP_ASSERT(s);
  return tp__writer_status(&s->err, &s->werr);
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
  tp__store_layout layout;
} tp__store_item;

static tp_status tp__store_insert(tp_store *s, const char *key_or_null, tp__store_item *it,
                                  const char **key_out) {
  char hex[65];
  const char *key = key_or_null;
  size_t len;
  uint64_t h, ch;
  tp__store_entry *e;
  tp__store_seg *g;
  tp__store_probe q;
  uint32_t idx1;
  tp_status st;

  if (!key) {
    tp_hex(it->digest, 32, hex);
    key = hex;
  }
  st = tp__writer_busy(&s->err, s->writing, "a tp_store_add* call", "store");
  if (st != TP_OK) return st;
  len = strlen(key);
  h = tp__hash_keyed(&s->hk, key, len);
  ch = tp__content_hash(&s->hk, it->digest, it->nbytes);
  memset(&q, 0, sizeof q);
  q.s = s;
  q.key = key;
  q.len = len;
  q.h = h;
  q.digest = it->digest;
  q.nbytes = it->nbytes;
  q.ch = ch;

  idx1 = tp__store_lookup(&s->keys, h, tp__store_key_match, &q);
  if (idx1) {
    e = &s->entries[idx1 - 1];
    g = &s->segs[e->seg];
    if (g->nbytes != it->nbytes || memcmp(g->digest, it->digest, 32) != 0) {
      char a[17], b[17];
      tp_hex(g->digest, 8, a);
      tp_hex(it->digest, 8, b);
      return tp__error_set(&s->err, TP_ERR_INVALID,
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
    return tp__error_set(&s->err, TP_ERR_OVERFLOW, "key \"%.80s\": a store holds at most %lu "
                        "entries", key, (unsigned long)(UINT32_MAX - 1u));

  idx1 = tp__store_lookup(&s->contents, ch, tp__store_content_match, &q);
  g = idx1 ? &s->segs[idx1 - 1] : NULL;
  if (!g) {
    tp__store_seg *ng;
    st = tp__array_reserve((void **)&s->segs, &s->cap_segs, s->n_segs + 1, sizeof(tp__store_seg));
    if (st == TP_OK) st = tp__keyset_reserve(&s->contents, s->n_segs + 1, tp__store_seg_hash, s);
    if (st == TP_OK)
      st = tp__keyset_reserve(&s->borrowed, s->n_segs + 1, tp__store_borrow_hash, s);
    if (st != TP_OK)
      return tp__error_set(&s->err, st, "key \"%.80s\": no room for segment %lu", key,
                          (unsigned long)s->n_segs);
    ng = &s->segs[s->n_segs];
    memset(ng, 0, sizeof *ng);
    if (it->view && !s->opts.copy) {
      ng->view = *it->view;
      ng->order = it->order;
    } else {
      /* Bytes; a copying store copies a view's compact bytes now (the caller may then free
         the weights), and raw bytes when asked to. */
      ng->is_bytes = 1;
      ng->bytes = (const unsigned char *)it->bytes;
      if ((it->view || it->copy) && it->nbytes > 0) {
        void *own = NULL;
        unsigned char *at = tp__alloc_copy((size_t)it->nbytes,
                                           tp__stream_out((size_t)it->nbytes), &own);
        ng->owned = (unsigned char *)own;
        if (!at)
          return tp__error_set(&s->err, TP_ERR_NOMEM, "key \"%.80s\": cannot copy %llu bytes",
                              key, (unsigned long long)it->nbytes);
        if (it->view) st = tp_compact_into(it->view, it->order, at, (size_t)it->nbytes);
        else memcpy(at, it->bytes, (size_t)it->nbytes);
        if (st != TP_OK) { /* (TP_OK from the reserve above for a memcpy) */
          TP_FREE(ng->owned);
          ng->owned = NULL;
          return tp__error_set(&s->err, st, "key \"%.80s\": copying the view failed (%s)", key,
                              tp_status_str(st));
        }
        ng->bytes = at;
      }
    }
    ng->nbytes = it->nbytes;
    ng->alignment = it->alignment;
    ng->hash = ch;
    memcpy(ng->digest, it->digest, 32);
    s->n_segs++;
    s->contents.slot[tp__keyset_probe(&s->contents, ch, NULL, NULL)] = (uint32_t)s->n_segs;
    if (ng->is_bytes && !ng->owned && ng->nbytes > 0)
      s->borrowed.slot[tp__keyset_probe(&s->borrowed,
                                        tp__store_borrow_key(s, ng->bytes, ng->nbytes), NULL,
                                        NULL)] = (uint32_t)s->n_segs;
    g = ng;
  } else if (it->alignment > g->alignment) {
    g->alignment = it->alignment;
  }

  st = tp__array_reserve((void **)&s->entries, &s->cap_entries, s->n_entries + 1,
                        sizeof(tp__store_entry));
  if (st == TP_OK) st = tp__keyset_reserve(&s->keys, s->n_entries + 1, tp__store_entry_hash, s);
  if (st != TP_OK)
    return tp__error_set(&s->err, st, "key \"%.80s\": no room for entry %lu", key,
                        (unsigned long)s->n_entries);
  e = &s->entries[s->n_entries];
  memset(e, 0, sizeof *e);
  e->key = (char *)TP_MALLOC(len + 1);
  if (!e->key)
    return tp__error_set(&s->err, TP_ERR_NOMEM, "key \"%.80s\": cannot copy the key", key);
  memcpy(e->key, key, len + 1);
  e->key_len = len;
  e->hash = h;
  e->seg = (uint32_t)(g - s->segs);
  e->layout = it->layout;
  s->n_entries++;
  s->keys.slot[tp__keyset_probe(&s->keys, h, NULL, NULL)] = (uint32_t)s->n_entries;
  s->prepared = 0;
  if (key_out) *key_out = e->key;
  return TP_OK;
}

static tp_status tp__store_alignment(tp_store *s, const char *key, size_t alignment,
                                     uint64_t *out) {
  if (alignment == 0) alignment = TP__STORE_ALIGN;
  if ((alignment & (alignment - 1)) != 0 || alignment > TP__STORE_MAX_ALIGN)
    return tp__error_set(&s->err, TP_ERR_INVALID,
                        "key \"%.80s\": alignment %lu is not a power of two up to %lu",
                        key ? key : "(sha256)", (unsigned long)alignment,
                        (unsigned long)TP__STORE_MAX_ALIGN);
  *out = (uint64_t)alignment;
  return TP_OK;
}

/* Checks one view add and fills its item (layout, alignment), all but the digest. */
static tp_status tp__store_view_item(tp_store *s, const char *key_or_NULL, const tp_tensor *t,
                                     tp_order order, size_t alignment, tp__store_item *it) {
  const char *kname = key_or_NULL ? key_or_NULL : "(sha256)";
  tp_error verr;
  tp_status st;
  int d;
  memset(it, 0, sizeof *it);
  if (!t) return tp__error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": NULL tensor", kname);
  if (order != TP_ORDER_ROW_MAJOR && order != TP_ORDER_PRESERVE)
    return tp__error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": order %d is not a tp_order",
                        kname, (int)order);
  memset(&verr, 0, sizeof verr);
  st = tp_tensor_check(t, &verr);
  if (st != TP_OK)
    return tp__error_set(&s->err, st, "key \"%.80s\": %s", kname,
                        verr.status != TP_OK ? verr.msg : tp_status_str(st));
  st = tp__store_alignment(s, key_or_NULL, alignment, &it->alignment);
  if (st != TP_OK) return st;

  it->view = t;
  it->order = order;
  it->nbytes = (uint64_t)tp_nbytes(t);
  it->layout.has_layout = 1;
  it->layout.scalar_type = (int8_t)t->dtype;
  it->layout.ndim = (uint8_t)t->ndim;
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] > INT32_MAX)
      return tp__error_set(&s->err, TP_ERR_UNSUPPORTED,
                          "key \"%.80s\": dim %d has size %lld; a .ptd layout holds int32 sizes",
                          kname, d, (long long)t->sizes[d]);
    it->layout.sizes[d] = (int32_t)t->sizes[d];
    it->layout.dim_order[d] = (uint8_t)d;
  }
  if (order == TP_ORDER_PRESERVE && t->ndim > 0) {
    st = tp_dim_order(t, it->layout.dim_order);
    if (st != TP_OK)
      return tp__error_set(&s->err, st, "key \"%.80s\": no dim order (%s)", kname,
                          tp_status_str(st));
  }
  return TP_OK;
}

/* The digest of a view's compact bytes, streamed through SHA-256 (nothing is copied). Touches
   only its arguments and the read-only sha0: safe on any thread. */
static tp_status tp__store_view_digest(const tp_sha256 *sha0, const tp_tensor *t, tp_order order,
                                       unsigned char digest[32]) {
  tp_sha256 ctx = *sha0;
  tp_sink sink = tp_sink_sha256(&ctx);
  tp_status st = tp_compact_write(t, order, &sink);
  if (st == TP_OK) tp_sha256_final(&ctx, digest);
  return st;
}

static tp_status tp__store_hash_failed(tp_store *s, const char *key_or_NULL, tp_status st) {
  return tp__error_set(&s->err, st, "key \"%.80s\": hashing the view failed (%s)",
                      key_or_NULL ? key_or_NULL : "(sha256)", tp_status_str(st));
}

TPDEF tp_status tp_store_add(tp_store *s, const char *key_or_NULL, const tp_tensor *t,
                             tp_order order, size_t alignment, const char **key_out) {
  tp__store_item it;
  tp_status st;

  TP_ASSERT(s);
  if (key_out) *key_out = NULL;
  if (s->err.status != TP_OK) return s->err.status;
  st = tp__store_view_item(s, key_or_NULL, t, order, alignment, &it);
  if (st != TP_OK) return st;
  /* The key (or the content check of a given key) needs the digest of the compact bytes. */
  st = tp__store_view_digest(&s->sha0, t, order, it.digest);
  if (st != TP_OK) return tp__store_hash_failed(s, key_or_NULL, st);
  return tp__store_insert(s, key_or_NULL, &it, key_out);
}

/* tp_store_add_all's hashing task: item i's digest and status. */
typedef struct tp__store_hash_job {
  const tp_sha256 *sha0;
  tp__store_item *its;
  tp_status *status;
} tp__store_hash_job;

static void tp__store_hash_task(void *ctx, size_t i) {
  tp__store_hash_job *j = (tp__store_hash_job *)ctx;
  j->status[i] = tp__store_view_digest(j->sha0, j->its[i].view, j->its[i].order, j->its[i].digest);
}

TPDEF tp_status tp_store_add_all(tp_store *s, tp_store_item *items, size_t n) {
  tp__store_item *its;
  tp_status *status, st = TP_OK;
  tp__store_hash_job job;
  size_t i, ok = 0;
  tp_error bad;

  TP_ASSERT(s);
  if (s->err.status != TP_OK) return s->err.status;
  if (n == 0) return TP_OK;
  if (!items)
    return tp__error_set(&s->err, TP_ERR_INVALID, "tp_store_add_all: NULL items with n = %lu",
                        (unsigned long)n);
  for (i = 0; i < n; i++) items[i].key_out = NULL;
  if (n > SIZE_MAX / (sizeof(tp__store_item) + sizeof(tp_status)))
    return tp__error_set(&s->err, TP_ERR_OVERFLOW, "tp_store_add_all: %lu items",
                        (unsigned long)n);
  its = (tp__store_item *)TP_MALLOC(n * (sizeof(tp__store_item) + sizeof(tp_status)));
  if (!its)
    return tp__error_set(&s->err, TP_ERR_NOMEM, "tp_store_add_all: no room for %lu items",
                        (unsigned long)n);
  status = (tp_status *)(void *)(its + n);
  /* the checks in item order, up to the first bad item; its error waits until the items
     before it are in (as with one tp_store_add after another) */
  memset(&bad, 0, sizeof bad);
  for (; ok < n; ok++) {
    st = tp__store_view_item(s, items[ok].key, items[ok].view, items[ok].order,
                             items[ok].alignment, &its[ok]);
    if (st != TP_OK) {
      bad = s->err;
      memset(&s->err, 0, sizeof s->err);
      break;
    }
  }
  /* the digests of the good items, through the hook when there is one */
  job.sha0 = &s->sha0;
  job.its = its;
  job.status = status;
  if (s->opts.parallel_for && ok > 1) {
    s->opts.parallel_for(s->opts.parallel_ctx, ok, tp__store_hash_task, &job);
  } else {
    for (i = 0; i < ok; i++) tp__store_hash_task(&job, i);
  }
  /* inserts in item order: the same store as ok tp_store_add calls */
  st = TP_OK;
  for (i = 0; i < ok && st == TP_OK; i++) {
    if (status[i] != TP_OK) st = tp__store_hash_failed(s, items[i].key, status[i]);
    else st = tp__store_insert(s, items[i].key, &its[i], &items[i].key_out);
  }
  if (st == TP_OK && bad.status != TP_OK) { /* every good item is in: now the bad one's error */
    s->err = bad;
    st = bad.status;
  }
  TP_FREE(its);
  return st;
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
    return tp__error_set(&s->err, TP_ERR_INVALID, "key \"%.80s\": NULL data with %lu bytes",
                        kname, (unsigned long)n);
  memset(&it, 0, sizeof it);
  st = tp__store_alignment(s, key_or_NULL, alignment, &it.alignment);
  if (st != TP_OK) return st;
  it.bytes = data;
  it.copy = copy || s->opts.copy;
  it.nbytes = (uint64_t)n;
  if (!it.copy && n > 0) {
    tp__store_probe q;
    uint32_t idx1;
    memset(&q, 0, sizeof q);
    q.s = s;
    q.bytes = data;
    q.nbytes = (uint64_t)n;
    idx1 = tp__store_lookup(&s->borrowed, tp__store_borrow_key(s, data, n),
                            tp__store_borrow_match, &q);
    if (idx1) {
      memcpy(it.digest, s->segs[idx1 - 1].digest, 32);
      return tp__store_insert(s, key_or_NULL, &it, key_out);
    }
  }
  ctx = s->sha0;
  if (n > 0) tp_sha256_update(&ctx, data, n);
  tp_sha256_final(&ctx, it.digest);
  return tp__store_insert(s, key_or_NULL, &it, key_out);
}

// >>files -------------------------------------------------------------------------------------
/* tp_file_bytes: one way to get a file's bytes for the readers. POSIX: open + fstat + mmap
   (PROT_READ, MAP_PRIVATE; the descriptor is closed at once, the mapping stays). Windows:
   _open + CreateFileMappingA + MapViewOfFile (the handles are closed at once, the view stays).
   Otherwise, an empty or unmappable file (pipes, /proc files of size 0) and TP_FILE_COPY:
   read into a TP_MALLOC buffer. */
#ifndef TP_NO_STDIO
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
/* kernel32, declared here as <windows.h> declares them (compatible types), to keep
   <windows.h> out */
#ifdef __cplusplus
extern "C" {
#endif
struct _SECURITY_ATTRIBUTES;
__declspec(dllimport) void *__stdcall CreateFileMappingA(void *file,
                                                         struct _SECURITY_ATTRIBUTES *sa,
                                                         unsigned long protect,
                                                         unsigned long size_high,
                                                         unsigned long size_low,
                                                         const char *name);
#ifdef _WIN64
typedef unsigned long long tp__win_size; /* SIZE_T */
#else
typedef unsigned long tp__win_size;
#endif
__declspec(dllimport) void *__stdcall MapViewOfFile(void *mapping, unsigned long access,
                                                    unsigned long offset_high,
                                                    unsigned long offset_low, tp__win_size bytes);
__declspec(dllimport) int __stdcall UnmapViewOfFile(const void *base);
__declspec(dllimport) int __stdcall CloseHandle(void *handle);
#ifdef __cplusplus
}
#endif
#define TP__PAGE_READONLY 0x02ul
#define TP__FILE_MAP_READ 0x0004ul
#elif defined(__unix__) || defined(__unix) || defined(__APPLE__)
#define TP__FILE_POSIX 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* *out holds n bytes at p, to be unmapped (mapped) or freed at close; TP_OK. */
static tp_status tp__file_bytes_set(tp_file_bytes *out, void *p, size_t n, int mapped) {
  out->data = p;
  out->size = n;
  out->mapped = mapped;
  out->release__ = p;
  return TP_OK;
}

/* tp_file_bytes_open's sentence when path does not open (e: errno, or 0). */
static tp_status tp__file_open_failed(tp_error *err, const char *path, int e) {
  return tp__error_set(err, TP_ERR_IO, "cannot open \"%.100s\": %s", path,
                      e ? strerror(e) : "unknown reason");
}

/* Reads what is left of a file into a TP_MALLOC buffer, growing it (hint: the expected size).
   read_fn returns bytes read, 0 at the end, < 0 on error (errno set). */
typedef long (*tp__read_fn)(void *ctx, void *buf, size_t n);
static tp_status tp__file_read_all(const char *path, tp__read_fn rd, void *ctx, size_t hint,
                                   tp_file_bytes *out, tp_error *err) {
  unsigned char *buf = NULL;
  size_t cap = hint < 65536 ? 65536 : hint + 1, n = 0;
  for (;;) {
    long got;
    size_t want;
    if (n == cap || !buf) {
      size_t ncap = !buf ? cap : (cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2);
      unsigned char *nb;
      if (buf && ncap == cap) {
        TP_FREE(buf);
        return tp__error_set(err, TP_ERR_UNSUPPORTED, "\"%.100s\" is larger than %lu bytes",
                            path, (unsigned long)SIZE_MAX);
      }
      nb = (unsigned char *)TP_REALLOC(buf, ncap);
      if (!nb) {
        TP_FREE(buf);
        return tp__error_set(err, TP_ERR_NOMEM, "no memory for %lu bytes of \"%.100s\"",
                            (unsigned long)ncap, path);
      }
      buf = nb;
      cap = ncap;
    }
    want = cap - n;
    if (want > ((size_t)1 << 30)) want = (size_t)1 << 30;
    errno = 0;
    got = rd(ctx, buf + n, want);
    if (got < 0) {
      int e = errno;
      TP_FREE(buf);
      return tp__error_set(err, TP_ERR_IO, "cannot read \"%.100s\": %s", path,
                          e ? strerror(e) : "read error");
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  if (n == 0) {
    TP_FREE(buf);
    buf = NULL;
  }
  return tp__file_bytes_set(out, buf, n, 0);
}

#if defined(_WIN32)
static long tp__fd_read(void *ctx, void *buf, size_t n) {
  return (long)_read(*(int *)ctx, buf, (unsigned)(n > 0x40000000u ? 0x40000000u : n));
}
#elif defined(TP__FILE_POSIX)
static long tp__fd_read(void *ctx, void *buf, size_t n) {
  for (;;) {
    ssize_t r = read(*(int *)ctx, buf, n);
    if (r < 0 && errno == EINTR) continue;
    return (long)r;
  }
}
#else
static long tp__stdio_read(void *ctx, void *buf, size_t n) {
  size_t r = fread(buf, 1, n, (FILE *)ctx);
  if (r == 0 && ferror((FILE *)ctx)) return -1;
  return (long)r;
}
#endif

TPDEF tp_status tp_file_bytes_open(const char *path, unsigned flags, tp_file_bytes *out,
                                   tp_error *err) {
  tp_error local;
  tp_status s;
  if (!err) err = &local;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_file_bytes_open: out is NULL");
  memset(out, 0, sizeof *out);
  if (!path || !*path)
    return tp__error_set(err, TP_ERR_INVALID, "tp_file_bytes_open: the path is NULL or empty");
  if (flags & ~TP_FILE_COPY)
    return tp__error_set(err, TP_ERR_INVALID, "tp_file_bytes_open: unknown flags 0x%x",
                        flags & ~TP_FILE_COPY);
#if defined(_WIN32)
  {
    int fd;
    __int64 len;
    errno = 0;
    fd = _open(path, _O_RDONLY | _O_BINARY);
    if (fd < 0) return tp__file_open_failed(err, path, errno);
    len = _filelengthi64(fd);
    if (len < 0) {
      _close(fd);
      return tp__error_set(err, TP_ERR_IO, "cannot size \"%.100s\"", path);
    }
    if ((unsigned long long)len > (unsigned long long)SIZE_MAX) {
      _close(fd);
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "\"%.100s\" is %llu bytes, more than this "
                          "host's SIZE_MAX", path, (unsigned long long)len);
    }
    if (len > 0 && !(flags & TP_FILE_COPY)) {
      void *h = (void *)_get_osfhandle(fd);
      void *m = h != (void *)-1 ? CreateFileMappingA(h, NULL, TP__PAGE_READONLY, 0, 0, NULL)
                                : NULL;
      void *v = m ? MapViewOfFile(m, TP__FILE_MAP_READ, 0, 0, 0) : NULL;
      if (m) CloseHandle(m);
      if (v) {
        _close(fd);
        return tp__file_bytes_set(out, v, (size_t)len, 1);
      }
    }
    s = tp__file_read_all(path, tp__fd_read, &fd, (size_t)len, out, err);
    _close(fd);
    return s;
  }
#elif defined(TP__FILE_POSIX)
  {
    int fd, e;
    struct stat sb;
    do {
      errno = 0;
      fd = open(path, O_RDONLY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return tp__file_open_failed(err, path, errno);
    if (fstat(fd, &sb) != 0) {
      e = errno;
      close(fd);
      return tp__error_set(err, TP_ERR_IO, "cannot stat \"%.100s\": %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
      close(fd);
      return tp__error_set(err, TP_ERR_IO, "\"%.100s\" is a directory, not a file", path);
    }
    if (S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > (unsigned long long)SIZE_MAX) {
      close(fd);
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "\"%.100s\" is %llu bytes, more than this "
                          "host's SIZE_MAX", path, (unsigned long long)sb.st_size);
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0 && !(flags & TP_FILE_COPY)) {
      void *v = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (v != MAP_FAILED) {
        close(fd);
        return tp__file_bytes_set(out, v, (size_t)sb.st_size, 1);
      }
    }
    s = tp__file_read_all(path, tp__fd_read, &fd,
                          S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0, out, err);
    close(fd);
    return s;
  }
#else
  {
    FILE *f;
    errno = 0;
    f = fopen(path, "rb");
    if (!f) return tp__file_open_failed(err, path, errno);
    s = tp__file_read_all(path, tp__stdio_read, f, 0, out, err);
    fclose(f);
    return s;
  }
#endif
}

TPDEF void tp_file_bytes_close(tp_file_bytes *f) {
  if (!f) return;
  if (f->release__) {
#if defined(_WIN32)
    if (f->mapped) UnmapViewOfFile(f->release__);
    else TP_FREE(f->release__);
#elif defined(TP__FILE_POSIX)
    if (f->mapped) munmap(f->release__, f->size);
    else TP_FREE(f->release__);
#else
    TP_FREE(f->release__);
#endif
  }
  memset(f, 0, sizeof *f);
}

TPDEF int tp_progress_bar_fn(void *ctx, uint64_t done, uint64_t total) {
  tp_progress_bar *b = (tp_progress_bar *)ctx;
  FILE *f;
  int pct, filled, k;
  char line[64];
  if (!b || b->drawn__ == 102) return 0;
  f = b->out ? b->out : stderr;
  pct = total ? (int)((done > total ? total : done) * 100 / total) : 100;
  if (pct + 1 == b->drawn__ && done != total) return 0;
  filled = pct * 30 / 100;
  for (k = 0; k < 30; k++) line[k] = k < filled ? '#' : '.';
  line[30] = '\0';
  fprintf(f, "\r  %s [%s] %3d%% %llu/%llu bytes", b->label ? b->label : "writing", line, pct,
          (unsigned long long)done, (unsigned long long)total);
  if (done >= total) {
    fputc('\n', f);
    b->drawn__ = 102;
  } else {
    b->drawn__ = pct + 1;
  }
  fflush(f);
  return 0;
}

/* The readers' _open_file forms: the path in front of a sentence that does not name it. */
static void tp__error_prefix_path(tp_error *e, const char *path) {
  tp_error inner = *e;
  if (inner.status == TP_OK) return;
  tp__error_reset(e);
  tp__error_set(e, inner.status, "\"%.100s\": %s", path, inner.msg);
}

/* The readers' _open_file forms: path's bytes, then parse(obj, &bytes, err), the in-memory
   open, which fills err and, to keep the bytes, moves them into its object (*bytes zeroed);
   what it leaves is released. On failure err names the path: the open's sentence, or parse's
   behind the path. */
typedef tp_status (*tp__file_parse_fn)(void *obj, tp_file_bytes *bytes, tp_error *err);
static tp_status tp__file_parse(const char *path, tp_error *err, tp__file_parse_fn parse,
                                void *obj) {
  tp_file_bytes fb;
  tp_status st = tp_file_bytes_open(path, 0, &fb, err);
  if (st != TP_OK) return st;
  st = parse(obj, &fb, err);
  tp_file_bytes_close(&fb);
  if (st != TP_OK) tp__error_prefix_path(err, path);
  return st;
}

/* A parse's move of the file's bytes into its object. */
static void tp__file_keep(tp_file_bytes *keep, tp_file_bytes *bytes) {
  *keep = *bytes;
  memset(bytes, 0, sizeof *bytes);
}
#endif /* TP_NO_STDIO */

// >>ptd ---------------------------------------------------------------------------------------

/* Segment offsets, the flatbuffer, the segment base and the data size. Cached until the next
   add. */
static tp_status tp__store_prepare(void *obj, uint64_t *total) {
  tp_store *s = (tp_store *)obj;
  uint64_t off = 0, max_align = TP__PTD_SEG_ALIGN, end;
  tp_fb_ref *refs = NULL, segs_vec, named_vec, root;
  size_t i, nrefs;
  const unsigned char *fbd;
  size_t fbn;
  tp_fb_builder *b;
  tp_status st;

  *total = s->base + s->data_size;
  if (s->prepared) return TP_OK;

  for (i = 0; i < s->n_segs; i++) {
    tp__store_seg *g = &s->segs[i];
    if (tp__align_u64(off, g->alignment, &off) || tp__add_u64(off, g->nbytes, &end))
      return tp__error_set(&s->werr, TP_ERR_OVERFLOW,
                          "segment %lu: offset overflows 64 bits", (unsigned long)i);
    g->offset = off;
    off = end;
    if (g->alignment > max_align) max_align = g->alignment;
  }
  s->data_size = off;

  if (!s->fb) {
    st = tp_fb_builder_create(&s->fb);
    if (st != TP_OK) return tp__error_set(&s->werr, st, "cannot create the flatbuffer builder");
  } else {
    tp_fb_builder_reset(s->fb);
  }
  b = s->fb;

  nrefs = s->n_segs > s->n_entries ? s->n_segs : s->n_entries;
  if (nrefs == 0) nrefs = 1;
  if (nrefs > ((size_t)-1) / sizeof(tp_fb_ref))
    return tp__error_set(&s->werr, TP_ERR_OVERFLOW, "too many entries");
  refs = (tp_fb_ref *)TP_MALLOC(nrefs * sizeof(tp_fb_ref));
  if (!refs) return tp__error_set(&s->werr, TP_ERR_NOMEM, "no memory for %lu flatbuffer refs",
                                 (unsigned long)nrefs);
  memset(refs, 0, nrefs * sizeof(tp_fb_ref)); /* (with the adds inlined, GCC cannot see that
                                                  an empty store reads none of it) */

  for (i = 0; i < s->n_segs; i++) {
    tp_fb_start_table(b);
    tp_fb_add_u64(b, TP_FT01_F_DataSegment_offset, s->segs[i].offset,
                  TP_FT01_D_DataSegment_offset);
    tp_fb_add_u64(b, TP_FT01_F_DataSegment_size, s->segs[i].nbytes, TP_FT01_D_DataSegment_size);
    refs[i] = tp_fb_end_table(b);
  }
  segs_vec = tp_fb_create_vector_refs(b, refs, s->n_segs);

  /* A layout's sizes and dim_order are always present (the loader reads them unchecked),
     empty for a 0-dim tensor. */
  for (i = 0; i < s->n_entries; i++) {
    const tp__store_entry *e = &s->entries[i];
    const tp__store_layout *l = &e->layout;
    tp_fb_ref key = tp_fb_create_string(b, e->key, e->key_len), layout = 0;
    if (l->has_layout) {
      tp_fb_ref sizes = tp_fb_create_vector(b, l->sizes, l->ndim, 4);
      tp_fb_ref order = tp_fb_create_vector(b, l->dim_order, l->ndim, 1);
      tp_fb_start_table(b);
      tp_fb_add_i8(b, TP_FT01_F_TensorLayout_scalar_type, l->scalar_type,
                   TP_FT01_D_TensorLayout_scalar_type);
      tp_fb_add_ref(b, TP_FT01_F_TensorLayout_sizes, sizes);
      tp_fb_add_ref(b, TP_FT01_F_TensorLayout_dim_order, order);
      layout = tp_fb_end_table(b);
    }
    tp_fb_start_table(b);
    tp_fb_add_ref(b, TP_FT01_F_NamedData_key, key);
    tp_fb_add_u32(b, TP_FT01_F_NamedData_segment_index, e->seg, TP_FT01_D_NamedData_segment_index);
    tp_fb_add_ref(b, TP_FT01_F_NamedData_tensor_layout, layout);
    refs[i] = tp_fb_end_table(b);
  }
  named_vec = tp_fb_create_vector_refs(b, refs, s->n_entries);
  TP_FREE(refs);

  tp_fb_start_table(b); /* segments and named_data always present */
  tp_fb_add_u32(b, TP_FT01_F_FlatTensor_version, 0, TP_FT01_D_FlatTensor_version);
  tp_fb_add_ref(b, TP_FT01_F_FlatTensor_segments, segs_vec);
  tp_fb_add_ref(b, TP_FT01_F_FlatTensor_named_data, named_vec);
  root = tp_fb_end_table(b);
  st = tp_fb_finish(b, root, TP_FT01_IDENTIFIER);
  if (st != TP_OK)
    return tp__error_set(&s->werr, st, "building the FlatTensor flatbuffer: %s", tp_fb_error(b));
  fbd = tp_fb_data(b, &fbn);
  if (!fbd || fbn < 12 || (uint64_t)fbn > 0x7FFFFFFFull - TP__PTD_FB_OFFSET)
    return tp__error_set(&s->werr, TP_ERR_OVERFLOW,
                        "the FlatTensor flatbuffer has %lu bytes (limit 2 GiB)",
                        (unsigned long)fbn);
  s->fb_size = (uint64_t)fbn;
  if (tp__align_u64(TP__PTD_FB_OFFSET + s->fb_size, max_align, &s->base) ||
      tp__add_u64(s->base, s->data_size, &end))
    return tp__error_set(&s->werr, TP_ERR_OVERFLOW,
                        "segment base overflows 64 bits (alignment %llu)",
                        (unsigned long long)max_align);
  s->prepared = 1;
  *total = end;
  return TP_OK;
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

/* Streams store segment g (its bytes, or its view compacted); exactly g->nbytes, else
   TP_ERR_INVALID. */
static tp_status tp__store_seg_write(const tp__store_seg *g, tp_sink *sink) {
  tp__tally t;
  tp_sink w;
  tp_status st;
  if (g->is_bytes) return tp_sink_write(sink, g->bytes, (size_t)g->nbytes);
  w = tp__sink_tally(&t, sink);
  st = tp_compact_write(&g->view, g->order, &w);
  return st == TP_OK && t.n != g->nbytes ? TP_ERR_INVALID : st;
}

/* The .ptd bytes (tp__store_prepare ran): the writer core's emit. */
static tp_status tp__store_emit(void *obj, tp_sink *sink) {
  tp_store *s = (tp_store *)obj;
  unsigned char head[TP__PTD_FB_OFFSET + 8];
  const unsigned char *fb;
  size_t fbn, i;
  uint64_t pos, root;
  tp_status st;

  fb = tp_fb_data(s->fb, &fbn);
  root = (uint64_t)tp__get_le32(fb) + TP__PTD_FB_OFFSET;
  memset(head, 0, sizeof head);
  tp__put_le32(head, (uint32_t)root);
  memcpy(head + 4, fb + 4, 4);
  memcpy(head + 8, "FH01", 4);
  tp__put_le32(head + 12, TP__PTD_HEADER_LEN);
  tp__put_le64(head + 16, TP__PTD_FB_OFFSET);
  tp__put_le64(head + 24, s->fb_size);
  tp__put_le64(head + 32, s->base);
  tp__put_le64(head + 40, s->data_size);
  st = tp_sink_write(sink, head, sizeof head);
  if (st == TP_OK) st = tp_sink_write(sink, fb + 8, fbn - 8);
  if (st == TP_OK) st = tp__store_zeros(sink, s->base - TP__PTD_FB_OFFSET - s->fb_size);
  pos = 0;
  for (i = 0; st == TP_OK && i < s->n_segs; i++) {
    const tp__store_seg *g = &s->segs[i];
    st = tp__store_zeros(sink, g->offset - pos);
    if (st == TP_OK) st = tp__store_seg_write(g, sink);
    if (st == TP_ERR_INVALID) /* (a sink's failure gets the writer core's sentence) */
      return tp__error_set(&s->werr, st, "segment %lu (file offset %llu): its view did not "
                           "stream the %llu bytes that were added", (unsigned long)i,
                           (unsigned long long)(s->base + g->offset),
                           (unsigned long long)g->nbytes);
    pos = g->offset + g->nbytes;
  }
  return st;
}

static tp__writer tp__store_writer(tp_store *s) {
  TP_ASSERT(s);
  {
    tp__writer w = {s, &s->err, &s->werr, &s->writing, NULL,
                    s->opts.progress, s->opts.progress_ctx, tp__store_prepare, tp__store_emit};
    return w;
  }
}

TPDEF tp_status tp_store_ptd_size(tp_store *s, uint64_t *size_out) {
  tp__writer w = tp__store_writer(s);
  return tp__writer_size(&w, "tp_store_ptd_size", size_out);
}
TPDEF tp_status tp_store_write_ptd(tp_store *s, tp_sink *sink) {
  tp__writer w = tp__store_writer(s);
  return tp__writer_write(&w, "tp_store_write_ptd", sink);
}
#ifndef TP_NO_STDIO
TPDEF tp_status tp_store_write_ptd_file(tp_store *s, const char *path) {
  tp__writer w = tp__store_writer(s);
  return tp__writer_write_file(&w, "tp_store_write_ptd_file", path);
}
TPDEF tp_status tp_store_save_ptd(tp_store *s, const char *path, uint64_t *size_out) {
  tp__writer w = tp__store_writer(s);
  return tp__writer_save(&w, "tp_store_save_ptd", path, size_out);
}
#endif

/* ---- reader ---------------------------------------------------------------------------- */

TPDEF tp_status tp_ptd_status(const tp_ptd *p) {
  TP_ASSERT(p);
  return p->err.status;
}
TPDEF const char *tp_ptd_error(const tp_ptd *p) {
  TP_ASSERT(p);
  return p->err.status != TP_OK ? p->err.msg : "";
}
TPDEF const char *tp_ptd_lookup_error(const tp_ptd *p) {
  TP_ASSERT(p);
  return p->last_lookup.status != TP_OK ? p->last_lookup.msg : "";
}

static int64_t tp__i32_bits(uint64_t v) {
  uint32_t u = (uint32_t)v;
  return u >= 0x80000000u ? (int64_t)u - (int64_t)0x100000000ll : (int64_t)u;
}

/* Entry i, checked (a failure's sentence in p->err); *klen_out (may be NULL): its key's length. */
static tp_status tp__ptd_entry(tp_ptd *p, size_t i, tp_ptd_entry *e, size_t *klen_out) {
  tp_fb_vector named, segs, sizes, order;
  tp_fb_table nd, seg, layout;
  size_t klen, d;
  uint64_t off, size, end, numel = 1, want = 0;
  unsigned char seen[TP_MAX_DIMS];
  tp_status st;

  memset(e, 0, sizeof *e);
  p->root__.r = &p->r__;
  p->r__.tables = 0;   /* the table budget guards one walk; ours visit <= 3 tables per entry */
  named = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_named_data, 4);
  segs = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_segments, 4);
  nd = tp_fb_vector_table(&named, i);
  e->key = tp_fb_string(&nd, TP_FT01_F_NamedData_key, &klen);
  e->segment_index = tp_fb_u32(&nd, TP_FT01_F_NamedData_segment_index, TP_FT01_D_NamedData_segment_index);
  st = tp_fb_reader_status(&p->r__);
  if (st != TP_OK || nd.pos == 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu]: %s", (unsigned long)i,
                        p->r__.err.status != TP_OK ? p->r__.err.msg : "absent");
  if (!e->key)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu]: no key", (unsigned long)i);
  if (strlen(e->key) != klen)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu]: key \"%.80s\" has a NUL byte inside its %lu bytes",
                        (unsigned long)i, e->key, (unsigned long)klen);
  if (klen_out) *klen_out = klen;
  if (e->segment_index >= segs.count)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): segment_index %lu, but there are %lu "
                        "segments", (unsigned long)i, e->key, (unsigned long)e->segment_index,
                        (unsigned long)segs.count);
  seg = tp_fb_vector_table(&segs, e->segment_index);
  off = tp_fb_u64(&seg, TP_FT01_F_DataSegment_offset, TP_FT01_D_DataSegment_offset);
  size = tp_fb_u64(&seg, TP_FT01_F_DataSegment_size, TP_FT01_D_DataSegment_size);
  st = tp_fb_reader_status(&p->r__);
  if (st != TP_OK || seg.pos == 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "segments[%lu]: %s",
                        (unsigned long)e->segment_index,
                        p->r__.err.status != TP_OK ? p->r__.err.msg : "absent");
  if (tp__add_u64(off, size, &end) || end > p->segment_data_size)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "segments[%lu]: offset %llu + size %llu exceeds the segment data "
                        "size %llu", (unsigned long)e->segment_index, (unsigned long long)off,
                        (unsigned long long)size, (unsigned long long)p->segment_data_size);
  /* segment_base + segment_data_size <= file size was checked by tp_ptd_open. */
  e->data = p->data + (size_t)(p->segment_base + off);
  e->nbytes = (size_t)size;

  layout = tp_fb_table_field(&nd, TP_FT01_F_NamedData_tensor_layout);
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): %s",
                        (unsigned long)i, e->key, p->r__.err.msg);
  if (layout.pos == 0) return TP_OK;

  e->has_layout = 1;
  {
    int8_t stype = tp_fb_i8(&layout, TP_FT01_F_TensorLayout_scalar_type, TP_FT01_D_TensorLayout_scalar_type);
    sizes = tp_fb_vector_field(&layout, TP_FT01_F_TensorLayout_sizes, 4);
    order = tp_fb_vector_field(&layout, TP_FT01_F_TensorLayout_dim_order, 1);
    if (tp_fb_reader_status(&p->r__) != TP_OK)
      return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\") layout: %s",
                          (unsigned long)i, e->key, p->r__.err.msg);
    /* Range first: in C++ an int outside the enum's value range (0..15 for today's codes)
       must not be converted to tp_dtype. */
    if (stype < 0 || stype > 15 || tp_dtype_size((tp_dtype)stype) == 0)
      return tp__error_set(&p->err, TP_ERR_FORMAT,
                          "named_data[%lu] (\"%.80s\"): scalar type %d is not one tensorpack "
                          "knows", (unsigned long)i, e->key, (int)stype);
    e->dtype = (tp_dtype)stype;
  }
  if (sizes.pos == 0 || order.pos == 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): layout without %s", (unsigned long)i,
                        e->key, sizes.pos == 0 ? "sizes" : "dim_order");
  if (sizes.count > TP_MAX_DIMS || order.count != sizes.count)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): %lu sizes and %lu dim_order entries "
                        "(at most %d, equal)", (unsigned long)i, e->key,
                        (unsigned long)sizes.count, (unsigned long)order.count, TP_MAX_DIMS);
  e->ndim = (int)sizes.count;
  memset(seen, 0, sizeof seen);
  for (d = 0; d < sizes.count; d++) {
    int64_t v = tp__i32_bits(tp_fb_vector_scalar(&sizes, d));
    uint64_t o = tp_fb_vector_scalar(&order, d);
    if (v < 0)
      return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): size %lld "
                          "at dim %lu", (unsigned long)i, e->key, (long long)v,
                          (unsigned long)d);
    if (o >= sizes.count || seen[o])
      return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\"): dim_order is "
                          "not a permutation of 0..%lu (entry %lu is %llu)", (unsigned long)i,
                          e->key, (unsigned long)(sizes.count - 1), (unsigned long)d,
                          (unsigned long long)o);
    seen[o] = 1;
    e->sizes[d] = v;
    e->dim_order[d] = (uint8_t)o;
    if (tp__mul_u64(numel, (uint64_t)v, &numel)) numel = UINT64_MAX;
  }
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "named_data[%lu] (\"%.80s\") layout: %s",
                        (unsigned long)i, e->key, p->r__.err.msg);
  if (tp__mul_u64(numel, (uint64_t)tp_dtype_size(e->dtype), &want) || want != size)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "named_data[%lu] (\"%.80s\"): layout needs %llu bytes, segment %lu has "
                        "%llu", (unsigned long)i, e->key,
                        (unsigned long long)(numel == UINT64_MAX ? UINT64_MAX : want),
                        (unsigned long)e->segment_index, (unsigned long long)size);
  return TP_OK;
}

TPDEF tp_status tp_ptd_open(tp_ptd *p, const void *data, size_t size) {
  const unsigned char *b = (const unsigned char *)data;
  uint64_t fb_end, seg_end, key_bytes = 0;
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
    return tp__error_set(&p->err, TP_ERR_INVALID, "NULL data with %lu bytes",
                        (unsigned long)size);
  if (size < TP__PTD_HEAD_BYTES)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "%lu bytes: shorter than the %u-byte head of a .ptd file",
                        (unsigned long)size, TP__PTD_HEAD_BYTES);
  if (memcmp(b + 4, TP_FT01_IDENTIFIER, 4) != 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "file identifier is not FT01");
  if (memcmp(b + 8, "FH01", 4) != 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "no FH01 header at byte 8");
  len = tp__get_le32(b + 12);
  if (len < TP__PTD_HEADER_LEN)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "FH01 header length %lu < %u",
                        (unsigned long)len, TP__PTD_HEADER_LEN);
  p->flatbuffer_offset = tp__get_le64(b + 16);
  p->flatbuffer_size = tp__get_le64(b + 24);
  p->segment_base = tp__get_le64(b + 32);
  p->segment_data_size = tp__get_le64(b + 40);
  if (tp__add_u64(p->flatbuffer_offset, p->flatbuffer_size, &fb_end) || fb_end > size)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "flatbuffer offset %llu + size %llu exceeds the file's %lu bytes",
                        (unsigned long long)p->flatbuffer_offset,
                        (unsigned long long)p->flatbuffer_size, (unsigned long)size);
  if (tp__add_u64(p->segment_base, p->segment_data_size, &seg_end) || seg_end > size)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "segment base %llu + data size %llu exceeds the file's %lu bytes",
                        (unsigned long long)p->segment_base,
                        (unsigned long long)p->segment_data_size, (unsigned long)size);
  if (p->segment_base < fb_end)
    return tp__error_set(&p->err, TP_ERR_FORMAT,
                        "segment base %llu lies inside the flatbuffer (which ends at %llu)",
                        (unsigned long long)p->segment_base, (unsigned long long)fb_end);

  /* The flatbuffer is bytes [0, fb_end): its root offset already counts the header. Every
     walk below is linear in the entry count (no recursion, no shared subtrees revisited more
     than a fixed number of times), so the reader's table budget is lifted; each call resets
     the count. */
  st = tp_fb_reader_init_ex(&p->r__, b, (size_t)fb_end, TP_FT01_IDENTIFIER, &p->root__, 0,
                            (size_t)-1);
  p->r__.max_visits = (size_t)-1; /* every lookup walks again, for the file's whole life */
  if (st != TP_OK)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "FlatTensor flatbuffer: %s",
                        p->r__.err.status != TP_OK ? p->r__.err.msg : tp_status_str(st));
  p->version = tp_fb_u32(&p->root__, TP_FT01_F_FlatTensor_version, TP_FT01_D_FlatTensor_version);
  segs = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_segments, 4);
  named = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_named_data, 4);
  if (tp_fb_reader_status(&p->r__) != TP_OK)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "FlatTensor: %s", p->r__.err.msg);
  if (p->version != 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "FlatTensor version %lu, expected 0",
                        (unsigned long)p->version);
  if (segs.pos == 0 || named.pos == 0)
    return tp__error_set(&p->err, TP_ERR_FORMAT, "FlatTensor without %s",
                        segs.pos == 0 ? "segments" : "named_data");
  /* The keys' budget (section 8, "Shared tables"): shared key strings would make the NUL
     checks and the hashing N x L for a file of N x 4 + L bytes. */
  for (i = 0; i < named.count; i++) {
    size_t klen;
    st = tp__ptd_entry(p, i, &e, &klen);
    if (st != TP_OK) return st;
    key_bytes += klen + 1;
    if (key_bytes > fb_end)
      return tp__error_set(&p->err, TP_ERR_FORMAT,
                          "named_data[%lu]: the keys so far total %llu bytes, more than the "
                          "%llu-byte flatbuffer holds (entries share key strings)",
                          (unsigned long)i, (unsigned long long)key_bytes,
                          (unsigned long long)fb_end);
  }
  p->count = named.count;
  return TP_OK;
}

#ifndef TP_NO_STDIO
static tp_status tp__ptd_parse(void *obj, tp_file_bytes *bytes, tp_error *err) {
  tp_ptd *p = (tp_ptd *)obj;
  tp_status st = tp_ptd_open(p, bytes->data, bytes->size); /* its sentence: p->err, err */
  (void)err;
  if (st == TP_OK) tp__file_keep(&p->file__, bytes);
  else p->data = NULL; /* the bytes it points into are released */
  return st;
}

TPDEF tp_status tp_ptd_open_file(tp_ptd *p, const char *path) {
  TP_ASSERT(p);
  memset(p, 0, sizeof *p);
  return tp__file_parse(path, &p->err, tp__ptd_parse, p);
}
#endif

TPDEF void tp_ptd_close(tp_ptd *p) {
  if (!p) return;
#ifndef TP_NO_STDIO
  tp_file_bytes_close(&p->file__);
#endif
  memset(p, 0, sizeof *p);
}

TPDEF tp_status tp_ptd_entry_at(tp_ptd *p, size_t i, tp_ptd_entry *e) {
  TP_ASSERT(p);
  if (!e) return TP_ERR_INVALID;
  memset(e, 0, sizeof *e);
  if (p->err.status != TP_OK) return p->err.status;
  memset(&p->last_lookup, 0, sizeof p->last_lookup);
  if (i >= p->count)
    return tp__error_set(&p->last_lookup, TP_ERR_INVALID, "entry %lu of %lu", (unsigned long)i,
                        (unsigned long)p->count);
  return tp__ptd_entry(p, i, e, NULL);
}

/* Key i of named_data (checked by tp_ptd_open), with its length. */
static const char *tp__ptd_key(const tp_fb_vector *named, size_t i, size_t *len) {
  tp_fb_table nd = tp_fb_vector_table(named, i);
  *len = 0;
  return tp_fb_string(&nd, TP_FT01_F_NamedData_key, len);
}

TPDEF size_t tp_ptd_index_slots(const tp_ptd *p) {
  size_t cap = 1;
  TP_ASSERT(p);
  if (p->err.status != TP_OK || p->count == 0) return 0;
  while (cap < 2 * p->count) cap *= 2;   /* count < 2^30: a vector entry takes 4 bytes */
  return cap;
}

/* tp_ptd_find's match (through tp_ptd_index's keyset, or entry by entry): named_data[i] has
   q's key. */
typedef struct tp__ptd_probe {
  const tp_fb_vector *named;
  const char *key;
  size_t len;
} tp__ptd_probe;

/* Length, then the same string (entries may share one), then the bytes. */
static int tp__ptd_key_match(const void *ctx, uint32_t i) {
  const tp__ptd_probe *q = (const tp__ptd_probe *)ctx;
  size_t klen;
  const char *k = tp__ptd_key(q->named, i, &klen);
  TP__STEP();
  return k && klen == q->len && (k == q->key || memcmp(k, q->key, q->len) == 0);
}

TPDEF tp_status tp_ptd_index(tp_ptd *p, uint32_t *slots, size_t nslots) {
  tp_fb_vector named;
  tp__keyset ks;
  tp__ptd_probe q;
  tp__hashkey hk;
  size_t need, i;
  TP_ASSERT(p);
  if (p->err.status != TP_OK) return p->err.status;
  memset(&p->last_lookup, 0, sizeof p->last_lookup); /* (a sentence sticks until reset) */
  need = tp_ptd_index_slots(p);
  if (nslots < need || (need > 0 && !slots))
    return tp__error_set(&p->last_lookup, TP_ERR_INVALID, "the index needs %lu slots, %lu given",
                        (unsigned long)need, (unsigned long)nslots);
  p->index__ = NULL;
  p->index_cap__ = 0;
  if (need == 0) return TP_OK;
  hk = tp__hash_seed(slots);
  p->index_key__ = hk;
  memset(slots, 0, need * sizeof *slots);
  p->root__.r = &p->r__;
  p->r__.tables = 0;
  named = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_named_data, 4);
  ks.slot = slots;
  ks.cap = need;
  q.named = &named;
  /* A key already in the index keeps its slot: the first entry under a key is the one found,
     and a run of duplicates costs one probe each, not the whole cluster (linear, not
     quadratic, in the entry count). */
  for (i = 0; i < p->count; i++) {
    size_t j;
    q.key = tp__ptd_key(&named, i, &q.len);
    j = tp__keyset_probe(&ks, tp__hash_keyed(&hk, q.key, q.len), tp__ptd_key_match, &q);
    if (slots[j] == 0) slots[j] = (uint32_t)(i + 1);
  }
  p->index__ = slots;
  p->index_cap__ = need;
  return TP_OK;
}

TPDEF tp_status tp_ptd_find(tp_ptd *p, const char *key, tp_ptd_entry *e) {
  tp_fb_vector named;
  tp__ptd_probe q;
  size_t i;
  TP_ASSERT(p);
  if (!e) return TP_ERR_INVALID;
  memset(e, 0, sizeof *e);
  if (p->err.status != TP_OK) return p->err.status;
  memset(&p->last_lookup, 0, sizeof p->last_lookup);
  if (!key) return tp__error_set(&p->last_lookup, TP_ERR_INVALID, "NULL key");
  p->root__.r = &p->r__;
  p->r__.tables = 0;
  named = tp_fb_vector_field(&p->root__, TP_FT01_F_FlatTensor_named_data, 4);
  q.named = &named;
  q.key = key;
  q.len = strlen(key);
  if (p->index__) {
    tp__keyset ks;
    tp__hashkey hk = p->index_key__;
    uint32_t idx1;
    ks.slot = p->index__;
    ks.cap = p->index_cap__;
    idx1 = ks.slot[tp__keyset_probe(&ks, tp__hash_keyed(&hk, key, q.len), tp__ptd_key_match, &q)];
    if (idx1) return tp__ptd_entry(p, idx1 - 1, e, NULL);
  } else {
    for (i = 0; i < p->count; i++)
      if (tp__ptd_key_match(&q, (uint32_t)i)) return tp__ptd_entry(p, i, e, NULL);
  }
  return tp__error_set(&p->last_lookup, TP_ERR_INVALID, "key \"%.120s\" is not in the .ptd", key);
}


// >>delegate ----------------------------------------------------------------------------------

TPDEF tp_status tp__delegate_frame_make(const char *magic, uint64_t fb_size, uint64_t alignment,
                                       uint64_t seg_size, tp__delegate_frame *out,
                                       uint64_t *total_out, tp_error *err) {
  uint64_t seg_off, total;
  TP_ASSERT(out && magic);
  if (err) memset(err, 0, sizeof *err);
  memset(out, 0, sizeof *out);
  if (alignment < 16 || (alignment & (alignment - 1)) != 0)
    return tp__error_set(err, TP_ERR_INVALID, "%.4s blob: alignment %llu is not a power of two >= 16",
                        magic, (unsigned long long)alignment);
  if (fb_size > (uint64_t)UINT32_MAX ||
      tp__align_u64((uint64_t)TP__DELEGATE_FLATBUFFER_OFFSET + fb_size, alignment, &seg_off) ||
      seg_off > (uint64_t)UINT32_MAX)
    return tp__error_set(err, TP_ERR_OVERFLOW,
                        "%.4s header: a flatbuffer of %llu bytes does not fit its 32-bit offsets",
                        magic, (unsigned long long)fb_size);
  if (tp__add_u64(seg_off, seg_size, &total))
    return tp__error_set(err, TP_ERR_OVERFLOW, "%.4s blob: a segment of %llu bytes overflows",
                        magic, (unsigned long long)seg_size);
  out->header_size = TP__DELEGATE_HEADER_SIZE;
  out->flatbuffer_offset = TP__DELEGATE_FLATBUFFER_OFFSET;
  out->flatbuffer_size = (uint32_t)fb_size;
  out->segment_offset = (uint32_t)seg_off;
  out->segment_size = seg_size;
  if (total_out) *total_out = total;
  return TP_OK;
}

TPDEF tp_status tp__delegate_write_head(tp_sink *sink, const char *magic,
                                       const tp__delegate_frame *f, const void *fb) {
  unsigned char hdr[TP__DELEGATE_FLATBUFFER_OFFSET];
  tp_status st;
  TP_ASSERT(sink && magic && f);
  memset(hdr, 0, sizeof hdr);
  memcpy(hdr + 4, magic, 4);
  tp__put_le16(hdr + 8, (uint16_t)f->header_size);
  tp__put_le32(hdr + 10, f->flatbuffer_offset);
  tp__put_le32(hdr + 14, f->flatbuffer_size);
  tp__put_le32(hdr + 18, f->segment_offset);
  tp__put_le64(hdr + 22, f->segment_size);
  st = tp_sink_write(sink, hdr, sizeof hdr);
  if (st == TP_OK) st = tp_sink_write(sink, fb, f->flatbuffer_size);
  if (st == TP_OK)
    st = tp_sink_zeros(sink, (size_t)((uint64_t)f->segment_offset - TP__DELEGATE_FLATBUFFER_OFFSET -
                                      f->flatbuffer_size));
  return st;
}

TPDEF tp_status tp__delegate_parse(const void *blob, size_t size, const char *magic,
                                  const char *segment_name, tp__delegate_frame *out,
                                  tp_error *err) {
  const unsigned char *h = (const unsigned char *)blob;
  uint64_t fb_end;
  if (err) memset(err, 0, sizeof *err); /* a caller's error is reset on entry */
  if (!out || !magic) return tp__error_set(err, TP_ERR_INVALID, "delegate header: NULL argument");
  memset(out, 0, sizeof *out);
  if (!segment_name) segment_name = "segment";
  if (!h || size < TP__DELEGATE_HEADER_SIZE)
    return tp__error_set(err, TP_ERR_FORMAT, "%.4s header: file is %llu bytes, the header needs 30",
                        magic, (unsigned long long)(h ? size : 0));
  out->header_size = tp__get_le16(h + 8);
  out->flatbuffer_offset = tp__get_le32(h + 10);
  out->flatbuffer_size = tp__get_le32(h + 14);
  out->segment_offset = tp__get_le32(h + 18);
  out->segment_size = tp__get_le64(h + 22);
  if (memcmp(h + 4, magic, 4) != 0)
    return tp__error_set(err, TP_ERR_FORMAT, "%.4s header: magic is not %.4s", magic, magic);
  if (out->header_size < TP__DELEGATE_HEADER_SIZE)
    return tp__error_set(err, TP_ERR_FORMAT, "%.4s header: length %u < 30", magic,
                        (unsigned)out->header_size);
  if (out->flatbuffer_offset < out->header_size)
    return tp__error_set(err, TP_ERR_FORMAT,
                        "%.4s header: flatbuffer offset %lu is inside the %u-byte header", magic,
                        (unsigned long)out->flatbuffer_offset, (unsigned)out->header_size);
  if (out->flatbuffer_size < 12)
    return tp__error_set(err, TP_ERR_FORMAT,
                        "%.4s header: flatbuffer size %lu < 12 (root offset, identifier, one "
                        "table)",
                        magic, (unsigned long)out->flatbuffer_size);
  fb_end = (uint64_t)out->flatbuffer_offset + out->flatbuffer_size;
  if (fb_end > (uint64_t)size)
    return tp__error_set(err, TP_ERR_FORMAT,
                        "%.4s header: flatbuffer [%lu, %llu) ends past the %llu-byte file", magic,
                        (unsigned long)out->flatbuffer_offset, (unsigned long long)fb_end,
                        (unsigned long long)size);
  if ((uint64_t)out->segment_offset > (uint64_t)size ||
      out->segment_size > (uint64_t)size - out->segment_offset)
    return tp__error_set(err, TP_ERR_FORMAT,
                        "%.4s header: %s at %lu of %llu bytes ends past the %llu-byte file", magic,
                        segment_name, (unsigned long)out->segment_offset,
                        (unsigned long long)out->segment_size, (unsigned long long)size);
  if ((uint64_t)out->segment_offset < fb_end)
    return tp__error_set(err, TP_ERR_FORMAT,
                        "%.4s header: %s offset %lu overlaps the flatbuffer [%lu, %llu)", magic,
                        segment_name, (unsigned long)out->segment_offset,
                        (unsigned long)out->flatbuffer_offset, (unsigned long long)fb_end);
  return TP_OK;
}

TPDEF int tp__delegate_place(uint64_t *pos, uint64_t size, uint64_t alignment,
                             uint64_t *offset_out) {
  uint64_t end;
  TP_ASSERT(pos && offset_out);
  if (tp__add_u64(*pos, size, &end) || tp__align_u64(end, alignment, &end)) return 1;
  *offset_out = *pos;
  *pos = end;
  return 0;
}


TPDEF tp_status tp__delegate_store_constant(tp_store *store, const tp_tensor *view,
                                            tp_status (*produce)(const void *ctx, tp_sink *sink),
                                            const void *ctx, uint64_t expect,
                                            const char *key_prefix, size_t alignment,
                                            const char **key_out) {
  tp_membuf mb;
  tp_sink ms;
  tp_status st;
  char key[16 + 65];
  size_t plen = key_prefix ? strlen(key_prefix) : 0;
  TP_ASSERT(store && key_out);
  *key_out = NULL;
  if (!produce && !key_prefix) {
    if (!view) return TP_ERR_INVALID;
    return tp_store_add(store, NULL, view, TP_ORDER_ROW_MAJOR, alignment, key_out);
  }
  if (plen > 16 || (!produce && !view)) return TP_ERR_INVALID;
  memset(&mb, 0, sizeof mb);
  ms = tp_sink_membuf(&mb);
  st = produce ? produce(ctx, &ms) : tp_compact_write(view, TP_ORDER_ROW_MAJOR, &ms);
  if (st == TP_OK && (uint64_t)mb.size != expect) st = TP_ERR_INVALID;
  if (st == TP_OK && key_prefix) {
    memcpy(key, key_prefix, plen);
    st = tp_sha256_hex(mb.data, mb.size, key + plen);
  }
  if (st == TP_OK)
    st = tp_store_add_bytes(store, key_prefix ? key : NULL, mb.data, mb.size, alignment, 1,
                            key_out);
  tp_membuf_free(&mb);
  return st;
}

// >>pte ---------------------------------------------------------------------------------------

#define TP__PTE_EH_LEN 32u     /* eh00 header as written: magic, u32 length, 3 x u64 */
#define TP__PTE_EH_MIN 24u     /* the loader's minimum header length (no segment_data_size) */
#define TP__PTE_HEAD_BYTES 64u /* the loader reads this many bytes first */
#define TP__PTE_SEG_ALIGN 128u /* upstream's default segment alignment */
#define TP__PTE_MAX_ALIGN ((size_t)1 << 24)
#define TP__PTE_PLAN_ALIGN 16u /* memory-planned tensors start at multiples of this */
#define TP__PTE_CONST_ALIGN 16u /* constants in the constant segment, likewise */

static const tp_pte_field_info tp__pte_field_rows[] = {
#define TP__PTE_FIELD_ROW(T, f, F, id, kind, dflt) {#T, #f, id, kind},
  TP_PTE_FIELDS(TP__PTE_FIELD_ROW)
#undef TP__PTE_FIELD_ROW
};

TPDEF const tp_pte_field_info *tp_pte_fields(size_t *count) {
  if (count) *count = sizeof tp__pte_field_rows / sizeof tp__pte_field_rows[0];
  return tp__pte_field_rows;
}

#define TP__PTE_TAG_CASE(N, tag) case tag: return #N;
TPDEF const char *tp_pte_value_kind_name(int tag) {
  switch (tag) {
    TP_PTE_KERNEL_TYPES(TP__PTE_TAG_CASE)
    default: return "?";
  }
}

TPDEF const char *tp_pte_instruction_name(int tag) {
  switch (tag) {
    TP_PTE_INSTRUCTIONS(TP__PTE_TAG_CASE)
    default: return "?";
  }
}
#undef TP__PTE_TAG_CASE

/* ---- the memory planner ---------------------------------------------------------------------
   Places n tensors in one planned buffer so that no two whose lifetimes overlap share a byte.
   A lifetime is the instructions [first, last] that use a tensor (inputs: from 0; outputs: to
   the chain's end); two tensors used by one instruction overlap. Walking the tensors in order
   of first use (ties in index order), each takes the lowest free block of the buffer that holds
   it (first fit) and gives it back, merged with its free neighbours, once every instruction
   that uses it has run; a tensor no free block holds goes at the end of the buffer (into the
   free block that ends it, if one does), growing it. Sizes are rounded up to align (a power of
   two), so every offset is a multiple of it; an empty tensor takes no bytes (offset: the end
   at its turn). Deterministic for the same input. All tensors live at once (a delegate call's
   arguments) lie back to back in index order.
   Cost: two sorts (n log n) plus, per tensor, a walk of the free blocks at its turn (at most
   the tensors live then): O(n log n) for a chain whose live set stays small, O(n^2) at worst. */
typedef struct tp__plan_item {
  uint64_t nbytes;      /* in: its bytes */
  uint32_t first, last; /* in: first and last instruction that uses it (first <= last) */
  uint64_t offset;      /* out: where it starts in the buffer */
} tp__plan_item;

typedef struct tp__plan_block {
  uint64_t off, size;
} tp__plan_block;

static int tp__plan_cmp_key(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Gives [off, off + size) back to the sorted free list blk (nb blocks), merging neighbours. */
static void tp__plan_release(tp__plan_block *blk, size_t *nb, uint64_t off, uint64_t size) {
  size_t lo = 0, hi = *nb;
  while (lo < hi) { /* the first block that starts after off */
    size_t mid = lo + (hi - lo) / 2;
    if (blk[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && blk[lo - 1].off + blk[lo - 1].size == off) {
    blk[lo - 1].size += size;
    if (lo < *nb && off + size == blk[lo].off) { /* it closes the gap between two blocks */
      blk[lo - 1].size += blk[lo].size;
      memmove(blk + lo, blk + lo + 1, (*nb - lo - 1) * sizeof *blk);
      (*nb)--;
    }
  } else if (lo < *nb && off + size == blk[lo].off) {
    blk[lo].off = off;
    blk[lo].size += size;
  } else {
    memmove(blk + lo + 1, blk + lo, (*nb - lo) * sizeof *blk);
    blk[lo].off = off;
    blk[lo].size = size;
    (*nb)++;
  }
}

/* Plans items (above) with offsets multiple of align (a power of two); *total = the buffer's
   bytes. TP_ERR_OVERFLOW when the buffer would pass limit (*failed_at = the tensor whose
   placement did), TP_ERR_NOMEM; TP_ERR_INVALID for first > last or n >= 2^32. */
static tp_status tp__plan_place(tp__plan_item *it, size_t n, uint64_t align, uint64_t limit,
                                uint64_t *total, size_t *failed_at) {
  uint64_t *by_first = NULL, *by_last, top = 0;
  tp__plan_block *blk = NULL;
  size_t i, f = 0, nb = 0;
  tp_status st = TP_OK;
  *total = 0;
  *failed_at = 0;
  if (n == 0) return TP_OK;
  if ((uint64_t)n >= ((uint64_t)1 << 32)) return TP_ERR_INVALID;
  by_first = (uint64_t *)TP_MALLOC(2 * n * sizeof *by_first);
  blk = (tp__plan_block *)TP_MALLOC((n + 1) * sizeof *blk);
  if (!by_first || !blk) {
    st = TP_ERR_NOMEM;
    goto done;
  }
  by_last = by_first + n;
  for (i = 0; i < n; i++) {
    if (it[i].first > it[i].last) {
      *failed_at = i;
      st = TP_ERR_INVALID;
      goto done;
    }
    by_first[i] = ((uint64_t)it[i].first << 32) | (uint64_t)i;
    by_last[i] = ((uint64_t)it[i].last << 32) | (uint64_t)i;
  }
  qsort(by_first, n, sizeof *by_first, tp__plan_cmp_key);
  qsort(by_last, n, sizeof *by_last, tp__plan_cmp_key);
  for (i = 0; i < n; i++) {
    tp__plan_item *t = &it[by_first[i] & 0xFFFFFFFFu];
    uint64_t size, end;
    size_t b;
    /* every tensor whose last use is before this one's first gives its bytes back */
    while (f < n && (by_last[f] >> 32) < t->first) {
      const tp__plan_item *d = &it[by_last[f] & 0xFFFFFFFFu];
      uint64_t dsize;
      if (d->nbytes > 0 && !tp__align_u64(d->nbytes, align, &dsize)) /* placed: no overflow */
        tp__plan_release(blk, &nb, d->offset, dsize);
      f++;
    }
    if (tp__align_u64(t->nbytes, align, &size)) {
      *failed_at = (size_t)(by_first[i] & 0xFFFFFFFFu);
      st = TP_ERR_OVERFLOW;
      goto done;
    }
    if (size == 0) {
      t->offset = top;
      continue;
    }
    for (b = 0; b < nb && blk[b].size < size; b++) {
    }
    if (b < nb) { /* first fit */
      t->offset = blk[b].off;
      blk[b].off += size;
      blk[b].size -= size;
      if (blk[b].size == 0) {
        memmove(blk + b, blk + b + 1, (nb - b - 1) * sizeof *blk);
        nb--;
      }
      continue;
    }
    t->offset = top;
    if (nb > 0 && blk[nb - 1].off + blk[nb - 1].size == top) t->offset = blk[--nb].off;
    if (tp__add_u64(t->offset, size, &end) || end > limit) {
      *failed_at = (size_t)(by_first[i] & 0xFFFFFFFFu);
      st = TP_ERR_OVERFLOW;
      goto done;
    }
    top = end;
  }
  *total = top;
done:
  TP_FREE(by_first);
  TP_FREE(blk);
  return st;
}

/* The portable kernels' operators (TP_PTE_OPS), parsed on demand into the caller's
   descriptor: the table stays one string per op and no state is kept. */
typedef struct tp__pte_opdef {
  const char *name, *overload, *args, *rets;
} tp__pte_opdef;

#define TP__PTE_OPDEF(name, overload, args, rets) {name, overload, args, rets},
static const tp__pte_opdef tp__pte_ops[] = {TP_PTE_OPS(TP__PTE_OPDEF)};
#undef TP__PTE_OPDEF
#define TP__PTE_NOPS (sizeof tp__pte_ops / sizeof tp__pte_ops[0])

TPDEF size_t tp_pte_op_count(void) { return TP__PTE_NOPS; }

TPDEF const char *tp_pte_arg_kind_name(tp_pte_arg_kind kind) {
  switch (kind) {
#define TP__PTE_ARG_NAME(K, code, spelling) case TP_PTE_ARG_##K: return spelling;
    TP_PTE_ARG_KINDS(TP__PTE_ARG_NAME)
#undef TP__PTE_ARG_NAME
    default: return "?";
  }
}

/* strcmp of the query key q against entry e's key "name.overload" ("name" for an empty
   overload), without building the latter. */
static int tp__pte_op_cmp(const char *q, const tp__pte_opdef *e) {
  const char *n = e->name;
  for (; *n; n++, q++)
    if (*q != *n) return (int)(unsigned char)*q - (int)(unsigned char)*n;
  if (!e->overload[0]) return *q ? 1 : 0;
  if (*q != '.') return (int)(unsigned char)*q - (int)'.';
  return strcmp(q + 1, e->overload);
}

TPDEF int tp_pte_op_find(const char *name, const char *overload) {
  char key[256];
  size_t lo = 0, hi = TP__PTE_NOPS;
  if (!name) return -1;
  if (!overload) overload = "";
  if (strlen(name) + strlen(overload) + 2 > sizeof key) return -1; /* longer than any key */
  tp__format(key, sizeof key, "%s%s%s", name, overload[0] ? "." : "", overload);
  while (lo < hi) { /* the table is sorted by key (strcmp order) */
    size_t mid = lo + (hi - lo) / 2;
    int c = tp__pte_op_cmp(key, &tp__pte_ops[mid]);
    if (c == 0) return (int)mid;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

static tp_pte_arg_kind tp__pte_arg_kind_of(char code) {
  switch (code) {
#define TP__PTE_ARG_CODE(K, code, spelling) case code: return TP_PTE_ARG_##K;
    TP_PTE_ARG_KINDS(TP__PTE_ARG_CODE)
#undef TP__PTE_ARG_CODE
    default: return TP_PTE_ARG_NONE;
  }
}

/* The next of the space-separated argument names at *p (moved past it) as an index of op->args:
   op->num_args when it names none, -1 at the end of the list. */
static int tp__pte_next_arg(const tp_pte_op *op, const char **p) {
  size_t n = 0;
  uint32_t i;
  while (**p == ' ') (*p)++;
  if (!**p) return -1;
  while ((*p)[n] && (*p)[n] != ' ') n++;
  for (i = 0; i < op->num_args; i++)
    if (strlen(op->args[i].name) == n && memcmp(op->args[i].name, *p, n) == 0) break;
  *p += n;
  return (int)i;
}

/* Parses entry e (the TP_PTE_OPS grammar) into *op; 0 when the entry does not follow it (the
   test parses every entry, so only an edited table gets here). */
static int tp__pte_op_parse(const tp__pte_opdef *e, tp_pte_op *op) {
  const char *p = e->args;
  int kw = 0, i;
  memset(op, 0, sizeof *op);
  op->name = e->name;
  op->overload = e->overload;
  for (;;) {
    tp_pte_op_arg *a;
    size_t n = 0;
    while (*p == ' ') p++;
    if (!*p) break;
    if (*p == '*') {
      kw = 1;
      p++;
      continue;
    }
    if (op->num_args == TP_PTE_OP_MAX_ARGS) return 0;
    a = &op->args[op->num_args++];
    while (*p && *p != ':' && *p != ' ') {
      if (n + 1 == sizeof a->name) return 0;
      a->name[n++] = *p++;
    }
    if (n == 0 || *p != ':') return 0;
    a->kind = tp__pte_arg_kind_of(*++p);
    if (a->kind == TP_PTE_ARG_NONE) return 0;
    p++;
    a->kwarg_only = (unsigned char)kw;
    if (*p == '?') a->optional = 1, p++;
    if (p[0] == '[' && p[1] == ']') {
      a->is_list = 1;
      a->elem_optional = a->optional;
      a->optional = 0;
      p += 2;
      if (*p == '?') a->optional = 1, p++;
    }
    if (*p == '!') a->is_out = 1, p++;
    if (*p && *p != ' ') return 0;
  }
  for (p = e->rets; (i = tp__pte_next_arg(op, &p)) >= 0;) {
    if (i == (int)op->num_args || !op->args[i].is_out || op->num_returns == TP_PTE_OP_MAX_RETURNS)
      return 0;
    op->returns[op->num_returns++] = (uint32_t)i;
  }
  return 1;
}

TPDEF tp_status tp_pte_op_at(size_t i, tp_pte_op *out) {
  tp_pte_op op;
  if (!out || i >= TP__PTE_NOPS) return TP_ERR_INVALID;
  if (!tp__pte_op_parse(&tp__pte_ops[i], &op)) return TP_ERR_FORMAT;
  *out = op;
  return TP_OK;
}

TPDEF tp_status tp_pte_op_lookup(const char *name, const char *overload, tp_pte_op *out) {
  int i;
  if (!out) return TP_ERR_INVALID;
  i = tp_pte_op_find(name, overload);
  return i < 0 ? TP_ERR_UNSUPPORTED : tp_pte_op_at((size_t)i, out);
}

/* Element size of a ScalarType of scalar_type.fbs; 0 = not one. */
static size_t tp__pte_scalar_size(int st) {
  static const unsigned char sz[30] = {1, 1, 2, 4, 8, 2, 4, 8, 0, 0, 0, 1, 1, 1, 4,
                                       2, 1, 1, 0, 0, 0, 0, 2, 1, 1, 1, 1, 2, 4, 8};
  return (st >= 0 && st < 30) ? sz[st] : 0;
}

typedef struct tp__pte_spec {
  char *key;
  unsigned char *value;
  size_t nbytes;
} tp__pte_spec;

/* A method as the writer holds it: ExecutionPlan's values, instructions (one chain), operators
   and delegates, all copied at add. Value and instruction indices are int32 in the schema. */
typedef struct tp__pte_val {
  int kind;              /* TP_PTE_V_* */
  tp_pte_tensor t;       /* Tensor: dtype, sizes, dim_order (role unused) */
  uint64_t nbytes;       /* Tensor: numel x element size */
  uint64_t offset;       /* Tensor: its place in planned buffer 1 */
  int64_t i;             /* Int; Bool (0 / 1) */
  double d;              /* Double */
  char *s;               /* String: a NUL-terminated copy */
  tp_tensor view;        /* constant Tensor (is_const): where its bytes come from */
  int is_const;
  uint32_t cidx;         /* constant Tensor: its buffer among the method's constants, 1 .. */
  uint64_t coff;         /* constant Tensor: its place in the constant segment (prepare) */
  int64_t *ilist;        /* IntList: indices of Int values (the schema's int64) */
  int32_t *items;        /* TensorList: indices of Tensor values */
  size_t nitems;         /* entries of ilist / items */
} tp__pte_val;

typedef struct tp__pte_ins {
  int kind;              /* TP_PTE_I_KernelCall or TP_PTE_I_DelegateCall */
  uint32_t index;        /* the operator's or the delegate's index in the method */
  int32_t *args;         /* value indices */
  size_t nargs;
} tp__pte_ins;

typedef struct tp__pte_op {
  char *name, *overload;
} tp__pte_op;

typedef struct tp__pte_del {
  char *backend;
  tp__pte_spec *specs;
  size_t nspecs;
  uint64_t blob_size;
  tp_status (*produce)(void *ctx, tp_sink *sink);
  void *ctx;
  uint64_t seg_offset;   /* from the segment base; set by tp__pte_prepare */
} tp__pte_del;

typedef struct tp__pte_meth {
  char *name;
  tp__pte_val *vals;
  size_t nvals;
  tp__pte_ins *ins;
  size_t nins;
  tp__pte_op *ops;
  size_t nops;
  tp__pte_del *dels;
  size_t ndels;
  int32_t *inputs, *outputs; /* value indices, plan inputs / outputs in order */
  size_t nin, nout;
  size_t nconsts;        /* constant Tensor values (their cidx 1 .. nconsts) */
  uint64_t planned;      /* buffer 1's bytes (non_const_buffer_sizes[1]) */
} tp__pte_meth;

struct tp_pte {
  int writing;      /* > 0 while the program is written */
  tp_store *embed;
  int omit_empty_named_data; /* options.omit_empty_named_data */
  uint64_t alignment;
  tp__pte_meth *meths;
  size_t n, cap;
  size_t ndels;          /* delegates of all methods: segments 1 .. ndels, in method order */
  tp_pte_graph *open;    /* the graph being built (tp_pte_graph_create), or NULL */
  uint64_t const_size;   /* the constant segment's bytes (segment 0; prepare) */
  tp_error err;          /* latched building failure */
  tp_error werr;         /* the last size / write call's failure (reset by the next) */
  tp_fb_builder *fb;
  size_t nconsts;        /* constant tensors of all methods (prepare) */
  uint64_t *store_off;   /* offsets of the embedded store's segments */
  size_t store_off_cap;
  uint64_t program_size, base, data_size, max_align;
  tp_progress_fn progress;   /* options.progress / progress_ctx */
  void *progress_ctx;
  int other_runtime;         /* options.other_runtime */
};

static char *tp__pte_strdup(const char *s) {
  size_t n = strlen(s);
  char *d = (char *)TP_MALLOC(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

static void tp__pte_meth_free(tp__pte_meth *m) {
  size_t i, k;
  TP_FREE(m->name);
  for (i = 0; i < m->nvals; i++) {
    TP_FREE(m->vals[i].s);
    TP_FREE(m->vals[i].ilist);
    TP_FREE(m->vals[i].items);
  }
  TP_FREE(m->vals);
  for (i = 0; i < m->nins; i++) TP_FREE(m->ins[i].args);
  TP_FREE(m->ins);
  for (i = 0; i < m->nops; i++) {
    TP_FREE(m->ops[i].name);
    TP_FREE(m->ops[i].overload);
  }
  TP_FREE(m->ops);
  for (i = 0; i < m->ndels; i++) {
    tp__pte_del *d = &m->dels[i];
    TP_FREE(d->backend);
    for (k = 0; k < d->nspecs; k++) {
      TP_FREE(d->specs[k].key);
      TP_FREE(d->specs[k].value);
    }
    TP_FREE(d->specs);
  }
  TP_FREE(m->dels);
  TP_FREE(m->inputs);
  TP_FREE(m->outputs);
  memset(m, 0, sizeof *m);
}

TPDEF tp_status tp_pte_create(const tp_pte_options *opts, tp_pte **out) {
  tp_pte *p;
  size_t align = TP__PTE_SEG_ALIGN;
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  if (opts && opts->alignment) {
    align = opts->alignment;
    if ((align & (align - 1)) != 0 || align > TP__PTE_MAX_ALIGN) return TP_ERR_INVALID;
  }
  p = (tp_pte *)TP_MALLOC(sizeof *p);
  if (!p) return TP_ERR_NOMEM;
  memset(p, 0, sizeof *p);
  p->embed = opts ? opts->embed : NULL;
  p->omit_empty_named_data = opts ? opts->omit_empty_named_data : 0;
  p->progress = opts ? opts->progress : NULL;
  p->progress_ctx = opts ? opts->progress_ctx : NULL;
  p->other_runtime = opts ? opts->other_runtime : 0;
  p->alignment = (uint64_t)align;
  *out = p;
  return TP_OK;
}

TPDEF void tp_pte_destroy(tp_pte *p) {
  size_t i;
  if (!p) return;
  tp_pte_graph_destroy(p->open);
  for (i = 0; i < p->n; i++) tp__pte_meth_free(&p->meths[i]);
  TP_FREE(p->meths);
  TP_FREE(p->store_off);
  if (p->fb) tp_fb_builder_destroy(p->fb);
  TP_FREE(p);
}

TPDEF const char *tp_pte_error(const tp_pte *p) {
  TP_ASSERT(p);
  return tp__writer_error(&p->err, &p->werr);
}

TPDEF tp_status tp_pte_status(const tp_pte *p) {
  TP_ASSERT(p);
  return tp__writer_status(&p->err, &p->werr);
}

TPDEF size_t tp_pte_method_count(const tp_pte *p) {
  TP_ASSERT(p);
  return p->n;
}

TPDEF tp_status tp__pte_fail(tp_pte *p, tp_status s, const char *fmt, ...) {
  va_list ap;
  TP_ASSERT(p);
  if (p->err.status != TP_OK || s == TP_OK) return p->err.status;
  p->err.status = s;
  if (!fmt) fmt = tp_status_str(s);
  va_start(ap, fmt);
  tp__vformat(p->err.msg, sizeof p->err.msg, fmt, ap);
  va_end(ap);
  return s;
}

/* Tensor k of method `name` checked in place (dims, dtype, dim_order defaulted), failures into
   *err naming it as argument k (is_arg: tp_pte_add_method's) or value k (a graph's, where
   role 0, an intermediate, is allowed); *nbytes_out its bytes (< 2^62). */
static tp_status tp__pte_check_tensor(tp_error *err, const char *name, int is_arg, size_t k,
                                      tp_pte_tensor *t, uint64_t *nbytes_out) {
  char at[128];
  int d, all_zero = 1;
  unsigned char seen[TP_MAX_DIMS];
  uint64_t numel = 1, nbytes;
  tp__format(at, sizeof at, "method \"%.80s\" %s %lu", name, is_arg ? "argument" : "value",
             (unsigned long)k);
  if ((is_arg && t->role == 0) || (t->role & ~(TP_PTE_INPUT | TP_PTE_OUTPUT)) != 0)
    return tp__error_set(err, TP_ERR_INVALID, "%s: role %u is not TP_PTE_INPUT and/or "
                         "TP_PTE_OUTPUT%s", at, t->role, is_arg ? "" : " (or 0, an intermediate)");
  if ((int)t->dtype < 0 || (int)t->dtype > 15 || tp_dtype_size(t->dtype) == 0)
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "%s: dtype %d has no ScalarType tensorpack "
                         "writes", at, (int)t->dtype);
  if (t->ndim < 0 || t->ndim > TP_MAX_DIMS)
    return tp__error_set(err, TP_ERR_INVALID, "%s: %d dims (0 .. %d)", at, t->ndim, TP_MAX_DIMS);
  for (d = 0; d < t->ndim; d++) {
    if (t->sizes[d] < 0)
      return tp__error_set(err, TP_ERR_INVALID, "%s: size %lld at dim %d", at,
                           (long long)t->sizes[d], d);
    if (t->sizes[d] > INT32_MAX)
      return tp__error_set(err, TP_ERR_UNSUPPORTED, "%s: dim %d has size %lld; a program holds "
                           "int32 sizes", at, d, (long long)t->sizes[d]);
    if (t->dim_order[d] != 0) all_zero = 0;
    if (tp__mul_u64(numel, (uint64_t)t->sizes[d], &numel))
      return tp__error_set(err, TP_ERR_OVERFLOW, "%s: element count overflows", at);
  }
  if (tp__mul_u64(numel, (uint64_t)tp_dtype_size(t->dtype), &nbytes) ||
      nbytes > ((uint64_t)1 << 62))
    return tp__error_set(err, TP_ERR_OVERFLOW, "%s: byte count overflows", at);
  *nbytes_out = nbytes;
  for (d = t->ndim; d < TP_MAX_DIMS; d++) t->dim_order[d] = 0;
  if (all_zero) {
    for (d = 0; d < t->ndim; d++) t->dim_order[d] = (uint8_t)d;
    return TP_OK;
  }
  memset(seen, 0, sizeof seen);
  for (d = 0; d < t->ndim; d++) {
    unsigned o = t->dim_order[d];
    if (o >= (unsigned)t->ndim || seen[o])
      return tp__error_set(err, TP_ERR_INVALID, "%s: dim_order is not a permutation of 0..%d "
                           "(entry %d is %u)", at, t->ndim - 1, d, o);
    seen[o] = 1;
  }
  return TP_OK;
}

/* The copy of a delegate's specs (tp_pte_add_method's and tp_pte_call_delegate's). */
static tp_status tp__pte_copy_specs(tp__pte_del *d, const tp_pte_compile_spec *specs, size_t n) {
  size_t k;
  if (n == 0) return TP_OK;
  d->specs = (tp__pte_spec *)TP_MALLOC(n * sizeof *d->specs);
  if (!d->specs) return TP_ERR_NOMEM;
  memset(d->specs, 0, n * sizeof *d->specs);
  for (k = 0; k < n; k++) {
    tp__pte_spec *sp = &d->specs[k];
    d->nspecs = k + 1;
    sp->key = tp__pte_strdup(specs[k].key);
    sp->nbytes = specs[k].nbytes;
    sp->value = (unsigned char *)TP_MALLOC(sp->nbytes ? sp->nbytes : 1);
    if (!sp->key || !sp->value) return TP_ERR_NOMEM;
    if (sp->nbytes) memcpy(sp->value, specs[k].value, sp->nbytes);
  }
  return TP_OK;
}

/* A delegate as tp_pte_add_method and tp_pte_call_delegate take it, checked: failures into err
   as "<at>: ..." (at names the method, or the method and the instruction). */
static tp_status tp__pte_check_delegate(tp_error *err, const char *at, const char *backend_id,
                                        tp_status (*produce)(void *, tp_sink *),
                                        uint64_t blob_size, const tp_pte_compile_spec *specs,
                                        size_t n_specs) {
  size_t k;
  if (!backend_id || !*backend_id)
    return tp__error_set(err, TP_ERR_INVALID, "%s: the backend id is empty", at);
  if (!produce) return tp__error_set(err, TP_ERR_INVALID, "%s: NULL blob producer", at);
  if (blob_size == 0) return tp__error_set(err, TP_ERR_INVALID, "%s: blob size 0", at);
  if (n_specs > 0 && !specs)
    return tp__error_set(err, TP_ERR_INVALID, "%s: NULL specs with %lu compile specs", at,
                        (unsigned long)n_specs);
  for (k = 0; k < n_specs; k++) {
    if (!specs[k].key || !*specs[k].key)
      return tp__error_set(err, TP_ERR_INVALID, "%s: compile spec %lu has an empty key", at,
                          (unsigned long)k);
    if (!specs[k].value && specs[k].nbytes > 0)
      return tp__error_set(err, TP_ERR_INVALID, "%s: compile spec \"%.80s\" has NULL bytes "
                          "with %lu bytes", at, specs[k].key, (unsigned long)specs[k].nbytes);
  }
  return TP_OK;
}

/* ---- graphs: methods of kernel calls and delegate calls ---- */

struct tp_pte_graph {
  tp_pte *p;
  tp__pte_meth m;        /* the method as it grows; moved into p at finish */
  size_t vcap, icap, ocap, dcap, incap, outcap;
  tp_error err;          /* latched building failure */
};

/* A new empty graph of method `name` (copied) in p, not yet open; NULL: no memory. */
static tp_pte_graph *tp__pte_graph_new(tp_pte *p, const char *name) {
  tp_pte_graph *g = (tp_pte_graph *)TP_MALLOC(sizeof *g);
  if (!g) return NULL;
  memset(g, 0, sizeof *g);
  g->p = p;
  g->m.name = tp__pte_strdup(name);
  if (g->m.name) return g;
  TP_FREE(g);
  return NULL;
}

TPDEF tp_status tp_pte_graph_create(tp_pte *p, const char *name, tp_pte_graph **out) {
  tp_pte_graph *g;
  size_t i;
  TP_ASSERT(p);
  if (!out) return TP_ERR_INVALID;
  *out = NULL;
  if (p->err.status != TP_OK) return p->err.status;
  if (p->writing || p->open || !name || !*name || p->n >= TP_PTE_MAX_METHODS)
    return TP_ERR_INVALID;
  for (i = 0; i < p->n; i++)
    if (strcmp(p->meths[i].name, name) == 0) return TP_ERR_INVALID;
  g = tp__pte_graph_new(p, name);
  if (!g) return TP_ERR_NOMEM;
  p->open = g;
  *out = g;
  return TP_OK;
}

TPDEF tp_status tp_pte_graph_status(const tp_pte_graph *g) {
  TP_ASSERT(g);
  return g->err.status;
}

TPDEF const char *tp_pte_graph_error(const tp_pte_graph *g) {
  TP_ASSERT(g);
  return g->err.msg;
}

TPDEF tp_status tp_pte_graph_tensor(const tp_pte_graph *g, uint32_t id, tp_pte_tensor *out) {
  TP_ASSERT(g);
  if (!out || id >= g->m.nvals || g->m.vals[id].kind != TP_PTE_V_Tensor) return TP_ERR_INVALID;
  *out = g->m.vals[id].t;
  return TP_OK;
}

/* Latches failure s in g with the sentence "method \"NAME\": " + fmt (unless g holds one) and
   returns g's first failure's status. s == TP_OK is a no-op. */
static tp_status tp__pte_graph_fail(tp_pte_graph *g, tp_status s, const char *fmt, ...)
    TP__PRINTF(3, 4);
static tp_status tp__pte_graph_fail(tp_pte_graph *g, tp_status s, const char *fmt, ...) {
  va_list ap;
  size_t n;
  TP_ASSERT(g);
  if (g->err.status != TP_OK || s == TP_OK) return g->err.status;
  g->err.status = s;
  tp__format(g->err.msg, sizeof g->err.msg, "method \"%.80s\": ", g->m.name);
  n = strlen(g->err.msg);
  va_start(ap, fmt);
  tp__vformat(g->err.msg + n, sizeof g->err.msg - n, fmt ? fmt : tp_status_str(s), ap);
  va_end(ap);
  return s;
}

TPDEF void tp_pte_graph_destroy(tp_pte_graph *g) {
  if (!g) return;
  if (g->p && g->p->open == g) g->p->open = NULL;
  tp__pte_meth_free(&g->m);
  TP_FREE(g);
}

/* Latches s in g with the sentence "method \"NAME\" value N: what", N the value being defined. */
static tp_status tp__pte_value_fail(tp_pte_graph *g, tp_status s, const char *what) {
  return tp__error_set(&g->err, s, "method \"%.80s\" value %lu: %s", g->m.name,
                      (unsigned long)g->m.nvals, what);
}

/* A new value slot of kind `kind` (zeroed), or the latched failure. */
static tp_status tp__pte_graph_value(tp_pte_graph *g, int kind, tp__pte_val **v, uint32_t *id) {
  tp_status st;
  if (id) *id = UINT32_MAX;
  st = tp__writer_busy(&g->err, g->p->writing, "a tp_pte_define_* call", "program");
  if (st != TP_OK) return st;
  if (!id)
    return tp__pte_value_fail(g, TP_ERR_INVALID, "NULL id_out");
  if (g->m.nvals >= TP_PTE_MAX_VALUES)
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "more than %d values", TP_PTE_MAX_VALUES);
  st = tp__array_reserve((void **)&g->m.vals, &g->vcap, g->m.nvals + 1, sizeof *g->m.vals);
  if (st != TP_OK)
    return tp__pte_value_fail(g, st, "no memory");
  *v = &g->m.vals[g->m.nvals];
  memset(*v, 0, sizeof **v);
  (*v)->kind = kind;
  return TP_OK;
}

/* The slot tp__pte_graph_value gave becomes value id. */
static tp_status tp__pte_graph_keep(tp_pte_graph *g, uint32_t *id) {
  *id = (uint32_t)g->m.nvals++;
  return TP_OK;
}

/* Appends value id to the plan's inputs (is_out 0) or outputs (1). */
static tp_status tp__pte_graph_io(tp_pte_graph *g, int is_out, uint32_t id) {
  int32_t **a = is_out ? &g->m.outputs : &g->m.inputs;
  size_t *n = is_out ? &g->m.nout : &g->m.nin, *cap = is_out ? &g->outcap : &g->incap;
  tp_status st = tp__array_reserve((void **)a, cap, *n + 1, sizeof **a);
  if (st != TP_OK)
    return tp__pte_value_fail(g, st, "no memory");
  (*a)[(*n)++] = (int32_t)id;
  return TP_OK;
}

TPDEF tp_status tp_pte_define_tensor(tp_pte_graph *g, const tp_pte_tensor *t, uint32_t *id_out) {
  tp__pte_val *v;
  tp_status st;
  TP_ASSERT(g);
  st = tp__pte_graph_value(g, TP_PTE_V_Tensor, &v, id_out);
  if (st != TP_OK) return st;
  if (!t)
    return tp__pte_value_fail(g, TP_ERR_INVALID, "NULL tensor");
  v->t = *t;
  st = tp__pte_check_tensor(&g->err, g->m.name, 0, g->m.nvals, &v->t, &v->nbytes);
  if (st != TP_OK) return st;
  if ((t->role & TP_PTE_INPUT) && tp__pte_graph_io(g, 0, (uint32_t)g->m.nvals) != TP_OK)
    return g->err.status;
  if ((t->role & TP_PTE_OUTPUT) && tp__pte_graph_io(g, 1, (uint32_t)g->m.nvals) != TP_OK)
    return g->err.status;
  return tp__pte_graph_keep(g, id_out);
}

TPDEF tp_status tp_pte_define_constant(tp_pte_graph *g, const tp_tensor *view, uint32_t *id_out) {
  tp__pte_val *v;
  int d;
  tp_status st;
  TP_ASSERT(g);
  st = tp__pte_graph_value(g, TP_PTE_V_Tensor, &v, id_out);
  if (st != TP_OK) return st;
  if (!view)
    return tp__pte_value_fail(g, TP_ERR_INVALID, "NULL constant view");
  if (view->ndim < 0 || view->ndim > TP_MAX_DIMS)
    return tp__error_set(&g->err, TP_ERR_INVALID, "method \"%.80s\" value %lu: a constant of "
                        "%d dims (0 .. %d)", g->m.name, (unsigned long)g->m.nvals, view->ndim,
                        TP_MAX_DIMS);
  v->t.dtype = view->dtype;
  v->t.ndim = view->ndim;
  for (d = 0; d < view->ndim; d++) { /* tp__pte_check_tensor refuses sizes above INT32_MAX */
    v->t.sizes[d] = view->sizes[d];
    v->t.dim_order[d] = (uint8_t)d;
  }
  st = tp__pte_check_tensor(&g->err, g->m.name, 0, g->m.nvals, &v->t, &v->nbytes);
  if (st != TP_OK) return st;
  v->view = *view;
  v->is_const = 1;
  v->cidx = (uint32_t)++g->m.nconsts;
  return tp__pte_graph_keep(g, id_out);
}

/* A scalar value of kind (Int, Bool: i; Double: d; Null: neither). */
static tp_status tp__pte_graph_scalar(tp_pte_graph *g, int kind, int64_t i, double d,
                                      uint32_t *id_out) {
  tp__pte_val *v;
  tp_status st;
  TP_ASSERT(g);
  st = tp__pte_graph_value(g, kind, &v, id_out);
  if (st != TP_OK) return st;
  v->i = i;
  v->d = d;
  return tp__pte_graph_keep(g, id_out);
}

TPDEF tp_status tp_pte_define_int(tp_pte_graph *g, int64_t x, uint32_t *id_out) {
  return tp__pte_graph_scalar(g, TP_PTE_V_Int, x, 0.0, id_out);
}

TPDEF tp_status tp_pte_define_double(tp_pte_graph *g, double x, uint32_t *id_out) {
  return tp__pte_graph_scalar(g, TP_PTE_V_Double, 0, x, id_out);
}

TPDEF tp_status tp_pte_define_bool(tp_pte_graph *g, int x, uint32_t *id_out) {
  return tp__pte_graph_scalar(g, TP_PTE_V_Bool, x != 0, 0.0, id_out);
}

TPDEF tp_status tp_pte_define_null(tp_pte_graph *g, uint32_t *id_out) {
  return tp__pte_graph_scalar(g, TP_PTE_V_Null, 0, 0.0, id_out);
}

TPDEF tp_status tp_pte_define_string(tp_pte_graph *g, const char *str, uint32_t *id_out) {
  tp__pte_val *v;
  tp_status st;
  TP_ASSERT(g);
  st = tp__pte_graph_value(g, TP_PTE_V_String, &v, id_out);
  if (st != TP_OK) return st;
  if (!str)
    return tp__pte_value_fail(g, TP_ERR_INVALID, "NULL string");
  v->s = tp__pte_strdup(str);
  if (!v->s)
    return tp__pte_value_fail(g, TP_ERR_NOMEM, "no memory");
  return tp__pte_graph_keep(g, id_out);
}

/* "a Tensor", "an Int": the article of a value kind's name. */
static const char *tp__pte_a(int kind) {
  return strchr("AEIOU", tp_pte_value_kind_name(kind)[0]) ? "an" : "a";
}

/* Refuses ids [0, n) that are not values of g (or, with tensors 1, not Tensor values; with
   tensors 2, neither Tensor nor Null values). */
static tp_status tp__pte_graph_ids(tp_pte_graph *g, const char *what, const uint32_t *ids,
                                   size_t n, int tensors) {
  size_t k;
  if (n > 0 && !ids)
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: NULL ids with %lu entries", what,
                              (unsigned long)n);
  if (n > TP_PTE_MAX_ARGS)
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: %lu entries (at most %d)", what,
                              (unsigned long)n, TP_PTE_MAX_ARGS);
  for (k = 0; k < n; k++) {
    if (ids[k] >= g->m.nvals)
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: entry %lu is id %lu, which is not a value "
                                "of the graph (it has %lu)", what, (unsigned long)k,
                                (unsigned long)ids[k], (unsigned long)g->m.nvals);
    if (tensors && g->m.vals[ids[k]].kind != TP_PTE_V_Tensor &&
        (tensors == 1 || g->m.vals[ids[k]].kind != TP_PTE_V_Null))
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: entry %lu is value %lu, %s %s, not a "
                                "Tensor%s", what, (unsigned long)k, (unsigned long)ids[k],
                                tp__pte_a(g->m.vals[ids[k]].kind),
                                tp_pte_value_kind_name(g->m.vals[ids[k]].kind),
                                tensors == 1 ? "" : " or a Null");
  }
  return TP_OK;
}

TPDEF tp_status tp_pte_define_int_list(tp_pte_graph *g, const int64_t *x, size_t n,
                                       uint32_t *id_out) {
  tp__pte_val *v;
  size_t k;
  uint32_t id;
  int64_t *items;
  tp_status st;
  TP_ASSERT(g);
  if (id_out) *id_out = UINT32_MAX;
  if (g->err.status != TP_OK) return g->err.status;
  if (n > 0 && !x)
    return tp__error_set(&g->err, TP_ERR_INVALID, "method \"%.80s\" value %lu: NULL int list "
                        "with %lu entries", g->m.name, (unsigned long)g->m.nvals,
                        (unsigned long)n);
  if (n > TP_PTE_MAX_ARGS)
    return tp__error_set(&g->err, TP_ERR_INVALID, "method \"%.80s\" value %lu: an int list of "
                        "%lu entries (at most %d)", g->m.name, (unsigned long)g->m.nvals,
                        (unsigned long)n, TP_PTE_MAX_ARGS);
  items = (int64_t *)TP_MALLOC((n ? n : 1) * sizeof *items);
  if (!items)
    return tp__pte_value_fail(g, TP_ERR_NOMEM, "no memory");
  for (k = 0; k < n; k++) {
    st = tp_pte_define_int(g, x[k], &id);
    if (st != TP_OK) {
      TP_FREE(items);
      return st;
    }
    items[k] = (int64_t)id;
  }
  st = tp__pte_graph_value(g, TP_PTE_V_IntList, &v, id_out);
  if (st != TP_OK) {
    TP_FREE(items);
    return st;
  }
  v->ilist = items;
  v->nitems = n;
  return tp__pte_graph_keep(g, id_out);
}

/* A TensorList (kind TP_PTE_V_TensorList) or OptionalTensorList of the n values ids. */
static tp_status tp__pte_graph_list(tp_pte_graph *g, int kind, const uint32_t *ids, size_t n,
                                    uint32_t *id_out) {
  int opt = kind == TP_PTE_V_OptionalTensorList;
  tp__pte_val *v;
  int32_t *items;
  size_t k;
  tp_status st;
  TP_ASSERT(g);
  if (id_out) *id_out = UINT32_MAX;
  if (g->err.status != TP_OK) return g->err.status;
  st = tp__pte_graph_ids(g, opt ? "optional tensor list" : "tensor list", ids, n, 1 + opt);
  if (st != TP_OK) return st;
  items = (int32_t *)TP_MALLOC((n ? n : 1) * sizeof *items);
  if (!items)
    return tp__pte_value_fail(g, TP_ERR_NOMEM, "no memory");
  for (k = 0; k < n; k++) items[k] = (int32_t)ids[k];
  st = tp__pte_graph_value(g, kind, &v, id_out);
  if (st != TP_OK) {
    TP_FREE(items);
    return st;
  }
  v->items = items;
  v->nitems = n;
  return tp__pte_graph_keep(g, id_out);
}

TPDEF tp_status tp_pte_define_tensor_list(tp_pte_graph *g, const uint32_t *ids, size_t n,
                                          uint32_t *id_out) {
  return tp__pte_graph_list(g, TP_PTE_V_TensorList, ids, n, id_out);
}

TPDEF tp_status tp_pte_define_optional_tensor_list(tp_pte_graph *g, const uint32_t *ids,
                                                   size_t n, uint32_t *id_out) {
  return tp__pte_graph_list(g, TP_PTE_V_OptionalTensorList, ids, n, id_out);
}

/* The value kinds (a bit per TP_PTE_V_ tag) an argument takes in ExecuTorch's runtime. */
static unsigned tp__pte_arg_takes(const tp_pte_op_arg *a) {
  unsigned m = 0;
#define TP__B(tag) (1u << TP_PTE_V_##tag)
  if (a->is_list) {
    switch (a->kind) {
      case TP_PTE_ARG_TENSOR:
        m = a->elem_optional ? TP__B(OptionalTensorList) : TP__B(TensorList);
        break;
      case TP_PTE_ARG_INT:
      case TP_PTE_ARG_SYMINT: m = TP__B(IntList); break;
      case TP_PTE_ARG_FLOAT: m = TP__B(DoubleList); break;
      case TP_PTE_ARG_BOOL: m = TP__B(BoolList); break;
      default: break;
    }
  } else {
    switch (a->kind) {
      case TP_PTE_ARG_TENSOR: m = TP__B(Tensor); break;
      case TP_PTE_ARG_SCALAR: m = TP__B(Int) | TP__B(Double); break;
      case TP_PTE_ARG_INT:
      case TP_PTE_ARG_SYMINT:
      case TP_PTE_ARG_SCALAR_TYPE:
      case TP_PTE_ARG_MEMORY_FORMAT:
      case TP_PTE_ARG_LAYOUT: m = TP__B(Int); break;
      case TP_PTE_ARG_FLOAT: m = TP__B(Double); break;
      case TP_PTE_ARG_BOOL: m = TP__B(Bool); break;
      case TP_PTE_ARG_STRING: m = TP__B(String); break;
      default: break; /* Device, Generator: only as None */
    }
  }
  if (a->optional) m |= TP__B(Null);
#undef TP__B
  return m;
}

/* Appends printf output to buf (cap bytes, always terminated). */
static void tp__pte_append(char *buf, size_t cap, const char *fmt, ...) TP__PRINTF(3, 4);
static void tp__pte_append(char *buf, size_t cap, const char *fmt, ...) {
  size_t len = strlen(buf);
  va_list ap;
  if (len + 1 >= cap) return;
  va_start(ap, fmt);
  tp__vformat(buf + len, cap - len, fmt, ap);
  va_end(ap);
}

/* The kernel call of op with args (value ids, all defined) against the op's schema. */
static tp_status tp__pte_check_call(tp_pte_graph *g, const char *what, const tp_pte_op *op,
                                    const uint32_t *args, size_t n) {
  size_t k;
  if (n != (size_t)op->num_args + 1)
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: %lu values; the operator takes %lu (%lu "
                              "arguments, then the return slot)", what, (unsigned long)n,
                              (unsigned long)(op->num_args + 1), (unsigned long)op->num_args);
  for (k = 0; k < op->num_args; k++) {
    const tp_pte_op_arg *a = &op->args[k];
    unsigned takes = tp__pte_arg_takes(a);
    int kind = g->m.vals[args[k]].kind;
    if (!(takes & (1u << kind))) {
      char list[96];
      int t;
      list[0] = '\0';
      for (t = 1; t <= TP_PTE_V_OptionalTensorList; t++)
        if (takes & (1u << t))
          tp__pte_append(list, sizeof list, "%s%s", list[0] ? " or " : "",
                         tp_pte_value_kind_name(t));
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: argument %lu (%s: %s%s%s) is value %lu, %s "
                                "%s; it takes %s", what, (unsigned long)k, a->name,
                                tp_pte_arg_kind_name(a->kind),
                                a->is_list ? (a->elem_optional ? "?[]" : "[]") : "",
                                a->optional ? "?" : "", (unsigned long)args[k], tp__pte_a(kind),
                                tp_pte_value_kind_name(kind),
                                list[0] ? list : "no value tensorpack writes");
    }
  }
  if (op->num_returns == 1 && args[op->num_args] != args[op->returns[0]])
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: the return slot is value %lu; it must be the "
                              "value of argument %lu (%s), %lu, again", what,
                              (unsigned long)args[op->num_args], (unsigned long)op->returns[0],
                              op->args[op->returns[0]].name, (unsigned long)args[op->returns[0]]);
  return TP_OK;
}

/* ---- out shapes: TP_PTE_SHAPE_RULES ---- */

enum {
#define TP__PTE_SK_ENUM(K) TP__PTE_SK_##K,
  TP_PTE_SHAPE_KINDS(TP__PTE_SK_ENUM)
#undef TP__PTE_SK_ENUM
  TP__PTE_SK_END
};

typedef struct tp__pte_rule {
  const char *name, *overload;
  int kind;                 /* TP__PTE_SK_* */
  const char *inputs, *dtype;
} tp__pte_rule;

#define TP__PTE_RULE(name, overload, K, inputs, dtype) {name, overload, TP__PTE_SK_##K, inputs, dtype},
static const tp__pte_rule tp__pte_rules[] = {TP_PTE_SHAPE_RULES(TP__PTE_RULE)};
#undef TP__PTE_RULE

/* A derived shape: one dim more than a tensor holds (an unsqueeze or an embedding of a tensor
   of TP_MAX_DIMS dims makes TP_MAX_DIMS + 1, which no out tensor has). */
typedef struct tp__pte_shape {
  int ndim;
  int64_t s[TP_MAX_DIMS + 1];
} tp__pte_shape;

/* What a rule reads and what it says: the inputs in the row's order, the sentence's parts. */
typedef struct tp__pte_sctx {
  const tp__pte_meth *m;
  const tp__pte_val *in[5];
  int nin;
  const char *op;      /* the operator without its namespace: "mm" */
  char desc[200];      /* "mm of [2, 3] x [3, 4]" */
  char why[160];       /* what is wrong with the inputs, when they make no shape */
} tp__pte_sctx;

/* "[2, 3]" of n sizes, appended to buf. */
static void tp__pte_sizes_append(char *buf, size_t cap, int n, const int64_t *s) {
  int d;
  tp__pte_append(buf, cap, "[");
  for (d = 0; d < n; d++) tp__pte_append(buf, cap, "%s%lld", d ? ", " : "", (long long)s[d]);
  tp__pte_append(buf, cap, "]");
}

/* "f32 [2, 3]": a program tensor's dtype and sizes, for sentences. */
static void tp__pte_shape_str(char *out, size_t cap, const tp_pte_tensor *t) {
  tp__format(out, cap, "%s ", tp_dtype_name(t->dtype));
  tp__pte_sizes_append(out, cap, t->ndim, t->sizes);
}

static void tp__pte_shape_of(const tp__pte_val *v, tp__pte_shape *sh) {
  int d;
  sh->ndim = v->t.ndim;
  for (d = 0; d < v->t.ndim; d++) sh->s[d] = v->t.sizes[d];
}

/* Elements of a tensor value (its byte count was checked at define: no overflow). */
static uint64_t tp__pte_numel(const tp__pte_val *v) {
  uint64_t n = 1;
  int d;
  for (d = 0; d < v->t.ndim; d++) n *= (uint64_t)v->t.sizes[d];
  return n;
}

/* Dim d of a tensor of nd dims (-nd .. nd - 1; a 0-dim tensor takes -1 and 0) into *out; 0 when
   out of range. */
static int tp__pte_wrap_dim(int64_t d, int nd, int *out) {
  int64_t n = nd > 0 ? nd : 1;
  if (d < -n || d >= n) return 0;
  *out = (int)(d < 0 ? d + n : d);
  return 1;
}

/* The Ints of an IntList value (or of one Int) into out[0 .. *n); a Null gives none. 0 when
   there are more than cap. */
static int tp__pte_ints(const tp__pte_meth *m, const tp__pte_val *v, int64_t *out, size_t cap,
                        size_t *n) {
  size_t k;
  *n = 0;
  if (v->kind == TP_PTE_V_Int) {
    out[0] = v->i;
    *n = 1;
    return 1;
  }
  if (v->kind != TP_PTE_V_IntList) return 1;
  if (v->nitems > cap) return 0;
  for (k = 0; k < v->nitems; k++) out[k] = m->vals[v->ilist[k]].i;
  *n = v->nitems;
  return 1;
}

/* x->why = printf output; returns 0, a rule's refusal. */
static int tp__pte_why(tp__pte_sctx *x, const char *fmt, ...) TP__PRINTF(2, 3);
static int tp__pte_why(tp__pte_sctx *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tp__vformat(x->why, sizeof x->why, fmt, ap);
  va_end(ap);
  return 0;
}

/* tp__pte_wrap_dim, or 0 with x->why naming dim d (any dim of a 0-dim tensor unless
   scalar_ok). */
static int tp__pte_dim(tp__pte_sctx *x, int64_t d, int nd, int scalar_ok, int *out) {
  if ((nd > 0 || scalar_ok) && tp__pte_wrap_dim(d, nd, out)) return 1;
  return tp__pte_why(x, "dim %lld is out of range for %d dims", (long long)d, nd);
}

/* x->in[i]'s int list into out (at most TP_MAX_DIMS entries; more is x->why). */
static int tp__pte_in_ints(tp__pte_sctx *x, int i, int64_t *out, size_t *n) {
  if (tp__pte_ints(x->m, x->in[i], out, TP_MAX_DIMS, n)) return 1;
  return tp__pte_why(x, "a list of %lu sizes (a tensor has at most %d dims)",
                     (unsigned long)x->in[i]->nitems, TP_MAX_DIMS);
}

/* An Int or Double (Scalar) value as a double. */
static double tp__pte_scalar(const tp__pte_val *v) {
  return v->kind == TP_PTE_V_Double ? v->d : (double)v->i;
}

/* a broadcast with b into a; 0 when two sizes disagree (x->why names them). */
static int tp__pte_bcast(tp__pte_sctx *x, tp__pte_shape *a, const tp__pte_shape *b) {
  tp__pte_shape r;
  int d;
  r.ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (d = 0; d < r.ndim; d++) {
    int ia = a->ndim - r.ndim + d, ib = b->ndim - r.ndim + d;
    int64_t sa = ia >= 0 ? a->s[ia] : 1, sb = ib >= 0 ? b->s[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return tp__pte_why(x, "sizes %lld and %lld do not broadcast", (long long)sa,
                         (long long)sb);
    r.s[d] = sa == 1 ? sb : sa;
  }
  *a = r;
  return 1;
}

/* x->desc = "<op> of " + the shapes of tensor inputs 0 .. n-1 (Nulls left out), joined by sep
   ("a x b"; NULL: "a and b", "a, b and c"). */
static void tp__pte_desc_inputs(tp__pte_sctx *x, int n, const char *sep) {
  int i, k = 0, nt = 0;
  for (i = 0; i < n; i++) nt += x->in[i]->kind == TP_PTE_V_Tensor;
  tp__format(x->desc, sizeof x->desc, "%s of ", x->op);
  for (i = 0; i < n; i++) {
    if (x->in[i]->kind != TP_PTE_V_Tensor) continue;
    if (k++) tp__pte_append(x->desc, sizeof x->desc, "%s", sep ? sep : k == nt ? " and " : ", ");
    tp__pte_sizes_append(x->desc, sizeof x->desc, x->in[i]->t.ndim, x->in[i]->t.sizes);
  }
}

/* x->desc = "<op> of <self>" + word + the n sizes li ("view of [6] as [2, 3]"). */
static void tp__pte_desc_list(tp__pte_sctx *x, const char *word, const int64_t *li, size_t n) {
  tp__pte_desc_inputs(x, 1, NULL);
  tp__pte_append(x->desc, sizeof x->desc, "%s", word);
  tp__pte_sizes_append(x->desc, sizeof x->desc, (int)n, li);
}

/* [n, k] x [k, m]: x->in[a] x x->in[b], both `nd` dims (a shared batch first when 3). */
static int tp__pte_matmul(tp__pte_sctx *x, int a, int b, int nd, tp__pte_shape *sh) {
  const tp_pte_tensor *p = &x->in[a]->t, *q = &x->in[b]->t;
  if (p->ndim != nd || q->ndim != nd)
    return tp__pte_why(x, "%s takes two %d-dim tensors", x->op, nd);
  if (nd == 3 && p->sizes[0] != q->sizes[0])
    return tp__pte_why(x, "the batch sizes %lld and %lld differ", (long long)p->sizes[0],
                       (long long)q->sizes[0]);
  if (p->sizes[nd - 1] != q->sizes[nd - 2])
    return tp__pte_why(x, "the inner sizes %lld and %lld differ", (long long)p->sizes[nd - 1],
                       (long long)q->sizes[nd - 2]);
  sh->ndim = nd;
  if (nd == 3) sh->s[0] = p->sizes[0];
  sh->s[nd - 2] = p->sizes[nd - 2];
  sh->s[nd - 1] = q->sizes[nd - 1];
  return 1;
}

/* Out shape r of rule `kind` from x's inputs into *sh (x->desc says how); 0 when the inputs
   make none (x->why says why). */
static int tp__pte_derive(tp__pte_sctx *x, int kind, uint32_t r, tp__pte_shape *sh) {
  const tp__pte_val *self = x->in[0];
  int64_t li[TP_MAX_DIMS];
  size_t n = 0, k;
  int d = 0, nd = self->kind == TP_PTE_V_Tensor ? self->t.ndim : 0, i;
  if (self->kind == TP_PTE_V_Tensor) tp__pte_shape_of(self, sh);
  switch (kind) {
    case TP__PTE_SK_SAME:
      tp__pte_desc_inputs(x, 1, NULL);
      return 1;
    case TP__PTE_SK_BROADCAST: {
      int first = 1;
      tp__pte_desc_inputs(x, x->nin, NULL);
      for (i = 0; i < x->nin; i++) {
        tp__pte_shape b;
        if (x->in[i]->kind != TP_PTE_V_Tensor) continue;
        tp__pte_shape_of(x->in[i], &b);
        if (first) *sh = b;
        else if (!tp__pte_bcast(x, sh, &b)) return 0;
        first = 0;
      }
      return 1;
    }
    case TP__PTE_SK_MM:
    case TP__PTE_SK_BMM:
      tp__pte_desc_inputs(x, 2, " x ");
      return tp__pte_matmul(x, 0, 1, kind == TP__PTE_SK_MM ? 2 : 3, sh);
    case TP__PTE_SK_ADDMM: {
      tp__pte_shape b = *sh;
      tp__pte_desc_list(x, " + ", x->in[1]->t.sizes, (size_t)x->in[1]->t.ndim);
      tp__pte_append(x->desc, sizeof x->desc, " x ");
      tp__pte_sizes_append(x->desc, sizeof x->desc, x->in[2]->t.ndim, x->in[2]->t.sizes);
      if (!tp__pte_matmul(x, 1, 2, 2, sh)) return 0;
      if (!tp__pte_bcast(x, &b, sh) || b.ndim != 2 || b.s[0] != sh->s[0] || b.s[1] != sh->s[1]) {
        x->why[0] = '\0';
        tp__pte_sizes_append(x->why, sizeof x->why, nd, self->t.sizes);
        tp__pte_append(x->why, sizeof x->why, " does not broadcast to ");
        tp__pte_sizes_append(x->why, sizeof x->why, 2, sh->s);
        return 0;
      }
      return 1;
    }
    case TP__PTE_SK_VIEW: {
      uint64_t total = tp__pte_numel(self), known = 1;
      int infer = -1;
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      tp__pte_desc_list(x, " as ", li, n);
      for (k = 0; k < n; k++) {
        if (li[k] == -1 && infer < 0) {
          infer = (int)k;
          continue;
        }
        if (li[k] < 0)
          return tp__pte_why(x, "size %lld at %lu (only one -1 is inferred)", (long long)li[k],
                             (unsigned long)k);
        if (tp__mul_u64(known, (uint64_t)li[k], &known)) known = UINT64_MAX;
      }
      if (infer >= 0) {
        if (known == 0 || total % known != 0)
          return tp__pte_why(x, "%llu elements are not a multiple of %llu",
                             (unsigned long long)total, (unsigned long long)known);
        li[infer] = (int64_t)(total / known);
      } else if (known != total) {
        return tp__pte_why(x, "%llu elements, not %llu", (unsigned long long)total,
                           (unsigned long long)known);
      }
      sh->ndim = (int)n;
      for (k = 0; k < n; k++) sh->s[k] = li[k];
      return 1;
    }
    case TP__PTE_SK_PERMUTE: {
      unsigned char seen[TP_MAX_DIMS];
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      tp__pte_desc_list(x, " by ", li, n);
      memset(seen, 0, sizeof seen);
      for (k = 0; k < n && (int)n == nd; k++) {
        if (!tp__pte_wrap_dim(li[k], nd, &d) || seen[d]++) break;
        sh->s[k] = self->t.sizes[d];
      }
      if ((int)n != nd || k < n)
        return tp__pte_why(x, "dims is not a permutation of the %d dims", nd);
      return 1;
    }
    case TP__PTE_SK_TRANSPOSE: {
      int d1 = 0;
      tp__pte_desc_inputs(x, 1, NULL);
      tp__pte_append(x->desc, sizeof x->desc, " swapping dims %lld and %lld",
                     (long long)x->in[1]->i, (long long)x->in[2]->i);
      if (!tp__pte_wrap_dim(x->in[1]->i, nd, &d) || !tp__pte_wrap_dim(x->in[2]->i, nd, &d1))
        return tp__pte_why(x, "a dim is out of range for %d dims", nd);
      if (nd > 0) {
        int64_t t = sh->s[d];
        sh->s[d] = sh->s[d1];
        sh->s[d1] = t;
      }
      return 1;
    }
    case TP__PTE_SK_EXPAND: {
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      tp__pte_desc_list(x, " to ", li, n);
      if ((int)n < nd)
        return tp__pte_why(x, "%lu sizes for a tensor of %d dims", (unsigned long)n, nd);
      sh->ndim = (int)n;
      for (k = 0; k < n; k++) {
        int id = (int)k - ((int)n - nd); /* the tensor's dim under size k, or < 0 (a new one) */
        int64_t have = id >= 0 ? self->t.sizes[id] : 1;
        if (li[k] == -1 && id >= 0)
          sh->s[k] = have;
        else if (li[k] >= 0 && (have == 1 || li[k] == have))
          sh->s[k] = li[k];
        else if (id < 0)
          return tp__pte_why(x, "size %lld at %lu: a new leading dim takes a size >= 0",
                             (long long)li[k], (unsigned long)k);
        else
          return tp__pte_why(x, "size %lld at %lu cannot expand a dim of %lld",
                             (long long)li[k], (unsigned long)k, (long long)have);
      }
      return 1;
    }
    case TP__PTE_SK_SLICE: {
      int64_t len, start, end, step = x->in[4]->i, cnt = 0;
      start = x->in[2]->kind == TP_PTE_V_Int ? x->in[2]->i : 0;
      tp__pte_desc_inputs(x, 1, NULL);
      if (!tp__pte_dim(x, x->in[1]->i, nd, 0, &d)) {
        tp__pte_append(x->desc, sizeof x->desc, " on dim %lld", (long long)x->in[1]->i);
        return 0;
      }
      len = self->t.sizes[d];
      end = x->in[3]->kind == TP_PTE_V_Int ? x->in[3]->i : len;
      tp__pte_append(x->desc, sizeof x->desc, " on dim %d from %lld to %lld by %lld", d,
                     (long long)start, (long long)end, (long long)step);
      if (step <= 0) return tp__pte_why(x, "step %lld is not positive", (long long)step);
      if (start < 0) start += len; /* no overflow: len >= 0 */
      if (end < 0) end += len;
      if (start < 0) start = 0;
      if (end > len) end = len;
      if (start < end) cnt = (end - 1 - start) / step + 1;
      sh->s[d] = cnt;
      return 1;
    }
    case TP__PTE_SK_SELECT: {
      int64_t idx = x->in[2]->i;
      tp__pte_desc_inputs(x, 1, NULL);
      tp__pte_append(x->desc, sizeof x->desc, " at index %lld of dim %lld", (long long)idx,
                     (long long)x->in[1]->i);
      if (!tp__pte_dim(x, x->in[1]->i, nd, 0, &d)) return 0;
      if (idx < -self->t.sizes[d] || idx >= self->t.sizes[d])
        return tp__pte_why(x, "index %lld is outside dim %d of size %lld", (long long)idx, d,
                           (long long)self->t.sizes[d]);
      for (i = d; i + 1 < nd; i++) sh->s[i] = sh->s[i + 1];
      sh->ndim = nd - 1;
      return 1;
    }
    case TP__PTE_SK_UNSQUEEZE:
      tp__pte_desc_inputs(x, 1, NULL);
      tp__pte_append(x->desc, sizeof x->desc, " at dim %lld", (long long)x->in[1]->i);
      if (!tp__pte_dim(x, x->in[1]->i, nd + 1, 1, &d)) return 0;
      for (i = nd; i > d; i--) sh->s[i] = sh->s[i - 1];
      sh->s[d] = 1;
      sh->ndim = nd + 1;
      return 1;
    case TP__PTE_SK_SQUEEZE: {
      unsigned char drop[TP_MAX_DIMS];
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      if (x->in[1]->kind == TP_PTE_V_Int) {
        tp__pte_desc_inputs(x, 1, NULL);
        tp__pte_append(x->desc, sizeof x->desc, " at dim %lld", (long long)li[0]);
      } else {
        tp__pte_desc_list(x, " at dims ", li, n);
      }
      memset(drop, 0, sizeof drop);
      for (k = 0; k < n; k++) {
        if (!tp__pte_dim(x, li[k], nd, 1, &d)) return 0;
        if (nd > 0 && self->t.sizes[d] == 1) drop[d] = 1;
      }
      sh->ndim = 0;
      for (i = 0; i < nd; i++)
        if (!drop[i]) sh->s[sh->ndim++] = self->t.sizes[i];
      return 1;
    }
    case TP__PTE_SK_CAT: {
      const tp__pte_val *lst = x->in[0], *ref = NULL;
      int64_t cat = 0;
      tp__format(x->desc, sizeof x->desc, "cat of ");
      for (k = 0; k < lst->nitems; k++) {
        const tp__pte_val *t = &x->m->vals[lst->items[k]];
        if (k) tp__pte_append(x->desc, sizeof x->desc, k + 1 == lst->nitems ? " and " : ", ");
        tp__pte_sizes_append(x->desc, sizeof x->desc, t->t.ndim, t->t.sizes);
        /* the kernel's reference: the last tensor that is not 1-D empty (else the first) */
        if (!ref || t->t.ndim != 1 || t->t.sizes[0] != 0) ref = t;
      }
      tp__pte_append(x->desc, sizeof x->desc, " on dim %lld", (long long)x->in[1]->i);
      if (!ref) return tp__pte_why(x, "no tensors");
      tp__pte_shape_of(ref, sh);
      if (!tp__pte_dim(x, x->in[1]->i, ref->t.ndim, 0, &d)) return 0;
      for (k = 0; k < lst->nitems; k++) {
        const tp__pte_val *t = &x->m->vals[lst->items[k]];
        int same = t->t.ndim == ref->t.ndim;
        if (t->t.ndim == 1 && t->t.sizes[0] == 0) continue;
        for (i = 0; same && i < t->t.ndim; i++)
          same = i == d || t->t.sizes[i] == ref->t.sizes[i];
        if (!same)
          return tp__pte_why(x, "tensor %lu does not match the others outside dim %d",
                             (unsigned long)k, d);
        if (tp__pte_numel(t) > 0) cat += t->t.sizes[d];
      }
      sh->s[d] = cat;
      return 1;
    }
    case TP__PTE_SK_EMBEDDING: {
      const tp_pte_tensor *ix = &x->in[1]->t;
      tp__pte_desc_list(x, " at indices ", ix->sizes, (size_t)ix->ndim);
      if (nd != 2) return tp__pte_why(x, "the weight has %d dims, not 2", nd);
      sh->ndim = ix->ndim + 1;
      for (i = 0; i < ix->ndim; i++) sh->s[i] = ix->sizes[i];
      sh->s[ix->ndim] = self->t.sizes[1];
      return 1;
    }
    case TP__PTE_SK_INDEX_SELECT: {
      const tp__pte_val *ix = x->in[2];
      tp__pte_desc_inputs(x, 1, NULL);
      tp__pte_append(x->desc, sizeof x->desc, " on dim %lld by %llu indices",
                     (long long)x->in[1]->i, (unsigned long long)tp__pte_numel(ix));
      if (ix->t.ndim > 1) return tp__pte_why(x, "the index has %d dims (0 or 1)", ix->t.ndim);
      if (!tp__pte_dim(x, x->in[1]->i, nd, 1, &d)) return 0;
      if (nd > 0) sh->s[d] = (int64_t)tp__pte_numel(ix);
      return 1;
    }
    case TP__PTE_SK_LAYER_NORM: {
      int lead;
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      tp__pte_desc_list(x, " over ", li, n);
      lead = nd - (int)n;
      for (k = 0; k < n && lead >= 0; k++)
        if (self->t.sizes[lead + (int)k] != li[k]) lead = -1;
      if (n == 0 || lead < 0)
        return tp__pte_why(x, "normalized_shape is not the input's last dims");
      if (r > 0)
        for (i = lead; i < nd; i++) sh->s[i] = 1;
      return 1;
    }
    case TP__PTE_SK_REDUCE: {
      unsigned char drop[TP_MAX_DIMS];
      int keep = x->in[2]->i != 0;
      if (!tp__pte_in_ints(x, 1, li, &n)) return 0;
      if (n == 0) {
        tp__pte_desc_inputs(x, 1, NULL);
        tp__pte_append(x->desc, sizeof x->desc, " over all dims");
      } else {
        tp__pte_desc_list(x, " over dims ", li, n);
      }
      if (keep) tp__pte_append(x->desc, sizeof x->desc, " with keepdim");
      memset(drop, n == 0, sizeof drop);
      for (k = 0; k < n; k++) {
        if (!tp__pte_dim(x, li[k], nd, 1, &d)) return 0;
        if (drop[d]++) return tp__pte_why(x, "dim %d is listed twice", d);
      }
      sh->ndim = 0;
      for (i = 0; i < nd; i++)
        if (!drop[i]) sh->s[sh->ndim++] = self->t.sizes[i];
        else if (keep) sh->s[sh->ndim++] = 1;
      return 1;
    }
    case TP__PTE_SK_FULL:
      if (!tp__pte_in_ints(x, 0, li, &n)) return 0;
      tp__format(x->desc, sizeof x->desc, "%s of size ", x->op);
      tp__pte_sizes_append(x->desc, sizeof x->desc, (int)n, li);
      sh->ndim = (int)n;
      for (k = 0; k < n; k++) {
        if (li[k] < 0)
          return tp__pte_why(x, "size %lld at %lu is negative", (long long)li[k],
                             (unsigned long)k);
        sh->s[k] = li[k];
      }
      return 1;
    case TP__PTE_SK_ARANGE: {
      double start = 0, end, step = 1, cnt;
      if (x->nin == 3) {
        start = tp__pte_scalar(x->in[0]);
        end = tp__pte_scalar(x->in[1]);
        step = tp__pte_scalar(x->in[2]);
      } else {
        end = tp__pte_scalar(x->in[0]);
      }
      tp__format(x->desc, sizeof x->desc, "arange from %g to %g by %g", start, end, step);
      cnt = (end - start) / step;
      if (!(cnt >= 0 && cnt <= (double)INT32_MAX) || step == 0)
        return tp__pte_why(x, "(end - start) / step is %g, not a count of 0 .. %d", cnt,
                           INT32_MAX);
      sh->ndim = 1;
      sh->s[0] = (int64_t)cnt;
      if ((double)sh->s[0] < cnt) sh->s[0]++; /* the ceiling */
      return 1;
    }
    default: break;
  }
  return 1;
}

/* 1 for a floating dtype. */
static int tp__pte_is_float(int dt) {
  return dt == TP_F16 || dt == TP_BF16 || dt == TP_F32 || dt == TP_F64;
}

/* The out dtype rule `rule` sets for x's inputs (an Int `dtype` argument d first), -1 none. */
static int tp__pte_rule_dtype(const tp__pte_sctx *x, const char *rule, const tp__pte_val *d) {
  int dt = -1, i;
  size_t k;
  if (d && d->kind == TP_PTE_V_Int) return (int)d->i;
  for (i = 0; i < x->nin && rule[0]; i++) {
    const tp__pte_val *v = x->in[i];
    size_t n = v->kind == TP_PTE_V_TensorList ? v->nitems : 1;
    for (k = 0; k < n; k++) {
      const tp__pte_val *t = v->kind == TP_PTE_V_TensorList ? &x->m->vals[v->items[k]] : v;
      if (t->kind != TP_PTE_V_Tensor) continue;
      if (rule[0] == '=') return (int)t->t.dtype;
      if (dt >= 0 && dt != (int)t->t.dtype) return -1;
      dt = (int)t->t.dtype;
    }
  }
  return tp__pte_is_float(dt) ? dt : -1;
}

/* The out tensors of a kernel call of op (args checked by tp__pte_check_call) against the
   shapes (and dtypes) its row of TP_PTE_SHAPE_RULES derives; no row: nothing to check. */
static tp_status tp__pte_check_shapes(tp_pte_graph *g, const char *what, const tp_pte_op *op,
                                      const uint32_t *args) {
  const tp__pte_rule *rule = NULL;
  const tp__pte_val *dtype_arg = NULL;
  tp__pte_sctx x;
  const char *p;
  size_t k;
  uint32_t r;
  int dt, i;
  for (k = 0; k < sizeof tp__pte_rules / sizeof tp__pte_rules[0] && !rule; k++)
    if (strcmp(tp__pte_rules[k].name, op->name) == 0 &&
        strcmp(tp__pte_rules[k].overload, op->overload) == 0)
      rule = &tp__pte_rules[k];
  if (!rule) return TP_OK;
  memset(&x, 0, sizeof x);
  x.m = &g->m;
  x.op = strstr(op->name, "::") ? strstr(op->name, "::") + 2 : op->name;
  for (p = rule->inputs; (i = tp__pte_next_arg(op, &p)) >= 0;) { /* names -> the call's values */
    if (i == (int)op->num_args || x.nin == 5) return TP_OK; /* a row the test would refuse */
    x.in[x.nin++] = &g->m.vals[args[i]];
  }
  if (x.nin == 0) return TP_OK;
  for (k = 0; k < op->num_args; k++)
    if (strcmp(op->args[k].name, "dtype") == 0) dtype_arg = &g->m.vals[args[k]];
  dt = tp__pte_rule_dtype(&x, rule->dtype, dtype_arg);
  for (r = 0; r < op->num_returns; r++) {
    const tp__pte_val *out = &g->m.vals[args[op->returns[r]]];
    tp__pte_shape sh;
    int same;
    if (!tp__pte_derive(&x, rule->kind, r, &sh))
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: %s: %s", what, x.desc, x.why);
    same = out->kind == TP_PTE_V_Tensor && out->t.ndim == sh.ndim;
    for (i = 0; same && i < sh.ndim; i++) same = out->t.sizes[i] == sh.s[i];
    if (!same || (dt >= 0 && (int)out->t.dtype != dt)) {
      char got[160], want[160];
      tp__pte_shape_str(got, sizeof got, &out->t);
      want[0] = '\0';
      if (dt >= 0 && (int)out->t.dtype != dt)
        tp__pte_append(want, sizeof want, "%s ", tp_dtype_name((tp_dtype)dt));
      tp__pte_sizes_append(want, sizeof want, sh.ndim, sh.s);
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: %s is %s, %s makes %s", what,
                                op->args[op->returns[r]].name, got, x.desc, want);
    }
  }
  return TP_OK;
}

/* A new instruction of kind `kind` calling args (its caller checked them with
   tp__pte_graph_ids). */
static tp_status tp__pte_graph_instr(tp_pte_graph *g, int kind, uint32_t index, const char *what,
                                     const uint32_t *args, size_t n) {
  tp__pte_ins *in;
  size_t k;
  tp_status st;
  if (g->m.nins >= TP_PTE_MAX_VALUES)
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "more than %d instructions", TP_PTE_MAX_VALUES);
  st = tp__array_reserve((void **)&g->m.ins, &g->icap, g->m.nins + 1, sizeof *g->m.ins);
  if (st != TP_OK)
    return tp__pte_graph_fail(g, st, "%s: no memory", what);
  in = &g->m.ins[g->m.nins];
  memset(in, 0, sizeof *in);
  in->args = (int32_t *)TP_MALLOC((n ? n : 1) * sizeof *in->args);
  if (!in->args)
    return tp__pte_graph_fail(g, TP_ERR_NOMEM, "%s: no memory", what);
  for (k = 0; k < n; k++) in->args[k] = (int32_t)args[k];
  in->nargs = n;
  in->kind = kind;
  in->index = index;
  g->m.nins++;
  return TP_OK;
}

TPDEF tp_status tp_pte_call_kernel(tp_pte_graph *g, const char *name, const char *overload,
                                   const uint32_t *args, size_t n) {
  char what[200];
  size_t k;
  tp_status st;
  TP_ASSERT(g);
  st = tp__writer_busy(&g->err, g->p->writing, "a tp_pte_call_kernel call", "program");
  if (st != TP_OK) return st;
  if (!name || !strstr(name, "::") || !overload)
    return tp__error_set(&g->err, TP_ERR_INVALID, "method \"%.80s\" instruction %lu: the "
                        "operator \"%.80s\" overload \"%.80s\": an operator is named with its "
                        "namespace (\"aten::add\") and an overload (\"out\"); ExecuTorch's "
                        "runtime finds no kernel otherwise", g->m.name,
                        (unsigned long)g->m.nins, name ? name : "(null)",
                        overload ? overload : "(null)");
  tp__format(what, sizeof what, "instruction %lu (%.80s.%.80s)", (unsigned long)g->m.nins,
             name, overload);
  st = tp__pte_graph_ids(g, what, args, n, 0);
  if (st != TP_OK) return st;
  if (!g->p->other_runtime) {
    tp_pte_op op;
    if (tp_pte_op_lookup(name, overload, &op) != TP_OK)
      return tp__pte_graph_fail(g, TP_ERR_UNSUPPORTED, "%s: not an operator of ExecuTorch's "
                                "portable kernels (TP_PTE_OPS); for a runtime with other kernels "
                                "set tp_pte_options.other_runtime", what);
    st = tp__pte_check_call(g, what, &op, args, n);
    if (st == TP_OK) st = tp__pte_check_shapes(g, what, &op, args);
    if (st != TP_OK) return st;
  }
  for (k = 0; k < g->m.nops; k++)
    if (strcmp(g->m.ops[k].name, name) == 0 && strcmp(g->m.ops[k].overload, overload) == 0)
      break;
  if (k == g->m.nops) {
    tp__pte_op *op;
    st = tp__array_reserve((void **)&g->m.ops, &g->ocap, g->m.nops + 1, sizeof *g->m.ops);
    if (st != TP_OK)
      return tp__pte_graph_fail(g, st, "%s: no memory", what);
    op = &g->m.ops[g->m.nops];
    op->name = tp__pte_strdup(name);
    op->overload = tp__pte_strdup(overload);
    if (!op->name || !op->overload) {
      TP_FREE(op->name);
      TP_FREE(op->overload);
      return tp__pte_graph_fail(g, TP_ERR_NOMEM, "%s: no memory", what);
    }
    g->m.nops++;
  }
  return tp__pte_graph_instr(g, TP_PTE_I_KernelCall, (uint32_t)k, what, args, n);
}

TPDEF tp_status tp_pte_call_delegate(tp_pte_graph *g, const tp_pte_delegate *d,
                                     const uint32_t *args, size_t n) {
  char what[64];
  tp__pte_del *nd;
  tp_status st;
  TP_ASSERT(g);
  st = tp__writer_busy(&g->err, g->p->writing, "a tp_pte_call_delegate call", "program");
  if (st != TP_OK) return st;
  tp__format(what, sizeof what, "instruction %lu (delegate %lu)", (unsigned long)g->m.nins,
             (unsigned long)g->m.ndels);
  if (!d) return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: NULL delegate", what);
  {
    char at[200];
    tp__format(at, sizeof at, "method \"%.80s\": %s", g->m.name, what);
    st = tp__pte_check_delegate(&g->err, at, d->backend_id, d->produce, d->blob_size, d->specs,
                                d->n_specs);
    if (st != TP_OK) return st;
  }
  st = tp__pte_graph_ids(g, what, args, n, 1);
  if (st != TP_OK) return st;
  st = tp__array_reserve((void **)&g->m.dels, &g->dcap, g->m.ndels + 1, sizeof *g->m.dels);
  if (st != TP_OK)
    return tp__pte_graph_fail(g, st, "%s: no memory", what);
  nd = &g->m.dels[g->m.ndels];
  memset(nd, 0, sizeof *nd);
  nd->blob_size = d->blob_size;
  nd->produce = d->produce;
  nd->ctx = d->ctx;
  nd->backend = tp__pte_strdup(d->backend_id);
  g->m.ndels++; /* owned by the method from here: freed with it */
  if (!nd->backend || tp__pte_copy_specs(nd, d->specs, d->n_specs) != TP_OK)
    return tp__pte_graph_fail(g, TP_ERR_NOMEM, "%s: no memory", what);
  return tp__pte_graph_instr(g, TP_PTE_I_DelegateCall, (uint32_t)(g->m.ndels - 1), what, args, n);
}

/* A delegate call whose n_expect slots bind tensors of expect[k]'s dtype and sizes (slot k named
   "external id k" with by_id, else "input" / "output" by expect[k].role), then
   tp_pte_call_delegate(g, d, args, n); g has not failed (tp__pte_backend_call checked). */
static tp_status tp__pte_call_bound(tp_pte_graph *g, const char *what, int by_id,
                                    const tp_pte_tensor *expect, size_t n_expect,
                                    const tp_pte_delegate *d, const uint32_t *args, size_t n) {
  size_t k;
  int dim;
  if (n != n_expect || (n > 0 && !args))
    return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s of %lu values%s; the graph binds %lu (%s)",
                              what, (unsigned long)n, n > 0 && !args ? " (NULL args)" : "",
                              (unsigned long)n_expect,
                              by_id ? "one value per external, in external-id order"
                                   : "one value per input, then per output");
  for (k = 0; k < n; k++) {
    tp_pte_tensor t;
    int same = tp_pte_graph_tensor(g, args[k], &t) == TP_OK && t.dtype == expect[k].dtype &&
               t.ndim == expect[k].ndim;
    for (dim = 0; same && dim < t.ndim; dim++) same = t.sizes[dim] == expect[k].sizes[dim];
    if (!same) {
      char want[160], got[160], slot[40];
      tp__pte_shape_str(want, sizeof want, &expect[k]);
      if (tp_pte_graph_tensor(g, args[k], &t) == TP_OK)
        tp__pte_shape_str(got, sizeof got, &t);
      else
        tp__format(got, sizeof got, "not a Tensor value");
      if (by_id)
        tp__format(slot, sizeof slot, "external id %lu", (unsigned long)k);
      else
        tp__format(slot, sizeof slot, "the graph's %s",
                   expect[k].role == TP_PTE_INPUT ? "input" : "output");
      return tp__pte_graph_fail(g, TP_ERR_INVALID, "%s: argument %lu (%s, %s) is value %lu, %s",
                                what, (unsigned long)k, slot, want, (unsigned long)args[k], got);
    }
  }
  return tp_pte_call_delegate(g, d, args, n);
}

/* b's graph as a delegate call (tp__pte_backend's rules): its tensors in call order
   (TP_MALLOC'd into *t, NULL when *n is 0; the caller frees them) and its blob's size, or a
   refusal with its sentence in e (and nothing to free). */
static tp_status tp__pte_backend_args(const tp__pte_backend *b, void *graph, tp_pte_tensor **t,
                                      size_t *n, uint64_t *blob, tp_error *e) {
  tp__writer w = b->writer(graph);
  tp_status st;
  *t = NULL;
  memset(e, 0, sizeof *e);
  if (w.err->status != TP_OK)
    return tp__error_set(e, w.err->status, "the %s graph failed: %.160s", b->name, w.err->msg);
  st = b->tensors(graph, NULL, n, e);
  if (st == TP_OK && *n > 0) {
    *t = (tp_pte_tensor *)TP_MALLOC(*n * sizeof **t);
    if (!*t) return tp__error_set(e, TP_ERR_NOMEM, "no memory");
    memset(*t, 0, *n * sizeof **t);
    st = b->tensors(graph, *t, n, e);
  }
  if (st == TP_OK && (st = tp__writer_size(&w, b->what, blob)) != TP_OK) /* (blob is not NULL) */
    tp__error_set(e, st, "sizing the %s blob failed: %.160s", b->name,
                  tp__writer_error(w.err, w.werr));
  if (st != TP_OK) TP_FREE(*t);
  return st;
}

TPDEF tp_status tp__pte_add_backend_method(tp_pte *p, const char *name, const tp__pte_backend *b,
                                           void *graph, const tp_pte_compile_spec *specs,
                                           size_t n_specs) {
  tp_pte_tensor *t;
  tp_pte_method m;
  tp_error e;
  size_t n;
  uint64_t blob = 0;
  tp_status st;
  TP_ASSERT(p);
  TP_ASSERT(graph);
  /* the latched failures only: a failed size or write call of either object is no reason */
  if (p->err.status != TP_OK) return p->err.status;
  if (tp__pte_backend_args(b, graph, &t, &n, &blob, &e) != TP_OK)
    return tp__pte_fail(p, e.status, "method \"%.80s\": %s", name ? name : "(null)", e.msg);
  memset(&m, 0, sizeof m);
  m.name = name;
  m.args = t;
  m.n_args = n;
  m.backend_id = b->id;
  m.blob_size = blob;
  m.produce = b->produce;
  m.ctx = graph;
  m.specs = specs;
  m.n_specs = n_specs;
  st = tp_pte_add_method(p, &m);
  TP_FREE(t);
  return st;
}

TPDEF tp_status tp__pte_backend_call(tp_pte_graph *pg, const tp__pte_backend *b, void *graph,
                                     const uint32_t *args, size_t n) {
  tp_pte_tensor *t;
  tp_pte_delegate d;
  tp_error e;
  size_t n_t;
  uint64_t blob = 0;
  tp_status st;
  TP_ASSERT(pg);
  TP_ASSERT(graph);
  if (pg->err.status != TP_OK) return pg->err.status;
  if (tp__pte_backend_args(b, graph, &t, &n_t, &blob, &e) != TP_OK)
    return tp__pte_graph_fail(pg, e.status, "%s: %s", b->what, e.msg);
  memset(&d, 0, sizeof d);
  d.backend_id = b->id;
  d.blob_size = blob;
  d.produce = b->produce;
  d.ctx = graph;
  st = tp__pte_call_bound(pg, b->what, b->by_id, t, n_t, &d, args, n);
  TP_FREE(t);
  return st;
}

/* Widens the lifetime of tensor value id to instruction t. */
static void tp__pte_touch(tp__plan_item *items, const tp__pte_meth *m, int32_t id, uint32_t t) {
  tp__plan_item *it = &items[id];
  int kind = m->vals[id].kind;
  if (kind == TP_PTE_V_TensorList || kind == TP_PTE_V_OptionalTensorList) {
    size_t k;
    for (k = 0; k < m->vals[id].nitems; k++) tp__pte_touch(items, m, m->vals[id].items[k], t);
    return;
  }
  if (it->first > t) it->first = t;
  if (it->last < t) it->last = t;
}

TPDEF tp_status tp_pte_graph_finish(tp_pte_graph *g) {
  tp_pte *p;
  tp__plan_item *items;
  size_t k, j, failed = 0;
  uint32_t end;
  tp_status st;
  if (!g) return TP_ERR_INVALID;
  p = g->p;
  if (g->err.status == TP_OK && g->m.nins == 0)
    tp__pte_graph_fail(g, TP_ERR_INVALID, "no instruction (call a kernel or a delegate first)");
  tp__writer_busy(&g->err, p->writing, "a tp_pte_graph_finish call", "program");
  if (g->err.status != TP_OK) goto failed;
  /* lifetimes: inputs the whole method (never overwritten, so executing again with the same
     inputs is right), outputs to the end, every tensor over the instructions that use it
     (directly or in a tensor list); a tensor no instruction uses lives at 0 */
  items = (tp__plan_item *)TP_MALLOC((g->m.nvals ? g->m.nvals : 1) * sizeof *items);
  if (!items) {
    tp__pte_graph_fail(g, TP_ERR_NOMEM, "no memory");
    goto failed;
  }
  end = (uint32_t)(g->m.nins - 1);
  for (k = 0; k < g->m.nvals; k++) {
    items[k].nbytes = g->m.vals[k].kind == TP_PTE_V_Tensor && !g->m.vals[k].is_const
                          ? g->m.vals[k].nbytes : 0;
    items[k].first = UINT32_MAX;
    items[k].last = 0;
    if (g->m.vals[k].kind == TP_PTE_V_Tensor && (g->m.vals[k].t.role & TP_PTE_INPUT))
      items[k].first = 0, items[k].last = end; /* kept whole: a second execute reads it */
    if (g->m.vals[k].kind == TP_PTE_V_Tensor && (g->m.vals[k].t.role & TP_PTE_OUTPUT))
      items[k].last = end;
  }
  for (j = 0; j < g->m.nins; j++)
    for (k = 0; k < g->m.ins[j].nargs; k++)
      tp__pte_touch(items, &g->m, g->m.ins[j].args[k], (uint32_t)j);
  for (k = 0; k < g->m.nvals; k++)
    if (items[k].first == UINT32_MAX) items[k].first = items[k].last; /* unused; outputs */
  st = tp__plan_place(items, g->m.nvals, TP__PTE_PLAN_ALIGN, ((uint64_t)1 << 63) - 1,
                      &g->m.planned, &failed);
  for (k = 0; st == TP_OK && k < g->m.nvals; k++) g->m.vals[k].offset = items[k].offset;
  TP_FREE(items);
  if (st == TP_OK)
    st = tp__array_reserve((void **)&p->meths, &p->cap, p->n + 1, sizeof *p->meths);
  if (st == TP_ERR_OVERFLOW)
    tp__pte_graph_fail(g, st, "the tensors live at once with value %lu need more than 2^63 - 1 "
                       "bytes, which the planned buffer's int64 size cannot hold",
                       (unsigned long)failed);
  if (st != TP_OK) {
    tp__pte_graph_fail(g, st, "no memory"); /* (a no-op after the overflow's sentence) */
    goto failed;
  }
  p->meths[p->n++] = g->m;
  p->ndels += g->m.ndels;
  memset(&g->m, 0, sizeof g->m);
  tp_pte_graph_destroy(g);
  return TP_OK;
failed: /* g's failure latched in p */
  st = tp__pte_fail(p, g->err.status, "%s", g->err.msg);
  tp_pte_graph_destroy(g);
  return st;
}

TPDEF tp_status tp_pte_add_method(tp_pte *p, const tp_pte_method *m) {
  tp_pte_graph *g;
  tp_pte_delegate d;
  uint32_t *ids;
  char at[100];
  size_t i, k;
  uint64_t nb, sz = 0, total = 0;
  tp_status st;
  TP_ASSERT(p);
  st = tp__writer_busy(&p->err, p->writing, "a tp_pte_add_method call", "program");
  if (st != TP_OK) return st;
  if (!m) return tp__error_set(&p->err, TP_ERR_INVALID, "tp_pte_add_method: NULL method");
  if (!m->name || !*m->name)
    return tp__error_set(&p->err, TP_ERR_INVALID, "method %lu: the name is empty",
                        (unsigned long)p->n);
  for (i = 0; i < p->n; i++)
    if (strcmp(p->meths[i].name, m->name) == 0)
      return tp__error_set(&p->err, TP_ERR_INVALID,
                          "method \"%.80s\": the name is already method %lu's", m->name,
                          (unsigned long)i);
  if (p->n >= TP_PTE_MAX_METHODS)
    return tp__error_set(&p->err, TP_ERR_INVALID,
                        "method \"%.80s\": a program holds at most %d methods", m->name,
                        TP_PTE_MAX_METHODS);
  tp__format(at, sizeof at, "method \"%.80s\"", m->name);
  st = tp__pte_check_delegate(&p->err, at, m->backend_id, m->produce, m->blob_size, m->specs,
                              m->n_specs);
  if (st != TP_OK) return st;
  if (m->n_args > TP_PTE_MAX_ARGS)
    return tp__error_set(&p->err, TP_ERR_INVALID,
                        "method \"%.80s\": %lu arguments (at most %d)", m->name,
                        (unsigned long)m->n_args, TP_PTE_MAX_ARGS);
  if (m->n_args > 0 && !m->args)
    return tp__error_set(&p->err, TP_ERR_INVALID, "method \"%.80s\": NULL args with %lu "
                        "arguments", m->name, (unsigned long)m->n_args);

  for (k = 0; k < m->n_args; k++) {
    tp_pte_tensor t = m->args[k];
    st = tp__pte_check_tensor(&p->err, m->name, 1, k, &t, &nb);
    if (st != TP_OK) return st;
    /* the arguments are all live during the one delegate call, so the plan lays them back to
       back; its reader (an int64 size) refuses a buffer of 2^63 bytes or more, so the writer
       does too, here and not at write time (nb < 2^62: no overflow) */
    tp__align_u64(nb, TP__PTE_PLAN_ALIGN, &sz);
    total += sz;
    if (total > ((uint64_t)1 << 63) - 1)
      return tp__error_set(&p->err, TP_ERR_OVERFLOW, "method \"%.80s\": the planned arguments "
                          "0 .. %lu need more than 2^63 - 1 bytes, which the planned buffer's "
                          "int64 size cannot hold", m->name, (unsigned long)k);
  }
  /* checked: a graph of one delegate call with every argument in order */
  g = tp__pte_graph_new(p, m->name);
  ids = (uint32_t *)TP_MALLOC((m->n_args ? m->n_args : 1) * sizeof *ids);
  if (!g || !ids) {
    tp_pte_graph_destroy(g);
    TP_FREE(ids);
    return tp__error_set(&p->err, TP_ERR_NOMEM, "method \"%.80s\": no memory", m->name);
  }
  for (k = 0; k < m->n_args; k++) tp_pte_define_tensor(g, &m->args[k], &ids[k]);
  memset(&d, 0, sizeof d);
  d.backend_id = m->backend_id;
  d.blob_size = m->blob_size;
  d.produce = m->produce;
  d.ctx = m->ctx;
  d.specs = m->specs;
  d.n_specs = m->n_specs;
  tp_pte_call_delegate(g, &d, ids, m->n_args);
  TP_FREE(ids);
  return tp_pte_graph_finish(g); /* a failure (no memory) latches in p */
}

/* The refs tp__pte_build_plan needs for method m (its largest vector of tables). */
static size_t tp__pte_plan_refs(const tp__pte_meth *m) {
  size_t need = m->nvals, k;
  if (m->nins > need) need = m->nins;
  if (m->nops > need) need = m->nops;
  if (m->ndels > need) need = m->ndels;
  for (k = 0; k < m->ndels; k++)
    if (m->dels[k].nspecs > need) need = m->dels[k].nspecs;
  return need + 1;
}

/* Value v as an EValue table. */
static tp_fb_ref tp__pte_build_value(tp_fb_builder *b, const tp__pte_val *v, uint32_t cbase) {
  tp_fb_ref val, sizes = 0, order = 0, alloc = 0, items = 0; /* built before the table */
  if (v->kind == TP_PTE_V_Tensor) {
    int32_t sz[TP_MAX_DIMS];
    int d;
    for (d = 0; d < v->t.ndim; d++) sz[d] = (int32_t)v->t.sizes[d];
    sizes = tp_fb_create_vector(b, sz, (size_t)v->t.ndim, 4);
    order = tp_fb_create_vector(b, v->t.dim_order, (size_t)v->t.ndim, 1);
    if (!v->is_const) {
      tp_fb_start_table(b);
      tp_fb_add_u32(b, TP_PTE_F_AllocationDetails_memory_id, 1, 0);
      tp_fb_add_u32(b, TP_PTE_F_AllocationDetails_memory_offset_low, (uint32_t)v->offset, 0);
      tp_fb_add_u32(b, TP_PTE_F_AllocationDetails_memory_offset_high,
                    (uint32_t)(v->offset >> 32), 0);
      alloc = tp_fb_end_table(b);
    }
  }
  if (v->kind == TP_PTE_V_String) items = tp_fb_create_string(b, v->s, strlen(v->s));
  if (v->kind == TP_PTE_V_IntList) items = tp_fb_create_vector(b, v->ilist, v->nitems, 8);
  if (v->kind == TP_PTE_V_TensorList || v->kind == TP_PTE_V_OptionalTensorList)
    items = tp_fb_create_vector(b, v->items, v->nitems, 4);
  tp_fb_start_table(b);
  switch (v->kind) {
    case TP_PTE_V_Tensor: /* a constant: data_buffer_idx into the constant segment's offsets */
      tp_fb_add_ref(b, TP_PTE_F_Tensor_sizes, sizes);
      tp_fb_add_ref(b, TP_PTE_F_Tensor_dim_order, order);
      if (v->is_const) tp_fb_add_u32(b, TP_PTE_F_Tensor_data_buffer_idx, cbase + v->cidx, 0);
      tp_fb_add_ref(b, TP_PTE_F_Tensor_allocation_info, alloc);
      tp_fb_add_i8(b, TP_PTE_F_Tensor_scalar_type, (int8_t)v->t.dtype, 0);
      break;
    case TP_PTE_V_Int: tp_fb_add_i64(b, TP_PTE_F_Int_int_val, v->i, 0); break;
    case TP_PTE_V_Bool: tp_fb_add_u8(b, TP_PTE_F_Bool_bool_val, (uint8_t)(v->i != 0), 0); break;
    case TP_PTE_V_Double: tp_fb_add_f64(b, TP_PTE_F_Double_double_val, v->d, 0.0); break;
    case TP_PTE_V_String: tp_fb_add_ref(b, TP_PTE_F_String_string_val, items); break;
    case TP_PTE_V_IntList: tp_fb_add_ref(b, TP_PTE_F_IntList_items, items); break;
    case TP_PTE_V_TensorList:
    case TP_PTE_V_OptionalTensorList: /* the same one field */
      tp_fb_add_ref(b, TP_PTE_F_TensorList_items, items);
      break;
    default: break; /* Null: an empty table */
  }
  val = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_union(b, TP_PTE_F_EValue_val, (uint8_t)v->kind, val);
  return tp_fb_end_table(b);
}

/* One ExecutionPlan into the builder; its delegates' blobs are segments seg, seg + 1, ...;
   its constants are buffers cbase + 1, ... of the constant segment. */
static tp_fb_ref tp__pte_build_plan(tp_fb_builder *b, const tp__pte_meth *m, uint32_t seg,
                                    uint32_t cbase, tp_fb_ref *refs) {
  size_t k, j;
  tp_fb_ref values, vin, vout, instrs, chain, chains, ops, dels, ncbs, name;
  int64_t sizes2[2];

  for (k = 0; k < m->nvals; k++) refs[k] = tp__pte_build_value(b, &m->vals[k], cbase);
  values = tp_fb_create_vector_refs(b, refs, m->nvals);
  vin = tp_fb_create_vector(b, m->inputs, m->nin, 4);
  vout = tp_fb_create_vector(b, m->outputs, m->nout, 4);
  for (k = 0; k < m->nins; k++) {
    const tp__pte_ins *in = &m->ins[k];
    tp_fb_ref vargs = tp_fb_create_vector(b, in->args, in->nargs, 4), call;
    tp_fb_start_table(b);
    if (in->kind == TP_PTE_I_DelegateCall) {
      tp_fb_add_ref(b, TP_PTE_F_DelegateCall_args, vargs);
      tp_fb_add_i32(b, TP_PTE_F_DelegateCall_delegate_index, (int32_t)in->index, 0);
    } else {
      tp_fb_add_ref(b, TP_PTE_F_KernelCall_args, vargs);
      tp_fb_add_i32(b, TP_PTE_F_KernelCall_op_index, (int32_t)in->index, 0);
    }
    call = tp_fb_end_table(b);
    tp_fb_start_table(b);
    tp_fb_add_union(b, TP_PTE_F_Instruction_instr_args, (uint8_t)in->kind, call);
    refs[k] = tp_fb_end_table(b);
  }
  instrs = tp_fb_create_vector_refs(b, refs, m->nins);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_Chain_inputs, vin);
  tp_fb_add_ref(b, TP_PTE_F_Chain_outputs, vout);
  tp_fb_add_ref(b, TP_PTE_F_Chain_instructions, instrs);
  chain = tp_fb_end_table(b);
  chains = tp_fb_create_vector_refs(b, &chain, 1);
  for (k = 0; k < m->nops; k++) {
    tp_fb_ref on = tp_fb_create_string(b, m->ops[k].name, strlen(m->ops[k].name));
    tp_fb_ref ov = tp_fb_create_string(b, m->ops[k].overload, strlen(m->ops[k].overload));
    tp_fb_start_table(b);
    tp_fb_add_ref(b, TP_PTE_F_Operator_name, on);
    tp_fb_add_ref(b, TP_PTE_F_Operator_overload, ov);
    refs[k] = tp_fb_end_table(b);
  }
  ops = tp_fb_create_vector_refs(b, refs, m->nops);
  for (j = 0; j < m->ndels; j++) {
    const tp__pte_del *d = &m->dels[j];
    tp_fb_ref specs, processed, id;
    for (k = 0; k < d->nspecs; k++) {
      tp_fb_ref key = tp_fb_create_string(b, d->specs[k].key, strlen(d->specs[k].key));
      tp_fb_ref val = tp_fb_create_vector(b, d->specs[k].value, d->specs[k].nbytes, 1);
      tp_fb_start_table(b);
      tp_fb_add_ref(b, TP_PTE_F_CompileSpec_key, key);
      tp_fb_add_ref(b, TP_PTE_F_CompileSpec_value, val);
      refs[k] = tp_fb_end_table(b);
    }
    specs = d->nspecs ? tp_fb_create_vector_refs(b, refs, d->nspecs) : 0;
    tp_fb_start_table(b);
    tp_fb_add_u32(b, TP_PTE_F_BackendDelegateDataReference_index, seg + (uint32_t)j, 0);
    tp_fb_add_i8(b, TP_PTE_F_BackendDelegateDataReference_location, TP_PTE_DATA_SEGMENT, 0);
    processed = tp_fb_end_table(b);
    id = tp_fb_create_string(b, d->backend, strlen(d->backend));
    tp_fb_start_table(b);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_id, id);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_processed, processed);
    tp_fb_add_ref(b, TP_PTE_F_BackendDelegate_compile_specs, specs);
    refs[j] = tp_fb_end_table(b);
  }
  dels = tp_fb_create_vector_refs(b, refs, m->ndels);
  sizes2[0] = 0;
  sizes2[1] = (int64_t)m->planned;
  ncbs = tp_fb_create_vector(b, sizes2, 2, 8);
  name = tp_fb_create_string(b, m->name, strlen(m->name));
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_name, name);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_values, values);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_inputs, vin);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_outputs, vout);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_chains, chains);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_operators, ops);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_delegates, dels);
  tp_fb_add_ref(b, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, ncbs);
  return tp_fb_end_table(b);
}

/* Segment offsets and the flatbuffer (built on every size / write: it is small, and the
   embedded store may have grown since). Failures go to p->werr. */
static tp_status tp__pte_prepare(void *obj, uint64_t *total) {
  tp_pte *p = (tp_pte *)obj;
  tp_store *s = p->embed;
  size_t i, nrefs = 1, nsegs, nstore = s ? s->n_segs : 0, nnamed = s ? s->n_entries : 0;
  uint64_t off = 0, end, eh;
  tp_fb_ref *refs, plans, segs, cseg, coffs, named = 0, root;
  tp_fb_builder *b;
  const unsigned char *fbd;
  size_t fbn;
  tp_status st;

  if (p->n == 0)
    return tp__error_set(&p->werr, TP_ERR_INVALID,
                        "the program has no method (add one with tp_pte_add_method)");
  if (s && s->err.status != TP_OK)
    return tp__error_set(&p->werr, s->err.status, "the embedded store failed: %s", s->err.msg);

  /* Segments: 0 = the constant segment (every method's constants in order, each 16-aligned;
     empty without constants), 1 .. ndels = the delegates' blobs in method order, then the
     store's. */
  p->max_align = p->alignment;
  p->nconsts = 0;
  for (i = 0; i < p->n; i++) {
    tp__pte_meth *m = &p->meths[i];
    size_t k;
    for (k = 0; k < m->nvals; k++) {
      tp__pte_val *v = &m->vals[k];
      if (!v->is_const) continue;
      if (tp__align_u64(off, TP__PTE_CONST_ALIGN, &off) || tp__add_u64(off, v->nbytes, &end))
        return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "method \"%.80s\" value %lu: the "
                            "constant segment's size overflows 64 bits", m->name,
                            (unsigned long)k);
      v->coff = off;
      off = end;
      p->nconsts++;
    }
  }
  p->const_size = off;
  if (p->nconsts + 1 > (size_t)UINT32_MAX)
    return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "%lu constants (at most 2^32 - 2)",
                        (unsigned long)p->nconsts);
  for (i = 0; i < p->n; i++) {
    tp__pte_meth *m = &p->meths[i];
    size_t j;
    for (j = 0; j < m->ndels; j++) {
      tp__pte_del *d = &m->dels[j];
      if (tp__align_u64(off, p->alignment, &off) || tp__add_u64(off, d->blob_size, &end))
        return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "method \"%.80s\": segment offset "
                            "overflows 64 bits", m->name);
      d->seg_offset = off;
      off = end;
    }
  }
  if (nstore > p->store_off_cap) {
    uint64_t *no;
    if (nstore > ((size_t)-1) / sizeof(uint64_t))
      return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "too many store segments");
    no = (uint64_t *)TP_MALLOC(nstore * sizeof(uint64_t));
    if (!no)
      return tp__error_set(&p->werr, TP_ERR_NOMEM, "no memory for %lu segment offsets",
                          (unsigned long)nstore);
    TP_FREE(p->store_off);
    p->store_off = no;
    p->store_off_cap = nstore;
  }
  for (i = 0; i < nstore; i++) {
    const tp__store_seg *g = &s->segs[i];
    uint64_t a = g->alignment > p->alignment ? g->alignment : p->alignment;
    if (tp__align_u64(off, a, &off) || tp__add_u64(off, g->nbytes, &end))
      return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "store segment %lu: offset overflows 64 "
                          "bits", (unsigned long)i);
    p->store_off[i] = off;
    off = end;
    if (a > p->max_align) p->max_align = a;
  }
  p->data_size = off;
  nsegs = 1 + p->ndels + nstore;
  if (nsegs - 1 > (size_t)UINT32_MAX - 1u)
    return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "%lu segments (at most 2^32 - 1)",
                        (unsigned long)nsegs);

  if (!p->fb) {
    st = tp_fb_builder_create(&p->fb);
    if (st != TP_OK) return tp__error_set(&p->werr, st, "cannot create the flatbuffer builder");
  } else {
    tp_fb_builder_reset(p->fb);
  }
  b = p->fb;
  /* refs: one per segment / named entry, or what the largest plan needs */
  if (nsegs > nrefs) nrefs = nsegs;
  if (nnamed > nrefs) nrefs = nnamed;
  if (p->nconsts + 1 > nrefs) nrefs = p->nconsts + 1;
  for (i = 0; i < p->n; i++) {
    size_t need = tp__pte_plan_refs(&p->meths[i]);
    if (need > nrefs) nrefs = need;
  }
  if (nrefs > ((size_t)-1) / sizeof(tp_fb_ref) - p->n)
    return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "too many flatbuffer refs");
  refs = (tp_fb_ref *)TP_MALLOC((nrefs + p->n) * sizeof(tp_fb_ref));
  if (!refs)
    return tp__error_set(&p->werr, TP_ERR_NOMEM, "no memory for %lu flatbuffer refs",
                        (unsigned long)(nrefs + p->n));
  {
    tp_fb_ref *plan_refs = refs + nrefs; /* the plans' refs, past what each plan builds with */
    uint32_t seg = 1, cbase = 0;
    memset(plan_refs, 0, p->n * sizeof(tp_fb_ref)); /* (GCC, with the adds inlined) */
    for (i = 0; i < p->n; i++) {
      plan_refs[i] = tp__pte_build_plan(b, &p->meths[i], seg, cbase, refs);
      seg += (uint32_t)p->meths[i].ndels;
      cbase += (uint32_t)p->meths[i].nconsts;
    }
    plans = tp_fb_create_vector_refs(b, plan_refs, p->n);
  }
  /* DataSegment: offset, size (segment 0: the constants at 0, or empty: both default). */
  tp_fb_start_table(b);
  tp_fb_add_u64(b, TP_PTE_F_DataSegment_size, p->const_size, 0);
  refs[0] = tp_fb_end_table(b);
  {
    size_t j, r = 1;
    for (i = 0; i < p->n; i++)
      for (j = 0; j < p->meths[i].ndels; j++) {
        tp_fb_start_table(b);
        tp_fb_add_u64(b, TP_PTE_F_DataSegment_offset, p->meths[i].dels[j].seg_offset, 0);
        tp_fb_add_u64(b, TP_PTE_F_DataSegment_size, p->meths[i].dels[j].blob_size, 0);
        refs[r++] = tp_fb_end_table(b);
      }
  }
  for (i = 0; i < nstore; i++) {
    tp_fb_start_table(b);
    tp_fb_add_u64(b, TP_PTE_F_DataSegment_offset, p->store_off[i], 0);
    tp_fb_add_u64(b, TP_PTE_F_DataSegment_size, s->segs[i].nbytes, 0);
    refs[1 + p->ndels + i] = tp_fb_end_table(b);
  }
  segs = tp_fb_create_vector_refs(b, refs, nsegs);
  if (s) {
    for (i = 0; i < nnamed; i++) {
      const tp__store_entry *e = &s->entries[i];
      tp_fb_ref key = tp_fb_create_string(b, e->key, e->key_len);
      tp_fb_start_table(b);
      tp_fb_add_ref(b, TP_PTE_F_NamedData_key, key);
      tp_fb_add_u32(b, TP_PTE_F_NamedData_segment_index, (uint32_t)(1 + p->ndels + e->seg), 0);
      refs[i] = tp_fb_end_table(b);
    }
    named = tp_fb_create_vector_refs(b, refs, nnamed);
  } else if (!p->omit_empty_named_data) {
    named = tp_fb_create_vector_refs(b, refs, 0); /* present and empty: see tp_pte_options */
  }
  TP_FREE(refs);
  { /* offsets[0]: the reserved buffer 0; then each constant's place */
    uint64_t *co = (uint64_t *)TP_MALLOC((p->nconsts + 1) * sizeof *co);
    size_t c = 1, k;
    if (!co)
      return tp__error_set(&p->werr, TP_ERR_NOMEM, "no memory for %lu constant offsets",
                          (unsigned long)p->nconsts + 1ul); /* the reserved one too */
    co[0] = 0;
    for (i = 0; i < p->n; i++)
      for (k = 0; k < p->meths[i].nvals; k++)
        if (p->meths[i].vals[k].is_const) co[c++] = p->meths[i].vals[k].coff;
    coffs = tp_fb_create_vector(b, co, p->nconsts + 1, 8);
    TP_FREE(co);
  }
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_SubsegmentOffsets_offsets, coffs);
  tp_fb_add_u32(b, TP_PTE_F_SubsegmentOffsets_segment_index, 0, 0);
  cseg = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_Program_execution_plan, plans);
  tp_fb_add_ref(b, TP_PTE_F_Program_segments, segs);
  tp_fb_add_ref(b, TP_PTE_F_Program_constant_segment, cseg);
  tp_fb_add_ref(b, TP_PTE_F_Program_named_data, named);
  tp_fb_add_u32(b, TP_PTE_F_Program_version, 0, 0);
  root = tp_fb_end_table(b);
  st = tp_fb_finish(b, root, "ET12");
  if (st != TP_OK)
    return tp__error_set(&p->werr, st, "building the program flatbuffer: %s", tp_fb_error(b));
  fbd = tp_fb_data(b, &fbn);
  if (!fbd || fbn < 12 || (uint64_t)fbn > 0x7FFFFFFFull - TP__PTE_EH_LEN)
    return tp__error_set(&p->werr, TP_ERR_OVERFLOW,
                        "the program flatbuffer has %lu bytes (limit 2 GiB)",
                        (unsigned long)fbn);
  p->program_size = (uint64_t)fbn + TP__PTE_EH_LEN;
  if (tp__align_u64(p->program_size, p->max_align, &p->base) ||
      tp__add_u64(p->base, p->data_size, &eh))
    return tp__error_set(&p->werr, TP_ERR_OVERFLOW, "the program size overflows 64 bits");
  *total = eh;
  return TP_OK;
}

/* The program's bytes (tp__pte_prepare ran): the writer core's emit. */
static tp_status tp__pte_emit(void *obj, tp_sink *sink) {
  tp_pte *p = (tp_pte *)obj;
  unsigned char head[8 + TP__PTE_EH_LEN];
  const unsigned char *fb;
  size_t fbn, i, seg;
  uint64_t pos = 0;
  tp_status st;

  fb = tp_fb_data(p->fb, &fbn);
  tp__put_le32(head, tp__get_le32(fb) + TP__PTE_EH_LEN);
  memcpy(head + 4, fb + 4, 4);
  memcpy(head + 8, "eh00", 4);
  tp__put_le32(head + 12, TP__PTE_EH_LEN);
  tp__put_le64(head + 16, p->program_size);
  tp__put_le64(head + 24, p->base);
  tp__put_le64(head + 32, p->data_size);
  st = tp_sink_write(sink, head, sizeof head);
  if (st == TP_OK) st = tp_sink_write(sink, fb + 8, fbn - 8);
  if (st == TP_OK) st = tp__store_zeros(sink, p->base - p->program_size);
  for (i = 0; st == TP_OK && i < p->n; i++) { /* segment 0: the constants */
    const tp__pte_meth *m = &p->meths[i];
    size_t k;
    for (k = 0; k < m->nvals; k++) {
      const tp__pte_val *v = &m->vals[k];
      tp__tally t;
      tp_sink w;
      if (!v->is_const) continue;
      st = tp__store_zeros(sink, v->coff - pos);
      if (st != TP_OK) break;
      w = tp__sink_tally(&t, sink);
      st = tp_compact_write(&v->view, TP_ORDER_ROW_MAJOR, &w);
      if (st == TP_OK && t.n != v->nbytes)
        return tp__error_set(&p->werr, TP_ERR_INVALID, "method \"%.80s\" value %lu: the "
                            "constant's view streamed %llu bytes, not its %llu", m->name,
                            (unsigned long)k, (unsigned long long)t.n,
                            (unsigned long long)v->nbytes);
      if (st != TP_OK) break; /* (a sink's failure gets the writer core's sentence) */
      pos = v->coff + v->nbytes;
    }
  }
  for (i = 0, seg = 1; st == TP_OK && i < p->n; i++) {
    const tp__pte_meth *m = &p->meths[i];
    size_t j;
    for (j = 0; j < m->ndels; j++, seg++) {
      const tp__pte_del *d = &m->dels[j];
      tp__tally t;
      tp_sink w;
      st = tp__store_zeros(sink, d->seg_offset - pos);
      if (st != TP_OK) break;
      w = tp__sink_tally(&t, sink);
      st = d->produce(d->ctx, &w);
      if (st == TP_OK && t.n != d->blob_size)
        return tp__error_set(&p->werr, TP_ERR_INVALID,
                            "method \"%.80s\": the producer streamed %llu bytes, the blob size "
                            "is %llu", m->name, (unsigned long long)t.n,
                            (unsigned long long)d->blob_size);
      if (st != TP_OK) /* (a sink's failure gets the writer core's sentence) */
        return tp__error_set(&p->werr, st, "method \"%.80s\": writing its blob (segment %lu, "
                            "file offset %llu) failed: %s", m->name, (unsigned long)seg,
                            (unsigned long long)(p->base + d->seg_offset), tp_status_str(st));
      pos = d->seg_offset + d->blob_size;
    }
  }
  for (i = 0; st == TP_OK && p->embed && i < p->embed->n_segs; i++) {
    const tp__store_seg *g = &p->embed->segs[i];
    st = tp__store_zeros(sink, p->store_off[i] - pos);
    if (st == TP_OK) st = tp__store_seg_write(g, sink);
    if (st == TP_ERR_INVALID)
      return tp__error_set(&p->werr, st, "named data segment %lu (file offset %llu): its view "
                           "did not stream the %llu bytes that were added",
                           (unsigned long)(1 + p->ndels + i),
                           (unsigned long long)(p->base + p->store_off[i]),
                           (unsigned long long)g->nbytes);
    pos = p->store_off[i] + g->nbytes;
  }
  return st;
}

static tp__writer tp__pte_writer(tp_pte *p) {
  TP_ASSERT(p);
  {
    tp__writer w = {p, &p->err, &p->werr, &p->writing,
                    p->embed ? &p->embed->writing : NULL, p->progress, p->progress_ctx,
                    tp__pte_prepare, tp__pte_emit};
    return w;
  }
}

TPDEF tp_status tp_pte_size(tp_pte *p, uint64_t *size_out) {
  tp__writer w = tp__pte_writer(p);
  return tp__writer_size(&w, "tp_pte_size", size_out);
}
TPDEF tp_status tp_pte_write(tp_pte *p, tp_sink *sink) {
  tp__writer w = tp__pte_writer(p);
  return tp__writer_write(&w, "tp_pte_write", sink);
}
#ifndef TP_NO_STDIO
TPDEF tp_status tp_pte_write_file(tp_pte *p, const char *path) {
  tp__writer w = tp__pte_writer(p);
  return tp__writer_write_file(&w, "tp_pte_write_file", path);
}
TPDEF tp_status tp_pte_save(tp_pte *p, const char *path, uint64_t *size_out) {
  tp__writer w = tp__pte_writer(p);
  return tp__writer_save(&w, "tp_pte_save", path, size_out);
}
#endif

/* ---- reader ---------------------------------------------------------------------------- */

#define TP__PTE_BAD(f, ...) tp__error_set(&(f)->err, TP_ERR_FORMAT, __VA_ARGS__)

/* A reader refusal (TP_ERR_FORMAT) at one place of a program: "method M value V", "method M
   delegate D" or "method M chain C instruction K" (what = "instruction"), then fmt. The place
   is formatted only when a sentence is written: the readers call this on failure only. */
static tp_status tp__pte_bad_at(tp_pte_file *f, const char *what, size_t m, size_t chain,
                                size_t k, const char *fmt, ...) TP__PRINTF(6, 7);
static tp_status tp__pte_bad_at(tp_pte_file *f, const char *what, size_t m, size_t chain,
                                size_t k, const char *fmt, ...) {
  va_list ap;
  size_t n;
  if (f->err.status != TP_OK) return f->err.status;
  if (!strcmp(what, "instruction"))
    tp__format(f->err.msg, sizeof f->err.msg, "method %lu chain %lu instruction %lu",
               (unsigned long)m, (unsigned long)chain, (unsigned long)k);
  else
    tp__format(f->err.msg, sizeof f->err.msg, "method %lu %s %lu", (unsigned long)m, what,
               (unsigned long)k);
  f->err.status = TP_ERR_FORMAT;
  n = strlen(f->err.msg);
  va_start(ap, fmt);
  tp__vformat(f->err.msg + n, sizeof f->err.msg - n, fmt, ap);
  va_end(ap);
  return TP_ERR_FORMAT;
}

static void tp__pte_rewind(tp_pte_file *f) {
  f->root__.r = &f->r__;
  f->r__.tables = 0;
}

static tp_fb_table tp__pte_plan(tp_pte_file *f, size_t m) {
  tp_fb_vector v;
  tp__pte_rewind(f);
  v = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_execution_plan, 4);
  return tp_fb_vector_table(&v, m);
}

static const char *tp__pte_fbmsg(tp_pte_file *f) {
  return f->r__.err.status != TP_OK ? f->r__.err.msg : "absent";
}

/* Value v of plan (of method m): decoded and checked against the buffer sizes. */
static tp_status tp__pte_value(tp_pte_file *f, const tp_fb_table *plan, size_t m, size_t v,
                               tp_pte_value_info *out) {
#define TP__BAD(...) tp__pte_bad_at(f, "value", m, 0, v, __VA_ARGS__)
  tp_fb_vector values = tp_fb_vector_field(plan, TP_PTE_F_ExecutionPlan_values, 4);
  tp_fb_vector ncbs = tp_fb_vector_field(plan, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, 8);
  tp_fb_table ev = tp_fb_vector_table(&values, v), val, alloc;
  uint8_t tag = 0;
  memset(out, 0, sizeof *out);
  val = tp_fb_union_field(&ev, TP_PTE_F_EValue_val, &tag);
  if (tp_fb_reader_status(&f->r__) != TP_OK || ev.pos == 0)
    return TP__BAD(": %s", tp__pte_fbmsg(f));
  out->kind = tag;
  if (tag > TP_PTE_V_OptionalTensorList)
    return TP__BAD(": kind %u is not a KernelTypes member", (unsigned)tag);
  if (tag == TP_PTE_V_Int) out->i = tp_fb_i64(&val, TP_PTE_F_Int_int_val, 0);
  if (tag == TP_PTE_V_Bool) out->i = tp_fb_u8(&val, TP_PTE_F_Bool_bool_val, 0);
  if (tag == TP_PTE_V_Double) out->d = tp_fb_f64(&val, TP_PTE_F_Double_double_val, 0);
  if (tag >= TP_PTE_V_IntList) {
    static const unsigned char es[5] = {8, 8, 1, 4, 4};
    tp_fb_vector items = tp_fb_vector_field(&val, 0, es[tag - TP_PTE_V_IntList]);
    size_t k;
    if (tp_fb_reader_status(&f->r__) != TP_OK || items.pos == 0)
      return TP__BAD(" (%s): items %s", tp_pte_value_kind_name(tag), tp__pte_fbmsg(f));
    if (tag == TP_PTE_V_TensorList || tag == TP_PTE_V_OptionalTensorList)
      for (k = 0; k < items.count; k++) {
        int64_t x = tp__i32_bits(tp_fb_vector_scalar(&items, k));
        if (x >= (int64_t)values.count || x < (tag == TP_PTE_V_TensorList ? 0 : -1))
          return TP__BAD(" (%s): item %lu is value %lld of %lu",
                         tp_pte_value_kind_name(tag), (unsigned long)k, (long long)x,
                         (unsigned long)values.count);
      }
  }
  if (tag == TP_PTE_V_String && !tp_fb_string(&val, TP_PTE_F_String_string_val, NULL))
    return TP__BAD(": String without string_val");
  if (tag == TP_PTE_V_Tensor) {
    tp_fb_vector sizes = tp_fb_vector_field(&val, TP_PTE_F_Tensor_sizes, 4);
    tp_fb_vector order = tp_fb_vector_field(&val, TP_PTE_F_Tensor_dim_order, 1);
    unsigned char seen[TP_MAX_DIMS];
    uint64_t numel = 1, es;
    size_t d;
    int ovf = 0;
    out->scalar_type = tp_fb_i8(&val, TP_PTE_F_Tensor_scalar_type, 0);
    out->shape_dynamism = tp_fb_i8(&val, TP_PTE_F_Tensor_shape_dynamism, 0);
    out->data_buffer_idx = tp_fb_u32(&val, TP_PTE_F_Tensor_data_buffer_idx, 0);
    alloc = tp_fb_table_field(&val, TP_PTE_F_Tensor_allocation_info);
    if (tp_fb_reader_status(&f->r__) != TP_OK)
      return TP__BAD(" (Tensor): %s", f->r__.err.msg);
    es = (uint64_t)tp__pte_scalar_size(out->scalar_type);
    if (es == 0)
      return TP__BAD(": scalar type %d is not a ScalarType", out->scalar_type);
    if (sizes.pos == 0 || order.pos == 0)
      return TP__BAD(": a Tensor without %s", sizes.pos == 0 ? "sizes" : "dim_order");
    if (sizes.count > TP_MAX_DIMS || order.count != sizes.count)
      return TP__BAD(": %lu sizes and %lu dim_order entries (at most %d, equal)",
                     (unsigned long)sizes.count, (unsigned long)order.count, TP_MAX_DIMS);
    out->ndim = (int)sizes.count;
    memset(seen, 0, sizeof seen);
    for (d = 0; d < sizes.count; d++) {
      int64_t sz = tp__i32_bits(tp_fb_vector_scalar(&sizes, d));
      uint64_t o = tp_fb_vector_scalar(&order, d);
      if (sz < 0)
        return TP__BAD(": size %lld at dim %lu", (long long)sz, (unsigned long)d);
      if (o >= sizes.count || seen[o])
        return TP__BAD(": dim_order is not a permutation of 0..%lu (entry %lu is %llu)",
                       (unsigned long)(sizes.count - 1), (unsigned long)d,
                       (unsigned long long)o);
      seen[o] = 1;
      out->sizes[d] = sz;
      out->dim_order[d] = (uint8_t)o;
      if (tp__mul_u64(numel, (uint64_t)sz, &numel)) ovf = 1;
    }
    if (ovf || tp__mul_u64(numel, es, &out->nbytes))
      return TP__BAD(": the tensor's byte count overflows");
    if (alloc.pos != 0) {
      uint64_t lo = tp_fb_u32(&alloc, TP_PTE_F_AllocationDetails_memory_offset_low, 0);
      uint64_t hi = tp_fb_u32(&alloc, TP_PTE_F_AllocationDetails_memory_offset_high, 0);
      uint64_t end, bsize;
      out->planned = 1;
      out->memory_id = tp_fb_u32(&alloc, TP_PTE_F_AllocationDetails_memory_id, 0);
      out->memory_offset = lo | (hi << 32);
      if (ncbs.pos == 0 || out->memory_id == 0 || out->memory_id >= ncbs.count)
        return TP__BAD(": memory_id %lu, but the plan has %lu buffers (ids 1 .. %lu are "
                       "planned memory)", (unsigned long)out->memory_id,
                       (unsigned long)ncbs.count,
                       (unsigned long)(ncbs.count > 0 ? ncbs.count - 1 : 0));
      bsize = tp_fb_vector_scalar(&ncbs, out->memory_id);
      if (tp__add_u64(out->memory_offset, out->nbytes, &end) || end > bsize)
        return TP__BAD(": offset %llu + %llu bytes exceeds buffer %lu's %llu bytes",
                       (unsigned long long)out->memory_offset, (unsigned long long)out->nbytes,
                       (unsigned long)out->memory_id, (unsigned long long)bsize);
    }
  }
  if (tag == TP_PTE_V_Tensor && alloc.pos == 0 && out->data_buffer_idx > 0) {
    /* a constant: buffer data_buffer_idx of the constant segment, inside that segment */
    tp_fb_table cseg = tp_fb_table_field(&f->root__, TP_PTE_F_Program_constant_segment);
    tp_fb_vector coffs = tp_fb_vector_field(&cseg, TP_PTE_F_SubsegmentOffsets_offsets, 8);
    uint32_t si = tp_fb_u32(&cseg, TP_PTE_F_SubsegmentOffsets_segment_index, 0);
    uint64_t soff = 0, ssize = 0, coff, end;
    if (tp_fb_reader_status(&f->r__) != TP_OK || coffs.pos == 0 ||
        out->data_buffer_idx >= coffs.count)
      return TP__BAD(": data_buffer_idx %lu, but the constant segment has %lu offsets",
                     (unsigned long)out->data_buffer_idx,
                     (unsigned long)(coffs.pos ? coffs.count : 0));
    coff = tp_fb_vector_scalar(&coffs, out->data_buffer_idx);
    if (tp_pte_segment_at(f, si, &soff, &ssize) != TP_OK)
      return f->err.status != TP_OK
                 ? f->err.status
                 : TP__BAD(": the constant segment is segment %lu, which the program does "
                           "not have", (unsigned long)si);
    if (tp__add_u64(coff, out->nbytes, &end) || end > ssize)
      return TP__BAD(": constant buffer %lu at %llu + %llu bytes exceeds the constant "
                     "segment's %llu bytes", (unsigned long)out->data_buffer_idx,
                     (unsigned long long)coff, (unsigned long long)out->nbytes,
                     (unsigned long long)ssize);
    out->data = f->data + f->segment_base + soff + coff;
  }
  if (tp_fb_reader_status(&f->r__) != TP_OK)
    return TP__BAD(": %s", f->r__.err.msg);
  return TP_OK;
#undef TP__BAD
}

/* An int32 index vector whose every entry names one of n things. */
static tp_status tp__pte_indices(tp_pte_file *f, const tp_fb_vector *vec, size_t n,
                                 const char *what, size_t m, long k) {
  size_t i;
  char where[40]; /* "inputs", or "chain inputs 2" / "instruction 5" with k >= 0 */
  for (i = 0; i < vec->count; i++) {
    int64_t x = tp__i32_bits(tp_fb_vector_scalar(vec, i));
    if (x >= 0 && x < (int64_t)n) continue;
    if (k < 0) tp__format(where, sizeof where, "%s", what);
    else tp__format(where, sizeof where, "%s%ld", what, k);
    return TP__PTE_BAD(f, "method %lu %s: entry %lu is value %lld, but there are %lu values",
                       (unsigned long)m, where, (unsigned long)i, (long long)x, (unsigned long)n);
  }
  return TP_OK;
}

static tp_status tp__pte_check_plan(tp_pte_file *f, size_t m) {
  tp_fb_table plan = tp__pte_plan(f, m);
  tp_fb_vector values, ins, outs, chains, ops, dels, ncbs;
  const char *name;
  size_t i, k, nvalues;
  tp_status st;
  name = tp_fb_string(&plan, TP_PTE_F_ExecutionPlan_name, NULL);
  values = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_values, 4);
  ins = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_inputs, 4);
  outs = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_outputs, 4);
  chains = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_chains, 4);
  ops = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_operators, 4);
  dels = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_delegates, 4);
  ncbs = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, 8);
  if (tp_fb_reader_status(&f->r__) != TP_OK || plan.pos == 0)
    return TP__PTE_BAD(f, "method %lu: %s", (unsigned long)m, tp__pte_fbmsg(f));
  if (!name || !*name) return TP__PTE_BAD(f, "method %lu: no name", (unsigned long)m);
  for (i = 0; i < m; i++) {
    tp_fb_table other = tp__pte_plan(f, i);
    const char *on = tp_fb_string(&other, TP_PTE_F_ExecutionPlan_name, NULL);
    if (on && strcmp(on, name) == 0)
      return TP__PTE_BAD(f, "method %lu: the name \"%.80s\" is already method %lu's",
                         (unsigned long)m, name, (unsigned long)i);
  }
  tp__pte_rewind(f);
  if (values.pos == 0 || ins.pos == 0 || outs.pos == 0 || dels.pos == 0 || ncbs.pos == 0)
    return TP__PTE_BAD(f, "method \"%.80s\": no %s", name,
                       values.pos == 0 ? "values" : ins.pos == 0 ? "inputs" :
                       outs.pos == 0 ? "outputs" : dels.pos == 0 ? "delegates" :
                       "non_const_buffer_sizes");
  nvalues = values.count;
  for (i = 0; i < ncbs.count; i++)
    if (tp_fb_vector_scalar(&ncbs, i) >= ((uint64_t)1 << 63))
      return TP__PTE_BAD(f, "method \"%.80s\": non_const_buffer_sizes[%lu] is negative", name,
                         (unsigned long)i);
  for (i = 0; i < nvalues; i++) {
    tp_pte_value_info vi;
    tp__pte_rewind(f);
    st = tp__pte_value(f, &plan, m, i, &vi);
    if (st != TP_OK) return st;
  }
  if (tp__pte_indices(f, &ins, nvalues, "inputs", m, -1) != TP_OK ||
      tp__pte_indices(f, &outs, nvalues, "outputs", m, -1) != TP_OK)
    return f->err.status;
  if (chains.pos == 0 || chains.count == 0)
    return TP__PTE_BAD(f, "method \"%.80s\": no chain", name);
  for (i = 0; ops.pos && i < ops.count; i++) {
    const char *on, *ov;
    st = tp_pte_operator_at(f, m, i, &on, &ov);
    if (st != TP_OK) return f->err.status ? f->err.status : st;
  }
  for (i = 0; i < dels.count; i++) {
    tp_pte_delegate_info di;
    st = tp_pte_delegate_at(f, m, i, &di);
    if (st != TP_OK) return f->err.status ? f->err.status : st;
    for (k = 0; k < di.n_specs; k++) {
      const char *key;
      const void *val;
      size_t nb;
      st = tp_pte_compile_spec_at(f, m, i, k, &key, &val, &nb);
      if (st != TP_OK) return f->err.status ? f->err.status : st;
    }
  }
  for (i = 0; i < chains.count; i++) {
    tp_fb_table ch;
    tp_fb_vector cin, cout, instrs;
    tp__pte_rewind(f);
    ch = tp_fb_vector_table(&chains, i);
    cin = tp_fb_vector_field(&ch, TP_PTE_F_Chain_inputs, 4);
    cout = tp_fb_vector_field(&ch, TP_PTE_F_Chain_outputs, 4);
    instrs = tp_fb_vector_field(&ch, TP_PTE_F_Chain_instructions, 4);
    if (tp_fb_reader_status(&f->r__) != TP_OK || ch.pos == 0)
      return TP__PTE_BAD(f, "method \"%.80s\" chain %lu: %s", name, (unsigned long)i,
                         tp__pte_fbmsg(f));
    if (instrs.pos == 0)
      return TP__PTE_BAD(f, "method \"%.80s\" chain %lu: no instructions", name,
                         (unsigned long)i);
    if (tp__pte_indices(f, &cin, nvalues, "chain inputs ", m, (long)i) != TP_OK ||
        tp__pte_indices(f, &cout, nvalues, "chain outputs ", m, (long)i) != TP_OK)
      return f->err.status;
    for (k = 0; k < instrs.count; k++) {
      tp_pte_instruction_info ii;
      st = tp_pte_instruction_at(f, m, i, k, &ii);
      if (st != TP_OK) return f->err.status ? f->err.status : st;
    }
  }
  return TP_OK;
}

TPDEF tp_status tp_pte_read(tp_pte_file *f, const void *data, size_t size) {
  const unsigned char *b = (const unsigned char *)data;
  tp_fb_vector plans, segs, named, bdd;
  tp_fb_table cseg;
  tp_fb_vector coffs;
  size_t i;
  tp_status st;

  TP_ASSERT(f);
  memset(f, 0, sizeof *f);
  f->data = b;
  f->size = size;
  if (!b && size > 0)
    return tp__error_set(&f->err, TP_ERR_INVALID, "NULL data with %lu bytes",
                        (unsigned long)size);
  if (size < TP__PTE_HEAD_BYTES)
    return TP__PTE_BAD(f, "%lu bytes: shorter than the %u bytes the loader reads first",
                       (unsigned long)size, TP__PTE_HEAD_BYTES);
  if (memcmp(b + 4, "ET12", 4) != 0)
    return TP__PTE_BAD(f, "file identifier is not ET12");
  f->program_size = size;
  if (memcmp(b + 8, "eh00", 4) == 0) {
    uint32_t len = tp__get_le32(b + 12);
    uint64_t end;
    if (len < TP__PTE_EH_MIN)
      return TP__PTE_BAD(f, "eh00 header length %lu < %u", (unsigned long)len, TP__PTE_EH_MIN);
    f->has_extended_header = 1;
    f->program_size = tp__get_le64(b + 16);
    f->segment_base = tp__get_le64(b + 24);
    f->segment_data_size = len >= 32 ? tp__get_le64(b + 32) : 0;
    if (f->program_size > size || f->program_size < 16)
      return TP__PTE_BAD(f, "program size %llu, but the file has %lu bytes",
                         (unsigned long long)f->program_size, (unsigned long)size);
    if (f->segment_base != 0 || f->segment_data_size != 0) {
      if (tp__add_u64(f->segment_base, f->segment_data_size, &end) || end > size)
        return TP__PTE_BAD(f, "segment base %llu + data size %llu exceeds the file's %lu bytes",
                           (unsigned long long)f->segment_base,
                           (unsigned long long)f->segment_data_size, (unsigned long)size);
      if (f->segment_base < f->program_size)
        return TP__PTE_BAD(f, "segment base %llu lies inside the program (which ends at %llu)",
                           (unsigned long long)f->segment_base,
                           (unsigned long long)f->program_size);
    }
  }
  st = tp_fb_reader_init_ex(&f->r__, b, (size_t)f->program_size, "ET12", &f->root__, 0,
                            (size_t)-1); /* no per-walk table budget: the accessors rewind per
                                            element; the visit budget bounds the whole read */
  if (st != TP_OK)
    return TP__PTE_BAD(f, "program flatbuffer: %s",
                       f->r__.err.status != TP_OK ? f->r__.err.msg : tp_status_str(st));
  f->version = tp_fb_u32(&f->root__, TP_PTE_F_Program_version, 0);
  plans = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_execution_plan, 4);
  segs = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_segments, 4);
  named = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_named_data, 4);
  bdd = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_backend_delegate_data, 4);
  cseg = tp_fb_table_field(&f->root__, TP_PTE_F_Program_constant_segment);
  coffs = tp_fb_vector_field(&cseg, TP_PTE_F_SubsegmentOffsets_offsets, 8);
  if (tp_fb_reader_status(&f->r__) != TP_OK)
    return TP__PTE_BAD(f, "Program: %s", f->r__.err.msg);
  if (plans.pos == 0 || plans.count == 0)
    return TP__PTE_BAD(f, "no execution plan");
  if (plans.count > TP_PTE_MAX_METHODS)
    return TP__PTE_BAD(f, "%lu execution plans (at most %d)", (unsigned long)plans.count,
                       TP_PTE_MAX_METHODS);
  f->n_segments = segs.pos ? segs.count : 0;
  f->n_named = named.pos ? named.count : 0;
  f->n_inline = bdd.pos ? bdd.count : 0;
  for (i = 0; i < f->n_segments; i++) {
    uint64_t off, sz;
    st = tp_pte_segment_at(f, i, &off, &sz);
    if (st != TP_OK) return f->err.status ? f->err.status : st;
  }
  for (i = 0; i < f->n_inline; i++) {
    tp_fb_table d;
    tp__pte_rewind(f);
    d = tp_fb_vector_table(&bdd, i);
    tp_fb_vector_field(&d, TP_PTE_F_BackendDelegateInlineData_data, 1);
    if (tp_fb_reader_status(&f->r__) != TP_OK || d.pos == 0)
      return TP__PTE_BAD(f, "backend_delegate_data[%lu]: %s", (unsigned long)i,
                         tp__pte_fbmsg(f));
  }
  if (cseg.pos == 0 || coffs.pos == 0 || coffs.count == 0)
    return TP__PTE_BAD(f, "no constant segment with offsets (the loader refuses such a "
                       "program)");
  {
    uint32_t ci = tp_fb_u32(&cseg, TP_PTE_F_SubsegmentOffsets_segment_index, 0);
    if (coffs.count > 1 && ci >= f->n_segments)
      return TP__PTE_BAD(f, "constant segment index %lu, but there are %lu segments",
                         (unsigned long)ci, (unsigned long)f->n_segments);
  }
  for (i = 0; i < f->n_named; i++) {
    const char *key;
    uint32_t si;
    const void *d;
    uint64_t n;
    st = tp_pte_named_at(f, i, &key, &si, &d, &n);
    if (st != TP_OK) return f->err.status ? f->err.status : st;
  }
  f->n_methods = plans.count;
  for (i = 0; i < plans.count; i++) {
    st = tp__pte_check_plan(f, i);
    if (st != TP_OK) {
      f->n_methods = 0;
      if (f->err.status == TP_OK) /* an accessor's refusal: the reader's own sentence */
        return TP__PTE_BAD(f, "method %lu: %s", (unsigned long)i, tp__pte_fbmsg(f));
      return st;
    }
  }
  /* The read is over: the accessors' lookups, the caller's to make, are not counted. */
  f->r__.max_visits = (size_t)-1;
  return TP_OK;
}

/* Entry guard of the accessors: the open failure, then the index. */
#define TP__PTE_GUARD(f, cond)                                                                 \
  do {                                                                                         \
    TP_ASSERT(f);                                                                              \
    if ((f)->err.status != TP_OK) return (f)->err.status;                                      \
    if (!(cond)) return TP_ERR_INVALID;                                                        \
  } while (0)

TPDEF tp_status tp_pte_method_at(tp_pte_file *f, size_t m, tp_pte_method_info *out) {
  tp_fb_table plan;
  tp_fb_vector v;
  size_t i;
  TP__PTE_GUARD(f, out && m < f->n_methods);
  memset(out, 0, sizeof *out);
  plan = tp__pte_plan(f, m);
  out->name = tp_fb_string(&plan, TP_PTE_F_ExecutionPlan_name, NULL);
  out->n_values = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_values, 4).count;
  out->n_inputs = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_inputs, 4).count;
  out->n_outputs = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_outputs, 4).count;
  out->n_chains = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_chains, 4).count;
  out->n_operators = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_operators, 4).count;
  out->n_delegates = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_delegates, 4).count;
  v = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, 8);
  out->n_buffers = v.count;
  for (i = 0; i < v.count; i++) {
    uint64_t s = tp_fb_vector_scalar(&v, i);
    out->planned_bytes = out->planned_bytes + s < out->planned_bytes ? UINT64_MAX
                                                                     : out->planned_bytes + s;
  }
  return tp_fb_reader_status(&f->r__) == TP_OK ? TP_OK : TP_ERR_FORMAT;
}

TPDEF tp_status tp_pte_method_find(tp_pte_file *f, const char *name, size_t *m_out) {
  size_t i;
  TP__PTE_GUARD(f, name && m_out);
  for (i = 0; i < f->n_methods; i++) {
    tp_fb_table plan = tp__pte_plan(f, i);
    const char *n = tp_fb_string(&plan, TP_PTE_F_ExecutionPlan_name, NULL);
    if (n && strcmp(n, name) == 0) {
      *m_out = i;
      return TP_OK;
    }
  }
  return TP_ERR_INVALID;
}

TPDEF tp_status tp_pte_value_at(tp_pte_file *f, size_t m, size_t v, tp_pte_value_info *out) {
  tp_fb_table plan;
  TP__PTE_GUARD(f, out && m < f->n_methods);
  plan = tp__pte_plan(f, m);
  if (v >= tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_values, 4).count) {
    memset(out, 0, sizeof *out);
    return TP_ERR_INVALID;
  }
  return tp__pte_value(f, &plan, m, v, out);
}

TPDEF tp_status tp_pte_io_at(tp_pte_file *f, size_t m, int is_output, size_t k, size_t *v_out) {
  tp_fb_table plan;
  tp_fb_vector io;
  TP__PTE_GUARD(f, v_out && m < f->n_methods);
  plan = tp__pte_plan(f, m);
  io = tp_fb_vector_field(&plan, is_output ? TP_PTE_F_ExecutionPlan_outputs
                                           : TP_PTE_F_ExecutionPlan_inputs, 4);
  if (k >= io.count) return TP_ERR_INVALID;
  *v_out = (size_t)tp_fb_vector_scalar(&io, k);
  return TP_OK;
}

TPDEF tp_status tp_pte_buffer_at(tp_pte_file *f, size_t m, size_t b, uint64_t *size_out) {
  tp_fb_table plan;
  tp_fb_vector v;
  TP__PTE_GUARD(f, size_out && m < f->n_methods);
  plan = tp__pte_plan(f, m);
  v = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_non_const_buffer_sizes, 8);
  if (b >= v.count) return TP_ERR_INVALID;
  *size_out = tp_fb_vector_scalar(&v, b);
  return TP_OK;
}

static tp_fb_vector tp__pte_instrs(tp_pte_file *f, size_t m, size_t c, int *ok) {
  tp_fb_table plan = tp__pte_plan(f, m), ch;
  tp_fb_vector chains = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_chains, 4), none;
  memset(&none, 0, sizeof none);
  *ok = c < chains.count;
  if (!*ok) return none;
  ch = tp_fb_vector_table(&chains, c);
  return tp_fb_vector_field(&ch, TP_PTE_F_Chain_instructions, 4);
}

TPDEF tp_status tp_pte_chain_size(tp_pte_file *f, size_t m, size_t c, size_t *n_out) {
  tp_fb_vector v;
  int ok;
  TP__PTE_GUARD(f, n_out && m < f->n_methods);
  v = tp__pte_instrs(f, m, c, &ok);
  if (!ok) return TP_ERR_INVALID;
  *n_out = v.count;
  return TP_OK;
}

#ifndef TP_NO_STDIO
static tp_status tp__pte_parse(void *obj, tp_file_bytes *bytes, tp_error *err) {
  tp_pte_file *f = (tp_pte_file *)obj;
  tp_status st = tp_pte_read(f, bytes->data, bytes->size); /* its sentence: f->err, err */
  (void)err;
  if (st == TP_OK) tp__file_keep(&f->file__, bytes);
  else f->data = NULL; /* the bytes it points into are released */
  return st;
}

TPDEF tp_status tp_pte_read_file(tp_pte_file *f, const char *path) {
  TP_ASSERT(f);
  memset(f, 0, sizeof *f);
  return tp__file_parse(path, &f->err, tp__pte_parse, f);
}
#endif

TPDEF void tp_pte_close(tp_pte_file *f) {
  if (!f) return;
#ifndef TP_NO_STDIO
  tp_file_bytes_close(&f->file__);
#endif
  memset(f, 0, sizeof *f);
}

/* Used by tp_pte_read (checks) before n_methods is final: m < plan count is the caller's. */
TPDEF tp_status tp_pte_instruction_at(tp_pte_file *f, size_t m, size_t c, size_t k,
                                      tp_pte_instruction_info *out) {
#define TP__BAD(...) tp__pte_bad_at(f, "instruction", m, c, k, __VA_ARGS__)
  tp_fb_table plan, ins, a;
  tp_fb_vector instrs, values, dels, ops;
  uint8_t tag = 0;
  int ok;
  size_t nvalues;
  TP__PTE_GUARD(f, out && m < f->n_methods);
  memset(out, 0, sizeof *out);
  instrs = tp__pte_instrs(f, m, c, &ok);
  if (!ok || k >= instrs.count) return TP_ERR_INVALID;
  plan = tp__pte_plan(f, m);
  values = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_values, 4);
  dels = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_delegates, 4);
  ops = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_operators, 4);
  nvalues = values.count;
  ins = tp_fb_vector_table(&instrs, k);
  a = tp_fb_union_field(&ins, TP_PTE_F_Instruction_instr_args, &tag);
  out->kind = tag;
  if (tp_fb_reader_status(&f->r__) != TP_OK || ins.pos == 0)
    return TP__BAD(": %s", tp__pte_fbmsg(f));
  if (tag < TP_PTE_I_KernelCall || tag > TP_PTE_I_FreeCall)
    return TP__BAD(": kind %u is not an InstructionArguments member", (unsigned)tag);
  /* field 0 of every member is its first index, field 1 the second (or the args) */
  out->index = tp_fb_i32(&a, 0, 0);
  if (tag == TP_PTE_I_KernelCall || tag == TP_PTE_I_DelegateCall) {
    size_t lim = tag == TP_PTE_I_DelegateCall ? dels.count : (ops.pos ? ops.count : 0);
    out->args = tp_fb_vector_field(&a, TP_PTE_F_DelegateCall_args, 4);
    if (tp_fb_reader_status(&f->r__) != TP_OK || out->args.pos == 0)
      return TP__BAD(" (%s): args %s", tp_pte_instruction_name(tag), tp__pte_fbmsg(f));
    if (out->index < 0 || (size_t)out->index >= lim)
      return TP__BAD(" (%s): %s %ld, but there are %lu", tp_pte_instruction_name(tag),
                     tag == TP_PTE_I_DelegateCall ? "delegate" : "operator", (long)out->index,
                     (unsigned long)lim);
    if (tp__pte_indices(f, &out->args, nvalues, "instruction ", m, (long)k) != TP_OK)
      return f->err.status;
  } else {
    out->index2 = tp_fb_i32(&a, 1, 0);
    if (out->index < 0 || (size_t)out->index >= nvalues ||
        (tag == TP_PTE_I_MoveCall && (out->index2 < 0 || (size_t)out->index2 >= nvalues)) ||
        (tag == TP_PTE_I_JumpFalseCall &&
         (out->index2 < 0 || (size_t)out->index2 >= instrs.count)))
      return TP__BAD(" (%s): index %ld / %ld out of range (%lu values, %lu instructions)",
                     tp_pte_instruction_name(tag), (long)out->index, (long)out->index2,
                     (unsigned long)nvalues, (unsigned long)instrs.count);
  }
  if (tp_fb_reader_status(&f->r__) != TP_OK)
    return TP__BAD(": %s", f->r__.err.msg);
  return TP_OK;
#undef TP__BAD
}

static tp_fb_table tp__pte_delegate(tp_pte_file *f, size_t m, size_t d, int *ok) {
  tp_fb_table plan = tp__pte_plan(f, m), none;
  tp_fb_vector dels = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_delegates, 4);
  memset(&none, 0, sizeof none);
  *ok = d < dels.count;
  return *ok ? tp_fb_vector_table(&dels, d) : none;
}

TPDEF tp_status tp_pte_delegate_at(tp_pte_file *f, size_t m, size_t d,
                                   tp_pte_delegate_info *out) {
#define TP__BAD(...) tp__pte_bad_at(f, "delegate", m, 0, d, __VA_ARGS__)
  tp_fb_table del, proc;
  tp_fb_vector specs;
  int ok;
  TP__PTE_GUARD(f, out && m < f->n_methods);
  memset(out, 0, sizeof *out);
  del = tp__pte_delegate(f, m, d, &ok);
  if (!ok) return TP_ERR_INVALID;
  out->id = tp_fb_string(&del, TP_PTE_F_BackendDelegate_id, NULL);
  proc = tp_fb_table_field(&del, TP_PTE_F_BackendDelegate_processed);
  specs = tp_fb_vector_field(&del, TP_PTE_F_BackendDelegate_compile_specs, 4);
  out->location = tp_fb_i8(&proc, TP_PTE_F_BackendDelegateDataReference_location, 0);
  out->index = tp_fb_u32(&proc, TP_PTE_F_BackendDelegateDataReference_index, 0);
  out->n_specs = specs.pos ? specs.count : 0;
  if (tp_fb_reader_status(&f->r__) != TP_OK || del.pos == 0)
    return TP__BAD(": %s", tp__pte_fbmsg(f));
  if (!out->id || proc.pos == 0)
    return TP__BAD(": no %s", !out->id ? "id" : "processed");
  if (out->location == TP_PTE_DATA_SEGMENT) {
    uint64_t off, sz;
    if (out->index >= f->n_segments)
      return TP__BAD(" (%.60s): segment %lu, but there are %lu", out->id,
                     (unsigned long)out->index, (unsigned long)f->n_segments);
    if (tp_pte_segment_at(f, out->index, &off, &sz) != TP_OK) return f->err.status;
    out->file_offset = f->segment_base + off;
    out->nbytes = sz;
  } else if (out->location == TP_PTE_DATA_INLINE) {
    tp_fb_vector bdd = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_backend_delegate_data, 4);
    tp_fb_table it;
    tp_fb_vector data;
    if (out->index >= f->n_inline)
      return TP__BAD(" (%.60s): inline data %lu, but there are %lu", out->id,
                     (unsigned long)out->index, (unsigned long)f->n_inline);
    it = tp_fb_vector_table(&bdd, out->index);
    data = tp_fb_vector_field(&it, TP_PTE_F_BackendDelegateInlineData_data, 1);
    if (tp_fb_reader_status(&f->r__) != TP_OK || data.pos == 0)
      return TP__BAD(": inline data %s", tp__pte_fbmsg(f));
    out->file_offset = data.pos;
    out->nbytes = data.count;
  } else {
    return TP__BAD(": location %d is not INLINE or SEGMENT", out->location);
  }
  out->data = f->data + (size_t)out->file_offset;
  return TP_OK;
#undef TP__BAD
}

TPDEF tp_status tp_pte_compile_spec_at(tp_pte_file *f, size_t m, size_t d, size_t k,
                                       const char **key, const void **value, size_t *nbytes) {
  tp_fb_table del, sp;
  tp_fb_vector specs, val;
  int ok;
  TP__PTE_GUARD(f, key && value && nbytes && m < f->n_methods);
  *key = NULL;
  *value = NULL;
  *nbytes = 0;
  del = tp__pte_delegate(f, m, d, &ok);
  if (!ok) return TP_ERR_INVALID;
  specs = tp_fb_vector_field(&del, TP_PTE_F_BackendDelegate_compile_specs, 4);
  if (k >= specs.count) return TP_ERR_INVALID;
  sp = tp_fb_vector_table(&specs, k);
  *key = tp_fb_string(&sp, TP_PTE_F_CompileSpec_key, NULL);
  val = tp_fb_vector_field(&sp, TP_PTE_F_CompileSpec_value, 1);
  if (tp_fb_reader_status(&f->r__) != TP_OK || !*key || val.pos == 0)
    return TP__PTE_BAD(f, "method %lu delegate %lu compile spec %lu: no %s", (unsigned long)m,
                       (unsigned long)d, (unsigned long)k, !*key ? "key" : "value");
  *value = f->data + val.pos;
  *nbytes = val.count;
  return TP_OK;
}

TPDEF tp_status tp_pte_operator_at(tp_pte_file *f, size_t m, size_t k, const char **name,
                                   const char **overload) {
  tp_fb_table plan, op;
  tp_fb_vector ops;
  TP__PTE_GUARD(f, name && overload && m < f->n_methods);
  *name = *overload = NULL;
  plan = tp__pte_plan(f, m);
  ops = tp_fb_vector_field(&plan, TP_PTE_F_ExecutionPlan_operators, 4);
  if (k >= (ops.pos ? ops.count : 0)) return TP_ERR_INVALID;
  op = tp_fb_vector_table(&ops, k);
  *name = tp_fb_string(&op, TP_PTE_F_Operator_name, NULL);
  *overload = tp_fb_string(&op, TP_PTE_F_Operator_overload, NULL);
  if (tp_fb_reader_status(&f->r__) != TP_OK || !*name)
    return TP__PTE_BAD(f, "method %lu operator %lu: no name (%s)", (unsigned long)m,
                       (unsigned long)k, tp__pte_fbmsg(f));
  if (!*overload) *overload = "";
  return TP_OK;
}

TPDEF tp_status tp_pte_segment_at(tp_pte_file *f, size_t i, uint64_t *offset, uint64_t *size) {
  tp_fb_vector segs;
  tp_fb_table s;
  uint64_t end;
  TP__PTE_GUARD(f, offset && size && i < f->n_segments);
  tp__pte_rewind(f);
  segs = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_segments, 4);
  s = tp_fb_vector_table(&segs, i);
  *offset = tp_fb_u64(&s, TP_PTE_F_DataSegment_offset, 0);
  *size = tp_fb_u64(&s, TP_PTE_F_DataSegment_size, 0);
  if (tp_fb_reader_status(&f->r__) != TP_OK || s.pos == 0)
    return TP__PTE_BAD(f, "segments[%lu]: %s", (unsigned long)i, tp__pte_fbmsg(f));
  if (!f->has_extended_header || f->segment_base == 0)
    return TP__PTE_BAD(f, "segments[%lu]: the file has no segment data (no eh00 header or "
                       "segment base 0)", (unsigned long)i);
  if (tp__add_u64(*offset, *size, &end) || end > f->segment_data_size)
    return TP__PTE_BAD(f, "segments[%lu]: offset %llu + size %llu exceeds the segment data "
                       "size %llu", (unsigned long)i, (unsigned long long)*offset,
                       (unsigned long long)*size, (unsigned long long)f->segment_data_size);
  return TP_OK;
}

TPDEF tp_status tp_pte_named_at(tp_pte_file *f, size_t i, const char **key,
                                uint32_t *segment_index, const void **data, uint64_t *nbytes) {
  tp_fb_vector named;
  tp_fb_table nd;
  size_t klen = 0;
  uint64_t off, sz;
  TP__PTE_GUARD(f, key && segment_index && data && nbytes && i < f->n_named);
  tp__pte_rewind(f);
  named = tp_fb_vector_field(&f->root__, TP_PTE_F_Program_named_data, 4);
  nd = tp_fb_vector_table(&named, i);
  *key = tp_fb_string(&nd, TP_PTE_F_NamedData_key, &klen);
  *segment_index = tp_fb_u32(&nd, TP_PTE_F_NamedData_segment_index, 0);
  *data = NULL;
  *nbytes = 0;
  if (tp_fb_reader_status(&f->r__) != TP_OK || nd.pos == 0 || !*key)
    return TP__PTE_BAD(f, "named_data[%lu]: %s", (unsigned long)i,
                       nd.pos && !*key && f->r__.err.status == TP_OK ? "no key"
                                                                     : tp__pte_fbmsg(f));
  if (strlen(*key) != klen)
    return TP__PTE_BAD(f, "named_data[%lu]: key \"%.80s\" has a NUL byte inside its %lu bytes",
                       (unsigned long)i, *key, (unsigned long)klen);
  if (*segment_index >= f->n_segments)
    return TP__PTE_BAD(f, "named_data[%lu] (\"%.80s\"): segment_index %lu, but there are %lu "
                       "segments", (unsigned long)i, *key, (unsigned long)*segment_index,
                       (unsigned long)f->n_segments);
  if (tp_pte_segment_at(f, *segment_index, &off, &sz) != TP_OK) return f->err.status;
  *data = f->data + (size_t)(f->segment_base + off);
  *nbytes = sz;
  return TP_OK;
}

/* >>pte-missing: the named keys a program's delegates need from outside. The keys seen, in
   one keyed set: the program's named keys, the .ptd's, then each missing key once (so the walk
   is linear in the keys, however many there are or repeat). */
typedef struct tp__pte_kl {
  const char *key;
  size_t len;
  uint64_t hash;
} tp__pte_kl;

typedef struct tp__pte_missing {
  tp__pte_kl *items;
  size_t n, items_cap;
  tp__keyset set;
  tp__hashkey hk;
  const char **keys; /* the caller's list of missing keys, cap of them */
  size_t cap, count;
  tp_error *err;
  int failed; /* a put ran out of memory (its sentence is in err already) */
} tp__pte_missing;

typedef struct tp__pte_kl_probe {
  const tp__pte_missing *M;
  const char *key;
  size_t len;
} tp__pte_kl_probe;

static uint64_t tp__pte_kl_hash(const void *ctx, uint32_t i) {
  return ((const tp__pte_missing *)ctx)->items[i].hash;
}

static int tp__pte_kl_match(const void *ctx, uint32_t i) {
  const tp__pte_kl_probe *q = (const tp__pte_kl_probe *)ctx;
  const tp__pte_kl *it = &q->M->items[i];
  return it->len == q->len && (it->key == q->key || memcmp(it->key, q->key, q->len) == 0);
}

/* Puts (key, len) in the set; *had = 1 when it was there already. */
static tp_status tp__pte_kl_put(tp__pte_missing *M, const char *key, size_t len, int *had) {
  tp__pte_kl_probe q;
  uint64_t h = tp__hash_keyed(&M->hk, key, len);
  size_t slot;
  *had = 0;
  if (tp__array_reserve((void **)&M->items, &M->items_cap, M->n + 1, sizeof *M->items) != TP_OK ||
      tp__keyset_reserve(&M->set, M->n + 1, tp__pte_kl_hash, M) != TP_OK)
    return tp__error_set(M->err, TP_ERR_NOMEM, "no memory for %lu keys",
                        (unsigned long)(M->n + 1));
  q.M = M;
  q.key = key;
  q.len = len;
  slot = tp__keyset_probe(&M->set, h, tp__pte_kl_match, &q);
  if (M->set.slot[slot] != 0) {
    *had = 1;
    return TP_OK;
  }
  M->items[M->n].key = key;
  M->items[M->n].len = len;
  M->items[M->n].hash = h;
  M->set.slot[slot] = (uint32_t)++M->n;
  return TP_OK;
}

static tp_status tp__pte_missing_key(void *ctx, const char *key, size_t len) {
  tp__pte_missing *M = (tp__pte_missing *)ctx;
  int had;
  tp_status s = tp__pte_kl_put(M, key, len, &had);
  if (s != TP_OK) M->failed = 1;
  if (s != TP_OK || had) return s; /* embedded, in the .ptd, or listed already */
  if (M->count < M->cap && M->keys) M->keys[M->count] = key;
  M->count++;
  return TP_OK;
}

TPDEF tp_status tp__pte_missing_keys(const char *who, tp_pte_file *f, size_t m, tp_ptd *ptd,
                                     const tp__pte_backend_keys *bk, size_t nbk,
                                     const char **keys, size_t cap, size_t *count,
                                     tp_error *err) {
  tp__pte_missing M;
  tp_status s;
  size_t i, mm, m0, m1;
  int had;
  TP_ASSERT(f);
  if (err) memset(err, 0, sizeof *err);
  if (!count) return tp__error_set(err, TP_ERR_INVALID, "%s: count is NULL", who);
  *count = 0;
  if (f->err.status != TP_OK)
    return tp__error_set(err, f->err.status, "the program: %s", f->err.msg);
  if (m != (size_t)-1 && m >= f->n_methods)
    return tp__error_set(err, TP_ERR_INVALID, "method %lu of a program with %lu",
                        (unsigned long)m, (unsigned long)f->n_methods);
  memset(&M, 0, sizeof M);
  M.hk = tp__hash_seed(&M);
  M.keys = keys;
  M.cap = keys ? cap : 0;
  M.err = err;
  s = TP_OK;
  for (i = 0; i < f->n_named && s == TP_OK; i++) {
    const char *k;
    uint32_t si;
    const void *d;
    uint64_t n;
    if (tp_pte_named_at(f, i, &k, &si, &d, &n) == TP_OK)
      s = tp__pte_kl_put(&M, k, strlen(k), &had);
  }
  for (i = 0; ptd && i < ptd->count && s == TP_OK; i++) {
    tp_ptd_entry pe;
    if (tp_ptd_entry_at(ptd, i, &pe) == TP_OK) s = tp__pte_kl_put(&M, pe.key, strlen(pe.key), &had);
  }
  m0 = m == (size_t)-1 ? 0 : m;
  m1 = m == (size_t)-1 ? f->n_methods : m + 1;
  for (mm = m0; mm < m1 && s == TP_OK; mm++) {
    tp_pte_method_info mi;
    size_t k, b;
    if ((s = tp_pte_method_at(f, mm, &mi)) != TP_OK) {
      s = tp__error_set(err, s, "method %lu: %s", (unsigned long)mm, tp_status_str(s));
      break;
    }
    for (k = 0; k < mi.n_delegates && s == TP_OK; k++) {
      tp_pte_delegate_info di;
      tp_error be;
      if ((s = tp_pte_delegate_at(f, mm, k, &di)) != TP_OK) break;
      for (b = 0; b < nbk; b++)
        if (strcmp(di.id, bk[b].id) == 0) break;
      if (b == nbk) continue; /* another backend's */
      memset(&be, 0, sizeof be);
      s = bk[b].keys(di.data, (size_t)di.nbytes, tp__pte_missing_key, &M, &be);
      if (s != TP_OK && !M.failed)
        tp__error_set(err, s, "method \"%.60s\" delegate %lu: %s", mi.name, (unsigned long)k,
                      be.msg);
    }
  }
  TP_FREE(M.items);
  tp__keyset_free(&M.set);
  if (s == TP_OK) *count = M.count;
  return s;
}

// >>safetensors ------------------------------------------------------------------------------

#define TP__ST_MAX_HEADER 100000000u  /* the reference loader's limit */
#define TP__ST_MAX_DEPTH 64

/* Every dtype a safetensors file may name: its bits per element and the tp_dtype it maps to
   (-1: checked and listed, but no view). */
typedef struct tp__st_dtype {
  const char *name;
  unsigned bits;
  int tp;
} tp__st_dtype;
static const tp__st_dtype tp__st_dtypes[] = {
    {"F64", 64, TP_F64},     {"F32", 32, TP_F32},     {"F16", 16, TP_F16},
    {"BF16", 16, TP_BF16},   {"I64", 64, TP_I64},     {"I32", 32, TP_I32},
    {"I16", 16, TP_I16},     {"I8", 8, TP_I8},        {"U8", 8, TP_U8},
    {"BOOL", 8, TP_BOOL},    {"U64", 64, -1},         {"U32", 32, -1},
    {"U16", 16, -1},         {"F8_E4M3", 8, -1},      {"F8_E5M2", 8, -1},
    {"F8_E8M0", 8, -1},      {"C64", 64, -1},         {"F6_E2M3", 6, -1},
    {"F6_E3M2", 6, -1},      {"F4", 4, -1}};
#define TP__ST_NDTYPES (sizeof tp__st_dtypes / sizeof tp__st_dtypes[0])

typedef struct tp__st_tensor {
  size_t name, name_len;   /* in the pool */
  int dtype;               /* index into tp__st_dtypes */
  uint64_t begin, end;     /* from the data start */
  size_t dims_at, ndim;    /* in dims */
} tp__st_tensor;

typedef struct tp__st_name {   /* the sorted name index */
  const char *name;
  size_t len, idx;
} tp__st_name;

/* The keys of the objects being parsed are copied (unescaped) into the parser's key buffer,
   one tp__st_name each (idx: its offset there, name set for the sort): every object's keys
   are gathered and, when it closes, sorted and compared, so a duplicate key is refused in
   every object - the ones tensorpack ignores too - in O(k log k) comparisons. */

/* What the strict JSON reader (tp__json_*) writes as it goes, shared by the safetensors
   header and tp_json documents: unescaped strings, and the keys of the objects still open. */
typedef struct tp__json_mem {
  char *pool;                  /* strings, each NUL-terminated */
  size_t pool_n, pool_cap;
  tp__st_name *keys;           /* the keys of the objects still open */
  size_t keys_n, keys_cap;
  char *kb;                    /* their bytes */
  size_t kb_n, kb_cap;
} tp__json_mem;

struct tp_safetensors {
  const unsigned char *data;   /* the file's data section */
  uint64_t data_size;
  tp__st_tensor *t;
  size_t n, cap;
  tp__st_name *by_name;
  tp__json_mem jm;             /* pool: names, metadata keys and values */
  int64_t *dims;
  size_t dims_n, dims_cap;
  size_t *meta;                /* pairs (key, value) of pool offsets */
  size_t meta_n, meta_cap;
  tp__st_name *meta_by_key;    /* the metadata keys sorted (idx: the pair), for lookups */
  tp_error last;               /* last lookup's failure */
  tp_file_bytes file;          /* tp_safetensors_open_file's bytes, released at close */
};

typedef struct tp__json {
  const unsigned char *p;
  size_t n, i;
  tp__json_mem *m;             /* where strings and keys go */
  tp_safetensors *st;          /* the safetensors header being read, or NULL (tp_json) */
  const char *where;           /* how a sentence names a position: "header byte", "byte" */
  tp_error *err;
} tp__json;

/* The order of the name index and of every object's keys: bytes, then length. */
static int tp__st_cmp_name(const void *a, const void *b) {
  const tp__st_name *x = (const tp__st_name *)a, *y = (const tp__st_name *)b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->name, y->name, n);
  TP__STEPS(1 + n / 16);
  if (c != 0) return c;
  return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

/* Notes key pool[at, at + len) of the object being parsed. */
static tp_status tp__json_key_note(tp__json *j, size_t at, size_t len) {
  tp__json_mem *m = j->m;
  if (tp__array_reserve((void **)&m->keys, &m->keys_cap, m->keys_n + 1, sizeof *m->keys) !=
          TP_OK ||
      tp__array_reserve((void **)&m->kb, &m->kb_cap, m->kb_n + len + 1, 1) != TP_OK)
    return tp__error_set(j->err, TP_ERR_NOMEM, "no memory for %lu object keys",
                        (unsigned long)(m->keys_n + 1));
  memcpy(m->kb + m->kb_n, m->pool + at, len);
  m->kb[m->kb_n + len] = 0;
  m->keys[m->keys_n].idx = m->kb_n;
  m->keys[m->keys_n].len = len;
  m->keys_n++;
  m->kb_n += len + 1;
  return TP_OK;
}

/* The object whose first key is keys[first] (starting at byte start) has closed: a key twice
   is TP_ERR_FORMAT; then its keys are dropped. */
static tp_status tp__json_keys_done(tp__json *j, size_t first, size_t start) {
  tp__json_mem *m = j->m;
  size_t k, n = m->keys_n - first;
  tp_status s = TP_OK;
  /* where the object's key bytes start, before the sort moves its first key */
  if (first < m->keys_n) m->kb_n = m->keys[first].idx;
  if (n > 1) {
    for (k = first; k < m->keys_n; k++) m->keys[k].name = m->kb + m->keys[k].idx;
    qsort(m->keys + first, n, sizeof *m->keys, tp__st_cmp_name);
    for (k = first + 1; k < m->keys_n && s == TP_OK; k++)
      if (tp__st_cmp_name(&m->keys[k - 1], &m->keys[k]) == 0)
        s = tp__error_set(j->err, TP_ERR_FORMAT, "the object at %s %lu has the key \"%.80s\" "
                         "twice", j->where, (unsigned long)start, m->keys[k].name);
  }
  m->keys_n = first;
  return s;
}

static tp_status tp__json_fail(tp__json *j, const char *what) {
  return tp__error_set(j->err, TP_ERR_FORMAT, "bad JSON at %s %lu: %s", j->where,
                      (unsigned long)j->i, what);
}

static void tp__json_ws(tp__json *j) {
  while (j->i < j->n && (j->p[j->i] == ' ' || j->p[j->i] == '\t' || j->p[j->i] == '\n' ||
                         j->p[j->i] == '\r'))
    j->i++;
}

/* Skips whitespace and takes c; anything else is a sentence naming `what`. */
static tp_status tp__json_take(tp__json *j, char c, const char *what) {
  tp__json_ws(j);
  if (j->i >= j->n || j->p[j->i] != (unsigned char)c) return tp__json_fail(j, what);
  j->i++;
  return TP_OK;
}

/* The members of an object or array whose opening char was taken, one call before each
   (*k = 0 before the first): 1 when a member follows (the first, or one after a ','; *k counts
   it), 0 when `close` ends the container (taken), -1 for anything else (TP_ERR_FORMAT, with
   the sentence in j->err). */
static int tp__json_more(tp__json *j, char close, size_t *k) {
  tp__json_ws(j);
  if (j->i < j->n && j->p[j->i] == (unsigned char)close) {
    j->i++;
    return 0;
  }
  if (*k > 0) {
    if (j->i >= j->n || j->p[j->i] != ',') {
      tp__json_fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
      return -1;
    }
    j->i++;
  }
  (*k)++;
  return 1;
}

static tp_status tp__json_pool_put(tp__json *j, const unsigned char *b, size_t n) {
  tp__json_mem *m = j->m;
  if (tp__array_reserve((void **)&m->pool, &m->pool_cap, m->pool_n + n, 1) != TP_OK)
    return tp__error_set(j->err, TP_ERR_NOMEM, "no memory for %lu bytes of names",
                        (unsigned long)(m->pool_n + n));
  memcpy(m->pool + m->pool_n, b, n);
  m->pool_n += n;
  return TP_OK;
}

static int tp__hex4(const unsigned char *p, unsigned *out) {
  unsigned v = 0;
  int k;
  for (k = 0; k < 4; k++) {
    unsigned c = p[k], d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return 0;
    v = v * 16 + d;
  }
  *out = v;
  return 1;
}

/* Length of the multi-byte UTF-8 sequence at p[0, n) (p[0] >= 0x80: the string parser takes
   ASCII runs itself), or 0 when it is not well-formed (RFC 3629: no overlong forms, no
   surrogates, nothing above U+10FFFF). */
static size_t tp__utf8_len(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t len, k;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) len = 3;
  else if (c >= 0xF0 && c <= 0xF4) len = 4;
  else return 0;
  if (n < len) return 0;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (p[1] < lo || p[1] > hi) return 0;
  for (k = 2; k < len; k++)
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  return len;
}

/* A JSON string, unescaped into the pool (NUL-terminated); *at / *len locate it there. */
static tp_status tp__json_string(tp__json *j, size_t *at, size_t *len) {
  tp_status s;
  unsigned char u[4];
  size_t start;
  tp__json_ws(j);
  if (j->i >= j->n || j->p[j->i] != '"') return tp__json_fail(j, "expected a string");
  j->i++;
  start = j->m->pool_n;
  for (;;) {
    unsigned c;
    size_t run = j->i;
    while (run < j->n && j->p[run] != '"' && j->p[run] != '\\' && j->p[run] >= 0x20 &&
           j->p[run] < 0x80)
      run++;
    if (run > j->i) {
      if ((s = tp__json_pool_put(j, j->p + j->i, run - j->i)) != TP_OK) return s;
      j->i = run;
    }
    if (j->i >= j->n) return tp__json_fail(j, "unterminated string");
    c = j->p[j->i];
    if (c == '"') {
      j->i++;
      break;
    }
    if (c < 0x20) return tp__json_fail(j, "control character in a string");
    if (c >= 0x80) {
      size_t k = tp__utf8_len(j->p + j->i, j->n - j->i);
      if (k == 0) return tp__json_fail(j, "a string is not UTF-8");
      if ((s = tp__json_pool_put(j, j->p + j->i, k)) != TP_OK) return s;
      j->i += k;
      continue;
    }
    /* an escape */
    if (j->i + 1 >= j->n) return tp__json_fail(j, "unterminated escape");
    c = j->p[j->i + 1];
    if (c == 'u') {
      unsigned cp, lo;
      size_t k, b;
      if (j->n - j->i < 6 || !tp__hex4(j->p + j->i + 2, &cp))
        return tp__json_fail(j, "\\u needs four hex digits");
      j->i += 6;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return tp__json_fail(j, "lone low surrogate");
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (j->n - j->i < 6 || j->p[j->i] != '\\' || j->p[j->i + 1] != 'u' ||
            !tp__hex4(j->p + j->i + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
          return tp__json_fail(j, "high surrogate without a low one");
        j->i += 6;
        cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
      }
      if (cp == 0) return tp__json_fail(j, "\\u0000 in a string (no C string can hold it)");
      /* UTF-8: k bytes, six bits in each continuation byte (last first), the rest behind the
         lead byte's k ones (0xC0, 0xE0, 0xF0: (0xFF00 >> k) & 0xFF) */
      k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      for (b = k - 1; b > 0; b--, cp >>= 6) u[b] = (unsigned char)(0x80 | (cp & 0x3F));
      u[0] = (unsigned char)(k == 1 ? cp : ((0xFF00u >> k) & 0xFF) | cp);
      if ((s = tp__json_pool_put(j, u, k)) != TP_OK) return s;
      continue;
    }
    switch (c) {
      case '"': case '\\': case '/': u[0] = (unsigned char)c; break;
      case 'b': u[0] = '\b'; break;
      case 'f': u[0] = '\f'; break;
      case 'n': u[0] = '\n'; break;
      case 'r': u[0] = '\r'; break;
      case 't': u[0] = '\t'; break;
      default: return tp__json_fail(j, "unknown escape");
    }
    j->i += 2;
    if ((s = tp__json_pool_put(j, u, 1)) != TP_OK) return s;
  }
  *at = start;
  *len = j->m->pool_n - start;
  u[0] = 0;
  return tp__json_pool_put(j, u, 1);
}

/* A non-negative JSON integer that fits in 64 bits. */
static tp_status tp__json_u64(tp__json *j, uint64_t *out) {
  uint64_t v = 0;
  size_t start;
  tp__json_ws(j);
  start = j->i;
  if (j->i < j->n && j->p[j->i] == '-') return tp__json_fail(j, "a negative number");
  while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9') {
    unsigned d = (unsigned)(j->p[j->i] - '0');
    if (v > (UINT64_MAX - d) / 10) return tp__json_fail(j, "a number above 2^64 - 1");
    v = v * 10 + d;
    j->i++;
  }
  if (j->i == start) return tp__json_fail(j, "expected a number");
  if (j->p[start] == '0' && j->i - start > 1) return tp__json_fail(j, "a number with a leading 0");
  if (j->i < j->n && (j->p[j->i] == '.' || j->p[j->i] == 'e' || j->p[j->i] == 'E'))
    return tp__json_fail(j, "a number that is not an integer");
  *out = v;
  return TP_OK;
}

/* A number by RFC 8259's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, any
   length (its value is not computed here: tp__json_to_double). *is_int (may be NULL): 1 when it
   has neither a fraction nor an exponent. */
static tp_status tp__json_number(tp__json *j, int *is_int) {
  size_t k;
  if (is_int) *is_int = 1;
  if (j->i < j->n && j->p[j->i] == '-') j->i++;
  k = j->i;
  while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9') j->i++;
  if (j->i == k) return tp__json_fail(j, "a number without digits");
  if (j->p[k] == '0' && j->i - k > 1) return tp__json_fail(j, "a number with a leading 0");
  if (j->i < j->n && j->p[j->i] == '.') {
    k = ++j->i;
    while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9') j->i++;
    if (j->i == k) return tp__json_fail(j, "no digit after a number's '.'");
    if (is_int) *is_int = 0;
  }
  if (j->i < j->n && (j->p[j->i] == 'e' || j->p[j->i] == 'E')) {
    j->i++;
    if (j->i < j->n && (j->p[j->i] == '+' || j->p[j->i] == '-')) j->i++;
    k = j->i;
    while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9') j->i++;
    if (j->i == k) return tp__json_fail(j, "no digit in a number's exponent");
    if (is_int) *is_int = 0;
  }
  return TP_OK;
}

/* Any JSON value, checked and dropped (fields tensorpack does not use). */
static tp_status tp__json_skip(tp__json *j, int depth) {
  tp_status s;
  unsigned char c;
  if (depth > TP__ST_MAX_DEPTH) return tp__json_fail(j, "nested deeper than 64");
  tp__json_ws(j);
  if (j->i >= j->n) return tp__json_fail(j, "expected a value");
  c = j->p[j->i];
  if (c == '"') {
    size_t at, len;
    s = tp__json_string(j, &at, &len);
    j->m->pool_n = at;
    return s;
  }
  if (c == '{' || c == '[') {
    size_t first = j->m->keys_n, start = j->i, k = 0;
    int more;
    j->i++;
    while ((more = tp__json_more(j, c == '{' ? '}' : ']', &k)) > 0) {
      if (c == '{') {
        size_t at, len;
        if ((s = tp__json_string(j, &at, &len)) != TP_OK) return s;
        s = tp__json_key_note(j, at, len);
        j->m->pool_n = at;
        if (s != TP_OK) return s;
        if ((s = tp__json_take(j, ':', "expected ':'")) != TP_OK) return s;
      }
      if ((s = tp__json_skip(j, depth + 1)) != TP_OK) return s;
    }
    if (more < 0) return TP_ERR_FORMAT;
    return c == '{' ? tp__json_keys_done(j, first, start) : TP_OK;
  }
  if (c == 't' || c == 'f' || c == 'n') {
    const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
    size_t k = strlen(w);
    if (j->n - j->i < k || memcmp(j->p + j->i, w, k) != 0) return tp__json_fail(j, "bad literal");
    j->i += k;
    return TP_OK;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return tp__json_number(j, NULL);
  return tp__json_fail(j, "expected a value");
}

/* One tensor's object: {"dtype": .., "shape": [..], "data_offsets": [b, e]} in any order. */
static tp_status tp__st_tensor_obj(tp__json *j, tp__st_tensor *t) {
  tp_safetensors *st = j->st;
  int have_dtype = 0, have_shape = 0, have_offsets = 0, more, *have;
  tp_status s;
  size_t first = j->m->keys_n, start, k = 0;
  /* st->jm.pool may move with every put: names are re-read through the pool + offset */
  tp__json_ws(j);
  start = j->i;
  if ((s = tp__json_take(j, '{', "a tensor's entry is not an object")) != TP_OK) return s;
  while ((more = tp__json_more(j, '}', &k)) > 0) {
    size_t at, len;
    const char *f;
    if ((s = tp__json_string(j, &at, &len)) != TP_OK) return s;
    if ((s = tp__json_key_note(j, at, len)) != TP_OK) return s;
    if ((s = tp__json_take(j, ':', "expected ':'")) != TP_OK) return s;
    f = st->jm.pool + at;
    have = strcmp(f, "dtype") == 0 ? &have_dtype : strcmp(f, "shape") == 0 ? &have_shape
           : strcmp(f, "data_offsets") == 0 ? &have_offsets : NULL;
    if (have && *have)
      return tp__error_set(j->err, TP_ERR_FORMAT, "tensor \"%.80s\": \"%s\" appears twice",
                          st->jm.pool + t->name, f);
    if (have) *have = 1;
    if (have == &have_dtype) {
      size_t dat, dlen, d;
      st->jm.pool_n = at;
      if ((s = tp__json_string(j, &dat, &dlen)) != TP_OK) return s;
      for (d = 0; d < TP__ST_NDTYPES; d++)
        if (strcmp(st->jm.pool + dat, tp__st_dtypes[d].name) == 0) break;
      if (d == TP__ST_NDTYPES)
        return tp__error_set(j->err, TP_ERR_UNSUPPORTED,
                            "tensor \"%.80s\": dtype \"%.40s\" is not a safetensors dtype "
                            "tensorpack knows", st->jm.pool + t->name, st->jm.pool + dat);
      t->dtype = (int)d;
      st->jm.pool_n = dat;
    } else if (have) {
      int is_shape = have == &have_shape;
      size_t count = 0;
      uint64_t v = 0, off[2] = {0, 0};
      st->jm.pool_n = at;
      if (is_shape) t->dims_at = st->dims_n;
      if ((s = tp__json_take(j, '[', is_shape ? "\"shape\" is not an array"
                                              : "\"data_offsets\" is not an array")) != TP_OK)
        return s;
      while ((more = tp__json_more(j, ']', &count)) > 0) {
        if ((s = tp__json_u64(j, &v)) != TP_OK) return s;
        if (is_shape) {
          if (v > (uint64_t)INT64_MAX)
            return tp__error_set(j->err, TP_ERR_FORMAT,
                                "tensor \"%.80s\": dim %lu is %llu, above INT64_MAX",
                                st->jm.pool + t->name, (unsigned long)(count - 1),
                                (unsigned long long)v);
          if (tp__array_reserve((void **)&st->dims, &st->dims_cap, st->dims_n + 1,
                               sizeof(int64_t)) != TP_OK)
            return tp__error_set(j->err, TP_ERR_NOMEM, "no memory for %lu dims",
                                (unsigned long)(st->dims_n + 1));
          st->dims[st->dims_n++] = (int64_t)v;
        } else if (count <= 2) {
          off[count - 1] = v;
        }
      }
      if (more < 0) return TP_ERR_FORMAT;
      if (is_shape) {
        t->ndim = count;
      } else {
        if (count != 2)
          return tp__error_set(j->err, TP_ERR_FORMAT,
                              "tensor \"%.80s\": \"data_offsets\" has %lu numbers, not 2",
                              st->jm.pool + t->name, (unsigned long)count);
        t->begin = off[0];
        t->end = off[1];
      }
    } else {
      st->jm.pool_n = at;
      if ((s = tp__json_skip(j, 1)) != TP_OK) return s;
    }
  }
  if (more < 0) return TP_ERR_FORMAT;
  if ((s = tp__json_keys_done(j, first, start)) != TP_OK) return s;
  if (!have_dtype || !have_shape || !have_offsets)
    return tp__error_set(j->err, TP_ERR_FORMAT, "tensor \"%.80s\": no \"%s\"", st->jm.pool + t->name,
                        !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
  return TP_OK;
}

static tp_status tp__st_metadata(tp__json *j) {
  tp_safetensors *st = j->st;
  tp_status s;
  size_t k = 0;
  int more;
  if ((s = tp__json_take(j, '{', "__metadata__ is not an object")) != TP_OK) return s;
  while ((more = tp__json_more(j, '}', &k)) > 0) {
    size_t kat, vat, len; /* (the lengths are not kept) */
    TP__STEP();
    if ((s = tp__json_string(j, &kat, &len)) != TP_OK) return s;
    if ((s = tp__json_take(j, ':', "expected ':'")) != TP_OK) return s;
    tp__json_ws(j);
    if (j->i >= j->n || j->p[j->i] != '"')
      return tp__error_set(j->err, TP_ERR_FORMAT, "__metadata__ \"%.80s\": the value is not a "
                          "string", st->jm.pool + kat);
    if ((s = tp__json_string(j, &vat, &len)) != TP_OK) return s;
    /* duplicates: found once the header is read, by sorting (tp__st_meta_index) */
    if (tp__array_reserve((void **)&st->meta, &st->meta_cap, 2 * st->meta_n + 2,
                         sizeof(size_t)) != TP_OK)
      return tp__error_set(j->err, TP_ERR_NOMEM, "no memory for %lu metadata entries",
                          (unsigned long)(st->meta_n + 1));
    st->meta[2 * st->meta_n] = kat;
    st->meta[2 * st->meta_n + 1] = vat;
    st->meta_n++;
  }
  return more < 0 ? TP_ERR_FORMAT : TP_OK;
}

/* __metadata__'s keys sorted (bytes, then lengths): a key twice is refused, and
   tp_safetensors_metadata finds a key by binary search. */
static tp_status tp__st_meta_index(tp_safetensors *st, tp_error *err) {
  size_t m;
  if (st->meta_n == 0) return TP_OK;
  st->meta_by_key = (tp__st_name *)TP_MALLOC(st->meta_n * sizeof(tp__st_name));
  if (!st->meta_by_key)
    return tp__error_set(err, TP_ERR_NOMEM, "no memory to index %lu metadata entries",
                        (unsigned long)st->meta_n);
  for (m = 0; m < st->meta_n; m++) {
    st->meta_by_key[m].name = st->jm.pool + st->meta[2 * m];
    st->meta_by_key[m].len = strlen(st->meta_by_key[m].name);
    st->meta_by_key[m].idx = m;
  }
  qsort(st->meta_by_key, st->meta_n, sizeof(tp__st_name), tp__st_cmp_name);
  for (m = 1; m < st->meta_n; m++)
    if (tp__st_cmp_name(&st->meta_by_key[m - 1], &st->meta_by_key[m]) == 0)
      return tp__error_set(err, TP_ERR_FORMAT, "__metadata__ \"%.80s\" appears twice",
                          st->meta_by_key[m].name);
  return TP_OK;
}

typedef struct tp__st_range {
  uint64_t begin, end;
  size_t idx;
} tp__st_range;

static int tp__st_cmp_range(const void *a, const void *b) {
  const tp__st_range *x = (const tp__st_range *)a, *y = (const tp__st_range *)b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx ? 1 : 0;
}

/* After parsing: names unique, sizes right, the tensors tiling the data exactly. */
static tp_status tp__st_check(tp_safetensors *st, tp_error *err) {
  tp__st_range *r;
  size_t i;
  uint64_t pos = 0;
  tp_status s = TP_OK;
  const char *pname = NULL;
  if (st->n == 0) {
    if (st->data_size != 0)
      return tp__error_set(err, TP_ERR_FORMAT, "no tensors, but %llu data bytes follow the "
                          "header", (unsigned long long)st->data_size);
    return TP_OK;
  }
  for (i = 0; i < st->n; i++) {
    const tp__st_tensor *t = &st->t[i];
    const tp__st_dtype *dt = &tp__st_dtypes[t->dtype];
    uint64_t numel = 1, bits, want;
    size_t d;
    for (d = 0; d < t->ndim; d++)
      if (tp__mul_u64(numel, (uint64_t)st->dims[t->dims_at + d], &numel)) break;
    if (d < t->ndim || tp__mul_u64(numel, dt->bits, &bits))
      return tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": its shape's %s size overflows "
                          "64 bits", st->jm.pool + t->name, dt->name);
    if (bits % 8 != 0)
      return tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": %llu elements of %s are not a "
                          "whole number of bytes", st->jm.pool + t->name,
                          (unsigned long long)numel, dt->name);
    want = bits / 8;
    if (t->end < t->begin)
      return tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": data_offsets [%llu, %llu] end "
                          "before they begin", st->jm.pool + t->name,
                          (unsigned long long)t->begin, (unsigned long long)t->end);
    if (t->end - t->begin != want)
      return tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": %llu elements of %s are %llu "
                          "bytes, data_offsets [%llu, %llu] hold %llu", st->jm.pool + t->name,
                          (unsigned long long)numel, dt->name, (unsigned long long)want,
                          (unsigned long long)t->begin, (unsigned long long)t->end,
                          (unsigned long long)(t->end - t->begin));
    if (t->end > st->data_size)
      return tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": data_offsets [%llu, %llu] run "
                          "past the %llu data bytes", st->jm.pool + t->name,
                          (unsigned long long)t->begin, (unsigned long long)t->end,
                          (unsigned long long)st->data_size);
  }
  /* each tensor is right on its own: now the names and the ranges, sorted */
  st->by_name = (tp__st_name *)TP_MALLOC(st->n * sizeof(tp__st_name));
  r = (tp__st_range *)TP_MALLOC(st->n * sizeof(tp__st_range));
  if (!st->by_name || !r) {
    TP_FREE(r);
    return tp__error_set(err, TP_ERR_NOMEM, "no memory to index %lu tensors",
                        (unsigned long)st->n);
  }
  for (i = 0; i < st->n; i++) {
    st->by_name[i].name = st->jm.pool + st->t[i].name;
    st->by_name[i].len = st->t[i].name_len;
    st->by_name[i].idx = i;
    r[i].begin = st->t[i].begin;
    r[i].end = st->t[i].end;
    r[i].idx = i;
  }
  qsort(st->by_name, st->n, sizeof(tp__st_name), tp__st_cmp_name);
  for (i = 1; i < st->n && s == TP_OK; i++)
    if (tp__st_cmp_name(&st->by_name[i - 1], &st->by_name[i]) == 0)
      s = tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\" appears twice in the header",
                       st->by_name[i].name);
  if (s == TP_OK) {
    qsort(r, st->n, sizeof(tp__st_range), tp__st_cmp_range);
    for (i = 0; i < st->n && s == TP_OK; i++) {
      const char *name = st->jm.pool + st->t[r[i].idx].name;
      if (r[i].begin > pos)
        s = tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": data starts at byte %llu, "
                         "leaving a gap of %llu bytes after %s%.80s%s", name,
                         (unsigned long long)r[i].begin, (unsigned long long)(r[i].begin - pos),
                         pname ? "\"" : "", pname ? pname : "the header", pname ? "\"" : "");
      else if (r[i].begin < pos)
        s = tp__error_set(err, TP_ERR_FORMAT, "tensor \"%.80s\": data_offsets [%llu, %llu] "
                         "overlap \"%.80s\", which ends at byte %llu", name,
                         (unsigned long long)r[i].begin, (unsigned long long)r[i].end,
                         pname ? pname : "", (unsigned long long)pos);
      pos = r[i].end;
      pname = name;
    }
    if (s == TP_OK && pos != st->data_size)
      s = tp__error_set(err, TP_ERR_FORMAT, "the tensors end at data byte %llu but %llu data "
                       "bytes follow the header (%llu unused)", (unsigned long long)pos,
                       (unsigned long long)st->data_size,
                       (unsigned long long)(st->data_size - pos));
  }
  TP_FREE(r);
  return s;
}

TPDEF void tp_safetensors_close(tp_safetensors *st) {
  if (!st) return;
#ifndef TP_NO_STDIO
  tp_file_bytes_close(&st->file);
#endif
  TP_FREE(st->t);
  TP_FREE(st->by_name);
  TP_FREE(st->jm.pool);
  TP_FREE(st->dims);
  TP_FREE(st->meta);
  TP_FREE(st->meta_by_key);
  TP_FREE(st->jm.keys);
  TP_FREE(st->jm.kb);
  TP_FREE(st);
}

static tp_status tp__st_parse(tp_safetensors *st, const unsigned char *f, size_t nbytes,
                              tp_error *err) {
  uint64_t hlen;
  tp__json j = {NULL, 0, 0, &st->jm, st, "header byte", err}; /* p and n: the header's */
  tp_status s;
  int saw_meta = 0, more;
  size_t k = 0;
  if (nbytes < 8)
    return tp__error_set(err, TP_ERR_FORMAT, "the file is %lu bytes; a safetensors file starts "
                        "with an 8-byte header length", (unsigned long)nbytes);
  hlen = tp__get_le64(f);
  if (hlen > (uint64_t)(nbytes - 8))
    return tp__error_set(err, TP_ERR_FORMAT, "header length %llu runs past the end of the "
                        "%lu-byte file", (unsigned long long)hlen, (unsigned long)nbytes);
  if (hlen > TP__ST_MAX_HEADER)
    return tp__error_set(err, TP_ERR_FORMAT, "header length %llu is above the limit of %lu bytes",
                        (unsigned long long)hlen, (unsigned long)TP__ST_MAX_HEADER);
  st->data = f + 8 + (size_t)hlen;
  st->data_size = (uint64_t)(nbytes - 8 - (size_t)hlen);
  j.p = f + 8;
  j.n = (size_t)hlen;
  if (j.n == 0 || j.p[0] != '{')
    return tp__error_set(err, TP_ERR_FORMAT, "the %lu-byte header does not start with '{'",
                        (unsigned long)j.n);
  j.i = 1;
  while ((more = tp__json_more(&j, '}', &k)) > 0) {
    size_t at, len;
    TP__STEP();
    if ((s = tp__json_string(&j, &at, &len)) != TP_OK) return s;
    if ((s = tp__json_take(&j, ':', "expected ':'")) != TP_OK) return s;
    if (strcmp(st->jm.pool + at, "__metadata__") == 0) {
      if (saw_meta)
        return tp__error_set(err, TP_ERR_FORMAT, "\"__metadata__\" appears twice in the header");
      saw_meta = 1;
      st->jm.pool_n = at;
      if ((s = tp__st_metadata(&j)) != TP_OK) return s;
    } else {
      tp__st_tensor *t;
      if (tp__array_reserve((void **)&st->t, &st->cap, st->n + 1, sizeof(tp__st_tensor)) !=
          TP_OK)
        return tp__error_set(err, TP_ERR_NOMEM, "no memory for %lu tensors",
                            (unsigned long)(st->n + 1));
      t = &st->t[st->n++];
      memset(t, 0, sizeof *t);
      t->name = at;
      t->name_len = len;
      if ((s = tp__st_tensor_obj(&j, t)) != TP_OK) return s;
    }
  }
  if (more < 0) return TP_ERR_FORMAT;
  tp__json_ws(&j);
  if (j.i != j.n) return tp__json_fail(&j, "more after the header's closing '}'");
  if ((s = tp__st_meta_index(st, err)) != TP_OK) return s;
  return tp__st_check(st, err);
}

TPDEF tp_status tp_safetensors_open(const void *file, size_t nbytes, tp_safetensors **out,
                                    tp_error *err) {
  tp_error local;
  tp_safetensors *st;
  tp_status s;
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_safetensors_open: out is NULL");
  *out = NULL;
  if (!file && nbytes > 0)
    return tp__error_set(err, TP_ERR_INVALID, "tp_safetensors_open: file is NULL with %lu bytes",
                        (unsigned long)nbytes);
  st = (tp_safetensors *)TP_MALLOC(sizeof(tp_safetensors));
  if (!st) return tp__error_set(err, TP_ERR_NOMEM, "no memory for a safetensors reader");
  memset(st, 0, sizeof *st);
  s = tp__st_parse(st, (const unsigned char *)file, nbytes, err);
  if (s != TP_OK) {
    tp_safetensors_close(st);
    return s;
  }
  *out = st;
  return TP_OK;
}

#ifndef TP_NO_STDIO
static tp_status tp__st_file_parse(void *out, tp_file_bytes *bytes, tp_error *err) {
  tp_status s = tp_safetensors_open(bytes->data, bytes->size, (tp_safetensors **)out, err);
  if (s == TP_OK) tp__file_keep(&(*(tp_safetensors **)out)->file, bytes);
  return s;
}

TPDEF tp_status tp_safetensors_open_file(const char *path, tp_safetensors **out, tp_error *err) {
  tp_error local;
  if (!err) err = &local;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_safetensors_open_file: out is NULL");
  *out = NULL;
  return tp__file_parse(path, err, tp__st_file_parse, out);
}
#endif

TPDEF size_t tp_safetensors_count(const tp_safetensors *st) {
  TP_ASSERT(st);
  return st->n;
}

TPDEF tp_status tp_safetensors_status(const tp_safetensors *st) {
  TP_ASSERT(st);
  return st->last.status;
}

TPDEF const char *tp_safetensors_error(const tp_safetensors *st) {
  TP_ASSERT(st);
  return st->last.status != TP_OK ? st->last.msg : "";
}

TPDEF tp_status tp_safetensors_get(const tp_safetensors *st, size_t i, const char **name,
                                   tp_tensor *out) {
  /* The object is the caller's but its lookup sentence is ours: st was allocated non-const. */
  tp_error *last = (tp_error *)&st->last;
  const tp__st_tensor *t;
  const tp__st_dtype *dt;
  tp_storage s;
  tp_status r;
  TP_ASSERT(st);
  memset(last, 0, sizeof *last);
  if (name) *name = NULL;
  if (i >= st->n)
    return tp__error_set(last, TP_ERR_INVALID, "tensor %lu asked for; the file has %lu",
                        (unsigned long)i, (unsigned long)st->n);
  t = &st->t[i];
  dt = &tp__st_dtypes[t->dtype];
  if (name) *name = st->jm.pool + t->name;
  if (!out) return TP_OK;
  if (dt->tp < 0)
    return tp__error_set(last, TP_ERR_UNSUPPORTED, "tensor \"%.80s\": dtype %s has no tp_dtype",
                        st->jm.pool + t->name, dt->name);
  if (t->ndim > TP_MAX_DIMS)
    return tp__error_set(last, TP_ERR_UNSUPPORTED, "tensor \"%.80s\": %lu dims, more than "
                        "TP_MAX_DIMS %d", st->jm.pool + t->name, (unsigned long)t->ndim,
                        TP_MAX_DIMS);
  if (TP__BIG_ENDIAN && dt->bits > 8)
    return tp__error_set(last, TP_ERR_UNSUPPORTED, "tensor \"%.80s\": the file's %s elements are "
                        "little-endian and this host is big-endian", st->jm.pool + t->name,
                        dt->name);
  s.data = st->data + (size_t)t->begin;
  s.nbytes = (size_t)(t->end - t->begin);
  /* open checked everything tp_view checks (at most TP_MAX_DIMS dims, checked above; each dim
     <= INT64_MAX; numel x element size == the tensor's bytes, inside the data): it cannot
     fail, so there is no error path here */
  r = tp_view(s, (tp_dtype)dt->tp, (int)t->ndim, st->dims + t->dims_at, NULL, 0, out, NULL);
  TP_ASSERT(r == TP_OK);
  return r;
}

/* key in the n names of v (sorted by tp__st_cmp_name), by binary search; NULL when absent. */
static const tp__st_name *tp__st_search(const tp__st_name *v, size_t n, const char *key) {
  tp__st_name q;
  size_t lo = 0, hi = n;
  q.name = key;
  q.len = strlen(key);
  q.idx = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = tp__st_cmp_name(&v[mid], &q); /* counts its step */
    if (c == 0) return &v[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

TPDEF tp_status tp_safetensors_find(const tp_safetensors *st, const char *name, tp_tensor *out) {
  tp_error *last = (tp_error *)&st->last;
  const tp__st_name *hit;
  TP_ASSERT(st);
  memset(last, 0, sizeof *last);
  if (!name) return tp__error_set(last, TP_ERR_INVALID, "tp_safetensors_find: name is NULL");
  hit = tp__st_search(st->by_name, st->n, name);
  if (hit) return tp_safetensors_get(st, hit->idx, NULL, out);
  return tp__error_set(last, TP_ERR_INVALID, "tensor \"%.120s\" is not in the file", name);
}

TPDEF tp_status tp_safetensors_metadata(const tp_safetensors *st, const char *key,
                                        const char **value) {
  tp_error *last = (tp_error *)&st->last;
  const tp__st_name *hit;
  TP_ASSERT(st);
  memset(last, 0, sizeof *last);
  if (value) *value = NULL;
  if (!key) return tp__error_set(last, TP_ERR_INVALID, "tp_safetensors_metadata: key is NULL");
  hit = tp__st_search(st->meta_by_key, st->meta_n, key);
  if (hit) {
    if (value) *value = st->jm.pool + st->meta[2 * hit->idx + 1];
    return TP_OK;
  }
  return tp__error_set(last, TP_ERR_INVALID, "__metadata__ has no \"%.120s\"", key);
}

// >>json -------------------------------------------------------------------------------------

/* One top-level entry of a tp_json document. Strings (the key, a string value, a number's
   text) are pool offsets; a number's value is computed once, when the document is read. */
typedef struct tp__json_entry {
  size_t key;
  tp_json_kind kind;
  size_t text;           /* STRING: the value; NUMBER: its text as written */
  int flag;              /* BOOL: the value; NUMBER: 1 when written as an integer */
  int fits_i64, fits_double;     /* NUMBER: i (an integer only) and d hold its value */
  int64_t i;
  double d;
} tp__json_entry;

struct tp_json {
  tp__json_mem jm;
  tp__json_entry *e;
  size_t n, cap;
  tp__st_name *by_key;   /* the keys sorted (idx: the entry), for lookups */
  tp_error last;
};

/* The number text p[0, n) (RFC 8259's grammar, checked) as the nearest double: its significant
   digits and decimal exponent are rewritten as "DIGITSeEXP", which strtod reads the same in
   every locale (no decimal point). At most 800 significant digits are kept (deciding a
   double's rounding never needs more than 767), the rest folded into one sticky digit, so the
   work is linear in n. Returns 0 when the magnitude is above the largest double. */
static int tp__json_to_double(const char *p, size_t n, double *out) {
  char buf[840], dig[24];
  size_t i = 0, b = 0, kept = 0, nd = 0;
  long long exp10 = 0, e = 0;
  int sticky = 0, neg = p[0] == '-', eneg = 0, frac = 0;
  double v;
  if (neg) buf[b++] = '-', i++;
  for (; i < n && p[i] != 'e' && p[i] != 'E'; i++) {
    if (p[i] == '.') {
      frac = 1;
    } else if (kept == 0 && p[i] == '0') { /* a leading zero */
      if (frac) exp10--;
    } else if (kept < 800) {
      buf[b++] = p[i], kept++;
      if (frac) exp10--;
    } else { /* beyond 800 digits: only whether one is not 0 */
      if (p[i] != '0') sticky = 1;
      if (!frac) exp10++;
    }
  }
  if (kept == 0) {
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  if (sticky) buf[b++] = '1', exp10--;
  if (i < n) { /* the exponent, saturated far beyond any double's */
    i++;
    if (p[i] == '+' || p[i] == '-') eneg = p[i] == '-', i++;
    for (; i < n; i++)
      if (e < 100000000LL) e = e * 10 + (p[i] - '0');
  }
  exp10 += eneg ? -e : e;
  buf[b++] = 'e';
  if (exp10 < 0) buf[b++] = '-', exp10 = -exp10;
  do dig[nd++] = (char)('0' + exp10 % 10), exp10 /= 10;
  while (exp10 > 0);
  while (nd > 0) buf[b++] = dig[--nd];
  buf[b] = 0;
  v = strtod(buf, NULL);
  if (v > DBL_MAX || v < -DBL_MAX) return 0;
  *out = v;
  return 1;
}

/* The integer text p[0, n) (optional '-', digits) as an int64; 0 when outside its range. */
static int tp__json_to_i64(const char *p, size_t n, int64_t *out) {
  size_t i = 0;
  uint64_t v = 0, lim;
  int neg = p[0] == '-';
  if (neg) i++;
  lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    unsigned d = (unsigned)(p[i] - '0');
    if (v > (lim - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = !neg ? (int64_t)v : v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
  return 1;
}

/* One top-level value into e (its key already set). */
static tp_status tp__json_entry_value(tp__json *j, tp__json_entry *e) {
  unsigned char c;
  tp_status s;
  size_t at, len;
  tp__json_ws(j);
  if (j->i >= j->n) return tp__json_fail(j, "expected a value");
  c = j->p[j->i];
  if (c == '"') {
    e->kind = TP_JSON_STRING;
    if ((s = tp__json_string(j, &at, &len)) != TP_OK) return s;
    e->text = at;
    return TP_OK;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    size_t start = j->i;
    static const unsigned char nul = 0;
    e->kind = TP_JSON_NUMBER;
    if ((s = tp__json_number(j, &e->flag)) != TP_OK) return s;
    e->text = j->m->pool_n;
    if ((s = tp__json_pool_put(j, j->p + start, j->i - start)) != TP_OK ||
        (s = tp__json_pool_put(j, &nul, 1)) != TP_OK)
      return s;
    len = j->i - start;
    e->fits_double = tp__json_to_double(j->m->pool + e->text, len, &e->d);
    e->fits_i64 = e->flag && tp__json_to_i64(j->m->pool + e->text, len, &e->i);
    return TP_OK;
  }
  e->kind = c == '{' ? TP_JSON_OBJECT : c == '[' ? TP_JSON_ARRAY : c == 't' || c == 'f'
            ? TP_JSON_BOOL : TP_JSON_NULL;
  e->flag = c == 't';
  return tp__json_skip(j, 1); /* checks literals and nested values */
}

static tp_status tp__json_parse(tp_json *doc, const unsigned char *p, size_t n, tp_error *err) {
  tp__json j = {p, n, 0, &doc->jm, NULL, "byte", err};
  tp_status s;
  size_t k = 0; /* the members, then the index */
  int more;
  if (n > TP__ST_MAX_HEADER)
    return tp__error_set(err, TP_ERR_FORMAT, "the JSON text is %lu bytes, above the limit of %lu",
                        (unsigned long)n, (unsigned long)TP__ST_MAX_HEADER);
  tp__json_ws(&j);
  if (j.i >= j.n || j.p[j.i] != '{')
    return tp__json_fail(&j, "the JSON text is not an object (no '{')");
  j.i++;
  while ((more = tp__json_more(&j, '}', &k)) > 0) {
    size_t at, len;
    tp__json_entry *e;
    if ((s = tp__json_string(&j, &at, &len)) != TP_OK) return s;
    if ((s = tp__json_key_note(&j, at, len)) != TP_OK) return s;
    if ((s = tp__json_take(&j, ':', "expected ':'")) != TP_OK) return s;
    if (tp__array_reserve((void **)&doc->e, &doc->cap, doc->n + 1, sizeof *doc->e) != TP_OK)
      return tp__error_set(err, TP_ERR_NOMEM, "no memory for %lu JSON keys",
                          (unsigned long)(doc->n + 1));
    e = &doc->e[doc->n++];
    memset(e, 0, sizeof *e);
    e->key = at;
    if ((s = tp__json_entry_value(&j, e)) != TP_OK) return s;
  }
  if (more < 0) return TP_ERR_FORMAT;
  if ((s = tp__json_keys_done(&j, 0, 0)) != TP_OK) return s;
  tp__json_ws(&j);
  if (j.i != j.n) return tp__json_fail(&j, "more after the object's closing '}'");
  if (doc->n == 0) return TP_OK;
  doc->by_key = (tp__st_name *)TP_MALLOC(doc->n * sizeof(tp__st_name));
  if (!doc->by_key)
    return tp__error_set(err, TP_ERR_NOMEM, "no memory to index %lu JSON keys",
                        (unsigned long)doc->n);
  for (k = 0; k < doc->n; k++) {
    doc->by_key[k].name = doc->jm.pool + doc->e[k].key;
    doc->by_key[k].len = strlen(doc->by_key[k].name);
    doc->by_key[k].idx = k;
  }
  qsort(doc->by_key, doc->n, sizeof(tp__st_name), tp__st_cmp_name); /* unique: checked above */
  return TP_OK;
}

TPDEF void tp_json_close(tp_json *doc) {
  if (!doc) return;
  TP_FREE(doc->jm.pool);
  TP_FREE(doc->jm.keys);
  TP_FREE(doc->jm.kb);
  TP_FREE(doc->e);
  TP_FREE(doc->by_key);
  TP_FREE(doc);
}

TPDEF tp_status tp_json_open(const void *text, size_t nbytes, tp_json **out, tp_error *err) {
  tp_error local;
  tp_json *doc;
  tp_status s;
  if (!err) err = &local;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_json_open: out is NULL");
  *out = NULL;
  if (!text && nbytes > 0)
    return tp__error_set(err, TP_ERR_INVALID, "tp_json_open: text is NULL with %lu bytes",
                        (unsigned long)nbytes);
  doc = (tp_json *)TP_MALLOC(sizeof(tp_json));
  if (!doc) return tp__error_set(err, TP_ERR_NOMEM, "no memory for a JSON document");
  memset(doc, 0, sizeof *doc);
  s = tp__json_parse(doc, (const unsigned char *)text, nbytes, err);
  if (s != TP_OK) {
    tp_json_close(doc);
    return s;
  }
  *out = doc;
  return TP_OK;
}

#ifndef TP_NO_STDIO
static tp_status tp__json_file_parse(void *out, tp_file_bytes *bytes, tp_error *err) {
  return tp_json_open(bytes->data, bytes->size, (tp_json **)out, err); /* keeps a copy */
}

TPDEF tp_status tp_json_open_file(const char *path, tp_json **out, tp_error *err) {
  tp_error local;
  if (!err) err = &local;
  tp__error_reset(err);
  if (!out) return tp__error_set(err, TP_ERR_INVALID, "tp_json_open_file: out is NULL");
  *out = NULL;
  return tp__file_parse(path, err, tp__json_file_parse, out);
}
#endif

TPDEF size_t tp_json_count(const tp_json *doc) {
  TP_ASSERT(doc);
  return doc->n;
}

TPDEF tp_status tp_json_status(const tp_json *doc) {
  TP_ASSERT(doc);
  return doc->last.status;
}

TPDEF const char *tp_json_error(const tp_json *doc) {
  TP_ASSERT(doc);
  return doc->last.status != TP_OK ? doc->last.msg : "";
}

TPDEF tp_status tp_json_key(const tp_json *doc, size_t i, const char **key, tp_json_kind *kind) {
  tp_error *last = (tp_error *)&doc->last; /* the caller's object, our sentence */
  TP_ASSERT(doc);
  memset(last, 0, sizeof *last);
  if (key) *key = NULL;
  if (i >= doc->n)
    return tp__error_set(last, TP_ERR_INVALID, "key %lu asked for; the object has %lu",
                        (unsigned long)i, (unsigned long)doc->n);
  if (key) *key = doc->jm.pool + doc->e[i].key;
  if (kind) *kind = doc->e[i].kind;
  return TP_OK;
}

static const char *tp__json_kind_name(tp_json_kind k) {
  switch (k) {
    case TP_JSON_NULL: return "null";
    case TP_JSON_BOOL: return "a boolean";
    case TP_JSON_NUMBER: return "a number";
    case TP_JSON_STRING: return "a string";
    case TP_JSON_ARRAY: return "an array";
    case TP_JSON_OBJECT: return "an object";
  }
  return "?";
}

/* The entry under key, or NULL with the sentence in doc->last: no key, or (want >= 0) a value
   of another kind than want (a noun for the sentence: "an integer"). */
static const tp__json_entry *tp__json_lookup(const tp_json *doc, const char *key, int want,
                                             const char *noun) {
  tp_error *last = (tp_error *)&doc->last;
  const tp__st_name *hit;
  const tp__json_entry *e;
  TP_ASSERT(doc);
  memset(last, 0, sizeof *last);
  if (!key) {
    tp__error_set(last, TP_ERR_INVALID, "tp_json: key is NULL");
    return NULL;
  }
  hit = tp__st_search(doc->by_key, doc->n, key);
  if (!hit) {
    tp__error_set(last, TP_ERR_INVALID, "no key \"%.120s\"", key);
    return NULL;
  }
  e = &doc->e[hit->idx];
  if (want >= 0 && (int)e->kind != want) {
    tp__error_set(last, TP_ERR_INVALID, "key \"%.120s\" is %s, not %s", key,
                 tp__json_kind_name(e->kind), noun);
    return NULL;
  }
  return e;
}

TPDEF tp_status tp_json_find(const tp_json *doc, const char *key, tp_json_kind *kind) {
  const tp__json_entry *e = tp__json_lookup(doc, key, -1, NULL);
  if (!e) return doc->last.status;
  if (kind) *kind = e->kind;
  return TP_OK;
}

/* A refusal of e's number: "key "k" is TEXT, why" (the text cut at 40 characters). */
static tp_status tp__json_number_refused(const tp_json *doc, const char *key,
                                         const tp__json_entry *e, const char *why) {
  const char *t = doc->jm.pool + e->text;
  return tp__error_set((tp_error *)&doc->last, TP_ERR_INVALID, "key \"%.120s\" is %.40s%s, %s",
                      key, t, strlen(t) > 40 ? "..." : "", why);
}

TPDEF tp_status tp_json_int(const tp_json *doc, const char *key, int64_t *value) {
  const tp__json_entry *e = tp__json_lookup(doc, key, TP_JSON_NUMBER, "an integer");
  if (!e) return doc->last.status;
  if (!e->flag) return tp__json_number_refused(doc, key, e, "not an integer");
  if (!e->fits_i64) return tp__json_number_refused(doc, key, e, "outside int64");
  if (value) *value = e->i;
  return TP_OK;
}

TPDEF tp_status tp_json_number(const tp_json *doc, const char *key, double *value) {
  const tp__json_entry *e = tp__json_lookup(doc, key, TP_JSON_NUMBER, "a number");
  if (!e) return doc->last.status;
  if (!e->fits_double) return tp__json_number_refused(doc, key, e, "above the largest double");
  if (value) *value = e->d;
  return TP_OK;
}

TPDEF tp_status tp_json_string(const tp_json *doc, const char *key, const char **value) {
  const tp__json_entry *e = tp__json_lookup(doc, key, TP_JSON_STRING, "a string");
  if (value) *value = NULL;
  if (!e) return doc->last.status;
  if (value) *value = doc->jm.pool + e->text;
  return TP_OK;
}

TPDEF tp_status tp_json_bool(const tp_json *doc, const char *key, int *value) {
  const tp__json_entry *e = tp__json_lookup(doc, key, TP_JSON_BOOL, "a boolean");
  if (!e) return doc->last.status;
  if (value) *value = e->flag;
  return TP_OK;
}

#if defined(DLPACK_VERSION) || defined(DLPACK_MAJOR_VERSION)
// >>dlpack -----------------------------------------------------------------------------------

TPDEF tp_status tp_view_from_dlpack(const DLTensor *t, size_t storage_nbytes, tp_tensor *out,
                                    tp_error *err) {
  tp_error local;
  tp_tensor r;
  tp_dtype dt;
  size_t es;
  int d;
  size_t k;
  const unsigned char *base;
  /* the DLPack (code, bits) pairs with a tp_dtype; 6 is kDLBool (DLPack 0.8+) */
  static const struct {
    int code;
    unsigned bits;
    tp_dtype dt;
  } kinds[] = {{kDLFloat, 16, TP_F16}, {kDLFloat, 32, TP_F32}, {kDLFloat, 64, TP_F64},
               {kDLBfloat, 16, TP_BF16}, {kDLInt, 8, TP_I8},    {kDLInt, 16, TP_I16},
               {kDLInt, 32, TP_I32},    {kDLInt, 64, TP_I64},  {kDLUInt, 8, TP_U8},
               {6, 8, TP_BOOL}};
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  if (!t || !out) return tp__error_set(err, TP_ERR_INVALID, "tp_view_from_dlpack: NULL %s",
                                      !t ? "tensor" : "out");
  if ((int)t->device.device_type != (int)kDLCPU)
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "DLPack tensor on device type %d (id %d); "
                        "only kDLCPU (1) memory can be read", (int)t->device.device_type,
                        (int)t->device.device_id);
  if (t->dtype.lanes != 1)
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "DLPack dtype has %u lanes; only 1 is "
                        "supported", (unsigned)t->dtype.lanes);
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (kinds[k].code == (int)t->dtype.code && kinds[k].bits == (unsigned)t->dtype.bits) break;
  if (k == sizeof kinds / sizeof kinds[0])
    return tp__error_set(err, TP_ERR_UNSUPPORTED, "DLPack dtype code %d with %u bits has no "
                        "tp_dtype", (int)t->dtype.code, (unsigned)t->dtype.bits);
  dt = kinds[k].dt;
  if (t->ndim < 0 || t->ndim > TP_MAX_DIMS)
    return tp__error_set(err, TP_ERR_INVALID, "DLPack tensor has %d dims (0..%d allowed)",
                        t->ndim, TP_MAX_DIMS);
  if (!t->data) return tp__error_set(err, TP_ERR_INVALID, "DLPack tensor's data is NULL");
  if (t->ndim > 0 && !t->shape)
    return tp__error_set(err, TP_ERR_INVALID, "DLPack tensor has %d dims and no shape", t->ndim);
  es = tp_dtype_size(dt);
  memset(&r, 0, sizeof r);
  r.dtype = dt;
  r.ndim = t->ndim;
  for (d = 0; d < t->ndim; d++) {
    if (t->shape[d] < 0)
      return tp__error_set(err, TP_ERR_INVALID, "DLPack dim %d has size %lld", d,
                          (long long)t->shape[d]);
    r.sizes[d] = t->shape[d];
  }
  if (t->strides) {
    for (d = 0; d < t->ndim; d++) r.strides[d] = t->strides[d];
  } else {
    int64_t acc = 1;
    for (d = t->ndim - 1; d >= 0; d--) {
      r.strides[d] = acc;
      /* an overflow here means the element count overflows too: tp_tensor_check says so */
      if (tp__mul_i64(acc, r.sizes[d] > 1 ? r.sizes[d] : 1, &acc)) acc = 0;
    }
  }
  base = (const unsigned char *)t->data;
  if (storage_nbytes == 0) {
    /* The storage is the view's span: from its lowest to its highest addressed element. */
    int64_t lo = 0, hi = 0, ext, nb;
    uint64_t before;
    int empty = 0;
    for (d = 0; d < r.ndim; d++) empty |= r.sizes[d] == 0;
    for (d = 0; d < r.ndim && !empty; d++) {
      if (r.strides[d] == INT64_MIN || tp__mul_i64(r.sizes[d] - 1, r.strides[d], &ext) ||
          tp__add_i64(ext > 0 ? hi : lo, ext, ext > 0 ? &hi : &lo))
        return tp__error_set(err, TP_ERR_OVERFLOW, "DLPack dim %d: size %lld x stride %lld "
                            "overflows", d, (long long)r.sizes[d], (long long)r.strides[d]);
    }
    if (lo == INT64_MIN || tp__add_i64(hi, -lo, &nb) || tp__add_i64(nb, 1, &nb) ||
        tp__mul_i64(nb, (int64_t)es, &nb) || (uint64_t)nb > (uint64_t)SIZE_MAX ||
        (uint64_t)(-lo) > (UINT64_MAX - t->byte_offset) / es)
      return tp__error_set(err, TP_ERR_OVERFLOW, "DLPack view's extent (elements %lld to %lld "
                          "of %u bytes) overflows", (long long)lo, (long long)hi, (unsigned)es);
    before = (uint64_t)(-lo) * es;   /* bytes the view reaches before data + byte_offset */
    if (before > t->byte_offset && before - t->byte_offset > (uint64_t)(uintptr_t)base)
      return tp__error_set(err, TP_ERR_BOUNDS, "DLPack view reaches %llu bytes before data + "
                          "byte_offset, below address 0", (unsigned long long)before);
    if (t->byte_offset > (uint64_t)(UINTPTR_MAX - (uintptr_t)base) ||
        (!empty && (uint64_t)nb - 1u > (uint64_t)(UINTPTR_MAX - ((uintptr_t)base +
                                                                (uintptr_t)t->byte_offset -
                                                                (uintptr_t)before))))
      return tp__error_set(err, TP_ERR_BOUNDS, "DLPack view (byte_offset %llu, %lld bytes from "
                          "its lowest element) runs past the end of the address space",
                          (unsigned long long)t->byte_offset, (long long)nb);
    r.storage.data = (const unsigned char *)((uintptr_t)base + (uintptr_t)t->byte_offset -
                                             (uintptr_t)before);
    r.storage.nbytes = empty ? 0 : (size_t)nb;
    r.offset = -lo;
  } else if ((uint64_t)storage_nbytes - 1u > (uint64_t)(UINTPTR_MAX - (uintptr_t)base)) {
    return tp__error_set(err, TP_ERR_BOUNDS, "DLPack storage of %lu bytes from data runs past "
                        "the end of the address space", (unsigned long)storage_nbytes);
  } else if (t->byte_offset % es == 0) {
    if (t->byte_offset / es > (uint64_t)INT64_MAX)
      return tp__error_set(err, TP_ERR_OVERFLOW, "DLPack byte_offset %llu overflows",
                          (unsigned long long)t->byte_offset);
    r.storage.data = base;
    r.storage.nbytes = storage_nbytes;
    r.offset = (int64_t)(t->byte_offset / es);
  } else {
    if (t->byte_offset > storage_nbytes)
      return tp__error_set(err, TP_ERR_BOUNDS, "DLPack byte_offset %llu is past the %lu-byte "
                          "storage", (unsigned long long)t->byte_offset,
                          (unsigned long)storage_nbytes);
    r.storage.data = base + (size_t)t->byte_offset;
    r.storage.nbytes = storage_nbytes - (size_t)t->byte_offset;
    r.offset = 0;
  }
  {
    tp_error verr;
    tp_status s;
    memset(&verr, 0, sizeof verr);
    s = tp_tensor_check(&r, &verr);
    if (s != TP_OK)
      return tp__error_set(err, s, "DLPack tensor: %s", verr.msg);
  }
  *out = r;
  return TP_OK;
}
#endif /* DLPACK */

#endif /* TENSORPACK_IMPLEMENTATION_DONE */
#endif /* TENSORPACK_IMPLEMENTATION */

/* REVISION HISTORY
   0.3.0  The view ops have one form each: tp_view, tp_select, tp_narrow, tp_slice,
          tp_transpose, tp_permute, tp_chunk, tp_flip and tp_expand take a last tp_error *err
          (may be NULL) and the nine _ex forms are gone (pass NULL where the plain form was
          called, drop _ex where the _ex form was). JSON reader (tp_json_*), program graphs'
          shape checks, tp_xnn_load_pte for graph-API methods, tp_xnn_define_node, the Vulkan
          operator table with argument kinds and types, plumbing out of the public API.
          The copy's transposes use AVX-512 F/BW tiles where the CPU has them (TP_NO_AVX512);
          a copy big enough to be streamed starts on a 64-byte line inside its allocation, so
          tp_buffer.data may lie up to 63 bytes past .owned (free .owned, or call
          tp_buffer_release). tp_xnn_define_node takes TP_XNN_INVALID_ID only in a slot its
          node kind does not use, and the reader's rules ignore what a blob holds there.
   0.2.0  One error rule (ERRORS above): a failed write no longer kills a store, sentences name
          paths; tp_store_status, tp_atomic_write's err, tp_fb_reader_init_ex / _error,
          tp_ptd_status / _error / _lookup_error. View ops take negative dims (from the end,
          as Python) and have _ex forms with a sentence; results that are valid views are
          never TP_ERR_OVERFLOW. NULL sinks / callbacks are TP_ERR_INVALID. The builder fails
          (TP_ERR_NOMEM) instead of skipping vtable dedup. TP_NO_STDIO formatter: precision,
          %g. Version macros, tp_version_string, the link-time ABI check. tp_store_options /
          tp_store_create's options; programs (.pte, section 9). Internal helpers out of the API:
          tp__put_le16/32/64 -> tp__put_le*, tp__get_le16/32/64 -> tp__get_le*,
          tp__add_u64 / tp__mul_u64 / tp__align_u64 / tp__array_reserve / tp__error_set ->
          tp__add_u64 / ... / tp__error_set. TP_ASSERT reaches every header.
   0.1    First release: views, compact copy, conversions, int4, SHA-256, sinks, FlatBuffers
          builder and reader, named data store and .ptd, XNNPACK and Vulkan delegate blobs. */

/*
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the tensorpack authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
