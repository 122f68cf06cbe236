#!/usr/bin/python3
"""Checks that the standard LSTM graph (tests/bench/lstm.rnn.json) is torch.nn.LSTM, so that the
benchmark compares like with like: weights from `rnnwb init`, gradients from `rnnwb grad`, the
same weights loaded into torch.nn.LSTM + Linear, loss and every gradient compared.

Usage: check_against_torch.py RNNWB_BINARY [GRAPH] [--frames T] [--streams N]
Exit status 1 when a relative difference exceeds 1e-4, 77 without NumPy or PyTorch. Prints one
JSON line. Run by CTest (tst_torch_lstm) and by run_engine_bench.sh.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as error:  # CTest counts exit status 77 as skipped
    print(f"skipped: {error}")
    sys.exit(77)

DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path):
    data = open(path, "rb").read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    header.pop("__metadata__", None)
    body = data[8 + length:]
    return {key: np.frombuffer(body[e["data_offsets"][0]:e["data_offsets"][1]],
                               dtype=DTYPES[e["dtype"]]).reshape(e["shape"]).copy()
            for key, e in header.items()}


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for key, array in tensors.items():
        blob = np.ascontiguousarray(array).tobytes()
        name = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}[array.dtype]
        header[key] = {"dtype": name, "shape": list(array.shape),
                       "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rnnwb")
    parser.add_argument("graph", nargs="?", default=os.path.join(here, "lstm.rnn.json"))
    parser.add_argument("--frames", type=int, default=16)
    parser.add_argument("--streams", type=int, default=4)
    args = parser.parse_args()
    gates = ["i", "f", "g", "o"]  # torch.nn.LSTM's order of the stacked gate weights
    with tempfile.TemporaryDirectory() as tmp:
        weights, data, grads = (os.path.join(tmp, n) for n in ("w.st", "d.st", "g.st"))
        subprocess.run([args.rnnwb, "init", args.graph, "--seed", "5", "-o", weights],
                       check=True, stdout=subprocess.DEVNULL)
        w = read_safetensors(weights)
        hidden, inputs = w["connections.x->i.weight"].shape
        outputs = w["connections.h->y.weight"].shape[0]
        rng = np.random.default_rng(1)
        x = rng.uniform(-1, 1, (args.frames, args.streams, inputs)).astype(np.float32)
        target = rng.integers(0, outputs, (args.frames, args.streams)).astype(np.int64)
        write_safetensors(data, {"input": x, "target": target})
        subprocess.run([args.rnnwb, "grad", args.graph, "--weights", weights, "--data", data,
                        "-o", grads], check=True, stdout=subprocess.DEVNULL)
        g = read_safetensors(grads)

    lstm = torch.nn.LSTM(inputs, hidden)
    linear = torch.nn.Linear(hidden, outputs)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.from_numpy(np.concatenate(
            [w[f"connections.x->{k}.weight"] for k in gates])))
        lstm.weight_hh_l0.copy_(torch.from_numpy(np.concatenate(
            [w[f"connections.h->{k}@1.weight"] for k in gates])))
        lstm.bias_ih_l0.copy_(torch.from_numpy(np.concatenate(
            [w[f"layers.{k}.bias"] for k in gates])))
        lstm.bias_hh_l0.zero_()
        linear.weight.copy_(torch.from_numpy(w["connections.h->y.weight"]))
        linear.bias.copy_(torch.from_numpy(w["layers.y.bias"]))
    hs, _ = lstm(torch.from_numpy(x))
    logits = linear(hs).reshape(-1, outputs)
    loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(target).reshape(-1),
                                             reduction="sum")
    loss.backward()

    def split(t):
        return dict(zip(gates, t.grad.numpy().reshape(4, hidden, *t.shape[1:])))

    expected = {"loss": loss.item(), "layers.y.bias": linear.bias.grad.numpy(),
                "connections.h->y.weight": linear.weight.grad.numpy()}
    for k, v in split(lstm.weight_ih_l0).items():
        expected[f"connections.x->{k}.weight"] = v
    for k, v in split(lstm.weight_hh_l0).items():
        expected[f"connections.h->{k}@1.weight"] = v
    for k, v in split(lstm.bias_ih_l0).items():
        expected[f"layers.{k}.bias"] = v
    worst = 0.0
    for key, value in expected.items():
        ours = g[key].astype(np.float64)
        scale = max(np.abs(value).max(), 1e-12)
        worst = max(worst, float(np.abs(ours - value).max() / scale))
    missing = sorted(set(g) - set(expected))
    print(json.dumps({"bench": "check", "graph": args.graph, "loss_rnnwb": float(g["loss"]),
                      "loss_torch": loss.item(), "worst_relative_difference": worst,
                      "unchecked_keys": missing}))
    return 0 if worst < 1e-4 and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
