"""The rollout runner: ready-agent discipline, concurrency, credit, trajectories on disk."""

import asyncio
import json

import pytest
from support.helpers import call

import swarm_envs
from swarm_envs.agents import Agent, TaskInfo
from swarm_envs.agents.rollout import Trajectory
from swarm_envs.agents.scripted import make_team
from swarm_envs.error import ConfigError, Error


class Plan:
    """Plays a fixed list of actions, then says done; records what it was shown."""

    def __init__(self, *actions):
        self.actions = list(actions)
        self.seen: list[tuple[str, dict]] = []
        self.task_info: TaskInfo | None = None

    def reset(self, agent_name, task_info):
        self.name, self.task_info, self.queue = agent_name, task_info, list(self.actions)

    def act(self, observation, info):
        self.seen.append((observation, info))
        return self.queue.pop(0) if self.queue else call("done", tokens=1)


class AsyncPlan(Plan):
    """The same, async, holding each `act` open for a moment to show overlap."""

    in_flight = 0
    max_in_flight = 0

    async def act(self, observation, info):
        cls = type(self)
        cls.in_flight += 1
        cls.max_in_flight = max(cls.max_in_flight, cls.in_flight)
        await asyncio.sleep(0.02)
        cls.in_flight -= 1
        return super().act(observation, info)


class Broken(Plan):
    def __init__(self, *actions, after=0, where="act"):
        super().__init__(*actions)
        self.after, self.where = after, where

    def reset(self, agent_name, task_info):
        if self.where == "reset":
            raise RuntimeError("no model today")
        super().reset(agent_name, task_info)

    def act(self, observation, info):
        if len(self.seen) >= self.after:
            raise RuntimeError("server melted")
        return super().act(observation, info)


@pytest.fixture
def calc_env(make_env):
    return lambda num_agents=2, **config: make_env("calc", num_agents, **config)


def solution(env, path):
    return env.task.solution_files()[path].decode()


def write(env, path, tokens=1):
    return call("write_file", tokens=tokens, path=path, content=solution(env, path))


# ------------------------------------------------------------------ discipline


def test_only_ready_agents_are_asked_and_every_ready_agent_is(calc_env):
    env = calc_env(2)
    slow = Plan(call("list_files", tokens=20), call("list_files", tokens=20))
    fast = Plan(*[call("list_files", tokens=1)] * 6)
    trajectory = swarm_envs.rollout(env, [slow, fast], seed=0)
    assert all(info["ready"] for agent in (slow, fast) for _, info in agent.seen)
    times = {a.name: [d.time for d in a.decisions] for a in trajectory.agents}
    # slow decides at 0, 21, 42; fast every 2 s; each asked exactly when it was ready.
    assert times["agent_0"] == [0.0, 21.0, 42.0]
    assert times["agent_1"][:7] == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    assert len(times["agent_1"]) == 7  # six list_files and its done


def test_task_info_reaches_reset(calc_env):
    env = calc_env(3, time_cap_s=500)
    team = [Plan() for _ in range(3)]
    swarm_envs.rollout(env, team, seed=0)
    info = team[1].task_info
    assert team[1].name == "agent_1" and info.agent_names == ["agent_0", "agent_1", "agent_2"]
    assert info.task == "calc-v0" and info.time_cap_s == 500 and info.tests_total == 13
    assert "calculator" in info.description and info.intro in team[1].seen[0][0]
    assert isinstance(team[1], Agent)


def test_async_agents_are_asked_concurrently(calc_env):
    AsyncPlan.max_in_flight = 0
    env = calc_env(8)
    team = [AsyncPlan(call("list_files", tokens=1)) for _ in range(8)]
    trajectory = swarm_envs.rollout(env, team, seed=0)
    assert AsyncPlan.max_in_flight == 8  # all eight ready agents at once, not one by one
    assert trajectory.end_reason == "all_done"


def test_sync_and_async_agents_mix(calc_env):
    env = calc_env(2)
    trajectory = swarm_envs.rollout(
        env, {"agent_1": AsyncPlan(), "agent_0": Plan(call("list_files", tokens=1))}, seed=0
    )
    assert [len(a.decisions) for a in trajectory.agents] == [2, 1]


@pytest.mark.parametrize("strategy", ["none", "claim", "leader"])
def test_scripted_teams_follow_the_protocol(make_env, strategy):
    env = make_env("calc", 3, time={})
    team = make_team(env.task, 3, strategy, seed=0)
    for seed in (0, 1):  # reset() makes a team reusable
        trajectory = swarm_envs.rollout(env, team, seed=seed)
        assert trajectory.end_reason == "all_tests_pass"
        assert trajectory.collective_return == 13
        assert all(a.episode_return == 13 for a in trajectory.agents if a.decisions)


# ------------------------------------------------------------------ credit assignment


def test_reward_is_credited_from_each_decision_until_the_agents_next_one(calc_env, monkeypatch):
    env = calc_env(2)
    rewards = []
    step = env.step

    def logged(actions):
        out = step(actions)
        rewards.append(next(iter(out[1].values())))
        return out

    monkeypatch.setattr(env, "step", logged)
    writer = Plan(
        write(env, "calc/numbers.py"),  # gcd and mean pass at t=2
        call("list_files", tokens=5),
        write(env, "calc/core.py"),  # the rest pass: the episode ends
    )
    # The waiter decides at t=0 and t=1, then waits past the end of the episode.
    waiter = Plan(call("list_files", tokens=0), call("wait", tokens=1, seconds=1000))
    trajectory = swarm_envs.rollout(env, [writer, waiter], seed=0)

    assert trajectory.end_reason == "all_tests_pass"
    assert trajectory.collective_return == 13 == sum(rewards)
    assert sum(r > 0 for r in rewards) == 2  # two separate rescoring events
    for agent in trajectory.agents:
        steps = [d.step for d in agent.decisions] + [len(rewards)]
        expected = [sum(rewards[a:b]) for a, b in zip(steps, steps[1:], strict=False)]
        assert [d.reward for d in agent.decisions] == expected
        assert agent.episode_return == trajectory.collective_return
    last = trajectory.agent("agent_1").decisions[-1]
    # The end reaches its last decision, a wait that was still running at the end.
    assert json.loads(last.action)["name"] == "wait" and last.tool is None
    assert last.reward == 13


def test_decisions_record_the_cost_and_the_outcome(calc_env):
    env = calc_env(1)
    bad = '{"name": "read_file", "arguments": {"path": 3}}'
    trajectory = swarm_envs.rollout(env, [Plan(call("list_files", tokens=2), bad)], seed=0)
    first, second, done = trajectory.agents[0].decisions
    assert first.tool == "list_files" and first.error is None
    assert first.usage.output_tokens == 2 * 2**16 and first.tokens == 2 * 2**16
    assert second.tool == "invalid" and "path" in second.error and second.usage is None
    assert second.tokens > 0  # estimated from the text
    assert done.tool == "done"
    assert trajectory.tokens == sum(d.tokens for d in trajectory.agents[0].decisions)


# ------------------------------------------------------------------ failures


@pytest.mark.parametrize("where", ["reset", "act"])
def test_a_failing_agent_is_recorded_and_the_rest_goes_on(calc_env, where):
    env = calc_env(2)
    broken = Broken(call("list_files", tokens=1), after=1, where=where)
    trajectory = swarm_envs.rollout(env, [broken, Plan(write(env, "calc/numbers.py"))], seed=0)
    out = trajectory.agent("agent_0")
    assert out.end_reason == "agent_error" and "RuntimeError" in out.error
    assert len(out.decisions) == (0 if where == "reset" else 1)
    assert trajectory.agent("agent_1").end_reason is None
    assert trajectory.tests_passed == 4  # the other agent's work counted


def test_act_timeout_is_an_agent_error(calc_env):
    class Hangs(Plan):
        async def act(self, observation, info):
            await asyncio.sleep(30)

    env = calc_env(2)
    trajectory = swarm_envs.rollout(env, [Hangs(), Plan()], seed=0, act_timeout_s=0.05)
    assert "act_timeout_s" in trajectory.agent("agent_0").error
    assert trajectory.end_reason == "all_done"


def test_bad_team_is_a_config_error(calc_env):
    env = calc_env(2)
    with pytest.raises(ConfigError, match="1 agents for 2"):
        swarm_envs.rollout(env, [Plan()])
    with pytest.raises(ConfigError, match="missing \\['agent_1'\\], unknown \\['agent_7'\\]"):
        swarm_envs.rollout(env, {"agent_0": Plan(), "agent_7": Plan()})
    with pytest.raises(ConfigError, match="no reset"):
        swarm_envs.rollout(env, [Plan(), object()])


def test_rollout_inside_an_event_loop_points_to_arollout(calc_env):
    env = calc_env(1)

    async def main():
        with pytest.raises(Error, match="arollout"):
            swarm_envs.rollout(env, [Plan()])
        return await swarm_envs.arollout(env, [Plan()], seed=0)

    assert asyncio.run(main()).end_reason == "all_done"


def test_max_steps_stops_the_rollout(calc_env):
    env = calc_env(1)
    trajectory = swarm_envs.rollout(env, [Plan(*[call("list_files", tokens=1)] * 9)], max_steps=3)
    assert trajectory.steps == 3 and (trajectory.end, trajectory.end_reason) == (
        "truncated",
        "max_steps",
    )


# ------------------------------------------------------------------ wall-clock mode


def test_wall_clock_mode_thinks_for_the_agents_real_time(calc_env):
    class Slow(Plan):
        async def act(self, observation, info):
            await asyncio.sleep(0.05)
            return super().act(observation, info)

    env = calc_env(1, time={"measured": True})
    slow = Slow({"name": "wait", "arguments": {"seconds": 0.001}})
    trajectory = swarm_envs.rollout(env, [slow], seed=0)
    first, second = trajectory.agents[0].decisions
    assert first.latency_s >= 0.05
    # Virtual time moved by the measured answer time (plus the wait), not by tokens.
    assert second.time == pytest.approx(first.latency_s + 0.001)


# ------------------------------------------------------------------ on disk


def test_trajectories_round_trip_through_json_lines(calc_env, tmp_path):
    env = calc_env(2)
    path = tmp_path / "rollouts.jsonl"
    sdk_like = swarm_envs.Action(
        tool_call={"type": "function", "function": {"name": "list_files", "arguments": "{}"}},
        usage={"prompt_tokens": 10, "completion_tokens": 90},
        meta={"token_ids": [1, 2, 3], "logprobs": [-0.5, -0.1, -2.0]},
    )
    team = [Plan(sdk_like, write(env, "calc/numbers.py")), Plan("not json")]
    first = swarm_envs.rollout(env, team, seed=0, save_to=path)
    second = swarm_envs.rollout(env, team, seed=1, save_to=path)
    loaded = Trajectory.load(path)
    assert loaded == [first, second]
    assert len(path.read_text().splitlines()) == 2
    d = loaded[0].agent("agent_0").decisions[0]
    assert d.meta["logprobs"] == [-0.5, -0.1, -2.0] and d.usage.input_tokens == 10
    assert json.loads(path.read_text().splitlines()[0])["agents"][1]["decisions"][0]["action"] == (
        "not json"
    )


def test_loading_a_broken_line_names_it(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task": "calc-v0"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1: not a trajectory"):
        Trajectory.load(path)
