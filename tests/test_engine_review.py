"""Edge cases of the core engine against the spec: clock, messages, APIs, bad input, confinement.

Each test here once exposed a bug (observations lost by idle agents, crashes on lone
surrogates or huge token counts, stale per-test outcomes, measured-mode `done`, a time
cap leaking into later resets, loose agent names, overlapping edits, half-failed writes).
"""

import os

import gymnasium
import pytest
from conftest import SIMPLE_TIME, TOKEN, call

import swarm_envs

GCD = "def gcd(a, b):\n    a, b = abs(a), abs(b)\n    while b:\n        a, b = b, a % b\n    return a\n"
MEAN = (
    "def mean(values):\n    values = list(values)\n    if not values:\n"
    "        raise ValueError('empty')\n    return sum(values) / len(values)\n"
)
STUB_GCD = "def gcd(a, b):\n    raise NotImplementedError\n"
STUB_MEAN = "def mean(values):\n    raise NotImplementedError\n"


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


def snapshot(root):
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out[os.path.relpath(dirpath, root)] = None
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def step_one(env, action):
    """Single-agent parallel env: one action, returns (obs, reward, info)."""
    obs, rew, _, _, infos = env.step({"agent_0": action})
    return obs["agent_0"], rew["agent_0"], infos["agent_0"]


# --------------------------------------------------------------- AEC form


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


# --------------------------------------------------------------- parallel form


def test_parallel_idle_ready_agent_keeps_its_result(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    read = call("read_file", tokens=1, path="calc/numbers.py")
    obs, *_, infos = env.step({"agent_0": read, "agent_1": read})
    assert infos["agent_1"]["ready"] and "def gcd" in obs["agent_1"]
    obs, *_, infos = env.step({"agent_0": call("list_files", tokens=1)})  # agent_1 thinks on
    assert infos["agent_1"]["ready"] and infos["agent_1"]["time"] == 2.0
    assert "def gcd" in obs["agent_1"]


def test_per_test_is_current_when_the_count_does_not_change(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    _, reward, info = step_one(
        env, call("write_file", tokens=1, path="calc/numbers.py", content=GCD + STUB_MEAN)
    )
    assert reward == 2.0
    _, reward, info = step_one(
        env, call("write_file", tokens=1, path="calc/numbers.py", content=STUB_GCD + MEAN)
    )
    assert reward == 0.0 and info["tests_passed"] == 2
    per = info["per_test"]
    assert per["tests/test_calc.py::TestMean::test_basic"] is True
    assert per["tests/test_calc.py::TestGcd::test_basic"] is False


def test_time_cap_option_applies_to_one_rollout(make_env):
    env = make_env("calc", num_agents=1, time_cap_s=100)
    _, infos = env.reset(seed=0, options={"time_cap": 7})
    assert infos["agent_0"]["time_left"] == 7
    _, infos = env.reset(seed=0)
    assert infos["agent_0"]["time_left"] == 100


def test_message_arriving_during_thinking_ends_the_wait_at_its_start(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    # agent_0's message: sent t=2, delivered t=4; agent_1 thinks 10 s, then waits up to 50 s.
    env.step(
        {
            "agent_0": call("send_message", tokens=1, to="agent_1", text="early"),
            "agent_1": call("wait", tokens=10, seconds=50),
        }
    )
    _, _, _, _, infos = env.step({"agent_0": call("wait", tokens=1, seconds=500)})
    assert infos["agent_1"]["ready"] and infos["agent_1"]["time"] == 10.0
    assert [m["text"] for m in infos["agent_1"]["messages"]] == ["early"]


def test_channel_post_wakes_a_waiting_subscriber(make_env):
    env = make_env("calc", num_agents=3)
    env.reset(seed=0)
    env.step(
        {
            "agent_0": call("post", tokens=3, channel="general", text="news"),  # sent t=4, at t=6
            "agent_1": call("wait", tokens=1),
            "agent_2": call("wait", tokens=1, seconds=30),
        }
    )
    _, _, _, _, infos = env.step({"agent_0": call("wait", tokens=1, seconds=500)})
    for a in ("agent_1", "agent_2"):
        assert infos[a]["ready"] and infos[a]["time"] == 6.0
        assert [m["text"] for m in infos[a]["messages"]] == ["news"]


def test_round_mode_untimed_wait_woken_by_message_inside_the_round(make_env):
    env = make_env("calc", num_agents=2, sync="round")
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {
            "agent_0": call("send_message", tokens=1, to="agent_1", text="go"),  # t=2 -> t=4
            "agent_1": call("wait", tokens=1),
        }
    )
    assert env.episode.now == 4.0
    assert infos["agent_0"]["ready"] and infos["agent_1"]["ready"]
    assert [m["text"] for m in infos["agent_1"]["messages"]] == ["go"]


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
    assert (env.episode.sandbox.root / "x.txt").exists()
    assert not any(trunc.values()) and env.episode.now == 8.0
    _, _, _, trunc, infos = env.step(
        {
            "agent_0": call("write_file", tokens=1, path="y.txt", content="y"),  # ends t=10
            "agent_1": call("list_files", tokens=1),
        }
    )
    assert all(trunc.values()) and infos["agent_0"]["truncation"] == "time_cap"
    assert env.episode.now == cap
    assert not (env.episode.sandbox.root / "y.txt").exists()


def test_observation_is_capped_with_a_marker_and_keeps_status_and_messages(make_env):
    env = make_env("calc", num_agents=2, max_observation_chars=600)
    env.reset(seed=0)
    big = "\n".join(f"line {i} " + "x" * 40 for i in range(200))
    env.step(
        {
            "agent_0": call("write_file", tokens=1, path="big.txt", content=big),
            "agent_1": call("send_message", tokens=1, to="agent_0", text="ping"),  # at t=4
        }
    )
    obs, _, _, _, infos = env.step(
        {
            "agent_0": call("read_file", tokens=3, path="big.txt"),  # observes at t=6
            "agent_1": call("wait", tokens=1, seconds=100),
        }
    )
    o = obs["agent_0"]
    assert infos["agent_0"]["ready"] and infos["agent_0"]["error"] is None
    assert len(o) <= 600
    assert "truncated" in o and "line 0 " in o
    assert "ping" in o and infos["agent_0"]["messages"][0]["text"] == "ping"
    assert o.endswith(env.episode.status_line(env.episode.agents[0]))
    assert env.observation_space("agent_0").contains(o)


def test_ignored_busy_action_costs_no_tokens(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_0": call("list_files", tokens=1), "agent_1": call("list_files", tokens=5)})
    tokens = env.episode.tokens
    _, _, _, _, infos = env.step(
        {"agent_0": call("list_files", tokens=1), "agent_1": call("list_files", tokens=99)}
    )
    assert env.episode.tokens == tokens + TOKEN
    assert infos["agent_1"]["error"] is None


# --------------------------------------------------------------- Gymnasium form


def test_gymnasium_make_done_terminates():
    env = gymnasium.make("swarm/calc-v0", time=SIMPLE_TIME, time_cap_s=100)
    try:
        obs, info = env.reset(seed=0)
        assert isinstance(obs, str) and info["ready"] and info["time_left"] == 100
        obs, reward, term, trunc, info = env.step(call("done", tokens=2))
        assert (term, trunc) == (True, False) and reward == 0.0
        assert info["termination"] == "all_done" and info["time"] == 2.0
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step(call("list_files"))
    finally:
        env.close()


# --------------------------------------------------------------- measured time mode


def test_measured_mode_done_ends_the_episode():
    env = swarm_envs.parallel_env("calc", num_agents=1, time={"measured": True})
    try:
        env.reset(seed=0)
        _, _, term, _, infos = env.step({"agent_0": call("done", tokens=1)})
        assert infos["agent_0"]["done"]
        assert term["agent_0"] and infos["agent_0"]["termination"] == "all_done"
    finally:
        env.close()


# --------------------------------------------------------------- bad input


@pytest.fixture
def solo(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    return env


def expect_error(env, action, fragment=None):
    before = snapshot(env.episode.sandbox.root)
    t0 = env.episode.now
    obs, _, info = step_one(env, action)
    assert info["error"] is not None and obs.startswith("ERROR:")
    if fragment:
        assert fragment in info["error"], info["error"]
    assert snapshot(env.episode.sandbox.root) == before
    assert env.episode.now > t0 and env.agents == ["agent_0"]
    return info


def test_edit_with_lone_surrogate_is_an_error_not_a_crash(solo):
    expect_error(
        solo, call("edit_file", tokens=1, path="calc/numbers.py", old="def gcd", new="\ud800")
    )


@pytest.mark.parametrize("tool", ["read_file", "list_files"])
def test_path_with_lone_surrogate_is_an_error_not_a_crash(solo, tool):
    expect_error(solo, call(tool, tokens=1, path="calc/\ud800.py"))


def test_huge_reported_usage_is_not_a_crash(solo):
    # Usage in action text is ignored, so the report comes from a trusted dict.
    action = {"name": "list_files", "arguments": {}, "usage": {"output_tokens": 10**400}}
    _, _, _, trunc, infos = solo.step({"agent_0": action})
    # Either an error observation, or an action so long that the episode hits its cap.
    assert infos["agent_0"]["error"] is not None or trunc["agent_0"]


def test_dict_action_with_mixed_key_types_is_an_error(solo):
    expect_error(solo, {"name": "list_files", "arguments": {}, 1: 0, "z": 0}, "unexpected")


@pytest.mark.parametrize("name", ["agent_01", "agent_1\n"])
def test_message_to_a_non_agent_name_is_refused(make_env, name):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    _, _, _, _, infos = env.step(
        {
            "agent_0": call("send_message", tokens=1, to=name, text="hi"),
            "agent_1": call("wait", tokens=1, seconds=50),
        }
    )
    assert infos["agent_0"]["error"] is not None and "unknown agent" in infos["agent_0"]["error"]


def test_edit_overlapping_matches_are_ambiguous(solo):
    step_one(solo, call("write_file", tokens=1, path="notes.txt", content="aaa"))
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="aa", new="b"), "2 times")


def test_failed_write_leaves_the_workspace_unchanged(solo):
    expect_error(solo, call("write_file", tokens=1, path="newdir/" + "a" * 300, content="x"))


def test_edit_is_exact_and_reports_conflicts_without_change(solo):
    step_one(solo, call("write_file", tokens=1, path="notes.txt", content="one two one\n"))
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="one", new="1"), "2 times")
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="One", new="1"))
    _, _, info = step_one(solo, call("edit_file", tokens=1, path="notes.txt", old="two", new="2"))
    assert info["error"] is None
    assert (solo.episode.sandbox.root / "notes.txt").read_text() == "one 2 one\n"


# --------------------------------------------------------------- confinement via run_command


def test_links_planted_by_run_command_are_refused(solo):
    cmd = (
        "ln -s /etc/passwd pw && ln -s .. up && ln -s tests tt && "
        "ln calc/numbers.py hard.py && echo planted"
    )
    obs, _, info = step_one(solo, call("run_command", tokens=1, command=cmd))
    assert "planted" in obs, obs
    test_file = (solo.episode.sandbox.root / "tests" / "test_calc.py").read_bytes()
    expect_error(solo, call("read_file", tokens=1, path="pw"), "outside the project")
    expect_error(solo, call("list_files", tokens=1, path="up"), "outside the project")
    expect_error(solo, call("read_file", tokens=1, path="hard.py"), "hard link")
    expect_error(solo, call("edit_file", tokens=1, path="hard.py", old="gcd", new="g"))
    expect_error(solo, call("write_file", tokens=1, path="tt/test_calc.py", content="x"))
    expect_error(solo, call("write_file", tokens=1, path="tt/test_new.py", content="x"))
    assert (solo.episode.sandbox.root / "tests" / "test_calc.py").read_bytes() == test_file


def test_protected_paths_after_normalisation(solo):
    for path in ("calc/../tests/test_calc.py", "./conftest.py", "calc/conftest.py", "tests"):
        expect_error(solo, call("write_file", tokens=1, path=path, content="x"), "protected")
