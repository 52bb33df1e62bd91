"""Rollouts of the language-model trainer on Ray actors (`swarm-envs train --policy lm --ray`).

One job is one episode, as in the menu trainer (`swarm_envs.baselines.remote`: the job,
its seeding, the collector); this module adds what a job samples with (`Weights`) and
how (`sample_episode`). An actor keeps what is costly to build between jobs: the
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

from swarm_envs.baselines.lm.build import build_actors, env_config
from swarm_envs.baselines.lm.collect import engines_on
from swarm_envs.baselines.lm.policy import load_tokenizer
from swarm_envs.baselines.lm.rollout import EpisodeRecord, SwarmCollector
from swarm_envs.baselines.remote import collect_remote
from swarm_envs.vector import EnvRecipe

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.run_setup import Setup
    from swarm_envs.baselines.lm.train import Args
    from swarm_envs.distributed import WorkerPool


@dataclass(frozen=True)
class Weights:
    """What an episode job samples with (picklable): a reference to the learner's policies.

    Attributes:
        args: the run's arguments (the model folder, the swarm, generation).
        tools: role -> the tool schemas its prompt offers.
        prompts: role -> its system prompt, in the order of the roles.
        weights: policy name -> state dict, or a Ray reference to that mapping.
        version: the update after which the weights were taken.
    """

    args: Args
    tools: Mapping[str, list]
    prompts: Mapping[str, str]
    weights: Any
    version: int


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


def sample_episode(env: Any, policy: Weights, seed: int) -> EpisodeRecord:
    """One episode on `env` with the policies this worker keeps, at `policy`'s version.

    The `sample` of a remote episode job (`swarm_envs.baselines.remote`).
    """
    key = json.dumps(dataclasses.asdict(policy.args), sort_keys=True, default=str)
    kept = _kept.get(key)
    if kept is None:
        _kept.clear()  # one run at a time per worker: drop another run's models
        kept = _kept[key] = _build(policy.args, list(policy.prompts))
    if kept.version != policy.version:
        weights = _resolve(policy.weights)
        for role, name in kept.names.items():
            if name == role:
                kept.actors[role].policy.load_state_dict(weights[name])
        kept.version = policy.version
    import torch

    torch.manual_seed(seed)  # again: building the policies drew from the RNG
    collector = SwarmCollector(
        [env], kept.engines, kept.tokenizer, dict(policy.tools), dict(policy.prompts),
        max_prompt_tokens=policy.args.max_prompt_tokens, version=lambda: policy.version,
    )  # fmt: skip
    return collector.collect([seed])[0]  # the cap the job set on the env (sticky)


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
    recipe = EnvRecipe.of(setup.args.task, **env_config(setup.args))
    c = setup.collector
    policy = Weights(setup.args, c.tools, c.system_prompts, weights, setup.update)
    return collect_remote(pool, sample_episode, recipe, policy, seeds, time_cap)
