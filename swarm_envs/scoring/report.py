"""What an evaluation says (`TestReport`), and which canonical tests a selection names."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

#: failure text of a test that was selected but never reported as passed
NOT_OBSERVED = "not observed to pass (the test run ended early: crash, exit or timeout)"

#: how the fast scorer's worker begins the failure text of a test it killed for making no
#: progress (`scoring/worker/server.py`, which imports nothing of the library)
HUNG_PREFIX = "no progress for "


@dataclass(frozen=True)
class TestReport:
    """The outcome of one evaluation.

    Attributes:
        per_test: every canonical test node id of the selection -> passed. A test that was
            not observed to pass is False.
        failures: node id -> short failure text (a few lines) for the failing tests.
        verdict: "ok", or "no_verdict" when the scorer itself failed (then `per_test` is
            all False and must not be recorded as a measurement).
        error: why there is no verdict (scorer or infrastructure failure).
        wall_s: wall-clock seconds of the evaluation.
        cached: every outcome came from the cache (nothing was run).
        ran: tests that were run (not served from the cache).
        notes: what the scorer noticed about the run (a crash, a timeout).
        integrity: what the integrity guard flagged in the runs behind this report, as
            `{"kind", "test", "detail"}` dicts (every test of a flagged run failed).
        held_out: the node ids of `per_test` that are held-out tests (never in the
            workspace); the others are visible.
    """

    __test__ = False  # not a pytest test class

    per_test: dict[str, bool]
    failures: dict[str, str]
    verdict: Literal["ok", "no_verdict"]
    error: str | None
    wall_s: float
    cached: bool
    ran: int = 0
    notes: tuple[str, ...] = field(default=())
    integrity: tuple[dict[str, str], ...] = field(default=())
    held_out: frozenset[str] = field(default=frozenset())

    @property
    def hung(self) -> tuple[str, ...]:
        """The tests killed for making no progress (a hang), each at the per-test limit."""
        return tuple(t for t, text in self.failures.items() if text.startswith(HUNG_PREFIX))

    @property
    def passed(self) -> int:
        """Number of passing tests."""
        return sum(self.per_test.values())

    @property
    def total(self) -> int:
        """Number of tests in the selection."""
        return len(self.per_test)

    @property
    def held_out_passed(self) -> int:
        """Passing held-out tests."""
        return sum(ok for t, ok in self.per_test.items() if t in self.held_out)

    @property
    def held_out_total(self) -> int:
        """Held-out tests in the report."""
        return sum(1 for t in self.per_test if t in self.held_out)

    @property
    def visible_passed(self) -> int:
        """Passing visible tests."""
        return self.passed - self.held_out_passed

    @property
    def visible_total(self) -> int:
        """Visible tests in the report."""
        return self.total - self.held_out_total

    @property
    def ok(self) -> bool:
        """True when the scorer gave a verdict."""
        return self.verdict == "ok"

    def summary(self) -> str:
        """One line for observations and logs."""
        if self.verdict != "ok":
            return f"no verdict: {self.error}"
        return f"{self.passed}/{self.total} tests pass"


def select_tests(
    ids: Sequence[str], selection: Sequence[str] | str | None
) -> tuple[list[str], list[str]]:
    """(the ids matched by `selection`, in suite order; selection entries matching none).

    Entries are test files, directories, classes or node-id prefixes; None selects all.
    """
    if selection is None:
        return list(ids), []
    if isinstance(selection, str):
        selection = [selection]
    chosen: set[str] = set()
    unmatched: list[str] = []
    for raw in selection:
        s = str(raw).strip().lstrip("./").rstrip("/")
        hits = [i for i in ids if _matches(i, s)]
        if not hits:
            unmatched.append(str(raw))
        chosen.update(hits)
    return [i for i in ids if i in chosen], unmatched


def _matches(nodeid: str, sel: str) -> bool:
    if not sel:
        return True
    return (
        nodeid == sel
        or nodeid.startswith(sel + "::")
        or nodeid.startswith(sel + "[")
        or nodeid.startswith(sel + "/")
    )


def outcomes(
    selected: Sequence[str],
    results: dict[str, tuple[bool, str]],
    collect_errors: dict[str, str],
    default_text: str = NOT_OBSERVED,
) -> tuple[dict[str, bool], dict[str, str]]:
    """(per_test, failures) of `selected` from the observed results; unobserved fail."""
    per_test: dict[str, bool] = {}
    failures: dict[str, str] = {}
    for nid in selected:
        got = results.get(nid)
        if got is not None and got[0]:
            per_test[nid] = True
            continue
        per_test[nid] = False
        if got is not None and got[1]:
            failures[nid] = got[1]
        else:
            f = nid.split("::")[0]
            failures[nid] = (
                f"collection failed: {collect_errors[f]}" if f in collect_errors else default_text
            )
    return per_test, failures


def unmatched_failures(unmatched: Iterable[str], test_files: Iterable[str]) -> dict[str, str]:
    """Failure texts for selection entries that name no canonical test."""
    files = ", ".join(sorted(test_files))
    return {u: f"no canonical test matches {u!r}; test files: {files}" for u in unmatched}


def no_verdict(selected: Sequence[str], error: str, start: float) -> TestReport:
    """The report of an evaluation the scorer could not make."""
    return TestReport(
        per_test=dict.fromkeys(selected, False),
        failures={},
        verdict="no_verdict",
        error=error,
        wall_s=time.monotonic() - start,
        cached=False,
    )


def over_quota(selected: Sequence[str], why: str, start: float) -> TestReport:
    """The report of a workspace over its quota: a verdict, and every test fails."""
    text = f"not run: the workspace is over its quota ({why})"
    return TestReport(
        per_test=dict.fromkeys(selected, False),
        failures=dict.fromkeys(selected, text),
        verdict="ok",
        error=None,
        wall_s=time.monotonic() - start,
        cached=False,
        notes=(text,),
    )
