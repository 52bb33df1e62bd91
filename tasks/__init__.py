"""What a task is, and where tasks are: manifests, task folders, the registry, stubbing.

Owns: the manifest model and the `Task` folder (`manifest`), lookup by name or id and the
registered folders (`registry`), pure stubbing of units (`stubbing`), and the third-party
packages a task's project needs (`environment`).

May import: `swarm_envs.error` and `swarm_envs.cache` only. Sandboxes, scoring and
everything above build on tasks; nothing here runs a project.
"""

from swarm_envs.tasks.manifest import (
    ALWAYS_PROTECTED,
    HELD_OUT_DIR,
    MANIFEST,
    NAME_PATTERN,
    PLUGIN_SETTINGS,
    PYTEST_SETTINGS,
    STRICT_ADDOPTS,
    SUITES,
    Suite,
    Task,
    TaskManifest,
    TestsSpec,
    Unit,
    load_manifest,
)
from swarm_envs.tasks.registry import (
    BUNDLED_ROOT,
    GYM_NAMESPACE,
    TASKS_ENV,
    broken,
    bundled_task,
    discover,
    get_task,
    is_task_name,
    on_register,
    register_task,
    registered,
    resolve_tasks,
    task_roots,
)

__all__ = [
    "ALWAYS_PROTECTED",
    "BUNDLED_ROOT",
    "GYM_NAMESPACE",
    "HELD_OUT_DIR",
    "MANIFEST",
    "NAME_PATTERN",
    "PLUGIN_SETTINGS",
    "PYTEST_SETTINGS",
    "STRICT_ADDOPTS",
    "SUITES",
    "TASKS_ENV",
    "Suite",
    "Task",
    "TaskManifest",
    "TestsSpec",
    "Unit",
    "broken",
    "bundled_task",
    "discover",
    "get_task",
    "is_task_name",
    "load_manifest",
    "on_register",
    "register_task",
    "registered",
    "resolve_tasks",
    "task_roots",
]
