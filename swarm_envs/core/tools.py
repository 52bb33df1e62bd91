"""The tools agents act with: one table of name, arguments, handler and modelled cost.

Everything that needs to know the tools reads `TOOLS`: action parsing and the exported
schemas (`swarm_envs.core.actions`), the configuration's default durations
(`swarm_envs.core.config`), the episode's dispatch and the agents' introduction. Adding a
tool is one entry here (and, for tools that need the episode's machinery, one method of
`ToolContext`).

A handler runs at the action's completion time. It returns the result text the agent
observes, or raises `ActionError` for a mistake of the agent (the message becomes the
agent's error observation and nothing changes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from swarm_envs.core.channels import PostOffice, agent_name, agent_range
from swarm_envs.core.workspace import Workspace
from swarm_envs.error import ActionError

_CHANNEL = r"^[a-z0-9][a-z0-9_-]{0,31}$"


# ---------------------------------------------------------------------------- arguments


class ToolArgs(BaseModel):
    """Base of every tool's arguments: strict, frozen, no unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ListFiles(ToolArgs):
    """List the files of the project (recursively) under a directory."""

    path: str = Field(default=".", description="directory relative to the project root")


class ReadFile(ToolArgs):
    """Read a text file, optionally a range of lines (1-based, inclusive)."""

    path: str = Field(description="file relative to the project root")
    start_line: int | None = Field(default=None, ge=1, description="first line to show")
    end_line: int | None = Field(default=None, ge=1, description="last line to show")


class WriteFile(ToolArgs):
    """Create or overwrite a file with the given content."""

    path: str = Field(description="file relative to the project root")
    content: str = Field(description="the whole new content of the file")


class EditFile(ToolArgs):
    """Replace one exact occurrence of `old` by `new` in a file.

    `old` must occur exactly once: if the file changed since you read it, the edit
    fails instead of overwriting someone else's work.
    """

    path: str = Field(description="file relative to the project root")
    old: str = Field(min_length=1, description="exact text to replace (must match once)")
    new: str = Field(description="replacement text")


class RunTests(ToolArgs):
    """Run the project's tests: all of them, or a selection of files or test ids."""

    selection: list[str] | None = Field(
        default=None,
        description="test files or node ids, e.g. ['tests/test_x.py', 'tests/test_y.py::test_z']",
    )


class RunCommand(ToolArgs):
    """Run a shell command in the project's sandbox (working directory: project root)."""

    command: str = Field(min_length=1, description="shell command line")


class SendMessage(ToolArgs):
    """Send a direct message to one teammate."""

    to: str = Field(description="recipient agent name, e.g. 'agent_3'")
    text: str = Field(min_length=1, description="message text")


class Post(ToolArgs):
    """Post a message to a public channel; every subscriber receives it."""

    channel: str = Field(default="general", pattern=_CHANNEL, description="channel name")
    text: str = Field(min_length=1, description="message text")


class Subscribe(ToolArgs):
    """Subscribe to a public channel (everyone starts in 'general')."""

    channel: str = Field(pattern=_CHANNEL, description="channel name")


#: how long a `wait` without `seconds` lasts for an agent that has no teammate left to
#: send it a message (a lone agent): the cap would end its episode at once
LONE_WAIT_S = 30.0


class Wait(ToolArgs):
    """Wait until a message arrives or `seconds` pass.

    No `seconds`: until a message, or 30 s when no teammate is left to send one.
    """

    seconds: float | None = Field(default=None, gt=0, description="longest wait, in seconds")


class Done(ToolArgs):
    """Say that you are finished; the episode ends when every agent is done."""

    summary: str = Field(default="", description="optional note for the team")


# ---------------------------------------------------------------------------- handlers


class ToolContext(Protocol):
    """What a tool's handler may use of the episode, at the action's completion time."""

    @property
    def workspace(self) -> Workspace:
        """The shared project files."""
        ...

    @property
    def post(self) -> PostOffice:
        """Inboxes and channels."""
        ...

    @property
    def now(self) -> float:
        """The current virtual time."""
        ...

    @property
    def num_agents(self) -> int:
        """The size of the swarm."""
        ...

    def agent_index(self, name: str) -> int | None:
        """The index of the agent called `name`, or None."""
        ...

    def wake(self, agent: int, at: float) -> None:
        """A message reaches `agent` at `at`: if it waits, it wakes then."""
        ...

    def wake_subscribers(self, channel: str, sender: int, at: float) -> None:
        """A post reaches `channel`'s subscribers at `at`: those that wait wake then."""
        ...

    def run_tests(self, selection: list[str] | None) -> str:
        """Score a selection of the canonical tests; the result text."""
        ...

    def run_command(self, command: str) -> str:
        """Run a command in the sandbox; the result text."""
        ...


def _send_message(ctx: ToolContext, sender: int, a: SendMessage) -> str:
    to = ctx.agent_index(a.to)
    if to is None:
        raise ActionError(
            f"send_message: unknown agent {a.to!r}; agents are {agent_range(ctx.num_agents)}"
        )
    if to == sender:
        raise ActionError("send_message: you cannot message yourself")
    msg = ctx.post.send(ctx.now, sender, to, a.text)
    ctx.wake(to, msg.deliver_at)
    return f"message sent to {a.to} (delivered at t={msg.deliver_at:.1f}s)"


def _post(ctx: ToolContext, sender: int, a: Post) -> str:
    recipients = ctx.post.post(ctx.now, sender, a.channel, a.text)
    ctx.wake_subscribers(a.channel, sender, ctx.now + ctx.post.latency)
    subscribed = ctx.post.is_subscribed(sender, a.channel)
    note = "" if subscribed else " (you are not subscribed to it)"
    return f"posted to #{a.channel}{note}: {recipients} recipients"


def _write_file(ctx: ToolContext, agent: int, a: WriteFile) -> str:
    out = ctx.workspace.write_file(a.path, a.content)
    ctx.workspace.note_change(a.path, agent, ctx.now, "write_file")
    return out


def _edit_file(ctx: ToolContext, agent: int, a: EditFile) -> str:
    try:
        out = ctx.workspace.edit_file(a.path, a.old, a.new)
    except ActionError as e:
        change = ctx.workspace.last_change(a.path)
        if change is None:
            raise
        who, at, tool = change
        by = "you" if who == agent else agent_name(who)
        raise ActionError(f"{e} (last changed by {by}, with {tool} at t={at:.1f}s)") from None
    ctx.workspace.note_change(a.path, agent, ctx.now, "edit_file")
    return out


def _subscribe(ctx: ToolContext, agent: int, a: Subscribe) -> str:
    new = ctx.post.subscribe(agent, a.channel)
    subs = ", ".join("#" + c for c in ctx.post.subscriptions(agent))
    verb = "subscribed to" if new else "already subscribed to"
    return f"{verb} #{a.channel}; your channels: {subs}"


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Tool:
    """One tool.

    Attributes:
        name: what agents call it.
        args: the pydantic model of its arguments (also its JSON schema).
        handler: `(context, agent index, arguments) -> result text`.
        cost_s: modelled duration of the tool itself, in virtual seconds (thinking time
            is separate); for `run_tests` the least a selection takes, since a full run
            takes the task's modelled suite duration.
        writes: the tool may change the workspace, so the episode rescores after it.
    """

    name: str
    args: type[ToolArgs]
    handler: Callable[[ToolContext, int, Any], str]
    cost_s: float
    writes: bool = False

    @property
    def description(self) -> str:
        """The tool's description for a model: its argument model's docstring, on one line."""
        return " ".join((self.args.__doc__ or "").split())


#: the tools that only make sense with teammates (a lone agent's intro leaves them out)
TEAM_TOOLS = frozenset({"send_message", "post", "subscribe"})

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("list_files", ListFiles, lambda ctx, i, a: ctx.workspace.list_files(a.path), 0.5),
        Tool(
            "read_file",
            ReadFile,
            lambda ctx, i, a: ctx.workspace.read_file(a.path, a.start_line, a.end_line),
            0.5,
        ),
        Tool("write_file", WriteFile, _write_file, 0.5, writes=True),
        Tool("edit_file", EditFile, _edit_file, 0.5, writes=True),
        Tool("run_tests", RunTests, lambda ctx, i, a: ctx.run_tests(a.selection), 0.5),
        Tool(
            "run_command",
            RunCommand,
            lambda ctx, i, a: ctx.run_command(a.command),
            3.0,
            writes=True,
        ),
        Tool("send_message", SendMessage, _send_message, 0.2),
        Tool("post", Post, _post, 0.2),
        Tool("subscribe", Subscribe, _subscribe, 0.1),
        Tool("wait", Wait, lambda ctx, i, a: "waited", 0.0),
        Tool(
            "done",
            Done,
            lambda ctx, i, a: "you are done; the episode ends when every agent is done",
            0.0,
        ),
    )
}
