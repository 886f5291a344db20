#!/bin/sh
# Every ```c block of README.md compiles and links as C99 and as C++11, warnings as errors.
# A block's preprocessor lines go to the top of its file (before the headers), the rest into
# main(); tests/readme_context.h declares what the snippets take from the reader's program.
# The implementation is the reader's one other file: compiled once here (C99, one object per
# part: core, XNNPACK, Vulkan, and the runtime parts when their libraries are installed) and
# linked by every block, whose own *_IMPLEMENTATION lines are left out. A block that needs a
# runtime part (TENSORPACK_XNNPACK_RUNTIME / _VULKAN_RUNTIME) links its part and its library and
# is skipped, named, when that library is absent. Prints "readme: N passed, N failed".
cd "${TP_ROOT:-.}" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
awk -v dir="$tmp" '
  /^```c[ \t]*$/ { n++; inblk = 1; f = sprintf("%s/block%d", dir, n); printf "" > f; next }
  /^```/ { if (inblk) close(f); inblk = 0; next }
  inblk { print > f }
' README.md
have() { printf "#include <$1>\nint main(void){return 0;}\n" > "$tmp/p.c"; cc "$tmp/p.c" -o "$tmp/p" $2 2>/dev/null; }
F="-std=c99 -Wall -Wextra -pedantic -Werror -I. -Itests"
impl() { # part, object name, extra flags: one object of the implementation (or a FAIL)
  if cc $F $3 -c "tests/impl/$1.c" -o "$tmp/$2.o" >"$tmp/log" 2>&1; then return 0; fi
  echo "FAIL the implementation (tests/impl/$1.c $3)"; head -n 20 "$tmp/log"; failed=$((failed + 1))
}
impl core core; impl xnnpack xnnpack; impl vulkan vulkan
have_xnn=; have_vk=
if have xnnpack.h "-lXNNPACK"; then have_xnn=1; impl xnnpack_rt xnnpack_rt; fi
if have vulkan/vulkan.h "-lvulkan"; then have_vk=1; impl vulkan_rt vulkan_rt; fi
for b in "$tmp"/block*; do
  [ -f "$b" ] || continue
  name="README $(basename "$b") (line $(grep -n '^```c' README.md | sed -n "$(basename "$b" | tr -dc 0-9)p" | cut -d: -f1))"
  libs="-lm"; objs="$tmp/core.o"; xo="$tmp/xnnpack.o"; vo="$tmp/vulkan.o"
  if grep -q TENSORPACK_XNNPACK_RUNTIME "$b"; then
    if [ -n "$have_xnn" ]; then libs="$libs -lXNNPACK"; xo="$tmp/xnnpack_rt.o"; else echo "skip $name: no XNNPACK"; continue; fi
  fi
  if grep -q TENSORPACK_VULKAN_RUNTIME "$b"; then
    if [ -n "$have_vk" ]; then libs="$libs -lvulkan"; vo="$tmp/vulkan_rt.o"; else echo "skip $name: no Vulkan"; continue; fi
  fi
  objs="$objs $xo $vo"
  {
    grep -E '^[ \t]*#' "$b" | grep -vE '^[ \t]*#[ \t]*define[ \t]+TENSORPACK_[A-Z]*_?IMPLEMENTATION[ \t]*$'
    printf '#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n'
    printf '#include "tensorpack.h"\n#include "tensorpack_xnnpack.h"\n#include "tensorpack_vulkan.h"\n'
    printf '#include "tests/readme_context.h"\nint main(void) {\n'
    grep -vE '^[ \t]*#' "$b"
    printf '  return 0;\n}\n'
  } > "$b.c"
  for lang in c99 c++11; do
    if [ $lang = c99 ]; then cmd="cc -std=c99"; else cmd="c++ -x c++ -std=c++11"; fi
    if $cmd -Wall -Wextra -pedantic -Werror -I. "$b.c" -x none $objs -o "$b.out" $libs >"$tmp/log" 2>&1; then
      echo "ok   $name as $lang"; passed=$((passed + 1))
    else
      echo "FAIL $name as $lang"; head -n 20 "$tmp/log"; failed=$((failed + 1))
    fi
  done
done
echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
