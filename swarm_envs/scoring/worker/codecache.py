"""Compiled code that the fork server prepares once and every child inherits."""

from __future__ import annotations

import os

from .tracker import instrument


class CodeCache:
    """Compiled code the fork server prepares once and every child inherits.

    Canonical test modules: pytest's assertion rewriting (parse, rewrite, compile) is the
    largest part of collection; test files never change, so the server rewrites each once.
    Workspace modules: compiled with their dependency marks when their content changes
    (compiling runs no code). Children look code up by path *and* content, so an entry can
    never stand for other source (no stale bytecode), and nothing is shared through files
    a child could write.
    """

    def __init__(self) -> None:
        import _pytest.assertion.rewrite as rw

        self._rw = rw
        self._orig = rw._rewrite_test
        self.tests: dict[tuple[str, bytes], object] = {}
        self.modules: dict[tuple[str, bytes], tuple[object, list[str]]] = {}
        self._canonical: set[int] = set()
        self._keep: list[object] = []  # keeps the ids above valid
        cache = self

        def rewrite_test(fn, config):  # noqa: ANN001, ANN202 - pytest's signature
            hit = cache.tests.get((str(fn), _read(str(fn))))
            if hit is None:
                hit = cache._orig(fn, config)
            cache._remember(hit[1])
            return hit

        rw._rewrite_test = rewrite_test

    def _remember(self, code: object) -> None:
        todo = [code]
        while todo:
            c = todo.pop()
            if id(c) in self._canonical:
                continue
            self._canonical.add(id(c))
            self._keep.append(c)
            todo.extend(k for k in getattr(c, "co_consts", ()) if hasattr(k, "co_consts"))

    def canonical(self, code: object) -> bool:
        """True for code compiled from a canonical test file (or its nested functions)."""
        return id(code) in self._canonical

    def prepare(self, tree: str) -> None:
        """Compile what changed in `tree` (in the server, before forking)."""
        import pathlib

        tests_root = os.path.join(tree, "tests")
        live_tests, live_mods = set(), set()
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                data = _read(path)
                if data is None or len(data) > 2_000_000:
                    continue
                key = (path, data)
                if path.startswith(tests_root + os.sep):
                    live_tests.add(key)
                    if key not in self.tests:
                        try:
                            self.tests[key] = self._orig(pathlib.Path(path), None)
                        except Exception:  # noqa: BLE001 - the child will report it
                            pass
                else:
                    live_mods.add(key)
                    if key not in self.modules:
                        try:
                            import ast

                            mod = ast.parse(data, filename=path)
                            names = instrument(mod)
                            self.modules[key] = (
                                compile(mod, path, "exec", dont_inherit=True),
                                names,
                            )
                        except Exception:  # noqa: BLE001 - SyntaxError etc.: the child reports it
                            pass
        # Keep other trees' entries (several trees per worker are fine), but bounded.
        if len(self.modules) > 4 * max(1, len(live_mods)) + 64:
            self.modules = {k: v for k, v in self.modules.items() if k in live_mods}
        if len(self.tests) > 4 * max(1, len(live_tests)) + 64:
            self.tests = {k: v for k, v in self.tests.items() if k in live_tests}


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None
