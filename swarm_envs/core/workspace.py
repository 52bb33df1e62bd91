"""The shared workspace: file tools confined to the project root.

Every path an agent gives is relative to the project root. Absolute paths, `..`
that leaves the root, symlinks that resolve outside it, hard-linked files and
anything but regular files are refused. Writes go through a temporary file and
an atomic rename, so a write never follows a link out of the workspace and a
failed write leaves the old file intact.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from swarm_envs.error import ActionError

MAX_FILE_BYTES = 2_000_000
MAX_LISTED = 400
_SKIP_DIRS = {"__pycache__", ".git", ".pytest_cache"}


def _occurrences(text: str, old: str, limit: int = 100) -> int:
    """Occurrences of `old` in `text`, overlapping ones included (up to `limit`)."""
    count, i = 0, text.find(old)
    while i >= 0 and count < limit:
        count += 1
        i = text.find(old, i + 1)
    return count


class Workspace:
    """File operations for agents over one project directory."""

    def __init__(
        self,
        root: Path,
        is_protected: Callable[[str], bool] = lambda _: False,
        admit: Callable[[str, int | None, int], None] | None = None,
    ):
        self.root = Path(root).resolve()
        self._is_protected = is_protected
        # A hook asked before every write: (path, its size now or None, new size); it
        # raises ActionError to refuse (the scorer's quota: nothing is written then).
        self._admit = admit
        # Who last changed each file through a file tool, and when: (agent, time, tool).
        # Commands change files too, unseen; this is what an edit conflict can report.
        self._changes: dict[str, tuple[int, float, str]] = {}

    def note_change(self, path: str, agent: int, at: float, tool: str) -> None:
        """Record that `agent` changed `path` with `tool` at virtual time `at`."""
        self._changes[self.relpath(path)] = (agent, at, tool)

    def last_change(self, path: str) -> tuple[int, float, str] | None:
        """(agent, time, tool) of the last change of `path` by a file tool, or None."""
        try:
            return self._changes.get(self.relpath(path))
        except ActionError:
            return None

    # ---------------------------------------------------------------- paths

    def relpath(self, path: str) -> str:
        """Normalise an agent-given path to a clean relative POSIX path, or raise."""
        if not isinstance(path, str) or "\x00" in path:
            raise ActionError("path must be a string without NUL characters")
        try:
            os.fsencode(path)
        except UnicodeEncodeError:
            raise ActionError(f"path {path!r} is not valid UTF-8 text") from None
        p = PurePosixPath(path.replace("\\", "/"))
        if p.is_absolute() or path.startswith("~"):
            raise ActionError(
                f"path {path!r} is absolute; use a path relative to the project root, "
                "e.g. 'src/module.py'"
            )
        parts: list[str] = []
        for part in p.parts:
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise ActionError(f"path {path!r} leaves the project root")
                parts.pop()
            else:
                parts.append(part)
        return "/".join(parts) or "."

    def resolve(self, path: str) -> tuple[str, Path]:
        """(relative path, host path) with symlinks checked to stay inside the root."""
        rel = self.relpath(path)
        host = self.root / rel
        try:
            real = host.resolve()
        except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long
            raise ActionError(f"path {path!r} cannot be resolved (symlink loop?)") from None
        if real != self.root and self.root not in real.parents:
            raise ActionError(f"path {path!r} points outside the project (through a symlink)")
        return rel, host

    def _regular(self, rel: str, host: Path) -> os.stat_result:
        try:
            st = host.lstat() if not host.is_symlink() else host.stat()
        except FileNotFoundError:
            raise ActionError(
                f"no such file: {rel!r} (use list_files to see the project)"
            ) from None
        except OSError as e:
            raise ActionError(f"cannot access {rel!r}: {e.strerror}") from None
        if stat.S_ISDIR(st.st_mode):
            raise ActionError(f"{rel!r} is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise ActionError(f"{rel!r} is not a regular file")
        if st.st_nlink > 1:
            raise ActionError(f"{rel!r} is a hard link; hard-linked files are not accessible")
        return st

    # ---------------------------------------------------------------- tools

    def list_files(self, path: str = ".") -> str:
        """The `list_files` tool: the files under `path`, one a line (capped)."""
        rel, host = self.resolve(path)
        if not host.exists():
            raise ActionError(f"no such directory: {rel!r}")
        if not host.is_dir():
            return rel
        found: list[str] = []
        total = 0
        for dirpath, dirnames, filenames in os.walk(host):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for f in sorted(filenames):
                if f.endswith(".pyc"):
                    continue
                total += 1
                if len(found) < MAX_LISTED:
                    found.append(os.path.relpath(os.path.join(dirpath, f), self.root))
        if not found:
            return f"{rel}: (empty)"
        out = "\n".join(p.replace(os.sep, "/") for p in found)
        if total > len(found):
            out += f"\n[... {total - len(found)} more files not listed]"
        return out

    def read_file(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> str:
        """The `read_file` tool: a file's text, or its lines `start_line..end_line` numbered."""
        rel, host = self.resolve(path)
        st = self._regular(rel, host)
        if st.st_size > MAX_FILE_BYTES:
            raise ActionError(
                f"{rel!r} is {st.st_size} bytes; files over {MAX_FILE_BYTES} are not read"
            )
        try:
            text = host.read_bytes().decode("utf-8", "replace")
        except OSError as e:
            raise ActionError(f"cannot read {rel!r}: {e.strerror}") from None
        if start_line is None and end_line is None:
            return text
        lines = text.splitlines(keepends=True)
        start = start_line or 1
        end = end_line or len(lines)
        if end < start:
            raise ActionError(f"end_line {end} is before start_line {start}")
        if start > max(len(lines), 1):
            raise ActionError(f"{rel!r} has {len(lines)} lines; start_line {start} is past the end")
        width = len(str(min(end, len(lines))))
        return "".join(
            f"{i:>{width}}| {line}" for i, line in enumerate(lines[start - 1 : end], start)
        )

    def _check_writable(self, rel: str) -> None:
        if rel == ".":
            raise ActionError("path must name a file")
        if self._is_protected(rel):
            raise ActionError(
                f"{rel!r} is protected (tests and test configuration cannot be changed); "
                "change the project's source files instead"
            )
        if any(part in _SKIP_DIRS for part in rel.split("/")):
            raise ActionError(f"{rel!r} is inside a cache directory")

    def write_file(self, path: str, content: str) -> str:
        """The `write_file` tool: create or replace a file, atomically."""
        rel, host = self.resolve(path)
        self._check_writable(rel)
        data = content.encode("utf-8", "surrogatepass")
        if len(data) > MAX_FILE_BYTES:
            raise ActionError(f"content is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
        if host.is_dir():
            raise ActionError(f"{rel!r} is a directory")
        existed = host.exists()
        self._atomic_write(rel, host, data)
        return f"{'overwrote' if existed else 'created'} {rel} ({len(data)} bytes)"

    def edit_file(self, path: str, old: str, new: str) -> str:
        """The `edit_file` tool: replace the one occurrence of `old` by `new`."""
        rel, host = self.resolve(path)
        self._check_writable(rel)
        self._regular(rel, host)
        text = host.read_bytes().decode("utf-8", "surrogateescape")
        count = _occurrences(text, old)
        if count == 0:
            raise ActionError(
                f"edit_file: the text to replace does not occur in {rel!r} (it may have "
                "changed since you read it); read the file again and retry"
            )
        if count > 1:
            times = f"{count} times" if count < 100 else "100 times or more"
            raise ActionError(
                f"edit_file: the text to replace occurs {times} in {rel!r}; include "
                "more surrounding lines so that it matches exactly once"
            )
        out = text.replace(old, new, 1).encode("utf-8", "surrogateescape")
        if len(out) > MAX_FILE_BYTES:
            raise ActionError(f"the edited file would be {len(out)} bytes; limit {MAX_FILE_BYTES}")
        self._atomic_write(rel, host, out)
        line = text[: text.index(old)].count("\n") + 1
        removed, added = old.count("\n") + 1, new.count("\n") + 1
        return f"edited {rel} at line {line} (-{removed} +{added} lines)"

    def _atomic_write(self, rel: str, host: Path, data: bytes) -> None:
        if self._admit is not None:
            try:
                old: int | None = host.lstat().st_size
            except OSError:
                old = None
            self._admit(rel, old, len(data))
        # Parent directories are created one by one so that no component can be a
        # symlink that leads out (a command may have planted one); the ones created
        # are removed again if the write fails, so a failed write changes nothing.
        parent = self.root
        created: list[Path] = []
        try:
            for part in rel.split("/")[:-1]:
                parent = parent / part
                if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
                    raise ActionError(f"{parent.relative_to(self.root)} is not a directory")
                if not parent.exists():
                    parent.mkdir()
                    created.append(parent)
            fd, tmp = tempfile.mkstemp(dir=parent, prefix=".swarm-write-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.chmod(tmp, 0o644)
                os.replace(tmp, host)
            except OSError:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, ActionError) as e:
            for d in reversed(created):
                with contextlib.suppress(OSError):
                    d.rmdir()
            if isinstance(e, ActionError):
                raise
            raise ActionError(f"cannot write {rel!r}: {e.strerror}") from None
