/* tensorpack_xnnpack.h's implementation for the test build (tests/impl/core.c says how it is
   used); with -DTENSORPACK_XNNPACK_RUNTIME (tests/impl/xnnpack_rt.c) also the loader. */
#ifdef TP_IMPL_COUNT_ALLOC
#include "tp_count_alloc.h"
#endif
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
