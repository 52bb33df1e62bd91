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

from swarm_envs.error import ActionError, close_matches, describe_invalid
from swarm_envs.tools import (
    TOOLS,
    Done,
    EditFile,
    ListFiles,
    Post,
    ReadFile,
    RunCommand,
    RunTests,
    SendMessage,
    Subscribe,
    ToolArgs,
    Wait,
    WriteFile,
)

__all__ = [
    "TOOLS",
    "Done",
    "EditFile",
    "ListFiles",
    "Post",
    "ReadFile",
    "RunCommand",
    "RunTests",
    "SendMessage",
    "Subscribe",
    "ToolArgs",
    "ToolCall",
    "Usage",
    "Wait",
    "WriteFile",
    "estimate_tokens",
    "parse_action",
    "tool_schemas",
]


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
    for tool in TOOLS.values():
        schema = tool.args.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema["additionalProperties"] = False
        out.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
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
) -> tuple[str, ToolArgs, Usage | None, int]:
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
        hint = close_matches(name, TOOLS, n=1) or [t for t in TOOLS if name and t.startswith(name)]
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
            raise ActionError(f"{name}: bad 'usage': {describe_invalid(e)}") from None
    content = data.get("content") or ""
    if not isinstance(content, str):
        raise ActionError(f"{name}: 'content' must be a string")
    model = TOOLS[name].args
    try:
        parsed = model.model_validate(args)
    except ValidationError as e:
        problems = describe_invalid(e, noun="argument", show_values=False)
        raise ActionError(f"{name}: {problems} (expected arguments: {_signature(model)})") from None
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


def _signature(model: type[ToolArgs]) -> str:
    required = [n for n, f in model.model_fields.items() if f.is_required()]
    optional = [n for n, f in model.model_fields.items() if not f.is_required()]
    return ", ".join(required + [f"{n}?" for n in optional]) or "none"


def estimate_tokens(chars: int) -> int:
    """Tokens of a text of `chars` characters, by the usual 4-characters-per-token rule."""
    return (chars + 3) // 4
