"""The `swarm-envs generate` command: reproducible stub or bug instances of a task."""

from __future__ import annotations

import argparse
from pathlib import Path

from swarm_envs.arguments import console, positive_int


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs generate`."""
    parser.description = "Generate reproducible task instances from a task's reference project."
    parser.add_argument("task", help="task id, name or folder")
    parser.add_argument("--kind", choices=["stub", "bug"], default="stub")
    parser.add_argument("-k", type=positive_int, default=3, help="units to stub or break")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--count", type=positive_int, default=1, help="instances (seeds seed..seed+count-1)"
    )
    parser.add_argument("--out", help="parent folder (default: the user cache)")


def run(args: argparse.Namespace) -> int:
    """Generate task instances."""
    from swarm_envs.generation.generators import generate, instance_name
    from swarm_envs.tasks import get_task

    task = get_task(args.task)
    for seed in range(args.seed, args.seed + args.count):
        name = instance_name(task, args.kind, args.k, seed)
        dest = Path(args.out) / name if args.out else None
        inst = generate(task, args.kind, args.k, seed, dest)
        units = ", ".join(u.name for u in inst.units)
        console.print(f"{inst.id} ({units})", markup=False, highlight=False, soft_wrap=True)
        # The folder, not the id: an instance is registered in this process only.
        console.print(f"  swarm-envs run {inst.root}", markup=False, soft_wrap=True)
    return 0
