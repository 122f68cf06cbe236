#!/usr/bin/python3
"""Summarizes run_engine_bench.sh output as the Markdown tables of docs/benchmarks.md.

Frames per second are medians over the timed chunks of a run; where a configuration ran several
rounds, the table shows the median over rounds. Ratios compare runs of the same round and threads.
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    machines = [r for r in rows if r["bench"] == "machine"]
    runs = defaultdict(list)  # (kind, label, threads) -> [row]
    for r in rows:
        if r["bench"] in ("engine", "torch"):
            runs[(r["bench"], r["label"], r["threads"])].append(r)
        elif r["bench"] == "sgemm":
            runs[("sgemm", "", r["threads"])].append(r)
    for m in machines:
        print(f"- {m['when']}: {m['date']}, {m['cpu']}, {m['cores']} cores, "
              f"load average {m['load_average']:.1f}")
    threads = sorted({k[2] for k in runs})

    def median(kind, label, k, key):
        values = [r[key] for r in runs.get((kind, label, k), []) if key in r]
        return statistics.median(values) if values else float("nan")

    print("\n| threads | model | rnnwb frames/s | PyTorch | PyTorch frames/s | ratio | "
          "ratio per CPU second |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in threads:
        for ours, theirs, name in (("lstm", "lstm", "torch.nn.LSTM"),
                                   ("peephole", "peephole", "cell loop, input products hoisted"),
                                   ("peephole", "peephole-naive", "cell loop, naive")):
            a = median("engine", ours, k, "frames_per_s")
            b = median("torch", theirs, k, "frames_per_s")
            cpu = (median("engine", ours, k, "frames_per_cpu_s") /
                   median("torch", theirs, k, "frames_per_cpu_s"))
            print(f"| {k} | {ours} | {a:,.0f} | {name} | {b:,.0f} | {a / b:.2f}x | {cpu:.2f}x |")
    # GFLOP/s in sgemm: the products' flops over the wall time during which any thread is in one
    # (counted once however many are), against the sgemm peak of the same thread count and run.
    print("\n| threads | model | GFLOP/s in sgemm | sgemm peak GFLOP/s | share of peak | "
          "time in sgemm | time in steps | GFLOP/s overall |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in threads:
        peak = median("sgemm", "", k, "gflops")
        for model in ("lstm", "peephole"):
            g = median("engine", model, k, "blas_gflops")
            share = median("engine", model, k, "blas_share")
            steps = median("engine", model, k, "step_share")
            total = median("engine", model, k, "total_gflops")
            print(f"| {k} | {model} | {g:.1f} | {peak:.1f} | {100 * g / peak:.0f} % | "
                  f"{100 * share:.0f} % | {100 * steps:.0f} % | {total:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench_engine.jsonl")
