"""Language-model policies for the swarm: token-level PPO with SAO options (extra `train`).

One causal LM (from a local folder) acts as every agent of a swarm, or one per role;
each agent's turn is generated from its own conversation, parsed into a tool call and
trained with token-level PPO on the collective test reward. See `docs/training-lm.md`.
"""
