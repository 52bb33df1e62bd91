"""A task's environment: the third-party packages its project and tests import.

A task lists them in its manifest as exact pins (`requires = ["freezegun==1.5.1", ...]`,
the whole closure; `make-task` records them). `ensure_environment` installs them with pip,
once, into a folder of the user cache keyed by the pins and this Python, from the task's
own `wheels/` folder when it ships one (no index needed) or else from the package index.
That happens on first use (validation, `make-task`, the first scorer of a task), never
inside a scoring run. The scorer copies the folder into the sandbox's private scoring area,
where the code under test can read it but not change it, ahead of the installed packages on
`sys.path`; agents' own commands do not see it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from swarm_envs import cache
from swarm_envs.error import RequirementsError

logger = logging.getLogger("swarm_envs")

#: the folder of a task that may hold the wheels of its requirements
WHEELS = "wheels"
_lock = threading.Lock()


def environment_key(requires: Sequence[str], wheels: Path | None) -> str:
    """A digest of what the environment holds: the pins, this Python and the wheels."""
    h = hashlib.blake2b(digest_size=10)
    h.update(f"{sys.implementation.cache_tag}\0{sys.platform}\0".encode())
    for r in sorted(requires):
        h.update(r.encode() + b"\0")
    if wheels is not None and wheels.is_dir():
        for w in sorted(wheels.glob("*.whl")):
            h.update(w.name.encode() + b"\0" + hashlib.blake2b(w.read_bytes()).digest())
    return h.hexdigest()


def ensure_environment(
    requires: Sequence[str], wheels: Path | None = None, *, root: Path | None = None
) -> Path | None:
    """The folder holding `requires` installed (None when there are none), installing once.

    Args:
        requires: exact requirement pins of every distribution needed (dependencies
            included: pip installs them with `--no-deps`).
        wheels: a folder of wheels to install from instead of the package index.
        root: where environments live (default: the `environments` cache of `swarm_envs.cache`).

    Raises:
        RequirementsError: pip is missing or the installation failed (with pip's reason).
    """
    if not requires:
        return None
    wheels = wheels if wheels is not None and wheels.is_dir() else None
    root = root or cache.folder("environments")
    dest = root / environment_key(requires, wheels)
    if dest.is_dir():
        return dest
    with _lock:
        if dest.is_dir():
            return dest
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".install-", dir=root))
        try:
            _pip_install(list(requires), wheels, tmp)
            try:
                os.replace(tmp, dest)  # atomic: another process may have won the race
            except OSError:
                if not dest.is_dir():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    logger.info("installed %s into %s", ", ".join(requires), dest)
    return dest


def pip(command: str, args: list[str], *, what: str, hint: str, find_links: Path | None) -> None:
    """Run `python -m pip COMMAND ARGS` quietly, from `find_links` only when given.

    Raises:
        RequirementsError: pip cannot run or fails: `what` failed, pip's last lines, `hint`.
    """
    argv = [sys.executable, "-m", "pip", command, "--quiet", "--disable-pip-version-check"]
    argv += ["--no-input", *args]
    if find_links is not None:
        argv += ["--no-index", "--find-links", str(find_links)]
    where = f"the wheels in {find_links}" if find_links else "the package index"
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RequirementsError(f"{what} from {where}: cannot run pip ({e})") from None
    if r.returncode != 0:
        tail = "\n".join((r.stderr or r.stdout).strip().splitlines()[-6:])
        raise RequirementsError(f"{what} from {where} failed:\n{tail}\n{hint}")


def _pip_install(requires: list[str], wheels: Path | None, target: Path) -> None:
    pip(
        "install",
        ["--no-deps", "--no-compile", "--target", str(target), *requires],
        what=f"installing the task's requirements {requires}",
        hint="Check the `requires` pins of the manifest (or add their wheels to the task's "
        f"{WHEELS}/ folder).",
        find_links=wheels,
    )


def distribution_metadata(distribution: str, top_level: Sequence[str]) -> dict[str, bytes]:
    """The `.dist-info` of a project installed from its workspace: {relative path: content}.

    `distribution` is `name==version`. `importlib.metadata.version(name)` and
    `distribution(name)` find it; the code itself is the workspace's, so no RECORD.
    """
    name, _, version = distribution.partition("==")
    folder = f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    return {
        f"{folder}/METADATA": meta.encode(),
        f"{folder}/INSTALLER": b"swarm-envs\n",
        f"{folder}/top_level.txt": "".join(f"{n}\n" for n in top_level).encode(),
    }


_read: dict[Path, dict[str, bytes]] = {}


def read_environment(path: Path | None) -> dict[str, bytes]:
    """{relative path: content} of an installed environment (bytecode and caches left out).

    An environment never changes once installed: it is read once per process.
    """
    if path is None:
        return {}
    hit = _read.get(path)
    if hit is None:
        hit = {}
        for p in sorted(path.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                hit[p.relative_to(path).as_posix()] = p.read_bytes()
        _read[path] = hit
    return hit
