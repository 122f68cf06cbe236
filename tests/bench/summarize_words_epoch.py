#!/usr/bin/env python3
"""Summarises bench_words_epoch JSON files: per side and thread count, the median wall seconds
per update, and per round the ratio of every side to the first side at the same thread count
(median and range; > 1: the first side is faster), wall and CPU seconds, with the epoch extrapolated by pixel area (docs/benchmarks.md)."""
import json
import statistics
import sys


def summarize(path):
    d = json.load(open(path))
    scale = d["epoch_pixels"] / d["subset_pixels"]  # the epoch's area over the timed updates'
    cells, cpu = {}, {}
    for r in d["rounds"]:
        for run in r["runs"]:
            cells.setdefault((run["side"], run["threads"]), []).append(run["wall_s"])
            cpu.setdefault((run["side"], run["threads"]), []).append(run["cpu_s"])
    sides = []
    for r in d["rounds"][0]["runs"]:
        if r["side"] not in sides:
            sides.append(r["side"])
    threads = sorted({t for _, t in cells})
    print(f"{path}: model {d['model']}, {d['updates']} updates of {d['batch']}, "
          f"load {d['load_before']:.2f} -> {d['load_after']:.2f}, "
          f"epoch = {scale:.1f} x the timed updates' pixels")
    for t in threads:
        base = cells[(sides[0], t)]
        for s in sides:
            w = cells[(s, t)]
            ratios = [x / b for x, b in zip(w, base)]
            c = cpu[(s, t)]
            cpu_ratios = [x / b for x, b in zip(c, cpu[(sides[0], t)])]
            print(f"  {t} thr {s:15s} median {statistics.median(w):8.3f} s/update, "
                  f"sum {sum(w):8.2f} s, epoch ~{sum(w) * scale / 60:6.1f} min, "
                  f"/ {sides[0]} median {statistics.median(ratios):5.2f}x "
                  f"({min(ratios):.2f}-{max(ratios):.2f}), of sums {sum(w) / sum(base):5.2f}x; "
                  f"CPU median {statistics.median(c):7.3f} s, "
                  f"/ {sides[0]} median {statistics.median(cpu_ratios):5.2f}x, "
                  f"of sums {sum(c) / sum(cpu[(sides[0], t)]):5.2f}x")


for p in sys.argv[1:]:
    summarize(p)
