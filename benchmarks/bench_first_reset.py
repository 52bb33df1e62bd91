"""The first reset in a fresh process, cold and warm, for every bundled task.

A fresh process pays, at its first `reset`, for collecting the task's canonical tests
and scoring its starting state (and for probing the sandbox's protections). Both scoring
results are cached on disk (the user's cache folder, keyed by the content of the task's
files and the versions of Python and pytest), so a second fresh process finds them.

Each task runs twice in new processes that share an empty cache folder
(`SWARM_ENVS_CACHE`): "cold" fills the cache, "warm" reads it. What is timed is
`env.reset(seed=0)` alone (imports and construction excluded); "probe" is the part of it
that the local sandbox spends probing its protections (once per process, not cached);
"warm proc" is the whole warm process, Python's start and imports included. Target: warm
under 1 s for every bundled task. On a shared machine the figures grow with the load
(printed below the table).

    python benchmarks/bench_first_reset.py
    python benchmarks/bench_first_reset.py --tasks calc lispy
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def one(task: str) -> dict:
    """The first reset of `task` in this (fresh) process, and its sandbox probe's share."""
    import swarm_envs
    from swarm_envs.sandboxes.local import detect_protections

    env = swarm_envs.parallel_env(task, num_agents=1)
    t0 = time.perf_counter()
    detect_protections()  # once per process: the first reset's sandbox would probe here
    probe = time.perf_counter() - t0
    _, infos = env.reset(seed=0)
    wall = time.perf_counter() - t0
    info = infos["agent_0"]
    env.close()
    return {
        "wall_s": wall,
        "probe_s": probe,
        "passed": info["tests_passed"],
        "total": info["tests_total"],
    }


def child(task: str, cache: str) -> dict:
    """One first reset in a new process; its figures and the whole process's wall time."""
    env = {**os.environ, "SWARM_ENVS_CACHE": cache}
    cmd = [sys.executable, __file__, "--one", task]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"the first reset of {task} failed:\n{out.stderr[-2000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "proc_s": time.perf_counter() - t0}


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tasks", nargs="+", help="task names (default: every bundled task)")
    p.add_argument("--one", help=argparse.SUPPRESS)  # a child: one first reset, JSON out
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    from swarm_envs.tasks import SUITES, get_task, registered

    tasks = args.tasks or [
        t.name
        for t in sorted(
            (get_task(i) for i in registered()),
            key=lambda t: (SUITES.index(t.manifest.suite), t.name),
        )
    ]
    print(
        f"{'task':<11} {'suite':<9} {'tests':>6} {'cold s':>7} {'warm s':>7} "
        f"{'cold/warm':>10} {'probe s':>8} {'warm proc s':>12}"
    )
    worst = 0.0
    for name in tasks:
        with tempfile.TemporaryDirectory(prefix="swarm-envs-cache-") as cache:
            cold = child(name, cache)
            warm = child(name, cache)
        assert cold["passed"] == warm["passed"] and cold["total"] == warm["total"]
        worst = max(worst, warm["wall_s"])
        suite = get_task(name).manifest.suite
        print(
            f"{name:<11} {suite:<9} {warm['total']:>6} {cold['wall_s']:>7.2f} "
            f"{warm['wall_s']:>7.2f} {cold['wall_s'] / warm['wall_s']:>9.1f}x "
            f"{warm['probe_s']:>8.2f} {warm['proc_s']:>12.2f}"
        )
    print(f"target: warm < 1 s for every task; slowest warm reset: {worst:.2f} s")
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
