"""rnnwb.Graph: a graph file in Python, checked by the engine's own reader and validator."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, Union

import numpy as np

from . import _core
from .errors import GraphError, Problem

Arrays = Mapping[str, Any]
#: A data file's arrays (``[T, N, size]`` or numbered examples), or a list of examples: each a
#: dict by the unnumbered data key ('input[.<id>]', 'target[.<id>]'), or, for a graph with one
#: input layer, its input array alone.
Data = Union[Arrays, Sequence[Any]]


@dataclass(frozen=True)
class Layer:
    """A layer as the file says it (graph-format.md): ``kind`` input, additive or
    multiplicative; ``loss`` none, mse, cross_entropy or ctc."""

    id: str
    kind: str
    size: int
    activation: str
    bias: bool
    loss: str


@dataclass(frozen=True)
class Connection:
    """A connection as the file says it; ``id`` is the file's or ``from->to[@delay]``; ``delay``
    an int, or ``[dx, dy]`` in a 2-D graph."""

    id: str
    source: str
    target: str
    type: str
    delay: int | list[int]
    density: float
    seed: int


def _float32(value) -> np.ndarray:
    return np.ascontiguousarray(value, dtype=np.float32)


_ENGINE_DTYPES = (np.dtype(np.float32), np.dtype(np.int64))


def _arrays(values: Arrays) -> dict[str, np.ndarray]:
    """Arrays as the engine takes them: integer ones (class targets) int64, others float32."""
    out = {}
    for key, value in values.items():
        if (type(value) is np.ndarray and value.dtype in _ENGINE_DTYPES
                and value.flags.c_contiguous):
            out[str(key)] = value  # as the engine takes it already: no conversion (per call)
            continue
        a = np.asarray(value)
        dtype = np.int64 if np.issubdtype(a.dtype, np.integer) else np.float32
        out[str(key)] = np.ascontiguousarray(a, dtype=dtype)
    return out


def _as_dict(arrays: Arrays) -> dict:
    """Weights or data as the engine's binding takes them: a dict, its arrays as given (the
    binding takes float32 and int64 C-contiguous arrays as they are, and converts anything else
    as :func:`_arrays` does)."""
    return arrays if type(arrays) is dict else dict(arrays)


def _examples(data: Data, data_keys: Callable[[], dict]) -> Arrays:
    """A list of examples as the numbered keys of a data file (graph-format-v2.md);
    ``data_keys`` gives the graph's data keys (only asked for a list)."""
    if type(data) is dict or isinstance(data, Mapping):
        return data
    keys = data_keys()
    out = {}
    for k, example in enumerate(data):
        if not isinstance(example, Mapping):
            if len(keys["inputs"]) != 1:
                raise ValueError(f"example {k}: a graph of {len(keys['inputs'])} input layers "
                                 "takes each example as a dict by data key")
            example = {keys["inputs"][0]: example}
        for key, value in example.items():
            out[f"{key}.{k}"] = value
    return out


def _connection_id(c: Mapping[str, Any]) -> str:
    if "id" in c:
        return c["id"]
    delay = c.get("delay", 0)
    parts = delay if isinstance(delay, list) else [delay]
    suffix = ",".join(str(d) for d in parts) if any(parts) else ""
    return f"{c['from']}->{c['to']}" + (f"@{suffix}" if suffix else "")


_LAYER_DEFAULTS = {"kind": "additive", "activation": "identity", "loss": "none"}


class Graph:
    """A graph of layers and connections (graph-format.md).

    A graph may be invalid, as one being edited is: :meth:`validate` lists its problems, and
    whatever computes (:meth:`init`, :meth:`grad`, ...) raises :class:`~rnnwb.GraphError` for
    one. Every edit goes back through the engine's reader, so a field that a file could not hold
    (an unknown key, an activation that does not exist) raises GraphError and changes nothing.
    Computations on one graph run one at a time; two graphs compute in parallel in two threads
    (the GIL is released while the engine runs).
    """

    def __init__(self, core: _core.Graph):
        self._core = core

    # ---- reading and writing -------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike) -> Graph:
        """Reads a graph file; raises GraphError ('FILE:LINE:COLUMN: ...') when it is not one."""
        return cls(_core.Graph.load(os.fspath(path)))

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> Graph:
        """A graph from the text of a graph file or from the same as a dict."""
        if not isinstance(text, str):
            text = json.dumps(text)
        return cls(_core.Graph.parse(text))

    def to_json(self) -> str:
        """The canonical text of the file (defaults left out), as ``rnnwb format`` writes it."""
        return self._core.to_json()

    def to_dict(self) -> dict:
        """The file's JSON as a dict (a copy: edit through the methods below)."""
        return json.loads(self.to_json())

    def save(self, path: str | os.PathLike) -> None:
        """Writes the canonical text to a file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    @property
    def name(self) -> str:
        """The graph's name."""
        return self._core.name

    @property
    def path(self) -> str:
        """The file it was loaded from ('' for text, and after an edit)."""
        return self._core.path

    def validate(self) -> list[Problem]:
        """Every problem of the graph (reader's and validator's), empty when it is valid."""
        return [Problem(**p) for p in self._core.problems()]

    def analyze(self) -> dict:
        """The schedule as plain data: ``nodes`` (in order, each ``layers``, ``recurrent``,
        ``inner_order`` and ``scan``: a recurrent node's scan vector σ, one integer per
        dimension, ``[]`` for a plain node), ``inputs``, ``outputs`` and ``max_delay_from``
        (per layer)."""
        return self._core.analyze()

    def data_keys(self) -> dict:
        """The keys of a data file: ``{'inputs': [...], 'targets': [...]}``."""
        return self._core.data_keys()

    # ---- layers and connections ----------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The layers, in file order."""
        out = []
        for l in self.to_dict()["layers"]:
            kind = l.get("kind", "additive")
            full = {**_LAYER_DEFAULTS, "bias": kind == "additive", **l}
            out.append(Layer(full["id"], full["kind"], full.get("size", 1), full["activation"],
                             full["bias"], full["loss"]))
        return out

    @property
    def connections(self) -> list[Connection]:
        """The connections, in file order."""
        return [Connection(_connection_id(c), c["from"], c["to"], c.get("type", "full"),
                           c.get("delay", 0), c.get("density", 1.0), c.get("seed", 0))
                for c in self.to_dict().get("connections", [])]

    def _edited(self, change) -> None:
        d = self.to_dict()
        change(d)
        edited = _core.Graph.parse(json.dumps(d))
        # What the reader could not keep (an unknown key or value) would be lost, not kept as a
        # problem to fix later: such an edit is refused, and the graph stays as it was.
        reader = edited.reader_problems()
        if reader:
            raise GraphError("\n".join(p["message"] for p in reader), reader)
        self._core = edited

    @staticmethod
    def _fields(fields: dict) -> dict:
        # "from" is a Python keyword: from_ / to_ stand for it.
        return {k.rstrip("_") if k in ("from_", "to_") else k: v for k, v in fields.items()}

    def add_layer(self, id: str, **fields) -> None:
        """Adds a layer with the file's fields (kind, size, activation, bias, loss)."""
        self._edited(lambda d: d["layers"].append({"id": id, **fields}))

    def set_layer(self, id: str, **fields) -> None:
        """Changes fields of layer ``id``; raises KeyError when there is none."""
        def change(d):
            layer = next((l for l in d["layers"] if l["id"] == id), None)
            if layer is None:
                raise KeyError(f"no layer '{id}'")
            layer.update(fields)
        self._edited(change)

    def remove_layer(self, id: str) -> None:
        """Removes layer ``id`` and every connection from or to it."""
        def change(d):
            if not any(l["id"] == id for l in d["layers"]):
                raise KeyError(f"no layer '{id}'")
            d["layers"] = [l for l in d["layers"] if l["id"] != id]
            d["connections"] = [c for c in d.get("connections", [])
                                if c["from"] != id and c["to"] != id]
        self._edited(change)

    def add_connection(self, from_: str, to: str, **fields) -> None:
        """Adds a connection (fields: id, type, delay, density, seed)."""
        self._edited(lambda d: d.setdefault("connections", []).append(
            {"from": from_, "to": to, **self._fields(fields)}))

    def _connection(self, d: dict, id: str) -> dict:
        c = next((c for c in d.get("connections", []) if _connection_id(c) == id), None)
        if c is None:
            raise KeyError(f"no connection '{id}'")
        return c

    def set_connection(self, id: str, **fields) -> None:
        """Changes fields of connection ``id`` (its file id or ``from->to[@delay]``)."""
        self._edited(lambda d: self._connection(d, id).update(self._fields(fields)))

    def remove_connection(self, id: str) -> None:
        """Removes connection ``id``."""
        def change(d):
            c = self._connection(d, id)
            d["connections"] = [x for x in d["connections"] if x is not c]
        self._edited(change)

    # ---- numbers -------------------------------------------------------------------------
    def init(self, seed: int = 0) -> dict[str, np.ndarray]:
        """Initial weights (and masks of sparse connections) under the safetensors keys: the
        tensors of ``rnnwb init GRAPH --seed SEED``."""
        return self._core.init(seed)

    def grad(self, weights: Arrays, data: Data,
             packer: str = "shelf") -> tuple[float, dict[str, np.ndarray]]:
        """``(summed loss, gradients)`` over the whole of ``data``, as ``rnnwb grad --packer``:
        a data file's arrays ('input[.<id>]' [T, N, size] with 'target[.<id>]' int classes
        [T, N] or float [T, N, size]; or numbered examples 'input[.<id>].<k>' [H, W, size] in a
        2-D graph, [T, size] in 1-D, with 'target[.<id>].<k>' at the output's grid), or a list
        of examples (dicts by 'input[.<id>]' and 'target[.<id>]'). 2-D graphs, graphs that read
        ahead and examples go to the grid engine, which packs 2-D examples with ``packer``
        (shelf, baseline or padded)."""
        data = _examples(data, self.data_keys)
        return self._core.grad(_as_dict(weights), _as_dict(data), packer)

    def forward(self, weights: Arrays, data: Data,
                packer: str = "shelf") -> dict[str, np.ndarray] | list[dict[str, np.ndarray]]:
        """Each output layer's values (after its activation) by layer id: ``[T, N, size]`` for
        [T, N, size] data (a graph that reads ahead runs on the grid engine, as N whole
        sequences), a list of ``{id: [h, w, size] or [t, size]}`` per example for examples
        (``data`` as :meth:`grad` takes it; targets are not needed)."""
        data = _examples(data, self.data_keys)
        return self._core.forward(_as_dict(weights), _as_dict(data), packer)[1]

    def loss(self, weights: Arrays, data: Data, packer: str = "shelf") -> float:
        """The summed loss of a forward pass (``data`` with targets)."""
        data = _examples(data, self.data_keys)
        loss, _ = self._core.forward(_as_dict(weights), _as_dict(data), packer)
        if loss is None:
            raise ValueError("data without targets has no loss")
        return loss

    def backward_from_outputs(self, weights: Arrays, data: Data,
                              output_gradients: Arrays | Sequence[Arrays],
                              input_gradients: bool = False,
                              packer: str = "shelf") -> dict[str, np.ndarray]:
        """The engine's BPTT from d(loss)/d(outputs) given from outside (an external loss):
        ``output_gradients`` as :meth:`forward` gives the outputs (float32, by output layer id;
        a list of such dicts for examples); ``data`` inputs only. Returns the gradients under
        the weights' keys; with ``input_gradients``, also d(loss)/d(input) under the inputs'
        data keys ('input' or 'input.<id>', numbered '.<k>' for examples)."""
        data = _examples(data, self.data_keys)
        if isinstance(output_gradients, Mapping):
            given = {k: _float32(v) for k, v in output_gradients.items()}
        else:
            given = [{k: _float32(v) for k, v in g.items()} for g in output_gradients]
        return self._core.backward_from_outputs(_as_dict(weights), _as_dict(data), given,
                                                input_gradients, packer)

    def __repr__(self) -> str:
        return f"rnnwb.Graph({self.name!r}, {len(self.layers)} layers)"


def load_safetensors(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Reads a safetensors file (F32, I64): ``(tensors, metadata)``."""
    return _core.read_safetensors(os.fspath(path))


def save_safetensors(path: str | os.PathLike, tensors: Arrays,
                     metadata: Mapping[str, str] | None = None) -> None:
    """Writes a safetensors file atomically, byte for byte as the CLI writes its own."""
    _core.write_safetensors(os.fspath(path), _arrays(tensors), dict(metadata or {}))
