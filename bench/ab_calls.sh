#!/bin/sh
# bench/ab_calls.sh REV [--cold] [--rounds N] [--many N] [--dst-off B] DTYPE OFFSET SIZES STRIDES
# - the A/B of one view's tp_compact_into inside one process (bench/ab_calls.c): the implementation built twice as a
# shared object, from the tensorpack.h of REV ("old") and the working tree's ("new"), called
# in turn. For a loaded machine: on 2026-12-06 at load 11-12 separate processes of one binary
# moved by +-15%, two loaded copies of one build in one process by 0.99-1.07x (fastest calls
# of 40-100 rounds; bench/README.md).
#
#   sh bench/ab_calls.sh d7b1b8c bf16 0 2048,2048 1,2048          (a transpose, in cache)
#   sh bench/ab_calls.sh HEAD --cold f32 100 4096,512 4096,1       (columns, out of cache)
#
# REV is a git revision or a path to a tensorpack.h (REV = the working tree's own header: an
# A/A, the noise). OLD_CFLAGS / NEW_CFLAGS add -D switches to one side, as in ab.sh; a choice
# removed from >>copy is built on the old side from the header that still has it, e.g.
#   OLD_CFLAGS=-DTP__NT_ROWS=1 sh bench/ab_calls.sh 83dcf9c f32 0 4096,1024 2048,1
# (bench/README.md, "The switches removed").
set -eu
REV=${1:-}
if [ -z "$REV" ] || [ $# -lt 5 ]; then
  echo "usage: sh bench/ab_calls.sh REV [--cold] [--rounds N] [--many N] [--dst-off B] DTYPE OFFSET SIZES STRIDES" >&2
  exit 2
fi
shift
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/headers.sh"
tp_bench_headers bench/ab_calls.sh "$REV"
for side in old new; do
  if [ "$side" = old ]; then x=${OLD_CFLAGS:-}; else x=${NEW_CFLAGS:-}; fi
  printf '#define TENSORPACK_IMPLEMENTATION\n#include "tensorpack.h"\n' > "$TMP/$side/impl.c"
  # -fno-semantic-interposition: calls inside the object stay direct (and inlinable), as in a
  # program that includes the implementation
  # shellcheck disable=SC2086
  $CC -std=c99 -O2 -fPIC -fno-semantic-interposition -shared $x "$TMP/$side/impl.c" \
    -o "$TMP/$side/libtp.so" -lm
done
$CC -std=c99 -Wall -Wextra -O2 -I"$TMP/new" "$ROOT/bench/ab_calls.c" -o "$TMP/ab_calls" -ldl
"$TMP/ab_calls" "$TMP/old/libtp.so" "$TMP/new/libtp.so" "$@"
