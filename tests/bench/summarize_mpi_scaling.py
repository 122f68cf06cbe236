#!/usr/bin/env python3
"""2 ranks / 1 rank per round and build, from bench_mpi_scaling.sh's raw lines.

    summarize_mpi_scaling.py RESULTS.jsonl [--since 2026-12-02T16:00]

Pairs each 1-rank line with the overlapped 2-rank line of the same round, build and invocation
(--no-overlap lines are left out), and prints per build the median and range of the ratio over
all rounds and over the quiet ones: both runs started after bench_mpi_scaling.sh's quiet wait
found the cores under 10 % busy (lines without "busy_percent_before" count as not quiet).
"""
import argparse
import json
import statistics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--since", default="")
    a = parser.parse_args()
    rows = [json.loads(line) for line in open(a.results) if line.strip()]
    rows = [r for r in rows if r["date"] >= a.since and r.get("overlap") is not False]
    rounds = {}
    pending = {}
    for r in rows:
        build = r.get("build", "build")
        if r["ranks"] == 1:
            pending[build] = r
            continue
        one = pending.pop(build, None)
        if not one or one["round"] != r["round"]:
            continue
        quiet = all(x.get("busy_percent_before", 100) < 10 for x in (one, r))
        rounds.setdefault(build, []).append((r["frames_per_s"] / one["frames_per_s"], quiet, one, r))
    for build, found in rounds.items():
        every = [x[0] for x in found]
        quiet = [x[0] for x in found if x[1]]
        line = f"{build}: {len(every)} rounds, median {statistics.median(every):.2f}x ({min(every):.2f}-{max(every):.2f})"
        if quiet:
            line += f"; {len(quiet)} quiet, median {statistics.median(quiet):.2f}x ({min(quiet):.2f}-{max(quiet):.2f})"
        print(line)
        for ratio, q, one, two in found:
            print(f"  {one['date'][11:19]} {ratio:.3f} {'quiet' if q else 'busy '} 1 rank {one['frames_per_s']:.0f}"
                  f" (load {one['loadavg']}), 2 ranks {two['frames_per_s']:.0f} (load {two['loadavg']})")


if __name__ == "__main__":
    main()
