"""Shared-policy PPO for swarms (CleanRL style): `swarm-envs train`, or `train(Args(...))`.

- `trainer.py`: the arguments and the training loop, read top to bottom;
- `rollout.py`: whole rollouts of menu-mode swarms as semi-MDP decision sequences;
- `maths.py`: GAE, the clipped losses, approximate KL and masking, as pure functions;
- `policy.py`: the shared actor-critic network.

Needs the `train` extra (`pip install 'swarm-envs[train]'`).
"""

from swarm_envs.baselines.ppo.trainer import (
    Args,
    Summary,
    TrainingDiverged,
    evaluate,
    load_config,
    main,
    train,
)

__all__ = ["Args", "Summary", "TrainingDiverged", "evaluate", "load_config", "main", "train"]
