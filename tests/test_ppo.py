"""The shared-policy PPO trainer through its entry points: train(), the CLI, config files."""

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from swarm_envs import cli  # noqa: E402
from swarm_envs.baselines.ppo import Args, TrainingDiverged, load_config, train  # noqa: E402
from swarm_envs.baselines.ppo.checks import check_args  # noqa: E402
from swarm_envs.baselines.ppo.envs import episode_seeds  # noqa: E402
from swarm_envs.baselines.ppo.trainer import parse_args  # noqa: E402
from swarm_envs.error import ConfigError  # noqa: E402

TINY = dict(
    task="calc",
    num_agents=2,
    num_envs=2,
    time_cap=10.0,
    hidden=16,
    num_minibatches=2,
    update_epochs=2,
    progress=False,
)
TIMING = ("charts/SPS", "swarm/rollout_decisions_per_s", "swarm/update_decisions_per_s")


def tiny(tmp_path, **kw) -> Args:
    return Args(**{**TINY, "runs_dir": str(tmp_path / "runs"), **kw})


def untimed(history):
    # Wall-clock rates differ between runs; NaN (an undefined explained variance) != NaN.
    return [
        {k: "nan" if v != v else v for k, v in row.items() if k not in TIMING} for row in history
    ]


@pytest.mark.slow
def test_resumed_run_reproduces_the_uninterrupted_one_bit_for_bit(tmp_path, monkeypatch):
    import swarm_envs.baselines.ppo.trainer as train_mod

    full = train(tiny(tmp_path, exp_name="full", num_updates=4, checkpoint_every=2))
    # The same run, killed while collecting the rollouts of update 4: update 3 is logged,
    # and lost with the process (the checkpoint is of update 2).
    real, calls = train_mod.collect, []

    def crash_at_update_4(*a, **k):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(train_mod, "collect", crash_at_update_4)
    args = tiny(tmp_path, exp_name="killed", num_updates=4, checkpoint_every=2)
    with pytest.raises(KeyboardInterrupt):
        train(args)
    monkeypatch.setattr(train_mod, "collect", real)
    (ckpt_path,) = (tmp_path / "runs").rglob("*killed*/checkpoint.pt")
    ckpt = torch.load(ckpt_path, weights_only=False)
    assert ckpt["update"] == 2
    assert set(ckpt) >= {"policy", "optimizer", "schedule", "rng", "global_step"}
    rest = train(dataclasses.replace(args, resume=str(ckpt_path)))
    assert rest.run_name == ckpt["run_name"]  # the same run goes on
    assert rest.global_step == full.global_step
    assert untimed(rest.history) == untimed(full.history)
    # metrics.jsonl has each update once: update 3 of the killed process was dropped.
    rows = [json.loads(line) for line in (rest.run_dir / "metrics.jsonl").open()]
    assert untimed(rows) == untimed(full.history)
    a = torch.load(full.checkpoint, weights_only=False)
    b = torch.load(rest.checkpoint, weights_only=False)
    for k, v in a["policy"].items():
        assert torch.equal(v, b["policy"][k]), k
    for s1, s2 in zip(
        a["optimizer"]["state"].values(), b["optimizer"]["state"].values(), strict=True
    ):
        assert all(torch.equal(s1[k], s2[k]) for k in s1)


@pytest.mark.slow
def test_tensorboard_keys_and_run_name(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    s = train(tiny(tmp_path, exp_name="keys", seed=7, num_updates=2))
    env_id, exp, seed, stamp = s.run_name.split("__")
    assert (env_id, exp, seed) == ("swarm/calc-menu-v0", "keys", "7") and stamp.isdigit()
    # The run folder of both trainers (swarm_envs.baselines.outputs): rows, options, weights.
    files = {p.name for p in s.run_dir.iterdir() if not p.name.startswith("events.out")}
    assert files == {"metrics.jsonl", "args.json", "checkpoint.pt"}
    rows = [json.loads(line) for line in (s.run_dir / "metrics.jsonl").open()]
    assert untimed(rows) == untimed(s.history) and s.updates == 2
    assert s.metrics["charts/episodic_return"] == s.history[-1]["charts/episodic_return"]
    assert json.loads((s.run_dir / "args.json").read_text())["exp_name"] == "keys"
    acc = EventAccumulator(str(s.run_dir))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for key in (
        "charts/episodic_return",
        "charts/episodic_length",
        "charts/SPS",
        "charts/time_cap",
        "losses/value_loss",
        "losses/policy_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clipfrac",
        "swarm/duplicated_work",
        "swarm/tests_passed",
    ):
        assert key in tags, key
    returns = [e.value for e in acc.Scalars("charts/episodic_return")]
    assert len(returns) == 2 and all(np.isfinite(returns))


@pytest.mark.slow
def test_time_cap_curriculum_advances_per_update_and_reaches_the_envs(tmp_path):
    s = train(
        tiny(
            tmp_path,
            num_updates=3,
            time_cap=6.0,
            time_cap_end=12.0,
            time_cap_kind="linear",
            time_cap_updates=2,
            tensorboard=False,
        )
    )
    assert [row["charts/time_cap"] for row in s.history] == [6.0, 9.0, 12.0]
    # Without TensorBoard the rows are in metrics.jsonl all the same.
    assert not list(s.run_dir.glob("events.out.tfevents.*"))
    rows = [json.loads(line) for line in (s.run_dir / "metrics.jsonl").open()]
    assert [row["charts/time_cap"] for row in rows] == [6.0, 9.0, 12.0]
    # Rollouts are truncated at the cap of their update (or end earlier).
    for row in s.history:
        assert row["swarm/virtual_time"] <= row["charts/time_cap"]


@pytest.mark.slow
def test_nan_stops_training_and_keeps_the_last_good_checkpoint(tmp_path):
    good = train(tiny(tmp_path, exp_name="nan", num_updates=2, checkpoint_every=1))
    saved = torch.load(good.checkpoint, weights_only=False)
    with pytest.raises(TrainingDiverged, match=r"update 3: .*not finite|update 3: losses/") as e:
        train(
            tiny(
                tmp_path,
                exp_name="nan",
                num_updates=6,
                checkpoint_every=1,
                learning_rate=1e38,
                max_grad_norm=1e38,
                resume=str(good.checkpoint),
            )
        )
    assert str(good.checkpoint) in str(e.value) and "update 2" in str(e.value)
    kept = torch.load(good.checkpoint, weights_only=False)
    assert kept["update"] == 2
    for k, v in saved["policy"].items():
        assert torch.equal(v, kept["policy"][k])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"num_minibatches": 5}, "num_minibatches=5"),
        ({"task": "nosuchtask"}, "task='nosuchtask'"),
        ({"gamma": 0.0}, "gamma=0.0"),
        ({"time_cap": -3.0}, "time_cap"),
        ({"time_cap_end": 5.0, "time_cap_kind": "bogus"}, "time_cap"),
        ({"move_tokens": {"think": 1}}, "move_tokens"),
        ({"resume": "missing.pt"}, "resume='missing.pt'"),
        ({"max_units": 2}, "max_units=2"),
        ({"num_envs": 0}, "num_envs=0"),
    ],
)
def test_inconsistent_configs_fail_at_start_naming_the_field(tmp_path, change, field):
    with pytest.raises(ConfigError, match=field.replace("(", r"\(").replace(")", r"\)")):
        check_args(tiny(tmp_path, **change))


def test_config_file_then_flags(tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        'task = "calc"\nnum-agents = 3\nlearning_rate = 0.01\n[move_tokens]\napply = 400\n'
    )
    args = parse_args(["--config", str(cfg), "--learning-rate", "0.002"])
    assert args.num_agents == 3 and args.learning_rate == 0.002
    assert args.move_tokens["apply"] == 400 and args.config == str(cfg)
    bad = tmp_path / "bad.toml"
    bad.write_text("num_agent = 3\n")
    with pytest.raises(ConfigError, match="did you mean 'num_agents'"):
        load_config(bad)
    assert dataclasses.replace(Args(), seed=3).seed == 3


def test_cli_help_and_errors(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--num-minibatches" in out and "--time-cap-end" in out and "--config" in out
    assert cli.main(["train", "--task", "nosuchtask"]) == 2
    assert "task='nosuchtask'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert "train" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_trains_and_prints_a_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the summary table's width
    code = cli.main(
        [
            "train",
            "--num-updates",
            "2",
            "--num-envs",
            "2",
            "--num-agents",
            "2",
            "--time-cap",
            "8",
            "--hidden",
            "16",
            "--num-minibatches",
            "2",
            "--runs-dir",
            str(tmp_path / "runs"),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "episodic return" in out and "checkpoint.pt" in out and "tensorboard --logdir" in out


def test_episode_seeds_depend_only_on_seed_and_update():
    a = Args(seed=3, num_envs=4)
    assert episode_seeds(a, 5) == episode_seeds(Args(seed=3, num_envs=4), 5)
    assert len(set(episode_seeds(a, 1) + episode_seeds(a, 2))) == 8


def test_rollouts_credit_each_agent_with_the_whole_episode_and_bootstrap_on_truncation():
    import swarm_envs
    from swarm_envs.baselines.ppo.policy import MenuPolicy
    from swarm_envs.baselines.ppo.rollout import collect

    # A time-cap truncation, a token-budget truncation (time left), and a longer cap.
    configs = [{"time_cap_s": 6.0}, {"time_cap_s": 60.0, "token_budget": 400}, {"time_cap_s": 30.0}]
    envs = [swarm_envs.parallel_env("calc", num_agents=3, mode="menu", **c) for c in configs]
    try:
        torch.manual_seed(0)
        policy = MenuPolicy(envs[0].layout.obs_size, envs[0].layout.n_moves, 16)
        batch = collect(envs, policy, [0, 1, 2])
    finally:
        for env in envs:
            env.close()
    assert [e["end"] for e in batch.episodes[:2]] == ["time_cap", "token_budget"]
    assert len(batch) == sum(e["decisions"] for e in batch.episodes)
    assert batch.masks[np.arange(len(batch)), batch.actions].all()  # only allowed moves
    ends = np.flatnonzero(batch.continues == 0)
    starts = np.r_[0, ends[:-1] + 1]
    assert len(ends) == 9  # one sequence per agent per episode, env by env
    for k, (a, b) in enumerate(zip(starts, ends, strict=True)):
        episode = batch.episodes[k // 3]
        # The semi-MDP rewards of an agent's decisions add up to the collective return.
        assert batch.rewards[a : b + 1].sum() == pytest.approx(episode["return"])
        # Within a sequence the next value is the next decision's value.
        np.testing.assert_array_equal(batch.next_values[a:b], batch.values[a + 1 : b + 1])
        if episode["end"] == "token_budget":
            assert batch.next_values[b] != 0.0  # truncated with time left: V(final observation)
        else:
            assert batch.next_values[b] == 0.0  # terminated, or no time left at the cap


def test_attributed_rewards_split_each_change_among_its_authors():
    from swarm_envs.baselines.ppo.rollout import attributed_rewards

    agents = ["agent_0", "agent_1", "agent_2"]

    def record(gained, lost, *authors):
        actions = [{"agent": a, "tool": "edit_file", "files": ["x.py"], "t": 0.0} for a in authors]
        return {"t": 0.0, "gained": ["t"] * gained, "lost": ["t"] * lost, "actions": actions}

    shares = attributed_rewards(
        [
            record(2, 0, "agent_0"),
            record(3, 1, "agent_1", "agent_2", "agent_1"),  # two authors, one twice
            record(0, 3),  # a recount names nobody: everyone alike
        ],
        agents,
    )
    np.testing.assert_allclose(shares, [2 - 1, 1 - 1, 1 - 1])
    assert shares.sum() == pytest.approx(2 + 2 - 3)  # the swarm's total, as the collective
    assert attributed_rewards([], agents).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.slow
def test_attributed_credit_gives_each_agent_its_own_share_of_the_return():
    import swarm_envs
    from swarm_envs.baselines.ppo.policy import MenuPolicy
    from swarm_envs.baselines.ppo.rollout import collect

    batches = {}
    for credit in ("collective", "attributed"):
        envs = [
            swarm_envs.parallel_env("calc", num_agents=3, mode="menu", time_cap_s=30.0)
            for _ in range(2)
        ]
        try:
            torch.manual_seed(0)
            policy = MenuPolicy(envs[0].layout.obs_size, envs[0].layout.n_moves, 16)
            batches[credit] = collect(envs, policy, [0, 1], credit=credit)
        finally:
            for env in envs:
                env.close()
    collective, attributed = batches["collective"], batches["attributed"]
    # The same episodes (the credit changes the rewards, not what is sampled).
    np.testing.assert_array_equal(collective.actions, attributed.actions)
    ends = np.flatnonzero(attributed.continues == 0)
    starts = np.r_[0, ends[:-1] + 1]
    assert len(ends) == 6  # one sequence per agent, env by env
    for k, (a, b) in enumerate(zip(starts, ends, strict=True)):
        episode = attributed.episodes[k // 3]
        assert collective.rewards[a : b + 1].sum() == pytest.approx(episode["return"])
        # Each agent learns from what the attribution credits it with (bench's `credit`).
        assert attributed.rewards[a : b + 1].sum() == pytest.approx(episode["credit"][k % 3])
    for episode in attributed.episodes:
        assert sum(episode["credit"]) == pytest.approx(episode["return"])
    assert not np.allclose(collective.rewards, attributed.rewards)
