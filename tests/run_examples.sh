#!/bin/sh
# Runs every built example in a scratch directory (they write their files into the current
# directory); each checks its own result and exits non-zero when something is wrong.
# Usage: run_examples.sh EXAMPLE...   (absolute paths)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
for e in "$@"; do
  name=$(basename "$e")
  if (cd "$tmp" && "$e" >"$tmp/log" 2>&1); then
    echo "ok   $name"; passed=$((passed + 1))
  else
    echo "FAIL $name"; head -n 20 "$tmp/log"; failed=$((failed + 1))
  fi
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
