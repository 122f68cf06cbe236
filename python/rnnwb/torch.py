"""rnnwb.torch: any drawn graph as a ``torch.nn.Module``.

``GraphModule(graph)`` holds the graph's weights as ``torch.nn.Parameter``s. Its forward runs the
CPU engine over a ``[T, N, size]`` batch (every stream starts from an empty state) and returns
the output layers' values (after their activations); its backward runs the engine's BPTT from
the gradients of those outputs that autograd hands it (the engine's external loss: the forward
kept in the engine for that backward, ``CpuBackend::keepForward``, or when the engine has
computed anything in between, ``CpuBackend::backwardFromOutputs``, which runs it again). The
graph's own losses play no part: the loss is whatever the PyTorch code computes from the
outputs. The engine computes in float32. An input that
requires grad gets d(loss)/d(input) too (the engine's backward then carries on into the input
layers, which it skips otherwise). A list of examples (2-D ones ``[H, W, size]``, or 1-D whole
sequences ``[T, size]``) runs on the grid engine, as ``rnnwb grad`` does for numbered examples,
and gives each example's outputs at its own grid (the grid engine's external loss,
``GridEngine::backwardFromOutputs``).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import torch as _torch

from .graph import Graph, _arrays, _as_dict


def _param_name(key: str) -> str:
    # nn.Module names may not hold dots; safetensors keys do ("connections.<id>.weight").
    return key.replace(".", "__")


class _EngineFunction(_torch.autograd.Function):
    # apply(module, input_keys, *input_tensors, *params): the inputs are arguments of their own,
    # so that autograd can hand their gradients back.
    @staticmethod
    def forward(ctx, module: "GraphModule", keys: tuple, *tensors):
        inputs, params = tensors[:len(keys)], tensors[len(keys):]
        weights = module._weight_arrays(params)
        data = {k: v.detach().cpu().numpy() for k, v in zip(keys, inputs)}
        ctx.run = None
        if not module.keep_forward or (keys and keys[0].rsplit(".", 1)[-1].isdigit()):
            outputs = module.graph.forward(weights, data, packer=module.packer)  # examples too
        else:  # kept in the engine for the backward: no second forward there
            ctx.wants_inputs = any(ctx.needs_input_grad[2:2 + len(keys)])
            outputs, ctx.run = module.graph._core.forward_kept(
                _as_dict(weights), _as_dict(data), ctx.wants_inputs, module.packer)
        ctx.module, ctx.keys, ctx.weights, ctx.data = module, keys, weights, data
        # Examples (numbered keys) give a list of {id: array}, flattened example by example.
        per_example = outputs if isinstance(outputs, list) else [outputs]
        ctx.examples = len(outputs) if isinstance(outputs, list) else None
        ctx.shapes = [{k: v.shape for k, v in o.items()} for o in per_example]
        return tuple(_torch.from_numpy(o[i]) for o in per_example for i in module.output_ids)

    @staticmethod
    def backward(ctx, *grad_outputs):
        module = ctx.module
        ids = module.output_ids
        given = []
        for e, shapes in enumerate(ctx.shapes):
            given.append({})
            for j, layer in enumerate(ids):
                g = grad_outputs[e * len(ids) + j]
                given[e][layer] = (np.zeros(shapes[layer], np.float32) if g is None
                                   else g.detach().cpu().contiguous().numpy().astype(np.float32))
        wants_inputs = any(ctx.needs_input_grad[2:2 + len(ctx.keys)])
        grads = None
        if ctx.run is not None:  # None when the engine has computed something else since
            grads = module.graph._core.backward_kept(ctx.run, given[0], ctx.wants_inputs)
        if grads is None:
            grads = module.graph.backward_from_outputs(
                ctx.weights, ctx.data, given if ctx.examples is not None else given[0],
                input_gradients=wants_inputs, packer=module.packer)
        inputs = tuple(_torch.from_numpy(grads[k]) if wants_inputs else None for k in ctx.keys)
        return (None, None) + inputs + tuple(_torch.from_numpy(grads[k])
                                             for k in module.weight_keys)


class GraphModule(_torch.nn.Module):
    """A graph (rnnwb.Graph or a path) as a PyTorch module.

    Parameters are the graph's weights and biases (``graph.init(seed)``, or ``weights``: a dict
    under the safetensors keys, e.g. a checkpoint's); masks of sparse connections are buffers.
    ``forward(x)`` takes ``[T, N, size]`` (float32) for a graph with one input layer, or a dict
    by data key ('input.<id>') for several; it returns one ``[T, N, size]`` tensor for one output
    layer, else a dict by output layer id. It also takes a list of examples, each an input
    tensor ``[H, W, size]`` (2-D) or ``[T, size]`` (1-D), or a dict of them by data key, and
    then returns a list with each example's outputs (``[h, w, size]`` or ``[t, size]``, the
    output's grid). ``packer`` packs 2-D examples for the grid engine (shelf, baseline, padded).
    ``keep_forward`` (on [T, N, size] data) keeps the forward in the engine for the backward that
    follows, which then runs no second forward (the same floats either way).
    """

    def __init__(self, graph: Graph | str, seed: int = 0,
                 weights: Mapping[str, np.ndarray] | None = None, packer: str = "shelf"):
        super().__init__()
        self.graph = graph if isinstance(graph, Graph) else Graph.load(graph)
        self.packer = packer
        self.keep_forward = True
        values = dict(weights) if weights is not None else self.graph.init(seed)
        keys = self.graph.data_keys()
        self.input_keys: list[str] = keys["inputs"]
        self.output_ids: list[str] = self.graph.analyze()["outputs"]
        self.mask_keys = sorted(k for k in values if k.endswith(".mask"))
        self.weight_keys = sorted(k for k in values if not k.endswith(".mask"))
        self.params = _torch.nn.ParameterDict({
            _param_name(k): _torch.nn.Parameter(_torch.tensor(np.asarray(values[k], np.float32)))
            for k in self.weight_keys})
        for k in self.mask_keys:
            self.register_buffer(_param_name(k), _torch.tensor(np.asarray(values[k], np.float32)))

    def _weight_arrays(self, params) -> dict[str, np.ndarray]:
        weights = {k: p.detach().cpu().numpy() for k, p in zip(self.weight_keys, params)}
        for k in self.mask_keys:
            weights[k] = getattr(self, _param_name(k)).cpu().numpy()
        return weights

    def weights(self) -> dict[str, np.ndarray]:
        """The current weights (and masks) under the safetensors keys, as ``rnnwb init`` and
        ``rnnwb grad`` read them."""
        return self._weight_arrays([self.params[_param_name(k)] for k in self.weight_keys])

    def forward(self, x):
        """The output layers' values for ``x`` ([T, N, size], or a dict by data key): one tensor
        for one output layer, else a dict by layer id. Every stream starts from an empty state.
        For a list of examples, a list of what each example gives."""
        if isinstance(x, (list, tuple)):
            return self._forward_examples(x)
        inputs = x if isinstance(x, Mapping) else {self.input_keys[0]: x}
        keys = tuple(inputs)
        params = [self.params[_param_name(k)] for k in self.weight_keys]
        outputs = _EngineFunction.apply(self, keys, *(inputs[k] for k in keys), *params)
        if len(outputs) == 1:
            return outputs[0]
        return dict(zip(self.output_ids, outputs))

    def _forward_examples(self, examples):
        inputs = {}  # under the numbered keys of a data file: 'input[.<id>].<k>'
        for k, example in enumerate(examples):
            example = example if isinstance(example, Mapping) else {self.input_keys[0]: example}
            for key, value in example.items():
                inputs[f"{key}.{k}"] = value
        keys = tuple(inputs)
        params = [self.params[_param_name(k)] for k in self.weight_keys]
        flat = _EngineFunction.apply(self, keys, *(inputs[k] for k in keys), *params)
        n = len(self.output_ids)
        per_example = [flat[e * n:(e + 1) * n] for e in range(len(examples))]
        if n == 1:
            return [o[0] for o in per_example]
        return [dict(zip(self.output_ids, o)) for o in per_example]
