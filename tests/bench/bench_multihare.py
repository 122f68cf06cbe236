#!/usr/bin/env python3
"""One four-direction Leaky LP layer of 10 units, forward and backward, on packed synthetic words:
the paper's own code (multi-hare, PyTorch, on the CPU) against ours (bench_grid2d: the grid
engine on examples/leaky-lp-2d-four-directions.rnn.json and the fixed mdlstm layer), side by
side in one run, alternating which side goes first per round, one thread each.

multi-hare is not part of this tree: extract it and apply tests/bench/multihare-cpu.patch
(tests/bench/run_multihare_bench.sh does both). Its layer is
MultiDimensionalLSTM.create_multi_dimensional_lstm_fully_parallel(compute_multi_directional=True,
use_leaky_lp_cells=True, use_example_packing=True): the four directions stacked on the channel
axis, its own packing (MDLSTMExamplesPacking) inside the forward pass. Both sides get the same
words (bench_grid2d --words-out) in the same batches, and the same stand-in output gradient as
bench_grid2d's fixed layer (out * 1e-3 + 1e-3). Times are CPU seconds of each process, packing
included on every side, as bench_grid2d counts them.

Usage: bench_multihare.py --multihare DIR [--grid2d BIN] [--words N] [--batch B] [--rounds R]
                          [--site DIR] [--out FILE.json] [--stack-columns]
--stack-columns is not the paper's code: it replaces the one hot spot of multi-hare on the CPU (the
activation columns concatenated one torch.cat at a time) by one torch.stack, for a second figure.
See docs/benchmarks.md.
"""
import argparse
import contextlib
import ctypes
import io
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import types


def read_words(path):
    """The ink bench_grid2d --words-out wrote: a list of (height, width, column-major floats)."""
    with open(path, "rb") as f:
        data = f.read()
    (count,), at, words = struct.unpack_from("<i", data, 0), 4, []
    for _ in range(count):
        h, w = struct.unpack_from("<ii", data, at)
        at += 8
        words.append((h, w, data[at:at + 4 * h * w]))
        at += 4 * h * w
    return words


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def run_ours(binary, words, batch, out_json, words_out=None):
    cmd = [binary, "--words", str(words), "--batch", str(batch), "--out", out_json]
    if words_out:
        cmd += ["--words-out", words_out]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--multihare", required=True, help="the patched multi-hare tree")
    ap.add_argument("--site", default=None, help="extra sys.path entry (sortedcontainers)")
    ap.add_argument("--grid2d", default="build/tests/bench/bench_grid2d")
    ap.add_argument("--words", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="bench_multihare.json")
    ap.add_argument("--stack-columns", action="store_true",
                    help="not the paper's code: replace its column-by-column torch.cat of the "
                    "activation columns (quadratic in the packed width) by one torch.stack")
    a = ap.parse_args()

    # As bench_grid2d (mallopt): freed buffers stay in the heap, so neither side pays page faults
    # again for its large short-lived tensors on every batch.
    libc = ctypes.CDLL(None)
    libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD
    libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    # multi-hare's util/image_visualization.py imports matplotlib and torchvision at module level
    # for plotting that this layer never calls; stand-in modules keep both out of the venv.
    for name in ("matplotlib", "matplotlib.pyplot", "torchvision"):
        sys.modules.setdefault(name, types.ModuleType(name))
    if a.site:
        sys.path.insert(0, a.site)
    sys.path.insert(0, a.multihare)
    from modules.multi_dimensional_lstm import MultiDimensionalLSTM
    if a.stack_columns:
        from util.image_input_transformer import ImageInputTransformer
        ImageInputTransformer.convert_activation_columns_list_to_tensor = staticmethod(
            lambda columns: torch.stack(columns, 3))

    torch.manual_seed(1)
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its initialisation at length
        layer = MultiDimensionalLSTM.create_multi_dimensional_lstm_fully_parallel(
            layer_index=0, input_channels=1, hidden_states_size=10,
            compute_multi_directional=True, clamp_gradients=False, use_dropout=False,
            use_example_packing=True, use_leaky_lp_cells=True)

    tmp = tempfile.mkdtemp(prefix="bench_multihare.")
    words_bin = os.path.join(tmp, "words.bin")
    load_before = os.getloadavg()
    up_before = uptime()

    tensors, batches = None, None

    def time_multihare():
        per_batch = []
        for b in batches:
            start = time.process_time()
            out = layer(b)
            grads = [o.detach() * 1e-3 + 1e-3 for o in out]  # bench_grid2d's stand-in gradient
            torch.autograd.backward(out, grads)
            per_batch.append(time.process_time() - start)
            layer.zero_grad(set_to_none=True)
        return per_batch

    rounds = []
    for r in range(a.rounds):
        ours_json = os.path.join(tmp, f"ours-{r}.json")
        first = "ours" if r % 2 == 0 else "multihare"
        if first == "ours":
            ours = run_ours(a.grid2d, a.words, a.batch, ours_json, words_bin if r == 0 else None)
            if tensors is None:
                words = read_words(words_bin)
                # FeatureMap is column by column: (width, height) row-major, then transposed.
                tensors = [torch.frombuffer(bytearray(d), dtype=torch.float32)
                           .view(w, h).t().contiguous().unsqueeze(0) for h, w, d in words]
                batches = [tensors[i:i + a.batch] for i in range(0, len(tensors), a.batch)]
            mh = time_multihare()
        else:
            mh = time_multihare()
            ours = run_ours(a.grid2d, a.words, a.batch, ours_json)
        rounds.append({"first": first, "multihare": mh,
                       "grid": [x["grid"] for x in ours["batches"]],
                       "fixed": [x["fixed"] for x in ours["batches"]],
                       "load_ours": [ours["load_before"], ours["load_after"]]})
        t = {k: sum(rounds[-1][k]) for k in ("multihare", "grid", "fixed")}
        print(f"round {r} ({first} first): multi-hare {t['multihare']:.2f} s, grid "
              f"{t['grid']:.2f} s, fixed {t['fixed']:.2f} s; multi-hare / grid "
              f"{t['multihare'] / t['grid']:.1f}x, multi-hare / fixed "
              f"{t['multihare'] / t['fixed']:.1f}x", flush=True)

    up_after = uptime()
    load_after = os.getloadavg()
    pixels = sum(t.size(1) * t.size(2) for t in tensors)
    totals = {k: [sum(x[k]) for x in rounds] for k in ("multihare", "grid", "fixed")}
    med = {k: statistics.median(v) for k, v in totals.items()}
    # A cell: one pixel of one direction (10 units); the layer has four per pixel.
    ns_per_cell = {k: 1e9 * v / (4 * pixels) for k, v in med.items()}
    # Each round starts bench_grid2d afresh, so its first batch carries the process's warm-up
    # (page faults, the grid engine's first gathers) while multi-hare's process stays warm after
    # round 0: the same figures without the first batch of every round, on both sides.
    warm = {k: [sum(x[k][1:]) for x in rounds] for k in ("multihare", "grid", "fixed")}
    warm_pixels = sum(t.size(1) * t.size(2) for t in tensors[a.batch:])
    warm_med = {k: statistics.median(v) for k, v in warm.items()} if warm_pixels else None
    summary = {
        "words": a.words, "batch": a.batch, "rounds": a.rounds, "pixels": pixels,
        "cells": 4 * pixels, "torch": torch.__version__, "threads": 1,
        "stack_columns": a.stack_columns,
        "uptime_before": up_before, "uptime_after": up_after,
        "load_before": load_before[0], "load_after": load_after[0],
        "products": ours.get("products"),
        "median_seconds": med, "ns_per_cell": ns_per_cell,
        "multihare_over_grid": med["multihare"] / med["grid"],
        "multihare_over_fixed": med["multihare"] / med["fixed"],
        "per_round_multihare_over_grid": [m / g for m, g in zip(totals["multihare"],
                                                                 totals["grid"])],
        "per_round_multihare_over_fixed": [m / f for m, f in zip(totals["multihare"],
                                                                  totals["fixed"])],
        "without_first_batch": warm_med and {
            "pixels": warm_pixels, "median_seconds": warm_med,
            "ns_per_cell": {k: 1e9 * v / (4 * warm_pixels) for k, v in warm_med.items()},
            "multihare_over_grid": warm_med["multihare"] / warm_med["grid"],
            "multihare_over_fixed": warm_med["multihare"] / warm_med["fixed"],
            "per_round_multihare_over_grid": [m / g for m, g in zip(warm["multihare"],
                                                                     warm["grid"])]},
        "rounds_detail": rounds,
    }
    with open(a.out, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(f"{a.words} words ({pixels} pixels, {4 * pixels} cells), batches of {a.batch}, "
          f"{a.rounds} rounds, one thread each; median CPU s per round: multi-hare "
          f"{med['multihare']:.2f}, grid {med['grid']:.2f}, fixed {med['fixed']:.2f}")
    print("ns per cell (one pixel, one direction, 10 units): " +
          ", ".join(f"{k} {v:.0f}" for k, v in ns_per_cell.items()))
    print(f"multi-hare / grid {summary['multihare_over_grid']:.1f}x, multi-hare / fixed "
          f"{summary['multihare_over_fixed']:.1f}x")
    if warm_med:
        w = summary["without_first_batch"]
        print(f"without each round's first batch ({warm_pixels} pixels): multi-hare / grid "
              f"{w['multihare_over_grid']:.1f}x, multi-hare / fixed "
              f"{w['multihare_over_fixed']:.1f}x; ns per cell: " +
              ", ".join(f"{k} {v:.0f}" for k, v in w["ns_per_cell"].items()))
    print(f"uptime before: {up_before}\nuptime after:  {up_after}")


if __name__ == "__main__":
    main()
