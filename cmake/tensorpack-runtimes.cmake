# The opt-in targets of tensorpack's optional runtime parts, defined when their library is
# found (quietly: a consumer that does not link them needs neither library). Used by the
# source tree's CMakeLists.txt and by the installed tensorpackConfig.cmake.
if(NOT TARGET tensorpack::xnnpack_runtime)
  find_library(TENSORPACK_XNNPACK_LIB XNNPACK)
  find_path(TENSORPACK_XNNPACK_INCLUDE xnnpack.h)
  if(TENSORPACK_XNNPACK_LIB AND TENSORPACK_XNNPACK_INCLUDE)
    add_library(tensorpack::xnnpack_runtime INTERFACE IMPORTED GLOBAL)
    set_target_properties(tensorpack::xnnpack_runtime PROPERTIES
      INTERFACE_COMPILE_DEFINITIONS TENSORPACK_XNNPACK_RUNTIME
      INTERFACE_INCLUDE_DIRECTORIES "${TENSORPACK_XNNPACK_INCLUDE}"
      INTERFACE_LINK_LIBRARIES "tensorpack::tensorpack;${TENSORPACK_XNNPACK_LIB}")
  endif()
endif()
if(NOT TARGET tensorpack::vulkan_runtime)
  find_package(Vulkan QUIET)
  if(Vulkan_FOUND)
    add_library(tensorpack::vulkan_runtime INTERFACE IMPORTED GLOBAL)
    set_target_properties(tensorpack::vulkan_runtime PROPERTIES
      INTERFACE_COMPILE_DEFINITIONS TENSORPACK_VULKAN_RUNTIME
      INTERFACE_LINK_LIBRARIES "tensorpack::tensorpack;Vulkan::Vulkan")
  endif()
endif()
