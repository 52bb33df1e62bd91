"""What every training run shares, whichever policy it trains.

The two trainers (`ppo`: a small network on menu mode; `lm`: language models on text
mode) differ in their policy, their rollouts and their update, not in what a run is:
the arguments every run has (`RunArgs`: seed, task, swarm size, curriculum, the PPO
knobs that mean the same in both), a TOML config file under the flags, the checks that
fail at start naming the field, seeding, the run's name and folder, atomic checkpoints
with every RNG state, and the message when training diverges. That lives here, once.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.distributed import WorkerPool, check_ray_address, connect_ray
from swarm_envs.error import ConfigError, Error, TrainingDiverged, close_matches
from swarm_envs.tasks import Task, resolve_tasks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    import torch

A = TypeVar("A", bound="RunArgs")
logger = logging.getLogger("swarm_envs")


@dataclass
class RunArgs:
    """The options every training run has (each trainer sets its own defaults)."""

    exp_name: str = "run"
    """the name of this experiment (part of the run name)"""
    seed: int = 1
    """seed of the run: the policy, sampling, minibatches and episode seeds"""
    config: str | None = None
    """a TOML file of these options, keys named like the flags (flags given as well override it)"""

    # Environment
    task: str = "calc"
    """the task (a bundled name such as calc or jsonkit, a task id, or a task folder); the
    menu trainer also takes several, comma-separated, and suites (mini, real-plus, ...)"""
    num_agents: int = 4
    """agents in each swarm"""
    num_envs: int = 1
    """environments stepped side by side"""
    time_cap: float = 30.0
    """time cap of every rollout at the start of training (virtual seconds)"""
    time_cap_end: float | None = None
    """final time cap of the curriculum (none: the cap stays constant)"""
    time_cap_kind: Literal["linear", "geometric", "step"] = "linear"
    """how the cap grows from time_cap to time_cap_end (swarm_envs.TimeCapSchedule)"""
    time_cap_updates: int | None = None
    """updates over which the cap reaches time_cap_end (none: all of them)"""

    # Algorithm
    num_updates: int = 10
    """policy updates to run"""
    learning_rate: float = 1e-3
    """the learning rate of the optimizer"""
    anneal_lr: bool = False
    """anneal the learning rate linearly to 0 over the updates"""
    gamma: float = 1.0
    """discount per decision or token (1: no penalty for long reasoning; docs/training.md)"""
    gae_lambda: float = 1.0
    """the lambda of generalized advantage estimation"""
    update_epochs: int = 1
    """epochs over the batch per update"""
    num_minibatches: int = 1
    """optimizer steps per epoch (the batch is split into this many minibatches)"""
    norm_adv: bool = False
    """normalise advantages within each minibatch"""
    vf_coef: float = 0.5
    """coefficient of the value loss"""
    ent_coef: float = 0.0
    """coefficient of the entropy bonus"""
    max_grad_norm: float = 1.0
    """the maximum norm of the gradient"""

    # Machine and runs
    ray: bool = False
    """collect the rollouts on Ray actors, one episode per job (extra `ray`)"""
    ray_address: str | None = None
    """the Ray cluster to join: auto, host:port or ray://host:port (implies --ray)"""
    ray_workers: int | None = None
    """Ray actors collecting rollouts (none: one per episode of an update, at most Ray's CPUs)"""
    device: str = "cpu"
    """torch device: cpu, cuda, cuda:N, or auto (cuda when there is one)"""
    threads: int | None = None
    """torch CPU threads (none: torch's default)"""
    runs_dir: str = "runs"
    """where runs are written, one folder each (metrics.jsonl, TensorBoard, checkpoint.pt)"""
    tensorboard: bool = True
    """also write TensorBoard scalars in the run folder (metrics.jsonl is always written)"""
    checkpoint_every: int = 1
    """save a checkpoint every this many updates (0: only at the end)"""
    resume: str | None = None
    """a checkpoint to resume from (continues its run up to num_updates)"""


# ---------------------------------------------------------------------------- config files


def load_config(path: str | Path, cls: type[A], base: A | None = None) -> A:
    """Options from a TOML file: top-level keys named like the fields of `cls`.

    Keys may use dashes (`num-agents`) or underscores; tables give dict options
    (`[move_tokens]`, `[roles]`). An unknown key fails naming the key and the closest
    option.

    Raises:
        ConfigError: no such file, not TOML, or an unknown option.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (FileNotFoundError, IsADirectoryError):
        raise ConfigError(f"config={str(p)!r}: no such file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"config={str(p)!r}: not valid TOML: {e}") from None
    names = {f.name for f in dataclasses.fields(cls)}
    data = {k.replace("-", "_"): v for k, v in data.items()}
    unknown = sorted(set(data) - names)
    if unknown:
        said = ", ".join(
            f"{k!r}" + (f" (did you mean {h[0]!r}?)" if (h := close_matches(k, names, 1)) else "")
            for k in unknown
        )
        raise ConfigError(f"{p}: unknown option {said}; options are the flags of --help")
    return dataclasses.replace(base or cls(), **data, config=str(p))


def parse_args(
    cls: type[A], argv: Sequence[str] | None, *, prog: str, description: str, default: A
) -> A:
    """`cls` from the command line: a `--config` file first, then the flags over it."""
    import tyro

    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    known, _ = pre.parse_known_args(argv)
    if known.config:
        default = load_config(known.config, cls, default)
    return tyro.cli(cls, default=default, args=argv, prog=prog, description=description)


# ---------------------------------------------------------------------------- checks


def run_tasks(spec: str) -> list[Task]:
    """The tasks of a run's `task` option: comma-separated tasks and suites, in order.

    Raises:
        ConfigError: naming the option, for a name that is neither a task nor a suite.
    """
    names = [n.strip() for n in str(spec).split(",")]
    if not all(names):
        raise ConfigError(f"task={spec!r}: expected task or suite names separated by commas")
    try:
        return resolve_tasks(names)
    except Error as e:
        raise ConfigError(f"task={spec!r}: {e}") from None


def check_run(
    args: RunArgs, positive: Sequence[str] = (), several: bool = False
) -> tuple[list[Task], TimeCapSchedule]:
    """The checks every run needs, before anything is built; returns the tasks and schedule.

    Args:
        args: the run's options.
        positive: further integer options of the trainer that must be >= 1.
        several: the trainer trains on several tasks at once (else `task` names one).

    Raises:
        ConfigError: naming the first field that is wrong, its value and what is expected.
    """
    tasks = run_tasks(args.task)
    if len(tasks) > 1 and not several:
        named = ", ".join(t.id for t in tasks[:4]) + (", ..." if len(tasks) > 4 else "")
        raise ConfigError(
            f"task={args.task!r}: this trainer trains on one task, and these are "
            f"{len(tasks)} ({named}); the menu trainer takes several"
        )
    counts = ("num_agents", "num_envs", "num_updates", "update_epochs", "num_minibatches")
    for name in (*counts, *positive):
        value = getattr(args, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name}={value!r}: expected a positive integer")
    for name, lo_open in (("gamma", True), ("gae_lambda", False)):
        v = getattr(args, name)
        if not ((0.0 < v <= 1.0) if lo_open else (0.0 <= v <= 1.0)):
            interval = "(0, 1]" if lo_open else "[0, 1]"
            raise ConfigError(f"{name}={v!r}: expected a number in {interval}")
    for name in ("learning_rate", "max_grad_norm"):
        v = getattr(args, name)
        if not (v > 0 and math.isfinite(v)):
            raise ConfigError(f"{name}={v!r}: expected a positive finite number")
    for name in ("vf_coef", "ent_coef"):
        v = getattr(args, name)
        if not (v >= 0 and math.isfinite(v)):
            raise ConfigError(f"{name}={v!r}: expected a finite number >= 0")
    if args.checkpoint_every < 0:
        raise ConfigError(f"checkpoint_every={args.checkpoint_every!r}: expected >= 0")
    if args.threads is not None and args.threads < 1:
        raise ConfigError(f"threads={args.threads!r}: expected a positive integer (or none)")
    if args.resume is not None and not Path(args.resume).is_file():
        raise ConfigError(f"resume={args.resume!r}: no such checkpoint file")
    check_ray_address(args.ray_address)
    if args.ray_workers is not None and (
        isinstance(args.ray_workers, bool) or args.ray_workers < 1
    ):
        raise ConfigError(
            f"ray_workers={args.ray_workers!r}: expected a positive integer (or none)"
        )
    pick_device(args.device)
    return tasks, time_cap_schedule(args)


def on_ray(args: RunArgs) -> bool:
    """The run collects on Ray (`--ray`, or a `--ray-address`)."""
    return args.ray or args.ray_address is not None


def ray_pool(args: RunArgs, wanted: int) -> WorkerPool:
    """The Ray actors of a `--ray` run: `ray_workers`, or `wanted` at most Ray's CPUs.

    An address that cannot be reached fails here, fast.

    Raises:
        RayUnavailable: Ray is not installed, or nothing answers at `ray_address`.
    """
    ray = connect_ray(args.ray_address)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    workers = args.ray_workers or min(wanted, max(1, cpus))
    logger.info("rollouts on %d Ray actors (the cluster has %d CPUs)", workers, cpus)
    return WorkerPool(workers, backend="ray", ray_address=args.ray_address)


def time_cap_schedule(args: RunArgs) -> TimeCapSchedule:
    """The curriculum of the time cap: constant, or growing to `time_cap_end`.

    Raises:
        ConfigError: naming `time_cap`, `time_cap_end`, `time_cap_kind` or `time_cap_updates`.
    """
    if args.time_cap_updates is not None and args.time_cap_updates < 1:
        raise ConfigError(f"time_cap_updates={args.time_cap_updates!r}: expected >= 1")
    total = args.time_cap_updates or args.num_updates
    try:
        if args.time_cap_end is None:
            return TimeCapSchedule(kind="constant", start=args.time_cap)
        return TimeCapSchedule(
            kind=args.time_cap_kind,
            start=args.time_cap,
            end=args.time_cap_end,
            total_steps=max(total, 1),
        )
    except ConfigError as e:
        raise ConfigError(f"time_cap / time_cap_end / time_cap_kind: {e}") from None


def pick_device(name: str) -> torch.device:
    """The torch device for `name` ("auto": CUDA when there is one).

    Raises:
        ConfigError: naming `device`, for a name torch does not know or a GPU that is absent.
    """
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ConfigError(f"device={name!r}: expected cpu, cuda, cuda:N or auto") from None
    if device.type not in ("cpu", "cuda"):
        raise ConfigError(f"device={name!r}: expected cpu, cuda, cuda:N or auto")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device={name!r}: no CUDA GPU here; use device='cpu'")
    return device


# ---------------------------------------------------------------------------- runs


def seed_everything(seed: int, threads: int | None = None, deterministic: bool = False) -> None:
    """Seed Python, NumPy and torch; set torch's CPU threads and determinism."""
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    if deterministic:
        torch.use_deterministic_algorithms(True)


EPISODE_SEED_STRIDE = 1_000_003
"""Episode seeds of one run seed: a block this long (a prime, so blocks of nearby run
seeds do not line up with round episode counts)."""


def episode_seeds(seed: int, first: int, count: int) -> list[int]:
    """The reset seeds of episodes `first` .. `first + count - 1` of a run seeded `seed`.

    Episode k of run seed s is reset with `s * EPISODE_SEED_STRIDE + k`: a function of the
    run seed and the episode's index only (so resuming, or collecting on other workers,
    gives the same episodes), and runs with different seeds share no episode seed while
    they run fewer than `EPISODE_SEED_STRIDE` episodes. Both trainers use it.

    Raises:
        ConfigError: `first + count` is beyond the run's block of seeds.
    """
    if first < 0 or count < 0 or first + count > EPISODE_SEED_STRIDE:
        raise ConfigError(
            f"episodes {first}..{first + count}: a run has at most {EPISODE_SEED_STRIDE} "
            "episode seeds; start another run (another seed) to go further"
        )
    return [seed * EPISODE_SEED_STRIDE + first + k for k in range(count)]


def schedule_state(schedule: TimeCapSchedule) -> dict[str, Any]:
    """The time-cap curriculum as a checkpoint keeps it (its settings and its position)."""
    return schedule.model_dump()


def restore_schedule(state: dict[str, Any]) -> TimeCapSchedule:
    """The curriculum a checkpoint saved with `schedule_state`: a resumed run continues it."""
    return TimeCapSchedule.model_validate(state)


def run_name(env_id: str, exp_name: str, seed: int) -> str:
    """`{env_id}__{exp_name}__{seed}__{time}`, CleanRL's convention."""
    return f"{env_id}__{exp_name}__{seed}__{int(time.time())}"


def rng_state(*generators: np.random.Generator) -> dict[str, Any]:
    """Every RNG state a resumed run needs: Python's, NumPy's, torch's, CUDA's, and these."""
    import torch

    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "generators": [g.bit_generator.state for g in generators],
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
    }


def set_rng_state(state: dict[str, Any], *generators: np.random.Generator) -> None:
    """Restore what `rng_state` saved (the same generators, in the same order)."""
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    for g, s in zip(generators, state["generators"], strict=True):
        g.bit_generator.state = s
    torch.set_rng_state(state["torch"].cpu())
    if state["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(path: Path, state: dict[str, Any]) -> Path:
    """Write atomically: a crash while saving never replaces the last good checkpoint."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)
    return path


def diverged(
    error: Exception, update: int, checkpoint: Path, last_saved: int | None, learning_rate: float
) -> TrainingDiverged:
    """The error that stops a run whose update `update` diverged, naming what is kept."""
    kept = (
        f"{checkpoint} (update {last_saved})"
        if last_saved is not None and checkpoint.exists()
        else "none yet"
    )
    return TrainingDiverged(
        f"update {update}: {error}; training stopped. The last good checkpoint is {kept}; "
        f"resume from it with a smaller learning_rate (now {learning_rate:g})"
    )
