#!/usr/bin/python3
"""Writes tests/data/quant_vectors.h: reference int8 values and scale bytes for
tp_quantize_symmetric, computed by PyTorch.

Run:  /usr/bin/python3 tests/gen_quant_vectors.py > tests/data/quant_vectors.h
Needs Debian's python3-torch (1.13) and python3-numpy; CI only compiles the header it wrote.

torchao (which ExecuTorch pins as third-party/ao) does not install here, so the two weight
paths are restated below with torch ops, in the sources' op order and dtypes:

  bits 8: ExecuTorch backends/xnnpack/quantizer/xnnpack_quantizer.py,
          get_symmetric_quantization_config(is_per_channel=True): weight qint8, quant_min -127,
          quant_max 127, torch.per_channel_symmetric, ch_axis 0, PerChannelMinMaxObserver with
          eps 2**-12; the observer is torchao/quantization/pt2e/observer.py
          (PerChannelMinMaxObserver._forward, UniformQuantizationObserverBase._calculate_qparams),
          the quantize op quantized_decomposed.quantize_per_channel (pytorch
          torch/ao/quantization/fx/_decomposed.py). Cross-checked against torch 1.13's own
          torch.ao.quantization.observer.PerChannelMinMaxObserver (same formula).
  bits 4: torchao/quantization/linear_quant_modules.py Int8DynActInt4WeightQuantizer
          (weight.to(precision = float32)) -> torchao/quantization/utils.py
          group_quantize_tensor_symmetric / get_group_qparams_symmetric -> quant_primitives.py
          choose_qparams_affine / _choose_qparams_affine (SYMMETRIC, eps = finfo(f32)
          .smallest_normal, scale_dtype = scales_precision) and _get_reduction_params, then
          quantized_decomposed.quantize_per_channel_group (to_quant.mul(1.0 / scales)
          .add(zero_points).round().clamp_(quant_min, quant_max).to(int8)).
"""
import sys

import numpy as np
import torch

torch.manual_seed(24)
np.random.seed(24)

OUT, IN = 12, 64


def weights_main():
    w = torch.empty(OUT, IN, dtype=torch.float32)
    w[0] = torch.randn(IN) * 0.02
    w[1] = torch.randn(IN)
    w[2] = torch.randn(IN) * 100.0
    w[3] = torch.rand(IN) * 3.0  # all positive
    w[4] = -torch.rand(IN) * 0.5  # all negative
    w[5] = 0.0
    w[5, 17] = -0.75  # one non-zero element
    w[6] = 0.0  # a zero row
    # ties for 4 bits: every group of 32 (and the row) has max |w| 7.5 -> scale 1, w * 1 = k + .5
    t4 = torch.arange(-7.5, 8.0, 0.5)
    w[7, :32] = t4[torch.randint(0, t4.numel(), (32,))]
    w[7, 32:] = t4[torch.randint(0, t4.numel(), (32,))]
    w[7, 0], w[7, 1], w[7, 32], w[7, 33] = 7.5, -7.5, -7.5, 7.5
    # ties for 8 bits: max |w| 127 -> scale 1; values k + .5 and k
    t8 = torch.arange(-127.0, 127.5, 0.5)
    w[8] = t8[torch.randint(0, t8.numel(), (IN,))]
    w[8, 5], w[8, 6] = 127.0, -126.5
    # tiny: subnormal and near the smallest normal
    w[9] = torch.randn(IN) * 1e-39
    w[9, 3] = 1.4e-45
    w[9, 40] = -2e-38
    # huge
    w[10] = torch.randn(IN) * 1e37
    w[10, 7] = 3.3e38
    w[10, 50] = -3.0e38
    w[11] = torch.randn(IN) * 5.0
    w[11, ::7] = -0.0
    return w


def weights_f16safe():
    """Rows whose scales an f16 scale holds (and an f16 weight too): no zero, tiny or huge rows."""
    w = torch.empty(OUT, IN, dtype=torch.float32)
    for r in range(OUT):
        w[r] = torch.randn(IN) * float([0.02, 1.0, 30.0, 0.3][r % 4])
    w[3] = torch.arange(-7.5, 8.0, 0.5).repeat(3)[:IN]  # ties for 4 bits
    w[5] = torch.arange(-127.0, 127.5, 0.5)[::4][:IN]
    w[5, 0] = 127.0  # ties for 8 bits
    w[7] = w[7].abs()
    w[9] = -w[9].abs()
    return w


def xnnpack_per_channel_int8(w):
    """ExecuTorch XNNPACKQuantizer's per-channel weight: observer then quantize_per_channel."""
    quant_min, quant_max = -127, 127
    eps = torch.tensor([2**-12], dtype=torch.float32)  # observer buffer: torch.tensor([eps])
    # PerChannelMinMaxObserver._forward (ch_axis 0)
    y = w.detach().permute([0, 1]).to(torch.float32)
    y = torch.flatten(y, start_dim=1)
    min_val, max_val = torch.aminmax(y, dim=1)
    # _calculate_qparams, per_channel_symmetric
    min_val_neg = torch.min(min_val, torch.zeros_like(min_val))
    max_val_pos = torch.max(max_val, torch.zeros_like(max_val))
    max_val_pos = torch.max(-min_val_neg, max_val_pos)
    scale = max_val_pos / (float(quant_max - quant_min) / 2)
    scale = torch.max(scale, eps)
    zero_point = torch.zeros(min_val_neg.size(), dtype=torch.int64)
    # quantized_decomposed.quantize_per_channel (axis 0)
    x = w.to(torch.float32)
    s = scale.view([scale.shape[0], 1])
    zp = zero_point.view([scale.shape[0], 1])
    res = torch.clamp(torch.round(x * (1.0 / s)) + zp, quant_min, quant_max)
    q = res.to(torch.int8)
    # cross-check: torch's own observer class
    obs = torch.ao.quantization.observer.PerChannelMinMaxObserver(
        ch_axis=0, dtype=torch.qint8, qscheme=torch.per_channel_symmetric,
        quant_min=quant_min, quant_max=quant_max, eps=2**-12)
    obs(w.to(torch.float32))
    s_ref, zp_ref = obs.calculate_qparams()
    assert torch.equal(s_ref.to(torch.float32), scale), "observer scale differs"
    assert int(zp_ref.abs().max()) == 0
    return q, scale


def torchao_8da4w(w, group_size, scales_precision):
    """torchao group_quantize_tensor_symmetric(w.to(float32), 4, group_size, scales_precision)."""
    w = w.to(torch.float32)  # Int8DynActInt4WeightQuantizer: weight.to(self.precision)
    n_bit = 4
    if group_size > w.shape[-1]:
        group_size = w.shape[-1]
    quant_min, quant_max = -(2 ** (n_bit - 1)), 2 ** (n_bit - 1) - 1
    eps = torch.finfo(w.dtype).smallest_normal
    block_size = (1, group_size)
    # _get_reduction_params
    shape_for_reduction, reduction_dims, cur_dim = [], [], 0
    for i in range(len(block_size)):
        if block_size[i] != w.shape[i] and block_size[i] > 1:
            shape_for_reduction += [w.shape[i] // block_size[i], block_size[i]]
            reduction_dims.append(cur_dim + 1)
            cur_dim += 2
        else:
            shape_for_reduction.append(w.shape[i])
            if block_size[i] != 1:
                reduction_dims.append(cur_dim)
            cur_dim += 1
    inp = w.view(shape_for_reduction)
    min_val = torch.amin(inp, dim=reduction_dims, keepdim=False)
    max_val = torch.amax(inp, dim=reduction_dims, keepdim=False)
    min_val_neg = torch.min(min_val, torch.zeros_like(min_val))
    max_val_pos = torch.max(max_val, torch.zeros_like(max_val))
    max_val_pos = torch.max(-min_val_neg, max_val_pos)
    scale = max_val_pos / (float(quant_max - quant_min) / 2)
    zero_point = torch.full_like(scale, int((quant_max + quant_min + 1) / 2))
    scale = torch.clamp(scale, min=eps)
    scale = scale.to(dtype=scales_precision)
    zero_point = zero_point.to(dtype=scales_precision)
    scales = scale.reshape(w.shape[0], -1)
    zeros = zero_point.reshape(w.shape[0], -1)
    # quantized_decomposed.quantize_per_channel_group(w, scales, zeros, -8, 7, int8, group_size)
    to_quant = w.reshape(-1, group_size)
    assert torch.isnan(to_quant).sum() == 0
    sc = scales.reshape(-1, 1)
    zp = zeros.reshape(-1, 1)
    q = (to_quant.mul(1.0 / sc).add(zp).round().clamp_(quant_min, quant_max)
         .to(torch.int8).reshape_as(w))
    # what tp_quantize_symmetric refuses: PyTorch's own inf / NaN (an f16 scale that is 0 or
    # inf, or whose f16 reciprocal is inf)
    refused = not bool(torch.isfinite(sc.to(torch.float32)).all() and
                       (sc.to(torch.float32) != 0).all() and
                       torch.isfinite((1.0 / sc).to(torch.float32)).all())
    return q, scales, refused


DT = {torch.float32: ("TP_F32", "uint32_t", 4), torch.float16: ("TP_F16", "uint16_t", 2),
      torch.bfloat16: ("TP_BF16", "uint16_t", 2)}


def host_words(t):
    """Element bit patterns as integers (host order: the C side views them as the dtype)."""
    t = t.contiguous()
    if t.dtype == torch.float32:
        return t.view(torch.int32).numpy().astype(np.uint32).flatten().tolist()
    return t.view(torch.int16).numpy().astype(np.uint16).flatten().tolist()


def emit_array(out, ctype, name, vals, fmt):
    out.append("static const %s %s[%d] = {" % (ctype, name, max(len(vals), 1)))
    line = "   "
    for v in vals or [0]:
        item = " " + (fmt % v) + ","
        if len(line) + len(item) > 98:
            out.append(line)
            line = "   "
        line += item
    out.append(line)
    out.append("};")


def main():
    lines = ["/* tests/data/quant_vectors.h - written by tests/gen_quant_vectors.py with torch %s;"
             % torch.__version__,
             "   do not edit. Reference int8 values and scale bits of the PyTorch quantizers",
             "   (see the script) for tp_quantize_symmetric; weights and scales are element bit",
             "   patterns (host order). */",
             "#ifndef TQV_QUANT_VECTORS_H", "#define TQV_QUANT_VECTORS_H", "#include <stdint.h>",
             "", "#define TQV_OUT %d" % OUT, "#define TQV_IN %d" % IN, ""]
    sets = {"main": weights_main(), "safe": weights_f16safe()}
    wnames = {}
    for sname, w32 in sets.items():
        for wdt in (torch.float32, torch.bfloat16, torch.float16):
            if sname == "main" and wdt == torch.float16:
                w = w32.clamp(-60000.0, 60000.0).to(wdt)  # f16 holds no huge row
            else:
                w = w32.to(wdt)
            assert bool(torch.isfinite(w.to(torch.float32)).all())
            n = "tqv_w_%s_%s" % (sname, DT[wdt][0][3:].lower())
            emit_array(lines, DT[wdt][1], n, host_words(w), "0x%x")
            wnames[(sname, wdt)] = (n, w)
    cases = []
    k = 0
    for sname in ("main", "safe"):
        for wdt in (torch.float32, torch.bfloat16, torch.float16):
            wn, w = wnames[(sname, wdt)]
            for bits, gs in ((8, 0), (4, 32), (4, 16), (4, 0)):
                for sdt in (torch.float32, torch.bfloat16, torch.float16):
                    if bits == 8:
                        q, s32 = xnnpack_per_channel_int8(w)
                        s = s32.to(sdt)
                        refused = not bool(torch.isfinite(s.to(torch.float32)).all())
                    else:
                        q, s, refused = torchao_8da4w(w, gs if gs else IN, sdt)
                    qn, sn = "tqv_q%d" % k, "tqv_s%d" % k
                    if not refused:
                        emit_array(lines, "int8_t", qn, q.flatten().tolist(), "%d")
                        emit_array(lines, DT[sdt][1], sn, host_words(s.flatten()), "0x%x")
                    cases.append("  {\"%s %s %d-bit g%d %s\", %s, %s, %d, %d, %s, %d, %s, %s}," % (
                        sname, DT[wdt][0][3:].lower(), bits, gs, DT[sdt][0][3:].lower(),
                        DT[wdt][0], wn, bits, gs, DT[sdt][0], int(refused),
                        "NULL" if refused else qn, "NULL" if refused else sn))
                    k += 1
    lines += ["", "typedef struct tqv_case {",
              "  const char *name;",
              "  int wdtype;       /* tp_dtype of the weight */",
              "  const void *w;    /* TQV_OUT x TQV_IN elements, row-major */",
              "  int bits;",
              "  int group_size;   /* 0: per channel */",
              "  int sdtype;       /* tp_dtype of the scales */",
              "  int refused;      /* 1: PyTorch gives inf / NaN here; tensorpack refuses it */",
              "  const int8_t *q;  /* expected values */",
              "  const void *s;    /* expected scales (row-major [out, groups]) */",
              "} tqv_case;", "",
              "static const tqv_case tqv_cases[] = {"] + cases + ["};", "", "#endif", ""]
    sys.stdout.write("\n".join(lines))


main()
