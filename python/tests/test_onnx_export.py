"""`rnnwb export --format onnx` (docs/interop.md): every example graph the engines compute and a
few random ones are exported, checked by onnx.checker and run in ONNX Runtime on random inputs;
the outputs must equal the engine's forward (rnnwb.Graph.forward) within 1e-5 relative, over the
whole sequence at once and streamed in two chunks through the state inputs and outputs. Graphs
the export cannot compute faithfully are refused by name. Needs onnx and onnxruntime from PyPI
(scripts/make-python-venv.sh installs them); skipped with the reason without them."""

import json
import os

import numpy as np
import pytest

import rnnwb
from conftest import ROOT, cli, example

onnx = pytest.importorskip("onnx", reason="onnx is not installed (scripts/make-python-venv.sh)")
ort = pytest.importorskip("onnxruntime",
                          reason="onnxruntime is not installed (scripts/make-python-venv.sh)")

RTOL = 1e-5
ATOL = 1e-6  # values near 0: float32 rounding of a sum of terms of order 1
FRAMES, STREAMS = 13, 3


def _version(name):
    with open(example(name)) as f:
        return json.load(f).get("version")


EXAMPLES = sorted(n for n in os.listdir(os.path.join(ROOT, "examples")) if n.endswith(".rnn.json"))
# What the engines compute (tests/common/engine_examples.hpp): version 1, and gru-complement.
COMPUTED = [n for n in EXAMPLES if _version(n) == 1 or n == "gru-complement.rnn.json"]
REFUSED = {"bidirectional-ctc.rnn.json": "ctc", "leaky-lp-2d.rnn.json": "2-D"}


def _export(graph_path, weights, tmp_path):
    weights_path = tmp_path / "w.safetensors"
    rnnwb.save_safetensors(weights_path, weights)
    model_path = tmp_path / "model.onnx"
    cli("export", graph_path, "--format", "onnx", "--weights", weights_path, "-o", model_path)
    model = onnx.load(str(model_path))
    onnx.checker.check_model(model, full_check=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3  # the state inputs are overridable initializers: ORT warns
    return model, ort.InferenceSession(str(model_path), options,
                                       providers=["CPUExecutionProvider"])


def _inputs(graph, rng, frames):
    return {layer.id: rng.uniform(-1, 1, (frames, STREAMS, layer.size)).astype(np.float32)
            for layer in graph.layers if layer.kind == "input"}


def _engine_data(graph, inputs):
    if len(inputs) == 1:
        return {"input": next(iter(inputs.values()))}
    return {"input." + k: v for k, v in inputs.items()}


def _run_in_chunks(session, outputs, inputs, cuts):
    """Runs the frames in chunks cut at `cuts`, each chunk from the state the one before left."""
    bounds = [0, *cuts, FRAMES]
    chunks, states = [], {}
    for begin, end in zip(bounds, bounds[1:]):
        feeds = {k: v[begin:end] for k, v in inputs.items()}
        feeds.update(states)
        chunk = dict(zip(outputs, session.run(outputs, feeds)))
        states = {n[:-len(".next")]: v for n, v in chunk.items() if n.startswith("state.")}
        chunks.append(chunk)
    return chunks


def _check_model(graph_path, graph, weights, tmp_path, seed=0):
    model, session = _export(graph_path, weights, tmp_path)
    rng = np.random.default_rng(seed)
    inputs = _inputs(graph, rng, FRAMES)
    expected = graph.forward(weights, _engine_data(graph, inputs))
    outputs = [o.name for o in model.graph.output]
    layer_outputs = [n for n in outputs if not n.startswith("state.")]
    state_outputs = [n for n in outputs if n.startswith("state.")]
    assert sorted(layer_outputs) == sorted(expected)
    # A state per layer read back, of the largest delay that reads it.
    carried = {k: v for k, v in graph.analyze()["max_delay_from"].items() if v > 0}
    states = {i.name[len("state."):]: i.type.tensor_type.shape.dim[0].dim_value
              for i in model.graph.input if i.name.startswith("state.")}
    assert states == carried

    whole = dict(zip(outputs, session.run(outputs, inputs)))
    for name in layer_outputs:
        np.testing.assert_allclose(whole[name], expected[name], rtol=RTOL, atol=ATOL,
                                   err_msg=f"{graph_path}: output {name}, whole sequence")

    # Two chunks, the second starting from the first's state.<id>.next; then chunks of one frame
    # first (fewer frames than a connection reads back: the state is what it reads).
    for cuts in ([5], [1, 2]):
        chunks = _run_in_chunks(session, outputs, inputs, cuts)
        for name in layer_outputs:
            np.testing.assert_allclose(np.concatenate([c[name] for c in chunks]), expected[name],
                                       rtol=RTOL, atol=ATOL,
                                       err_msg=f"{graph_path}: output {name}, chunks cut at {cuts}")
        for name in state_outputs:  # the state after the last chunk is the state after the whole
            np.testing.assert_allclose(chunks[-1][name], whole[name], rtol=RTOL, atol=ATOL)
    return model


@pytest.mark.parametrize("name", COMPUTED)
def test_example_exports_and_runs_as_the_engine(name, tmp_path):
    graph = rnnwb.Graph.load(example(name))
    _check_model(example(name), graph, graph.init(seed=1), tmp_path)


def test_the_interface_has_the_layer_ids_and_the_state_names(tmp_path):
    graph = rnnwb.Graph.load(example("elman.rnn.json"))
    model = _check_model(example("elman.rnn.json"), graph, graph.init(seed=2), tmp_path)
    assert [i.name for i in model.graph.input] == ["x", "state.h"]
    assert [o.name for o in model.graph.output] == ["y", "state.h.next"]
    assert model.opset_import[0].version == 17
    assert any(n.op_type == "Scan" for n in model.graph.node)


def _random_graph(rng):
    """A version 1 graph: 1-2 inputs, a chain of 1-3 hidden layers with random sizes,
    activations and delayed connections (full, sparse, diagonal, identity), maybe a
    multiplicative layer, and an output with cross-entropy or mse."""
    acts = ["tanh", "sigmoid", "relu", "identity"]
    layers = [{"id": "x", "kind": "input", "size": int(rng.integers(2, 6))}]
    connections = []
    hidden = []
    if rng.random() < 0.5:
        layers.append({"id": "u", "kind": "input", "size": int(rng.integers(1, 4))})
    for k in range(int(rng.integers(1, 4))):
        h = {"id": f"h{k}", "kind": "additive", "size": int(rng.integers(2, 7)),
             "activation": str(rng.choice(acts)), "bias": bool(rng.random() < 0.7)}
        layers.append(h)
        connections.append({"from": hidden[-1]["id"] if hidden else "x", "to": h["id"]})
        hidden.append(h)
    if len(layers) > 1 and layers[1]["id"] == "u":
        connections.append({"from": "u", "to": hidden[-1]["id"], "delay": int(rng.integers(0, 3))})
    for _ in range(int(rng.integers(1, 4))):
        src, dst = rng.choice(len(hidden), 2)
        c = {"from": hidden[src]["id"], "to": hidden[dst]["id"], "delay": int(rng.integers(1, 4))}
        kind = rng.choice(["full", "sparse", "diagonal", "identity"])
        if kind == "sparse":
            c.update(density=0.5, seed=int(rng.integers(1, 100)))
        elif kind != "full" and hidden[src]["size"] == hidden[dst]["size"]:
            c["type"] = str(kind)
        elif kind == "diagonal" or kind == "identity":
            c["type"] = "diagonal"
            c["from"] = c["to"]
        connections.append(c)
    if rng.random() < 0.5:  # a multiplicative layer of two factors, one of them delayed
        h = hidden[-1]
        layers.append({"id": "m", "kind": "multiplicative", "size": h["size"]})
        connections += [{"from": h["id"], "to": "m", "type": "identity"},
                        {"from": "x", "to": "m"},
                        {"from": "m", "to": h["id"], "delay": 1}]
    size = int(rng.integers(2, 5))
    if rng.random() < 0.5:
        layers.append({"id": "y", "kind": "additive", "size": size, "activation": "softmax",
                       "loss": "cross_entropy"})
    else:
        layers.append({"id": "y", "kind": "additive", "size": size, "loss": "mse"})
    connections.append({"from": hidden[-1]["id"], "to": "y"})
    connections.append({"from": hidden[0]["id"], "to": "y", "delay": int(rng.integers(0, 3))})
    return {"format": "rnnwb.graph", "version": 1, "name": "random", "layers": layers,
            "connections": connections}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_graph_exports_and_runs_as_the_engine(seed, tmp_path):
    rng = np.random.default_rng(seed)
    for _ in range(50):  # the first valid draw
        graph = rnnwb.Graph.from_json(_random_graph(rng))
        if not graph.validate():
            break
    else:
        pytest.fail("no valid random graph in 50 draws")
    path = tmp_path / "random.rnn.json"
    graph.save(path)
    _check_model(path, graph, graph.init(seed=seed), tmp_path, seed=seed)


@pytest.mark.parametrize("name,why", sorted(REFUSED.items()))
def test_what_it_cannot_compute_is_refused_by_name(name, why, tmp_path):
    graph_path = example(name)
    # No weights file exists for these graphs (the engines refuse them): any file will do, the
    # refusal comes first or the weights are refused; either way nothing is written.
    result = cli("export", graph_path, "--format", "onnx", "--weights", graph_path, "-o",
                 tmp_path / "m.onnx", check=False)
    assert result.returncode != 0
    assert not (tmp_path / "m.onnx").exists()
    assert "the ONNX export cannot compute graph" in result.stderr and why in result.stderr


def test_a_graph_that_reads_ahead_exports_for_whole_sequences(tmp_path):
    """Reads ahead from a plain node (x 2 frames ahead), a node scanning backward in time (a
    reversed Scan), a forward node beside it, and reads of the backward node's layer back and
    ahead from outside: whole sequences, no state inputs or outputs, the engine's outputs."""
    graph = {"format": "rnnwb.graph", "version": 2, "name": "ahead",
             "layers": [{"id": "x", "kind": "input", "size": 2},
                        {"id": "a", "kind": "additive", "size": 3, "activation": "tanh"},
                        {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
                        {"id": "f", "kind": "additive", "size": 2, "activation": "sigmoid"},
                        {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
             "connections": [{"from": "x", "to": "a"}, {"from": "x", "to": "a", "delay": -2},
                             {"from": "a", "to": "h"}, {"from": "h", "to": "h", "delay": -1},
                             {"from": "x", "to": "f"}, {"from": "f", "to": "f", "delay": 1},
                             {"from": "h", "to": "y"}, {"from": "h", "to": "y", "delay": 1},
                             {"from": "h", "to": "y", "delay": -2}, {"from": "f", "to": "y"}]}
    path = tmp_path / "ahead.rnn.json"
    path.write_text(json.dumps(graph))
    g = rnnwb.Graph.load(path)
    weights = g.init(seed=2)
    model, session = _export(path, weights, tmp_path)
    assert [i.name for i in model.graph.input] == ["x"]
    assert [o.name for o in model.graph.output] == ["y"]
    x = np.random.default_rng(3).uniform(-1, 1, (FRAMES, STREAMS, 2)).astype(np.float32)
    (y,) = session.run(["y"], {"x": x})
    np.testing.assert_allclose(y, g.forward(weights, {"input": x})["y"], rtol=RTOL, atol=ATOL)


def test_onnx_needs_weights_and_an_output_file(tmp_path):
    result = cli("export", example("elman.rnn.json"), "--format", "onnx", check=False)
    assert result.returncode != 0 and "--weights" in result.stderr
