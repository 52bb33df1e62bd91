"""The generation seam: what samples the agents' turns.

Two engines behind one small interface:

- `TransformersEngine`: `model.generate` on the learner's own model (or on a snapshot of
  it, for asynchronous rollouts). Runs anywhere; this is what the tests run.
- `VLLMEngine`: a vLLM `LLM` on a GPU, with the learner's weights pushed into it after
  every update. Used when `vllm` is installed and a GPU is present; it cannot run on a
  machine without a GPU, so no test here runs it.

Both return, for every generated token, the log-probability the sampling distribution
gave it (the *behaviour* policy). The trainer's importance ratio uses these, so a stale
or differently-implemented sampler is corrected for rather than ignored. Sampling is
plain temperature sampling (no top-k, top-p or penalties): only then is the behaviour
distribution the policy's own `softmax(logits / temperature)`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from swarm_envs.error import ConfigError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


@dataclass
class Generation:
    """One sampled reply: its tokens and their behaviour log-probabilities."""

    token_ids: list[int]
    logprobs: list[float]
    finished: bool  # ended with an end-of-sequence token (not cut at max_new_tokens)


class GenerationEngine(Protocol):
    """Samples replies to prompts given as token ids."""

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """One sampled reply per prompt, with the behaviour log-probability of each token."""
        ...

    def sync_weights(self, model: PreTrainedModel) -> None:
        """Load the learner's current weights (no-op when it samples from them already)."""
        ...


class TransformersEngine:
    """Batched `model.generate` with left padding; behaviour log-probs from raw logits.

    Args:
        model: the causal LM to sample from (the learner's, or a snapshot).
        eos_token_id: end-of-turn token.
        pad_token_id: padding token.
        max_new_tokens: longest reply.
        temperature: sampling temperature (> 0).
        autocast_dtype: `torch.bfloat16` to sample under bf16 autocast on a GPU.
        batch_size: most prompts per `generate` call.
    """

    def __init__(
        self,
        model: PreTrainedModel,
        *,
        eos_token_id: int,
        pad_token_id: int,
        max_new_tokens: int = 128,
        temperature: float = 1.0,
        autocast_dtype: torch.dtype | None = None,
        batch_size: int = 32,
    ):
        from transformers import GenerationConfig

        if not temperature > 0:
            raise ConfigError(f"temperature={temperature!r}: expected > 0 for sampling")
        self.model: Any = model  # a transformers model, or a peft model on one
        self.eos_token_id = eos_token_id
        self.pad_token_id = pad_token_id
        self.temperature = float(temperature)
        self.autocast_dtype = autocast_dtype
        self.batch_size = batch_size
        # A config of our own: a checkpoint's generation_config.json may set top_k,
        # top_p or penalties, which would make sampling differ from the policy.
        self.config = GenerationConfig(
            do_sample=True,
            temperature=self.temperature,
            top_k=0,
            top_p=1.0,
            max_new_tokens=max_new_tokens,
            eos_token_id=eos_token_id,
            pad_token_id=pad_token_id,
            return_dict_in_generate=True,
            output_logits=True,
        )

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """One sampled reply per prompt, `batch_size` prompts per `generate` call."""
        out: list[Generation] = []
        for k in range(0, len(prompts), self.batch_size):
            out += self._generate(prompts[k : k + self.batch_size])
        return out

    def _generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        import torch

        device = next(self.model.parameters()).device
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, p in enumerate(prompts):
            ids[row, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
            mask[row, width - len(p) :] = 1
        ids, mask = ids.to(device), mask.to(device)
        autocast = torch.autocast(
            device.type, dtype=self.autocast_dtype, enabled=self.autocast_dtype is not None
        )
        with torch.no_grad(), autocast:
            res = self.model.generate(
                input_ids=ids, attention_mask=mask, generation_config=self.config
            )
        new = res.sequences[:, width:]
        logits = torch.stack(res.logits, dim=1).float() / self.temperature
        logprobs = torch.log_softmax(logits, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
        gens = []
        for row in range(len(prompts)):
            tokens = new[row].tolist()
            finished = self.eos_token_id in tokens
            n = tokens.index(self.eos_token_id) + 1 if finished else len(tokens)
            gens.append(Generation(tokens[:n], logprobs[row, :n].tolist(), finished))
        return gens

    def sync_weights(self, model: PreTrainedModel) -> None:
        """Copy the learner's weights in, unless this engine samples from the learner itself."""
        if model is not self.model:
            self.model.load_state_dict(model.state_dict())


class VLLMEngine:
    """vLLM sampling on a GPU, with the learner's weights loaded after each update.

    Needs `pip install vllm` and a CUDA GPU. The engine runs in this process
    (`VLLM_ENABLE_V1_MULTIPROCESSING=0`) so that `sync_weights` can hand it the
    learner's tensors directly, as colocated RL trainers do.

    Args:
        model_path: the local checkpoint the learner started from.
        max_new_tokens: longest reply.
        temperature: sampling temperature (> 0).
        dtype: vLLM's weight dtype.
        gpu_memory_utilization: share of the GPU vLLM may take (the learner needs the rest).
    """

    def __init__(
        self,
        model_path: str,
        *,
        max_new_tokens: int = 128,
        temperature: float = 1.0,
        dtype: str = "bfloat16",
        gpu_memory_utilization: float = 0.3,
    ):
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        try:
            from vllm import LLM, SamplingParams
        except ImportError:
            raise ConfigError(
                "engine='vllm': vllm is not installed; `pip install vllm` on a GPU machine, "
                "or use engine='transformers'"
            ) from None
        self.llm = LLM(
            model=model_path,
            dtype=dtype,
            gpu_memory_utilization=gpu_memory_utilization,
            enable_prefix_caching=True,
        )
        self.params = SamplingParams(
            temperature=temperature, top_p=1.0, top_k=-1, max_tokens=max_new_tokens, logprobs=0
        )
        self.eos_token_id = self.llm.get_tokenizer().eos_token_id

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """One sampled reply per prompt from vLLM, with vLLM's log-probabilities."""
        requests = [{"prompt_token_ids": list(p)} for p in prompts]
        outs = self.llm.generate(requests, sampling_params=self.params, use_tqdm=False)
        gens = []
        for o in outs:
            c = o.outputs[0]
            tokens = list(c.token_ids)
            lps = [step[t].logprob for step, t in zip(c.logprobs or [], tokens, strict=True)]
            gens.append(Generation(tokens, lps, c.finish_reason == "stop"))
        return gens

    def sync_weights(self, model: PreTrainedModel) -> None:
        """Load the learner's weights (LoRA merged) into vLLM's copy of the model."""
        weights = list(_merged_weights(model))

        def load(runner_model) -> None:  # runs where vLLM keeps its model
            runner_model.load_weights(weights)

        self.llm.apply_model(load)
        self.llm.reset_prefix_cache()  # cached KV blocks were computed with old weights


def _merged_weights(model: Any) -> Iterable[tuple[str, torch.Tensor]]:
    """Plain weight names and tensors; LoRA adapters are merged in for the copy."""
    if hasattr(model, "merge_adapter"):  # a peft model
        model.merge_adapter()
        try:
            base = model.get_base_model()
            for name, t in base.state_dict().items():
                if "lora_" not in name:
                    yield name.replace(".base_layer", ""), t.detach().clone()
        finally:
            model.unmerge_adapter()
    else:
        for name, t in model.state_dict().items():
            yield name, t.detach()


def vllm_available() -> bool:
    """Whether the vLLM engine can run here (vllm installed and a CUDA GPU present)."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        return False
    import torch

    return torch.cuda.is_available()
