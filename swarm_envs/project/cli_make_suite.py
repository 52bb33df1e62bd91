"""The `swarm-envs make-suite` command: many real projects built into a validated suite."""

from __future__ import annotations

import argparse
from pathlib import Path

from swarm_envs.arguments import add_wheels, console, positive_float, positive_int
from swarm_envs.tasks import SUITES


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs make-suite`."""
    parser.description = (
        "Download each project's sdist with pip, make it into a task "
        "(--deselect-failing), validate it, in parallel worker processes; resumable. One "
        "line per project, failures grouped by cause, a summary table. The valid tasks form "
        "a suite (swarm-envs bench --tasks real-plus; swarm-envs train --task real-plus)."
    )
    parser.add_argument(
        "spec", help="a file of name==version lines or sdist paths, or 'catalogue' (shipped)"
    )
    parser.add_argument("--out", help="the suite's folder (default: the user cache)")
    parser.add_argument(
        "--suite-name", choices=SUITES, default="real-plus", help="the tasks' suite"
    )
    parser.add_argument("--workers", type=positive_int, default=1, help="projects built at once")
    add_wheels(parser)
    parser.add_argument("--quick", action="store_true", help="validate without the per-unit check")
    parser.add_argument("--max-units", type=positive_int, help="at most this many units per task")
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=1800.0,
        help="seconds per project (stopped after)",
    )
    parser.add_argument("--retry", action="store_true", help="build the failed projects again")
    parser.add_argument(
        "--instances",
        metavar="KIND:N,...",
        help="also generate N instances of each kind per valid task, e.g. stub:2,bug:1",
    )
    parser.add_argument(
        "--instance-k", type=positive_int, default=2, help="units stubbed or broken per instance"
    )
    parser.add_argument(
        "--min-tests",
        type=positive_int,
        default=10,
        help="a task with fewer canonical tests is not valid (default 10)",
    )


def run(args: argparse.Namespace) -> int:
    """Build many projects into a validated suite of tasks."""
    from swarm_envs.project.suite import make_suite, parse_instances, read_spec

    entries = read_spec(args.spec)
    instances = parse_instances(args.instances)
    console.print(
        f"make-suite: {len(entries)} projects, {args.workers} workers, suite {args.suite_name}",
        markup=False,
        highlight=False,
    )
    outcomes = make_suite(
        entries,
        Path(args.out) if args.out else None,
        suite=args.suite_name,
        workers=args.workers,
        wheels=Path(args.wheels) if args.wheels else None,
        quick=args.quick,
        max_units=args.max_units,
        timeout_s=args.timeout,
        retry=args.retry,
        instances=instances,
        instance_k=args.instance_k,
        min_tests=args.min_tests,
        line=lambda text: console.print(text, markup=False, highlight=False, soft_wrap=True),
    )
    return 0 if outcomes and all(o.valid for o in outcomes) else 1
