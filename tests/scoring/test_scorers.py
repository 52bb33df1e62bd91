"""The contract both scorers keep: canonical tests only, per-test outcomes, selection,
stale bytecode, collection errors, failures without a verdict.

Every test runs real pytest inside a real sandbox on the tiny `mathy` task.
"""

from __future__ import annotations

import os

import pytest

from swarm_envs.error import ConfigError
from swarm_envs.scoring import make_scorer

from .project import OPS_IDS, SOLUTION, TEXT_IDS, put, write_task


def test_start_state_fails_everything(scorer):
    r = scorer.evaluate()
    assert r.verdict == "ok" and r.error is None
    assert r.total == 7 and r.passed == 0
    assert set(r.per_test) == set(OPS_IDS + TEXT_IDS)
    assert "NotImplementedError" in r.failures[OPS_IDS[0]]


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


def test_unknown_kind_is_a_config_error(task, sandbox):
    with pytest.raises(ConfigError, match="fast"):
        make_scorer(task, sandbox, kind="slow")


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


def test_a_conftest_importing_sys_and_the_project_is_not_flagged(kind, tmp_path, sandbox):
    """pytest's capture replaces `sys.stdin` after the guard first looks at `sys`; when a
    canonical conftest imports `sys` and the project, that is not the code under test."""
    tests = {
        "conftest.py": "import sys\n\nimport pytest\n\nimport mathy\n\n\n"
        "@pytest.fixture\ndef loud():\n    return mathy.shout\n",
        "test_io.py": "import sys\n\n\ndef test_loud(loud, capsys):\n    print(loud('a'))\n"
        "    assert capsys.readouterr().out == 'A!\\n'\n\n\n"
        "def test_stdin_is_not_readable():\n    assert sys.stdin is not sys.__stdin__\n",
    }
    solution = {**SOLUTION, "mathy/__init__.py": "from .text import shout\n"}
    task = write_task(tmp_path / "t", solution=solution, tests=tests, start=solution, name="io")
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox, kind=kind) as sc:
        r = sc.evaluate()
    assert r.integrity == () and (r.passed, r.total) == (2, 2), (r.integrity, r.failures)


def honest_then_forged(kind, tmp_path, sandbox, honest, test_file, use, forged, finding):
    """`mathy/__init__.py` as `honest`: one test, passed, nothing flagged; then as `forged`:
    it fails, with a finding of kind `finding`."""
    solution = {**SOLUTION, "mathy/__init__.py": honest}
    task = write_task(tmp_path / "t", solution=solution, tests={test_file: use}, start=solution)
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox, kind=kind) as sc:
        r = sc.evaluate()
        assert r.integrity == () and (r.passed, r.total) == (1, 1), (r.integrity, r.failures)
        put(sandbox, "mathy/__init__.py", forged)
        r = sc.evaluate()
    assert r.passed == 0 and any(f["kind"] == finding for f in r.integrity), r


def test_a_lazily_imported_standard_name_is_not_a_change(kind, tmp_path, sandbox):
    """`concurrent.futures` binds `ThreadPoolExecutor` in itself on first use (its
    `__getattr__`): the genuine class, not the code under test's doing; a class of the
    project's in its place is."""
    use = (
        "import concurrent.futures\n\nfrom mathy.text import shout\n\n\ndef test_pool():\n"
        "    with concurrent.futures.ThreadPoolExecutor(2) as ex:\n"
        "        assert list(ex.map(shout, ['a'])) == ['A!']\n"
    )
    fake = (
        "import concurrent.futures\n\n\nclass Pool:\n    pass\n\n\n"
        "concurrent.futures.ThreadPoolExecutor = Pool\n"
    )
    honest_then_forged(kind, tmp_path, sandbox, "", "test_pool.py", use, fake, "harness_changed")


def test_a_library_may_read_a_test_callbacks_signature(kind, tmp_path, sandbox):
    """A library may ask about a callback a test passes: `inspect.iscoroutinefunction`,
    `inspect.signature` (blinker and tenacity do), or its code's argument names and counts
    (a validation decorator). A canonical function's code is a shell that shows its
    signature and nothing else; reading the body's code behind it is refused and flagged."""
    honest = (
        "import inspect\n\n\ndef call(cb, *args):\n"
        "    if inspect.iscoroutinefunction(cb) or inspect.isgeneratorfunction(cb):\n"
        "        raise TypeError('a plain function is expected')\n"
        "    if inspect.iscoroutinefunction(getattr(cb, '__call__', None)):\n"
        "        raise TypeError('a plain function is expected')\n"
        "    params = inspect.signature(cb).parameters.values()\n"
        "    n = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)\n"
        "    code = cb.__code__\n"
        "    assert code.co_varnames[: code.co_argcount] == ('a',)\n"
        "    assert 2 not in code.co_consts\n"
        "    return cb(*args[:n])\n"
    )
    use = (
        "import pytest\n\nfrom mathy import call\n\n\ndef test_call():\n"
        "    def double(a):\n        return a * 2\n\n"
        "    class Later:\n        async def __call__(self):\n            pass\n\n"
        "    assert call(double, 3, 4) == 6\n"
        "    assert call(lambda a: a * 2, 3) == 6\n"
        "    with pytest.raises(TypeError):\n        call(Later())\n"
    )
    peek = (
        "def call(cb, *args):\n"
        "    body = cb.__closure__[0].cell_contents\n"
        "    return body.__code__.co_consts[1] * 3\n"
    )
    honest_then_forged(
        kind, tmp_path, sandbox, honest, "test_call.py", use, peek, "code_introspection"
    )


def test_a_test_that_runs_an_event_loop_is_not_flagged(kind, tmp_path, sandbox):
    """`asyncio.run` sets a SIGINT handler where SIGINT has Python's own; the scorer's
    workers do not have it, so a test may run a loop; code under test setting a handler
    is still refused."""
    lib = "import asyncio\n\n\nasync def twice(x):\n    await asyncio.sleep(0)\n    return 2 * x\n"
    use = (
        "import asyncio\n\nfrom mathy import twice\n\n\ndef test_loop():\n"
        "    assert asyncio.run(twice(2)) == 4\n"
    )
    handler = (
        "import signal\n\nsignal.signal(signal.SIGINT, lambda *a: None)\n\n\n"
        "async def twice(x):\n    return 2 * x\n"
    )
    honest_then_forged(kind, tmp_path, sandbox, lib, "test_loop.py", use, handler, "signal_handler")


def test_a_backport_patching_typing_on_import_is_not_a_change(kind, tmp_path, sandbox):
    """typing_extensions puts its own `_check_generic` and `_collect_parameters` into typing
    when it is imported (bs4 and pydash import it): the genuine backport's functions are
    not a change; a function of the code under test in their place is."""
    lib = "import typing_extensions\n\n\ndef kinds():\n    return typing_extensions.Literal['a']\n"
    use = (
        "import typing\n\nfrom mathy import kinds\n\n\ndef test_kinds():\n"
        "    assert typing.get_args(kinds()) == ('a',)\n"
    )
    fake = (
        "import typing\n\nimport typing_extensions\n\ntyping._check_generic = lambda *a: None\n\n\n"
        "def kinds():\n    return typing_extensions.Literal['a']\n"
    )
    honest_then_forged(kind, tmp_path, sandbox, lib, "test_kinds.py", use, fake, "harness_changed")
