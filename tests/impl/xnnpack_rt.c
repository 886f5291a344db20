/* tensorpack_xnnpack.h's implementation with the loader onto the real XNNPACK (link
   -lXNNPACK): the xnnrt_* suites and the fuzz targets that load. */
#define TENSORPACK_XNNPACK_RUNTIME
#include "xnnpack.c"
