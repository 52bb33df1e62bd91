"""Candidates: computed once per task, kept on disk by content, one cache for menu and scripted."""

import json

import pytest

import swarm_envs
from swarm_envs import cache
from swarm_envs.generation import candidates as cand


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """The units whose candidates were computed (not read from a cache), in order."""
    monkeypatch.setenv("SWARM_ENVS_CACHE", str(tmp_path / "cache"))  # nothing cached yet
    found: list[str] = []
    real = cand.candidates

    def counting(*args, **kwargs):
        found.append(args[1].name)
        return real(*args, **kwargs)

    monkeypatch.setattr(cand, "candidates", counting)
    cand.task_candidates.cache_clear()
    yield found
    cand.task_candidates.cache_clear()


def test_menu_mode_computes_candidates_once_per_task(counted):
    task = swarm_envs.get_task("calc")
    env = swarm_envs.parallel_env("calc", num_agents=1, mode="menu")
    env.reset(seed=0)
    assert counted == [u.name for u in task.units]
    again = swarm_envs.parallel_env("calc", num_agents=3, mode="menu")
    again.reset(seed=1)
    again.reset(seed=2)
    assert len(again.unwrapped.candidates) == len(task.units)
    assert counted == [u.name for u in task.units]  # nothing recomputed
    env.close()
    again.close()


def test_the_disk_cache_is_keyed_by_content_and_a_corrupt_file_is_recomputed(counted):
    task = swarm_envs.get_task("calc")
    first = cand.task_candidates(task, 1, 0)
    (path,) = cache.path("candidates").glob("calc-*.json")
    cand.task_candidates.cache_clear()
    assert cand.task_candidates(task, 1, 0) == first  # from disk
    assert len(counted) == len(task.units)
    cand.task_candidates.cache_clear()
    path.write_text("{not json")
    assert cand.task_candidates(task, 1, 0) == first
    assert len(counted) == 2 * len(task.units)
    assert json.loads(path.read_text())["format"] == cand.FORMAT
    cand.task_candidates.cache_clear()
    assert cand.task_candidates(task, 2, 0) != first  # another key: computed again
    assert len(counted) == 3 * len(task.units)


@pytest.mark.slow
def test_scripted_agents_and_menu_mode_share_one_cache(counted):
    task = swarm_envs.get_task("calc")
    every = cand.task_candidates(task, 2, 0)
    wrong = cand.wrong_candidates(task, 2, 0)
    assert len(counted) == len(task.units)  # the wrong ones come from the same entry
    for unit, found in zip(task.units, every, strict=True):
        assert wrong[unit.name] == tuple(c for c in found if not c.correct)
        assert sum(c.correct for c in found) == 1


@pytest.mark.slow
def test_with_the_cache_off_nothing_is_written(counted, monkeypatch, tmp_path):
    monkeypatch.setenv("SWARM_ENVS_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    task = swarm_envs.get_task("calc")
    cand.task_candidates(task, 1, 0)
    assert cache.path("candidates") is None
    assert not any(tmp_path.rglob("*.json"))
