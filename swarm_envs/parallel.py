"""The PettingZoo parallel environment of a swarm working on one task."""

from __future__ import annotations

import functools
from typing import Any

from gymnasium.spaces import Space
from pettingzoo import ParallelEnv

from swarm_envs.config import EnvConfig
from swarm_envs.episode import Episode, agent_names
from swarm_envs.error import Error
from swarm_envs.render import dashboard
from swarm_envs.spaces import UnicodeText
from swarm_envs.task import Task, get_task

DONE_AGAIN = "you already said done; your actions are no longer accepted"


class SwarmBase:
    """What the parallel, AEC and Gymnasium forms share: config, task, spaces, render."""

    metadata: dict[str, Any] = {
        "name": "swarm_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
        "render_fps": 4,
    }

    def _setup(self, task: str | Task, config: dict[str, Any]) -> None:
        self.config = EnvConfig.build(**config)
        self.task = get_task(task)
        m = self.task.manifest
        self.metadata = {**type(self).metadata, "name": f"swarm_{m.name}_v{m.version}"}
        self.render_mode = self.config.render_mode
        self.possible_agents = agent_names(self.config.num_agents)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_space = UnicodeText(self.config.max_observation_chars)
        self._act_space = UnicodeText(self.config.max_action_chars)
        self._episode = Episode(self.task, self.config)
        self.agents: list[str] = []

    @functools.cache  # noqa: B019 - PettingZoo wants the same object back
    def observation_space(self, agent: str) -> Space:
        """Text observations: the tool result, new messages and a status line."""
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> Space:
        """Text actions: one tool call as JSON (dicts and `ToolCall` models are also accepted)."""
        return self._act_space

    def _reset_episode(self, seed: int | None, options: dict | None) -> None:
        options = options or {}
        seed = self.config.seed if seed is None else seed
        self._episode.reset(seed=seed, time_cap=options.get("time_cap"))
        self.np_random = self._episode.np_random

    @property
    def episode(self) -> Episode:
        """The simulation behind the environment (clock, workspace, scorer, messages)."""
        return self._episode

    def render(self) -> str | None:
        """`ansi`: return the dashboard; `human`: print it."""
        if self.render_mode is None:
            return None
        if not hasattr(self._episode, "clock"):
            return "swarm-envs: call reset() first"
        text = dashboard(self._episode)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._episode.close()

    def _agent(self, name: str) -> int:
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise Error(
                f"actions for unknown agent {name!r}; agents are {self.possible_agents[0]} .. "
                f"{self.possible_agents[-1]}"
            ) from None


class SwarmParallelEnv(SwarmBase, ParallelEnv):
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
        self._setup(task, config)
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
        ep = self._episode
        if not self.agents:
            raise Error("step() called on a finished episode; call reset() first")
        acted: list[int] = []
        for name, action in actions.items():
            i = self._agent(name)
            st = ep.agents[i]
            if st.done:
                ep.refuse(i, DONE_AGAIN)
                self._obs[name], self._infos[name] = st.obs, st.info
            elif i in ep.ready:
                ep.submit(i, action)
                acted.append(i)
        reward = ep.advance_until_ready()
        ep.check_budgets()  # also when idle agents held time still
        for i in acted:
            if i not in ep.ready:
                ep.mark_busy(i)
                self._infos[self.possible_agents[i]] = ep.agents[i].info
        if ep.ended:
            ep.observe_all()
            changed = range(len(ep.agents))
        else:
            changed = ep.observe_changed()
        for i in changed:
            st = ep.agents[i]
            self._obs[st.name], self._infos[st.name] = st.obs, st.info
        live = self.agents
        obs, infos = self._obs.copy(), self._infos.copy()
        rewards = dict.fromkeys(live, reward) if reward else self._zero.copy()
        if ep.ended:
            terminated = dict.fromkeys(live, ep.ended == "terminated")
            truncated = dict.fromkeys(live, ep.ended == "truncated")
        else:
            terminated, truncated = self._false.copy(), self._false.copy()
        ep.record_step(reward, changed)
        if ep.ended:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminated, truncated, infos

    @property
    def ready_agents(self) -> list[str]:
        """The agents that must act next, without scanning every agent's info."""
        return [self.possible_agents[i] for i in sorted(self._episode.ready)] if self.agents else []

    def state(self) -> str:
        """A global view of the episode (the dashboard text)."""
        return dashboard(self._episode)
