"""Where menu-mode rollouts spend their time, with the new scorer and with static keys.

    .venv/bin/python benchmarks/bench_menu_scoring.py                      # jsonkit vs structkit
    .venv/bin/python benchmarks/bench_menu_scoring.py --tasks calc jsonkit --episodes 4

Each task runs twice in this one process, the same seeded play: first with the scorer's
defaults and the keys of `--keys` (`scoring={"keys": "static", "memo": True}`: outcomes
kept across episodes; `--keys dynamic`: a test re-runs only when code it executed
changed) and then with static keys and no memo (`{"keys": "static", "memo": False}`: what
the scorer did before issue 30). Audits
are off in both (`audit_every=0`), so the figures compare selection alone; the last
column counts the audits a separate run with `--audit-every N` made and how many
disagreed (0 on honest play). The disk cache is left as it is: the memo's side of it
starts warm on a machine that ran the benchmark before (say so when reporting).

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


def profile(task: str, episodes: int, agents: int, cap: float, seed: int, settings: dict) -> dict:
    timed: list[tuple[float, bool]] = []
    real = Scorer.evaluate

    def evaluate(self, *a, **k):
        nonlocal ran, asked
        t0 = time.perf_counter()
        report = real(self, *a, **k)
        if not k.get("fresh"):
            ran += report.ran
            asked += len(report.per_test)
        hung = any("no progress for" in text for text in report.failures.values())
        timed.append((time.perf_counter() - t0, hung))
        return report

    Scorer.evaluate = evaluate  # type: ignore[method-assign]
    env = swarm_envs.parallel_env(
        task, num_agents=agents, mode="menu", time_cap_s=cap, scoring=settings
    )
    decisions = 0
    audits = disagreements = 0
    ran = asked = 0
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
            view = env.view()
            audits += view.audits
            disagreements += view.audit_disagreements
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
        "audits": audits,
        "disagreements": disagreements,
        "rerun": ran / asked if asked else 0.0,
        "mode": settings["keys"] + (" + memo" if settings["memo"] else ""),
    }


OLD = {"keys": "static", "memo": False}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", nargs="+", default=["jsonkit", "structkit"])
    p.add_argument("--episodes", type=int, default=4)
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--time-cap", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--audit-every", type=int, default=0, help="audits in the new scorer's run")
    p.add_argument(
        "--keys", choices=("static", "dynamic"), default="static", help="the new scorer's keys"
    )
    a = p.parse_args()
    new_settings = {"keys": a.keys, "memo": True, "audit_every": a.audit_every}
    pairs = []
    for t in a.tasks:
        new = profile(t, a.episodes, a.agents, a.time_cap, a.seed, new_settings)
        old = profile(t, a.episodes, a.agents, a.time_cap, a.seed, {**OLD, "audit_every": 0})
        pairs.append((new, old))
        print(f"  measured: {new}\n  measured: {old}", flush=True)
    print(
        f"\nrandom menu play, {a.agents} agents, cap {a.time_cap:g} s, {a.episodes} episodes "
        f"(seeds {a.seed}..)\n"
    )
    print("| task | scoring | decisions | wall s | decisions/s | evaluations | re-run "
          "| scoring share | with a hang | slowest s | audits (disagreed) |")  # fmt: skip
    print("| --- | --- |" + " ---: |" * 9)
    for r in (r for pair in pairs for r in pair):
        print(
            f"| {r['task']} | {r['mode']} | {r['decisions']} | {r['wall']:.1f}"
            f" | {r['decisions'] / r['wall']:.2f} | {r['evaluations']} | {r['rerun']:.3f}"
            f" | {r['scoring'] / r['wall']:.2f} | {r['hung']} | {r['slowest']:.1f}"
            f" | {r['audits']} ({r['disagreements']}) |"
        )
    print()
    for new, old in pairs:
        rate = new["decisions"] / new["wall"]
        ratio = rate / (old["decisions"] / old["wall"])
        line = f"menu-scoring: {new['task']} {rate:.1f} decisions/s"
        print(f"{line} ({ratio:.1f}x static keys without memo)")


if __name__ == "__main__":
    main()
