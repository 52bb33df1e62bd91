"""Scripted agents: explicit coordination strategies, no model.

They make the environment's dynamics visible without an LLM. Each agent knows
the task's reference implementation of every unit (an *oracle*: it reads the
task definition, which real agents never see), so the only thing that varies is
how the swarm organises itself:

- `none`: every agent works through the units in its own shuffled order, with no
  messages: duplicated work and edit conflicts;
- `claim`: before a unit, an agent posts `claim: <unit>` on #general and skips
  units that others claimed or finished (`done: <unit>`);
- `leader`: agent_0 assigns units round-robin with direct messages; the others
  wait for their assignments.

Actions carry a modelled `usage`, as an LLM client would report it: the tokens of the
call itself plus `reasoning_tokens` of thinking (output), and the latest observation
(input).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from swarm_envs.actions import estimate_tokens
from swarm_envs.channels import agent_name, agent_names
from swarm_envs.error import ConfigError
from swarm_envs.generators import unit_patches
from swarm_envs.task import Task, Unit

Strategy = Literal["none", "claim", "leader"]
STRATEGIES: tuple[str, ...] = ("none", "claim", "leader")
_CLAIM = re.compile(r"^(claim|done|assign): (\S+)$")


def _call(name: str, tokens: int = 120, **arguments: Any) -> dict:
    return {"name": name, "arguments": arguments, "usage": {"output_tokens": tokens}}


def _with_usage(action: dict, observation: str, reasoning_tokens: int) -> dict:
    # The agent "read" its latest observation (its prompt, 4 characters a token) and
    # "thought" before calling the tool, as an LLM agent would.
    usage = {
        "output_tokens": action["usage"]["output_tokens"] + reasoning_tokens,
        "input_tokens": estimate_tokens(len(observation)),
    }
    return {**action, "usage": usage}


@dataclass
class ScriptedAgent:
    """One scripted agent; call `act(observation, info)` when it is ready."""

    name: str
    task: Task
    strategy: Strategy = "claim"
    num_agents: int = 1
    seed: int = 0
    reasoning_tokens: int = 200
    finished: set[str] = field(default_factory=set)
    claimed: set[str] = field(default_factory=set)
    assigned: list[str] = field(default_factory=list)
    _plan: list[dict] = field(default_factory=list)
    _unit: str | None = None
    _order: list[str] = field(default_factory=list)
    _said_done: bool = False
    _assigned_out: bool = False

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"strategy={self.strategy!r}: expected one of {STRATEGIES}")
        self.index = int(self.name.rsplit("_", 1)[1])
        names = [u.name for u in self.task.units]
        rng = random.Random(f"{self.seed}:{self.name}")
        if self.strategy == "none":
            rng.shuffle(names)
        else:  # dependencies first, then a per-agent rotation to spread the work
            names = _topological(self.task.units)
            k = (self.index * max(len(names) // max(self.num_agents, 1), 1)) % max(len(names), 1)
            names = names[k:] + names[:k] if self.strategy == "claim" else names
        self._order = names
        self._units = {u.name: u for u in self.task.units}

    def reset(self, agent_name: str, task_info: object = None) -> None:
        """A new episode (the agent protocol of `swarm_envs.agents`): start afresh."""
        self.name = agent_name
        self.finished, self.claimed, self.assigned, self._plan = set(), set(), [], []
        self._unit, self._said_done, self._assigned_out = None, False, False
        self.__post_init__()

    # ------------------------------------------------------------------ messages

    def _read(self, info: Mapping[str, Any]) -> None:
        for m in info.get("messages", []):
            for line in m["text"].splitlines():
                match = _CLAIM.match(line.strip())
                if not match:
                    continue
                verb, unit = match.groups()
                if verb == "claim":
                    self.claimed.add(unit)
                elif verb == "done":
                    self.finished.add(unit)
                elif verb == "assign" and m["channel"] is None:
                    self.assigned.append(unit)

    # ------------------------------------------------------------------ policy

    def act(self, observation: str, info: Mapping[str, Any]) -> dict:
        """The next action, given the agent's latest observation and info."""
        return _with_usage(self._next(info), observation, self.reasoning_tokens)

    def _next(self, info: Mapping[str, Any]) -> dict:
        self._read(info)
        if info.get("error") and info.get("tool") == "edit_file":
            # Our edit did not apply: someone else implemented this unit.
            self._plan = []
        if self._plan:
            return self._plan.pop(0)
        if self._unit is not None:
            self.finished.add(self._unit)
            finished, self._unit = self._unit, None
            if self.strategy != "none":
                return _call("post", 30, channel="general", text=f"done: {finished}")
        if self.strategy == "leader" and self.index == 0 and not self._assigned_out:
            return self._assign()
        unit = self._pick()
        if unit is None:
            if self.strategy == "leader" and self.index != 0 and not self._said_done:
                if not self.assigned and len(self.finished) < len(self._units):
                    return _call("wait", 20, seconds=30.0)
            self._said_done = True
            return _call("done", 20, summary=f"{self.name} finished")
        self._unit = unit
        u = self._units[unit]
        plan = [_call("read_file", 40, path=u.path)]  # look before editing, as an LLM would
        plan += [
            _call("edit_file", 150 + len(p.new) // 4, path=p.path, old=p.old, new=p.new)
            for p in unit_patches(self.task, u)
        ]
        plan.append(_call("run_tests", 40, selection=list(u.tests)))
        if self.strategy == "claim":
            self._plan = plan
            return _call("post", 30, channel="general", text=f"claim: {unit}")
        self._plan = plan[1:]
        return plan[0]

    def _pick(self) -> str | None:
        if self.strategy == "leader" and self.index != 0:
            while self.assigned:
                unit = self.assigned.pop(0)
                if unit not in self.finished:
                    return unit
            return None
        if self.strategy == "leader":
            mine = [u for i, u in enumerate(self._order) if i % self.num_agents == 0]
            todo = [u for u in mine if u not in self.finished]
            return todo[0] if todo else None
        taken = self.finished | (self.claimed if self.strategy == "claim" else set())
        for unit in self._order:
            if unit not in taken:
                return unit
        return None

    def _assign(self) -> dict:
        self._assigned_out = True
        lines: dict[int, list[str]] = {}
        for i, unit in enumerate(self._order):
            if i % self.num_agents:
                lines.setdefault(i % self.num_agents, []).append(f"assign: {unit}")
        if not lines:
            return _call("post", 20, channel="general", text="working alone")
        # One message per teammate; the first now, the rest queued in the plan.
        msgs = [
            _call("send_message", 20 + 10 * len(v), to=agent_name(k), text="\n".join(v))
            for k, v in sorted(lines.items())
        ]
        self._plan = msgs[1:] + self._plan
        return msgs[0]


def _topological(units: list[Unit]) -> list[str]:
    done: list[str] = []
    seen: set[str] = set()
    by = {u.name: u for u in units}

    def visit(n: str) -> None:
        if n in seen:
            return
        seen.add(n)
        for d in by[n].depends_on:
            visit(d)
        done.append(n)

    for u in units:
        visit(u.name)
    return done


def make_team(
    task: Task,
    num_agents: int,
    strategy: Strategy = "claim",
    seed: int = 0,
    reasoning_tokens: int = 200,
) -> dict[str, ScriptedAgent]:
    """One scripted agent per agent name."""
    return {
        name: ScriptedAgent(
            name, task, strategy, num_agents, seed, reasoning_tokens=reasoning_tokens
        )
        for name in agent_names(num_agents)
    }
