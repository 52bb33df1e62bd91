"""The simulation behind every API: one episode of a swarm on one task.

`Episode` owns the virtual clock, the agents' state, the workspace and the post office,
and `Episode.step` is the whole step protocol: the PettingZoo parallel env, the AEC env
and the Gymnasium env translate their APIs to it. Data flows one way:

    submit (parse, cost, schedule) -> advance (apply in completion order)
        -> rescore (reward) -> observe (text + structured info)

Its collaborators are handed to it: the sandbox and the scorer come from factories
(`sandbox_factory`, `scorer_factory`; by default `make_sandbox` and `make_scorer`), and
the reward's bookkeeping is a `RewardBook` (`swarm_envs.envs.book`) that the episode
feeds and asks, and that answers with what happened (rewards, ends, corrections,
findings). Readers outside the environments see an `EpisodeView` (`view()`), never the
episode.

Causality: an action is applied atomically at its completion time, which is also
the agent's next observation time, and completions are applied in time order
(ties by agent index). So an agent sees exactly the effects that completed at or
before its observation time, and nothing later.
"""

from __future__ import annotations

import logging
import math
import os
import time as wallclock
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, cast

import numpy as np

from swarm_envs.core import actions as A
from swarm_envs.core import observation
from swarm_envs.core.channels import MessageInfo, PostOffice, agent_names
from swarm_envs.core.clock import Clock
from swarm_envs.core.config import DEFAULT_ROLE, EnvConfig, ScoringSettings, check_time_cap
from swarm_envs.core.outcome import (
    END_KIND,
    AgentInfo,
    Attribution,
    EndKind,
    EndReason,
    EpisodeStats,
    EpisodeView,
    StepOutcome,
)
from swarm_envs.core.recording import (
    ActionEvent,
    AttributionEvent,
    EffectEvent,
    EndEvent,
    EpisodeHeader,
    Recorder,
    StepEvent,
)
from swarm_envs.core.spaces import Observation
from swarm_envs.core.tools import LONE_WAIT_S, TEAM_TOOLS, TOOLS, Wait
from swarm_envs.core.workspace import Workspace
from swarm_envs.envs.book import EpisodeScorer, Rescore, RewardBook, Settlement
from swarm_envs.error import ActionError, ClosedEnvironment, ResetNeeded, ScoringError
from swarm_envs.sandboxes import Sandbox, make_sandbox
from swarm_envs.scoring import hidden_paths, make_scorer, select_tests
from swarm_envs.tasks import Task, task_roots

logger = logging.getLogger("swarm_envs")
#: the environment variable that holds the episode's seed in the sandbox
SEED_ENV = "SWARM_SEED"
DONE_AGAIN = "you already said done; your actions are no longer accepted"


class SandboxFactory(Protocol):
    """Makes the sandbox of an episode (`swarm_envs.sandboxes.make_sandbox` is one)."""

    def __call__(
        self,
        backend: str = ...,
        *,
        hide: Iterable[os.PathLike[str] | str] = ...,
        env: Mapping[str, str] | None = ...,
        isolation: str | None = ...,
    ) -> Sandbox:
        """A fresh sandbox of `backend` with an empty workspace (see `make_sandbox`)."""
        ...


class ScorerFactory(Protocol):
    """Makes the scorer of an episode over its sandbox (`swarm_envs.scoring.make_scorer`)."""

    def __call__(
        self, task: Task, sandbox: Sandbox, *, kind: str = ..., quota: object | None = ...
    ) -> EpisodeScorer:
        """A scorer of `task`'s canonical tests on `sandbox`'s workspace (see `make_scorer`)."""
        ...


@dataclass
class _Pending:
    tool: str
    args: Any
    start: float
    think_end: float
    error: str | None = None
    applied: bool = False  # measured mode: effect applied, agent not yet ready


@dataclass
class AgentState:
    """What the episode knows about one agent."""

    index: int
    name: str
    role: str = DEFAULT_ROLE
    done: bool = False
    waiting: bool = False
    pending: _Pending | None = None
    result: str | None = None  # what its next observation reports
    error: str | None = None
    last_tool: str | None = None
    obs: str = ""
    info: AgentInfo = field(default_factory=lambda: cast(AgentInfo, {}))
    prompt_chars: int = 0  # observation text not yet "read" by an action (input tokens)
    tokens: int = 0
    actions: int = 0
    messages: list[MessageInfo] = field(default_factory=list)
    attributed: int = 0  # attribution records already shown in its observations
    team: str | None = None  # the status line's team part, built once


class Episode:
    """One episode: clock, agents, workspace, messages; the reward's counts in `book`.

    Every attribute exists from construction; until the first `reset()` the episode
    is not started (`started` is False) and `step` raises `ResetNeeded`.

    Args:
        task: the task of the first episode (`reset(task=...)` changes it).
        config: the environment's configuration.
        sandbox_factory: makes each episode's sandbox (default: `make_sandbox`).
        scorer_factory: makes each episode's scorer over it (default: `make_scorer`); a
            test can hand in a scorer of its own, as long as it scores honestly.
    """

    def __init__(
        self,
        task: Task,
        config: EnvConfig,
        *,
        sandbox_factory: SandboxFactory = make_sandbox,
        scorer_factory: ScorerFactory = make_scorer,
    ):
        self.task = task
        self.config = config
        self._make_sandbox = sandbox_factory
        self._make_scorer = scorer_factory
        self.names = agent_names(config.num_agents)
        self._index = {name: i for i, name in enumerate(self.names)}
        self.roles = config.agent_roles()
        self._tools = {r: frozenset(config.allowed_tools(r)) for r in config.role_tools}
        self._default_cap = config.time_cap_s
        self.sandbox: Sandbox | None = None
        self.scorer: EpisodeScorer | None = None
        self._workspace: Workspace | None = None
        self.recorder = Recorder(config.record_path) if config.record_path else None
        self._test_ids: list[str] | None = None
        self._reward_ids: list[str] | None = None
        self.started = False
        self.closed = False
        self._new_state(config.seed, self._default_cap)

    def _new_state(self, seed: int | None, time_cap: float) -> None:
        n = self.config.num_agents
        self.seed = seed
        self.np_random = np.random.default_rng(seed)
        self.time_cap = time_cap
        self.clock = Clock(n)
        self.post = PostOffice(n, self.config.time.message_latency_s)
        self.agents = [AgentState(i, name, self.roles[i]) for i, name in enumerate(self.names)]
        self.ready: set[int] = set(range(n))  # agents that may act now
        self.waiting: set[int] = set()  # agents in a `wait` (a post wakes only these)
        self.completed: list[int] = []  # agents whose action completed during this step
        self.ignored: list[int] = []  # busy agents whose action the last step ignored
        self.tokens = 0
        self.done_count = 0  # agents that said done
        self.ended: EndKind | None = None
        self.end_reason: EndReason | None = None
        self.step_index = 0
        # The reward's counts; the book of a started episode counts its task's tests.
        self.book = self._new_book()

    def _new_book(self) -> RewardBook:
        return RewardBook(
            self._reward_ids or (),
            max_scorer_failures=self.config.max_scorer_failures,
            audit_every=(
                self.config.scoring.audit_every
                if self.config.scorer == "fast" and self.config.scoring.keys == "dynamic"
                else 0
            ),
        )

    # ------------------------------------------------------------------ lifecycle

    def set_time_cap(self, seconds: float) -> None:
        """Set the time cap of every later episode (a `reset` option still overrides it once).

        The running episode keeps its cap; vector environments that reset on their own
        pick the new one up at their next reset.
        """
        self._default_cap = check_time_cap(seconds, "time_cap")

    @property
    def default_time_cap(self) -> float:
        """The time cap of the next episode without a `time_cap` option."""
        return self._default_cap

    def reset(
        self, seed: int | None = None, time_cap: float | None = None, task: Task | None = None
    ) -> None:
        """Start a new episode: a fresh sandbox with the task's starting state, scored.

        Args:
            seed: seeds the episode and what runs in its sandbox (`PYTHONHASHSEED`, and
                `SWARM_SEED` for agents' code to read).
            time_cap: this episode's cap (default: `default_time_cap`).
            task: the episode's task, when it changes between episodes (a distribution).
        """
        cap = self._default_cap if time_cap is None else check_time_cap(time_cap, "time_cap")
        self.close_sandbox()
        self.started = self.closed = False
        if task is not None and task is not self.task:
            self.task, self._test_ids = task, None
        self._new_state(seed, cap)
        env = {} if seed is None else {"PYTHONHASHSEED": str(seed % 2**32), SEED_ENV: str(seed)}
        # Solutions and canonical tests of every known task, and the scorer's cache on disk,
        # stay out of the sandbox's view.
        hide = [*task_roots(), self.task.root, *hidden_paths()]
        self.sandbox = self._make_sandbox(
            self.config.sandbox, hide=hide, env=env, isolation=self.config.sandbox_isolation
        )
        self.task.materialize(self.sandbox.root)
        more = {}
        if self._make_scorer is make_scorer or self.config.scoring != ScoringSettings():
            more["scoring"] = self.config.scoring  # a factory of one's own may not take it
        self.scorer = self._make_scorer(
            self.task,
            self.sandbox,
            kind=self.config.scorer,
            quota=self.config.workspace_quota,
            **more,
        )
        self._workspace = Workspace(self.sandbox.root, self.task.is_protected, self.scorer.admit)
        if self._test_ids is None:
            self._test_ids = self.scorer.test_ids()
            # The reward's tests: the visible ones, or (reward_tests="all") held-out ones too.
            extra = self.scorer.held_out_ids() if self.config.reward_tests == "all" else []
            self._reward_ids = [*self._test_ids, *extra]
        self.book = self._new_book()
        # The true start's cache key: the same task, scorer and sandbox (with the snapshot);
        # the factory by name, since another factory's scorer may judge otherwise.
        factory = getattr(self._make_scorer, "__qualname__", type(self._make_scorer).__qualname__)
        key = (
            self.task.root,
            f"{getattr(self._make_scorer, '__module__', '')}.{factory}",
            self.config.scorer,
            self.config.sandbox,
            repr(self.sandbox.limits),
            repr(self.config.scoring),
        )
        if not self.book.start(self.scorer, key):
            raise ScoringError(
                f"the scorer gave no verdict on the starting state of {self.task.id}: "
                f"{self.book.verdict_error}"
            )
        if self.recorder:
            self.recorder.begin(
                EpisodeHeader(
                    task=self.task.id,
                    seed=seed,
                    time_cap=cap,
                    agents=self.names,
                    roles=dict(zip(self.names, self.roles, strict=True)),
                    tests_total=self.book.tests_total,
                    tests_passed=self.book.passed,
                    config=self.config.model_dump(mode="json"),
                )
            )
        protections = dict(self.sandbox.protections)
        weak = self.sandbox.weakness()
        for st in self.agents:
            st.result = self._intro(st, cap)
            if weak:
                st.result = f"{weak}\n\n{st.result}"
            self._observe(st)
            st.info["sandbox"] = {
                "backend": self.config.sandbox,
                "protections": protections,
                "weakened": weak,
            }
        self.started = True

    def _intro(self, st: AgentState, cap: float) -> str:
        cfg = self.config
        about = cfg.role_intros.get(st.role) or (f"Your role: {st.role}." if cfg.roles else None)
        n = len(self.agents)
        tools = [t for t in cfg.allowed_tools(st.role) if n > 1 or t not in TEAM_TOOLS]
        m = self.task.manifest
        return observation.intro(self.task.id, m.description, st.name, n, tools, cap, role=about)

    def settle(self) -> float:
        """The authoritative count of the episode's end; returns its correction.

        The book's final fresh recount (see `RewardBook.settle`): `step` adds the
        correction to the last step's reward, so that the episode's return is always the
        true final count minus the true starting count. Called when the episode ends, by
        `close()`, and by anyone who asks for the final count; only the first call runs
        anything.
        """
        if self.book.settled or not self.started or self.scorer is None:
            return 0.0
        settled: Settlement = self.book.settle(self.scorer, now=self.clock.now)
        self._record_attribution(settled.attribution)
        return settled.correction

    def close_sandbox(self) -> None:
        """Stop the scorer and release the sandbox of the current episode (twice-safe)."""
        if self.scorer is not None:
            self.scorer.close()
            self.scorer = None
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        self._workspace = None

    def close(self) -> None:
        """Release everything the episode holds: sandbox, scorer, recording.

        `step` raises `ClosedEnvironment` afterwards; `reset` starts a new episode.
        """
        if self.started and not self.book.settled:
            # Closed mid-episode: the final count is still the authoritative one (there is
            # no later step to give its correction to; `recount` has it).
            try:
                self.settle()
            except Exception:  # noqa: BLE001 - closing must release everything regardless
                logger.exception("the final recount failed at close()")
        self.close_sandbox()
        self.started, self.closed = False, True
        if self.recorder:
            self.recorder.close()

    @property
    def now(self) -> float:
        """The current virtual time, in seconds."""
        return self.clock.now

    def view(self) -> EpisodeView:
        """A frozen snapshot of the episode for readers outside the environments."""
        book, names = self.book, self.names
        agents = self.agents
        busy = tuple(st.name for st in agents if st.pending is not None)
        done = tuple(st.name for st in agents if st.done) if self.done_count else ()
        return EpisodeView(
            task=self.task.id,
            seed=self.seed,
            started=self.started,
            time=self.clock.now,
            time_cap=self.time_cap,
            step=self.step_index,
            tests_passed=book.passed,
            tests_total=book.tests_total,
            per_test=MappingProxyType(book.per_test),  # the book replaces it, never edits it
            verdict=book.verdict,
            visible_passed=book.visible_passed,
            held_out_passed=book.held_out[0],
            held_out_total=book.held_out[1],
            end=self.ended,
            end_reason=self.end_reason,
            tokens=self.tokens,
            messages_sent=self.post.sent,
            total_reward=book.total_reward,
            agents=tuple(names),
            roles=tuple(self.roles),
            ready=tuple(names[i] for i in sorted(self.ready)),
            busy=busy,
            done=done,
            attribution=tuple(book.attribution),
            integrity=tuple(MappingProxyType(f) for f in book.integrity),
            settled=book.settled,
            recount=book.recount,
            workspace_root=None if self.sandbox is None else self.sandbox.root,
            audits=book.audits,
            audit_disagreements=book.audit_disagreements,
        )

    # ------------------------------------------------------------------ step

    def step(self, submissions: Mapping[int, object]) -> StepOutcome:
        """One step of the protocol: the same for every API form.

        1. Each submitted action of a ready agent is parsed, costed and scheduled; an
           agent that said `done` gets an error observation; the action of a busy agent
           is ignored, and its info says so (`ignored`, until its next step).
        2. Completions are applied in time order until some agent is ready or the
           episode ends; the workspace is scored after each batch of effects.
        3. Budgets are checked (token budget, all done, time cap).
        4. Agents still busy get a cheap info update; agents whose action completed
           (every agent, when the episode ended) get their new observation.
        5. The step is recorded.

        Args:
            submissions: agent index -> action (any form `parse_action` accepts).

        Raises:
            ResetNeeded: the episode has not started or has already ended.
            ClosedEnvironment: the environment was closed.
        """
        if self.closed:
            raise ClosedEnvironment("step() after close(): call reset() to start a new episode")
        if not self.started:
            raise ResetNeeded("step() before reset(): call reset() first")
        if self.ended:
            raise ResetNeeded(
                f"step() on a finished episode ({self.ended}: {self.end_reason}); "
                "call reset() first"
            )
        self.step_index += 1
        start = self.clock.now
        refused: list[int] = []
        acted: list[int] = []
        ignored: list[int] = []  # busy agents that were sent an action
        unflagged = self._unflag_ignored()
        for i, action in submissions.items():
            st = self.agents[i]
            if st.done:
                self._refuse(i, DONE_AGAIN)
                refused.append(i)
            elif i in self.ready:
                self._submit(i, action)
                acted.append(i)
            else:
                ignored.append(i)
        if self.ready:  # time stands still until every ready agent has acted
            reward = 0.0
            self._check_budgets()
        else:
            reward = self._advance_until_ready()  # checks the budgets after each batch
        # The latency penalty: once per step, on the collective reward, for the virtual
        # seconds the step lasted (the steps of an episode add up to its duration).
        penalty = self.config.latency_penalty_per_s * (self.clock.now - start)
        reward -= penalty
        self.book.pay(reward)
        if self.ended:
            correction = self.settle()  # the authoritative count: its last reward
            reward += correction
            self.book.pay(correction)
            self._observe_all()
            self._flag_ignored(ignored)
            everyone = range(len(self.agents))
            self._record_step(reward, everyone)
            return StepOutcome(reward, everyone, self.ended, self.end_reason, penalty)
        # Disjoint: refused agents act no more, busy ones have not completed.
        busy = [i for i in acted if self.agents[i].pending is not None]
        for i in busy:
            self._mark_busy(i)
        observed = self._observe_changed()
        self._flag_ignored(ignored)
        self._record_step(reward, observed)
        changed = [*refused, *busy, *observed]
        if unflagged or ignored:
            changed = list(dict.fromkeys([*changed, *unflagged, *ignored]))
        return StepOutcome(reward, changed, penalty=penalty)

    def reward_parts(self, out: StepOutcome) -> dict[str, float]:
        """A step's reward in named parts, for the infos: empty without a latency penalty."""
        if not self.config.latency_penalty_per_s:
            return {}
        return {"latency_penalty": out.penalty, "tests_reward": out.reward + out.penalty}

    def _flag_ignored(self, agents: list[int]) -> None:
        """Busy agents were sent actions: not applied, and their infos say so (one step)."""
        for i in agents:
            st = self.agents[i]
            st.info = {**st.info, "ignored": True}
        self.ignored = agents

    def _unflag_ignored(self) -> list[int]:
        """Clear the `ignored` marks of the last step; returns the agents whose info changed."""
        flagged, self.ignored = self.ignored, []
        for i in flagged:
            st = self.agents[i]
            if st.info.get("ignored"):
                info = st.info.copy()
                del info["ignored"]
                st.info = info
        return flagged

    def _submit(self, i: int, action: object) -> None:
        """Parse, cost and schedule agent `i`'s action (the agent must be ready)."""
        st = self.agents[i]
        now = self.clock.now
        cfg = self.config.time
        try:
            tool, args, usage, chars = A.parse_action(
                action, max_chars=self.config.max_action_chars
            )
            error = None
        except ActionError as e:  # costs what it was reported to cost, like any action
            usage = cast("A.Usage | None", e.usage)
            tool, args, error, chars = "invalid", None, str(e), e.chars
        except Exception as e:  # untrusted input must never crash the episode
            logger.exception("parsing an action of %s failed", st.name)
            tool, args, usage, error = "invalid", None, None, f"cannot parse the action: {e!r}"
            chars = 100
        allowed = self._tools.get(st.role)
        if error is None and allowed is not None and tool not in allowed:
            # Like any mistake: it costs its thinking time, and the tool does not run.
            error = (
                f"{tool}: the {st.role} role may not call it; "
                f"your tools: {', '.join(t for t in TOOLS if t in allowed)}"
            )
        # Reported usage is already floored at the estimate from the action's text.
        out_tok = usage.output_tokens if usage is not None else A.estimate_tokens(chars)
        in_tok = usage.input_tokens if usage is not None else None
        if in_tok is None:
            in_tok = A.estimate_tokens(st.prompt_chars)
        st.prompt_chars = 0
        st.tokens += out_tok + in_tok
        self.tokens += out_tok + in_tok
        st.actions += 1
        think = out_tok * cfg.output_token_s + in_tok * cfg.input_token_s
        if cfg.measured and usage is not None and usage.latency_s is not None:
            think = usage.latency_s  # wall-clock mode: the model's real answer time
        start_tool = now + think
        self.ready.discard(i)
        st.waiting = False
        self.waiting.discard(i)
        st.pending = _Pending(tool, args, now, start_tool, error)
        if self.recorder:
            self.recorder.write(
                ActionEvent(
                    t=now,
                    agent=st.name,
                    tool=tool,
                    action=action,
                    output_tokens=out_tok,
                    input_tokens=in_tok,
                )
            )
        if error is None and isinstance(args, Wait):
            self._schedule_wait(st, start_tool, args.seconds)
            return
        duration = 0.0 if error or cfg.measured else self._tool_seconds(tool, args)
        self.clock.schedule(i, start_tool + duration)

    def _tool_seconds(self, tool: str, args: Any) -> float:
        if tool == "run_tests":
            base = self.task.manifest.tests.duration_s
            if args.selection:
                frac = len(self._select(args.selection)) / max(self.book.tests_total, 1)
                return max(base * frac, self.config.time.tool_s.get("run_tests", 0.5))
            return base
        return self.config.time.tool_s[tool]

    def _select(self, selection: list[str]) -> list[str]:
        return select_tests(self._test_ids or [], selection)[0]

    def _schedule_wait(self, st: AgentState, start: float, seconds: float | None) -> None:
        if seconds is None and all(o.done for o in self.agents if o is not st):
            seconds = LONE_WAIT_S  # no teammate is left to send the message it waits for
        st.waiting = True
        self.waiting.add(st.index)
        until = start + seconds if seconds is not None else math.inf
        arrival = self.post.next_arrival(st.index)
        if arrival is not None:
            until = min(until, max(arrival, start))
        if math.isinf(until):
            self.clock.cancel(st.index)  # woken by a message, or at the barrier / cap
        else:
            self.clock.schedule(st.index, until)

    def _refuse(self, i: int, reason: str) -> None:
        """An action from an agent that may not act (e.g. it said done): error, no cost."""
        st = self.agents[i]
        st.result = None
        st.error = reason
        self._observe(st, ready=False)

    # ------------------------------------------------------------------ advance

    def _advance(self) -> list[int]:
        """Event mode: apply the next batch of completions; return the agents that completed.

        Time stands still while some agent is ready but has not acted: every ready
        agent must commit to an action (if only `wait`) before the clock moves on.
        """
        if self.ready:
            return []
        due = self.clock.pop_due(self.time_cap)
        if not due:
            if any(st.pending is not None for st in self.agents):
                # Nothing completes before the cap: untimed waits, or actions past it.
                self._truncate_at_cap()
            else:
                self._end("all_done")
            return []
        for i in due:
            self._complete(i)
        return due

    def _advance_round(self) -> None:
        """Round mode: apply every pending action; the step lasts until the slowest one."""
        if self.ready:
            return  # a ready agent has not acted yet: the round has not started
        start = self.clock.now
        while True:
            due = self.clock.pop_due(self.time_cap)
            if not due:
                break
            for i in due:
                self._complete(i)
        waiting = [st for st in self.agents if st.pending is not None]
        if waiting:
            nxt = self.clock.peek()
            if nxt is not None and nxt > self.time_cap:
                self._truncate_at_cap()
                return
            if self.clock.now == start and all(st.waiting for st in waiting) and nxt is None:
                # Everyone waits for a message that nobody will send.
                self._truncate_at_cap()
                return
            for st in waiting:  # untimed waits end at the barrier
                if st.waiting and self.clock.due[st.index] is None:
                    self.clock.cancel(st.index)
                    self._complete(st.index)

    def _advance_until_ready(self) -> float:
        """Apply completions until some agent is ready or the episode ends; returns the reward.

        Event mode moves to the next completion, and on when it left nobody ready (an
        agent said done); round mode runs the round to its barrier. Scoring follows each
        batch of effects, so the episode ends at the moment every test passes.
        """
        reward = 0.0
        while not self.ready and not self.ended:
            if self.config.sync == "event":
                self._advance()
            else:
                self._advance_round()
            reward += self._rescore()
            self._check_budgets()
        return reward

    def _truncate_at_cap(self) -> None:
        # Nothing completes before the cap: time jumps to it. Under an infinite cap
        # nothing ever will (everyone waits for a message nobody sends): stalled.
        if math.isinf(self.time_cap):
            self._end("stalled")
            return
        self.clock.advance_to(max(self.clock.now, self.time_cap))
        self._end("time_cap")

    def _complete(self, i: int) -> None:
        st = self.agents[i]
        p = st.pending
        assert p is not None
        now = self.clock.now
        if p.applied:  # measured mode: the agent returns after the tool's wall time
            self._finish(st, p)
            return
        st.last_tool = p.tool
        if p.error is not None:
            st.result, st.error = None, p.error
        else:
            t0 = wallclock.perf_counter()
            try:
                st.result, st.error = self._apply(st, p.tool, p.args), None
            except ActionError as e:
                st.result, st.error = None, str(e)
            except Exception as e:  # a bug of ours must not end the episode: report it
                logger.exception("tool %s of %s failed", p.tool, st.name)
                st.result, st.error = None, f"{p.tool} failed inside the environment: {e!r}"
            if self.config.time.measured and p.tool != "wait":
                p.applied = True
                self.clock.schedule(i, now + (wallclock.perf_counter() - t0))
                if self.recorder:
                    self._record_effect(st, p.tool)
                return
        if self.recorder:
            self._record_effect(st, p.tool)
        self._finish(st, p)

    def _record_effect(self, st: AgentState, tool: str) -> None:
        assert self.recorder is not None
        event = EffectEvent(
            t=self.clock.now, agent=st.name, tool=tool, result=st.result, error=st.error
        )
        self.recorder.write(event)

    def _finish(self, st: AgentState, p: _Pending) -> None:
        # A message from an agent completing at the same instant may have scheduled a
        # wake-up for this (waiting) agent after it was popped: that entry is void now.
        if self.clock.due[st.index] is not None:
            self.clock.cancel(st.index)
        st.pending = None
        st.waiting = False
        self.waiting.discard(st.index)
        self.completed.append(st.index)
        if p.tool == "done" and p.error is None and st.error is None:
            st.done = True
            self.done_count += 1
        else:
            self.ready.add(st.index)

    # ------------------------------------------------------------------ tools

    def _apply(self, st: AgentState, tool: str, args: Any) -> str:
        spec = TOOLS[tool]
        if spec.writes or tool == "run_tests":
            self.book.touched()  # before the handler: a failed write may have written
        out = spec.handler(self, st.index, args)
        if spec.writes:
            path = getattr(args, "path", None)  # a command's effects are not traced
            files = None if path is None else [self.workspace.relpath(path)]
            self.book.applied({"agent": st.name, "tool": tool, "files": files, "t": self.clock.now})
        return out

    # The `ToolContext` the handlers use (see swarm_envs.core.tools).

    @property
    def workspace(self) -> Workspace:
        """The shared project files of the running episode."""
        if self._workspace is None:
            raise ResetNeeded("the episode has no workspace before reset()")
        return self._workspace

    @property
    def num_agents(self) -> int:
        """The size of the swarm."""
        return len(self.agents)

    def agent_index(self, name: str) -> int | None:
        """The index of the agent called `name` (exactly), or None."""
        return self._index.get(name)

    def run_tests(self, selection: list[str] | None) -> str:
        """The `run_tests` tool: score a selection of the canonical tests, as text."""
        if selection and not self._select(selection):
            raise ActionError(
                f"run_tests: no test matches {selection}; use test files like "
                "'tests/test_x.py' or ids like 'tests/test_x.py::test_y'"
            )
        return observation.reproducible(
            observation.format_report(self._scorer().evaluate(selection))
        )

    def run_command(self, command: str) -> str:
        """The `run_command` tool: run `command` in the sandbox, as text."""
        res = self._sandbox().run(command)
        if res.timed_out:
            status = "timed out and was killed"
        elif res.returncode is not None:
            status = f"exit code {res.returncode}"
        else:
            status = "killed"
        out = f"$ {command}\n{observation.reproducible(res.output)}\n[{status}]"
        quota = self._scorer().quota_note()  # a command may have filled the workspace
        return out + (f"\n[{quota}]" if quota else "")

    def wake(self, agent: int, at: float) -> None:
        """A message to `agent` arrives at `at`: a waiting agent wakes then."""
        st = self.agents[agent]
        if not st.waiting or st.pending is None:
            return
        at = max(at, st.pending.think_end)
        due = self.clock.due[agent]
        if due is None or at < due:
            self.clock.schedule(agent, at)

    def wake_subscribers(self, channel: str, sender: int, at: float) -> None:
        """A post to `channel` arrives at `at`: its waiting subscribers wake then.

        O(waiting agents), not O(subscribers): a post to 1,000 agents that are busy
        touches none of them.
        """
        for r in self.waiting:
            if r != sender and self.post.is_subscribed(r, channel):
                self.wake(r, at)

    def _scorer(self) -> EpisodeScorer:
        if self.scorer is None:
            raise ResetNeeded("the episode has no scorer before reset()")
        return self.scorer

    def _sandbox(self) -> Sandbox:
        if self.sandbox is None:
            raise ResetNeeded("the episode has no sandbox before reset()")
        return self.sandbox

    # ------------------------------------------------------------------ scoring

    def _rescore(self) -> float:
        """Score the workspace if it changed; returns the reward (change in passing tests).

        The book decides what to run (the per-step count, a fresh confirmation of an
        all-pass count); the episode ends where it says so and records what it added.
        """
        out: Rescore = self.book.rescore(
            self._scorer(), now=self.clock.now, step=self.step_index, ended=self.ended is not None
        )
        self._record_attribution(out.attribution)
        if out.end is not None:
            self._end(out.end)
        return out.reward

    def _record_attribution(self, records: Iterable[Attribution]) -> None:
        if self.recorder:
            for record in records:
                self.recorder.write(AttributionEvent.model_validate(record))

    def _check_budgets(self) -> None:
        if self.ended:
            return
        budget = self.config.token_budget
        if budget is not None and self.tokens >= budget:
            self._end("token_budget")
        elif self.done_count == len(self.agents):
            self._end("all_done")
        elif self.clock.now >= self.time_cap and not self.ready:
            self._end("time_cap")

    def _end(self, reason: EndReason) -> None:
        if self.ended is None:
            self.ended, self.end_reason = END_KIND[reason], reason

    # ------------------------------------------------------------------ observations

    def status_line(self, st: AgentState) -> str:
        """The last line of every observation: time, score, who you are, your team."""
        if st.team is None:
            st.team = observation.team(self.names, st.name)
        return observation.status_line(
            self.clock.now, self.time_cap, self.book.passed, self.book.tests_total, st.name, st.team
        )

    def _observe(self, st: AgentState, ready: bool | None = None) -> None:
        """Build the agent's observation text and info at the current time."""
        msgs = self.post.collect(st.index, self.clock.now)
        limit = self.config.max_observation_chars
        body = st.result if st.error is None else f"ERROR: {st.error}"
        messages = observation.messages_text(msgs, self.names, max(limit // 3, 256)) if msgs else ""
        tool = st.last_tool if st.error is None else None
        text, shown = observation.compose(body, messages, self.status_line(st), limit, tool=tool)
        st.obs = Observation(text)
        st.prompt_chars += len(st.obs)
        st.messages = [m.info for m in msgs]
        ready = ready if ready is not None else st.index in self.ready
        st.info = self._info(st, ready, shown if st.error is None else None)
        st.attributed = len(self.book.attribution)
        st.result = st.error = None  # reported once

    def _info(self, st: AgentState, ready: bool, result: str | None) -> AgentInfo:
        book = self.book
        return {
            "task": self.task.id,
            "ready": ready,
            "time": self.clock.now,
            "time_left": max(self.time_cap - self.clock.now, 0.0),
            "tests_passed": book.passed,
            "tests_total": book.tests_total,
            "per_test": book.per_test,
            "verdict": book.verdict,
            "verdict_error": book.verdict_error,
            "integrity": book.integrity,
            "visible_passed": book.visible_passed,
            "held_out_passed": book.held_out[0],
            "held_out_total": book.held_out[1],
            "tool": st.last_tool,
            "error": st.error,
            "messages": st.messages,
            "attribution": book.attribution[st.attributed :],
            "tokens": st.tokens,
            "team_tokens": self.tokens,
            "done": st.done,
            "role": st.role,
            "termination": self.end_reason if self.ended == "terminated" else None,
            "truncation": self.end_reason if self.ended == "truncated" else None,
            "result": result,
        }

    def _observe_changed(self) -> list[int]:
        """Observe the agents whose action completed during the step; returns them.

        A ready agent that has not acted keeps its observation (and its undelivered
        messages wait in its inbox) until its next action completes.
        """
        changed = sorted(self.completed)
        self.completed = []
        for i in changed:
            self._observe(self.agents[i])
        return changed

    def _mark_busy(self, i: int) -> None:
        """Cheap info update for an agent that just started an action."""
        st = self.agents[i]
        info = st.info.copy()
        info["ready"] = False
        info["busy_until"] = self.clock.due[i]
        info["error"] = info["result"] = None
        info["messages"] = []  # already reported with the previous observation
        info["attribution"] = []
        st.info = info

    def _record_step(self, reward: float, changed: Iterable[int]) -> None:
        """Write the step (and the end, if it ended) to the recording, if any."""
        if self.recorder is None:
            return
        observations = {self.names[i]: self.agents[i].obs for i in changed}
        now = self.clock.now
        self.recorder.write(
            StepEvent(
                t=now, reward=reward, tests_passed=self.book.passed, observations=observations
            )
        )
        if self.ended:
            self.recorder.write(
                EndEvent(
                    t=now,
                    kind=self.ended,
                    reason=self.end_reason or "",
                    tests_passed=self.book.passed,
                    tests_total=self.book.tests_total,
                )
            )

    def _observe_all(self) -> None:
        """Final observations when the episode ends (every agent, with the reason)."""
        self.completed = []
        for st in self.agents:
            if st.result is None and st.error is None:
                st.result = f"episode over: {self.end_reason}"
            self._observe(st, ready=False)
            stats = {"r": self.book.total_reward, "l": st.actions, "t": self.clock.now}
            st.info["swarm_episode"] = cast(EpisodeStats, stats)
