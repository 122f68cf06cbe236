"""`rnnwb import` (docs/interop.md, "Import"): models of torch.onnx.export (nn.LSTM of 1 and 2
layers, bidirectional; nn.GRU; nn.RNN, with and without a Linear head) are imported as graphs,
and the graph's forward (rnnwb.Graph.forward) equals PyTorch's outputs within 1e-5; an imported
LSTM (also bidirectional: a reversed Scan) and a bidirectional GRU exported again run in ONNX
Runtime as PyTorch does (the round trip). What the importer does not map, a broken file and a
file over the size limit are refused by name. Needs torch, onnx and onnxruntime
(scripts/make-python-venv.sh); skipped with the reason without them."""

import io
import os
import warnings

import numpy as np
import pytest

import rnnwb
from conftest import cli

torch = pytest.importorskip("torch", reason="torch is not installed (scripts/make-python-venv.sh)")
onnx = pytest.importorskip("onnx", reason="onnx is not installed (scripts/make-python-venv.sh)")
ort = pytest.importorskip("onnxruntime",
                          reason="onnxruntime is not installed (scripts/make-python-venv.sh)")
from onnx import TensorProto, helper  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6
FRAMES, STREAMS, FEATURES = 7, 3, 3
ONNX_LIMIT = 256 << 20  # kOnnxModelLimit (rnnwb/core/onnx_import.hpp)


class _Model(torch.nn.Module):
    """A recurrent module's output sequence, through an optional head."""

    def __init__(self, rnn, *head):
        super().__init__()
        self.rnn = rnn
        self.head = torch.nn.Sequential(*head)

    def forward(self, x):
        return self.head(self.rnn(x)[0])


CASES = {
    "lstm": lambda: _Model(torch.nn.LSTM(FEATURES, 5)),
    "lstm-2-layers": lambda: _Model(torch.nn.LSTM(FEATURES, 4, num_layers=2)),
    "lstm-bidirectional": lambda: _Model(torch.nn.LSTM(FEATURES, 4, bidirectional=True)),
    "lstm-2-layers-bidirectional-softmax": lambda: _Model(
        torch.nn.LSTM(FEATURES, 3, num_layers=2, bidirectional=True),
        torch.nn.Linear(6, 4), torch.nn.Softmax(dim=-1)),
    "gru": lambda: _Model(torch.nn.GRU(FEATURES, 5)),
    "gru-bidirectional": lambda: _Model(torch.nn.GRU(FEATURES, 3, bidirectional=True)),
    "rnn-tanh": lambda: _Model(torch.nn.RNN(FEATURES, 5)),
    "rnn-tanh-linear": lambda: _Model(torch.nn.RNN(FEATURES, 5), torch.nn.Linear(5, 2)),
    "rnn-relu-2-layers-linear-tanh": lambda: _Model(
        torch.nn.RNN(FEATURES, 4, num_layers=2, nonlinearity="relu"),
        torch.nn.Linear(4, 3), torch.nn.Tanh()),
}


def _export(module, path):
    x = torch.zeros(FRAMES, STREAMS, FEATURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's notes on batch sizes of exported RNNs
        torch.onnx.export(module, (x,), str(path), opset_version=17, input_names=["x"],
                          output_names=["y"],
                          dynamic_axes={"x": {0: "T", 1: "N"}, "y": {0: "T", 1: "N"}})


def _import(model_path, tmp_path):
    graph_path, weights_path = tmp_path / "g.rnn.json", tmp_path / "w.safetensors"
    cli("import", model_path, "-o", graph_path, "--weights-out", weights_path)
    return rnnwb.Graph.load(graph_path), rnnwb.load_safetensors(weights_path)[0], graph_path


def _torch_model(case, seed=0):
    torch.manual_seed(seed)
    module = CASES[case]().eval()
    with torch.no_grad():  # biases and weights of every size, so no gate order hides
        for p in module.parameters():
            p.uniform_(-0.8, 0.8)
    return module


def _torch_outputs(module, x):
    with torch.no_grad():
        return module(torch.from_numpy(x)).numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_imported_graph_computes_what_pytorch_does(case, tmp_path):
    module = _torch_model(case)
    _export(module, tmp_path / "m.onnx")
    graph, weights, _ = _import(tmp_path / "m.onnx", tmp_path)
    x = np.random.default_rng(1).uniform(-1, 1, (FRAMES, STREAMS, FEATURES)).astype(np.float32)
    (y,) = graph.forward(weights, {"input": x}).values()
    np.testing.assert_allclose(y, _torch_outputs(module, x), rtol=RTOL, atol=ATOL)
    output = [layer for layer in graph.layers if layer.loss != "none"]
    assert [layer.id for layer in output] == ["y"]
    assert output[0].loss == ("cross_entropy" if "softmax" in case else "mse")


def test_directions_are_delays_of_one_frame_back_and_ahead(tmp_path):
    _export(_torch_model("gru-bidirectional"), tmp_path / "m.onnx")
    graph, _, graph_path = _import(tmp_path / "m.onnx", tmp_path)
    delays = sorted({c.delay for c in graph.connections})
    assert delays == [-1, 0, 1]
    assert '"version": 2' in graph_path.read_text()
    analysis = cli("analyze", graph_path).stdout
    assert "whole sequences" in analysis, analysis


@pytest.mark.parametrize("case", ["lstm", "lstm-2-layers-bidirectional-softmax",
                                  "gru-bidirectional"])
def test_round_trip_through_the_export_runs_in_onnx_runtime(case, tmp_path):
    module = _torch_model(case)
    _export(module, tmp_path / "m.onnx")
    _, weights, graph_path = _import(tmp_path / "m.onnx", tmp_path)
    rnnwb.save_safetensors(tmp_path / "w2.safetensors", weights)
    cli("export", graph_path, "--format", "onnx", "--weights", tmp_path / "w2.safetensors",
        "-o", tmp_path / "back.onnx")
    onnx.checker.check_model(onnx.load(str(tmp_path / "back.onnx")), full_check=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(tmp_path / "back.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).uniform(-1, 1, (FRAMES, STREAMS, FEATURES)).astype(np.float32)
    (y,) = session.run(["y"], {"x": x})
    np.testing.assert_allclose(y, _torch_outputs(module, x), rtol=RTOL, atol=ATOL)


def _refused(model_path, tmp_path):
    result = cli("import", model_path, "-o", tmp_path / "g.rnn.json", check=False)
    assert result.returncode == 1, result.stderr
    assert not (tmp_path / "g.rnn.json").exists()
    return result.stderr


def _save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))


def test_an_unsupported_operator_is_refused_naming_it_and_its_node(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", "N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["T", "N", 3])
    node = helper.make_node("Elu", ["x"], ["y"], name="the_elu")
    _save(helper.make_graph([node], "g", [x], [y]), tmp_path / "m.onnx")
    err = _refused(tmp_path / "m.onnx", tmp_path)
    assert "node 'the_elu' (Elu): operator Elu is not one the importer maps" in err, err


def test_a_last_state_output_and_batch_first_are_refused_by_name(tmp_path):
    class WithState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(FEATURES, 2)

        def forward(self, x):
            return self.rnn(x)

    _export(WithState().eval(), tmp_path / "state.onnx")
    assert "is the last state of" in _refused(tmp_path / "state.onnx", tmp_path)
    _export(_Model(torch.nn.LSTM(FEATURES, 2, batch_first=True)).eval(), tmp_path / "bf.onnx")
    err = _refused(tmp_path / "bf.onnx", tmp_path)
    assert "(LSTM): X" in err and "[N, T, 3], where [T, N, features] is needed" in err, err


def test_a_graph_that_cannot_be_written_leaves_no_weights(tmp_path):
    _export(_torch_model("gru"), tmp_path / "m.onnx")
    weights = tmp_path / "w.safetensors"
    result = cli("import", tmp_path / "m.onnx", "-o", tmp_path / "no-such-folder" / "g.rnn.json",
                 "--weights-out", weights, check=False)
    assert result.returncode == 1, result.stderr
    assert "no-such-folder" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_a_broken_file_is_refused_by_name(tmp_path):
    _export(_torch_model("gru"), tmp_path / "m.onnx")
    data = (tmp_path / "m.onnx").read_bytes()
    (tmp_path / "broken.onnx").write_bytes(data[: len(data) // 3])
    err = _refused(tmp_path / "broken.onnx", tmp_path)
    assert f"{tmp_path / 'broken.onnx'}: not an ONNX model" in err, err


def test_a_file_over_the_size_limit_is_refused_by_name(tmp_path):
    big = tmp_path / "big.onnx"
    with open(big, "wb") as f:
        f.truncate(ONNX_LIMIT + 1)  # sparse: no disk is written
    err = _refused(big, tmp_path)
    assert f"{big}: the ONNX model is larger than" in err, err


def test_the_round_trip_walkthrough_of_the_docs_runs(tmp_path, monkeypatch):
    """docs/interop.md, "Round trip with PyTorch": its python and sh blocks, in order."""
    import re
    import subprocess

    from conftest import CLI, ROOT
    text = open(os.path.join(ROOT, "docs", "interop.md"), encoding="utf-8").read()
    section = text.split("## Round trip with PyTorch", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(python|sh)\n(.*?)```", section, re.S)
    assert [kind for kind, _ in blocks] == ["python", "sh", "python", "sh", "python"]
    env = dict(os.environ,
               PATH=os.path.dirname(os.path.abspath(CLI)) + os.pathsep + os.environ["PATH"])
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for i, (kind, code) in enumerate(blocks):
        if kind == "python":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(code, f"docs/interop.md block {i + 1}", "exec"), namespace)
        else:
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", code], env=env,
                                    capture_output=True, text=True)
            assert result.returncode == 0, result.stderr


def _ort_outputs(path, x):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def _recurrent_model(op, hidden, direction, gates, **attributes):
    """An ONNX model of one recurrent operator with random W, R, B (and LSTM peepholes),
    squeezed to [T, N, D * H] as torch's glue does."""
    rng = np.random.default_rng(3)
    d = 2 if direction == "bidirectional" else 1
    tensors = {"W": rng.uniform(-0.8, 0.8, (d, gates * hidden, FEATURES)),
               "R": rng.uniform(-0.8, 0.8, (d, gates * hidden, hidden)),
               "B": rng.uniform(-0.8, 0.8, (d, 2 * gates * hidden))}
    inputs = ["x", "W", "R", "B"]
    if op == "LSTM":
        tensors["P"] = rng.uniform(-0.8, 0.8, (d, 3 * hidden))
        inputs += ["", "", "", "P"]
    init = [helper.make_tensor(k, TensorProto.FLOAT, v.shape, v.astype(np.float32).ravel())
            for k, v in tensors.items()]
    init.append(helper.make_tensor("perm_shape", TensorProto.INT64, [3], [0, 0, -1]))
    nodes = [helper.make_node(op, inputs, ["Y"], name="cell", hidden_size=hidden,
                              direction=direction, **attributes),
             helper.make_node("Transpose", ["Y"], ["Yt"], perm=[0, 2, 1, 3]),
             helper.make_node("Reshape", ["Yt", "perm_shape"], ["y"])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", "N", FEATURES])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["T", "N", d * hidden])
    return helper.make_graph(nodes, "cell", [x], [y], init)


ONNX_CASES = {
    "lstm-reverse-peepholes": lambda: _recurrent_model("LSTM", 3, "reverse", 4),
    "lstm-bidirectional-peepholes": lambda: _recurrent_model("LSTM", 2, "bidirectional", 4),
    "gru-before-reset-0-bidirectional": lambda: _recurrent_model(
        "GRU", 3, "bidirectional", 3, linear_before_reset=0),
    "rnn-sigmoid-reverse": lambda: _recurrent_model("RNN", 3, "reverse", 1,
                                                    activations=["Sigmoid"]),
}


@pytest.mark.parametrize("case", sorted(ONNX_CASES))
def test_what_torch_does_not_write_computes_what_onnx_runtime_does(case, tmp_path):
    _save(ONNX_CASES[case](), tmp_path / "m.onnx")
    graph, weights, _ = _import(tmp_path / "m.onnx", tmp_path)
    x = np.random.default_rng(4).uniform(-1, 1, (FRAMES, STREAMS, FEATURES)).astype(np.float32)
    np.testing.assert_allclose(graph.forward(weights, {"input": x})["y"],
                               _ort_outputs(tmp_path / "m.onnx", x), rtol=RTOL, atol=ATOL)


def test_sub_mul_and_constants_around_a_layer_compute_what_onnx_runtime_does(tmp_path):
    rng = np.random.default_rng(5)
    f32 = lambda name, a: helper.make_tensor(name, TensorProto.FLOAT, a.shape,  # noqa: E731
                                             a.astype(np.float32).ravel())
    init = [f32("W", rng.uniform(-1, 1, (FEATURES, 4))), f32("c", rng.uniform(-1, 1, (4,))),
            f32("s", rng.uniform(-2, 2, (1, 1, 4))), f32("V", rng.uniform(-1, 1, (4, 2)))]
    nodes = [helper.make_node("MatMul", ["x", "W"], ["a"], name="mm"),
             helper.make_node("Sub", ["c", "a"], ["b"], name="sub"),
             helper.make_node("Mul", ["b", "a"], ["p"], name="mul"),
             helper.make_node("Mul", ["p", "s"], ["q"], name="scale"),
             helper.make_node("Sub", ["q", "b"], ["r"], name="sub2"),
             helper.make_node("Tanh", ["r"], ["t"], name="tanh"),
             helper.make_node("Slice", ["t", "st", "en", "ax"], ["u"], name="slice"),
             helper.make_node("MatMul", ["u", "V"], ["y"], name="head")]
    init += [helper.make_tensor(n, TensorProto.INT64, [1], [v])
             for n, v in (("st", 1), ("en", 4), ("ax", 2))]
    init[3] = f32("V", rng.uniform(-1, 1, (3, 2)))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", "N", FEATURES])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["T", "N", 2])
    _save(helper.make_graph(nodes, "ops", [x], [y], init), tmp_path / "m.onnx")
    graph, weights, _ = _import(tmp_path / "m.onnx", tmp_path)
    x = rng.uniform(-1, 1, (FRAMES, STREAMS, FEATURES)).astype(np.float32)
    np.testing.assert_allclose(graph.forward(weights, {"input": x})["y"],
                               _ort_outputs(tmp_path / "m.onnx", x), rtol=RTOL, atol=ATOL)
