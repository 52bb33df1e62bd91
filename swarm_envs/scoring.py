"""Scoring: which of the task's canonical tests pass on the agents' current code.

Scoring is the hot path of every step and the one place where an agent could gain reward
without earning it, so it is built around three rules:

1. **Only canonical tests count.** Test files and test configuration come from the task
   (`task.tests_dir`), never from the workspace. The scorer copies the workspace's source
   files into a private scoring tree that agents' commands cannot see, *leaving out* every
   protected path (`conftest.py`, `pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`,
   `sitecustomize.py`, `usercustomize.py`, `*.pth`, `pytest.py`, `_pytest/`, `tests/`),
   symlinks, devices, `__pycache__` and `.pyc` files. pytest runs with `python -I -B`, an
   explicit `-c` ini of ours, plugin autoloading off, and the project root *appended* to
   `sys.path` (a workspace module cannot shadow pytest or the standard library). The scoring
   worker sees its tree read-only, so code under test cannot rewrite what it is scored on.
2. **A test that was not observed to pass counts as failing.** Outcomes stream from a
   reporter plugin to the host over a channel tagged with a secret nonce (the code under
   test never holds the real stdout, so printed "summaries" or written "result files" are
   ignored). A collection error fails every test of the file; a crash, hang or `os._exit`
   fails the test it happened in (the rest are re-run in a new process); a skip is not a
   pass; a pytest internal swapped out by the code under test fails the whole run.
3. **Infrastructure failure is not a zero.** If the scorer itself fails (worker died, no
   answer within the run's time limit plus a grace period), the report says
   `verdict="no_verdict"` with the reason, after one automatic retry.

Two scorers implement the same interface:

- `kind="subprocess"`: the naive, straightforward one: a fresh tree and a fresh
  `python -m pytest`-like process per evaluation.
- `kind="fast"` (default): a pool of fork servers started once inside the sandbox (pytest
  imported once; a forked child per evaluation), a stat-and-content-hash snapshot of the
  workspace, and a result cache per test file keyed by the hash of the files that the test
  file can reach through the import graph. An unchanged tree is never re-tested; an edit
  re-runs only the test files that can see it; misses are split over the workers (both
  cores). Bytecode is never written or read, so a same-size edit within the filesystem's
  timestamp granularity is always seen (stale `.pyc` is impossible).
"""

from __future__ import annotations

import abc
import ast
import contextlib
import hashlib
import json
import logging
import os
import pathlib
import select
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Literal

from swarm_envs.error import ConfigError, SandboxError, ScoringError
from swarm_envs.sandboxes.base import Sandbox, ScoringHost, WorkerHandle
from swarm_envs.task import Task

logger = logging.getLogger("swarm_envs.scoring")

SCORER_KINDS = ("fast", "subprocess")
#: extra seconds a scoring run gets beyond the task's test timeout before the *scorer* is
#: considered failed (so a run that starts near the time cap is not cut off)
GRACE_S = 15.0
#: a file whose timestamps are this recent is re-hashed on every snapshot: timestamps are
#: coarse (a clock tick), so a same-size rewrite within one tick keeps size and mtime
RACY_NS = 100_000_000
_WORKER_SOURCE = pathlib.Path(__file__).with_name("_pytest_worker.py")
# Import forms that escape a static import graph: any file using one depends on everything.
_DYNAMIC_CALLS = {"__import__", "exec", "eval", "compile", "execfile"}
_DYNAMIC_MODULES = {"importlib", "pkgutil", "runpy", "imp", "zipimport"}


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

    @property
    def passed(self) -> int:
        """Number of passing tests."""
        return sum(self.per_test.values())

    @property
    def total(self) -> int:
        """Number of tests in the selection."""
        return len(self.per_test)

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    def summary(self) -> str:
        """One line for observations and logs."""
        if self.verdict != "ok":
            return f"no verdict: {self.error}"
        return f"{self.passed}/{self.total} tests pass"


class Scorer(abc.ABC):
    """Evaluates the canonical tests of a task against a sandbox's workspace."""

    kind: str = "?"

    def __init__(self, task: Task, sandbox: Sandbox):
        self.task = task
        self.sandbox = sandbox
        self._closed = False
        _hide_task(task)

    @abc.abstractmethod
    def evaluate(self, selection: Sequence[str] | None = None) -> TestReport:
        """Run (or look up) the selected canonical tests on the workspace's current source.

        Args:
            selection: test files (`"tests/test_x.py"`) or node-id prefixes
                (`"tests/test_x.py::TestA"`); None means the whole canonical suite.
                Entries that match no canonical test are reported in `failures`.

        Returns:
            A `TestReport`; never raises for anything the code under test does.
        """

    @property
    def collection(self) -> Collection:
        """The task's canonical tests (collected on first use, then kept)."""
        coll = getattr(self, "_collection", None)
        if coll is None:
            coll = self._collection = collect_test_ids(self.task)
        return coll

    def test_ids(self) -> list[str]:
        """The canonical node ids, collected once from the reference solution (cached per task)."""
        return list(self.collection.ids)

    def close(self) -> None:
        """Stop the scorer's workers (twice-safe). Does not close the sandbox."""
        self._closed = True

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- shared helpers

    def _select(self, selection: Sequence[str] | None) -> tuple[list[str], list[str]]:
        """(selected canonical ids in suite order, selection entries that matched nothing)."""
        return select_tests(self.collection.ids, selection)


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


def _hide_task(task: Task) -> None:
    with contextlib.suppress(ImportError):
        from swarm_envs.sandboxes.local import hide_path

        hide_path(task.root)


def make_scorer(task: Task, sandbox: Sandbox, *, kind: str = "fast") -> Scorer:
    """A scorer of `task` over `sandbox`'s workspace.

    Args:
        task: the task whose canonical tests count.
        sandbox: the episode's sandbox (its `root` holds the agents' files).
        kind: `"fast"` (fork servers, content-hash cache, per-file selection) or
            `"subprocess"` (a fresh pytest process per evaluation).
    """
    if kind == "fast":
        return FastScorer(task, sandbox)
    if kind == "subprocess":
        return SubprocessScorer(task, sandbox)
    raise ConfigError(f"scorer kind {kind!r} is unknown; choose one of {SCORER_KINDS}")


# --------------------------------------------------------------------- snapshots


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _read_regular(path: str, limit: int) -> tuple[bytes, os.stat_result] | None:
    """Read a regular file without following symlinks or blocking on FIFOs/devices."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks), st
    except OSError:
        return None
    finally:
        os.close(fd)


class WorkspaceSnapshot:
    """The files of a workspace that scoring uses, by content hash, re-read only on change.

    Files that count: regular files outside `tests/`, protected paths, dot-directories and
    `__pycache__`, excluding bytecode. Symlinks, devices, FIFOs and sockets are ignored.
    A file is re-hashed when its (inode, size, mtime, ctime) changes, and also while its
    timestamps are within `RACY_NS` of the snapshot (the "racy git" rule).
    """

    def __init__(self, root: pathlib.Path, task: Task, max_file_bytes: int):
        self.root = pathlib.Path(root)
        self.task = task
        self.max_file_bytes = max_file_bytes
        self._stat: dict[str, tuple[tuple[int, int, int, int], str, bool]] = {}
        self.blobs: dict[str, bytes] = {}
        self._excluded: dict[str, bool] = {}

    def _skip_file(self, rel: str) -> bool:
        hit = self._excluded.get(rel)
        if hit is None:
            name = rel.rsplit("/", 1)[-1]
            hit = (
                name.endswith((".pyc", ".pyo"))
                or self.task.is_protected(rel)
                or self.task.is_protected(name)  # e.g. pkg/sitecustomize.py, pkg/pytest.py
            )
            if len(self._excluded) > 100_000:
                self._excluded.clear()
            self._excluded[rel] = hit
        return hit

    def take(self) -> dict[str, str]:
        """{relative path: content digest} of every file that counts, now."""
        files: dict[str, str] = {}
        now = time.time_ns()
        seen_stat: dict[str, tuple[tuple[int, int, int, int], str, bool]] = {}
        stack = [("", str(self.root))]
        while stack:
            rel_dir, path = stack.pop()
            try:
                it = os.scandir(path)
            except OSError:
                continue
            with it:
                for e in it:
                    name = e.name
                    rel = rel_dir + name
                    try:
                        if e.is_dir(follow_symlinks=False):
                            if name.startswith(".") or name == "__pycache__":
                                continue
                            if rel_dir == "" and name == "tests":
                                continue  # canonical tests come from the task
                            stack.append((rel + "/", e.path))
                            continue
                        if not e.is_file(follow_symlinks=False):
                            continue  # symlinks, devices, FIFOs, sockets
                        if self._skip_file(rel):
                            continue
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                    ent = self._stat.get(rel)
                    if ent is not None and ent[0] == key and ent[2]:
                        files[rel] = ent[1]
                        seen_stat[rel] = ent
                        continue
                    got = _read_regular(e.path, self.max_file_bytes)
                    if got is None:
                        continue
                    data, fst = got
                    key = (fst.st_ino, fst.st_size, fst.st_mtime_ns, fst.st_ctime_ns)
                    d = _digest(data)
                    self.blobs[d] = data
                    trusted = now - max(fst.st_mtime_ns, fst.st_ctime_ns) > RACY_NS
                    seen_stat[rel] = (key, d, trusted)
                    files[rel] = d
        self._stat = seen_stat
        return files

    def prune(self, keep: Iterable[dict[str, str]]) -> None:
        """Forget file contents no longer referenced by any of `keep`."""
        live = {d for m in keep for d in m.values()}
        for d in [d for d in self.blobs if d not in live]:
            del self.blobs[d]


# ----------------------------------------------------------------- canonical ids


@dataclass(frozen=True)
class Collection:
    """The canonical tests of a task: node ids in suite order and by test file."""

    ids: tuple[str, ...]
    by_file: dict[str, tuple[str, ...]]
    test_files: dict[str, bytes]


_collections: dict[tuple[str, str], Collection] = {}
_collections_lock = threading.Lock()


def _test_files(task: Task) -> dict[str, bytes]:
    return {rel: p.read_bytes() for rel, p in task.test_files() if not rel.endswith(".pyc")}


def collect_test_ids(task: Task) -> Collection:
    """Collect the canonical node ids on the reference solution, once per task and process.

    The reference runs in a throwaway local sandbox whose scoring area holds it only for
    this run. Raises `ScoringError` when the reference does not collect cleanly.
    """
    tests = _test_files(task)
    sol = task.solution_files()
    h = hashlib.blake2b(digest_size=16)
    for rel, data in sorted({**sol, **tests}.items()):
        h.update(rel.encode() + b"\0" + _digest(data).encode())
    # How the tests run is part of what is collected (deselected ids, settings, seed).
    h.update(task.manifest.tests.model_dump_json().encode())
    h.update(json.dumps(task.manifest.requires).encode())
    key = (str(task.root), h.hexdigest())
    with _collections_lock:
        if key in _collections:
            return _collections[key]
        from swarm_envs.sandboxes.local import LocalSandbox

        with LocalSandbox() as sb:
            host = sb.scoring_host()
            _install_worker(host, task)
            files: dict[str, bytes | None] = {
                rel: data
                for rel, data in sol.items()
                if not rel.startswith("tests/") and "__pycache__" not in rel
            }
            files.update(tests)
            host.sync("ref", files)
            recs = _run_once(
                host,
                "collect",
                {"tree": f"{host.inside_dir}/ref", "targets": list(task.manifest.tests.paths)},
                timeout_s=task.manifest.tests.timeout_s + GRACE_S,
            )
        coll = [r for r in recs if r.get("ev") == "collection"]
        if not coll:
            raise ScoringError(
                f"task {task.id}: collecting the canonical tests on the reference solution "
                "produced no answer (is pytest installed in this Python?)"
            )
        if coll[0].get("errors"):
            errs = "; ".join(f"{k}: {v}" for k, v in coll[0]["errors"].items())
            raise ScoringError(f"task {task.id}: the reference solution does not collect: {errs}")
        ids = tuple(str(i) for i in coll[0]["ids"])
        if not ids:
            raise ScoringError(f"task {task.id}: no canonical tests were collected")
        by_file: dict[str, list[str]] = {}
        for i in ids:
            by_file.setdefault(i.split("::")[0], []).append(i)
        result = Collection(ids, {k: tuple(v) for k, v in by_file.items()}, tests)
        _collections[key] = result
        return result


# -------------------------------------------------------------- worker plumbing


def _install_worker(host: ScoringHost, task: Task) -> None:
    from swarm_envs.environment import read_environment

    spec = task.manifest.tests
    # The task's third-party packages, read-only in the scoring area (installed beforehand).
    site = {f"site/{rel}": data for rel, data in read_environment(task.environment()).items()}
    settings = {
        "hash_seed": spec.hash_seed,
        "project": task.top_level_names(),
        "deselect": list(spec.deselect),
        "site": "site" if site else None,
    }
    host.sync(
        "bin",
        {
            "worker.py": _WORKER_SOURCE.read_bytes(),
            # The task's own pytest settings (`[tests.ini]`), never the workspace's.
            "pytest.ini": task.pytest_ini(),
            "task.json": json.dumps(settings).encode(),
            **site,
        },
    )


def _worker_argv(host: ScoringHost, mode: str) -> list[str]:
    return [host.python, "-I", "-B", f"{host.inside_dir}/bin/worker.py", mode]


class _Channel:
    """Reads nonce-tagged JSON records from a worker's stdout, with deadlines."""

    def __init__(self, handle: WorkerHandle, nonce: str):
        self.handle = handle
        self.nonce = nonce.encode()
        self.fd = handle.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        self.eof = False

    def next(self, deadline: float) -> dict | None:
        """The next record, or None at EOF or when the deadline passes."""
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                tag, _, rest = line.partition(b" ")
                if tag == self.nonce:
                    try:
                        return json.loads(rest)
                    except ValueError:
                        continue
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], min(left, 1.0))
            if not r:
                continue
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self.eof = True
            self.buf += data


def _limits_for_children(sandbox: Sandbox) -> dict[str, float]:
    lim = sandbox.limits
    return {"cpu_s": lim.cpu_s, "memory_mb": lim.memory_mb}


def _run_once(host: ScoringHost, mode: str, hello: dict, *, timeout_s: float) -> list[dict]:
    """Run the worker in `once`/`collect` mode and return its records (until EOF/timeout)."""
    nonce = os.urandom(16).hex()
    handle = host.start_worker(_worker_argv(host, mode))
    try:
        msg = {**hello, "nonce": nonce, "ini": f"{host.inside_dir}/bin/pytest.ini"}
        try:
            handle.stdin.write((json.dumps(msg) + "\n").encode())
            handle.stdin.flush()
            handle.stdin.close()
        except OSError:
            pass
        ch = _Channel(handle, nonce)
        deadline = time.monotonic() + timeout_s
        out = []
        while True:
            rec = ch.next(deadline)
            if rec is None:
                break
            out.append(rec)
        if not ch.eof and time.monotonic() >= deadline:
            out.append({"ev": "host_timeout"})
        return out
    finally:
        handle.kill()


def _report_from(
    selected: Sequence[str],
    results: dict[str, tuple[bool, str]],
    collect_errors: dict[str, str],
    default_text: str,
) -> tuple[dict[str, bool], dict[str, str]]:
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


def _no_verdict(selected: Sequence[str], error: str, start: float) -> TestReport:
    return TestReport(
        per_test=dict.fromkeys(selected, False),
        failures={},
        verdict="no_verdict",
        error=error,
        wall_s=time.monotonic() - start,
        cached=False,
    )


def _unmatched_failures(unmatched: list[str], task: Task) -> dict[str, str]:
    files = sorted(collect_test_ids(task).by_file)
    return {
        u: f"no canonical test matches {u!r}; test files: {', '.join(files)}" for u in unmatched
    }


# --------------------------------------------------------------- subprocess kind


class SubprocessScorer(Scorer):
    """The naive scorer: a fresh tree and a fresh pytest process for every evaluation."""

    kind = "subprocess"

    def __init__(self, task: Task, sandbox: Sandbox):
        super().__init__(task, sandbox)
        self.host = sandbox.scoring_host()
        _install_worker(self.host, task)
        self._snap = WorkspaceSnapshot(
            sandbox.root, task, sandbox.limits.file_size_mb * 1024 * 1024
        )
        self._runs = 0
        self._lock = threading.Lock()

    def evaluate(self, selection: Sequence[str] | None = None) -> TestReport:
        start = time.monotonic()
        selected, unmatched = self._select(selection)
        if self._closed:
            return _no_verdict(selected, "the scorer is closed", start)
        last = ""
        for _attempt in range(2):
            try:
                return self._evaluate(selected, unmatched, start)
            except (ScoringError, SandboxError) as e:
                last = str(e)
                logger.warning("scoring failed (%s); retrying once", e)
        return _no_verdict(selected, last, start)

    def _evaluate(self, selected: list[str], unmatched: list[str], start: float) -> TestReport:
        with self._lock:
            self._runs += 1
            rel = f"runs/{self._runs}"
            files = self._snap.take()
        coll = self.collection
        tree: dict[str, bytes | None] = {r: self._snap.blobs[d] for r, d in files.items()}
        tree.update(coll.test_files)
        self.host.sync(rel, tree)
        try:
            targets = sorted({i.split("::")[0] for i in selected})
            if not targets:
                per, fails = {}, {}
                return TestReport(
                    per,
                    {**fails, **_unmatched_failures(unmatched, self.task)},
                    "ok",
                    None,
                    time.monotonic() - start,
                    False,
                )
            partial = len(selected) < sum(len(coll.by_file[t]) for t in targets)
            timeout = self.task.manifest.tests.timeout_s
            hello = {
                "tree": f"{self.host.inside_dir}/{rel}",
                "targets": targets,
                "select": selected if partial else None,
                "limits": _limits_for_children(self.sandbox),
            }
            recs = _run_once(self.host, "once", hello, timeout_s=timeout + GRACE_S)
        finally:
            self._remove_tree(rel, tree)
        if not recs:
            log = self.host.worker_log()
            raise ScoringError(f"the pytest process produced no records; worker log: {log[-500:]}")
        if recs[-1].get("ev") == "host_timeout" and len(recs) == 1:
            raise ScoringError(f"pytest did not start within {timeout + GRACE_S:g} s")
        from swarm_envs._pytest_worker import RunState

        st = RunState()
        for r in recs:
            if r.get("ev") != "host_timeout":
                st.feed(r)
        results = {k: (bool(v[0]), str(v[1])) for k, v in st.final_results().items()}
        errors = st.collect_errors
        default = "not observed to pass (the test run ended early: crash, exit or timeout)"
        per, fails = _report_from(selected, results, errors, default)
        fails.update(_unmatched_failures(unmatched, self.task))
        return TestReport(
            per_test=per,
            failures=fails,
            verdict="ok",
            error=None,
            wall_s=time.monotonic() - start,
            cached=False,
            ran=len(selected),
        )

    def _remove_tree(self, rel: str, tree: dict[str, bytes | None]) -> None:
        with contextlib.suppress(OSError):
            self.host.remove_tree(rel)


# ---------------------------------------------------------------------- fast kind


class ImportGraph:
    """Which workspace files each test file can reach through imports (static analysis).

    Sound by construction where it cannot be precise: a file that imports dynamically
    (`__import__`, `importlib`, `exec`, `eval`, `pkgutil`, `runpy`) depends on every Python
    file, and every non-Python file (data) is a dependency of every test file.
    """

    def __init__(self) -> None:
        self._parsed: dict[tuple[str, str], tuple[frozenset[str], bool]] = {}
        self._last: tuple[str, dict[str, frozenset[str]]] | None = None

    def _imports(self, rel: str, digest: str, data: bytes) -> tuple[frozenset[str], bool]:
        key = (rel, digest)
        hit = self._parsed.get(key)
        if hit is not None:
            return hit
        names: set[str] = set()
        dynamic = False
        parts = rel[:-3].split("/")
        is_pkg = parts[-1] == "__init__"
        package = parts[:-1] if not is_pkg else parts[:-1]
        try:
            tree = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError):
            tree = None  # a broken file imports nothing (it fails at import)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    names.add(a.name)
                    if a.name.split(".")[0] in _DYNAMIC_MODULES:
                        dynamic = True
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                    if node.level - 1 > len(package):
                        continue
                    mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
                else:
                    mod = node.module or ""
                    if mod.split(".")[0] in _DYNAMIC_MODULES:
                        dynamic = True
                if mod:
                    names.add(mod)
                for a in node.names:
                    if a.name != "*":
                        names.add(f"{mod}.{a.name}" if mod else a.name)
                if node.names and node.names[0].name == "*" and mod:
                    names.add(mod + ".*")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in _DYNAMIC_CALLS:
                    dynamic = True
        out = (frozenset(names), dynamic)
        if len(self._parsed) > 50_000:
            self._parsed.clear()
        self._parsed[key] = out
        return out

    def dependencies(
        self,
        files: dict[str, str],
        blobs: dict[str, bytes],
        tests: dict[str, bytes],
    ) -> dict[str, frozenset[str]]:
        """{canonical test file: workspace files it depends on} for every canonical test file."""
        # The graph only changes when files appear or disappear or their imports change,
        # not when a function body is edited: reuse the last answer while it holds.
        sig = hashlib.blake2b(digest_size=16)
        for rel in sorted(files):
            if rel.endswith(".py"):
                names, dyn = self._imports(rel, files[rel], blobs[files[rel]])
                sig.update(
                    rel.encode() + (b"!" if dyn else b":") + "|".join(sorted(names)).encode()
                )
            else:
                sig.update(rel.encode() + b"#")
            sig.update(b"\0")
        signature = sig.hexdigest()
        if self._last is not None and self._last[0] == signature:
            return self._last[1]
        deps = self._dependencies(files, blobs, tests)
        self._last = (signature, deps)
        return deps

    def _dependencies(
        self,
        files: dict[str, str],
        blobs: dict[str, bytes],
        tests: dict[str, bytes],
    ) -> dict[str, frozenset[str]]:
        index: dict[str, str] = {}
        for rel in files:
            if rel.endswith(".py"):
                mod = rel[:-3].replace("/", ".")
                if mod.endswith(".__init__"):
                    mod = mod[: -len(".__init__")]
                index.setdefault(mod, rel)
        test_index: dict[str, str] = {}
        for rel in tests:
            if rel.endswith(".py"):
                for base in (rel, rel[len("tests/") :]):
                    mod = base[:-3].replace("/", ".")
                    if mod.endswith(".__init__"):
                        mod = mod[: -len(".__init__")]
                    test_index.setdefault(mod, rel)
        all_py = frozenset(r for r in files if r.endswith(".py"))
        data_files = frozenset(r for r in files if not r.endswith(".py"))
        package_inits = {r for r in files if r.endswith("__init__.py")}

        def resolve(name: str) -> list[str]:
            out = []
            star = name.endswith(".*")
            if star:
                name = name[:-2]
            bits = name.split(".")
            for i in range(1, len(bits) + 1):
                mod = ".".join(bits[:i])
                if mod in index:
                    out.append(index[mod])
                if mod in test_index:
                    out.append(test_index[mod])
            if star:
                prefix = name.replace(".", "/") + "/"
                out.extend(
                    r for r in files if r.startswith(prefix) and r.count("/") == prefix.count("/")
                )
            return out

        deps: dict[str, frozenset[str]] = {}
        for tf in tests:
            if (
                not tf.endswith(".py")
                or not tf.rsplit("/", 1)[-1].startswith(("test_",))
                and not tf.endswith("_test.py")
            ):
                continue
            seen: set[str] = set()
            todo = [tf]
            dynamic = False
            while todo and not dynamic:
                cur = todo.pop()
                if cur in seen:
                    continue
                seen.add(cur)
                if cur in tests:
                    data, digest = tests[cur], "canonical"
                else:
                    digest = files[cur]
                    data = blobs[digest]
                names, dyn = self._imports(cur, digest, data)
                if dyn:
                    dynamic = True
                    break
                for n in names:
                    todo.extend(resolve(n))
                # importing a.b.c runs a/__init__ and a/b/__init__ too
                parts = cur.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    init = "/".join(parts[:i]) + "/__init__.py"
                    if init in package_inits:
                        todo.append(init)
            mine = all_py if dynamic else frozenset(s for s in seen if s not in tests)
            deps[tf] = mine | data_files
        return deps


def skeleton_digest(data: bytes) -> str:
    """Digest of a Python file without its function bodies (what importing it does).

    Comments, formatting and line numbers do not count; decorators, default values,
    signatures, docstrings, class bodies and module-level code do. A file that does not
    parse is its content.
    """
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return "raw:" + _digest(data)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            keep = (
                [first]
                if isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                else []
            )
            node.body = [*keep, ast.Pass()]
    return "skel:" + _digest(ast.dump(tree, include_attributes=False).encode())


def function_digests(data: bytes) -> dict[str, str]:
    """{qualified function name: digest of its syntax tree} (names as the worker gives them)."""
    from swarm_envs._pytest_worker import function_names

    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    return {
        q: _digest(ast.dump(node, include_attributes=False).encode())  # type: ignore[arg-type]
        for q, node in function_names(tree)
    }


_shared: dict[int, tuple[Collection, threading.Lock, dict[str, list[_Entry]]]] = {}
_shared_lock = threading.Lock()


def _shared_entries(coll: Collection) -> tuple[threading.Lock, dict[str, list[_Entry]]]:
    """The lock and result cache shared by the scorers of one canonical test suite."""
    with _shared_lock:
        if id(coll) not in _shared:  # collections live for the process: ids are stable
            _shared[id(coll)] = (coll, threading.Lock(), {})
        _, lock, entries = _shared[id(coll)]
        return lock, entries


@dataclass
class _Entry:
    """Cached outcomes of some tests of one test file, and the state they depend on.

    The tests imported what `static_key` covers (every file the test file can import, by
    skeleton: what importing it does) and executed `items`: per file, the functions whose
    bodies ran ("*": the file was read as data, so its whole content counts). `parts`
    holds, per such file, its content digest and the hash of those functions when the
    entry was last checked; a file whose content is unchanged need not be looked at again.
    `items` None means the tests may have run anything: every file counts by content.
    """

    static_key: str
    items: dict[str, tuple[str, ...]] | None
    parts: dict[str, tuple[str, str]]
    results: dict[str, tuple[bool, str]]


class _Keyer:
    """Validates cache entries against one snapshot of the workspace (memoized)."""

    def __init__(
        self,
        files: dict[str, str],
        blobs: dict[str, bytes],
        static: dict[str, frozenset[str]],
        skeletons: dict[str, object],
        coll: Collection,
    ):
        self.files = files
        self.blobs = blobs
        self.static = static
        self.skeletons = skeletons
        self.coll = coll
        self._static_memo: dict[str, tuple[str, frozenset[str]]] = {}
        self._part_memo: dict[tuple[str, str, tuple[str, ...], bool], str] = {}
        self._all = frozenset(files)
        self._all_sig: str | None = None

    def _skel(self, digest: str) -> str:
        s = self.skeletons.get(digest)
        if s is None:
            s = self.skeletons[digest] = skeleton_digest(self.blobs[digest])
        return s  # type: ignore[return-value]

    def _funcs(self, digest: str) -> dict[str, str]:
        key = "f:" + digest
        funcs = self.skeletons.get(key)
        if funcs is None:
            funcs = self.skeletons[key] = function_digests(self.blobs[digest])
        return funcs  # type: ignore[return-value]

    def _val(self, rel: str) -> str:
        """How a file counts when none of its function bodies ran: by its skeleton."""
        d = self.files.get(rel)
        if d is None:
            return "-"
        return self._skel(d) if rel.endswith(".py") else d

    def static_key(self, tf: str) -> tuple[str, frozenset[str]]:
        """Key of the test file and of the skeletons of every file it can import."""
        hit = self._static_memo.get(tf)
        if hit is None:
            static = self.static.get(tf, self._all)
            h = hashlib.blake2b(digest_size=16)
            h.update(tf.encode() + b"\0" + _digest(self.coll.test_files.get(tf, b"")).encode())
            for rel in sorted(static):
                h.update(b"\0" + rel.encode() + b"=" + self._val(rel).encode())
            hit = self._static_memo[tf] = (h.hexdigest(), static)
        return hit

    def all_sig(self) -> str:
        if self._all_sig is None:
            h = hashlib.blake2b(digest_size=16)
            for rel in sorted(self._all):
                h.update(rel.encode() + b"=" + self.files[rel].encode() + b"\0")
            self._all_sig = h.hexdigest()
        return self._all_sig

    def part(self, rel: str, names: tuple[str, ...], outside_static: bool) -> str:
        """Hash of the functions `names` of `rel` (and its skeleton if not imported)."""
        d = self.files.get(rel)
        if d is None:
            return "-"
        memo_key = (rel, d, names, outside_static)
        hit = self._part_memo.get(memo_key)
        if hit is None:
            h = hashlib.blake2b(digest_size=16)
            funcs = self._funcs(d) if rel.endswith(".py") else {}
            for name in names:
                val = d if name == "*" else funcs.get(name, "-")
                h.update(name.encode() + b"=" + val.encode() + b"\0")
            if outside_static:
                h.update(b"skeleton=" + self._val(rel).encode())
            hit = self._part_memo[memo_key] = h.hexdigest()
        return hit

    def make(self, tf: str, executed: frozenset[str] | None, results: dict) -> _Entry:
        """A new cache entry for tests of `tf` that executed `executed` (None: anything)."""
        static_key, static = self.static_key(tf)
        if executed is None:
            return _Entry(static_key, None, {"*": (self.all_sig(), "")}, dict(results))
        items: dict[str, list[str]] = {}
        for item in executed:
            rel, _, name = item.partition("::")
            items.setdefault(rel, []).append(name)
        frozen = {rel: tuple(sorted(names)) for rel, names in items.items()}
        parts = {
            rel: (self.files.get(rel, "-"), self.part(rel, names, rel not in static))
            for rel, names in frozen.items()
        }
        return _Entry(static_key, frozen, parts, dict(results))

    def valid(self, tf: str, entry: _Entry) -> bool:
        """Whether the entry's outcomes still hold in this snapshot (updates its parts)."""
        if entry.items is None:
            return entry.parts["*"][0] == self.all_sig()
        static_key, static = self.static_key(tf)
        if static_key != entry.static_key:
            return False
        for rel, (digest, part) in entry.parts.items():
            cur = self.files.get(rel, "-")
            if cur == digest:
                continue
            if self.part(rel, entry.items[rel], rel not in static) != part:
                return False
            entry.parts[rel] = (cur, part)
        return True


@dataclass
class _Worker:
    handle: WorkerHandle
    channel: _Channel
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
    """

    kind = "fast"

    def __init__(
        self,
        task: Task,
        sandbox: Sandbox,
        *,
        workers: int | None = None,
        test_timeout_s: float | None = None,
    ):
        super().__init__(task, sandbox)
        self.host = sandbox.scoring_host()
        _install_worker(self.host, task)
        self.coll = self.collection
        self._snap = WorkspaceSnapshot(
            sandbox.root, task, sandbox.limits.file_size_mb * 1024 * 1024
        )
        self._graph = ImportGraph()
        self._n_workers = max(1, workers or min(2, os.cpu_count() or 1))
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._cv = threading.Condition()
        # Outcomes depend only on content (canonical tests + the files they reach), so the
        # cache is shared by every scorer of the task in this process: a new episode's
        # starting state is scored from it without starting a worker.
        self._lock, self._entries = _shared_entries(self.coll)
        self._skeletons: dict[str, object] = {}
        self._last: tuple[dict[str, str], tuple[str, ...], TestReport] | None = None
        self._deps_for: tuple[dict[str, str], dict[str, frozenset[str]]] | None = None
        self._pool = ThreadPoolExecutor(max_workers=self._n_workers, thread_name_prefix="scorer")
        self._nworker_seq = 0
        timeout = task.manifest.tests.timeout_s
        self.test_timeout_s = test_timeout_s or min(timeout, max(10.0, sandbox.limits.wall_s))

    # ------------------------------------------------------------------- workers

    def _start_worker(self) -> _Worker:
        self._nworker_seq += 1
        rel = f"trees/w{self._nworker_seq}"
        self.host.sync(rel, dict(self.coll.test_files))
        nonce = os.urandom(16).hex()
        handle = self.host.start_worker(_worker_argv(self.host, "serve"), long_lived=True)
        hello = {
            "nonce": nonce,
            "ini": f"{self.host.inside_dir}/bin/pytest.ini",
            "limits": _limits_for_children(self.sandbox),
            "pidns": self.host.worker_owns_pid_namespace,
        }
        ch = _Channel(handle, nonce)
        try:
            handle.stdin.write((json.dumps(hello) + "\n").encode())
            handle.stdin.flush()
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
                    self._all.append(None)  # type: ignore[arg-type] - reserve a slot
                    break
                self._cv.wait()
        try:
            w = self._start_worker()
        except BaseException:
            with self._cv:
                self._all.remove(None)  # type: ignore[arg-type]
                self._cv.notify()
            raise
        with self._cv:
            self._all[self._all.index(None)] = w  # type: ignore[arg-type]
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
        blobs: dict[str, bytes],
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
            }
            try:
                w.handle.stdin.write((json.dumps(req) + "\n").encode())
                w.handle.stdin.flush()
            except (OSError, ValueError) as e:
                raise ScoringError(f"the scoring worker is gone: {e}") from e
            deadline = time.monotonic() + timeout + GRACE_S
            while True:
                rec = w.channel.next(deadline)
                if rec is None:
                    why = (
                        "died"
                        if w.channel.eof
                        else f"gave no answer within {timeout + GRACE_S:g} s"
                    )
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

    def evaluate(self, selection: Sequence[str] | None = None) -> TestReport:
        start = time.monotonic()
        selected, unmatched = self._select(selection)
        if self._closed:
            return _no_verdict(selected, "the scorer is closed", start)
        last = ""
        for _attempt in range(2):
            try:
                return self._evaluate(selected, unmatched, start)
            except (ScoringError, SandboxError) as e:
                if self._closed:
                    return _no_verdict(selected, "the scorer is closed", start)
                last = str(e)
                logger.warning("scoring failed (%s); retrying once", e)
        return _no_verdict(selected, last, start)

    def _static_deps(self, files: dict[str, str]) -> dict[str, frozenset[str]]:
        if self._deps_for is None or self._deps_for[0] != files:
            deps = self._graph.dependencies(files, self._snap.blobs, self.coll.test_files)
            self._deps_for = (files, deps)
        return self._deps_for[1]

    def _keyer(self, files: dict[str, str]) -> _Keyer:
        return _Keyer(files, self._snap.blobs, self._static_deps(files), self._skeletons, self.coll)

    def _evaluate(self, selected: list[str], unmatched: list[str], start: float) -> TestReport:
        sel_key = tuple(selected)
        with self._lock:
            files = self._snap.take()
            last = self._last
            if last is not None and last[0] == files and last[1] == sel_key:
                return replace(last[2], wall_s=time.monotonic() - start, cached=True, ran=0)
            keyer = self._keyer(files)
            blobs = dict(self._snap.blobs)
            by_file: dict[str, list[str]] = {}
            for nid in selected:
                by_file.setdefault(nid.split("::")[0], []).append(nid)
            results: dict[str, tuple[bool, str]] = {}
            missing: dict[str, list[str]] = {}
            for tf, nids in by_file.items():
                have = self._lookup(tf, keyer)
                for n in nids:
                    if n in have:
                        results[n] = have[n]
                    else:
                        missing.setdefault(tf, []).append(n)
        ran = 0
        notes: list[str] = []
        if missing:
            ran = sum(len(v) for v in missing.values())
            chunks = self._split(missing)
            futures = [
                self._pool.submit(self._run_chunk, files, blobs, chunk, keyer) for chunk in chunks
            ]
            for f in futures:
                got, chunk_notes = f.result()
                results.update(got)
                notes.extend(chunk_notes)
        with self._lock:
            default = "not observed to pass (the test run ended early: crash, exit or timeout)"
            per, fails = _report_from(selected, results, {}, default)
            fails.update(_unmatched_failures(unmatched, self.task))
            report = TestReport(
                per_test=per,
                failures=fails,
                verdict="ok",
                error=None,
                wall_s=time.monotonic() - start,
                cached=not missing,
                ran=ran,
                notes=tuple(notes),
            )
            self._last = (files, sel_key, report)
            self._snap.prune([files, *(w.state for w in self._all if w is not None)])
            self._prune_skeletons()
        return report

    def _lookup(self, tf: str, keyer: _Keyer) -> dict[str, tuple[bool, str]]:
        """Cached outcomes of `tf`'s tests that are still valid in the keyer's state."""
        have: dict[str, tuple[bool, str]] = {}
        for entry in self._entries.get(tf, ()):
            if keyer.valid(tf, entry):
                have.update(entry.results)
        return have

    def _prune_skeletons(self) -> None:
        if len(self._skeletons) > 5_000:
            self._skeletons.clear()

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
        blobs: dict[str, bytes],
        chunk: dict[str, list[str]],
        keyer: _Keyer,
    ) -> tuple[dict[str, tuple[bool, str]], list[str]]:
        targets = sorted(chunk)
        partial = any(len(v) < len(self.coll.by_file[tf]) for tf, v in chunk.items())
        select_ids = [n for v in chunk.values() for n in v] if partial else None
        rec = self._run_on_worker(files, blobs, targets, select_ids)
        raw = {k: (bool(v[0]), str(v[1])) for k, v in rec.get("results", {}).items()}
        errors = {k: str(v) for k, v in rec.get("collect_errors", {}).items()}
        notes = [str(n) for n in rec.get("notes", [])]
        deps = rec.get("deps") or {}
        everything = bool(deps.get("everything")) or bool(rec.get("tampered"))
        glob = frozenset(str(f) for f in deps.get("global", []))
        per_test = deps.get("tests", {})
        default = "not observed to pass" + (f" ({'; '.join(notes)})" if notes else "")
        out: dict[str, tuple[bool, str]] = {}
        groups: dict[tuple[str, frozenset[str] | None], dict[str, tuple[bool, str]]] = {}
        for tf, nids in chunk.items():
            for n in nids:
                got = raw.get(n)
                if got is None:
                    text = f"collection failed: {errors[tf]}" if tf in errors else default
                    got = (False, text)
                out[n] = got
                mine = per_test.get(n)
                e = None if everything or mine is None else frozenset(mine) | glob
                groups.setdefault((tf, e), {})[n] = got
        with self._lock:
            for (tf, e), res in groups.items():
                new = keyer.make(tf, e, res)
                entries = self._entries.setdefault(tf, [])
                for entry in entries:
                    if (entry.static_key, entry.items, entry.parts) == (
                        new.static_key,
                        new.items,
                        new.parts,
                    ):
                        entry.results.update(res)
                        break
                else:
                    entries.append(new)
                    if len(entries) > 256:
                        del entries[0]
        return out, notes

    def close(self) -> None:
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
