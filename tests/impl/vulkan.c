/* tensorpack_vulkan.h's implementation for the test build (tests/impl/core.c says how it is
   used); with -DTENSORPACK_VULKAN_RUNTIME (tests/impl/vulkan_rt.c) also the upload part. */
#ifdef TP_IMPL_COUNT_ALLOC
#include "tp_count_alloc.h"
#endif
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_vulkan.h"
