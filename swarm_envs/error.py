"""The typed error tree of swarm-envs.

Programmer mistakes (a bad configuration, an unknown task, a broken manifest) are
exceptions from this tree. Agent mistakes (a malformed action, a path outside the
workspace) are never exceptions: they become error observations.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class Error(Exception):
    """Base class of every error raised by swarm-envs."""


class ConfigError(Error, ValueError):
    """An invalid environment configuration: names the field and the allowed values."""


class TaskError(Error):
    """A task cannot be found or loaded."""


class UnknownTask(TaskError, KeyError):
    """No registered task has this name."""

    def __init__(self, name: str, known: Iterable[str]):
        known = sorted(known)
        hint = difflib.get_close_matches(name, known, n=3)
        msg = f"unknown task {name!r}"
        if hint:
            msg += f"; did you mean: {', '.join(hint)}?"
        msg += f" (run `swarm-envs list` to see all {len(known)} tasks)"
        super().__init__(msg)
        self.name = name

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class ManifestError(TaskError, ValueError):
    """A task manifest is invalid: names the file, the field and the problem."""


class ProjectError(TaskError, ValueError):
    """A project folder cannot be made into a task: names the file and what to change."""


class RequirementsError(TaskError):
    """A task's third-party requirements cannot be installed: says which, why and what to do."""


class InstanceError(TaskError, ValueError):
    """A task instance cannot be generated: names the argument, its value and what would work."""


class SandboxError(Error):
    """A sandbox backend cannot be created or has failed (infrastructure, not agent code)."""


class BackendUnavailable(SandboxError):
    """A sandbox backend is not usable on this machine (for example, no Docker engine)."""


class ScoringError(Error):
    """The scorer itself failed: the step has no verdict (never a silent zero)."""


class ActionError(Error):
    """An agent's action is invalid. Caught by the environment and turned into an observation."""
