"""Task generators: turn a complete project into task instances.

Stub instances remove the implementation of K units (`swarm_envs.stubbing`); bug instances
inject K mutations that the units' tests detect. `candidates` gives menu mode the right
implementation of a unit and a few wrong-but-plausible ones.
"""

from __future__ import annotations

import ast
import collections
import os
import queue
import random
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

import tomli_w

from swarm_envs.error import InstanceError
from swarm_envs.stubbing import (
    StubError,
    body_span,
    stub_line,
    stub_units,
    targets,
)
from swarm_envs.task import Task, Unit

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Patch:
    """One `edit_file` that turns a stub into the reference implementation."""

    path: str
    old: str
    new: str


def unit_patches(task: Task, unit: Unit) -> list[Patch]:
    """The edits that implement `unit` in the starting state (one per function)."""
    source = (task.solution_dir / unit.path).read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    try:
        found = targets(tree, unit.symbol)
    except StubError as e:
        raise StubError(f"{unit.path}: {e}") from None
    patches = []
    for t in found:
        start, end = body_span(t.fn)
        if start == 0:
            continue
        indent = t.fn.body[-1].col_offset
        patches.append(Patch(unit.path, stub_line(t.name, indent), "".join(lines[start - 1 : end])))
    return patches


# ---------------------------------------------------------------------------- evaluation


class ProjectRunner:
    """Runs a task's canonical tests on arbitrary versions of its project files.

    Used by generators (is a mutant detected?), validation and bring-your-own; it
    goes through the same sandbox and scorer as an episode.

    Args:
        task: the task whose canonical tests run.
        scorer: `"fast"` or `"subprocess"`.
        sandbox: the sandbox backend.
        workers: fork servers of a fast scorer (default: its own default).
        test_timeout_s: a fast scorer's limit on a test that makes no progress; may be
            changed between runs (`runner.test_timeout_s = ...`).
    """

    def __init__(
        self,
        task: Task,
        *,
        scorer: str = "fast",
        sandbox: str = "local",
        workers: int | None = None,
        test_timeout_s: float | None = None,
    ):
        from swarm_envs.sandboxes import make_sandbox
        from swarm_envs.scoring import FastScorer, make_scorer

        self.task = task
        self.sandbox = make_sandbox(sandbox)
        try:
            if scorer == "fast" and (workers or test_timeout_s):
                self.scorer = FastScorer(
                    task, self.sandbox, workers=workers, test_timeout_s=test_timeout_s
                )
            else:
                self.scorer = make_scorer(task, self.sandbox, kind=scorer)
        except BaseException:
            self.sandbox.close()
            raise

    @property
    def test_timeout_s(self) -> float | None:
        """The fast scorer's per-test limit (None for the subprocess scorer)."""
        return getattr(self.scorer, "test_timeout_s", None)

    @test_timeout_s.setter
    def test_timeout_s(self, value: float) -> None:
        if hasattr(self.scorer, "test_timeout_s"):
            self.scorer.test_timeout_s = value

    def run(self, files: dict[str, bytes], selection: list[str] | None = None):
        """A `TestReport` of `selection` (default: all tests) on the project `files`."""
        root = self.sandbox.root
        for child in list(root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self.task.materialize(root, files)
        return self.scorer.evaluate(selection)

    def test_ids(self) -> list[str]:
        return self.scorer.test_ids()

    def close(self) -> None:
        self.scorer.close()
        self.sandbox.close()

    def __enter__(self) -> ProjectRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunnerPool:
    """Several `ProjectRunner`s of one task (one fork server each), run side by side.

    `imap(fn, items)` calls `fn(runner, item)` with a free runner for every item, at most
    one call per runner at a time, and yields the results in the order of `items`.

    Args:
        task: the task.
        size: runners (default: one per CPU, at most 2).
        test_timeout_s: each runner's per-test limit (changeable per call).
    """

    def __init__(self, task: Task, size: int | None = None, test_timeout_s: float | None = None):
        n = size or max(1, min(2, os.cpu_count() or 1))
        self.task = task
        self.runners: list[ProjectRunner] = []
        try:
            for _ in range(n):
                self.runners.append(ProjectRunner(task, workers=1, test_timeout_s=test_timeout_s))
        except BaseException:
            self.close()
            raise

    def imap(self, fn: Callable[[ProjectRunner, T], R], items: Iterable[T]) -> Iterator[R]:
        free: queue.Queue[ProjectRunner] = queue.Queue()
        for r in self.runners:
            free.put(r)

        def call(item: T) -> R:
            runner = free.get()
            try:
                return fn(runner, item)
            finally:
                free.put(runner)

        with ThreadPoolExecutor(len(self.runners), thread_name_prefix="runner") as ex:
            pending: collections.deque[Future[R]] = collections.deque()
            it = iter(items)
            for item in it:
                pending.append(ex.submit(call, item))
                if len(pending) >= len(self.runners):
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    def run_all(
        self, files: dict[str, bytes], selection: Sequence[str] | None = None, *, rotate: int = 0
    ):
        """One `TestReport` of `selection` (default: every test), split over the runners.

        The tests are split by test file into one part per runner; `rotate` shifts which
        runner gets which part (a re-run with `rotate=1` runs every test in other processes).
        """
        from swarm_envs.scoring import TestReport, select_tests

        ids, _ = select_tests(self.runners[0].test_ids(), selection)
        by_file: dict[str, list[str]] = {}
        for t in ids:
            by_file.setdefault(t.split("::")[0], []).append(t)
        parts: list[list[str]] = [[] for _ in self.runners]
        for _, nids in sorted(by_file.items(), key=lambda kv: -len(kv[1])):
            min(parts, key=len).extend(nids)
        n = len(parts)
        jobs = [(i, parts[(i + rotate) % n]) for i in range(n) if parts[(i + rotate) % n]]
        if len(jobs) < 2:
            return self.runners[rotate % n].run(files, list(selection) if selection else None)
        reports = list(self.imap_each(lambda runner, part: runner.run(files, part), jobs))
        per_test: dict[str, bool] = {}
        failures: dict[str, str] = {}
        for rep in reports:
            per_test.update(rep.per_test)
            failures.update(rep.failures)
        bad = [rep for rep in reports if rep.verdict != "ok"]
        return TestReport(
            per_test={t: per_test.get(t, False) for t in ids},
            failures=failures,
            verdict="no_verdict" if bad else "ok",
            error=bad[0].error if bad else None,
            wall_s=max(rep.wall_s for rep in reports),
            cached=all(rep.cached for rep in reports),
            ran=sum(rep.ran for rep in reports),
        )

    def imap_each(
        self, fn: Callable[[ProjectRunner, T], R], jobs: Sequence[tuple[int, T]]
    ) -> list[R]:
        """`fn(runners[i], item)` for every `(i, item)` of `jobs`, all at once."""
        with ThreadPoolExecutor(len(jobs), thread_name_prefix="runner") as ex:
            futures = [ex.submit(fn, self.runners[i], item) for i, item in jobs]
            return [f.result() for f in futures]

    def close(self) -> None:
        for r in self.runners:
            r.close()

    def __enter__(self) -> RunnerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def disjoint_batches(sets: Sequence[frozenset[str]], limit: int = 24) -> list[list[int]]:
    """Indices of `sets` grouped so that the sets of a group are disjoint (in order).

    Stubbing the units of one group at once tells each unit's failures apart: a test of
    the group belongs to exactly one of them.
    """
    groups: list[tuple[list[int], set[str]]] = []
    for i, s in enumerate(sets):
        for members, used in groups:
            if len(members) < limit and used.isdisjoint(s):
                members.append(i)
                used |= s
                break
        else:
            groups.append(([i], set(s)))
    return [g for g, _ in groups]


# ---------------------------------------------------------------------------- mutation

_BINOP_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_CMP_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutation:
    """One small change to one unit: a span of its file replaced by other text."""

    unit: str
    path: str
    kind: str  # operator | comparison | boolean | off_by_one | swap_args | drop_condition
    line: int
    start: tuple[int, int]  # (line, col) of the replaced span, 1-based line
    end: tuple[int, int]
    replacement: str
    original: str

    def describe(self) -> str:
        return f"{self.path}:{self.line} {self.kind}: {self.original!r} -> {self.replacement!r}"

    def apply(self, source: str) -> str:
        lines = source.splitlines(keepends=True)
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line.encode("utf-8")))
        data = source.encode("utf-8")
        a = offsets[self.start[0] - 1] + self.start[1]
        b = offsets[self.end[0] - 1] + self.end[1]
        out = (data[:a] + self.replacement.encode("utf-8") + data[b:]).decode("utf-8")
        ast.parse(out)
        return out


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def mutations(source: str, unit: Unit) -> list[Mutation]:
    """Every single-site mutation inside `unit`'s function(s), in source order."""
    tree = ast.parse(source)
    try:
        fns = [t.fn for t in targets(tree, unit.symbol)]
    except StubError as e:
        raise StubError(f"{unit.path}: {e}") from None
    out: list[Mutation] = []

    def add(kind: str, target: ast.AST, new: ast.AST | str) -> None:
        original = _segment(source, target)
        replacement = new if isinstance(new, str) else ast.unparse(new)
        if replacement == original:
            return
        if isinstance(target, ast.expr) and not isinstance(new, str):
            replacement = f"({replacement})"
        start, end = _span(target)
        out.append(
            Mutation(unit.name, unit.path, kind, target.lineno, start, end, replacement, original)
        )

    for fn in fns:
        body_start, _ = body_span(fn)
        if body_start == 0:
            continue
        for sub in ast.walk(fn):
            if getattr(sub, "lineno", 0) < body_start or isinstance(sub, ast.FunctionDef):
                continue
            if isinstance(sub, ast.BinOp) and type(sub.op) in _BINOP_SWAPS:
                new = ast.BinOp(sub.left, _BINOP_SWAPS[type(sub.op)](), sub.right)
                add("operator", sub, new)
            elif (
                isinstance(sub, ast.Compare)
                and len(sub.ops) == 1
                and type(sub.ops[0]) in _CMP_SWAPS
            ):
                new = ast.Compare(sub.left, [_CMP_SWAPS[type(sub.ops[0])]()], sub.comparators)
                add("comparison", sub, new)
            elif isinstance(sub, ast.BoolOp):
                other = ast.Or() if isinstance(sub.op, ast.And) else ast.And()
                add("boolean", sub, ast.BoolOp(other, sub.values))
            elif isinstance(sub, ast.Constant) and type(sub.value) is int and abs(sub.value) < 1000:
                add("off_by_one", sub, ast.Constant(sub.value + 1))
            elif (
                isinstance(sub, ast.Call)
                and len(sub.args) >= 2
                and not any(isinstance(a, ast.Starred) for a in sub.args[:2])
            ):
                a, b = sub.args[0], sub.args[1]
                if _segment(source, a) != _segment(source, b):
                    new = ast.Call(sub.func, [b, a, *sub.args[2:]], sub.keywords)
                    add("swap_args", sub, new)
            elif isinstance(sub, ast.If | ast.While) and sub.test.lineno == sub.lineno:
                if isinstance(sub.test, ast.UnaryOp) and isinstance(sub.test.op, ast.Not):
                    add("drop_condition", sub.test, _segment(source, sub.test.operand))
                elif isinstance(sub, ast.If):
                    add("drop_condition", sub.test, "True" if not sub.orelse else "False")
    # Several walks can propose the same span (a BoolOp inside an If test): keep one.
    seen: set[tuple] = set()
    unique = []
    for m in out:
        key = (m.start, m.end, m.replacement)
        if key not in seen:
            seen.add(key)
            unique.append(m)
    return unique


def detected_mutants(
    runner: ProjectRunner,
    unit: Unit,
    files: dict[str, bytes],
    rng: random.Random,
    limit: int,
    max_tries: int = 40,
) -> list[tuple[Mutation, dict[str, bytes]]]:
    """Up to `limit` mutants of `unit` (applied to `files`) that its tests detect."""
    source = files[unit.path].decode("utf-8")
    candidates = mutations(source, unit)
    rng.shuffle(candidates)
    found = []
    for m in candidates[:max_tries]:
        try:
            mutated = {**files, unit.path: m.apply(source).encode("utf-8")}
        except SyntaxError:
            continue
        report = runner.run(mutated, list(unit.tests))
        if report.verdict == "ok" and report.passed < report.total:
            found.append((m, mutated))
            if len(found) >= limit:
                break
    return found


# ---------------------------------------------------------------------------- instances

InstanceKind = Literal["stub", "bug"]


def instance_name(task: Task, kind: InstanceKind, k: int, seed: int) -> str:
    """The name of a generated instance, e.g. `calc_stub3_s7`."""
    return f"{task.name}_{kind}{k}_s{seed}"


def generate(
    task: Task,
    kind: InstanceKind = "stub",
    k: int = 3,
    seed: int = 0,
    dest: Path | None = None,
    *,
    runner: ProjectRunner | None = None,
) -> Task:
    """Make one task instance from a complete project, reproducibly.

    - `stub`: K units (chosen by `seed`) lose their implementation; the others are
      the reference. Signatures and docstrings stay.
    - `bug`: K units each get one mutation (operator, comparison, boolean, off by
      one, swapped arguments, dropped condition) that their tests detect.

    The instance is a task folder (manifest, README, solution, tests and `start/`),
    registered so that `parallel_env(instance.id)` finds it.

    Args:
        task: a task whose `solution/` is the complete project.
        kind: "stub" or "bug".
        k: number of units to stub or break (at most the number of units).
        seed: the same seed gives the same instance.
        dest: folder to write (default: a cache folder under the user's cache dir).
        runner: a `ProjectRunner` to reuse (bug instances run tests).
    """
    from swarm_envs.task import register_task

    if kind not in ("stub", "bug"):
        raise InstanceError(f"kind={kind!r}: expected 'stub' or 'bug'")
    units = list(task.units)
    if not 1 <= k <= len(units):
        raise InstanceError(
            f"k={k}: expected 1..{len(units)} (the task {task.id} has {len(units)} units)"
        )
    rng = random.Random(f"{task.id}:{kind}:{k}:{seed}")
    name = instance_name(task, kind, k, seed)
    dest = Path(dest) if dest is not None else _cache_dir() / name
    solution = task.solution_files()
    chosen: list[Unit]
    notes: list[str] = []
    if kind == "stub":
        chosen = rng.sample(units, k)
        start = stub_units(solution, chosen)
    else:
        own = runner is None
        runner = runner or ProjectRunner(task)
        try:
            start = dict(solution)
            chosen = []
            for unit in rng.sample(units, len(units)):
                found = detected_mutants(runner, unit, start, rng, limit=1)
                if found:
                    m, start = found[0]
                    chosen.append(unit)
                    notes.append(m.describe())
                if len(chosen) == k:
                    break
        finally:
            if own:
                runner.close()
        if len(chosen) < k:
            raise InstanceError(
                f"k={k}: only {len(chosen)} units of {task.id} have mutants that their tests "
                f"detect; use k <= {len(chosen)}"
            )
    _write_instance(task, dest, name, kind, chosen, start, notes)
    return register_task(dest)


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "swarm_envs" / "instances"


def _write_instance(
    task: Task,
    dest: Path,
    name: str,
    kind: str,
    chosen: list[Unit],
    start: dict[str, bytes],
    notes: list[str],
) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "start").mkdir(parents=True)
    shutil.copytree(
        task.solution_dir, dest / "solution", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(task.tests_dir, dest / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    readme = task.root / "README.md"
    if readme.is_file():
        shutil.copy(readme, dest / "README.md")
    for rel, data in start.items():
        p = dest / "start" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    m = task.manifest
    what = "are stubbed out" if kind == "stub" else "have a bug"
    manifest = m.model_dump(mode="json", exclude_none=True)
    keep = {u.name for u in chosen}
    manifest.update(
        name=name,
        suite="custom",
        description=(
            m.description.strip()
            + f"\n\nIn this instance {len(chosen)} units {what}: "
            + ", ".join(sorted(keep))
            + "."
        ),
        tags=[*m.tags, f"generated:{kind}"],
        units=[
            {**u.model_dump(mode="json"), "depends_on": [d for d in u.depends_on if d in keep]}
            for u in m.units
            if u.name in keep
        ],
    )
    (dest / "task.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    if notes:
        (dest / "MUTATIONS.txt").write_text("\n".join(notes) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    """One implementation of a unit: the right one or a plausible wrong one."""

    unit: str
    correct: bool
    patches: tuple[tuple[str, str, str], ...]  # (path, old, new) edits of the starting state
    note: str = "reference"


def candidates(
    task: Task, unit: Unit, n_wrong: int = 3, seed: int = 0, *, runner: ProjectRunner | None = None
) -> list[Candidate]:
    """The right implementation of `unit` and up to `n_wrong` detected-wrong ones, shuffled.

    Each candidate is a list of `edit_file` patches that replace the unit's stubs
    in the starting state. Wrong candidates are mutants that the unit's tests
    detect, so choosing among them is a real decision.
    """
    rng = random.Random(f"{task.id}:{unit.name}:{seed}")
    right = unit_patches(task, unit)
    out = [Candidate(unit.name, True, tuple((p.path, p.old, p.new) for p in right))]
    own = runner is None
    runner = runner or ProjectRunner(task)
    try:
        for m, mutated in detected_mutants(runner, unit, task.solution_files(), rng, n_wrong):
            wrong_task_source = mutated[unit.path].decode("utf-8")
            patches = _patches_from(wrong_task_source, unit, right)
            out.append(Candidate(unit.name, False, patches, m.describe()))
    finally:
        if own:
            runner.close()
    rng.shuffle(out)
    return out


def _patches_from(source: str, unit: Unit, right: list) -> tuple[tuple[str, str, str], ...]:
    # The mutated function bodies, cut exactly as the right patches are.
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    bodies = []
    for t in targets(tree, unit.symbol):
        start, end = body_span(t.fn)
        if start:
            bodies.append("".join(lines[start - 1 : end]))
    return tuple((p.path, p.old, body) for p, body in zip(right, bodies, strict=True))
