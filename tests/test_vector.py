"""Vector swarm envs (swarm_envs.vector): in-process and in worker processes.

Real envs on `calc`, real worker processes (the default start method, and spawn for a
task folder that is not bundled); failures are caused for real: a worker killed with
SIGKILL, an env that raises, an env that hangs.
"""

import json
import os
import shutil
import signal
import time

import pytest

import swarm_envs
from swarm_envs.distributed import TooManyWorkers, usable_cores
from swarm_envs.envs.parallel import SwarmParallelEnv
from swarm_envs.error import ConfigError
from swarm_envs.vector import ENV_FAILED, EnvRecipe, SwarmVectorEnv, make_vec

LIST = json.dumps({"name": "list_files", "arguments": {}})
DONE = json.dumps({"name": "done", "arguments": {"summary": "x"}})
TIME = {"output_token_s": 0.0, "input_token_s": 0.0, "tool_s": {"list_files": 10.0}}


def everyone(envs, action):
    return [dict.fromkeys(ready, action) for ready in envs.ready_agents]


class FlakyEnv(SwarmParallelEnv):
    """A real env whose step raises on the action text "boom" and hangs on "hang"."""

    def step(self, actions):
        if "boom" in actions.values():
            raise RuntimeError("boom inside the env")
        if "hang" in actions.values():
            time.sleep(3600)
        return super().step(actions)


def flaky():
    return FlakyEnv("calc", num_agents=1, time=TIME, time_cap_s=1000)


@pytest.mark.parametrize("mode", ["sync", pytest.param("async", marks=pytest.mark.slow)])
def test_reset_step_autoreset_and_sticky_time_cap(mode):
    with make_vec(
        "calc", 2, vectorization_mode=mode, num_agents=2, time=TIME, time_cap_s=25
    ) as envs:
        obs, infos = envs.reset(seed=7)
        assert [sorted(o) for o in obs] == [["agent_0", "agent_1"]] * 2
        assert envs.seeds == [7, 8]
        assert envs.ready_agents == [["agent_0", "agent_1"]] * 2
        assert infos[1]["agent_1"]["tests_total"] == infos[0]["agent_0"]["tests_total"] > 0
        envs.set_time_cap(15.0)  # sticky: the running episodes keep 25 s
        # list_files takes 10 virtual seconds: the cap of 25 s truncates the third step.
        for _ in range(3):
            obs, rewards, terms, truncs, infos = envs.step(everyone(envs, LIST))
        assert truncs == [{"agent_0": True, "agent_1": True}] * 2
        assert infos[0]["agent_0"]["truncation"] == "time_cap"
        assert envs.ready_agents == [[], []]
        # Next-step autoreset: the actions are ignored, the new episodes start.
        obs, rewards, terms, truncs, infos = envs.step(everyone(envs, LIST))
        assert envs.seeds == [9, 10]  # seed + num_envs
        assert rewards == [{"agent_0": 0.0, "agent_1": 0.0}] * 2
        assert not any(truncs[0].values()) and infos[0]["agent_0"]["time"] == 0.0
        assert infos[0]["agent_0"]["time_left"] == 15.0  # the sticky cap
        assert envs.metadata["autoreset_mode"] == swarm_envs.vector.AutoresetMode.NEXT_STEP


def test_same_step_autoreset_keeps_the_final_observation():
    with make_vec(
        "calc", 1, num_agents=1, time=TIME, time_cap_s=100, autoreset_mode="SameStep"
    ) as envs:
        envs.reset(seed=0)
        obs, rewards, terms, truncs, infos = envs.step([{"agent_0": DONE}])
        assert terms == [{"agent_0": True}]
        info = infos[0]["agent_0"]
        assert info["final_info"]["termination"] == "all_done"
        assert "you are done" in info["final_obs"] and "you are done" not in obs[0]["agent_0"]
        assert info["time"] == 0.0 and envs.ready_agents == [["agent_0"]]  # new episode
        assert envs.seeds == [1]


@pytest.mark.slow
def test_a_killed_worker_fails_its_episode_and_not_the_others():
    with make_vec("calc", 2, vectorization_mode="async", num_agents=1, time=TIME) as envs:
        envs.reset(seed=3)
        victim = envs.hosts[1].process.pid
        os.kill(victim, signal.SIGKILL)
        obs, rewards, terms, truncs, infos = envs.step(everyone(envs, LIST))
        assert truncs[1] == {"agent_0": True} and not truncs[0]["agent_0"]
        failure = infos[1]["agent_0"]["env_failure"]
        assert infos[1]["agent_0"]["truncation"] == ENV_FAILED
        assert failure["index"] == 1 and failure["seed"] == 4
        assert "signal 9" in failure["error"]
        assert [(f.index, f.seed) for f in envs.failures] == [(1, 4)]
        assert infos[0]["agent_0"]["time"] == 10.0  # env 0 stepped normally
        # The env is rebuilt in a fresh worker and starts its next episode.
        obs, rewards, terms, truncs, infos = envs.step(everyone(envs, LIST))
        assert envs.hosts[1].process.pid != victim
        assert infos[1]["agent_0"]["time"] == 0.0 and envs.seeds[1] == 6
        assert infos[0]["agent_0"]["time"] == 20.0


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_env_that_raises_fails_only_its_episode(mode):
    envs = SwarmVectorEnv([flaky, flaky], vectorization_mode=mode, num_workers=1)
    try:
        envs.reset(seed=0)
        obs, rewards, terms, truncs, infos = envs.step([{"agent_0": "boom"}, {"agent_0": LIST}])
        assert truncs == [{"agent_0": True}, {"agent_0": False}]
        assert "boom inside the env" in infos[0]["agent_0"]["env_failure"]["error"]
        assert infos[1]["agent_0"]["time"] == 10.0
        obs, rewards, terms, truncs, infos = envs.step(everyone(envs, LIST))
        assert infos[0]["agent_0"]["time"] == 0.0  # rebuilt and reset
        assert envs.seeds == [2, 1]
    finally:
        envs.close()


# The hang would last forever: only the vector env's own timeout (2 s) ends the step, so
# a deadline far beyond it fails the test if the timeout or close does not work.
@pytest.mark.timeout(120)
@pytest.mark.slow
def test_a_hung_worker_is_killed_at_the_timeout_and_close_returns():
    envs = SwarmVectorEnv([flaky, flaky], vectorization_mode="async", timeout_s=20)
    try:
        envs.reset(seed=0)
        envs.timeout_s = 2.0
        obs, rewards, terms, truncs, infos = envs.step([{"agent_0": "hang"}, {"agent_0": LIST}])
        assert "no answer within the timeout" in infos[0]["agent_0"]["env_failure"]["error"]
        assert infos[1]["agent_0"]["time"] == 10.0
    finally:
        envs.close()
        envs.close()  # twice-safe


def test_bad_actions_raise_before_any_env_steps():
    with make_vec("calc", 2, num_agents=1, time=TIME) as envs:
        envs.reset(seed=0)
        with pytest.raises(ConfigError, match=r"actions\[1\]: unknown agent\(s\) \['agent_9'\]"):
            envs.step([{"agent_0": LIST}, {"agent_9": LIST}])
        with pytest.raises(ConfigError, match="3 action dicts for 2 envs"):
            envs.step([{}, {}, {}])
        with pytest.raises(ConfigError, match="expected a list"):
            envs.step({"agent_0": LIST})
        _, _, _, _, infos = envs.step([{}, None])  # nothing stepped before: time stands still
        assert infos[0]["agent_0"]["time"] == 0.0


def test_bad_arguments_name_the_field():
    with pytest.raises(ConfigError, match="vectorization_mode='threads'"):
        make_vec("calc", 2, vectorization_mode="threads")
    with pytest.raises(ConfigError, match="num_envs=0"):
        make_vec("calc", 0)
    with pytest.raises(ConfigError, match="num_agent"):
        make_vec("calc", 2, num_agent=3)
    with pytest.raises(ConfigError, match="autoreset_mode='later'"):
        make_vec("calc", 1, autoreset_mode="later")
    with pytest.raises(ConfigError, match="timeout_s=0"):
        make_vec("calc", 1, timeout_s=0)
    with make_vec("calc", 2, num_agents=1) as envs:
        with pytest.raises(ConfigError, match=r"reset\(seed='ab'\)"):
            envs.reset(seed="ab")
        with pytest.raises(ConfigError, match="1 seeds for 2 envs"):
            envs.reset(seed=[3])


def test_more_workers_than_cores_warns_once():
    n = usable_cores() + 1
    with pytest.warns(TooManyWorkers) as caught:
        envs = make_vec("calc", n, vectorization_mode="async", num_workers=n, num_agents=1)
    envs.close()
    assert len([w for w in caught if w.category is TooManyWorkers]) == 1


@pytest.mark.slow
def test_a_task_folder_that_is_not_bundled_works_in_spawned_workers(tmp_path):
    folder = tmp_path / "calccopy"
    shutil.copytree(swarm_envs.get_task("calc").root, folder)
    manifest = folder / "task.toml"
    manifest.write_text(manifest.read_text().replace('name = "calc"', 'name = "calccopy"'))
    recipe = EnvRecipe.of(str(folder), num_agents=1, time=TIME)
    assert recipe.task == str(folder)
    with SwarmVectorEnv([recipe], vectorization_mode="async", context="spawn") as envs:
        _, infos = envs.reset(seed=0)
        assert infos[0]["agent_0"]["tests_total"] > 0
        assert envs.call("task")[0].id == "calccopy-v0"
