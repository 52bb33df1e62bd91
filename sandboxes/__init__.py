"""Sandbox backends: where everything an agent causes to run is executed.

`make_sandbox("local")` is the embedded default (a confined child process per command, at
full confinement or refused with a `SandboxError` that says why and what fixes it; a
weaker level only when asked for by name, see `swarm_envs.sandboxes.probe`);
`make_sandbox("docker")` runs each episode in its own container (needs the `docker` extra
and a reachable engine). Both implement `Sandbox` and pass one contract test suite.

Installed as `swarm_envs.sandboxes`. Layer: above `swarm_envs.tasks`, `swarm_envs.core`,
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
    isolation: str | None = None,
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
        isolation: (local) a weaker level asked for by name, `"unshare"` or `"none"`;
            default: `SWARM_ENVS_SANDBOX_ISOLATION`, else full confinement (`"bwrap"`).
            The Docker backend has one level and takes only None.

    Raises:
        ConfigError: unknown backend or isolation name.
        BackendUnavailable: the backend cannot run here (for example, no Docker engine).
        SandboxError: the local sandbox cannot confine here at the level asked for; the
            message names what is missing, the probe that failed and the fixes.
    """
    if backend == "local":
        from swarm_envs.sandboxes.local import LocalSandbox

        return LocalSandbox(limits, hide=hide, env=env, isolation=isolation)
    if backend == "docker":
        if isolation is not None:
            raise ConfigError(
                f"isolation {isolation!r} is a level of the local sandbox; the Docker "
                "backend has one level: leave isolation unset (None)"
            )
        from swarm_envs.sandboxes.docker import DockerSandbox

        return DockerSandbox(limits, env=env)
    raise ConfigError(f"sandbox backend {backend!r} is unknown; choose one of {BACKENDS}")
