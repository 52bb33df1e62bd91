"""The contract every sandbox backend must pass: create, write, read, run, timeout, limits,
cleanup, confinement.

Parametrized over the backends: the local sandbox at each isolation level this machine
offers (bubblewrap, unshare, none) and Docker (skipped, with the reason, where no engine is
reachable). Checks that need a protection a level does not have are skipped with the name
of the missing protection.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from swarm_envs.sandboxes import SandboxLimits, make_sandbox
from swarm_envs.sandboxes.local import ISOLATIONS, LocalSandbox

from swarm_envs.error import BackendUnavailable, ConfigError, SandboxError

BACKENDS = [f"local-{iso}" for iso in ISOLATIONS] + ["docker"]


def _make(backend: str, limits: SandboxLimits | None = None):
    if backend == "docker":
        return make_sandbox("docker", limits=limits)
    return LocalSandbox(limits, isolation=backend.split("-", 1)[1])


@pytest.fixture(params=BACKENDS)
def make(request):
    made = []

    def factory(**limits):
        try:
            sb = _make(request.param, SandboxLimits(**limits) if limits else None)
        except BackendUnavailable as e:
            pytest.skip(f"{request.param}: {e}")
        made.append(sb)
        return sb

    yield factory
    for sb in made:
        sb.close()


def need(sb, *protections: str) -> None:
    missing = [p for p in protections if not sb.protections.get(p)]
    if missing:
        pytest.skip(f"{sb.backend} sandbox here lacks {', '.join(missing)}")


def host_processes_with(marker: str) -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in cmd:
                out.append(cmd.decode(errors="replace"))
    return out


def test_create_gives_an_empty_workspace(make):
    sb = make()
    assert sb.root.is_dir() and list(sb.root.iterdir()) == []
    assert sb.protections and all(isinstance(v, bool) for v in sb.protections.values())
    assert sb.backend in sb.describe()
    other = make()
    assert other.root != sb.root


def test_host_writes_are_visible_to_commands(make):
    sb = make()
    (sb.root / "pkg").mkdir()
    (sb.root / "pkg" / "a.txt").write_text("hello from the host\n")
    r = sb.run("cat pkg/a.txt")
    assert r.returncode == 0 and r.output == "hello from the host\n"
    assert not r.timed_out and not r.truncated and r.wall_s > 0


def test_command_writes_are_visible_on_the_host(make):
    sb = make()
    r = sb.run("mkdir -p d/e && printf 'x\\n' > d/e/f.txt && echo done")
    assert r.ok and r.output.strip() == "done"
    assert (sb.root / "d" / "e" / "f.txt").read_text() == "x\n"


def test_run_reports_status_and_interleaved_output(make):
    sb = make()
    r = sb.run("echo out; echo err 1>&2; echo out2; exit 3")
    assert r.returncode == 3 and not r.ok
    assert r.output.splitlines() == ["out", "err", "out2"]
    assert sb.run("true").returncode == 0


def test_python_and_pytest_are_available(make):
    sb = make()
    r = sb.run("python -c 'import pytest, sys; print(sys.version_info[0])'")
    assert r.returncode == 0, r.output
    assert r.output.strip() == "3"


def test_environment_is_scrubbed(make, monkeypatch):
    monkeypatch.setenv("SWARM_TEST_SECRET", "hunter2")
    sb = make()
    r = sb.run("env")
    assert "hunter2" not in r.output and "SWARM_TEST_SECRET" not in r.output
    assert "PYTHONDONTWRITEBYTECODE=1" in r.output


def test_timeout_kills_the_whole_process_group(make):
    sb = make()
    t0 = time.monotonic()
    r = sb.run("sleep 971 & sleep 972; echo never", timeout_s=1)
    assert r.timed_out and r.returncode is None
    assert "wall-clock limit" in r.output and "never" not in r.output
    assert time.monotonic() - t0 < 10
    time.sleep(0.2)
    assert host_processes_with("sleep 971") == []
    assert host_processes_with("sleep 972") == []


def test_background_processes_do_not_outlive_their_command(make):
    sb = make()
    r = sb.run(
        "(setsid sleep 973 > /dev/null 2>&1 &); nohup sleep 974 > /dev/null 2>&1 & echo started"
    )
    assert r.returncode == 0 and "started" in r.output
    assert r.wall_s < 10
    time.sleep(0.2)
    assert host_processes_with("sleep 973") == [] and host_processes_with("sleep 974") == []


def test_output_is_capped_with_a_marker(make):
    sb = make(output_bytes=1000)
    r = sb.run("yes | head -c 1000000; echo tail")
    assert r.truncated and r.returncode == 0
    assert len(r.output) < 1200 and "truncated" in r.output


def test_default_wall_limit_applies(make):
    sb = make(wall_s=1)
    r = sb.run("sleep 30")
    assert r.timed_out and r.wall_s < 10


def test_cpu_limit(make):
    need(make(), "rlimits")
    sb = make(cpu_s=1)
    r = sb.run("python -c 'while True: pass'", timeout_s=20)
    assert not r.timed_out and r.returncode != 0 and r.wall_s < 15


def test_memory_limit(make):
    need(make(), "rlimits")
    sb = make(memory_mb=256)
    r = sb.run("python -c 'x = bytearray(1024 ** 3); print(len(x))'")
    assert r.returncode != 0 and str(1024**3) not in r.output


def test_file_size_limit(make):
    need(make(), "rlimits")
    sb = make(file_size_mb=1)
    r = sb.run("head -c 5000000 /dev/zero > big; echo rc=$?")
    assert (sb.root / "big").stat().st_size <= 1024 * 1024
    assert "rc=0" not in r.output


def test_open_files_limit(make):
    need(make(), "rlimits")
    sb = make(open_files=32)
    r = sb.run(
        "python -c \"fs = [open('f%d' % i, 'w') for i in range(100)]\"",
    )
    assert r.returncode != 0 and "Too many open files" in r.output


@pytest.mark.timeout(120)
def test_fork_bomb_is_contained(make):
    need(make(), "fork_bomb_contained")
    sb = make(max_procs=40)
    t0 = time.monotonic()
    r = sb.run("bash -c ':(){ :|:& };:'; echo survived", timeout_s=5)
    assert time.monotonic() - t0 < 30
    assert r.returncode is not None or r.timed_out
    again = sb.run("echo alive")
    assert again.output.strip() == "alive"


def test_memory_bomb_ends_with_an_observation(make):
    sb = make(memory_mb=256)
    r = sb.run("python -c 'x = []\nwhile True: x.append(bytearray(10**7))'", timeout_s=20)
    assert r.returncode not in (0, None) or r.timed_out
    assert sb.run("echo alive").output.strip() == "alive"


def test_deleting_the_workspace_leaves_the_sandbox_usable(make):
    sb = make()
    (sb.root / "a.txt").write_text("a")
    sb.run('rm -rf ./* "$PWD" 2>/dev/null; cd / ; rm -rf /workspace 2>/dev/null; echo done')
    r = sb.run("echo back > b.txt && cat b.txt")
    assert r.output.strip() == "back"
    assert (sb.root / "b.txt").read_text().strip() == "back"


def test_killing_its_parent_leaves_the_host_alive(make):
    sb = make()
    # Without a pid namespace, `kill -9 -1` as root would kill every process of the host.
    need(sb, "pid_namespace")
    r = sb.run("kill -9 $PPID; kill -9 1; kill -9 -1; echo after")
    assert isinstance(r.returncode, int) or r.returncode is None
    assert sb.run("echo alive").output.strip() == "alive"


def test_close_removes_everything_and_is_twice_safe(make):
    sb = make()
    (sb.root / "x").write_text("x")
    sb.run("sleep 975 > /dev/null 2>&1 &")
    root = sb.root
    sb.close()
    sb.close()
    assert not root.exists()
    assert host_processes_with("sleep 975") == []
    with pytest.raises(SandboxError, match="closed"):
        sb.run("true")


def test_context_manager_closes(make):
    sb = make()
    with sb as inside:
        assert inside is sb
        root = sb.root
    assert not root.exists()


def test_no_path_outside_the_workspace_is_reachable(make, tmp_path):
    sb = make()
    need(sb, "filesystem_view")
    secret = tmp_path / "host-secret.txt"
    secret.write_text("do not read")
    r = sb.run(
        f"cat {secret}; ls {tmp_path}; cat ../../{secret}; ln -s {tmp_path} link; cat link/host-secret.txt"
    )
    assert "do not read" not in r.output
    r = sb.run(
        f"echo pwned > {tmp_path}/evil.txt; echo pwned > /tmp/evil.txt; echo pwned > /etc/evil"
    )
    assert not (tmp_path / "evil.txt").exists()
    assert not Path("/etc/evil").exists()


def test_no_network(make):
    sb = make()
    need(sb, "network_namespace")
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        r = sb.run(
            'python -c "import socket; '
            f"socket.create_connection(('127.0.0.1', {port}), timeout=2); "
            "print('connected')\""
        )
        assert "connected" not in r.output
        assert r.returncode != 0
    finally:
        srv.close()


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="local"):
        make_sandbox("podman")


def test_weaker_isolation_than_requested_is_refused():
    with pytest.raises(ConfigError):
        LocalSandbox(isolation="chroot")


def test_docker_without_an_engine_says_so_and_how_to_fall_back():
    try:
        sb = make_sandbox("docker")
    except BackendUnavailable as e:
        msg = str(e)
        assert "Docker" in msg and "make_sandbox('local')" in msg
    else:  # an engine exists here: the contract tests above ran against it
        sb.close()


def test_docker_exec_stream_demultiplexing():
    """The scoring channel of the Docker backend: stdout frames only, in order, to EOF."""
    import socket
    import struct

    from swarm_envs.sandboxes.docker import _ExecSocket

    ours, theirs = socket.socketpair()
    es = _ExecSocket(ours)
    for kind, payload in ((1, b"nonce {"), (2, b"stderr noise"), (1, b'"ev": 1}\n'), (1, b"")):
        theirs.sendall(struct.pack(">BxxxL", kind, len(payload)) + payload)
    es.stdin.write(b"request\n")
    assert theirs.recv(100) == b"request\n"
    theirs.close()
    assert es.stdout.read() == b'nonce {"ev": 1}\n'
    es.close()
