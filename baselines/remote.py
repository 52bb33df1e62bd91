"""Episodes of a training run on remote workers, whichever policy samples them.

Both trainers collect an update's episodes on a `swarm_envs.distributed.WorkerPool`
(Ray actors for `--ray`) the same way, here: one job is one episode (`EpisodeJob`: the
env's recipe, what to sample with, the episode's seed and time cap, and the trainer's
`sample(env, policy, seed)`); a worker keeps its env between jobs (`worker_env`), seeds
torch's sampling with the episode's seed (so an episode is the same on whichever worker,
or in this process, it runs), sets the time cap and samples. `collect_remote` runs one
job per seed and returns the finished episodes in the seeds' order and how many were
lost with their worker. What differs between the trainers is only `sample` and what a
job carries as its policy (a copy of the network, or a reference to a language model's
weights): `swarm_envs.baselines.ppo.rollout` and `swarm_envs.baselines.lm.remote`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from swarm_envs.distributed import WorkerError, WorkerPool, worker_env

P = TypeVar("P")
R = TypeVar("R")


@dataclass(frozen=True)
class EpisodeJob(Generic[P, R]):
    """One episode for a worker (picklable).

    Attributes:
        sample: `sample(env, policy, seed) -> episode`, a module-level function of the
            trainer (it crosses processes by reference).
        env: a zero-argument factory of the env (the worker keeps what it builds).
        policy: what `sample` samples with (the trainer's own kind).
        seed: the episode's reset seed, and the seed of its sampling.
        time_cap: the episode's time cap (virtual seconds).
    """

    sample: Callable[[Any, P, int], R]
    env: Callable[[], Any]
    policy: P
    seed: int
    time_cap: float


def run_episode(job: EpisodeJob[P, R]) -> R:
    """The episode of `job` in this process, on this worker's kept env (a pool's `fn`)."""
    import torch

    torch.manual_seed(job.seed)  # the sampling is a function of the episode, not the worker
    with worker_env(job.env) as env:
        env.set_time_cap(job.time_cap)  # sticky: the episode's reset keeps it
        return job.sample(env, job.policy, job.seed)


def collect_remote(
    pool: WorkerPool,
    sample: Callable[[Any, P, int], R],
    env: Callable[[], Any] | Sequence[Callable[[], Any]],
    policy: P,
    seeds: Sequence[int],
    time_cap: float,
) -> tuple[list[R], int]:
    """One episode per seed on the pool's workers; the finished ones, and how many failed.

    `env` is the recipe of every episode, or one recipe per seed (in the seeds' order).

    The episodes come back in the seeds' order; one whose worker died or hung is left
    out and counted (the pool replaces the worker and logs why).

    Raises:
        WorkerError: every episode failed.
    """
    recipes = [env] * len(seeds) if callable(env) else list(env)
    if len(recipes) != len(seeds):
        raise ValueError(f"{len(recipes)} env recipes for {len(seeds)} seeds")
    jobs = [
        EpisodeJob(sample, recipe, policy, int(seed), time_cap)
        for recipe, seed in zip(recipes, seeds, strict=True)
    ]
    done = pool.run(run_episode, jobs)
    episodes = [d.value for d in done if d.ok]
    if not episodes:
        raise WorkerError(
            f"all {len(jobs)} rollouts failed on the workers; the first: {done[0].error}"
        )
    return episodes, len(done) - len(episodes)
