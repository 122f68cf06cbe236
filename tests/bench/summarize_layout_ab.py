#!/usr/bin/python3
"""Summarizes run_layout_ab.sh: per graph and thread count, the median over the rounds of each
process's median per-pair ratio (one buffer per layer / interleaved: > 1, interleaved faster),
its range, the control's (both sides one buffer per layer), whether every loss was equal, and the
load averages."""
import json
import os
import statistics
import sys


def same_loss(rows):
    """yes when every process's two losses are equal; "both NaN" when they are NaN (null) on
    both sides (the benchmark's GRU overflows on its random chunk, docs/benchmarks.md)."""
    if all(r["interleaved_loss"] is None and r["layered_loss"] is None for r in rows):
        return "both NaN"
    return "yes" if all(r["same_loss"] for r in rows) else "no"


def main(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    print("| threads | graph | interleaved frames/s | per layer frames/s | ratio (median of rounds) "
          "| range | control | same loss | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for threads, graph in sorted({(r["threads"], os.path.basename(r["graph"])) for r in rows}):
        mine = [r for r in rows if r["threads"] == threads and os.path.basename(r["graph"]) == graph]
        ab = [r for r in mine if not r["control"]]
        aa = [r for r in mine if r["control"]]
        ratios = [r["ratio_median"] for r in ab]
        loads = [r["load_average"] for r in mine]
        print(f"| {threads} | {graph.replace('.rnn.json', '')} "
              f"| {statistics.median(r['interleaved_frames_per_s'] for r in ab):,.0f} "
              f"| {statistics.median(r['layered_frames_per_s'] for r in ab):,.0f} "
              f"| **{statistics.median(ratios):.3f}×** | {min(ratios):.3f}–{max(ratios):.3f}× "
              f"| {statistics.median(r['ratio_median'] for r in aa):.3f}× "
              f"| {same_loss(ab)} "
              f"| {min(loads):.1f}–{max(loads):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "layout_ab.jsonl")
