"""The scorer's pytest is its own: the user's pytest (any version, or none) plays no part.

Each scorer here runs in a Python of its own (a small virtual environment made in the
test, see `venv_copy`) through the public API (`parallel_env(...).reset`, `step`), with a
cache folder of the test's own. That folder starts with a copy of the private harness that
this session already built (`harness_env()`), so nothing is fetched, except by the tests
marked slow, which build it from the package index.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from swarm_envs.scoring import harness
from swarm_envs.scoring.harness_env import (
    DEFAULT_PYTEST,
    LOCK,
    LOCKS,
    WHEELS_ENV,
    harness_env,
    lock,
    lock_digest,
)
from swarm_envs.tasks import get_task

from .venv_copy import bare_venv, cache_with_harness, run_in

ROOT = pathlib.Path(__file__).resolve().parents[2]

# One episode of calc with one agent: the starting state's count, then the reference
# written file by file through the tools, then the final count.
EPISODE = textwrap.dedent(
    """
    import json, sys
    import swarm_envs
    from swarm_envs.error import ScoringError
    try:
        import pytest
        mine = pytest.__version__
    except ImportError:
        mine = None
    env = swarm_envs.parallel_env("calc", num_agents=1, scorer=sys.argv[1])
    files = json.loads(sys.argv[2])
    try:
        _, infos = env.reset(seed=0)
        start = infos["agent_0"]["tests_passed"], infos["agent_0"]["tests_total"]
        for path, content in files.items():
            if not env.agents:
                break
            action = {"name": "write_file", "arguments": {"path": path, "content": content}}
            _, _, _, _, infos = env.step({"agent_0": action})
        end = infos["agent_0"]["tests_passed"]
        print(json.dumps({"pytest": mine, "start": start, "end": end}))
    except ScoringError as e:
        print(json.dumps({"pytest": mine, "error": str(e)}))
    finally:
        env.close()
    """
)


def _episode(python: pathlib.Path, cache: pathlib.Path, scorer: str) -> dict:
    files = get_task("calc").solution_files()
    text = {p: d.decode() for p, d in files.items() if p.endswith(".py")}
    out = run_in(python, EPISODE, scorer, json.dumps(text), cache=cache)
    return json.loads(out.strip().splitlines()[-1])


# What hides the shared environment's pytest from the venv's Python: the shared
# site-packages (the editable swarm-envs and its dependencies) hold the suite's pytest.
HIDE_PYTEST = textwrap.dedent(
    """
    import sys

    _HIDDEN = ("pytest", "_pytest", "pluggy", "py")


    class HidePytest:
        def __init__(self, shared):
            self.shared = shared

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] not in _HIDDEN:
                return None
            from importlib.machinery import PathFinder

            spec = PathFinder.find_spec(name, path, target)
            if spec is not None and str(spec.origin).startswith(self.shared):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    """
)


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    "scorer, isolation",
    [("fast", "bwrap"), ("subprocess", "bwrap"), ("fast", "unshare")],
)
@pytest.mark.slow
def test_a_python_without_pytest_scores_with_the_scorers_own(
    tmp_path, monkeypatch, scorer, isolation
):
    # Shown by a read-only bind (a private view) or by links into the scoring area.
    monkeypatch.setenv("SWARM_ENVS_SANDBOX_ISOLATION", isolation)
    python, site = bare_venv(tmp_path / "venv")
    (site / "hide_pytest.py").write_text(HIDE_PYTEST)
    shared = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    (site / "aa_hide_pytest.pth").write_text(
        f"import sys, hide_pytest; sys.meta_path.insert(0, hide_pytest.HidePytest({shared[0]!r}))\n"
    )
    cache = tmp_path / "cache"
    cache_with_harness(cache)
    got = _episode(python, cache, scorer)
    assert got["pytest"] is None, got  # this Python has no pytest at all
    assert "error" not in got, got
    assert got["start"] == [0, 13] and got["end"] == 13, got


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_python_whose_pytest_is_outside_the_range_scores_with_the_scorers_own(tmp_path):
    python, site = bare_venv(tmp_path / "venv")
    # A real pytest below the tested range, in the venv's own site-packages (ahead of
    # the shared ones): it is what `import pytest` gives this Python.
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
        + ["pytest==7.4.4", "pluggy==1.5.0"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    cache = tmp_path / "cache"
    cache_with_harness(cache)
    got = _episode(python, cache, "fast")
    assert got["pytest"] == "7.4.4", got
    assert "error" not in got, got
    assert got["start"] == [0, 13] and got["end"] == 13, got


@pytest.mark.timeout(900)
def test_an_altered_file_of_the_private_harness_fails_the_first_reset_naming_it(tmp_path):
    python, _ = bare_venv(tmp_path / "venv")
    cache = tmp_path / "cache"
    copy = cache_with_harness(cache)
    reports = copy / "_pytest" / "reports.py"
    reports.write_text(reports.read_text() + "\nTestReport.passed = property(lambda s: True)\n")
    got = _episode(python, cache, "fast")
    pinned = harness_env().pytest
    assert "start" not in got, got  # no count came out of it, not even a zero
    assert (
        f"the installed `_pytest/reports.py` differs from pytest {pinned}'s wheel" in got["error"]
    ), got


def test_a_pytest_imported_before_the_harness_stops_the_worker(tmp_path):
    """A `.pth` that imports the interpreter's pytest at start-up: no score from a mixture."""
    python, site = bare_venv(tmp_path / "venv", shared_pytest=True)
    (site / "aa_early.pth").write_text("import _pytest.reports\n")
    cache = tmp_path / "cache"
    cache_with_harness(cache)
    got = _episode(python, cache, "subprocess")
    assert "start" not in got, got
    assert "imported at start-up, before the scorer's own pytest" in got["error"], got


def test_the_locks_are_the_tested_range_and_agree_with_the_docker_image():
    from swarm_envs.sandboxes.docker_image import IMAGE_PYTEST

    low, high = harness.PYTEST_RANGE
    for version, wheels in LOCKS.items():
        assert wheels[0].startswith(f"pytest=={version} --hash=sha256:")
        assert harness.check_pytest_version(version) == version
        assert all(re.search(r"--hash=sha256:[0-9a-f]{64}$", w) for w in wheels), wheels
    # CI's ends: the suites run on the default harness, `make test-pytest-range` on the
    # others, each once.
    ends = re.search(r"^PYTEST_ENDS \?= (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert ends is not None and DEFAULT_PYTEST not in ends.group(1).split()
    assert sorted([*ends.group(1).split(), DEFAULT_PYTEST]) == sorted(LOCKS)
    pins = {w.split()[0] for w in LOCK if ";" not in w}
    assert set(IMAGE_PYTEST) == pins
    assert len({lock_digest(w) for w in LOCKS.values()}) == len(LOCKS)


def _use(cache: pathlib.Path, **env: str) -> subprocess.CompletedProcess:
    code = (
        "import json; from swarm_envs.scoring.harness_env import harness_env; e = harness_env(); "
        "import os; print(json.dumps([str(e.path), e.pytest, e.digest, "
        "os.stat(e.path).st_ino, os.stat(e.path / '.complete').st_mtime_ns]))"
    )
    full = {**os.environ, "SWARM_ENVS_CACHE": str(cache), **env}
    return subprocess.run(
        [sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=600
    )


def test_no_index_and_no_wheels_is_a_clear_error(tmp_path):
    r = _use(tmp_path, PIP_NO_INDEX="1", PIP_FIND_LINKS="")
    assert r.returncode != 0
    assert "ScoringError: could not install the scorer's pytest" in r.stderr, r.stderr[-2000:]
    assert f"{WHEELS_ENV}=DIR" in r.stderr and "pip download" in r.stderr
    assert not list((tmp_path / "environments").glob("scorer-harness-*/"))  # nothing half-made


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_concurrent_first_uses_build_the_harness_once(tmp_path):
    code = "from swarm_envs.scoring.harness_env import harness_env; print(harness_env().path)"
    env = {**os.environ, "SWARM_ENVS_CACHE": str(tmp_path)}
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(4)
    ]
    done = [p.communicate(timeout=600) for p in starts]
    assert all(p.returncode == 0 for p in starts), [e[-1500:] for _, e in done]
    after = json.loads(_use(tmp_path).stdout)
    # One folder, built by one of them: each found the same one (inode and completion
    # stamp unchanged since), and no build of another is left beside it.
    assert {o.decode().strip() for o, _ in done} == {after[0]}
    folders = [p.name for p in (tmp_path / "environments").iterdir() if p.is_dir()]
    assert folders == [pathlib.Path(after[0]).name], folders


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_harness_builds_from_a_folder_of_wheels_with_no_index(tmp_path):
    wheels = tmp_path / "wheels"
    names = [w.split()[0] for w in lock() if ";" not in w or sys.version_info < (3, 11)]
    r = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
        + ["-d", str(wheels), *names],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    cache = tmp_path / "cache"
    built = _use(cache, PIP_NO_INDEX="1", PIP_FIND_LINKS="", **{WHEELS_ENV: str(wheels)})
    assert built.returncode == 0, built.stderr[-2000:]
    path, version, digest, _, _ = json.loads(built.stdout)
    assert version == harness_env().pytest
    assert digest == harness_env().digest  # the same files as the index gives


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
def test_workers_see_the_harness_bound_or_linked_and_score_the_canary_right(isolation):
    """A private view binds the harness; a weaker level links it into the scoring area."""
    from swarm_envs.sandboxes import make_sandbox
    from swarm_envs.scoring import canary
    from swarm_envs.scoring.channel import show_harness

    with make_sandbox("local", isolation=isolation) as sb:
        host = sb.scoring_host()
        inside = show_harness(host)
        linked = host.dir / "harness" / "_pytest" / "reports.py"
        if isolation == "bwrap":
            assert inside == "/harness" and not linked.exists()
        else:
            assert inside == f"{host.inside_dir}/harness" and linked.is_file()
            assert linked.read_bytes() == (harness_env().path / "_pytest/reports.py").read_bytes()
        results, findings = canary.run(host, sb, "once")
    assert canary.judge(results, findings) == []


PROBE = (
    "import sys; sys.path.insert(0, sys.argv[1]); import pytest, _pytest.reports, pluggy; "
    "print(pytest.__version__, _pytest.reports.__file__, pluggy.__file__)"
)


@pytest.mark.timeout(900)
def test_every_backend_shows_its_workers_the_harness(sandbox_backend):
    """Workers of each backend import pytest from where `show_harness` says it is."""
    from swarm_envs.sandboxes import make_sandbox
    from swarm_envs.scoring.channel import show_harness

    with make_sandbox(sandbox_backend) as sb:
        host = sb.scoring_host()
        inside = show_harness(host)
        handle = host.start_worker([host.python, "-I", "-c", PROBE, inside])
        try:
            handle.stdin.close()
            out = handle.stdout.read()
        finally:
            handle.kill()
    version, reports, plugin = out.decode().split()
    assert version == harness_env().pytest, out
    assert reports.startswith(inside + "/") and plugin.startswith(inside + "/"), out
