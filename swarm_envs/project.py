"""Bring your own project: turn any folder with a pytest suite into a task.

    swarm-envs make-task path/to/project --name mylib --out tasks_out/mylib

The folder must hold importable Python code and a `tests/` folder. Units of work
are found, not declared: every top-level function and every method (outside the
tests) whose stubbing makes at least one test fail is a unit, and the tests that
fail are its tests, measured by running them. A unit depends on the other units
its body calls. The result is a task folder (`task.toml`, `solution/`, `tests/`,
`README.md`); generate instances from it with `swarm_envs.generators.generate`.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import tomli_w

from swarm_envs.error import ManifestError
from swarm_envs.generators import body_span, stub_units
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.task import MANIFEST, Task, Unit

_SKIP = {"__pycache__", ".git", ".venv", "venv", "build", "dist", ".pytest_cache", ".tox"}
_CONFIG = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}


def _candidate_units(root: Path) -> list[tuple[str, str, set[str]]]:
    """(path, symbol, names called in the body) of every function and method with a body."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("tests/") or any(p in _SKIP for p in path.parts) or path.name in _CONFIG:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError) as e:
            raise ManifestError(f"{path}: cannot parse: {e}") from None
        for node in tree.body:
            fns: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                fns.append((node.name, node))
            elif isinstance(node, ast.ClassDef):
                fns += [
                    (f"{node.name}.{f.name}", f)
                    for f in node.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
            for symbol, fn in fns:
                if body_span(fn)[0] == 0:
                    continue
                calls = {
                    n.id if isinstance(n, ast.Name) else n.attr
                    for n in ast.walk(fn)
                    if isinstance(n, ast.Name | ast.Attribute)
                }
                found.append((rel, symbol, calls))
    return found


def make_task(
    source: Path | str,
    dest: Path | str,
    *,
    name: str,
    description: str | None = None,
    duration_s: float = 20.0,
    max_units: int | None = None,
) -> Task:
    """Build a task folder at `dest` from the project at `source`; returns the task.

    Args:
        source: a folder with Python code and a `tests/` folder of pytest tests.
        dest: the task folder to write (must not exist, or be empty).
        name: the task's name (lower-case letters, digits, '_' and '-').
        description: shown to agents; a default one names the units.
        duration_s: modelled virtual duration of one full test run.
        max_units: keep at most this many units (the ones with the most tests).
    """
    source, dest = Path(source).resolve(), Path(dest).resolve()
    if not (source / "tests").is_dir():
        raise ManifestError(f"{source}: no tests/ folder (expected pytest tests in tests/)")
    if dest.exists() and any(dest.iterdir()):
        raise ManifestError(f"{dest}: already exists and is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns(*_SKIP, "*.pyc", "tests", *_CONFIG)
    shutil.copytree(source, dest / "solution", ignore=ignore)
    shutil.copytree(
        source / "tests", dest / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    if (source / "README.md").is_file():
        shutil.copy(source / "README.md", dest / "README.md")
    candidates = _candidate_units(dest / "solution")
    manifest = {
        "name": name,
        "version": 0,
        "suite": "custom",
        "description": description or f"The project {name}: make its tests pass.",
        "tags": ["bring-your-own"],
        "tests": {"paths": ["tests"], "duration_s": duration_s},
        "units": [],
    }
    _write(dest, manifest)
    task = Task(dest)  # no units yet: measure them with the real runner
    units: list[dict] = []
    with ProjectRunner(task) as runner:
        solution = task.solution_files()
        ref = runner.run(solution)
        if ref.verdict != "ok" or not ref.total:
            raise ManifestError(
                f"{source}: the project's tests cannot be run ({ref.error or 'no tests'})"
            )
        passing = {t for t, ok in ref.per_test.items() if ok}
        for rel, symbol, _ in candidates:
            probe = Unit(name=symbol, path=rel, symbol=symbol, tests=["tests"])
            report = runner.run(stub_units(solution, [probe]))
            broken = sorted(t for t, ok in report.per_test.items() if not ok and t in passing)
            if report.verdict == "ok" and broken:
                units.append(
                    {
                        "name": _unit_name(rel, symbol),
                        "path": rel,
                        "symbol": symbol,
                        "tests": broken,
                    }
                )
    if max_units is not None:
        units = sorted(units, key=lambda u: -len(u["tests"]))[:max_units]
    _link_dependencies(units, {(rel, sym): calls for rel, sym, calls in candidates})
    manifest["units"] = units
    if description is None:
        manifest["description"] = (
            f"The project {name}. {len(units)} functions are stubbed out; implement them so "
            "that the tests in tests/ pass (read their docstrings and the tests)."
        )
    _write(dest, manifest)
    return Task(dest)


def _unit_name(rel: str, symbol: str) -> str:
    module = rel.removesuffix(".py").replace("/", ".")
    return f"{module}.{symbol}"


def _link_dependencies(units: list[dict], calls: dict[tuple[str, str], set[str]]) -> None:
    """A unit depends on the units its body names; back edges of cycles are dropped."""
    by_short = {}
    for u in units:
        by_short.setdefault(u["symbol"].split(".")[-1], []).append(u["name"])
    order = {u["name"]: i for i, u in enumerate(units)}
    for u in units:
        names = calls[(u["path"], u["symbol"])]
        deps = {d for n in names for d in by_short.get(n, []) if d != u["name"]}
        # Keep the graph acyclic: depend only on units found earlier in file order.
        u["depends_on"] = sorted(d for d in deps if order[d] < order[u["name"]])


def _write(dest: Path, manifest: dict) -> None:
    (dest / MANIFEST).write_text(tomli_w.dumps(manifest), encoding="utf-8")
