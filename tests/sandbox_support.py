"""Test support for the sandbox backends: a Docker engine for the session, the backend
parameter every backend-independent test runs over, and process helpers.

`sandbox_backend` parametrizes a test over `local` and `docker`; the Docker case needs an
engine. If none is reachable, the session starts a private `dockerd` (as root, when it is
installed: `apt-get install docker.io`) with its own socket, on no network, and stops it
at the end; its data root is cached (`swarm_envs.sandboxes.docker_image.cache_dir()`), so
the image, built once by content, survives between sessions. Where no engine can run, the
Docker cases skip and say why.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator

import pytest

BACKENDS = ("local", "docker")


def host_processes_with(marker: str) -> list[str]:
    """Command lines of host processes that contain `marker`."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in cmd:
                out.append(cmd.decode(errors="replace"))
    return out


def wait_until(check: Callable[[], object], timeout_s: float = 15.0) -> bool:
    """Poll `check` until it is true or the deadline passes; its last value decides."""
    end = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > end:
            return bool(check())
        time.sleep(0.02)
    return True


def _ping() -> str | None:
    """None if an engine answers at DOCKER_HOST (or the default socket), else why not."""
    try:
        import docker
    except ImportError:
        return "the Docker SDK is not installed (pip install 'swarm-envs[docker]')"
    try:
        client = docker.from_env(timeout=10)
        client.ping()
        client.close()
    except Exception as e:  # noqa: BLE001 - any failure: no engine
        return f"no Docker engine answers ({type(e).__name__})"
    return None


class _Engine:
    """The session's Docker engine: an existing one, or a private dockerd we started."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.run_dir: pathlib.Path | None = None
        self.lock: int | None = None
        self.saved_host = os.environ.get("DOCKER_HOST")

    def start(self) -> None:
        why = _ping()
        if why is None:
            return self._image()
        if os.geteuid() != 0 or not shutil.which("dockerd"):
            self.reason = (
                f"{why}, and none can be started here (needs root and dockerd: "
                "apt-get install docker.io)"
            )
            return None
        from swarm_envs.sandboxes.docker_image import cache_dir

        cache = cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        self.run_dir = pathlib.Path(tempfile.mkdtemp(prefix="swarm-envs-dockerd-"))
        data = cache / "dockerd"
        # One engine per data root: a concurrent session gets a fresh one (and rebuilds the
        # image there from the cached root filesystem and wheels).
        self.lock = os.open(cache / "dockerd.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            data = self.run_dir / "data"
        sock = self.run_dir / "docker.sock"
        argv = ["dockerd", "--data-root", str(data), "--exec-root", str(self.run_dir / "exec")]
        argv += ["--pidfile", str(self.run_dir / "docker.pid"), "--host", f"unix://{sock}"]
        # Sandbox containers have no network: no bridge, no firewall rules on the host.
        argv += ["--bridge=none", "--iptables=false", "--ip-masq=false"]
        log = open(self.run_dir / "dockerd.log", "wb")  # noqa: SIM115 - the engine's
        self.proc = subprocess.Popen(
            argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()
        os.environ["DOCKER_HOST"] = f"unix://{sock}"
        end = time.monotonic() + 60
        while _ping() is not None:
            if self.proc.poll() is not None or time.monotonic() > end:
                tail = (self.run_dir / "dockerd.log").read_text(errors="replace")[-600:]
                self.reason = f"dockerd did not start: {tail}"
                self.stop()
                return None
            time.sleep(0.2)
        return self._image()

    def _image(self) -> None:
        import docker

        from swarm_envs.error import BackendUnavailable
        from swarm_envs.sandboxes.docker_image import ensure_image

        client = docker.from_env(timeout=600)
        try:
            ensure_image(client)
        except BackendUnavailable as e:
            self.reason = str(e)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(Exception):
                import docker

                client = docker.from_env(timeout=30)
                for c in client.containers.list(all=True, filters={"label": "swarm-envs"}):
                    c.remove(force=True)
                client.close()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            self.proc = None
        if self.saved_host is None:
            os.environ.pop("DOCKER_HOST", None)
        else:
            os.environ["DOCKER_HOST"] = self.saved_host
        if self.run_dir is not None:
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.run_dir = None
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None


@pytest.fixture(scope="session")
def docker_engine() -> Iterator[str | None]:
    """None when the Docker backend can run in this session, else the reason it cannot."""
    engine = _Engine()
    try:
        engine.start()
        yield engine.reason
    finally:
        engine.stop()


@pytest.fixture(params=BACKENDS)
def sandbox_backend(request: pytest.FixtureRequest) -> str:
    """The name of a sandbox backend (`make_sandbox(sandbox_backend)`); every one runs."""
    if request.param == "docker":
        reason = request.getfixturevalue("docker_engine")
        if reason is not None:
            pytest.skip(f"docker: {reason}")
    return request.param
