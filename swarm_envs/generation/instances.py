"""Task distributions: an environment over many task instances draws one per episode.

`parallel_env("jsonkit", instances={"kind": "bug", "k": 2})` trains on generated
instances of a task (K units stubbed out or K detected bugs, `swarm_envs.generation.generators`),
`instances=["calc", "jsonkit-v0", "path/to/task"]` on a fixed list of tasks. Each
`reset(seed=s)` draws the episode's task from a generator seeded by `s`, so the same seed
gives the same instance (and, the sandbox being seeded too, the same episode);
`reset()` without a seed draws the next one.

Generated instances are written to a folder of this process (vector-env workers write
their own, so they never race on one folder) and reused within it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from swarm_envs.error import ConfigError, TaskError, describe_invalid
from swarm_envs.generation import generators
from swarm_envs.tasks import TASKS_ENV, Task, get_task


class InstanceSpec(BaseModel):
    """Generated instances of a task (`instances={"kind": ..., "k": ...}`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["stub", "bug"] = Field(description="units stubbed out, or bugs injected")
    k: int = Field(ge=1, description="units to stub or break in each instance")
    count: int | None = Field(
        default=None,
        ge=1,
        description="draw from instance seeds 0..count-1 (a fixed pool); None: any seed",
    )


_folder: Path | None = None


def _keep_local(task: Task) -> Task:
    """Take a generated instance out of `$SWARM_ENVS_TASKS` (it stays registered here).

    `generators.generate` registers what it writes, which also names the folder in the
    variable that passes task folders to child processes. A distribution's workers make
    their own instances, and a long run draws thousands: the variable would outgrow what
    `exec` accepts (128 KiB a string) and every child process would fail to start.
    """
    known = os.environ.get(TASKS_ENV, "").split(os.pathsep)
    kept = [p for p in known if p and Path(p).resolve() != task.root]
    if kept:
        os.environ[TASKS_ENV] = os.pathsep.join(kept)
    else:
        os.environ.pop(TASKS_ENV, None)
    return task


def _instances_folder() -> Path:
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="swarm-envs-instances-"))
        atexit.register(shutil.rmtree, _folder, ignore_errors=True)
    return _folder


class TaskDistribution:
    """Where the task of each episode comes from: generated instances, or a list of tasks.

    Pickles as what it was built from (its generated instances stay in this process).
    """

    def __init__(self, base: Task, instances: Mapping[str, Any] | Sequence[str | Path | Task]):
        self.base = base
        self.instances = instances
        self.spec: InstanceSpec | None = None
        self.tasks: list[Task] = []
        if isinstance(instances, Mapping):
            try:
                self.spec = InstanceSpec.model_validate(dict(instances))
            except ValidationError as e:
                raise ConfigError(f"instances: {describe_invalid(e)}") from None
            if self.spec.k > len(base.units):
                raise ConfigError(
                    f"instances: k={self.spec.k}, but {base.id} has {len(base.units)} units"
                )
        elif isinstance(instances, Sequence) and not isinstance(instances, str) and instances:
            for i, t in enumerate(instances):
                try:
                    self.tasks.append(get_task(t))
                except TaskError as e:
                    raise ConfigError(f"instances[{i}]: {e}") from None
        else:
            raise ConfigError(
                f"instances={instances!r}: expected {{'kind': 'stub' | 'bug', 'k': K}} or a "
                "non-empty list of tasks (ids, names, folders)"
            )
        self._made: dict[int, Task] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (TaskDistribution, (self.base, self.instances))

    def draw(self, rng: np.random.Generator) -> Task:
        """The task of the next episode, drawn with `rng`."""
        if self.spec is None:
            return self.tasks[int(rng.integers(len(self.tasks)))]
        seed = int(rng.integers(self.spec.count if self.spec.count else 2**31))
        if seed not in self._made:
            kind, k = self.spec.kind, self.spec.k
            dest = _instances_folder() / generators.instance_name(self.base, kind, k, seed)
            try:
                self._made[seed] = _keep_local(generators.generate(self.base, kind, k, seed, dest))
            except ValueError as e:  # say, too few units with detectable bugs
                raise ConfigError(f"instances={self.instances!r}: {e}") from None
        return self._made[seed]
