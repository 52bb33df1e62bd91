"""One agent's chat history, kept valid whatever the model does, and under a context size.

`Conversation` holds the messages of the chat-completions protocol: a system prompt,
then observations and the model's replies. Whatever the model answers, the history
stays one the protocol accepts: the executed tool call's result comes back as a
`tool` message for its id, every other call of the same reply gets a `tool` message
saying that only one call per action runs, and an observation that answers no call (a
reply without a tool call, the first observation) is a `user` message.

`ContextPolicy` keeps a request under a configured number of tokens: the oldest tool
results (and other observations) are shortened first, each with a marker; if that is
not enough, the oldest turns are dropped, and last of all the newest observation is
shortened. Tokens are counted with a tokenizer when one is given, otherwise from the
characters, at the ratio of tokens to characters that the server's own usage showed
for the previous request.

`system_prompt` and `new_in_first` say what an `LLMAgent` starts its conversation with,
so that a model of its cost (the scripted agents' `work_model="conversation"`) can
hold the same conversation without a server.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

ONE_CALL_PER_ACTION = (
    "not run: one tool call per action. Only the first tool call of your reply was run; "
    "call this one again on its own if you still need it."
)
SHORTENED = "\n[... {n} characters shortened to fit the context ...]\n"
DROPPED = "[... {n} earlier messages removed to fit the context ...]"
_MARK = "characters shortened to fit the context"

INSTRUCTIONS = (
    "You are {agent_name}, {team}, working on one software project in a shared sandbox. "
    "Act with exactly one tool call per reply; its result comes back as the tool's "
    "answer, with any messages for you and a status line. Every token you read or "
    "write takes virtual time, and the episode ends at its time cap: think briefly, "
    "read only what you need, and prefer small exact edits. The team is rewarded for "
    "every test that passes."
)


def team_description(name: str, names: list[str]) -> str:
    """How the system prompt describes the swarm to the agent called `name`."""
    if len(names) == 1:
        return "working alone"
    others = [n for n in names if n != name]
    if len(others) <= 8:
        return f"one of {len(names)} agents (teammates: {', '.join(others)})"
    return f"one of {len(names)} agents ({names[0]} .. {names[-1]})"


def system_prompt(instructions: str, agent_name: str, agent_names: list[str], intro: str) -> str:
    """The system prompt: the instructions (`{agent_name}`, `{team}` filled in), then the intro."""
    system = instructions.format(
        agent_name=agent_name, team=team_description(agent_name, agent_names)
    )
    return system + "\n\n" + intro


def new_in_first(observation: str, intro: str) -> str:
    """What the first observation adds to a system prompt that holds the intro already."""
    if intro and observation.startswith(intro):
        return observation[len(intro) :].lstrip() or observation
    return observation


class Conversation:
    """The messages of one agent's episode, in the chat-completions shape.

    Args:
        system: the system prompt.
    """

    def __init__(self, system: str):
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        self._answer: str | None = None  # the id of the call the next observation answers
        self._refused: list[str] = []
        self._ids = itertools.count()

    def observe(self, text: str) -> None:
        """Add an observation: the executed call's result, or a user message."""
        if self._answer is None:
            self.messages.append({"role": "user", "content": text})
            return
        self.messages.append({"role": "tool", "tool_call_id": self._answer, "content": text})
        for call_id in self._refused:
            self.messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": ONE_CALL_PER_ACTION}
            )
        self._answer, self._refused = None, []

    def reply(self, content: str | None, tool_calls: list[dict[str, Any]]) -> dict | None:
        """Add the model's reply; return the tool call to execute (the first), if any.

        `tool_calls` are in the chat-completions shape; a call without an id gets one,
        so that its result can answer it.
        """
        calls: list[dict[str, Any]] = []
        for c in tool_calls:
            fn = c.get("function") or {}
            arguments = fn.get("arguments")
            calls.append(
                {
                    "id": c.get("id") or f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {
                        "name": str(fn.get("name") or ""),
                        "arguments": arguments if isinstance(arguments, str) else "{}",
                    },
                }
            )
        message: dict[str, Any] = {"role": "assistant", "content": content or ""}
        if calls:
            message["tool_calls"] = calls
            self._answer, self._refused = calls[0]["id"], [c["id"] for c in calls[1:]]
        self.messages.append(message)
        return calls[0] if calls else None


TokenCounter = Callable[[str], int]


def token_counter(tokenizer: Any) -> TokenCounter:
    """A function counting the tokens of a text, from a tokenizer of any usual kind.

    Accepts a `tokenizers.Tokenizer` (`encode(text).ids`), a `transformers` tokenizer
    (`encode(text)` returns a list), or a function from text to a count.
    """
    encode = getattr(tokenizer, "encode", None)
    if callable(encode):

        def count(text: str) -> int:
            out = encode(text)
            ids = getattr(out, "ids", out)
            return len(ids)

        return count
    if callable(tokenizer):
        return lambda text: int(tokenizer(text))
    raise TypeError(
        f"tokenizer: expected a tokenizers.Tokenizer, a transformers tokenizer or a "
        f"function text -> token count, got {type(tokenizer).__name__}"
    )


def _text(message: dict[str, Any]) -> str:
    parts = [str(message.get("content") or "")]
    for c in message.get("tool_calls") or []:
        parts += [c["function"]["name"], c["function"]["arguments"]]
    return "\n".join(parts)


class ContextPolicy:
    """Keeps each request under `max_tokens`, shortening the oldest observations first.

    Args:
        max_tokens: the model's context size, in tokens.
        reserve_tokens: tokens kept free for the reply (the request's `max_tokens`).
        tokenizer: counts tokens exactly (see `token_counter`); without one, tokens
            are estimated from characters at the ratio the server's usage showed.
        keep_chars: how much of a shortened observation is kept (its start and its
            end, where the status line is).
    """

    MESSAGE_TOKENS = 4  # the chat template's tokens around each message

    def __init__(
        self,
        max_tokens: int,
        reserve_tokens: int = 0,
        tokenizer: Any = None,
        keep_chars: int = 300,
    ):
        if max_tokens <= reserve_tokens:
            raise ValueError(
                f"max_tokens={max_tokens} must exceed reserve_tokens={reserve_tokens} "
                "(the reply's tokens)"
            )
        self.max_tokens = max_tokens
        self.reserve_tokens = reserve_tokens
        self.keep_chars = keep_chars
        self._count = token_counter(tokenizer) if tokenizer is not None else None
        self.tokens_per_char = 0.25  # learned from the server's usage when no tokenizer

    @property
    def budget(self) -> int:
        """The tokens a request's prompt may take."""
        return self.max_tokens - self.reserve_tokens

    def message_tokens(self, message: dict[str, Any]) -> int:
        """The (estimated) tokens of one message."""
        if self._count is not None:
            return self._count(_text(message)) + self.MESSAGE_TOKENS
        return int(len(json.dumps(message, ensure_ascii=False)) * self.tokens_per_char) + 1

    def tokens(self, messages: list[dict[str, Any]], tools: list[dict] | None = None) -> int:
        """The (estimated) tokens of a whole request: its messages and tool schemas."""
        total = sum(self.message_tokens(m) for m in messages)
        return total + self._tools_tokens(tools)

    def _tools_tokens(self, tools: list[dict] | None) -> int:
        if not tools:
            return 0
        text = json.dumps(tools, ensure_ascii=False)
        if self._count is not None:
            return self._count(text)
        return int(len(text) * self.tokens_per_char)

    def learn(
        self, messages: list[dict[str, Any]], tools: list[dict] | None, prompt_tokens: int
    ) -> None:
        """Calibrate the characters-to-tokens ratio from the server's count of a prompt."""
        if self._count is not None or prompt_tokens <= 0:
            return
        chars = sum(len(json.dumps(m, ensure_ascii=False)) for m in messages)
        chars += len(json.dumps(tools, ensure_ascii=False)) if tools else 0
        if chars:
            self.tokens_per_char = min(max(prompt_tokens / chars, 0.05), 2.0)

    def fit(self, messages: list[dict[str, Any]], tools: list[dict] | None = None) -> bool:
        """Shorten `messages` in place until the request fits; returns whether it does.

        The system prompt is never touched; the newest observation only as a last resort.
        """
        counts = [self.message_tokens(m) for m in messages]
        over = sum(counts) + self._tools_tokens(tools) - self.budget
        if over <= 0:
            return True
        newest = len(messages) - 1
        for i in range(1, newest):  # oldest observations first
            if over <= 0:
                break
            if messages[i]["role"] in ("tool", "user") and self._shorten(messages[i]):
                new = self.message_tokens(messages[i])
                over -= counts[i] - new
                counts[i] = new
        if over > 0:
            over = self._drop_turns(messages, counts, over)
        if over > 0 and len(messages) > 1:  # the newest observation alone is too long
            last = messages[-1]
            content = str(last.get("content") or "")
            per_char = counts[-1] / max(len(json.dumps(last, ensure_ascii=False)), 1)
            cut = int(over / max(per_char, 0.01)) + len(SHORTENED) + 16
            self._shorten(last, max(len(content) - cut, 0))
            over -= counts[-1] - self.message_tokens(last)
        return over <= 0

    def _shorten(self, message: dict[str, Any], keep: int | None = None) -> bool:
        content = message.get("content")
        keep = self.keep_chars if keep is None else keep
        if not isinstance(content, str) or len(content) <= keep + len(SHORTENED) + 8:
            return False
        if _MARK in content and keep == self.keep_chars:
            return False  # shortened before
        head = keep * 2 // 3
        tail = keep - head
        cut = len(content) - head - tail
        message["content"] = (
            content[:head] + SHORTENED.format(n=cut) + (content[-tail:] if tail else "")
        )
        return True

    def _drop_turns(self, messages: list[dict[str, Any]], counts: list[int], over: int) -> int:
        """Drop the oldest whole turns (a reply with its tool results, or a user message)."""
        turns: list[list[int]] = []
        for i in range(1, len(messages)):
            if messages[i]["role"] == "tool" and turns:
                turns[-1].append(i)
            else:
                turns.append([i])
        dropped: list[int] = []
        for turn in turns[:-1]:  # never the newest turn
            if over <= 0:
                break
            dropped += turn
            over -= sum(counts[i] for i in turn)
        if not dropped:
            return over
        marker = {"role": "user", "content": DROPPED.format(n=len(dropped))}
        keep = [m for i, m in enumerate(messages) if i == 0 or i > dropped[-1]]
        if keep[1]["role"] == "user":  # one user turn, not two in a row
            keep[1] = {**keep[1], "content": marker["content"] + "\n" + str(keep[1]["content"])}
        else:
            keep.insert(1, marker)
        over += self.message_tokens(marker)
        messages[:] = keep
        counts[:] = [self.message_tokens(m) for m in messages]
        return over
