#!/bin/sh
# bench/callgrind.sh REV [ROW...] - the load-independent half of an A/B: callgrind's counts for
# tp_compact_into on the rows of bench/bench_compact.c, the header of REV ("old") against the
# working tree's ("new"). Per row and side: instructions (Ir) and the simulated first-level
# data cache's read / write misses (D1mr / D1mw; 64-byte lines, so the floor for N bytes read
# and written is N/64 of each), summed over the calls of one timed run (--runs 1: the untimed
# warm-up run of an in-cache row is counted too).
#
#   sh bench/callgrind.sh d7b1b8c "1024x1024" "every other row of 8192"
#
# REV is a git revision or a path to a tensorpack.h; each ROW is a text bench_compact --only
# matches (default: every row, one process per row). OLD_CFLAGS / NEW_CFLAGS as in ab.sh.
# The simulation has no prefetchers, streaming stores, TLB or timing: it shows whether a route
# does the work it should, not how fast it runs.
set -eu
REV=${1:-}
if [ -z "$REV" ]; then
  echo "usage: sh bench/callgrind.sh REV [ROW...]" >&2
  exit 2
fi
shift
command -v valgrind >/dev/null 2>&1 || { echo "bench/callgrind.sh: valgrind is not installed" >&2; exit 2; }
CC=${CC:-cc}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -O2 -g}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/headers.sh"
tp_bench_headers bench/callgrind.sh "$REV"
for side in old new; do
  if [ "$side" = old ]; then x=${OLD_CFLAGS:-}; else x=${NEW_CFLAGS:-}; fi
  # shellcheck disable=SC2086
  $CC $CFLAGS $x -I"$TMP/$side" "$ROOT/bench/bench_compact.c" -o "$TMP/$side/bench" -lm
done
if [ $# -eq 0 ]; then
  set -- "forced copy" "4096x4096 (64" "1024x1024" "1000x1000" "bf16 transpose 4096" \
    "bf16 transpose 2048" "u8 transpose" "i64 transpose" "NCHW->NHWC" "row of 8192" \
    "row of 32768" "columns [:, 100:612] of" "same columns" "channels_last" "1000 separate"
fi
echo "callgrind: old = tensorpack.h at $REV${OLD_CFLAGS:+ ($OLD_CFLAGS)}, new = ${NEW_HEADER:-working tree}${NEW_CFLAGS:+ ($NEW_CFLAGS)}; tp_compact_into of one --runs 1 process per row"
echo
echo "| row | old Ir | new Ir | old D1mr / D1mw | new D1mr / D1mw |"
echo "|---|---|---|---|---|"
for row in "$@"; do
  for side in old new; do
    valgrind --tool=callgrind --cache-sim=yes --toggle-collect=tp_compact_into \
      --callgrind-out-file="$TMP/$side.out" "$TMP/$side/bench" --runs 1 --only "$row" \
      > /dev/null 2>"$TMP/$side.err" || { cat "$TMP/$side.err" >&2; exit 1; }
    # the totals line: "6,698,165 (100.0%) 437,173 (100.0%) 434,574 (100.0%)  PROGRAM TOTALS"
    callgrind_annotate --show=Ir,D1mr,D1mw "$TMP/$side.out" 2>/dev/null |
      awk '/PROGRAM TOTALS/ { print $1, $3, $5; exit }' > "$TMP/$side.tot"
  done
  read -r ir_old mr_old mw_old < "$TMP/old.tot"
  read -r ir_new mr_new mw_new < "$TMP/new.tot"
  printf '| %s | %s | %s | %s / %s | %s / %s |\n' "$row" "$ir_old" "$ir_new" "$mr_old" "$mw_old" "$mr_new" "$mw_new"
done
