#!/usr/bin/env python3
"""Summarises tests/bench/run_words_ab.sh's folder: per thread count, the old build's graph
recogniser over the new one's (sums of the round's wall seconds; > 1: the new build is faster),
the same divided by the two processes' retired recognisers (the machine's drift between them),
without the first update (which faults the batch's memory in), and the peak resident memory."""
import glob
import json
import os
import re
import statistics
import sys


def wall_times(path):
    times = {}
    for r in json.load(open(path))["rounds"]:
        for run in r["runs"]:
            times.setdefault((run["side"], run["threads"]), []).append(run["wall_s"])
    return times


def summarize(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "*-*.json")):
        build, round_ = os.path.basename(path)[:-5].split("-")
        runs[(build, int(round_))] = wall_times(path)
    rounds = sorted({r for b, r in runs if (("old", r) in runs and ("new", r) in runs)})
    threads = sorted({t for times in runs.values() for _, t in times})
    med = statistics.median
    print(f"{folder}: {len(rounds)} rounds")
    for t in threads:
        raw, drift, warm = [], [], []
        for r in rounds:
            old, new = runs[("old", r)], runs[("new", r)]
            o, n = sum(old[("graph", t)]), sum(new[("graph", t)])
            raw.append(o / n)
            drift.append((o / sum(old[("retired", t)])) / (n / sum(new[("retired", t)])))
            warm.append(sum(old[("graph", t)][1:]) / sum(new[("graph", t)][1:]))
        medians = {b: med([sum(runs[(b, r)][("graph", t)]) for r in rounds]) for b in ("old", "new")}
        ret = {b: med([sum(runs[(b, r)][("retired", t)]) / sum(runs[(b, r)][("graph", t)])
                       for r in rounds]) for b in ("old", "new")}
        print(f"  {t} thr old/new graph {med(raw):.2f}x ({min(raw):.2f}-{max(raw):.2f}), "
              f"over the retired drift {med(drift):.2f}x, without the first update "
              f"{med(warm):.2f}x; graph sums old {medians['old']:.2f} s new {medians['new']:.2f} s; "
              f"retired/graph old {ret['old']:.2f}x new {ret['new']:.2f}x")
    rss = {}
    for line in open(os.path.join(folder, "log.txt")):
        m = re.match(r"round \d+ (old|new) maxrss_kb (\d+)", line)
        if m:
            rss.setdefault(m.group(1), []).append(int(m.group(2)))
    for b in ("old", "new"):
        if b in rss:
            print(f"  {b} peak resident (the process's four models) median {med(rss[b]) / 1024:.0f} MiB")


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        summarize(folder)
