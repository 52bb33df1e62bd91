"""The Docker backend: one container per episode, through the Docker SDK.

Needs the `docker` extra (`pip install 'swarm-envs[docker]'`) and a reachable engine
(`DOCKER_HOST` or the local socket). The image is built offline on first use and cached
by content (`swarm_envs.sandboxes.docker_image`): no registry is needed.

Each sandbox has two containers from that image, both with no network, all capabilities
dropped, `no-new-privileges`, a read-only root filesystem, a private `/tmp`, a pids limit,
a memory limit and the same rlimits as the local backend:

- the *agent* container mounts the workspace (`Sandbox.root` on the host) at
  `/workspace`; agents' commands run there (`docker exec`) as an unprivileged uid: the
  sandbox's dedicated agent uid when this process is root (it owns the workspace, see
  `sandboxes.users`), else this process's own uid. After each command every process but
  the container's init is killed, so nothing outlives its command (as locally);
- the *scoring* container mounts only the private scoring area, read-only, at `/scoring`;
  scoring workers run there, each as a uid of its own, so that releasing one worker kills
  exactly its processes (`kill -9 -1` as that uid) and no worker can signal another. Its
  seccomp profile allows user namespaces (`_SCORING_SECCOMP`), so the fork server gives
  each evaluation a pid namespace of its own. Agents' commands never see the area, the
  workers (another container, another pid namespace), the reference solution or other
  episodes' files.

Output of a command comes back in the order it was written: stderr is sent into stdout's
pipe inside the container, as the local backend does, since Docker relays the two
streams separately and their interleaving would be lost.

When no engine is reachable, `make_sandbox("docker")` raises `BackendUnavailable` saying so
and how to fall back (`make_sandbox("local")`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import pathlib
import platform
import queue
import signal
import socket
import struct
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from swarm_envs.error import BackendUnavailable, SandboxError
from swarm_envs.sandboxes import docker_image, users
from swarm_envs.sandboxes.base import (
    SCORING_INSIDE,
    WORKSPACE_INSIDE,
    CommandResult,
    OutputCap,
    Sandbox,
    SandboxLimits,
    ScoringHost,
    WorkerHandle,
    fixed_env,
    force_rmtree,
    rlimits,
    unrunnable,
    write_tree,
)

logger = logging.getLogger("swarm_envs.sandboxes")

_FALLBACK = (
    "use the local process sandbox instead: make_sandbox('local') "
    "(environment config sandbox='local', the default)"
)
_counter = itertools.count()
#: the containers' init: reaps every orphan at once (SIGCHLD stays pending while blocked,
#: so none is missed), so a killed command leaves not even a zombie for the next to see
_REAPER = (
    "import os, signal\n"
    "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})\n"
    "while True:\n"
    "    try:\n"
    "        while os.waitpid(-1, os.WNOHANG)[0]:\n"
    "            pass\n"
    "    except ChildProcessError:\n"
    "        pass\n"
    "    signal.sigwaitinfo({signal.SIGCHLD})\n"
)
#: kill every process of the calling uid but init, again until none is left but zombies
#: (a process forking in a loop may add one while the first signal goes out; a zombie
#: whose parent lies outside the container waits for Docker to reap it); fails if any lives
_KILL_ALL = (
    "for i in $(seq 500); do kill -9 -1 2>/dev/null || exit 0; left=0; "
    "for d in /proc/[0-9]*; do "
    '[ "$d" = /proc/$$ ] || [ "$d" = /proc/1 ] || [ ! -O "$d" ] && continue; '
    "grep -q '^State:.*Z' \"$d/status\" 2>/dev/null || left=1; done; "
    '[ "$left" = 0 ] && exit 0; sleep 0.01; done; exit 1'
)
#: the scoring container's seccomp profile. Docker's default forbids user namespaces to
#: processes without CAP_SYS_ADMIN, so a scoring worker could not give each evaluation a
#: pid namespace of its own (the local backend's workers do): code under test could kill
#: its fork server. This profile allows `unshare`/`clone` with namespace flags and denies
#: what the default denies that matters without capabilities (all are dropped anyway):
#: kernel keyrings, bpf, perf, io_uring, ptrace and reading other processes' memory,
#: userfaultfd, mounting, module and clock calls.
_SCORING_DENY = (
    "acct add_key bpf clock_adjtime clock_settime create_module delete_module "
    "finit_module fsconfig fsmount fsopen fspick get_kernel_syms init_module "
    "io_uring_enter io_uring_register io_uring_setup ioperm iopl kcmp kexec_file_load "
    "kexec_load keyctl lookup_dcookie mount mount_setattr move_mount move_pages "
    "name_to_handle_at nfsservctl open_by_handle_at open_tree perf_event_open pivot_root "
    "process_madvise process_vm_readv process_vm_writev ptrace query_module quotactl "
    "quotactl_fd reboot request_key setns settimeofday stime swapoff swapon syslog "
    "_sysctl umount umount2 uselib userfaultfd ustat vm86 vm86old"
).split()
_SCORING_SECCOMP = json.dumps(
    {
        "defaultAction": "SCMP_ACT_ALLOW",
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]
        if platform.machine() in ("x86_64", "AMD64")
        else ["SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"],
        "syscalls": [{"names": _SCORING_DENY, "action": "SCMP_ACT_ERRNO", "errnoRet": 1}],
    }
)
#: what a command's wrapper runs once the command's shell has exited: SIGKILL every other
#: process of its user (but init), until none is left that is not a zombie
_REAP = (
    "for i in $(seq 500); do kill -9 -1 2>/dev/null || break; left=0; "
    "for d in /proc/[0-9]*; do "
    '[ "$d" = /proc/$$ ] || [ "$d" = /proc/1 ] || [ ! -O "$d" ] && continue; '
    "grep -q '^State:.*Z' \"$d/status\" 2>/dev/null || left=1; done; "
    '[ "$left" = 0 ] && break; sleep 0.01; done'
)
#: how a command runs: its stderr joins stdout's pipe, so their order survives. The engine
#: ends the exec's stream only when every holder of its output has closed it, so a
#: background child that keeps the output open (`(sleep 1; touch M) & echo x`) would
#: outlive the command by seconds and write into the next one: the wrapper reaps it as
#: soon as the command's shell exits, as the local backend does, and keeps its status.
_SHELL = ["/bin/sh", "-c", '"$@" 2>&1; rc=$?; ' + _REAP + "; exit $rc", "sh", "/bin/sh", "-c"]


def _client() -> Any:
    try:
        import docker
    except ImportError:
        raise BackendUnavailable(
            "the Docker backend needs the Docker SDK: pip install 'swarm-envs[docker]'; "
            f"or {_FALLBACK}"
        ) from None
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as e:  # noqa: BLE001 - any failure means: no usable engine
        host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        raise BackendUnavailable(
            f"no Docker engine is reachable at {host} ({type(e).__name__}: {e}); start Docker "
            f"(or set DOCKER_HOST), or {_FALLBACK}"
        ) from None
    return client


def image_tag() -> str:
    """The image tag the current inputs give (see `docker_image.Recipe.tag`)."""
    return docker_image.host_recipe().tag


def ensure_image(client: Any) -> str:
    """Build the sandbox image offline unless the engine already has it; returns its tag."""
    return docker_image.ensure_image(client)


def _container_kwargs(
    limits: SandboxLimits, env: Mapping[str, str], *, scoring: bool = False
) -> dict[str, Any]:
    from docker.types import Ulimit

    # The address-space limit is the container's memory limit instead (Docker's rlimits
    # bind each process; mem_limit binds the container as a whole).
    ulimits = [
        Ulimit(name=name, soft=soft, hard=hard)
        for name, (soft, hard) in rlimits(limits).items()
        if name != "as"
    ]
    return {
        "network_mode": "none",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"]
        + ([f"seccomp={_SCORING_SECCOMP}"] if scoring else []),
        "read_only": True,
        # pid 1 reaps orphans (they would pile up against the pids limit); `kill -9 -1`,
        # which ends every command's leftovers, spares pid 1 by definition.
        "init": False,
        "mem_limit": f"{limits.memory_mb}m",
        "memswap_limit": f"{limits.memory_mb}m",
        "pids_limit": limits.max_procs,
        "ulimits": ulimits,
        "environment": {**fixed_env(), **env},
        "detach": True,
        "auto_remove": False,
        "labels": {
            "swarm-envs": "sandbox",
            "swarm-envs.host": socket.gethostname(),
            "swarm-envs.pid": str(os.getpid()),
        },
    }


_swept: set[str] = set()


def _sweep_stale(client: Any) -> None:
    """Remove containers left by processes of this host that died without closing them."""
    key = str(getattr(client.api, "base_url", ""))
    if key in _swept:
        return
    _swept.add(key)
    host = socket.gethostname()
    with contextlib.suppress(Exception):
        flt = {"label": ["swarm-envs=sandbox", f"swarm-envs.host={host}"]}
        for c in client.containers.list(all=True, filters=flt):
            pid = int(c.labels.get("swarm-envs.pid", "0"))
            if pid and pid != os.getpid() and not os.path.exists(f"/proc/{pid}"):
                with contextlib.suppress(Exception):
                    c.remove(force=True)


class DockerSandbox(Sandbox):
    """A workspace on the host, bind-mounted into a per-episode container.

    Args:
        limits: resource limits (container-wide pids and memory, per-process rlimits).
        base_dir: where to create the host directories (default: the system temp dir).
    """

    backend = "docker"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        base_dir: pathlib.Path | None = None,
        env: Mapping[str, str] | None = None,
    ):
        self.limits = limits or SandboxLimits()
        self.env = dict(env or {})  # every container's, on top of the fixed environment
        self._closed = False
        self._containers: list[Any] = []
        self.client = _client()
        self.image = ensure_image(self.client)
        _sweep_stale(self.client)
        parent = users.user_root("swarm-envs-docker", base_dir)
        self._id = f"{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        self._dir = parent / self._id
        self._dir.mkdir(mode=0o700)
        self.root = self._dir / "ws"
        self.root.mkdir(mode=0o700)
        self._scoring_dir = self._dir / "scoring"
        self._scoring_dir.mkdir()
        os.chmod(self._scoring_dir, 0o755)  # only the scoring container mounts it
        self._scoring: DockerScoringHost | None = None
        self._lock = threading.Lock()
        remapped = self._engine_userns()
        self.users: users.SandboxUsers | None = None
        try:
            if users.uid_range() is not None:
                self.users = users.reserve(parent, self._dir)
            # The agent's uid must own the workspace: a dedicated one when we may hand it
            # over (root), else ours. Under a remapping engine, container uids are not the
            # host's: its root is already an unprivileged host uid.
            self._owner: int | None = None  # handed the workspace before each command
            if remapped:
                self._agent_user = None
            elif os.geteuid() == 0 and self.users is not None:
                self._owner = self.users.agent
                self._agent_user = f"{self._owner}:{self._owner}"
                users.hand_over(self.root, self._owner)
            else:
                self._agent_user = f"{os.getuid()}:{os.getgid()}"
            self.container = self._start_container(
                {str(self.root): {"bind": WORKSPACE_INSIDE, "mode": "rw"}}, WORKSPACE_INSIDE
            )
        except BaseException:
            self.close()
            raise
        self.protections = {
            "container": True,
            "rlimits": True,
            "process_group": True,
            "scrubbed_env": True,
            "unprivileged_user": remapped or self._agent_user not in (None, "0:0"),
            "dedicated_uid": remapped or self._owner is not None,
            "filesystem_view": True,
            "minimal_etc": True,
            "pid_namespace": True,
            "network_namespace": True,
            "ipc_namespace": True,
            "uts_namespace": True,
            "cgroup_pids": True,
            "cgroup_memory": True,
            "capabilities_dropped": True,
            "user_namespace": remapped,
            "fork_bomb_contained": True,
        }
        self._finalizer = weakref.finalize(
            self, _cleanup, list(self._containers), self._dir, self.users
        )

    def __repr__(self) -> str:
        return f"DockerSandbox({str(self.root)!r}, image={self.image!r})"

    def _engine_userns(self) -> bool:
        with contextlib.suppress(Exception):
            return any("userns" in o for o in self.client.info().get("SecurityOptions", []))
        return False

    def _start_container(
        self,
        volumes: dict[str, dict[str, str]],
        workdir: str,
        limits: SandboxLimits | None = None,
        *,
        scoring: bool = False,
    ) -> Any:
        try:
            c = self.client.containers.run(
                self.image,
                ["python3", "-c", _REAPER],
                volumes=volumes,
                working_dir=workdir,
                tmpfs={"/tmp": f"size={self.limits.file_size_mb * 4}m,exec"},
                name=f"swarm-envs-{self._id}-{len(self._containers)}",
                **_container_kwargs(limits or self.limits, self.env, scoring=scoring),
            )
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"cannot start a sandbox container from {self.image}: {e}") from e
        self._containers.append(c)
        return c

    # ------------------------------------------------------------------- commands

    def _kill_all(self, container: Any, user: str = "root") -> None:
        # Every process of `user` but init: a command's background processes do not
        # outlive it, a released worker takes its children with it.
        ok = False
        with contextlib.suppress(Exception):
            ok = container.exec_run(["/bin/sh", "-c", _KILL_ALL], user=user).exit_code == 0
        if not ok:
            # A fork bomb fills the pids limit, so no shell can start in the container to
            # kill it: kill from the host, by the host pids the engine reports.
            self._kill_from_host(container, None if user == "root" else int(user.split(":")[0]))

    def _kill_from_host(self, container: Any, uid: int | None) -> None:
        """SIGKILL the container's processes (of `uid`, or all) but its init, from here."""
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                init = int(self.client.api.inspect_container(container.id)["State"]["Pid"])
                rows = container.top(ps_args="-eo pid,uid")["Processes"] or []
            except Exception:  # noqa: BLE001 - the container is gone: nothing to kill
                return
            pids = [int(r[0]) for r in rows if uid is None or int(r[1]) == uid]
            pids = [p for p in pids if p != init]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        logger.warning("processes of uid %s in %s survived SIGKILL", uid, container.name)

    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command in the agent container (see `Sandbox.run`)."""
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, got {type(command).__name__}")
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        if not self.root.is_dir():
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self._owner is not None:
            users.hand_over(self.root, self._owner)
        timeout = self.limits.wall_s if timeout_s is None else timeout_s
        start = time.monotonic()
        refused = unrunnable(command)
        if refused is not None:
            return CommandResult(2, refused, False, False, time.monotonic() - start)
        api = self.client.api
        try:
            ex = api.exec_create(
                self.container.id,
                [*_SHELL, command],
                stdout=True,
                stderr=True,
                workdir=WORKSPACE_INSIDE,
                user=self._agent_user or "",
            )
            sock = api.exec_start(ex["Id"], socket=True)
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"the sandbox container is not usable: {e}") from e
        es = _ExecSocket(sock, merge_stderr=True)
        chunks: queue.Queue[bytes | None] = queue.Queue()

        def pump() -> None:
            try:
                while chunk := es.stdout.read(65536):
                    chunks.put(chunk)
            except (OSError, ValueError):  # the pipe closed under us: the command is over
                pass
            finally:
                chunks.put(None)

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        cap = OutputCap(self.limits.output_bytes)
        deadline = start + timeout
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            try:
                chunk = chunks.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if chunk is None:
                break
            cap.add(chunk)
        rc = None if timed_out else self._exit_code(ex["Id"])
        # As the agent's uid: the container's root has no CAP_KILL over other uids.
        self._kill_all(self.container, self._agent_user or "root")
        es.close()  # the connection to the engine and the pipe, not left to the collector
        t.join(timeout=5)
        output, truncated = cap.text()
        if timed_out:
            output += f"\n[killed: wall-clock limit of {timeout:g} s reached]\n"
        elif rc is not None and rc >= 128:
            output += f"\n[killed by signal {rc - 128}]\n"
        return CommandResult(rc, output, timed_out, truncated, time.monotonic() - start)

    def _exit_code(self, exec_id: str) -> int | None:
        # The stream can end a moment before the engine records the exit.
        end = time.monotonic() + 5
        while True:
            try:
                info = self.client.api.exec_inspect(exec_id)
            except Exception:  # noqa: BLE001
                return None
            if not info.get("Running") or time.monotonic() > end:
                return info.get("ExitCode")
            time.sleep(0.01)

    def scoring_host(self) -> DockerScoringHost:
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        with self._lock:
            if self._scoring is None:
                # The fork server lives long and applies per-evaluation limits to its
                # children itself: no CPU-time limit for it, room for two evaluations.
                lim = self.limits.model_copy(
                    update={"cpu_s": 10**7, "memory_mb": self.limits.memory_mb * 3}
                )
                c = self._start_container(
                    {str(self._scoring_dir): {"bind": SCORING_INSIDE, "mode": "ro"}},
                    SCORING_INSIDE,
                    lim,
                    scoring=True,
                )
                self._scoring = DockerScoringHost(self, c)
                self._finalizer.detach()
                self._finalizer = weakref.finalize(
                    self, _cleanup, list(self._containers), self._dir, self.users
                )
        return self._scoring

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._scoring is not None:
            self._scoring.close()
        if hasattr(self, "_dir"):
            _cleanup(list(self._containers), self._dir, getattr(self, "users", None))
        self._containers = []
        fin = getattr(self, "_finalizer", None)
        if fin is not None:
            fin.detach()
        client = getattr(self, "client", None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()  # its connections to the engine


def _cleanup(
    containers: list[Any], path: pathlib.Path, sandbox_users: users.SandboxUsers | None
) -> None:
    for c in containers:
        with contextlib.suppress(Exception):
            c.remove(force=True)
    with contextlib.suppress(OSError):
        force_rmtree(path)
    if sandbox_users is not None:
        sandbox_users.release()


class _ExecSocket:
    """Demultiplexes a `docker exec` attach socket: stdout frames into a local pipe.

    The tail of stderr is kept for error messages (`DockerScoringHost.worker_log`); with
    `merge_stderr`, stderr frames join stdout in the pipe, in the order they came (a shell
    command's output as a terminal shows it).
    """

    def __init__(self, sock: Any, *, merge_stderr: bool = False):
        self.sock = sock
        self.raw: socket.socket = getattr(sock, "_sock", sock)
        self.merge_stderr = merge_stderr
        # The client's request timeout is on the socket: a process silent for that long
        # would read as its end. Its lifetime is bounded by whoever kills it, not here.
        self.raw.settimeout(None)
        self.stderr_tail = b""
        r, w = os.pipe()
        self.stdout = os.fdopen(r, "rb", buffering=0)
        self._w = w
        self.stdin = _SocketWriter(self.raw)
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def _read_exactly(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            data = self.raw.recv(n - len(buf))
            if not data:
                raise EOFError
            buf += data
        return buf

    def _pump(self) -> None:
        try:
            while True:
                header = self._read_exactly(8)
                kind, size = struct.unpack(">BxxxL", header)
                payload = self._read_exactly(size)
                if kind == 1 or (kind == 2 and self.merge_stderr):  # stdout: the channel
                    os.write(self._w, payload)
                elif kind == 2:
                    self.stderr_tail = (self.stderr_tail + payload)[-2000:]
        except (EOFError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(self._w)

    def close(self) -> None:
        # The SocketIO wrapper first: while it is open, closing the socket only marks it.
        for s in (self.sock, self.raw):
            with contextlib.suppress(OSError):
                s.close()
        # The pump ends on the closed socket and closes the pipe's write end, so a reader
        # sees the end of the stream; then the read end, not left to the collector (which
        # would warn about it wherever it happens to run).
        self._t.join(timeout=5)
        with contextlib.suppress(OSError):
            self.stdout.close()


class _SocketWriter:
    def __init__(self, raw: socket.socket):
        self.raw = raw

    def write(self, data: bytes) -> int:
        self.raw.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_WR)


class DockerScoringHost(ScoringHost):
    """The scoring area of a Docker sandbox, which agents' commands never reach.

    A host directory, mounted read-only at `/scoring` in the sandbox's scoring container.
    """

    python = "python3"

    def __init__(self, sandbox: DockerSandbox, container: Any):
        self.sandbox = sandbox
        self.container = container
        self.dir = sandbox._scoring_dir
        self.inside_dir = SCORING_INSIDE
        self._sockets: list[_ExecSocket] = []
        self._last_log = b""
        self._live: set[int] = set()
        self._next = itertools.count()
        self._lock = threading.Lock()

    def sync(self, rel: str, files: Mapping[str, bytes | None]) -> None:
        if self.sandbox.closed:
            raise SandboxError(f"{self.sandbox!r} is closed; create a new sandbox")
        write_tree(self.dir / rel, files)

    def remove_tree(self, rel: str) -> None:
        force_rmtree(self.dir / rel)

    def _worker_uid(self) -> int | None:
        """A uid that no live worker of this sandbox has (None: no dedicated uids)."""
        block = self.sandbox.users
        if block is None:
            return None
        with self._lock:
            for _ in range(users.BLOCK):
                uid = block.scorer(next(self._next))
                if uid not in self._live:
                    self._live.add(uid)
                    return uid
        raise SandboxError(
            f"{self.sandbox!r} has {len(self._live)} live scoring workers, the most it can "
            "tell apart; kill some before starting more"
        )

    def start_worker(self, argv: Sequence[str], *, long_lived: bool = False) -> WorkerHandle:
        if self.sandbox.closed:
            raise SandboxError(f"{self.sandbox!r} is closed; create a new sandbox")
        api = self.sandbox.client.api
        uid = self._worker_uid()
        try:
            ex = api.exec_create(
                self.container.id,
                list(argv),
                stdin=True,
                stdout=True,
                stderr=True,
                workdir=SCORING_INSIDE,
                user=f"{uid}:{uid}" if uid is not None else "",
            )
            sock = api.exec_start(ex["Id"], socket=True)
        except Exception as e:  # noqa: BLE001
            with self._lock:
                self._live.discard(uid)
            raise SandboxError(f"cannot start the scoring worker: {e}") from e
        es = _ExecSocket(sock)
        self._sockets.append(es)
        exec_id = ex["Id"]
        killed = threading.Event()

        def kill() -> None:
            if killed.is_set():
                return
            killed.set()
            es.close()
            self._last_log = es.stderr_tail or self._last_log
            with contextlib.suppress(ValueError):
                self._sockets.remove(es)
            if uid is None:
                self.sandbox._kill_all(self.container)  # no uid of its own: everything
                return
            # Only this worker's uid: the other workers of the container live on.
            self.sandbox._kill_all(self.container, f"{uid}:{uid}")
            with self._lock:
                self._live.discard(uid)

        def poll() -> int | None:
            with contextlib.suppress(Exception):
                info = api.exec_inspect(exec_id)
                if not info.get("Running"):
                    return int(info.get("ExitCode") or 0)
            return None

        return WorkerHandle(stdin=es.stdin, stdout=es.stdout, pid=-1, _kill=kill, _poll=poll)  # type: ignore[arg-type]

    def worker_log(self) -> str:
        """The tail of the workers' stderr (the live ones, else the last one killed)."""
        tails = [s.stderr_tail for s in list(self._sockets) if s.stderr_tail]
        data = b"".join(tails) or self._last_log
        return data[-2000:].decode("utf-8", errors="replace")

    def close(self) -> None:
        for s in self._sockets:
            s.close()
        self._sockets = []
