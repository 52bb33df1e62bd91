"""The simulation behind every API: one episode of a swarm on one task.

`Episode` owns the virtual clock, the workspace, the sandbox, the scorer and the
post office. The PettingZoo parallel env, the AEC env and the Gymnasium env are
thin facades over it. Data flows one way:

    submit (parse, cost, schedule) -> advance (apply in completion order)
        -> rescore (reward) -> observe (text + structured info)

Causality: an action is applied atomically at its completion time, which is also
the agent's next observation time, and completions are applied in time order
(ties by agent index). So an agent sees exactly the effects that completed at or
before its observation time, and nothing later.
"""

from __future__ import annotations

import logging
import math
import time as wallclock
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from swarm_envs import actions as A
from swarm_envs.channels import Message, PostOffice
from swarm_envs.clock import Clock
from swarm_envs.config import EnvConfig
from swarm_envs.error import ActionError, ConfigError, ScoringError
from swarm_envs.recording import Recorder
from swarm_envs.sandboxes import Sandbox, make_sandbox
from swarm_envs.scoring import Scorer, TestReport, make_scorer, select_tests
from swarm_envs.spaces import Observation
from swarm_envs.task import Task
from swarm_envs.workspace import Workspace

logger = logging.getLogger("swarm_envs")
TRUNCATED_MARK = "\n[... truncated {n} characters ...]\n"


def agent_names(n: int) -> list[str]:
    """The agent names of a swarm of `n`: agent_0 .. agent_{n-1}."""
    return [f"agent_{i}" for i in range(n)]


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
    done: bool = False
    waiting: bool = False
    pending: _Pending | None = None
    result: str | None = None  # what its next observation reports
    error: str | None = None
    last_tool: str | None = None
    obs: str = ""
    info: dict = field(default_factory=dict)
    prompt_chars: int = 0  # observation text not yet "read" by an action (input tokens)
    tokens: int = 0
    actions: int = 0
    messages: list[dict] = field(default_factory=list)
    team: str | None = None  # the status line's team part, built once


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    marker = TRUNCATED_MARK.format(n=len(text) - limit)
    keep = max(limit - len(marker), 0)
    head = keep * 2 // 3
    return text[:head] + marker + text[len(text) - (keep - head) :]


def format_report(report: TestReport, max_failures: int = 10) -> str:
    """A run_tests result: one summary line, then the first failures."""
    if report.verdict != "ok":
        return f"tests could not be run: {report.error or 'no verdict'}"
    failed = [t for t, ok in report.per_test.items() if not ok]
    lines = [f"{report.passed} passed, {len(failed)} failed (of {report.total} selected)"]
    for t in failed[:max_failures]:
        detail = report.failures.get(t, "").strip()
        lines.append(
            f"FAILED {t}" + (f"\n    {detail.replace(chr(10), chr(10) + '    ')}" if detail else "")
        )
    if len(failed) > max_failures:
        lines.append(f"[... {len(failed) - max_failures} more failures]")
    return "\n".join(lines)


class Episode:
    """One episode: clock, agents, workspace, messages, scoring."""

    def __init__(self, task: Task, config: EnvConfig):
        self.task = task
        self.config = config
        self.names = agent_names(config.num_agents)
        self._index = {name: i for i, name in enumerate(self.names)}
        self.time_cap = config.time_cap_s
        self.sandbox: Sandbox | None = None
        self.scorer: Scorer | None = None
        self.recorder = Recorder(config.record_path) if config.record_path else None
        self.np_random = np.random.default_rng(config.seed)
        self._test_ids: list[str] | None = None
        self._reward_ids: list[str] | None = None

    # ------------------------------------------------------------------ lifecycle

    def reset(self, seed: int | None = None, time_cap: float | None = None) -> None:
        self.close_sandbox()
        if time_cap is not None:
            if not (isinstance(time_cap, int | float) and time_cap > 0 and math.isfinite(time_cap)):
                raise ConfigError(f"time_cap={time_cap!r}: expected a positive number of seconds")
        self.time_cap = float(time_cap) if time_cap is not None else self.config.time_cap_s
        self.seed = seed
        self.np_random = np.random.default_rng(seed)
        n = self.config.num_agents
        self.clock = Clock(n)
        self.post = PostOffice(n, self.config.time.message_latency_s)
        self.agents = [AgentState(i, name) for i, name in enumerate(self.names)]
        self.ready: set[int] = set(range(n))  # agents that may act now
        self.completed: list[int] = []  # agents whose action completed during this step
        self.tokens = 0
        self.ended: str | None = None  # "terminated" or "truncated"
        self.end_reason: str | None = None
        self.scorer_failures = 0
        self.dirty = False
        self.verdict = "ok"
        self.sandbox = make_sandbox(self.config.sandbox)
        self.task.materialize(self.sandbox.root)
        self.scorer = make_scorer(
            self.task, self.sandbox, kind=self.config.scorer, quota=self.config.workspace_quota
        )
        self.workspace = Workspace(self.sandbox.root, self.task.is_protected, self.scorer.admit)
        if self._test_ids is None:
            self._test_ids = self.scorer.test_ids()
            # The reward's tests: the visible ones, or (reward_tests="all") held-out ones too.
            extra = self.scorer.held_out_ids() if self.config.reward_tests == "all" else []
            self._reward_ids = [*self._test_ids, *extra]
        report = self._score()
        if report is None:
            raise ScoringError("the scorer gave no verdict on the starting state")
        self._take(report)
        if self.recorder:
            self.recorder.begin(self)
        intro = self._intro()
        protections = dict(self.sandbox.protections)
        for st in self.agents:
            st.result = intro
            self._observe(st)
            st.info["sandbox"] = {"backend": self.config.sandbox, "protections": protections}

    def close_sandbox(self) -> None:
        if self.scorer is not None:
            self.scorer.close()
            self.scorer = None
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None

    def close(self) -> None:
        self.close_sandbox()
        if self.recorder:
            self.recorder.close()

    @property
    def now(self) -> float:
        return self.clock.now

    @property
    def tests_total(self) -> int:
        return len(self._reward_ids or ())

    def _take(self, report: TestReport) -> None:
        """The reward's counts and the held-out ones from a report (which has both)."""
        reward_ids = set(self._reward_ids or ())
        self.per_test = {t: ok for t, ok in report.per_test.items() if t in reward_ids}
        self.passed = sum(self.per_test.values())
        self.visible_passed = report.visible_passed
        self.held_out = (report.held_out_passed, report.held_out_total)
        self.integrity = list(report.integrity)  # what the scorer's guard flagged

    # ------------------------------------------------------------------ submit

    def submit(self, i: int, action: object) -> None:
        """Parse, cost and schedule agent `i`'s action (the agent must be ready)."""
        st = self.agents[i]
        now = self.clock.now
        cfg = self.config.time
        try:
            tool, args, usage, chars = A.parse_action(
                action, max_chars=self.config.max_action_chars
            )
            error = None
        except ActionError as e:
            tool, args, usage, error = "invalid", None, None, str(e)
            chars = len(action) if isinstance(action, str | bytes) else 100
        except Exception as e:  # untrusted input must never crash the episode
            logger.exception("parsing an action of %s failed", st.name)
            tool, args, usage, error = "invalid", None, None, f"cannot parse the action: {e!r}"
            chars = 100
        if usage is not None:
            out_tok, in_tok = usage.output_tokens, usage.input_tokens
        else:
            out_tok, in_tok = A.estimate_tokens(chars), A.estimate_tokens(st.prompt_chars)
        st.prompt_chars = 0
        st.tokens += out_tok + in_tok
        self.tokens += out_tok + in_tok
        st.actions += 1
        think = out_tok * cfg.output_token_s + in_tok * cfg.input_token_s
        start_tool = now + think
        self.ready.discard(i)
        st.waiting = False
        st.pending = _Pending(tool, args, now, start_tool, error)
        if self.recorder:
            self.recorder.action(now, st.name, action, tool, out_tok, in_tok)
        if error is None and tool == "wait":
            self._schedule_wait(st, start_tool, args.seconds)
            return
        duration = 0.0 if error or cfg.measured else self._tool_seconds(tool, args)
        self.clock.schedule(i, start_tool + duration)

    def _tool_seconds(self, tool: str, args: Any) -> float:
        if tool == "run_tests":
            base = self.task.manifest.tests.duration_s
            if args.selection:
                frac = len(self._select(args.selection)) / max(self.tests_total, 1)
                return max(base * frac, self.config.time.tool_s.get("run_tests", 0.5))
            return base
        return self.config.time.tool_s[tool]

    def _select(self, selection: list[str]) -> list[str]:
        return select_tests(self._test_ids or [], selection)[0]

    def _schedule_wait(self, st: AgentState, start: float, seconds: float | None) -> None:
        st.waiting = True
        until = start + seconds if seconds is not None else math.inf
        arrival = self.post.next_arrival(st.index)
        if arrival is not None:
            until = min(until, max(arrival, start))
        if math.isinf(until):
            self.clock.cancel(st.index)  # woken by a message, or at the barrier / cap
        else:
            self.clock.schedule(st.index, until)

    def refuse(self, i: int, reason: str) -> None:
        """An action from an agent that may not act (e.g. it said done): error, no cost."""
        st = self.agents[i]
        st.result = None
        st.error = reason
        self._observe(st, ready=False)

    # ------------------------------------------------------------------ advance

    def advance(self) -> list[int]:
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
                self._end("terminated", "all_done")
            return []
        for i in due:
            self._complete(i)
        return due

    def advance_round(self) -> None:
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

    def advance_until_ready(self) -> float:
        """Apply completions until some agent is ready or the episode ends; returns the reward.

        Event mode moves to the next completion, and on when it left nobody ready (an
        agent said done); round mode runs the round to its barrier. Scoring follows each
        batch of effects, so the episode ends at the moment every test passes.
        """
        reward = 0.0
        while not self.ready and not self.ended:
            if self.config.sync == "event":
                self.advance()
            else:
                self.advance_round()
            reward += self.rescore()
            self.check_budgets()
        return reward

    def _truncate_at_cap(self) -> None:
        self.clock.advance_to(max(self.clock.now, self.time_cap))
        self._end("truncated", "time_cap")

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
                    self.recorder.effect(now, st.name, p.tool, st.result, st.error)
                return
        if self.recorder:
            self.recorder.effect(now, st.name, p.tool, st.result, st.error)
        self._finish(st, p)

    def _finish(self, st: AgentState, p: _Pending) -> None:
        # A message from an agent completing at the same instant may have scheduled a
        # wake-up for this (waiting) agent after it was popped: that entry is void now.
        if self.clock.due[st.index] is not None:
            self.clock.cancel(st.index)
        st.pending = None
        st.waiting = False
        self.completed.append(st.index)
        if p.tool == "done" and p.error is None and st.error is None:
            st.done = True
        else:
            self.ready.add(st.index)

    # ------------------------------------------------------------------ tools

    def _apply(self, st: AgentState, tool: str, args: Any) -> str:
        ws, now = self.workspace, self.clock.now
        if tool == "list_files":
            return ws.list_files(args.path)
        if tool == "read_file":
            return ws.read_file(args.path, args.start_line, args.end_line)
        if tool == "write_file":
            out = ws.write_file(args.path, args.content)
            self.dirty = True
            return out
        if tool == "edit_file":
            out = ws.edit_file(args.path, args.old, args.new)
            self.dirty = True
            return out
        if tool == "run_tests":
            if args.selection and not self._select(args.selection):
                raise ActionError(
                    f"run_tests: no test matches {args.selection}; use test files like "
                    "'tests/test_x.py' or ids like 'tests/test_x.py::test_y'"
                )
            report = self.scorer.evaluate(args.selection)
            return format_report(report)
        if tool == "run_command":
            assert self.sandbox is not None
            res = self.sandbox.run(args.command)
            self.dirty = True
            status = (
                "timed out and was killed"
                if res.timed_out
                else f"exit code {res.returncode}"
                if res.returncode is not None
                else "killed"
            )
            quota = self.scorer.quota_note()  # a command may have filled the workspace
            return f"$ {args.command}\n{res.output}\n[{status}]" + (f"\n[{quota}]" if quota else "")
        if tool == "send_message":
            j = self._index.get(args.to)
            if j is None:
                raise ActionError(
                    f"send_message: unknown agent {args.to!r}; agents are agent_0 .. "
                    f"agent_{len(self.agents) - 1}"
                )
            if j == st.index:
                raise ActionError("send_message: you cannot message yourself")
            msg = self.post.send(now, st.index, j, args.text)
            self._wake(j, msg.deliver_at)
            return f"message sent to {args.to} (delivered at t={msg.deliver_at:.1f}s)"
        if tool == "post":
            recipients = self.post.post(now, st.index, args.channel, args.text)
            at = now + self.post.latency
            for j in recipients:
                self._wake(j, at)
            if args.channel not in self.post.subscriptions(st.index):
                note = " (you are not subscribed to it)"
            else:
                note = ""
            return f"posted to #{args.channel}{note}: {len(recipients)} recipients"
        if tool == "subscribe":
            new = self.post.subscribe(st.index, args.channel)
            subs = ", ".join("#" + c for c in self.post.subscriptions(st.index))
            verb = "subscribed to" if new else "already subscribed to"
            return f"{verb} #{args.channel}; your channels: {subs}"
        if tool == "wait":
            return "waited"
        if tool == "done":
            return "you are done; the episode ends when every agent is done"
        raise AssertionError(tool)

    def _wake(self, j: int, at: float) -> None:
        """A message to agent j arrives at `at`: a waiting agent wakes then."""
        st = self.agents[j]
        if not st.waiting or st.pending is None:
            return
        at = max(at, st.pending.think_end)
        due = self.clock.due[j]
        if due is None or at < due:
            self.clock.schedule(j, at)

    # ------------------------------------------------------------------ scoring

    def _score(self) -> TestReport | None:
        report = self.scorer.evaluate(held_out=True)
        if report.verdict != "ok":
            self.scorer_failures += 1
            self.verdict = "no_verdict"
            return None
        self.scorer_failures = 0
        self.verdict = "ok"
        return report

    def rescore(self) -> float:
        """Score the workspace if it changed; returns the reward (change in passing tests)."""
        if not self.dirty:
            self.verdict = "ok"
            return 0.0
        report = self._score()
        if report is None:
            if self.scorer_failures >= self.config.max_scorer_failures:
                self._end("truncated", "scorer_failure")
            return 0.0  # "no verdict": keep the last known score, retry next step
        self.dirty = False
        before = self.passed
        self._take(report)
        reward = float(self.passed - before)
        if self.passed == self.tests_total and self.tests_total and not self.ended:
            self._end("terminated", "all_tests_pass")
        return reward

    def check_budgets(self) -> None:
        if self.ended:
            return
        budget = self.config.token_budget
        if budget is not None and self.tokens >= budget:
            self._end("truncated", "token_budget")
        elif all(st.done for st in self.agents):
            self._end("terminated", "all_done")
        elif self.clock.now >= self.time_cap and not self.ready:
            self._end("truncated", "time_cap")

    def _end(self, kind: str, reason: str) -> None:
        if self.ended is None:
            self.ended, self.end_reason = kind, reason

    # ------------------------------------------------------------------ observations

    def _intro(self) -> str:
        m = self.task.manifest
        return (
            f"Task {self.task.id}: {m.description.strip()}\n\n"
            f"You are one of {len(self.agents)} agents working on the same project at the "
            "same time; the team's reward is the number of tests that pass. Files, tests "
            "and commands are shared. Talk with send_message (to one agent) and post (to a "
            "channel; everyone is in #general). Act with one tool call per action: "
            + ", ".join(A.TOOLS)
            + "."
        )

    def _team(self, st: AgentState) -> str:
        n = len(self.agents)
        if n == 1:
            return "you work alone"
        if n <= 9:
            return "teammates: " + ", ".join(name for name in self.names if name != st.name)
        return f"teammates: {n - 1} others (agent_0 .. agent_{n - 1})"

    def status_line(self, st: AgentState) -> str:
        """The last line of every observation: time, score, who you are, your team."""
        if st.team is None:
            st.team = self._team(st)
        now = self.clock.now
        left = self.time_cap - now if now < self.time_cap else 0.0
        return (
            f"[t={now:.1f}s, {left:.1f}s left | tests {self.passed}/{self.tests_total} "
            f"passing | you are {st.name} | {st.team}]"
        )

    def _observe(self, st: AgentState, ready: bool | None = None) -> None:
        """Build the agent's observation text and info at the current time."""
        now = self.clock.now
        msgs: list[Message] = self.post.collect(st.index, now)
        limit = self.config.max_observation_chars
        status = self.status_line(st)
        body = st.result if st.error is None else f"ERROR: {st.error}"
        parts = []
        msg_text = ""
        if msgs:
            msg_text = "--- messages ---\n" + "\n".join(
                f"[t={m.deliver_at:.1f}s] "
                + (f"#{m.channel} " if m.channel else "")
                + f"{self.names[m.sender]}"
                + (": " if m.channel else " -> you: ")
                + m.text
                for m in msgs
            )
            msg_text = _cap(msg_text, max(limit // 3, 256))
        budget = limit - len(status) - len(msg_text) - 2
        body = _cap(body, max(budget, 64)) if body else ""
        if body:
            parts.append(body)
        if msg_text:
            parts.append(msg_text)
        parts.append(status)
        st.obs = Observation(_cap("\n".join(parts), limit))
        st.prompt_chars += len(st.obs)
        st.messages = [m.to_dict(self.names) for m in msgs]
        st.info = self._info(st, ready if ready is not None else st.index in self.ready)
        st.info["result"] = body if st.error is None else None
        st.result = st.error = None  # reported once

    def _info(self, st: AgentState, ready: bool) -> dict:
        return {
            "ready": ready,
            "time": self.clock.now,
            "time_left": max(self.time_cap - self.clock.now, 0.0),
            "tests_passed": self.passed,
            "tests_total": self.tests_total,
            "per_test": self.per_test,
            "verdict": self.verdict,
            "integrity": self.integrity,
            "visible_passed": self.visible_passed,
            "held_out_passed": self.held_out[0],
            "held_out_total": self.held_out[1],
            "tool": st.last_tool,
            "error": st.error,
            "messages": st.messages,
            "tokens": st.tokens,
            "team_tokens": self.tokens,
            "done": st.done,
            "termination": self.end_reason if self.ended == "terminated" else None,
            "truncation": self.end_reason if self.ended == "truncated" else None,
        }

    def observe_changed(self) -> list[int]:
        """Observe the agents whose action completed during the step; returns them.

        A ready agent that has not acted keeps its observation (and its undelivered
        messages wait in its inbox) until its next action completes.
        """
        changed = sorted(self.completed)
        self.completed = []
        for i in changed:
            self._observe(self.agents[i])
        return changed

    def mark_busy(self, i: int) -> None:
        """Cheap info update for an agent that just started an action."""
        st = self.agents[i]
        info = dict(st.info)
        info["ready"] = False
        info["busy_until"] = self.clock.due[i]
        info["error"] = info["result"] = None
        info["messages"] = []  # already reported with the previous observation
        st.info = info

    def record_step(self, reward: float, changed: Iterable[int]) -> None:
        """Write the step (and the end, if it ended) to the recording, if any."""
        if self.recorder is None:
            return
        observations = {self.names[i]: self.agents[i].obs for i in changed}
        self.recorder.step(self.clock.now, reward, self.passed, observations)
        if self.ended:
            self.recorder.end(
                self.clock.now, self.ended, self.end_reason or "", self.passed, self.tests_total
            )

    def observe_all(self) -> None:
        """Final observations when the episode ends (every agent, with the reason)."""
        self.completed = []
        for st in self.agents:
            if st.result is None and st.error is None:
                st.result = f"episode over: {self.end_reason}"
            self._observe(st, ready=False)
