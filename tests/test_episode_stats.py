"""Episode statistics where training scripts look for them (Gymnasium's convention)."""

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
    assert "episode" not in infos["agent_0"]  # only at the end
    while env.agents:
        _, _, _, _, infos = env.step({a: call("done") for a in env.ready_agents})
    now = env.view().time
    assert infos["agent_0"]["episode"] == {"r": 2.0, "l": 2, "t": now}
    assert infos["agent_1"]["episode"] == {"r": 2.0, "l": 2, "t": now}


def test_cleanrl_style_logging_reads_them_from_a_gymnasium_vector_env():
    make = functools.partial(gymnasium.make, "swarm/calc-v0", time=SIMPLE_TIME)
    envs = gymnasium.vector.SyncVectorEnv([make] * 2)
    logged = []
    try:
        envs.reset(seed=0)
        for actions in ([FIX, call("done")], [call("done"), call("list_files")]):
            _, _, _, _, infos = envs.step(actions)
            # CleanRL's ppo.py, as it reads Gymnasium's RecordEpisodeStatistics:
            if "episode" in infos:
                for i in np.flatnonzero(infos["_episode"]):
                    logged.append(
                        (
                            i,
                            infos["episode"]["r"][i],
                            infos["episode"]["l"][i],
                            infos["episode"]["t"][i],
                        )
                    )
    finally:
        envs.close()
    assert [(i, r, n) for i, r, n, _ in logged] == [(1, 0.0, 1), (0, 2.0, 2)]
    assert all(t > 0 for *_, t in logged)


def test_cleanrl_style_logging_reads_them_from_a_supersuit_vector_env():
    env = swarm_envs.parallel_env("calc", num_agents=2, time=SIMPLE_TIME)
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 1, num_cpus=0)
    returns = []
    try:
        envs.reset(seed=0)
        for actions in ([FIX, call("list_files", tokens=1)], [call("done"), call("done")]):
            _, _, _, _, infos = envs.step(actions)
            # CleanRL's ppo_pettingzoo_ma_atari.py:
            for info in infos:
                if "episode" in info:
                    returns.append(info["episode"]["r"])
    finally:
        envs.close()
    assert returns == [2.0, 2.0]
