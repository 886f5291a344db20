#!/bin/sh
# The headers compile cleanly as C99 and as C++ with gcc and clang (-Wall -Wextra -pedantic
# -Werror -Wconversion), also with TENSORPACK_STATIC, TP_NO_STDIO, a small TP_MAX_DIMS,
# TP_NO_AVX512 and TP_NO_AVX2. One case per compiler x language x option set. Each option set is
# checked with -fsyntax-only (the front end gives these warnings); once per compiler the fullest
# set (with the runtime parts when XNNPACK and Vulkan are installed) is compiled at -O2 (the
# optimizer's warnings too), linked and run. The examples, tools/tpdump.c and fuzz/make_seeds.c,
# which define the implementation in their own file (the test build links a shared object
# instead), compile that way here.
# TP_JOBS=n runs n cases at a time (default 1: make test already runs suites in parallel).
# Run from the repository root.
cd "${TP_ROOT:-.}" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
W="-Wall -Wextra -pedantic -Werror -Wshadow -Wconversion -Wsign-conversion"
# With dlpack.h installed, every case also compiles tp_view_from_dlpack.
printf '#include <dlpack/dlpack.h>\nint main(void){return 0;}\n' > "$tmp/d.c"
if cc "$tmp/d.c" -o "$tmp/d" 2>/dev/null; then W="$W -DTP_WITH_DLPACK"; fi
# With XNNPACK and Vulkan installed: the optional runtime parts too.
rt=""
printf '#include <xnnpack.h>\n#include <vulkan/vulkan.h>\nint main(void){return 0;}\n' > "$tmp/p.c"
if cc "$tmp/p.c" -o "$tmp/p" -lXNNPACK -lvulkan 2>/dev/null; then rt=1; fi

n=0
# case NAME MODE(syntax|link) FILE LIBS COMPILER FLAGS...: written as a job, run below
case_() {
  n=$((n + 1)); name=$1; mode=$2; file=$3; libs=$4; shift 4
  d="$tmp/case$n"; mkdir -p "$d"; echo "$name" > "$d/name"
  if [ "$mode" = syntax ]; then
    printf '%s -I. -fsyntax-only %s\n' "$*" "$file" > "$d/cmd"
  else
    printf '%s -I. %s -o %s/a.out %s -lm && %s/a.out\n' "$*" "$file" "$d" "$libs" "$d" > "$d/cmd"
  fi
}
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  if [ -n "$rt" ]; then
    case_ "$cc c99 runtimes (-O2, linked, run)" link tests/compile_all.c "-lXNNPACK -lvulkan" $cc -std=c99 $W -O2 -DTP_WITH_RUNTIMES
    case_ "$cc c99" syntax tests/compile_all.c "" $cc -std=c99 $W
  else
    case_ "$cc c99 (-O2, linked, run)" link tests/compile_all.c "" $cc -std=c99 $W -O2
  fi
  case_ "$cc c11 static" syntax tests/compile_all.c "" $cc -std=c11 $W -DTENSORPACK_STATIC
  case_ "$cc c99 no-stdio" syntax tests/compile_all.c "" $cc -std=c99 $W -DTP_NO_STDIO
  case_ "$cc c99 dims 4" syntax tests/compile_all.c "" $cc -std=c99 $W -DTP_MAX_DIMS=4
  case_ "$cc c99 no-avx512" syntax tests/compile_all.c "" $cc -std=c99 $W -DTP_NO_AVX512
  case_ "$cc c99 no-avx2" syntax tests/compile_all.c "" $cc -std=c99 $W -DTP_NO_AVX2
done
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || continue
  if [ -n "$rt" ]; then
    case_ "$cxx c++17 runtimes (-O2, linked, run)" link tests/compile_all.c "-lXNNPACK -lvulkan" $cxx -x c++ -std=c++17 $W -O2 -DTP_WITH_RUNTIMES
    case_ "$cxx c++17" syntax tests/compile_all.c "" $cxx -x c++ -std=c++17 $W
  else
    case_ "$cxx c++17 (-O2, linked, run)" link tests/compile_all.c "" $cxx -x c++ -std=c++17 $W -O2
  fi
  case_ "$cxx c++11" syntax tests/compile_all.c "" $cxx -x c++ -std=c++11 $W
  case_ "$cxx c++17 no-stdio static" syntax tests/compile_all.c "" $cxx -x c++ -std=c++17 $W -DTP_NO_STDIO -DTENSORPACK_STATIC
done
# whole programs with their own implementation (the test build's flags: -std=c99 -Wall -Wextra
# -pedantic -Werror); example 08 and the tools are POSIX programs
for f in examples/[0-9]*.c tools/tpdump.c fuzz/make_seeds.c; do
  [ -f "$f" ] || continue
  case_ "gcc c99 $f (its own implementation)" syntax "$f" "" gcc -std=c99 -Wall -Wextra -pedantic -Werror -Itests
done

# run the jobs, TP_JOBS at a time, then report in order
jobs=${TP_JOBS:-1}; i=1
while [ "$i" -le "$n" ]; do
  k=0
  while [ "$k" -lt "$jobs" ] && [ "$i" -le "$n" ]; do
    d="$tmp/case$i"
    ( sh "$d/cmd" >"$d/log" 2>&1; echo $? > "$d/rc" ) &
    i=$((i + 1)); k=$((k + 1))
  done
  wait
done
passed=0; failed=0; i=1
while [ "$i" -le "$n" ]; do
  d="$tmp/case$i"; name=$(cat "$d/name")
  if [ "$(cat "$d/rc")" = 0 ]; then
    echo "ok   $name"; passed=$((passed + 1))
  else
    echo "FAIL $name"; cat "$d/cmd"; head -n 30 "$d/log"; failed=$((failed + 1))
  fi
  i=$((i + 1))
done
echo "compile_matrix: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
