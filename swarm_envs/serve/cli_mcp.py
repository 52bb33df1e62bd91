"""The `swarm-envs mcp` command: agent slots of a swarm served over MCP."""

from __future__ import annotations

import argparse
import os

from rich.console import Console

from swarm_envs.arguments import (
    add_serving_flags,
    console,
    env_config,
    import_extra,
    positive_float,
    positive_int,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs mcp`."""
    parser.description = (
        "Run episodes of a swarm in which SLOTS agents are MCP clients (each slot "
        "at http://HOST:PORT/<agent>/mcp, or one slot over stdin/stdout with --stdio; its "
        "tools those of swarm_envs.tool_schemas()) and the others scripted teammates. Needs "
        "the serve extra."
    )
    add_serving_flags(parser, 8100)
    parser.add_argument(
        "--agents", "-n", type=positive_int, default=4, help="swarm size (default 4)"
    )
    parser.add_argument(
        "--slots", type=positive_int, help="agents played over MCP (default: all), the last ones"
    )
    parser.add_argument(
        "--teammates",
        choices=["none", "claim", "leader"],
        default="claim",
        help="strategy of the scripted teammates (default claim)",
    )
    parser.add_argument("--episodes", type=positive_int, default=1, help="episodes (default 1)")
    parser.add_argument(
        "--slot-timeout",
        type=positive_float,
        default=300.0,
        help="a slot silent this many wall seconds is out of the episode (default 300)",
    )
    parser.add_argument(
        "--wall-clock",
        action="store_true",
        help="charge MCP agents their measured wall time (else the usage they report)",
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="serve one slot (the last agent) over this process's stdin and stdout, for MCP "
        "hosts that start servers as processes; the command's own output goes to stderr",
    )


def run(args: argparse.Namespace) -> int:
    """Serve agent slots of a swarm over MCP, next to scripted teammates."""
    slots = import_extra("swarm_envs.serve.mcp", "serve")
    config = env_config(args)
    if args.wall_clock:
        config["time"] = {**config.get("time", {}), "measured": True}
    # Over stdio, stdout is the protocol's: everything the command says goes to stderr.
    out = Console(stderr=True) if args.stdio else console
    slots.serve_slots(
        args.task,
        num_agents=args.agents,
        slots=args.slots,
        teammates=args.teammates,
        config=config,
        episodes=args.episodes,
        host=args.host,
        port=args.port,
        slot_timeout_s=args.slot_timeout,
        token=os.environ.get(slots.TOKEN_ENV) or None,
        stdio=args.stdio,
        allowed_hosts=args.allow_host,
        allowed_origins=args.allow_origin,
        announce=lambda text: out.print(text, markup=False, highlight=False),
    )
    return 0
