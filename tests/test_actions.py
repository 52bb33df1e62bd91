"""Actions: parsing, the tool table every part reads, the exported schemas."""

import json

import pytest
from support.helpers import TOKEN, KeptScorers, act, call, expect_error

import swarm_envs
from swarm_envs.core.actions import ToolCall, estimate_tokens, parse_action, tool_schemas
from swarm_envs.core.config import EnvConfig
from swarm_envs.core.tools import TOOLS, ReadFile
from swarm_envs.error import ActionError


def test_one_table_for_schemas_config_and_the_intro(make_env):
    names = list(TOOLS)
    assert [s["function"]["name"] for s in tool_schemas()] == names
    assert list(EnvConfig().time.tool_s) == names
    assert {n: t.cost_s for n, t in TOOLS.items()} == EnvConfig().time.tool_s
    env = make_env("calc", num_agents=2)
    obs, _ = env.reset(seed=0)
    assert obs["agent_0"].split("per action (", 1)[1].startswith(", ".join(names) + ").")


def test_schemas_are_openai_function_tools():
    for schema in tool_schemas():
        assert schema["type"] == "function"
        fn = schema["function"]
        assert fn["description"] and "\n" not in fn["description"]
        params = fn["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert "title" not in params
        assert all("title" not in p for p in params.get("properties", {}).values())
    read = next(s["function"] for s in tool_schemas() if s["function"]["name"] == "read_file")
    assert read["parameters"]["required"] == ["path"]


@pytest.mark.parametrize(
    "action",
    [
        call("read_file", path="a.py", start_line=2),
        {"name": "read_file", "arguments": {"path": "a.py", "start_line": 2}},
        {"name": "read_file", "arguments": json.dumps({"path": "a.py", "start_line": 2})},
        {
            "type": "function",
            "id": "call_1",
            "function": {"name": "read_file", "arguments": '{"path": "a.py", "start_line": 2}'},
        },
        ToolCall(name="read_file", arguments={"path": "a.py", "start_line": 2}),
        call("read_file", path="a.py", start_line=2).encode(),
    ],
)
def test_every_accepted_shape_parses_to_the_same_call(action):
    tool, args, usage, chars = parse_action(action)
    assert tool == "read_file" and args == ReadFile(path="a.py", start_line=2)
    assert usage is None and chars > 0


def test_usage_is_validated_and_reported():
    _, _, usage, _ = parse_action(call("list_files", tokens=7))
    assert (usage.output_tokens, usage.input_tokens) == (7 * TOKEN, 0)
    with pytest.raises(ActionError, match=r"bad 'usage': field 'output_tokens' = -1"):
        parse_action({"name": "list_files", "usage": {"output_tokens": -1}})


@pytest.mark.parametrize(
    "action, message",
    [
        (call("read_file"), "read_file: missing argument 'path' (expected arguments: path, "),
        (call("read_file", path="a", colour=1), "unknown argument 'colour'"),
        (call("read_file", path=3), "argument 'path': Input should be a valid string"),
        (call("wait", seconds=-1), "argument 'seconds': Input should be greater than 0"),
        (call("lisst_files"), "unknown tool 'lisst_files' (did you mean 'list_files'?)"),
        (call("done", summary="x" * 300), None),
    ],
)
def test_argument_errors_name_the_argument(action, message):
    if message is None:
        assert parse_action(action)[0] == "done"
        return
    with pytest.raises(ActionError) as e:
        parse_action(action)
    assert message in str(e.value)


def test_huge_argument_values_are_not_repeated_in_errors():
    with pytest.raises(ActionError) as e:
        parse_action({"name": "write_file", "arguments": {"path": ["x" * 10_000], "content": ""}})
    assert len(str(e.value)) < 500


def test_token_estimate():
    assert [estimate_tokens(n) for n in (0, 1, 4, 5)] == [0, 1, 1, 2]


def test_a_write_tool_marks_the_workspace_for_scoring_and_a_read_does_not(make_env):
    assert {n for n, t in TOOLS.items() if t.writes} == {"write_file", "edit_file", "run_command"}
    runs = []  # the scorer's evaluations of the whole workspace (the per-step count)

    def count(scorer):
        evaluate = scorer.evaluate

        def spy(selection=None, **kwargs):
            if selection is None and kwargs.get("held_out") and not kwargs.get("fresh"):
                runs.append(1)
            return evaluate(selection, **kwargs)

        scorer.evaluate = spy

    env = make_env("calc", num_agents=1, scorer_factory=KeptScorers(on_make=count))
    env.reset(seed=0)
    started = len(runs)  # the starting state's count
    env.step({"agent_0": call("read_file", tokens=1, path="calc/core.py")})
    assert len(runs) == started  # nothing to rescore
    env.step({"agent_0": call("write_file", tokens=1, path="notes.txt", content="x")})
    assert len(runs) == started + 1


def test_tools_are_exported_at_the_top_level():
    assert swarm_envs.tool_schemas() == tool_schemas()
    assert swarm_envs.ToolCall is ToolCall


def test_huge_reported_usage_is_not_a_crash(solo):
    # Usage in action text is ignored, so the report comes from a trusted dict.
    action = {"name": "list_files", "arguments": {}, "usage": {"output_tokens": 10**400}}
    _, _, _, trunc, infos = solo.step({"agent_0": action})
    # Either an error observation, or an action so long that the episode hits its cap.
    assert infos["agent_0"]["error"] is not None or trunc["agent_0"]


def test_dict_action_with_mixed_key_types_is_an_error(solo):
    expect_error(solo, {"name": "list_files", "arguments": {}, 1: 0, "z": 0}, "unexpected")


def test_action_forms_are_equivalent(make_env):
    results = []
    forms = [
        call("read_file", path="calc/numbers.py"),
        {"name": "read_file", "arguments": {"path": "calc/numbers.py"}},
        {
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "calc/numbers.py"}'},
        },
        ToolCall(name="read_file", arguments={"path": "calc/numbers.py"}),
    ]
    for form in forms:
        env = make_env("calc", num_agents=1)
        env.reset(seed=0)
        obs, info = act(env, "agent_0", form)
        assert info["error"] is None
        results.append(obs.split("[t=")[0])
    assert len(set(results)) == 1


def test_tool_schemas_openai_shape():
    schemas = swarm_envs.tool_schemas()
    names = [s["function"]["name"] for s in schemas]
    assert names == [
        "list_files",
        "read_file",
        "write_file",
        "edit_file",
        "run_tests",
        "run_command",
        "send_message",
        "post",
        "subscribe",
        "wait",
        "done",
    ]
    for s in schemas:
        assert s["type"] == "function"
        params = s["function"]["parameters"]
        assert params["type"] == "object" and "properties" in params
        assert s["function"]["description"]
    edit = next(s for s in schemas if s["function"]["name"] == "edit_file")
    assert set(edit["function"]["parameters"]["required"]) == {"path", "old", "new"}
