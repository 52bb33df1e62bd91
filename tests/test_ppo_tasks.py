"""Several tasks in one menu-trainer run: `--task calc,structkit`, suites, the reward scale.

Through the command line (`swarm-envs train`) with tiny swarms and networks, and the
run's parts (`runs.run_tasks`, `env_recipes`) directly.
"""

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from support.helpers import TINY_TRAIN  # noqa: E402

from swarm_envs import cli  # noqa: E402
from swarm_envs.baselines import runs  # noqa: E402
from swarm_envs.baselines.ppo import Args  # noqa: E402
from swarm_envs.baselines.ppo.envs import env_recipes  # noqa: E402
from swarm_envs.error import ConfigError  # noqa: E402

TINY = [*TINY_TRAIN, "--num-agents", "2", "--num-updates", "1"]


def _run(tmp_path: Path, *options: str) -> int:
    return cli.main([*TINY, *options, "--runs-dir", str(tmp_path / "runs")])


def _only(tmp_path: Path, name: str) -> Path:
    (found,) = (tmp_path / "runs").rglob(name)
    return found


def test_the_task_option_takes_tasks_and_suites_in_order_each_once():
    ids = [t.id for t in runs.run_tasks("structkit, calc,calc-v0")]
    assert ids == ["structkit-v0", "calc-v0"]
    real = [t.id for t in runs.run_tasks("real")]
    assert len(real) > 1 and all(runs.run_tasks(i)[0].manifest.suite == "real" for i in real)
    with pytest.raises(ConfigError, match=r"task='calc,,structkit': expected task or suite"):
        runs.run_tasks("calc,,structkit")
    with pytest.raises(ConfigError, match=r"task='calc,no-such-task'"):
        runs.run_tasks("calc,no-such-task")


def test_envs_deal_the_tasks_in_turn():
    args = Args(task="calc,structkit", num_envs=5)
    tasks = [r.args[0].id for r in env_recipes(args)]
    assert tasks == ["calc-v0", "structkit-v0", "calc-v0", "structkit-v0", "calc-v0"]
    assert args.env_id == "swarm/calc+structkit-menu"
    assert args.rewards_in == "progress" and Args(task="calc").rewards_in == "tests"


def test_a_one_task_trainer_refuses_several_naming_them():
    with pytest.raises(ConfigError, match=r"trains on one task.*calc-v0, structkit-v0"):
        runs.check_run(runs.RunArgs(task="calc,structkit"))


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 3 minutes on two busy cores
def test_a_run_on_two_tasks_learns_from_both_in_progress_units(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code = _run(tmp_path, "--task", "calc,structkit", "--eval-sizes", "2", "--eval-episodes", "2")
    assert code == 0
    doc = json.loads(_only(tmp_path, "eval.json").read_text())
    assert doc["task"] == ["calc-v0", "structkit-v0"] and doc["reward_scale"] == "progress"
    (row,) = doc["rows"]
    assert set(row["progress_by_task"]) == {"calc-v0", "structkit-v0"}
    assert all(0.0 <= p <= 1.0 for p in row["progress_by_task"].values())
    saved = torch.load(_only(tmp_path, "checkpoint.pt"), weights_only=False)
    (update,) = saved["history"]
    assert {"progress/calc-v0", "progress/structkit-v0"} <= set(update)
    # progress units: no episode's return exceeds the whole of its task
    assert update["charts/episodic_return"] <= 1.0 + 1e-6


def test_resuming_on_other_tasks_is_refused_naming_the_checkpoints(tmp_path, capsys):
    # Trained on calc alone (a run on calc,structkit took 3 minutes of the fast suite); the
    # refusal comes at the start, before any environment of the other tasks exists.
    assert _run(tmp_path, "--task", "calc") == 0
    ckpt = _only(tmp_path, "checkpoint.pt")
    capsys.readouterr()
    code = _run(tmp_path, "--task", "calc,structkit", "--resume", str(ckpt), "--num-updates", "2")
    assert code == 2
    err = capsys.readouterr().err
    assert "task='calc'" in err and "task='calc,structkit'" in err


def test_the_reward_scale_of_a_resumed_run_is_the_checkpoints(tmp_path, capsys):
    assert _run(tmp_path, "--task", "calc", "--reward-scale", "progress") == 0
    ckpt = _only(tmp_path, "checkpoint.pt")
    capsys.readouterr()
    code = _run(tmp_path, "--task", "calc", "--resume", str(ckpt), "--num-updates", "2")
    assert code == 2
    assert "reward_scale='auto'" in capsys.readouterr().err


@pytest.mark.slow
def test_worker_episodes_keep_each_seeds_task_in_order():
    """On workers (as on Ray), each episode job carries its own task's recipe."""
    from swarm_envs.baselines.ppo.policy import MenuPolicy
    from swarm_envs.baselines.ppo.rollout import collect_on
    from swarm_envs.distributed import WorkerPool

    args = Args(task="calc,structkit", num_envs=3, num_agents=2, time_cap=8.0)
    recipes = env_recipes(args)
    probe = recipes[0]()
    policy = MenuPolicy(probe.layout.obs_size, probe.layout.n_moves, 16)
    probe.close()
    with WorkerPool(2, backend="process") as pool:
        batch = collect_on(pool, recipes, policy, [3, 4, 5], 8.0, "progress")
    assert batch.failed == 0
    assert [e["task"] for e in batch.episodes] == ["calc-v0", "structkit-v0", "calc-v0"]
    assert all(e["return"] <= 1.0 + 1e-6 for e in batch.episodes)
