#!/bin/sh
# run_one.sh OUT CMD...: runs one suite of make test (from the repository root, stdin closed).
# Its output goes to OUT.log (CRs dropped: Windows programs print CRLF), then
# "<exit status> <milliseconds> <end, seconds since 1970>" to OUT.rc, the file make keeps as the
# suite's result: tests/run.sh reads both. A suite that fails or is skipped gets an OUT.rc dated
# 1970, so that the next make test runs it again; one that passed runs again when its program
# (or what its rule names) changes. Always exits 0: the summary decides.
out=$1; shift
mkdir -p "$(dirname "$out")" || exit 1
rm -f "$out.rc"
s=$(date +%s%N)
"$@" >"$out.raw" 2>&1 </dev/null
rc=$?
e=$(date +%s%N)
tr -d '\r' <"$out.raw" >"$out.log"
rm -f "$out.raw"
printf '%s %s %s\n' "$rc" "$(( (e - s) / 1000000 ))" "$(( e / 1000000000 ))" > "$out.rc"
[ "$rc" -eq 0 ] || touch -t 197001020000 "$out.rc"
exit 0
