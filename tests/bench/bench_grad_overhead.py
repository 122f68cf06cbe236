#!/usr/bin/python3
"""Per-call overhead of rnnwb.Graph.grad against the engine's own time of the same call
(docs/benchmarks.md, issue 25).

Each call of graph.grad(weights, data) is timed from Python (dicts of NumPy arrays read, the GIL
released, the gradients handed back as arrays); the binding times the engine's forward and
backward inside that same call (Graph._core._last_engine_seconds). The call's overhead is the
rest: reading the arrays, zeroing the gradients, the checks, the arrays handed back, Python's
own call. Measuring both in the same call takes the machine's noise out of the ratio (an
earlier version compared with build/tests/bench/bench_grad_call in another process: medians
from -27 % to +141 % on this shared machine). The figures: the median over calls of
(call / engine - 1), its 10th-90th percentiles, and the median microseconds on both sides.
One thread. Usage: PYTHONPATH=build/python python3 tests/bench/bench_grad_overhead.py
       [--calls C] [--out FILE.jsonl]
"""
import argparse
import json
import os
import statistics
import time

import numpy as np

import rnnwb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cases():
    """(label, graph, data): small graphs and the tour's sizes."""
    rng = np.random.default_rng(0)
    elman = rnnwb.Graph.load(os.path.join(ROOT, "examples", "elman.rnn.json"))
    peephole = rnnwb.Graph.load(os.path.join(ROOT, "examples", "lstm-peephole.rnn.json"))
    leaky = rnnwb.Graph.load(os.path.join(ROOT, "examples", "leaky-lp-2d.rnn.json"))
    out = []
    for label, g, frames, streams in (("elman T50 N4", elman, 50, 4),
                                      ("lstm-peephole T50 N4", peephole, 50, 4),
                                      ("elman T50 N32", elman, 50, 32),
                                      ("lstm-peephole T50 N32", peephole, 50, 32)):
        size = g.layers[0].size
        out_size = next(l.size for l in g.layers if l.loss != "none")
        out.append((label, g, {"input": rng.uniform(-1, 1, (frames, streams, size))
                               .astype(np.float32),
                               "target": rng.integers(0, out_size, (frames, streams))}))
    examples = {}
    for k in range(8):  # 8 images of 8 x 16 with 8 labels each
        examples[f"input.{k}"] = rng.uniform(-1, 1, (8, 16, 1)).astype(np.float32)
        examples[f"target.{k}"] = rng.integers(1, 5, 8)
    out.append(("leaky-lp-2d 8 examples 8x16", leaky, examples))
    big = rnnwb.Graph.load(os.path.join(ROOT, "examples", "lstm-peephole.rnn.json"))
    for layer in big.layers:  # bench_engine's sizes: I128 H256 O128
        big.set_layer(layer.id, size=128 if layer.kind == "input" or layer.loss != "none"
                      else 256)
    out.append(("lstm-peephole I128 H256 T64 N32", big,
                {"input": rng.uniform(-1, 1, (64, 32, 128)).astype(np.float32),
                 "target": rng.integers(0, 128, (64, 32))}))
    return out


def measure(label, g, data, calls):
    weights = g.init(1)
    for _ in range(5):  # warm-up: the engine, its buffers, the weight keys
        g.grad(weights, data)
    call_s, engine_s, overheads = [], [], []
    for _ in range(calls):
        start = time.perf_counter()
        g.grad(weights, data)
        seconds = time.perf_counter() - start
        engine = g._core._last_engine_seconds
        call_s.append(seconds)
        engine_s.append(engine)
        overheads.append(seconds / engine - 1)
    overheads.sort()
    return {"graph": label, "calls": calls,
            "call_us": statistics.median(call_s) * 1e6,
            "engine_us": statistics.median(engine_s) * 1e6,
            "overhead_us": statistics.median(c - e for c, e in zip(call_s, engine_s)) * 1e6,
            "overhead": statistics.median(overheads),
            "overhead_p10_p90": [overheads[len(overheads) // 10],
                                 overheads[len(overheads) * 9 // 10]],
            "load": os.getloadavg(), "numpy": np.__version__}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000,
                        help="calls per graph (a twentieth of them on the largest)")
    parser.add_argument("--out", help="also append each result line to this file")
    args = parser.parse_args()
    rnnwb.set_threads(1)
    for label, g, data in cases():
        calls = args.calls // 20 if "H256" in label else args.calls
        line = json.dumps(measure(label, g, data, max(calls, 10)))
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as out:
                out.write(line + "\n")


if __name__ == "__main__":
    main()
