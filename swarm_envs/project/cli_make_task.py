"""The `swarm-envs make-task` command: a project folder with a pytest suite made a task."""

from __future__ import annotations

import argparse

from swarm_envs.arguments import add_quiet, add_wheels, console, positive_float, positive_int
from swarm_envs.tasks import SUITES


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs make-task`."""
    parser.description = (
        "Bring your own project: read it as it comes (src/ layout, tests in or "
        "out of the package, pytest settings, requirements), run its tests once instrumented, "
        "confirm its units by probing them, and write a task folder."
    )
    parser.add_argument("source", help="the project's folder (an unpacked sdist or a checkout)")
    parser.add_argument("--name", required=True, help="task name (lower-case, digits, '_', '-')")
    parser.add_argument("--out", required=True, help="task folder to write (new or empty)")
    parser.add_argument(
        "--duration", type=positive_float, default=20.0, help="modelled test run (s)"
    )
    parser.add_argument(
        "--max-units", type=positive_int, help="keep at most this many units (fewer probes)"
    )
    parser.add_argument(
        "--requires",
        action="append",
        default=[],
        metavar="SPEC",
        help="a third-party requirement the tests need (repeatable)",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out test files matching GLOB, e.g. tests/test_benchmarks.py (repeatable)",
    )
    parser.add_argument(
        "--deselect-failing",
        action="store_true",
        help="deselect tests the reference fails here instead of stopping (they are listed)",
    )
    add_wheels(parser)
    parser.add_argument("--suite", choices=SUITES, default="custom", help="the task's suite")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    """Turn a project folder into a task."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from swarm_envs.project import build_task

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=args.quiet,
        transient=True,
    ) as progress:
        bars: dict[str, object] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=total)
            progress.update(bars[stage], completed=done, total=total)  # type: ignore[arg-type]

        result = build_task(
            args.source,
            args.out,
            name=args.name,
            duration_s=args.duration,
            max_units=args.max_units,
            requires=args.requires,
            exclude=args.exclude,
            deselect_failing=args.deselect_failing,
            wheels=args.wheels,
            suite=args.suite,
            progress=report,
        )
    task = result.task
    insensitive = [n for n in result.notes if n.why == "stubbing it fails none of its tests"]
    for note in result.notes:
        if note not in insensitive:
            style = {"warning": "yellow", "dropped": "dim"}.get(note.kind, "")
            console.print(f"  {note}", style=style, markup=False, highlight=False)
    if insensitive:
        console.print(
            f"  dropped: {len(insensitive)} functions whose stub fails none of their tests"
        )
    for line in result.deselection():
        style = "yellow" if line.startswith("warning") else ""
        console.print(line, style=style, markup=False, highlight=False, soft_wrap=True)
    layered = sum(1 for u in task.units if u.depends_on)
    console.print(
        f"wrote {task.root}: {len(task.units)} units ({layered} depend on others) of "
        f"{result.candidates} functions the tests reach, in {sum(result.seconds.values()):.1f} s",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for u in task.units[:20]:
        deps = f" (after {', '.join(u.depends_on)})" if u.depends_on else ""
        console.print(f"  {u.name}: {len(u.tests)} tests{deps}", markup=False, highlight=False)
    if len(task.units) > 20:
        console.print(f"  ... and {len(task.units) - 20} more")
    console.print(
        f"next: swarm-envs validate {task.root}; swarm-envs run {task.root} --agents 4",
        markup=False,
        soft_wrap=True,
    )
    return 0
