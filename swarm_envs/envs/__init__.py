"""The environments: the engine (`Episode`), its reward book, and its API forms.

Owns the episode, the only owner of the step (`episode`), the reward's bookkeeping that
the episode feeds and asks (`book`: the counts, rescoring, the true start, the all-pass
confirmation, the final recount, attribution, integrity findings), what the forms share
(`facade`), the PettingZoo parallel (`parallel`) and AEC (`aec`) forms, the Gymnasium
single-agent form (`gym_env`), the `ansi` dashboard (`render`) and the factory functions
and Gymnasium ids (`registration`), and `swarm-envs replay`, which summarises what an
episode recorded (`cli_replay`). Callers outside read a frozen `EpisodeView`
(`env.view()`, from `swarm_envs.core.outcome`); only this package imports `episode` and
`book`.

May import: `swarm_envs.core`, `swarm_envs.tasks`, `swarm_envs.sandboxes`,
`swarm_envs.scoring`, `swarm_envs.generation`, `swarm_envs.cache`, `swarm_envs.error` (and
its command, `swarm_envs.arguments`). Inside: `book` below `episode` below `render` below
`facade` below the forms below `menu` below `registration` below `cli_replay`.
"""
