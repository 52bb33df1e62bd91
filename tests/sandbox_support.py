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
import gc
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings
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
    why = None
    try:
        client = docker.from_env(timeout=10)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as e:  # noqa: BLE001 - any failure: no engine
        why = f"no Docker engine answers ({type(e).__name__})"
    if why is not None:
        # A failed constructor leaves its connection to the collector, which would warn
        # about it in whatever test runs then: collect it here, quietly.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()
    return why


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
        # The engine's data root must be a real path (runc refuses a container root under a
        # symbolic link), and the tests' cache folders are links to the session's.
        cache = cache.resolve()
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


# ------------------------------------------------------------ machine configurations
#
# The security suite runs under each configuration users have (tests/test_sandbox_
# configurations.py). Each one is a child process that this file starts as its own
# script: `launch` sets the configuration up in namespaces of the child's own (nothing
# changes on the host), then execs `attack`, which creates a local sandbox through the
# public API, runs attacks in it and prints what happened as JSON.

ATTACK_PATHS = ("/tmp", "/var/tmp", "/dev/shm", "/root", "/home")


def _libc():  # noqa: ANN202 - a ctypes handle
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _check(rc: int, what: str) -> None:
    import ctypes

    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_MOVE = 4096, 16384, 1 << 18, 8192
_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000


def _mount(src: str, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    libc = _libc()
    rc = libc.mount(
        src.encode(),
        dst.encode(),
        fstype.encode() if fstype else None,
        flags,
        data.encode() if data else None,
    )
    _check(rc, f"mount {src} {dst}")


def _expose_python() -> None:
    """Make this Python reachable by every uid, in this mount namespace only.

    The first folder above the Python's prefix that others cannot enter (a home folder of
    mode 0700) is covered by a traversable tmpfs holding only the prefix's branch.
    """
    import sys

    prefix = pathlib.Path(os.path.realpath(sys.base_prefix))
    blocked = next((a for a in reversed(prefix.parents) if not os.stat(a).st_mode & 0o001), None)
    if blocked is None:
        return
    branch = prefix.relative_to(blocked).parts[0]
    hold = tempfile.mkdtemp(prefix="swarm-cfg-hold-")
    _mount(str(blocked / branch), hold, None, _MS_BIND | _MS_REC)
    _mount("tmpfs", str(blocked), "tmpfs", 0, "mode=755")
    (blocked / branch).mkdir()
    _mount(hold, str(blocked / branch), None, _MS_MOVE)
    os.rmdir(hold)


def launch(opts: dict[str, object]) -> None:
    """Set up one configuration in this process, then exec the attack (as root only)."""
    import json
    import sys

    libc = _libc()
    uid = opts.get("uid")
    if opts.get("no_userns"):
        # A user namespace of our own whose limit of nested user namespaces is 0: nothing
        # started in it can create one (bubblewrap fails as where the kernel forbids them).
        r, w = os.pipe()
        r2, w2 = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.close(w2)
            _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
            os.write(w, b"x")
            os.read(r2, 1)  # the parent wrote our uid and gid maps
            pathlib.Path("/proc/sys/user/max_user_namespaces").write_text("0")
        else:
            os.close(w)
            os.close(r2)
            os.read(r, 1)
            maps = f"0 0 1\n{uid} {uid} 1\n"
            pathlib.Path(f"/proc/{pid}/uid_map").write_text(maps)
            pathlib.Path(f"/proc/{pid}/gid_map").write_text(maps)
            os.write(w2, b"x")
            _, status = os.waitpid(pid, 0)
            os._exit(os.waitstatus_to_exitcode(status))
    else:
        _check(libc.unshare(_CLONE_NEWNS), "unshare")
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE)  # nothing propagates to the host
    if opts.get("hide_system_bwrap"):
        for d in os.environ.get("PATH", "").split(":") + ["/usr/bin", "/bin", "/usr/local/bin"]:
            b = os.path.join(d, "bwrap")
            if d and os.path.isfile(b):
                _mount("/dev/null", b, None, _MS_BIND)
    if uid is not None:
        _expose_python()
        os.setgroups([])
        os.setresgid(uid, uid, uid)  # type: ignore[arg-type]
        os.setresuid(uid, uid, uid)  # type: ignore[arg-type]
    argv = [sys.executable, __file__, "attack", json.dumps(opts)]
    os.execve(sys.executable, argv, {k: str(v) for k, v in dict(opts["env"]).items()})  # type: ignore[call-overload]


def attack(opts: dict[str, object]) -> dict[str, object]:
    """Create a local sandbox as configured and attack the host from it."""
    import importlib.util
    import json  # noqa: F401 - used by the caller

    from swarm_envs.error import SandboxError
    from swarm_envs.sandboxes import make_sandbox
    from swarm_envs.sandboxes.launch import bwrap_binary

    token = str(opts["token"])
    out: dict[str, object] = {"euid": os.geteuid(), "bwrap": bwrap_binary()}
    try:
        sb = make_sandbox("local")
    except SandboxError as e:
        out["refused"] = str(e)
        try:  # a weaker level asked for by name still runs, and says what it lacks
            with make_sandbox("local", isolation="none") as weak:
                out["weak"] = weak.describe()
                out["weak_id"] = weak.run("id -u").output.strip()
        except SandboxError as e2:
            out["weak"] = f"refused: {e2}"
        # The same through the public API: reset refuses, or runs weakened when asked.
        import swarm_envs

        for level in (None, "none"):
            env = swarm_envs.parallel_env("calc", num_agents=1, sandbox_isolation=level)
            try:
                obs, infos = env.reset(seed=0)
                out[f"reset_{level}"] = obs["agent_0"].splitlines()[0]
                out[f"reset_{level}_passed"] = infos["agent_0"]["tests_passed"]
            except SandboxError as e3:
                out[f"reset_{level}"] = f"SandboxError: {str(e3).splitlines()[0]}"
            finally:
                env.close()
        return out
    reports = pathlib.Path(importlib.util.find_spec("_pytest").origin).parent / "reports.py"  # type: ignore[arg-type,union-attr]
    targets = [*ATTACK_PATHS, str(opts["host_home"]), str(reports.parent)]
    listener = socket.create_server(("127.0.0.1", 0))
    with sb, listener:
        out["describe"] = sb.describe()
        out["protections"] = sb.protections
        out["weakness"] = sb.weakness()
        run = {
            "uid": "id -u",
            "root": "ls -A /root 2>&1",
            "home": "ls -A /home 2>&1",
            "write": " ".join(
                f"echo x > {t}/swarm-attack-{token} 2>/dev/null && echo {t};" for t in targets
            )
            + f" echo '# {token}' >> {reports} 2>/dev/null && echo tampered;",
            # A listener of the host's on loopback: a command in the host's network
            # namespace reaches it (0), one in a namespace of its own cannot. Nothing here
            # is ever sent beyond this machine.
            "net": 'python3 -c "import socket; s=socket.socket(); s.settimeout(3); '
            f"print(s.connect_ex(('127.0.0.1', {listener.getsockname()[1]})))\"; "
            "ls /sys/class/net",
            "procs": "ls /proc | grep -c '^[0-9]'",
            "mp": 'python3 -c "import multiprocessing as m\n'
            "if __name__ == '__main__':\n"
            "    q = m.Queue(); p = m.Process(target=q.put, args=(7,)); p.start(); p.join()\n"
            '    with m.Pool(2) as pool: print(sum(pool.map(abs, [-1, -2])), q.get())"',
        }
        out["runs"] = {k: sb.run(v, timeout_s=20).output for k, v in run.items()}
        host = sb.scoring_host()
        host.sync("t", {"x.txt": b"scored"})
        w = host.start_worker(["/bin/sh", "-c", f"id -u; cat {host.inside_dir}/t/x.txt"])
        out["worker"] = w.stdout.read().decode()
        w.kill()
    return out


def host_state(token: str, home: str) -> dict[str, object]:
    """What the attacks could have changed on the host: markers, and package digests."""
    import hashlib
    import importlib.util

    found = []
    for d in [*ATTACK_PATHS, home]:
        with contextlib.suppress(OSError):
            found += [f"{d}/{n}" for n in os.listdir(d) if token in n]
    digests = {}
    for mod in ("pytest", "_pytest", "pluggy", "swarm_envs"):
        spec = importlib.util.find_spec(mod)
        assert spec is not None and spec.origin is not None
        root = pathlib.Path(spec.origin).parent
        files = (
            sorted(root.rglob("*.py"))
            if spec.origin.endswith("__init__.py")
            else [pathlib.Path(spec.origin)]
        )
        h = hashlib.sha256()
        for f in files:
            h.update(str(f).encode() + f.read_bytes())
        digests[mod] = h.hexdigest()
    return {"markers": sorted(found), "digests": digests}


if __name__ == "__main__":
    import json
    import sys

    what, raw = sys.argv[1], json.loads(sys.argv[2])
    if what == "launch":
        launch(raw)
    else:
        print("RESULT " + json.dumps(attack(raw)), flush=True)
