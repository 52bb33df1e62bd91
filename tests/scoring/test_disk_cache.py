"""The scorer's cache on disk: a new process's first evaluation without a pytest run.

A "new process" is simulated by forgetting the in-process caches (collections and the
fast scorer's entries); a pytest run is made impossible where the test says the answer
must come from disk.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import uuid
from pathlib import Path

import pytest

import swarm_envs
from swarm_envs.core.config import ScoringSettings
from swarm_envs.envs import book
from swarm_envs.scoring import FastScorer, collection, keys, make_scorer, memo
from swarm_envs.scoring.disk import DiskCache, default_root
from swarm_envs.scoring.lru import LRU

from .project import SOLUTION, put


@pytest.fixture
def new_process(monkeypatch):
    """Call to forget what this process learnt, as a new process starts."""

    def forget() -> None:
        monkeypatch.setattr(collection, "_collections", {})
        monkeypatch.setattr(keys, "_shared", {})
        monkeypatch.setattr(memo, "_loaded", {})

    return forget


@pytest.fixture
def runs(monkeypatch):
    """Counts pytest runs (collections and scoring runs); `runs.allowed = False` fails them."""

    class Runs:
        allowed = True
        count = 0

    real_collect, real_run = collection.run_once, FastScorer._run_on_worker

    def collect(*a, **kw):
        Runs.count += 1
        assert Runs.allowed, "a collection ran"
        return real_collect(*a, **kw)

    def run(self, *a, **kw):
        Runs.count += 1
        assert Runs.allowed, "a scoring run ran"
        return real_run(self, *a, **kw)

    monkeypatch.setattr(collection, "run_once", collect)
    monkeypatch.setattr(FastScorer, "_run_on_worker", run)
    return Runs


def evaluate(task, make_sandbox_for_test, edits: dict[str, str] | None = None, memo=True):
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    for rel, text in (edits or {}).items():
        put(sb, rel, text)
    with make_scorer(task, sb, scoring=ScoringSettings(memo=memo)) as sc:
        return sc.evaluate(held_out=True)


def entries() -> dict[str, Path]:
    root = default_root()
    assert root is not None
    return {p.name.split("-")[0]: p for p in root.glob("*.json")}


def test_a_new_process_scores_the_starting_state_from_disk(
    task, make_sandbox_for_test, new_process, runs
):
    cold = evaluate(task, make_sandbox_for_test)
    assert cold.verdict == "ok" and cold.ran == 7 and runs.count == 2
    assert set(entries()) == {"collection", "start", "memo"}  # memo: outcomes by key
    new_process()
    runs.allowed = False
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    with make_scorer(task, sb) as sc:
        warm = sc.evaluate(held_out=True)
        assert warm.verdict == "ok" and warm.cached and warm.ran == 0
        assert warm.per_test == cold.per_test and warm.held_out == cold.held_out
        # What came from disk is remembered with the keys of a run: an edit re-runs only
        # the tests that can see it.
        runs.allowed = True
        put(sb, "mathy/text.py", SOLUTION["mathy/text.py"])
        edited = sc.evaluate()
        assert edited.ran == 3 and edited.passed == 3


def test_the_environment_resets_from_disk(task, new_process, runs):
    env = swarm_envs.parallel_env(task, num_agents=2)
    _, cold = env.reset(seed=0)
    env.close()
    new_process()
    runs.allowed = False
    env = swarm_envs.parallel_env(task, num_agents=2)
    _, warm = env.reset(seed=0)
    env.close()
    for k in ("tests_passed", "tests_total"):
        assert warm["agent_0"][k] == cold["agent_0"][k]


def test_a_first_reset_in_a_new_process_runs_nothing(task, new_process, runs, monkeypatch):
    """Its true starting count (a fresh run) is on disk by content too (issue 30)."""
    env = swarm_envs.parallel_env(task, num_agents=2)
    _, cold = env.reset(seed=0)
    env.close()
    new_process()
    monkeypatch.setattr(book, "_TRUE_STARTS", LRU(64))  # the fresh counts of this process
    runs.allowed = False
    env = swarm_envs.parallel_env(task, num_agents=2)
    _, warm = env.reset(seed=0)
    assert warm["agent_0"]["tests_passed"] == cold["agent_0"]["tests_passed"]
    env.close()


def test_outcomes_seen_in_another_process_cost_no_run(
    task, make_sandbox_for_test, new_process, runs
):
    """The memo: the result cache's entries are kept on disk, by the host's keys."""
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    with make_scorer(task, sb) as sc:
        assert sc.evaluate().passed == 0
        put(sb, "mathy/text.py", SOLUTION["mathy/text.py"])
        assert sc.evaluate().passed == 3
    new_process()
    runs.allowed = False
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    with make_scorer(task, sb) as sc:
        assert sc.evaluate().passed == 0  # the start: its full run is on disk
        put(sb, "mathy/text.py", SOLUTION["mathy/text.py"])
        seen = sc.evaluate()  # seen in the other process: from the memo
        assert seen.passed == 3 and seen.ran == 0 and sc.hit_rate == 1.0 and sc.asked == 14
        runs.allowed = True
        put(sb, "mathy/ops.py", SOLUTION["mathy/ops.py"])  # never seen: runs
        assert sc.evaluate().ran == 4
    # Without the memo, nothing is kept or read across processes.
    new_process()
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    with make_scorer(task, sb, scoring=ScoringSettings(memo=False)) as sc:
        sc.evaluate()
        put(sb, "mathy/text.py", SOLUTION["mathy/text.py"])
        assert sc.evaluate().ran == 3


def test_an_entry_counts_only_for_the_state_it_was_made_from(
    task, make_sandbox_for_test, new_process, runs
):
    solved = evaluate(task, make_sandbox_for_test, edits=SOLUTION)
    assert solved.passed == 7
    new_process()
    assert evaluate(task, make_sandbox_for_test).passed == 0  # another state: run again
    # The solved state's entry copied over the starting state's is foreign: ignored.
    start = [p for p in default_root().glob("start-*.json")]
    assert len(start) == 2
    by_age = sorted(start, key=lambda p: p.stat().st_mtime_ns)
    shutil.copyfile(by_age[0], by_age[1])
    new_process()
    before = runs.count
    again = evaluate(task, make_sandbox_for_test, memo=False)  # (the memo would answer)
    assert again.passed == 0 and runs.count == before + 1
    assert json.loads(by_age[1].read_text())["key"] in by_age[1].name  # rebuilt


def test_a_fresh_count_of_an_edited_workspace_is_always_a_run(task, make_sandbox_for_test, runs):
    """Only the starting state's fresh count is served by content. Any other is run again,
    even on bytes a fresh run has seen: agents who could pick which of several fresh runs
    the last count repeats could keep a lucky draw of a test that depends on chance."""
    sb = make_sandbox_for_test()
    task.materialize(sb.root)
    with make_scorer(task, sb) as sc:
        sc.evaluate()
        put(sb, "mathy/text.py", SOLUTION["mathy/text.py"])
        assert sc.evaluate(fresh=True).passed == 3
        before = runs.count
        again = sc.evaluate(fresh=True)
        assert again.passed == 3 and runs.count > before and again.ran == again.total


CORRUPTIONS = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "not_json": lambda raw: b"\x00garbage",
    "empty": lambda raw: b"",
    # A failing test made to pass, a node id renamed.
    "value_changed": lambda raw: raw.replace(b"false", b"true").replace(b"::test_", b"::tost_"),
    "older_format": lambda raw: raw.replace(b'"format":1', b'"format":0'),
}


@pytest.mark.parametrize(
    "corruption",
    [
        c if c in ("truncated", "value_changed") else pytest.param(c, marks=pytest.mark.slow)
        for c in sorted(CORRUPTIONS)
    ],
)
def test_a_corrupted_entry_is_ignored_and_rebuilt(
    corruption, task, make_sandbox_for_test, new_process, runs
):
    cold = evaluate(task, make_sandbox_for_test)
    for p in entries().values():
        p.write_bytes(CORRUPTIONS[corruption](p.read_bytes()))
    new_process()
    before = runs.count
    again = evaluate(task, make_sandbox_for_test)
    assert again.per_test == cold.per_test and again.passed == 0
    assert runs.count == before + 2  # collected and scored again
    new_process()
    runs.allowed = False  # and the rebuilt entries are good
    assert evaluate(task, make_sandbox_for_test).per_test == cold.per_test


def test_the_cache_is_not_used_where_agents_could_reach_it(tmp_path, task, sandbox):
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o777)
    open_dir.chmod(0o777)
    cache = DiskCache(open_dir)
    cache.put("start", "k", {"x": 1})
    assert cache.get("start", "k") is None and not list(open_dir.iterdir())
    # A sandbox that shows agents the host user's files: no cache at all.
    sandbox.protections = {**sandbox.protections, "filesystem_view": False, "dedicated_uid": False}
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        assert sc.disk is None


def test_agents_commands_cannot_see_the_cache(task, monkeypatch):
    # A folder the sandbox would show (inside the Python prefix), were it not hidden.
    cache = Path(sys.prefix) / f"swarm-envs-test-cache-{uuid.uuid4().hex}"
    monkeypatch.setenv("SWARM_ENVS_CACHE", str(cache))
    try:
        env = swarm_envs.parallel_env(task, num_agents=1)
        _, infos = env.reset(seed=0)
        assert list((cache / "scoring").glob("collection-*.json"))
        cmd = f"ls -a {cache}/scoring && echo LIS''TED; cat {cache}/scoring/*.json"
        action = json.dumps({"name": "run_command", "arguments": {"command": cmd}})
        obs, *_ = env.step({"agent_0": action})
        env.close()
        assert "collection-" not in obs["agent_0"] and "mathy" not in obs["agent_0"]
        if infos["agent_0"]["sandbox"]["protections"].get("filesystem_view"):
            # Masked (an empty folder), not merely unreadable by the sandbox's uid.
            assert "LISTED" in obs["agent_0"]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_concurrent_writers_leave_a_whole_entry(tmp_path):
    cache = DiskCache(tmp_path / "cache")
    values = [{"writer": i, "data": "x" * 20_000} for i in range(6)]
    seen: list[object] = []

    def write(v):
        for _ in range(30):
            cache.put("start", "same", v)
            seen.append(cache.get("start", "same"))

    threads = [threading.Thread(target=write, args=(v,)) for v in values]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(v in values for v in seen)  # never torn, never missing once written
    assert cache.get("start", "same") in values
    assert sorted(os.listdir(tmp_path / "cache")) == ["start-same.json"]  # no temp files


def test_the_folder_keeps_the_recently_used_entries(tmp_path):
    cache = DiskCache(tmp_path / "cache", max_entries=3)
    for i in range(3):
        cache.put("start", f"k{i}", {"i": i})
        t = 1_000_000 + i  # distinct ages, oldest first
        os.utime(tmp_path / "cache" / f"start-k{i}.json", (t, t))
    assert cache.get("start", "k0") == {"i": 0}  # a hit: now the most recent
    stale = tmp_path / "cache" / ".tmp-dead.json"
    stale.write_text("{")
    os.utime(stale, (1, 1))
    cache.put("start", "k3", {"i": 3})
    assert sorted(os.listdir(tmp_path / "cache")) == [
        "start-k0.json",
        "start-k2.json",
        "start-k3.json",
    ]
    small = DiskCache(tmp_path / "small", max_bytes=1)
    small.put("start", "big", {"data": "x" * 100})
    assert small.get("start", "big") is None  # larger than the whole budget
