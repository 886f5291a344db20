#!/bin/sh
# One version source: TP_VERSION_MAJOR / MINOR / PATCH in tensorpack.h. This suite fails when
# anything that states a version says another one: the three header banners, the core's own
# prose (VERSION AND ABI, tp_version_string's comment, the newest REVISION HISTORY entry), the
# backends' #error guard, the files `make install` makes (the three .pc files and
# tensorpackConfigVersion.cmake) and, with cmake installed, the project version CMake reads and
# the files `cmake --install` makes; find_package(tensorpack <header version>) must accept it
# and reject the next minor version. Then it proves it can fail: on a copy of the tree with one
# banner changed, the same checks must report the difference.
# Run from anywhere; TP_ROOT is the source tree. Prints "version: N passed, N failed".
cd "${TP_ROOT:-.}" || exit 1
root=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
have_cmake=0; command -v cmake >/dev/null 2>&1 && have_cmake=1

# version DIR: the header's TP_VERSION_MAJOR.MINOR.PATCH in the tree at DIR
version() {
  part() { sed -n "s/^#define TP_VERSION_$1 *\([0-9][0-9]*\) *\$/\1/p" "$2/tensorpack.h"; }
  echo "$(part MAJOR "$1").$(part MINOR "$1").$(part PATCH "$1")"
}

# check DIR [nocmake]: prints one line per difference found in the tree at DIR, nothing when all agree
check() {
  d=$1
  v=$(version "$d")
  maj=${v%%.*}; min=${v#*.}; min=${min%%.*}
  case "$v" in *[!0-9.]*|.*|*..*|*.) echo "tensorpack.h: no TP_VERSION_* lines ($v)"; return;; esac
  for h in tensorpack.h tensorpack_xnnpack.h tensorpack_vulkan.h; do
    head -n 1 "$d/$h" | grep -q "^/\* $h - v$v - " || echo "$h: banner says '$(head -n 1 "$d/$h" | cut -c1-60)', not v$v"
  done
  grep -q "(this is $v)" "$d/tensorpack.h" || echo "tensorpack.h: VERSION AND ABI does not say (this is $v)"
  grep -q "^/\* \"$v\": TP_VERSION_MAJOR" "$d/tensorpack.h" || echo "tensorpack.h: tp_version_string's comment is not \"$v\""
  rh=$(sed -n '/^\/\* REVISION HISTORY/{n;p;q}' "$d/tensorpack.h" | awk '{print $1}')
  [ "$rh" = "$v" ] || echo "tensorpack.h: newest REVISION HISTORY entry is '$rh', not $v"
  for h in tensorpack_xnnpack.h tensorpack_vulkan.h; do
    grep -q "TP_VERSION_MAJOR != $maj || TP_VERSION_MINOR != $min\$" "$d/$h" &&
    grep -q "needs tensorpack.h $maj\.$min\.x" "$d/$h" || echo "$h: its #error guard does not ask for $maj.$min.x"
  done
  rm -rf "$tmp/pm"
  if make -s -C "$d" install PREFIX="$tmp/pm" >"$tmp/log" 2>&1; then
    for pc in tensorpack tensorpack-xnnpack-runtime tensorpack-vulkan-runtime; do
      got=$(sed -n 's/^Version: *//p' "$tmp/pm/share/pkgconfig/$pc.pc" 2>/dev/null)
      [ "$got" = "$v" ] || echo "make install: $pc.pc says Version '$got', not $v"
    done
    got=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$tmp/pm/share/cmake/tensorpack/tensorpackConfigVersion.cmake")
    [ "$got" = "$v" ] || echo "make install: tensorpackConfigVersion.cmake says '$got', not $v"
    grep -q "Requires: tensorpack = $v" "$tmp/pm/share/pkgconfig/tensorpack-xnnpack-runtime.pc" ||
      echo "make install: tensorpack-xnnpack-runtime.pc does not require tensorpack = $v"
  else
    echo "make install failed:"; tail -n 5 "$tmp/log"
  fi
  if [ "$have_cmake" = 1 ] && [ "${2:-}" != nocmake ]; then
    rm -rf "$tmp/cb" "$tmp/pc"
    if cmake -S "$d" -B "$tmp/cb" -DCMAKE_INSTALL_PREFIX="$tmp/pc" >"$tmp/log" 2>&1 &&
       cmake --install "$tmp/cb" >>"$tmp/log" 2>&1; then
      got=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$tmp/cb/CMakeCache.txt")
      [ "$got" = "$v" ] || echo "cmake: project version '$got', not $v"
      for f in share/pkgconfig/tensorpack.pc share/pkgconfig/tensorpack-xnnpack-runtime.pc \
               share/pkgconfig/tensorpack-vulkan-runtime.pc share/cmake/tensorpack/tensorpackConfigVersion.cmake; do
        sed "s|$tmp/pc|PREFIX|" "$tmp/pc/$f" > "$tmp/a"; sed "s|$tmp/pm|PREFIX|" "$tmp/pm/$f" > "$tmp/b"
        cmp -s "$tmp/a" "$tmp/b" || echo "cmake --install and make install make different $f"
      done
      cf="$tmp/pc/share/cmake/tensorpack/tensorpackConfigVersion.cmake"
      printf 'include("%s")\nmessage("${PACKAGE_VERSION_COMPATIBLE}/${PACKAGE_VERSION_EXACT}")\n' "$cf" > "$tmp/q.cmake"
      r=$(cmake -DPACKAGE_FIND_VERSION="$v" -DPACKAGE_FIND_VERSION_MAJOR="$maj" \
            -DPACKAGE_FIND_VERSION_MINOR="$min" -P "$tmp/q.cmake" 2>&1)
      [ "$r" = "TRUE/TRUE" ] || echo "tensorpackConfigVersion.cmake: a request for $v gives '$r', not TRUE/TRUE"
      n=$((min + 1))
      r=$(cmake -DPACKAGE_FIND_VERSION="$maj.$n" -DPACKAGE_FIND_VERSION_MAJOR="$maj" \
            -DPACKAGE_FIND_VERSION_MINOR="$n" -P "$tmp/q.cmake" 2>&1)
      [ "$r" = "FALSE/" ] || echo "tensorpackConfigVersion.cmake: a request for $maj.$n gives '$r', not FALSE"
    else
      echo "cmake configure/install failed:"; tail -n 5 "$tmp/log"
    fi
  fi
}

v=$(version .)
check "$root" > "$tmp/diffs"
if [ -s "$tmp/diffs" ]; then sed 's/^/  /' "$tmp/diffs"; bad "every version statement says $v"; else ok "every version statement says $v"; fi

# the check must be able to fail: a copy of the tree, one statement changed at a time
mkdir -p "$tmp/tree"
cp -R CMakeLists.txt cmake Makefile mk tensorpack.h tensorpack_xnnpack.h tensorpack_vulkan.h "$tmp/tree/"
for h in tensorpack_xnnpack.h tensorpack_vulkan.h; do
  cp "$h" "$tmp/tree/$h.orig"
  sed '1s/ - v[0-9.]* - / - v9.9.9 - /' "$h" > "$tmp/tree/$h"
  out=$(check "$tmp/tree" nocmake)
  case "$out" in *"$h: banner says"*) ok "a changed $h banner is caught";; *) echo "  got: $out"; bad "a changed $h banner is caught";; esac
  mv "$tmp/tree/$h.orig" "$tmp/tree/$h"
done
sed 's/^Version: .*/Version: 9.9.9/' cmake/tensorpack-vulkan-runtime.pc.in > "$tmp/tree/cmake/tensorpack-vulkan-runtime.pc.in"
out=$(check "$tmp/tree" nocmake)
case "$out" in *"tensorpack-vulkan-runtime.pc says Version '9.9.9'"*) ok "a hard-coded .pc version is caught";; *) echo "  got: $out"; bad "a hard-coded .pc version is caught";; esac
cp cmake/tensorpack-vulkan-runtime.pc.in "$tmp/tree/cmake/"
# a version bump in the header alone: banners and prose now disagree, the generated files follow
sed 's/^#define TP_VERSION_PATCH .*/#define TP_VERSION_PATCH 7/' tensorpack.h > "$tmp/tree/tensorpack.h"
out=$(check "$tmp/tree")
case "$out" in *"banner says"*) case "$out" in *".pc says"*|*"ConfigVersion.cmake says"*) bad "a header-only bump is caught in the banners and nowhere else";;
  *) ok "a header-only bump is caught in the banners and nowhere else";; esac;;
  *) echo "  got: $out"; bad "a header-only bump is caught in the banners and nowhere else";; esac
echo "version: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
