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
import re
import shlex
import sys
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from swarm_envs.error import ManifestError, describe_invalid
from swarm_envs.tasks.stubbing import stub_units

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST = "task.toml"
#: where held-out tests appear in a scoring tree (never in the workspace)
HELD_OUT_DIR = "tests/_held_out"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$")
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
#: settings a plugin defines, which a task may carry when it enables that plugin (by its
#: entry point name, `[tests] plugins`): how pytest-asyncio runs `async def` tests
PLUGIN_SETTINGS: dict[str, str] = {
    "asyncio_mode": "asyncio",
    "asyncio_default_fixture_loop_scope": "asyncio",
    "asyncio_default_test_loop_scope": "asyncio",
}
#: the only command-line options `[tests.ini] addopts` may hold
STRICT_ADDOPTS = ("--strict-markers", "--strict-config", "--strict")


def _addopt_ok(option: object) -> bool:
    """One of STRICT_ADDOPTS, or a selection: `-m EXPR` or `-k EXPR` (EXPR shell-quoted)."""
    if option in STRICT_ADDOPTS:
        return True
    if not isinstance(option, str) or not option.startswith(("-m ", "-k ")):
        return False
    try:
        return len(shlex.split(option)) == 2
    except ValueError:
        return False


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
            kind = str if key in PLUGIN_SETTINGS else PYTEST_SETTINGS.get(key)
            if kind is None:
                raise ValueError(
                    f"{key!r} is not a pytest setting a task may carry; allowed: "
                    f"{', '.join(PYTEST_SETTINGS)} (and, with their plugin enabled, "
                    f"{', '.join(PLUGIN_SETTINGS)})"
                )
            if not isinstance(value, kind):
                raise ValueError(f"{key}: expected a {kind.__name__}, got {value!r}")
            items = value if isinstance(value, list) else [value]
            if any(isinstance(i, str) and ("\n" in i or "\r" in i) for i in items):
                raise ValueError(f"{key}: values must be single lines")
            if key == "addopts" and not all(_addopt_ok(o) for o in items):
                raise ValueError(
                    f'addopts: only {", ".join(STRICT_ADDOPTS)} and a selection ("-m EXPR", '
                    '"-k EXPR", the expression quoted as a shell would) are allowed'
                )
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

    @model_validator(mode="after")
    def _plugin_settings(self) -> TestsSpec:
        for key in self.ini:
            plugin = PLUGIN_SETTINGS.get(key)
            if plugin is not None and plugin not in self.plugins:
                raise ValueError(
                    f"ini: {key} is a setting of the pytest plugin {plugin!r}; "
                    f"list that plugin in plugins to carry it"
                )
        return self


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
        if not NAME_PATTERN.match(v):
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
        from swarm_envs.tasks.environment import WHEELS, ensure_environment

        return ensure_environment(self.manifest.requires, self.root / WHEELS)

    def site_files(self) -> dict[str, bytes]:
        """The task's environment as files (`environment()`), with the project's metadata.

        What the scorer puts on `sys.path` after the project: the installed requirements
        and, for a task with a `distribution`, its `.dist-info` (no code: the code is the
        workspace's).

        Raises:
            RequirementsError: the requirements cannot be installed.
        """
        from swarm_envs.tasks.environment import distribution_metadata, read_environment

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
