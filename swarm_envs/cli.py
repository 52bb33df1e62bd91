"""The `swarm-envs` command: list tasks, run a demo swarm, summarise a recording."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from swarm_envs.error import Error

console = Console()


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {v}")
    return v


# ---------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    from swarm_envs.task import get_task, registered

    table = Table(title="swarm-envs tasks")
    for col in ("suite", "task", "gymnasium id", "tests", "units", "modelled run (s)", "tags"):
        table.add_column(col, justify="right" if col in ("tests", "units") else "left")
    rows = []
    for task_id in registered():
        t = get_task(task_id)
        if args.suite and t.manifest.suite != args.suite:
            continue
        rows.append(t)
    order = {"mini": 0, "standard": 1, "long": 2, "custom": 3}
    for t in sorted(rows, key=lambda t: (order[t.manifest.suite], t.id)):
        n_tests = sum(
            _count_tests(p.read_text(encoding="utf-8")) for _, p in t.test_files() if p.suffix == ".py"
        )
        table.add_row(
            t.manifest.suite,
            t.id,
            f"swarm_envs:swarm/{t.id}",
            f"~{n_tests}",
            str(len(t.units)),
            f"{t.manifest.tests.duration_s:g}",
            ", ".join(t.manifest.tags),
        )
    console.print(table)
    console.print("test counts are counted statically (~); `swarm-envs validate` runs them")
    return 0


def _count_tests(source: str) -> int:
    # A quick static count for the listing: test functions, parametrized cases roughly.
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            cases = 1
            for dec in node.decorator_list:
                if (
                    isinstance(dec, ast.Call)
                    and getattr(dec.func, "attr", "") == "parametrize"
                    and len(dec.args) >= 2
                    and isinstance(dec.args[1], ast.List | ast.Tuple)
                ):
                    cases *= max(len(dec.args[1].elts), 1)
            count += cases
    return count


# ---------------------------------------------------------------------------- run


def cmd_run(args: argparse.Namespace) -> int:
    from swarm_envs import parallel_env
    from swarm_envs.baselines.scripted import make_team

    env = parallel_env(
        args.task,
        num_agents=args.agents,
        sync=args.sync,
        time_cap_s=args.time_cap,
        seed=args.seed,
        record_path=args.record,
        scorer=args.scorer,
        render_mode="ansi" if args.dashboard else None,
    )
    team = make_team(env.task, args.agents, args.strategy, seed=args.seed)
    t0 = time.perf_counter()
    obs, infos = env.reset(seed=args.seed)
    ep = env.episode
    total_reward = 0.0
    steps = actions = 0
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("tests | t={task.fields[t]:.0f}s"),
        TimeElapsedColumn(),
        console=console,
        disable=args.quiet,
    ) as progress:
        bar = progress.add_task(env.task.id, total=ep.tests_total, completed=ep.passed, t=0.0)
        while env.agents:
            acts = {a: team[a].act(obs[a], infos[a]) for a in env.agents if infos[a]["ready"]}
            actions += len(acts)
            obs, rewards, term, trunc, infos = env.step(acts)
            steps += 1
            total_reward += next(iter(rewards.values()), 0.0)
            progress.update(bar, completed=ep.passed, t=ep.now)
            if args.dashboard and steps % args.dashboard == 0:
                progress.console.print(env.render())
    wall = time.perf_counter() - t0
    end = f"{ep.ended} ({ep.end_reason})"
    table = Table(title=f"{env.task.id}: {args.agents} agents, strategy {args.strategy!r}")
    table.add_column("")
    table.add_column("", justify="right")
    for k, v in [
        ("tests passing", f"{ep.passed} / {ep.tests_total}"),
        ("episode return (per agent)", f"{total_reward:g}"),
        ("virtual time", f"{ep.now:.1f} s of {ep.time_cap:g} s"),
        ("ended", end),
        ("steps / actions", f"{steps} / {actions}"),
        ("messages sent", str(ep.post.sent)),
        ("tokens (all agents)", str(ep.tokens)),
        ("wall time", f"{wall:.2f} s"),
    ]:
        table.add_row(k, v)
    console.print(table)
    if args.record:
        console.print(f"recorded to {args.record}; summarise with `swarm-envs replay {args.record}`")
    env.close()
    return 0


# ---------------------------------------------------------------------------- replay


def cmd_replay(args: argparse.Namespace) -> int:
    from swarm_envs.recording import summarize

    try:
        episodes = summarize(args.file)
    except FileNotFoundError:
        raise Error(f"no such recording: {args.file}") from None
    except (ValueError, KeyError) as e:
        raise Error(f"{args.file} is not a swarm-envs recording: {e}") from None
    if not episodes:
        raise Error(f"{args.file} holds no episode")
    for n, ep in enumerate(episodes):
        table = Table(title=f"episode {n}: {ep['task']}, {ep['agents']} agents, seed {ep['seed']}")
        table.add_column("")
        table.add_column("", justify="right")
        table.add_row("tests passing", f"{ep['start_passed']} -> {ep['final_passed']} / {ep['tests_total']}")
        table.add_row("return (per agent)", f"{ep['return']:g}")
        table.add_row("virtual time", f"{ep['duration']:.1f} s of {ep['time_cap']:g} s")
        table.add_row("ended", ep["end"] or "(not finished)")
        table.add_row("steps", str(ep["steps"]))
        table.add_row("actions (errors)", f"{sum(ep['tools'].values())} ({ep['errors']})")
        table.add_row("tokens", str(ep["tokens"]))
        table.add_row("actions by tool", ", ".join(f"{k} {v}" for k, v in ep["tools"].most_common()))
        busiest = ", ".join(f"{k} {v}" for k, v in ep["per_agent"].most_common(5))
        table.add_row("busiest agents", busiest)
        curve = " ".join(f"{t:.0f}s:{p}" for t, p in ep["curve"][-12:])
        table.add_row("progress (t:passing)", curve)
        console.print(table)
    return 0


# ---------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swarm-envs",
        description="Environments in which a swarm of agents works on one software project.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="list the tasks and suites", description="List the tasks.")
    p.add_argument("--suite", choices=["mini", "standard", "long", "custom"], help="only this suite")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "run",
        help="run a scripted demo swarm on a task",
        description="Run a swarm of scripted agents on a task and print a summary.",
    )
    p.add_argument("task", help="task id or name (see `swarm-envs list`), or a task folder")
    p.add_argument("--agents", "-n", type=_positive_int, default=4, help="number of agents (default 4)")
    p.add_argument(
        "--strategy",
        choices=["none", "claim", "leader"],
        default="claim",
        help="coordination strategy of the scripted agents (default claim)",
    )
    p.add_argument("--sync", choices=["event", "round"], default="event", help="clock mode")
    p.add_argument("--time-cap", type=_positive_float, default=3600.0, help="virtual seconds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scorer", choices=["fast", "subprocess"], default="fast")
    p.add_argument("--record", metavar="FILE", help="record the episode to a JSON Lines file")
    p.add_argument("--dashboard", type=_positive_int, metavar="K", help="print the dashboard every K steps")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "replay",
        help="summarise a recorded episode",
        description="Summarise the episodes of a JSON Lines recording.",
    )
    p.add_argument("file", help="a recording made with `run --record` or record_path=...")
    p.set_defaults(func=cmd_replay)
    return parser


def _version() -> str:
    from swarm_envs import __version__

    return f"swarm-envs {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Error as e:
        console.print(f"[red]error:[/red] {e}")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
