"""`make_scorer`: a scorer of a task over an episode's sandbox, by kind."""

from __future__ import annotations

from swarm_envs.error import ConfigError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.tasks import Task

from .base import Scorer
from .fast import FastScorer
from .subprocess import SubprocessScorer

SCORER_KINDS = ("fast", "subprocess")


def make_scorer(
    task: Task,
    sandbox: Sandbox,
    *,
    kind: str = "fast",
    quota: object | None = None,
    scoring: object | None = None,
    disk_cache: bool = True,
) -> Scorer:
    """A scorer of `task` over `sandbox`'s workspace.

    Args:
        task: the task whose canonical tests count.
        sandbox: the episode's sandbox (its `root` holds the agents' files).
        kind: `"fast"` (fork servers, content-hash cache, per-file selection) or
            `"subprocess"` (a fresh pytest process per evaluation).
        quota: what the workspace may hold (a `swarm_envs.core.config.WorkspaceQuota`; default:
            its defaults). Past it every test fails, and `Scorer.admit` refuses writes.
        scoring: the fast scorer's settings (`swarm_envs.core.config.ScoringSettings`:
            `keys`, `memo`; default: its defaults).
        disk_cache: False: the scorer reads and writes no cache on disk (collections,
            starting states' runs, the memo): every outcome comes from a run in this process.

    Raises:
        ConfigError: unknown `kind`.
    """
    if kind == "fast":
        return FastScorer(task, sandbox, quota=quota, settings=scoring, disk_cache=disk_cache)
    if kind == "subprocess":
        return SubprocessScorer(task, sandbox, quota=quota, disk_cache=disk_cache)
    raise ConfigError(f"scorer kind {kind!r} is unknown; choose one of {SCORER_KINDS}")
