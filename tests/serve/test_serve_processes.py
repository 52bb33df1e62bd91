"""`swarm-envs serve` and `swarm-envs mcp` as processes: the port they announce, Ctrl-C.

Each command runs as a process of its own; SIGINT is what Ctrl-C sends. After it, the
process is gone, with every process it started, and its sandboxes' folders are removed.
"""

import os
import re
import signal
import subprocess
import threading
import time

import httpx
import psutil
import pytest
from serve_support import START_S, cli, poll, stop

from swarm_envs.sandboxes import users
from swarm_envs.sandboxes.local import _BASE_NAME
from swarm_envs.serve import SwarmEnvClient

pytestmark = pytest.mark.timeout(300)


def _announced(process: subprocess.Popen, pattern: str) -> re.Match:
    """The first line of the process's output that matches `pattern`."""
    deadline = time.monotonic() + START_S
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m
    raise AssertionError(f"never announced {pattern!r}; said: {''.join(seen)[-2000:]}")


def _sandboxes_of(pid: int) -> list[str]:
    parent = users.user_root(_BASE_NAME)
    return [p.name for p in parent.iterdir() if p.name.startswith(f"{pid}-")]


def _interrupt_and_check(process: subprocess.Popen, started: list[psutil.Process]) -> int:
    process.send_signal(signal.SIGINT)
    try:
        rc = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        stop(process)
        raise AssertionError("still running 30 s after SIGINT") from None
    poll(
        lambda: not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE],
        30,
        what="the command's processes to end",
    )
    assert _sandboxes_of(process.pid) == []
    return rc


@pytest.mark.slow
def test_serve_on_port_0_announces_the_port_it_got_and_stops_on_ctrl_c():
    server = cli("serve", "calc", "-n", "1", "--port", "0", stdout=subprocess.PIPE, text=True)
    try:
        m = _announced(server, r"serving calc at ws://127\.0\.0\.1:(\d+)/ws")
        port = int(m.group(1))
        assert port != 0
        assert httpx.get(f"http://127.0.0.1:{port}/health").is_success
        env = SwarmEnvClient(f"http://127.0.0.1:{port}").sync()
        env.connect()
        env.reset(seed=0)  # a session with a sandbox
        assert _sandboxes_of(server.pid)
        started = psutil.Process(server.pid).children(recursive=True)
        rc = _interrupt_and_check(server, started)
        assert rc in (0, 130)
    finally:
        stop(server)


@pytest.mark.slow
def test_mcp_waiting_for_its_slot_stops_on_ctrl_c_and_removes_its_sandbox():
    slots = cli(
        "mcp",
        "calc",
        "--agents",
        "2",
        "--slots",
        "1",
        "--port",
        "0",
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        m = _announced(slots, r"agent_1: (http://127\.0\.0\.1:(\d+)/agent_1/mcp)")
        assert int(m.group(2)) != 0
        poll(lambda: _sandboxes_of(slots.pid), START_S, 0.2, "the episode's sandbox")
        # An MCP client is connected and has read its first observation: the episode
        # waits for its call when Ctrl-C comes.
        connected = threading.Event()
        threading.Thread(target=_hold_a_session, args=(m.group(1), connected), daemon=True).start()
        assert connected.wait(60)
        started = psutil.Process(slots.pid).children(recursive=True)
        rc = _interrupt_and_check(slots, started)
        assert rc == 130
    finally:
        stop(slots)


def _hold_a_session(url: str, connected: threading.Event) -> None:
    import asyncio

    from mcp import Client

    async def hold():
        async with Client(url) as agent:
            await agent.read_resource("swarm://observation")
            connected.set()
            await asyncio.sleep(600)

    try:
        asyncio.run(hold())
    except Exception:
        pass  # the server went away: what the test wants


@pytest.mark.slow
def test_mcp_over_stdio_plays_with_the_sdk_client_and_ends_when_it_leaves():
    import asyncio
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from serve_support import ROOT

    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "swarm_envs.cli",
            "mcp",
            "calc",
            "--agents",
            "2",
            "--stdio",
            "--time-cap",
            "600",
        ],
        cwd=str(ROOT),
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )

    async def play():
        async with Client(params) as agent:
            tools = {t.name for t in (await agent.list_tools()).tools}
            first = (await agent.read_resource("swarm://observation")).contents[0].text
            bad = await agent.call_tool("read_file", {"path": "no/such/file.py"})
            good = await agent.call_tool("list_files", {})
            return tools, first, bad, good

    tools, first, bad, good = asyncio.run(play())
    assert {"read_file", "run_tests", "wait"} <= tools
    assert "agent_1" in first
    assert bad.is_error and "no/such/file.py" in bad.content[0].text
    assert not good.is_error and "calc" in good.content[0].text
