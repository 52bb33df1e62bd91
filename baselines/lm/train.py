"""Train a language-model swarm with token-level PPO and SAO options.

    swarm-envs train --policy lm --model PATH --task calc --num-agents 2

Reads top to bottom like CleanRL's `ppo.py`: the arguments, their checks, seeding, the
policies (shared, or isolated per role, optionally LoRA), the rollouts (synchronous,
or asynchronous with bounded staleness), advantages, the update, diagnostics, logging
and checkpoints. Every option is a field of `Args`; `--help` lists them.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from swarm_envs.baselines import runs
from swarm_envs.baselines.lm.build import build_actors, env_config
from swarm_envs.baselines.lm.collect import AsyncCollection, episode_metrics, make_engines
from swarm_envs.baselines.lm.remote import collect_on
from swarm_envs.baselines.runs import RunArgs
from swarm_envs.core.config import EnvConfig, RoleCount
from swarm_envs.envs.registration import gym_id
from swarm_envs.error import ConfigError, Error, TrainingDiverged


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
    tensorboard: bool = True
    """write TensorBoard logs"""
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


# ---------------------------------------------------------------------------- checks


def check(args: Args) -> Args:
    """Fail at start, naming the field, on anything that would fail later."""
    from swarm_envs.baselines.lm.policy import check_model_path

    if runs.on_ray(args) and args.async_rollouts:
        raise ConfigError(
            "async_rollouts: not with --ray / --ray-address (Ray actors collect each "
            "update's episodes in parallel; asynchronous rollouts are threads here)"
        )
    if not args.model:
        raise ConfigError("model: required; give the local folder of a causal LM (--model PATH)")
    check_model_path(args.model, "model")
    if args.value_model is not None:
        check_model_path(args.value_model, "value_model")
    runs.check_run(
        args,
        positive=("episodes_per_update", "rollout_workers", "max_new_tokens",
                  "max_prompt_tokens", "micro_batch_turns", "diag_turns", "lora_rank"),
    )  # fmt: skip
    # The environment checks the roles and the whitelists (its error names the field).
    config = EnvConfig.build(**env_config(args))
    unknown = sorted(set(args.role_prompts) - set(config.agent_roles()))
    if unknown:
        raise ConfigError(
            f"role_prompts: unknown role {unknown[0]!r}; roles are "
            f"{sorted(set(config.agent_roles()))} (set them with --roles)"
        )
    if args.episodes_per_update % args.num_envs:
        raise ConfigError(
            f"episodes_per_update={args.episodes_per_update}: must be a multiple of "
            f"num_envs={args.num_envs} (environments run side by side)"
        )
    if args.async_rollouts and args.episodes_per_update % args.rollout_workers:
        raise ConfigError(
            f"episodes_per_update={args.episodes_per_update}: must be a multiple of "
            f"rollout_workers={args.rollout_workers} in asynchronous mode"
        )
    if args.max_staleness < 0:
        raise ConfigError(f"max_staleness={args.max_staleness}: expected >= 0")
    if not args.temperature > 0:
        raise ConfigError(f"temperature={args.temperature!r}: expected > 0 (sampling)")
    if not 0 < args.eps_low < 1:
        raise ConfigError(f"eps_low={args.eps_low!r}: expected a number in (0, 1)")
    if not 0 < args.eps_high < float("inf"):
        raise ConfigError(f"eps_high={args.eps_high!r}: expected a positive number")
    if args.policies == "isolated" and args.lora and args.value == "model":
        raise ConfigError(
            "value='model' with isolated LoRA policies: per-role adapters share one base; "
            "use value='head' (one head per role) or full fine-tuning"
        )
    if args.engine == "vllm":
        from swarm_envs.baselines.lm.engines import vllm_available

        if not vllm_available():
            raise ConfigError("engine='vllm': needs `pip install vllm` and a CUDA GPU")
        if runs.on_ray(args):
            raise ConfigError("engine='vllm': not with --ray (Ray actors sample on their CPUs)")
        if args.async_rollouts or args.policies == "isolated":
            raise ConfigError(
                "engine='vllm': supported for a shared policy with synchronous rollouts"
            )
    return args


def episode_seeds(args: Args, episodes: int) -> list[int]:
    """The reset seeds of the update after `episodes` episodes (`runs.episode_seeds`)."""
    return runs.episode_seeds(args.seed, episodes, args.episodes_per_update)


def system_prompt(role: str, args: Args) -> str:
    """The system prompt of a role: `role_prompts[role]`, or the default naming the role."""
    from swarm_envs.baselines.lm.policy import default_system_prompt

    return args.role_prompts.get(role) or default_system_prompt(role)


# ---------------------------------------------------------------------------- setup


@dataclass
class Setup:
    """Everything a run holds: models, optimizer, engines, envs, schedules."""

    args: Args
    device: Any
    tokenizer: Any
    actors: dict  # role -> ActorCritic (one object for every role when shared)
    references: dict
    learner: Any
    scheduler: Any
    time_cap: Any
    envs: list
    engines: dict
    collector: Any
    update: int = 0
    episodes: int = 0
    global_step: int = 0  # agent decisions (turns) so far


def build(args: Args) -> Setup:
    """Seed everything, load the models, make the optimizer, engines and environments."""
    import torch

    import swarm_envs
    from swarm_envs.baselines.lm.learner import Learner, PPOSettings, trainable_parameters
    from swarm_envs.baselines.lm.policy import load_tokenizer, render
    from swarm_envs.baselines.lm.rollout import SwarmCollector

    check(args)
    runs.seed_everything(args.seed, args.threads)
    device = runs.pick_device(args.device)
    if args.bf16 and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise ConfigError("bf16: this GPU does not support bfloat16; drop --bf16")
    tokenizer = load_tokenizer(args.model)
    config = EnvConfig.build(**env_config(args))
    roles = list(dict.fromkeys(config.agent_roles()))
    # Each role's prompt offers the tools it may call (its whitelist), as the env enforces.
    tools = {
        r: [t for t in swarm_envs.tool_schemas() if t["function"]["name"] in allowed]
        for r in roles
        if (allowed := set(config.allowed_tools(r)))
    }
    for r in roles:
        fixed = len(render(tokenizer, system_prompt(r, args), [], tools[r]))
        if fixed + 64 > args.max_prompt_tokens:
            raise ConfigError(
                f"max_prompt_tokens={args.max_prompt_tokens}: the system prompt and tool "
                f"schemas alone take {fixed} tokens; allow at least {fixed + 256}"
            )
    actors, refs = build_actors(args, device, roles)
    optimizer = torch.optim.AdamW(trainable_parameters(actors), lr=args.learning_rate, eps=1e-5)
    total = args.num_updates
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, (lambda u: max(1.0 - u / total, 0.0)) if args.anneal_lr else (lambda u: 1.0)
    )
    settings = PPOSettings(
        gamma=args.gamma, lam=args.gae_lambda, eps_low=args.eps_low, eps_high=args.eps_high,
        clip_mode=args.clip_mode, vf_coef=args.vf_coef, ent_coef=args.ent_coef,
        epochs=args.update_epochs, num_minibatches=args.num_minibatches,
        micro_batch_turns=args.micro_batch_turns, max_grad_norm=args.max_grad_norm,
        temperature=args.temperature, normalize_advantages=args.norm_adv,
        role_balanced=args.role_balanced, same_role_scaling=args.same_role_scaling,
        autocast_dtype=torch.bfloat16 if args.bf16 else None,
    )  # fmt: skip
    learner = Learner(actors, optimizer, tokenizer.pad_token_id, settings, refs, seed=args.seed)
    time_cap = runs.time_cap_schedule(args)
    envs = [swarm_envs.parallel_env(args.task, **env_config(args)) for _ in range(args.num_envs)]
    engines = make_engines(args, actors, tokenizer)
    if args.grammar:  # real models: constrained decoding (docs/real-model.md)
        from swarm_envs.baselines.lm.grammar import constrain

        engines = constrain(engines, tokenizer, tools)
    setup = Setup(args, device, tokenizer, actors, refs, learner, scheduler, time_cap, envs,
                  engines, None)  # fmt: skip
    setup.collector = SwarmCollector(
        envs, engines, tokenizer, tools, {r: system_prompt(r, args) for r in roles},
        max_prompt_tokens=args.max_prompt_tokens, version=lambda: setup.update,
    )  # fmt: skip
    return setup


# ---------------------------------------------------------------------------- checkpoints


def checkpoint_state(setup: Setup) -> dict:
    """Everything that resuming needs: weights, optimizer, schedules, RNGs, counters."""
    unique = {id(a): (r, a) for r, a in setup.actors.items()}
    return {
        "args": asdict(setup.args),
        "actors": {r: a.state_dict() for r, a in unique.values()},
        "optimizer": setup.learner.optimizer.state_dict(),
        "scheduler": setup.scheduler.state_dict(),
        "schedule": runs.schedule_state(setup.time_cap),
        "collapse": setup.learner.collapse.state_dict(),
        "role_scale": dict(setup.learner.role_scale),
        "rng": runs.rng_state(setup.learner.rng),
        "update": setup.update,
        "episodes": setup.episodes,
        "global_step": setup.global_step,
    }


def save_checkpoint(setup: Setup, path: Path) -> Path:
    """Write the checkpoint atomically (a crash mid-write keeps the previous one)."""
    return runs.save_checkpoint(path, checkpoint_state(setup))


def load_checkpoint(setup: Setup, path: str | Path) -> None:
    """Restore a run's state from `save_checkpoint`'s file."""
    import torch

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"resume={str(path)!r}: no such checkpoint file")
    state = torch.load(p, map_location=setup.device, weights_only=False)
    unique = {id(a): (r, a) for r, a in setup.actors.items()}
    for r, a in unique.values():
        if r not in state["actors"]:
            raise ConfigError(f"resume: the checkpoint has no policy for role {r!r}")
        a.load_state_dict(state["actors"][r])
    setup.learner.optimizer.load_state_dict(state["optimizer"])
    setup.scheduler.load_state_dict(state["scheduler"])
    setup.time_cap = runs.restore_schedule(state["schedule"])
    setup.learner.collapse.load_state_dict(state["collapse"])
    setup.learner.role_scale.update(state["role_scale"])
    runs.set_rng_state(state["rng"], setup.learner.rng)
    setup.update, setup.episodes = state["update"], state["episodes"]
    setup.global_step = state["global_step"]
    sync_engines(setup)


def sync_engines(setup: Setup) -> None:
    """Give every generation engine its role's current weights (no-op when shared)."""
    for role, engine in setup.engines.items():
        engine.sync_weights(setup.actors[role].policy)


# ---------------------------------------------------------------------------- the loop


def _print_line(line: str) -> None:
    # Flushed: redirected to a file (nohup, a scheduler, CI) stdout is block-buffered, and
    # the log would show nothing until the buffer fills.
    print(line, flush=True)


def train(args: Args, *, log: Any = _print_line) -> dict[str, Any]:
    """Run training; returns a summary (final metrics, run folder, checkpoint path).

    `log` gets one plain line per update (default: stdout, flushed at once).
    """
    # Rollouts here, or on Ray actors (an unreachable address fails now, before any output)
    pool = runs.ray_pool(args, args.episodes_per_update) if runs.on_ray(check(args)) else None
    try:
        setup = build(args)
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    if args.resume:
        load_checkpoint(setup, args.resume)
        run_dir = Path(args.resume).parent
    else:
        run_dir = Path(args.runs_dir) / runs.run_name(args.env_id, args.exp_name, args.seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2, default=str))
    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir), purge_step=setup.update + 1 if args.resume else None)
    metrics_file = (run_dir / "metrics.jsonl").open("a")
    ckpt = run_dir / "checkpoint.pt"
    async_rollouts = AsyncCollection(setup).start() if args.async_rollouts else None
    failed = 0
    last: dict[str, float] = {}
    saved = setup.update if args.resume else None  # the update of the last good checkpoint
    t_start = time.perf_counter()
    try:
        while setup.update < args.num_updates:
            t0 = time.perf_counter()
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
            # Real models: the opt-in format reward, reported apart (docs/real-model.md)
            from swarm_envs.baselines.lm.shaping import add_format_reward

            shaping = add_format_reward(records, args.format_reward)
            turns = setup.learner.advantages(records)
            ep_return = float(np.mean([r.episode_return for r in records]))
            diag = setup.learner.diagnose(turns, ep_return, args.diag_turns)
            t1 = time.perf_counter()
            try:
                stats = setup.learner.update(turns)
            except TrainingDiverged as e:
                update = setup.update + 1
                raise runs.diverged(e, update, ckpt, saved, args.learning_rate) from None
            t_update = time.perf_counter() - t1
            setup.scheduler.step()
            setup.update += 1
            setup.time_cap.advance()
            setup.global_step += len(turns)
            if async_rollouts is not None:
                async_rollouts.publish(setup.update)
            else:
                sync_engines(setup)
            n_tokens = sum(len(t.reply_ids) for t in turns)
            last = {
                **episode_metrics(records, cap),
                "swarm/failed_rollouts": float(failed),
                "charts/SPS": len(turns) / max(time.perf_counter() - t0, 1e-9),
                "charts/learning_rate": setup.scheduler.get_last_lr()[0],
                **{f"losses/{k}": v for k, v in stats.items()},
                "sao/clipfrac_low": stats.get("clipfrac_low", 0.0),
                "sao/clipfrac_high": stats.get("clipfrac_high", 0.0),
                **_staleness(turns, setup.update - 1),
                "perf/generation_tokens_per_s": n_tokens / max(t_rollout, 1e-9),
                "perf/update_tokens_per_s": n_tokens * args.update_epochs / max(t_update, 1e-9),
                **diag,
                **shaping,  # real models (docs/real-model.md)
            }
            for k, v in last.items():
                if writer is not None:
                    writer.add_scalar(k, v, setup.global_step)
            metrics_file.write(
                json.dumps({"update": setup.update, "global_step": setup.global_step, **last})
                + "\n"
            )
            metrics_file.flush()
            log(
                f"update {setup.update}/{args.num_updates}: return {ep_return:.2f}, "
                f"turns {len(turns)}, policy loss {stats.get('policy_loss', 0):.4f}, "
                f"value loss {stats.get('value_loss', 0):.4f}"
            )
            if args.checkpoint_every and setup.update % args.checkpoint_every == 0:
                save_checkpoint(setup, ckpt)
                saved = setup.update
    finally:
        if async_rollouts is not None:
            async_rollouts.close()
        if pool is not None:
            pool.close()
        metrics_file.close()
        if writer is not None:
            writer.close()
        for env in setup.envs:
            env.close()
    save_checkpoint(setup, ckpt)
    return {
        "run_dir": str(run_dir),
        "checkpoint": str(ckpt),
        "updates": setup.update,
        "seconds": time.perf_counter() - t_start,
        "metrics": last,
        "setup": setup,
    }


def _staleness(turns, version: int) -> dict[str, float]:
    lags = [version - t.policy_version for t in turns] or [0]
    return {"sao/staleness_mean": float(np.mean(lags)), "sao/staleness_max": float(max(lags))}


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
    m = summary["metrics"]
    _print_line(
        f"done: {summary['updates']} updates in {summary['seconds']:.0f}s; "
        f"last return {m.get('charts/episodic_return', 0):.2f}; run in {summary['run_dir']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
