"""What a language-model run holds, how it is built, and how it is saved and restored.

`build(args)` checks the options, seeds everything and makes the run's `Setup`: the
tokenizer, the policies (shared, or isolated per role, optionally LoRA) and their KL
references, the learner with its optimizer and learning-rate schedule, the time-cap
curriculum, the environments, the generation engines and the collector. The checkpoint
functions save and restore all of it (and every RNG), so a resumed run on the CPU is
bit for bit the uninterrupted one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_envs.baselines import runs
from swarm_envs.baselines.lm.build import build_actors, env_config
from swarm_envs.baselines.lm.checks import check
from swarm_envs.baselines.lm.collect import make_engines
from swarm_envs.core.config import EnvConfig
from swarm_envs.error import ConfigError

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.train import Args


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
    history: list[dict[str, float]] = field(default_factory=list)  # metrics.jsonl's rows


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


def system_prompt(role: str, args: Args) -> str:
    """The system prompt of a role: `role_prompts[role]`, or the default naming the role."""
    from swarm_envs.baselines.lm.policy import default_system_prompt

    return args.role_prompts.get(role) or default_system_prompt(role)


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
        "history": setup.history,
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
    setup.history = list(state.get("history", []))  # a checkpoint from before it kept rows
    sync_engines(setup)


def sync_engines(setup: Setup) -> None:
    """Give every generation engine its role's current weights (no-op when shared)."""
    for role, engine in setup.engines.items():
        engine.sync_weights(setup.actors[role].policy)
