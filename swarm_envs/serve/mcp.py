"""Agent slots over MCP: any MCP-speaking coding agent as one agent of a swarm.

    swarm-envs mcp calc --agents 4 --slots 2      # agent_2 and agent_3 over MCP, 2 scripted

    swarm-envs mcp calc --agents 4 --stdio        # agent_3 over this process's stdin/stdout

Each slot is one agent of the episode, served as its own MCP endpoint,
`http://HOST:PORT/<agent>/mcp` (Streamable HTTP, mcp's low-level server), or, for MCP
hosts that start their servers as processes, one slot over the process's stdin and
stdout (`StdioSlot`, the stdio transport; the command's own output goes to stderr): its
tools are
the environment's tool table (`swarm_envs.tool_schemas()`, one MCP tool per tool), the
resource `swarm://observation` is the agent's latest observation (read it first: the
task, the team, the tools), and every tool call returns the agent's next observation,
once its action has been applied and the agent is ready again. The other agents of the
episode are scripted teammates (or anything the rollout runner drives): the slots are
ordinary agents of the rollout runner (`Slot`), so the engine stays the owner of the step.

Time: in wall-clock mode (`time={"measured": True}`) an action costs the wall time the MCP
agent took to decide (from the moment its previous call returned to the arrival of the
next call); otherwise it costs the usage the agent reports in the call's `_meta` under
`"swarm_envs/usage"` (`{"output_tokens": ..., "input_tokens": ...}`), never less than the
estimate from the call's text. An MCP agent that sends no call for `slot_timeout_s` wall
seconds is out of the episode (`agent_error`); the rest of the swarm goes on.

One call at a time per slot: a second call while the first waits is an error result. A
call whose action the environment refused (a bad argument, an edit that does not match)
returns the observation that says why, with `isError` set.

The HTTP endpoints refuse requests from web pages (an `Origin` not on the allow-list) and
under a `Host` that is not the server's, as the OpenEnv server does
(`swarm_envs.serve.http.Gate`). Ctrl-C (SIGINT) ends the command at once: waiting calls
and reads get an error result, the server stops, the episode's sandbox is removed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time as wallclock
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types
from mcp.server.lowlevel import Server
from pydantic import ValidationError

from swarm_envs.core.actions import Action, Usage, tool_schemas
from swarm_envs.error import AgentError, ConfigError
from swarm_envs.serve.http import (
    TOKEN_ENV,
    Gate,
    default_allowed_hosts,
    default_allowed_origins,
    find_task,
    is_loopback,
)

logger = logging.getLogger("swarm_envs")

#: the `_meta` key of a tool call that carries the usage the MCP agent's model reported
USAGE_META = "swarm_envs/usage"
#: the resource that holds a slot's latest observation
OBSERVATION_URI = "swarm://observation"

__all__ = [
    "OBSERVATION_URI",
    "TOKEN_ENV",
    "USAGE_META",
    "Slot",
    "SlotServer",
    "StdioSlot",
    "serve_slots",
    "slot_team",
]


@dataclass
class _Call:
    name: str
    arguments: dict[str, Any]
    usage: Usage | None
    arrived: float
    reply: concurrent.futures.Future[tuple[str, bool]]  # (observation, the action failed)


class Slot:
    """One agent of a swarm, played by an MCP client (an agent of the rollout runner).

    It bridges two event loops: the rollout runner's (`reset`, `act`, `aclose`) and the
    MCP server's (`call`, `observe`), with thread-safe futures, so that a slot works with
    `swarm_envs.rollout` in any thread or process that also runs its `SlotServer`.

    Args:
        name: the agent's name (`agent_2`).
    """

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._calls: concurrent.futures.Future[_Call] = concurrent.futures.Future()
        self._pending: _Call | None = None  # the call whose reply is the next observation
        self._observation: str | None = None
        self._published = 0.0
        self._ready = threading.Event()  # an observation of a running episode is there
        self._woken = threading.Event()  # readers waiting for an observation must look again
        self._running = False
        self._why_not = "no episode has started yet; read swarm://observation to wait for one"

    # ---------------------------------------------------------- the rollout's side

    async def reset(self, agent_name: str, task_info: object = None) -> None:
        """A new episode begins for this slot."""
        with self._lock:
            self.name = agent_name
            self._running = True
            self._calls = concurrent.futures.Future()
            self._observation = None
            self._ready.clear()

    async def act(self, observation: str, info: Mapping[str, Any]) -> Action:
        """The MCP client's next tool call, as an action with its wall time and usage."""
        with self._lock:
            self._observation = observation
            self._published = wallclock.monotonic()
            self._ready.set()
            if self._pending is not None:  # the previous call's result: this observation
                self._pending.reply.set_result((observation, bool(info.get("error"))))
                self._pending = None
            calls = self._calls
        try:
            call = await asyncio.wrap_future(calls)
        except asyncio.CancelledError:  # the rollout's act timeout: out of the episode
            self._leave(
                "you sent no tool call within the slot's timeout, so you are out of this "
                "episode; the rest of the swarm goes on"
            )
            raise
        with self._lock:
            self._pending = call
            self._calls = concurrent.futures.Future()
        latency = max(call.arrived - self._published, 0.0)
        tool_call = {"name": call.name, "arguments": call.arguments}
        return Action(tool_call=tool_call, usage=call.usage, latency_s=latency)

    async def aclose(self) -> None:
        """The episode ended: a call still waiting gets the news."""
        self._leave("the episode has ended; a new episode starts when the server runs one")

    def _leave(self, why: str) -> None:
        with self._lock:
            if self._running:  # the first reason stands (out, then the episode's end)
                self._why_not = why
            self._running = False
            self._ready.clear()
            if self._pending is not None:
                text = f"{self._observation or ''}\n\n[{why}]".strip()
                self._pending.reply.set_result((text, False))
                self._pending = None
            if not self._calls.done():
                self._calls.cancel()

    # ---------------------------------------------------------- the MCP server's side

    def call(self, name: str, arguments: dict[str, Any], usage: Usage | None) -> Any:
        """Hand a tool call to the episode; returns a future of the next observation.

        Raises:
            AgentError: no episode is running for this slot, or a call is still waiting.
        """
        with self._lock:
            if not self._running:
                raise AgentError(self._why_not)
            if self._pending is not None or self._calls.done():
                raise AgentError("one call at a time: the previous tool call has not returned")
            reply: concurrent.futures.Future[tuple[str, bool]] = concurrent.futures.Future()
            self._calls.set_result(_Call(name, arguments, usage, wallclock.monotonic(), reply))
            return reply

    def observe(self, timeout_s: float) -> str:
        """The latest observation, waiting up to `timeout_s` for an episode to start."""
        deadline = wallclock.monotonic() + timeout_s
        # In slices, so that a shutdown ends the wait (readers sit in executor threads,
        # which the interpreter joins at exit).
        while not self._ready.wait(min(max(deadline - wallclock.monotonic(), 0.0), 0.1)):
            if self._woken.is_set() or wallclock.monotonic() >= deadline:
                raise AgentError(self._why_not)
        return self._observation or ""

    def shut(self, why: str = "the server is shutting down") -> None:
        """No episode will come: a call or a read still waiting gets `why` at once."""
        self._leave(why)
        with self._lock:
            self._why_not = why
        self._woken.set()


def _mcp_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=t["function"]["name"],
            description=t["function"]["description"],
            input_schema=t["function"]["parameters"],
        )
        for t in tool_schemas()
    ]


def _slot_server(slot: Slot, intro: str, wait_s: float) -> Server:
    tools = _mcp_tools()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        usage = None
        meta: Mapping[str, Any] = dict(params.meta or {})
        try:
            if meta.get(USAGE_META) is not None:
                usage = Usage.model_validate(meta[USAGE_META])
            reply = slot.call(params.name, dict(params.arguments or {}), usage)
        except (AgentError, ValidationError) as e:
            return _text(f"ERROR: {e}", error=True)
        text, failed = await asyncio.wrap_future(reply)
        # The environment refused the action (a bad argument, a failed edit): the
        # observation says why, and MCP's `isError` says that it did.
        return _text(text, error=failed)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="observation",
                    uri=OBSERVATION_URI,
                    description=f"{slot.name}'s latest observation (read it first)",
                    mime_type="text/plain",
                )
            ]
        )

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        if str(params.uri) != OBSERVATION_URI:
            raise ValueError(f"unknown resource {params.uri!r}; the resource is {OBSERVATION_URI}")
        loop = asyncio.get_running_loop()
        try:
            text = await loop.run_in_executor(None, slot.observe, wait_s)
        except AgentError as e:
            text = f"ERROR: {e}"
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=OBSERVATION_URI, text=text)]
        )

    return Server(
        f"swarm-envs {slot.name}",
        instructions=intro,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


class SlotServer:
    """The MCP endpoints of some slots, served from a background thread.

        with SlotServer([Slot("agent_2"), Slot("agent_3")], port=8100) as server:
            swarm_envs.rollout(env, {**scripted, **server.agents})

    Args:
        slots: the slots to serve, each at `/<its name>/mcp`.
        host: address to bind (127.0.0.1 by default; any other needs `token`).
        port: the port (0: any free one, see `port` once started).
        token: the bearer token every request must carry (None: no check).
        intro: what each slot's MCP `instructions` say, given the slot.
        wait_s: how long a read of `swarm://observation` waits for an episode.
        allowed_hosts: `Host` values answered (default: the loopback names and `host`).
        allowed_origins: `Origin` values answered (default: pages of this machine).
    """

    def __init__(
        self,
        slots: Sequence[Slot],
        *,
        host: str = "127.0.0.1",
        port: int = 8100,
        token: str | None = None,
        intro: Callable[[Slot], str] | None = None,
        wait_s: float = 60.0,
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
    ):
        if not is_loopback(host) and not token:
            raise ConfigError(
                f"host={host!r}: serving MCP slots beyond this machine needs a bearer token; "
                f"set {TOKEN_ENV} (clients send it as 'Authorization: Bearer ...')"
            )
        self.slots = list(slots)
        self.host, self.port, self._token = host, port, token
        self._intro = intro or _default_intro
        self._wait_s = wait_s
        self._hosts = list(default_allowed_hosts(host) if allowed_hosts is None else allowed_hosts)
        self._origins = list(
            default_allowed_origins(host) if allowed_origins is None else allowed_origins
        )
        self._thread: threading.Thread | None = None
        self._server: Any = None

    @property
    def agents(self) -> dict[str, Slot]:
        """The slots by agent name, to merge into a rollout's team."""
        return {s.name: s for s in self.slots}

    def url(self, slot: Slot | str) -> str:
        """The MCP endpoint of a slot."""
        name = slot if isinstance(slot, str) else slot.name
        return f"http://{self.host}:{self.port}/{name}/mcp"

    def _app(self) -> Any:
        from mcp.server.transport_security import TransportSecuritySettings
        from starlette.applications import Starlette
        from starlette.routing import Mount

        # The gate checks origins and hosts for every route, with the allow-lists given
        # here; the SDK's own check (the same rule, fixed lists) would refuse what they add.
        off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        apps = [
            (
                s,
                _slot_server(s, self._intro(s), self._wait_s).streamable_http_app(
                    host=self.host, transport_security=off
                ),
            )
            for s in self.slots
        ]

        @contextlib.asynccontextmanager
        async def lifespan(app: Any) -> Any:
            # Mounted apps' own lifespans do not run: enter each session manager here.
            async with contextlib.AsyncExitStack() as stack:
                for _, sub in apps:
                    await stack.enter_async_context(sub.router.lifespan_context(sub))
                yield

        routes = [Mount(f"/{s.name}", app=sub) for s, sub in apps]
        return Gate(
            Starlette(routes=routes, lifespan=lifespan),
            self._token,
            allowed_hosts=self._hosts,
            allowed_origins=self._origins,
        )

    def start(self) -> SlotServer:
        """Start serving; returns once the port accepts connections."""
        import uvicorn

        # A client's open event stream must not hold the shutdown up (Ctrl-C).
        config = uvicorn.Config(
            self._app(),
            host=self.host,
            port=self.port,
            log_level="warning",
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="mcp-slots", daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise ConfigError(f"the MCP slots could not listen on {self.host}:{self.port}")
            wallclock.sleep(0.02)
        if self.port == 0:
            self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Stop serving (safe twice); a call or read still waiting gets an error."""
        for slot in self.slots:
            slot.shut()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> SlotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class StdioSlot:
    """One slot served over this process's stdin and stdout (MCP's stdio transport).

    For MCP hosts that start each server as a process of their own and speak to it over
    its standard streams (`swarm-envs mcp TASK --stdio`). The server runs in a background
    thread; when the client closes stdin, `on_close` is called (the command then ends).

        with StdioSlot(Slot("agent_3")) as server:
            swarm_envs.rollout(env, {**scripted, **server.agents})

    Args:
        slot: the slot to serve.
        intro: what the slot's MCP `instructions` say, given the slot.
        wait_s: how long a read of `swarm://observation` waits for an episode.
        on_close: called (from the server's thread) once the client has gone.
    """

    def __init__(
        self,
        slot: Slot,
        *,
        intro: Callable[[Slot], str] | None = None,
        wait_s: float = 60.0,
        on_close: Callable[[], None] | None = None,
    ):
        self.slot = slot
        self._intro = intro or _default_intro
        self._wait_s = wait_s
        self._on_close = on_close
        self.closed = threading.Event()  # the client closed the stream
        self._thread: threading.Thread | None = None

    @property
    def agents(self) -> dict[str, Slot]:
        """The slot by agent name, to merge into a rollout's team."""
        return {self.slot.name: self.slot}

    def start(self) -> StdioSlot:
        """Start serving on stdin and stdout."""
        self._thread = threading.Thread(target=self._run, name="mcp-stdio", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        import anyio

        try:
            anyio.run(self._serve)
        except Exception:
            logger.exception("the MCP stdio transport failed")
        finally:
            self.closed.set()
            if self._on_close is not None:
                self._on_close()

    async def _serve(self) -> None:
        from mcp.server.stdio import stdio_server

        server = _slot_server(self.slot, self._intro(self.slot), self._wait_s)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    def stop(self) -> None:
        """Stop answering (a call or read still waiting gets an error); safe twice.

        The thread reads stdin until the client closes it; it is a daemon, so it never
        holds the process up.
        """
        self.slot.shut()

    def __enter__(self) -> StdioSlot:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_served: dict[tuple[str, int], SlotServer] = {}


def slot_team(
    names: Sequence[str], *, host: str = "127.0.0.1", port: int = 8100, token: str | None = None
) -> dict[str, Slot]:
    """Slots for `names`, served at `host:port` by this process's `SlotServer` there.

    One server per address lives as long as the process (the bench's episodes come and
    go on the same endpoints); it is restarted when the names change (another swarm size).
    """
    server = _served.get((host, port))
    if server is None or [s.name for s in server.slots] != list(names):
        if server is not None:
            server.stop()
        server = SlotServer([Slot(a) for a in names], host=host, port=port, token=token)
        _served[(host, port)] = server.start()
    return server.agents


def _default_intro(slot: Slot) -> str:
    return (
        f"You are {slot.name}, one agent of a swarm working together on one software "
        f"project. Read the resource {OBSERVATION_URI} first: it says the task, who your "
        "teammates are and how the tools work. Then call one tool at a time; each call "
        "returns your next observation."
    )


def serve_slots(
    task: str,
    *,
    num_agents: int = 4,
    slots: int | None = None,
    teammates: Literal["none", "claim", "leader"] = "claim",
    config: Mapping[str, Any] | None = None,
    episodes: int = 1,
    host: str = "127.0.0.1",
    port: int = 8100,
    slot_timeout_s: float = 300.0,
    token: str | None = None,
    stdio: bool = False,
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
    announce: Callable[[str], None] = print,
) -> list[Any]:
    """Run `episodes` episodes whose last `slots` agents are MCP slots; returns trajectories.

    The first `num_agents - slots` agents are scripted teammates with the strategy
    `teammates` (`swarm_envs.agents.scripted`). With `stdio`, the one slot (the last
    agent) is served over this process's stdin and stdout; the run ends early, with the
    episodes played so far, when the client closes stdin. Ctrl-C (`KeyboardInterrupt`)
    stops it at once: the slots answer what waits, the server stops, the sandbox goes.

    Raises:
        ConfigError: more slots than agents, more than one slot over stdio, or what the
            environment refuses.
    """
    import _thread

    from swarm_envs import parallel_env, rollout
    from swarm_envs.agents.scripted import make_team

    config = dict(config or {})
    seed = config.get("seed") or 0
    n_slots = (1 if stdio else num_agents) if slots is None else slots
    if not 1 <= n_slots <= num_agents:
        raise ConfigError(f"--slots {n_slots}: expected 1 to --agents ({num_agents})")
    if stdio and n_slots != 1:
        raise ConfigError(
            f"--slots {n_slots} with --stdio: a process has one stdin, so one slot; serve "
            "more slots over HTTP (without --stdio)"
        )
    env = parallel_env(find_task(task), num_agents=num_agents, **config)
    names = list(env.possible_agents)
    slot_agents = [Slot(a) for a in names[num_agents - n_slots :]]
    server: SlotServer | StdioSlot
    playing = threading.Event()

    def client_gone() -> None:
        # The client closing stdin ends the command, as Ctrl-C does: the rollout waits in
        # the main thread, and only an interrupt reaches it there; never once it is over.
        if playing.is_set():
            _thread.interrupt_main()

    if stdio:
        server = StdioSlot(slot_agents[0], on_close=client_gone)
    else:
        server = SlotServer(
            slot_agents,
            host=host,
            port=port,
            token=token,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
        )
    out = []
    playing.set()
    try:
        with server:
            if isinstance(server, SlotServer):
                for s in slot_agents:
                    announce(f"{s.name}: {server.url(s)}")
            else:
                announce(f"{slot_agents[0].name}: MCP over this process's stdin and stdout")
            for k in range(episodes):
                team: dict[str, Any] = dict(make_team(env.task, num_agents, teammates, seed + k))
                team.update(server.agents)
                trajectory = rollout(env, team, seed=seed + k, act_timeout_s=slot_timeout_s)
                view = env.view()
                announce(
                    f"episode {k}: {view.tests_passed}/{view.tests_total} tests pass at "
                    f"t={view.time:.0f}s ({view.end}: {view.end_reason})"
                )
                out.append(trajectory)
    except KeyboardInterrupt:
        if not (isinstance(server, StdioSlot) and server.closed.is_set()):
            raise
        announce("the MCP client closed the stream; stopping")
    finally:
        playing.clear()
        env.close()
    return out
