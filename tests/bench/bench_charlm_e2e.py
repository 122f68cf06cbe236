#!/usr/bin/python3
"""`rnnwb train` char-lm end to end against the same training loop in PyTorch (issue 28).

Both sides train the 128-unit LSTM of examples/char-lstm.rnn.json (62 one-hot inputs, softmax
output, cross-entropy) on examples/data/kjv-genesis-2samuel.txt as examples/train-char-lm.json
does: N = 32 streams each reading its own contiguous piece of the text, BPTT(h = 64, h' = 32)
(each update forwards the last h frames from the state kept h frames back, the loss on the newest
h' frames, the gradient through all h), Adam 0.002, the gradient clipped to norm 1, one thread
or two. PyTorch's side is `torch.nn.LSTM` + `torch.nn.Linear` (oneDNN / MKL inside), the
strongest loop a PyTorch user writes for this; its text is read and cut the same way.

Each round runs `rnnwb train` (a process of its own, --steps S, a report every S/5 updates, no
validation or checkpoint until the end) and the PyTorch loop (S updates in this process),
alternating which goes first. The figure is training frames per second (new frames over all
streams) over the updates from S/5 to 4S/5 on both sides (the first fifth warms up: allocations,
oneDNN's kernels; rnnwb's last report also holds its final validation), from rnnwb's own
`frames_per_s` reports and from PyTorch's clock around the same updates. The ratio per round is rnnwb / PyTorch; the summary is the median over rounds with the
range and the load averages before and after.

Usage: .bench-venv/bin/python tests/bench/bench_charlm_e2e.py [--build build] [--steps 500]
       [--rounds 5] [--threads 1,2] [--out FILE.jsonl]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEXT = os.path.join(ROOT, "examples", "data", "kjv-genesis-2samuel.txt")
GRAPH = os.path.join(ROOT, "examples", "char-lstm.rnn.json")
STREAMS, H, H_PRIME, HIDDEN, LR = 32, 64, 32, 128, 0.002


def rnnwb_frames_per_s(build, steps, threads):
    """Mean frames_per_s of rnnwb's reports of updates S/5 .. 4S/5."""
    run_dir = tempfile.mkdtemp(prefix="charlm-e2e-")
    subprocess.run([os.path.join(build, "app", "rnnwb", "rnnwb"), "train", GRAPH, "--task", "char-lm",
                    "--text", TEXT, "--streams", str(STREAMS), "--h", str(H), "--h-prime",
                    str(H_PRIME), "--optimizer", "adam", "--lr", str(LR), "--clip", "1",
                    "--steps", str(steps), "--report-every", str(steps // 5),
                    "--valid-every", "0", "--checkpoint-every", "0", "--threads", str(threads),
                    "--run-dir", os.path.join(run_dir, "run")],
                   check=True, capture_output=True, text=True)
    with open(os.path.join(run_dir, "run", "metrics.jsonl")) as f:
        reports = [json.loads(line) for line in f if line.strip()]
    timed = [r for r in reports if steps // 5 < r["step"] <= 4 * (steps // 5)]
    # Each report's rate covers the same number of updates: the mean rate is the rate overall.
    return statistics.fmean(r["frames_per_s"] for r in timed), reports[-1]["train_loss"]


class CharLstm(torch.nn.Module):
    def __init__(self, vocabulary):
        super().__init__()
        self.lstm = torch.nn.LSTM(vocabulary, HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, vocabulary)


def text_streams():
    """The training part's character indices as [frames, N] (the streams' contiguous pieces)."""
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    train = text[:int(len(text) * 0.95)]
    vocabulary = sorted(set(text))
    index = {c: i for i, c in enumerate(vocabulary)}
    ids = torch.tensor([index[c] for c in train], dtype=torch.long)
    piece = len(ids) // STREAMS
    return ids[:piece * STREAMS].view(STREAMS, piece).t().contiguous(), len(vocabulary)


def torch_frames_per_s(streams_ids, vocabulary, steps, threads):
    """Frames per second of the PyTorch loop over updates S/5 .. 4S/5."""
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = CharLstm(vocabulary)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    one_hot = torch.eye(vocabulary)
    state = None  # the state h frames before the newest frame of the next update
    start = seconds = None
    for step in range(steps):
        if step == steps // 5:
            start = time.perf_counter()
        if step == 4 * (steps // 5):
            seconds = time.perf_counter() - start
        end = (step + 1) * H_PRIME  # the newest frame of this update (exclusive)
        first = max(0, end - H)
        window = streams_ids[first:end + 1]
        x, target = one_hot[window[:-1]], window[1:]
        # The first h' frames from the kept state give the next update's starting state.
        keep = min(H_PRIME, end - first)
        y1, s1 = model.lstm(x[:keep], state)
        y2, _ = model.lstm(x[keep:], s1) if keep < len(x) else (y1[:0], s1)
        state = tuple(s.detach() for s in s1) if end >= H else None
        y = torch.cat([y1, y2])[-H_PRIME:]
        loss = torch.nn.functional.cross_entropy(model.out(y).reshape(-1, vocabulary),
                                                 target[-H_PRIME:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    return 3 * (steps // 5) * STREAMS * H_PRIME / seconds, loss.item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--out", help="also append each result line to this file")
    args = parser.parse_args()
    streams_ids, vocabulary = text_streams()
    for threads in [int(t) for t in args.threads.split(",")]:
        ratios, ours, theirs, load_before = [], [], [], os.getloadavg()
        for r in range(args.rounds):
            sides = ["rnnwb", "torch"] if r % 2 == 0 else ["torch", "rnnwb"]
            for side in sides:
                if side == "rnnwb":
                    fps, our_loss = rnnwb_frames_per_s(args.build, args.steps, threads)
                    ours.append(fps)
                else:
                    fps, their_loss = torch_frames_per_s(streams_ids, vocabulary, args.steps,
                                                         threads)
                    theirs.append(fps)
            ratios.append(ours[-1] / theirs[-1])
        line = json.dumps({"bench": "charlm_e2e", "threads": threads, "steps": args.steps,
                           "rounds": args.rounds, "rnnwb_frames_per_s": ours,
                           "torch_frames_per_s": theirs, "ratios": ratios,
                           "ratio_median": statistics.median(ratios),
                           "last_train_loss": {"rnnwb": our_loss, "torch": their_loss},
                           "torch": torch.__version__, "load_before": load_before,
                           "load_after": os.getloadavg()})
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as out:
                out.write(line + "\n")


if __name__ == "__main__":
    main()
