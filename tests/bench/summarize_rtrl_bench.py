#!/usr/bin/env python3
"""Markdown table of a bench_rtrl result file: time per frame and memory of each algorithm, and
its ratio to BPTT's time in the same run. Usage: summarize_rtrl_bench.py FILE"""
import json
import sys


def size(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024


rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| graph | hidden | algo | µs / frame | × BPTT | frames timed | memory | nnz(Ĵ) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
bptt = {}
for r in rows:
    key = (r["graph"], r["hidden"])
    if r["algo"] == "bptt":
        bptt[key] = r["us_per_frame"]
    if "us_per_frame" in r:
        time = f"{r['us_per_frame']:.1f}"
        x = r["us_per_frame"] / bptt[key] if key in bptt and r["algo"] != "bptt" else None
        ratio = "" if x is None else (f"{x:.1f}×" if x < 10 else f"{x:.0f}×")
        timed = f"{r['frames_timed']}" + (" (sampled)" if r.get("sampled") else "")
    else:
        time, ratio, timed = "skipped", "", r.get("skipped", "")
    algo = r["algo"] + (" (unit blocks)" if r.get("unit_blocks") else
                        " (dense Ĵ)" if r.get("dense_product") else "")
    nnz = f"{r['jacobian_nnz']:,}" if "jacobian_nnz" in r else ""
    print(f"| {r['graph']} | {r['hidden']} | {algo} | {time} | {ratio} | {timed} | "
          f"{size(r['bytes'])} | {nnz} |")
