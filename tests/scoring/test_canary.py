"""A scorer that knows when it is broken: the harness's digests, the pytest range, the canary.

The damage is real: a copy of pytest (its files and its dist-info, RECORD included) that
the test alters, a small virtual environment of its own whose pytest is altered (the
scorer does not use it: its pytest is its own, `harness_env`), or whose start-up installs an
import hook that makes the scorer's pytest misreport. The shared environment is never
written.
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import textwrap

import pytest

import swarm_envs
from swarm_envs.error import ScoringError
from swarm_envs.sandboxes import make_sandbox
from swarm_envs.scoring import canary, harness
from swarm_envs.scoring.harness_env import harness_env

from .venv_copy import cache_with_harness, copy_distributions, harness_venv, run_in

PYTEST_VERSION = importlib.metadata.version("pytest")


def _copy_of_pytest(dest: pathlib.Path) -> list[harness.HarnessFile]:
    return copy_distributions(dest, ("pytest",))


def test_a_distribution_without_its_record_cannot_be_checked():
    with pytest.raises(ScoringError, match=r"pytest cannot be checked: .*RECORD .*pip install"):
        harness.require_records({"pytest": [], "swarm-envs": []}, ["pytest"])
    harness.require_records({"swarm-envs": []}, [])  # an editable checkout: nothing to check


def test_the_harness_checked_is_the_private_one_and_the_scorers_own_files():
    files = harness.installed()
    names = {f.rel for f in files}
    assert "_pytest/reports.py" in names and "pytest/__init__.py" in names
    assert any(f.distribution == "pluggy" for f in files)
    private = harness_env().path
    third_party = [f for f in files if f.distribution != "swarm-envs"]
    assert third_party and all(f.path.is_relative_to(private) for f in third_party)
    assert harness.verify() == harness.digest(files)


def test_an_altered_copy_names_the_file(tmp_path):
    files = _copy_of_pytest(tmp_path)
    assert harness.verify(files) == harness.digest(files)
    reports = tmp_path / "_pytest" / "reports.py"
    original = reports.read_bytes()
    reports.write_bytes(original + b"\nTestReport.passed = property(lambda self: False)\n")
    with pytest.raises(ScoringError, match=r"`_pytest/reports.py` differs from pytest [\d.]+'s"):
        harness.verify(files)
    # Put back byte for byte (a new ctime): the file is hashed again, and matches.
    reports.write_bytes(original)
    harness.verify(files)
    (tmp_path / "_pytest" / "runner.py").unlink()
    with pytest.raises(ScoringError, match=r"`_pytest/runner.py` of pytest .* is missing"):
        harness.verify(files)


def test_a_rewrite_that_keeps_size_and_mtime_is_seen(tmp_path):
    files = _copy_of_pytest(tmp_path)
    harness.verify(files)
    target = tmp_path / "_pytest" / "reports.py"
    st = target.stat()
    data = bytearray(target.read_bytes())
    data[-2] = ord("#") if data[-2] != ord("#") else ord(" ")
    target.write_bytes(bytes(data))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # the ctime still moves
    with pytest.raises(ScoringError, match="_pytest/reports.py"):
        harness.verify(files)


@pytest.mark.parametrize(
    "version, ok",
    [
        (PYTEST_VERSION, True),
        (harness.PYTEST_RANGE[0] + ".0", True),
        ("7.4.4", False),
        (harness.PYTEST_RANGE[1] + ".0", False),
        ("10.0.0", False),
    ],
)
def test_the_pytest_range(version, ok):
    if ok:
        assert harness.check_pytest_version(version) == version
    else:
        with pytest.raises(ScoringError, match=rf"pytest {version} is installed.*pip install"):
            harness.check_pytest_version(version)


@pytest.mark.parametrize("mode", ["once", "serve"])
def test_the_canary_is_judged_right_in_each_mode(mode):
    with make_sandbox("local") as sb:
        results, findings = canary.run(sb.scoring_host(), sb, mode)
    assert canary.judge(results, findings) == []
    assert {k: v[0] for k, v in results.items()} == {k: v[0] for k, v in canary.EXPECTED.items()}


def test_judge_names_each_misjudged_outcome():
    honest = {nid: (passes, f"... {word} ...") for nid, (passes, word) in canary.EXPECTED.items()}
    assert canary.judge(honest, []) == []
    everything_fails = {nid: (False, "not observed to pass") for nid in canary.EXPECTED}
    problems = canary.judge(everything_fails, [])
    assert any("test_pass failed" in p for p in problems)
    assert any("test_fail failed for another reason" in p for p in problems)
    everything_passes = {nid: (True, "") for nid in canary.EXPECTED}
    assert any("test_skip passed" in p for p in canary.judge(everything_passes, []))
    flagged = canary.judge(honest, [{"kind": "always_equal"}])
    assert flagged == ["the guard flagged the honest canary (always_equal)"]


# ------------------------------------------------------------ through a venv of its own


def _venv(tmp_path: pathlib.Path, pth: str = "") -> tuple[pathlib.Path, pathlib.Path]:
    return harness_venv(tmp_path / "venv", pth)


RESET = textwrap.dedent(
    """
    import importlib.metadata, sys
    import _pytest, swarm_envs
    from swarm_envs.error import ScoringError
    print("pytest from", _pytest.__file__, importlib.metadata.distribution("pytest")._path)
    env = swarm_envs.parallel_env("calc", num_agents=1, scorer=sys.argv[1])
    try:
        env.reset(seed=0)
    except ScoringError as e:
        print("ScoringError:", e)
    else:
        print("reset fine")
    finally:
        env.close()
    """
)


def _reset_in(python: pathlib.Path, scorer: str) -> str:
    cache = python.parents[2] / "cache"
    if not cache.is_dir():
        cache_with_harness(cache)
    return run_in(python, RESET, scorer, cache=cache)


@pytest.mark.timeout(900)
@pytest.mark.slow
def test_a_venv_whose_own_pytest_was_altered_still_scores(tmp_path):
    """The interpreter's pytest is not the harness: damage to it changes no score."""
    python, site = _venv(tmp_path)
    reports = site / "_pytest" / "reports.py"
    reports.write_text(reports.read_text() + "\n\ndef _appended():\n    pass\n")
    out = _reset_in(python, "fast")
    assert str(site) in out  # the copy is this Python's pytest
    assert "reset fine" in out, out


# Code that every Python of the venv runs at start-up (a `.pth` of some other package): an
# import hook that, whenever `_pytest.reports` is loaded (the scorer's own, later), makes
# every passing report of a test's call a failure. No harness file changes.
MISJUDGE = textwrap.dedent(
    """
    import sys
    from importlib.machinery import PathFinder


    def _fail_calls(module):
        f = module.TestReport.from_item_and_call.__func__

        def from_item_and_call(cls, item, call):
            rep = f(cls, item, call)
            if rep.when == "call":
                rep.outcome = "failed"
            return rep

        module.TestReport.from_item_and_call = classmethod(from_item_and_call)


    class Hook:
        def find_spec(self, name, path=None, target=None):
            if name != "_pytest.reports":
                return None
            spec = PathFinder.find_spec(name, path, target)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                _fail_calls(module)

            spec.loader.exec_module = exec_module
            return spec


    sys.meta_path.insert(0, Hook())
    """
)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("scorer", ["fast", "subprocess"])
def test_a_harness_that_misjudges_fails_the_first_reset(tmp_path, scorer):
    python, site = _venv(tmp_path, pth="import misjudge_hook")
    (site / "misjudge_hook.py").write_text(MISJUDGE)
    out = _reset_in(python, scorer)
    assert "ScoringError:" in out and "misjudged its canary project" in out, out
    assert "test_pass " in out, out  # named: it failed, or had no outcome at all


def test_an_episode_scores_after_its_canary():
    env = swarm_envs.parallel_env("calc", num_agents=1)
    try:
        _, infos = env.reset(seed=0)
        assert infos["agent_0"]["tests_total"] == 13
        assert any(c.done and c.error is None for c in canary._checks.values())
    finally:
        env.close()
