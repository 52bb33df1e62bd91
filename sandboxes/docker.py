"""The Docker backend: one container per episode, through the Docker SDK.

Needs the `docker` extra (`pip install 'swarm-envs[docker]'`) and a reachable engine
(`DOCKER_HOST` or the local socket). The image is built on first use from
`sandboxes/image/Dockerfile` (tag `swarm-envs-sandbox:<hash of the Dockerfile>`).

Each sandbox has two containers from that image, both with no network, all capabilities
dropped, `no-new-privileges`, a read-only root filesystem, a private `/tmp`, a pids limit,
a memory limit and the same rlimits as the local backend:

- the *agent* container mounts the workspace (`Sandbox.root` on the host) at
  `/workspace`; agents' commands run there (`docker exec`). After each command every
  process but the container's init is killed, so nothing outlives its command (as locally);
- the *scoring* container mounts only the private scoring area, read-only, at `/scoring`;
  the scoring worker runs there. Agents' commands never see the area, the reference
  solution or other episodes' files.

When no engine is reachable, `make_sandbox("docker")` raises `BackendUnavailable` saying so
and how to fall back (`make_sandbox("local")`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import os
import pathlib
import queue
import socket
import struct
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from swarm_envs.sandboxes.base import (
    CommandResult,
    OutputCap,
    Sandbox,
    SandboxLimits,
    ScoringHost,
    WorkerHandle,
    force_rmtree,
    write_tree,
)

from swarm_envs.error import BackendUnavailable, SandboxError

logger = logging.getLogger("swarm_envs.sandboxes")

IMAGE_DIR = pathlib.Path(__file__).resolve().parent / "image"
IMAGE_REPO = "swarm-envs-sandbox"
WORKSPACE_INSIDE = "/workspace"
SCORING_INSIDE = "/scoring"
_FALLBACK = (
    "use the local process sandbox instead: make_sandbox('local') "
    "(environment config sandbox='local', the default)"
)
_counter = itertools.count()
_REAPER = (
    "import os, time\n"
    "while True:\n"
    "    try:\n"
    "        os.wait()\n"
    "    except ChildProcessError:\n"
    "        time.sleep(1)\n"
)


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
    """The image tag for the current Dockerfile (its content hash)."""
    h = hashlib.sha256()
    for p in sorted(IMAGE_DIR.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(IMAGE_DIR).as_posix().encode() + b"\0" + p.read_bytes())
    return f"{IMAGE_REPO}:{h.hexdigest()[:12]}"


_image_lock = threading.Lock()


def ensure_image(client: Any) -> str:
    """Build the sandbox image unless the engine already has it; returns its tag."""
    import docker

    tag = image_tag()
    with _image_lock:
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            logger.info("building the sandbox image %s from %s", tag, IMAGE_DIR)
            try:
                client.images.build(path=str(IMAGE_DIR), tag=tag, rm=True, pull=False)
            except Exception as e:  # noqa: BLE001
                raise BackendUnavailable(
                    f"cannot build the sandbox image from {IMAGE_DIR}: {e}; or {_FALLBACK}"
                ) from None
    return tag


def _container_kwargs(limits: SandboxLimits) -> dict[str, Any]:
    from docker.types import Ulimit

    cpu = max(1, int(limits.cpu_s + 0.999))
    return {
        "network_mode": "none",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        # pid 1 reaps orphans (they would pile up against the pids limit); `kill -9 -1`,
        # which ends every command's leftovers, spares pid 1 by definition.
        "init": False,
        "mem_limit": f"{limits.memory_mb}m",
        "memswap_limit": f"{limits.memory_mb}m",
        "pids_limit": limits.max_procs,
        "ulimits": [
            Ulimit(name="cpu", soft=cpu, hard=cpu + 1),
            Ulimit(
                name="fsize",
                soft=limits.file_size_mb * 1024 * 1024,
                hard=limits.file_size_mb * 1024 * 1024,
            ),
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="nproc", soft=limits.max_procs, hard=limits.max_procs),
            Ulimit(name="core", soft=0, hard=0),
        ],
        "environment": {
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        },
        "detach": True,
        "auto_remove": False,
        "labels": {"swarm-envs": "sandbox", "swarm-envs.pid": str(os.getpid())},
    }


class DockerSandbox(Sandbox):
    """A workspace on the host, bind-mounted into a per-episode container.

    Args:
        limits: resource limits (container-wide pids and memory, per-process rlimits).
        base_dir: where to create the host directories (default: the system temp dir).
    """

    backend = "docker"

    def __init__(
        self, limits: SandboxLimits | None = None, *, base_dir: pathlib.Path | None = None
    ):
        self.limits = limits or SandboxLimits()
        self._closed = False
        self.client = _client()
        self.image = ensure_image(self.client)
        parent = pathlib.Path(base_dir or tempfile.gettempdir()) / "swarm-envs-docker"
        parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._id = f"{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        self._dir = parent / self._id
        self._dir.mkdir(mode=0o700)
        self.root = self._dir / "ws"
        self.root.mkdir()
        self._scoring_dir = self._dir / "scoring"
        self._scoring_dir.mkdir()
        self._containers: list[Any] = []
        self._scoring: DockerScoringHost | None = None
        self._lock = threading.Lock()
        try:
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
            "filesystem_view": True,
            "pid_namespace": True,
            "network_namespace": True,
            "ipc_namespace": True,
            "uts_namespace": True,
            "cgroup_pids": True,
            "cgroup_memory": True,
            "capabilities_dropped": True,
            "user_namespace": self._engine_userns(),
            "fork_bomb_contained": True,
        }
        self._finalizer = weakref.finalize(self, _cleanup, list(self._containers), self._dir)

    def __repr__(self) -> str:
        return f"DockerSandbox({str(self.root)!r}, image={self.image!r})"

    def _engine_userns(self) -> bool:
        with contextlib.suppress(Exception):
            return any("userns" in o for o in self.client.info().get("SecurityOptions", []))
        return False

    def _start_container(
        self, volumes: dict[str, dict[str, str]], workdir: str, limits: SandboxLimits | None = None
    ) -> Any:
        try:
            c = self.client.containers.run(
                self.image,
                ["python3", "-c", _REAPER],
                volumes=volumes,
                working_dir=workdir,
                tmpfs={"/tmp": f"size={self.limits.file_size_mb * 4}m,exec"},
                name=f"swarm-envs-{self._id}-{len(self._containers)}",
                **_container_kwargs(limits or self.limits),
            )
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"cannot start a sandbox container from {self.image}: {e}") from e
        self._containers.append(c)
        return c

    # ------------------------------------------------------------------- commands

    def _exec_stream(self, container: Any, argv: list[str], workdir: str) -> tuple[str, Any]:
        api = self.client.api
        ex = api.exec_create(container.id, argv, stdout=True, stderr=True, workdir=workdir)
        stream = api.exec_start(ex["Id"], stream=True, demux=False)
        return ex["Id"], stream

    def _kill_all(self, container: Any) -> None:
        # Every process but init; a command's background processes do not outlive it.
        with contextlib.suppress(Exception):
            container.exec_run(["sh", "-c", "kill -9 -1"], user="root")

    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command in the agent container (see `Sandbox.run`)."""
        if self._closed:
            raise SandboxError(f"{self!r} is closed; create a new sandbox")
        if not self.root.is_dir():
            self.root.mkdir(parents=True, exist_ok=True)
        timeout = self.limits.wall_s if timeout_s is None else timeout_s
        start = time.monotonic()
        try:
            exec_id, stream = self._exec_stream(
                self.container, ["/bin/sh", "-c", command], WORKSPACE_INSIDE
            )
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"the sandbox container is not usable: {e}") from e
        chunks: queue.Queue[bytes | None] = queue.Queue()

        def pump() -> None:
            try:
                for chunk in stream:
                    chunks.put(chunk)
            except Exception:  # noqa: BLE001 - the stream ends when we kill the command
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
        self._kill_all(self.container)
        t.join(timeout=5)
        rc: int | None = None
        if not timed_out:
            with contextlib.suppress(Exception):
                rc = self.client.api.exec_inspect(exec_id).get("ExitCode")
        output, truncated = cap.text()
        if timed_out:
            output += f"\n[killed: wall-clock limit of {timeout:g} s reached]\n"
        elif rc is not None and rc >= 128:
            output += f"\n[killed by signal {rc - 128}]\n"
        return CommandResult(rc, output, timed_out, truncated, time.monotonic() - start)

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
                )
                self._scoring = DockerScoringHost(self, c)
                self._finalizer.detach()
                self._finalizer = weakref.finalize(
                    self, _cleanup, list(self._containers), self._dir
                )
        return self._scoring

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._scoring is not None:
            self._scoring.close()
        _cleanup(list(self._containers), self._dir)
        self._containers = []
        fin = getattr(self, "_finalizer", None)
        if fin is not None:
            fin.detach()


def _cleanup(containers: list[Any], path: pathlib.Path) -> None:
    for c in containers:
        with contextlib.suppress(Exception):
            c.remove(force=True)
    with contextlib.suppress(OSError):
        force_rmtree(path)


class _ExecSocket:
    """Demultiplexes a `docker exec` attach socket: stdout frames into a local pipe."""

    def __init__(self, sock: Any):
        self.sock = sock
        self.raw: socket.socket = getattr(sock, "_sock", sock)
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
                if kind == 1:  # stdout; stderr (2) is not the channel
                    os.write(self._w, payload)
        except (EOFError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(self._w)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.close()


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

    def sync(self, rel: str, files: Mapping[str, bytes | None]) -> None:
        if self.sandbox.closed:
            raise SandboxError(f"{self.sandbox!r} is closed; create a new sandbox")
        write_tree(self.dir / rel, files)

    def remove_tree(self, rel: str) -> None:
        force_rmtree(self.dir / rel)

    def start_worker(self, argv: Sequence[str], *, long_lived: bool = False) -> WorkerHandle:
        api = self.sandbox.client.api
        try:
            ex = api.exec_create(
                self.container.id,
                list(argv),
                stdin=True,
                stdout=True,
                stderr=True,
                workdir=SCORING_INSIDE,
            )
            sock = api.exec_start(ex["Id"], socket=True)
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"cannot start the scoring worker: {e}") from e
        es = _ExecSocket(sock)
        self._sockets.append(es)
        exec_id = ex["Id"]

        def kill() -> None:
            es.close()
            self.sandbox._kill_all(self.container)

        def poll() -> int | None:
            with contextlib.suppress(Exception):
                info = api.exec_inspect(exec_id)
                if not info.get("Running"):
                    return int(info.get("ExitCode") or 0)
            return None

        return WorkerHandle(stdin=es.stdin, stdout=es.stdout, pid=-1, _kill=kill, _poll=poll)  # type: ignore[arg-type]

    def close(self) -> None:
        for s in self._sockets:
            s.close()
        self._sockets = []
