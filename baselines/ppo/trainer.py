"""Shared-policy PPO for menu-mode swarms, in the reading order of CleanRL's `ppo.py`.

`Args`, then `train()`: seeding, env setup, policy, then per update the curricula (time
cap, swarm size), the rollout, advantages and the update, logging and the checkpoint;
then the held-out evaluation. The helpers follow `train()`; what is not the story lives
beside it: `checks` (the configuration), `envs` (the swarms of an update), `rollout`,
`maths`, `policy`, `evaluation` (`--eval-sizes`) and `console` (what the command prints).

One network acts for every agent (agents flattened onto the batch axis) and every
agent receives the collective reward. Agents decide at different virtual times, so
each agent's experience is a semi-MDP: a decision's reward is the sum of collective
rewards until the agent's next decision, and the episode's end reaches every agent's
last decision. A batch is a set of whole rollouts (each ends at its time cap), so a
checkpoint between updates captures everything and a resumed run is bit-for-bit the
uninterrupted one on the CPU.

Outputs follow the convention both trainers share (`swarm_envs.baselines.outputs`): the
run folder `{runs_dir}/{env_id}__{exp_name}__{seed}__{time}` holds `metrics.jsonl` (one
row per update), TensorBoard scalars under CleanRL's keys, `args.json`, `checkpoint.pt`
and, with `--eval-sizes`, `eval.json`; `train()` returns a `Summary`.

Run: `swarm-envs train --task calc --num-agents 4` (or `--config run.toml`; `--ray` collects
the rollouts on Ray actors); see `swarm-envs train --help` and docs/training.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from torch import nn, optim

from swarm_envs.baselines import outputs, runs
from swarm_envs.baselines.outputs import RunFolder
from swarm_envs.baselines.ppo import maths
from swarm_envs.baselines.ppo.checks import check_args, check_resume
from swarm_envs.baselines.ppo.console import UpdateProgress, print_summary
from swarm_envs.baselines.ppo.envs import (
    close_all,
    env_recipes,
    episode_seeds,
    make_envs,
    menu_layout,
    swarm_size,
)
from swarm_envs.baselines.ppo.evaluation import evaluate_sizes, write_evaluation
from swarm_envs.baselines.ppo.policy import MenuPolicy
from swarm_envs.baselines.ppo.rollout import Credit, Rollouts, collect, collect_on
from swarm_envs.baselines.runs import RunArgs
from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.envs.menu import MenuConfig
from swarm_envs.envs.registration import menu_gym_id
from swarm_envs.error import Error, TrainingDiverged
from swarm_envs.tasks import Task


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
    dependency_feature: bool = False
    """observe, per unit, whether every unit it depends on passes (menu mode's
    dependency_feature; the network's input grows by one feature per unit slot)"""

    # Credit
    credit: Credit = "collective"
    """what a decision learns from: the swarm's reward (collective: every agent gets it),
    or the agent's own share of it, from the episode's attribution (attributed)"""

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

    # Swarm sizes: a curriculum, and the village problem (docs/training.md)
    num_agents_end: int | None = None
    """final swarm size of a size curriculum from num_agents (none: the size stays constant)"""
    num_agents_kind: Literal["linear", "geometric"] = "linear"
    """how the size grows from num_agents to num_agents_end over the updates (rounded)"""
    eval_sizes: tuple[int, ...] = ()
    """after training, evaluate the final policy with swarms of these sizes (a table, and
    eval.json in the run folder); with --resume and --num-updates 0, evaluate a checkpoint"""
    eval_episodes: int = 8
    """held-out episodes per evaluated size"""
    eval_time_cap: float | None = None
    """time cap of the evaluation episodes (none: the curriculum's final cap)"""
    eval_out: str | None = None
    """where to write the evaluation's JSON (none: eval.json in the run folder)"""

    # Several tasks at once (--task calc,jsonkit or a suite, --task real-plus)
    reward_scale: Literal["auto", "tests", "progress"] = "auto"
    """a step's reward: the change in passing tests (tests), or that change over the tests
    failing at the episode's start (progress: a task's whole return is at most 1, so tasks
    of different sizes weigh alike); auto: tests for one task, progress for several"""

    @property
    def env_id(self) -> str:
        """The Gymnasium id of the task in menu mode, e.g. `swarm/calc-menu-v0`.

        With several tasks, what `task` names: `swarm/calc+jsonkit-menu`.
        """
        tasks = self.tasks
        if len(tasks) == 1:
            return menu_gym_id(tasks[0])
        return "swarm/" + "+".join(n.strip() for n in self.task.split(",")) + "-menu"

    @property
    def tasks(self) -> list[Task]:
        """The run's tasks (`task`: comma-separated tasks and suites)."""
        return runs.run_tasks(self.task)

    @property
    def rewards_in(self) -> Literal["tests", "progress"]:
        """The reward scale the run uses (`reward_scale`, `auto` resolved)."""
        if self.reward_scale == "auto":
            return "tests" if len(self.tasks) == 1 else "progress"
        return self.reward_scale


# ---------------------------------------------------------------------------- train


def train(args: Args) -> Summary:
    """Train a shared policy with PPO; returns the run's summary (and writes its folder).

    Raises:
        ConfigError: an inconsistent configuration (before anything runs).
        TrainingDiverged: a loss became NaN; the last good checkpoint is kept.
    """
    schedule = check_args(args)
    resumed = torch.load(args.resume, weights_only=False) if args.resume else None
    if resumed is not None:
        check_resume(args, resumed)
        run_name = resumed["run_name"]  # the same run goes on, in the same folder
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
    size = args.num_agents  # of the envs built; the size curriculum rebuilds them
    recipes = env_recipes(args)
    envs = make_envs(args) if pool is None and args.num_updates > 0 else []
    layout = menu_layout(envs, recipes[0])

    # Policy, and a resumed run's state (weights, optimizer, curriculum, RNGs, rows)
    policy = MenuPolicy(layout.obs_size, layout.n_moves, args.hidden).to(device)
    optimizer = optim.Adam(policy.parameters(), lr=args.learning_rate, eps=1e-5)
    start, global_step, history = 1, 0, []
    saved: int | None = None  # the update of the last good checkpoint
    if resumed is not None:
        schedule = restore(resumed, policy, optimizer, np_rng, args.learning_rate)
        saved, global_step, history = resumed["update"], resumed["global_step"], resumed["history"]
        start = saved + 1

    # Logging: the run folder (metrics.jsonl, TensorBoard, args.json), the console
    resumed_at = None if saved is None else (saved, global_step)
    folder = RunFolder(run_dir, args, tensorboard=args.tensorboard, resumed_at=resumed_at)
    t0 = time.perf_counter()
    try:
        with UpdateProgress(args, start, schedule.value()) as progress:
            for update in range(start, args.num_updates + 1):
                # The update's learning rate, time cap and swarm size (the curricula)
                if args.anneal_lr:
                    frac = 1.0 - (update - 1.0) / args.num_updates
                    optimizer.param_groups[0]["lr"] = frac * args.learning_rate
                cap = schedule.value()
                if swarm_size(args, update) != size:  # a bigger swarm: new envs
                    size = swarm_size(args, update)
                    close_all(envs)
                    recipes = env_recipes(args, size)
                    envs = make_envs(args, size) if pool is None else []
                for env in envs:
                    env.set_time_cap(cap)  # sticky: holds for every reset of the update

                # Rollout: whole episodes, every agent's decisions
                t_roll = time.perf_counter()
                seeds = episode_seeds(args, update)
                if pool is None:
                    batch = collect(envs, policy, seeds, device, args.rewards_in, args.credit)
                else:
                    batch = collect_on(
                        pool, recipes, policy, seeds, cap, args.rewards_in, args.credit
                    )
                t_roll = time.perf_counter() - t_roll
                decisions = len(batch)
                global_step += decisions

                # Advantages and update
                t_upd = time.perf_counter()
                try:
                    stats = ppo_update(policy, optimizer, batch, args, np_rng, device)
                except TrainingDiverged as e:
                    raise runs.diverged(e, update, ckpt_path, saved, args.learning_rate) from None
                t_upd = time.perf_counter() - t_upd
                schedule.advance()

                # Logging
                row = {
                    "update": update,
                    "global_step": global_step,
                    **episode_means(batch, by_task=len(recipes) > 1 and len(args.tasks) > 1),
                    "charts/SPS": decisions / max(t_roll + t_upd, 1e-9),
                    "charts/time_cap": cap,
                    "charts/num_agents": float(size),
                    "charts/learning_rate": optimizer.param_groups[0]["lr"],
                    "swarm/rollout_decisions_per_s": decisions / max(t_roll, 1e-9),
                    "swarm/update_decisions_per_s": decisions
                    * args.update_epochs
                    / max(t_upd, 1e-9),
                    **stats,
                }
                history.append(row)
                folder.log(row)
                progress.show(row)

                # Checkpoint: every checkpoint_every updates, and the last
                every = args.checkpoint_every
                if (every and update % every == 0) or update == args.num_updates:
                    state = checkpoint_state(
                        run_name, args, update, global_step, history,
                        policy, optimizer, schedule, np_rng,
                    )  # fmt: skip
                    runs.save_checkpoint(ckpt_path, state)
                    saved = update

        # Evaluation: the final policy in swarms of other sizes, not trained further
        evaluation, eval_path = [], None
        if args.eval_sizes:
            cap = args.eval_time_cap or schedule.value()
            evaluation = evaluate_sizes(policy, args, args.eval_sizes, cap, device)
            eval_path = Path(args.eval_out) if args.eval_out else run_dir / "eval.json"
            write_evaluation(eval_path, args, history, evaluation, ckpt_path)
    finally:
        folder.close()
        close_all(envs)
        if pool is not None:
            pool.close()
    return Summary(
        run_name=run_name,
        run_dir=run_dir,
        checkpoint=ckpt_path,
        updates=int(history[-1]["update"]) if history else 0,
        global_step=global_step,
        seconds=time.perf_counter() - t0,
        history=history,
        evaluation=evaluation,
        eval_path=eval_path,
    )


# ---------------------------------------------------------------------------- helpers


@dataclass
class Summary(outputs.Summary):
    """What a training run did (`outputs.Summary`), and its evaluation at other sizes."""

    evaluation: list[dict[str, Any]] = field(default_factory=list)
    """one row per size of `--eval-sizes` (`evaluation.size_row`), also in `eval_path`"""
    eval_path: Path | None = None
    """where the evaluation's JSON is (none without `--eval-sizes`)"""


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


def episode_means(batch: Rollouts, by_task: bool) -> dict[str, float]:
    """The update's episodes in the log's terms: their returns and the swarm's measures.

    With `by_task` (several tasks), also each task's mean progress (`progress/<task id>`).
    """
    eps = batch.episodes
    mean = lambda k: float(np.mean([e[k] for e in eps]))  # noqa: E731
    row = {
        "charts/episodic_return": mean("return"),
        "charts/episodic_length": mean("length"),
        "swarm/duplicated_work": mean("duplicated_share"),
        "swarm/duplicated_edits": mean("duplicated_work"),
        "swarm/unit_edits": mean("unit_edits"),
        "swarm/tests_passed": mean("tests_passed"),
        "swarm/progress": mean("progress"),
        "swarm/messages": mean("messages"),
        "swarm/decisions": float(len(batch)),
        "swarm/failed_rollouts": float(batch.failed),
        "swarm/virtual_time": mean("time"),
    }
    if by_task:
        tasks: dict[str, list[float]] = {}
        for e in eps:
            tasks.setdefault(e["task"], []).append(e["progress"])
        row.update({f"progress/{t}": float(np.mean(v)) for t, v in sorted(tasks.items())})
    return row


def checkpoint_state(
    run_name: str,
    args: Args,
    update: int,
    global_step: int,
    history: list[dict[str, float]],
    policy: MenuPolicy,
    optimizer: optim.Optimizer,
    schedule: TimeCapSchedule,
    np_rng: np.random.Generator,
) -> dict[str, Any]:
    """Everything a resumed run needs to go on bit for bit, and the rows so far."""
    import dataclasses

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


def restore(
    saved: dict[str, Any],
    policy: MenuPolicy,
    optimizer: optim.Optimizer,
    np_rng: np.random.Generator,
    learning_rate: float,
) -> TimeCapSchedule:
    """Load `checkpoint_state`'s weights, optimizer and RNGs; returns its curriculum."""
    policy.load_state_dict(saved["policy"])
    optimizer.load_state_dict(saved["optimizer"])
    optimizer.param_groups[0]["lr"] = learning_rate  # a resumed run may lower it
    runs.set_rng_state(saved["rng"], np_rng)
    return runs.restore_schedule(saved["schedule"])


# ---------------------------------------------------------------------------- command line


def load_config(path: str | Path, base: Args | None = None) -> Args:
    """Options from a TOML file (top-level keys named like the fields of `Args`)."""
    return runs.load_config(path, Args, base)


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
    try:
        summary = train(parse_args(argv))
    except Error as e:
        print(f"swarm-envs train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print_summary(summary)
    return 0
