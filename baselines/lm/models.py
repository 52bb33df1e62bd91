"""Policy and value networks for token-level PPO on a causal LM.

`ActorCritic` pairs a policy LM with a value estimate of every generated token's
state, either

- `value="head"`: a linear head on the policy's last hidden state (one forward pass
  gives both; the cheap option, the value shares the policy's features), or
- `value="model"`: a separate backbone with its own head (the SAO/PPO-for-LLMs
  option: the baseline does not pull on the policy's features).

Logits are computed only at the positions whose next token was generated: a 4k-token
prompt with a 100-token reply costs 100 rows of the vocabulary projection, not 4k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import torch
from torch import nn

from swarm_envs.baselines.lm.maths import entropy_from_logits, shift_targets, token_logprobs

if TYPE_CHECKING:
    from transformers import PreTrainedModel

ValueKind = Literal["head", "model"]


@dataclass
class TokenBatch:
    """Turns padded into one batch: `[B, L]` ids, attention mask and reply mask."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    response_mask: torch.Tensor

    @property
    def num_tokens(self) -> int:
        """Generated tokens in the batch (those the losses count)."""
        return int(self.response_mask.sum())


def pack(
    prompts: Sequence[Sequence[int]], replies: Sequence[Sequence[int]], pad_token_id: int
) -> TokenBatch:
    """Right-pad `prompt + reply` sequences; the reply mask is 1 on reply tokens."""
    width = max(len(p) + len(r) for p, r in zip(prompts, replies, strict=True))
    ids = torch.full((len(prompts), width), pad_token_id, dtype=torch.long)
    attn = torch.zeros((len(prompts), width), dtype=torch.long)
    resp = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, (p, r) in enumerate(zip(prompts, replies, strict=True)):
        n = len(p) + len(r)
        ids[row, :n] = torch.tensor([*p, *r], dtype=torch.long)
        attn[row, :n] = 1
        resp[row, len(p) : n] = 1
    return TokenBatch(ids, attn, resp)


def _hidden_size(model: Any) -> int:
    config = model.config
    if hasattr(config, "get_text_config"):
        config = config.get_text_config()
    return int(config.hidden_size)


@dataclass
class Forward:
    """Per generated token (flat, row-major): log-probability, entropy, value."""

    logprobs: torch.Tensor
    entropy: torch.Tensor
    values: torch.Tensor


class ActorCritic(nn.Module):
    """A policy LM with a value estimate (a head on it, or a separate value model).

    Args:
        policy: the causal LM (a `transformers` model, or a `peft` model on one).
        value_backbone: the value model's backbone (`AutoModel`), for `value="model"`;
            None for a head on the policy.
        adapter: the `peft` adapter to activate before every forward (per-role LoRA).
    """

    def __init__(
        self,
        policy: PreTrainedModel,
        value_backbone: PreTrainedModel | None = None,
        adapter: str | None = None,
    ):
        super().__init__()
        self.policy: Any = policy  # a transformers model, or a peft model on one
        self.value_backbone = value_backbone
        width = _hidden_size(value_backbone if value_backbone is not None else policy)
        self.value_head = nn.Linear(width, 1)
        nn.init.zeros_(self.value_head.weight)  # values start at 0: no made-up baseline
        nn.init.zeros_(self.value_head.bias)
        self.value_head.to(next(policy.parameters()).device)
        self.adapter = adapter
        self._head_logits = self._last_hidden_gives_logits()

    @property
    def value_kind(self) -> ValueKind:
        """Where values come from: "head" (the policy's) or "model" (a separate backbone)."""
        return "head" if self.value_backbone is None else "model"

    def activate(self) -> None:
        """Make this actor's LoRA adapter the active one (no-op without adapters)."""
        if self.adapter is not None and self.policy.active_adapter != self.adapter:
            self.policy.set_adapter(self.adapter)

    def trainable_parameters(self) -> list[torch.Tensor]:
        """The parameters this actor trains: its adapter (or the whole LM) and its value."""
        if self.adapter is None:
            return [p for p in self.parameters() if p.requires_grad]
        tag = f".{self.adapter}."  # peft names adapter weights `...lora_A.<adapter>.weight`
        own = [p for n, p in self.policy.named_parameters() if "lora_" in n and tag in n]
        rest = list(self.value_head.parameters())
        if self.value_backbone is not None:
            rest += list(self.value_backbone.parameters())
        return own + rest

    def _last_hidden_gives_logits(self) -> bool:
        # Most causal LMs compute logits as lm_head(final hidden state); some add a
        # soft-cap or a scale. Check once on a short probe and fall back to full logits.
        self.activate()
        probe = torch.arange(8, device=next(self.policy.parameters()).device).unsqueeze(0) % 32
        with torch.no_grad():
            out = self.policy(input_ids=probe, output_hidden_states=True)
            mine = self.policy.get_output_embeddings()(out.hidden_states[-1])
        return torch.allclose(mine.float(), out.logits.float(), atol=1e-4, rtol=1e-3)

    def forward(
        self, batch: TokenBatch, temperature: float = 1.0, allowed: torch.Tensor | None = None
    ) -> Forward:
        """Log-probabilities (at `temperature`), entropies and values of the reply tokens.

        `allowed` (`[N, V]` booleans, one row per reply token): the tokens a grammar
        allowed when the reply was sampled; the distribution is masked to them, as the
        sampler's was (`grammar`).
        """
        self.activate()
        targets, pred = shift_targets(batch.input_ids, batch.response_mask)
        kwargs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if self._head_logits:
            out = self.policy(**kwargs, output_hidden_states=True, logits_to_keep=1)
            hidden = out.hidden_states[-1][pred]
            logits = self.policy.get_output_embeddings()(hidden)
        else:
            out = self.policy(**kwargs, output_hidden_states=True)
            hidden = out.hidden_states[-1][pred]
            logits = out.logits[pred]
        logits = logits.float() / temperature
        if allowed is not None:
            logits = logits.masked_fill(~allowed[:, : logits.shape[-1]], float("-inf"))
        if self.value_backbone is not None:
            hidden = self.value_backbone(**kwargs).last_hidden_state[pred]
        values = self.value_head(hidden.to(self.value_head.weight.dtype)).squeeze(-1).float()
        return Forward(token_logprobs(logits, targets[pred]), entropy_from_logits(logits), values)

    def _reply_logits(self, model: Any, kwargs: dict, pred: torch.Tensor) -> torch.Tensor:
        # Logits of the reply positions only: the full [batch, length, vocab] tensor of a
        # real model's long prompts is gigabytes (SmolLM2: 49,152 tokens of vocabulary).
        if self._head_logits:
            out = model(**kwargs, output_hidden_states=True, logits_to_keep=1)
            return model.get_output_embeddings()(out.hidden_states[-1][pred])
        return model(**kwargs).logits[pred]

    @torch.no_grad()
    def state_values(self, batch: TokenBatch) -> torch.Tensor:
        """The value of each sequence's final state (its last non-padding token)."""
        self.activate()
        kwargs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if self.value_backbone is not None:
            hidden = self.value_backbone(**kwargs).last_hidden_state
        else:
            hidden = self.policy(**kwargs, output_hidden_states=True, logits_to_keep=1)
            hidden = hidden.hidden_states[-1]
        last = batch.attention_mask.sum(1) - 1
        h = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        return self.value_head(h.to(self.value_head.weight.dtype)).squeeze(-1).float()

    @torch.no_grad()
    def reference_logprobs(
        self,
        batch: TokenBatch,
        reference: nn.Module | None,
        temperature: float = 1.0,
        allowed: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Log-probabilities of the reply tokens under the initial policy.

        `reference` is a frozen copy of the initial LM; for a LoRA policy it is None and
        the adapters are switched off instead (LoRA starts as the identity).
        """
        self.activate()
        targets, pred = shift_targets(batch.input_ids, batch.response_mask)
        kwargs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if reference is None:
            with self.policy.disable_adapter():
                logits = self._reply_logits(self.policy, kwargs, pred)
        else:
            logits = self._reply_logits(reference, kwargs, pred)
        logits = logits.float() / temperature
        if allowed is not None:
            logits = logits.masked_fill(~allowed[:, : logits.shape[-1]], float("-inf"))
        return token_logprobs(logits, targets[pred])
