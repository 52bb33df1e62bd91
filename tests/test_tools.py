"""Every tool, and every kind of bad input, through the public parallel API."""

import json
import os

import pytest
from support.helpers import TOKEN, act, call, snapshot


@pytest.fixture
def env(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    return env


def test_list_and_read(env):
    obs, info = act(env, "agent_0", call("list_files"))
    assert "calc/core.py" in obs and "tests/test_calc.py" in obs
    assert info["error"] is None and info["tool"] == "list_files"
    obs, _ = act(
        env, "agent_0", call("read_file", path="calc/numbers.py", start_line=1, end_line=2)
    )
    assert obs.startswith("1| ") and "2| " in obs and "3| " not in obs


def test_write_edit_and_reward(env):
    src = env.task.solution_files()["calc/numbers.py"].decode()
    obs, rew, *_, infos = env.step(
        {
            "agent_0": call("write_file", path="calc/numbers.py", content=src),
            "agent_1": call("wait"),
        }
    )
    total = rew["agent_0"]
    while not infos["agent_0"]["ready"]:
        obs, rew, term, trunc, infos = env.step({})
        total += rew["agent_0"]
        assert rew["agent_0"] == rew["agent_1"]  # collective
    assert total == 4  # TestGcd and TestMean: 4 tests
    assert infos["agent_0"]["tests_passed"] == 4
    per = infos["agent_0"]["per_test"]
    assert per["tests/test_calc.py::TestGcd::test_basic"] is True
    assert per["tests/test_calc.py::TestTokenize::test_bad_token"] is False


def test_edit_must_match_once(env):
    before = snapshot(env.view().workspace_root)
    obs, info = act(
        env, "agent_0", call("edit_file", path="calc/core.py", old="nothing like this", new="x")
    )
    assert "does not occur" in info["error"] and obs.startswith("ERROR:")
    obs, info = act(env, "agent_0", call("edit_file", path="calc/core.py", old="raise", new="x"))
    assert "occurs 2 times" in info["error"]
    assert snapshot(env.view().workspace_root) == before


def test_concurrent_edits_conflict(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    old = "    raise NotImplementedError('not implemented yet: gcd')\n"
    edit = call("edit_file", tokens=1, path="calc/numbers.py", old=old, new="    return 1\n")
    _, _, _, _, infos = env.step({"agent_0": edit, "agent_1": edit})
    # Equal timing: agent_0 applies first (tie by index), agent_1's edit no longer matches.
    assert infos["agent_0"]["error"] is None
    assert "does not occur" in infos["agent_1"]["error"]


def test_run_tests_selection(env):
    obs, info = act(env, "agent_0", call("run_tests", selection=["tests/test_calc.py::TestGcd"]))
    assert "0 passed, 2 failed (of 2 selected)" in obs
    assert "FAILED tests/test_calc.py::TestGcd::test_basic" in obs
    obs, info = act(env, "agent_0", call("run_tests", selection=["tests/nope.py"]))
    assert "no test matches" in info["error"]


def test_run_command(env):
    obs, info = act(env, "agent_0", call("run_command", command="echo hello && ls calc"))
    assert "hello" in obs and "core.py" in obs and "exit code 0" in obs


@pytest.mark.parametrize(
    "action, expect",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not an object"),
        (json.dumps({"arguments": {}}), "no tool 'name'"),
        (call("teleport"), "unknown tool 'teleport'"),
        (call("read_file"), "missing argument 'path'"),
        (call("read_file", path=3), "argument 'path'"),
        (call("read_file", path="a", colour="red"), "unknown argument 'colour'"),
        (call("read_file", path="../etc/passwd"), "leaves the project root"),
        (call("read_file", path="/etc/passwd"), "is absolute"),
        (call("write_file", path="/tmp/x", content="x"), "is absolute"),
        (call("write_file", path="tests/test_calc.py", content="x"), "protected"),
        (call("write_file", path="conftest.py", content="x"), "protected"),
        (call("edit_file", path="tests/test_calc.py", old="import", new="x"), "protected"),
        (call("read_file", path="missing.py"), "no such file"),
        (call("send_message", to="agent_9", text="hi"), "unknown agent 'agent_9'"),
        (call("send_message", to="bob", text="hi"), "unknown agent 'bob'"),
        (call("post", channel="Bad Channel!", text="hi"), "channel"),
        (call("wait", seconds=-1), "seconds"),
        (12345, "action of type int"),
        ({"name": "read_file", "arguments": "{bad"}, "not valid JSON"),
    ],
)
def test_bad_input_is_an_error_observation(env, action, expect):
    before = snapshot(env.view().workspace_root)
    t0 = env.view().time
    obs, info = act(env, "agent_0", action)
    assert info["error"] is not None and expect in info["error"], info["error"]
    assert obs.startswith("ERROR:")
    assert snapshot(env.view().workspace_root) == before
    assert env.view().time > t0 or env.config.time.output_token_s == 0  # thinking costs
    assert env.agents == ["agent_0", "agent_1"]


def test_symlink_out_is_refused(env):
    root = env.view().workspace_root
    os.symlink("/etc", root / "escape")
    _, info = act(env, "agent_0", call("read_file", path="escape/passwd"))
    assert "outside the project" in info["error"]
    _, info = act(env, "agent_0", call("write_file", path="escape/evil", content="x"))
    assert "outside the project" in info["error"]
    assert not os.path.exists("/etc/evil")


def test_done_and_action_after_done(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    _, _, term, _, infos = env.step(
        {"agent_0": call("done", tokens=1), "agent_1": call("wait", tokens=1, seconds=5)}
    )
    assert infos["agent_0"]["done"] and not term["agent_0"] and not infos["agent_0"]["ready"]
    assert infos["agent_1"]["ready"] and infos["agent_1"]["time"] == 6.0  # nobody else was ready
    _, _, _, _, infos = env.step(
        {"agent_0": call("list_files"), "agent_1": call("list_files", tokens=1)}
    )
    assert "already said done" in infos["agent_0"]["error"]
    assert infos["agent_1"]["ready"] and infos["agent_1"]["time"] == 8.0
    _, _, term, _, infos = env.step({"agent_1": call("done", tokens=1)})
    assert all(term.values()) and infos["agent_1"]["termination"] == "all_done"
    assert env.agents == []


def test_reported_usage_sets_thinking_time(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    obs, info = act(env, "agent_0", call("list_files", tokens=7))
    assert info["time"] == pytest.approx(7.0 + 1.0)  # 7 tokens x 1 s + list_files 1 s
    assert info["tokens"] == 7 * TOKEN
