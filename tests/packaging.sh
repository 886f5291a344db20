#!/bin/sh
# The packaging suite: consumer projects use tensorpack four ways and build as C and as C++,
# then run (each program makes a view, its bytes and their SHA-256 key, and checks them):
#   subdir   add_subdirectory(<source tree>)
#   fetch    FetchContent from a local tarball of the source tree (URL file://...)
#   find     find_package(tensorpack <the header's version> CONFIG) after `cmake --install` into a
#            fresh prefix (and a request for the next minor version must fail)
#   pkg      pkg-config --cflags/--libs tensorpack after `make install PREFIX=...`
# plus find_package after `make install` (the same config files), and, when XNNPACK is installed,
# a consumer of tensorpack::xnnpack_runtime (tp_xnn_load refusing a bad blob) in each CMake way
# and through pkg-config tensorpack-xnnpack-runtime; when Vulkan is installed, a consumer of
# tensorpack::vulkan_runtime / tensorpack-vulkan-runtime.pc (tp_vk_upload_blob refusing a bad
# blob) in each CMake way and through pkg-config.
# As a user's project does, one file defines the core's implementation (impl.c, an object
# library in CMake) and every program links it; the runtime consumers define their backend's
# part (its runtime flags come from the target or the .pc file). (The C++ build of the
# implementation itself is compile_matrix's.)
# Run from anywhere; TP_ROOT is the source tree. Prints "packaging: N passed, N failed".
cd "${TP_ROOT:-.}" || exit 1
root=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; [ -f "$tmp/log" ] && tail -n 25 "$tmp/log"; failed=$((failed + 1)); }

mkdir -p "$tmp/src"
printf '#define TENSORPACK_IMPLEMENTATION\n#include "tensorpack.h"\n' > "$tmp/src/impl.c"
cat > "$tmp/src/main.c" <<'SRC'
#include "tensorpack.h"
#include <stdio.h>
#include <string.h>
int main(void) {
  static float storage[3 * 8 * 8];
  int64_t sz[3] = {3, 8, 8};
  tp_storage s;
  tp_tensor x, w;
  tp_buffer b;
  char key[65];
  int i;
  for (i = 0; i < 3 * 8 * 8; i++) storage[i] = (float)i;
  s.data = storage;
  s.nbytes = sizeof storage;
  if (tp_view(s, TP_F32, 3, sz, NULL, 0, &x, NULL) != TP_OK || tp_select(&x, 0, 1, &w, NULL) != TP_OK ||
      tp_compact(&w, TP_ORDER_ROW_MAJOR, &b) != TP_OK)
    return 1;
  if (b.data != (const void *)(storage + 64) || b.nbytes != 256) return 2;
  if (tp_sha256_hex(b.data, b.nbytes, key) != TP_OK || strlen(key) != 64) return 3;
  tp_buffer_release(&b);
  printf("consumer ok: %s\n", key);
  return 0;
}
SRC
cp "$tmp/src/main.c" "$tmp/src/main.cpp"
part() { sed -n "s/^#define TP_VERSION_$1 *\([0-9][0-9]*\) *\$/\1/p" tensorpack.h; }
version="$(part MAJOR).$(part MINOR).$(part PATCH)"
next_minor="$(part MAJOR).$(($(part MINOR) + 1))"
cat > "$tmp/src/xnn.c" <<'SRC'
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "tensorpack_xnnpack.h"
#include <stdio.h>
int main(void) {
  unsigned char junk[64] = {0};
  tp_xnn_runtime *rt = NULL;
  tp_error err;
  tp_status s = tp_xnn_load(junk, sizeof junk, NULL, 0, 0, &rt, &err);
  if (s == TP_OK || rt != NULL || err.msg[0] == 0) return 1;
  printf("xnnpack runtime consumer ok: %s\n", err.msg);
  return 0;
}
SRC
cat > "$tmp/src/vk.c" <<'SRC'
#define TENSORPACK_VULKAN_IMPLEMENTATION
#include "tensorpack_vulkan.h"
#include <stdio.h>
int main(void) {
  unsigned char junk[64] = {0};
  tp_vk_upload up;
  tp_status s = tp_vk_upload_blob(junk, sizeof junk, NULL, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, 0, &up);
  if (s == TP_OK || up.err.msg[0] == 0) return 1;
  printf("vulkan runtime consumer ok: %s\n", up.err.msg);
  tp_vk_upload_free(&up);
  return 0;
}
SRC
cat > "$tmp/src/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.14)
project(consumer C CXX)
set(CMAKE_C_STANDARD 99)
set(CMAKE_C_FLAGS "${CMAKE_C_FLAGS} -Wall -Wextra -pedantic -Werror")
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -Wall -Wextra -pedantic -Werror")
if(MODE STREQUAL "subdir")
  add_subdirectory("${TP_ROOT}" tensorpack)
elseif(MODE STREQUAL "fetch")
  include(FetchContent)
  FetchContent_Declare(tensorpack URL "file://${TP_TARBALL}")
  FetchContent_MakeAvailable(tensorpack)
else()
  find_package(tensorpack ${WANT_VERSION} CONFIG REQUIRED)
endif()
add_library(tp_impl OBJECT impl.c)
target_link_libraries(tp_impl PRIVATE tensorpack::tensorpack)
add_executable(use_c main.c $<TARGET_OBJECTS:tp_impl>)
target_link_libraries(use_c PRIVATE tensorpack::tensorpack)
add_executable(use_cxx main.cpp $<TARGET_OBJECTS:tp_impl>)
target_link_libraries(use_cxx PRIVATE tensorpack::tensorpack)
if(WANT_XNN)
  add_executable(use_xnn xnn.c $<TARGET_OBJECTS:tp_impl>)
  target_link_libraries(use_xnn PRIVATE tensorpack::xnnpack_runtime)
endif()
if(WANT_VK)
  add_executable(use_vk vk.c $<TARGET_OBJECTS:tp_impl>)
  target_link_libraries(use_vk PRIVATE tensorpack::vulkan_runtime)
endif()
SRC

want_xnn=OFF; [ "$HAVE_XNNPACK" = 1 ] && want_xnn=ON
want_vk=OFF; [ "$HAVE_VULKAN" = 1 ] && pkg-config --exists vulkan && want_vk=ON
tar czf "$tmp/tensorpack.tar.gz" -C "$root" CMakeLists.txt cmake LICENSE tensorpack.h \
  tensorpack_xnnpack.h tensorpack_vulkan.h

# the installs: cmake --install and make install, each into a fresh prefix
if cmake -S "$root" -B "$tmp/tp-build" -DCMAKE_INSTALL_PREFIX="$tmp/prefix-cmake" >"$tmp/log" 2>&1 &&
   cmake --install "$tmp/tp-build" >>"$tmp/log" 2>&1 &&
   [ -f "$tmp/prefix-cmake/include/tensorpack.h" ] &&
   [ -f "$tmp/prefix-cmake/share/cmake/tensorpack/tensorpackConfig.cmake" ] &&
   grep -q "^prefix=$tmp/prefix-cmake\$" "$tmp/prefix-cmake/share/pkgconfig/tensorpack.pc"; then
  ok "cmake --install"
else
  bad "cmake --install"
fi
if make -s -C "$root" install PREFIX="$tmp/prefix-make" >"$tmp/log" 2>&1 &&
   [ -f "$tmp/prefix-make/include/tensorpack_vulkan.h" ] &&
   cmp -s "$tmp/prefix-make/share/cmake/tensorpack/tensorpackConfig.cmake" \
          "$tmp/prefix-cmake/share/cmake/tensorpack/tensorpackConfig.cmake"; then
  ok "make install"
else
  bad "make install"
fi

# mode, name, extra cmake arguments...
consumer() {
  mode=$1; name=$2; shift 2
  b="$tmp/build-$name"
  if cmake -S "$tmp/src" -B "$b" -DMODE="$mode" -DTP_ROOT="$root" -DTP_TARBALL="$tmp/tensorpack.tar.gz" \
       -DWANT_XNN=$want_xnn -DWANT_VK=$want_vk -DWANT_VERSION="$version" "$@" >"$tmp/log" 2>&1 &&
     cmake --build "$b" >>"$tmp/log" 2>&1; then
    for exe in use_c use_cxx; do
      if "$b/$exe" >"$tmp/out" 2>&1 && grep -q "consumer ok" "$tmp/out"; then ok "$name $exe"; else bad "$name $exe"; fi
    done
    if [ "$want_xnn" = ON ]; then
      if "$b/use_xnn" >"$tmp/out" 2>&1 && grep -q "runtime consumer ok" "$tmp/out"; then ok "$name use_xnn"; else bad "$name use_xnn"; fi
    fi
    if [ "$want_vk" = ON ]; then
      if "$b/use_vk" >"$tmp/out" 2>&1 && grep -q "runtime consumer ok" "$tmp/out"; then ok "$name use_vk"; else bad "$name use_vk"; fi
    fi
  else
    bad "$name (configure/build)"
  fi
}
consumer subdir subdir
consumer fetch fetch
consumer find find-cmake-install -DCMAKE_PREFIX_PATH="$tmp/prefix-cmake"
consumer find find-make-install -DCMAKE_PREFIX_PATH="$tmp/prefix-make"
# a request for the next minor version must be refused (0.x minor versions break)
if cmake -S "$tmp/src" -B "$tmp/build-next" -DMODE=find -DWANT_XNN=OFF -DWANT_VERSION="$next_minor" \
     -DCMAKE_PREFIX_PATH="$tmp/prefix-cmake" >"$tmp/log" 2>&1; then
  bad "find_package(tensorpack $next_minor) refused"
elif grep -q "$version" "$tmp/log"; then
  ok "find_package(tensorpack $next_minor) refused"
else
  bad "find_package(tensorpack $next_minor) refused (naming $version)"
fi

# pkg-config after make install, as C and as C++
export PKG_CONFIG_PATH="$tmp/prefix-make/share/pkgconfig"
cflags=$(pkg-config --cflags tensorpack | sed "s/ *$//"); libs=$(pkg-config --libs tensorpack)
if [ "$cflags" = "-I$tmp/prefix-make/include" ]; then ok "pkg-config --cflags"; else echo "  cflags: $cflags"; bad "pkg-config --cflags"; fi
cd "$tmp/src" || exit 1   # the headers are not here: only the prefix has them
W="-Wall -Wextra -pedantic -Werror"
if cc -std=c99 $W $cflags -c impl.c -o "$tmp/impl.o" >"$tmp/log" 2>&1; then ok "pkg-config implementation"; else bad "pkg-config implementation"; fi
if cc -std=c99 $W $cflags main.c "$tmp/impl.o" -o "$tmp/pkg_c" $libs >"$tmp/log" 2>&1 &&
   "$tmp/pkg_c" | grep -q "consumer ok"; then ok "pkg-config C"; else bad "pkg-config C"; fi
if c++ $W $cflags main.cpp "$tmp/impl.o" -o "$tmp/pkg_cxx" $libs >"$tmp/log" 2>&1 &&
   "$tmp/pkg_cxx" | grep -q "consumer ok"; then ok "pkg-config C++"; else bad "pkg-config C++"; fi
for pc in tensorpack tensorpack-xnnpack-runtime tensorpack-vulkan-runtime; do
  got=$(pkg-config --modversion $pc 2>&1)
  if [ "$got" = "$version" ]; then ok "pkg-config --modversion $pc"; else echo "  got: $got"; bad "pkg-config --modversion $pc"; fi
done
if [ "$HAVE_XNNPACK" = 1 ]; then
  flags=$(pkg-config --cflags --libs tensorpack-xnnpack-runtime)
  case " $flags " in *" -DTENSORPACK_XNNPACK_RUNTIME "*" -lXNNPACK "*) ok "tensorpack-xnnpack-runtime flags";;
    *) echo "  got: $flags"; bad "tensorpack-xnnpack-runtime flags";; esac
  if cc -std=c99 $W xnn.c "$tmp/impl.o" -o "$tmp/pkg_xnn" $flags >"$tmp/log" 2>&1 &&
     "$tmp/pkg_xnn" | grep -q "runtime consumer ok"; then ok "pkg-config xnnpack runtime"; else bad "pkg-config xnnpack runtime"; fi
fi
if [ "$HAVE_VULKAN" = 1 ] && pkg-config --exists vulkan; then
  flags=$(pkg-config --cflags --libs tensorpack-vulkan-runtime)
  case " $flags " in *" -DTENSORPACK_VULKAN_RUNTIME "*" -lvulkan "*) ok "tensorpack-vulkan-runtime flags";;
    *) echo "  got: $flags"; bad "tensorpack-vulkan-runtime flags";; esac
  if cc -std=c99 $W vk.c "$tmp/impl.o" -o "$tmp/pkg_vk" $flags >"$tmp/log" 2>&1 &&
     "$tmp/pkg_vk" | grep -q "runtime consumer ok"; then ok "pkg-config vulkan runtime"; else bad "pkg-config vulkan runtime"; fi
fi
echo "packaging: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
