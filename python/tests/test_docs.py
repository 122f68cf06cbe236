"""docs/python.md: its tour runs as written (every ```python block, in order, from the
repository's root), and its reference is what the docstrings say (python -m rnnwb.reference)."""

import os
import re

import pytest

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "python.md")
MARKER = "<!-- reference: the list below is checked by test_docs.py against the docstrings -->\n"


def test_the_tour_runs(monkeypatch, capsys):
    pytest.importorskip("torch")
    text = open(DOC, encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "[]" in out.splitlines()[0]  # the graph is valid


def test_the_reference_is_the_docstrings():
    pytest.importorskip("torch")  # the reference includes rnnwb.torch
    from rnnwb.reference import markdown
    text = open(DOC, encoding="utf-8").read()
    assert MARKER in text
    assert text.split(MARKER, 1)[1] == "\n" + markdown(), \
        "docs/python.md's reference is stale: paste `python -m rnnwb.reference` below the marker"
