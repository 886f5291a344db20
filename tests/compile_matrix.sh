#!/bin/sh
# The headers compile cleanly as C99 and as C++ with gcc and clang (-Wall -Wextra -pedantic
# -Werror -Wconversion), also with TENSORPACK_STATIC, TP_NO_STDIO and a small TP_MAX_DIMS, and
# the program runs. One case per
# compiler x language x option set. Run from the repository root.
cd "${TP_ROOT:-.}" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
W="-Wall -Wextra -pedantic -Werror -Wshadow -Wconversion -Wsign-conversion"
# With dlpack.h installed, every case also compiles tp_view_from_dlpack.
printf '#include <dlpack/dlpack.h>\nint main(void){return 0;}\n' > "$tmp/d.c"
if cc "$tmp/d.c" -o "$tmp/d" 2>/dev/null; then W="$W -DTP_WITH_DLPACK"; fi
try() { # name, libraries, compiler, flags...
  name=$1; libs=$2; shift 2
  if "$@" -I. tests/compile_all.c -o "$tmp/a.out" $libs -lm >"$tmp/log" 2>&1 && "$tmp/a.out"; then
    echo "ok   $name"; passed=$((passed + 1))
  else
    echo "FAIL $name"; head -n 30 "$tmp/log"; failed=$((failed + 1))
  fi
}
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  try "$cc c99" "" $cc -std=c99 $W -O2
  try "$cc c11 static" "" $cc -std=c11 $W -O2 -DTENSORPACK_STATIC
  try "$cc c99 no-stdio" "" $cc -std=c99 $W -O2 -DTP_NO_STDIO
  try "$cc c99 dims 4" "" $cc -std=c99 $W -O2 -DTP_MAX_DIMS=4
done
# With XNNPACK and Vulkan installed: the optional runtime parts too.
rt=""
printf '#include <xnnpack.h>\n#include <vulkan/vulkan.h>\nint main(void){return 0;}\n' > "$tmp/p.c"
if cc "$tmp/p.c" -o "$tmp/p" -lXNNPACK -lvulkan 2>/dev/null; then rt=1; fi
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || continue
  try "$cxx c++11" "" $cxx -x c++ -std=c++11 $W -O2
  try "$cxx c++17" "" $cxx -x c++ -std=c++17 $W -O2
  try "$cxx c++17 no-stdio static" "" $cxx -x c++ -std=c++17 $W -O2 -DTP_NO_STDIO -DTENSORPACK_STATIC
  [ -n "$rt" ] && try "$cxx c++17 runtimes" "-lXNNPACK -lvulkan" $cxx -x c++ -std=c++17 $W -O2 -DTP_WITH_RUNTIMES
done
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  [ -n "$rt" ] && try "$cc c99 runtimes" "-lXNNPACK -lvulkan" $cc -std=c99 $W -O2 -DTP_WITH_RUNTIMES
done
echo "compile_matrix: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
