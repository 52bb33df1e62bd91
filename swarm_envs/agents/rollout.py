"""The rollout runner: a swarm of agents through one episode, and the trajectory it left.

    trajectory = swarm_envs.rollout(env, agents, seed=0)
    trajectory.save("rollouts.jsonl")        # one JSON line per episode

The runner keeps the ready-agent discipline of the parallel API: at every step it
asks every ready agent for an action and no busy one; the `act` of ready async agents
run concurrently (eight LLM agents make eight concurrent requests, as a real swarm
would), sync agents are called in turn. An agent whose `reset` or `act` raises is out
(`end_reason="agent_error"`, the error recorded; the environment sees it say `done`)
and the rest of the swarm goes on.

## The trajectory (what a trainer consumes)

Agents act at different virtual times, so training is a semi-MDP. Per agent, the
trajectory is the sequence of its decisions: the observation it saw, the action it
took, the usage it reported, the virtual time, and the reward credited to it: the sum
of the collective rewards from that decision until the agent's next decision, or until
the episode's end for its last one. So every reward of the episode reaches every
agent's trajectory exactly once, and an agent's return is the collective return.

On disk a trajectory is one JSON line (`Trajectory.save`, `Trajectory.load`), its
fields the pydantic models below.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time as wallclock
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from swarm_envs.agents.protocol import Agent, TaskInfo
from swarm_envs.core.actions import Action, ToolCall, Usage, plain_data
from swarm_envs.core.config import DEFAULT_ROLE
from swarm_envs.error import ConfigError, Error

if TYPE_CHECKING:
    from swarm_envs.envs.parallel import SwarmParallelEnv

logger = logging.getLogger("swarm_envs")

AGENT_ERROR: Final = "agent_error"
# What the environment receives for an agent that failed: it leaves the episode.
_LEAVE = Action(
    tool_call={"name": "done", "arguments": {"summary": AGENT_ERROR}},
    usage=Usage(output_tokens=0, input_tokens=0),
)


class Decision(BaseModel):
    """One decision of one agent.

    Attributes:
        step: the index of the environment step that received the action.
        time: virtual seconds at which the agent decided (its observation time).
        observation: the observation text the agent acted on.
        action: the action as plain JSON data (text stays text; objects are dumped).
        usage: the usage the agent reported with it, if any (before the environment's
            floor at the estimate from the action's text).
        tokens: the tokens the environment charged for it.
        latency_s: wall-clock seconds the agent took to answer.
        reward: the collective reward from this decision until the agent's next one
            (until the episode's end for its last decision).
        tool: the tool the environment ran (`"invalid"` for a malformed action; `None`
            if the action had not completed when the episode ended).
        error: the error observation's message, if the action failed.
        meta: what the agent attached to its `Action` (token ids, log-probabilities).
    """

    model_config = ConfigDict(extra="forbid")

    step: int
    time: float
    observation: str
    action: Any
    usage: Usage | None = None
    tokens: int = 0
    latency_s: float = 0.0
    reward: float = 0.0
    tool: str | None = None
    error: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class AgentTrajectory(BaseModel):
    """One agent's decisions in one episode.

    Attributes:
        name: the agent's name.
        role: its role in the swarm ("agent" when the environment has no roles).
        decisions: its decisions in time order.
        end_reason: `"agent_error"` if the agent failed; `None` if it stayed until the
            episode's end (see `Trajectory.end_reason`).
        error: what failed, for `agent_error`.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    role: str = DEFAULT_ROLE
    decisions: list[Decision] = Field(default_factory=list)
    end_reason: Literal["agent_error"] | None = None
    error: str | None = None

    @property
    def episode_return(self) -> float:
        """The sum of the rewards credited to this agent's decisions."""
        return sum(d.reward for d in self.decisions)


class Trajectory(BaseModel):
    """One episode of a swarm, as the rollout runner recorded it.

    Attributes:
        task: the task id.
        seed: the seed of `reset`.
        agents: one `AgentTrajectory` per agent, in the environment's agent order.
        collective_return: the sum of the episode's (collective) rewards.
        end: `"terminated"` or `"truncated"`.
        end_reason: why (`all_tests_pass`, `all_done`, `time_cap`, `token_budget`,
            `scorer_failure`, or `max_steps` when the runner stopped it).
        tests_total: the task's canonical tests.
        tests_passed_start: passing at the start.
        tests_passed: passing at the end.
        duration_s: virtual seconds the episode lasted.
        wall_s: wall-clock seconds the rollout took.
        steps: environment steps.
        tokens: tokens of all agents together, as charged.
    """

    model_config = ConfigDict(extra="forbid")

    task: str
    seed: int | None
    agents: list[AgentTrajectory]
    collective_return: float
    end: Literal["terminated", "truncated"]
    end_reason: str
    tests_total: int
    tests_passed_start: int
    tests_passed: int
    duration_s: float
    wall_s: float
    steps: int
    tokens: int

    def agent(self, name: str) -> AgentTrajectory:
        """The trajectory of the agent called `name`."""
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(f"no agent {name!r} in this trajectory; agents: {self._names()}")

    def _names(self) -> str:
        return ", ".join(a.name for a in self.agents)

    def save(self, path: str | Path) -> None:
        """Append this trajectory to a JSON Lines file, as one line."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(self.model_dump_json() + "\n")

    @classmethod
    def load(cls, path: str | Path) -> list[Trajectory]:
        """Every trajectory in a JSON Lines file, in order."""
        out = []
        with Path(path).open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append(cls.model_validate_json(line))
                except ValidationError as e:
                    raise ValueError(f"{path}:{lineno}: not a trajectory: {e}") from None
        return out


# ---------------------------------------------------------------------- the runner


def rollout(
    env: SwarmParallelEnv,
    agents: Mapping[str, Agent] | Sequence[Agent],
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    act_timeout_s: float | None = None,
    max_steps: int | None = None,
    save_to: str | Path | None = None,
) -> Trajectory:
    """Run one episode of `env` with `agents` and return its trajectory.

    Args:
        env: a parallel environment (`swarm_envs.parallel_env(...)`); it is reset here
            and left open.
        agents: one agent per agent name, as a mapping or in `env.possible_agents`
            order (see `swarm_envs.agents`).
        seed: the seed of `env.reset`.
        options: the options of `env.reset` (for example `{"time_cap": 600}`).
        act_timeout_s: wall-clock limit on one async `act`; past it, the agent fails
            with `agent_error`.
        max_steps: stop after this many steps (the trajectory ends `truncated`,
            `max_steps`).
        save_to: append the trajectory to this JSON Lines file.

    Inside a running event loop (Jupyter, an async application), use
    `await swarm_envs.arollout(...)` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            arollout(
                env,
                agents,
                seed=seed,
                options=options,
                act_timeout_s=act_timeout_s,
                max_steps=max_steps,
                save_to=save_to,
            )
        )
    raise Error("rollout() was called inside a running event loop; use `await arollout(...)`")


async def arollout(
    env: SwarmParallelEnv,
    agents: Mapping[str, Agent] | Sequence[Agent],
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    act_timeout_s: float | None = None,
    max_steps: int | None = None,
    save_to: str | Path | None = None,
) -> Trajectory:
    """`rollout` as a coroutine, for callers that run their own event loop."""
    team = _by_name(agents, list(env.possible_agents))
    try:
        return await _run(env, team, seed, options, act_timeout_s, max_steps, save_to)
    finally:
        for agent in {id(a): a for a in team.values()}.values():
            close = getattr(agent, "aclose", None)
            if callable(close):
                try:
                    await close()
                except Exception as e:  # releasing is best effort; the episode is recorded
                    logger.warning("aclose() of %s failed: %r", type(agent).__name__, e)


async def _run(
    env: SwarmParallelEnv,
    team: dict[str, Any],
    seed: int | None,
    options: dict[str, Any] | None,
    act_timeout_s: float | None,
    max_steps: int | None,
    save_to: str | Path | None,
) -> Trajectory:
    wall0 = wallclock.perf_counter()
    observations, infos = env.reset(seed=seed, options=options)
    names = list(env.possible_agents)
    measured = env.config.time.measured
    view = env.view()
    roles = dict(zip(names, view.roles, strict=True))
    records = {n: AgentTrajectory(name=n, role=roles[n]) for n in names}
    spent = dict.fromkeys(names, 0)  # tokens charged before each agent's open decision
    failed: dict[str, str] = {}

    for n in names:
        task_info = TaskInfo(
            task=env.task.id,
            description=env.task.manifest.description.strip(),
            intro=infos[n].get("result") or observations[n],
            agent_names=names,
            time_cap_s=view.time_cap,
            token_budget=env.config.token_budget,
            tests_total=infos[n]["tests_total"],
            tests_passed=infos[n]["tests_passed"],
            role=roles[n],
            tools=env.config.allowed_tools(roles[n]),
        )
        try:
            result = team[n].reset(n, task_info)
            if inspect.isawaitable(result):
                await result
        except Exception as e:
            failed[n] = _fail(records[n], n, "reset", e)

    start_passed = view.tests_passed
    collective = 0.0
    steps = 0
    end_reason: str | None = None
    while env.agents:
        if max_steps is not None and steps >= max_steps:
            end_reason = "max_steps"
            break
        ready = env.ready_agents
        for n in ready:
            if n not in failed and records[n].decisions:
                _close(records[n].decisions[-1], infos[n], spent, n)
        asked = [n for n in ready if n not in failed]
        now = env.view().time
        answers = await _ask(team, asked, observations, infos, act_timeout_s)
        actions: dict[str, Any] = {}
        for n in ready:
            if n in failed:
                actions[n] = _LEAVE
                continue
            answer = answers[n]
            if isinstance(answer, _Failure):
                failed[n] = _fail(records[n], n, "act", answer.error)
                actions[n] = _LEAVE
                continue
            action, latency = answer
            if isinstance(action, Action) and action.latency_s is not None:
                latency = action.latency_s  # the agent timed its model call itself
            elif measured:
                action = _timed(action, latency)
            actions[n] = action
            spent[n] = infos[n].get("tokens", 0)
            records[n].decisions.append(
                Decision(
                    step=steps,
                    time=now,
                    observation=observations[n],
                    action=_jsonable(action),
                    usage=_reported_usage(action),
                    latency_s=latency,
                    meta=action.meta if isinstance(action, Action) else {},
                )
            )
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps += 1
        reward = next(iter(rewards.values()), 0.0)
        collective += reward
        if reward:
            for rec in records.values():
                if rec.decisions:
                    rec.decisions[-1].reward += reward

    view = env.view()
    busy = set(view.busy)
    for n in names:
        if n not in failed and records[n].decisions:
            last = records[n].decisions[-1]
            _close(last, infos[n], spent, n)
            if n in busy:  # still running when the episode ended
                last.tool = last.error = None
    info: Mapping[str, Any] = next(iter(infos.values()), {})
    end: Literal["terminated", "truncated"]
    if end_reason is None:
        end = "terminated" if info.get("termination") else "truncated"
        end_reason = info.get("termination") or info.get("truncation") or "unknown"
    else:
        end = "truncated"
    trajectory = Trajectory(
        task=env.task.id,
        seed=view.seed,
        agents=[records[n] for n in names],
        collective_return=collective,
        end=end,
        end_reason=end_reason,
        tests_total=view.tests_total,
        tests_passed_start=start_passed,
        tests_passed=view.tests_passed,
        duration_s=view.time,
        wall_s=wallclock.perf_counter() - wall0,
        steps=steps,
        tokens=view.tokens,
    )
    if save_to is not None:
        trajectory.save(save_to)
    return trajectory


# ---------------------------------------------------------------------- helpers


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


def _by_name(agents: Mapping[str, Agent] | Sequence[Agent], names: list[str]) -> dict[str, Any]:
    if isinstance(agents, Mapping):
        missing = [n for n in names if n not in agents]
        extra = sorted(set(agents) - set(names))
        if missing or extra:
            raise ConfigError(
                f"agents: expected one agent per name {names[0]} .. {names[-1]}; "
                f"missing {missing}, unknown {extra}"
            )
        team = dict(agents)
    else:
        team = dict(zip(names, agents, strict=False))
        if len(agents) != len(names):
            raise ConfigError(
                f"agents: {len(agents)} agents for {len(names)} agent names; pass one per name"
            )
    for n, a in team.items():
        if not callable(getattr(a, "act", None)) or not callable(getattr(a, "reset", None)):
            raise ConfigError(
                f"agents[{n!r}]: {type(a).__name__} has no reset(agent_name, task_info) and "
                "act(observation, info) methods (see swarm_envs.agents)"
            )
    return team


async def _ask(
    team: dict[str, Any],
    asked: list[str],
    observations: dict[str, str],
    infos: Mapping[str, Mapping[str, Any]],
    timeout: float | None,
) -> dict[str, tuple[Any, float] | _Failure]:
    """Every asked agent's answer and its wall time; async agents concurrently."""
    answers: dict[str, tuple[Any, float] | _Failure] = {}
    pending: dict[str, Awaitable[tuple[Any, float]]] = {}
    for n in asked:
        t0 = wallclock.perf_counter()
        try:
            result = team[n].act(observations[n], infos[n])
        except Exception as e:
            answers[n] = _Failure(e)
            continue
        if inspect.isawaitable(result):
            pending[n] = _timed_await(result, t0, timeout)
        else:
            answers[n] = (result, wallclock.perf_counter() - t0)
    if pending:
        results = await asyncio.gather(*pending.values(), return_exceptions=True)
        for n, r in zip(pending, results, strict=True):
            if isinstance(r, BaseException) and not isinstance(r, Exception):
                raise r  # cancellation, KeyboardInterrupt: not the agent's failure
            answers[n] = _Failure(r) if isinstance(r, BaseException) else r
    return answers


async def _timed_await(
    awaitable: Awaitable[Any], t0: float, timeout: float | None
) -> tuple[Any, float]:
    if timeout is None:
        result = await awaitable
    else:
        try:
            result = await asyncio.wait_for(awaitable, timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"act took longer than act_timeout_s={timeout}") from None
    return result, wallclock.perf_counter() - t0


def _fail(record: AgentTrajectory, name: str, where: str, error: BaseException) -> str:
    message = f"{where} raised {type(error).__name__}: {error}"
    logger.warning("%s is out of the episode (%s): %s", name, AGENT_ERROR, message)
    record.end_reason = AGENT_ERROR
    record.error = message
    return message


def _close(decision: Decision, info: Mapping[str, Any], spent: dict[str, int], name: str) -> None:
    """What the environment said about a decision, once its result is observed."""
    decision.tool = info.get("tool")
    decision.error = info.get("error")
    decision.tokens = info.get("tokens", 0) - spent[name]


def _timed(action: Any, latency: float) -> Action:
    if isinstance(action, Action):
        return action.model_copy(update={"latency_s": latency})
    return Action(tool_call=action, latency_s=latency)


def _reported_usage(action: Any) -> Usage | None:
    if isinstance(action, Action):
        if action.usage is not None:
            return action.usage
        action = action.tool_call
    if isinstance(action, str | bytes):
        return None  # text's own claims are not usage
    if isinstance(action, ToolCall):
        return action.usage
    data = action if isinstance(action, dict) else plain_data(action)
    raw = data.get("usage") if isinstance(data, dict) else None
    try:
        return Usage.model_validate(raw) if raw is not None else None
    except ValidationError:
        return None  # the environment reported it as an error observation


def _jsonable(action: Any) -> Any:
    if isinstance(action, Action):
        action = action.tool_call
    if isinstance(action, bytes):
        return action.decode("utf-8", "replace")
    if isinstance(action, str):
        return action
    data = action.model_dump() if isinstance(action, ToolCall) else plain_data(action)
    try:
        return json.loads(json.dumps(data, default=repr))
    except (TypeError, ValueError, RecursionError):
        return repr(action)
