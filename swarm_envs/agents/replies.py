"""Reading one tool call out of a model's reply text, in the shapes real models write.

Servers that parse tool calls return them structured (`message.tool_calls`); many models,
and every server without a parser for them, leave the call in the text. Models write it
in many shapes, and `read_tool_call` takes each where the intent is unambiguous:

- inside `<tool_call>...</tool_call>` tags (Hermes, Qwen; the closing tag may be cut off);
- in a code fence (```` ```json ... ``` ````), or bare JSON anywhere in the text, with
  prose before or after it;
- as `{"name": ..., "arguments": {...}}`, with `parameters`/`args`/`input` for
  `arguments` (Llama and others), inside `{"type": "function", "function": {...}}`,
  as `{"read_file": {"path": ...}}` (the tool's name as the only key), or a list of them;
- with Python's single quotes and literals (`True`, `None`), trailing commas, or the
  closing braces missing at the end of the reply (a reply cut at its token limit);
- as a Python call of a known tool, `read_file(path="calc/core.py")`, keyword arguments
  only.

The first call found is the action (a reply with several runs its first, as a message
with several structured calls does). A reply with none gets `NO_CALL`'s message, which
shows the expected shape. The names and arguments are not checked here: the
environment validates them and answers a wrong one with an error observation that names
the problem (an unknown tool with its closest match, a missing argument).

Both the LLM agent (`swarm_envs.agents.llm`) and the language-model trainer read replies
with this module, so what a policy learns to write is what an agent on a server reads.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from swarm_envs.core.pysource import parse_expression
from swarm_envs.core.tools import TOOLS

__all__ = ["CALL_EXAMPLE", "NO_CALL", "ReplyCall", "call_instructions", "read_tool_call"]

CALL_EXAMPLE = '{"name": "read_file", "arguments": {"path": "README.md"}}'
NO_CALL = (
    "no tool call found in your reply; reply with exactly one tool call as JSON, "
    f"for example {CALL_EXAMPLE}"
)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input")
_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```[A-Za-z_]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_MAX_SCAN = 64  # opening braces tried per segment: a reply of prose costs little
_MAX_REPAIR = 8  # most closing brackets added to a cut-off object
# Models write raw newlines and tabs inside JSON strings (code in write_file's content):
# strict JSON refuses control characters in strings, the intent is plain.
_JSON = json.JSONDecoder(strict=False)


@dataclass(frozen=True)
class ReplyCall:
    """What `read_tool_call` found in a reply.

    Attributes:
        call: the first tool call, `{"name": str, "arguments": dict | str}`, or None.
        content: the reply's free text without the call (what the model said around it).
        shape: where the call was: `"tag"`, `"fence"`, `"json"`, `"repaired"` (single
            quotes, trailing commas or missing closing braces), `"python"`, or `"none"`.
        calls: how many calls the reply holds (the first is the action).
    """

    call: dict[str, Any] | None
    content: str
    shape: str
    calls: int = 0


def read_tool_call(text: str, tools: Iterable[str] | None = None) -> ReplyCall:
    """The first tool call written in `text` (see the module docstring for the shapes).

    Args:
        text: the model's reply.
        tools: the tool names a bare Python call or a tool-name key may use (default:
            every tool of the environment).
    """
    names = set(TOOLS if tools is None else tools)
    tagged = list(_TAG.finditer(text))
    segments = tagged or [m for m in _FENCE.finditer(text) if "{" in m.group(1)]
    kind = "tag" if tagged else "fence"
    found: list[tuple[dict[str, Any], str, int, int]] = []  # call, shape, cut start, end
    for m in segments:
        for call, repaired, _, _ in _objects(m.group(1), names):
            # The whole tagged or fenced block is the call: none of it is content.
            found.append((call, "repaired" if repaired else kind, m.start(), m.end()))
    if not found:
        for call, repaired, a, b in _objects(text, names):
            found.append((call, "repaired" if repaired else "json", a, b))
    if not found:
        py = _python_call(text, names)
        if py is not None:
            found.append((py[0], "python", py[1], py[2]))
    if not found:
        return ReplyCall(None, text.strip(), "none", 0)
    # The content is what the model said around its calls: every span that held one goes.
    content, at = [], 0
    for _, _, start, end in sorted(found, key=lambda f: f[2]):
        if start >= at:
            content.append(text[at:start])
            at = end
    content.append(text[at:])
    call, shape, _, _ = found[0]
    return ReplyCall(call, "".join(content).strip(), shape, len(found))


def call_instructions(tools: Iterable[dict[str, Any]]) -> str:
    """A short text that lists the tools and says how to call one, for a system prompt.

    Chat templates differ: many render the `tools=` of a request, some ignore them (the
    model then never sees a schema). This text makes the shape and the tools explicit
    whatever the template does; each tool is one line, `name(arg, optional_arg?)`.
    """
    lines = []
    for t in tools:
        fn = t.get("function", t)
        params = fn.get("parameters", {})
        required = set(params.get("required", []))
        args = [p if p in required else f"{p}?" for p in params.get("properties", {})]
        summary = str(fn.get("description", "")).split("\n", 1)[0]
        lines.append(f"- {fn['name']}({', '.join(args)}): {summary}")
    return (
        "Tools (`?`: optional):\n"
        + "\n".join(lines)
        + "\nReply with exactly one tool call, as JSON inside <tool_call> tags, and "
        "nothing after it:\n"
        f"<tool_call>{CALL_EXAMPLE}</tool_call>"
    )


def llm_instructions(instructions: str, tools: Iterable[dict[str, Any]]) -> str:
    """An `LLMAgent`'s instructions with `call_instructions` appended.

    The result is the system prompt's template: braces in the tools' text are escaped, so
    they are not format fields. The scripted agents' conversation work model builds the
    same prompt, so that what it predicts is what an `LLMAgent` sends.
    """
    listed = call_instructions(tools).replace("{", "{{").replace("}", "}}")
    return f"{instructions}\n\n{listed}"


# ---------------------------------------------------------------------------- objects


def _objects(text: str, names: set[str]) -> Iterator[tuple[dict[str, Any], bool, int, int]]:
    """Each tool call written as a JSON-like object in `text`: (call, repaired, start, end)."""
    at = text.find("{")
    tried = 0
    while at != -1 and tried < _MAX_SCAN:
        tried += 1
        before = text[:at].rstrip()
        # A list of calls, `[{...}, {...}]`, is read whole: its span is the list's.
        starts = [len(before) - 1, at] if before.endswith("[") else [at]
        for start in starts:
            parsed = _value_at(text, start)
            calls = list(_calls_in(parsed[0], names)) if parsed is not None else []
            if parsed is not None and calls:
                for call in calls:  # the first is the action; the count is reported
                    yield call, parsed[1], start, parsed[2]
                at = text.find("{", parsed[2])
                break
        else:
            at = text.find("{", at + 1)


def _value_at(text: str, start: int) -> tuple[Any, bool, int] | None:
    """The object that starts at `start`: strict JSON, else a repaired reading of it."""
    try:
        value, end = _JSON.raw_decode(text, start)
        return value, False, end
    except (json.JSONDecodeError, RecursionError):
        pass
    span, closers = _balanced(text, start)
    if closers.count("}") + closers.count("]") > _MAX_REPAIR:
        return None
    end = start + len(span)
    source = span + closers
    for attempt in (source, _no_trailing_commas(source)):
        try:
            return _JSON.decode(attempt), True, end
        except (json.JSONDecodeError, RecursionError):
            pass
        try:
            value = ast.literal_eval(attempt)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return value, True, end
    return None


def _balanced(text: str, start: int) -> tuple[str, str]:
    """The bracketed span from `start`, and the closers it lacks if the text ends inside it.

    Quotes of either kind are respected, so braces inside strings do not count.
    """
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    pairs = {"{": "}", "[": "]"}
    for i in range(start, len(text)):
        ch = text[i]
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return text[start:i], ""  # a stray closer: not this object
            stack.pop()
            if not stack:
                return text[start : i + 1], ""
    closers = "".join(reversed(stack))
    if quote is not None:  # cut inside a string: close it first
        return text[start:], quote + closers
    return text[start:].rstrip(), closers


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _no_trailing_commas(source: str) -> str:
    return _TRAILING_COMMA.sub(r"\1", source)


def _calls_in(value: Any, names: set[str]) -> Iterator[dict[str, Any]]:
    """The calls a parsed value holds: one object, or a list of them."""
    if isinstance(value, list):
        for item in value:
            call = _as_call(item, names)
            if call is not None:
                yield call
        return
    call = _as_call(value, names)
    if call is not None:
        yield call


def _as_call(obj: Any, names: set[str]) -> dict[str, Any] | None:
    if not isinstance(obj, dict):
        return None
    inner = obj.get("function")
    if isinstance(inner, dict):  # {"type": "function", "function": {...}}
        obj = inner
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is not None:
        args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), {})
        return {"name": name, "arguments": {} if args is None else args}
    if len(obj) == 1:  # {"read_file": {"path": ...}}: the tool's name as the only key
        ((key, args),) = obj.items()
        if key in names and isinstance(args, dict):
            return {"name": key, "arguments": args}
    return None


# ---------------------------------------------------------------------------- python calls


def _python_call(text: str, names: set[str]) -> tuple[dict[str, Any], int, int] | None:
    """A call such as `read_file(path="x")` of a known tool, keyword arguments only."""
    if not names:
        return None
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\s*\(")
    for m in pattern.finditer(text):
        span, closers = _balanced_parens(text, m.end() - 1)
        if closers:
            continue
        try:
            node = parse_expression(m.group(1) + span)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        if not isinstance(node, ast.Call) or node.args:
            continue
        try:
            args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if len(args) != len(node.keywords):
            continue
        return {"name": m.group(1), "arguments": args}, m.start(), m.end() - 1 + len(span)
    return None


def _balanced_parens(text: str, start: int) -> tuple[str, str]:
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[start : i + 1], ""
    return text[start:], ")"
