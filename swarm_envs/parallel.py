"""The PettingZoo parallel environment of a swarm working on one task."""

from __future__ import annotations

from typing import Any

from pettingzoo import ParallelEnv

from swarm_envs.error import ResetNeeded
from swarm_envs.facade import AgentSpaces
from swarm_envs.render import dashboard
from swarm_envs.task import Task


class SwarmParallelEnv(AgentSpaces, ParallelEnv):
    """A swarm of agents working on one software project, as a PettingZoo `ParallelEnv`.

    ## Description

    `num_agents` agents share one sandboxed workspace holding a task's project and
    act with tool calls (files, tests, commands, messages). Every action takes
    virtual time (thinking tokens plus the tool's duration); effects apply in
    completion order. In `sync="event"` mode (default) `step` applies the given
    actions and advances to the next moment at which some agent is ready; the
    agents that must act next have `infos[agent]["ready"] == True`, and actions of
    busy agents are ignored. In `sync="round"` mode every step is a barrier.

    ## Action Space

    `UnicodeText`: one tool call as JSON text in the OpenAI function-calling shape,
    `{"name": "edit_file", "arguments": {...}}`; a dict or a `ToolCall` also works.
    See `swarm_envs.tool_schemas()`. A malformed action yields an error observation.

    ## Observation Space

    `UnicodeText`: the tool's result, messages delivered since the agent's last
    observation and a status line (time, time left, tests passing, teammates),
    capped at `max_observation_chars`. The same data is in `infos[agent]`.

    ## Rewards

    Collective: every live agent receives the change in the number of the task's
    tests that pass in the shared workspace during the step.

    ## Episode End

    Terminated when every test passes or every agent has said `done`. An agent that
    said `done` stays in `agents` (idle, never ready, still sharing the collective
    reward) until the episode ends; its later actions get an error observation.
    Truncated at
    the time cap (`time_cap_s`, or `reset(options={"time_cap": ...})`), at the token
    budget, or after repeated scorer failures. `infos[agent]["termination"]` and
    `["truncation"]` give the reason.

    ## Arguments

    `task` (a task id like `"calc-v0"`, a name, or a task folder) and the fields of
    `EnvConfig` as keywords: `num_agents`, `sync`, `time`, `time_cap_s`,
    `token_budget`, `max_observation_chars`, `render_mode`, `seed`, `sandbox`,
    `scorer`, `record_path`.

    ## Version History

    * v0: initial release.
    """

    def __init__(self, task: str | Task = "calc", **config: Any):
        super().__init__(task, **config)
        self._obs: dict[str, str] = {}
        self._infos: dict[str, dict] = {}

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, str], dict[str, dict]]:
        self._reset_episode(seed, options)
        ep = self._episode
        self.agents = list(self.possible_agents)
        # Copying a dict is much cheaper than building one: per-step outputs start
        # from these templates, so a step costs O(agents that changed) Python work.
        self._false = dict.fromkeys(self.agents, False)
        self._zero = dict.fromkeys(self.agents, 0.0)
        self._obs = {a: ep.agents[i].obs for i, a in enumerate(self.agents)}
        self._infos = {a: ep.agents[i].info for i, a in enumerate(self.agents)}
        return dict(self._obs), dict(self._infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        ep = self._episode
        out = ep.step({self._agent(name): action for name, action in actions.items()})
        for i in out.changed:
            st = ep.agents[i]
            self._obs[st.name], self._infos[st.name] = st.obs, st.info
        live = self.agents
        obs, infos = self._obs.copy(), self._infos.copy()
        rewards = dict.fromkeys(live, out.reward) if out.reward else self._zero.copy()
        if out.end:
            terminated = dict.fromkeys(live, out.terminated)
            truncated = dict.fromkeys(live, out.truncated)
            self.agents = []
        else:
            terminated, truncated = self._false.copy(), self._false.copy()
        self._rendered_step()
        return obs, rewards, terminated, truncated, infos

    @property
    def ready_agents(self) -> list[str]:
        """The agents that must act next, without scanning every agent's info."""
        return [self.possible_agents[i] for i in sorted(self._episode.ready)] if self.agents else []

    def state(self) -> str:
        """A global view of the episode (the dashboard text)."""
        return dashboard(self._episode)
