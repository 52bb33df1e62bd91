"""Ray (extra `ray`): vector envs with their envs in Ray actors, rollout workers as actors.

Ray is the session's (`local_ray` and `no_ray` in conftest: one owner starts or stops it,
so no test depends on the order); an actor is killed for real. The unreachable-address
test asks for Ray not running (once Ray runs, `connect_ray` joins what is there).
"""

import json
import time

import pytest

from swarm_envs.agents.rollout import Trajectory
from swarm_envs.agents.scripted import ScriptedTeam
from swarm_envs.distributed import RayUnavailable, RolloutJob, WorkerPool, connect_ray, run_rollout
from swarm_envs.vector import ENV_FAILED, EnvRecipe, make_vec

ray = pytest.importorskip("ray")

LIST = json.dumps({"name": "list_files", "arguments": {}})
TIME = {"output_token_s": 0.0, "input_token_s": 0.0, "tool_s": {"list_files": 10.0}}


# The probe gives up after RAY_CONNECT_TIMEOUT_S (5 s); only a hang fails the deadline.
@pytest.mark.timeout(120)
def test_an_unreachable_address_fails_without_joining(no_ray):
    for address in ("127.0.0.1:9", "ray://127.0.0.1:9"):
        with pytest.raises(RayUnavailable, match=r"no Ray cluster answers there"):
            connect_ray(address)
    with pytest.raises(RayUnavailable, match="127.0.0.1:9"):
        WorkerPool(2, backend="ray", ray_address="127.0.0.1:9")
    with pytest.raises(RayUnavailable, match="expected 'auto', 'host:port'"):
        connect_ray("nonsense")
    assert not ray.is_initialized()


def kill_actor(actor, timeout_s: float = 30.0) -> None:
    """Kill an actor and wait until it is dead (`ray.kill` only asks for it)."""
    ray.kill(actor, no_restart=True)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            ray.get(actor.ready.remote(), timeout=5)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.05)
    raise AssertionError(f"the actor still answers {timeout_s} s after ray.kill")


@pytest.mark.slow
def test_vector_env_on_ray_actors_steps_and_survives_a_killed_actor(local_ray):
    with make_vec("calc", 2, vectorization_mode="ray", num_agents=1, time=TIME) as envs:
        obs, infos = envs.reset(seed=5)
        assert envs.seeds == [5, 6] and infos[1]["agent_0"]["tests_total"] > 0
        _, _, _, truncs, infos = envs.step([{"agent_0": LIST}, {"agent_0": LIST}])
        assert infos[0]["agent_0"]["time"] == 10.0 and truncs == [{"agent_0": False}] * 2
        kill_actor(envs.hosts[0].actor)
        _, _, _, truncs, infos = envs.step([{"agent_0": LIST}, {"agent_0": LIST}])
        assert truncs[0] == {"agent_0": True} and infos[0]["agent_0"]["truncation"] == ENV_FAILED
        failure = infos[0]["agent_0"]["env_failure"]
        assert failure["index"] == 0 and failure["seed"] == 5 and "died" in failure["error"]
        assert infos[1]["agent_0"]["time"] == 20.0
        _, _, _, _, infos = envs.step([{}, {"agent_0": LIST}])
        assert infos[0]["agent_0"]["time"] == 0.0 and envs.seeds[0] == 7  # rebuilt


@pytest.mark.slow
def test_rollout_workers_as_ray_actors(local_ray):
    recipe = EnvRecipe.of("calc", num_agents=2, time_cap_s=600)
    jobs = [RolloutJob(recipe, ScriptedTeam("claim"), seed=s) for s in (0, 1, 2)]
    with WorkerPool.from_flags(2, ray=True) as pool:
        assert pool.backend == "ray"
        results = pool.run(run_rollout, jobs)
    assert all(r.ok for r in results), [r.error for r in results]
    assert [r.value.seed for r in results] == [0, 1, 2]
    assert all(isinstance(r.value, Trajectory) and r.value.tests_passed for r in results)


@pytest.mark.slow
def test_an_address_of_another_cluster_warns_once_ray_runs(local_ray):
    import warnings

    from swarm_envs.distributed import RayAddressIgnored

    current = ray.get_runtime_context().gcs_address
    host, _, port = current.rpartition(":")
    with pytest.warns(RayAddressIgnored, match=r"ray_address='127.0.0.1:9' ignored: this proc"):
        assert connect_ray("127.0.0.1:9") is ray
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cluster it is in, by any of its names: silent
        for same in (current, f"127.0.0.1:{port}", f"localhost:{port}", "auto", None):
            assert connect_ray(same) is ray
