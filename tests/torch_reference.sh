#!/bin/sh
# torch_reference.sh PROGRAM PYTHON - examples/09_gpt2_program's float64 C reference
# (OUT.expected: the logits for token 1 at every position) against PyTorch's GPT-2 forward
# (tools/gpt2_reference.py, float64 torch ops) for tiny checkpoints of several shapes and
# layouts: |C - torch| <= 1e-6 x (1 + |torch|) for every logit. Optional in `make test`: named
# in SKIPPED when PYTHON cannot import torch (Debian: python3-torch).
# Last line: "torch_reference: N passed, N failed".
prog=$1 py=$2
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
passed=0 failed=0
# name, --random spec, extra conversion arguments
set -- \
  "a 3,4,48,77,20,13,ours" \
  "b 1,1,8,10,5,5,untied" \
  "hub 2,2,32,50,16,8,hub --seq-len 8" \
  "prefixed 2,3,24,31,12,12,prefixed --seq-len 12"
args="" n=0
for c in "$@"; do
  set -- $c
  name=$1 spec=$2
  shift 2
  mkdir -p "$name"
  if ! "$prog" --random "$spec" "$@" "$name/model.safetensors" "$name/out.pte" >"$name/log" 2>&1; then
    echo "FAIL $name: the example failed"; cat "$name/log"; failed=$((failed + 1)); continue
  fi
  args="$args${args:+ +} $name/model.safetensors --check $name/out.expected $*"
  n=$((n + 1))
done
# the Hub's layout with the erf GELU and another layer_norm_epsilon in its config.json
mkdir -p erf
"$prog" --random 2,2,32,50,16,8,hub --no-reference erf/model.safetensors erf/x.pte >/dev/null 2>&1
sed -e 's/"gelu_new"/"gelu"/' -e 's/1e-05/1e-06/' erf/config.json >erf/c && mv erf/c erf/config.json
if "$prog" --seq-len 6 erf/model.safetensors erf/out.pte >erf/log 2>&1; then
  args="$args + erf/model.safetensors --check erf/out.expected --seq-len 6"
  n=$((n + 1))
else
  echo "FAIL erf: the example failed"; cat erf/log; failed=$((failed + 1))
fi
# shellcheck disable=SC2086
"$py" "$here/tools/gpt2_reference.py" $args >report 2>&1
cat report
ok=$(grep -c ', 0 beyond$' report)
passed=$((passed + ok))
failed=$((failed + n - ok))
echo "torch_reference: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
