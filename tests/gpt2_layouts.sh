#!/bin/sh
# gpt2_layouts.sh PROGRAM - examples/09_gpt2_program on the checkpoint layouts people have
# (issue 29). PROGRAM writes each layout with the same weights (--random L,H,E,V,P,T,LAYOUT):
# ours (config in __metadata__), the Hub's (mask buffers, {"format": "pt"}, config.json
# beside), GPT2LMHeadModel's ("transformer." names, masked_bias, a tied lm_head.weight), an
# untied head, ours plus two tensors GPT-2 does not have. The same weights and T must give the
# same .pte bytes (the untied head other bytes); every refusal prints its exact sentence.
# Last line: "gpt2_layouts: N passed, N failed".
prog=$1
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }

spec=2,2,32,50,16,8
for l in ours hub prefixed untied extra; do
  mkdir -p $l
  if "$prog" --random $spec,$l --no-reference --seq-len 8 $l/model.safetensors $l/out.pte \
       >$l/log 2>$l/err; then
    ok "$l: converts"
  else
    bad "$l: converts"; cat $l/err
  fi
done
for l in hub prefixed extra; do
  if cmp -s ours/out.pte $l/out.pte; then ok "$l: the same bytes as ours"
  else bad "$l: the same bytes as ours"; fi
done
if cmp -s ours/out.pte untied/out.pte; then bad "untied: other bytes"; else ok "untied: other bytes"; fi
grep -q "the wte-tied LM head" prefixed/log && ok "prefixed: lm_head.weight = wte keeps the tie" ||
  bad "prefixed: lm_head.weight = wte keeps the tie"
grep -q "an untied LM head" untied/log && ok "untied: its own head" || bad "untied: its own head"
# OUT.ptd: the linears' weights and biases named there (2 layers x 6 x 2 + the head), the
# .pte without them
mkdir -p ptd
if "$prog" --no-reference --seq-len 8 hub/model.safetensors ptd/out.pte ptd/out.ptd >ptd/log 2>&1 &&
   [ -s ptd/out.ptd ] && [ "$(wc -c <ptd/out.pte)" -lt "$(wc -c <ours/out.pte)" ] &&
   grep -q "wrote ptd/out.ptd: .* 25 named weights" ptd/log; then
  ok "OUT.ptd: 25 named weights, a smaller .pte"
else
  bad "OUT.ptd: 25 named weights, a smaller .pte"; cat ptd/log
fi
# the mask buffers are skipped, never copied: the Hub's .pte is not bigger than ours
[ "$(wc -c <hub/out.pte)" -eq "$(wc -c <ours/out.pte)" ] && ok "hub: no mask bytes in the .pte" ||
  bad "hub: no mask bytes in the .pte"
[ ! -s hub/err ] && [ ! -s prefixed/err ] && ok "hub, prefixed: no warning" ||
  bad "hub, prefixed: no warning"
# T: --seq-len, else seq_len (ours: 8 in __metadata__), else n_positions (16)
"$prog" --no-reference hub/model.safetensors hub/t16.pte >hub/log16 2>&1 &&
  grep -q "T 16 (config" hub/log16 && ok "hub: T defaults to n_positions" ||
  bad "hub: T defaults to n_positions"
# --config wins over config.json beside the model
cp hub/config.json good.json
printf '{"n_layer": 2,}' >hub/config.json
"$prog" --no-reference --seq-len 8 --config good.json hub/model.safetensors hub/c.pte >/dev/null 2>&1 &&
  cmp -s ours/out.pte hub/c.pte && ok "--config over config.json" || bad "--config over config.json"

# expect NAME WANT ARGS...: PROGRAM fails with exactly the line WANT on stderr
expect() {
  name=$1 want=$2
  shift 2
  if "$prog" --no-reference "$@" x.pte >/dev/null 2>err; then
    bad "$name: converted"
  elif grep -qxF -- "$want" err; then
    ok "$name"
  else
    bad "$name"; echo "  want: $want"; echo "  got:  $(cat err)"
  fi
}
# conf SED: hub/config.json from good.json edited by SED
conf() { sed "$1" good.json >hub/config.json; }
m=hub/model.safetensors c=hub/config.json
expect "bad JSON" "error: \"$c\": bad JSON at byte 14: expected a string" $m
conf '/"n_head"/d'
expect "missing n_head" "error: $c has no \"n_head\"" $m
conf 's/"n_embd": 32/"n_embd": 48/'
expect "n_embd vs wte" "error: $c: n_embd is 48, but wte.weight in $m is [50, 32]" $m
conf 's/"vocab_size": 50/"vocab_size": 51/'
expect "vocab_size vs wte" "error: $c: vocab_size is 51, but wte.weight in $m is [50, 32]" $m
conf 's/"n_positions": 16/"n_positions": 32/'
expect "n_positions vs wpe" "error: $c: n_positions is 32, but wpe.weight in $m is [16, 32]" $m
conf 's/"n_layer": 2/"n_layer": 3/'
expect "n_layer vs layers" "error: $c: n_layer is 3, but $m has 2 layers (h.0 to h.1)" $m
conf 's/"n_layer": 2/"n_layer": 1/'
expect "n_layer vs layers (fewer)" "error: $c: n_layer is 1, but $m has 2 layers (h.0 to h.1)" $m
conf 's/"n_head": 2/"n_head": 5/'
expect "n_head divides n_embd" "error: $c: n_head 5 does not divide n_embd 32" $m
conf 's/"n_head": 2/"n_head": "2"/'
expect "n_head a string" "error: $c: key \"n_head\" is a string, not an integer" $m
conf 's/"n_head": 2/"n_head": 2.0/'
expect "n_head not an integer" "error: $c: key \"n_head\" is 2.0, not an integer" $m
conf 's/"n_head": 2/"n_head": 0/'
expect "n_head 0" "error: $c: n_head is 0, not positive" $m
conf 's/"gelu_new"/"relu"/'
expect "activation_function" "error: $c: activation_function \"relu\" is not supported (gelu_new and gelu_pytorch_tanh: the tanh GELU; gelu: the erf one)" $m
conf 's/1e-05/"1e-05"/'
expect "layer_norm_epsilon a string" "error: $c: key \"layer_norm_epsilon\" is a string, not a number" $m
conf 's/1e-05/-1e-05/'
expect "layer_norm_epsilon negative" "error: $c: layer_norm_epsilon is -1e-05, not in (0, 1)" $m
conf 's/"n_positions": 16/"n_positions": 16, "seq_len": 17/'
expect "seq_len above n_positions" "error: $c: seq_len 17 is above n_positions 16" $m
cp good.json $c
expect "--seq-len above n_positions" "error: --seq-len 17 is above n_positions 16 ($c)" --seq-len 17 $m
expect "--seq-len above n_positions (__metadata__)" "error: --seq-len 17 is above n_positions 16 (the __metadata__ of ours/model.safetensors)" --seq-len 17 ours/model.safetensors
expect "--config missing" "error: cannot open \"nothere.json\": No such file or directory" --config nothere.json $m
printf '{"n_layer": 2, "n_head": 2, "n_embd": 32, "vocab_size": 50}' >part.json
expect "--config without n_positions" "error: part.json has no \"n_positions\"" --config part.json ours/model.safetensors
# layer_norm_epsilon is honoured, gelu (erf) taken: other bytes
conf 's/1e-05/1e-06/'
"$prog" --no-reference --seq-len 8 $m eps.pte >/dev/null 2>&1 && ! cmp -s eps.pte ours/out.pte &&
  ok "layer_norm_epsilon 1e-06: other bytes" || bad "layer_norm_epsilon 1e-06: other bytes"
conf 's/"gelu_new"/"gelu"/'
"$prog" --no-reference --seq-len 8 $m erf.pte >/dev/null 2>&1 && ! cmp -s erf.pte ours/out.pte &&
  ok "gelu (erf): other bytes" || bad "gelu (erf): other bytes"
conf 's/"gelu_new"/"gelu_pytorch_tanh"/'
"$prog" --no-reference --seq-len 8 $m pt.pte >/dev/null 2>&1 && cmp -s pt.pte ours/out.pte &&
  ok "gelu_pytorch_tanh: the same bytes" || bad "gelu_pytorch_tanh: the same bytes"
# unexpected tensors: one warning line, converted all the same
grep -qxF "warning: extra/model.safetensors: 2 tensors not used: score.weight, h.0.attn.rotary" extra/err &&
  [ "$(wc -l <extra/err)" -eq 1 ] && ok "extra: one warning line" || { bad "extra: one warning line"; cat extra/err; }
echo "gpt2_layouts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
