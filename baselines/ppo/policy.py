"""The shared policy of menu mode: one actor-critic network that serves every agent.

Agents are flattened onto the batch axis, as in CleanRL's multi-agent PPO: the
network never knows which agent it acts for, only what that agent observes. The
interface (`act`, `value`) is what the trainer needs from any policy, so a
language-model policy can take its place.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from swarm_envs.baselines.ppo.maths import masked_categorical


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights and constant biases, PPO's usual initialisation."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class MenuPolicy(nn.Module):
    """Separate actor and critic MLPs over the menu observation."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int = 128):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """`[B]` state values."""
        return self.critic(obs).squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, its log-probability, the entropy, the value); samples when `action` is None."""
        dist = masked_categorical(self.actor(obs), mask)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)
