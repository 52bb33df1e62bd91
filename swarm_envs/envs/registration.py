"""Registering tasks with Gymnasium, and the factory functions of the package."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium

from swarm_envs.tasks import Task, get_task, registered
from swarm_envs.tasks import registry as _tasks

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from swarm_envs.envs.aec import SwarmAECEnv
    from swarm_envs.envs.menu import MenuParallelEnv
    from swarm_envs.envs.parallel import SwarmParallelEnv

NAMESPACE = "swarm"


def gym_id(task: Task) -> str:
    """The Gymnasium id of a task, e.g. `swarm/calc-v0`."""
    return f"{NAMESPACE}/{task.name}-v{task.manifest.version}"


MODES = ("text", "menu")


def menu_gym_id(task: Task) -> str:
    """The Gymnasium id of a task in menu mode, e.g. `swarm/calc-menu-v0`."""
    return f"{NAMESPACE}/{task.name}-menu-v{task.manifest.version}"


def register_envs() -> list[str]:
    """Register every known task with Gymnasium (idempotent); returns the ids.

    Each task gets two ids: the text env (`swarm/<name>-v<N>`) and menu mode
    (`swarm/<name>-menu-v<N>`). Tasks registered later (`register_task`, a task folder given
    by path, a generated instance) get their ids as they are registered.
    """
    return [
        env_id
        for task_id, path in sorted(registered().items())
        for env_id in _register(task_id, path)
    ]


_ENTRY_POINTS = (
    ("", "swarm_envs.envs.gym_env:SwarmGymEnv"),
    ("-menu", "swarm_envs.envs.menu:MenuGymEnv"),
)


def _register(task_id: str, path: Path) -> list[str]:
    """Register one task folder with Gymnasium under its ids; returns the Gymnasium ids."""
    name, version = task_id.rsplit("-v", 1)
    ids = []
    for suffix, entry_point in _ENTRY_POINTS:
        env_id = f"{NAMESPACE}/{name}{suffix}-v{version}"
        registered_at = gymnasium.registry.get(env_id)
        if registered_at is not None and registered_at.kwargs.get("task") != str(path):
            del gymnasium.registry[env_id]  # the id now names another folder
            registered_at = None
        if registered_at is None:
            gymnasium.register(id=env_id, entry_point=entry_point, kwargs={"task": str(path)})
        ids.append(env_id)
    return ids


def _on_register(task: Task) -> None:
    # Only the new task: a distribution registers thousands of instances, one at a time.
    _register(task.id, task.root)


_tasks.on_register(_on_register)


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        from swarm_envs.error import ConfigError

        raise ConfigError(f"mode={mode!r}: expected one of {list(MODES)}")


def parallel_env(
    task: str | Task = "calc", num_agents: int = 4, mode: str = "text", **config: Any
) -> SwarmParallelEnv | MenuParallelEnv:
    """A PettingZoo `ParallelEnv`: `num_agents` agents on `task` (see `EnvConfig`).

    `mode="menu"`: discrete moves over the task's units (see `swarm_envs.envs.menu`).
    """
    _check_mode(mode)
    if mode == "menu":
        from swarm_envs.envs.menu import MenuParallelEnv

        return MenuParallelEnv(get_task(task), num_agents=num_agents, **config)
    from swarm_envs.envs.parallel import SwarmParallelEnv

    return SwarmParallelEnv(get_task(task), num_agents=num_agents, **config)


def env(
    task: str | Task = "calc", num_agents: int = 4, mode: str = "text", **config: Any
) -> AECEnv:
    """A PettingZoo `AECEnv` on `task`, wrapped in PettingZoo's order-enforcing wrapper."""
    from pettingzoo.utils import wrappers

    from swarm_envs.envs.aec import SwarmAECEnv

    _check_mode(mode)
    if mode == "menu":
        from swarm_envs.envs.menu import menu_aec_env

        return menu_aec_env(get_task(task), num_agents=num_agents, **config)

    return wrappers.OrderEnforcingWrapper(
        SwarmAECEnv(get_task(task), num_agents=num_agents, **config)
    )


def raw_env(task: str | Task = "calc", num_agents: int = 4, **config: Any) -> SwarmAECEnv:
    """The unwrapped AEC environment."""
    from swarm_envs.envs.aec import SwarmAECEnv

    return SwarmAECEnv(get_task(task), num_agents=num_agents, **config)
