"""The Gymnasium form: one agent alone on a task."""

from __future__ import annotations

from typing import Any

import gymnasium

from swarm_envs.core.outcome import AgentInfo
from swarm_envs.core.spaces import UnicodeText
from swarm_envs.envs.facade import SwarmBase
from swarm_envs.error import ConfigError
from swarm_envs.tasks import Task


class SwarmGymEnv(SwarmBase, gymnasium.Env[str, Any]):
    """A single agent working on one software project, as a `gymnasium.Env`.

    ## Description

    The one-agent case of `SwarmParallelEnv` (see it for the time model, tools and
    scoring). Made with `gymnasium.make("swarm_envs:swarm/<task>-v<N>")`; every
    registered task has an id (`swarm_envs.register_envs()` lists them).

    ## Action Space

    `UnicodeText`: one tool call as JSON text (dicts and `ToolCall` also work).

    ## Observation Space

    `UnicodeText`: the tool's result and a status line.

    ## Rewards

    The change in the number of passing tests caused by the step.

    ## Starting State

    A fresh sandbox with the task's starting state, scored; the first observation is
    the task's description and the tools.

    ## Episode End

    Terminated when every test passes or the agent says `done`; truncated at the
    time cap, the token budget or after repeated scorer failures (`info["truncation"]`
    says which). Stepping a finished episode raises `ResetNeeded`.

    ## Info

    An `AgentInfo` (see `SwarmParallelEnv`), a copy that shares nothing with the
    environment.

    ## Arguments

    `task` and the fields of `EnvConfig` as keywords (see `SwarmParallelEnv`);
    `num_agents` must be 1.

    ## Version History

    * v0: initial release.
    """

    def __init__(self, task: str | Task = "calc", **config: Any):
        if config.get("num_agents", 1) != 1:
            raise ConfigError(
                f"num_agents={config['num_agents']!r}: the Gymnasium form has exactly one "
                "agent; use swarm_envs.parallel_env for a swarm"
            )
        super().__init__(task, **{**config, "num_agents": 1})
        self.observation_space = UnicodeText(self.config.max_observation_chars)
        self.action_space = UnicodeText(self.config.max_action_chars)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode; returns the observation and its info (an `AgentInfo`)."""
        super().reset(seed=seed)
        self._reset_episode(seed, options)
        return self._output()

    def _output(self) -> tuple[str, dict[str, Any]]:
        # Gymnasium users keep what they are given: return data that shares no object.
        st = self._episode.agents[0]
        info: AgentInfo = st.info.copy()
        info["per_test"] = dict(st.info["per_test"])
        info["messages"] = list(st.info["messages"])
        return st.obs, dict(info)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Apply the agent's action; returns when it is ready again or the episode ends."""
        out = self._episode.step({0: action})
        self._rendered_step()
        obs, info = self._output()
        info.update(self._episode.reward_parts(out))  # the latency penalty, when set
        return obs, out.reward, out.terminated, out.truncated, info
