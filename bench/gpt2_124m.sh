#!/bin/sh
# gpt2_124m.sh PROGRAM DIR - examples/09_gpt2_program on GPT-2 124M's shape (12 layers, 12 heads,
# E 768, V 50257, n_positions 1024, T 64; random weights): the time and peak memory of the
# conversion, against copying its .pte's bytes (cp: the same bytes written once, the floor any
# writer has), and the sizes. `make bench-gpt2` runs it (about 1.6 GB of files in DIR).
prog=$1
dir=$2
[ -x "$prog" ] && [ -n "$dir" ] || { echo "usage: $0 PROGRAM DIR" >&2; exit 2; }
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f model.safetensors model.pte copy.pte
"$prog" --random 12,12,768,50257,1024,64 --no-reference model.safetensors model.pte >/dev/null ||
  exit 1
sync
now() { date +%s.%N; }
t0=$(now)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o rss.txt "$prog" --no-reference model.safetensors model.pte >log.txt || exit 1
  rss="$(cat rss.txt) KiB peak resident"
else
  "$prog" --no-reference model.safetensors model.pte >log.txt || exit 1
  rss="peak memory not measured (no /usr/bin/time)"
fi
t1=$(now)
cp model.pte copy.pte
sync
t2=$(now)
ck=$(stat -c %s model.safetensors)
pt=$(stat -c %s model.pte)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v ck="$ck" -v pt="$pt" -v rss="$rss" 'BEGIN {
  conv = b - a; cpy = c - b
  printf "| GPT-2 124M shape: safetensors (%.0f MB) -> .pte (%.0f MB) | %.2f s | cp of the .pte %.2f s | %.2fx | %s |\n",
         ck / 1e6, pt / 1e6, conv, cpy, conv / cpy, rss
}'
head -n 1 log.txt
rm -f copy.pte
