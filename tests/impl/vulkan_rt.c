/* tensorpack_vulkan.h's implementation with the upload onto a real device (link -lvulkan):
   the vkrt_* suites. */
#define TENSORPACK_VULKAN_RUNTIME
#include "vulkan.c"
