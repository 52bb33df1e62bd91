"""How narrow the fast scorer's cache keys are: tests re-run per one-function edit.

Host-side and deterministic (nothing runs): for each task, on its reference solution, the
number of tests whose key covers each function of the project (the tests a change to
that function's body re-runs), and the tests whose key is every file (opaque code).
The obvious alternative, re-running every test that can import the edited module, is
the `module` column.

    python benchmarks/bench_keys.py [--tasks sheetcalc exprcalc inflection lispy humanize]
"""

from __future__ import annotations

import argparse
import statistics

from swarm_envs.scoring import collect_test_ids
from swarm_envs.scoring.graph import ImportGraph
from swarm_envs.scoring.keys import Keyer
from swarm_envs.scoring.snapshot import digest
from swarm_envs.task import get_task


def measure(tid: str) -> dict[str, object]:
    task = get_task(tid)
    coll = collect_test_ids(task)
    files, blobs = {}, {}
    for rel, data in task.solution_files().items():
        files[rel] = digest(data)
        blobs[files[rel]] = data
    tds = {rel: digest(data) for rel, data in coll.test_files.items()}
    graph = ImportGraph().analyse(files, blobs, coll.test_files, tds)
    keyer = Keyer(files, graph.fact, graph.closures, coll, tds)
    keys = {nid: keyer.items_for(nid.split("::")[0], nid) for nid in coll.ids}
    per_fn, per_module = [], []
    for rel in sorted(files):
        facts = graph.fact(rel)
        if facts is None:
            continue
        importers = sum(
            1
            for nid in coll.ids
            if rel in graph.closures.get(nid.split("::")[0], None).files  # type: ignore[union-attr]
        )
        for fn in facts.functions:
            per_fn.append(
                sum(1 for k in keys.values() if k is None or fn.qualname in k.get(rel, ()))
            )
            per_module.append(importers)
    return {
        "task": tid,
        "tests": len(coll.ids),
        "functions": len(per_fn),
        "everything": sum(1 for k in keys.values() if k is None),
        "median": statistics.median(per_fn) if per_fn else 0,
        "mean": statistics.mean(per_fn) if per_fn else 0,
        "module": statistics.median(per_module) if per_module else 0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--tasks", nargs="+", default=["sheetcalc", "exprcalc", "inflection", "lispy", "humanize"]
    )
    args = ap.parse_args()
    head = (
        f"{'task':>11} {'tests':>6} {'functions':>9} {'keyed by all':>12} "
        f"{'median re-run':>13} {'mean':>7} {'module':>7}"
    )
    print(head)
    print("-" * len(head))
    for tid in args.tasks:
        r = measure(tid)
        n = r["tests"]
        print(
            f"{r['task']:>11} {n:>6} {r['functions']:>9} {r['everything']:>12} "
            f"{r['median']:>8.0f} ({100 * r['median'] / n:>2.0f}%) {r['mean']:>7.1f} "
            f"{r['module']:>7.0f}"
        )
    print(
        "median re-run: tests whose key covers a function, over the project's functions "
        "(the tests a one-function edit re-runs); module: tests that can import its module"
    )


if __name__ == "__main__":
    main()
