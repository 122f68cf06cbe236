"""RNN Workbench from Python: graphs, the CPU engine, training runs and a PyTorch module.

>>> import rnnwb
>>> g = rnnwb.Graph.load("examples/elman.rnn.json")
>>> weights = g.init(seed=1)

See docs/python.md for a tour and the reference.
"""

from __future__ import annotations

import os

from ._core import pack as _pack
from ._core import precision, set_precision, set_threads, threads
from .errors import GraphError, Problem
from .graph import Graph, Connection, Layer, load_safetensors, save_safetensors
from .run import Run, train

__version__ = "0.1.0"


def _cli_default_threads() -> int:
    """The thread count the CLI's engine takes by default: OpenMP's (OMP_NUM_THREADS, else the
    cores this process may run on). Set here, not read from OpenMP, because a library imported
    earlier may have changed OpenMP's count (PyTorch sets it to its own), and another count would
    give results that differ from the CLI's in the last bits."""
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


set_threads(_cli_default_threads())

__all__ = [
    "Graph",
    "Layer",
    "Connection",
    "GraphError",
    "Problem",
    "Run",
    "train",
    "masks",
    "pack",
    "budget",
    "load_safetensors",
    "save_safetensors",
    "precision",
    "set_precision",
    "set_threads",
    "threads",
]


def masks(graph: Graph, snap: int = 0, bptt_length: int = 64,
          node: int | None = None) -> list[dict] | dict:
    """SnAp figures of every recurrent node, as ``rnnwb mask`` prints them: for SnAp-1, 2, 3
    (and ``snap`` when > 3) and the exact mask, each level's nonzeros, density and the bytes of
    the Jacobian in COO and CSR, the colours of I and D, and RTRL's and BPTT's memory.

    With ``node`` (1-based, as ``rnnwb mask --node``): that node's patterns as arrays instead
    (uint8, one column per parameter unit): ``immediate`` (I), ``dynamics`` (D), ``mask``
    (M_snap, snap >= 1), ``exact``, ``parameter_columns`` (each parameter's column) and the
    row colourings ``colours_of_immediate_rows`` and ``colours_of_dynamics_rows``."""
    if node is not None:
        return graph._core.snap_patterns(node, max(snap, 1))
    return graph._core.snap_summaries(snap, bptt_length)


def pack(sizes, packer: str = "shelf", batch_size: int = 0, row_width: int = 0) -> dict:
    """Packs 2-D examples given as ``(height, width)`` pairs (spec/packing.md), as ``rnnwb pack``:
    the figures of every batch of ``batch_size`` (0: one batch), and the first batch's layout
    (``rows`` as (top, height, length), ``places`` as (index, row, x, y, height, width))."""
    return _pack([(int(h), int(w)) for h, w in sizes], packer, batch_size, row_width)


def budget(graph: Graph, streams: int = 32, h: int = 64, h_prime: int = 64, budget: str = "",
           optimizer: str = "adam", measure: bool = True, threads: int = 1) -> dict:
    """Which training algorithm fits a memory budget (``rnnwb budget --json``): the bytes and
    time per frame of BPTT(h; h'), SnAp-1/2/3 and exact RTRL for ``streams`` streams.
    ``budget`` is text such as ``"2GiB"`` (empty: this machine's memory)."""
    return graph._core.budget(streams, h, h_prime, budget, optimizer, measure, threads)
