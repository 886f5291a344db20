#!/bin/sh
# The fuzz smoke test of make test (mk/fuzz.mk): every libFuzzer target, bounded and
# deterministic (-runs=N -seed=1) on a fresh directory plus the seed corpus (read-only), then
# every committed reproducer fuzz/crashes/<target>-<n>, which must no longer crash. Each run
# checks the target's cost bounds (fuzz/fuzz_bound.h); then every cost seed (make_seeds'
# seed-*cost-*: a worst shape) of a bounded target runs once within its bounds and must abort
# with the bounds divided by 4 (FZ_BOUND_DIV): the counters see what the shapes share, and the
# bounds are within 4x of the worst shapes. The cost seeds are left out of the mutation runs:
# each mutant of a worst shape costs up to a reader's whole budget (they took fuzz_tpdump's
# smoke from a few seconds to 37-85 s), and what they prove is proved by the two runs above.
# Environment: FUZZ_BIN (the targets' directory), FUZZ_CORPUS (seed corpus root), FUZZ_DICT
# (the libFuzzer dictionary of the formats' magics), TP_ROOT
# (repository root), FUZZ_NAMES (targets), FUZZ_RUNS_DEFAULT, FUZZ_RUNS_fuzz_fb_reader.
B=$FUZZ_BIN; C=$FUZZ_CORPUS; R=$TP_ROOT/fuzz/crashes
pass=0; fail=0; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() {
  name=$1; shift
  if "$@" >"$tmp/log" 2>&1; then
    echo "ok   $name"; pass=$((pass + 1))
  else
    echo "FAIL $name"
    grep -E "runtime error|Assertion|invariant broken|ERROR: AddressSanitizer|SUMMARY" "$tmp/log" | head -n 5
    fail=$((fail + 1))
  fi
}
for t in $FUZZ_NAMES; do
  n=$FUZZ_RUNS_DEFAULT
  [ "$t" = fuzz_fb_reader ] && n=$FUZZ_RUNS_fuzz_fb_reader
  mkdir -p "$tmp/$t" "$tmp/$t.seeds"
  for f in "$C/$t"/*; do
    case $f in *cost-*) ;; *) [ -f "$f" ] && ln -s "$f" "$tmp/$t.seeds/" ;; esac
  done
  run "$t" "$B/$t" -runs="$n" -seed=1 -timeout=20 -dict="$FUZZ_DICT" -artifact_prefix="$tmp/" \
    "$tmp/$t" "$tmp/$t.seeds"
  for f in "$R/$t"-*; do
    [ -f "$f" ] || continue
    run "$t $(basename "$f")" "$B/$t" "$f"
  done
  for f in "$C/$t"/seed-*cost-*; do
    [ -f "$f" ] && grep -q "fuzz_bound.h" "$TP_ROOT/fuzz/$t.c" 2>/dev/null || continue
    run "$t $(basename "$f") within its bounds" "$B/$t" "$f"
    if FZ_BOUND_DIV=4 "$B/$t" "$f" >"$tmp/log" 2>&1; then
      echo "FAIL $t $(basename "$f"): within its bounds divided by 4"; fail=$((fail + 1))
    elif grep -q "over its bound" "$tmp/log"; then
      echo "ok   $t $(basename "$f") over its bounds divided by 4"; pass=$((pass + 1))
    else
      echo "FAIL $t $(basename "$f") with the bounds divided by 4: not the bound"
      grep -E "runtime error|invariant broken|ERROR: AddressSanitizer|SUMMARY" "$tmp/log" | head -n 5
      fail=$((fail + 1))
    fi
  done
done
echo "fuzz_smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
