#!/bin/sh
# timed.sh DIR TARGET CMD...: one compile step of the build. Prints CMD (as make would), runs
# it, and records "<milliseconds> <end, seconds since 1970> TARGET" in DIR/<TARGET, / as _>.t
# for the time table tests/run.sh prints at the end of make test. Exits with CMD's status.
d=$1; t=$2; shift 2
echo "$*"
s=$(date +%s%N)
"$@"
rc=$?
e=$(date +%s%N)
mkdir -p "$d" && printf '%s %s %s\n' "$(( (e - s) / 1000000 ))" "$(( e / 1000000000 ))" "$t" \
  > "$d/$(echo "$t" | tr / _).t"
exit $rc
