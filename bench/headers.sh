# bench/headers.sh - sourced by bench/ab.sh, bench/ab_calls.sh and bench/callgrind.sh (they set
# ROOT). Sourcing it makes the script's scratch directory $TMP, removed when the script ends.
# tp_bench_headers WHO REV: REV's tensorpack.h (REV a git revision or a path to a header) into
# $TMP/old, the working tree's (or $NEW_HEADER) into $TMP/new; a REV without one stops the
# script with a sentence that starts with WHO.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tp_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
tp_bench_headers() {
  mkdir -p "$TMP/old" "$TMP/new"
  if [ -f "$2" ]; then
    cp "$2" "$TMP/old/tensorpack.h"
  elif ! git -C "$ROOT" show "$2:tensorpack.h" > "$TMP/old/tensorpack.h" 2>"$TMP/err"; then
    echo "$1: no tensorpack.h at revision '$2': $(cat "$TMP/err")" >&2
    exit 2
  fi
  cp "${NEW_HEADER:-$ROOT/tensorpack.h}" "$TMP/new/tensorpack.h"
}
