"""The workspace snapshot: what counts, what is re-read, what is never followed."""

from __future__ import annotations

import os
import time

from swarm_envs.scoring.snapshot import RACY_NS, WorkspaceSnapshot, digest


def _snap(task, root):
    return WorkspaceSnapshot(root, task, 1 << 20)


def test_only_project_files_count(task, tmp_path):
    root = tmp_path / "ws"
    task.materialize(root)
    for rel in (
        "conftest.py",
        "mathy/conftest.py",
        "mathy/sitecustomize.py",
        "evil.pth",
        "pytest.ini",
        "mathy/__pycache__/x.cpython-311.pyc",
        ".git/config",
        "notes.txt",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    os.symlink("/etc/passwd", root / "link.py")
    os.mkfifo(root / "pipe.py")
    files = _snap(task, root).take()
    assert set(files) == {"mathy/__init__.py", "mathy/ops.py", "mathy/text.py", "notes.txt"}
    assert files["notes.txt"] == digest(b"x")


def test_unchanged_files_are_not_reread_and_racy_ones_are(task, tmp_path):
    root = tmp_path / "ws"
    task.materialize(root)
    snap = _snap(task, root)
    p = root / "mathy/ops.py"
    first = snap.take()
    # A same-size rewrite with the old timestamps, right after the first snapshot: the
    # file is still "racy" (modified within RACY_NS), so it is hashed again.
    st = p.stat()
    p.write_bytes(p.read_bytes().replace(b"def add", b"def dda"))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snap.take()["mathy/ops.py"] != first["mathy/ops.py"]
    # Old enough timestamps: trusted by (inode, size, mtime, ctime).
    old = time.time_ns() - 10 * RACY_NS
    os.utime(p, ns=(old, old))
    again = snap.take()
    assert snap.take() == again


def test_files_over_the_size_limit_are_left_out(task, tmp_path):
    root = tmp_path / "ws"
    task.materialize(root)
    (root / "big.bin").write_bytes(b"\0" * (2 << 20))
    assert "big.bin" not in _snap(task, root).take()
