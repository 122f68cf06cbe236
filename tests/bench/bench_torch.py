#!/usr/bin/python3
"""The PyTorch side of the engine benchmarks (tests/bench/run_engine_bench.sh, docs/benchmarks.md).

Trains with truncated BPTT(h; h' = h) on random data, N streams, the state carried across chunks
(detached), summed cross-entropy loss, and times forward + backward per chunk:
  lstm      torch.nn.LSTM(input, hidden) + Linear(hidden, output), the standard LSTM
  peephole  the equations of examples/lstm-peephole.rnn.json as a per-frame cell loop, with the
            input products of all frames hoisted out of the loop (as a careful user writes it)
  peephole-naive  the same cell loop with every product inside the loop
  gru       the equations of examples/gru.rnn.json as a cell loop, input products hoisted
--compile runs the model under torch.compile (the whole chunk's cell loop is one graph; the
compilation happens in the untimed warm-up chunks). --autocast bf16 runs the forward under
torch.autocast("cpu", torch.bfloat16), PyTorch's own mixed precision (nn.LSTM then runs oneDNN's
bf16 LSTM; the loss is taken in f32).
Prints one JSON object per line: frames per second of wall time (median chunk, best chunk) and
frames per second of process CPU time (all threads), which a loaded machine disturbs less.
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F


class PeepholeLstm(torch.nn.Module):
    """i = s(Wxi x + Whi h' + wci c' + bi), f = s(Wxf x + Whf h' + wcf c' + bf),
    g = tanh(Wxg x + Whg h' + bg), c = i g + f c', o = s(Wxo x + Who h' + wco c + bo),
    h = o tanh(c), y = softmax(Why h + by): primes are the previous frame."""

    def __init__(self, inputs, hidden, outputs, hoisted):
        super().__init__()
        self.hidden, self.hoisted = hidden, hoisted
        self.wx = torch.nn.Linear(inputs, 4 * hidden)            # i, f, g, o with their biases
        self.wh = torch.nn.Linear(hidden, 4 * hidden, bias=False)
        self.peep = torch.nn.Parameter(torch.empty(3, hidden).uniform_(-1, 1))
        self.out = torch.nn.Linear(hidden, outputs)

    def forward(self, x, state):
        h, c = state
        n = self.hidden
        # unbind, not xs[t]: the backward of 64 slices would add 64 full-size zero tensors.
        xs = self.wx(x).unbind(0) if self.hoisted else None
        outputs = []
        for t in range(x.shape[0]):
            gates = (xs[t] if self.hoisted else self.wx(x[t])) + self.wh(h)
            i = torch.sigmoid(gates[:, :n] + self.peep[0] * c)
            f = torch.sigmoid(gates[:, n:2 * n] + self.peep[1] * c)
            g = torch.tanh(gates[:, 2 * n:3 * n])
            c = i * g + f * c
            o = torch.sigmoid(gates[:, 3 * n:] + self.peep[2] * c)
            h = o * torch.tanh(c)
            outputs.append(h)
        return self.out(torch.stack(outputs)), (h, c)


class Gru(torch.nn.Module):
    """z = s(Wxz x + Whz h' + bz), r = s(Wxr x + Whr h' + br), n = tanh(Wxn x + Wrn (r h') + bn),
    h = h' + z n + d z h' (d a learnt diagonal; -1 gives h = (1 - z) h' + z n), y = softmax(Why h
    + by): examples/gru.rnn.json, whose n reads r h' through its own product."""

    def __init__(self, inputs, hidden, outputs):
        super().__init__()
        self.hidden = hidden
        self.wx = torch.nn.Linear(inputs, 3 * hidden)             # z, r, n with their biases
        self.wh = torch.nn.Linear(hidden, 2 * hidden, bias=False)  # z, r
        self.wn = torch.nn.Linear(hidden, hidden, bias=False)      # r h' -> n
        self.d = torch.nn.Parameter(-torch.ones(hidden))  # the standard GRU; stable over chunks
        self.out = torch.nn.Linear(hidden, outputs)

    def forward(self, x, state):
        h = state[0]
        n = self.hidden
        xs = self.wx(x).unbind(0)
        outputs = []
        for t in range(x.shape[0]):
            gates = xs[t][:, :2 * n] + self.wh(h)
            z = torch.sigmoid(gates[:, :n])
            r = torch.sigmoid(gates[:, n:])
            cand = torch.tanh(xs[t][:, 2 * n:] + self.wn(r * h))
            h = h + z * cand + self.d * z * h
            outputs.append(h)
        return self.out(torch.stack(outputs)), (h, state[1])


class StandardLstm(torch.nn.Module):
    def __init__(self, inputs, hidden, outputs):
        super().__init__()
        self.lstm = torch.nn.LSTM(inputs, hidden)
        self.out = torch.nn.Linear(hidden, outputs)

    def forward(self, x, state):
        hs, (h, c) = self.lstm(x, (state[0].unsqueeze(0), state[1].unsqueeze(0)))
        return self.out(hs), (h[0], c[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=["lstm", "peephole", "peephole-naive", "gru"])
    parser.add_argument("--input", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--output", type=int, default=128)
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--compile", action="store_true", help="run under torch.compile")
    parser.add_argument("--warmup", type=int, default=2, help="untimed chunks first")
    parser.add_argument("--autocast", choices=["bf16"], help="the forward under CPU autocast")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    if args.model == "lstm":
        model = StandardLstm(args.input, args.hidden, args.output)
    elif args.model == "gru":
        model = Gru(args.input, args.hidden, args.output)
    else:
        model = PeepholeLstm(args.input, args.hidden, args.output, args.model == "peephole")
    x = torch.rand(args.frames, args.streams, args.input) * 2 - 1
    target = torch.randint(0, args.output, (args.frames * args.streams,))
    state = (torch.zeros(args.streams, args.hidden), torch.zeros(args.streams, args.hidden))

    run = torch.compile(model) if args.compile else model

    def chunk(state):
        model.zero_grad(set_to_none=False)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.autocast == "bf16"):
            logits, state = run(x, state)
        loss = F.cross_entropy(logits.float().reshape(-1, args.output), target, reduction="sum")
        loss.backward()
        return loss.item(), (state[0].detach().float(), state[1].detach().float())

    compile_start = time.perf_counter()
    for _ in range(args.warmup):
        _, state = chunk(state)
    warmup_s = time.perf_counter() - compile_start
    times = []
    cpu_start = time.process_time()
    for _ in range(args.repeat):
        start = time.perf_counter()
        loss, state = chunk(state)
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    frames = args.frames * args.streams
    ordered = sorted(times)
    print(json.dumps({
        "bench": "torch", "label": args.model + ("-compiled" if args.compile else "")
        + ("-autocast-bf16" if args.autocast else ""),
        "threads": args.threads, "warmup_s": warmup_s,
        "mkldnn": torch.backends.mkldnn.is_available(), "mkl": torch.backends.mkl.is_available(),
        "torch": torch.__version__, "streams": args.streams, "frames": args.frames,
        "repeat": args.repeat, "parameters": sum(p.numel() for p in model.parameters()),
        "frames_per_s": frames / ordered[len(ordered) // 2],
        "frames_per_s_best": frames / ordered[0], "frames_per_cpu_s": frames * args.repeat / cpu,
        "wall_s": sum(times), "cpu_s": cpu, "loss": loss}))


if __name__ == "__main__":
    main()
