"""Fixtures of the scoring tests: the tiny `mathy` task, sandboxes per backend, scorers.

Every test that needs a sandbox takes it from `sandbox` or `make_sandbox_for_test`, which
are parametrised by `backend`: a backend added to `BACKENDS` (Docker, where an engine
runs) runs every scoring, tamper and integrity test again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.scoring import make_scorer
from swarm_envs.tasks import Task

from .project import write_task

BACKENDS = ["local"]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def make_sandbox_for_test(backend):
    """A factory of sandboxes of the test's backend, all closed at the end of the test."""
    made = []

    def factory():
        sb = make_sandbox(backend)
        made.append(sb)
        return sb

    yield factory
    for sb in made:
        sb.close()


@pytest.fixture
def sandbox(make_sandbox_for_test):
    return make_sandbox_for_test()


@pytest.fixture
def task(tmp_path: Path) -> Task:
    return write_task(tmp_path / "task")


# The subprocess scorer's variants are in the slow suite: it shares the fast scorer's guard
# and harness, and starts pytest afresh for every run.
@pytest.fixture(params=["fast", pytest.param("subprocess", marks=pytest.mark.slow)])
def kind(request) -> str:
    return request.param


@pytest.fixture
def scorer(kind, task, sandbox):
    task.materialize(sandbox.root)
    sc = make_scorer(task, sandbox, kind=kind)
    yield sc
    sc.close()
