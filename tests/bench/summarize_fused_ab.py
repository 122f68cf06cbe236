#!/usr/bin/python3
"""Summarizes run_fused_ab.sh: per graph and thread count, the medians of fused and unfused
frames/s and the per-round ratio fused / unfused (median and range), and the load averages.
A second argument names the field that tells the two apart (default fused_steps; with
AB_FLAG=--packed: packed_step_products)."""
import json
import os
import statistics
import sys


def main(path, key="fused_steps"):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    engine = [r for r in rows if r.get("bench") == "engine"]
    print(f"| threads | graph | {key} frames/s | without frames/s | with / without (per round) "
          "| range | load |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    keys = sorted({(r["threads"], os.path.basename(r["graph"])) for r in engine})
    for threads, graph in keys:
        mine = [r for r in engine if r["threads"] == threads and os.path.basename(r["graph"]) == graph]
        fused = {r["round"]: r for r in mine if r[key]}
        unfused = {r["round"]: r for r in mine if not r[key]}
        ratios = [fused[k]["frames_per_s"] / unfused[k]["frames_per_s"] for k in fused if k in unfused]
        loads = [r["load_average"] for r in mine]
        print(f"| {threads} | {graph.replace('.rnn.json', '')} "
              f"| {statistics.median(r['frames_per_s'] for r in fused.values()):,.0f} "
              f"| {statistics.median(r['frames_per_s'] for r in unfused.values()):,.0f} "
              f"| **{statistics.median(ratios):.2f}×** | {min(ratios):.2f}–{max(ratios):.2f}× "
              f"| {min(loads):.1f}–{max(loads):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fused_ab.jsonl", *sys.argv[2:3])
