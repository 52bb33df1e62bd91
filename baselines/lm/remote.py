"""Rollouts of the language-model trainer on Ray actors (`swarm-envs train --policy lm --ray`).

One job is one episode. An actor keeps what is costly to build between jobs: the
tokenizer, its own copy of the policies (built from the run's local model folder, as
the learner's are, so a cluster's nodes need that folder at the same path), their
generation engines, and one environment. The learner puts each update's weights in
Ray's object store once; a job carries a reference to them and their version, and an
actor loads them only when its copy is older. Sampling is seeded by the episode's seed,
so an episode is the same on whichever actor (or in this process) it runs.

Actors sample on their CPUs (they hold no GPU); the learner may be on a GPU.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from swarm_envs.baselines.lm.rollout import EpisodeRecord
from swarm_envs.distributed import WorkerError, worker_env
from swarm_envs.vector import EnvRecipe

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.train import Args, Setup
    from swarm_envs.distributed import WorkerPool


@dataclass(frozen=True)
class EpisodeJob:
    """One episode for an actor (picklable).

    Attributes:
        args: the run's arguments (the model folder, the swarm, generation).
        env: the recipe of the episode's environment.
        tools: role -> the tool schemas its prompt offers.
        prompts: role -> its system prompt, in the order of the roles.
        weights: policy name -> state dict, or a Ray reference to that mapping.
        version: the update after which the weights were taken.
        seed: the episode's reset seed, and the seed of its sampling.
        time_cap: the episode's time cap (virtual seconds).
    """

    args: Args
    env: EnvRecipe
    tools: Mapping[str, list]
    prompts: Mapping[str, str]
    weights: Any
    version: int
    seed: int
    time_cap: float


def policy_names(actors: Mapping[str, Any]) -> dict[str, str]:
    """Role -> the name of its policy: the first role that has the same policy object."""
    return {
        role: next(r for r, a in actors.items() if a.policy is actor.policy)
        for role, actor in actors.items()
    }


def weights_of(actors: Mapping[str, Any]) -> dict[str, dict]:
    """Each distinct policy's weights on the CPU, by policy name (what a job ships)."""
    out: dict[str, dict] = {}
    for role, name in policy_names(actors).items():
        if name not in out:
            state = actors[role].policy.state_dict()
            out[name] = {k: v.detach().to("cpu", copy=True) for k, v in state.items()}
    return out


@dataclass
class _Kept:
    """What an actor keeps for one run: its policies, their version, their engines."""

    actors: dict[str, Any]
    names: dict[str, str]
    engines: dict[str, Any]
    tokenizer: Any
    version: int = -1


_kept: dict[str, _Kept] = {}


def _build(args: Args, roles: Sequence[str]) -> _Kept:
    import torch

    from swarm_envs.baselines.lm.collect import engines_on
    from swarm_envs.baselines.lm.policy import load_tokenizer
    from swarm_envs.baselines.lm.train import build_actors

    # Only what sampling needs: the policies, on the CPU; no value model, no reference.
    sampling = dataclasses.replace(
        args, device="cpu", value="head", value_model=None, kl_reference=False,
        gradient_checkpointing=False,
    )  # fmt: skip
    actors, _ = build_actors(sampling, torch.device("cpu"), roles)
    for actor in actors.values():
        actor.eval()
    tokenizer = load_tokenizer(args.model)
    engines = engines_on(
        sampling,
        {r: a.policy for r, a in actors.items()},
        {r: a.adapter for r, a in actors.items()},
        tokenizer,
    )
    return _Kept(actors, policy_names(actors), engines, tokenizer)


def _resolve(weights: Any) -> Mapping[str, dict]:
    ray = sys.modules.get("ray")
    if ray is not None and isinstance(weights, ray.ObjectRef):
        return ray.get(weights)
    return weights


def collect_episode(job: EpisodeJob) -> EpisodeRecord:
    """One episode of `job` in this process, on the policies and env this worker keeps."""
    import torch

    from swarm_envs.baselines.lm.rollout import SwarmCollector

    key = json.dumps(dataclasses.asdict(job.args), sort_keys=True, default=str)
    kept = _kept.get(key)
    if kept is None:
        _kept.clear()  # one run at a time per worker: drop another run's models
        kept = _kept[key] = _build(job.args, list(job.prompts))
    if kept.version != job.version:
        weights = _resolve(job.weights)
        for role, name in kept.names.items():
            if name == role:
                kept.actors[role].policy.load_state_dict(weights[name])
        kept.version = job.version
    torch.manual_seed(job.seed)  # the sampling is a function of the episode, not the worker
    with worker_env(job.env) as env:
        collector = SwarmCollector(
            [env], kept.engines, kept.tokenizer, dict(job.tools), dict(job.prompts),
            max_prompt_tokens=job.args.max_prompt_tokens, version=lambda: job.version,
        )  # fmt: skip
        return collector.collect([job.seed], time_cap=job.time_cap)[0]


def collect_on(
    pool: WorkerPool, setup: Setup, seeds: Sequence[int], time_cap: float
) -> tuple[list[EpisodeRecord], int]:
    """One episode per seed on the pool's workers with the learner's current weights.

    Returns the finished episodes in the seeds' order and how many failed (a worker that
    died or hung; the pool replaces it and logs why).

    Raises:
        WorkerError: every episode failed.
    """
    weights: Any = weights_of(setup.actors)
    if pool.backend == "ray":
        import ray

        weights = ray.put(weights)  # once per update, whatever the number of jobs
    from swarm_envs.baselines.lm.train import env_config

    recipe = EnvRecipe.of(setup.args.task, **env_config(setup.args))
    collector = setup.collector
    jobs = [
        EpisodeJob(setup.args, recipe, collector.tools, collector.system_prompts, weights,
                   setup.update, int(seed), time_cap)
        for seed in seeds
    ]  # fmt: skip
    done = pool.run(collect_episode, jobs)
    records = [d.value for d in done if d.ok]
    if not records:
        raise WorkerError(
            f"all {len(jobs)} rollouts failed on the workers; the first: {done[0].error}"
        )
    return records, len(done) - len(records)
