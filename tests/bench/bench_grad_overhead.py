#!/usr/bin/python3
"""Per-call overhead of rnnwb.Graph.grad against the engine's own time of the same call
(docs/benchmarks.md, issue 25).

For each graph, the weights and data are written once as safetensors files; then rounds
alternate: --calls calls of graph.grad(weights, data) in this process (dicts of NumPy arrays
converted, the GIL released, gradients handed back as arrays), and build/tests/bench/
bench_grad_call on the same files (the engine's forward + backward alone, into zeroed gradients,
the files read once). Each round keeps both medians; the overhead is Python's median over the
engine's, minus 1, and the figure the median of the rounds'; the best call of all rounds on
each side gives a second figure, less disturbed by a loaded machine. One thread on both sides.
Usage: PYTHONPATH=build/python python3 tests/bench/bench_grad_overhead.py [--build build]
       [--rounds R] [--calls C]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
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
                                      ("lstm-peephole T50 N4", peephole, 50, 4)):
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


def python_times(g, weights, data, calls):
    """(median, best) seconds of a graph.grad call."""
    g.grad(weights, data)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        g.grad(weights, data)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    rnnwb.set_threads(1)
    bench = os.path.join(args.build, "tests", "bench", "bench_grad_call")
    tmp = tempfile.mkdtemp()
    for label, g, data in cases():
        weights = g.init(1)
        path = os.path.join(tmp, "g.rnn.json")
        g.save(path)
        rnnwb.save_safetensors(os.path.join(tmp, "w.safetensors"), weights)
        rnnwb.save_safetensors(os.path.join(tmp, "d.safetensors"), data)
        overheads, py, cpp, py_best, cpp_best = [], [], [], [], []
        for r in range(args.rounds):
            engine = json.loads(subprocess.run(
                [bench, path, os.path.join(tmp, "w.safetensors"), os.path.join(tmp, "d.safetensors"),
                 "--repeat", str(args.calls), "--threads", "1"],
                check=True, capture_output=True, text=True).stdout)
            mine, best = python_times(g, weights, data, args.calls)
            py.append(mine)
            py_best.append(best)
            cpp.append(engine["median_s"])
            cpp_best.append(engine["best_s"])
            overheads.append(mine / engine["median_s"] - 1)
        # The best calls of all rounds are the least disturbed by other work on the machine.
        print(json.dumps({"graph": label, "rounds": args.rounds, "calls": args.calls,
                          "python_s": statistics.median(py), "engine_s": statistics.median(cpp),
                          "overhead": statistics.median(overheads),
                          "overhead_range": [min(overheads), max(overheads)],
                          "python_best_s": min(py_best), "engine_best_s": min(cpp_best),
                          "overhead_best": min(py_best) / min(cpp_best) - 1,
                          "load": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
