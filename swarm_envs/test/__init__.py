"""A checker harness for swarm-envs tasks, in the spirit of `pettingzoo.test`.

`check_task(task)` runs PettingZoo's `parallel_api_test`, `parallel_seed_test` and
`api_test`, and Gymnasium's `check_env`, over a task with the given agent counts
and sync modes. Run it over your own tasks the same way the suite does.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import swarm_envs
from swarm_envs.registration import gym_id

# Random text actions are errors, so episodes are long; small action samples and a
# short cap keep the checkers quick without changing what they check.
CHECK_CONFIG: dict[str, Any] = {"max_action_chars": 128, "time_cap_s": 300.0}


def check_parallel(task: str, num_agents: int, sync: str = "event", cycles: int = 200) -> None:
    """PettingZoo's parallel API and seed tests."""
    cfg = {**CHECK_CONFIG, "sync": sync}
    env = swarm_envs.parallel_env(task, num_agents=num_agents, **cfg)
    try:
        parallel_api_test(env, num_cycles=cycles)
    finally:
        env.close()
    parallel_seed_test(
        lambda: swarm_envs.parallel_env(task, num_agents=num_agents, **cfg), num_cycles=20
    )


def check_aec(task: str, num_agents: int, sync: str = "event", cycles: int = 50) -> None:
    """PettingZoo's AEC API test (text observations: no numpy-specific checks apply)."""
    env = swarm_envs.env(task, num_agents=num_agents, sync=sync, **CHECK_CONFIG)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=cycles, verbose_progress=False)
    finally:
        env.close()


def check_gymnasium(task: str, sync: str = "event") -> None:
    """Gymnasium's `check_env` on the single-agent form made by id."""
    task_obj = swarm_envs.get_task(task)
    swarm_envs.register_envs()  # a task registered after import (your own folder) too
    env = gymnasium.make(f"swarm_envs:{gym_id(task_obj)}", sync=sync, **CHECK_CONFIG)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def check_task(
    task: str, agent_counts: Iterable[int] = (1, 2, 8), syncs: Iterable[str] = ("event", "round")
) -> None:
    """Every checker, for every agent count and sync mode."""
    for sync in syncs:
        check_gymnasium(task, sync)
        for n in agent_counts:
            check_parallel(task, n, sync)
            check_aec(task, n, sync)
