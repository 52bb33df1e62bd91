"""The menu trainer's swarms: which task, what size and which episode seeds, per update.

CleanRL's "env setup", for swarms: an update's `num_envs` environments are menu-mode
swarms of the run's tasks dealt in turn (`env_recipes`), of the size the size curriculum
gives that update (`swarm_size`), reset with seeds that depend on the run seed and the
update only (`episode_seeds`). A recipe is picklable, so Ray actors build their own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from swarm_envs.baselines import runs

if TYPE_CHECKING:
    from swarm_envs.baselines.ppo.trainer import Args
    from swarm_envs.envs.menu import MenuLayout
    from swarm_envs.tasks import Task


def swarm_size(args: Args, update: int) -> int:
    """The swarm size of update `update` (from 1): the size curriculum, rounded.

    The first update has `num_agents`, the last `num_agents_end`; `linear` steps evenly
    between them, `geometric` by a constant factor (4 -> 16 over 5 updates: 4, 6, 8, 11, 16).
    """
    if args.num_agents_end is None:
        return args.num_agents
    frac = min(max(update - 1, 0) / max(args.num_updates - 1, 1), 1.0)
    a, b = args.num_agents, args.num_agents_end
    if args.num_agents_kind == "geometric":
        return round(a * (b / a) ** frac)
    return round(a + (b - a) * frac)


def env_recipe(
    args: Args, num_agents: int | None = None, task: Task | None = None
) -> Callable[[], Any]:
    """How to build one of the run's menu-mode swarms (picklable: workers build their own).

    `num_agents` overrides the run's size (the size curriculum, evaluation at other sizes);
    `task`, the run's first task.
    """
    import swarm_envs

    return functools.partial(
        swarm_envs.parallel_env,
        task or args.tasks[0],  # crosses processes as a reference (an id or a folder)
        num_agents=args.num_agents if num_agents is None else num_agents,
        mode="menu",
        max_units=args.max_units,
        n_wrong=args.n_wrong,
        move_tokens=dict(args.move_tokens),
        dependency_feature=args.dependency_feature,
        time_cap_s=args.time_cap,
    )


def env_recipes(args: Args, num_agents: int | None = None, n: int | None = None) -> list:
    """The recipes of `n` (default `num_envs`) swarms: the run's tasks dealt in turn.

    Env `i` is of task `i mod len(tasks)`, at every update: each task has its share of
    every batch (`num_envs` a multiple of the number of tasks makes the shares equal).
    """
    tasks = args.tasks
    n = args.num_envs if n is None else n
    recipes = [env_recipe(args, num_agents, t) for t in tasks]
    return [recipes[i % len(tasks)] for i in range(n)]


def make_envs(args: Args, num_agents: int | None = None) -> list:
    """`num_envs` menu-mode swarms of `num_agents` (default: the run's), tasks dealt in turn."""
    return [recipe() for recipe in env_recipes(args, num_agents)]


def menu_layout(envs: list, recipe: Callable[[], Any]) -> MenuLayout:
    """The menu's layout (observation and move sizes), the same in every swarm of the run.

    That of `envs[0]`, else of a swarm of `recipe` built for it alone (not reset: no
    sandbox starts) and closed.
    """
    if envs:
        return envs[0].layout
    probe = recipe()
    try:
        return probe.layout
    finally:
        probe.close()


def close_all(envs: list) -> None:
    """Close every env of `envs`."""
    for env in envs:
        env.close()


def episode_seeds(args: Args, update: int) -> list[int]:
    """The reset seeds of an update's rollouts: a function of the seed and the update only.

    Update u (from 1) runs episodes u * num_envs .. of the run's block (`runs.episode_seeds`).
    """
    return runs.episode_seeds(args.seed, update * args.num_envs, args.num_envs)
