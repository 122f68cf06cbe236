#!/usr/bin/env python3
"""Where the time of an update goes, from RNNWB_UPDATE_TIMES files (docs/distributed.md).

    summarize_update_times.py ONE_RANK_PREFIX TWO_RANK_PREFIX [--half PREFIX] [--skip N]

Each prefix names the files PREFIX.rank<R>.tsv one run wrote (core/src/train/update_timeline.hpp).
Per rank, for every update but the first N (start-up) and the last (its end is not marked):
  compute  begin -> last_final: forward and backward (with the sum's early buckets started)
  checks   last_final -> sum_start: the learner's own checks before the meeting
  meeting  sum_start -> sum_done: waiting for the other ranks and the sum itself
  alone    sum_done (one rank: last_final) -> the next begin: clipping, the optimizer step,
           checks, reports, reading the next chunk: the work every rank repeats whole
  update   begin -> the next begin
and, across the ranks of one run, how far apart they reach the meeting (arrival skew). Prints
medians and means in milliseconds, then the 2-rank update against half the 1-rank update.
--half names a one-rank run of N/2 streams (what each rank computes): its compute against the
ranks' says how much of the excess is the smaller products rather than the ranks.
"""
import argparse
import glob
import statistics


def read(prefix):
    ranks = {}
    for path in sorted(glob.glob(prefix + ".rank*.tsv")):
        rank = int(path[len(prefix) + len(".rank"):-len(".tsv")])
        with open(path) as f:
            header = f.readline().split()
            rows = [dict(zip(header, map(int, line.split()))) for line in f if line.strip()]
        ranks[rank] = rows
    if not ranks:
        raise SystemExit(f"no {prefix}.rank*.tsv")
    return ranks


def phases(rows, skip):
    out = {k: [] for k in ("compute", "checks", "meeting", "alone", "update")}
    for row, after in zip(rows[skip:-1], rows[skip + 1:]):
        ms = lambda a, b: (b - a) / 1000.0
        end_of_pass = row["last_final"] if row["last_final"] >= 0 else row["sum_start"]
        out["compute"].append(ms(row["begin"], end_of_pass))
        if row["sum_start"] >= 0:
            out["checks"].append(ms(end_of_pass, row["sum_start"]))
            out["meeting"].append(ms(row["sum_start"], row["sum_done"]))
            out["alone"].append(ms(row["sum_done"], after["begin"]))
        else:
            out["alone"].append(ms(end_of_pass, after["begin"]))
        out["update"].append(ms(row["begin"], after["begin"]))
    return out


def line(name, values):
    if not values:
        return f"  {name:8} -"
    return (f"  {name:8} median {statistics.median(values):7.3f}  mean {statistics.mean(values):7.3f}"
            f"  p90 {sorted(values)[int(0.9 * (len(values) - 1))]:7.3f} ms")


def summarize(label, prefix, skip):
    ranks = read(prefix)
    print(f"{label}: {prefix} ({len(ranks)} rank(s))")
    means = {}
    for rank, rows in sorted(ranks.items()):
        p = phases(rows, skip)
        print(f" rank {rank}, {len(p['update'])} updates")
        for name, values in p.items():
            print(line(name, values))
        means[rank] = {k: statistics.mean(v) if v else 0.0 for k, v in p.items()}
    if len(ranks) > 1:
        r0, r1 = ranks[0][skip:-1], ranks[1][skip:-1]
        skew = [(b["sum_start"] - a["sum_start"]) / 1000.0 for a, b in zip(r0, r1)]
        later = [abs(s) for s in skew]
        first = sum(1 for s in skew if s > 0)
        print(f" arrival at the meeting, rank 1 minus rank 0: median {statistics.median(skew):.3f} ms,"
              f" |skew| mean {statistics.mean(later):.3f} ms; rank 0 first in {first} of {len(skew)}")
        late = [min(a["sum_done"] - a["sum_start"], b["sum_done"] - b["sum_start"]) / 1000.0
                for a, b in zip(r0, r1)]
        print(line("the later rank's meeting (the sum itself)", late))
    return means


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("one")
    parser.add_argument("two")
    parser.add_argument("--half")
    parser.add_argument("--skip", type=int, default=5)
    a = parser.parse_args()
    one = summarize("1 rank", a.one, a.skip)[0]
    half = summarize("1 rank of N/2 streams", a.half, a.skip)[0] if a.half else None
    two = summarize("2 ranks", a.two, a.skip)
    print("2-rank update against half the 1-rank update (means, ms; rank 0 / rank 1):")
    for name in ("compute", "checks", "meeting", "alone", "update"):
        ideal = one[name] / 2
        print(f"  {name:8} 1 rank / 2 = {ideal:7.3f}   2 ranks {two[0][name]:7.3f} / {two[1][name]:7.3f}"
              f"   excess {two[0][name] - ideal:+7.3f} / {two[1][name] - ideal:+7.3f}")
    print(f"  => 2 / 1 speed-up from the update means: {one['update'] / two[0]['update']:.3f}")
    if half:
        print(f"  1 rank of N/2 streams: compute {half['compute']:.3f}, alone {half['alone']:.3f},"
              f" update {half['update']:.3f} ms (its speed-up bound for 2 ranks:"
              f" {one['update'] / half['update']:.3f})")


if __name__ == "__main__":
    main()
