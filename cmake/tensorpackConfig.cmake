# tensorpack's CMake config package (find_package(tensorpack CONFIG)). Relocatable: the prefix
# is found from this file's place, <prefix>/share/cmake/tensorpack/. Gives tensorpack::tensorpack
# (headers + libm) and, when their libraries are found, tensorpack::xnnpack_runtime and
# tensorpack::vulkan_runtime. The same file is installed by `cmake --install` and `make install`.
get_filename_component(_tensorpack_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET tensorpack::tensorpack)
  add_library(tensorpack::tensorpack INTERFACE IMPORTED)
  set_target_properties(tensorpack::tensorpack PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_tensorpack_prefix}/include")
  find_library(TENSORPACK_LIBM m)
  if(TENSORPACK_LIBM)
    set_property(TARGET tensorpack::tensorpack PROPERTY INTERFACE_LINK_LIBRARIES "${TENSORPACK_LIBM}")
  endif()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/tensorpack-runtimes.cmake")
unset(_tensorpack_prefix)
set(tensorpack_FOUND TRUE)
