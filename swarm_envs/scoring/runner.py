"""`ProjectRunner`: a task's canonical tests on any version of its project files.

`RunnerPool`: several of them side by side (one fork server each), for the tools that run a
project many times (make-task's probes, validation).
"""

from __future__ import annotations

import collections
import os
import queue
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import SimpleNamespace
from typing import TypeVar

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.tasks import Task, task_roots

from . import make_scorer
from .base import Scorer
from .disk import hidden_paths
from .fast import FastScorer
from .report import TestReport, select_tests

T = TypeVar("T")
R = TypeVar("R")


class ProjectRunner:
    """Runs a task's canonical tests on arbitrary versions of its project files.

    Used by generators (is a mutant detected?), validation and bring-your-own; it goes
    through the same sandbox and scorer as an episode.

    Args:
        task: the task.
        scorer: the scorer kind (`"fast"` or `"subprocess"`).
        sandbox: the sandbox backend (`"local"` or `"docker"`).
        workers: fork servers of a fast scorer (default: its own default).
        test_timeout_s: a fast scorer's limit on a test that makes no progress; may be
            changed between runs (`runner.test_timeout_s = ...`).
        cache: False: no outcome, and no collection, comes from a cache on disk or from
            the outcomes other scorers of the process share (the fast scorer's memo); what
            this runner's own runs produced still serves its later unchanged tests, never
            a `fresh` run. For validation: every verdict is made now.
    """

    def __init__(
        self,
        task: Task,
        *,
        scorer: str = "fast",
        sandbox: str = "local",
        workers: int | None = None,
        test_timeout_s: float | None = None,
        cache: bool = True,
    ):
        self.task = task
        # Solutions and canonical tests of every known task stay out of the sandbox's view.
        self.sandbox = make_sandbox(sandbox, hide=[*task_roots(), task.root, *hidden_paths()])
        self.scorer: Scorer
        try:
            settings = None if cache else SimpleNamespace(memo=False)
            if scorer == "fast" and (workers or test_timeout_s):
                self.scorer = FastScorer(
                    task,
                    self.sandbox,
                    workers=workers,
                    test_timeout_s=test_timeout_s,
                    settings=settings,
                    disk_cache=cache,
                )
            else:
                self.scorer = make_scorer(
                    task, self.sandbox, kind=scorer, scoring=settings, disk_cache=cache
                )
        except BaseException:
            self.sandbox.close()
            raise

    @property
    def test_timeout_s(self) -> float | None:
        """The fast scorer's per-test limit (None for the subprocess scorer)."""
        return getattr(self.scorer, "test_timeout_s", None)

    @test_timeout_s.setter
    def test_timeout_s(self, value: float) -> None:
        if isinstance(self.scorer, FastScorer):
            self.scorer.test_timeout_s = value

    def run(
        self,
        files: dict[str, bytes],
        selection: Sequence[str] | None = None,
        *,
        held_out: bool = False,
        fresh: bool = False,
    ) -> TestReport:
        """A `TestReport` of `selection` (default: every visible test) on the project `files`.

        `held_out`: run the task's held-out tests too (reported in `TestReport.held_out`).
        `fresh`: run every test now, reading no cached outcome (`Scorer.evaluate`).
        """
        root = self.sandbox.root
        for child in list(root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self.task.materialize(root, files)
        return self.scorer.evaluate(selection, held_out=held_out, fresh=fresh)

    def test_ids(self) -> list[str]:
        """The visible canonical node ids."""
        return self.scorer.test_ids()

    def held_out_ids(self) -> list[str]:
        """The held-out canonical node ids."""
        return self.scorer.held_out_ids()

    def close(self) -> None:
        """Stop the scorer and remove the sandbox (twice-safe)."""
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
        cache: False: no outcome comes from a cache on disk or shared (`ProjectRunner`).
    """

    def __init__(
        self,
        task: Task,
        size: int | None = None,
        test_timeout_s: float | None = None,
        *,
        cache: bool = True,
    ):
        n = size or max(1, min(2, os.cpu_count() or 1))
        self.task = task
        self.runners: list[ProjectRunner] = []
        try:
            for _ in range(n):
                self.runners.append(
                    ProjectRunner(task, workers=1, test_timeout_s=test_timeout_s, cache=cache)
                )
        except BaseException:
            self.close()
            raise

    def imap(self, fn: Callable[[ProjectRunner, T], R], items: Iterable[T]) -> Iterator[R]:
        """`fn(runner, item)` for every item, on whichever runner is free, in order."""
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
            for item in items:
                pending.append(ex.submit(call, item))
                if len(pending) >= len(self.runners):
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    def run_all(
        self,
        files: dict[str, bytes],
        selection: Sequence[str] | None = None,
        *,
        rotate: int = 0,
        held_out: bool = False,
        fresh: bool = False,
    ) -> TestReport:
        """One `TestReport` of `selection` (default: every visible test), split over the runners.

        The tests are split by test file into one part per runner; `rotate` shifts which
        runner gets which part (a re-run with `rotate=1` runs every test in other processes).
        `held_out`: the held-out tests run too, with the first part. `fresh`: no cached
        outcome is read (`Scorer.evaluate`).
        """
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
            runner = self.runners[rotate % n]
            return runner.run(
                files, list(selection) if selection else None, held_out=held_out, fresh=fresh
            )
        first = jobs[0][0]

        def run(runner: ProjectRunner, part: list[str]) -> TestReport:
            return runner.run(
                files, part, held_out=held_out and runner is self.runners[first], fresh=fresh
            )

        reports = self.imap_each(run, jobs)
        per_test: dict[str, bool] = {}
        failures: dict[str, str] = {}
        for rep in reports:
            per_test.update(rep.per_test)
            failures.update(rep.failures)
        hidden = frozenset().union(*(rep.held_out for rep in reports))
        bad = [rep for rep in reports if rep.verdict != "ok"]
        return TestReport(
            per_test={t: per_test.get(t, False) for t in [*ids, *sorted(hidden)]},
            failures=failures,
            verdict="no_verdict" if bad else "ok",
            error=bad[0].error if bad else None,
            wall_s=max(rep.wall_s for rep in reports),
            cached=all(rep.cached for rep in reports),
            ran=sum(rep.ran for rep in reports),
            notes=tuple(n for rep in reports for n in rep.notes),
            integrity=tuple(f for rep in reports for f in rep.integrity),
            held_out=hidden,
        )

    def imap_each(
        self, fn: Callable[[ProjectRunner, T], R], jobs: Sequence[tuple[int, T]]
    ) -> list[R]:
        """`fn(runners[i], item)` for every `(i, item)` of `jobs`, all at once."""
        with ThreadPoolExecutor(len(jobs), thread_name_prefix="runner") as ex:
            futures = [ex.submit(fn, self.runners[i], item) for i, item in jobs]
            return [f.result() for f in futures]

    def close(self) -> None:
        """Close every runner."""
        for r in self.runners:
            r.close()

    def __enter__(self) -> RunnerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
