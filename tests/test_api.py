"""The checkers users judge an environment by: PettingZoo's and Gymnasium's."""

import warnings

import pytest

import swarm_envs
from swarm_envs import checker as harness

# The checker harness runs over every registered task: the fast ones (the mini suite) in
# the fast suite, agent count by agent count; a standard and a real task in the slow suite
# (CI); every other one in the long suite (`make test-long`).
TASKS = sorted(swarm_envs.registered())
FAST = [t for t in TASKS if swarm_envs.get_task(t).manifest.suite == "mini"]
SAMPLE = ("structkit-v0", "shortuuid-v0")
SLOW = [
    t if t in SAMPLE else pytest.param(t, marks=pytest.mark.long) for t in TASKS if t not in FAST
]


@pytest.mark.parametrize("task", FAST)
@pytest.mark.parametrize("sync", ["event", "round"])
@pytest.mark.parametrize("num_agents", [1, 2, 8])
def test_parallel_api_and_seed(task, num_agents, sync):
    harness.check_parallel(task, num_agents, sync)


@pytest.mark.parametrize("task", FAST)
@pytest.mark.parametrize("sync", ["event", "round"])
@pytest.mark.parametrize("num_agents", [1, 2, 8])
def test_aec_api(task, num_agents, sync):
    harness.check_aec(task, num_agents, sync)


@pytest.mark.parametrize("task", FAST)
@pytest.mark.parametrize("sync", ["event", "round"])
def test_gymnasium_check_env(task, sync):
    harness.check_gymnasium(task, sync)


@pytest.mark.parametrize("task", FAST)
@pytest.mark.parametrize("sync", ["event", "round"])
def test_reward_is_the_change_in_passing_tests_and_ends_have_reasons(task, sync):
    harness.check_rewards_and_ends(task, num_agents=3, sync=sync)


@pytest.mark.parametrize("task", FAST)
@pytest.mark.parametrize("make", [swarm_envs.parallel_env, swarm_envs.env])
def test_close_twice_and_collected_after_close(task, make):
    harness.check_close_and_collect(lambda: make(task, num_agents=2))


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("task", SLOW)
def test_checker_harness_on_every_task(task):
    harness.check_task(task, agent_counts=(1, 8))


@pytest.mark.slow
@pytest.mark.parametrize("sync", ["event", "round"])
def test_parallel_api_64_agents(sync):
    harness.check_parallel("calc", 64, sync, cycles=50)


@pytest.mark.slow
@pytest.mark.parametrize("sync", ["event", "round"])
def test_aec_api_64_agents(sync):
    harness.check_aec("calc", 64, sync, cycles=10)


def test_the_harness_fails_on_an_unexpected_warning_and_allows_the_listed_ones():
    with harness.expected_warnings():
        warnings.warn("Observation is not a NumPy array", UserWarning, stacklevel=1)
    with pytest.raises(AssertionError, match="unexpected warnings: UserWarning: surprise"):
        with harness.expected_warnings():
            warnings.warn("surprise", UserWarning, stacklevel=1)


def test_the_reward_check_can_fail(monkeypatch):
    from swarm_envs.envs.parallel import SwarmParallelEnv

    real_step = SwarmParallelEnv.step

    def doubled(self, actions):  # a broken environment: rewards twice the change
        obs, rewards, term, trunc, infos = real_step(self, actions)
        return obs, {a: 2 * r for a, r in rewards.items()}, term, trunc, infos

    monkeypatch.setattr(SwarmParallelEnv, "step", doubled)
    with pytest.raises(AssertionError, match="reward 8.0 but tests_passed went 0 -> 4"):
        harness.check_rewards_and_ends("calc", num_agents=1)


def test_metadata_agents_and_spaces():
    env = swarm_envs.parallel_env("calc", num_agents=3)
    assert env.metadata["name"] == "swarm_calc_v0"
    assert env.metadata["is_parallelizable"] is True
    assert env.possible_agents == ["agent_0", "agent_1", "agent_2"]
    assert env.observation_space("agent_1") is env.observation_space("agent_1")
    obs, infos = env.reset(seed=0)
    assert env.agents == env.possible_agents
    assert all(env.observation_space(a).contains(o) for a, o in obs.items())
    assert all(infos[a]["ready"] for a in env.agents)
    env.close()
    env.close()  # twice-safe


def test_unicode_observations_are_in_the_space():
    env = swarm_envs.parallel_env("calc", num_agents=1)
    env.reset(seed=0)
    content = "naïve — 日本語 🚀\n"
    env.step(
        {"agent_0": {"name": "write_file", "arguments": {"path": "u.txt", "content": content}}}
    )
    obs, *_ = env.step({"agent_0": {"name": "read_file", "arguments": {"path": "u.txt"}}})
    assert content in obs["agent_0"]
    assert env.observation_space("agent_0").contains(obs["agent_0"])
    env.close()
