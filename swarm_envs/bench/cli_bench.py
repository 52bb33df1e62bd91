"""The `swarm-envs bench` command: a bench's grid run, with its report and plots."""

from __future__ import annotations

import argparse

from swarm_envs.arguments import add_quiet, console, positive_float, positive_int
from swarm_envs.distributed import WorkerPool
from swarm_envs.tasks import SUITES


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs bench`."""
    parser.description = (
        "Run every configuration of a bench (agents x swarm sizes x tasks or "
        "suites x seeds) in worker processes or Ray actors (--ray), record every episode "
        "and write report.md, "
        "figures.json and PNG plots. Flags override the --config file."
    )
    parser.add_argument("--config", metavar="TOML", help="bench configuration file")
    parser.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="agents to compare (repeatable): none, claim, leader, llm:MODEL@URL or "
        "package.module:factory (default claim)",
    )
    parser.add_argument("--sizes", type=positive_int, nargs="+", metavar="N", help="swarm sizes")
    parser.add_argument(
        "--tasks", nargs="+", metavar="TASK", help=f"tasks or suites {list(SUITES)}"
    )
    parser.add_argument("--seeds", type=int, nargs="+", metavar="SEED")
    parser.add_argument(
        "--time-cap", type=positive_float, help="virtual seconds (default per suite)"
    )
    parser.add_argument(
        "--budgets", type=positive_float, nargs="+", metavar="S", help="@time budgets (s)"
    )
    parser.add_argument(
        "--token-budget-per-test",
        type=positive_float,
        metavar="TOKENS",
        help="also run under an equal total token budget: this many tokens per test",
    )
    parser.add_argument("--p-wrong", type=float, help="scripted agents: chance of a wrong attempt")
    parser.add_argument(
        "--work-model",
        choices=["flat", "conversation"],
        help="scripted agents' input tokens: 'flat' (the default: observations read, capped) "
        "or 'conversation' (the prompt an LLMAgent would send, under its context policy)",
    )
    parser.add_argument("--wall-clock", action="store_true", help="measured time (real servers)")
    parser.add_argument("--workers", type=positive_int, help="worker processes (or Ray actors)")
    WorkerPool.add_ray_arguments(parser)
    parser.add_argument("--out", help="output folder (default bench_out)")
    parser.add_argument("--no-plots", action="store_true", help="no PNG plots")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    """Run a bench (agents x sizes x tasks x seeds) and write its report and plots."""
    from swarm_envs.bench import build_config, parse_agent, run_bench, write_report

    overrides = {
        "agents": [parse_agent(a) for a in args.agent] if args.agent else None,
        "sizes": args.sizes,
        "tasks": args.tasks,
        "seeds": args.seeds,
        "time_cap_s": args.time_cap,
        "budgets_s": args.budgets,
        "token_budget_per_test": args.token_budget_per_test,
        "wall_clock": args.wall_clock or None,
        "workers": args.workers,
        "ray": args.ray or None,
        "ray_address": args.ray_address,
        "out": args.out,
        "plots": False if args.no_plots else None,
    }
    scripted = {"p_wrong": args.p_wrong, "work_model": args.work_model}
    scripted = {k: v for k, v in scripted.items() if v is not None}
    if scripted:
        overrides["agents"] = [
            {**a, **scripted} if a.get("kind") == "scripted" else a
            for a in overrides["agents"] or [{"kind": "scripted"}]
        ]
    config = build_config(args.config, overrides)
    run = run_bench(config, progress=not args.quiet, console=console)
    report = write_report(run)
    failed = sum(1 for r in run.results if r.status == "failed")
    console.print(
        f"{len(run.results)} episodes ({failed} failed) in {run.wall_s:.1f} s; report: {report}"
    )
    return 0
