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
from swarm_envs.baselines.ppo.rollout import Credit, Rollouts, collect, collect_on
from swarm_envs.baselines.ppo.rollout import time_to as rollout_time_to
from swarm_envs.baselines.runs import RunArgs
from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.envs.menu import MenuConfig
from swarm_envs.envs.registration import menu_gym_id
from swarm_envs.error import ConfigError, Error, TrainingDiverged
from swarm_envs.tasks import Task

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


# ---------------------------------------------------------------------------- configuration


def load_config(path: str | Path, base: Args | None = None) -> Args:
    """Options from a TOML file (top-level keys named like the fields of `Args`)."""
    return runs.load_config(path, Args, base)


MAX_AGENTS = 4096  # the most agents an environment takes (`EnvConfig.num_agents`)


def check_args(args: Args) -> TimeCapSchedule:
    """Fail at start, naming the field, on an inconsistent configuration; returns the schedule."""
    if args.num_updates == 0 and not (args.resume or args.eval_sizes):
        raise ConfigError(
            "num_updates=0: expected a positive integer; 0 only evaluates, and needs "
            "--eval-sizes (the untrained policy) or --resume CKPT with --eval-sizes"
        )
    # 0 updates (evaluation only) passes the checks of a one-update run.
    checked = dataclasses.replace(args, num_updates=max(args.num_updates, 1))
    tasks, schedule = runs.check_run(checked, positive=("hidden", "eval_episodes"), several=True)
    for name, value in [("num_agents_end", args.num_agents_end)] + [
        ("eval_sizes", n) for n in args.eval_sizes
    ]:
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_AGENTS:
            raise ConfigError(
                f"{name}={value!r}: expected a swarm size, an integer from 1 to {MAX_AGENTS}"
            )
    if args.num_agents > MAX_AGENTS:
        raise ConfigError(f"num_agents={args.num_agents}: expected at most {MAX_AGENTS}")
    if args.num_agents_end is None and args.num_agents_kind != "linear":
        raise ConfigError(
            f"num_agents_kind={args.num_agents_kind!r}: a size curriculum needs num_agents_end"
        )
    if args.eval_time_cap is not None and not (
        args.eval_time_cap > 0 and np.isfinite(args.eval_time_cap)
    ):
        raise ConfigError(
            f"eval_time_cap={args.eval_time_cap!r}: expected a positive number of virtual seconds"
        )
    for task in tasks:
        if not task.units:
            raise ConfigError(
                f"task={args.task!r}: the trainer uses mode='menu', which needs a task with "
                f"units; {task.id} has none"
            )
        if len(task.units) > args.max_units:
            raise ConfigError(
                f"max_units={args.max_units}: task {task.id} has {len(task.units)} units"
            )
    if args.credit not in ("collective", "attributed"):
        raise ConfigError(f"credit={args.credit!r}: expected 'collective' or 'attributed'")
    if args.reward_scale not in ("auto", "tests", "progress"):
        raise ConfigError(
            f"reward_scale={args.reward_scale!r}: expected 'auto', 'tests' or 'progress'"
        )
    smallest = min(args.num_agents, args.num_agents_end or args.num_agents)
    if args.num_minibatches > args.num_envs * smallest:
        raise ConfigError(
            f"num_minibatches={args.num_minibatches}: a batch can be as small as num_envs x "
            f"num_agents = {args.num_envs * smallest} decisions (every agent decides at "
            "least once per rollout); use fewer minibatches or more num_envs"
        )
    if not (args.clip_coef > 0 and np.isfinite(args.clip_coef)):
        raise ConfigError(f"clip_coef={args.clip_coef!r}: expected a positive finite number")
    try:
        MenuConfig(max_units=args.max_units, n_wrong=args.n_wrong, move_tokens=args.move_tokens)
    except Exception as e:
        raise ConfigError(f"move_tokens / n_wrong / max_units: {e}") from None
    return schedule


def check_resume(args: Args, saved: dict[str, Any]) -> None:
    """A checkpoint resumes only the run it came from: the same tasks and network shape.

    Raises:
        ConfigError: naming the option that differs from the checkpoint's, and its value there.
    """
    old = saved.get("args", {})
    if "task" in old and _ids(old["task"]) != [t.id for t in args.tasks]:
        raise ConfigError(
            f"task={args.task!r}: the checkpoint {args.resume} was trained on "
            f"task={old['task']!r}; pass --task {old['task']}"
        )
    # Options that shape the network; a checkpoint older than an option had its default.
    defaults = {"dependency_feature": False}
    for name in ("max_units", "n_wrong", "hidden", "reward_scale", "dependency_feature"):
        if name not in old and name not in defaults:
            continue
        theirs, ours = old.get(name, defaults.get(name)), getattr(args, name)
        if theirs != ours:
            flag = "--" + name.replace("_", "-")
            if isinstance(theirs, bool):
                flag = flag if theirs else "--no-" + flag[2:]
            else:
                flag = f"{flag} {theirs}"
            raise ConfigError(
                f"{name}={ours!r}: the checkpoint {args.resume} has {name}={theirs!r}; pass {flag}"
            )


def _ids(spec: str) -> list[str]:
    """The task ids a checkpoint's `task` option stood for (its names, where one is gone)."""
    try:
        return [t.id for t in runs.run_tasks(spec)]
    except ConfigError:
        return [spec]


def swarm_size(args: Args, update: int) -> int:
    """The swarm size of update `update` (from 1): the size curriculum, rounded.

    The first update has `num_agents`, the last `num_agents_end`; `linear` steps evenly
    between them, `geometric` by a constant factor (4 -> 16 over 5 updates: 4, 6, 8, 11, 16).
    """
    if args.num_agents_end is None:
        return args.num_agents
    frac = min(max(update - 1, 0) / max(args.num_updates - 1, 1), 1.0)
    a, b = args.num_agents, args.num_agents_end
    if args.num_agents_kind == "geometric":
        return round(a * (b / a) ** frac)
    return round(a + (b - a) * frac)


def env_recipe(
    args: Args, num_agents: int | None = None, task: Task | None = None
) -> Callable[[], Any]:
    """How to build one of the run's menu-mode swarms (picklable: workers build their own).

    `num_agents` overrides the run's size (the size curriculum, evaluation at other sizes);
    `task`, the run's first task.
    """
    import swarm_envs

    return functools.partial(
        swarm_envs.parallel_env,
        task or args.tasks[0],  # crosses processes as a reference (an id or a folder)
        num_agents=args.num_agents if num_agents is None else num_agents,
        mode="menu",
        max_units=args.max_units,
        n_wrong=args.n_wrong,
        move_tokens=dict(args.move_tokens),
        dependency_feature=args.dependency_feature,
        time_cap_s=args.time_cap,
    )


def env_recipes(args: Args, num_agents: int | None = None, n: int | None = None) -> list:
    """The recipes of `n` (default `num_envs`) swarms: the run's tasks dealt in turn.

    Env `i` is of task `i mod len(tasks)`, at every update: each task has its share of
    every batch (`num_envs` a multiple of the number of tasks makes the shares equal).
    """
    tasks = args.tasks
    n = args.num_envs if n is None else n
    recipes = [env_recipe(args, num_agents, t) for t in tasks]
    return [recipes[i % len(tasks)] for i in range(n)]


def make_envs(args: Args, num_agents: int | None = None) -> list:
    """`num_envs` menu-mode swarms of `num_agents` (default: the run's), tasks dealt in turn."""
    return [recipe() for recipe in env_recipes(args, num_agents)]


def episode_seeds(args: Args, update: int) -> list[int]:
    """The reset seeds of an update's rollouts: a function of the seed and the update only.

    Update u (from 1) runs episodes u * num_envs .. of the run's block (`runs.episode_seeds`).
    """
    return runs.episode_seeds(args.seed, update * args.num_envs, args.num_envs)


def evaluate(
    policy: MenuPolicy,
    envs: Sequence,
    seeds: Sequence[int],
    device: str | torch.device = "cpu",
    reward_scale: Literal["tests", "progress"] = "tests",
) -> list[dict]:
    """The episodes of `policy` (sampling, as in training) from `seeds`, len(envs) at a time."""
    episodes: list[dict] = []
    for k in range(0, len(seeds), len(envs)):
        chunk = list(seeds[k : k + len(envs)])
        episodes += collect(envs[: len(chunk)], policy, chunk, device, reward_scale).episodes
    return episodes


EVAL_SEED = 10**9
"""First reset seed of the evaluation episodes: far from every training run's episodes
(run seed s trains on s * 1_000_003 + k), and the same for every size and every run."""


def mean_curve(curves: Sequence[Sequence[tuple[float, float]]]) -> list[tuple[float, float]]:
    """The mean of step-function progress curves, at every time one of them changes."""
    times = sorted({t for c in curves for t, _ in c})
    out: list[tuple[float, float]] = []
    for t in times:
        at = [next((p for s, p in reversed(c) if s <= t), 0.0) for c in curves]
        out.append((t, float(np.mean(at))))
    return out


def size_row(size: int, episodes: Sequence[dict], wall_s: float) -> dict[str, Any]:
    """The evaluation figures of one swarm size, over its episodes."""
    mean = lambda k: float(np.mean([e[k] for e in episodes]))  # noqa: E731
    curve = mean_curve([e["curve"] for e in episodes])
    shares = []
    for e in episodes:
        gained = np.asarray(e["credit"], dtype=np.float64)
        pos = gained.clip(min=0.0)
        shares.append(
            (
                float(pos.max() / pos.sum()) if pos.sum() > 0 else 0.0,
                float((gained > 0).mean()),
            )
        )
    reached = [e["time_to_90"] for e in episodes if e["time_to_90"] is not None]
    by_task: dict[str, list[float]] = {}
    for e in episodes:
        by_task.setdefault(e["task"], []).append(e["progress"])
    return {
        "num_agents": size,
        "episodes": len(episodes),
        "progress": mean("progress"),
        "progress_min": float(min(e["progress"] for e in episodes)),
        "progress_max": float(max(e["progress"] for e in episodes)),
        "progress_by_task": {t: float(np.mean(v)) for t, v in by_task.items()},
        "tests_passed": mean("tests_passed"),
        # one task: its count; several: the mean over the episodes
        "tests_total": (
            int(episodes[0]["tests_total"]) if len(by_task) == 1 else mean("tests_total")
        ),
        "return": mean("return"),
        "time_to_90": rollout_time_to(curve, 0.9),
        "reached_90": len(reached),
        "duplicated_work": mean("duplicated_share"),
        "duplicated_edits": mean("duplicated_work"),
        "duplicated_units": mean("duplicated_units"),
        "unit_edits": mean("unit_edits"),
        "messages": mean("messages"),
        "messages_per_agent": mean("messages") / size,
        "decisions": mean("decisions"),
        "top_agent_share": float(np.mean([s[0] for s in shares])),
        "contributors": float(np.mean([s[1] for s in shares])),
        "time_cap": float(episodes[0]["time_cap"]),
        "wall_s": wall_s,
        "curve": curve,
    }


def evaluate_sizes(
    policy: MenuPolicy,
    args: Args,
    sizes: Sequence[int],
    time_cap: float,
    device: str | torch.device = "cpu",
) -> list[dict[str, Any]]:
    """The policy, without further training, in swarms of each size; one row per size.

    Every size runs the same `eval_episodes` held-out episodes (`EVAL_SEED` on), at most
    `num_envs` side by side (the run's tasks dealt in turn), sampling as in training. The
    observation has the same length at every size (rank `i / n`, identity one-hot of
    `i % 16`), so one network acts in all.
    """
    seeds = [EVAL_SEED + k for k in range(args.eval_episodes)]
    rows = []
    for n in sizes:
        envs = [r() for r in env_recipes(args, n, min(args.num_envs, len(seeds)))]
        t0 = time.perf_counter()
        try:
            for env in envs:
                env.set_time_cap(time_cap)
            episodes = evaluate(policy, envs, seeds, device, args.rewards_in)
        finally:
            for env in envs:
                env.close()
        rows.append(size_row(n, episodes, time.perf_counter() - t0))
        logger.info("evaluated %d agents: progress %.3f", n, rows[-1]["progress"])
    return rows


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
    evaluation: list[dict[str, Any]] = field(default_factory=list)
    """one row per size of `--eval-sizes` (`size_row`), also in `eval_path`"""
    eval_path: Path | None = None


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
        check_resume(args, resumed)
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
    recipes = env_recipes(args)
    size = args.num_agents  # of the envs built; the size curriculum rebuilds them
    envs = make_envs(args) if pool is None and args.num_updates > 0 else []
    probe = envs[0] if envs else recipes[0]()  # built, not reset: no sandbox yet
    layout = probe.layout
    if not envs:
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
                if swarm_size(args, update) != size:  # the size curriculum: a bigger swarm
                    size = swarm_size(args, update)
                    for env in envs:
                        env.close()
                    recipes = env_recipes(args, size)
                    envs = make_envs(args, size) if pool is None else []
                for env in envs:
                    env.set_time_cap(cap)  # sticky: holds for every reset of the update

                # Rollout
                t_roll = time.perf_counter()
                seeds = episode_seeds(args, update)
                if pool is None:
                    batch = collect(envs, policy, seeds, device, args.rewards_in, args.credit)
                else:
                    batch = collect_on(
                        pool, recipes, policy, seeds, cap, args.rewards_in, args.credit
                    )
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
                    "charts/num_agents": float(size),
                    "charts/learning_rate": optimizer.param_groups[0]["lr"],
                    "swarm/duplicated_work": float(np.mean([e["duplicated_share"] for e in eps])),
                    "swarm/duplicated_edits": float(np.mean([e["duplicated_work"] for e in eps])),
                    "swarm/unit_edits": float(np.mean([e["unit_edits"] for e in eps])),
                    "swarm/tests_passed": float(np.mean([e["tests_passed"] for e in eps])),
                    "swarm/progress": float(np.mean([e["progress"] for e in eps])),
                    "swarm/messages": float(np.mean([e["messages"] for e in eps])),
                    "swarm/decisions": float(len(batch)),
                    "swarm/failed_rollouts": float(batch.failed),
                    "swarm/virtual_time": float(np.mean([e["time"] for e in eps])),
                    **_by_task(eps, len(recipes) > 1 and len(args.tasks) > 1),
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
                        f"{row['charts/episodic_return']:.2f}, cap {cap:g}s, agents {size}, "
                        f"decisions {len(batch)}, policy loss {stats['losses/policy_loss']:.4f}",
                        markup=False,
                        highlight=False,
                        soft_wrap=True,
                    )

                every = args.checkpoint_every
                if (every and update % every == 0) or update == args.num_updates:
                    runs.save_checkpoint(ckpt_path, state(update))
                    saved = update
        evaluation, eval_path = [], None
        if args.eval_sizes:
            cap = args.eval_time_cap or schedule.value()
            evaluation = evaluate_sizes(policy, args, args.eval_sizes, cap, device)
            eval_path = Path(args.eval_out) if args.eval_out else run_dir / "eval.json"
            write_evaluation(eval_path, args, history, evaluation, ckpt_path)
    finally:
        writer.close()
        for env in envs:
            env.close()
        if pool is not None:
            pool.close()
    return Summary(
        run_name,
        run_dir,
        ckpt_path,
        history,
        global_step,
        time.perf_counter() - t0,
        evaluation,
        eval_path,
    )


def _by_task(episodes: Sequence[dict], several: bool) -> dict[str, float]:
    """With several tasks, each task's mean progress over the update's episodes."""
    if not several:
        return {}
    by: dict[str, list[float]] = {}
    for e in episodes:
        by.setdefault(e["task"], []).append(e["progress"])
    return {f"progress/{t}": float(np.mean(v)) for t, v in sorted(by.items())}


def write_evaluation(
    path: Path, args: Args, history: Sequence[dict], rows: Sequence[dict], checkpoint: Path
) -> Path:
    """The evaluation's JSON at `path`: what was evaluated, how, and one row per size."""
    import json

    trained = sorted({int(r.get("charts/num_agents", args.num_agents)) for r in history})
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "task": args.tasks[0].id if len(args.tasks) == 1 else [t.id for t in args.tasks],
        "reward_scale": args.rewards_in,
        "checkpoint": str(checkpoint) if history else None,
        "updates_trained": int(history[-1]["update"]) if history else 0,
        "trained_num_agents": trained,
        "eval_episodes": args.eval_episodes,
        "eval_seeds": [EVAL_SEED, EVAL_SEED + args.eval_episodes - 1],
        "rows": list(rows),
    }
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def _progress(args: Args, start: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]updates"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("return {task.fields[ret]:.2f} | cap {task.fields[cap]:.0f}s"),
        TimeElapsedColumn(),
        disable=not args.progress or start > args.num_updates,  # nothing to train
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
    if summary.evaluation:
        console.print(evaluation_table(summary))
    if not h:  # evaluation only, of the untrained policy
        return 0
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
        ("agents (first -> last)", _sizes(first, last)),
        ("checkpoint", str(summary.checkpoint)),
        ("TensorBoard", f"tensorboard --logdir {summary.run_dir.parent}"),
    ]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
    return 0


def _sizes(first: dict, last: dict) -> str:
    a, b = (int(r.get("charts/num_agents", 0)) or "?" for r in (first, last))
    return f"{a}" if a == b else f"{a} -> {b}"


def evaluation_table(summary: Summary):
    """The rows of `--eval-sizes` as a rich table."""
    from rich.table import Table

    ev = summary.evaluation
    table = Table(
        title=f"evaluation: {ev[0]['episodes']} episodes per size, cap {ev[0]['time_cap']:g} s "
        f"({summary.eval_path})"
    )
    for name in (
        "agents",
        "progress",
        "tests",
        "to 90%",
        "dup. work",
        "messages",
        "top agent",
        "contributors",
        "decisions",
        "wall s",
    ):
        table.add_column(name, justify="right")
    for r in ev:
        t90 = r["time_to_90"]
        table.add_row(
            str(r["num_agents"]),
            f"{r['progress']:.3f}",
            f"{r['tests_passed']:.1f}/{r['tests_total']}",
            "-" if t90 is None else f"{t90:.1f} s",
            f"{r['duplicated_work']:.2f}",
            f"{r['messages']:.1f}",
            f"{r['top_agent_share']:.2f}",
            f"{r['contributors']:.2f}",
            f"{r['decisions']:.0f}",
            f"{r['wall_s']:.1f}",
        )
    return table
