"""Vector environments over swarm envs: SuperSuit and Gymnasium, in and across processes.

Every test runs on a tiny task of its own (not bundled) whose files hold non-ASCII text,
so that a copy or a worker that loses characters, or does not know the task, fails.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import shutil
import uuid

import gymnasium
import numpy as np
import pytest
import supersuit as ss
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)
from support.helpers import SIMPLE_TIME, call

import swarm_envs
from swarm_envs.core.spaces import UnicodeText
from swarm_envs.envs.registration import gym_id
from swarm_envs.error import SpaceError
from swarm_envs.tasks import TASKS_ENV

GREETING = "Grüße, naïve café ✓ — 日本語"
SOLUTION = f'def greet():\n    """Say hello: {GREETING}."""\n    return "{GREETING}"\n'
STUB = f'def greet():\n    """Say hello: {GREETING}."""\n    raise NotImplementedError\n'
TEST = f'from greet import greet\n\n\ndef test_greet():\n    assert greet() == "{GREETING}"\n'
READ = call("read_file", path="greet.py")
CONFIG = {"time": SIMPLE_TIME, "time_cap_s": 100.0}


@pytest.fixture(scope="module")
def accents(tmp_path_factory):
    """A registered task (not bundled) whose description and files are not ASCII."""
    root = tmp_path_factory.mktemp("tasks") / "accents"
    name = f"accents{uuid.uuid4().hex[:6]}"
    files = {
        "task.toml": f'name = "{name}"\nsuite = "custom"\ndescription = "Fix greet: {GREETING}"\n'
        "[tests]\nduration_s = 2\n",
        "README.md": f"# {GREETING}\n",
        "solution/greet.py": SOLUTION,
        "start/greet.py": STUB,
        "tests/test_greet.py": TEST,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return swarm_envs.register_task(root)


def test_the_text_space_batches_with_gymnasiums_helpers():
    space = UnicodeText(64)
    batch = ("é", GREETING)
    assert isinstance(batch_space(space, 2), gymnasium.spaces.Tuple)
    assert batch_space(space, 2).contains(batch)
    assert list(iterate(space, batch)) == list(batch)
    assert concatenate(space, batch, create_empty_array(space, 2)) == batch
    with pytest.raises(SpaceError, match="sequence of str"):
        iterate(space, "one str")


def test_shared_memory_keeps_every_character():
    space = UnicodeText(64)
    shared = create_shared_memory(space, n=2)
    view = read_from_shared_memory(space, shared, n=2)
    write_to_shared_memory(space, 0, GREETING, shared)
    write_to_shared_memory(space, 1, "\udc80 surrogate", shared)
    assert list(view) == [GREETING, "\udc80 surrogate"]  # a live view
    with pytest.raises(SpaceError, match="at most 64"):
        write_to_shared_memory(space, 0, "x" * 65, shared)
    with pytest.raises(SpaceError, match="shared_memory=False"):
        write_to_shared_memory(space, 0, "ends in NUL\x00", shared)


@pytest.mark.slow
def test_an_env_pickles_after_reset_as_its_recipe_and_sticky_settings(accents):
    env = swarm_envs.parallel_env(accents, num_agents=2, **CONFIG)
    try:
        env.reset(seed=0)
        env.set_time_cap(30)
        copy = pickle.loads(pickle.dumps(env))
    finally:
        env.close()
    try:
        assert copy.task.id == accents.id and copy.config == env.config
        assert not copy.agents  # a sandbox does not cross processes: the copy starts un-reset
        obs, infos = copy.reset(seed=0)
        assert GREETING in obs["agent_0"] and infos["agent_1"]["time_left"] == 30
    finally:
        copy.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("num_cpus", [0, 2])
def test_supersuit_concat_vec_envs(accents, num_cpus):
    env = swarm_envs.parallel_env(accents, num_agents=2, **CONFIG)
    env.reset(seed=0)  # a used env vectorizes: its copies are built from its recipe
    env.set_time_cap(40)  # and keep its sticky settings through their own resets
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=num_cpus)
    env.close()
    try:
        obs, infos = vec.reset(seed=0)
        assert len(obs) == 4 and all(GREETING in o for o in obs)
        if num_cpus > 1:  # SuperSuit's multiprocess reset gives (index, info) per process
            infos = [info for per_process in infos for _, info in per_process]
        assert [i["time_left"] for i in infos] == [40] * 4
        obs, rewards, term, trunc, infos = vec.step([READ] * 4)
        assert all(SOLUTION.split("\n")[1] in o for o in obs), obs[0]
        fix = call("write_file", path="greet.py", content=SOLUTION)
        done = call("done")
        obs, rewards, term, trunc, infos = vec.step([fix, done, fix, done])
        assert list(rewards) == [1.0] * 4 and term.all()  # every test passes
        # The vector env reset itself: fresh episodes, with the sticky cap.
        assert all(GREETING in o and "tests 0/1" in o for o in obs)
        assert [i["time_left"] for i in infos] == [40] * 4
    finally:
        vec.close()


def _gym_vector(kind: str, env_id: str):
    make = functools.partial(gymnasium.make, "swarm_envs:" + env_id, **CONFIG)
    if kind == "sync":
        return gymnasium.vector.SyncVectorEnv([make] * 2)
    return gymnasium.vector.AsyncVectorEnv([make] * 2, context=kind)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["sync", "fork", pytest.param("spawn", marks=pytest.mark.slow)])
def test_gymnasium_vector_envs(accents, kind):
    # Spawned workers start from a fresh interpreter: they know the (unbundled) task
    # from $SWARM_ENVS_TASKS, which registering it set.
    vec = _gym_vector(kind, gym_id(accents))
    try:
        obs, infos = vec.reset(seed=0)
        assert all(GREETING in o for o in obs)
        obs, rewards, term, trunc, infos = vec.step([READ, call("done")])
        assert SOLUTION.split("\n")[1] in obs[0]
        assert list(term) == [False, True]
        assert json.loads(json.dumps(list(map(str, obs))))  # plain text, whatever the transport
    finally:
        vec.close()


@pytest.mark.timeout(300)
def test_async_vector_env_without_shared_memory(accents):
    make = functools.partial(gymnasium.make, "swarm_envs:" + gym_id(accents), **CONFIG)
    vec = gymnasium.vector.AsyncVectorEnv([make] * 2, shared_memory=False)
    try:
        obs, _ = vec.reset(seed=0)
        assert isinstance(obs, tuple) and all(GREETING in o for o in obs)
        assert isinstance(np.asarray(obs), np.ndarray)
    finally:
        vec.close()


def test_a_task_folder_given_by_path_is_known_to_gymnasium_and_to_workers(accents, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(accents.root, folder)
    text = (folder / "task.toml").read_text(encoding="utf-8")
    (folder / "task.toml").write_text(text.replace(accents.name, accents.name + "b"), "utf-8")
    env = swarm_envs.parallel_env(str(folder), num_agents=1)  # by path: registered on the way
    assert str(env.task.root) in os.environ[TASKS_ENV].split(os.pathsep)
    g = gymnasium.make(gym_id(env.task))
    assert g.unwrapped.task.root == env.task.root
    g.close()
    env.close()
