"""The outcome memo across processes: the fast scorer's result cache kept on disk.

Within a process the result cache (`keys.shared_entries`) is already shared by every
scorer of a task: a test's outcome is keyed by (the test, the hashes of the code it can
reach or executed), so a configuration seen before (menu mode's finite candidates, resets
to the same start, instances) costs no run. This module keeps those entries on disk per
test file (`disk.DiskCache`, kind `memo`: LRU-bounded there, and to the scorer's bound
per file here), so a new process (a vector env's worker, a Ray actor, the next training run)
starts with them.

The disk key is the host's: the task's files, the harness digest (`disk.task_key`, the
scorer's own source and the installed pytest), the sandbox's place and limits and the
test timeout. An entry read back is checked for shape and validated against each
snapshot like any other (`Keyer.valid`): nothing in it can match content it was not made
from. A malformed value is a miss.
"""

from __future__ import annotations

import threading
from typing import Any

from .disk import DiskCache, task_key, where
from .disk import key as disk_key
from .keys import MAX_ENTRIES_PER_FILE, Entry

# (result cache, disk key) pairs already read; the caches are held so their ids stay theirs
_loaded: dict[tuple[int, str], object] = {}
_loaded_lock = threading.Lock()


class Memo:
    """The disk side of one task's result cache (see the module docstring)."""

    def __init__(self, disk: DiskCache, base: str, ids: dict[str, tuple[str, ...]]):
        self.disk = disk
        self.base = base
        self.ids = ids  # test file -> its canonical node ids

    @classmethod
    def of(cls, scorer: Any) -> Memo | None:
        """The memo of a fast scorer's task and sandbox (None: no trusted disk cache)."""
        disk = getattr(scorer, "disk", None)
        if disk is None:
            return None
        sb = scorer.sandbox
        base = disk_key(
            task_key(scorer.task.root),
            where(sb),
            f"{sb.limits!r} {sorted(sb.protections.items())}",
            f"test timeout {scorer.test_timeout_s!r}",
            "memo",
        )
        return cls(disk, base, dict(scorer.coll.by_file))

    def _limit(self, tf: str) -> int:
        """Entries kept per test file (the scorer's bound: about an entry per test and state)."""
        return max(MAX_ENTRIES_PER_FILE, 32 * len(self.ids.get(tf, ())))

    def _key(self, tf: str) -> str:
        return disk_key(self.base, tf)

    def load(self, entries: dict[str, list[Entry]], files: set[str]) -> int:
        """Add the entries kept on disk to `entries` (once per process); how many."""
        with _loaded_lock:
            if (id(entries), self.base) in _loaded:
                return 0
            _loaded[(id(entries), self.base)] = entries
        added = 0
        for tf in sorted(files):
            value = self.disk.get("memo", self._key(tf))
            if not isinstance(value, list):
                continue
            have = entries.setdefault(tf, [])
            known = {_identity(e) for e in have}
            for raw in value[-self._limit(tf) :]:
                e = _entry(raw, set(self.ids.get(tf, ())))
                if e is not None and _identity(e) not in known:
                    have.insert(0, e)  # older than anything this process made
                    added += 1
            del have[: max(0, len(have) - self._limit(tf))]
        return added

    def save(self, entries: dict[str, list[Entry]]) -> None:
        """Write every test file's entries (the most recent `MAX_ENTRIES_PER_FILE`)."""
        for tf, es in list(entries.items()):
            if tf in self.ids and es:
                kept = es[-self._limit(tf) :]
                self.disk.put("memo", self._key(tf), [_raw(e) for e in kept])


def _identity(e: Entry) -> tuple:
    return (
        e.static_key,
        None if e.items is None else tuple(sorted(e.items.items())),
        tuple(sorted(e.parts.items())),
        tuple(sorted(e.extra.items())),
    )


def _raw(e: Entry) -> dict:
    return {
        "static_key": e.static_key,
        "items": None if e.items is None else {k: list(v) for k, v in e.items.items()},
        "parts": {k: list(v) for k, v in e.parts.items()},
        "extra": dict(e.extra),
        "results": {n: [ok, text] for n, (ok, text) in e.results.items()},
        "findings": [dict(f) for f in e.findings],
    }


def _entry(raw: object, ids: set[str]) -> Entry | None:
    """An entry read back from disk, or None (the wrong shape, or tests of another file)."""
    try:
        assert isinstance(raw, dict)
        items_raw = raw["items"]
        items = (
            None
            if items_raw is None
            else {str(k): tuple(str(q) for q in v) for k, v in dict(items_raw).items()}
        )
        parts = {}
        for k, v in dict(raw["parts"]).items():
            a, b = v
            parts[str(k)] = (str(a), str(b))
        results = {}
        for n, got in dict(raw["results"]).items():
            ok, text = got
            if n not in ids or type(ok) is not bool or type(text) is not str:
                return None
            results[n] = (ok, text)
        findings = tuple(
            {k: str(f[k]) for k in ("kind", "test", "detail")} for f in list(raw["findings"])
        )
        extra = {str(k): str(v) for k, v in dict(raw["extra"]).items()}
        static_key = str(raw["static_key"])
    except (AssertionError, KeyError, TypeError, ValueError):
        return None
    if items is not None and set(items) != set(parts):
        return None
    if items is None and "*" not in parts:
        return None
    return Entry(static_key, items, parts, extra, results, findings)
