"""bench_peers.py: torch's Tensor.copy_ and numpy's copyto on the cases of bench_compact.c.

    python3 bench/bench_peers.py --case NAME [--runs N]

prints one line "torch SECONDS numpy SECONDS" (medians over N rounds of thread CPU time, each
copy into a preallocated contiguous destination, single thread; a peer that is missing prints
"-"), or "none: REASON" when neither can be imported. bench_compact runs it per row (its
--peers option), so the peers run on the same case in the same minute as tensorpack. The views
are the C driver's: the same shapes and strides over a buffer of the same size, out-of-cache
rows after 64 MiB of other writes, in-cache rows after one untimed run. bf16 is numpy's uint16
(the same bytes; numpy has no bf16).
"""
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - depends on the machine
    np = None
try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

CAP_ELEMS_F32 = 64 * 256 * 56 * 56 + 1024  # the C driver's g_cap of bytes / 4 (+4096 bytes)
JUNK = 64 << 20


def cases():
    """name -> (dtype name, list of (offset elements, sizes, strides)), warm."""
    def t2(n, m):  # transpose of a contiguous n x m: sizes (m, n), strides (1, m)
        return [(0, (m, n), (1, m))]
    c = {}
    c["same, forced copy (tp_compact_into)"] = ("f32", [(1000, (16 << 20,), (1,))], False)
    c["f32 transpose 4096x4096 (64 MiB)"] = ("f32", t2(4096, 4096), False)
    c["f32 transpose 1024x1024 (4 MiB, in cache)"] = ("f32", t2(1024, 1024), True)
    c["f32 transpose 1000x1000 (in cache, no aliasing)"] = ("f32", t2(1000, 1000), True)
    c["bf16 transpose 4096x4096 (32 MiB)"] = ("bf16", t2(4096, 4096), False)
    c["bf16 transpose 2048x2048 (8 MiB, in cache)"] = ("bf16", t2(2048, 2048), True)
    c["u8 transpose 4096x4096 (16 MiB)"] = ("u8", t2(4096, 4096), False)
    c["i64 transpose 2048x2048 (32 MiB)"] = ("i64", t2(2048, 2048), False)
    c["f32 NCHW->NHWC 64x256x56x56 (196 MiB)"] = (
        "f32", [(0, (64, 56, 56, 256), (256 * 56 * 56, 56, 1, 56 * 56))], False)
    c["f32 every other row of 8192x1024"] = ("f32", [(0, (4096, 1024), (2048, 1))], False)
    c["f32 every other row of 32768x1024 (beyond the LLC)"] = (
        "f32", [(0, (16384, 1024), (2048, 1))], False)
    c["f32 columns [:, 100:612] of 4096x4096"] = ("f32", [(100, (4096, 512), (4096, 1))], False)
    c["same columns, in cache"] = ("f32", [(100, (4096, 512), (4096, 1))], True)
    c["f32 channels_last [:, :, 1:-1, 1:-1] -> NCHW"] = (
        "f32", [(64 * 56 + 64, (32, 64, 54, 54), (64 * 56 * 56, 1, 56 * 64, 64))], False)
    c["1000 separate f32 64x64 transposes"] = (
        "f32", [(i * 4096, (64, 64), (1, 64)) for i in range(1000)], False)
    return c


def main():
    args = sys.argv[1:]
    name, runs = None, 15
    i = 0
    while i < len(args):
        if args[i] == "--case" and i + 1 < len(args):
            name = args[i + 1]
            i += 1
        elif args[i] == "--runs" and i + 1 < len(args):
            runs = max(1, int(args[i + 1]))
            i += 1
        i += 1
    if np is None and torch is None:
        print("none: neither numpy nor torch can be imported by %s" % sys.executable)
        return
    table = cases()
    if name not in table:
        print("none: no such case in bench_peers.py: %r" % name)
        return
    dt, views, warm = table[name]
    if np is None:
        print("none: numpy (needed for the shared buffer) cannot be imported")
        return
    raw = np.zeros(CAP_ELEMS_F32 * 4, dtype=np.uint8)
    raw[::4096] = 1  # touch every page, as the C driver does
    junk = np.zeros(JUNK, dtype=np.uint8)
    npdt = {"f32": np.float32, "bf16": np.uint16, "u8": np.uint8, "i64": np.int64}[dt]
    src = raw.view(npdt)
    es = src.itemsize
    nviews = [np.lib.stride_tricks.as_strided(src[off:], shape=sz,
                                              strides=tuple(s * es for s in st))
              for off, sz, st in views]
    each = int(np.prod(views[0][1]))
    dst_flat = np.empty(each * len(views), dtype=npdt)
    ndst = [dst_flat[k * each:(k + 1) * each].reshape(views[k][1]) for k in range(len(views))]
    tviews = tdst = None
    if torch is not None:
        torch.set_num_threads(1)
        traw = torch.from_numpy(raw)
        tdt = {"f32": torch.float32, "bf16": torch.bfloat16, "u8": torch.uint8,
               "i64": torch.int64}[dt]
        tsrc = traw.view(tdt)
        tviews = [torch.as_strided(tsrc, sz, st, off) for off, sz, st in views]
        tdst_flat = torch.empty(each * len(views), dtype=tdt)
        tdst = [tdst_flat[k * each:(k + 1) * each].view(views[k][1]) for k in range(len(views))]

    def run_np():
        for d, v in zip(ndst, nviews):
            np.copyto(d, v)

    def run_torch():
        for d, v in zip(tdst, tviews):
            d.copy_(v)

    def timed(fn):
        out = []
        for r in range(-1, runs):
            if warm:
                fn()
            else:
                junk[:] = r & 0xFF
            t0 = time.thread_time()
            fn()
            t = time.thread_time() - t0
            if r >= 0:
                out.append(t)
        out.sort()
        n = len(out)
        return out[n // 2] if n % 2 else 0.5 * (out[n // 2 - 1] + out[n // 2])

    t_t = timed(run_torch) if torch is not None else None
    t_n = timed(run_np)
    if torch is not None and not np.array_equal(tdst_flat.view(torch.uint8).numpy(),
                                                dst_flat.view(np.uint8)):
        print("none: torch and numpy copies differ on %r" % name)
        return
    print("torch %s numpy %s" % ("-" if t_t is None else "%.9f" % t_t, "%.9f" % t_n))


if __name__ == "__main__":
    main()
