"""Rollout workers in worker processes (swarm_envs.distributed.WorkerPool, process backend).

Real worker processes running real episodes of scripted agents on `calc`; a worker is
killed for real (SIGKILL from inside the job) and a job raises for real.
"""

import os
import signal

import pytest

from swarm_envs.agents.rollout import Trajectory
from swarm_envs.agents.scripted import ScriptedTeam
from swarm_envs.distributed import RolloutJob, WorkerPool, run_rollout
from swarm_envs.error import ConfigError
from swarm_envs.vector import EnvRecipe


def broken_team(env):
    raise RuntimeError("no agents today")


def square_or_die(x):
    if x == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if x == "raise":
        raise ValueError("bad item")
    return x * x, os.getpid()


@pytest.mark.parametrize("backend", ["inline", "process"])
@pytest.mark.slow
def test_rollout_jobs_run_on_workers_and_return_trajectories(backend):
    recipe = EnvRecipe.of("calc", num_agents=2, time_cap_s=600)
    jobs = [RolloutJob(recipe, ScriptedTeam("claim"), seed=s) for s in (0, 1, 2)]
    jobs.append(RolloutJob(recipe, broken_team, seed=9))
    with WorkerPool(2, backend=backend) as pool:
        results = pool.run(run_rollout, jobs)
    assert [r.index for r in results] == [0, 1, 2, 3]
    for r in results[:3]:
        assert r.ok and isinstance(r.value, Trajectory)
        assert r.value.end_reason == "all_tests_pass" and r.value.seed == r.seed
    assert not results[3].ok and results[3].seed == 9
    assert "no agents today" in results[3].error


def test_a_dead_worker_fails_its_item_only_and_is_replaced():
    with WorkerPool(1, backend="process") as pool:
        results = pool.run(square_or_die, [2, "die", 3, "raise", 4])
    assert [r.value[0] if r.ok else None for r in results] == [4, None, 9, None, 16]
    assert "signal 9" in results[1].error
    assert "ValueError: bad item" in results[3].error
    pids = {r.value[1] for r in results if r.ok}
    assert len(pids) == 2  # replaced after the death, kept after the raise


def test_pool_arguments_name_the_field():
    with pytest.raises(ConfigError, match="backend='threads'"):
        WorkerPool(2, backend="threads")
    with pytest.raises(ConfigError, match="num_workers=0"):
        WorkerPool(0)


def test_the_command_line_flags_choose_the_pool():
    import argparse

    parser = argparse.ArgumentParser()
    WorkerPool.add_arguments(parser)
    with WorkerPool.from_args(parser.parse_args(["--workers", "2"])) as pool:
        assert (pool.backend, pool.num_workers) == ("process", 2)
    args = parser.parse_args(["--ray-address", "127.0.0.1:9"])
    assert args.ray_address == "127.0.0.1:9" and not args.ray
    with pytest.raises(ConfigError, match="num_workers=0"):
        WorkerPool.from_args(parser.parse_args(["--workers", "0"]))
