"""A scorer in this process, for tests of the episode's step and its reward book.

`MemoryScorer` implements what an episode uses of a scorer (`EpisodeScorer`) honestly:
each of its tests is a rule over one file of the workspace (it passes while that file
holds a given text), and every outcome it reports is read from the workspace's files now.
Like the fast scorer it keeps a cache of outcomes keyed by what each test reads (its
file's content), which the per-step count uses and a fresh run never does; `forge` writes
into that cache what a guard that missed an attack would have stored, so the book's
defences (the all-pass confirmation, the final fresh recount) can be tested in
milliseconds, beside the tests that play the same attacks on the real scorer.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from swarm_envs.scoring import TestReport, select_tests
from swarm_envs.scoring.report import no_verdict

# calc's numbers.py: a test of each function passes when its body is implemented.
GCD_BODY = "a, b = abs(a), abs(b)"
MEAN_BODY = "return sum(values) / len(values)"
RULES = {
    "tests/test_numbers.py::test_gcd": ("calc/numbers.py", GCD_BODY),
    "tests/test_numbers.py::test_gcd_zero": ("calc/numbers.py", GCD_BODY),
    "tests/test_numbers.py::test_mean": ("calc/numbers.py", MEAN_BODY),
    "tests/test_notes.py::test_notes": ("NOTES.md", "done"),
}
HELD_OUT = {"held_out/test_hidden.py::test_mean_hidden": ("calc/numbers.py", MEAN_BODY)}


class MemoryScorer:
    """Tests as rules over the workspace's files: `test id -> (file, text it must hold)`.

    Args:
        root: the workspace folder (the sandbox's root).
        rules: the visible tests.
        held_out: tests never shown to agents, reported apart (`held_out=True`).
    """

    def __init__(
        self,
        root: Path,
        rules: Mapping[str, tuple[str, str]] = RULES,
        held_out: Mapping[str, tuple[str, str]] = HELD_OUT,
    ):
        self.root = Path(root)
        self.rules = dict(rules)
        self.held_out = dict(held_out)
        self.cache: dict[tuple[str, str], bool] = {}  # (test, its file's digest) -> passed
        self.closed = False
        self.calls: list[str] = []  # "count" (may use the cache), "fresh", "selection"

    # ------------------------------------------------------------------ the interface

    def evaluate(
        self, selection: Sequence[str] | None = None, *, held_out: bool = False, fresh: bool = False
    ) -> TestReport:
        """The selected tests' outcomes on the files now; `fresh`: none from the cache."""
        start = time.monotonic()
        ids, _ = select_tests(list(self.rules), selection)
        if held_out:
            ids += list(self.held_out)
        self.calls.append("fresh" if fresh else "count" if selection is None else "selection")
        if self.closed:
            return no_verdict(ids, "the scorer is closed", start)
        per_test: dict[str, bool] = {}
        ran = 0
        for test in ids:
            path, text = self.rules.get(test) or self.held_out[test]
            content = self._read(path)
            key = (test, hashlib.sha256(content.encode()).hexdigest())
            if not fresh and key in self.cache:
                per_test[test] = self.cache[key]
                continue
            per_test[test] = self.cache[key] = text in content
            ran += 1
        return TestReport(
            per_test=per_test,
            failures={t: f"{self._rule(t)} does not hold" for t, ok in per_test.items() if not ok},
            verdict="ok",
            error=None,
            wall_s=time.monotonic() - start,
            cached=ran == 0,
            ran=ran,
            held_out=frozenset(t for t in per_test if t in self.held_out),
        )

    def take_snapshot(self) -> dict[str, str]:
        """Every file of the workspace -> its content's digest."""
        return {
            str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }

    def test_ids(self) -> list[str]:
        """The visible tests."""
        return list(self.rules)

    def held_out_ids(self) -> list[str]:
        """The held-out tests."""
        return list(self.held_out)

    def admit(self, rel: str, old_size: int | None, new_size: int) -> None:
        """Every write is admitted: this scorer has no quota."""

    def quota_note(self) -> str:
        """No quota, so never over it."""
        return ""

    def close(self) -> None:
        """Every later evaluation has no verdict."""
        self.closed = True

    # ------------------------------------------------------------------ for the tests

    def forge(self, tests: Sequence[str], passed: bool = True) -> None:
        """Make the cached outcomes of `tests` say `passed`, for the files as they are now."""
        for test in tests:
            path, _ = self.rules.get(test) or self.held_out[test]
            digest = hashlib.sha256(self._read(path).encode()).hexdigest()
            self.cache[(test, digest)] = passed

    def _read(self, rel: str) -> str:
        try:
            return (self.root / rel).read_text()
        except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
            return ""

    def _rule(self, test: str) -> str:
        path, text = self.rules.get(test) or self.held_out[test]
        return f"{path} holds {text!r}"


def memory_scorer(task, sandbox, **options) -> MemoryScorer:
    """A scorer factory for an episode (`scorer_factory=memory_scorer`): calc's rules."""
    return MemoryScorer(sandbox.root)
