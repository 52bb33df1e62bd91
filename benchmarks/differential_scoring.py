"""Differential check of the fast scorer: its cached counts against fresh pytest runs.

On several bundled tasks (reference solution, local sandbox), a seeded sequence of edits:
one-function edits (a function's body made to return early, or restored) and whole-file
edits (a module replaced by its starting, stubbed version, or restored). After every edit
the fast scorer (cache, host-side keys) and the subprocess scorer (a fresh pytest run of
every test) score the same workspace; at the end the fast scorer's authoritative fresh
count is compared too. Any per-test disagreement is a mismatch; the target is 0.

The fast scorer runs with the keys named by `--keys` (default `dynamic`: narrowed to what
each test executed, issue 30). `--menu-episodes N` adds menu play on `--menu-tasks`:
seeded random legal moves, 8 agents, with an audit at every rescoring
(`scoring={"audit_every": 1}`): each per-step count is compared with a full, fresh run of
the same state, and each disagreement (kind `audit` in infos["integrity"]) is a mismatch.

    python benchmarks/differential_scoring.py [--tasks calc exprcalc inflection sheetcalc]
                                              [--edits 12] [--seed 0] [--keys dynamic]
                                              [--menu-episodes 2 --menu-tasks jsonkit]
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import sys
import time

import numpy as np

import swarm_envs
from swarm_envs.core.config import ScoringSettings
from swarm_envs.sandboxes import make_sandbox
from swarm_envs.scoring import make_scorer
from swarm_envs.tasks import get_task


def functions(text: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions whose body starts on a line of its own."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.body[0].lineno > n.lineno
    ]


def early_return(text: str, rng: random.Random) -> tuple[str, str]:
    """`text` with one random function made to return None first thing."""
    fns = functions(text)
    if not fns:
        return text, "-"
    fn = rng.choice(fns)
    lines = text.splitlines()
    first = fn.body[0]
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f"{indent}return None  # differential edit")
    return "\n".join(lines) + "\n", fn.name


def run_task(tid: str, n_edits: int, seed: int, keys: str = "dynamic") -> dict[str, object]:
    task = get_task(tid)
    rng = random.Random(seed)
    solution = {r: d for r, d in task.solution_files().items() if r.endswith(".py")}
    start = {r: d for r, d in task.start_files().items() if r.endswith(".py")}
    mismatches: list[str] = []
    edits = 0
    t0 = time.perf_counter()
    with make_sandbox("local") as sb:
        task.materialize(sb.root, task.solution_files())
        settings = ScoringSettings(keys=keys)  # type: ignore[arg-type]
        with (
            make_scorer(task, sb, scoring=settings) as fast,
            make_scorer(task, sb, kind="subprocess") as fresh,
        ):
            fast.evaluate()
            for i in range(n_edits):
                rel = rng.choice(sorted(solution))
                kind = rng.choice(["function", "function", "restore", "file"])
                now = (sb.root / rel).read_text()
                if kind == "function":
                    text, what = early_return(now, rng)
                elif kind == "file" and rel in start:
                    text, what = start[rel].decode(), "starting version"
                else:
                    text, what = solution[rel].decode(), "restored"
                (sb.root / rel).write_text(text)
                edits += 1
                a, b = fast.evaluate(), fresh.evaluate()
                if a.verdict != "ok" or b.verdict != "ok":
                    mismatches.append(f"edit {i} {rel}: verdicts {a.verdict}/{b.verdict}")
                elif a.per_test != b.per_test:
                    bad = [t for t in b.per_test if a.per_test.get(t) != b.per_test[t]]
                    mismatches.append(f"edit {i} {rel} ({what}): {len(bad)} tests, {bad[:2]}")
            final = fast.evaluate(fresh=True)
            if final.per_test != fresh.evaluate().per_test:
                mismatches.append("the final fresh count")
    return {
        "task": tid,
        "edits": edits,
        "mismatches": mismatches,
        "seconds": time.perf_counter() - t0,
    }


def run_menu(tid: str, episodes: int, seed: int, keys: str) -> dict[str, object]:
    """Random menu play with an audit at every rescoring: disagreements are mismatches."""
    env = swarm_envs.parallel_env(
        tid, num_agents=8, mode="menu", time_cap_s=60, scoring={"keys": keys, "audit_every": 1}
    )
    steps = audits = 0
    mismatches: list[str] = []
    t0 = time.perf_counter()
    try:
        for k in range(episodes):
            obs, _ = env.reset(seed=seed + k)
            rng = np.random.default_rng(seed + k)
            while env.agents:
                actions = {}
                for a in env.ready_agents:
                    space = env.action_space(a)
                    space.seed(int(rng.integers(2**31)))
                    actions[a] = int(space.sample(mask=obs[a]["action_mask"]))
                obs, _, _, _, infos = env.step(actions)
                steps += 1
            view = env.view()
            audits += view.audits
            for f in view.integrity:
                if f["kind"] in ("audit", "final_recount"):
                    mismatches.append(f"episode {k}: {f['kind']}: {f['detail']}")
    finally:
        env.close()
    return {
        "task": f"{tid} (menu)",
        "edits": audits,
        "mismatches": mismatches,
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tasks", nargs="+", default=["calc", "exprcalc", "inflection", "sheetcalc"])
    ap.add_argument("--edits", type=int, default=12, help="edits per task")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keys", choices=["dynamic", "static"], default="dynamic")
    ap.add_argument("--menu-episodes", type=int, default=0, help="menu play episodes per task")
    ap.add_argument("--menu-tasks", nargs="+", default=["jsonkit"])
    args = ap.parse_args()
    print(
        f"differential check, seed {args.seed}, keys {args.keys}, "
        f"load average {os.getloadavg()[0]:.1f} (menu rows: edits = audited rescorings)"
    )
    print(f"{'task':>12} {'edits':>6} {'mismatches':>11} {'seconds':>8}", flush=True)
    rows = []
    jobs = [lambda t=t: run_task(t, args.edits, args.seed, args.keys) for t in args.tasks]
    if args.menu_episodes:
        jobs += [
            lambda t=t: run_menu(t, args.menu_episodes, args.seed, args.keys)
            for t in args.menu_tasks
        ]
    for job in jobs:
        r = job()
        rows.append(r)
        print(f"{r['task']:>12} {r['edits']:>6} {len(r['mismatches']):>11} {r['seconds']:>8.1f}")
        for m in r["mismatches"]:
            print(f"    {m}")
        sys.stdout.flush()
    total = sum(len(r["mismatches"]) for r in rows)
    print(f"total mismatches: {total} (target 0)")


if __name__ == "__main__":
    main()
