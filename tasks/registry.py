"""Where tasks are: the bundled folder, registered folders, and lookup by name or id.

Task names resolve in two steps, as Gymnasium's registry does: the name (with a did-you-mean
for a near miss) and then the version (`VersionNotFound`). Folders registered in this process
reach worker processes through `$SWARM_ENVS_TASKS`.
"""

from __future__ import annotations

import contextlib
import copyreg
import logging
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from swarm_envs import cache
from swarm_envs.error import ManifestError, TaskError, UnknownTask, VersionNotFound
from swarm_envs.tasks.manifest import MANIFEST, NAME_PATTERN, SUITES, Task, load_manifest

logger = logging.getLogger("swarm_envs")

#: the bundled tasks: the folders beside this package's modules
BUNDLED_ROOT = Path(__file__).resolve().parent
_registry: dict[str, Path] = {}
_loaded: dict[str, Task] = {}


def _is_bundled(root: Path) -> bool:
    return root.resolve().parent == BUNDLED_ROOT


_broken: dict[str, str] = {}


def discover(root: Path | None = None) -> dict[str, Path]:
    """Find task folders under `root` (default: the bundled tasks): {id: folder}.

    A folder whose manifest is invalid is skipped with a warning (and listed by
    `broken()`), so that one bad task cannot make the package unusable.
    """
    root = root or BUNDLED_ROOT
    found = {}
    for manifest in sorted(root.glob(f"*/{MANIFEST}")):
        try:
            m = load_manifest(manifest)
        except ManifestError as e:
            _broken[manifest.parent.name] = str(e)
            logger.warning("skipping task %s: %s", manifest.parent.name, e)
            continue
        found[f"{m.name}-v{m.version}"] = manifest.parent
    return found


def task_roots() -> list[Path]:
    """Every task folder this process knows (bundled and registered), resolved.

    What a sandbox must hide from agents' commands: solutions and canonical tests of
    any task, not only the running one. The caller that creates a sandbox passes it.
    """
    roots = {BUNDLED_ROOT}
    roots.update(p.resolve() for p in registered().values())
    return sorted(roots)


def broken() -> dict[str, str]:
    """Task folders skipped by discovery, with the reason."""
    registered()
    return dict(_broken)


#: task folders registered in this process, os.pathsep-separated: worker processes
#: started from it (spawned vector envs, subprocesses) inherit the variable and register
#: the same folders on first use; set it to make folders known to every process
TASKS_ENV = "SWARM_ENVS_TASKS"


_listeners: list[Callable[[Task], None]] = []


def on_register(listener: Callable[[Task], None]) -> None:
    """Call `listener(task)` for every task registered from now on (Gymnasium ids)."""
    _listeners.append(listener)


def is_task_name(name: str) -> bool:
    """Whether `name` is a valid task name (lower-case letters, digits, '_' and '-')."""
    return bool(NAME_PATTERN.match(name))


def bundled_task(name: str) -> str | None:
    """The id of the bundled task called `name` (any version), or None."""
    for task_id, path in registered().items():
        if task_id.rsplit("-v", 1)[0] == name and Path(path).resolve().parent == BUNDLED_ROOT:
            return task_id
    return None


def register_task(path: Path | str) -> Task:
    """Register a task folder (bundled or your own) so that it can be made by name.

    It gets a Gymnasium id too (`swarm_envs.gym_id(task)`), and the folder is added to
    `$SWARM_ENVS_TASKS`, so that processes started from this one (the workers of a
    spawned vector environment) know the task by name as well.

    Raises:
        TaskError: the task is named like a bundled task (another folder).
    """
    task = Task(Path(path))
    taken = bundled_task(task.name)
    if taken is not None and registered()[taken].resolve() != task.root:
        raise TaskError(
            f"{task.root / MANIFEST}: the name {task.name!r} is taken by the bundled task "
            f"{taken}; give your task another name"
        )
    _registry[task.id] = task.root
    _loaded[task.id] = task
    if not _is_bundled(task.root):
        known = [p for p in os.environ.get(TASKS_ENV, "").split(os.pathsep) if p]
        if str(task.root) not in known:
            os.environ[TASKS_ENV] = os.pathsep.join([*known, str(task.root)])
    for listener in _listeners:
        listener(task)
    return task


def _inherited() -> dict[str, Path]:
    """The task folders named in `$SWARM_ENVS_TASKS` (a bad one is skipped with a warning)."""
    found = {}
    for folder in os.environ.get(TASKS_ENV, "").split(os.pathsep):
        if not folder:
            continue
        try:
            m = load_manifest(Path(folder) / MANIFEST)
        except ManifestError as e:
            logger.warning("%s: skipping task folder %s: %s", TASKS_ENV, folder, e)
            continue
        found[f"{m.name}-v{m.version}"] = Path(folder).resolve()
    return found


_discovered = False
#: folders of suites built by `swarm-envs make-suite` elsewhere than the user cache,
#: os.pathsep-separated (the cache's `suites/*` are always searched)
SUITES_ENV = "SWARM_ENVS_SUITES"


def _built_suites() -> dict[str, Path]:
    """The valid tasks of every suite that make-suite built (`<suite folder>/tasks/*`)."""
    base = cache.path("suites")
    folders: list[Path] = []
    # A cache folder this user cannot read (another user's, or a sandbox's view) holds no
    # suite for this process: never a reason for `import swarm_envs` to fail.
    with contextlib.suppress(OSError):
        folders = sorted(base.glob("*")) if base is not None and base.is_dir() else []
    folders += [Path(p) for p in os.environ.get(SUITES_ENV, "").split(os.pathsep) if p]
    found: dict[str, Path] = {}
    for folder in folders:
        with contextlib.suppress(OSError):
            if (folder / "tasks").is_dir():
                found.update(discover(folder / "tasks"))
    return found


def registered() -> dict[str, Path]:
    """All known tasks: {id: folder}. Bundled and make-suite's tasks are found on first use."""
    global _discovered
    if not _discovered:
        _discovered = True
        for task_id, path in {**discover(), **_built_suites(), **_inherited()}.items():
            _registry.setdefault(task_id, path)
    return dict(_registry)


def resolve_tasks(names: Iterable[str]) -> list[Task]:
    """The tasks that `names` (task names, ids, folders, or suites) stand for.

    A suite (`SUITES`) stands for every registered task of it, by id; each task comes
    once, in the order the names give.

    Raises:
        UnknownTask, VersionNotFound, TaskError: a name is neither a suite nor a task.
        TaskError: the names stand for no task at all (suites with nothing registered).
    """
    out: dict[str, Task] = {}
    names = list(names)
    for name in names:
        if name in SUITES:
            found = (get_task(t) for t in sorted(registered()))
            for task in sorted(found, key=lambda t: t.id):
                if task.manifest.suite == name:
                    out.setdefault(task.id, task)
        else:
            task = get_task(name)
            out.setdefault(task.id, task)
    if not out:
        raise TaskError(
            f"no task is registered in {', '.join(names)} (swarm-envs make-suite builds "
            "real-plus; swarm-envs list shows the suites)"
        )
    return list(out.values())


_ID = re.compile(r"^(?P<name>.+)-v(?P<version>\d+)$")
#: the namespace of the Gymnasium ids (`swarm/calc-v0`); a task name never contains "/"
GYM_NAMESPACE = "swarm"


def get_task(name: str | Path | Task) -> Task:
    """A task by id (`calc-v0`), by name (`calc`: the latest version), or by folder.

    The name is looked up first (with suggestions for a misspelt one), the version
    second; a string with a path separator is a folder.

    Raises:
        UnknownTask: no task has this name (the message suggests the closest names).
        VersionNotFound: the task exists, but not in this version (lists the versions).
        TaskError: a folder that does not exist or is not a task.
    """
    if isinstance(name, Task):
        return name
    if isinstance(name, str) and name.startswith(GYM_NAMESPACE + "/") and name.count("/") == 1:
        name = name.split("/", 1)[1]  # a Gymnasium id
    elif isinstance(name, Path) or (isinstance(name, str) and ("/" in name or "\\" in name)):
        return _task_folder(Path(name), str(name))
    if not isinstance(name, str):
        raise TaskError(
            f"task={name!r}: expected a task id ('calc-v0'), a name ('calc'), a folder or a Task"
        )
    known = registered()
    versions: dict[str, list[int]] = {}
    for known_id in known:
        known_name, known_version = _split_id(known_id)
        versions.setdefault(known_name, []).append(known_version)
    m = _ID.match(name)
    bare, version = (m["name"], int(m["version"])) if m else (name, None)
    if bare not in versions:
        if (Path(name) / MANIFEST).is_file():
            return _task_folder(Path(name), name)  # a task folder in the working directory
        raise UnknownTask(bare, versions)
    if version is None:
        task_id = f"{bare}-v{max(versions[bare])}"
    elif version in versions[bare]:
        task_id = f"{bare}-v{version}"
    else:
        raise VersionNotFound(bare, version, versions[bare])
    if task_id not in _loaded:
        _loaded[task_id] = Task(known[task_id])
    return _loaded[task_id]


def _split_id(task_id: str) -> tuple[str, int]:
    name, version = task_id.rsplit("-v", 1)
    return name, int(version)


def _task_folder(path: Path, given: str) -> Task:
    if not path.exists():
        raise TaskError(f"no such folder: {given!r} (a task folder holds a {MANIFEST})")
    if not path.is_dir():
        raise TaskError(f"{given!r} is not a folder (a task folder holds a {MANIFEST})")
    return register_task(path)


def _reduce_task(task: Task) -> tuple[Callable[..., Task], tuple[str]]:
    # A task crosses processes as a reference: a bundled task by id (the package may live
    # elsewhere there), any other by its folder, registered again on arrival.
    return (get_task, (task.id if _is_bundled(task.root) else str(task.root) + os.sep,))


copyreg.pickle(Task, _reduce_task)
