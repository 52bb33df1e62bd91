"""Collecting the canonical node ids on the reference solution."""

from __future__ import annotations

import pytest

from swarm_envs.error import ScoringError
from swarm_envs.scoring import collect_test_ids

from .project import OPS_IDS, SOLUTION, TEXT_IDS, write_task


def test_collects_canonical_ids_from_the_reference(task):
    coll = collect_test_ids(task)
    assert list(coll.ids) == OPS_IDS + TEXT_IDS
    assert set(coll.by_file) == {"tests/test_ops.py", "tests/test_text.py"}
    assert set(coll.test_files) == {"tests/test_ops.py", "tests/test_text.py"}
    assert collect_test_ids(task) is coll  # cached per task and content


def test_collection_runs_in_the_given_sandbox_and_leaves_nothing_there(tmp_path, sandbox):
    task = write_task(tmp_path / "t", name="inthesandbox")
    coll = collect_test_ids(task, sandbox)
    assert len(coll.ids) == 7
    area = sandbox.scoring_host().dir
    assert not (area / "ref").exists()  # the reference was there for this run only
    assert not any(sandbox.root.iterdir())  # and never in the workspace


def test_a_factory_sandbox_is_closed_afterwards(tmp_path, make_sandbox_for_test):
    made = []

    def factory():
        sb = make_sandbox_for_test()
        made.append(sb)
        return sb

    collect_test_ids(write_task(tmp_path / "t", name="fromafactory"), factory)
    assert len(made) == 1 and made[0].closed


def test_a_reference_that_does_not_collect_is_an_error(tmp_path, sandbox):
    broken = {**SOLUTION, "mathy/ops.py": "def add(a, b:\n"}
    task = write_task(tmp_path / "t", solution=broken, name="brokenref")
    with pytest.raises(ScoringError, match="does not collect"):
        collect_test_ids(task, sandbox)


def test_a_suite_without_tests_is_an_error(tmp_path, sandbox):
    task = write_task(tmp_path / "t", tests={"test_none.py": "X = 1\n"}, name="notests")
    with pytest.raises(ScoringError, match="no canonical tests"):
        collect_test_ids(task, sandbox)
