"""`--ray` / `--ray-address` of `swarm-envs bench` and `swarm-envs train`, on a real local Ray.

Ray is the session's (`local_ray` and `no_ray` in conftest: one owner starts or stops it,
so no test depends on the order). The unreachable-address tests ask for Ray not running
(once it runs, `connect_ray` joins what is there); the others for the shared instance.
"""

import json

import pytest

from swarm_envs.agents.rollout import Trajectory
from swarm_envs.bench import load_results
from swarm_envs.cli import main

ray = pytest.importorskip("ray")

UNREACHABLE = "127.0.0.1:9"  # the discard port: nothing answers there

# Each runs a whole command over a Ray cluster of its own: the slow suite (tests/test_ray.py
# keeps Ray's actors and workers in the fast one).
pytestmark = pytest.mark.slow


@pytest.mark.timeout(300)  # only a hang fails it: the probe gives up after 5 s
def test_bench_with_an_unreachable_address_fails_before_writing(no_ray, tmp_path, capsys):
    status = main(
        ["bench", "--tasks", "calc", "--sizes", "1", "--seeds", "0", "--ray-address", UNREACHABLE,
         "--out", str(tmp_path / "out"), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert status == 2
    err = capsys.readouterr().err
    assert f"ray_address='{UNREACHABLE}': no Ray cluster answers there" in err
    assert "ray start --head" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing written
    assert not ray.is_initialized()


def test_bench_rejects_an_address_of_no_known_form(tmp_path, capsys):
    status = main(["bench", "--tasks", "calc", "--ray-address", "nowhere", "--out", str(tmp_path)])
    assert status == 2
    err = capsys.readouterr().err
    assert "ray_address" in err and "expected 'auto', 'host:port' or 'ray://host:port'" in err


@pytest.mark.timeout(300)  # only a hang fails it: the probe gives up after 5 s
def test_train_with_an_unreachable_address_fails_before_writing(no_ray, tmp_path, capsys):
    pytest.importorskip("torch")
    status = main(
        ["train", "--num-envs", "1", "--num-agents", "2", "--num-minibatches", "1",
         "--ray-address", UNREACHABLE, "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    )  # fmt: skip
    assert status == 2
    err = capsys.readouterr().err
    assert f"ray_address='{UNREACHABLE}': no Ray cluster answers there" in err
    assert not (tmp_path / "runs").exists()
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    pytest.importorskip("transformers")
    from swarm_envs.baselines.lm.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-lm"))


def lm_args(tiny, tmp_path, **kw):
    from support.lm_support import small_args

    return small_args(tiny, tmp_path, episodes_per_update=2, tensorboard=False, **kw)


@pytest.mark.timeout(300)  # only a hang fails it: the probe gives up after 5 s
def test_the_lm_trainer_with_an_unreachable_address_fails_before_writing(
    no_ray, tiny, tmp_path, capsys
):
    status = main(
        ["train", "--policy", "lm", "--model", str(tiny), "--ray-address", UNREACHABLE,
         "--runs-dir", str(tmp_path / "runs")]
    )  # fmt: skip
    assert status == 2
    err = capsys.readouterr().err
    assert f"ray_address='{UNREACHABLE}': no Ray cluster answers there" in err
    assert not (tmp_path / "runs").exists()
    assert not ray.is_initialized()


def test_the_lm_trainer_on_ray_refuses_asynchronous_rollouts(no_ray, tiny, capsys):
    status = main(["train", "--policy", "lm", "--model", str(tiny), "--ray", "--async-rollouts"])
    assert status == 2
    assert "async_rollouts: not with --ray" in capsys.readouterr().err
    assert not ray.is_initialized()


def test_bench_on_ray_records_every_episode_and_a_crash(local_ray, tmp_path):
    # Scripted swarms on calc, and an imported agent that kills its own process at its
    # first act: that episode's Ray actor dies with it; the episode is recorded as
    # failed, and the others run to their end on the remaining (and a fresh) actor.
    status = main(
        ["bench", "--ray", "--tasks", "calc", "--agent", "claim", "--agent", "support.bench_agents:dying",
         "--sizes", "1", "2", "--seeds", "0", "--workers", "2", "--time-cap", "600",
         "--out", str(tmp_path), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert status == 0
    results = load_results(tmp_path / "episodes.jsonl")
    assert len(results) == 4
    ok = [r for r in results if r.status == "ok"]
    failed = [r for r in results if r.status == "failed"]
    assert sorted((r.spec.label, r.spec.size) for r in ok) == [("claim", 2), ("scripted", 1)]
    assert all(r.tests_final > r.tests_start for r in ok)
    assert sorted(r.spec.size for r in failed) == [1, 2]
    assert all(r.spec.agent.kind == "import" and "Ray actor died" in r.error for r in failed)
    trajectories = Trajectory.load(tmp_path / "trajectories.jsonl")
    assert len(trajectories) == 2
    for r in ok:
        t = trajectories[r.trajectory_line]
        assert (t.seed, len(t.agents), t.tests_passed) == (r.spec.seed, r.spec.size, r.tests_final)
    fig = json.loads((tmp_path / "figures.json").read_text())
    assert {c["agents"] for c in fig["configurations"]} >= {"claim", "scripted"}


def test_rollouts_on_ray_actors_are_those_of_the_same_jobs_here(local_ray):
    pytest.importorskip("torch")
    from swarm_envs.baselines.ppo import Args
    from swarm_envs.baselines.ppo.envs import env_recipe
    from swarm_envs.baselines.ppo.policy import MenuPolicy
    from swarm_envs.baselines.ppo.rollout import collect_on, concat, sample_episode
    from swarm_envs.baselines.remote import EpisodeJob, run_episode
    from swarm_envs.distributed import Runner, WorkerPool

    recipe = env_recipe(Args(task="calc", num_agents=2, time_cap=10.0))
    probe = recipe()
    policy = MenuPolicy(probe.layout.obs_size, probe.layout.n_moves, 16)
    probe.close()
    seeds = [3, 4, 5]
    with WorkerPool(2, backend="ray") as pool:
        remote = collect_on(pool, recipe, policy, seeds, 10.0)
    try:  # here, this process is the worker: its kept env is closed as a worker's is
        jobs = [EpisodeJob(sample_episode, recipe, policy, s, 10.0) for s in seeds]
        here = concat([run_episode(job) for job in jobs])
    finally:
        Runner().close()
    assert remote.failed == 0 and len(remote.episodes) == 3 and len(remote) > 0
    for name in ("obs", "masks", "actions", "logprobs", "values", "rewards", "continues"):
        assert (getattr(remote, name) == getattr(here, name)).all(), name
    assert remote.episodes == here.episodes and remote.steps == here.steps


def test_train_on_ray_writes_its_checkpoint_and_metrics(local_ray, tmp_path, caplog):
    torch = pytest.importorskip("torch")
    from swarm_envs.baselines.ppo import Args, train

    args = Args(
        task="calc", num_agents=2, num_envs=2, num_updates=2, time_cap=10.0, hidden=16,
        num_minibatches=2, update_epochs=1, progress=False, ray=True,
        runs_dir=str(tmp_path / "runs"),
    )  # fmt: skip
    with caplog.at_level("INFO", logger="swarm_envs"):
        summary = train(args)
    assert "rollouts on 2 Ray actors" in caplog.text
    assert [row["update"] for row in summary.history] == [1, 2]
    for row in summary.history:
        assert row["swarm/failed_rollouts"] == 0.0
        assert row["swarm/decisions"] >= args.num_envs * args.num_agents
        assert row["charts/time_cap"] == 10.0
    state = torch.load(summary.checkpoint, weights_only=False)
    assert state["update"] == 2 and state["args"]["ray"] is True
    assert list(summary.run_dir.glob("events.out.tfevents.*"))


def _same_episodes(a, b):
    assert [r.seed for r in a] == [r.seed for r in b]
    for x, y in zip(a, b, strict=True):
        assert x.turns.keys() == y.turns.keys()
        for agent in x.turns:
            assert [t.reply_ids for t in x.turns[agent]] == [t.reply_ids for t in y.turns[agent]]
            for s, t in zip(x.turns[agent], y.turns[agent], strict=True):
                assert s.policy_version == t.policy_version
                assert s.behaviour_logprobs == pytest.approx(t.behaviour_logprobs, abs=1e-4)
        assert (x.episode_return, x.tests_passed, x.end) == (
            y.episode_return,
            y.tests_passed,
            y.end,
        )


def _logprobs(policy, prompt, reply):
    import torch

    ids = torch.tensor([list(prompt) + list(reply)])
    with torch.no_grad():
        logits = policy(input_ids=ids).logits[0, len(prompt) - 1 : -1].float()
    return torch.log_softmax(logits, -1).gather(-1, ids[0, len(prompt) :, None])[:, 0].tolist()


def test_lm_rollouts_on_ray_actors_are_those_of_the_same_jobs_here(local_ray, tiny, tmp_path):
    # The actors sample with the weights of the update they are sent: after the learner's
    # weights change, Ray's episodes still equal the same jobs run in this process.
    import torch

    from swarm_envs.baselines.lm import train as T
    from swarm_envs.baselines.lm.remote import collect_on
    from swarm_envs.distributed import Runner, WorkerPool

    setup = T.build(lm_args(tiny, tmp_path))
    seeds = [3, 4]
    here_pool = WorkerPool(1, backend="inline")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in an actor: the same sums, so the same samples
    try:
        with WorkerPool(2, backend="ray") as pool:
            for version in (0, 1):
                if version:
                    head = setup.actors["agent"].policy.get_output_embeddings()
                    with torch.no_grad():
                        head.weight.copy_(torch.randn_like(head.weight) * 3)
                    setup.update = version
                remote, failed = collect_on(pool, setup, seeds, 8.0)
                here, failed_here = collect_on(here_pool, setup, seeds, 8.0)
                assert failed == failed_here == 0
                assert all(t.policy_version == version for r in remote for t in r.all_turns())
                _same_episodes(remote, here)
                # and they are the learner's: its policy gives the replies those log-probs
                policy = setup.actors["agent"].policy
                for turn in [t for r in remote for t in r.all_turns()][:4]:
                    expected = _logprobs(policy, turn.prompt_ids, turn.reply_ids)
                    assert turn.behaviour_logprobs == pytest.approx(expected, abs=1e-3)
                if version == 0:
                    first = remote
        changed = [r.turns != f.turns for r, f in zip(remote, first, strict=True)]
        assert any(changed)  # the new weights sampled other replies
    finally:
        torch.set_num_threads(threads)
        Runner().close()  # this process was the inline worker: close its kept env
        for env in setup.envs:
            env.close()


def test_lm_train_on_ray_runs_its_updates(local_ray, tiny, tmp_path, caplog):
    from swarm_envs.baselines.lm import train as T

    args = lm_args(tiny, tmp_path, ray=True)
    with caplog.at_level("INFO", logger="swarm_envs"):
        out = T.train(args, log=lambda *_: None)
    assert "rollouts on 2 Ray actors" in caplog.text
    m = out.metrics
    assert out.updates == 2 and out.setup.episodes == 4
    assert m["swarm/failed_rollouts"] == 0.0 and m["sao/staleness_max"] == 0.0
    assert m["charts/episodic_length"] >= args.num_agents
    metrics = [json.loads(line) for line in (out.run_dir / "metrics.jsonl").open()]
    assert [row["update"] for row in metrics] == [1, 2]
