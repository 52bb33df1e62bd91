"""A snapshot of the workspace files that scoring uses, by content hash."""

from __future__ import annotations

import hashlib
import os
import pathlib
import stat
import time
from collections.abc import Iterable

from swarm_envs.task import Task

from .lru import LRU

#: a file whose timestamps are this recent is re-hashed on every snapshot: timestamps are
#: coarse (a clock tick), so a same-size rewrite within one tick keeps size and mtime
RACY_NS = 100_000_000


def digest(data: bytes) -> str:
    """The content digest the scorer keys files by (32 hex digits)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_regular(path: str, limit: int) -> tuple[bytes, os.stat_result] | None:
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
        self._excluded: LRU[str, bool] = LRU(100_000)

    def _skip_file(self, rel: str) -> bool:
        hit = self._excluded.get(rel)
        if hit is None:
            name = rel.rsplit("/", 1)[-1]
            hit = (
                name.endswith((".pyc", ".pyo"))
                or self.task.is_protected(rel)
                or self.task.is_protected(name)  # e.g. pkg/sitecustomize.py, pkg/pytest.py
            )
            self._excluded.put(rel, hit)
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
                    got = read_regular(e.path, self.max_file_bytes)
                    if got is None:
                        continue
                    data, fst = got
                    key = (fst.st_ino, fst.st_size, fst.st_mtime_ns, fst.st_ctime_ns)
                    d = digest(data)
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
