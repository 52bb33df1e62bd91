"""A tiny task project for the scoring tests (`mathy`), and how to write it.

`mathy.ops` and `mathy.text` are independent modules, so an edit to one of them can only
affect one test file.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from swarm_envs.tasks import Task

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
