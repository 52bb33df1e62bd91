"""The output convention both trainers share (`swarm_envs.baselines.outputs.RunFolder`)."""

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from swarm_envs.baselines.outputs import RunFolder, Summary  # noqa: E402
from swarm_envs.baselines.runs import RunArgs  # noqa: E402


def _rows(path):
    return [json.loads(line) for line in (path / "metrics.jsonl").open()]


def _scalars(path, key):
    acc = EventAccumulator(str(path))
    acc.Reload()
    return [(e.step, e.value) for e in acc.Scalars(key)]


def _row(update, value):
    return {"update": update, "global_step": 10 * update, "charts/episodic_return": value}


def test_each_row_is_a_line_of_metrics_jsonl_and_scalars_at_the_global_step(tmp_path):
    folder = RunFolder(tmp_path / "run", RunArgs(exp_name="x", seed=3))
    for u in (1, 2):
        folder.log(_row(u, float(u)))
    folder.close()
    folder.close()  # safe twice
    run = tmp_path / "run"
    assert _rows(run) == [_row(1, 1.0), _row(2, 2.0)]
    assert _scalars(run, "charts/episodic_return") == [(10, 1.0), (20, 2.0)]
    options = json.loads((run / "args.json").read_text())
    assert options["exp_name"] == "x" and options["seed"] == 3


def test_a_resumed_run_drops_what_came_after_its_checkpoint(tmp_path):
    run = tmp_path / "run"
    first = RunFolder(run, RunArgs(exp_name="start"))
    for u in (1, 2, 3):  # the run stopped after update 3; its checkpoint is of update 2
        first.log(_row(u, float(u)))
    first.close()
    again = RunFolder(run, RunArgs(exp_name="resumed"), resumed_at=(2, 20))
    again.log(_row(3, 30.0))
    again.close()
    assert _rows(run) == [_row(1, 1.0), _row(2, 2.0), _row(3, 30.0)]
    assert _scalars(run, "charts/episodic_return") == [(10, 1.0), (20, 2.0), (30, 30.0)]
    assert json.loads((run / "args.json").read_text())["exp_name"] == "start"


def test_without_tensorboard_the_rows_are_still_written(tmp_path):
    folder = RunFolder(tmp_path, RunArgs(), tensorboard=False)
    folder.log(_row(1, 1.0))
    folder.close()
    assert _rows(tmp_path) == [_row(1, 1.0)]
    assert not list(tmp_path.glob("events.out.tfevents.*"))


def test_the_summary_gives_the_last_rows_scalars(tmp_path):
    s = Summary("r", tmp_path, tmp_path / "checkpoint.pt", 2, 20, 1.0, [_row(1, 1.0), _row(2, 2.0)])
    assert s.metrics == {"charts/episodic_return": 2.0}
    assert Summary("r", tmp_path, tmp_path / "c", 0, 0, 0.0, []).metrics == {}
