"""Agent slots over MCP, played by the real `mcp` SDK client next to scripted teammates."""

import asyncio
import threading

import pytest
from mcp import Client
from serve_support import cli, free_port, listening, poll, stop

import swarm_envs
from swarm_envs.agents.scripted import make_team
from swarm_envs.serve.mcp import OBSERVATION_URI, USAGE_META, Slot, SlotServer

pytestmark = pytest.mark.timeout(240)


def _episode_in_a_thread(env, team, timeout_s):
    """`swarm_envs.rollout` in a thread of its own (its own event loop); the result holder."""
    out: dict = {}

    def run():
        try:
            out["trajectory"] = swarm_envs.rollout(env, team, seed=0, act_timeout_s=timeout_s)
        except BaseException as e:  # the test reports it
            out["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


async def _play(url, calls, usage=None):
    """An MCP agent: read the observation, then call `calls` tools (then stop answering)."""
    seen = []
    async with Client(url) as client:
        first = await client.read_resource(OBSERVATION_URI)
        seen.append(first.contents[0].text)
        tools = (await client.list_tools()).tools
        for n in range(calls):
            name, arguments = ("run_tests", {}) if n % 2 else ("list_files", {})
            meta = {USAGE_META: usage} if usage else None
            result = await client.call_tool(name, arguments, meta=meta)
            seen.append(result.content[0].text)
            if "episode has ended" in seen[-1] or "you are out" in seen[-1]:
                break
    return tools, seen


def test_two_mcp_slots_play_a_four_agent_episode_with_two_scripted_agents():
    env = swarm_envs.parallel_env("calc", num_agents=4, time_cap_s=3600.0)
    team = dict(make_team(env.task, 4, "claim", seed=0))
    slots = [Slot("agent_2"), Slot("agent_3")]
    with SlotServer(slots, port=0) as server:
        team.update(server.agents)
        thread, out = _episode_in_a_thread(env, team, timeout_s=3.0)

        async def both():
            usage = {"output_tokens": 400, "input_tokens": 1000}
            return await asyncio.gather(
                _play(server.url("agent_2"), 1000, usage),
                _play(server.url("agent_3"), 2),  # then it stops answering
            )

        (tools, seen_2), (_, seen_3) = asyncio.run(both())
        thread.join(timeout=200)

        async def late():
            async with Client(server.url("agent_3")) as client:
                return await client.call_tool("list_files", {})

        late_call = asyncio.run(late())
    env.close()
    assert "error" not in out, out.get("error")
    trajectory = out["trajectory"]

    # The MCP tools are the environment's tool table.
    schemas = {t["function"]["name"]: t["function"] for t in swarm_envs.tool_schemas()}
    assert [t.name for t in tools] == list(schemas)
    for t in tools:
        assert t.description == schemas[t.name]["description"]
        assert t.input_schema == schemas[t.name]["parameters"]

    # The first observation is the episode's introduction of that agent.
    assert "agent_2" in seen_2[0] and "calc" in seen_2[0]
    # The scripted teammates finish the task; the silent slot was out, the rest went on.
    assert trajectory.end_reason == "all_tests_pass"
    assert trajectory.tests_passed == trajectory.tests_total == 13
    a2, a3 = trajectory.agent("agent_2"), trajectory.agent("agent_3")
    assert a2.end_reason is None and a3.end_reason == "agent_error"
    assert "act_timeout_s" in (a3.error or "")
    assert len(a3.decisions) == 2
    # Every call of agent_2 is one of its decisions, charged the usage it reported.
    tools_called = [d.tool for d in a2.decisions]
    assert tools_called[:4] == ["list_files", "run_tests", "list_files", "run_tests"]
    assert len(a2.decisions) == len(seen_2) - 1
    assert all(d.usage.output_tokens == 400 and d.usage.input_tokens == 1000 for d in a2.decisions)
    assert all(d.tokens >= 1400 for d in a2.decisions)
    # Each call's result is the agent's next observation; the last one says it ended.
    assert [d.observation for d in a2.decisions[1:]] == seen_2[1:-1]
    assert "episode has ended" in seen_2[-1]
    # The silent agent's later call is refused, and says why.
    assert late_call.is_error and "you are out of this episode" in late_call.content[0].text


def test_wall_clock_mode_charges_the_measured_decision_time():
    env = swarm_envs.parallel_env("calc", num_agents=1, time_cap_s=3600.0, time={"measured": True})
    slot = Slot("agent_0")
    with SlotServer([slot], port=0) as server:
        thread, out = _episode_in_a_thread(env, server.agents, timeout_s=30.0)

        async def slow_agent():
            async with Client(server.url(slot)) as client:
                await client.read_resource(OBSERVATION_URI)
                for name in ("list_files", "list_files", "done"):
                    await asyncio.sleep(0.3)  # the agent's own thinking, in wall seconds
                    await client.call_tool(name, {})

        asyncio.run(slow_agent())
        thread.join(timeout=200)
    env.close()
    decisions = out["trajectory"].agent("agent_0").decisions
    assert [d.action["name"] for d in decisions] == ["list_files", "list_files", "done"]
    # Each decision took at least the agent's 0.3 wall seconds of virtual time.
    times = [d.time for d in decisions]
    assert all(later - earlier >= 0.3 for earlier, later in zip(times, times[1:], strict=False))


def test_calls_outside_an_episode_are_error_results_not_failures():
    slot = Slot("agent_0")
    with SlotServer([slot], port=0, wait_s=0.2) as server:

        async def early():
            async with Client(server.url(slot)) as client:
                result = await client.call_tool("list_files", {})
                observed = await client.read_resource(OBSERVATION_URI)
                return result, observed.contents[0].text

        result, observed = asyncio.run(early())
    assert result.is_error and "no episode has started" in result.content[0].text
    assert observed.startswith("ERROR: no episode has started")


@pytest.mark.slow  # the command's process imports openenv-core and mcp: ~20 s
def test_swarm_envs_mcp_serves_the_slots_and_exits_after_its_episodes():
    port = free_port()
    process = cli(
        "mcp", "calc", "--agents", "4", "--slots", "2", "--port", str(port), "--slot-timeout", "60"
    )
    try:
        poll(lambda: listening(port), 120, 0.2, "swarm-envs mcp to listen")

        async def both():
            return await asyncio.gather(
                _play(f"http://127.0.0.1:{port}/agent_2/mcp", 1000),
                _play(f"http://127.0.0.1:{port}/agent_3/mcp", 1000),
            )

        for _, seen in asyncio.run(both()):
            assert "episode has ended" in seen[-1]
        assert process.wait(timeout=60) == 0
    finally:
        stop(process)


@pytest.mark.slow  # the bench's worker process imports mcp: ~30 s
def test_the_bench_takes_mcp_slots_as_an_agent_spec(tmp_path):
    from swarm_envs.bench import build_config, parse_agent, run_bench

    port = free_port()
    spec = {**parse_agent(f"mcp:{port}"), "slots": 1, "slot_timeout_s": 60.0}
    config = build_config(
        None,
        {
            "agents": [spec],
            "sizes": [2],
            "tasks": ["calc"],
            "seeds": [0],
            "workers": 1,
            "time_cap_s": 600.0,
            "out": str(tmp_path / "bench"),
            "plots": False,
        },
    )
    seen: dict = {}

    def external_agent():
        poll(lambda: listening(port), 120, 0.1, "the bench's MCP slot")
        seen["texts"] = asyncio.run(_play(f"http://127.0.0.1:{port}/agent_1/mcp", 1000))[1]

    thread = threading.Thread(target=external_agent)
    thread.start()
    run = run_bench(config, progress=False)
    thread.join(timeout=120)
    (result,) = run.results
    assert result.status != "failed", result
    assert result.spec.label == f"mcp {port}"
    assert "agent_1" in seen["texts"][0]
    assert "episode has ended" in seen["texts"][-1]


def test_stopping_the_server_answers_a_read_that_waits_for_an_episode_at_once():
    slot = Slot("agent_0")
    server = SlotServer([slot], port=0, wait_s=120).start()
    answered: dict = {}

    async def wait_for_episode():
        async with Client(server.url(slot)) as client:
            observed = await client.read_resource(OBSERVATION_URI)
            answered["text"] = observed.contents[0].text

    reader = threading.Thread(target=lambda: asyncio.run(wait_for_episode()), daemon=True)
    reader.start()
    reader.join(timeout=3)
    assert reader.is_alive()  # no episode: the read waits (up to wait_s)
    server.stop()  # Ctrl-C's path: the slots answer what waits, then the server stops
    reader.join(timeout=15)
    assert not reader.is_alive(), "a read still waited for an episode after stop()"
    assert answered["text"].startswith("ERROR: the server is shutting down")


def test_an_action_the_environment_refuses_is_an_error_result():
    env = swarm_envs.parallel_env("calc", num_agents=2, time_cap_s=600.0)
    team = dict(make_team(env.task, 2, "claim", seed=0))
    slot = Slot("agent_1")
    try:
        with SlotServer([slot], port=0) as server:
            team["agent_1"] = slot
            thread, out = _episode_in_a_thread(env, team, timeout_s=60)

            async def agent():
                async with Client(server.url(slot)) as client:
                    await client.read_resource(OBSERVATION_URI)
                    bad = await client.call_tool("read_file", {"path": "no/such/file.py"})
                    typo = await client.call_tool("edit_file", {"path": "calc/numbers.py"})
                    good = await client.call_tool("list_files", {})
                    done = await client.call_tool("done", {})
                    return bad, typo, good, done

            bad, typo, good, done = asyncio.run(agent())
            thread.join(timeout=120)
    finally:
        env.close()
    assert "error" not in out, out.get("error")
    assert bad.is_error and "no/such/file.py" in bad.content[0].text
    assert typo.is_error
    assert not good.is_error and "calc" in good.content[0].text
    assert not done.is_error


def test_the_slots_refuse_web_pages_and_foreign_hosts_and_take_allow_lists():
    import httpx

    slot = Slot("agent_0")
    with SlotServer([slot], port=0) as server:
        url = server.url(slot)
        evil = httpx.post(url, json={}, headers={"Origin": "https://evil.example"})
        assert evil.status_code == 403
        rebound = httpx.post(url, json={}, headers={"Host": "evil.example:80"})
        assert rebound.status_code == 421
    with SlotServer(
        [slot], port=0, allowed_origins=["https://ide.example"], allowed_hosts=["*"]
    ) as server:
        url = server.url(slot)
        ok = httpx.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={
                "Origin": "https://ide.example",
                "Host": "box.internal",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert ok.status_code not in (403, 421), ok.text
