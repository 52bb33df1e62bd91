"""The static import graph (host side): closures of canonical test files."""

from __future__ import annotations

from swarm_envs.scoring.graph import ImportGraph, module_name, package_of
from swarm_envs.scoring.snapshot import digest

TESTS = {"tests/test_a.py": b"from pkg.a import f\n", "tests/test_b.py": b"import pkg.b\n"}


def _closures(files: dict[str, bytes], tests: dict[str, bytes] = TESTS):
    digests = {rel: digest(data) for rel, data in files.items()}
    blobs = {digest(data): data for data in files.values()}
    tds = {rel: digest(data) for rel, data in tests.items()}
    return ImportGraph().analyse(digests, blobs, tests, tds).closures


def test_names():
    assert module_name("pkg/sub/mod.py") == "pkg.sub.mod"
    assert module_name("pkg/__init__.py") == "pkg"
    assert package_of("pkg/sub/mod.py") == "pkg.sub" and package_of("top.py") == ""


def test_transitive_relative_and_package_imports():
    c = _closures(
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
    assert c["tests/test_a.py"].files == a
    assert c["tests/test_b.py"].files == {"pkg/__init__.py", "pkg/b.py"}
    assert c["tests/test_a.py"].canonical == {"tests/test_a.py"}
    assert not c["tests/test_a.py"].opaque


def test_data_files_are_everyones_and_opaque_files_say_so():
    files = {"pkg/__init__.py": b"", "pkg/a.py": b"", "pkg/b.py": b"", "data.json": b"{}"}
    assert _closures(files)["tests/test_b.py"].files == {"pkg/__init__.py", "pkg/b.py", "data.json"}
    dynamic = {**files, "pkg/a.py": b"import importlib\n\nB = importlib.import_module('pkg.b')\n"}
    c = _closures(dynamic)
    assert "pkg/a.py" in c["tests/test_a.py"].opaque and not c["tests/test_b.py"].opaque


def test_a_star_import_reaches_only_the_submodules_the_file_names():
    files = {
        "pkg/__init__.py": b"",
        "pkg/a.py": b"from pkg import *\n\ndef f():\n    return m7.g()\n",
    }
    files.update({f"pkg/m{i}.py": b"def g():\n    return 1\n" for i in range(4000)})
    c = _closures(files)["tests/test_a.py"]
    assert c.files == {"pkg/__init__.py", "pkg/a.py", "pkg/m7.py"}


def test_a_module_that_appears_under_an_imported_name_changes_the_signature():
    base = {"pkg/__init__.py": b"", "pkg/a.py": b"import helpers\n"}
    before = _closures(base)["tests/test_a.py"]
    after = _closures({**base, "helpers.py": b"X = 1\n"})["tests/test_a.py"]
    assert "helpers.py" in after.files and before.signature != after.signature
    # A new submodule of a package that a file imports (and may reach by attribute), too.
    star = {**base, "pkg/a.py": b"import pkg\n"}
    before = _closures(star)["tests/test_a.py"]
    assert _closures({**star, "pkg/new.py": b""})["tests/test_a.py"].signature != before.signature


def test_a_package_wins_over_a_module_of_the_same_name():
    c = _closures({"pkg/__init__.py": b"", "pkg/a.py": b"", "pkg/a/__init__.py": b""})
    assert "pkg/a/__init__.py" in c["tests/test_a.py"].files


def test_conftests_of_the_test_directory_are_roots():
    tests = {**TESTS, "tests/conftest.py": b"import pkg.b\n"}
    c = _closures({"pkg/__init__.py": b"", "pkg/a.py": b"", "pkg/b.py": b""}, tests)
    assert "pkg/b.py" in c["tests/test_a.py"].files
    assert "tests/conftest.py" in c["tests/test_a.py"].canonical
