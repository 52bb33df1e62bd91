"""The maths of PPO on a semi-MDP, as small pure functions (unit-tested one by one).

Agents of a swarm decide at different virtual times, so each agent's experience is
its own sequence of decisions. The reward of a decision is the sum of the collective
rewards from that decision until the agent's next one (`decision_rewards`); the
episode's end reaches every agent's last decision. `gae` runs over such sequences,
laid end to end: `next_values[i]` is the value after decision `i` (the next
decision's value, `V(final observation)` at a truncation, 0 at a termination; see
`rollout.bootstrap_values`) and
`continues[i]` says whether decision `i + 1` belongs to the same sequence.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.distributions import Categorical


def decision_rewards(step_rewards: np.ndarray, decided: np.ndarray) -> np.ndarray:
    """The reward of each decision of one agent in one episode.

    Args:
        step_rewards: `[T]` the collective reward of every step of the episode.
        decided: `[T]` bool, True at the steps at which this agent made a decision.

    Returns:
        `[D]` for the D decisions: the sum of `step_rewards` from each decision's
        step up to (not including) the next decision's step; the last decision
        gets every reward up to the end of the episode. Rewards before the agent's
        first decision belong to none of its decisions.
    """
    step_rewards = np.asarray(step_rewards, dtype=np.float64)
    idx = np.flatnonzero(np.asarray(decided, dtype=bool))
    if idx.size == 0:
        return np.zeros(0, dtype=np.float64)
    return np.add.reduceat(step_rewards, idx)


def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    continues: np.ndarray,
    gamma: float = 1.0,
    lam: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimation over decision sequences laid end to end.

    `delta_i = r_i + gamma * next_values_i - values_i` and
    `A_i = delta_i + gamma * lam * continues_i * A_{i+1}`. With gamma = lam = 1
    the advantage is the Monte Carlo return (plus the bootstrap value at a
    truncation) minus the value.

    Returns:
        (advantages, returns = advantages + values), float64.
    """
    r = np.asarray(rewards, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    nv = np.asarray(next_values, dtype=np.float64)
    c = np.asarray(continues, dtype=np.float64)
    delta = r + gamma * nv - v
    adv = np.zeros_like(delta)
    last = 0.0
    for i in range(len(delta) - 1, -1, -1):
        last = delta[i] + gamma * lam * c[i] * last
        adv[i] = last
    return adv, adv + v


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with invalid actions replaced by the most negative number.

    A masked action gets probability exactly 0 (its exponential underflows) and no
    gradient (its logit is a constant, not a function of the network's output).
    """
    return torch.where(mask.bool(), logits, torch.finfo(logits.dtype).min)


def masked_categorical(logits: torch.Tensor, mask: torch.Tensor) -> Categorical:
    """The action distribution over the valid actions only.

    Not validated: a diverged network's NaN must reach the trainer's finiteness checks,
    which stop training with a clear message, rather than fail inside `Categorical`.
    """
    return Categorical(logits=masked_logits(logits, mask), validate_args=False)


def policy_loss(ratio: torch.Tensor, advantages: torch.Tensor, clip: float) -> torch.Tensor:
    """PPO's clipped surrogate objective, as a loss to minimise."""
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip, 1.0 + clip)
    return torch.max(unclipped, clipped).mean()


def value_loss(
    new_values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    clip: float | None,
) -> torch.Tensor:
    """Half the squared error of the value; with `clip`, PPO's pessimistic clipped form."""
    unclipped = (new_values - returns) ** 2
    if clip is None:
        return 0.5 * unclipped.mean()
    clipped = old_values + torch.clamp(new_values - old_values, -clip, clip)
    return 0.5 * torch.max(unclipped, (clipped - returns) ** 2).mean()


def approx_kl(logratio: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(old estimator `-logratio`, low-variance `(ratio - 1) - logratio`), both means."""
    ratio = logratio.exp()
    return (-logratio).mean(), ((ratio - 1.0) - logratio).mean()


def clip_fraction(ratio: torch.Tensor, clip: float) -> torch.Tensor:
    """The fraction of ratios outside [1 - clip, 1 + clip]."""
    return ((ratio - 1.0).abs() > clip).float().mean()


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var[target - predicted] / Var[target] (NaN when the target is constant)."""
    var = float(np.var(target))
    return float("nan") if var == 0 else 1.0 - float(np.var(target - predicted)) / var
