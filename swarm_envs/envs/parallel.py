"""The PettingZoo parallel environment of a swarm working on one task."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from pettingzoo import ParallelEnv

from swarm_envs.core.outcome import AgentInfo
from swarm_envs.envs.facade import AgentSpaces
from swarm_envs.envs.render import dashboard
from swarm_envs.error import ConfigError, ResetNeeded
from swarm_envs.tasks import Task

logger = logging.getLogger("swarm_envs")


class SwarmParallelEnv(AgentSpaces, ParallelEnv[str, str, Any]):
    r"""A swarm of agents working on one software project, as a PettingZoo `ParallelEnv`.

    ## Description

    `num_agents` agents share one sandboxed workspace holding a task's project and
    act with tool calls (files, tests, commands, messages). Every action takes
    virtual time (thinking tokens plus the tool's duration); effects apply in
    completion order. In `sync="event"` mode (default) `step` applies the given
    actions and advances to the next moment at which some agent is ready; the
    agents that must act next have `infos[agent]["ready"] == True` (or see
    `ready_agents`), and actions of busy agents are ignored. In `sync="round"` mode
    every step is a barrier.

    Roles (`roles={"implementer": 3, "reviewer": 1}`) give agents their part in the
    team: each role's introduction in its first observation, and optionally a tool
    whitelist (`role_tools={"reviewer": ["read_file", "run_tests", "post"]}`). A call of
    a tool outside the whitelist is an error observation that costs its thinking time
    and changes nothing. `infos[agent]["role"]` says each agent's role.

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
    tests that pass in the shared workspace during the step. With a latency penalty
    (`latency_penalty_per_s`), minus that much per virtual second the step lasted, once
    per step; the infos then carry both parts (`latency_penalty`, `tests_reward`).

    ## Starting State

    A fresh sandbox holding the task's starting state (every unit stubbed out, or the
    task's `start/` folder), its README and its canonical tests, scored once. Every
    agent is ready at t=0 and observes the task's description and the tools.

    ## Episode End

    Terminated when every test passes or every agent has said `done`. An agent that
    said `done` stays in `agents` (idle, never ready, still sharing the collective
    reward) until the episode ends; its later actions get an error observation.
    Truncated at the time cap (`time_cap_s`, `set_time_cap`, or
    `reset(options={"time_cap": ...})`), at the token budget, after repeated scorer
    failures, or (under an infinite cap) when nothing can happen any more.
    `infos[agent]["termination"]` and `["truncation"]` give the reason. Stepping a
    finished episode raises `ResetNeeded`.

    ## Info

    `infos[agent]` is an `AgentInfo` (a `TypedDict`): `task` (the episode's task id),
    `ready`, `time`, `time_left`,
    `tests_passed`, `tests_total`, `per_test` (test id -> passing), `verdict`
    (`"no_verdict"` when the scorer failed; `verdict_error` says why), `tool`, `error`,
    `result`, `messages`, `attribution` (the tests whose outcome changed since the
    agent's previous observation, each change with the agents, tools and files of the
    actions applied before it), `tokens`, `team_tokens`, `done`, `role`, `termination`,
    `truncation`; `busy_until` while the agent is busy, `ignored` (True) in a step that
    ignored an action sent for it while busy, and `sandbox` (backend and active
    protections) after `reset`.

    ## Arguments

    | Parameter | Type | Default | Description |
    | --- | --- | --- | --- |
    | `task` | `str \| Task` | `"calc"` | task id (`"calc-v0"`), name (latest version) or folder |
    | `instances` | `dict \| list \| None` | `None` | a task distribution (docs/environment.md) |
    | `num_agents` | `int` | `4` | agents in the swarm, 1 to 4096 |
    | `sync` | `"event" \| "round"` | `"event"` | step until any agent is ready, or a barrier |
    | `time` | `TimeModel \| dict` | `TimeModel()` | seconds per token, per tool, message latency |
    | `time_cap_s` | `float` | `3600.0` | virtual seconds per episode (`math.inf`: none) |
    | `token_budget` | `int \| None` | `None` | tokens of all agents together |
    | `latency_penalty_per_s` | `float` | `0.0` | reward minus this per virtual second |
    | `max_observation_chars` | `int` | `12000` | cap on one observation |
    | `max_action_chars` | `int` | `200000` | cap on one action (longer is an error) |
    | `render_mode` | `"ansi" \| "human" \| None` | `None` | the dashboard as text, or printed |
    | `seed` | `int \| None` | `None` | first unseeded `reset()`'s seed (later: its stream) |
    | `sandbox` | `"local" \| "docker"` | `"local"` | sandbox backend |
    | `sandbox_isolation` | `"bwrap" \| "unshare" \| "none" \| None` | `None` | weaker, by name |
    | `scorer` | `"fast" \| "subprocess"` | `"fast"` | cached fork servers, or one pytest run each |
    | `workspace_quota` | `WorkspaceQuota \| dict` | defaults | what the workspace may hold |
    | `reward_tests` | `"visible" \| "all"` | `"visible"` | the tests the reward counts |
    | `record_path` | `str \| None` | `None` | record every episode to this JSON Lines file |
    | `max_scorer_failures` | `int` | `3` | "no verdict" scorings in a row before ending |
    | `roles` | `dict[str, int \| "fill"] \| None` | `None` | agents per role, in agent order |
    | `role_intros` | `dict[str, str]` | `{}` | a role's introduction in its first observation |
    | `role_tools` | `dict[str, list[str]]` | `{}` | the tools a role may call (and wait, done) |
    | `sandbox_factory` | callable \| None | `None` | makes each sandbox (`make_sandbox`) |
    | `scorer_factory` | callable \| None | `None` | makes each scorer (`make_scorer`) |

    `env.view()` is the running episode as a frozen `EpisodeView` (time, counts, end,
    tokens, messages, attribution, busy agents...): what code outside the environments
    reads.

    ## Version History

    * v0: initial release.
    """

    def __init__(self, task: str | Task = "calc", **config: Any):
        super().__init__(task, **config)
        self._obs: dict[str, str] = {}
        self._infos: dict[str, AgentInfo] = {}
        self._false: dict[str, bool] = {}
        self._zero: dict[str, float] = {}
        self._warned_idle = False

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, AgentInfo]]:
        """Start an episode; returns every agent's observation and info."""
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

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, str], dict[str, float], dict[str, bool], dict[str, bool], dict[str, AgentInfo]
    ]:
        """Apply the ready agents' actions and run the clock until some agent is ready.

        Time moves only once every ready agent has an action: a step that leaves one
        without moves no time (the first such step logs a warning naming them). Actions
        of busy agents are ignored (`infos[agent]["ignored"]`); an unknown agent name
        raises `Error` before anything is applied, and anything but a mapping raises
        `ConfigError`.
        """
        if not isinstance(actions, Mapping):
            raise ConfigError(
                "step() takes a dict of actions by agent name (PettingZoo's parallel API), "
                f"such as {{{self.possible_agents[0]!r}: action}}; got "
                f"{type(actions).__name__} {actions!r:.80}"
            )
        if not self.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        ep, index = self._episode, self._index
        submissions = {
            index[name] if name in index else self.agent_index(name): a
            for name, a in actions.items()
        }
        if not self._warned_idle and not ep.ready.issubset(submissions):
            self._warn_idle(sorted(ep.ready.difference(submissions)))
        out = ep.step(submissions)
        for i in out.changed:
            st = ep.agents[i]
            self._obs[st.name], self._infos[st.name] = st.obs, st.info
        live = self.agents
        obs, infos = self._obs.copy(), self._infos.copy()
        parts = ep.reward_parts(out)
        if parts:  # the latency penalty, apart from the tests' reward
            infos = {a: cast(AgentInfo, {**info, **parts}) for a, info in infos.items()}
        rewards = dict.fromkeys(live, out.reward) if out.reward else self._zero.copy()
        if out.end:
            terminated = dict.fromkeys(live, out.terminated)
            truncated = dict.fromkeys(live, out.truncated)
            self.agents = []
        else:
            terminated, truncated = self._false.copy(), self._false.copy()
        self._rendered_step()
        return obs, rewards, terminated, truncated, infos

    def _warn_idle(self, idle: list[int]) -> None:
        self._warned_idle = True
        names = [self.possible_agents[i] for i in idle]
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        logger.warning(
            "step(): %s %s ready but got no action, so no time passes until every ready "
            "agent acts (see env.ready_agents or infos[agent]['ready']); warned once",
            shown,
            "is" if len(names) == 1 else "are",
        )

    @property
    def ready_agents(self) -> list[str]:
        """The agents that must act next, without scanning every agent's info."""
        return [self.possible_agents[i] for i in sorted(self._episode.ready)] if self.agents else []

    def state(self) -> str:
        """A global view of the episode (the dashboard text)."""
        return dashboard(self._episode)
