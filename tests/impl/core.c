/* The core's implementation for the test build, compiled once per flavor (Makefile:
   $(BUILD)/impl/<flavor>/core.o) and linked by every test program that does not define
   TENSORPACK_IMPLEMENTATION itself (those include the headers for declarations only).
   -DTP_IMPL_COUNT_ALLOC (the <flavor>-count objects): every allocation goes through
   tests/tp_count_alloc.h, whose counters this file defines. */
#ifdef TP_IMPL_COUNT_ALLOC
#define TP_COUNT_ALLOC_IMPLEMENTATION
#include "tp_count_alloc.h"
#endif
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
