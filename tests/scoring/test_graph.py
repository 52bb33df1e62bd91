"""The static import graph and the digests of Python source (host side)."""

from __future__ import annotations

from swarm_envs.scoring.graph import ImportGraph, function_digests, skeleton_digest
from swarm_envs.scoring.snapshot import digest

TESTS = {"tests/test_a.py": b"from pkg.a import f\n", "tests/test_b.py": b"import pkg.b\n"}


def _deps(files: dict[str, bytes], tests: dict[str, bytes] = TESTS) -> dict[str, frozenset[str]]:
    digests = {rel: digest(data) for rel, data in files.items()}
    blobs = {digest(data): data for data in files.values()}
    return ImportGraph().dependencies(digests, blobs, tests)


def test_transitive_relative_and_package_imports():
    deps = _deps(
        {
            "pkg/__init__.py": b"",
            "pkg/a.py": b"from . import helpers\nfrom .sub.deep import x\n",
            "pkg/helpers.py": b"",
            "pkg/sub/__init__.py": b"",
            "pkg/sub/deep.py": b"from ..helpers import *\n",
            "pkg/b.py": b"",
            "other.py": b"",
        }
    )
    a = {"pkg/__init__.py", "pkg/a.py", "pkg/helpers.py", "pkg/sub/__init__.py", "pkg/sub/deep.py"}
    assert deps["tests/test_a.py"] == a
    assert deps["tests/test_b.py"] == {"pkg/__init__.py", "pkg/b.py"}


def test_data_files_are_everyones_and_dynamic_imports_reach_everything():
    files = {"pkg/__init__.py": b"", "pkg/a.py": b"", "pkg/b.py": b"", "data.json": b"{}"}
    deps = _deps(files)
    assert deps["tests/test_b.py"] == {"pkg/__init__.py", "pkg/b.py", "data.json"}
    dynamic = {**files, "pkg/a.py": b"import importlib\n"}
    assert _deps(dynamic)["tests/test_a.py"] == set(dynamic)


def test_a_relative_import_beyond_the_top_level_is_no_dependency():
    deps = _deps({"pkg/__init__.py": b"", "pkg/a.py": b"from ... import nothing\n"})
    assert deps["tests/test_a.py"] == {"pkg/__init__.py", "pkg/a.py"}


def test_skeleton_ignores_bodies_comments_and_layout():
    base = b'def f(x=1):\n    """Doc."""\n    return x\n'
    assert skeleton_digest(base) == skeleton_digest(b'# c\ndef f(x=1):\n    """Doc."""\n\n    return x + 1\n')
    assert skeleton_digest(base) != skeleton_digest(base.replace(b"x=1", b"x=2"))
    assert skeleton_digest(base) != skeleton_digest(base.replace(b"Doc.", b"Other."))
    assert skeleton_digest(base) != skeleton_digest(base + b"Y = 2\n")
    assert skeleton_digest(b"def (:\n").startswith("raw:")


def test_function_digests_name_functions_like_the_worker():
    src = b"def f():\n    def g():\n        pass\n\nclass C:\n    def m(self):\n        pass\n\ndef f():\n    pass\n"
    assert set(function_digests(src)) == {"f", "f.<locals>.g", "C.m", "f#1"}
    assert function_digests(b"def (:") == {}
