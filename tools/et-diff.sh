#!/bin/sh
# et-diff.sh RUNNER [COUNT [FIRST [TABLE]]] - the differential test against ExecuTorch's runtime
# (issue 20): builds tools/et_diff.c, runs the random graphs of seeds FIRST .. FIRST+COUNT-1
# (default 0 .. 4699: 100 per node kind) in RUNNER (ExecuTorch's executor_runner with the
# XNNPACK backend; tools/et-runner.sh builds one), and writes their verdicts to TABLE (default
# tests/data/et_verdicts_xnnpack.txt, the table the CI suite test_et_verdicts checks the writer
# against). Then it counts: accepted graphs ExecuTorch fails (must be 0), refused graphs
# ExecuTorch runs right (each belongs in README.md's et-overstrict list with why), per ET
# verdict, with the writer's sentence and the runner's error line of each of those graphs (all
# graphs that are not (accepted, ok): WORK/why, kept with KEEP=1 or WORK set).
#
# Each graph runs in its own process under `timeout -s KILL 20`, three input sets each; about
# four minutes for 4700 seeds on 2 cores shared with other work. The runner runs with
# tools/et_poison_free.c preloaded (free() fills the block with 0x7f first), so a graph whose
# node reads a constant from the blob ExecuTorch freed after init is wrong every time, not only
# when the allocator happened to reuse the block; POISON=0 runs the runner as it is.
# Environment: CC (default cc), WORK (scratch directory, default a temporary one, removed unless
# KEEP=1), POISON.
# After a rule change: run this, then `build/tests/test_et_verdicts --print` into tests/README.md
# (the per-kind table) and name each refused-but-right seed in README.md.

if [ $# -lt 1 ] || [ $# -gt 4 ]; then
  echo "usage: $0 RUNNER [COUNT [FIRST [TABLE]]]" >&2
  exit 2
fi
runner=$1
count=${2:-4700}
first=${3:-0}
here=$(cd "$(dirname "$0")/.." && pwd)
table=${4:-$here/tests/data/et_verdicts_xnnpack.txt}
if [ ! -x "$runner" ]; then
  echo "et-diff: $runner is not an executable (build one with tools/et-runner.sh)" >&2
  exit 2
fi
work=${WORK:-$(mktemp -d)} || exit 2
mkdir -p "$work/graphs" || exit 2
[ -n "$WORK" ] || [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

${CC:-cc} -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -I"$here" \
  "$here/tools/et_diff.c" -o "$work/et_diff" -lm || exit 1
run=$runner
if [ "${POISON:-1}" = 1 ]; then
  ${CC:-cc} -O2 -shared -fPIC "$here/tools/et_poison_free.c" -o "$work/poison.so" -ldl || exit 1
  run=$work/runner
  printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$work/poison.so" "$runner" >"$run" || exit 1
  chmod +x "$run" || exit 1
fi
echo "et-diff: seeds $first .. $((first + count - 1)) in $runner (graphs in $work/graphs)"
"$work/et_diff" "$run" "$work/graphs" "$first" "$count" >"$work/table" 2>"$work/why" || exit 1

{
  echo "# The differential test's verdicts (issue 20), written by tools/et-diff.sh: the random graph"
  echo "# of each seed (tests/xnn_graphs.h) written at target 0 - refused ones unchecked - as a"
  echo "# one-delegate .pte and run in ExecuTorch's executor_runner (ExecuTorch cff6f4dd32, the"
  echo "# XNNPACK it pins, x86-64; free() poisoned: tools/et_poison_free.c) against"
  echo "# tests/xnn_graphs_ref.h, three input sets each."
  echo "# Columns: seed, node kinds, main node's datatypes (input/second>output), the deliberate"
  echo "# inconsistency (- none), the writer's verdict at target 0, ExecuTorch's verdict (ok, wrong"
  echo "# + max error, init-refused, execute-failed, crashed(SIGNAL), timeout, unwritable)."
  echo "# tests/test_et_verdicts.c checks the writer's verdicts against it."
  cat "$work/table"
} >"$table" || exit 1

awk '
  $1 ~ /^#/ { next }
  { n++; v[$5 " " $6]++ }
  $5 == "accepted" && $6 != "ok" { bad++; badlist = badlist " " $1 }
  $5 != "accepted" && $6 == "ok" { over++; overlist = overlist " " $1 }
  $5 != "accepted" { refused++ }
  END {
    printf "et-diff: %d graphs, %d accepted, %d refused\n", n, n - refused, refused
    for (k in v) printf "  %6d  %s\n", v[k], k
    printf "accepted graphs ExecuTorch fails: %d%s\n", bad, bad ? ":" badlist : ""
    printf "refused graphs ExecuTorch runs right: %d of %d (%.2f%%)%s\n", over, refused,
           refused ? 100 * over / refused : 0, over ? ":" overlist : ""
  }' "$table"
awk -F' [|] ' '{ split($1, h, " ") }
  (h[3] == "accepted" && h[4] != "ok") || (h[3] != "accepted" && h[4] == "ok") {
    printf "  %s: %s | %s\n", $1, substr($2, 1, 160), substr($3, 1, 100) }' "$work/why"
echo "table: $table"
