"""The PPO maths as pure functions: GAE, semi-MDP rewards, bootstrapping, masking, losses."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from swarm_envs.baselines.ppo import maths  # noqa: E402
from swarm_envs.baselines.ppo.policy import MenuPolicy  # noqa: E402


def test_gae_with_gamma_lambda_one_is_monte_carlo_return_minus_value():
    rng = np.random.default_rng(0)
    r = rng.normal(size=6)
    v = rng.normal(size=6)
    nv = np.append(v[1:], 0.0)  # a terminated sequence
    adv, ret = maths.gae(r, v, nv, np.array([1, 1, 1, 1, 1, 0.0]), 1.0, 1.0)
    mc = np.cumsum(r[::-1])[::-1]
    np.testing.assert_allclose(adv, mc - v)
    np.testing.assert_allclose(ret, mc)


def test_gae_bootstraps_on_truncation_only():
    r, v = np.array([1.0, 2.0]), np.array([0.5, 0.25])
    cont = np.array([1.0, 0.0])
    terminated, _ = maths.gae(r, v, np.array([0.25, 0.0]), cont)
    truncated, _ = maths.gae(r, v, np.array([0.25, 10.0]), cont)
    np.testing.assert_allclose(terminated, [3.0 - 0.5, 2.0 - 0.25])
    np.testing.assert_allclose(truncated, [13.0 - 0.5, 12.0 - 0.25])


def test_gae_sequences_do_not_leak_into_each_other():
    # Two agents' sequences laid end to end: the second must not see the first's rewards.
    r = np.array([1.0, 1.0, 5.0])
    v = np.zeros(3)
    adv, _ = maths.gae(r, v, np.zeros(3), np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(adv, [2.0, 1.0, 5.0])


def test_gae_other_gamma_and_lambda_use_the_same_path():
    r, v = np.array([1.0, 1.0]), np.array([0.0, 0.5])
    nv, cont = np.array([0.5, 0.0]), np.array([1.0, 0.0])
    adv, _ = maths.gae(r, v, nv, cont, gamma=0.5, lam=0.5)
    d1 = 1.0 + 0.5 * 0.0 - 0.5
    d0 = 1.0 + 0.5 * 0.5 - 0.0
    np.testing.assert_allclose(adv, [d0 + 0.25 * d1, d1])


def test_decision_rewards_sum_until_the_next_decision_and_the_end():
    step_rewards = np.array([0.0, 2.0, 1.0, 0.0, 3.0, 4.0])
    decided = np.array([1, 0, 1, 0, 0, 0], dtype=bool)
    np.testing.assert_allclose(maths.decision_rewards(step_rewards, decided), [2.0, 8.0])
    # Every step a decision: the step rewards themselves.
    np.testing.assert_allclose(maths.decision_rewards(step_rewards, np.ones(6, bool)), step_rewards)
    # The sum over an agent's decisions is the episode's collective return.
    assert maths.decision_rewards(step_rewards, decided).sum() == step_rewards.sum()
    assert maths.decision_rewards(step_rewards, np.zeros(6, bool)).size == 0


def test_masked_logits_get_no_probability_and_no_gradient():
    logits = torch.tensor([[1.0, 5.0, -2.0, 0.5]], requires_grad=True)
    mask = torch.tensor([[1, 0, 1, 0]], dtype=torch.bool)
    dist = maths.masked_categorical(logits, mask)
    p = dist.probs[0]
    assert p[1] == 0 and p[3] == 0
    assert torch.isclose(p.sum(), torch.tensor(1.0))
    samples = dist.sample((2000,))
    assert set(samples.flatten().tolist()) <= {0, 2}
    loss = -(dist.log_prob(torch.tensor([0])) + dist.entropy()).sum()
    loss.backward()
    assert logits.grad[0, 1] == 0 and logits.grad[0, 3] == 0
    assert logits.grad[0, 0] != 0 and logits.grad[0, 2] != 0
    assert torch.isfinite(dist.entropy()).all()


def test_policy_never_samples_a_masked_action():
    torch.manual_seed(0)
    policy = MenuPolicy(10, 6, hidden=8)
    mask = torch.zeros(64, 6, dtype=torch.bool)
    mask[:, 4] = True
    mask[::2, 1] = True
    action, logprob, entropy, value = policy.act(torch.rand(64, 10), mask)
    assert mask[torch.arange(64), action].all()
    assert value.shape == (64,) and torch.isfinite(logprob).all()


def test_clipped_policy_loss():
    adv = torch.tensor([1.0, -1.0])
    ratio = torch.tensor([1.5, 0.5])
    # Positive advantage: the ratio is clipped at 1.2; negative: at 0.8 (pessimistic max).
    loss = maths.policy_loss(ratio, adv, 0.2)
    assert torch.isclose(loss, torch.tensor((-1.2 + 0.8) / 2))
    # Inside the clip range it is the plain surrogate.
    assert torch.isclose(
        maths.policy_loss(torch.tensor([1.1]), torch.tensor([2.0]), 0.2), torch.tensor(-2.2)
    )


def test_clipped_value_loss():
    new, old, ret = torch.tensor([2.0]), torch.tensor([0.0]), torch.tensor([3.0])
    assert torch.isclose(maths.value_loss(new, old, ret, None), torch.tensor(0.5))
    # Clipped prediction 0.5: error 2.5^2 > 1^2, so the pessimistic value is taken.
    assert torch.isclose(maths.value_loss(new, old, ret, 0.5), torch.tensor(0.5 * 6.25))


def test_approx_kl_and_clip_fraction():
    logratio = torch.tensor([0.0, 0.0])
    old, new = maths.approx_kl(logratio)
    assert old == 0 and new == 0
    logratio = torch.log(torch.tensor([2.0, 0.5]))
    _, kl = maths.approx_kl(logratio)
    assert kl > 0
    assert torch.isclose(kl, ((torch.exp(logratio) - 1) - logratio).mean())
    assert maths.clip_fraction(torch.tensor([1.0, 1.3, 0.7, 1.1]), 0.2) == 0.5


def test_explained_variance():
    y = np.array([1.0, 2.0, 3.0])
    assert maths.explained_variance(y, y) == 1.0
    assert np.isnan(maths.explained_variance(y, np.ones(3)))
