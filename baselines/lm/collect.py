"""Wiring of rollouts for the trainer: engines per role, asynchronous workers, metrics."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

import swarm_envs
from swarm_envs.baselines import runs
from swarm_envs.baselines.lm.build import env_config
from swarm_envs.baselines.lm.engines import Generation, TransformersEngine, VLLMEngine
from swarm_envs.baselines.lm.rollout import EpisodeRecord, SwarmCollector
from swarm_envs.baselines.lm.sao import AsyncRollouts, StalenessGate, WeightStore, snapshot

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.run_setup import Setup
    from swarm_envs.baselines.lm.train import Args


class AdapterEngine:
    """An engine on a multi-adapter (per-role LoRA) model: activates the role's adapter."""

    def __init__(self, engine: TransformersEngine, adapter: str):
        self.engine = engine
        self.adapter = adapter
        self.model = engine.model

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """Generate with the role's adapter active."""
        self.engine.model.set_adapter(self.adapter)
        return self.engine.generate(prompts)

    def sync_weights(self, model: Any) -> None:
        """Nothing to copy: the adapters live in the learner's model."""
        self.engine.sync_weights(model)


def engines_on(
    args: Args, policies: Mapping[str, Any], adapters: Mapping[str, str | None], tokenizer
) -> dict:
    """Role -> a transformers engine on that role's policy (one engine per distinct policy)."""
    import torch

    cache: dict[int, TransformersEngine] = {}
    out: dict[str, Any] = {}
    for role, policy in policies.items():
        if id(policy) not in cache:
            cache[id(policy)] = TransformersEngine(
                policy,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
                max_new_tokens=args.max_new_tokens,
                temperature=args.temperature,
                autocast_dtype=torch.bfloat16 if args.bf16 else None,
            )
        engine = cache[id(policy)]
        adapter = adapters.get(role)
        out[role] = (
            AdapterEngine(engine, adapter)
            if adapter and len(set(adapters.values())) > 1
            else engine
        )
    return out


def make_engines(args: Args, actors: Mapping[str, Any], tokenizer) -> dict:
    """Role -> generation engine sampling from that role's policy."""
    if args.engine == "vllm":
        engine = VLLMEngine(
            args.model, max_new_tokens=args.max_new_tokens, temperature=args.temperature
        )
        first = next(iter(actors.values()))
        engine.sync_weights(first.policy)
        return dict.fromkeys(actors, engine)
    return engines_on(
        args,
        {r: a.policy for r, a in actors.items()},
        {r: a.adapter for r, a in actors.items()},
        tokenizer,
    )


@dataclass
class _Worker:
    """One rollout worker: its copies of the policies, their version, its env."""

    copies: dict[str, Any]
    version: int
    env: Any
    collector: SwarmCollector | None = None

    def policy_version(self) -> int:
        """The version of the weights this worker samples with now."""
        return self.version


class AsyncCollection:
    """Rollout worker threads with policy snapshots, paced by bounded staleness.

    Each worker owns one environment, a copy of every policy and its engines. Before an
    episode it loads the newest published weights (if newer than its own), so episodes
    are sampled with a policy at most `max_staleness` updates old when they start.
    """

    def __init__(self, setup: Setup):
        args = setup.args
        self.setup = setup
        self.store = WeightStore()
        self._keys = {r: _key(setup.actors, r) for r in setup.actors}
        self._unique = {self._keys[r]: setup.actors[r].policy for r in setup.actors}
        self.store.publish(setup.update, self._unique)
        self.gate = StalenessGate(args.episodes_per_update, args.max_staleness)
        self.gate.version = setup.update
        self.gate.started = setup.update * args.episodes_per_update
        # The run's episode seeds from where it is (`runs.episode_seeds`), one per episode.
        self._seeds = itertools.count(runs.episode_seeds(args.seed, setup.episodes, 1)[0])
        self._lock = threading.Lock()
        self.workers: list[_Worker] = []
        roles = list(setup.actors)
        for _ in range(args.rollout_workers):
            copies = snapshot(self._unique)
            policies = {r: copies[self._keys[r]] for r in roles}
            engines = engines_on(
                args, policies, {r: a.adapter for r, a in setup.actors.items()}, setup.tokenizer
            )
            env = swarm_envs.parallel_env(args.task, **env_config(args))
            worker = _Worker(copies, setup.update, env)
            worker.collector = SwarmCollector(
                [env],
                engines,
                setup.tokenizer,
                setup.collector.tools,
                setup.collector.system_prompts,
                max_prompt_tokens=setup.collector.max_prompt_tokens,
                version=worker.policy_version,
            )
            self.workers.append(worker)
        self.rollouts = AsyncRollouts(self._rollout, args.rollout_workers, self.gate)

    def _rollout(self, w: int, version: int) -> EpisodeRecord:
        worker = self.workers[w]
        worker.version = self.store.pull(worker.copies, worker.version)
        with self._lock:
            seed = next(self._seeds)
            cap = self.setup.time_cap.value()
        assert worker.collector is not None
        return worker.collector.collect([seed], time_cap=cap)[0]

    def start(self) -> AsyncCollection:
        """Start the workers; returns self."""
        self.rollouts.start()
        return self

    def get(self, n: int) -> list[EpisodeRecord]:
        """The next `n` finished episodes (waits for them)."""
        return self.rollouts.get(n)

    def publish(self, version: int) -> None:
        """Make the learner's weights after update `version` the workers' newest."""
        self.store.publish(version, self._unique)
        self.gate.publish(version)

    def close(self) -> None:
        """Stop the workers and close their environments."""
        self.rollouts.close()
        for worker in self.workers:
            worker.env.close()


def _key(actors: Mapping[str, Any], role: str) -> str:
    policy = actors[role].policy
    return next(r for r, a in actors.items() if a.policy is policy)


def episode_metrics(records: Sequence[EpisodeRecord], time_cap: float) -> dict[str, float]:
    """The part-1 chart keys for a batch of episodes, plus swarm and LM ones."""
    turns = [t for r in records for t in r.all_turns()]
    return {
        "charts/episodic_return": float(np.mean([r.episode_return for r in records])),
        # Decisions per episode, as in part 1; the virtual time it lasted next to it.
        "charts/episodic_length": float(np.mean([r.num_turns for r in records])),
        "charts/episodic_virtual_time": float(np.mean([r.virtual_time for r in records])),
        "charts/time_cap": float(time_cap),
        "charts/valid_action_rate": float(np.mean([t.valid for t in turns])) if turns else 0.0,
        "swarm/tests_passed": float(np.mean([r.tests_passed for r in records])),
        "swarm/truncated": float(np.mean([r.end == "truncated" for r in records])),
    }
