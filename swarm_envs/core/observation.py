"""Observation text: what an agent reads when its action completes.

Pure functions over plain data, so that the wording of observations lives in one place
and the episode only gathers the facts. An observation is the tool's result (or the
error), the messages delivered since the agent's last observation, and a status line;
long parts are cut with the truncation marker so that the status line always survives.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from swarm_envs.core.channels import Message, agent_range
from swarm_envs.core.text import cap_middle, truncation_marker


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
    name: str,
    num_agents: int,
    tools: Sequence[str],
    cap: float,
    role: str | None = None,
) -> str:
    """The first observation of an agent: the task, the team, its role, the tools, the clock."""
    clock = "Everything takes virtual time: each token you read or write, and each tool; " + (
        f"the episode ends at t={cap:g}s, so keep your reasoning short."
        if math.isfinite(cap)
        else "the episode has no time cap, but the sooner tests pass the better."
    )
    act = f"Act with one tool call per action ({', '.join(tools)}). "
    if num_agents == 1:
        who = "You work alone on this project; you are rewarded for every test that passes. "
    else:
        who = (
            f"You are {name}, one of {num_agents} agents working on this project at the same "
            "time; the team is rewarded for every test that passes. Files, tests and commands "
            "are shared: a file may change after you read it. Talk with send_message (to one "
            "agent) and post (to a channel; everyone is in #general). "
        )
    about = f"{role.strip()} " if role else ""
    return f"Task {task_id}: {description.strip()}\n\n{who}{about}{act}{clock}"


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


# Control characters left once the body is split into lines (tabs stay): shown escaped,
# so that none can move the cursor or erase a line where an observation is displayed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: what starts every continuation line of a message body
QUOTE = "  | "


def quote_body(text: str) -> str:
    """A message body that cannot pass for anything but a message body.

    Its first line follows the header; every further line starts with `QUOTE`, whatever
    ended the one before (any line boundary `str.splitlines` knows: CR, VT, FF, the
    separators U+001C to U+001E, NEL, U+2028, U+2029), so no line of a body can look
    like a message header or the status line.
    """
    lines = [_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line) for line in text.splitlines()]
    return ("\n" + QUOTE).join(lines)


def messages_text(messages: Sequence[Message], names: Sequence[str], limit: int) -> str:
    """The delivered messages as one block (empty without messages), at most `limit` long.

    Only the messages that can show are formatted: the first ones, and the last ones
    when they do not all fit, around a marker that says how many were left out. So an
    observation costs O(limit), not O(messages), when 1,000 agents post at once. One
    header per message (`[t=...s] sender -> you:` or `[t=...s] #channel sender:`); the
    bodies are quoted (`quote_body`).
    """
    if not messages:
        return ""
    header = "--- messages ---\n"

    def line(m: Message) -> str:
        return (
            f"[t={m.deliver_at:.1f}s] "
            + (f"#{m.channel} " if m.channel else "")
            + f"{names[m.sender]}"
            + (": " if m.channel else " -> you: ")
            + quote_body(m.text)
        )

    head: list[str] = []
    size, i, n = len(header), 0, len(messages)
    while i < n and size <= limit:
        head.append(line(messages[i]))
        size += len(head[-1]) + 1
        i += 1
    if i == n:  # everything was formatted
        return cap_middle(header + "\n".join(head), limit, whole_lines=True)
    # Too many: the first ones in two thirds of the room, the last ones in the rest.
    room, size, i = limit * 2 // 3, len(header), 0
    while i < len(head) and (i == 0 or size + len(head[i]) < room):
        size += len(head[i]) + 1
        i += 1
    tail: list[str] = []
    room, size, j = limit - size - 48, 0, n  # 48: the marker
    while j > i:
        text = line(messages[j - 1])
        if tail and size + len(text) >= room:
            break
        tail.append(text)
        size += len(text) + 1
        j -= 1
    tail.reverse()
    marker = truncation_marker(j - i, "messages") if j > i else "\n"
    return cap_middle(
        header + "\n".join(head[:i]) + marker + "\n".join(tail), limit, whole_lines=True
    )


_NUMBERED = re.compile(r" *(\d+)\| ")


def file_lines_hint(text: str, cut_from: int, cut_to: int) -> str:
    """The truncation hint of a `read_file` result: which lines to read to see the cut."""
    numbered = _NUMBERED.match(text)  # a line range, numbered from its first line
    first = int(numbered.group(1)) if numbered else 1
    a = first + text.count("\n", 0, cut_from)
    b = first + text.count("\n", 0, max(cut_to - 1, cut_from))
    return f"lines {a}-{b}; read_file with start_line={a}, end_line={b} shows them"


def compose(
    body: str | None, messages: str, status: str, limit: int, *, tool: str | None = None
) -> tuple[str, str]:
    """(observation text of at most `limit` characters, the body as it appears in it).

    The body gets the room that the messages and the status line leave; a cut
    `read_file` result says which lines to read to see the rest.
    """
    budget = limit - len(status) - len(messages) - 2
    hint = file_lines_hint if tool == "read_file" else None
    shown = cap_middle(body, max(budget, 64), hint=hint) if body else ""
    parts = [p for p in (shown, messages) if p]
    parts.append(status)
    return cap_middle("\n".join(parts), limit, whole_lines=True), shown


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


# Test runners' wall-clock figures ("=== 3 passed in 0.17s ===", "Ran 3 tests in 0.001s"):
# they differ from run to run, and the same seed and actions must give the same text.
_WALL_TIMES = re.compile(
    r"^(?P<head>.*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|"
    r"no tests ran)\b.*?| *Ran \d+ tests?) in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?"
    r"(?P<tail> =+)?$",
    re.M,
)


# Object addresses in default reprs ("<Foo object at 0x7f3a...>"): they move with ASLR.
_ADDRESSES = re.compile(r"( at )0x[0-9a-fA-F]{4,16}(?=>)")


def reproducible(output: str) -> str:
    """Command output without what differs between identical runs.

    Test runners' wall-clock figures (pytest's "3 passed in 0.17s", unittest's "Ran 3
    tests in 0.001s") and object addresses of default reprs (`at 0x...>`, shown as
    `at 0x?>`) are left out, so that the same seed and actions give the same text.
    """
    output = _WALL_TIMES.sub(lambda m: m["head"] + (m["tail"] or ""), output)
    return _ADDRESSES.sub(r"\g<1>0x?", output)
