"""Train a language-model swarm with token-level PPO and SAO options.

    swarm-envs train --policy lm --model PATH --task calc --num-agents 2

Reads top to bottom like CleanRL's `ppo.py`: `Args` (every option, one line of help
each; `--help` lists them), then `train()`: the checks, seeding and the run's models,
optimizer, engines and envs (`run_setup.build`), then per update the time cap, the
rollouts (synchronous, on Ray actors, or asynchronous with bounded staleness),
advantages and diagnostics, the update, logging and the checkpoint. The helpers follow
`train()`; what is not the story lives beside it: `checks` (the configuration),
`run_setup` (what a run holds, its checkpoints), `collect` and `remote` (rollout
workers), `learner`, `maths`, `policy`, `engines`.

Outputs follow the convention both trainers share (`swarm_envs.baselines.outputs`): the
run folder `{runs_dir}/{env_id}__{exp_name}__{seed}__{time}` holds `metrics.jsonl` (one
row per update), TensorBoard scalars under CleanRL's keys (`--no-tensorboard`: not
those), `args.json` and `checkpoint.pt`; `train()` returns a `Summary`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from swarm_envs.baselines import outputs, runs
from swarm_envs.baselines.lm.checks import check
from swarm_envs.baselines.lm.collect import AsyncCollection, episode_metrics
from swarm_envs.baselines.lm.remote import collect_on
from swarm_envs.baselines.lm.run_setup import (
    Setup,
    build,
    load_checkpoint,
    save_checkpoint,
    sync_engines,
)
from swarm_envs.baselines.lm.shaping import add_format_reward
from swarm_envs.baselines.outputs import RunFolder
from swarm_envs.baselines.runs import RunArgs
from swarm_envs.core.config import RoleCount
from swarm_envs.envs.registration import gym_id
from swarm_envs.error import Error, TrainingDiverged


@dataclass
class Args(RunArgs):
    """Token-level PPO for a swarm of language-model agents (options can come from --config)."""

    policy: Literal["lm"] = "lm"
    """the policy: lm (this trainer: language models on text mode) or menu (a small network)"""
    model: str = ""
    """local folder of a causal LM (config.json, weights, tokenizer with a chat template)"""

    # The options of every run (`RunArgs`), with this trainer's defaults.
    exp_name: str = "lm"
    seed: int = 0
    num_agents: int = 2
    num_envs: int = 2
    time_cap: float = 120.0
    learning_rate: float = 1e-5
    device: str = "auto"

    # Roles and policies
    roles: dict[str, RoleCount] = field(default_factory=dict)
    """agents per role in agent order, e.g. implementer 3 reviewer 1 (one count may be fill)"""
    role_prompts: dict[str, str] = field(default_factory=dict)
    """system prompt per role (default: a generic engineer prompt naming the role)"""
    role_tools: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """tool whitelist per role, e.g. reviewer read_file run_tests (wait, done: always allowed)"""
    policies: Literal["shared", "isolated"] = "shared"
    """one policy for every agent, or one per role sharing nothing"""
    lora: bool = False
    """train LoRA adapters instead of every weight (isolated: one adapter per role, one base)"""
    lora_rank: int = 8
    """LoRA rank"""
    value: Literal["head", "model"] = "head"
    """value estimate: a head on the policy, or a separate value model"""
    value_model: str | None = None
    """local folder of the value model's backbone (default: the policy's)"""

    # Rollouts
    episodes_per_update: int = 2
    """episodes (rollouts) consumed per update; one rollout per prompt, no groups"""
    async_rollouts: bool = False
    """rollout workers keep sampling with a slightly stale policy while the learner updates"""
    rollout_workers: int = 1
    """worker threads in asynchronous mode"""
    max_staleness: int = 1
    """most updates between the sampling and the learning policy (paces the workers)"""
    max_new_tokens: int = 64
    """longest reply per turn"""
    max_prompt_tokens: int = 2048
    """context budget of a prompt (oldest exchanges dropped first)"""
    temperature: float = 1.0
    """sampling temperature"""
    engine: Literal["transformers", "vllm"] = "transformers"
    """generation engine (vllm: needs the package and a GPU)"""

    # Update
    micro_batch_turns: int = 8
    """turns per forward pass (gradient accumulation within a minibatch)"""
    clip_mode: Literal["two_sided", "ppo"] = "two_sided"
    """SAO's strict two-sided token clipping, or PPO's one-sided clip"""
    eps_low: float = 0.2
    """the ratio's lower bound is 1 - eps_low"""
    eps_high: float = 0.2
    """the ratio's upper bound is 1 + eps_high"""
    role_balanced: bool = False
    """remedy for a dominant role in a shared policy: every role weighs the same in the loss"""
    same_role_scaling: Literal["none", "agreement"] = "none"
    """remedy for echo chambers (isolated): scale a role's step by its agents' agreement"""
    diag_turns: int = 32
    """turns the diagnostics look at per update"""
    kl_reference: bool = True
    """keep a frozen copy of the initial policy for the KL diagnostic (LoRA: the base)"""
    bf16: bool = False
    """bf16 autocast for forward passes and generation"""
    gradient_checkpointing: bool = False
    """recompute activations in the backward pass (less memory)"""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """extra EnvConfig fields (Python API and config files)"""

    # Real models (docs/real-model.md): shaping and constrained decoding, both off by default
    format_reward: float = 0.0
    """bonus per turn whose reply is a valid tool call (shaping; not in the episode return)"""
    grammar: bool = False
    """sample every reply under a grammar of one tool call (llguidance); masked update"""

    @property
    def env_id(self) -> str:
        """The Gymnasium id of the task, e.g. `swarm/calc-v0`."""
        from swarm_envs.tasks import get_task

        return gym_id(get_task(self.task))


# ---------------------------------------------------------------------------- train


def _print_line(line: str) -> None:
    # Flushed: redirected to a file (nohup, a scheduler, CI) stdout is block-buffered, and
    # the log would show nothing until the buffer fills.
    print(line, flush=True)


def train(args: Args, *, log: Callable[[str], None] = _print_line) -> Summary:
    """Run training; returns the run's summary (and writes its folder).

    `log` gets one plain line per update (default: stdout, flushed at once).

    Raises:
        ConfigError: an inconsistent configuration (before anything loads).
        TrainingDiverged: a loss became NaN; the last good checkpoint is kept.
    """
    # Rollouts here, or on Ray actors (an unreachable address fails now, before any output)
    pool = runs.ray_pool(args, args.episodes_per_update) if runs.on_ray(check(args)) else None

    # Seeding, policies, optimizer, engines, envs; a resumed run's state
    try:
        setup = build(args)
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    if args.resume:
        load_checkpoint(setup, args.resume)
        run_dir = Path(args.resume).parent  # the same run goes on, in the same folder
    else:
        run_dir = Path(args.runs_dir) / runs.run_name(args.env_id, args.exp_name, args.seed)
    ckpt = run_dir / "checkpoint.pt"
    saved = setup.update if args.resume else None  # the update of the last good checkpoint

    # Logging: the run folder (metrics.jsonl, TensorBoard, args.json)
    resumed_at = None if saved is None else (saved, setup.global_step)
    folder = RunFolder(run_dir, args, tensorboard=args.tensorboard, resumed_at=resumed_at)
    async_rollouts = AsyncCollection(setup).start() if args.async_rollouts else None
    failed = 0
    t_start = time.perf_counter()
    try:
        while setup.update < args.num_updates:
            # Time cap and rollouts: the update's episodes, one rollout per prompt
            t0 = time.perf_counter()
            gen_s0 = setup.collector.generation_seconds
            cap = setup.time_cap.value()
            seeds = episode_seeds(args, setup.episodes)
            if async_rollouts is not None:
                records = async_rollouts.get(args.episodes_per_update)
            elif pool is not None:
                records, failed = collect_on(pool, setup, seeds, cap)
            else:
                records = setup.collector.collect(seeds, time_cap=cap)
            setup.episodes += len(seeds)
            t_rollout = time.perf_counter() - t0

            # The opt-in format reward for real models, reported apart from the test reward
            shaping = add_format_reward(records, args.format_reward)

            # Advantages (token-level GAE), the diagnostics, and the update
            t_adv = time.perf_counter()
            turns = setup.learner.advantages(records)
            ep_return = float(np.mean([r.episode_return for r in records]))
            t_diag = time.perf_counter()
            diag = setup.learner.diagnose(turns, ep_return, args.diag_turns)
            t1 = time.perf_counter()
            try:
                stats = setup.learner.update(turns)
            except TrainingDiverged as e:
                raise runs.diverged(e, setup.update + 1, ckpt, saved, args.learning_rate) from None
            t_update = time.perf_counter() - t1
            setup.scheduler.step()
            setup.update += 1
            setup.time_cap.advance()
            setup.global_step += len(turns)
            if async_rollouts is not None:
                async_rollouts.publish(setup.update)
            else:
                sync_engines(setup)

            # Logging
            n_tokens = sum(len(t.reply_ids) for t in turns)
            row = {
                "update": setup.update,
                "global_step": setup.global_step,
                **episode_metrics(records, cap),
                "swarm/failed_rollouts": float(failed),
                "charts/SPS": len(turns) / max(time.perf_counter() - t0, 1e-9),
                "charts/learning_rate": setup.scheduler.get_last_lr()[0],
                **{f"losses/{k}": v for k, v in stats.items()},
                "sao/clipfrac_low": stats.get("clipfrac_low", 0.0),
                "sao/clipfrac_high": stats.get("clipfrac_high", 0.0),
                **staleness(turns, setup.update - 1),
                "perf/generation_tokens_per_s": n_tokens / max(t_rollout, 1e-9),
                "perf/update_tokens_per_s": n_tokens * args.update_epochs / max(t_update, 1e-9),
                **phase_seconds(setup, gen_s0, t_rollout, t_diag - t_adv, t1 - t_diag, t_update),
                **diag,
                **shaping,
            }
            setup.history.append(row)
            folder.log(row)
            log(
                f"update {setup.update}/{args.num_updates}: return {ep_return:.2f}, "
                f"turns {len(turns)}, policy loss {stats.get('policy_loss', 0):.4f}, "
                f"value loss {stats.get('value_loss', 0):.4f}"
            )

            # Checkpoint: every checkpoint_every updates, and at the end (below)
            if args.checkpoint_every and setup.update % args.checkpoint_every == 0:
                save_checkpoint(setup, ckpt)
                saved = setup.update
    finally:
        if async_rollouts is not None:
            async_rollouts.close()
        if pool is not None:
            pool.close()
        folder.close()
        for env in setup.envs:
            env.close()
    save_checkpoint(setup, ckpt)
    return Summary(
        run_name=run_dir.name,
        run_dir=run_dir,
        checkpoint=ckpt,
        updates=setup.update,
        global_step=setup.global_step,
        seconds=time.perf_counter() - t_start,
        history=setup.history,
        setup=setup,
    )


# ---------------------------------------------------------------------------- helpers


@dataclass
class Summary(outputs.Summary):
    """What a training run did (`outputs.Summary`), and the run's live state."""

    setup: Setup
    """the run's models, optimizer, engines and counters, as training left them"""


def episode_seeds(args: Args, episodes: int) -> list[int]:
    """The reset seeds of the update after `episodes` episodes (`runs.episode_seeds`)."""
    return runs.episode_seeds(args.seed, episodes, args.episodes_per_update)


def phase_seconds(
    setup: Any, gen_s0: float, rollout: float, advantages: float, diagnostics: float, update: float
) -> dict[str, float]:
    """Where one update's wall time went: sampling, the environments, and the learner.

    `perf/generation_s` is the engines' share of the rollout and `perf/env_s` the rest
    (stepping the environments, scoring, rendering prompts); both only when the rollouts
    ran here (not on remote workers or an asynchronous collector). `perf/advantages_s`
    holds the forward passes for values and reference log-probabilities, `perf/update_s`
    the update's forward-backward passes and optimizer steps.
    """
    out = {
        "perf/rollout_s": rollout,
        "perf/advantages_s": advantages,
        "perf/diagnostics_s": diagnostics,
        "perf/update_s": update,
    }
    generation = setup.collector.generation_seconds - gen_s0
    if generation > 0:
        out["perf/generation_s"] = generation
        out["perf/env_s"] = max(rollout - generation, 0.0)
    return out


def staleness(turns: Sequence[Any], version: int) -> dict[str, float]:
    """How many updates old the policies that sampled `turns` were, when `version` learns."""
    lags = [version - t.policy_version for t in turns] or [0]
    return {"sao/staleness_mean": float(np.mean(lags)), "sao/staleness_max": float(max(lags))}


# ---------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """`Args` from the command line: a --config file first, then the flags over it."""
    return runs.parse_args(
        Args,
        argv,
        prog="swarm-envs train --policy lm",
        description="Token-level PPO (SAO options) for a swarm of language-model agents; "
        "see docs/training-lm.md. For menu mode: swarm-envs train --help.",
        default=Args(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (`--help` lists every option)."""
    try:
        summary = train(parse_args(argv))
    except Error as e:
        print(f"swarm-envs train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    _print_line(
        f"done: {summary.updates} updates in {summary.seconds:.0f}s; last return "
        f"{summary.metrics.get('charts/episodic_return', 0):.2f}; run in {summary.run_dir}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
