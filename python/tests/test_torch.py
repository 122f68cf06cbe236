"""rnnwb.torch.GraphModule: the engine's forward and its BPTT from PyTorch's output gradients.

gradcheck runs in float32 (the engine's precision), with eps 1e-3 and tolerances atol 2e-4,
rtol 5e-3 on the numerical Jacobian (float32 central differences of a small graph): tight enough
that gradients 2 % off fail it (test_gradcheck_fails_on_gradients_two_percent_off)."""

GRADCHECK = dict(eps=1e-3, atol=2e-4, rtol=5e-3, nondet_tol=0.0, fast_mode=False)

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rnnwb  # noqa: E402
from rnnwb.torch import GraphModule  # noqa: E402
from conftest import example  # noqa: E402


def small(name, size=3):
    g = rnnwb.Graph.load(example(name))
    for layer in g.layers:
        if layer.kind != "input" and layer.loss == "none":
            g.set_layer(layer.id, size=size)
    return g


def test_parameters_are_the_graphs_weights():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    m = GraphModule(g, seed=3)
    w = g.init(3)
    assert {k.replace("__", ".") for k, _ in m.params.items()} == set(w)
    for k, v in m.weights().items():
        assert np.array_equal(v, w[k])


def test_backward_equals_graph_grad_for_the_same_loss():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    m = GraphModule(g, seed=1)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (6, 4, 8)).astype(np.float32)
    t = rng.integers(0, 8, (6, 4))
    y = m(torch.from_numpy(x))
    loss = -torch.log(y.reshape(-1, 8)[torch.arange(24), torch.from_numpy(t).reshape(-1)]).sum()
    loss.backward()
    want_loss, want = g.grad(m.weights(), {"input": x, "target": t})
    assert np.isclose(loss.item(), want_loss, rtol=1e-5)
    for k, p in m.params.items():
        key = k.replace("__", ".")
        assert np.allclose(p.grad.numpy(), want[key], rtol=1e-3, atol=1e-5), key


@pytest.mark.filterwarnings("ignore:Input #.*double precision")  # float32 on purpose
@pytest.mark.parametrize("name", ["elman.rnn.json", "lstm-peephole.rnn.json", "jordan.rnn.json"])
def test_gradcheck(name):
    g = small(name)
    m = GraphModule(g, seed=2)
    rng = np.random.default_rng(1)
    size = g.layers[0].size
    x = torch.from_numpy(rng.uniform(-1, 1, (4, 2, size)).astype(np.float32))
    assert torch.autograd.gradcheck(*engine_function(m, x), **GRADCHECK)


def engine_function(m, x):
    """The module's engine function of its parameters alone (gradcheck's inputs), and them."""
    from rnnwb.torch import _EngineFunction
    params = tuple(m.params[k.replace(".", "__")] for k in m.weight_keys)
    return (lambda *ps: _EngineFunction.apply(m, (m.input_keys[0],), x, *ps)), params


@pytest.mark.filterwarnings("ignore:Input #.*double precision")
def test_gradcheck_fails_on_gradients_two_percent_off(monkeypatch):
    g = small("elman.rnn.json")
    m = GraphModule(g, seed=2)
    m.keep_forward = False  # every backward through backward_from_outputs, patched below
    x = torch.from_numpy(np.random.default_rng(1).uniform(-1, 1, (4, 2, 8)).astype(np.float32))
    engine = rnnwb.Graph.backward_from_outputs
    monkeypatch.setattr(rnnwb.Graph, "backward_from_outputs", lambda self, *a, **kw: {
        k: v * np.float32(1.02) for k, v in engine(self, *a, **kw).items()})
    assert not torch.autograd.gradcheck(*engine_function(m, x), raise_exception=False,
                                        **GRADCHECK)


def test_lstm_peephole_trains_with_adam():
    g = rnnwb.Graph.load(example("lstm-peephole.rnn.json"))
    m = GraphModule(g, seed=0)
    opt = torch.optim.Adam(m.parameters(), lr=0.01)
    size = g.layers[0].size
    out_size = next(l.size for l in g.layers if l.loss != "none")
    rng = np.random.default_rng(0)
    # Predict the previous frame's input class: learnable by a recurrent net.
    classes = rng.integers(0, min(size, out_size), (20, 8))
    x = torch.from_numpy(np.eye(size, dtype=np.float32)[classes])
    target = torch.from_numpy(np.roll(classes, 1, axis=0)).reshape(-1)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        y = m(x).reshape(-1, out_size)
        loss = torch.nn.functional.nll_loss(torch.log(y[8:] + 1e-9), target[8:])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0], losses


@pytest.mark.filterwarnings("ignore:Input #.*double precision")  # float32 on purpose
@pytest.mark.parametrize("name", ["elman.rnn.json", "gru-complement.rnn.json",
                                  "two-recurrent-nodes.rnn.json"])
def test_gradcheck_of_the_inputs(name):
    """An input that requires grad gets d(loss)/d(input) from the engine's backward."""
    g = small(name)
    m = GraphModule(g, seed=4)
    rng = np.random.default_rng(2)
    from rnnwb.torch import _EngineFunction
    keys = tuple(m.input_keys)
    inputs = [layer for layer in g.layers if layer.kind == "input"]
    size = {("input" if len(inputs) == 1 else "input." + layer.id): layer.size for layer in inputs}
    xs = tuple(torch.from_numpy(rng.uniform(-1, 1, (3, 2, size[k])).astype(np.float32))
               .requires_grad_() for k in keys)
    params = [m.params[k.replace(".", "__")].detach() for k in m.weight_keys]
    assert torch.autograd.gradcheck(lambda *x: _EngineFunction.apply(m, keys, *x, *params), xs,
                                    **GRADCHECK)


def test_input_gradients_reach_the_input():
    m = GraphModule(example("elman.rnn.json"), seed=1)
    x = torch.zeros(2, 1, 8, requires_grad=True)
    m(x).sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("name", ["elman.rnn.json", "lstm-peephole.rnn.json",
                                  "bidirectional-ctc.rnn.json"])
def test_kept_forward_gives_the_floats_of_a_second_forward(name):
    """The backward on the forward kept in the engine (keep_forward, the default) gives the
    gradients of backward_from_outputs, which runs the forward again, bit for bit; so does a
    backward after the engine computed something else in between (it falls back)."""
    g = small(name)
    rng = np.random.default_rng(3)
    size = g.layers[0].size
    x = torch.from_numpy(rng.uniform(-1, 1, (5, 2, size)).astype(np.float32))
    grads = []
    for keep, between in ((True, False), (False, False), (True, True)):
        m = GraphModule(g, seed=5)
        m.keep_forward = keep
        xi = x.clone().requires_grad_()
        y = m(xi)
        if between:
            g.forward(m.weights(), {"input": x.numpy()})
        (y * torch.linspace(-1, 1, y.numel()).reshape(y.shape)).sum().backward()
        grads.append([p.grad.clone() for p in m.params.values()] + [xi.grad.clone()])
    for other in grads[1:]:
        assert all(torch.equal(a, b) for a, b in zip(grads[0], other))
