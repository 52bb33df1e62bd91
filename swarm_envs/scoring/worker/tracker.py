"""Dependency tracking: which workspace functions each test executed (inside the sandbox).

Standard library only: the host imports `function_names` from here to name functions the
same way.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .codecache import CodeCache

_SPAWN_EVENTS = {
    "os.fork",
    "os.forkpty",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "subprocess.Popen",
}
_HIT = "__swarm_hit__"


class Tracker:
    """Which workspace files' *function bodies* each test executed (cheaply, and soundly).

    Workspace modules are compiled from source (never from bytecode) with one statement
    added at the top of every function body, `__swarm_hit__[0] = 1`, which marks the
    module's file. Module-level code and class bodies are not tracked: the host keys them
    by the file's *skeleton* (its syntax tree without function bodies), which every test
    importing the file depends on. Executions while a module is imported, during
    collection or in a fixture wider than one test count for every test of the run.

    Anything that could run workspace code out of sight (a subprocess, `exec` of a
    workspace file's code, a module loaded by another loader, the marks replaced) makes
    the run's dependencies "everything", which is always sound.
    """

    def __init__(self, tree: str, code_cache: CodeCache | None = None):
        import importlib.machinery

        self.tree = tree.rstrip("/") + "/"
        self.tests = self.tree + "tests/"
        self.flags: dict[str, bytearray] = {}
        self.names: dict[str, list[str]] = {}
        self.read: set[str] = set()  # files read as data since the last take
        self.modules: list[tuple[object, str]] = []
        self.glob: set[str] = set()
        self.by_test: dict[str, set[str] | None] = {}  # None: everything
        self.everything = ""
        self.blind = ""  # code ran out of sight since the last take
        self.own_codes: set[int] = set()
        self.compiling = 0
        self._source_loader = importlib.machinery.SourceFileLoader
        self._code_cache = code_cache

    def ours(self, path: object) -> str | None:
        if isinstance(path, bytes):
            path = path.decode(errors="replace")
        if not isinstance(path, str) or not path or path.startswith("<"):
            return None  # "<string>", "<unknown>": not a file
        if not path.startswith(self.tree):
            if os.path.isabs(path):
                return None
            path = os.path.normpath(os.path.join(os.getcwd(), path))
            if not path.startswith(self.tree) or not os.path.exists(path):
                return None
        if path.startswith(self.tests):
            return None
        return path[len(self.tree) :]

    def take(self) -> set[str]:
        """What ran since the last take ("file::function", "file::*" for data reads)."""
        out = {f"{rel}::*" for rel in self.read}
        self.read.clear()
        for rel, f in self.flags.items():
            if f.count(1):
                names = self.names[rel]
                out.update(f"{rel}::{names[i]}" for i, v in enumerate(f) if v)
                f[:] = bytes(len(f))
        return out

    def mark(self, items: set[str]) -> None:
        """Put back marks taken earlier (after a nested take)."""
        for item in items:
            rel, _, name = item.partition("::")
            if name == "*":
                self.read.add(rel)
            elif rel in self.flags:
                self.flags[rel][self.names[rel].index(name)] = 1

    def audit(self, event: str, args: tuple) -> None:
        if self.everything or self.blind:
            return
        if event == "open":
            if not self.compiling and args:
                rel = self.ours(args[0])
                if rel is not None:
                    self.read.add(rel)  # read as data (inspect, linecache, open)
        elif event in _SPAWN_EVENTS:
            self.blind = f"a process was started ({event})"
        elif event == "exec":
            code = args[0] if args else None
            fn = getattr(code, "co_filename", None)
            if fn is not None and id(code) not in self.own_codes and self.ours(fn) is not None:
                self.blind = "workspace code was run with exec()"
        elif event == "compile":
            if not self.compiling and len(args) > 1 and self.ours(args[1]) is not None:
                self.blind = "workspace source was compiled outside the import system"

    def to_global(self) -> None:
        """What ran outside any single test counts for all of them."""
        self.glob |= self.take()
        if self.blind:
            self.everything = self.everything or self.blind

    def to_test(self, nodeid: str) -> None:
        taken = self.take()
        if self.blind:
            self.by_test[nodeid] = None  # everything
            self.blind = ""
        else:
            self.by_test[nodeid] = taken

    def install(self) -> None:
        import importlib.abc

        tracker = self
        base = self._source_loader

        class Loader(base):  # type: ignore[misc, valid-type]
            def get_code(self, fullname: str):  # noqa: ANN201 - always from source
                path = self.get_filename(fullname)
                tracker.compiling += 1
                try:
                    data = self.get_data(path)
                    cache = tracker._code_cache
                    hit = cache.modules.get((path, data)) if cache is not None else None
                    if hit is not None:
                        code, names = hit
                        rel = tracker.ours(path)
                        if rel is not None:
                            tracker.names[rel] = names
                            tracker.flags[rel] = bytearray(len(names))
                    else:
                        code = self.source_to_code(data, path)
                finally:
                    tracker.compiling -= 1
                tracker.own_codes.add(id(code))
                return code

            def source_to_code(self, data, path, *, _optimize=-1):  # noqa: ANN001, ANN201
                import ast

                try:
                    tree = ast.parse(data, filename=path)
                except SyntaxError:
                    return compile(data, path, "exec", dont_inherit=True)
                names = instrument(tree)
                rel = tracker.ours(path)
                if rel is not None:
                    tracker.names[rel] = names
                    tracker.flags[rel] = bytearray(len(names))
                return compile(tree, path, "exec", dont_inherit=True)

            def exec_module(self, module):  # noqa: ANN001, ANN201
                rel = tracker.ours(self.path)
                code = self.get_code(module.__name__)
                flag = tracker.flags.get(rel, bytearray(0)) if rel is not None else bytearray(0)
                module.__dict__[_HIT] = flag
                if rel is not None:
                    tracker.modules.append((module, rel))
                before = tracker.take()
                try:
                    exec(code, module.__dict__)  # noqa: S102 - what SourceFileLoader does
                finally:
                    # Import-time executions count for every test of the run.
                    tracker.to_global()
                    tracker.mark(before)

        class Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
                import importlib.machinery

                spec = importlib.machinery.PathFinder.find_spec(name, path, target)
                if spec is None or not isinstance(spec.loader, base):
                    return None
                if tracker.ours(spec.origin) is None:
                    return None
                spec.loader = Loader(spec.loader.name, spec.loader.path)
                return spec

        sys.meta_path.insert(0, Finder())
        sys.addaudithook(self.audit)
        self._finder_type = Finder

    def check(self) -> None:
        """Detect anything that would make the marks incomplete."""
        if self.everything:
            return
        for module, rel in self.modules:
            if getattr(module, "__dict__", {}).get(_HIT) is not self.flags.get(rel):
                self.everything = f"the dependency marks of {rel} were replaced"
                return
        for module in list(sys.modules.values()):
            f = getattr(module, "__file__", None)
            rel = self.ours(f) if f else None
            if rel is not None and rel.endswith(".py"):
                if getattr(module, "__dict__", {}).get(_HIT) is None:
                    self.everything = f"{rel} was loaded without dependency marks"
                    return

    def report(self) -> dict:
        self.check()
        return {
            "ev": "deps",
            "everything": self.everything,
            "global": sorted(self.glob),
            "tests": {k: None if v is None else sorted(v) for k, v in self.by_test.items()},
        }


def function_names(tree: object) -> list[tuple[str, object]]:
    """(qualified name, node) of every function in a module, in a fixed order.

    Names are `f`, `C.m`, `f.<locals>.g`; a name defined again gets `#1`, `#2`... The host
    computes the same list to key its cache by the functions a test executed.
    """
    import ast

    out: list[tuple[str, object]] = []
    seen: dict[str, int] = {}

    def visit(node: object, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):  # type: ignore[arg-type]
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + child.name
                n = seen.get(q, 0)
                seen[q] = n + 1
                out.append((q if n == 0 else f"{q}#{n}", child))
                visit(child, q + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def instrument(tree: object) -> list[str]:
    """Prepend `__swarm_hit__[i] = 1` to the body of function i (line numbers unchanged)."""
    import ast

    names = function_names(tree)
    for i, (_, node) in enumerate(names):
        body = node.body  # type: ignore[attr-defined]
        first = body[0]
        at = (
            1
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and len(body) > 1
            )
            else 0
        )
        anchor = body[at]
        stmt = ast.Assign(
            targets=[
                ast.Subscript(
                    value=ast.Name(id=_HIT, ctx=ast.Load()),
                    slice=ast.Constant(value=i),
                    ctx=ast.Store(),
                )
            ],
            value=ast.Constant(value=1),
        )
        for n in ast.walk(stmt):
            ast.copy_location(n, anchor)
        body.insert(at, stmt)
    ast.fix_missing_locations(tree)  # type: ignore[type-var]
    return [q for q, _ in names]
