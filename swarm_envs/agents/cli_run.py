"""The `swarm-envs run` command: a swarm of scripted agents on a task, and its summary."""

from __future__ import annotations

import argparse
import time

from swarm_envs.arguments import TASK_HELP, add_quiet, console, positive_float, positive_int


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the description and flags of `swarm-envs run`."""
    parser.description = "Run a swarm of scripted agents on a task and print a summary."
    parser.add_argument("task", help=TASK_HELP)
    parser.add_argument(
        "--agents", "-n", type=positive_int, default=4, help="number of agents (default 4)"
    )
    parser.add_argument(
        "--strategy",
        choices=["none", "claim", "leader"],
        default="claim",
        help="coordination strategy of the scripted agents (default claim)",
    )
    parser.add_argument("--sync", choices=["event", "round"], default="event", help="clock mode")
    parser.add_argument("--time-cap", type=positive_float, default=3600.0, help="virtual seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scorer", choices=["fast", "subprocess"], default="fast")
    parser.add_argument(
        "--work-model",
        choices=["flat", "conversation"],
        default="flat",
        help="the agents' input tokens: 'flat' (default: observations read, capped) or "
        "'conversation' (the prompt an LLMAgent would send, under its context policy)",
    )
    parser.add_argument("--record", metavar="FILE", help="record the episode to a JSON Lines file")
    parser.add_argument(
        "--dashboard", type=positive_int, metavar="K", help="print the dashboard every K steps"
    )
    g = parser.add_argument_group("LLM agents (docs/real-model.md)")
    g.add_argument(
        "--agent",
        metavar="llm:MODEL@URL",
        help="LLM agents on an OpenAI-compatible server instead of scripted ones",
    )
    g.add_argument("--max-tokens", type=positive_int, default=512, help="reply token limit")
    g.add_argument("--temperature", type=float, help="sampling temperature (server default)")
    g.add_argument("--context-tokens", type=positive_int, default=32_768, help="context size")
    g.add_argument(
        "--stop", action="append", metavar="TEXT", help='stop sequence, e.g. "</tool_call>"'
    )
    g.add_argument("--llm-timeout", type=positive_float, default=120.0, help="seconds/request")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    """Run a swarm on a task (scripted, or LLM agents on a server) and print a summary."""
    if args.agent:
        return _run_llm(args)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Table
    from rich.text import Text

    from swarm_envs import parallel_env
    from swarm_envs.agents.scripted import make_team

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
    view = env.view()
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
        bar = progress.add_task(
            env.task.id, total=view.tests_total, completed=view.tests_passed, t=0.0
        )
        while env.agents:
            acts = {a: team[a].act(obs[a], infos[a]) for a in env.agents if infos[a]["ready"]}
            actions += len(acts)
            obs, rewards, term, trunc, infos = env.step(acts)
            steps += 1
            total_reward += next(iter(rewards.values()), 0.0)
            view = env.view()
            progress.update(bar, completed=view.tests_passed, t=view.time)
            if args.dashboard and steps % args.dashboard == 0:
                # Plain text: rich would read the bars' "[###...]" as markup.
                progress.console.print(Text(env.render() or ""))
    wall = time.perf_counter() - t0
    view = env.view()
    end = f"{view.end} ({view.end_reason})"
    table = Table(title=f"{env.task.id}: {args.agents} agents, strategy {args.strategy!r}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for k, v in [
        ("tests passing", f"{view.tests_passed} / {view.tests_total}"),
        ("episode return (per agent)", f"{total_reward:g}"),
        ("virtual time", f"{view.time:.1f} s of {view.time_cap:g} s"),
        ("ended", end),
        ("steps / actions", f"{steps} / {actions}"),
        ("messages sent", str(view.messages_sent)),
        ("tokens (all agents)", str(view.tokens)),
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
    from rich.table import Table

    from swarm_envs import parallel_env, rollout
    from swarm_envs.agents.protocol import parse_llm_spec
    from swarm_envs.error import ConfigError

    model, base_url = parse_llm_spec(args.agent)
    try:
        from swarm_envs.agents import LLMAgent
    except ModuleNotFoundError as e:
        raise ConfigError(str(e)) from None
    team = LLMAgent.team(
        args.agents,
        model=model,
        base_url=base_url,
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
    with console.status(f"{args.agents} LLM agents ({model}) on {env.task.id}..."):
        traj = rollout(env, team, seed=args.seed)
    acts = [d for a in traj.agents for d in a.decisions]
    errors = sum(1 for d in acts if d.error)
    table = Table(title=f"{env.task.id}: {args.agents} agents, llm {model}")
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
