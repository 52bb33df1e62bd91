"""Failure texts: the worker parses a source file once per process, not once per failure.

`worker.main.reuse_parsed_sources` keeps the trees pytest parses to find each traceback
entry's statement, keyed by the source text. The texts must stay pytest's own, and a
file that changed must be parsed again (its new lines shown).
"""

from __future__ import annotations

import ast
import importlib.util
import linecache
import sys

import pytest
from _pytest._code import code

from swarm_envs.scoring.worker.main import reuse_parsed_sources

BROKEN = "def first():\n    x = 1\n    raise ValueError(f'first {x}')\n\n\ndef second():\n    return first()\n"


def load(path, name):
    linecache.checkcache(str(path))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def failure(fn) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    return str(info.getrepr(style="short"))


@pytest.fixture
def parses(monkeypatch):
    """Counts ast.parse calls; pytest's entry point is restored after the test."""
    monkeypatch.setattr(code, "getstatementrange_ast", code.getstatementrange_ast)
    calls: list[str] = []
    real = ast.parse

    def parse(source, *a, **k):
        calls.append(source if isinstance(source, str) else "")
        return real(source, *a, **k)

    monkeypatch.setattr(ast, "parse", parse)
    return calls


def test_many_failures_parse_each_source_once_and_read_as_pytest_writes_them(
    tmp_path, parses, monkeypatch
):
    path = tmp_path / "broken_mod.py"
    path.write_text(BROKEN)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    mod = load(path, "broken_mod")
    own = [failure(mod.second) for _ in range(5)]
    assert len(parses) >= 10  # pytest alone: every entry of every failure parses its file
    parses.clear()
    reuse_parsed_sources()
    mine = [failure(mod.second) for _ in range(5)]
    assert mine == own  # the same texts
    assert len(parses) == len(set(parses)) <= 2  # this file and the module, once each


def test_a_changed_source_is_parsed_again(tmp_path, parses, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    reuse_parsed_sources()
    path = tmp_path / "changing_mod.py"
    path.write_text(BROKEN)
    before = failure(load(path, "changing_mod").second)
    path.write_text("\n\n" + BROKEN.replace("first {x}", "moved {x}"))
    after = failure(load(path, "changing_mod").second)
    assert "raise ValueError(f'first {x}')" in before
    assert "raise ValueError(f'moved {x}')" in after and "first {x}" not in after
    module_parses = [s for s in parses if "def second" in s and "import" not in s]
    assert len(module_parses) == 2
