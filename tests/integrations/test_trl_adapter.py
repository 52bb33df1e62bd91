"""TRL's GRPOTrainer trains a tiny local model on calc through `SwarmRollout` (CPU)."""

import math

import pytest
import torch

pytest.importorskip("trl")

from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from swarm_envs.baselines.lm.tiny import build_tiny_model  # noqa: E402
from swarm_envs.integrations.trl import SwarmRollout  # noqa: E402

# Each test builds a tiny model and runs swarm episodes through TRL: minutes on 2 cores.
pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]


def _rollout(**kw):
    base = dict(
        num_agents=4,
        trained_agents=2,
        teammates="claim",
        max_turns=2,
        max_new_tokens=8,
        seed=0,
        env_kwargs={"time_cap_s": 45.0},
        teammate_kwargs={"p_wrong": 0.5},
    )
    return SwarmRollout("calc", **{**base, **kw})


def test_two_grpo_steps_change_the_weights_and_the_rewards_are_the_environments(tmp_path):
    tiny = build_tiny_model(tmp_path / "tiny")
    model = AutoModelForCausalLM.from_pretrained(tiny)
    tokenizer = AutoTokenizer.from_pretrained(tiny, padding_side="left")
    rollout = _rollout()
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_steps=2,
        learning_rate=1e-2,
        beta=0.0,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        seed=0,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=rollout.reward,
        rollout_func=rollout,
        train_dataset=rollout.dataset(8),
        args=args,
    )
    before = {k: v.detach().clone() for k, v in model.state_dict().items()}
    trainer.train()
    rollout.close()

    after = model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before), "no weight changed"
    # Two optimisation steps, two episodes each (4 samples = 2 episodes of 2 trained agents).
    episodes = rollout.episodes
    assert [e["seed"] for e in episodes] == [0, 1, 2, 3]
    # The reward of an episode is the environment's: the tests it made pass (all start failing).
    assert all(e["return"] == e["tests_passed"] for e in episodes)
    logged = [
        h["rewards/reward/mean"] for h in trainer.state.log_history if "rewards/reward/mean" in h
    ]
    assert len(logged) == 2
    for step, mean in enumerate(logged):
        pair = episodes[2 * step : 2 * step + 2]
        assert math.isclose(mean, sum(e["return"] for e in pair) / 2, abs_tol=1e-6)


class _Trainer:
    """What `SwarmRollout` reads of a trainer (for the unit test of the samples)."""

    def __init__(self, model, tokenizer):
        import accelerate

        self.model, self.processing_class = model, tokenizer
        self.accelerator = accelerate.Accelerator(cpu=True)
        self.temperature = 1.0
        self.num_generations = 2


def test_samples_hold_the_generated_ids_and_their_log_probabilities(tmp_path):
    tiny = build_tiny_model(tmp_path / "tiny")
    model = AutoModelForCausalLM.from_pretrained(tiny)
    tokenizer = AutoTokenizer.from_pretrained(tiny, padding_side="left")
    rollout = _rollout(num_agents=2, trained_agents=2, max_turns=3, env_kwargs={"time_cap_s": 30.0})
    torch.manual_seed(0)
    out = rollout(["calc", "calc"], _Trainer(model, tokenizer))
    rollout.close()
    assert len(out["completion_ids"]) == 2
    for prompt, ids, logprobs, mask in zip(
        out["prompt_ids"], out["completion_ids"], out["logprobs"], out["env_mask"], strict=True
    ):
        assert len(ids) == len(logprobs) == len(mask) and sum(mask) > 0
        # Generated tokens carry their sampling log-probability; the model, given the same
        # context, gives them that log-probability (same ids, no re-tokenisation).
        with torch.no_grad():
            logits = model(torch.tensor([prompt + ids])).logits[0]
        logp = torch.log_softmax(logits[len(prompt) - 1 : -1].float(), dim=-1)
        for k, (token, lp, m) in enumerate(zip(ids, logprobs, mask, strict=True)):
            if m:
                assert math.isclose(logp[k, token].item(), lp, abs_tol=1e-3)
            else:
                assert lp == 0.0
    assert out["env_reward"][0] == out["env_reward"][1] == rollout.episodes[0]["return"]
