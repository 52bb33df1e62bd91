"""The village problem: one environment, 8 to 1,000 scripted agents, end to end.

Each size runs one whole episode of scripted agents (`swarm_envs/agents/scripted.py`) on a
standard task, through the rollout runner, in a fresh process of its own (so that memory
figures do not mix): agent actions per second of wall time, everything included (the
agents, the environment, messages, observations and scoring), and memory per agent.

Targets: at 1,000 agents at least half the rate at 8 agents (no hidden quadratic term in
messages, observations, scheduling or scoring) and under 1 MiB per agent beyond the
workspace.

- "scorings": evaluations of the whole suite; the episode scores once per batch of
  completions, so this stays near the number of steps that changed files, whatever the
  number of agents.
- "MiB/agent": the growth of the process's peak RSS during the episode, over the agents
  (the workspace and the scorer exist before the episode starts); "marginal" compares
  with the 8-agent run: (peak(n) - peak(8)) / (n - 8).

    python benchmarks/bench_village.py                      # 8, 64, 256, 1000 agents
    python benchmarks/bench_village.py --agents 8 1000 --task textkit --strategy none
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(n: int, task: str, strategy: str, seed: int, time_cap: float) -> dict:
    """One episode of `n` scripted agents, in this process."""
    import swarm_envs
    from swarm_envs.agents.scripted import make_team
    from swarm_envs.scoring import make_scorer

    scorings = [0]

    def counting_scorer(*args, **kwargs):  # instrumentation: the real scorer, counted
        scorer = make_scorer(*args, **kwargs)
        evaluate = scorer.evaluate

        def counted(selection=None, **options):  # how often the whole workspace is scored
            if selection is None and options.get("held_out") and not options.get("fresh"):
                scorings[0] += 1
            return evaluate(selection, **options)

        scorer.evaluate = counted  # type: ignore[method-assign]
        return scorer

    env = swarm_envs.parallel_env(
        task, num_agents=n, time_cap_s=time_cap, scorer_factory=counting_scorer
    )
    env.reset(seed=seed)  # warm: the task's tests collected, the start scored
    team = make_team(env.task, n, strategy, seed=seed)
    base = _rss_mib()
    peak0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    scorings[0] = 0
    t0 = time.perf_counter()
    trajectory = swarm_envs.rollout(env, team, seed=seed)
    wall = time.perf_counter() - t0
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, peak0)
    env.close()
    actions = sum(len(a.decisions) for a in trajectory.agents)
    return {
        "agents": n,
        "actions": actions,
        "steps": trajectory.steps,
        "scorings": scorings[0],
        "wall_s": wall,
        "rate": actions / wall,
        "peak_mib": peak,
        "per_agent_mib": max(peak - base, 0.0) / n,
        "end": trajectory.end_reason,
        "passed": f"{trajectory.tests_passed}/{trajectory.tests_total}",
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--agents", type=int, nargs="+", default=[8, 64, 256, 1000])
    p.add_argument("--task", default="jsonkit", help="a standard task (default: jsonkit)")
    p.add_argument("--strategy", default="claim", choices=["none", "claim", "leader"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-cap", type=float, default=3600.0, help="virtual seconds")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: one size, JSON out
    args = p.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.task, args.strategy, args.seed, args.time_cap)))
        return
    sizes = args.agents if 8 in args.agents else [8, *args.agents]
    rows = []
    for n in sizes:
        cmd = [sys.executable, __file__, "--one", str(n), "--task", args.task]
        cmd += ["--strategy", args.strategy, "--seed", str(args.seed)]
        cmd += ["--time-cap", str(args.time_cap)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    ref = next(r for r in rows if r["agents"] == 8)
    print(f"task {args.task}, strategy {args.strategy}, seed {args.seed}")
    print(
        f"{'agents':>7} {'actions':>8} {'steps':>6} {'scorings':>9} {'wall s':>8} "
        f"{'actions/s':>10} {'vs 8':>6} {'MiB/agent':>10} {'marginal':>9}  end"
    )
    for r in rows:
        marginal = (r["peak_mib"] - ref["peak_mib"]) / (r["agents"] - 8) if r["agents"] > 8 else 0.0
        print(
            f"{r['agents']:>7} {r['actions']:>8} {r['steps']:>6} {r['scorings']:>9} "
            f"{r['wall_s']:>8.2f} {r['rate']:>10.1f} {r['rate'] / ref['rate']:>5.2f}x "
            f"{r['per_agent_mib']:>10.3f} {marginal:>9.3f}  {r['end']} {r['passed']}"
        )
    print("targets: actions/s at 1000 agents >= 0.5x the rate at 8; < 1 MiB per agent")


if __name__ == "__main__":
    main()
