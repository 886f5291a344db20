/* The tail of a hand-built .pte, for the suites and benches that build programs with the
   tp_fb_* builder (tests/linear_shapes.h, tests/xnnrt_pte.c): the Program root around one
   execution plan, an empty constant segment (one offset, 0) and the backend delegate data
   vector bdd, finished as "ET12". Returns a malloc'd copy (NULL on failure; *size is 0 then)
   and destroys the builder either way. */
#ifndef TP_PTE_BUILD_H
#define TP_PTE_BUILD_H
#include <stdlib.h>
#include <string.h>
#include "tensorpack.h"

static inline unsigned char *tpt_pte_finish(tp_fb_builder *b, tp_fb_ref plan, tp_fb_ref bdd,
                                            size_t *size) {
  tp_fb_ref plans, offs, cseg, root;
  const unsigned char *p;
  unsigned char *out = NULL;
  uint64_t zero64 = 0;
  size_t sz = 0;
  plans = tp_fb_create_vector_refs(b, &plan, 1);
  offs = tp_fb_create_vector(b, &zero64, 1, 8);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_SubsegmentOffsets_offsets, offs);
  cseg = tp_fb_end_table(b);
  tp_fb_start_table(b);
  tp_fb_add_ref(b, TP_PTE_F_Program_execution_plan, plans);
  tp_fb_add_ref(b, TP_PTE_F_Program_backend_delegate_data, bdd);
  tp_fb_add_ref(b, TP_PTE_F_Program_constant_segment, cseg);
  root = tp_fb_end_table(b);
  if (tp_fb_finish(b, root, "ET12") == TP_OK) {
    p = tp_fb_data(b, &sz);
    out = (unsigned char *)malloc(sz);
    if (out) memcpy(out, p, sz);
  }
  *size = out ? sz : 0;
  tp_fb_builder_destroy(b);
  return out;
}
#endif
