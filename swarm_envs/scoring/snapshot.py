"""A snapshot of the workspace files that scoring uses, by content hash."""

from __future__ import annotations

import hashlib
import os
import pathlib
import stat
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from swarm_envs.error import ScoringError
from swarm_envs.tasks import Task

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


#: longest relative path (in bytes) a scoring tree takes; longer ones are left out
MAX_REL_BYTES = 3000
#: contents kept in memory (the rest is read again from the workspace when needed)
BLOB_BUDGET = 64 * 1024 * 1024


@dataclass(frozen=True)
class Quota:
    """Limits on what a workspace may hold (see `swarm_envs.core.config.WorkspaceQuota`)."""

    max_bytes: int = 128 * 1024 * 1024
    max_files: int = 20_000
    max_file_bytes: int = 16 * 1024 * 1024

    @classmethod
    def of(cls, config: object | None) -> Quota:
        """From a `WorkspaceQuota` (or anything with `max_mb`, `max_files`, `max_file_mb`)."""
        if config is None:
            return cls()
        return cls(
            int(config.max_mb * 1024 * 1024),  # type: ignore[attr-defined]
            int(config.max_files),  # type: ignore[attr-defined]
            int(config.max_file_mb * 1024 * 1024),  # type: ignore[attr-defined]
        )

    def describe(self) -> str:
        """The limits, in words."""
        return (
            f"at most {self.max_files} files and {size_text(self.max_bytes)} in all, "
            f"{size_text(self.max_file_bytes)} per file"
        )


def size_text(n: int) -> str:
    """`n` bytes for people: 512 B, 100 KiB, 2.5 MiB."""
    if n < 1024:
        return f"{n} B"
    if n < 1024**2:
        return f"{n / 1024:.3g} KiB"
    return f"{n / 1024**2:.3g} MiB"


class WorkspaceSnapshot:
    """The files of a workspace that scoring uses, by content hash, re-read only on change.

    Files that count: regular files outside `tests/`, protected paths, dot-directories and
    `__pycache__`, excluding bytecode. Symlinks, devices, FIFOs and sockets are ignored;
    so are names that are not UTF-8 and paths too long for a scoring tree (`notes` says
    so). A file is re-hashed when its (inode, size, mtime, ctime) changes, and also while
    its timestamps are within `RACY_NS` of the snapshot (the "racy git" rule).

    The workspace must stay within `quota`; past it, scanning stops and `over_quota`
    says why (the scorers then fail every test). Contents are kept in memory up to
    `BLOB_BUDGET` bytes; the rest is read again, and checked against its digest, when a
    scoring tree needs it.
    """

    def __init__(self, root: pathlib.Path, task: Task, quota: Quota | None = None):
        self.root = pathlib.Path(root)
        self.task = task
        self.quota = quota or Quota()
        self._stat: dict[str, tuple[tuple[int, int, int, int], str, bool]] = {}
        self._blobs: LRU[str, bytes] = LRU(1_000_000)
        self._blob_bytes = 0
        self._blob_lock = threading.Lock()  # scoring threads read contents concurrently
        self._excluded: LRU[str, bool] = LRU(100_000)
        self.over_quota = ""
        self.notes: tuple[str, ...] = ()
        self.usage = (0, 0)  # (files, bytes) at the last snapshot

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
        q = self.quota
        total = 0
        left_out: list[str] = []
        self.over_quota = ""
        stack = [("", str(self.root))]
        while stack and not self.over_quota:
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
                        if not _usable_name(rel):
                            left_out.append(
                                rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                            )
                            continue
                        if self._skip_file(rel):
                            continue
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_size
                    if st.st_size > q.max_file_bytes:
                        self.over_quota = (
                            f"{rel} is {size_text(st.st_size)} (the quota allows "
                            f"{size_text(q.max_file_bytes)} per file)"
                        )
                    elif total > q.max_bytes or len(files) >= q.max_files:
                        self.over_quota = f"the workspace holds more than {q.describe()}"
                    if self.over_quota:
                        break
                    key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                    ent = self._stat.get(rel)
                    if ent is not None and ent[0] == key and ent[2]:
                        files[rel] = ent[1]
                        seen_stat[rel] = ent
                        continue
                    got = read_regular(e.path, q.max_file_bytes)
                    if got is None:
                        continue
                    data, fst = got
                    key = (fst.st_ino, fst.st_size, fst.st_mtime_ns, fst.st_ctime_ns)
                    d = digest(data)
                    self._keep(d, data)
                    trusted = now - max(fst.st_mtime_ns, fst.st_ctime_ns) > RACY_NS
                    seen_stat[rel] = (key, d, trusted)
                    files[rel] = d
        self._stat = seen_stat
        self.usage = (len(files), total)
        self.notes = (
            (f"left out of scoring (not UTF-8 or too long): {', '.join(sorted(left_out)[:5])}",)
            if left_out
            else ()
        )
        return files

    def _keep(self, d: str, data: bytes) -> None:
        with self._blob_lock:
            if d in self._blobs:
                return
            self._blobs.put(d, data)
            self._blob_bytes += len(data)
            while self._blob_bytes > BLOB_BUDGET and len(self._blobs) > 1:
                _, old = self._blobs.pop_oldest()
                self._blob_bytes -= len(old)

    def blob(self, rel: str, d: str) -> bytes:
        """The content of `rel` whose digest is `d` (read again if it was let go).

        Raises:
            ScoringError: the file no longer has that content (it changed meanwhile).
        """
        with self._blob_lock:
            data = self._blobs.get(d)
        if data is not None:
            return data
        got = read_regular(str(self.root / rel), self.quota.max_file_bytes)
        if got is None or digest(got[0]) != d:
            raise ScoringError(f"{rel} changed while it was being scored")
        self._keep(d, got[0])
        return got[0]

    def contents(self, files: dict[str, str]) -> Blobs:
        """A mapping digest -> content for the files of one snapshot (read lazily)."""
        return Blobs(self, {d: rel for rel, d in files.items()})


class Blobs(Mapping[str, bytes]):
    """The contents of one snapshot's files, by digest, read when first needed."""

    def __init__(self, snap: WorkspaceSnapshot, where: dict[str, str]):
        self._snap = snap
        self._where = where

    def __getitem__(self, d: str) -> bytes:
        rel = self._where.get(d)
        if rel is None:
            raise KeyError(d)
        return self._snap.blob(rel, d)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


def _usable_name(rel: str) -> bool:
    """UTF-8 (no surrogate escapes) and short enough for any scoring tree."""
    try:
        raw = rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return len(raw) <= MAX_REL_BYTES
