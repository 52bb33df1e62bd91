"""The fast scorer: cache, selection by import graph and executed functions, workers.

The last test checks the cache differentially: after random edits, the fast scorer must
agree with the naive one and with the truth.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from swarm_envs.scoring import FastScorer, TestReport, make_scorer

from .project import OPS_IDS, SOLUTION, STUB_TEXT, put, write_task


def test_fast_caches_unchanged_tree_and_reruns_only_affected_files(task, sandbox):
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        first = sc.evaluate()
        assert not first.cached and first.ran == 7
        again = sc.evaluate()
        assert again.cached and again.ran == 0 and again.per_test == first.per_test
        put(sandbox, "mathy/text.py", SOLUTION["mathy/text.py"])
        r = sc.evaluate()
        assert r.ran == 3  # only tests/test_text.py can see mathy/text.py
        assert r.passed == 3
        # A subset of a cached state is answered from the cache.
        assert sc.evaluate(["tests/test_text.py::test_shout"]).cached
        # Unrelated files (data) conservatively invalidate everything.
        put(sandbox, "notes.txt", "hello")
        assert sc.evaluate().ran == 7
        # Going back to an earlier state is a cache hit.
        put(sandbox, "mathy/text.py", STUB_TEXT)
        (sandbox.root / "notes.txt").unlink()
        back = sc.evaluate()
        assert back.cached and back.passed == 0


def test_fast_cache_is_shared_by_the_episodes_of_a_task(task, make_sandbox_for_test):
    # A new episode's starting state is scored from the cache, without a worker run.
    with make_sandbox_for_test() as a, make_sandbox_for_test() as b:
        task.materialize(a.root)
        task.materialize(b.root)
        with make_scorer(task, a) as first:
            r1 = first.evaluate()
            assert not r1.cached
        with make_scorer(task, b) as second:
            r2 = second.evaluate()
            assert r2.cached and r2.ran == 0 and r2.per_test == r1.per_test
            put(b, "mathy/text.py", SOLUTION["mathy/text.py"])
            r3 = second.evaluate()
            assert r3.ran == 3 and r3.passed == 3  # a change is still run, only where it matters


def test_function_level_keys_are_sound(tmp_path, sandbox):
    """Edits to function bodies re-run only the tests that can reach them by name; anything
    that runs at import, or a file the analysis cannot see through, re-runs every test
    that can import it."""
    solution = {
        **SOLUTION,
        "mathy/__init__.py": "from .ops import add, mul\nfrom .text import shout\n",
        "mathy/ops.py": "from .text import shout\n\n\ndef add(a, b):\n    return a + b\n\n\n"
        "def mul(a, b):\n    return a * b\n\n\ndef loud_add(a, b):\n    return shout(str(a + b))\n",
    }
    task = write_task(tmp_path / "t", solution=solution, start=solution)
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        assert sc.evaluate().passed == 7
        # mul's body: only the two mul tests name it.
        put(sandbox, "mathy/ops.py", solution["mathy/ops.py"].replace("a * b", "b * a"))
        assert sc.evaluate().ran == 2
        # loud_add is named by no test: nothing re-runs, although everyone imports it.
        put(sandbox, "mathy/ops.py", solution["mathy/ops.py"].replace("str(a + b)", "str(b + a)"))
        assert sc.evaluate().ran == 0
        # A new module-level name changes what importing does: all 7 re-run.
        put(sandbox, "mathy/ops.py", "X = 1\n" + solution["mathy/ops.py"])
        assert sc.evaluate().ran == 7
        # A default value is evaluated at import: also everyone's.
        put(sandbox, "mathy/text.py", 'def shout(s, end="!"):\n    return s.upper() + end\n')
        assert sc.evaluate().ran == 7
        put(sandbox, "mathy/text.py", 'def shout(s, end="?"):\n    return s.upper() + "!"\n')
        assert sc.evaluate().ran == 7
        # Function called at import time: its body counts for every test.
        put(
            sandbox,
            "mathy/text.py",
            'def shout(s):\n    return s.upper() + "!"\n\n\n'
            "def _init():\n    return 1\n\n\nREADY = _init()\n",
        )
        assert sc.evaluate().ran == 7
        put(
            sandbox,
            "mathy/text.py",
            'def shout(s):\n    return s.upper() + "!"\n\n\n'
            "def _init():\n    return 2\n\n\nREADY = _init()\n",
        )
        assert sc.evaluate().ran == 7
        # A function that starts a process defeats the analysis: the tests that reach it
        # (the three of shout) depend on every file; the others still on what they reach.
        put(
            sandbox,
            "mathy/text.py",
            "import subprocess\n\n\ndef shout(s):\n"
            '    subprocess.run(["true"])\n    return s.upper() + "!"\n',
        )
        assert sc.evaluate().passed == 7
        ops = "X = 1\n" + solution["mathy/ops.py"]
        put(sandbox, "mathy/ops.py", ops.replace("return shout(", "return  shout("))
        assert sc.evaluate().ran == 3
        # Started at import, it is every importer's.
        put(
            sandbox,
            "mathy/text.py",
            'import subprocess\n\nsubprocess.run(["true"])\n\n\ndef shout(s):\n'
            '    return s.upper() + "!"\n',
        )
        assert sc.evaluate().passed == 7
        put(sandbox, "mathy/ops.py", ops)
        assert sc.evaluate().ran == 7  # every test can import the opaque text.py


def test_fast_follows_transitive_and_dynamic_imports(tmp_path, sandbox):
    solution = {
        **SOLUTION,
        "mathy/helpers.py": "def one():\n    return 1\n",
        "mathy/ops.py": "from .helpers import one\n\n\ndef add(a, b):\n    return a + b * one()\n"
        "\n\ndef mul(a, b):\n    return a * b\n",
    }
    task = write_task(tmp_path / "t", solution=solution, start=solution)
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        assert sc.evaluate().passed == 7
        put(sandbox, "mathy/helpers.py", "def one():\n    return 2\n")
        r = sc.evaluate()
        # Only the tests that reach one() (through add) re-run; mul's tests import
        # helpers.py too, but cannot reach its function bodies.
        assert r.ran == 2 and r.passed == 5
        # A change at module level (what importing does) re-runs every importer.
        put(sandbox, "mathy/helpers.py", "LIMIT = 3\n\n\ndef one():\n    return 2\n")
        assert sc.evaluate().ran == 4
        # A dynamic import makes the tests that reach it depend on every file.
        put(
            sandbox,
            "mathy/text.py",
            "import importlib\n\n\ndef shout(s):\n"
            '    importlib.import_module("mathy.helpers")\n    return s.upper() + "!"\n',
        )
        assert sc.evaluate().ran == 3
        put(sandbox, "mathy/helpers.py", "LIMIT = 4\n\n\ndef one():\n    return 1\n")
        r = sc.evaluate()
        assert r.ran == 7 and r.passed == 7


def test_concurrent_evaluations(task, sandbox):
    task.materialize(sandbox.root)
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    with make_scorer(task, sandbox) as sc:
        out: list[TestReport] = []
        sels = [["tests/test_ops.py"], ["tests/test_text.py"], None, ["tests/test_ops.py::TestAdd"]]
        threads = [threading.Thread(target=lambda s=s: out.append(sc.evaluate(s))) for s in sels]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(r.passed for r in out) == [2, 3, 4, 7]
        assert all(r.verdict == "ok" for r in out)


def test_hang_fails_only_the_hanging_test(tmp_path, sandbox):
    task = write_task(tmp_path / "t", timeout_s=20)
    task.materialize(sandbox.root)
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    put(
        sandbox,
        "mathy/text.py",
        'def shout(s):\n    while not s:\n        pass\n    return s.upper() + "!"\n',
    )
    with FastScorer(task, sandbox, test_timeout_s=1.0) as sc:
        r = sc.evaluate()  # how long this takes: benchmarks/bench_scoring.py --hang
        assert r.verdict == "ok"
        assert r.per_test["tests/test_text.py::test_empty"] is False
        assert "no progress" in r.failures["tests/test_text.py::test_empty"]
        assert r.passed == 6  # the tests after the hang still ran


def test_scorer_failure_is_no_verdict_not_zero(task, sandbox):
    task.materialize(sandbox.root)
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    sc = make_scorer(task, sandbox)
    assert sc.evaluate().passed == 7
    # The worker dies under the scorer (infrastructure): retried transparently.
    for w in list(sc._all):
        w.handle.kill()
    put(sandbox, "mathy/text.py", STUB_TEXT)
    r = sc.evaluate()
    assert r.verdict == "ok" and r.passed == 4
    # The sandbox is gone: no verdict, with the reason, never a silent zero.
    sandbox.close()
    r = sc.evaluate(["tests/test_ops.py"])
    assert r.verdict == "no_verdict" and r.error
    assert r.per_test == dict.fromkeys(OPS_IDS, False)
    sc.close()
    sc.close()


def test_scoring_leaves_no_processes_or_directories(task, make_sandbox_for_test):
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    sc = make_scorer(task, sb)
    sc.evaluate()
    base = sb._dir
    sc.close()
    sb.close()
    assert not base.exists()
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != me:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert str(base).encode() not in cmd


def _formula_source(m: int, funcs: dict, const: int) -> str:
    lines = [f'"""Generated module m{m}."""', ""]
    deps = sorted({f[1][0] for (mm, _), f in funcs.items() if mm == m and f[0] == "call"})
    lines += [f"from . import m{d}" for d in deps]
    lines += ["", f"CONST = {const}", ""]
    for (mm, k), f in sorted(funcs.items()):
        if mm != m:
            continue
        if f[0] == "lin":
            body = f"return x * {f[1]} + {f[2]}"
        elif f[0] == "const":
            body = "return x + CONST"
        else:
            (m2, k2), c = f[1], f[2]
            body = f"return m{m2}.f{k2}(x) + {c}"
        lines += ["", f"def f{k}(x):", f'    """f{k} of m{m}."""', f"    {body}", ""]
    return "\n".join(lines)


def _value(funcs: dict, consts: dict, m: int, k: int, x: int) -> int:
    f = funcs[(m, k)]
    if f[0] == "lin":
        return x * f[1] + f[2]
    if f[0] == "const":
        return x + consts[m]
    (m2, k2), c = f[1], f[2]
    return _value(funcs, consts, m2, k2, x) + c


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_fast_cache_agrees_with_a_fresh_run_under_random_edits(tmp_path, sandbox):
    """Random edits to bodies, constants and call structure: the fast scorer (cache,
    import graph, function-level tracking) must agree with the naive scorer every time."""
    import random

    rng = random.Random(1234)
    n_mod, n_fun = 5, 4
    funcs: dict = {}
    for m in range(n_mod):
        for k in range(n_fun):
            kind = rng.choice(["lin", "lin", "const"] + (["call", "call"] if m else []))
            if kind == "lin":
                funcs[(m, k)] = ("lin", rng.randint(1, 9), rng.randint(0, 9))
            elif kind == "const":
                funcs[(m, k)] = ("const",)
            else:
                funcs[(m, k)] = (
                    "call",
                    (rng.randrange(m), rng.randrange(n_fun)),
                    rng.randint(0, 9),
                )
    consts = {m: rng.randint(0, 9) for m in range(n_mod)}
    solution = {"gen/__init__.py": '"""Generated."""\n'}
    solution.update({f"gen/m{m}.py": _formula_source(m, funcs, consts[m]) for m in range(n_mod)})
    tests = {}
    for m in range(n_mod):
        body = [f"from gen.m{m} import *\n"]
        for k in range(n_fun):
            for x in (1, 2):
                body.append(
                    f"\ndef test_f{k}_{x}():\n    assert f{k}({x}) == {_value(funcs, consts, m, k, x)}\n"
                )
        tests[f"test_m{m}.py"] = "".join(body)
    task = write_task(tmp_path / "gen", solution=solution, tests=tests, start=solution)
    task.materialize(sandbox.root)
    ref_funcs, ref_consts = dict(funcs), dict(consts)
    with make_scorer(task, sandbox) as fast, make_scorer(task, sandbox, kind="subprocess") as slow:
        assert fast.evaluate().passed == n_mod * n_fun * 2
        for step in range(14):
            m = rng.randrange(n_mod)
            what = rng.choice(["body", "body", "const", "revert", "rewire"])
            if what == "body":
                k = rng.randrange(n_fun)
                if funcs[(m, k)][0] == "lin":
                    funcs[(m, k)] = ("lin", rng.randint(1, 9), rng.randint(0, 9))
                elif funcs[(m, k)][0] == "call":
                    funcs[(m, k)] = ("call", funcs[(m, k)][1], rng.randint(0, 9))
            elif what == "const":
                consts[m] = rng.randint(0, 9)
            elif what == "revert":
                for k in range(n_fun):
                    funcs[(m, k)] = ref_funcs[(m, k)]
                consts[m] = ref_consts[m]
            elif m:
                k = rng.randrange(n_fun)
                funcs[(m, k)] = (
                    "call",
                    (rng.randrange(m), rng.randrange(n_fun)),
                    rng.randint(0, 9),
                )
            put(sandbox, f"gen/m{m}.py", _formula_source(m, funcs, consts[m]))
            a, b = fast.evaluate(), slow.evaluate()
            assert a.verdict == b.verdict == "ok"
            assert a.per_test == b.per_test, (step, what, m)
            truth = {
                f"tests/test_m{mm}.py::test_f{k}_{x}": _value(funcs, consts, mm, k, x)
                == _value(ref_funcs, ref_consts, mm, k, x)
                for mm in range(n_mod)
                for k in range(n_fun)
                for x in (1, 2)
            }
            assert a.per_test == truth, (step, what, m)


def test_worker_reports_where_a_runs_time_goes(task, sandbox, monkeypatch):
    """The worker's reply splits its time into phases (benchmarks/bench_menu_scoring.py).

    A test that sleeps puts its time in the tests' phase, and the phases are parts of the
    request's own span (they never add up to more than it).
    """
    replies: list[dict] = []
    real = FastScorer._run_on_worker

    def run(self, *a, **kw):
        rec = real(self, *a, **kw)
        replies.append(rec)
        return rec

    monkeypatch.setattr(FastScorer, "_run_on_worker", run)
    task.materialize(sandbox.root)
    put(
        sandbox,
        "mathy/text.py",
        "import time\n\n\ndef shout(s):\n    time.sleep(0.4)\n    return s.upper() + '!'\n",
    )
    with make_scorer(task, sandbox) as sc:
        sc.evaluate(["tests/test_text.py::test_shout"], fresh=True)
    [rec] = replies
    phases = rec["phases"]
    assert set(phases) == {"prepare", "start", "pytest", "collection", "tests", "reap"}
    assert all(v >= 0 for v in phases.values())
    assert sum(phases.values()) <= rec["elapsed"] + 1e-6
    assert phases["tests"] >= 0.4  # the sleep happened while the tests ran


HYPOTHESIS_TEXT = """
from hypothesis import given, settings, strategies as st
from hypothesis.internal import charmap


def test_tables_came_with_the_run():
    # before any strategy of this run asked for them
    assert charmap._charmap is not None
    assert charmap.intervals_from_codec.cache_info().currsize >= 1


@settings(max_examples=5, database=None)
@given(st.text())
def test_text_round_trips(s):
    assert s.encode("utf-8").decode("utf-8") == s
"""


def test_runs_inherit_hypothesis_tables_from_the_fork_server(tmp_path, sandbox):
    """`st.text()` needs hypothesis' Unicode tables (seconds to build, cached on disk in a
    storage folder each run has new): the fork server builds them once, every run inherits
    them (a suite of two text tests went past a 20 s limit under load when each run built
    them), and the storage folder the server used for them is gone."""
    task = write_task(tmp_path / "t", tests={"test_props.py": HYPOTHESIS_TEXT})
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        r = sc.evaluate()
    assert r.total == 2 and r.passed == 2, r.failures
    assert not list(sandbox.root.glob(".hypothesis*")) and not list(
        sandbox.root.rglob("hypothesis-warm-*")
    )
