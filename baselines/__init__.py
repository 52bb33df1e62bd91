"""Baselines: scripted swarms, the menu-mode PPO trainer and the language-model trainer.

Installed as `swarm_envs.baselines`. Owns the scripted agents with explicit coordination
strategies (`scripted`), what both trainers share about a run (`runs`), menu-mode PPO
(`ppo`) and the language-model trainer (`lm`).

Layer: above the worker pool, vector envs, agents and environments; below the bench and the
command line. Nothing in the library below imports it.
"""
