"""The static import graph of a workspace: which files each canonical test file can reach.

Computed on the host, from content the host read itself, in time linear in the number of
files and import statements: modules are looked up in an index, never by scanning the
file list (a star import of a package with thousands of modules costs one lookup per name
the importing file uses).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from .analysis import FileFacts, analyze
from .lru import LRU


@dataclass(frozen=True)
class Closure:
    """What one canonical test file can reach.

    Attributes:
        files: workspace files (Python files it can import, and every data file).
        canonical: canonical files it can import (itself and conftests included).
        signature: digest of how its imports resolved, including those that resolved to
            nothing: a file added later under such a name changes it.
        opaque: why a file it reaches defeats static analysis ("": none does).
    """

    files: frozenset[str]
    canonical: frozenset[str]
    signature: str
    opaque: str


def module_name(rel: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; a package's `__init__.py` -> the package."""
    mod = rel[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def package_of(rel: str) -> str:
    """The package a file's relative imports are relative to."""
    return ".".join(rel[:-3].split("/")[:-1])


@dataclass(frozen=True)
class Analysis:
    """The graph of one snapshot: facts per Python file, closures, the module index."""

    facts: dict[str, FileFacts]
    closures: dict[str, Closure]
    index: dict[str, str]

    def fact(self, rel: str) -> FileFacts | None:
        """The facts of one file (None for a data file or an unknown one)."""
        return self.facts.get(rel)


class ImportGraph:
    """Static facts of every Python file (by content, cached) and the closures they imply."""

    def __init__(self) -> None:
        self._facts: LRU[tuple[str, str], FileFacts] = LRU(50_000)
        self._last: tuple[str, Analysis] | None = None

    def facts(self, rel: str, digest: str, blobs: Mapping[str, bytes]) -> FileFacts:
        """The analysis of one file (computed once per path and content)."""
        key = (rel, digest)
        hit = self._facts.get(key)
        if hit is None:
            hit = self._facts.put(key, analyze(blobs[digest], package_of(rel)))
        return hit

    def analyse(
        self,
        files: dict[str, str],
        blobs: Mapping[str, bytes],
        tests: dict[str, bytes],
        test_digests: dict[str, str],
    ) -> Analysis:
        """The facts and closures of a snapshot (`files`: path -> digest, `blobs`: contents)."""
        facts: dict[str, FileFacts] = {}
        sig = hashlib.blake2b(digest_size=16)
        for rel in sorted(files):
            if rel.endswith(".py"):
                facts[rel] = self.facts(rel, files[rel], blobs)
                sig.update(f"{rel}\0{files[rel]}\0".encode("utf-8", "surrogateescape"))
            else:
                sig.update(f"{rel}#\0".encode("utf-8", "surrogateescape"))
        for rel in sorted(tests):
            if rel.endswith(".py"):
                facts[rel] = self.facts(rel, test_digests[rel], {test_digests[rel]: tests[rel]})
        signature = sig.hexdigest()
        if self._last is not None and self._last[0] == signature:
            return self._last[1]
        resolver = _Resolver(files, tests, facts)
        out = Analysis(facts, resolver.all(), dict(resolver.index))
        self._last = (signature, out)
        return out


class _Resolver:
    def __init__(self, files: dict[str, str], tests: dict[str, bytes], facts: dict[str, FileFacts]):
        self.files = files
        self.tests = tests
        self.facts = facts
        self.index: dict[str, str] = {}  # module name -> file
        self.children: dict[str, dict[str, str]] = {}  # package -> {child name: module}
        for rel in files:
            if rel.endswith(".py"):
                self._add(module_name(rel), rel)
        for rel in tests:
            if rel.endswith(".py"):
                self._add(module_name(rel), rel)
                self._add(module_name(rel[len("tests/") :]), rel)
        self.data = frozenset(r for r in files if not r.endswith(".py"))
        self.refs: dict[str, frozenset[str]] = {}
        self.edge_cache: dict[str, tuple[list[str], dict[str, str]]] = {}

    def _add(self, mod: str, rel: str) -> None:
        # A package (its __init__.py) wins over a module of the same name, as in Python.
        if mod not in self.index or rel.endswith("__init__.py"):
            self.index[mod] = rel
        parent, _, child = mod.rpartition(".")
        self.children.setdefault(parent, {})[child] = mod

    def _names(self, rel: str) -> frozenset[str]:
        hit = self.refs.get(rel)
        if hit is None:
            hit = self.refs[rel] = self.facts[rel].all_refs()
        return hit

    def _edges(self, rel: str) -> tuple[list[str], dict[str, str]]:
        """(files that importing `rel` can load, how each name it imports resolved)."""
        hit = self.edge_cache.get(rel)
        if hit is None:
            names: dict[str, str] = {}
            hit = self.edge_cache[rel] = (self._compute_edges(rel, names), names)
        return hit

    def _compute_edges(self, rel: str, seen_names: dict[str, str]) -> list[str]:
        out: list[str] = []
        facts = self.facts.get(rel)
        if facts is None:
            return out
        parts = rel.split("/")[:-1]
        # Importing a.b.c runs a/__init__ and a/b/__init__ too.
        for i in range(1, len(parts) + 1):
            init = "/".join(parts[:i]) + "/__init__.py"
            if init in self.files:
                out.append(init)
        used = self._names(rel)
        for ref in facts.imports:
            bits = ref.module.split(".")
            for i in range(1, len(bits) + 1):
                out.extend(self._lookup(".".join(bits[:i]), seen_names))
            for name in ref.names:
                out.extend(self._lookup(f"{ref.module}.{name}", seen_names))
            # Submodules reached as attributes (`pkg.sub`) or through a star import.
            kids = self.children.get(ref.module)
            if kids:
                seen_names[f"{ref.module}.*"] = ",".join(sorted(kids))
                small, big = (used, kids) if len(used) < len(kids) else (kids, used)
                for name in small:
                    if name in big:
                        out.extend(self._lookup(kids[name], seen_names))
        return out

    def _lookup(self, mod: str, seen_names: dict[str, str]) -> list[str]:
        rel = self.index.get(mod)
        seen_names[mod] = rel or ""
        return [rel] if rel is not None else []

    def closure(self, tf: str) -> Closure:
        roots = [tf] + [
            c
            for c in self.tests
            if c.endswith("conftest.py") and tf.startswith(c[: -len("conftest.py")])
        ]
        seen: set[str] = set()
        names: dict[str, str] = {}
        todo = list(roots)
        opaque = ""
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            facts = self.facts.get(cur)
            if facts is not None and facts.opaque and not opaque:
                opaque = f"{cur}: {facts.opaque}"
            edges, resolved = self._edges(cur)
            names.update(resolved)
            todo.extend(edges)
        h = hashlib.blake2b(digest_size=16)
        for k in sorted(names):
            h.update(f"{k}={names[k]}\0".encode("utf-8", "surrogateescape"))
        return Closure(
            files=frozenset(s for s in seen if s not in self.tests) | self.data,
            canonical=frozenset(s for s in seen if s in self.tests),
            signature=h.hexdigest(),
            opaque=opaque,
        )

    def all(self) -> dict[str, Closure]:
        return {
            tf: self.closure(tf)
            for tf in self.tests
            if tf.endswith(".py")
            and (tf.rsplit("/", 1)[-1].startswith("test_") or tf.endswith("_test.py"))
        }
