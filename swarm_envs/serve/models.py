"""The OpenEnv types of a served swarm episode: one step carries every ready agent's action.

OpenEnv's protocol is single-agent in shape (`step(action) -> observation, reward, done`);
a swarm step is the parallel API's `step(actions)`, so the types carry dicts keyed by agent
name. The mapping, field by field, from `SwarmParallelEnv`:

| parallel API | OpenEnv |
| --- | --- |
| `env.step(actions)` | `step(SwarmAction(actions=actions, usage=...))` |
| `observations[agent]` | `SwarmObservation.observations[agent]` |
| `rewards[agent]` (collective) | `SwarmObservation.rewards[agent]`, and `reward` (equal) |
| `terminated[a] or truncated[a]` | `done`, with `terminated` and `truncated` |
| `infos[agent]` | `SwarmObservation.infos[agent]` (JSON: infinity is `null`) |
| `env.ready_agents` | `SwarmObservation.ready` |
| `infos[a]["time"]`, `["time_left"]` | `time`, `time_left` (`null`: no cap) |
| `infos[a]["tests_passed"]`, `["tests_total"]` | `tests_passed`, `tests_total` |
| `env.reset(seed, options)` | `reset(seed=..., time_cap=..., options=...)` |
| `env.state()`, `env.view()` | `SwarmState` |
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class SwarmAction(Action):
    """The actions of the ready agents in one step.

    Attributes:
        actions: agent name -> one tool call, in any form `SwarmParallelEnv.step` takes
            as JSON: the call as text (`'{"name": "read_file", "arguments": {...}}'`) or
            as an object, or an OpenAI-SDK tool call or message dumped to a dict. Actions
            of busy agents are ignored, as in the parallel API; an unknown agent name is
            an error response and nothing of the step is applied.
        usage: agent name -> the usage its model reported for this action (an OpenAI
            usage object as a dict, or `{"output_tokens", "input_tokens",
            "latency_s"}`); the environment never charges less than the estimate from
            the call's text.
    """

    actions: dict[str, Any] = Field(
        default_factory=dict, description="agent name -> one tool call (text or object)"
    )
    usage: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="agent name -> the usage its model reported"
    )


class SwarmObservation(Observation):
    """What one step (or `reset`) returns, for every live agent.

    `reward` is the collective reward of the step (the change in passing tests, the same
    for every agent) and `done` says the episode ended (terminated or truncated).

    Attributes:
        observations: agent name -> its observation text.
        rewards: agent name -> its reward (collective: all equal).
        terminated: every test passes or every agent said `done`.
        truncated: the time cap, the token budget, or repeated scorer failures.
        ready: the agents that must act in the next step.
        infos: agent name -> its `AgentInfo` as JSON.
        time: virtual seconds elapsed in the episode.
        time_left: virtual seconds until the time cap (`None`: no cap).
        tests_passed: canonical tests passing now (those the reward counts).
        tests_total: canonical tests the reward counts.
        end_reason: why the episode ended (`"time_cap"`, `"all_tests_pass"`, ...).
        missing_actions: the ready agents this step brought no action for; while any
            is left, the clock stands still (they are still in `ready`).
    """

    observations: dict[str, str] = Field(default_factory=dict)
    rewards: dict[str, float] = Field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False
    ready: list[str] = Field(default_factory=list)
    infos: dict[str, dict[str, Any]] = Field(default_factory=dict)
    time: float = 0.0
    time_left: float | None = None
    tests_passed: int = 0
    tests_total: int = 0
    end_reason: str | None = None
    missing_actions: list[str] = Field(default_factory=list)


class SwarmState(State):
    """The session's episode as a whole (`state` of the OpenEnv protocol).

    Attributes:
        task: the id of the episode's task.
        agents: every agent of the swarm (`possible_agents`).
        live: the agents still in the episode (empty once it ended or before `reset`).
        ready: the agents that must act next.
        time: virtual seconds elapsed.
        time_cap: the episode's time cap in virtual seconds (`None`: none).
        tests_passed: canonical tests passing.
        tests_total: canonical tests the reward counts.
        ended: `"terminated"`, `"truncated"`, or `None` while it runs.
        end_reason: why it ended, or `None`.
    """

    task: str = ""
    agents: list[str] = Field(default_factory=list)
    live: list[str] = Field(default_factory=list)
    ready: list[str] = Field(default_factory=list)
    time: float = 0.0
    time_cap: float | None = None
    tests_passed: int = 0
    tests_total: int = 0
    ended: str | None = None
    end_reason: str | None = None
