"""Does a coordinated swarm overtake a single agent? Scripted agents on bundled tasks.

For each task: one agent, then N agents with each coordination strategy (`none`,
`claim`, `leader`), all scripted oracle agents that know the reference
implementation (see `swarm_envs.baselines.scripted`), so that only organisation
differs. Prints the passing tests at the time cap, the virtual time to pass
everything, and the speed-up over one agent (the ratio).

    python benchmarks/bench_swarm_vs_single.py --suite long --agents 8
    python benchmarks/bench_swarm_vs_single.py --tasks calc jsonkit --agents 4 16
"""

from __future__ import annotations

import argparse
import time

from swarm_envs.baselines.scripted import make_team

import swarm_envs
from swarm_envs.task import get_task, registered


def episode(task: str, n: int, strategy: str, cap: float, seed: int) -> dict:
    env = swarm_envs.parallel_env(task, num_agents=n, time_cap_s=cap, seed=seed)
    team = make_team(env.task, n, strategy, seed=seed)
    obs, infos = env.reset(seed=seed)
    ep = env.episode
    wall = time.perf_counter()
    while env.agents:
        acts = {a: team[a].act(obs[a], infos[a]) for a in env.ready_agents}
        obs, _, _, _, infos = env.step(acts)
    out = {
        "passed": ep.passed,
        "total": ep.tests_total,
        "time": ep.now if ep.end_reason == "all_tests_pass" else None,
        "end": ep.end_reason,
        "tokens": ep.tokens,
        "wall": time.perf_counter() - wall,
        "held_out": ep.held_out,  # (passed, total) of the tests agents never see
    }
    env.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tasks", nargs="+", help="task ids or names (default: the --suite)")
    p.add_argument("--suite", default="long", choices=["mini", "standard", "long"])
    p.add_argument("--agents", type=int, nargs="+", default=[8], help="swarm sizes")
    p.add_argument("--strategies", nargs="+", default=["none", "claim", "leader"])
    p.add_argument("--time-cap", type=float, default=4 * 3600.0, help="virtual seconds")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    tasks = args.tasks or sorted(
        t for t in registered() if get_task(t).manifest.suite == args.suite
    )
    print(f"time cap {args.time_cap:.0f} s; 'time' = virtual seconds until every test passes")
    header = ("task", "agents", "strategy", "passing", "time", "speed-up", "tokens", "held-out")
    print("{:<16} {:>6} {:<9} {:>11} {:>9} {:>9} {:>9} {:>14}".format(*header))
    for task in tasks:
        single = episode(task, 1, "claim", args.time_cap, args.seed)
        print(row(task, 1, "single", single, single, args.time_cap))
        for n in args.agents:
            for strategy in args.strategies:
                r = episode(task, n, strategy, args.time_cap, args.seed)
                print(row(task, n, strategy, r, single, args.time_cap))


def row(task: str, n: int, strategy: str, r: dict, single: dict, cap: float) -> str:
    """One table row; the speed-up is the single agent's time over this one's."""
    t = f"{r['time']:.0f}" if r["time"] is not None else f">{cap:.0f}"
    speed = (single["time"] or cap) / (r["time"] or cap)
    # The gap between the visible and the held-out pass rates is a hack signal.
    held, held_total = r["held_out"]
    gap = r["passed"] / max(r["total"], 1) - held / held_total if held_total else None
    held_text = f"{held}/{held_total} ({gap:+.0%})" if gap is not None else "-"
    return (
        f"{task:<16} {n:>6} {strategy:<9} {r['passed']:>5}/{r['total']:<5} {t:>9}"
        f" {speed:>8.2f}x {r['tokens']:>9} {held_text:>14}"
    )


if __name__ == "__main__":
    main()
