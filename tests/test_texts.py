"""What agents read is true: test failures, introductions, truncation, edit conflicts."""

from __future__ import annotations

import re

import pytest
from support.helpers import call, step_one


@pytest.mark.parametrize("scorer", ["fast", "subprocess"])
def test_run_tests_failures_show_workspace_paths(make_env, scorer):
    env = make_env("calc", num_agents=1, scorer=scorer)
    env.reset(seed=0)
    obs, _, info = step_one(env, call("run_tests", tokens=1))
    assert "FAILED tests/test_calc.py::" in obs
    assert "calc/core.py:" in obs
    assert "/scoring" not in obs and str(env.view().workspace_root) not in obs
    assert not re.search(r"^\s*/\S+\.py:\d+", obs, re.M), obs  # no absolute path anywhere


def test_a_lone_agent_is_not_told_to_message_teammates(make_env):
    env = make_env("calc", num_agents=1, time_cap_s=600)
    obs, _ = env.reset(seed=0)
    intro = obs["agent_0"]
    assert "You work alone" in intro
    assert not re.search(r"send_message|post|teammate|#general", intro.rsplit("\n", 1)[0])
    assert "virtual time" in intro and "t=600s" in intro and "token" in intro


def test_a_team_intro_names_the_agent_the_team_and_the_cost_of_tokens(make_env):
    env = make_env("calc", num_agents=3, time_cap_s=float("inf"))
    obs, _ = env.reset(seed=0)
    assert "You are agent_1, one of 3 agents" in obs["agent_1"]
    assert (
        "send_message" in obs["agent_1"] and "a file may change after you read it" in obs["agent_1"]
    )
    assert "each token you read or write" in obs["agent_1"] and "no time cap" in obs["agent_1"]


def test_a_cut_file_says_which_lines_to_read(make_env):
    env = make_env("calc", num_agents=1, max_observation_chars=2000)
    env.reset(seed=0)
    text = "".join(f"value_{i} = {i}\n" for i in range(1, 501))
    step_one(env, call("write_file", tokens=1, path="big.py", content=text))
    obs, _, _ = step_one(env, call("read_file", tokens=1, path="big.py"))
    m = re.search(r"read_file with start_line=(\d+), end_line=(\d+) shows them", obs)
    assert m, obs
    start, end = int(m[1]), int(m[2])
    assert f"value_{start - 1} = " in obs and f"value_{start + 1} = " not in obs
    # Following the hint shows the lines that were left out.
    obs, _, _ = step_one(
        env, call("read_file", tokens=1, path="big.py", start_line=start + 1, end_line=start + 3)
    )
    assert f"value_{start + 1} = {start + 1}" in obs and end > start


def test_an_edit_conflict_says_who_changed_the_file_and_when(make_env):
    env = make_env("calc", num_agents=2)  # a file tool takes 1 s, a token unit 1 s
    env.reset(seed=0)
    write = call("write_file", tokens=1, path="notes.py", content="x = 1\n")
    env.step({"agent_0": write, "agent_1": call("list_files", tokens=1)})  # both done at t=2
    # Both edit the line they read; agent_0's edit lands first (t=5), agent_1's at t=9.
    mine = call("edit_file", tokens=2, path="notes.py", old="x = 1", new="x = 2")
    theirs = call("edit_file", tokens=6, path="notes.py", old="x = 1", new="x = 3")
    _, _, _, _, infos = env.step({"agent_0": mine, "agent_1": theirs})
    assert infos["agent_0"]["error"] is None and infos["agent_0"]["time"] == 5.0
    while not infos["agent_1"]["ready"]:
        _, _, _, _, infos = env.step(
            {a: call("wait", tokens=1, seconds=10) for a in env.ready_agents}
        )
    assert "does not occur" in infos["agent_1"]["error"]
    assert "last changed by agent_0, with edit_file at t=5.0s" in infos["agent_1"]["error"]
    obs, _, _, _, infos = env.step(
        {"agent_1": call("edit_file", tokens=1, path="notes.py", old="x = 9", new="")}
    )
    assert "last changed by agent_0" in infos["agent_1"]["error"]
