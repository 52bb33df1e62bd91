"""Swarm sizes in the menu trainer: `--eval-sizes`, evaluating a checkpoint, the size curriculum.

Through the command line (`swarm-envs train`), on calc with tiny swarms and networks, so
that each test runs in seconds.
"""

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from support.helpers import TINY_TRAIN  # noqa: E402

from swarm_envs import cli  # noqa: E402

TINY = [*TINY_TRAIN, "--task", "calc"]


def _run(tmp_path: Path, *options: str) -> int:
    return cli.main([*TINY, *options, "--runs-dir", str(tmp_path / "runs")])


def _only(tmp_path: Path, name: str) -> Path:
    (found,) = (tmp_path / "runs").rglob(name)
    return found


def _rows(path: Path) -> list[dict]:
    return json.loads(path.read_text())["rows"]


@pytest.mark.slow
def test_eval_sizes_evaluates_the_final_policy_at_each_size(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code = _run(
        tmp_path,
        "--num-agents",
        "2",
        "--num-updates",
        "1",
        "--eval-sizes",
        "1",
        "3",
        "--eval-episodes",
        "2",
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "evaluation: 2 episodes per size, cap 8 s" in out
    doc = json.loads(_only(tmp_path, "eval.json").read_text())
    assert doc["trained_num_agents"] == [2] and doc["updates_trained"] == 1
    assert doc["task"] == "calc-v0" and doc["eval_episodes"] == 2
    rows = doc["rows"]
    assert [r["num_agents"] for r in rows] == [1, 3]
    for r in rows:
        assert r["episodes"] == 2 and r["tests_total"] == 13
        # every agent decides at least once per episode, and no episode outlives the cap
        assert r["decisions"] >= r["num_agents"]
        assert r["curve"][-1][0] <= 8.0 and 0.0 <= r["progress"] <= 1.0
        assert r["progress_min"] <= r["progress"] <= r["progress_max"]
        assert abs(r["curve"][-1][1] - r["progress"]) < 1e-9  # the mean curve ends there
        assert 0.0 <= r["contributors"] <= 1.0 and r["messages"] >= 0
        if r["time_to_90"] is None:
            assert r["progress"] < 0.9
    # one agent alone never duplicates a teammate's work
    assert rows[0]["duplicated_work"] == 0.0 and rows[0]["contributors"] in (0.0, 1.0)


@pytest.mark.slow
def test_a_checkpoint_evaluated_later_gives_the_figures_of_the_end_of_training(tmp_path):
    sizes = ["--eval-sizes", "2", "4", "--eval-episodes", "2"]
    assert _run(tmp_path, "--num-agents", "2", "--num-updates", "2", *sizes) == 0
    first = _rows(_only(tmp_path, "eval.json"))
    ckpt = _only(tmp_path, "checkpoint.pt")
    saved = ckpt.read_bytes()
    # No further training: the same policy, the same RNG state, the same held-out episodes.
    out = tmp_path / "later" / "village.json"
    resume = ["--num-updates", "0", "--resume", str(ckpt), "--eval-out", str(out)]
    assert _run(tmp_path, "--num-agents", "2", *resume, *sizes) == 0
    assert ckpt.read_bytes() == saved  # nothing trained, nothing saved
    again = _rows(out)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]  # noqa: E731
    assert strip(again) == strip(first)


def test_the_untrained_policy_can_be_evaluated_without_a_checkpoint(tmp_path):
    assert _run(tmp_path, "--num-updates", "0", "--eval-sizes", "2", "--eval-episodes", "1") == 0
    doc = json.loads(_only(tmp_path, "eval.json").read_text())
    assert doc["updates_trained"] == 0 and doc["checkpoint"] is None
    assert [r["num_agents"] for r in doc["rows"]] == [2]
    assert not list((tmp_path / "runs").rglob("checkpoint.pt"))


@pytest.mark.parametrize(
    ("kind", "sizes"), [("linear", [2, 3, 4]), ("geometric", [2, 4, 8])], ids=["linear", "geom"]
)
@pytest.mark.slow
def test_the_size_curriculum_grows_the_swarm_over_the_updates(tmp_path, kind, sizes):
    end = str(sizes[-1])
    options = ["--num-agents", "2", "--num-agents-end", end, "--num-agents-kind", kind]
    assert _run(tmp_path, *options, "--num-updates", "3", "--checkpoint-every", "0") == 0
    history = torch.load(_only(tmp_path, "checkpoint.pt"), weights_only=False)["history"]
    assert [int(r["charts/num_agents"]) for r in history] == sizes
    for row, n in zip(history, sizes, strict=True):
        # each of the 2 envs of the update was a swarm of n: every agent decided at least once
        assert row["swarm/decisions"] >= 2 * n


BAD = [
    (["--eval-sizes", "0"], "eval_sizes=0: expected a swarm size"),
    (["--eval-sizes", "4", "5000"], "eval_sizes=5000"),
    (["--num-agents-end", "0"], "num_agents_end=0"),
    (["--num-agents-end", "9999"], "num_agents_end=9999"),
    (["--num-agents-kind", "geometric"], "num_agents_kind='geometric': a size curriculum needs"),
    (["--num-updates", "0"], "num_updates=0: expected a positive integer; 0 only evaluates"),
    (["--eval-sizes", "2", "--eval-episodes", "0"], "eval_episodes=0"),
    (["--eval-sizes", "2", "--eval-time-cap", "-1"], "eval_time_cap=-1.0"),
    (
        ["--num-agents", "4", "--num-agents-end", "1", "--num-minibatches", "3"],
        "num_minibatches=3",
    ),
]


@pytest.mark.parametrize(("options", "says"), BAD, ids=[s for _, s in BAD])
def test_bad_size_options_fail_at_start_naming_the_option(options, says, tmp_path, capsys):
    assert _run(tmp_path, *options) == 2
    err = capsys.readouterr().err
    assert err.startswith("swarm-envs train: error: ") and says in err, err
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_eval_sizes_that_are_not_numbers_are_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        _run(tmp_path, "--eval-sizes", "big")
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--eval-sizes" in err and "big" in err
    assert "Traceback" not in err


def test_a_checkpoint_resumes_only_on_its_own_task_and_network(tmp_path, capsys):
    assert _run(tmp_path, "--num-agents", "2", "--num-updates", "1") == 0
    ckpt = str(_only(tmp_path, "checkpoint.pt"))
    capsys.readouterr()
    for task, hidden, says in (
        ("shortuuid", "16", "task='shortuuid': the checkpoint"),
        ("calc", "32", "hidden=32: the checkpoint"),
    ):
        argv = [*TINY[:1], "--task", task, "--hidden", hidden, "--num-updates", "0"]
        argv += ["--eval-sizes", "2", "--resume", ckpt, "--runs-dir", str(tmp_path / "runs")]
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and ("pass --task calc" in err or "pass --hidden 16" in err), err
    # The dependency feature widens the observation: a checkpoint without it refuses it.
    argv = [*TINY[:1], "--task", "calc", "--hidden", "16", "--num-updates", "0"]
    argv += ["--eval-sizes", "2", "--resume", ckpt, "--runs-dir", str(tmp_path / "runs")]
    assert cli.main([*argv, "--dependency-feature"]) == 2
    err = capsys.readouterr().err
    assert "dependency_feature=True: the checkpoint" in err, err
    assert "pass --no-dependency-feature" in err, err
