"""Who sandboxed processes run as, and each user's own sandbox root (`sandboxes.users`).

Users other than the one running the tests are real: a forked child of the test process
drops to another uid (which needs root; those tests skip otherwise) and creates sandboxes
under the same temporary directory, as a second user of the machine would.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from swarm_envs.error import ConfigError, SandboxError
from swarm_envs.sandboxes import users
from swarm_envs.sandboxes.local import LocalSandbox

#: a uid no account has, outside the dedicated range
OTHER_UID = 1_899_000_123

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")


def as_user(uid: int, fn):
    """Run `fn()` in a forked child that has become `uid`; ("ok", value) or ("error", text)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            result = ["ok", fn()]
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            result = ["error", f"{type(e).__name__}: {e}"]
        finally:
            os.write(w, json.dumps(result).encode())
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return tuple(json.loads(data))


@pytest.fixture
def shared_tmp():
    """A temporary directory every user may create entries in, like /tmp."""
    d = Path(tempfile.mkdtemp(prefix="swarm-shared-"))
    d.chmod(0o1777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@needs_root
def test_every_user_gets_a_sandbox_root_of_their_own(shared_tmp):
    with LocalSandbox(base_dir=shared_tmp) as mine:
        assert mine.root.is_relative_to(shared_tmp / f"swarm-envs-sandboxes-{os.geteuid()}")

        def other_user():
            with LocalSandbox(base_dir=shared_tmp, isolation="none") as sb:
                return [sb.run("echo ok; id -u").output, str(sb.root)]

        status, value = as_user(OTHER_UID, other_user)
        assert mine.run("echo still mine").output == "still mine\n"
    assert status == "ok", value
    output, root = value
    assert output == f"ok\n{OTHER_UID}\n"
    theirs = shared_tmp / f"swarm-envs-sandboxes-{OTHER_UID}"
    assert Path(root).is_relative_to(theirs)
    st = theirs.stat()
    assert st.st_uid == OTHER_UID and st.st_mode & 0o777 == 0o700


@needs_root
def test_a_root_that_cannot_be_created_is_a_sandbox_error_saying_what_to_do(shared_tmp):
    locked = shared_tmp / "locked"
    locked.mkdir(mode=0o755)  # root's: others may not create anything in it

    def other_user():
        LocalSandbox(base_dir=locked, isolation="none")

    status, message = as_user(OTHER_UID, other_user)
    assert status == "error"
    assert message.startswith("SandboxError: cannot create the sandbox root")
    assert "Permission denied" in message and "TMPDIR" in message


@needs_root
def test_a_root_owned_by_another_user_is_refused(shared_tmp):
    squatted = shared_tmp / f"swarm-envs-sandboxes-{os.geteuid()}"
    squatted.mkdir(mode=0o700)
    os.chown(squatted, OTHER_UID, OTHER_UID)
    with pytest.raises(SandboxError, match=f"owned by uid {OTHER_UID}, not you.*TMPDIR"):
        LocalSandbox(base_dir=shared_tmp)


def test_a_root_that_others_can_write_or_a_symlink_is_refused(tmp_path):
    root = tmp_path / f"swarm-envs-sandboxes-{os.geteuid()}"
    root.mkdir()
    root.chmod(0o777)
    with pytest.raises(SandboxError, match="writable by others"):
        LocalSandbox(base_dir=tmp_path)
    root.rmdir()
    (tmp_path / "elsewhere").mkdir()
    root.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SandboxError, match="not a directory"):
        LocalSandbox(base_dir=tmp_path)


def test_a_base_that_is_not_a_directory_is_a_sandbox_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(SandboxError, match="cannot create the sandbox root.*TMPDIR"):
        LocalSandbox(base_dir=tmp_path / "file")


def test_tmpdir_decides_where_the_root_lies(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with LocalSandbox() as sb:
        assert sb.root.is_relative_to(tmp_path / f"swarm-envs-sandboxes-{os.geteuid()}")


# ----------------------------------------------------------------- dedicated uids


@pytest.mark.parametrize("raw", ["abc", "5:5", "100:1000", "2000000000:900000000", "1:2:3"])
def test_a_bad_uid_range_names_the_variable_and_the_form(monkeypatch, raw):
    monkeypatch.setenv("SWARM_ENVS_SANDBOX_UIDS", raw)
    with pytest.raises(ConfigError, match="SWARM_ENVS_SANDBOX_UIDS.*START:COUNT"):
        users.uid_range()


def test_the_uid_range_can_be_moved_or_switched_off(monkeypatch):
    monkeypatch.setenv("SWARM_ENVS_SANDBOX_UIDS", "3000000:64")
    assert users.uid_range() == (3_000_000, 64)
    monkeypatch.setenv("SWARM_ENVS_SANDBOX_UIDS", "off")
    assert users.uid_range() is None and not users.dedicated_users_possible()
    monkeypatch.delenv("SWARM_ENVS_SANDBOX_UIDS")
    assert users.uid_range() == users.DEFAULT_UIDS


def test_concurrent_sandboxes_never_share_a_block(monkeypatch, tmp_path):
    monkeypatch.setenv("SWARM_ENVS_SANDBOX_UIDS", f"3000000:{2 * users.BLOCK}")
    owners = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    for o in owners:
        o.mkdir()
    a = users.reserve(tmp_path, owners[0])
    b = users.reserve(tmp_path, owners[1])
    assert {a.first, b.first} == {3_000_000, 3_000_000 + users.BLOCK}
    assert a.agent == a.first and a.scorer(0) == a.first + 1
    assert a.scorer(users.BLOCK - 1) == a.scorer(0)  # worker uids rotate inside the block
    with pytest.raises(SandboxError, match="no free block.*SWARM_ENVS_SANDBOX_UIDS"):
        users.reserve(tmp_path, owners[2])
    a.release()
    a.release()
    assert users.reserve(tmp_path, owners[2]).first == a.first
    # A sandbox that vanished without releasing (its process crashed) frees its block.
    owners[1].rmdir()
    assert users.reserve(tmp_path, owners[0]).first == b.first


@needs_root
def test_hand_over_gives_the_tree_to_the_agent_and_follows_no_link(tmp_path):
    uid = users.DEFAULT_UIDS[0]
    host_file = tmp_path / "host-file"
    host_file.write_text("the host's")
    tree = tmp_path / "ws"
    (tree / "pkg" / "deep").mkdir(parents=True)
    (tree / "pkg" / "deep" / "a.py").write_text("x = 1\n")
    (tree / "link").symlink_to(host_file)
    (tree / "dirlink").symlink_to(tmp_path)
    # A second name of a host file (where the kernel lets a user link what it does not own).
    os.link(host_file, tree / "hardlink")
    users.hand_over(tree, uid)
    for p in [tree, *tree.rglob("*")]:
        if p.name != "hardlink":
            st = p.lstat()
            assert (st.st_uid, st.st_gid) == (uid, uid), p
    assert host_file.stat().st_uid == 0 and tmp_path.stat().st_uid == 0
