#!/bin/sh
# tools/same-code.sh REV [CONFIG ...] - does the working tree's header code compile to the same
# machine code as REV's? For a refactor meant to leave the code alone (a removal of dead code,
# a rename, a move, comments).
#
# What it does: the three headers (tensorpack.h, tensorpack_xnnpack.h, tensorpack_vulkan.h) are
# taken from REV (git show) and from the working tree into two directories; tests/impl/core.c,
# xnnpack.c and vulkan.c are compiled against each with every compiler present - gcc and clang
# (-std=c99) and g++ (-x c++) - at $OPT (-O2), in the configurations
#   default | -DTP_NO_AVX512 | -DTP_NO_AVX2 | -DTP_LLC_BYTES=131072 -DTP_SCRATCH_BYTES=40
# plus each CONFIG argument (one quoted set of flags each, e.g. '-DTP_NO_STDIO'); g++ builds the
# default and the CONFIG arguments. Every object is disassembled per function
# (objdump -dr --no-show-raw-insn) and normalized:
#   - addresses dropped; jump and call targets kept as <symbol+offset> (offsets inside a function
#     are the same when the function is);
#   - RIP displacements dropped; what they reach is named by their relocation instead, and a
#     relocation names what it reaches by content, not by the assembler's numbering: a string or
#     a constant of a mergeable section (.LC12, .L.str.40, .LCPI3_1) by its bytes, a place in
#     another section (.rodata+0xbe4, .text.unlikely-0x4) by the symbol that holds it plus the
#     offset (a static's numbering suffix, __func__.3, dropped);
#   - __LINE__: the assert in TP_ASSERT puts its line into the code as an immediate, so a change
#     that moves lines changes those immediates. They are not guessed: when two functions differ,
#     each side is compiled again with its headers starting with `#line 1000001` (every line
#     1000000 further), and an immediate that moves by exactly 1000000 between the two is a line
#     number; it is compared as "$LINE". Any other immediate, and a line immediate whose
#     instruction differs otherwise, still counts as a difference. (The other way, `#line`
#     directives that align both sides, breaks when a directive falls inside a macro's
#     arguments, and line numbers reach the code through macros used at call sites:
#     TP__PTE_GUARD.)
# It prints per object: functions compared, identical, differing (names), only-old and
# only-new (names), and exits 0 when every function present on both sides is identical, 1
# otherwise, 2 when it could not run (a header missing at REV, a compile error).
#
# What it proves: the compilers named emit the same instructions for the functions of those
# objects in those configurations. What it does not: the code of other configurations,
# compilers, flags or targets (s390x, mingw: tests/README.md's suites cover them by running);
# which of the compiled paths the data chooses at run time; the contents of jump tables, data
# tables and static data (only how the code reaches them); a function present on one side only
# is listed, not judged.
#
# Environment: OPT (default -O2), JOBS (parallel compiles, default 2), NEW_DIR (the directory of
# the new side's headers instead of the working tree: a scratch copy), ONLY (the builds whose
# names start with it, e.g. ONLY=gcc-default: a quick look), KEEP=1 keeps the scratch
# directory and prints its path (its *.lst files are the normalized listings: diff them).
set -eu

usage() {
  echo "usage: sh tools/same-code.sh REV [CONFIG ...]  (CONFIG: one quoted set of -D flags)" >&2
  exit 2
}
[ $# -ge 1 ] || usage
rev=$1
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OPT=${OPT:--O2}
JOBS=${JOBS:-2}
NEW_DIR=${NEW_DIR:-$ROOT}
SHIFT=1000000
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tp_same_code.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "same-code: scratch directory $TMP (kept)"
else
  trap 'rm -rf "$TMP"' EXIT INT TERM
fi

# The headers of each side, and a shifted twin of each (every line 1000000 further).
for h in tensorpack.h tensorpack_xnnpack.h tensorpack_vulkan.h; do
  mkdir -p "$TMP/old/h" "$TMP/new/h" "$TMP/old-shift/h" "$TMP/new-shift/h"
  if ! git -C "$ROOT" show "$rev:$h" > "$TMP/old/h/$h" 2> "$TMP/err"; then
    echo "same-code: no $h at revision '$rev': $(cat "$TMP/err")" >&2
    exit 2
  fi
  if [ ! -f "$NEW_DIR/$h" ]; then echo "same-code: no $h in $NEW_DIR" >&2; exit 2; fi
  cp "$NEW_DIR/$h" "$TMP/new/h/$h"
  for side in old new; do
    { echo "#line $((SHIFT + 1))"; cat "$TMP/$side/h/$h"; } > "$TMP/$side-shift/h/$h"
  done
done
units="core xnnpack vulkan"

# The builds: name|compiler and language|flags. Names are file-safe.
{
  for cc in gcc clang; do
    command -v $cc > /dev/null 2>&1 || continue
    echo "$cc-default|$cc -std=c99|"
    echo "$cc-no_avx512|$cc -std=c99|-DTP_NO_AVX512"
    echo "$cc-no_avx2|$cc -std=c99|-DTP_NO_AVX2"
    echo "$cc-llc|$cc -std=c99|-DTP_LLC_BYTES=131072 -DTP_SCRATCH_BYTES=40"
  done
  if command -v g++ > /dev/null 2>&1; then echo "g++-default|g++ -x c++|"; fi
  n=0
  for cfg in "$@"; do
    n=$((n + 1))
    for cc in gcc clang; do
      command -v $cc > /dev/null 2>&1 && echo "$cc-extra$n|$cc -std=c99|$cfg"
    done
    if command -v g++ > /dev/null 2>&1; then echo "g++-extra$n|g++ -x c++|$cfg"; fi
  done
} > "$TMP/builds"
[ -s "$TMP/builds" ] || { echo "same-code: none of gcc, clang, g++ found" >&2; exit 2; }
if [ -n "${ONLY:-}" ]; then
  grep -e "^$ONLY" "$TMP/builds" > "$TMP/only" || true
  [ -s "$TMP/only" ] || { echo "same-code: no build named $ONLY* (ONLY)" >&2; exit 2; }
  mv "$TMP/only" "$TMP/builds"
fi

# hexval(h): the number a hex string (0x or not) spells; awk's part of both programs below
# shellcheck disable=SC2016
HEXVAL='
function hexval(h,   i, v) {
  h = tolower(h); sub(/^0x/, "", h); v = 0
  for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
  return v
}
'
# normalize: objdump -t, -s and -dr of one object (in that order, separated by lines "==S" and
# "==D") -> one line per instruction: "function<TAB>instruction" (see the header comment).
# shellcheck disable=SC2016
NORMALIZE="$HEXVAL"'
function fmt(v) { return v < 0 ? sprintf("-0x%x", -v) : sprintf("+0x%x", v) }
function bare(n) { sub(/\.[0-9]+$/, "", n); return n }
# bytes of a mergeable section at offset o: a string up to its terminator, a constant whole
function content(sec, o,   w, s, z, i, b, k) {
  if (sec ~ /^\.rodata\.str/) {
    w = sec; sub(/^\.rodata\.str/, "", w); sub(/\..*/, "", w); w += 0; s = ""
    for (i = o; (sec, i) in byte; i += w) {
      z = ""; for (k = 0; k < w; k++) z = z byte[sec, i + k]
      if (z ~ /^0+$/) break
      s = s z
    }
    return "str{" s "}"
  }
  w = sec; sub(/^\.rodata\.cst/, "", w); w += 0; s = ""
  for (i = 0; i < w; i++) s = s byte[sec, o + i]
  return "cst{" s "}"
}
function mergeable(sec) { return sec ~ /^\.rodata\.(str|cst)/ }
# the symbol of section sec that holds offset t: name+offset of a (addend)
function holder(sec, t, a,   i, best, bv) {
  best = ""; bv = -1
  for (i = 1; i <= nsym; i++)
    if (ssec[i] == sec && sval[i] <= t && sval[i] > bv && (ssize[i] == 0 || t < sval[i] + ssize[i])) {
      best = sname[i]; bv = sval[i]
    }
  if (best == "") return sec "+?"
  return (sec ~ /^\.text/ ? best : bare(best)) fmt(a - bv)
}
function reloc(type, target,   m, s, a, t) {
  if (match(target, /[+-]0x[0-9a-f]+$/)) {
    s = substr(target, 1, RSTART - 1); a = substr(target, RSTART)
    a = (substr(a, 1, 1) == "-" ? -1 : 1) * hexval(substr(a, 2))
  } else { s = target; a = 0 }
  if (s in issec) {
    t = (type ~ /PC32|PLT32|GOTPC/) ? a + 4 : a
    if (mergeable(s)) return type " " content(s, t)
    return type " " holder(s, t, a)
  }
  if ((s in symsec) && mergeable(symsec[s])) return type " " content(symsec[s], symval[s]) fmt(a)
  if ((s in symsec) && symsec[s] !~ /^\.text/) return type " " bare(s) fmt(a)
  return type " " s fmt(a)
}
BEGIN { part = "t" }
$0 == "==S" { part = "s"; next }
$0 == "==D" { part = "d"; next }
part == "t" {
  if (split($0, lr, "\t") != 2) next
  nl = split(lr[1], l, " "); nr = split(lr[2], r, " ")
  if (nl < 3 || nr < 2) next
  sec = l[nl]; name = r[2]
  if (name == sec && substr(lr[1], 18, 7) ~ /d/) { issec[sec] = 1; next }
  nsym++; sname[nsym] = name; ssec[nsym] = sec; sval[nsym] = hexval(l[1]); ssize[nsym] = hexval(r[1])
  symsec[name] = sec; symval[name] = sval[nsym]
  next
}
part == "s" {
  if ($0 ~ /^Contents of section /) { cur = $4; sub(/:$/, "", cur); next }
  if (cur == "" || $0 !~ /^ [0-9a-f]+ /) next
  off = hexval($1); hex = substr($0, length($1) + 3, 35); gsub(/ /, "", hex)
  for (i = 0; i < length(hex) / 2; i++) byte[cur, off + i] = substr(hex, 2 * i + 1, 2)
  next
}
/^[0-9a-f]+ <.*>:$/ {
  if (ins != "") print ins pend
  ins = ""; pend = ""; fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn)
  next
}
fn == "" { next }
/^[ \t]+[0-9a-f]+: R_/ {
  sub(/^[ \t]+[0-9a-f]+: /, ""); split($0, rr, /[ \t]+/)
  pend = pend " [" reloc(rr[1], rr[2]) "]"
  next
}
/^[ \t]+[0-9a-f]+:\t/ {
  if (ins != "") print ins pend
  ins = $0; sub(/^[ \t]+[0-9a-f]+:\t/, "", ins); pend = ""
  if (match(ins, /#[ \t]*[0-9a-f]+ </)) ins = substr(ins, 1, RSTART) " <" substr(ins, RSTART + RLENGTH)
  gsub(/[0-9a-f]+ </, "<", ins)
  gsub(/-?0x[0-9a-f]+\(%rip\)/, "(%rip)", ins)
  gsub(/[ \t]+/, " ", ins); sub(/ $/, "", ins)
  ins = fn "\t" ins
  next
}
END { if (ins != "") print ins pend }
'

# compare: old.lst new.lst [old-shift.lst new-shift.lst] -> the report lines of one object;
# the last line is "RESULT <compared> <identical> <differing> <only-old> <only-new>".
# shellcheck disable=SC2016
COMPARE="$HEXVAL"'
# a with every immediate that is a line number (it moves by SHIFT in its twin b) as $LINE
function lines(a, b,   pa, pb, na, nb, i, ia, ib, out, ra, rb) {
  ra = a; rb = b; gsub(/\$0x[0-9a-f]+/, "$", ra); gsub(/\$0x[0-9a-f]+/, "$", rb)
  if (ra != rb) return a
  na = split(a, pa, /\$0x/); nb = split(b, pb, /\$0x/); out = pa[1]
  for (i = 2; i <= na; i++) {
    match(pa[i], /^[0-9a-f]+/); ia = substr(pa[i], 1, RLENGTH)
    match(pb[i], /^[0-9a-f]+/); ib = substr(pb[i], 1, RLENGTH)
    if (length(ia) <= 12 && hexval(ib) - hexval(ia) == shift) out = out "$LINE" substr(pa[i], RLENGTH + 1)
    else out = out "$0x" pa[i]
  }
  return out
}
{
  f = FILENAME; split($0, p, "\t")
  if (!(f in fid)) fid[f] = ++nf
  k = fid[f]; n[k, p[1]]++; ins[k, p[1], n[k, p[1]]] = p[2]
  if (k == 1 && !((1, p[1]) in seen1)) { seen1[1, p[1]] = 1; order1[++no1] = p[1] }
  if (k == 2 && !((2, p[1]) in seen2)) { seen2[2, p[1]] = 1; order2[++no2] = p[1] }
}
function body(k, g, t,   i, s) {
  s = ""
  for (i = 1; i <= n[k, g]; i++)
    s = s "\n" (t && n[k + 2, g] == n[k, g] ? lines(ins[k, g, i], ins[k + 2, g, i]) : ins[k, g, i])
  return s
}
END {
  shifted = (nf == 4)
  for (j = 1; j <= no1; j++) {
    g = order1[j]
    if (!((2, g) in seen2)) { gone = gone " " g; ngone++; continue }
    cmp++
    if (body(1, g, 0) == body(2, g, 0) || (shifted && body(1, g, 1) == body(2, g, 1))) same++
    else { diff = diff " " g; ndiff++ }
  }
  for (j = 1; j <= no2; j++) if (!((1, order2[j]) in seen1)) { new = new " " order2[j]; nnew++ }
  if (ndiff) print "  differing:" diff
  if (ngone) print "  only-old:" gone
  if (nnew) print "  only-new:" new
  printf "RESULT %d %d %d %d %d\n", cmp, same, ndiff, ngone, nnew
}
'

# compile SIDE BUILD UNIT: the object and its normalized listing, $TMP/SIDE/BUILD-UNIT.lst
compile() {
  line=$(grep "^$2|" "$TMP/builds")
  cc=$(echo "$line" | cut -d'|' -f2)
  flags=$(echo "$line" | cut -d'|' -f3)
  o="$TMP/$1/$2-$3.o"
  # one file name on both sides: __FILE__ (assert's message) is the same string
  # shellcheck disable=SC2086
  if ! $cc $OPT $flags "-fmacro-prefix-map=$TMP/$1/h=h" -I"$TMP/$1/h" -I"$ROOT/tests" \
      -c "$ROOT/tests/impl/$3.c" -o "$o" 2> "$o.err"; then
    echo "same-code: $cc $OPT $flags failed on tests/impl/$3.c against the $1 headers:" >&2
    cat "$o.err" >&2
    return 1
  fi
  { objdump -t "$o"; echo "==S"; objdump -s "$o"; echo "==D"; objdump -dr --no-show-raw-insn "$o"; } |
    awk "$NORMALIZE" > "$o.lst"
}

# run_all SIDE...: every build of every unit for each side, JOBS at a time
run_all() {
  : > "$TMP/jobs"
  for side in "$@"; do
    while IFS='|' read -r b rest; do
      for u in $units; do echo "$side $b $u" >> "$TMP/jobs"; done
    done < "$TMP/builds"
  done
  running=0
  : > "$TMP/failed"
  while read -r side b u; do
    (compile "$side" "$b" "$u" || echo "$side $b $u" >> "$TMP/failed") &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
  done < "$TMP/jobs"
  wait
  if [ -s "$TMP/failed" ]; then exit 2; fi
}

run_all old new
total_cmp=0 total_same=0 total_diff=0 total_gone=0 total_new=0 status=0 need_shift=
while IFS='|' read -r b rest; do
  for u in $units; do
    r=$(awk "$COMPARE" "$TMP/old/$b-$u.o.lst" "$TMP/new/$b-$u.o.lst" | tail -n 1)
    case $r in "RESULT "*) ;; *) echo "same-code: could not compare $b $u" >&2; exit 2 ;; esac
    # shellcheck disable=SC2086
    set -- $r
    [ "$4" = 0 ] || need_shift=1
  done
done < "$TMP/builds"
if [ -n "$need_shift" ]; then
  echo "same-code: functions differ; compiling the shifted twins to tell line numbers apart"
  run_all old-shift new-shift
fi

while IFS='|' read -r b rest; do
  for u in $units; do
    set -- "$TMP/old/$b-$u.o.lst" "$TMP/new/$b-$u.o.lst"
    [ -n "$need_shift" ] && set -- "$@" "$TMP/old-shift/$b-$u.o.lst" "$TMP/new-shift/$b-$u.o.lst"
    awk -v shift=$SHIFT "$COMPARE" "$@" > "$TMP/report"
    # shellcheck disable=SC2046
    set -- $(tail -n 1 "$TMP/report")
    echo "$b $u: $2 compared, $3 identical, $4 differing, $5 only-old, $6 only-new"
    sed '$d' "$TMP/report"
    total_cmp=$((total_cmp + $2)) total_same=$((total_same + $3)) total_diff=$((total_diff + $4))
    total_gone=$((total_gone + $5)) total_new=$((total_new + $6))
    [ "$4" = 0 ] || status=1
  done
done < "$TMP/builds"
echo "same-code $rev vs $NEW_DIR: $total_cmp compared, $total_same identical," \
  "$total_diff differing, $total_gone only-old, $total_new only-new"
exit $status
