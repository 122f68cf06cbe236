"""rnnwb.Graph: reading, problems, writing, analysis, layers and checked editing."""

import json
import shutil

import pytest

import rnnwb
from conftest import cli, example


def test_load_reads_a_valid_graph():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    assert g.name == "elman"
    assert g.validate() == []
    assert [l.id for l in g.layers] == ["x", "h", "y"]
    assert g.layers[2].loss == "cross_entropy" and g.layers[1].activation == "tanh"
    assert [c.id for c in g.connections] == ["x->h", "h->h@1", "h->y"]
    assert g.connections[1].delay == 1


def test_to_json_is_what_rnnwb_format_writes(tmp_path):
    g = rnnwb.Graph.load(example("lstm-peephole.rnn.json"))
    out = tmp_path / "f.rnn.json"
    shutil.copy(example("lstm-peephole.rnn.json"), out)
    cli("format", out)  # rewrites the file in place
    assert g.to_json() == out.read_text()
    assert rnnwb.Graph.from_json(g.to_json()).to_json() == g.to_json()
    assert rnnwb.Graph.from_json(g.to_dict()).to_json() == g.to_json()


def test_analyze_gives_the_schedule_of_rnnwb_analyze():
    g = rnnwb.Graph.load(example("two-recurrent-nodes.rnn.json"))
    a = g.analyze()
    cli_json = json.loads(cli("analyze", "--json", example("two-recurrent-nodes.rnn.json")).stdout)
    assert [(n["layers"], n["recurrent"], n["inner_order"]) for n in a["nodes"]] == [
        (n["layers"], n["recurrent"], n["inner_order"]) for n in cli_json["sccs"]]
    assert a["inputs"] and a["outputs"]


def test_a_file_that_is_no_graph_raises_graph_error_with_places(tmp_path):
    bad = tmp_path / "bad.rnn.json"
    bad.write_text('{"format": "rnnwb.graph", "version": 1,\n "layers": [{"id": "x", '
                   '"kind": "input", "size": 2, "activaton": "tanh"}], "connections": []}')
    g = rnnwb.Graph.load(bad)  # readable: the reader's problem is kept
    problems = g.validate()
    assert any("activaton" in p.message for p in problems)
    p = next(p for p in problems if "activaton" in p.message)
    assert p.line == 2 and p.column > 0 and p.file == str(bad)
    with pytest.raises(rnnwb.GraphError) as e:
        g.init(0)
    result = cli("init", bad, "-o", tmp_path / "w.safetensors", check=False)
    assert result.returncode != 0
    # The CLI prints each problem as "PLACE: error: MESSAGE".
    assert str(e.value).splitlines() == [line.replace(": error: ", ": ", 1)
                                         for line in result.stderr.splitlines()]
    with pytest.raises(rnnwb.GraphError) as e:
        rnnwb.Graph.from_json("not json")
    assert e.value.problems and e.value.problems[0].message


def test_validation_problems_name_layers_and_connections():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    g.set_connection("h->h@1", delay=0)  # a zero-delay cycle: invalid, but editable
    problems = g.validate()
    assert problems, "a cycle without delay must be a problem"
    assert any("h" in p.layers or p.connections for p in problems)
    with pytest.raises(rnnwb.GraphError) as e:
        g.grad({}, {})
    assert e.value.problems == problems or len(e.value.problems) == len(problems)


def test_editing_is_checked_as_the_file_is():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    before = g.to_json()
    with pytest.raises(rnnwb.GraphError) as e:
        g.set_layer("h", activation="tanhh")
    assert "tanhh" in str(e.value)
    assert g.to_json() == before  # nothing changed
    with pytest.raises(KeyError):
        g.set_layer("nope", size=3)
    g.set_layer("h", size=16)
    assert g.layers[1].size == 16 and g.validate() == []
    g.add_layer("h2", kind="additive", size=4, activation="relu")
    g.add_connection("h", "h2")
    g.add_connection("h2", "y")
    assert g.validate() == [] and "h->h2" in [c.id for c in g.connections]
    g.remove_layer("h2")
    assert [l.id for l in g.layers] == ["x", "h", "y"]
    assert "h->h2" not in [c.id for c in g.connections]
    g.remove_connection("h->y")
    assert g.validate()  # y has no input now
