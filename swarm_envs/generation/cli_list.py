"""The `swarm-envs list` command: the registered tasks, their tests counted by collection."""

from __future__ import annotations

import argparse

from swarm_envs.arguments import add_suite_filter, console


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs list`."""
    parser.description = "List the tasks."
    add_suite_filter(parser)


def run(args: argparse.Namespace) -> int:
    """List the registered tasks."""
    from rich.table import Table

    from swarm_envs.scoring import collect_test_ids
    from swarm_envs.scoring.disk import DiskCache
    from swarm_envs.tasks import SUITES, get_task, registered

    tasks = sorted(
        (get_task(t) for t in registered()),
        key=lambda t: (SUITES.index(t.manifest.suite), t.id),
    )
    tasks = [t for t in tasks if not args.suite or t.manifest.suite == args.suite]
    table = Table(title="swarm-envs tasks")
    for col in ("suite", "task", "tests", "units", "layered", "test run (s)"):
        table.add_column(col, justify="left" if col in ("suite", "task") else "right")
    # The reference solutions' collections, kept on disk by the task folders' content: a
    # second `list` collects nothing.
    disk = DiskCache.default()
    with console.status("collecting the tests of each task..."):
        for t in tasks:
            tests = len(collect_test_ids(t, disk=disk).ids)
            layered = sum(1 for u in t.units if u.depends_on)
            table.add_row(
                t.manifest.suite,
                t.id,
                str(tests),
                str(len(t.units)),
                str(layered),
                f"{t.manifest.tests.duration_s:g}",
            )
    console.print(table)
    console.print(
        "make one: swarm_envs.parallel_env(TASK, num_agents=N) or "
        'gymnasium.make("swarm_envs:swarm/TASK"); "layered": units that depend on others; '
        '"test run": modelled virtual seconds of a full run'
    )
    return 0
