"""The naive scorer: a fresh tree and a fresh pytest process for every evaluation."""

from __future__ import annotations

import contextlib
import threading
import time

from swarm_envs.error import ScoringError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.task import Task

from .base import Scorer
from .channel import install_worker, limits_for_children, run_once
from .collection import GRACE_S
from .report import TestReport, outcomes
from .snapshot import WorkspaceSnapshot
from .worker.protocol import RunState


class SubprocessScorer(Scorer):
    """A fresh scoring tree and a fresh `pytest` process inside the sandbox per evaluation."""

    kind = "subprocess"

    def __init__(self, task: Task, sandbox: Sandbox):
        super().__init__(task, sandbox)
        self.host = sandbox.scoring_host()
        install_worker(self.host)
        self._snap = WorkspaceSnapshot(
            sandbox.root, task, sandbox.limits.file_size_mb * 1024 * 1024
        )
        self._runs = 0
        self._lock = threading.Lock()

    def _evaluate(self, selected: list[str], unmatched: list[str], start: float) -> TestReport:
        with self._lock:
            self._runs += 1
            rel = f"runs/{self._runs}"
            files = self._snap.take()
        coll = self.collection
        tree: dict[str, bytes | None] = {r: self._snap.blobs[d] for r, d in files.items()}
        tree.update(coll.test_files)
        targets = sorted({i.split("::")[0] for i in selected})
        if not targets:
            wall = time.monotonic() - start
            return TestReport({}, self.unmatched(unmatched), "ok", None, wall, False)
        self.host.sync(rel, tree)
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
        finally:
            with contextlib.suppress(OSError):
                self.host.remove_tree(rel)
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
            integrity=tuple(st.findings),
        )
