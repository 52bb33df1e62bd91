"""The `swarm-envs validate` command: one task, a suite or every task checked, in a table."""

from __future__ import annotations

import argparse
import time

from swarm_envs.arguments import add_suite_filter, console
from swarm_envs.error import Error


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs validate`."""
    parser.description = (
        "Validate tasks: the reference passes, the start fails a known number, "
        "every unit is covered by its tests, tests are deterministic."
    )
    parser.add_argument("task", nargs="?", help="task id, name or folder")
    parser.add_argument("--all", action="store_true", help="every registered task")
    add_suite_filter(parser)
    parser.add_argument("--quick", action="store_true", help="skip the per-unit sensitivity check")


def run(args: argparse.Namespace) -> int:
    """Validate one task or all of them."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from swarm_envs.generation.validation import validate
    from swarm_envs.tasks import broken, get_task, registered

    if args.all == bool(args.task):
        raise Error("give a TASK or --all (not both)")
    names = sorted(registered()) if args.all else [args.task]
    if args.suite:
        names = [n for n in names if get_task(n).manifest.suite == args.suite]
    table = Table(title="task validation")
    for col in ("task", "tests", "units", "start passing", "seconds", "result"):
        table.add_column(col, justify="left" if col in ("task", "result") else "right")
    failed = 0
    t0 = time.perf_counter()
    for name in names:
        task = get_task(name)
        with Progress(
            TextColumn(f"{task.id}: {{task.description}}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
        ) as progress:
            bar = progress.add_task("checking the reference and the start", total=None)

            def report(stage: str, done: int, total: int, bar: object = bar) -> None:
                progress.update(bar, description=stage, completed=done, total=total)  # type: ignore[arg-type]

            rep = validate(task, check_units=not args.quick, progress=report)
        failed += not rep.ok
        result = "ok" if rep.ok else "[red]" + "; ".join(rep.problems[:3]) + "[/red]"
        table.add_row(
            rep.task,
            str(rep.tests),
            str(rep.units),
            str(rep.start_passing),
            f"{rep.seconds:.1f}",
            result,
        )
    if args.all:
        for folder, why in broken().items():
            failed += 1
            table.add_row(folder, "-", "-", "-", "-", f"[red]invalid manifest: {why}[/red]")
    console.print(table)
    console.print(
        f"{len(names) - failed} of {len(names)} tasks valid in {time.perf_counter() - t0:.1f} s"
    )
    return 1 if failed else 0
