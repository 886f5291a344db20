#!/bin/sh
# Runs the test programs given as arguments, adds up their "N passed, N failed" lines, names
# every skipped suite (SKIPPED="suite:reason;suite:reason"), and ends with the total line.
# A program that exits non-zero without a summary (a crash) counts as one failed case.
# With TP_REQUIRE_ALL set (CI), every skipped suite also counts as a failed case.
passed=0; failed=0; skipped=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
for t in "$@"; do
  name=$(basename "$t")
  echo "== $name"
  t0=$(date +%s%N)
  "$t" >"$log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  cat "$log"
  echo "   ($name took $(( (t1 - t0) / 1000000 )) ms)"
  line=$(grep -E '^[^ ]*: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  if [ "$rc" -eq 77 ] && [ -z "$line" ]; then
    echo "SKIPPED: $name (no device or runtime; exit 77)"; skipped=$((skipped + 1))
    if [ -n "$TP_REQUIRE_ALL" ]; then echo "FAIL $name: skipped, but TP_REQUIRE_ALL is set"; failed=$((failed + 1)); fi
    continue
  fi
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
      echo "FAIL $name: exit status $rc after its summary"; failed=$((failed + 1))
    fi
  else
    echo "FAIL $name: exit status $rc and no summary line (crash?)"; failed=$((failed + 1))
  fi
done
if [ -n "$SKIPPED" ]; then
  IFS=';'
  for s in $SKIPPED; do
    s=$(echo "$s" | sed 's/^ *//')
    [ -n "$s" ] || continue
    echo "SKIPPED: ${s%%:*} (${s#*:})"; skipped=$((skipped + 1))
    if [ -n "$TP_REQUIRE_ALL" ]; then echo "FAIL ${s%%:*}: skipped, but TP_REQUIRE_ALL is set"; failed=$((failed + 1)); fi
  done
  unset IFS
fi
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
