"""Actions: one tool call per action, parsed and validated with pydantic.

An action may be, as text (JSON), a dict, or an object with `model_dump()`:

- the bare call, `{"name": ..., "arguments": {...}}` (arguments an object or a JSON
  string), optionally with `"content"` (the model's free text, counted as output);
- what the official `openai` SDK returns, as the object, its dict or its JSON: a Chat
  Completions tool call (`ChatCompletionMessageToolCall`), a whole assistant message
  with `tool_calls`, a whole `ChatCompletion`, a Responses `function_call` item or a
  whole `Response`; exactly one tool call, or an error observation says why not;
- a `ToolCall` model, or an `Action` that wraps any of these with its usage.

Cost: usage reported by the caller, a trusted Python object (an `Action`, a dict, a
`ToolCall`, an SDK object), is honoured but never below the estimate from the call's
visible text; a `usage` written inside action *text* is ignored, since the model wrote
it (see `Action`). A malformed action costs the same way as any other.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from swarm_envs.core.tools import (
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
from swarm_envs.error import ActionError, ConfigError, close_matches, describe_invalid

logger = logging.getLogger("swarm_envs")

__all__ = [
    "TOOLS",
    "Action",
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
    "USAGE_KEYS",
    "Usage",
    "Wait",
    "WriteFile",
    "estimate_tokens",
    "parse_action",
    "tool_schemas",
]


# ---------------------------------------------------------------------- usage and cost

# The keys a usage report may have, in our shape and in the two shapes of the
# official `openai` SDK (Chat Completions and Responses).
_OWN_KEYS = ("output_tokens", "input_tokens", "reasoning_tokens", "latency_s")
_CHAT_KEYS = ("prompt_tokens", "completion_tokens", "completion_tokens_details")
_RESPONSES_KEYS = ("output_tokens_details", "input_tokens_details")
USAGE_KEYS: tuple[str, ...] = (
    *_OWN_KEYS,
    *_CHAT_KEYS,
    "prompt_tokens_details",
    *_RESPONSES_KEYS,
    "total_tokens",
)


class Usage(BaseModel):
    """What an agent's model spent on one action: tokens, and its wall time if measured.

    Accepts the shapes of the official `openai` SDK as they come, objects or dicts:
    Chat Completions (`prompt_tokens`, `completion_tokens`,
    `completion_tokens_details.reasoning_tokens`), Responses (`input_tokens`,
    `output_tokens`, `output_tokens_details.reasoning_tokens`) and `CompletionUsage` /
    `ResponseUsage` objects themselves. An unknown key is an error that lists the
    accepted ones (`USAGE_KEYS`), so a typo never silently costs nothing.

    Attributes:
        output_tokens: generated tokens, reasoning included (as the SDKs count them).
        input_tokens: prompt tokens; `None` when not reported (the environment then
            estimates them from the observations the agent has not yet read).
        reasoning_tokens: the part of `output_tokens` spent on hidden reasoning.
        latency_s: wall-clock seconds the model took; the thinking time in wall-clock
            mode (`time={"measured": True}`), ignored otherwise.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    output_tokens: int = Field(default=0, ge=0, le=10_000_000)
    input_tokens: int | None = Field(default=None, ge=0, le=100_000_000)
    reasoning_tokens: int = Field(default=0, ge=0, le=10_000_000)
    latency_s: float | None = Field(default=None, ge=0, le=86_400)

    @model_validator(mode="before")
    @classmethod
    def _sdk_shapes(cls, data: Any) -> Any:
        if isinstance(data, Usage):
            return data
        if isinstance(data, BaseModel) or _is_dumpable(data):
            # An SDK object: its declared fields only. Servers add their own extras
            # (cache counters and the like); those are not typos of ours to reject.
            data = {k: v for k, v in plain_data(data).items() if k in USAGE_KEYS}
        if not isinstance(data, dict):
            raise ValueError(
                f"expected a usage object or dict, got {type(data).__name__}; "
                f"accepted keys: {', '.join(USAGE_KEYS)}"
            )
        unknown = sorted(map(str, set(data) - set(USAGE_KEYS)))
        if unknown:
            raise ValueError(
                f"unknown usage key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"accepted keys: {', '.join(USAGE_KEYS)}"
            )
        given = {k for k, v in data.items() if v is not None}
        chat, responses = given & {*_CHAT_KEYS}, given & {"output_tokens", *_RESPONSES_KEYS}
        if chat and (responses or given & {"input_tokens"}):
            raise ValueError(
                f"usage mixes Chat Completions keys {sorted(chat)} with Responses keys "
                f"{sorted(responses | (given & {'input_tokens'}))}; report one shape"
            )
        details = data.get("completion_tokens_details") or data.get("output_tokens_details")
        reasoning = data.get("reasoning_tokens")
        if details is not None:
            if not isinstance(details, dict):
                raise ValueError("the tokens details must be an object")
            reasoning = details.get("reasoning_tokens", reasoning)
        out = {
            "output_tokens": data.get("completion_tokens", data.get("output_tokens")),
            "input_tokens": data.get("prompt_tokens", data.get("input_tokens")),
            "reasoning_tokens": reasoning,
            "latency_s": data.get("latency_s"),
        }
        return {k: v for k, v in out.items() if v is not None}

    @model_validator(mode="after")
    def _reasoning_is_output(self) -> Usage:
        if self.reasoning_tokens > self.output_tokens:
            raise ValueError(
                f"reasoning_tokens={self.reasoning_tokens} exceeds output_tokens="
                f"{self.output_tokens}; reasoning tokens are part of the output tokens"
            )
        return self


class ToolCall(BaseModel):
    """One action: a tool name, its arguments, and optionally the tokens it used.

    Its `usage` is trusted like any Python object's: do not validate a `ToolCall` from
    model-written text with the usage in it (pass the text itself instead).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal[tuple(TOOLS)]  # type: ignore[valid-type]
    arguments: dict[str, Any] = Field(default_factory=dict)
    usage: Usage | None = None
    content: str = ""


class Action(BaseModel):
    """An action from a trusted caller: the model's tool call and what it really cost.

    This is how a rollout runner or an agent's client code reports usage that the
    model cannot forge: `tool_call` is whatever the model produced (JSON text, a dict,
    an `openai` SDK tool call, assistant message, `ChatCompletion` or Responses item),
    `usage` is what the server said it cost (an SDK usage object or dict).

        Action(tool_call=completion.choices[0].message, usage=completion.usage)

    The environment honours `usage`, but never below the estimate from the call's
    visible text (its name, arguments and content, 4 characters a token), and it
    ignores any `usage` written inside `tool_call` when that is text: text is what
    the model wrote. A malformed `tool_call` is the model's mistake and becomes an
    error observation; a malformed `usage` is the caller's and raises here.

    Attributes:
        tool_call: the model's action, in any form `step` accepts.
        usage: the tokens the model spent on it; `None`: the usage inside `tool_call`
            if that is not text, else the estimate.
        latency_s: wall-clock seconds the caller measured for the decision; the
            thinking time in wall-clock mode (overrides `usage.latency_s`).
        meta: data stored with the decision in the rollout's trajectory (for example
            the policy's token ids and log-probabilities); the environment never reads it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    tool_call: Any
    usage: Usage | None = None
    latency_s: float | None = Field(default=None, ge=0, le=86_400)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("tool_call")
    @classmethod
    def _not_nested(cls, v: Any) -> Any:
        if isinstance(v, Action):
            raise ValueError("tool_call is itself an Action; pass its tool_call")
        return v


# ---------------------------------------------------------------------- tool schemas


def tool_schemas(api: Literal["chat", "responses"] = "chat") -> list[dict[str, Any]]:
    """The tools as function definitions, ready for an `openai` SDK call.

    Args:
        api: `"chat"` for Chat Completions (`tools=` of `chat.completions.create`, the
            shape every OpenAI-compatible server speaks) or `"responses"` for the
            Responses API (`tools=` of `responses.create`).
    """
    if api not in ("chat", "responses"):
        raise ConfigError(
            f"api={api!r}: expected 'chat' (Chat Completions) or 'responses' (Responses API)"
        )
    out: list[dict[str, Any]] = []
    for tool in TOOLS.values():
        schema = tool.args.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema["additionalProperties"] = False
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
        }
        if api == "chat":
            out.append({"type": "function", "function": function})
        else:  # optional arguments are not expressible in strict mode, the default there
            out.append({"type": "function", **function, "strict": False})
    return out


# ---------------------------------------------------------------------- parsing


def _tool_list() -> str:
    return ", ".join(TOOLS)


_EXPECTED = 'expected a tool call like {"name": "read_file", "arguments": {"path": "README.md"}}'
_BARE_FIELDS = {"name", "arguments", "usage", "content"}
_UNREADABLE_CHARS = 100  # what an action that has no text to measure is charged as


def _is_dumpable(obj: object) -> bool:
    return callable(getattr(obj, "model_dump", None))


def plain_data(obj: Any) -> Any:
    """An SDK object as plain data: its declared fields, nested objects included."""
    if isinstance(obj, BaseModel):
        return {k: plain_data(getattr(obj, k, None)) for k in type(obj).model_fields}
    if _is_dumpable(obj):
        return plain_data(obj.model_dump())
    if isinstance(obj, dict):
        return {k: plain_data(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain_data(v) for v in obj]
    return obj


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    raise ActionError(f"message 'content' must be text, got {type(content).__name__}")


def _call_chars(call: Any) -> int:
    if not isinstance(call, dict):
        return 0
    fn: dict = call["function"] if isinstance(call.get("function"), dict) else call
    args = fn.get("arguments")
    return len(str(fn.get("name") or "")) + len(args if isinstance(args, str) else str(args))


def _one_call(calls: Any, what: str) -> dict:
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise ActionError(f"{what}: 'tool_calls' must be a list of tool calls")
    if not calls:
        raise ActionError(
            f"{what} has no tool call; act with exactly one tool call ({_tool_list()}); "
            + _EXPECTED
        )
    if len(calls) > 1:
        names = [str((c.get("function") or {}).get("name", c.get("name"))) for c in calls]
        raise ActionError(
            f"{what} has {len(calls)} tool calls ({', '.join(names)}); none was run: "
            "send one tool call per action"
        )
    return calls[0]


def _unwrap(data: dict, cost: _Cost | None = None) -> dict:
    """Any accepted shape -> the bare call `{"name", "arguments", "content"?}`.

    Shapes, outermost first: a `ChatCompletion` (its one choice's message and its
    usage), a Responses `Response` (its one `function_call` item, its text and usage),
    an assistant message (its one tool call and its content), a Chat Completions tool
    call, a Responses `function_call` item, and the bare call itself. The SDKs' other
    fields (ids, roles, statuses, annotations) are metadata and are not checked.
    With `cost`, a message's visible text (its content and every call) is what it
    costs if it turns out invalid (several calls, none).
    """
    content = ""
    if "choices" in data:
        choices = data["choices"]
        if not isinstance(choices, list) or not choices:
            raise ActionError("the completion has no choices; expected one choice")
        if len(choices) > 1:
            raise ActionError(f"the completion has {len(choices)} choices; request n=1")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise ActionError("the completion's choice has no message")
        data = message
    elif data.get("object") == "response" or isinstance(data.get("output"), list):
        items = [i for i in data.get("output") or [] if isinstance(i, dict)]
        content = "".join(_text_of(i.get("content")) for i in items if i.get("type") == "message")
        calls: Any = [i for i in items if i.get("type") == "function_call"]
        if cost is not None:
            cost.chars = len(content) + sum(_call_chars(c) for c in calls)
        call = _one_call(calls, "the response")
        return {"name": call.get("name"), "arguments": call.get("arguments"), "content": content}
    if "tool_calls" in data or data.get("role") == "assistant":
        content = _text_of(data.get("content"))
        calls = data.get("tool_calls")
        legacy = data.get("function_call")
        if not calls and isinstance(legacy, dict):
            calls = [{"type": "function", "function": legacy}]
        if cost is not None and isinstance(calls or [], list):
            cost.chars = len(content) + sum(_call_chars(c) for c in calls or [])
        data = {**_one_call(calls or [], "the message"), "content": content}
    if data.get("type") == "function" and isinstance(data.get("function"), dict):
        fn = data["function"]
        return {
            "name": fn.get("name"),
            "arguments": fn.get("arguments", {}),
            "content": data.get("content") or content,
        }
    if data.get("type") == "function_call":
        return {k: data.get(k) for k in ("name", "arguments", "content")}
    bare = {k: v for k, v in data.items() if k not in ("id", "type")}
    unknown = sorted(map(str, set(bare) - _BARE_FIELDS))
    if unknown:
        name = bare.get("name")
        raise ActionError(
            f"{name if isinstance(name, str) else 'action'}: unexpected fields {unknown} "
            "next to the call; allowed: name, arguments, usage, content"
        )
    return bare


_warned_text_usage = False


@dataclass
class _Cost:
    """What an action costs, learnt while it is parsed: an invalid action costs too."""

    chars: int = 0  # length of the visible text, for the estimate
    reported: Usage | None = None  # what a trusted caller reported
    latency: float | None = None

    def usage(self) -> Usage | None:
        usage = self.reported
        if self.latency is not None:  # an empty report is the estimate: floored below
            usage = (usage or Usage()).model_copy(update={"latency_s": self.latency})
        floor = estimate_tokens(self.chars)
        if usage is not None and usage.output_tokens < floor:
            usage = usage.model_copy(update={"output_tokens": floor})
        return usage


def parse_action(
    action: object, *, max_chars: int = 200_000
) -> tuple[str, ToolArgs, Usage | None, int]:
    """Parse an action into (tool name, validated arguments, usage, visible length).

    `usage` is `None` when the cost must be estimated: the action is text (whatever
    text says about its own cost is the model's word, and ignored) or no usage was
    reported. Usage from a trusted caller (an `Action`, a `ToolCall`, a dict, an SDK
    object) is returned with `output_tokens` raised to at least the estimate from the
    visible length, so that no report makes an action cheaper than its own text.

    Raises:
        ActionError: with a message that says what was wrong and what is expected, and
            the action's cost as far as it is known (`usage`, `chars`): a malformed
            action costs what its caller reported, like any other.
    """
    cost = _Cost()
    try:
        name, parsed = _parse(action, max_chars, cost)
    except ActionError as e:
        e.usage, e.chars = cost.usage(), cost.chars
        raise
    return name, parsed, cost.usage(), cost.chars


def _parse(action: object, max_chars: int, cost: _Cost) -> tuple[str, ToolArgs]:
    if isinstance(action, Action):
        cost.reported, cost.latency, action = action.usage, action.latency_s, action.tool_call
    from_text = isinstance(action, bytes | str)
    if isinstance(action, bytes | str):
        text = action.decode("utf-8", "replace") if isinstance(action, bytes) else action
        cost.chars = len(text)  # the model wrote all of it, whatever the parser reads
        if cost.chars > max_chars:
            raise ActionError(f"action is {cost.chars} characters; the limit is {max_chars}")
        try:
            data: Any = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            snippet = text[:60].replace("\n", " ")
            raise ActionError(f"action is not valid JSON ({e}): {snippet!r}; {_EXPECTED}") from None
    elif isinstance(action, ToolCall):
        data = action.model_dump(exclude_none=True)
    elif isinstance(action, dict) or _is_dumpable(action):
        try:
            data = action if isinstance(action, dict) else plain_data(action)
            size = len(json.dumps(data, default=str))
        except (TypeError, ValueError, RecursionError):
            cost.chars = _UNREADABLE_CHARS
            raise ActionError(f"action is not JSON-serialisable; {_EXPECTED}") from None
        cost.chars = size  # until the visible text is known
        if size > max_chars:
            raise ActionError(f"action is {size} characters; the limit is {max_chars}")
    else:
        cost.chars = _UNREADABLE_CHARS
        raise ActionError(f"action of type {type(action).__name__}; {_EXPECTED}")

    if not isinstance(data, dict):
        raise ActionError(f"action is JSON {type(data).__name__}, not an object; {_EXPECTED}")
    # Every shape carries its usage at the top (a completion, a response, a call).
    if data.get("usage") is not None:
        if from_text:
            if cost.reported is None:
                _warn_text_usage()
        elif cost.reported is None:
            try:
                cost.reported = Usage.model_validate(data["usage"])
            except ValidationError as e:
                raise ActionError(f"bad 'usage': {describe_invalid(e)}") from None
    call = _unwrap(data, None if from_text else cost)
    name = call.get("name")
    if not isinstance(name, str):
        raise ActionError(f"action has no tool 'name'; tools: {_tool_list()}; {_EXPECTED}")
    if name not in TOOLS:
        hint = close_matches(name, TOOLS, n=1) or [t for t in TOOLS if name and t.startswith(name)]
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise ActionError(f"unknown tool {name!r}{extra}; tools: {_tool_list()}")
    args = call.get("arguments")
    args_text = args if isinstance(args, str) else None
    if args is None:
        args = {}
    elif isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (json.JSONDecodeError, RecursionError) as e:
            raise ActionError(f"{name}: 'arguments' is not valid JSON ({e})") from None
    if not isinstance(args, dict):
        raise ActionError(f"{name}: 'arguments' must be an object, got {type(args).__name__}")
    content = call.get("content") or ""
    if not isinstance(content, str):
        raise ActionError(f"{name}: 'content' must be a string")
    if not from_text:  # what the model wrote: the call's name, arguments and text
        if args_text is None:
            args_text = json.dumps(args, ensure_ascii=False, default=str)
        cost.chars = len(name) + len(args_text) + len(content)
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
    return name, parsed


def _warn_text_usage() -> None:
    global _warned_text_usage
    if not _warned_text_usage:
        _warned_text_usage = True
        logger.warning(
            "a 'usage' field inside action text is ignored (the model wrote it); report "
            "usage with swarm_envs.Action(tool_call=..., usage=...) or a dict action"
        )


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
