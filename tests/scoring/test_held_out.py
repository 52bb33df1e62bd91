"""Held-out tests: declared by a task, never in the workspace, scored and reported apart."""

from __future__ import annotations

import json
import textwrap

import pytest

import swarm_envs
from swarm_envs.error import ManifestError
from swarm_envs.scoring import collect_test_ids, make_scorer
from swarm_envs.tasks import Task

from .project import OPS_IDS, SOLUTION, TEXT_IDS, put, write_task

HELD_OUT = textwrap.dedent(
    """\
    from mathy.ops import add, mul


    def test_add_is_commutative():
        assert add(2, 5) == add(5, 2) == 7


    def test_mul_by_zero():
        assert mul(0, 9) == 0
    """
)
HELD_IDS = [
    "tests/_held_out/test_ops_held_out.py::test_add_is_commutative",
    "tests/_held_out/test_ops_held_out.py::test_mul_by_zero",
]


def _with_held_out(root, held_out: str = HELD_OUT, name: str = "test_ops_held_out.py") -> Task:
    write_task(root)
    (root / "held_out").mkdir()
    (root / "held_out" / name).write_text(held_out)
    manifest = (
        (root / "task.toml").read_text().replace("[tests]\n", '[tests]\nheld_out = ["held_out"]\n')
    )
    (root / "task.toml").write_text(manifest)
    return Task(root)


def test_held_out_tests_are_collected_apart_and_never_materialized(tmp_path):
    task = _with_held_out(tmp_path / "t")
    coll = collect_test_ids(task)
    assert list(coll.ids) == OPS_IDS + TEXT_IDS
    assert list(coll.held_out) == HELD_IDS
    ws = tmp_path / "ws"
    task.materialize(ws)
    assert not any("held" in p.name for p in ws.rglob("*"))


def test_the_scorer_reports_visible_and_held_out_counts(kind, tmp_path, sandbox):
    task = _with_held_out(tmp_path / "t")
    task.materialize(sandbox.root)
    put(sandbox, "mathy/ops.py", SOLUTION["mathy/ops.py"])
    with make_scorer(task, sandbox, kind=kind) as sc:
        visible = sc.evaluate()
        assert set(visible.per_test) == set(OPS_IDS + TEXT_IDS) and not visible.held_out
        both = sc.evaluate(held_out=True)
        assert (both.visible_passed, both.visible_total) == (4, 7)
        assert (both.held_out_passed, both.held_out_total) == (2, 2)
        assert both.held_out == frozenset(HELD_IDS)
        # Agents select among visible tests only: a held-out id names nothing.
        r = sc.evaluate(["tests/_held_out/test_ops_held_out.py"])
        assert not r.per_test and "no canonical test matches" in " ".join(r.failures.values())


def test_held_out_tests_must_live_outside_tests_and_not_shadow_visible_ones(tmp_path):
    root = tmp_path / "bad"
    write_task(root)
    text = (root / "task.toml").read_text()
    (root / "task.toml").write_text(text.replace("[tests]\n", '[tests]\nheld_out = ["tests"]\n'))
    with pytest.raises(ManifestError, match="inside tests/"):
        Task(root)
    (root / "task.toml").write_text(text.replace("[tests]\n", '[tests]\nheld_out = ["nowhere"]\n'))
    with pytest.raises(ManifestError, match="not a file or folder"):
        Task(root)
    with pytest.raises(ManifestError, match="same name"):
        _with_held_out(tmp_path / "clash", name="test_ops.py")


BUNDLED_WITH_HELD_OUT = ["calc", "textkit", "jsonkit"]


@pytest.mark.parametrize("name", BUNDLED_WITH_HELD_OUT)
def test_bundled_tasks_declare_held_out_tests(name):
    task = swarm_envs.get_task(name)
    assert list(task.held_out_files())
    assert len(collect_test_ids(task).held_out) >= 10


@pytest.mark.parametrize("reward_tests", ["visible", "all"])
def test_infos_report_both_and_the_reward_counts_the_configured_set(reward_tests):
    env = swarm_envs.parallel_env("calc", num_agents=1, reward_tests=reward_tests)
    try:
        _, infos = env.reset(seed=0)
        info = infos["agent_0"]
        assert info["held_out_total"] == 22 and info["held_out_passed"] == 0
        assert info["tests_total"] == (13 if reward_tests == "visible" else 35)
        solution = swarm_envs.get_task("calc").solution_files()
        total = 0.0
        for path in ("calc/core.py", "calc/numbers.py"):
            action = {
                "name": "write_file",
                "arguments": {"path": path, "content": solution[path].decode()},
            }
            _, rewards, _, _, infos = env.step({"agent_0": json.dumps(action)})
            total += rewards["agent_0"]
        info = infos["agent_0"]
        assert info["held_out_passed"] == 22 and info["visible_passed"] == 13
        assert total == info["tests_passed"] == info["tests_total"]
        assert not any("_held_out" in t for t in info["per_test"]) or reward_tests == "all"
    finally:
        env.close()
