#!/bin/sh
# Runs test programs built for another platform (s390x under qemu-user, Windows under wine64)
# and adds their results up into one suite line, as tests/run.sh does for native suites.
#
# Usage: cross_run.sh NAME RUNNER PROG...
#   Each PROG runs as `RUNNER PROG` (RUNNER is one word-split string, e.g. "qemu-s390x -L /usr/s390x-linux-gnu").
#   Its output is shown indented (so run.sh reads only this script's own summary); a program
#   that exits non-zero without a summary line (a crash) counts as one failed case.
# With SEEDS="NATIVE_PROG CROSS_PROG" set, one more case: both programs write their files
# (NATIVE_PROG DIR natively, CROSS_PROG DIR under RUNNER) into empty directories with the
# same subdirectories (SEED_DIRS, space separated), and every file must be byte-identical.
# Ends with "NAME: N passed, N failed" and exit status 0 when nothing failed.
name=$1; runner=$2; shift 2
passed=0; failed=0
log=$(mktemp); trap 'rm -f "$log"; [ -n "$seeds_tmp" ] && rm -rf "$seeds_tmp"' EXIT
seeds_tmp=
for p in "$@"; do
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # the runner is a command with arguments
  $runner "$p" >"$log.raw" 2>&1 </dev/null
  rc=$?
  tr -d '\r' <"$log.raw" >"$log"; rm -f "$log.raw" # Windows programs print CRLF
  t1=$(date +%s%N)
  sed 's/^/  /' "$log"
  line=$(grep -E '^[^ ]*: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  echo "  ($(basename "$p") took $(( (t1 - t0) / 1000000 )) ms)"
  if [ -n "$line" ]; then
    p_=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f_=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    passed=$((passed + p_)); failed=$((failed + f_))
    if [ "$rc" -ne 0 ] && [ "$f_" -eq 0 ]; then
      echo "  FAIL $(basename "$p"): exit status $rc after its summary"; failed=$((failed + 1))
    fi
  else
    echo "  FAIL $(basename "$p"): exit status $rc and no summary line (crash?)"; failed=$((failed + 1))
  fi
done
if [ -n "$SEEDS" ]; then
  set -- $SEEDS
  seeds_tmp=$(mktemp -d)
  for side in native cross; do
    for d in $SEED_DIRS; do mkdir -p "$seeds_tmp/$side/$d"; done
  done
  ok=1
  "$1" "$seeds_tmp/native" >"$log" 2>&1 || { echo "  FAIL $1 (native):"; sed 's/^/    /' "$log"; ok=0; }
  # shellcheck disable=SC2086
  $runner "$2" "$seeds_tmp/cross" >"$log" 2>&1 </dev/null || { echo "  FAIL $2 ($name):"; sed 's/^/    /' "$log"; ok=0; }
  nfiles=$(cd "$seeds_tmp/native" && find . -type f | wc -l)
  ndiff=0
  for f in $(cd "$seeds_tmp/native" && find . -type f | sort); do
    if ! cmp -s "$seeds_tmp/native/$f" "$seeds_tmp/cross/$f"; then
      [ "$ndiff" -lt 10 ] && echo "  differs on $name: $f ($(cmp "$seeds_tmp/native/$f" "$seeds_tmp/cross/$f" 2>&1 | head -n 1))"
      ndiff=$((ndiff + 1))
    fi
  done
  extra=$(cd "$seeds_tmp/cross" && find . -type f | wc -l)
  [ "$extra" -eq "$nfiles" ] || { echo "  $name wrote $extra files, native $nfiles"; ok=0; }
  [ "$nfiles" -gt 0 ] || { echo "  no files written"; ok=0; }
  if [ "$ok" -eq 1 ] && [ "$ndiff" -eq 0 ]; then
    echo "  ok   bytes: all $nfiles files written on $name are identical to the native ones"; passed=$((passed + 1))
  else
    echo "  FAIL bytes: $ndiff of $nfiles files differ on $name"; failed=$((failed + 1))
  fi
fi
# With TOOLS="NATIVE_TPDUMP CROSS_TPDUMP" too (after SEEDS): both print every .ptd seed the
# cross side wrote (fuzz_ptd/*); the reports must be the same text and both exit 0.
if [ -n "$TOOLS" ] && [ -n "$seeds_tmp" ]; then
  set -- $TOOLS
  n=0; bad=0
  for f in "$seeds_tmp"/cross/fuzz_ptd/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    "$1" "$f" >"$log.native" 2>&1; rc1=$?
    # shellcheck disable=SC2086
    $runner "$2" "$f" >"$log.raw" 2>&1 </dev/null; rc2=$?
    tr -d '\r' <"$log.raw" >"$log"
    if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ] || ! cmp -s "$log.native" "$log"; then
      bad=$((bad + 1))
      echo "  tpdump on $name differs for $(basename "$f") (exit $rc1 native, $rc2 $name):"
      diff "$log.native" "$log" | head -n 6 | sed 's/^/    /'
    fi
  done
  rm -f "$log.native" "$log.raw"
  if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
    echo "  ok   tpdump: the $name build prints all $n .ptd seeds exactly as the native one"; passed=$((passed + 1))
  else
    echo "  FAIL tpdump: $bad of $n reports differ on $name"; failed=$((failed + 1))
  fi
fi
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
