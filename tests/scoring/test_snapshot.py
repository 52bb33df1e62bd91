"""The workspace snapshot: what counts, what is re-read, what is never followed."""

from __future__ import annotations

import os
import time

import pytest

from swarm_envs.error import ScoringError
from swarm_envs.scoring.snapshot import MAX_REL_BYTES, RACY_NS, Quota, WorkspaceSnapshot, digest


def _snap(task, root, **quota):
    return WorkspaceSnapshot(root, task, Quota(**{"max_file_bytes": 1 << 20, **quota}))


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


def test_quotas_stop_the_scan_and_say_why(task, tmp_path):
    root = tmp_path / "ws"
    task.materialize(root)
    snap = _snap(task, root)
    snap.take()
    assert not snap.over_quota and snap.usage[0] == 3
    (root / "big.bin").write_bytes(b"\0" * (2 << 20))
    snap.take()
    assert "big.bin is 2 MiB" in snap.over_quota
    (root / "big.bin").unlink()
    for i in range(10):
        (root / f"f{i}.txt").write_text("x")
    many = _snap(task, root, max_files=8)
    many.take()
    assert "more than at most 8 files" in many.over_quota
    heavy = _snap(task, root, max_bytes=100)
    heavy.take()
    assert heavy.over_quota


def test_odd_names_are_left_out_with_a_note(task, tmp_path):
    root = tmp_path / "ws"
    task.materialize(root)
    bad = os.fsencode(str(root)) + b"/bad\xff.py"
    with open(bad, "wb") as f:
        f.write(b"x = 1\n")
    deep = root
    while len(os.fsencode(str(deep.relative_to(root)))) <= MAX_REL_BYTES:
        deep = deep / ("d" * 200)
    deep.mkdir(parents=True)
    (deep / "m.py").write_text("x = 1\n")
    snap = _snap(task, root)
    files = snap.take()
    assert set(files) == {"mathy/__init__.py", "mathy/ops.py", "mathy/text.py"}
    assert snap.notes and "left out" in snap.notes[0]


def test_contents_are_read_again_and_checked_when_let_go(task, tmp_path, monkeypatch):
    import swarm_envs.scoring.snapshot as snapshot

    monkeypatch.setattr(snapshot, "BLOB_BUDGET", 1)  # keep (almost) nothing in memory
    root = tmp_path / "ws"
    task.materialize(root)
    snap = _snap(task, root)
    files = snap.take()
    blobs = snap.contents(files)
    assert blobs[files["mathy/ops.py"]] == (root / "mathy/ops.py").read_bytes()
    (root / "mathy/ops.py").write_text("changed = True\n")
    blobs[files["mathy/text.py"]]  # evicts ops.py
    with pytest.raises(ScoringError, match="changed while it was being scored"):
        blobs[files["mathy/ops.py"]]
