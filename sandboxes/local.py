"""The local process sandbox: the embedded default backend.

Every command is a child process of the environment, started through the strongest
isolation this machine offers, detected once per process (`detect_protections()`):

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
- `bubblewrap`: `bwrap` builds each command's whole view of the system (all below).
- `filesystem_view`: read-only system directories and Python, a private `/tmp`, the
  workspace at `/workspace`, nothing else of the host (no checkout, `/root`, `/home`,
  `/opt`, host `/tmp`); paths the caller hides (`hide=`, task folders) and this library's
  own files are masked. Contains reading solutions, other episodes and host files, and
  writing outside the workspace.
- `minimal_etc`: of the host's `/etc` only what programs need to run (the dynamic
  linker's cache, alternatives, time zone); `passwd`, `group` and `hosts` are the
  sandbox's own.
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

As root, bubblewrap sets up the namespaces and the view itself (no user namespace, so the
bind mounts are made with root's right to read the host); `setpriv` then drops to the
sandbox's uid, and for agents' commands an unprivileged bubblewrap adds the user namespace
that allows no others. As any other user, bubblewrap maps uid 65534 to that user in a user
namespace, and that user is what the sandbox can read as. Without bubblewrap, `unshare`
(util-linux, as root) still gives the pid, network, IPC and UTS namespaces, but no private
filesystem view (`filesystem_view` is then False: agents' commands could read the host's
world-readable files). Without either, only rlimits, the process group and the uid drop
apply. `LocalSandbox.protections` says which are active; `describe()` prints it.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import errno
import fnmatch
import functools
import importlib.util
import itertools
import logging
import os
import pathlib
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swarm_envs.error import BackendUnavailable, ConfigError, SandboxError
from swarm_envs.sandboxes import users
from swarm_envs.sandboxes.base import (
    CommandResult,
    Mount,
    OutputCap,
    Sandbox,
    SandboxLimits,
    ScoringHost,
    WorkerHandle,
    force_rmtree,
    write_tree,
)

logger = logging.getLogger("swarm_envs.sandboxes")

#: where the workspace appears inside a bubblewrap sandbox
WORKSPACE_INSIDE = "/workspace"
#: where the private scoring area appears inside a bubblewrap scoring worker
SCORING_INSIDE = "/scoring"
#: isolation levels, strongest first
ISOLATIONS = ("bwrap", "unshare", "none")
#: the uid/gid commands run as inside the user namespace when this process is not root
SANDBOX_UID = 65534
#: entries of the host's /etc that sandboxed programs see (shell-style patterns)
ETC_KEEP = (
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "timezone",
    "python3*",
)

_BASE_NAME = "swarm-envs-sandboxes"
_counter = itertools.count()
_live: weakref.WeakSet[LocalSandbox] = weakref.WeakSet()
_hidden: set[pathlib.Path] = set()
_hidden_lock = threading.Lock()
_described: set[str] = set()


def hide_path(path: os.PathLike[str] | str) -> None:
    """Mask `path` from every later command of every local sandbox of this process.

    Prefer `make_sandbox(..., hide=[...])`, which masks paths for one sandbox; this
    process-wide form remains for callers that cannot reach the sandbox's creation. Only
    has an effect where `filesystem_view` is active.
    """
    with _hidden_lock:
        _hidden.add(pathlib.Path(path).resolve())


def _library_root() -> pathlib.Path:
    """The folder of swarm-envs's own installed files: agents' commands never need them.

    Installed from a wheel, the package (and so its bundled tasks) lies inside the Python
    prefix that every sandbox sees; it is masked without asking anyone where tasks live.
    """
    # Found, not imported: the sandboxes sit below the package's top (import-linter's layers).
    spec = importlib.util.find_spec("swarm_envs")
    assert spec is not None and spec.submodule_search_locations
    return pathlib.Path(next(iter(spec.submodule_search_locations))).resolve()


def _masked(hide: Iterable[pathlib.Path]) -> list[pathlib.Path]:
    with _hidden_lock:
        extra = set(_hidden)
    return sorted({_library_root(), *hide, *extra})


# ------------------------------------------------------------------------- detection


def _try(argv: Sequence[str], timeout: float = 10, cwd: str | None = None) -> bool:
    try:
        r = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            cwd=cwd,
            env=_scrubbed_env("/tmp"),
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if r.returncode != 0 or r.stdout.strip() != b"ok":
        logger.debug("probe %s failed: %s", argv[:3], r.stdout[-500:])
        return False
    return True


class _CgroupSupport:
    """Where this process may create child cgroups: {controller: parent directory}."""

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
        probe = parent / f"{_BASE_NAME}-probe-{os.getpid()}"
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


def _cgroups() -> _CgroupSupport:
    return _cgroups_for(os.geteuid())


# Detection results depend on who asks: a process may drop privileges after a first probe.
@functools.cache
def _cgroups_for(euid: int) -> _CgroupSupport:
    return _CgroupSupport()


def _isolation() -> str:
    """The strongest isolation that works here: 'bwrap', 'unshare' or 'none'."""
    forced = os.environ.get("SWARM_ENVS_SANDBOX_ISOLATION")
    if forced in ISOLATIONS:
        return forced
    return _isolation_for(os.geteuid())


@functools.cache
def _isolation_for(euid: int) -> str:
    if shutil.which("bwrap"):
        with tempfile.TemporaryDirectory() as d:
            argv = _bwrap_prefix(Launch(pathlib.Path(d))) + ["sh", "-c", "echo ok"]
            if _try(argv):
                return "bwrap"
        logger.warning("bubblewrap is installed but cannot create namespaces here")
    if shutil.which("unshare") and _try(_unshare_prefix() + ["sh", "-c", "echo ok"]):
        return "unshare"
    return "none"


def _uid_drop(isolation: str) -> tuple[bool, bool]:
    """(commands can run as a dedicated uid, and in a user namespace that allows no others).

    Probed once per isolation level: as a uid that owns nothing, the sandbox's Python must
    still find its own standard library and read pytest's files (an installation readable
    only by root cannot). The probe reads them rather than importing pytest: a first reset
    waits for it.
    """
    if not users.dedicated_users_possible():
        return False, False
    return _uid_drop_for(isolation, users.uid_range())


@functools.cache
def _uid_drop_for(isolation: str, span: tuple[int, int] | None) -> tuple[bool, bool]:
    assert span is not None
    if not shutil.which("setpriv"):
        logger.warning(
            "running as root without setpriv (util-linux): sandboxed processes run as root"
        )
        return False, False
    uid = span[0]  # any uid of the range owns nothing on the host
    # Through a shell, as commands run: the interpreter must find its own standard library
    # (a Python that cannot read its prefix falls back to another one's).
    check = (
        "import sys, importlib.util as u; "
        "[open(u.find_spec(m).origin, 'rb').close() for m in ('pytest', '_pytest', 'pluggy')]; "
        f"print('ok' if sys.base_prefix == {sys.base_prefix!r} else '')"
    )
    probe = ["/bin/sh", "-c", f'exec "{sys.executable}" -c "{check}"']
    with tempfile.TemporaryDirectory() as d:
        ws = pathlib.Path(d) / "ws"
        ws.mkdir()
        os.chown(ws, uid, uid)
        os.chmod(d, 0o711)
        cwd = d if isolation == "bwrap" else str(ws)
        blocks = (False, True) if isolation == "bwrap" else (False,)
        argvs = [_launch(isolation, Launch(ws, uid=uid, block_userns=b)) + probe for b in blocks]
        # Both at once: each starts a Python, and a first reset waits for them.
        with concurrent.futures.ThreadPoolExecutor(len(argvs)) as pool:
            results = list(pool.map(lambda argv: _try(argv, timeout=60, cwd=cwd), argvs))
        results += [False] * (2 - len(results))
    if not results[0]:
        logger.warning(
            "sandboxed processes cannot run as a dedicated uid here (%s isolation): is "
            "Python installed readable by all users? They run as root instead",
            isolation,
        )
    return results[0], results[0] and results[1]


def detect_protections(isolation: str | None = None) -> dict[str, bool]:
    """Which protections the local sandbox applies here (see the module doc).

    Args:
        isolation: describe this isolation level instead of the strongest available.
    """
    iso = isolation or _isolation()
    cg = _cgroups()
    ns = iso in ("bwrap", "unshare")
    drop, block = _uid_drop(iso)
    return {
        "rlimits": shutil.which("prlimit") is not None,
        "process_group": True,
        "scrubbed_env": True,
        "unprivileged_user": drop or os.geteuid() != 0,
        "dedicated_uid": drop,
        "bubblewrap": iso == "bwrap",
        "filesystem_view": iso == "bwrap",
        "minimal_etc": iso == "bwrap",
        "user_namespace": iso == "bwrap" and (block or not drop),
        "pid_namespace": ns,
        "network_namespace": ns,
        "ipc_namespace": ns,
        "uts_namespace": ns,
        "cgroup_pids": "pids" in cg.parents,
        "cgroup_memory": "memory" in cg.parents,
        # RLIMIT_NPROC binds only a non-root user: without a pids cgroup, root's fork
        # bombs are stopped by the timeout alone.
        "fork_bomb_contained": "pids" in cg.parents or os.geteuid() != 0 or drop,
    }


# ------------------------------------------------------------------------ launching


def system_dirs() -> list[str]:
    """Host directories every bubblewrap sandbox sees read-only: the OS, and this Python.

    `/etc` is not among them (see `ETC_KEEP`), nor `/opt` (unless this Python lives there).
    """
    dirs = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)):
        dirs.append(os.path.realpath(p))
    out: list[str] = []
    for d in dirs:
        if os.path.lexists(d) and d not in out:
            out.append(d)
    return out


@functools.lru_cache(maxsize=1)
def _etc_entries() -> tuple[tuple[str, str | None], ...]:
    """(path, symlink target or None) of each host /etc entry that sandboxes see."""
    try:
        names = sorted(os.listdir("/etc"))
    except OSError:
        return ()
    out = []
    for name in names:
        if any(fnmatch.fnmatchcase(name, pat) for pat in ETC_KEEP):
            path = f"/etc/{name}"
            out.append((path, os.readlink(path) if os.path.islink(path) else None))
    return tuple(out)


def _drop_argv(uid: int) -> list[str]:
    """Become `uid` (and its gid) for good: no groups, capabilities or privilege gains."""
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def _userns_block_argv(uid: int, chdir: str) -> list[str]:
    """An unprivileged bubblewrap that puts its command in a user namespace allowing no more."""
    return [
        "bwrap",
        "--unshare-user",
        "--disable-userns",
        "--uid",
        str(uid),
        "--gid",
        str(uid),
        "--dev-bind",  # the outer sandbox's /dev holds only null, zero, random, tty...
        "/",
        "/",
        "--chdir",
        chdir,
        "--",
    ]


@dataclass(frozen=True)
class Launch:
    """What one sandboxed process sees and who it runs as.

    Attributes:
        workspace: host folder shown writable at `/workspace` (None: no workspace).
        mounts: further host paths shown inside (the scoring area, for workers).
        chdir: the working directory inside (default: the workspace).
        nested_userns: the process may create user namespaces (scoring workers, for their
            per-evaluation pid namespace); agents' commands may not.
        hide: host paths masked where they lie inside a shown directory.
        etc_dir: the sandbox's own `passwd`, `group`, `hosts`, `hostname`.
        uid: the dedicated uid to run as (this process is root); None: uid 65534 in a user
            namespace that maps to this process's user.
        block_userns: with `uid`, add the user namespace that allows no others.
    """

    workspace: pathlib.Path | None
    mounts: Sequence[Mount] = ()
    chdir: str | None = None
    nested_userns: bool = False
    hide: Iterable[pathlib.Path] = ()
    etc_dir: pathlib.Path | None = None
    uid: int | None = None
    block_userns: bool = False


def _bwrap_prefix(spec: Launch) -> list[str]:
    """The bubblewrap command line that runs what follows it in a sandbox.

    With `spec.uid` (this process is root), bubblewrap creates the namespaces without a
    user namespace and the command drops to that uid; without, uid 65534 in a user
    namespace.
    """
    uid = spec.uid
    argv = ["bwrap"]
    if uid is None:
        argv += ["--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID)]
        argv += ["--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
        if not spec.nested_userns:
            # Agents' commands may not create user namespaces of their own (no "root"
            # inside). Scoring workers may: each evaluation gets a private pid namespace.
            argv.append("--disable-userns")
    else:
        argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        argv += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
        # Only what setpriv needs to become `uid`; it drops these too.
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            argv += ["--cap-add", cap]
    argv += [
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",  # no TIOCSTI into the host's terminal
    ]
    # The private /tmp comes first: this Python (a virtual environment) may itself live
    # under /tmp, and a bind made earlier would be hidden by the tmpfs.
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    bound: list[str] = []
    made: set[str] = set()

    def parents(path: str) -> list[str]:
        # bubblewrap would create missing parents of a mount point with the host's modes
        # (a 0700 /root above a Python under /root/.pyenv): make them traversable.
        out = []
        for a in reversed(pathlib.PurePosixPath(path).parents[:-1]):
            s = str(a)
            if s in made or _within(s, bound):
                continue
            made.add(s)
            out += ["--perms", "0755", "--dir", s]
        return out

    for d in system_dirs():
        if os.path.islink(d):
            argv += [*parents(d), "--symlink", os.readlink(d), d]
        elif os.path.isdir(d) and not _within(d, bound):
            argv += [*parents(d), "--ro-bind", d, d]
            bound.append(d)
    argv += ["--perms", "0755", "--dir", "/etc"]
    for path, target in _etc_entries():
        argv += ["--symlink", target, path] if target is not None else ["--ro-bind", path, path]
        bound.append(path)
    if spec.etc_dir is not None:
        for name in ("passwd", "group", "hosts", "hostname"):
            argv += ["--ro-bind", str(spec.etc_dir / name), f"/etc/{name}"]
    argv += ["--perms", "1777", "--dir", "/var/tmp"]
    # Paths to hide (task folders with solutions and held-out tests, this library) may lie
    # inside a bound directory, e.g. an installed wheel under site-packages: mask each.
    for hidden in _masked(spec.hide):
        r = str(hidden)
        if not _within(r, bound):
            continue
        if os.path.isdir(r):
            argv += ["--tmpfs", r]
        elif os.path.lexists(r):
            argv += ["--ro-bind", "/dev/null", r]
    if spec.workspace is not None:
        argv += [*parents(WORKSPACE_INSIDE), "--bind", str(spec.workspace), WORKSPACE_INSIDE]
    for m in spec.mounts:
        argv += [*parents(m.inside), "--bind" if m.writable else "--ro-bind", str(m.host), m.inside]
    inside = spec.chdir or WORKSPACE_INSIDE
    argv += ["--chdir", inside, "--"]
    if uid is not None:
        argv += _drop_argv(uid)
        if spec.block_userns:
            argv += _userns_block_argv(uid, inside)
    return argv


def _within(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _unshare_prefix() -> list[str]:
    return ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--ipc", "--uts"]


def _launch(isolation: str, spec: Launch) -> list[str]:
    """The command line that starts what follows it at `isolation`, as `spec.uid` if given."""
    if isolation == "bwrap":
        return _bwrap_prefix(spec)
    prefix = _unshare_prefix() if isolation == "unshare" else []
    return prefix + (_drop_argv(spec.uid) if spec.uid is not None else [])


def _rlimit_prefix(limits: SandboxLimits) -> list[str]:
    if not shutil.which("prlimit"):
        return []
    cpu = max(1, int(limits.cpu_s + 0.999))
    return [
        "prlimit",
        f"--cpu={cpu}:{cpu + 1}",
        f"--as={limits.memory_mb * 1024 * 1024}",
        f"--fsize={limits.file_size_mb * 1024 * 1024}",
        f"--nofile={limits.open_files}",
        f"--nproc={limits.max_procs}",
        "--core=0",
        "--",
    ]


class _Cgroup:
    """A pids and a memory cgroup for one command or worker; killed and removed on close."""

    def __init__(self, name: str, limits: SandboxLimits):
        self.dirs: list[pathlib.Path] = []
        cg = _cgroups()
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

    def join_argv(self) -> list[str]:
        """A shell prefix that moves itself into the cgroups, then execs the command."""
        if not self.dirs:
            return []
        joins = "; ".join(f"echo $$ > '{d}/cgroup.procs'" for d in self.dirs)
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sh"]

    def pids(self) -> set[int]:
        out: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                out.update(int(x) for x in (d / "cgroup.procs").read_text().split())
        return out

    def kill_all(self, deadline_s: float = 5.0) -> None:
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


def _scrubbed_env(home: str, extra: Mapping[str, str] = {}) -> dict[str, str]:
    venv_bin = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        # Stale bytecode: a same-size edit within the mtime granularity would run old code
        # from __pycache__; never write bytecode in the workspace.
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra)
    return env


class _Process:
    """A started child: its cgroup and how to kill every process it made."""

    def __init__(self, popen: subprocess.Popen[bytes], cgroup: _Cgroup | None):
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
        best = _isolation()
        if isolation is not None:
            if isolation not in ISOLATIONS:
                raise ConfigError(f"isolation {isolation!r} is unknown; choose one of {ISOLATIONS}")
            if ISOLATIONS.index(isolation) < ISOLATIONS.index(best):
                raise BackendUnavailable(
                    f"isolation {isolation!r} is not available here (the strongest is {best!r})"
                )
        self.limits = limits or SandboxLimits()
        self.isolation = isolation or best
        self.hide = tuple(pathlib.Path(h).resolve() for h in hide)
        self.env = dict(env or {})  # every child's, on top of the scrubbed environment
        self.protections = detect_protections(self.isolation)
        drop, self._block_userns = _uid_drop(self.isolation)
        global _described
        if self.isolation not in _described:
            _described.add(self.isolation)
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
        self._procs: set[_Process] = set()
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
        _write_etc(self._etc, self.users)
        _live.add(self)
        _install_exit_handlers()
        self._finalizer = weakref.finalize(self, _finalize, self._dir, self._procs, self.users)

    def __repr__(self) -> str:
        return f"LocalSandbox({str(self.root)!r}, isolation={self.isolation!r})"

    # -------------------------------------------------------------- launching children

    def _spawn(
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
    ) -> _Process:
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        limits = limits or self.limits
        cgroup = _Cgroup(f"{_BASE_NAME}-{self._id}-{next(self._runs)}", limits)
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
        )
        prefix = _launch(self.isolation, spec)
        # Without a filesystem view the paths are the host's.
        home = inside if workspace else "/tmp"
        cwd = str(self._dir) if bwrap else (chdir or str(self.root))
        full = [*cgroup.join_argv(), *_rlimit_prefix(limits), *prefix, *argv]
        try:
            popen = subprocess.Popen(
                full,
                cwd=cwd,
                env=_scrubbed_env(home, {**self.env, **env}),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as e:
            cgroup.close()
            raise SandboxError(f"cannot start a sandboxed process: {e}") from e
        proc = _Process(popen, cgroup)
        with self._procs_lock:
            self._procs.add(proc)
        return proc

    def _forget(self, proc: _Process) -> None:
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
        proc = self._spawn(["/bin/sh", "-c", command], workspace=True)
        cap = OutputCap(self.limits.output_bytes)
        timed_out = False
        try:
            timed_out = _pump(proc.popen, cap, start + timeout)
            rc = None if timed_out else proc.popen.poll()
        finally:
            self._forget(proc)
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
        etc = [p for p, target in _etc_entries() if target is None and os.path.isdir(p)]
        dirs = [d for d in system_dirs() if not os.path.islink(d) and os.path.isdir(d)]
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


def _write_etc(etc: pathlib.Path, sandbox_users: users.SandboxUsers | None) -> None:
    """The sandbox's own /etc/passwd, group, hosts and hostname (see `minimal_etc`)."""
    agent = sandbox_users.agent if sandbox_users else SANDBOX_UID
    scorer = sandbox_users.scorer() if sandbox_users else SANDBOX_UID
    accounts = [
        ("root", 0, "/root"),
        ("agent", agent, WORKSPACE_INSIDE),
        ("scorer", scorer, "/tmp"),
    ]
    accounts.append(("nobody", 65534, "/nonexistent"))
    passwd, group, seen = [], [], set()
    for name, uid, home in accounts:
        if uid in seen:
            continue
        seen.add(uid)
        passwd.append(f"{name}:x:{uid}:{uid}:{name}:{home}:/bin/sh\n")
        group.append(f"{name}:x:{uid}:\n")
    write_tree(
        etc,
        {
            "passwd": "".join(passwd).encode(),
            "group": "".join(group).encode(),
            "hosts": b"127.0.0.1\tlocalhost sandbox\n::1\tlocalhost\n",
            "hostname": b"sandbox\n",
        },
    )


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
        self.dir = sandbox._dir / "scoring"
        self.dir.mkdir(mode=0o700, exist_ok=True)
        if sandbox.users is not None:
            # Readable by the workers' uid, not by the agent's (whose commands, without a
            # private view, could otherwise reach it by its host path).
            os.chown(self.dir, 0, sandbox.users.scorer())
            os.chmod(self.dir, 0o750)
        bw = sandbox.isolation == "bwrap"
        self.inside_dir = SCORING_INSIDE if bw else str(self.dir)
        self.python = sys.executable
        self.worker_owns_pid_namespace = bool(sandbox.protections.get("pid_namespace"))

    def _alive(self) -> None:
        # Writing into a closed sandbox would recreate its directory on the host.
        if self.sandbox.closed:
            raise SandboxError(f"{self.sandbox!r} is closed; create a new sandbox")

    def sync(self, rel: str, files: Mapping[str, bytes | None]) -> None:
        self._alive()
        write_tree(self.dir / rel, files)

    def remove_tree(self, rel: str) -> None:
        force_rmtree(self.dir / rel)

    def start_worker(self, argv: Sequence[str], *, long_lived: bool = False) -> WorkerHandle:
        self._alive()
        bw = self.sandbox.isolation == "bwrap"
        mounts = [Mount(self.dir, self.inside_dir)] if bw else []
        log = open(self.sandbox._dir / "worker.log", "ab")  # noqa: SIM115 - closed below
        # A fork server and its children share one cgroup: room for two concurrent
        # evaluations plus the server. Each child sets its own CPU and address-space limits.
        update: dict[str, float] = {"memory_mb": self.sandbox.limits.memory_mb * 3}
        if long_lived:
            update["cpu_s"] = 10**7
        limits = self.sandbox.limits.model_copy(update=update)
        try:
            proc = self.sandbox._spawn(
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
            _kill=lambda: self.sandbox._forget(proc),
            _poll=proc.popen.poll,
        )

    def worker_log(self) -> str:
        """The tail of the workers' stderr (for scorer error messages)."""
        try:
            data = (self.sandbox._dir / "worker.log").read_bytes()
        except OSError:
            return ""
        return data[-2000:].decode("utf-8", errors="replace")


# ------------------------------------------------------------------------- cleanup

_handlers_installed = False


def _finalize(
    path: pathlib.Path, procs: set[_Process], sandbox_users: users.SandboxUsers | None
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
_STALE_CGROUP = re.compile(rf"^{_BASE_NAME}-(\d+)-\d+-[0-9a-f]+-\d+$")


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
    # Our cgroups live under the creating process's cgroup; look at its siblings too (a
    # process manager may give every job its own cgroup).
    parents: set[pathlib.Path] = set()
    for p in _cgroups().parents.values():
        parents.add(p)
        with contextlib.suppress(OSError):
            parents.update(d for d in p.parent.iterdir() if d.is_dir())
    for cg_parent in parents:
        try:
            names = [n for n in os.listdir(cg_parent) if n.startswith(_BASE_NAME)]
        except OSError:
            continue
        for name in names:
            m = _STALE_CGROUP.match(name)
            if m and _dead(int(m.group(1))):
                cg = _Cgroup.__new__(_Cgroup)
                cg.dirs = [cg_parent / name]
                cg.close()
