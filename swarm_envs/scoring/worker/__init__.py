"""The scoring worker: the modules that run inside the sandbox (standard library and pytest).

The host copies this package into the sandbox's private scoring area as `_swarm_worker` and
starts it with `python -I -B run.py MODE` (see `swarm_envs.scoring.channel`); the sandbox
cannot see the swarm_envs package. Only `protocol` (records, nonce framing, `RunState`) is
also imported by the host.

- `protocol`: the channel's wire format, shared by both sides.
- `main`: the entry point and its three modes (`serve`, `once`, `collect`).
- `server`: the fork server.
- `session`: one pytest session in the current process, under the guard.
- `guard`: the integrity guard (an audit hook): the channel, outcomes, tamper findings.
- `reporter`: the pytest plugin that tells the guard what pytest did.
- `hardened`: canonical test code compiled with strict comparisons and a completion marker.
- `codecache`: precompiled canonical tests and workspace modules.
"""
