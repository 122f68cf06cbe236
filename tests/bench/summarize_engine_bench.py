#!/usr/bin/python3
"""Summarizes run_engine_bench.sh output as the Markdown tables of docs/benchmarks.md.

Frames per second are medians over the timed chunks of a run; where a configuration ran several
rounds, the table shows the median over rounds. A ratio is the engine's frames/s over the peer's
in the same round and thread count; the table shows the median of those per-round ratios and
their range.
"""
import json
import statistics
import sys
from collections import defaultdict

# (engine label, peer key, what the peer is)
PAIRS = (
    ("lstm", "torch2:lstm", "torch.nn.LSTM"),
    ("lstm", "torch1:lstm", "torch.nn.LSTM (Debian)"),
    ("peephole", "torch2:peephole", "cell loop, eager"),
    ("peephole", "torch2:peephole-compiled", "cell loop, torch.compile"),
    ("peephole", "jax:peephole-jit-scan", "lax.scan, jax.jit"),
    ("gru", "torch2:gru", "cell loop, eager"),
    ("gru", "torch2:gru-compiled", "cell loop, torch.compile"),
    ("gru", "jax:gru-jit-scan", "lax.scan, jax.jit"),
)


def key(row):
    if row["bench"] == "engine":
        return "engine:" + row["label"]
    if row["bench"] == "torch":
        return f"torch{row['torch'].split('.')[0]}:{row['label']}"
    if row["bench"] == "jax":
        return "jax:" + row["label"]
    if row["bench"] == "sgemm":
        return "sgemm"
    return None


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    runs = defaultdict(dict)  # (key, threads) -> {round: row}
    versions = {}
    for r in rows:
        k = key(r)
        if k is None:
            continue
        runs[(k, r["threads"])][r.get("round", 0)] = r
        if r["bench"] in ("torch", "jax"):
            versions[k.split(":")[0]] = r.get("torch", r.get("jax"))
        if r["bench"] == "sgemm" and "kernels" in r:
            versions["products"] = r["kernels"]
    for m in (r for r in rows if r["bench"] == "machine"):
        where = f" (round {m['round']}, {m['threads']} threads)" if "round" in m else ""
        print(f"- {m['when']}{where}: {m['date']}, {m['cpu']}, {m['cores']} cores, "
              f"load average {m['load_average']:.2f}")
    print("- versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
    threads = sorted({t for (_, t) in runs})

    def values(k, t, field):
        return {n: r[field] for n, r in runs.get((k, t), {}).items() if field in r}

    print("\n| threads | graph | rnnwb frames/s | peer | peer frames/s | ratio (median of rounds) "
          "| ratio range | ratio per CPU second | rounds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in threads:
        for ours, theirs, name in PAIRS:
            a, b = values("engine:" + ours, t, "frames_per_s"), values(theirs, t, "frames_per_s")
            both = sorted(set(a) & set(b))
            if not both:
                continue
            ratios = [a[n] / b[n] for n in both]
            ca = values("engine:" + ours, t, "frames_per_cpu_s")
            cb = values(theirs, t, "frames_per_cpu_s")
            cpu = statistics.median(ca[n] / cb[n] for n in both)
            print(f"| {t} | {ours} | {statistics.median(a.values()):,.0f} | "
                  f"{theirs.split(':')[0]} {name} | {statistics.median(b.values()):,.0f} | "
                  f"**{statistics.median(ratios):.2f}x** | {min(ratios):.2f}-{max(ratios):.2f}x | "
                  f"{cpu:.2f}x | {len(both)} |")
    # GFLOP/s in the products: their flops over the wall time during which any thread is in one
    # (counted once however many are), against the sgemm peak of the same thread count and run.
    print("\n| threads | graph | GFLOP/s in products | sgemm peak GFLOP/s | share of peak | "
          "time in products | time in steps | GFLOP/s over the chunk | chunk share of peak |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in threads:
        peak = statistics.median(values("sgemm", t, "gflops").values() or [float("nan")])
        for model in ("lstm", "peephole", "gru"):
            k = "engine:" + model
            if not values(k, t, "blas_gflops"):
                continue
            med = lambda field: statistics.median(values(k, t, field).values())
            g, total = med("blas_gflops"), med("total_gflops")
            print(f"| {t} | {model} | {g:.1f} | {peak:.1f} | {100 * g / peak:.0f} % | "
                  f"{100 * med('blas_share'):.0f} % | {100 * med('step_share'):.0f} % | "
                  f"{total:.1f} | {100 * total / peak:.0f} % |")
    print_compiled_target(values, threads)


def print_compiled_target(values, threads):
    """What issue 13's "at least 2x the compiled cell loop" asks of the whole chunk: twice the
    compiled loop's frames/s times the engine's FLOP per frame, against the run's sgemm peak,
    beside the share of the peak that the products themselves reach."""
    print("\n| threads | graph | compiled loop frames/s | 2x that, frames/s | chunk GFLOP/s needed "
          "| share of the sgemm peak needed | products' own share | chunk share now |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    med = lambda k, t, field: statistics.median(values(k, t, field).values())
    for t in threads:
        peak = med("sgemm", t, "gflops")
        for model in ("peephole", "gru"):
            k = "engine:" + model
            if not values(k, t, "flops_per_frame") or not values(f"torch2:{model}-compiled", t,
                                                                  "frames_per_s"):
                continue
            compiled = med(f"torch2:{model}-compiled", t, "frames_per_s")
            need = 2 * compiled * med(k, t, "flops_per_frame") / 1e9
            print(f"| {t} | {model} | {compiled:,.0f} | {2 * compiled:,.0f} | {need:.1f} | "
                  f"{100 * need / peak:.0f} % | {100 * med(k, t, 'blas_gflops') / peak:.0f} % | "
                  f"{100 * med(k, t, 'total_gflops') / peak:.0f} % |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench_engine.jsonl")
