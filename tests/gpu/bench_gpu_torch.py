#!/usr/bin/python3
"""The PyTorch side of the GPU benchmarks (tests/gpu/run-on-device.sh, docs/benchmarks.md).

The models and the training chunk of tests/bench/bench_torch.py (nn.LSTM, i.e. cuDNN, + Linear;
the lstm-peephole cell loop with hoisted input products), on the CUDA device: BPTT(h; h' = h),
N streams, state carried (detached), summed cross-entropy, forward + backward timed per chunk
with torch.cuda.synchronize(). One JSON line per run. Exits 77 with a message when PyTorch or
its CUDA is missing.
"""
import argparse
import json
import os
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:
    print(f"bench_gpu_torch: skipped: PyTorch is not installed ({error})", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("bench_gpu_torch: skipped: this PyTorch has no CUDA device "
          f"(torch {torch.__version__}, built with CUDA {torch.version.cuda})", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from bench_torch import PeepholeLstm, StandardLstm  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=["lstm", "peephole"])
    parser.add_argument("--input", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--output", type=int, default=128)
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--frames", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products, as the rnnwb engine
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(1)
    if args.model == "lstm":
        model = StandardLstm(args.input, args.hidden, args.output)
    else:
        model = PeepholeLstm(args.input, args.hidden, args.output, True)
    model = model.to(device)
    x = (torch.rand(args.frames, args.streams, args.input) * 2 - 1).to(device)
    target = torch.randint(0, args.output, (args.frames * args.streams,)).to(device)
    state = (torch.zeros(args.streams, args.hidden, device=device),
             torch.zeros(args.streams, args.hidden, device=device))

    def chunk(state):
        model.zero_grad(set_to_none=False)
        logits, state = model(x, state)
        loss = F.cross_entropy(logits.reshape(-1, args.output), target, reduction="sum")
        loss.backward()
        return loss.item(), (state[0].detach(), state[1].detach())

    for _ in range(3):
        _, state = chunk(state)
    torch.cuda.synchronize()
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        loss, state = chunk(state)  # loss.item() synchronizes
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    ordered = sorted(times)
    frames = args.frames * args.streams
    print(json.dumps({
        "bench": "torch-cuda", "label": args.model, "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0), "streams": args.streams, "frames": args.frames,
        "hidden": args.hidden, "repeat": args.repeat,
        "frames_per_s": frames / ordered[len(ordered) // 2],
        "frames_per_s_best": frames / ordered[0], "loss": loss}))


if __name__ == "__main__":
    main()
