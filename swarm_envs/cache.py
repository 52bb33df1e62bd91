"""Where swarm-envs keeps what it computes between runs: one folder, one owner.

Every cache of the library is a subfolder of `root()`, one per kind (`path(kind)`):

| kind | what it holds | who writes it |
| --- | --- | --- |
| `scoring` | test outcomes by content of the scored tree | `swarm_envs.scoring.disk` |
| `environments` | the pinned packages of a task's project | `swarm_envs.tasks.environment` |
| `candidates` | menu mode's candidate implementations of a task's units | `swarm_envs.envs.menu` |
| `instances` | generated task instances (stub and bug) | `swarm_envs.generation` |
| `docker` | the Docker sandbox's root filesystem and wheels | `swarm_envs.sandboxes.docker_image` |
| `suites` | what `make-suite` built: sdists, tasks, outcomes | `swarm_envs.project.suite` |

The root is `$SWARM_ENVS_CACHE` when it names a folder; else `$XDG_CACHE_HOME/swarm-envs`
when `XDG_CACHE_HOME` is an absolute path (the XDG rule: a relative or empty value is
ignored, so nothing is ever written relative to the working directory); else
`~/.cache/swarm-envs`. `SWARM_ENVS_CACHE=off` turns off the caches that only save time
(`OPTIONAL`): their `path` is None and their users compute afresh. The others hold what a run
needs, so they move to a folder of this process, removed when it exits.

Imports nothing of the package: every layer may use it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Literal, get_args

#: the variable that moves (or, with `off`, turns off) every cache
ENV_VAR = "SWARM_ENVS_CACHE"
#: the folder name under the user's cache folder
NAME = "swarm-envs"

Kind = Literal["scoring", "environments", "candidates", "instances", "docker", "suites"]
KINDS: tuple[str, ...] = get_args(Kind)
#: kinds that only save time, turned off by `SWARM_ENVS_CACHE=off`
OPTIONAL: frozenset[str] = frozenset({"scoring", "candidates"})
_OFF = ("off", "0", "none", "false")
_private: Path | None = None


def disabled() -> bool:
    """Whether `SWARM_ENVS_CACHE=off` (or `0`, `none`, `false`) turned the optional caches off."""
    return os.environ.get(ENV_VAR, "").strip().lower() in _OFF


def root() -> Path:
    """The folder every cache of this process lives under (see the module docstring)."""
    given = os.environ.get(ENV_VAR, "").strip()
    if given and given.lower() not in _OFF:
        return Path(given).expanduser().resolve()
    if given:  # off: what must persist for the run lives in a folder of this process
        return _process_folder()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return (base / NAME).resolve()


def path(kind: Kind) -> Path | None:
    """The folder of one kind of cache, or None for an optional kind turned off.

    Raises:
        ValueError: `kind` is not one of `KINDS`.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}: expected one of {', '.join(KINDS)}")
    if kind in OPTIONAL and disabled():
        return None
    return root() / kind


def folder(kind: Kind) -> Path:
    """The folder of a kind whose users always need one (`environments`, `instances`, `docker`).

    Raises:
        ValueError: `kind` is optional (use `path`, which may say None).
    """
    if kind in OPTIONAL:
        raise ValueError(f"the {kind} cache may be turned off: use cache.path({kind!r})")
    found = path(kind)
    assert found is not None
    return found


def _process_folder() -> Path:
    global _private
    if _private is None:
        _private = Path(tempfile.mkdtemp(prefix=f"{NAME}-cache-"))
        atexit.register(shutil.rmtree, _private, ignore_errors=True)
    return _private
