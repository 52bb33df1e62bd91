"""Running a bench: every episode of the grid in worker processes, each one recorded.

`grid(config)` lists the episodes (`EpisodeSpec`); `run_episode(spec)` runs one with the
rollout runner (`swarm_envs.rollout`) and condenses it into an `EpisodeResult`: the
progress curve from the environment's attribution, per-agent figures, the timeline of
what each agent did; `map_episodes` runs many side by side. It is the one seam between
the bench and where episodes run: a function from episode specs to results, over
`concurrent.futures` worker processes, or over the Ray actors of a `WorkerPool` when the
configuration says `ray` (`swarm-envs bench --ray [--ray-address ADDRESS]`).

An agent that raises is out of its episode (`agent_error` in its `AgentStats`) and the
episode goes on; an episode whose environment fails is recorded as `failed`; a worker
process (or Ray actor) that dies takes only its own episode with it.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import time as wallclock
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from swarm_envs.agents.rollout import Trajectory
from swarm_envs.bench.config import (
    AgentSpec,
    BenchConfig,
    ImportedAgents,
    LLMAgents,
    MCPAgents,
    ScriptedAgents,
    resolve_factory,
)
from swarm_envs.core.outcome import Attribution
from swarm_envs.distributed import WorkerPool
from swarm_envs.tasks import Task, get_task

logger = logging.getLogger("swarm_envs")

T = TypeVar("T")
R = TypeVar("R")

#: tools whose completion is a message (a mark on the timeline)
MESSAGE_TOOLS = ("post", "send_message")


class EpisodeSpec(BaseModel):
    """One episode of the grid.

    Attributes:
        index: its place in the grid.
        task: the task's folder (worker processes load it from there).
        task_id: the task's id.
        suite: the task's suite.
        agent: the agents' spec.
        size: agents in the swarm.
        seed: the episode's seed.
        time_cap_s: its time cap.
        budget_per_test: the equal token budget per canonical test, or None.
        wall_clock: measured time (for real servers).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    task: str
    task_id: str
    suite: str
    agent: AgentSpec
    size: int
    seed: int
    time_cap_s: float
    budget_per_test: float | None = None
    wall_clock: bool = False

    @property
    def label(self) -> str:
        """The configuration's agents: alone, scripted agents of any strategy are one agent."""
        if self.size == 1 and isinstance(self.agent, ScriptedAgents):
            return self.agent.family
        return self.agent.label

    @property
    def family(self) -> str:
        """The single agent this configuration is compared with."""
        return self.agent.family


class AgentStats(BaseModel):
    """What one agent did in one episode.

    Attributes:
        name: the agent's name.
        actions: decisions it took.
        tokens: tokens charged for them.
        gained: tests gained at rescores its writes preceded, shared equally with the other
            agents of the same rescore; `lost` likewise.
        conflicts: its edits that no longer matched (someone changed the text).
        error: why it left the episode (`agent_error`), or None.
        segments: (start, end, tool) of every action, virtual seconds, for the timeline.
        messages: the times at which its posts and direct messages went out.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    actions: int = 0
    tokens: int = 0
    gained: float = 0.0
    lost: float = 0.0
    conflicts: int = 0
    error: str | None = None
    segments: list[tuple[float, float, str]] = Field(default_factory=list)
    messages: list[float] = Field(default_factory=list)


class EpisodeResult(BaseModel):
    """One episode, condensed: what the measures, the plots and the report read.

    Attributes:
        spec: the episode.
        status: `ok`, or `failed` when the environment (not an agent) failed.
        error: what failed.
        end_reason: the trajectory's end reason.
        tests_total, tests_start, tests_final: canonical tests; passing at start and end.
        duration_s: virtual seconds; wall_s: wall-clock seconds.
        steps: environment steps; tokens: all agents' tokens.
        token_budget: the episode's token budget, or None.
        curve: (virtual time, tests passing) at the start and at every change.
        agents: per-agent figures.
        units: the task's units; units_credited: units whose tests changed after some
            agent's writes; duplicated_units: units whose test changes followed writes by
            more than one agent (from the attribution).
        messages: posts and direct messages; conflicts: edits that no longer matched.
        held_out_passed, held_out_total: the task's held-out tests (never in the
            workspace) passing at the end, and their number (0 when it has none).
        trajectory_line: the line of its trajectory in `trajectories.jsonl` (0-based).
    """

    model_config = ConfigDict(extra="forbid")

    spec: EpisodeSpec
    status: Literal["ok", "failed"] = "ok"
    error: str | None = None
    end_reason: str | None = None
    tests_total: int = 0
    tests_start: int = 0
    tests_final: int = 0
    duration_s: float = 0.0
    wall_s: float = 0.0
    steps: int = 0
    tokens: int = 0
    token_budget: int | None = None
    curve: list[tuple[float, int]] = Field(default_factory=list)
    agents: list[AgentStats] = Field(default_factory=list)
    units: int = 0
    units_credited: int = 0
    duplicated_units: list[str] = Field(default_factory=list)
    messages: int = 0
    conflicts: int = 0
    held_out_passed: int = 0
    held_out_total: int = 0
    trajectory_line: int | None = None


class EpisodeOutcome(BaseModel):
    """What a worker sends back: the result and the trajectory's JSON line."""

    result: EpisodeResult
    trajectory: str | None = None


# ---------------------------------------------------------------------- the grid


def grid(config: BenchConfig) -> list[EpisodeSpec]:
    """Every episode of the bench, largest tasks and swarms first (they take longest).

    At size 1, scripted agents that differ only in strategy are one agent (alone they
    coordinate with nobody): that episode runs once per family, not once per strategy.
    """
    budgets: list[float | None] = [None]
    if config.token_budget_per_test is not None:
        budgets.append(config.token_budget_per_test)
    seen: set[tuple] = set()
    specs: list[EpisodeSpec] = []
    for task in config.resolved_tasks():
        for agent in config.agents:
            for size in config.sizes:
                for budget in budgets:
                    for seed in config.seeds:
                        spec = EpisodeSpec(
                            index=0,
                            task=str(task.root),
                            task_id=task.id,
                            suite=task.manifest.suite,
                            agent=agent,
                            size=size,
                            seed=seed,
                            time_cap_s=config.time_cap(task),
                            budget_per_test=budget,
                            wall_clock=config.wall_clock,
                        )
                        key = (task.id, spec.label, size, budget, seed)
                        if key not in seen:
                            seen.add(key)
                            specs.append(spec)
    weight = {t.id: len(t.units) for t in config.resolved_tasks()}
    specs.sort(key=lambda s: (-weight[s.task_id], -s.size))
    return [s.model_copy(update={"index": i}) for i, s in enumerate(specs)]


# ---------------------------------------------------------------------- one episode

_tasks: dict[str, Task] = {}  # per worker process: a task folder is read once


def _load(folder: str) -> Task:
    if folder not in _tasks:
        _tasks[folder] = get_task(folder)
    return _tasks[folder]


def make_agents(spec: AgentSpec, task: Task, n: int, seed: int) -> Sequence[Any] | dict[str, Any]:
    """The team of `n` agents a spec describes (in agent order, or by agent name)."""
    if isinstance(spec, ScriptedAgents):
        from swarm_envs.agents.scripted import make_team

        return make_team(
            task,
            n,
            spec.strategy,
            seed,
            spec.reasoning_tokens,
            edit_reasoning_tokens=spec.edit_reasoning_tokens,
            p_wrong=spec.p_wrong,
            context_tokens=spec.context_tokens,
            read_dependencies=spec.read_dependencies,
            work_model=spec.work_model,
        )
    if isinstance(spec, LLMAgents):
        from swarm_envs.agents import LLMAgent

        return LLMAgent.team(
            n,
            model=spec.model,
            base_url=spec.base_url,
            api_key=os.environ.get(spec.api_key_env),
            context_tokens=spec.context_tokens,
            max_tokens=spec.max_tokens,
            temperature=spec.temperature,
            stop=spec.stop,
            timeout_s=spec.timeout_s,
            max_retries=spec.max_retries,
        )
    if isinstance(spec, MCPAgents):
        from swarm_envs.agents.scripted import make_team
        from swarm_envs.serve.mcp import slot_team

        slots = min(spec.slots or n, n)
        team: dict[str, Any] = dict(
            make_team(task, n, spec.teammates, seed, work_model=spec.teammate_work_model)
        )
        team.update(slot_team(list(team)[n - slots :], host=spec.host, port=spec.port))
        return team
    assert isinstance(spec, ImportedAgents)
    factory = resolve_factory(spec.factory)
    return [factory(**spec.kwargs) for _ in range(n)]


def prepare(folder: str) -> str:
    """Find and cache the wrong candidates of a task, once for every episode on it."""
    from swarm_envs.generation.candidates import wrong_candidates

    wrong_candidates(_load(folder))
    return folder


def run_episode(spec: EpisodeSpec) -> EpisodeOutcome:
    """Run one episode of the grid; never raises for what happens inside it."""
    from swarm_envs import parallel_env, rollout
    from swarm_envs.scoring import collect_test_ids

    wall0 = wallclock.perf_counter()
    env = None
    budget = None
    try:
        task = _load(spec.task)
        if spec.budget_per_test is not None:
            total = len(collect_test_ids(task).ids)
            budget = max(1, math.ceil(spec.budget_per_test * total))
        env = parallel_env(
            task,
            num_agents=spec.size,
            time_cap_s=spec.time_cap_s,
            token_budget=budget,
            time={"measured": True} if spec.wall_clock else {},
            seed=spec.seed,
        )
        team = make_agents(spec.agent, task, spec.size, spec.seed)
        timeout = spec.agent.slot_timeout_s if isinstance(spec.agent, MCPAgents) else None
        trajectory = rollout(env, team, seed=spec.seed, act_timeout_s=timeout)
        view = env.view()
        result = summarise(spec, task, trajectory, view.attribution, budget)
        result.held_out_passed, result.held_out_total = view.held_out_passed, view.held_out_total
        return EpisodeOutcome(result=result, trajectory=trajectory.model_dump_json())
    except Exception as e:  # the environment or the agents' construction: this episode only
        logger.warning("episode %d (%s) failed: %r", spec.index, spec.task_id, e)
        return EpisodeOutcome(result=failed(spec, f"{type(e).__name__}: {e}", wall0, budget))
    finally:
        if env is not None:
            env.close()


def failed(
    spec: EpisodeSpec, error: str, wall0: float | None = None, budget: int | None = None
) -> EpisodeResult:
    """The result of an episode that could not run to its end."""
    wall = wallclock.perf_counter() - wall0 if wall0 is not None else 0.0
    return EpisodeResult(spec=spec, status="failed", error=error, wall_s=wall, token_budget=budget)


def summarise(
    spec: EpisodeSpec,
    task: Task,
    trajectory: Trajectory,
    attribution: Sequence[Attribution],
    budget: int | None = None,
) -> EpisodeResult:
    """Condense an episode: the curve, per-agent figures and duplicated work.

    The curve is rebuilt from the attribution (every change of a test's outcome, with
    its time); credit and duplicated units come from the writes each change followed.
    """
    passed = trajectory.tests_passed_start
    curve: list[tuple[float, int]] = [(0.0, passed)]
    stats = {a.name: AgentStats(name=a.name, error=a.error) for a in trajectory.agents}
    units_of = _units_of_tests(task, {t for r in attribution for t in (*r["gained"], *r["lost"])})
    paths = {u.name: u.path for u in task.units}
    touched: dict[str, set[str]] = {}
    for record in attribution:
        passed += len(record["gained"]) - len(record["lost"])
        if curve[-1][0] == record["t"]:
            curve[-1] = (record["t"], passed)
        else:
            curve.append((record["t"], passed))
        authors = sorted({a["agent"] for a in record["actions"]})
        for name in authors:
            stats[name].gained += len(record["gained"]) / len(authors)
            stats[name].lost += len(record["lost"]) / len(authors)
        for unit in {u for t in (*record["gained"], *record["lost"]) for u in units_of.get(t, ())}:
            for action in record["actions"]:
                files = action["files"]
                if files is None or paths[unit] in files:
                    touched.setdefault(unit, set()).add(action["agent"])
    messages = conflicts = 0
    for agent in trajectory.agents:
        st = stats[agent.name]
        st.actions = len(agent.decisions)
        for i, d in enumerate(agent.decisions):
            st.tokens += d.tokens
            end = (
                agent.decisions[i + 1].time
                if i + 1 < len(agent.decisions)
                else trajectory.duration_s
            )
            tool = d.tool or _called(d.action)
            st.segments.append((d.time, end, tool))
            if tool in MESSAGE_TOOLS and d.error is None and d.tool is not None:
                st.messages.append(end)
            if tool == "edit_file" and d.error is not None:
                st.conflicts += 1
        messages += len(st.messages)
        conflicts += st.conflicts
    return EpisodeResult(
        spec=spec,
        end_reason=trajectory.end_reason,
        tests_total=trajectory.tests_total,
        tests_start=trajectory.tests_passed_start,
        tests_final=trajectory.tests_passed,
        duration_s=trajectory.duration_s,
        wall_s=trajectory.wall_s,
        steps=trajectory.steps,
        tokens=trajectory.tokens,
        token_budget=budget,
        curve=curve,
        agents=list(stats.values()),
        units=len(task.units),
        units_credited=len(touched),
        duplicated_units=sorted(u for u, who in touched.items() if len(who) > 1),
        messages=messages,
        conflicts=conflicts,
    )


def _called(action: Any) -> str:
    """The tool an action asked for, for an action that had not completed at the end."""
    if isinstance(action, dict) and isinstance(action.get("name"), str):
        return action["name"]
    return "invalid"


def _units_of_tests(task: Task, tests: set[str]) -> dict[str, list[str]]:
    """Test id -> the units whose tests include it (matched as `run_tests` selects)."""
    from swarm_envs.scoring import select_tests

    ids = sorted(tests)
    out: dict[str, list[str]] = {}
    for unit in task.units:
        for t in select_tests(ids, list(unit.tests))[0]:
            out.setdefault(t, []).append(unit.name)
    return out


# ---------------------------------------------------------------------- the seam


def map_episodes(
    run: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    lost: Callable[[T, str], R],
    *,
    pool: WorkerPool | None = None,
) -> Iterator[R]:
    """`run(item)` for every item in worker processes, results as they complete.

    The one place that decides where episodes run. Workers are spawned (nothing of this
    process, no sandbox or thread, is inherited) and live for many items, so what a
    worker caches per task (the collection of its tests) is paid once per worker. A
    worker that dies loses only its own item: the items its death interrupted are run
    again one at a time, and one that kills its worker again becomes `lost(item, why)`.

    With `pool` (a `swarm_envs.distributed.WorkerPool`, e.g. of Ray actors), the items
    run on its workers instead (`workers` is then the pool's): a worker that dies, hangs
    or cannot send its result back makes its item `lost(item, why)` and is replaced.
    """
    if not items:
        return
    if pool is not None:
        for done in pool.map(run, items):
            yield done.value if done.ok else lost(done.item, done.error or "failed")
        return
    context = multiprocessing.get_context("spawn")
    again: list[T] = []
    executor = ProcessPoolExecutor(min(workers, len(items)), mp_context=context)
    try:
        futures: dict[Future[R], T] = {executor.submit(run, item): item for item in items}
        for future in as_completed(futures):
            try:
                yield future.result()
            except BrokenProcessPool:
                again.append(futures[future])
            except Exception as e:  # a result that cannot come back (not picklable)
                yield lost(futures[future], f"{type(e).__name__}: {e}")
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()
    for item in again:
        with ProcessPoolExecutor(1, mp_context=context) as alone:
            try:
                yield alone.submit(run, item).result()
            except BrokenProcessPool:
                yield lost(item, "its worker process died (killed, or exited from agent code)")


# ---------------------------------------------------------------------- the bench


class BenchRun(BaseModel):
    """A finished bench: its configuration, every episode's result, where files went."""

    config: BenchConfig
    results: list[EpisodeResult]
    out: str
    wall_s: float

    @property
    def episodes_path(self) -> Path:
        """The episodes' results, one JSON line each."""
        return Path(self.out) / "episodes.jsonl"

    @property
    def trajectories_path(self) -> Path:
        """The rollout runner's trajectories (`Trajectory.load` reads them)."""
        return Path(self.out) / "trajectories.jsonl"


def run_bench(config: BenchConfig, *, progress: bool = True, console: Any = None) -> BenchRun:
    """Run every episode of `config`, recording each, and return the results.

    Writes `episodes.jsonl` (an `EpisodeResult` a line) and `trajectories.jsonl` (the
    rollout runner's trajectories) under `config.out`, replacing an earlier run there.
    """
    t0 = wallclock.perf_counter()
    specs = grid(config)
    # Ray first: an address that cannot be reached fails now, before anything is written.
    pool = (
        WorkerPool(config.workers, backend="ray", ray_address=config.ray_address)
        if config.on_ray
        else None
    )
    try:
        results = _run(config, specs, pool, progress, console)
    finally:
        if pool is not None:
            pool.close()
    return BenchRun(
        config=config,
        results=results,
        out=str(Path(config.out)),
        wall_s=wallclock.perf_counter() - t0,
    )


def _run(
    config: BenchConfig,
    specs: list[EpisodeSpec],
    pool: WorkerPool | None,
    progress: bool,
    console: Any,
) -> list[EpisodeResult]:
    """Every episode of `specs`, each recorded as it completes; the results in grid order."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    episodes, trajectories = out / "episodes.jsonl", out / "trajectories.jsonl"
    results: list[EpisodeResult] = []
    need_candidates = sorted(
        {s.task for s in specs if isinstance(s.agent, ScriptedAgents) and s.agent.p_wrong > 0}
    )
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
    )
    with (
        Progress(*columns, console=console, disable=not progress) as bar,
        episodes.open("w", encoding="utf-8") as ef,
        trajectories.open("w", encoding="utf-8") as tf,
    ):
        if need_candidates:
            prep = bar.add_task("wrong candidates", total=len(need_candidates), last="")
            for folder in map_episodes(prepare, need_candidates, config.workers, _keep, pool=pool):
                bar.update(prep, advance=1, last=Path(folder).name)
        job = bar.add_task("episodes", total=len(specs), last="")
        line = 0
        for outcome in map_episodes(run_episode, specs, config.workers, _lost, pool=pool):
            result = outcome.result
            if outcome.trajectory is not None:
                tf.write(outcome.trajectory + "\n")
                result.trajectory_line = line
                line += 1
            ef.write(result.model_dump_json() + "\n")
            ef.flush()
            results.append(result)
            s = result.spec
            last = f"{s.task_id} {s.label} x{s.size} seed {s.seed}"
            bar.update(job, advance=1, last=last)
            if progress and not bar.console.is_terminal:
                # Off a terminal (a log file, a scheduler, CI) the bar does not render:
                # one plain line per episode shows the run's progress there instead.
                bar.console.print(
                    f"episode {len(results)}/{len(specs)}: {last}: {result.status}, "
                    f"{result.tests_final}/{result.tests_total} tests",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
    results.sort(key=lambda r: r.spec.index)
    return results


def _lost(spec: EpisodeSpec, why: str) -> EpisodeOutcome:
    return EpisodeOutcome(result=failed(spec, why))


def _keep(folder: str, why: str) -> str:
    logger.warning("wrong candidates of %s were not prepared (%s); episodes find them", folder, why)
    return folder


def load_results(path: str | Path) -> list[EpisodeResult]:
    """The results of a bench from its `episodes.jsonl`, in grid order."""
    with Path(path).open(encoding="utf-8") as f:
        out = [EpisodeResult.model_validate_json(line) for line in f if line.strip()]
    return sorted(out, key=lambda r: r.spec.index)
