"""The `swarm-envs` command: list tasks, run a demo swarm, bench agents, summarise a recording."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from swarm_envs.distributed import WorkerPool
from swarm_envs.error import ConfigError, Error
from swarm_envs.tasks import SUITES

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
    """List the registered tasks."""
    from swarm_envs.scoring import collect_test_ids
    from swarm_envs.scoring.disk import DiskCache
    from swarm_envs.tasks import get_task, registered

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


# ---------------------------------------------------------------------------- run


def cmd_run(args: argparse.Namespace) -> int:
    """Run a swarm on a task (scripted, or LLM agents on a server) and print a summary."""
    from swarm_envs import parallel_env
    from swarm_envs.agents.scripted import make_team

    if args.agent:
        return _run_llm(args)

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
    team = make_team(
        env.task, args.agents, args.strategy, seed=args.seed, work_model=args.work_model
    )
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
                # Plain text: rich would read the bars' "[###...]" as markup.
                progress.console.print(Text(env.render() or ""))
    wall = time.perf_counter() - t0
    end = f"{ep.ended} ({ep.end_reason})"
    table = Table(title=f"{env.task.id}: {args.agents} agents, strategy {args.strategy!r}")
    table.add_column("measure")
    table.add_column("value", justify="right")
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
        console.print(
            f"recorded to {args.record}; summarise with `swarm-envs replay {args.record}`"
        )
    env.close()
    return 0


def _run_llm(args: argparse.Namespace) -> int:
    """`run --agent llm:MODEL@URL`: a swarm of LLM agents through the rollout runner."""
    from swarm_envs import parallel_env, rollout
    from swarm_envs.bench.config import parse_agent

    spec = parse_agent(args.agent)
    if spec["kind"] != "llm":
        raise ConfigError(f"--agent {args.agent!r}: expected llm:MODEL@URL")
    try:
        from swarm_envs.agents import LLMAgent
    except ModuleNotFoundError as e:
        raise ConfigError(str(e)) from None
    team = LLMAgent.team(
        args.agents,
        model=spec["model"],
        base_url=spec["base_url"],
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        context_tokens=args.context_tokens,
        stop=args.stop or None,
        timeout_s=args.llm_timeout,
    )
    env = parallel_env(
        args.task,
        num_agents=args.agents,
        sync=args.sync,
        time_cap_s=args.time_cap,
        seed=args.seed,
        record_path=args.record,
        scorer=args.scorer,
    )
    with console.status(f"{args.agents} LLM agents ({spec['model']}) on {env.task.id}..."):
        traj = rollout(env, team, seed=args.seed)
    acts = [d for a in traj.agents for d in a.decisions]
    errors = sum(1 for d in acts if d.error)
    table = Table(title=f"{env.task.id}: {args.agents} agents, llm {spec['model']}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for k, v in [
        ("tests passing", f"{traj.tests_passed} / {traj.tests_total}"),
        ("episode return (per agent)", f"{traj.collective_return:g}"),
        ("virtual time", f"{traj.duration_s:.1f} s of {args.time_cap:g} s"),
        ("ended", f"{traj.end} ({traj.end_reason})"),
        ("actions / error observations", f"{len(acts)} / {errors}"),
        ("tokens (all agents)", str(traj.tokens)),
        ("wall time", f"{traj.wall_s:.1f} s"),
    ]:
        table.add_row(k, v)
    console.print(table)
    failed = [f"{a.name} ({a.error})" for a in traj.agents if a.end_reason == "agent_error"]
    if failed:
        console.print(f"agents that left on an error: {', '.join(failed)}")
    env.close()
    return 0


# ---------------------------------------------------------------------------- replay


def cmd_replay(args: argparse.Namespace) -> int:
    """Summarise a recording."""
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


# ---------------------------------------------------------------------------- tasks


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate one task or all of them."""
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


def cmd_make_task(args: argparse.Namespace) -> int:
    """Turn a project folder into a task."""
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
        f"{result.candidates} functions the tests reach, in {sum(result.seconds.values()):.1f} s"
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


def cmd_make_suite(args: argparse.Namespace) -> int:
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


def cmd_generate(args: argparse.Namespace) -> int:
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


# ---------------------------------------------------------------------------- train

#: `swarm-envs train --policy NAME`: the trainer of each policy
TRAINERS = {"menu": "swarm_envs.baselines.ppo", "lm": "swarm_envs.baselines.lm.train"}
_TRAIN_EXTRA = ("torch", "tyro", "tensorboard", "transformers", "tokenizers", "peft")


def cmd_train(args: argparse.Namespace) -> int:
    """Train: PPO on menu mode (default), or language models with `--policy lm`.

    Each trainer parses its own options (a dataclass, with tyro), `--policy` included.
    """
    import importlib

    options = list(args.options)
    policy = "menu"
    for k, opt in enumerate(options):
        if opt == "--policy" or opt.startswith("--policy="):
            policy = opt.partition("=")[2] if "=" in opt else (options[k + 1 : k + 2] or [""])[0]
            break
    if policy not in TRAINERS:
        raise ConfigError(f"--policy {policy!r}: expected one of {', '.join(TRAINERS)}")
    try:
        trainer = importlib.import_module(TRAINERS[policy])
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] not in _TRAIN_EXTRA:
            raise
        raise ConfigError(
            f"swarm-envs train needs the train extra ({e.name} is missing): "
            "pip install 'swarm-envs[train]'"
        ) from None
    return int(trainer.main(options))


# ---------------------------------------------------------------------------- bench


def cmd_bench(args: argparse.Namespace) -> int:
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


# ---------------------------------------------------------------------------- serve


def _serve_module(name: str) -> ModuleType:
    """`swarm_envs.serve.<name>`, or a ConfigError naming the missing extra."""
    import importlib

    try:
        return importlib.import_module(f"swarm_envs.serve.{name}")
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] not in ("openenv", "mcp", "fastapi", "uvicorn"):
            raise
        raise ConfigError(
            f"this command needs the serve extra ({e.name} is missing): "
            "pip install 'swarm-envs[serve]'"
        ) from None


def _env_config(args: argparse.Namespace) -> dict:
    """The environment's configuration from the serving commands' flags."""
    import json

    config = {}
    if args.env_config:
        try:
            config = json.loads(args.env_config)
        except json.JSONDecodeError as e:
            raise ConfigError(f"--env-config: not valid JSON: {e}") from None
        if not isinstance(config, dict):
            raise ConfigError("--env-config: expected a JSON object of EnvConfig fields")
    for key, value in (("time_cap_s", args.time_cap), ("sync", args.sync), ("seed", args.seed)):
        if value is not None:
            config[key] = value
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a task over the OpenEnv protocol: one sandboxed episode per session."""
    import os

    server = _serve_module("server")
    config = {**_env_config(args), "num_agents": args.num_agents}
    server.serve(
        args.task,
        config,
        host=args.host,
        port=args.port,
        max_sessions=args.max_sessions,
        idle_timeout_s=args.idle_timeout,
        token=os.environ.get(server.TOKEN_ENV) or None,
        announce=lambda text: console.print(text, markup=False, highlight=False),
    )
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve agent slots of a swarm over MCP, next to scripted teammates."""
    import os

    slots = _serve_module("mcp")
    config = _env_config(args)
    if args.wall_clock:
        config["time"] = {**config.get("time", {}), "measured": True}
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
        announce=lambda text: console.print(text, markup=False, highlight=False),
    )
    return 0


def _add_serving_flags(p: argparse.ArgumentParser, port: int) -> None:
    p.add_argument("task", help="task id or name (see `swarm-envs list`), or a task folder")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; any other needs SWARM_ENVS_TOKEN set)",
    )
    p.add_argument("--port", type=int, default=port, help=f"port (default {port})")
    p.add_argument("--time-cap", type=_positive_float, help="virtual seconds per episode")
    p.add_argument("--sync", choices=["event", "round"], help="clock mode")
    p.add_argument("--seed", type=int, help="seed of the first episode")
    p.add_argument(
        "--env-config", metavar="JSON", help='more EnvConfig fields, e.g. \'{"scorer": "fast"}\''
    )


# ---------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `swarm-envs`."""
    parser = argparse.ArgumentParser(
        prog="swarm-envs",
        description="Environments in which a swarm of agents works on one software project.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="list the tasks and suites", description="List the tasks.")
    p.add_argument("--suite", choices=SUITES, help="only this suite")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "run",
        help="run a scripted demo swarm on a task",
        description="Run a swarm of scripted agents on a task and print a summary.",
    )
    p.add_argument("task", help="task id or name (see `swarm-envs list`), or a task folder")
    p.add_argument(
        "--agents", "-n", type=_positive_int, default=4, help="number of agents (default 4)"
    )
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
    p.add_argument(
        "--work-model",
        choices=["flat", "conversation"],
        default="flat",
        help="the agents' input tokens: 'flat' (default: observations read, capped) or "
        "'conversation' (the prompt an LLMAgent would send, under its context policy)",
    )
    p.add_argument("--record", metavar="FILE", help="record the episode to a JSON Lines file")
    p.add_argument(
        "--dashboard", type=_positive_int, metavar="K", help="print the dashboard every K steps"
    )
    g = p.add_argument_group("LLM agents (docs/real-model.md)")
    g.add_argument(
        "--agent",
        metavar="llm:MODEL@URL",
        help="LLM agents on an OpenAI-compatible server instead of scripted ones",
    )
    g.add_argument("--max-tokens", type=_positive_int, default=512, help="reply token limit")
    g.add_argument("--temperature", type=float, help="sampling temperature (server default)")
    g.add_argument("--context-tokens", type=_positive_int, default=32_768, help="context size")
    g.add_argument(
        "--stop", action="append", metavar="TEXT", help='stop sequence, e.g. "</tool_call>"'
    )
    g.add_argument("--llm-timeout", type=_positive_float, default=120.0, help="seconds/request")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "validate",
        help="check that tasks are valid",
        description="Validate tasks: the reference passes, the start fails a known number, "
        "every unit is covered by its tests, tests are deterministic.",
    )
    p.add_argument("task", nargs="?", help="task id, name or folder")
    p.add_argument("--all", action="store_true", help="every registered task")
    p.add_argument("--suite", choices=SUITES, help="only this suite")
    p.add_argument("--quick", action="store_true", help="skip the per-unit sensitivity check")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "make-task",
        help="turn your own project (a folder with a pytest suite) into a task",
        description="Bring your own project: read it as it comes (src/ layout, tests in or "
        "out of the package, pytest settings, requirements), run its tests once instrumented, "
        "confirm its units by probing them, and write a task folder.",
    )
    p.add_argument("source", help="the project's folder (an unpacked sdist or a checkout)")
    p.add_argument("--name", required=True, help="task name (lower-case, digits, '_', '-')")
    p.add_argument("--out", required=True, help="task folder to write (new or empty)")
    p.add_argument("--duration", type=_positive_float, default=20.0, help="modelled test run (s)")
    p.add_argument(
        "--max-units", type=_positive_int, help="keep at most this many units (fewer probes)"
    )
    p.add_argument(
        "--requires",
        action="append",
        default=[],
        metavar="SPEC",
        help="a third-party requirement the tests need (repeatable)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out test files matching GLOB, e.g. tests/test_benchmarks.py (repeatable)",
    )
    p.add_argument(
        "--deselect-failing",
        action="store_true",
        help="deselect tests the reference fails here instead of stopping (they are listed)",
    )
    p.add_argument(
        "--wheels", metavar="DIR", help="take the requirements' wheels from DIR (no index)"
    )
    p.add_argument("--suite", choices=SUITES, default="custom", help="the task's suite")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_make_task)

    p = sub.add_parser(
        "make-suite",
        help="build many real projects (name==version or sdists) into a validated suite",
        description="Download each project's sdist with pip, make it into a task "
        "(--deselect-failing), validate it, in parallel worker processes; resumable. One "
        "line per project, failures grouped by cause, a summary table. The valid tasks form "
        "a suite (swarm-envs bench --tasks real-plus; swarm-envs train --task real-plus).",
    )
    p.add_argument(
        "spec", help="a file of name==version lines or sdist paths, or 'catalogue' (shipped)"
    )
    p.add_argument("--out", help="the suite's folder (default: the user cache)")
    p.add_argument("--suite-name", choices=SUITES, default="real-plus", help="the tasks' suite")
    p.add_argument("--workers", type=_positive_int, default=1, help="projects built at once")
    p.add_argument(
        "--wheels", metavar="DIR", help="take the requirements' wheels from DIR (no index)"
    )
    p.add_argument("--quick", action="store_true", help="validate without the per-unit check")
    p.add_argument("--max-units", type=_positive_int, help="at most this many units per task")
    p.add_argument(
        "--timeout",
        type=_positive_float,
        default=1800.0,
        help="seconds per project (stopped after)",
    )
    p.add_argument("--retry", action="store_true", help="build the failed projects again")
    p.add_argument(
        "--instances",
        metavar="KIND:N,...",
        help="also generate N instances of each kind per valid task, e.g. stub:2,bug:1",
    )
    p.add_argument(
        "--instance-k", type=_positive_int, default=2, help="units stubbed or broken per instance"
    )
    p.add_argument(
        "--min-tests",
        type=_positive_int,
        default=10,
        help="a task with fewer canonical tests is not valid (default 10)",
    )
    p.set_defaults(func=cmd_make_suite)

    p = sub.add_parser(
        "generate",
        help="generate task instances (stubbed units or injected bugs)",
        description="Generate reproducible task instances from a task's reference project.",
    )
    p.add_argument("task", help="task id, name or folder")
    p.add_argument("--kind", choices=["stub", "bug"], default="stub")
    p.add_argument("-k", type=_positive_int, default=3, help="units to stub or break")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument(
        "--count", type=_positive_int, default=1, help="instances (seeds seed..seed+count-1)"
    )
    p.add_argument("--out", help="parent folder (default: the user cache)")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser(
        "bench",
        help="benchmark agents: swarm sizes x tasks x seeds, with a report and plots",
        description="Run every configuration of a bench (agents x swarm sizes x tasks or "
        "suites x seeds) in worker processes or Ray actors (--ray), record every episode "
        "and write report.md, "
        "figures.json and PNG plots. Flags override the --config file.",
    )
    p.add_argument("--config", metavar="TOML", help="bench configuration file")
    p.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="agents to compare (repeatable): none, claim, leader, llm:MODEL@URL or "
        "package.module:factory (default claim)",
    )
    p.add_argument("--sizes", type=_positive_int, nargs="+", metavar="N", help="swarm sizes")
    p.add_argument("--tasks", nargs="+", metavar="TASK", help=f"tasks or suites {list(SUITES)}")
    p.add_argument("--seeds", type=int, nargs="+", metavar="SEED")
    p.add_argument("--time-cap", type=_positive_float, help="virtual seconds (default per suite)")
    p.add_argument(
        "--budgets", type=_positive_float, nargs="+", metavar="S", help="@time budgets (s)"
    )
    p.add_argument(
        "--token-budget-per-test",
        type=_positive_float,
        metavar="TOKENS",
        help="also run under an equal total token budget: this many tokens per test",
    )
    p.add_argument("--p-wrong", type=float, help="scripted agents: chance of a wrong attempt")
    p.add_argument(
        "--work-model",
        choices=["flat", "conversation"],
        help="scripted agents' input tokens: 'flat' (the default: observations read, capped) "
        "or 'conversation' (the prompt an LLMAgent would send, under its context policy)",
    )
    p.add_argument("--wall-clock", action="store_true", help="measured time (real servers)")
    p.add_argument("--workers", type=_positive_int, help="worker processes (or Ray actors)")
    WorkerPool.add_ray_arguments(p)
    p.add_argument("--out", help="output folder (default bench_out)")
    p.add_argument("--no-plots", action="store_true", help="no PNG plots")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "serve",
        help="serve a task over OpenEnv (one sandboxed episode per WebSocket session)",
        description="Serve a task with openenv-core's server: every WebSocket session at /ws "
        "is one swarm episode in its own sandbox (see docs/integrations.md). Needs the serve "
        "extra.",
    )
    _add_serving_flags(p, 8000)
    p.add_argument(
        "--num-agents", "-n", type=_positive_int, default=4, help="agents per episode (default 4)"
    )
    p.add_argument(
        "--max-sessions", type=_positive_int, default=8, help="sessions at once (default 8)"
    )
    p.add_argument(
        "--idle-timeout",
        type=_positive_float,
        default=300.0,
        help="close a session silent this many seconds (default 300)",
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "mcp",
        help="serve agent slots of a swarm over MCP, for external coding agents",
        description="Run episodes of a swarm in which SLOTS agents are MCP clients (each slot "
        "at http://HOST:PORT/<agent>/mcp, its tools those of swarm_envs.tool_schemas()) and "
        "the others scripted teammates. Needs the serve extra.",
    )
    _add_serving_flags(p, 8100)
    p.add_argument("--agents", "-n", type=_positive_int, default=4, help="swarm size (default 4)")
    p.add_argument(
        "--slots", type=_positive_int, help="agents played over MCP (default: all), the last ones"
    )
    p.add_argument(
        "--teammates",
        choices=["none", "claim", "leader"],
        default="claim",
        help="strategy of the scripted teammates (default claim)",
    )
    p.add_argument("--episodes", type=_positive_int, default=1, help="episodes (default 1)")
    p.add_argument(
        "--slot-timeout",
        type=_positive_float,
        default=300.0,
        help="a slot silent this many wall seconds is out of the episode (default 300)",
    )
    p.add_argument(
        "--wall-clock",
        action="store_true",
        help="charge MCP agents their measured wall time (else the usage they report)",
    )
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser(
        "replay",
        help="summarise a recorded episode",
        description="Summarise the episodes of a JSON Lines recording.",
    )
    p.add_argument("file", help="a recording made with `run --record` or record_path=...")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "train",
        help="train a swarm's policy with PPO: menu mode (default) or --policy lm "
        "(see `train --help`, `train --policy lm --help`)",
        add_help=False,
        prefix_chars="\0",
    )
    p.add_argument("options", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_train)
    return parser


def _version() -> str:
    from swarm_envs import __version__

    return f"swarm-envs {__version__}"


def _say_if_sandbox_weakened() -> None:
    """First line of a run: a weaker sandbox asked for by name (the environment variable)."""
    from swarm_envs.sandboxes.probe import FULL, confinement, requested_isolation

    level = requested_isolation()
    if level != FULL:
        console.print(confinement(level).weakness(), style="bold red", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `swarm-envs`; returns the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the subcommand's usage, not the top level's
        subcommands = next(
            a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
        ).choices
        subcommands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if args.command in ("run", "bench", "train"):
            _say_if_sandbox_weakened()
        return args.func(args)
    except Error as e:
        print(f"swarm-envs {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
