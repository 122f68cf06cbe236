"""The exceptions of rnnwb.

A graph that is not valid raises :class:`GraphError`, which carries every problem the reader and
the validator found, each as a :class:`Problem`. Other errors of the engine raise the Python
exception of their kind (``ValueError`` for a bad argument or shape, ``RuntimeError`` for a file
or a run that failed), always with the message that the ``rnnwb`` command line prints after
``error:``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One problem of a graph: what is wrong and where.

    ``layers`` and ``connections`` are the ids it concerns; ``line`` and ``column`` its place in
    the file (1-based, 0 when unknown); ``file`` the file it was found in (empty for text).
    """

    message: str
    layers: list[str] = field(default_factory=list)
    connections: list[str] = field(default_factory=list)
    line: int = 0
    column: int = 0
    file: str = ""


class GraphError(ValueError):
    """A graph that cannot be used: ``str(error)`` lists every problem, one per line (as the CLI
    prints them), and ``problems`` holds them as :class:`Problem` objects."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems: list[Problem] = [
            p if isinstance(p, Problem) else Problem(**p) for p in (problems or [])
        ]
