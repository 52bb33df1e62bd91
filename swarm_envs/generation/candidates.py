"""Every unit's candidate implementations, found once per task and kept on disk.

Menu mode offers them as moves, and the scripted agents apply the wrong ones as plausible
mistakes. Finding them runs each unit's tests on mutants (about a second a unit), so the
result is computed once per process and kept in the `candidates` cache
(`swarm_envs.cache`), keyed by the content of every file of the task folder, the number of
wrong candidates and the seed: an edited task is recomputed, and vector envs in other
processes find it there. A corrupt or foreign file is recomputed; a cache folder that
cannot be written costs time, nothing else.

A unit whose candidates cannot be made (no mutant its tests detect, or a unit stubbing
cannot edit) keeps what could be made and the reason is logged once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from swarm_envs import cache
from swarm_envs.error import Error
from swarm_envs.generation.generators import Candidate, candidates
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import Task

logger = logging.getLogger("swarm_envs")

#: the format of the cache files; a file of another format is recomputed
FORMAT = 3  # 3: no mutant that makes a test hang


@functools.cache
def task_candidates(
    task: Task, n_wrong: int = 3, seed: int = 0
) -> tuple[tuple[Candidate, ...], ...]:
    """The candidates of every unit of `task`, in unit order (right and wrong, shuffled)."""
    path = _path(task, n_wrong, seed)
    found = _load(path, task) if path is not None else None
    if found is not None:
        return found
    out = []
    with ProjectRunner(task) as runner:
        for unit in task.units:
            try:
                out.append(tuple(candidates(task, unit, n_wrong, seed, runner=runner)))
            except (Error, ValueError) as e:
                logger.warning("no candidates for %s of %s: %s", unit.name, task.id, e)
                out.append(())
    result = tuple(out)
    if path is not None:
        _store(path, task, result)
    return result


def wrong_candidates(
    task: Task, n_wrong: int = 2, seed: int = 0
) -> dict[str, tuple[Candidate, ...]]:
    """The wrong candidates of every unit, by unit name (from `task_candidates`)."""
    every = task_candidates(task, n_wrong, seed)
    return {
        unit.name: tuple(c for c in found if not c.correct)
        for unit, found in zip(task.units, every, strict=True)
    }


def _path(task: Task, n_wrong: int, seed: int) -> Path | None:
    folder = cache.path("candidates")
    if folder is None:
        return None
    digest = hashlib.sha256(f"{FORMAT}\0{task.id}\0{n_wrong}\0{seed}\0".encode())
    for p in sorted(task.root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            digest.update(p.relative_to(task.root).as_posix().encode() + b"\0")
            digest.update(p.read_bytes() + b"\0")
    return folder / f"{task.id}-{digest.hexdigest()[:24]}.json"


def _load(path: Path, task: Task) -> tuple[tuple[Candidate, ...], ...] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] != FORMAT or data["task"] != task.id:
            return None
        return tuple(
            tuple(
                Candidate(c["unit"], c["correct"], tuple(map(tuple, c["patches"])), c["note"])
                for c in unit
            )
            for unit in data["units"]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(path: Path, task: Task, found: tuple[tuple[Candidate, ...], ...]) -> None:
    data = {
        "format": FORMAT,
        "task": task.id,
        "units": [
            [
                {"unit": c.unit, "correct": c.correct, "patches": c.patches, "note": c.note}
                for c in unit
            ]
            for unit in found
        ],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new
    except OSError as e:
        logger.warning("cannot cache candidates at %s: %s", path, e)
