"""Training from Python: rnnwb.train() starts a run (the loop of ``rnnwb train``, the same run
folder), and rnnwb.Run follows it or reads any run folder."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Callable, Iterator

import numpy as np

from . import _core
from .graph import Graph

_WAIT_S = 0.1  # how often a waiting Python thread looks up (Ctrl+C reaches it in between)


def _settings(graph, task, settings: dict, extra: dict) -> dict:
    out = dict(settings or {})
    # Keyword arguments name config keys with "__" for the dots: optimizer__learning_rate.
    out.update({k.replace("__", "."): v for k, v in extra.items()})
    if task is not None:
        out["task.kind"] = task
    if isinstance(graph, Graph):
        if graph.path:
            out["graph"] = os.path.abspath(graph.path)
        else:
            f = tempfile.NamedTemporaryFile("w", suffix=".rnn.json", delete=False)
            with f:
                f.write(graph.to_json())
            out["graph"] = f.name
    elif graph is not None:
        out["graph"] = os.path.abspath(os.fspath(graph))
    for key in ("task.text", "task.images", "task.word_list"):
        if key in out and os.path.exists(str(out[key])):
            out[key] = os.path.abspath(str(out[key]))
    return out


def train(graph: Graph | str | os.PathLike | None = None, *, task: str | None = None,
          run_dir: str | os.PathLike, config: str | os.PathLike | None = None,
          settings: dict[str, Any] | None = None,
          on_report: Callable[[dict], None] | None = None, **kwargs) -> Run:
    """Starts a training run in ``run_dir``, as ``rnnwb train`` does.

    Settings go by their config keys (docs/training.md, the run spec), in ``settings`` or as
    keyword arguments with ``__`` for the dots (``optimizer__learning_rate=0.01``,
    ``h_prime=16``); ``config`` is a config file they override. They are checked as the CLI
    checks them (an unknown key or a value out of range raises ValueError with its message).

    With ``on_report``, the call trains to the end, calling it with every metrics record, and
    returns the finished :class:`Run`. Without it, the returned Run trains as it is iterated
    (each item a metrics record, as in metrics.jsonl) or waited for (:meth:`Run.wait`).
    Ctrl+C (KeyboardInterrupt) stops the loop as SIGINT stops ``rnnwb train``: it finishes its
    update, writes a checkpoint, and the KeyboardInterrupt goes on.
    """
    values = _settings(graph, task, settings or {}, kwargs)
    session = _core.Training.start(values, os.fspath(config) if config else "",
                                   os.fspath(run_dir), False)
    run = Run(run_dir, session)
    if on_report is not None:
        try:
            for record in run:
                on_report(record)
        except KeyboardInterrupt:
            run._stop()
            raise
    return run


class Run:
    """A run folder (docs/training.md): its config, status, metrics and checkpoints; while this
    process trains it, also the live run (iterate it for its metrics records)."""

    def __init__(self, run_dir: str | os.PathLike, session: Any = None):
        self.run_dir = os.fspath(run_dir)
        self._session = session
        self.outcome: dict | None = None
        self.messages: list[str] = []

    @classmethod
    def open(cls, run_dir: str | os.PathLike) -> Run:
        """Any run folder, one that another process writes too."""
        if not os.path.isfile(os.path.join(run_dir, "config.json")):
            raise FileNotFoundError(f"{os.fspath(run_dir)}: not a run folder (no config.json)")
        return cls(run_dir)

    def resume(self, steps: int | None = None, epochs: float | None = None,
               learning_rate: float | None = None) -> Run:
        """Continues the run from its newest checkpoint, as ``rnnwb train --resume``; only the
        settings --resume may change can be given. Iterate or wait() the returned Run."""
        values: dict[str, Any] = {}
        if steps is not None:
            values["steps"] = steps
        if epochs is not None:
            values["epochs"] = epochs
        if learning_rate is not None:
            values["optimizer.learning_rate"] = learning_rate
        return Run(self.run_dir, _core.Training.start(values, "", self.run_dir, True))

    # ---- the live run --------------------------------------------------------------------
    def __iter__(self) -> Iterator[dict]:
        """The metrics records of the live run as it writes them; ends with the run. Leaving the
        loop early (break, an exception, Ctrl+C) stops the run with a checkpoint."""
        while self._session is not None:
            try:
                event = self._session.next(_WAIT_S)
            except KeyboardInterrupt:
                self._stop()
                raise
            if event is None:
                continue
            kind, value = event
            if kind == "report":
                try:
                    yield value
                except BaseException:  # GeneratorExit or what the loop's body raised
                    self._stop()
                    raise
            elif kind == "message":
                self.messages.append(value)
            elif kind == "end":
                self.outcome = value
                self._session = None

    def _stop(self) -> None:
        """Asks the loop to stop and waits for its checkpoint (a second Ctrl+C is ignored)."""
        _core.Training.request_stop()
        while self._session is not None:
            try:
                event = self._session.next(_WAIT_S)
            except KeyboardInterrupt:
                continue
            if event is not None and event[0] == "end":
                self.outcome = event[1]
                self._session = None

    def wait(self) -> Run:
        """Trains to the end (or to a stop); returns self."""
        for _ in self:
            pass
        return self

    # ---- the folder ----------------------------------------------------------------------
    def _read_json(self, name: str) -> dict:
        with open(os.path.join(self.run_dir, name), encoding="utf-8") as f:
            return json.load(f)

    @property
    def config(self) -> dict:
        """The resolved config (config.json)."""
        return self._read_json("config.json")

    @property
    def status(self) -> dict:
        """status.json: the state of the run as its writer left it."""
        return self._read_json("status.json")

    def records(self) -> list[dict]:
        """Every complete line of metrics.jsonl (a last line still being written is left out)."""
        path = os.path.join(self.run_dir, "metrics.jsonl")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return [json.loads(line) for line in text.split("\n")[:-1] if line.strip()]

    def metrics(self) -> dict[str, np.ndarray]:
        """metrics.jsonl as arrays by key (NaN where a record lacks the key, e.g. valid_loss)."""
        records = self.records()
        keys = sorted({k for r in records for k, v in r.items() if isinstance(v, (int, float))})
        return {k: np.array([float(r.get(k, np.nan)) for r in records]) for k in keys}

    def checkpoints(self) -> list[str]:
        """The checkpoint files, oldest first."""
        folder = os.path.join(self.run_dir, "checkpoints")
        if not os.path.isdir(folder):
            return []
        return [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                if n.endswith(".safetensors")]

    def __repr__(self) -> str:
        return f"rnnwb.Run({self.run_dir!r})"
