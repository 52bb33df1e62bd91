"""The LM trainer end to end on CPU with a tiny model: runs, resumes exactly, learns, fails early."""

import json

import numpy as np
import pytest
import torch
from support.lm_support import small_args

from swarm_envs.baselines.lm import train as T
from swarm_envs.baselines.lm.engines import TransformersEngine
from swarm_envs.baselines.lm.learner import Learner, PPOSettings
from swarm_envs.baselines.lm.models import ActorCritic
from swarm_envs.baselines.lm.policy import load_causal_lm, load_tokenizer
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.baselines.lm.tiny import build_tiny_model
from swarm_envs.baselines.lm.toy import train_toy
from swarm_envs.error import ConfigError


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-lm"))


def _weights(setup):
    unique = {id(a): a for a in setup.actors.values()}.values()
    return [{k: v.clone() for k, v in a.state_dict().items()} for a in unique]


@pytest.mark.slow
def test_calc_run_completes_and_resumes_to_the_same_state(tiny, tmp_path):
    full = T.train(small_args(tiny, tmp_path / "a"), log=lambda *_: None)
    m = full.metrics
    assert full.updates == 2
    for key in ("losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl",
                "losses/clipfrac", "charts/episodic_return", "charts/SPS", "charts/time_cap",
                "sao/clipfrac_low", "sao/clipfrac_high", "perf/generation_tokens_per_s",
                "perf/update_tokens_per_s", "roles/agent/token_share", "roles/agent/entropy",
                "roles/agent/kl_init", "perf/rollout_s", "perf/generation_s", "perf/env_s",
                "perf/advantages_s", "perf/diagnostics_s", "perf/update_s"):  # fmt: skip
        assert key in m and np.isfinite(m[key]), key
    # Where the update's time went: the rollout splits into sampling and the environments.
    assert m["perf/generation_s"] > 0 and m["perf/update_s"] > 0
    assert m["perf/generation_s"] + m["perf/env_s"] == pytest.approx(m["perf/rollout_s"])
    assert m["roles/agent/kl_init"] > 0  # the policy moved away from the initial one
    (run_dir,) = (tmp_path / "a" / "runs" / "swarm").iterdir()  # runs/{env_id}__...
    assert run_dir.name.startswith("calc-v0__lm__0__")
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())
    # The run folder of both trainers (swarm_envs.baselines.outputs): rows, options, weights.
    assert full.run_dir == run_dir and full.checkpoint == run_dir / "checkpoint.pt"
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").open()]
    assert [r["update"] for r in rows] == [1, 2]
    assert json.dumps(rows) == json.dumps(full.history)  # NaN as NaN
    assert json.loads((run_dir / "args.json").read_text())["model"] == str(tiny)

    first = T.train(small_args(tiny, tmp_path / "b", num_updates=1), log=lambda *_: None)
    resumed = T.train(
        small_args(tiny, tmp_path / "b", num_updates=2, resume=str(first.checkpoint)),
        log=lambda *_: None,
    )
    assert resumed.updates == 2
    a, b = _weights(full.setup), _weights(resumed.setup)
    initial = load_causal_lm(tiny).state_dict()
    moved = [k for k, v in initial.items() if not torch.equal(v, a[0][f"policy.{k}"])]
    assert moved  # training changed the weights, so equality below means something
    for x, y in zip(a, b, strict=True):
        assert x.keys() == y.keys()
        for k in x:
            assert torch.equal(x[k], y[k]), k
    assert resumed.metrics["charts/episodic_return"] == m["charts/episodic_return"]
    # The resumed run's rows: the checkpoint's (update 1) and its own, each once.
    assert [r["update"] for r in resumed.history] == [1, 2]
    rows = [json.loads(line) for line in (resumed.run_dir / "metrics.jsonl").open()]
    assert json.dumps(rows) == json.dumps(resumed.history)


@pytest.mark.slow
def test_async_rollouts_and_isolated_lora_policies(tiny, tmp_path):
    out = T.train(
        small_args(
            tiny, tmp_path, num_agents=3, roles={"implementer": 2, "reviewer": 1},
            policies="isolated", lora=True, async_rollouts=True, rollout_workers=2,
            episodes_per_update=2, max_staleness=1, num_updates=3,
        ),
        log=lambda *_: None,
    )  # fmt: skip
    m = out.metrics
    assert out.updates == 3
    assert 0 <= m["sao/staleness_max"] <= 2  # bounded: started within 1 version, consumed later
    for role in ("implementer", "reviewer"):
        assert np.isfinite(m[f"roles/{role}/entropy"]) and f"roles/{role}/kl_init" in m
    assert np.isfinite(m["isolated/implementer/grad_cosine"])  # two implementers
    assert "isolated/reviewer/grad_cosine" not in m  # a lone reviewer has nobody to agree with
    setup = out.setup
    assert setup.actors["implementer"].policy is setup.actors["reviewer"].policy  # one base
    assert setup.actors["implementer"].adapter != setup.actors["reviewer"].adapter


def test_bad_configs_fail_at_start_naming_the_field(tiny, tmp_path):
    cases = {
        "model=": dict(model=str(tmp_path / "missing")),
        "unknown role 'judge'": dict(
            num_agents=2, roles={"implementer": 1, "reviewer": 1}, role_prompts={"judge": "x"}
        ),
        "roles=": dict(num_agents=3, roles={"implementer": 1, "reviewer": 1}),
        "role_tools: unknown role 'judge'": dict(
            num_agents=2, roles={"implementer": 1, "reviewer": 1}, role_tools={"judge": ()}
        ),
        "episodes_per_update=3": dict(episodes_per_update=3, num_envs=2),
        "temperature": dict(temperature=0.0),
        "task=|unknown task": dict(task="no-such-task"),
    }
    for expected, kw in cases.items():
        with pytest.raises(ConfigError, match=expected):
            T.check(small_args(tiny, tmp_path, **kw))


def test_role_whitelist_naming_an_unknown_tool_fails(tiny, tmp_path):
    args = small_args(tiny, tmp_path, roles={"implementer": 1, "reviewer": 1},
                      role_tools={"reviewer": ("read_file", "rm_rf")})  # fmt: skip
    with pytest.raises(ConfigError, match="role_tools.reviewer: unknown tool 'rm_rf'"):
        T.check(args)


def test_prompt_budget_smaller_than_the_tools_fails(tiny, tmp_path):
    with pytest.raises(ConfigError, match="max_prompt_tokens=100"):
        T.build(small_args(tiny, tmp_path, max_prompt_tokens=100))


def test_cli_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as e:
        T.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--model", "--roles", "--policies", "--clip-mode", "--eps-low", "--max-staleness",
                 "--async-rollouts", "--bf16", "--gradient-checkpointing", "--lora", "--value"):  # fmt: skip
        assert flag in out


def test_cli_reports_a_bad_model_path(tmp_path, capsys):
    assert T.main(["--policy", "lm", "--model", str(tmp_path / "nope")]) == 2
    assert "model=" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # tyro's usage error: this trainer is --policy lm
        T.main(["--policy", "mlp"])
    assert e.value.code == 2


# ---------------------------------------------------------------------------- learning


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 3 minutes on two busy cores
def test_reward_on_emitted_text_rises(tiny):
    """The toy text task: the reward depends only on the text, and PPO/SAO raises it."""
    torch.manual_seed(0)
    tok = load_tokenizer(tiny)
    actor = ActorCritic(load_causal_lm(tiny))
    engine = TransformersEngine(
        actor.policy, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
        max_new_tokens=6,
    )  # fmt: skip
    opt = torch.optim.AdamW(actor.trainable_parameters(), lr=3e-3)
    learner = Learner({"agent": actor}, opt, tok.pad_token_id, PPOSettings(micro_batch_turns=16))
    rows = train_toy(learner, {"agent": engine}, tok, None, updates=150, samples_per_agent=16)
    history = [r["charts/episodic_return"] for r in rows]
    assert all(np.isfinite(r["losses/policy_loss"]) for r in rows)
    before, after = np.mean(history[:15]), np.mean(history[-15:])
    # Measured over 150 updates: seed 0 0.73 -> 0.89, seed 1 0.72 -> 1.00, seed 2 0.71 -> 1.00;
    # the margin asked here is below the smallest of those gains (0.16).
    assert after > before + 0.12, (before, after)


def test_gradient_accumulation_equals_one_big_batch(tiny):
    torch.manual_seed(0)
    tok = load_tokenizer(tiny)
    grads = []
    for micro in (1, 3, 16):
        actor = ActorCritic(load_causal_lm(tiny))
        opt = torch.optim.SGD(actor.trainable_parameters(), lr=0.0)
        learner = Learner(
            {"agent": actor},
            opt,
            tok.pad_token_id,
            PPOSettings(micro_batch_turns=micro, ent_coef=0.1),
        )
        rng = np.random.default_rng(0)
        records = []
        for k in range(5):
            n = int(rng.integers(2, 7))
            t = Turn(
                f"agent_{k}",
                "agent",
                rng.integers(10, 300, 6).tolist(),
                rng.integers(10, 300, n).tolist(),
                [0.0] * n,
                0,
                0.0,
                True,
                reward=float(k),
            )
            records.append(
                EpisodeRecord(
                    0,
                    {t.agent: [t]},
                    t.reward,
                    0.0,
                    "terminated",
                    "all_done",
                    0,
                    0,
                    {t.agent: "agent"},
                )
            )
        for rec in records:  # behaviour = the current policy, so no token is clipped
            (t,) = rec.all_turns()
            t.behaviour_logprobs = actor(learner._batch([t], torch.device("cpu"))).logprobs.tolist()
        learner.update(learner.advantages(records))
        grads.append(torch.cat([p.grad.reshape(-1) for p in actor.trainable_parameters()]))
    assert grads[0].abs().sum() > 0
    assert torch.allclose(grads[0], grads[1], atol=1e-6) and torch.allclose(
        grads[0], grads[2], atol=1e-6
    )


@pytest.mark.slow
def test_bf16_autocast_and_gradient_checkpointing_run_on_cpu(tiny, tmp_path):
    out = T.train(
        small_args(
            tiny, tmp_path, num_updates=1, bf16=True, gradient_checkpointing=True, value="model"
        ),
        log=lambda *_: None,
    )
    m = out.metrics
    assert np.isfinite(m["losses/policy_loss"]) and np.isfinite(m["losses/value_loss"])
    actor = out.setup.actors["agent"]
    assert actor.policy.is_gradient_checkpointing and actor.value_kind == "model"


def test_a_nan_loss_stops_with_a_clear_error(tiny):
    from swarm_envs.baselines.lm.learner import TrainingDiverged

    tok = load_tokenizer(tiny)
    actor = ActorCritic(load_causal_lm(tiny))
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    opt = torch.optim.AdamW(actor.trainable_parameters(), lr=1e-3)
    learner = Learner({"agent": actor}, opt, tok.pad_token_id, PPOSettings())
    t = Turn("agent_0", "agent", [5, 6, 7], [8, 9], [-8.0, -8.0], 0, 0.0, True, reward=float("nan"))
    rec = EpisodeRecord(
        0, {"agent_0": [t]}, 0.0, 0.0, "terminated", "all_done", 0, 0, {"agent_0": "agent"}
    )
    with pytest.raises(TrainingDiverged, match="non-finite loss"):
        learner.update(learner.advantages([rec]))
    after = actor.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # no step was taken
