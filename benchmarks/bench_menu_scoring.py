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
reference the others are compared with (a ratio of wall time per decision).

`--per-episode` prints both runs episode by episode: the memo keeps outcomes across
episodes, so its share of tests served without a run grows as play revisits code it saw.

`--breakdown` also splits each run's scoring time by kind of evaluation (the per-step
rescorings; the fresh runs: a reset's true start, audits, the all-pass confirmation and
the final recount at each episode's end), with the tests each asked for, ran and was
served without a run (memo, or the fresh store by content), and splits the time of the
worker runs into a fixed cost per run (fork of the worker's child, pytest's start and
collection, the project's import: the intercept of a least-squares fit of a run's time in
the worker against the tests it ran), the tests' own time (the slope) and the host's
side (workspace sync and the request's round trip, outside the worker's clock)."""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import numpy as np

import swarm_envs
from swarm_envs.scoring.base import Scorer
from swarm_envs.scoring.fast import FastScorer
from swarm_envs.scoring.keys import Keyer

#: who asked for an evaluation (the caller's function in the reward book) -> its kind
KINDS = {
    "_score": "per-step rescoring",
    "start": "a reset's count",
    "_true_start": "fresh: a reset's true start",
    "_audit": "fresh: audit",
    "_confirm_all_pass": "fresh: all-pass confirmation",
    "settle": "fresh: final recount",
}


class Breakdown:
    """Scoring time by kind of evaluation, and the worker runs' fixed and per-test cost."""

    def __init__(self) -> None:
        self.kinds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0, 0, 0])
        self.runs: list[tuple[str, int, float, float]] = []  # kind, tests, host s, worker s
        #: per per-step run, the worker's phases (`Server.handle`): seconds by name
        self.phases: list[dict[str, float]] = []
        self.current = "?"
        self.seen: set[tuple] = set()  # (test, its key) of every run (fresh ones too)
        self.repeats = self.remembered = 0

    def evaluation(self, kind: str, seconds: float, asked: int, ran: int) -> None:
        k = self.kinds[kind]
        k[0] += 1
        k[1] += seconds
        k[2] += asked
        k[3] += ran
        k[4] += 1 if ran == 0 else 0

    def table(self, title: str) -> str:
        total = sum(k[1] for k in self.kinds.values()) or 1.0
        out = [
            f"\n{title}: scoring time by kind of evaluation\n",
            "| kind | evaluations | s | share | tests asked | tests run | served without a run "
            "| evaluations with no run |",
            "| --- |" + " ---: |" * 7,
        ]
        for name, (n, s, asked, ran, none, _) in sorted(
            self.kinds.items(), key=lambda kv: -kv[1][1]
        ):
            served = 1 - ran / asked if asked else 0.0
            out.append(
                f"| {name} | {n} | {s:.1f} | {s / total:.2f} | {asked} | {ran} | {served:.3f} "
                f"| {none} |"
            )
        if self.runs:
            tests = np.array([r[1] for r in self.runs], float)
            host = np.array([r[2] for r in self.runs])
            worker = np.array([r[3] for r in self.runs])
            if len(set(tests)) > 1:
                slope, fixed = np.polyfit(tests, worker, 1)
            else:
                slope, fixed = 0.0, float(np.median(worker))
            n = len(self.runs)
            out += [
                "",
                f"worker runs: {n}, {host.sum():.1f} s on the host's clock; in the worker "
                f"{worker.sum():.1f} s; host side (sync, round trip) "
                f"{host.sum() - worker.sum():.1f} s",
                f"per-step runs: {self.remembered} tests run; of them on code (a key) they "
                f"had run on before in this run: {self.repeats}",
                f"fit of a run's time in the worker: {fixed * 1000:.0f} ms a run (fork, pytest, "
                f"collection, import) + {slope * 1000:.1f} ms a test; over these runs "
                f"{fixed * n:.1f} s fixed, {slope * tests.sum():.1f} s in tests "
                f"({int(tests.sum())} tests run)",
            ]
            if self.phases:
                names = list(self.phases[0])
                med = {k: np.median([p.get(k, 0.0) for p in self.phases]) * 1000 for k in names}
                out.append(
                    "a per-step run in the worker, median ms: "
                    + ", ".join(f"{k} {v:.0f}" for k, v in med.items())
                    + " (start: fork and namespaces; pytest: the guard's start, pytest's "
                    "configuration; collection: imports; tests: the tests, end-of-run checks)"
                )
            for name in sorted({r[0] for r in self.runs}):
                mine = [r for r in self.runs if r[0] == name]
                out.append(
                    f"  {name}: {len(mine)} runs, {sum(r[1] for r in mine)} tests, "
                    f"median {np.median([r[1] for r in mine]):.0f} tests and "
                    f"{np.median([r[3] for r in mine]) * 1000:.0f} ms a run in the worker"
                )
        return "\n".join(out)


def profile(
    task: str,
    episodes: int,
    agents: int,
    cap: float,
    seed: int,
    settings: dict,
    breakdown: Breakdown | None = None,
) -> dict:
    timed: list[tuple[float, bool]] = []
    real = Scorer.evaluate
    real_run = FastScorer._run_on_worker
    real_make = Keyer.make
    counting = False  # the untimed first reset is not in the breakdown

    def evaluate(self, *a, **k):
        nonlocal ran, asked
        caller = sys._getframe(1).f_code.co_name
        if caller == "_score" and sys._getframe(2).f_code.co_name == "start":
            caller = "start"
        kind = KINDS.get(caller, caller)
        if breakdown is not None:
            breakdown.current = kind
        t0 = time.perf_counter()
        report = real(self, *a, **k)
        seconds = time.perf_counter() - t0
        if not k.get("fresh"):
            ran += report.ran
            asked += len(report.per_test)
        hung = any("no progress for" in text for text in report.failures.values())
        timed.append((seconds, hung))
        if breakdown is not None and counting:
            breakdown.evaluation(kind, seconds, len(report.per_test), report.ran)
        return report

    def make(self, tf, items, results, extra, *a, **k):
        entry = real_make(self, tf, items, results, extra, *a, **k)
        if breakdown is not None and counting:
            code = (
                entry.static_key,
                None if items is None else tuple(sorted(items.items())),
                tuple(sorted((rel, part) for rel, (_, part) in entry.parts.items())),
                tuple(sorted(extra.items())),
            )
            # A per-step run (not a fresh one, not records read from disk) of a test on
            # code it had run on before: a memo miss that a hit could have served.
            per_step = breakdown.current == KINDS["_score"]
            if per_step and sys._getframe(2).f_code.co_name == "_run_chunk":
                for n in results:
                    breakdown.remembered += 1
                    breakdown.repeats += (n, code) in breakdown.seen
            breakdown.seen.update((n, code) for n in results)
        return entry

    def run_on_worker(self, files, blobs, targets, select_ids):
        t0 = time.perf_counter()
        rec = real_run(self, files, blobs, targets, select_ids)
        if breakdown is not None and counting:
            n = len(select_ids) if select_ids is not None else len(rec.get("results", {}))
            elapsed = float(rec.get("elapsed", 0.0))
            breakdown.runs.append((breakdown.current, n, time.perf_counter() - t0, elapsed))
            phases = rec.get("phases")
            if isinstance(phases, dict) and breakdown.current == KINDS["_score"]:
                breakdown.phases.append({str(k): float(v) for k, v in phases.items()})
        return rec

    Scorer.evaluate = evaluate  # type: ignore[method-assign]
    FastScorer._run_on_worker = run_on_worker  # type: ignore[method-assign]
    Keyer.make = make  # type: ignore[method-assign]
    env = swarm_envs.parallel_env(
        task, num_agents=agents, mode="menu", time_cap_s=cap, scoring=settings
    )
    decisions = 0
    per_episode: list[tuple[int, float, float]] = []  # decisions, seconds, served share
    audits = disagreements = 0
    ran = asked = 0
    try:
        env.reset(seed=seed)  # the first reset starts the sandbox and scores the start
        timed.clear()
        counting = True
        t0 = time.perf_counter()
        for k in range(episodes):
            t_ep, d_ep, ran_ep, asked_ep = time.perf_counter(), decisions, ran, asked
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
            took = time.perf_counter() - t_ep
            per_episode.append(
                (decisions - d_ep, took, 1 - (ran - ran_ep) / max(1, asked - asked_ep))
            )
            audits += view.audits
            disagreements += view.audit_disagreements
        wall = time.perf_counter() - t0
    finally:
        env.close()
        Scorer.evaluate = real  # type: ignore[method-assign]
        FastScorer._run_on_worker = real_run  # type: ignore[method-assign]
        Keyer.make = real_make  # type: ignore[method-assign]
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
        "per_episode": per_episode,
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
    p.add_argument(
        "--breakdown", action="store_true", help="split scoring time by kind of evaluation"
    )
    p.add_argument(
        "--per-episode",
        action="store_true",
        help="decisions/s and the share of tests served without a run, episode by episode",
    )
    a = p.parse_args()
    new_settings = {"keys": a.keys, "memo": True, "audit_every": a.audit_every}
    pairs = []
    tables: list[str] = []
    for t in a.tasks:
        bn, bo = (Breakdown(), Breakdown()) if a.breakdown else (None, None)
        new = profile(t, a.episodes, a.agents, a.time_cap, a.seed, new_settings, bn)
        old = profile(t, a.episodes, a.agents, a.time_cap, a.seed, {**OLD, "audit_every": 0}, bo)
        pairs.append((new, old))
        print(f"  measured: {new}\n  measured: {old}", flush=True)
        if bn is not None and bo is not None:
            tables += [bn.table(f"{t}, {new['mode']}"), bo.table(f"{t}, {old['mode']}")]
            print("\n".join(tables[-2:]), flush=True)
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
    for table in tables:
        print(table)
    if a.per_episode:
        for new, old in pairs:
            print(
                f"\n{new['task']}, episode by episode: decisions/s and the share of asked tests "
                "served without a run\n\n| episode | "
                f"{new['mode']} | served | {old['mode']} | served | ratio |\n| ---: |"
                + " ---: |"
                * 5
            )
            for k, ((dn, sn, vn), (do, so, vo)) in enumerate(
                zip(new["per_episode"], old["per_episode"], strict=True)
            ):
                ratio = (dn / sn) / (do / so) if do and so and sn else 0.0
                print(
                    f"| {k} | {dn / sn:.1f} | {vn:.3f} | {do / so:.1f} | {vo:.3f} | {ratio:.2f}x |"
                )
    print()
    for new, old in pairs:
        rate = new["decisions"] / new["wall"]
        ratio = rate / (old["decisions"] / old["wall"])
        line = f"menu-scoring: {new['task']} {rate:.1f} decisions/s"
        print(f"{line} ({ratio:.1f}x static keys without memo)")


if __name__ == "__main__":
    main()
