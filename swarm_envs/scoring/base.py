"""The interface every scorer implements, and what they share: selection, retry, collection."""

from __future__ import annotations

import abc
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import replace

from swarm_envs.error import ActionError, SandboxError, ScoringError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.tasks import Task

from . import canary
from .collection import Collection, collect_test_ids
from .disk import DiskCache, trusted
from .report import TestReport, no_verdict, over_quota, select_tests, unmatched_failures
from .snapshot import Quota, WorkspaceSnapshot, size_text

logger = logging.getLogger("swarm_envs.scoring")


class OverQuota(Exception):
    """The workspace holds more than its quota (a verdict: every test fails)."""


class Scorer(abc.ABC):
    """Evaluates the canonical tests of a task against a sandbox's workspace.

    Subclasses implement `_evaluate`; `evaluate` selects the tests, retries once when the
    scorer itself fails (`ScoringError`, `SandboxError`) and turns a second failure into a
    "no verdict" report. `disk_cache=False`: nothing is read from or written to the cache
    on disk (`disk`: collections, starting states' runs, the fast scorer's memo).
    """

    kind: str = "?"
    #: the worker mode this scorer runs tests in (the canary is scored the same way)
    worker_mode: str = "once"

    def __init__(
        self,
        task: Task,
        sandbox: Sandbox,
        *,
        quota: object | None = None,
        disk_cache: bool = True,
    ):
        self.task = task
        self.sandbox = sandbox
        self._closed = False
        # A damaged harness raises here, before anything is scored (never a zero); the
        # canary project is scored meanwhile, and the first report waits for its verdict.
        self._canary: canary.Check | None = canary.start(sandbox, self.worker_mode)
        # Results on disk are trusted only where agents' commands cannot reach them, and
        # used only where the caller wants them (validation wants runs made now).
        self.disk = DiskCache.default() if disk_cache and trusted(sandbox.protections) else None
        self._collection: Collection | None = None
        self.collection  # noqa: B018 - collected now, in this sandbox, while it is open
        self.snapshot = WorkspaceSnapshot(sandbox.root, task, Quota.of(quota))
        self._pending = (0, 0)  # files and bytes admitted since the last snapshot
        self._snap_lock = threading.Lock()

    def evaluate(
        self, selection: Sequence[str] | None = None, *, held_out: bool = False, fresh: bool = False
    ) -> TestReport:
        """Run (or look up) the selected canonical tests on the workspace's current source.

        Args:
            selection: test files (`"tests/test_x.py"`) or node-id prefixes
                (`"tests/test_x.py::TestA"`) of the visible tests; None means all of them.
                Entries that match no visible test are reported in `failures`.
            held_out: also run every held-out test (reported in `TestReport.held_out`).
                Never for output an agent sees.
            fresh: run every selected test now, under the guard, whatever any cache holds
                (the authoritative count of an episode's end; see docs/integrity.md).

        Returns:
            A `TestReport`; never raises for anything the code under test does.

        Raises:
            ScoringError: at the first evaluation, the scorer misjudged its canary project
                (`canary`): the harness is broken, and no score of it is a score.
        """
        start = time.monotonic()
        if self._canary is not None:
            canary.wait(self._canary, self.sandbox, self.worker_mode)  # raises: never a 0
            self._canary = None
        selected, unmatched = select_tests(self.collection.ids, selection)
        if held_out:
            selected += self.collection.held_out
        last = "the scorer is closed"
        for _attempt in range(2):
            if self._closed:
                return no_verdict(selected, "the scorer is closed", start)
            try:
                report = self._evaluate(selected, unmatched, start, fresh=fresh)
            except OverQuota as e:
                report = over_quota(selected, str(e), start)
            except (ScoringError, SandboxError) as e:
                last = str(e)
                if not self._closed:
                    logger.warning("scoring failed (%s); retrying once", e)
                continue
            except Exception as e:  # noqa: BLE001 - a bug of ours: never a crash of step()
                logger.exception("the scorer failed")
                last = f"the scorer failed: {type(e).__name__}: {e}"
                continue
            if held_out and self.collection.held_out:
                report = replace(report, held_out=frozenset(self.collection.held_out))
            return report
        return no_verdict(selected, last, start)

    def take_snapshot(self) -> dict[str, str]:
        """The workspace's files now (see `WorkspaceSnapshot`).

        Raises:
            OverQuota: the workspace holds more than its quota allows.
        """
        with self._snap_lock:
            files = self.snapshot.take()
            self._pending = (0, 0)
        if self.snapshot.over_quota:
            raise OverQuota(self.snapshot.over_quota)
        return files

    def quota_note(self) -> str:
        """Why the workspace is over its quota now ("" if it is not), for observations."""
        with self._snap_lock:
            self.snapshot.take()
        q = self.snapshot.over_quota
        return (
            f"the workspace is over its quota: {q}; every test fails until it is not" if q else ""
        )

    def admit(self, rel: str, old_size: int | None, new_size: int) -> None:
        """Allow a write of `new_size` bytes to `rel` (`old_size`: its size now, None: new).

        The workspace's write tools call this first (a hook), so that an agent's write
        that would break the quota is refused before anything is written.

        Raises:
            ActionError: the write would exceed the quota (the message says which part).
        """
        q = self.snapshot.quota
        with self._snap_lock:
            files, size = self.snapshot.usage
            more_files = self._pending[0] + (1 if old_size is None else 0)
            more_bytes = self._pending[1] + new_size - (old_size or 0)
            if new_size > q.max_file_bytes:
                why = f"{rel} would be {size_text(new_size)}"
            elif files + more_files > q.max_files or size + more_bytes > q.max_bytes:
                why = "the workspace would hold too much"
            else:
                self._pending = (more_files, more_bytes)
                return
        raise ActionError(
            f"write refused: {why}; the workspace quota is {q.describe()}; delete files first"
        )

    @abc.abstractmethod
    def _evaluate(
        self, selected: list[str], unmatched: list[str], start: float, *, fresh: bool = False
    ) -> TestReport:
        """Evaluate `selected` (canonical ids in suite order); may raise `ScoringError`.

        `fresh`: run them all, using no cached outcome.
        """

    @property
    def collection(self) -> Collection:
        """The task's canonical tests (collected on first use in this scorer's sandbox)."""
        if self._collection is None:
            self._collection = collect_test_ids(self.task, self.sandbox, disk=self.disk)
        return self._collection

    def test_ids(self) -> list[str]:
        """The visible canonical node ids, collected once from the reference solution."""
        return list(self.collection.ids)

    def held_out_ids(self) -> list[str]:
        """The held-out canonical node ids (none unless the task declares some)."""
        return list(self.collection.held_out)

    def unmatched(self, unmatched: list[str]) -> dict[str, str]:
        """Failure texts for selection entries that match no canonical test."""
        return unmatched_failures(unmatched, self.collection.by_file)

    def close(self) -> None:
        """Stop the scorer's workers (twice-safe). Does not close the sandbox."""
        self._closed = True

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
