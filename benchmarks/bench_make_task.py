"""make-task + validate benchmark: a 500-test, 150-unit project, against today's path.

A generated project (seeded) looks like a small real library: `--modules` modules of
functions and classes (methods calling `self.` helpers, properties, functions calling
functions of earlier modules), and `--tests` parametrised tests, each calling one public
entry point (so a test also executes what that entry point depends on).

- `make-task + validate` (ours): one instrumented reference run maps tests to units, probes
  stub only the units' own tests, batched where their tests are disjoint and spread over
  two workers, and validation checks units in such batches too. Both run as the CLI does,
  in fresh processes, so no cache is shared between them.
- `baseline` (today's path, the obvious alternative): for every candidate function, stub it
  and run the whole suite, serially; validation (in a fresh process, as the CLI runs it)
  stubs each unit alone and runs its tests, serially. Same sandbox, same scorer (whose cache
  already re-runs only the tests an edit can affect).

Five of the tests (`--lock-tests`) wait on a gate across threads, as threading tests of real
libraries do: with the gate's `release` stubbed, each waits out a 10 s timeout.

    python benchmarks/bench_make_task.py [--tests 500] [--units 150] [--seed 0] [--no-baseline]

Prints the wall seconds of each and their ratio (baseline / ours).
"""

from __future__ import annotations

import argparse
import ast
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomli_w

HEADER = '"""Generated module {m} of the benchmark library."""\n\n'


def generate_project(
    root: Path, n_tests: int, n_units: int, modules: int, seed: int, lock_tests: int = 5
) -> None:
    """Write the generated library at `root` (package `benchlib`, tests in `tests/`).

    `lock_tests` of the tests (part of `n_tests`) use a gate across threads: with its
    `release` stubbed they wait 10 s each for a timeout, as threading tests of real
    libraries do.
    """
    n_tests -= lock_tests
    rng = random.Random(seed)
    pkg = root / "benchlib"
    pkg.mkdir(parents=True)
    (root / "tests").mkdir()
    (pkg / "__init__.py").write_text('"""The generated benchmark library."""\n')
    (root / "README.md").write_text("# benchlib\n\nA generated library.\n")
    per = max(3, n_units // modules)
    entry: list[tuple[int, str]] = []  # (module, public name)
    for m in range(modules):
        lines = [HEADER.format(m=m)]
        if m:
            lines.append(f"from benchlib.mod{m - 1} import f{m - 1}_0, Box{m - 1}\n\n")
        n_funcs = per - 4  # four methods and a property pair in the class below
        for i in range(n_funcs):
            a, b = rng.randint(2, 9), rng.randint(1, 50)
            calls = []
            if i >= 2 and rng.random() < 0.6:
                calls.append(f"f{m}_{rng.randrange(i)}(x)")
            if m and rng.random() < 0.4:
                calls.append(f"f{m - 1}_0(x)")
            extra = " + ".join(calls) if calls else "0"
            lines.append(
                f"def f{m}_{i}(x):\n"
                f'    """Entry point {i} of module {m}."""\n'
                f"    y = x * {a} + {b}\n"
                f"    if y % 3 == 0:\n"
                f"        y -= {b % 7 + 1}\n"
                f"    return y + {extra}\n\n\n"
            )
            entry.append((m, f"f{m}_{i}"))
        base = f"Box{m - 1}" if m else "object"
        lines.append(
            f"class Box{m}({base}):\n"
            f'    """A box of module {m}."""\n\n'
            f"    def __init__(self, v):\n        self._v = v * {m + 1}\n\n"
            f"    @property\n    def value(self):\n        return self._v + 1\n\n"
            f"    @value.setter\n    def value(self, v):\n        self._v = v - 1\n\n"
            f"    def grow(self, k):\n        return self._scale(k) + self.value\n\n"
            f"    def _scale(self, k):\n        return self._v * k\n\n\n"
        )
        entry.append((m, f"Box{m}"))
        (pkg / f"mod{m}.py").write_text("".join(lines))
    # Reference values, computed by running the generated code.
    ns: dict = {}
    sys.path.insert(0, str(root))
    try:
        import importlib

        for m in range(modules):
            ns[m] = importlib.import_module(f"benchlib.mod{m}")
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k.startswith("benchlib")]:
            del sys.modules[k]
    per_entry = max(1, n_tests // len(entry))
    left = n_tests
    by_module: dict[int, list[str]] = {}
    for j, (m, name) in enumerate(entry):
        k = per_entry if j < len(entry) - 1 else left
        left -= k
        xs = rng.sample(range(1, 10_000), k)
        obj = getattr(ns[m], name)
        if name.startswith("Box"):
            cases = [(x, obj(x).grow(3), obj(x).value) for x in xs]
            body = (
                f"@pytest.mark.parametrize('x,grown,value', {cases!r})\n"
                f"def test_{name.lower()}(x, grown, value):\n"
                f"    b = {name}(x)\n    assert b.grow(3) == grown and b.value == value\n"
                f"    b.value = value\n    assert b.value == value\n\n\n"
            )
        else:
            cases = [(x, obj(x)) for x in xs]
            body = (
                f"@pytest.mark.parametrize('x,expected', {cases!r})\n"
                f"def test_{name}(x, expected):\n    assert {name}(x) == expected\n\n\n"
            )
        by_module.setdefault(m, []).append(body)
    for m, bodies in by_module.items():
        names = sorted({n for mm, n in entry if mm == m})
        head = f"import pytest\n\nfrom benchlib.mod{m} import {', '.join(names)}\n\n\n"
        (root / "tests" / f"test_mod{m}.py").write_text(head + "".join(bodies))
    if lock_tests:
        (pkg / "sync.py").write_text(SYNC)
        (root / "tests" / "test_sync.py").write_text(SYNC_TESTS.format(n=lock_tests))


# A lock-like helper whose stub makes its tests wait out a timeout, as threading tests do.
SYNC = '''"""Synchronisation helpers."""

import threading


class Gate:
    """A one-shot gate: `wait` returns True once `release` was called (from any thread)."""

    def __init__(self):
        self._event = threading.Event()

    def release(self):
        self._event.set()
        return True

    def wait(self, timeout=None):
        return self._event.wait(timeout)
'''
SYNC_TESTS = """import threading

import pytest

from benchlib.sync import Gate


@pytest.mark.parametrize("n", range({n}))
def test_gate_across_threads(n):
    gate = Gate()
    thread = threading.Thread(target=gate.release)
    thread.start()
    assert gate.wait(timeout=10)
    thread.join()
"""


def run_cli(*args: str) -> float:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "swarm_envs.cli", *args], capture_output=True)
    if r.returncode != 0:
        sys.exit(f"swarm-envs {' '.join(args)} failed:\n{r.stdout.decode()}{r.stderr.decode()}")
    return time.perf_counter() - t0


def baseline_make(project: Path, out: Path) -> int:
    """Today's make-task: the whole suite once per candidate function, serially."""
    from swarm_envs.scoring.runner import ProjectRunner
    from swarm_envs.tasks import Task, Unit
    from swarm_envs.tasks.stubbing import iter_functions, stub_units

    (out / "solution").mkdir(parents=True)
    for p in project.rglob("*"):
        if p.is_file() and "tests" not in p.relative_to(project).parts:
            dest = out / "solution" / p.relative_to(project)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(p.read_bytes())
    (out / "tests").mkdir()
    for p in (project / "tests").glob("*.py"):
        (out / "tests" / p.name).write_bytes(p.read_bytes())
    manifest = {"name": "baseline", "description": "d", "tests": {"timeout_s": 600}}
    (out / "task.toml").write_text(tomli_w.dumps(manifest))
    task = Task(out)
    solution = task.solution_files()
    units = []
    with ProjectRunner(task) as runner:
        ref = runner.run(solution)
        passing = {t for t, ok in ref.per_test.items() if ok}
        for rel in sorted(r for r in solution if r.endswith(".py")):
            tree = ast.parse(solution[rel])
            for symbol in dict.fromkeys(s for s, _ in iter_functions(tree)):
                probe = Unit(name=symbol, path=rel, symbol=symbol, tests=["tests"])
                report = runner.run(stub_units(solution, [probe]))
                broken = sorted(t for t, ok in report.per_test.items() if not ok and t in passing)
                if broken:
                    units.append(
                        {"name": f"{rel}:{symbol}", "path": rel, "symbol": symbol, "tests": broken}
                    )
    (out / "task.toml").write_text(tomli_w.dumps({**manifest, "units": units}))
    return len(units)


def baseline_validate(folder: Path) -> None:
    """Today's validate: reference twice, the start, then each unit alone, serially."""
    from swarm_envs.generation.validation import unit_problems
    from swarm_envs.scoring.runner import ProjectRunner
    from swarm_envs.tasks import Task

    task = Task(folder)
    solution = task.solution_files()
    with ProjectRunner(task) as runner:
        ids = runner.test_ids()
        assert runner.run(solution).passed == len(ids)
        runner.run({**solution, "validation_nonce.txt": b"1"})
        runner.run(task.start_files())
        problems = unit_problems(task, [runner], ids, solution, batched=False)
    assert not problems, problems[:3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tests", type=int, default=500, help="tests of the generated project")
    ap.add_argument("--units", type=int, default=150, help="functions and methods (about)")
    ap.add_argument("--modules", type=int, default=10, help="modules of the project")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lock-tests", type=int, default=5, help="tests waiting on a gate")
    ap.add_argument("--no-baseline", action="store_true", help="skip today's path (slow)")
    ap.add_argument("--baseline-validate", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.baseline_validate:
        baseline_validate(Path(args.baseline_validate))
        return
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        generate_project(
            root / "project", args.tests, args.units, args.modules, args.seed, args.lock_tests
        )
        made = run_cli(
            "make-task",
            str(root / "project"),
            "--name",
            "benchlib",
            "--out",
            str(root / "task"),
            "--quiet",
        )
        checked = run_cli("validate", str(root / "task"))
        from swarm_envs.tasks import Task

        task = Task(root / "task")
        rows = [
            ("ours: make-task", made),
            ("ours: validate", checked),
            ("ours: total", made + checked),
        ]
        print(
            f"project: {args.tests} tests, {len(task.units)} units made "
            f"({sum(1 for u in task.units if u.depends_on)} with dependencies), seed {args.seed}"
        )
        base = None
        if not args.no_baseline:
            t0 = time.perf_counter()
            n = baseline_make(root / "project", root / "baseline")
            base_made = time.perf_counter() - t0
            t0 = time.perf_counter()
            r = subprocess.run(
                [sys.executable, __file__, "--baseline-validate", str(root / "baseline")]
            )
            if r.returncode:
                sys.exit("the baseline's validation failed")
            base_checked = time.perf_counter() - t0
            base = base_made + base_checked
            rows += [
                (f"baseline: make-task ({n} units)", base_made),
                ("baseline: validate", base_checked),
                ("baseline: total", base),
            ]
        width = max(len(r[0]) for r in rows)
        print(f"{'measure':<{width}}  {'seconds':>9}")
        for name, s in rows:
            print(f"{name:<{width}}  {s:>9.1f}")
        if base is not None:
            print(f"{'ratio (baseline / ours)':<{width}}  {base / (made + checked):>9.1f}")


if __name__ == "__main__":
    main()
