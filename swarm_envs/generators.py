"""Task generators: turn a complete project into task instances.

`stub_units` removes the implementation of units (keeping signatures and
docstrings), which is also how a bundled task without a `start/` folder gets its
starting state.
"""

from __future__ import annotations

import ast
import os
import random
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import tomli_w

from swarm_envs.error import ManifestError
from swarm_envs.task import Task, Unit

if TYPE_CHECKING:
    from swarm_envs.scoring.runner import ProjectRunner

STUB_MESSAGE = "not implemented yet: {name}"
STUB_EXCEPTION = "NotImplementedError"


def stub_line(name: str, indent: int) -> str:
    """The line that replaces the body of a stubbed function (`name`: its qualified name)."""
    return " " * indent + f"raise {STUB_EXCEPTION}({STUB_MESSAGE.format(name=name)!r})\n"


def find_symbol(tree: ast.Module, symbol: str) -> ast.AST | None:
    """The function, class or method `symbol` ('f', 'C' or 'C.m') of a module, or None."""
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in symbol.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        scope = node.body if isinstance(node, ast.ClassDef) else []
    return node


def body_span(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """First and last line (1-based) of the body after the docstring."""
    body = fn.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not body:
        return (0, 0)
    return body[0].lineno, max(n.end_lineno or n.lineno for n in body)


def functions_of(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The function itself, or every method of a class."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node]
    assert isinstance(node, ast.ClassDef)
    return [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def stub_source(source: str, symbols: Iterable[str], *, path: str = "<source>") -> str:
    """Replace the bodies of `symbols` (functions, methods, or every method of a class).

    Line-based so that comments and formatting elsewhere survive; the docstring and
    signature of each stubbed function stay, the body becomes a `raise`.
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans: list[tuple[int, int, int, str]] = []
    for symbol in symbols:
        node = find_symbol(tree, symbol)
        if node is None:
            raise ManifestError(f"{path}: no function, method or class named {symbol!r}")
        for fn in functions_of(node):
            start, end = body_span(fn)
            if start == 0:
                continue
            indent = fn.body[-1].col_offset
            spans.append(
                (
                    start,
                    end,
                    indent,
                    f"{symbol.split('.')[0]}.{fn.name}"
                    if isinstance(node, ast.ClassDef)
                    else symbol,
                )
            )
    # Bottom-up so that earlier line numbers stay valid.
    for start, end, indent, name in sorted(set(spans), reverse=True):
        lines[start - 1 : end] = [stub_line(name, indent)]
    out = "".join(lines)
    ast.parse(out)  # a stub must never break the module
    return out


def stub_units(files: dict[str, bytes], units: Iterable[Unit]) -> dict[str, bytes]:
    """Return a copy of `files` with every unit in `units` stubbed out."""
    by_path: dict[str, list[str]] = {}
    for u in units:
        by_path.setdefault(u.path, []).append(u.symbol)
    out = dict(files)
    for path, symbols in by_path.items():
        if path not in out:
            raise ManifestError(f"unit path {path!r} is not a file of the project")
        src = out[path].decode("utf-8")
        out[path] = stub_source(src, symbols, path=path).encode("utf-8")
    return out


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
    node = find_symbol(tree, unit.symbol)
    if node is None:
        raise ValueError(f"{unit.path}: no {unit.symbol!r}")
    patches = []
    for fn in functions_of(node):
        start, end = body_span(fn)
        if start == 0:
            continue
        indent = fn.body[-1].col_offset
        name = (
            f"{unit.symbol.split('.')[0]}.{fn.name}"
            if isinstance(node, ast.ClassDef)
            else unit.symbol
        )
        old = stub_line(name, indent)
        patches.append(Patch(unit.path, old, "".join(lines[start - 1 : end])))
    return patches


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
    node = find_symbol(tree, unit.symbol)
    if node is None:
        raise ManifestError(f"{unit.path}: no function, method or class named {unit.symbol!r}")
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

    for fn in functions_of(node):
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
        raise ValueError(f"kind={kind!r}: expected 'stub' or 'bug'")
    units = list(task.units)
    if not 1 <= k <= len(units):
        raise ValueError(f"k={k}: expected 1..{len(units)} (the task has {len(units)} units)")
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
        if runner is None:
            from swarm_envs.scoring.runner import ProjectRunner

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
        finally:
            if own:
                runner.close()
        if len(chosen) < k:
            raise ValueError(f"{task.id}: only {len(chosen)} units have detectable mutants (k={k})")
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
    if runner is None:
        from swarm_envs.scoring.runner import ProjectRunner

        runner = ProjectRunner(task)
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
    node = find_symbol(tree, unit.symbol)
    assert node is not None
    lines = source.splitlines(keepends=True)
    bodies = []
    for fn in functions_of(node):
        start, end = body_span(fn)
        if start:
            bodies.append("".join(lines[start - 1 : end]))
    return tuple((p.path, p.old, body) for p, body in zip(right, bodies, strict=True))
