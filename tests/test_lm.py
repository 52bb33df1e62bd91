"""The language-model policy: a tiny model built here, loaded by the real loading code."""

import json

import pytest
import torch

import swarm_envs
from swarm_envs.baselines.lm.engines import TransformersEngine
from swarm_envs.baselines.lm.models import ActorCritic, pack
from swarm_envs.baselines.lm.policy import (
    DEFAULT_SYSTEM_PROMPT,
    Conversation,
    check_model_path,
    load_causal_lm,
    load_tokenizer,
    parse_tool_call,
    render,
)
from swarm_envs.baselines.lm.rollout import SwarmCollector
from swarm_envs.baselines.lm.tiny import build_tiny_model
from swarm_envs.core.actions import estimate_tokens, parse_action
from swarm_envs.error import ActionError, ConfigError

TOOLS = swarm_envs.tool_schemas()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture(scope="module")
def tok(tiny):
    return load_tokenizer(tiny)


def teach(model, tokenizer, prompts, text, max_steps=80):
    """Supervised steps until the model replies `text` to each prompt (a real model)."""
    from swarm_envs.baselines.lm.maths import generated_logprobs

    reply = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    batch = pack(prompts, [reply] * len(prompts), tokenizer.pad_token_id)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(max_steps):
        logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits
        lp = generated_logprobs(logits, batch.input_ids, batch.response_mask)
        if lp.min().item() > -0.3:  # likely enough that sampling at T = 0.2 repeats it
            break
        opt.zero_grad()
        (-lp.mean()).backward()
        opt.step()
    return reply


def test_loads_from_a_local_folder_and_renders_tools(tiny, tok):
    model = load_causal_lm(tiny)
    assert model.config.num_hidden_layers == 2
    ids = render(tok, "be brief", [{"role": "user", "content": "hello"}], TOOLS)
    text = tok.decode(ids)
    for tool in ("read_file", "edit_file", "run_tests", "send_message", "done"):
        assert f'"name": "{tool}"' in text
    assert text.rstrip().endswith("<|im_start|>assistant")


def test_missing_or_bad_model_path_names_the_field(tmp_path):
    with pytest.raises(ConfigError, match="model=.*no such folder"):
        check_model_path(tmp_path / "nope")
    with pytest.raises(ConfigError, match="value_model=.*config.json"):
        check_model_path(tmp_path, "value_model")


def test_tokenizer_without_chat_template_is_refused(tiny, tmp_path):
    import shutil

    copy = tmp_path / "m"
    shutil.copytree(tiny, copy)
    (copy / "chat_template.jinja").unlink()
    cfg = json.loads((copy / "tokenizer_config.json").read_text())
    cfg.pop("chat_template", None)
    (copy / "tokenizer_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ConfigError, match="chat template"):
        load_tokenizer(copy)


@pytest.mark.parametrize(
    ("text", "name", "args", "content"),
    [
        (
            '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>',
            "read_file",
            {"path": "a.py"},
            "",
        ),
        (
            'look first <tool_call>\n{"name": "list_files", "arguments": {}}\n</tool_call>',
            "list_files",
            {},
            "look first",
        ),
        ('{"name": "done", "arguments": {"summary": "ok"}}', "done", {"summary": "ok"}, ""),
        (
            '{"type": "function", "function": {"name": "wait", "arguments": "{\\"seconds\\": 2}"}}',
            "wait",
            '{"seconds": 2}',
            "",
        ),
        (
            '<tool_call>{"name": "post", "arguments": {"text": "a"}}',
            "post",
            {"text": "a"},
            "",
        ),  # cut at max tokens
        (
            '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b"}</tool_call>',
            "a",
            {},
            "",
        ),
    ],
)
def test_parse_tool_call(text, name, args, content):
    call, rest = parse_tool_call(text)
    assert call == {"name": name, "arguments": args}
    assert rest == content


@pytest.mark.parametrize(
    "text", ["", "no call here", "{not json", '{"arguments": {}}', "<tool_call>oops</tool_call>"]
)
def test_parse_without_a_call(text):
    assert parse_tool_call(text) == (None, text)


def test_conversation_stays_within_budget_and_keeps_the_task(tok):
    conv = Conversation(DEFAULT_SYSTEM_PROMPT, max_prompt_tokens=700, max_observation_chars=500)
    conv.observe("TASK: implement calc")
    full = len(conv.prompt_ids(tok, TOOLS))
    for k in range(40):
        conv.reply(f"step {k}", {"name": "read_file", "arguments": {"path": f"f{k}.py"}})
        conv.observe(f"content of f{k}.py " * 20)
        ids = conv.prompt_ids(tok, TOOLS)
        assert len(ids) <= 700
    text = tok.decode(ids)
    assert "TASK: implement calc" in text  # the first observation survives
    assert "content of f39.py" in text and "f0.py" not in text  # oldest dropped first
    assert full < 700
    # Observations answer the previous call as tool messages.
    assert conv.messages[-1]["role"] == "tool" and conv.messages[-1]["name"] == "read_file"
    long = Conversation("s", max_observation_chars=100)
    long.observe("x" * 1000)
    assert len(long.messages[0]["content"]) < 200 and "shortened" in long.messages[0]["content"]


def test_behaviour_logprobs_match_the_learner(tiny, tok):
    """The ratio at sampling time is 1: generation and the learner agree on the policy."""
    torch.manual_seed(0)
    model = load_causal_lm(tiny)
    engine = TransformersEngine(
        model, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, max_new_tokens=12
    )
    prompts = [
        render(tok, "s", [{"role": "user", "content": c}], TOOLS)
        for c in ("a", "longer prompt here")
    ]
    gens = engine.generate(prompts)
    assert all(1 <= len(g.token_ids) <= 12 and len(g.logprobs) == len(g.token_ids) for g in gens)
    for kind in ("head", "model"):
        backbone = None
        if kind == "model":
            from transformers import AutoModel

            backbone = AutoModel.from_pretrained(tiny, local_files_only=True)
        actor = ActorCritic(model, backbone)
        assert actor.value_kind == kind
        fwd = actor(pack(prompts, [g.token_ids for g in gens], tok.pad_token_id))
        behaviour = torch.tensor([x for g in gens for x in g.logprobs])
        assert fwd.logprobs.shape == behaviour.shape == fwd.values.shape == fwd.entropy.shape
        assert torch.allclose(fwd.logprobs, behaviour, atol=1e-4)
        assert torch.all(fwd.values == 0)  # a zero-initialised head: no made-up baseline


def test_head_logits_match_the_models_own(tiny, tok):
    model = load_causal_lm(tiny)
    actor = ActorCritic(model)
    assert actor._head_logits  # Llama: logits = lm_head(final hidden state)
    batch = pack([[5, 6, 7, 8]], [[9, 10, 11]], tok.pad_token_id)
    fast = actor(batch).logprobs
    actor._head_logits = False
    slow = actor(batch).logprobs
    assert torch.allclose(fast, slow, atol=1e-5)


@pytest.mark.slow
def test_swarm_turns_carry_real_token_usage(tiny, tok, tmp_path):
    """A model that emits a valid call: the env runs it and counts the real tokens."""
    torch.manual_seed(0)
    model = load_causal_lm(tiny)
    record = tmp_path / "episode.jsonl"
    env = swarm_envs.parallel_env("calc", num_agents=1, time_cap_s=2.0, record_path=str(record))
    obs, _ = env.reset(seed=0)
    prompts = []
    for agent in env.agents:
        conv = Conversation(DEFAULT_SYSTEM_PROMPT)
        conv.observe(obs[agent])
        prompts.append(conv.prompt_ids(tok, TOOLS))
    teach(model, tok, prompts, '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>')
    engine = TransformersEngine(
        model, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
        max_new_tokens=20, temperature=0.2,
    )  # fmt: skip
    collector = SwarmCollector(
        [env], {"agent": engine}, tok, {"agent": TOOLS}, {"agent": DEFAULT_SYSTEM_PROMPT}
    )
    try:
        (rec,) = collector.collect([0])
    finally:
        env.close()
    first = {a: turns[0] for a, turns in rec.turns.items()}
    assert all(t.valid and '"list_files"' in t.text for t in first.values())
    assert all(t.reply_ids[-1] == tok.eos_token_id for t in first.values())
    assert "calc" in tok.decode(first["agent_0"].prompt_ids)  # the task is in the prompt
    assert rec.end == "truncated" and rec.reason == "time_cap" and rec.final_prompts
    # The env ran the calls and charged exactly the tokens of prompt and reply.
    actions = [json.loads(x) for x in record.read_text().splitlines()]
    actions = [a for a in actions if a["type"] == "action"]
    turns = {a: list(ts) for a, ts in rec.turns.items()}
    assert len(actions) == rec.num_turns
    for a in actions:
        turn = turns[a["agent"]].pop(0)
        call = parse_tool_call(turn.text)[0] if turn.valid else None
        if call is not None and call["name"] in swarm_envs.core.actions.TOOLS:
            assert a["tool"] == call["name"]
            assert (a["output_tokens"], a["input_tokens"]) == (
                len(turn.reply_ids),
                len(turn.prompt_ids),
            )
    assert sum(t.valid for t in rec.all_turns()) >= 1


@pytest.mark.slow
def test_the_lm_policy_is_an_agent_that_swarm_envs_rollout_drives(tiny, tok):
    """The protocol adapter: concurrent acts meet in one batch; meta has what PPO needs."""
    from swarm_envs.baselines.lm.agent import BatchedGeneration, LMAgent

    torch.manual_seed(0)
    engine = TransformersEngine(
        load_causal_lm(tiny), eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
        max_new_tokens=6,
    )  # fmt: skip
    batch = BatchedGeneration(engine)
    env = swarm_envs.parallel_env(
        "calc", num_agents=3, time_cap_s=4.0, roles={"implementer": 2, "reviewer": 1},
        role_tools={"reviewer": ["read_file", "post"]},
    )  # fmt: skip
    agents = [LMAgent(batch, tok, system_prompts={"reviewer": "You review."}) for _ in range(3)]
    try:
        trajectory = swarm_envs.rollout(env, agents, seed=0)
    finally:
        env.close()
    assert batch.batches[0] == 3  # every agent ready at t=0: one generate call for all
    assert sum(batch.batches) == sum(len(a.decisions) for a in trajectory.agents)
    assert [a.role for a in trajectory.agents] == ["implementer", "implementer", "reviewer"]
    reviewer_tools = [t["function"]["name"] for t in agents[2]._tools]
    assert reviewer_tools == ["read_file", "post", "wait", "done"]
    for agent in trajectory.agents:
        for d in agent.decisions:
            m = d.meta
            assert len(m["reply_ids"]) == len(m["logprobs"]) >= 1
            assert all(lp <= 0 for lp in m["logprobs"]) and m["role"] == agent.role
            # The env charged the real tokens (the reply's and the prompt's), the reply's
            # never below the estimate from the visible length of the action it became (a
            # parsed call's arguments are written out again, so not the raw text's).
            reply, prompt = len(m["reply_ids"]), len(m["prompt_ids"])
            assert reply + prompt <= d.tokens
            call, content = parse_tool_call(m["text"])
            action = {**call, "content": content} if call else m["text"]
            try:
                chars = parse_action(action)[3]
            except ActionError as e:
                chars = e.chars
            assert d.tokens <= prompt + max(reply, estimate_tokens(chars))
    assert "You review." in tok.decode(trajectory.agents[2].decisions[0].meta["prompt_ids"])
