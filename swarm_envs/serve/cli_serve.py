"""The `swarm-envs serve` command: a task served over OpenEnv, one episode per session."""

from __future__ import annotations

import argparse
import os

from swarm_envs.arguments import (
    add_serving_flags,
    console,
    env_config,
    import_extra,
    positive_float,
    positive_int,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs serve`."""
    parser.description = (
        "Serve a task with openenv-core's server: every WebSocket session at /ws "
        "is one swarm episode in its own sandbox (see docs/integrations.md). Needs the serve "
        "extra."
    )
    add_serving_flags(parser, 8000)
    parser.add_argument(
        "--num-agents", "-n", type=positive_int, default=4, help="agents per episode (default 4)"
    )
    parser.add_argument(
        "--max-sessions", type=positive_int, default=8, help="sessions at once (default 8)"
    )
    parser.add_argument(
        "--idle-timeout",
        type=positive_float,
        default=300.0,
        help="close a session silent this many seconds (default 300)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve a task over the OpenEnv protocol: one sandboxed episode per session."""
    server = import_extra("swarm_envs.serve.server", "serve")
    config = {**env_config(args), "num_agents": args.num_agents}
    server.serve(
        args.task,
        config,
        host=args.host,
        port=args.port,
        max_sessions=args.max_sessions,
        idle_timeout_s=args.idle_timeout,
        token=os.environ.get(server.TOKEN_ENV) or None,
        allowed_hosts=args.allow_host,
        allowed_origins=args.allow_origin,
        announce=lambda text: console.print(text, markup=False, highlight=False),
    )
    return 0
