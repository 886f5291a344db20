/* fuzz_input.h - the input framing the blob targets share (fuzz_xnn_blob, fuzz_xnn_load,
   fuzz_xnn_check, fuzz_xnn_invoke, fuzz_vk_blob, fuzz_tpdump; fuzz/make_seeds.c writes seeds
   this way):
     [0,4)  u32 little-endian n = the blob's (file's) length
     [4, 4 + n)   the blob
     [4 + n, end) a .ptd file holding its named constants (may be empty: none)
   When n is larger than what follows, everything after the 4 bytes is the blob and there is no
   .ptd; an input shorter than 4 bytes is all blob. The blob and the .ptd are each copied into a
   heap block of exactly their size (malloc: 16-aligned), so ASan sees any read past either. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz_input {
  uint8_t *blob; /* never NULL after a successful split (a 1-byte block for an empty blob) */
  size_t blob_n;
  uint8_t *ptd; /* NULL when there is no .ptd */
  size_t ptd_n;
} fz_input;

static void fz_input_free(fz_input *in) {
  free(in->ptd);
  free(in->blob);
  memset(in, 0, sizeof *in);
}

/* Splits data into blob and .ptd; 0 when memory ran out (skip the input). */
static int fz_input_split(const uint8_t *data, size_t size, fz_input *in) {
  const uint8_t *blob_src = data, *ptd_src = NULL;
  memset(in, 0, sizeof *in);
  in->blob_n = size;
  if (size >= 4) {
    uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                 (uint32_t)data[3] << 24;
    blob_src = data + 4;
    in->blob_n = size - 4;
    if (n <= in->blob_n) {
      ptd_src = blob_src + n;
      in->ptd_n = in->blob_n - n;
      in->blob_n = n;
    }
  }
  in->blob = (uint8_t *)malloc(in->blob_n ? in->blob_n : 1);
  if (!in->blob) return 0;
  if (in->blob_n) memcpy(in->blob, blob_src, in->blob_n);
  if (in->ptd_n) {
    in->ptd = (uint8_t *)malloc(in->ptd_n);
    if (!in->ptd) {
      fz_input_free(in);
      return 0;
    }
    memcpy(in->ptd, ptd_src, in->ptd_n);
  }
  return 1;
}
#endif
