#!/bin/sh
# Every ```c block of README.md compiles and links as C99 and as C++11, warnings as errors.
# A block's preprocessor lines go to the top of its file (before the headers), the rest into
# main(); tests/readme_context.h declares what the snippets take from the reader's program.
# A block that needs a runtime part (TENSORPACK_XNNPACK_RUNTIME / _VULKAN_RUNTIME) links its
# library and is skipped, named, when that library is absent. Prints "readme: N passed, N failed".
cd "${TP_ROOT:-.}" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
awk -v dir="$tmp" '
  /^```c[ \t]*$/ { n++; inblk = 1; f = sprintf("%s/block%d", dir, n); printf "" > f; next }
  /^```/ { if (inblk) close(f); inblk = 0; next }
  inblk { print > f }
' README.md
have() { printf "#include <$1>\nint main(void){return 0;}\n" > "$tmp/p.c"; cc "$tmp/p.c" -o "$tmp/p" $2 2>/dev/null; }
for b in "$tmp"/block*; do
  [ -f "$b" ] || continue
  name="README $(basename "$b") (line $(grep -n '^```c' README.md | sed -n "$(basename "$b" | tr -dc 0-9)p" | cut -d: -f1))"
  libs="-lm"
  if grep -q TENSORPACK_XNNPACK_RUNTIME "$b"; then
    if have xnnpack.h "-lXNNPACK"; then libs="$libs -lXNNPACK"; else echo "skip $name: no XNNPACK"; continue; fi
  fi
  if grep -q TENSORPACK_VULKAN_RUNTIME "$b"; then
    if have vulkan/vulkan.h "-lvulkan"; then libs="$libs -lvulkan"; else echo "skip $name: no Vulkan"; continue; fi
  fi
  {
    grep -E '^[ \t]*#' "$b"
    printf '#define TENSORPACK_IMPLEMENTATION\n#define TENSORPACK_XNNPACK_IMPLEMENTATION\n'
    printf '#define TENSORPACK_VULKAN_IMPLEMENTATION\n#include <math.h>\n#include <stdio.h>\n'
    printf '#include "tensorpack.h"\n#include "tensorpack_xnnpack.h"\n#include "tensorpack_vulkan.h"\n'
    printf '#include "tests/readme_context.h"\nint main(void) {\n'
    grep -vE '^[ \t]*#' "$b"
    printf '  return 0;\n}\n'
  } > "$b.c"
  for lang in c99 c++11; do
    if [ $lang = c99 ]; then cmd="cc -std=c99"; else cmd="c++ -x c++ -std=c++11"; fi
    if $cmd -Wall -Wextra -pedantic -Werror -I. "$b.c" -o "$b.out" $libs >"$tmp/log" 2>&1; then
      echo "ok   $name as $lang"; passed=$((passed + 1))
    else
      echo "FAIL $name as $lang"; head -n 20 "$tmp/log"; failed=$((failed + 1))
    fi
  done
done
echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
