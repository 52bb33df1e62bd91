"""Actions: one tool call per action, parsed and validated with pydantic.

An action may be

- JSON text in the OpenAI function-calling shape, `{"name": ..., "arguments": {...}}`,
  or a whole tool call `{"type": "function", "function": {"name": ..., "arguments": "..."}}`
  (arguments may be an object or a JSON string);
- the same as a Python dict;
- a `ToolCall` model.

Optional fields next to the call: `"usage": {"output_tokens": n, "input_tokens": m}`
reports the tokens the agent's model used (otherwise they are estimated from the
text), and `"content"` carries the model's free text (counted as output tokens).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from swarm_envs.error import ActionError

_CHANNEL = r"^[a-z0-9][a-z0-9_-]{0,31}$"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strict=True)


class ListFiles(_Args):
    """List the files of the project (recursively) under a directory."""

    path: str = Field(default=".", description="directory relative to the project root")


class ReadFile(_Args):
    """Read a text file, optionally a range of lines (1-based, inclusive)."""

    path: str = Field(description="file relative to the project root")
    start_line: int | None = Field(default=None, ge=1, description="first line to show")
    end_line: int | None = Field(default=None, ge=1, description="last line to show")


class WriteFile(_Args):
    """Create or overwrite a file with the given content."""

    path: str = Field(description="file relative to the project root")
    content: str = Field(description="the whole new content of the file")


class EditFile(_Args):
    """Replace one exact occurrence of `old` by `new` in a file.

    `old` must occur exactly once: if the file changed since you read it, the edit
    fails instead of overwriting someone else's work.
    """

    path: str = Field(description="file relative to the project root")
    old: str = Field(min_length=1, description="exact text to replace (must match once)")
    new: str = Field(description="replacement text")


class RunTests(_Args):
    """Run the project's tests: all of them, or a selection of files or test ids."""

    selection: list[str] | None = Field(
        default=None,
        description="test files or node ids, e.g. ['tests/test_x.py', 'tests/test_y.py::test_z']",
    )


class RunCommand(_Args):
    """Run a shell command in the project's sandbox (working directory: project root)."""

    command: str = Field(min_length=1, description="shell command line")


class SendMessage(_Args):
    """Send a direct message to one teammate."""

    to: str = Field(description="recipient agent name, e.g. 'agent_3'")
    text: str = Field(min_length=1, description="message text")


class Post(_Args):
    """Post a message to a public channel; every subscriber receives it."""

    channel: str = Field(default="general", pattern=_CHANNEL, description="channel name")
    text: str = Field(min_length=1, description="message text")


class Subscribe(_Args):
    """Subscribe to a public channel (everyone starts in 'general')."""

    channel: str = Field(pattern=_CHANNEL, description="channel name")


class Wait(_Args):
    """Wait until a message arrives or `seconds` pass (no `seconds`: until a message)."""

    seconds: float | None = Field(default=None, gt=0, description="longest wait, in seconds")


class Done(_Args):
    """Say that you are finished; the episode ends when every agent is done."""

    summary: str = Field(default="", description="optional note for the team")


TOOLS: dict[str, type[_Args]] = {
    "list_files": ListFiles,
    "read_file": ReadFile,
    "write_file": WriteFile,
    "edit_file": EditFile,
    "run_tests": RunTests,
    "run_command": RunCommand,
    "send_message": SendMessage,
    "post": Post,
    "subscribe": Subscribe,
    "wait": Wait,
    "done": Done,
}


class Usage(BaseModel):
    """Tokens an agent's model used for one action."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    output_tokens: int = Field(default=0, ge=0, le=10_000_000)
    input_tokens: int = Field(default=0, ge=0, le=100_000_000)


class ToolCall(BaseModel):
    """One action: a tool name, its arguments, and optionally the tokens it used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal[tuple(TOOLS)]  # type: ignore[valid-type]
    arguments: dict[str, Any] = Field(default_factory=dict)
    usage: Usage | None = None
    content: str = ""


def tool_schemas() -> list[dict[str, Any]]:
    """The tools in the OpenAI function-calling shape, ready for a chat-completions call."""
    out = []
    for name, model in TOOLS.items():
        schema = model.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema["additionalProperties"] = False
        out.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": " ".join((model.__doc__ or "").split()),
                    "parameters": schema,
                },
            }
        )
    return out


def _tool_list() -> str:
    return ", ".join(TOOLS)


_EXPECTED = 'expected a tool call like {"name": "read_file", "arguments": {"path": "README.md"}}'


def parse_action(
    action: object, *, max_chars: int = 200_000
) -> tuple[str, _Args, Usage | None, int]:
    """Parse an action into (tool name, validated arguments, usage, text length).

    Raises:
        ActionError: with a message that says what was wrong and what is expected.
    """
    text_len = 0
    if isinstance(action, ToolCall):
        data: Any = action.model_dump()
        text_len = len(json.dumps(data["arguments"])) + len(action.content)
    elif isinstance(action, bytes | str):
        text = action.decode("utf-8", "replace") if isinstance(action, bytes) else action
        text_len = len(text)
        if text_len > max_chars:
            raise ActionError(f"action is {text_len} characters; the limit is {max_chars}")
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            snippet = text[:60].replace("\n", " ")
            raise ActionError(f"action is not valid JSON ({e}): {snippet!r}; {_EXPECTED}") from None
    elif isinstance(action, dict):
        data = action
        try:
            text_len = len(json.dumps(action, default=str))
        except (TypeError, ValueError, RecursionError):
            raise ActionError(f"action dict is not JSON-serialisable; {_EXPECTED}") from None
        if text_len > max_chars:
            raise ActionError(f"action is {text_len} characters; the limit is {max_chars}")
    else:
        raise ActionError(f"action of type {type(action).__name__}; {_EXPECTED}")

    if not isinstance(data, dict):
        raise ActionError(f"action is JSON {type(data).__name__}, not an object; {_EXPECTED}")
    if data.get("type") == "function" and isinstance(data.get("function"), dict):
        data = {**data["function"], **{k: v for k, v in data.items() if k in ("usage", "content")}}
    data = {k: v for k, v in data.items() if k not in ("id", "type")}

    name = data.get("name")
    if not isinstance(name, str):
        raise ActionError(f"action has no tool 'name'; tools: {_tool_list()}; {_EXPECTED}")
    if name not in TOOLS:
        hint = [t for t in TOOLS if t.startswith(name[:4])] if name else []
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise ActionError(f"unknown tool {name!r}{extra}; tools: {_tool_list()}")
    args = data.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as e:
            raise ActionError(f"{name}: 'arguments' is not valid JSON ({e})") from None
    if not isinstance(args, dict):
        raise ActionError(f"{name}: 'arguments' must be an object, got {type(args).__name__}")
    unknown = sorted(map(str, set(data) - {"name", "arguments", "usage", "content"}))
    if unknown:
        raise ActionError(
            f"{name}: unexpected fields {unknown} next to the call; "
            "allowed: name, arguments, usage, content"
        )
    usage = None
    if data.get("usage") is not None:
        try:
            usage = Usage.model_validate(data["usage"])
        except ValidationError as e:
            raise ActionError(f"{name}: bad 'usage': {_first_error(e)}") from None
    content = data.get("content") or ""
    if not isinstance(content, str):
        raise ActionError(f"{name}: 'content' must be a string")
    try:
        parsed = TOOLS[name].model_validate(args)
    except ValidationError as e:
        raise ActionError(f"{name}: {_describe(e, TOOLS[name])}") from None
    for field_name, value in parsed:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and not _encodable(text):
                raise ActionError(
                    f"{name}: argument {field_name!r} contains an unpaired surrogate; "
                    "send valid UTF-8 text"
                )
    return name, parsed, usage, text_len


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"


def _describe(e: ValidationError, model: type[_Args]) -> str:
    problems = []
    for err in e.errors():
        field = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "missing":
            problems.append(f"missing argument {field!r}")
        elif err["type"] == "extra_forbidden":
            problems.append(f"unknown argument {field!r}")
        else:
            problems.append(f"argument {field!r}: {err['msg']}")
    required = [n for n, f in model.model_fields.items() if f.is_required()]
    optional = [n for n, f in model.model_fields.items() if not f.is_required()]
    sig = ", ".join(required + [f"{n}?" for n in optional])
    return "; ".join(problems) + f" (expected arguments: {sig or 'none'})"


def estimate_tokens(chars: int) -> int:
    """Tokens of a text of `chars` characters, by the usual 4-characters-per-token rule."""
    return (chars + 3) // 4
