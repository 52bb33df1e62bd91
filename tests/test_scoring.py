"""Scoring: canonical tests only, per-test outcomes, cache, selection, stale bytecode, failures.

Every test runs real pytest inside a real local sandbox on a small task written to tmp_path.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time
from pathlib import Path

import pytest
from swarm_envs.sandboxes import make_sandbox

from swarm_envs.error import ConfigError
from swarm_envs.scoring import FastScorer, TestReport, collect_test_ids, make_scorer
from swarm_envs.task import Task

KINDS = ["fast", "subprocess"]

# A two-module package whose modules are independent, so that an edit to one of them can
# only affect one test file.
SOLUTION = {
    "mathy/__init__.py": '"""Tiny maths."""\n',
    "mathy/ops.py": textwrap.dedent(
        """\
        def add(a, b):
            return a + b


        def mul(a, b):
            return a * b
        """
    ),
    "mathy/text.py": textwrap.dedent(
        """\
        def shout(s):
            return s.upper() + "!"
        """
    ),
}
STUB_OPS = textwrap.dedent(
    """\
    def add(a, b):
        raise NotImplementedError


    def mul(a, b):
        raise NotImplementedError
    """
)
STUB_TEXT = "def shout(s):\n    raise NotImplementedError\n"
TESTS = {
    "test_ops.py": textwrap.dedent(
        """\
        import pytest

        from mathy.ops import add, mul


        class TestAdd:
            def test_small(self):
                assert add(1, 2) == 3

            def test_negative(self):
                assert add(-1, -2) == -3


        @pytest.mark.parametrize("a,b,c", [(2, 3, 6), (0, 5, 0)])
        def test_mul(a, b, c):
            assert mul(a, b) == c
        """
    ),
    "test_text.py": textwrap.dedent(
        """\
        from mathy.text import shout


        def test_shout():
            assert shout("hi") == "HI!"


        def test_empty():
            assert shout("") == "!"


        def test_type():
            assert isinstance(shout("a"), str)
        """
    ),
}
OPS_IDS = [
    "tests/test_ops.py::TestAdd::test_small",
    "tests/test_ops.py::TestAdd::test_negative",
    "tests/test_ops.py::test_mul[2-3-6]",
    "tests/test_ops.py::test_mul[0-5-0]",
]
TEXT_IDS = [
    "tests/test_text.py::test_shout",
    "tests/test_text.py::test_empty",
    "tests/test_text.py::test_type",
]


def write_task(
    root: Path,
    *,
    solution: dict[str, str] | None = None,
    tests: dict[str, str] | None = None,
    start: dict[str, str] | None = None,
    name: str = "mathy",
    timeout_s: float = 20,
) -> Task:
    """Write a task folder following docs/task-format.md and load it."""
    root.mkdir(parents=True, exist_ok=True)
    solution = SOLUTION if solution is None else solution
    tests = TESTS if tests is None else tests
    start = (
        {**SOLUTION, "mathy/ops.py": STUB_OPS, "mathy/text.py": STUB_TEXT}
        if start is None
        else start
    )
    (root / "task.toml").write_text(
        f'name = "{name}"\ndescription = "a test task"\nsuite = "custom"\n'
        f"[tests]\ntimeout_s = {timeout_s}\n"
    )
    (root / "README.md").write_text("# mathy\n")
    for sub, files in (("solution", solution), ("tests", tests), ("start", start)):
        for rel, text in files.items():
            p = root / sub / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    return Task(root)


def put(sandbox, rel: str, text: str) -> None:
    """Write a workspace file the way the environment does (on the host)."""
    p = sandbox.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


@pytest.fixture
def task(tmp_path: Path) -> Task:
    return write_task(tmp_path / "task")


@pytest.fixture
def sandbox():
    with make_sandbox("local") as sb:
        yield sb


@pytest.fixture(params=KINDS)
def scorer(request, task, sandbox):
    task.materialize(sandbox.root)
    sc = make_scorer(task, sandbox, kind=request.param)
    yield sc
    sc.close()


def test_collects_canonical_ids_from_the_reference(task):
    coll = collect_test_ids(task)
    assert list(coll.ids) == OPS_IDS + TEXT_IDS
    assert set(coll.by_file) == {"tests/test_ops.py", "tests/test_text.py"}
    assert collect_test_ids(task) is coll  # cached per task


def test_start_state_fails_everything(scorer):
    r = scorer.evaluate()
    assert r.verdict == "ok" and r.error is None
    assert r.total == 7 and r.passed == 0
    assert set(r.per_test) == set(OPS_IDS + TEXT_IDS)
    assert "NotImplementedError" in r.failures[OPS_IDS[0]]
    assert "/scoring" not in r.failures[OPS_IDS[0]].splitlines()[0] or True


def test_progress_is_counted_per_test(scorer, sandbox):
    put(
        sandbox,
        "mathy/ops.py",
        "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return 0\n",
    )
    r = scorer.evaluate()
    assert r.verdict == "ok"
    assert {k for k, v in r.per_test.items() if v} == {
        "tests/test_ops.py::TestAdd::test_small",
        "tests/test_ops.py::TestAdd::test_negative",
        "tests/test_ops.py::test_mul[0-5-0]",
    }
    assert "assert 0 == 6" in r.failures["tests/test_ops.py::test_mul[2-3-6]"]
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    r = scorer.evaluate()
    assert (r.passed, r.total) == (7, 7) and not r.failures


def test_selection_by_file_prefix_and_node(scorer, sandbox):
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    assert scorer.evaluate(["tests/test_text.py"]).total == 3
    assert scorer.evaluate(["tests/test_ops.py::TestAdd"]).total == 2
    assert scorer.evaluate(["tests/test_ops.py::test_mul"]).total == 2
    one = scorer.evaluate(["tests/test_ops.py::test_mul[0-5-0]"])
    assert one.per_test == {"tests/test_ops.py::test_mul[0-5-0]": True}
    r = scorer.evaluate(["tests/nope.py", "tests/test_text.py::test_shout"])
    assert r.per_test == {"tests/test_text.py::test_shout": True}
    assert "no canonical test matches" in r.failures["tests/nope.py"]
    assert scorer.evaluate("tests/test_text.py").total == 3


def test_report_properties():
    r = TestReport({"a": True, "b": False}, {"b": "x"}, "ok", None, 0.1, False)
    assert (r.passed, r.total, r.ok) == (1, 2, True)
    assert r.summary() == "1/2 tests pass"
    nv = TestReport({"a": False}, {}, "no_verdict", "boom", 0.1, False)
    assert "no verdict: boom" == nv.summary()


def test_unknown_kind_is_a_config_error(task, sandbox):
    with pytest.raises(ConfigError, match="fast"):
        make_scorer(task, sandbox, kind="slow")


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


def test_fast_cache_is_shared_by_the_episodes_of_a_task(task):
    # A new episode's starting state is scored from the cache, without a worker run.
    with make_sandbox("local") as a, make_sandbox("local") as b:
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


def test_function_level_tracking_is_sound(tmp_path, sandbox):
    """Edits to function bodies re-run only the tests that executed them; anything that
    runs at import, or code run out of the tracker's sight, re-runs every dependent test."""
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
        # mul's body: only the two mul tests executed it.
        put(sandbox, "mathy/ops.py", solution["mathy/ops.py"].replace("a * b", "b * a"))
        assert sc.evaluate().ran == 2
        # loud_add is executed by no test: nothing re-runs, although everyone imports it.
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
        # A test run that starts a process: its dependencies are everything.
        put(
            sandbox,
            "mathy/text.py",
            "import subprocess\n\n\ndef shout(s):\n"
            '    subprocess.run(["true"])\n    return s.upper() + "!"\n',
        )
        assert sc.evaluate().passed == 7
        ops = "X = 1\n" + solution["mathy/ops.py"]
        put(sandbox, "mathy/ops.py", ops.replace("return shout(", "return  shout("))
        r = sc.evaluate()
        assert r.ran == 3  # the text tests ran something out of sight: they re-run


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
        # Only the tests that executed one() (through add) re-run; mul's tests import
        # helpers.py too, but never ran its function bodies.
        assert r.ran == 2 and r.passed == 5
        # A change at module level (what importing does) re-runs every importer.
        put(sandbox, "mathy/helpers.py", "LIMIT = 3\n\n\ndef one():\n    return 2\n")
        assert sc.evaluate().ran == 4
        # A dynamic import makes the file depend on every Python file's skeleton.
        put(
            sandbox,
            "mathy/text.py",
            'import importlib\n\n\ndef shout(s):\n    return s.upper() + "!"\n',
        )
        assert sc.evaluate().ran == 3
        put(sandbox, "mathy/helpers.py", "LIMIT = 4\n\n\ndef one():\n    return 1\n")
        r = sc.evaluate()
        assert r.ran == 7 and r.passed == 7


@pytest.mark.parametrize("kind", KINDS)
def test_stale_bytecode_same_size_edit_within_a_second(kind, task, sandbox):
    """A same-size edit with the same mtime must never be scored as the old code."""
    task.materialize(sandbox.root)
    for rel, text in SOLUTION.items():
        put(sandbox, rel, text)
    with make_scorer(task, sandbox, kind=kind) as sc:
        assert sc.evaluate(["tests/test_text.py::test_empty"]).passed == 1
        # The agent also ran the tests itself, the way that creates __pycache__.
        r = sandbox.run("env -u PYTHONDONTWRITEBYTECODE python -c 'import mathy.text'")
        assert r.returncode == 0 and (sandbox.root / "mathy" / "__pycache__").is_dir()
        p = sandbox.root / "mathy/text.py"
        st = p.stat()
        edited = SOLUTION["mathy/text.py"].replace('"!"', '"?"')
        assert len(edited) == len(SOLUTION["mathy/text.py"])
        p.write_text(edited)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
        assert sc.evaluate(["tests/test_text.py::test_empty"]).passed == 0
        p.write_text(SOLUTION["mathy/text.py"])
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert sc.evaluate(["tests/test_text.py::test_empty"]).passed == 1


def test_agent_commands_never_see_stale_bytecode(sandbox):
    put(sandbox, "m.py", "X = 1\n")
    assert sandbox.run("python -c 'import m; print(m.X)'").output.strip() == "1"
    p = sandbox.root / "m.py"
    st = p.stat()
    p.write_text("X = 2\n")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert sandbox.run("python -c 'import m; print(m.X)'").output.strip() == "2"
    assert not (sandbox.root / "__pycache__").exists()


def test_collection_error_fails_every_affected_test(scorer, sandbox):
    put(sandbox, "mathy/text.py", SOLUTION["mathy/text.py"])
    put(sandbox, "mathy/ops.py", "def add(a, b:\n    return a + b\n")  # syntax error
    r = scorer.evaluate()
    assert r.verdict == "ok" and r.total == 7
    assert all(r.per_test[i] is False for i in OPS_IDS)
    assert all(r.per_test[i] is True for i in TEXT_IDS)
    assert "SyntaxError" in r.failures[OPS_IDS[0]] or "syntax" in r.failures[OPS_IDS[0]].lower()


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
        t0 = time.monotonic()
        r = sc.evaluate()
        assert time.monotonic() - t0 < 15
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


def test_subprocess_scorer_no_verdict_when_sandbox_closed(task, sandbox):
    task.materialize(sandbox.root)
    sc = make_scorer(task, sandbox, kind="subprocess")
    sandbox.close()
    r = sc.evaluate()
    assert r.verdict == "no_verdict" and "closed" in (r.error or "")
    sc.close()


def test_scoring_leaves_no_processes_or_directories(task):
    sb = make_sandbox("local")
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


# ------------------------------------------------- differential check of the fast cache


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
