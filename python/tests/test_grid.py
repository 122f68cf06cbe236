"""2-D graphs and per-example data (graph-format-v2.md) through the grid engine: init and grad
bytes are the CLI's, for every packer, for a list of examples as for the numbered keys of a data
file; forward gives each example's outputs at its grid; analyze gives the scan vectors."""

import numpy as np
import pytest

import rnnwb
from conftest import cli, example

# A small 2-D graph: σ = (1, 1), a block-strided branch and an mse output at the block grid.
MSE_2D = {
    "format": "rnnwb.graph", "version": 2, "name": "mse-2d", "dimensions": 2,
    "layers": [
        {"id": "x", "kind": "input", "size": 2},
        {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
        {"id": "b", "kind": "additive", "size": 2, "activation": "sigmoid"},
        {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
    "connections": [
        {"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
        {"from": "h", "to": "h", "delay": [0, 1]},
        {"from": "h", "to": "b", "type": "block", "block": [2, 1]},
        {"from": "b", "to": "y"}]}


def examples_of(g, count=4, seed=3):
    """Random examples of random sizes (H, W in 1..3 x 2..5) with targets for each loss."""
    rng = np.random.default_rng(seed)
    layers = {l.id: l for l in g.layers}
    a = g.analyze()
    out = []
    for _ in range(count):
        h, w = int(rng.integers(1, 4)), int(rng.integers(2, 6))
        e = {"input": rng.uniform(-1, 1, (h, w, layers[a["inputs"][0]].size)).astype(np.float32)}
        y = layers[a["outputs"][0]]
        if y.loss == "ctc":  # one label per two columns: always alignable
            e["target"] = rng.integers(1, y.size, (w + 1) // 2)
        elif y.loss == "mse":  # the block [2, 1] halves the width
            e["target"] = rng.uniform(-1, 1, (h, (w + 1) // 2, y.size)).astype(np.float32)
        out.append(e)
    return out


def numbered(examples):
    return {f"{k}.{i}": v for i, e in enumerate(examples) for k, v in e.items()}


@pytest.mark.parametrize("packer", ["shelf", "baseline", "padded"])
@pytest.mark.parametrize("name", ["leaky-lp-2d.rnn.json", "mse-2d"])
def test_init_and_grad_bytes_of_2d_examples_are_the_clis(tmp_path, name, packer):
    if name.endswith(".json"):
        g, path = rnnwb.Graph.load(example(name)), example(name)
    else:
        g, path = rnnwb.Graph.from_json(MSE_2D), tmp_path / "g.rnn.json"
        g.save(path)
    cli("init", path, "--seed", 2, "-o", tmp_path / "w.safetensors")
    w, _ = rnnwb.load_safetensors(tmp_path / "w.safetensors")
    assert all(np.array_equal(v, w[k]) for k, v in g.init(seed=2).items())
    data = examples_of(g)
    rnnwb.save_safetensors(tmp_path / "d.safetensors", numbered(data))
    cli("grad", path, "--weights", tmp_path / "w.safetensors", "--data",
        tmp_path / "d.safetensors", "--packer", packer, "-o", tmp_path / "g.safetensors")
    want, _ = rnnwb.load_safetensors(tmp_path / "g.safetensors")
    want_loss = want.pop("loss")
    for form in (data, numbered(data)):  # a list of examples, or a data file's keys
        loss, grads = g.grad(w, form, packer=packer)
        assert np.float32(loss) == want_loss
        assert grads.keys() == want.keys()
        for k in want:
            assert np.array_equal(grads[k], want[k]), k


def test_forward_gives_each_examples_outputs_at_its_grid():
    g = rnnwb.Graph.from_json(MSE_2D)
    w = g.init(1)
    data = examples_of(g, count=3)
    out = g.forward(w, [e["input"] for e in data])  # inputs alone, as arrays
    assert [o["y"].shape for o in out] == [e["target"].shape for e in data]
    loss, _ = g.grad(w, data)
    assert np.isclose(sum(0.5 * ((o["y"] - e["target"]) ** 2).sum() for o, e in zip(out, data)),
                      loss, rtol=1e-5)
    assert g.loss(w, data) == loss
    # An example computed alone gives what it gives in the batch: packing is invisible.
    alone = g.forward(w, [data[1]["input"]])[0]["y"]
    assert np.allclose(alone, out[1]["y"], atol=1e-6)


def test_backward_from_outputs_of_examples_matches_the_own_mse_loss():
    g = rnnwb.Graph.from_json(MSE_2D)
    w = g.init(4)
    data = examples_of(g)
    inputs = [{"input": e["input"]} for e in data]
    out = g.forward(w, inputs)
    given = [{"y": o["y"] - e["target"]} for o, e in zip(out, data)]
    ext = g.backward_from_outputs(w, inputs, given, input_gradients=True)
    _, own = g.grad(w, data)
    for k in own:
        assert np.array_equal(ext[k], own[k]), k
    assert [ext[f"input.{i}"].shape for i in range(len(data))] == [e["input"].shape for e in data]


def test_a_graph_that_reads_ahead_on_sequences_gives_t_n_size():
    g = rnnwb.Graph.load(example("bidirectional-ctc.rnn.json"))
    w = g.init(0)
    x = np.random.default_rng(0).uniform(-1, 1, (6, 3, 4)).astype(np.float32)
    out = g.forward(w, {"input": x})["y"]
    assert out.shape == (6, 3, 5)
    each = g.forward(w, [x[:, n] for n in range(3)])
    for n in range(3):
        assert np.array_equal(out[:, n], each[n]["y"])
    grads = g.backward_from_outputs(w, {"input": x}, {"y": np.ones_like(out)},
                                    input_gradients=True)
    assert grads["input"].shape == x.shape


def test_analyze_gives_the_scan_vectors():
    a = rnnwb.Graph.load(example("leaky-lp-2d-four-directions.rnn.json")).analyze()
    scans = [n["scan"] for n in a["nodes"] if n["recurrent"]]
    assert sorted(scans) == [[-1, -1], [-1, 1], [1, -1], [1, 1]]
    assert all(n["scan"] == [] for n in a["nodes"] if not n["recurrent"])
    a = rnnwb.Graph.load(example("bidirectional-ctc.rnn.json")).analyze()
    assert sorted(n["scan"] for n in a["nodes"] if n["recurrent"]) == [[-1], [1]]


def test_bad_examples_raise_with_the_clis_message(tmp_path):
    g = rnnwb.Graph.load(example("leaky-lp-2d.rnn.json"))
    w = g.init(0)
    data = examples_of(g, count=3)
    data[2]["input"] = data[2]["input"][:, :, :0]
    rnnwb.save_safetensors(tmp_path / "w.safetensors", w)
    rnnwb.save_safetensors(tmp_path / "d.safetensors", numbered(data))
    with pytest.raises((ValueError, RuntimeError)) as e:
        g.grad(w, data)
    r = cli("grad", example("leaky-lp-2d.rnn.json"), "--weights", tmp_path / "w.safetensors",
            "--data", tmp_path / "d.safetensors", "-o", tmp_path / "g.safetensors", check=False)
    cli_message = r.stderr.strip().split("error: ", 1)[1]
    assert "example 2" in str(e.value)
    assert str(e.value) == cli_message.replace(str(tmp_path / "d.safetensors"), "data")
    with pytest.raises(ValueError, match="unknown packer 'tetris'"):
        g.grad(w, examples_of(g, count=2), packer="tetris")
