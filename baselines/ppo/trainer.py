"""Shared-policy PPO for menu-mode swarms, in the reading order of CleanRL's `ppo.py`.

arguments -> seeding -> env setup -> policy -> (per update) time cap, rollout,
advantages, update, logging, checkpoint.

One network acts for every agent (agents flattened onto the batch axis) and every
agent receives the collective reward. Agents decide at different virtual times, so
each agent's experience is a semi-MDP: a decision's reward is the sum of collective
rewards until the agent's next decision, and the episode's end reaches every agent's
last decision. A batch is a set of whole rollouts (each ends at its time cap), so a
checkpoint between updates captures everything and a resumed run is bit-for-bit the
uninterrupted one on the CPU.

Run: `swarm-envs train --task calc --num-agents 4` (or `--config run.toml`; `--ray` collects
the rollouts on Ray actors); see `swarm-envs train --help` and docs/training.md.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from torch import nn, optim

from swarm_envs.baselines import runs
from swarm_envs.baselines.ppo import maths
from swarm_envs.baselines.ppo.policy import MenuPolicy
from swarm_envs.baselines.ppo.rollout import Rollouts, collect, collect_on
from swarm_envs.baselines.runs import RunArgs
from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.envs.menu import MenuConfig
from swarm_envs.envs.registration import menu_gym_id
from swarm_envs.error import ConfigError, Error, TrainingDiverged
from swarm_envs.task import get_task

logger = logging.getLogger("swarm_envs")


def _default_move_tokens() -> dict[str, int]:
    return dict(MenuConfig().move_tokens)


@dataclass
class Args(RunArgs):
    """Shared-policy PPO on a menu-mode swarm (every option can also come from --config)."""

    policy: Literal["menu"] = "menu"
    """the policy: menu (this trainer: a small network on menu mode) or lm (language models)"""

    # The options of every run (`RunArgs`), with this trainer's defaults.
    exp_name: str = "ppo"
    threads: int | None = 1
    num_agents: int = 4
    num_envs: int = 16
    num_updates: int = 100
    learning_rate: float = 3e-3
    anneal_lr: bool = True
    update_epochs: int = 8
    num_minibatches: int = 4
    norm_adv: bool = True
    ent_coef: float = 0.005
    max_grad_norm: float = 0.5
    checkpoint_every: int = 10

    torch_deterministic: bool = True
    """use deterministic torch algorithms (a resumed run then matches bit for bit)"""

    # Menu mode
    max_units: int = 128
    """unit slots of the menu (observation and action size do not depend on the task)"""
    n_wrong: int = 3
    """wrong candidate implementations per unit"""
    move_tokens: dict[str, int] = field(default_factory=_default_move_tokens)
    """thinking tokens of each move kind (claim, apply, run_tests, wait, done)"""

    # PPO
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss as in the PPO paper"""
    target_kl: float | None = None
    """stop the epochs of an update early when the approximate KL exceeds this"""
    hidden: int = 128
    """width of the actor and critic MLPs"""
    progress: bool = True
    """show a progress bar"""

    @property
    def env_id(self) -> str:
        """The Gymnasium id of the task in menu mode, e.g. `swarm/calc-menu-v0`."""
        return menu_gym_id(get_task(self.task))


# ---------------------------------------------------------------------------- configuration


def load_config(path: str | Path, base: Args | None = None) -> Args:
    """Options from a TOML file (top-level keys named like the fields of `Args`)."""
    return runs.load_config(path, Args, base)


def check_args(args: Args) -> TimeCapSchedule:
    """Fail at start, naming the field, on an inconsistent configuration; returns the schedule."""
    task, schedule = runs.check_run(args, positive=("hidden",))
    if not task.units:
        raise ConfigError(
            f"task={args.task!r}: the trainer uses mode='menu', which needs a task with units"
        )
    if len(task.units) > args.max_units:
        raise ConfigError(f"max_units={args.max_units}: task {task.id} has {len(task.units)} units")
    if args.num_minibatches > args.num_envs * args.num_agents:
        raise ConfigError(
            f"num_minibatches={args.num_minibatches}: a batch can be as small as num_envs x "
            f"num_agents = {args.num_envs * args.num_agents} decisions (every agent decides at "
            "least once per rollout); use fewer minibatches or more num_envs"
        )
    if not (args.clip_coef > 0 and np.isfinite(args.clip_coef)):
        raise ConfigError(f"clip_coef={args.clip_coef!r}: expected a positive finite number")
    try:
        MenuConfig(max_units=args.max_units, n_wrong=args.n_wrong, move_tokens=args.move_tokens)
    except Exception as e:
        raise ConfigError(f"move_tokens / n_wrong / max_units: {e}") from None
    return schedule


def env_recipe(args: Args) -> Callable[[], Any]:
    """How to build one of the run's menu-mode swarms (picklable: workers build their own)."""
    import swarm_envs

    return functools.partial(
        swarm_envs.parallel_env,
        get_task(args.task),  # crosses processes as a reference (an id or a folder)
        num_agents=args.num_agents,
        mode="menu",
        max_units=args.max_units,
        n_wrong=args.n_wrong,
        move_tokens=dict(args.move_tokens),
        time_cap_s=args.time_cap,
    )


def make_envs(args: Args) -> list:
    """`num_envs` menu-mode swarms of `num_agents` on the task."""
    recipe = env_recipe(args)
    return [recipe() for _ in range(args.num_envs)]


def episode_seeds(args: Args, update: int) -> list[int]:
    """The reset seeds of an update's rollouts: a function of the seed and the update only.

    Update u (from 1) runs episodes u * num_envs .. of the run's block (`runs.episode_seeds`).
    """
    return runs.episode_seeds(args.seed, update * args.num_envs, args.num_envs)


def evaluate(
    policy: MenuPolicy, envs: Sequence, seeds: Sequence[int], device: str | torch.device = "cpu"
) -> list[dict]:
    """The episodes of `policy` (sampling, as in training) from `seeds`, len(envs) at a time."""
    episodes: list[dict] = []
    for k in range(0, len(seeds), len(envs)):
        chunk = list(seeds[k : k + len(envs)])
        episodes += collect(envs[: len(chunk)], policy, chunk, device).episodes
    return episodes


# ---------------------------------------------------------------------------- update


def ppo_update(
    policy: MenuPolicy,
    optimizer: optim.Optimizer,
    batch: Rollouts,
    args: Args,
    np_rng: np.random.Generator,
    device: torch.device | str = "cpu",
) -> dict[str, float]:
    """Advantages, then `update_epochs` epochs of clipped PPO over minibatches; the losses."""
    advantages, returns = maths.gae(
        batch.rewards, batch.values, batch.next_values, batch.continues, args.gamma, args.gae_lambda
    )
    dev = device
    b_obs = torch.as_tensor(batch.obs, device=dev)
    b_masks = torch.as_tensor(batch.masks, device=dev)
    b_actions = torch.as_tensor(batch.actions, device=dev)
    b_logprobs = torch.as_tensor(batch.logprobs, device=dev)
    b_values = torch.as_tensor(batch.values, device=dev)
    b_adv = torch.as_tensor(advantages, dtype=torch.float32, device=dev)
    b_returns = torch.as_tensor(returns, dtype=torch.float32, device=dev)
    clipfracs: list[float] = []
    stats: dict[str, float] = {}
    for _epoch in range(args.update_epochs):
        order = np_rng.permutation(len(batch))
        for mb in np.array_split(order, args.num_minibatches):
            if mb.size == 0:
                continue
            mb_t = torch.as_tensor(mb, device=dev)
            _, newlogprob, entropy, newvalue = policy.act(
                b_obs[mb_t], b_masks[mb_t], b_actions[mb_t]
            )
            logratio = newlogprob - b_logprobs[mb_t]
            ratio = logratio.exp()
            with torch.no_grad():
                old_kl, kl = maths.approx_kl(logratio)
                clipfracs.append(float(maths.clip_fraction(ratio, args.clip_coef)))
            mb_adv = b_adv[mb_t]
            if args.norm_adv and mb.size > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = maths.policy_loss(ratio, mb_adv, args.clip_coef)
            v_clip = args.clip_coef if args.clip_vloss else None
            v_loss = maths.value_loss(newvalue, b_values[mb_t], b_returns[mb_t], v_clip)
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + args.vf_coef * v_loss
            for name, value in (
                ("loss", loss),
                ("policy_loss", pg_loss),
                ("value_loss", v_loss),
                ("entropy", entropy_loss),
            ):
                if not torch.isfinite(value):
                    raise TrainingDiverged(f"losses/{name} is {value.item()}")
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
            optimizer.step()
            stats = {
                "losses/policy_loss": pg_loss.item(),
                "losses/value_loss": v_loss.item(),
                "losses/entropy": entropy_loss.item(),
                "losses/old_approx_kl": float(old_kl),
                "losses/approx_kl": float(kl),
            }
        if args.target_kl is not None and stats.get("losses/approx_kl", 0.0) > args.target_kl:
            break
    with torch.no_grad():  # a policy that cannot act any more must not reach the next rollout
        _, logprob, _, value = policy.act(b_obs, b_masks, b_actions)
    if not (torch.isfinite(logprob).all() and torch.isfinite(value).all()):
        raise TrainingDiverged("the policy's log-probabilities or values are no longer finite")
    stats["losses/clipfrac"] = float(np.mean(clipfracs)) if clipfracs else 0.0
    stats["losses/explained_variance"] = maths.explained_variance(batch.values, returns)
    return stats


# ---------------------------------------------------------------------------- train


@dataclass
class Summary:
    """What a training run did: one row per update, and where its files are."""

    run_name: str
    run_dir: Path
    checkpoint: Path
    history: list[dict[str, float]]
    global_step: int
    seconds: float


def train(args: Args) -> Summary:
    """Train a shared policy with PPO; returns the run's summary.

    Raises:
        ConfigError: an inconsistent configuration (before anything runs).
        TrainingDiverged: a loss became NaN; the last good checkpoint is kept.
    """
    from torch.utils.tensorboard import SummaryWriter

    schedule = check_args(args)
    resumed = torch.load(args.resume, weights_only=False) if args.resume else None
    if resumed is not None:
        run_name = resumed["run_name"]
    else:
        run_name = runs.run_name(args.env_id, args.exp_name, args.seed)
    run_dir = Path(args.runs_dir) / run_name
    ckpt_path = run_dir / "checkpoint.pt"

    # Seeding
    runs.seed_everything(args.seed, args.threads, args.torch_deterministic)
    np_rng = np.random.default_rng(args.seed)
    device = runs.pick_device(args.device)

    # Env setup: here, or in Ray actors that collect whole episodes (--ray)
    pool = runs.ray_pool(args, args.num_envs) if runs.on_ray(args) else None
    recipe = env_recipe(args)
    envs = make_envs(args) if pool is None else []
    probe = envs[0] if envs else recipe()  # built, not reset: no sandbox yet
    layout = probe.layout
    if pool is not None:
        probe.close()

    # Policy
    policy = MenuPolicy(layout.obs_size, layout.n_moves, args.hidden).to(device)
    optimizer = optim.Adam(policy.parameters(), lr=args.learning_rate, eps=1e-5)
    start, global_step, history = 1, 0, []
    saved: int | None = None  # the update of the last good checkpoint
    if resumed is not None:
        policy.load_state_dict(resumed["policy"])
        optimizer.load_state_dict(resumed["optimizer"])
        optimizer.param_groups[0]["lr"] = args.learning_rate  # a resumed run may lower it
        schedule = runs.restore_schedule(resumed["schedule"])
        runs.set_rng_state(resumed["rng"], np_rng)
        saved, global_step, history = resumed["update"], resumed["global_step"], resumed["history"]
        start = saved + 1

    writer = SummaryWriter(str(run_dir))
    if resumed is None:
        table = "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items())
        writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + table)

    def state(update: int) -> dict[str, Any]:
        return {
            "policy": policy.state_dict(),
            "optimizer": optimizer.state_dict(),
            "schedule": runs.schedule_state(schedule),
            "rng": runs.rng_state(np_rng),
            "update": update,
            "global_step": global_step,
            "history": history,
            "run_name": run_name,
            "args": dataclasses.asdict(args),
        }

    t0 = time.perf_counter()
    progress = _progress(args, start)
    try:
        with progress:
            bar = progress.add_task(
                run_name,
                total=args.num_updates,
                completed=start - 1,
                ret=float("nan"),
                cap=schedule.value(),
            )
            for update in range(start, args.num_updates + 1):
                if args.anneal_lr:
                    frac = 1.0 - (update - 1.0) / args.num_updates
                    optimizer.param_groups[0]["lr"] = frac * args.learning_rate
                cap = schedule.value()
                for env in envs:
                    env.set_time_cap(cap)  # sticky: holds for every reset of the update

                # Rollout
                t_roll = time.perf_counter()
                seeds = episode_seeds(args, update)
                if pool is None:
                    batch = collect(envs, policy, seeds, device)
                else:
                    batch = collect_on(pool, recipe, policy, seeds, cap)
                t_roll = time.perf_counter() - t_roll
                global_step += len(batch)

                # Advantages and update
                t_upd = time.perf_counter()
                try:
                    stats = ppo_update(policy, optimizer, batch, args, np_rng, device)
                except TrainingDiverged as e:
                    raise runs.diverged(e, update, ckpt_path, saved, args.learning_rate) from None
                t_upd = time.perf_counter() - t_upd
                schedule.advance()

                # Logging
                eps = batch.episodes
                row = {
                    "update": update,
                    "global_step": global_step,
                    "charts/episodic_return": float(np.mean([e["return"] for e in eps])),
                    "charts/episodic_length": float(np.mean([e["length"] for e in eps])),
                    "charts/SPS": len(batch) / max(t_roll + t_upd, 1e-9),
                    "charts/time_cap": cap,
                    "charts/learning_rate": optimizer.param_groups[0]["lr"],
                    "swarm/duplicated_work": float(np.mean([e["duplicated_share"] for e in eps])),
                    "swarm/duplicated_edits": float(np.mean([e["duplicated_work"] for e in eps])),
                    "swarm/unit_edits": float(np.mean([e["unit_edits"] for e in eps])),
                    "swarm/tests_passed": float(np.mean([e["tests_passed"] for e in eps])),
                    "swarm/decisions": float(len(batch)),
                    "swarm/failed_rollouts": float(batch.failed),
                    "swarm/virtual_time": float(np.mean([e["time"] for e in eps])),
                    "swarm/rollout_decisions_per_s": len(batch) / max(t_roll, 1e-9),
                    "swarm/update_decisions_per_s": len(batch)
                    * args.update_epochs
                    / max(t_upd, 1e-9),
                    **stats,
                }
                for key, value in row.items():
                    if key not in ("update", "global_step"):
                        writer.add_scalar(key, value, global_step)
                history.append(row)
                progress.update(bar, completed=update, ret=row["charts/episodic_return"], cap=cap)
                if args.progress and not progress.console.is_terminal:
                    # Off a terminal the bar does not render: one plain line per update.
                    progress.console.print(
                        f"update {update}/{args.num_updates}: return "
                        f"{row['charts/episodic_return']:.2f}, cap {cap:g}s, "
                        f"decisions {len(batch)}, policy loss {stats['losses/policy_loss']:.4f}",
                        markup=False,
                        highlight=False,
                        soft_wrap=True,
                    )

                every = args.checkpoint_every
                if (every and update % every == 0) or update == args.num_updates:
                    runs.save_checkpoint(ckpt_path, state(update))
                    saved = update
    finally:
        writer.close()
        for env in envs:
            env.close()
        if pool is not None:
            pool.close()
    return Summary(run_name, run_dir, ckpt_path, history, global_step, time.perf_counter() - t0)


def _progress(args: Args, start: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]updates"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("return {task.fields[ret]:.2f} | cap {task.fields[cap]:.0f}s"),
        TimeElapsedColumn(),
        disable=not args.progress,
    )


# ---------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """`Args` from the command line: a --config file first, then the flags over it."""
    return runs.parse_args(
        Args,
        argv,
        prog="swarm-envs train",
        description="Shared-policy PPO on a menu-mode swarm (CPU-sized; see docs/training.md). "
        "For language-model policies: swarm-envs train --policy lm --help.",
        default=Args(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `swarm-envs train`; returns the exit status."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    try:
        args = parse_args(argv)
        summary = train(args)
    except Error as e:
        print(f"swarm-envs train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    h = summary.history
    table = Table(title=f"{summary.run_name}")
    table.add_column("measure")
    table.add_column("value", justify="right", overflow="fold")
    first, last = h[0], h[-1]
    rows = [
        ("updates", f"{last['update']}"),
        ("agent decisions", f"{summary.global_step}"),
        ("wall time", f"{summary.seconds:.1f} s"),
        (
            "episodic return (first -> last update)",
            f"{first['charts/episodic_return']:.2f} -> {last['charts/episodic_return']:.2f}",
        ),
        (
            "duplicated work (first -> last)",
            f"{first['swarm/duplicated_work']:.2f} -> {last['swarm/duplicated_work']:.2f}",
        ),
        ("time cap (last)", f"{last['charts/time_cap']:g} s"),
        ("checkpoint", str(summary.checkpoint)),
        ("TensorBoard", f"tensorboard --logdir {summary.run_dir.parent}"),
    ]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
    return 0
