"""Constrained decoding: sampling only replies that are one valid tool call.

`ToolCallGrammar` builds a grammar from the tool schemas with llguidance (the `model`
extra): a reply is `<tool_call>` + one JSON object `{"name": <a tool>, "arguments":
<that tool's schema>}` + `</tool_call>`, then end of turn. `ConstrainedEngine` wraps the
trainer's `TransformersEngine`: at every generated token the grammar's mask of allowed
tokens is applied to the logits before sampling (one matcher per reply), and the mask is
kept with the reply (`ConstrainedGeneration.allowed`, a bitmask per token).

The update must see the same distribution the sampler drew from: the behaviour
log-probabilities here are those of the *masked* distribution, and the learner applies
each token's stored mask to the policy's logits before the log-softmax
(`allowed_tokens`), so the importance ratio, the clipping and the entropy compare masked
with masked. Without that, the ratio of a forced token (behaviour probability 1 under the
mask) would be its unmasked probability, far below 1, and two-sided clipping would
silence it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from swarm_envs.baselines.lm.engines import Generation, TransformersEngine
from swarm_envs.error import ConfigError


@dataclass
class ConstrainedGeneration(Generation):
    """A reply sampled under a grammar, with the mask of allowed tokens at each token.

    `allowed` is `[len(token_ids), ceil(vocab / 32)]` int32: bit `t % 32` of word
    `t // 32` is set when token `t` was allowed (llguidance's bitmask layout).
    """

    allowed: np.ndarray | None = None


def call_schema(tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The JSON schema of one call of any of `tools` (chat-completions tool schemas)."""
    variants = []
    for t in tools:
        fn = t.get("function", t)
        variants.append(
            {
                "type": "object",
                "properties": {"name": {"const": fn["name"]}, "arguments": fn["parameters"]},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": variants}


class ToolCallGrammar:
    """The grammar of a reply that is exactly one tool call, for one tokenizer.

    Args:
        tokenizer: the policy's (fast) tokenizer.
        tools: the tool schemas the calls may use.
        vocab_size: the width of the model's logits (default: the tokenizer's length).
        tags: wrap the call in `<tool_call>` tags (the shape the prompt asks for).
    """

    def __init__(
        self,
        tokenizer: Any,
        tools: Sequence[dict[str, Any]],
        vocab_size: int | None = None,
        tags: bool = True,
    ):
        try:
            import llguidance
            import llguidance.hf
        except ImportError:
            raise ConfigError(
                "constrained decoding needs llguidance: pip install 'swarm-envs[model]'"
            ) from None
        self.vocab_size = int(vocab_size or len(tokenizer))
        self.lltok = llguidance.hf.from_tokenizer(
            tokenizer, n_vocab=self.vocab_size, eos_token=tokenizer.eos_token_id
        )
        # Compact JSON in the prompt's own style: free whitespace would let a sampler
        # spend its tokens on spaces and newlines between the braces.
        compact = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
        schema = json.dumps({**call_schema(tools), "x-guidance": compact})
        if tags:
            open_, close = _literal(tokenizer, "<tool_call>"), _literal(tokenizer, "</tool_call>")
            lark = f"start: {open_} call {close}\ncall: %json {schema}\n"
        else:
            lark = f"start: call\ncall: %json {schema}\n"
        self.grammar = llguidance.LLMatcher.grammar_from_lark(lark)
        error = llguidance.LLMatcher.validate_grammar(self.grammar, self.lltok)
        if error and not error.startswith("WARNING"):
            raise ConfigError(f"the tool-call grammar is invalid: {error}")
        self.words = (self.vocab_size + 31) // 32

    def matcher(self) -> Any:
        """A fresh matcher at the start of a reply."""
        import llguidance

        return llguidance.LLMatcher(self.lltok, self.grammar, log_level=0)


def _literal(tokenizer: Any, text: str) -> str:
    """`text` in the grammar: by token id when it is one added token, else as a string.

    llguidance does not match an added (special) token's text against a string literal.
    """
    added = tokenizer.get_added_vocab() if hasattr(tokenizer, "get_added_vocab") else {}
    if text in added:
        return f"<[{added[text]}]>"
    return json.dumps(text)


def unpack(bits: torch.Tensor | np.ndarray, vocab_size: int) -> torch.Tensor:
    """`[n, words]` int32 bitmasks -> `[n, vocab_size]` booleans (True: allowed)."""
    b = torch.as_tensor(np.asarray(bits, dtype=np.int32))
    shifts = torch.arange(32, dtype=torch.int32)
    out = ((b.unsqueeze(-1) >> shifts) & 1).bool().reshape(b.shape[0], -1)
    return out[:, :vocab_size]


def allowed_tokens(turns: Sequence[Any], vocab_size: int, device: Any) -> torch.Tensor | None:
    """The masks of the turns' tokens, flat in order, or None when no turn was constrained.

    A turn sampled without a grammar allows every token at each of its positions.
    """
    if not any(getattr(t, "allowed", None) is not None for t in turns):
        return None
    rows = []
    for t in turns:
        n = len(t.reply_ids)
        if getattr(t, "allowed", None) is None:
            rows.append(torch.ones((n, vocab_size), dtype=torch.bool))
        else:
            rows.append(unpack(t.allowed[:n], vocab_size))
    return torch.cat(rows).to(device)


class _Masker:
    """A logits processor for `generate`: each row's grammar mask, recorded per step."""

    def __init__(self, grammar: ToolCallGrammar, rows: int, prompt_width: int, eos: int):
        self.grammar = grammar
        self.matchers = [grammar.matcher() for _ in range(rows)]
        self.prompt_width = prompt_width
        self.eos = eos
        self.done = [False] * rows
        self.masks: list[np.ndarray] = []  # per step: [rows, words]

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        from llguidance.torch import fill_next_token_bitmask

        if input_ids.shape[1] > self.prompt_width:  # the token sampled at the last step
            for row, token in enumerate(input_ids[:, -1].tolist()):
                if self.done[row]:
                    continue
                if token == self.eos or not self.matchers[row].consume_token(token):
                    self.done[row] = True
        bits = torch.zeros((len(self.matchers), self.grammar.words), dtype=torch.int32)
        for row, m in enumerate(self.matchers):
            if self.done[row]:  # ended (its later tokens are padding), or off the grammar
                word, bit = divmod(self.eos, 32)
                bits[row, word] = np.int32(np.uint32(1 << bit).view(np.int32))
            else:
                fill_next_token_bitmask(m, bits, row)
        self.masks.append(bits.numpy().copy())
        allowed = unpack(bits, scores.shape[-1]).to(scores.device)
        return scores.masked_fill(~allowed, float("-inf"))


class ConstrainedEngine:
    """A `TransformersEngine` that samples under a `ToolCallGrammar`.

    Args:
        engine: the plain engine (its model, tokens, temperature, batch size).
        grammar: the grammar every reply follows.
    """

    def __init__(self, engine: TransformersEngine, grammar: ToolCallGrammar):
        self.engine = engine
        self.grammar = grammar
        self.model = engine.model

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """One constrained reply per prompt, `batch_size` prompts per `generate` call."""
        out: list[Generation] = []
        size = self.engine.batch_size
        for k in range(0, len(prompts), size):
            out += self._generate(prompts[k : k + size])
        return out

    def _generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        from transformers import LogitsProcessorList

        e = self.engine
        device = next(e.model.parameters()).device
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), e.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, p in enumerate(prompts):
            ids[row, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
            mask[row, width - len(p) :] = 1
        masker = _Masker(self.grammar, len(prompts), width, e.eos_token_id)
        autocast = torch.autocast(
            device.type, dtype=e.autocast_dtype, enabled=e.autocast_dtype is not None
        )
        with torch.no_grad(), autocast:
            res = e.model.generate(
                input_ids=ids.to(device),
                attention_mask=mask.to(device),
                generation_config=e.config,
                logits_processor=LogitsProcessorList([masker]),
            )
        new = res.sequences[:, width:]
        # Raw logits, masked as the sampler saw them: the behaviour distribution.
        logits = torch.stack(res.logits, dim=1).float() / e.temperature
        steps = np.stack(masker.masks[: logits.shape[1]], axis=1)  # [rows, steps, words]
        allowed = torch.stack([unpack(s, logits.shape[-1]) for s in steps]).to(logits.device)
        logits = logits.masked_fill(~allowed, float("-inf"))
        logprobs = torch.log_softmax(logits, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
        gens: list[Generation] = []
        for row in range(len(prompts)):
            tokens = new[row].tolist()
            finished = e.eos_token_id in tokens
            n = tokens.index(e.eos_token_id) + 1 if finished else len(tokens)
            gens.append(
                ConstrainedGeneration(
                    tokens[:n], logprobs[row, :n].tolist(), finished, allowed=steps[row, :n]
                )
            )
        return gens

    def sync_weights(self, model: Any) -> None:
        """The wrapped engine's weights follow the learner's."""
        self.engine.sync_weights(model)


def constrain(engines: dict[str, Any], tokenizer: Any, tools: dict[str, list[dict]]) -> dict:
    """Role -> the role's engine, sampling under the grammar of the role's tools.

    Only the trainer's own `TransformersEngine` can be constrained here.
    """
    out: dict[str, Any] = {}
    for role, engine in engines.items():
        if not isinstance(engine, TransformersEngine):
            raise ConfigError(
                f"grammar: constrained decoding runs on the transformers engine; the engine "
                f"of role {role!r} is {type(engine).__name__} (drop --grammar, or use "
                "--engine transformers with a shared policy)"
            )
        vocab = engine.model.get_output_embeddings().weight.shape[0]
        out[role] = ConstrainedEngine(engine, ToolCallGrammar(tokenizer, tools[role], vocab))
    return out
