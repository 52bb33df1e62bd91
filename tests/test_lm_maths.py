"""Token-level PPO maths: generated tokens only, masked prompts, rewards on turn ends, GAE."""

import numpy as np
import pytest
import torch

from swarm_envs.baselines.lm.maths import (
    entropy_from_logits,
    generated_logprobs,
    kl_to_reference,
    masked_gae,
    policy_loss,
    role_balanced_weights,
    shift_targets,
    turn_rewards_to_tokens,
    value_loss,
)


def test_logprobs_of_generated_tokens_only():
    torch.manual_seed(0)
    ids = torch.tensor([[5, 6, 7, 8, 9, 0], [1, 2, 3, 4, 0, 0]])
    resp = torch.tensor([[0, 0, 0, 1, 1, 0], [0, 0, 1, 1, 0, 0]])
    logits = torch.randn(2, 6, 11, requires_grad=True)
    lp = generated_logprobs(logits, ids, resp)
    assert lp.shape == (4,)  # 2 + 2 generated tokens, nothing else
    # Position t predicts token t + 1: token 8 of row 0 comes from logits[0, 2].
    expected = torch.log_softmax(logits[0, 2], -1)[8]
    assert torch.allclose(lp[0], expected)
    lp.sum().backward()
    grad_rows = logits.grad.abs().sum(-1)
    # Only the positions that predict generated tokens receive gradient.
    assert torch.equal(grad_rows > 0, torch.tensor([[0, 0, 1, 1, 0, 0], [0, 1, 1, 0, 0, 0]]).bool())


def test_shift_targets_mask_never_covers_the_prompt():
    ids = torch.arange(8).unsqueeze(0)
    resp = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1]])
    targets, pred = shift_targets(ids, resp)
    assert pred.tolist() == [[False, False, False, False, True, True, True, False]]
    assert targets[0, pred[0]].tolist() == [5, 6, 7]


def test_turn_reward_lands_on_the_turns_last_token():
    r = turn_rewards_to_tokens([3, 1, 2], [1.0, -2.0, 5.0])
    assert r.tolist() == [0, 0, 1.0, -2.0, 0, 5.0]
    with pytest.raises(ValueError, match="every turn"):
        turn_rewards_to_tokens([0], [1.0])


def test_gae_with_gamma_lambda_one_is_return_minus_value():
    rng = np.random.default_rng(0)
    r = rng.normal(size=12)
    v = rng.normal(size=12)
    adv, ret = masked_gae(r, v, np.ones(12, bool))
    mc = np.cumsum(r[::-1])[::-1]
    assert np.allclose(ret, mc)
    assert np.allclose(adv, mc - v)


def test_gae_skips_masked_tokens_and_keeps_their_rewards():
    # [prompt p p][gen a a][obs o][gen b]: a reward on the observation token (index 4)
    # belongs to the decision before it (the second 'a').
    mask = np.array([0, 0, 1, 1, 0, 1], bool)
    rewards = np.array([0, 0, 0, 1.0, 2.0, 3.0])
    values = np.array([9, 9, 0.5, 0.25, 99, 0.125])  # masked values must be ignored
    adv, ret = masked_gae(rewards, values, mask)
    assert ret[~mask].tolist() == [0, 0, 0] and adv[~mask].tolist() == [0, 0, 0]
    assert ret[mask].tolist() == [6.0, 6.0, 3.0]
    assert np.allclose(adv[mask], [6 - 0.5, 6 - 0.25, 3 - 0.125])
    assert ret[mask][0] == rewards.sum()  # nothing lost on a masked token


def test_gae_reward_before_any_generated_token_goes_to_the_first():
    adv, ret = masked_gae(np.array([1.0, 0, 0]), np.zeros(3), np.array([0, 1, 1], bool))
    assert ret.tolist() == [0, 1.0, 0]
    with pytest.raises(ValueError, match="lost"):
        masked_gae(np.array([1.0]), np.zeros(1), np.zeros(1, bool))


def test_gae_discounting_and_bootstrap():
    r = np.array([0, 0, 1.0])
    v = np.array([0.5, 0.5, 0.5])
    adv, ret = masked_gae(r, v, np.ones(3, bool), gamma=0.5, lam=1.0)
    assert np.allclose(ret, [0.25, 0.5, 1.0])
    # Truncation: the value after the last token is bootstrapped.
    _, ret_b = masked_gae(r, v, np.ones(3, bool), last_value=4.0)
    assert np.allclose(ret_b, [5.0, 5.0, 5.0])
    # lambda = 0 is one-step TD.
    adv0, _ = masked_gae(r, v, np.ones(3, bool), gamma=1.0, lam=0.0)
    assert np.allclose(adv0, [0.0, 0.0, 0.5])


def test_value_loss_and_clip():
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    ret = torch.tensor([0.0, 2.0])
    assert value_loss(v, ret).item() == pytest.approx(0.25)
    old = torch.tensor([0.0, 2.0])
    clipped = value_loss(v, ret, old_values=old, clip=0.5)
    assert clipped.item() == pytest.approx(0.25)  # max(unclipped, clipped)


def test_entropy_and_kl():
    uniform = torch.zeros(3, 4)
    assert torch.allclose(entropy_from_logits(uniform), torch.full((3,), np.log(4.0)))
    lp = torch.log(torch.tensor([0.5, 0.25]))
    assert torch.allclose(kl_to_reference(lp, lp), torch.zeros(2))
    assert (kl_to_reference(lp, lp - 1.0) > 0).all()


def test_role_balanced_weights_equalise_roles():
    roles = torch.tensor([0, 0, 0, 0, 0, 0, 1, 1])
    w = role_balanced_weights(roles)
    assert w.mean().item() == pytest.approx(1.0)
    assert w[roles == 0].sum().item() == pytest.approx(w[roles == 1].sum().item())


def test_policy_loss_rejects_unknown_mode():
    x = torch.zeros(2)
    with pytest.raises(ValueError, match="mode"):
        policy_loss(x, x, x, mode="grpo")
