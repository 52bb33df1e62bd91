"""Task validation: is a task a fair, measurable and deterministic problem.

Checks, each through the real sandbox and scorer:

1. the reference solution passes every test, held-out tests included (a test it skips or
   xfails here fails: a skip is not a pass; such tests belong in the manifest's
   `tests.deselect`);
2. the reference passes the same tests twice, the second time in other worker processes
   (determinism, and test ids that are the same in every process);
3. each test passes alone as it does in the suite (order dependence: a test that passes
   only after an earlier test filled a module-level cache would score otherwise in a run
   of part of the suite); a deterministic sample, at most `ALONE_PER_MODULE` tests of a
   test module and `ALONE_PER_TASK` of the task (`alone_sample`), checked once the
   reference passed everything twice;
4. the starting state collects (every canonical test is reported) and passes a known
   number of tests, failing the rest;
5. every unit's tests are sensitive to it: with that unit stubbed out, at least one of its
   tests fails. Units whose tests are disjoint are checked in one run (each failing test
   belongs to exactly one of them), and runs go to both runners at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from swarm_envs.generation.generators import disjoint_batches
from swarm_envs.scoring import TestReport, select_tests
from swarm_envs.scoring.runner import ProjectRunner, RunnerPool
from swarm_envs.tasks import Task
from swarm_envs.tasks.stubbing import stub_units

Progress = Callable[[str, int, int], None]


@dataclass
class ValidationReport:
    """The outcome of validating one task."""

    task: str
    tests: int = 0
    units: int = 0
    start_passing: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: tests whose outcome differed between the reference's two runs (the determinism check)
    flaky: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def validate(
    task: Task,
    *,
    scorer: str = "fast",
    check_units: bool = True,
    check_order: bool = True,
    progress: Progress | None = None,
) -> ValidationReport:
    """Validate `task`; the report lists every problem found (empty: valid).

    `check_units`: check 5 of the module docstring; `check_order`: check 3 (measured by
    benchmarks/bench_validation.py).
    """
    t0 = time.perf_counter()
    rep = ValidationReport(task.id, units=len(task.units))
    # Every verdict of validation is made by a run now: its scorers keep nothing on disk and
    # share no outcome with other scorers of the process (a cached entry of a damaged
    # harness must not make a task invalid, nor a valid one of a task that is not).
    pool = RunnerPool(task, cache=False) if scorer == "fast" else None
    runners = (
        pool.runners if pool is not None else [ProjectRunner(task, scorer=scorer, cache=False)]
    )
    try:
        _validate(task, runners, pool, rep, check_units, check_order, progress)
    finally:
        for r in runners:
            r.close()
    rep.seconds = time.perf_counter() - t0
    return rep


def _validate(
    task: Task,
    runners: list[ProjectRunner],
    pool: RunnerPool | None,
    rep: ValidationReport,
    check_units: bool,
    check_order: bool,
    progress: Progress | None,
) -> None:
    first = runners[0]
    ids = first.test_ids()
    rep.tests = len(ids)
    if not ids:
        rep.problems.append("no tests were collected from the reference solution")
        return

    def run_all(
        files: dict[str, bytes], rotate: int = 0, held_out: bool = False, fresh: bool = False
    ) -> TestReport:
        if pool is not None:
            return pool.run_all(files, rotate=rotate, held_out=held_out, fresh=fresh)
        return runners[rotate % len(runners)].run(files, held_out=held_out, fresh=fresh)

    solution = task.solution_files()
    # The reference is judged by runs made now (`fresh`, and scorers without a cache on
    # disk). Held-out tests must pass too.
    ref = run_all(solution, held_out=True, fresh=True)
    if ref.verdict != "ok":
        rep.problems.append(f"reference: no verdict ({ref.error})")
        return
    rep.problems += not_run(ref, "the reference run")
    rep.problems += reference_problems(ref.per_test, ref.failures)
    # Determinism: a second, uncached run of the same files, each test in other worker
    # processes than the first time (ids that differ between processes show up too).
    again = run_all({**solution, "validation_nonce.txt": b"1"}, rotate=1, held_out=True, fresh=True)
    rep.problems += not_run(again, "the determinism re-run")
    if again.per_test != ref.per_test:
        flaky = [t for t in ref.per_test if ref.per_test[t] != again.per_test.get(t)]
        rep.flaky = flaky
        rep.problems.append(
            f"{len(flaky)} tests are not deterministic (or their ids differ between test "
            f"processes), e.g. {flaky[0]}"
        )
    if check_order and not rep.problems:
        rep.problems += order_problems(runners, pool, solution, ids, ref.per_test, progress)
    start = run_all(task.start_files())
    if start.verdict != "ok":
        rep.problems.append(f"starting state: no verdict ({start.error})")
    else:
        rep.start_passing = start.passed
        if start.passed == start.total:
            rep.problems.append("the starting state already passes every test")
    if check_units and task.units:
        # A stubbed test that makes no progress for longer than the whole reference run took
        # (with a margin) is hung, e.g. waiting on a lock the stub never releases.
        limit = min(task.manifest.tests.timeout_s, max(2.0, 2 * ref.wall_s))
        for r in runners:
            r.test_timeout_s = limit
        rep.problems += unit_problems(task, runners, ids, solution, pool, progress)


#: order dependence: at most this many tests of one test module are run alone, and at most
#: this many of the whole task
ALONE_PER_MODULE = 20
ALONE_PER_TASK = 100


def alone_sample(
    ids: list[str], per_module: int = ALONE_PER_MODULE, per_task: int = ALONE_PER_TASK
) -> list[str]:
    """The tests validation runs alone: a deterministic sample, in suite order.

    Per test module, `per_module` tests evenly spaced from its first to its last; then,
    over the modules in turn, one test each, each module's last first (a test that
    depends on earlier ones is more likely late in its module), until `per_task` are
    taken.
    """
    by_module: dict[str, list[str]] = {}
    for t in ids:
        by_module.setdefault(t.split("::")[0], []).append(t)
    picks: list[list[str]] = []
    for tests in by_module.values():
        n, k = len(tests), max(1, per_module)
        if n <= k:
            picks.append(tests)
        else:
            at = sorted({round(i * (n - 1) / (k - 1)) for i in range(k)} if k > 1 else {n - 1})
            picks.append([tests[i] for i in at])
    chosen: set[str] = set()
    for rank in range(max((len(p) for p in picks), default=0)):
        for p in picks:  # each module's last test first, then the one before it...
            if rank < len(p) and len(chosen) < per_task:
                chosen.add(p[len(p) - 1 - rank])
    return [t for t in ids if t in chosen]


def order_problems(
    runners: list[ProjectRunner],
    pool: RunnerPool | None,
    solution: dict[str, bytes],
    ids: list[str],
    suite: dict[str, bool],
    progress: Progress | None = None,
) -> list[str]:
    """Tests whose outcome alone differs from the one in the whole suite (`alone_sample`).

    Such a test depends on what earlier tests left behind (a module-level cache, a global
    they set), so a run of part of the suite, which any selection of tests to re-run
    makes, could score it otherwise than the full run.
    """
    sample = alone_sample(ids)

    def run(runner: ProjectRunner, nid: str) -> tuple[str, TestReport]:
        return nid, runner.run(solution, [nid], fresh=True)

    results = pool.imap(run, sample) if pool is not None else (run(runners[0], t) for t in sample)
    differ: list[str] = []
    errors: list[str] = []
    for done, (nid, report) in enumerate(results, 1):
        if report.verdict != "ok" or report.ran < 1:
            errors.append(f"{nid} ({report.error or 'not run'})")
        elif report.per_test.get(nid, False) != suite.get(nid, False):
            alone = "passes" if report.per_test.get(nid, False) else "fails"
            differ.append(f"{nid} ({alone} alone)")
        if progress is not None:
            progress("running tests alone", done, len(sample))
    problems = []
    if differ:
        problems.append(
            (
                f"{len(differ)} tests depend on the order of the suite (run alone, their "
                "outcome differs from the full run's): "
                if len(differ) > 1
                else "1 test depends on the order of the suite (run alone, its outcome "
                "differs from the full run's): "
            )
            + ", ".join(differ[:5])
            + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
            + "; each must set up what it needs itself (fix it), or be listed in the "
            "manifest's tests.deselect"
        )
    if errors:
        problems.append(f"running tests alone: no verdict for {len(errors)}, e.g. {errors[0]}")
    return problems


def not_run(report: TestReport, what: str) -> list[str]:
    """An internal problem when `report` ran fewer tests than it reports (some were served)."""
    if report.verdict == "ok" and report.ran < len(report.per_test):
        return [
            f"internal: {what} ran {report.ran} of its {len(report.per_test)} tests (the "
            "others were answered without a run)"
        ]
    return []


def reference_problems(per_test: dict[str, bool], failures: dict[str, str]) -> list[str]:
    """What is wrong with a reference run, skips told apart from failures."""
    failing = [t for t, ok in per_test.items() if not ok]
    skipped = [t for t in failing if failures.get(t, "").startswith("skipped")]
    failed = [t for t in failing if t not in skipped]
    out = []
    if skipped:
        out.append(
            f"the reference skips or xfails {len(skipped)} tests here, e.g. {skipped[0]}: a "
            "skip is not a pass; list them in the manifest's tests.deselect"
        )
    if failed:
        detail = (failures.get(failed[0]) or "").strip().splitlines()
        out.append(
            f"reference fails {len(failed)} tests, e.g. {failed[0]}"
            + (f": {detail[-1]}" if detail else "")
        )
    return out


def unit_problems(
    task: Task,
    runners: list[ProjectRunner],
    ids: list[str],
    solution: dict[str, bytes],
    pool: RunnerPool | None = None,
    progress: Progress | None = None,
    *,
    batched: bool = True,
    first: int = 2,
) -> list[str]:
    """Units whose stub fails none of their tests (or whose tests match nothing).

    With `batched`, units whose tests are disjoint are stubbed together (see the module
    doc), and each unit is first checked with its `first` tests only: one failing test is
    enough, and only a unit none of them fail is checked again with all its tests (so the
    answer is the same as with all of them). Without `batched`: each unit alone with all its
    tests, serially, on the first runner (what validation did before).
    """
    problems: list[str] = []
    units = list(task.units)
    order = {t: i for i, t in enumerate(ids)}
    selected = [sorted(select_tests(ids, u.tests)[0], key=lambda t: order[t]) for u in units]
    for u, sel in zip(units, selected, strict=True):
        if not sel:
            problems.append(f"unit {u.name}: its tests {u.tests} match no test")
    todo = [i for i, sel in enumerate(selected) if sel]
    if not batched:
        sensitive, errors = _check(task, runners, None, solution, selected, todo, False, progress)
    else:
        sample = [sel[:first] for sel in selected]
        sensitive, errors = _check(task, runners, pool, solution, sample, todo, True, progress)
        again = [i for i in todo if i not in sensitive and i not in errors]
        more, more_errors = _check(task, runners, pool, solution, selected, again, True, None)
        sensitive |= more
        errors.update(more_errors)
    for i in todo:
        u = units[i]
        if i in errors:
            problems.append(f"unit {u.name}: no verdict ({errors[i]})")
        elif i not in sensitive:
            problems.append(f"unit {u.name}: stubbing it out fails none of its tests {u.tests}")
    return problems


def _check(
    task: Task,
    runners: list[ProjectRunner],
    pool: RunnerPool | None,
    solution: dict[str, bytes],
    tests: list[list[str]],
    which: list[int],
    batched: bool,
    progress: Progress | None,
) -> tuple[set[int], dict[int, str]]:
    """(units among `which` that some of their `tests` fail when stubbed, errors)."""
    units = list(task.units)
    if batched:
        sets = [frozenset(tests[i]) for i in which]
        groups = [[which[j] for j in g] for g in disjoint_batches(sets, limit=64)]
    else:
        groups = [[i] for i in which]

    def run(runner: ProjectRunner, group: list[int]) -> tuple[list[int], object]:
        chosen = [units[i] for i in group]
        sel = [t for i in group for t in tests[i]]
        return group, runner.run(stub_units(solution, chosen), sel)

    results = pool.imap(run, groups) if pool is not None else (run(runners[0], g) for g in groups)
    sensitive: set[int] = set()
    errors: dict[int, str] = {}
    done = 0
    for group, report in results:
        for i in group:
            if report.verdict != "ok":  # type: ignore[attr-defined]
                errors[i] = str(report.error)  # type: ignore[attr-defined]
            elif not all(report.per_test.get(t, False) for t in tests[i]):  # type: ignore[attr-defined]
                sensitive.add(i)
        done += len(group)
        if progress is not None:
            progress("checking units", done, len(which))
    return sensitive, errors
