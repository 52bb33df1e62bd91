"""Adapters to other libraries' training interfaces, in the trainer's own process.

- `swarm_envs.integrations.trl`: `SwarmRollout`, a `rollout_func` for TRL's
  `GRPOTrainer` (extra `trl`).

Where `swarm_envs.serve` makes episodes reachable from another process, these adapters
run the environment inside the trainer (through `swarm_envs.parallel_env`), so that the
token ids and log-probabilities of every action come from the trainer's own generation.
Layer: above the environment's public API and the agents, beside the serving layer.
"""
