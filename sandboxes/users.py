"""Who sandboxed processes run as, and where each user's sandboxes live on the host.

A process that runs as root on the host can read every root-owned file it can reach,
whatever its capabilities: inside a user namespace that maps it to root it still *is* root
to the kernel's permission checks. So when this library runs as root, nothing it starts
on an agent's behalf does: each sandbox reserves a block of dedicated host uids
(`SandboxUsers`) that own nothing on the host but that sandbox's workspace.

- `agent`: agents' commands; owns the workspace (`hand_over` gives it the files the
  host wrote there).
- `scorer(k)`: scoring workers; read the scoring area, own nothing. Workers that share a
  container get distinct uids, so that one of them can be killed alone (`kill -1` as that
  uid) and none can signal another.

The uids come from a range that no account uses (default `DEFAULT_UIDS`, which lies in
the span systemd documents as unused); set `SWARM_ENVS_SANDBOX_UIDS=START:COUNT` to pick
another, or `off` to run sandboxed processes as the invoking user. Blocks are reserved
with a symlink in the per-user sandbox root (atomic, swept when its sandbox is gone), so
concurrent processes never share one.

Each user of the machine gets a sandbox root of their own (`user_root`), created with mode
0700 and checked on every use: a directory of that name owned by someone else, a symlink,
or one that others can write is refused with a `SandboxError` that says what to do.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import stat
from dataclasses import dataclass

from swarm_envs.error import ConfigError, SandboxError

#: uids per sandbox: the agent's, then the scoring workers'
BLOCK = 16
#: default range of dedicated uids (start, count)
DEFAULT_UIDS = (1_900_000_000, 1 << 20)
_ENV = "SWARM_ENVS_SANDBOX_UIDS"


@dataclass(frozen=True)
class SandboxUsers:
    """A block of `BLOCK` dedicated host uids (each its own gid) for one sandbox.

    Attributes:
        first: the block's first uid.
        link: the reservation (a symlink to the sandbox's directory); None if unreserved.
    """

    first: int
    link: pathlib.Path | None = None

    @property
    def agent(self) -> int:
        """The uid of agents' commands, which owns the workspace."""
        return self.first

    def scorer(self, k: int = 0) -> int:
        """The uid of scoring worker `k` (uids are reused after `BLOCK - 1` workers)."""
        return self.first + 1 + k % (BLOCK - 1)

    def release(self) -> None:
        """Give the block back (twice-safe)."""
        if self.link is not None:
            with contextlib.suppress(OSError):
                self.link.unlink()


def uid_range() -> tuple[int, int] | None:
    """The range of dedicated uids (start, count), or None when switched off.

    Raises:
        ConfigError: `SWARM_ENVS_SANDBOX_UIDS` is not `START:COUNT` or `off`.
    """
    raw = os.environ.get(_ENV, "").strip()
    if not raw:
        return DEFAULT_UIDS
    if raw.lower() in ("off", "0", "no", "none"):
        return None
    try:
        start_s, count_s = raw.split(":")
        start, count = int(start_s), int(count_s)
    except ValueError:
        start = count = -1
    if start < 1000 or count < BLOCK or start + count > 2**31 - 1:
        raise ConfigError(
            f"{_ENV}={raw!r}: expected START:COUNT, a range of at least {BLOCK} uids between "
            f"1000 and 2**31 - 1 that no account uses (default "
            f"{DEFAULT_UIDS[0]}:{DEFAULT_UIDS[1]}), or 'off'"
        )
    return start, count


def dedicated_users_possible() -> bool:
    """True when this process may run sandboxed processes as dedicated uids (it is root)."""
    return os.geteuid() == 0 and uid_range() is not None


def reserve(root: pathlib.Path, owner: pathlib.Path) -> SandboxUsers:
    """Reserve a free block of uids for the sandbox whose directory is `owner`.

    Args:
        root: the per-user sandbox root (reservations live in its `uids/` folder).
        owner: the sandbox's directory; the reservation ends when it is gone.

    Raises:
        SandboxError: no free block was found, or the reservation folder is unusable.
    """
    span = uid_range()
    if span is None:
        raise SandboxError(f"dedicated sandbox uids are switched off ({_ENV}=off)")
    start, count = span
    folder = root / "uids"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        names = os.listdir(folder)
    except OSError as e:
        raise SandboxError(
            f"cannot reserve sandbox uids in {folder}: {e.strerror}; check that {root} "
            "is yours and writable, or point TMPDIR elsewhere"
        ) from None
    for name in names:  # reservations whose sandbox is gone (a crashed process)
        link = folder / name
        if not os.path.exists(link):
            with contextlib.suppress(OSError):
                link.unlink()
    blocks = count // BLOCK
    for _ in range(64):
        k = secrets.randbelow(blocks)
        link = folder / str(k)
        try:
            os.symlink(owner, link)
        except FileExistsError:
            continue
        except OSError as e:
            raise SandboxError(f"cannot reserve sandbox uids in {folder}: {e.strerror}") from None
        return SandboxUsers(start + k * BLOCK, link)
    raise SandboxError(
        f"no free block of sandbox uids in {start}:{count} after 64 tries; close some "
        f"sandboxes or widen the range with {_ENV}=START:COUNT"
    )


def hand_over(tree: pathlib.Path, uid: int) -> None:
    """Make `uid` (and its gid) the owner of every entry of `tree` that it does not own.

    Files the host writes into a workspace are root's; the agent's commands must be able
    to change them. Only entries with another owner are touched, so an unchanged workspace
    costs one `lstat` per entry. Safe against a workspace that changes meanwhile: the walk
    holds each directory open (an entry swapped for a symlink is not entered, and none is
    ever followed), and a file with several hard links is left alone, since another of its
    names may lie outside the workspace.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        top = os.open(tree, flags)
    except OSError:
        return
    stack = [top]
    with contextlib.suppress(OSError):
        st = os.fstat(top)
        if st.st_uid != uid or st.st_gid != uid:
            os.fchown(top, uid, uid)
    while stack:
        fd = stack.pop()
        try:
            entries = list(os.scandir(fd))
        except OSError:
            entries = []
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
                is_dir = stat.S_ISDIR(st.st_mode)
                if (st.st_uid != uid or st.st_gid != uid) and (is_dir or st.st_nlink == 1):
                    os.chown(e.name, uid, uid, dir_fd=fd, follow_symlinks=False)
                if is_dir:
                    stack.append(os.open(e.name, flags, dir_fd=fd))
            except OSError:
                continue
        os.close(fd)


def user_root(prefix: str, base_dir: os.PathLike[str] | str | None = None) -> pathlib.Path:
    """The calling user's own sandbox root, `<base_dir>/<prefix>-<uid>` (created if needed).

    Args:
        prefix: the backend's folder name (`swarm-envs-sandboxes`, `swarm-envs-docker`).
        base_dir: where to create it; default: the system temp dir (`TMPDIR`).

    Raises:
        SandboxError: it cannot be created, or it exists but is not safe to use (owned by
            another user, a symlink, not a directory, writable by others); the message says
            what to do.
    """
    import tempfile

    base = pathlib.Path(base_dir if base_dir is not None else tempfile.gettempdir())
    uid = os.geteuid()
    root = base / f"{prefix}-{uid}"
    fix = (
        f"remove it, or set TMPDIR (or the sandbox's base_dir) to a directory of your own "
        f"(uid {uid})"
    )
    try:
        root.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as e:
        raise SandboxError(
            f"cannot create the sandbox root {root}: {e.strerror}; set TMPDIR (or the "
            f"sandbox's base_dir) to a writable directory of your own (uid {uid})"
        ) from None
    try:
        st = os.lstat(root)
    except OSError as e:
        raise SandboxError(f"cannot use the sandbox root {root}: {e.strerror}; {fix}") from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise SandboxError(f"the sandbox root {root} is not a directory; {fix}")
    if st.st_uid != uid:
        raise SandboxError(f"the sandbox root {root} is owned by uid {st.st_uid}, not you; {fix}")
    if st.st_mode & 0o022:
        raise SandboxError(
            f"the sandbox root {root} is writable by others (mode {st.st_mode & 0o777:o}); {fix}"
        )
    return root
