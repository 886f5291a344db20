#!/bin/sh
# bench/ab.sh REV - A/B of the compact-copy bench: bench/bench_compact.c built against the
# tensorpack.h of REV ("old") and against the working tree's ("new"), run alternately.
#
#   sh bench/ab.sh d7b1b8c              (make bench-ab REV=d7b1b8c)
#
# REV is a git revision, or a path to a tensorpack.h file. Environment:
#   ROUNDS      rounds of each side (default 5, at least 5 for a table that lands with a change)
#   RUNS        timed runs of each row inside one process (default 7; the process prints medians)
#   ONLY        only the rows whose name contains this text (bench_compact --only)
#   MIN=1       each process reports its fastest run instead of its median (bench_compact --min:
#               on a loaded machine interference only adds time, so the minimum is the run
#               least disturbed); the table is then the median over rounds of those minimums
#   CC, CFLAGS  compiler and flags (default cc, -std=c99 -Wall -Wextra -O2)
#   OLD_CFLAGS, NEW_CFLAGS  extra flags for one side (e.g. -DTP_LLC_BYTES=... to A/B an option)
#   NEW_HEADER  a tensorpack.h to use as "new" instead of the working tree's
# Order: round r runs old then new when r is odd, new then old when even, so a slow phase of a
# shared machine hits both sides. Each process prints per row the median of its RUNS timed
# runs of tp_compact_into; per side the table shows the median of the rounds' medians and their
# range, and new/old (ratio of the medians, with the range of the rounds' paired ratios).
# Today's driver is built against the old header; if that does not compile (the API changed),
# REV's own bench_compact.c is used for the old side and rows are matched by name.
set -eu
unset BENCH_PEERS # the A/B times tensorpack only
REV=${1:-}
if [ -z "$REV" ]; then
  echo "usage: sh bench/ab.sh REV   (a git revision or a path to a tensorpack.h)" >&2
  exit 2
fi
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-7}
ONLY=${ONLY:-}
MIN=${MIN:-}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -O2}
OLD_CFLAGS=${OLD_CFLAGS:-}
NEW_CFLAGS=${NEW_CFLAGS:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/headers.sh"
tp_bench_headers bench-ab "$REV"

# -I puts each side's header first; bench_table.h is found next to the driver.
# shellcheck disable=SC2086
$CC $CFLAGS $NEW_CFLAGS -I"$TMP/new" "$ROOT/bench/bench_compact.c" -o "$TMP/new/bench" -lm
OLD_DRIVER=today
# shellcheck disable=SC2086
if ! $CC $CFLAGS $OLD_CFLAGS -I"$TMP/old" "$ROOT/bench/bench_compact.c" -o "$TMP/old/bench" -lm \
     2>"$TMP/err"; then
  OLD_DRIVER="$REV's own"
  git -C "$ROOT" show "$REV:bench/bench_compact.c" > "$TMP/old/bench_compact.c"
  git -C "$ROOT" show "$REV:bench/bench_table.h" > "$TMP/old/bench_table.h" 2>/dev/null || :
  # shellcheck disable=SC2086
  $CC $CFLAGS $OLD_CFLAGS -I"$TMP/old" "$TMP/old/bench_compact.c" -o "$TMP/old/bench" -lm
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(uname -m)
ext=""
for f in sse2 avx avx2 avx512f avx512bw avx512vl asimd sve; do
  if grep -qw "$f" /proc/cpuinfo 2>/dev/null; then ext="$ext $f"; fi
done
l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo "?")
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0; }
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")

loads=""
r=1
while [ "$r" -le "$ROUNDS" ]; do
  if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for side in $order; do
    loads="$loads $(load)"
    if [ -n "$ONLY" ]; then set -- --runs "$RUNS" --only "$ONLY"; else set -- --runs "$RUNS"; fi
    if [ -n "$MIN" ]; then set -- "$@" --min; fi
    "$TMP/$side/bench" "$@" | sed "s/^/$side $r /" >> "$TMP/rows"
  done
  r=$((r + 1))
done
loads="$loads $(load)"

maxload=$(echo "$loads" | tr ' ' '\n' | awk 'NF { if ($1 > m) m = $1 } END { print m + 0 }')
loaded=$(awk -v m="$maxload" 'BEGIN { print (m >= 1.5) ? 1 : 0 }')
echo "bench-ab: old = tensorpack.h at $REV${OLD_CFLAGS:+ ($OLD_CFLAGS)}, new = ${NEW_HEADER:-working tree}${NEW_CFLAGS:+ ($NEW_CFLAGS)}; driver: today's bench_compact.c (old side: $OLD_DRIVER)"
echo "CPU: $cpu, $ncpu CPUs, L3 $l3; vector extensions:$ext"
echo "rounds: $ROUNDS per side (order rotated), $RUNS timed runs per row and process${MIN:+ (each process: its fastest run)}; load average (1 min) over the run:$loads"
if [ "$loaded" = 1 ]; then
  echo "LOADED RUN: load average reached $maxload (>= 1.5) - timings are not trusted alone"
fi
echo
# rows: "side round | name | tp time | peer | limit | ratio | target | verdict |"
awk -F'|' '
  function secs(s,   v, u) {
    gsub(/^ +| +$/, "", s); split(s, p, " "); v = p[1] + 0; u = p[2]
    if (u == "us") return v * 1e-6; if (u == "ms") return v * 1e-3; return v
  }
  function fmt(s) {
    if (s < 1e-3) return sprintf("%.1f us", s * 1e6)
    if (s < 1) return sprintf("%.3f ms", s * 1e3)
    return sprintf("%.3f s", s)
  }
  function median(a, n,   i, j, t, b) {
    for (i = 1; i <= n; i++) b[i] = a[i]
    for (i = 2; i <= n; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]; b[j + 1] = t }
    return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
  }
  function minmax(a, n,   i) { lo = a[1]; hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] } }
  NF >= 7 && $4 != " - " && $3 ~ /[0-9]/ {
    split($1, h, " "); side = h[1]; rnd = h[2]; name = $2; gsub(/^ +| +$/, "", name)
    if (!(name in seen)) { seen[name] = ++nrow; order[nrow] = name }
    t[side, name, ++cnt[side, name]] = secs($3)
    tr[side, name, rnd] = secs($3)
  }
  END {
    print "| case | old median [range] | new median [range] | new/old [range] |"
    print "|---|---|---|---|"
    for (k = 1; k <= nrow; k++) {
      name = order[k]; no = cnt["old", name]; nn = cnt["new", name]
      if (no > 0) { for (i = 1; i <= no; i++) a[i] = t["old", name, i]; mo = median(a, no); minmax(a, no); so = sprintf("%s [%s-%s]", fmt(mo), fmt(lo), fmt(hi)) } else so = "-"
      if (nn > 0) { for (i = 1; i <= nn; i++) a[i] = t["new", name, i]; mn = median(a, nn); minmax(a, nn); sn = sprintf("%s [%s-%s]", fmt(mn), fmt(lo), fmt(hi)) } else sn = "-"
      if (no > 0 && nn > 0) {
        m = 0; for (i = 1; i <= '"$ROUNDS"'; i++) if ((("old", name, i) in tr) && (("new", name, i) in tr)) a[++m] = tr["new", name, i] / tr["old", name, i]
        minmax(a, m); q = mn / mo
        rs = sprintf("%.2fx [%.2f-%.2f]%s", q, lo, hi, q > 1.10 ? " slower" : (q < 0.90 ? " faster" : ""))
      } else rs = "-"
      printf "| %s | %s | %s | %s |\n", name, so, sn, rs
    }
  }' "$TMP/rows"
