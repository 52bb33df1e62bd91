"""Sandbox backends: where everything an agent causes to run is executed.

`make_sandbox("local")` is the embedded default (a confined child process per command);
`make_sandbox("docker")` runs each episode in its own container (needs the `docker` extra
and a reachable engine). Both implement `Sandbox` and pass one contract test suite.

Installed as `swarm_envs.sandboxes`. Layer: above `swarm_envs.task`, `swarm_envs.core`,
`swarm_envs.cache` and `swarm_envs.error`, below scoring. It never reads the task registry:
the caller says what to hide.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from swarm_envs.error import ConfigError
from swarm_envs.sandboxes.base import CommandResult, Sandbox, SandboxLimits

BACKENDS = ("local", "docker")

__all__ = ["BACKENDS", "CommandResult", "Sandbox", "SandboxLimits", "make_sandbox"]


def make_sandbox(
    backend: str = "local",
    *,
    limits: SandboxLimits | None = None,
    hide: Iterable[os.PathLike[str] | str] = (),
    env: Mapping[str, str] | None = None,
) -> Sandbox:
    """Create a fresh sandbox with an empty workspace.

    Args:
        backend: `"local"` (default) or `"docker"`.
        limits: resource limits of every command (default: `SandboxLimits()`).
        hide: host paths that no process of the sandbox may see: the caller names them (a
            task's folders, with its reference solution and held-out tests), since the
            sandbox knows nothing of tasks. The Docker backend shows no host path but the
            workspace and the scoring area, so there it has nothing to mask.
        env: environment variables of every process of the sandbox, commands and test
            runs alike, on top of its fixed minimal environment (the episode's seed).

    Raises:
        ConfigError: unknown backend name.
        BackendUnavailable: the backend cannot run here (for example, no Docker engine).
    """
    if backend == "local":
        from swarm_envs.sandboxes.local import LocalSandbox

        return LocalSandbox(limits, hide=hide, env=env)
    if backend == "docker":
        from swarm_envs.sandboxes.docker import DockerSandbox

        return DockerSandbox(limits, env=env)
    raise ConfigError(f"sandbox backend {backend!r} is unknown; choose one of {BACKENDS}")
