"""init, grad, forward and the external backward against the CLI's files, bit for bit; bad input
raises with the CLI's message; two graphs in two threads give what they give one after the other."""

import threading

import numpy as np
import pytest

import rnnwb
from conftest import cli, example


def random_data(g, frames=7, streams=3, seed=5):
    rng = np.random.default_rng(seed)
    a = g.analyze()
    sizes = {l.id: l.size for l in g.layers}
    losses = {l.id: l.loss for l in g.layers}
    keys = g.data_keys()
    data = {}
    for key, layer in zip(keys["inputs"], a["inputs"]):
        data[key] = rng.uniform(-1, 1, (frames, streams, sizes[layer])).astype(np.float32)
    for key, layer in zip(keys["targets"], a["outputs"]):
        if losses[layer] == "cross_entropy":
            data[key] = rng.integers(0, sizes[layer], (frames, streams)).astype(np.int64)
        else:
            data[key] = rng.uniform(-1, 1, (frames, streams, sizes[layer])).astype(np.float32)
    return data


@pytest.mark.parametrize("name", ["elman.rnn.json", "lstm-peephole.rnn.json",
                                  "sparse-rnn.rnn.json", "adding-lstm.rnn.json"])
def test_init_and_grad_bytes_are_the_clis(tmp_path, name):
    g = rnnwb.Graph.load(example(name))
    w = g.init(seed=4)
    mine = tmp_path / "mine.safetensors"
    rnnwb.save_safetensors(mine, w, {"graph": g.name, "seed": "4"})
    theirs = tmp_path / "w.safetensors"
    cli("init", example(name), "--seed", 4, "-o", theirs)
    assert mine.read_bytes() == theirs.read_bytes()

    data = random_data(g)
    rnnwb.save_safetensors(tmp_path / "d.safetensors", data)
    cli("grad", example(name), "--weights", theirs, "--data", tmp_path / "d.safetensors",
        "-o", tmp_path / "g.safetensors")
    loss, grads = g.grad(w, data)
    want, _ = rnnwb.load_safetensors(tmp_path / "g.safetensors")
    assert np.float32(loss) == want.pop("loss")
    assert grads.keys() == want.keys()
    for k in want:
        assert np.array_equal(grads[k], want[k]), k


def test_forward_outputs_and_loss():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    w = g.init(1)
    data = random_data(g)
    out = g.forward(w, {"input": data["input"]})
    assert out["y"].shape == (7, 3, 8) and out["y"].dtype == np.float32
    assert np.allclose(out["y"].sum(axis=2), 1, atol=1e-5)  # softmax
    loss, _ = g.grad(w, data)
    assert g.loss(w, data) == loss
    y = out["y"].reshape(-1, 8)
    assert np.isclose(-np.log(y[np.arange(21), data["target"].reshape(-1)]).sum(), loss,
                      rtol=1e-5)


def test_backward_from_outputs_matches_the_own_mse_loss():
    g = rnnwb.Graph.load(example("adding-lstm.rnn.json"))
    w = g.init(2)
    data = random_data(g)
    (out_id,) = g.analyze()["outputs"]
    y = g.forward(w, {k: v for k, v in data.items() if k.startswith("input")})[out_id]
    target = data[g.data_keys()["targets"][0]]
    inputs = {k: v for k, v in data.items() if k.startswith("input")}
    ext = g.backward_from_outputs(w, inputs, {out_id: y - target})
    _, own = g.grad(w, data)
    for k in own:
        assert np.array_equal(ext[k], own[k]), k


def test_bad_input_raises_with_the_clis_message(tmp_path):
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    w = g.init(0)
    data = random_data(g)
    data["input"] = data["input"][:, :, :5]
    rnnwb.save_safetensors(tmp_path / "w.safetensors", w)
    rnnwb.save_safetensors(tmp_path / "d.safetensors", data)
    with pytest.raises(RuntimeError) as e:
        g.grad(w, data)
    r = cli("grad", example("elman.rnn.json"), "--weights", tmp_path / "w.safetensors",
            "--data", tmp_path / "d.safetensors", "-o", tmp_path / "g.safetensors", check=False)
    cli_message = r.stderr.strip().split("error: ", 1)[1]
    # The CLI names its file by path, Python its dict as "data".
    assert str(e.value) == cli_message.replace(str(tmp_path / "d.safetensors"), "data")
    with pytest.raises(RuntimeError, match="tensor 'connections.x->h.weight'"):
        g.grad({k: v for k, v in w.items() if k != "connections.x->h.weight"}, random_data(g))
    with pytest.raises(RuntimeError, match="is not part of"):
        g.grad({**w, "typo": np.zeros(1, np.float32)}, random_data(g))


def test_two_graphs_in_two_threads_give_what_they_give_in_turn():
    graphs = [rnnwb.Graph.load(example(n)) for n in ("lstm-peephole.rnn.json", "gru.rnn.json")]
    work = [(g, g.init(7), random_data(g, frames=40, streams=8)) for g in graphs]
    alone = [g.grad(w, d) for g, w, d in work]
    together = [None, None]

    def run(i):
        g, w, d = work[i]
        for _ in range(3):
            together[i] = g.grad(w, d)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (loss, grads), (loss2, grads2) in zip(alone, together):
        assert loss == loss2
        assert all(np.array_equal(grads[k], grads2[k]) for k in grads)


def test_weights_and_data_numpy_must_convert_give_the_same_floats():
    # init()'s float32 arrays are copied straight in; float64, strided and list weights and
    # int32 / float64 data go through the conversions: the same gradients either way.
    g = rnnwb.Graph.load(example("lstm-peephole.rnn.json"))
    w = g.init(3)
    data = random_data(g)
    loss, grads = g.grad(w, data)
    doubled = {k: np.repeat(v.astype(np.float64), 2, axis=-1)[..., ::2] for k, v in w.items()}
    assert not doubled["connections.x->i.weight"].flags.c_contiguous
    mixed = {**doubled, "layers.y.bias": w["layers.y.bias"].tolist()}
    other = {"input": data["input"].astype(np.float64), "target": data["target"].astype(np.int32)}
    loss2, grads2 = g.grad(mixed, other)
    assert loss2 == loss
    assert grads2.keys() == grads.keys()
    for k in grads:
        assert np.array_equal(grads2[k], grads[k]), k
    # float32 that is not taken as it is: byte-swapped, Fortran order, a read-only view.
    swapped = {k: v.astype(">f4") for k, v in w.items()}
    fortran = {k: np.asfortranarray(v) for k, v in w.items()}
    frozen = {"input": data["input"].copy(), "target": data["target"].astype(">i8")}
    frozen["input"].flags.writeable = False
    for weights, given in ((swapped, data), (fortran, frozen)):
        loss3, grads3 = g.grad(weights, given)
        assert loss3 == loss
        for k in grads:
            assert np.array_equal(grads3[k], grads[k]), k


def test_gradient_arrays_are_separate_writable_arrays_that_outlive_their_graph():
    g = rnnwb.Graph.load(example("lstm-peephole.rnn.json"))
    w = g.init(1)
    _, grads = g.grad(w, random_data(g))
    assert list(grads) == sorted(grads)
    for k, v in grads.items():
        assert v.shape == w[k].shape and v.dtype == np.float32 and v.flags.writeable, k
    before = {k: v.copy() for k, v in grads.items()}
    grads["layers.i.bias"][:] = 7  # one array's values only
    for k in grads:
        if k != "layers.i.bias":
            assert np.array_equal(grads[k], before[k]), k
    _, again = g.grad(w, random_data(g))  # a new call does not write into the old arrays
    assert np.all(grads["layers.i.bias"] == 7)
    del g, again
    assert np.array_equal(grads["connections.h->y.weight"], before["connections.h->y.weight"])


def test_weights_of_a_wrong_shape_raise_the_readers_message():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    w = g.init(0)
    bad = {**w, "connections.x->h.weight": w["connections.x->h.weight"][:, :3].copy()}
    with pytest.raises(RuntimeError, match="weights: tensor 'connections.x->h.weight'"):
        g.grad(bad, random_data(g))


def test_data_that_is_not_the_graphs_raises_the_readers_message():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    w = g.init(0)
    data = random_data(g)
    with pytest.raises(RuntimeError, match=r"data: tensor 'typo' \(F32 \[1\]\) is not part of"):
        g.grad(w, {**data, "typo": np.zeros(1, np.float32)})
    with pytest.raises(RuntimeError, match="data: no tensor 'target'"):
        g.grad(w, {"input": data["input"]})
    bad = data["target"].copy()
    bad[2, 1] = 99
    with pytest.raises(RuntimeError, match="has class 99 at frame 2, stream 1"):
        g.grad(w, {**data, "target": bad})
