"""The PettingZoo AEC form: agents act one at a time, in the order the clock gives."""

from __future__ import annotations

from typing import Any, cast

from pettingzoo import AECEnv

from swarm_envs.core.outcome import AgentInfo
from swarm_envs.envs.facade import AgentSpaces
from swarm_envs.error import ResetNeeded
from swarm_envs.tasks import Task


class SwarmAECEnv(AgentSpaces, AECEnv[str, str, Any]):
    """A swarm working on one software project, as a PettingZoo `AECEnv`.

    ## Description

    The same simulation as `SwarmParallelEnv`, one agent at a time: the agent whose
    action completes first acts next. `agent_selection` is the ready agent with the
    lowest index; when no agent is ready the clock advances to the next completion
    (in `sync="round"` mode: to the end of the round).

    ## Action Space

    `UnicodeText`: one tool call as JSON text (a dict or a `ToolCall` also works),
    as in `SwarmParallelEnv`.

    ## Observation Space

    `UnicodeText`: `observe(agent)` is the agent's latest observation (tool result,
    new messages, status line).

    ## Rewards

    Collective, as in `SwarmParallelEnv`. Rewards earned while an agent was busy
    accumulate in `_cumulative_rewards` and are returned by `last()` when it is
    selected.

    ## Starting State

    As in `SwarmParallelEnv`: the task's starting state, scored; `agent_0` is
    selected first and every agent is ready at t=0.

    ## Episode End

    As in `SwarmParallelEnv`. When the episode ends every agent is terminated or
    truncated; step each with `None` (PettingZoo's dead step) until `agents` is empty.
    Stepping after that raises `ResetNeeded`.

    ## Info

    `infos[agent]` is an `AgentInfo`, the same as in `SwarmParallelEnv`.

    ## Arguments

    The same as `SwarmParallelEnv`: `task` and the fields of `EnvConfig`.

    ## Version History

    * v0: initial release.
    """

    def __init__(self, task: str | Task = "calc", **config: Any):
        super().__init__(task, **config)
        # PettingZoo's aec_to_parallel steps every agent once per cycle, in order; here
        # only ready agents act, in the clock's order. The parallel form is
        # `swarm_envs.parallel_env`.
        self.metadata = {**self.metadata, "is_parallelizable": False}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; `agent_selection` is the first ready agent."""
        self._reset_episode(seed, options)
        ep = self._episode
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, AgentInfo] = {a: ep.agents[i].info for i, a in enumerate(self.agents)}
        self.agent_selection = self._next_ready()

    def observe(self, agent: str) -> str:
        """The latest observation of `agent`."""
        return self._episode.agents[self.agent_index(agent)].obs

    def _next_ready(self) -> str:
        ep = self._episode
        return self.possible_agents[min(ep.ready)] if ep.ready else self.agents[0]

    def step(self, action: Any) -> None:
        """Apply the selected agent's action and run the clock until some agent is ready."""
        if not self.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        ep = self._episode
        self._cumulative_rewards[agent] = 0.0
        out = ep.step({self.agent_index(agent): action})
        for j in out.changed:
            self.infos[self.possible_agents[j]] = ep.agents[j].info
        parts = ep.reward_parts(out)
        if parts:  # the latency penalty, apart from the tests' reward
            for a in self.agents:
                self.infos[a] = cast(AgentInfo, {**self.infos[a], **parts})
        self.rewards = dict.fromkeys(self.agents, out.reward)
        if out.end:
            for a in self.agents:
                self.terminations[a] = out.terminated
                self.truncations[a] = out.truncated
        self.agent_selection = self._next_ready()
        self._accumulate_rewards()
        self._rendered_step()
