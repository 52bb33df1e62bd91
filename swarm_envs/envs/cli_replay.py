"""The `swarm-envs replay` command: a table per episode of a JSON Lines recording."""

from __future__ import annotations

import argparse

from swarm_envs.arguments import console
from swarm_envs.error import Error


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs replay`."""
    parser.description = "Summarise the episodes of a JSON Lines recording."
    parser.add_argument("file", help="a recording made with `run --record` or record_path=...")


def run(args: argparse.Namespace) -> int:
    """Summarise a recording."""
    from rich.table import Table

    from swarm_envs.core.recording import summarize

    try:
        episodes = summarize(args.file)
    except FileNotFoundError:
        raise Error(f"no such recording: {args.file}") from None
    except (UnicodeDecodeError, IsADirectoryError) as e:
        raise Error(f"{args.file} is not a swarm-envs recording: {e}") from None
    if not episodes:
        raise Error(f"{args.file} holds no episode")
    for n, ep in enumerate(episodes):
        table = Table(title=f"episode {n}: {ep['task']}, {ep['agents']} agents, seed {ep['seed']}")
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_row(
            "tests passing", f"{ep['start_passed']} -> {ep['final_passed']} / {ep['tests_total']}"
        )
        table.add_row("return (per agent)", f"{ep['return']:g}")
        table.add_row("virtual time", f"{ep['duration']:.1f} s of {ep['time_cap']:g} s")
        table.add_row("ended", ep["end"] or "(not finished)")
        table.add_row("steps", str(ep["steps"]))
        table.add_row("actions (errors)", f"{sum(ep['tools'].values())} ({ep['errors']})")
        table.add_row("tokens", str(ep["tokens"]))
        table.add_row(
            "actions by tool", ", ".join(f"{k} {v}" for k, v in ep["tools"].most_common())
        )
        busiest = ", ".join(f"{k} {v}" for k, v in ep["per_agent"].most_common(5))
        table.add_row("busiest agents", busiest)
        curve = " ".join(f"{t:.0f}s:{p}" for t, p in ep["curve"][-12:])
        table.add_row("progress (t:passing)", curve)
        console.print(table)
    return 0
