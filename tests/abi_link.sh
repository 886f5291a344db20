#!/bin/sh
# The link-time ABI check (tensorpack.h, VERSION AND ABI): two files built with different
# TP_MAX_DIMS or TP_NO_STDIO do not link (the undefined symbol names the options), the same
# options link and run, also across C and C++. Run from the repository root.
cd "${TP_ROOT:-.}" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
W="-Wall -Wextra -pedantic -Werror"
cat > "$tmp/impl.c" <<'X'
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#ifdef __cplusplus
extern "C"
#endif
int use(void);
int main(void) { return use(); }
X
cat > "$tmp/user.c" <<'X'
#include <string.h>
#include "tensorpack.h"
#ifdef __cplusplus
extern "C"
#endif
int use(void);
int use(void) {
  tp_tensor t;
  int64_t n = 4;
  float f[4];
  tp_storage s;
  s.data = f;
  s.nbytes = sizeof f;
  if (tp_view(s, TP_F32, 1, &n, NULL, 0, &t, NULL) != TP_OK || t.ndim != 1) return 1;
  return strcmp(tp_version_string(), "0.3.0") == 0 && TP_VERSION_MAJOR == 0 &&
         TP_VERSION_MINOR == 3 && TP_VERSION_PATCH == 0 ? 0 : 2;
}
X
# name, expect (link|fail:<text in the linker's message>), impl compiler+flags, user compiler+flags
case_() {
  name=$1; expect=$2; ic=$3; uc=$4
  # the implementation once per compiler and options (the cases share three of them)
  io="$tmp/impl-$(printf '%s' "$ic" | tr -c 'A-Za-z0-9' _).o"
  if { [ ! -f "$io" ] && ! $ic $W -I. -c "$tmp/impl.c" -o "$io" >"$tmp/log" 2>&1; } ||
     ! $uc $W -I. -c "$tmp/user.c" -o "$tmp/user.o" >>"$tmp/log" 2>&1; then
    echo "FAIL $name (does not compile)"; head -n 20 "$tmp/log"; failed=$((failed + 1)); return
  fi
  if g++ "$io" "$tmp/user.o" -o "$tmp/a.out" >"$tmp/log" 2>&1; then linked=1; else linked=0; fi
  case $expect in
    link)
      if [ $linked = 1 ] && "$tmp/a.out"; then echo "ok   $name"; passed=$((passed + 1))
      else echo "FAIL $name (should link and run)"; head -n 10 "$tmp/log"; failed=$((failed + 1)); fi ;;
    fail:*)
      want=${expect#fail:}
      if [ $linked = 0 ] && grep -q "undefined reference to \`$want'" "$tmp/log"; then
        echo "ok   $name (link error names $want)"; passed=$((passed + 1))
      else echo "FAIL $name (should not link, naming $want)"; head -n 10 "$tmp/log"; failed=$((failed + 1)); fi ;;
  esac
}
case_ "same options"                link                           "gcc -std=c99" "gcc -std=c99"
case_ "both TP_MAX_DIMS=8"          link                           "gcc -std=c99 -DTP_MAX_DIMS=8" "gcc -std=c99 -DTP_MAX_DIMS=8"
case_ "C++ implementation, C user"  link                           "g++ -x c++" "gcc -std=c99"
case_ "impl TP_MAX_DIMS=8, user 16" fail:tp__abi_v0_3_d16_stdio    "gcc -std=c99 -DTP_MAX_DIMS=8" "gcc -std=c99"
case_ "impl 16, user TP_MAX_DIMS=4" fail:tp__abi_v0_3_d4_stdio     "gcc -std=c99" "clang -std=c99 -O2 -DTP_MAX_DIMS=4"
case_ "user TP_NO_STDIO only"       fail:tp__abi_v0_3_d16_nostdio  "gcc -std=c99" "gcc -std=c99 -DTP_NO_STDIO"
case_ "both TP_NO_STDIO"            link                           "gcc -std=c99 -DTP_NO_STDIO" "g++ -x c++ -DTP_NO_STDIO"
# The backends check the core's version at compile time: a tensorpack.h of 0.1 beside a copy
# of each backend header is refused with a sentence.
mkdir -p "$tmp/old"
printf '#define TP_VERSION_MAJOR 0\n#define TP_VERSION_MINOR 1\n' > "$tmp/old/tensorpack.h"
for h in tensorpack_xnnpack.h tensorpack_vulkan.h; do
  cp "$h" "$tmp/old/"
  printf '#include "%s"\nint main(void) { return 0; }\n' "$h" > "$tmp/old/m.c"
  if gcc -std=c99 -I"$tmp/old" -c "$tmp/old/m.c" -o "$tmp/old/m.o" >"$tmp/log" 2>&1; then
    echo "FAIL $h compiled against a 0.1 core"; failed=$((failed + 1))
  elif grep -q "$h needs tensorpack.h 0.3.x" "$tmp/log"; then
    echo "ok   $h refuses a 0.1 core"; passed=$((passed + 1))
  else
    echo "FAIL $h: no version sentence"; head -n 5 "$tmp/log"; failed=$((failed + 1))
  fi
done
echo "abi_link: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
