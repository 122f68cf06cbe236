"""rnnwb.torch.GraphModule over a list of 2-D examples: the grid engine's forward, and its
backward from PyTorch's output gradients (GridEngine::backwardFromOutputs).

gradcheck runs in float32 (the engine's precision) with test_torch.py's tolerances: eps 1e-3,
atol 2e-4, rtol 5e-3 on the numerical Jacobian; gradients 2 % off fail it
(test_gradcheck_of_examples_fails_on_gradients_two_percent_off)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rnnwb  # noqa: E402
from rnnwb.torch import GraphModule, _EngineFunction  # noqa: E402
from test_grid import MSE_2D, examples_of  # noqa: E402
from test_torch import GRADCHECK  # noqa: E402

# σ = (1, 1) with a multiplicative layer reading a complement, and a softmax at every position.
SOFTMAX_2D = {
    "format": "rnnwb.graph", "version": 2, "name": "softmax-2d", "dimensions": 2,
    "layers": [
        {"id": "x", "kind": "input", "size": 2},
        {"id": "h", "kind": "additive", "size": 2, "activation": "tanh"},
        {"id": "g", "kind": "multiplicative", "size": 2},
        {"id": "y", "kind": "additive", "size": 3, "activation": "softmax",
         "loss": "cross_entropy"}],
    "connections": [
        {"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
        {"from": "h", "to": "h", "delay": [0, 1]}, {"from": "x", "to": "g"},
        {"from": "h", "to": "g", "type": "complement", "delay": [1, 1]},
        {"from": "g", "to": "y"}]}


def small_examples(sizes=((2, 3), (1, 2), (3, 2)), seed=1):
    rng = np.random.default_rng(seed)
    return [torch.from_numpy(rng.uniform(-1, 1, (h, w, 2)).astype(np.float32)) for h, w in sizes]


def engine_function(m, xs, with_inputs):
    """The module's engine function over examples `xs`, of the parameters (or of the inputs)."""
    keys = tuple(f"input.{k}" for k in range(len(xs)))
    params = tuple(m.params[k.replace(".", "__")] for k in m.weight_keys)
    if with_inputs:
        xs = tuple(x.clone().requires_grad_() for x in xs)
        fixed = [p.detach() for p in params]
        return (lambda *x: _EngineFunction.apply(m, keys, *x, *fixed)), xs
    return (lambda *ps: _EngineFunction.apply(m, keys, *xs, *ps)), params


def test_forward_gives_each_examples_outputs():
    g = rnnwb.Graph.from_json(SOFTMAX_2D)
    m = GraphModule(g, seed=1)
    xs = small_examples()
    ys = m(xs)
    want = g.forward(m.weights(), [x.numpy() for x in xs])
    assert [y.shape for y in ys] == [(2, 3, 3), (1, 2, 3), (3, 2, 3)]
    for y, w in zip(ys, want):
        assert np.array_equal(y.detach().numpy(), w["y"])


def test_backward_equals_graph_grad_for_the_same_loss():
    g = rnnwb.Graph.from_json(MSE_2D)
    m = GraphModule(g, seed=2, packer="baseline")
    data = examples_of(g)
    ys = m([torch.from_numpy(e["input"]) for e in data])
    loss = sum(0.5 * ((y - torch.from_numpy(e["target"])) ** 2).sum() for y, e in zip(ys, data))
    loss.backward()
    want_loss, want = g.grad(m.weights(), data, packer="baseline")
    assert np.isclose(loss.item(), want_loss, rtol=1e-5)
    for k, p in m.params.items():
        key = k.replace("__", ".")
        assert np.allclose(p.grad.numpy(), want[key], rtol=1e-4, atol=1e-6), key


@pytest.mark.filterwarnings("ignore:Input #.*double precision")  # float32 on purpose
@pytest.mark.parametrize("with_inputs", [False, True], ids=["parameters", "inputs"])
@pytest.mark.parametrize("graph", [SOFTMAX_2D, MSE_2D], ids=["softmax-2d", "mse-2d"])
def test_gradcheck_of_examples(graph, with_inputs):
    m = GraphModule(rnnwb.Graph.from_json(graph), seed=3)
    assert torch.autograd.gradcheck(*engine_function(m, small_examples(), with_inputs),
                                    **GRADCHECK)


@pytest.mark.filterwarnings("ignore:Input #.*double precision")
def test_gradcheck_of_examples_fails_on_gradients_two_percent_off(monkeypatch):
    m = GraphModule(rnnwb.Graph.from_json(SOFTMAX_2D), seed=3)
    engine = rnnwb.Graph.backward_from_outputs
    monkeypatch.setattr(rnnwb.Graph, "backward_from_outputs", lambda self, *a, **kw: {
        k: v * np.float32(1.02) for k, v in engine(self, *a, **kw).items()})
    assert not torch.autograd.gradcheck(*engine_function(m, small_examples(), False),
                                        raise_exception=False, **GRADCHECK)


def test_a_2d_graph_trains_with_adam():
    g = rnnwb.Graph.from_json(MSE_2D)
    m = GraphModule(g, seed=0)
    opt = torch.optim.Adam(m.parameters(), lr=0.05)
    data = examples_of(g, count=6, seed=5)
    xs = [torch.from_numpy(e["input"]) for e in data]
    ts = [torch.from_numpy(e["target"]) for e in data]
    losses = []
    for _ in range(25):
        opt.zero_grad()
        loss = sum(((y - t) ** 2).sum() for y, t in zip(m(xs), ts))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0], losses
