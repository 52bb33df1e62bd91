"""Which third-party distributions a project needs, pinned, with their wheels and plugins.

What the project declares (`swarm_envs.project.declared`: its runtime requirements and its
test extras) is resolved by `pip wheel` into the task's `wheels/` folder, dependencies
included; the pins (`name==version`, from the wheels) go into the manifest, so that the
task's environment can be installed later without an index. Top-level names the tests (and
the project modules they reach) import unconditionally that no fetched wheel provides are
mapped to distributions through this Python's installed packages.

pytest plugins among the declared distributions (their `pytest11` entry points) are named
in the manifest (`[tests] plugins`) and enabled explicitly with `-p` by the scorer, which
never autoloads plugins; plugins that change how tests run or are reported are tooling
(`declared.TOOLING`) and never fetched.
"""

from __future__ import annotations

import configparser
import importlib.metadata
import re
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from packaging.requirements import InvalidRequirement, Requirement

from swarm_envs.error import RequirementsError
from swarm_envs.project.declared import Declared, is_tooling, normal
from swarm_envs.project.layout import Note
from swarm_envs.scoring.harness_env import pinned_pytest
from swarm_envs.tasks.environment import pip

_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")
#: the scorer's own pytest and what it needs: never installed into a task's environment
SCORER_OWN = frozenset({"pytest", "pluggy", "iniconfig", "py"})


@dataclass
class Resolved:
    """The requirements of a task, resolved."""

    pins: list[str] = field(default_factory=list)  # exact pins of the whole closure
    plugins: list[str] = field(default_factory=list)  # pytest11 entry point names to enable
    provides: set[str] = field(default_factory=set)  # top-level import names of the wheels


def _names_of(specs: Iterable[str]) -> set[str]:
    out = set()
    for s in specs:
        try:
            out.add(normal(Requirement(s).name))
        except InvalidRequirement:
            continue
    return out


def distributions_for(
    imports: Iterable[str], declared: Iterable[str], notes: list[Note]
) -> list[str]:
    """Requirement specifiers for the import names (`freezegun` -> `freezegun==1.5.1`).

    Raises:
        RequirementsError: a name that is neither installed here nor declared.
    """
    installed = importlib.metadata.packages_distributions()
    declared_by_norm = {normal(d): d for d in declared}
    specs: list[str] = []
    missing = []
    for name in sorted(imports):
        dists = installed.get(name)
        if dists:
            dist = dists[0]
            version = importlib.metadata.version(dist)
            specs.append(f"{dist}=={version}")
            notes.append(Note("kept", f"requirement {dist}=={version}", f"the tests import {name}"))
        elif normal(name) in declared_by_norm:
            specs.append(declared_by_norm[normal(name)])
            notes.append(Note("kept", f"requirement {specs[-1]}", f"the tests import {name}"))
        else:
            missing.append(name)
    if missing:
        raise RequirementsError(
            f"the tests import {', '.join(missing)}, which is neither installed in this Python "
            "nor declared by the project; install it here or name its distribution with "
            "--requires (for example --requires python-dateutil)"
        )
    return specs


def resolve(
    declaration: Declared,
    imports: set[str],
    requires: Sequence[str],
    wheels: Path,
    find_links: Path | None,
    notes: list[Note],
    *,
    strict: bool = True,
    uses: frozenset[str] = frozenset(),
) -> Resolved:
    """Fetch the wheels of what the project needs into `wheels`; pins and plugins.

    Args:
        declaration: what the project declares.
        imports: third-party top-level names its tests and code import for sure.
        requires: requirement specifiers given by the user (`--requires`).
        wheels: the task's wheel folder.
        find_links: a folder of wheels to take them from instead of the package index.
        notes: what was done is appended here.
        strict: an import that nothing provides is an error (else a warning: the test
            files that need it will not collect).
        uses: markers and fixture names the tests use that the suite does not define: a
            declared test tool that defines one (`declared.TOOLING`) is fetched and enabled.
            Requirements named in `requires` are enabled whatever they are.

    Raises:
        RequirementsError: they cannot be fetched (pip's reason), or an import is provided
            by nothing (named, with the fix).
    """
    declared = [
        s for s in declaration.requirements() if normal(Requirement(s).name) not in SCORER_OWN
    ]
    # Test tools the tests need: a declared plugin defining a marker or fixture they use
    # (a benchmark plugin's `benchmark`, pytest-timeout's `timeout` under --strict-markers).
    needed = _tools_the_tests_use(declaration, uses, find_links, notes) if uses else []
    requires = [*requires, *needed]
    asked = _names_of(requires)
    direct = _names_of([*requires, *declared])
    specs = [
        *requires,
        *(s for s in declared if normal(Requirement(s).name) not in _names_of(requires)),
    ]
    out = Resolved()
    if specs:
        try:
            specs = _fetch_for_scorer(specs, wheels, find_links, notes)
        except RequirementsError as e:
            # A test extra that cannot be had here (a platform, a compiler) need not stop
            # the task: its runtime requirements and what the tests import may be enough.
            fallback = [*requires, *declaration.runtime]
            if fallback == specs:
                raise
            notes.append(
                Note("warning", "the declared test requirements", f"cannot be fetched: {e}")
            )
            for w in wheels.glob("*.whl"):
                w.unlink()
            specs = fallback
            direct = _names_of(specs)
            if specs:
                fetch_wheels(specs, wheels, find_links)
    out.provides = _provided(wheels)
    missing = {n for n in imports if n not in out.provides}
    if missing and not strict:
        installed = importlib.metadata.packages_distributions()
        unknown = sorted(n for n in missing if n not in installed)
        if unknown:
            notes.append(
                Note(
                    "warning",
                    f"the tests import {', '.join(unknown)}",
                    "neither declared nor installed here: the test files that need it will "
                    "not collect",
                )
            )
        missing -= set(unknown)
    if missing:
        extra = distributions_for(missing, declaration.names, notes)
        extra = [s for s in extra if normal(Requirement(s).name) not in _names_of(specs)]
        if extra:
            fetch_wheels([*specs, *extra], wheels, find_links)
            direct |= _names_of(extra)
            out.provides = _provided(wheels)
    for w in sorted(wheels.glob("*.whl")):
        m = _WHEEL.match(w.name)
        if m is None:
            continue
        name = normal(m.group("name"))
        if name in SCORER_OWN:
            w.unlink()  # the scorer's pytest is the one that runs
            notes.append(Note("dropped", f"wheel {w.name}", "the scorer brings its own pytest"))
            continue
        out.pins.append(f"{m.group('name')}=={m.group('version')}")
        if name in direct and (not is_tooling(name) or name in asked):
            for ep in _pytest_plugins(w):
                out.plugins.append(ep)
                notes.append(
                    Note("kept", f"pytest plugin {ep} ({name})", "enabled with -p for scoring")
                )
    if out.pins:
        notes.append(Note("kept", "wheels/", ", ".join(out.pins)))
    return out


def _fetch_for_scorer(
    specs: list[str], wheels: Path, find_links: Path | None, notes: list[Note]
) -> list[str]:
    """`fetch_wheels(specs)`, taking a pinned pytest plugin's newest working version if need be.

    Returns the specifiers fetched: where a pinned plugin does not work with the scorer's
    pytest, its name without the pin.

    A project pins its plugins for the pytest it was tested with (`pytest-asyncio==0.24.0`
    for pytest 8); the scorer's pytest may be newer, and an old plugin reaches into pytest's
    internals (its tests then do not even collect).
    """
    try:
        fetch_wheels(specs, wheels, find_links)
        return specs
    except RequirementsError:
        pinned = [s for s in specs if _is_plugin_name(s) and _exact_pin(s)]
        if not pinned:
            raise
    relaxed = [Requirement(s).name if s in pinned else s for s in specs]
    fetch_wheels(relaxed, wheels, find_links)
    taken = {normal(m.group("name")): m.group("version") for m in _wheels_in(wheels)}
    for s in pinned:
        name = Requirement(s).name
        notes.append(
            Note(
                "warning",
                f"requirement {s}",
                f"does not work with the scorer's {_scorer_pytest()}; took {name}=="
                f"{taken.get(normal(name), '?')}, its newest version that does",
            )
        )
    return relaxed


def _is_plugin_name(spec: str) -> bool:
    return normal(Requirement(spec).name).startswith("pytest-")


def _exact_pin(spec: str) -> bool:
    return any(c.operator in ("==", "===") for c in Requirement(spec).specifier)


def _scorer_pytest() -> str:
    """The pytest the scorer runs tests with: its private harness's, whatever is installed."""
    return pinned_pytest()


def _wheels_in(wheels: Path) -> list[re.Match[str]]:
    return [m for w in sorted(wheels.glob("*.whl")) if (m := _WHEEL.match(w.name))]


def fetch_wheels(specs: list[str], wheels: Path, find_links: Path | None = None) -> list[str]:
    """Put the wheels of `specs` and their dependencies into `wheels`; returns exact pins.

    What they need of pytest must be the scorer's own pytest (a constraint of the
    resolution: pytest itself is never installed into a task's environment).

    Args:
        specs: requirement specifiers.
        wheels: the task's wheel folder.
        find_links: a folder of wheels to take them from instead of the package index.

    Raises:
        RequirementsError: pip could not find or build them (pip's reason included).
    """
    wheels.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="swarm-envs-pip-") as tmp:
        constraints = Path(tmp) / "constraints.txt"
        constraints.write_text(_scorer_pytest() + "\n")
        pip(
            "wheel",
            ["--wheel-dir", str(wheels), "--constraint", str(constraints), *specs],
            what=f"fetching the wheels of {specs}",
            hint="Without an index, give a folder of wheels with --wheels.",
            find_links=find_links,
        )
    return [f"{m.group('name')}=={m.group('version')}" for m in _wheels_in(wheels)]


def _members(wheel: Path) -> list[str]:
    try:
        with zipfile.ZipFile(wheel) as z:
            return z.namelist()
    except (OSError, zipfile.BadZipFile):
        return []


def _provided(wheels: Path) -> set[str]:
    """Top-level import names that the wheels in `wheels` install."""
    out = set()
    for w in wheels.glob("*.whl"):
        for rel in _members(w):
            head = PurePosixPath(rel).parts[0]
            if head.endswith((".dist-info", ".data")):
                continue
            out.add(head.removesuffix(".py").split(".")[0])
    return out


def _pytest_plugins(wheel: Path) -> list[str]:
    """Names of the `pytest11` entry points of a wheel."""
    try:
        with zipfile.ZipFile(wheel) as z:
            name = next(
                (n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")), None
            )
            if name is None:
                return []
            text = z.read(name).decode("utf-8", errors="replace")
    except (OSError, zipfile.BadZipFile, KeyError):
        return []
    cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        cp.read_string(text)
    except configparser.Error:
        return []
    return sorted(cp.options("pytest11")) if cp.has_section("pytest11") else []


_PROVIDES = re.compile(
    r"""addinivalue_line\(\s*["']markers["']\s*,\s*["'](?P<marker>\w+)"""
    r"""|@pytest\.fixture[^\n]*\n(?:\s*@[^\n]*\n)*\s*def\s+(?P<fixture>\w+)"""
)


def provided_names(wheel: Path) -> set[str]:
    """Markers a pytest plugin's wheel registers and fixtures it defines (read, not run)."""
    out: set[str] = set()
    try:
        with zipfile.ZipFile(wheel) as z:
            for member in z.namelist():
                if member.endswith(".py"):
                    text = z.read(member).decode("utf-8", "replace")
                    for m in _PROVIDES.finditer(text):
                        out.add(m.group("marker") or m.group("fixture"))
    except (OSError, zipfile.BadZipFile):
        return set()
    return out


def _tools_the_tests_use(
    declaration: Declared, uses: frozenset[str], find_links: Path | None, notes: list[Note]
) -> list[str]:
    """The declared test tools that are pytest plugins defining a name the tests use."""
    out: list[str] = []
    for spec in declaration.tooling:
        try:
            name = normal(Requirement(spec).name)
        except InvalidRequirement:
            continue
        if not name.startswith("pytest-") or name in SCORER_OWN:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                fetch_wheels([spec], Path(tmp), find_links)
            except RequirementsError:
                continue
            for w in Path(tmp).glob("*.whl"):
                m = _WHEEL.match(w.name)
                if m is None or normal(m.group("name")) != name or not _pytest_plugins(w):
                    continue
                used = sorted(provided_names(w) & uses)
                if used:
                    out.append(spec)
                    notes.append(
                        Note(
                            "kept",
                            f"the test tool {spec}",
                            f"the tests use its {', '.join(used[:3])}: installed and enabled",
                        )
                    )
    return out
