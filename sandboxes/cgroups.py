"""Cgroups of the local sandbox: a pids and a memory cgroup per command or worker.

`support()` finds, once per effective uid, where this process may create child cgroups
(cgroup v1 `pids` and `memory` hierarchies, or the v2 unified one). `Cgroup` is one
command's: created with its limits, joined by the command itself (`join_argv`), killed
and removed on `close()`. `sweep()` removes the cgroups of processes that died without
closing theirs.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import pathlib
import re
import signal
import time
from collections.abc import Callable

from swarm_envs.sandboxes.base import SandboxLimits

logger = logging.getLogger("swarm_envs.sandboxes")

#: every cgroup this library makes is named `<PREFIX>-<pid>-<sandbox>-<run>`
PREFIX = "swarm-envs-sandboxes"
_STALE = re.compile(rf"^{PREFIX}-(\d+)-\d+-[0-9a-f]+-\d+$")


class CgroupSupport:
    """Where this process may create child cgroups.

    Attributes:
        parents: {controller: parent directory} for `pids` and `memory`.
        v2: the parents are of the unified (v2) hierarchy.
    """

    def __init__(self) -> None:
        self.parents: dict[str, pathlib.Path] = {}
        self.v2 = False
        try:
            lines = pathlib.Path("/proc/self/cgroup").read_text().splitlines()
        except OSError:
            return
        mine: dict[str, str] = {}
        for line in lines:
            _, ctrls, path = line.split(":", 2)
            for c in ctrls.split(","):
                mine[c] = path
        base = pathlib.Path("/sys/fs/cgroup")
        for ctrl, limit_file in (("pids", "pids.max"), ("memory", "memory.limit_in_bytes")):
            if ctrl in mine and (base / ctrl).is_dir():
                parent = base / ctrl / mine[ctrl].lstrip("/")
                if self._probe(parent, limit_file):
                    self.parents[ctrl] = parent
        if not self.parents and (base / "cgroup.controllers").is_file() and "" in mine:
            # Pure cgroup v2: one hierarchy, limits in pids.max and memory.max.
            parent = base / mine[""].lstrip("/")
            if self._probe(parent, "pids.max"):
                self.v2 = True
                self.parents["pids"] = parent
                if self._probe(parent, "memory.max"):
                    self.parents["memory"] = parent

    @staticmethod
    def _probe(parent: pathlib.Path, limit_file: str) -> bool:
        probe = parent / f"{PREFIX}-probe-{os.getpid()}"
        try:
            probe.mkdir()
        except FileExistsError:
            pass
        except OSError:
            return False
        try:
            return (probe / limit_file).exists() and os.access(probe / "cgroup.procs", os.W_OK)
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()


def support() -> CgroupSupport:
    """Where this process may create cgroups (probed once per effective uid)."""
    return _support_for(os.geteuid())


# Detection results depend on who asks: a process may drop privileges after a first probe.
@functools.cache
def _support_for(euid: int) -> CgroupSupport:
    return CgroupSupport()


class Cgroup:
    """A pids and a memory cgroup for one command or worker; killed and removed on close.

    Args:
        name: the cgroup's directory name (`PREFIX-...`, so that `sweep` recognises it).
        limits: `max_procs` and `memory_mb` become the cgroups' limits.
    """

    def __init__(self, name: str, limits: SandboxLimits):
        self.dirs: list[pathlib.Path] = []
        cg = support()
        for ctrl, parent in cg.parents.items():
            d = parent / name
            if d in self.dirs:
                continue
            try:
                d.mkdir(exist_ok=True)
                if ctrl == "pids" or cg.v2:
                    (d / "pids.max").write_text(str(limits.max_procs))
                if ctrl == "memory" or (cg.v2 and "memory" in cg.parents):
                    mem = limits.memory_mb * 1024 * 1024
                    if cg.v2:
                        (d / "memory.max").write_text(str(mem))
                    else:
                        (d / "memory.limit_in_bytes").write_text(str(mem))
                        with contextlib.suppress(OSError):
                            (d / "memory.memsw.limit_in_bytes").write_text(str(mem))
                self.dirs.append(d)
            except OSError as e:
                logger.warning("cannot set up cgroup %s: %s", d, e)
                with contextlib.suppress(OSError):
                    d.rmdir()

    @classmethod
    def existing(cls, path: pathlib.Path) -> Cgroup:
        """The cgroup at `path`, made elsewhere (to kill and remove it)."""
        cg = cls.__new__(cls)
        cg.dirs = [path]
        return cg

    def join_argv(self) -> list[str]:
        """A shell prefix that moves itself into the cgroups, then execs the command."""
        if not self.dirs:
            return []
        joins = "; ".join(f"echo $$ > '{d}/cgroup.procs'" for d in self.dirs)
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sh"]

    def pids(self) -> set[int]:
        """Host pids of the processes in the cgroups."""
        out: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                out.update(int(x) for x in (d / "cgroup.procs").read_text().split())
        return out

    def kill_all(self, deadline_s: float = 5.0) -> None:
        """SIGKILL every process in the cgroups until none is left (or the deadline)."""
        end = time.monotonic() + deadline_s
        for d in self.dirs:
            kill = d / "cgroup.kill"
            if kill.exists():
                with contextlib.suppress(OSError):
                    kill.write_text("1")
        while time.monotonic() < end:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)
        logger.warning("cgroup processes survived SIGKILL: %s", sorted(self.pids()))

    def close(self) -> None:
        """Kill what is left and remove the directories (twice-safe)."""
        self.kill_all()
        for d in self.dirs:
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY:
                        break
                    time.sleep(0.01)
        self.dirs = []


def sweep(dead: Callable[[int], bool]) -> None:
    """Remove this library's cgroups whose creating process (`dead(pid)`) is gone.

    Our cgroups live under the creating process's cgroup; its siblings are looked at too
    (a process manager may give every job its own cgroup).
    """
    parents: set[pathlib.Path] = set()
    for p in support().parents.values():
        parents.add(p)
        with contextlib.suppress(OSError):
            parents.update(d for d in p.parent.iterdir() if d.is_dir())
    for cg_parent in parents:
        try:
            names = [n for n in os.listdir(cg_parent) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            m = _STALE.match(name)
            if m and dead(int(m.group(1))):
                Cgroup.existing(cg_parent / name).close()
