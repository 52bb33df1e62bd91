"""Roles in the environment: assignment, introductions, tool whitelists, infos, records."""

import json

import pytest
from support.helpers import call, snapshot

import swarm_envs
from swarm_envs.core.recording import EpisodeHeader
from swarm_envs.core.tools import TOOLS
from swarm_envs.error import ConfigError

REVIEWER_TOOLS = ["read_file", "run_tests", "post"]


def test_roles_are_assigned_in_order_and_reported_in_infos(make_env):
    env = make_env(num_agents=4, roles={"implementer": 3, "reviewer": 1})
    _, infos = env.reset(seed=0)
    assert [infos[a]["role"] for a in env.agents] == ["implementer"] * 3 + ["reviewer"]
    _, _, _, _, infos = env.step({a: call("wait", tokens=1) for a in env.ready_agents})
    assert all(info["role"] for info in infos.values())  # every info carries it, busy or not


def test_fill_takes_the_agents_the_other_roles_leave(make_env):
    env = make_env(num_agents=5, roles={"reviewer": 1, "implementer": "fill", "lead": 1})
    _, infos = env.reset(seed=0)
    roles = [infos[a]["role"] for a in env.agents]
    assert roles == ["reviewer", "implementer", "implementer", "implementer", "lead"]


def test_without_roles_every_agent_is_agent_and_the_intro_is_unchanged(make_env):
    plain = make_env(num_agents=2)
    obs, infos = plain.reset(seed=0)
    assert {i["role"] for i in infos.values()} == {"agent"}
    assert "role" not in obs["agent_0"].split("[t=")[0].lower()
    every_tool = ", ".join(TOOLS)
    assert every_tool in obs["agent_0"]


def test_each_role_reads_its_introduction_and_its_tools(make_env):
    env = make_env(
        num_agents=3,
        roles={"implementer": 2, "reviewer": 1},
        role_intros={"reviewer": "You review: read, run the tests, report on #general."},
        role_tools={"reviewer": REVIEWER_TOOLS},
    )
    obs, _ = env.reset(seed=0)
    assert "Your role: implementer." in obs["agent_0"]
    assert ", ".join(TOOLS) in obs["agent_0"]
    assert "You review: read, run the tests, report on #general." in obs["agent_2"]
    assert "(read_file, run_tests, post, wait, done)" in obs["agent_2"]
    assert "write_file" not in obs["agent_2"]


def test_a_tool_outside_the_whitelist_is_an_error_that_costs_thinking_and_changes_nothing(
    make_env,
):
    env = make_env(
        num_agents=2, roles={"implementer": 1, "reviewer": 1}, role_tools={"reviewer": []}
    )
    env.reset(seed=0)
    before = snapshot(env.view().workspace_root)
    write = call("write_file", tokens=3, path="calc/__init__.py", content="HACKED = 1\n")
    obs, rewards, _, _, infos = env.step(
        {"agent_0": call("wait", tokens=1, seconds=100), "agent_1": write}
    )
    info = infos["agent_1"]
    assert obs["agent_1"].startswith("ERROR: write_file: the reviewer role may not call it")
    assert "your tools: wait, done" in info["error"]
    assert info["time"] == pytest.approx(3.0)  # the thinking time, and no tool time
    assert info["tokens"] == 3 * 2**16
    assert snapshot(env.view().workspace_root) == before
    assert rewards["agent_1"] == 0.0 and env.agents == ["agent_0", "agent_1"]
    # The same call from an implementer runs; a reviewer may still wait and say done.
    env.step({"agent_1": call("done", tokens=1)})
    assert env.view().done == ("agent_1",)


def test_allowed_tools_run_as_usual_for_a_whitelisted_role(make_env):
    env = make_env(
        num_agents=2,
        roles={"implementer": 1, "reviewer": 1},
        role_tools={"reviewer": REVIEWER_TOOLS},
    )
    env.reset(seed=0)
    obs, _, _, _, infos = env.step(
        {
            "agent_0": call("wait", tokens=1, seconds=100),
            "agent_1": call("read_file", tokens=1, path="calc/__init__.py"),
        }
    )
    assert infos["agent_1"]["error"] is None and infos["agent_1"]["tool"] == "read_file"


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"roles": {"implementer": 3, "reviewer": 2}}, "roles={'implementer': 3, 'reviewer': 2}"),
        ({"roles": {"implementer": "fill", "reviewer": 4}}, "leaves none for 'implementer'"),
        ({"roles": {"a": "fill", "b": "fill"}}, "only one role may be 'fill'"),
        ({"roles": {"Reviewer": 4}}, "role name 'Reviewer' is not valid"),
        ({"roles": {"reviewer": 0, "x": 4}}, "roles.reviewer = 0"),
        ({"roles": {"implementer": 4}, "role_tools": {"reviewer": []}}, "unknown role 'reviewer'"),
        ({"role_intros": {"reviewer": "x"}}, "role_intros: unknown role 'reviewer'"),
        (
            {"roles": {"implementer": 3, "reviewer": 1}, "role_tools": {"reviewer": ["rm_rf"]}},
            "role_tools.reviewer: unknown tool 'rm_rf'",
        ),
        (
            {"roles": {"implementer": 3, "reviewer": 1}, "role_tools": {"reviewer": ["read_fil"]}},
            "did you mean 'read_file'?",
        ),
    ],
)
def test_bad_roles_fail_at_construction_naming_the_field(config, fragment):
    with pytest.raises(ConfigError) as e:
        swarm_envs.parallel_env("calc", num_agents=4, **config)
    assert fragment in str(e.value)


def test_the_recording_header_names_each_agents_role(make_env, tmp_path):
    path = tmp_path / "run.jsonl"
    env = make_env(num_agents=2, roles={"implementer": 1, "reviewer": 1}, record_path=str(path))
    env.reset(seed=0)
    env.close()
    header = EpisodeHeader.model_validate_json(path.read_text().splitlines()[0])
    assert header.roles == {"agent_0": "implementer", "agent_1": "reviewer"}
    assert header.config["roles"] == {"implementer": 1, "reviewer": 1}


class _Scripted:
    """Reads the README once, then says done; remembers what it was told."""

    def reset(self, agent_name, task_info):
        self.info, self.acted = task_info, False

    def act(self, observation, info):
        if self.acted:
            return call("done", tokens=1)
        self.acted = True
        return call("write_file", tokens=1, path="notes.txt", content="x")


def test_rollout_trajectories_and_task_info_carry_the_role(make_env):
    env = make_env(
        num_agents=2, roles={"implementer": 1, "reviewer": 1}, role_tools={"reviewer": ["post"]}
    )
    team = [_Scripted(), _Scripted()]
    trajectory = swarm_envs.rollout(env, team, seed=0)
    assert [a.role for a in trajectory.agents] == ["implementer", "reviewer"]
    assert team[0].info.role == "implementer" and team[0].info.tools == list(TOOLS)
    assert team[1].info.tools == ["post", "wait", "done"]
    implementer, reviewer = trajectory.agents
    assert implementer.decisions[0].error is None
    assert "reviewer role may not call it" in reviewer.decisions[0].error
    again = json.loads(trajectory.model_dump_json())
    assert again["agents"][1]["role"] == "reviewer"
