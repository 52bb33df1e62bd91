"""Scoring benchmark: the naive `python -m pytest` per edit against our fast scorer.

For a suite of at least 200 tests (a bundled task if one is big enough, else a generated
project) and one of at least 1,000 tests, on the reference solution in a local sandbox:

  (a) a full evaluation after an edit that every test file can see (the package's
      `__init__.py`);
  (b) an evaluation of an unchanged tree;
  (c) an evaluation after an edit inside one function of one module, both picked at
      random (seeded) for each run: what an agent's fix looks like.

A last line times an evaluation in which one test hangs: the fast scorer charges that test
its per-test timeout (`--hang-timeout`) and still runs the others.

The naive baseline is what SWE-style environments do: copy the project into a fresh
directory and run `python -m pytest` in a fresh subprocess after each edit. It is measured
twice: as is (`naive`: every installed pytest plugin loads, as in any real environment)
and with plugin autoloading off (`naive-lean`), the stricter comparison. The `subprocess`
column is our own naive scorer kind (the same, inside the sandbox, with per-test
outcomes). Medians over `--repeats` runs; ratios are naive / fast.

Two more rows: the largest tasks of the `real` suite (real projects), with (c) edits
inside one of their real functions (`--real 0`: none).

    python benchmarks/bench_scoring.py [--repeats 7] [--min-tests 200] [--large 1000]
                                       [--hang-timeout 1.0] [--real 2]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from swarm_envs.core.config import ScoringSettings
from swarm_envs.sandboxes import make_sandbox
from swarm_envs.scoring import FastScorer, SubprocessScorer, collect_test_ids
from swarm_envs.tasks import Task, get_task, registered


def generated_task(root: Path, n_tests: int, seed: int) -> Task:
    """A generated project: `modules` independent modules, one test file each."""
    rng = random.Random(seed)
    modules = max(4, n_tests // 40)
    per = n_tests // modules
    root.mkdir(parents=True, exist_ok=True)
    (root / "task.toml").write_text(
        f'name = "gen{n_tests}"\nsuite = "custom"\ndescription = "generated benchmark project"\n'
        "[tests]\ntimeout_s = 300\n"
    )
    (root / "README.md").write_text("# generated\n")
    pkg = root / "solution" / "genproj"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Generated."""\n')
    (root / "tests").mkdir()
    for m in range(modules):
        consts = [rng.randint(1, 100) for _ in range(per)]
        body = "\n\n".join(f"def f{i}(x):\n    return x * {c} + {i}" for i, c in enumerate(consts))
        (pkg / f"mod{m}.py").write_text(body + "\n")
        tests = [f"from genproj.mod{m} import *\n"]
        for i, c in enumerate(consts):
            tests.append(f"\ndef test_f{i}():\n    assert f{i}(3) == {3 * c + i}\n")
        (root / "tests" / f"test_mod{m}.py").write_text("".join(tests))
    return Task(root)


def pick_task(min_tests: int, max_tests: int | None, tmp: Path, seed: int) -> tuple[Task, str]:
    best: tuple[int, Task] | None = None
    for tid in registered():
        try:
            t = get_task(tid)
            n = len(collect_test_ids(t).ids)
        except Exception:  # noqa: BLE001 - a task in progress is skipped
            continue
        if n >= min_tests and (max_tests is None or n < max_tests):
            if best is None or n < best[0]:
                best = (n, t)
    if best is not None:
        return best[1], f"bundled task {best[1].id}"
    t = generated_task(tmp / f"gen{min_tests}", min_tests, seed)
    return t, f"generated project ({min_tests} tests; no bundled task has >= {min_tests})"


def largest_real(n: int) -> list[Task]:
    """The `n` tasks of the `real` suite (real projects) with the most tests."""
    sized = []
    for tid in registered():
        t = get_task(tid)
        if t.manifest.suite == "real":
            sized.append((len(collect_test_ids(t).ids), tid, t))
    return [t for _, _, t in sorted(sized, key=lambda x: (-x[0], x[1]))[:n]]


def naive_run(ws: Path, task: Task, lean: bool) -> float:
    """Copy the project into a fresh dir and run pytest in a fresh subprocess."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        for p in ws.rglob("*"):
            rel = p.relative_to(ws)
            if p.is_file() and "__pycache__" not in rel.parts and rel.parts[0] != "tests":
                dst = Path(d, rel)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)
        shutil.copytree(task.tests_dir, Path(d, "tests"))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        if lean:
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=d,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    return time.perf_counter() - t0


def edit_module_level(path: Path, n: int) -> None:
    """A change to what importing the module does (every importer is affected)."""
    text = path.read_text()
    lines = [ln for ln in text.splitlines() if not ln.startswith("_bench_edit = ")]
    path.write_text("\n".join(lines) + f"\n_bench_edit = {n}\n")


def edit_function_body(path: Path, n: int, rng: random.Random | None = None) -> str:
    """A change inside one function of the module (the first, or a random one)."""
    import ast

    lines = path.read_text().splitlines()
    lines = [ln for ln in lines if not ln.strip().startswith("_bench_edit = ")]
    tree = ast.parse("\n".join(lines))
    funcs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body[0].lineno > node.lineno  # a body on its own lines
    ]
    func = rng.choice(funcs) if rng is not None else funcs[0]
    first = func.body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    anchor = func.body[1] if is_doc and len(func.body) > 1 else first
    indent = " " * anchor.col_offset
    at = (first.end_lineno if is_doc and anchor is first else anchor.lineno - 1) or 0
    lines.insert(at, f"{indent}_bench_edit = {n}")
    path.write_text("\n".join(lines) + "\n")
    return func.name


def editable_modules(root: Path, files: dict[str, str]) -> list[str]:
    """Workspace modules that define at least one function (candidates for edit (c)).

    Packages' `__init__.py` files count only in a project that has no other module (a
    one-file package, as `inflection` is).
    """
    import ast

    out = []
    plain = [r for r in files if r.endswith(".py") and not r.endswith("__init__.py")]
    for rel in sorted(files):
        if rel.endswith(".py") and (rel in plain or not plain):
            tree = ast.parse((root / rel).read_text())
            if any(
                isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body[0].lineno > n.lineno
                for n in ast.walk(tree)
            ):
                out.append(rel)
    return out


def package_init(files: dict[str, str]) -> str:
    inits = sorted((f for f in files if f.endswith("__init__.py")), key=lambda f: f.count("/"))
    return inits[0]


def bench(task: Task, origin: str, repeats: int, seed: int, keys: str) -> dict[str, object]:
    n_tests = len(collect_test_ids(task).ids)
    with make_sandbox("local") as sb:
        task.materialize(sb.root, task.solution_files())
        fast = FastScorer(task, sb, settings=ScoringSettings(keys=keys))
        t0 = time.perf_counter()
        first = fast.evaluate()
        startup = time.perf_counter() - t0
        files = fast.take_snapshot()
        init, modules = package_init(files), editable_modules(sb.root, files)
        rng = random.Random(seed)
        full, unchanged, one = [], [], []
        ran_full, ran_one = [], []
        picked = []
        for i in range(repeats):
            edit_module_level(sb.root / init, i)
            r = fast.evaluate()
            full.append(r.wall_s)
            ran_full.append(r.ran)
            for _ in range(5):
                unchanged.append(fast.evaluate().wall_s)
            mod = rng.choice(modules)
            picked.append(f"{mod}::{edit_function_body(sb.root / mod, i, rng)}")
            r = fast.evaluate()
            one.append(r.wall_s)
            ran_one.append(r.ran)
        assert r.verdict == "ok" and r.passed == first.passed
        fast.close()
        sub = SubprocessScorer(task, sb)
        subp = []
        for i in range(repeats):
            edit_function_body(sb.root / modules[i % len(modules)], 100 + i)
            subp.append(sub.evaluate().wall_s)
        sub.close()
        naive = [naive_run(sb.root, task, lean=False) for _ in range(repeats)]
        lean = [naive_run(sb.root, task, lean=True) for _ in range(repeats)]
    med = statistics.median
    return {
        "origin": origin,
        "tests": n_tests,
        "passed": first.passed,
        "startup": startup,
        "naive": med(naive),
        "lean": med(lean),
        "subprocess": med(subp),
        "a": med(full),
        "b": med(unchanged),
        "c": med(one),
        "ran_a": med(ran_full),
        "ran_c": med(ran_one),
        "picked": picked,
    }


def bench_hang(tmp: Path, test_timeout_s: float) -> tuple[float, int, int]:
    """(seconds, passed, total) of an evaluation of a project in which one test hangs."""
    root = tmp / "hang"
    generated_task(root, 40, 0)
    mod = root / "solution" / "genproj" / "mod0.py"
    mod.write_text(
        mod.read_text().replace("def f0(x):\n", "def f0(x):\n    while x:\n        pass\n")
    )
    task = Task(root)
    with make_sandbox("local") as sb:
        task.materialize(sb.root, task.solution_files())
        with FastScorer(task, sb, test_timeout_s=test_timeout_s) as sc:
            r = sc.evaluate()
    return r.wall_s, r.passed, r.total


def bench_graph(sizes: tuple[int, ...] = (1000, 2000, 4000)) -> list[tuple[int, float]]:
    """Seconds to analyse a package of n star-importing modules (first time: no cache)."""
    from swarm_envs.scoring.graph import ImportGraph
    from swarm_envs.scoring.snapshot import digest

    out = []
    for n in sizes:
        files = {"gen/__init__.py": b""}
        files.update(
            {
                f"gen/m{i}.py": b"from gen import *\n\ndef f():\n    return m1.f()\n"
                for i in range(n)
            }
        )
        digests = {rel: digest(data) for rel, data in files.items()}
        blobs = {digest(data): data for data in files.values()}
        tests = {"tests/test_gen.py": b"from gen.m0 import f\n"}
        t0 = time.perf_counter()
        ImportGraph().analyse(digests, blobs, tests, {k: digest(v) for k, v in tests.items()})
        out.append((n, time.perf_counter() - t0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=7, help="runs per measurement (median)")
    ap.add_argument("--min-tests", type=int, default=200, help="size of the first row's suite")
    ap.add_argument("--large", type=int, default=1000, help="size of the second row's suite")
    ap.add_argument("--seed", type=int, default=0, help="seed of the generated projects")
    ap.add_argument(
        "--hang-timeout", type=float, default=1.0, help="per-test timeout of the hang line"
    )
    ap.add_argument(
        "--real", type=int, default=2, help="rows for the largest tasks of the `real` suite"
    )
    ap.add_argument(
        "--keys",
        choices=["dynamic", "static"],
        default="dynamic",
        help="the fast scorer's keys (scoring={'keys': ...}); the report says which",
    )
    args = ap.parse_args()
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for lo, hi in ((args.min_tests, args.large), (args.large, None)):
            task, origin = pick_task(lo, hi, Path(tmp), args.seed)
            rows.append(bench(task, origin, args.repeats, args.seed, args.keys))
            print(f"  measured: {rows[-1]}", flush=True)
        for task in largest_real(args.real):
            rows.append(bench(task, f"real task {task.id}", args.repeats, args.seed, args.keys))
            print(f"  measured: {rows[-1]}", flush=True)
        hang = bench_hang(Path(tmp), args.hang_timeout)
    graph = bench_graph()
    load = os.getloadavg()[0]
    print(
        f"scoring benchmark: median of {args.repeats} runs, {os.cpu_count()} CPUs, "
        f"load average {load:.1f}, keys {args.keys}"
    )
    for r in rows:
        print(f"  row {r['tests']}: {r['origin']}; (c) edited {', '.join(r['picked'])}")
    head = (
        f"{'tests':>6} {'naive':>8} {'lean':>8} {'subproc':>8} "
        f"{'(a) full':>9} {'(b) same':>9} {'(c) one':>8} "
        f"{'a x naive':>9} {'a x lean':>8} {'c x naive':>9} {'c x lean':>8}"
    )
    print(head)
    print("-" * len(head))
    ran = "; ".join(
        f"{r['tests']} tests: (a) ran {r['ran_a']:.0f}, (c) ran {r['ran_c']:.0f} "
        f"({100 * r['ran_c'] / r['tests']:.0f}%)"
        for r in rows
    )
    for r in rows:
        print(
            f"{r['tests']:>6} {r['naive'] * 1e3:>6.0f}ms {r['lean'] * 1e3:>6.0f}ms "
            f"{r['subprocess'] * 1e3:>6.0f}ms {r['a'] * 1e3:>7.0f}ms {r['b'] * 1e3:>7.2f}ms "
            f"{r['c'] * 1e3:>6.0f}ms {r['naive'] / r['a']:>8.1f}x {r['lean'] / r['a']:>7.1f}x "
            f"{r['naive'] / r['c']:>8.1f}x {r['lean'] / r['c']:>7.1f}x"
        )
    print(
        "(a) full evaluation after an edit every test sees; (b) unchanged tree; "
        f"(c) edit to one module.\ntests re-run by the fast scorer: {ran}\n"
        "targets at ~1000 tests: (a) >= 3x naive and the guard <= 1.3x lean, (b) < 1 ms, "
        "(c) >= 15x naive, >= 5x lean, re-running <= 10% of the suite. "
        f"fast scorer start-up (once per episode): "
        + ", ".join(f"{r['startup'] * 1e3:.0f} ms" for r in rows)
    )
    print(
        "import graph of n star-importing modules (host CPU, no cache): "
        + ", ".join(f"{n}: {t * 1e3:.0f} ms" for n, t in graph)
        + f" (x{graph[-1][1] / graph[0][1]:.1f} for x{graph[-1][0] // graph[0][0]} files: linear)"
    )
    print(
        f"a hanging test (per-test timeout {args.hang_timeout:g} s): the evaluation took "
        f"{hang[0]:.2f} s, {hang[1]}/{hang[2]} tests pass (all but the hanging one)"
    )


if __name__ == "__main__":
    main()
