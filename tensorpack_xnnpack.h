/* tensorpack_xnnpack.h - placeholder, being written */
#ifndef TENSORPACK_XNNPACK_H
#define TENSORPACK_XNNPACK_H
#include "tensorpack.h"
#endif
