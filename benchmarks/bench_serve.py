"""The cost of serving: OpenEnv sessions and MCP slots against in-process stepping.

OpenEnv: `swarm-envs serve calc` runs in a process of its own; C sessions (1, 8, 64) play
scripted episodes at once through `SwarmEnvClient` (async, one event loop), and the same
episodes (same seeds, same actions) are stepped in-process by C threads. Agents post
messages and wait (no test run), so what is timed is the step and its transport. Every
session's sequence of observations is compared with the in-process episode of its seed:
a lost, duplicated or mixed step shows as a mismatch. Reported: steps per second, p50
and p99 step latency both ways, the server's overhead (p50 through the server minus p50
in-process; target < 2 ms), and the server's memory per session (RSS of the server and
its sandboxes' processes, with the sessions open, over C).

MCP: one slot of a one-agent episode, driven by the `mcp` SDK client: the round trip of
a tool call against the in-process step of the same action.

    python benchmarks/bench_serve.py                       # 1, 8 and 64 sessions
    python benchmarks/bench_serve.py --sessions 1 8 --steps 50 --mcp-calls 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time

import psutil

import swarm_envs

AGENTS = 2
ENDS: list[float] = []  # when each in-process episode's last step returned (before close)
STARTS: list[float] = []  # when each in-process episode's first step began


def actions(seed: int, step: int, ready: list[str]) -> dict[str, str]:
    """The scripted moves of a session: messages that name the session, and waits."""
    out = {}
    for a in ready:
        if (step + int(a[-1])) % 2:
            text = f"session {seed} step {step} from {a}"
            out[a] = json.dumps({"name": "post", "arguments": {"channel": "general", "text": text}})
        else:
            out[a] = json.dumps({"name": "wait", "arguments": {"seconds": 5 + step % 7}})
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# ---------------------------------------------------------------------- in-process


def local_episode(seed: int, steps: int, lat: list[float], opened: threading.Barrier) -> list[str]:
    env = swarm_envs.parallel_env("calc", num_agents=AGENTS, time_cap_s=1e9)
    seen = []
    obs, _ = env.reset(seed=seed)
    opened.wait()
    STARTS.append(time.perf_counter())
    try:
        for k in range(steps):
            acts = actions(seed, k, env.ready_agents)
            t0 = time.perf_counter()
            obs, _, _, _, _ = env.step(acts)
            lat.append(time.perf_counter() - t0)
            seen.append(json.dumps(obs, sort_keys=True))
        ENDS.append(time.perf_counter())
    finally:
        env.close()
    return seen


def local(sessions: int, steps: int, seed0: int) -> tuple[dict[int, list[str]], list[float], float]:
    lat: list[float] = []
    seen: dict[int, list[str]] = {}
    opened = threading.Barrier(sessions + 1)
    # The envs are made and reset first, in the threads, then stepped: only steps are timed.
    threads = [
        threading.Thread(
            target=lambda s=s: seen.__setitem__(s, local_episode(s, steps, lat, opened))
        )
        for s in range(seed0, seed0 + sessions)
    ]
    for t in threads:
        t.start()
    opened.wait()
    for t in threads:
        t.join()
    return seen, lat, max(ENDS[-sessions:]) - min(STARTS[-sessions:])


# ---------------------------------------------------------------------- through the server


async def remote_episode(
    url: str, seed: int, steps: int, lat: list[float], opened: asyncio.Barrier
):
    from swarm_envs.serve import SwarmAction, SwarmEnvClient

    seen = []
    async with SwarmEnvClient(url) as env:
        result = await env.reset(seed=seed)
        await opened.wait()  # every session open and reset: now the memory, then the steps
        await opened.wait()
        for k in range(steps):
            acts = actions(seed, k, result.observation.ready)
            t0 = time.perf_counter()
            result = await env.step(SwarmAction(actions=acts))
            lat.append(time.perf_counter() - t0)
            seen.append(json.dumps(result.observation.observations, sort_keys=True))
    return seed, seen


def tree_rss(pid: int) -> int:
    proc = psutil.Process(pid)
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total


async def remote(url: str, pid: int, sessions: int, steps: int, seed0: int):
    lat: list[float] = []
    opened = asyncio.Barrier(sessions + 1)
    tasks = [
        asyncio.create_task(remote_episode(url, s, steps, lat, opened))
        for s in range(seed0, seed0 + sessions)
    ]
    base = tree_rss(pid)
    await opened.wait()
    per_session = (tree_rss(pid) - base) / sessions
    t0 = time.perf_counter()
    await opened.wait()
    done = await asyncio.gather(*tasks)
    return dict(done), lat, time.perf_counter() - t0, per_session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(max_sessions: int) -> tuple[subprocess.Popen, str, int]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "swarm_envs.cli",
            "serve",
            "calc",
            "-n",
            str(AGENTS),
            "--port",
            str(port),
            "--max-sessions",
            str(max_sessions),
            "--time-cap",
            "1e9",
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, f"http://127.0.0.1:{port}", port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def own_cost(steps: int) -> tuple[list[float], list[float]]:
    """The server's own work per step, without transport: decode, step, encode."""
    from openenv.core.env_server.serialization import deserialize_action, serialize_observation
    from openenv.core.env_server.types import WSObservationResponse

    from swarm_envs.serve.models import SwarmAction
    from swarm_envs.serve.server import SwarmEnvironment

    env = SwarmEnvironment("calc", {"num_agents": AGENTS, "time_cap_s": 1e9})
    obs = env.reset(seed=0)
    served, plain = [], []
    for k in range(steps):
        payload = SwarmAction(actions=actions(0, k, obs.ready)).model_dump(exclude_defaults=True)
        t0 = time.perf_counter()
        obs = env.step(deserialize_action(payload, SwarmAction))
        WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        served.append(time.perf_counter() - t0)
    env.close()
    local_env = swarm_envs.parallel_env("calc", num_agents=AGENTS, time_cap_s=1e9)
    local_env.reset(seed=0)
    for k in range(steps):
        acts = actions(0, k, local_env.ready_agents)
        t0 = time.perf_counter()
        local_env.step(acts)
        plain.append(time.perf_counter() - t0)
    local_env.close()
    return served, plain


# ---------------------------------------------------------------------- MCP


def mcp_round_trip(calls: int) -> tuple[list[float], list[float]]:
    from mcp import Client

    from swarm_envs.serve.mcp import OBSERVATION_URI, Slot, SlotServer

    call = {"name": "post", "arguments": {"channel": "general", "text": "status"}}
    env = swarm_envs.parallel_env("calc", num_agents=1, time_cap_s=1e9)
    local_lat = []
    env.reset(seed=0)
    for _ in range(calls):
        t0 = time.perf_counter()
        env.step({"agent_0": json.dumps(call)})
        local_lat.append(time.perf_counter() - t0)
    slot = Slot("agent_0")
    trips = []
    with SlotServer([slot], port=0) as server:
        out = {}
        runner = threading.Thread(
            target=lambda: out.setdefault("t", swarm_envs.rollout(env, server.agents, seed=0))
        )
        runner.start()

        async def agent():
            async with Client(server.url(slot)) as client:
                await client.read_resource(OBSERVATION_URI)
                for _ in range(calls):
                    t0 = time.perf_counter()
                    await client.call_tool(call["name"], call["arguments"])
                    trips.append(time.perf_counter() - t0)
                await client.call_tool("done", {})

        asyncio.run(agent())
        runner.join()
    env.close()
    return trips, local_lat


def plain_mcp_round_trip(calls: int) -> list[float]:
    """The mcp SDK's own round trip: a tool that answers at once, same transport."""
    import mcp_types as types
    import uvicorn
    from mcp import Client
    from mcp.server.lowlevel import Server

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="x", input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    app = Server("plain", on_list_tools=list_tools, on_call_tool=call_tool)
    port = free_port()
    config = uvicorn.Config(
        app.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    trips: list[float] = []

    async def client():
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            for _ in range(calls):
                t0 = time.perf_counter()
                await c.call_tool("x", {})
                trips.append(time.perf_counter() - t0)

    asyncio.run(client())
    server.should_exit = True
    thread.join(timeout=10)
    return trips


# ---------------------------------------------------------------------- main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sessions", type=int, nargs="+", default=[1, 8, 64])
    p.add_argument("--steps", type=int, default=100, help="steps per session")
    p.add_argument("--mcp-calls", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    ms = 1000.0
    print(
        "| sessions | in-process steps/s | server steps/s | in-process p50 / p99 ms | "
        "server p50 / p99 ms | overhead p50 ms | mismatched steps | MiB per session |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    server, url, _ = start_server(max(args.sessions))
    try:
        for n in args.sessions:
            seen_local, lat_l, wall_l = local(n, args.steps, args.seed)
            seen_remote, lat_r, wall_r, mem = asyncio.run(
                remote(url, server.pid, n, args.steps, args.seed)
            )
            wrong = sum(
                a != b
                for s in seen_local
                for a, b in zip(seen_local[s], seen_remote.get(s, []), strict=False)
            ) + sum(abs(len(seen_local[s]) - len(seen_remote.get(s, []))) for s in seen_local)
            print(
                f"| {n} | {n * args.steps / wall_l:.0f} | {n * args.steps / wall_r:.0f} | "
                f"{pct(lat_l, 0.5) * ms:.2f} / {pct(lat_l, 0.99) * ms:.2f} | "
                f"{pct(lat_r, 0.5) * ms:.2f} / {pct(lat_r, 0.99) * ms:.2f} | "
                f"{(pct(lat_r, 0.5) - pct(lat_l, 0.5)) * ms:.2f} | {wrong} | {mem / 2**20:.1f} |",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(timeout=60)

    served, plain_steps = own_cost(args.steps)
    print(
        f"\nthe server's own work per step (decode, step, encode; no transport): p50 "
        f"{pct(served, 0.5) * ms:.3f} ms against {pct(plain_steps, 0.5) * ms:.3f} ms in-process"
    )
    trips, local_lat = mcp_round_trip(args.mcp_calls)
    plain = plain_mcp_round_trip(args.mcp_calls)
    print()
    print("| MCP slot | p50 ms | p99 ms | calls/s |")
    print("| --- | --- | --- | --- |")
    print(
        f"| in-process step | {pct(local_lat, 0.5) * ms:.2f} | {pct(local_lat, 0.99) * ms:.2f} | "
        f"{len(local_lat) / sum(local_lat):.0f} |"
    )
    print(
        f"| MCP tool call round trip | {pct(trips, 0.5) * ms:.2f} | {pct(trips, 0.99) * ms:.2f} | "
        f"{len(trips) / sum(trips):.0f} |"
    )
    print(
        f"| plain MCP round trip (a tool that answers at once) | {pct(plain, 0.5) * ms:.2f} | "
        f"{pct(plain, 0.99) * ms:.2f} | {len(plain) / sum(plain):.0f} |"
    )
    print(
        "| slot overhead over in-process (p50) | "
        f"{(pct(trips, 0.5) - pct(local_lat, 0.5)) * ms:.2f} | | |"
    )
    print(
        "| slot overhead over plain MCP (p50) | "
        f"{(pct(trips, 0.5) - pct(plain, 0.5)) * ms:.2f} | | |"
    )
    print(
        f"\n{os.cpu_count()} cores; task calc, {AGENTS} agents, {args.steps} steps a session; "
        "latency as the caller measures it"
    )


if __name__ == "__main__":
    main()
