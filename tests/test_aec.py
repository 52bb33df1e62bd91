"""The AEC form: the agent whose action completes first acts next."""

import pytest
from support.helpers import GCD, STUB_MEAN, TOKEN, call

import swarm_envs
from swarm_envs import checker as harness


def test_aec_selection_follows_completion_times_ties_by_index(make_aec):
    env = make_aec(num_agents=3)
    env.reset(seed=0)
    order = []
    for tokens in (5, 3, 3):  # agent_0 ends t=6, agent_1 and agent_2 at t=4
        order.append(env.agent_selection)
        env.step(call("list_files", tokens=tokens))
    assert order == ["agent_0", "agent_1", "agent_2"]
    assert env.agent_selection == "agent_1"  # t=4, tie with agent_2 broken by index
    assert env.infos["agent_1"]["time"] == 4.0
    env.step(call("list_files", tokens=9))
    assert env.agent_selection == "agent_2" and env.infos["agent_2"]["time"] == 4.0
    env.step(call("list_files", tokens=9))
    assert env.agent_selection == "agent_0" and env.infos["agent_0"]["time"] == 6.0


def test_aec_rewards_earned_while_busy_are_returned_by_last(make_aec):
    env = make_aec(num_agents=2)
    env.reset(seed=0)
    src = GCD + STUB_MEAN  # makes the 2 TestGcd tests pass
    env.step(call("write_file", tokens=1, path="calc/numbers.py", content=src))  # agent_0, t=2
    env.step(call("list_files", tokens=10))  # agent_1 busy until t=11
    assert env.agent_selection == "agent_0"
    _, reward, *_ = env.last()
    assert reward == 2.0
    env.step(call("wait", tokens=1, seconds=100))
    assert env.agent_selection == "agent_1"
    _, reward, _, _, info = env.last()
    assert reward == 2.0  # earned at t=2 while agent_1 was busy
    assert info["tests_passed"] == 2


def test_aec_ready_agent_keeps_its_observation_until_it_acts(make_aec):
    env = make_aec(num_agents=2)
    env.reset(seed=0)
    assert "Task calc" in env.observe("agent_1")
    env.step(call("list_files", tokens=1))  # agent_0 acts; agent_1 is still to act at t=0
    assert env.agent_selection == "agent_1"
    assert "Task calc" in env.observe("agent_1")


def test_aec_message_to_tied_agent_is_delivered(make_aec):
    env = make_aec(num_agents=3)
    env.reset(seed=0)
    env.step(call("send_message", tokens=1, to="agent_2", text="hello"))  # sent t=2, at t=4
    env.step(call("list_files", tokens=4))  # agent_1 ready at t=5
    env.step(call("list_files", tokens=4))  # agent_2 ready at t=5
    assert env.agent_selection == "agent_0"
    env.step(call("wait", tokens=1, seconds=100))
    assert env.agent_selection == "agent_1"
    env.step(call("wait", tokens=1, seconds=100))  # agent_1 acts at t=5 too
    assert env.agent_selection == "agent_2" and env.infos["agent_2"]["time"] == 5.0
    obs, *_, info = env.last()
    assert [m["text"] for m in info["messages"]] == ["hello"]
    assert "hello" in obs


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
        order.append((agent, env.view().time))
        tokens = durations[agent]
        env.step(call("wait", tokens=tokens, seconds=0.5))
    # All start at t=0 in index order; then whoever completes first acts next.
    assert [a for a, _ in order[:3]] == ["agent_0", "agent_1", "agent_2"]
    assert order[3] == ("agent_1", 2.5)
    assert order[4] == ("agent_1", 5.0)  # 2.5 + 2 tokens + 0.5 s: still before agent_2
    assert order[5] == ("agent_2", 5.5)
    env.close()
