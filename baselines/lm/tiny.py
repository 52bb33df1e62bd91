"""Tiny causal language models built from a config, for tests, demos and benchmarks.

Nothing is downloaded: the tokenizer is a byte-level BPE trained with the `tokenizers`
library on local text (the tool schemas, the bundled tasks' descriptions and sample tool
calls), the model is a randomly initialised 2-layer Llama, and both are saved to a folder
that the real loading code (`AutoTokenizer` / `AutoModelForCausalLM.from_pretrained`)
then reads, exactly as it reads a downloaded checkpoint.

The chat template follows the convention of the Qwen2.5 family (tools listed in the
system turn inside `<tools>`, calls as `<tool_call>{...}</tool_call>`, tool results as
`<tool_response>` user turns), so a policy that works with it works with those models.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

CHAT_TEMPLATE = """\
{%- if messages and messages[0].role == 'system' %}{% set system = messages[0].content %}\
{% else %}{% set system = '' %}{% endif %}
{%- if tools %}<|im_start|>system
{% if system %}{{ system }}

{% endif %}# Tools
Call exactly one of these functions per turn. Signatures in <tools></tools>:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>
Reply with <tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call>\
<|im_end|>
{% elif system %}<|im_start|>system
{{ system }}<|im_end|>
{% endif %}
{%- for m in messages %}
{%- if m.role == 'system' %}
{%- elif m.role == 'tool' %}<|im_start|>user
<tool_response>
{{ m.content }}
</tool_response><|im_end|>
{% elif m.role == 'assistant' %}<|im_start|>assistant
{% if m.content %}{{ m.content }}{% endif %}
{%- for tc in m.tool_calls | default([]) %}<tool_call>{"name": "{{ tc.function.name }}", \
"arguments": {{ tc.function.arguments | tojson }}}</tool_call>{% endfor %}<|im_end|>
{% else %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""

SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<|pad|>", "<tool_call>", "</tool_call>")


def corpus() -> list[str]:
    """Local text to train the tiny tokenizer on: tool schemas, task descriptions, calls."""
    from swarm_envs import tool_schemas
    from swarm_envs.tasks import get_task, registered

    texts = [json.dumps(t) for t in tool_schemas()]
    for task_id in sorted(registered()):
        m = get_task(task_id).manifest
        texts.append(m.description)
    calls = [
        {"name": "list_files", "arguments": {}},
        {"name": "read_file", "arguments": {"path": "calc/core.py"}},
        {"name": "run_tests", "arguments": {}},
        {"name": "post", "arguments": {"channel": "general", "text": "claim: tokenize"}},
        {"name": "wait", "arguments": {"seconds": 10}},
        {"name": "done", "arguments": {}},
    ]
    texts += [f"<tool_call>{json.dumps(c)}</tool_call>" for c in calls]
    texts += ["def tokenize(text):\n    return text.split()\n", "passed failed tests agent_0"]
    return texts


def build_tiny_model(
    path: str | Path,
    *,
    vocab_size: int = 4096,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    max_positions: int = 8192,
    seed: int = 0,
    texts: Iterable[str] | None = None,
) -> Path:
    """Train a tokenizer, initialise a tiny Llama and save both to `path`; returns `path`.

    Args:
        path: folder to write (created if needed).
        vocab_size: most BPE tokens (the 256 byte symbols and special tokens included).
        hidden_size: model width.
        num_layers: transformer layers.
        num_heads: attention heads (key/value heads: half of them).
        max_positions: longest context the model accepts.
        seed: seed of the weights' initialisation.
        texts: text to train the tokenizer on (default: `corpus()`).
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    # No word splitting: merges may cross spaces, so the repeated tool-schema JSON of every
    # prompt becomes a few long tokens and a tiny model sees short prompts.
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    # Repeated so that BPE learns merges for whole recurring phrases (pairs must recur).
    bpe.train_from_iterator(list(texts if texts is not None else corpus()) * 20, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|pad|>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(path)

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=max(num_heads // 2, 1),
        max_position_embeddings=max_positions,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(path)
    return path
