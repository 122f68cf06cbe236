"""rnnwb.torch: any drawn graph as a ``torch.nn.Module``.

``GraphModule(graph)`` holds the graph's weights as ``torch.nn.Parameter``s. Its forward runs the
CPU engine over a ``[T, N, size]`` batch (every stream starts from an empty state) and returns
the output layers' values (after their activations); its backward runs the engine's BPTT from
the gradients of those outputs that autograd hands it (the engine's external loss,
``CpuBackend::backwardFromOutputs``). The graph's own losses play no part: the loss is whatever
the PyTorch code computes from the outputs. The engine computes in float32. An input that
requires grad gets d(loss)/d(input) too (the engine's backward then carries on into the input
layers, which it skips otherwise). Lists of 2-D examples wait for the graph-format-v2 engine.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import torch as _torch

from .graph import Graph


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
        outputs = module.graph.forward(weights, data)
        ctx.module, ctx.keys, ctx.weights, ctx.data = module, keys, weights, data
        ctx.shapes = {k: v.shape for k, v in outputs.items()}
        return tuple(_torch.from_numpy(outputs[i]) for i in module.output_ids)

    @staticmethod
    def backward(ctx, *grad_outputs):
        module = ctx.module
        given = {}
        for layer, g in zip(module.output_ids, grad_outputs):
            given[layer] = (np.zeros(ctx.shapes[layer], np.float32) if g is None
                            else g.detach().cpu().contiguous().numpy().astype(np.float32))
        wants_inputs = any(ctx.needs_input_grad[2:2 + len(ctx.keys)])
        grads = module.graph.backward_from_outputs(ctx.weights, ctx.data, given,
                                                   input_gradients=wants_inputs)
        inputs = tuple(_torch.from_numpy(grads[k]) if wants_inputs else None for k in ctx.keys)
        return (None, None) + inputs + tuple(_torch.from_numpy(grads[k])
                                             for k in module.weight_keys)


class GraphModule(_torch.nn.Module):
    """A graph (rnnwb.Graph or a path) as a PyTorch module.

    Parameters are the graph's weights and biases (``graph.init(seed)``, or ``weights``: a dict
    under the safetensors keys, e.g. a checkpoint's); masks of sparse connections are buffers.
    ``forward(x)`` takes ``[T, N, size]`` (float32) for a graph with one input layer, or a dict
    by data key ('input.<id>') for several; it returns one ``[T, N, size]`` tensor for one output
    layer, else a dict by output layer id.
    """

    def __init__(self, graph: Graph | str, seed: int = 0,
                 weights: Mapping[str, np.ndarray] | None = None):
        super().__init__()
        self.graph = graph if isinstance(graph, Graph) else Graph.load(graph)
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
        for one output layer, else a dict by layer id. Every stream starts from an empty state."""
        inputs = x if isinstance(x, Mapping) else {self.input_keys[0]: x}
        keys = tuple(inputs)
        params = [self.params[_param_name(k)] for k in self.weight_keys]
        outputs = _EngineFunction.apply(self, keys, *(inputs[k] for k in keys), *params)
        if len(outputs) == 1:
            return outputs[0]
        return dict(zip(self.output_ids, outputs))
