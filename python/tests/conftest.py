"""Shared fixtures of the rnnwb pytest suite: where the sources and the rnnwb CLI are (CTest sets
RNNWB_SOURCE_DIR and RNNWB_CLI; without them, the repository of this file and build/)."""

import os
import subprocess

import numpy
import pytest

ROOT = os.environ.get("RNNWB_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CLI = os.environ.get("RNNWB_CLI", os.path.join(ROOT, "build", "app", "rnnwb", "rnnwb"))

# The run under NumPy 2 (CTest's pytest_rnnwb_numpy2) says which NumPy it expects, so that a
# path that quietly fell back to the venv's NumPy 1.x fails instead of passing the same tests again.
EXPECTED_NUMPY_MAJOR = os.environ.get("RNNWB_EXPECT_NUMPY_MAJOR")
if EXPECTED_NUMPY_MAJOR and numpy.__version__.split(".")[0] != EXPECTED_NUMPY_MAJOR:
    raise RuntimeError(f"expected NumPy {EXPECTED_NUMPY_MAJOR}.x, imported {numpy.__version__} "
                       f"from {numpy.__file__}")


def example(name: str) -> str:
    return os.path.join(ROOT, "examples", name)


def cli(*args, check=True):
    """Runs the rnnwb CLI; returns the CompletedProcess (stdout, stderr as text)."""
    result = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"rnnwb {' '.join(map(str, args))}: {result.stderr}")
    return result


@pytest.fixture
def small_train():
    """Settings of a short adding-task run (a few seconds on one core)."""
    return dict(graph=example("adding-lstm.rnn.json"), task="adding",
                settings={"task.sequence_length": 20, "task.valid_sequences": 8, "streams": 4,
                          "h_prime": 20, "steps": 6, "report_every": 2, "valid_every": 4,
                          "checkpoint_every": 3, "seed": 3, "threads": 1})
