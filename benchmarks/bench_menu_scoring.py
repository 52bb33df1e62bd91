"""Where menu-mode rollouts spend their time: scoring, and tests that hang.

    .venv/bin/python benchmarks/bench_menu_scoring.py                      # jsonkit vs structkit
    .venv/bin/python benchmarks/bench_menu_scoring.py --tasks calc jsonkit --episodes 2

Random legal menu play (`action_space(a).sample(mask=...)`, seeded), 8 agents, the 60 s
cap of docs/training.md, one episode after another, after a first reset that is not
timed (it starts the sandbox; on a machine that never saw the task it also computes
the task's candidates, once, into the `candidates` cache: minutes for structkit).
Every scorer evaluation is timed; one in which a test was killed for making no progress
(a hang: its failure says "no progress for N s") is counted apart, since each costs the
scorer's per-test limit. Nearly every menu move changes a file, so nearly every step is
an evaluation. Prints, per task, the decisions per second, the share of the wall time in
scoring, and the share of that in evaluations with a hang; the first task is the
reference the others are compared with (a ratio of wall time per decision)."""

from __future__ import annotations

import argparse
import time

import numpy as np

import swarm_envs
from swarm_envs.scoring.base import Scorer


def profile(task: str, episodes: int, agents: int, cap: float, seed: int) -> dict:
    timed: list[tuple[float, bool]] = []
    real = Scorer.evaluate

    def evaluate(self, *a, **k):
        t0 = time.perf_counter()
        report = real(self, *a, **k)
        hung = any("no progress for" in text for text in report.failures.values())
        timed.append((time.perf_counter() - t0, hung))
        return report

    Scorer.evaluate = evaluate  # type: ignore[method-assign]
    env = swarm_envs.parallel_env(task, num_agents=agents, mode="menu", time_cap_s=cap)
    decisions = 0
    try:
        env.reset(seed=seed)  # the first reset starts the sandbox and scores the start
        timed.clear()
        t0 = time.perf_counter()
        for k in range(episodes):
            obs, infos = env.reset(seed=seed + k)
            rng = np.random.default_rng(seed + k)
            while env.agents:
                actions = {}
                for a in env.ready_agents:
                    space = env.action_space(a)
                    space.seed(int(rng.integers(2**31)))
                    actions[a] = int(space.sample(mask=obs[a]["action_mask"]))
                decisions += len(actions)
                obs, _, _, _, infos = env.step(actions)
        wall = time.perf_counter() - t0
    finally:
        env.close()
        Scorer.evaluate = real  # type: ignore[method-assign]
    scoring = sum(s for s, _ in timed)
    hung = [s for s, h in timed if h]
    return {
        "task": task,
        "decisions": decisions,
        "wall": wall,
        "evaluations": len(timed),
        "scoring": scoring,
        "hung": len(hung),
        "hung_s": sum(hung),
        "slowest": max((s for s, _ in timed), default=0.0),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", nargs="+", default=["jsonkit", "structkit"])
    p.add_argument("--episodes", type=int, default=2)
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--time-cap", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rows = [profile(t, a.episodes, a.agents, a.time_cap, a.seed) for t in a.tasks]
    print(
        f"\nrandom menu play, {a.agents} agents, cap {a.time_cap:g} s, {a.episodes} episodes "
        f"(seeds {a.seed}..)\n"
    )
    print("| task | decisions | wall s | decisions/s | evaluations | scoring share "
          "| evaluations with a hang | their share of scoring | slowest s |")  # fmt: skip
    print("| --- |" + " ---: |" * 8)
    for r in rows:
        print(
            f"| {r['task']} | {r['decisions']} | {r['wall']:.1f} | {r['decisions'] / r['wall']:.2f}"
            f" | {r['evaluations']} | {r['scoring'] / r['wall']:.2f} | {r['hung']}"
            f" | {r['hung_s'] / max(r['scoring'], 1e-9):.2f} | {r['slowest']:.1f} |"
        )
    ref = rows[0]
    for r in rows[1:]:
        ratio = (r["wall"] / r["decisions"]) / (ref["wall"] / ref["decisions"])
        print(f"\n{r['task']}: {ratio:.1f}x the wall time per decision of {ref['task']}")


if __name__ == "__main__":
    main()
