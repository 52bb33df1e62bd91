"""How narrow the fast scorer's cache keys are: tests re-run per one-function edit.

Host-side and deterministic (nothing runs): for each task, on its reference solution, the
number of tests whose key covers each function of the project (the tests a change to
that function's body re-runs), and the tests whose key is every file (opaque code).
The obvious alternative, re-running every test that can import the edited module, is
the `module` column.

`--trace` also runs each task's tests on its reference solution on the host (trusted
code only) under a profiler (`reach_trace.py`), recording the project functions each
test executed. Two more columns then: `executed`, the median number of tests that ran
a function (what an oracle that knew each test's path would re-run: the price of keys
that must hold for any code is the gap to `median re-run`), and `uncovered`, the
(test, function) pairs where a test executed a function its key does not cover. Any
uncovered pair is a soundness bug of the analysis (the target is 0).

    python benchmarks/bench_keys.py [--tasks sheetcalc exprcalc inflection lispy humanize]
                                    [--trace]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from swarm_envs.scoring import collect_test_ids
from swarm_envs.scoring.graph import ImportGraph
from swarm_envs.scoring.keys import Keyer
from swarm_envs.scoring.snapshot import digest
from swarm_envs.tasks import Task, get_task


def traces(task: Task) -> dict[str, set[tuple[str, str]]]:
    """Per test, the project functions it executed on the reference solution (see doc)."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        task.materialize(root, task.solution_files())
        out = root / "reach.json"
        here = str(Path(__file__).resolve().parent)
        env = {
            **os.environ,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONPATH": os.pathsep.join([here, d]),
            "REACH_ROOT": d,
            "REACH_OUT": str(out),
        }
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "reach_trace"]
            + ["tests"],
            cwd=d,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            timeout=1800,
        )
        got = json.loads(out.read_text()) if out.exists() else {}
    return {nid: {(rel, q) for rel, q in pairs} for nid, pairs in got.items()}


def uncovered(
    keys: dict[str, dict[str, tuple[str, ...]] | None],
    traced: dict[str, set[tuple[str, str]]],
    functions: dict[str, set[str]],
) -> list[tuple[str, str, str]]:
    """(test, file, function) where a test executed a function its key does not cover.

    `functions`: per workspace file, the qualnames the analysis knows (a duplicate
    definition's `#n` suffix is stripped): a trace's code outside them (class bodies) is
    covered by the skeleton.
    """
    out = []
    for nid, pairs in traced.items():
        if nid not in keys:
            continue
        key = keys[nid]
        if key is None:
            continue
        for rel, q in sorted(pairs):
            if q not in functions.get(rel, ()):
                continue
            if not any(k.partition("#")[0] == q for k in key.get(rel, ())):
                out.append((nid, rel, q))
    return out


def measure(tid: str, trace: bool = False) -> dict[str, object]:
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
    found: dict[str, object] = {}
    if trace:
        traced = traces(task)
        known = {
            rel: {fn.qualname.partition("#")[0] for fn in f.functions}
            for rel in files
            if (f := graph.fact(rel)) is not None
        }
        ran = [
            sum(1 for pairs in traced.values() if (rel, q) in pairs)
            for rel in sorted(known)
            for q in sorted(known[rel])
        ]
        bad = uncovered(keys, traced, known)
        if len(traced) < len(coll.ids):
            print(f"  note {tid}: {len(traced)} of {len(coll.ids)} tests traced")
        for nid, rel, q in bad[:5]:
            print(f"  UNCOVERED {tid}: {nid} executed {rel}:{q}")
        found = {
            "traced": len(traced),
            "executed": statistics.median(ran) if ran else 0,
            "uncovered": len(bad),
        }
    return {
        **found,
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
    ap.add_argument(
        "--trace",
        action="store_true",
        help="also run the tests traced: tests that executed each function, uncovered pairs",
    )
    args = ap.parse_args()
    head = (
        f"{'task':>11} {'tests':>6} {'functions':>9} {'keyed by all':>12} "
        f"{'median re-run':>13} {'mean':>7} {'module':>7}"
    )
    if args.trace:
        head += f" {'executed':>13} {'uncovered':>9}"
    print(head)
    print("-" * len(head))
    for tid in args.tasks:
        r = measure(tid, args.trace)
        n = r["tests"]
        line = (
            f"{r['task']:>11} {n:>6} {r['functions']:>9} {r['everything']:>12} "
            f"{r['median']:>8.0f} ({100 * r['median'] / n:>2.0f}%) {r['mean']:>7.1f} "
            f"{r['module']:>7.0f}"
        )
        if args.trace:
            ex = r["executed"]
            line += f" {ex:>8.0f} ({100 * ex / n:>2.0f}%) {r['uncovered']:>9}"
        print(line)
    print(
        "median re-run: tests whose key covers a function, over the project's functions "
        "(the tests a one-function edit re-runs); module: tests that can import its module"
    )
    if args.trace:
        print(
            "executed: median tests that ran a function on the reference solution (an "
            "oracle's re-runs); uncovered: (test, function) pairs a key missed (target 0)"
        )


if __name__ == "__main__":
    main()
