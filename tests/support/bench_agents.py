"""Agents for the bench's tests, imported by path (`support.bench_agents:...`) in worker processes.

`tests/` is on `sys.path` under pytest, and spawned workers inherit the parent's path.
"""

from __future__ import annotations

import os
from typing import Any


class Flaky:
    """Lists the files, runs the tests, says it is done; `agent_1` raises on its 2nd act."""

    def __init__(self, crash_as: str = "agent_1") -> None:
        self.crash_as = crash_as
        self.name = ""
        self.calls = 0

    def reset(self, agent_name: str, task_info: Any) -> None:
        self.name, self.calls = agent_name, 0

    def act(self, observation: str, info: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.name == self.crash_as and self.calls == 2:
            raise RuntimeError("the agent's own bug")
        plan = ["list_files", "run_tests", "done"]
        return {"name": plan[min(self.calls - 1, 2)], "arguments": {}}


def flaky(**kwargs: Any) -> Flaky:
    """One `Flaky` agent."""
    return Flaky(**kwargs)


def square_or_die(x: int) -> int:
    """x * x, except that 2 kills its worker process."""
    if x == 2:
        os._exit(3)
    return x * x


class Dying:
    """Kills its own process at its first act (an agent that takes its worker with it)."""

    def reset(self, agent_name: str, task_info: Any) -> None:
        pass

    def act(self, observation: str, info: dict[str, Any]) -> dict[str, Any]:
        os._exit(3)


def dying(**kwargs: Any) -> Dying:
    """One `Dying` agent."""
    return Dying()
