#!/usr/bin/python3
"""rnnwb.torch.GraphModule against the same cell in PyTorch (docs/benchmarks.md, issue 25).

examples/lstm-peephole.rnn.json at input 128, hidden 256, output 128 (bench_engine's sizes), N
streams of T frames: one forward + backward of the summed cross-entropy per chunk, every stream
from an empty state, timed for
  graph-module   rnnwb.torch.GraphModule (the CPU engine's forward; its backward from the output
                 gradients autograd hands it), loss -log(softmax output) of the target
  engine-forward, engine-grad   where its time goes: graph.forward and graph.grad (the engine's
                 forward, and its forward + backward with the graph's own loss) on the same data
  eager          bench_torch.py's PeepholeLstm cell loop (input products hoisted), eager
  compiled       the same under torch.compile (compiled in untimed warm-up chunks)
in rounds that alternate them (the order rotating), so that a loaded machine's drift falls
on all of them alike; each round times --chunks chunks of each and keeps their median. Prints
one JSON object per round and a last one with the medians over rounds and their ratios.
Usage: PYTHONPATH=build/python .bench-venv/bin/python tests/bench/bench_graph_module.py
       [--threads K] [--rounds R] [--chunks C] [--streams N] [--frames T]
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch import PeepholeLstm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def graph_module(args):
    import rnnwb
    from rnnwb.torch import GraphModule
    rnnwb.set_threads(args.threads)
    g = rnnwb.Graph.load(os.path.join(ROOT, "examples", "lstm-peephole.rnn.json"))
    for layer in g.layers:
        size = args.input if layer.kind == "input" else (
            args.output if layer.loss != "none" else args.hidden)
        g.set_layer(layer.id, size=size)
    return GraphModule(g, seed=1)


def chunks(args, x, target):
    """Each implementation's chunk: forward + backward of the summed cross-entropy."""
    module = graph_module(args)
    rows = torch.arange(args.frames * args.streams)

    def rnnwb_chunk():
        module.zero_grad(set_to_none=False)
        y = module(x).reshape(-1, args.output)
        loss = -torch.log(y[rows, target]).sum()
        loss.backward()
        return loss.item()

    torch.manual_seed(1)
    cell = PeepholeLstm(args.input, args.hidden, args.output, hoisted=True)
    compiled = torch.compile(cell)
    zeros = (torch.zeros(args.streams, args.hidden), torch.zeros(args.streams, args.hidden))

    def torch_chunk(run):
        def chunk():
            cell.zero_grad(set_to_none=False)
            logits, _ = run(x, zeros)
            loss = F.cross_entropy(logits.reshape(-1, args.output), target, reduction="sum")
            loss.backward()
            return loss.item()
        return chunk

    # Where GraphModule's time goes: the engine's own forward, and its forward + backward with
    # the graph's own loss (graph.grad), on the same weights and data.
    data = {"input": x.numpy(), "target": target.numpy().reshape(args.frames, args.streams)}
    weights = module.weights()
    return {"graph-module": rnnwb_chunk, "eager": torch_chunk(cell),
            "compiled": torch_chunk(compiled),
            "engine-forward": lambda: module.graph.forward(weights, {"input": data["input"]}),
            "engine-grad": lambda: module.graph.grad(weights, data)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--chunks", type=int, default=5)
    parser.add_argument("--input", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--output", type=int, default=128)
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--frames", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.uniform(-1, 1, (args.frames, args.streams, args.input))
                         .astype(np.float32))
    target = torch.from_numpy(rng.integers(0, args.output, args.frames * args.streams))
    runs = chunks(args, x, target)
    warm = time.perf_counter()
    for name, chunk in runs.items():
        for _ in range(2):  # torch.compile compiles here
            chunk()
    print(json.dumps({"warmup_s": time.perf_counter() - warm, "load": os.getloadavg(),
                      "torch": torch.__version__, "threads": args.threads}), flush=True)
    names = list(runs)
    medians = {n: [] for n in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        record = {"round": r, "order": order, "load": os.getloadavg()[0]}
        for name in order:
            torch.set_num_threads(args.threads)
            times = []
            for _ in range(args.chunks):
                start = time.perf_counter()
                runs[name]()
                times.append(time.perf_counter() - start)
            medians[name].append(statistics.median(times))
            record[name + "_s"] = medians[name][-1]
        print(json.dumps(record), flush=True)
    frames = args.frames * args.streams
    summary = {"summary": True, "threads": args.threads, "rounds": args.rounds,
               "streams": args.streams, "frames": args.frames, "hidden": args.hidden,
               "load_end": os.getloadavg()}
    for name in names:
        summary[name + "_frames_per_s"] = frames / statistics.median(medians[name])
    for peer in ("eager", "compiled"):  # > 1: GraphModule is faster
        ratios = [p / g for p, g in zip(medians[peer], medians["graph-module"])]
        summary["speedup_vs_" + peer] = statistics.median(ratios)
        summary["speedup_vs_" + peer + "_range"] = [min(ratios), max(ratios)]
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
