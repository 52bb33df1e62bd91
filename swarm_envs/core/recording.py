"""Episode recordings (JSON Lines) and their summaries (`swarm-envs replay`).

Each line is one event, a pydantic model: `episode` (`EpisodeHeader`), `action` (an
agent's raw action and its tokens), `effect` (the tool's result or error, at its
completion time), `attribution` (the tests whose outcome changed at a rescore and the
actions that preceded it), `step` (reward and score after a step) and `end`. Results are capped
in the file so that recordings of long episodes stay small. The recorder knows nothing
of the episode: the episode hands it events.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import IO, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

from swarm_envs.core.text import cap_head
from swarm_envs.error import RecordingError, describe_invalid

MAX_TEXT = 4000


def _text(x: Any) -> Any:
    """`x` as JSON data, long text capped (recordings of long episodes stay small)."""
    if isinstance(x, BaseModel):
        x = x.model_dump()
    if isinstance(x, bytes):
        x = x.decode("utf-8", "replace")
    if isinstance(x, str):
        return cap_head(x, MAX_TEXT)
    try:
        json.dumps(x)
    except (TypeError, ValueError):
        return cap_head(repr(x), MAX_TEXT)
    return x


#: any data, made JSON-safe and capped when an event is built
Capped = Annotated[Any, BeforeValidator(_text)]


class _Event(BaseModel):
    # inf (an episode without a time cap) is written as JSON's Infinity, as json.dumps does
    model_config = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="constants")


class EpisodeHeader(_Event):
    """The first line of an episode: what was run, and its starting score."""

    type: Literal["episode"] = "episode"
    episode: int = Field(default=0, description="index in the file; the recorder numbers them")
    task: str
    seed: int | None
    time_cap: float
    agents: list[str]
    roles: dict[str, str] | None = Field(
        default=None, description="agent -> role (recordings before roles have none)"
    )
    tests_total: int
    tests_passed: int
    config: dict[str, Any]


class _AgentEvent(_Event):
    t: float = Field(description="virtual time, in seconds")
    agent: str
    tool: str = Field(description='the tool called ("invalid" for an unparsable action)')


class ActionEvent(_AgentEvent):
    """An agent's raw action when it was submitted, and the tokens it was charged."""

    type: Literal["action"] = "action"
    action: Capped
    output_tokens: int
    input_tokens: int


class EffectEvent(_AgentEvent):
    """A tool's result or error, at the action's completion time."""

    type: Literal["effect"] = "effect"
    result: Capped
    error: str | None


class AppliedAction(BaseModel):
    """A completed write, edit or command, as an attribution lists it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str
    tool: str
    files: list[str] | None = Field(description="files written; None for a command")
    t: float


class AttributionEvent(_Event):
    """A rescore that changed some tests' outcomes, and the actions applied since the last."""

    type: Literal["attribution"] = "attribution"
    t: float
    gained: list[str]
    lost: list[str]
    actions: list[AppliedAction]


class StepEvent(_Event):
    """The end of a step: its reward, the score, the observations that changed."""

    type: Literal["step"] = "step"
    t: float
    reward: float
    tests_passed: int
    observations: dict[str, Capped]


class EndEvent(_Event):
    """How the episode ended."""

    type: Literal["end"] = "end"
    t: float
    kind: str
    reason: str
    tests_passed: int
    tests_total: int


Event = Annotated[
    EpisodeHeader | ActionEvent | EffectEvent | AttributionEvent | StepEvent | EndEvent,
    Field(discriminator="type"),
]
_EVENT: TypeAdapter[Event] = TypeAdapter(Event)


class Recorder:
    """Appends episodes' events to a JSON Lines file, one event a line."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f: IO[str] | None = None
        self.episode = -1

    def begin(self, header: EpisodeHeader) -> None:
        """Start the next episode of the file with its header."""
        self.episode += 1
        self.write(header.model_copy(update={"episode": self.episode}))

    def write(self, event: _Event) -> None:
        """Append one event; an `EndEvent` flushes the file."""
        if self._f is None:
            self._f = self.path.open("a", encoding="utf-8")
        self._f.write(event.model_dump_json() + "\n")
        if isinstance(event, EndEvent):
            self._f.flush()

    def close(self) -> None:
        """Close the file (safe to call twice); a later event opens it again."""
        if self._f is not None:
            self._f.close()
            self._f = None


def read_events(path: str | Path) -> list[Event]:
    """Every event of a recording, validated.

    Raises:
        FileNotFoundError: no such file.
        RecordingError: a line that is not an event, naming the file and the line.
    """
    events: list[Event] = []
    with Path(path).open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                events.append(_EVENT.validate_json(line))
            except ValidationError as e:
                problems = describe_invalid(e, show_values=False)
                raise RecordingError(
                    f"{path}:{lineno}: not a swarm-envs recording: {problems}"
                ) from None
    return events


def summarize(path: str | Path) -> list[dict]:
    """Summaries of every episode in a recording (what `swarm-envs replay` prints).

    Raises:
        FileNotFoundError: no such file.
        RecordingError: the file is not a recording.
    """
    episodes: list[dict] = []
    cur: dict | None = None
    for n, ev in enumerate(read_events(path), 1):
        if isinstance(ev, EpisodeHeader):
            cur = {
                "task": ev.task,
                "agents": len(ev.agents),
                "seed": ev.seed,
                "time_cap": ev.time_cap,
                "tests_total": ev.tests_total,
                "start_passed": ev.tests_passed,
                "final_passed": ev.tests_passed,
                "duration": 0.0,
                "steps": 0,
                "return": 0.0,
                "tools": Counter(),
                "errors": 0,
                "per_agent": Counter(),
                "tokens": 0,
                "curve": [(0.0, ev.tests_passed)],
                "end": None,
            }
            episodes.append(cur)
        elif cur is None:
            raise RecordingError(f"{path}: event {n} comes before any episode header")
        elif isinstance(ev, ActionEvent):
            cur["tools"][ev.tool] += 1
            cur["per_agent"][ev.agent] += 1
            cur["tokens"] += ev.output_tokens + ev.input_tokens
        elif isinstance(ev, EffectEvent):
            cur["errors"] += ev.error is not None
        elif isinstance(ev, AttributionEvent):
            pass  # read by the bench (swarm_envs.bench), not summarised here
        elif isinstance(ev, StepEvent):
            cur["steps"] += 1
            cur["return"] += ev.reward
            cur["duration"] = ev.t
            if ev.tests_passed != cur["final_passed"]:
                cur["curve"].append((ev.t, ev.tests_passed))
            cur["final_passed"] = ev.tests_passed
        else:
            cur["end"] = f"{ev.kind} ({ev.reason})"
            cur["duration"] = ev.t
    return episodes
