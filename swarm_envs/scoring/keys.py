"""The fast scorer's result cache: entries per test file, and the keys that validate them.

Every key is computed on the host, from content the host read itself: a test's cached
outcome holds while the test file, the skeletons of every file it can import (what
importing them does), the import resolution, every data file and the bodies of the
functions the test can reach *statically* (see `analysis`) are unchanged. A test that can
reach an opaque file, or a run the guard flagged, is keyed by every file's content.
Nothing a test process reports can narrow a key: the files it was seen to load outside
the static closure (`extra`) only add conditions.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from . import traced
from .analysis import CLASS_ATTRS, PURE_CALLS, SIGNATURE, ClassFacts, FileFacts, FunctionFacts
from .analysis import SAFE_BASES as _SAFE_BASES
from .collection import Collection
from .graph import Closure

_shared: dict[int, tuple[Collection, threading.Lock, dict[str, list[Entry]]]] = {}
_shared_lock = threading.Lock()
MAX_ENTRIES_PER_FILE = 256


def shared_entries(coll: Collection) -> tuple[threading.Lock, dict[str, list[Entry]]]:
    """The lock and result cache shared by the scorers of one canonical test suite."""
    with _shared_lock:
        if id(coll) not in _shared:  # collections live for the process: ids are stable
            _shared[id(coll)] = (coll, threading.Lock(), {})
        _, lock, entries = _shared[id(coll)]
        return lock, entries


def test_qualname(nodeid: str) -> str:
    """`tests/t.py::TestA::test_b[1-2]` -> `TestA.test_b` (as the function's qualname)."""
    rest = nodeid.partition("::")[2].partition("[")[0]
    return ".".join(p for p in rest.split("::") if p)


def _hash(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(p.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


@dataclass
class Entry:
    """Cached outcomes of some tests of one test file, and the state they depend on.

    Attributes:
        static_key: the test file, the import resolution and the skeletons of everything
            it can import (see the module docstring).
        items: per workspace file, the functions the tests can reach; None: every file
            counts by content.
        parts: per such file, its content digest and the digest of those functions when
            the entry was last checked (an unchanged file need not be looked at again).
        extra: files the run loaded beyond the static closure, with their digests.
        results: node id -> (passed, failure text).
        findings: what the guard flagged in the run.
    """

    static_key: str
    items: dict[str, tuple[str, ...]] | None
    parts: dict[str, tuple[str, str]]
    extra: dict[str, str]
    results: dict[str, tuple[bool, str]]
    findings: tuple[dict, ...] = field(default=())


class _Reach:
    """Functions reachable by name within one closure (see `analysis`).

    A test reaches the names its body refers to; a name reaches every function of that
    name (whatever the receiver: a sound over-approximation), the plain module-level
    values bound to it (`analysis.Binding`), and, when it names a class, that class's
    header and plain body and its dunder and protocol methods (only objects of a class
    that something reached can have them called). Module-level code that is not a plain
    binding, and what it names, is reached by every test, as are decorated functions,
    the helpers of the test files and the methods of classes foreign code calls back.
    Reaching a function whose body defeats the analysis, or a name bound to a module that
    does (`FileFacts.opaque_names`), reaches everything.
    """

    def __init__(self, closure: Closure, facts: Callable[[str], FileFacts | None]):
        self.by_name: dict[str, list[tuple[str, FunctionFacts]]] = {}
        self.aliases: dict[str, set[str]] = {}
        self.bindings: dict[str, list[frozenset[str]]] = {}
        self.implicit: dict[str, list[tuple[str, FunctionFacts]]] = {}  # by class name
        self.methods: dict[tuple[str, str], list[FunctionFacts]] = {}  # (file, class)
        self.assigned: set[str] = set()  # names something other than a class may be
        self.opaque_names: set[str] = set()  # bound to modules that defeat the analysis
        seeds: set[str] = set()
        always: list[tuple[str, FunctionFacts]] = []
        classes: dict[str, list[tuple[str, ClassFacts]]] = {}
        per_file: dict[str, FileFacts] = {}
        for rel in sorted(closure.files | closure.canonical):
            f = facts(rel)
            if f is None:
                continue
            per_file[rel] = f
            seeds.update(f.module_refs)
            self.assigned.update(f.assigned)
            self.opaque_names.update(name for name, _ in f.opaque_names)
            for local, original in f.aliases:
                self.aliases.setdefault(local, set()).add(original)
            for c in f.classes:
                classes.setdefault(c.name, []).append((rel, c))
            canonical = rel in closure.canonical
            for fn in f.functions:
                owner = fn.qualname.partition("#")[0].rpartition(".")[0]
                if owner:
                    self.methods.setdefault((rel, owner), []).append(fn)
                if fn.implicit:
                    # Called on objects of its class, explicitly (`super().__init__()`,
                    # `x.keys()`) or not: it comes with the class, never by its name.
                    self.implicit.setdefault(owner.rpartition(".")[2], []).append((rel, fn))
                else:
                    self.by_name.setdefault(fn.name, []).append((rel, fn))
                # Fixtures, helpers and setup methods of the test files run for any test.
                if fn.always or (canonical and not fn.name.startswith("test")):
                    always.append((rel, fn))
        self.classes = classes
        inert = _inert(classes, self.by_name, self.methods)
        for rel, f in per_file.items():
            for b in f.bindings:
                if all(c in inert for c in b.calls):
                    name = (
                        _sig(rel, b.name[len(SIGNATURE) :])
                        if b.name.startswith(SIGNATURE)
                        else b.name
                    )
                    self.bindings.setdefault(name, []).append(b.refs)
                else:
                    seeds.update(b.refs)  # it may run the project's code at import
        dispatched = _dispatched(classes)
        for rel, f in per_file.items():
            for fn in f.functions:
                owner = fn.qualname.rpartition(".")[0]
                if owner and owner in dispatched.get(rel, ()):
                    always.append((rel, fn))
        self.base: set[tuple[str, str]] = set()
        self._grow(self.base, seeds, always)

    def _grow(
        self,
        reached: set[tuple[str, str]],
        names: set[str],
        functions: list[tuple[str, FunctionFacts]] = (),  # type: ignore[assignment]
    ) -> None:
        todo = list(names)
        done: set[str] = set()

        def add(rel: str, fn: FunctionFacts) -> None:
            if (rel, fn.qualname) not in reached:
                reached.add((rel, fn.qualname))
                if fn.opaque:
                    reached.add(EVERYTHING)  # its body defeats the analysis
                todo.extend(fn.refs)
                todo.append(_sig(rel, fn.qualname))  # its defaults and annotations

        for rel, fn in functions:
            add(rel, fn)
        while todo:
            name = todo.pop()
            if name in done:
                continue
            done.add(name)
            if name in self.opaque_names:
                reached.add(EVERYTHING)  # a module (or its function) that does anything
            if name.startswith(CLASS_ATTRS):
                self._attrs(name[len(CLASS_ATTRS) :], reached, todo, add)
                continue
            todo.extend(self.aliases.get(name, ()))
            for rel, fn in self.by_name.get(name, ()):
                add(rel, fn)
            for refs in self.bindings.get(name, ()):
                todo.extend(refs)
            for rel, fn in self.implicit.get(name, ()):
                add(rel, fn)

    def _attrs(
        self,
        cls: str,
        reached: set[tuple[str, str]],
        todo: list[str],
        add: Callable[[str, FunctionFacts], None],
    ) -> None:
        """A computed attribute of an object of the class `cls`: any of its methods."""
        found = [c for n in (cls, *self.aliases.get(cls, ())) for c in self.classes.get(n, ())]
        if not found or cls in self.by_name or cls in self.assigned or cls in self.aliases:
            reached.add(EVERYTHING)  # not (only) a class of the project: anything
            return
        todo.append(cls)
        for rel, c in found:
            for fn in self.methods.get((rel, c.qualname), ()):
                add(rel, fn)
            for base in c.bases:
                if base is None:
                    reached.add(EVERYTHING)
                elif base in self.classes:
                    todo.append(CLASS_ATTRS + base)

    def of_test(self, test_file: str, qualname: str) -> set[tuple[str, str]] | None:
        """The functions a test can reach: the base, and what its own body names.

        A test whose function is not found in its file by qualname (inherited from a
        base class) takes every function of that name in the file; one not found at all
        (None) depends on everything, as does one that reaches a computed attribute of
        an object whose class is not known.
        """
        if EVERYTHING in self.base:
            return None
        name = qualname.rpartition(".")[2]
        mine = [(rel, fn) for rel, fn in self.by_name.get(name, ()) if rel == test_file]
        own = [(rel, fn) for rel, fn in mine if fn.qualname.partition("#")[0] == qualname]
        if not (own or mine):
            return None
        reached = set(self.base)
        # The class a test method belongs to: its header and body, its setup methods.
        owner = qualname.rpartition(".")[0]
        self._grow(reached, {owner.rpartition(".")[2]} if owner else set(), own or mine)
        return None if EVERYTHING in reached else reached


#: files a dynamic key counts by content only where a test opened them: any file but the
#: ones an import may load without an `open` the guard sees
_IMPORTABLE = (".py", ".so", ".pyd", ".pth", ".pyc", ".pyi", ".zip", ".egg")

#: in a reached set: the test can reach anything (see `_Reach._attrs`)
EVERYTHING = ("*", "*")


def _sig(rel: str, qualname: str) -> str:
    """The name under which a function's defaults and annotations are bound."""
    return f"{SIGNATURE}{rel}:{qualname}"


def _inert(
    classes: dict[str, list[tuple[str, ClassFacts]]],
    by_name: dict[str, list[tuple[str, FunctionFacts]]],
    methods: dict[tuple[str, str], list[FunctionFacts]],
) -> set[str]:
    """Names a plain value may call at import without running the project's code.

    The builtins that only build containers, and classes of the project (every class of
    that name, and no function of it) that define no method, have no metaclass and no
    decorator that is not a pure one, and whose bases are inert or inert builtins.
    """
    out: set[str] = {n for n in PURE_CALLS if n not in classes and n not in by_name}
    state: dict[str, bool] = {}

    def visit(name: str, depth: int = 0) -> bool:
        if name in state:
            return state[name]
        state[name] = False  # a cycle is not inert
        ok = name in classes and name not in by_name and depth < 50
        for rel, c in classes.get(name, ()) if ok else ():
            if c.metaclass or c.decorated or methods.get((rel, c.qualname)):
                ok = False
                break
            for base in c.bases:
                if base is None or not (
                    visit(base, depth + 1) if base in classes else base in _SAFE_BASES
                ):
                    ok = False
                    break
            if not ok:
                break
        state[name] = ok
        return ok

    out.update(n for n in classes if visit(n))
    return out


def _dispatched(classes: dict[str, list[tuple[str, ClassFacts]]]) -> dict[str, set[str]]:
    """Per file, the classes whose methods foreign code may call back by name.

    A class is dispatched if a base is not a plain name, is a class from outside the
    closure other than a known inert base (`object`, `Exception`, `int`, `ABC`...), is
    itself dispatched, or it has a metaclass.
    """
    out: dict[str, set[str]] = {}
    state: dict[tuple[str, str], bool] = {}

    def visit(rel: str, c: ClassFacts, depth: int = 0) -> bool:
        key = (rel, c.qualname)
        if key in state:
            return state[key]
        state[key] = True  # a cycle (or a very deep hierarchy) is treated as dispatched
        result = c.metaclass or depth > 50
        for base in c.bases:
            if result:
                break
            if base is None:
                result = True
            elif base in classes:
                result = any(visit(r, b, depth + 1) for r, b in classes[base])
            else:
                result = base not in _SAFE_BASES
        state[key] = result
        return result

    for name in classes:
        for rel, c in classes[name]:
            if visit(rel, c):
                out.setdefault(rel, set()).add(c.qualname)
    return out


class Keyer:
    """Validates and makes cache entries against one snapshot of the workspace (memoized)."""

    def __init__(
        self,
        files: dict[str, str],
        facts: Callable[[str], FileFacts | None],
        closures: dict[str, Closure],
        coll: Collection,
        test_digests: dict[str, str],
    ):
        self.files = files
        self.facts = facts
        self.closures = closures
        self.coll = coll
        self.test_digests = test_digests
        self._static: dict[str, str] = {}
        self._reach: dict[str, _Reach] = {}
        self._parts: dict[tuple[str, str, tuple[str, ...]], str] = {}
        self._all_sig: str | None = None
        self._qualnames: dict[str, tuple[str, ...]] = {}

    def opaque(self, tf: str) -> str:
        """Why `tf`'s tests depend on every file ("" when they do not)."""
        closure = self.closures.get(tf)
        return "the test file is not in the import graph" if closure is None else closure.opaque

    def static_key(self, tf: str) -> str:
        """The test file, its import resolution, and the skeletons of what it can import."""
        hit = self._static.get(tf)
        if hit is None:
            closure = self.closures.get(tf)
            parts = [tf, self.test_digests.get(tf, "-")]
            if closure is not None:
                parts.append(closure.signature)
                for rel in sorted(closure.files):
                    parts.append(f"{rel}={self._skeleton(rel)}")
                for rel in sorted(closure.canonical):
                    parts.append(f"{rel}={self.test_digests.get(rel, '-')}")
            hit = self._static[tf] = _hash(*parts)
        return hit

    def dynamic_static_key(self, tf: str) -> str:
        """The static key without the contents of data files (`dynamic_items`).

        A dynamic key counts a data file by content only where a test opened it (the
        guard sees every open); the names of every file still count (a listing), as do
        the skeletons of the Python files and anything else that may be imported.
        """
        hit = self._static.get("\0dyn" + tf)
        if hit is None:
            closure = self.closures.get(tf)
            parts = ["dyn", tf, self.test_digests.get(tf, "-"), *sorted(self.files)]
            if closure is not None:
                parts.append(closure.signature)
                for rel in sorted(closure.files):
                    data = not rel.endswith(_IMPORTABLE)
                    parts.append(f"{rel}={'data' if data else self._skeleton(rel)}")
                for rel in sorted(closure.canonical):
                    parts.append(f"{rel}={self.test_digests.get(rel, '-')}")
            hit = self._static["\0dyn" + tf] = "dyn:" + _hash(*parts)
        return hit

    def _skeleton(self, rel: str) -> str:
        d = self.files.get(rel)
        if d is None:
            return "-"
        if not rel.endswith(".py"):
            return d
        f = self.facts(rel)
        return f.skeleton if f is not None else d

    def all_sig(self) -> str:
        """Digest of every file of the snapshot (for entries that depend on everything)."""
        if self._all_sig is None:
            self._all_sig = _hash(*(f"{r}={d}" for r, d in sorted(self.files.items())))
        return self._all_sig

    def part(self, rel: str, names: tuple[str, ...]) -> str:
        """Digest of the bodies of the functions `names` of `rel` in this snapshot."""
        d = self.files.get(rel)
        if d is None:
            return "-"
        key = (rel, d, names)
        hit = self._parts.get(key)
        if hit is None:
            f = self.facts(rel)
            bodies = {fn.qualname: fn.digest for fn in f.functions} if f is not None else {}
            hit = self._parts[key] = _hash(*(f"{n}={bodies.get(n, '-')}" for n in names))
        return hit

    def items_for(self, tf: str, nodeid: str) -> dict[str, tuple[str, ...]] | None:
        """Per workspace file, the functions test `nodeid` can reach (None: anything)."""
        closure = self.closures.get(tf)
        if closure is None or closure.opaque:
            return None
        reach = self._reach.get(tf)
        if reach is None:
            reach = self._reach[tf] = _Reach(closure, self.facts)
        reached = reach.of_test(tf, test_qualname(nodeid))
        if reached is None:
            return None
        by_file: dict[str, list[str]] = {}
        for rel, q in reached:
            if rel in closure.files:
                by_file.setdefault(rel, []).append(q)
        return {rel: tuple(sorted(qs)) for rel, qs in by_file.items()}

    def qualnames(self, rel: str) -> tuple[str, ...]:
        """The qualified names of the functions of `rel` (`#n` for repeated definitions)."""
        hit = self._qualnames.get(rel)
        if hit is None:
            f = self.facts(rel) if rel.endswith(".py") else None
            hit = self._qualnames[rel] = tuple(fn.qualname for fn in f.functions) if f else ()
        return hit

    def dynamic_items(
        self,
        tf: str,
        nodeid: str,
        trace: traced.Trace | None,
        source: Callable[[str], bytes | None],
        shared: traced.Trace | None = None,
    ) -> tuple[dict[str, tuple[str, ...]], dict[str, str]] | None:
        """The key of a test narrowed to what it executed (`traced`); None: keep the static.

        Returns (per file of the static closure, the functions the test executed; the
        files that count whole: read by the test, or outside the closure with code that
        ran). Never wider than the static key: a function the static analysis says the
        test cannot reach is a trace the host cannot trust, and None.

        `shared` is what ran outside every test's call phase (collection, fixtures): it
        counts in the files of the closure only (a module outside it that was loaded on
        the test file's behalf counts whole anyway: the scorer's `extra`).
        """
        closure = self.closures.get(tf)
        if closure is None or trace is None or shared is None:
            return None
        mine = {rel: ls for rel, ls in shared.items() if rel in closure.files}
        for rel, ls in trace.items():
            mine[rel] = [*mine.get(rel, ()), *ls]
        got = traced.executed(mine, self.files, source, self.qualnames)
        if got is None:
            return None
        funcs, whole = got
        static = self.items_for(tf, nodeid)
        items: dict[str, tuple[str, ...]] = {}
        for rel, names in funcs.items():
            if rel in closure.canonical:
                continue
            if rel not in closure.files:
                whole.add(rel)  # its skeleton is in no key: its content counts
                continue
            if static is not None and not names <= set(static.get(rel, ())):
                return None
            if names:
                items[rel] = tuple(sorted(names))
        return items, {rel: self.files[rel] for rel in sorted(whole) if rel in self.files}

    def make(
        self,
        tf: str,
        items: dict[str, tuple[str, ...]] | None,
        results: dict[str, tuple[bool, str]],
        extra: dict[str, str],
        findings: tuple[dict, ...] = (),
        dynamic: bool = False,
    ) -> Entry:
        """A new cache entry for tests of `tf` that can reach `items` (None: anything).

        `dynamic`: `items` is what the tests executed (`dynamic_items`): the entry's static
        part leaves out the data files they did not open (`dynamic_static_key`).
        """
        if items is None:
            return Entry("", None, {"*": (self.all_sig(), "")}, extra, dict(results), findings)
        parts = {
            rel: (self.files.get(rel, "-"), self.part(rel, names)) for rel, names in items.items()
        }
        key = self.dynamic_static_key(tf) if dynamic else self.static_key(tf)
        return Entry(key, items, parts, extra, dict(results), findings)

    def valid(self, tf: str, entry: Entry) -> bool:
        """Whether the entry's outcomes still hold in this snapshot (updates its parts)."""
        for rel, seen in entry.extra.items():
            if self.files.get(rel, "-") != seen:
                return False
        if entry.items is None:
            return entry.parts["*"][0] == self.all_sig()
        dynamic = entry.static_key.startswith("dyn:")
        if (self.dynamic_static_key(tf) if dynamic else self.static_key(tf)) != entry.static_key:
            return False
        for rel, (seen, part) in entry.parts.items():
            cur = self.files.get(rel, "-")
            if cur == seen:
                continue
            if self.part(rel, entry.items[rel]) != part:
                return False
            entry.parts[rel] = (cur, part)
        return True
