"""Task generators: turn a complete project into task instances.

Stub instances remove the implementation of K units (`swarm_envs.tasks.stubbing`); bug instances
inject K mutations that the units' tests detect. `candidates` gives menu mode the right
implementation of a unit and a few wrong-but-plausible ones.
"""

from __future__ import annotations

import ast
import random
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tomli_w

from swarm_envs import cache
from swarm_envs.core.pysource import parse
from swarm_envs.error import InstanceError
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import Task, Unit
from swarm_envs.tasks.stubbing import StubError, body_start, definition_texts, stub_units, targets


@dataclass(frozen=True)
class Patch:
    """One `edit_file` that turns a stub into the reference implementation."""

    path: str
    old: str
    new: str


def unit_patches(task: Task, unit: Unit, target: str | None = None) -> list[Patch]:
    """The edits that turn `unit` in the task's starting state into its reference version.

    One `edit_file` per function of the unit that differs, made from the instance's own
    starting state (a stub, or a function with an injected bug), each an exact replacement
    that matches once in the starting file.

    Args:
        task: the task (or generated instance).
        unit: one of its units.
        target: the unit's file in another version to turn it into (default: the reference).
    """
    have = task.start_files().get(unit.path)
    if have is None:
        raise StubError(f"{unit.path}: not a file of the starting state of {task.id}")
    start = have.decode("utf-8")
    want = target if target is not None else (task.solution_dir / unit.path).read_text("utf-8")
    old_defs = definition_texts(start, unit.symbol)
    new_defs = definition_texts(want, unit.symbol)
    if len(old_defs) != len(new_defs):
        raise StubError(
            f"{unit.path}: {unit.symbol!r} has {len(old_defs)} definitions in the starting "
            f"state and {len(new_defs)} in the other version"
        )
    return [
        _hunk(unit.path, a, b, start) for a, b in zip(old_defs, new_defs, strict=True) if a != b
    ]


def _hunk(path: str, old_def: str, new_def: str, file_text: str) -> Patch:
    """The smallest run of whole lines that differs, widened until it matches once."""
    a, b = old_def.splitlines(keepends=True), new_def.splitlines(keepends=True)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    lo, hi = head, tail  # lines kept in common at each end
    while True:
        old = "".join(a[lo : len(a) - hi])
        if old and file_text.count(old) == 1 or (lo == 0 and hi == 0):
            return Patch(path, old, "".join(b[lo : len(b) - hi]))
        lo, hi = max(0, lo - 1), max(0, hi - 1)


# ---------------------------------------------------------------------------- batching


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
        """One line saying where the mutation is and what it changes."""
        return f"{self.path}:{self.line} {self.kind}: {self.original!r} -> {self.replacement!r}"

    def apply(self, source: str) -> str:
        """`source` with this mutation applied (at its line and column)."""
        lines = source.splitlines(keepends=True)
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line.encode("utf-8")))
        data = source.encode("utf-8")
        a = offsets[self.start[0] - 1] + self.start[1]
        b = offsets[self.end[0] - 1] + self.end[1]
        out = (data[:a] + self.replacement.encode("utf-8") + data[b:]).decode("utf-8")
        parse(out)
        return out


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def mutations(source: str, unit: Unit) -> list[Mutation]:
    """Every single-site mutation inside `unit`'s function(s), in source order."""
    tree = parse(source)
    try:
        fns = [t.fn for t in targets(tree, unit.symbol)]
    except StubError as e:
        raise StubError(f"{unit.path}: {e}") from None
    out: list[Mutation] = []

    def add(kind: str, target: ast.expr | ast.stmt, new: ast.AST | str) -> None:
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
        first = body_start(fn)
        if first == (0, 0):
            continue
        for sub in ast.walk(fn):
            at = (getattr(sub, "lineno", 0), getattr(sub, "col_offset", 0))
            if at < first or isinstance(sub, ast.FunctionDef):
                continue
            new: ast.AST
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
    """Up to `limit` mutants of `unit` (applied to `files`) that its tests detect.

    A mutant that makes a test hang is detected only by the scorer killing that test,
    which costs the per-test limit (10 s by default) at every evaluation with the mutant
    in place: in menu mode, where nearly every move is an evaluation, one such candidate
    made structkit's rollouts many times slower. Such mutants are left out.
    """
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
        if report.verdict == "ok" and report.passed < report.total and not report.hung:
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
    from swarm_envs.tasks import register_task

    if kind not in ("stub", "bug"):
        raise InstanceError(f"kind={kind!r}: expected 'stub' or 'bug'")
    units = list(task.units)
    if not 1 <= k <= len(units):
        raise InstanceError(
            f"k={k}: expected 1..{len(units)} (the task {task.id} has {len(units)} units)"
        )
    rng = random.Random(f"{task.id}:{kind}:{k}:{seed}")
    name = instance_name(task, kind, k, seed)
    counts: tuple[int, int] | None = None
    dest = Path(dest) if dest is not None else _cache_dir() / name
    solution = task.solution_files()
    chosen: list[Unit]
    notes: list[str] = []
    if kind == "stub":
        chosen = rng.sample(units, k)
        start = stub_units(solution, chosen)
    else:
        own = runner is None
        if runner is None:
            runner = ProjectRunner(task)
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
            if len(chosen) < k:
                raise InstanceError(
                    f"k={k}: only {len(chosen)} units of {task.id} have mutants that their "
                    f"tests detect; use k <= {len(chosen)}"
                )
            at_start = runner.run(start)
            counts = (at_start.passed, at_start.total) if at_start.verdict == "ok" else None
        finally:
            if own:
                runner.close()
    description = instance_description(task, kind, chosen, counts if kind == "bug" else None)
    _write_instance(task, dest, name, kind, chosen, start, notes, description)
    return register_task(dest)


_ABOUT_THE_START = re.compile(r"\b(stub|implement|docstring|not implemented)", re.IGNORECASE)


def project_summary(task: Task) -> str:
    """The task's description without what it says about its starting state.

    A bundled description tells what the project is and then what to do with the stubs
    ("Four functions are stubbed out: implement them"); an instance's starting state is
    another one, so only the first part carries over.
    """
    text = " ".join(task.manifest.description.split())
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z(`])", text)
    kept = [s for s in sentences if not _ABOUT_THE_START.search(s)]
    return " ".join(kept).strip() or f"The project {task.name}."


def instance_description(
    task: Task, kind: str, chosen: Sequence[Unit], counts: tuple[int, int] | None = None
) -> str:
    """What is true of a generated instance: the project, then its starting state.

    Args:
        task: the task the instance comes from.
        kind: "stub" or "bug".
        chosen: the units stubbed out or given a bug.
        counts: (passing, total) tests of the starting state, when they were measured.
    """
    names = ", ".join(sorted(u.name for u in chosen))
    n = len(chosen)
    if kind == "stub":
        what = (
            f"In this instance {n} unit{'s are' if n != 1 else ' is'} stubbed out (signature "
            f"and docstring kept, the body raises NotImplementedError): {names}. Implement "
            f"{'them' if n != 1 else 'it'} so that every test in tests/ passes; the rest of "
            "the project is complete."
        )
    else:
        have = "units have" if n != 1 else "unit has"
        what = f"In this instance the project is complete, but {n} {have} a bug: {names}."
        if counts is not None:
            what += f" {counts[1] - counts[0]} of the {counts[1]} tests fail at the start."
        what += " Find and fix the bugs so that every test in tests/ passes."
    return f"{project_summary(task)}\n\n{what}"


def _cache_dir() -> Path:
    return cache.folder("instances")


def _write_instance(
    task: Task,
    dest: Path,
    name: str,
    kind: str,
    chosen: list[Unit],
    start: dict[str, bytes],
    notes: list[str],
    description: str,
) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "start").mkdir(parents=True)
    shutil.copytree(
        task.solution_dir, dest / "solution", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(task.tests_dir, dest / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for entry in task.manifest.tests.held_out:  # an instance keeps the held-out tests
        src = task.root / entry
        if src.is_dir():
            shutil.copytree(src, dest / entry, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dest / entry).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest / entry)
    readme = task.root / "README.md"
    if readme.is_file():
        shutil.copy(readme, dest / "README.md")
    wheels = task.root / "wheels"  # its requirements install from them, as the task's do
    if wheels.is_dir():
        shutil.copytree(wheels, dest / "wheels")
    for rel, data in start.items():
        p = dest / "start" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    m = task.manifest
    manifest = m.model_dump(mode="json", exclude_none=True)
    keep = {u.name for u in chosen}
    manifest.update(
        name=name,
        suite="custom",
        description=description,
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

    Each candidate is a list of `edit_file` patches of the starting state. Wrong
    candidates are mutants that the unit's tests detect, so choosing among them is a real
    decision.
    """
    rng = random.Random(f"{task.id}:{unit.name}:{seed}")
    right = unit_patches(task, unit)
    out = [Candidate(unit.name, True, tuple((p.path, p.old, p.new) for p in right))]
    own = runner is None
    if runner is None:
        runner = ProjectRunner(task)
    try:
        for m, mutated in detected_mutants(runner, unit, task.solution_files(), rng, n_wrong):
            wrong = unit_patches(task, unit, target=mutated[unit.path].decode("utf-8"))
            patches = tuple((p.path, p.old, p.new) for p in wrong)
            out.append(Candidate(unit.name, False, patches, m.describe()))
    finally:
        if own:
            runner.close()
    rng.shuffle(out)
    return out
