"""Compiled code that the fork server prepares once and every child inherits.

Canonical test modules are compiled hardened (`hardened.compile_canonical`: pytest's
assertion rewriting, then strict comparisons and the completion marker); test files never
change, so each is compiled once. Workspace modules are compiled when their content
changes (compiling runs no code). Children look code up by path *and* content, so an
entry can never stand for other source (no stale bytecode), and nothing is shared through
files a child could write.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence

from . import settings
from .hardened import compile_canonical

MAX_SOURCE = 2_000_000


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    out, todo = [], [code]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


class CodeCache:
    """Compiled canonical tests and workspace modules, by (path, content)."""

    def __init__(self) -> None:
        import _pytest.assertion.rewrite as rw

        self.tests: dict[tuple[str, bytes], types.CodeType] = {}
        self.modules: dict[tuple[str, bytes], types.CodeType] = {}
        #: modules that canonical tests import by absolute name (imported before forking)
        self.imports: set[str] = set()
        #: names that canonical tests import from a module, which may be submodules
        self.submodules: set[str] = set()
        self._canonical: dict[int, types.CodeType] = {}
        #: the canonical tests of the tree being run (`<tree>/tests/`), set by `prepare`
        self.tests_root = ""
        cache = self
        original = rw._rewrite_test

        def rewrite_test(fn, config):  # noqa: ANN001, ANN202 - pytest's signature
            path = str(fn)
            if not cache.canonical_path(path):
                # pytest also rewrites workspace files named like tests (pkg/test_x.py):
                # only files of the canonical suite make canonical code.
                return original(fn, config)
            data = _read(path) or b""
            code = cache.tests.get((path, data))
            if code is None:
                code = cache._compile_test(path, data, config)
            return importlib.util.source_hash(data), code

        rw._rewrite_test = rewrite_test

    def _compile_test(self, path: str, data: bytes, config: object = None) -> types.CodeType:
        code = compile_canonical(data, path, config)
        self.tests[(path, data)] = code
        for c in _code_objects(code):
            self._canonical[id(c)] = c
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return code
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.imports.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                self.imports.add(node.module)
                # `from unittest import mock`: the name may be a submodule.
                self.submodules.update(f"{node.module}.{a.name}" for a in node.names)
        return code

    def canonical_codes(self) -> tuple[frozenset[int], list[types.CodeType]]:
        """(ids, objects) of every code object compiled from a canonical test file."""
        return frozenset(self._canonical), list(self._canonical.values())

    def canonical_path(self, path: str) -> bool:
        """True for a file of the canonical suite of the tree being run."""
        return bool(self.tests_root) and path.startswith(self.tests_root)

    def test_code(self, path: str, data: bytes) -> types.CodeType:
        """The canonical code of a file of the suite (compiled hardened, once)."""
        code = self.tests.get((path, data))
        return code if code is not None else self._compile_test(path, data)

    def prepare(self, tree: str, *, modules: bool = True) -> None:
        """Compile what changed in `tree` (in the server, before forking)."""
        tests_root = os.path.join(tree, "tests") + os.sep
        self.tests_root = tests_root
        live_tests, live_mods = set(), set()
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                is_test = path.startswith(tests_root)
                if not is_test and not modules:
                    continue
                data = _read(path)
                if data is None or len(data) > MAX_SOURCE:
                    continue
                key = (path, data)
                if is_test:
                    live_tests.add(key)
                    if key not in self.tests:
                        try:
                            self._compile_test(path, data)
                        except Exception:  # noqa: BLE001 - the child will report it
                            pass
                else:
                    live_mods.add(key)
                    if key not in self.modules:
                        try:
                            self.modules[key] = compile(data, path, "exec", dont_inherit=True)
                        except (Exception, RecursionError):  # noqa: BLE001 - reported at import
                            pass
        # Keep other trees' entries (several trees per worker are fine), but bounded.
        if len(self.modules) > 4 * max(1, len(live_mods)) + 64:
            self.modules = {k: v for k, v in self.modules.items() if k in live_mods}

    def preimport(self, tree: str) -> None:
        """Import what canonical tests import from outside the tree, before any test runs.

        Their modules are then present when the guard takes its snapshot, and code under
        test cannot slip in a module of its own under their names.
        """
        for name in sorted(self.imports):
            top = name.split(".")[0]
            if os.path.exists(os.path.join(tree, top + ".py")) or os.path.isdir(
                os.path.join(tree, top)
            ):
                continue  # the workspace's own
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a canonical import that fails, fails in the test
                continue
            for sub in sorted(s for s in self.submodules if s.startswith(name + ".")):
                if _is_submodule(sub):
                    try:
                        importlib.import_module(sub)
                    except Exception:  # noqa: BLE001 - as above
                        pass

    def install_finder(self, tree: str) -> None:
        """Serve workspace modules from this cache (always compiled from their source)."""
        sys.meta_path.insert(0, _Finder(self, os.path.join(tree, "")))


def _is_submodule(name: str) -> bool:
    """True if `name` ('pkg.attr') names a module of an imported package."""
    parent, _, _ = name.rpartition(".")
    mod = sys.modules.get(parent)
    if mod is None or not hasattr(mod, "__path__"):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, cache: CodeCache, tree: str):
        self._cache = cache
        self._tree = tree

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        spec = settings.find_spec(name, path, target)
        loader = getattr(spec, "loader", None)
        if spec is None or type(loader) is not importlib.machinery.SourceFileLoader:
            return None
        if not str(spec.origin or "").startswith(self._tree):
            return None
        spec.loader = _Loader(self._cache, loader.name, loader.path)
        return spec


class _Loader(importlib.machinery.SourceFileLoader):
    def __init__(self, cache: CodeCache, fullname: str, path: str):
        super().__init__(fullname, path)
        self._cache = cache

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        data = self.get_data(path)
        if self._cache.canonical_path(path):
            # A helper module of the suite (a mixin in tests/__init__.py whose tests are
            # inherited, assertion helpers): canonical code, hardened like a test file.
            return self._cache.test_code(path, data)
        code = self._cache.modules.get((path, data))
        if code is None:
            code = self.source_to_code(data, path)  # never from bytecode
        return code
