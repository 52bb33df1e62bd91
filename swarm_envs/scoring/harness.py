"""The scoring harness as installed: checked against its wheels before anything is scored.

Outcomes are decided by code that is not the task's: pytest (`pytest`, `_pytest`), its
plugin system (`pluggy`), the small libraries pytest reads its configuration with
(`iniconfig`, `packaging`), and the scorer with its worker (`swarm_envs.scoring`). If any
of them was altered (a command that once ran without confinement appended code to
`_pytest/reports.py`, an editor saved over a file), every score is wrong, silently: a
damaged reporter fails every test, and a damaged guard might pass them. So before a
process scores for the first time (`verify`), every installed file of those distributions
is compared with the sha256 that its wheel's `RECORD` lists (`importlib.metadata`); a file
that differs or is missing raises `ScoringError` naming it, never a zero. The pytest that
scores is the scorer's own (`harness_env`: a private environment in the cache, shown
read-only to the workers), never the interpreter's: `installed()` is its files and the
scorer's.

What this assumes, and what it costs:

- **A tripwire, not a lock.** Whoever can rewrite `_pytest/reports.py` can rewrite
  `RECORD` too. The check catches damage done from outside the model (an earlier run
  under a weaker sandbox, a hand edit, a broken upgrade); what keeps a live attacker
  out of the host's site-packages is the sandbox: agents' commands and scoring workers
  see the host's Python read-only, or not at all.
- **Memoised on the file's stat.** A file's verdict is kept for its (inode, size, mtime,
  ctime): a rewrite changes its ctime even when the mtime is set back, so each later
  scorer of the process re-hashes exactly the files that changed (a stat of each file,
  about a millisecond for the whole harness). A process that rewrites a file and sets the
  clock back is outside the model above (it runs as root on the host).
- **Editable installs.** A development checkout (`pip install -e`) has no `RECORD` hashes
  for its own files: `swarm_envs` is then its own reference (its scorer source is part of
  the cache keys anyway), and only the third-party distributions are checked.
- **The tested pytest range.** The guard relies on pytest internals (class names, private
  modules), so a harness whose pytest is outside `PYTEST_RANGE` (the range the scoring and
  red-team tests run at both ends of: `harness_env.LOCKS`) is refused with the same error.

`digest()` is a digest of every checked file (their `RECORD` lines, which the check has
just matched): the on-disk cache keys include it, so an entry made with one harness is
never served to another of the same version numbers.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
import pathlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from swarm_envs.error import ScoringError

#: the pytest releases the guard is tested with (`harness_env.LOCKS` pins one at each end)
PYTEST_RANGE = ("8.0", "9.3")
#: the distributions whose installed files decide outcomes: pytest and what it imports
#: (pygments for its reports; before 3.11 the backports; a missing one is skipped), and
#: the scorer's own files
DISTRIBUTIONS = (
    "pytest",
    "pluggy",
    "iniconfig",
    "packaging",
    "pygments",
    "exceptiongroup",
    "tomli",
    "swarm-envs",
)
#: distributions that must have RECORD hashes (swarm-envs may be an editable checkout)
_REQUIRED = ("pytest", "pluggy")
#: within swarm-envs, the files that take part in scoring (the rest is not the harness)
_OWN_PREFIX = "swarm_envs/scoring/"

_lock = threading.Lock()
#: path -> (stat key, sha256 in RECORD's encoding) of files already hashed
_hashed: dict[str, tuple[tuple[int, ...], str]] = {}


@dataclass(frozen=True)
class HarnessFile:
    """One file of the harness: where it is installed and what its wheel says it holds."""

    distribution: str
    version: str
    rel: str  # as RECORD names it
    path: pathlib.Path
    sha256: str  # urlsafe base64 without padding, as RECORD writes it


def _release(version: str) -> tuple[int, ...]:
    """The numeric release of a version string (`9.2.0rc1` -> (9, 2, 0))."""
    out: list[int] = []
    for part in version.split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        out.append(int(digits))
        if len(digits) != len(part):
            break
    return tuple(out)


def check_pytest_version(version: str | None = None) -> str:
    """The installed pytest's version, if it is within `PYTEST_RANGE`.

    Args:
        version: the version to check (default: the installed pytest's, read from its
            metadata without importing it).

    Raises:
        ScoringError: pytest is missing, or outside the tested range (the message names
            the range and the fix).
    """
    low, high = PYTEST_RANGE
    fix = f'pip install "pytest>={low},<{high}"'
    if version is None:
        try:
            version = importlib.metadata.version("pytest")
        except importlib.metadata.PackageNotFoundError:
            raise ScoringError(f"pytest is not installed in this Python; {fix}") from None
    if not _release(low) <= _release(version) < _release(high):
        raise ScoringError(
            f"pytest {version} is installed, but the scorer is tested with pytest>={low},<{high} "
            "only (its integrity guard relies on pytest internals, which change between "
            f"releases); {fix}"
        )
    return version


def harness_files(distributions: Iterable[str] = DISTRIBUTIONS) -> list[HarnessFile]:
    """Every installed file of the harness that its wheel's `RECORD` gives a sha256 for.

    Files outside the distribution's folder (console scripts, written at install time)
    and bytecode are left out; of swarm-envs, only `swarm_envs/scoring/`.

    Raises:
        ScoringError: pytest or pluggy is installed without a `RECORD` that lists hashes
            (installed by something other than a wheel installer): it cannot be checked.
    """
    out: list[HarnessFile] = []
    found: dict[str, list[HarnessFile]] = {}
    for name in distributions:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        own = name == "swarm-envs"
        mine = found.setdefault(name, [])
        for f in dist.files or ():
            rel = f.as_posix()
            if f.hash is None or f.hash.mode != "sha256" or rel.startswith("../"):
                continue
            if rel.endswith(".pyc") or (own and not rel.startswith(_OWN_PREFIX)):
                continue
            path = pathlib.Path(str(dist.locate_file(f)))
            mine.append(HarnessFile(name, dist.version, rel, path, f.hash.value))
        out += mine
    require_records(found, [d for d in distributions if d in _REQUIRED])
    return out


def require_records(found: dict[str, list[HarnessFile]], required: Iterable[str]) -> None:
    """Refuse a required distribution whose files have no hashes to check.

    Raises:
        ScoringError: one of `required` has no hashed file in `found`.
    """
    for name in required:
        if not found.get(name):
            raise ScoringError(
                f"{name} cannot be checked: its installed RECORD lists no file hashes "
                "(installed by something other than pip or another wheel installer), so "
                f"the scorer cannot tell whether its files are intact; install {name} with "
                'pip in a virtual environment (pip install --force-reinstall "pytest>='
                f'{PYTEST_RANGE[0]},<{PYTEST_RANGE[1]}")'
            )


_own: list[list[HarnessFile]] = []


def installed() -> list[HarnessFile]:
    """The files that decide outcomes: the scorer's private pytest and its own worker.

    The private harness (`harness_env.harness_env()`: pytest and what it imports, built in
    the cache on first use) and swarm-envs's `swarm_envs/scoring/` files, read once. The
    interpreter's own pytest, if any, plays no part.

    Raises:
        ScoringError: the private harness cannot be built, or differs from its wheels.
    """
    from .harness_env import built  # that module builds on this one's checks

    env = built()  # its files are checked by the caller, `verify`
    with _lock:
        if not _own:
            _own.append(harness_files(("swarm-envs",)))
        return [*env.files, *_own[0]]


def _sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()


def _stat_key(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def verify(files: Iterable[HarnessFile] | None = None) -> str:
    """Check the harness against its wheels; return `digest()` of what was checked.

    Args:
        files: the files to check (default: `installed()`, after the pytest range
            check). Tests pass a copy of the harness here; everything else uses the
            default.

    Raises:
        ScoringError: pytest is outside the tested range, or a file of the harness
            differs from its wheel or is missing (the message names the file, the
            distribution and the fix).
    """
    checked = installed() if files is None else list(files)
    for hf in checked:
        fix = f'reinstall it: pip install --force-reinstall "{hf.distribution}=={hf.version}"'
        try:
            st = os.stat(hf.path)
        except OSError:
            raise ScoringError(
                f"the installed `{hf.rel}` of {hf.distribution} {hf.version} is missing "
                f"({hf.path}): the harness that scores tests is damaged; {fix}"
            ) from None
        key = _stat_key(st)
        where = str(hf.path)
        with _lock:
            seen = _hashed.get(where)
        if seen is not None and seen[0] == key:
            actual = seen[1]
        else:
            try:
                actual = _sha256(hf.path)
            except OSError as e:
                raise ScoringError(
                    f"the installed `{hf.rel}` of {hf.distribution} {hf.version} cannot be "
                    f"read ({e}); {fix}"
                ) from None
            with _lock:
                _hashed[where] = (key, actual)
        if actual != hf.sha256:
            raise ScoringError(
                f"the installed `{hf.rel}` differs from {hf.distribution} {hf.version}'s "
                f"wheel (its RECORD sha256): the harness that scores tests was altered, so "
                f"no score from it can be trusted; {fix}"
            )
    return digest(checked)


def digest(files: Iterable[HarnessFile]) -> str:
    """A digest of the harness: each file's distribution, version, name and sha256."""
    h = hashlib.blake2b(digest_size=20)
    for hf in sorted(files, key=lambda f: (f.distribution, f.rel)):
        h.update(f"{hf.distribution} {hf.version} {hf.rel} {hf.sha256}\n".encode())
    return h.hexdigest()
