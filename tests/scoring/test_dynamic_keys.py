"""Dynamic keys (issue 30): a test re-runs when code it executed changed, never less.

A table-dispatching project where the static analysis must key every test by every
handler: with `keys="dynamic"` an edit to a handler a test never executed does not re-run
it, an edit to one it executed does (including a new body that calls code the test never
reached), a module-level edit re-runs the file's tests (the static key is the ceiling), and
every outcome agrees with a fresh run. `keys="static"` stays selectable.
"""

from __future__ import annotations

import textwrap

import pytest

from swarm_envs.core.config import EnvConfig, ScoringSettings
from swarm_envs.scoring import make_scorer

from .project import put, write_task

OPS = textwrap.dedent(
    """\
    def add(a, b):
        return a + b


    def mul(a, b):
        return a * b


    def neg(a, b):
        return -a


    TABLE = {"add": add, "mul": mul, "neg": neg}


    def apply(op, a, b):
        return TABLE[op](a, b)
    """
)
SOLUTION = {"calc/__init__.py": "", "calc/ops.py": OPS, "calc/data.txt": "7\n"}
TESTS = {
    "test_ops.py": textwrap.dedent(
        """\
        from calc.ops import apply


        def test_add():
            assert apply("add", 1, 2) == 3


        def test_mul():
            assert apply("mul", 2, 3) == 6


        def test_neg():
            assert apply("neg", 4, 0) == -4
        """
    ),
    "test_data.py": textwrap.dedent(
        """\
        from calc.read import seven


        def test_seven():
            assert seven() == 7
        """
    ),
}
READ = 'import os\n\n\ndef seven():\n    with open(os.path.join(os.path.dirname(__file__), "data.txt")) as f:\n        return int(f.read())\n'
IDS = {n: f"tests/test_ops.py::test_{n}" for n in ("add", "mul", "neg")}


@pytest.fixture
def project(tmp_path, sandbox):
    files = {**SOLUTION, "calc/read.py": READ}
    task = write_task(tmp_path / "task", solution=files, tests=TESTS, start=files, name="calc")
    task.materialize(sandbox.root)
    return task


DYNAMIC = ScoringSettings(keys="dynamic")


def _scorers(project, sandbox, keys):
    fast = make_scorer(project, sandbox, scoring=ScoringSettings(keys=keys, memo=False))
    naive = make_scorer(project, sandbox, kind="subprocess")
    return fast, naive


def _check(fast, naive):
    got = fast.evaluate()
    want = naive.evaluate()
    assert got.per_test == want.per_test
    return got


@pytest.mark.slow
def test_an_edit_to_a_function_a_test_never_executed_does_not_rerun_it(project, sandbox):
    fast, naive = _scorers(project, sandbox, "dynamic")
    static, _ = _scorers(project, sandbox, "static")
    try:
        _check(fast, naive)
        static.evaluate()
        # mul's body changes: only test_mul executed it.
        put(sandbox, "calc/ops.py", OPS.replace("return a * b", "return b * a"))
        got = _check(fast, naive)
        assert got.ran == 1
        # Statically, the table reaches every handler, and reading a file reaches anything.
        assert static.evaluate().ran == 4
        # A new body that calls code test_add never reached: test_add re-runs, alone.
        put(
            sandbox,
            "calc/ops.py",
            OPS.replace("return a * b", "return b * a").replace(
                "return a + b", "return neg(-a, 0) + b"
            ),
        )
        got = _check(fast, naive)
        assert got.ran == 1 and got.per_test[IDS["add"]]
        # test_add now executed neg too: an edit to neg re-runs test_add and test_neg.
        put(
            sandbox,
            "calc/ops.py",
            OPS.replace("return a * b", "return b * a")
            .replace("return a + b", "return neg(-a, 0) + b")
            .replace("return -a", "return 0 - a"),
        )
        got = _check(fast, naive)
        assert got.ran == 2
        # The dispatcher every test executed: all three.
        put(
            sandbox,
            "calc/ops.py",
            OPS.replace("return TABLE[op](a, b)", "return TABLE[op](a, b) + 0"),
        )
        got = _check(fast, naive)
        assert got.ran == 3
    finally:
        for s in (fast, naive, static):
            s.close()


def test_a_module_level_edit_reruns_every_test_that_imports_it(project, sandbox):
    fast, naive = _scorers(project, sandbox, "dynamic")
    try:
        _check(fast, naive)
        put(sandbox, "calc/ops.py", OPS.replace('TABLE = {"add": add,', 'TABLE = {"add": mul,'))
        got = _check(fast, naive)
        assert got.ran == 3
        assert not got.per_test[IDS["add"]]
    finally:
        fast.close()
        naive.close()


def test_a_data_file_a_test_read_counts_whole(project, sandbox):
    fast, naive = _scorers(project, sandbox, "dynamic")
    try:
        _check(fast, naive)
        put(sandbox, "calc/data.txt", "8\n")
        got = _check(fast, naive)
        assert got.ran == 1 and not got.per_test["tests/test_data.py::test_seven"]
    finally:
        fast.close()
        naive.close()


def test_the_scoring_setting_is_validated_and_static_is_selectable():
    assert EnvConfig(scoring={"keys": "dynamic"}).scoring.keys == "dynamic"
    assert EnvConfig().scoring == ScoringSettings(keys="static", memo=True, audit_every=25)
    with pytest.raises(ValueError, match="keys"):
        EnvConfig(scoring={"keys": "smart"})
    with pytest.raises(ValueError, match="audit_every"):
        EnvConfig(scoring={"audit_every": -1})
    with pytest.raises(ValueError, match="memo"):
        EnvConfig(scoring={"memo": "often"})


SNEAK = textwrap.dedent(
    """\
    import sys

    def peek():
        return sys.gettrace()


    def off():
        sys.settrace(None)
        return 1
    """
)
SNEAK_TESTS = {
    **TESTS,
    "test_sneak.py": textwrap.dedent(
        """\
        from calc.sneak import off, peek


        def test_peek():
            assert peek() is None


        def test_off():
            assert off() == 1
        """
    ),
}


def test_the_tracer_is_hidden_and_switching_it_off_is_refused_and_named(tmp_path, sandbox):
    files = {**SOLUTION, "calc/read.py": READ, "calc/sneak.py": SNEAK}
    task = write_task(tmp_path / "t", solution=files, tests=SNEAK_TESTS, start=files)
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox, scoring=DYNAMIC) as sc:
        report = sc.evaluate()
        assert report.per_test["tests/test_sneak.py::test_peek"]  # nothing to read back
        assert not report.per_test["tests/test_sneak.py::test_off"]
        assert {f["kind"] for f in report.integrity} == {"interpreter_access"}
        # The flagged run's outcomes are keyed by every file: an edit anywhere re-runs.
        put(sandbox, "calc/ops.py", OPS.replace("return a * b", "return b * a"))
        assert sc.evaluate().ran == len(report.per_test)


LIAR = '__file__ = "/elsewhere/ops.py"\n' + OPS


def _step(env, path, text):
    import json

    action = json.dumps({"name": "write_file", "arguments": {"path": path, "content": text}})
    return env.step({"agent_0": action})


@pytest.mark.parametrize("audit_every", [0, 1])
def test_a_lying_trace_moves_credit_in_time_never_creates_it(tmp_path, audit_every):
    """A module that lies about its file hides its functions from the trace: an edit to
    them does not re-run the tests (a stale count) until an audit or the final recount."""
    import swarm_envs

    broken = LIAR.replace("return a + b", "return 0")
    stub = {**SOLUTION, "calc/read.py": READ, "calc/ops.py": broken}
    task = write_task(tmp_path / "t", solution=stub, tests=TESTS, start=stub)
    env = swarm_envs.parallel_env(
        task,
        num_agents=1,
        time_cap_s=1e6,
        scoring={"keys": "dynamic", "audit_every": audit_every},
    )
    _, infos = env.reset(seed=0)
    assert infos["agent_0"]["tests_passed"] == 3  # add is broken
    _, rewards, *_, infos = _step(env, "calc/ops.py", LIAR)  # fixed, in a hidden body
    kinds = {f["kind"] for f in infos["agent_0"]["integrity"]}
    if audit_every:
        assert infos["agent_0"]["tests_passed"] == 4 and rewards["agent_0"] == 1.0
        assert "audit" in kinds and env.view().audit_disagreements == 1
    else:
        assert infos["agent_0"]["tests_passed"] == 3 and rewards["agent_0"] == 0.0  # stale
    env.close()
    view = env.view()
    # The return, with the final recount's correction (recorded at close: no later step
    # carries it), is (true final count) - (true starting count) either way.
    correction = view.recount["correction"] if view.recount else 0.0
    assert view.total_reward + correction == 1.0
    assert (view.recount is not None) == (audit_every == 0)


BG = textwrap.dedent(
    """\
    import threading


    def add_one(x):
        return x + 1


    def work(out):
        out.append(add_one(1))


    def run():
        out = []
        t = threading.Thread(target=work, args=(out,))
        t.start()
        t.join()
        return out[0]
    """
)


def test_a_test_that_starts_a_thread_keeps_its_static_key(tmp_path, sandbox):
    """The thread's frames are not traced: its test falls back to the static key."""
    files = {**SOLUTION, "calc/read.py": READ, "calc/bg.py": BG}
    tests = {
        **TESTS,
        "test_bg.py": "from calc.bg import run\n\n\ndef test_run():\n    assert run() == 2\n",
    }
    task = write_task(tmp_path / "t", solution=files, tests=tests, start=files)
    task.materialize(sandbox.root)
    fast = make_scorer(task, sandbox, scoring=DYNAMIC)
    naive = make_scorer(task, sandbox, kind="subprocess")
    try:
        _check(fast, naive)
        put(sandbox, "calc/bg.py", BG.replace("return x + 1", "return x + 2"))
        got = _check(fast, naive)
        assert got.ran == 1 and not got.per_test["tests/test_bg.py::test_run"]
    finally:
        fast.close()
        naive.close()


OWN_TRACER_TESTS = {
    **TESTS,
    "test_traced.py": textwrap.dedent(
        """\
        import sys

        from calc.ops import apply


        def test_traced_add():
            # a coverage-style tracer of the test's own displaces the recording one
            seen = []

            def tracer(frame, event, arg):
                seen.append(event)

            sys.settrace(tracer)
            try:
                got = apply("add", 1, 2)
            finally:
                sys.settrace(None)
            assert got == 3 and seen
        """
    ),
}


def test_a_test_that_installs_its_own_tracer_keeps_its_static_key(tmp_path, sandbox):
    """Trusted code installing a tracer is not flagged; its test's trace is incomplete (the
    recording tracer was displaced), so it falls back to its static key."""
    files = {**SOLUTION, "calc/read.py": READ}
    task = write_task(tmp_path / "t", solution=files, tests=OWN_TRACER_TESTS, start=files)
    task.materialize(sandbox.root)
    fast = make_scorer(task, sandbox, scoring=DYNAMIC)
    naive = make_scorer(task, sandbox, kind="subprocess")
    try:
        got = _check(fast, naive)
        assert got.per_test["tests/test_traced.py::test_traced_add"], got.failures
        assert got.integrity == ()
        # mul's body changes: test_mul executed it; test_traced_add never did, but its
        # static key (the table reaches every handler) holds mul, so it re-runs too.
        put(sandbox, "calc/ops.py", OPS.replace("return a * b", "return b * a"))
        got = _check(fast, naive)
        assert got.ran == 2 and got.per_test["tests/test_traced.py::test_traced_add"]
    finally:
        fast.close()
        naive.close()
