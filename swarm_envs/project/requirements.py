"""Which third-party distributions a project needs, pinned, with their wheels.

The top-level names the tests (and the project modules they reach) import unconditionally
are mapped to distributions: through this Python's installed packages where they are here,
else through the requirements the project declares. `pip wheel` then fetches (or builds)
the wheels of those distributions and everything they depend on into the task's `wheels/`
folder; the pins (`name==version`, from the wheels) go into the manifest, so that the task's
environment can be installed later without an index.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable
from pathlib import Path

from swarm_envs.error import RequirementsError
from swarm_envs.project.layout import Note
from swarm_envs.task.environment import pip

_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions_for(
    imports: Iterable[str], declared: Iterable[str], notes: list[Note]
) -> list[str]:
    """Requirement specifiers for the import names (`freezegun` -> `freezegun==1.5.1`).

    Raises:
        RequirementsError: a name that is neither installed here nor declared.
    """
    installed = importlib.metadata.packages_distributions()
    declared_by_norm = {_normal(d): d for d in declared}
    specs: list[str] = []
    missing = []
    for name in sorted(imports):
        dists = installed.get(name)
        if dists:
            dist = dists[0]
            version = importlib.metadata.version(dist)
            specs.append(f"{dist}=={version}")
            notes.append(Note("kept", f"requirement {dist}=={version}", f"the tests import {name}"))
        elif _normal(name) in declared_by_norm:
            specs.append(declared_by_norm[_normal(name)])
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


def fetch_wheels(specs: list[str], wheels: Path, find_links: Path | None = None) -> list[str]:
    """Put the wheels of `specs` and their dependencies into `wheels`; returns exact pins.

    Args:
        specs: requirement specifiers.
        wheels: the task's wheel folder.
        find_links: a folder of wheels to take them from instead of the package index.

    Raises:
        RequirementsError: pip could not find or build them (pip's reason included).
    """
    wheels.mkdir(parents=True, exist_ok=True)
    pip(
        "wheel",
        ["--wheel-dir", str(wheels), *specs],
        what=f"fetching the wheels of {specs}",
        hint="Without an index, give a folder of wheels with --wheels.",
        find_links=find_links,
    )
    pins = []
    for w in sorted(wheels.glob("*.whl")):
        m = _WHEEL.match(w.name)
        if m:
            pins.append(f"{m.group('name')}=={m.group('version')}")
    return pins
