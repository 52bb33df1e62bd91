"""Observation text: what an agent reads when its action completes.

Pure functions over plain data, so that the wording of observations lives in one place
and the episode only gathers the facts. An observation is the tool's result (or the
error), the messages delivered since the agent's last observation, and a status line;
long parts are cut with the truncation marker so that the status line always survives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from swarm_envs.channels import Message, agent_range
from swarm_envs.text import cap_middle


class Report(Protocol):
    """What `format_report` reads of a scorer's report (`scoring.TestReport`)."""

    @property
    def verdict(self) -> str:
        """The verdict: "ok", or "no_verdict" when the scorer failed."""
        ...

    @property
    def error(self) -> str | None:
        """Why there is no verdict."""
        ...

    @property
    def per_test(self) -> Mapping[str, bool]:
        """Test id -> passed, for the selection."""
        ...

    @property
    def failures(self) -> Mapping[str, str]:
        """Test id -> short failure text."""
        ...

    @property
    def passed(self) -> int:
        """Passing tests of the selection."""
        ...

    @property
    def total(self) -> int:
        """Tests in the selection."""
        ...


def intro(
    task_id: str,
    description: str,
    num_agents: int,
    tools: Sequence[str],
    role: str | None = None,
) -> str:
    """The first observation of every agent: the task, the team, its role, the tools."""
    return (
        f"Task {task_id}: {description.strip()}\n\n"
        f"You are one of {num_agents} agents working on the same project at the "
        "same time; the team's reward is the number of tests that pass. Files, tests "
        "and commands are shared. Talk with send_message (to one agent) and post (to a "
        "channel; everyone is in #general). "
        + (f"{role.strip()} " if role else "")
        + "Act with one tool call per action: "
        + ", ".join(tools)
        + "."
    )


def team(names: Sequence[str], me: str) -> str:
    """The team part of the status line: the teammates by name, or how many there are."""
    n = len(names)
    if n == 1:
        return "you work alone"
    if n <= 9:
        return "teammates: " + ", ".join(name for name in names if name != me)
    return f"teammates: {n - 1} others ({agent_range(n)})"


def status_line(now: float, time_cap: float, passed: int, total: int, name: str, team: str) -> str:
    """The last line of every observation: time, time left, score, who you are, your team."""
    left = time_cap - now if now < time_cap else 0.0
    return (
        f"[t={now:.1f}s, {left:.1f}s left | tests {passed}/{total} "
        f"passing | you are {name} | {team}]"
    )


def messages_text(messages: Sequence[Message], names: Sequence[str], limit: int) -> str:
    """The delivered messages as one block (empty without messages), at most `limit` long."""
    if not messages:
        return ""
    text = "--- messages ---\n" + "\n".join(
        f"[t={m.deliver_at:.1f}s] "
        + (f"#{m.channel} " if m.channel else "")
        + f"{names[m.sender]}"
        + (": " if m.channel else " -> you: ")
        + m.text
        for m in messages
    )
    return cap_middle(text, limit)


def compose(body: str | None, messages: str, status: str, limit: int) -> tuple[str, str]:
    """(observation text of at most `limit` characters, the body as it appears in it).

    The body gets the room that the messages and the status line leave.
    """
    budget = limit - len(status) - len(messages) - 2
    shown = cap_middle(body, max(budget, 64)) if body else ""
    parts = [p for p in (shown, messages) if p]
    parts.append(status)
    return cap_middle("\n".join(parts), limit), shown


def format_report(report: Report, max_failures: int = 10) -> str:
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
