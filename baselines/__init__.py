"""Baselines: the menu-mode PPO trainer and the language-model trainer.

Installed as `swarm_envs.baselines`. Owns what both trainers share about a run (`runs`:
options, checks, seeding, checkpoints; `outputs`: the run folder they write and the
summary they return; `remote`: episodes on workers), menu-mode PPO (`ppo`), the
language-model trainer (`lm`) and `swarm-envs train`, which hands its options to the
trainer of a policy (`cli_train`). The scripted swarms they are compared with are library
agents (`swarm_envs.agents.scripted`).

Layer: the top, beside the command line, which reaches the trainers by name only: the
trainers are applications of the library, and nothing in the library imports them (an
import contract checks it).
"""
