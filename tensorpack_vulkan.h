/* tensorpack_vulkan.h - placeholder, being written */
#ifndef TENSORPACK_VULKAN_H
#define TENSORPACK_VULKAN_H
#include "tensorpack.h"
#endif
