"""The checkers users judge an environment by: PettingZoo's and Gymnasium's."""

import gymnasium
import pytest
from conftest import TOKEN, call

import swarm_envs
from swarm_envs import test as harness


@pytest.mark.parametrize("sync", ["event", "round"])
@pytest.mark.parametrize("num_agents", [1, 2, 8])
def test_parallel_api_and_seed(num_agents, sync):
    harness.check_parallel("calc", num_agents, sync)


@pytest.mark.slow
@pytest.mark.parametrize("sync", ["event", "round"])
def test_parallel_api_64_agents(sync):
    harness.check_parallel("calc", 64, sync, cycles=50)


@pytest.mark.parametrize("sync", ["event", "round"])
@pytest.mark.parametrize("num_agents", [1, 2, 8])
def test_aec_api(num_agents, sync):
    harness.check_aec("calc", num_agents, sync)


@pytest.mark.slow
@pytest.mark.parametrize("sync", ["event", "round"])
def test_aec_api_64_agents(sync):
    harness.check_aec("calc", 64, sync, cycles=10)


@pytest.mark.parametrize("sync", ["event", "round"])
def test_gymnasium_check_env(sync):
    harness.check_gymnasium("calc", sync)


def test_gymnasium_make_by_id():
    env = gymnasium.make("swarm_envs:swarm/calc-v0")
    obs, info = env.reset(seed=0)
    assert "Task calc-v0" in obs and info["tests_total"] == 13
    obs, reward, terminated, truncated, info = env.step('{"name": "list_files", "arguments": {}}')
    assert "calc/core.py" in obs and reward == 0 and not terminated and not truncated
    env.close()


def test_gymnasium_rejects_many_agents():
    with pytest.raises(swarm_envs.error.ConfigError, match="num_agents"):
        gymnasium.make("swarm_envs:swarm/calc-v0", num_agents=3)


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


def test_render_ansi_dashboard():
    env = swarm_envs.parallel_env("calc", num_agents=20, render_mode="ansi")
    env.reset(seed=0)
    env.step({"agent_0": '{"name": "list_files", "arguments": {}}'})
    text = env.render()
    assert "calc-v0" in text and "tests [" in text and "agent_0" in text
    assert "8 more agents" in text
    env.close()


@pytest.mark.parametrize("sync", ["event", "round"])
def test_aec_seed(sync):
    from pettingzoo.test import seed_test

    seed_test(
        lambda: swarm_envs.env("calc", num_agents=3, sync=sync, **harness.CHECK_CONFIG),
        num_cycles=20,
    )


def test_aec_order_follows_completion_times():
    env = swarm_envs.raw_env(
        "calc", num_agents=3, time={"output_token_s": 1.0 / TOKEN, "input_token_s": 0.0}
    )
    env.reset(seed=0)
    order = []
    durations = {"agent_0": 9, "agent_1": 2, "agent_2": 5}
    for _ in range(6):
        agent = env.agent_selection
        order.append((agent, env.episode.now))
        tokens = durations[agent]
        env.step(call("wait", tokens=tokens, seconds=0.5))
    # All start at t=0 in index order; then whoever completes first acts next.
    assert [a for a, _ in order[:3]] == ["agent_0", "agent_1", "agent_2"]
    assert order[3] == ("agent_1", 2.5)
    assert order[4] == ("agent_1", 5.0)  # 2.5 + 2 tokens + 0.5 s: still before agent_2
    assert order[5] == ("agent_2", 5.5)
    env.close()


def test_measured_time_mode_uses_wall_time():
    env = swarm_envs.parallel_env(
        "calc", num_agents=1, time={"measured": True, "output_token_s": 0.0, "input_token_s": 0.0}
    )
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {"agent_0": {"name": "run_command", "arguments": {"command": "sleep 0.3"}}}
    )
    assert infos["agent_0"]["ready"]
    assert 0.25 < infos["agent_0"]["time"] < 10.0  # the real duration, not the modelled 3 s
    env.close()


def test_reset_infos_say_which_protections_are_active():
    env = swarm_envs.parallel_env("calc", num_agents=2)
    _, infos = env.reset(seed=0)
    sandbox = infos["agent_0"]["sandbox"]
    assert sandbox["backend"] == "local"
    assert sandbox["protections"]["rlimits"] is True
    env.close()
