"""The contract every sandbox backend must pass: create, write, read, run, timeout, limits,
cleanup, confinement.

Parametrized over the backends: the local sandbox at each isolation level this machine
offers (bubblewrap, unshare, none) and Docker (on the session's engine, see
`sandbox_support`; skipped, with the reason, where none can run). Checks that need a
protection a level does not have are skipped with the name of the missing protection.
No check measures time: `benchmarks/bench_sandbox.py` does.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest
from sandbox_support import host_processes_with, wait_until

from swarm_envs.error import BackendUnavailable, ConfigError, SandboxError
from swarm_envs.sandboxes import SandboxLimits, make_sandbox
from swarm_envs.sandboxes.local import ISOLATIONS, LocalSandbox

BACKENDS = [f"local-{iso}" for iso in ISOLATIONS] + ["docker"]


def _make(backend: str, limits: SandboxLimits | None = None):
    if backend == "docker":
        return make_sandbox("docker", limits=limits)
    return LocalSandbox(limits, isolation=backend.split("-", 1)[1])


@pytest.fixture(params=BACKENDS)
def make(request):
    made = []
    if request.param == "docker":
        reason = request.getfixturevalue("docker_engine")
        if reason is not None:
            pytest.skip(f"docker: {reason}")

    def factory(**limits):
        try:
            sb = _make(request.param, SandboxLimits(**limits) if limits else None)
        except (BackendUnavailable, SandboxError) as e:
            # This machine cannot provide the level (the refusal names what is missing).
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


def gone(*markers: str) -> bool:
    """True once no host process carries any of `markers` (polled: a kill takes a moment)."""
    return wait_until(lambda: not any(host_processes_with(m) for m in markers))


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
    # Many alternations: two streams relayed separately would come back reordered.
    r = sb.run("for i in $(seq 1 300); do echo out$i; echo err$i 1>&2; done")
    expected = [f"{kind}{i}" for i in range(1, 301) for kind in ("out", "err")]
    assert r.output.splitlines() == expected


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
    r = sb.run("sleep 971 & sleep 972; echo never", timeout_s=1)
    assert r.timed_out and r.returncode is None
    assert "wall-clock limit" in r.output and "never" not in r.output
    assert gone("sleep 971", "sleep 972")


def test_background_processes_do_not_outlive_their_command(make):
    sb = make()
    r = sb.run(
        "(setsid sleep 973 > /dev/null 2>&1 &); nohup sleep 974 > /dev/null 2>&1 & echo started",
        timeout_s=20,
    )
    # The command returns when its shell exits, not when the background processes would.
    assert r.returncode == 0 and "started" in r.output and not r.timed_out
    assert gone("sleep 973", "sleep 974")


def test_a_background_child_holding_the_output_ends_with_its_command(make):
    sb = make()
    # The child keeps the command's output open: the command still ends when its shell
    # does, and the child with it, so what it would write later never lands.
    r = sb.run("(sleep 1.5; touch late_write) & echo x", timeout_s=20)
    assert r.returncode == 0 and r.output.strip() == "x" and not r.timed_out
    r = sb.run("(sleep 1.5; echo leaked > late_echo) & exit 3", timeout_s=20)
    assert r.returncode == 3
    time.sleep(2.5)  # past the moment the children would have written
    assert not (sb.root / "late_write").exists() and not (sb.root / "late_echo").exists()
    assert "late_write" not in sb.run("ls -a").output


LIST_PROCS = (
    r"""for p in /proc/[0-9]*; do echo "$p $(tr '\0' ' ' < $p/cmdline)"; done 2>/dev/null"""
)


def test_a_forking_background_process_is_gone_before_the_next_command(make):
    sb = make()
    need(sb, "pid_namespace")
    r = sb.run(
        "(setsid sh -c 'while :; do sleep 981 & sleep 0.01; done' > /dev/null 2>&1 &); "
        "sleep 982 > /dev/null 2>&1 & echo started",
        timeout_s=20,
    )
    assert r.returncode == 0 and "started" in r.output
    # The next command sees nothing of it: not a process, not a zombie. The command lines are
    # matched whole (the sandbox's own uid may contain the digits), and a zombie, whose
    # command line is empty, by the name in its stat line.
    seen = sb.run(LIST_PROCS).output
    assert "sleep 981" not in seen and "sleep 982" not in seen, seen
    stats = sb.run("cat /proc/[0-9]*/stat 2>/dev/null").output
    assert "(sleep)" not in stats, stats
    assert gone("sleep 981", "sleep 982")


def test_commands_see_no_scoring_worker_nor_its_environment(make):
    sb = make()
    need(sb, "pid_namespace")
    host = sb.scoring_host()
    w = host.start_worker(
        ["/bin/sh", "-c", "export SCORER_SECRET_983=1; exec sleep 983"], long_lived=True
    )
    try:
        assert wait_until(lambda: host_processes_with("sleep 983"))
        r = sb.run(LIST_PROCS + "; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'")
        assert "sleep 983" not in r.output and "SCORER_SECRET_983" not in r.output
    finally:
        w.kill()


def test_a_scoring_worker_can_give_each_evaluation_its_own_pid_namespace(make):
    # What the fork server does per evaluation: code under test then cannot signal it.
    sb = make()
    need(sb, "pid_namespace")
    host = sb.scoring_host()
    code = (
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
        "print(libc.unshare(0x10000000 | 0x20000000), os.strerror(ctypes.get_errno()))"
    )
    w = host.start_worker([host.python, "-c", code])
    assert w.stdout.read().split()[0] == b"0"
    w.kill()


@pytest.mark.parametrize("command", ["echo a\0b", "x" * 3_000_000])
def test_a_command_that_cannot_be_run_is_an_observation_and_leaves_nothing(make, command):
    from swarm_envs.sandboxes import cgroups

    sb = make()
    mine = f"{cgroups.PREFIX}-{os.getpid()}-"

    def ours() -> list[str]:
        return [n for p in cgroups.support().parents.values() for n in os.listdir(p) if mine in n]

    before = ours()
    for _ in range(3):
        r = sb.run(command)
        assert r.returncode not in (0, None) and not r.timed_out, r
    assert ours() == before
    assert sb.run("echo fine").output == "fine\n"


def test_output_is_capped_with_a_marker(make):
    sb = make(output_bytes=1000)
    r = sb.run("yes | head -c 1000000; echo; echo the last line")
    assert r.truncated and r.returncode == 0
    assert len(r.output) < 1200 and "truncated" in r.output
    # Head and tail are kept: where a command starts and where its error or status ends.
    assert r.output.startswith("y\ny\n") and r.output.endswith("\nthe last line\n")


def test_default_wall_limit_applies(make):
    sb = make(wall_s=1)
    r = sb.run("sleep 975; echo never")
    assert r.timed_out and "never" not in r.output and "limit of 1 s" in r.output
    assert gone("sleep 975")


def test_cpu_limit(make):
    need(make(), "rlimits")
    sb = make(cpu_s=1)
    r = sb.run("python -c 'while True: pass'; echo rc=$?", timeout_s=60)
    # The CPU limit, not the wall-clock one, ended it: SIGXCPU, then SIGKILL at the hard limit.
    assert not r.timed_out and "rc=0" not in r.output and "rc=" in r.output


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
    sb.run("bash -c ':(){ :|:& };:'; echo survived", timeout_s=5)
    assert gone(":(){ :|:& };:")  # no process of the bomb is left on the host
    again = sb.run("echo alive")
    assert again.output.strip() == "alive"
    if sb.protections.get("pid_namespace"):
        # The next command sees none of it (it filled the pids limit: on Docker, no shell
        # could start in the container to kill it).
        seen = sb.run(LIST_PROCS).output
        assert ":|:" not in seen, seen


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
    import subprocess

    host = subprocess.Popen(["sleep", "978"])  # a host process of the same user as us
    try:
        sb.run("kill -9 $PPID; kill -9 1; kill -9 -1; echo after")
        assert host.poll() is None, "a command killed a host process"
        assert sb.run("echo alive").output.strip() == "alive"
    finally:
        host.kill()
        host.wait()


def test_close_removes_everything_and_is_twice_safe(make):
    sb = make()
    (sb.root / "x").write_text("x")
    sb.run("sleep 977 > /dev/null 2>&1 &")
    root = sb.root
    sb.close()
    sb.close()
    assert not root.exists()
    assert gone("sleep 977")
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


def test_commands_run_as_a_user_that_owns_nothing_outside_the_workspace(make):
    sb = make()
    need(sb, "dedicated_uid")
    r = sb.run(
        "id -u; id -G; find / \\( -path /proc -o -path /sys -o -path /dev -o -path /tmp "
        '-o -path /var/tmp -o -path "$PWD" \\) -prune -o -user "$(id -u)" -print 2>/dev/null '
        "| head -5; echo end",
        timeout_s=120,
    )
    uid, groups, *owned = r.output.splitlines()
    assert uid != "0" and "0" not in groups.split(), r.output
    assert owned == ["end"], r.output


@pytest.fixture
def root_only_files():
    """Place a root-owned file of mode 0600 in each of `dirs`; removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("placing root-owned files needs root")
    placed: list[Path] = []
    marker = f"rootonly{uuid.uuid4().hex}"  # the content; the names differ
    name = f".swarm-probe-{uuid.uuid4().hex[:12]}"

    def place(dirs):
        for d in dirs:
            f = Path(d) / name
            try:
                f.write_text(marker)
            except OSError:  # a read-only system directory: nothing can be planted there
                continue
            f.chmod(0o600)
            placed.append(f)
        return marker, placed

    yield place
    for f in placed:
        f.unlink(missing_ok=True)


def test_root_only_files_in_visible_host_directories_stay_unreadable(make, root_only_files):
    sb = make()
    need(sb, "unprivileged_user")
    # /etc is not among a bubblewrap sandbox's visible directories: a file there is not even
    # shown; the ones that are show only what every user may read.
    marker, placed = root_only_files([*sb.visible_host_dirs(), "/etc"])
    assert placed
    r = sb.run(" ; ".join(f"cat {f}" for f in placed) + "; echo end")
    assert marker not in r.output and r.output.rstrip().endswith("end"), r.output


def test_workers_cannot_read_root_only_files_of_the_scoring_area(make, root_only_files):
    sb = make()
    need(sb, "unprivileged_user")
    host = sb.scoring_host()
    host.sync("bin", {"probe.py": b"print('probe ran')\n"})
    marker, placed = root_only_files([host.dir, host.dir / "bin"])
    inside = [f"{host.inside_dir}/{f.relative_to(host.dir)}" for f in placed]
    code = (
        "import sys\n"
        f"for p in {inside!r}:\n"
        "    try:\n"
        "        print(open(p).read())\n"
        "    except OSError as e:\n"
        "        print(type(e).__name__)\n"
        f"print(open({host.inside_dir + '/bin/probe.py'!r}).read(), flush=True)\n"
    )
    w = host.start_worker([host.python, "-c", code])
    try:
        out = w.stdout.read().decode()
    finally:
        w.kill()
    assert "probe ran" in out, out  # the scoring tree stays readable by the worker
    assert marker not in out and out.count("PermissionError") == len(placed), out


WORKER = """
import subprocess, sys
child = subprocess.Popen(["sleep", sys.argv[1]])
print("ready", flush=True)
for line in sys.stdin:
    print("echo " + line.strip(), flush=True)
"""


def test_releasing_a_worker_kills_its_processes_and_no_other(make):
    sb = make()
    host = sb.scoring_host()
    host.sync("bin", {"w.py": WORKER.encode()})
    script = f"{host.inside_dir}/bin/w.py"
    one = host.start_worker([host.python, script, "979"], long_lived=True)
    two = host.start_worker([host.python, script, "980"], long_lived=True)
    try:
        assert one.stdout.readline() == b"ready\n" and two.stdout.readline() == b"ready\n"
        one.kill()
        one.kill()
        assert gone("sleep 979")
        assert wait_until(lambda: one.poll() is not None)
        two.stdin.write(b"still there\n")
        two.stdin.flush()
        assert two.stdout.readline() == b"echo still there\n"
        assert two.poll() is None and host_processes_with("sleep 980")
    finally:
        two.kill()
    assert gone("sleep 980")


def test_what_a_worker_writes_to_stderr_reaches_the_worker_log(make):
    sb = make()
    host = sb.scoring_host()
    code = "import sys; sys.stderr.write('worker-said-boom\\n'); sys.stderr.flush()"
    w = host.start_worker([host.python, "-c", code])
    assert w.stdout.read() == b""  # to the end: the worker has exited
    w.kill()
    assert wait_until(lambda: "worker-said-boom" in host.worker_log())


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="local"):
        make_sandbox("podman")


def test_weaker_isolation_than_requested_is_refused():
    with pytest.raises(ConfigError):
        LocalSandbox(isolation="chroot")


def test_docker_without_an_engine_says_so_and_how_to_fall_back(monkeypatch, tmp_path):
    pytest.importorskip("docker")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with pytest.raises(BackendUnavailable) as e:
        make_sandbox("docker")
    msg = str(e.value)
    assert "Docker" in msg and "no-engine.sock" in msg and "make_sandbox('local')" in msg


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
    assert es.stderr_tail == b"stderr noise"
    es.close()


@pytest.fixture
def docker_sandbox(docker_engine):
    if docker_engine is not None:
        pytest.skip(f"docker: {docker_engine}")
    with make_sandbox("docker") as sb:
        yield sb


def test_docker_a_process_silent_longer_than_the_clients_timeout_is_still_heard(
    docker_sandbox,
):
    """The attach sockets inherit the client's request timeout; silence is not the end."""
    sb = docker_sandbox
    sb.client.api.timeout = 1
    r = sb.run("sleep 3; echo late", timeout_s=30)
    assert (r.returncode, r.output) == (0, "late\n")
    host = sb.scoring_host()
    w = host.start_worker([host.python, "-c", "import time; time.sleep(3); print('late')"])
    try:
        assert w.stdout.read() == b"late\n"
    finally:
        w.kill()


def test_docker_commands_and_workers_leave_nothing_to_the_collector(docker_sandbox):
    """Every connection and pipe is closed when its command or worker ends: none is left
    for the collector to warn about later, in whatever code runs then."""
    import gc
    import warnings

    sb = docker_sandbox
    host = sb.scoring_host()
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(3):
            assert sb.run("echo hi").output == "hi\n"
            w = host.start_worker([host.python, "-c", "print('up')"])
            assert w.stdout.read() == b"up\n"
            w.kill()
        gc.collect()
    leaks = [str(c.message) for c in caught if issubclass(c.category, ResourceWarning)]
    assert leaks == []
