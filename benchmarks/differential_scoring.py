"""Differential check of the fast scorer: its cached counts against fresh pytest runs.

On several bundled tasks (reference solution, local sandbox), a seeded sequence of edits:
one-function edits (a function's body made to return early, or restored) and whole-file
edits (a module replaced by its starting, stubbed version, or restored). After every edit
the fast scorer (cache, host-side keys) and the subprocess scorer (a fresh pytest run of
every test) score the same workspace; at the end the fast scorer's authoritative fresh
count is compared too. Any per-test disagreement is a mismatch; the target is 0.

    python benchmarks/differential_scoring.py [--tasks calc exprcalc inflection sheetcalc]
                                              [--edits 12] [--seed 0]
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import sys
import time

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


def run_task(tid: str, n_edits: int, seed: int) -> dict[str, object]:
    task = get_task(tid)
    rng = random.Random(seed)
    solution = {r: d for r, d in task.solution_files().items() if r.endswith(".py")}
    start = {r: d for r, d in task.start_files().items() if r.endswith(".py")}
    mismatches: list[str] = []
    edits = 0
    t0 = time.perf_counter()
    with make_sandbox("local") as sb:
        task.materialize(sb.root, task.solution_files())
        with make_scorer(task, sb) as fast, make_scorer(task, sb, kind="subprocess") as fresh:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tasks", nargs="+", default=["calc", "exprcalc", "inflection", "sheetcalc"])
    ap.add_argument("--edits", type=int, default=12, help="edits per task")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"differential check, seed {args.seed}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'task':>12} {'edits':>6} {'mismatches':>11} {'seconds':>8}", flush=True)
    rows = []
    for t in args.tasks:
        r = run_task(t, args.edits, args.seed)
        rows.append(r)
        print(f"{r['task']:>12} {r['edits']:>6} {len(r['mismatches']):>11} {r['seconds']:>8.1f}")
        for m in r["mismatches"]:
            print(f"    {m}")
        sys.stdout.flush()
    total = sum(len(r["mismatches"]) for r in rows)
    print(f"total mismatches: {total} (target 0)")


if __name__ == "__main__":
    main()
