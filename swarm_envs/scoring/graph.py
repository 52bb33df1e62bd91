"""Which workspace files each canonical test file can reach, and digests of Python source.

Static analysis on the host, from content the host read itself.
"""

from __future__ import annotations

import ast
import hashlib
from importlib.util import resolve_name

from .lru import LRU
from .snapshot import digest
from .worker.tracker import function_names

# Import forms that escape a static import graph: any file using one depends on everything.
_DYNAMIC_CALLS = {"__import__", "exec", "eval", "compile", "execfile"}
_DYNAMIC_MODULES = {"importlib", "pkgutil", "runpy", "imp", "zipimport"}


class ImportGraph:
    """Which workspace files each test file can reach through imports (static analysis).

    Sound by construction where it cannot be precise: a file that imports dynamically
    (`__import__`, `importlib`, `exec`, `eval`, `pkgutil`, `runpy`) depends on every Python
    file, and every non-Python file (data) is a dependency of every test file.
    """

    def __init__(self) -> None:
        self._parsed: LRU[tuple[str, str], tuple[frozenset[str], bool]] = LRU(50_000)
        self._last: tuple[str, dict[str, frozenset[str]]] | None = None

    def _imports(self, rel: str, digest: str, data: bytes) -> tuple[frozenset[str], bool]:
        key = (rel, digest)
        hit = self._parsed.get(key)
        if hit is not None:
            return hit
        names: set[str] = set()
        dynamic = False
        package = ".".join(rel[:-3].split("/")[:-1])
        try:
            tree: ast.AST | None = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError):
            tree = None  # a broken file imports nothing (it fails at import)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    names.add(a.name)
                    if a.name.split(".")[0] in _DYNAMIC_MODULES:
                        dynamic = True
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    try:
                        mod = resolve_name("." * node.level + (node.module or ""), package)
                    except (ImportError, ValueError):
                        continue  # beyond the top-level package: fails at import
                else:
                    mod = node.module or ""
                    if mod.split(".")[0] in _DYNAMIC_MODULES:
                        dynamic = True
                if mod:
                    names.add(mod)
                for a in node.names:
                    if a.name != "*":
                        names.add(f"{mod}.{a.name}" if mod else a.name)
                if node.names and node.names[0].name == "*" and mod:
                    names.add(mod + ".*")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in _DYNAMIC_CALLS:
                    dynamic = True
        return self._parsed.put(key, (frozenset(names), dynamic))

    def dependencies(
        self,
        files: dict[str, str],
        blobs: dict[str, bytes],
        tests: dict[str, bytes],
    ) -> dict[str, frozenset[str]]:
        """{canonical test file: workspace files it depends on} for every canonical test file."""
        # The graph only changes when files appear or disappear or their imports change,
        # not when a function body is edited: reuse the last answer while it holds.
        sig = hashlib.blake2b(digest_size=16)
        for rel in sorted(files):
            if rel.endswith(".py"):
                names, dyn = self._imports(rel, files[rel], blobs[files[rel]])
                sig.update(
                    rel.encode() + (b"!" if dyn else b":") + "|".join(sorted(names)).encode()
                )
            else:
                sig.update(rel.encode() + b"#")
            sig.update(b"\0")
        signature = sig.hexdigest()
        if self._last is not None and self._last[0] == signature:
            return self._last[1]
        deps = self._dependencies(files, blobs, tests)
        self._last = (signature, deps)
        return deps

    def _dependencies(
        self,
        files: dict[str, str],
        blobs: dict[str, bytes],
        tests: dict[str, bytes],
    ) -> dict[str, frozenset[str]]:
        index: dict[str, str] = {}
        for rel in files:
            if rel.endswith(".py"):
                mod = rel[:-3].replace("/", ".")
                if mod.endswith(".__init__"):
                    mod = mod[: -len(".__init__")]
                index.setdefault(mod, rel)
        test_index: dict[str, str] = {}
        for rel in tests:
            if rel.endswith(".py"):
                for base in (rel, rel[len("tests/") :]):
                    mod = base[:-3].replace("/", ".")
                    if mod.endswith(".__init__"):
                        mod = mod[: -len(".__init__")]
                    test_index.setdefault(mod, rel)
        all_py = frozenset(r for r in files if r.endswith(".py"))
        data_files = frozenset(r for r in files if not r.endswith(".py"))
        package_inits = {r for r in files if r.endswith("__init__.py")}

        def resolve(name: str) -> list[str]:
            out = []
            star = name.endswith(".*")
            if star:
                name = name[:-2]
            bits = name.split(".")
            for i in range(1, len(bits) + 1):
                mod = ".".join(bits[:i])
                if mod in index:
                    out.append(index[mod])
                if mod in test_index:
                    out.append(test_index[mod])
            if star:
                prefix = name.replace(".", "/") + "/"
                out.extend(
                    r for r in files if r.startswith(prefix) and r.count("/") == prefix.count("/")
                )
            return out

        deps: dict[str, frozenset[str]] = {}
        for tf in tests:
            if (
                not tf.endswith(".py")
                or not tf.rsplit("/", 1)[-1].startswith(("test_",))
                and not tf.endswith("_test.py")
            ):
                continue
            seen: set[str] = set()
            todo = [tf]
            dynamic = False
            while todo and not dynamic:
                cur = todo.pop()
                if cur in seen:
                    continue
                seen.add(cur)
                if cur in tests:
                    data, digest = tests[cur], "canonical"
                else:
                    digest = files[cur]
                    data = blobs[digest]
                names, dyn = self._imports(cur, digest, data)
                if dyn:
                    dynamic = True
                    break
                for n in names:
                    todo.extend(resolve(n))
                # importing a.b.c runs a/__init__ and a/b/__init__ too
                parts = cur.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    init = "/".join(parts[:i]) + "/__init__.py"
                    if init in package_inits:
                        todo.append(init)
            mine = all_py if dynamic else frozenset(s for s in seen if s not in tests)
            deps[tf] = mine | data_files
        return deps


def skeleton_digest(data: bytes) -> str:
    """Digest of a Python file without its function bodies (what importing it does).

    Comments, formatting and line numbers do not count; decorators, default values,
    signatures, docstrings, class bodies and module-level code do. A file that does not
    parse is its content.
    """
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return "raw:" + digest(data)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            keep = node.body[:1] if ast.get_docstring(node, clean=False) is not None else []
            node.body = [*keep, ast.Pass()]
    return "skel:" + digest(ast.dump(tree, include_attributes=False).encode())


def function_digests(data: bytes) -> dict[str, str]:
    """{qualified function name: digest of its syntax tree} (names as the worker gives them)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    return {
        q: digest(ast.dump(node, include_attributes=False).encode())  # type: ignore[arg-type]
        for q, node in function_names(tree)
    }
