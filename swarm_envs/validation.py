"""Task validation: is a task a fair, measurable and deterministic problem.

Checks, each through the real sandbox and scorer:

1. the reference solution passes every test (held-out tests included);
2. the reference passes the same tests twice (determinism);
3. the starting state collects (every canonical test is reported) and passes a
   known number of tests, failing the rest;
4. every unit's tests are sensitive to it: with only that unit stubbed out, at
   least one of its tests fails.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from swarm_envs.generators import stub_units
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.task import Task


@dataclass
class ValidationReport:
    """The outcome of validating one task."""

    task: str
    tests: int = 0
    units: int = 0
    start_passing: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def validate(task: Task, *, scorer: str = "fast", check_units: bool = True) -> ValidationReport:
    """Validate `task`; the report lists every problem found (empty: valid)."""
    t0 = time.perf_counter()
    rep = ValidationReport(task.id, units=len(task.units))
    with ProjectRunner(task, scorer=scorer) as runner:
        ids = runner.test_ids()
        rep.tests = len(ids)
        if not ids:
            rep.problems.append("no tests were collected from the reference solution")
            return rep
        solution = task.solution_files()
        ref = runner.run(solution, held_out=True)  # held-out tests must pass too
        if ref.verdict != "ok":
            rep.problems.append(f"reference: no verdict ({ref.error})")
            return rep
        failing = [t for t, ok in ref.per_test.items() if not ok]
        if failing:
            detail = (ref.failures.get(failing[0]) or "").strip().splitlines()
            rep.problems.append(
                f"reference fails {len(failing)} tests, e.g. {failing[0]}"
                + (f": {detail[-1]}" if detail else "")
            )
        # Determinism: a second, uncached run of the same files.
        again = runner.run({**solution, "validation_nonce.txt": b"1"}, held_out=True)
        if again.cached:
            rep.problems.append("internal: the determinism re-run was served from the cache")
        if again.per_test != ref.per_test:
            flaky = [t for t in ref.per_test if ref.per_test[t] != again.per_test.get(t)]
            rep.problems.append(f"{len(flaky)} tests are not deterministic, e.g. {flaky[0]}")
        start = runner.run(task.start_files())
        if start.verdict != "ok":
            rep.problems.append(f"starting state: no verdict ({start.error})")
        else:
            rep.start_passing = start.passed
            if start.passed == start.total:
                rep.problems.append("the starting state already passes every test")
        if check_units:
            for unit in task.units:
                report = runner.run(stub_units(solution, [unit]), list(unit.tests))
                if report.verdict != "ok":
                    rep.problems.append(f"unit {unit.name}: no verdict ({report.error})")
                elif report.total == 0:
                    rep.problems.append(f"unit {unit.name}: its tests {unit.tests} match no test")
                elif report.passed == report.total:
                    rep.problems.append(
                        f"unit {unit.name}: stubbing it out fails none of its tests {unit.tests}"
                    )
    rep.seconds = time.perf_counter() - t0
    return rep
