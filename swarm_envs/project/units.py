"""Finding a project's units: candidates, the tests that reach them, and probes that confirm.

A candidate is a module-level function or a method with a body to implement (a property's
getter and setter are one candidate). The instrumented run of the reference says which
tests execute it: those are its tests. A candidate that runs while modules are imported (a
table built at import time) is not offered, since its stub would break the import. A probe
stubs candidates and runs some of their tests: a candidate is a unit when its stub fails at
least one of them. Candidates whose probed tests are disjoint share a probe (a test reaches
at most one of them, so each failure has one cause), and probes run in parallel on the
scorer's workers, each with a time limit derived from the reference's own timings (a stubbed
lock helper makes a test wait: it is cut short, not waited out).
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field

from swarm_envs.core.pysource import parse
from swarm_envs.generation.generators import disjoint_batches
from swarm_envs.project.layout import Note
from swarm_envs.project.profile import ReferenceProfile
from swarm_envs.scoring import TestReport
from swarm_envs.scoring.runner import ProjectRunner, RunnerPool
from swarm_envs.tasks.stubbing import (
    StubError,
    def_span,
    implementation,
    iter_functions,
    stub_source,
    stub_units,
)

Progress = Callable[[str, int, int], None]


@dataclass
class Candidate:
    """A function or method that may become a unit."""

    name: str
    path: str
    symbol: str
    line: int
    spans: list[tuple[int, int]]
    tests: list[str] = field(default_factory=list)  # tests that execute it (reference run)

    @property
    def where(self) -> str:
        """`path:line` of its first definition, for messages."""
        return f"{self.path}:{self.line}"


def unit_name(path: str, symbol: str) -> str:
    """`pkg/lexer.py`, `Lexer.next` -> `pkg.lexer.Lexer.next`."""
    module = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    return f"{module}.{symbol}"


def _trivial(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Nothing to implement: only `pass`, `...` or `raise NotImplementedError`."""
    for stmt in implementation(fn):
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True


def find_candidates(solution: dict[str, bytes], notes: list[Note]) -> list[Candidate]:
    """Every function and method of the project with a body to implement, in file order."""
    out: list[Candidate] = []
    for path in sorted(p for p in solution if p.endswith(".py")):
        try:
            source = solution[path].decode("utf-8")
            tree = parse(source)
        except (UnicodeDecodeError, SyntaxError, ValueError) as e:
            line = getattr(e, "lineno", 0) or 0
            notes.append(Note("warning", f"{path}:{line}", f"cannot be parsed, no units: {e}"))
            continue
        groups: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for symbol, fn in iter_functions(tree):
            groups.setdefault(symbol, []).append(fn)
        offered = [sym for sym, fns in groups.items() if not all(_trivial(fn) for fn in fns)]
        try:
            stub_source(source, offered, path=path)  # all at once: the common case
            stubbable = set(offered)
        except StubError:
            stubbable = set()
            for symbol in offered:
                try:
                    stub_source(source, [symbol], path=path)
                    stubbable.add(symbol)
                except StubError as e:
                    line = groups[symbol][0].lineno
                    notes.append(Note("warning", f"{path}:{line} {symbol}", f"skipped: {e}"))
        for symbol in offered:
            if symbol in stubbable:
                fns = groups[symbol]
                spans = [def_span(fn) for fn in fns]
                out.append(Candidate(unit_name(path, symbol), path, symbol, fns[0].lineno, spans))
    return out


class _Locator:
    """Which candidate a code location (file, first line) belongs to."""

    def __init__(self, candidates: Sequence[Candidate]):
        self._by_file: dict[str, tuple[list[int], list[tuple[int, int, Candidate]]]] = {}
        spans: dict[str, list[tuple[int, int, Candidate]]] = {}
        for c in candidates:
            for first, last in c.spans:
                spans.setdefault(c.path, []).append((first, last, c))
        for path, items in spans.items():
            items.sort(key=lambda s: s[0])
            self._by_file[path] = ([s[0] for s in items], items)

    def find(self, path: str, line: int) -> Candidate | None:
        hit = self._by_file.get(path)
        if hit is None:
            return None
        starts, items = hit
        i = bisect.bisect_right(starts, line) - 1
        if i >= 0 and items[i][0] <= line <= items[i][1]:
            return items[i][2]
        return None


def map_tests(
    candidates: list[Candidate],
    profile: ReferenceProfile,
    notes: list[Note],
    deselected: Collection[str] = (),
) -> list[Candidate]:
    """Fill each candidate's `tests` from the reference run; drop those run at import.

    Only tests that passed in the reference run and are not `deselected` count.
    """
    where = _Locator(candidates)
    at_import: dict[str, Candidate] = {}
    for path, line in profile.imports:
        c = where.find(path, line)
        if c is not None:
            at_import[c.name] = c
    for nid, t in profile.tests.items():
        if t.outcome != "passed" or nid in deselected:
            continue
        for path, line in t.executed:
            c = where.find(path, line)
            if c is not None and (not c.tests or c.tests[-1] != nid):
                c.tests.append(nid)
    for c in candidates:
        c.tests = sorted(set(c.tests), key=lambda t: profile.rank.get(t, 1 << 30))
    for c in sorted(at_import.values(), key=lambda c: (c.path, c.line)):
        notes.append(
            Note(
                "warning",
                f"{c.where} {c.symbol}",
                "not offered: it runs while modules are imported or tests are collected, so "
                "its stub would break the import",
            )
        )
    return [c for c in candidates if c.name not in at_import and c.tests]


def probe_limit(tests: Sequence[str], profile: ReferenceProfile, ceiling: float) -> float:
    """Seconds a probed test may make no progress: a margin over the slowest reference time."""
    slowest = max((profile.tests[t].duration for t in tests if t in profile.tests), default=0.0)
    return min(ceiling, max(2.0, 5 * slowest + 1.0))


def probe(
    pool: RunnerPool,
    solution: dict[str, bytes],
    candidates: Sequence[Candidate],
    profile: ReferenceProfile,
    *,
    max_units: int | None = None,
    first: int = 2,
    progress: Progress | None = None,
) -> tuple[dict[str, list[str]], set[str], list[Note]]:
    """({unit name: the tests that execute it}, names probed, notes) of confirmed units.

    A candidate is confirmed when stubbing it fails some of the tests that execute it. Each
    is tried first with its `first` quickest tests (by the reference's timings) and only if
    none of them fails with all of its tests; candidates whose tried tests are disjoint
    share a run. Candidates are tried in the order given (most-tested first gives
    `max_units` the most useful ones); with `max_units`, probing stops once that many are
    confirmed.
    """
    ordered = list(candidates)
    ceiling = pool.task.manifest.tests.timeout_s
    rank = profile.rank

    def quickest(c: Candidate) -> list[str]:
        timed = sorted(c.tests, key=lambda t: (profile.tests[t].duration, rank.get(t, 0)))
        return sorted(timed[:first], key=lambda t: rank.get(t, 1 << 30))

    executes = {c.name: frozenset(c.tests) for c in ordered}
    found: dict[str, list[str]] = {}
    probed: set[str] = set()
    failed: set[str] = set()
    notes: list[Note] = []

    def run(runner: ProjectRunner, group: list[tuple[Candidate, list[str]]]) -> tuple:
        tests = sorted({t for _, ts in group for t in ts}, key=lambda t: rank.get(t, 1 << 30))
        runner.test_timeout_s = probe_limit(tests, profile, ceiling)
        return group, runner.run(stub_units(solution, [c for c, _ in group]), tests)

    def rounds(tries: list[tuple[Candidate, list[str]]]) -> Iterator[list]:
        sets = [frozenset(ts) for _, ts in tries]
        for g in disjoint_batches(sets, limit=64):
            if max_units is not None and len(found) >= max_units:
                return
            yield [tries[i] for i in g]

    def judge(group: list[tuple[Candidate, list[str]]], report: TestReport, last: bool) -> list:
        """Record what a run says of each candidate; those it cannot tell apart come back."""
        unclear = []
        for c, tests in group:
            if report.verdict != "ok":
                failed.add(c.name)
                notes.append(
                    Note("warning", f"{c.where} {c.symbol}", f"not probed: {report.error}")
                )
            elif broken := [t for t in tests if not report.per_test.get(t, False)]:
                # A tried test of one candidate may execute another stubbed in the same run
                # (the runs share only tried tests that are disjoint): a failure proves this
                # candidate only if the test executes no other of the run.
                others = [executes[o.name] for o, _ in group if o is not c]
                if any(all(t not in o for o in others) for t in broken):
                    found[c.name] = list(c.tests)
                else:
                    unclear.append((c, tests))
                    continue
            if last or c.name in found or c.name in failed:
                probed.add(c.name)
        return unclear

    def collect(tries: list[tuple[Candidate, list[str]]], last: bool) -> None:
        unclear = []
        for group, report in pool.imap(run, rounds(tries)):
            unclear += judge(group, report, last)
            if progress is not None:
                progress("probing units", len(probed), len(ordered))
        for group, report in pool.imap(run, ([one] for one in unclear)):  # each alone
            judge(group, report, last)

    collect([(c, quickest(c)) for c in ordered], last=False)
    rest = [c for c in ordered if c.name not in found and c.name not in failed]
    collect([(c, list(c.tests)) for c in rest if len(c.tests) > first], last=True)
    probed.update(c.name for c in rest)
    if progress is not None:
        progress("probing units", len(ordered), len(ordered))
    if max_units is not None and len(found) > max_units:
        keep = [c.name for c in ordered if c.name in found][:max_units]
        found = {n: found[n] for n in keep}
    return found, probed, notes
