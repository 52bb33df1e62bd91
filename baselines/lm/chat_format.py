"""What a tokenizer's chat template renders: the request's tools, the assistant's calls.

Templates differ. Qwen's and Llama's render `tools=` into the system turn and an
assistant message's `tool_calls` as text; SmolLM2's (and many small models') render
neither: `{{ message['content'] }}` and nothing else. A policy whose template drops them
would never see a tool schema, nor its own earlier calls. `chat_format` probes the
template once per tokenizer, and `text_messages` rewrites a conversation for templates
that lack them: the tools and the call's shape go into the system prompt
(`swarm_envs.agents.replies.call_instructions`), each assistant turn is the text the
model wrote, and each observation is a user turn (a `tool` role the model never saw in
training means nothing to it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from swarm_envs.agents.replies import call_instructions

_PROBE_TOOL = "probe_tool_x7"
_PROBE_ARG = "probe_arg_q9"
_cache: WeakKeyDictionary[Any, ChatFormat] = WeakKeyDictionary()


@dataclass(frozen=True)
class ChatFormat:
    """Whether a chat template renders the request's tools and the assistant's calls."""

    tools: bool
    calls: bool


def chat_format(tokenizer: Any) -> ChatFormat:
    """Probe the tokenizer's chat template (once per tokenizer object)."""
    try:
        return _cache[tokenizer]
    except (KeyError, TypeError):
        pass
    tool = {"type": "function", "function": {"name": _PROBE_TOOL, "parameters": {}}}
    call = {"type": "function", "function": {"name": _PROBE_TOOL, "arguments": {_PROBE_ARG: 1}}}
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "r"},
    ]
    try:
        with_tools = tokenizer.apply_chat_template(messages[:2], tools=[tool], tokenize=False)
        with_call = tokenizer.apply_chat_template(messages, tokenize=False)
    except Exception:  # a template that refuses tools or tool roles: text it is
        fmt = ChatFormat(tools=False, calls=False)
    else:
        fmt = ChatFormat(tools=_PROBE_TOOL in with_tools, calls=_PROBE_ARG in with_call)
    try:
        _cache[tokenizer] = fmt
    except TypeError:
        pass
    return fmt


def text_messages(
    fmt: ChatFormat, system: str, messages: list[dict[str, Any]], tools: list[dict]
) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and messages to render with a template of format `fmt`.

    Assistant messages may carry `text`, the reply as the model wrote it: a template
    that renders no calls gets that text instead of the parsed call.
    """
    if not fmt.tools and tools:
        system = system + "\n\n" + call_instructions(tools)
    if fmt.calls:
        return system, messages
    out = []
    for m in messages:
        if m["role"] == "assistant":
            out.append({"role": "assistant", "content": m.get("text", m.get("content") or "")})
        elif m["role"] == "tool":
            out.append({"role": "user", "content": m["content"]})
        else:
            out.append(m)
    return system, out


def override(tokenizer: Any, fmt: ChatFormat) -> None:
    """Use `fmt` for this tokenizer instead of the probe's answer (benchmarks, odd templates)."""
    _cache[tokenizer] = fmt
