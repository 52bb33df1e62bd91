"""The LLM agent against a local scripted OpenAI-compatible server, with the real SDK.

Every request the server receives is checked against the chat-completions protocol
(each tool call answered once, by a `tool` message for its id), whatever the script
makes the "model" do.
"""

import asyncio
import json
import textwrap
import threading
from pathlib import Path

import pytest
from support.llm_server import Reply, ScriptedServer, agent_of
from tokenizers import Tokenizer, models, pre_tokenizers

import swarm_envs
from swarm_envs.agents import LLMAgent
from swarm_envs.agents.conversation import ONE_CALL_PER_ACTION, ContextPolicy, Conversation

DONE = Reply(calls=[("done", {})])


def by_agent(plans, default=DONE):
    """A script: each agent's replies in order (then `default`), agents told apart."""
    lock = threading.Lock()
    queues = {name: list(replies) for name, replies in plans.items()}

    def script(request):
        with lock:
            queue = queues.get(agent_of(request), [])
            return queue.pop(0) if queue else default

    return script


def assert_valid_chat(messages):
    assert messages[0]["role"] == "system"
    open_calls: list[str] = []
    for m in messages[1:]:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, "a tool message answers no open call"
            open_calls.remove(m["tool_call_id"])
            continue
        assert not open_calls, f"calls {open_calls} left unanswered before a {m['role']}"
        if m["role"] == "assistant":
            open_calls = [c["id"] for c in m.get("tool_calls", [])]
            assert len(set(open_calls)) == len(open_calls)
        else:
            assert m["role"] == "user"


@pytest.fixture
def server():
    with ScriptedServer(lambda request: DONE) as s:
        yield s
    for request in s.requests:
        assert_valid_chat(request["messages"])


@pytest.fixture
def env(make_env):
    # The default time model: thinking time from the server's real token counts.
    return lambda num_agents=1, **config: make_env("calc", num_agents, **{"time": {}, **config})


def team(server, n, **kwargs):
    kwargs.setdefault("max_retries", 0)
    return LLMAgent.team(n, model="scripted", base_url=server.url, api_key="test", **kwargs)


def requests_of(server, name):
    return [r for r in server.requests if agent_of(r) == name]


# ------------------------------------------------------------------ the protocol


def test_tool_calls_run_and_the_conversation_grows(server, env):
    server.script = by_agent(
        {"agent_0": [Reply(calls=[("read_file", {"path": "README.md"})]), DONE]}
    )
    trajectory = swarm_envs.rollout(env(1), team(server, 1), seed=0)
    first, second = requests_of(server, "agent_0")
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "You are agent_0" in first["messages"][0]["content"]
    assert "calculator" in first["messages"][0]["content"]  # the task intro
    assert "virtual time" in first["messages"][0]["content"]
    # The intro is not repeated: the first user message is what is new (the status line).
    assert first["messages"][1]["content"].startswith("[t=0.0s")
    assert [t["function"]["name"] for t in first["tools"]][0] == "list_files"
    reply = second["messages"][3]
    assert reply["role"] == "tool" and "calc" in reply["content"].lower()
    assert reply["tool_call_id"] == second["messages"][2]["tool_calls"][0]["id"]
    assert [d.tool for d in trajectory.agents[0].decisions] == ["read_file", "done"]
    assert trajectory.end_reason == "all_done"


def test_the_servers_usage_is_what_the_action_costs(server, env):
    usage = {"prompt_tokens": 1200, "completion_tokens": 345, "total_tokens": 1545}
    server.script = by_agent({"agent_0": [Reply(calls=[("list_files", {})], usage=usage)]})
    trajectory = swarm_envs.rollout(env(1), team(server, 1), seed=0)
    first = trajectory.agents[0].decisions[0]
    assert first.usage.output_tokens == 345 and first.usage.input_tokens == 1200
    assert first.tokens == 1545
    assert first.latency_s > 0 and first.meta["finish_reason"] == "tool_calls"


def test_a_reply_without_tool_call_is_nudged_and_costs_its_tokens(server, env):
    usage = {"prompt_tokens": 100, "completion_tokens": 500, "total_tokens": 600}
    server.script = by_agent({"agent_0": [Reply(content="Let me think. " * 50, usage=usage)]})
    trajectory = swarm_envs.rollout(env(1), team(server, 1), seed=0)
    nudge = requests_of(server, "agent_0")[1]["messages"][-1]
    assert nudge["role"] == "user" and nudge["content"].startswith("ERROR:")
    assert "no tool call" in nudge["content"]
    first = trajectory.agents[0].decisions[0]
    assert first.tool == "invalid" and first.tokens == 600


def test_of_several_tool_calls_the_first_runs_the_others_are_answered(server, env):
    calls = [("write_file", {"path": "a.txt", "content": "1"}), ("list_files", {}), ("done", {})]
    server.script = by_agent({"agent_0": [Reply(calls=calls)]})
    e = env(1)
    trajectory = swarm_envs.rollout(e, team(server, 1), seed=0)
    messages = requests_of(server, "agent_0")[1]["messages"]
    replies = [m for m in messages if m["role"] == "tool"]
    assert len(replies) == 3 and "a.txt" in replies[0]["content"]
    assert replies[1]["content"] == replies[2]["content"] == ONE_CALL_PER_ACTION
    assert [d.tool for d in trajectory.agents[0].decisions] == ["write_file", "done"]


def test_malformed_arguments_get_the_environments_error(server, env):
    server.script = by_agent({"agent_0": [Reply(calls=[("read_file", '{"path": "README')])]})
    swarm_envs.rollout(env(1), team(server, 1), seed=0)
    reply = requests_of(server, "agent_0")[1]["messages"][-1]
    assert reply["role"] == "tool" and reply["content"].startswith("ERROR:")
    assert "not valid JSON" in reply["content"]


def test_a_call_written_as_text_runs_and_stays_the_models_text(server, env):
    said = 'I will list them.\n<tool_call>{"name": "list_files", "arguments": {}}'
    server.script = by_agent({"agent_0": [Reply(content=said)]})
    trajectory = swarm_envs.rollout(env(1), team(server, 1), seed=0)
    first = trajectory.agents[0].decisions[0]
    assert first.tool == "list_files" and first.error is None
    assert first.meta["reply_shape"] == "tag"
    messages = requests_of(server, "agent_0")[1]["messages"]
    assert messages[-2] == {"role": "assistant", "content": said}  # as written, no tool_calls
    assert messages[-1]["role"] == "user" and "calc" in messages[-1]["content"]


def test_the_system_prompt_lists_the_tools_and_the_shape(server, env):
    swarm_envs.rollout(env(1), team(server, 1), seed=0)
    system = requests_of(server, "agent_0")[0]["messages"][0]["content"]
    assert "- edit_file(path, old, new):" in system and "<tool_call>{" in system
    swarm_envs.rollout(env(1), team(server, 1, tools_in_prompt=False), seed=0)
    assert "- edit_file(" not in requests_of(server, "agent_0")[-1]["messages"][0]["content"]


def test_a_reply_cut_without_a_call_is_told_so_and_shown_the_shape(server, env):
    rambling = Reply(content="The calculator is a tool that " * 40, finish_reason="length")
    server.script = by_agent({"agent_0": [rambling]})
    swarm_envs.rollout(env(1), team(server, 1, max_tokens=64, stop=["</tool_call>"]), seed=0)
    first, second = requests_of(server, "agent_0")[:2]
    assert first["max_tokens"] == 64 and first["stop"] == ["</tool_call>"]
    nudge = second["messages"][-1]["content"]
    assert "cut at its limit of 64 tokens" in nudge
    assert '{"name": "read_file", "arguments": {"path": "README.md"}}' in nudge


# ------------------------------------------------------------------ server failures


def test_a_transient_500_is_retried_by_the_sdk(server, env):
    server.script = by_agent({"agent_0": [Reply(status=500), Reply(calls=[("list_files", {})])]})
    trajectory = swarm_envs.rollout(env(1), team(server, 1, max_retries=2), seed=0)
    assert trajectory.agents[0].end_reason is None
    assert [d.tool for d in trajectory.agents[0].decisions] == ["list_files", "done"]


@pytest.mark.parametrize(
    "failure",
    [Reply(status=500), Reply(status=400), Reply(body="{not json"), Reply(delay_s=2.0)],
    ids=["500", "400", "broken-body", "timeout"],
)
def test_server_failure_ends_that_agent_only(server, env, failure):
    server.script = by_agent(
        {
            "agent_0": [Reply(calls=[("list_files", {})]), failure, failure, failure],
            "agent_1": [Reply(calls=[("list_files", {})])] * 3,
        }
    )
    agents = team(server, 2, max_retries=1, timeout_s=0.3)
    trajectory = swarm_envs.rollout(env(2), agents, seed=0)
    failed, other = trajectory.agents
    assert failed.end_reason == "agent_error" and "AgentError" in failed.error
    assert "model server failed" in failed.error and len(failed.decisions) == 1
    assert other.end_reason is None and len(other.decisions) == 4
    assert trajectory.end_reason == "all_done"


# ------------------------------------------------------------------ concurrency


def test_a_swarm_of_eight_makes_eight_concurrent_requests(server, env):
    server.script = lambda request: Reply(calls=[("list_files", {})], delay_s=0.2)
    agents = team(server, 8)
    trajectory = swarm_envs.rollout(env(8, time_cap_s=3), agents, seed=0, max_steps=2)
    assert server.max_in_flight == 8
    assert all(len(a.decisions) == 2 for a in trajectory.agents)


def test_agents_serve_several_rollouts_in_a_row(server, env):
    agents = team(server, 2)
    e = env(2)
    for seed in (0, 1):
        trajectory = swarm_envs.rollout(e, agents, seed=seed)
        assert trajectory.end_reason == "all_done" and trajectory.seed == seed


def test_arollout_with_a_client_of_ones_own(server, env):
    import openai

    async def main():
        async with openai.AsyncOpenAI(base_url=server.url, api_key="t") as client:
            agent = LLMAgent("scripted", client=client)
            return await swarm_envs.arollout(env(1), [agent], seed=0)

    assert asyncio.run(main()).end_reason == "all_done"


def test_wall_clock_mode_thinks_for_the_servers_latency(server, env):
    server.script = by_agent(
        {"agent_0": [Reply(calls=[("wait", {"seconds": 0.001})], delay_s=0.1)]}
    )
    e = env(1, time={"measured": True})
    first, second = swarm_envs.rollout(e, team(server, 1), seed=0).agents[0].decisions
    assert first.latency_s >= 0.1
    assert second.time == pytest.approx(first.latency_s + 0.001)


# ------------------------------------------------------------------ the context policy


def big_reads(n):
    return [Reply(calls=[("read_file", {"path": "calc/core.py"})])] * n


def test_requests_stay_under_the_context_size_with_the_servers_count(server, env):
    server.script = by_agent({"agent_0": big_reads(12)})
    context = 2600  # the tool schemas take about 1150 of it
    agent = team(server, 1, context_tokens=context, max_tokens=100)[0]
    swarm_envs.rollout(env(1), [agent], seed=0)
    requests = requests_of(server, "agent_0")
    sizes = [
        len(json.dumps(r["messages"])) // 4 + len(json.dumps(r["tools"])) // 4 for r in requests
    ]
    assert max(sizes) > 0.7 * (context - 100)  # the budget is used, and ...
    assert all(s <= context - 100 for s in sizes[1:])  # ... respected (after calibration)
    last = requests[-1]["messages"]
    shortened = [m for m in last if "shortened to fit the context" in str(m.get("content"))]
    assert shortened and last.index(shortened[0]) < len(last) - 1  # oldest first
    assert "shortened" not in last[-1]["content"]  # the newest observation is whole


def word_tokenizer():
    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return tok


def test_requests_stay_under_the_context_size_with_a_tokenizer(server, env):
    tok = word_tokenizer()
    server.script = by_agent({"agent_0": big_reads(12)})
    agent = team(server, 1, context_tokens=2000, max_tokens=200, tokenizer=tok)[0]
    swarm_envs.rollout(env(1), [agent], seed=0)
    policy = ContextPolicy(2000, 200, tokenizer=tok)
    for request in requests_of(server, "agent_0"):
        assert policy.tokens(request["messages"], request["tools"]) <= 1800


def test_context_policy_shortens_oldest_first_then_drops_whole_turns():
    conv = Conversation("system prompt")
    conv.observe("first observation " * 10)
    for k in range(6):
        conv.reply("", [{"id": f"c{k}", "function": {"name": "read_file", "arguments": "{}"}}])
        conv.observe(f"result {k} " + "x" * 2000)
    messages = conv.messages
    policy = ContextPolicy(max_tokens=2200, tokenizer=lambda text: len(text) // 4)
    assert policy.fit(messages)
    tools = [m for m in messages if m["role"] == "tool"]
    assert "shortened" in tools[0]["content"] and "shortened" not in tools[-1]["content"]
    assert_valid_chat(messages)
    # Tighter: shortening is not enough, whole turns go, the protocol stays valid.
    assert policy.__class__(max_tokens=700, tokenizer=lambda t: len(t) // 4).fit(messages)
    assert_valid_chat(messages)
    assert "earlier messages removed" in messages[1]["content"]
    assert messages[-1]["content"].startswith("result 5")


def test_the_newest_observation_is_cut_when_nothing_else_helps():
    conv = Conversation("s")
    conv.observe("y" * 40_000)
    policy = ContextPolicy(max_tokens=1000, tokenizer=lambda text: len(text) // 4)
    assert policy.fit(conv.messages)
    assert policy.tokens(conv.messages) <= 1000 and "shortened" in conv.messages[-1]["content"]


def test_conversation_gives_ids_to_calls_without_one():
    conv = Conversation("s")
    conv.observe("o")
    call = conv.reply(None, [{"function": {"name": "list_files", "arguments": None}}])
    assert call["id"] and call["function"]["arguments"] == "{}"
    conv.observe("result")
    assert conv.messages[-1]["tool_call_id"] == call["id"]
    assert_valid_chat(conv.messages)


# ------------------------------------------------------------------ the documented example


def readme_example():
    readme = (Path(__file__).parents[1] / "docs" / "agents.md").read_text()
    return readme.split("A whole agent of your own:\n\n```python\n", 1)[1].split("```")[0]


def docstring_example():
    import swarm_envs.agents as agents

    code = agents.__doc__.split("rollout:\n\n", 1)[1].split("\n`LLMAgent`")[0]
    return textwrap.dedent(code)


@pytest.mark.parametrize("source", [readme_example, docstring_example])
def test_the_documented_example_agent_runs(source):
    code = source()
    assert 20 <= len(code.strip().splitlines()) <= 26
    namespace: dict = {}
    exec(code.replace("print(", "result = ("), namespace)
    trajectory = namespace["trajectory"]
    assert trajectory.end_reason == "all_done"
    tools = [d.tool for d in trajectory.agents[0].decisions]
    assert tools[:2] == ["list_files", "run_tests"] and "read_file" in tools
    namespace["env"].close()


def test_without_the_sdk_the_error_says_which_extra_to_install():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['openai'] = None\n"
        "import swarm_envs.agents\n"
        "try:\n    swarm_envs.agents.LLMAgent\n"
        "except ModuleNotFoundError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'swarm-envs[llm]'" in out.stdout


# ------------------------------------------------------------------ the command line


def test_swarm_envs_run_drives_llm_agents_on_a_server(server, tmp_path, capsys):
    from swarm_envs.cli import main

    said = '<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>'
    server.script = by_agent({"agent_0": [Reply(content=said)], "agent_1": [Reply(content="hm")]})
    rec = tmp_path / "run.jsonl"
    argv = ["run", "calc", "--agents", "2", "--time-cap", "30", "--record", str(rec),
            "--agent", f"llm:scripted@{server.url}", "--max-tokens", "64", "--stop", "</tool_call>"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "llm scripted" in out and "tests passing" in out
    assert "actions / error observations" in out
    first = [r for r in server.requests if agent_of(r) == "agent_0"][0]
    assert first["max_tokens"] == 64 and first["stop"] == ["</tool_call>"]
    assert rec.is_file() and rec.stat().st_size > 0
    assert main(["run", "calc", "--agent", "claim"]) == 2  # not an LLM spec: said so
    assert "expected llm:MODEL@URL" in capsys.readouterr().err
