"""The scorer's own pytest: a private, digest-checked environment in the cache.

The scorer runs the task's tests with pytest, and its integrity guard relies on pytest
internals, so the harness must be a pytest of the tested range (`harness.PYTEST_RANGE`).
Taking it from the user's environment would pin *their* pytest (a run-time dependency
`pytest>=8,<9.3` clashes with a project's own pytest); here the library owns it: the
pinned wheels of `lock()` (`LOCK`: pytest at the top of the tested range and what it
imports, each with its sha256; `SWARM_ENVS_HARNESS_PYTEST=8.0.2` picks the low end's lock)
are installed once, on first use, into a folder of the cache
(`cache.folder("environments") / "scorer-harness-<lock digest>"`), with
`pip --require-hashes --no-deps --only-binary=:all:` (no code of any sdist runs), into a
temporary folder renamed into place when complete, under a lock so that concurrent
processes build it once. Offline, from a folder of the wheels: `harness_env(wheels=DIR)`
or `SWARM_ENVS_HARNESS_WHEELS=DIR`. Each later use checks every installed file against
the sha256 of its wheel's `RECORD` (`harness.verify`, memoised on the file's stat), so a
damaged or altered harness raises `ScoringError` naming the file.

`harness_env()` returns the folder and the digest of what it checked. The sandbox shows
the folder read-only to scoring workers (`channel.show_harness`, `ScoringHost.show`), which
put it on `sys.path` ahead of the interpreter's site-packages before pytest is imported
(`worker.settings.use_harness`). Measured by `benchmarks/bench_harness_env.py` (first use:
download or wheel cache, install, check; a warm reset: the check and the showing).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from swarm_envs import cache
from swarm_envs.error import ScoringError
from swarm_envs.scoring import harness

#: the wheels of the harness's dependencies: each pinned, with the sha256 of its
#: (pure-Python) wheel file; the backports only where this Python needs them
_DEPENDENCIES = (
    "pluggy==1.7.0 --hash=sha256:7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec",
    "iniconfig==2.3.1 "
    "--hash=sha256:9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7",
    "packaging==26.4 "
    "--hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2",
    "pygments==2.21.0 "
    "--hash=sha256:2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9",
    "exceptiongroup==1.3.0 ; python_version < '3.11' "
    "--hash=sha256:4d111e6e0c13d0644cad6ddaa7ed0261a0b36971f6d23e7ec9b4b9097da78a10",
    "tomli==2.2.1 ; python_version < '3.11' "
    "--hash=sha256:cb55c73c5f4408779d0cf3eef9f762b9c9f147a77de7b258bef0a5628adc85cc",
    "typing-extensions==4.14.1 ; python_version < '3.11' "
    "--hash=sha256:d1e1e3b58374dc93031d6eda2420a48ea44a36c2b4766a4fdeb3710755731d76",
)
#: the harness of each pytest the guard is tested with, by pytest version: the top of the
#: tested range (the default) and its low end (`make test-pytest-range` runs the scoring
#: tests with each, through `PYTEST_ENV`)
LOCKS: dict[str, tuple[str, ...]] = {
    "9.2.0": (
        "pytest==9.2.0 "
        "--hash=sha256:07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588",
        *_DEPENDENCIES,
    ),
    "8.0.2": (
        "pytest==8.0.2 "
        "--hash=sha256:edfaaef32ce5172d5466b5127b42e0d6d35ebbe4453f0e3505d96afd93f6b096",
        *_DEPENDENCIES,
    ),
}
#: the pytest of the harness unless `PYTEST_ENV` names another of `LOCKS`
DEFAULT_PYTEST = "9.2.0"
#: the default harness's wheels
LOCK = LOCKS[DEFAULT_PYTEST]
#: the variable that picks the harness's pytest among `LOCKS` (tests of the range's ends)
PYTEST_ENV = "SWARM_ENVS_HARNESS_PYTEST"
#: the variable naming a folder of the wheels to build the harness from, with no index
WHEELS_ENV = "SWARM_ENVS_HARNESS_WHEELS"
#: the distributions of the harness that must be there (the rest are markers' backports)
REQUIRED = ("pytest", "pluggy", "iniconfig", "packaging", "pygments")

_lock = threading.Lock()
_checked: dict[pathlib.Path, HarnessEnv] = {}


@dataclass(frozen=True)
class HarnessEnv:
    """The scorer's private pytest, installed and checked.

    Attributes:
        path: the folder to put first on a worker's `sys.path`.
        pytest: the pytest version it holds.
        digest: `harness.digest()` of every file checked (its RECORD lines).
        files: those files, with the sha256 their wheels give.
    """

    path: pathlib.Path
    pytest: str
    digest: str
    files: tuple[harness.HarnessFile, ...] = field(default=(), repr=False, compare=False)


def lock() -> tuple[str, ...]:
    """The wheels of the harness in use: `LOCKS[$SWARM_ENVS_HARNESS_PYTEST]`, else `LOCK`.

    Raises:
        ScoringError: the variable names a pytest that has no lock.
    """
    chosen = os.environ.get(PYTEST_ENV, "").strip() or DEFAULT_PYTEST
    try:
        return LOCKS[chosen]
    except KeyError:
        raise ScoringError(
            f"{PYTEST_ENV}={chosen!r} names no harness the scorer is tested with: expected "
            f"one of {', '.join(sorted(LOCKS))} (or leave it unset for {DEFAULT_PYTEST})"
        ) from None


def pinned_pytest() -> str:
    """The pin of the harness's pytest (`pytest==9.2.0`), without building anything."""
    return lock()[0].split(" ", 1)[0]


def lock_digest(wheels: tuple[str, ...] | None = None) -> str:
    """A digest of a lock (default: `lock()`) and this Python's version: the folder's name."""
    h = hashlib.blake2b(digest_size=10)
    h.update("\n".join(wheels or lock()).encode())
    h.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    return h.hexdigest()


def location() -> pathlib.Path:
    """Where the harness of `lock()` lives (built there on first use)."""
    return cache.folder("environments") / f"scorer-harness-{lock_digest()}"


def harness_env(*, wheels: str | os.PathLike[str] | None = None) -> HarnessEnv:
    """The private harness: built on first use, checked against its wheels every time.

    Args:
        wheels: a folder of the wheels of `lock()` to install from, instead of the index
            (pip's `--find-links`, with `--no-index`); their hashes are checked the same.
            Default: the folder `$SWARM_ENVS_HARNESS_WHEELS` names, else the index.

    Raises:
        ScoringError: it could not be installed (pip's reason, and how to install it with
            no index), or an installed file differs from its wheel (the file is named).
    """
    where = location()
    with _lock:
        known = _checked.get(where)
    if known is not None:
        harness.verify(known.files)  # stat-memoised: a changed file is hashed again
        return known
    if not (where / ".complete").is_file():
        given = wheels if wheels is not None else os.environ.get(WHEELS_ENV, "").strip()
        _build(where, lock(), given or None)
    files = _files(where)
    env = HarnessEnv(where, _version(where, "pytest"), harness.verify(files), tuple(files))
    harness.check_pytest_version(env.pytest)
    with _lock:
        _checked[where] = env
    return env


def built() -> HarnessEnv:
    """The harness `harness_env()` gave this process, without checking its files again.

    For callers that check them themselves right after (`harness.verify()`), or that
    only need its folder; the first call of a process is `harness_env()`, checked in full.
    """
    with _lock:
        known = _checked.get(location())
    return known if known is not None else harness_env()


def _files(where: pathlib.Path) -> list[harness.HarnessFile]:
    """Every file of the harness at `where` with the sha256 its wheel's RECORD gives."""
    out: list[harness.HarnessFile] = []
    found: dict[str, list[harness.HarnessFile]] = {}
    for dist in importlib.metadata.distributions(path=[str(where)]):
        name = dist.metadata["Name"].lower()
        mine = found.setdefault(name, [])
        for f in dist.files or ():
            rel = f.as_posix()
            if f.hash is None or f.hash.mode != "sha256" or rel.startswith("../"):
                continue
            if rel.endswith(".pyc"):
                continue
            path = pathlib.Path(str(dist.locate_file(f)))
            mine.append(harness.HarnessFile(name, dist.version, rel, path, f.hash.value))
        out += mine
    missing = [n for n in REQUIRED if not found.get(n)]
    if missing:
        raise ScoringError(
            f"the scorer's harness at {where} lacks {', '.join(missing)} (or their RECORD "
            f"hashes): remove the folder and it is built again on next use"
        )
    return out


def _version(where: pathlib.Path, name: str) -> str:
    for dist in importlib.metadata.distributions(path=[str(where)]):
        if dist.metadata["Name"].lower() == name:
            return str(dist.version)
    raise ScoringError(f"the scorer's harness at {where} has no {name}")


@contextlib.contextmanager
def _exclusive(path: pathlib.Path) -> Iterator[None]:
    """A lock file held while one process builds (the others wait, then find it built)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _readable(root: pathlib.Path) -> None:
    """Folders 0755 and files 0644 whatever the umask (no content, no RECORD hash changes).

    Scoring workers read the harness as a uid that owns nothing.
    """
    os.chmod(root, 0o755)
    for folder, dirs, names in os.walk(root):
        for d in dirs:
            os.chmod(os.path.join(folder, d), 0o755)
        for n in names:
            os.chmod(os.path.join(folder, n), 0o644)


def _build(
    where: pathlib.Path, wheels_of: tuple[str, ...], wheels: str | os.PathLike[str] | None
) -> None:
    with _exclusive(where.with_name(where.name + ".lock")):
        if (where / ".complete").is_file():
            return  # another process built it while this one waited
        shutil.rmtree(where, ignore_errors=True)  # an interrupted build
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=where.name + ".", dir=where.parent))
        try:
            lock_file = tmp / "harness.lock"
            lock_file.write_text("\n".join(wheels_of) + "\n")
            site = tmp / "site"
            argv = [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                "--no-deps",
                "--only-binary=:all:",
                "--require-hashes",
                "--no-compile",
                "--target",
                str(site),
                "-r",
                str(lock_file),
            ]
            if wheels is not None:
                argv += ["--no-index", "--find-links", str(wheels)]
            try:
                r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise ScoringError(_cannot_install(where, wheels, str(e))) from None
            if r.returncode != 0:
                raise ScoringError(_cannot_install(where, wheels, r.stderr or r.stdout))
            for bin_dir in (site / "bin",):  # console scripts: not part of the harness
                shutil.rmtree(bin_dir, ignore_errors=True)
            harness.verify(_files(site))  # as installed, before anyone uses it
            (site / ".complete").write_text("\n".join(wheels_of) + "\n")
            _readable(site)
            os.replace(site, where)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _cannot_install(where: pathlib.Path, wheels: object, said: str) -> str:
    source = f"the wheels in {wheels}" if wheels is not None else "the package index"
    names = " ".join(line.split(" ", 1)[0].split(";")[0] for line in lock())
    return (
        f"could not install the scorer's pytest into its private environment ({where}) from "
        f"{source}: {said.strip()[-1500:]}\nOn a machine with no index, fetch its wheels "
        f"elsewhere (pip download --no-deps --only-binary=:all: -d DIR {names}) and point "
        f"at them: {WHEELS_ENV}=DIR, or harness_env(wheels=DIR); or run once where the index "
        f"is reachable, and copy {where} there"
    )
