#!/bin/sh
# check-et.sh RUNNER DIR... - runs every program DIR/NAME.pte that has a DIR/NAME.expected beside
# it (written by tools/demo.c and the .pte-writing examples) through ExecuTorch's own
# executor_runner, on the runner's default all-ones inputs, and compares each output with the
# values the writer computed in C (a float64 reference over the same weights).
#
# NAME.expected: "backend ID", optionally "data FILE.ptd" (looked up beside NAME.pte), then one
# "output K COUNT v0 v1 ..." line per output. The runner writes output K as raw floats to
# OUT-K.bin (its --output_file flag); od turns them into text, awk compares.
# A program that needs a .ptd is also run without --data_path: ExecuTorch must refuse it with
# a sentence ("Failed to get constant data for key ..."), not crash.
# A program whose backend the runner does not have is skipped with the CMake switch to add.
# Last line: "check-et: N passed, N failed[, N skipped]"; exit status 1 when one failed.
# Tolerance: |out - ref| <= 1e-4 * (1 + |ref|) (float32 sums of at most a few hundred terms;
# a wrong weight is off by far more).

if [ $# -lt 2 ]; then
  echo "usage: $0 RUNNER DIR..." >&2
  exit 2
fi
runner=$1
shift
if [ ! -x "$runner" ]; then
  echo "check-et: $runner is not an executable (build one with tools/et-runner.sh)" >&2
  exit 2
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0

switch_of() {
  case $1 in
    XnnpackBackend) echo "-DEXECUTORCH_BUILD_XNNPACK=ON" ;;
    VulkanBackend) echo "-DEXECUTORCH_BUILD_VULKAN=ON" ;;
    *) echo "the CMake switch of $1" ;;
  esac
}

# compare EXPECTED K BIN: prints "COUNT MAXERR BAD" for output K
compare() {
  od -An -v -tf4 "$3" | awk -v k="$2" -v ex="$1" '
    BEGIN {
      while ((getline line < ex) > 0) {
        n = split(line, f, " ")
        if (f[1] == "output" && f[2] == k) { cnt = f[3]; for (i = 1; i <= cnt; i++) ref[i] = f[3 + i] + 0 }
      }
    }
    { for (i = 1; i <= NF; i++) got[++m] = $i + 0 }
    END {
      if (m != cnt) { printf "%d %s %d\n", m, "count", cnt; exit }
      worst = 0; bad = 0
      for (i = 1; i <= m; i++) {
        d = got[i] - ref[i]; if (d < 0) d = -d
        r = ref[i]; if (r < 0) r = -r
        if (d > worst) worst = d
        if (!(d <= 1e-4 * (1 + r))) bad++
      }
      printf "%d %.2g %d\n", m, worst, bad
    }'
}

for dir in "$@"; do
  for ex in "$dir"/*.expected; do
    [ -f "$ex" ] || continue
    name=${ex%.expected}
    pte=$name.pte
    label=$pte
    backend=$(awk '$1 == "backend" { print $2; exit }' "$ex")
    data=$(awk '$1 == "data" { print $2; exit }' "$ex")
    nout=$(awk '$1 == "output" { n++ } END { print n + 0 }' "$ex")
    set --
    [ -n "$data" ] && set -- --data_path "$(dirname "$pte")/$(basename "$data")"
    out=$tmp/$(basename "$name")
    "$runner" --model_path "$pte" "$@" --output_file "$out" --print_output none \
      >"$tmp/log" 2>&1
    rc=$?
    if grep -q "Backend $backend is not registered" "$tmp/log"; then
      echo "skip $label: this runner has no $backend (build it with $(switch_of "$backend"))"
      skipped=$((skipped + 1))
      continue
    fi
    if [ $rc -ne 0 ]; then
      echo "FAIL $label: executor_runner exited with status $rc"
      grep -E 'E 00|Error|error|failed' "$tmp/log" | head -n 5 | sed 's/^/       /'
      failed=$((failed + 1))
      continue
    fi
    k=0 ok=1 report=""
    while [ $k -lt "$nout" ]; do
      if [ ! -f "$out-$k.bin" ]; then
        report="$report output $k missing;"
        ok=0
      else
        set -- $(compare "$ex" $k "$out-$k.bin")
        if [ "$2" = count ]; then
          report="$report output $k has $1 floats, expected $3;"
          ok=0
        else
          report="$report output $k: $1 floats, max abs error $2;"
          [ "$3" = 0 ] || { report="$report $3 beyond tolerance;"; ok=0; }
        fi
      fi
      k=$((k + 1))
    done
    if [ $ok = 1 ]; then
      echo "ok   $label ($backend${data:+, --data_path $(basename "$data")}):${report%;}"
      passed=$((passed + 1))
    else
      echo "FAIL $label ($backend):${report%;}"
      failed=$((failed + 1))
    fi

    # the same program with its .ptd forgotten: a sentence, not a crash
    if [ -n "$data" ]; then
      "$runner" --model_path "$pte" --print_output none >"$tmp/log" 2>&1
      rc=$?
      if grep -q "Failed to get constant data for key" "$tmp/log" && [ $rc -ne 0 ] && [ $rc -ne 139 ]; then
        echo "ok   $label without --data_path: refused with \"$(grep -o 'Failed to get constant data for key [^ ]*' "$tmp/log" | head -n 1 | cut -c1-60)...\" (status $rc)"
        passed=$((passed + 1))
      else
        echo "FAIL $label without --data_path: status $rc, no \"Failed to get constant data\" sentence"
        tail -n 3 "$tmp/log" | sed 's/^/       /'
        failed=$((failed + 1))
      fi
    fi
  done
done
if [ $skipped -gt 0 ]; then
  echo "check-et: $passed passed, $failed failed, $skipped skipped"
else
  echo "check-et: $passed passed, $failed failed"
fi
[ $failed -eq 0 ]
