"""An agent backed by any OpenAI-compatible chat-completions server.

vLLM, SGLang, the llama.cpp server and hosted APIs all speak this protocol. The agent
uses the official `openai` SDK (`AsyncOpenAI`), whose retries, timeouts and backoff
apply as they are; it passes `tool_schemas()` with every request, keeps its own
conversation (`Conversation`) under a context size (`ContextPolicy`), and reports the
server's real usage and its wall time with each action:

    agents = LLMAgent.team(8, model="Qwen/Qwen3-8B", base_url="http://localhost:8000/v1")
    trajectory = swarm_envs.rollout(env, agents, seed=0)

Real models write tool calls in two ways, and both are actions: structured
(`message.tool_calls`, from servers that parse them) or as text in the reply, which
`swarm_envs.agents.replies.read_tool_call` reads (JSON in `<tool_call>` tags, in a code
fence or bare, with prose around it, single quotes or a cut-off end). A call read from
the text stays in the conversation as the text the model wrote, so that a chat template
that renders no tool calls still shows the model its own turns. The system prompt lists
the tools and the expected shape (`tools_in_prompt`), since some templates drop the
request's `tools`.

Whatever the model does, the episode goes on: a reply without a tool call is sent to
the environment as it is, and the error observation that comes back shows the expected
shape (costing the reply's tokens; a reply cut at `max_tokens` is told so); of several
tool calls the first runs and the others are answered "one tool call per action";
malformed arguments get the environment's error observation. A server that still fails
after the SDK's retries raises `AgentError`, which the rollout runner records as that
agent's `agent_error`.
"""

from __future__ import annotations

import asyncio
import os
import time as wallclock
from collections.abc import Mapping
from typing import Any, cast

import openai

from swarm_envs.agents.conversation import (
    INSTRUCTIONS,
    ContextPolicy,
    Conversation,
    new_in_first,
    system_prompt,
)
from swarm_envs.agents.protocol import TaskInfo
from swarm_envs.agents.replies import llm_instructions, read_tool_call
from swarm_envs.core.actions import Action, Usage, tool_schemas
from swarm_envs.error import AgentError


class _Clients:
    """One `AsyncOpenAI` per event loop: its connections belong to the loop that made them.

    `rollout()` runs each episode in a new loop; a client from a closed loop is dropped.
    """

    def __init__(self, client: openai.AsyncOpenAI | None, **kwargs: Any):
        self._fixed = client
        self._kwargs = kwargs
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: openai.AsyncOpenAI | None = None

    def get(self) -> openai.AsyncOpenAI:
        if self._fixed is not None:
            return self._fixed
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = openai.AsyncOpenAI(**self._kwargs), loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = self._loop = None


class LLMAgent:
    """One agent of a swarm, backed by a chat-completions server.

    Args:
        model: the model name the server serves.
        base_url: the server's OpenAI-compatible endpoint, e.g. `http://localhost:8000/v1`
            (default: the SDK's, from `OPENAI_BASE_URL` or OpenAI's API).
        api_key: the key (default: `OPENAI_API_KEY`, else `"EMPTY"` as local servers
            expect).
        client: an `AsyncOpenAI` to use instead of making one (then it must live in
            the event loop that runs the rollout: use `arollout`).
        instructions: the system prompt before the task's introduction; `{agent_name}`
            and `{team}` are filled in.
        context_tokens: the model's context size; each request is kept under it.
        max_tokens: the reply's token limit (sent as `max_tokens`; kept free in the
            context); `None` sends none. A tool call rarely needs more than a few
            hundred tokens; a small model that rambles is cut here.
        tokenizer: counts tokens for the context policy (a `tokenizers.Tokenizer`, a
            `transformers` tokenizer or a function); default: the server's usage.
        timeout_s: the SDK's timeout per request.
        max_retries: the SDK's retries (with its exponential backoff) per request.
        temperature: sampling temperature; `None` sends none (the server's default).
        request_options: more keyword arguments for `chat.completions.create`
            (`extra_body`, `parallel_tool_calls`, `max_completion_tokens`, ...).
        tools_in_prompt: list the tools and the call's shape in the system prompt
            (`replies.call_instructions`), for templates that ignore `tools`.
        stop: stop sequences (sent as `stop`), e.g. `["</tool_call>"]` to end a
            text-mode reply right after its call; `None` sends none (some hosted
            reasoning models refuse `stop`).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        instructions: str = INSTRUCTIONS,
        context_tokens: int = 32_768,
        max_tokens: int | None = 512,
        tokenizer: Any = None,
        timeout_s: float = 120.0,
        max_retries: int = 2,
        temperature: float | None = None,
        request_options: Mapping[str, Any] | None = None,
        tools_in_prompt: bool = True,
        stop: list[str] | None = None,
        _clients: _Clients | None = None,
    ):
        self.model = model
        self.instructions = instructions
        self.max_retries = max_retries
        self.context = ContextPolicy(context_tokens, max_tokens or 0, tokenizer)
        self._clients = _clients or _Clients(
            client,
            base_url=base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY",
            timeout=timeout_s,
            max_retries=max_retries,
        )
        self._options: dict[str, Any] = dict(request_options or {})
        if max_tokens is not None:
            self._options.setdefault("max_tokens", max_tokens)
        if temperature is not None:
            self._options.setdefault("temperature", temperature)
        if stop:
            self._options.setdefault("stop", list(stop))
        self.max_tokens = max_tokens
        self.tools_in_prompt = tools_in_prompt
        self._tools = tool_schemas()
        self.name: str | None = None
        self.conversation: Conversation | None = None
        self._intro = ""
        self._note = ""  # said before the next observation (a reply cut without a call)

    @classmethod
    def team(cls, n: int, model: str, **kwargs: Any) -> list[LLMAgent]:
        """`n` agents sharing one client (one connection pool), with the same settings."""
        client = kwargs.pop("client", None)
        clients = _Clients(
            client,
            base_url=kwargs.pop("base_url", None),
            api_key=kwargs.pop("api_key", None) or os.environ.get("OPENAI_API_KEY") or "EMPTY",
            timeout=kwargs.get("timeout_s", 120.0),
            max_retries=kwargs.get("max_retries", 2),
        )
        return [cls(model, _clients=clients, **kwargs) for _ in range(n)]

    # ------------------------------------------------------------------ protocol

    def reset(self, agent_name: str, task_info: TaskInfo) -> None:
        """Start a new conversation: the instructions and the task's introduction."""
        self.name = agent_name
        self._intro = task_info.intro
        self._note = ""
        # A role's whitelist: the model is offered only the tools its role may call.
        allowed = set(task_info.tools)
        self._tools = [t for t in tool_schemas() if t["function"]["name"] in allowed]
        instructions = self.instructions
        if self.tools_in_prompt:
            instructions = llm_instructions(instructions, self._tools)
        self.conversation = Conversation(
            system_prompt(instructions, agent_name, task_info.agent_names, task_info.intro)
        )

    async def act(self, observation: str, info: dict[str, Any]) -> Action:
        """Ask the server for the next tool call; returns it with the server's usage."""
        conv = self.conversation
        if conv is None:
            raise AgentError("LLMAgent.act() before reset(agent_name, task_info)")
        if len(conv.messages) == 1:
            # The introduction is in the system prompt already: send only what is new.
            observation = new_in_first(observation, self._intro)
        conv.observe(self._note + observation)
        self._note = ""
        self.context.fit(conv.messages, self._tools)
        t0 = wallclock.perf_counter()
        try:
            # Plain dicts in the SDK's shapes; its TypedDicts are for type checkers only.
            messages, tools = cast(Any, conv.messages), cast(Any, self._tools)
            completion = await self._clients.get().chat.completions.create(
                model=self.model, messages=messages, tools=tools, **self._options
            )
        except (openai.OpenAIError, ValueError) as e:  # ValueError: a body that is not JSON
            raise AgentError(
                f"{self.name}: the model server failed (after up to {self.max_retries} "
                f"retries): {type(e).__name__}: {e}"
            ) from e
        latency = wallclock.perf_counter() - t0
        if not completion.choices:
            raise AgentError(f"{self.name}: the server's reply has no choices")
        choice = completion.choices[0]
        message = choice.message
        text = message.content or ""
        calls = [c.model_dump() for c in message.tool_calls or [] if c.type == "function"]
        read = read_tool_call(text, [t["function"]["name"] for t in self._tools])
        if calls:
            shape = "tool_calls"
            call = conv.reply(text, calls)
            tool_call: dict[str, Any] = {**(call or {}), "content": text}
        elif read.call is not None:
            # Kept as the text the model wrote: its next turn shows it what it did, in
            # its own words, whatever the chat template does with structured calls.
            shape = read.shape
            conv.reply(text, [])
            tool_call = {**read.call, "content": read.content}
        else:  # no tool call: the environment's error observation shows the shape
            shape = "none"
            conv.reply(text, [])
            tool_call = {"role": "assistant", "content": text, "tool_calls": []}
            if choice.finish_reason == "length":
                self._note = (
                    f"(Your previous reply was cut at its limit of {self.max_tokens} tokens "
                    "before any tool call: reply with the tool call first, and nothing "
                    "else.)\n"
                )
        usage = completion.usage
        if usage is not None:
            self.context.learn(conv.messages[:-1], self._tools, usage.prompt_tokens)
        return Action(
            tool_call=tool_call,
            usage=Usage.model_validate(usage) if usage is not None else None,
            latency_s=latency,
            meta={
                "finish_reason": choice.finish_reason,
                "tool_calls": len(calls) or read.calls,
                "reply_shape": shape,
            },
        )

    async def aclose(self) -> None:
        """Close the client this agent made in the running event loop (not a given one)."""
        await self._clients.aclose()
