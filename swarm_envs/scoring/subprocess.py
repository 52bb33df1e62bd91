"""The naive scorer: a fresh tree and a fresh pytest process for every evaluation."""

from __future__ import annotations

import contextlib
import threading
import time

from swarm_envs.error import ScoringError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.tasks import Task

from .base import Scorer
from .channel import install_worker, limits_for_children, run_once
from .collection import GRACE_S, Collection
from .report import TestReport, outcomes
from .worker.protocol import RunState

_TREE = "runs/current"


class SubprocessScorer(Scorer):
    """A fresh `pytest` process inside the sandbox per evaluation.

    Its scoring tree is brought up to date with the changed files only (the process sees
    it read-only, so nothing of one evaluation can reach the next).
    """

    kind = "subprocess"

    def __init__(
        self,
        task: Task,
        sandbox: Sandbox,
        *,
        quota: object | None = None,
        disk_cache: bool = True,
    ):
        super().__init__(task, sandbox, quota=quota, disk_cache=disk_cache)
        self.host = sandbox.scoring_host()
        install_worker(self.host, task)
        self._lock = threading.Lock()
        self._tree: dict[str, str] | None = None  # what the scoring tree holds: rel -> digest

    def _sync(self, files: dict[str, str]) -> None:
        blobs = self.snapshot.contents(files)
        if self._tree is None:
            with contextlib.suppress(OSError):
                self.host.remove_tree(_TREE)
            self.host.sync(_TREE, dict(self.collection.test_files))
            self._tree = {}
        changes: dict[str, bytes | None] = {
            r: blobs[d] for r, d in files.items() if self._tree.get(r) != d
        }
        changes.update((r, None) for r in self._tree if r not in files)
        self._tree = None  # until the sync is complete
        self.host.sync(_TREE, changes)
        self._tree = dict(files)

    def _evaluate(
        self, selected: list[str], unmatched: list[str], start: float, *, fresh: bool = False
    ) -> TestReport:
        # Every evaluation is a fresh run: nothing is cached.
        coll = self.collection
        targets = sorted({i.split("::")[0] for i in selected})
        if not targets:
            wall = time.monotonic() - start
            return TestReport({}, self.unmatched(unmatched), "ok", None, wall, False)
        with self._lock:
            files = self.take_snapshot()
            self._sync(files)
            return self._run(coll, selected, unmatched, targets, start)

    def _run(
        self,
        coll: Collection,
        selected: list[str],
        unmatched: list[str],
        targets: list[str],
        start: float,
    ) -> TestReport:
        rel = _TREE
        try:
            partial = len(selected) < sum(len(coll.by_file[t]) for t in targets)
            timeout = self.task.manifest.tests.timeout_s
            hello = {
                "tree": f"{self.host.inside_dir}/{rel}",
                "targets": targets,
                "select": selected if partial else None,
                "limits": limits_for_children(self.sandbox),
            }
            recs = run_once(self.host, "once", hello, timeout_s=timeout + GRACE_S)
        except BaseException:
            self._tree = None  # start from a clean tree next time
            raise
        if not recs:
            log = self.host.worker_log()
            raise ScoringError(f"the pytest process produced no records; worker log: {log[-500:]}")
        if recs[-1].get("ev") == "host_timeout" and len(recs) == 1:
            raise ScoringError(f"pytest did not start within {timeout + GRACE_S:g} s")
        st = RunState()
        for r in recs:
            if r.get("ev") != "host_timeout":
                st.feed(r)
        results = {k: (bool(v[0]), str(v[1])) for k, v in st.final_results().items()}
        if not st.finished:
            # Passes count only from a run whose guard checked it to the end.
            why = "not observed to pass (the test run ended early: crash, exit or timeout)"
            results = {k: (False, why if ok else text) for k, (ok, text) in results.items()}
        per, fails = outcomes(selected, results, st.collect_errors)
        fails.update(self.unmatched(unmatched))
        return TestReport(
            per_test=per,
            failures=fails,
            verdict="ok",
            error=None,
            wall_s=time.monotonic() - start,
            cached=False,
            ran=len(selected),
            notes=self.snapshot.notes,
            integrity=tuple(st.findings),
        )
