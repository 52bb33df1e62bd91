"""Shared-policy PPO for swarms (CleanRL style): `swarm-envs train`, or `train(Args(...))`.

- `trainer.py`: the arguments and the training loop, read top to bottom;
- `checks.py`: what a configuration (and a checkpoint to resume) must satisfy;
- `envs.py`: an update's swarms: tasks dealt in turn, the size curriculum, episode seeds;
- `rollout.py`: whole rollouts of menu-mode swarms as semi-MDP decision sequences;
- `maths.py`: GAE, the clipped losses, approximate KL and masking, as pure functions;
- `policy.py`: the shared actor-critic network;
- `evaluation.py`: the held-out evaluation at other swarm sizes (`--eval-sizes`);
- `console.py`: what the command prints (progress, the final tables).

The run folder and the returned `Summary` follow `swarm_envs.baselines.outputs`, as the
language-model trainer's do. Needs the `train` extra (`pip install 'swarm-envs[train]'`).
"""

from swarm_envs.baselines.ppo.evaluation import evaluate
from swarm_envs.baselines.ppo.trainer import (
    Args,
    Summary,
    TrainingDiverged,
    load_config,
    main,
    train,
)

__all__ = ["Args", "Summary", "TrainingDiverged", "evaluate", "load_config", "main", "train"]
