"""The scoring worker: the modules that run inside the sandbox (standard library and pytest).

The host copies this package into the sandbox's private scoring area as `_swarm_worker` and
starts it with `python -I -B run.py MODE` (see `swarm_envs.scoring.channel`); the sandbox
cannot see the swarm_envs package. Only `protocol` (records, nonce framing, `RunState`) and
`tracker` (function naming) are also imported by the host; neither imports pytest.

- `protocol`: the channel's wire format, shared by both sides.
- `main`: the entry point and its three modes (`serve`, `once`, `collect`).
- `server`: the fork server.
- `session`: one pytest session in the current process.
- `reporter`: the pytest plugin that streams outcomes.
- `tracker`, `codecache`: dependency tracking and precompiled code.
"""
