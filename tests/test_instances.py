"""Seeded task distributions: one instance per `reset(seed)`, and a seeded sandbox."""

from __future__ import annotations

import hashlib
import os
import pickle

import gymnasium
import pytest
from support.helpers import call

import swarm_envs
from swarm_envs.core.observation import reproducible
from swarm_envs.error import ConfigError
from swarm_envs.generation import generators
from swarm_envs.tasks import TASKS_ENV

STUBS = {"kind": "stub", "k": 2}
PROBE = call(
    "run_command",
    tokens=1,
    command="echo seed=$SWARM_SEED; python -c 'print(hash(\"swarm\"))'; python -m pytest -q tests",
)


def rollout_hash(env, seed):
    """Observations of a fixed script after `reset(seed)`, hashed (PettingZoo's seed test)."""
    obs, infos = env.reset(seed=seed)
    digest = hashlib.sha256(obs["agent_0"].encode())
    for action in (PROBE, call("run_tests", tokens=1), call("list_files", tokens=1)):
        obs, _, _, _, infos = env.step({"agent_0": action})
        digest.update(obs["agent_0"].encode())
    return digest.hexdigest(), infos["agent_0"]["task"]


@pytest.mark.slow
def test_the_same_seed_gives_the_same_instance_and_observations(make_env):
    env = make_env("calc", num_agents=1, instances=STUBS)
    first, task = rollout_hash(env, 7)
    assert task.startswith("calc_stub2_s") and env.task.id == task
    again = make_env("calc", num_agents=1, instances=STUBS)  # another env, another sandbox
    assert rollout_hash(again, 7) == (first, task)
    assert rollout_hash(env, 7) == (first, task)
    other, other_task = rollout_hash(env, 8)
    assert other_task != task and other != first


@pytest.mark.slow
def test_different_seeds_draw_different_instances(make_env):
    env = make_env("calc", num_agents=1, instances=STUBS)
    drawn = {env.reset(seed=s)[1]["agent_0"]["task"] for s in range(6)}
    assert len(drawn) >= 4 and all(t.startswith("calc_stub2_s") for t in drawn)


@pytest.mark.slow
def test_a_plain_task_repeats_under_its_seed_too(make_env):
    env = make_env("calc", num_agents=1)
    assert rollout_hash(env, 5) == rollout_hash(env, 5)


@pytest.mark.slow
def test_what_runs_in_the_sandbox_is_seeded(make_env):
    env = make_env("calc", num_agents=1)
    outputs = []
    for seed in (3, 3, 4):
        env.reset(seed=seed)
        obs, *_ = env.step({"agent_0": PROBE})
        outputs.append(obs["agent_0"])
    assert "seed=3" in outputs[0] and "seed=4" in outputs[2]
    hashes = [o.split("\n")[2] for o in outputs]
    assert hashes[0] == hashes[1] != hashes[2]  # PYTHONHASHSEED follows the seed
    assert "failed" in outputs[0] and " in 0." not in outputs[0]  # no wall-clock figures


@pytest.fixture(scope="module")
def seeded_task(tmp_path_factory):
    """A task whose tests pass only when the scorer's test process sees SWARM_SEED=7."""
    root = tmp_path_factory.mktemp("tasks") / "seeded"
    files = {
        "task.toml": 'name = "seeded"\nsuite = "custom"\ndescription = "Seeded tests"\n'
        "[tests]\nduration_s = 2\n",
        "solution/seeded.py": "SEED = 7\n",
        "start/seeded.py": "SEED = 7\n",
        "tests/test_seeded.py": "import os\n\n\n"
        "def test_the_seed_is_readable():\n"
        "    assert os.environ['SWARM_SEED'] == '7'\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return swarm_envs.register_task(root)


@pytest.mark.slow
def test_the_scorers_test_runs_see_the_seed(make_env, seeded_task):
    # Their hash seed is the task's own (`tests.hash_seed`), so that test ids stay stable.
    fast = make_env(seeded_task, num_agents=1)
    assert fast.reset(seed=7)[1]["agent_0"]["tests_passed"] == 1
    # The fast scorer's result cache is keyed by content, not by seed: the scorer that runs
    # every evaluation shows the next seed's runs.
    plain = make_env(seeded_task, num_agents=1, scorer="subprocess")
    assert plain.reset(seed=8)[1]["agent_0"]["tests_passed"] == 0
    obs, *_ = plain.step({"agent_0": call("run_tests", tokens=1)})
    assert "0 passed, 1 failed" in obs["agent_0"]
    assert plain.reset(seed=7)[1]["agent_0"]["tests_passed"] == 1


def test_wall_clock_figures_and_addresses_leave_command_output():
    assert reproducible("== 1 failed, 2 passed, 1 warning in 1.23s (0:00:01) ==") == (
        "== 1 failed, 2 passed, 1 warning =="
    )
    assert reproducible("3 passed in 0.17s\nRan 3 tests in 0.001s") == "3 passed\nRan 3 tests"
    assert reproducible("no tests ran in 0.01s") == "no tests ran"
    assert reproducible("<Foo object at 0x7f3a12345678>") == "<Foo object at 0x?>"
    kept = "took 3.2s; 0.01s call tests/test_a.py::test_x; sleep 2 in 3s"
    assert reproducible(kept) == kept  # only test runners' summaries


@pytest.mark.slow
def test_a_list_of_tasks_is_drawn_from_by_seed(make_env, tmp_path):
    calc = swarm_envs.get_task("calc")
    pool = [generators.generate(calc, "stub", 1, seed, tmp_path / f"i{seed}") for seed in (0, 1)]
    env = make_env("calc", num_agents=1, instances=pool)
    drawn = {}
    for seed in range(8):
        _, infos = env.reset(seed=seed)
        drawn[seed] = infos["agent_0"]["task"]
    assert set(drawn.values()) == {t.id for t in pool}
    assert all(env.reset(seed=s)[1]["agent_0"]["task"] == t for s, t in list(drawn.items())[:3])


@pytest.mark.slow
def test_unseeded_resets_continue_the_seeded_stream(make_env):
    env = make_env("calc", num_agents=1, instances=STUBS)

    def after(seed):
        env.reset(seed=seed)
        return [(env.reset()[1]["agent_0"]["task"], env.view().seed) for _ in range(2)]

    first = after(1)
    assert after(1) == first and after(2) != first
    assert all(seed is not None for _, seed in first)  # SWARM_SEED is set in them too


@pytest.mark.slow
def test_the_configs_seed_seeds_the_first_reset_only(make_env):
    env = make_env("calc", num_agents=1, instances=STUBS, seed=4)
    tasks = [env.reset()[1]["agent_0"]["task"] for _ in range(4)]
    assert tasks[0] == env.reset(seed=4)[1]["agent_0"]["task"]
    assert len(set(tasks)) > 1  # later resets draw on


@pytest.mark.slow
def test_draws_leave_the_variable_for_child_processes_alone(make_env):
    before = os.environ.get(TASKS_ENV)
    env = make_env("calc", num_agents=1, instances=STUBS)
    for seed in range(3):
        env.reset(seed=seed)
    assert os.environ.get(TASKS_ENV) == before


@pytest.mark.slow
def test_a_distribution_pickles_and_draws_the_same_in_the_copy():
    env = swarm_envs.parallel_env("calc", num_agents=1, instances=STUBS)
    copy = pickle.loads(pickle.dumps(env))
    try:
        assert env.reset(seed=5)[1]["agent_0"]["task"] == copy.reset(seed=5)[1]["agent_0"]["task"]
    finally:
        env.close()
        copy.close()


def test_the_gymnasium_form_draws_too():
    env = gymnasium.make("swarm/calc-v0", instances=STUBS)
    try:
        _, info = env.reset(seed=2)
        assert info["task"].startswith("calc_stub2_s")
    finally:
        env.close()


@pytest.mark.parametrize(
    ("instances", "fragment"),
    [
        ({"kind": "stubb", "k": 2}, "'kind'"),
        ({"kind": "stub"}, "missing field 'k'"),
        ({"kind": "stub", "k": 9}, "k=9, but calc-v0 has 4 units"),
        ({"kind": "stub", "k": 1, "n": 3}, "unknown field 'n'"),
        ([], "non-empty list of tasks"),
        ("calc", "non-empty list of tasks"),
        (["calc", "nosuchtask"], "nosuchtask"),
    ],
)
def test_a_bad_distribution_is_a_clear_error(instances, fragment):
    with pytest.raises(ConfigError, match="instances") as e:
        swarm_envs.parallel_env("calc", num_agents=1, instances=instances)
    assert fragment in str(e.value)


@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_a_bad_seed_is_a_clear_error(make_env, seed):
    env = make_env("calc", num_agents=1)
    with pytest.raises(ConfigError, match=r"reset\(seed=.*expected a non-negative int"):
        env.reset(seed=seed)


@pytest.mark.slow
def test_a_vector_env_draws_per_sub_env_and_repeats_under_its_seed():
    make = lambda: gymnasium.make("swarm/calc-v0", instances=STUBS)  # noqa: E731
    envs = gymnasium.vector.SyncVectorEnv([make] * 2)
    try:
        first = tuple(envs.reset(seed=10)[1]["task"])
        assert first[0] != first[1]  # sub-envs are seeded 10 and 11
        assert tuple(envs.reset(seed=10)[1]["task"]) == first
    finally:
        envs.close()
