"""Hypothesis' example database cannot carry one scoring run into the next.

Hypothesis keeps the failing examples it finds in a database (by default `.hypothesis/` in
the working directory) and replays them first in later runs: a test's outcome would then
depend on earlier runs, and the files would land wherever the worker's working directory
is. Scoring runs give hypothesis a folder of the run's own temporary directory instead
(docs/task-format.md).
"""

from __future__ import annotations

import pytest

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.scoring import make_scorer
from swarm_envs.tasks import Task

from .project import SOLUTION, write_task

pytest.importorskip("hypothesis", reason="hypothesis is not installed in this environment")

# The boundary is computed, not written: hypothesis draws integers it finds written in the
# project's source, and this one must only come back by a replay.
FOUND = """
LIMIT = 2**13 + 3**8


def same(n):
    return n if n < LIMIT else -1
"""

# Wrong at the example the first run found (shrunk to LIMIT) only: a replay fails it.
AT_ONE_POINT = """
LIMIT = 2**13 + 3**8


def same(n):
    return -1 if n == LIMIT else n
"""

TESTS = {
    "test_props.py": """
from hypothesis import Phase, given, settings, strategies as st

from mathy import same


# (no explain phase: it traces the failing example with sys.settrace, and its
# explanation would stand in the failure text beside the example)
@settings(deadline=None, max_examples=100, phases=[Phase.reuse, Phase.generate, Phase.shrink])
@given(st.integers(min_value=0))
def test_same(n):
    assert same(n) == n
"""
}


@pytest.mark.slow
@pytest.mark.parametrize("isolation", [None, "none"])
def test_a_failing_example_is_not_replayed_and_nothing_lands_in_the_workspace(
    kind, isolation, tmp_path
):
    """Where the worker's directory is read-only (a private view), hypothesis would fall
    back to a database in memory with a warning (an error under the suite's filters);
    where it is writable (a weaker isolation level), the examples of one run would be
    replayed in the next. Neither happens, on both scorers."""
    found = {**SOLUTION, "mathy/__init__.py": FOUND}
    task = write_task(tmp_path / "t", solution=found, tests=TESTS, start=found)
    with (task.root / "task.toml").open("a") as f:
        f.write('[tests.ini]\nfilterwarnings = ["error"]\n')
    task = Task(task.root)
    nid = "tests/test_props.py::test_same"
    with (
        make_sandbox("local", isolation=isolation) as sandbox,
        make_scorer(task, sandbox, kind=kind) as sc,
    ):
        task.materialize(sandbox.root)
        first = sc.evaluate()
        assert not first.per_test[nid], first.failures
        assert "n=14753" in first.failures[nid]  # the shrunk example, which a database keeps
        assert not list(sandbox.root.rglob(".hypothesis")), "hypothesis wrote into the workspace"
        (sandbox.root / "mathy" / "__init__.py").write_text(AT_ONE_POINT)
        for _ in range(2):
            again = sc.evaluate(fresh=True)
            assert again.per_test[nid], again.failures
        assert not list(sandbox.root.rglob(".hypothesis"))
