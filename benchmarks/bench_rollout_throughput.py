"""Rollout collection throughput: agent actions per second on 1, 2, 4 workers, processes and Ray.

Every configuration runs the same episodes (scripted agents on a standard task, one
seed per episode) through `swarm_envs.distributed.WorkerPool` and `run_rollout`: worker
processes, and Ray actors on a local Ray instance, with the same worker counts, in one
run. Each worker is warmed first (one episode: its sandbox, scorer and the task's tests
are set up once per worker, as in training), then `--episodes-per-worker` episodes per
worker are timed. The ratio is to the single-process figure; it cannot exceed the number
of cores (the table says how many there are).

    python benchmarks/bench_rollout_throughput.py
    python benchmarks/bench_rollout_throughput.py --workers 1 2 --no-ray --task calc
"""

from __future__ import annotations

import argparse
import os
import time

from swarm_envs.agents.scripted import ScriptedTeam
from swarm_envs.distributed import RolloutJob, WorkerPool, connect_ray, run_rollout
from swarm_envs.vector import EnvRecipe


def measure(
    backend: str, workers: int, recipe: EnvRecipe, team: ScriptedTeam, per_worker: int, seed: int
) -> tuple[float, int, float, int]:
    """(agent actions per second, actions, wall seconds, failed episodes)."""
    with WorkerPool(workers, backend=backend) as pool:  # type: ignore[arg-type]
        warm = [RolloutJob(recipe, team, seed=seed + 10_000 + k) for k in range(workers)]
        list(pool.map(run_rollout, warm))
        jobs = [RolloutJob(recipe, team, seed=seed + k) for k in range(workers * per_worker)]
        t0 = time.perf_counter()
        results = list(pool.map(run_rollout, jobs))
        wall = time.perf_counter() - t0
    actions = sum(len(a.decisions) for r in results if r.ok for a in r.value.agents)
    return actions / wall, actions, wall, sum(not r.ok for r in results)


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--task", default="jsonkit", help="a standard task (default: jsonkit)")
    p.add_argument("--agents", type=int, default=4, help="agents per episode")
    p.add_argument("--strategy", default="claim", choices=["none", "claim", "leader"])
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--episodes-per-worker", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-ray", action="store_true", help="worker processes only")
    p.add_argument("--ray-address", help="a Ray cluster to use (default: a local instance)")
    args = p.parse_args()
    recipe = EnvRecipe.of(args.task, num_agents=args.agents, time_cap_s=3600)
    team = ScriptedTeam(args.strategy, seed=args.seed)
    backends = ["process"] if args.no_ray else ["process", "ray"]
    if not args.no_ray:
        connect_ray(args.ray_address, num_cpus=os.cpu_count())
    cores = len(os.sched_getaffinity(0))
    print(
        f"task {args.task}, {args.agents} scripted agents ({args.strategy}), "
        f"{args.episodes_per_worker} episodes per worker, {cores} cores"
    )
    print(
        f"{'backend':<8} {'workers':>7} {'episodes':>8} {'actions':>8} {'wall s':>8} "
        f"{'actions/s':>10} {'vs 1 process':>13} {'failed':>6}"
    )
    ref = None
    for backend in backends:
        for w in args.workers:
            rate, actions, wall, failed = measure(
                backend, w, recipe, team, args.episodes_per_worker, args.seed
            )
            if ref is None:
                ref = rate
            print(
                f"{backend:<8} {w:>7} {w * args.episodes_per_worker:>8} {actions:>8} "
                f"{wall:>8.2f} {rate:>10.1f} {rate / ref:>12.2f}x {failed:>6}"
            )


if __name__ == "__main__":
    main()
