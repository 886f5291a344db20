#!/usr/bin/env python3
"""gpt2_reference.py - GPT-2's forward in PyTorch (float64), from a safetensors checkpoint.

The independent reference for examples/09_gpt2_program.c (issue 22): the same checkpoint and
configuration rules as the example (--config FILE, else config.json beside the model, else the
checkpoint's __metadata__; T from --seq-len, else seq_len, else n_positions; names with or
without "transformer."; the Hub's mask buffers ignored; lm_head.weight used when present, else
the head is tied to wte), then the model written out with torch ops:

    x = wte[tokens] + wpe[0:T]
    per layer: x = x + c_proj(causal_attention(layer_norm(x)))
               x = x + c_proj(gelu(c_fc(layer_norm(x))))      gelu: tanh or erf, per config
    logits = layer_norm(x) head^T

Usage:
  gpt2_reference.py [--config FILE] [--seq-len T] [--tokens 1,5,...] MODEL.safetensors
      prints the logits [1, T, V], one row of V values per position
  ... --check OUT.expected [--rtol R]     compares with the example's C reference (its
      "output 0 N v..." line): |c - torch| <= R * (1 + |torch|) for every logit (R 1e-6)
  ... --check-bin OUT.bin [--rtol R]      the same for raw float32 logits (executor_runner's
      --output_file; R 1e-4)
Several runs in one process (torch loads once): ARGS + ARGS + ...
The tokens default to 1 at every position (executor_runner's all-ones input). Exit status 1
when a check fails. Needs torch (Debian: python3-torch); reads the file with the standard
library (json, struct).
"""
import argparse
import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F


def read_safetensors(path):
    """name -> float64 tensor (F32 tensors only; others are skipped), and __metadata__."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = memoryview(blob)[8 + n:]
    meta = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            continue
        b, e = info["data_offsets"]
        flat = torch.frombuffer(bytearray(data[b:e]), dtype=torch.float32) if e > b else \
            torch.zeros(0, dtype=torch.float32)
        if sys.byteorder != "little":
            flat = flat.view(torch.int32).byteswap().view(torch.float32)  # pragma: no cover
        tensors[name] = flat.reshape(info["shape"]).to(torch.float64)
    return tensors, meta


def load_config(model, config_path, meta):
    if config_path is None:
        beside = os.path.join(os.path.dirname(model) or ".", "config.json")
        if os.path.exists(beside):
            config_path = beside
    if config_path is not None:
        with open(config_path) as f:
            return json.load(f)
    cfg = {}
    for k, v in meta.items():  # __metadata__ holds strings
        try:
            cfg[k] = int(v)
        except ValueError:
            try:
                cfg[k] = float(v)
            except ValueError:
                cfg[k] = v
    return cfg


def forward(t, cfg, tokens, prefix):
    L, H, E = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    eps = float(cfg.get("layer_norm_epsilon", 1e-5))
    act = cfg.get("activation_function", "gelu_new")
    approx = {"gelu_new": "tanh", "gelu_pytorch_tanh": "tanh", "gelu": "none"}[act]
    T, D = len(tokens), E // H

    def w(name):
        return t[prefix + name]

    ids = torch.tensor(tokens, dtype=torch.long)
    x = F.embedding(ids, w("wte.weight")) + w("wpe.weight")[:T]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(L):
        p = "h.%d." % i
        h = F.layer_norm(x, (E,), w(p + "ln_1.weight"), w(p + "ln_1.bias"), eps)
        qkv = torch.addmm(w(p + "attn.c_attn.bias"), h, w(p + "attn.c_attn.weight"))  # Conv1D
        q, k, v = (z.reshape(T, H, D).transpose(0, 1) for z in qkv.split(E, dim=1))
        s = q @ k.transpose(1, 2) / math.sqrt(D)
        s = s.masked_fill(~causal, float("-inf"))
        a = (torch.softmax(s, dim=-1) @ v).transpose(0, 1).reshape(T, E)
        x = x + torch.addmm(w(p + "attn.c_proj.bias"), a, w(p + "attn.c_proj.weight"))
        h = F.layer_norm(x, (E,), w(p + "ln_2.weight"), w(p + "ln_2.bias"), eps)
        m = F.gelu(torch.addmm(w(p + "mlp.c_fc.bias"), h, w(p + "mlp.c_fc.weight")),
                   approximate=approx)
        x = x + torch.addmm(w(p + "mlp.c_proj.bias"), m, w(p + "mlp.c_proj.weight"))
    x = F.layer_norm(x, (E,), w("ln_f.weight"), w("ln_f.bias"), eps)
    head = t.get("lm_head.weight", t.get(prefix + "lm_head.weight", w("wte.weight")))
    return x @ head.t()  # [T, V]


def compare(got, ref, rtol, what):
    got = got.reshape(-1).to(torch.float64)
    ref = ref.reshape(-1)
    if got.numel() != ref.numel():
        print("%s: %d values, PyTorch has %d" % (what, got.numel(), ref.numel()))
        return False
    err = (got - ref).abs()
    bad = int((err > rtol * (1 + ref.abs())).sum())
    scale = float(ref.abs().max())
    print("%s: %d logits (largest |logit| %.3g), max abs error %.3g = %.3g of the largest "
          "(tolerance %g x (1 + |ref|)), %d beyond" % (what, ref.numel(), scale,
                                                      float(err.max()),
                                                      float(err.max()) / max(scale, 1e-300),
                                                      rtol, bad))
    return bad == 0


def run(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--config")
    ap.add_argument("--seq-len", type=int)
    ap.add_argument("--tokens")
    ap.add_argument("--check")
    ap.add_argument("--check-bin")
    ap.add_argument("--rtol", type=float)
    a = ap.parse_args(argv)
    t, meta = read_safetensors(a.model)
    cfg = load_config(a.model, a.config, meta)
    prefix = "transformer." if "wte.weight" not in t and "transformer.wte.weight" in t else ""
    T = a.seq_len or cfg.get("seq_len") or cfg["n_positions"]
    tokens = [int(v) for v in a.tokens.split(",")] if a.tokens else [1] * T
    with torch.no_grad():
        logits = forward(t, cfg, tokens, prefix)
    ok = True
    if a.check:
        with open(a.check) as f:
            line = next(l for l in f if l.startswith("output 0 "))
        vals = torch.tensor([float(v) for v in line.split()[3:]], dtype=torch.float64)
        ok = compare(vals, logits, a.rtol or 1e-6, a.check) and ok
    if a.check_bin:
        with open(a.check_bin, "rb") as f:
            raw = f.read()
        vals = torch.frombuffer(bytearray(raw), dtype=torch.float32)
        ok = compare(vals, logits, a.rtol or 1e-4, a.check_bin) and ok
    if not a.check and not a.check_bin:
        V = logits.shape[1]
        print("logits [1, %d, %d]" % (len(tokens), V))
        for row in logits:
            print(" ".join("%.17g" % float(v) for v in row))
    return ok


def main():
    groups, cur = [], []
    for v in sys.argv[1:]:
        if v == "+":
            groups.append(cur)
            cur = []
        else:
            cur.append(v)
    groups.append(cur)
    ok = True
    for g in groups:
        ok = run(g) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
