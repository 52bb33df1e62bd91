"""Tasks: a software project with a canonical test suite, as a folder with a manifest.

A task folder holds

```
task.toml      the manifest (validated by `TaskManifest`)
README.md      the project's README, for a newcomer (copied into the workspace)
solution/      the complete reference project; agents never see it
tests/         the canonical tests; copied into the workspace read-only, scored from here
held_out/      optional (named by `[tests] held_out`): canonical tests agents never see
start/         optional: the project as agents first see it. When absent, the
               starting state is the solution with every unit stubbed out.
```

Paths in the manifest are relative to the project root (the root of `solution/`,
which is also the root of the agents' workspace).
"""

from __future__ import annotations

import fnmatch
import graphlib
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from swarm_envs.error import (
    ManifestError,
    TaskError,
    UnknownTask,
    VersionNotFound,
    describe_invalid,
)
from swarm_envs.stubbing import stub_units

logger = logging.getLogger("swarm_envs")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST = "task.toml"
#: where held-out tests appear in a scoring tree (never in the workspace)
HELD_OUT_DIR = "tests/_held_out"
_NAME = re.compile(r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$")
_PLUGIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_DISTRIBUTION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+!_-]*$")

Suite = Literal["mini", "standard", "long", "real", "real-plus", "custom"]
#: the suites, in the order they are listed: fast ones first
SUITES: tuple[str, ...] = get_args(Suite)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Unit(_Strict):
    """One unit of work: a function, method or class that an agent implements or fixes."""

    name: str = Field(description="short unique name, e.g. 'lexer.tokenize'")
    path: str = Field(description="source file relative to the project root")
    symbol: str = Field(
        description="qualified name in that file: 'func', 'Class' or 'Class.method'"
    )
    tests: list[str] = Field(
        min_length=1,
        description="test files or node-id prefixes that exercise this unit",
    )
    depends_on: list[str] = Field(default_factory=list, description="names of units needed first")


#: pytest settings a task may carry in `[tests.ini]`, and their types. None of them can make
#: a failing test pass: warning filters, markers and strictness only make runs stricter; the
#: naming patterns decide what is collected, and only canonical test files are collected.
PYTEST_SETTINGS: dict[str, type] = {
    "filterwarnings": list,
    "markers": list,
    "xfail_strict": bool,
    "python_files": list,
    "python_classes": list,
    "python_functions": list,
    "usefixtures": list,
    "norecursedirs": list,
    "empty_parameter_set_mark": str,
    "addopts": list,
}
#: the only command-line options `[tests.ini] addopts` may hold
STRICT_ADDOPTS = ("--strict-markers", "--strict-config", "--strict")


class TestsSpec(_Strict):
    """How the canonical tests run."""

    runner: Literal["pytest"] = "pytest"
    paths: list[str] = Field(default_factory=lambda: ["tests"], min_length=1)
    timeout_s: float = Field(default=120.0, gt=0, description="wall-clock limit of one full run")
    duration_s: float = Field(
        default=10.0, gt=0, description="modelled virtual duration of one full test run"
    )
    hash_seed: int | None = Field(
        default=0,
        ge=0,
        le=4294967295,
        description="PYTHONHASHSEED of every test process, so that test ids built from sets "
        "are the same in every process (None: a random seed per process)",
    )
    deselect: list[str] = Field(
        default_factory=list,
        description="node ids or prefixes left out of the canonical suite (for example tests "
        "that the reference skips or xfails on this Python)",
    )
    ini: dict[str, list[str] | bool | str] = Field(
        default_factory=dict,
        description=f"pytest settings the suite relies on; keys: {', '.join(PYTEST_SETTINGS)}",
    )

    @field_validator("ini")
    @classmethod
    def _ini(cls, v: dict[str, list[str] | bool | str]) -> dict[str, list[str] | bool | str]:
        for key, value in v.items():
            kind = PYTEST_SETTINGS.get(key)
            if kind is None:
                raise ValueError(
                    f"{key!r} is not a pytest setting a task may carry; allowed: "
                    f"{', '.join(PYTEST_SETTINGS)}"
                )
            if not isinstance(value, kind):
                raise ValueError(f"{key}: expected a {kind.__name__}, got {value!r}")
            items = value if isinstance(value, list) else [value]
            if any(isinstance(i, str) and ("\n" in i or "\r" in i) for i in items):
                raise ValueError(f"{key}: values must be single lines")
            if key == "addopts" and any(o not in STRICT_ADDOPTS for o in items):
                raise ValueError(f"addopts: only {', '.join(STRICT_ADDOPTS)} are allowed")
        return v

    held_out: list[str] = Field(
        default_factory=list,
        description="folders or files of the task (e.g. 'held_out') holding canonical tests "
        "that are never copied into the workspace: scored by the scorer only, reported apart",
    )
    plugins: list[str] = Field(
        default_factory=list,
        description="pytest plugins of the task's environment the tests need, by entry point "
        "name (enabled with `-p NAME`; plugins are never autoloaded)",
    )

    @field_validator("plugins")
    @classmethod
    def _plugins(cls, v: list[str]) -> list[str]:
        for name in v:
            if not _PLUGIN.match(name) or name.startswith("no:"):
                raise ValueError(f"{name!r}: expected a plugin's entry point name, e.g. 'mock'")
        return v


class TaskManifest(_Strict):
    """The manifest of a task (`task.toml`)."""

    name: str = Field(description="lower-case name, letters, digits, '_' and '-'")
    version: int = Field(default=0, ge=0)
    suite: Suite = "standard"
    description: str = Field(min_length=1, description="shown to the agents")
    language: Literal["python"] = "python"
    tags: list[str] = Field(default_factory=list)
    tests: TestsSpec = Field(default_factory=TestsSpec)
    protected: list[str] = Field(
        default_factory=list,
        description="extra glob patterns agents may not write (tests and test config always are)",
    )
    hidden: list[str] = Field(
        default_factory=list, description="glob patterns never copied into the workspace"
    )
    requires: list[str] = Field(
        default_factory=list,
        description="third-party distributions the project and its tests import, as exact "
        "pins of the whole closure (installed once into the task's environment)",
    )
    distribution: str | None = Field(
        default=None,
        description="the project's own distribution, `name==version`: its metadata is "
        "installed with the task's environment, so `importlib.metadata` finds the project",
    )
    units: list[Unit] = Field(default_factory=list)

    @field_validator("distribution")
    @classmethod
    def _distribution(cls, v: str | None) -> str | None:
        if v is not None and not _DISTRIBUTION.match(v):
            raise ValueError(f"{v!r}: expected `name==version`, e.g. 'mylib==1.2.0'")
        return v

    @field_validator("requires")
    @classmethod
    def _requires(cls, v: list[str]) -> list[str]:
        from packaging.requirements import InvalidRequirement, Requirement

        for r in v:
            try:
                Requirement(r)
            except InvalidRequirement as e:
                raise ValueError(f"{r!r} is not a requirement specifier: {e}") from None
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"{v!r} must be lower-case letters, digits, '_' and '-'")
        return v

    @model_validator(mode="after")
    def _units(self) -> TaskManifest:
        names = [u.name for u in self.units]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"units: duplicate unit names {dupes}")
        known = set(names)
        for u in self.units:
            missing = [d for d in u.depends_on if d not in known]
            if missing:
                raise ValueError(f"units: {u.name!r} depends on unknown units {missing}")
        _check_acyclic(self.units)
        return self


def _check_acyclic(units: list[Unit]) -> None:
    graph = {u.name: u.depends_on for u in units}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        cycle = list(reversed(e.args[1]))  # graphlib lists it against the arrows
        raise ValueError(f"units: dependency cycle {' -> '.join(cycle)}") from None


def load_manifest(path: Path) -> TaskManifest:
    """Read and validate a manifest, with errors that name the file and the field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no manifest (expected a {MANIFEST} file)") from None
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path}: not valid TOML: {e}") from None
    try:
        return TaskManifest.model_validate(data)
    except ValidationError as e:
        raise ManifestError(f"{path}: {describe_invalid(e)}") from None


# Files that steer pytest or the interpreter: never writable by agents, and never
# taken from the workspace by the scorer.
ALWAYS_PROTECTED = (
    "conftest.py",
    "**/conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    "**/*.pth",
    "pytest.py",
    "_pytest/**",
    "README.md",
    "task.toml",
)


class Task:
    """A loaded task: its manifest and where its parts live on disk."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.manifest = load_manifest(self.root / MANIFEST)
        for sub in ("solution", "tests"):
            if not (self.root / sub).is_dir():
                raise ManifestError(f"{self.root / MANIFEST}: task folder has no {sub}/ folder")
        self._check_held_out()
        for u in self.manifest.units:
            if not (self.solution_dir / u.path).is_file():
                raise ManifestError(
                    f"{self.root / MANIFEST}: units.{u.name}.path: {u.path!r} is not a file "
                    "under solution/"
                )

    def __repr__(self) -> str:
        return f"Task({self.id!r}, suite={self.manifest.suite!r}, units={len(self.units)})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # A task crosses processes as a reference: a bundled task by id (the package may
        # live elsewhere there), any other by its folder, registered again on arrival.
        return (get_task, (self.id if _is_bundled(self.root) else str(self.root) + os.sep,))

    @property
    def name(self) -> str:
        """The task's name, without version (`calc`)."""
        return self.manifest.name

    @property
    def id(self) -> str:
        """Versioned id, e.g. `calc-v0`."""
        return f"{self.manifest.name}-v{self.manifest.version}"

    @property
    def units(self) -> list[Unit]:
        """The units of work of the task."""
        return self.manifest.units

    @property
    def solution_dir(self) -> Path:
        """The reference project; agents never see it."""
        return self.root / "solution"

    @property
    def tests_dir(self) -> Path:
        """The canonical tests; the scorer reads them from here, never from the workspace."""
        return self.root / "tests"

    @property
    def start_dir(self) -> Path | None:
        """The task's own starting state, if it has one (else the stubbed solution)."""
        d = self.root / "start"
        return d if d.is_dir() else None

    def test_files(self) -> Iterator[tuple[str, Path]]:
        """(relative path in the workspace, canonical file) of every file of the test suite."""
        for p in sorted(self.tests_dir.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                yield "tests/" + p.relative_to(self.tests_dir).as_posix(), p

    def held_out_files(self) -> Iterator[tuple[str, Path]]:
        """(path in a scoring tree, file) of every held-out test file (`tests/_held_out/...`).

        They are never copied into the workspace; only the scorer runs them.
        """
        for entry in self.manifest.tests.held_out:
            base = self.root / entry
            found = [base] if base.is_file() else sorted(base.rglob("*"))
            for p in found:
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                    rel = p.relative_to(base if base.is_dir() else base.parent).as_posix()
                    yield f"{HELD_OUT_DIR}/{rel}", p

    def _check_held_out(self) -> None:
        where = f"{self.root / MANIFEST}: tests.held_out"
        for entry in self.manifest.tests.held_out:
            p = (self.root / entry).resolve()
            if not p.exists() or self.root not in p.parents:
                raise ManifestError(f"{where}: {entry!r} is not a file or folder of the task")
            if p == self.tests_dir or self.tests_dir in p.parents:
                raise ManifestError(
                    f"{where}: {entry!r} is inside tests/, which is copied into the workspace; "
                    "put held-out tests in a folder of their own, e.g. held_out/"
                )
        visible = {Path(rel).name for rel, _ in self.test_files() if rel.endswith(".py")}
        for rel, _ in self.held_out_files():
            name = Path(rel).name
            if name.startswith("test") and name in visible:
                raise ManifestError(
                    f"{where}: {rel} has the same name as a visible test file; pytest would "
                    "import one for the other: rename it"
                )

    def is_protected(self, relpath: str) -> bool:
        """True if agents may not write `relpath` (tests, test configuration, manifest globs)."""
        rel = relpath.strip("/")
        if rel == "tests" or rel.startswith("tests/"):
            return True
        return any(
            fnmatch.fnmatch(rel, pat) for pat in (*ALWAYS_PROTECTED, *self.manifest.protected)
        )

    def is_hidden(self, relpath: str) -> bool:
        """True if `relpath` is never copied into the workspace."""
        return any(fnmatch.fnmatch(relpath, pat) for pat in self.manifest.hidden)

    @cached_property
    def _start_files(self) -> dict[str, bytes]:
        if self.start_dir is not None:
            files = _read_tree(self.start_dir)
        else:
            files = stub_units(_read_tree(self.solution_dir), self.units)
        return {k: v for k, v in files.items() if not self.is_hidden(k)}

    def start_files(self) -> dict[str, bytes]:
        """The project as agents first see it, without tests: {relative path: content}."""
        return dict(self._start_files)

    def solution_files(self) -> dict[str, bytes]:
        """The reference project: {relative path: content}."""
        return _read_tree(self.solution_dir)

    def pytest_ini(self) -> bytes:
        """The ini file the scorer runs pytest with: the settings of `[tests.ini]` only."""
        ini: dict[str, list[str] | bool | str] = {"addopts": [], **self.manifest.tests.ini}
        lines = ["[pytest]"]
        for key, value in ini.items():
            if isinstance(value, bool):
                text = " true" if value else " false"
            elif key == "addopts":
                text = "".join(f" {v}" for v in value)
            elif isinstance(value, list):
                text = "".join(f"\n    {v}" for v in value)
            else:
                text = f" {value}"
            lines.append(f"{key} ={text}")
        return ("\n".join(lines) + "\n").encode()

    def environment(self) -> Path | None:
        """The folder where `requires` are installed (on first use), or None if there are none.

        Raises:
            RequirementsError: they cannot be installed.
        """
        from swarm_envs.environment import WHEELS, ensure_environment

        return ensure_environment(self.manifest.requires, self.root / WHEELS)

    def site_files(self) -> dict[str, bytes]:
        """The task's environment as files (`environment()`), with the project's metadata.

        What the scorer puts on `sys.path` after the project: the installed requirements
        and, for a task with a `distribution`, its `.dist-info` (no code: the code is the
        workspace's).

        Raises:
            RequirementsError: the requirements cannot be installed.
        """
        from swarm_envs.environment import distribution_metadata, read_environment

        files = dict(read_environment(self.environment()))
        if self.manifest.distribution:
            files.update(distribution_metadata(self.manifest.distribution, self.top_level_names()))
        return files

    @cached_property
    def _top_level_names(self) -> tuple[str, ...]:
        names = set()
        for p in self.solution_dir.iterdir():
            if p.suffix == ".py" and p.is_file():
                names.add(p.stem)
            elif p.is_dir() and p.name != "tests" and any(p.rglob("*.py")):
                names.add(p.name)
        protected = {n for n in names if self.is_protected(f"{n}.py") or n == "_pytest"}
        return tuple(sorted(n for n in names - protected if n.isidentifier()))

    def top_level_names(self) -> list[str]:
        """The import names of the project's top-level modules and packages (`['calc']`).

        While tests run, these come from the project even where a copy is installed.
        """
        return list(self._top_level_names)

    def materialize(self, dest: Path, files: dict[str, bytes] | None = None) -> None:
        """Write the starting state (or `files`), the README and the tests into `dest`."""
        dest.mkdir(parents=True, exist_ok=True)
        for rel, data in (files if files is not None else self._start_files).items():
            _write(dest / rel, data)
        readme = self.root / "README.md"
        if readme.is_file():
            _write(dest / "README.md", readme.read_bytes())
        for rel, src in self.test_files():
            _write(dest / rel, src.read_bytes())


def _read_tree(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# ---------------------------------------------------------------------------- registry

BUNDLED_ROOT = Path(__file__).resolve().parent.parent / "tasks"
_registry: dict[str, Path] = {}
_loaded: dict[str, Task] = {}


def _bundled_root() -> Path:
    try:
        import swarm_envs.tasks as pkg

        return Path(pkg.__file__).resolve().parent
    except ImportError:  # running from a source tree without install
        return BUNDLED_ROOT


def _is_bundled(root: Path) -> bool:
    return root.parent in (_bundled_root().resolve(), BUNDLED_ROOT.resolve())


_broken: dict[str, str] = {}


def discover(root: Path | None = None) -> dict[str, Path]:
    """Find task folders under `root` (default: the bundled tasks): {id: folder}.

    A folder whose manifest is invalid is skipped with a warning (and listed by
    `broken()`), so that one bad task cannot make the package unusable.
    """
    root = root or _bundled_root()
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
    roots = {_bundled_root().resolve(), BUNDLED_ROOT.resolve()}
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
    return bool(_NAME.match(name))


def bundled_task(name: str) -> str | None:
    """The id of the bundled task called `name` (any version), or None."""
    roots = {_bundled_root().resolve(), BUNDLED_ROOT.resolve()}
    for task_id, path in registered().items():
        if task_id.rsplit("-v", 1)[0] == name and Path(path).resolve().parent in roots:
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
#: folders of suites built by `swarm-envs make-suite`, os.pathsep-separated, searched besides
#: the default one (`swarm_envs.project.suite.suites_root`)
SUITES_ENV = "SWARM_ENVS_SUITES"


def _built_suites() -> dict[str, Path]:
    """The valid tasks of every suite that make-suite built (`<suite folder>/tasks/*`)."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "swarm_envs"
    folders = [p for p in os.environ.get(SUITES_ENV, "").split(os.pathsep) if p]
    found: dict[str, Path] = {}
    for folder in [*sorted((base / "suites").glob("*")), *map(Path, folders)]:
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
