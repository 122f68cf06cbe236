"""rnnwb.train and rnnwb.Run: the CLI's loop and folder; runs resume across Python and the CLI
bit for bit; settings are checked with the CLI's messages; Ctrl+C stops with a checkpoint."""

import numpy as np
import pytest

import rnnwb
from conftest import cli


def checkpoint_tensors(run):
    tensors, _ = rnnwb.load_safetensors(run.checkpoints()[-1])
    return tensors


def test_train_reports_and_writes_the_folder(tmp_path, small_train):
    seen = []
    run = rnnwb.train(run_dir=tmp_path / "r", on_report=seen.append, **small_train)
    assert [r["step"] for r in seen] == [2, 4, 6]
    assert run.outcome["finished"] and run.outcome["step"] == 6
    opened = rnnwb.Run.open(tmp_path / "r")
    assert opened.config["task"]["kind"] == "adding"
    m = opened.metrics()
    assert list(m["step"]) == [2, 4, 6] and np.isfinite(m["train_loss"]).all()
    assert np.isnan(m["valid_loss"][0]) and np.isfinite(m["valid_loss"][1])
    assert opened.status["state"] == "finished" and opened.status["step"] == 6
    assert opened.checkpoints()


def test_iterating_a_run_trains_it(tmp_path, small_train):
    run = rnnwb.train(run_dir=tmp_path / "r", **small_train)
    assert [r["step"] for r in run] == [2, 4, 6]


def test_settings_are_checked_as_the_cli_checks_them(tmp_path, small_train):
    small_train["settings"]["streams"] = 2.7
    with pytest.raises(ValueError) as e:
        rnnwb.train(run_dir=tmp_path / "r", **small_train)
    r = cli("train", small_train["graph"], "--task", "adding", "--streams", "2.7",
            "--run-dir", tmp_path / "c", check=False)
    assert "'streams' must be a whole number from 1 to 65536, got 2.7" == str(e.value)
    assert "--streams must be a whole number from 1 to 65536, got 2.7" in r.stderr
    with pytest.raises(ValueError, match="unknown setting 'stream'"):
        rnnwb.train(run_dir=tmp_path / "r", graph=small_train["graph"], stream=3)


def cli_args(s):
    args = [s["graph"], "--task", s["task"]]
    flags = {"task.sequence_length": "--sequence-length", "task.valid_sequences":
             "--valid-sequences", "streams": "--streams", "h_prime": "--h-prime", "steps":
             "--steps", "report_every": "--report-every", "valid_every": "--valid-every",
             "checkpoint_every": "--checkpoint-every", "seed": "--seed", "threads": "--threads"}
    for k, v in s["settings"].items():
        args += [flags[k], v]
    return args


def test_runs_resume_across_python_and_the_cli_bit_for_bit(tmp_path, small_train):
    # Whole: 6 steps in Python. Split: 3 in Python, then 3 by `rnnwb train --resume`; and 3 by
    # the CLI, then 3 by Run.resume.
    whole = rnnwb.train(run_dir=tmp_path / "whole", **small_train).wait()
    half = dict(small_train, settings={**small_train["settings"], "steps": 3})
    rnnwb.train(run_dir=tmp_path / "py-cli", **half).wait()
    cli("train", "--resume", "--run-dir", tmp_path / "py-cli", "--steps", 6)
    cli("train", *cli_args(half), "--run-dir", tmp_path / "cli-py")
    rnnwb.Run.open(tmp_path / "cli-py").resume(steps=6).wait()
    want = checkpoint_tensors(whole)
    for name in ("py-cli", "cli-py"):
        got = checkpoint_tensors(rnnwb.Run.open(tmp_path / name))
        assert got.keys() == want.keys()
        for k in want:
            assert np.array_equal(got[k], want[k]), (name, k)
        assert rnnwb.Run.open(tmp_path / name).metrics()["train_loss"][-1] == \
            whole.metrics()["train_loss"][-1]


def test_keyboard_interrupt_stops_with_a_checkpoint(tmp_path, small_train):
    small_train["settings"].update(steps=1000, report_every=1, checkpoint_every=500)

    def interrupt(record):
        if record["step"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rnnwb.train(run_dir=tmp_path / "r", on_report=interrupt, **small_train)
    run = rnnwb.Run.open(tmp_path / "r")
    assert run.status["state"] == "stopped" and run.status["signal"] == 2
    (last,) = [int(p.rsplit("-", 1)[1].split(".")[0]) for p in run.checkpoints()[-1:]]
    assert 2 <= last < 1000
    resumed = run.resume(steps=last + 2).wait()
    assert resumed.outcome["finished"]


def test_sigint_to_a_python_process_stops_its_run_with_a_checkpoint(tmp_path, small_train):
    # A real Ctrl+C: SIGINT to a Python process inside rnnwb.train (Python's own handler turns it
    # into KeyboardInterrupt; the loop then stops as `rnnwb train` does on SIGINT).
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "train.py"
    settings = dict(small_train["settings"], steps=100000, report_every=1,
                    checkpoint_every=100000)
    script.write_text(
        "import rnnwb, sys\n"
        f"run = rnnwb.train({small_train['graph']!r}, task='adding',\n"
        f"                  run_dir={str(tmp_path / 'r')!r}, settings={settings!r})\n"
        "for record in run:\n"
        "    print(record['step'], flush=True)\n")
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "1"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    run = rnnwb.Run.open(tmp_path / "r")
    assert run.status["state"] == "stopped" and run.status["signal"] == signal.SIGINT
    (last,) = run.checkpoints()[-1:]
    assert 1 <= int(last.rsplit("-", 1)[1].split(".")[0]) < 100000
