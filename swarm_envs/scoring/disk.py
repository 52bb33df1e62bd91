"""The scorer's cache on disk: what a fresh process would otherwise pay at its first reset.

Two results are kept across processes: a task's canonical collection and the outcomes of
the first evaluation of a workspace (a reset's starting state). Collecting takes a pytest
run on the reference solution, and scoring the starting state another; both depend only
on content, so a new process, a vector env's worker or a Ray actor finds them here.

What makes an entry safe to trust:

- **Keys come from the host.** Every key is a digest of content the host read itself:
  every file of the task folder, the versions of Python and pytest, the scorer's own
  source (`HOST_KEY`), and for outcomes the workspace snapshot's file digests and the
  selection. Nothing a test process reports is part of a key, so an entry can only be
  found for the exact content it was made from, and cannot raise the score of anything
  else.
- **The folder is the host's.** It is created with mode 0700; one owned by someone else,
  or open to group or others, is not used. Scorers use it only where the sandbox
  keeps agents' commands away from the host user's files (`filesystem_view` or
  `dedicated_uid`), and the callers that create sandboxes hide it (`hidden_paths`).
- **A bad entry is a miss.** An entry names its kind and key and carries a digest of its
  value: a truncated, corrupted or foreign one (copied under another name, written by an
  older format) is ignored, and the caller's result replaces it. Writes go to a private
  temporary file renamed into place, so concurrent writers never leave a torn entry.

The folder is bounded (`MAX_ENTRIES`, `MAX_BYTES`): a write past either removes the least
recently used entries (a hit counts as a use), and temporary files that a dead writer left.

Location: the `scoring` cache of `swarm_envs.cache` (`SWARM_ENVS_CACHE=off` disables it).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import logging
import os
import pathlib
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from typing import Any

from swarm_envs import cache
from swarm_envs.sandboxes.base import Sandbox

logger = logging.getLogger("swarm_envs.scoring")

FORMAT = 1
ENV_VAR = cache.ENV_VAR
#: bounds of the folder: past either, the least recently used entries go
MAX_ENTRIES = 1_000
MAX_BYTES = 256 * 2**20
#: a writer's temporary file this old was left by a process that died mid-write
STALE_TMP_S = 3600.0
_warned: set[str] = set()
_lock = threading.Lock()


def default_root() -> pathlib.Path | None:
    """The cache folder this process uses (None: disabled by `SWARM_ENVS_CACHE=off`)."""
    return cache.path("scoring")


def hidden_paths() -> list[pathlib.Path]:
    """What a sandbox must hide from agents' commands: the cache folder, if any."""
    root = default_root()
    return [] if root is None else [root]


def _hash(parts: Iterable[bytes]) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in parts:
        h.update(len(p).to_bytes(8, "little") + p)
    return h.hexdigest()


def _tree(root: pathlib.Path, skip_dirs: tuple[str, ...] = ("__pycache__",)) -> list[bytes]:
    """(relative path, content) of every regular file under `root`, sorted."""
    out: list[bytes] = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink() and not set(p.parts) & set(skip_dirs):
            if p.suffix != ".pyc":
                out += [p.relative_to(root).as_posix().encode(), p.read_bytes()]
    return out


def _host_key() -> str:
    scorer = pathlib.Path(__file__).resolve().parent
    try:
        pytest = importlib.metadata.version("pytest")  # without importing it (0.3 s)
    except importlib.metadata.PackageNotFoundError:
        pytest = "none"
    return _hash(
        [
            f"format {FORMAT}".encode(),
            sys.version.encode(),
            sys.implementation.cache_tag.encode(),
            f"pytest {pytest}".encode(),
            *_tree(scorer),
        ]
    )


_host_key_cache: list[str] = []


def host_key() -> str:
    """Python, pytest and the scorer's own source (what decides outcomes besides content)."""
    with _lock:
        if not _host_key_cache:
            _host_key_cache.append(_host_key())
        return _host_key_cache[0]


def task_key(root: pathlib.Path) -> str:
    """Every file of a task folder (manifest, starting state, solution, tests, held-out)."""
    return _hash([host_key().encode(), *_tree(root)])


def key(*parts: str) -> str:
    """A cache key from host-computed parts (digests, node ids)."""
    return _hash(p.encode("utf-8", "surrogateescape") for p in parts)


def where(sandbox: Sandbox) -> str:
    """What runs the tests: the sandbox's kind, image and Python (its pytest comes with it)."""
    host = sandbox.scoring_host()
    return f"{type(sandbox).__name__} image={getattr(sandbox, 'image', None)!r} {host.python}"


def trusted(protections: dict[str, bool]) -> bool:
    """Whether agents' commands in a sandbox with these protections cannot reach the cache.

    A private filesystem view does not show the host user's files; a dedicated uid cannot
    read or write a folder of mode 0700 that the host user owns.
    """
    return bool(protections.get("filesystem_view") or protections.get("dedicated_uid"))


class DiskCache:
    """JSON entries by kind and key in one private folder (see the module docstring).

    Args:
        root: the folder (created 0700); None disables the cache (every `get` misses,
            every `put` is dropped).
        max_entries: entries kept; a `put` past it removes the least recently used.
        max_bytes: total size kept, likewise.
    """

    def __init__(
        self,
        root: pathlib.Path | None,
        *,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
    ):
        self.root = root
        self.max_entries = max_entries
        self.max_bytes = max_bytes

    @classmethod
    def default(cls) -> DiskCache:
        """The cache at `default_root()`."""
        return cls(default_root())

    def _folder(self, create: bool) -> pathlib.Path | None:
        if self.root is None:
            return None
        try:
            if create:
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.stat(self.root, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            self._warn(
                f"the scoring cache {self.root} is not used: it must be a folder this user "
                f"owns that nobody else can read or write (chmod 700 {self.root})"
            )
            return None
        return self.root

    def _path(self, folder: pathlib.Path, kind: str, k: str) -> pathlib.Path:
        return folder / f"{kind}-{k}.json"

    def get(self, kind: str, k: str) -> Any | None:
        """The value stored for (`kind`, `k`), or None (missing, corrupted, foreign)."""
        folder = self._folder(create=False)
        if folder is None:
            return None
        path = self._path(folder, kind, k)
        try:
            raw = path.read_bytes()
            entry = json.loads(raw)
            value = entry["value"]
            ok = (
                entry["format"] == FORMAT
                and entry["kind"] == kind
                and entry["key"] == k
                and entry["check"] == _check(value)
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not ok:
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: the last to be pruned
        return value

    def put(self, kind: str, k: str, value: Any) -> None:
        """Store `value` (JSON) for (`kind`, `k`) atomically; a failure only logs."""
        folder = self._folder(create=True)
        if folder is None:
            return
        entry = {"format": FORMAT, "kind": kind, "key": k, "check": _check(value), "value": value}
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, separators=(",", ":"))
            os.replace(tmp, self._path(folder, kind, k))
            tmp = None
        except (OSError, TypeError, ValueError) as e:
            self._warn(f"the scoring cache {folder} could not be written: {e}")
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        self._prune(folder)

    def _prune(self, folder: pathlib.Path) -> None:
        """Keep the folder within its bounds (least recently used first out)."""
        now = time.time()
        kept: list[tuple[float, int, str]] = []
        try:
            with os.scandir(folder) as it:
                for e in it:
                    with contextlib.suppress(OSError):
                        st = e.stat(follow_symlinks=False)
                        if e.name.startswith(".tmp-"):
                            if now - st.st_mtime > STALE_TMP_S:
                                os.unlink(e.path)
                        elif e.name.endswith(".json"):
                            kept.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            return
        kept.sort(reverse=True)
        total = 0
        for i, (_, size, path) in enumerate(kept):
            total += size
            if i >= self.max_entries or total > self.max_bytes:
                with contextlib.suppress(OSError):  # another writer may have pruned it
                    os.unlink(path)

    def _warn(self, text: str) -> None:
        with _lock:
            if text in _warned:
                return
            _warned.add(text)
        logger.warning(text)


def _check(value: Any) -> str:
    return _hash([json.dumps(value, sort_keys=True, separators=(",", ":")).encode()])
