"""Registering tasks with Gymnasium, and the factory functions of the package."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium

from swarm_envs import task as _tasks
from swarm_envs.task import Task, get_task, registered

if TYPE_CHECKING:
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    from swarm_envs.aec import SwarmAECEnv
    from swarm_envs.parallel import SwarmParallelEnv

NAMESPACE = "swarm"


def gym_id(task: Task) -> str:
    """The Gymnasium id of a task, e.g. `swarm/calc-v0`."""
    return f"{NAMESPACE}/{task.name}-v{task.manifest.version}"


def register_envs() -> list[str]:
    """Register every known task with Gymnasium (idempotent); returns the ids.

    Tasks registered later (`register_task`, a task folder given by path, a generated
    instance) get their Gymnasium id as they are registered.
    """
    return [_register(task_id, path) for task_id, path in sorted(registered().items())]


def _register(task_id: str, path: Path) -> str:
    """Register one task folder with Gymnasium under its id; returns the Gymnasium id."""
    name, version = task_id.rsplit("-v", 1)
    env_id = f"{NAMESPACE}/{name}-v{version}"
    registered_at = gymnasium.registry.get(env_id)
    if registered_at is not None and registered_at.kwargs.get("task") != str(path):
        del gymnasium.registry[env_id]  # the id now names another folder
        registered_at = None
    if registered_at is None:
        gymnasium.register(
            id=env_id,
            entry_point="swarm_envs.gym_env:SwarmGymEnv",
            kwargs={"task": str(path)},
        )
    return env_id


def _on_register(task: Task) -> None:
    # Only the new task: a distribution registers thousands of instances, one at a time.
    _register(task.id, task.root)


_tasks.on_register(_on_register)


def parallel_env(task: str | Task = "calc", num_agents: int = 4, **config: Any) -> SwarmParallelEnv:
    """A PettingZoo `ParallelEnv`: `num_agents` agents on `task` (see `EnvConfig`)."""
    from swarm_envs.parallel import SwarmParallelEnv

    return SwarmParallelEnv(get_task(task), num_agents=num_agents, **config)


def env(task: str | Task = "calc", num_agents: int = 4, **config: Any) -> OrderEnforcingWrapper:
    """A PettingZoo `AECEnv` on `task`, wrapped in PettingZoo's order-enforcing wrapper."""
    from pettingzoo.utils import wrappers

    from swarm_envs.aec import SwarmAECEnv

    return wrappers.OrderEnforcingWrapper(
        SwarmAECEnv(get_task(task), num_agents=num_agents, **config)
    )


def raw_env(task: str | Task = "calc", num_agents: int = 4, **config: Any) -> SwarmAECEnv:
    """The unwrapped AEC environment."""
    from swarm_envs.aec import SwarmAECEnv

    return SwarmAECEnv(get_task(task), num_agents=num_agents, **config)
