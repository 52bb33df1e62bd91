"""Confinement, tested with attacks: what an agent's command can reach and change.

Nothing an agent runs may read a task's reference solution or hidden tests (wherever they
are installed), the scorer's private area, other episodes' workspaces or host files, nor
change anything outside its workspace. These need the local sandbox's filesystem view
(bubblewrap); elsewhere they are skipped, naming the missing protection.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from sandbox_support import host_processes_with, wait_until
from scoring.project import SOLUTION, put, write_task

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.sandboxes.local import LocalSandbox, detect_protections
from swarm_envs.scoring import make_scorer
from swarm_envs.tasks import register_task

pytestmark = pytest.mark.skipif(
    not detect_protections()["filesystem_view"],
    reason="the local sandbox has no private filesystem view here (no bubblewrap)",
)


@pytest.fixture
def sandbox():
    with make_sandbox("local") as sb:
        yield sb


@pytest.fixture
def secret_task(tmp_path):
    """A registered task whose solution holds a unique marker (name and content)."""
    marker = f"swarmsecret{uuid.uuid4().hex}"
    solution = {**SOLUTION, f"mathy/{marker}.py": f'MARKER = "{marker}"\n'}
    task = write_task(tmp_path / "secret-task", solution=solution, name=f"s{uuid.uuid4().hex[:8]}")
    register_task(task.root)
    return task, marker


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_searching_the_whole_disk_finds_no_solution(sandbox, secret_task):
    task, marker = secret_task
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        sc.evaluate()  # the scorer has set up its private area by now
        r = sandbox.run(
            f"find / -name '*{marker}*' 2>/dev/null; "
            f"find / -path '*secret-task*' 2>/dev/null | head; "
            # Contents too, except the OS and the Python installation (found by name above).
            f"grep -rl {marker} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr "
            "--exclude-dir=dev --exclude-dir='python3*' 2>/dev/null | head; echo searched",
            timeout_s=120,
        )
    assert r.output.strip().endswith("searched"), r.output[-500:]
    assert marker not in r.output.replace(f"grep -rl {marker}", "")
    assert "secret-task" not in r.output


def test_bundled_tasks_are_invisible():
    from swarm_envs.tasks import registry as task_mod

    roots = {Path(task_mod.BUNDLED_ROOT)}
    with make_sandbox("local", hide=roots) as sandbox:
        for root in roots:
            if root.is_dir():
                r = sandbox.run(f"ls {root} 2>&1; ls {root}/*/solution 2>&1 | head -3")
                assert "solution" not in r.output.replace(f"{root}/*/solution", "")
                assert not any(p.name in r.output for p in root.iterdir() if p.is_dir())


def test_hidden_paths_inside_a_visible_directory_are_masked():
    """A folder or file the caller names is masked even inside the visible Python prefix."""
    import shutil
    import sys

    base = Path(sys.prefix) / f"swarm-hide-{uuid.uuid4().hex[:8]}"
    (base / "folder").mkdir(parents=True)
    try:
        (base / "folder" / "solution.py").write_text("SECRET = 1\n")
        (base / "file.txt").write_text("secret file\n")
        probe = f"cat {base}/folder/solution.py {base}/file.txt 2>&1"
        with make_sandbox("local") as plain:
            assert "SECRET = 1" in plain.run(probe).output  # visible unless hidden
        with make_sandbox("local", hide=[base / "folder", base / "file.txt"]) as sb:
            out = sb.run(probe).output
            assert "SECRET" not in out and "secret file" not in out, out
            assert "SECRET" not in sb.run(f"ls -la {base}/folder").output
    finally:
        shutil.rmtree(base)


def test_this_library_is_invisible(sandbox):
    import swarm_envs

    pkg = Path(swarm_envs.__file__).resolve().parent
    r = sandbox.run(f"ls {pkg} 2>&1; cat {pkg}/__init__.py 2>&1 | head -3")
    assert "episode.py" not in r.output and "import" not in r.output, r.output


def test_scoring_area_is_invisible_to_commands(sandbox, tmp_path):
    task = write_task(tmp_path / "t")
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as sc:
        sc.evaluate()
        area = sandbox.scoring_host().dir
        assert (area / "bin" / "_swarm_worker").is_dir()  # it is there, on the host
        # Where a command could find it: the area's host path, its path in a worker, and
        # every folder a command can write or that holds sandboxes. (Not `find /`: on a
        # big host filesystem that walk alone runs past the command's time limit.)
        places = " ".join(
            sorted({str(sandbox.root), "/tmp", "/var/tmp", "/dev/shm", str(area.parent.parent)})
        )
        r = sandbox.run(
            f"ls {area} 2>&1; ls /scoring 2>&1; find {places} -name _swarm_worker 2>/dev/null"
        )
    assert not r.timed_out, r.output
    assert "_swarm_worker" not in r.output, r.output
    assert r.output.count("No such file") == 2, r.output


def test_other_episodes_are_invisible(sandbox):
    marker = f"episode{uuid.uuid4().hex}"
    with make_sandbox("local") as other:
        (other.root / f"{marker}.txt").write_text(marker)
        other.run(f"echo {marker} > /tmp/{marker}.tmp")
        places = f"/tmp /var/tmp /dev/shm {other.root.parent.parent} {sandbox.root}"
        assert sandbox.run(f"find {places} -name '{marker}*' 2>/dev/null").output == ""
        r = sandbox.run(f"cat {other.root}/{marker}.txt /tmp/{marker}.tmp 2>&1")
        assert marker not in r.output.splitlines() and "No such file" in r.output
        assert marker not in sandbox.run("ls -a /tmp /var/tmp").output


def test_host_files_are_invisible(sandbox):
    import swarm_envs

    r = sandbox.run("ls /")
    names = set(r.output.split())
    for host_only in ("home", "srv", "mnt", "boot"):
        if Path(f"/{host_only}").exists():
            assert host_only not in names, r.output
    # The project checkout (its tasks, its package) is not there, even where the Python
    # environment lives inside it.
    repo = Path(swarm_envs.__file__).resolve().parent.parent
    r = sandbox.run(f"ls -a {repo} 2>/dev/null")
    assert set(r.output.split()) <= {".", "..", ".venv", "venv"}, r.output
    # Only the sandbox's own processes are visible.
    assert str(os.getpid()) not in sandbox.run("ls /proc").output.split()


def test_symlinks_out_of_the_workspace_show_only_the_sandbox(sandbox, tmp_path):
    (tmp_path / "host.txt").write_text("host data")
    r = sandbox.run(
        f"ln -s / rootlink; ln -s {tmp_path} hostlink; ls rootlink/; cat hostlink/host.txt 2>&1; "
        "ln -s ../../../../../.. up; ls up/"
    )
    assert "host data" not in r.output
    # The link is in the workspace on the host too, pointing where the sandbox pointed it;
    # the scorer ignores symlinks (tests/test_scoring_tamper.py).
    assert (sandbox.root / "hostlink").is_symlink()


def test_hard_links_and_device_files_are_refused(sandbox):
    r = sandbox.run(
        "ln /etc/passwd hl 2>&1; echo rc=$?; ln /usr/bin/env hl2 2>&1; echo rc=$?; "
        "mknod dev c 1 3 2>&1; echo rc=$?; mknod blk b 8 0 2>&1; echo rc=$?"
    )
    assert r.output.count("rc=0") == 0, r.output
    for name in ("hl", "hl2", "dev", "blk"):
        assert not (sandbox.root / name).exists()


def test_fifos_and_odd_files_do_not_hang_scoring(sandbox, tmp_path):
    task = write_task(tmp_path / "t")
    task.materialize(sandbox.root)
    put(sandbox, "mathy/ops.py", SOLUTION["mathy/ops.py"])
    sandbox.run(
        'mkfifo mathy/pipe.py; mkfifo data.txt; python -c "import socket; '
        "s = socket.socket(socket.AF_UNIX); s.bind('sock')\""
    )
    with make_scorer(task, sandbox) as sc:
        r = sc.evaluate()
    assert r.verdict == "ok" and r.passed == 4


def test_writes_outside_the_workspace_do_not_reach_the_host(sandbox, tmp_path):
    marker = f"w{uuid.uuid4().hex}"
    r = sandbox.run(
        f"echo x > /tmp/{marker}; echo x > /var/tmp/{marker}; echo x > /{marker}; "
        f"echo x > /etc/{marker}; echo x > /usr/{marker}; echo x > {tmp_path}/{marker}; "
        f"echo x > $HOME/../{marker}; echo done"
    )
    assert "done" in r.output
    for d in ("/tmp", "/var/tmp", "/", "/etc", "/usr", str(tmp_path), str(sandbox.root.parent)):
        assert not Path(d, marker).exists(), d


def test_no_user_namespace_escape_and_not_root(sandbox):
    r = sandbox.run("id -u; unshare -r id 2>&1; echo rc=$?")
    expected = sandbox.users.agent if sandbox.users else 65534
    assert r.output.splitlines()[0] == str(expected)
    assert "uid=0" not in r.output


def test_no_network_interfaces_but_loopback(sandbox):
    r = sandbox.run("cat /proc/net/dev")
    ifaces = {line.split(":")[0].strip() for line in r.output.splitlines() if ":" in line}
    assert ifaces <= {"lo"}


def test_a_sandbox_killed_by_a_signal_is_cleaned_up(tmp_path):
    """SIGTERM to the process that owns sandboxes: they are closed on the way out."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "owner.py"
    script.write_text(
        "import sys, time\n"
        "from swarm_envs.sandboxes import make_sandbox\n"
        "sb = make_sandbox('local')\n"
        "print(sb.root, flush=True)\n"
        "import threading\n"
        "threading.Thread(target=sb.run, args=('sleep 976',), daemon=True).start()\n"
        "time.sleep(60)\n"
    )
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    root = Path(p.stdout.readline().strip())
    assert root.is_dir()
    assert wait_until(lambda: host_processes_with("sleep 976"))  # the command is running
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    assert wait_until(lambda: not root.exists() and not host_processes_with("sleep 976"))


def test_weaker_isolation_reports_what_is_missing():
    sb = LocalSandbox(isolation="none")
    try:
        assert sb.protections["filesystem_view"] is False
        assert "inactive" in sb.describe() and "filesystem_view" in sb.describe()
    finally:
        sb.close()
