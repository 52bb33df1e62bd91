"""The Gymnasium form: one agent, made by id."""

import gymnasium
import pytest
from support.helpers import SIMPLE_TIME, call

import swarm_envs


def test_gymnasium_make_done_terminates():
    env = gymnasium.make("swarm/calc-v0", time=SIMPLE_TIME, time_cap_s=100)
    try:
        obs, info = env.reset(seed=0)
        assert isinstance(obs, str) and info["ready"] and info["time_left"] == 100
        obs, reward, term, trunc, info = env.step(call("done", tokens=2))
        assert (term, trunc) == (True, False) and reward == 0.0
        assert info["termination"] == "all_done" and info["time"] == 2.0
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step(call("list_files"))
    finally:
        env.close()


def test_gymnasium_make_by_id():
    env = gymnasium.make("swarm_envs:swarm/calc-v0")
    obs, info = env.reset(seed=0)
    assert "Task calc-v0" in obs and info["tests_total"] == 13
    obs, reward, terminated, truncated, info = env.step('{"name": "list_files", "arguments": {}}')
    assert "calc/core.py" in obs and reward == 0 and not terminated and not truncated
    env.close()


def test_gymnasium_rejects_many_agents():
    with pytest.raises(swarm_envs.error.ConfigError, match="num_agents"):
        gymnasium.make("swarm_envs:swarm/calc-v0", num_agents=3)
