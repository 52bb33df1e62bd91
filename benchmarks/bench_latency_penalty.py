"""Time cap versus latency penalty: what each objective pays a single agent and a swarm.

Two ways to make a swarm's speed count in its return. A *time cap* truncates the
episode: the return is the tests gained by the cap (the design's choice). A *latency
penalty* (`EnvConfig.latency_penalty_per_s`) lets the episode run (here up to the
suite's default cap) and subtracts a price per virtual second: the return is the tests
gained minus penalty x duration. Scripted `claim` swarms (the conversation work model
by default) play the same task and seeds under each; the table gives the mean return
with its range over the seeds, the tests gained and the virtual seconds, per objective
and swarm size, and the swarm's advantage (its return minus the single agent's).

    python benchmarks/bench_latency_penalty.py                  # calc, 1 and 4 agents, 3 seeds
    python benchmarks/bench_latency_penalty.py --caps 60 --penalties 0.05 --seeds 0
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import swarm_envs
from swarm_envs.agents.scripted import make_team


def episode(args: Any, n: int, seed: int, cap: float, penalty: float) -> dict:
    env = swarm_envs.parallel_env(
        args.task, num_agents=n, time_cap_s=cap, latency_penalty_per_s=penalty
    )
    team = make_team(
        env.task, n, args.strategy, seed, p_wrong=args.p_wrong, work_model=args.work_model
    )
    try:
        t = swarm_envs.rollout(env, team, seed=seed)
    finally:
        env.close()
    return {
        "return": t.collective_return,
        "gained": t.tests_passed - t.tests_passed_start,
        "duration": t.duration_s,
        "end": t.end_reason,
    }


def spread(xs: list[float], fmt: str) -> str:
    mean = format(statistics.fmean(xs), fmt)
    return mean if min(xs) == max(xs) else f"{mean} [{min(xs):{fmt}} to {max(xs):{fmt}}]"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--task", default="calc")
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 4])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--caps", type=float, nargs="+", default=[30.0, 60.0, 120.0])
    p.add_argument("--penalties", type=float, nargs="+", default=[0.02, 0.1, 0.5])
    p.add_argument("--open-cap", type=float, default=600.0, help="the cap under a penalty")
    p.add_argument("--strategy", default="claim")
    p.add_argument("--p-wrong", type=float, default=0.3)
    p.add_argument("--work-model", choices=["flat", "conversation"], default="conversation")
    args = p.parse_args()

    t0 = time.perf_counter()
    objectives = [(f"time cap {c:g} s", c, 0.0) for c in args.caps]
    for q in args.penalties:
        objectives.append((f"penalty {q:g}/s (cap {args.open_cap:g} s)", args.open_cap, q))
    print(
        f"{args.task}, {args.strategy}, work model {args.work_model}, p_wrong {args.p_wrong}, "
        f"seeds {args.seeds}\n"
    )
    print("| objective | agents | return | tests gained | virtual s | swarm's advantage |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, cap, penalty in objectives:
        alone: list[float] = []
        for n in args.sizes:
            runs = [episode(args, n, s, cap, penalty) for s in args.seeds]
            returns = [r["return"] for r in runs]
            if n == min(args.sizes):
                alone = returns
                advantage = "-"
            else:
                advantage = f"{statistics.fmean(returns) - statistics.fmean(alone):+.2f}"
            print(
                f"| {label} | {n} | {spread(returns, '.2f')} | "
                f"{spread([r['gained'] for r in runs], '.1f')} | "
                f"{spread([r['duration'] for r in runs], '.0f')} | {advantage} |"
            )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
