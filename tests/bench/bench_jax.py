#!/usr/bin/python3
"""The JAX side of the engine benchmarks (tests/bench/run_engine_bench.sh, docs/benchmarks.md).

The same training chunk as bench_torch.py (truncated BPTT(h; h' = h), N streams, state carried
across chunks, summed cross-entropy, forward + backward timed) with the cell loop as
jax.lax.scan, the whole chunk (loss and gradients) under jax.jit, input products hoisted:
  peephole  examples/lstm-peephole.rnn.json      gru  examples/gru.rnn.json
XLA's CPU thread count is fixed per process: --threads sets it through XLA_FLAGS before JAX loads.
Prints one JSON object per line, with the keys of bench_torch.py.
"""
import argparse
import json
import os
import time


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=["peephole", "gru"])
    parser.add_argument("--input", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--output", type=int, default=128)
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    return parser.parse_args()


args = parse()
# Eigen's intra-op pool (the products) and the number of CPU "devices"; one device.
os.environ["XLA_FLAGS"] = (f"--xla_cpu_multi_thread_eigen={'true' if args.threads > 1 else 'false'} "
                           f"intra_op_parallelism_threads={args.threads}")
os.environ["OMP_NUM_THREADS"] = str(args.threads)

import jax  # noqa: E402  (after XLA_FLAGS)
import jax.numpy as jnp  # noqa: E402


def init(key, inputs, hidden, outputs, model):
    gates = 4 if model == "peephole" else 3
    k = jax.random.split(key, 6)
    u = lambda key, shape, scale: jax.random.uniform(key, shape, jnp.float32, -scale, scale)
    p = {"wx": u(k[0], (inputs, gates * hidden), inputs ** -0.5),
         "bx": jnp.zeros(gates * hidden),
         "wo": u(k[2], (hidden, outputs), hidden ** -0.5), "bo": jnp.zeros(outputs)}
    if model == "peephole":
        p["wh"] = u(k[1], (hidden, 4 * hidden), hidden ** -0.5)
        p["peep"] = u(k[3], (3, hidden), 1.0)
    else:
        p["wh"] = u(k[1], (hidden, 2 * hidden), hidden ** -0.5)
        p["wn"] = u(k[4], (hidden, hidden), hidden ** -0.5)
        p["d"] = -jnp.ones(hidden)  # the standard GRU, stable over chunks
    return p


def peephole_step(p, n):
    def step(state, xt):
        h, c = state
        g = xt + h @ p["wh"]
        i = jax.nn.sigmoid(g[:, :n] + p["peep"][0] * c)
        f = jax.nn.sigmoid(g[:, n:2 * n] + p["peep"][1] * c)
        c = i * jnp.tanh(g[:, 2 * n:3 * n]) + f * c
        o = jax.nn.sigmoid(g[:, 3 * n:] + p["peep"][2] * c)
        h = o * jnp.tanh(c)
        return (h, c), h
    return step


def gru_step(p, n):
    def step(state, xt):
        h, c = state
        g = xt[:, :2 * n] + h @ p["wh"]
        z = jax.nn.sigmoid(g[:, :n])
        r = jax.nn.sigmoid(g[:, n:])
        cand = jnp.tanh(xt[:, 2 * n:] + (r * h) @ p["wn"])
        h = h + z * cand + p["d"] * z * h
        return (h, c), h
    return step


def make_chunk(model, hidden):
    def loss(p, x, target, state):
        xs = x @ p["wx"] + p["bx"]
        step = (peephole_step if model == "peephole" else gru_step)(p, hidden)
        state, hs = jax.lax.scan(step, state, xs)
        logits = hs @ p["wo"] + p["bo"]
        logp = jax.nn.log_softmax(logits.reshape(-1, logits.shape[-1]))
        return -jnp.take_along_axis(logp, target[:, None], axis=1).sum(), state

    return jax.jit(jax.value_and_grad(loss, has_aux=True))


def main():
    key = jax.random.PRNGKey(1)
    p = init(key, args.input, args.hidden, args.output, args.model)
    x = jax.random.uniform(jax.random.PRNGKey(2), (args.frames, args.streams, args.input),
                           jnp.float32, -1, 1)
    target = jax.random.randint(jax.random.PRNGKey(3), (args.frames * args.streams,), 0,
                                args.output)
    zeros = jnp.zeros((args.streams, args.hidden), jnp.float32)
    state = (zeros, zeros)
    chunk = make_chunk(args.model, args.hidden)
    compile_start = time.perf_counter()
    for _ in range(2):
        (loss, state), grads = chunk(p, x, target, state)
        jax.block_until_ready(grads)
    warmup_s = time.perf_counter() - compile_start
    times = []
    cpu_start = time.process_time()
    for _ in range(args.repeat):
        start = time.perf_counter()
        (loss, state), grads = chunk(p, x, target, state)
        jax.block_until_ready(grads)
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    frames = args.frames * args.streams
    ordered = sorted(times)
    print(json.dumps({
        "bench": "jax", "label": args.model + "-jit-scan", "threads": args.threads,
        "jax": jax.__version__, "warmup_s": warmup_s, "streams": args.streams,
        "frames": args.frames, "repeat": args.repeat,
        "parameters": sum(v.size for v in jax.tree_util.tree_leaves(p)),
        "frames_per_s": frames / ordered[len(ordered) // 2],
        "frames_per_s_best": frames / ordered[0], "frames_per_cpu_s": frames * args.repeat / cpu,
        "wall_s": sum(times), "cpu_s": cpu, "loss": float(loss)}))


if __name__ == "__main__":
    main()
