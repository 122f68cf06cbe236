"""Summarizes run_rtrl_ab.sh: per graph, hidden size and algorithm, the old build's time per
frame over this build's, per round (above 1: this build is faster), its median and range."""
import json
import statistics
import sys
from collections import defaultdict

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
times = defaultdict(dict)  # (graph, hidden, algo) -> {(round, side): us}
loads = defaultdict(list)
for r in rows:
    key = (r["graph"], r["hidden"], r["algo"])
    times[key][(r["round"], r["side"])] = r["us_per_frame"]
    loads[key].append(r["load_average"])
print("| graph | hidden | algo | this build µs/frame | old build µs/frame | old / this (per round) | range | load |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for key in sorted(times):
    t = times[key]
    rounds = sorted({k[0] for k in t})
    ratios = [t[(n, "old")] / t[(n, "new")] for n in rounds if (n, "old") in t and (n, "new") in t]
    new = statistics.median(t[(n, "new")] for n in rounds if (n, "new") in t)
    old = statistics.median(t[(n, "old")] for n in rounds if (n, "old") in t)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {new:.2f} | {old:.2f} | **{statistics.median(ratios):.2f}×** | "
          f"{min(ratios):.2f}–{max(ratios):.2f}× | {min(loads[key]):.1f}–{max(loads[key]):.1f} |")
