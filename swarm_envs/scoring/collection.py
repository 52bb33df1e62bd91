"""The canonical tests of a task: collected once, on the reference solution."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

from swarm_envs.error import SandboxError, ScoringError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.tasks import HELD_OUT_DIR, Task, task_roots

from .channel import install_worker, run_once
from .disk import DiskCache, hidden_paths, key, task_key, where
from .snapshot import digest

#: extra seconds a scoring run gets beyond the task's test timeout before the *scorer* is
#: considered failed (so a run that starts near the time cap is not cut off)
GRACE_S = 15.0
_REF_TREE = "ref"

#: where a collection runs: a sandbox (the episode's), a factory of throwaway sandboxes, or
#: None for `swarm_envs.sandboxes.make_sandbox()` with its defaults
SandboxSource: TypeAlias = Sandbox | Callable[[], Sandbox] | None


@dataclass(frozen=True)
class Collection:
    """The canonical tests of a task.

    Attributes:
        ids: the visible tests' node ids, in suite order (what agents can select).
        by_file: node ids by test file (held-out files included).
        test_files: every canonical file as it appears in a scoring tree (the held-out
            ones under `tests/_held_out/`).
        held_out: the held-out tests' node ids (never in the workspace).
    """

    ids: tuple[str, ...]
    by_file: dict[str, tuple[str, ...]]
    test_files: dict[str, bytes]
    held_out: tuple[str, ...] = ()

    @property
    def all_ids(self) -> tuple[str, ...]:
        """Visible then held-out node ids."""
        return self.ids + self.held_out


_collections: dict[tuple[str, str], Collection] = {}
_collections_lock = threading.Lock()


def test_files(task: Task) -> dict[str, bytes]:
    """The canonical test files as they appear in a scoring tree: {relative path: content}.

    Held-out tests are there too, under `tests/_held_out/`.
    """
    files = {rel: p.read_bytes() for rel, p in task.test_files() if not rel.endswith(".pyc")}
    files.update((rel, p.read_bytes()) for rel, p in task.held_out_files())
    return files


def collect_test_ids(
    task: Task, sandbox: SandboxSource = None, *, disk: DiskCache | None = None
) -> Collection:
    """Collect the canonical node ids on the reference solution, once per task and process.

    Args:
        task: the task.
        sandbox: where to run the collection: the caller's sandbox (its private scoring
            area holds the reference for this run only), or a factory of a throwaway
            sandbox (closed afterwards); None uses `make_sandbox()`.
        disk: a cache on disk to read the collection from and store it in, keyed by every
            file of the task folder (see `disk`); None: collect in every new process.

    Raises:
        ScoringError: the reference does not collect cleanly, or yields no tests.
    """
    tests = test_files(task)
    sol = task.solution_files()
    h = hashlib.blake2b(digest_size=16)
    for rel, data in sorted({**sol, **tests}.items()):
        h.update(rel.encode() + b"\0" + digest(data).encode())
    # How the tests run is part of what is collected (deselected ids, settings, seed).
    h.update(task.manifest.tests.model_dump_json().encode())
    h.update(json.dumps(task.manifest.requires).encode())
    key = (str(task.root), h.hexdigest())
    with _collections_lock:
        hit = _collections.get(key)
        if hit is not None:
            return hit
        dkey = _disk_key(task, sandbox) if disk is not None else ""
        stored = disk.get("collection", dkey) if disk is not None else None
        if isinstance(stored, list) and _well_formed(stored, tests):
            result = _collection(task, [{"ev": "collection", "ids": stored}], tests)
            _collections[key] = result
            return result
        files: dict[str, bytes | None] = {
            rel: data
            for rel, data in sol.items()
            if not rel.startswith("tests/") and "__pycache__" not in rel
        }
        files.update(tests)
        with _sandbox_for(sandbox, task) as sb:
            host = sb.scoring_host()
            install_worker(host, task)
            host.sync(_REF_TREE, files)
            try:
                recs = run_once(
                    host,
                    "collect",
                    {
                        "tree": f"{host.inside_dir}/{_REF_TREE}",
                        "targets": _targets(task, tests),
                    },
                    timeout_s=task.manifest.tests.timeout_s + GRACE_S,
                )
            finally:
                with contextlib.suppress(OSError, SandboxError):
                    host.remove_tree(_REF_TREE)
            log = host.worker_log() if not any(r.get("ev") == "collection" for r in recs) else ""
        result = _collection(task, recs, tests, log)
        _collections[key] = result
        if disk is not None:
            disk.put("collection", dkey, list(result.all_ids))
        return result


def _disk_key(task: Task, sandbox: SandboxSource) -> str:
    """Every file of the task, and what collects it when the caller's sandbox does."""
    return key(task_key(task.root), where(sandbox) if isinstance(sandbox, Sandbox) else "local")


def _well_formed(ids: list, tests: dict[str, bytes]) -> bool:
    """Whether stored node ids are a collection of these test files (else: collect again)."""
    return bool(ids) and all(isinstance(i, str) and i.split("::")[0] in tests for i in ids)


@contextlib.contextmanager
def _sandbox_for(source: SandboxSource, task: Task) -> Iterator[Sandbox]:
    if isinstance(source, Sandbox):
        yield source  # the caller's: not ours to close
        return
    if source is None:
        from swarm_envs.sandboxes import make_sandbox

        def factory() -> Sandbox:
            return make_sandbox("local", hide=[*task_roots(), task.root, *hidden_paths()])

    else:
        factory = source
    with factory() as sb:
        yield sb


def _targets(task: Task, tests: dict[str, bytes]) -> list[str]:
    paths = list(task.manifest.tests.paths)
    if any(rel.startswith(HELD_OUT_DIR + "/") for rel in tests) and not any(
        HELD_OUT_DIR.startswith(p.rstrip("/") + "/") or HELD_OUT_DIR == p.rstrip("/") for p in paths
    ):
        paths.append(HELD_OUT_DIR)
    return paths


def _collection(task: Task, recs: list[dict], tests: dict[str, bytes], log: str = "") -> Collection:
    coll = [r for r in recs if r.get("ev") == "collection"]
    if not coll:
        said = log.strip().splitlines()[-1:] if log else []
        raise ScoringError(
            f"task {task.id}: collecting the canonical tests on the reference solution "
            "produced no answer (is pytest installed in this Python?)"
            + (f"; the worker said: {said[0][:300]}" if said else "")
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
    held = tuple(i for i in ids if i.startswith(HELD_OUT_DIR + "/"))
    visible = tuple(i for i in ids if not i.startswith(HELD_OUT_DIR + "/"))
    return Collection(visible, {k: tuple(v) for k, v in by_file.items()}, tests, held)
