"""Making task instances: stub and bug generators, candidates, distributions, validation.

Owns what builds on scoring to make and check tasks: generators that turn a complete
project into instances (`generators`), every unit's candidate implementations with their
cache (`candidates`), task distributions that draw an instance per episode (`instances`),
and validation that a task is fair and deterministic (`validation`). The task commands
`swarm-envs list`, `validate` and `generate` live here (`cli_list`, `cli_validate`,
`cli_generate`).

May import: `swarm_envs.tasks`, `swarm_envs.scoring`, `swarm_envs.sandboxes` (through
scoring's runner), `swarm_envs.cache`, `swarm_envs.error` (and its commands,
`swarm_envs.arguments`). Nothing here knows an episode.
"""
