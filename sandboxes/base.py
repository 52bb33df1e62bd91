"""The sandbox contract: limits, command results, and the interface every backend implements.

A sandbox owns one episode's workspace (a fresh, empty directory on the host, `Sandbox.root`)
and runs commands confined to it. The environment writes the agents' files into `root`
itself; everything that *executes* (agent commands, scoring runs) goes through the sandbox.

Two families of operations:

* the public contract (`run`, `close`, context manager), used by the environment for the
  agents' `run_command` tool;
* the scoring host (`scoring_host()`), used by `swarm_envs.scoring` only: a private area
  outside the workspace (agents' commands never see it) where scoring trees live, and a way
  to start the scoring worker with the canonical tests mounted read-only.
"""

from __future__ import annotations

import abc
import contextlib
import os
import pathlib
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field

from swarm_envs.core.text import truncation_marker

#: where the workspace appears inside a sandbox (both backends)
WORKSPACE_INSIDE = "/workspace"
#: where the private scoring area appears inside a scoring worker (both backends)
SCORING_INSIDE = "/scoring"


def fixed_env(home: str = "/tmp") -> dict[str, str]:
    """The fixed part of every sandboxed process's environment (no host variable).

    Stale bytecode: a same-size edit within the mtime granularity would run old code from
    `__pycache__`, so no process writes bytecode.
    """
    return {
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


class SandboxLimits(BaseModel):
    """Resource limits of every process a sandbox runs (per command or scoring run).

    Attributes:
        cpu_s: CPU seconds per process (RLIMIT_CPU).
        memory_mb: address space per process (RLIMIT_AS) and, where cgroups are usable,
            the memory of the whole sandbox.
        max_procs: processes of the whole sandbox (pids cgroup where usable, else
            RLIMIT_NPROC, which root ignores unless a user namespace drops it).
        file_size_mb: largest file a process may write (RLIMIT_FSIZE).
        open_files: open file descriptors per process (RLIMIT_NOFILE).
        wall_s: default wall-clock limit of one command; the whole process group is killed.
        output_bytes: captured output kept per command (head and tail); the middle is dropped
            with a marker.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    cpu_s: float = Field(default=30, gt=0)
    memory_mb: int = Field(default=1024, gt=0)
    max_procs: int = Field(default=64, gt=0)
    file_size_mb: int = Field(default=64, gt=0)
    open_files: int = Field(default=256, gt=8)
    wall_s: float = Field(default=30, gt=0)
    output_bytes: int = Field(default=32_000, gt=0)


def rlimits(limits: SandboxLimits) -> dict[str, tuple[int, int]]:
    """The per-process rlimits of `limits` (name as `prlimit` and Docker spell it: soft, hard).

    The hard CPU limit lies a second above the soft one: SIGXCPU first, then SIGKILL.
    """
    cpu = max(1, int(limits.cpu_s + 0.999))
    fsize = limits.file_size_mb * 1024 * 1024
    return {
        "cpu": (cpu, cpu + 1),
        "as": (limits.memory_mb * 1024 * 1024,) * 2,
        "fsize": (fsize, fsize),
        "nofile": (limits.open_files, limits.open_files),
        "nproc": (limits.max_procs, limits.max_procs),
        "core": (0, 0),
    }


def unrunnable(command: str) -> str | None:
    """Why no shell can be given `command` (the text of its result), or None.

    A NUL byte cannot be part of an argument: the kernel would cut the command there.
    """
    if "\0" in command:
        return "[not run: the command holds a NUL byte, which no shell command can hold]\n"
    return None


@dataclass(frozen=True)
class CommandResult:
    """What one command produced.

    Attributes:
        returncode: exit status; negative for a signal; None when the sandbox killed it.
        output: stdout and stderr interleaved, capped at `limits.output_bytes`: its head and
            its tail, with a marker between them that says how much was dropped.
        timed_out: the wall-clock limit was reached and the process group was killed.
        truncated: output was cut.
        wall_s: measured wall-clock seconds.
    """

    returncode: int | None
    output: str
    timed_out: bool
    truncated: bool
    wall_s: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


@dataclass
class Mount:
    """A host path made visible inside the sandbox (for scoring workers)."""

    host: pathlib.Path
    inside: str
    writable: bool = False


@dataclass
class WorkerHandle:
    """A long-lived process inside the sandbox, talking over pipes (stdin/stdout)."""

    stdin: IO[bytes]
    stdout: IO[bytes]
    pid: int
    _kill: Any = field(repr=False)
    _poll: Any = field(repr=False)

    def kill(self) -> None:
        """Kill the worker and everything it started (twice-safe)."""
        self._kill()

    def poll(self) -> int | None:
        """Exit status, or None while running."""
        return self._poll()


class ScoringHost(abc.ABC):
    """A sandbox's private scoring area: never visible to the agents' commands."""

    #: host directory of the area (the scorer writes its trees here)
    dir: pathlib.Path
    #: the same directory as seen by processes inside the sandbox
    inside_dir: str
    #: the Python interpreter to use inside the sandbox
    python: str
    #: True when a worker is alone in its own pid namespace (it may then kill every other
    #: process it sees after an evaluation, to end whatever the code under test left)
    worker_owns_pid_namespace: bool = False

    @abc.abstractmethod
    def sync(self, rel: str, files: Mapping[str, bytes | None]) -> None:
        """Write (bytes) or delete (None) files of the tree `rel` under the area."""

    @abc.abstractmethod
    def remove_tree(self, rel: str) -> None:
        """Remove the tree `rel` under the area (missing is fine)."""

    @abc.abstractmethod
    def start_worker(self, argv: Sequence[str], *, long_lived: bool = False) -> WorkerHandle:
        """Start `argv` inside the sandbox with the area mounted read-only at `inside_dir`.

        The worker gets the sandbox's limits; a `long_lived` worker (a fork server, which
        applies the per-evaluation limits to its children itself) gets no CPU-time limit.
        """

    def worker_log(self) -> str:
        """The tail of the workers' stderr, for error messages."""
        return ""

    def show(self, name: str, folder: pathlib.Path) -> str:
        """Show the host `folder` read-only to the workers started after this call.

        What every worker of the sandbox reads but nobody may change (the scorer's private
        pytest): agents' commands never see it. This default puts it into the area, at
        `name/` (hard links where the area shares the folder's filesystem, else a copy,
        once per sandbox); a backend that can bind it (the local sandbox's private view)
        shows it without copying.

        Returns:
            The folder's path as the workers see it.
        """
        self.remove_tree(name)
        dest = self.dir / name
        try:
            shutil.copytree(folder, dest, copy_function=os.link)
        except OSError:  # another filesystem, or links refused: copy the bytes
            self.remove_tree(name)
            shutil.copytree(folder, dest)
        return f"{self.inside_dir}/{name}"


class Sandbox(abc.ABC):
    """One episode's workspace and the processes that run in it.

    Attributes:
        root: host directory of the workspace (the agents' files); fresh and empty on creation.
        limits: the resource limits applied to every command.
        protections: which protections are active, by name (documented per backend), for
            `infos` and logs.
        backend: the backend's name (`local`, `docker`).
    """

    backend: str = "?"
    root: pathlib.Path
    limits: SandboxLimits
    protections: dict[str, bool]

    @abc.abstractmethod
    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command with the workspace as working directory.

        Never raises for anything the command does (crash, timeout, fork bomb, huge output,
        deleting the workspace): the result says what happened. Raises `SandboxError` only
        when the sandbox itself is gone (closed or its backend died).
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Kill every process of the sandbox and remove the workspace. Safe to call twice."""

    @abc.abstractmethod
    def scoring_host(self) -> ScoringHost:
        """The private scoring area of this sandbox (created on first use)."""

    def visible_host_dirs(self) -> list[pathlib.Path]:
        """Host directories that the sandbox's commands see read-only (not the workspace).

        What a backend shows of the host besides the workspace: the OS and Python for the
        local sandbox; nothing for Docker, whose containers see an image of their own.
        """
        return []

    def weakness(self) -> str | None:
        """None at full confinement; else one line saying what was given up.

        A weaker level runs only when asked for by name; agents' introductions, `infos`
        and the CLI print this line then.
        """
        return None

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", False)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        """One line naming the backend and its active protections, for logs."""
        on = sorted(k for k, v in self.protections.items() if v)
        off = sorted(k for k, v in self.protections.items() if not v)
        line = (
            f"{self.backend} sandbox: active {', '.join(on) or '-'}; "
            f"inactive {', '.join(off) or '-'}"
        )
        weak = self.weakness()
        return f"{weak} {line}" if weak else line


class OutputCap:
    """Keeps the head and the tail of an output up to a byte cap, and counts what it drops.

    As `swarm_envs.core.text.cap_middle` does for what agents read: the head has two
    thirds of the room (where a command starts), the tail the rest (where a traceback or a
    status ends), and one marker between them says how much was left out. Memory stays
    within the cap however long the output.
    """

    def __init__(self, cap: int):
        self.cap = cap
        self._head_room = cap - cap // 3
        self._tail_room = cap // 3
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self._head_room - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        extra = len(self.tail) - self._tail_room
        if extra > 0:
            del self.tail[:extra]
            self.dropped += extra

    def text(self) -> tuple[str, bool]:
        head = self.head.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + self.tail.decode("utf-8", errors="replace"), False
        tail, dropped = bytes(self.tail), self.dropped
        cut = tail.find(b"\n")  # the tail from a line's start, where there is one
        if 0 <= cut < len(tail) - 1:
            dropped += cut + 1
            tail = tail[cut + 1 :]
        marker = truncation_marker(dropped, "bytes of output")
        return head + marker + tail.decode("utf-8", errors="replace"), True


def write_tree(base: pathlib.Path, files: Mapping[str, bytes | None]) -> None:
    """Write (bytes) or delete (None) files under `base`; emptied directories are removed.

    Files get mode 0644 and new directories 0755 whatever the host's umask: sandboxed
    processes read them as a uid that owns nothing.
    """
    for path, data in files.items():
        p = base / path
        if data is None:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
            # An emptied package directory would still import as a namespace package.
            parent = p.parent
            while parent != base and parent.is_relative_to(base):
                try:
                    parent.rmdir()
                except OSError:
                    break
                parent = parent.parent
            continue
        if not p.parent.is_dir():
            _make_dirs(base, p.parent)
        tmp = p.with_name(f".{p.name}.swarm-tmp")
        tmp.write_bytes(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)


def _make_dirs(base: pathlib.Path, path: pathlib.Path) -> None:
    base.mkdir(parents=True, exist_ok=True)
    d = base
    for part in path.relative_to(base).parts:
        d = d / part
        try:
            d.mkdir()
        except FileExistsError:
            continue
        os.chmod(d, 0o755)


def iter_tree(root: pathlib.Path) -> Iterator[tuple[str, os.stat_result]]:
    """Walk `root` without following symlinks: (relative posix path, lstat) of every entry."""
    stack = [("", str(root))]
    while stack:
        rel, path = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for e in entries:
            r = f"{rel}{e.name}"
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            yield r, st
            if stat.S_ISDIR(st.st_mode):
                stack.append((r + "/", e.path))


def force_rmtree(path: pathlib.Path) -> None:
    """Remove a tree even where an agent made files read-only or directories unlistable."""
    if not os.path.lexists(path):
        return

    def onerror(func: Any, p: str, exc: Any) -> None:
        # An agent may chmod 000 a directory; restore owner permissions and retry once.
        try:
            parent = os.path.dirname(p)
            os.chmod(parent, 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass

    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
        return
    shutil.rmtree(path, onerror=onerror)
