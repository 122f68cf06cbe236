"""rnnwb.masks, rnnwb.pack, rnnwb.budget against the CLI's figures."""

import json

import numpy as np
import pytest

import rnnwb
from conftest import cli, example


def test_masks_match_rnnwb_mask():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    (node,) = rnnwb.masks(g)
    assert node["layers"] == ["h"] and node["refusal"] is None
    assert [l["name"] for l in node["levels"]][:3] == ["SnAp-1", "SnAp-2", "SnAp-3"]
    out = cli("mask", example("elman.rnn.json")).stdout
    for level in node["levels"]:
        assert str(level["nnz"]) in out


def test_mask_arrays_agree_with_the_figures():
    g = rnnwb.Graph.load(example("lstm-peephole.rnn.json"))
    (figures,) = rnnwb.masks(g)
    for level in figures["levels"][:3]:
        p = rnnwb.masks(g, snap=level["n"], node=1)
        # nnz counts one column per parameter: the unit columns expanded.
        assert int(p["mask"][:, p["parameter_columns"]].sum()) == level["nnz"]
    p = rnnwb.masks(g, node=1)
    assert int(p["exact"][:, p["parameter_columns"]].sum()) == figures["levels"][-1]["nnz"]
    assert p["immediate"].dtype == np.uint8 and p["dynamics"].shape[0] == p["dynamics"].shape[1]
    colours = p["colours_of_immediate_rows"]
    assert len(set(colours.tolist())) == figures["colours_i"]
    for column in p["immediate"].T:  # rows sharing a column have different colours
        rows = np.flatnonzero(column)
        assert len(set(colours[rows].tolist())) == len(rows)
    with pytest.raises(ValueError, match="no recurrent node 2"):
        rnnwb.masks(g, node=2)


def test_pack_figures():
    sizes = [(10, 20), (12, 8), (5, 5), (30, 3)]
    p = rnnwb.pack(sizes, packer="shelf")
    assert p["examples"] == 4 and p["batches"] == 1
    assert p["real"] == sum(h * w for h, w in sizes)
    places = p["first_batch"]["places"]
    assert sorted(x[0] for x in places) == [0, 1, 2, 3]
    assert p["packers"]["shelf"]["packed"] >= p["real"]


def test_budget_rows_as_rnnwb_budget_json():
    g = rnnwb.Graph.load(example("elman.rnn.json"))
    b = rnnwb.budget(g, streams=8, h=16, h_prime=16, budget="1GiB", measure=False)
    want = json.loads(cli("budget", example("elman.rnn.json"), "--streams", 8, "--h", 16,
                          "--h-prime", 16, "--budget", "1GiB", "--no-measure", "--json").stdout)
    assert b["budget_bytes"] == 1 << 30
    got = [(r["algorithm"], r["total_bytes"], r["fits"]) for r in b["rows"]]
    assert [r[0] for r in got] == ["bptt", "snap1", "snap2", "snap3", "rtrl"]
    assert got == [(r["algo"], r["bytes"], r["fits"]) for r in want["algorithms"]]
