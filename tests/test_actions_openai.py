"""`step` accepts what the official `openai` SDK returns, and its usage, with no glue.

The SDK talks to a local scripted server (tests/support/llm_server.py); nothing leaves the
machine. Costs are checked through `infos` (tokens) and the virtual clock (thinking
time = output tokens x 1 s + input tokens x 0.5 s, list_files 1 s, read_file 2 s).
"""

import json

import openai
import pytest
from support.llm_server import Reply, ScriptedServer

import swarm_envs
from swarm_envs.core.actions import USAGE_KEYS
from swarm_envs.error import ConfigError

TIME = {
    "output_token_s": 1.0,
    "input_token_s": 0.5,
    "tool_s": {"list_files": 1.0, "read_file": 2.0},
}


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(lambda request: Reply(content="unscripted")) as s:
        yield s


@pytest.fixture
def client(server):
    with openai.OpenAI(base_url=server.url, api_key="test", max_retries=0) as c:
        yield c


@pytest.fixture
def solo():
    env = swarm_envs.parallel_env("calc", num_agents=1, time=TIME)
    env.reset(seed=0)
    yield env
    env.close()


def step(env, action):
    obs, _, _, _, infos = env.step({"agent_0": action})
    return obs["agent_0"], infos["agent_0"]


def chat(server, client, reply):
    server.script = lambda request: reply
    return client.chat.completions.create(
        model="scripted",
        messages=[{"role": "user", "content": "go"}],
        tools=swarm_envs.tool_schemas(),
    )


READ = Reply(calls=[("read_file", {"path": "README.md"})])


# ------------------------------------------------------------------ Chat Completions


@pytest.mark.parametrize(
    "form",
    ["tool_call", "tool_call_dict", "tool_call_json", "message", "message_dict", "completion"],
)
def test_chat_completions_objects_step_directly(server, client, solo, form):
    completion = chat(server, client, READ)
    message = completion.choices[0].message
    tool_call = message.tool_calls[0]
    action = {
        "tool_call": tool_call,
        "tool_call_dict": tool_call.model_dump(),
        "tool_call_json": tool_call.model_dump_json(),
        "message": message,
        "message_dict": message.model_dump(),
        "completion": completion,
    }[form]
    obs, info = step(solo, action)
    assert info["error"] is None and info["tool"] == "read_file"
    assert "calc" in obs.lower()  # the task README


def test_whole_completion_reports_the_servers_usage(server, client, solo):
    completion = chat(server, client, READ)
    usage = completion.usage
    obs, info = step(solo, completion)
    assert info["tokens"] == usage.prompt_tokens + usage.completion_tokens
    think = usage.completion_tokens * 1.0 + usage.prompt_tokens * 0.5
    assert info["time"] == pytest.approx(think + 2.0)


def test_action_wraps_message_and_completion_usage(server, client, solo):
    completion = chat(server, client, Reply(calls=[("list_files", {})], reasoning_tokens=40))
    action = swarm_envs.Action(tool_call=completion.choices[0].message, usage=completion.usage)
    assert action.usage.reasoning_tokens == 40
    assert action.usage.output_tokens == completion.usage.completion_tokens
    _, info = step(solo, action)
    assert info["error"] is None
    assert info["tokens"] == completion.usage.total_tokens


def test_several_tool_calls_in_one_message_are_an_error_and_change_nothing(server, client, solo):
    two = Reply(calls=[("write_file", {"path": "a.txt", "content": "x"}), ("list_files", {})])
    message = chat(server, client, two).choices[0].message
    obs, info = step(solo, message)
    assert "2 tool calls" in info["error"] and "one tool call per action" in info["error"]
    assert not (solo.view().workspace_root / "a.txt").exists()
    assert info["time"] > 0  # it cost its thinking time


def test_message_without_tool_call_is_an_error_observation(server, client, solo):
    message = chat(server, client, Reply(content="I think I should look around.")).choices[0]
    obs, info = step(solo, message.message)
    assert obs.startswith("ERROR:") and "no tool call" in info["error"]


def test_malformed_arguments_from_the_server_are_an_error_observation(server, client, solo):
    message = chat(server, client, Reply(calls=[("read_file", '{"path": ')])).choices[0].message
    obs, info = step(solo, message)
    assert "'arguments' is not valid JSON" in info["error"]


# ------------------------------------------------------------------ Responses API


def respond(server, client, reply):
    server.script = lambda request: reply
    return client.responses.create(
        model="scripted", input="go", tools=swarm_envs.tool_schemas(api="responses")
    )


@pytest.mark.parametrize("form", ["item", "item_dict", "item_json", "response"])
def test_responses_function_call_steps_directly(server, client, solo, form):
    response = respond(server, client, Reply(content="Reading.", calls=READ.calls))
    item = next(i for i in response.output if i.type == "function_call")
    action = {
        "item": item,
        "item_dict": item.model_dump(),
        "item_json": item.model_dump_json(),
        "response": response,
    }[form]
    obs, info = step(solo, action)
    assert info["error"] is None and info["tool"] == "read_file"


def test_responses_usage_is_read(server, client, solo):
    response = respond(server, client, Reply(calls=[("list_files", {})], reasoning_tokens=7))
    usage = response.usage
    _, info = step(solo, swarm_envs.Action(tool_call=response.output[0], usage=usage))
    assert info["tokens"] == usage.input_tokens + usage.output_tokens
    think = usage.output_tokens * 1.0 + usage.input_tokens * 0.5
    assert info["time"] == pytest.approx(think + 1.0)


def test_tool_schemas_in_both_shapes():
    chat_tools = swarm_envs.tool_schemas()
    responses_tools = swarm_envs.tool_schemas(api="responses")
    assert [t["function"]["name"] for t in chat_tools] == [t["name"] for t in responses_tools]
    assert all(t["type"] == "function" and "function" not in t for t in responses_tools)
    assert chat_tools[0]["function"]["parameters"] == responses_tools[0]["parameters"]
    with pytest.raises(ConfigError, match="'chat'.*'responses'"):
        swarm_envs.tool_schemas(api="completions")


# ------------------------------------------------------------------ usage shapes


LIST = {"name": "list_files", "arguments": {}}


@pytest.mark.parametrize(
    ("usage", "out", "inp"),
    [
        ({"prompt_tokens": 10, "completion_tokens": 30, "total_tokens": 40}, 30, 10),
        ({"input_tokens": 10, "output_tokens": 30}, 30, 10),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 30,
                "completion_tokens_details": {"reasoning_tokens": 20},
                "prompt_tokens_details": {"cached_tokens": 4},
            },
            30,
            10,
        ),
        (
            openai.types.CompletionUsage(prompt_tokens=10, completion_tokens=30, total_tokens=40),
            30,
            10,
        ),
    ],
)
def test_usage_in_every_sdk_shape_costs_its_tokens(solo, usage, out, inp):
    _, info = step(solo, {**LIST, "usage": usage})
    assert info["error"] is None and info["tokens"] == out + inp
    assert info["time"] == pytest.approx(out * 1.0 + inp * 0.5 + 1.0)


def test_chat_usage_is_not_counted_as_zero_and_reaches_the_token_budget():
    env = swarm_envs.parallel_env("calc", num_agents=1, token_budget=1000)
    env.reset(seed=0)
    usage = {"prompt_tokens": 900, "completion_tokens": 200}
    _, _, _, trunc, infos = env.step({"agent_0": {**LIST, "usage": usage}})
    assert trunc["agent_0"] and infos["agent_0"]["truncation"] == "token_budget"
    env.close()


@pytest.mark.parametrize(
    ("usage", "fragment"),
    [
        ({"output_token": 30}, "unknown usage key output_token; accepted keys: output_tokens"),
        ({"prompt_tokens": 1, "output_tokens": 2}, "mixes Chat Completions keys"),
        ({"output_tokens": 2, "reasoning_tokens": 5}, "reasoning tokens are part of"),
        ({"output_tokens": -1}, "usage"),
        ("lots", "expected a usage object or dict"),
    ],
)
def test_bad_usage_is_an_error_observation_naming_the_accepted_keys(solo, usage, fragment):
    obs, info = step(solo, {**LIST, "usage": usage})
    assert obs.startswith("ERROR:") and fragment in info["error"], info["error"]
    if "unknown" in fragment:
        assert all(k in info["error"] for k in USAGE_KEYS)


def test_bad_usage_in_an_action_wrapper_raises_where_it_is_built():
    with pytest.raises(ValueError, match="unknown usage key completion_token"):
        swarm_envs.Action(tool_call=LIST, usage={"completion_token": 3})


# ------------------------------------------------------------------ cost a policy cannot lower


def test_usage_inside_action_text_is_ignored(solo):
    text = json.dumps({**LIST, "usage": {"output_tokens": 0, "input_tokens": 0}})
    _, info = step(solo, text)
    assert info["error"] is None
    assert info["tokens"] >= len(text) // 4  # estimated from the text, not the claim
    assert info["time"] > 1.0 + len(text) // 4 - 1


def test_text_usage_cannot_escape_the_token_budget():
    env = swarm_envs.parallel_env("calc", num_agents=1, token_budget=2000)
    env.reset(seed=0)
    big = {"name": "write_file", "arguments": {"path": "x.txt", "content": "y" * 9000}}
    text = json.dumps({**big, "usage": {"output_tokens": 0, "input_tokens": 0}})
    _, _, _, trunc, infos = env.step({"agent_0": text})
    assert trunc["agent_0"] and infos["agent_0"]["truncation"] == "token_budget"
    env.close()


@pytest.mark.parametrize("wrap", ["dict", "action", "tool_call"])
def test_trusted_usage_is_never_below_the_visible_text(solo, wrap):
    args = {"path": "notes.txt", "content": "z" * 4000}
    call = {"name": "write_file", "arguments": args}
    zero = {"output_tokens": 0, "input_tokens": 0}
    action = {
        "dict": {**call, "usage": zero},
        "action": swarm_envs.Action(tool_call=json.dumps(call), usage=zero),
        "tool_call": swarm_envs.ToolCall(**call, usage=zero),
    }[wrap]
    _, info = step(solo, action)
    assert info["error"] is None
    assert info["tokens"] >= 1000  # 4000 characters of content: at least 1000 tokens


def test_trusted_usage_above_the_floor_is_honoured_exactly(solo):
    action = swarm_envs.Action(tool_call=LIST, usage={"output_tokens": 50, "input_tokens": 8})
    _, info = step(solo, action)
    assert info["tokens"] == 58 and info["time"] == pytest.approx(50 + 4 + 1.0)


def test_action_wrapper_usage_wins_over_usage_in_its_text(solo):
    text = json.dumps({**LIST, "usage": {"output_tokens": 5000}})
    usage = {"output_tokens": 40, "input_tokens": 0}
    _, info = step(solo, swarm_envs.Action(tool_call=text, usage=usage))
    assert info["tokens"] == 40


def test_unreported_input_tokens_are_estimated_from_the_observations(solo):
    intro = solo.reset(seed=0)[0]["agent_0"]
    _, info = step(solo, {**LIST, "usage": {"output_tokens": 40}})
    assert info["tokens"] == 40 + (len(intro) + 3) // 4


def test_usage_inside_a_completions_json_text_is_ignored(server, client, solo):
    completion = chat(server, client, READ).model_dump()
    completion["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    text = json.dumps(completion)
    _, info = step(solo, text)
    assert info["error"] is None and info["tokens"] >= len(text) // 4


def test_metadata_in_action_text_is_charged_as_text(solo):
    # A model that "thinks" in a field the parser does not read still pays for it.
    message = {
        "role": "assistant",
        "reasoning_content": "hmm " * 5000,
        "tool_calls": [{"type": "function", "function": {"name": "list_files", "arguments": "{}"}}],
    }
    _, info = step(solo, json.dumps(message))
    assert info["error"] is None and info["tokens"] >= 5000


@pytest.mark.parametrize(
    "invalid",
    [
        {"role": "assistant", "content": "think " * 300, "tool_calls": []},
        {"name": "read_file", "arguments": '{"path": '},
        {"name": "no_such_tool", "arguments": {}},
    ],
    ids=["no-tool-call", "malformed-arguments", "unknown-tool"],
)
def test_an_invalid_action_costs_what_was_reported(solo, invalid):
    # Otherwise a model could think for free in replies the environment rejects.
    usage = {"prompt_tokens": 100, "completion_tokens": 900}
    _, info = step(solo, swarm_envs.Action(tool_call=invalid, usage=usage))
    assert info["error"] is not None and info["tokens"] == 1000
    assert info["time"] == pytest.approx(900 * 1.0 + 100 * 0.5)


def test_an_invalid_completion_costs_its_usage(server, client, solo):
    completion = chat(server, client, Reply(content="no tools today"))
    _, info = step(solo, completion)
    assert "no tool call" in info["error"]
    assert info["tokens"] == completion.usage.total_tokens
