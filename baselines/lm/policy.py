"""A causal language model as a swarm agent's policy: loading, prompts, tool-call parsing.

Each agent keeps its own conversation. A turn renders it with the tokenizer's chat
template and the environment's tool schemas (`apply_chat_template(..., tools=
swarm_envs.tool_schemas())`), the model generates, and the text is parsed into one tool
call: the env's action, sent with the real token counts as its usage. The prompt and
the generated tokens (with the log-probabilities the behaviour policy gave them) are
what the trainer learns from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_envs.agents.replies import read_tool_call
from swarm_envs.core.actions import Action, Usage
from swarm_envs.error import ConfigError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

DEFAULT_SYSTEM_PROMPT = (
    "You are a software engineer in a team of agents working on one project at the same "
    "time. Every turn, call exactly one tool. The team's reward is the number of tests "
    "that pass when time runs out."
)


def default_system_prompt(role: str = "agent") -> str:
    """The default system prompt of a role: the generic one, naming the role if it has one."""
    return DEFAULT_SYSTEM_PROMPT + ("" if role == "agent" else f" Your role: {role}.")


def check_model_path(path: str | Path, field_name: str = "model") -> Path:
    """A local model folder or GGUF file, or `ConfigError` naming `field_name`.

    Nothing is downloaded. A `.gguf` file is read by `transformers` (`real_model`).
    """
    from swarm_envs.baselines.lm import real_model

    if real_model.is_gguf(path):
        return real_model.check_gguf(path, field_name)
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ConfigError(
            f"{field_name}={str(path)!r}: no such folder; give the local folder of a causal "
            "LM saved with save_pretrained, or a .gguf file (models are never downloaded)"
        )
    if not (p / "config.json").is_file():
        raise ConfigError(
            f"{field_name}={str(path)!r}: the folder has no config.json; expected a "
            "transformers checkpoint (config.json, weights, tokenizer files)"
        )
    return p


def load_tokenizer(path: str | Path) -> PreTrainedTokenizerBase:
    """The tokenizer of a local checkpoint; it must have a chat template."""
    from transformers import AutoTokenizer

    from swarm_envs.baselines.lm.real_model import model_source

    folder, gguf = model_source(check_model_path(path))
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, **gguf)
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError(
            f"model={str(path)!r}: the tokenizer has no chat template; the policy renders "
            "each turn with apply_chat_template(..., tools=tool_schemas())"
        )
    if tokenizer.pad_token_id is None:  # many chat models ship without one
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_causal_lm(
    path: str | Path, *, device: str | torch.device = "cpu", dtype: torch.dtype | None = None
) -> PreTrainedModel:
    """A causal LM from a local folder, on `device`, with dropout off.

    Dropout is switched off because PPO's probability ratio compares the same policy's
    log-probabilities at sampling and at update time; dropout noise would bias it.
    """
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    from swarm_envs.baselines.lm.real_model import model_source

    hf_logging.disable_progress_bar()
    folder, gguf = model_source(check_model_path(path))
    model: Any = AutoModelForCausalLM.from_pretrained(
        folder, local_files_only=True, dtype=dtype or torch.float32, **gguf
    )
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    return model.to(device)


# ---------------------------------------------------------------------------- parsing


def parse_tool_call(text: str) -> tuple[dict[str, Any] | None, str]:
    """The first tool call in a model's reply, and the free text around it.

    Reads every shape `swarm_envs.agents.replies.read_tool_call` reads (tags, code
    fences, bare JSON with prose around it, single quotes, a cut-off end, a Python
    call of a known tool). Returns `(None, text)` when the reply has no call; the
    environment then answers with an error observation that shows the expected shape.
    """
    read = read_tool_call(text)
    return read.call, read.content


def decode_reply(tokenizer: PreTrainedTokenizerBase, ids: Sequence[int]) -> str:
    """A reply's text: markup tokens such as <tool_call> kept, end-of-turn and padding not."""
    drop = {tokenizer.eos_token_id, tokenizer.pad_token_id}
    return str(tokenizer.decode([t for t in ids if t not in drop], skip_special_tokens=False))


def take_turn(
    conversation: Conversation,
    tokenizer: PreTrainedTokenizerBase,
    prompt: Sequence[int],
    reply: Sequence[int],
) -> tuple[Action, str, bool]:
    """A generated reply as the env's action; (action, reply text, whether it had a call).

    The reply joins the conversation. The action reports the real token counts (the
    reply's and the prompt's) as a trusted caller's usage. A reply without a call goes
    as its text: the env answers with an error observation that the agent reads next
    turn, and it costs its tokens.
    """
    text = decode_reply(tokenizer, reply)
    call, content = parse_tool_call(text)
    conversation.reply(content, call, text)
    usage = Usage(output_tokens=len(reply), input_tokens=len(prompt))
    tool_call = {**call, "content": content} if call else text
    return Action(tool_call=tool_call, usage=usage), text, call is not None


# ---------------------------------------------------------------------------- conversations


@dataclass
class Conversation:
    """One agent's chat history, rendered into prompt tokens within a context budget.

    Observations answer the agent's previous call as `tool` messages (or as `user`
    messages when the previous reply had no call). When the rendered prompt exceeds
    `max_prompt_tokens`, the oldest exchanges after the first observation are dropped
    first, then the longest remaining message is shortened, with a marker.
    """

    system: str
    max_prompt_tokens: int = 4096
    max_observation_chars: int = 4000
    messages: list[dict[str, Any]] = field(default_factory=list)
    _awaiting_tool: str | None = None
    _dropped: int = 0

    def observe(self, text: str) -> None:
        """Add the environment's latest observation."""
        if len(text) > self.max_observation_chars:
            keep = self.max_observation_chars
            text = text[: keep // 2] + "\n[... shortened ...]\n" + text[-(keep // 2) :]
        if self._awaiting_tool is not None:
            self.messages.append({"role": "tool", "name": self._awaiting_tool, "content": text})
        else:
            self.messages.append({"role": "user", "content": text})
        self._awaiting_tool = None

    def reply(self, content: str, call: dict[str, Any] | None, text: str | None = None) -> None:
        """Add the agent's reply (its free text and its parsed tool call, if any).

        `text` is the whole reply as written: templates that render no tool calls show
        it instead (`chat_format`).
        """
        msg: dict[str, Any] = {"role": "assistant", "content": content}
        if text is not None:
            msg["text"] = text
        if call is not None:
            args = call["arguments"] if isinstance(call["arguments"], dict) else {}
            msg["tool_calls"] = [
                {"type": "function", "function": {"name": call["name"], "arguments": args}}
            ]
            self._awaiting_tool = call["name"]
        self.messages.append(msg)

    def prompt_ids(self, tokenizer: PreTrainedTokenizerBase, tools: list[dict]) -> list[int]:
        """The prompt tokens of the next turn, within `max_prompt_tokens`."""
        while True:
            # Keep the first observation (the task) and drop the oldest exchanges after
            # it. Dropped exchanges stay dropped, so a long episode renders O(1) times
            # per turn, not once per exchange.
            messages = self.messages[:1] + self.messages[1 + self._dropped :]
            ids = render(tokenizer, self.system, messages, tools)
            if len(ids) <= self.max_prompt_tokens:
                return ids
            if len(messages) > 2:
                self._dropped += 2 if len(messages) > 3 else 1
                continue
            return self._shortened(tokenizer, tools, messages)

    def _shortened(self, tokenizer, tools, messages: list[dict[str, Any]]) -> list[int]:
        messages = [dict(m) for m in messages]
        while True:
            ids = render(tokenizer, self.system, messages, tools)
            longest = max(range(len(messages)), key=lambda k: len(messages[k]["content"]))
            content = messages[longest]["content"]
            if len(ids) <= self.max_prompt_tokens or len(content) < 64:
                return ids[-self.max_prompt_tokens :]
            quarter = len(content) // 4
            messages[longest]["content"] = (
                content[:quarter] + "\n[... shortened ...]\n" + content[-quarter:]
            )


def render(
    tokenizer: PreTrainedTokenizerBase,
    system: str,
    messages: list[dict[str, Any]],
    tools: list[dict],
) -> list[int]:
    """Token ids of `system` + `messages` with the tools, ending with the assistant cue.

    A template that drops the tools or the calls gets them as text (`chat_format`).
    """
    from swarm_envs.baselines.lm.chat_format import chat_format, text_messages

    system, messages = text_messages(chat_format(tokenizer), system, messages, tools)
    text = tokenizer.apply_chat_template(
        [{"role": "system", "content": system}, *messages],
        tools=[*tools],
        add_generation_prompt=True,
        tokenize=False,
    )
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])
