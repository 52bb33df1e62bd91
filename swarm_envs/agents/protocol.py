"""The agent protocol: what the rollout runner needs from an agent, and what it gives.

An agent is any object with two methods, each plain or `async`:

- `reset(agent_name, task_info)`: a new episode begins; `task_info` is a `TaskInfo`.
- `act(observation, info) -> action`: the next action, given the agent's latest
  observation text and its `infos` entry. The action is anything `step` accepts; to
  report what it cost, return `swarm_envs.Action(tool_call=..., usage=...)`.

The runner asks an agent only when it is ready, and awaits the `act` of every ready
async agent concurrently. An exception from `reset` or `act` ends that agent's episode
as `agent_error` (recorded in the trajectory); the rest of the swarm goes on.

Optionally, `aclose()` (async) is awaited at the end of every rollout, in its event
loop, to release what the agent opened there (an HTTP client's connections belong to
the loop that made them). The agent stays usable: the next `reset` starts over.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from swarm_envs.core.config import DEFAULT_ROLE
from swarm_envs.core.tools import TOOLS
from swarm_envs.error import ConfigError


class TaskInfo(BaseModel):
    """What an agent is told about the episode before its first action.

    Attributes:
        task: the task id, e.g. `"calc-v0"`.
        description: the task's description, as in its manifest.
        intro: the episode's introduction for this agent (the body of its first
            observation: the task, the team, the tools).
        agent_names: every agent of the swarm, this one included.
        time_cap_s: virtual seconds before the episode is truncated.
        token_budget: tokens of all agents together, if the episode has a budget.
        tests_total: the task's canonical tests.
        tests_passed: how many pass in the starting state.
        role: this agent's role (`EnvConfig.roles`; "agent" when none are configured).
        tools: the tools this agent may call (its role's whitelist, or every tool).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    description: str
    intro: str
    agent_names: list[str] = Field(min_length=1)
    time_cap_s: float
    token_budget: int | None = None
    tests_total: int
    tests_passed: int
    role: str = DEFAULT_ROLE
    tools: list[str] = Field(default_factory=lambda: list(TOOLS))

    @property
    def num_agents(self) -> int:
        """The size of the swarm."""
        return len(self.agent_names)


@runtime_checkable
class Agent(Protocol):
    """Anything the rollout runner can drive (see the module docstring)."""

    def reset(self, agent_name: str, task_info: TaskInfo) -> None | Awaitable[None]:
        """A new episode begins for `agent_name`."""
        ...

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """The next action (or an awaitable of it), given the latest observation."""
        ...


def parse_llm_spec(text: str) -> tuple[str, str]:
    """The model and server of an LLM agent's flag form, `llm:MODEL@URL`.

    For example `llm:Qwen/Qwen3-8B@http://localhost:8000/v1`; the model name may hold `@`
    (the last one separates the URL).

    Raises:
        ConfigError: `text` is not of that form (the message shows it).
    """
    kind, _, rest = text.partition(":")
    model, at, url = rest.rpartition("@")
    if kind != "llm" or not at or not model or not url:
        raise ConfigError(f"--agent {text!r}: expected llm:MODEL@URL")
    return model, url
