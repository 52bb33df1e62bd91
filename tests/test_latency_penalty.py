"""The latency penalty: reward minus a price per virtual second, once per step.

Through the public API: a scripted team's rollout, fixed actions stepped by hand, and
the Gymnasium form. The return must be the true change in passing tests minus the
penalty times the episode's virtual duration, with the two parts in the infos.
"""

import math

import gymnasium
import pytest
from support.helpers import SIMPLE_TIME, KeptScorers, call, step_one

import swarm_envs
from swarm_envs.agents.scripted import make_team
from swarm_envs.error import ConfigError
from swarm_envs.scoring.keys import shared_entries


def rollout(n, **config):
    env = swarm_envs.parallel_env("calc", num_agents=n, **config)
    try:
        return swarm_envs.rollout(env, make_team(env.task, n, "claim", seed=0), seed=0)
    finally:
        env.close()


@pytest.mark.parametrize("n", [1, 3])
def test_the_return_is_the_tests_gained_minus_the_penalty_for_the_time_taken(n):
    penalty = 0.05
    trajectory = rollout(n, latency_penalty_per_s=penalty)
    gained = trajectory.tests_passed - trajectory.tests_passed_start
    assert trajectory.end_reason == "all_tests_pass" and gained == 13
    # duration_s is the episode's virtual time (the time model's, deterministic), not a
    # measurement: long enough for the penalty to weigh.
    assert trajectory.duration_s > 20
    assert trajectory.collective_return == pytest.approx(gained - penalty * trajectory.duration_s)
    # Every reward reaches every agent's trajectory once.
    for agent in trajectory.agents:
        assert agent.episode_return == pytest.approx(trajectory.collective_return)


@pytest.mark.slow
def test_without_a_penalty_nothing_changes():
    plain, zero = rollout(3), rollout(3, latency_penalty_per_s=0.0)
    assert plain.collective_return == zero.collective_return == 13
    assert plain.duration_s == zero.duration_s  # virtual seconds: the same episode
    assert [d.reward for a in plain.agents for d in a.decisions] == [
        d.reward for a in zero.agents for d in a.decisions
    ]


def test_each_step_records_both_parts_and_a_cut_episode_pays_up_to_the_cap():
    penalty, cap = 0.5, 30.0
    env = swarm_envs.parallel_env(
        "calc", num_agents=2, time=SIMPLE_TIME, time_cap_s=cap, latency_penalty_per_s=penalty
    )
    _, infos = env.reset(seed=0)
    assert "latency_penalty" not in infos["agent_0"]  # no step yet
    total, tests, paid, steps = 0.0, 0.0, 0.0, 0
    while env.agents:
        ready = [a for a in env.agents if infos[a]["ready"]]
        actions = {a: call("wait", tokens=4, seconds=7.0) for a in ready}
        _, rewards, _, truncated, infos = env.step(actions)
        parts = infos["agent_0"]
        reward = rewards.get("agent_0", 0.0)
        assert reward == pytest.approx(parts["tests_reward"] - parts["latency_penalty"])
        total += reward
        tests += parts["tests_reward"]
        paid += parts["latency_penalty"]
        steps += 1
    env.close()
    assert all(truncated.values()) and infos["agent_0"]["truncation"] == "time_cap"
    assert steps > 1 and tests == 0
    assert paid == pytest.approx(penalty * cap)
    assert total == pytest.approx(-penalty * cap)
    assert infos["agent_0"]["swarm_episode"]["r"] == pytest.approx(total)


def test_the_final_recount_corrects_the_tests_part_and_keeps_the_penalty(make_env):
    # A forged cache entry (as in test_final_recount) says calc's gcd tests pass; the
    # fresh final count takes that credit back, and the penalty stays as it was paid.
    penalty = 0.1
    scorers = KeptScorers()
    env = make_env("calc", num_agents=1, latency_penalty_per_s=penalty, scorer_factory=scorers)
    _, infos = env.reset(seed=0)
    start = infos["agent_0"]["tests_passed"]

    def write(n):  # an edit no test can reach
        return call("write_file", tokens=1, path="notes.py", content=f"X = {n}\n")

    step_one(env, write(1))  # the starting state's cache entries are made
    lock, entries = shared_entries(scorers.last.collection)
    try:
        with lock:
            for per_file in entries.values():
                for entry in per_file:
                    entry.results.update({t: (True, "") for t in entry.results if "Gcd" in t})
        _, forged, _ = step_one(env, write(2))
        _, last, _, _, infos = env.step({"agent_0": call("done", tokens=1, summary="x")})
    finally:
        with lock:
            entries.clear()  # no other test may see them
    info = infos["agent_0"]
    assert forged > 0 and env.view().recount is not None  # it was corrected
    assert last["agent_0"] < -forged  # the credit taken back, and the last step's penalty
    assert info["tests_passed"] == start and info["time"] >= 5
    assert info["swarm_episode"]["r"] == pytest.approx((start - start) - penalty * info["time"])


def test_the_gymnasium_form_pays_the_penalty_too():
    env = gymnasium.make(
        "swarm/calc-v0", time=SIMPLE_TIME, time_cap_s=100, latency_penalty_per_s=0.25
    )
    try:
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(call("done", tokens=2))
        assert terminated and reward == pytest.approx(-0.5)
        assert (info["latency_penalty"], info["tests_reward"]) == (pytest.approx(0.5), 0.0)
    finally:
        env.close()


@pytest.mark.parametrize("bad", [-0.1, math.inf, math.nan])
def test_an_invalid_penalty_names_the_field(bad):
    with pytest.raises(ConfigError, match="latency_penalty_per_s"):
        swarm_envs.parallel_env("calc", latency_penalty_per_s=bad)
