"""The typed error tree of swarm-envs.

Programmer mistakes (a bad configuration, an unknown task, a broken manifest) are
exceptions from this tree. Agent mistakes (a malformed action, a path outside the
workspace) are never exceptions: they become error observations.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import gymnasium.error


class Error(Exception):
    """Base class of every error raised by swarm-envs."""


class ConfigError(Error, ValueError):
    """An invalid environment configuration: names the field and the allowed values."""


class TaskError(Error):
    """A task cannot be found or loaded."""


class UnknownTask(TaskError, KeyError):
    """No registered task has this name; suggests the closest names."""

    def __init__(self, name: str, known: Iterable[str]):
        known = sorted(set(known))
        hint = close_matches(name, known)
        msg = f"unknown task {name!r}"
        if hint:
            msg += f"; did you mean: {', '.join(hint)}?"
        msg += f" (run `swarm-envs list` to see all {len(known)} tasks)"
        TaskError.__init__(self, msg)
        self.name = name

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class VersionNotFound(UnknownTask):
    """The task exists, but not in this version; lists the versions that do."""

    def __init__(self, name: str, version: int, versions: Iterable[int]):
        listed = ", ".join(f"{name}-v{v}" for v in sorted(versions))
        TaskError.__init__(
            self,
            f"task {name!r} has no version {version}; it has {listed} "
            f"(or use {name!r} for the latest)",
        )
        self.name = name
        self.version = version


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


class SpaceError(Error, ValueError):
    """A value does not fit a space's batched or shared-memory form (vector environments)."""


class ScoringError(Error):
    """The scorer itself failed: the step has no verdict (never a silent zero)."""


class ResetNeeded(Error, gymnasium.error.ResetNeeded):
    """`step()` before the first `reset()`, or after the episode ended (every API form)."""


class ClosedEnvironment(Error, gymnasium.error.ClosedEnvironmentError):
    """`step()` after `close()`: the sandbox is gone; `reset()` starts a new episode."""


class RecordingError(Error):
    """A file is not a swarm-envs recording (names the file and the line)."""


class ActionError(Error):
    """An agent's action is invalid. Caught by the environment and turned into an observation.

    Attributes:
        usage: what the action cost, as far as parsing got (a trusted caller's report,
            floored at the estimate), or `None` for the estimate: invalid actions cost too.
        chars: the length of its visible text, for the estimate.
    """

    usage: object = None
    chars: int = 0


def close_matches(word: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to `word` (for "did you mean ...?"), best first."""
    return difflib.get_close_matches(word, list(known), n=n, cutoff=0.6)


class _Invalid(Protocol):
    def errors(self) -> Sequence[Mapping[str, Any]]: ...


def describe_invalid(
    error: _Invalid,
    *,
    noun: str = "field",
    show_values: bool = True,
    allowed: Mapping[str, Iterable[str]] | None = None,
) -> str:
    """A pydantic `ValidationError` in our words: which field, its value, what was wrong.

    The one formatter behind configuration, manifest and action errors.

    Args:
        error: the `ValidationError`.
        noun: what a field is called for the reader ("option", "argument", "field").
        show_values: include the offending value (off where values can be huge).
        allowed: the known field names per parent location ("" for the top level), listed
            when a field is unknown.

    Returns:
        The problems, separated by "; ".
    """
    problems = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"])
        kind = err["type"]
        msg = err["msg"]
        if kind == "value_error":  # our validators' own words, without pydantic's prefix
            msg = str(err.get("ctx", {}).get("error", msg))
        if not field:  # the whole object (a model validator, or not an object at all)
            problems.append(msg)
        elif kind == "missing":
            problems.append(f"missing {noun} {field!r}")
        elif kind == "extra_forbidden":
            known = (allowed or {}).get(field.rpartition(".")[0])
            hint = f"; allowed: {sorted(known)}" if known is not None else ""
            problems.append(f"unknown {noun} {field!r}{hint}")
        else:
            value = f" = {_short_repr(err['input'])}" if show_values and "input" in err else ""
            problems.append(f"{noun} {field!r}{value}: {msg}")
    return "; ".join(problems)


def _short_repr(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class TrainingDiverged(Error, FloatingPointError):
    """A trainer's loss, gradient or policy output became NaN or infinite.

    Training stops there; the last good checkpoint is kept (never overwritten by the
    diverged state), and the message names the update and that checkpoint.
    """


class AgentError(Error):
    """An agent could not produce an action (say, its model server failed after retries).

    The rollout runner records it and ends that agent's episode as `agent_error`; the
    rest of the swarm goes on.
    """


class SessionError(Error):
    """A served session refused a request or was lost (`swarm_envs.serve`).

    The message says why (no reset yet, an unknown agent, a session closed after its idle
    timeout, a server that went away) and what to do: the session's episode is unchanged
    by a refused request.
    """
