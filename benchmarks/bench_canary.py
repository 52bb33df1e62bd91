"""What the scorer's self-check costs a fresh process's first reset.

Before a process first scores, the scorer checks the harness's installed files against
their wheels and scores its canary project through the sandbox (swarm_envs.scoring.canary,
docs/integrity.md). This times `env.reset(seed=0)` in new processes with the check as
shipped, and with it switched off (the obvious alternative: trust the harness), cold (an
empty scoring cache on disk) and warm (the cache filled by the cold process), and prints
the medians and their difference. Runs alternate between the two variants, so a change in
the machine's load hits both alike.

    python benchmarks/bench_canary.py [--tasks calc] [--scorer fast] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one(task: str, scorer: str, check: bool) -> dict:
    """The first reset of `task` in this (fresh) process, with or without the self-check."""
    import swarm_envs
    from swarm_envs.scoring import base

    if not check:
        base.canary.start = lambda sandbox, mode: None  # type: ignore[assignment]
    env = swarm_envs.parallel_env(task, num_agents=1, scorer=scorer)
    t0 = time.perf_counter()
    _, infos = env.reset(seed=0)
    wall = time.perf_counter() - t0
    env.close()
    return {"wall_s": wall, "passed": infos["agent_0"]["tests_passed"]}


def child(task: str, scorer: str, check: bool, cache: str) -> float:
    env = {**os.environ, "SWARM_ENVS_CACHE": cache}
    cmd = [sys.executable, __file__, "--one", task, scorer, "1" if check else "0"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"the first reset of {task} failed:\n{out.stderr[-2000:]}")
    return float(json.loads(out.stdout.strip().splitlines()[-1])["wall_s"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tasks", nargs="*", default=["calc"])
    ap.add_argument("--scorer", choices=["fast", "subprocess"], default="fast")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per variant")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        task, scorer, check = args.one
        print(json.dumps(one(task, scorer, check == "1")))
        return
    head = f"{'task':10} {'cache':5} {'checked s':>9} {'unchecked s':>11} {'extra s':>8}"
    head += f" {'ratio':>6}"
    print(head)
    print("-" * len(head))
    for task in args.tasks:
        times: dict[tuple[str, bool], list[float]] = {}
        for _ in range(args.repeats):
            for check in (True, False):
                with tempfile.TemporaryDirectory(prefix="bench-canary-") as cache:
                    for state in ("cold", "warm"):
                        times.setdefault((state, check), []).append(
                            child(task, args.scorer, check, cache)
                        )
        for state in ("cold", "warm"):
            on = statistics.median(times[(state, True)])
            off = statistics.median(times[(state, False)])
            print(f"{task:10} {state:5} {on:9.2f} {off:11.2f} {on - off:8.2f} {on / off:6.2f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nscorer {args.scorer}; medians of {args.repeats} fresh processes; load {load:.1f}")


if __name__ == "__main__":
    main()
