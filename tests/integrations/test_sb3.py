"""Stable-Baselines3 and sb3-contrib on menu mode, as their users write it.

SB3's policies take a `Box` (or a `Dict` of them) and a `Discrete` action: menu mode with
`dict_obs=False`; sb3-contrib's `MaskablePPO` asks the env for `action_masks()`.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from swarm_envs.error import ResetNeeded

sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")


def test_action_masks_are_the_observed_mask():
    env = gymnasium.make("swarm/calc-menu-v0")
    try:
        with pytest.raises(ResetNeeded):
            env.unwrapped.action_masks()
        obs, info = env.reset(seed=0)
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        obs, *_, info = env.step(int(np.flatnonzero(mask)[0]))  # claim the first unit
        after = env.unwrapped.action_masks()
        assert np.array_equal(after, info["action_mask"].astype(bool))
        assert not after[0]  # a unit it has claimed cannot be claimed again
    finally:
        env.close()


@pytest.mark.slow
def test_parallel_menu_env_gives_each_agents_mask():
    import swarm_envs

    env = swarm_envs.parallel_env("calc", num_agents=2, mode="menu")
    try:
        _, infos = env.reset(seed=0)
        for a in env.agents:
            assert np.array_equal(env.action_mask(a), infos[a]["action_mask"].astype(bool))
    finally:
        env.close()


@pytest.mark.slow
def test_sb3_checker_and_ppo_take_menu_mode_as_a_box():
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env

    env = gymnasium.make("swarm/calc-menu-v0", dict_obs=False)
    try:
        check_env(env.unwrapped, warn=False)
        PPO("MlpPolicy", env, n_steps=16, batch_size=8, n_epochs=1, seed=0).learn(16)
    finally:
        env.close()


@pytest.mark.slow
def test_maskable_ppo_trains_and_never_makes_a_masked_move():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gymnasium.make("swarm/calc-menu-v0", dict_obs=False, time_cap_s=120.0)
    try:
        model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
        assert is_masking_supported(model.get_env())
        model.learn(32)
        vec = model.get_env()
        obs = vec.reset()
        for _ in range(20):
            masks = get_action_masks(vec)
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            assert masks[0][action[0]]
            obs, _, dones, infos = vec.step(action)
            assert not infos[0].get("move_error"), infos[0]["move_error"]
            if dones[0]:
                break
    finally:
        env.close()
