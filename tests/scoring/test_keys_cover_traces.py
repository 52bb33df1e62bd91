"""The static keys cover what the tests really execute, on bundled tasks' references.

Each task's tests run once on its reference solution on the host (trusted code) under a
profiler (`benchmarks/reach_trace.py`); every project function a test executed must be
in that test's key (or the key must be every file). A miss is a soundness bug of the
analysis: an edit to that function would leave the test's cached outcome standing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_keys.py"


@pytest.fixture(scope="module")
def bench_keys():
    spec = importlib.util.spec_from_file_location("bench_keys", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_keys"] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("bench_keys", None)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("task", ["calc", "exprcalc", "structkit", "jsonkit", "inflection"])
def test_every_executed_function_is_in_the_tests_key(bench_keys, task, capsys):
    r = bench_keys.measure(task, trace=True)
    assert r["traced"] == r["tests"], capsys.readouterr().out  # every test ran traced
    assert r["uncovered"] == 0, capsys.readouterr().out
    # The traces are real: a test executes some of the project (fewer than a key holds).
    assert 0 < r["executed"] <= r["median"]


def test_a_key_that_misses_an_executed_function_is_reported(bench_keys):
    keys = {"tests/t.py::test_a": {"pkg/m.py": ("f",)}, "tests/t.py::test_b": None}
    traced = {
        "tests/t.py::test_a": {("pkg/m.py", "f"), ("pkg/m.py", "g"), ("pkg/m.py", "C")},
        "tests/t.py::test_b": {("pkg/m.py", "g")},
    }
    functions = {"pkg/m.py": {"f", "g"}}  # C: a class body, covered by the skeleton
    assert bench_keys.uncovered(keys, traced, functions) == [
        ("tests/t.py::test_a", "pkg/m.py", "g")
    ]
