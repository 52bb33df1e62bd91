"""The environments: the engine (`Episode`) and its API forms.

Owns the episode, the only owner of the step (`episode`), what the forms share
(`facade`), the PettingZoo parallel (`parallel`) and AEC (`aec`) forms, the Gymnasium
single-agent form (`gym_env`), the `ansi` dashboard (`render`) and the factory functions
and Gymnasium ids (`registration`); `swarm-envs replay`, which summarises what an episode
recorded (`cli_replay`).

May import: `swarm_envs.core`, `swarm_envs.tasks`, `swarm_envs.sandboxes`,
`swarm_envs.scoring`, `swarm_envs.generation`, `swarm_envs.cache`, `swarm_envs.error` (and
its command, `swarm_envs.arguments`). Inside: `episode` below `render` below `facade` below
the forms below `registration` below `cli_replay`.
"""
