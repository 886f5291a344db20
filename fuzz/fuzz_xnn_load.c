/* fuzz_xnn_load - libFuzzer target for tp_xnn_load, the loader onto the real XNNPACK
   (TENSORPACK_XNNPACK_RUNTIME): tp_xnn_read_blob's structure, the shape checks, and the
   subgraph rebuilt on the linked XNNPACK. Needs -lXNNPACK; mk/fuzz.mk builds it only when the
   library is there. The pure reader alone is fuzz_xnn_blob (every machine); load plus invoke
   is fuzz_xnn_invoke, whose code this is with the invoke left out (FZ_XNN_LOAD_ONLY).

   Load, then destroy. Invariants (abort on violation): a status from the documented set, the
   error sentence set exactly when the load fails, a runtime exactly when it succeeds. The
   framing and the lowered limits are fuzz_xnn_invoke's.

   Build: make fuzz-build (the implementation is linked: tests/impl/, built once in build/impl/fuzz/) */
#define FZ_XNN_LOAD_ONLY 1
#include "fuzz_xnn_invoke.c"
