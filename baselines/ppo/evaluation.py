"""The menu trainer's held-out evaluation: the final policy, untrained further, at other sizes.

`--eval-sizes 16 32 64` runs the trained policy in swarms of each size on the same
held-out episodes (seeds from `EVAL_SEED`, none a training episode), sampling as in
training; `size_row` sums up one size (progress, tests, time to 90 %, duplicated work,
messages, who contributed, the mean progress curve), `write_evaluation` writes the rows
as `eval.json` and `evaluation_table` prints them. The village problem of
docs/training.md is read from these rows.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch

from swarm_envs.baselines.ppo.envs import env_recipes
from swarm_envs.baselines.ppo.policy import MenuPolicy
from swarm_envs.baselines.ppo.rollout import collect, time_to

if TYPE_CHECKING:
    from rich.table import Table

    from swarm_envs.baselines.ppo.trainer import Args

logger = logging.getLogger("swarm_envs")

EVAL_SEED = 10**9
"""First reset seed of the evaluation episodes: far from every training run's episodes
(run seed s trains on s * 1_000_003 + k), and the same for every size and every run."""


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
        "time_to_90": time_to(curve, 0.9),
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


def write_evaluation(
    path: Path, args: Args, history: Sequence[dict], rows: Sequence[dict], checkpoint: Path
) -> Path:
    """The evaluation's JSON at `path`: what was evaluated, how, and one row per size."""
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


def evaluation_table(rows: Sequence[dict], path: Path | None = None) -> Table:
    """The rows of `--eval-sizes` (`size_row`) as a rich table; `path`: where they are."""
    from rich.table import Table

    table = Table(
        title=f"evaluation: {rows[0]['episodes']} episodes per size, cap {rows[0]['time_cap']:g} s "
        f"({path})"
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
    for r in rows:
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
