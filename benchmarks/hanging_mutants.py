"""Which tasks had a wrong candidate that makes a test hang (candidate cache format 2).

    .venv/bin/python benchmarks/hanging_mutants.py calc jsonkit structkit
    .venv/bin/python benchmarks/hanging_mutants.py --suite standard

Replays the mutant search of `swarm_envs.generation.generators.detected_mutants` for every
unit (its seeded order, the first `--n-wrong` mutants its tests detect) as it was before
format 3, when a mutant counted as detected even if its only failing tests were ones the
scorer killed for making no progress (`TestReport.hung`), and prints those mutants: the
candidates that format 3 leaves out. A task with none has the same candidates in both
formats (so its menu-mode runs and checkpoints are unchanged); `--per-test-limit` keeps a
hang's cost here short.
"""

from __future__ import annotations

import argparse
import random
import time

from swarm_envs.generation.generators import mutations
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import get_task, registered


def hanging(task_id: str, n_wrong: int, limit: float, max_tries: int = 40) -> list[tuple]:
    """(unit, rank among its detected mutants, mutation, hung tests) of the old search."""
    task = get_task(task_id)
    files = task.solution_files()
    out = []
    with ProjectRunner(task, test_timeout_s=limit) as runner:
        for unit in task.units:
            rng = random.Random(f"{task.id}:{unit.name}:0")  # as `candidates`, seed 0
            source = files[unit.path].decode("utf-8")
            found = mutations(source, unit)
            rng.shuffle(found)
            detected = 0
            for m in found[:max_tries]:
                try:
                    mutated = {**files, unit.path: m.apply(source).encode("utf-8")}
                except SyntaxError:
                    continue
                report = runner.run(mutated, list(unit.tests))
                if report.verdict == "ok" and report.passed < report.total:
                    detected += 1
                    if report.hung:
                        out.append((unit.name, detected, m.describe(), len(report.hung)))
                    if detected >= n_wrong:
                        break
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("tasks", nargs="*")
    p.add_argument("--suite", help="every bundled task of this suite")
    p.add_argument("--n-wrong", type=int, default=3, help="wrong candidates per unit (menu's)")
    p.add_argument("--per-test-limit", type=float, default=2.0, help="seconds (default 2)")
    a = p.parse_args()
    tasks = list(a.tasks)
    if a.suite:
        tasks += [t for t in sorted(registered()) if get_task(t).manifest.suite == a.suite]
    print("| task | units | mutants that hang among each unit's first detected | seconds |")
    print("| --- | ---: | --- | ---: |")
    for t in tasks:
        t0 = time.perf_counter()
        found = hanging(t, a.n_wrong, a.per_test_limit)
        said = "; ".join(f"{u} (#{k}: {m}, {n} hung)" for u, k, m, n in found) or "none"
        print(f"| {t} | {len(get_task(t).units)} | {said} | {time.perf_counter() - t0:.0f} |")


if __name__ == "__main__":
    main()
