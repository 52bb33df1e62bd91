"""Serving: swarm episodes reachable from other processes (extra `serve`).

- `swarm_envs.serve.server`: the OpenEnv server (`swarm-envs serve TASK`), one sandboxed
  episode per WebSocket session, built on openenv-core's server side;
- `swarm_envs.serve.client`: `SwarmEnvClient`, openenv-core's `EnvClient` for it;
- `swarm_envs.serve.models`: the typed action, observation and state of a swarm step;
- `swarm_envs.serve.messages`: the schema of what a client may send, checked before
  openenv-core reads a message;
- `swarm_envs.serve.http`: what both servers share: the gate (token, origins, hosts);
- `swarm_envs.serve.mcp`: agent slots over MCP (`swarm-envs mcp TASK`, over HTTP or
  stdio), so that any MCP-speaking coding agent can be one of a swarm's agents;
- `swarm_envs.serve.cli_serve`, `swarm_envs.serve.cli_mcp`: those two commands.

Layer: above the environment's public API (`swarm_envs.parallel_env`, `tool_schemas`,
`Action`, the rollout runner), beside the CLI; nothing below imports it. The engine stays
the only owner of the step: these modules translate.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from swarm_envs.serve.client import SwarmEnvClient
    from swarm_envs.serve.models import SwarmAction, SwarmObservation, SwarmState
    from swarm_envs.serve.server import SwarmEnvironment, build_app, serve

# Imported on first use: openenv-core (with gradio) takes seconds to import, and the MCP
# slots do not need it.
_WHERE = {
    "SwarmEnvClient": "client",
    "SwarmAction": "models",
    "SwarmObservation": "models",
    "SwarmState": "models",
    "SwarmEnvironment": "server",
    "build_app": "server",
    "serve": "server",
}

__all__ = [
    "SwarmAction",
    "SwarmEnvClient",
    "SwarmEnvironment",
    "SwarmObservation",
    "SwarmState",
    "build_app",
    "serve",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'swarm_envs.serve' has no attribute {name!r}")
    return getattr(importlib.import_module(f"swarm_envs.serve.{_WHERE[name]}"), name)
