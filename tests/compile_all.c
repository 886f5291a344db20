/* Compiles every header with its implementation in one translation unit; used by
   tests/compile_matrix.sh as C99 and as C++ with gcc and clang, warnings as errors. */
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#ifdef TP_WITH_RUNTIMES /* the optional parts that include xnnpack.h / vulkan/vulkan.h */
#define TENSORPACK_XNNPACK_RUNTIME
#define TENSORPACK_VULKAN_RUNTIME
#endif
#ifdef TP_WITH_DLPACK /* dlpack.h first: tensorpack.h then declares tp_view_from_dlpack */
#include <dlpack/dlpack.h>
#endif
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
/* Twice: the include guards must hold and the implementation must not be emitted again. */
#include "tensorpack.h"
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"

int main(void) {
  tp_tensor t;
  float x[4] = {1, 2, 3, 4};
  tp_storage s;
  int64_t sz[1] = {4};
  s.data = x;
  s.nbytes = sizeof x;
  return tp_view(s, TP_F32, 1, sz, NULL, 0, &t, NULL) == TP_OK ? 0 : 1;
}
