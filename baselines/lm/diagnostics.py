"""Diagnostics of the two failure modes of multi-role swarm training, and their remedies.

Shared policy (every role trains one network): a *dominant role* can take the gradient
over, and the policy drifts toward what that role does (a reviewer starts writing
implementations). Measured per role every update: its share of the tokens and of the
gradient norm, its entropy, and its KL to the initial policy.

Isolated policies (one network per role): same-role agents train one policy on each
other's correlated samples, so their mistakes add up instead of averaging out (the
*echo chamber*), and the policy can collapse. Measured per role: the agreement of the
agents' updates (mean pairwise cosine similarity of per-agent gradients) and a collapse
detector (entropy and return falling together over a window of updates).

Remedies: role-balanced loss weights (`maths.role_balanced_weights`) for a shared policy;
scaling a role's gradient by `agreement_scale` for isolated ones.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import torch


def token_shares(counts: Mapping[str, int]) -> dict[str, float]:
    """Each role's share of the generated tokens."""
    total = sum(counts.values())
    return {r: (n / total if total else 0.0) for r, n in counts.items()}


def flat_grad(loss: torch.Tensor, params: Sequence[torch.Tensor]) -> torch.Tensor:
    """The gradient of `loss` with respect to `params`, as one flat vector (no side effect)."""
    grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
    return torch.cat(
        [
            (g if g is not None else torch.zeros_like(p)).reshape(-1).float()
            for g, p in zip(grads, params, strict=True)
        ]
    )


def grad_norm_shares(grads: Mapping[str, torch.Tensor]) -> dict[str, float]:
    """Each role's share of the summed gradient norms of the roles' loss terms."""
    norms = {r: float(g.norm()) for r, g in grads.items()}
    total = sum(norms.values())
    return {r: (n / total if total > 0 else 0.0) for r, n in norms.items()}


def mean_pairwise_cosine(grads: Sequence[torch.Tensor]) -> float:
    """Mean cosine similarity over the pairs of gradient vectors (nan for fewer than 2).

    Near 1: the agents push the policy the same way (an echo chamber, when the agents'
    samples should be diverse); near 0: independent updates.
    """
    if len(grads) < 2:
        return math.nan
    g = torch.stack([x / x.norm().clamp_min(1e-12) for x in grads])
    sim = g @ g.T
    n = len(grads)
    return float((sim.sum() - sim.diagonal().sum()) / (n * (n - 1)))


def agreement_scale(num_agents: int, cosine: float) -> float:
    """Gradient scale that undoes the inflation of `num_agents` agreeing same-role agents.

    The sum of k equal-norm gradients with pairwise cosine c has norm
    `sqrt(k * (1 + (k - 1) c))` times one of them; independent ones (c = 0) give
    `sqrt(k)`. Scaling by `1 / sqrt(1 + (k - 1) max(c, 0))` makes a role's step as large
    as if its agents were independent.
    """
    if num_agents < 2 or not math.isfinite(cosine):
        return 1.0
    return 1.0 / math.sqrt(1.0 + (num_agents - 1) * max(cosine, 0.0))


class CollapseDetector:
    """Flags a role whose entropy and return fall together over `window` updates.

    Either falling alone is normal (entropy falls as a policy sharpens; return dips when
    exploring); both falling is the signature of an echo chamber's collapse. A trend is
    the least-squares slope over the window, relative to the series' mean magnitude.

    Args:
        window: updates to look back over.
        tolerance: relative fall per update below which a trend counts as falling.
    """

    def __init__(self, window: int = 8, tolerance: float = 0.01):
        if window < 3:
            raise ValueError(f"window={window}: expected >= 3 updates")
        self.window = window
        self.tolerance = tolerance
        self.history: dict[str, deque[tuple[float, float]]] = {}

    def update(self, role: str, entropy: float, episode_return: float) -> bool:
        """Record one update's entropy and mean return of `role`; True when collapsing."""
        h = self.history.setdefault(role, deque(maxlen=self.window))
        h.append((float(entropy), float(episode_return)))
        if len(h) < self.window:
            return False
        ent, ret = np.array(h).T
        return bool(_falling(ent, self.tolerance) and _falling(ret, self.tolerance))

    def state_dict(self) -> dict:
        """The window of every role, for a checkpoint."""
        return {r: list(h) for r, h in self.history.items()}

    def load_state_dict(self, state: Mapping[str, Iterable]) -> None:
        """Restore what `state_dict` saved."""
        self.history = {
            r: deque((tuple(x) for x in h), maxlen=self.window) for r, h in state.items()
        }


def _falling(series: np.ndarray, tolerance: float) -> bool:
    x = np.arange(len(series), dtype=np.float64)
    slope = np.polyfit(x, series, 1)[0]
    scale = max(float(np.mean(np.abs(series))), 1e-8)
    return bool(slope < -tolerance * scale)
