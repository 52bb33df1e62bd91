"""The OpenEnv server: one sandboxed swarm episode per WebSocket session.

    swarm-envs serve calc --num-agents 4 --max-sessions 8        # ws://127.0.0.1:8000/ws

Built on openenv-core's server side (`HTTPEnvServer`): its WebSocket endpoint `/ws`
(`reset`, `step`, `state`, `close` messages) gives every connection its own
`SwarmEnvironment`, hence its own `SwarmParallelEnv` and sandbox; `/health`, `/schema`
and `/metadata` describe it. The server registers openenv-core's *production* routes: the
stateless HTTP `/reset` and `/step` (a new environment per request, closed after it) make
no sense for an episode of many steps, and each would build a sandbox outside the session
limit.

The engine owns the step: `SwarmEnvironment.step` is one `SwarmParallelEnv.step`, and
the types only translate (see `swarm_envs.serve.models`).

Lifetimes: a session that disconnects is closed at once (its sandbox removed); one that
sends nothing for `idle_timeout_s` is closed by openenv-core's reaper, and its next
message is an error that says so. `max_sessions` refuses the next connection with a
`CAPACITY_REACHED` error. A malformed message, an unknown agent or a step of a finished
episode is an error response on that session; the server and the other sessions go on.

Security: the server binds to 127.0.0.1 unless told otherwise; on any other address it
requires a bearer token (`Authorization: Bearer ...`), checked before any route runs. A
request from a web page (an `Origin` not on the allow-list) or under a `Host` that is not
the server's (DNS rebinding) is refused, on every route, as the MCP slots refuse them; and
every WebSocket message is checked against the protocol's schema
(`swarm_envs.serve.messages`) before openenv-core reads it, so that a message it cannot
take is a typed error naming the field and the session lives on (see `swarm_envs.serve.http`).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import ConcurrencyConfig, EnvironmentMetadata, ServerMode

from swarm_envs.core.actions import Action, Usage
from swarm_envs.core.config import EnvConfig
from swarm_envs.error import ConfigError, SessionError
from swarm_envs.serve.http import (
    TOKEN_ENV,
    Gate,
    default_allowed_hosts,
    default_allowed_origins,
    find_task,
    is_loopback,
    netloc,
)
from swarm_envs.serve.messages import check_message
from swarm_envs.serve.models import SwarmAction, SwarmObservation, SwarmState

logger = logging.getLogger("swarm_envs")

#: `reset` keywords a client may send (openenv-core's and ours)
RESET_KEYS = ("seed", "episode_id", "time_cap", "options")


def _plain(value: Any) -> Any:
    """JSON data with infinities as None (what JSON can carry)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class SwarmEnvironment(Environment[SwarmAction, SwarmObservation, SwarmState]):
    """One session's swarm episode, behind openenv-core's `Environment` interface.

    The `SwarmParallelEnv` (and with it the sandbox) is made at the first `reset`, so that
    openenv-core's metadata and schema requests, which make an environment of their own,
    cost nothing.

    Args:
        task: task id, name or folder.
        config: the environment's configuration (`EnvConfig` fields).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, task: str, config: Mapping[str, Any]):
        super().__init__()
        self._task = task
        self._config = dict(config)
        self._env: Any = None
        self._closed = False
        self._episode_id: str | None = None
        self._steps = 0
        # Reset, step and close of one session arrive on its own executor thread, but the
        # idle reaper may close it while a step runs: the lock orders them.
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ protocol

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> SwarmObservation:
        """Start an episode; `time_cap` (virtual seconds) and `options` as `env.reset` takes."""
        unknown = sorted(set(kwargs) - set(RESET_KEYS))
        if unknown:
            raise ConfigError(f"reset: unknown key(s) {unknown}; expected some of {RESET_KEYS}")
        options = dict(kwargs.get("options") or {})
        if kwargs.get("time_cap") is not None:
            options["time_cap"] = kwargs["time_cap"]
        with self._lock:
            self._check_open()
            if self._env is None:
                from swarm_envs import parallel_env

                self._env = parallel_env(self._task, **self._config)
            observations, infos = self._env.reset(seed=seed, options=options)
            # Every episode has an id, the client's or a fresh one: logs and results of
            # many sessions need one to be told apart.
            self._episode_id = episode_id if episode_id is not None else uuid.uuid4().hex
            self._steps = 0
            return self._observation(observations, {}, False, False, infos, 0.0)

    def step(
        self, action: SwarmAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SwarmObservation:
        """Apply the ready agents' actions: one `SwarmParallelEnv.step`."""
        with self._lock:
            self._check_open()
            if self._env is None or not self._env.agents:
                raise SessionError(
                    "step before reset, or after the episode ended: send a reset first"
                )
            names = set(self._env.possible_agents)
            unknown = sorted(map(str, (set(action.actions) | set(action.usage)) - names))
            if unknown:
                raise SessionError(
                    f"unknown agent(s) {unknown}; agents are {self._env.possible_agents[0]}.."
                    f"{self._env.possible_agents[-1]}; nothing of this step was applied"
                )
            actions = {
                a: Action(tool_call=call, usage=Usage.model_validate(action.usage[a]))
                if a in action.usage
                else call
                for a, call in action.actions.items()
            }
            # Time stands still while a ready agent has not acted: say who, or a partial
            # step looks like a server that did nothing.
            missing = [a for a in self._env.ready_agents if a not in actions]
            obs, rewards, terminated, truncated, infos = self._env.step(actions)
            self._steps += 1
            done_t = any(terminated.values())
            done_f = any(truncated.values())
            reward = next(iter(rewards.values()), 0.0)
            out = self._observation(obs, rewards, done_t, done_f, infos, reward)
            out.missing_actions = missing
            return out

    @property
    def parallel_env(self) -> Any:
        """The session's `SwarmParallelEnv` (None before the first reset and once closed)."""
        return self._env

    @property
    def state(self) -> SwarmState:
        """The session's episode as a whole."""
        env = self._env
        if env is None or self._closed:
            return SwarmState(episode_id=self._episode_id, step_count=self._steps, task=self._task)
        view = env.view()
        return SwarmState(
            episode_id=self._episode_id,
            step_count=self._steps,
            task=env.task.id,
            agents=list(env.possible_agents),
            live=list(env.agents),
            ready=env.ready_agents,
            time=view.time,
            time_cap=_plain(view.time_cap),
            tests_passed=view.tests_passed,
            tests_total=view.tests_total,
            ended=view.end,
            end_reason=view.end_reason,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        """The task and the swarm's size, for openenv-core's `/metadata`."""
        from swarm_envs import __version__

        task = find_task(self._task)
        n = self._config.get("num_agents", EnvConfig.model_fields["num_agents"].default)
        return EnvironmentMetadata(
            name=f"swarm-envs/{task.id}",
            description=f"{n} agents on one sandboxed project: {task.manifest.description}",
            version=__version__,
        )

    def close(self) -> None:
        """End the episode and remove its sandbox (safe to call twice)."""
        with self._lock:
            self._closed = True
            if self._env is not None:
                self._env.close()
                self._env = None

    # ------------------------------------------------------------------ helpers

    def _check_open(self) -> None:
        if self._closed:
            raise SessionError(
                "this session was closed (idle past the server's timeout, or shut down) and "
                "its sandbox removed; open a new session and reset"
            )

    def _observation(
        self,
        obs: dict[str, str],
        rewards: dict[str, float],
        terminated: bool,
        truncated: bool,
        infos: Mapping[str, Any],
        reward: float,
    ) -> SwarmObservation:
        env = self._env
        view = env.view()
        return SwarmObservation(
            done=terminated or truncated,
            reward=reward,
            observations=obs,
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            ready=env.ready_agents,
            infos=_plain({a: dict(i) for a, i in infos.items()}),
            time=view.time,
            time_left=_plain(view.time_left),
            tests_passed=view.tests_passed,
            tests_total=view.tests_total,
            end_reason=view.end_reason,
        )


# ---------------------------------------------------------------------- the app


def build_app(
    task: str,
    config: Mapping[str, Any] | None = None,
    *,
    max_sessions: int = 8,
    idle_timeout_s: float | None = 300.0,
    token: str | None = None,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
) -> Any:
    """The ASGI app that serves `task`: a FastAPI app behind the gate (`Gate`).

    Args:
        task: task id, name or folder.
        config: `EnvConfig` fields of every session's environment (checked here).
        max_sessions: sessions (episodes, sandboxes) at once; the next is refused.
        idle_timeout_s: a session that sends nothing this long is closed (None: never).
        token: the bearer token every request must carry (None: no check).
        host: the address the app is served on (the default allow-lists follow it).
        allowed_hosts: `Host` values answered (`name:*` any port; default: the loopback
            names and `host`, any name on a wildcard address).
        allowed_origins: `Origin` values answered (default: pages of this machine; a
            request without one, as from any non-browser client, is always answered).

    Raises:
        ConfigError: an invalid configuration, task or limit, named.
    """
    from fastapi import FastAPI

    from swarm_envs import __version__

    config = dict(config or {})
    EnvConfig.build(**config)  # a bad field fails here, before any session
    task_id = find_task(task).id
    if max_sessions < 1:
        raise ConfigError(f"max_sessions={max_sessions}: expected at least 1")
    if idle_timeout_s is not None and not idle_timeout_s > 0:
        raise ConfigError(f"idle_timeout_s={idle_timeout_s}: expected a positive number")
    app = FastAPI(
        title=f"swarm-envs: {task_id}",
        version=__version__,
        description="An OpenEnv server of swarm episodes: one sandboxed episode per session "
        "over the WebSocket /ws.",
    )
    server = HTTPEnvServer(
        functools.partial(SwarmEnvironment, task, config),
        SwarmAction,
        SwarmObservation,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s
        ),
    )
    server.register_routes(app, mode=ServerMode.PRODUCTION)
    app.state.openenv = server
    return Gate(
        app,
        token,
        allowed_hosts=default_allowed_hosts(host) if allowed_hosts is None else allowed_hosts,
        allowed_origins=(
            default_allowed_origins(host) if allowed_origins is None else allowed_origins
        ),
        guards={"/ws": check_message},
    )


def serve(
    task: str,
    config: Mapping[str, Any] | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    max_sessions: int = 8,
    idle_timeout_s: float | None = 300.0,
    token: str | None = None,
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
    log_level: str = "warning",
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve `task` until interrupted (see `build_app`); `port=0` takes a free port.

    `announce` is called once the port is bound, with the address clients connect to.

    Raises:
        ConfigError: a non-loopback `host` without a `token`, or what `build_app` refuses.
    """
    import uvicorn

    if not is_loopback(host) and not token:
        raise ConfigError(
            f"--host {host}: serving beyond this machine needs a bearer token; set "
            f"{TOKEN_ENV} (clients send it as 'Authorization: Bearer ...')"
        )
    app = build_app(
        task,
        config,
        max_sessions=max_sessions,
        idle_timeout_s=idle_timeout_s,
        token=token,
        host=host,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )
    # A client's open session must not hold Ctrl-C up: past the grace period its
    # connection is cut, and its session closed (its sandbox removed) as at a disconnect.
    served = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=64 * 2**20,
        timeout_graceful_shutdown=3,
    )
    # Bound here, before the announcement, so that `--port 0` announces the port it got.
    sock = served.bind_socket()
    port = sock.getsockname()[1]
    if announce is not None:
        announce(f"serving {task} at ws://{netloc(host, port)}/ws, at most {max_sessions} sessions")
    uvicorn.Server(served).run(sockets=[sock])


__all__ = ["TOKEN_ENV", "SwarmEnvironment", "build_app", "serve"]
