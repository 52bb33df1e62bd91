"""Menu mode's Gymnasium form: one agent alone on a task (`MenuGymEnv`)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from swarm_envs.envs.menu.parallel import MenuParallelEnv
from swarm_envs.error import ConfigError, ResetNeeded
from swarm_envs.tasks import Task


class MenuGymEnv(gymnasium.Env):
    """One agent alone on a task in menu mode, as a `gymnasium.Env`.

    ## Description

    The one-agent case of `MenuParallelEnv` (see it for moves, observation, rewards
    and episode end). Made with `gymnasium.make("swarm_envs:swarm/<task>-menu-v<N>")`.

    ## Action Space

    `Discrete(max_units * (n_candidates + 2) + 2)`; the mask is in `obs["action_mask"]`,
    `info["action_mask"]` and `action_masks()` (sb3-contrib's `MaskablePPO` reads it).

    ## Observation Space

    `Dict(observation=Box(0, 1, (max_units * 6 + 19,)), action_mask=Box(0, 1, (n_moves,), int8))`.

    ## Rewards

    The change in the number of passing tests during the step.

    ## Episode End

    Terminated when every test passes or the agent says done; truncated at the time cap.

    ## Arguments

    `task` and the options of `MenuConfig` and `EnvConfig` (`num_agents` must be 1).

    ## Version History

    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, task: str | Task = "calc", **config: Any):
        if config.get("num_agents", 1) != 1:
            raise ConfigError(
                f"num_agents={config['num_agents']!r}: the Gymnasium form has exactly one "
                "agent; use swarm_envs.parallel_env(..., mode='menu') for a swarm"
            )
        self._env = MenuParallelEnv(task, **{**config, "num_agents": 1})
        self._agent = self._env.possible_agents[0]
        self.observation_space = self._env.observation_space(self._agent)
        self.action_space = self._env.action_space(self._agent)
        self.render_mode = self._env.render_mode

    def set_time_cap(self, seconds: float) -> None:
        """See `MenuParallelEnv.set_time_cap`."""
        self._env.set_time_cap(seconds)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; returns the agent's observation and info."""
        super().reset(seed=seed)
        obs, infos = self._env.reset(seed=seed, options=options)
        return _fresh(obs[self._agent]), _fresh(infos[self._agent])

    def step(self, action: Any):
        """Make one move; returns observation, reward, terminated, truncated, info."""
        if not self._env.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        obs, rewards, terms, truncs, infos = self._env.step({self._agent: action})
        a = self._agent
        return _fresh(obs[a]), rewards[a], terms[a], truncs[a], _fresh(infos[a])

    def action_masks(self) -> np.ndarray:
        """The moves allowed now, as booleans: sb3-contrib's `MaskablePPO` asks for them.

        The same mask as `obs["action_mask"]` (with `dict_obs=True`) and
        `info["action_mask"]`; with `dict_obs=False` the observation is the `Box` alone,
        which `stable_baselines3`'s `"MlpPolicy"` takes, and this is where the mask is.
        """
        return self._env.action_mask(self._agent)

    def render(self) -> str | None:
        """The text env's dashboard (`ansi`: returned; `human`: printed)."""
        return self._env.render()

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._env.close()


def _fresh(x: Any) -> Any:
    # Gymnasium users keep what they are given: return data that shares no object.
    if isinstance(x, dict):
        return {k: _fresh(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_fresh(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.copy()
    return x
