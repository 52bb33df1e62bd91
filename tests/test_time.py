"""The clock through the API: ordering, causality, truncation at the cap, token budget."""

import pytest
from support.helpers import TOKEN, call

import swarm_envs


def test_effects_apply_in_completion_order(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    # agent_1 finishes first (t=2), agent_0 later (t=6): agent_0 sees agent_1's file.
    env.step(
        {
            "agent_0": call("read_file", tokens=5, path="notes.txt"),
            "agent_1": call("write_file", tokens=1, path="notes.txt", content="from agent_1"),
        }
    )
    obs, _, _, _, infos = env.step({"agent_1": call("wait", tokens=1, seconds=100)})
    assert infos["agent_0"]["time"] == 6.0
    assert infos["agent_0"]["error"] is None and "from agent_1" in obs["agent_0"]


def test_no_agent_sees_the_future(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    # agent_0 reads at t=2; agent_1's write completes at t=6, after agent_0's observation.
    _, _, _, _, infos = env.step(
        {
            "agent_0": call("read_file", tokens=1, path="notes.txt"),
            "agent_1": call("write_file", tokens=5, path="notes.txt", content="late"),
        }
    )
    assert infos["agent_0"]["ready"] and infos["agent_0"]["time"] == 2.0
    assert "no such file" in infos["agent_0"]["error"]


def test_step_returns_when_any_agent_ready_and_ignores_busy(make_env):
    env = make_env("calc", num_agents=3)
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {
            "agent_0": call("list_files", tokens=1),
            "agent_1": call("list_files", tokens=3),
            "agent_2": call("list_files", tokens=3),
        }
    )
    assert [infos[a]["ready"] for a in env.agents] == [True, False, False]
    before = env.view().tokens
    _, _, _, _, infos = env.step({"agent_0": call("list_files", tokens=10), "agent_1": "ignored"})
    assert env.view().tokens == before + 10 * TOKEN  # agent_0's; busy agent_1's: ignored
    assert infos["agent_1"]["tool"] == "list_files"  # its own action, not "ignored"
    assert infos["agent_1"]["ready"] and infos["agent_2"]["ready"]
    assert infos["agent_1"]["time"] == infos["agent_2"]["time"] == 4.0


def test_round_mode_is_a_barrier(make_env):
    env = make_env("calc", num_agents=3, sync="round")
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {
            "agent_0": call("list_files", tokens=1),
            "agent_1": call("list_files", tokens=9),
            "agent_2": call("wait", tokens=1),
        }
    )
    assert all(infos[a]["ready"] for a in env.agents)
    assert env.view().time == 10.0


@pytest.mark.parametrize("cap", [10.0, 12.0])
def test_truncation_exactly_at_time_cap(make_env, cap):
    env = make_env("calc", num_agents=1, time_cap_s=cap)
    env.reset(seed=0)
    _, _, _, trunc, infos = env.step({"agent_0": call("list_files", tokens=5)})  # ends t=6
    assert not trunc["agent_0"]
    # This action would complete at t=12: applied when the cap is 12, not when it is 10.
    _, _, _, trunc, infos = env.step(
        {"agent_0": call("write_file", tokens=5, path="x.txt", content="x")}
    )
    if cap == 12.0:
        assert not trunc["agent_0"] and infos["agent_0"]["time"] == 12.0
        assert (env.view().workspace_root / "x.txt").exists()
        _, _, _, trunc, infos = env.step({"agent_0": call("list_files", tokens=1)})
    else:
        assert not (env.view().workspace_root / "x.txt").exists()
    assert trunc["agent_0"] and infos["agent_0"]["truncation"] == "time_cap"
    assert env.view().time == cap
    assert env.agents == []


def test_reset_option_sets_time_cap(make_env):
    env = make_env("calc", num_agents=1, time_cap_s=1000)
    _, infos = env.reset(seed=0, options={"time_cap": 42})
    assert infos["agent_0"]["time_left"] == 42
    obs, infos = env.reset(seed=0, options={"time_cap": 7})
    assert "7.0s left" in obs["agent_0"].splitlines()[-1]  # the status line


def test_bad_time_cap_option(make_env):
    from swarm_envs.error import ConfigError

    env = make_env("calc", num_agents=1)
    with pytest.raises(ConfigError, match="time_cap"):
        env.reset(options={"time_cap": -3})


def test_token_budget_truncates(make_env):
    env = make_env("calc", num_agents=2, token_budget=25 * TOKEN)
    env.reset(seed=0)
    _, _, _, trunc, infos = env.step({a: call("list_files", tokens=10) for a in env.agents})
    assert not any(trunc.values())
    _, _, _, trunc, infos = env.step({a: call("list_files", tokens=10) for a in env.agents})
    assert all(trunc.values()) and infos["agent_0"]["truncation"] == "token_budget"


def test_same_seed_same_actions_same_trajectory(make_env):
    def run():
        env = make_env("calc", num_agents=4)
        env.reset(seed=3)
        out = []
        script = [
            {
                "agent_0": call("list_files"),
                "agent_1": call("post", text="claim: gcd"),
                "agent_2": call("read_file", path="calc/core.py"),
                "agent_3": call("wait", seconds=5),
            },
        ]
        for actions in script * 1:
            out.append(env.step(actions))
        for _ in range(6):
            ready = [a for a in env.agents if out[-1][4][a]["ready"]]
            out.append(
                env.step(
                    {a: call("send_message", to="agent_0", text=f"hi from {a}") for a in ready}
                )
            )
        return out

    a, b = run(), run()
    assert repr(a) == repr(b)


@pytest.mark.parametrize("cap", [8.0, 9.0])
def test_round_mode_cap_applies_actions_completing_exactly_at_it(make_env, cap):
    env = make_env("calc", num_agents=2, sync="round", time_cap_s=cap)
    env.reset(seed=0)
    _, _, _, trunc, infos = env.step(
        {
            "agent_0": call("list_files", tokens=1),
            "agent_1": call("write_file", tokens=7, path="x.txt", content="x"),  # ends t=8
        }
    )
    assert (env.view().workspace_root / "x.txt").exists()
    assert not any(trunc.values()) and env.view().time == 8.0
    _, _, _, trunc, infos = env.step(
        {
            "agent_0": call("write_file", tokens=1, path="y.txt", content="y"),  # ends t=10
            "agent_1": call("list_files", tokens=1),
        }
    )
    assert all(trunc.values()) and infos["agent_0"]["truncation"] == "time_cap"
    assert env.view().time == cap
    assert not (env.view().workspace_root / "y.txt").exists()


def test_measured_mode_done_ends_the_episode():
    env = swarm_envs.parallel_env("calc", num_agents=1, time={"measured": True})
    try:
        env.reset(seed=0)
        _, _, term, _, infos = env.step({"agent_0": call("done", tokens=1)})
        assert infos["agent_0"]["done"]
        assert term["agent_0"] and infos["agent_0"]["termination"] == "all_done"
    finally:
        env.close()


def test_measured_time_mode_uses_wall_time():
    env = swarm_envs.parallel_env(
        "calc", num_agents=1, time={"measured": True, "output_token_s": 0.0, "input_token_s": 0.0}
    )
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {"agent_0": {"name": "run_command", "arguments": {"command": "sleep 0.3"}}}
    )
    # The charged time is the measured duration: at least the 0.3 s the command sleeps,
    # and not the modelled 3 s (how close it is to 0.3 s is a benchmark's business).
    assert infos["agent_0"]["ready"]
    assert infos["agent_0"]["time"] >= 0.3 and infos["agent_0"]["time"] != 3.0
    env.close()
