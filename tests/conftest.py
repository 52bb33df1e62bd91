"""The suite's fixtures and session setup; helpers that test modules import are in `support`."""

import os
import tempfile

import pytest
from sandbox_support import docker_engine, sandbox_backend  # noqa: F401 - fixtures
from support.helpers import SIMPLE_TIME

import swarm_envs
from swarm_envs import cache

# Every cache of the library lives under SWARM_ENVS_CACHE (swarm_envs.cache): in this test
# session, a folder of the session, never the user's.
if "SWARM_ENVS_CACHE" not in os.environ:
    os.environ["SWARM_ENVS_CACHE"] = tempfile.mkdtemp(prefix="swarm-envs-test-cache-")
SESSION_CACHE = os.environ["SWARM_ENVS_CACHE"]


@pytest.fixture(autouse=True)
def _empty_scoring_cache(tmp_path_factory, monkeypatch):
    # Every test starts with an empty scorer's cache on disk: results of another test, an
    # earlier run or the user's own never stand in for a scoring run under test. The caches
    # that only hold content-keyed products of the task folders (candidates, instances,
    # environments, the Docker image's inputs) are the session's, shared by every test.
    # Worker processes inherit the variable.
    if cache.disabled():
        return
    root = tmp_path_factory.mktemp("cache")
    for kind in cache.KINDS:
        if kind != "scoring":
            shared = os.path.join(SESSION_CACHE, kind)
            os.makedirs(shared, exist_ok=True)
            os.symlink(shared, root / kind)
    monkeypatch.setenv("SWARM_ENVS_CACHE", str(root))


@pytest.fixture
def make_env():
    envs = []

    def factory(task="calc", num_agents=2, **config):
        config.setdefault("time", SIMPLE_TIME)
        env = swarm_envs.parallel_env(task, num_agents=num_agents, **config)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


@pytest.fixture
def make_aec():
    envs = []

    def factory(num_agents=2, **config):
        config.setdefault("time", SIMPLE_TIME)
        env = swarm_envs.raw_env("calc", num_agents=num_agents, **config)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


@pytest.fixture
def solo(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    return env


@pytest.fixture(scope="session")
def ray_session():
    """The session's owner of local Ray (`support.ray_session`); stops it at the end."""
    ray = pytest.importorskip("ray")
    from support.ray_session import RaySession

    owner = RaySession(ray)
    yield owner
    owner.down()


@pytest.fixture
def local_ray(ray_session):
    """Ray running in this process with the suite's settings, whatever ran before."""
    return ray_session.up()


@pytest.fixture
def no_ray(ray_session):
    """Ray not running in this process, whatever ran before (`connect_ray` then starts or
    joins one itself)."""
    ray_session.down()
    return ray_session.ray


def _long_running(item: pytest.Item) -> bool:
    limit = item.get_closest_marker("timeout")
    seconds = limit.args[0] if limit is not None and limit.args else 0
    return _uses_docker(item) or (isinstance(seconds, int | float) and seconds >= 600)


def _uses_docker(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "docker_engine" in item.fixturenames or "docker" in params.values()


def _needs_group(item: pytest.Item) -> str | None:
    """The worker group a test must share, from what it uses: what a session or a module
    starts once (one Docker engine, one local Ray, one bench grid) stays on one worker."""
    if _uses_docker(item):
        return "docker"
    if {"ray_session", "local_ray", "no_ray"} & set(item.fixturenames):
        return "ray"
    if "bench" in item.fixturenames and item.module.__name__.endswith("test_bench"):
        return "bench"
    return None


# The group of a test as pytest-xdist's controller sees it: by its node id alone (the
# controller does not collect). Whole files for Ray and the bench grid, the backend
# parameter or the name for Docker. Every worker checks at collection that this agrees
# with `_needs_group`, so a new test that starts an engine cannot silently miss its group.
_FILE_GROUPS = {
    "tests/test_bench.py": "bench",
    "tests/test_ray.py": "ray",
    "tests/test_ray_commands.py": "ray",
}


def _group_of(nodeid: str) -> str | None:
    path, _, name = nodeid.partition("::")
    params = name[name.index("[") + 1 : -1].split("-") if name.endswith("]") else []
    if "docker" in params or name.rpartition("::")[2].startswith("test_docker_"):
        return "docker"
    return _FILE_GROUPS.get(path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    # `--dist loadgroup` groups by a suffix pytest-xdist writes into node ids, which
    # pytest 9.2's structured node ids silently drop (pytest-xdist issue 1386): every
    # test then went to any worker, and each of the four workers started its own Docker
    # engine, Ray and bench grid. The same grouping, by `_group_of`, which needs no
    # rewritten ids; the rest runs one test per unit, in the collection's order (the
    # longest first, below).
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group_of(nodeid) or nodeid

    config.option.loadscopereorder = False
    return Grouped(config, log)


def pytest_collection_modifyitems(config, items):
    # The Docker backend's tests are in the slow suite (an engine and its image take a
    # minute to start).
    missed = []
    for item in items:
        group = _needs_group(item)
        if group == "docker":
            item.add_marker(pytest.mark.slow)
        if group is not None and _group_of(item.nodeid) != group:
            missed.append(f"{item.nodeid} (needs the {group!r} group)")
    if missed:
        raise pytest.UsageError(
            "tests/conftest.py's _group_of does not place these tests in the worker group "
            "they need:\n  " + "\n  ".join(missed)
        )
    # The longest tests (a time limit of 10 minutes or more, and the Docker group, whose
    # engine and image take minutes to start) first: pytest-xdist hands work out in this
    # order, and a suite that starts one of them last ends waiting on it alone.
    items.sort(key=lambda item: not _long_running(item))
