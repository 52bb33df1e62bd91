"""What a menu trainer's configuration must satisfy, checked before anything runs.

`check_args` fails at start naming the field, its value and the fix (an unknown task, a
task without units, more minibatches than the smallest batch, a bad curriculum, ...);
`check_resume` refuses a checkpoint of another run (other tasks, another network shape).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from swarm_envs.baselines import runs
from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.envs.menu import MenuConfig
from swarm_envs.error import ConfigError

if TYPE_CHECKING:
    from swarm_envs.baselines.ppo.trainer import Args

MAX_AGENTS = 4096  # the most agents an environment takes (`EnvConfig.num_agents`)


def check_args(args: Args) -> TimeCapSchedule:
    """Fail at start, naming the field, on an inconsistent configuration; returns the schedule."""
    if args.num_updates == 0 and not (args.resume or args.eval_sizes):
        raise ConfigError(
            "num_updates=0: expected a positive integer; 0 only evaluates, and needs "
            "--eval-sizes (the untrained policy) or --resume CKPT with --eval-sizes"
        )
    # 0 updates (evaluation only) passes the checks of a one-update run.
    checked = dataclasses.replace(args, num_updates=max(args.num_updates, 1))
    tasks, schedule = runs.check_run(checked, positive=("hidden", "eval_episodes"), several=True)
    for name, value in [("num_agents_end", args.num_agents_end)] + [
        ("eval_sizes", n) for n in args.eval_sizes
    ]:
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_AGENTS:
            raise ConfigError(
                f"{name}={value!r}: expected a swarm size, an integer from 1 to {MAX_AGENTS}"
            )
    if args.num_agents > MAX_AGENTS:
        raise ConfigError(f"num_agents={args.num_agents}: expected at most {MAX_AGENTS}")
    if args.num_agents_end is None and args.num_agents_kind != "linear":
        raise ConfigError(
            f"num_agents_kind={args.num_agents_kind!r}: a size curriculum needs num_agents_end"
        )
    if args.eval_time_cap is not None and not (
        args.eval_time_cap > 0 and np.isfinite(args.eval_time_cap)
    ):
        raise ConfigError(
            f"eval_time_cap={args.eval_time_cap!r}: expected a positive number of virtual seconds"
        )
    for task in tasks:
        if not task.units:
            raise ConfigError(
                f"task={args.task!r}: the trainer uses mode='menu', which needs a task with "
                f"units; {task.id} has none"
            )
        if len(task.units) > args.max_units:
            raise ConfigError(
                f"max_units={args.max_units}: task {task.id} has {len(task.units)} units"
            )
    if args.credit not in ("collective", "attributed"):
        raise ConfigError(f"credit={args.credit!r}: expected 'collective' or 'attributed'")
    if args.reward_scale not in ("auto", "tests", "progress"):
        raise ConfigError(
            f"reward_scale={args.reward_scale!r}: expected 'auto', 'tests' or 'progress'"
        )
    smallest = min(args.num_agents, args.num_agents_end or args.num_agents)
    if args.num_minibatches > args.num_envs * smallest:
        raise ConfigError(
            f"num_minibatches={args.num_minibatches}: a batch can be as small as num_envs x "
            f"num_agents = {args.num_envs * smallest} decisions (every agent decides at "
            "least once per rollout); use fewer minibatches or more num_envs"
        )
    if not (args.clip_coef > 0 and np.isfinite(args.clip_coef)):
        raise ConfigError(f"clip_coef={args.clip_coef!r}: expected a positive finite number")
    try:
        MenuConfig(max_units=args.max_units, n_wrong=args.n_wrong, move_tokens=args.move_tokens)
    except Exception as e:
        raise ConfigError(f"move_tokens / n_wrong / max_units: {e}") from None
    return schedule


def check_resume(args: Args, saved: dict[str, Any]) -> None:
    """A checkpoint resumes only the run it came from: the same tasks and network shape.

    Raises:
        ConfigError: naming the option that differs from the checkpoint's, and its value there.
    """
    old = saved.get("args", {})
    if "task" in old and _ids(old["task"]) != [t.id for t in args.tasks]:
        raise ConfigError(
            f"task={args.task!r}: the checkpoint {args.resume} was trained on "
            f"task={old['task']!r}; pass --task {old['task']}"
        )
    # Options that shape the network; a checkpoint older than an option had its default.
    defaults = {"dependency_feature": False}
    for name in ("max_units", "n_wrong", "hidden", "reward_scale", "dependency_feature"):
        if name not in old and name not in defaults:
            continue
        theirs, ours = old.get(name, defaults.get(name)), getattr(args, name)
        if theirs != ours:
            flag = "--" + name.replace("_", "-")
            if isinstance(theirs, bool):
                flag = flag if theirs else "--no-" + flag[2:]
            else:
                flag = f"{flag} {theirs}"
            raise ConfigError(
                f"{name}={ours!r}: the checkpoint {args.resume} has {name}={theirs!r}; pass {flag}"
            )


def _ids(spec: str) -> list[str]:
    """The task ids a checkpoint's `task` option stood for (its names, where one is gone)."""
    try:
        return [t.id for t in runs.run_tasks(spec)]
    except ConfigError:
        return [spec]
