"""The step contract, explicit: idle ready agents, busy agents, parallelizability, close."""

from __future__ import annotations

import logging

import gymnasium
import pytest
from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec
from support.helpers import SIMPLE_TIME, call

import swarm_envs
from swarm_envs.error import ClosedEnvironment, ConfigError


def test_a_step_that_leaves_ready_agents_without_action_moves_no_time_and_warns_once(
    make_env, caplog
):
    env = make_env("calc", num_agents=3)
    env.reset(seed=0)
    with caplog.at_level(logging.WARNING, logger="swarm_envs"):
        _, _, _, _, infos = env.step({"agent_0": call("list_files", tokens=1)})
        assert env.view().time == 0 and infos["agent_1"]["ready"] and infos["agent_2"]["ready"]
        env.step({"agent_1": call("list_files", tokens=1)})  # agent_2 still idle
    warnings = [r.getMessage() for r in caplog.records if r.name == "swarm_envs"]
    assert len(warnings) == 1, warnings
    assert "agent_1, agent_2 are ready but got no action" in warnings[0]
    assert env.view().time == 0
    env.step({"agent_2": call("list_files", tokens=1)})
    assert env.view().time > 0  # every ready agent acted: time moves


def test_an_action_for_a_busy_agent_is_marked_ignored_for_one_step(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {"agent_0": call("list_files", tokens=10), "agent_1": call("list_files", tokens=1)}
    )
    assert infos["agent_1"]["ready"] and not infos["agent_0"]["ready"]
    assert "ignored" not in infos["agent_0"]
    _, _, _, _, infos = env.step(
        {"agent_0": call("write_file", path="x.py", content=""), "agent_1": call("list_files")}
    )
    assert infos["agent_0"]["ignored"] is True and "ignored" not in infos["agent_1"]
    assert not (env.view().workspace_root / "x.py").exists()  # not applied
    _, _, _, _, infos = env.step({a: call("list_files") for a in env.ready_agents})
    assert "ignored" not in infos["agent_0"]


@pytest.mark.parametrize("sync", ["event", "round"])
def test_is_parallelizable_is_true_only_if_aec_to_parallel_works(sync):
    aec = swarm_envs.env("calc", num_agents=2, sync=sync, time=SIMPLE_TIME)
    try:
        if not aec.metadata["is_parallelizable"]:
            with pytest.raises(AssertionError, match="is_parallelizable"):
                aec_to_parallel(aec)
            return
        par = aec_to_parallel(aec)
        par.reset(seed=0)
        for _ in range(3):
            par.step({a: call("list_files", tokens=1) for a in par.agents})
    finally:
        aec.close()


def test_the_parallel_form_round_trips_through_aec():
    par = swarm_envs.parallel_env("calc", num_agents=2)
    assert par.metadata["is_parallelizable"] is True
    assert aec_to_parallel(parallel_to_aec(par)) is par


@pytest.mark.parametrize("form", ["parallel", "aec", "gymnasium"])
def test_a_closed_env_raises_on_step(form):
    if form == "parallel":
        env = swarm_envs.parallel_env("calc", num_agents=1)
        action = {"agent_0": call("list_files")}
    elif form == "aec":
        env = swarm_envs.env("calc", num_agents=1)
        action = call("list_files")
    else:
        env = gymnasium.make("swarm/calc-v0")
        action = call("list_files")
    env.reset(seed=0)
    env.close()
    with pytest.raises(ClosedEnvironment, match="after close"):
        env.step(action)
    with pytest.raises(gymnasium.error.ClosedEnvironmentError):
        env.step(action)
    env.reset(seed=0)  # a new episode reopens it
    env.step(action)
    env.close()


@pytest.mark.parametrize("actions", [None, [("agent_0", "x")], "agent_0", 3])
def test_parallel_step_given_anything_but_a_mapping_says_what_it_takes(make_env, actions):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    with pytest.raises(ConfigError, match=r"dict of actions by agent name.*'agent_0': action"):
        env.step(actions)
    # Nothing was applied: the episode goes on.
    _, _, _, _, infos = env.step({"agent_0": call("list_files", tokens=1)})
    assert env.view().time == 0 and infos["agent_1"]["ready"]


@pytest.mark.parametrize("form", ["aec", "gym"])
@pytest.mark.parametrize("action", [None, [("agent_0", "x")], "agent_0"])
def test_aec_and_gym_step_take_any_value_as_an_agents_action(form, action):
    # One agent's action: whatever it is, a bad one is an observation, never a traceback.
    env = swarm_envs.env("calc", num_agents=2) if form == "aec" else gymnasium.make("swarm/calc-v0")
    try:
        env.reset(seed=0)
        if form == "aec":
            env.step(action)
            obs = env.observe(env.possible_agents[0])
        else:
            obs, *_ = env.step(action)
        assert isinstance(obs, str) and obs
    finally:
        env.close()
