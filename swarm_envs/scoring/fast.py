"""The fast scorer: fork servers, a workspace snapshot and a result cache per test file."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from swarm_envs.error import SandboxError, ScoringError
from swarm_envs.sandboxes.base import Sandbox, WorkerHandle
from swarm_envs.tasks import Task

from .base import Scorer
from .channel import Channel, ini_path, install_worker, limits_for_children, send, worker_argv
from .collection import GRACE_S
from .disk import key as disk_key
from .disk import task_key, where
from .graph import ImportGraph
from .keys import MAX_ENTRIES_PER_FILE, Keyer, shared_entries
from .memo import Memo
from .report import TestReport, outcomes
from .snapshot import digest
from .traced import merge

#: what a fork server's first request may take beyond the time limit: its preparation
FIRST_REQUEST_S = 60.0

#: in a record's traces: what ran outside every test's call phase (collection, fixtures)
SHARED = "\0shared"


def _loaded_by_file(
    loaded: dict, files: dict[str, str], index: dict[str, str]
) -> dict[str, set[str]]:
    """{test file ("" the session): workspace files the run loaded on its behalf}."""
    out: dict[str, set[str]] = {}
    for owner, names in dict(loaded.get("files") or {}).items():
        out.setdefault(str(owner), set()).update(str(f) for f in names if str(f) in files)
    for owner, names in dict(loaded.get("modules") or {}).items():
        out.setdefault(str(owner), set()).update(index[m] for m in map(str, names) if m in index)
    return out


def _unique(findings: list[dict[str, str]]) -> tuple[dict[str, str], ...]:
    seen: dict[tuple[str, str, str], dict[str, str]] = {}
    for f in findings:
        seen.setdefault((f.get("kind", ""), f.get("test", ""), f.get("detail", "")), f)
    return tuple(seen.values())


@dataclass
class _Worker:
    handle: WorkerHandle
    channel: Channel
    tree: str
    state: dict[str, str]  # files of its tree: rel -> digest ("canonical" for tests)
    requests: int = 0


class FastScorer(Scorer):
    """Fork-server workers, a content-hash cache and per-test-file selection (see module doc).

    Args:
        task: the task.
        sandbox: the episode's sandbox.
        workers: fork servers to keep (default: the number of CPUs, at most 2).
        test_timeout_s: a test (or a test file's import) that makes no progress for this
            long is killed and counted as failing; the others still run. Default: the
            sandbox's `wall_s`, at least 10 s, at most the task's test timeout.
        settings: `keys` ("dynamic": a test is keyed by what it executed, `traced`;
            "static": by the source analysis only) and `memo` (True: outcomes are shared
            by every scorer of the task in this process and kept on disk; False: this
            scorer's own); an object with those attributes (`ScoringSettings`), or None
            for the defaults.
        disk_cache: False: no cache on disk is read or written (`Scorer`).
    """

    kind = "fast"
    worker_mode = "serve"

    def __init__(
        self,
        task: Task,
        sandbox: Sandbox,
        *,
        workers: int | None = None,
        test_timeout_s: float | None = None,
        quota: object | None = None,
        settings: object | None = None,
        disk_cache: bool = True,
    ):
        super().__init__(task, sandbox, quota=quota, disk_cache=disk_cache)
        keys = getattr(settings, "keys", "dynamic")
        if keys not in ("dynamic", "static"):
            raise ScoringError(f"scoring keys must be 'dynamic' or 'static', got {keys!r}")
        self.keys: str = keys
        self.memo_on = bool(getattr(settings, "memo", True))
        self.host = sandbox.scoring_host()
        install_worker(self.host, task)
        self.coll = self.collection
        self._graph = ImportGraph()
        self._n_workers = max(1, workers or min(2, os.cpu_count() or 1))
        self._idle: list[_Worker] = []
        self._all: list[_Worker | None] = []  # None: a slot reserved for a starting worker
        self._cv = threading.Condition()
        # Outcomes depend only on content (canonical tests + the files they reach), so the
        # cache is shared by every scorer of the task in this process: a new episode's
        # starting state is scored from it without starting a worker.
        if self.memo_on:
            self._lock, self._entries = shared_entries(self.coll)
        else:
            self._lock, self._entries = threading.Lock(), {}
        #: tests asked for, and served without a run (the memo's hit rate)
        self.asked = self.served = 0
        self._start_files: dict[str, str] | None = None  # the first evaluation's snapshot
        self._last: tuple[dict[str, str], tuple[str, ...], TestReport] | None = None
        self._test_digests = {rel: digest(data) for rel, data in self.coll.test_files.items()}
        self._pool = ThreadPoolExecutor(max_workers=self._n_workers, thread_name_prefix="scorer")
        self._evaluated = False  # the first evaluation (a reset's) may come from disk
        self._unkeyed: tuple[dict[str, str], dict[str, bytes], list[dict]] | None = None
        self._nworker_seq = 0
        timeout = task.manifest.tests.timeout_s
        self.test_timeout_s = test_timeout_s or min(timeout, max(10.0, sandbox.limits.wall_s))
        self._memo = Memo.of(self) if self.memo_on else None

    # ------------------------------------------------------------------- workers

    def _start_worker(self) -> _Worker:
        self._nworker_seq += 1
        rel = f"trees/w{self._nworker_seq}"
        self.host.sync(rel, dict(self.coll.test_files))
        handle = self.host.start_worker(worker_argv(self.host, "serve"), long_lived=True)
        hello = {
            "ini": ini_path(self.host),
            "limits": limits_for_children(self.sandbox),
            "pidns": self.host.worker_owns_pid_namespace,
        }
        ch = Channel(handle)
        try:
            send(handle, hello)
        except OSError as e:
            handle.kill()
            raise ScoringError(f"the scoring worker did not start: {e}") from e
        rec = ch.next(time.monotonic() + 60)
        if rec is None or rec.get("ev") != "ready":
            handle.kill()
            log = self.host.worker_log()
            raise ScoringError(f"the scoring worker did not start; its log: {log[-800:]}")
        return _Worker(handle, ch, rel, dict.fromkeys(self.coll.test_files, "canonical"))

    def _acquire(self) -> _Worker:
        with self._cv:
            while True:
                if self._closed:
                    raise ScoringError("the scorer is closed")
                if self._idle:
                    return self._idle.pop()
                if len(self._all) < self._n_workers:
                    self._all.append(None)  # reserve a slot
                    break
                self._cv.wait()
        try:
            w = self._start_worker()
        except BaseException:
            with self._cv:
                self._all.remove(None)
                self._cv.notify()
            raise
        with self._cv:
            self._all[self._all.index(None)] = w
        return w

    def _release(self, w: _Worker, broken: bool) -> None:
        if broken:
            w.handle.kill()
            # Its tree may be half-synced: forget it (a new worker gets a new tree).
            with contextlib.suppress(OSError, SandboxError):
                self.host.remove_tree(w.tree)
        with self._cv:
            if broken or self._closed:
                if w in self._all:
                    self._all.remove(w)
                if not broken:
                    w.handle.kill()
            else:
                self._idle.append(w)
            self._cv.notify()

    def _run_on_worker(
        self,
        files: dict[str, str],
        blobs: Mapping[str, bytes],
        targets: list[str],
        select_ids: list[str] | None,
    ) -> dict:
        w = self._acquire()
        broken = True
        try:
            changes: dict[str, bytes | None] = {}
            for rel, d in files.items():
                if w.state.get(rel) != d:
                    changes[rel] = blobs[d]
            for rel, d in w.state.items():
                if d != "canonical" and rel not in files:
                    changes[rel] = None
            if changes:
                self.host.sync(w.tree, changes)
                for rel, data in changes.items():
                    if data is None:
                        w.state.pop(rel, None)
                    else:
                        w.state[rel] = files[rel]
            timeout = self.task.manifest.tests.timeout_s
            w.requests += 1
            req = {
                "id": w.requests,
                "tree": f"{self.host.inside_dir}/{w.tree}",
                "targets": targets,
                "select": select_ids,
                "timeout_s": timeout,
                "test_timeout_s": self.test_timeout_s,
                "trace": self.keys == "dynamic",
            }
            try:
                send(w.handle, req)
            except (OSError, ValueError) as e:
                raise ScoringError(f"the scoring worker is gone: {e}") from e
            # A server's first request also prepares it (imports what the tests import,
            # builds hypothesis' tables: `Server.handle`), before the time limit starts.
            wait = timeout + GRACE_S + (FIRST_REQUEST_S if w.requests == 1 else 0.0)
            deadline = time.monotonic() + wait
            while True:
                rec = w.channel.next(deadline)
                if rec is None:
                    why = "died" if w.channel.eof else f"gave no answer within {wait:g} s"
                    log = self.host.worker_log()
                    raise ScoringError(f"the scoring worker {why}; its log: {log[-500:]}")
                if rec.get("id") == w.requests:
                    break
            if rec.get("error"):
                raise ScoringError(f"the scoring worker failed: {rec['error']}")
            broken = False
            return rec
        finally:
            self._release(w, broken)

    # -------------------------------------------------------------------- evaluate

    def _evaluate(
        self, selected: list[str], unmatched: list[str], start: float, *, fresh: bool = False
    ) -> TestReport:
        sel_key = tuple(selected)
        self._settle()
        with self._lock:
            files = self.take_snapshot()
            last = self._last
            if not fresh and last is not None and last[0] == files and last[1] == sel_key:
                return replace(last[2], wall_s=time.monotonic() - start, cached=True, ran=0)
            blobs = self.snapshot.contents(files)
            first, self._evaluated = not self._evaluated, True
            if first:
                self._start_files = files
            # The starting state's full run is kept on disk by content (behind the harness
            # digest, `disk`): a first reset, and its fresh count, cost no run in a new process.
            at_start = first or (fresh and files == self._start_files)
            dkey = self._disk_key(files, selected) if at_start and self.disk else ""
            stored = self._from_disk(dkey, files, blobs, selected) if dkey else None
            if stored is not None:
                self.asked += len(selected)
                self.served += len(selected)
                return self._report(files, selected, unmatched, *stored, 0, start)
            graph = self._graph.analyse(files, blobs, self.coll.test_files, self._test_digests)
            keyer = Keyer(files, graph.fact, graph.closures, self.coll, self._test_digests)
            if self._memo is not None:
                self._memo.load(self._entries, set(self.coll.by_file))
            by_file: dict[str, list[str]] = {}
            for nid in selected:
                by_file.setdefault(nid.split("::")[0], []).append(nid)
            results: dict[str, tuple[bool, str]] = {}
            findings: list[dict[str, str]] = []
            missing: dict[str, list[str]] = {}
            for tf, nids in by_file.items():
                if fresh:
                    missing[tf] = list(nids)
                    continue
                have, found = self._lookup(tf, keyer, set(nids))
                findings.extend(found)
                for n in nids:
                    if n in have:
                        results[n] = have[n]
                    else:
                        missing.setdefault(tf, []).append(n)
        ran = 0
        notes: list[str] = []
        if not fresh:
            self.asked += len(selected)
            self.served += len(selected) - sum(len(v) for v in missing.values())
        if missing:
            ran = sum(len(v) for v in missing.values())
            chunks = self._split(missing)
            futures = [
                self._pool.submit(self._run_chunk, files, blobs, chunk, keyer, graph.index)
                for chunk in chunks
            ]
            records: list[dict] = []
            for f in futures:
                got, chunk_notes, chunk_findings, chunk_records = f.result()
                results.update(got)
                notes.extend(chunk_notes)
                findings.extend(chunk_findings)
                records.extend(chunk_records)
            if dkey and ran == len(selected) and self.disk is not None:
                self.disk.put("start", dkey, {"records": records, "notes": notes})
        with self._lock:
            if fresh:
                self._forget_disagreeing(keyer, results)
            return self._report(files, selected, unmatched, results, notes, findings, ran, start)

    def _report(
        self,
        files: dict[str, str],
        selected: list[str],
        unmatched: list[str],
        results: dict[str, tuple[bool, str]],
        notes: list[str],
        findings: list[dict[str, str]],
        ran: int,
        start: float,
    ) -> TestReport:
        """The report of an evaluation (remembered for an unchanged re-evaluation)."""
        per, fails = outcomes(selected, results, {})
        fails.update(self.unmatched(unmatched))
        report = TestReport(
            per_test=per,
            failures=fails,
            verdict="ok",
            error=None,
            wall_s=time.monotonic() - start,
            cached=ran == 0,
            ran=ran,
            notes=(*notes, *self.snapshot.notes),
            integrity=_unique(findings),
        )
        self._last = (files, tuple(selected), report)
        return report

    def _forget_disagreeing(self, keyer: Keyer, fresh: dict[str, tuple[bool, str]]) -> None:
        """Drop the entries that hold for this snapshot but contradict a fresh run."""
        for tf, entries in self._entries.items():
            keep = [
                e
                for e in entries
                if not any(fresh.get(n, got)[0] != got[0] for n, got in e.results.items())
                or not keyer.valid(tf, e)
            ]
            entries[:] = keep

    def _lookup(
        self, tf: str, keyer: Keyer, wanted: set[str]
    ) -> tuple[dict[str, tuple[bool, str]], list[dict[str, str]]]:
        """Cached outcomes of `tf`'s tests that still hold (and what their runs flagged)."""
        have: dict[str, tuple[bool, str]] = {}
        found: list[dict[str, str]] = []
        entries = self._entries.get(tf, [])
        hits: list[int] = []
        # Newest first; an entry none of whose wanted tests is still missing is not looked
        # at (with dynamic keys a file has about an entry per test and state).
        for i in range(len(entries) - 1, -1, -1):
            entry = entries[i]
            need = wanted.intersection(entry.results).difference(have)
            if not need or not keyer.valid(tf, entry):
                continue
            for n in need:
                have[n] = entry.results[n]
            found.extend(entry.findings)
            hits.append(i)
            if len(have) == len(wanted):
                break
        for i in sorted(hits, reverse=True):  # recently used: the last to be evicted
            entries.append(entries.pop(i))
        return have, found

    # ------------------------------------------------------------------------ disk

    def _disk_key(self, files: dict[str, str], selected: list[str]) -> str:
        """The key of an evaluation's outcomes on disk: all of its inputs, host-computed."""
        sb = self.sandbox
        return disk_key(
            task_key(self.task.root),
            where(sb),
            f"{sb.limits!r} {sorted(sb.protections.items())}",
            f"test timeout {self.test_timeout_s!r}",
            *(f"{rel}={d}" for rel, d in sorted(files.items())),
            "\0selected",
            *selected,
        )

    def _from_disk(
        self, dkey: str, files: dict[str, str], blobs: Mapping[str, bytes], selected: list[str]
    ) -> tuple[dict[str, tuple[bool, str]], list[str], list[dict[str, str]]] | None:
        """Outcomes stored for this exact evaluation, or None (missing or malformed).

        The runs' records are keyed like fresh runs at the next evaluation (`_settle`):
        the import graph is analysed then, for that evaluation's snapshot anyway.
        """
        value = self.disk.get("start", dkey) if self.disk else None
        if not isinstance(value, dict):
            return None
        try:
            records = [_record(r, self.coll.by_file, files) for r in value["records"]]
            notes = [n for n in value["notes"] if isinstance(n, str)]
        except (TypeError, KeyError, ValueError):
            return None
        results: dict[str, tuple[bool, str]] = {}
        findings: list[dict[str, str]] = []
        for r in records:
            results.update(r["results"])
            findings.extend(r["findings"])
        if any(n not in results for n in selected):
            return None
        py = {d: blobs[d] for rel, d in files.items() if rel.endswith(".py")}
        self._unkeyed = (files, py, records)
        return results, notes, findings

    def _settle(self) -> None:
        """Key the records that a first evaluation read from disk, as if they had run."""
        pending, self._unkeyed = self._unkeyed, None
        if pending is None:
            return
        files, blobs, records = pending
        with self._lock:
            graph = self._graph.analyse(files, blobs, self.coll.test_files, self._test_digests)
            keyer = Keyer(files, graph.fact, graph.closures, self.coll, self._test_digests)
        for r in records:
            self._remember(
                keyer,
                r["tf"],
                r["results"],
                r["everything"],
                r["extra"],
                r["findings"],
                r["traces"],
                files,
                blobs,
            )

    def _split(self, missing: dict[str, list[str]]) -> list[dict[str, list[str]]]:
        """Split the tests to run over the workers, balancing by test count.

        Each part pays a fork and the collection of its test files, so small runs stay in
        one part, and one test file is split only when it has many tests to run.
        """
        total = sum(len(v) for v in missing.values())
        if self._n_workers < 2 or total < 48:
            return [missing]
        if len(missing) == 1:
            ((tf, nids),) = missing.items()
            if len(nids) < 160:
                return [missing]
            half = (len(nids) + 1) // 2
            return [{tf: nids[:half]}, {tf: nids[half:]}]
        buckets: list[dict[str, list[str]]] = [{}, {}]
        loads = [0, 0]
        for tf, nids in sorted(missing.items(), key=lambda kv: -len(kv[1])):
            i = loads.index(min(loads))
            buckets[i][tf] = nids
            loads[i] += len(nids)
        return [b for b in buckets if b]

    def _run_chunk(
        self,
        files: dict[str, str],
        blobs: Mapping[str, bytes],
        chunk: dict[str, list[str]],
        keyer: Keyer,
        index: dict[str, str],
    ) -> tuple[dict[str, tuple[bool, str]], list[str], list[dict[str, str]], list[dict]]:
        targets = sorted(chunk)
        partial = any(len(v) < len(self.coll.by_file[tf]) for tf, v in chunk.items())
        select_ids = [n for v in chunk.values() for n in v] if partial else None
        rec = self._run_on_worker(files, blobs, targets, select_ids)
        raw = {k: (bool(v[0]), str(v[1])) for k, v in rec.get("results", {}).items()}
        errors = {k: str(v) for k, v in rec.get("collect_errors", {}).items()}
        notes = [str(n) for n in rec.get("notes", [])]
        findings = [
            {k: str(f.get(k, "")) for k in ("kind", "test", "detail")}
            for f in rec.get("findings", [])
            if isinstance(f, dict)
        ]
        # What the run was seen to load only ever widens a key: a run whose record of it
        # is missing, or that was flagged, depends on every file.
        loaded = rec.get("loaded")
        everything = bool(rec.get("tampered")) or bool(findings) or not isinstance(loaded, dict)
        seen = _loaded_by_file(loaded if isinstance(loaded, dict) else {}, files, index)
        traces = rec.get("traces") if self.keys == "dynamic" and not everything else None
        tests_tr = traces.get("tests") if isinstance(traces, dict) else None
        shared_tr = traces.get("shared") if isinstance(traces, dict) else None
        default = "not observed to pass" + (f" ({'; '.join(notes)})" if notes else "")
        out: dict[str, tuple[bool, str]] = {}
        records: list[dict] = []  # what `_remember` was given, for the cache on disk
        for tf, nids in chunk.items():
            closure = keyer.closures.get(tf)
            extra = {}
            if closure is not None and not everything:
                mine = seen.get(tf, set()) | seen.get("", set())
                extra = {r: files[r] for r in sorted(mine - closure.files) if r in files}
                if extra and not closure.opaque:
                    notes.append(
                        f"{tf} loaded files its imports do not name: {', '.join(sorted(extra))}"
                    )
            res: dict[str, tuple[bool, str]] = {}
            for n in nids:
                got = raw.get(n)
                if got is None:
                    text = f"collection failed: {errors[tf]}" if tf in errors else default
                    got = (False, text)
                out[n] = res[n] = got
            # What each test executed: its own call phase, with everything that ran outside
            # the tests' call phases (collection, fixtures, teardown) for any test file:
            # a module is imported, and a wider-scoped fixture set up, once per process.
            per_test: dict[str, dict] = {}
            if isinstance(tests_tr, dict) and isinstance(shared_tr, dict):
                base = merge(*shared_tr.values())
                for n in nids:
                    t = merge(tests_tr.get(n))
                    if t is not None and base is not None and n in raw:
                        per_test[n] = {rel: sorted(ls) for rel, ls in t.items()}
                if base is not None:
                    per_test[SHARED] = {rel: sorted(ls) for rel, ls in base.items()}
            self._remember(keyer, tf, res, everything, extra, findings, per_test, files, blobs)
            records.append(
                {
                    "tf": tf,
                    "results": res,
                    "everything": everything,
                    "extra": extra,
                    "findings": findings,
                    "traces": per_test,
                }
            )
        return out, notes, findings, records

    def _remember(
        self,
        keyer: Keyer,
        tf: str,
        results: dict[str, tuple[bool, str]],
        everything: bool,
        extra: dict[str, str],
        findings: list[dict[str, str]],
        traces: dict[str, dict] | None = None,
        files: dict[str, str] | None = None,
        blobs: Mapping[str, bytes] | None = None,
    ) -> None:
        """Cache the outcomes of a run of `tf`'s tests, keyed by what each test can reach.

        Args:
            keyer: the keys of the snapshot the tests ran on.
            tf: the test file.
            results: node id -> (passed, failure text).
            everything: the run was flagged or its record of what it loaded is missing:
                its outcomes depend on every file.
            extra: files the run loaded beyond its static closure (they widen the keys).
            findings: what the guard flagged in the run.
            traces: per test, what it executed (`traced`): with `keys="dynamic"`, its key
                is narrowed to that (`Keyer.dynamic_items`), else the static key.
            files: the snapshot the tests ran on (for `traces`).
            blobs: its contents, by digest (for `traces`).
        """
        Items = dict[str, tuple[str, ...]] | None
        groups: dict[tuple, tuple[Items, dict[str, str], dict[str, tuple[bool, str]]]] = {}

        def source(rel: str) -> bytes | None:
            d = (files or {}).get(rel)
            return None if d is None or blobs is None else blobs.get(d)

        for n, got in results.items():
            more: dict[str, str] = {}
            items: Items
            dyn = None
            if not everything and traces and self.keys == "dynamic" and n in traces:
                dyn = keyer.dynamic_items(tf, n, traces[n], source, traces.get(SHARED))
            if dyn is not None:
                items, more = dyn
            else:
                items = None if everything else keyer.items_for(tf, n)
            frozen = (
                None if items is None else tuple(sorted(items.items())),
                tuple(sorted(more.items())),
                dyn is not None,
            )
            groups.setdefault(frozen, (items, {**extra, **more}, {}))[2][n] = got
        with self._lock:
            for (_, _, dynamic), (items, wide, res) in groups.items():
                new = keyer.make(tf, items, res, dict(wide), tuple(findings), dynamic)
                entries = self._entries.setdefault(tf, [])
                for entry in reversed(entries[-64:]):  # the same state's, if any, is recent
                    if (entry.static_key, entry.items, entry.parts, entry.extra) == (
                        new.static_key,
                        new.items,
                        new.parts,
                        new.extra,
                    ):
                        entry.results.update(res)
                        break
                else:
                    entries.append(new)
                    limit = max(MAX_ENTRIES_PER_FILE, 32 * len(self.coll.by_file.get(tf, ())))
                    if len(entries) > limit:
                        del entries[0]

    def close(self) -> None:
        """Stop every worker; idempotent."""
        if self._closed:
            return
        with self._cv:
            self._closed = True
            workers = [w for w in self._all if w is not None]
            self._idle.clear()
            self._cv.notify_all()
        for w in workers:
            w.handle.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._memo is not None:
            with self._lock:
                entries = {tf: list(es) for tf, es in self._entries.items()}
            self._memo.save(entries)

    @property
    def hit_rate(self) -> float:
        """The share of the tests asked for (not fresh) served without a run."""
        return self.served / self.asked if self.asked else 0.0


def _record(r: dict, by_file: dict[str, tuple[str, ...]], files: dict[str, str]) -> dict:
    """A run's record read back from disk, checked against this collection and snapshot.

    Raises:
        ValueError: it names tests or files that are not these, or has the wrong shape.
    """
    tf = r["tf"]
    if tf not in by_file:
        raise ValueError(f"not a canonical test file: {tf!r}")
    ids = set(by_file[tf])
    results = {}
    for n, got in dict(r["results"]).items():
        passed, text = got
        if n not in ids or not isinstance(passed, bool) or not isinstance(text, str):
            raise ValueError(f"not an outcome of {tf}: {n!r}")
        results[n] = (passed, text)
    extra = {str(k): str(v) for k, v in dict(r["extra"]).items()}
    if any(files.get(rel) != d for rel, d in extra.items()) or not isinstance(
        r["everything"], bool
    ):
        raise ValueError("a record of another workspace")
    findings = [{k: str(f[k]) for k in ("kind", "test", "detail")} for f in r["findings"]]
    traces = {n: t for n, t in dict(r.get("traces") or {}).items() if n in ids or n == SHARED}
    return {
        "tf": tf,
        "results": results,
        "everything": r["everything"],
        "extra": extra,
        "findings": findings,
        "traces": traces,
    }
