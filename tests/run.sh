#!/bin/sh
# Summarises make test: run.sh BUILD SUITE...  Each SUITE ran before, in parallel, as its own
# make target (tests/run_one.sh: BUILD/results/SUITE.log and .rc); this prints every suite's
# output in the order given, adds up their "N passed, N failed" lines, names every skipped
# suite (SKIPPED="suite:reason;suite:reason"), prints the ten slowest compile steps and suites
# of this run (TP_T0: when make started, seconds since 1970) and ends with the total line.
# A suite that exits 77 without a summary is skipped; one that exits non-zero without a summary
# (a crash) counts as one failed case; a suite with no result (not run) counts as one too.
# With TP_REQUIRE_ALL set (CI), every skipped suite also counts as a failed case.
build=$1; shift
res=$build/results
passed=0; failed=0; skipped=0
for name in "$@"; do
  echo "== $name"
  if [ ! -f "$res/$name.rc" ] || [ ! -f "$res/$name.log" ]; then
    echo "FAIL $name: no result in $res (it did not run)"; failed=$((failed + 1)); continue
  fi
  read -r rc ms _end < "$res/$name.rc"
  cat "$res/$name.log"
  echo "   ($name took $ms ms)"
  line=$(grep -E '^[^ ]*: [0-9]+ passed, [0-9]+ failed$' "$res/$name.log" | tail -n 1)
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
# The time table: compile steps (tests/timed.sh: BUILD/times/*.t, "ms end target") and suites
# (.rc: "status ms end") that ended in this run.
t0=${TP_T0:-0}
{
  find "$build/times" -name '*.t' 2>/dev/null | while read -r f; do
    read -r ms end target < "$f" && [ "$end" -ge "$t0" ] && echo "$ms build ${target#"$build"/}"
  done
  for name in "$@"; do
    [ -f "$res/$name.rc" ] || continue
    read -r rc ms end < "$res/$name.rc" && [ "$end" -ge "$t0" ] && echo "$ms suite $name"
  done
} | sort -rn | head -n 10 > "$res/.slowest"
if [ -s "$res/.slowest" ]; then
  echo "slowest of this run (seconds; the suites ran in parallel with the builds):"
  awk '{ printf "  %7.1f  %-5s %s\n", $1 / 1000, $2, $3 }' "$res/.slowest"
else
  echo "slowest of this run: nothing was built or run (every result was up to date)"
fi
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
