"""The fast scorer's result cache: entries per test file and the keys that validate them."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

from .collection import Collection
from .graph import function_digests, skeleton_digest
from .snapshot import digest

_shared: dict[int, tuple[Collection, threading.Lock, dict[str, list[Entry]]]] = {}
_shared_lock = threading.Lock()


def shared_entries(coll: Collection) -> tuple[threading.Lock, dict[str, list[Entry]]]:
    """The lock and result cache shared by the scorers of one canonical test suite."""
    with _shared_lock:
        if id(coll) not in _shared:  # collections live for the process: ids are stable
            _shared[id(coll)] = (coll, threading.Lock(), {})
        _, lock, entries = _shared[id(coll)]
        return lock, entries


@dataclass
class Entry:
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


class Keyer:
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
            h.update(tf.encode() + b"\0" + digest(self.coll.test_files.get(tf, b"")).encode())
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

    def make(self, tf: str, executed: frozenset[str] | None, results: dict) -> Entry:
        """A new cache entry for tests of `tf` that executed `executed` (None: anything)."""
        static_key, static = self.static_key(tf)
        if executed is None:
            return Entry(static_key, None, {"*": (self.all_sig(), "")}, dict(results))
        items: dict[str, list[str]] = {}
        for item in executed:
            rel, _, name = item.partition("::")
            items.setdefault(rel, []).append(name)
        frozen = {rel: tuple(sorted(names)) for rel, names in items.items()}
        parts = {
            rel: (self.files.get(rel, "-"), self.part(rel, names, rel not in static))
            for rel, names in frozen.items()
        }
        return Entry(static_key, frozen, parts, dict(results))

    def valid(self, tf: str, entry: Entry) -> bool:
        """Whether the entry's outcomes still hold in this snapshot (updates its parts)."""
        if entry.items is None:
            return entry.parts["*"][0] == self.all_sig()
        static_key, static = self.static_key(tf)
        if static_key != entry.static_key:
            return False
        for rel, (seen, part) in entry.parts.items():
            cur = self.files.get(rel, "-")
            if cur == seen:
                continue
            if self.part(rel, entry.items[rel], rel not in static) != part:
                return False
            entry.parts[rel] = (cur, part)
        return True
