"""Episode statistics: the env's own under `swarm_episode`, the wrappers' under `episode`.

CleanRL wraps every env in Gymnasium's `RecordEpisodeStatistics`, which writes
`info["episode"]` itself and asserts that the env has not; SB3's `VecMonitor` (SuperSuit's
vector envs for SB3) writes the same key. The env keeps its own statistics (return,
actions, virtual seconds) under a key of its own, so every wrapper runs unchanged.
"""

from __future__ import annotations

import functools

import gymnasium
import numpy as np
import supersuit as ss
from support.helpers import GCD, SIMPLE_TIME, STUB_MEAN, call

import swarm_envs

FIX = call("write_file", tokens=1, path="calc/numbers.py", content=GCD + STUB_MEAN)  # +2 tests


def test_every_agent_gets_episode_statistics_when_the_episode_ends(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    _, _, _, _, infos = env.step({"agent_0": FIX, "agent_1": call("list_files", tokens=1)})
    assert "swarm_episode" not in infos["agent_0"]  # only at the end
    while env.agents:
        _, _, _, _, infos = env.step({a: call("done") for a in env.ready_agents})
    now = env.view().time
    assert infos["agent_0"]["swarm_episode"] == {"r": 2.0, "l": 2, "t": now}
    assert infos["agent_1"]["swarm_episode"] == {"r": 2.0, "l": 2, "t": now}
    assert "episode" not in infos["agent_0"]  # the wrappers' key, left to them


def test_gymnasium_record_episode_statistics_runs_unchanged():
    env = gymnasium.wrappers.RecordEpisodeStatistics(
        gymnasium.make("swarm/calc-v0", time=SIMPLE_TIME)
    )
    try:
        env.reset(seed=0)
        _, _, _, _, info = env.step(FIX)
        assert "episode" not in info
        _, _, terminated, _, info = env.step(call("done"))
        assert terminated
        assert info["episode"]["r"] == 2.0 and info["episode"]["l"] == 2  # the wrapper's
        assert info["swarm_episode"]["r"] == 2.0 and info["swarm_episode"]["l"] == 2
        assert info["swarm_episode"]["t"] == info["time"]  # virtual, not the wrapper's wall
        env.reset(seed=1)  # and again: its assertion holds episode after episode
        _, _, terminated, _, info = env.step(call("done"))
        assert terminated and info["episode"]["r"] == 0.0
    finally:
        env.close()


def test_gymnasium_record_episode_statistics_runs_on_menu_mode():
    env = gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.make("swarm/calc-menu-v0"))
    try:
        env.reset(seed=0)
        done_move = env.action_space.n - 1
        _, _, terminated, _, info = env.step(done_move)
        assert terminated and info["episode"]["l"] == 1
        assert info["swarm_episode"]["l"] == 1
    finally:
        env.close()


def test_cleanrl_logging_through_the_vector_record_episode_statistics():
    make = functools.partial(gymnasium.make, "swarm/calc-v0", time=SIMPLE_TIME)
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.vector.SyncVectorEnv([make] * 2)
    )
    logged = []
    try:
        envs.reset(seed=0)
        for actions in ([FIX, call("done")], [call("done"), call("list_files")]):
            _, _, _, _, infos = envs.step(actions)
            # CleanRL's ppo.py, as it reads Gymnasium's RecordEpisodeStatistics:
            if "episode" in infos:
                for i in np.flatnonzero(infos["_episode"]):
                    logged.append((i, infos["episode"]["r"][i], infos["episode"]["l"][i]))
            own = infos.get("swarm_episode")
            if own is not None:
                for i in np.flatnonzero(infos["_swarm_episode"]):
                    logged.append((i, "own", own["r"][i], own["l"][i]))
    finally:
        envs.close()
    assert logged == [
        (1, 0.0, 1),
        (1, "own", 0.0, 1),
        (0, 2.0, 2),
        (0, "own", 2.0, 2),
    ]


def test_supersuit_vector_envs_with_sb3s_monitor_log_episodes():
    from stable_baselines3.common.vec_env import VecMonitor

    env = swarm_envs.parallel_env("calc", num_agents=2, time=SIMPLE_TIME)
    envs = VecMonitor(
        ss.concat_vec_envs_v1(
            ss.pettingzoo_env_to_vec_env_v1(env), 1, num_cpus=0, base_class="stable_baselines3"
        )
    )
    returns, own = [], []
    try:
        envs.reset()
        for actions in ([FIX, call("list_files", tokens=1)], [call("done"), call("done")]):
            _, _, _, infos = envs.step(np.array(actions, dtype=object))
            for info in infos:
                if "episode" in info:  # VecMonitor's, as SB3 logs it
                    returns.append(info["episode"]["r"])
                if "swarm_episode" in info:
                    own.append(info["swarm_episode"]["r"])
    finally:
        envs.close()
    assert returns == [2.0, 2.0] and own == [2.0, 2.0]


def test_supersuit_gymnasium_vector_envs_carry_the_envs_statistics():
    env = swarm_envs.parallel_env("calc", num_agents=2, time=SIMPLE_TIME)
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 1, num_cpus=0)
    returns = []
    try:
        envs.reset(seed=0)
        for actions in ([FIX, call("list_files", tokens=1)], [call("done"), call("done")]):
            _, _, _, _, infos = envs.step(actions)
            for info in infos:
                if "swarm_episode" in info:
                    returns.append(info["swarm_episode"]["r"])
    finally:
        envs.close()
    assert returns == [2.0, 2.0]
